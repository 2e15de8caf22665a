/*
 * core.c - the "core" op family: constants and placeholders, identity-like
 * ops, v1 control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond
 * and their Ref forms), functional control flow and function calls (While,
 * If, PartitionedCall and their Stateless/Stateful forms), TensorArray (V3)
 * and TensorList ops, random generators and variables.
 *
 * Shapes
 *  - Const: dtype from attr "dtype", shape and value from attr "value". No
 *    value when the content was stripped from the file, is a string, or was
 *    too large to decode.
 *  - Placeholder: an output the driver has already bound (from the caller's
 *    input shapes) is kept. Otherwise attr "shape", where every -1 dim becomes
 *    the symbol "<node name>.<axis>" ("x.0" for the batch of placeholder x);
 *    an unknown rank stays unknown. TensorFlow's legacy rule applies: with
 *    GraphDef producer <= 21 a scalar shape attr means "unknown shape".
 *  - PlaceholderWithDefault: the default input's shape, with the dims that
 *    attr "shape" fixes taken from the attr. No value (it can be fed).
 *  - Identity, Snapshot, StopGradient, PreventGradient, IdentityN, Enter,
 *    Exit, NextIteration, Switch (both outputs), LoopCond (bool scalar): the
 *    input's dtype (without _ref, except for the Ref* forms), shape and value.
 *  - Merge: the inputs inferred so far (a loop's NextIteration input is not
 *    inferred on the first visit) merged dim by dim: dims that agree are kept,
 *    others are unknown, different ranks give unknown rank. The driver visits
 *    the loop again when the back edge changes. A value only when every input
 *    is inferred and all values are equal. value_index: int32 scalar.
 *  - While/StatelessWhile: dtypes from attr T; shapes from attr
 *    output_shapes when it is non-empty, else the input shapes (TensorFlow's
 *    rule). If/StatelessIf: attr Tout; attr output_shapes (else
 *    _output_shapes), else unknown. PartitionedCall/StatefulPartitionedCall:
 *    attr Tout; shapes from _output_shapes when present, else unknown.
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
 *  - TensorList ops: handles are variant scalars. GetItem/Stack: element
 *    shape from their element_shape input value (-1 entries unknown, a scalar
 *    -1 unknown rank), refined by the list's origin (TensorListReserve's
 *    element_shape input, TensorListFromTensor's tensor shape[1:]) found by
 *    following the handle back as above (and through TensorListSetItem).
 *    Dims still unknown for a reserved list come from the items stored by
 *    TensorListSetItem, where those agree (as for TensorArray writes).
 *    Stack: [num_elements attr, else the origin's count] + element shape.
 *    Length: int32 scalar. ElementShape: [rank] of attr shape_type, with the
 *    value when the element shape is known.
 *  - Random*: shape from the value of the shape input (symbols carried),
 *    dtype from attr dtype (RandomUniformInt: Tout). RandomShuffle: its
 *    input's dtype and shape (it permutes dim 0), never a value.
 *  - Case: as If (attr Tout; output_shapes, else _output_shapes).
 *  - VariableV2: dtype_ref of attr shape. VarHandleOp: resource scalar.
 *    ReadVariableOp: attr dtype, shape from the VarHandleOp it reads.
 *    AssignAddVariableOp, AssignSubVariableOp: no outputs (attr dtype
 *    required).
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
 * FLOP rules ("complete" convention). tfprof registers none of these ops
 * except AssignAdd/AssignSub: tfprof_flops is otherwise 0 and tfprof_rule
 * false. No op here has MACs.
 *  - Const, Placeholder, PlaceholderWithDefault, identity-like ops, NoOp, v1
 *    control flow, TensorArray and TensorList ops, variables: 0 FLOPs with
 *    has_rule true. They create, forward or move tensors; 0 is the real
 *    count, not a missing one.
 *  - RandomUniform, RandomUniformInt, RandomStandardNormal, TruncatedNormal:
 *    1 FLOP per output element (one generator step per element counted as one
 *    arithmetic op, as transcendental ops are), has_rule true.
 *  - RandomShuffle: 0 FLOPs, has_rule true: it moves rows (data movement, as
 *    Gather and Transpose); its generator draws are not counted.
 *  - AssignAdd, AssignSub: E(ref) in both conventions (tfprof registers
 *    them). AssignAddVariableOp, AssignSubVariableOp: E(value) complete
 *    (one add or subtract per element, Grappler's OpLevelCostEstimator
 *    count); tfprof registers neither (0, tfprof_rule false).
 *  - Scatter*, ResourceScatter*: E(indices) * prod(var.shape[1:]) complete
 *    (Grappler's PredictScatter for the ref forms; the resource forms, not
 *    in its table, do the same work); tfprof has no rule.
 *  - ScatterNd*, ResourceScatterNd*: E(updates) complete, one op per
 *    updated element as for Scatter* (E(indices) * prod(var.shape[1:]) is
 *    E(updates) there); neither Grappler nor tfprof has a rule.
 *  - While, StatelessWhile, If, StatelessIf, Case, PartitionedCall,
 *    StatefulPartitionedCall: no rule (NULL cost, has_rule false). Their work
 *    is in function-library bodies, which foldline does not cost per call
 *    and tfprof does not visit either (tensorflow/tensorflow#58829).
 */
