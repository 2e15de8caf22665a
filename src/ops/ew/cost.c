/*
 * cost.c - the cost hooks of the element-wise family. The rules
 * ("complete" convention, out->flops) are listed with the ops in unary.c,
 * binary.c, nary.c, reduce.c and scan.c; a FLOP is one arithmetic/logical
 * operation per element, so a transcendental function (exp, tanh, erf, ...)
 * counts 1. E(t) = element count.
 *
 * tfprof convention (out->tfprof_flops), exactly its registered formulas:
 * Reciprocal, Square, Log, Neg: E(in0); Rsqrt: 2 * E(in0); Add, AddV2, Sub,
 * Mul, RealDiv, Maximum, Minimum, Pow, Greater, GreaterEqual, Less,
 * LessEqual, Equal, NotEqual: E(out); SquaredDifference: 2 * E(out);
 * RsqrtGrad: 4 * E(out); Mean: E(in0); Sum, ArgMax, ArgMin: E(in0) - E(out);
 * AddN: E(in0) * (inputs - 1) where inputs counts control inputs too. Every
 * other op here: 0, tfprof_rule false (tfprof registers none of Xdivy,
 * Xlogy, Xlog1py, MulNoNan, AccumulateNV2). MACs: always 0.
 */
#include "ops/ew/ew.h"

/* tfprof's factor for the ops it registers: on E(in0) (unary) or E(out). */
static int tfprof_unary_factor(int kind) {
    switch (kind) {
    case FL_OP_RECIPROCAL:
    case FL_OP_SQUARE:
    case FL_OP_LOG:
    case FL_OP_NEG:
        return 1;
    case FL_OP_RSQRT:
        return 2;
    default:
        return 0;
    }
}

static int tfprof_binary_factor(int kind) {
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_SUB:
    case FL_OP_MUL:
    case FL_OP_REAL_DIV:
    case FL_OP_MAXIMUM:
    case FL_OP_MINIMUM:
    case FL_OP_POW:
    case FL_OP_GREATER:
    case FL_OP_GREATER_EQUAL:
    case FL_OP_LESS:
    case FL_OP_LESS_EQUAL:
    case FL_OP_EQUAL:
    case FL_OP_NOT_EQUAL:
        return 1;
    case FL_OP_SQUARED_DIFFERENCE:
        return 2;
    case FL_OP_RSQRT_GRAD:
        return 4;
    default:
        return 0;
    }
}

/* Complete-convention FLOPs per output element of the element-wise ops. */
static int complete_factor(int kind) {
    switch (kind) {
    case FL_OP_RSQRT_GRAD: /* dy * -0.5 * y^3: four multiplies, as tfprof */
        return 4;
    case FL_OP_MKL_SWISH: /* the Sigmoid and the Mul it fuses */
        return 2;
    case FL_OP_RSQRT:
    case FL_OP_SQUARED_DIFFERENCE:
    case FL_OP_PRELU:
        return 2;
    case FL_OP_ZEROS_LIKE:
    case FL_OP_ONES_LIKE:
        return 0;
    default:
        return 1;
    }
}

static bool is_reduction(int kind) {
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_MEAN:
    case FL_OP_MAX:
    case FL_OP_MIN:
    case FL_OP_PROD:
    case FL_OP_ALL:
    case FL_OP_ANY:
    case FL_OP_ARG_MAX:
    case FL_OP_ARG_MIN:
        return true;
    default:
        return false;
    }
}

