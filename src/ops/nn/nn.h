/*
 * nn.h - the neural-network op family (the files of src/ops/nn/): convolutions (Conv2D, Conv3D,
 * DepthwiseConv2dNative, the fused forms _FusedConv2D,
 * _FusedDepthwiseConv2dNative and tfjs's FusedDepthwiseConv2dNative, and the
 * input/filter backprops), Dilation2D, pooling (MaxPool, MaxPoolV2, AvgPool,
 * the 3-D pools and the 2-D pool gradients), matrix products (MatMul,
 * _FusedMatMul, BatchMatMul/V2/V3, Einsum), batch normalisation
 * (FusedBatchNorm/V2/V3, _FusedBatchNormEx, their gradients
 * FusedBatchNormGrad/V2/V3 and _FusedBatchNormGradEx), BiasAdd/BiasAddV1/BiasAddGrad,
 * image resizing (ResizeBilinear/NearestNeighbor/Bicubic, CropAndResize), LRN,
 * Softmax/LogSoftmax, L2Loss, DepthToSpace/SpaceToDepth, and the other ops
 * the remapper produces: _FusedConv3D (padding_list: a fused Pad, applied to
 * the input first), _MklFusedBatchMatMulV2, _<Comparison>WithCast (2 FLOPs per
 * element: comparison + Cast), _TensorToHashBucketFast (2: conversion +
 * hash), _MklFusedMish (3: Softplus, Tanh, Mul), _MklLayerNorm and
 * _MklFusedInstanceNorm (below).
 *
 * Shapes follow TensorFlow's shape functions; dims are fl_sym, so a symbolic
 * batch or image size flows through (Conv2D SAME stride 2 on H gives
 * ceil(H/2)). None of these ops is evaluated on values.
 *
 * FLOP rules, "complete" convention. One FLOP is one arithmetic operation on
 * one element (a multiply, an add, a compare, an exp...); E(t) is the element
 * count of tensor t; a MAC (multiply-accumulate) counts 2 FLOPs.
 *   Conv2D, _FusedConv2D      MACs = E(out) * Kh * Kw * Cin_f (filter
 *                             [Kh,Kw,Cin_f,Cout]; right for grouped convs)
 *   Conv3D                    MACs = E(out) * Kd * Kh * Kw * Cin_f
 *   DepthwiseConv2dNative     MACs = E(out) * Kh * Kw (also both fused forms)
 *   Conv2DBackpropInput/Filter  MACs = E(out_backprop) * Kh * Kw * Cin_f: the
 *                             MACs of the forward convolution they transpose
 *   DepthwiseConv2dNativeBackpropInput/Filter  MACs = E(out_backprop) * Kh * Kw
 *   MatMul, _FusedMatMul, QuantizedMatMul  MACs = M * N * K
 *   BatchMatMul/V2/V3         MACs = prod(broadcast batch dims) * M * N * K
 *   Einsum (two operands, no ellipsis)  MACs = product of the sizes of all
 *                             distinct subscripts (one multiply-add per point
 *                             of the full index space); other equations: no
 *                             rule
 *   all of the above          FLOPs = 2 * MACs, plus, for the fused ops, the
 *                             sum of their parts on the output: BiasAdd, Add,
 *                             each activation (Relu, Relu6, Elu, LeakyRelu,
 *                             Sigmoid, Tanh, Gelu*, ...) 1 * E(out) each;
 *                             Prelu 2 * E(out) (multiply by alpha + select,
 *                             as ew.c counts the op); FusedBatchNorm as a
 *                             fused op 2 * E(out). So a fused op counts what
 *                             its unfused ops count.
 *   Dilation2D                2 * Kh * Kw * E(out) (one add and one max per
 *                             window tap; no MACs)
 *   MaxPool, AvgPool (+V2, 3-D)  prod(ksize) * E(out)
 *   MaxPoolGrad               (prod(ksize) + 1) * E(orig_output)  (tfprof's)
 *   AvgPoolGrad               2 * prod(ksize) * E(grad)            (tfprof's)
 *   FusedBatchNorm*           inference: 2 * E(x) (scale and shift per
 *                             element, the per-channel factors folded);
 *                             training: 4 * E(x) + 11 * C (Grappler's:
 *                             C * (4*NHW + 6 + rsqrt 5));
 *                             _FusedBatchNormEx adds E(x) for a side input
 *                             and E(x) for an activation other than Identity
 *   FusedBatchNormGrad*       11 * E(x) + 10 * C (Grappler's: C * (11*NHW +
 *                             5 + rsqrt 5)); _FusedBatchNormGradEx adds E(x)
 *                             for the Relu gradient it fuses
 *   BiasAdd, BiasAddV1        E(out)
 *   BiasAddGrad               E(in) - E(out) (a reduction)
 *   ResizeBilinear            9 * E(out) (three lerps of sub, mul, add)
 *   ResizeBicubic             35 * E(out) (4 row + 1 column 4-tap
 *                             interpolations of 4 mul + 3 add)
 *   ResizeNearestNeighbor     0 (data movement)
 *   CropAndResize             bilinear 9 * E(out); nearest 0
 *   LRN                       (4 * depth_radius + 5) * E(out): window squares
 *                             and sums (4r + 1), bias, alpha, pow, multiply
 *   Softmax, LogSoftmax       5 * E(in) (max/shift, exp, sum, normalise)
 *   L2Loss                    2 * E(in) (square, sum, the final halving
 *                             included)
 *   DepthToSpace, SpaceToDepth  0 (data movement), rule present
 *   _MklLayerNorm [x, gamma, beta] (normalises over the last axis; R = rows
 *                             = E(x) / x.shape[-1])  7 * E(x) + 3 * R: the
 *                             remapper's custom LayerNorm chain (Mean E, Sub
 *                             E, Square E, Mean E, Add eps R, Rsqrt 2R, Mul
 *                             gamma E, Mul E, Add beta E). The two other
 *                             chains the remapper folds into it count
 *                             differently unfused: Keras's FusedBatchNormV3
 *                             form 6 * E + 11 * R, the moments form 9 * E +
 *                             3 * R
 *   _MklFusedInstanceNorm [x, gamma, beta], reduction_axes (G = E(x) with
 *                             those axes 1, M = E(broadcast(that shape,
 *                             gamma)))  6 * E(x) + 3 * G + 3 * M (Mean E,
 *                             SquaredDifference 2E, Mean E, Add eps G, Rsqrt
 *                             2G, Mul gamma M, Mul x E, Mul mean M, Sub beta
 *                             M, Add E), + E(x) per fused_ops activation
 *
 * tfprof convention (tfprof_flops; 0 and tfprof_rule false for ops tfprof does
 * not register): Conv2D 2*E(out)*Kh*Kw*Cin_f; Conv3D 2*E(out)*Kd*Kh*Kw*Cin_f;
 * DepthwiseConv2dNative and Dilation2D 2*E(out)*Kh*Kw; MatMul 2*K*E(out);
 * BatchMatMul* 2*x.shape[-1]*E(out) (adj_x ignored, tfprof's quirk);
 * MaxPool/AvgPool prod(ksize)*E(out); MaxPoolGrad (prod(ksize)+1)*E(in1);
 * AvgPoolGrad 2*prod(ksize)*E(in1); Conv2DBackpropInput
 * floor(2*E(out)*E(filter) / (out[-1]*strides[1]*strides[2])) and
 * Conv2DBackpropFilter floor(2*E(in0)*E(out) / (in0[-1]*strides[1]*
 * strides[2])); the pool, pool-grad and conv-backprop rules give 0 unless
 * data_format is NHWC (tfprof raises for other formats); BiasAdd E(in0);
 * Softmax 5*E(in0); L2Loss 3*E(in0) - 1.
 */
