/*
 * common.c - functions shared by the core family's files (core.h): shapes
 * from attr literals and shape-vector inputs, merging the shapes seen on
 * several inputs or writes, and following a handle back to the op that
 * made it.
 */
#include "ops/core/core.h"

#include <limits.h>
#include <string.h>

/* Bound on the steps taken when following a handle back to its origin. */
#define TRACE_MAX_STEPS 4096
/* Ranks larger than this, read from a tensor's value, are treated as unknown. */
#define MAX_VALUE_RANK 4096

/* An arena array of `rank` unknown dims (at least one slot). */
static fl_status alloc_dims(fl_ctx *c, int rank, fl_sym **out) {
    fl_sym *d = fl__arena_calloc(c->a, rank > 0 ? (size_t)rank : 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < rank; i++) {
        d[i] = fl_sym_unknown();
    }
    *out = d;
    return FL_OK;
}

/* A shape literal (-1 dims unknown) as an arena shape. `what` names the attr
 * for the message about other negative dims. */
fl_status fl__core_shape_from_lit(fl_ctx *c, const fl_node *n, const fl_shape_lit *lit,
                                  const char *what, fl_shape *out) {
    out->rank = -1;
    out->dims = NULL;
    if (!lit || lit->rank < 0) {
        return FL_OK;
    }
    fl_sym *d = NULL;
    fl_status st = alloc_dims(c, lit->rank, &d);
    if (st != FL_OK) {
        return st;
    }
    for (int i = 0; i < lit->rank; i++) {
        int64_t v = lit->dims ? lit->dims[i] : -1;
        if (v >= 0) {
            d[i] = fl_sym_const(v);
        } else if (v != -1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "%s has invalid dim %lld at axis %d", what,
                                 (long long)v, i);
        }
    }
    out->rank = lit->rank;
    out->dims = d;
    return FL_OK;
}

/* The dtype attr T stands in for an input dtype that is not known (its
 * producer is an op foldline does not know): attr T of a single type, or
 * entry `index` of a list(type) T (IdentityN). Read leniently, since it only
 * fills a gap; FL_DT_INVALID when absent. */
int fl__core_dtype_from_t(const fl_node *n, int index) {
    const fl_attr *a = fl__node_attr(n, "T");
    if (!a) {
        return FL_DT_INVALID;
    }
    if (a->kind == FL_ATTR_TYPE && fl__dtype_valid(a->v.type)) {
        return a->v.type;
    }
    if (a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_TYPE && index >= 0 &&
        (size_t)index < a->n && fl__dtype_valid(a->v.list.type[index])) {
        return a->v.list.type[index];
    }
    return FL_DT_INVALID;
}

/* Refines `base` with what `more` knows: an unknown rank takes `more`
 * entirely; with equal ranks, unknown dims take `more`'s dims. Both shapes'
 * dims must be arena arrays; base's is written. */
fl_status fl__core_refine_shape(fl_ctx *c, fl_shape *base, const fl_shape *more) {
    if (more->rank < 0) {
        return FL_OK;
    }
    if (base->rank < 0) {
        fl_sym *d = NULL;
        fl_status st = alloc_dims(c, more->rank, &d);
        if (st != FL_OK) {
            return st;
        }
        for (int i = 0; i < more->rank; i++) {
            d[i] = more->dims[i];
        }
        base->rank = more->rank;
        base->dims = d;
        return FL_OK;
    }
    if (base->rank == more->rank) {
        for (int i = 0; i < base->rank; i++) {
            if (fl_sym_is_unknown(base->dims[i])) {
                base->dims[i] = more->dims[i];
            }
        }
    }
    return FL_OK;
}

/* Merges one more observation of a shape into `acc` (acc->rank == -2: none
 * yet): dims that agree stay, others become unknown; different ranks give
 * unknown rank. `lead_unknown` replaces the first of `dims` by unknown. */
fl_status fl__core_merge_shape(fl_ctx *c, fl_shape *acc, int rank, const fl_sym *dims,
                               bool lead_unknown) {
    if (acc->rank == -2) {
        acc->rank = rank;
        acc->dims = NULL;
        if (rank >= 0) {
            fl_status st = alloc_dims(c, rank, &acc->dims);
            if (st != FL_OK) {
                return st;
            }
            for (int i = 0; i < rank; i++) {
                acc->dims[i] = (lead_unknown && i == 0) ? fl_sym_unknown() : dims[i];
            }
        }
        return FL_OK;
    }
    if (acc->rank < 0) {
        return FL_OK;
    }
    if (rank != acc->rank) {
        acc->rank = -1;
        acc->dims = NULL;
        return FL_OK;
    }
    for (int i = 0; i < rank; i++) {
        fl_sym d = (lead_unknown && i == 0) ? fl_sym_unknown() : dims[i];
        if (!fl__sym_eq(acc->dims[i], d)) {
            acc->dims[i] = fl_sym_unknown();
        }
    }
    return FL_OK;
}

/* [lead] + s, or unknown rank when s has unknown rank. */
fl_status fl__core_prepend_dim(fl_ctx *c, fl_sym lead, const fl_shape *s, fl_shape *out) {
    out->rank = -1;
    out->dims = NULL;
    if (s->rank < 0) {
        return FL_OK;
    }
    if (s->rank >= INT_MAX - 1) {
        return FL_OK;
    }
    fl_sym *d = NULL;
    fl_status st = alloc_dims(c, s->rank + 1, &d);
    if (st != FL_OK) {
        return st;
    }
    d[0] = lead;
    for (int i = 0; i < s->rank; i++) {
        d[i + 1] = s->dims[i];
    }
    out->rank = s->rank + 1;
    out->dims = d;
    return FL_OK;
}

