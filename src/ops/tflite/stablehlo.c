/*
 * tflite/stablehlo.c - StableHLO operators of TFLite (STABLEHLO_*) whose
 * result shape follows from their operands and options, as the StableHLO
 * specification defines them:
 *  - DOT_GENERAL (lhs, rhs; lhs/rhs_batching_dimensions,
 *    lhs/rhs_contracting_dimensions): the batch dims (lhs order), then lhs's
 *    other dims, then rhs's other dims. MACs = E(out) * prod(lhs contracting
 *    dims); FLOPs 2 * MACs.
 *  - CONCATENATE (operands.., dimension): operand 0's dims, the concatenated
 *    dim summed.
 *  - SLICE (operand; start_indices, limit_indices, strides): dim i =
 *    ceil((limit_i - start_i) / stride_i).
 *  - TRANSPOSE (operand; permutation): dim i = operand dim perm[i].
 *  - PAD (operand, padding_value; edge_padding_low/high, interior_padding):
 *    dim i = low_i + high_i + d_i + (d_i - 1) * interior_i (d_i > 0).
 *  - DYNAMIC_SLICE (operand, start indices..; slice_sizes): slice_sizes.
 *  - DYNAMIC_UPDATE_SLICE (operand, update, start indices..): the operand's.
 *  - REDUCE (operands.., init values..; dimensions): each operand's dims
 *    without the reduced ones; FLOPs E(operand) per operand (each element
 *    combined into its accumulator, which starts at the init value).
 *  - REDUCE_WINDOW (operands.., init values..; window_dimensions,
 *    window_strides, base_dilations, window_dilations, padding [rank, 2]):
 *    dim i = floor((P_i - W_i) / stride_i) + 1 (0 when P_i < W_i), P_i =
 *    (d_i - 1) * base_dilation_i + 1 + low_i + high_i, W_i = (w_i - 1) *
 *    window_dilation_i + 1; FLOPs prod(window) * E(out) per output (as a
 *    pool).
 *   The reduction body (body_subgraph_index, a subgraph of its own,
 *   imported beside subgraph 0) is counted once per application and not on
 *   its own (its nodes get _repeat 0, src/import/tflite_loop.c): REDUCE
 *   applies it E(operand 0) times (each element of the operands combined
 *   into the accumulators, which start at the init values: n elements, n
 *   applications, whatever the order the implementation picks), REDUCE_WINDOW
 *   E(out 0) * prod(window) times (one per window position, padding
 *   included); the node's FLOPs, MACs and integer ops are the body's times
 *   that. Without a body (no valid index): the rules above, one FLOP per
 *   combined element. Bytes are the node's own operands and results only:
 *   a body combines scalars the kernel keeps in registers.
 * The data-movement ops count 0 FLOPs (bytes are the cost model's). Options
 * that do not fit the operands' ranks (a permutation or index list of the
 * wrong length, a dim out of range, a stride < 1) give a warning naming the
 * tensor, and the file's shape is used. Every result is checked against the
 * stored shapes (fl__tfl_check_all).
 */
#include "ops/tflite/tfl.h"

#include <string.h>

/* Option `name` as an int64 list of exactly `want` entries (want < 0: any);
 * false (after a warning naming the tensor) otherwise. */
static bool ints_opt(fl_ctx *c, const fl_node *n, const char *name, int want, const int64_t **v,
                     size_t *cnt) {
    *cnt = 0;
    if (fl__attr_get_ints(n, name, v, cnt, c->d) != FL_OK) {
        *v = NULL;
        *cnt = 0;
        if (want == 0) {
            return true;
        }
    }
    if (want >= 0 && (int64_t)*cnt != want) {
        fl__node_warn(c->d, n,
                      "tensor '%s': option %s has %zu entries for rank %d; the file's shape is "
                      "used",
                      n->name, name, *cnt, want);
        return false;
    }
    return true;
}

/* A dim index list entry checked against rank (warning when out of range). */
static bool dim_ok(fl_ctx *c, const fl_node *n, const char *name, int64_t d, int rank) {
    if (d >= 0 && d < rank) {
        return true;
    }
    fl__node_warn(c->d, n,
                  "tensor '%s': option %s names dim %lld of a rank-%d operand; the file's shape "
                  "is used",
                  n->name, name, (long long)d, rank);
    return false;
}

