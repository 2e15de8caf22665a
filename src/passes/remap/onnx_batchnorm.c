/*
 * onnx_batchnorm.c - the remapper's Conv + batch norm rule (standard row 4,
 * FindConv2DWithBatchNorm) over ONNX operators, and the ONNX node helpers the
 * onnx_*.c rule files share.
 *
 * TensorFlow fuses Conv2D + FusedBatchNorm into _FusedConv2D, whose kernel
 * applies the per-channel factors at run time. ONNX has no such operator:
 * the same rewrite is the Conv absorbing the batch norm into its weights and
 * bias (what ONNX Runtime's ConvBNFusion does), so the result is a plain Conv
 * any runtime loads. Ledger rule: conv2d_batch_norm.
 *
 *   BatchNormalization(Conv(X, W[, B]), scale, bias, mean, var)   =>
 *   Conv(X, W', B') named after the batch norm, with
 *     f[o]  = scale[o] / sqrt(var[o] + epsilon)
 *     W'[o, ...] = W[o, ...] * f[o]
 *     B'[o] = (B[o] - mean[o]) * f[o] + bias[o]   (B[o] = 0 without B)
 *
 * Conditions: the batch norm in inference mode (fl__ox_bn_training: not
 * training_mode 1, no statistics outputs at opsets 7-13, is_test 1 before
 * opset 7), only its output 0 read, no control edges; the Conv read only by the batch
 * norm, not a graph output; W, B and the four batch-norm inputs constants
 * (initializers or Constant nodes) of one float dtype; W's dim 0 and the
 * batch-norm inputs' length the same known M.
 *
 * Values. W' and B' are computed (float and double) when every constant
 * they depend on has its content and the new tensor is within
 * --max-folded-bytes (the constant folding limit); otherwise the new
 * constant is a stripped constant of the same dtype and shape (cost analysis
 * needs the shape only; the ledger says which). The new constants are named
 * <batch norm>/folded_weights and <batch norm>/folded_bias; the old ones are
 * dropped when nothing else reads them.
 *
 * Write-back names: a node a rule builds in place of an ONNX node carries
 * that node's NodeProto as `src`, so the ONNX writer gives its outputs the
 * replaced node's value names (graph outputs keep theirs).
 */
#include "ops/onnxops/util.h"
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

fl_node *fl__rm_onnx_replace(rctx *r, fl_node *root, int kind, int n_inputs,
                             const fl_input *inputs) {
    const char *q = fl__op_name(kind);
    const char *sep = strstr(q, "::");
    const struct fl_op_desc *desc = fl__op_desc_of(kind);
    int n_out = desc && desc->n_outputs > 0 ? desc->n_outputs : 1;
    fl_node *f =
        fl__rm_replace_root(r, root, sep ? sep + 2 : q, root->device, n_inputs, inputs, n_out);
    if (f) {
        fl__op_bind_kind(f, kind);
        f->src = root->src;
    }
    return f;
}

void fl__rm_onnx_copy_attrs(rctx *r, fl_node *dst, const fl_node *src) {
    for (int i = 0; i < src->n_attrs; i++) {
        fl__rm_set_attr(r, dst, src->attrs[i]);
    }
}

bool fl__rm_onnx_const(const fl_node *n) {
    return fl__is_const(n) && n->n_outputs == 1 && fl__shape_is_concrete(&n->outputs[0].shape);
}

const fl_value *fl__rm_onnx_value(const fl_node *n) {
    if (!fl__is_const(n) || (n->flags & FL_NODE_STRIPPED)) {
        return NULL;
    }
    const fl_value *v = n->outputs[0].value;
    return v && fl__value_is_concrete(v) ? v : NULL;
}

void fl__rm_onnx_drop_if_unused(rctx *r, fl_node *n) {
    if (n && !fl__rm_is_removed(n) && n->id < r->n0 && !fl__preserved(n) &&
        fl__uses_total(&r->uses, n) <= 1 && !fl__rm_has_ctrl(r, n)) {
        fl__rm_drop(r, n);
    }
}

fl_node *fl__rm_onnx_new_const(rctx *r, const fl_node *owner, const char *suffix, int dtype,
                               int rank, const int64_t *dims, const fl_value *v) {
    fl_node *k = fl__rm_add_extra(r, owner->name, suffix, fl__op_name(FL_OP_CONST), "", 0, NULL);
    if (!k) {
        return NULL;
    }
    fl_attr value = fl__attr_make_tensor(r->g, "value", dtype, rank, dims, v);
    fl_attr dt = fl__attr_make_type(r->g, "dtype", dtype);
    if (!value.name || !value.v.tensor || !dt.name) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    fl__rm_set_attr(r, k, dt);
    fl__rm_set_attr(r, k, value);
    if (!v) {
        k->flags |= FL_NODE_STRIPPED;
        fl__rm_set_attr(r, k,
                        fl__attr_make_int(r->g, "_stripped_content_bytes",
                                          (int64_t)value.v.tensor->content_bytes));
    }
    if (r->st == FL_OK && fl__infer_node(r->pc, k) != FL_OK) {
        r->st = r->d->status != FL_OK ? r->d->status : FL_EINTERNAL;
        return NULL;
    }
    return k;
}

