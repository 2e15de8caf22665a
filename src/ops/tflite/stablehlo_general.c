/*
 * tflite/stablehlo_general.c - StableHLO operators of TFLite laid out by
 * dimension numbers (CONVOLUTION, GATHER, SCATTER), SORT with its
 * comparator, and the two whose options do not hold the result shape
 * (BROADCAST_IN_DIM, IOTA). Semantics from the StableHLO specification
 * (openxla/stablehlo docs/spec.md); the option fields are schema TFL3's
 * BuiltinOptions2 tables (src/import/tflite_schema.c).
 *  - CONVOLUTION (lhs, rhs; window_strides, padding [S, 2], lhs_dilation,
 *    rhs_dilation (empty lists: 1s, padding 0s), input_/kernel_/output_
 *    dimension numbers, feature_group_count, batch_group_count (0, the
 *    schema's default, read as 1)): the result has lhs's rank; its
 *    output_batch_dimension is dim(lhs, input_batch_dimension) /
 *    batch_group_count, its output_feature_dimension dim(rhs,
 *    kernel_output_feature_dimension), output spatial dim i
 *    floor((P_i - W_i) / stride_i) + 1 (0 when P_i = 0 or P_i < W_i), with
 *    P_i = (d_i - 1) * lhs_dilation_i + 1 + low_i + high_i (low_i + high_i
 *    when d_i = 0) and W_i = (k_i - 1) * rhs_dilation_i + 1, d_i and k_i the
 *    lhs and rhs spatial dims i. A symbolic d_i gives the formula (assumed
 *    P_i >= W_i). MACs as a grouped convolution: every result element sums
 *    Ck * prod(k_i) products, Ck = dim(rhs, kernel_input_feature_dimension)
 *    (= dim(lhs, input_feature_dimension) / feature_group_count), so MACs =
 *    E(out) * Ck * prod(k_i), FLOPs 2 * MACs. The whole window is counted,
 *    zeros that lhs_dilation or padding puts in it included (the spec's sum
 *    runs over them; a kernel may skip them). Checked: equal ranks, every
 *    dim index in range, the output dims a permutation, dim(lhs, input
 *    feature) = Ck * feature_group_count, dim(rhs, kernel output feature)
 *    divisible by both group counts, dim(lhs, input batch) by
 *    batch_group_count, one of the group counts 1.
 *  - GATHER (operand, start_indices; offset_dims, collapsed_slice_dims,
 *    start_index_map, index_vector_dim, slice_sizes): the batch dims are
 *    start_indices' dims without index_vector_dim (all of them when
 *    index_vector_dim = rank(start_indices): an implicit trailing 1), the
 *    offset dims slice_sizes without the collapsed ones; the result has
 *    rank batch + offset, result dim d the next offset dim when d is in
 *    offset_dims, the next batch dim otherwise. Checked: slice_sizes one
 *    per operand dim, within the operand's dims, collapsed ones <= 1;
 *    offset + collapsed dims = rank(operand); start_index_map within the
 *    operand and as long as the index vector; offset_dims increasing and
 *    within the result. 0 FLOPs (data movement).
 *  - SCATTER (inputs.. N, scatter_indices, updates.. N;
 *    update_computation_subgraph_index): result i has input i's shape and
 *    type. The update computation (a subgraph, as REDUCE's body, not
 *    counted on its own: src/import/tflite_loop.c) runs once per element
 *    of an update tensor (each run combines the N pairs of scalars):
 *    FLOPs, MACs and int ops = E(updates 0) x the body's. Without a body:
 *    one FLOP per update element per operand. Every update is counted (one
 *    whose index is out of bounds is skipped at run time: an upper bound).
 *    Checked: 2N + 1 inputs for N results; rank(updates) =
 *    len(update_window_dims) + rank(scatter_indices), less 1 when
 *    index_vector_dim < rank(scatter_indices).
 *  - SORT (inputs..; dimension (negative counts from the end), is_stable,
 *    comparator_subgraph_index): result i = input i. Comparisons: a
 *    comparison sort's n * ceil(log2 n) per sorted row (n = dim(input 0,
 *    dimension), E(input 0) / n rows, so E(input 0) x ceil(log2 n) in all;
 *    none for n <= 1), an upper bound of a merge sort's worst case (n *
 *    ceil(log2 n) - 2^ceil(log2 n) + 1); the exact count depends on the
 *    implementation and the data. The comparator subgraph runs once per
 *    comparison (counts = comparisons x its counts, not counted on its
 *    own); without one, 1 FLOP per comparison. A symbolic n gives the
 *    symbols' ceil(log2(n)) atom (fl__sym_clog2: "4*B*ceil(log2(B))",
 *    exact once B is bound).
 *  - BROADCAST_IN_DIM (operand; broadcast_dimensions) and IOTA (no operand;
 *    iota_dimension): the options do not hold the result shape, so the
 *    stored shape is the result, checked: BROADCAST_IN_DIM one distinct
 *    broadcast dim per operand dim within the result's rank, an operand dim
 *    that is not 1 equal to the result dim it maps to (a result dim the
 *    file leaves unknown, -1, takes that operand dim, symbolic ones
 *    included); IOTA's iota_dimension within the result's rank. 0 FLOPs.
 *  - CUSTOM_CALL (inputs..; call_target_name, backend_config, ...): what it
 *    computes is the target's, which the specification leaves to the
 *    implementation: the stored shapes, no FLOP rule (the node counts among
 *    those without one, so the answer is partial; its bytes are counted),
 *    and a warning naming the call target.
 *  - RNG_BIT_GENERATOR (initial_state; algorithm): output_state has
 *    initial_state's type (the specification), output the stored shape. How
 *    much work a generator does per bit depends on the algorithm and its
 *    implementation (DEFAULT is the implementation's choice): no FLOP rule.
 * A check that fails is a warning naming the tensor, and the file's shape
 * is used; the results are then checked against the stored shapes
 * (fl__tfl_check_all).
 */
