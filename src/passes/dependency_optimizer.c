/*
 * dependency_optimizer.c - Grappler's DependencyOptimizer
 * (grappler/optimizers/dependency_optimizer.cc) with its two internal iterations (the second runs
 * when the first changed something), and cross-device control edges grouped per device only (newer
 * TensorFlow also groups per host).
 *
 * Before the sweep:
 *  - transitive_reduction (TransitiveReduction): a control edge a -> ^b is
 *    dropped when b is also reachable from a by a path of two or more edges
 *    (longest path in topological order from a, up to the furthest control
 *    target of a). Grappler's limits: targets that modify frame info (Enter,
 *    Exit, NextIteration and their Ref forms) or are not registered ops
 *    (function calls) keep all their inputs and add no edges; edges leaving a
 *    frame-modifying node or a Merge are ignored (which input path of a
 *    Merge runs is unknown).
 *
 * Rules, in one topological sweep:
 *  - const_control_edge: a control edge from a Const without inputs orders
 *    nothing and is dropped; a Const left without consumers is removed (not
 *    preserved ones).
 *  - redundant_control_edge: ^a on a node that also reads a through a data
 *    edge (or twice) is dropped.
 *  - convert_to_noop: a node with no data consumers but control consumers
 *    becomes a NoOp (its data inputs become control inputs, a Switch output
 *    through its ConstantFoldingCtrl anchor as Grappler's
 *    AddControlDependency) when it is not preserved, free of side effects,
 *    not control flow, has outputs, its op is not
 *    Assert/CheckNumerics/ControlTrigger, its name does not start with
 *    "Submodel", and, for an Identity, SafeToRemoveIdentity holds (not
 *    reading a variable or _Recv, nor a Switch with control consumers).
 *  - bypass_noop / bypass_identity: consumers are rewired to the node's
 *    inputs (data edges to the Identity's input, control edges otherwise) and
 *    the node is removed, when it is not preserved, in*out <= in+out edges
 *    (consumers counted once per node), and the edges crossing devices do
 *    not grow (Grappler's BypassingNodeIsBeneficial: not with one input on
 *    another device and several consumers, nor several inputs and one
 *    consumer on another device; input-consumer pairs on different devices
 *    after <= crossings into and out of the node before). An Identity additionally must
 *    not read a variable or a _Recv, must not feed a Merge, and when it reads
 *    a Switch must have no control consumers.
 *
 * After the sweep:
 *  - group_cross_device_control_edges (GroupCrossDeviceControlEdges): when a
 *    placed node has two or more control inputs from the same other
 *    (non-empty) device, they move to a new NoOp on that device named
 *    "GroupCrossDeviceControlEdges_<k>/<node>" (TensorFlow's
 *    AddPrefixToNodeName order; k counts the node's groups), and the node
 *    gets one control input on the NoOp.
 */
#include "passes/util.h"

#include <string.h>

static bool is_const_without_inputs(const fl_node *n) {
    return n->kind == FL_OP_CONST && n->n_inputs == 0 && n->n_ctrl == 0;
}

/* Drops control inputs on input-less Consts, on data inputs, and repeats. */
static void clean_ctrl(fl_pass_ctx *pc, fl_node *n) {
    int w = 0;
    for (int k = 0; k < n->n_ctrl; k++) {
        fl_node *c = n->ctrl[k];
        const char *rule = NULL;
        if (is_const_without_inputs(c)) {
            rule = "const_control_edge";
        }
        for (int i = 0; i < n->n_inputs && !rule; i++) {
            if (n->inputs[i].node == c) {
                rule = "redundant_control_edge";
            }
        }
        for (int j = 0; j < w && !rule; j++) {
            if (n->ctrl[j] == c) {
                rule = "redundant_control_edge";
            }
        }
        if (rule) {
            fl__ledger_note(pc, rule, n, "control input '%s' dropped", c->name);
            pc->rewritten++;
            continue;
        }
        fl__node_set_ctrl(pc->c->g, n, w++, c);
    }
    fl__node_trim_ctrl(pc->c->g, n, w);
}

/* Drops control inputs on nodes this sweep removed (a bypass already gave
 * their consumers the removed node's own inputs). */
