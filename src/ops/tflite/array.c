/*
 * tflite/array.c - TFLite data-movement operators whose semantics are
 * TensorFlow's: their shapes (and values, so that a Shape -> StridedSlice ->
 * Pack -> Reshape chain over a free batch dim resolves) come from the
 * TensorFlow descriptor of the same op, run on the node as it is. TFLite
 * keeps TensorFlow's input order and option names for all of them (SPLIT:
 * axis then input, as Split; SQUEEZE's squeeze_dims; STRIDED_SLICE's masks;
 * ARG_MAX's output_type; ...). Where TFLite differs, the difference is
 * handled here:
 *  - GATHER takes axis as an option, not an input: GatherV2 runs with the
 *    option as a constant third input; EMBEDDING_LOOKUP (ids, params) is
 *    GatherV2(params, ids, 0).
 *  - STRIDED_SLICE with option offset (end = begin + end) takes the stored
 *    shapes.
 * A TensorFlow shape function that rejects the node (an input TFLite reads
 * differently, say) does not fail the analysis: a warning names the tensor
 * and the file's shapes are used, as before. Every result is then checked
 * against the stored shapes (fl__tfl_check_all).
 */
#include "ops/tflite/tfl.h"

#include <string.h>

/* The TensorFlow op with the same semantics, or FL_OP_UNKNOWN. */
static int tf_twin(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_TFL_SLICE:
        return FL_OP_SLICE;
    case FL_OP_TFL_STRIDED_SLICE: {
        const fl_attr *a = fl__node_attr(n, "offset");
        return a && a->kind == FL_ATTR_B && a->v.b ? FL_OP_UNKNOWN : FL_OP_STRIDED_SLICE;
    }
    case FL_OP_TFL_TRANSPOSE:
        return FL_OP_TRANSPOSE;
    case FL_OP_TFL_RESHAPE: /* evaluation only: infer_reshape reads the options */
        return FL_OP_RESHAPE;
    case FL_OP_TFL_SPLIT:
        return FL_OP_SPLIT;
    case FL_OP_TFL_SPLIT_V:
        return FL_OP_SPLIT_V;
    case FL_OP_TFL_PACK:
        return FL_OP_PACK;
    case FL_OP_TFL_UNPACK:
        return FL_OP_UNPACK;
    case FL_OP_TFL_SQUEEZE:
        return FL_OP_SQUEEZE;
    case FL_OP_TFL_EXPAND_DIMS:
        return FL_OP_EXPAND_DIMS;
    case FL_OP_TFL_TILE:
        return FL_OP_TILE;
    case FL_OP_TFL_FILL:
        return FL_OP_FILL;
    case FL_OP_TFL_RANGE:
        return FL_OP_RANGE;
    case FL_OP_TFL_BROADCAST_TO:
        return FL_OP_BROADCAST_TO;
    case FL_OP_TFL_BROADCAST_ARGS:
        return FL_OP_BROADCAST_ARGS;
    case FL_OP_TFL_SHAPE:
        return FL_OP_SHAPE;
    case FL_OP_TFL_RANK:
        return FL_OP_RANK;
    case FL_OP_TFL_SPACE_TO_DEPTH:
        return FL_OP_SPACE_TO_DEPTH;
    case FL_OP_TFL_DEPTH_TO_SPACE:
        return FL_OP_DEPTH_TO_SPACE;
    case FL_OP_TFL_BATCH_TO_SPACE_ND:
        return FL_OP_BATCH_TO_SPACE_ND;
    case FL_OP_TFL_SPACE_TO_BATCH_ND:
        return FL_OP_SPACE_TO_BATCH_ND;
    case FL_OP_TFL_ARG_MAX:
        return FL_OP_ARG_MAX;
    case FL_OP_TFL_ARG_MIN:
        return FL_OP_ARG_MIN;
    case FL_OP_TFL_GATHER_ND:
        return FL_OP_GATHER_ND;
    case FL_OP_TFL_REVERSE_V2:
        return FL_OP_REVERSE_V2;
    case FL_OP_TFL_SELECT:
        return FL_OP_SELECT;
    case FL_OP_TFL_SELECT_V2:
        return FL_OP_SELECT_V2;
    case FL_OP_TFL_TOPK_V2:
        return FL_OP_TOPK_V2;
    case FL_OP_TFL_ONE_HOT:
        return FL_OP_ONE_HOT;
    case FL_OP_TFL_WHERE:
        return FL_OP_WHERE;
    case FL_OP_TFL_SPARSE_TO_DENSE:
        return FL_OP_SPARSE_TO_DENSE;
    case FL_OP_TFL_NON_MAX_SUPPRESSION_V4:
        return FL_OP_NON_MAX_SUPPRESSION_V4;
    case FL_OP_TFL_NON_MAX_SUPPRESSION_V5:
        return FL_OP_NON_MAX_SUPPRESSION_V5;
    default:
        return FL_OP_UNKNOWN;
    }
}

/* Runs `kind`'s infer (or eval) hook on p, a copy of n with that kind. An
 * invalid-input error of the TensorFlow shape function becomes a warning and FL_ENOTFOUND
 * (the caller then takes the stored shapes); a resource error stays one. */
