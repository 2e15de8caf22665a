/*
 * scatter.c - sparse variable updates (core family): Scatter* and
 * ResourceScatter* (Add, Sub, Mul, Div, Max, Min, Update), ScatterNd* and
 * ResourceScatterNd* (Add, Sub, Max, Min, Update).
 *
 * Shapes
 *  - ScatterAdd/Sub/Mul/Div/Max/Min/Update: output_ref is the ref input
 *    (dtype and shape). ResourceScatter* of the same names: no outputs (attr
 *    dtype required; a VarHandleOp found as for ReadVariableOp must hold that
 *    dtype). Both check TensorFlow's ScatterUpdateShape: the variable has
 *    rank >= 1; updates are a scalar or indices.shape + var.shape[1:].
 *    Stateful, never evaluated.
 *  - ScatterNdAdd/Sub/Max/Min/Update: output_ref is the ref input.
 *    ResourceScatterNd* of the same names: no outputs (attr T required, not
 *    compared with the variable's dtype; the variable's shape found as for
 *    ReadVariableOp). Both check TensorFlow's ScatterNdUpdateShape: indices
 *    and updates of rank >= 1, nothing updated in a variable of 0 elements,
 *    and with K = indices.shape[-1] known, updates.shape = indices.shape[:-1]
 *    + var.shape[K:]. (TensorFlow registers no ScatterNdMul/Div, though
 *    Grappler's RemoveRedundantVariableUpdates lists them.) Stateful, never
 *    evaluated.
 *
 * FLOP rules ("complete" convention; no MACs; tfprof has no rule: 0,
 * tfprof_rule false):
 *  - Scatter*, ResourceScatter*: E(indices) * prod(var.shape[1:])
 *    (Grappler's PredictScatter for the ref forms; the resource forms, not
 *    in its table, do the same work).
 *  - ScatterNd*, ResourceScatterNd*: E(updates), one op per updated element
 *    as for Scatter* (E(indices) * prod(var.shape[1:]) is E(updates) there);
 *    Grappler has no rule either.
 */
#include "ops/core/core.h"

#include <stdint.h>
#include <stdio.h>

/* TensorFlow's ScatterUpdateShape / ResourceScatterUpdateShape checks on the
 * variable's shape `var` (the ref input, or the VarHandleOp's shape attr):
 * rank >= 1 when known (Subshape(var, 1)); updates, unless a scalar, merge
 * with indices.shape + var.shape[1:]. Unknown ranks pass. */
static fl_status check_scatter(fl_ctx *c, const fl_node *n, const fl_shape *var) {
    if (var->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "the variable updated must have rank >= 1, got a scalar");
    }
    const fl_shape *idx = &fl_node_in(n, 1)->shape, *upd = &fl_node_in(n, 2)->shape;
    if (upd->rank <= 0 || idx->rank < 0 || var->rank < 0) {
        return FL_OK;
    }
    int want = idx->rank + var->rank - 1;
    if (upd->rank != want) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'updates' has rank %d, expected 0 or %d "
                             "(indices.shape + var.shape[1:])",
                             upd->rank, want);
    }
    for (int i = 0; i < want; i++) {
        fl_sym e = i < idx->rank ? idx->dims[i] : var->dims[i - idx->rank + 1];
        fl_sym m;
        char what[96];
        snprintf(what, sizeof what, "dim %d of 'updates' and of indices.shape + var.shape[1:]", i);
        fl_status st = fl__op_merge_dim(c, n, upd->dims[i], e, what, &m);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* Scatter*: output_ref is the ref input (same dtype and shape). */
static fl_status infer_scatter(fl_ctx *c, fl_node *n) {
    const fl_tensor *ref = fl_node_in(n, 0);
    fl_status st = check_scatter(c, n, &ref->shape);
    if (st != FL_OK) {
        return st;
    }
    int dt = ref->dtype;
    if (dt == FL_DT_INVALID && fl__core_dtype_from_t(n, 0) != FL_DT_INVALID) {
        dt = (int)fl_dtype_base(fl__core_dtype_from_t(n, 0)) + FL_DT_REF_OFFSET;
    }
    return fl__op_set_output(c, n, 0, dt, ref->shape.rank, ref->shape.dims);
}

/* The shape of the variable a resource handle input reads: the VarHandleOp's
 * attr shape, found as ReadVariableOp finds it; unknown otherwise. A
 * VarHandleOp holding another dtype than attr `dtype` fails, as
 * ValidateVariableResourceHandle does (dt FL_DT_INVALID: no dtype check). */
static fl_status resource_var_shape(fl_ctx *c, const fl_node *n, int dt, fl_shape *s) {
    s->rank = -1;
    s->dims = NULL;
    int port = 0;
    const fl_node *src = fl__core_trace_source(n, 0, &port);
    if (!src || src->kind != FL_OP_VAR_HANDLE_OP) {
        return FL_OK;
    }
    const fl_attr *t = fl__node_attr(src, "dtype");
    if (dt != FL_DT_INVALID && t && t->kind == FL_ATTR_TYPE &&
        fl_dtype_base(t->v.type) != fl_dtype_base(dt)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'dtype' is %s but variable '%s' holds %s",
                             fl__dtype_name(dt), src->name, fl__dtype_name(t->v.type));
    }
    const fl_attr *a = fl__node_attr(src, "shape");
    if (a && a->kind == FL_ATTR_SHAPE) {
        return fl__core_shape_from_lit(c, src, &a->v.shape, "attr 'shape'", s);
    }
    return FL_OK;
}

