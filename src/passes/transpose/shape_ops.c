/*
 * shape_ops.c - the transpose optimizer's handlers (transpose.h) for the
 * ops whose shape or index inputs move with a Transpose t (perm P, inverse
 * P') pushed through them, as ONNX Runtime's handlers do them
 * (onnx_transpose_optimization.cc). The data input is transposed by P' in
 * each case; then:
 *
 *  Shape: no Transpose after it: a Gather (axis 0) of the new shape by P
 *    (from opset 15 by P[start:end], start and end clamped to the rank and
 *    then dropped from the Shape) takes its readers;
 *  Squeeze: axes (attr before opset 13, else a constant input; none: no
 *    push) become the sorted P[a]; the output's perm is P without them;
 *  Unsqueeze: axes (normalised against the output rank) stay; the output's
 *    perm is P widened to leave the new 1s where they are;
 *  Slice: axes become P[a] in their order (starts/ends/steps unchanged);
 *    without axes, P[0..k-1] for the k starts, as a new input of the
 *    starts' integer type (before opset 10: the attrs); computed axes: no
 *    push; output by P;
 *  Tile: repeats reordered by P' (constant: a new constant; else a Gather
 *    of them by P'); output by P;
 *  Pad: pads (begins then ends) reordered by P' and P' + rank (before
 *    opset 11 the attr, needing 2 x rank values; else a constant input: a
 *    new constant, or a Gather); a Pad with an axes input is declined (ONNX
 *    Runtime's handler does not read it); output by P;
 *  ArgMin/ArgMax: axis (default 0) becomes P[axis]; output by P, or with
 *    keepdims 0 by P without that axis.
 */
#include "passes/transpose/transpose.h"

/* A Gather (axis 0) of `in` by the int64 indices idx, named after n. */
static fl_node *gather(tp_ctx *x, const fl_node *n, fl_input in, int len, const int64_t *idx) {
    fl_node *k = fl__tp_int64_const(x, n, "perm", len, idx);
    fl_input ins[2] = {in, {k, 0}};
    fl_node *g = k ? fl__tp_add_node(x, n, "Gather", "Gather", FL_OP_ONNX_GATHER, 2, ins) : NULL;
    if (g) {
        fl__tp_set_int(x, g, "axis", 0);
        fl__tp_infer(x, g);
    }
    return g;
}

/* Input i of n replaced by node k (the old producer goes when unused). */
static void replace_input(tp_ctx *x, fl_node *n, int i, fl_node *k) {
    fl_node *old = n->inputs[i].node;
    fl__tp_set_input(x, n, i, (fl_input){k, 0});
    fl__tp_drop_if_unused(x, old);
}

static bool shape(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    if (fl__preserved(n)) {
        fl__tp_decline(x, n, "a graph output is a Shape whose input is transposed");
        return false;
    }
    int64_t rank = perm->n, start = 0, end = rank;
    if (x->opset >= 15) {
        start = fl__attr_int(n, "start", 0);
        end = fl__attr_int(n, "end", rank);
        start += start < 0 ? rank : 0;
        end += end < 0 ? rank : 0;
        start = start < 0 ? 0 : start > rank ? rank : start;
        end = end < 0 ? 0 : end > rank ? rank : end;
    }
    int64_t idx[TP_MAX_RANK];
    int len = 0;
    for (int64_t i = start; i < end; i++) {
        idx[len++] = perm->p[i];
    }
    fl__tp_first_input(x, n, inv, perm);
    if (x->opset >= 15 &&
        ((fl__node_attr(n, "start") && fl__node_del_attr(x->g, n, "start") != FL_OK) ||
         (fl__node_attr(n, "end") && fl__node_del_attr(x->g, n, "end") != FL_OK))) {
        x->st = fl__diag_oom(x->d);
        return false;
    }
    fl__tp_infer(x, n);
    fl_node *g = gather(x, n, (fl_input){n, 0}, len, idx);
    if (g) {
        fl__tp_redirect(x, n, 0, (fl_input){g, 0}, g);
    }
    x->pushed++;
    return true;
}

static bool squeeze(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    int64_t axes[TP_MAX_RANK], na[TP_MAX_RANK];
    int len = 0;
    if (!fl__tp_attr_or_input(x, n, "axes", 1, 13, axes, &len) ||
        !fl__tp_norm_axes(axes, len, perm->n)) {
        return false;
    }
    int k = fl__tp_sorted_axes(axes, len, perm, na);
    if (x->opset < 13) {
        fl__tp_set_ints(x, n, "axes", k, na);
    } else {
        fl_node *c = fl__tp_int64_const(x, n, "axes", k, na);
        if (!c) {
            return false;
        }
        replace_input(x, n, 1, c);
    }
    tp_perm out;
    fl__tp_squeeze_perm(na, k, perm, &out);
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, &out);
}

static bool unsqueeze(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    int64_t axes[TP_MAX_RANK];
    int len = 0;
    if (!fl__tp_attr_or_input(x, n, "axes", 1, 13, axes, &len) || perm->n + len > TP_MAX_RANK ||
        !fl__tp_norm_axes(axes, len, perm->n + len)) {
        return false;
    }
    tp_perm out;
    fl__tp_unsqueeze_perm(axes, len, perm, &out);
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, &out);
}

