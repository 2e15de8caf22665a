/*
 * rnn.c - the recurrent-cell op family: GRUBlockCell (TensorFlow's
 * tensorflow/core/ops/rnn_ops.cc) and AUGRUBlockCell (the attention GRU of
 * oneDNN builds; the remapper's row 12 writes both, see
 * src/passes/remapper.c).
 *
 * Inputs and outputs (rnn_ops.cc; the oneDNN fork adds bfloat16 and the
 * attrs lbr and training, both default false, to GRUBlockCell and registers
 * AUGRUBlockCell):
 *   GRUBlockCell    x [B, I], h_prev [B, H], w_ru [I+H, 2H], w_c [I+H, H],
 *                   b_ru [2H], b_c [H]
 *   AUGRUBlockCell  x, h_prev, au_x (the attention score, rank 2; [B, 1] in
 *                   the models that use it), w_ru, w_c, b_ru, b_c
 *   outputs         r, u, c, h, each [B, H]: B = x.shape[0], H =
 *                   h_prev.shape[1]; dtype T (else x's dtype)
 * Shapes follow TensorFlow's shape function exactly: x and h_prev (and au_x)
 * must be 2-D; nothing else is checked (the kernel checks the weights). Not
 * evaluated on values.
 *
 * FLOP rules, "complete" convention: what the cell computes, counted as its
 * unfused ops count (so the remapper's fusion keeps the totals), with
 * K = I + H:
 *   [r, u] = Sigmoid([x, h_prev] . w_ru + b_ru)   MatMul 2*B*K*2H, BiasAdd
 *                                                 2BH, Sigmoid 2BH
 *   c = Tanh([x, r * h_prev] . w_c + b_c)         Mul BH, MatMul 2*B*K*H,
 *                                                 BiasAdd BH, Tanh BH
 *   h = u * h_prev + (1 - u) * c                  Sub BH, Mul BH, Mul BH,
 *                                                 Add BH
 *   GRUBlockCell    MACs = 3*B*H*K;  FLOPs = 6*B*H*K + 11*B*H
 *   AUGRUBlockCell  the same with u := u * (1 - au_x): + B*H (Mul) +
 *                   E(au_x) (Sub)
 * The concatenations and the split move data only (0).
 *
 * tfprof convention: tfprof registers neither op, so tfprof_flops is 0 and
 * tfprof_rule false (as for the _Fused* ops: tfprof registers no statistics for them). Bytes come
 * from the cost model (every input read, the four outputs written).
 */
#include "ops/common.h"

static fl_status need_matrix(fl_ctx *c, const fl_node *n, int i, const char *what) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must be 2-D, got rank %d", i,
                             what, s->rank);
    }
    return FL_OK;
}

/* au: the AUGRU form (input 2 is au_x). */
static fl_status infer_gru_impl(fl_ctx *c, fl_node *n, bool au) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_get_type(n, "T", &dt, c->d);
    if (st == FL_ENOTFOUND) {
        dt = (int)fl_dtype_base(fl_node_in(n, 0)->dtype);
    } else if (st != FL_OK) {
        return st;
    }
    if ((st = need_matrix(c, n, 0, "x")) != FL_OK ||
        (st = need_matrix(c, n, 1, "h_prev")) != FL_OK ||
        (au && (st = need_matrix(c, n, 2, "au_x")) != FL_OK)) {
        return st;
    }
    fl_sym dims[2] = {fl__shape_dim(fl__op_in_shape(n, 0), 0),
                      fl__shape_dim(fl__op_in_shape(n, 1), 1)};
    for (int port = 0; port < 4; port++) {
        if ((st = fl__op_set_output(c, n, port, dt, 2, dims)) != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_gru(fl_ctx *c, fl_node *n) {
    return infer_gru_impl(c, n, false);
}

static fl_status infer_augru(fl_ctx *c, fl_node *n) {
    return infer_gru_impl(c, n, true);
}

static fl_status cost_gru_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool au) {
    fl_arith k = {c, n, FL_OK};
    fl_sym b = fl__shape_dim(fl__op_in_shape(n, 0), 0), i = fl__shape_dim(fl__op_in_shape(n, 0), 1);
    fl_sym h = fl__shape_dim(fl__op_in_shape(n, 1), 1);
    fl_sym bh = fl__ar_mul(&k, b, h);
    fl_sym bhk = fl__ar_mul(&k, bh, fl__ar_add(&k, i, h));
    fl_sym macs = fl__ar_scale(&k, bhk, 3);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, bhk, 6), fl__ar_scale(&k, bh, 11));
    if (au) {
        flops = fl__ar_add(&k, flops, fl__ar_add(&k, bh, fl__ar_numel(&k, fl__op_in_shape(n, 2))));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

static fl_status cost_gru(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_gru_impl(c, n, out, false);
}

static fl_status cost_augru(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_gru_impl(c, n, out, true);
}

/* Hook sets and descriptors (their rows: rnn/gru.def). */
#define HOOKS_gru   .infer = infer_gru, .cost = cost_gru
#define HOOKS_augru .infer = infer_augru, .cost = cost_augru

#define FL_OP FL_OP_DESC
#include "ops/rnn/gru.def"
#undef FL_OP
