/*
 * elementwise.c - the arithmetic optimizer's element-wise stages.
 *  - remove_redundant_bitcast (9): Bitcast(Bitcast(x)) (inner not preserved)
 *    -> Bitcast(x) in place with the inner T (T == type: arithmetic_
 *    optimizer.c).
 *  - simplify_aggregation (19): Add/AddV2/AddN of N copies of one tensor (not
 *    variant, not string, not preserved) -> Mul(Const N, x) as
 *    "SimplifyAggregation_Mul_<name>" with the Const
 *    "SimplifyAggregation_Const_<name>" (control input on x).
 *  - convert_pow (23): Pow(x, c), c a Const with all elements equal (real
 *    dtypes), x's shape equal to the output's: 2 -> Square, 0.5 -> Sqrt,
 *    -0.5 -> Rsqrt, -1 -> Reciprocal, 1 -> Identity, in place with c as a
 *    control input; 3 (CPU) -> Mul(x, Square(x)) with the Square
 *    "ConvertPow__inner_<name>"; 0 (fully known shape, int32/int64/float/
 *    double) -> a Const of ones in place, x and c as control inputs.
 *  - convert_log1p (24): Log(Add(x, c)) with c a Const of ones (float
 *    dtypes), c's shape fully known and not broadcasting x -> Log1p(x) in
 *    place, c as a control input.
 *  - optimize_max_or_min_of_monotonic (26): Max/Min/ArgMax/ArgMin/MaxPool
 *    (not preserved) of f(x) with f element-wise monotonic, read only there,
 *    not preserved, and not a Relu/Relu6 fed by FusedBatchNorm or BiasAdd ->
 *    f(reduce(x)) (Max<->Min when f is non-increasing; MaxPool only for
 *    non-decreasing f; under ArgMax/ArgMin f becomes Identity).
 *  - convert_expm1 (27): Sub(Exp(x), c) with c a Const of ones (float dtypes)
 *    not broadcasting Exp(x) -> Expm1(x) in place, c as a control input.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RemoveRedundantBitcast, the in-place half (the forward half is in
 * forward_target). */
bool fl__ao_bitcast_of_bitcast_kinds(const fl_node *n) {
    return fl__is_pass_op(n, FL_POP_BITCAST);
}

fl_status fl__ao_bitcast_of_bitcast(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_bitcast_of_bitcast_kinds(n) || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    int t = fl__attr_type(in, "T");
    if (!fl__is_pass_op(in, FL_POP_BITCAST) || in->n_inputs != 1 || fl__preserved(in) ||
        t == FL_DT_INVALID) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "remove_redundant_bitcast", n, "Bitcast(Bitcast(x)) -> Bitcast(x)");
    fl__ao_set_input(a, n, 0, in->inputs[0]);
    fl_status st = fl__ao_set_attr(a, n, fl__attr_make_type(a->g, "T", t));
    a->pc->rewritten++;
    /* Bitcast is not in the registry, so fl__remove_dead keeps it: drop the
     * inner one here when nothing reads it any more. */
    if (a->uses[in->id] == 0 && a->ctrl_uses[in->id] == 0 && in->n_ctrl == 0) {
        fl__ao_remove(a, in);
    }
    *fired = true;
    return st;
}

/* SimplifyAggregation of N copies of one tensor. */
bool fl__ao_aggregation_of_copies_kinds(const fl_node *n) {
    return n->kind == FL_OP_ADD_N || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_ADD;
}

