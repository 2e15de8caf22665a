/*
 * misc.c - ai.onnx losses, random generators, signal processing and
 * quantization: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss,
 * Bernoulli, RandomUniform(Like), RandomNormal(Like), Multinomial, DFT,
 * STFT, HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix,
 * QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearConv,
 * ConvInteger, MatMulInteger, QLinearMatMul.
 *
 * Shapes: the losses give the target's shape (reduction none) or a scalar;
 * SoftmaxCrossEntropyLoss's log_prob has the scores' shape. Random ops: the
 * input's shape (*Like, Bernoulli) or attr shape, dtype from attr dtype
 * (default: the input's, else float); Multinomial [batch, sample_size].
 * DFT: the input's shape with the last dim 2 (complex) and the axis's dim
 * dft_length L (input 1, when known), onesided (rfft) floor(L/2) + 1; an
 * inverse onesided DFT (irfft) gives a real signal, last dim 1, of L
 * points, L by default 2 * (n - 1) for the axis's n. The axis is attr axis
 * (default 1) up to opset 19, input 2 (default -2) from opset 20, a
 * negative one counted from the back of the input's dims.
 * STFT [batch, frames, bins, 2], frames = (len - frame_length) / frame_step
 * + 1, bins = onesided ? frame_length/2 + 1 : frame_length. Windows [size]
 * and MelWeightMatrix [dft_length/2 + 1, num_mel_bins] need their scalar
 * inputs' values (unknown dims otherwise). Quantization ops keep x's shape;
 * QLinearConv/ConvInteger take Conv's shape of (x, w), MatMulInteger and
 * QLinearMatMul MatMul's of (a, b); output dtypes: QuantizeLinear and the
 * QLinear* ops the zero point's (uint8 without one) or QuantizeLinear's attr
 * output_dtype (opset 21), DequantizeLinear the scale's or its attr
 * output_dtype (opset 23), ConvInteger/MatMulInteger int32, DynamicQuantizeLinear uint8 with
 * a float scale and a uint8 zero point (scalars).
 *
 * FLOP rules ("complete" convention, E(t) = element count):
 *   NegativeLogLikelihoodLoss  E(target) * (1 + [weight given] +
 *                        [reduction != none]) (negate, weigh, sum)
 *   SoftmaxCrossEntropyLoss  5 * E(scores) (LogSoftmax, as Softmax) + the
 *                        NLL count
 *   random ops           E(out) (one draw per element); Bernoulli 2 * E(out)
 *                        (draw and compare)
 *   DFT                  5 * L * ceil(log2 L) per transformed vector (the
 *                        usual radix-2 complex FFT count), L = dft_length
 *                        (absent: the axis's dim n, 2 * (n - 1) for an
 *                        irfft; a symbolic one gives the formula with the
 *                        symbols' ceil(log2) atom)
 *   STFT                 frames * batch * (5 * L * ceil(log2 L) + L)  (an
 *                        FFT per frame and the window's multiplies)
 *   HannWindow, HammingWindow  4 * E(out) (2*pi*n/N, cos, scale, subtract);
 *                        BlackmanWindow 7 * E(out) (two cosine terms)
 *   MelWeightMatrix      4 * E(out) (two distances, a divide, a min)
 *
 * com.microsoft's QuantizeLinear and DequantizeLinear (ORT's quantizer
 * writes them for 16-bit and 4-bit QDQ models before opset 21 allowed those
 * types) have the same inputs, attr axis, shapes, dtypes
 * and counts as ai.onnx's.
 *
 * Quantization: arithmetic on integer operands counts in int_ops (the
 * report's integer-op total), never in FLOPs or MACs; arithmetic on float
 * operands (scales) counts in FLOPs. Each op is counted as its definition
 * reads, saturation free, the scale quotients (per tensor or per channel,
 * not per element) free:
 *   QuantizeLinear  y = round(x / scale) + zp: FLOPs 2 * E(x) (divide,
 *                        round), int_ops E(x) (the zero point's add); to a
 *                        float8 y, 3 * E(x) FLOPs
 *   DequantizeLinear  y = (x - zp) * scale: int_ops E(x), FLOPs E(x); from
 *                        a float8 x, 2 * E(x) FLOPs
 *   DynamicQuantizeLinear  FLOPs 4 * E(x) (min and max scans, divide,
 *                        round), int_ops E(x) (zero point)
 *   MatMulInteger, ConvInteger  (a - a_zp) . (b - b_zp): int_ops 2 * M +
 *                        E(a) + E(b), M = MatMul's/Conv's MACs of (a, b),
 *                        the zero points' subtractions once per element
 *                        (an absent zero point is 0 and still subtracted,
 *                        as the definition reads); 0 FLOPs, 0 MACs
 *   QLinearMatMul, QLinearConv  as MatMulInteger/ConvInteger, + E(y) for
 *                        the int32 bias (QLinearConv's B, when given) and
 *                        E(y) for y's zero point (int_ops); FLOPs 2 * E(y)
 *                        (the accumulator times x_scale * w_scale /
 *                        y_scale, rounded); 0 MACs
 */
