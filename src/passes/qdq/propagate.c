/*
 * propagate.c - QDQ propagation, the first step of the qdq pass: ONNX
 * Runtime's QDQPropagationTransformer (onnxruntime/core/optimizer/
 * qdq_transformer/qdq_propagation.cc, a 'basic'-level rule of ORT 1.30,
 * which therefore runs before the 'extended' QDQ fusion of fuse.c). A
 * quantizer often leaves a data-movement op between a QuantizeLinear and
 * the op it belongs to (Conv -> Transpose -> Q, DQ -> Reshape -> MatMul):
 * the fusion then finds no group. Propagation inserts a QuantizeLinear ->
 * DequantizeLinear pair with the same parameters on the other side of the
 * data-movement op; the fusion then makes the op's neighbour an integer
 * operator and runs the data-movement op itself on the integers (qdq_drop).
 *
 * Propagating ops P (ORT's CanNodePropagate): ai.onnx Transpose, Reshape,
 * Squeeze, Unsqueeze, Slice, and MaxPool from opset 12. Only input 0 and
 * output 0 of P are followed.
 *
 * Q and DQ nodes taken (ORT's MatchQNode/MatchDQNode): ai.onnx
 * QuantizeLinear/DequantizeLinear of a model of opset 10..22 (their
 * definitions of version 10, 13, 19, 21; ORT 1.30 matches no later one),
 * and com.microsoft's; scale a constant scalar (rank 0, or rank 1 of one
 * element: ORT's IsScalarOr1ElementVector), the zero point absent or the
 * same (QOrDQNodeHasConstantScalarScaleAndZeroPoint). A constant whose
 * content was stripped counts (only its shape is needed here).
 *
 * An edge A:p -> B:i: "single" when A is not a graph output and output p
 * of A has exactly that one reading edge (a node reading it twice counts
 * twice), or when A is a graph input or an initializer (Placeholder,
 * Const: then any number of readers).
 *
 * Q backward (first, for every Q of the graph as it was, in topological
 * order): from the edge into Q's input 0 (single), while its source P
 * propagates and the edge into P's input 0 is single, that edge gets a pair
 * with Q's scale, zero point and attrs; it stops at an edge from a DQ
 * (nothing to quantize again) and after an edge from a graph input or
 * initializer.
 *   A -> Transpose -> Q   =>   A -> Q' -> DQ' -> Transpose -> Q
 *
 * DQ forward (then, for every DQ of the graph as it was, in topological
 * order): the DQ has exactly one reading edge and is not a graph output; if
 * its reader P propagates, every edge out of P's output 0 gets the DQ's
 * scale, zero point and attrs (one Q after P, one DQ per reading edge),
 * then breadth first the same after each reader that propagates. A group
 * of edges one of which ends in a Q is left as it is (no pair needed
 * there), and so is everything past it.
 *   DQ -> Reshape -> {Conv, Relu}  =>  DQ -> Reshape -> Q' -> {DQ' -> Conv,
 *                                                              DQ'' -> Relu}
 * New nodes are named after the value they quantize (A_q, A_dq, A_dq_1...)
 * and are not themselves starting points in this run (ORT's list of nodes
 * is taken before it inserts any).
 *
 * Deviation: an output of P that is also a graph output is not given a
 * pair (ORT moves the output's name onto the new DequantizeLinear; foldline
 * keeps value names on the nodes that made them): the forward propagation
 * stops before it. ORT's own condition already refuses such an edge in the
 * backward direction.
 *
 * Counts: each pair adds 1 + (reading edges) nodes and one qdq_propagation
 * record, named after P. The float values are unchanged up to the rounding
 * the model's quantization already implies (ORT runs the same graph).
 */
#include "passes/qdq/qdq.h"
#include "passes/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_READERS 64 /* reading edges of one value a group takes */

typedef struct pedge {
    fl_node *src; /* the producer (a Placeholder or Const for an input edge) */
    int port;
    fl_node *dst; /* the reader and its input */
    int input;
    bool from_input; /* src is a graph input or initializer */
} pedge;

/* A Q inserted on output `port` of an original node (chained per node). */
typedef struct inserted {
    fl_node *q;
    int port;
    int32_t next; /* index of the next one of the same node, -1 at the end */
} inserted;