#include "ops/tflite/tfl.h"

#include <string.h>

static int64_t int_opt(const fl_ctx *c, const fl_node *n, const char *name, int64_t dflt) {
    int64_t v = dflt;
    if (fl__attr_get_int(n, name, &v, c->d) != FL_OK) {
        v = dflt;
    }
    return v;
}

static bool warn_false(fl_ctx *c, const fl_node *n, const char *what) {
    fl__node_warn(c->d, n, "tensor '%s': %s; the file's shape is used", n->name, what);
    return false;
}

/* ------------------------------------------------------------------------- */
/* CONVOLUTION                                                                */
/* ------------------------------------------------------------------------- */

typedef struct conv_dn {
    int ns; /* spatial dims */
    int64_t ib, ifeat, kif, kof, ob, of;
    const int64_t *is, *ks, *os;
    int64_t stride[32], pad[64], ld[32], rd[32];
    int64_t fgc, bgc;
} conv_dn;

/* Reads the dimension numbers for operands of rank `r`; false after a
 * warning when they do not fit. */
static bool conv_read(fl_ctx *c, const fl_node *n, int r, conv_dn *cd) {
    size_t cnt;
    cd->ns = r - 2;
    if (r < 2 || r > 34) {
        return warn_false(c, n, "convolution operands need a rank of 2 to 34");
    }
    if (!fl__tfl_hlo_ints(c, n, "input_spatial_dimensions", cd->ns, &cd->is, &cnt) ||
        !fl__tfl_hlo_ints(c, n, "kernel_spatial_dimensions", cd->ns, &cd->ks, &cnt) ||
        !fl__tfl_hlo_ints(c, n, "output_spatial_dimensions", cd->ns, &cd->os, &cnt) ||
        !fl__tfl_hlo_per_dim(c, n, "window_strides", cd->ns, 1, cd->stride) ||
        !fl__tfl_hlo_per_dim(c, n, "padding", 2 * cd->ns, 0, cd->pad) ||
        !fl__tfl_hlo_per_dim(c, n, "lhs_dilation", cd->ns, 1, cd->ld) ||
        !fl__tfl_hlo_per_dim(c, n, "rhs_dilation", cd->ns, 1, cd->rd)) {
        return false;
    }
    cd->ib = int_opt(c, n, "input_batch_dimension", 0);
    cd->ifeat = int_opt(c, n, "input_feature_dimension", 0);
    cd->kif = int_opt(c, n, "kernel_input_feature_dimension", 0);
    cd->kof = int_opt(c, n, "kernel_output_feature_dimension", 0);
    cd->ob = int_opt(c, n, "output_batch_dimension", 0);
    cd->of = int_opt(c, n, "output_feature_dimension", 0);
    cd->fgc = int_opt(c, n, "feature_group_count", 0);
    cd->bgc = int_opt(c, n, "batch_group_count", 0);
    cd->fgc = cd->fgc == 0 ? 1 : cd->fgc;
    cd->bgc = cd->bgc == 0 ? 1 : cd->bgc;
    return true;
}

