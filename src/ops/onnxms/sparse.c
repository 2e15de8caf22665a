/*
 * sparse.c - ONNX Runtime's contrib block-sparse attention (domain
 * com.microsoft): SparseAttention (Phi-3-small), causal attention over a
 * key/value cache in which each query block attends only to the key blocks
 * its layout lists.
 *
 * Shapes (ORT's contrib op schema). N = attr num_heads, Nk = attr
 * kv_num_heads (both required, > 0, Nk dividing N), bs = attr
 * sparse_block_size (required, > 0). query (B, S, N*D) with key and value
 * (B, S, Nk*D), or packed QKV query (B, S, (N + 2*Nk)*D) without key and
 * value; past_key and past_value (B, Nk, M, D), the cache of M positions
 * shared with the presents; block_row_indices (L, MB + 1) and
 * block_col_indices (L, nnz), a CSR block mask per layout (head h uses
 * layout h mod L; L divides N); total_sequence_length (a scalar T, the
 * longest key length), key_total_sequence_lengths (B), cos_cache and
 * sin_cache (optional, for do_rotary). Outputs: output (B, S, N*D),
 * present_key and present_value of past_key's shape. D is past_key's last
 * dim, else from query.
 *
 * FLOP rule ("complete" convention). The S queries are at positions T - S
 * .. T - 1; query position q lies in block row q / bs of its head's layout,
 * and scores every key of each key block c that row lists: min(bs, T - c *
 * bs) keys (the kernels compute whole blocks; the causal mask inside the
 * diagonal block halves nothing, as for every attention op here). R, the
 * scores, is B times the sum over heads and queries; every batch row is
 * counted at the longest key length T (key_total_sequence_lengths is not
 * read: an upper bound for shorter rows). When the layout's indices, T or
 * S have no known value, every query scores every key:
 *   R = B * N * S * T  (T = total_sequence_length's value, else the cache
 *                       length M)
 * the dense count, an upper bound, with a warning naming the node. Then
 *   MACs  = 2 * R * D                   Q K^T and the weighted sum of V
 *   FLOPs = 2 * MACs + 6 * R            (the scale, Softmax 5 per score)
 *         + 3 * B * S * (N + Nk) * Dr   with do_rotary (as GroupQuery-
 *                                       Attention: Dr = 2 * cos_cache's dim
 *                                       1, else D)
 * A layout whose block rows do not reach a query, indices out of range, or
 * a layout count that does not divide the heads fail naming the node and
 * the input or attribute.
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

typedef struct sp_dims {
    fl_sym b, s, d, m;
    int64_t heads, kv_heads, bs;
} sp_dims;

static fl_status sp_read(fl_ctx *c, const fl_node *n, sp_dims *a) {
    fl_status st;
    if ((st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d)) != FL_OK ||
        (st = fl__attr_need_pos_int(n, "kv_num_heads", &a->kv_heads, c->d)) != FL_OK ||
        (st = fl__attr_need_pos_int(n, "sparse_block_size", &a->bs, c->d)) != FL_OK) {
        return st;
    }
    if (a->heads % a->kv_heads != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'kv_num_heads' %lld does not divide attr 'num_heads' %lld",
                             (long long)a->kv_heads, (long long)a->heads);
    }
    const fl_shape *q = fl__op_in_shape(n, 0), *pk = fl__op_in_shape(n, 3);
    if (q->rank >= 0 && q->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (query) has rank %d, want 3 (batch, sequence, hidden)",
                             q->rank);
    }
    if (pk->rank >= 0 && pk->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 3 (past_key) has rank %d, want 4 (batch, kv heads, max "
                             "sequence, head size)",
                             pk->rank);
    }
    a->b = fl__shape_dim(q, 0);
    a->s = fl__shape_dim(q, 1);
    a->m = fl__shape_dim(pk, 2);
    a->d = fl__shape_dim(pk, 3);
    fl_sym h = fl__shape_dim(q, 2);
    bool packed = fl__ox_absent(n, 1) && fl__ox_absent(n, 2);
    int64_t parts = a->heads;
    if (packed &&
        (st = fl__op_ck(
             c, n, fl_ck_add(fl_ck_of(a->heads), fl_ck_mul(fl_ck_of(2), fl_ck_of(a->kv_heads))),
             &parts,
             "attrs 'num_heads' %lld and 'kv_num_heads' %lld: num_heads + 2 * "
             "kv_num_heads",
             (long long)a->heads, (long long)a->kv_heads)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(h) && h.k % parts != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (query)'s hidden size %lld is not a multiple of %lld heads",
                             (long long)h.k, (long long)parts);
    }
    if (!fl_sym_is_known(a->d) && fl_sym_is_known(h)) {
        a->d = fl_sym_const(h.k / parts);
    } else if (fl_sym_is_known(a->d) && fl_sym_is_known(h) && h.k / parts != a->d.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (query)'s hidden size %lld is not %lld heads of input 3 "
                             "(past_key)'s head size %lld",
                             (long long)h.k, (long long)parts, (long long)a->d.k);
    }
    return FL_OK;
}

static fl_status infer_sparse(fl_ctx *c, fl_node *n) {
    sp_dims a;
    fl_status st = sp_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    fl_sym hd = fl_sym_unknown();
    if (fl_sym_is_known(a.d) && (st = fl__op_scale(c, n, a.d, a.heads, &hd)) != FL_OK) {
        return st;
    }
    fl_sym present[4] = {a.b, fl_sym_const(a.kv_heads), a.m, a.d};
    if ((st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){a.b, a.s, hd})) != FL_OK ||
        (st = fl__ox_set_out(c, n, 1, dt, 4, present)) != FL_OK) {
        return st;
    }
    return fl__ox_set_out(c, n, 2, dt, 4, present);
}

/* A rank-2 input's known integer value: rows x cols into *v; false when it
 * has none. */