typedef struct pctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    fl_uses uses;
    size_t n0;      /* nodes when the use lists were built */
    int32_t *first; /* per original id: first entry in `ins`, -1 when none */
    inserted *ins;  /* malloc'd */
    size_t n_ins, cap_ins;
    fl_node **queue; /* malloc'd, n0 entries: the forward walk's nodes */
    bool *queued;    /* per original id */
    bool changed;
    fl_status st;
} pctx;

static bool live(const fl_node *n) {
    return !(n->flags & FL_NODE_REMOVED);
}

static bool onnx_qdq_version_ok(const pctx *x) {
    return x->g->onnx.opset >= 10 && x->g->onnx.opset <= 22;
}

static bool match_q(const pctx *x, const fl_node *n) {
    return n && live(n) &&
           ((n->kind == FL_OP_ONNX_QUANTIZE_LINEAR && onnx_qdq_version_ok(x)) ||
            n->kind == FL_OP_ONNX_MS_QUANTIZE_LINEAR);
}

static bool match_dq(const pctx *x, const fl_node *n) {
    return n && live(n) &&
           ((n->kind == FL_OP_ONNX_DEQUANTIZE_LINEAR && onnx_qdq_version_ok(x)) ||
            n->kind == FL_OP_ONNX_MS_DEQUANTIZE_LINEAR);
}

static bool can_propagate(const pctx *x, const fl_node *n) {
    switch (n->kind) {
    case FL_OP_ONNX_RESHAPE:
    case FL_OP_ONNX_TRANSPOSE:
    case FL_OP_ONNX_SQUEEZE:
    case FL_OP_ONNX_UNSQUEEZE:
    case FL_OP_ONNX_SLICE:
        return live(n);
    case FL_OP_ONNX_MAX_POOL:
        return live(n) && x->g->onnx.opset >= 12;
    default:
        return false;
    }
}

static bool is_input(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_CONST;
}

static bool present(const fl_node *n, int i) {
    return i < n->n_inputs && n->inputs[i].node && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT;
}

/* Input i of n is a constant scalar: a Const (also a stripped one) or a
 * computed value, of rank 0 or rank 1 with one element. */
static bool const_scalar(const fl_node *n, int i) {
    const fl_tensor *t = fl_node_in(n, i);
    bool constant =
        n->inputs[i].node->kind == FL_OP_CONST || (t->value && fl__value_is_concrete(t->value));
    bool scalar = t->shape.rank == 0 || (t->shape.rank == 1 && fl_sym_is_known(t->shape.dims[0]) &&
                                         t->shape.dims[0].k == 1);
    return constant && scalar;
}

static bool params_ok(const fl_node *n) {
    return present(n, 1) && const_scalar(n, 1) && (!present(n, 2) || const_scalar(n, 2));
}

/* ---- edges ---- */

/* The reading edges of output `port` of n, at most `cap` stored in out;
 * the count is returned. For an original node: its use lists without the
 * edges moved since, and the Qs inserted on it. */
static size_t readers(const pctx *x, fl_node *n, int port, pedge *out, size_t cap) {
    size_t k = 0, cnt;
    if (n->id >= x->n0) {
        return 2; /* a node of this run: never followed */
    }
    const fl_use *u = fl__uses_of(&x->uses, n, port, &cnt);
    for (size_t i = 0; i < cnt; i++) {
        const fl_input *in = &u[i].node->inputs[u[i].input];
        if (live(u[i].node) && in->node == n && in->port == port) {
            if (k < cap) {
                out[k] = (pedge){n, port, u[i].node, u[i].input, false};
            }
            k++;
        }
    }
    for (int32_t j = x->first[n->id]; j >= 0; j = x->ins[j].next) {
        if (x->ins[j].port == port) {
            if (k < cap) {
                out[k] = (pedge){n, port, x->ins[j].q, 0, false};
            }
            k++;
        }
    }
    return k;
}

/* ORT's GetPreviousEdge: the edge into input 0 of n, when single. */
static bool prev_edge(const pctx *x, fl_node *n, pedge *e) {
    if (!present(n, 0)) {
        return false;
    }
    fl_node *src = n->inputs[0].node;
    int port = n->inputs[0].port;
    *e = (pedge){src, port, n, 0, is_input(src)};
    if (e->from_input || src->id >= x->n0) {
        return true; /* a node of this run is a DQ: the walk stops at it */
    }
    pedge tmp;
    return !fl__preserved(src) && readers(x, src, port, &tmp, 1) == 1;
}

/* ORT's GetPreviousPropagationEdge. */
static bool prev_prop_edge(const pctx *x, const pedge *e, pedge *out) {
    return !e->from_input && can_propagate(x, e->src) && prev_edge(x, e->src, out);
}

