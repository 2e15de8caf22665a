/*
 * optimize.c - the transpose optimizer pass (pass name "transpose";
 * transpose.h), ONNX Runtime's level-1 TransposeOptimizer: it runs where
 * ONNX Runtime runs it, after constant folding and before the fusions of
 * its later levels (the remapper's ONNX rules, LayerNormFusion among them),
 * in the driver's first iteration only (ONNX Runtime does not run it again
 * after those fusions). On ONNX graphs with a Transpose and without
 * QuantizeLinear/DequantizeLinear (whose look-through rules are not
 * modelled).
 *
 * One round (OptimizeImpl):
 *  1. which values lead to a Transpose: walking the nodes backward, a
 *     Transpose's input does; so does every input a Transpose may be pushed
 *     from (handlers.c) of a node whose handler puts Transposes on its
 *     outputs and one of whose outputs leads to a Transpose;
 *  2. the nodes in topological order, as they were at the round's start:
 *     the first input of a node produced by a Transpose t with a valid perm
 *     P, from which the node's family may take it, is pushed through the
 *     node when the cost check says so (then the node's other inputs are not
 *     looked at in this round):
 *       - a Transpose node: always (they merge or cancel);
 *       - else the cost, summed over the inputs the family transposes:
 *         0 for a constant; -r for a Transpose by P all of whose readers
 *         have a handler (and which is no graph output), 0 for another
 *         Transpose; else r, where r is the number of the value's dims that
 *         are not 1 (5 for an unknown rank); when that sum is negative and
 *         the handler transposes the outputs, the largest r of the outputs
 *         is added unless one of them leads to a Transpose (step 1). It is
 *         pushed when the result is negative.
 * Rounds repeat while one changed the graph, up to 10 (ONNX Runtime's
 * level-1 loop). Ledger: transpose_push (the node and the Transpose pushed
 * through it), transpose_cancel / transpose_merge (a Transpose read by a
 * Transpose), transpose_reshape (a Reshape acting as a Transpose).
 */
#include "passes/pipeline.h"
#include "passes/transpose/transpose.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 10
#define MAX_IN     64

bool fl__pass_transpose_applies(const fl_graph *g) {
    if (!g->onnx.is_onnx) {
        return false;
    }
    bool any = false;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (fl__tp_is_qdq(n)) {
            return false;
        }
        any |= n->kind == FL_OP_ONNX_TRANSPOSE;
    }
    return any;
}

static bool out_transposed(const fl_node *n, tp_family f) {
    (void)n;
    return fl__tp_transposes_outputs(f);
}

static bool leads(const tp_ctx *x, const fl_node *n, int port) {
    return n->id < x->n_lead && port < 8 && (x->lead[n->id] >> port & 1);
}

static void mark_leads(tp_ctx *x, fl_node *const *order, size_t n) {
    memset(x->lead, 0, x->n_lead);
    for (size_t i = n; i-- > 0;) {
        const fl_node *m = order[i];
        if (m->kind == FL_OP_ONNX_TRANSPOSE) {
            if (m->n_inputs && m->inputs[0].port < 8) {
                x->lead[m->inputs[0].node->id] |= (uint8_t)(1u << m->inputs[0].port);
            }
            continue;
        }
        bool any = false;
        for (int o = 0; o < m->n_outputs && !any; o++) {
            any = leads(x, m, o);
        }
        tp_family f = any ? fl__tp_family(m) : TPF_NONE;
        if (!out_transposed(m, f)) {
            continue;
        }
        int ins[MAX_IN];
        int k = fl__tp_inputs(m, f, ins, MAX_IN);
        for (int j = 0; j < k; j++) {
            const fl_input *in = &m->inputs[ins[j]];
            if (in->port < 8) {
                x->lead[in->node->id] |= (uint8_t)(1u << in->port);
            }
        }
    }
}

static bool likely_removed(tp_ctx *x, const fl_node *t) {
    if (fl__preserved(t)) {
        return false;
    }
    fl_node *readers[MAX_IN];
    size_t nr = fl__tp_readers(x, t, 0, readers, MAX_IN);
    if (nr > MAX_IN) {
        return false;
    }
    for (size_t r = 0; r < nr; r++) {
        if (fl__tp_family(readers[r]) == TPF_NONE) {
            return false;
        }
    }
    return true;
}

static int value_cost(tp_ctx *x, const fl_input *in, const tp_perm *perm) {
    const fl_node *p = in->node;
    if (fl__is_const(p)) {
        return 0;
    }
    tp_perm p2;
    if (fl__tp_is_transpose(p) && fl__tp_perm_of(p, &p2)) {
        return fl__tp_same(&p2, perm) && likely_removed(x, p) ? -fl__tp_value_rank(in) : 0;
    }
    return fl__tp_value_rank(in);
}

