/*
 * nn.c - ai.onnx neural-network ops beyond onnx.c: ConvTranspose, LRN,
 * InstanceNormalization, GroupNormalization, LpPool, MaxUnpool, Resize,
 * Upsample, GridSample, RoiAlign, RNN, GRU, LSTM, GlobalLpPool, MaxRoiPool,
 * DeformConv, and ImageScaler (experimental, opsets 1-9: y = scale * x +
 * bias[c] on NCHW).
 *
 * Shapes (NCHW, channels first, as ONNX defines them):
 *   ConvTranspose  [N, W.dim[1] * group, out...], out = attr output_shape
 *                  when given, else SAME_UPPER/SAME_LOWER in * stride, else
 *                  stride * (in - 1) + output_padding + (k - 1) * dilation
 *                  + 1 - pad_begin - pad_end
 *   LpPool         as MaxPool (onnx.c's window rules)
 *   MaxUnpool      input 2 (output_shape) when its value is known, else
 *                  (in - 1) * stride + k - pad_begin - pad_end
 *   Resize         sizes (input 3) when given, else floor(in * scale) per
 *                  axis (scales: input 2, or input 1 at opset 10); attr axes
 *                  (opset 18, negative from the back) limits both to those
 *                  axes; Upsample the same from its scales input (opset 9)
 *                  or attr (opset 7). A scale on a symbolic dim keeps it
 *                  symbolic only when the scale is a whole number; other
 *                  products are unknown. Attr keep_aspect_ratio_policy
 *                  (opset 18) with sizes: stretch (default) as above;
 *                  not_larger / not_smaller take one scale s, the min / max
 *                  over the axes of sizes[i] / in[axes[i]], and each of
 *                  those axes becomes round(s * in) (halves up); they all
 *                  become unknown when a size or one of their input dims is
 *                  not known. The policy does not apply to scales
 *   GridSample     [N, C, grid.dims[1:-1]...]
 *   RoiAlign       [num_rois, C, output_height, output_width]
 *   MaxRoiPool     [num_rois, C, pooled_shape[0], pooled_shape[1]]
 *   GlobalLpPool   as GlobalAveragePool ([N, C, 1, ...])
 *   DeformConv     as Conv from X and W; offset must be [N, offset_group *
 *                  prod(kernel) * n, out...] (n spatial dims) and mask [N,
 *                  offset_group * prod(kernel), out...]
 *   RNN/GRU/LSTM   Y [seq, dirs, batch, hidden] (layout 0) or [batch, seq,
 *                  dirs, hidden] (layout 1); Y_h (and LSTM's Y_c) [dirs,
 *                  batch, hidden] or [batch, dirs, hidden]
 *   DynamicQuantizeLSTM (com.microsoft, ONNX Runtime's quantize_dynamic of
 *                  an LSTM)  LSTM's inputs 0-7 and outputs, W [dirs, input,
 *                  4 * hidden] and R [dirs, hidden, 4 * hidden] int8/uint8
 *                  (transposed from LSTM's), then W_scale, W_zero_point,
 *                  R_scale, R_zero_point
 *   LRN, InstanceNormalization, GroupNormalization, ImageScaler keep their
 *                  input's shape; ImageScaler's attr bias has one value a
 *                  channel (dim 1)
 *
 * FLOP rules ("complete" convention, E(t) = element count; MACs only for
 * the conv/matmul family):
 *   ConvTranspose   MACs = E(X) * W.dim[1] * prod(kernel) (every input
 *                   element scattered through the kernel to M/group output
 *                   channels); FLOPs = 2 * MACs + E(out) with bias B
 *   RNN, GRU, LSTM  MACs = seq * batch * dirs * gates * hidden * (input +
 *                   hidden), gates 1 / 3 / 4; FLOPs = 2 * MACs + seq * batch
 *                   * dirs * hidden * e, e the element-wise work per hidden
 *                   unit and step: RNN 4 (two bias adds, the input and
 *                   recurrent sums' add, the activation), GRU 17 (z and r:
 *                   4 each; h~: r*H, three adds, tanh = 5; H = (1-z)*h~ +
 *                   z*H: 4), LSTM 21 (i, f, o, g: 4 each; C = f*C + i*g: 3;
 *                   H = o*tanh(C): 2); bias adds counted whether B is given
 *                   or not (absent B is zeros by definition); peepholes not
 *                   counted
 *   DynamicQuantizeLSTM  LSTM's element-wise work, with its two products
 *                   (X . W over all steps, and h . R at each step) counted
 *                   by DynamicQuantizeMatMul's rule, per direction: int_ops
 *                   2 * MACs (the integer multiply-accumulates, LSTM's MACs)
 *                   + 2 * (E(X) + seq * batch * hidden) (quantising X and h,
 *                   and their zero points) + input * 4h + seq * hidden * 4h
 *                   (W's zero point per product, R's at every step); FLOPs 4
 *                   * (E(X) + seq * batch * hidden) (DynamicQuantizeLinear of
 *                   X and h) + 2 * seq * batch * 4h (the accumulators times
 *                   the scales, each product) + 21 per h element (LSTM's);
 *                   no MACs
 *   LRN             (2 * size + 3) * E(X): size squares and adds for the
 *                   window sum, then bias + alpha/size * sum, the power and
 *                   the divide
 *   InstanceNormalization, GroupNormalization  8 * E(X): mean (add),
 *                   variance (sub, square, add), normalise (sub, divide),
 *                   scale and bias (mul, add); per-group sqrt/eps not counted
 *   ImageScaler     2 * E(X) (the scale's multiply, the bias add)
 *   LpPool          2 * prod(kernel) * E(out) (|x|^p and the add per tap)
 *   MaxUnpool       0 (data movement)
 *   Resize, Upsample, GridSample  per output element: nearest 0; linear
 *                   3 * (2^k - 1) (2^k - 1 one-dimensional lerps a + t(b - a)
 *                   over k interpolated axes; k = 2 gives TensorFlow's
 *                   ResizeBilinear 9); cubic 7 * (4^k - 1) / 3 (four taps:
 *                   4 multiplies, 3 adds per 1-D interpolation). Resize's k
 *                   counts the axes whose size changes; GridSample's k is
 *                   its spatial rank
 *   RoiAlign        10 * s * E(out), s = sampling_ratio^2 samples per bin
 *                   (sampling_ratio 0, adaptive, counts 2 x 2 = 4), each a
 *                   bilinear interpolation (9) and an add or max (1)
 *   GlobalLpPool    2 * E(X) (LpPool's rule, the window the whole map)
 *   MaxRoiPool      num_rois * C * H * W: each ROI's bins cover the ROI
 *                   once, so each ROI costs its area in compares per
 *                   channel; the areas are data, so the whole map (the
 *                   largest ROI) is counted: an upper bound
 *   DeformConv      MACs as Conv: E(out) * (C / group) * prod(kernel);
 *                   FLOPs = 2 * MACs + s * S (+ E(out) with bias B), S =
 *                   N * C * prod(out spatial) * prod(kernel) sampled input
 *                   values (every input channel read at every kernel tap
 *                   of every output position, as an im2col of the deformed
 *                   positions), each a linear interpolation over the n
 *                   spatial axes, 3 * (2^n - 1) (Resize's rule: 9 for 2-D),
 *                   + 1 multiply by the mask when given; the offset adds and
 *                   interpolation weights, shared by the channels of an
 *                   offset group, are not counted
 */