#ifndef FL_OPS_NN_NN_H
#define FL_OPS_NN_NN_H

#include "ops/common.h"

/* Positions of batch, channel and spatial dims for a data format. */
typedef struct layout {
    int ns;   /* spatial dims: 2 or 3 */
    int rank; /* ns + 2 */
    bool cl;  /* channels last (NHWC/NDHWC) */
    bool ok;  /* false for a valid format we do not model (NCHW_VECT_C) */
} layout;

/* Window attrs of a conv or pool op, indexed in data-format order. */
typedef struct window {
    int64_t k[5];        /* ksize (pools) */
    int64_t s[5];        /* strides */
    int64_t d[5];        /* dilations / rates */
    int64_t pad[10];     /* explicit paddings, (lo, hi) per dim */
    const char *padding; /* "SAME", "VALID" or "EXPLICIT" */
} window;

enum {
    W_KSIZE = 1u << 0,     /* read attr ksize */
    W_DILATIONS = 1u << 1, /* read attr dilations (default 1s) */
    W_RATES = 1u << 2,     /* read attr rates (Dilation2D) */
    W_EXPLICIT = 1u << 3,  /* padding EXPLICIT allowed */
    W_NO_STRIDES = 1u << 4 /* strides come from an input (MaxPoolV2) */
};