/* DOT_GENERAL: marks lhs/rhs dims used by batching or contraction. */
static bool dot_dims(fl_ctx *c, const fl_node *n, const fl_shape *l, const fl_shape *r, bool *lused,
                     bool *rused, int *nb) {
    static const char *opts[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                  "lhs_contracting_dimensions", "rhs_contracting_dimensions"};
    const int64_t *v[4];
    size_t cnt[4];
    for (int i = 0; i < 4; i++) {
        if (!ints_opt(c, n, opts[i], -1, &v[i], &cnt[i])) {
            return false;
        }
    }
    if (cnt[0] != cnt[1] || cnt[2] != cnt[3]) {
        fl__node_warn(c->d, n,
                      "tensor '%s': lhs and rhs batching or contracting dimension lists differ "
                      "in length; the file's shape is used",
                      n->name);
        return false;
    }
    for (int i = 0; i < 4; i++) {
        const fl_shape *s = i % 2 ? r : l;
        bool *used = i % 2 ? rused : lused;
        for (size_t j = 0; j < cnt[i]; j++) {
            if (!dim_ok(c, n, opts[i], v[i][j], s->rank)) {
                return false;
            }
            used[v[i][j]] = true;
        }
    }
    *nb = (int)cnt[0];
    return true;
}

static fl_status infer_dot_general(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *l = fl__tfl_in_shape(n, 0), *r = fl__tfl_in_shape(n, 1);
    if (l->rank < 0 || r->rank < 0 || l->rank > 32 || r->rank > 32) {
        return FL_ENOTFOUND;
    }
    bool lused[32] = {false}, rused[32] = {false};
    int nb = 0;
    if (!dot_dims(c, n, l, r, lused, rused, &nb)) {
        return FL_ENOTFOUND;
    }
    const int64_t *lb;
    size_t cnt;
    ints_opt(c, n, "lhs_batching_dimensions", -1, &lb, &cnt);
    int k = 0;
    for (int i = 0; i < nb; i++) {
        dims[k++] = l->dims[lb[i]];
    }
    for (int i = 0; i < l->rank; i++) {
        if (!lused[i]) {
            dims[k++] = l->dims[i];
        }
    }
    for (int i = 0; i < r->rank; i++) {
        if (!rused[i]) {
            dims[k++] = r->dims[i];
        }
    }
    *rank = k;
    return FL_OK;
}

static fl_status infer_concat(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const fl_attr *a = fl__node_attr(n, "dimension");
    int64_t d = a && a->kind == FL_ATTR_I ? a->v.i : -1;
    if (x->rank < 0 || x->rank > 64 || !dim_ok(c, n, "dimension", d, x->rank)) {
        return FL_ENOTFOUND;
    }
    fl_arith k = {c, n, FL_OK};
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int i = 1; i < n->n_inputs; i++) {
        const fl_shape *s = fl__tfl_in_shape(n, i);
        dims[d] = s->rank == x->rank ? fl__ar_add(&k, dims[d], s->dims[d]) : fl_sym_unknown();
    }
    *rank = x->rank;
    return k.st;
}

static fl_status infer_slice(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const int64_t *b, *e, *s;
    size_t nb, ne, ns;
    if (x->rank < 0 || x->rank > 64 || !ints_opt(c, n, "start_indices", x->rank, &b, &nb) ||
        !ints_opt(c, n, "limit_indices", x->rank, &e, &ne) ||
        !ints_opt(c, n, "strides", x->rank, &s, &ns)) {
        return FL_ENOTFOUND;
    }
    for (int i = 0; i < x->rank; i++) {
        if (s[i] < 1 || b[i] < 0 || e[i] < b[i]) {
            fl__node_warn(c->d, n,
                          "tensor '%s': slice [%lld, %lld) step %lld of dim %d is not a valid "
                          "StableHLO slice; the file's shape is used",
                          n->name, (long long)b[i], (long long)e[i], (long long)s[i], i);
            return FL_ENOTFOUND;
        }
        dims[i] = fl_sym_const((e[i] - b[i] + s[i] - 1) / s[i]);
    }
    *rank = x->rank;
    return FL_OK;
}

static fl_status infer_transpose(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const int64_t *p;
    size_t np;
    if (x->rank < 0 || x->rank > 64 || !ints_opt(c, n, "permutation", x->rank, &p, &np)) {
        return FL_ENOTFOUND;
    }
    for (int i = 0; i < x->rank; i++) {
        if (!dim_ok(c, n, "permutation", p[i], x->rank)) {
            return FL_ENOTFOUND;
        }
        dims[i] = x->dims[p[i]];
    }
    *rank = x->rank;
    return FL_OK;
}