/* ResourceScatter*: no outputs; attr dtype required. */
static fl_status infer_resource_scatter(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape var;
    if ((st = resource_var_shape(c, n, dt, &var)) != FL_OK) {
        return st;
    }
    return check_scatter(c, n, &var);
}

/* E(indices) * prod(var.shape[1:]) (Grappler's PredictScatter); tfprof has
 * no rule. */
static fl_status cost_scatter_on(fl_ctx *c, const fl_node *n, const fl_shape *var, fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_mul(&k, fl__ar_numel(&k, &fl_node_in(n, 1)->shape),
                          fl__ar_dims_prod(&k, var, 1, var->rank));
    return fl__ar_put_cost(&k, out, e, fl_sym_const(0));
}

static fl_status cost_scatter(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_scatter_on(c, n, &fl_node_in(n, 0)->shape, out);
}

static fl_status cost_resource_scatter(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    fl_shape var;
    if (st != FL_OK || (st = resource_var_shape(c, n, dt, &var)) != FL_OK) {
        return st;
    }
    return cost_scatter_on(c, n, &var, out);
}

/* Known element count of s, or -1 when some dim (or the rank) is not known. */
static int64_t known_elems(const fl_shape *s) {
    if (s->rank < 0) {
        return -1;
    }
    int64_t e = 1;
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i])) {
            return -1;
        }
        e = e > 0 && s->dims[i].k > INT64_MAX / e ? INT64_MAX : e * s->dims[i].k;
    }
    return e;
}

/* TensorFlow's ScatterNdUpdateShape on the variable's shape `var` (the ref
 * input, or the VarHandleOp's shape attr): indices and updates have rank
 * >= 1; a variable of known 0 elements takes no indices or updates of known
 * > 0 elements; when both ranks and K = indices.shape[-1] are known,
 * updates.shape is indices.shape[:-1] + var.shape[K:] (K past var's rank
 * gives an empty suffix, as TensorFlow's Subshape clamps; an unknown var
 * checks the prefix only). Unknown dims merge. *upd gets the updates shape
 * merged with the expected one (arena dims), for the cost. */
