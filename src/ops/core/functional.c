/*
 * functional.c - functional control flow and function calls (core family):
 * While, If, Case, PartitionedCall and their Stateless/Stateful forms.
 *
 * Shapes
 *  - While/StatelessWhile: dtypes from attr T; shapes from attr
 *    output_shapes when it is non-empty, else the input shapes (TensorFlow's
 *    rule). If/StatelessIf: attr Tout; attr output_shapes (else
 *    _output_shapes), else unknown. PartitionedCall/StatefulPartitionedCall:
 *    attr Tout; shapes from _output_shapes when present, else unknown.
 *  - Case: as If (attr Tout; output_shapes, else _output_shapes).
 *
 * FLOP rules: none (has_rule false), but a While lowered at import (attr
 * _loop) counts 0 with a rule: its cond and body are nodes of the graph.
 * Their work is in
 * function-library bodies, which tfprof does not visit
 * (tensorflow/tensorflow#58829); foldline's importer inlines and lowers
 * them where it can (src/import/funcinline.c: calls, If, Case, While's cond
 * and body), so the bodies' nodes are costed in the graph.
 */
#include "ops/core/core.h"

#include <limits.h>

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
        fl_status st = fl__core_shape_from_lit(c, n, shapes ? &shapes[i] : NULL, what, &s);
        if (st == FL_OK) {
            st = fl__core_set_shape(c, n, i, ts[i], &s);
        }
        if (st != FL_OK) {
            return st;
        }
        fl__core_put_value(n, i, NULL);
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
        fl__core_put_value(n, i, NULL);
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

/* A While lowered at import (attr _loop: its cond and body are inlined
 * beside it, their nodes costed in the graph) moves nothing itself: 0
 * with a rule. Any other While has no rule (its work is in the library). */
static fl_status cost_while(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__node_attr(n, "_loop") ? fl__op_cost_zero(c, n, out) : FL_OK;
}

/* Hook sets and descriptors (their rows: core/functional.def). */
/* Functional ops: no cost rule (see the comment at the top). */
#define HOOKS_while_loop .count_outputs = count_while, .infer = infer_while, .cost = cost_while
#define HOOKS_if_case    .count_outputs = count_tout, .infer = infer_if
#define HOOKS_call       .count_outputs = count_tout, .infer = infer_call

#define FL_OP FL_OP_DESC
#include "ops/core/functional.def"
#undef FL_OP
