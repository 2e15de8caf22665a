/*
 * shape.c - shape metadata (array family): Shape, ShapeN, Size, Rank.
 *
 * Shapes: TensorFlow's shape functions. They set their output VALUE during
 * inference when the input's shape is determined (symbolic dims become
 * symbolic elements), so that Shape -> StridedSlice -> Pack -> Reshape chains
 * resolve.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true (metadata only).
 * tfprof registers none of them (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

/* Output `port` := shape of input `in` as a vector, with its value when the
 * shape is determined. */
static fl_status shape_out(fl_ctx *c, fl_node *n, int in, int port, int dt) {
    const fl_shape *s = fl__op_in_shape(n, in);
    fl_status st;
    if (s->rank < 0) {
        return fl__op_set_output_rank(c, n, port, dt, 1);
    }
    fl_sym len = fl_sym_const(s->rank);
    if ((st = fl__op_set_output(c, n, port, dt, 1, &len)) != FL_OK) {
        return st;
    }
    if (!fl__shape_is_determined(s)) {
        return FL_OK;
    }
    fl_value *v = fl__array_out_value(c, n, port, NULL, &st);
    if (!v || !v->ints) {
        return st;
    }
    for (int i = 0; i < s->rank; i++) {
        ((fl_sym *)v->ints)[i] = s->dims[i];
    }
    fl__op_set_value(n, port, v);
    return FL_OK;
}

/* A scalar output with the value x (when x is not unknown). */
static fl_status scalar_out(fl_ctx *c, fl_node *n, int port, int dt, fl_sym x) {
    fl_status st = fl__op_set_output(c, n, port, dt, 0, NULL);
    if (st != FL_OK || fl_sym_is_unknown(x)) {
        return st;
    }
    fl_value *v = fl__array_out_value(c, n, port, NULL, &st);
    if (!v || !v->ints) {
        return st;
    }
    ((fl_sym *)v->ints)[0] = x;
    fl__op_set_value(n, port, v);
    return FL_OK;
}

static fl_status infer_shape(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__array_index_type_attr(c, n, "out_type", &dt);
    return st != FL_OK ? st : shape_out(c, n, 0, 0, dt);
}

static int count_shape_n(const fl_node *n, fl_diag *d) {
    int64_t N;
    fl_status st = fl__attr_get_int(n, "N", &N, d);
    if (st == FL_ENOTFOUND) {
        return n->n_inputs;
    }
    if (st != FL_OK) {
        return -1;
    }
    if (N != n->n_inputs) {
        fl__node_fail(d, FL_EINVAL, n, "attr 'N' is %lld but the node has %d inputs", (long long)N,
                      n->n_inputs);
        return -1;
    }
    return n->n_inputs;
}

static fl_status infer_shape_n(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__array_index_type_attr(c, n, "out_type", &dt);
    for (int i = 0; st == FL_OK && i < n->n_outputs; i++) {
        st = i < n->n_inputs ? shape_out(c, n, i, i, dt) : fl__op_set_output_rank(c, n, i, dt, 1);
    }
    return st;
}

static fl_status infer_size(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_sym e;
    fl_status st = fl__array_index_type_attr(c, n, "out_type", &dt);
    if (st == FL_OK) {
        st = fl__op_num_elements(c, n, fl__op_in_shape(n, 0), &e);
    }
    return st != FL_OK ? st : scalar_out(c, n, 0, dt, e);
}

static fl_status infer_rank(fl_ctx *c, fl_node *n) {
    int r = fl__op_in_shape(n, 0)->rank;
    return scalar_out(c, n, 0, FL_DT_INT32, r < 0 ? fl_sym_unknown() : fl_sym_const(r));
}

/* Hook sets and descriptors (their rows: array/shape.def). */
#define HOOKS_shape .infer = infer_shape, .cost = fl__op_cost_zero
#define HOOKS_shape_n                                                                              \
    .count_outputs = count_shape_n, .infer = infer_shape_n, .cost = fl__op_cost_zero
#define HOOKS_size .infer = infer_size, .cost = fl__op_cost_zero
#define HOOKS_rank .infer = infer_rank, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/shape.def"
#undef FL_OP
