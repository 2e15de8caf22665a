/*
 * recent.c - ai.onnx operators of opsets 18-24 beyond the other family
 * files: Col2Im, CenterCropPad, AffineGrid, StringConcat, RegexFullMatch,
 * StringSplit, TensorScatter, BitCast (26).
 *
 * Shapes:
 *   Col2Im         [N, C, image_shape...], C = input.dim[1] / prod(block_shape)
 *                  (image_shape, block_shape: inputs 1 and 2, known values)
 *   CenterCropPad  input's shape with the dims of attr axes (default all)
 *                  replaced by input 1's values
 *   AffineGrid     theta [N, 2, 3] with size [N, C, H, W] -> [N, H, W, 2];
 *                  theta [N, 3, 4] with size [N, C, D, H, W] -> [N, D, H, W, 3]
 *   StringConcat   numpy broadcast, string; RegexFullMatch bool, X's shape;
 *   StringSplit    Y string X.shape + [unknown] (the most splits of any
 *                  element: a data-dependent size), Z int64 X's shape
 *   TensorScatter  (opset 24, a KV cache updated in place) past_cache's
 *                  shape and dtype; update of its rank, equal dims but
 *                  along attr axis (default -2)
 *   BitCast        (opset 26) input's shape, attr to's type (required); the
 *                  two types' bit widths must be equal (4-bit types 4, 2-bit
 *                  2, bool 8); a string either side fails
 * Unknown input values leave the dims they decide unknown.
 *
 * FLOP rules ("complete" convention, E(t) = element count):
 *   Col2Im         E(input) (each column element added into the image)
 *   AffineGrid     4 * E(out) for 2-D grids (per coordinate two multiplies
 *                  and two adds), 6 * E(out) for 3-D
 *   CenterCropPad, StringConcat, RegexFullMatch, StringSplit, TensorScatter,
 *   BitCast        0 (data movement and string work, with a rule)
 */
#include "ops/onnxops/util.h"

#include <string.h>

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
}

static fl_status infer_col2im(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int64_t *img, *blk, ni, nb;
    fl_status si = fl__op_in_int_vector(c, n, 1, &img, &ni);
    fl_status sb = fl__op_in_int_vector(c, n, 2, &blk, &nb);
    if ((si != FL_OK && si != FL_ENOTFOUND) || (sb != FL_OK && sb != FL_ENOTFOUND)) {
        return c->d->status;
    }
    if (si != FL_OK || ni < 1 || ni > 250) {
        return fl__op_set_output(c, n, 0, dt, si == FL_OK ? (int)ni + 2 : -1, NULL);
    }
    fl_sym d[256] = {x->rank == 3 ? x->dims[0] : fl_sym_unknown(), fl_sym_unknown()};
    for (int64_t i = 0; i < ni; i++) {
        if (img[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'image_shape' has negative %lld",
                                 (long long)img[i]);
        }
        d[2 + i] = fl_sym_const(img[i]);
    }
    if (sb == FL_OK && nb == ni && x->rank == 3) {
        int64_t prod = 1;
        for (int64_t i = 0; i < nb; i++) {
            if (blk[i] < 1 || blk[i] > 1000000) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'block_shape' has entry %lld",
                                     (long long)blk[i]);
            }
            prod *= blk[i];
            prod = prod > 1000000000 ? 1000000000 : prod;
        }
        fl_status st = fl__op_floordiv(c, n, x->dims[1], fl_sym_const(prod), &d[1]);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)ni + 2, d);
}

static fl_status infer_center_crop_pad(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    int64_t *v, nv;
    fl_status st = fl__op_in_int_vector(c, n, 1, &v, &nv);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    const int64_t *axes = NULL;
    size_t na = 0;
    st = fl__attr_get_ints(n, "axes", &axes, &na, c->d);
    if (st == FL_EINVAL) {
        return st;
    }
    size_t cnt = st == FL_OK ? na : (size_t)x->rank;
    if ((int64_t)cnt != nv) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'shape' has %lld entries for %zu axes",
                             (long long)nv, cnt);
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    for (size_t i = 0; i < cnt; i++) {
        int ax = (int)i;
        if (axes && fl__ox_norm_axis(c, n, axes[i], x->rank, "attr 'axes'", &ax) != FL_OK) {
            return c->d->status;
        }
        if (v[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'shape' has negative %lld",
                                 (long long)v[i]);
        }
        d[ax] = fl_sym_const(v[i]);
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, d);
}

