/*
 * tensor.c - ai.onnx data-movement and indexing ops beyond onnx.c: Trilu,
 * GatherElements, GatherND, ScatterElements, Scatter, ScatterND, OneHot,
 * DepthToSpace, SpaceToDepth, Compress, NonZero, EyeLike, ReverseSequence,
 * Einsum.
 *
 * Shapes: GatherElements has its indices' shape; GatherND indices.shape[:-1]
 * + data.shape[batch_dims + indices.shape[-1]:]; the Scatter ops, Trilu,
 * ReverseSequence and EyeLike keep their data's shape (EyeLike's dtype: attr
 * dtype, else the input's); OneHot inserts depth (input 1's value) at attr
 * axis, in the dtype of its values; DepthToSpace [N, C/b^2, H*b, W*b],
 * SpaceToDepth [N, C*b^2, H/b, W/b]. Data-dependent sizes - Compress's
 * count of true conditions, NonZero's count of non-zero elements - are
 * exact when the deciding input's value is known, else unknown (never
 * guessed). Einsum: the equation's output labels (explicit after "->", else
 * ellipsis dims then the labels that occur once, in alphabetical order),
 * ellipsis dims broadcast across operands.
 *
 * Evaluation: NonZero (indices of the non-zero elements of a known value).
 *
 * FLOP rules ("complete" convention, E(t) = element count):
 *   Trilu, GatherElements, GatherND, OneHot, DepthToSpace, SpaceToDepth,
 *   Compress, NonZero, EyeLike, ReverseSequence, Scatter*  0 (data movement;
 *                        with a rule), except
 *   ScatterElements/ScatterND with reduction add/mul/max/min  E(updates)
 *   Einsum (two or more operands)  MACs = P * (operands - 1), FLOPs =
 *                        2 * MACs, P = the product of every label's size
 *                        (ellipsis dims included): the naive loop nest's
 *                        multiplies, each with its add (matmul family)
 *   Einsum (one operand)  P (one add per point of the loop nest), no MACs
 */
#include "ops/onnxops/util.h"

#include <string.h>

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
}