/* True when the r indices {a, b, v[0..r-2)} are a permutation of 0..r-1. */
static bool is_perm(int r, int64_t a, int64_t b, const int64_t *v) {
    bool seen[34] = {false};
    for (int i = 0; i < r; i++) {
        int64_t d = i == 0 ? a : i == 1 ? b : v[i - 2];
        if (d < 0 || d >= r || seen[d]) {
            return false;
        }
        seen[d] = true;
    }
    return true;
}

static bool known_k(fl_sym s, int64_t *k) {
    if (fl_sym_is_known(s)) {
        *k = s.k;
        return true;
    }
    return false;
}

/* The spec's constraints that the shapes can be checked against. */
static bool conv_check(fl_ctx *c, const fl_node *n, const fl_shape *l, const fl_shape *w,
                       const conv_dn *cd) {
    int r = l->rank;
    if (w->rank != r) {
        return warn_false(c, n, "lhs and rhs of a convolution differ in rank");
    }
    if (!is_perm(r, cd->ib, cd->ifeat, cd->is) || !is_perm(r, cd->kif, cd->kof, cd->ks) ||
        !is_perm(r, cd->ob, cd->of, cd->os)) {
        return warn_false(c, n,
                          "the input, kernel or output dimension numbers are not a "
                          "permutation of the operand's dims");
    }
    for (int i = 0; i < cd->ns; i++) {
        if (cd->stride[i] < 1 || cd->ld[i] < 1 || cd->rd[i] < 1) {
            return warn_false(c, n, "window strides and dilations must be >= 1");
        }
    }
    if (cd->fgc < 1 || cd->bgc < 1 || (cd->fgc > 1 && cd->bgc > 1)) {
        return warn_false(c, n,
                          "feature_group_count and batch_group_count must be >= 1, one of "
                          "them 1");
    }
    int64_t cin, ck, kout, batch;
    if (known_k(l->dims[cd->ifeat], &cin) && known_k(w->dims[cd->kif], &ck) &&
        cin != ck * cd->fgc) {
        return warn_false(c, n,
                          "input features differ from the kernel's input features times "
                          "feature_group_count");
    }
    if (known_k(w->dims[cd->kof], &kout) && (kout % cd->fgc || kout % cd->bgc)) {
        return warn_false(c, n, "kernel output features are not divisible by the group counts");
    }
    if (known_k(l->dims[cd->ib], &batch) && batch % cd->bgc) {
        return warn_false(c, n, "the input batch is not divisible by batch_group_count");
    }
    return true;
}

/* Output spatial dim i (the header's rule). */
static fl_status conv_spatial(fl_ctx *c, const fl_node *n, fl_sym d, int64_t k, const conv_dn *cd,
                              int i, fl_sym *out) {
    int64_t lo = cd->pad[2 * i], hi = cd->pad[2 * i + 1], len;
    /* off: the padded, dilated length less the dilated window, beyond d * ld */
    fl_ck win = fl_ck_add(fl_ck_mul(fl_ck_of(k - 1), fl_ck_of(cd->rd[i])), fl_ck_of(1));
    fl_ck off =
        fl_ck_sub(fl_ck_add(fl_ck_sub(fl_ck_of(lo), win), fl_ck_of(hi)), fl_ck_of(cd->ld[i] - 1));
    if (off.ovf || (fl_sym_is_known(d) && !fl__tfl_hlo_window(d.k, cd->ld[i], lo, hi, k, cd->rd[i],
                                                              cd->stride[i], &len))) {
        warn_false(c, n, "the window arithmetic overflows 64-bit integers");
        *out = fl_sym_unknown();
        return FL_OK;
    }
    if (fl_sym_is_known(d)) {
        *out = fl_sym_const(len);
        return FL_OK;
    }
    fl_arith a = {c, n, FL_OK};
    fl_sym p = fl__ar_add(&a, fl__ar_scale(&a, d, cd->ld[i]), fl_sym_const(off.v));
    fl_status st =
        a.st == FL_OK ? fl__op_floordiv(c, n, p, fl_sym_const(cd->stride[i]), out) : a.st;
    return st == FL_OK ? fl__op_add(c, n, *out, fl_sym_const(1), out) : st;
}

