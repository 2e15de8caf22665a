/*
 * reduce.c - ai.onnx reductions and ops along one axis beyond onnx.c:
 * ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare,
 * ArgMax, ArgMin, CumSum, CumProd, Hardmax, TopK, LpNormalization,
 * MeanVarianceNormalization.
 *
 * Shapes: Reduce* as onnx.c's reductions (axes from input 1 from opset 18,
 * else attr; keepdims; noop_with_empty_axes). ArgMax/ArgMin: attr axis
 * (default 0) reduced to 1 (keepdims 1) or dropped, int64. TopK: Values and
 * Indices (int64) have K (input 1's value) along attr axis (default -1); an
 * unknown K leaves that dim unknown. CumSum, CumProd, Hardmax, LpNormalization,
 * MeanVarianceNormalization keep their input's shape.
 *
 * FLOP rules ("complete" convention, E(t) = element count; no MACs):
 *   ReduceSumSquare      2 * E(in) - E(out)  (a square per element, then the
 *                        sum's adds)
 *   ReduceL1             2 * E(in) - E(out)  (|x|, then the adds)
 *   ReduceL2             2 * E(in)           (squares, adds, a sqrt per output)
 *   ReduceLogSum         E(in)               (adds, a log per output)
 *   ReduceLogSumExp      2 * E(in)           (exp per element, adds, a log per
 *                        output; the max subtraction for stability is not
 *                        counted, as the operator's definition has none)
 *   ArgMax, ArgMin       E(in) - E(out)      (comparisons, as ReduceMax; on an
 *                        integer input they count in int_ops, 0 FLOPs, as
 *                        onnx.h's comparisons of integers)
 *   CumSum, CumProd      E(out)              (one add / multiply per element)
 *   Hardmax              E(in)               (a comparison per element)
 *   TopK                 E(in) * ceil(log2(K)) comparisons (K >= 2; K <= 1:
 *                        E(in)), heap selection; a symbolic K (a value
 *                        computed from shapes, K = n for a row of n) gives
 *                        E(in) * max(1, ceil(log2(K))), exact under a
 *                        binding (the symbols' ceil(log2) atom)
 *   LpNormalization      3 * E(in)           (|x|^p or x^2, the sum's add, the
 *                        divide per element)
 *   MeanVarianceNormalization  7 * E(in)     (mean: add; variance: sub,
 *                        square, add; normalise: sub, divide; sqrt and eps
 *                        per group are not counted); MVN-1
 *                        (experimental, before opset 9) with attr
 *                        normalize_variance 0 only centres: 2 * E(in)
 *                        (mean: add; sub); its attr across_channels moves
 *                        the groups, not the count
 */
#include "ops/onnxops/util.h"

static fl_status cost_reduce_rule(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_numel(&k, &fl_node_in(n, 0)->shape);
    fl_sym eout = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym f;
    switch (n->kind) {
    case FL_OP_ONNX_REDUCE_SUM_SQUARE:
    case FL_OP_ONNX_REDUCE_L1:
        f = fl__ar_reduce_ops(&k, ein, 2, eout);
        break;
    case FL_OP_ONNX_REDUCE_L2:
    case FL_OP_ONNX_REDUCE_LOG_SUM_EXP:
        f = fl__ar_scale(&k, ein, 2);
        break;
    case FL_OP_ONNX_REDUCE_LOG_SUM:
        f = ein;
        break;
    default: /* ArgMax, ArgMin */
        f = fl__ar_reduce_ops(&k, ein, 1, eout);
        if (fl__dtype_is_integer(fl__ox_in_dtype(n, 0))) {
            return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), f);
        }
        break;
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* The attr `name` (default dflt) as an axis of input 0; *rank_known false
 * when input 0's rank is unknown (the axis is then not checked). */
static fl_status attr_axis(fl_ctx *c, const fl_node *n, const char *name, int64_t dflt, int *ax,
                           bool *rank_known) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t a;
    fl_status st = fl__attr_int_or(n, name, dflt, &a, c->d);
    *rank_known = x->rank >= 0;
    if (st != FL_OK || !*rank_known) {
        return st;
    }
    return fl__ox_norm_axis(c, n, a, x->rank, "attr 'axis'", ax);
}

static fl_status infer_arg(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t keep;
    int ax = 0;
    bool known;
    fl_status st = fl__attr_int_or(n, "keepdims", 1, &keep, c->d);
    if (st == FL_OK) {
        st = attr_axis(c, n, "axis", 0, &ax, &known);
    }
    if (st != FL_OK) {
        return st;
    }
    if (!known || x->rank > 254) {
        return fl__op_set_output(c, n, 0, FL_DT_INT64, -1, NULL);
    }
    fl_sym dims[256];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != ax) {
            dims[r++] = x->dims[i];
        } else if (keep) {
            dims[r++] = fl_sym_const(1);
        }
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT64, r, dims);
}

