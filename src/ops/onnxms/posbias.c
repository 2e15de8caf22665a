/*
 * posbias.c - ONNX Runtime's contrib relative position biases (domain
 * com.microsoft): RelativePositionBias, T5's bucketed bias, and
 * GatedRelativePositionBias, the gated bias of WavLM-style speech encoders.
 *
 * Shapes (ORT's contrib op schemas):
 *   RelativePositionBias  bias_table (num_buckets, N), query_length and
 *     key_length int64 scalars (or one-element vectors); attr max_distance
 *     required, is_bidirectional (default 0). output (1, N, Lq, Lk), Lq and
 *     Lk the two inputs' values (unknown without them), bias_table's type.
 *   GatedRelativePositionBias  attr num_heads N (required, > 0);
 *     query_layer (B, S, N*Dh), or (tokens, N*Dh) with token_offset (B, S)
 *     (input 6); query_bias (N*Dh); rel_pos (1, N, S, S); weight (Dh, D), D
 *     even; bias (D); eco_a (1, N, 1, 1). output (B, N, S, S), query's
 *     type.
 * A missing or bad attr, an input of the wrong rank, a hidden size N does
 * not divide or a weight whose rows are not the head size fails naming the
 * node and the attr or input.
 *
 * FLOP rule ("complete" convention):
 *   RelativePositionBias  per (query, key) position pair T5's bucket of j -
 *     i: the difference, its magnitude, the compare with max_exact, the
 *     ratio's divide, log, scale and offset, the clamp and the select, 9
 *     (+ 1 bidirectional: the sign's bucket offset), Lq * Lk pairs shared
 *     by the heads; the table look-up per output element moves data only.
 *     FLOPs = Lq * Lk * (9 + is_bidirectional); no MACs.
 *   GatedRelativePositionBias  with Q = E(query_layer), R = Q / Dh rows
 *     (token, head):
 *     MACs  = Q * D                        the gate linear, (Dh) x (Dh, D)
 *     FLOPs = 2 * MACs + Q                 + the query bias add
 *           + R * (2 * D + 4)              bias add D, the two sums of D/2
 *                                          (D - 2), sigmoid 2, gate_u *
 *                                          (gate_r * eco_a - 1) + 2: 4
 *           + E(output)                    gate times rel_pos
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

/* Input i's single integer value as a dim, unknown without one. */
static fl_status length_of(fl_ctx *c, const fl_node *n, int i, const char *name, fl_sym *out) {
    const fl_value *v = fl_op_in_value(n, i);
    const fl_shape *s = fl__op_in_shape(n, i);
    *out = fl_sym_unknown();
    if (s->rank > 1 || (s->rank == 1 && fl_sym_is_known(s->dims[0]) && s->dims[0].k != 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) is not a scalar or [1]", i, name);
    }
    if (v && v->n == 1 && v->ints) {
        *out = fl__value_int(v, 0);
        if (fl_sym_is_known(*out) && out->k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) is %lld, want >= 0", i, name,
                                 (long long)out->k);
        }
    }
    return FL_OK;
}

static fl_status rpb_read(fl_ctx *c, const fl_node *n, fl_sym *heads, fl_sym *lq, fl_sym *lk) {
    int64_t maxd;
    fl_status st = fl__attr_need_pos_int(n, "max_distance", &maxd, c->d);
    const fl_shape *t = fl__op_in_shape(n, 0);
    if (st != FL_OK) {
        return st;
    }
    if (t->rank >= 0 && t->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (bias_table) has rank %d, want 2 (buckets, heads)", t->rank);
    }
    *heads = fl__shape_dim(t, 1);
    if ((st = length_of(c, n, 1, "query_length", lq)) != FL_OK) {
        return st;
    }
    return length_of(c, n, 2, "key_length", lk);
}

static fl_status infer_rpb(fl_ctx *c, fl_node *n) {
    fl_sym h, lq, lk;
    fl_status st = rpb_read(c, n, &h, &lq, &lk);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4,
                                           (fl_sym[]){fl_sym_const(1), h, lq, lk})
                       : st;
}