static fl_status infer_conv(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *l = fl__tfl_in_shape(n, 0), *w = fl__tfl_in_shape(n, 1);
    conv_dn cd;
    if (l->rank < 0 || w->rank < 0) {
        return FL_ENOTFOUND;
    }
    if (!conv_read(c, n, l->rank, &cd) || !conv_check(c, n, l, w, &cd)) {
        return FL_ENOTFOUND;
    }
    fl_status st = fl__op_floordiv(c, n, l->dims[cd.ib], fl_sym_const(cd.bgc), &dims[cd.ob]);
    dims[cd.of] = w->dims[cd.kof];
    for (int i = 0; i < cd.ns && st == FL_OK; i++) {
        fl_sym k = w->dims[cd.ks[i]];
        if (!fl_sym_is_known(k)) {
            dims[cd.os[i]] = fl_sym_unknown();
            continue;
        }
        st = conv_spatial(c, n, l->dims[cd.is[i]], k.k, &cd, i, &dims[cd.os[i]]);
    }
    *rank = l->rank;
    return st;
}

/* MACs = E(out) * Ck * prod(kernel spatial dims); unknown when the options
 * do not fit the kernel. */
static fl_status cost_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = fl__tfl_in_shape(n, 1);
    int64_t kif = int_opt(c, n, "kernel_input_feature_dimension", -1);
    const int64_t *ks = NULL;
    size_t nk = 0;
    if (fl__attr_get_ints(n, "kernel_spatial_dimensions", &ks, &nk, c->d) != FL_OK) {
        nk = 0;
    }
    fl_sym macs = fl_sym_unknown();
    if (w->rank >= 0 && kif >= 0 && kif < w->rank && (int)nk + 2 == w->rank) {
        macs = fl__ar_mul(&k, fl__ar_numel(&k, &n->outputs[0].shape), w->dims[kif]);
        for (size_t i = 0; i < nk; i++) {
            macs = ks[i] >= 0 && ks[i] < w->rank ? fl__ar_mul(&k, macs, w->dims[ks[i]])
                                                 : fl_sym_unknown();
        }
    }
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, macs, 2), macs);
}

/* ------------------------------------------------------------------------- */
/* GATHER                                                                     */
/* ------------------------------------------------------------------------- */

typedef struct gather_dn {
    const int64_t *off, *col, *sim, *sz;
    size_t noff, ncol, nsim, nsz;
    int64_t ivd;
} gather_dn;

static bool is_collapsed(const gather_dn *g, int64_t d) {
    for (size_t i = 0; i < g->ncol; i++) {
        if (g->col[i] == d) {
            return true;
        }
    }
    return false;
}

/* Operand-side checks: slice_sizes, collapsed dims, start_index_map. */
static bool gather_operand(fl_ctx *c, const fl_node *n, const fl_shape *x, const gather_dn *g) {
    bool collapsed[32] = {false};
    for (size_t i = 0; i < g->ncol; i++) {
        if (!fl__tfl_hlo_dim_ok(c, n, "collapsed_slice_dims", g->col[i], x->rank)) {
            return false;
        }
        if (collapsed[g->col[i]] || g->sz[g->col[i]] > 1) {
            return warn_false(c, n, "a collapsed slice dim repeats or has a slice size over 1");
        }
        collapsed[g->col[i]] = true;
    }
    for (int i = 0; i < x->rank; i++) {
        int64_t d;
        if (g->sz[i] < 0 || (known_k(x->dims[i], &d) && g->sz[i] > d)) {
            return warn_false(c, n, "a slice size is negative or over the operand's dim");
        }
    }
    if (g->noff + g->ncol != (size_t)x->rank) {
        return warn_false(c, n, "offset_dims and collapsed_slice_dims do not cover the operand");
    }
    for (size_t i = 0; i < g->nsim; i++) {
        if (!fl__tfl_hlo_dim_ok(c, n, "start_index_map", g->sim[i], x->rank)) {
            return false;
        }
    }
    return true;
}

