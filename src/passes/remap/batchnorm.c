/*
 * batchnorm.c - the remapper's FusedBatchNorm rules (standard rows 4-7 and
 * 9): Conv2D + FusedBatchNorm (+ activation) -> _FusedConv2D,
 * FusedBatchNorm + (side input) + Relu -> _FusedBatchNormEx, its gradient
 * -> _FusedBatchNormGradEx, and the decomposition of an inference
 * FusedBatchNorm into primitives. Each rule's pattern, conditions and
 * new-node names are at the rule.
 *
 * Row 7 (_FusedBatchNormGradEx) and row 6 in training mode need
 * TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1, off by default: with the pass
 * option persistent_bn (the CLI's --cudnn-persistent-batchnorm) they fire as
 * TensorFlow's do on GPU (rewrite_bn_grad_ex says which conditions; only the
 * V3 gradient, see there).
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* FindConv2DWithBatchNorm: FusedBatchNorm*(Conv2D(x, w), scale, offset,
 * mean, variance) in inference mode. Conditions: no control edges on the BN
 * or the Conv2D; V2/V3 have U=float; is_training false (absent: false);
 * only output 0 of the BN is consumed; Conv2D on CPU with CPU dtype and
 * format, sharing T with the BN, one consumer, not preserved. */
static bool match_conv_bn(const rctx *r, const fl_node *bn, fl_node **conv) {
    if (!fl__rm_is_fused_batch_norm(bn) || bn->n_inputs < 5 || fl__rm_has_ctrl(r, bn)) {
        return false;
    }
    if (bn->kind != FL_OP_FUSED_BATCH_NORM && fl__attr_type(bn, "U") != FL_DT_FLOAT) {
        return false;
    }
    if (fl__attr_bool(bn, "is_training", false) || fl__rm_fanout_beyond0(r, bn)) {
        return false;
    }
    fl_node *c = fl__rm_in_node(bn, 0);
    if (fl__rm_is_removed(c) || !fl__rm_is_conv2d(c) || c->n_inputs < 2 || !fl__rm_on_cpu(r, c) ||
        !fl__rm_same_t(bn, c) || !fl__rm_cpu_dtype_ok(r, c) || !fl__rm_cpu_format_ok(r, c) ||
        fl__rm_has_ctrl(r, c) || !fl__rm_one_fanout0(r, c) || fl__preserved(c)) {
        return false;
    }
    *conv = c;
    return true;
}

/* Pattern (table row 4): Conv2D -> FusedBatchNorm/V2/V3 (inference)  =>
 * _FusedConv2D named after the BN, inputs [x, filter, scale, offset, mean,
 * variance], fused_ops=[FusedBatchNorm], num_args=4, epsilon of the BN (no
 * U, see fl__rm_set_fused_attrs). Conditions: match_conv_bn. */
bool fl__rm_rewrite_conv_bn(rctx *r, fl_node *bn) {
    fl_node *c;
    if (!match_conv_bn(r, bn, &c)) {
        return false;
    }
    static const char *const ops[] = {"FusedBatchNorm"};
    fl__ledger_note(r->pc, "conv2d_batch_norm", bn, "Conv2D+%s -> _FusedConv2D", bn->op);
    if (!fl__rm_build_fused(r, bn, c, &bn->inputs[1], 4, ops, 1,
                            fl__attr_float(bn, "epsilon", 1e-4f), NULL)) {
        return false;
    }
    fl__rm_drop(r, c);
    return true;
}

/* Pattern (table row 5): Conv2D -> FusedBatchNorm* -> activation (Relu,
 * Relu6, Elu, LeakyRelu; + Tanh with oneDNN; never Sigmoid)  =>
 * _FusedConv2D named after the activation, fused_ops=[FusedBatchNorm, <act>].
 * Conditions: no control edges on the activation; it shares T with the BN;
 * match_conv_bn; the BN has one consumer and is not preserved. */