static fl_status infer_pad(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const int64_t *lo, *hi, *in;
    size_t nl, nh, ni;
    if (x->rank < 0 || x->rank > 64 || !ints_opt(c, n, "edge_padding_low", x->rank, &lo, &nl) ||
        !ints_opt(c, n, "edge_padding_high", x->rank, &hi, &nh) ||
        !ints_opt(c, n, "interior_padding", x->rank, &in, &ni)) {
        return FL_ENOTFOUND;
    }
    fl_arith k = {c, n, FL_OK};
    for (int i = 0; i < x->rank; i++) {
        fl_sym d = x->dims[i];
        fl_sym grown =
            fl__ar_add(&k, d, fl__ar_scale(&k, fl__ar_add(&k, d, fl_sym_const(-1)), in[i]));
        if (fl_sym_is_known(d) && d.k == 0) {
            grown = fl_sym_const(0);
        }
        dims[i] = fl__ar_add(&k, grown, fl_sym_const(lo[i] + hi[i]));
    }
    *rank = x->rank;
    return k.st;
}

static fl_status infer_dynamic_slice(fl_ctx *c, fl_node *n, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const int64_t *sz;
    size_t ns;
    if (x->rank < 0 || x->rank > 64 || !ints_opt(c, n, "slice_sizes", x->rank, &sz, &ns)) {
        return FL_ENOTFOUND;
    }
    for (int i = 0; i < x->rank; i++) {
        dims[i] = fl_sym_const(sz[i]);
    }
    *rank = x->rank;
    return FL_OK;
}

/* REDUCE: operand `p`'s dims without the reduced ones. */
static fl_status infer_reduce(fl_ctx *c, fl_node *n, int p, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, p);
    const int64_t *red;
    size_t nr;
    if (x->rank < 0 || x->rank > 64 || !ints_opt(c, n, "dimensions", -1, &red, &nr)) {
        return FL_ENOTFOUND;
    }
    bool gone[64] = {false};
    for (size_t i = 0; i < nr; i++) {
        if (!dim_ok(c, n, "dimensions", red[i], x->rank)) {
            return FL_ENOTFOUND;
        }
        gone[red[i]] = true;
    }
    int k = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!gone[i]) {
            dims[k++] = x->dims[i];
        }
    }
    *rank = k;
    return FL_OK;
}

/* An optional per-dim option: `want` entries, or all `dflt` when absent. */
static bool per_dim(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                    int64_t *out) {
    const int64_t *v;
    size_t cnt;
    if (fl__attr_get_ints(n, name, &v, &cnt, c->d) != FL_OK || cnt == 0) {
        for (int i = 0; i < want; i++) {
            out[i] = dflt;
        }
        return true;
    }
    if (!ints_opt(c, n, name, want, &v, &cnt)) {
        return false;
    }
    memcpy(out, v, (size_t)want * sizeof *out);
    return true;
}

bool fl__tfl_hlo_window(int64_t d, int64_t bdil, int64_t lo, int64_t hi, int64_t win, int64_t wdil,
                        int64_t s, int64_t *out) {
    /* p: the dilated, padded input; w: the dilated window */
    fl_ck one = fl_ck_of(1);
    fl_ck p = d > 0 ? fl_ck_add(fl_ck_mul(fl_ck_of(d - 1), fl_ck_of(bdil)), one) : fl_ck_of(0);
    p = fl_ck_add(fl_ck_add(p, fl_ck_of(lo)), fl_ck_of(hi));
    fl_ck w = fl_ck_add(fl_ck_mul(fl_ck_of(win - 1), fl_ck_of(wdil)), one);
    if (p.ovf || w.ovf) {
        return false;
    }
    if (p.v == 0 || p.v < w.v) {
        *out = 0;
        return true;
    }
    fl_ck r = fl_ck_sub(p, w);
    if (r.ovf) {
        return false;
    }
    *out = r.v / s + 1;
    return true;
}