#include "ops/onnxops/util.h"

#include <math.h>
#include <string.h>

#define MAX_SP 8

/* ------------------------------------------------------------------------- */
/* ConvTranspose                                                              */
/* ------------------------------------------------------------------------- */

typedef struct ct_params {
    int ns;
    int64_t k[MAX_SP], s[MAX_SP], d[MAX_SP], op[MAX_SP], pads[2 * MAX_SP], group;
    const char *auto_pad;
} ct_params;

static fl_status ct_read(fl_ctx *c, const fl_node *n, const fl_shape *x, const fl_shape *w,
                         ct_params *p) {
    p->ns = x->rank >= 0 ? x->rank - 2 : (w->rank >= 0 ? w->rank - 2 : -1);
    if (p->ns < 1 || p->ns > MAX_SP) {
        return p->ns < 0 ? FL_ENOTFOUND
                         : fl__node_fail(c->d, FL_EINVAL, n, "input X has rank %d", x->rank);
    }
    fl_status st = fl__attr_int_or(n, "group", 1, &p->group, c->d);
    if (st == FL_OK && p->group < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'group' is %lld", (long long)p->group);
    }
    if (st == FL_OK) {
        st = fl__attr_str_or(n, "auto_pad", "NOTSET", &p->auto_pad, c->d);
    }
    const int64_t *ks;
    size_t nk;
    fl_status kst = fl__attr_get_ints(n, "kernel_shape", &ks, &nk, c->d);
    if (st == FL_OK && kst == FL_OK && (int)nk == p->ns) {
        memcpy(p->k, ks, nk * sizeof(int64_t));
    } else if (st == FL_OK && kst != FL_EINVAL && w->rank == p->ns + 2) {
        for (int i = 0; i < p->ns; i++) {
            p->k[i] = fl_sym_is_known(w->dims[i + 2]) ? w->dims[i + 2].k : -1;
        }
    } else if (st == FL_OK) {
        return kst == FL_EINVAL ? kst : FL_ENOTFOUND;
    }
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "strides", p->ns, 1, p->s);
    }
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "dilations", p->ns, 1, p->d);
    }
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "output_padding", p->ns, 0, p->op);
    }
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "pads", 2 * p->ns, 0, p->pads);
    }
    for (int i = 0; st == FL_OK && i < p->ns; i++) {
        if (p->s[i] < 1 || p->d[i] < 1 || p->op[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr strides/dilations/output_padding has a bad entry at %d", i);
        }
    }
    return st;
}

static fl_status ct_dim(fl_ctx *c, const fl_node *n, const ct_params *p, int i, fl_sym in,
                        fl_sym *out) {
    if (strcmp(p->auto_pad, "SAME_UPPER") == 0 || strcmp(p->auto_pad, "SAME_LOWER") == 0) {
        return fl__op_scale(c, n, in, p->s[i], out);
    }
    if (p->k[i] < 0) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    bool valid = strcmp(p->auto_pad, "VALID") == 0;
    /* add = output_padding + (k - 1) * dilation + 1 - pads - stride */
    fl_ck pads =
        valid ? fl_ck_of(0) : fl_ck_add(fl_ck_of(p->pads[i]), fl_ck_of(p->pads[p->ns + i]));
    fl_ck win = fl_ck_add(fl_ck_mul(fl_ck_of(p->k[i] - 1), fl_ck_of(p->d[i])), fl_ck_of(1));
    int64_t add;
    fl_status st = fl__op_ck(
        c, n, fl_ck_sub(fl_ck_sub(fl_ck_add(win, fl_ck_of(p->op[i])), pads), fl_ck_of(p->s[i])),
        &add,
        "spatial dim %d: output_padding %lld + (kernel %lld - 1) * dilation %lld + 1 - pads "
        "%lld - %lld - stride %lld",
        i, (long long)p->op[i], (long long)p->k[i], (long long)p->d[i],
        (long long)(valid ? 0 : p->pads[i]), (long long)(valid ? 0 : p->pads[p->ns + i]),
        (long long)p->s[i]);
    if (st != FL_OK) {
        return st;
    }
    fl_sym t;
    st = fl__op_scale(c, n, in, p->s[i], &t);
    if (st == FL_OK) {
        st = fl__op_add(c, n, t, fl_sym_const(add), out);
    }
    if (st == FL_OK && fl_sym_is_known(*out) && out->k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "output dim %d would be %lld", i,
                             (long long)out->k);
    }
    return st;
}