#include "ops/common.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Bound on the steps taken when following a handle back to its origin. */
#define TRACE_MAX_STEPS 4096
/* Ranks larger than this, read from a tensor's value, are treated as unknown. */
#define MAX_VALUE_RANK 4096

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

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
static fl_status shape_from_lit(fl_ctx *c, const fl_node *n, const fl_shape_lit *lit,
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

static fl_status set_shape(fl_ctx *c, fl_node *n, int port, int dtype, const fl_shape *s) {
    return fl__op_set_output(c, n, port, dtype, s->rank, s->dims);
}

static fl_status set_scalar(fl_ctx *c, fl_node *n, int port, int dtype) {
    return fl__op_set_output(c, n, port, dtype, 0, NULL);
}

/* Sets a value or clears a stale one from an earlier visit. */
static void put_value(fl_node *n, int port, const fl_value *v) {
    if (v) {
        fl__op_set_value(n, port, v);
    } else if (port >= 0 && port < n->n_outputs) {
        n->outputs[port].value = NULL;
    }
}

/* A tensor the driver has not inferred yet (a loop back edge on the first
 * visit of its Merge). */
static bool not_inferred(const fl_tensor *t) {
    return t->dtype == FL_DT_INVALID && t->shape.rank < 0;
}

/* The dtype attr T stands in for an input dtype that is not known (its
 * producer is an op foldline does not know): attr T of a single type, or
 * entry `index` of a list(type) T (IdentityN). Read leniently, since it only
 * fills a gap; FL_DT_INVALID when absent. */
static int dtype_from_t(const fl_node *n, int index) {
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

/* A list(shape) attr that the importer or a converter may have added
 * (_output_shapes): absent or of another kind reads as absent, never fails. */
static const fl_shape_lit *lenient_shapes(const fl_node *n, const char *name, size_t *count) {
    const fl_attr *a = fl__node_attr(n, name);
    *count = 0;
    if (!a || a->kind != FL_ATTR_LIST || a->n == 0 || a->list_kind != FL_ATTR_SHAPE) {
        return NULL;
    }
    *count = a->n;
    return a->v.list.shape;
}

/* Refines `base` with what `more` knows: an unknown rank takes `more`
 * entirely; with equal ranks, unknown dims take `more`'s dims. Both shapes'
 * dims must be arena arrays; base's is written. */
static fl_status refine_shape(fl_ctx *c, fl_shape *base, const fl_shape *more) {
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
static fl_status merge_shape(fl_ctx *c, fl_shape *acc, int rank, const fl_sym *dims,
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
static fl_status prepend_dim(fl_ctx *c, fl_sym lead, const fl_shape *s, fl_shape *out) {
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

/* Two values with the same contents (unknown elements are never equal). */
static bool values_equal(const fl_value *a, const fl_value *b) {
    if (a == b) {
        return a != NULL;
    }
    if (!a || !b || a->dtype != b->dtype || a->rank != b->rank || a->n != b->n) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i]) {
            return false;
        }
    }
    if (a->ints && b->ints) {
        for (int64_t i = 0; i < a->n; i++) {
            if (!fl__sym_eq(a->ints[i], b->ints[i])) {
                return false;
            }
        }
        return true;
    }
    if (a->raw && b->raw) {
        size_t es = fl__dtype_size(a->dtype);
        return es && memcmp(a->raw, b->raw, (size_t)a->n * es) == 0;
    }
    return false;
}

/*
 * A shape given as the value of input i (a shape vector: -1 entries are
 * unknown dims; with scalar_unknown a scalar -1 is an unknown rank). Without a
 * value, a vector input of known length gives that rank with unknown dims.
 * `what` names the input for messages.
 */
static fl_status shape_from_input(fl_ctx *c, const fl_node *n, int i, bool scalar_unknown,
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
static const fl_node *trace_source(const fl_node *n, int in, int *port_out) {
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

/* ------------------------------------------------------------------------- */
/* Costs                                                                      */
/* ------------------------------------------------------------------------- */

/* Random generators: one FLOP per output element. */
static fl_status cost_random(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    if (n->n_outputs < 1) {
        return FL_OK;
    }
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &e);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(e)) {
        out->incomplete = true;
        return FL_OK;
    }
    out->flops = e;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Const and placeholders                                                     */
/* ------------------------------------------------------------------------- */

static fl_status infer_const(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_const *k = NULL;
    st = fl__attr_get_tensor(n, "value", &k, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr 'value' (tensor)");
    }
    if (st != FL_OK) {
        return st;
    }
    if (!k) {
        put_value(n, 0, NULL);
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (k->dtype != FL_DT_INVALID && fl_dtype_base(k->dtype) != fl_dtype_base(dt)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'value' holds %s data but attr 'dtype' is %s",
                             fl__dtype_name(k->dtype), fl__dtype_name(dt));
    }
    fl_shape s;
    st = shape_from_lit(c, n, &k->shape, "attr 'value'", &s);
    if (st == FL_OK) {
        st = set_shape(c, n, 0, dt, &s);
    }
    if (st != FL_OK) {
        return st;
    }
    bool stripped = (n->flags & FL_NODE_STRIPPED) || k->stripped;
    put_value(n, 0, stripped ? NULL : k->value);
    return FL_OK;
}

static fl_status infer_placeholder(fl_ctx *c, fl_node *n) {
    fl_tensor *t = &n->outputs[0];
    if (t->shape.rank >= 0 || t->dtype != FL_DT_INVALID) {
        return FL_OK; /* bound by the driver */
    }
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    /* TensorFlow cannot tell a scalar shape attr from "unknown" in graphs of
     * producer version 21 or older, and reads it as unknown. */
    if (lit.rank < 0 || (lit.rank == 0 && c->g->producer <= 21)) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_shape s;
    st = shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    /* A free dim is the symbol INPUT.AXIS, or the name the file gave it
     * (ONNX's dim_param, kept by the importer in attr _dim_names: one string
     * per dim, empty for "no name"). */
    const fl_attr *names = fl__node_attr(n, "_dim_names");
    if (names && (names->kind != FL_ATTR_LIST || names->list_kind != FL_ATTR_S ||
                  names->n != (size_t)s.rank)) {
        names = NULL;
    }
    for (int i = 0; i < s.rank; i++) {
        if (!fl_sym_is_unknown(s.dims[i])) {
            continue;
        }
        char *name = names && names->v.list.s[i].len ? (char *)names->v.list.s[i].p
                                                     : fl__arena_printf(c->a, "%s.%d", n->name, i);
        if (!name) {
            return fl__diag_oom(c->d);
        }
        st = fl__sym_var(c->st, name, &s.dims[i]);
        if (st != FL_OK) {
            return fl__diag_oom(c->d);
        }
    }
    return set_shape(c, n, 0, dt, &s);
}

static fl_status infer_placeholder_with_default(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_tensor *in = fl_node_in(n, 0);
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        lit.rank = -1;
        lit.dims = NULL;
    } else if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, NULL);
    if (lit.rank < 0) {
        return fl__op_set_output(c, n, 0, dt, in->shape.rank, in->shape.dims);
    }
    fl_shape s;
    st = shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    if (in->shape.rank >= 0) {
        if (in->shape.rank != s.rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'shape' has rank %d but input 'input' has rank %d", s.rank,
                                 in->shape.rank);
        }
        for (int i = 0; i < s.rank; i++) {
            fl_sym a = s.dims[i], b = in->shape.dims[i];
            if (fl_sym_is_unknown(a)) {
                s.dims[i] = b;
            } else if (fl_sym_is_known(b) && b.k != a.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'shape' has dim %lld at axis %d but input 'input' has "
                                     "%lld",
                                     (long long)a.k, i, (long long)b.k);
            }
        }
    }
    return set_shape(c, n, 0, dt, &s);
}

