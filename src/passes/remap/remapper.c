/*
 * remapper.c - Grappler's remapper on foldline's IR: pattern-based fusion of
 * contraction + bias + activation chains (and the other patterns of
 * TensorFlow's grappler/optimizers/remapper.cc) into TensorFlow's fused
 * kernels. Rows, our numbering of remapper.cc's patterns (root = last op):
 *   stock:  1 contraction (Conv2D, DepthwiseConv2dNative, MatMul, Conv3D) +
 *           BiasAdd; 2 row 1 + Relu/Relu6/Elu/LeakyRelu; 3 Conv2D + Squeeze +
 *           BiasAdd; 4 Conv2D + FusedBatchNorm*; 5 row 4 + activation;
 *           6 FusedBatchNorm* (+ side-input Add) + Relu -> _FusedBatchNormEx;
 *           7 ReluGrad + FusedBatchNormGrad* -> _FusedBatchNormGradEx;
 *           8 AsString + StringToHashBucketFast; 9 an inference
 *           FusedBatchNorm decomposed into primitives; 10 comparison + Cast
 *           -> _<Comparison>WithCast; 11 SpaceToBatchND + Conv2D +
 *           BatchToSpaceND -> a dilated conv
 *   oneDNN: 12 GRU/AUGRU cells; 13 Conv + BiasAdd + Add/AddN + activation;
 *           14 Conv2D/_FusedConv2D + LeakyRelu|_MklFusedMish; 15 contraction
 *           + BiasAdd + Add/AddN; 16 Pad + Conv3D; 17 MatMul + BiasAdd + Gelu
 *           (exact or approximate); 18 Conv + BiasAdd + HardSwish; 19 Mish;
 *           20 BatchMatMulV2 + Mul + AddV2; 21 Maximum(x, Mul(x, a)) ->
 *           LeakyRelu; 22 Conv2D + BiasAdd/BN + Swish; 23 Mul(x, Sigmoid(x))
 *           -> _MklSwish; 24 LayerNorm forms -> _MklLayerNorm; 25 instance
 *           norm (+ Relu/LeakyRelu) -> _MklFusedInstanceNorm
 * This file is the entry point and the order the rules are tried in; the
 * rules live in the files of passes/remap/ (standard rows 1-3 in
 * contraction.c, 4-7 and 9 in batchnorm.c, 8, 10 and 11 in stock_other.c;
 * oneDNN rows 13-15 and 23 in onednn.c, 16, 18, 19, 21 and 22 in
 * onednn_act.c, 17 and 20 in onednn_matmul.c, 24 and 25 in onednn_norm.c,
 * 12 in gru.c; on ONNX graphs the same rules over ONNX operators in
 * onnx_contraction.c, onnx_batchnorm.c and onnx_norm.c, and ONNX Runtime's
 * transformer fusions in onnx_ort.c), each with its pattern, conditions and the names it
 * gives in the comment at the rule.
 *
 * Driver (as remapper.cc): nodes are visited in reverse topological order, so
 * the longest pattern rooted at the last node wins; a node consumed by an
 * earlier match is skipped. Every rule keeps TensorFlow's names: the fused node
 * takes the name of the pattern's last node (so consumers and fetches keep
 * working) and the device of the contraction.
 *
 * Device placement. TensorFlow's device-gated rules fire only for nodes whose
 * device string parses to CPU (or GPU); an unplaced node is on neither. We
 * treat the target device option (pc->opt->device) as the placement of every
 * node whose device string is empty, so an unplaced graph optimised for CPU
 * fuses like a graph TensorFlow placed on CPU. A node with an explicit device
 * keeps it (a "/device:GPU:0" node is never fused by a CPU rule, and the
 * reverse).
 *
 * Environment-dependent TensorFlow switches are taken at their defaults: XLA
 * auto-clustering off, cublasLt off (no MatMul fusion on GPU), cuDNN runtime
 * fusion off (GPU activations: Relu only), persistent batch norm off unless
 * the pass option persistent_bn says otherwise (rows 6 in training and 7),
 * allow_non_differentiable_rewrites on.
 *
 * Renaming: see rewrite.c.
 *
 * oneDNN rows (--remapper onednn) present: 12 (GRUBlockCell / AUGRUBlockCell,
 * the consumers moved to output 3, h), 13, 14 (fused conv + LeakyRelu |
 * _MklFusedMish), 15, 16 (Pad + Conv3D), 17 (exact and approximate Gelu
 * subgraphs, and the standalone Gelu op), 18 (HardSwish), 19 (Mish), 20
 * (BatchMatMulV2 + Mul + AddV2), 21 (Maximum + Mul -> LeakyRelu), 22 (Conv2D
 * + BiasAdd/BN + Swish), 23, 24 (_MklLayerNorm: the Keras FusedBatchNormV3
 * form, the custom form, the mean/variance form over the last axis), 25
 * (_MklFusedInstanceNorm, with Relu/LeakyRelu), and the bias-semantic Add
 * accepted as BiasAdd. Row 12 follows the GRU matcher of the oneDNN
 * remapper.cc (Intel-tensorflow; the newer tensorflow/tensorflow snapshots we
 * read have no GRU rule). Row 17's standalone-Gelu form is in no
 * remapper.cc we could read (tensorflow/tensorflow, its mirrors, the Intel
 * fork): it is written as the Gelu-exact rule is (rewrite_matmul_gelu_op
 * says which conditions that gives) and is the one rule here not checked
 * line by line against TensorFlow. Not done:
 *  - the conv1x1 + depthwise fusion (Findconv1x1Depthwise): it appears only
 *    in Intel's fork of remapper.cc, not in TensorFlow's.
 * Row 7 (_FusedBatchNormGradEx) and row 6 in training mode need
 * TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1, off by default: with the pass
 * option persistent_bn (the CLI's --cudnn-persistent-batchnorm) they fire as
 * TensorFlow's do on GPU (rewrite_bn_grad_ex says which conditions; only the
 * V3 gradient, see there).
 *
 * TensorFlow versions differ; where they do, this follows current
 * remapper.cc and says so at the rule (row 14 takes no plain Conv2D; fused
 * nodes carry no `U`; row 11 ignores strides).
 *
 * Counters: each replaced root counts as rewritten (its name lives on), every
 * other matched node that disappears as removed, every extra node (the
 * decomposition's primitives) as added.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether a stock rule (the last list of remap_node) can root at n: each
 * begins with one of these kind tests on its root, an activation
 * (fl__rm_is_activation in either mode), BiasAdd or with oneDNN a
 * bias-like Add (fl__rm_match_contraction_bias), a FusedBatchNorm or
 * FusedBatchNormGradV3, Cast, BatchToSpaceND, or the name test of an op
 * outside the registry (StringToHashBucketFast). Other nodes, most of a
 * graph, skip the list's calls. */