#include "ops/onnxops/util.h"

#include <math.h>
#include <string.h>

/* Known scalar (or one-element) input i as int64; false when unknown. */
static bool scalar_in(const fl_node *n, int i, int64_t *out) {
    const fl_value *v = fl__ox_absent(n, i) ? NULL : fl_op_in_value(n, i);
    double d;
    if (!v || v->n != 1 || !fl__value_f64(v, 0, &d) || !(fabs(d) < 9e15)) {
        return false;
    }
    *out = (int64_t)d;
    return true;
}

static fl_status red_attr(fl_ctx *c, const fl_node *n, bool *none) {
    static const char *const reductions[] = {"none", "mean", "sum", NULL};
    int i = 1;
    fl_status st = fl__ox_attr_pick(c, n, "reduction", "mean", reductions, &i);
    *none = st == FL_OK && i == 0;
    return st;
}

static fl_status infer_loss(fl_ctx *c, fl_node *n) {
    bool none;
    fl_status st = red_attr(c, n, &none);
    if (st != FL_OK) {
        return st;
    }
    const fl_tensor *x = fl_node_in(n, 0), *t = fl_node_in(n, 1);
    int dt = fl_dtype_base(x->dtype);
    st = none ? fl__op_set_output(c, n, 0, dt, t->shape.rank, t->shape.dims)
              : fl__op_set_output(c, n, 0, dt, 0, NULL);
    if (st == FL_OK && n->n_outputs > 1) {
        st = fl__op_set_output(c, n, 1, dt, x->shape.rank, x->shape.dims);
    }
    return st;
}

static fl_status cost_loss(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool none;
    fl_status st = red_attr(c, n, &none);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    int64_t per = 1 + !fl__ox_absent(n, 2) + !none;
    fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, &fl_node_in(n, 1)->shape), per);
    if (n->kind == FL_OP_ONNX_SCE_LOSS) {
        f = fl__ar_add(&k, f, fl__ar_scale(&k, fl__ar_numel(&k, &fl_node_in(n, 0)->shape), 5));
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Random                                                                     */
/* ------------------------------------------------------------------------- */

static fl_status dtype_attr(fl_ctx *c, const fl_node *n, const char *name, int dflt, int *dt) {
    int64_t t;
    fl_status st = fl__attr_int_or(n, name, 0, &t, c->d);
    if (st != FL_OK) {
        return st;
    }
    *dt = t ? (int)fl__onnx_dtype((int32_t)t) : dflt;
    if (t && (*dt == FL_DT_INVALID || t != (int32_t)t)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' holds unsupported data type %lld", name,
                             (long long)t);
    }
    return FL_OK;
}

static fl_status infer_random_like(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt;
    fl_status st = dtype_attr(c, n, "dtype", fl_dtype_base(x->dtype), &dt);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims) : st;
}

