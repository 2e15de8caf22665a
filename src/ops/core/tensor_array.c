/*
 * tensor_array.c - TensorArray (V3) ops (core family).
 *
 * Shapes
 *  - TensorArrayV3: handle resource [2], flow float scalar. Read and Gather
 *    find the array by following the handle input back through
 *    Identity/Enter/Exit/Switch/Merge/NextIteration to its TensorArrayV3;
 *    the element shape is its attr element_shape, with dims the attr leaves
 *    unknown taken from the values already written into the array (Write:
 *    the value; Scatter: the value without its first dim; Split: the value
 *    with an unknown first dim), where those writes agree. Gather: [len] +
 *    element shape (its own element_shape attr first). Concat: [?] +
 *    element_shape_except0. Size: int32 scalar (value = the array's size when
 *    it is known and the array cannot grow). Write/Scatter/Split: flow float
 *    scalar. Close: no outputs.
 *
 * FLOP rules ("complete" convention): 0 FLOPs with has_rule true (they move
 * tensors; 0 is the real count); tfprof registers none of them (0,
 * tfprof_rule false). No MACs.
 */
#include "ops/core/core.h"

/* The TensorArrayV3 whose handle input `in` of n reads, or NULL. */
static const fl_node *tensor_array_of(const fl_node *n, int in) {
    int port = 0;
    const fl_node *src = fl__core_trace_source(n, in, &port);
    return (src && src->kind == FL_OP_TENSOR_ARRAY_V3 && port == 0) ? src : NULL;
}

/* Element shape of the array made by `ta`: its element_shape attr, with the
 * dims that the attr leaves unknown taken from the values already written
 * into the array, where those agree. */
static fl_status ta_element_shape(fl_ctx *c, const fl_node *ta, fl_shape *out) {
    fl_shape_lit lit;
    fl_status st = fl__attr_get_shape(ta, "element_shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        lit.rank = -1;
        lit.dims = NULL;
    } else if (st != FL_OK) {
        return st;
    }
    st = fl__core_shape_from_lit(c, ta, &lit, "attr 'element_shape'", out);
    if (st != FL_OK || fl__shape_is_determined(out)) {
        return st;
    }
    /* Values written so far: scan the graph once for writers of this array. */
    fl_shape w = {-2, NULL};
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *m = c->g->nodes[i];
        int vin, drop;
        switch (m->kind) {
        case FL_OP_TENSOR_ARRAY_WRITE_V3:
            vin = 2;
            drop = 0;
            break;
        case FL_OP_TENSOR_ARRAY_SCATTER_V3:
            vin = 2;
            drop = 1;
            break;
        case FL_OP_TENSOR_ARRAY_SPLIT_V3:
            vin = 1;
            drop = -1; /* first dim becomes unknown */
            break;
        default:
            continue;
        }
        if (m->n_inputs <= vin || tensor_array_of(m, 0) != ta) {
            continue;
        }
        const fl_tensor *v = fl_node_in(m, vin);
        if (fl__core_not_inferred(v)) {
            continue;
        }
        if (v->shape.rank < 0) {
            st = fl__core_merge_shape(c, &w, -1, NULL, false);
        } else if (drop == 1) {
            if (v->shape.rank < 1) {
                continue;
            }
            st = fl__core_merge_shape(c, &w, v->shape.rank - 1, v->shape.dims + 1, false);
        } else if (drop == -1) {
            if (v->shape.rank < 1) {
                continue;
            }
            st = fl__core_merge_shape(c, &w, v->shape.rank, v->shape.dims, true);
        } else {
            st = fl__core_merge_shape(c, &w, v->shape.rank, v->shape.dims, false);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    if (w.rank >= 0) {
        st = fl__core_refine_shape(c, out, &w);
    }
    return st;
}

static fl_status infer_tensor_array(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 0, "size");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym two = fl_sym_const(2);
    st = fl__op_set_output(c, n, 0, FL_DT_RESOURCE, 1, &two);
    if (st == FL_OK) {
        st = fl__core_set_scalar(c, n, 1, FL_DT_FLOAT);
    }
    return st;
}

static fl_status infer_ta_read(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape s = {-1, NULL};
    const fl_node *ta = tensor_array_of(n, 0);
    if (ta) {
        st = ta_element_shape(c, ta, &s);
        if (st != FL_OK) {
            return st;
        }
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &s);
}