static fl_status infer_conv_transpose(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *w = &fl_node_in(n, 1)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    ct_params p;
    fl_status st = ct_read(c, n, x, w, &p);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym dims[MAX_SP + 2];
    dims[0] = x->rank >= 0 ? x->dims[0] : fl_sym_unknown();
    dims[1] = fl_sym_unknown();
    if (w->rank >= 2 && (st = fl__op_scale(c, n, w->dims[1], p.group, &dims[1])) != FL_OK) {
        return st;
    }
    const int64_t *os;
    size_t nos;
    fl_status ost = fl__attr_get_ints(n, "output_shape", &os, &nos, c->d);
    if (ost == FL_EINVAL) {
        return ost;
    }
    for (int i = 0; i < p.ns && st == FL_OK; i++) {
        if (ost == FL_OK && nos >= (size_t)p.ns) {
            dims[2 + i] = fl_sym_const(os[nos - (size_t)p.ns + (size_t)i]);
        } else if (x->rank >= 0) {
            st = ct_dim(c, n, &p, i, x->dims[2 + i], &dims[2 + i]);
        } else {
            dims[2 + i] = fl_sym_unknown();
        }
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, p.ns + 2, dims) : st;
}

static fl_status cost_conv_transpose(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape, *w = &fl_node_in(n, 1)->shape;
    fl_sym macs = fl_sym_unknown();
    if (w->rank >= 3) {
        macs = fl__ar_mul(&k, fl__ar_numel(&k, x), fl__ar_dims_prod(&k, w, 1, w->rank));
    }
    fl_sym f = fl__ar_scale(&k, macs, 2);
    if (!fl__ox_absent(n, 2)) {
        f = fl__ar_add(&k, f, fl__ar_numel(&k, &n->outputs[0].shape));
    }
    return fl__ar_put_cost(&k, out, f, macs);
}

/* ------------------------------------------------------------------------- */
/* Normalisations, pools                                                      */
/* ------------------------------------------------------------------------- */

static fl_status infer_lrn(fl_ctx *c, fl_node *n) {
    int64_t size;
    fl_status st = fl__attr_need_int(n, "size", &size, c->d);
    if (st == FL_OK && size < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'size' is %lld, must be >= 1",
                             (long long)size);
    }
    int64_t per_elem; /* cost_lrn's 2 * size + 3 FLOPs an element */
    if (st == FL_OK &&
        (st = fl__op_ck(c, n, fl_ck_add(fl_ck_mul(fl_ck_of(2), fl_ck_of(size)), fl_ck_of(3)),
                        &per_elem, "attr 'size' is %lld: 2 * size + 3", (long long)size)) !=
            FL_OK) {
        return st;
    }
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_lrn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t size = 1;
    fl_status st = fl__attr_int_or(n, "size", 1, &size, c->d);
    return st == FL_OK ? fl__ox_cost_per_in(c, n, out, 2 * size + 3) : st;
}

static fl_status infer_group_norm(fl_ctx *c, fl_node *n) {
    int64_t g;
    fl_status st = fl__attr_need_int(n, "num_groups", &g, c->d);
    if (st == FL_OK && g < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'num_groups' is %lld", (long long)g);
    }
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_norm8(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_in(c, n, out, 8);
}

static fl_status infer_lp_pool(fl_ctx *c, fl_node *n) {
    static const int idx[] = {0};
    return fl__ox_delegate(c, n, FL_OP_ONNX_MAX_POOL, idx, 1);
}

static fl_status cost_lp_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const int64_t *ks;
    size_t nk;
    fl_status st = fl__attr_need_ints(n, "kernel_shape", &ks, &nk, c->d);
    if (st != FL_OK) {
        return st;
    }
    int64_t taps = 1;
    for (size_t i = 0; i < nk; i++) {
        taps *= ks[i] > 0 && ks[i] < 1000000 ? ks[i] : 1;
    }
    return fl__ox_cost_per_out(c, n, out, 2 * taps);
}

/* 2 * E(X): LpPool's rule with the window the whole map. */
static fl_status cost_global_lp_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_in(c, n, out, 2);
}

