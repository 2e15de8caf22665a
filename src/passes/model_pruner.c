/*
 * model_pruner.c - Grappler's ModelPruner (grappler/optimizers/model_pruner.cc).
 *
 * Two steps:
 *  1. Dead code: with outputs known, every node outside the transitive fan-in
 *     (data and control) of the preserved nodes is removed.
 *  2. Trivial nodes are bypassed and removed, in topological order:
 *     StopGradient and PreventGradient; Identity and single-input IdentityN
 *     that are "trivial identities" (no control inputs, not fed by a Switch,
 *     not feeding a Merge, no control consumers); NoOp without inputs; Const
 *     without inputs whose only consumers are control edges; AddN with at
 *     most one data input. Snapshot is not trivial to Grappler and is kept.
 *
 * A trivial node is removed only if: it is not preserved; removal does not
 * add edges (in*out <= in+out, counting control edges); every fan-in is on
 * the node's device; no fan-in is a function call or has a ref-typed output;
 * no consumer is a function call. Consumers of a bypassed node read its data
 * input instead, and inherit its control inputs; its control consumers
 * depend on its inputs instead.
 */
#include "passes/util.h"

#include <string.h>

/* Removes every node that no preserved node reaches through data or control
 * inputs. Does nothing when no node is preserved. */
static fl_status prune_unreachable(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    /* Scratch, released before returning (as fwd below): arena memory
     * would be kept to the end of the analysis, 25 bytes per node a run. */
    fl_node **stack = fl__arena_scratch_raw(pc->c->a, n + 1, sizeof(fl_node *));
    bool *seen = stack ? fl__arena_scratch(pc->c->a, n + 1, sizeof(bool)) : NULL;
    if (!seen) {
        fl__arena_scratch_free(pc->c->a, stack);
        return fl__diag_oom(pc->c->d);
    }
    size_t sp = 0, n_preserved = 0;
    if (g->order) {
        /* Consumers come after their producers in the order: walked from
         * its end, a node's reachability is final when it is met (preserved
         * nodes are seeds as they come), and each step reads a node the
         * order names, not one found through the last (a chain of dependent
         * loads, a cache miss each, on a large graph). The one exception, a
         * Merge's back edge from a NextIteration ordered after it, goes onto
         * the stack for the walk below. */
        for (size_t i = n; i-- > 0;) {
            fl_node *m = g->order[i];
            if (fl__preserved(m)) {
                seen[m->id] = true;
                n_preserved++;
            } else if (!seen[m->id]) {
                continue;
            }
            bool back = m->flags & FL_NODE_BACK_EDGE;
            for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
                fl_node *in = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
                if (!seen[in->id]) {
                    seen[in->id] = true;
                    if (back) {
                        stack[sp++] = in;
                    }
                }
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            if (fl__preserved(g->nodes[i])) {
                seen[i] = true;
                stack[sp++] = g->nodes[i];
            }
        }
        n_preserved = sp;
    }
    if (!n_preserved) {
        fl__arena_scratch_free(pc->c->a, stack);
        fl__arena_scratch_free(pc->c->a, seen);
        return FL_OK;
    }
    while (sp) {
        fl_node *m = stack[--sp];
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            fl_node *in = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
            if (!seen[in->id]) {
                seen[in->id] = true;
                stack[sp++] = in;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!seen[i]) {
            fl_node *m = g->nodes[i];
            fl__ledger_note(pc, "dead_code", m, "%s not needed by any output: removed", m->op);
            fl__graph_remove_node(m);
        }
    }
    fl__arena_scratch_free(pc->c->a, stack);
    fl__arena_scratch_free(pc->c->a, seen);
    return FL_OK;
}

static bool is_ref(int dt) {
    return dt > FL_DT_REF_OFFSET;
}

/* What trivial_rule tests before it needs the use lists: false when no
 * rule applies to m. */
static bool maybe_trivial(const fl_node *m) {
    switch (m->kind) {
    case FL_OP_STOP_GRADIENT:
    case FL_OP_PREVENT_GRADIENT:
        return m->n_inputs == 1;
    case FL_OP_IDENTITY:
    case FL_OP_IDENTITY_N:
        return m->n_inputs == 1 && m->n_ctrl == 0;
    case FL_OP_NO_OP:
        return m->n_inputs == 0 && m->n_ctrl == 0;
    case FL_OP_CONST:
        return m->n_ctrl == 0 && m->n_outputs == 1 && m->outputs[0].n_consumers == 0;
    default:
        return m->kind == FL_OP_ADD_N && m->n_inputs == 1;
    }
}

