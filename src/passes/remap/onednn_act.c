/*
 * onednn_act.c - the remapper's oneDNN pattern-matcher rules for
 * activations and padding (rows 16, 18, 19, 21, 22): Pad + Conv3D,
 * HardSwish, Mish, Maximum + Mul -> LeakyRelu, Conv2D + BiasAdd/BN + Swish,
 * and the removability test they share. Each rule's pattern, conditions
 * and new-node names are at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool fl__rm_removable(const rctx *r, const fl_node *n, const fl_node *const *inside, int k) {
    if (!n || fl__rm_is_removed(n) || fl__rm_has_ctrl(r, n) || fl__preserved(n) || n->id >= r->n0) {
        return false;
    }
    for (int p = 0; p < n->n_outputs; p++) {
        size_t cnt;
        const fl_use *u = fl__uses_of(&r->uses, n, p, &cnt);
        for (size_t i = 0; i < cnt; i++) {
            bool in = false;
            for (int j = 0; j < k && !in; j++) {
                in = u[i].node == inside[j];
            }
            if (!in) {
                return false;
            }
        }
    }
    return true;
}

bool fl__rm_same_input(fl_input a, fl_input b) {
    return a.node == b.node && a.port == b.port;
}

bool fl__rm_const_scalar(const fl_node *n, bool through_cast, bool scalar_only, double *v) {
    if (through_cast && n->kind == FL_OP_CAST && n->n_inputs == 1) {
        n = fl__rm_in_node(n, 0);
    }
    if (!n || n->kind != FL_OP_CONST || n->n_outputs < 1) {
        return false;
    }
    const fl_value *val = n->outputs[0].value;
    if (!val || val->n != 1 || (scalar_only && val->rank != 0)) {
        return false;
    }
    return fl__value_f64(val, 0, v);
}

/* Pattern (row 21): Maximum(Mul(x, alpha), x) (operands of both in either
 * order)  =>  LeakyRelu named after the Maximum, input [x], T, alpha.
 * Conditions: oneDNN; Maximum T half/bf16/float/double, no control inputs;
 * alpha a scalar Const (or Cast of one) >= 0; the Mul fl__rm_removable. */
bool fl__rm_rewrite_mul_maximum(rctx *r, fl_node *max) {
    if (!r->onednn || max->kind != FL_OP_MAXIMUM || max->n_inputs != 2 || max->n_ctrl > 0) {
        return false;
    }
    int t = fl__attr_type(max, "T");
    if (t != FL_DT_HALF && t != FL_DT_BFLOAT16 && t != FL_DT_FLOAT && t != FL_DT_DOUBLE) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul = fl__rm_in_node(max, s);
        fl_input x = max->inputs[1 - s];
        if (mul->kind != FL_OP_MUL || mul->n_inputs != 2 ||
            !fl__rm_removable(r, mul, (const fl_node *[]){max}, 1)) {
            continue;
        }
        for (int m = 0; m < 2; m++) {
            double alpha;
            if (!fl__rm_same_input(mul->inputs[m], x) ||
                !fl__rm_const_scalar(fl__rm_in_node(mul, 1 - m), true, true, &alpha) || alpha < 0) {
                continue;
            }
            fl__ledger_note(r->pc, "mul_maximum", max, "Maximum(x, Mul(x, alpha)) -> LeakyRelu");
            fl_node *f =
                fl__rm_replace_root(r, max, fl__op_name(FL_OP_LEAKY_RELU), max->device, 1, &x, 1);
            if (!f) {
                return false;
            }
            fl__rm_copy_attr(r, f, max, "T", NULL);
            fl__rm_set_attr(r, f, fl__attr_make_float(r->g, "alpha", (float)alpha));
            fl__rm_drop(r, mul);
            return true;
        }
    }
    return false;
}

/* Pattern (row 19): Mul(Tanh(Softplus(x)), x) (either operand order)  =>
 * _MklFusedMish named after the Mul, input [x], T. Conditions: oneDNN; Mul on
 * CPU, T float/bf16, no control inputs; Tanh and Softplus fl__rm_removable. */
bool fl__rm_rewrite_mish(rctx *r, fl_node *mul) {
    if (!r->onednn || mul->kind != FL_OP_MUL || mul->n_inputs != 2 || mul->n_ctrl > 0 ||
        !fl__rm_on_cpu(r, mul) || !fl__rm_t_float_or_bf16(mul)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *tanh = fl__rm_in_node(mul, s), *sp = fl__rm_in_node(tanh, 0);
        fl_input x = mul->inputs[1 - s];
        if (tanh->kind != FL_OP_TANH || !sp || sp->kind != FL_OP_SOFTPLUS || sp->n_inputs != 1 ||
            !fl__rm_same_input(sp->inputs[0], x) ||
            !fl__rm_removable(r, tanh, (const fl_node *[]){mul}, 1) ||
            !fl__rm_removable(r, sp, (const fl_node *[]){tanh}, 1)) {
            continue;
        }
        fl__ledger_note(r->pc, "mish", mul, "Mul(x, Tanh(Softplus(x))) -> _MklFusedMish");
        fl_node *f =
            fl__rm_replace_root(r, mul, fl__op_name(FL_OP_MKL_FUSED_MISH), mul->device, 1, &x, 1);
        if (!f) {
            return false;
        }
        fl__rm_copy_attr(r, f, mul, "T", NULL);
        fl__rm_drop(r, tanh);
        fl__rm_drop(r, sp);
        return true;
    }
    return false;
}

