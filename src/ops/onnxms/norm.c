/*
 * norm.c - ONNX Runtime contrib normalisations (domain com.microsoft):
 * SkipSimplifiedLayerNormalization, the residual add fused with an RMS norm
 * over the last axis, as ORT's optimiser writes it for LLaMA-style decoders.
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

/* clang-format off */
#define HOOKS_skip_rms_norm .infer = infer_skip_rms_norm, .cost = cost_skip_rms_norm
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/norm.def"
#undef FL_OP
