/*
 * contraction.c - the remapper's contraction + BiasAdd rules (standard rows
 * 1-3): Conv2D/DepthwiseConv2dNative/MatMul (Conv3D with oneDNN) + BiasAdd
 * (+ activation) -> _FusedConv2D / _FusedDepthwiseConv2dNative /
 * _FusedMatMul / _FusedConv3D, and Conv2D + Squeeze + BiasAdd. Each rule's
 * pattern, conditions and new-node names are at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Is `n` a contraction the remapper knows (Conv3D only with oneDNN)? */
static bool is_contraction(const rctx *r, const fl_node *n) {
    return fl__rm_is_conv2d(n) || fl__rm_is_depthwise(n) || fl__rm_is_matmul(n) ||
           (r->onednn && fl__rm_is_conv3d(n));
}

/* Conv2D, DepthwiseConv2dNative, MatMul or Conv3D (IsConvOrMatMul). */
static bool is_conv_or_matmul(const fl_node *n) {
    return fl__rm_is_conv2d(n) || fl__rm_is_depthwise(n) || fl__rm_is_matmul(n) ||
           fl__rm_is_conv3d(n);
}

/* Channels-last data_format, or none. */
static bool channels_last(const fl_node *n) {
    const char *f = fl__attr_str(n, "data_format", NULL);
    return !f || strcmp(f, "NHWC") == 0 || strcmp(f, "NDHWC") == 0;
}

/* ShapesBroadcastable: every aligned pair of dims is equal or has a known 1. */
static bool shapes_broadcastable(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || b->rank < 0) {
        return false;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        if (ia < 0 || ib < 0) {
            continue;
        }
        fl_sym x = a->dims[ia], y = b->dims[ib];
        bool one = (fl_sym_is_known(x) && x.k == 1) || (fl_sym_is_known(y) && y.k == 1);
        if (!one && (fl_sym_is_unknown(x) || !fl__sym_eq(x, y))) {
            return false;
        }
    }
    return true;
}

/* IsBiasSemanticAdd (oneDNN): Add/AddV2 on CPU of a contraction's output
 * (operand 1 - *bias_port) and a bias-shaped tensor (*bias_port): both
 * producers channels-last; last dims known; the shapes not equal but
 * broadcastable; the contraction output rank >= 2 and the bias rank at most
 * the contraction's (4-D/5-D); the bias's last dim equals the channel count
 * and all its other dims are 1. */
static bool is_bias_semantic_add(const rctx *r, const fl_node *add, int *bias_port) {
    if (!r->onednn || !fl__is_add(add) || add->n_inputs != 2 || !fl__rm_on_cpu(r, add)) {
        return false;
    }
    const fl_node *n0 = fl__rm_in_node(add, 0), *n1 = fl__rm_in_node(add, 1);
    if ((!is_conv_or_matmul(n0) && !is_conv_or_matmul(n1)) || !channels_last(n0) ||
        !channels_last(n1)) {
        return false;
    }
    const fl_shape *s0 = &fl_node_in(add, 0)->shape, *s1 = &fl_node_in(add, 1)->shape;
    if (s0->rank < 1 || s1->rank < 1 || !fl_sym_is_known(s0->dims[s0->rank - 1]) ||
        !fl_sym_is_known(s1->dims[s1->rank - 1])) {
        return false;
    }
    if (fl__shape_same(s0, s1) || !shapes_broadcastable(s0, s1)) {
        return false;
    }
    int port = is_conv_or_matmul(n0) ? 1 : 0;
    const fl_shape *cs = port == 1 ? s0 : s1, *bs = port == 1 ? s1 : s0;
    if ((cs->rank == 4 && bs->rank > 4) || (cs->rank == 5 && bs->rank > 5) || cs->rank < 2 ||
        cs->dims[cs->rank - 1].k != bs->dims[bs->rank - 1].k) {
        return false;
    }
    for (int i = 0; i < bs->rank - 1; i++) {
        if (!fl_sym_is_known(bs->dims[i]) || bs->dims[i].k != 1) {
            return false;
        }
    }
    *bias_port = port;
    return true;
}

