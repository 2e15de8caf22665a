/*
 * moe.c - ONNX Runtime's contrib mixture of experts (domain com.microsoft):
 * MoE and QMoE, the expert layers of Mixtral/Phi-MoE/DeepSeek-style models
 * as ORT's builders write them.
 *
 * Shapes (ORT's contrib op schemas): input (T, H) or (B, S, H), T tokens
 * (B * S); router_probs (T, E) for E experts; fc1_experts_weights (E, f *
 * I, H) with f = 2 for SwiGLU fused into FC1 (attr activation_type "swiglu"
 * and swiglu_fusion 1 or 2), else 1; fc2_experts_weights (E, H, I);
 * fc3_experts_weights (E, I, H) optional (SwiGLU's second GEMM when not
 * fused). QMoE stores the weights packed, 8 / expert_weight_bits (2, 4 or 8
 * bits, default 4) to a byte along the last dim: fc1 (E, f * I, H / pack),
 * fc2 (E, H, I / pack), fc3 (E, I, H / pack). Inputs: MoE input 0, router
 * 1, fc1 2, fc1 bias 3, fc2 4, fc2 bias 5, fc3 6, fc3 bias 7; QMoE input
 * 0, router 1, fc1 2, fc1 scales 3, fc1 bias 4, fc2 5, fc2 scales 6, fc2
 * bias 7, fc3 8, fc3 scales 9, fc3 bias 10, then zero points, router
 * weights and the FP4/FP8 scales. output: input's shape and type.
 * The older layout ORT's kernels still run (exports made before the layout
 * changed) transposes each expert's matrix: fc1 (E, H, f * I / pack), fc2
 * (E, I, H / pack), fc3 (E, H, I / pack). It is told apart as ORT tells it:
 * I = fc2's dims 1 and 2 multiplied (unpacked) over H, the same in both
 * layouts; the older layout when H != I and fc2's dim 1 is I, or when H == I,
 * SwiGLU is fused and fc1's dim 1 is H. Unknown dims read the documented
 * layout. The counts below are the same in both. A missing
 * or non-positive k, k above E, an unknown activation_type, and weights of
 * the wrong rank or disagreeing with H, I or E fail naming the node and the
 * attribute or input.
 *
 * FLOP rule ("complete" convention). Each token runs the k experts its
 * router picks (attr k), so the expert work is that of R = T * k routed
 * rows, whatever experts they pick (an expert no token picks costs
 * nothing; which experts run is data, how many is not):
 *   MACs  = R * H * I * (f + 1 [+ 1 with fc3])      FC1, FC2 (and FC3)
 *   FLOPs = 2 * MACs
 *         + R * (f * I [fc1 bias] + H [fc2 bias] + I [fc3 bias]) the biases given
 *         + R * I * a    the activation: relu, gelu, silu 1 (as their ONNX
 *                        ops), identity 0, swiglu 5 (alpha * G, sigmoid, two
 *                        multiplies, + beta) + 3 with attr swiglu_limit (the
 *                        clamps of G and L)
 *         + R * 2 * H    each expert's output weighted and summed into the token's
 *         + T * E * 5    the router's softmax over the experts (onnx
 *                        Softmax's 5 per element); the top-k pick's
 *                        compares are not counted
 *         + 2 * R        with normalize_routing_weights (sum and divide)
 * QMoE counts the same MACs and FLOPs on its unpacked sizes (the GEMMs
 * run on dequantized weights or activations); dequantising the weights is
 * not counted, as it depends on which experts run. Bytes are the generic
 * rule's: every expert's weights are counted as read, an upper bound when
 * some expert is not picked.
 */
#include "ops/onnxops/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct moe_dims {
    fl_sym t, h, inter, experts;
    int64_t k, fusion, act;
    bool fc3;
} moe_dims;

typedef struct moe_idx {
    int fc1, fc1_bias, fc2, fc2_bias, fc3, fc3_bias;
} moe_idx;

static const moe_idx *moe_index(const fl_node *n) {
    static const moe_idx moe = {2, 3, 4, 5, 6, 7}, qmoe = {2, 4, 5, 7, 8, 10};
    return n->kind == FL_OP_ONNX_MS_QMOE ? &qmoe : &moe;
}