fl_status fl__ao_aggregation_of_copies(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_aggregation_of_copies_kinds(n) || n->n_inputs < 2) {
        return FL_OK; /* before the attr lookup: this runs on every node */
    }
    int dt = fl__attr_type(n, "T");
    if (dt == FL_DT_VARIANT || dt == FL_DT_STRING || dt == FL_DT_INVALID ||
        !fl__ao_can_forward(a, n)) {
        return FL_OK;
    }
    for (int k = 1; k < n->n_inputs; k++) {
        if (n->inputs[k].node != n->inputs[0].node || n->inputs[k].port != n->inputs[0].port) {
            return FL_OK;
        }
    }
    if (!fl__dtype_is_float(dt) && !fl__dtype_is_integer(dt)) {
        return FL_OK;
    }
    const char *cn = fl__ao_opt_name(a, n->name, "SimplifyAggregation_Const");
    const char *mn = fl__ao_opt_name(a, n->name, "SimplifyAggregation_Mul");
    if (!cn || !mn) {
        return fl__ao_oom(a);
    }
    if (fl__graph_find(a->g, cn) || fl__graph_find(a->g, mn)) {
        return FL_OK;
    }
    fl_value *v = fl__value_new(a->g->arena, (fl_dtype)dt, 0, NULL);
    if (!v) {
        return fl__ao_oom(a);
    }
    if (v->ints) {
        ((fl_sym *)v->ints)[0] = fl_sym_const(n->n_inputs);
    } else {
        fl__value_set_f64(v, 0, (double)n->n_inputs);
    }
    fl_input x = n->inputs[0];
    fl_node *c = fl__ao_add_const(a, cn, n->device, v);
    if (!c || fl__ao_add_ctrl(a, c, x.node) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl_input in[2] = {{c, 0}, x};
    fl_node *mul = fl__ao_add(a, mn, fl__op_name(FL_OP_MUL), n->device, 2, in);
    if (!mul || fl__ao_set_attr(a, mul, fl__attr_make_type(a->g, "T", dt)) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "simplify_aggregation", n, "%s of %d copies of '%s' -> Mul(%d, x)",
                    n->op, n->n_inputs, x.node->name, n->n_inputs);
    fl__ao_forward(a, n, (fl_input){mul, 0});
    *fired = true;
    return FL_OK;
}

/* ConvertPow. */
bool fl__ao_convert_pow_kinds(const fl_node *n) {
    return n->kind == FL_OP_POW;
}

fl_status fl__ao_convert_pow(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_convert_pow_kinds(n) || n->n_inputs != 2 || n->n_outputs != 1) {
        return FL_OK;
    }
    const fl_value *c = fl__ao_const_value(n->inputs[1].node);
    const fl_tensor *x = fl_node_in(n, 0), *out = &n->outputs[0];
    if (!c || c->n < 1 || fl__ao_is_complex(c->dtype) || !fl__shape_same(&x->shape, &out->shape) ||
        x->dtype != out->dtype) {
        return FL_OK;
    }
    double e;
    if (!fl__value_f64(c, 0, &e) || !fl__ao_value_all(c, e)) {
        return FL_OK;
    }
    const char *op = e == 2.0    ? fl__op_name(FL_OP_SQUARE)
                     : e == 0.5  ? fl__op_name(FL_OP_SQRT)
                     : e == -0.5 ? fl__op_name(FL_OP_RSQRT)
                     : e == -1.0 ? fl__op_name(FL_OP_RECIPROCAL)
                     : e == 1.0  ? fl__op_name(FL_OP_IDENTITY)
                                 : NULL;
    fl_graph *g = a->g;
    if (op) {
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, %g) -> %s(x)", e, op);
        fl_status st = fl__ao_input_to_ctrl(a, n, 1);
        if (st == FL_OK) {
            fl__node_become(g, n, op);
            n->src = NULL;
            a->pc->rewritten++;
            *fired = true;
        }
        return st;
    }
    if (e == 3.0 && fl__ao_on_cpu(a, n)) {
        const char *nm = fl__ao_opt_name(a, n->name, "ConvertPow__inner");
        if (!nm) {
            return fl__ao_oom(a);
        }
        fl_node *sq = fl__graph_find(g, nm);
        if (!sq) {
            sq = fl__ao_add(a, nm, fl__op_name(FL_OP_SQUARE), n->device, 1, &n->inputs[0]);
            if (!sq || fl__ao_set_attr(a, sq, fl__attr_make_type(g, "T", x->dtype)) != FL_OK ||
                fl__ao_forward_ctrl(a, sq, n) != FL_OK) {
                return fl__ao_oom(a);
            }
        }
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, 3) -> Mul(x, Square(x))");
        fl_node *y = n->inputs[1].node;
        fl__ao_set_input(a, n, 1, (fl_input){sq, 0});
        fl__node_become(g, n, fl__op_name(FL_OP_MUL));
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        return fl__ao_add_ctrl(a, n, y);
    }
    int dt = out->dtype;
    bool ones_ok =
        dt == FL_DT_INT32 || dt == FL_DT_INT64 || dt == FL_DT_FLOAT || dt == FL_DT_DOUBLE;
    if (e == 0.0 && ones_ok && fl__ao_shape_concrete(&out->shape)) {
        int64_t dims[256];
        for (int i = 0; i < out->shape.rank && i < 256; i++) {
            dims[i] = out->shape.dims[i].k;
        }
        fl_value *v = fl__value_new(g->arena, (fl_dtype)dt, out->shape.rank, dims);
        if (v && v->n > a->pc->c->max_value_elems) {
            v = NULL; /* too large to hold: a stripped Const of ones */
        } else if (!v) {
            return fl__ao_oom(a);
        }
        for (int64_t i = 0; v && i < v->n; i++) {
            if (v->ints) {
                ((fl_sym *)v->ints)[i] = fl_sym_const(1);
            } else {
                fl__value_set_f64(v, i, 1.0);
            }
        }
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, 0) -> Const ones");
        for (int k = 0; k < n->n_inputs; k++) {
            a->uses[n->inputs[k].node->id]--;
            a->ctrl_uses[n->inputs[k].node->id]++;
        }
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_node *in = n->inputs[k].node;
            for (int j = 0; j < in->n_ctrl; j++) {
                bool dup = false;
                for (int q = 0; q < n->n_ctrl; q++) {
                    dup = dup || n->ctrl[q] == in->ctrl[j];
                }
                a->ctrl_uses[in->ctrl[j]->id] += !dup;
            }
        }
        fl_status st = fl__node_make_const(a->pc, n, v, true);
        a->pc->rewritten++;
        *fired = true;
        return st;
    }
    return FL_OK;
}

