/*
 * onednn.c - the remapper's oneDNN-only contraction rules (--remapper
 * onednn; table 2.4): contraction + BiasAdd + Add (+ activation) (rows 13,
 * 15), contraction + LeakyRelu (row 14), and Swish (row 23). Each rule's
 * pattern, conditions and new-node names are at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Pattern (row 15, and row 13 with an activation): Conv2D | Conv3D | MatMul
 * -> BiasAdd -> Add/AddV2 (| AddN of 2) (-> activation, not Tanh/Sigmoid; no
 * MatMul with activation)  =>  fused contraction named after the Add (the
 * activation), inputs [x, filter, bias, other addend], fused_ops=[BiasAdd,
 * Add(, act)], num_args=2. Conditions (FindContractionWithBiasAddAndAdd /
 * ...AndAddActivation): oneDNN; the Add (and the activation) on CPU with T
 * float/bf16 and no control edges; an Add/AddV2 with two inputs of
 * symbolically equal shape, or an AddN of exactly two; with an activation
 * the Add has one consumer and is not preserved; the BiasAdd matches
 * FindContractionWithBias WITHOUT the device check (TensorFlow checks no
 * placement, dtype or format of the contraction here), has one consumer,
 * is not preserved and shares T with the Add; LeakyRelu only after convs.
 * Ours: a DepthwiseConv2dNative contraction, or a MatMul with an activation,
 * is refused (TensorFlow would emit a node without an op for them). */
bool fl__rm_rewrite_contraction_bias_add(rctx *r, fl_node *root) {
    if (!r->onednn || fl__rm_has_ctrl(r, root) || !fl__rm_on_cpu(r, root) ||
        !fl__rm_t_float_or_bf16(root)) {
        return false;
    }
    fl_node *act = NULL, *add = root;
    if (fl__rm_is_activation(r, root)) {
        if (root->kind == FL_OP_TANH || root->kind == FL_OP_SIGMOID) {
            return false;
        }
        act = root;
        add = fl__rm_in_node(root, 0);
        if (!add || fl__rm_is_removed(add) || fl__rm_has_ctrl(r, add) ||
            !fl__rm_one_fanout0(r, add) || fl__preserved(add) || !fl__rm_on_cpu(r, add) ||
            !fl__rm_t_float_or_bf16(add)) {
            return false;
        }
    }
    if (add->n_inputs != 2) {
        return false;
    }
    if (add->kind != FL_OP_ADD_N &&
        !(fl__is_add(add) &&
          fl__shape_same(&fl_node_in(add, 0)->shape, &fl_node_in(add, 1)->shape))) {
        return false;
    }
    for (int side = 0; side < 2; side++) {
        fl_node *bias = fl__rm_in_node(add, side), *c;
        int port;
        if (fl__rm_is_removed(bias) || !fl__rm_match_contraction_bias(r, bias, &c, &port, false) ||
            !fl__rm_one_fanout0(r, bias) || fl__preserved(bias) || !fl__rm_same_t(bias, add)) {
            continue;
        }
        if (fl__rm_is_depthwise(c) || (act && fl__rm_is_matmul(c)) ||
            (act && act->kind == FL_OP_LEAKY_RELU &&
             !(fl__rm_is_conv2d(c) || fl__rm_is_conv3d(c)))) {
            return false;
        }
        const char *ops[] = {"BiasAdd", "Add", act ? act->op : ""};
        fl_input args[2] = {bias->inputs[port], add->inputs[1 - side]};
        fl__ledger_note(r->pc, act ? "contraction_bias_add_activation" : "contraction_bias_add",
                        root, "%s+BiasAdd+Add%s%s -> %s", c->op, act ? "+" : "", act ? act->op : "",
                        fl__rm_fused_name_of(c));
        if (!fl__rm_build_fused(r, root, c, args, 2, ops, act ? 3 : 2, 0.0f, act)) {
            return false;
        }
        if (act) {
            fl__rm_drop(r, add);
        }
        fl__rm_drop(r, bias);
        fl__rm_drop(r, c);
        return true;
    }
    return false;
}

/* Pattern (row 23): Mul(x, Sigmoid(x)) (either operand order)  =>  _MklSwish
 * named after the Mul, input [x], T. Conditions: oneDNN; both on CPU; T
 * float/bf16; Sigmoid one consumer, not preserved; no control edges. */
