/*
 * reuse.c - how far back an op's operands were last touched (their reuse
 * distance), which decides the memory level that serves them (roofline.h).
 *
 * A kernel streams each operand from wherever it lies when the kernel runs.
 * An activation was written by its producer: since then the ops run in
 * between wrote their outputs and read their weights, and an LRU cache has
 * kept the last bytes touched. The operand's distance is the bytes the ops
 * between producer and consumer brought in (their outputs and weights) plus
 * the operand itself. A weight or graph input was last touched one run
 * before (inference runs the graph again and again): its distance is what a
 * whole run touches, the weights plus the most activation bytes live at
 * once (a runtime's planner reuses activation buffers). Ops that alias their
 * input (Reshape, Identity) pass their producer's data on.
 */
#include "cost/cost.h"
#include "cost/roofline.h"

#include <stdint.h>

/* The bytes of a tensor with a known shape, 0 otherwise (sub-byte types at
 * one byte per element: an upper bound). */
double fl__roofline_tensor_bytes(const fl_tensor *t) {
    if (!t || t->shape.rank < 0) {
        return 0;
    }
    double n = 1;
    for (int i = 0; i < t->shape.rank; i++) {
        if (!fl_sym_is_known(t->shape.dims[i])) {
            return 0;
        }
        n *= (double)t->shape.dims[i].k;
    }
    return n * (double)fl__dtype_size(fl_dtype_base(t->dtype));
}

static bool moves_bytes(const fl_node *n) {
    return !(n->desc && (n->desc->flags & (FL_OPF_NO_BYTES | FL_OPF_ALIAS))) &&
           !fl__node_cost_per_load(n) && !fl__cost_is_value_node(n);
}

/* The node whose data input i of n reads: through ops that alias their
 * input (a bounded walk). */
static const fl_node *source_of(const fl_node *n, int i) {
    const fl_node *p = n->inputs[i].node;
    for (int step = 0; p && step < 64; step++) {
        if (!p->desc || !(p->desc->flags & FL_OPF_ALIAS) || p->n_inputs < 1 ||
            fl__cost_is_value_node(p)) {
            break;
        }
        p = p->inputs[0].node;
    }
    return p;
}

static double input_bytes(const fl_node *n, int i) {
    const fl_node *p = n->inputs[i].node;
    int port = n->inputs[i].port;
    return p && port >= 0 && port < p->n_outputs ? fl__roofline_tensor_bytes(&p->outputs[port]) : 0;
}

/* The bytes an op brings into the caches: its outputs and the weights it
 * reads. */
static double new_bytes(const fl_node *n) {
    if (!moves_bytes(n) || fl__node_cost_incomplete(n)) {
        return 0;
    }
    double b = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        b += fl__roofline_tensor_bytes(&n->outputs[k]);
    }
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_node *p = source_of(n, i);
        if (p && fl__cost_is_value_node(p) && p->kind != FL_OP_PLACEHOLDER) {
            b += input_bytes(n, i);
        }
    }
    return b;
}

fl_status fl__reuse_build(const fl_graph *g, fl_arena *sa, fl_reuse *r) {
    size_t n = g->n_nodes;
    r->n = n;
    r->far = 0;
    r->pos = fl__arena_scratch(sa, n + 1, sizeof(*r->pos));
    r->prefix = fl__arena_scratch(sa, n + 2, sizeof(*r->prefix));
    double *live = fl__arena_scratch(sa, n + 2, sizeof(*live));
    size_t *last = fl__arena_scratch(sa, n + 1, sizeof(*last));
    if (!r->pos || !r->prefix || !live || !last) {
        fl__arena_scratch_free(sa, live);
        fl__arena_scratch_free(sa, last);
        fl__reuse_free(sa, r);
        return FL_ENOMEM;
    }
    /* the execution order: the topological one when the graph has it */
    for (size_t k = 0; k < n; k++) {
        const fl_node *nd = g->order ? g->order[k] : g->nodes[k];
        r->pos[nd->id] = k;
    }
    double weights = 0;
    for (size_t k = 0; k < n; k++) {
        const fl_node *nd = g->order ? g->order[k] : g->nodes[k];
        r->prefix[k + 1] = r->prefix[k] + new_bytes(nd);
        last[nd->id] = moves_bytes(nd) ? n : 0; /* unread outputs live to the end */
        if (fl__cost_is_value_node(nd) && nd->kind != FL_OP_PLACEHOLDER) {
            for (int o = 0; o < nd->n_outputs; o++) {
                weights += fl__roofline_tensor_bytes(&nd->outputs[o]);
            }
        }
    }
    for (size_t k = 0; k < n; k++) { /* the last reader of each activation */
        const fl_node *nd = g->nodes[k];
        for (int i = 0; i < nd->n_inputs; i++) {
            const fl_node *p = source_of(nd, i);
            if (p && moves_bytes(p) && (last[p->id] == n || r->pos[nd->id] > last[p->id])) {
                last[p->id] = r->pos[nd->id];
            }
        }
    }
    for (size_t k = 0; k < n; k++) { /* outputs live from their producer to their last reader */
        const fl_node *nd = g->nodes[k];
        if (!moves_bytes(nd) || fl__node_cost_incomplete(nd)) {
            continue;
        }
        double b = 0;
        for (int o = 0; o < nd->n_outputs; o++) {
            b += fl__roofline_tensor_bytes(&nd->outputs[o]);
        }
        size_t from = r->pos[nd->id], to = last[nd->id] < from ? from : last[nd->id];
        live[from] += b;
        live[to + 1 > n ? n + 1 : to + 1] -= b;
    }
    double cur = 0, peak = 0;
    for (size_t k = 0; k <= n; k++) {
        cur += live[k];
        peak = cur > peak ? cur : peak;
    }
    r->far = weights + peak;
    fl__arena_scratch_free(sa, live);
    fl__arena_scratch_free(sa, last);
    return FL_OK;
}

void fl__reuse_free(fl_arena *sa, fl_reuse *r) {
    fl__arena_scratch_free(sa, r->pos);
    fl__arena_scratch_free(sa, r->prefix);
    r->pos = NULL;
    r->prefix = NULL;
}

double fl__reuse_input(const fl_reuse *r, const fl_node *n, int i, double *bytes) {
    *bytes = input_bytes(n, i);
    const fl_node *p = source_of(n, i);
    if (!r || !r->pos || !p) {
        return -1;
    }
    if (p->kind == FL_OP_PLACEHOLDER) {
        return *bytes; /* the caller has just written it */
    }
    if (fl__cost_is_value_node(p)) {
        return r->far > *bytes ? r->far : *bytes;
    }
    size_t at = r->pos[n->id], from = r->pos[p->id];
    if (from >= at) {
        return -1; /* not in execution order (a loop's back edge, a graph without an order) */
    }
    return r->prefix[at] - r->prefix[from + 1] + *bytes;
}