/* ------------------------------------------------------------------------- */
/* Identity-like ops and v1 control flow                                      */
/* ------------------------------------------------------------------------- */

/* Output `port` := input `in` (dtype, shape, value). The dtype loses its
 * _ref unless keep_ref; attr T stands in for an input dtype not known. */
static fl_status forward(fl_ctx *c, fl_node *n, int in, int port, bool keep_ref) {
    const fl_tensor *t = fl_node_in(n, in);
    int dt = t->dtype;
    if (dt == FL_DT_INVALID) {
        dt = dtype_from_t(n, in);
    }
    if (!keep_ref) {
        dt = fl_dtype_base(dt);
    }
    fl_status st = fl__op_set_output(c, n, port, dt, t->shape.rank, t->shape.dims);
    if (st != FL_OK) {
        return st;
    }
    put_value(n, port, t->value);
    return FL_OK;
}

static fl_status infer_identity(fl_ctx *c, fl_node *n) {
    return forward(c, n, 0, 0, false);
}

static fl_status infer_ref_forward(fl_ctx *c, fl_node *n) {
    return forward(c, n, 0, 0, true);
}

/* eval of single-output forwarding ops: the input's value. */
static fl_status eval_forward(fl_ctx *c, fl_node *n) {
    (void)c;
    if (n->n_outputs >= 1 && n->n_inputs >= 1) {
        put_value(n, 0, fl_op_in_value(n, 0));
    }
    return FL_OK;
}