/* REDUCE_WINDOW: operand `p`'s windowed dims (the header's rule). */
static fl_status infer_reduce_window(fl_ctx *c, fl_node *n, int p, fl_sym *dims, int *rank) {
    const fl_shape *x = fl__tfl_in_shape(n, p);
    int r = x->rank;
    int64_t win[32], str[32], bdil[32], wdil[32], pad[64];
    if (r < 0 || r > 32 || !per_dim(c, n, "window_dimensions", r, 1, win) ||
        !per_dim(c, n, "window_strides", r, 1, str) ||
        !per_dim(c, n, "base_dilations", r, 1, bdil) ||
        !per_dim(c, n, "window_dilations", r, 1, wdil) ||
        !per_dim(c, n, "padding", 2 * r, 0, pad)) {
        return FL_ENOTFOUND;
    }
    for (int i = 0; i < r; i++) {
        fl_sym d = x->dims[i];
        if (win[i] < 1 || str[i] < 1 || bdil[i] < 1 || wdil[i] < 1) {
            fl__node_warn(c->d, n,
                          "tensor '%s': window, strides and dilations of dim %d must be >= 1; "
                          "the file's shape is used",
                          n->name, i);
            return FL_ENOTFOUND;
        }
        if (!fl_sym_is_known(d)) {
            dims[i] = fl_sym_unknown();
            continue;
        }
        int64_t len;
        if (!fl__tfl_hlo_window(d.k, bdil[i], pad[2 * i], pad[2 * i + 1], win[i], wdil[i], str[i],
                                &len)) {
            fl__node_warn(c->d, n,
                          "tensor '%s': the window of dim %d overflows 64-bit integers; the "
                          "file's shape is used",
                          n->name, i);
            return FL_ENOTFOUND;
        }
        dims[i] = fl_sym_const(len);
    }
    *rank = r;
    return FL_OK;
}

/* Output `p` of a reduction from its operand. */
static fl_status infer_reduction_out(fl_ctx *c, fl_node *n, int p) {
    fl_sym dims[64];
    int rank = -1;
    fl_status st = n->kind == FL_OP_TFL_STABLEHLO_REDUCE
                       ? infer_reduce(c, n, p, dims, &rank)
                       : infer_reduce_window(c, n, p, dims, &rank);
    if (st == FL_ENOTFOUND) {
        st = FL_OK;
        rank = -1;
    }
    return st == FL_OK ? fl__op_set_output(c, n, p, fl__tfl_in_dtype(n, p), rank, dims) : st;
}

bool fl__tfl_hlo_ints(fl_ctx *c, const fl_node *n, const char *name, int want, const int64_t **v,
                      size_t *cnt) {
    return ints_opt(c, n, name, want, v, cnt);
}

bool fl__tfl_hlo_dim_ok(fl_ctx *c, const fl_node *n, const char *name, int64_t d, int rank) {
    return dim_ok(c, n, name, d, rank);
}

bool fl__tfl_hlo_per_dim(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                         int64_t *out) {
    return per_dim(c, n, name, want, dflt, out);
}

static bool is_general(int kind) {
    return kind == FL_OP_TFL_STABLEHLO_CONVOLUTION || kind == FL_OP_TFL_STABLEHLO_GATHER ||
           kind == FL_OP_TFL_STABLEHLO_SCATTER || kind == FL_OP_TFL_STABLEHLO_SORT ||
           kind == FL_OP_TFL_STABLEHLO_BROADCAST_IN_DIM || kind == FL_OP_TFL_STABLEHLO_IOTA ||
           kind == FL_OP_TFL_STABLEHLO_CUSTOM_CALL || kind == FL_OP_TFL_STABLEHLO_RNG_BIT_GENERATOR;
}

fl_status fl__tfl_infer_hlo(fl_ctx *c, fl_node *n) {
    if (is_general(n->kind)) {
        return fl__tfl_infer_hlo_general(c, n);
    }
    if (n->kind == FL_OP_TFL_STABLEHLO_REDUCE || n->kind == FL_OP_TFL_STABLEHLO_REDUCE_WINDOW) {
        fl_status st = FL_OK;
        for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
            st = infer_reduction_out(c, n, p);
        }
        return fl__tfl_check_all(c, n, st);
    }
    fl_sym dims[64];
    int rank = -1, dt = fl__tfl_in_dtype(n, 0);
    fl_status st;
    switch (n->kind) {
    case FL_OP_TFL_STABLEHLO_DOT_GENERAL:
        st = infer_dot_general(c, n, dims, &rank);
        break;
    case FL_OP_TFL_STABLEHLO_CONCATENATE:
        st = infer_concat(c, n, dims, &rank);
        break;
    case FL_OP_TFL_STABLEHLO_SLICE:
        st = infer_slice(c, n, dims, &rank);
        break;
    case FL_OP_TFL_STABLEHLO_TRANSPOSE:
        st = infer_transpose(c, n, dims, &rank);
        break;
    case FL_OP_TFL_STABLEHLO_PAD:
        st = infer_pad(c, n, dims, &rank);
        break;
    case FL_OP_TFL_STABLEHLO_DYNAMIC_SLICE:
        st = infer_dynamic_slice(c, n, dims, &rank);
        break;
    default: { /* DYNAMIC_UPDATE_SLICE */
        const fl_shape *x = fl__tfl_in_shape(n, 0);
        rank = x->rank > 64 ? -1 : x->rank;
        if (rank > 0) {
            memcpy(dims, x->dims, (size_t)rank * sizeof *dims);
        }
        st = FL_OK;
        break;
    }
    }
    if (st == FL_ENOTFOUND) {
        st = FL_OK;
        rank = -1;
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, rank, dims);
    }
    for (int p = 1; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return fl__tfl_check_all(c, n, st);
}