static bool stock_root(const rctx *r, const fl_node *n) {
    switch (n->kind) {
    case FL_OP_UNKNOWN:
    case FL_OP_RELU:
    case FL_OP_RELU6:
    case FL_OP_ELU:
    case FL_OP_LEAKY_RELU:
    case FL_OP_TANH:
    case FL_OP_SIGMOID:
    case FL_OP_BIAS_ADD:
    case FL_OP_FUSED_BATCH_NORM:
    case FL_OP_FUSED_BATCH_NORM_V2:
    case FL_OP_FUSED_BATCH_NORM_V3:
    case FL_OP_FUSED_BATCH_NORM_GRAD_V3:
    case FL_OP_CAST:
    case FL_OP_BATCH_TO_SPACE_ND:
        return true;
    default:
        return r->onednn && fl__is_add(n);
    }
}

/* Whether a oneDNN rule (the first two lists of remap_node) can root at n:
 * each begins with one of these kind tests on its root: an activation
 * other than Tanh and Sigmoid (contraction_bias_add, which refuses those
 * two; instance_norm; conv_leakyrelu: LeakyRelu or _MklFusedMish), an Add,
 * AddV2 or AddN (gru_cell, contraction_bias_add, fused_batch_matmul,
 * layer_norm, instance_norm), a Conv3D or _FusedConv3D (pad_conv3d), a Mul
 * (hard_swish, mish, conv_swish, swish and both Gelu matmul forms), a
 * Maximum (mul_maximum) or a Gelu (matmul_gelu_op). Other nodes skip the
 * lists' calls. */
static bool onednn_root(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_RELU:
    case FL_OP_RELU6:
    case FL_OP_ELU:
    case FL_OP_LEAKY_RELU:
    case FL_OP_MKL_FUSED_MISH:
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_ADD_N:
    case FL_OP_CONV3D:
    case FL_OP_FUSED_CONV3D:
    case FL_OP_MUL:
    case FL_OP_MAXIMUM:
    case FL_OP_GELU:
        return true;
    default:
        return false;
    }
}

