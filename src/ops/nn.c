/*
 * nn.c - the neural-network op family: convolutions (Conv2D, Conv3D,
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
#include "ops/common.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static const fl_shape *out_shape(const fl_node *n, int port) {
    return &n->outputs[port].shape;
}

static bool is_known_val(fl_sym s, int64_t v) {
    return fl_sym_is_known(s) && s.k == v;
}

/* Element type from attr `attr`; when absent, input `in`'s type (ref types
 * folded). */
static fl_status attr_dtype(fl_ctx *c, const fl_node *n, const char *attr, int in, int *dt) {
    fl_status st = fl__attr_get_type(n, attr, dt, c->d);
    if (st == FL_ENOTFOUND) {
        *dt = (in >= 0 && in < n->n_inputs) ? (int)fl_dtype_base(fl_node_in(n, in)->dtype)
                                            : FL_DT_INVALID;
        return FL_OK;
    }
    return st;
}

/* Fails unless input i has rank `rank` or an unknown rank. */
static fl_status need_rank(fl_ctx *c, const fl_node *n, int i, const char *what, int rank) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must be %d-D, got rank %d", i,
                             what, rank, s->rank);
    }
    return FL_OK;
}

static fl_status need_rank_at_least(fl_ctx *c, const fl_node *n, int i, const char *what,
                                    int rank) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank < rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input %d ('%s') must have rank at least %d, got rank %d", i, what,
                             rank, s->rank);
    }
    return FL_OK;
}

/* Sticky-status arithmetic for the cost hooks: after a failure every later
 * result is unknown and the status is kept. */
typedef struct arith {
    fl_ctx *c;
    const fl_node *n;
    fl_status st;
} arith;

static fl_sym a_mul(arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_mul(k->c, k->n, a, b, &r);
    }
    return r;
}

static fl_sym a_add(arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_add(k->c, k->n, a, b, &r);
    }
    return r;
}

static fl_sym a_sub(arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_sub(k->c, k->n, a, b, &r);
    }
    return r;
}

static fl_sym a_scale(arith *k, fl_sym a, int64_t m) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_scale(k->c, k->n, a, m, &r);
    }
    return r;
}

/* floor(a / b); 0 when b is a known 0 (tfprof would fail: no count). */
static fl_sym a_floordiv(arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (is_known_val(b, 0)) {
        return fl_sym_const(0);
    }
    if (k->st == FL_OK) {
        k->st = fl__op_floordiv(k->c, k->n, a, b, &r);
    }
    return r;
}

static fl_sym a_numel(arith *k, const fl_shape *s) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_num_elements(k->c, k->n, s, &r);
    }
    return r;
}

/* Product of dims [from, to) of s. */
static fl_sym a_dims_prod(arith *k, const fl_shape *s, int from, int to) {
    if (s->rank < 0 || from < 0 || to > s->rank) {
        return fl_sym_unknown();
    }
    fl_sym acc = fl_sym_const(1);
    for (int i = from; i < to; i++) {
        acc = a_mul(k, acc, s->dims[i]);
    }
    return acc;
}

static fl_sym a_int_prod(arith *k, const int64_t *v, size_t cnt) {
    fl_sym acc = fl_sym_const(1);
    for (size_t i = 0; i < cnt; i++) {
        acc = a_mul(k, acc, fl_sym_const(v[i]));
    }
    return acc;
}

/* Stores a cost. Any unknown count makes the whole node incomplete (counts 0). */
static fl_status put_cost(arith *k, fl_cost *out, fl_sym flops, fl_sym tfprof, fl_sym macs,
                          bool tfprof_rule) {
    if (k->st != FL_OK) {
        return k->st;
    }
    out->has_rule = true;
    out->tfprof_rule = tfprof_rule;
    if (fl_sym_is_unknown(flops) || fl_sym_is_unknown(tfprof) || fl_sym_is_unknown(macs)) {
        out->incomplete = true;
        out->flops = out->tfprof_flops = out->macs = fl_sym_const(0);
        return FL_OK;
    }
    out->flops = flops;
    out->tfprof_flops = tfprof;
    out->macs = macs;
    return FL_OK;
}

static void no_rule(fl_cost *out) {
    out->has_rule = false;
    out->tfprof_rule = false;
    out->flops = out->tfprof_flops = out->macs = fl_sym_const(0);
}

/* ------------------------------------------------------------------------- */
/* Data formats and window attrs                                              */
/* ------------------------------------------------------------------------- */

/* Positions of batch, channel and spatial dims for a data format. */
typedef struct layout {
    int ns;   /* spatial dims: 2 or 3 */
    int rank; /* ns + 2 */
    bool cl;  /* channels last (NHWC/NDHWC) */
    bool ok;  /* false for a valid format we do not model (NCHW_VECT_C) */
} layout;

static int lay_c(const layout *l) {
    return l->cl ? l->rank - 1 : 1;
}

static int lay_sp(const layout *l, int i) {
    return l->cl ? 1 + i : 2 + i;
}

/* Reads attr data_format for an op with `ns` spatial dims (absent: channels
 * last). */
static fl_status get_layout(fl_ctx *c, const fl_node *n, int ns, layout *l) {
    const char *f;
    fl_status st = fl__attr_str_or(n, "data_format", ns == 3 ? "NDHWC" : "NHWC", &f, c->d);
    if (st != FL_OK) {
        return st;
    }
    l->ns = ns;
    l->rank = ns + 2;
    l->ok = true;
    if (strcmp(f, ns == 3 ? "NDHWC" : "NHWC") == 0) {
        l->cl = true;
    } else if (strcmp(f, ns == 3 ? "NCDHW" : "NCHW") == 0) {
        l->cl = false;
    } else if (ns == 2 && strcmp(f, "NCHW_VECT_C") == 0) {
        l->cl = false;
        l->ok = false;
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' must be %s, got '%s'",
                             ns == 3 ? "NDHWC or NCDHW" : "NHWC or NCHW", f);
    }
    return FL_OK;
}

/* True when the node's data_format is NHWC (absent counts as NHWC, as a graph
 * imported into TensorFlow gets the default): tfprof's pool/backprop rules
 * require it. */
static bool is_nhwc(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "data_format");
    if (!a) {
        return true;
    }
    return a->kind == FL_ATTR_S && strcmp(a->v.s.p, "NHWC") == 0;
}

/* Reads list(int) attr `name` into out[count]. Absent: fails when required,
 * else fills `dflt`. Entries must be positive when `positive`. */
static fl_status get_int_list(fl_ctx *c, const fl_node *n, const char *name, bool required,
                              int count, int64_t dflt, bool positive, int64_t *out) {
    const int64_t *v;
    size_t k;
    fl_status st = fl__attr_get_ints(n, name, &v, &k, c->d);
    if (st == FL_ENOTFOUND) {
        if (required) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is required", name);
        }
        for (int i = 0; i < count; i++) {
            out[i] = dflt;
        }
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (k != (size_t)count) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' must have %d entries, got %zu", name,
                             count, k);
    }
    for (int i = 0; i < count; i++) {
        if (positive && v[i] <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' entries must be positive, got %lld",
                                 name, (long long)v[i]);
        }
        out[i] = v[i];
    }
    return FL_OK;
}

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

static fl_status get_window(fl_ctx *c, const fl_node *n, int rank, unsigned flags, window *w) {
    fl_status st;
    for (int i = 0; i < 5; i++) {
        w->k[i] = w->s[i] = w->d[i] = 1;
    }
    memset(w->pad, 0, sizeof w->pad);
    if (!(flags & W_NO_STRIDES)) {
        if ((st = get_int_list(c, n, "strides", true, rank, 1, true, w->s)) != FL_OK) {
            return st;
        }
        if ((flags & W_KSIZE) &&
            (st = get_int_list(c, n, "ksize", true, rank, 1, true, w->k)) != FL_OK) {
            return st;
        }
    }
    if ((flags & W_DILATIONS) &&
        (st = get_int_list(c, n, "dilations", false, rank, 1, true, w->d)) != FL_OK) {
        return st;
    }
    if ((flags & W_RATES) &&
        (st = get_int_list(c, n, "rates", true, rank, 1, true, w->d)) != FL_OK) {
        return st;
    }
    fl_str p;
    st = fl__attr_get_str(n, "padding", &p, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'padding' is required");
    }
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(p.p, "SAME") == 0) {
        w->padding = "SAME";
    } else if (strcmp(p.p, "VALID") == 0) {
        w->padding = "VALID";
    } else if ((flags & W_EXPLICIT) && strcmp(p.p, "EXPLICIT") == 0) {
        w->padding = "EXPLICIT";
        if ((st = get_int_list(c, n, "explicit_paddings", true, 2 * rank, 0, false, w->pad)) !=
            FL_OK) {
            return st;
        }
        for (int i = 0; i < 2 * rank; i++) {
            if (w->pad[i] < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'explicit_paddings' entries must be non-negative, got "
                                     "%lld",
                                     (long long)w->pad[i]);
            }
        }
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'padding' must be %s, got '%s'",
                             (flags & W_EXPLICIT) ? "SAME, VALID or EXPLICIT" : "SAME or VALID",
                             p.p);
    }
    return FL_OK;
}

/* Output size along data dim `idx` of a window of k taps (symbolic k: only
 * SAME padding, which ignores k, gives a size). */
