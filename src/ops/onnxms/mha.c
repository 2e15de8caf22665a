/*
 * mha.c - ONNX Runtime's contrib attention on projected Q, K and V (domain
 * com.microsoft): MultiHeadAttention and GroupQueryAttention, the attention
 * of ORT-optimised and LLM graphs, with their KV caches.
 *
 * Shapes (ORT's contrib op schemas). N = attr num_heads (> 0), D and Dv the
 * head sizes of Q/K and V, S the query length, L the new key/value length,
 * P the past length (0 without past), T the attended length.
 *   MultiHeadAttention  query (B, S, N*D) with key (B, L, N*D) and value (B,
 *     L, N*Dv); or packed QKV query (B, L, N, 3, D) (S = L, no key/value);
 *     or packed KV key (B, L, N, 2, D) (no value); or key (B, N, L, D) and
 *     value (B, N, L, Dv), already in heads (cross attention; a past is not
 *     concatenated then). past_key/past_value (input 6, 7) (B, N, P, D): T =
 *     P + L and present_key/present_value (B, N, T, D/Dv); with input 8
 *     (past_sequence_length: the buffers are shared) present has the past's
 *     shape and T = past_sequence_length's value + L (unknown without it).
 *     output (B, S, N*Dv); qk (B, N, S, T).
 *   GroupQueryAttention  kv_num_heads Nk (> 0, dividing N); query (B, S, N*D)
 *     with key and value (B, L, Nk*D), or packed QKV (B, S, (N + 2*Nk)*D)
 *     without key/value (L = S); past_key/past_value (input 3, 4) (B, Nk, P,
 *     D). total_sequence_length (input 6): when its value is known, T is it
 *     and present_key/present_value are (B, Nk, max(P, T), D) (ORT's rule: a
 *     shared buffer keeps its length); else T = P + L and present (B, Nk, P +
 *     L, D) (a separate present buffer; a shared one is recognised only
 *     through the value). output (B, S, N*D); present of past's dtype
 *     (query's without past); output_qk (B, N, S, T).
 *   DecoderMaskedMultiHeadAttention  MultiHeadAttention's shapes with its
 *     own input order: query 0, key 1, value 2, mask_index 3,
 *     attention_bias 4, past_key 5, past_value 6, past_sequence_length 7,
 *     beam_width 8, cache_indirection 9, bias 10. Key/value (B, L, N*D) for
 *     self attention (L = 1 in a decoding step) or (B, N, L, D) for cross
 *     attention (no past concatenated); with key and value absent, query is
 *     packed QKV (B, S, 3*N*D) (L = S, D = Dv). With attr
 *     past_present_share_buffer set, present has past_key's shape (the
 *     max-length buffer) and T = past_sequence_length's value + L (unknown
 *     without it); else T = P + L and present (B, N, T, D/Dv). qk (B, N, S,
 *     T). beam_width and cache_indirection choose which beam's cached keys a
 *     row reads: no arithmetic.
 * A missing or non-positive num_heads/kv_num_heads, a hidden size the heads
 * do not divide, and inputs of the wrong rank fail naming the node and the
 * attribute or input.
 *
 * FLOP rule ("complete" convention), attention counted in full: every query
 * row scores every attended key, Q K^T and the weighted sum of V; masks
 * (unidirectional, GQA's causal default, local_window_size) halve nothing,
 * as the kernels compute or skip per tile with a cost the count does not
 * model. With R = B * N * S * T scores (GQA: N query heads, each its own
 * scores; sharing K/V heads saves memory, not arithmetic):
 *   MACs  = R * D + R * Dv
 *   FLOPs = 2 * MACs + 6 * R (scale, Softmax 5 per score as onnx::Softmax)
 *         + R with a mask or attention_bias (MHA input 4 or 5; GQA input 10)
 *         (DecoderMaskedMultiHeadAttention: input 3 or 4)
 *   MHA   + B*S*N*D + B*L*N*(D + Dv) with bias (input 3: Q, K, V bias adds;
 *           DecoderMaskedMultiHeadAttention: input 10)
 *   GQA   + 3 * R with softcap > 0 (divide, tanh, multiply)
 *         + B*N*S with head_sink or smooth_softmax (the extra denominator term)
 *         + 3 * B*(S*N + L*Nk) * Dr with do_rotary (rotary on the new Q and K:
 *           two multiplies and an add per rotated element, Dr = 2 *
 *           cos_cache's dim 1, else D)
 *         + RMS norms of Q and K with q_norm_weight/k_norm_weight (input 14,
 *           15): 4 * E + 2 * rows each, as onnx SimplifiedLayerNormalization.
 * A quantized KV cache's dequantisation is not counted.
 *
 * ai.onnx Attention (opset 23; 24 adds input 6, nonpad_kv_seqlen), ONNX's
 * own scaled dot-product attention, written by exporters of opset 23 and
 * later: Q, K and V all 3-D, Q (B, S, Nq*D), K (B, L, Nkv*D), V (B, L,
 * Nkv*Dv) with attrs q_num_heads Nq and kv_num_heads Nkv (required then), or
 * all 4-D, Q (B, Nq, S, D), K (B, Nkv, L, D), V (B, Nkv, L, Dv) (the head
 * counts from the dims). Nq must be a multiple of Nkv (MHA, GQA, MQA).
 * past_key/past_value (input 4, 5) (B, Nkv, P, D/Dv): T = P + L. Outputs:
 * Y (B, S, Nq*Dv) for 3-D inputs, (B, Nq, S, Dv) for 4-D; present_key (B,
 * Nkv, T, D) and present_value (B, Nkv, T, Dv) of K's and V's dtypes;
 * qk_matmul_output (B, Nq, S, T). Counted as GQA: R = B * Nq * S * T,
 *   MACs  = R * D + R * Dv
 *   FLOPs = 2 * MACs + 6 * R + R with attn_mask (input 3), is_causal,
 *           nonpad_kv_seqlen (input 6) or opset 25's left_window_size /
 *           right_window_size >= 0 (the bias add; a causal mask or a
 *           sliding window halves nothing) + 3 * R with softcap > 0.
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

typedef struct mha_dims {
    fl_sym b, s, l, d, dv, p, t, present;
    int64_t heads, kv_heads;
} mha_dims;

/* Where MultiHeadAttention and DecoderMaskedMultiHeadAttention keep their
 * optional inputs. */