static fl_status run_as(fl_ctx *c, const fl_node *n, fl_node *p, int kind, bool eval) {
    p->kind = kind;
    p->desc = fl__op_desc_of(kind);
    if (!p->desc || p->n_inputs < p->desc->min_inputs ||
        (p->desc->max_inputs >= 0 && p->n_inputs > p->desc->max_inputs) ||
        (p->desc->n_outputs >= 0 && p->n_outputs != p->desc->n_outputs)) {
        return FL_ENOTFOUND;
    }
    if (eval) {
        return p->desc->eval ? p->desc->eval(c, p) : FL_OK;
    }
    fl_status saved = c->d->status;
    char *saved_msg = c->d->msg;
    fl_status st = p->desc->infer(c, p);
    if (st != FL_EINVAL) {
        return st;
    }
    const char *why = c->d->msg ? c->d->msg : fl_status_str(st);
    c->d->status = saved;
    c->d->msg = saved_msg;
    fl__node_warn(c->d, n,
                  "tensor '%s': shapes not inferred from the inputs and options (%s); the "
                  "file's shapes are used",
                  n->name, why);
    return FL_ENOTFOUND;
}

static fl_status stored_all(fl_ctx *c, fl_node *n) {
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return st;
}

/* After an inference attempt: the stored shapes when it gave none. */
static fl_status finish(fl_ctx *c, fl_node *n, fl_status st) {
    if (st == FL_ENOTFOUND) {
        for (int k = 0; k < n->n_outputs; k++) {
            n->outputs[k].value = NULL;
        }
        return stored_all(c, n);
    }
    return fl__tfl_check_all(c, n, st);
}

fl_status fl__tfl_infer_twin(fl_ctx *c, fl_node *n) {
    int kind = tf_twin(n);
    if (kind == FL_OP_UNKNOWN) {
        return stored_all(c, n);
    }
    fl_node p = *n;
    return finish(c, n, run_as(c, n, &p, kind, false));
}

fl_status fl__tfl_eval_twin(fl_ctx *c, fl_node *n) {
    int kind = tf_twin(n);
    if (kind == FL_OP_UNKNOWN) {
        return FL_OK;
    }
    fl_node p = *n;
    fl_status st = run_as(c, n, &p, kind, true);
    return st == FL_ENOTFOUND ? FL_OK : st;
}

/* ------------------------------------------------------------------------- */
/* GATHER, EMBEDDING_LOOKUP                                                   */
/* ------------------------------------------------------------------------- */

/* A constant scalar int32 standing for GatherV2's axis input. */
typedef struct axis_input {
    fl_sym k;
    fl_value v;
    fl_tensor t;
    fl_node node;
    fl_input ins[3];
} axis_input;

/* p := n as GatherV2(params, indices, axis); false when n has not the
 * inputs for it. */
static bool as_gather_v2(const fl_node *n, axis_input *ax, fl_node *p) {
    bool lookup = n->kind == FL_OP_TFL_EMBEDDING_LOOKUP;
    if (n->n_inputs != 2 || n->n_outputs != 1) {
        return false;
    }
    const fl_attr *a = fl__node_attr(n, "axis");
    memset(ax, 0, sizeof *ax);
    ax->k = fl_sym_const(!lookup && a && a->kind == FL_ATTR_I ? a->v.i : 0);
    ax->v.dtype = FL_DT_INT32;
    ax->v.n = 1;
    ax->v.ints = &ax->k;
    ax->t.dtype = FL_DT_INT32;
    ax->t.value = &ax->v;
    ax->node.name = "axis";
    ax->node.op = "Const";
    ax->node.kind = FL_OP_CONST;
    ax->node.n_outputs = 1;
    ax->node.outputs = &ax->t;
    ax->t.producer = &ax->node;
    ax->ins[0] = n->inputs[lookup ? 1 : 0];
    ax->ins[1] = n->inputs[lookup ? 0 : 1];
    ax->ins[2].node = &ax->node;
    ax->ins[2].port = 0;
    *p = *n;
    p->inputs = ax->ins;
    p->n_inputs = 3;
    return true;
}

fl_status fl__tfl_infer_gather(fl_ctx *c, fl_node *n) {
    axis_input ax;
    fl_node p;
    if (!as_gather_v2(n, &ax, &p)) {
        return stored_all(c, n);
    }
    return finish(c, n, run_as(c, n, &p, FL_OP_GATHER_V2, false));
}

fl_status fl__tfl_eval_gather(fl_ctx *c, fl_node *n) {
    axis_input ax;
    fl_node p;
    if (!as_gather_v2(n, &ax, &p)) {
        return FL_OK;
    }
    fl_status st = run_as(c, n, &p, FL_OP_GATHER_V2, true);
    return st == FL_ENOTFOUND ? FL_OK : st;
}

fl_status fl__tfl_reshape_sym(fl_ctx *c, fl_node *n) {
    const fl_sym *v = NULL;
    int64_t cnt = 0;
    if (n->n_inputs != 2 || n->inputs[1].node->kind == FL_OP_ONNX_ABSENT ||
        fl__op_in_sym_vector(c, n, 1, &v, &cnt) != FL_OK) {
        return FL_ENOTFOUND;
    }
    fl_node p = *n;
    return finish(c, n, run_as(c, n, &p, FL_OP_RESHAPE, false));
}
