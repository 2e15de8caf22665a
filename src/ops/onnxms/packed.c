/*
 * packed.c - ONNX Runtime's contrib attention on packed tokens (domain
 * com.microsoft): PackedAttention and PackedMultiHeadAttention, BERT-style
 * attention whose input holds only the real tokens of a padded batch.
 *
 * Shapes (ORT's contrib op schemas). N = attr num_heads (required, > 0).
 *   PackedAttention  input (T, H_in), weights (H_in, Hq + Hk + Hv), bias (Hq +
 *     Hk + Hv), token_offset (B, S), cumulative_sequence_length (B + 1),
 *     attention_bias (optional). Hq, Hk, Hv from attr qkv_hidden_sizes, else
 *     weights' second dim in three equal parts; N divides Hq and Hv. output
 *     (T, Hv).
 *   PackedMultiHeadAttention  query (T, Hq) with key (T, Hk) and value (T,
 *     Hv), or packed QKV query (T, N, 3, D) without key and value (Hq = Hk =
 *     Hv = N * D); bias (Hq + Hk + Hv, optional), token_offset (B, S) at
 *     input 4, cumulative_sequence_length (B + 1) at input 5, attention_bias
 *     at input 6 (optional). N divides Hq and Hv. output (T, Hv).
 * T is the number of real tokens, B the number of sequences, S the padded
 * length. Inputs of the wrong rank, dims that disagree, a bad num_heads or
 * qkv_hidden_sizes fail naming the node and the input or attribute.
 *
 * Which tokens attend to which: a token attends to every token of its own
 * sequence, so the score pairs per head are
 *   P = sum over sequences i of len_i^2
 * with len_i = c[i + 1] - c[i] for c = cumulative_sequence_length when that
 * input has a known value (c[0] = 0, non-decreasing, c[B] = T when T is a
 * number; otherwise the node fails naming the input). Without a value the
 * lengths are data: every sequence is counted as long as the padded length,
 *   P = B * S^2 (token_offset's dims),
 * an upper bound, with a warning naming the node. With R = N * P scores, D
 * = Hq / N and Dv = Hv / N (attention counted in full, as Attention's):
 *   MACs  = R * D + R * Dv                         Q K^T and the weighted sum
 *         + T * H_in * (Hq + Hk + Hv)              PackedAttention's projection
 *   FLOPs = 2 * MACs + 6 * R (the scale, Softmax 5 per score)
 *         + R with attention_bias (the add)
 *         + T * (Hq + Hk + Hv) for the bias (PackedAttention's is required;
 *           PackedMultiHeadAttention's input 3 when given).
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

typedef struct pk_dims {
    fl_sym t, h_in, hq, hk, hv, b, s;
    int64_t heads;
} pk_dims;

static bool is_pmha(const fl_node *n) {
    return n->kind == FL_OP_ONNX_MS_PACKED_MULTI_HEAD_ATTENTION;
}

/* Input i (when given) has rank `rank` (when known). */
static fl_status need_rank(fl_ctx *c, const fl_node *n, int i, const char *what, int rank) {
    if (fl__ox_absent(n, i)) {
        return FL_OK;
    }
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank < 0 || s->rank == rank) {
        return FL_OK;
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i, what, s->rank,
                         rank);
}

/* PackedAttention's hidden sizes: attr qkv_hidden_sizes or weights' columns
 * in three equal parts. */
static fl_status pa_sizes(fl_ctx *c, const fl_node *n, pk_dims *a) {
    const fl_shape *w = fl__op_in_shape(n, 1);
    fl_status st = need_rank(c, n, 1, "weights", 2);
    if (st != FL_OK ||
        (st = fl__op_merge_dim(c, n, fl__shape_dim(fl__op_in_shape(n, 0), 1), fl__shape_dim(w, 0),
                               "input 0 (input)'s last dim and input 1 "
                               "(weights)'s first",
                               &a->h_in)) != FL_OK) {
        return st;
    }
    return fl__ox_qkv_sizes(c, n, fl__shape_dim(w, 1), &a->hq, &a->hk, &a->hv);
}