/* Activation FLOPs per intermediate element and the FC1 fusion factor. */
static fl_status moe_activation(fl_ctx *c, const fl_node *n, moe_dims *a) {
    /* In the order of acts. */
    enum { ACT_RELU, ACT_GELU, ACT_SILU, ACT_SWIGLU, ACT_IDENTITY };
    static const char *const acts[] = {"relu", "gelu", "silu", "swiglu", "identity", NULL};
    int act;
    int64_t fusion = 0;
    float limit;
    fl_status st = fl__ox_attr_pick(c, n, "activation_type", "relu", acts, &act);
    if (st != FL_OK || (st = fl__attr_int_or(n, "swiglu_fusion", 0, &fusion, c->d)) != FL_OK) {
        return st;
    }
    a->fusion = 1;
    if (act == ACT_IDENTITY) {
        a->act = 0;
    } else if (act == ACT_SWIGLU) {
        if ((st = fl__attr_float_or(n, "swiglu_limit", HUGE_VALF, &limit, c->d)) != FL_OK) {
            return st;
        }
        a->act = isfinite(limit) ? 8 : 5;
        a->fusion = fusion == 1 || fusion == 2 ? 2 : 1;
        if (a->fusion == 1 && !a->fc3) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'activation_type' swiglu with attr 'swiglu_fusion' %lld "
                                 "needs fc3_experts_weights",
                                 (long long)fusion);
        }
    } else { /* relu, gelu, silu */
        a->act = 1;
    }
    return FL_OK;
}

/* Input i: rank 3 (experts, rows, cols * pack); merges its dims into e,
 * rows, cols (pack divides the stored last dim back out). */
static fl_status moe_weight(fl_ctx *c, const fl_node *n, int i, const char *name, int64_t pack,
                            fl_sym *e, fl_sym *rows, fl_sym *cols) {
    const fl_shape *w = fl__op_in_shape(n, i);
    char what[96];
    fl_status st;
    if (w->rank < 0) {
        return FL_OK;
    }
    if (w->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want 3", i, name,
                             w->rank);
    }
    fl_sym last = fl__shape_dim(w, 2), unpacked = fl_sym_unknown();
    if (fl__op_mul(c, n, last, fl_sym_const(pack), &unpacked) != FL_OK) {
        return c->d->status;
    }
    snprintf(what, sizeof what, "input %d (%s)'s dim 0 and the experts", i, name);
    if ((st = fl__op_merge_dim(c, n, *e, fl__shape_dim(w, 0), what, e)) != FL_OK) {
        return st;
    }
    snprintf(what, sizeof what, "input %d (%s)'s dim 1", i, name);
    if ((st = fl__op_merge_dim(c, n, *rows, fl__shape_dim(w, 1), what, rows)) != FL_OK) {
        return st;
    }
    snprintf(what, sizeof what, "input %d (%s)'s dim 2 (unpacked)", i, name);
    return fl__op_merge_dim(c, n, *cols, unpacked, what, cols);
}

/* Whether the weights are in the older transposed layout (see the top). */
static bool moe_older_layout(const fl_node *n, const moe_idx *ix, const moe_dims *a, int64_t pack) {
    const fl_shape *w1 = fl__op_in_shape(n, ix->fc1), *w2 = fl__op_in_shape(n, ix->fc2);
    if (w2->rank != 3 || !fl_sym_is_known(a->h) || a->h.k <= 0) {
        return false;
    }
    fl_sym r2 = fl__shape_dim(w2, 1), c2 = fl__shape_dim(w2, 2);
    if (!fl_sym_is_known(r2) || !fl_sym_is_known(c2)) {
        return false;
    }
    fl_ck prod = fl_ck_mul(fl_ck_mul(fl_ck_of(r2.k), fl_ck_of(c2.k)), fl_ck_of(pack));
    if (prod.ovf) {
        return false;
    }
    int64_t inter = prod.v / a->h.k;
    if (inter != a->h.k) {
        return r2.k == inter;
    }
    fl_sym r1 = w1->rank == 3 ? fl__shape_dim(w1, 1) : fl_sym_unknown();
    return a->fusion == 2 && fl_sym_is_known(r1) && r1.k == a->h.k;
}

