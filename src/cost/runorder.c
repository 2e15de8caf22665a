/*
 * runorder.c - the order a runtime runs a graph's kernels in, and what the
 * kernels before each one streamed (roofline.h).
 *
 * ONNX Runtime's sequential executor runs an ONNX graph in its graph
 * viewer's default topological order, which depends on the graph alone: a
 * reverse depth-first search from the leaf nodes (kernels no other kernel
 * reads), taken in node order onto a stack; the kernel on top is taken and,
 * the first time, put back marked, then its producers (the kernels whose
 * outputs it reads, each once, in ascending node order) that were not seen
 * yet are pushed; a marked kernel is listed when it comes off the stack
 * again, so after every producer. Constant nodes are no kernels (the runtime
 * turns them into initializers when it loads the graph), nor are graph
 * inputs and initializers. A graph of another format runs in its
 * topological order (the node order when it has none).
 */
#include "cost/roofline.h"

#include <stdint.h>

static bool is_kernel(const fl_node *n) {
    return n->kind != FL_OP_CONST && n->kind != FL_OP_PLACEHOLDER && n->kind != FL_OP_ONNX_ABSENT;
}

/* The distinct kernel producers of n's data inputs, ascending, into p
 * (room for n->n_inputs); returns their count. */
static int producers(const fl_node *n, uint32_t *p) {
    int k = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_node *s = n->inputs[i].node;
        if (!s || !is_kernel(s)) {
            continue;
        }
        int j = k;
        while (j > 0 && p[j - 1] > s->id) { /* insertion: inputs are few */
            j--;
        }
        if (j > 0 && p[j - 1] == s->id) {
            continue;
        }
        for (int m = k; m > j; m--) {
            p[m] = p[m - 1];
        }
        p[j] = s->id;
        k++;
    }
    return k;
}

/* The reverse depth-first search (see the top of the file). */
static fl_status reverse_dfs(const fl_graph *g, fl_arena *sa, fl_run_order *r) {
    size_t n = g->n_nodes, edges = 0;
    int most = 0;
    for (size_t i = 0; i < n; i++) {
        edges += (size_t)g->nodes[i]->n_inputs;
        most = g->nodes[i]->n_inputs > most ? g->nodes[i]->n_inputs : most;
    }
    /* each kernel is pushed once as a leaf or by a consumer per edge, and
     * once marked */
    size_t cap = 2 * n + edges + 1;
    uint64_t *stack = fl__arena_scratch(sa, cap, sizeof(*stack));
    bool *flag = fl__arena_scratch(sa, n + 1, sizeof(*flag));
    uint32_t *prod = fl__arena_scratch(sa, (size_t)most + 1, sizeof(*prod));
    fl_status st = stack && flag && prod ? FL_OK : FL_ENOMEM;
    size_t top = 0;
    for (size_t i = 0; st == FL_OK && i < n; i++) { /* flag: read by a kernel */
        const fl_node *nd = g->nodes[i];
        for (int k = 0; is_kernel(nd) && k < nd->n_inputs; k++) {
            if (nd->inputs[k].node) {
                flag[nd->inputs[k].node->id] = true;
            }
        }
    }
    for (size_t i = 0; st == FL_OK && i < n; i++) {
        if (is_kernel(g->nodes[i]) && !flag[i]) {
            stack[top++] = (uint64_t)i << 1;
        }
    }
    for (size_t i = 0; st == FL_OK && i < n; i++) { /* flag: seen */
        flag[i] = false;
    }
    while (st == FL_OK && top > 0) {
        uint64_t e = stack[--top];
        const fl_node *nd = g->nodes[e >> 1];
        if (e & 1) {
            r->pos[nd->id] = r->n;
            r->order[r->n++] = nd;
            continue;
        }
        if (flag[nd->id]) {
            continue;
        }
        flag[nd->id] = true;
        stack[top++] = e | 1;
        int np = producers(nd, prod);
        for (int k = 0; k < np; k++) {
            if (!flag[prod[k]]) {
                stack[top++] = (uint64_t)prod[k] << 1;
            }
        }
    }
    fl__arena_scratch_free(sa, stack);
    fl__arena_scratch_free(sa, flag);
    fl__arena_scratch_free(sa, prod);
    return st;
}

fl_status fl__run_order_build(const fl_graph *g, fl_arena *sa, fl_run_order *r) {
    size_t n = g->n_nodes;
    r->n = 0;
    r->order = fl__arena_scratch(sa, n + 1, sizeof(*r->order));
    r->pos = fl__arena_scratch(sa, n + 1, sizeof(*r->pos));
    if (!r->order || !r->pos) {
        fl__run_order_free(sa, r);
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        r->pos[i] = SIZE_MAX;
    }
    if (g->onnx.is_onnx) {
        fl_status st = reverse_dfs(g, sa, r);
        if (st != FL_OK) {
            fl__run_order_free(sa, r);
        }
        return st;
    }
    for (size_t k = 0; k < n; k++) {
        const fl_node *nd = g->order ? g->order[k] : g->nodes[k];
        if (is_kernel(nd)) {
            r->pos[nd->id] = r->n;
            r->order[r->n++] = nd;
        }
    }
    return FL_OK;
}

void fl__run_order_free(fl_arena *sa, fl_run_order *r) {
    fl__arena_scratch_free(sa, r->order);
    fl__arena_scratch_free(sa, r->pos);
    r->order = NULL;
    r->pos = NULL;
    r->n = 0;
}

void fl__run_order_before(const fl_run_order *r, const double *v, size_t window, double *out) {
    for (size_t k = 0; k < r->n; k++) {
        double sum = 0;
        for (size_t j = 1; j <= window && j <= k; j++) {
            sum += v[r->order[k - j]->id];
        }
        out[r->order[k]->id] = sum;
    }
}
