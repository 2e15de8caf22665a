/*
 * hoist.c - the arithmetic optimizer's HoistCWiseUnaryChains (stage 20).
 *  - hoist_cwise_unary_chains (20): Concat/ConcatV2 (N > 1, the N value
 *    inputs distinct, not preserved) whose every value input ends the same
 *    chain of unary element-wise ops -> the chain once after the Concat (the
 *    first input's chain is reused, reading the Concat; the Concat's
 *    consumers read its end; the other chains are removed);
 *    Split/SplitV (num_split > 1, at most num_split data edges out, no
 *    control consumers, not preserved) whose every consumer takes it as
 *    input 0 and starts the same chain -> a copy of the first output's chain
 *    before the Split, named "<split scope>/ArithmeticOptimizer/_<node>_
 *    <split>" (Grappler's stage name is empty), the chains' consumers read
 *    the Split's outputs. Chains grow one level at a time while every link
 *    has the same op, is unary element-wise (not Enter/Exit), on the root's
 *    device, not preserved, read by at most one node (control edges
 *    included), and is not a Relu/Relu6 fed by BiasAdd or FusedBatchNorm*
 *    (kept for the remapper). The links' control inputs move to the Concat
 *    (to the first copy for a Split; a Split whose chains wait on a node
 *    that depends on it is left, as that would close a cycle).
 *
 * Deliberate differences: not in Grappler, a link whose output dtype
 * differs from its input's (IsNan, IsInf, IsFinite, ComplexAbs) ends the
 * chain, since the Concat/Split's T would have to change; Concats of more
 * than 512 inputs are left. The newest TensorFlow also looks through
 * Reshapes inside the chains (UnwrapReshape); that variant is not in the
 * reference snapshot and is not done.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One link of a chain: a node and the Concat input / Split output port the
 * chain starts at. Kept sorted by port, then name (Grappler's ChainLinkSet),
 * so the first link, whose chain names the hoisted nodes, is deterministic. */
typedef struct hlink {
    fl_node *node;
    int port;
} hlink;

#define HOIST_MAX 512

static int hlink_cmp(const void *x, const void *y) {
    const hlink *p = x, *q = y;
    if (p->port != q->port) {
        return p->port < q->port ? -1 : 1;
    }
    return strcmp(p->node->name, q->node->name);
}

/* Resolves every live node's inputs through the forwarding map, so scans of
 * consumers and fl__graph_replace_uses see the graph as rewritten so far. */
static void resolve_all(ao *a) {
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        if (!(a->g->nodes[i]->flags & FL_NODE_REMOVED)) {
            fl__ao_resolve_inputs(a, a->g->nodes[i]);
        }
    }
}

/* Distinct consumer nodes of n (GetOutputs(n).size()); the use counts give
 * the answer without a scan when there is at most one edge. */
static size_t n_consumer_nodes(ao *a, const fl_node *n) {
    if (a->uses[n->id] + a->ctrl_uses[n->id] <= 1) {
        return a->uses[n->id] + a->ctrl_uses[n->id];
    }
    fl_node *dummy[1];
    return fl__consumers_of(a->g, n, dummy, 0);
}

bool fl__ao_is_concat(const fl_node *n) {
    return n->kind == FL_OP_CONCAT || n->kind == FL_OP_CONCAT_V2;
}

bool fl__ao_is_split(const fl_node *n) {
    return n->kind == FL_OP_SPLIT || n->kind == FL_OP_SPLIT_V;
}

/* OpsAreSafeToHoist: one more level of the chains can move. Beyond Grappler:
 * an op whose output dtype differs from its input's (IsNan, IsInf,
 * IsFinite, ComplexAbs) is not hoisted, as the Concat/Split's T would have
 * to change (Grappler's TODO; it would leave T wrong). */
