/*
 * legacy.c - ONNX's experimental operators, part of the default domain from
 * opset 1 until ONNX removed them (models of opsets 1-9 use them, e.g.
 * Caffe2 and CoreML conversions): Scale, Affine, ScaledTanh,
 * ParametricSoftplus, Crop, ConstantFill and DynamicSlice. ImageScaler is in
 * nn.c; ThresholdedRelu, MeanVarianceNormalization and Upsample became
 * operators of their own.
 *
 * Shapes:
 *   Scale (y = scale * x), Affine (y = alpha * x + beta), ScaledTanh (y =
 *   alpha * tanh(beta * x)), ParametricSoftplus (y = alpha * ln(exp(beta *
 *   x) + 1))          the input's shape and type
 *   Crop              X [N, C, H, W]; attr border (left, top, right,
 *                     bottom), four values >= 0; with attr scale (h, w)
 *                     the output is [N, C, h, w], taken from (top, left)
 *                     (top + h <= H, left + w <= W), else [N, C, H - top -
 *                     bottom, W - left - right]
 *   ConstantFill      attr dtype (default float; float, int32, int64 or
 *                     bool); without an input attr shape (a scalar when
 *                     absent); with one the input's shape, or with attr
 *                     input_as_shape 1 the 1-D input's values, followed by
 *                     attr extra_shape (attr shape may not come with an
 *                     input, nor extra_shape without one)
 *   DynamicSlice(data, starts, ends, axes?)  Slice-10 without steps
 *
 * FLOP rules ("complete" convention, E = element count of the output):
 *   Scale             E (one multiply)
 *   Affine            2 * E (the multiply and the add, as ImageScaler)
 *   ScaledTanh, ParametricSoftplus  E (activations count 1 an element,
 *                     their alpha/beta scalings included, as HardSigmoid,
 *                     Selu and Softplus)
 *   Crop, ConstantFill, DynamicSlice  0 (data movement, a fill)
 */
#include "ops/onnx/onnx.h"
#include "ops/onnxops/util.h"

#include <stdint.h>
#include <string.h>

static fl_status cost_one(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 1);
}

static fl_status cost_two(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 2);
}

/* Crop's int list attr `name`: want values >= 0, or FL_ENOTFOUND. */
static fl_status crop_attr(fl_ctx *c, const fl_node *n, const char *name, size_t want,
                           const int64_t **v) {
    size_t cnt = 0;
    fl_status st = fl__attr_get_ints(n, name, v, &cnt, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (cnt != want) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' has %zu values, want %zu", name, cnt,
                             want);
    }
    for (size_t i = 0; i < cnt; i++) {
        if ((*v)[i] < 0 || (*v)[i] > INT64_MAX / 4) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' value %zu is %lld, %s", name, i,
                                 (long long)(*v)[i], (*v)[i] < 0 ? "negative" : "out of range");
        }
    }
    return FL_OK;
}

static fl_status infer_crop(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *b, *s = NULL;
    fl_status st = crop_attr(c, n, "border", 4, &b);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'border' (left, top, right, bottom) is missing");
    }
    if (st != FL_OK || ((st = crop_attr(c, n, "scale", 2, &s)) != FL_OK && st != FL_ENOTFOUND)) {
        return st;
    }
    bool scaled = st == FL_OK;
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank >= 0 && x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 has rank %d, want 4 ([N, C, H, W])",
                             x->rank);
    }
    fl_sym d[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    if (x->rank == 4) {
        memcpy(d, x->dims, sizeof d);
    }
    static const char *const axis[] = {"H", "W"};
    for (int i = 0; i < 2; i++) {
        /* border: left (W), top (H), right (W), bottom (H) */
        int64_t lo = b[1 - i], hi = b[3 - i];
        fl_sym in = d[2 + i];
        if (scaled) {
            if (fl_sym_is_known(in) && lo + s[i] > in.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'scale' takes %lld from offset %lld of %s %lld",
                                     (long long)s[i], (long long)lo, axis[i], (long long)in.k);
            }
            d[2 + i] = fl_sym_const(s[i]);
        } else if (fl_sym_is_known(in)) {
            if (lo + hi > in.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'border' crops %lld + %lld from %s %lld", (long long)lo,
                                     (long long)hi, axis[i], (long long)in.k);
            }
            d[2 + i] = fl_sym_const(in.k - lo - hi);
        } else if (lo + hi) {
            st = fl__op_add(c, n, in, fl_sym_const(-(lo + hi)), &d[2 + i]);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    return fl__op_set_output(c, n, 0, dt, 4, d);
}