/* PackedMultiHeadAttention's hidden sizes from query, key and value. */
static fl_status pmha_sizes(fl_ctx *c, const fl_node *n, pk_dims *a) {
    const fl_shape *q = fl__op_in_shape(n, 0);
    if (q->rank == 4) {
        fl_sym three = fl__shape_dim(q, 2), hd = fl__shape_dim(q, 3), nh = fl__shape_dim(q, 1);
        if (!fl__ox_absent(n, 1) || !fl__ox_absent(n, 2)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 0 (query) is packed QKV (rank 4): key and value must be "
                                 "absent");
        }
        if ((fl_sym_is_known(three) && three.k != 3) || (fl_sym_is_known(nh) && nh.k != a->heads)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 0 (query) is packed QKV: want (tokens, %lld, 3, head "
                                 "size)",
                                 (long long)a->heads);
        }
        fl_sym h = fl_sym_unknown();
        fl_status st = fl_sym_is_known(hd) ? fl__op_scale(c, n, hd, a->heads, &h) : FL_OK;
        a->hq = a->hk = a->hv = h;
        return st;
    }
    fl_status st = need_rank(c, n, 0, "query", 2);
    if (st == FL_OK && q->rank == 2 && (fl__ox_absent(n, 1) || fl__ox_absent(n, 2))) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (query) has rank 2: key and value are required");
    }
    if (st != FL_OK || (st = need_rank(c, n, 1, "key", 2)) != FL_OK ||
        (st = need_rank(c, n, 2, "value", 2)) != FL_OK) {
        return st;
    }
    fl_sym tk = fl__shape_dim(fl__op_in_shape(n, 1), 0),
           tv = fl__shape_dim(fl__op_in_shape(n, 2), 0);
    if ((st = fl__op_merge_dim(c, n, a->t, tk, "input 0 (query)'s and input 1 (key)'s tokens",
                               &a->t)) != FL_OK ||
        (st = fl__op_merge_dim(c, n, a->t, tv, "input 0 (query)'s and input 2 (value)'s tokens",
                               &a->t)) != FL_OK) {
        return st;
    }
    a->hq = fl__shape_dim(q, 1);
    a->hk = fl__shape_dim(fl__op_in_shape(n, 1), 1);
    a->hv = fl__shape_dim(fl__op_in_shape(n, 2), 1);
    if (fl_sym_is_known(a->hq) && fl_sym_is_known(a->hk) && a->hq.k != a->hk.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (query)'s hidden size %lld differs from input 1 (key)'s "
                             "%lld",
                             (long long)a->hq.k, (long long)a->hk.k);
    }
    return FL_OK;
}

static fl_status pk_read(fl_ctx *c, const fl_node *n, pk_dims *a) {
    bool mha = is_pmha(n);
    int off = mha ? 4 : 3;
    fl_status st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    a->t = fl__shape_dim(x, 0);
    if ((st = mha ? pmha_sizes(c, n, a) : need_rank(c, n, 0, "input", 2)) != FL_OK ||
        (!mha && (st = pa_sizes(c, n, a)) != FL_OK)) {
        return st;
    }
    if ((fl_sym_is_known(a->hq) && a->hq.k % a->heads != 0) ||
        (fl_sym_is_known(a->hv) && a->hv.k % a->heads != 0)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_heads' %lld does not divide the Q and V hidden sizes "
                             "(%lld, %lld)",
                             (long long)a->heads, (long long)a->hq.k, (long long)a->hv.k);
    }
    if ((st = need_rank(c, n, off - 1, "bias", 1)) != FL_OK ||
        (st = need_rank(c, n, off, "token_offset", 2)) != FL_OK ||
        (st = need_rank(c, n, off + 1, "cumulative_sequence_length", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *to = fl__op_in_shape(n, off);
    a->b = fl__shape_dim(to, 0);
    a->s = fl__shape_dim(to, 1);
    fl_sym b1 = fl__shape_dim(fl__op_in_shape(n, off + 1), 0);
    /* b1 - 1 != B rather than b1 != B + 1: B can be INT64_MAX, b1 is >= 0 */
    if (fl_sym_is_known(b1) && fl_sym_is_known(a->b) && b1.k - 1 != a->b.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input %d (cumulative_sequence_length) has %lld entries, want "
                             "token_offset's batch %lld + 1",
                             off + 1, (long long)b1.k, (long long)a->b.k);
    }
    return FL_OK;
}

static fl_status infer_packed(fl_ctx *c, fl_node *n) {
    pk_dims a;
    fl_status st = pk_read(c, n, &a);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, (fl_sym[]){a.t, a.hv})
                       : st;
}

