/*
 * longformer.c - ONNX Runtime's contrib Longformer self-attention (domain
 * com.microsoft): LongformerAttention (float) and QOrderedLongformerAttention
 * (int8, cuBLASLt-ordered).
 *
 * Shapes (ORT's contrib op schemas, docs/ContribOperators.md), every input
 * required:
 *   LongformerAttention  input (B, S, H), weight (H, 3H), bias (3H), mask (B,
 *                    S), global_weight (H, 3H), global_bias (3H), global (B,
 *                    S) flags (1: the token attends globally).
 *   QOrderedLongformerAttention  input (B, S, H) int8, scale_input, weight
 *                    (H, 3H) int8, scale_weight, bias (3H), scale_bias,
 *                    scale_qkv_gemm, mask (B, S), global_weight (H, 3H) int8,
 *                    scale_global_weight, global_bias (3H),
 *                    scale_global_gemm, global (B, S), scale_output.
 *   attrs num_heads N (required, > 0, dividing H) and window W (required, >
 *   0, the one-sided window). Output (B, S, H), input's type. The weights
 *   may also be in the form ORT's kernels call format 0 (their input checks,
 *   shared by both ops): weight and global_weight (3, H, H), bias (5H: Q, K,
 *   V, global K, global V), global_bias (H: global Q); the format is the
 *   weight's rank, and both weights must have it. The counts do not depend
 *   on the format (the same six projections and bias adds). The schema asks
 *   for S to be a multiple of 2W (the input padded): a known S that is not
 *   fails naming input 0, as do an input of the wrong rank, a weight or bias
 *   whose dims are not those of its format and a mask or flags not (B, S).
 *   ONNX Runtime's CPU execution provider has no kernel for either op (CUDA
 *   only); tests/tools/longformer_ort.py checks these shapes and dtypes
 *   against the type and shape inference ORT applies when it loads a model.
 *
 * Counting rule (the definition, not a kernel): with d = H / N,
 *   projections     the local and the global Q/K/V projections, both over all
 *                   B * S tokens: 2 * B * S * H * 3H MACs;
 *   local band      query i attends the keys j with |i - j| <= W, truncated at
 *                   the borders: per batch and head sum_i (min(i + W, S - 1) -
 *                   max(i - W, 0) + 1) = S * (2W + 1) - W * (W + 1) scores
 *                   (valid for S > W, which every legal S >= 2W is; so also
 *                   for a symbolic S);
 *   global          with G the number of flags set (over the whole (B, S)
 *                   tensor): each global token's query row against its
 *                   batch's S keys and its key column for all S queries (the
 *                   in-band duplicates are masked, not skipped), 2 * S * G
 *                   scores per head. Only when input `global` has a known
 *                   value; otherwise G counts 0 and a warning naming the node
 *                   says the node's count is a lower bound;
 *   Sc = N * (B * (S * (2W + 1) - W * (W + 1)) + 2 * S * G) scores, each
 *   costing d MACs in Q K^T and d in the weighted sum of V.
 *   LongformerAttention:
 *     MACs  = 6 * B * S * H^2 + 2 * d * Sc
 *     FLOPs = 2 * MACs + 2 * B * S * 3H (both biases) + 7 * Sc (the scale,
 *             the mask add and Softmax 5 per score, as Attention's)
 *   QOrderedLongformerAttention: the two projections are symmetric int8
 *   GEMMs (QOrderedAttention's rule: 2 int_ops per MAC, no zero points); the
 *   attention itself has no int8 scales in the definition and is float:
 *     int_ops = 2 * 6 * B * S * H^2
 *     MACs    = 2 * d * Sc
 *     FLOPs   = 2 * MACs + 7 * Sc + 2 * 3 * B * S * 3H (each projection's
 *               scale, bias and round) + 2 * B * S * 3H (both dequantized
 *               into the attention) + 2 * B * S * H (the output's scale and
 *               round)
 */
#include "ops/onnxops/util.h"

typedef struct lf_dims {
    fl_sym b, s, h;
    int64_t heads, window;
} lf_dims;

