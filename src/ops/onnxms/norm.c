/*
 * norm.c - ONNX Runtime contrib normalisations (domain com.microsoft):
 * SkipSimplifiedLayerNormalization, the residual add fused with an RMS norm
 * over the last axis, as ORT's optimiser writes it for LLaMA-style decoders;
 * GroupNorm and SkipGroupNorm (diffusion UNets).
 * (SkipLayerNormalization and the default-domain SimplifiedLayerNormalization
 * are in src/ops/onnx.c.)
 *
 * Shapes (ORT's contrib op schema): inputs input (B, S, H) (rank 2 or 3),
 * skip (same shape, or its trailing dims), gamma (H), bias (H, optional);
 * outputs output (input's shape and dtype), mean (unused by ORT; input's
 * leading dims then 1), inv_std_var (leading dims then 1, float),
 * input_skip_bias_sum (input's shape and dtype). A gamma, bias or skip whose
 * last dim is not H, or an input of rank < 2, fails naming the node and input.
 *
 * FLOP rule ("complete" convention, E = element count of input, R = E / H
 * rows, no MACs): what the unfused chain counts in foldline: the skip Add E,
 * the bias Add E when bias is given, and SimplifiedLayerNormalization over the
 * last axis 4 * E + 2 * R (Pow, ReduceMean, Add eps, Sqrt, Div, Mul with
 * gamma; see onnx.c): 5 * E + 2 * R, + E with bias.
 *
 * GroupNorm and SkipGroupNorm, the group normalisation of Stable Diffusion's
 * UNet as ORT's transformer optimiser writes it: X (N, H, W, C) with attr
 * channels_last 1 (the default), else (N, C, H, W); attrs groups (> 0,
 * dividing C) and activation (0 none, 1 SiLU) required; gamma, beta (C).
 * SkipGroupNorm adds skip ((N, H, W, C), (N, 1, 1, C) or (N, C)) and bias
 * (C, optional) first; outputs Y and S (the sum), X's shape and dtype.
 * FLOPs: onnx GroupNormalization's 8 * E(X), + E(X) with SiLU (one
 * activation per element), SkipGroupNorm + E(X) for the skip add and + E(X)
 * with bias. A channel count the groups do not divide, a gamma, beta or bias
 * of another length, an X not 4-D and an activation other than 0 or 1 fail
 * naming the node and the input or attr.
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

static const char *const in_names[] = {"input", "skip", "gamma", "bias"};

static fl_status infer_skip_rms_norm(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    const fl_shape *xs = &x->shape;
    int dt = fl_dtype_base(x->dtype);
    if (xs->rank >= 0 && xs->rank < 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (input) has rank %d, want 2 or 3",
                             xs->rank);
    }
    fl_status st = FL_OK;
    for (int i = 1; i < n->n_inputs && i < 4 && st == FL_OK && xs->rank >= 0; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        if (fl__ox_absent(n, i) || s->rank < 0) {
            continue;
        }
        if ((i >= 2 && s->rank != 1) || s->rank < 1 || s->rank > xs->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %s", i,
                                 in_names[i], s->rank, i >= 2 ? "1" : "at most input's");
        }
        char what[64];
        snprintf(what, sizeof what, "input %d (%s)'s last dim and input 0's", i, in_names[i]);
        fl_sym m;
        st = fl__op_merge_dim(c, n, s->dims[s->rank - 1], xs->dims[xs->rank - 1], what, &m);
    }
    if (st != FL_OK || (st = fl__op_set_output(c, n, 0, dt, xs->rank, xs->dims)) != FL_OK) {
        return st;
    }
    fl_sym stat[8];
    int r = xs->rank > 8 ? -1 : xs->rank;
    for (int i = 0; i < r; i++) {
        stat[i] = i < r - 1 ? xs->dims[i] : fl_sym_const(1);
    }
    if ((st = fl__ox_set_out(c, n, 1, FL_DT_FLOAT, r, stat)) != FL_OK ||
        (st = fl__ox_set_out(c, n, 2, FL_DT_FLOAT, r, stat)) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 3, dt, xs->rank, xs->dims);
}

static fl_status cost_skip_rms_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym e = fl__ar_numel(&k, x);
    fl_sym rows = x->rank >= 1 ? fl__ar_dims_prod(&k, x, 0, x->rank - 1) : fl_sym_unknown();
    int64_t per = 1 + 4 + !fl__ox_absent(n, 3);
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, e, per), fl__ar_scale(&k, rows, 2));
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* GroupNorm, SkipGroupNorm                                                   */
/* ------------------------------------------------------------------------- */