bool fl__rm_rewrite_swish(rctx *r, fl_node *mul) {
    if (!r->onednn || mul->kind != FL_OP_MUL || mul->n_inputs != 2 || fl__rm_has_ctrl(r, mul) ||
        !fl__rm_on_cpu(r, mul)) {
        return false;
    }
    int t = fl__attr_type(mul, "T");
    if (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *sig = fl__rm_in_node(mul, s);
        fl_input x = mul->inputs[1 - s];
        if (fl__rm_is_removed(sig) || sig->kind != FL_OP_SIGMOID || sig->n_inputs < 1 ||
            fl__rm_has_ctrl(r, sig) || !fl__rm_one_fanout0(r, sig) || fl__preserved(sig) ||
            !fl__rm_on_cpu(r, sig)) {
            continue;
        }
        if (sig->inputs[0].node != x.node || sig->inputs[0].port != x.port) {
            continue;
        }
        fl__ledger_note(r->pc, "swish", mul, "Mul(x, Sigmoid(x)) -> _MklSwish");
        fl_node *f =
            fl__rm_replace_root(r, mul, fl__op_name(FL_OP_MKL_SWISH), mul->device, 1, &x, 1);
        if (!f) {
            return false;
        }
        fl__rm_copy_attr(r, f, mul, "T", NULL);
        fl__rm_drop(r, sig);
        return true;
    }
    return false;
}

/* Pattern (row 14, FindContractionWithActivation): _FusedConv2D or
 * _FusedConv3D -> LeakyRelu | _MklFusedMish  =>  a copy of the fused conv
 * (op, inputs, attrs, device) named after the activation, with the
 * activation appended to its fused_ops ("Mish" for _MklFusedMish) and, for
 * LeakyRelu, leakyrelu_alpha = its alpha. Conditions: oneDNN; no control
 * edges on the activation. As current remapper.cc: a plain Conv2D is not
 * taken (TF 2.11/2.12 also took Conv2D, making fused_ops=[act], num_args 0),
 * and neither placement nor T is checked. Ours, so that no input dangles:
 * the fused conv has no control edges, no consumer but the activation and
 * is not preserved (TensorFlow deletes it unconditionally). */
bool fl__rm_rewrite_conv_leakyrelu(rctx *r, fl_node *act) {
    bool mish = act->kind == FL_OP_MKL_FUSED_MISH;
    if (!r->onednn || !(act->kind == FL_OP_LEAKY_RELU || mish) || act->n_inputs < 1 ||
        fl__rm_has_ctrl(r, act)) {
        return false;
    }
    fl_node *c = fl__rm_in_node(act, 0);
    if (fl__rm_is_removed(c) || !(c->kind == FL_OP_FUSED_CONV2D || c->kind == FL_OP_FUSED_CONV3D) ||
        act->inputs[0].port != 0 || c->n_inputs < 2 || c->n_inputs > 8 || fl__rm_has_ctrl(r, c) ||
        !fl__rm_one_fanout0(r, c) || fl__rm_fanout_beyond0(r, c) || fl__preserved(c)) {
        return false;
    }
    const fl_attr *fo = fl__node_attr(c, "fused_ops");
    const char *ops[8];
    size_t n_ops = 0;
    if (fo) {
        if (fo->kind != FL_ATTR_LIST || fo->n > 6 ||
            (fo->list_kind != FL_ATTR_S && fo->list_kind != FL_ATTR_NONE)) {
            return false;
        }
        for (size_t k = 0; k < fo->n; k++) {
            ops[n_ops++] = fo->v.list.s[k].p;
        }
    }
    ops[n_ops++] = mish ? "Mish" : "LeakyRelu";
    fl__ledger_note(r->pc, "fused_conv_activation", act, "%s+%s -> %s", c->op, act->op, c->op);
    fl_node *f = fl__rm_replace_root(r, act, c->op, c->device, c->n_inputs, c->inputs, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        fl__rm_set_attr(r, f, c->attrs[i]);
    }
    fl__rm_set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", n_ops, ops));
    if (!mish) {
        fl__rm_set_attr(
            r, f, fl__attr_make_float(r->g, "leakyrelu_alpha", fl__attr_float(act, "alpha", 0.2f)));
    }
    fl__rm_drop(r, c);
    return true;
}