bool fl__rm_rewrite_conv_bn_act(rctx *r, fl_node *act) {
    if (!fl__rm_is_activation(r, act) || act->kind == FL_OP_SIGMOID || act->n_inputs < 1 ||
        fl__rm_has_ctrl(r, act)) {
        return false;
    }
    fl_node *bn = fl__rm_in_node(act, 0), *c;
    if (fl__rm_is_removed(bn) || !fl__rm_same_t(act, bn) || !match_conv_bn(r, bn, &c) ||
        !fl__rm_one_fanout0(r, bn) || fl__preserved(bn)) {
        return false;
    }
    const char *ops[] = {"FusedBatchNorm", act->op};
    fl__ledger_note(r->pc, "conv2d_batch_norm_activation", act, "Conv2D+%s+%s -> _FusedConv2D",
                    bn->op, act->op);
    if (!fl__rm_build_fused(r, act, c, &bn->inputs[1], 4, ops, 2,
                            fl__attr_float(bn, "epsilon", 1e-4f), act)) {
        return false;
    }
    fl__rm_drop(r, bn);
    fl__rm_drop(r, c);
    return true;
}

/* The training-mode conditions TensorFlow adds on GPU, where cuDNN computes
 * the fused batch norm (and its gradient): TF_USE_CUDNN_BATCHNORM_SPATIAL_
 * PERSISTENT set (pass option persistent_bn, off by default), NHWC, T half,
 * input 0 of rank 4 with a known channel count that is a multiple of 4. */
static bool persistent_bn_ok(const rctx *r, const fl_node *bn, const char *fmt) {
    if (!r->persistent_bn || strcmp(fmt, "NHWC") != 0 || fl__attr_type(bn, "T") != FL_DT_HALF ||
        bn->n_inputs < 1) {
        return false;
    }
    const fl_shape *x = &fl_node_in(bn, 0)->shape;
    return x->rank == 4 && fl_sym_is_known(x->dims[3]) && x->dims[3].k % 4 == 0;
}

/* The valid_batch_norm check of FindFusedBatchNormEx: a FusedBatchNorm* on
 * GPU (T float/half) or, with oneDNN, not on GPU (T float/bf16); is_training
 * and data_format (NHWC/NCHW) present; training on GPU needs cuDNN's
 * persistent mode (persistent_bn_ok); V2/V3 need U=float; no control edges;
 * at most one data consumer of output 0 (Shape/Rank ignored); not
 * preserved. */
static bool valid_bn_for_ex(const rctx *r, const fl_node *bn) {
    if (fl__rm_is_removed(bn) || !fl__rm_is_fused_batch_norm(bn) || bn->n_inputs < 5) {
        return false;
    }
    bool gpu = fl__rm_on_gpu(r, bn);
    if (!r->onednn && !gpu) {
        return false;
    }
    int t = fl__attr_type(bn, "T");
    if (gpu ? (t != FL_DT_FLOAT && t != FL_DT_HALF) : (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16)) {
        return false;
    }
    const fl_attr *tr = fl__node_attr(bn, "is_training");
    const char *fmt = fl__attr_str(bn, "data_format", NULL);
    if (!tr || tr->kind != FL_ATTR_B || !fmt) {
        return false;
    }
    if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NCHW") != 0) {
        return false;
    }
    if (tr->v.b && gpu && !persistent_bn_ok(r, bn, fmt)) {
        return false;
    }
    if (bn->kind != FL_OP_FUSED_BATCH_NORM && fl__attr_type(bn, "U") != FL_DT_FLOAT) {
        return false;
    }
    return !fl__rm_has_ctrl(r, bn) && fl__rm_one_data_fanout0(r, bn) && !fl__preserved(bn);
}

/* FindFusedBatchNormEx: root Relu without control edges over a valid BN
 * (*add NULL), or over Add/AddV2(BN, side) (either order): the side-input
 * variant not on oneDNN CPU, the Add without control edges, one consumer,
 * not preserved, both operands of symbolically equal shape. */