/* Pattern (row 22): Mul(Sigmoid(y), y) with y = BiasAdd(Conv2D(x, w), b) or
 * y = FusedBatchNorm/V2/V3(Conv2D(x, w), scale, offset, mean, var)  =>
 * _FusedConv2D named after the Mul (device of the Mul), inputs [x, w, b] or
 * [x, w, scale, offset, mean, var], fused_ops [BiasAdd|FusedBatchNorm,
 * _MklSwish], num_args 1 or 4, epsilon of the BN. Conditions: oneDNN; Mul
 * T float/bf16 on CPU, no control inputs; Sigmoid, y and the Conv2D
 * fl__rm_removable; Conv2D CPU-compatible; BN: is_training present and false, V2/V3
 * with U and T float. */
bool fl__rm_rewrite_conv_swish(rctx *r, fl_node *mul) {
    if (!r->onednn || mul->kind != FL_OP_MUL || mul->n_inputs != 2 || mul->n_ctrl > 0 ||
        !fl__rm_on_cpu(r, mul) || !fl__rm_t_float_or_bf16(mul)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *sig = fl__rm_in_node(mul, s), *y = fl__rm_in_node(mul, 1 - s);
        if (sig->kind != FL_OP_SIGMOID || sig->n_inputs != 1 || sig->inputs[0].node != y ||
            sig->inputs[0].port != 0 || mul->inputs[1 - s].port != 0) {
            continue;
        }
        bool bn = fl__rm_is_fused_batch_norm(y);
        if (!(y->kind == FL_OP_BIAS_ADD || bn) || y->n_inputs != (bn ? 5 : 2)) {
            continue;
        }
        fl_node *c = fl__rm_in_node(y, 0);
        if (!fl__rm_is_conv2d(c) || c->n_inputs != 2 ||
            !fl__rm_removable(r, sig, (const fl_node *[]){mul}, 1) ||
            !fl__rm_removable(r, y, (const fl_node *[]){mul, sig}, 2) ||
            !fl__rm_removable(r, c, (const fl_node *[]){y}, 1) ||
            !fl__rm_cpu_contraction_ok(r, c)) {
            continue;
        }
        if (bn) {
            const fl_attr *tr = fl__node_attr(y, "is_training");
            if (!tr || tr->kind != FL_ATTR_B || tr->v.b) {
                continue;
            }
            if (y->kind != FL_OP_FUSED_BATCH_NORM &&
                (fl__attr_type(y, "U") != FL_DT_FLOAT || fl__attr_type(y, "T") != FL_DT_FLOAT)) {
                continue;
            }
        }
        const char *ops[] = {bn ? "FusedBatchNorm" : "BiasAdd", "_MklSwish"};
        fl__ledger_note(r->pc, "conv2d_swish", mul, "Conv2D+%s+Sigmoid+Mul -> _FusedConv2D", y->op);
        fl_node *f = fl__rm_build_fused(r, mul, c, &y->inputs[1], bn ? 4 : 1, ops, 2,
                                        bn ? fl__attr_float(y, "epsilon", 1e-4f) : 0.0f, NULL);
        if (!f) {
            return false;
        }
        f->device = mul->device ? mul->device : "";
        fl__rm_drop(r, sig);
        fl__rm_drop(r, y);
        fl__rm_drop(r, c);
        return true;
    }
    return false;
}

/* Pattern (row 16): Pad(x, paddings) -> Conv3D or _FusedConv3D  =>
 * _FusedConv3D named after the conv: all its attrs and inputs, input 0 the
 * Pad's input, padding_list = the paddings (flattened), num_args 0 when
 * absent. Conditions: oneDNN; conv on CPU, T float/bf16, no control inputs;
 * the op exactly Pad, same T, paddings known; the Pad fl__rm_removable (our
 * addition: TensorFlow's matcher would also fl__rm_drop a Pad with other
 * consumers... it does not: the matcher keeps kRemove nodes exclusive). */