static bool worth_pushing(tp_ctx *x, const fl_node *n, tp_family f, const tp_perm *perm,
                          const int *ins, int k) {
    if (f == TPF_TRANSPOSE) {
        return true;
    }
    int cost = 0;
    for (int j = 0; j < k; j++) {
        if (n->inputs[ins[j]].node->kind != FL_OP_ONNX_ABSENT) {
            cost += value_cost(x, &n->inputs[ins[j]], perm);
        }
    }
    if (cost < 0 && out_transposed(n, f)) {
        int out = 0;
        bool lead = false;
        for (int o = 0; o < n->n_outputs; o++) {
            fl_input v = {(fl_node *)n, o};
            int r = fl__tp_value_rank(&v);
            out = r > out ? r : out;
            lead |= leads(x, n, o);
        }
        if (!lead) {
            cost += out;
        }
    }
    return cost < 0;
}

/* ONNX Runtime's ProcessTranspose: t (perm) read by n at input j. */
static bool process(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm, int j) {
    tp_family f = fl__tp_family(n);
    if (f == TPF_NONE) {
        return false;
    }
    int ins[MAX_IN];
    int k = fl__tp_inputs(n, f, ins, MAX_IN);
    bool eligible = false;
    for (int i = 0; i < k; i++) {
        eligible |= ins[i] == j;
    }
    if (!eligible || !worth_pushing(x, n, f, perm, ins, k)) {
        return false;
    }
    const char *tname = t->name, *nname = n->name, *op = n->op;
    bool pair = f == TPF_TRANSPOSE;
    tp_perm q;
    bool cancel = pair && fl__tp_perm_of(n, &q) && q.n == perm->n;
    if (cancel) {
        tp_perm inv;
        fl__tp_invert(perm, &inv);
        cancel = fl__tp_same(&q, &inv);
    }
    if (!fl__tp_handle(x, t, n, perm, f, ins, k)) {
        return false;
    }
    if (pair) {
        fl__ledger_note(x->pc, cancel ? "transpose_cancel" : "transpose_merge", n,
                        "%s after %s: %s", nname, tname,
                        cancel ? "inverse permutations, both dropped" : "one Transpose");
    } else if (f == TPF_RESHAPE) {
        fl__ledger_note(x->pc, "transpose_reshape", n,
                        "%s after %s moves only dims of 1: taken as a Transpose", nname, tname);
    } else {
        fl__ledger_note(x->pc, "transpose_push", n, "%s pushed through %s (%s)", tname, nname, op);
    }
    return true;
}

static fl_status round_once(tp_ctx *x, bool *changed) {
    fl_graph *g = x->g;
    /* The order the graph had when the pass began, when compacting changes
     * nothing (the driver compacted after the last pass that changed the
     * graph and sorted it since): what a sort gives, as checks confirm. */
    fl_node **kept = g->order;
    uint64_t edits = g->edits;
    fl_status st = fl__graph_compact(g, x->d);
    bool same = st == FL_OK && kept && g->edits == edits;
    if (st == FL_OK && (!same || fl__checks_on())) {
        g->order = NULL;
        st = fl__graph_toposort(g, x->d);
        if (st == FL_OK && same && memcmp(kept, g->order, g->n_nodes * sizeof(*kept)) != 0) {
            st = fl__diag_fail(x->d, FL_EINTERNAL,
                               "internal error: the graph's order is not the one a sort gives");
        }
    } else if (same) {
        g->order = kept;
    }
    if (st != FL_OK) {
        return st;
    }
    size_t n = g->n_nodes;
    fl_node **order = malloc((n ? n : 1) * sizeof(*order));
    uint8_t *lead = calloc(n ? n : 1, 1);
    if (!order || !lead) {
        free(order);
        free(lead);
        return fl__diag_oom(x->d);
    }
    memcpy(order, g->order, n * sizeof(*order));
    x->lead = lead;
    x->n_lead = n;
    mark_leads(x, order, n);
    x->pushed = 0;
    for (size_t i = 0; i < n && x->st == FL_OK && !x->declined; i++) {
        fl_node *m = order[i];
        for (int j = 0; j < m->n_inputs && !(m->flags & FL_NODE_REMOVED); j++) {
            fl_node *t = m->inputs[j].node;
            tp_perm perm;
            if (fl__tp_is_transpose(t) && fl__tp_perm_of(t, &perm) && process(x, t, m, &perm, j)) {
                break;
            }
            if (x->st != FL_OK || x->declined) {
                break;
            }
        }
    }
    fl__tp_round_end(x);
    free(order);
    free(lead);
    x->lead = NULL;
    g->order = NULL;
    *changed = x->pushed > 0;
    return x->st;
}

fl_status fl__pass_transpose(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    if (!fl__pass_transpose_applies(g)) {
        return FL_OK;
    }
    tp_ctx x = {0};
    x.pc = pc;
    x.g = g;
    x.d = pc->c->d;
    x.opset = g->onnx.opset;
    bool changed = true;
    fl_status st = FL_OK;
    for (int r = 0; r < MAX_ROUNDS && changed && st == FL_OK && !x.declined; r++) {
        st = round_once(&x, &changed);
    }
    free(x.rbuf);
    if (st == FL_OK && x.declined) {
        return fl__node_fail(x.d, FL_EUNSUPPORTED, x.declined_at,
                             "ONNX Runtime's transpose optimizer would change this graph in a way "
                             "not modelled (%s); the graph is left as it was",
                             x.declined);
    }
    return st;
}
