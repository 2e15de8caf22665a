/*
 * nn/conv.c - Conv2D, Conv3D, DepthwiseConv2dNative, their fused forms, the
 * input/filter backprops and Dilation2D (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

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
    if ((st = fl__nn_get_layout(c, n, ns, &l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, l.rank, W_DILATIONS | (ns == 2 ? W_EXPLICIT : 0), &w)) !=
            FL_OK ||
        (st = fl__nn_check_conv_window(c, n, &l, &w, "dilations")) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if ((kind & CONV_FUSED) && (st = fl__nn_check_fused(c, n, 2)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, 0, "input", l.rank)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "filter", l.rank)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *f = fl__op_in_shape(n, 1);
    fl_sym in_c = fl__shape_dim(x, fl__nn_lay_c(&l));
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
    dims[fl__nn_lay_c(&l)] = out_c;
    for (int i = 0; i < ns; i++) {
        int idx = fl__nn_lay_sp(&l, i);
        fl_sym in = fl__shape_dim(x, idx);
        if ((st = fl__op_add(c, n, in, fl_sym_const(pre[2 * idx] + pre[2 * idx + 1]), &in)) !=
                FL_OK ||
            (st = fl__nn_window_dim(c, n, &w, idx, in, fl__shape_dim(f, i), &dims[idx])) != FL_OK) {
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
    fl_arith k = {c, n, FL_OK};
    int ns = (kind & CONV_3D) ? 3 : 2;
    const fl_shape *f = fl__op_in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    /* Kh * Kw (* Kd), times Cin_f unless depthwise. */
    fl_sym taps = fl__ar_dims_prod(&k, f, 0, (kind & CONV_DEPTHWISE) ? ns : ns + 1);
    if (f->rank != ns + 2) {
        taps = fl_sym_unknown();
    }
    fl_sym macs = fl__ar_mul(&k, e, taps);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    fl_sym tf = tfprof_rule ? flops : fl_sym_const(0); /* 2 * macs */
    if (kind & CONV_FUSED) {
        flops = fl__ar_add(&k, flops, fl__nn_fused_extra(&k, n, e));
    }
    return fl__ar_put_cost_tf(&k, out, flops, tf, macs, tfprof_rule);
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
fl_status fl__nn_sizes_input(fl_ctx *c, const fl_node *n, int i, const char *what, const layout *l,
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
        dims[fl__nn_lay_sp(l, 0)] = v[0];
        dims[fl__nn_lay_sp(l, 1)] = v[1];
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have %s elements, got %lld",
                             i, what, two_ok ? "4 or 2" : "4", (long long)cnt);
    }
    return FL_OK;
}

/* What the two backprop ops share: layout, window and dtype checks, an unknown output while the
 * layout is unknown (*done), and rank 4 for the two tensor inputs, input `dt_in`'s dtype being
 * the output's. */
static fl_status backprop_prelude(fl_ctx *c, fl_node *n, int dt_in, int ranked, const char *name,
                                  layout *l, int *dt, bool *done) {
    window w;
    fl_status st;
    *done = false;
    if ((st = fl__nn_get_layout(c, n, 2, l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, 4, W_DILATIONS | W_EXPLICIT, &w)) != FL_OK ||
        (st = fl__nn_check_conv_window(c, n, l, &w, "dilations")) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", dt_in, dt)) != FL_OK) {
        return st;
    }
    if (!l->ok) {
        *done = true;
        return fl__op_set_output(c, n, 0, *dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, ranked, name, 4)) != FL_OK) {
        return st;
    }
    return fl__nn_need_rank(c, n, 2, "out_backprop", 4);
}

static fl_status infer_backprop_input(fl_ctx *c, fl_node *n, bool depthwise) {
    layout l = {0};
    int dt = FL_DT_INVALID;
    bool done;
    fl_status st = backprop_prelude(c, n, 1, 1, "filter", &l, &dt, &done);
    if (st != FL_OK || done) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    dims[0] = fl__shape_dim(fl__op_in_shape(n, 2), 0);
    dims[fl__nn_lay_c(&l)] = fl__shape_dim(fl__op_in_shape(n, 1), 2);
    if ((st = fl__nn_sizes_input(c, n, 0, "input_sizes", &l, !depthwise, dims)) != FL_OK) {
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
    int dt = FL_DT_INVALID;
    bool done;
    fl_status st = backprop_prelude(c, n, 0, 0, "input", &l, &dt, &done);
    if (st != FL_OK || done) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    if (depthwise) {
        dims[2] = fl__shape_dim(fl__op_in_shape(n, 0), fl__nn_lay_c(&l));
    } else {
        dims[3] = fl__shape_dim(fl__op_in_shape(n, 2), fl__nn_lay_c(&l));
    }
    if ((st = fl__nn_sizes_input(c, n, 1, "filter_sizes", &l, false, dims)) != FL_OK) {
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
    fl_ck p = fl_ck_mul(fl_ck_of(a->v.list.i[1]), fl_ck_of(a->v.list.i[2]));
    return p.ovf ? fl_sym_unknown() : fl_sym_const(p.v);
}

/* filter: the filter's shape (input 1 for backprop input, the output for
 * backprop filter). */
static fl_status cost_backprop(fl_ctx *c, const fl_node *n, fl_cost *out, bool depthwise,
                               bool filter_is_output) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *f = filter_is_output ? fl__nn_out_shape(n, 0) : fl__op_in_shape(n, 1);
    fl_sym taps = f->rank == 4 ? fl__ar_dims_prod(&k, f, 0, depthwise ? 2 : 3) : fl_sym_unknown();
    fl_sym macs = fl__ar_mul(&k, fl__ar_numel(&k, fl__op_in_shape(n, 2)), taps);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    fl_sym tf = fl_sym_const(0);
    bool rule = !depthwise;
    if (rule && fl__nn_is_nhwc(n)) {
        /* tfprof: 2 * E(image) * E(filter) / (image[-1] * s_h * s_w), truncated. */
        const fl_shape *img = filter_is_output ? fl__op_in_shape(n, 0) : fl__nn_out_shape(n, 0);
        fl_sym num =
            fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_numel(&k, img), fl__ar_numel(&k, f)), 2);
        fl_sym den = fl__ar_mul(&k, fl__shape_dim(img, -1), tfprof_stride_product(n));
        tf = fl__nn_floordiv_or_zero(&k, num, den);
    }
    return fl__ar_put_cost_tf(&k, out, flops, tf, macs, rule);
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
    if ((st = fl__nn_get_window(c, n, 4, W_RATES, &w)) != FL_OK ||
        (st = fl__nn_check_conv_window(c, n, &l, &w, "rates")) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 0, "input", 4)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "filter", 3)) != FL_OK) {
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
        if ((st = fl__nn_window_dim(c, n, &w, 1 + i, fl__shape_dim(x, 1 + i), fl__shape_dim(f, i),
                                    &dims[1 + i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status cost_dilation2d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *f = fl__op_in_shape(n, 1);
    fl_sym taps = f->rank == 3 ? fl__ar_dims_prod(&k, f, 0, 2) : fl_sym_unknown();
    fl_sym flops =
        fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_numel(&k, fl__nn_out_shape(n, 0)), taps), 2);
    return fl__ar_put_cost_tf(&k, out, flops, flops, fl_sym_const(0), true);
}

/* Hook sets and descriptors (their rows: conv.def). */
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
#define HOOKS_dilation2d .infer = infer_dilation2d, .cost = cost_dilation2d

#define FL_OP FL_OP_DESC
#include "ops/nn/conv.def"
#undef FL_OP