static bool match_bn_ex(const rctx *r, const fl_node *relu, fl_node **bn, fl_node **add,
                        fl_input *side) {
    if (fl__rm_is_removed(relu) || relu->kind != FL_OP_RELU || relu->n_inputs < 1 ||
        fl__rm_has_ctrl(r, relu)) {
        return false;
    }
    fl_node *in0 = fl__rm_in_node(relu, 0);
    *add = NULL;
    if (valid_bn_for_ex(r, in0)) {
        *bn = in0;
        return true;
    }
    if (fl__rm_is_removed(in0) || !fl__is_add(in0)) {
        return false;
    }
    if (r->onednn && !fl__rm_on_gpu(r, relu)) {
        return false;
    }
    if (fl__rm_has_ctrl(r, in0) || !fl__rm_one_fanout0(r, in0) || fl__preserved(in0) ||
        in0->n_inputs < 2 ||
        !fl__shape_same(&fl_node_in(in0, 0)->shape, &fl_node_in(in0, 1)->shape)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        if (valid_bn_for_ex(r, fl__rm_in_node(in0, k))) {
            *bn = fl__rm_in_node(in0, k);
            *side = in0->inputs[1 - k];
            *add = in0;
            return true;
        }
    }
    return false;
}

/* Pattern (table row 6): FusedBatchNorm* -> Relu, or FusedBatchNorm* + side
 * -> Add/AddV2 -> Relu  =>  _FusedBatchNormEx named after the BN (inputs [x,
 * scale, offset, mean, variance(, side)], activation_mode=Relu,
 * num_side_inputs 0/1, T, is_training, data_format, epsilon,
 * exponential_avg_factor, U); the Relu becomes Identity(BN); the Add is
 * deleted. Conditions: match_bn_ex. */
bool fl__rm_rewrite_bn_ex(rctx *r, fl_node *relu) {
    fl_node *bn, *add;
    fl_input side = {NULL, 0};
    if (!match_bn_ex(r, relu, &bn, &add, &side)) {
        return false;
    }
    fl__ledger_note(r->pc, "fused_batch_norm_ex", relu, "%s%s+Relu -> _FusedBatchNormEx", bn->op,
                    add ? "+Add" : "");
    fl_input in[6];
    for (int i = 0; i < 5; i++) {
        in[i] = bn->inputs[i];
    }
    if (add) {
        in[5] = side;
    }
    fl_node *f = fl__rm_replace_root(r, bn, fl__op_name(FL_OP_FUSED_BATCH_NORM_EX), bn->device,
                                     add ? 6 : 5, in, 6);
    if (!f) {
        return false;
    }
    fl_graph *g = r->g;
    fl__rm_copy_attr(r, f, bn, "T", NULL);
    fl__rm_copy_attr(r, f, bn, "is_training", NULL);
    fl__rm_copy_attr(r, f, bn, "data_format", NULL);
    fl__rm_copy_attr(r, f, bn, "epsilon", NULL);
    fl__rm_copy_attr(r, f, bn, "exponential_avg_factor", NULL);
    int u = bn->kind == FL_OP_FUSED_BATCH_NORM ? fl__attr_type(bn, "T") : fl__attr_type(bn, "U");
    if (r->onednn && !fl__rm_on_gpu(r, bn)) {
        u = FL_DT_FLOAT;
    }
    fl__rm_set_attr(r, f, fl__attr_make_type(g, "U", u));
    fl__rm_set_attr(r, f, fl__attr_make_str(g, "activation_mode", "Relu"));
    fl__rm_set_attr(r, f, fl__attr_make_int(g, "num_side_inputs", add ? 1 : 0));
    fl_input id_in = {f, 0};
    fl_node *id =
        fl__rm_replace_root(r, relu, fl__op_name(FL_OP_IDENTITY), bn->device, 1, &id_in, 1);
    if (!id) {
        return false;
    }
    fl__rm_copy_attr(r, id, bn, "T", NULL);
    if (add) {
        fl__rm_drop(r, add);
    }
    return true;
}