static fl_status window_dim(fl_ctx *c, const fl_node *n, const window *w, int idx, fl_sym in,
                            fl_sym k, fl_sym *out) {
    int64_t kk;
    if (fl_sym_is_known(k)) {
        kk = k.k;
    } else if (strcmp(w->padding, "SAME") == 0) {
        kk = 1;
    } else {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    return fl__op_window_out(c, n, in, kk, w->s[idx], w->d[idx], w->padding, w->pad[2 * idx],
                             w->pad[2 * idx + 1], out);
}

/* Conv ops reject strides and dilations on the batch and channel dims. */
static fl_status check_conv_window(fl_ctx *c, const fl_node *n, const layout *l, const window *w,
                                   const char *dil_name) {
    int ci = lay_c(l);
    if (w->s[0] != 1 || w->s[ci] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'strides' must be 1 in the batch and channel dimensions");
    }
    if (w->d[0] != 1 || w->d[ci] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr '%s' must be 1 in the batch and channel dimensions", dil_name);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Fused ops (fused_ops / num_args)                                           */
/* ------------------------------------------------------------------------- */

/* Validates fused_ops (list of strings) and num_args against the inputs that
 * follow the `base` operands. */
static fl_status check_fused(fl_ctx *c, const fl_node *n, int base) {
    const fl_str *ops;
    size_t nops;
    fl_status st = fl__attr_get_strs(n, "fused_ops", &ops, &nops, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    int64_t num_args;
    if ((st = fl__attr_int_or(n, "num_args", 0, &num_args, c->d)) != FL_OK) {
        return st;
    }
    if (num_args < 0 || num_args > n->n_inputs - base) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_args' is %lld but the node has %d inputs after its %d "
                             "operands",
                             (long long)num_args, n->n_inputs - base, base);
    }
    return FL_OK;
}

/* FLOPs per output element of one fused_ops entry: what the unfused ops the
 * remapper replaced count (ew.c's rules). */
static int64_t fused_op_flops(const char *op) {
    static const struct {
        const char *op;
        int64_t per;
    } t[] = {
        {"Identity", 0},
        {"FusedBatchNorm", 2}, /* scale and shift */
        {"Prelu", 2},          /* multiply by alpha + select */
        {"_MklSwish", 2},      /* Sigmoid, Mul */
        {"Mish", 3},           /* Softplus, Tanh, Mul */
        {"_MklFusedMish", 3},
        {"_FusedHardSwish", 4}, /* Add 3, Relu6, Mul 1/6, Mul x */
        {"GeluExact", 5},       /* Mul 1/sqrt2, Erf, Add 1, Mul 1/2, Mul x */
        {"GeluApproximate", 9}, /* Square, Mul, Mul c, Add, Mul, Tanh, Add 1, Mul 1/2, Mul x */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(op, t[i].op) == 0) {
            return t[i].per;
        }
    }
    return 1; /* BiasAdd, Add, AddV2, Mul, Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, ... */
}

/* FLOPs of the fused_ops epilogue on an output of e elements. */
static fl_sym fused_extra(arith *k, const fl_node *n, fl_sym e) {
    const fl_str *ops;
    size_t nops;
    fl_status st = fl__attr_get_strs(n, "fused_ops", &ops, &nops, k->c->d);
    if (st == FL_ENOTFOUND) {
        return fl_sym_const(0);
    }
    if (st != FL_OK) {
        k->st = st;
        return fl_sym_unknown();
    }
    int64_t per = 0;
    for (size_t i = 0; i < nops; i++) {
        per += fused_op_flops(ops[i].p);
    }
    return a_scale(k, e, per);
}

/* ------------------------------------------------------------------------- */
/* Forward convolutions                                                       */
/* ------------------------------------------------------------------------- */

enum { CONV_DEPTHWISE = 1u << 0, CONV_FUSED = 1u << 1, CONV_3D = 1u << 2 };

/* _FusedConv3D's padding_list: a Pad the remapper fused, (lo, hi) per dim in
 * data-format order, applied to the input before the conv's own padding.
 * Absent or empty: no padding. */
static fl_status get_padding_list(fl_ctx *c, const fl_node *n, int rank, int64_t *pad) {
    const int64_t *v;
    size_t k;
    fl_status st = fl__attr_get_ints(n, "padding_list", &v, &k, c->d);
    if (st == FL_ENOTFOUND || (st == FL_OK && k == 0)) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (k != (size_t)(2 * rank)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'padding_list' must have %d entries, got %zu", 2 * rank, k);
    }
    for (int i = 0; i < 2 * rank; i++) {
        if (v[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'padding_list' entries must be non-negative, got %lld",
                                 (long long)v[i]);
        }
        pad[i] = v[i];
    }
    return FL_OK;
}

static fl_status infer_conv_impl(fl_ctx *c, fl_node *n, unsigned kind) {
    int ns = (kind & CONV_3D) ? 3 : 2;
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, ns, &l)) != FL_OK ||
        (st = get_window(c, n, l.rank, W_DILATIONS | (ns == 2 ? W_EXPLICIT : 0), &w)) != FL_OK ||
        (st = check_conv_window(c, n, &l, &w, "dilations")) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if ((kind & CONV_FUSED) && (st = check_fused(c, n, 2)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "input", l.rank)) != FL_OK ||
        (st = need_rank(c, n, 1, "filter", l.rank)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *f = fl__op_in_shape(n, 1);
    fl_sym in_c = fl__shape_dim(x, lay_c(&l));
    fl_sym f_in = fl__shape_dim(f, ns), f_out = fl__shape_dim(f, ns + 1);
    fl_sym dims[5], out_c;
    if (kind & CONV_DEPTHWISE) {
        fl_sym cin;
        if ((st = fl__op_merge_dim(c, n, in_c, f_in, "input depth and filter dim 2", &cin)) !=
                FL_OK ||
            (st = fl__op_mul(c, n, cin, f_out, &out_c)) != FL_OK) {
            return st;
        }
    } else {
        if (fl_sym_is_known(in_c) && fl_sym_is_known(f_in) &&
            (f_in.k <= 0 || in_c.k % f_in.k != 0)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input depth %lld is not a multiple of the filter's input depth "
                                 "%lld",
                                 (long long)in_c.k, (long long)f_in.k);
        }
        out_c = f_out;
    }
    int64_t pre[10] = {0};
    if ((kind & CONV_3D) && (kind & CONV_FUSED) &&
        (st = get_padding_list(c, n, l.rank, pre)) != FL_OK) {
        return st;
    }
    if ((st = fl__op_add(c, n, fl__shape_dim(x, 0), fl_sym_const(pre[0] + pre[1]), &dims[0])) !=
        FL_OK) {
        return st;
    }
    dims[lay_c(&l)] = out_c;
    for (int i = 0; i < ns; i++) {
        int idx = lay_sp(&l, i);
        fl_sym in = fl__shape_dim(x, idx);
        if ((st = fl__op_add(c, n, in, fl_sym_const(pre[2 * idx] + pre[2 * idx + 1]), &in)) !=
                FL_OK ||
            (st = window_dim(c, n, &w, idx, in, fl__shape_dim(f, i), &dims[idx])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, l.rank, dims);
}

static fl_status infer_conv2d(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, 0);
}
static fl_status infer_conv3d(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, CONV_3D);
}
static fl_status infer_depthwise(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, CONV_DEPTHWISE);
}
static fl_status infer_fused_conv2d(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, CONV_FUSED);
}
static fl_status infer_fused_depthwise(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, CONV_DEPTHWISE | CONV_FUSED);
}
static fl_status infer_fused_conv3d(fl_ctx *c, fl_node *n) {
    return infer_conv_impl(c, n, CONV_3D | CONV_FUSED);
}

static fl_status cost_conv_impl(fl_ctx *c, const fl_node *n, fl_cost *out, unsigned kind,
                                bool tfprof_rule) {
    arith k = {c, n, FL_OK};
    int ns = (kind & CONV_3D) ? 3 : 2;
    const fl_shape *f = fl__op_in_shape(n, 1);
    fl_sym e = a_numel(&k, out_shape(n, 0));
    /* Kh * Kw (* Kd), times Cin_f unless depthwise. */
    fl_sym taps = a_dims_prod(&k, f, 0, (kind & CONV_DEPTHWISE) ? ns : ns + 1);
    if (f->rank != ns + 2) {
        taps = fl_sym_unknown();
    }
    fl_sym macs = a_mul(&k, e, taps);
    fl_sym flops = a_scale(&k, macs, 2);
    if (kind & CONV_FUSED) {
        flops = a_add(&k, flops, fused_extra(&k, n, e));
    }
    fl_sym tf = tfprof_rule ? a_scale(&k, macs, 2) : fl_sym_const(0);
    return put_cost(&k, out, flops, tf, macs, tfprof_rule);
}

static fl_status cost_conv2d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, 0, true);
}
static fl_status cost_conv3d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, CONV_3D, true);
}
static fl_status cost_depthwise(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, CONV_DEPTHWISE, true);
}
static fl_status cost_fused_conv2d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, CONV_FUSED, false);
}
static fl_status cost_fused_depthwise(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, CONV_DEPTHWISE | CONV_FUSED, false);
}
static fl_status cost_fused_conv3d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_conv_impl(c, n, out, CONV_3D | CONV_FUSED, false);
}

/* ------------------------------------------------------------------------- */
/* Convolution backprops                                                      */
/* ------------------------------------------------------------------------- */

/* Reads a shape-vector input (input_sizes / filter_sizes / orig_input_shape)
 * into dims[4]. `two_ok`: a 2-element vector gives the spatial dims only.
 * Leaves dims untouched when the value is unknown. */