static fl_status infer_gather(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0), *idx = fl__tfl_in_shape(n, 1);
    gather_dn g;
    if (x->rank < 0 || idx->rank < 0 || x->rank > 32 || idx->rank > 32) {
        return FL_ENOTFOUND;
    }
    g.ivd = int_opt(c, n, "index_vector_dim", 0);
    if (!fl__tfl_hlo_ints(c, n, "offset_dims", -1, &g.off, &g.noff) ||
        !fl__tfl_hlo_ints(c, n, "collapsed_slice_dims", -1, &g.col, &g.ncol) ||
        !fl__tfl_hlo_ints(c, n, "start_index_map", -1, &g.sim, &g.nsim) ||
        !fl__tfl_hlo_ints(c, n, "slice_sizes", x->rank, &g.sz, &g.nsz) ||
        !gather_operand(c, n, x, &g)) {
        return FL_ENOTFOUND;
    }
    if (g.ivd < 0 || g.ivd > idx->rank) {
        warn_false(c, n, "index_vector_dim is outside start_indices' rank");
        return FL_ENOTFOUND;
    }
    int64_t iv = 1;
    if (g.ivd < idx->rank && !known_k(idx->dims[g.ivd], &iv)) {
        iv = (int64_t)g.nsim;
    }
    if (iv != (int64_t)g.nsim) {
        warn_false(c, n, "start_index_map is not as long as the index vector");
        return FL_ENOTFOUND;
    }
    int batch = idx->rank - (g.ivd < idx->rank), r = batch + (int)g.noff;
    bool is_off[64] = {false};
    for (size_t i = 0; i < g.noff; i++) {
        if (g.off[i] < 0 || g.off[i] >= r || (i > 0 && g.off[i] <= g.off[i - 1])) {
            warn_false(c, n, "offset_dims are not increasing dims of the result");
            return FL_ENOTFOUND;
        }
        is_off[g.off[i]] = true;
    }
    int bi = 0, oi = 0;
    for (int d = 0; d < r; d++) {
        if (is_off[d]) {
            while (is_collapsed(&g, oi)) {
                oi++;
            }
            dims[d] = fl_sym_const(g.sz[oi++]);
        } else {
            bi += bi == g.ivd;
            dims[d] = idx->dims[bi++];
        }
    }
    *rank = r;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* SCATTER, SORT                                                              */
/* ------------------------------------------------------------------------- */

/* SCATTER's N (inputs 2N + 1, N results); 0 after a warning otherwise. */
static int scatter_n(fl_ctx *c, const fl_node *n) {
    int k = (n->n_inputs - 1) / 2;
    if (n->n_inputs < 3 || n->n_inputs % 2 == 0 || n->n_outputs != k) {
        warn_false(c, n, "a scatter takes N inputs, the indices and N updates for N results");
        return 0;
    }
    return k;
}

/* The rank the updates must have (the header's check). */
static bool scatter_check(fl_ctx *c, const fl_node *n, int k) {
    const fl_shape *idx = fl__tfl_in_shape(n, k), *upd = fl__tfl_in_shape(n, k + 1);
    const int64_t *uwd;
    size_t nu;
    if (!fl__tfl_hlo_ints(c, n, "update_window_dims", -1, &uwd, &nu)) {
        return false;
    }
    int64_t ivd = int_opt(c, n, "index_vector_dim", 0);
    if (idx->rank < 0 || upd->rank < 0) {
        return true;
    }
    int want = (int)nu + idx->rank - (ivd < idx->rank);
    if (upd->rank != want) {
        fl__node_warn(c->d, n,
                      "tensor '%s': updates have rank %d, update_window_dims and the indices "
                      "make it %d",
                      n->name, upd->rank, want);
    }
    return true;
}

/* Results that are their inputs' shapes (SCATTER: the first N inputs). */
static fl_status infer_same(fl_ctx *c, fl_node *n) {
    int k = n->n_outputs;
    if (n->kind == FL_OP_TFL_STABLEHLO_SCATTER) {
        k = scatter_n(c, n);
        if (k > 0) {
            scatter_check(c, n, k);
        }
    } else {
        const fl_shape *x = fl__tfl_in_shape(n, 0);
        int64_t d = int_opt(c, n, "dimension", 0);
        for (int i = 1; i < n->n_inputs && x->rank >= 0; i++) {
            if (fl__tfl_in_shape(n, i)->rank != x->rank) {
                k = 0;
                warn_false(c, n, "the inputs of a sort differ in rank");
            }
        }
        if (k && x->rank >= 0 &&
            !fl__tfl_hlo_dim_ok(c, n, "dimension", d < 0 ? d + x->rank : d, x->rank)) {
            k = 0;
        }
        if (n->n_inputs != n->n_outputs) {
            k = 0;
            warn_false(c, n, "a sort has as many results as inputs");
        }
    }
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
        const fl_shape *s = fl__tfl_in_shape(n, p);
        st = k > 0 && s->rank >= 0 && s->rank <= 64
                 ? fl__op_set_output(c, n, p, fl__tfl_in_dtype(n, p), s->rank, s->dims)
                 : fl__tfl_from_stored(c, n, p);
    }
    return st;
}