/* A Const of ones whose shape is fully known, of a float dtype (Log1p and
 * Expm1 take bfloat16, half, float, double). */
static bool float_ones_const(const fl_node *c) {
    const fl_value *v = fl__ao_const_value(c);
    return v && fl__dtype_is_float(v->dtype) && fl__ao_value_all(v, 1.0);
}

/* ConvertLog1p. */
bool fl__ao_convert_log1p_kinds(const fl_node *n) {
    return n->kind == FL_OP_LOG;
}

fl_status fl__ao_convert_log1p(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_convert_log1p_kinds(n) || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *add = n->inputs[0].node;
    if (!fl__is_add(add) || add->n_inputs != 2) {
        return FL_OK;
    }
    for (int i = 0; i < 2; i++) {
        int j = 1 - i;
        const fl_shape *t = &fl_node_in(add, i)->shape, *c = &fl_node_in(add, j)->shape;
        if (!fl__ao_shape_concrete(c) || !fl__ao_bcast_keeps(t, c) ||
            !float_ones_const(add->inputs[j].node)) {
            continue;
        }
        fl_node *y = add->inputs[j].node;
        fl__ledger_note(a->pc, "convert_log1p", n, "Log(Add(x, 1)) -> Log1p(x)");
        fl__ao_set_input(a, n, 0, add->inputs[i]);
        fl__node_become(a->g, n, fl__op_name(FL_OP_LOG1P));
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        fl_status st = fl__ao_add_ctrl(a, n, y);
        return st == FL_OK ? fl__ao_forward_ctrl(a, n, add) : st;
    }
    return FL_OK;
}

/* ConvertExpm1. */
bool fl__ao_convert_expm1_kinds(const fl_node *n) {
    return n->kind == FL_OP_SUB;
}

fl_status fl__ao_convert_expm1(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_convert_expm1_kinds(n) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *ex = n->inputs[0].node;
    if (ex->kind != FL_OP_EXP || ex->n_inputs != 1) {
        return FL_OK;
    }
    const fl_shape *t = &fl_node_in(n, 0)->shape, *c = &fl_node_in(n, 1)->shape;
    if (!fl__ao_bcast_keeps(t, c) || !float_ones_const(n->inputs[1].node)) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "convert_expm1", n, "Sub(Exp(x), 1) -> Expm1(x)");
    fl__ao_set_input(a, n, 0, ex->inputs[0]);
    fl_status st = fl__ao_input_to_ctrl(a, n, 1);
    if (st != FL_OK) {
        return st;
    }
    fl__node_become(a->g, n, fl__op_name(FL_OP_EXPM1));
    n->src = NULL;
    a->pc->rewritten++;
    *fired = true;
    return fl__ao_forward_ctrl(a, n, ex);
}