static fl_status sizes_input(fl_ctx *c, const fl_node *n, int i, const char *what, const layout *l,
                             bool two_ok, fl_sym *dims) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must be 1-D, got rank %d", i,
                             what, s->rank);
    }
    const fl_sym *v;
    int64_t cnt;
    fl_status st = fl__op_in_sym_vector(c, n, i, &v, &cnt);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    for (int64_t j = 0; j < cnt; j++) {
        if (fl_sym_is_known(v[j]) && v[j].k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') has a negative entry %lld", i,
                                 what, (long long)v[j].k);
        }
    }
    if (cnt == 4) {
        for (int j = 0; j < 4; j++) {
            dims[j] = v[j];
        }
    } else if (cnt == 2 && two_ok) {
        dims[lay_sp(l, 0)] = v[0];
        dims[lay_sp(l, 1)] = v[1];
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have %s elements, got %lld",
                             i, what, two_ok ? "4 or 2" : "4", (long long)cnt);
    }
    return FL_OK;
}

static fl_status infer_backprop_input(fl_ctx *c, fl_node *n, bool depthwise) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK ||
        (st = get_window(c, n, 4, W_DILATIONS | W_EXPLICIT, &w)) != FL_OK ||
        (st = check_conv_window(c, n, &l, &w, "dilations")) != FL_OK ||
        (st = attr_dtype(c, n, "T", 1, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 1, "filter", 4)) != FL_OK ||
        (st = need_rank(c, n, 2, "out_backprop", 4)) != FL_OK) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    dims[0] = fl__shape_dim(fl__op_in_shape(n, 2), 0);
    dims[lay_c(&l)] = fl__shape_dim(fl__op_in_shape(n, 1), 2);
    if ((st = sizes_input(c, n, 0, "input_sizes", &l, !depthwise, dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status infer_conv2d_bp_input(fl_ctx *c, fl_node *n) {
    return infer_backprop_input(c, n, false);
}
static fl_status infer_depthwise_bp_input(fl_ctx *c, fl_node *n) {
    return infer_backprop_input(c, n, true);
}

static fl_status infer_backprop_filter(fl_ctx *c, fl_node *n, bool depthwise) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK ||
        (st = get_window(c, n, 4, W_DILATIONS | W_EXPLICIT, &w)) != FL_OK ||
        (st = check_conv_window(c, n, &l, &w, "dilations")) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "input", 4)) != FL_OK ||
        (st = need_rank(c, n, 2, "out_backprop", 4)) != FL_OK) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    if (depthwise) {
        dims[2] = fl__shape_dim(fl__op_in_shape(n, 0), lay_c(&l));
    } else {
        dims[3] = fl__shape_dim(fl__op_in_shape(n, 2), lay_c(&l));
    }
    if ((st = sizes_input(c, n, 1, "filter_sizes", &l, false, dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status infer_conv2d_bp_filter(fl_ctx *c, fl_node *n) {
    return infer_backprop_filter(c, n, false);
}
static fl_status infer_depthwise_bp_filter(fl_ctx *c, fl_node *n) {
    return infer_backprop_filter(c, n, true);
}

/* strides[1] * strides[2] as tfprof reads them (unknown if unreadable). */
static fl_sym tfprof_stride_product(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "strides");
    if (!a || a->kind != FL_ATTR_LIST || a->list_kind != FL_ATTR_I || a->n < 3) {
        return fl_sym_unknown();
    }
    int64_t p;
    if (__builtin_mul_overflow(a->v.list.i[1], a->v.list.i[2], &p)) {
        return fl_sym_unknown();
    }
    return fl_sym_const(p);
}

/* filter: the filter's shape (input 1 for backprop input, the output for
 * backprop filter). */
static fl_status cost_backprop(fl_ctx *c, const fl_node *n, fl_cost *out, bool depthwise,
                               bool filter_is_output) {
    arith k = {c, n, FL_OK};
    const fl_shape *f = filter_is_output ? out_shape(n, 0) : fl__op_in_shape(n, 1);
    fl_sym taps = f->rank == 4 ? a_dims_prod(&k, f, 0, depthwise ? 2 : 3) : fl_sym_unknown();
    fl_sym macs = a_mul(&k, a_numel(&k, fl__op_in_shape(n, 2)), taps);
    fl_sym flops = a_scale(&k, macs, 2);
    fl_sym tf = fl_sym_const(0);
    bool rule = !depthwise;
    if (rule && is_nhwc(n)) {
        /* tfprof: 2 * E(image) * E(filter) / (image[-1] * s_h * s_w), truncated. */
        const fl_shape *img = filter_is_output ? fl__op_in_shape(n, 0) : out_shape(n, 0);
        fl_sym num = a_scale(&k, a_mul(&k, a_numel(&k, img), a_numel(&k, f)), 2);
        fl_sym den = a_mul(&k, fl__shape_dim(img, -1), tfprof_stride_product(n));
        tf = a_floordiv(&k, num, den);
    }
    return put_cost(&k, out, flops, tf, macs, rule);
}

static fl_status cost_conv2d_bp_input(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_backprop(c, n, out, false, false);
}
static fl_status cost_conv2d_bp_filter(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_backprop(c, n, out, false, true);
}
static fl_status cost_depthwise_bp_input(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_backprop(c, n, out, true, false);
}
static fl_status cost_depthwise_bp_filter(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_backprop(c, n, out, true, true);
}

/* ------------------------------------------------------------------------- */
/* Dilation2D                                                                 */
/* ------------------------------------------------------------------------- */

static fl_status infer_dilation2d(fl_ctx *c, fl_node *n) {
    layout l = {2, 4, true, true};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_window(c, n, 4, W_RATES, &w)) != FL_OK ||
        (st = check_conv_window(c, n, &l, &w, "rates")) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = need_rank(c, n, 0, "input", 4)) != FL_OK ||
        (st = need_rank(c, n, 1, "filter", 3)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *f = fl__op_in_shape(n, 1);
    fl_sym dims[4];
    dims[0] = fl__shape_dim(x, 0);
    if ((st = fl__op_merge_dim(c, n, fl__shape_dim(x, 3), fl__shape_dim(f, 2),
                               "input depth and filter depth", &dims[3])) != FL_OK) {
        return st;
    }
    for (int i = 0; i < 2; i++) {
        if ((st = window_dim(c, n, &w, 1 + i, fl__shape_dim(x, 1 + i), fl__shape_dim(f, i),
                             &dims[1 + i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status cost_dilation2d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    const fl_shape *f = fl__op_in_shape(n, 1);
    fl_sym taps = f->rank == 3 ? a_dims_prod(&k, f, 0, 2) : fl_sym_unknown();
    fl_sym flops = a_scale(&k, a_mul(&k, a_numel(&k, out_shape(n, 0)), taps), 2);
    return put_cost(&k, out, flops, flops, fl_sym_const(0), true);
}

/* ------------------------------------------------------------------------- */
/* Pooling                                                                    */
/* ------------------------------------------------------------------------- */

/* Output dims of a pool over x (rank l->rank) with window w. */
static fl_status pool_dims(fl_ctx *c, const fl_node *n, const layout *l, const window *w,
                           const fl_shape *x, fl_sym *dims) {
    for (int i = 0; i < l->rank; i++) {
        fl_sym in = fl__shape_dim(x, i);
        if (w->k[i] == 1 && w->s[i] == 1 && w->pad[2 * i] == 0 && w->pad[2 * i + 1] == 0) {
            dims[i] = in;
            continue;
        }
        fl_status st = fl__op_window_out(c, n, in, w->k[i], w->s[i], 1, w->padding, w->pad[2 * i],
                                         w->pad[2 * i + 1], &dims[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status check_pool_batch(fl_ctx *c, const fl_node *n, const window *w) {
    if (w->k[0] != 1 || w->s[0] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attrs 'ksize' and 'strides' must be 1 in the batch dimension");
    }
    return FL_OK;
}

static fl_status infer_pool_impl(fl_ctx *c, fl_node *n, int ns, bool explicit_ok) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, ns, &l)) != FL_OK ||
        (st = get_window(c, n, l.rank, W_KSIZE | (explicit_ok ? W_EXPLICIT : 0), &w)) != FL_OK ||
        (st = check_pool_batch(c, n, &w)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "input", l.rank)) != FL_OK) {
        return st;
    }
    fl_sym dims[5];
    if ((st = pool_dims(c, n, &l, &w, fl__op_in_shape(n, 0), dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, l.rank, dims);
}

static fl_status infer_max_pool(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 2, true);
}
static fl_status infer_avg_pool(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 2, false);
}
static fl_status infer_pool3d(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 3, false);
}

/* Reads a 4-element known int vector input (MaxPoolV2's ksize / strides);
 * *found false when the value is unknown. */
static fl_status pool_v2_input(fl_ctx *c, const fl_node *n, int i, const char *what, int64_t *out,
                               bool *found) {
    int64_t *v, cnt;
    fl_status st = fl__op_in_int_vector(c, n, i, &v, &cnt);
    *found = false;
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (cnt != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have 4 elements, got %lld",
                             i, what, (long long)cnt);
    }
    for (int j = 0; j < 4; j++) {
        if (v[j] <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d ('%s') entries must be positive, got %lld", i, what,
                                 (long long)v[j]);
        }
        out[j] = v[j];
    }
    *found = true;
    return FL_OK;
}

static fl_status infer_max_pool_v2(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    bool have_k, have_s;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK ||
        (st = get_window(c, n, 4, W_NO_STRIDES, &w)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = pool_v2_input(c, n, 1, "ksize", w.k, &have_k)) != FL_OK ||
        (st = pool_v2_input(c, n, 2, "strides", w.s, &have_s)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    if (!have_k || !have_s) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    if ((st = check_pool_batch(c, n, &w)) != FL_OK) {
        return st;
    }
    fl_sym dims[4];
    if ((st = pool_dims(c, n, &l, &w, fl__op_in_shape(n, 0), dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

/* prod(ksize) from the attr (or MaxPoolV2's input 1); unknown if unreadable. */
static fl_sym pool_window(arith *k, const fl_node *n, bool from_input) {
    if (from_input) {
        const fl_value *v = fl_op_in_value(n, 1);
        if (!v || !v->ints) {
            return fl_sym_unknown();
        }
        fl_sym acc = fl_sym_const(1);
        for (int64_t i = 0; i < v->n; i++) {
            acc = a_mul(k, acc, v->ints[i]);
        }
        return acc;
    }
    const int64_t *ks;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, "ksize", &ks, &cnt, k->c->d);
    if (st != FL_OK) {
        if (st != FL_ENOTFOUND) {
            k->st = st;
        }
        return fl_sym_unknown();
    }
    return a_int_prod(k, ks, cnt);
}

static fl_status cost_pool_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool tfprof_rule,
                                bool v2) {
    arith k = {c, n, FL_OK};
    fl_sym flops = a_mul(&k, pool_window(&k, n, v2), a_numel(&k, out_shape(n, 0)));
    fl_sym tf = (tfprof_rule && is_nhwc(n)) ? flops : fl_sym_const(0);
    return put_cost(&k, out, flops, tf, fl_sym_const(0), tfprof_rule);
}

static fl_status cost_pool_tfprof(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, true, false);
}
static fl_status cost_pool_plain(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, false, false);
}
static fl_status cost_max_pool_v2(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, false, true);
}

static fl_status infer_max_pool_grad(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK ||
        (st = get_window(c, n, 4, W_KSIZE | W_EXPLICIT, &w)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "orig_input", 4)) != FL_OK ||
        (st = need_rank(c, n, 1, "orig_output", 4)) != FL_OK ||
        (st = need_rank(c, n, 2, "grad", 4)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    return fl__op_set_output(c, n, 0, dt, 4, x->dims);
}

static fl_status infer_avg_pool_grad(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK ||
        (st = get_window(c, n, 4, W_KSIZE, &w)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 1, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 1, "grad", 4)) != FL_OK) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    dims[0] = fl__shape_dim(fl__op_in_shape(n, 1), 0);
    dims[lay_c(&l)] = fl__shape_dim(fl__op_in_shape(n, 1), lay_c(&l));
    if ((st = sizes_input(c, n, 0, "orig_input_shape", &l, false, dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status cost_max_pool_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, fl__op_in_shape(n, 1));
    fl_sym flops = a_mul(&k, a_add(&k, pool_window(&k, n, false), fl_sym_const(1)), e);
    fl_sym tf = is_nhwc(n) ? flops : fl_sym_const(0);
    return put_cost(&k, out, flops, tf, fl_sym_const(0), true);
}

static fl_status cost_avg_pool_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, fl__op_in_shape(n, 1));
    fl_sym flops = a_scale(&k, a_mul(&k, pool_window(&k, n, false), e), 2);
    fl_sym tf = is_nhwc(n) ? flops : fl_sym_const(0);
    return put_cost(&k, out, flops, tf, fl_sym_const(0), true);
}