static int count_identity_n(const fl_node *n, fl_diag *d) {
    const int *ts;
    size_t k;
    fl_status st = fl__attr_get_types(n, "T", &ts, &k, d);
    if (st == FL_ENOTFOUND) {
        return n->n_inputs;
    }
    if (st != FL_OK) {
        return -1;
    }
    if (k > INT16_MAX) {
        fl__node_fail(d, FL_EINVAL, n, "attr 'T' lists too many types (%zu)", k);
        return -1;
    }
    return (int)k;
}

static fl_status infer_identity_n(fl_ctx *c, fl_node *n) {
    if (n->n_outputs != n->n_inputs) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'T' lists %d types but the node has %d data inputs",
                             n->n_outputs, n->n_inputs);
    }
    for (int i = 0; i < n->n_outputs; i++) {
        fl_status st = forward(c, n, i, i, false);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status eval_identity_n(fl_ctx *c, fl_node *n) {
    (void)c;
    for (int i = 0; i < n->n_outputs && i < n->n_inputs; i++) {
        put_value(n, i, fl_op_in_value(n, i));
    }
    return FL_OK;
}

static fl_status infer_no_op(fl_ctx *c, fl_node *n) {
    (void)c;
    (void)n;
    return FL_OK;
}

static fl_status infer_switch(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 1, "pred");
    if (st != FL_OK) {
        return st;
    }
    bool keep_ref = n->kind == FL_OP_REF_SWITCH;
    st = forward(c, n, 0, 0, keep_ref);
    if (st == FL_OK) {
        st = forward(c, n, 0, 1, keep_ref);
    }
    return st;
}

static fl_status eval_switch(fl_ctx *c, fl_node *n) {
    (void)c;
    for (int i = 0; i < n->n_outputs && i < 2; i++) {
        put_value(n, i, fl_op_in_value(n, 0));
    }
    return FL_OK;
}

static fl_status infer_merge(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_shape acc = {-2, NULL};
    bool all = true, same = true;
    const fl_value *val = NULL;
    bool first = true;
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_tensor *t = fl_node_in(n, i);
        if (not_inferred(t)) {
            all = false;
            continue;
        }
        if (dt == FL_DT_INVALID) {
            dt = t->dtype;
        }
        fl_status st = merge_shape(c, &acc, t->shape.rank, t->shape.dims, false);
        if (st != FL_OK) {
            return st;
        }
        if (first) {
            val = t->value;
            first = false;
        } else if (!values_equal(val, t->value)) {
            same = false;
        }
    }
    if (dt == FL_DT_INVALID) {
        dt = dtype_from_t(n, 0);
    }
    if (n->kind != FL_OP_REF_MERGE) {
        dt = fl_dtype_base(dt);
    }
    if (acc.rank == -2) {
        acc.rank = -1;
    }
    fl_status st = set_shape(c, n, 0, dt, &acc);
    if (st == FL_OK) {
        st = set_scalar(c, n, 1, FL_DT_INT32);
    }
    if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, (all && same && !first) ? val : NULL);
    put_value(n, 1, NULL);
    return FL_OK;
}