/* Pattern (table row 7): ReluGrad -> FusedBatchNormGrad* (training) whose
 * forward is a _FusedBatchNormEx match (FindFusedBatchNormGradEx)  =>
 * _FusedBatchNormGradEx named after the gradient, inputs [ReluGrad's
 * gradients, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
 * the forward BN's offset, ReluGrad's features (the forward Relu)], T, U
 * (V1: float), is_training, data_format, epsilon, activation_mode=Relu,
 * num_side_inputs 0/1. Without a side input the ReluGrad is deleted; with one
 * it becomes Identity(<grad>:5), the side input's gradient.
 * Conditions: the gradient on GPU, without control edges, is_training true,
 * T half, NHWC, input 0 of rank 4 with a known channel count that is a
 * multiple of 4, cuDNN's persistent mode, V2/V3 with U float (XLA
 * auto-clustering, which also blocks it, is off); ReluGrad without control
 * edges, not preserved; its input 1 the root of a _FusedBatchNormEx match:
 * without a side input the ReluGrad has one consumer; with one it has two
 * (this gradient and the side input's path) and the gradient's
 * reserve_space_3 (input 5) comes from the matched forward BN. */
bool fl__rm_rewrite_bn_grad_ex(rctx *r, fl_node *g) {
    /* FusedBatchNormGrad/V2 match TensorFlow's conditions too (V1 only with
     * T float, so never), but have no reserve_space_3 (input 5), which
     * TensorFlow's rewrite reads regardless: not rewritten here. */
    if (g->kind != FL_OP_FUSED_BATCH_NORM_GRAD_V3) {
        return false;
    }
    if (fl__rm_has_ctrl(r, g) || !fl__rm_on_gpu(r, g) || !fl__attr_bool(g, "is_training", false) ||
        !fl__node_attr(g, "is_training") || g->n_inputs < 6) {
        return false;
    }
    const char *fmt = fl__attr_str(g, "data_format", NULL);
    if (!fmt || !persistent_bn_ok(r, g, fmt)) {
        return false;
    }
    if (fl__attr_type(g, "U") != FL_DT_FLOAT) {
        return false;
    }
    fl_node *rg = fl__rm_in_node(g, 0);
    if (fl__rm_is_removed(rg) || rg->kind != FL_OP_RELU_GRAD || rg->n_inputs < 2 ||
        fl__rm_has_ctrl(r, rg) || fl__preserved(rg)) {
        return false;
    }
    fl_node *fwd_bn, *fwd_add;
    fl_input side = {NULL, 0};
    if (!match_bn_ex(r, fl__rm_in_node(rg, 1), &fwd_bn, &fwd_add, &side)) {
        return false;
    }
    size_t uses = fl__rm_fanout(r, rg, 0);
    bool with_side;
    if (!fwd_add && uses == 1) {
        with_side = false;
    } else if (fwd_add && uses == 2 && fl__rm_in_node(g, 5) == fwd_bn) {
        with_side = true;
    } else {
        return false;
    }
    fl__ledger_note(r->pc, "fused_batch_norm_grad_ex", g, "ReluGrad+%s -> _FusedBatchNormGradEx%s",
                    g->op, with_side ? " (side input)" : "");
    fl_input in[8] = {rg->inputs[0], g->inputs[1], g->inputs[2],      g->inputs[3],
                      g->inputs[4],  g->inputs[5], fwd_bn->inputs[2], rg->inputs[1]};
    const char *dev = g->device;
    fl_node *f =
        fl__rm_replace_root(r, g, fl__op_name(FL_OP_FUSED_BATCH_NORM_GRAD_EX), dev, 8, in, 6);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, g, "T", NULL);
    fl__rm_copy_attr(r, f, g, "is_training", NULL);
    fl__rm_copy_attr(r, f, g, "data_format", NULL);
    fl__rm_copy_attr(r, f, g, "epsilon", NULL);
    fl__rm_set_attr(r, f, fl__attr_make_type(r->g, "U", fl__attr_type(g, "U")));
    fl__rm_set_attr(r, f, fl__attr_make_str(r->g, "activation_mode", "Relu"));
    fl__rm_set_attr(r, f, fl__attr_make_int(r->g, "num_side_inputs", with_side ? 1 : 0));
    if (with_side) {
        fl_input id_in = {f, 5};
        fl_node *id = fl__rm_replace_root(r, rg, fl__op_name(FL_OP_IDENTITY), dev, 1, &id_in, 1);
        if (!id) {
            return false;
        }
        fl__rm_copy_attr(r, id, g, "T", NULL);
    } else {
        fl__rm_drop(r, rg);
    }
    return true;
}