/* ------------------------------------------------------------------------- */
/* MatMul, _FusedMatMul                                                       */
/* ------------------------------------------------------------------------- */

/* M, K (from a), K (from b), N of a 2-D matmul. */
static fl_status matmul_dims(fl_ctx *c, const fl_node *n, fl_sym *m, fl_sym *ka, fl_sym *kb,
                             fl_sym *nn) {
    bool ta, tb;
    fl_status st;
    if ((st = fl__attr_bool_or(n, "transpose_a", false, &ta, c->d)) != FL_OK ||
        (st = fl__attr_bool_or(n, "transpose_b", false, &tb, c->d)) != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    *m = fl__shape_dim(a, ta ? 1 : 0);
    *ka = fl__shape_dim(a, ta ? 0 : 1);
    *kb = fl__shape_dim(b, tb ? 1 : 0);
    *nn = fl__shape_dim(b, tb ? 0 : 1);
    return FL_OK;
}

static fl_status infer_matmul_impl(fl_ctx *c, fl_node *n, bool fused) {
    fl_status st;
    int dt = FL_DT_INVALID;
    fl_sym m, ka, kb, nn, kk;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = need_rank(c, n, 0, "a", 2)) != FL_OK || (st = need_rank(c, n, 1, "b", 2)) != FL_OK) {
        return st;
    }
    if (fused && (st = check_fused(c, n, 2)) != FL_OK) {
        return st;
    }
    if ((st = matmul_dims(c, n, &m, &ka, &kb, &nn)) != FL_OK ||
        (st = fl__op_merge_dim(c, n, ka, kb, "inner dimensions of 'a' and 'b'", &kk)) != FL_OK) {
        return st;
    }
    fl_sym dims[2] = {m, nn};
    return fl__op_set_output(c, n, 0, dt, 2, dims);
}

static fl_status infer_matmul(fl_ctx *c, fl_node *n) {
    return infer_matmul_impl(c, n, false);
}
static fl_status infer_fused_matmul(fl_ctx *c, fl_node *n) {
    return infer_matmul_impl(c, n, true);
}

static fl_status cost_matmul_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool fused) {
    arith k = {c, n, FL_OK};
    fl_sym m, ka, kb, nn;
    fl_status st = matmul_dims(c, n, &m, &ka, &kb, &nn);
    if (st != FL_OK) {
        return st;
    }
    fl_sym kk = fl_sym_is_unknown(ka) ? kb : ka;
    fl_sym e = a_numel(&k, out_shape(n, 0));
    fl_sym macs = a_mul(&k, e, kk);
    fl_sym flops = a_scale(&k, macs, 2);
    if (fused) {
        flops = a_add(&k, flops, fused_extra(&k, n, e));
    }
    return put_cost(&k, out, flops, fused ? fl_sym_const(0) : a_scale(&k, macs, 2), macs, !fused);
}

static fl_status cost_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_matmul_impl(c, n, out, false);
}
static fl_status cost_fused_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_matmul_impl(c, n, out, true);
}

/* QuantizedMatMul [a (T1), b (T2), min_a, max_a, min_b, max_b]: out [M, N]
 * of Toutput (default qint32) and the float scalars min_out, max_out, as
 * TensorFlow's shape function (the four ranges must be scalars). */
static fl_status infer_quantized_matmul(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt;
    fl_sym m, ka, kb, nn, kk;
    st = fl__attr_get_type(n, "Toutput", &dt, c->d);
    if (st == FL_ENOTFOUND) {
        dt = FL_DT_QINT32;
        st = FL_OK;
    }
    if (st != FL_OK || (st = need_rank(c, n, 0, "a", 2)) != FL_OK ||
        (st = need_rank(c, n, 1, "b", 2)) != FL_OK) {
        return st;
    }
    static const char *const names[4] = {"min_a", "max_a", "min_b", "max_b"};
    for (int i = 0; i < 4; i++) {
        if ((st = need_rank(c, n, 2 + i, names[i], 0)) != FL_OK) {
            return st;
        }
    }
    if ((st = matmul_dims(c, n, &m, &ka, &kb, &nn)) != FL_OK ||
        (st = fl__op_merge_dim(c, n, ka, kb, "inner dimensions of 'a' and 'b'", &kk)) != FL_OK) {
        return st;
    }
    fl_sym dims[2] = {m, nn};
    if ((st = fl__op_set_output(c, n, 0, dt, 2, dims)) != FL_OK ||
        (st = fl__op_set_output(c, n, 1, FL_DT_FLOAT, 0, NULL)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 2, FL_DT_FLOAT, 0, NULL);
}

/* QuantizedMatMul: MatMul's 2 * M * N * K (Grappler's count); no tfprof
 * rule. */
static fl_status cost_quantized_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_status st = cost_matmul_impl(c, n, out, false);
    out->tfprof_flops = fl_sym_const(0);
    out->tfprof_rule = false;
    return st;
}

/* ------------------------------------------------------------------------- */
/* BatchMatMul, V2, V3                                                        */
/* ------------------------------------------------------------------------- */

static fl_status bmm_adj(fl_ctx *c, const fl_node *n, bool *ax, bool *ay) {
    fl_status st;
    if ((st = fl__attr_bool_or(n, "adj_x", false, ax, c->d)) != FL_OK) {
        return st;
    }
    return fl__attr_bool_or(n, "adj_y", false, ay, c->d);
}