static fl_status infer_loop_cond(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 0, "input");
    if (st == FL_OK) {
        st = set_scalar(c, n, 0, FL_DT_BOOL);
    }
    if (st == FL_OK) {
        put_value(n, 0, fl_op_in_value(n, 0));
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Functional control flow and calls                                          */
/* ------------------------------------------------------------------------- */

static int count_type_list(const fl_node *n, const char *name, fl_diag *d) {
    const int *ts;
    size_t k;
    fl_status st = fl__attr_get_types(n, name, &ts, &k, d);
    if (st == FL_ENOTFOUND) {
        fl__node_fail(d, FL_EINVAL, n, "missing required attr '%s' (list(type))", name);
        return -1;
    }
    if (st != FL_OK) {
        return -1;
    }
    if (k > INT16_MAX) {
        fl__node_fail(d, FL_EINVAL, n, "attr '%s' lists too many types (%zu)", name, k);
        return -1;
    }
    return (int)k;
}

static int count_while(const fl_node *n, fl_diag *d) {
    return count_type_list(n, "T", d);
}

static int count_tout(const fl_node *n, fl_diag *d) {
    return count_type_list(n, "Tout", d);
}

/* The type list `name`, which must have one entry per output. */
static fl_status output_types(fl_ctx *c, const fl_node *n, const char *name, const int **ts) {
    size_t k;
    fl_status st = fl__attr_get_types(n, name, ts, &k, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr '%s' (list(type))", name);
    }
    if (st != FL_OK) {
        return st;
    }
    if (k != (size_t)n->n_outputs) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' lists %zu types for %d outputs", name,
                             k, n->n_outputs);
    }
    return FL_OK;
}

/* Output i of dtype ts[i] shaped by shapes[i] (or unknown when shapes is
 * NULL), for every output. */
static fl_status set_typed_outputs(fl_ctx *c, fl_node *n, const int *ts, const fl_shape_lit *shapes,
                                   const char *what) {
    for (int i = 0; i < n->n_outputs; i++) {
        fl_shape s;
        fl_status st = shape_from_lit(c, n, shapes ? &shapes[i] : NULL, what, &s);
        if (st == FL_OK) {
            st = set_shape(c, n, i, ts[i], &s);
        }
        if (st != FL_OK) {
            return st;
        }
        put_value(n, i, NULL);
    }
    return FL_OK;
}

static fl_status infer_while(fl_ctx *c, fl_node *n) {
    const int *ts;
    fl_status st = output_types(c, n, "T", &ts);
    if (st != FL_OK) {
        return st;
    }
    if (n->n_inputs != n->n_outputs) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'T' lists %d types but the node has %d data inputs",
                             n->n_outputs, n->n_inputs);
    }
    const fl_shape_lit *shapes = NULL;
    size_t ns = 0;
    st = fl__attr_get_shapes(n, "output_shapes", &shapes, &ns, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    if (st == FL_OK && ns > 0) {
        if (ns != (size_t)n->n_outputs) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'output_shapes' has %zu entries but attr 'T' has %d", ns,
                                 n->n_outputs);
        }
        return set_typed_outputs(c, n, ts, shapes, "attr 'output_shapes'");
    }
    /* No shape invariants given: TensorFlow takes the loop inputs' shapes. */
    for (int i = 0; i < n->n_outputs; i++) {
        const fl_tensor *t = fl_node_in(n, i);
        st = fl__op_set_output(c, n, i, ts[i], t->shape.rank, t->shape.dims);
        if (st != FL_OK) {
            return st;
        }
        put_value(n, i, NULL);
    }
    return FL_OK;
}

static fl_status infer_if(fl_ctx *c, fl_node *n) {
    const int *ts;
    fl_status st = output_types(c, n, "Tout", &ts);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape_lit *shapes = NULL;
    size_t ns = 0;
    st = fl__attr_get_shapes(n, "output_shapes", &shapes, &ns, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    if (st == FL_OK && ns > 0) {
        if (ns != (size_t)n->n_outputs) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'output_shapes' has %zu entries but attr 'Tout' has %d", ns,
                                 n->n_outputs);
        }
        return set_typed_outputs(c, n, ts, shapes, "attr 'output_shapes'");
    }
    shapes = lenient_shapes(n, "_output_shapes", &ns);
    if (ns != (size_t)n->n_outputs) {
        shapes = NULL;
    }
    return set_typed_outputs(c, n, ts, shapes, "attr '_output_shapes'");
}