/* One application of n's body (attr _body_nodes): the sum of its nodes'
 * counts; false when n has no body or a body node is not found. */
static _Thread_local int body_depth;

bool fl__tfl_hlo_body(fl_ctx *c, const fl_node *n, fl_cost *one) {
    const fl_attr *b = fl__node_attr(n, "_body_nodes");
    if (!b || b->kind != FL_ATTR_LIST || b->list_kind != FL_ATTR_S || body_depth >= 8) {
        return false;
    }
    one->flops = one->macs = one->int_ops = fl_sym_const(0);
    fl_arith k = {c, n, FL_OK};
    body_depth++;
    bool ok = true;
    for (size_t i = 0; i < b->n && ok && k.st == FL_OK; i++) {
        const fl_node *m = fl__graph_find(c->g, b->v.list.s[i].p);
        fl_cost mc;
        memset(&mc, 0, sizeof mc);
        mc.flops = mc.macs = mc.int_ops = fl_sym_const(0);
        ok = m != NULL;
        if (ok && m->desc && m->desc->cost) {
            ok = m->desc->cost(c, m, &mc) == FL_OK;
        }
        if (ok) {
            one->flops = fl__ar_add(&k, one->flops, mc.flops);
            one->macs = fl__ar_add(&k, one->macs, mc.macs);
            one->int_ops = fl__ar_add(&k, one->int_ops, mc.int_ops);
        }
    }
    body_depth--;
    return ok && k.st == FL_OK;
}

/* REDUCE / REDUCE_WINDOW: the body once per application (the header's
 * rule), else (no body) one FLOP per combined element. */
static fl_status cost_reduction(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    bool window = n->kind == FL_OP_TFL_STABLEHLO_REDUCE_WINDOW;
    const int64_t *w = NULL;
    size_t nw = 0;
    if (window && fl__attr_get_ints(n, "window_dimensions", &w, &nw, c->d) != FL_OK) {
        nw = 0;
    }
    fl_cost one;
    if (n->n_outputs > 0 && fl__tfl_hlo_body(c, n, &one)) {
        fl_sym apps = window ? fl__ar_numel(&k, &n->outputs[0].shape)
                             : fl__ar_numel(&k, fl__tfl_in_shape(n, 0));
        apps = fl__ar_mul(&k, apps, fl__ar_int_prod(&k, w, nw));
        return fl__ar_put_int_cost(&k, out, fl__ar_mul(&k, apps, one.flops),
                                   fl__ar_mul(&k, apps, one.macs),
                                   fl__ar_mul(&k, apps, one.int_ops));
    }
    fl_sym f = fl_sym_const(0);
    for (int p = 0; p < n->n_outputs; p++) {
        fl_sym e = window ? fl__ar_numel(&k, &n->outputs[p].shape)
                          : fl__ar_numel(&k, fl__tfl_in_shape(n, p));
        for (size_t i = 0; i < nw; i++) {
            e = fl__ar_scale(&k, e, w[i]);
        }
        f = fl__ar_add(&k, f, e);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

fl_status fl__tfl_cost_hlo(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    if (n->kind == FL_OP_TFL_STABLEHLO_REDUCE || n->kind == FL_OP_TFL_STABLEHLO_REDUCE_WINDOW) {
        return cost_reduction(c, n, out);
    }
    if (is_general(n->kind)) {
        return fl__tfl_cost_hlo_general(c, n, out);
    }
    if (n->kind != FL_OP_TFL_STABLEHLO_DOT_GENERAL) {
        return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
    }
    const fl_shape *l = fl__tfl_in_shape(n, 0);
    const int64_t *cd;
    size_t cnt = 0;
    if (fl__attr_get_ints(n, "lhs_contracting_dimensions", &cd, &cnt, c->d) != FL_OK) {
        cnt = 0;
    }
    fl_sym macs = fl__ar_numel(&k, &n->outputs[0].shape);
    for (size_t i = 0; i < cnt; i++) {
        macs =
            cd[i] >= 0 && cd[i] < l->rank ? fl__ar_mul(&k, macs, l->dims[cd[i]]) : fl_sym_unknown();
    }
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, macs, 2), macs);
}