/* Score pairs per head: the sum of len_i^2 from cumulative_sequence_length's
 * value, else B * S^2 (an upper bound, with a warning). */
static fl_status score_pairs(fl_ctx *c, const fl_node *n, const pk_dims *a, fl_arith *k,
                             fl_sym *out) {
    int in = is_pmha(n) ? 5 : 4;
    const fl_value *v = fl_op_in_value(n, in);
    bool known = v && v->ints && v->n >= 1;
    for (int64_t i = 0; known && i < v->n; i++) {
        known = fl_sym_is_known(v->ints[i]);
    }
    if (!known) {
        fl__node_warn(c->d, n,
                      "input %d (cumulative_sequence_length) has no known value: every sequence "
                      "is counted as long as token_offset's padded length, the node's count is "
                      "an upper bound",
                      in);
        *out = fl__ar_mul(k, a->b, fl__ar_mul(k, a->s, a->s));
        return FL_OK;
    }
    int64_t sum = 0, last = v->ints[v->n - 1].k;
    for (int64_t i = 0; i < v->n; i++) {
        int64_t cur = v->ints[i].k, prev = i ? v->ints[i - 1].k : 0;
        if ((i == 0 && cur != 0) || cur < prev || cur > (int64_t)3037000499) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d (cumulative_sequence_length) entry %lld is %lld: want "
                                 "0 first, then non-decreasing sums of lengths",
                                 in, (long long)i, (long long)cur);
        }
        sum += (cur - prev) * (cur - prev);
    }
    if (fl_sym_is_known(a->t) && last != a->t.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input %d (cumulative_sequence_length) ends at %lld, input 0 has "
                             "%lld tokens",
                             in, (long long)last, (long long)a->t.k);
    }
    *out = fl_sym_const(sum);
    return FL_OK;
}

static fl_status cost_packed(fl_ctx *c, const fl_node *n, fl_cost *out) {
    pk_dims a;
    fl_status st = pk_read(c, n, &a);
    fl_arith k = {c, n, FL_OK};
    fl_sym pairs;
    if (st != FL_OK || (st = score_pairs(c, n, &a, &k, &pairs)) != FL_OK) {
        return st;
    }
    bool mha = is_pmha(n);
    fl_sym cols = fl__ar_add(&k, fl__ar_add(&k, a.hq, a.hk), a.hv);
    fl_sym scores = fl__ar_scale(&k, pairs, a.heads);
    /* R * D + R * Dv = P * (Hq + Hv) */
    fl_sym macs = fl__ar_mul(&k, pairs, fl__ar_add(&k, a.hq, a.hv));
    if (!mha) {
        macs = fl__ar_add(&k, macs, fl__ar_mul(&k, fl__ar_mul(&k, a.t, a.h_in), cols));
    }
    int64_t per_score = 6 + !fl__ox_absent(n, mha ? 6 : 5);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, scores, per_score));
    if (!fl__ox_absent(n, mha ? 3 : 2)) {
        flops = fl__ar_add(&k, flops, fl__ar_mul(&k, a.t, cols));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_packed .infer = infer_packed, .cost = cost_packed
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/packed.def"
#undef FL_OP