/* The batch norm's per-channel inputs (scale, bias, mean, var): Consts of
 * dtype dt, 1-D of length m. */
static bool bn_params_ok(const fl_node *bn, int dt, int64_t m) {
    for (int i = 1; i < 5; i++) {
        const fl_node *k = fl__rm_in_node(bn, i);
        if (!fl__rm_onnx_const(k) || bn->inputs[i].port != 0) {
            return false;
        }
        const fl_tensor *t = &k->outputs[0];
        if ((int)t->dtype != dt || t->shape.rank != 1 || t->shape.dims[0].k != m) {
            return false;
        }
    }
    return true;
}

/* match: see the header. */
static bool match_onnx_conv_bn(const rctx *r, const fl_node *bn, fl_node **conv) {
    if (bn->kind != FL_OP_ONNX_BATCH_NORM || bn->n_inputs != 5 || fl__rm_has_ctrl(r, bn) ||
        fl__ox_bn_training(r->g, bn) || fl__rm_fanout_beyond0(r, bn)) {
        return false;
    }
    fl_node *c = fl__rm_in_node(bn, 0);
    if (fl__rm_is_removed(c) || c->kind != FL_OP_ONNX_CONV || c->n_inputs < 2 ||
        bn->inputs[0].port != 0 || fl__rm_has_ctrl(r, c) || fl__rm_fanout(r, c, 0) != 1 ||
        fl__preserved(c)) {
        return false;
    }
    const fl_node *w = fl__rm_in_node(c, 1);
    if (!fl__rm_onnx_const(w) || c->inputs[1].port != 0) {
        return false;
    }
    const fl_tensor *wt = &w->outputs[0];
    int dt = wt->dtype;
    if ((dt != FL_DT_FLOAT && dt != FL_DT_DOUBLE && dt != FL_DT_HALF) || wt->shape.rank < 1 ||
        wt->shape.rank > FL_RM_ONNX_MAX_RANK) {
        return false;
    }
    int64_t m = wt->shape.dims[0].k;
    if (c->n_inputs == 3) {
        const fl_node *b = fl__rm_in_node(c, 2);
        if (!fl__rm_onnx_const(b) || c->inputs[2].port != 0 || (int)b->outputs[0].dtype != dt ||
            b->outputs[0].shape.rank != 1 || b->outputs[0].shape.dims[0].k != m) {
            return false;
        }
    }
    if (!bn_params_ok(bn, dt, m)) {
        return false;
    }
    *conv = c;
    return true;
}

/* Elements are read and written in runs of up to RUN doubles (a float
 * value's run is one loop, not a call per element). */
enum { RUN = 256 };

static int64_t run_len(int64_t left) {
    return left < RUN ? left : RUN;
}

/* f[o] for every channel into f (m entries); false when a value is
 * missing. */
static bool bn_factors(const fl_node *bn, int64_t m, double eps, double *f) {
    const fl_value *scale = fl__rm_onnx_value(fl__rm_in_node(bn, 1));
    const fl_value *var = fl__rm_onnx_value(fl__rm_in_node(bn, 4));
    if (!scale || !var) {
        return false;
    }
    double s[RUN], v[RUN];
    for (int64_t o = 0; o < m; o += RUN) {
        int64_t n = run_len(m - o);
        if (!fl__value_f64_run(scale, o, n, s) || !fl__value_f64_run(var, o, n, v)) {
            return false;
        }
        for (int64_t k = 0; k < n; k++) {
            f[o + k] = s[k] / sqrt(v[k] + eps);
        }
    }
    return true;
}

/* W' (NULL: not computable or over the limit; *over says which). */
static const fl_value *fold_weights(rctx *r, const fl_node *w, const double *f, int64_t m,
                                    bool *over) {
    const fl_tensor *t = &w->outputs[0];
    const fl_value *wv = fl__rm_onnx_value(w);
    uint64_t bytes = fl__dtype_size(t->dtype);
    for (int i = 0; i < t->shape.rank; i++) {
        bytes *= (uint64_t)t->shape.dims[i].k;
    }
    *over = bytes > (uint64_t)r->pc->opt->max_folded_bytes;
    if (!wv || !f || *over || m <= 0 || wv->n % m != 0) {
        return NULL;
    }
    fl_value *nv = fl__value_new(r->g->arena, wv->dtype, wv->rank, wv->dims);
    if (!nv) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    /* output channel o's elements are [o * per, (o + 1) * per) */
    int64_t per = wv->n / m;
    double x[RUN];
    for (int64_t o = 0; o < m; o++) {
        for (int64_t j = 0; j < per; j += RUN) {
            int64_t i = o * per + j, n = run_len(per - j);
            if (!fl__value_f64_run(wv, i, n, x)) {
                return NULL;
            }
            for (int64_t k = 0; k < n; k++) {
                x[k] *= f[o];
            }
            fl__value_set_f64_run(nv, i, n, x);
        }
    }
    return nv;
}