/* Cumsum/Cumprod: lines * (L - 1); unknown when the axis or a dim is. */
static fl_status cost_cum(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t a;
    if (x->rank < 1 || !fl__ew_in_scalar_int(n, 1, &a) || a < -x->rank || a >= x->rank) {
        out->incomplete = true;
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    fl_sym lines = fl_sym_const(1), len = x->dims[a], l1;
    for (int i = 0; i < x->rank; i++) {
        if (fl_sym_is_unknown(x->dims[i])) {
            out->incomplete = true;
            return FL_OK;
        }
        if (i != a) {
            fl_status st = fl__op_mul(c, n, lines, x->dims[i], &lines);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    if (fl_sym_is_known(len) && len.k == 0) {
        return FL_OK;
    }
    fl_status st = fl__op_sub(c, n, len, fl_sym_const(1), &l1);
    if (st == FL_OK) {
        st = fl__op_mul(c, n, lines, l1, &out->flops);
    }
    return st;
}

fl_status fl__ew_cost(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int kind = n->kind;
    out->flops = fl_sym_const(0);
    out->tfprof_flops = fl_sym_const(0);
    out->macs = fl_sym_const(0);
    out->has_rule = true;
    out->incomplete = false;
    int tfu = tfprof_unary_factor(kind), tfb = tfprof_binary_factor(kind);
    out->tfprof_rule = tfu || tfb || kind == FL_OP_MEAN || kind == FL_OP_SUM ||
                       kind == FL_OP_ARG_MAX || kind == FL_OP_ARG_MIN || kind == FL_OP_ADD_N;
    if (kind == FL_OP_ZEROS_LIKE || kind == FL_OP_ONES_LIKE) {
        return FL_OK;
    }
    if (kind == FL_OP_CUMSUM || kind == FL_OP_CUMPROD) {
        return cost_cum(c, n, out);
    }
    if (n->n_outputs < 1 || n->n_inputs < 1) {
        out->incomplete = true;
        return FL_OK;
    }
    fl_sym eo, ei;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &eo);
    if (st == FL_OK) {
        st = fl__op_num_elements(c, n, &fl_node_in(n, 0)->shape, &ei);
    }
    if (st != FL_OK) {
        return st;
    }
    bool need_in = tfu || kind == FL_OP_ADD_N || is_reduction(kind);
    if (fl_sym_is_unknown(eo) || (need_in && fl_sym_is_unknown(ei))) {
        out->incomplete = true;
        return FL_OK;
    }
    fl_sym flops, tf = fl_sym_const(0);
    if (kind == FL_OP_MEAN) {
        flops = ei;
        tf = ei;
    } else if (is_reduction(kind)) {
        st = fl__op_sub(c, n, ei, eo, &flops);
        if (kind == FL_OP_SUM || kind == FL_OP_ARG_MAX || kind == FL_OP_ARG_MIN) {
            tf = flops;
        }
    } else if (kind == FL_OP_ACCUMULATE_NV2) {
        st = fl__op_scale(c, n, eo, n->n_inputs - 1, &flops);
    } else if (kind == FL_OP_ADD_N) {
        st = fl__op_scale(c, n, eo, n->n_inputs - 1, &flops);
        if (st == FL_OK) {
            st = fl__op_scale(c, n, ei, (int64_t)n->n_inputs + n->n_ctrl - 1, &tf);
        }
    } else {
        int64_t cf = complete_factor(kind);
        if (kind == FL_OP_GELU) {
            bool approx;
            if ((st = fl__attr_bool_or(n, "approximate", false, &approx, c->d)) != FL_OK) {
                return st;
            }
            cf = approx ? 9 : 5;
        }
        st = fl__op_scale(c, n, eo, cf, &flops);
        if (st == FL_OK && tfu) {
            st = fl__op_scale(c, n, ei, tfu, &tf);
        } else if (st == FL_OK && tfb) {
            st = fl__op_scale(c, n, eo, tfb, &tf);
        }
    }
    if (st != FL_OK) {
        return st;
    }
    out->flops = flops;
    out->tfprof_flops = tf;
    return FL_OK;
}

/* _UnaryOpsComposition: sum over op_names of each op's complete factor times
 * E(out); tfprof registers no rule for it (0, tfprof_rule false). */
fl_status fl__ew_cost_unary_composition(fl_ctx *c, const fl_node *n, fl_cost *out) {
    out->flops = fl_sym_const(0);
    out->tfprof_flops = fl_sym_const(0);
    out->macs = fl_sym_const(0);
    out->has_rule = true;
    out->tfprof_rule = false;
    out->incomplete = false;
    const fl_attr *names = fl__node_attr(n, "op_names");
    int64_t factor = 0;
    if (!names || names->kind != FL_ATTR_LIST ||
        (names->list_kind != FL_ATTR_S && names->list_kind != FL_ATTR_NONE)) {
        out->incomplete = true;
        return FL_OK;
    }
    for (size_t i = 0; i < names->n; i++) {
        int kind = fl__op_lookup(names->v.list.s[i].p);
        if (kind == FL_OP_UNKNOWN) {
            out->incomplete = true;
            return FL_OK;
        }
        factor += complete_factor(kind);
    }
    fl_sym eo;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &eo);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(eo)) {
        out->incomplete = true;
        return FL_OK;
    }
    return fl__op_scale(c, n, eo, factor, &out->flops);
}