/* ConstantFill's shape before attr extra_shape: see the header. */
static fl_status fill_base(fl_ctx *c, fl_node *n, int64_t as_shape, fl_shape *s) {
    const int64_t *v;
    size_t cnt = 0;
    fl_status st = fl__attr_get_ints(n, "shape", &v, &cnt, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    if (n->n_inputs == 0) {
        if (cnt > 254) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has %zu entries", cnt);
        }
        s->rank = (int)cnt;
        s->dims = fl__arena_calloc(c->a, cnt + 1, sizeof(fl_sym));
        if (!s->dims) {
            return fl__diag_oom(c->d);
        }
        for (size_t i = 0; i < cnt; i++) {
            if (v[i] < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' value %zu is %lld, negative",
                                     i, (long long)v[i]);
            }
            s->dims[i] = fl_sym_const(v[i]);
        }
        return FL_OK;
    }
    if (st == FL_OK) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'shape' is given with an input (the input gives the shape)");
    }
    if (as_shape) {
        return fl__onnx_shape_from_input(c, n, 0, s);
    }
    *s = *fl__op_in_shape(n, 0);
    return FL_OK;
}

static fl_status infer_constant_fill(fl_ctx *c, fl_node *n) {
    int64_t dt, as_shape;
    fl_status st = fl__attr_int_or(n, "dtype", 1, &dt, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "input_as_shape", 0, &as_shape, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    /* float, int32, int64, bool (TensorProto 1, 6, 7, 9) */
    if (dt != 1 && dt != 6 && dt != 7 && dt != 9) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'dtype' is %lld: ConstantFill fills float (1), int32 (6), "
                             "int64 (7) or bool (9)",
                             (long long)dt);
    }
    const int64_t *ex = NULL;
    size_t nex = 0;
    if ((st = fl__attr_get_ints(n, "extra_shape", &ex, &nex, c->d)) != FL_OK &&
        st != FL_ENOTFOUND) {
        return st;
    }
    if (nex && n->n_inputs == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'extra_shape' is given without an input (it extends the "
                             "input's shape)");
    }
    fl_shape s;
    if ((st = fill_base(c, n, as_shape, &s)) != FL_OK) {
        return st;
    }
    int odt = fl__onnx_dtype((int32_t)dt);
    if (s.rank < 0 || s.rank + (int64_t)nex > 254) {
        return s.rank < 0 ? fl__op_set_output(c, n, 0, odt, -1, NULL)
                          : fl__node_fail(c->d, FL_EINVAL, n, "the output would have rank %lld",
                                          (long long)(s.rank + (int64_t)nex));
    }
    int r = s.rank + (int)nex;
    if (!s.dims) { /* a 1-D input of known length, values unknown */
        return fl__op_set_output_rank(c, n, 0, odt, r);
    }
    fl_sym d[256];
    memcpy(d, s.dims, (size_t)s.rank * sizeof(fl_sym));
    for (size_t i = 0; i < nex; i++) {
        if (ex[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'extra_shape' value %zu is %lld, "
                                 "negative",
                                 i, (long long)ex[i]);
        }
        d[s.rank + (int)i] = fl_sym_const(ex[i]);
    }
    return fl__op_set_output(c, n, 0, odt, r, d);
}

static fl_status infer_dynamic_slice(fl_ctx *c, fl_node *n) {
    static const int idx[] = {0, 1, 2, 3};
    return fl__ox_delegate(c, n, FL_OP_ONNX_SLICE, idx, n->n_inputs);
}

/* Hook sets and descriptors (their rows: onnxops/legacy.def) */
#define HOOKS_scale      .infer = fl__ox_infer_same, .cost = cost_one
#define HOOKS_affine     .infer = fl__ox_infer_same, .cost = cost_two
#define HOOKS_activation .infer = fl__ox_infer_same, .cost = cost_one
#define HOOKS_crop       .infer = infer_crop, .cost = fl__op_cost_zero
#define HOOKS_dyn_slice  .infer = infer_dynamic_slice, .cost = fl__op_cost_zero
#define HOOKS_fill       .infer = infer_constant_fill, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnxops/legacy.def"
#undef FL_OP