static fl_status infer_call(fl_ctx *c, fl_node *n) {
    const int *ts;
    fl_status st = output_types(c, n, "Tout", &ts);
    if (st != FL_OK) {
        return st;
    }
    size_t ns;
    const fl_shape_lit *shapes = lenient_shapes(n, "_output_shapes", &ns);
    if (ns != (size_t)n->n_outputs) {
        shapes = NULL;
    }
    return set_typed_outputs(c, n, ts, shapes, "attr '_output_shapes'");
}

/* ------------------------------------------------------------------------- */
/* TensorArray (V3)                                                           */
/* ------------------------------------------------------------------------- */

/* The TensorArrayV3 whose handle input `in` of n reads, or NULL. */
static const fl_node *tensor_array_of(const fl_node *n, int in) {
    int port = 0;
    const fl_node *src = trace_source(n, in, &port);
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
    st = shape_from_lit(c, ta, &lit, "attr 'element_shape'", out);
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
        if (not_inferred(v)) {
            continue;
        }
        if (v->shape.rank < 0) {
            st = merge_shape(c, &w, -1, NULL, false);
        } else if (drop == 1) {
            if (v->shape.rank < 1) {
                continue;
            }
            st = merge_shape(c, &w, v->shape.rank - 1, v->shape.dims + 1, false);
        } else if (drop == -1) {
            if (v->shape.rank < 1) {
                continue;
            }
            st = merge_shape(c, &w, v->shape.rank, v->shape.dims, true);
        } else {
            st = merge_shape(c, &w, v->shape.rank, v->shape.dims, false);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    if (w.rank >= 0) {
        st = refine_shape(c, out, &w);
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
        st = set_scalar(c, n, 1, FL_DT_FLOAT);
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
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &s);
}

/* Write, Scatter, Split: the flow output. */
static fl_status infer_ta_flow(fl_ctx *c, fl_node *n) {
    return set_scalar(c, n, 0, FL_DT_FLOAT);
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
    st = shape_from_lit(c, n, &lit, "attr 'element_shape'", &elem);
    if (st != FL_OK) {
        return st;
    }
    const fl_node *ta = tensor_array_of(n, 0);
    if (ta && !fl__shape_is_determined(&elem)) {
        fl_shape more;
        st = ta_element_shape(c, ta, &more);
        if (st == FL_OK) {
            st = refine_shape(c, &elem, &more);
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
    st = prepend_dim(c, count, &elem, &s);
    if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &s);
}

static fl_status infer_ta_size(fl_ctx *c, fl_node *n) {
    fl_status st = set_scalar(c, n, 0, FL_DT_INT32);
    if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, NULL);
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
    st = shape_from_lit(c, n, &lit, "attr 'element_shape_except0'", &rest);
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
            st = refine_shape(c, &rest, &tail);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    fl_shape s;
    st = prepend_dim(c, fl_sym_unknown(), &rest, &s);
    if (st == FL_OK) {
        st = set_shape(c, n, 0, dt, &s);
    }
    if (st == FL_OK) {
        st = fl__op_set_output_rank(c, n, 1, FL_DT_INT64, 1);
    }
    put_value(n, 0, NULL);
    put_value(n, 1, NULL);
    return st;
}

/* ------------------------------------------------------------------------- */
/* TensorList                                                                 */
/* ------------------------------------------------------------------------- */

/* What the list's origin says about the list read by handle input `in`: its
 * element shape and element count (unknown when not found). */
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
        if (trace_source(m, 0, &port) != origin || port != 0) {
            continue;
        }
        const fl_tensor *item = fl_node_in(m, 2);
        if (not_inferred(item)) {
            continue;
        }
        fl_status st = merge_shape(c, &w, item->shape.rank, item->shape.dims, false);
        if (st != FL_OK) {
            return st;
        }
    }
    return w.rank >= 0 ? refine_shape(c, elem, &w) : FL_OK;
}

static fl_status list_info(fl_ctx *c, const fl_node *n, int in, fl_shape *elem, fl_sym *count) {
    elem->rank = -1;
    elem->dims = NULL;
    *count = fl_sym_unknown();
    int port = 0;
    const fl_node *src = trace_source(n, in, &port);
    if (!src || port != 0) {
        return FL_OK;
    }
    if (src->kind == FL_OP_TENSOR_LIST_RESERVE && src->n_inputs >= 2) {
        fl_status st = shape_from_input(c, src, 0, true, "element_shape", elem);
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
            return refine_shape(c, elem, &tail);
        }
    }
    return FL_OK;
}

/* Element shape of a list op: its element_shape input, refined by the
 * list's origin. */