static fl_node *add_binary(rctx *r, const fl_node *bn, const char *suffix, const char *op,
                           fl_input a, fl_input b, int t) {
    fl_input in[2] = {a, b};
    fl_node *n = fl__rm_add_extra(r, bn->name, suffix, op, bn->device, 2, in);
    if (n) {
        fl__rm_set_attr(r, n, fl__attr_make_type(r->g, "T", t));
    }
    return n;
}

/* Pattern (table row 9): FusedBatchNorm* alone (inference)  =>  primitives:
 * <bn>/Const = epsilon, <bn>/VarPlusEpsilon = Add(var, eps), <bn>/Inv =
 * Rsqrt, <bn>/Scaled = Mul(inv, scale), <bn>/Mul = Mul(x, scaled), <bn>/Mul2 =
 * Mul(mean, scaled), <bn>/Offset = Sub(offset, Mul2), <bn> = Add(Mul,
 * Offset); NCHW/NCDHW first reshape the four vectors to [1,-1,1,1(,1)]
 * (<bn>/NCHWShape, <bn>/NCHWShapedScale, ...Offset, ...Mean, ...Variance).
 * Conditions: T float; is_training present and false; scale and variance
 * known, or at least 4 of the 5 inputs known; no output but 0 consumed. Not
 * device-gated. */