/* Which trivial rule applies to m (NULL: none). */
static const char *trivial_rule(const fl_node *m, const fl_uses *u) {
    switch (m->kind) {
    case FL_OP_STOP_GRADIENT:
    case FL_OP_PREVENT_GRADIENT:
        return m->n_inputs == 1 ? "stop_gradient" : NULL;
    case FL_OP_IDENTITY:
    case FL_OP_IDENTITY_N: {
        if (m->n_inputs != 1 || m->n_ctrl > 0 || u->ctrl_counts[m->id] > 0) {
            return NULL;
        }
        if (m->inputs[0].node->kind == FL_OP_SWITCH ||
            m->inputs[0].node->kind == FL_OP_REF_SWITCH) {
            return NULL;
        }
        size_t cnt;
        const fl_use *us = fl__uses_of(u, m, 0, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            if (us[k].node->kind == FL_OP_MERGE || us[k].node->kind == FL_OP_REF_MERGE) {
                return NULL;
            }
        }
        return "trivial_identity";
    }
    case FL_OP_NO_OP:
        return m->n_inputs == 0 && m->n_ctrl == 0 ? "noop_without_inputs" : NULL;
    case FL_OP_CONST:
        return m->n_ctrl == 0 && m->n_outputs == 1 && m->outputs[0].n_consumers == 0 &&
                       u->ctrl_counts[m->id] > 0
                   ? "const_only_control_consumers"
                   : NULL;
    default:
        if (m->kind == FL_OP_ADD_N && m->n_inputs <= 1) {
            return m->n_inputs == 1 ? "addn_single_input" : NULL;
        }
        return NULL;
    }
}

/* The general removal conditions of a trivial node (see the file comment). */
static bool removable(const fl_node *m, const fl_uses *u) {
    if (fl__preserved(m)) {
        return false;
    }
    size_t in = (size_t)m->n_inputs + (size_t)m->n_ctrl;
    size_t out = fl__uses_total(u, m);
    if (in * out > in + out) {
        return false;
    }
    for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
        const fl_node *f = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
        if (!fl__same_device(f, m)) {
            return false;
        }
        if (f->flags & FL_NODE_FUNC_CALL) {
            return false;
        }
        if (k < m->n_inputs && is_ref(fl_node_in(m, k)->dtype)) {
            return false;
        }
    }
    for (int p = 0; p < m->n_outputs; p++) {
        size_t cnt;
        const fl_use *us = fl__uses_of(u, m, p, &cnt);
        for (size_t k = 0; k < cnt; k++) {
            if (us[k].node->flags & FL_NODE_FUNC_CALL) {
                return false;
            }
        }
    }
    return true;
}

/* Bypasses trivial node m: data consumers of its output read its input and
 * gain its control inputs; control consumers depend on its inputs. */