/* OptimizeMaxOrMinOfMonotonic. */
static bool is_max_pool(const fl_node *r) {
    return r->kind == FL_OP_MAX_POOL || r->kind == FL_OP_MAX_POOL_V2 || r->kind == FL_OP_MAX_POOL3D;
}

/* ArgMax/ArgMin, MaxPool, and the max or min reductions. */
bool fl__ao_max_or_min_of_monotonic_kinds(const fl_node *r) {
    return r->kind == FL_OP_ARG_MAX || r->kind == FL_OP_ARG_MIN || is_max_pool(r) ||
           r->kind == FL_OP_MAX || r->kind == FL_OP_MIN || fl__is_pass_op(r, FL_POP_SEGMENT_MAX) ||
           fl__is_pass_op(r, FL_POP_SEGMENT_MIN) ||
           fl__is_pass_op(r, FL_POP_UNSORTED_SEGMENT_MAX) ||
           fl__is_pass_op(r, FL_POP_UNSORTED_SEGMENT_MIN);
}

fl_status fl__ao_max_or_min_of_monotonic(ao *a, fl_node *r, bool *fired) {
    if (!fl__ao_max_or_min_of_monotonic_kinds(r) || fl__preserved(r) || r->n_inputs < 1 ||
        r->n_outputs != 1 || r->outputs[0].dtype == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_node *f = r->inputs[0].node;
    int mono = fl__ao_monotonic(f);
    bool arg = r->kind == FL_OP_ARG_MAX || r->kind == FL_OP_ARG_MIN, pool = is_max_pool(r);
    if (mono == 0 || fl__preserved(f) || fl__ao_n_uses(a, f) != 1 || a->ctrl_uses[f->id] ||
        f->n_outputs != 1 || (pool && mono < 0)) {
        return FL_OK;
    }
    const fl_node *fin = f->inputs[0].node;
    if ((f->kind == FL_OP_RELU || f->kind == FL_OP_RELU6) &&
        (strncmp(fin->op, "FusedBatchNorm", 14) == 0 || fin->kind == FL_OP_BIAS_ADD)) {
        return FL_OK;
    }
    const char *op = r->op;
    if (mono < 0) {
        char *flipped = fl__arena_printf(a->g->arena, "%s", r->op);
        char *p = flipped ? strstr(flipped, "Max") : NULL;
        if (!flipped) {
            return fl__ao_oom(a);
        }
        if (p) {
            memcpy(p, "Min", 3);
        } else if ((p = strstr(flipped, "Min")) != NULL) {
            memcpy(p, "Max", 3);
        }
        op = flipped;
    }
    fl__ledger_note(a->pc, "optimize_max_or_min_of_monotonic", r, "%s(%s(x)) -> %s(%s(x))", r->op,
                    f->op, arg ? "Identity" : f->op, op);
    /* consumers of r read f; r reads x; f reads r (r's consumers all come
     * later in the sweep: none has been forwarded yet) */
    size_t moved = fl__graph_replace_uses(a->g, r, 0, f, 0);
    a->uses[f->id] += (uint32_t)moved;
    a->uses[r->id] -= (uint32_t)moved;
    fl__ao_set_input(a, r, 0, f->inputs[0]);
    fl__ao_set_input(a, f, 0, (fl_input){r, 0});
    if (r->op != op) {
        fl__node_become(a->g, r, op);
        r->src = NULL;
    }
    a->pc->rewritten += 2;
    *fired = true;
    if (arg) {
        int dt = r->outputs[0].dtype;
        fl__node_set_attrs(a->g, f, 0, NULL);
        f->src = NULL;
        fl__node_become(a->g, f, fl__op_name(FL_OP_IDENTITY));
        return fl__ao_set_attr(a, f, fl__attr_make_type(a->g, "T", dt));
    }
    return FL_OK;
}