typedef struct mha_idx {
    int bias, mask, attn_bias, past_key, past_len;
    bool decoder;
} mha_idx;

static const mha_idx *mha_index(const fl_node *n) {
    static const mha_idx mha = {3, 4, 5, 6, 8, false}, dmmha = {10, 3, 4, 5, 7, true};
    return n->kind == FL_OP_ONNX_MS_DMMHA ? &dmmha : &mha;
}

/* x / heads: exact, else a failure naming `what` (known) or unknown. */
static fl_status per_head(fl_ctx *c, const fl_node *n, fl_sym x, int64_t heads, const char *what,
                          fl_sym *out) {
    if (fl_sym_is_known(x)) {
        if (x.k % heads != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "%s %lld is not a multiple of %lld heads",
                                 what, (long long)x.k, (long long)heads);
        }
        *out = fl_sym_const(x.k / heads);
        return FL_OK;
    }
    bool exact = false;
    if (fl_sym_is_unknown(x) || fl__sym_div(c->st, x, fl_sym_const(heads), out, &exact) != FL_OK ||
        !exact) {
        *out = fl_sym_unknown();
    }
    return FL_OK;
}

/* Input i (when given and of known rank) has a rank in `ranks` (bit r set
 * for rank r). */
static fl_status want_rank(fl_ctx *c, const fl_node *n, int i, const char *name, unsigned ranks) {
    int r = fl__ox_absent(n, i) ? -1 : fl__op_in_shape(n, i)->rank;
    if (r < 0 || (r < 32 && (ranks >> r) & 1u)) {
        return FL_OK;
    }
    char want[32] = "";
    size_t len = 0;
    for (int k = 0; k < 8 && len + 4 < sizeof want; k++) {
        if ((ranks >> k) & 1u) {
            len += (size_t)snprintf(want + len, sizeof want - len, "%s%d", len ? " or " : "", k);
        }
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %s", i, name, r,
                         want);
}