/* version: 1 (batch dims must match), 2 or 3 (batch dims broadcast). */
static fl_status infer_bmm_impl(fl_ctx *c, fl_node *n, int version) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool ax, ay;
    if ((st = (version == 3 ? attr_dtype(c, n, "Tout", 0, &dt) : attr_dtype(c, n, "T", 0, &dt))) !=
            FL_OK ||
        (st = bmm_adj(c, n, &ax, &ay)) != FL_OK ||
        (st = need_rank_at_least(c, n, 0, "x", 2)) != FL_OK ||
        (st = need_rank_at_least(c, n, 1, "y", 2)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *y = fl__op_in_shape(n, 1);
    fl_sym m = fl__shape_dim(x, ax ? -1 : -2), kx = fl__shape_dim(x, ax ? -2 : -1);
    fl_sym ky = fl__shape_dim(y, ay ? -1 : -2), nn = fl__shape_dim(y, ay ? -2 : -1), kk;
    if ((st = fl__op_merge_dim(c, n, kx, ky, "inner dimensions of 'x' and 'y'", &kk)) != FL_OK) {
        return st;
    }
    if (x->rank < 0 || y->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_shape bx = {x->rank - 2, x->dims}, by = {y->rank - 2, y->dims}, bo;
    if (version == 1) {
        if (x->rank != y->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "inputs 'x' and 'y' must have the same rank, got %d and %d",
                                 x->rank, y->rank);
        }
        fl_sym *bd = fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
        if (!bd) {
            return fl__diag_oom(c->d);
        }
        for (int i = 0; i < x->rank - 2; i++) {
            if ((st = fl__op_merge_dim(c, n, x->dims[i], y->dims[i], "batch dimensions", &bd[i])) !=
                FL_OK) {
                return st;
            }
        }
        bo.rank = x->rank - 2;
        bo.dims = bd;
    } else if ((st = fl__op_broadcast(c, n, &bx, &by, &bo)) != FL_OK) {
        return st;
    }
    fl_sym *dims = fl__arena_calloc(c->a, (size_t)bo.rank + 2, sizeof(fl_sym));
    if (!dims) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < bo.rank; i++) {
        dims[i] = bo.dims[i];
    }
    dims[bo.rank] = m;
    dims[bo.rank + 1] = nn;
    return fl__op_set_output(c, n, 0, dt, bo.rank + 2, dims);
}

static fl_status infer_bmm(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 1);
}
static fl_status infer_bmm_v2(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 2);
}
static fl_status infer_bmm_v3(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 3);
}

static fl_status cost_bmm_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool fused) {
    arith k = {c, n, FL_OK};
    bool ax, ay;
    fl_status st = bmm_adj(c, n, &ax, &ay);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *y = fl__op_in_shape(n, 1);
    fl_sym kx = fl__shape_dim(x, ax ? -2 : -1), ky = fl__shape_dim(y, ay ? -1 : -2);
    fl_sym kk = fl_sym_is_unknown(kx) ? ky : kx;
    fl_sym e = a_numel(&k, out_shape(n, 0));
    fl_sym macs = a_mul(&k, e, kk);
    /* tfprof reads attr transpose_a, which BatchMatMul ops lack: K = x[-1]. */
    fl_sym tf = a_scale(&k, a_mul(&k, e, fl__shape_dim(x, -1)), 2);
    fl_sym flops = a_scale(&k, macs, 2);
    if (fused) {
        flops = a_add(&k, flops, fused_extra(&k, n, e));
        tf = fl_sym_const(0);
    }
    return put_cost(&k, out, flops, tf, macs, !fused);
}

static fl_status cost_bmm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_bmm_impl(c, n, out, false);
}

/* _MklFusedBatchMatMulV2 (oneDNN): BatchMatMulV2 followed by fused_ops
 * ["Mul", "Add"] on num_args extra inputs (a one-element multiplicand, an
 * addend broadcast onto the product). */
static fl_status infer_fused_bmm(fl_ctx *c, fl_node *n) {
    fl_status st = check_fused(c, n, 2);
    return st != FL_OK ? st : infer_bmm_impl(c, n, 2);
}
static fl_status cost_fused_bmm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_bmm_impl(c, n, out, true);
}

/* ------------------------------------------------------------------------- */
/* Einsum                                                                     */
/* ------------------------------------------------------------------------- */

#define EIN_MAX 64 /* subscripts per operand */

typedef struct einsum_eq {
    int n_ops;
    int len[2];
    int lab[2][EIN_MAX]; /* label index 0..51 */
    int out_len;
    int out[EIN_MAX];
} einsum_eq;

static int ein_label(char ch) {
    if (ch >= 'a' && ch <= 'z') {
        return ch - 'a';
    }
    if (ch >= 'A' && ch <= 'Z') {
        return 26 + (ch - 'A');
    }
    return -1;
}

/* Parses "ab,bc->ac" (one or two operands, letters only, explicit output).
 * Returns false for anything else (ellipsis, more operands, no '->'). */
static bool einsum_parse(const char *eq, einsum_eq *e) {
    memset(e, 0, sizeof *e);
    const char *arrow = strstr(eq, "->");
    if (!arrow || strstr(arrow + 2, "->")) {
        return false;
    }
    int op = 0;
    for (const char *p = eq; p < arrow; p++) {
        if (*p == ' ') {
            continue;
        }
        if (*p == ',') {
            if (++op >= 2) {
                return false;
            }
            continue;
        }
        int l = ein_label(*p);
        if (l < 0 || e->len[op] >= EIN_MAX) {
            return false;
        }
        e->lab[op][e->len[op]++] = l;
    }
    e->n_ops = op + 1;
    for (const char *p = arrow + 2; *p; p++) {
        if (*p == ' ') {
            continue;
        }
        int l = ein_label(*p);
        if (l < 0 || e->out_len >= EIN_MAX) {
            return false;
        }
        e->out[e->out_len++] = l;
    }
    return true;
}

/* Size of every label (unknown where no operand gives it); fails on known
 * mismatches. `check`: also validate ranks and report errors. */
static fl_status einsum_sizes(fl_ctx *c, const fl_node *n, const einsum_eq *e, fl_sym *size,
                              bool *seen) {
    for (int i = 0; i < 52; i++) {
        size[i] = fl_sym_unknown();
        seen[i] = false;
    }
    for (int o = 0; o < e->n_ops; o++) {
        const fl_shape *s = fl__op_in_shape(n, o);
        if (s->rank >= 0 && s->rank != e->len[o]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d has rank %d but attr 'equation' gives it %d subscripts",
                                 o, s->rank, e->len[o]);
        }
        for (int j = 0; j < e->len[o]; j++) {
            int l = e->lab[o][j];
            fl_sym d = fl__shape_dim(s, j);
            if (!seen[l]) {
                seen[l] = true;
                size[l] = d;
                continue;
            }
            fl_status st =
                fl__op_merge_dim(c, n, size[l], d, "sizes of an einsum subscript", &size[l]);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    return FL_OK;
}

static fl_status einsum_get(fl_ctx *c, const fl_node *n, einsum_eq *e, bool *ok) {
    fl_str s;
    fl_status st = fl__attr_get_str(n, "equation", &s, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation' is required");
    }
    if (st != FL_OK) {
        return st;
    }
    *ok = strlen(s.p) == s.len && einsum_parse(s.p, e);
    if (*ok && e->n_ops != n->n_inputs) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'equation' has %d operands but the node has %d inputs", e->n_ops,
                             n->n_inputs);
    }
    return FL_OK;
}

static fl_status infer_einsum(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    einsum_eq e;
    bool ok;
    fl_status st;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = einsum_get(c, n, &e, &ok)) != FL_OK) {
        return st;
    }
    if (!ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym size[52];
    bool seen[52], in_out[52] = {false};
    if ((st = einsum_sizes(c, n, &e, size, seen)) != FL_OK) {
        return st;
    }
    fl_sym dims[EIN_MAX];
    for (int j = 0; j < e.out_len; j++) {
        int l = e.out[j];
        if (!seen[l] || in_out[l]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': output subscript %d %s", j,
                                 seen[l] ? "is repeated" : "appears in no input");
        }
        in_out[l] = true;
        dims[j] = size[l];
    }
    return fl__op_set_output(c, n, 0, dt, e.out_len, dims);
}

static fl_status cost_einsum(fl_ctx *c, const fl_node *n, fl_cost *out) {
    einsum_eq e;
    bool ok;
    fl_status st = einsum_get(c, n, &e, &ok);
    if (st != FL_OK) {
        return st;
    }
    if (!ok || e.n_ops != 2) {
        no_rule(out);
        return FL_OK;
    }
    fl_sym size[52];
    bool seen[52];
    if ((st = einsum_sizes(c, n, &e, size, seen)) != FL_OK) {
        return st;
    }
    arith k = {c, n, FL_OK};
    fl_sym macs = fl_sym_const(1);
    for (int l = 0; l < 52; l++) {
        if (seen[l]) {
            macs = a_mul(&k, macs, size[l]);
        }
    }
    return put_cost(&k, out, a_scale(&k, macs, 2), fl_sym_const(0), macs, false);
}

/* ------------------------------------------------------------------------- */
/* Batch normalisation                                                        */
/* ------------------------------------------------------------------------- */

/* FusedBatchNorm (v1: every output T), V2/V3/_FusedBatchNormEx (statistics
 * of type U); n_out 5 or 6 (the sixth, reserve_space_3, has unknown shape). */