/* FindContractionWithBias: BiasAdd(contraction(x, w), b), or with oneDNN a
 * bias-semantic Add (either operand order; *bias_port: the bias operand).
 * Conditions: no control edges on the BiasAdd or the contraction; the
 * contraction has at most one consumer, is not preserved, and shares T with
 * the BiasAdd; when check_device, the contraction is CPU-compatible (or
 * GPU-compatible, which never holds without an activation). */
bool fl__rm_match_contraction_bias(const rctx *r, const fl_node *bias, fl_node **contraction,
                                   int *bias_port, bool check_device) {
    int port = 1;
    if (bias->n_inputs < 2 || fl__rm_has_ctrl(r, bias) ||
        !(bias->kind == FL_OP_BIAS_ADD || is_bias_semantic_add(r, bias, &port))) {
        return false;
    }
    fl_node *c = fl__rm_in_node(bias, 1 - port);
    if (!c || fl__rm_is_removed(c) || !is_contraction(r, c) || c->n_inputs < 2 ||
        !fl__rm_same_t(bias, c) || fl__rm_has_ctrl(r, c) || !fl__rm_one_fanout0(r, c) ||
        fl__preserved(c)) {
        return false;
    }
    if (check_device && !fl__rm_cpu_contraction_ok(r, c) &&
        !fl__rm_gpu_contraction_ok(r, c, NULL)) {
        return false;
    }
    *contraction = c;
    *bias_port = port;
    return true;
}

/* Pattern (table rows 1): Conv2D | DepthwiseConv2dNative | MatMul | Conv3D ->
 * BiasAdd  =>  _FusedConv2D | ... named after the BiasAdd,
 * fused_ops=[BiasAdd], num_args=1, inputs [x, filter, bias].
 * Conditions: fl__rm_match_contraction_bias with the device check (stock CPU: Conv2D
 * f32/f64 NHWC, MatMul f32; depthwise/Conv3D/NCHW/bf16 only with oneDNN). */
bool fl__rm_rewrite_contraction_bias(rctx *r, fl_node *bias) {
    fl_node *c;
    int port;
    if (!fl__rm_match_contraction_bias(r, bias, &c, &port, true)) {
        return false;
    }
    static const char *const ops[] = {"BiasAdd"};
    fl__ledger_note(r->pc, "contraction_bias", bias, "%s+%s -> %s", c->op, bias->op,
                    fl__rm_fused_name_of(c));
    if (!fl__rm_build_fused(r, bias, c, &bias->inputs[port], 1, ops, 1, 0.0f, NULL)) {
        return false;
    }
    fl__rm_drop(r, c);
    return true;
}

/* Pattern (table row 2): contraction -> BiasAdd -> activation (Relu, Relu6,
 * Elu, LeakyRelu; + Tanh, Sigmoid with oneDNN)  =>  fused contraction named
 * after the activation, fused_ops=[BiasAdd, <act>], num_args=1,
 * leakyrelu_alpha for LeakyRelu.
 * Conditions: no control edges on the activation; fl__rm_match_contraction_bias
 * without the device check; the BiasAdd has one consumer, is not preserved
 * and shares T with the activation; Tanh/Sigmoid only after MatMul; LeakyRelu
 * only after Conv2D, MatMul (Conv3D with oneDNN); the contraction is
 * CPU-compatible, or GPU-compatible (Conv2D f32 non-1x1 + Relu). */
