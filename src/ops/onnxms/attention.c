/*
 * attention.c - ONNX Runtime's contrib attention (domain com.microsoft):
 * Attention, the BERT/GPT-2 self-attention with its merged Q/K/V input
 * projection, DecoderMaskedSelfAttention, its one-token decoding step, and
 * QAttention, its form with an int8/uint8 projection.
 *
 * Shapes (ORT's contrib op schema): input (B, S, H_in), weights (H_in, Hq +
 * Hk + Hv), bias (Hq + Hk + Hv, optional), mask_index (optional), past (2,
 * B, N, P, Hq / N, optional), attention_bias (optional). Hq, Hk, Hv come from
 * attr qkv_hidden_sizes, else weights' second dim split in three equal parts.
 * N = attr num_heads (required, > 0, dividing Hq and Hv). Outputs: output
 * (B, S, Hv), present (2, B, N, T, Hq / N) with T = P + S (P = 0 without
 * past). A missing or bad num_heads, qkv_hidden_sizes not three positive
 * ints summing to weights' second dim, or an input of the wrong rank fails
 * naming the node and the attribute or input. With attr
 * past_present_share_buffer set (past and present one max-length buffer of
 * M positions), present keeps past's shape (2, B, N, M, Hq / N) and T =
 * the value of past_sequence_length (input 6) + S, unknown without it.
 *
 * DecoderMaskedSelfAttention, the GPT-style decoding step of ORT's beam
 * search, has Attention's inputs 0-6 (past and past_sequence_length
 * required), then beam_width and cache_indirection, which choose the beam
 * whose cached keys a row reads (no arithmetic): Attention's shapes and
 * rule.
 *
 * FLOP rule ("complete" convention; attention counted in full): with D_q =
 * Hq / N and D_v = Hv / N,
 *   MACs  = B * S * H_in * (Hq + Hk + Hv)      the Q/K/V projection
 *         + B * N * S * T * D_q                Q K^T
 *         + B * N * S * T * D_v                the weighted sum of V
 *   FLOPs = 2 * MACs
 *         + B * S * (Hq + Hk + Hv)             when bias is given
 *         + B * N * S * T * (1 + 5)            the scale and Softmax (5 per
 *                                              element, as onnx::Softmax)
 *         + B * N * S * T                      when mask_index or
 *                                              attention_bias is given (the
 *                                              mask add)
 * which is what the unfused chain (MatMul, Add, MatMul, Div, Add, Softmax,
 * MatMul) counts. A causal mask (unidirectional = 1) halves nothing: the
 * kernels compute the full S x T score matrix and mask it, and the count is
 * the same with and without it.
 *
 * QAttention: input (B, S, H_in) int8/uint8, weight (H_in, 3 * H) int8/uint8,
 * bias (3 * H) float (required), input_scale, weight_scale, mask_index,
 * input_zero_point, weight_zero_point, past (2, B, N, P, H / N) at input 8
 * (ORT's contrib op schema; no qkv_hidden_sizes: Q, K and V are H wide).
 * Outputs: output (B, S, H) and present (2, B, N, P + S, H / N) of bias's
 * float type. The projection is an integer product (onnx::MatMulInteger's
 * rule, src/ops/onnxops/misc.c), the rest float as ORT's kernels run it
 * (the int32 projection dequantized, then the float attention above):
 *   int_ops = 2 * B * S * H_in * 3H + E(input) + E(weight)  (the product
 *             and the zero points' subtractions, an absent zero point is 0
 *             and still subtracted)
 *   MACs    = B * N * S * T * (D + D)           Q K^T and the weighted sum
 *   FLOPs   = 2 * MACs + B * S * 3H * 2          (the dequantization's
 *             multiply by input_scale * weight_scale and the bias add)
 *           + B * N * S * T * 6 (+ 1 with mask_index)   as Attention's
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

typedef struct att_dims {
    fl_sym b, s, h_in, hq, hk, hv, p, t, present;
    int64_t heads;
} att_dims;

/* Attention and DecoderMaskedSelfAttention with attr
 * past_present_share_buffer: present is past's max-length buffer, T the
 * value of past_sequence_length (input 6) + S, unknown without it. */
static fl_status att_shared(fl_ctx *c, const fl_node *n, att_dims *a) {
    int64_t share = 0, *v, cnt;
    fl_status st = fl__attr_int_or(n, "past_present_share_buffer", 0, &share, c->d);
    if (st != FL_OK || !share || fl__ox_absent(n, 4)) {
        return st;
    }
    a->present = a->p;
    a->t = fl_sym_unknown();
    if (fl__ox_absent(n, 6)) {
        return FL_OK;
    }
    st = fl__op_in_int_vector(c, n, 6, &v, &cnt);
    if (st == FL_OK && cnt == 1) {
        return fl__op_add(c, n, fl_sym_const(v[0]), a->s, &a->t);
    }
    return st == FL_EINVAL ? st : FL_OK;
}

