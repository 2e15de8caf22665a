/*
 * onnx/norm.c - BatchNormalization, LayerNormalization and its variants,
 * Softmax/LogSoftmax (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

static fl_status cost_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 5);
}

/* Inference: a scale and a shift an element (2). Training (fl__ox_bn_training)
 * counts as TensorFlow's FusedBatchNorm in training does: 4 an element (the
 * batch mean and variance, then the normalisation) plus 11 a channel (the
 * inverse square root and the running averages). */
static fl_status cost_bn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    if (!fl__ox_bn_training(c->g, n)) {
        return fl__ox_cost_per_out(c, n, out, 2);
    }
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &n->outputs[0].shape;
    fl_sym ch = x->rank >= 2 ? x->dims[1] : fl_sym_unknown();
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, fl__ar_numel(&k, x), 4), fl__ar_scale(&k, ch, 11));
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_batch_norm(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st =
        fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    fl_sym ch = x->shape.rank >= 2 ? x->shape.dims[1] : fl_sym_unknown();
    /* The statistics outputs have the mean input's type: T through opset
     * 14, U (which may differ from X's T) from BatchNormalization-15. */
    int dt = n->n_inputs > 3 ? fl__ox_in_dtype(n, 3) : FL_DT_INVALID;
    dt = dt == FL_DT_INVALID ? (int)fl_dtype_base(x->dtype) : dt;
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, dt, 1, &ch);
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Normalisations                                                             */
/* ------------------------------------------------------------------------- */

/* Output 0 like X; further outputs (mean, inverse std dev) X.shape[:axis]
 * followed by ones. */
static fl_status infer_layer_norm(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int64_t axis = -1;
    fl_status st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    st = fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    if (st != FL_OK || n->n_outputs < 2) {
        return st;
    }
    fl_sym dims[256];
    int ax = 0;
    if (x->shape.rank >= 0) {
        if ((st = fl__ox_norm_axis(c, n, axis, x->shape.rank, "attr 'axis'", &ax)) != FL_OK) {
            return st;
        }
        for (int i = 0; i < x->shape.rank; i++) {
            dims[i] = i < ax ? x->shape.dims[i] : fl_sym_const(1);
        }
    }
    /* Mean and the inverse std dev are of type U: stash_type's (float by
     * default) for LayerNormalization and the default-domain
     * SimplifiedLayerNormalization, always float for SkipLayerNormalization. */
    fl_dtype stash = FL_DT_FLOAT;
    if (n->kind != FL_OP_ONNX_MS_SKIP_LAYER_NORM) {
        int64_t t = 1;
        if ((st = fl__attr_int_or(n, "stash_type", 1, &t, c->d)) != FL_OK) {
            return st;
        }
        stash = t == (int32_t)t ? fl__onnx_dtype((int32_t)t) : FL_DT_INVALID;
        if (stash != FL_DT_FLOAT && stash != FL_DT_BFLOAT16 && stash != FL_DT_HALF &&
            stash != FL_DT_DOUBLE) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'stash_type' is %lld (float 1, bfloat16 16, float16 10 "
                                 "or double 11)",
                                 (long long)t);
        }
    }
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        /* SkipLayerNormalization's 4th output is the sum input + skip (+ bias). */
        bool full = n->kind == FL_OP_ONNX_MS_SKIP_LAYER_NORM && k == 3;
        fl_dtype dt = full ? fl_dtype_base(x->dtype) : stash;
        st = fl__op_set_output(c, n, k, dt, x->shape.rank, full ? x->shape.dims : dims);
    }
    return st;
}

static fl_status cost_layer_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t axis = -1;
    fl_status st = FL_OK;
    if (n->kind != FL_OP_ONNX_MS_SKIP_LAYER_NORM) {
        st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    }
    int ax = 0;
    if (st == FL_OK && x->rank >= 0) {
        st = fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, x);
    fl_sym rows = x->rank >= 0 ? fl__ar_dims_prod(&k, x, 0, ax) : fl_sym_unknown();
    int64_t per;
    switch (n->kind) {
    case FL_OP_ONNX_SIMPLIFIED_LAYER_NORM:
    case FL_OP_ONNX_RMS_NORM:
        per = 4;
        break;
    case FL_OP_ONNX_MS_SKIP_LAYER_NORM:
        /* skip add, layer norm with gamma, optional beta (input 3) and
         * bias (input 4) */
        per = 1 + 6 + !fl__ox_absent(n, 3) + !fl__ox_absent(n, 4);
        break;
    default:
        per = 6 + !fl__ox_absent(n, 2);
        break;
    }
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, e, per), fl__ar_scale(&k, rows, 2));
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* Hook sets and descriptors (their rows: norm.def). */
#define HOOKS_batch_norm .infer = infer_batch_norm, .cost = cost_bn
#define HOOKS_layer_norm .infer = infer_layer_norm, .cost = cost_layer_norm
#define HOOKS_softmax    .infer = fl__ox_infer_same, .cost = cost_softmax

#define FL_OP FL_OP_DESC
#include "ops/onnx/norm.def"
#undef FL_OP