static fl_status infer_max_unpool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    if (!fl__node_attr(n, "kernel_shape")) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "missing required attr 'kernel_shape' (list(int))");
    }
    if (!fl__ox_absent(n, 2)) {
        fl_sym d[256];
        int64_t *v, nv;
        fl_status st = fl__op_in_int_vector(c, n, 2, &v, &nv);
        if (st == FL_ENOTFOUND) {
            return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
        }
        if (st != FL_OK || nv > 256) {
            return st != FL_OK ? st : fl__node_fail(c->d, FL_EINVAL, n, "output_shape too long");
        }
        for (int64_t i = 0; i < nv; i++) {
            d[i] = fl_sym_const(v[i]);
        }
        return fl__op_set_output(c, n, 0, dt, (int)nv, d);
    }
    if (x->rank < 3 || x->rank > MAX_SP + 2) {
        return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
    }
    int ns = x->rank - 2;
    int64_t k[MAX_SP], s[MAX_SP], p[2 * MAX_SP];
    fl_status st = fl__ox_ints_attr(c, n, "kernel_shape", ns, -1, k);
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "strides", ns, 1, s);
    }
    if (st == FL_OK) {
        st = fl__ox_ints_attr(c, n, "pads", 2 * ns, 0, p);
    }
    fl_sym d[MAX_SP + 2] = {x->dims[0], x->dims[1]};
    for (int i = 0; i < ns && st == FL_OK; i++) {
        if (k[i] < 1 || s[i] < 1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' entry %d is %lld, want >= 1",
                                 k[i] < 1 ? "kernel_shape" : "strides", i,
                                 (long long)(k[i] < 1 ? k[i] : s[i]));
        }
        fl_sym t;
        st = fl__op_add(c, n, x->dims[2 + i], fl_sym_const(-1), &t);
        if (st == FL_OK) {
            st = fl__op_scale(c, n, t, s[i], &t);
        }
        if (st == FL_OK) {
            st = fl__op_add(c, n, t, fl_sym_const(k[i] - p[i] - p[ns + i]), &d[2 + i]);
        }
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->rank, d) : st;
}

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Resize, Upsample, GridSample, RoiAlign                                     */
/* ------------------------------------------------------------------------- */

/* in * scale: exact for known dims (floor), and for symbolic dims times a
 * whole number; else unknown. */
static fl_status scale_dim(fl_ctx *c, const fl_node *n, fl_sym in, double scale, fl_sym *out) {
    if (!(scale > 0) || scale > 1e9) {
        return fl__node_fail(c->d, FL_EINVAL, n, "scale %g is not positive", scale);
    }
    if (fl_sym_is_known(in)) {
        /* Converting a double of 2^63 or more to int64 is undefined. */
        double o = floor((double)in.k * scale + 1e-9 * scale);
        if (!(o < 0x1p63)) {
            return fl__node_fail(c->d, FL_EOVERFLOW, n,
                                 "dim %lld * scale %g overflows 64-bit integers", (long long)in.k,
                                 scale);
        }
        *out = fl_sym_const((int64_t)o);
        return FL_OK;
    }
    if (scale == floor(scale)) {
        return fl__op_scale(c, n, in, (int64_t)scale, out);
    }
    *out = fl_sym_unknown();
    return FL_OK;
}

/* Resize's attr keep_aspect_ratio_policy. */
enum { KEEP_STRETCH, KEEP_NOT_LARGER, KEEP_NOT_SMALLER };

static fl_status keep_policy(fl_ctx *c, const fl_node *n, int *policy) {
    /* In the order of the KEEP_* values. */
    static const char *const policies[] = {"stretch", "not_larger", "not_smaller", NULL};
    return fl__ox_attr_pick(c, n, "keep_aspect_ratio_policy", "stretch", policies, policy);
}

/* not_larger / not_smaller: the resized dims d[ax[i]] from the sizes v
 * and one scale for all of them, as the header states. */
static fl_status keep_aspect(fl_ctx *c, const fl_node *n, const fl_shape *x, const fl_value *v,
                             const int *ax, int cnt, int policy, fl_sym *d) {
    bool known = true, first = true;
    double scale = 0;
    for (int i = 0; i < cnt; i++) {
        fl_sym in = x->dims[ax[i]], size = fl__value_int(v, i);
        if (!fl_sym_is_known(in) || !fl_sym_is_known(size)) {
            known = false;
            continue;
        }
        if (in.k == 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'keep_aspect_ratio_policy' needs a nonzero size of X's "
                                 "dim %d",
                                 ax[i]);
        }
        double s = (double)size.k / (double)in.k;
        scale = first ? s : policy == KEEP_NOT_LARGER ? fmin(scale, s) : fmax(scale, s);
        first = false;
    }
    for (int i = 0; i < cnt; i++) {
        if (!known) {
            d[ax[i]] = fl_sym_unknown();
            continue;
        }
        double o = round(scale * (double)x->dims[ax[i]].k);
        if (!(o < 9.2e18)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'keep_aspect_ratio_policy' makes dim %d too large (%g)",
                                 ax[i], o);
        }
        d[ax[i]] = fl_sym_const((int64_t)o);
    }
    return FL_OK;
}

/* Resize/Upsample output from sizes (sizes_in, read as `policy` says) or
 * scales (scales_in, or the `scales` attr when scales_in < 0). */