static const char *const gn_names[] = {"X", "gamma", "beta", "skip", "bias"};
static const char *const gn_what[] = {"", "the channels of input 0 (X) and input 1 (gamma)",
                                      "the channels of input 0 (X) and input 2 (beta)",
                                      "the channels of input 0 (X) and input 3 (skip)",
                                      "the channels of input 0 (X) and input 4 (bias)"};

/* Input i (when given and of known rank) has a rank in [lo, hi] and its last
 * dim merges with the channel count ch. */
static fl_status gn_check_in(fl_ctx *c, const fl_node *n, int i, int lo, int hi, fl_sym ch) {
    if (i >= n->n_inputs || fl__ox_absent(n, i) || fl__op_in_shape(n, i)->rank < 0) {
        return FL_OK;
    }
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank < lo || s->rank > hi) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %s", i,
                             gn_names[i], s->rank, lo == hi ? "1 (C)" : "2 or 4");
    }
    fl_sym m;
    return fl__op_merge_dim(c, n, ch, s->dims[s->rank - 1], gn_what[i], &m);
}

/* Attrs and shapes; *per the FLOPs per element of X (see the header). */
static fl_status gn_read(fl_ctx *c, const fl_node *n, int64_t *per) {
    int64_t groups, act, last;
    fl_status st;
    if ((st = fl__attr_need_pos_int(n, "groups", &groups, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "activation", &act, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "channels_last", 1, &last, c->d)) != FL_OK) {
        return st;
    }
    if (act != 0 && act != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'activation' is %lld, want 0 (none) or 1 (SiLU)",
                             (long long)act);
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank >= 0 && x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 4 (%s)", x->rank,
                             last ? "N, H, W, C" : "N, C, H, W");
    }
    fl_sym ch = x->rank == 4 ? x->dims[last ? 3 : 1] : fl_sym_unknown();
    if (fl_sym_is_known(ch) && ch.k % groups != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (X) has %lld channels, not a multiple of attr 'groups' %lld",
                             (long long)ch.k, (long long)groups);
    }
    bool skip = n->kind == FL_OP_ONNX_MS_SKIP_GROUP_NORM;
    if ((st = gn_check_in(c, n, 1, 1, 1, ch)) != FL_OK ||
        (st = gn_check_in(c, n, 2, 1, 1, ch)) != FL_OK ||
        (skip && (st = gn_check_in(c, n, 3, 2, 4, last ? ch : fl_sym_unknown())) != FL_OK) ||
        (skip && (st = gn_check_in(c, n, 4, 1, 1, ch)) != FL_OK)) {
        return st;
    }
    *per = 8 + act + (skip ? 1 + !fl__ox_absent(n, 4) : 0);
    return FL_OK;
}

static fl_status infer_group_norm(fl_ctx *c, fl_node *n) {
    int64_t per = 0;
    fl_status st = gn_read(c, n, &per);
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_group_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t per = 0;
    fl_status st = gn_read(c, n, &per);
    return st == FL_OK ? fl__ox_cost_per_in(c, n, out, per) : st;
}

/* clang-format off */
#define HOOKS_skip_rms_norm .infer = infer_skip_rms_norm, .cost = cost_skip_rms_norm
#define HOOKS_group_norm    .infer = infer_group_norm, .cost = cost_group_norm
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/norm.def"
#undef FL_OP