static bool hoist_safe(ao *a, const fl_node *root, const hlink *l, int n) {
    if (n == 0) {
        return true;
    }
    const fl_node *op0 = l[0].node;
    if (fl__ao_modifies_frame(op0) || !fl__ao_unary_elementwise(op0)) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        const fl_node *op = l[i].node;
        if (!fl__same_device(op, root) || strcmp(op->op, op0->op) != 0 || fl__preserved(op) ||
            op->n_inputs < 1 || op->n_outputs != 1) {
            return false;
        }
        if (op->outputs[0].dtype != fl_node_in(op, 0)->dtype) {
            return false;
        }
        if (n_consumer_nodes(a, op) > 1) {
            return false;
        }
        /* Relu / Relu6 the remapper can fuse into its producer stay */
        if (op->kind == FL_OP_RELU || op->kind == FL_OP_RELU6) {
            const fl_node *in = op->inputs[0].node;
            if (in->kind == FL_OP_BIAS_ADD || strncmp(in->op, "FusedBatchNorm", 14) == 0) {
                return false;
            }
        }
    }
    return true;
}

/* Adds the control inputs of the links' nodes to ctrl (a set). */
static int gather_ctrl(const hlink *l, int n, fl_node **ctrl, int n_ctrl) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < l[i].node->n_ctrl; k++) {
            fl_node *c = l[i].node->ctrl[k];
            bool have = false;
            for (int j = 0; j < n_ctrl && !have; j++) {
                have = ctrl[j] == c;
            }
            if (!have && n_ctrl < HOIST_MAX) {
                ctrl[n_ctrl++] = c;
            }
        }
    }
    return n_ctrl;
}

/* AdvanceTails: the next level of every chain (toward the inputs for a
 * Concat, toward the consumers for a Split). Returns the new count, or -1
 * to stop (the current level is the last one hoisted). */
static int advance(ao *a, bool concat, const hlink *tails, int n, hlink *next) {
    int w = 0;
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        if (concat) {
            if (t->n_inputs == 0) {
                return -1;
            }
            next[w++] = (hlink){t->inputs[0].node, tails[i].port};
            continue;
        }
        fl_node *cons[HOIST_MAX];
        size_t nc = fl__consumers_of(a->g, t, cons, HOIST_MAX);
        if (nc > HOIST_MAX) {
            return -1;
        }
        for (size_t j = 0; j < nc; j++) {
            fl_node *m = cons[j];
            if (m->n_inputs == 0) {
                if (m->n_ctrl > 0 && m->ctrl[0] == t) {
                    continue; /* a control output: skipped */
                }
                return -1;
            }
            if (m->inputs[0].node != t) {
                return -1;
            }
            if (w >= HOIST_MAX) {
                return -1;
            }
            next[w++] = (hlink){m, tails[i].port};
        }
    }
    qsort(next, (size_t)w, sizeof(hlink), hlink_cmp);
    return w;
}

/* Whether `from` is reachable from `to` by data or control edges (to
 * depends on from). */
static bool depends_on(ao *a, fl_node *to, const fl_node *from) {
    size_t cap = a->g->n_nodes;
    bool *seen = fl__arena_calloc(a->pc->c->a, cap + 1, sizeof(bool));
    fl_node **stack = fl__arena_calloc(a->pc->c->a, cap + 1, sizeof(fl_node *));
    if (!seen || !stack) {
        return true; /* (OOM: the caller does not hoist) */
    }
    size_t sp = 0;
    stack[sp++] = to;
    seen[to->id] = true;
    while (sp > 0) {
        fl_node *m = stack[--sp];
        if (m == from) {
            return true;
        }
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            fl_node *p =
                k < m->n_inputs ? fl__resolve(a->fwd, m->inputs[k]).node : m->ctrl[k - m->n_inputs];
            if (p->id < cap && !seen[p->id] && sp <= cap) {
                seen[p->id] = true;
                stack[sp++] = p;
            }
        }
    }
    return false;
}

/* Removes the old chain ending at `n` (walking inputs, `len` nodes) while
 * its nodes are left unread. */
static void drop_chain(ao *a, fl_node *n, int len) {
    for (int i = 0; i < len && n; i++) {
        if ((n->flags & FL_NODE_REMOVED) || fl__preserved(n) || a->uses[n->id] ||
            a->ctrl_uses[n->id] || n->n_inputs < 1) {
            return;
        }
        fl_node *next = n->inputs[0].node;
        fl__ao_remove(a, n);
        n = next;
    }
}

