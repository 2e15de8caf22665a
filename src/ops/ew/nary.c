/*
 * nary.c - Select, SelectV2, AddN, AccumulateNV2, ClipByValue (ew family).
 *
 * Shapes: TensorFlow's shape functions: Select's 't' and 'e' have the same
 * shape and 'condition' is a scalar, that shape, or a vector matching dim 0;
 * SelectV2 broadcasts all three; AddN's inputs merge; AccumulateNV2 takes
 * attr 'shape' (ExplicitShape), the inputs filling in what it leaves
 * unknown. eval: element by element (eval.c).
 *
 * FLOP rules ("complete" convention):
 *  - Select/SelectV2, ClipByValue: 1 * E(out).
 *  - AddN, AccumulateNV2: (N - 1) * E(out), N = data inputs.
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

#include <string.h>

/* Select: 't' and 'e' have the same shape; 'condition' is a scalar, has that
 * shape too, or is a vector matching dim 0 of 't'. */
static fl_status infer_select(fl_ctx *c, fl_node *n) {
    const fl_shape *cond = &fl_node_in(n, 0)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 1, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape data;
    st = fl__ew_merge_shapes(c, n, &fl_node_in(n, 1)->shape, &fl_node_in(n, 2)->shape,
                             "inputs 't' and 'e'", &data);
    if (st != FL_OK) {
        return st;
    }
    if (cond->rank > 0 && data.rank >= 0) {
        if (cond->rank != 1 || data.rank == 0) {
            st = fl__ew_merge_shapes(c, n, &data, cond, "inputs 'condition' and 't'", &data);
        } else {
            fl_sym a = cond->dims[0], b = data.dims[0];
            if (fl_sym_is_known(a) && fl_sym_is_known(b) && a.k != b.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'condition' is a vector of %lld elements but dim 0 of "
                                     "'t' is %lld",
                                     (long long)a.k, (long long)b.k);
            }
            fl_sym *d = fl__arena_calloc(c->a, (size_t)data.rank, sizeof(fl_sym));
            if (!d) {
                return fl__diag_oom(c->d);
            }
            memcpy(d, data.dims, (size_t)data.rank * sizeof(fl_sym));
            st = fl__op_merge_dim(c, n, b, a, "dim 0 of inputs 'condition' and 't'", &d[0]);
            data.dims = d;
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, data.rank, data.dims);
}

static fl_status infer_select_v2(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 1, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape te, out;
    st = fl__op_broadcast(c, n, &fl_node_in(n, 1)->shape, &fl_node_in(n, 2)->shape, &te);
    if (st == FL_OK) {
        st = fl__op_broadcast(c, n, &fl_node_in(n, 0)->shape, &te, &out);
    }
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

static fl_status infer_add_n(fl_ctx *c, fl_node *n) {
    int64_t attr_n;
    fl_status st = fl__attr_get_int(n, "N", &attr_n, c->d);
    if (st == FL_OK) {
        if (attr_n < 1 || attr_n != n->n_inputs) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'N' is %lld but the node has %d data inputs",
                                 (long long)attr_n, n->n_inputs);
        }
    } else if (st != FL_ENOTFOUND) {
        return st;
    }
    int dt = FL_DT_INVALID;
    st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape s = fl_node_in(n, 0)->shape;
    for (int i = 1; i < n->n_inputs; i++) {
        st = fl__ew_merge_shapes(c, n, &s, &fl_node_in(n, i)->shape, "inputs of AddN", &s);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, s.rank, s.dims);
}

/* AccumulateNV2: TensorFlow's shape function is ExplicitShape (attr
 * 'shape'); the inputs, which the kernel requires to have that shape too,
 * fill in what the attr leaves unknown (all of it when the attr is
 * missing). */
static fl_status infer_accumulate_n(fl_ctx *c, fl_node *n) {
    fl_status st = infer_add_n(c, n);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        return FL_OK; /* required by TensorFlow; without it the inputs decide */
    }
    if (st != FL_OK || lit.rank < 0) {
        return st;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)lit.rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < lit.rank; i++) {
        int64_t v = lit.dims ? lit.dims[i] : -1;
        if (v < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has invalid dim %lld at axis %d",
                                 (long long)v, i);
        }
        d[i] = v >= 0 ? fl_sym_const(v) : fl_sym_unknown();
    }
    fl_shape attr = {lit.rank, d}, out;
    st =
        fl__ew_merge_shapes(c, n, &attr, &n->outputs[0].shape, "attr 'shape' and the inputs", &out);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, n->outputs[0].dtype, out.rank, out.dims);
}

static fl_status infer_clip(fl_ctx *c, fl_node *n) {
    const fl_tensor *t = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, t->shape.rank, t->shape.dims);
}

/* Hook sets and descriptors (their rows: ew/nary.def). */
#define HOOKS_select       .infer = infer_select, .eval = fl__ew_eval, .cost = fl__ew_cost
#define HOOKS_select_v2    .infer = infer_select_v2, .eval = fl__ew_eval, .cost = fl__ew_cost
#define HOOKS_add_n        .infer = infer_add_n, .eval = fl__ew_eval, .cost = fl__ew_cost
#define HOOKS_accumulate_n .infer = infer_accumulate_n, .eval = fl__ew_eval, .cost = fl__ew_cost
#define HOOKS_clip         .infer = infer_clip, .eval = fl__ew_eval, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/nary.def"
#undef FL_OP
