/*
 * onnx_reshape.c - ONNX Runtime's ReshapeFusion (one of its level-1
 * transformers, run before its fusions and its transpose optimizer) as a
 * constant folding rule over ONNX operators.
 *
 *  reshape_fusion: Reshape(x, Concat(p_0, ..., p_k-1)), the Concat read
 *  only by the Reshape and not a graph output, where every part p_i is
 *    - a constant of int64 or int32 values: those values, or
 *    - Unsqueeze(Gather(Shape(x), j), axes [0]) (axes the attr or, from
 *      opset 13, a constant input), the Shape reading the Reshape's own x
 *      and j a one-element integer constant equal to the number of values
 *      before this part (the dim of x at that position): 0, which Reshape
 *      reads as "copy x's dim";
 *  =>  the Concat becomes the int64 constant of those values (its name and
 *  output name kept); the Shape, Gather and Unsqueeze nodes nothing reads
 *  any more go with the pass's unused-node sweep. The Reshape's output
 *  shape is the same: each 0 stands where the Shape chain gave x's own dim.
 *  So a transformer's head split Reshape(q, Concat(batch, seq, 2, 8)) reads
 *  the constant [0, 0, 2, 8], as in ONNX Runtime's graph.
 *  Conditions: the model's ai.onnx opset 5 to 14 (ONNX Runtime matches
 *  Reshape of versions 5, 13 and 14 and Shape of versions 1 and 13), the
 *  Reshape's allowzero 0 (ONNX Runtime does not look at it; with allowzero
 *  1 a 0 would be a zero dim), at most one -1 among the values.
 *  Not modelled: ONNX Runtime's parts that become -1 (a one-element
 *  subgraph of Shape, Slice, Squeeze, Mul/Div, or any part its own shape
 *  inference knows to hold one element: the rule then does not fire), and
 *  a Shape of another tensor whose inferred shape ONNX Runtime finds equal
 *  to x's.
 */
#include "passes/constfold/constfold.h"

#define MAX_PARTS 16

bool fl__cf_onnx_reshape_kinds(const fl_node *n) {
    return n->kind == FL_OP_ONNX_RESHAPE;
}

/* The constant integer values of input k of n appended to vals[*nv..]
 * (at most cap); false when it is not such a constant. */
static bool const_ints(const fl_node *n, int k, int64_t *vals, int *nv, int cap) {
    const fl_tensor *t = fl_node_in(n, k);
    const fl_value *v = t->value;
    if (!fl__is_const(n->inputs[k].node) || !v || !v->ints ||
        (t->dtype != FL_DT_INT64 && t->dtype != FL_DT_INT32) || v->n > cap - *nv) {
        return false;
    }
    for (int64_t i = 0; i < v->n; i++) {
        if (!fl_sym_is_known(v->ints[i])) {
            return false;
        }
        vals[(*nv)++] = v->ints[i].k;
    }
    return true;
}

/* Unsqueeze(Gather(Shape(x), j), axes [0]) with j == pos, x being `x`. */
static bool shape_dim(const fl_node *u, fl_input x, int64_t pos, int64_t opset) {
    if (u->kind != FL_OP_ONNX_UNSQUEEZE) {
        return false;
    }
    int64_t axes[2];
    int na = 0;
    const fl_attr *aa = fl__node_attr(u, "axes");
    if (aa) {
        if (aa->kind != FL_ATTR_LIST || aa->list_kind != FL_ATTR_I || aa->n != 1) {
            return false;
        }
        axes[na++] = aa->v.list.i[0];
    } else if (opset < 13 || u->n_inputs != 2 || !const_ints(u, 1, axes, &na, 2)) {
        return false;
    }
    const fl_node *gather = u->inputs[0].node;
    if (na != 1 || axes[0] != 0 || gather->kind != FL_OP_ONNX_GATHER || gather->n_inputs != 2 ||
        u->inputs[0].port != 0) {
        return false;
    }
    int64_t j[2];
    int nj = 0;
    const fl_node *shape = gather->inputs[0].node;
    return const_ints(gather, 1, j, &nj, 1) && nj == 1 && j[0] == pos &&
           fl_node_in(gather, 1)->shape.rank <= 1 && shape->kind == FL_OP_ONNX_SHAPE &&
           shape->n_inputs == 1 && shape->inputs[0].node == x.node &&
           shape->inputs[0].port == x.port;
}

fl_status fl__cf_onnx_reshape(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_onnx_reshape_kinds(n)) {
        return FL_OK;
    }
    *done = false;
    const fl_graph *g = pc->c->g;
    int64_t opset = g->onnx.opset;
    if (!g->onnx.is_onnx || opset < 5 || opset > 14 || n->n_inputs != 2 ||
        fl__attr_int(n, "allowzero", 0) != 0) {
        return FL_OK;
    }
    fl_node *concat = n->inputs[1].node;
    if (concat->kind != FL_OP_ONNX_CONCAT || concat->n_outputs != 1 || fl__preserved(concat) ||
        concat->outputs[0].n_consumers != 1 || concat->n_ctrl || concat->n_inputs > MAX_PARTS ||
        concat->outputs[0].dtype != FL_DT_INT64 || concat->outputs[0].shape.rank != 1) {
        return FL_OK;
    }
    int64_t vals[MAX_PARTS * 4];
    int nv = 0, minus = 0;
    bool chain = false;
    for (int i = 0; i < concat->n_inputs; i++) {
        if (const_ints(concat, i, vals, &nv, MAX_PARTS * 4)) {
            continue;
        }
        if (nv >= MAX_PARTS * 4 || !shape_dim(concat->inputs[i].node, n->inputs[0], nv, opset)) {
            return FL_OK;
        }
        vals[nv++] = 0;
        chain = true;
    }
    for (int i = 0; i < nv; i++) {
        minus += vals[i] == -1;
    }
    if (!chain || minus > 1) {
        return FL_OK; /* all constant: the fold takes it */
    }
    fl_value *v = fl__cf_int_value(pc, FL_DT_INT64, 1, nv, vals);
    if (!v) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "reshape_fusion", concat,
                    "Shape/Gather/Unsqueeze dims of the Reshape's own input -> 0 in a constant "
                    "shape");
    pc->rewritten++;
    *done = true;
    return fl__node_make_const(pc, concat, v, false);
}