bool fl__rm_rewrite_bn_decompose(rctx *r, fl_node *bn) {
    if (!fl__rm_is_fused_batch_norm(bn) || bn->n_inputs < 5 ||
        fl__attr_type(bn, "T") != FL_DT_FLOAT) {
        return false;
    }
    const fl_attr *tr = fl__node_attr(bn, "is_training");
    if (!tr || tr->kind != FL_ATTR_B || tr->v.b) {
        return false;
    }
    int known = 0;
    for (int i = 0; i < 5; i++) {
        known += fl__rm_known_input(bn, i);
    }
    if (!((fl__rm_known_input(bn, 1) && fl__rm_known_input(bn, 4)) || known >= 4) ||
        fl__rm_fanout_beyond0(r, bn)) {
        return false;
    }
    fl__ledger_note(r->pc, "batch_norm_decomposition", bn, "%s -> Mul/Add primitives", bn->op);
    fl_graph *g = r->g;
    const int t = FL_DT_FLOAT;
    fl_input x = bn->inputs[0], scale = bn->inputs[1], offset = bn->inputs[2], mean = bn->inputs[3],
             var = bn->inputs[4];
    const char *fmt = fl__attr_str(bn, "data_format", "NHWC");
    bool nchw = strcmp(fmt, "NCHW") == 0, ncdhw = strcmp(fmt, "NCDHW") == 0;
    if (nchw || ncdhw) {
        int64_t rank = nchw ? 4 : 5;
        fl_value *sv = fl__value_new(g->arena, FL_DT_INT32, 1, &rank);
        char *shape_name = fl__arena_printf(g->arena, "%sShape", fmt);
        fl_node *shape = sv && shape_name
                             ? fl__rm_add_extra(r, bn->name, shape_name, fl__op_name(FL_OP_CONST),
                                                bn->device, 0, NULL)
                             : NULL;
        if (!shape) {
            fl__rm_fail_oom(r);
            return false;
        }
        fl_sym *e = (fl_sym *)sv->ints;
        for (int64_t k = 0; k < rank; k++) {
            e[k] = fl_sym_const(k == 1 ? -1 : 1);
        }
        fl__rm_set_attr(r, shape, fl__attr_make_type(g, "dtype", FL_DT_INT32));
        fl__rm_set_attr(r, shape, fl__attr_make_tensor(g, "value", FL_DT_INT32, 1, &rank, sv));
        if (fl__node_add_ctrl(g, shape, scale.node) != FL_OK ||
            fl__edge_index_note(&r->edges, shape, r->d) != FL_OK) {
            fl__rm_fail_oom(r);
        }
        fl_input *vecs[4] = {&scale, &offset, &mean, &var};
        static const char *const what[4] = {"Scale", "Offset", "Mean", "Variance"};
        for (int k = 0; k < 4; k++) {
            char *nm = fl__arena_printf(g->arena, "%sShaped%s", fmt, what[k]);
            fl_input in[2] = {*vecs[k], {shape, 0}};
            fl_node *rs = nm ? fl__rm_add_extra(r, bn->name, nm, fl__op_name(FL_OP_RESHAPE),
                                                bn->device, 2, in)
                             : NULL;
            if (!rs) {
                fl__rm_fail_oom(r);
                return false;
            }
            fl__rm_set_attr(r, rs, fl__attr_make_type(g, "T", t));
            fl__rm_set_attr(r, rs, fl__attr_make_type(g, "Tshape", FL_DT_INT32));
            *vecs[k] = (fl_input){rs, 0};
        }
    }
    fl_value *ev = fl__value_new(g->arena, FL_DT_FLOAT, 0, NULL);
    fl_node *eps =
        ev ? fl__rm_add_extra(r, bn->name, "Const", fl__op_name(FL_OP_CONST), bn->device, 0, NULL)
           : NULL;
    if (!eps) {
        fl__rm_fail_oom(r);
        return false;
    }
    fl__value_set_f64(ev, 0, fl__attr_float(bn, "epsilon", 1e-4f));
    fl__rm_set_attr(r, eps, fl__attr_make_type(g, "dtype", t));
    fl__rm_set_attr(r, eps, fl__attr_make_tensor(g, "value", t, 0, NULL, ev));
    fl_node *vpe =
        add_binary(r, bn, "VarPlusEpsilon", fl__op_name(FL_OP_ADD), var, (fl_input){eps, 0}, t);
    fl_node *inv = vpe ? fl__rm_add_extra(r, bn->name, "Inv", fl__op_name(FL_OP_RSQRT), bn->device,
                                          1, &(fl_input){vpe, 0})
                       : NULL;
    if (!inv) {
        return false;
    }
    fl__rm_set_attr(r, inv, fl__attr_make_type(g, "T", t));
    fl_node *scaled =
        add_binary(r, bn, "Scaled", fl__op_name(FL_OP_MUL), (fl_input){inv, 0}, scale, t);
    fl_node *mul =
        scaled ? add_binary(r, bn, "Mul", fl__op_name(FL_OP_MUL), x, (fl_input){scaled, 0}, t)
               : NULL;
    fl_node *mul2 =
        mul ? add_binary(r, bn, "Mul2", fl__op_name(FL_OP_MUL), mean, (fl_input){scaled, 0}, t)
            : NULL;
    fl_node *off =
        mul2 ? add_binary(r, bn, "Offset", fl__op_name(FL_OP_SUB), offset, (fl_input){mul2, 0}, t)
             : NULL;
    if (!off) {
        return false;
    }
    fl_input in[2] = {{mul, 0}, {off, 0}};
    fl_node *root = fl__rm_replace_root(r, bn, fl__op_name(FL_OP_ADD), bn->device, 2, in, 1);
    if (!root) {
        return false;
    }
    fl__rm_set_attr(r, root, fl__attr_make_type(g, "T", t));
    return true;
}