/* Tries the rules rooted at n in remapper.cc's order; true when one fired. */
static bool remap_node(rctx *r, fl_node *n) {
    if (r->g->onnx.is_onnx) {
        return fl__rm_onnx_rewrite(r, n); /* ONNX operators: onnx_contraction.c */
    }
    if (r->onednn && onednn_root(n)) {
        if (fl__rm_rewrite_gru_cell(r, n) || fl__rm_rewrite_contraction_bias_add(r, n) ||
            fl__rm_rewrite_conv_leakyrelu(r, n) || fl__rm_rewrite_pad_conv3d(r, n) ||
            fl__rm_rewrite_hard_swish(r, n) || fl__rm_rewrite_mish(r, n) ||
            fl__rm_rewrite_fused_batch_matmul(r, n) || fl__rm_rewrite_mul_maximum(r, n) ||
            fl__rm_rewrite_conv_swish(r, n) || fl__rm_rewrite_swish(r, n) ||
            fl__rm_rewrite_layer_norm(r, n) || fl__rm_rewrite_instance_norm(r, n)) {
            return true;
        }
        if (fl__rm_rewrite_matmul_gelu_exact(r, n) || fl__rm_rewrite_matmul_gelu_approx(r, n) ||
            fl__rm_rewrite_matmul_gelu_op(r, n)) {
            return true;
        }
    }
    if (!stock_root(r, n)) {
        return false;
    }
    return fl__rm_rewrite_contraction_bias_act(r, n) || fl__rm_rewrite_contraction_bias(r, n) ||
           fl__rm_rewrite_conv_squeeze_bias(r, n) || fl__rm_rewrite_conv_bn_act(r, n) ||
           fl__rm_rewrite_conv_bn(r, n) || fl__rm_rewrite_bn_ex(r, n) ||
           fl__rm_rewrite_bn_grad_ex(r, n) || fl__rm_rewrite_tensor_to_hash_bucket(r, n) ||
           fl__rm_rewrite_bn_decompose(r, n) || fl__rm_rewrite_comparison_cast(r, n) ||
           fl__rm_rewrite_dilated_conv(r, n);
}

/* A node the second ONNX sweep's rules can start from or need (their
 * roots, and the Slices whose producer gather_slice_to_split_fusion starts
 * from). */
static bool phase2_kind(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_ONNX_SLICE:
    case FL_OP_ONNX_LAYER_NORM:
    case FL_OP_ONNX_MS_GELU:
    case FL_OP_ONNX_MS_FAST_GELU:
    case FL_OP_ONNX_MUL:
    case FL_OP_ONNX_DIV:
    case FL_OP_ONNX_MATMUL:
    case FL_OP_ONNX_MS_FUSED_MATMUL:
        return true;
    default:
        return false;
    }
}

static bool visit(void *ctx, fl_node *n) {
    rctx *r = ctx;
    if (r->onnx_phase != 1) {
        return remap_node(r, n);
    }
    r->onnx_phase2 |= phase2_kind(n);
    return remap_node(r, n);
}

fl_status fl__pass_remapper(fl_pass_ctx *pc) {
    rctx r = {0};
    r.pc = pc;
    r.g = pc->c->g;
    r.d = pc->c->d;
    r.onednn = pc->opt && pc->opt->remapper_mode == FL_REMAPPER_ONEDNN;
    r.persistent_bn = pc->opt && pc->opt->persistent_bn;
    r.target = pc->opt ? pc->opt->device : FL_DEVICE_CPU;
    if (!r.g->onnx.is_onnx) {
        return fl__sweep_reverse(pc, &r.uses, &r.edges, &r.n0, visit, &r, &r.st);
    }
    /* ONNX: ONNX Runtime's fusions in two sweeps (fl__rm_onnx_rewrite);
     * the second only when the first met a node its rules need or made one
     * (a Gelu, a LayerNormalization). */
    r.onnx_phase = 1;
    fl_status s = fl__sweep_reverse(pc, &r.uses, &r.edges, &r.n0, visit, &r, &r.st);
    if (s != FL_OK || !r.onnx_phase2) {
        return s;
    }
    r.onnx_phase = 2;
    return fl__sweep_reverse(pc, &r.uses, &r.edges, &r.n0, visit, &r, &r.st);
}