static bool slice(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    int64_t axes[TP_MAX_RANK], na[TP_MAX_RANK];
    int len = 0;
    if (x->opset < 10) {
        const fl_attr *st = fl__node_attr(n, "starts");
        if (!fl__tp_attr_or_input(x, n, "axes", 1, 10, axes, &len)) {
            if (!st || st->kind != FL_ATTR_LIST || st->n > TP_MAX_RANK) {
                return false;
            }
            len = (int)st->n;
            for (int i = 0; i < len; i++) {
                axes[i] = i;
            }
        }
        if (!fl__tp_norm_axes(axes, len, perm->n)) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            na[i] = perm->p[axes[i]];
        }
        fl__tp_set_ints(x, n, "axes", len, na);
        fl__tp_first_input(x, n, inv, perm);
        return fl__tp_finish(x, n, perm);
    }
    int dt;
    if (n->n_inputs < 4 || fl__tp_absent(n, 3)) {
        const fl_tensor *s = fl_node_in(n, 1);
        if (n->n_inputs < 3 || s->shape.rank != 1 || !fl_sym_is_known(s->shape.dims[0]) ||
            s->shape.dims[0].k < 0 || s->shape.dims[0].k > perm->n) {
            return false;
        }
        len = (int)s->shape.dims[0].k;
        for (int i = 0; i < len; i++) {
            na[i] = perm->p[i];
        }
        dt = s->dtype;
    } else {
        if (!fl__tp_const_ints(n, 3, axes, TP_MAX_RANK, &len) ||
            !fl__tp_norm_axes(axes, len, perm->n)) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            na[i] = perm->p[axes[i]];
        }
        dt = fl_node_in(n, 3)->dtype;
    }
    fl_node *c =
        fl__tp_int_const(x, n, "axes", dt == FL_DT_INT32 ? FL_DT_INT32 : FL_DT_INT64, len, na);
    if (!c) {
        return false;
    }
    if (n->n_inputs < 4) {
        fl_input ins[4] = {n->inputs[0], n->inputs[1], n->inputs[2], {c, 0}};
        if (fl__node_set_inputs(x->g, n, 4, ins) != FL_OK) {
            x->st = fl__diag_oom(x->d);
            return false;
        }
        fl__tp_note(x, n);
    } else {
        replace_input(x, n, 3, c);
    }
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, perm);
}

/* Input i of n, a 1-D list, reordered: element j from element order[j]
 * (a new constant when constant, else a Gather). */
static bool reorder_input(tp_ctx *x, fl_node *n, int i, int len, const int64_t *order) {
    int64_t v[2 * TP_MAX_RANK], nv[2 * TP_MAX_RANK];
    int have = 0;
    if (fl__tp_const_ints(n, i, v, 2 * TP_MAX_RANK, &have)) {
        if (have == 0) {
            return true; /* an empty list stays empty */
        }
        if (have != len) {
            return false;
        }
        for (int j = 0; j < len; j++) {
            nv[j] = v[order[j]];
        }
        fl_node *c = fl__tp_int64_const(x, n, "permuted", len, nv);
        if (c) {
            replace_input(x, n, i, c);
        }
        return c != NULL;
    }
    fl_node *g = gather(x, n, n->inputs[i], len, order);
    if (g) {
        fl__tp_set_input(x, n, i, (fl_input){g, 0});
    }
    return g != NULL;
}

static bool tile(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    if (n->n_inputs < 2 || !reorder_input(x, n, 1, perm->n, inv->p)) {
        return false;
    }
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, perm);
}

static bool pad(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    int rank = perm->n;
    int64_t order[2 * TP_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        order[i] = inv->p[i];
        order[rank + i] = inv->p[i] + rank;
    }
    if (x->opset < 11) {
        const fl_attr *a = fl__node_attr(n, "pads");
        int64_t np[2 * TP_MAX_RANK];
        if (!a || a->kind != FL_ATTR_LIST || a->n != (size_t)(2 * rank)) {
            return false;
        }
        for (int j = 0; j < 2 * rank; j++) {
            np[j] = a->v.list.i[order[j]];
        }
        fl__tp_set_ints(x, n, "pads", 2 * rank, np);
    } else {
        if (n->n_inputs > 3 && !fl__tp_absent(n, 3)) {
            fl__tp_decline(x, n, "a Pad with an axes input");
            return false;
        }
        if (n->n_inputs < 2 || !reorder_input(x, n, 1, 2 * rank, order)) {
            return false;
        }
    }
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, perm);
}

static bool arg(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    int64_t axis = fl__attr_int(n, "axis", 0);
    if (!fl__tp_norm_axis(&axis, perm->n)) {
        return false;
    }
    int64_t na = perm->p[axis];
    fl__tp_set_int(x, n, "axis", na);
    tp_perm out = *perm;
    if (fl__attr_int(n, "keepdims", 1) == 0) {
        fl__tp_squeeze_perm(&na, 1, perm, &out);
    }
    fl__tp_first_input(x, n, inv, perm);
    return fl__tp_finish(x, n, &out);
}

bool fl__tp_handle_shape_op(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv,
                            tp_family f) {
    switch (f) {
    case TPF_SHAPE:
        return shape(x, n, perm, inv);
    case TPF_SQUEEZE:
        return squeeze(x, n, perm, inv);
    case TPF_UNSQUEEZE:
        return unsqueeze(x, n, perm, inv);
    case TPF_SLICE:
        return slice(x, n, perm, inv);
    case TPF_TILE:
        return tile(x, n, perm, inv);
    case TPF_PAD:
        return pad(x, n, perm, inv);
    case TPF_ARG:
        return arg(x, n, perm, inv);
    default:
        return false;
    }
}