/* MHA's query/key/value layouts into b, s, l, d, dv; *bnsh_kv when key and
 * value are already (B, N, L, D). */
static fl_status mha_layout(fl_ctx *c, const fl_node *n, mha_dims *a, bool *bnsh_kv) {
    const fl_shape *q = fl__op_in_shape(n, 0);
    fl_status st;
    *bnsh_kv = false;
    if ((st = want_rank(c, n, 0, "query", 1u << 3 | 1u << 5)) != FL_OK ||
        (st = want_rank(c, n, 1, "key", 1u << 3 | 1u << 4 | 1u << 5)) != FL_OK ||
        (st = want_rank(c, n, 2, "value", 1u << 3 | 1u << 4)) != FL_OK) {
        return st;
    }
    a->b = fl__shape_dim(q, 0);
    if (q->rank == 5) { /* packed QKV (B, L, N, 3, D) */
        a->s = a->l = fl__shape_dim(q, 1);
        a->d = a->dv = fl__shape_dim(q, 4);
        return FL_OK;
    }
    a->s = fl__shape_dim(q, 1);
    if (mha_index(n)->decoder && fl__ox_absent(n, 1) && fl__ox_absent(n, 2)) {
        a->l = a->s; /* packed QKV (B, S, 3 * N * D) */
        a->dv = fl_sym_unknown();
        int64_t heads3;
        if ((st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(3), fl_ck_of(a->heads)), &heads3,
                            "attr 'num_heads' is %lld: 3 * num_heads", (long long)a->heads)) !=
            FL_OK) {
            return st;
        }
        if ((st = per_head(c, n, fl__shape_dim(q, 2), heads3,
                           "input 0 (packed QKV)'s hidden size (3 * num_heads)", &a->d)) == FL_OK) {
            a->dv = a->d;
        }
        return st;
    }
    if (fl__ox_absent(n, 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (key) is absent and input 0 (query) is not packed QKV "
                             "(B, S, N, 3, D)");
    }
    /* Input 2 only when present: a node may have fewer inputs. */
    const fl_shape *k = fl__op_in_shape(n, 1);
    const fl_shape *v = fl__ox_absent(n, 2) ? NULL : fl__op_in_shape(n, 2);
    if (k->rank == 5) { /* packed KV (B, L, N, 2, D) */
        a->l = fl__shape_dim(k, 1);
        a->d = a->dv = fl__shape_dim(k, 4);
        return FL_OK;
    }
    if (k->rank == 4) { /* (B, N, L, D) */
        *bnsh_kv = true;
        a->l = fl__shape_dim(k, 2);
        a->d = fl__shape_dim(k, 3);
        a->dv = fl__ox_absent(n, 2) ? a->d : fl__shape_dim(v, 3);
        return FL_OK;
    }
    a->l = fl__shape_dim(k, 1);
    fl_sym hq;
    if ((st = fl__op_merge_dim(c, n, fl__shape_dim(q, 2), fl__shape_dim(k, 2),
                               "input 0 (query)'s hidden size and input 1 (key)'s", &hq)) !=
            FL_OK ||
        (st = per_head(c, n, hq, a->heads, "input 0 (query)'s hidden size", &a->d)) != FL_OK) {
        return st;
    }
    if (fl__ox_absent(n, 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 2 (value) is absent with a rank-3 key");
    }
    return per_head(c, n, fl__shape_dim(v, 2), a->heads, "input 2 (value)'s hidden size", &a->dv);
}