typedef struct lf_inputs {
    int weight, bias, mask, gweight, gbias, global;
} lf_inputs;

static lf_inputs lf_in(const fl_node *n) {
    if (n->kind == FL_OP_ONNX_MS_QORDERED_LONGFORMER_ATTENTION) {
        return (lf_inputs){2, 4, 7, 8, 10, 12};
    }
    return (lf_inputs){1, 2, 3, 4, 5, 6};
}

/* Input i has the given rank and its dims equal want[] (known ones). */
static fl_status check_in(fl_ctx *c, const fl_node *n, int i, const char *what, int rank,
                          const fl_sym *want) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i, what,
                             s->rank, rank);
    }
    for (int k = 0; k < rank && s->rank >= 0; k++) {
        fl_sym got = s->dims[k];
        if (fl_sym_is_known(got) && fl_sym_is_known(want[k]) && got.k != want[k].k) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has dim %d of %lld, want %lld",
                                 i, what, k, (long long)got.k, (long long)want[k].k);
        }
    }
    return FL_OK;
}

/* H times k in *out, or unknown; a known H so large that k * H overflows
 * fails. */
static fl_status times(fl_ctx *c, const fl_node *n, fl_sym h, int64_t k, fl_sym *out) {
    int64_t v;
    *out = fl_sym_unknown();
    if (!fl_sym_is_known(h)) {
        return FL_OK;
    }
    fl_status st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(k), fl_ck_of(h.k)), &v,
                             "input 0 (input)'s hidden size %lld: %lld * hidden", (long long)h.k,
                             (long long)k);
    if (st == FL_OK) {
        *out = fl_sym_const(v);
    }
    return st;
}

/* The weights and biases in either format, told by the weight's rank (the
 * global weight's when the weight's is unknown; unchecked when both are). */
static fl_status check_weights(fl_ctx *c, const fl_node *n, lf_inputs in, fl_sym h) {
    int r = fl__op_in_shape(n, in.weight)->rank;
    if (r < 0) {
        r = fl__op_in_shape(n, in.gweight)->rank;
    }
    if (r < 0) {
        return FL_OK;
    }
    if (r != 2 && r != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input %d (weight) has rank %d, want 2 (hidden, 3 * hidden) or 3 (3, "
                             "hidden, hidden)",
                             in.weight, r);
    }
    fl_sym hk; /* 3 * H (rank 2: the weight's columns and the biases) or 5 * H (rank 3: bias) */
    fl_status st = times(c, n, h, r == 2 ? 3 : 5, &hk);
    if (st != FL_OK) {
        return st;
    }
    fl_sym w1[2] = {h, hk}, w0[3] = {fl_sym_const(3), h, h};
    fl_sym bias = hk, gbias = r == 2 ? hk : h;
    const fl_sym *w = r == 2 ? w1 : w0;
    if ((st = check_in(c, n, in.weight, "weight", r, w)) != FL_OK ||
        (st = check_in(c, n, in.bias, "bias", 1, &bias)) != FL_OK ||
        (st = check_in(c, n, in.gweight, "global_weight", r, w)) != FL_OK) {
        return st;
    }
    return check_in(c, n, in.gbias, "global_bias", 1, &gbias);
}

static fl_status lf_read(fl_ctx *c, const fl_node *n, lf_dims *a) {
    fl_status st;
    if ((st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d)) != FL_OK ||
        (st = fl__attr_need_pos_int(n, "window", &a->window, c->d)) != FL_OK) {
        return st;
    }
    if ((st = fl__ox_bsh_input(c, n, &a->b, &a->s, &a->h)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(a->h) && a->h.k % a->heads != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (input)'s hidden size %lld is not divisible by attr "
                             "'num_heads' %lld",
                             (long long)a->h.k, (long long)a->heads);
    }
    int64_t span;
    if ((st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(2), fl_ck_of(a->window)), &span,
                        "attr 'window' is %lld: 2 * window", (long long)a->window)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(a->s) && a->s.k % span != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (input)'s sequence length %lld is not a multiple of 2 * "
                             "attr 'window' (%lld)",
                             (long long)a->s.k, (long long)span);
    }
    lf_inputs in = lf_in(n);
    fl_sym bs[2] = {a->b, a->s};
    if ((st = check_weights(c, n, in, a->h)) != FL_OK ||
        (st = check_in(c, n, in.mask, "mask", 2, bs)) != FL_OK) {
        return st;
    }
    return check_in(c, n, in.global, "global", 2, bs);
}

