/*
 * onnx/concat.c - Concat and Split (rules in onnx.h). Split's parts: input
 * `split` (attr before opset 13), else equal parts of ceil(dim / outputs),
 * the last smaller. From opset 18 a node gives input split or attr
 * num_outputs (the node's output count), exactly one of them, as ONNX's
 * shape inference requires.
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* Concat's attr axis: required from opset 4, default 1 before. */
static fl_status concat_axis(fl_ctx *c, const fl_node *n, int64_t *axis) {
    if (c->g->onnx.is_onnx && c->g->onnx.opset >= 1 && c->g->onnx.opset < 4) {
        return fl__attr_int_or(n, "axis", 1, axis, c->d);
    }
    return fl__attr_need_int(n, "axis", axis, c->d);
}

static fl_status infer_concat(fl_ctx *c, fl_node *n) {
    int64_t axis;
    fl_status st = concat_axis(c, n, &axis);
    if (st != FL_OK) {
        return st;
    }
    int rank = -1;
    for (int i = 0; i < n->n_inputs; i++) {
        int r = fl__op_in_shape(n, i)->rank;
        if (r >= 0 && rank >= 0 && r != rank) {
            return fl__node_fail(c->d, FL_EINVAL, n, "inputs have ranks %d and %d", rank, r);
        }
        rank = r >= 0 ? r : rank;
    }
    if (rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    int ax = 0;
    if ((st = fl__ox_norm_axis(c, n, axis, rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int j = 0; j < rank; j++) {
        d[j] = j == ax ? fl_sym_const(0) : fl_sym_unknown();
    }
    fl_arith k = {c, n, FL_OK};
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        for (int j = 0; j < rank; j++) {
            fl_sym v = s->rank >= 0 ? s->dims[j] : fl_sym_unknown();
            if (j == ax) {
                d[j] = fl__ar_add(&k, d[j], v);
            } else if ((st = fl__op_merge_dim(c, n, d[j], v, "concatenated dims", &d[j])) !=
                       FL_OK) {
                return st;
            }
        }
    }
    if (k.st != FL_OK) {
        return k.st;
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), rank, d);
}

static fl_status eval_concat(fl_ctx *c, fl_node *n) {
    const fl_tensor *t = &n->outputs[0];
    fl_value *v;
    fl_status st = fl__onnx_new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v) {
        return st;
    }
    int64_t axis;
    int ax = 0;
    if (concat_axis(c, n, &axis) != FL_OK ||
        fl__ox_norm_axis(c, n, axis, t->shape.rank, "attr 'axis'", &ax) != FL_OK) {
        return c->d->status;
    }
    int64_t outer = 1;
    for (int j = 0; j < ax; j++) {
        outer *= t->shape.dims[j].k;
    }
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = 0; i < n->n_inputs; i++) {
            const fl_value *in = fl_op_in_value(n, i);
            if (!in || in->dtype != v->dtype || in->rank != t->shape.rank) {
                return FL_OK;
            }
            int64_t chunk = outer ? in->n / outer : 0;
            if (chunk > v->n - pos) {
                return FL_OK;
            }
            fl__onnx_copy_run(v, pos, in, o * chunk, chunk);
            pos += chunk;
        }
    }
    if (pos == v->n) {
        fl__op_set_value(n, 0, v);
    }
    return FL_OK;
}