static fl_status mha_read(fl_ctx *c, const fl_node *n, mha_dims *a) {
    const mha_idx *ix = mha_index(n);
    fl_status st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d);
    bool bnsh_kv, shared = false;
    if (st != FL_OK || (st = mha_layout(c, n, a, &bnsh_kv)) != FL_OK ||
        (st = want_rank(c, n, ix->past_key, "past_key", 1u << 4)) != FL_OK) {
        return st;
    }
    a->p = fl_sym_const(0);
    if (!fl__ox_absent(n, ix->past_key) && !bnsh_kv) {
        a->p = fl__shape_dim(fl__op_in_shape(n, ix->past_key), 2);
    }
    if (!fl__ox_absent(n, ix->past_key)) {
        int64_t share = 0;
        if (ix->decoder &&
            (st = fl__attr_int_or(n, "past_present_share_buffer", 0, &share, c->d)) != FL_OK) {
            return st;
        }
        shared = ix->decoder ? share != 0 : !fl__ox_absent(n, ix->past_len);
    }
    if ((st = fl__op_add(c, n, a->p, a->l, &a->t)) != FL_OK) {
        return st;
    }
    a->present = a->t;
    if (shared) { /* one max-length past/present buffer */
        int64_t *v, cnt;
        a->present = a->p;
        a->t = fl_sym_unknown();
        if (fl__ox_absent(n, ix->past_len)) {
            return FL_OK;
        }
        st = fl__op_in_int_vector(c, n, ix->past_len, &v, &cnt);
        if (st == FL_OK && cnt == 1) {
            return fl__op_add(c, n, fl_sym_const(v[0]), a->l, &a->t);
        }
        return st == FL_EINVAL ? st : FL_OK;
    }
    return FL_OK;
}

static fl_status infer_mha(fl_ctx *c, fl_node *n) {
    mha_dims a;
    fl_status st = mha_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    fl_sym h = fl_sym_unknown(), nh = fl_sym_const(a.heads);
    if (fl__op_mul(c, n, a.dv, nh, &h) != FL_OK) {
        return c->d->status;
    }
    if ((st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.s, h})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 1, dt, 4, (fl_sym[]){a.b, nh, a.present, a.d})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 2, dt, 4, (fl_sym[]){a.b, nh, a.present, a.dv})) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 3, dt, 4, (fl_sym[]){a.b, nh, a.s, a.t});
}

/* 2 * (R * D + R * Dv) + per_score * R; sets *macs and *r. */
static fl_sym scores_flops(fl_arith *k, const mha_dims *a, int64_t per_score, fl_sym *macs,
                           fl_sym *r) {
    *r = fl__ar_scale(k, fl__ar_mul(k, fl__ar_mul(k, a->b, a->s), a->t), a->heads);
    *macs = fl__ar_mul(k, *r, fl__ar_add(k, a->d, a->dv));
    return fl__ar_add(k, fl__ar_scale(k, *macs, 2), fl__ar_scale(k, *r, per_score));
}

static fl_status cost_mha(fl_ctx *c, const fl_node *n, fl_cost *out) {
    mha_dims a;
    fl_status st = mha_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    const mha_idx *ix = mha_index(n);
    fl_arith k = {c, n, FL_OK};
    fl_sym macs, r;
    int64_t per = 6 + (!fl__ox_absent(n, ix->mask) || !fl__ox_absent(n, ix->attn_bias));
    fl_sym flops = scores_flops(&k, &a, per, &macs, &r);
    if (!fl__ox_absent(n, ix->bias)) {
        fl_sym q = fl__ar_mul(&k, fl__ar_mul(&k, a.b, a.s), a.d);
        fl_sym kv = fl__ar_mul(&k, fl__ar_mul(&k, a.b, a.l), fl__ar_add(&k, a.d, a.dv));
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, fl__ar_add(&k, q, kv), a.heads));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* ------------------------------------------------------------------------- */
/* GroupQueryAttention                                                        */
/* ------------------------------------------------------------------------- */