static fl_status cost_rpb(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_sym h, lq, lk;
    int64_t bidi = 0;
    fl_status st = rpb_read(c, n, &h, &lq, &lk);
    if (st != FL_OK || (st = fl__attr_int_or(n, "is_bidirectional", 0, &bidi, c->d)) != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym flops = fl__ar_scale(&k, fl__ar_mul(&k, lq, lk), 9 + (bidi != 0));
    return fl__ar_put_cost(&k, out, flops, fl_sym_const(0));
}

typedef struct gate_dims {
    fl_sym b, s, dh, d;
    int64_t heads;
} gate_dims;

static fl_status want_rank(fl_ctx *c, const fl_node *n, int i, const char *name, int rank) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i, name,
                             s->rank, rank);
    }
    return FL_OK;
}

static fl_status gate_read(fl_ctx *c, const fl_node *n, gate_dims *a) {
    const fl_shape *q = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 3);
    bool packed = !fl__ox_absent(n, 6);
    fl_status st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d);
    if (st != FL_OK || (st = want_rank(c, n, 0, "query_layer", packed ? 2 : 3)) != FL_OK ||
        (st = want_rank(c, n, 3, "weight", 2)) != FL_OK ||
        (packed && (st = want_rank(c, n, 6, "token_offset", 2)) != FL_OK)) {
        return st;
    }
    const fl_shape *bs = packed ? fl__op_in_shape(n, 6) : q;
    a->b = fl__shape_dim(bs, 0);
    a->s = fl__shape_dim(bs, 1);
    fl_sym hidden = q->rank < 0 ? fl_sym_unknown() : fl__shape_dim(q, q->rank - 1);
    a->dh = fl_sym_unknown();
    if (fl_sym_is_known(hidden)) {
        if (hidden.k % a->heads != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 0 (query_layer)'s hidden size %lld is not a multiple of "
                                 "attr 'num_heads' %lld",
                                 (long long)hidden.k, (long long)a->heads);
        }
        a->dh = fl_sym_const(hidden.k / a->heads);
    }
    if ((st = fl__op_merge_dim(c, n, a->dh, fl__shape_dim(w, 0),
                               "input 3 (weight)'s rows and the head size", &a->dh)) != FL_OK) {
        return st;
    }
    a->d = fl__shape_dim(w, 1);
    if (fl_sym_is_known(a->d) && a->d.k % 2 != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 3 (weight) has %lld columns, want even",
                             (long long)a->d.k);
    }
    return FL_OK;
}

static fl_status infer_gate(fl_ctx *c, fl_node *n) {
    gate_dims a;
    fl_status st = gate_read(c, n, &a);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4,
                                           (fl_sym[]){a.b, fl_sym_const(a.heads), a.s, a.s})
                       : st;
}

static fl_status cost_gate(fl_ctx *c, const fl_node *n, fl_cost *out) {
    gate_dims a;
    fl_status st = gate_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym q = fl__ar_numel(&k, fl__op_in_shape(n, 0));
    fl_sym rows = fl_sym_unknown();
    bool exact = false;
    if (fl_sym_is_known(a.dh) && a.dh.k > 0 &&
        (fl__sym_div(c->st, q, a.dh, &rows, &exact) != FL_OK || !exact)) {
        rows = fl_sym_unknown();
    }
    fl_sym macs = fl__ar_mul(&k, q, a.d);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), q);
    flops = fl__ar_add(
        &k, flops, fl__ar_mul(&k, rows, fl__ar_add(&k, fl__ar_scale(&k, a.d, 2), fl_sym_const(4))));
    flops = fl__ar_add(&k, flops, fl__ar_numel(&k, &n->outputs[0].shape));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* clang-format off */
#define HOOKS_rel_pos_bias .infer = infer_rpb, .cost = cost_rpb
#define HOOKS_gated_rel_pos_bias .infer = infer_gate, .cost = cost_gate
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/posbias.def"
#undef FL_OP
