/*
 * act_q.c - ONNX Runtime's ReluQuantFusion and ClipQuantFusion (rules of
 * its 'extended' level, onnxruntime/core/optimizer/qdq_transformer/
 * relu_quantizelinear.cc and clip_quantizelinear.cc): a Relu or Clip whose
 * only reader is a QuantizeLinear that clamps to the same range anyway is
 * removed, the QuantizeLinear reading the Relu's or Clip's input instead.
 * ORT applies them before its QDQ fusion, so they also act where the group
 * around them stays float: a float Conv -> Relu -> QuantizeLinear becomes
 * Conv -> QuantizeLinear there, not FusedConv (checked against ORT 1.30's
 * 'extended' graphs: a group whose bias scale fails its check, Relu with
 * zero point 0 and 10, int8 -128, Clip(0, 6) at scale 6/255).
 *
 * R is the Relu or Clip, Q the QuantizeLinear (both of the ONNX domain):
 *  - R's output 0 has exactly one reader, Q (at its input 0), is not a
 *    graph output, and no control edge leaves R or enters Q;
 *  - Q has all three inputs, its zero point a constant of one element with
 *    a known value (ORT: an initializer);
 *  qdq_relu_quant: the zero point is the type's minimum where ORT checks it
 *    (int8 -128, uint8 0); ORT checks no other type, so a 16-bit zero point
 *    passes whatever its value, as there;
 *  qdq_clip_quant: Q's scale a float constant of rank 0 with a known value,
 *    its zero point of rank 0, int8 or uint8 (ORT refuses other types);
 *    Clip's bounds known (inputs 1 and 2 from opset 11, absent ones
 *    unbounded; attrs min and max before). In float arithmetic, as ORT:
 *    lower = s * (qmin - zp), upper = s * (qmax - zp); R is removed when
 *    min - lower <= FLT_EPSILON and upper - max <= FLT_EPSILON (the Clip
 *    clips nothing Q's range keeps).
 * Counters: R removed, Q rewritten.
 */
#include "passes/qdq/qdq.h"
#include "passes/util.h"

#include <float.h>
#include <math.h>

typedef struct actx {
    fl_pass_ctx *pc;
    fl_uses uses;
    size_t n0;
} actx;

/* Input i of n is a constant with a known first element *v. */
static bool known_const(const fl_node *n, int i, double *v) {
    if (i >= n->n_inputs || !n->inputs[i].node || n->inputs[i].node->kind == FL_OP_ONNX_ABSENT) {
        return false;
    }
    const fl_tensor *t = fl_node_in(n, i);
    return t->value && fl__value_is_concrete(t->value) && fl__value_f64(t->value, 0, v);
}

static bool relu_redundant(const fl_node *q, double zp) {
    switch (fl_node_in(q, 2)->dtype) {
    case FL_DT_INT8:
        return zp == -128;
    case FL_DT_UINT8:
        return zp == 0;
    default:
        return true;
    }
}

static bool clip_redundant(const fl_node *clip, const fl_node *q, double zp) {
    const fl_tensor *st = fl_node_in(q, 1), *zt = fl_node_in(q, 2);
    double s, mn, mx;
    if (st->dtype != FL_DT_FLOAT || st->shape.rank != 0 || zt->shape.rank != 0 ||
        !known_const(q, 1, &s) || !fl__qdq_clip_bound(clip, 1, "min", -INFINITY, &mn) ||
        !fl__qdq_clip_bound(clip, 2, "max", INFINITY, &mx)) {
        return false;
    }
    int qmin, qmax;
    if (zt->dtype == FL_DT_INT8) {
        qmin = -128, qmax = 127;
    } else if (zt->dtype == FL_DT_UINT8) {
        qmin = 0, qmax = 255;
    } else {
        return false;
    }
    float scale = (float)s, lo = (float)mn, hi = (float)mx;
    float lower = scale * (float)(qmin - (int)zp), upper = scale * (float)(qmax - (int)zp);
    return !(FLT_EPSILON < lo - lower) && !(FLT_EPSILON < upper - hi);
}

static bool drop_at(actx *x, fl_node *q) {
    if (q->kind != FL_OP_ONNX_QUANTIZE_LINEAR || q->n_inputs != 3 || q->inputs[0].port != 0 ||
        q->n_ctrl > 0) {
        return false;
    }
    fl_node *r = q->inputs[0].node;
    if ((r->kind != FL_OP_ONNX_RELU && r->kind != FL_OP_ONNX_CLIP) || r->id >= x->n0 ||
        r->n_inputs < 1 || fl__preserved(r) || x->uses.ctrl_counts[r->id] > 0) {
        return false;
    }
    size_t cnt, live = 0;
    const fl_use *u = fl__uses_of(&x->uses, r, 0, &cnt);
    for (size_t i = 0; i < cnt; i++) {
        live += !(u[i].node->flags & FL_NODE_REMOVED);
    }
    double zp;
    int64_t zlen;
    if (live != 1 || !known_const(q, 2, &zp) ||
        !fl__qdq_one_elem(&fl_node_in(q, 2)->shape, &zlen) ||
        !(r->kind == FL_OP_ONNX_RELU ? relu_redundant(q, zp) : clip_redundant(r, q, zp))) {
        return false;
    }
    fl_graph *g = x->pc->c->g;
    fl__node_set_input(g, q, 0, r->inputs[0]);
    fl__graph_remove_node(r);
    x->pc->removed++;
    x->pc->rewritten++;
    bool relu = r->kind == FL_OP_ONNX_RELU;
    fl__ledger_note(x->pc, relu ? "qdq_relu_quant" : "qdq_clip_quant", r,
                    "%s -> QuantizeLinear (zero point %.0f) => QuantizeLinear: its range clamps as "
                    "the %s did",
                    r->op, zp, r->op);
    return true;
}

/* Each Q is looked at once, in any order: a removal rewires only its own Q
 * and marks only its own R, which no other Q's conditions read (a Relu
 * feeding the removed one still counts it as its reader: left for the
 * next iteration, as ORT's next round of rules would take it). */
fl_status fl__qdq_drop_activations(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    actx x = {0};
    x.pc = pc;
    x.n0 = g->n_nodes;
    fl_status s = fl__uses_build(g, &x.uses, pc->c->d);
    if (s != FL_OK) {
        return s;
    }
    bool changed = false;
    for (size_t i = 0; i < x.n0; i++) {
        if (!(g->nodes[i]->flags & FL_NODE_REMOVED)) {
            changed |= drop_at(&x, g->nodes[i]);
        }
    }
    if (g->arena->failed) {
        return fl__diag_oom(pc->c->d);
    }
    return changed ? fl__graph_compact(g, pc->c->d) : FL_OK;
}