static fl_status infer_affine_grid(fl_ctx *c, fl_node *n) {
    int dt = fl__ox_in_dtype(n, 0);
    int64_t *v, nv;
    fl_status st = fl__op_in_int_vector(c, n, 1, &v, &nv);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    const fl_shape *sz = &fl_node_in(n, 1)->shape;
    int64_t len = st == FL_OK                                     ? nv
                  : sz->rank == 1 && fl_sym_is_known(sz->dims[0]) ? sz->dims[0].k
                                                                  : -1;
    if (len != 4 && len != 5) {
        if (len >= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'size' has %lld entries (4 or 5)",
                                 (long long)len);
        }
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym d[5];
    for (int64_t i = 0; i < len - 1; i++) {
        int64_t src = i == 0 ? 0 : i + 1; /* N, then the spatial dims */
        d[i] = st == FL_OK ? fl_sym_const(v[src]) : fl_sym_unknown();
    }
    d[len - 1] = fl_sym_const(len - 2);
    return fl__op_set_output(c, n, 0, dt, (int)len, d);
}

static fl_status cost_affine_grid(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, n->outputs[0].shape.rank == 5 ? 6 : 4);
}

static fl_status cost_e_in(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_in(c, n, out, 1);
}

static fl_status infer_string_concat(fl_ctx *c, fl_node *n) {
    return fl__ox_infer_bcast(c, n, FL_DT_STRING);
}

static fl_status infer_regex(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    return fl__op_set_output(c, n, 0, FL_DT_BOOL, x->rank, x->dims);
}

static fl_status infer_string_split(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    if (x->rank < 0 || x->rank > 253) {
        fl_status st = fl__op_set_output(c, n, 0, FL_DT_STRING, -1, NULL);
        return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, x->rank, NULL) : st;
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    d[x->rank] = fl_sym_unknown();
    fl_status st = fl__op_set_output(c, n, 0, FL_DT_STRING, x->rank + 1, d);
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, x->rank, x->dims) : st;
}

/* TensorScatter(past_cache, update, write_indices?): past_cache's shape and
 * dtype; update has its rank and its dims except along attr axis. */
static fl_status infer_tensor_scatter(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *u = &fl_node_in(n, 1)->shape;
    int64_t axis;
    int ax = 0;
    fl_status st = fl__attr_int_or(n, "axis", -2, &axis, c->d);
    if (st == FL_OK && x->rank >= 0) {
        st = fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax);
    }
    if (st != FL_OK) {
        return st;
    }
    if (x->rank >= 0 && u->rank >= 0 && u->rank != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (update) has rank %d, input 0 (past_cache) %d", u->rank,
                             x->rank);
    }
    fl_sym d[256];
    for (int i = 0; i < x->rank && i < 256 && u->rank >= 0; i++) {
        d[i] = x->dims[i];
        if (i != ax &&
            (st = fl__op_merge_dim(c, n, x->dims[i], u->dims[i],
                                   "input 0 (past_cache) and input 1 (update)", &d[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank,
                             u->rank >= 0 && x->rank <= 256 ? d : x->dims);
}

/* Bits of one element of dt; 0 for types without a bit width (string). */
static int dtype_bits(int dt) {
    dt = fl_dtype_base(dt);
    if (dt == FL_DT_INT4 || dt == FL_DT_UINT4 || dt == FL_DT_FLOAT4_E2M1FN) {
        return 4;
    }
    if (dt == FL_DT_INT2 || dt == FL_DT_UINT2) {
        return 2;
    }
    return 8 * (int)fl__dtype_size(dt);
}

static fl_status infer_bitcast(fl_ctx *c, fl_node *n) {
    int64_t to;
    fl_status st = fl__attr_need_int(n, "to", &to, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_dtype dt = to == (int32_t)to ? fl__onnx_dtype((int32_t)to) : FL_DT_INVALID;
    if (dt == FL_DT_INVALID || dtype_bits(dt) == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'to' holds unsupported data type %lld",
                             (long long)to);
    }
    const fl_tensor *x = fl_node_in(n, 0);
    int in_dt = fl_dtype_base(x->dtype);
    if (in_dt != FL_DT_INVALID && dtype_bits(in_dt) != dtype_bits(dt)) {
        return fl__node_fail(
            c->d, FL_EINVAL, n, "attr 'to' %s has %d bits per element, input 0 %s has %d",
            fl__dtype_name(dt), dtype_bits(dt), fl__dtype_name(in_dt), dtype_bits(in_dt));
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

#define HOOKS_tensor_scatter  .infer = infer_tensor_scatter, .cost = cost_zero
#define HOOKS_col2im          .infer = infer_col2im, .cost = cost_e_in
#define HOOKS_center_crop_pad .infer = infer_center_crop_pad, .cost = cost_zero
#define HOOKS_affine_grid     .infer = infer_affine_grid, .cost = cost_affine_grid
#define HOOKS_string_concat   .infer = infer_string_concat, .cost = cost_zero
#define HOOKS_regex           .infer = infer_regex, .cost = cost_zero
#define HOOKS_string_split    .infer = infer_string_split, .cost = cost_zero
#define HOOKS_bitcast         .infer = infer_bitcast, .cost = cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnxops/recent.def"
#undef FL_OP