static void drop_removed_ctrl(fl_graph *g, fl_node *n) {
    int w = 0;
    for (int k = 0; k < n->n_ctrl; k++) {
        if (!(n->ctrl[k]->flags & FL_NODE_REMOVED)) {
            fl__node_set_ctrl(g, n, w++, n->ctrl[k]);
        }
    }
    fl__node_trim_ctrl(g, n, w);
}

static bool data_consumed(const fl_node *n, const fl_uses *u) {
    for (int p = 0; p < n->n_outputs; p++) {
        size_t cnt;
        fl__uses_of(u, n, p, &cnt);
        if (cnt) {
            return true;
        }
    }
    return false;
}

/* Grappler's SafeToRemoveIdentity (true for other ops): an Identity reading
 * a variable or a _Recv stays, and so does one reading a Switch that a node
 * waits on through a control edge (that edge stands for the Switch port). */
static bool safe_to_remove_identity(const fl_node *n, const fl_uses *u) {
    if (n->kind != FL_OP_IDENTITY) {
        return true;
    }
    if (n->n_inputs < 1) {
        return false;
    }
    const fl_node *in = n->inputs[0].node;
    if (in->kind == FL_OP_VARIABLE_V2 || in->kind == FL_OP_VAR_HANDLE_OP ||
        fl__is_pass_op(in, FL_POP_RECV) || in->kind == FL_OP_VARIABLE_V2 ||
        fl__is_pass_op(in, FL_POP_VARIABLE)) {
        return false;
    }
    return !((in->kind == FL_OP_SWITCH || in->kind == FL_OP_REF_SWITCH) && u->ctrl_counts[n->id]);
}