static fl_status infer_random(fl_ctx *c, fl_node *n) {
    int dt;
    const int64_t *sh;
    size_t ns;
    fl_status st = dtype_attr(c, n, "dtype", FL_DT_FLOAT, &dt);
    if (st == FL_OK) {
        st = fl__attr_need_ints(n, "shape", &sh, &ns, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym d[256];
    if (ns > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has rank %zu", ns);
    }
    for (size_t i = 0; i < ns; i++) {
        if (sh[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has negative dim %lld",
                                 (long long)sh[i]);
        }
        d[i] = fl_sym_const(sh[i]);
    }
    return fl__op_set_output(c, n, 0, dt, (int)ns, d);
}

static fl_status infer_multinomial(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = FL_DT_INT32;
    int64_t ss;
    fl_status st = dtype_attr(c, n, "dtype", FL_DT_INT32, &dt);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "sample_size", 1, &ss, c->d);
    }
    if (st == FL_OK && ss < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'sample_size' is %lld", (long long)ss);
    }
    fl_sym d[2] = {x->rank == 2 ? x->dims[0] : fl_sym_unknown(), fl_sym_const(ss)};
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, 2, d) : st;
}

static fl_status cost_random(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, n->kind == FL_OP_ONNX_BERNOULLI ? 2 : 1);
}

/* ------------------------------------------------------------------------- */
/* Signal                                                                     */
/* ------------------------------------------------------------------------- */

/* FLOPs of one FFT of length len, 5 * len * ceil(log2(len)), plus len
 * more when plus_len (STFT's window); fails naming the node, `what` and
 * len when that overflows. */
static fl_status fft_flops(fl_ctx *c, const fl_node *n, int64_t len, bool plus_len,
                           const char *what, int64_t *out) {
    int64_t lg = 0;
    while (lg < 62 && ((int64_t)1 << lg) < len) {
        lg++;
    }
    fl_ck f = fl_ck_mul(fl_ck_mul(fl_ck_of(5), fl_ck_of(len)), fl_ck_of(lg));
    if (plus_len) {
        f = fl_ck_add(f, fl_ck_of(len));
    }
    return fl__op_ck(c, n, f, out, "%s %lld: 5 * length * ceil(log2(length))%s", what,
                     (long long)len, plus_len ? " + length" : "");
}

/* The transformed axis of a DFT over x of rank `rank`: attr axis (default
 * 1) before opset 20, the scalar input 2 (default -2) from opset 20 on; a
 * negative axis counts from the back of x's dims (the complex dim
 * included), so -2 is the last signal axis. *ax -1 when input 2's value is
 * unknown. */
static fl_status dft_axis(fl_ctx *c, const fl_node *n, int rank, int *ax) {
    int64_t a = -2;
    fl_status st = FL_OK;
    *ax = -1;
    if (c->g->producer < 20) {
        st = fl__attr_int_or(n, "axis", 1, &a, c->d);
    } else if (!fl__ox_absent(n, 2) && !scalar_in(n, 2, &a)) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (a < -(int64_t)rank || a == -1 || a > rank - 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "axis %lld is out of range for an input of rank %d ([%d, -2] or "
                             "[0, %d])",
                             (long long)a, rank, -rank, rank - 2);
    }
    *ax = (int)(a < 0 ? a + rank : a);
    return FL_OK;
}

/* The transform's length L along axis ax of x: input 1 (dft_length) when
 * given (unknown without its value), else the axis's dim n, or 2 * (n - 1)
 * for the inverse of a one-sided spectrum (irfft), whose input holds n =
 * L/2 + 1 points. */
static fl_sym dft_length(fl_arith *k, const fl_node *n, const fl_shape *x, int ax, bool irfft) {
    int64_t len;
    if (!fl__ox_absent(n, 1)) {
        return scalar_in(n, 1, &len) ? fl_sym_const(len) : fl_sym_unknown();
    }
    return irfft ? fl__ar_scale(k, fl__ar_sub(k, x->dims[ax], fl_sym_const(1)), 2) : x->dims[ax];
}

/* DFT's attrs inverse and onesided. */
static fl_status dft_attrs(fl_ctx *c, const fl_node *n, bool *inverse, bool *onesided) {
    int64_t inv = 0, one = 0;
    fl_status st = fl__attr_int_or(n, "inverse", 0, &inv, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "onesided", 0, &one, c->d);
    }
    *inverse = inv != 0;
    *onesided = one != 0;
    return st;
}