/* SORT's comparisons (the header's count): E(input 0) x ceil(log2 n). */
static fl_sym sort_comparisons(fl_arith *k, const fl_node *n) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    int64_t d = 0;
    if (fl__attr_get_int(n, "dimension", &d, k->c->d) != FL_OK || x->rank < 1) {
        return fl_sym_unknown();
    }
    d = d < 0 ? d + x->rank : d;
    if (d < 0 || d >= x->rank) {
        return fl_sym_unknown();
    }
    fl_sym lg;
    fl_status st = fl__sym_clog2(k->c->st, x->dims[d], &lg);
    if (st != FL_OK && k->st == FL_OK) {
        k->st = fl__diag_oom(k->c->d); /* its only failure */
    }
    return fl__ar_mul(k, fl__ar_numel(k, x), lg);
}

/* SCATTER and SORT: the body (update computation, comparator) once per
 * application; without one, 1 FLOP per application (and operand). */
static fl_status cost_applied(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym apps;
    int64_t each = 1;
    if (n->kind == FL_OP_TFL_STABLEHLO_SCATTER) {
        int nk = (n->n_inputs - 1) / 2;
        apps = n->n_inputs >= 3 ? fl__ar_numel(&k, fl__tfl_in_shape(n, nk + 1)) : fl_sym_unknown();
        each = nk;
    } else {
        apps = sort_comparisons(&k, n);
    }
    fl_cost one;
    if (fl__tfl_hlo_body(c, n, &one)) {
        return fl__ar_put_int_cost(&k, out, fl__ar_mul(&k, apps, one.flops),
                                   fl__ar_mul(&k, apps, one.macs),
                                   fl__ar_mul(&k, apps, one.int_ops));
    }
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, apps, each), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* BROADCAST_IN_DIM, IOTA                                                     */
/* ------------------------------------------------------------------------- */

/* Checks the stored result against the operand and broadcast_dimensions;
 * fills result dims the file leaves unknown. */
static bool broadcast_check(fl_ctx *c, const fl_node *n, const fl_shape *x, fl_sym *dims,
                            int rank) {
    const int64_t *bd;
    size_t nb;
    if (!fl__tfl_hlo_ints(c, n, "broadcast_dimensions", x->rank, &bd, &nb)) {
        return false;
    }
    bool used[64] = {false};
    for (int i = 0; i < x->rank; i++) {
        if (!fl__tfl_hlo_dim_ok(c, n, "broadcast_dimensions", bd[i], rank)) {
            return false;
        }
        if (used[bd[i]]) {
            return warn_false(c, n, "broadcast_dimensions repeat a result dim");
        }
        used[bd[i]] = true;
        fl_sym od = x->dims[i], *rd = &dims[bd[i]];
        if (fl_sym_is_unknown(od) || (fl_sym_is_known(od) && od.k == 1)) {
            continue;
        }
        if (fl_sym_is_unknown(*rd)) {
            *rd = od;
        } else if (fl_sym_is_known(od) && fl_sym_is_known(*rd) && od.k != rd->k) {
            fl__node_warn(c->d, n,
                          "tensor '%s': operand dim %d is %lld, neither 1 nor the result dim "
                          "%lld it maps to (broadcast_dimensions[%d] = %lld); the file's shape "
                          "is used",
                          n->name, i, (long long)od.k, (long long)rd->k, i, (long long)bd[i]);
            return false;
        }
    }
    return true;
}