static fl_status infer_fbn_impl(fl_ctx *c, fl_node *n, bool has_u, int n_out) {
    fl_status st;
    int dt, du;
    bool training;
    float eaf;
    const char *f;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = (has_u ? attr_dtype(c, n, "U", 1, &du) : attr_dtype(c, n, "T", 0, &du))) != FL_OK ||
        (st = fl__attr_bool_or(n, "is_training", true, &training, c->d)) != FL_OK ||
        (st = fl__attr_float_or(n, "exponential_avg_factor", 1.0f, &eaf, c->d)) != FL_OK ||
        (st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d)) != FL_OK) {
        return st;
    }
    int rank;
    bool cl;
    if (strcmp(f, "NHWC") == 0 || strcmp(f, "NCHW") == 0) {
        rank = 4;
        cl = f[1] == 'H';
    } else if (has_u && (strcmp(f, "NDHWC") == 0 || strcmp(f, "NCDHW") == 0)) {
        rank = 5;
        cl = f[1] == 'D';
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' has unsupported value '%s'",
                             f);
    }
    if ((st = need_rank(c, n, 0, "x", rank)) != FL_OK) {
        return st;
    }
    static const char *const names[5] = {"x", "scale", "offset", "mean", "variance"};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym ch = fl__shape_dim(x, cl ? rank - 1 : 1);
    for (int i = 1; i < 5; i++) {
        /* In training (with the default averaging factor 1) mean and variance
         * are unused and may be empty. */
        if (training && eaf == 1.0f && i >= 3) {
            continue;
        }
        if ((st = need_rank(c, n, i, names[i], 1)) != FL_OK ||
            (st = fl__op_merge_dim(c, n, ch, fl__shape_dim(fl__op_in_shape(n, i), 0),
                                   "channel dim of 'x' and length of a per-channel input", &ch)) !=
                FL_OK) {
            return st;
        }
    }
    fl_sym dims[5];
    for (int i = 0; i < rank; i++) {
        dims[i] = fl__shape_dim(x, i);
    }
    dims[cl ? rank - 1 : 1] = ch;
    st = fl__op_set_output(c, n, 0, dt, rank, dims);
    for (int p = 1; p < 5 && st == FL_OK; p++) {
        st = fl__op_set_output(c, n, p, du, 1, &ch);
    }
    /* reserve_space_3: TensorFlow's shape function leaves it unknown; the CPU
     * kernel (and the GPU kernel outside cuDNN training) allocates a scalar
     * of U, which is what is counted. cuDNN's training reserve space, sized
     * by the driver, is not modelled. Unknown, it would make every V3 node
     * incomplete (its bytes unknown). */
    if (st == FL_OK && n_out > 5) {
        st = fl__op_set_output(c, n, 5, du, 0, NULL);
    }
    return st;
}

static fl_status infer_fbn(fl_ctx *c, fl_node *n) {
    return infer_fbn_impl(c, n, false, 5);
}
static fl_status infer_fbn_v2(fl_ctx *c, fl_node *n) {
    return infer_fbn_impl(c, n, true, 5);
}
static fl_status infer_fbn_v3(fl_ctx *c, fl_node *n) {
    return infer_fbn_impl(c, n, true, 6);
}

static fl_status cost_fbn_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool ex) {
    arith k = {c, n, FL_OK};
    bool training;
    fl_status st = fl__attr_bool_or(n, "is_training", true, &training, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = a_numel(&k, out_shape(n, 0));
    fl_sym flops;
    if (training) {
        fl_sym ch = fl__shape_dim(out_shape(n, 1), 0);
        flops = a_add(&k, a_scale(&k, e, 4), a_scale(&k, ch, 11));
    } else {
        flops = a_scale(&k, e, 2);
    }
    if (ex) {
        int64_t side = 0;
        const char *act;
        if ((st = fl__attr_int_or(n, "num_side_inputs", 0, &side, c->d)) != FL_OK ||
            (st = fl__attr_str_or(n, "activation_mode", "Identity", &act, c->d)) != FL_OK) {
            return st;
        }
        int64_t extra = (side > 0 ? 1 : 0) + (strcmp(act, "Identity") != 0 ? 1 : 0);
        flops = a_add(&k, flops, a_scale(&k, e, extra));
    }
    return put_cost(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_fbn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_impl(c, n, out, false);
}
static fl_status cost_fbn_ex(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_impl(c, n, out, true);
}

/* FusedBatchNormGrad/V2/V3 [y_backprop, x, scale, reserve_space_1,
 * reserve_space_2 (, reserve_space_3)] and _FusedBatchNormGradEx [y_backprop,
 * x, scale, reserve_space_1, reserve_space_2, reserve_space_3, offset, y], as
 * TensorFlow's FusedBatchNormGrad(Ex)Shape: y_backprop and x merge (rank 4,
 * or 5 for V2/V3/Ex with a 3-D data_format), scale and the two reserve
 * spaces are [C]; outputs x_backprop (T), scale_backprop and offset_backprop
 * ([C], U), two [0] reserve outputs (U) and, for the Ex form,
 * side_input_backprop (x's shape, T; [0] when num_side_inputs is 0). */
static fl_status infer_fbn_grad_impl(fl_ctx *c, fl_node *n, bool has_u, bool ex) {
    fl_status st;
    int dt, du;
    const char *f;
    int64_t side = 0;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d)) != FL_OK ||
        (ex && (st = fl__attr_int_or(n, "num_side_inputs", 0, &side, c->d)) != FL_OK)) {
        return st;
    }
    if (has_u) {
        if ((st = attr_dtype(c, n, "U", 2, &du)) != FL_OK) {
            return st;
        }
    } else {
        du = dt;
    }
    int rank;
    bool cl;
    if (strcmp(f, "NHWC") == 0 || strcmp(f, "NCHW") == 0) {
        rank = 4;
        cl = f[1] == 'H';
    } else if (has_u && (strcmp(f, "NDHWC") == 0 || strcmp(f, "NCDHW") == 0)) {
        rank = 5;
        cl = f[1] == 'D';
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' has unsupported value '%s'",
                             f);
    }
    if (side < 0 || side > 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_side_inputs' must be 0 or 1, got %" PRId64, side);
    }
    if ((st = need_rank(c, n, 0, "y_backprop", rank)) != FL_OK ||
        (st = need_rank(c, n, 1, "x", rank)) != FL_OK) {
        return st;
    }
    const fl_shape *y = fl__op_in_shape(n, 0), *x = fl__op_in_shape(n, 1);
    fl_sym dims[5];
    for (int i = 0; i < rank && st == FL_OK; i++) {
        st = fl__op_merge_dim(c, n, fl__shape_dim(y, i), fl__shape_dim(x, i),
                              "dims of 'y_backprop' and 'x'", &dims[i]);
    }
    int cd = cl ? rank - 1 : 1;
    static const char *const names[5] = {"", "", "scale", "reserve_space_1", "reserve_space_2"};
    for (int i = 2; i < 5 && st == FL_OK; i++) {
        if ((st = need_rank(c, n, i, names[i], 1)) == FL_OK) {
            st =
                fl__op_merge_dim(c, n, dims[cd], fl__shape_dim(fl__op_in_shape(n, i), 0),
                                 "channel dim of 'x' and length of a per-channel input", &dims[cd]);
        }
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym zero = fl_sym_const(0);
    st = fl__op_set_output(c, n, 0, dt, rank, dims);
    for (int p = 1; p < 3 && st == FL_OK; p++) {
        st = fl__op_set_output(c, n, p, du, 1, &dims[cd]);
    }
    for (int p = 3; p < 5 && st == FL_OK; p++) {
        st = fl__op_set_output(c, n, p, du, 1, &zero);
    }
    if (st == FL_OK && ex) {
        st = side ? fl__op_set_output(c, n, 5, dt, rank, dims)
                  : fl__op_set_output(c, n, 5, dt, 1, &zero);
    }
    return st;
}

static fl_status infer_fbn_grad(fl_ctx *c, fl_node *n) {
    return infer_fbn_grad_impl(c, n, false, false);
}
static fl_status infer_fbn_grad_v2(fl_ctx *c, fl_node *n) {
    return infer_fbn_grad_impl(c, n, true, false);
}
static fl_status infer_fbn_grad_ex(fl_ctx *c, fl_node *n) {
    return infer_fbn_grad_impl(c, n, true, true);
}

/* Grappler's FusedBatchNormGrad: C * (11 * NHW + 5 + rsqrt 5) = 11 * E(x) +
 * 10 * C, for every version and mode; _FusedBatchNormGradEx adds the Relu
 * gradient it fuses, E(x) (the side-input gradient is that same tensor). No
 * tfprof rule. */
static fl_status cost_fbn_grad_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool ex) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, out_shape(n, 0));
    fl_sym ch = fl__shape_dim(out_shape(n, 1), 0);
    fl_sym flops = a_add(&k, a_scale(&k, e, ex ? 12 : 11), a_scale(&k, ch, 10));
    return put_cost(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_fbn_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_grad_impl(c, n, out, false);
}
static fl_status cost_fbn_grad_ex(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_grad_impl(c, n, out, true);
}

/* ------------------------------------------------------------------------- */
/* BiasAdd, BiasAddV1, BiasAddGrad                                            */
/* ------------------------------------------------------------------------- */

/* Channel position of BiasAdd's data_format; *nchw set for NCHW. */
static fl_status bias_format(fl_ctx *c, const fl_node *n, bool v1, bool *nchw) {
    *nchw = false;
    if (v1) {
        return FL_OK;
    }
    const char *f;
    fl_status st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(f, "NCHW") == 0) {
        *nchw = true;
    } else if (strcmp(f, "NHWC") != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'data_format' must be NHWC or NCHW, got '%s'", f);
    }
    return FL_OK;
}

static fl_status infer_bias_add_impl(fl_ctx *c, fl_node *n, bool v1) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool nchw;
    if ((st = bias_format(c, n, v1, &nchw)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = need_rank_at_least(c, n, 0, "value", nchw ? 3 : 2)) != FL_OK ||
        (st = need_rank(c, n, 1, "bias", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym *dims = fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
    if (!dims) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < x->rank; i++) {
        dims[i] = x->dims[i];
    }
    int ci = nchw ? 1 : x->rank - 1;
    if ((st = fl__op_merge_dim(c, n, dims[ci], fl__shape_dim(fl__op_in_shape(n, 1), 0),
                               "channel dim of 'value' and length of 'bias'", &dims[ci])) !=
        FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, dims);
}

static fl_status infer_bias_add(fl_ctx *c, fl_node *n) {
    return infer_bias_add_impl(c, n, false);
}
static fl_status infer_bias_add_v1(fl_ctx *c, fl_node *n) {
    return infer_bias_add_impl(c, n, true);
}

/* tfprof's E(in0) is read from the output, which has in0's shape with the
 * channel dim merged with the bias length. */
static fl_status cost_bias_add(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, out_shape(n, 0));
    return put_cost(&k, out, e, e, fl_sym_const(0), true);
}