static fl_status resize_shape(fl_ctx *c, fl_node *n, int scales_in, int sizes_in, int policy) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 0 || x->rank > 254) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    const int64_t *axes = NULL;
    size_t na = 0;
    fl_status st = fl__attr_get_ints(n, "axes", &axes, &na, c->d);
    if (st == FL_EINVAL) {
        return st;
    }
    int ax[256];
    if (st == FL_OK && na > (size_t)x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axes' has %zu entries for rank %d", na,
                             x->rank);
    }
    int cnt = st == FL_OK ? (int)na : x->rank;
    for (int i = 0; i < cnt; i++) {
        ax[i] = i;
        if (st == FL_OK && fl__ox_norm_axis(c, n, axes[i], x->rank, "attr 'axes'", &ax[i])) {
            return c->d->status;
        }
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    bool use_sizes = sizes_in >= 0 && !fl__ox_absent(n, sizes_in);
    const fl_value *v = use_sizes ? fl_op_in_value(n, sizes_in)
                        : scales_in >= 0 && !fl__ox_absent(n, scales_in)
                            ? fl_op_in_value(n, scales_in)
                            : NULL;
    const float *fs = NULL;
    size_t nfs = 0;
    if (!use_sizes && scales_in < 0) {
        const fl_attr *a = fl__node_attr(n, "scales");
        if (!a || a->kind != FL_ATTR_LIST || (a->n && a->list_kind != FL_ATTR_F)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'scales' (floats) is missing");
        }
        fs = a->v.list.f;
        nfs = a->n;
    }
    int64_t have = v ? v->n : (int64_t)nfs;
    if (!v && !fs) {
        return fl__op_set_output_rank(c, n, 0, dt, x->rank);
    }
    if (have != cnt) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%s has %lld entries for %d axes",
                             use_sizes ? "input 'sizes'" : "scales", (long long)have, cnt);
    }
    for (int i = 0; i < cnt; i++) {
        double e;
        if (use_sizes) {
            d[ax[i]] = fl__value_int(v, i);
            if (fl_sym_is_known(d[ax[i]]) && d[ax[i]].k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'sizes' has negative entry %lld",
                                     (long long)d[ax[i]].k);
            }
        } else if (v ? !fl__value_f64(v, i, &e) : (e = fs[i], false)) {
            d[ax[i]] = fl_sym_unknown();
        } else if ((st = scale_dim(c, n, x->dims[ax[i]], e, &d[ax[i]])) != FL_OK) {
            return st;
        }
    }
    if (use_sizes && policy != KEEP_STRETCH &&
        (st = keep_aspect(c, n, x, v, ax, cnt, policy, d)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, d);
}

/* Resize's and Upsample's attr mode, only checked (cost_resize reads it). */
static fl_status check_mode(fl_ctx *c, const fl_node *n) {
    static const char *const modes[] = {"nearest", "linear", "cubic", "bilinear", "bicubic", NULL};
    int mode;
    return fl__ox_attr_pick(c, n, "mode", "nearest", modes, &mode);
}

static fl_status infer_resize(fl_ctx *c, fl_node *n) {
    int policy = KEEP_STRETCH;
    fl_status st = check_mode(c, n);
    if (st == FL_OK) {
        st = keep_policy(c, n, &policy);
    }
    if (st != FL_OK) {
        return st;
    }
    if (n->n_inputs == 2 && c->g->producer <= 10) { /* opset 10: X, scales */
        return resize_shape(c, n, 1, -1, KEEP_STRETCH);
    }
    return resize_shape(c, n, 2, 3, policy);
}

/* Upsample-1 (experimental, before opset 7): a 4-D X [N, C, H, W] and the
 * required float attrs height_scale and width_scale: [N, C, floor(H *
 * height_scale), floor(W * width_scale)]. */
static fl_status infer_upsample1(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    static const char *const names[] = {"height_scale", "width_scale"};
    float sc[2];
    for (int i = 0; i < 2; i++) {
        fl_status st = fl__attr_get_float(n, names[i], &sc[i], c->d);
        if (st == FL_ENOTFOUND) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr '%s' (float) is missing (Upsample-1, opset %lld)", names[i],
                                 (long long)c->g->onnx.opset);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    if (x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 has rank %d, want 4 ([N, C, H, W], Upsample-1)", x->rank);
    }
    fl_sym d[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    for (int i = 0; i < 2; i++) {
        fl_status st = scale_dim(c, n, x->dims[2 + i], sc[i], &d[2 + i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, 4, d);
}

static fl_status infer_upsample(fl_ctx *c, fl_node *n) {
    fl_status st = check_mode(c, n);
    if (st == FL_OK && fl__ox_opset_before(c, 7)) {
        return infer_upsample1(c, n);
    }
    return st == FL_OK ? resize_shape(c, n, n->n_inputs > 1 ? 1 : -1, -1, KEEP_STRETCH) : st;
}

/* Per-output-element FLOPs of interpolating over k axes. */
static int64_t interp_cost(const char *mode, int k) {
    int64_t p2 = (int64_t)1 << (k > 20 ? 20 : k), p4 = p2 * p2;
    if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear")) {
        return 3 * (p2 - 1);
    }
    if (!strcmp(mode, "cubic") || !strcmp(mode, "bicubic")) {
        return 7 * (p4 - 1) / 3;
    }
    return 0;
}

static fl_status cost_resize(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const char *mode = "nearest";
    const char *dflt = n->kind == FL_OP_ONNX_GRID_SAMPLE ? "bilinear" : "nearest";
    fl_status st = fl__attr_str_or(n, "mode", dflt, &mode, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = &fl_node_in(n, 0)->shape, *y = &n->outputs[0].shape;
    int k = 0;
    if (n->kind == FL_OP_ONNX_GRID_SAMPLE) {
        k = x->rank > 2 ? x->rank - 2 : 0;
    } else {
        for (int i = 0; i < x->rank && i < y->rank; i++) {
            k += !fl__sym_eq(x->dims[i], y->dims[i]);
        }
    }
    return fl__ox_cost_per_out(c, n, out, interp_cost(mode, k));
}

static fl_status infer_grid_sample(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *g = &fl_node_in(n, 1)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    if (g->rank < 3 || x->rank < 0 || g->rank > 254) {
        return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
    }
    if (g->rank != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "grid has rank %d, X rank %d", g->rank, x->rank);
    }
    fl_sym d[256] = {x->dims[0], x->dims[1]};
    for (int i = 1; i < g->rank - 1; i++) {
        d[i + 1] = g->dims[i];
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, d);
}

static fl_status infer_roi_align(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *r = &fl_node_in(n, 1)->shape;
    int64_t oh, ow;
    fl_status st = fl__attr_int_or(n, "output_height", 1, &oh, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "output_width", 1, &ow, c->d);
    }
    if (st == FL_OK && (oh < 1 || ow < 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr output_height/output_width must be >= 1");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym d[4] = {r->rank == 2 ? r->dims[0] : fl_sym_unknown(),
                   x->rank == 4 ? x->dims[1] : fl_sym_unknown(), fl_sym_const(oh),
                   fl_sym_const(ow)};
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4, d);
}

static fl_status cost_roi_align(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t s;
    fl_status st = fl__attr_int_or(n, "sampling_ratio", 0, &s, c->d);
    s = s > 0 && s < 1000 ? s : 2;
    return st == FL_OK ? fl__ox_cost_per_out(c, n, out, 10 * s * s) : st;
}

static fl_status infer_global_lp_pool(fl_ctx *c, fl_node *n) {
    static const int idx[] = {0};
    int64_t p = 2;
    fl_status st = FL_OK;
    if (fl__ox_opset_before(c, 2)) { /* GlobalLpPool-1: a float p, default 2.0 */
        float pf;
        if ((st = fl__attr_float_or(n, "p", 2.0f, &pf, c->d)) == FL_OK && !(pf > 0)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'p' is %g, must be positive",
                                 (double)pf);
        }
    } else {
        st = fl__attr_int_or(n, "p", 2, &p, c->d);
    }
    if (st == FL_OK && p < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'p' is %lld, must be >= 1", (long long)p);
    }
    return st == FL_OK ? fl__ox_delegate(c, n, FL_OP_ONNX_GLOBAL_AVERAGE_POOL, idx, 1) : st;
}