/* Write, Scatter, Split: the flow output. */
static fl_status infer_ta_flow(fl_ctx *c, fl_node *n) {
    return fl__core_set_scalar(c, n, 0, FL_DT_FLOAT);
}

static fl_status infer_ta_gather(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "element_shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        lit.rank = -1;
        lit.dims = NULL;
    } else if (st != FL_OK) {
        return st;
    }
    fl_shape elem;
    st = fl__core_shape_from_lit(c, n, &lit, "attr 'element_shape'", &elem);
    if (st != FL_OK) {
        return st;
    }
    const fl_node *ta = tensor_array_of(n, 0);
    if (ta && !fl__shape_is_determined(&elem)) {
        fl_shape more;
        st = ta_element_shape(c, ta, &more);
        if (st == FL_OK) {
            st = fl__core_refine_shape(c, &elem, &more);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    const fl_tensor *idx = fl_node_in(n, 1);
    fl_sym count = fl_sym_unknown();
    if (idx->shape.rank == 1) {
        count = idx->shape.dims[0];
    } else if (idx->shape.rank >= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'indices' must be a vector, got rank %d",
                             idx->shape.rank);
    }
    fl_shape s;
    st = fl__core_prepend_dim(c, count, &elem, &s);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &s);
}

static fl_status infer_ta_size(fl_ctx *c, fl_node *n) {
    fl_status st = fl__core_set_scalar(c, n, 0, FL_DT_INT32);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    /* The size is the array's size input when the array cannot grow. */
    const fl_node *ta = tensor_array_of(n, 0);
    if (!ta || ta->n_inputs < 1) {
        return FL_OK;
    }
    bool dynamic = true;
    if (fl__attr_bool_or(ta, "dynamic_size", false, &dynamic, c->d) != FL_OK) {
        return c->d->status;
    }
    const fl_value *sv = fl_op_in_value(ta, 0);
    if (dynamic || !sv || !sv->ints || sv->n != 1 || fl_sym_is_unknown(sv->ints[0])) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->d->status == FL_OK ? FL_OK : c->d->status;
    }
    ((fl_sym *)v->ints)[0] = sv->ints[0];
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_ta_close(fl_ctx *c, fl_node *n) {
    (void)c;
    (void)n;
    return FL_OK;
}

static fl_status infer_ta_concat(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "element_shape_except0", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        lit.rank = -1;
        lit.dims = NULL;
    } else if (st != FL_OK) {
        return st;
    }
    fl_shape rest;
    st = fl__core_shape_from_lit(c, n, &lit, "attr 'element_shape_except0'", &rest);
    if (st != FL_OK) {
        return st;
    }
    const fl_node *ta = tensor_array_of(n, 0);
    if (ta && !fl__shape_is_determined(&rest)) {
        fl_shape elem;
        st = ta_element_shape(c, ta, &elem);
        if (st != FL_OK) {
            return st;
        }
        if (elem.rank >= 1) {
            fl_shape tail = {elem.rank - 1, elem.dims + 1};
            st = fl__core_refine_shape(c, &rest, &tail);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    fl_shape s;
    st = fl__core_prepend_dim(c, fl_sym_unknown(), &rest, &s);
    if (st == FL_OK) {
        st = fl__core_set_shape(c, n, 0, dt, &s);
    }
    if (st == FL_OK) {
        st = fl__op_set_output_rank(c, n, 1, FL_DT_INT64, 1);
    }
    fl__core_put_value(n, 0, NULL);
    fl__core_put_value(n, 1, NULL);
    return st;
}

/* Hook sets and descriptors (their rows: core/tensor_array.def). */
#define HOOKS_tensor_array .infer = infer_tensor_array, .cost = fl__op_cost_zero
#define HOOKS_ta_read      .infer = infer_ta_read, .cost = fl__op_cost_zero
#define HOOKS_ta_flow      .infer = infer_ta_flow, .cost = fl__op_cost_zero
#define HOOKS_ta_gather    .infer = infer_ta_gather, .cost = fl__op_cost_zero
#define HOOKS_ta_size      .infer = infer_ta_size, .cost = fl__op_cost_zero
#define HOOKS_ta_close     .infer = infer_ta_close, .cost = fl__op_cost_zero
#define HOOKS_ta_concat    .infer = infer_ta_concat, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/core/tensor_array.def"
#undef FL_OP