static fl_status cost_bias_add_v1(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    return put_cost(&k, out, a_numel(&k, out_shape(n, 0)), fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status infer_bias_add_grad(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool nchw;
    if ((st = bias_format(c, n, false, &nchw)) != FL_OK ||
        (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = need_rank_at_least(c, n, 0, "out_backprop", nchw ? 3 : 2)) != FL_OK) {
        return st;
    }
    fl_sym ch = fl__shape_dim(fl__op_in_shape(n, 0), nchw ? 1 : -1);
    return fl__op_set_output(c, n, 0, dt, 1, &ch);
}

static fl_status cost_bias_add_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    fl_sym f = a_sub(&k, a_numel(&k, fl__op_in_shape(n, 0)), a_numel(&k, out_shape(n, 0)));
    return put_cost(&k, out, f, f, fl_sym_const(0), true);
}

/* ------------------------------------------------------------------------- */
/* Resizing, CropAndResize                                                    */
/* ------------------------------------------------------------------------- */

/* Reads a 2-element size input (new height, new width) into hw[2]; leaves hw
 * untouched when unknown. */
static fl_status size2_input(fl_ctx *c, const fl_node *n, int i, const char *what, fl_sym *hw) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must be 1-D, got rank %d", i,
                             what, s->rank);
    }
    if (s->rank == 1 && fl_sym_is_known(s->dims[0]) && s->dims[0].k != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have 2 elements, got %lld",
                             i, what, (long long)s->dims[0].k);
    }
    const fl_sym *v;
    int64_t cnt;
    fl_status st = fl__op_in_sym_vector(c, n, i, &v, &cnt);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (cnt != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have 2 elements, got %lld",
                             i, what, (long long)cnt);
    }
    for (int j = 0; j < 2; j++) {
        if (fl_sym_is_known(v[j]) && v[j].k <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d ('%s') entries must be positive, got %lld", i, what,
                                 (long long)v[j].k);
        }
        hw[j] = v[j];
    }
    return FL_OK;
}