static fl_status to_noop(fl_pass_ctx *pc, fl_node *n, const fl_uses *u, bool *done) {
    *done = false;
    if (fl__preserved(n) || !n->desc || n->n_outputs < 1 || data_consumed(n, u) ||
        !u->ctrl_counts[n->id]) {
        return FL_OK;
    }
    if (n->desc->flags & (FL_OPF_STATEFUL | FL_OPF_CONTROL_FLOW | FL_OPF_FUNCTIONAL)) {
        return FL_OK;
    }
    if (n->kind == FL_OP_NO_OP || fl__is_feed(n) || fl__is_pass_op(n, FL_POP_ASSERT) ||
        fl__is_pass_op(n, FL_POP_CHECK_NUMERICS) || fl__is_pass_op(n, FL_POP_CONTROL_TRIGGER) ||
        strncmp(n->name, "Submodel", 8) == 0 || !safe_to_remove_identity(n, u)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    /* Through AddControlDependency: an input read from a Switch output
     * becomes a control edge on its ConstantFoldingCtrl anchor. */
    for (int i = 0; i < n->n_inputs; i++) {
        fl_status st = fl__add_ctrl_anchor(pc, n, n->inputs[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    fl__ledger_note(pc, "convert_to_noop", n, "%s consumed only through control edges -> NoOp",
                    n->op);
    fl__node_trim_inputs(g, n, 0);
    n->n_outputs = 0;
    fl__node_set_attrs(g, n, 0, NULL);
    n->src = NULL;
    fl__node_become(g, n, fl__op_name(FL_OP_NO_OP));
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* Tallies consumer c of n once (FL_NODE_MARK): *outs, the first one, the
 * crossings out of n and, after a bypass, from each input of n into c. */
typedef struct tally {
    size_t outs, cross_out, cross_after;
    const fl_node *first;
} tally;

static void tally_consumer(const fl_node *n, fl_node *c, tally *t) {
    if (c->flags & FL_NODE_MARK) {
        return;
    }
    c->flags |= FL_NODE_MARK;
    if (!t->outs++) {
        t->first = c;
    }
    t->cross_out += !fl__same_device(c, n);
    for (int k = 0; k < n->n_inputs + n->n_ctrl; k++) {
        const fl_node *f = k < n->n_inputs ? n->inputs[k].node : n->ctrl[k - n->n_inputs];
        t->cross_after += !fl__same_device(f, c);
    }
}

/* Visits n's consumers (data on any port, then control), each node once
 * (t), or with t NULL clears their marks. Finding the control consumers
 * scans the graph, so it is done only when devices matter (scan_ctrl);
 * otherwise they count as many as the use lists' control counts (after
 * clean_ctrl a node waits on another at most once, and not on one it reads),
 * and every crossing is zero. */
static void visit_consumers(const fl_node *n, const fl_uses *u, tally *t, bool scan_ctrl) {
    for (int p = 0; p < n->n_outputs; p++) {
        size_t cnt = 0;
        const fl_use *us = fl__uses_of(u, n, p, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            if (t) {
                tally_consumer(n, us[k].node, t);
            } else {
                us[k].node->flags &= ~(uint32_t)FL_NODE_MARK;
            }
        }
    }
    if (!u->ctrl_counts[n->id]) {
        return;
    }
    if (!scan_ctrl) {
        if (t) {
            t->outs += u->ctrl_counts[n->id];
        }
        return;
    }
    const fl_graph *g = u->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *c = g->nodes[i];
        for (int j = 0; j < c->n_ctrl && !(c->flags & FL_NODE_REMOVED); j++) {
            if (c->ctrl[j] == n) {
                if (t) {
                    tally_consumer(n, c, t);
                } else {
                    c->flags &= ~(uint32_t)FL_NODE_MARK;
                }
                break;
            }
        }
    }
}

/* Grappler's BypassingNodeIsBeneficial, with its consumers counted once per
 * node (its node map): in * out <= in + out edges; not with one input on
 * another device and several consumers, nor several inputs and one consumer
 * on another device; and the input-consumer pairs on different devices after
 * the bypass must not outnumber the crossings into and out of the node
 * before. */
static bool bypass_beneficial(const fl_node *n, const fl_uses *u, bool multi_device) {
    tally t = {0, 0, 0, NULL};
    visit_consumers(n, u, &t, multi_device);
    visit_consumers(n, u, NULL, multi_device);
    size_t in = (size_t)n->n_inputs + (size_t)n->n_ctrl;
    if (in * t.outs > in + t.outs) {
        return false;
    }
    if (!multi_device) {
        return true; /* nothing crosses a device */
    }
    const fl_node *in0 = n->n_inputs ? n->inputs[0].node : (n->n_ctrl ? n->ctrl[0] : NULL);
    if ((in == 1 && t.outs > 1 && !fl__same_device(in0, n)) ||
        (in > 1 && t.outs == 1 && !fl__same_device(t.first, n))) {
        return false;
    }
    size_t cross_in = 0;
    for (size_t k = 0; k < in; k++) {
        const fl_node *f = k < (size_t)n->n_inputs ? n->inputs[k].node : n->ctrl[k - n->n_inputs];
        cross_in += !fl__same_device(f, n);
    }
    return t.cross_after <= cross_in + t.cross_out;
}

/* Whether bypassing n is allowed (see the file comment). */
static bool can_bypass(const fl_node *n, const fl_uses *u, bool multi_device) {
    if (fl__preserved(n)) {
        return false;
    }
    bool identity = n->kind == FL_OP_IDENTITY;
    if (identity) {
        if (n->n_inputs != 1) {
            return false;
        }
        if (!safe_to_remove_identity(n, u)) {
            return false;
        }
        if (fl_node_in(n, 0)->dtype > FL_DT_REF_OFFSET) {
            return false;
        }
    } else if (n->kind != FL_OP_NO_OP || n->n_inputs) {
        return false;
    }
    size_t cnt = 0;
    const fl_use *us = n->n_outputs ? fl__uses_of(u, n, 0, &cnt) : NULL;
    for (size_t k = 0; k < cnt; k++) {
        const fl_node *c = us[k].node;
        if (c->kind == FL_OP_MERGE || c->kind == FL_OP_REF_MERGE ||
            (c->flags & FL_NODE_FUNC_CALL)) {
            return false;
        }
    }
    return bypass_beneficial(n, u, multi_device);
}

static fl_status bypass(fl_pass_ctx *pc, fl_node *n, const fl_uses *u, fl_input *fwd) {
    fl_graph *g = pc->c->g;
    fl_diag *d = pc->c->d;
    if (n->kind == FL_OP_IDENTITY) {
        fwd[n->id] = n->inputs[0];
        size_t cnt;
        const fl_use *us = fl__uses_of(u, n, 0, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            for (int j = 0; j < n->n_ctrl; j++) {
                if (fl__node_add_ctrl(g, us[k].node, n->ctrl[j]) != FL_OK) {
                    return fl__diag_oom(d);
                }
            }
        }
    }
    if (u->ctrl_counts[n->id]) {
        for (size_t i = 0; i < g->n_nodes; i++) {
            fl_node *c = g->nodes[i];
            for (int j = 0; j < c->n_ctrl; j++) {
                if (c->ctrl[j] != n) {
                    continue;
                }
                for (int q = 0; q < n->n_inputs + n->n_ctrl; q++) {
                    fl_node *f = q < n->n_inputs ? n->inputs[q].node : n->ctrl[q - n->n_inputs];
                    if (f != c && fl__node_add_ctrl(g, c, f) != FL_OK) {
                        return fl__diag_oom(d);
                    }
                }
                break;
            }
        }
    }
    fl__ledger_note(pc, n->kind == FL_OP_IDENTITY ? "bypass_identity" : "bypass_noop", n,
                    "%s bypassed and removed", n->op);
    fl__graph_remove_node(n);
    return FL_OK;
}

static bool modifies_frame_info(const fl_node *n) {
    return n->kind == FL_OP_ENTER || n->kind == FL_OP_EXIT || n->kind == FL_OP_NEXT_ITERATION ||
           n->kind == FL_OP_REF_ENTER || n->kind == FL_OP_REF_EXIT ||
           n->kind == FL_OP_REF_NEXT_ITERATION;
}

/* TransitiveReduction over g->order (see the file comment). */
static fl_status transitive_reduction(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    fl_node **order = g->order;
    int *pos = fl__arena_calloc(pc->c->a, n + 1, sizeof(int));
    int *dist = fl__arena_calloc(pc->c->a, n + 1, sizeof(int));
    int *far = fl__arena_calloc(pc->c->a, n + 1, sizeof(int)); /* furthest control target */
    if (!pos || !dist || !far) {
        return fl__diag_oom(pc->c->d);
    }
    for (size_t i = 0; i < n; i++) {
        pos[order[i]->id] = (int)i;
        far[i] = -1;
    }
    /* An edge into `t` from `f` counts when neither end is excluded. */
#define TR_TARGET_OK(t) (!modifies_frame_info(t) && (t)->desc && !((t)->flags & FL_NODE_FUNC_CALL))
#define TR_SOURCE_OK(f)                                                                            \
    (!modifies_frame_info(f) && (f)->kind != FL_OP_MERGE && (f)->kind != FL_OP_REF_MERGE)
    for (size_t ti = 0; ti < n; ti++) {
        fl_node *t = order[ti];
        for (int k = 0; TR_TARGET_OK(t) && k < t->n_ctrl; k++) {
            int sp = pos[t->ctrl[k]->id];
            if (TR_SOURCE_OK(t->ctrl[k]) && (int)ti > far[sp]) {
                far[sp] = (int)ti;
            }
        }
    }
    for (size_t si = 0; si < n; si++) {
        fl_node *src = order[si];
        int hi = far[si];
        if (hi <= (int)si) {
            continue;
        }
        for (int ti = (int)si; ti <= hi; ti++) {
            dist[ti] = 0;
        }
        for (int ti = (int)si + 1; ti <= hi; ti++) {
            fl_node *t = order[ti];
            if (!TR_TARGET_OK(t)) {
                continue;
            }
            for (int k = 0; k < t->n_inputs + t->n_ctrl; k++) {
                fl_node *f = k < t->n_inputs ? t->inputs[k].node : t->ctrl[k - t->n_inputs];
                if (!TR_SOURCE_OK(f)) {
                    continue;
                }
                int fp = pos[f->id];
                if (fp == (int)si || (fp > (int)si && fp <= hi && dist[fp] > 0)) {
                    if (dist[fp] + 1 > dist[ti]) {
                        dist[ti] = dist[fp] + 1;
                    }
                }
            }
        }
        for (int ti = (int)si + 1; ti <= hi; ti++) {
            fl_node *t = order[ti];
            if (dist[ti] <= 1 || !TR_TARGET_OK(t)) {
                continue;
            }
            int w = 0;
            for (int k = 0; k < t->n_ctrl; k++) {
                if (t->ctrl[k] == src) {
                    fl__ledger_note(pc, "transitive_reduction", t,
                                    "control input '%s' dropped: reachable by a longer path",
                                    src->name);
                    pc->rewritten++;
                    continue;
                }
                fl__node_set_ctrl(g, t, w++, t->ctrl[k]);
            }
            fl__node_trim_ctrl(g, t, w);
        }
    }
#undef TR_TARGET_OK
#undef TR_SOURCE_OK
    return FL_OK;
}

/* GroupCrossDeviceControlEdges for node m (see the file comment). */
static fl_status group_cross_device(fl_pass_ctx *pc, fl_node *m) {
    fl_graph *g = pc->c->g;
    if (!*fl__dev_of(m) || m->n_ctrl < 2) {
        return FL_OK;
    }
    int groups = 0;
    for (int k = 0; k < m->n_ctrl; k++) {
        const char *dv = fl__dev_of(m->ctrl[k]);
        if (!*dv || strcmp(dv, fl__dev_of(m)) == 0) {
            continue;
        }
        bool seen = false, more = false;
        for (int j = 0; j < k && !seen; j++) {
            seen = strcmp(fl__dev_of(m->ctrl[j]), dv) == 0;
        }
        for (int j = k + 1; j < m->n_ctrl && !more; j++) {
            more = strcmp(fl__dev_of(m->ctrl[j]), dv) == 0;
        }
        if (seen || !more) {
            continue;
        }
        /* m->ctrl[k] is the first of two or more control inputs from dv */
        char *base =
            fl__arena_printf(g->arena, "GroupCrossDeviceControlEdges_%d/%s", groups++, m->name);
        const char *name = base ? fl__graph_unique_name(g, base) : NULL;
        fl_node *noop =
            name ? fl__op_add_op(g, name, fl__op_name(FL_OP_NO_OP), 0, NULL, 0, pc->c->d) : NULL;
        if (!noop) {
            return fl__diag_oom(pc->c->d);
        }
        noop->device = dv;
        int w = 0;
        for (int j = 0; j < m->n_ctrl; j++) {
            fl_node *c = m->ctrl[j];
            if (j >= k && strcmp(fl__dev_of(c), dv) == 0) {
                if (fl__node_add_ctrl(g, noop, c) != FL_OK) {
                    return fl__diag_oom(pc->c->d);
                }
                continue;
            }
            fl__node_set_ctrl(g, m, w++, c);
        }
        fl__node_trim_ctrl(g, m, w);
        if (fl__node_add_ctrl(g, m, noop) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        fl__ledger_note(pc, "group_cross_device_control_edges", m,
                        "control inputs from %s grouped under NoOp '%s'", dv, noop->name);
        pc->added++;
        k = -1; /* m->ctrl changed: rescan */
    }
    return FL_OK;
}

/* One of DependencyOptimizer's iterations over a sorted graph (g->order);
 * removed nodes are only marked. */
static fl_status dep_iteration(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    fl_node **order = g->order;
    uint64_t edits0 = g->edits, removals0 = fl__graph_removals();
    /* One device for every node (an unplaced graph, the usual case): the
     * bypass's device rules hold trivially. Found in the same walk (no pass
     * below changes a device). */
    bool multi_device = false;
    for (size_t i = 0; i < n; i++) {
        clean_ctrl(pc, order[i]);
        multi_device = multi_device || !fl__same_device(order[i], order[0]);
    }
    fl_status st0 = transitive_reduction(pc);
    if (st0 != FL_OK) {
        return st0;
    }
    fl_uses u;
    fl_status st = fl__uses_build(g, &u, pc->c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_input *fwd = fl__arena_calloc(pc->c->a, n + 1, sizeof(fl_input));
    if (!fwd) {
        return fl__diag_oom(pc->c->d);
    }
    /* Until a bypass forwards a tensor, resolving reads back every input as
     * it is; until a node is removed, no control input is on one (the graph
     * is compacted): both are skipped until then. */
    size_t n_fwd = 0;
    for (size_t i = 0; i < n; i++) {
        fl_node *m = order[i];
        for (int k = 0; n_fwd && k < m->n_inputs; k++) {
            fl__node_set_input(g, m, k, fl__resolve(fwd, m->inputs[k]));
        }
        if (fl__graph_removals() != removals0) {
            drop_removed_ctrl(g, m);
        }
        if (is_const_without_inputs(m) && !fl__preserved(m) && fl__uses_total(&u, m) == 0) {
            fl__ledger_note(pc, "const_control_edge", m, "Const without consumers: removed");
            fl__graph_remove_node(m);
            continue;
        }
        bool done = false;
        st = to_noop(pc, m, &u, &done);
        if (st == FL_OK && can_bypass(m, &u, multi_device)) {
            st = bypass(pc, m, &u, fwd);
            n_fwd += st == FL_OK && fwd[m->id].node;
        }
        if (st != FL_OK) {
            return st;
        }
    }
    /* Nothing edited, removed or forwarded since the sweep began: the graph
     * is the one the first clean_ctrl sweep left as it was, so this one
     * would change nothing either. */
    bool same = g->edits == edits0 && fl__graph_removals() == removals0 && !n_fwd;
    for (size_t i = 0; i < n && !same; i++) {
        fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            fl__node_set_input(g, m, k, fl__resolve(fwd, m->inputs[k]));
        }
        drop_removed_ctrl(g, m);
        clean_ctrl(pc, m); /* bypasses may have added redundant control edges */
    }
    /* On one device group_cross_device finds nothing to group. */
    for (size_t i = 0; i < n && multi_device; i++) {
        fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_REMOVED) && (st = group_cross_device(pc, m)) != FL_OK) {
            return st;
        }
    }
    g->order = NULL;
    return FL_OK;
}

fl_status fl__pass_dependency_optimizer(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    fl_diag *d = pc->c->d;
    /* TensorFlow's two internal iterations: the second sees what the first's
     * bypasses left (a control edge made redundant, an Identity that can go
     * now). It runs only when the first changed something. */
    for (int it = 0; it < 2; it++) {
        fl_status st;
        if (!g->order && (st = fl__graph_toposort(g, d)) != FL_OK) {
            return st;
        }
        size_t entries = pc->ledger->n_entries;
        int64_t rewritten = pc->rewritten, removed = pc->removed, added = pc->added;
        if ((st = dep_iteration(pc)) != FL_OK) {
            return st;
        }
        bool changed = pc->ledger->n_entries != entries || pc->rewritten != rewritten ||
                       pc->removed != removed || pc->added != added;
        if (!changed) {
            break;
        }
        if ((st = fl__graph_compact(g, d)) != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* The skip test (pass.h). Every rule but two needs a control edge
 * somewhere (clean_ctrl, convert_to_noop: control consumers,
 * transitive_reduction, group_cross_device), and transitive_reduction reads
 * paths of any length: a graph with a control edge gives work. The bypasses
 * need an Identity or a NoOp, and read whether the graph spans devices (a
 * change anywhere): a graph with one gives work. What is left, a Const
 * without inputs removed for having no consumer, reads only that Const: a
 * marked one with no consumer (it lost its last one, or was added so) gives
 * work; an unmarked one had none before either, and the pass left it. */
bool fl__dependency_optimizer_may_work(const fl_graph *g, const uint8_t *mark) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (m->n_ctrl > 0 || m->kind == FL_OP_IDENTITY || m->kind == FL_OP_NO_OP) {
            return true;
        }
        if (mark[i] && is_const_without_inputs(m) && !fl__preserved(m) &&
            m->n_ctrl_consumers == 0) {
            bool consumed = false;
            for (int k = 0; k < m->n_outputs && !consumed; k++) {
                consumed = m->outputs[k].n_consumers > 0;
            }
            if (!consumed) {
                return true;
            }
        }
    }
    return false;
}