static fl_status gqa_layout(fl_ctx *c, const fl_node *n, mha_dims *a) {
    const fl_shape *q = fl__op_in_shape(n, 0);
    fl_status st;
    if ((st = want_rank(c, n, 0, "query", 1u << 3)) != FL_OK ||
        (st = want_rank(c, n, 1, "key", 1u << 3)) != FL_OK ||
        (st = want_rank(c, n, 2, "value", 1u << 3)) != FL_OK) {
        return st;
    }
    a->b = fl__shape_dim(q, 0);
    a->s = fl__shape_dim(q, 1);
    if (fl__ox_absent(n, 1)) { /* packed QKV */
        a->l = a->s;
        int64_t all;
        fl_ck sum = fl_ck_add(fl_ck_of(a->heads), fl_ck_mul(fl_ck_of(2), fl_ck_of(a->kv_heads)));
        if ((st = fl__op_ck(c, n, sum, &all,
                            "attrs 'num_heads' %lld and 'kv_num_heads' %lld: num_heads + 2 * "
                            "kv_num_heads",
                            (long long)a->heads, (long long)a->kv_heads)) != FL_OK) {
            return st;
        }
        return per_head(c, n, fl__shape_dim(q, 2), all,
                        "input 0 (packed QKV)'s hidden size (num_heads + 2 * kv_num_heads)", &a->d);
    }
    if (fl__ox_absent(n, 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 2 (value) is absent with input 1 (key)");
    }
    const fl_shape *k = fl__op_in_shape(n, 1);
    a->l = fl__shape_dim(k, 1);
    fl_sym dk;
    if ((st = per_head(c, n, fl__shape_dim(q, 2), a->heads, "input 0 (query)'s hidden size",
                       &a->d)) != FL_OK ||
        (st = per_head(c, n, fl__shape_dim(k, 2), a->kv_heads, "input 1 (key)'s hidden size",
                       &dk)) != FL_OK) {
        return st;
    }
    return fl__op_merge_dim(c, n, a->d, dk, "the head size of input 0 (query) and input 1 (key)",
                            &a->d);
}

static fl_status gqa_read(fl_ctx *c, const fl_node *n, mha_dims *a) {
    fl_status st;
    if ((st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d)) != FL_OK ||
        (st = fl__attr_need_pos_int(n, "kv_num_heads", &a->kv_heads, c->d)) != FL_OK) {
        return st;
    }
    if (a->heads % a->kv_heads != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'kv_num_heads' %lld does not divide attr 'num_heads' %lld",
                             (long long)a->kv_heads, (long long)a->heads);
    }
    if ((st = gqa_layout(c, n, a)) != FL_OK ||
        (st = want_rank(c, n, 3, "past_key", 1u << 4)) != FL_OK) {
        return st;
    }
    a->dv = a->d;
    a->p = fl__ox_absent(n, 3) ? fl_sym_const(0) : fl__shape_dim(fl__op_in_shape(n, 3), 2);
    if ((st = fl__op_add(c, n, a->p, a->l, &a->t)) != FL_OK) {
        return st;
    }
    a->present = a->t;
    int64_t *v, cnt;
    st = fl__ox_absent(n, 6) ? FL_ENOTFOUND : fl__op_in_int_vector(c, n, 6, &v, &cnt);
    if (st == FL_OK && cnt == 1) {
        a->t = fl_sym_const(v[0]);
        if (fl__sym_max(c->st, a->p, a->t, &a->present) != FL_OK) {
            a->present = fl_sym_unknown();
        }
    }
    return st == FL_EINVAL ? st : FL_OK;
}

static fl_status infer_gqa(fl_ctx *c, fl_node *n) {
    mha_dims a;
    fl_status st = gqa_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    int cache_dt = fl__ox_absent(n, 3) ? dt : fl__ox_in_dtype(n, 3);
    fl_sym h, nh = fl_sym_const(a.heads), nk = fl_sym_const(a.kv_heads);
    if (fl__op_mul(c, n, a.d, nh, &h) != FL_OK) {
        return c->d->status;
    }
    if ((st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.s, h})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 1, cache_dt, 4, (fl_sym[]){a.b, nk, a.present, a.d})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 2, cache_dt, 4, (fl_sym[]){a.b, nk, a.present, a.d})) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 3, dt, 4, (fl_sym[]){a.b, nh, a.s, a.t});
}