/* MaxRoiPool(X [N, C, H, W], rois [num_rois, 5]) -> [num_rois, C, ph, pw],
 * pooled_shape = [ph, pw] (required). */
static fl_status infer_max_roi_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *r = &fl_node_in(n, 1)->shape;
    const int64_t *ps;
    size_t np;
    fl_status st = fl__attr_need_ints(n, "pooled_shape", &ps, &np, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (np != 2 || ps[0] < 1 || ps[1] < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'pooled_shape' must be 2 positive entries (%zu given)", np);
    }
    if (x->rank >= 0 && x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 4", x->rank);
    }
    if (r->rank >= 0 && (r->rank != 2 || (fl_sym_is_known(r->dims[1]) && r->dims[1].k != 5))) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (rois) must be [num_rois, 5]");
    }
    fl_sym d[4] = {r->rank == 2 ? r->dims[0] : fl_sym_unknown(),
                   x->rank == 4 ? x->dims[1] : fl_sym_unknown(), fl_sym_const(ps[0]),
                   fl_sym_const(ps[1])};
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4, d);
}

/* num_rois * C * H * W: every element of the map compared once per ROI (an
 * ROI is at most the map; the real count is the ROIs' areas, data). */
static fl_status cost_max_roi_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape, *y = &n->outputs[0].shape;
    fl_sym f =
        y->rank == 4 ? fl__ar_mul(&k, y->dims[0], fl__ar_dims_prod(&k, x, 1, 4)) : fl_sym_unknown();
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* DeformConv                                                                 */
/* ------------------------------------------------------------------------- */

/* Input i (offset or mask) must be [N, ch, out spatial...] of output y; ch
 * < 0 when the kernel is unknown. */
static fl_status deform_check(fl_ctx *c, const fl_node *n, int i, const char *what,
                              const fl_shape *y, int64_t ch) {
    const fl_shape *s = &fl_node_in(n, i)->shape;
    if (s->rank < 0 || y->rank < 0) {
        return FL_OK;
    }
    if (s->rank != y->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i, what,
                             s->rank, y->rank);
    }
    for (int d = 0; d < s->rank; d++) {
        fl_sym want = d != 1 ? y->dims[d] : ch >= 0 ? fl_sym_const(ch) : fl_sym_unknown();
        if (fl_sym_is_known(s->dims[d]) && fl_sym_is_known(want) && s->dims[d].k != want.k) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) dim %d is %lld, want %lld", i,
                                 what, d, (long long)s->dims[d].k, (long long)want.k);
        }
    }
    return FL_OK;
}

/* DeformConv(X, W, offset, B?, mask?): Conv's output from X and W; offset
 * [N, offset_group * prod(k) * n, out...] (n spatial dims), mask [N,
 * offset_group * prod(k), out...] (as ONNX's reference reads it) checked
 * where known. */