/* Same shape, with attr `axis` (default dflt) checked against the rank. */
static fl_status infer_same_axis(fl_ctx *c, fl_node *n, int64_t dflt) {
    int ax;
    bool known;
    fl_status st = attr_axis(c, n, "axis", dflt, &ax, &known);
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status infer_hardmax(fl_ctx *c, fl_node *n) {
    return infer_same_axis(c, n, -1);
}

static fl_status infer_lp_norm(fl_ctx *c, fl_node *n) {
    int64_t p;
    fl_status st = fl__attr_int_or(n, "p", 2, &p, c->d);
    if (st == FL_OK && p != 1 && p != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'p' is %lld, must be 1 or 2", (long long)p);
    }
    return st == FL_OK ? infer_same_axis(c, n, -1) : st;
}

/* CumSum(x, axis): x's shape; a known axis is checked. */
static fl_status infer_cumsum(fl_ctx *c, fl_node *n) {
    int64_t *axv, na;
    fl_status st = fl__op_in_int_vector(c, n, 1, &axv, &na);
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    if (st == FL_OK && x->rank >= 0) {
        int ax;
        if (na != 1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'axis' has %lld elements, needs 1",
                                 (long long)na);
        }
        st = fl__ox_norm_axis(c, n, axv[0], x->rank, "input 'axis'", &ax);
    }
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    return fl__ox_infer_same(c, n);
}

/* TopK(X, K) -> Values, Indices; K along attr axis. */
static fl_status infer_topk(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int ax = 0;
    bool known;
    fl_status st = attr_axis(c, n, "axis", -1, &ax, &known);
    if (st != FL_OK) {
        return st;
    }
    if (!known || x->rank > 254) {
        st = fl__op_set_output(c, n, 0, dt, -1, NULL);
        return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, -1, NULL) : st;
    }
    fl_sym dims[256];
    for (int i = 0; i < x->rank; i++) {
        dims[i] = x->dims[i];
    }
    dims[ax] = fl_sym_unknown();
    int64_t kk = -1;
    if (fl__ox_absent(n, 1)) {
        st = fl__attr_int_or(n, "k", -1, &kk, c->d); /* opset 1-9: attr k */
    } else {
        int64_t *kv, nk;
        st = fl__op_in_int_vector(c, n, 1, &kv, &nk);
        if (st == FL_OK && nk == 1) {
            kk = kv[0];
        }
        st = st == FL_ENOTFOUND ? FL_OK : st;
    }
    if (st != FL_OK) {
        return st;
    }
    if (kk >= 0) {
        if (fl_sym_is_known(x->dims[ax]) && kk > x->dims[ax].k) {
            return fl__node_fail(c->d, FL_EINVAL, n, "K = %lld exceeds axis %d's size %lld",
                                 (long long)kk, ax, (long long)x->dims[ax].k);
        }
        dims[ax] = fl_sym_const(kk);
    } else if (!fl__ox_absent(n, 1)) { /* a symbolic K: its value */
        const fl_value *kv = fl_node_in(n, 1)->value;
        if (kv && kv->n == 1 && kv->ints && !fl_sym_is_unknown(kv->ints[0])) {
            dims[ax] = kv->ints[0];
        }
    }
    st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, x->rank, dims) : st;
}

static fl_status cost_topk(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    const fl_shape *y = &n->outputs[0].shape;
    fl_sym f = fl_sym_unknown();
    for (int ax = 0; ax < y->rank && ax < x->rank; ax++) {
        if (!fl__sym_eq(x->dims[ax], y->dims[ax]) || ax == y->rank - 1) {
            /* the K axis: the first dim that differs (or the last) */
            fl_sym kd = y->dims[ax];
            if (!fl_sym_is_unknown(kd)) { /* known or symbolic: clog2 takes both */
                fl_sym lg;
                if (fl__sym_clog2(c->st, kd, &lg) != FL_OK ||
                    fl__sym_max(c->st, fl_sym_const(1), lg, &lg) != FL_OK) {
                    return fl__diag_oom(c->d); /* their only failure */
                }
                f = fl__ar_mul(&k, fl__ar_numel(&k, x), lg);
            }
            break;
        }
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status cost_e_in(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t per = n->kind == FL_OP_ONNX_LP_NORMALIZATION ? 3 : n->kind == FL_OP_ONNX_MVN ? 7 : 1;
    return fl__ox_cost_per_in(c, n, out, per);
}

static fl_status cost_mvn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t nv = 1;
    if (fl__ox_opset_before(c, 9)) {
        fl_status st = fl__attr_int_or(n, "normalize_variance", 1, &nv, c->d);
        if (st != FL_OK) {
            return st;
        }
    }
    return nv ? cost_e_in(c, n, out) : fl__ox_cost_per_in(c, n, out, 2);
}

static fl_status cost_e_out(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 1);
}

/* Hook sets and descriptors (their rows: onnxops/reduce.def) */

#define HOOKS_reduce           .infer = fl__ox_infer_reduce, .cost = cost_reduce_rule
#define HOOKS_arg              .infer = infer_arg, .cost = cost_reduce_rule
#define HOOKS_cumsum           .infer = infer_cumsum, .cost = cost_e_out
#define HOOKS_hardmax          .infer = infer_hardmax, .cost = cost_e_in
#define HOOKS_topk             .infer = infer_topk, .cost = cost_topk
#define HOOKS_lp_normalization .infer = infer_lp_norm, .cost = cost_e_in
#define HOOKS_mvn              .infer = fl__ox_infer_same, .cost = cost_mvn

#define FL_OP FL_OP_DESC
#include "ops/onnxops/reduce.def"
#undef FL_OP