bool fl__rm_rewrite_pad_conv3d(rctx *r, fl_node *c) {
    if (!r->onednn || !(fl__rm_is_conv3d(c) || c->kind == FL_OP_FUSED_CONV3D) || c->n_inputs < 2 ||
        c->n_ctrl > 0 || !fl__rm_on_cpu(r, c) || !fl__rm_t_float_or_bf16(c)) {
        return false;
    }
    fl_node *pad = fl__rm_in_node(c, 0);
    if (pad->kind != FL_OP_PAD || pad->n_inputs != 2 || !fl__rm_same_t(c, pad) ||
        !fl__rm_removable(r, pad, (const fl_node *[]){c}, 1)) {
        return false;
    }
    int64_t pl[10], n;
    if (!fl__rm_int_input(pad, 1, pl, 10, &n) || n != 10) {
        return false;
    }
    fl__ledger_note(r->pc, "pad_conv3d", c, "Pad+%s -> _FusedConv3D", c->op);
    fl_input in[8];
    int k = c->n_inputs < 8 ? c->n_inputs : 8;
    memcpy(in, c->inputs, (size_t)k * sizeof(fl_input));
    in[0] = pad->inputs[0];
    fl_node *f = fl__rm_replace_root(r, c, fl__op_name(FL_OP_FUSED_CONV3D), c->device, k, in, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        fl__rm_set_attr(r, f, c->attrs[i]);
    }
    if (!fl__node_attr(c, "num_args")) {
        fl__rm_set_attr(r, f, fl__attr_make_int(r->g, "num_args", 0));
    }
    fl__rm_set_attr(r, f, fl__attr_make_ints(r->g, "padding_list", 10, pl));
    fl__rm_drop(r, pad);
    return true;
}

/* Pattern (row 18): HardSwish x * Relu6(x + 3) * 1/6 (Mul(Mul(Relu6(Add(3,
 * x)), 1/6), x) or Mul(Mul(Relu6(Add(3, x)), x), 1/6), commutative operands)
 * on x = BiasAdd(Conv2D | DepthwiseConv2dNative)  =>  _FusedConv2D /
 * _FusedDepthwiseConv2dNative named after the outer Mul, inputs [x, w, b],
 * fused_ops [BiasAdd, _FusedHardSwish], num_args 1; the two constants go too.
 * Conditions: oneDNN; no control edges on the root; constants Const 3 and
 * 0.16666 (within 1e-2); the inner nodes and constants fl__rm_removable, the BiasAdd
 * with at most its two uses in the pattern; the conv CPU-compatible. */
bool fl__rm_rewrite_hard_swish(rctx *r, fl_node *out) {
    if (!r->onednn || out->kind != FL_OP_MUL || out->n_inputs != 2 || fl__rm_has_ctrl(r, out)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *inner = fl__rm_in_node(out, s);
        if (inner->kind != FL_OP_MUL || inner->n_inputs != 2) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *relu6 = fl__rm_in_node(inner, q);
            if (relu6->kind != FL_OP_RELU6 || relu6->n_inputs != 1) {
                continue;
            }
            fl_node *add = fl__rm_in_node(relu6, 0);
            if (!fl__is_add(add) || add->n_inputs != 2) {
                continue;
            }
            /* one of (inner's other operand, out's other operand) is x, the
             * other the 1/6 constant */
            fl_input o1 = inner->inputs[1 - q], o2 = out->inputs[1 - s];
            for (int a = 0; a < 2; a++) {
                fl_input x = add->inputs[1 - a];
                double three, sixth;
                fl_input cst = fl__rm_same_input(o1, x) ? o2 : o1;
                fl_node *c3 = fl__rm_in_node(add, a);
                if (!(fl__rm_same_input(o1, x) || fl__rm_same_input(o2, x)) ||
                    !fl__rm_const_scalar(c3, false, false, &three) ||
                    !fl__rm_const_scalar(cst.node, false, false, &sixth) ||
                    fabs(three - 3.0) > 1e-2 || fabs(sixth - 0.16666) > 1e-2 || x.port != 0 ||
                    !fl__rm_removable(r, c3, (const fl_node *[]){add}, 1) ||
                    !fl__rm_removable(r, cst.node, (const fl_node *[]){inner, out}, 2)) {
                    continue;
                }
                fl_node *bias = x.node, *c;
                int port;
                const fl_node *users[] = {add, inner, out};
                if (!fl__rm_removable(r, inner, (const fl_node *[]){out}, 1) ||
                    !fl__rm_removable(r, relu6, (const fl_node *[]){inner}, 1) ||
                    !fl__rm_removable(r, add, (const fl_node *[]){relu6}, 1) ||
                    !fl__rm_match_contraction_bias(r, bias, &c, &port, false) ||
                    fl__preserved(bias) || fl__rm_fanout(r, bias, 0) > 2 ||
                    !fl__rm_removable(r, bias, users, 3) || !fl__rm_same_t(inner, bias) ||
                    !(fl__rm_is_conv2d(c) || fl__rm_is_depthwise(c)) ||
                    !fl__rm_cpu_contraction_ok(r, c)) {
                    continue;
                }
                static const char *const ops[] = {"BiasAdd", "_FusedHardSwish"};
                fl__ledger_note(r->pc, "contraction_bias_hard_swish", out,
                                "%s+BiasAdd+HardSwish -> %s", c->op, fl__rm_fused_name_of(c));
                if (!fl__rm_build_fused(r, out, c, &bias->inputs[port], 1, ops, 2, 0.0f, NULL)) {
                    return false;
                }
                fl__rm_drop(r, inner);
                fl__rm_drop(r, relu6);
                fl__rm_drop(r, add);
                fl__rm_drop(r, bias);
                fl__rm_drop(r, c);
                fl__rm_drop(r, c3);
                fl__rm_drop(r, cst.node);
                return true;
            }
        }
    }
    return false;
}