/*
 * A shape given as the value of input i (a shape vector: -1 entries are
 * unknown dims; with scalar_unknown a scalar -1 is an unknown rank). Without a
 * value, a vector input of known length gives that rank with unknown dims.
 * `what` names the input for messages.
 */
fl_status fl__core_shape_from_input(fl_ctx *c, const fl_node *n, int i, bool scalar_unknown,
                                    const char *what, fl_shape *out) {
    out->rank = -1;
    out->dims = NULL;
    if (i >= n->n_inputs) {
        return FL_OK;
    }
    const fl_tensor *t = fl_node_in(n, i);
    const fl_value *v = t->value;
    if (v && v->ints) {
        if (v->rank == 0) {
            if (!scalar_unknown) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input '%s' must be a vector, got a scalar", what);
            }
            return FL_OK; /* -1 (or anything else TensorFlow rejects at run time) */
        }
        if (v->rank != 1 || v->n > MAX_VALUE_RANK) {
            return FL_OK;
        }
        fl_sym *d = NULL;
        fl_status st = alloc_dims(c, (int)v->n, &d);
        if (st != FL_OK) {
            return st;
        }
        for (int64_t k = 0; k < v->n; k++) {
            fl_sym s = v->ints[k];
            if (fl_sym_is_known(s) && s.k < 0) {
                if (s.k != -1) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "input '%s' holds invalid dim %lld at index %lld", what,
                                         (long long)s.k, (long long)k);
                }
                s = fl_sym_unknown();
            }
            d[k] = s;
        }
        out->rank = (int)v->n;
        out->dims = d;
        return FL_OK;
    }
    if (t->shape.rank == 1 && fl_sym_is_known(t->shape.dims[0]) &&
        t->shape.dims[0].k <= MAX_VALUE_RANK) {
        int r = (int)t->shape.dims[0].k;
        fl_status st = alloc_dims(c, r, &out->dims);
        if (st != FL_OK) {
            return st;
        }
        out->rank = r;
    }
    return FL_OK;
}

/* Ops through which a handle (TensorArray, TensorList, resource) flows
 * unchanged. */
static bool forwards_handle(int kind) {
    switch (kind) {
    case FL_OP_IDENTITY:
    case FL_OP_SNAPSHOT:
    case FL_OP_ENTER:
    case FL_OP_REF_ENTER:
    case FL_OP_EXIT:
    case FL_OP_REF_EXIT:
    case FL_OP_NEXT_ITERATION:
    case FL_OP_REF_NEXT_ITERATION:
    case FL_OP_SWITCH:
    case FL_OP_REF_SWITCH:
    case FL_OP_MERGE:
    case FL_OP_REF_MERGE:
    case FL_OP_IDENTITY_N:
    case FL_OP_TENSOR_LIST_SET_ITEM:
        return true;
    default:
        return false;
    }
}

/* The node that produced the handle read by input `in` of n, following
 * forwarding ops back (a Merge through its first input that is not a
 * NextIteration). *port_out = the output port of that node. NULL when the
 * chain is broken or too long. */
const fl_node *fl__core_trace_source(const fl_node *n, int in, int *port_out) {
    if (in >= n->n_inputs) {
        return NULL;
    }
    const fl_node *p = n->inputs[in].node;
    int port = n->inputs[in].port;
    for (int steps = 0; p && steps < TRACE_MAX_STEPS; steps++) {
        if (!forwards_handle(p->kind)) {
            *port_out = port;
            return p;
        }
        int next = 0;
        if (p->kind == FL_OP_IDENTITY_N) {
            next = port;
        } else if (p->kind == FL_OP_MERGE || p->kind == FL_OP_REF_MERGE) {
            next = -1;
            for (int i = 0; i < p->n_inputs; i++) {
                int k = p->inputs[i].node->kind;
                if (k != FL_OP_NEXT_ITERATION && k != FL_OP_REF_NEXT_ITERATION) {
                    next = i;
                    break;
                }
            }
        }
        if (next < 0 || next >= p->n_inputs) {
            return NULL;
        }
        port = p->inputs[next].port;
        p = p->inputs[next].node;
    }
    return NULL;
}

fl_status fl__count_value(fl_ctx *c, const fl_node *n, int in, fl_sym *out) {
    *out = fl_sym_unknown();
    if (in < 0 || in >= n->n_inputs) {
        return FL_OK;
    }
    const fl_value *v = fl_op_in_value(n, in);
    if (v) {
        if (v->n == 1 && v->ints) {
            *out = v->ints[0];
        }
        return FL_OK;
    }
    const fl_node *p = n->inputs[in].node;
    int port = n->inputs[in].port;
    for (int i = 0; i < 64 && p->kind == FL_OP_IDENTITY && port == 0 && p->n_inputs == 1; i++) {
        port = p->inputs[0].port;
        p = p->inputs[0].node;
    }
    if (p->kind != FL_OP_PLACEHOLDER || port != 0 || p->n_outputs < 1) {
        return FL_OK;
    }
    const fl_tensor *t = &p->outputs[0];
    if (t->value || t->shape.rank != 0 || (t->dtype != FL_DT_INT32 && t->dtype != FL_DT_INT64)) {
        return FL_OK;
    }
    return fl__sym_var(c->st, p->name, out) == FL_OK ? FL_OK : fl__diag_oom(c->d);
}
