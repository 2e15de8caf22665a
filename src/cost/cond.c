/*
 * cond.c - what the two branches of a v1 cond cost (tf.cond lowered to
 * Switch/Merge); see cost.h.
 *
 * A cond is the set of Switch nodes reading one predicate tensor that does
 * not come from a LoopCond (those are a while loop's exits). Its false
 * branch is every node reachable from output 0 of one of its Switches (data
 * and control edges; a loop's NextIteration is not followed) and not from
 * output 1; the true branch the other way round. What both reach is after
 * the join (the Merge and its consumers) and belongs to neither.
 *
 * Rule: the totals count both branches, as the static graph holds both and
 * tfprof counts both; one branch runs per step, which the analysis cannot
 * tell when the predicate depends on data. So the totals are an upper bound
 * for a step, and a warning per cond states each branch's FLOPs and MACs so
 * the cost of either path can be read off (totals minus the other branch).
 * When shape inference knows the predicate (a constant, a fed --value, a
 * value computed from shapes), the untaken branch's nodes are dead
 * (graph.h, FL_NODE_DEAD) and count 0 but for tfprof_flops; the warning
 * then names the branch that runs and what it costs.
 */
#include "cost/cost.h"
#include "ops/common.h"

#include <string.h>

/* Conds itemised in warnings; later ones are summed in one line. */
#define MAX_CONDS_LISTED 16
/* Node visits over all conds; beyond it the rest are not itemised. */
#define VISIT_BUDGET ((size_t)20 * 1000 * 1000)

typedef struct succ {
    size_t *off; /* n + 1 */
    uint32_t *to;
} succ;

static bool is_next_iteration(const fl_node *n) {
    return n->kind == FL_OP_NEXT_ITERATION || n->kind == FL_OP_REF_NEXT_ITERATION;
}

/* Successor lists over data and control edges, none out of a NextIteration. */
static fl_status build_succ(fl_ctx *c, succ *s) {
    fl_graph *g = c->g;
    s->off = fl__arena_calloc(c->a, g->n_nodes + 1, sizeof(size_t));
    if (!s->off) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs; k++) {
            s->off[m->inputs[k].node->id + 1] += !is_next_iteration(m->inputs[k].node);
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            s->off[m->ctrl[k]->id + 1] += !is_next_iteration(m->ctrl[k]);
        }
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        s->off[i + 1] += s->off[i];
    }
    size_t *fill = fl__arena_calloc(c->a, g->n_nodes + 1, sizeof(size_t));
    s->to = fl__arena_calloc(c->a, s->off[g->n_nodes] + 1, sizeof(uint32_t));
    if (!fill || !s->to) {
        return fl__diag_oom(c->d);
    }
    memcpy(fill, s->off, g->n_nodes * sizeof(size_t));
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            const fl_node *src = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
            if (!is_next_iteration(src)) {
                s->to[fill[src->id]++] = m->id;
            }
        }
    }
    return FL_OK;
}

/* A Switch of a cond: its predicate is not a loop's LoopCond. */
static bool is_cond_switch(const fl_node *n) {
    if ((n->kind != FL_OP_SWITCH && n->kind != FL_OP_REF_SWITCH) || n->n_inputs != 2) {
        return false;
    }
    const fl_node *p = n->inputs[1].node;
    return p->kind != FL_OP_LOOP_COND;
}

static bool same_pred(const fl_node *a, const fl_node *b) {
    return a->inputs[1].node == b->inputs[1].node && a->inputs[1].port == b->inputs[1].port;
}

/* Marks with `bit` every node reachable from output `port` of Switch sw. */
static void reach_from(const fl_graph *g, const succ *s, const fl_node *sw, int port, uint8_t bit,
                       uint8_t *mark, uint32_t *stack, size_t *visits) {
    size_t top = 0;
    for (size_t e = s->off[sw->id]; e < s->off[sw->id + 1]; e++) {
        const fl_node *m = g->nodes[s->to[e]];
        for (int k = 0; k < m->n_inputs; k++) {
            if (m->inputs[k].node == sw && m->inputs[k].port == port && !(mark[m->id] & bit)) {
                mark[m->id] |= bit;
                stack[top++] = m->id;
            }
        }
    }
    while (top) {
        uint32_t u = stack[--top];
        (*visits)++;
        for (size_t e = s->off[u]; e < s->off[u + 1]; e++) {
            uint32_t v = s->to[e];
            if (!(mark[v] & bit)) {
                mark[v] |= bit;
                stack[top++] = v;
            }
        }
    }
}