/* GQA's extras beyond the scores: rotary, Q/K RMS norms, softcap, sinks. */
static fl_sym gqa_extras(fl_ctx *c, fl_arith *k, const fl_node *n, const mha_dims *a, fl_sym r) {
    int64_t rotary = 0, smooth = 0;
    float softcap = 0;
    if (fl__attr_int_or(n, "do_rotary", 0, &rotary, c->d) != FL_OK ||
        fl__attr_int_or(n, "smooth_softmax", 0, &smooth, c->d) != FL_OK ||
        fl__attr_float_or(n, "softcap", 0, &softcap, c->d) != FL_OK) {
        k->st = c->d->status;
        return fl_sym_unknown();
    }
    fl_sym f = fl__ar_scale(k, r, softcap > 0 ? 3 : 0);
    fl_sym qrows = fl__ar_scale(k, fl__ar_mul(k, a->b, a->s), a->heads);
    fl_sym krows = fl__ar_scale(k, fl__ar_mul(k, a->b, a->l), a->kv_heads);
    fl_sym rows = fl__ar_add(k, qrows, krows);
    if (smooth || !fl__ox_absent(n, 11)) {
        f = fl__ar_add(k, f, qrows);
    }
    if (rotary) {
        fl_sym dr = a->d;
        if (!fl__ox_absent(n, 7) && fl__op_in_shape(n, 7)->rank == 2) {
            dr = fl__ar_scale(k, fl__shape_dim(fl__op_in_shape(n, 7), 1), 2);
        }
        f = fl__ar_add(k, f, fl__ar_scale(k, fl__ar_mul(k, rows, dr), 3));
    }
    if (!fl__ox_absent(n, 14)) { /* 4 * E + 2 * rows over Q's and K's heads */
        fl_sym e = fl__ar_mul(k, rows, a->d);
        f = fl__ar_add(k, f, fl__ar_add(k, fl__ar_scale(k, e, 4), fl__ar_scale(k, rows, 2)));
    }
    return f;
}

static fl_status cost_gqa(fl_ctx *c, const fl_node *n, fl_cost *out) {
    mha_dims a;
    fl_status st = gqa_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym macs, r;
    fl_sym flops = scores_flops(&k, &a, 6 + !fl__ox_absent(n, 10), &macs, &r);
    flops = fl__ar_add(&k, flops, gqa_extras(c, &k, n, &a, r));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* ------------------------------------------------------------------------- */
/* ai.onnx Attention (opsets 23, 24)                                          */
/* ------------------------------------------------------------------------- */

/* Nq, Nkv may be dims of 4-D inputs, so symbols. */
typedef struct oa_dims {
    fl_sym b, s, l, p, t, d, dv, nq, nkv;
    int rank;
} oa_dims;

/* attr `name` (0 when absent; negative fails). */
static fl_status oa_attr_heads(fl_ctx *c, const fl_node *n, const char *name, int64_t *out) {
    fl_status st = fl__attr_int_or(n, name, 0, out, c->d);
    if (st == FL_OK && *out < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, want > 0", name,
                             (long long)*out);
    }
    return st;
}

static fl_status heads_fail(fl_ctx *c, const fl_node *n, int64_t nq, int64_t nkv) {
    return fl__node_fail(c->d, FL_EINVAL, n,
                         "%lld query heads are not a multiple of %lld key/value heads",
                         (long long)nq, (long long)nkv);
}

/* 3-D Q (B, S, Nq*D), K (B, L, Nkv*D), V (B, L, Nkv*Dv); the head counts
 * from the attrs, both required. */
