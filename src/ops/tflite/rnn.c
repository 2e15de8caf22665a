/*
 * tflite/rnn.c - TFLite's recurrent cells, inputs in the order of TFLite's
 * kernels:
 *  - RNN: x [B, I], weights [U, I], recurrent weights [U, U], bias [U],
 *    hidden state [B, U] -> [B, U]. UNIDIRECTIONAL_SEQUENCE_RNN: the same
 *    with x [T, B, I] (option time_major) or [B, T, I] -> U replaces I.
 *  - LSTM (full kernel; the basic kernel, kernel_type 1, takes the stored
 *    shapes) and UNIDIRECTIONAL_SEQUENCE_LSTM: x, then input-to-gate weights
 *    [C, I] for the input (1, optional: absent with coupled input and forget
 *    gates, CIFG), forget (2), cell (3) and output (4) gates; recurrent
 *    weights [C, O] (5-8, 5 optional); peephole vectors [C] (9-11,
 *    optional); gate biases (12-15); projection weights [O, C] (16,
 *    optional) and bias (17); output and cell state (18, 19); layer-norm
 *    coefficients (20-23, optional). x [B, I] -> [B, O]; the sequence form
 *    x [T, B, I] or [B, T, I] -> O replaces I. O is dim 1 of the recurrent
 *    output weights.
 * Costs, per step and batch row (S = E(x) / I: T * B, or B):
 *  - RNN: MACs U * (I + U); FLOPs 2 * MACs + U (bias) + U for a fused
 *    activation other than NONE.
 *  - LSTM with G gates (4, or 3 under CIFG): MACs G * C * (I + O), plus C
 *    per peephole vector, plus O * C for a projection; FLOPs 2 * MACs +
 *    G * C (biases) + G * C (the gates' activations) + 3 * C (c = f * c +
 *    i * g) + 2 * C (h = o * act(c)) + O for a projection bias. Layer
 *    normalisation and clipping are not counted. The basic LSTM kernel
 *    (weights [4 * C, I + O], input 2): MACs B * 4C * (I + O), FLOPs 2 *
 *    MACs + B * 4C * 3 (bias, gate activation, state update), shapes as
 *    stored.
 * Every result is checked against the stored shapes (fl__tfl_check_all).
 */
#include "ops/tflite/tfl.h"

#include <string.h>

static const fl_shape *in_shape(const fl_node *n, int i) {
    static const fl_shape unknown = {-1, NULL};
    return i < n->n_inputs && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT
               ? &fl_node_in(n, i)->shape
               : &unknown;
}

static bool present(const fl_node *n, int i) {
    return i < n->n_inputs && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT;
}

/* Dim d of input i, unknown when the input or its rank is. */
static fl_sym in_dim(const fl_node *n, int i, int d) {
    const fl_shape *s = in_shape(n, i);
    return d < s->rank ? s->dims[d] : fl_sym_unknown();
}

static bool is_lstm(const fl_node *n) {
    return n->kind == FL_OP_TFL_LSTM || n->kind == FL_OP_TFL_UNIDIRECTIONAL_SEQUENCE_LSTM;
}

static bool is_sequence(const fl_node *n) {
    return n->kind == FL_OP_TFL_UNIDIRECTIONAL_SEQUENCE_RNN ||
           n->kind == FL_OP_TFL_UNIDIRECTIONAL_SEQUENCE_LSTM;
}

/* The cell's output size: U (weights dim 0) or O (recurrent output weights
 * dim 1). */
static fl_sym units(const fl_node *n) {
    return is_lstm(n) ? in_dim(n, 8, 1) : in_dim(n, 1, 0);
}

fl_status fl__tfl_infer_rnn(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    const fl_attr *kt = fl__node_attr(n, "kernel_type");
    int want = is_sequence(n) ? 3 : 2;
    if (n->n_outputs < 1 || (kt && kt->kind == FL_ATTR_I && kt->v.i != 0)) {
        fl_status st = FL_OK;
        for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
            st = fl__tfl_from_stored(c, n, p);
        }
        return st;
    }
    int dt = n->n_inputs > 0 ? (int)fl_node_in(n, 0)->dtype : FL_DT_INVALID;
    fl_status st;
    if (x->rank != want) {
        st = fl__op_set_output(c, n, 0, dt, -1, NULL);
    } else {
        fl_sym dims[3];
        for (int i = 0; i < want - 1; i++) {
            dims[i] = x->dims[i];
        }
        dims[want - 1] = units(n);
        st = fl__op_set_output(c, n, 0, dt, want, dims);
    }
    for (int p = 1; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p); /* the basic kernel's states */
    }
    return fl__tfl_check_all(c, n, st);
}

/* Per step and batch row: *macs and the other FLOPs (*rest). */
static void lstm_step(fl_arith *k, const fl_node *n, fl_sym in, fl_sym *macs, fl_sym *rest) {
    fl_sym cell = in_dim(n, 4, 0), out = in_dim(n, 8, 1);
    int64_t gates = present(n, 1) ? 4 : 3;
    fl_sym m = fl__ar_mul(k, fl__ar_scale(k, cell, gates), fl__ar_add(k, in, out));
    for (int i = 9; i <= 11; i++) {
        if (present(n, i)) {
            m = fl__ar_add(k, m, cell);
        }
    }
    if (present(n, 16)) {
        m = fl__ar_add(k, m, fl__ar_mul(k, out, cell));
    }
    *macs = m;
    *rest = fl__ar_scale(k, cell, 2 * gates + 5);
    if (present(n, 17)) {
        *rest = fl__ar_add(k, *rest, out);
    }
}

fl_status fl__tfl_cost_rnn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = in_shape(n, 0);
    if (x->rank < 1) {
        return fl__ar_put_cost(&k, out, fl_sym_unknown(), fl_sym_unknown());
    }
    fl_sym steps = fl__ar_dims_prod(&k, x, 0, x->rank - 1), in = x->dims[x->rank - 1];
    fl_sym macs, rest;
    const fl_attr *kt = fl__node_attr(n, "kernel_type");
    if (kt && kt->kind == FL_ATTR_I && kt->v.i != 0) {
        /* The basic kernel: one weight matrix [4 * C, I + O] (input 2) over
         * the concatenated input and previous output; 4 * C gate elements. */
        fl_sym rows = in_dim(n, 2, 0);
        macs = fl__ar_mul(&k, x->dims[0], fl__ar_mul(&k, rows, in_dim(n, 2, 1)));
        fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2),
                                  fl__ar_mul(&k, x->dims[0], fl__ar_scale(&k, rows, 3)));
        return fl__ar_put_cost(&k, out, flops, macs);
    }
    if (is_lstm(n)) {
        lstm_step(&k, n, in, &macs, &rest);
    } else {
        fl_sym u = in_dim(n, 1, 0);
        const fl_attr *a = fl__node_attr(n, "fused_activation_function");
        bool act = a && a->kind == FL_ATTR_S && a->v.s.p && strcmp(a->v.s.p, "NONE") != 0;
        macs = fl__ar_mul(&k, u, fl__ar_add(&k, in, u));
        rest = fl__ar_scale(&k, u, act ? 2 : 1);
    }
    macs = fl__ar_mul(&k, steps, macs);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_mul(&k, steps, rest));
    return fl__ar_put_cost(&k, out, flops, macs);
}