static fl_status infer_dft(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    bool inv = false, one = false;
    fl_status st = dft_attrs(c, n, &inv, &one);
    if (st != FL_OK || x->rank < 0) {
        return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (x->rank < 2) { /* the last dim is the complex one, the output's too */
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 has rank %d, want at least 2 (the signal's dims, then 1 or "
                             "2 for real or complex)",
                             x->rank);
    }
    int ax;
    if ((st = dft_axis(c, n, x->rank, &ax)) != FL_OK) {
        return st;
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    d[x->rank - 1] = fl_sym_const(inv && one ? 1 : 2); /* irfft: a real signal */
    if (ax < 0) {
        /* The axis is not known: so is the dim a length or onesided sets. */
        for (int i = 0; i < x->rank - 1 && (one || !fl__ox_absent(n, 1)); i++) {
            d[i] = fl_sym_unknown();
        }
        return fl__op_set_output(c, n, 0, dt, x->rank, d);
    }
    fl_arith k = {c, n, FL_OK};
    d[ax] = dft_length(&k, n, x, ax, inv && one);
    if (one && !inv) { /* rfft: the spectrum's first L/2 + 1 points */
        st = fl__op_floordiv(c, n, d[ax], fl_sym_const(2), &d[ax]);
        if (st == FL_OK) {
            st = fl__op_add(c, n, d[ax], fl_sym_const(1), &d[ax]);
        }
    }
    if (k.st != FL_OK || st != FL_OK) {
        return k.st != FL_OK ? k.st : st;
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, d);
}

static fl_status cost_dft(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    bool inv = false, one = false;
    int ax = -1;
    fl_status st = dft_attrs(c, n, &inv, &one);
    if (st == FL_OK && x->rank >= 2) {
        st = dft_axis(c, n, x->rank, &ax);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym f = fl_sym_unknown();
    if (ax >= 0 && ax < x->rank - 1) {
        /* vectors: every dim but the axis and the complex one */
        fl_sym t = fl__ar_mul(&k, fl__ar_dims_prod(&k, x, 0, ax),
                              fl__ar_dims_prod(&k, x, ax + 1, x->rank - 1));
        fl_sym len = dft_length(&k, n, x, ax, inv && one);
        int64_t ff;
        if (fl_sym_is_known(len)) {
            if ((st = fft_flops(c, n, len.k, false, "transform length", &ff)) != FL_OK) {
                return st;
            }
            f = fl__ar_scale(&k, t, ff);
        } else if (!fl_sym_is_unknown(len)) {
            fl_sym lg;
            if (fl__sym_clog2(c->st, len, &lg) != FL_OK) {
                return fl__diag_oom(c->d); /* its only failure */
            }
            f = fl__ar_mul(&k, fl__ar_scale(&k, t, 5), fl__ar_mul(&k, len, lg));
        }
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status stft_dims(const fl_node *n, fl_sym *d, int64_t *flen) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t step = -1, fl = -1;
    *flen = -1;
    d[0] = x->rank == 3 ? x->dims[0] : fl_sym_unknown();
    d[1] = d[2] = fl_sym_unknown();
    d[3] = fl_sym_const(2);
    (void)scalar_in(n, 1, &step);
    if (!fl__ox_absent(n, 2) && fl_node_in(n, 2)->shape.rank == 1 &&
        fl_sym_is_known(fl_node_in(n, 2)->shape.dims[0])) {
        fl = fl_node_in(n, 2)->shape.dims[0].k;
    } else {
        (void)scalar_in(n, 3, &fl);
    }
    if (fl > 0) {
        *flen = fl;
        if (x->rank == 3 && fl_sym_is_known(x->dims[1]) && step > 0 && x->dims[1].k >= fl) {
            d[1] = fl_sym_const((x->dims[1].k - fl) / step + 1);
        }
    }
    return FL_OK;
}

static fl_status infer_stft(fl_ctx *c, fl_node *n) {
    int64_t one, fl;
    fl_sym d[4];
    fl_status st = fl__attr_int_or(n, "onesided", 1, &one, c->d);
    if (st != FL_OK) {
        return st;
    }
    stft_dims(n, d, &fl);
    if (fl > 0) {
        d[2] = fl_sym_const(one ? fl / 2 + 1 : fl);
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4, d);
}

static fl_status cost_stft(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym d[4];
    int64_t fl;
    stft_dims(n, d, &fl);
    fl_sym f = fl_sym_unknown();
    if (fl > 0) {
        int64_t ff;
        fl_status st = fft_flops(c, n, fl, true, "frame length", &ff);
        if (st != FL_OK) {
            return st;
        }
        f = fl__ar_scale(&k, fl__ar_mul(&k, d[0], d[1]), ff);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_window(fl_ctx *c, fl_node *n) {
    int dt;
    int64_t size;
    fl_status st = dtype_attr(c, n, "output_datatype", FL_DT_FLOAT, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_sym d = fl_sym_unknown();
    if (scalar_in(n, 0, &size)) {
        if (size < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'size' is %lld", (long long)size);
        }
        d = fl_sym_const(size);
    }
    return fl__op_set_output(c, n, 0, dt, 1, &d);
}

static fl_status infer_mel(fl_ctx *c, fl_node *n) {
    int dt;
    int64_t bins, len;
    fl_status st = dtype_attr(c, n, "output_datatype", FL_DT_FLOAT, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_sym d[2] = {fl_sym_unknown(), fl_sym_unknown()};
    if (scalar_in(n, 1, &len) && len >= 0) {
        d[0] = fl_sym_const(len / 2 + 1);
    }
    if (scalar_in(n, 0, &bins) && bins >= 0) {
        d[1] = fl_sym_const(bins);
    }
    return fl__op_set_output(c, n, 0, dt, 2, d);
}

static fl_status cost_gen(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, n->kind == FL_OP_ONNX_BLACKMAN_WINDOW ? 7 : 4);
}

/* ------------------------------------------------------------------------- */
/* Quantization                                                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_quantize(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = fl__ox_absent(n, 2) ? FL_DT_UINT8 : fl__ox_in_dtype(n, 2);
    int64_t od;
    fl_status st = fl__attr_int_or(n, "output_dtype", 0, &od, c->d); /* opset 21 */
    if (st == FL_OK && od) {
        st = dtype_attr(c, n, "output_dtype", dt, &dt);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims) : st;
}

/* DequantizeLinear: x_scale's dtype, or attr output_dtype (opset 23). */
static fl_status infer_dequantize(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt;
    fl_status st = dtype_attr(c, n, "output_dtype", fl__ox_in_dtype(n, 1), &dt);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims) : st;
}

static fl_status infer_dyn_quantize(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st = fl__op_set_output(c, n, 0, FL_DT_UINT8, x->shape.rank, x->shape.dims);
    if (st == FL_OK) {
        st = fl__ox_set_out(c, n, 1, FL_DT_FLOAT, 0, NULL);
    }
    return st == FL_OK ? fl__ox_set_out(c, n, 2, FL_DT_UINT8, 0, NULL) : st;
}

/* QuantizeLinear: divide, round (float), + zero point (integer when y is);
 * DequantizeLinear: - zero point (integer when x is), multiply (float);
 * DynamicQuantizeLinear: min and max scans, then QuantizeLinear to uint8. */
static fl_status cost_quant(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &fl_node_in(n, 0)->shape);
    bool integer;
    int64_t fl;
    switch (n->kind) {
    case FL_OP_ONNX_QUANTIZE_LINEAR:
    case FL_OP_ONNX_MS_QUANTIZE_LINEAR:
        integer = fl__dtype_is_integer(n->outputs[0].dtype);
        fl = integer ? 2 : 3;
        break;
    case FL_OP_ONNX_DEQUANTIZE_LINEAR:
    case FL_OP_ONNX_MS_DEQUANTIZE_LINEAR:
        integer = fl__dtype_is_integer(fl__ox_in_dtype(n, 0));
        fl = integer ? 1 : 2;
        break;
    default:
        integer = true;
        fl = 4;
        break;
    }
    return fl__ar_put_int_cost(&k, out, fl__ar_scale(&k, e, fl), fl_sym_const(0),
                               integer ? e : fl_sym_const(0));
}

static const int qconv_idx[] = {0, 3, 8}, convi_idx[] = {0, 1}, qmm_idx[] = {0, 3};

static fl_status infer_qlinear(fl_ctx *c, fl_node *n) {
    fl_status st;
    switch (n->kind) {
    case FL_OP_ONNX_QLINEAR_CONV:
        st = fl__ox_delegate(c, n, FL_OP_ONNX_CONV, qconv_idx, 3);
        return st == FL_OK ? fl__ox_retype(c, n, 0, fl__ox_in_dtype(n, 7)) : st;
    case FL_OP_ONNX_CONV_INTEGER:
        st = fl__ox_delegate(c, n, FL_OP_ONNX_CONV, convi_idx, 2);
        return st == FL_OK ? fl__ox_retype(c, n, 0, FL_DT_INT32) : st;
    case FL_OP_ONNX_MATMUL_INTEGER:
        st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, convi_idx, 2);
        return st == FL_OK ? fl__ox_retype(c, n, 0, FL_DT_INT32) : st;
    default: /* QLinearMatMul */
        st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, qmm_idx, 2);
        return st == FL_OK ? fl__ox_retype(c, n, 0, fl__ox_in_dtype(n, 7)) : st;
    }
}

/* Integer operations of the quantized contractions (see the header). */
static fl_status cost_qlinear(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool conv = n->kind == FL_OP_ONNX_QLINEAR_CONV || n->kind == FL_OP_ONNX_CONV_INTEGER;
    bool qlinear = n->kind == FL_OP_ONNX_QLINEAR_CONV || n->kind == FL_OP_ONNX_QLINEAR_MATMUL;
    const int *idx = n->kind == FL_OP_ONNX_QLINEAR_CONV     ? qconv_idx
                     : n->kind == FL_OP_ONNX_QLINEAR_MATMUL ? qmm_idx
                                                            : convi_idx;
    fl_cost base = {0};
    fl_status st =
        fl__ox_cost_delegate(c, n, conv ? FL_OP_ONNX_CONV : FL_OP_ONNX_MATMUL, idx, 2, &base);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym macs = base.incomplete ? fl_sym_unknown() : base.macs;
    fl_sym y = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym zp = fl__ar_add(&k, fl__ar_numel(&k, &fl_node_in(n, idx[0])->shape),
                           fl__ar_numel(&k, &fl_node_in(n, idx[1])->shape));
    fl_sym iops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), zp);
    int64_t per_y = qlinear ? 1 : 0; /* + y_zero_point */
    if (n->kind == FL_OP_ONNX_QLINEAR_CONV && !fl__ox_absent(n, 8)) {
        per_y++; /* + the int32 bias */
    }
    iops = fl__ar_add(&k, iops, fl__ar_scale(&k, y, per_y));
    fl_sym flops = fl__ar_scale(&k, y, qlinear ? 2 : 0);
    return fl__ar_put_int_cost(&k, out, flops, fl_sym_const(0), iops);
}

/* Hook sets and descriptors (their rows: onnxops/misc.def) */

#define HOOKS_loss                    .infer = infer_loss, .cost = cost_loss
#define HOOKS_random_like             .infer = infer_random_like, .cost = cost_random
#define HOOKS_random                  .infer = infer_random, .cost = cost_random
#define HOOKS_multinomial             .infer = infer_multinomial, .cost = cost_random
#define HOOKS_dft                     .infer = infer_dft, .cost = cost_dft
#define HOOKS_stft                    .infer = infer_stft, .cost = cost_stft
#define HOOKS_window                  .infer = infer_window, .cost = cost_gen
#define HOOKS_mel_weight_matrix       .infer = infer_mel, .cost = cost_gen
#define HOOKS_quantize_linear         .infer = infer_quantize, .cost = cost_quant
#define HOOKS_dequantize_linear       .infer = infer_dequantize, .cost = cost_quant
#define HOOKS_dynamic_quantize_linear .infer = infer_dyn_quantize, .cost = cost_quant
#define HOOKS_qlinear                 .infer = infer_qlinear, .cost = cost_qlinear

#define FL_OP FL_OP_DESC
#include "ops/onnxops/misc.def"
#undef FL_OP