/* Reads num_heads, the hidden sizes and the sequence lengths. */
static fl_status att_read(fl_ctx *c, const fl_node *n, att_dims *a) {
    const fl_shape *w = fl__op_in_shape(n, 1);
    fl_sym xh;
    fl_status st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d);
    if (st != FL_OK || (st = fl__ox_bsh_input(c, n, &a->b, &a->s, &xh)) != FL_OK) {
        return st;
    }
    if (w->rank >= 0 && w->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (weights) has rank %d, want 2", w->rank);
    }
    fl_sym wcols = fl__shape_dim(w, 1);
    if ((st = fl__op_merge_dim(c, n, xh, fl__shape_dim(w, 0),
                               "input 0 (input)'s last dim and input 1 (weights)'s first",
                               &a->h_in)) != FL_OK) {
        return st;
    }
    if ((st = fl__ox_qkv_sizes(c, n, wcols, &a->hq, &a->hk, &a->hv)) != FL_OK) {
        return st;
    }
    if ((fl_sym_is_known(a->hq) && a->hq.k % a->heads != 0) ||
        (fl_sym_is_known(a->hv) && a->hv.k % a->heads != 0)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_heads' %lld does not divide the Q and V hidden sizes "
                             "(%lld, %lld)",
                             (long long)a->heads, (long long)a->hq.k, (long long)a->hv.k);
    }
    a->p = fl_sym_const(0);
    int past_in = n->kind == FL_OP_ONNX_MS_QATTENTION ? 8 : 4;
    if (!fl__ox_absent(n, past_in)) {
        const fl_shape *past = fl__op_in_shape(n, past_in);
        if (past->rank >= 0 && past->rank != 5) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d (past) has rank %d, want 5 (2, batch, heads, past "
                                 "sequence, head size)",
                                 past_in, past->rank);
        }
        a->p = fl__shape_dim(past, 3);
    }
    if ((st = fl__op_add(c, n, a->p, a->s, &a->t)) != FL_OK) {
        return st;
    }
    a->present = a->t;
    return n->kind == FL_OP_ONNX_MS_QATTENTION ? FL_OK : att_shared(c, n, a);
}

static fl_status infer_attention(fl_ctx *c, fl_node *n) {
    att_dims a;
    fl_status st = att_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    bool q = n->kind == FL_OP_ONNX_MS_QATTENTION;
    int dt = fl__ox_in_dtype(n, q ? 2 : 0);
    if ((st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.s, a.hv})) != FL_OK) {
        return st;
    }
    fl_sym d = fl_sym_is_known(a.hq) ? fl_sym_const(a.hq.k / a.heads) : fl_sym_unknown();
    return fl__ox_set_out(c, n, 1, dt, 5,
                          (fl_sym[]){fl_sym_const(2), a.b, fl_sym_const(a.heads), a.present, d});
}

static fl_status cost_attention(fl_ctx *c, const fl_node *n, fl_cost *out) {
    att_dims a;
    fl_status st = att_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym rows = fl__ar_mul(&k, a.b, a.s);
    fl_sym cols = fl__ar_add(&k, fl__ar_add(&k, a.hq, a.hk), a.hv);
    fl_sym proj = fl__ar_mul(&k, fl__ar_mul(&k, rows, a.h_in), cols);
    fl_sym st_ = fl__ar_mul(&k, rows, a.t); /* B * S * T */
    fl_sym attn = fl__ar_mul(&k, st_, fl__ar_add(&k, a.hq, a.hv));
    fl_sym scores = fl__ar_scale(&k, st_, a.heads);
    if (n->kind == FL_OP_ONNX_MS_QATTENTION) {
        fl_sym zp = fl__ar_add(&k, fl__ar_numel(&k, &fl_node_in(n, 0)->shape),
                               fl__ar_numel(&k, &fl_node_in(n, 1)->shape));
        fl_sym iops = fl__ar_add(&k, fl__ar_scale(&k, proj, 2), zp);
        fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, attn, 2),
                                  fl__ar_scale(&k, fl__ar_mul(&k, rows, cols), 2));
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, scores, 6 + !fl__ox_absent(n, 5)));
        return fl__ar_put_int_cost(&k, out, flops, attn, iops);
    }
    fl_sym macs = fl__ar_add(&k, proj, attn);
    int64_t per_score = 6 + (!fl__ox_absent(n, 3) || !fl__ox_absent(n, 5));
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, scores, per_score));
    if (!fl__ox_absent(n, 2)) {
        flops = fl__ar_add(&k, flops, fl__ar_mul(&k, rows, cols));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_attention .infer = infer_attention, .cost = cost_attention
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/attention.def"
#undef FL_OP