/* Output `port`'s shape. */
static inline const fl_shape *fl__nn_out_shape(const fl_node *n, int port) {
    return &n->outputs[port].shape;
}

/* Fails unless input i has rank `rank` or an unknown rank. */
fl_status fl__nn_need_rank(fl_ctx *c, const fl_node *n, int i, const char *what, int rank);

fl_status fl__nn_need_rank_at_least(fl_ctx *c, const fl_node *n, int i, const char *what, int rank);

/* floor(a / b); 0 when b is a known 0 (tfprof would fail: no count). */
fl_sym fl__nn_floordiv_or_zero(fl_arith *k, fl_sym a, fl_sym b);

int fl__nn_lay_c(const layout *l);

int fl__nn_lay_sp(const layout *l, int i);

/* Reads attr data_format for an op with `ns` spatial dims (absent: channels
 * last). */
fl_status fl__nn_get_layout(fl_ctx *c, const fl_node *n, int ns, layout *l);

/* True when the node's data_format is NHWC (absent counts as NHWC, as a graph
 * imported into TensorFlow gets the default): tfprof's pool/backprop rules
 * require it. */
bool fl__nn_is_nhwc(const fl_node *n);

fl_status fl__nn_get_window(fl_ctx *c, const fl_node *n, int rank, unsigned flags, window *w);

/* Output size along data dim `idx` of a window of k taps (symbolic k: only
 * SAME padding, which ignores k, gives a size). */
fl_status fl__nn_window_dim(fl_ctx *c, const fl_node *n, const window *w, int idx, fl_sym in,
                            fl_sym k, fl_sym *out);

/* Conv ops reject strides and dilations on the batch and channel dims. */
fl_status fl__nn_check_conv_window(fl_ctx *c, const fl_node *n, const layout *l, const window *w,
                                   const char *dil_name);

/* Validates fused_ops (list of strings) and num_args against the inputs that
 * follow the `base` operands. */
fl_status fl__nn_check_fused(fl_ctx *c, const fl_node *n, int base);

/* FLOPs of the fused_ops epilogue on an output of e elements. */
fl_sym fl__nn_fused_extra(fl_arith *k, const fl_node *n, fl_sym e);

/* Reads a shape-vector input (input_sizes / filter_sizes / orig_input_shape)
 * into dims[4]. `two_ok`: a 2-element vector gives the spatial dims only.
 * Leaves dims untouched when the value is unknown. */
fl_status fl__nn_sizes_input(fl_ctx *c, const fl_node *n, int i, const char *what, const layout *l,
                             bool two_ok, fl_sym *dims);

fl_status fl__nn_cost_per_out_elem(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per);

#endif