/* Concat([f(g(x)), f(g(y))]) -> f(g(Concat([x, y]))): the first input's
 * chain is reused after the Concat, the others are removed. */
static fl_status hoist_concat(ao *a, fl_node *c, const hlink *tails, int n, int prefix,
                              fl_node **ctrl, int n_ctrl) {
    int first = c->kind == FL_OP_CONCAT ? 1 : 0;
    fl_node *heads[HOIST_MAX];
    for (int i = 0; i < n; i++) {
        heads[i] = c->inputs[tails[i].port].node;
    }
    for (int j = 0; j < n_ctrl; j++) {
        fl_status st = fl__ao_add_ctrl(a, c, ctrl[j]);
        if (st != FL_OK) {
            return st;
        }
    }
    resolve_all(a);
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        int port = tails[i].port;
        fl_input head_in = c->inputs[port];
        fl__ao_set_input(a, c, port, t->inputs[0]);
        if (port == first) {
            /* the Concat's consumers read the end of the first chain */
            size_t k = fl__graph_replace_uses(a->g, c, 0, head_in.node, head_in.port);
            a->uses[c->id] -= (uint32_t)k;
            a->uses[head_in.node->id] += (uint32_t)k;
            fl__ao_set_input(a, t, 0, (fl_input){c, 0});
            a->pc->rewritten++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (tails[i].port != first) {
            drop_chain(a, heads[i], prefix);
        }
    }
    a->pc->rewritten++;
    fl__ledger_note(a->pc, "hoist_cwise_unary_chains", c, "%d unary op(s) on %d inputs -> after %s",
                    prefix, n, c->op);
    return FL_OK;
}

/* [f(g(y)) for y in Split(x)] -> Split(f(g(x))): a copy of the first
 * output's chain, "<scope>/ArithmeticOptimizer/_<node>_<split>", runs
 * before the Split; the old chains are removed. */
static fl_status hoist_split(ao *a, fl_node *s, const hlink *tails, int n, int prefix,
                             fl_node **ctrl, int n_ctrl) {
    fl_node *tmpl[HOIST_MAX]; /* the first chain, last op first */
    int len = 0;
    for (fl_node *t = tails[0].node; t != s && len < HOIST_MAX; t = t->inputs[0].node) {
        if (t->n_inputs < 1) {
            return FL_OK;
        }
        tmpl[len++] = t;
    }
    const char *names[HOIST_MAX];
    for (int i = 0; i < len; i++) {
        names[i] = fl__ao_opt_name2(a, s->name, "", tmpl[i]->name);
        if (!names[i]) {
            return fl__ao_oom(a);
        }
        if (fl__ao_exists(a, names[i])) {
            return FL_OK;
        }
    }
    int slot = s->kind == FL_OP_SPLIT_V ? 0 : 1;
    fl_input in = s->inputs[slot];
    fl_node *prev = NULL;
    for (int i = len; i-- > 0;) {
        fl_input src = prev ? (fl_input){prev, 0} : in;
        fl_node *cp = fl__ao_add(a, names[i], tmpl[i]->op, s->device, 1, &src);
        if (!cp) {
            return fl__ao_oom(a);
        }
        cp->device = tmpl[i]->device;
        if (tmpl[i]->n_attrs) {
            fl_attr *at = fl__arena_calloc(a->g->arena, (size_t)tmpl[i]->n_attrs, sizeof(fl_attr));
            if (!at) {
                return fl__ao_oom(a);
            }
            memcpy(at, tmpl[i]->attrs, (size_t)tmpl[i]->n_attrs * sizeof(fl_attr));
            fl__node_set_attrs(a->g, cp, tmpl[i]->n_attrs, at);
        }
        if (!prev) {
            for (int j = 0; j < n_ctrl; j++) {
                fl_status st = fl__ao_add_ctrl(a, cp, ctrl[j]);
                if (st != FL_OK) {
                    return st;
                }
            }
        }
        prev = cp;
    }
    fl__ao_set_input(a, s, slot, (fl_input){prev, 0});
    resolve_all(a);
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        size_t k = fl__graph_replace_uses(a->g, t, 0, s, tails[i].port);
        a->uses[t->id] -= (uint32_t)k;
        a->uses[s->id] += (uint32_t)k;
    }
    for (int i = 0; i < n; i++) {
        drop_chain(a, tails[i].node, prefix);
    }
    a->pc->rewritten++;
    fl__ledger_note(a->pc, "hoist_cwise_unary_chains", s,
                    "%d unary op(s) on %d outputs -> before %s", prefix, n, s->op);
    return FL_OK;
}