static bool int_matrix(const fl_node *n, int i, const fl_sym **v, int64_t *rows, int64_t *cols) {
    const fl_value *x = fl_op_in_value(n, i);
    if (!x || !x->ints || x->rank != 2) {
        return false;
    }
    for (int64_t k = 0; k < x->n; k++) {
        if (!fl_sym_is_known(x->ints[k])) {
            return false;
        }
    }
    *v = x->ints;
    *rows = x->dims[0];
    *cols = x->dims[1];
    return true;
}

/* Keys one query of block row r scores under layout l (T keys in all). */
static fl_status row_keys(fl_ctx *c, const fl_node *n, const fl_sym *row, const fl_sym *col,
                          int64_t mb1, int64_t nnz, int64_t l, int64_t r, int64_t bs, int64_t t,
                          int64_t *out) {
    const fl_sym *rp = row + l * mb1;
    int64_t lo = rp[r].k, hi = rp[r + 1].k;
    if (lo < 0 || hi < lo || hi > nnz) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 5 (block_row_indices) layout %lld row %lld spans [%lld, "
                             "%lld), outside input 6 (block_col_indices)'s %lld columns",
                             (long long)l, (long long)r, (long long)lo, (long long)hi,
                             (long long)nnz);
    }
    *out = 0;
    for (int64_t k = lo; k < hi; k++) {
        int64_t cb = col[l * nnz + k].k;
        if (cb < 0 || cb >= mb1 - 1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 6 (block_col_indices) layout %lld entry %lld is %lld, "
                                 "outside the %lld key blocks",
                                 (long long)l, (long long)k, (long long)cb, (long long)(mb1 - 1));
        }
        int64_t keys = t - cb * bs;
        *out += keys < 0 ? 0 : keys < bs ? keys : bs;
    }
    return FL_OK;
}

/* Scores per batch row from the block layout; false (*ok) when the layout,
 * T or S has no known value. */
static fl_status layout_scores(fl_ctx *c, const fl_node *n, const sp_dims *a, int64_t t,
                               int64_t *out, bool *ok) {
    const fl_sym *row, *col;
    int64_t layouts, mb1, l2, nnz;
    *ok = fl_sym_is_known(a->s) && t >= 0 && int_matrix(n, 5, &row, &layouts, &mb1) &&
          int_matrix(n, 6, &col, &l2, &nnz) && layouts > 0 && l2 == layouts && mb1 >= 1;
    if (!*ok) {
        return FL_OK;
    }
    if (a->heads % layouts != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 5 (block_row_indices) has %lld layouts, which do not divide "
                             "attr 'num_heads' %lld",
                             (long long)layouts, (long long)a->heads);
    }
    int64_t first = t - a->s.k;
    if (first < 0 || (t > 0 && (t - 1) / a->bs >= mb1 - 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 5 (block_row_indices) has %lld block rows of %lld: they do "
                             "not reach the queries at positions %lld..%lld",
                             (long long)(mb1 - 1), (long long)a->bs, (long long)first,
                             (long long)(t - 1));
    }
    *out = 0;
    for (int64_t l = 0; l < layouts; l++) {
        for (int64_t r = first / a->bs; a->s.k > 0 && r <= (t - 1) / a->bs; r++) {
            int64_t keys = 0, lo = r * a->bs > first ? r * a->bs : first;
            int64_t hi = (r + 1) * a->bs < t ? (r + 1) * a->bs : t;
            fl_status st = row_keys(c, n, row, col, mb1, nnz, l, r, a->bs, t, &keys);
            if (st != FL_OK) {
                return st;
            }
            *out += keys * (hi - lo) * (a->heads / layouts);
        }
    }
    return FL_OK;
}

static fl_status cost_sparse(fl_ctx *c, const fl_node *n, fl_cost *out) {
    sp_dims a;
    fl_status st = sp_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    int64_t *tv, cnt;
    bool has_t = fl__op_in_int_vector(c, n, 7, &tv, &cnt) == FL_OK && cnt == 1;
    int64_t per_row = 0;
    bool ok = false;
    if (has_t && (st = layout_scores(c, n, &a, tv[0], &per_row, &ok)) != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym scores;
    if (ok) {
        scores = fl__ar_mul(&k, a.b, fl_sym_const(per_row));
    } else {
        fl__node_warn(c->d, n,
                      "the block layout (inputs 5, 6), total_sequence_length or the query length "
                      "has no known value: every query is counted against every key, the "
                      "node's count is an upper bound");
        fl_sym t = has_t ? fl_sym_const(tv[0]) : a.m;
        scores = fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_mul(&k, a.b, a.s), t), a.heads);
    }
    fl_sym macs = fl__ar_scale(&k, fl__ar_mul(&k, scores, a.d), 2);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, scores, 6));
    int64_t rotary;
    if ((st = fl__attr_int_or(n, "do_rotary", 0, &rotary, c->d)) != FL_OK) {
        return st;
    }
    if (rotary) {
        fl_sym half = fl__shape_dim(fl__op_in_shape(n, 9), 1);
        fl_sym dr = fl__ox_absent(n, 9) ? a.d : fl__ar_scale(&k, half, 2);
        fl_sym rows = fl__ar_mul(&k, a.b, a.s);
        flops = fl__ar_add(&k, flops,
                           fl__ar_scale(&k, fl__ar_mul(&k, rows, dr), 3 * (a.heads + a.kv_heads)));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_sparse .infer = infer_sparse, .cost = cost_sparse
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/sparse.def"
#undef FL_OP