static fl_status list_elem_shape(fl_ctx *c, const fl_node *n, int shape_in, fl_shape *elem,
                                 fl_sym *count) {
    fl_status st = shape_from_input(c, n, shape_in, true, "element_shape", elem);
    if (st != FL_OK) {
        return st;
    }
    fl_shape more;
    st = list_info(c, n, 0, &more, count);
    if (st == FL_OK) {
        st = refine_shape(c, elem, &more);
    }
    return st;
}

/* Reserve, FromTensor, SetItem: a new list handle. */
static fl_status infer_list_handle(fl_ctx *c, fl_node *n) {
    return set_scalar(c, n, 0, FL_DT_VARIANT);
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
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &elem);
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
    st = prepend_dim(c, count, &elem, &s);
    if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &s);
}

static fl_status infer_list_length(fl_ctx *c, fl_node *n) {
    put_value(n, 0, NULL);
    return set_scalar(c, n, 0, FL_DT_INT32);
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
    put_value(n, 0, NULL);
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

/* ------------------------------------------------------------------------- */
/* Random generators and variables                                            */
/* ------------------------------------------------------------------------- */

static fl_status infer_random(fl_ctx *c, fl_node *n) {
    const char *dtype_attr = n->kind == FL_OP_RANDOM_UNIFORM_INT ? "Tout" : "dtype";
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, dtype_attr, &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    int r = fl_node_in(n, 0)->shape.rank;
    if (r >= 0 && r != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'shape' must be a vector, got rank %d", r);
    }
    fl_shape s;
    st = shape_from_input(c, n, 0, false, "shape", &s);
    if (st != FL_OK) {
        return st;
    }
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &s);
}

/* RandomShuffle: shuffles along dim 0; T and shape of its input. */
static fl_status infer_random_shuffle(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = x->dtype != FL_DT_INVALID ? (int)fl_dtype_base(x->dtype) : dtype_from_t(n, 0);
    put_value(n, 0, NULL);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

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
    st = shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    /* A VariableV2 outputs a reference to its buffer. */
    return set_shape(c, n, 0, fl_dtype_base(dt) + FL_DT_REF_OFFSET, &s);
}

static fl_status infer_var_handle(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    return set_scalar(c, n, 0, FL_DT_RESOURCE);
}