static fl_status infer_longformer(fl_ctx *c, fl_node *n) {
    static const char *const orders[] = {"order_input", "order_weight", "order_global_weight",
                                         "order_output", NULL};
    lf_dims a;
    fl_status st = n->kind == FL_OP_ONNX_MS_QORDERED_LONGFORMER_ATTENTION
                       ? fl__ox_need_int_attrs(c, n, orders)
                       : FL_OK;
    if (st == FL_OK) {
        st = lf_read(c, n, &a);
    }
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 3, (fl_sym[]){a.b, a.s, a.h});
}

/* G, the number of global flags set, when input `global` has a known value;
 * otherwise 0 with a warning that the count is a lower bound. */
static int64_t global_count(fl_ctx *c, const fl_node *n, int i) {
    const fl_value *v = fl_op_in_value(n, i);
    int64_t g = 0;
    bool known = v && v->ints;
    for (int64_t k = 0; known && k < v->n; k++) {
        known = fl_sym_is_known(v->ints[k]);
        g += known && v->ints[k].k != 0;
    }
    if (!known) {
        fl__node_warn(c->d, n,
                      "input %d (global) has no known value: global attention is counted 0, "
                      "the node's count is a lower bound",
                      i);
        return 0;
    }
    return g;
}

static fl_status cost_longformer(fl_ctx *c, const fl_node *n, fl_cost *out) {
    lf_dims a;
    fl_status st = lf_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    int64_t w = a.window, g = global_count(c, n, lf_in(n).global), wsq;
    /* 2 * w + 1 cannot overflow: lf_read checked 2 * w, an even number. */
    if ((st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(w), fl_ck_add(fl_ck_of(w), fl_ck_of(1))), &wsq,
                        "attr 'window' is %lld: window * (window + 1)", (long long)w)) != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym rows = fl__ar_mul(&k, a.b, a.s);
    fl_sym h3 = fl__ar_scale(&k, a.h, 3);
    fl_sym proj = fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_mul(&k, rows, a.h), h3), 2);
    /* Band scores per batch and head: S * (2W + 1) - W * (W + 1). */
    fl_sym band = fl__ar_sub(&k, fl__ar_scale(&k, a.s, 2 * w + 1), fl_sym_const(wsq));
    fl_sym per_head = fl__ar_add(&k, fl__ar_mul(&k, a.b, band), fl__ar_scale(&k, a.s, 2 * g));
    fl_sym scores = fl__ar_scale(&k, per_head, a.heads);
    /* d MACs twice per score: 2 * d * N * per_head = 2 * H * per_head. */
    fl_sym attn = fl__ar_scale(&k, fl__ar_mul(&k, a.h, per_head), 2);
    fl_sym per_out = fl__ar_mul(&k, rows, h3); /* one projection's outputs */
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, attn, 2), fl__ar_scale(&k, scores, 7));
    if (n->kind == FL_OP_ONNX_MS_QORDERED_LONGFORMER_ATTENTION) {
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, per_out, 8));
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, fl__ar_mul(&k, rows, a.h), 2));
        return fl__ar_put_int_cost(&k, out, flops, attn, fl__ar_scale(&k, proj, 2));
    }
    fl_sym macs = fl__ar_add(&k, proj, attn);
    flops = fl__ar_add(&k, flops,
                       fl__ar_add(&k, fl__ar_scale(&k, proj, 2), fl__ar_scale(&k, per_out, 2)));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_longformer .infer = infer_longformer, .cost = cost_longformer
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/longformer.def"
#undef FL_OP