static fl_status bypass(fl_pass_ctx *pc, fl_node *m, const fl_uses *u, fl_input *fwd) {
    fl_graph *g = pc->c->g;
    if (m->n_inputs == 1 && m->n_outputs == 1) {
        fwd[m->id] = m->inputs[0];
    }
    size_t cnt;
    const fl_use *us = fl__uses_of(u, m, 0, &cnt);
    for (size_t k = 0; k < cnt; k++) {
        for (int j = 0; j < m->n_ctrl; j++) {
            if (fl__node_add_ctrl(g, us[k].node, m->ctrl[j]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
    }
    if (u->ctrl_counts[m->id]) {
        for (size_t i = 0; i < g->n_nodes; i++) {
            fl_node *c = g->nodes[i];
            for (int j = 0; j < c->n_ctrl; j++) {
                if (c->ctrl[j] != m) {
                    continue;
                }
                for (int q = 0; q < m->n_inputs + m->n_ctrl; q++) {
                    fl_node *f = q < m->n_inputs ? m->inputs[q].node : m->ctrl[q - m->n_inputs];
                    if (f != c && fl__node_add_ctrl(g, c, f) != FL_OK) {
                        return fl__diag_oom(pc->c->d);
                    }
                }
                break;
            }
        }
    }
    fl__graph_remove_node(m);
    return FL_OK;
}

fl_status fl__pass_model_pruner(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    uint64_t removals0 = fl__graph_removals();
    fl_status st = prune_unreachable(pc);
    if (st != FL_OK) {
        return st;
    }
    /* The use lists are built for the first node that may be trivial (most
     * graphs have none): up to it the sweep edits nothing (nothing is
     * forwarded yet, and control inputs are filtered only after a removal,
     * when the lists are built at once), so they are the lists of the graph
     * as pruned above, as before. */
    fl_uses u;
    bool built = false;
    if (fl__graph_removals() != removals0) {
        if ((st = fl__uses_build(g, &u, pc->c->d)) != FL_OK) {
            return st;
        }
        built = true;
    }
    fl_input *fwd = fl__arena_scratch(pc->c->a, g->n_nodes + 1, sizeof(fl_input));
    if (!fwd) {
        return fl__diag_oom(pc->c->d);
    }
    fl_node **order = g->order; /* edits clear g->order; the sweep keeps its copy */
    size_t n_order = g->n_nodes;
    /* Until a bypass forwards a tensor, resolving reads back every input
     * as it is; until a node is removed, no control input is on one (the
     * graph the pass starts from is compacted). Both are skipped until then:
     * on a graph with nothing to prune they were most of the sweep. */
    size_t n_fwd = 0;
    for (size_t i = 0; i < n_order; i++) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; n_fwd && k < m->n_inputs; k++) {
            fl__node_set_input(g, m, k, fl__resolve(fwd, m->inputs[k]));
        }
        if (fl__graph_removals() != removals0) {
            int w = 0; /* control inputs on bypassed nodes were forwarded already */
            for (int k = 0; k < m->n_ctrl; k++) {
                if (!(m->ctrl[k]->flags & FL_NODE_REMOVED)) {
                    fl__node_set_ctrl(g, m, w++, m->ctrl[k]);
                }
            }
            fl__node_trim_ctrl(g, m, w);
        }
        if (!maybe_trivial(m)) {
            continue;
        }
        if (!built) {
            if ((st = fl__uses_build(g, &u, pc->c->d)) != FL_OK) {
                fl__arena_scratch_free(pc->c->a, fwd);
                return st;
            }
            built = true;
        }
        const char *rule = trivial_rule(m, &u);
        if (!rule || !removable(m, &u)) {
            continue;
        }
        fl__ledger_note(pc, rule, m, "%s bypassed and removed", m->op);
        st = bypass(pc, m, &u, fwd);
        if (st != FL_OK) {
            fl__arena_scratch_free(pc->c->a, fwd);
            return st;
        }
        n_fwd += fwd[m->id].node != NULL;
    }
    /* Inputs along loop back edges are visited before their producers. */
    for (size_t i = 0; n_fwd && i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs; k++) {
            fl__node_set_input(g, m, k, fl__resolve(fwd, m->inputs[k]));
        }
    }
    fl__arena_scratch_free(pc->c->a, fwd);
    g->order = NULL;
    return FL_OK;
}

/* The skip test (pass.h). Step 1: a node the changes left outside the
 * fan-in of every preserved node was inside it before (the pass left no
 * trace then), so each of its paths to a preserved node lost an edge or a
 * node; the set of such nodes has a node without consumers (its consumers
 * would reach a preserved node otherwise), which had consumers before: it
 * lost them, so it is marked touched - a touched node that is not preserved
 * and has no consumer may give work. Step 2: whether a trivial node is
 * bypassed reads the node (maybe_trivial, trivial_rule), its producers
 * (kind, device, function call, ref dtype) and its consumers (kind,
 * function call, counts): a change to any of them marks the node itself,
 * or a neighbour of it - so a marked node that maybe_trivial accepts may
 * give work, and no other can. */
bool fl__model_pruner_may_work(const fl_graph *g, const uint8_t *mark) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (!mark[i]) {
            continue;
        }
        const fl_node *m = g->nodes[i];
        if (maybe_trivial(m)) {
            return true;
        }
        bool consumed = m->n_ctrl_consumers > 0;
        for (int k = 0; k < m->n_outputs && !consumed; k++) {
            consumed = m->outputs[k].n_consumers > 0;
        }
        if ((mark[i] & FL_MAY_TOUCHED) && !consumed && !fl__preserved(m)) {
            return true;
        }
    }
    return false;
}