static fl_status infer_deform_conv(fl_ctx *c, fl_node *n) {
    static const int idx[] = {0, 1};
    fl_status st = fl__ox_delegate(c, n, FL_OP_ONNX_CONV, idx, 2);
    int64_t og;
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "offset_group", 1, &og, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = &fl_node_in(n, 0)->shape, *w = &fl_node_in(n, 1)->shape;
    if (og < 1 || (x->rank >= 2 && fl_sym_is_known(x->dims[1]) && x->dims[1].k % og != 0)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'offset_group' %lld does not divide input 0's channels",
                             (long long)og);
    }
    const fl_shape *y = &n->outputs[0].shape;
    int64_t taps = w->rank == y->rank ? 1 : -1;
    for (int i = 2; i < w->rank && taps > 0; i++) {
        taps = fl_sym_is_known(w->dims[i]) && w->dims[i].k < 1000000 ? taps * w->dims[i].k : -1;
    }
    if (taps > 1000000) {
        taps = -1;
    }
    int ns = y->rank - 2;
    int64_t mask_c = -1, off_c = -1;
    if (taps > 0) {
        fl_ck m = fl_ck_mul(fl_ck_of(og), fl_ck_of(taps));
        fl_ck o = fl_ck_mul(m, fl_ck_of(ns));
        if (m.ovf || o.ovf) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'offset_group' %lld is out of range",
                                 (long long)og);
        }
        mask_c = m.v;
        off_c = o.v;
    }
    st = deform_check(c, n, 2, "offset", y, off_c);
    if (st == FL_OK && !fl__ox_absent(n, 4)) {
        st = deform_check(c, n, 4, "mask", y, mask_c);
    }
    return st;
}

static fl_status cost_deform_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape, *w = &fl_node_in(n, 1)->shape;
    const fl_shape *y = &n->outputs[0].shape;
    fl_sym e = fl__ar_numel(&k, y);
    fl_sym macs = fl__ar_mul(&k, e, fl__ar_dims_prod(&k, w, 1, w->rank));
    fl_sym samples = fl_sym_unknown();
    if (y->rank >= 3 && x->rank == y->rank && w->rank == y->rank) {
        samples = fl__ar_mul(&k, fl__ar_mul(&k, y->dims[0], x->dims[1]),
                             fl__ar_mul(&k, fl__ar_dims_prod(&k, y, 2, y->rank),
                                        fl__ar_dims_prod(&k, w, 2, w->rank)));
    }
    int ns = y->rank >= 3 && y->rank <= MAX_SP + 2 ? y->rank - 2 : 2;
    int64_t per = 3 * ((1 << ns) - 1) + !fl__ox_absent(n, 4);
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, samples, per));
    if (!fl__ox_absent(n, 3)) {
        f = fl__ar_add(&k, f, e);
    }
    return fl__ar_put_cost(&k, out, f, macs);
}

/* ------------------------------------------------------------------------- */
/* RNN, GRU, LSTM                                                             */
/* ------------------------------------------------------------------------- */

typedef struct rnn_dims {
    fl_sym seq, batch, input, hidden;
    int64_t dirs, gates, layout;
} rnn_dims;

static int gates_of(int kind) {
    return kind == FL_OP_ONNX_LSTM || kind == FL_OP_ONNX_MS_DQ_LSTM ? 4
           : kind == FL_OP_ONNX_GRU                                 ? 3
                                                                    : 1;
}

static fl_status rnn_read(fl_ctx *c, const fl_node *n, rnn_dims *r) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *rr = &fl_node_in(n, 2)->shape;
    static const char *const dirs[] = {"forward", "reverse", "bidirectional", NULL};
    int dir;
    int64_t hs;
    fl_status st = fl__ox_attr_pick(c, n, "direction", "forward", dirs, &dir);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "layout", 0, &r->layout, c->d);
    }
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "hidden_size", -1, &hs, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    if (r->layout != 0 && r->layout != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'layout' is %lld", (long long)r->layout);
    }
    r->dirs = dir == 2 ? 2 : 1; /* bidirectional */
    r->gates = gates_of(n->kind);
    bool x3 = x->rank == 3;
    r->seq = x3 ? x->dims[r->layout ? 1 : 0] : fl_sym_unknown();
    r->batch = x3 ? x->dims[r->layout ? 0 : 1] : fl_sym_unknown();
    r->input = x3 ? x->dims[2] : fl_sym_unknown();
    /* R: [dirs, gates * hidden, hidden]; DynamicQuantizeLSTM's [dirs,
     * hidden, 4 * hidden] */
    int hd = n->kind == FL_OP_ONNX_MS_DQ_LSTM ? 1 : 2;
    r->hidden = hs > 0 ? fl_sym_const(hs) : rr->rank == 3 ? rr->dims[hd] : fl_sym_unknown();
    return FL_OK;
}

static fl_status infer_rnn(fl_ctx *c, fl_node *n) {
    rnn_dims r;
    fl_status st = rnn_read(c, n, &r);
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    fl_sym dir = fl_sym_const(r.dirs);
    fl_sym y0[4] = {r.seq, dir, r.batch, r.hidden}, y1[4] = {r.batch, r.seq, dir, r.hidden};
    fl_sym h0[3] = {dir, r.batch, r.hidden}, h1[3] = {r.batch, dir, r.hidden};
    st = fl__ox_set_out(c, n, 0, dt, 4, r.layout ? y1 : y0);
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, dt, 3, r.layout ? h1 : h0);
    }
    return st;
}

/* DynamicQuantizeLSTM (rule in the header): steps = seq * batch * dirs *
 * hidden (the h elements), macs the two products' multiply-accumulates. */