/* The stored result, checked (the header's rule). */
static fl_status infer_stored_checked(fl_ctx *c, fl_node *n) {
    fl_status st = fl__tfl_from_stored(c, n, 0);
    fl_tensor *t = &n->outputs[0];
    if (st != FL_OK || t->shape.rank < 0 || t->shape.rank > 64) {
        return st;
    }
    if (n->kind == FL_OP_TFL_STABLEHLO_IOTA) {
        int64_t d = int_opt(c, n, "iota_dimension", 0);
        fl__tfl_hlo_dim_ok(c, n, "iota_dimension", d, t->shape.rank);
        return FL_OK;
    }
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    fl_sym dims[64];
    int rank = t->shape.rank;
    memcpy(dims, t->shape.dims, (size_t)rank * sizeof *dims);
    if (x->rank < 0 || x->rank > 64 || !broadcast_check(c, n, x, dims, rank)) {
        return FL_OK;
    }
    int dt = t->dtype != FL_DT_INVALID ? (int)t->dtype : fl__tfl_in_dtype(n, 0);
    return fl__op_set_output(c, n, 0, dt, rank, dims);
}

/* ------------------------------------------------------------------------- */
/* Hooks                                                                      */
/* ------------------------------------------------------------------------- */

/* CUSTOM_CALL: the stored shapes, and the warning naming the target. */
static fl_status infer_custom_call(fl_ctx *c, fl_node *n) {
    fl_str target = {"", 0};
    const fl_attr *a = fl__node_attr(n, "call_target_name");
    if (a && a->kind == FL_ATTR_S) {
        target = a->v.s;
    }
    fl__node_warn(c->d, n,
                  "STABLEHLO_CUSTOM_CALL '%s' calls target '%.*s', whose work the file does not "
                  "describe: it has no FLOP rule and counts 0 FLOPs (its bytes are counted), so "
                  "the totals leave it out",
                  n->name, (int)(target.len > 200 ? 200 : target.len), target.p);
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return st;
}

/* RNG_BIT_GENERATOR: output_state as initial_state, output stored. */
static fl_status infer_rng(fl_ctx *c, fl_node *n) {
    const fl_shape *s = fl__tfl_in_shape(n, 0);
    fl_status st = n->n_inputs < 1 || n->n_outputs < 1 || s->rank < 0
                       ? fl__tfl_from_stored(c, n, 0)
                       : fl__op_set_output(c, n, 0, fl__tfl_in_dtype(n, 0), s->rank, s->dims);
    for (int p = 1; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return fl__tfl_check_all(c, n, st);
}

fl_status fl__tfl_infer_hlo_general(fl_ctx *c, fl_node *n) {
    fl_status st;
    switch (n->kind) {
    case FL_OP_TFL_STABLEHLO_CUSTOM_CALL:
        return infer_custom_call(c, n);
    case FL_OP_TFL_STABLEHLO_RNG_BIT_GENERATOR:
        return infer_rng(c, n);
    case FL_OP_TFL_STABLEHLO_SCATTER:
    case FL_OP_TFL_STABLEHLO_SORT:
        st = infer_same(c, n);
        break;
    case FL_OP_TFL_STABLEHLO_BROADCAST_IN_DIM:
    case FL_OP_TFL_STABLEHLO_IOTA:
        st = infer_stored_checked(c, n);
        break;
    default: { /* CONVOLUTION, GATHER */
        fl_sym dims[64];
        int rank = -1;
        st = n->kind == FL_OP_TFL_STABLEHLO_CONVOLUTION ? infer_conv(c, n, dims, &rank)
                                                        : infer_gather(c, n, dims, &rank);
        if (st == FL_ENOTFOUND) {
            st = fl__tfl_from_stored(c, n, 0);
        } else if (st == FL_OK) {
            st = fl__op_set_output(c, n, 0, fl__tfl_in_dtype(n, 0), rank, dims);
        }
        for (int p = 1; p < n->n_outputs && st == FL_OK; p++) {
            st = fl__tfl_from_stored(c, n, p);
        }
        break;
    }
    }
    return fl__tfl_check_all(c, n, st);
}

fl_status fl__tfl_cost_hlo_general(fl_ctx *c, const fl_node *n, fl_cost *out) {
    switch (n->kind) {
    case FL_OP_TFL_STABLEHLO_CUSTOM_CALL:
    case FL_OP_TFL_STABLEHLO_RNG_BIT_GENERATOR:
        return FL_OK; /* no FLOP rule: out stays 0 without has_rule */
    case FL_OP_TFL_STABLEHLO_CONVOLUTION:
        return cost_conv(c, n, out);
    case FL_OP_TFL_STABLEHLO_SCATTER:
    case FL_OP_TFL_STABLEHLO_SORT:
        return cost_applied(c, n, out);
    default: { /* GATHER, BROADCAST_IN_DIM, IOTA: data movement */
        fl_arith k = {c, n, FL_OK};
        return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
    }
    }
}