/* ---- inserting a pair ---- */

static void fail(pctx *x, fl_status st) {
    if (x->st == FL_OK) {
        x->st = st;
    }
}

static void fail_oom(pctx *x) {
    fail(x, fl__diag_oom(x->d));
}

/* Records that q now reads output `port` of original node n. */
static void note_inserted(pctx *x, fl_node *n, int port, fl_node *q) {
    if (n->id >= x->n0) {
        return;
    }
    if (x->n_ins == x->cap_ins) {
        size_t cap = x->cap_ins ? 2 * x->cap_ins : 16;
        inserted *p = realloc(x->ins, cap * sizeof(*p));
        if (!p) {
            fail_oom(x);
            return;
        }
        x->ins = p;
        x->cap_ins = cap;
    }
    x->ins[x->n_ins] = (inserted){q, port, x->first[n->id]};
    x->first[n->id] = (int32_t)x->n_ins++;
}

/* A new Q or DQ (kind) named base+suffix with inputs (data, origin's scale
 * and zero point) and origin's attrs (only axis and block_size for a DQ
 * made from a Q: the attrs both definitions have), inferred. */
static fl_node *add_qdq(pctx *x, int kind, const char *base, const char *suffix, fl_input data,
                        const fl_node *origin) {
    char *nm = fl__arena_printf(x->g->arena, "%s%s", base, suffix);
    const char *name = nm ? fl__graph_unique_name(x->g, nm) : NULL;
    fl_input in[3] = {data, origin->inputs[1], present(origin, 2) ? origin->inputs[2] : data};
    const char *full = fl__op_name(kind), *sep = strstr(full, "::");
    fl_node *n = name ? fl__op_add_op(x->g, name, sep ? sep + 2 : full, present(origin, 2) ? 3 : 2,
                                      in, 1, x->d)
                      : NULL;
    if (!n) {
        fail_oom(x);
        return NULL;
    }
    fl__op_bind_kind(n, kind);
    n->device = origin->device ? origin->device : "";
    bool q_to_dq = match_q(x, origin) && (kind == FL_OP_ONNX_DEQUANTIZE_LINEAR ||
                                          kind == FL_OP_ONNX_MS_DEQUANTIZE_LINEAR);
    for (int i = 0; i < origin->n_attrs; i++) {
        const char *an = origin->attrs[i].name;
        if (q_to_dq && strcmp(an, "axis") != 0 && strcmp(an, "block_size") != 0) {
            continue;
        }
        if (fl__node_set_attr(x->g, n, &origin->attrs[i]) != FL_OK) {
            fail_oom(x);
            return NULL;
        }
    }
    fl_status s = fl__infer_node(x->pc, n);
    if (s != FL_OK) {
        fail(x, x->d->status != FL_OK ? x->d->status : s);
        return NULL;
    }
    x->pc->added++;
    return n;
}

/* ORT's InsertQDQPairs: a Q on the value the edges read (all from one
 * output), one DQ per edge feeding its reader; the parameters of origin.
 * `at` names the propagating node the ledger record is about. */