static fl_status infer_read_variable(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape s = {-1, NULL};
    int port = 0;
    const fl_node *src = trace_source(n, 0, &port);
    if (src && src->kind == FL_OP_VAR_HANDLE_OP) {
        const fl_attr *a = fl__node_attr(src, "shape");
        if (a && a->kind == FL_ATTR_SHAPE) {
            st = shape_from_lit(c, src, &a->v.shape, "attr 'shape'", &s);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    put_value(n, 0, NULL);
    return set_shape(c, n, 0, dt, &s);
}

/* ------------------------------------------------------------------------- */
/* AssignAdd / AssignSub: ref += value (training graphs; tfprof registers    */
/* them as E(in0)).                                                          */
/* ------------------------------------------------------------------------- */

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

/* ------------------------------------------------------------------------- */
/* AssignAddVariableOp / AssignSubVariableOp: resource += value, no outputs. */
/* ------------------------------------------------------------------------- */

static fl_status infer_resource_update(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    return fl__attr_need_type(n, "dtype", &dt, c->d);
}

/* One add or subtract per element of the value; tfprof has no rule. */
static fl_status cost_resource_update(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_update_of(c, n, 1, false, out);
}

/* ------------------------------------------------------------------------- */
/* Scatter* (ref) and ResourceScatter*: var[indices, ...] op= updates         */
/* ------------------------------------------------------------------------- */

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
    if (dt == FL_DT_INVALID && dtype_from_t(n, 0) != FL_DT_INVALID) {
        dt = (int)fl_dtype_base(dtype_from_t(n, 0)) + FL_DT_REF_OFFSET;
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
    const fl_node *src = trace_source(n, 0, &port);
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
        return shape_from_lit(c, src, &a->v.shape, "attr 'shape'", s);
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

/* ------------------------------------------------------------------------- */
/* ScatterNd* (ref) and ResourceScatterNd*: var[indices] op= updates, where   */
/* the last dim of indices indexes the variable's leading dims                */
/* ------------------------------------------------------------------------- */

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
    if (dt == FL_DT_INVALID && dtype_from_t(n, 0) != FL_DT_INVALID) {
        dt = (int)fl_dtype_base(dtype_from_t(n, 0)) + FL_DT_REF_OFFSET;
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

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: the core lists of ops.def)          */
/* ------------------------------------------------------------------------- */

#define HOOKS_const       .infer = infer_const, .cost = fl__op_cost_zero
#define HOOKS_placeholder .infer = infer_placeholder, .cost = fl__op_cost_zero
#define HOOKS_placeholder_with_default                                                             \
    .infer = infer_placeholder_with_default, .cost = fl__op_cost_zero
/* Forwarding ops that strip _ref (Identity and the non-Ref control flow). */
#define HOOKS_forward .infer = infer_identity, .eval = eval_forward, .cost = fl__op_cost_zero
#define HOOKS_identity_n                                                                           \
    .count_outputs = count_identity_n, .infer = infer_identity_n, .eval = eval_identity_n,         \
    .cost = fl__op_cost_zero
#define HOOKS_no_op     .infer = infer_no_op, .cost = fl__op_cost_zero
#define HOOKS_switch_op .infer = infer_switch, .eval = eval_switch, .cost = fl__op_cost_zero
#define HOOKS_merge     .infer = infer_merge, .cost = fl__op_cost_zero
#define HOOKS_loop_cond .infer = infer_loop_cond, .eval = eval_forward, .cost = fl__op_cost_zero
/* Control-flow forwarding ops of the Ref* forms (dtype keeps _ref). */
#define HOOKS_ref_forward .infer = infer_ref_forward, .eval = eval_forward, .cost = fl__op_cost_zero
/* Functional ops: no cost rule (see the comment at the top). */
#define HOOKS_while_loop         .count_outputs = count_while, .infer = infer_while
#define HOOKS_if_case            .count_outputs = count_tout, .infer = infer_if
#define HOOKS_call               .count_outputs = count_tout, .infer = infer_call
#define HOOKS_tensor_array       .infer = infer_tensor_array, .cost = fl__op_cost_zero
#define HOOKS_ta_read            .infer = infer_ta_read, .cost = fl__op_cost_zero
#define HOOKS_ta_flow            .infer = infer_ta_flow, .cost = fl__op_cost_zero
#define HOOKS_ta_gather          .infer = infer_ta_gather, .cost = fl__op_cost_zero
#define HOOKS_ta_size            .infer = infer_ta_size, .cost = fl__op_cost_zero
#define HOOKS_ta_close           .infer = infer_ta_close, .cost = fl__op_cost_zero
#define HOOKS_ta_concat          .infer = infer_ta_concat, .cost = fl__op_cost_zero
#define HOOKS_list_handle        .infer = infer_list_handle, .cost = fl__op_cost_zero
#define HOOKS_list_get_item      .infer = infer_list_get_item, .cost = fl__op_cost_zero
#define HOOKS_list_stack         .infer = infer_list_stack, .cost = fl__op_cost_zero
#define HOOKS_list_length        .infer = infer_list_length, .cost = fl__op_cost_zero
#define HOOKS_list_element_shape .infer = infer_list_element_shape, .cost = fl__op_cost_zero
#define HOOKS_random             .infer = infer_random, .cost = cost_random
#define HOOKS_random_shuffle     .infer = infer_random_shuffle, .cost = fl__op_cost_zero
#define HOOKS_variable_v2        .infer = infer_variable_v2, .cost = fl__op_cost_zero
#define HOOKS_var_handle         .infer = infer_var_handle, .cost = fl__op_cost_zero
#define HOOKS_read_variable      .infer = infer_read_variable, .cost = fl__op_cost_zero
#define HOOKS_assign_update      .infer = infer_assign_update, .cost = cost_assign_update
#define HOOKS_resource_update    .infer = infer_resource_update, .cost = cost_resource_update
#define HOOKS_scatter            .infer = infer_scatter, .cost = cost_scatter
#define HOOKS_resource_scatter   .infer = infer_resource_scatter, .cost = cost_resource_scatter
#define HOOKS_scatter_nd         .infer = infer_scatter_nd, .cost = cost_scatter_nd
#define HOOKS_resource_scatter_nd                                                                  \
    .infer = infer_resource_scatter_nd, .cost = cost_resource_scatter_nd

#define FL_OP FL_OP_DESC
#include "ops/core/const.def"
#include "ops/core/control_flow.def"
#include "ops/core/functional.def"
#include "ops/core/random.def"
#include "ops/core/scatter.def"
#include "ops/core/tensor_array.def"
#include "ops/core/tensor_list.def"
#include "ops/core/variables.def"
#undef FL_OP
