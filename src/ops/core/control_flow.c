/*
 * control_flow.c - identity-like ops and v1 control flow (core family):
 * Identity, Snapshot, StopGradient, PreventGradient, IdentityN, NoOp, Switch,
 * Merge, Enter, Exit, NextIteration, LoopCond and the Ref forms.
 *
 * Shapes
 *  - Identity, Snapshot, StopGradient, PreventGradient, IdentityN, Enter,
 *    Exit, NextIteration, Switch (both outputs), LoopCond (bool scalar): the
 *    input's dtype (without _ref, except for the Ref* forms), shape and value.
 *  - Merge of a loop (a NextIteration input): the inputs merged dim by dim:
 *    dims that agree are kept, others are unknown, different ranks give
 *    unknown rank; an input of unknown rank (an unknown op's output in the
 *    body, say) gives unknown rank. Only the NextIteration input on the
 *    driver's first round (fl_graph.infer_first_round) is left out: it is
 *    not inferred yet; the driver visits the loop again with it.
 *  - Merge of a cond (no NextIteration input; tf.cond's join of the branches
 *    a Switch feeds, whose predicate the analysis cannot know): every input
 *    counts, a branch output with unknown rank included. The most specific
 *    shape all inputs fit: dims that agree are kept; dims known (or symbolic)
 *    on every input but different become the fresh symbol NODE.AXIS (the
 *    size depends on the branch taken; --bind NODE.AXIS=N picks one); a dim
 *    unknown on any input is unknown; different ranks give unknown rank.
 *  - Both: a value only when every input is inferred and all values are
 *    equal. value_index: int32 scalar.
 *  - Dead tensors (graph.h, FL_NODE_DEAD): a Switch whose predicate value is
 *    known, and that is not a loop's (its predicate no LoopCond), marks the
 *    output the predicate does not take dead; a live Merge leaves its dead
 *    inputs out of the rules above (a cond with a known predicate gives the
 *    taken branch's shape and value).
 *
 * FLOP rules ("complete" convention): 0 FLOPs with has_rule true (they
 * forward tensors; 0 is the real count); tfprof registers none of them (0,
 * tfprof_rule false). No MACs.
 */
#include "ops/core/core.h"

#include <string.h>

/* Output `port` := input `in` (dtype, shape, value). The dtype loses its
 * _ref unless keep_ref; attr T stands in for an input dtype not known. */
static fl_status forward(fl_ctx *c, fl_node *n, int in, int port, bool keep_ref) {
    const fl_tensor *t = fl_node_in(n, in);
    int dt = t->dtype;
    if (dt == FL_DT_INVALID) {
        dt = fl__core_dtype_from_t(n, in);
    }
    if (!keep_ref) {
        dt = fl_dtype_base(dt);
    }
    fl_status st = fl__op_set_output(c, n, port, dt, t->shape.rank, t->shape.dims);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, port, t->value);
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
        fl__core_put_value(n, 0, fl_op_in_value(n, 0));
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
        fl__core_put_value(n, i, fl_op_in_value(n, i));
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
    /* A known predicate (a constant, a fed value, a value computed from
     * shapes) leaves the other output dead; a loop's LoopCond changes from
     * step to step. */
    const fl_value *p = fl_op_in_value(n, 1);
    if (st == FL_OK && !(n->flags & FL_NODE_DEAD) && n->inputs[1].node->kind != FL_OP_LOOP_COND &&
        p && p->n == 1 && p->ints && fl_sym_is_known(p->ints[0])) {
        n->flags |= p->ints[0].k != 0 ? FL_NODE_DEAD_PORT0 : FL_NODE_DEAD_PORT1;
    }
    return st;
}

static fl_status eval_switch(fl_ctx *c, fl_node *n) {
    (void)c;
    for (int i = 0; i < n->n_outputs && i < 2; i++) {
        fl__core_put_value(n, i, fl_op_in_value(n, 0));
    }
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

/* A cond Merge's dims that differ between its inputs (unknown in `acc` but
 * not unknown on any input): the fresh symbol NODE.AXIS each. */
static fl_status cond_merge_symbols(fl_ctx *c, fl_node *n, fl_shape *acc) {
    for (int k = 0; k < acc->rank; k++) {
        if (!fl_sym_is_unknown(acc->dims[k])) {
            continue;
        }
        bool all_sized = true;
        for (int i = 0; i < n->n_inputs && all_sized; i++) {
            if (!(n->flags & FL_NODE_DEAD) && fl__node_in_dead(n, i)) {
                continue;
            }
            const fl_tensor *t = fl_node_in(n, i);
            all_sized = t->shape.rank == acc->rank && !fl_sym_is_unknown(t->shape.dims[k]);
        }
        if (!all_sized) {
            continue;
        }
        const char *name = fl__arena_printf(c->a, "%s.%d", n->name, k);
        if (!name || fl__sym_size_var(c->st, name, &acc->dims[k]) != FL_OK) {
            return fl__diag_oom(c->d);
        }
    }
    return FL_OK;
}

static fl_status infer_merge(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_shape acc = {-2, NULL};
    bool all = true, same = true;
    const fl_value *val = NULL;
    bool first = true;
    bool cond = !(n->flags & FL_NODE_BACK_EDGE);
    /* A live Merge forwards what its live inputs give: a dead input never
     * arrives (a cond whose predicate is known joins one branch). */
    bool skip_dead = !(n->flags & FL_NODE_DEAD);
    int live = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_tensor *t = fl_node_in(n, i);
        if (c->g->infer_first_round && (n->inputs[i].node->flags & FL_NODE_OP_NEXT_ITERATION)) {
            all = false;
            continue;
        }
        if (skip_dead && fl__node_in_dead(n, i)) {
            continue;
        }
        live++;
        if (dt == FL_DT_INVALID) {
            dt = t->dtype;
        }
        fl_status st = fl__core_merge_shape(c, &acc, t->shape.rank, t->shape.dims, false);
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
        dt = fl__core_dtype_from_t(n, 0);
    }
    if (n->kind != FL_OP_REF_MERGE) {
        dt = fl_dtype_base(dt);
    }
    if (acc.rank == -2) {
        acc.rank = -1;
    }
    if (cond && live > 1 && acc.rank > 0) {
        fl_status st = cond_merge_symbols(c, n, &acc);
        if (st != FL_OK) {
            return st;
        }
    }
    fl_status st = fl__core_set_shape(c, n, 0, dt, &acc);
    if (st == FL_OK) {
        st = fl__core_set_scalar(c, n, 1, FL_DT_INT32);
    }
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, (all && same && !first) ? val : NULL);
    fl__core_put_value(n, 1, NULL);
    return FL_OK;
}

static fl_status infer_loop_cond(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 0, "input");
    if (st == FL_OK) {
        st = fl__core_set_scalar(c, n, 0, FL_DT_BOOL);
    }
    if (st == FL_OK) {
        fl__core_put_value(n, 0, fl_op_in_value(n, 0));
    }
    return st;
}

/* Hook sets and descriptors (their rows: core/control_flow.def). */
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

#define FL_OP FL_OP_DESC
#include "ops/core/control_flow.def"
#undef FL_OP