static void insert_pairs(pctx *x, const pedge *e, size_t n, const fl_node *origin,
                         const fl_node *at) {
    bool from_q = match_q(x, origin);
    int q_kind = origin->kind == FL_OP_ONNX_MS_QUANTIZE_LINEAR ||
                         origin->kind == FL_OP_ONNX_MS_DEQUANTIZE_LINEAR
                     ? FL_OP_ONNX_MS_QUANTIZE_LINEAR
                     : FL_OP_ONNX_QUANTIZE_LINEAR;
    int dq_kind = q_kind == FL_OP_ONNX_QUANTIZE_LINEAR ? FL_OP_ONNX_DEQUANTIZE_LINEAR
                                                       : FL_OP_ONNX_MS_DEQUANTIZE_LINEAR;
    const char *base = e[0].port == 0
                           ? e[0].src->name
                           : fl__arena_printf(x->g->arena, "%s_%d", e[0].src->name, e[0].port);
    fl_node *q =
        base ? add_qdq(x, q_kind, base, "_q", (fl_input){e[0].src, e[0].port}, origin) : NULL;
    if (!q) {
        if (!base) {
            fail_oom(x);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fl_node *dq = add_qdq(x, dq_kind, base, "_dq", (fl_input){q, 0}, origin);
        if (!dq) {
            return;
        }
        fl__node_set_input(x->g, e[i].dst, e[i].input, (fl_input){dq, 0});
    }
    note_inserted(x, e[0].src, e[0].port, q);
    x->changed = true;
    fl__ledger_note(x->pc, "qdq_propagation", at,
                    "%s %s %s: QuantizeLinear -> %zu DequantizeLinear inserted between %s and %s%s "
                    "(its scale and zero point)",
                    origin->op, origin->name, from_q ? "moved backward" : "moved forward", n,
                    e[0].src->name, e[0].dst->name, n > 1 ? " and the other readers" : "");
}

/* ---- the two directions ---- */

/* ORT's PropagateQBackward from q. */
static void q_backward(pctx *x, fl_node *q) {
    pedge cur, prev;
    if (!match_q(x, q) || !params_ok(q) || !prev_edge(x, q, &cur)) {
        return;
    }
    while (x->st == FL_OK && prev_prop_edge(x, &cur, &prev)) {
        if (!prev.from_input && match_dq(x, prev.src)) {
            break;
        }
        insert_pairs(x, &prev, 1, q, prev.dst);
        cur = prev;
    }
}

/* The group of edges out of output 0 of p, or 0 when it is left (a graph
 * output, a Q among the readers, more readers than the rule takes). */
static size_t group_of(const pctx *x, fl_node *p, pedge *out) {
    if (fl__preserved(p)) {
        return 0; /* the deviation in the header */
    }
    size_t n = readers(x, p, 0, out, MAX_READERS);
    if (n > MAX_READERS) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (match_q(x, out[i].dst)) {
            return 0;
        }
    }
    return n;
}

static void enqueue(pctx *x, fl_node *p, size_t *tail) {
    if (p->id < x->n0 && can_propagate(x, p) && !x->queued[p->id]) {
        x->queued[p->id] = true;
        x->queue[(*tail)++] = p;
    }
}

/* ORT's PropagateDQForward from dq (breadth first). */
static void dq_forward(pctx *x, fl_node *dq) {
    pedge first, group[MAX_READERS];
    if (!match_dq(x, dq) || !params_ok(dq) || fl__preserved(dq) ||
        readers(x, dq, 0, &first, 1) != 1) {
        return;
    }
    size_t head = 0, tail = 0;
    enqueue(x, first.dst, &tail);
    while (head < tail && x->st == FL_OK) {
        fl_node *p = x->queue[head++];
        size_t n = group_of(x, p, group);
        if (n == 0) {
            continue;
        }
        insert_pairs(x, group, n, dq, p);
        for (size_t i = 0; i < n; i++) {
            enqueue(x, group[i].dst, &tail);
        }
    }
    for (size_t i = 0; i < tail; i++) {
        x->queued[x->queue[i]->id] = false;
    }
}

fl_status fl__qdq_propagate(fl_pass_ctx *pc) {
    pctx x = {0};
    x.pc = pc;
    x.g = pc->c->g;
    x.d = pc->c->d;
    fl_status s;
    if (!x.g->order && (s = fl__graph_toposort(x.g, x.d)) != FL_OK) {
        return s;
    }
    size_t n = x.n0 = x.g->n_nodes;
    fl_node **order = fl__arena_calloc(x.g->arena, n ? n : 1, sizeof(*order));
    x.first = fl__arena_calloc(x.g->arena, n ? n : 1, sizeof(*x.first));
    x.queued = fl__arena_calloc(x.g->arena, n ? n : 1, sizeof(*x.queued));
    x.queue = fl__arena_calloc(x.g->arena, n ? n : 1, sizeof(*x.queue));
    if (!order || !x.first || !x.queued || !x.queue) {
        return fl__diag_oom(x.d);
    }
    memcpy(order, x.g->order, n * sizeof(*order));
    for (size_t i = 0; i < n; i++) {
        x.first[i] = -1;
    }
    if ((s = fl__uses_build(x.g, &x.uses, x.d)) != FL_OK) {
        return s;
    }
    for (size_t i = 0; i < n && x.st == FL_OK; i++) {
        q_backward(&x, order[i]);
    }
    for (size_t i = 0; i < n && x.st == FL_OK; i++) {
        dq_forward(&x, order[i]);
    }
    free(x.ins);
    if (x.st != FL_OK) {
        return x.st;
    }
    if (x.g->arena->failed) {
        return fl__diag_oom(x.d);
    }
    if (x.changed) {
        x.g->order = NULL;
    }
    return FL_OK;
}