static fl_status oa_layout3(fl_ctx *c, const fl_node *n, oa_dims *a) {
    int64_t qh, kvh;
    fl_status st;
    if ((st = oa_attr_heads(c, n, "q_num_heads", &qh)) != FL_OK ||
        (st = oa_attr_heads(c, n, "kv_num_heads", &kvh)) != FL_OK) {
        return st;
    }
    if (qh == 0 || kvh == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is required with 3-D Q, K and V",
                             qh == 0 ? "q_num_heads" : "kv_num_heads");
    }
    if (qh % kvh != 0) {
        return heads_fail(c, n, qh, kvh);
    }
    const fl_shape *q = fl__op_in_shape(n, 0), *k = fl__op_in_shape(n, 1);
    a->b = fl__shape_dim(q, 0);
    a->s = fl__shape_dim(q, 1);
    a->l = fl__shape_dim(k, 1);
    a->nq = fl_sym_const(qh);
    a->nkv = fl_sym_const(kvh);
    fl_sym dk;
    if ((st = per_head(c, n, fl__shape_dim(q, 2), qh, "input 0 (Q)'s hidden size", &a->d)) !=
            FL_OK ||
        (st = per_head(c, n, fl__shape_dim(k, 2), kvh, "input 1 (K)'s hidden size", &dk)) !=
            FL_OK ||
        (st = per_head(c, n, fl__shape_dim(fl__op_in_shape(n, 2), 2), kvh,
                       "input 2 (V)'s hidden size", &a->dv)) != FL_OK) {
        return st;
    }
    return fl__op_merge_dim(c, n, a->d, dk, "the head size of input 0 (Q) and input 1 (K)", &a->d);
}

/* 4-D Q (B, Nq, S, D), K (B, Nkv, L, D), V (B, Nkv, L, Dv). */
static fl_status oa_layout4(fl_ctx *c, const fl_node *n, oa_dims *a) {
    const fl_shape *q = fl__op_in_shape(n, 0), *k = fl__op_in_shape(n, 1);
    a->b = fl__shape_dim(q, 0);
    a->nq = fl__shape_dim(q, 1);
    a->s = fl__shape_dim(q, 2);
    a->nkv = fl__shape_dim(k, 1);
    a->l = fl__shape_dim(k, 2);
    a->dv = fl__shape_dim(fl__op_in_shape(n, 2), 3);
    return fl__op_merge_dim(c, n, fl__shape_dim(q, 3), fl__shape_dim(k, 3),
                            "the head size of input 0 (Q) and input 1 (K)", &a->d);
}

static fl_status oa_read(fl_ctx *c, const fl_node *n, oa_dims *a) {
    static const char *const names[3] = {"Q", "K", "V"};
    fl_status st;
    a->rank = -1;
    for (int i = 0; i < 3; i++) {
        int r = fl__op_in_shape(n, i)->rank;
        if ((st = want_rank(c, n, i, names[i], 1u << 3 | 1u << 4)) != FL_OK) {
            return st;
        }
        if (r >= 0 && a->rank >= 0 && r != a->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d (%s) has rank %d and an earlier input rank %d: Q, K "
                                 "and V are all 3-D or all 4-D",
                                 i, names[i], r, a->rank);
        }
        a->rank = r >= 0 ? r : a->rank;
    }
    if (a->rank < 0) { /* no rank known: nothing known but the attrs' head counts */
        int64_t qh, kvh;
        fl_sym u = fl_sym_unknown();
        *a = (oa_dims){u, u, u, u, u, u, u, u, u, -1};
        if ((st = oa_attr_heads(c, n, "q_num_heads", &qh)) != FL_OK ||
            (st = oa_attr_heads(c, n, "kv_num_heads", &kvh)) != FL_OK) {
            return st;
        }
        a->nq = qh > 0 ? fl_sym_const(qh) : u;
        a->nkv = kvh > 0 ? fl_sym_const(kvh) : u;
    } else {
        st = a->rank == 4 ? oa_layout4(c, n, a) : oa_layout3(c, n, a);
    }
    if (st != FL_OK || (st = want_rank(c, n, 4, "past_key", 1u << 4)) != FL_OK ||
        (st = want_rank(c, n, 5, "past_value", 1u << 4)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(a->nq) && fl_sym_is_known(a->nkv) && a->nkv.k > 0 &&
        a->nq.k % a->nkv.k != 0) {
        return heads_fail(c, n, a->nq.k, a->nkv.k);
    }
    a->p = fl__ox_absent(n, 4) ? fl_sym_const(0) : fl__shape_dim(fl__op_in_shape(n, 4), 2);
    return fl__op_add(c, n, a->p, a->l, &a->t);
}