static fl_status infer_split(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    int64_t axis;
    fl_status st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
            st = fl__op_set_output(c, n, k, dt, -1, NULL);
        }
        return st;
    }
    int ax = 0;
    if ((st = fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    const int64_t *split;
    int64_t ns;
    bool found;
    st = fl__ox_ints_in_or_attr(c, n, 1, "split", &split, &ns, &found);
    bool unknown_split = st == FL_ENOTFOUND;
    if (st != FL_OK && !unknown_split) {
        return st;
    }
    /* Opset 18: input split or attr num_outputs, exactly one of them. */
    if (c->g->producer >= 18) {
        bool has_num = fl__node_attr(n, "num_outputs") != NULL;
        int64_t num = 0;
        if (has_num == found) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 found ? "has both input 'split' and attr 'num_outputs' (opset "
                                         "18 on: one of them)"
                                       : "has neither input 'split' nor attr 'num_outputs' (opset "
                                         "18 on: one of them)");
        }
        if (has_num && (st = fl__attr_need_int(n, "num_outputs", &num, c->d)) != FL_OK) {
            return st;
        }
        if (has_num && num != n->n_outputs) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'num_outputs' is %lld but the node has %d outputs",
                                 (long long)num, n->n_outputs);
        }
    }
    if (found && !unknown_split && ns != n->n_outputs) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'split' has %lld entries for %d outputs",
                             (long long)ns, n->n_outputs);
    }
    fl_sym dim = x->dims[ax], sum = fl_sym_const(0);
    fl_sym *d = fl__arena_calloc(c->a, (size_t)x->rank * (size_t)n->n_outputs + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    fl_arith k = {c, n, FL_OK};
    for (int o = 0; o < n->n_outputs; o++) {
        fl_sym *od = d + (size_t)o * (size_t)x->rank;
        memcpy(od, x->dims, (size_t)x->rank * sizeof(fl_sym));
        fl_sym part = fl_sym_unknown();
        if (found && !unknown_split) {
            if (split[o] < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "'split' entry %d is negative", o);
            }
            part = fl_sym_const(split[o]);
        } else if (!found && fl_sym_is_known(dim)) {
            /* ceil(dim / outputs) without dim + outputs - 1, which can pass INT64_MAX */
            int64_t chunk = dim.k / n->n_outputs + (dim.k % n->n_outputs != 0);
            int64_t rest = dim.k - chunk * o;
            part = fl_sym_const(rest < 0 ? 0 : (rest < chunk ? rest : chunk));
        } else if (!found && !fl_sym_is_unknown(dim)) {
            bool exact;
            fl_sym q;
            if (fl__sym_div(c->st, dim, fl_sym_const(n->n_outputs), &q, &exact) == FL_OK && exact) {
                part = q;
            }
        }
        od[ax] = part;
        sum = fl__ar_add(&k, sum, part);
        if ((st = fl__op_set_output(c, n, o, dt, x->rank, od)) != FL_OK) {
            return st;
        }
    }
    if (k.st != FL_OK) {
        return k.st;
    }
    if (fl_sym_is_known(sum) && fl_sym_is_known(dim) && sum.k != dim.k) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'split' sums to %lld but dim %d is %lld",
                             (long long)sum.k, ax, (long long)dim.k);
    }
    return FL_OK;
}

/* Each output's value: its run of input 0's known value along the axis
 * (the outputs' shapes as inferred, in order). */
static fl_status eval_split(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    int64_t axis;
    int ax = 0;
    if (!x || x->rank < 1 || fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK ||
        fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax) != FL_OK) {
        return x && x->rank >= 1 ? c->d->status : FL_OK;
    }
    int64_t outer = 1, inner = 1, dim = x->dims[ax], off = 0;
    for (int j = 0; j < x->rank; j++) {
        if (j < ax) {
            outer *= x->dims[j];
        } else if (j > ax) {
            inner *= x->dims[j];
        }
    }
    fl_value **vs = fl__arena_calloc(c->a, (size_t)n->n_outputs, sizeof(fl_value *));
    if (!vs) {
        return fl__diag_oom(c->d);
    }
    for (int o = 0; o < n->n_outputs; o++) {
        const fl_shape *s = &n->outputs[o].shape;
        fl_status st = fl__onnx_new_out_value(c, n, o, &vs[o]);
        if (st != FL_OK || !vs[o] || s->rank != x->rank || vs[o]->dtype != x->dtype) {
            return st;
        }
        int64_t part = s->dims[ax].k;
        if (part < 0 || part > dim - off) {
            return FL_OK;
        }
        for (int64_t j = 0; j < outer && part > 0; j++) {
            fl__onnx_copy_run(vs[o], j * part * inner, x, (j * dim + off) * inner, part * inner);
        }
        off += part;
    }
    if (off != dim) {
        return FL_OK;
    }
    for (int o = 0; o < n->n_outputs; o++) {
        fl__op_set_value(n, o, vs[o]);
    }
    return FL_OK;
}

static int count_split(const fl_node *n, fl_diag *d) {
    (void)d;
    return n->n_outputs > 0 ? n->n_outputs : -1; /* the file's output list decides */
}

/* Hook sets and descriptors (their rows: concat.def). */
#define HOOKS_concat .infer = infer_concat, .eval = eval_concat, .cost = fl__op_cost_zero
#define HOOKS_split                                                                                \
    .count_outputs = count_split, .infer = infer_split, .eval = eval_split, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnx/concat.def"
#undef FL_OP