static fl_status cost_dq_lstm(fl_arith *k, fl_cost *out, const rnn_dims *r, fl_sym steps,
                              fl_sym macs) {
    fl_sym xs = fl__ar_scale(k, fl__ar_mul(k, fl__ar_mul(k, r->seq, r->batch), r->input), r->dirs);
    fl_sym h4 = fl__ar_scale(k, r->hidden, 4);
    fl_sym w = fl__ar_add(k, fl__ar_mul(k, r->input, h4),
                          fl__ar_mul(k, r->seq, fl__ar_mul(k, r->hidden, h4)));
    fl_sym iops = fl__ar_add(
        k, fl__ar_scale(k, macs, 2),
        fl__ar_add(k, fl__ar_scale(k, fl__ar_add(k, xs, steps), 2), fl__ar_scale(k, w, r->dirs)));
    fl_sym flops = fl__ar_add(k, fl__ar_scale(k, fl__ar_add(k, xs, steps), 4),
                              fl__ar_scale(k, steps, 2 * 4 + 21));
    return fl__ar_put_int_cost(k, out, flops, fl_sym_const(0), iops);
}

static fl_status cost_rnn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    rnn_dims r;
    fl_status st = rnn_read(c, n, &r);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym steps =
        fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_mul(&k, r.seq, r.batch), r.hidden), r.dirs);
    fl_sym macs =
        fl__ar_mul(&k, fl__ar_scale(&k, steps, r.gates), fl__ar_add(&k, r.input, r.hidden));
    int64_t e = n->kind == FL_OP_ONNX_GRU ? 17 : r.gates == 4 ? 21 : 4;
    if (n->kind == FL_OP_ONNX_MS_DQ_LSTM) {
        return cost_dq_lstm(&k, out, &r, steps, macs);
    }
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, steps, e));
    return fl__ar_put_cost(&k, out, f, macs);
}

/* DynamicQuantizeLSTM: LSTM's outputs; W and R must have LSTM's dims in
 * the transposed order. */
static fl_status infer_dq_lstm(fl_ctx *c, fl_node *n) {
    rnn_dims r;
    fl_status st = rnn_read(c, n, &r);
    if (st != FL_OK) {
        return st;
    }
    fl_sym h4 = fl_sym_unknown();
    if (fl_sym_is_known(r.hidden) && (st = fl__op_scale(c, n, r.hidden, 4, &h4)) != FL_OK) {
        return st;
    }
    fl_sym want[2][3] = {{fl_sym_const(r.dirs), r.input, h4}, {fl_sym_const(r.dirs), r.hidden, h4}};
    static const char *const what[2] = {"input 1 (W) [dirs, input, 4 * hidden]",
                                        "input 2 (R) [dirs, hidden, 4 * hidden]"};
    for (int i = 0; i < 2; i++) {
        const fl_shape *w = fl__op_in_shape(n, i + 1);
        if (w->rank >= 0 && w->rank != 3) {
            return fl__node_fail(c->d, FL_EINVAL, n, "%s has rank %d", what[i], w->rank);
        }
        for (int j = 0; j < 3 && w->rank == 3; j++) {
            fl_sym m;
            if ((st = fl__op_merge_dim(c, n, w->dims[j], want[i][j], what[i], &m)) != FL_OK) {
                return st;
            }
        }
    }
    return infer_rnn(c, n);
}

/* Hook sets and descriptors (their rows: onnxops/nn.def) */

/* ImageScaler: X's shape; attr bias (required by the schema) one value a
 * channel. */
static fl_status infer_image_scaler(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_attr *a = fl__node_attr(n, "bias");
    if (!a || a->kind != FL_ATTR_LIST || (a->n && a->list_kind != FL_ATTR_F)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'bias' (floats, one a channel) is missing");
    }
    size_t nb = a->n;
    if (x->rank >= 0 && x->rank < 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 has rank %d, want (N, C, ...)", x->rank);
    }
    fl_sym ch = x->rank >= 2 ? x->dims[1] : fl_sym_unknown();
    if (fl_sym_is_known(ch) && (int64_t)nb != ch.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'bias' has %zu values, input 0 has %lld channels (dim 1)", nb,
                             (long long)ch.k);
    }
    return fl__ox_infer_same(c, n);
}

static fl_status cost_image_scaler(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 2);
}

#define HOOKS_image_scaler   .infer = infer_image_scaler, .cost = cost_image_scaler
#define HOOKS_conv_transpose .infer = infer_conv_transpose, .cost = cost_conv_transpose
#define HOOKS_lrn            .infer = infer_lrn, .cost = cost_lrn
#define HOOKS_instance_norm  .infer = fl__ox_infer_same, .cost = cost_norm8
#define HOOKS_group_norm     .infer = infer_group_norm, .cost = cost_norm8
#define HOOKS_lp_pool        .infer = infer_lp_pool, .cost = cost_lp_pool
#define HOOKS_max_unpool     .infer = infer_max_unpool, .cost = cost_zero
#define HOOKS_resize         .infer = infer_resize, .cost = cost_resize
#define HOOKS_upsample       .infer = infer_upsample, .cost = cost_resize
#define HOOKS_grid_sample    .infer = infer_grid_sample, .cost = cost_resize
#define HOOKS_roi_align      .infer = infer_roi_align, .cost = cost_roi_align
#define HOOKS_rnn            .infer = infer_rnn, .cost = cost_rnn
#define HOOKS_dq_lstm        .infer = infer_dq_lstm, .cost = cost_rnn
#define HOOKS_global_lp_pool .infer = infer_global_lp_pool, .cost = cost_global_lp_pool
#define HOOKS_max_roi_pool   .infer = infer_max_roi_pool, .cost = cost_max_roi_pool
#define HOOKS_deform_conv    .infer = infer_deform_conv, .cost = cost_deform_conv

#define FL_OP FL_OP_DESC
#include "ops/onnxops/nn.def"
#undef FL_OP