static fl_status check_scatter_nd(fl_ctx *c, const fl_node *n, const fl_shape *var,
                                  fl_shape *upd_out) {
    const fl_shape *idx = &fl_node_in(n, 1)->shape, *upd = &fl_node_in(n, 2)->shape;
    *upd_out = *upd;
    if (idx->rank == 0 || upd->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must have rank >= 1, got a scalar",
                             idx->rank == 0 ? "indices" : "updates");
    }
    int64_t ev = known_elems(var), ei = known_elems(idx), eu = known_elems(upd);
    if (ev == 0 && (ei > 0 || eu > 0)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "indices and updates given for a variable of 0 elements");
    }
    if (idx->rank < 0 || upd->rank < 0 || !fl_sym_is_known(idx->dims[idx->rank - 1])) {
        return FL_OK;
    }
    int outer = idx->rank - 1;
    int64_t k = idx->dims[idx->rank - 1].k;
    int from = var->rank < 0 ? 0 : (k < var->rank ? (int)k : var->rank);
    int want = var->rank < 0 ? -1 : outer + var->rank - from;
    if (upd->rank < outer || (want >= 0 && upd->rank != want)) {
        if (want < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'updates' has rank %d, expected at least %d "
                                 "(indices.shape[:-1] + var.shape[K:], K = %lld)",
                                 upd->rank, outer, (long long)k);
        }
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'updates' has rank %d, expected %d "
                             "(indices.shape[:-1] + var.shape[K:], K = %lld)",
                             upd->rank, want, (long long)k);
    }
    fl_sym *dims = fl__arena_calloc(c->a, (size_t)upd->rank + 1, sizeof(fl_sym));
    if (!dims) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < upd->rank; i++) {
        dims[i] = upd->dims[i];
        if (i >= outer && want < 0) {
            continue; /* the suffix of an unknown variable */
        }
        fl_sym e = i < outer ? idx->dims[i] : var->dims[from + i - outer];
        char what[112];
        snprintf(what, sizeof what,
                 "dim %d of 'updates' and of indices.shape[:-1] + var.shape[K:] (K = %lld)", i,
                 (long long)k);
        fl_status st = fl__op_merge_dim(c, n, upd->dims[i], e, what, &dims[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    upd_out->dims = dims;
    return FL_OK;
}

/* ScatterNd*: output_ref is the ref input (same dtype and shape). */
static fl_status infer_scatter_nd(fl_ctx *c, fl_node *n) {
    const fl_tensor *ref = fl_node_in(n, 0);
    fl_shape upd;
    fl_status st = check_scatter_nd(c, n, &ref->shape, &upd);
    if (st != FL_OK) {
        return st;
    }
    int dt = ref->dtype;
    if (dt == FL_DT_INVALID && fl__core_dtype_from_t(n, 0) != FL_DT_INVALID) {
        dt = (int)fl_dtype_base(fl__core_dtype_from_t(n, 0)) + FL_DT_REF_OFFSET;
    }
    return fl__op_set_output(c, n, 0, dt, ref->shape.rank, ref->shape.dims);
}

/* ResourceScatterNd*: no outputs; attr T required (the op's value type;
 * ScatterNdUpdateShape does not compare it with the variable's). */
static fl_status resource_scatter_nd_var(fl_ctx *c, const fl_node *n, fl_shape *var) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "T", &dt, c->d);
    return st != FL_OK ? st : resource_var_shape(c, n, FL_DT_INVALID, var);
}

static fl_status infer_resource_scatter_nd(fl_ctx *c, fl_node *n) {
    fl_shape var, upd;
    fl_status st = resource_scatter_nd_var(c, n, &var);
    return st != FL_OK ? st : check_scatter_nd(c, n, &var, &upd);
}

/* E(updates), one op per updated element as for Scatter* (Grappler's
 * OpLevelCostEstimator and tfprof have no ScatterNd rule), on the updates
 * shape merged with indices.shape[:-1] + var.shape[K:]. */
static fl_status cost_scatter_nd_on(fl_ctx *c, const fl_node *n, const fl_shape *var,
                                    fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    fl_shape upd;
    fl_status st = check_scatter_nd(c, n, var, &upd);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl__ar_numel(&k, &upd), fl_sym_const(0));
}

static fl_status cost_scatter_nd(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_scatter_nd_on(c, n, &fl_node_in(n, 0)->shape, out);
}

static fl_status cost_resource_scatter_nd(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_shape var;
    fl_status st = resource_scatter_nd_var(c, n, &var);
    return st != FL_OK ? st : cost_scatter_nd_on(c, n, &var, out);
}

/* Hook sets and descriptors (their rows: core/scatter.def). */
#define HOOKS_scatter          .infer = infer_scatter, .cost = cost_scatter
#define HOOKS_resource_scatter .infer = infer_resource_scatter, .cost = cost_resource_scatter
#define HOOKS_scatter_nd       .infer = infer_scatter_nd, .cost = cost_scatter_nd
#define HOOKS_resource_scatter_nd                                                                  \
    .infer = infer_resource_scatter_nd, .cost = cost_resource_scatter_nd

#define FL_OP FL_OP_DESC
#include "ops/core/scatter.def"
#undef FL_OP
