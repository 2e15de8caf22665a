/*
 * variables.c - variables and their updates (core family): VariableV2,
 * VarHandleOp, ReadVariableOp, AssignAdd, AssignSub, AssignAddVariableOp,
 * AssignSubVariableOp.
 *
 * Shapes
 *  - VariableV2: dtype_ref of attr shape. VarHandleOp: resource scalar.
 *    ReadVariableOp: attr dtype, shape from the VarHandleOp it reads.
 *  - AssignAdd, AssignSub: output_ref is the ref input (dtype and shape).
 *  - AssignAddVariableOp, AssignSubVariableOp: no outputs (attr dtype
 *    required).
 *
 * FLOP rules ("complete" convention; no MACs):
 *  - VariableV2, VarHandleOp, ReadVariableOp: 0 FLOPs with has_rule true;
 *    tfprof has no rule (0, tfprof_rule false).
 *  - AssignAdd, AssignSub: E(ref) in both conventions (tfprof registers
 *    them). AssignAddVariableOp, AssignSubVariableOp: E(value) complete
 *    (one add or subtract per element, Grappler's OpLevelCostEstimator
 *    count); tfprof registers neither (0, tfprof_rule false).
 */
#include "ops/core/core.h"

static fl_status infer_variable_v2(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr 'shape' (shape)");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_shape s;
    st = fl__core_shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    /* A VariableV2 outputs a reference to its buffer. */
    return fl__core_set_shape(c, n, 0, fl_dtype_base(dt) + FL_DT_REF_OFFSET, &s);
}

static fl_status infer_var_handle(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    return fl__core_set_scalar(c, n, 0, FL_DT_RESOURCE);
}

static fl_status infer_read_variable(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape s = {-1, NULL};
    int port = 0;
    const fl_node *src = fl__core_trace_source(n, 0, &port);
    if (src && src->kind == FL_OP_VAR_HANDLE_OP) {
        const fl_attr *a = fl__node_attr(src, "shape");
        if (a && a->kind == FL_ATTR_SHAPE) {
            st = fl__core_shape_from_lit(c, src, &a->v.shape, "attr 'shape'", &s);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &s);
}

static fl_status infer_assign_update(fl_ctx *c, fl_node *n) {
    const fl_tensor *ref = fl_node_in(n, 0);
    return fl__op_set_output(c, n, 0, ref->dtype, ref->shape.rank, ref->shape.dims);
}

/* One add or subtract per element of input `in`; with tfprof, tfprof counts
 * the same. */
static fl_status cost_update_of(fl_ctx *c, const fl_node *n, int in, bool tfprof, fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, &fl_node_in(n, in)->shape, &e);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(e)) {
        out->incomplete = true;
        return FL_OK;
    }
    out->flops = e;
    if (tfprof) {
        out->tfprof_flops = e;
        out->tfprof_rule = true;
    }
    return FL_OK;
}

/* One add or subtract per element of the ref, in both conventions. */
static fl_status cost_assign_update(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_update_of(c, n, 0, true, out);
}

static fl_status infer_resource_update(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    return fl__attr_need_type(n, "dtype", &dt, c->d);
}

/* One add or subtract per element of the value; tfprof has no rule. */
static fl_status cost_resource_update(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_update_of(c, n, 1, false, out);
}

/* Hook sets and descriptors (their rows: core/variables.def). */
#define HOOKS_variable_v2     .infer = infer_variable_v2, .cost = fl__op_cost_zero
#define HOOKS_var_handle      .infer = infer_var_handle, .cost = fl__op_cost_zero
#define HOOKS_read_variable   .infer = infer_read_variable, .cost = fl__op_cost_zero
#define HOOKS_assign_update   .infer = infer_assign_update, .cost = cost_assign_update
#define HOOKS_resource_update .infer = infer_resource_update, .cost = cost_resource_update

#define FL_OP FL_OP_DESC
#include "ops/core/variables.def"
#undef FL_OP