static fl_status infer_gather_elements(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *ix = &fl_node_in(n, 1)->shape;
    int64_t a;
    fl_status st = fl__attr_int_or(n, "axis", 0, &a, c->d);
    if (st != FL_OK) {
        return st;
    }
    int ax;
    if (x->rank >= 0 && (st = fl__ox_norm_axis(c, n, a, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    if (x->rank >= 0 && ix->rank >= 0 && x->rank != ix->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "indices have rank %d, data rank %d", ix->rank,
                             x->rank);
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), ix->rank, ix->dims);
}

/* Scatter*(data, indices, updates): data's shape; reduction checked. */
static fl_status infer_scatter(fl_ctx *c, fl_node *n) {
    static const char *const reductions[] = {"none", "add", "mul", "max", "min", NULL};
    int red;
    fl_status st = fl__ox_attr_pick(c, n, "reduction", "none", reductions, &red);
    if (st != FL_OK) {
        return st;
    }
    if (n->kind != FL_OP_ONNX_SCATTER_ND) {
        int64_t a;
        int ax;
        const fl_shape *x = &fl_node_in(n, 0)->shape;
        st = fl__attr_int_or(n, "axis", 0, &a, c->d);
        if (st == FL_OK && x->rank >= 0) {
            st = fl__ox_norm_axis(c, n, a, x->rank, "attr 'axis'", &ax);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__ox_infer_same(c, n);
}

static fl_status cost_scatter(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const char *red = "none";
    if (fl__attr_str_or(n, "reduction", "none", &red, c->d) != FL_OK || !strcmp(red, "none")) {
        return cost_zero(c, n, out);
    }
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl__ar_numel(&k, &fl_node_in(n, 2)->shape), fl_sym_const(0));
}

static fl_status infer_gather_nd(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *ix = &fl_node_in(n, 1)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int64_t b;
    fl_status st = fl__attr_int_or(n, "batch_dims", 0, &b, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0 || ix->rank < 1 || !fl_sym_is_known(ix->dims[ix->rank - 1])) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int64_t last = ix->dims[ix->rank - 1].k;
    if (b < 0 || b >= ix->rank || b >= x->rank || last < 1 || b + last > x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'batch_dims' %lld with indices' last dim %lld does not fit "
                             "data of rank %d",
                             (long long)b, (long long)last, x->rank);
    }
    fl_sym dims[512];
    int r = 0;
    for (int i = 0; i < ix->rank - 1; i++) {
        dims[r++] = ix->dims[i];
    }
    for (int i = (int)(b + last); i < x->rank; i++) {
        dims[r++] = x->dims[i];
    }
    return fl__op_set_output(c, n, 0, dt, r, dims);
}

static fl_status infer_one_hot(fl_ctx *c, fl_node *n) {
    const fl_shape *ix = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 2);
    int64_t a;
    fl_status st = fl__attr_int_or(n, "axis", -1, &a, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (ix->rank < 0 || ix->rank > 253) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int ax;
    if ((st = fl__ox_norm_axis(c, n, a, ix->rank + 1, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    fl_sym depth = fl_sym_unknown();
    const fl_value *dv = fl_op_in_value(n, 1);
    double d;
    if (dv && dv->n == 1 && fl__value_f64(dv, 0, &d)) {
        if (!(d >= 1) || d > 1e15) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'depth' is %g, must be positive", d);
        }
        depth = fl_sym_const((int64_t)d);
    }
    fl_sym dims[256];
    for (int i = 0, j = 0; i <= ix->rank; i++) {
        dims[i] = i == ax ? depth : ix->dims[j++];
    }
    return fl__op_set_output(c, n, 0, dt, ix->rank + 1, dims);
}

/* DepthToSpace / SpaceToDepth on NCHW. */
static fl_status infer_d2s(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int64_t b;
    fl_status st = fl__attr_need_int(n, "blocksize", &b, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (b < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'blocksize' is %lld, must be >= 1",
                             (long long)b);
    }
    int64_t bb;
    if ((st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(b), fl_ck_of(b)), &bb,
                        "attr 'blocksize' is %lld: blocksize * blocksize", (long long)b)) !=
        FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, 4, NULL);
    }
    if (x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input has rank %d, needs 4 (NCHW)", x->rank);
    }
    fl_sym d[4] = {x->dims[0]};
    bool d2s = n->kind == FL_OP_ONNX_DEPTH_TO_SPACE;
    fl_sym cdim = x->dims[1];
    if (fl_sym_is_known(cdim) && d2s && cdim.k % bb) {
        return fl__node_fail(c->d, FL_EINVAL, n, "channels %lld are not a multiple of %lld",
                             (long long)cdim.k, (long long)bb);
    }
    for (int i = 2; i < 4 && !d2s; i++) {
        if (fl_sym_is_known(x->dims[i]) && x->dims[i].k % b) {
            return fl__node_fail(c->d, FL_EINVAL, n, "dim %d (%lld) is not a multiple of %lld", i,
                                 (long long)x->dims[i].k, (long long)b);
        }
    }
    st = d2s ? fl__op_floordiv(c, n, cdim, fl_sym_const(bb), &d[1])
             : fl__op_scale(c, n, cdim, bb, &d[1]);
    for (int i = 2; i < 4 && st == FL_OK; i++) {
        st = d2s ? fl__op_scale(c, n, x->dims[i], b, &d[i])
                 : fl__op_floordiv(c, n, x->dims[i], fl_sym_const(b), &d[i]);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, 4, d) : st;
}

