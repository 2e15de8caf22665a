/*
 * opset27.c - ai.onnx operators new in opsets 27 and 28:
 * CausalConvWithState (27) and SwiGLU (28).
 *
 * Shapes (ONNX's operator docs):
 *   CausalConvWithState  input (B, C, L), weight (C, 1, k) (depthwise),
 *                        bias (C, optional), past_state (B, C, k - 1,
 *                        optional); output input's shape, present_state (B,
 *                        C, k - 1). attr activation 'silu', 'swish' or
 *                        'none' (default).
 *   SwiGLU               A and B of identical shapes (no broadcasting);
 *                        output that shape.
 * Inputs of the wrong rank, dims that disagree and an unknown activation
 * fail naming the node and the input or attribute.
 *
 * FLOP rules ("complete" convention, E = element count of the output):
 *   CausalConvWithState  MACs = B * C * L * k (each output position a
 *                        k-tap dot product over the past and current
 *                        positions: the state's concatenation is data
 *                        movement); FLOPs = 2 * MACs + E with bias + E with
 *                        a silu/swish activation (1 per element, as
 *                        onnx::Swish)
 *   SwiGLU               2 * E: Swish of A (1 per element, as onnx::Swish)
 *                        and the multiply by B
 */
#include "ops/onnxops/util.h"

#include <string.h>

typedef struct cc_dims {
    fl_sym b, ch, l, k1;
} cc_dims;

/* Input i (when given and of known rank) has rank `rank` and its known
 * dims equal want[] (known entries). */
static fl_status check_in(fl_ctx *c, const fl_node *n, int i, const char *what, int rank,
                          const fl_sym *want) {
    if (fl__ox_absent(n, i)) {
        return FL_OK;
    }
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank < 0) {
        return FL_OK;
    }
    if (s->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i, what,
                             s->rank, rank);
    }
    for (int k = 0; k < rank; k++) {
        fl_sym got = s->dims[k];
        if (fl_sym_is_known(got) && fl_sym_is_known(want[k]) && got.k != want[k].k) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has dim %d of %lld, want %lld",
                                 i, what, k, (long long)got.k, (long long)want[k].k);
        }
    }
    return FL_OK;
}

static fl_status cc_read(fl_ctx *c, const fl_node *n, cc_dims *a, bool *act) {
    static const char *const acts[] = {"none", "silu", "swish", NULL};
    int i;
    fl_status st = fl__ox_attr_pick(c, n, "activation", "none", acts, &i);
    if (st != FL_OK) {
        return st;
    }
    *act = i != 0;
    const fl_shape *x = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 1);
    fl_sym any[3] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    if ((st = check_in(c, n, 0, "input", 3, any)) != FL_OK) {
        return st;
    }
    a->b = fl__shape_dim(x, 0);
    a->ch = fl__shape_dim(x, 1);
    a->l = fl__shape_dim(x, 2);
    fl_sym wd[3] = {a->ch, fl_sym_const(1), fl_sym_unknown()};
    if ((st = check_in(c, n, 1, "weight", 3, wd)) != FL_OK) {
        return st;
    }
    fl_sym k = fl__shape_dim(w, 2);
    a->k1 = fl_sym_is_known(k) ? fl_sym_const(k.k - 1) : fl_sym_unknown();
    if (fl_sym_is_known(k) && k.k < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (weight) has kernel size %lld",
                             (long long)k.k);
    }
    fl_sym pd[3] = {a->b, a->ch, a->k1};
    if ((st = check_in(c, n, 2, "bias", 1, &a->ch)) != FL_OK) {
        return st;
    }
    return check_in(c, n, 3, "past_state", 3, pd);
}

static fl_status infer_causal_conv(fl_ctx *c, fl_node *n) {
    cc_dims a;
    bool act;
    fl_status st = cc_read(c, n, &a, &act);
    int dt = fl__ox_in_dtype(n, 0);
    if (st != FL_OK ||
        (st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.ch, a.l})) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 1, dt, 3, (fl_sym[]){a.b, a.ch, a.k1});
}

static fl_status cost_causal_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    cc_dims a;
    bool act;
    fl_status st = cc_read(c, n, &a, &act);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_mul(&k, fl__ar_mul(&k, a.b, a.ch), a.l);
    fl_sym taps = fl__shape_dim(fl__op_in_shape(n, 1), 2);
    fl_sym macs = fl__ar_mul(&k, e, taps);
    int64_t per = !fl__ox_absent(n, 2) + act;
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, e, per));
    return fl__ar_put_cost(&k, out, flops, macs);
}

static fl_status infer_swiglu(fl_ctx *c, fl_node *n) {
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    bool differ = a->rank >= 0 && b->rank >= 0 && a->rank != b->rank;
    for (int i = 0; !differ && a->rank >= 0 && b->rank >= 0 && i < a->rank; i++) {
        differ = fl_sym_is_known(a->dims[i]) && fl_sym_is_known(b->dims[i]) &&
                 a->dims[i].k != b->dims[i].k;
    }
    if (differ) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (B)'s shape differs from input 0 (A)'s (SwiGLU does not "
                             "broadcast)");
    }
    const fl_shape *s = a->rank >= 0 ? a : b;
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), s->rank, s->dims);
}

static fl_status cost_swiglu(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 2);
}

/* clang-format off */
#define HOOKS_causal_conv .infer = infer_causal_conv, .cost = cost_causal_conv
#define HOOKS_swiglu      .infer = infer_swiglu, .cost = cost_swiglu
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxops/opset27.def"
#undef FL_OP
