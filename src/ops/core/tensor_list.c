/*
 * tensor_list.c - TensorList ops (core family).
 *
 * Shapes
 *  - TensorList ops: handles are variant scalars. GetItem/Stack: element
 *    shape from their element_shape input value (-1 entries unknown, a scalar
 *    -1 unknown rank), refined by the list's origin (TensorListReserve's
 *    element_shape input, TensorListFromTensor's tensor shape[1:]) found by
 *    following the handle back as TensorArray ops do (and through
 *    TensorListSetItem). Dims still unknown for a reserved list come from the
 *    items stored by TensorListSetItem, where those agree (as for TensorArray
 *    writes). Stack: [num_elements attr, else the origin's count] + element
 *    shape. Length: int32 scalar. ElementShape: [rank] of attr shape_type,
 *    with the value when the element shape is known.
 *
 * FLOP rules ("complete" convention): 0 FLOPs with has_rule true (they move
 * tensors; 0 is the real count); tfprof registers none of them (0,
 * tfprof_rule false). No MACs.
 */
#include "ops/core/core.h"

/* Optional type attr: FL_OK with *out untouched when absent. */
static fl_status type_attr_opt(fl_ctx *c, const fl_node *n, const char *name, int *out) {
    int t;
    fl_status st = fl__attr_get_type(n, name, &t, c->d);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st == FL_OK) {
        *out = t;
    }
    return st;
}

/* Refines `elem`, the element shape of the list reserved by `origin`, with
 * the items already stored into it by TensorListSetItem (a scan of the
 * graph, as for TensorArray writes), where those agree. */
static fl_status list_written_shape(fl_ctx *c, const fl_node *origin, fl_shape *elem) {
    fl_shape w = {-2, NULL};
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *m = c->g->nodes[i];
        if (m->kind != FL_OP_TENSOR_LIST_SET_ITEM || m->n_inputs < 3) {
            continue;
        }
        int port = 0;
        if (fl__core_trace_source(m, 0, &port) != origin || port != 0) {
            continue;
        }
        const fl_tensor *item = fl_node_in(m, 2);
        if (fl__core_not_inferred(item)) {
            continue;
        }
        fl_status st = fl__core_merge_shape(c, &w, item->shape.rank, item->shape.dims, false);
        if (st != FL_OK) {
            return st;
        }
    }
    return w.rank >= 0 ? fl__core_refine_shape(c, elem, &w) : FL_OK;
}

static fl_status list_info(fl_ctx *c, const fl_node *n, int in, fl_shape *elem, fl_sym *count) {
    elem->rank = -1;
    elem->dims = NULL;
    *count = fl_sym_unknown();
    int port = 0;
    const fl_node *src = fl__core_trace_source(n, in, &port);
    if (!src || port != 0) {
        return FL_OK;
    }
    if (src->kind == FL_OP_TENSOR_LIST_RESERVE && src->n_inputs >= 2) {
        fl_status st = fl__core_shape_from_input(c, src, 0, true, "element_shape", elem);
        if (st != FL_OK) {
            return st;
        }
        const fl_value *nv = fl_op_in_value(src, 1);
        if (nv && nv->ints && nv->n == 1) {
            fl_sym k = nv->ints[0];
            if (!fl_sym_is_known(k) || k.k >= 0) {
                *count = k;
            }
        }
        if (!fl__shape_is_determined(elem)) {
            return list_written_shape(c, src, elem);
        }
    } else if (src->kind == FL_OP_TENSOR_LIST_FROM_TENSOR && src->n_inputs >= 1) {
        const fl_tensor *t = fl_node_in(src, 0);
        if (t->shape.rank >= 1) {
            *count = t->shape.dims[0];
            fl_shape tail = {t->shape.rank - 1, t->shape.dims + 1};
            return fl__core_refine_shape(c, elem, &tail);
        }
    }
    return FL_OK;
}

/* Element shape of a list op: its element_shape input, refined by the
 * list's origin. */
static fl_status list_elem_shape(fl_ctx *c, const fl_node *n, int shape_in, fl_shape *elem,
                                 fl_sym *count) {
    fl_status st = fl__core_shape_from_input(c, n, shape_in, true, "element_shape", elem);
    if (st != FL_OK) {
        return st;
    }
    fl_shape more;
    st = list_info(c, n, 0, &more, count);
    if (st == FL_OK) {
        st = fl__core_refine_shape(c, elem, &more);
    }
    return st;
}

/* Reserve, FromTensor, SetItem: a new list handle. */
static fl_status infer_list_handle(fl_ctx *c, fl_node *n) {
    return fl__core_set_scalar(c, n, 0, FL_DT_VARIANT);
}

static fl_status infer_list_get_item(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "element_dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape elem;
    fl_sym count;
    st = list_elem_shape(c, n, 2, &elem, &count);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &elem);
}

static fl_status infer_list_stack(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "element_dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    int64_t num;
    st = fl__attr_int_or(n, "num_elements", -1, &num, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape elem;
    fl_sym count;
    st = list_elem_shape(c, n, 1, &elem, &count);
    if (st != FL_OK) {
        return st;
    }
    if (num >= 0) {
        count = fl_sym_const(num);
    }
    fl_shape s;
    st = fl__core_prepend_dim(c, count, &elem, &s);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &s);
}

static fl_status infer_list_length(fl_ctx *c, fl_node *n) {
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_scalar(c, n, 0, FL_DT_INT32);
}

static fl_status infer_list_element_shape(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INT32;
    fl_status st = type_attr_opt(c, n, "shape_type", &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape elem;
    fl_sym count;
    st = list_info(c, n, 0, &elem, &count);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    if (elem.rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym r = fl_sym_const(elem.rank);
    st = fl__op_set_output(c, n, 0, dt, 1, &r);
    if (st != FL_OK || !fl__shape_is_determined(&elem)) {
        return st;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->d->status == FL_OK ? FL_OK : c->d->status;
    }
    if (v->ints) {
        for (int i = 0; i < elem.rank; i++) {
            ((fl_sym *)v->ints)[i] = elem.dims[i];
        }
        fl__op_set_value(n, 0, v);
    }
    return FL_OK;
}

/* Hook sets and descriptors (their rows: core/tensor_list.def). */
#define HOOKS_list_handle        .infer = infer_list_handle, .cost = fl__op_cost_zero
#define HOOKS_list_get_item      .infer = infer_list_get_item, .cost = fl__op_cost_zero
#define HOOKS_list_stack         .infer = infer_list_stack, .cost = fl__op_cost_zero
#define HOOKS_list_length        .infer = infer_list_length, .cost = fl__op_cost_zero
#define HOOKS_list_element_shape .infer = infer_list_element_shape, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/core/tensor_list.def"
#undef FL_OP