/* Compress(input, condition): the count of true conditions when known. */
static fl_status infer_compress(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int64_t a;
    bool has_axis = fl__node_attr(n, "axis") != NULL;
    fl_status st = fl__attr_int_or(n, "axis", 0, &a, c->d);
    if (st != FL_OK) {
        return st;
    }
    int ax = 0;
    if (has_axis && x->rank >= 0 &&
        (st = fl__ox_norm_axis(c, n, a, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    fl_sym len = has_axis ? (x->rank >= 0 ? x->dims[ax] : fl_sym_unknown()) : fl_sym_unknown();
    if (!has_axis) {
        fl__op_num_elements(c, n, x, &len);
    }
    fl_sym cnt = fl_sym_unknown();
    const fl_value *cv = fl_op_in_value(n, 1);
    if (cv && cv->ints && fl__value_is_concrete(cv) && fl_sym_is_known(len)) {
        int64_t k = 0;
        for (int64_t i = 0; i < cv->n && i < len.k; i++) {
            k += cv->ints[i].k != 0;
        }
        cnt = fl_sym_const(k);
    }
    if (!has_axis) {
        return fl__op_set_output(c, n, 0, dt, 1, &cnt);
    }
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym dims[256];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(fl_sym));
    dims[ax] = cnt;
    return fl__op_set_output(c, n, 0, dt, x->rank, dims);
}

/* NonZero(X) -> int64 [rank(X), count]. */
static fl_status infer_nonzero(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_sym d[2] = {fl_sym_const(x->shape.rank), fl_sym_unknown()};
    if (x->shape.rank < 0) {
        d[0] = fl_sym_unknown();
    }
    const fl_value *v = x->value;
    if (v && fl__value_is_concrete(v)) {
        int64_t k = 0;
        for (int64_t i = 0; i < v->n; i++) {
            double e = 0;
            k += fl__value_f64(v, i, &e) && e != 0;
        }
        d[1] = fl_sym_const(k);
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT64, 2, d);
}

static fl_status eval_nonzero(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    if (!x || !fl__value_is_concrete(x)) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
    }
    int64_t cnt = v->dims[1], j = 0;
    for (int64_t i = 0; i < x->n && j < cnt; i++) {
        double e = 0;
        if (!fl__value_f64(x, i, &e) || e == 0) {
            continue;
        }
        int64_t rem = i;
        for (int d = x->rank - 1; d >= 0; d--) {
            ((fl_sym *)v->ints)[d * cnt + j] = fl_sym_const(rem % x->dims[d]);
            rem /= x->dims[d];
        }
        j++;
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_eye_like(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int64_t t;
    fl_status st = fl__attr_int_or(n, "dtype", 0, &t, c->d);
    if (st != FL_OK) {
        return st;
    }
    int dt = t ? (int)fl__onnx_dtype((int32_t)t) : (int)fl_dtype_base(x->dtype);
    if (dt == FL_DT_INVALID && t) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'dtype' holds unsupported data type %lld",
                             (long long)t);
    }
    if (x->shape.rank >= 0 && x->shape.rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input has rank %d, EyeLike needs 2",
                             x->shape.rank);
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* ------------------------------------------------------------------------- */
/* Einsum                                                                     */
/* ------------------------------------------------------------------------- */

typedef struct einsum {
    fl_sym label[52]; /* a-z, A-Z */
    bool seen[52];
    int count[52];
    fl_shape ell; /* broadcast of the operands' ellipsis dims */
    bool has_ell;
    fl_sym out[256];
    int out_rank;
} einsum;

static int label_idx(char ch) {
    return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch >= 'A' && ch <= 'Z' ? 26 + ch - 'A' : -1;
}

/* One operand's term [t, e): binds its labels to the input's dims. */
static fl_status einsum_term(fl_ctx *c, const fl_node *n, einsum *es, const char *t, const char *e,
                             const fl_shape *s) {
    int letters = 0;
    bool ell = false;
    for (const char *p = t; p < e; p++) {
        if (*p == '.') {
            if (e - p < 3 || p[1] != '.' || p[2] != '.' || ell) {
                return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': malformed ellipsis");
            }
            ell = true;
            p += 2;
        } else if (label_idx(*p) >= 0) {
            letters++;
        } else if (*p != ' ') {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': bad character '%c'", *p);
        }
    }
    if (s->rank < 0) {
        return FL_ENOTFOUND;
    }
    int n_ell = s->rank - letters;
    if (n_ell < 0 || (!ell && n_ell)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'equation': term '%.*s' has %d labels for an input of rank %d",
                             (int)(e - t), t, letters, s->rank);
    }
    int d = 0;
    fl_status st = FL_OK;
    for (const char *p = t; p < e && st == FL_OK; p++) {
        int li = label_idx(*p);
        if (*p == '.') {
            fl_shape part = {n_ell, s->dims + d};
            st = es->has_ell ? fl__op_broadcast(c, n, &es->ell, &part, &es->ell) : FL_OK;
            if (!es->has_ell) {
                es->ell = part;
                es->has_ell = true;
            }
            d += n_ell;
            p += 2;
        } else if (li >= 0) {
            st = es->seen[li] ? fl__op_merge_dim(c, n, es->label[li], s->dims[d], "an einsum label",
                                                 &es->label[li])
                              : FL_OK;
            if (!es->seen[li]) {
                es->label[li] = s->dims[d];
            }
            es->seen[li] = true;
            es->count[li]++;
            d++;
        }
    }
    return st;
}

static fl_status einsum_parse(fl_ctx *c, const fl_node *n, einsum *es) {
    const char *eq;
    fl_status st = fl__attr_need_str(n, "equation", &eq, c->d);
    if (st != FL_OK) {
        return st;
    }
    memset(es, 0, sizeof *es);
    const char *arrow = strstr(eq, "->");
    const char *lhs_end = arrow ? arrow : eq + strlen(eq);
    const char *t = eq;
    int op = 0;
    bool unknown = false;
    while (st == FL_OK || st == FL_ENOTFOUND) {
        const char *e = memchr(t, ',', (size_t)(lhs_end - t));
        e = e ? e : lhs_end;
        if (op >= n->n_inputs) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation' has more terms than inputs");
        }
        st = einsum_term(c, n, es, t, e, &fl_node_in(n, op)->shape);
        unknown |= st == FL_ENOTFOUND;
        op++;
        if (e == lhs_end) {
            break;
        }
        t = e + 1;
    }
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    if (op != n->n_inputs) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation' has %d terms for %d inputs", op,
                             n->n_inputs);
    }
    if (unknown) {
        return FL_ENOTFOUND;
    }
    es->out_rank = 0;
    if (!arrow) {
        for (int i = 0; es->has_ell && i < es->ell.rank && i < 200; i++) {
            es->out[es->out_rank++] = es->ell.dims[i];
        }
        for (int li = 0; li < 52; li++) { /* alphabetical, upper case first as in ASCII */
            int l = li < 26 ? 26 + li : li - 26;
            if (es->count[l] == 1 && es->out_rank < 250) {
                es->out[es->out_rank++] = es->label[l];
            }
        }
        return FL_OK;
    }
    for (const char *p = arrow + 2; *p; p++) {
        int li = label_idx(*p);
        if (*p == '.' && p[1] == '.' && p[2] == '.') {
            for (int i = 0; es->has_ell && i < es->ell.rank && es->out_rank < 250; i++) {
                es->out[es->out_rank++] = es->ell.dims[i];
            }
            p += 2;
        } else if (li >= 0) {
            if (!es->seen[li]) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'equation': output label '%c' is on no input", *p);
            }
            es->out[es->out_rank++] = es->label[li];
        } else if (*p != ' ') {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': bad character '%c'", *p);
        }
        if (es->out_rank > 250) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': output rank too large");
        }
    }
    return FL_OK;
}

