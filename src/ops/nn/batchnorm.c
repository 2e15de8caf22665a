/*
 * nn/batchnorm.c - FusedBatchNorm/V2/V3, _FusedBatchNormEx and their
 * gradients (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Batch normalisation                                                        */
/* ------------------------------------------------------------------------- */

/* data_format: 4-D NHWC/NCHW, and 5-D NDHWC/NCDHW for the V3 forms (has_u); *cl is channels-last.
 */
static fl_status bn_format(fl_ctx *c, const fl_node *n, const char *f, bool has_u, int *rank,
                           bool *cl) {
    if (strcmp(f, "NHWC") == 0 || strcmp(f, "NCHW") == 0) {
        *rank = 4;
        *cl = f[1] == 'H';
    } else if (has_u && (strcmp(f, "NDHWC") == 0 || strcmp(f, "NCDHW") == 0)) {
        *rank = 5;
        *cl = f[1] == 'D';
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' has unsupported value '%s'",
                             f);
    }
    return FL_OK;
}

/* FusedBatchNorm (v1: every output T), V2/V3/_FusedBatchNormEx (statistics
 * of type U); n_out 5 or 6 (the sixth, reserve_space_3, has unknown shape). */
static fl_status infer_fbn_impl(fl_ctx *c, fl_node *n, bool has_u, int n_out) {
    fl_status st;
    int dt, du;
    bool training;
    float eaf;
    const char *f;
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = (has_u ? fl__op_attr_dtype(c, n, "U", 1, &du)
                     : fl__op_attr_dtype(c, n, "T", 0, &du))) != FL_OK ||
        (st = fl__attr_bool_or(n, "is_training", true, &training, c->d)) != FL_OK ||
        (st = fl__attr_float_or(n, "exponential_avg_factor", 1.0f, &eaf, c->d)) != FL_OK ||
        (st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d)) != FL_OK) {
        return st;
    }
    int rank;
    bool cl;
    if ((st = bn_format(c, n, f, has_u, &rank, &cl)) != FL_OK) {
        return st;
    }
    if ((st = fl__nn_need_rank(c, n, 0, "x", rank)) != FL_OK) {
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
        if ((st = fl__nn_need_rank(c, n, i, names[i], 1)) != FL_OK ||
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
    fl_arith k = {c, n, FL_OK};
    bool training;
    fl_status st = fl__attr_bool_or(n, "is_training", true, &training, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    fl_sym flops;
    if (training) {
        fl_sym ch = fl__shape_dim(fl__nn_out_shape(n, 1), 0);
        flops = fl__ar_add(&k, fl__ar_scale(&k, e, 4), fl__ar_scale(&k, ch, 11));
    } else {
        flops = fl__ar_scale(&k, e, 2);
    }
    if (ex) {
        int64_t side = 0;
        const char *act;
        if ((st = fl__attr_int_or(n, "num_side_inputs", 0, &side, c->d)) != FL_OK ||
            (st = fl__attr_str_or(n, "activation_mode", "Identity", &act, c->d)) != FL_OK) {
            return st;
        }
        int64_t extra = (side > 0 ? 1 : 0) + (strcmp(act, "Identity") != 0 ? 1 : 0);
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, e, extra));
    }
    return fl__ar_put_cost_tf(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
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
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d)) != FL_OK ||
        (ex && (st = fl__attr_int_or(n, "num_side_inputs", 0, &side, c->d)) != FL_OK)) {
        return st;
    }
    if (has_u) {
        if ((st = fl__op_attr_dtype(c, n, "U", 2, &du)) != FL_OK) {
            return st;
        }
    } else {
        du = dt;
    }
    int rank;
    bool cl;
    if ((st = bn_format(c, n, f, has_u, &rank, &cl)) != FL_OK) {
        return st;
    }
    if (side < 0 || side > 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_side_inputs' must be 0 or 1, got %" PRId64, side);
    }
    if ((st = fl__nn_need_rank(c, n, 0, "y_backprop", rank)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "x", rank)) != FL_OK) {
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
        if ((st = fl__nn_need_rank(c, n, i, names[i], 1)) == FL_OK) {
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
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    fl_sym ch = fl__shape_dim(fl__nn_out_shape(n, 1), 0);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, e, ex ? 12 : 11), fl__ar_scale(&k, ch, 10));
    return fl__ar_put_cost_tf(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_fbn_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_grad_impl(c, n, out, false);
}
static fl_status cost_fbn_grad_ex(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_fbn_grad_impl(c, n, out, true);
}

/* Hook sets and descriptors (their rows: batchnorm.def). */
#define HOOKS_fbn         .infer = infer_fbn, .cost = cost_fbn
#define HOOKS_fbn_v2      .infer = infer_fbn_v2, .cost = cost_fbn
#define HOOKS_fbn_v3      .infer = infer_fbn_v3, .cost = cost_fbn
#define HOOKS_fbn_ex      .infer = infer_fbn_v3, .cost = cost_fbn_ex
#define HOOKS_fbn_grad    .infer = infer_fbn_grad, .cost = cost_fbn_grad
#define HOOKS_fbn_grad_v2 .infer = infer_fbn_grad_v2, .cost = cost_fbn_grad
#define HOOKS_fbn_grad_ex .infer = infer_fbn_grad_ex, .cost = cost_fbn_grad_ex

#define FL_OP FL_OP_DESC
#include "ops/nn/batchnorm.def"
#undef FL_OP