bool fl__rm_rewrite_contraction_bias_act(rctx *r, fl_node *act) {
    if (!fl__rm_is_activation(r, act) || act->n_inputs < 1 || fl__rm_has_ctrl(r, act)) {
        return false;
    }
    fl_node *bias = fl__rm_in_node(act, 0), *c;
    int port;
    if (fl__rm_is_removed(bias) || !fl__rm_match_contraction_bias(r, bias, &c, &port, false) ||
        !fl__rm_one_fanout0(r, bias) || !fl__rm_same_t(act, bias) || fl__preserved(bias)) {
        return false;
    }
    if (!fl__rm_is_matmul(c) && (act->kind == FL_OP_TANH || act->kind == FL_OP_SIGMOID)) {
        return false;
    }
    if (!(fl__rm_is_conv2d(c) || fl__rm_is_matmul(c) || (r->onednn && fl__rm_is_conv3d(c))) &&
        act->kind == FL_OP_LEAKY_RELU) {
        return false;
    }
    if (!fl__rm_cpu_contraction_ok(r, c) && !fl__rm_gpu_contraction_ok(r, c, act)) {
        return false;
    }
    const char *ops[] = {"BiasAdd", act->op};
    fl__ledger_note(r->pc, "contraction_bias_activation", act, "%s+BiasAdd+%s -> %s", c->op,
                    act->op, fl__rm_fused_name_of(c));
    if (!fl__rm_build_fused(r, act, c, &bias->inputs[port], 1, ops, 2, 0.0f, act)) {
        return false;
    }
    fl__rm_drop(r, bias);
    fl__rm_drop(r, c);
    return true;
}

/* Pattern (table row 3): Conv2D (Conv3D with oneDNN) -> Squeeze -> BiasAdd  =>
 * _FusedConv2D [BiasAdd] named after the Conv2D, followed by the Squeeze
 * renamed to the BiasAdd's name.
 * Conditions: no control edges on the three; Squeeze and conv have one
 * consumer and are not preserved; squeeze_dims present and without the
 * channel dim (3 for Conv2D, 4 for Conv3D); conv shares T with the BiasAdd;
 * conv CPU-compatible. */
bool fl__rm_rewrite_conv_squeeze_bias(rctx *r, fl_node *bias) {
    if (bias->kind != FL_OP_BIAS_ADD || bias->n_inputs < 2 || fl__rm_has_ctrl(r, bias)) {
        return false;
    }
    fl_node *sq = fl__rm_in_node(bias, 0);
    if (fl__rm_is_removed(sq) || sq->kind != FL_OP_SQUEEZE || sq->n_inputs < 1 ||
        fl__rm_has_ctrl(r, sq) || !fl__rm_one_fanout0(r, sq) || fl__preserved(sq)) {
        return false;
    }
    fl_node *c = fl__rm_in_node(sq, 0);
    if (fl__rm_is_removed(c) || !(fl__rm_is_conv2d(c) || (r->onednn && fl__rm_is_conv3d(c))) ||
        c->n_inputs < 2) {
        return false;
    }
    const fl_attr *dims = fl__node_attr(sq, "squeeze_dims");
    if (!dims || dims->kind != FL_ATTR_LIST ||
        (dims->list_kind != FL_ATTR_I && dims->list_kind != FL_ATTR_NONE)) {
        return false;
    }
    for (size_t k = 0; k < dims->n; k++) {
        int64_t dim = dims->v.list.i[k];
        if ((dim == 3 && fl__rm_is_conv2d(c)) || (dim == 4 && fl__rm_is_conv3d(c))) {
            return false;
        }
    }
    if (!fl__rm_same_t(c, bias) || fl__rm_has_ctrl(r, c) || !fl__rm_one_fanout0(r, c) ||
        fl__preserved(c) || !fl__rm_cpu_contraction_ok(r, c)) {
        return false;
    }
    static const char *const ops[] = {"BiasAdd"};
    fl__ledger_note(r->pc, "contraction_squeeze_bias", bias, "%s+Squeeze+BiasAdd -> %s+Squeeze",
                    c->op, fl__rm_fused_name_of(c));
    fl_input bias_in = bias->inputs[1];
    fl_node *f = fl__rm_build_fused(r, c, c, &bias_in, 1, ops, 1, 0.0f, NULL);
    if (!f) {
        return false;
    }
    fl_input sq_in = {f, 0};
    fl_node *nsq =
        fl__rm_replace_root(r, bias, fl__op_name(FL_OP_SQUEEZE), sq->device, 1, &sq_in, 1);
    if (!nsq) {
        return false;
    }
    for (int i = 0; i < sq->n_attrs; i++) {
        fl__rm_set_attr(r, nsq, sq->attrs[i]);
    }
    fl__rm_drop(r, sq);
    /* Two roots were replaced under their own names; one node disappeared. */
    return true;
}