fl_status fl__ao_hoist_cwise_unary_chains(ao *a, fl_node *r) {
    bool concat = fl__ao_is_concat(r);
    if ((r->flags & FL_NODE_REMOVED) || (!concat && !fl__ao_is_split(r)) || fl__preserved(r)) {
        return FL_OK;
    }
    fl__ao_resolve_inputs(a, r);
    hlink cur[HOIST_MAX], tails[HOIST_MAX];
    int n_cur = 0;
    if (concat) {
        int64_t nn;
        const fl_attr *at = fl__node_attr(r, "N");
        if (!at || at->kind != FL_ATTR_I || (nn = at->v.i) <= 1 || nn > HOIST_MAX) {
            return FL_OK;
        }
        int start = r->kind == FL_OP_CONCAT ? 1 : 0;
        if (start + nn > r->n_inputs) {
            return FL_OK;
        }
        for (int i = start; i < start + (int)nn; i++) {
            for (int j = start; j < i; j++) {
                if (r->inputs[i].node == r->inputs[j].node &&
                    r->inputs[i].port == r->inputs[j].port) {
                    return FL_OK; /* FirstNInputsAreUnique */
                }
            }
            cur[n_cur++] = (hlink){r->inputs[i].node, i};
        }
    } else {
        const fl_attr *at = fl__node_attr(r, "num_split");
        if (!at || at->kind != FL_ATTR_I || at->v.i <= 1 || a->uses[r->id] > at->v.i ||
            a->ctrl_uses[r->id] > 0 || a->uses[r->id] < 2) {
            return FL_OK;
        }
        resolve_all(a);
        fl_node *cons[HOIST_MAX];
        size_t nc = fl__consumers_of(a->g, r, cons, HOIST_MAX);
        if (nc > HOIST_MAX) {
            return FL_OK;
        }
        for (size_t j = 0; j < nc; j++) {
            if (cons[j]->n_inputs == 0) {
                continue;
            }
            if (cons[j]->inputs[0].node != r) {
                return FL_OK; /* a consumer whose first input is not the Split */
            }
            cur[n_cur++] = (hlink){cons[j], cons[j]->inputs[0].port};
        }
    }
    qsort(cur, (size_t)n_cur, sizeof(hlink), hlink_cmp);
    if (n_cur < 2) {
        return FL_OK;
    }
    fl_node *ctrl[HOIST_MAX];
    int n_ctrl = 0, n_tails = 0, prefix = 0;
    while (n_cur > 0 && hoist_safe(a, r, cur, n_cur)) {
        prefix++;
        memcpy(tails, cur, (size_t)n_cur * sizeof(hlink));
        n_tails = n_cur;
        n_ctrl = gather_ctrl(tails, n_tails, ctrl, n_ctrl);
        n_cur = advance(a, concat, tails, n_tails, cur);
        if (n_cur < 0) {
            break;
        }
    }
    if (prefix == 0 || n_tails == 0) {
        return FL_OK;
    }
    if (!concat) {
        /* a control input reached from the Split would close a cycle */
        for (int j = 0; j < n_ctrl; j++) {
            if (depends_on(a, ctrl[j], r)) {
                return FL_OK;
            }
        }
        return hoist_split(a, r, tails, n_tails, prefix, ctrl, n_ctrl);
    }
    return hoist_concat(a, r, tails, n_tails, prefix, ctrl, n_ctrl);
}