/* B' (NULL when an input has no content). */
static const fl_value *fold_bias(rctx *r, const fl_node *c, const fl_node *bn, const double *f,
                                 int64_t m, int dt) {
    const fl_value *b = c->n_inputs == 3 ? fl__rm_onnx_value(fl__rm_in_node(c, 2)) : NULL;
    const fl_value *off = fl__rm_onnx_value(fl__rm_in_node(bn, 2));
    const fl_value *mean = fl__rm_onnx_value(fl__rm_in_node(bn, 3));
    if (!f || !off || !mean || (c->n_inputs == 3 && !b)) {
        return NULL;
    }
    fl_value *nv = fl__value_new(r->g->arena, dt, 1, &m);
    if (!nv) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    double bo[RUN] = {0}, of[RUN], mo[RUN];
    for (int64_t o = 0; o < m; o += RUN) {
        int64_t n = run_len(m - o);
        if ((b && !fl__value_f64_run(b, o, n, bo)) || !fl__value_f64_run(off, o, n, of) ||
            !fl__value_f64_run(mean, o, n, mo)) {
            return NULL;
        }
        for (int64_t k = 0; k < n; k++) {
            of[k] = (bo[k] - mo[k]) * f[o + k] + of[k];
        }
        fl__value_set_f64_run(nv, o, n, of);
    }
    return nv;
}

bool fl__rm_onnx_conv_bn(rctx *r, fl_node *bn) {
    fl_node *c;
    if (!match_onnx_conv_bn(r, bn, &c)) {
        return false;
    }
    fl_node *w = fl__rm_in_node(c, 1);
    const fl_tensor *wt = &w->outputs[0];
    int dt = wt->dtype, rank = wt->shape.rank;
    int64_t m = wt->shape.dims[0].k, wdims[FL_RM_ONNX_MAX_RANK];
    for (int i = 0; i < rank && i < FL_RM_ONNX_MAX_RANK; i++) {
        wdims[i] = wt->shape.dims[i].k;
    }
    /* the factors, when the scale and variance have values (a stripped
     * model's wide batch norms have none: nothing allocated for them) */
    double *f = NULL;
    if (m > 0 && fl__rm_onnx_value(fl__rm_in_node(bn, 1)) &&
        fl__rm_onnx_value(fl__rm_in_node(bn, 4))) {
        f = fl__arena_calloc(r->g->arena, (size_t)m, sizeof(double));
        if (!f) {
            fl__rm_fail_oom(r);
            return false;
        }
        if (!bn_factors(bn, m, fl__attr_float(bn, "epsilon", 1e-5f), f)) {
            f = NULL;
        }
    }
    bool over = false;
    const fl_value *wv = fold_weights(r, w, f, m, &over);
    const fl_value *bv = fold_bias(r, c, bn, f, m, dt);
    fl__ledger_note(
        r->pc, "conv2d_batch_norm", bn,
        "Conv+BatchNormalization -> Conv (weights and bias absorb the batch norm%s%s%s)",
        wv     ? ""
        : over ? "; weights over "
               : "; some constants stripped: folded values not computed",
        wv || !over ? "" : fl__diag_opt(r->d, "--max-folded-bytes", "options.max_folded_bytes"),
        wv || !over ? "" : ": folded weights not computed");
    fl_node *nw = fl__rm_onnx_new_const(r, bn, "folded_weights", dt, rank, wdims, wv);
    fl_node *nb = nw ? fl__rm_onnx_new_const(r, bn, "folded_bias", dt, 1, &m, bv) : NULL;
    if (!nb) {
        return false;
    }
    fl_input in[3] = {c->inputs[0], {nw, 0}, {nb, 0}};
    fl_node *old_b = c->n_inputs == 3 ? fl__rm_in_node(c, 2) : NULL;
    fl_node *params[4];
    for (int i = 0; i < 4; i++) {
        params[i] = fl__rm_in_node(bn, i + 1);
    }
    fl_node *nc = fl__rm_onnx_replace(r, bn, FL_OP_ONNX_CONV, 3, in);
    if (!nc) {
        return false;
    }
    fl__rm_onnx_copy_attrs(r, nc, c);
    fl__rm_drop(r, c);
    fl__rm_onnx_drop_if_unused(r, w);
    fl__rm_onnx_drop_if_unused(r, old_b);
    for (int i = 0; i < 4; i++) {
        bool dup = false;
        for (int k = 0; k < i; k++) {
            dup |= params[k] == params[i];
        }
        if (!dup) {
            fl__rm_onnx_drop_if_unused(r, params[i]);
        }
    }
    return r->st == FL_OK;
}
