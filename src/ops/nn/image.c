/*
 * nn/image.c - ResizeBilinear/NearestNeighbor/Bicubic, CropAndResize,
 * DepthToSpace, SpaceToDepth (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

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
    if ((!float_out && (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK) ||
        (st = fl__nn_need_rank(c, n, 0, "images", 4)) != FL_OK) {
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

fl_status fl__nn_cost_per_out_elem(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, fl__nn_out_shape(n, 0)), per);
    return fl__ar_put_cost_tf(&k, out, f, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_resize_bilinear(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__nn_cost_per_out_elem(c, n, out, 9);
}
static fl_status cost_resize_bicubic(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__nn_cost_per_out_elem(c, n, out, 35);
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
    if ((st = fl__nn_need_rank(c, n, 0, "image", 4)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "boxes", 2)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 2, "box_ind", 1)) != FL_OK) {
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
    return fl__nn_cost_per_out_elem(c, n, out, strcmp(method, "nearest") == 0 ? 0 : 9);
}

/* ------------------------------------------------------------------------- */
/* DepthToSpace, SpaceToDepth                                                 */
/* ------------------------------------------------------------------------- */

static fl_status infer_space_depth(fl_ctx *c, fl_node *n, bool to_space) {
    layout l = {0};
    fl_status st;
    int dt = FL_DT_INVALID;
    int64_t b;
    if ((st = fl__nn_get_layout(c, n, 2, &l)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
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
    if ((st = fl__nn_need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym dims[4];
    for (int i = 0; i < 4; i++) {
        dims[i] = fl__shape_dim(x, i);
    }
    int ci = fl__nn_lay_c(&l);
    /* DepthToSpace: channels / b^2 and spatial * b; SpaceToDepth the reverse. */
    int div_idx[2], ndiv, mul_idx[2], nmul;
    int64_t div_by, mul_by;
    if (to_space) {
        div_idx[0] = ci;
        ndiv = 1;
        div_by = b * b;
        mul_idx[0] = fl__nn_lay_sp(&l, 0);
        mul_idx[1] = fl__nn_lay_sp(&l, 1);
        nmul = 2;
        mul_by = b;
    } else {
        div_idx[0] = fl__nn_lay_sp(&l, 0);
        div_idx[1] = fl__nn_lay_sp(&l, 1);
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

/* Hook sets and descriptors (their rows: image.def). */
#define HOOKS_resize_bilinear .infer = infer_resize_float, .cost = cost_resize_bilinear
#define HOOKS_resize_nearest  .infer = infer_resize_nearest, .cost = fl__op_cost_zero
#define HOOKS_resize_bicubic  .infer = infer_resize_float, .cost = cost_resize_bicubic
#define HOOKS_crop_and_resize .infer = infer_crop_and_resize, .cost = cost_crop_and_resize
#define HOOKS_depth_to_space  .infer = infer_depth_to_space, .cost = fl__op_cost_zero
#define HOOKS_space_to_depth  .infer = infer_space_to_depth, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/nn/image.def"
#undef FL_OP