static fl_status infer_einsum(fl_ctx *c, fl_node *n) {
    einsum es;
    fl_status st = einsum_parse(c, n, &es);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), es.out_rank, es.out)
                       : st;
}

static fl_status cost_einsum(fl_ctx *c, const fl_node *n, fl_cost *out) {
    einsum es;
    fl_arith k = {c, n, FL_OK};
    fl_sym p = fl_sym_unknown();
    if (einsum_parse(c, n, &es) == FL_OK) {
        p = fl_sym_const(1);
        for (int l = 0; l < 52; l++) {
            p = es.seen[l] ? fl__ar_mul(&k, p, es.label[l]) : p;
        }
        p = es.has_ell ? fl__ar_mul(&k, p, fl__ar_numel(&k, &es.ell)) : p;
    }
    if (n->n_inputs < 2) {
        return fl__ar_put_cost(&k, out, p, fl_sym_const(0));
    }
    fl_sym macs = fl__ar_scale(&k, p, n->n_inputs - 1);
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, macs, 2), macs);
}

/* Hook sets and descriptors (their rows: onnxops/tensor.def) */

#define HOOKS_trilu           .infer = fl__ox_infer_same, .cost = cost_zero
#define HOOKS_gather_elements .infer = infer_gather_elements, .cost = cost_zero
#define HOOKS_gather_nd       .infer = infer_gather_nd, .cost = cost_zero
#define HOOKS_scatter         .infer = infer_scatter, .cost = cost_scatter
#define HOOKS_one_hot         .infer = infer_one_hot, .cost = cost_zero
#define HOOKS_d2s             .infer = infer_d2s, .cost = cost_zero
#define HOOKS_compress        .infer = infer_compress, .cost = cost_zero
#define HOOKS_non_zero        .infer = infer_nonzero, .eval = eval_nonzero, .cost = cost_zero
#define HOOKS_eye_like        .infer = infer_eye_like, .cost = cost_zero
#define HOOKS_einsum          .infer = infer_einsum, .cost = cost_einsum

#define FL_OP FL_OP_DESC
#include "ops/onnxops/tensor.def"
#undef FL_OP