static fl_status moe_read(fl_ctx *c, const fl_node *n, moe_dims *a) {
    const moe_idx *ix = moe_index(n);
    const fl_shape *x = fl__op_in_shape(n, 0), *r = fl__op_in_shape(n, 1);
    int64_t bits = 8;
    fl_status st = fl__attr_need_pos_int(n, "k", &a->k, c->d);
    if (st == FL_OK && n->kind == FL_OP_ONNX_MS_QMOE) {
        st = fl__attr_int_or(n, "expert_weight_bits", 4, &bits, c->d);
        if (st == FL_OK && bits != 2 && bits != 4 && bits != 8) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'expert_weight_bits' is %lld, want 2, 4 "
                                 "or 8",
                                 (long long)bits);
        }
    }
    a->fc3 = !fl__ox_absent(n, ix->fc3);
    if (st != FL_OK || (st = moe_activation(c, n, a)) != FL_OK) {
        return st;
    }
    if (x->rank >= 0 && x->rank != 2 && x->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (input) has rank %d, want 2 or 3",
                             x->rank);
    }
    if (r->rank >= 0 && r->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (router_probs) has rank %d, want 2",
                             r->rank);
    }
    fl_arith k = {c, n, FL_OK};
    a->h = x->rank < 0 ? fl_sym_unknown() : fl__shape_dim(x, x->rank - 1);
    a->t = x->rank < 0 ? fl_sym_unknown() : fl__ar_dims_prod(&k, x, 0, x->rank - 1);
    if (k.st != FL_OK) {
        return k.st;
    }
    a->experts = fl__shape_dim(r, 1);
    a->inter = fl_sym_unknown();
    int64_t pack = 8 / bits;
    /* fc1's f * I dim, and each weight's two matrix dims in its layout's
     * order */
    fl_sym fc1_rows = fl_sym_unknown();
    bool older = moe_older_layout(n, ix, a, pack);
    fl_sym *d1[3] = {&fc1_rows, &a->h, &a->inter}, *d2[3] = {&a->h, &a->inter, &a->h};
    static const char *const names[2][3] = {
        {"fc1_experts_weights", "fc2_experts_weights", "fc3_experts_weights"},
        {"fc1_experts_weights, older layout (experts, hidden, inter)",
         "fc2_experts_weights, older layout (experts, inter, hidden)",
         "fc3_experts_weights, older layout (experts, hidden, inter)"}};
    const int idx[3] = {ix->fc1, ix->fc2, ix->fc3};
    for (int w = 0; w < (a->fc3 ? 3 : 2); w++) {
        fl_sym *rows = older ? d2[w] : d1[w], *cols = older ? d1[w] : d2[w];
        if ((st = moe_weight(c, n, idx[w], names[older][w], pack, &a->experts, rows, cols)) !=
            FL_OK) {
            return st;
        }
    }
    fl_sym want_rows = fl__ar_scale(&k, a->inter, a->fusion);
    if (fl_sym_is_known(want_rows) && fl_sym_is_known(fc1_rows) && want_rows.k != fc1_rows.k) {
        return fl__node_fail(
            c->d, FL_EINVAL, n, "input %d (%s) has %lld %s, want %lld (%lld * inter_size %lld)",
            ix->fc1, names[older][0], (long long)fc1_rows.k, older ? "columns" : "rows",
            (long long)want_rows.k, (long long)a->fusion, (long long)a->inter.k);
    }
    if (fl_sym_is_known(a->experts) && a->k > a->experts.k) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'k' %lld is more than the %lld experts",
                             (long long)a->k, (long long)a->experts.k);
    }
    return FL_OK;
}

static fl_status infer_moe(fl_ctx *c, fl_node *n) {
    moe_dims a;
    fl_status st = moe_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, x->dims);
}

static fl_status cost_moe(fl_ctx *c, const fl_node *n, fl_cost *out) {
    moe_dims a;
    fl_status st = moe_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    const moe_idx *ix = moe_index(n);
    fl_arith k = {c, n, FL_OK};
    int64_t normalize = 0;
    if ((st = fl__attr_int_or(n, "normalize_routing_weights", 0, &normalize, c->d)) != FL_OK) {
        return st;
    }
    fl_sym rows = fl__ar_scale(&k, a.t, a.k);
    fl_sym hi = fl__ar_mul(&k, a.h, a.inter);
    fl_sym macs = fl__ar_scale(&k, fl__ar_mul(&k, rows, hi), a.fusion + 1 + a.fc3);
    /* per routed row: biases, activation, the weighted sum into the token */
    fl_sym per_row = fl__ar_add(&k, fl__ar_scale(&k, a.inter, a.act), fl__ar_scale(&k, a.h, 2));
    if (!fl__ox_absent(n, ix->fc1_bias)) {
        per_row = fl__ar_add(&k, per_row, fl__ar_scale(&k, a.inter, a.fusion));
    }
    if (!fl__ox_absent(n, ix->fc2_bias)) {
        per_row = fl__ar_add(&k, per_row, a.h);
    }
    if (a.fc3 && !fl__ox_absent(n, ix->fc3_bias)) {
        per_row = fl__ar_add(&k, per_row, a.inter);
    }
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_mul(&k, rows, per_row));
    flops = fl__ar_add(&k, flops, fl__ar_scale(&k, fl__ar_mul(&k, a.t, a.experts), 5));
    if (normalize) {
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, rows, 2));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_moe .infer = infer_moe, .cost = cost_moe
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/moe.def"
#undef FL_OP