/* float_out: ResizeBilinear and ResizeBicubic always produce float. */
static fl_status infer_resize_impl(fl_ctx *c, fl_node *n, bool float_out) {
    fl_status st;
    int dt = FL_DT_FLOAT;
    if ((!float_out && (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK) ||
        (st = need_rank(c, n, 0, "images", 4)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym dims[4] = {fl__shape_dim(x, 0), fl_sym_unknown(), fl_sym_unknown(), fl__shape_dim(x, 3)};
    if ((st = size2_input(c, n, 1, "size", &dims[1])) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status infer_resize_float(fl_ctx *c, fl_node *n) {
    return infer_resize_impl(c, n, true);
}
static fl_status infer_resize_nearest(fl_ctx *c, fl_node *n) {
    return infer_resize_impl(c, n, false);
}

static fl_status cost_per_out_elem(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    arith k = {c, n, FL_OK};
    fl_sym f = a_scale(&k, a_numel(&k, out_shape(n, 0)), per);
    return put_cost(&k, out, f, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_resize_bilinear(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out_elem(c, n, out, 9);
}
static fl_status cost_resize_bicubic(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out_elem(c, n, out, 35);
}
static fl_status infer_crop_and_resize(fl_ctx *c, fl_node *n) {
    fl_status st;
    const char *method;
    if ((st = fl__attr_str_or(n, "method", "bilinear", &method, c->d)) != FL_OK) {
        return st;
    }
    if (strcmp(method, "bilinear") != 0 && strcmp(method, "nearest") != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'method' must be 'bilinear' or 'nearest', got '%s'", method);
    }
    if ((st = need_rank(c, n, 0, "image", 4)) != FL_OK ||
        (st = need_rank(c, n, 1, "boxes", 2)) != FL_OK ||
        (st = need_rank(c, n, 2, "box_ind", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *img = fl__op_in_shape(n, 0), *boxes = fl__op_in_shape(n, 1);
    fl_sym four = fl__shape_dim(boxes, 1);
    if (fl_sym_is_known(four) && four.k != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 ('boxes') must have 4 columns, got %lld",
                             (long long)four.k);
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl__shape_dim(img, 3)};
    if ((st = fl__op_merge_dim(c, n, fl__shape_dim(boxes, 0),
                               fl__shape_dim(fl__op_in_shape(n, 2), 0),
                               "number of boxes in 'boxes' and 'box_ind'", &dims[0])) != FL_OK ||
        (st = size2_input(c, n, 3, "crop_size", &dims[1])) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, 4, dims);
}

static fl_status cost_crop_and_resize(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const char *method;
    fl_status st = fl__attr_str_or(n, "method", "bilinear", &method, c->d);
    if (st != FL_OK) {
        return st;
    }
    return cost_per_out_elem(c, n, out, strcmp(method, "nearest") == 0 ? 0 : 9);
}

/* ------------------------------------------------------------------------- */
/* LRN, Softmax, LogSoftmax, L2Loss                                           */
/* ------------------------------------------------------------------------- */

static fl_status infer_lrn(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    int64_t r;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__attr_int_or(n, "depth_radius", 5, &r, c->d)) != FL_OK ||
        (st = need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    if (r < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'depth_radius' must be non-negative, got %lld", (long long)r);
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    return fl__op_pass_through(c, n, 0, 0);
}

static fl_status cost_lrn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t r;
    fl_status st = fl__attr_int_or(n, "depth_radius", 5, &r, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (r < 0 || r > (INT64_MAX - 5) / 4) {
        no_rule(out);
        return FL_OK;
    }
    return cost_per_out_elem(c, n, out, 4 * r + 5);
}

static fl_status infer_softmax(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = need_rank_at_least(c, n, 0, "logits", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, dt, x->rank, x->dims);
}

static fl_status cost_softmax_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool tfprof) {
    arith k = {c, n, FL_OK};
    fl_sym f = a_scale(&k, a_numel(&k, fl__op_in_shape(n, 0)), 5);
    return put_cost(&k, out, f, tfprof ? f : fl_sym_const(0), fl_sym_const(0), tfprof);
}

static fl_status cost_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_softmax_impl(c, n, out, true);
}
static fl_status cost_log_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_softmax_impl(c, n, out, false);
}

static fl_status infer_l2_loss(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 0, NULL);
}

static fl_status cost_l2_loss(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, fl__op_in_shape(n, 0));
    fl_sym tf = a_sub(&k, a_scale(&k, e, 3), fl_sym_const(1));
    return put_cost(&k, out, a_scale(&k, e, 2), tf, fl_sym_const(0), true);
}

/* ------------------------------------------------------------------------- */
/* DepthToSpace, SpaceToDepth                                                 */
/* ------------------------------------------------------------------------- */

static fl_status infer_space_depth(fl_ctx *c, fl_node *n, bool to_space) {
    layout l = {0};
    fl_status st;
    int dt = FL_DT_INVALID;
    int64_t b;
    if ((st = get_layout(c, n, 2, &l)) != FL_OK || (st = attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__attr_need_int(n, "block_size", &b, c->d)) != FL_OK) {
        return st;
    }
    if (b < 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'block_size' must be at least 2, got %lld",
                             (long long)b);
    }
    if (b > 3037000499) { /* b * b must fit int64 */
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'block_size' is too large: %lld",
                             (long long)b);
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym dims[4];
    for (int i = 0; i < 4; i++) {
        dims[i] = fl__shape_dim(x, i);
    }
    int ci = lay_c(&l);
    /* DepthToSpace: channels / b^2 and spatial * b; SpaceToDepth the reverse. */
    int div_idx[2], ndiv, mul_idx[2], nmul;
    int64_t div_by, mul_by;
    if (to_space) {
        div_idx[0] = ci;
        ndiv = 1;
        div_by = b * b;
        mul_idx[0] = lay_sp(&l, 0);
        mul_idx[1] = lay_sp(&l, 1);
        nmul = 2;
        mul_by = b;
    } else {
        div_idx[0] = lay_sp(&l, 0);
        div_idx[1] = lay_sp(&l, 1);
        ndiv = 2;
        div_by = b;
        mul_idx[0] = ci;
        nmul = 1;
        mul_by = b * b;
    }
    for (int i = 0; i < ndiv; i++) {
        fl_sym d = dims[div_idx[i]];
        if (fl_sym_is_known(d) && d.k % div_by != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input dim %d (%lld) is not divisible by %lld (attr 'block_size' "
                                 "%lld)",
                                 div_idx[i], (long long)d.k, (long long)div_by, (long long)b);
        }
        bool exact;
        if (fl_sym_is_unknown(d)) {
            continue;
        }
        st = fl__sym_div(c->st, d, fl_sym_const(div_by), &dims[div_idx[i]], &exact);
        if (st != FL_OK) {
            return fl__node_fail(c->d, st, n, "division of input dim %d by %lld failed", div_idx[i],
                                 (long long)div_by);
        }
    }
    for (int i = 0; i < nmul; i++) {
        if ((st = fl__op_scale(c, n, dims[mul_idx[i]], mul_by, &dims[mul_idx[i]])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status infer_depth_to_space(fl_ctx *c, fl_node *n) {
    return infer_space_depth(c, n, true);
}
static fl_status infer_space_to_depth(fl_ctx *c, fl_node *n) {
    return infer_space_depth(c, n, false);
}

/* ------------------------------------------------------------------------- */
/* Other ops the remapper produces                                            */
/* ------------------------------------------------------------------------- */

/* _<Comparison>WithCast (Equal, NotEqual, Greater, GreaterEqual, Less,
 * LessEqual): the comparison of two broadcast operands of type T, cast back
 * to T. FLOPs: the comparison and the Cast, 1 each per output element. */
static fl_status infer_compare_cast(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_shape out;
    fl_status st = attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_broadcast(c, n, fl__op_in_shape(n, 0), fl__op_in_shape(n, 1), &out);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

/* Element-wise rules of these ops: `per` FLOPs per output element, no tfprof
 * rule (tfprof registers none of them). */
static fl_status cost_per_elem_no_tfprof(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    arith k = {c, n, FL_OK};
    fl_sym e = a_numel(&k, out_shape(n, 0));
    return put_cost(&k, out, a_scale(&k, e, per), fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_compare_cast(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 2);
}

/* _TensorToHashBucketFast: AsString + StringToHashBucketFast of an integer
 * tensor; output int64 of the input's shape. FLOPs: the conversion (counted
 * as Cast is) and the hash, 1 each per element. */
static fl_status infer_tensor_to_hash_bucket(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, FL_DT_INT64, x->rank, x->dims);
}
static fl_status cost_tensor_to_hash_bucket(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 2);
}

/* _MklFusedMish (oneDNN): x * Tanh(Softplus(x)); FLOPs 3 per element. */
static fl_status infer_mish(fl_ctx *c, fl_node *n) {
    return fl__op_pass_through(c, n, 0, 0);
}
static fl_status cost_mish(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 3);
}

/* _MklLayerNorm / _MklFusedInstanceNorm (oneDNN): output like x, dtype T. */
static fl_status infer_mkl_norm(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = attr_dtype(c, n, "T", 0, &dt);
    const fl_shape *x = fl__op_in_shape(n, 0);
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, x->rank, x->dims);
}

static fl_status cost_mkl_layer_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym e = a_numel(&k, x);
    fl_sym rows = x->rank >= 1 ? a_dims_prod(&k, x, 0, x->rank - 1) : fl_sym_unknown();
    fl_sym f = a_add(&k, a_scale(&k, e, 7), a_scale(&k, rows, 3));
    return put_cost(&k, out, f, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_mkl_instance_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes = NULL;
    size_t n_axes = 0;
    fl_status st = fl__attr_get_ints(n, "reduction_axes", &axes, &n_axes, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    fl_sym e = a_numel(&k, x), flops = fl_sym_unknown();
    if (st == FL_OK && x->rank >= 0 && x->rank <= 8) {
        fl_sym gd[8];
        for (int i = 0; i < x->rank; i++) {
            gd[i] = x->dims[i];
        }
        for (size_t i = 0; i < n_axes; i++) {
            int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
            if (a < 0 || a >= x->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n, "reduction axis %lld out of range",
                                     (long long)axes[i]);
            }
            gd[a] = fl_sym_const(1);
        }
        fl_shape gs = {x->rank, gd}, ms;
        if ((st = fl__op_broadcast(c, n, &gs, fl__op_in_shape(n, 1), &ms)) != FL_OK) {
            return st;
        }
        fl_sym g = a_numel(&k, &gs), m = a_numel(&k, &ms);
        flops = a_add(&k, a_add(&k, a_scale(&k, e, 6), a_scale(&k, g, 3)), a_scale(&k, m, 3));
        flops = a_add(&k, flops, fused_extra(&k, n, e));
    }
    return put_cost(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
}

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: the nn lists of ops.def)            */
/* ------------------------------------------------------------------------- */

#define HOOKS_conv2d             .infer = infer_conv2d, .cost = cost_conv2d
#define HOOKS_conv3d             .infer = infer_conv3d, .cost = cost_conv3d
#define HOOKS_depthwise          .infer = infer_depthwise, .cost = cost_depthwise
#define HOOKS_fused_conv2d       .infer = infer_fused_conv2d, .cost = cost_fused_conv2d
#define HOOKS_fused_depthwise    .infer = infer_fused_depthwise, .cost = cost_fused_depthwise
#define HOOKS_fused_conv3d       .infer = infer_fused_conv3d, .cost = cost_fused_conv3d
#define HOOKS_conv2d_bp_input    .infer = infer_conv2d_bp_input, .cost = cost_conv2d_bp_input
#define HOOKS_conv2d_bp_filter   .infer = infer_conv2d_bp_filter, .cost = cost_conv2d_bp_filter
#define HOOKS_depthwise_bp_input .infer = infer_depthwise_bp_input, .cost = cost_depthwise_bp_input
#define HOOKS_depthwise_bp_filter                                                                  \
    .infer = infer_depthwise_bp_filter, .cost = cost_depthwise_bp_filter
#define HOOKS_dilation2d        .infer = infer_dilation2d, .cost = cost_dilation2d
#define HOOKS_max_pool          .infer = infer_max_pool, .cost = cost_pool_tfprof
#define HOOKS_max_pool_v2       .infer = infer_max_pool_v2, .cost = cost_max_pool_v2
#define HOOKS_avg_pool          .infer = infer_avg_pool, .cost = cost_pool_tfprof
#define HOOKS_pool3d            .infer = infer_pool3d, .cost = cost_pool_plain
#define HOOKS_max_pool_grad     .infer = infer_max_pool_grad, .cost = cost_max_pool_grad
#define HOOKS_avg_pool_grad     .infer = infer_avg_pool_grad, .cost = cost_avg_pool_grad
#define HOOKS_matmul            .infer = infer_matmul, .cost = cost_matmul
#define HOOKS_quantized_matmul  .infer = infer_quantized_matmul, .cost = cost_quantized_matmul
#define HOOKS_fused_matmul      .infer = infer_fused_matmul, .cost = cost_fused_matmul
#define HOOKS_bmm               .infer = infer_bmm, .cost = cost_bmm
#define HOOKS_bmm_v2            .infer = infer_bmm_v2, .cost = cost_bmm
#define HOOKS_bmm_v3            .infer = infer_bmm_v3, .cost = cost_bmm
#define HOOKS_fused_bmm         .infer = infer_fused_bmm, .cost = cost_fused_bmm
#define HOOKS_einsum            .infer = infer_einsum, .cost = cost_einsum
#define HOOKS_fbn               .infer = infer_fbn, .cost = cost_fbn
#define HOOKS_fbn_v2            .infer = infer_fbn_v2, .cost = cost_fbn
#define HOOKS_fbn_v3            .infer = infer_fbn_v3, .cost = cost_fbn
#define HOOKS_fbn_ex            .infer = infer_fbn_v3, .cost = cost_fbn_ex
#define HOOKS_fbn_grad          .infer = infer_fbn_grad, .cost = cost_fbn_grad
#define HOOKS_fbn_grad_v2       .infer = infer_fbn_grad_v2, .cost = cost_fbn_grad
#define HOOKS_fbn_grad_ex       .infer = infer_fbn_grad_ex, .cost = cost_fbn_grad_ex
#define HOOKS_bias_add          .infer = infer_bias_add, .cost = cost_bias_add
#define HOOKS_bias_add_v1       .infer = infer_bias_add_v1, .cost = cost_bias_add_v1
#define HOOKS_bias_add_grad     .infer = infer_bias_add_grad, .cost = cost_bias_add_grad
#define HOOKS_resize_bilinear   .infer = infer_resize_float, .cost = cost_resize_bilinear
#define HOOKS_resize_nearest    .infer = infer_resize_nearest, .cost = fl__op_cost_zero
#define HOOKS_resize_bicubic    .infer = infer_resize_float, .cost = cost_resize_bicubic
#define HOOKS_crop_and_resize   .infer = infer_crop_and_resize, .cost = cost_crop_and_resize
#define HOOKS_depth_to_space    .infer = infer_depth_to_space, .cost = fl__op_cost_zero
#define HOOKS_space_to_depth    .infer = infer_space_to_depth, .cost = fl__op_cost_zero
#define HOOKS_softmax           .infer = infer_softmax, .cost = cost_softmax
#define HOOKS_log_softmax       .infer = infer_softmax, .cost = cost_log_softmax
#define HOOKS_l2_loss           .infer = infer_l2_loss, .cost = cost_l2_loss
#define HOOKS_lrn               .infer = infer_lrn, .cost = cost_lrn
#define HOOKS_mkl_layer_norm    .infer = infer_mkl_norm, .cost = cost_mkl_layer_norm
#define HOOKS_mkl_instance_norm .infer = infer_mkl_norm, .cost = cost_mkl_instance_norm
#define HOOKS_compare_cast      .infer = infer_compare_cast, .cost = cost_compare_cast
#define HOOKS_hash_bucket       .infer = infer_tensor_to_hash_bucket, .cost = cost_tensor_to_hash_bucket
#define HOOKS_mish              .infer = infer_mish, .cost = cost_mish

#define FL_OP FL_OP_DESC
#include "ops/nn/batchnorm.def"
#include "ops/nn/bias.def"
#include "ops/nn/conv.def"
#include "ops/nn/einsum.def"
#include "ops/nn/fused_ew.def"
#include "ops/nn/image.def"
#include "ops/nn/matmul.def"
#include "ops/nn/norm.def"
#include "ops/nn/pool.def"
#include "ops/nn/softmax.def"
#undef FL_OP