typedef struct branch {
    fl_sym flops, macs;
    int64_t nodes, incomplete;
} branch;

static fl_status branch_sums(fl_ctx *c, const uint8_t *mark, branch b[2]) {
    for (int p = 0; p < 2; p++) {
        b[p].flops = b[p].macs = fl_sym_const(0);
        b[p].nodes = b[p].incomplete = 0;
    }
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        if (mark[i] != 1 && mark[i] != 2) {
            continue;
        }
        const fl_node *n = c->g->nodes[i];
        branch *x = &b[mark[i] - 1];
        x->nodes++;
        if (fl__node_cost_incomplete(n)) {
            x->incomplete++;
            continue;
        }
        fl_status st = fl__op_add(c, n, x->flops, fl__node_count(n, FL_COUNT_FLOPS), &x->flops);
        if (st == FL_OK) {
            st = fl__op_add(c, n, x->macs, fl__node_count(n, FL_COUNT_MACS), &x->macs);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static const char *branch_text(fl_ctx *c, const char *which, const branch *b) {
    const char *f = fl__sym_to_str(c->a, b->flops), *m = fl__sym_to_str(c->a, b->macs);
    if (!f || !m) {
        return NULL;
    }
    if (b->incomplete) {
        return fl__arena_printf(c->a,
                                "%s branch %s FLOPs, %s MACs over %lld node(s), %lld of them "
                                "with undetermined counts not included",
                                which, f, m, (long long)b->nodes, (long long)b->incomplete);
    }
    return fl__arena_printf(c->a, "%s branch %s FLOPs, %s MACs over %lld node(s)", which, f, m,
                            (long long)b->nodes);
}

/* One cond: the Switches after `first` with its predicate, their branches. */
static fl_status note_cond(fl_ctx *c, const succ *s, fl_node **sws, size_t n_sw, size_t first,
                           bool *done, uint8_t *mark, uint32_t *stack, size_t *visits) {
    fl_graph *g = c->g;
    memset(mark, 0, g->n_nodes);
    size_t count = 0;
    for (size_t j = first; j < n_sw; j++) {
        if (done[j] || !same_pred(sws[first], sws[j])) {
            continue;
        }
        done[j] = true;
        count++;
        reach_from(g, s, sws[j], 0, 1, mark, stack, visits);
        reach_from(g, s, sws[j], 1, 2, mark, stack, visits);
    }
    branch b[2];
    fl_status st = branch_sums(c, mark, b);
    if (st != FL_OK) {
        return st;
    }
    const fl_node *p = sws[first]->inputs[1].node;
    int port = sws[first]->inputs[1].port;
    const char *pred = port ? fl__arena_printf(c->a, "%s:%d", p->name, port) : p->name;
    uint32_t known = 0; /* the dead port's flag of a live Switch (shape inference) */
    bool all_dead = true;
    for (size_t j = first; j < n_sw && !known; j++) {
        if (same_pred(sws[first], sws[j])) {
            known = sws[j]->flags & (FL_NODE_DEAD_PORT0 | FL_NODE_DEAD_PORT1);
            all_dead = all_dead && (sws[j]->flags & FL_NODE_DEAD);
        }
    }
    if (all_dead) {
        return FL_OK; /* inside a branch that does not run: its cond's warning says so */
    }
    if (known) {
        bool taken = known == FL_NODE_DEAD_PORT0; /* output_true runs */
        const char *t = branch_text(c, taken ? "true" : "false", &b[taken]);
        if (!t || !pred) {
            return fl__diag_oom(c->d);
        }
        fl__diag_warn(c->d,
                      "cond on predicate '%s' (%zu Switch node(s), e.g. '%s'): the predicate is "
                      "known to be %s, so only that branch runs and is counted (%s); the %s "
                      "branch's %lld node(s) do not run and count 0",
                      pred, count, sws[first]->name, taken ? "true" : "false", t,
                      taken ? "false" : "true", (long long)b[!taken].nodes);
        return FL_OK;
    }
    const char *f = branch_text(c, "false", &b[0]), *t = branch_text(c, "true", &b[1]);
    if (!f || !t || !pred) {
        return fl__diag_oom(c->d);
    }
    fl__diag_warn(c->d,
                  "cond on predicate '%s' (%zu Switch node(s), e.g. '%s'): the totals count both "
                  "branches, though one runs per step: %s; %s",
                  pred, count, sws[first]->name, f, t);
    return FL_OK;
}

/* A TensorFlow Case lowered at import (src/import/funcinline.c: attr
 * _lowered_branches, branch K inlined as "C/branch_K/..."): every branch is
 * in the totals, as both branches of a cond; one warning gives each
 * branch's counts. */
static fl_status note_case(fl_ctx *c, const fl_node *n, int64_t nb) {
    char *text = fl__arena_printf(c->a, "%s", "");
    for (int64_t k = 0; k < nb && text; k++) {
        const char *p = fl__arena_printf(c->a, "%s/branch_%lld/", n->name, (long long)k);
        if (!p) {
            return fl__diag_oom(c->d);
        }
        size_t len = strlen(p);
        branch b = {fl_sym_const(0), fl_sym_const(0), 0, 0};
        for (size_t i = 0; i < c->g->n_nodes; i++) {
            const fl_node *m = c->g->nodes[i];
            if (strncmp(m->name, p, len) != 0 || fl__cost_is_value_node(m)) {
                continue;
            }
            b.nodes++;
            if (fl__node_cost_incomplete(m)) {
                b.incomplete++;
                continue;
            }
            fl_status st = fl__op_add(c, m, b.flops, fl__node_count(m, FL_COUNT_FLOPS), &b.flops);
            if (st == FL_OK) {
                st = fl__op_add(c, m, b.macs, fl__node_count(m, FL_COUNT_MACS), &b.macs);
            }
            if (st != FL_OK) {
                return st;
            }
        }
        const char *f = fl__sym_to_str(c->a, b.flops), *m = fl__sym_to_str(c->a, b.macs);
        const char *inc = b.incomplete ? fl__arena_printf(c->a,
                                                          ", %lld of them with undetermined "
                                                          "counts not included",
                                                          (long long)b.incomplete)
                                       : "";
        text = f && m && inc ? fl__arena_printf(c->a,
                                                "%s%sbranch %lld %s FLOPs, %s MACs over %lld "
                                                "node(s)%s",
                                                text, k ? "; " : "", (long long)k, f, m,
                                                (long long)b.nodes, inc)
                             : NULL;
    }
    if (!text) {
        return fl__diag_oom(c->d);
    }
    fl__diag_warn(c->d,
                  "Case '%s': the totals count all %lld branches, though one runs per step: %s",
                  n->name, (long long)nb, text);
    return FL_OK;
}

static fl_status note_cases(fl_ctx *c) {
    size_t listed = 0;
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *n = c->g->nodes[i];
        const fl_attr *a = fl__node_attr_rare(n, "_lowered_branches");
        if (!a || a->kind != FL_ATTR_I || a->v.i < 1 || a->v.i > 4096 ||
            listed++ >= MAX_CONDS_LISTED) {
            continue;
        }
        fl_status st = note_case(c, n, a->v.i);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

fl_status fl__cost_conds(fl_ctx *c) {
    fl_graph *g = c->g;
    fl_status cs = note_cases(c);
    if (cs == FL_OK) {
        cs = fl__cost_loop_warnings(c);
    }
    if (cs != FL_OK) {
        return cs;
    }
    size_t n_sw = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        n_sw += is_cond_switch(g->nodes[i]);
    }
    if (!n_sw) {
        return FL_OK;
    }
    fl_node **sws = fl__arena_calloc(c->a, n_sw, sizeof(fl_node *));
    bool *done = fl__arena_calloc(c->a, n_sw, sizeof(bool));
    uint8_t *mark = fl__arena_calloc(c->a, g->n_nodes, 1);
    uint32_t *stack = fl__arena_calloc(c->a, g->n_nodes, sizeof(uint32_t));
    succ s = {0};
    if (!sws || !done || !mark || !stack) {
        return fl__diag_oom(c->d);
    }
    fl_status st = build_succ(c, &s);
    if (st != FL_OK) {
        return st;
    }
    n_sw = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (is_cond_switch(g->nodes[i])) {
            sws[n_sw++] = g->nodes[i];
        }
    }
    size_t listed = 0, visits = 0, left = 0;
    for (size_t j = 0; j < n_sw; j++) {
        if (done[j]) {
            continue;
        }
        if (listed >= MAX_CONDS_LISTED || visits > VISIT_BUDGET) {
            left++;
            continue;
        }
        listed++;
        if ((st = note_cond(c, &s, sws, n_sw, j, done, mark, stack, &visits)) != FL_OK) {
            return st;
        }
    }
    if (left) {
        fl__diag_warn(c->d,
                      "%zu more cond Switch node(s): their branches are counted in the totals "
                      "too (not itemised)",
                      left);
    }
    return FL_OK;
}