/* Opset 25's sliding window: *windowed when left_window_size or
 * right_window_size (default -1, unbounded) bounds a side; below -1 fails. */
static fl_status oa_window(fl_ctx *c, const fl_node *n, bool *windowed) {
    static const char *const names[2] = {"left_window_size", "right_window_size"};
    *windowed = false;
    for (int i = 0; i < 2; i++) {
        int64_t w;
        fl_status st = fl__attr_int_or(n, names[i], -1, &w, c->d);
        if (st != FL_OK) {
            return st;
        }
        if (w < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, must be >= -1", names[i],
                                 (long long)w);
        }
        *windowed = *windowed || w >= 0;
    }
    return FL_OK;
}

static fl_status infer_onnx_attention(fl_ctx *c, fl_node *n) {
    oa_dims a;
    bool windowed;
    fl_status st = oa_read(c, n, &a);
    if (st != FL_OK || (st = oa_window(c, n, &windowed)) != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    if (a.rank < 0) {
        st = fl__op_set_output(c, n, 0, dt, -1, NULL);
    } else if (a.rank == 4) {
        st = fl__op_set_output(c, n, 0, dt, 4, (fl_sym[]){a.b, a.nq, a.s, a.dv});
    } else {
        fl_sym h = fl_sym_unknown();
        if (fl__op_mul(c, n, a.nq, a.dv, &h) != FL_OK) {
            return c->d->status;
        }
        st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.s, h});
    }
    if (st != FL_OK ||
        (st = fl__ox_set_out(c, n, 1, fl__ox_in_dtype(n, 1), 4,
                             (fl_sym[]){a.b, a.nkv, a.t, a.d})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 2, fl__ox_in_dtype(n, 2), 4,
                             (fl_sym[]){a.b, a.nkv, a.t, a.dv})) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 3, dt, 4, (fl_sym[]){a.b, a.nq, a.s, a.t});
}

static fl_status cost_onnx_attention(fl_ctx *c, const fl_node *n, fl_cost *out) {
    oa_dims a;
    int64_t causal = 0;
    float softcap = 0;
    bool windowed;
    fl_status st = oa_read(c, n, &a);
    if (st != FL_OK || (st = fl__attr_int_or(n, "is_causal", 0, &causal, c->d)) != FL_OK ||
        (st = fl__attr_float_or(n, "softcap", 0, &softcap, c->d)) != FL_OK ||
        (st = oa_window(c, n, &windowed)) != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym r = fl__ar_mul(&k, fl__ar_mul(&k, fl__ar_mul(&k, a.b, a.nq), a.s), a.t);
    fl_sym macs = fl__ar_mul(&k, r, fl__ar_add(&k, a.d, a.dv));
    bool masked = causal || windowed || !fl__ox_absent(n, 3) || !fl__ox_absent(n, 6);
    int64_t per = 6 + masked + (softcap > 0 ? 3 : 0);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, r, per));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_mha .infer = infer_mha, .cost = cost_mha
#define HOOKS_dmmha .infer = infer_mha, .cost = cost_mha
#define HOOKS_gqa .infer = infer_gqa, .cost = cost_gqa
#define HOOKS_onnx_attention .infer = infer_onnx_attention, .cost = cost_onnx_attention
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/mha.def"
#undef FL_OP
