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
 *  - BIDIRECTIONAL_SEQUENCE_RNN: x [T, B, I] or [B, T, I]; forward cell
 *    weights (1), recurrent weights (2), bias (3), hidden state (4); the
 *    backward cell's at 5-8; aux_input (9) with optional aux weights [U,
 *    aux_I] (10 forward, 11 backward). BIDIRECTIONAL_SEQUENCE_LSTM: x, the
 *    forward cell's 17 tensors at 1-17 and the backward cell's at 18-34 (the
 *    unidirectional layout), states 35-38, aux_input (39) and aux weights
 *    (40-43 forward, 44-47 backward). Outputs [T, B, U_fw] and [T, B, U_bw]
 *    (the first dims as x's), or one [T, B, U_fw + U_bw] with option
 *    merge_outputs. As TFLite's kernels, the backward cell reads aux_input
 *    instead of x when aux_input is given without aux weights.
 *    Costs: each direction as the unidirectional cell over its input, + U *
 *    aux_I MACs per step and batch row per aux weight matrix (G of them for
 *    an LSTM).
 *  - SVDF: x [B, I], weights_feature [F, I], weights_time [F, M], bias [U]
 *    (optional), activation state [B, M * F]; option rank, U = F / rank. x
 *    -> [B, U]. MACs B * F * (I + M) (the feature projection into the
 *    state's newest column, then each filter's time dot product); FLOPs 2 *
 *    MACs + B * F (the sum over rank into the bias-initialised output) + B *
 *    U for a fused activation other than NONE. The state's shift moves
 *    data only.
 * Every result is checked against the stored shapes (fl__tfl_check_all).
 */
#include "ops/tflite/tfl.h"

#include <string.h>

static bool present(const fl_node *n, int i) {
    return i < n->n_inputs && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT;
}

/* Dim d of input i, unknown when the input or its rank is. */
static fl_sym in_dim(const fl_node *n, int i, int d) {
    const fl_shape *s = fl__tfl_in_shape(n, i);
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

static void lstm_step(fl_arith *k, const fl_node *n, int base, fl_sym in, fl_sym *macs,
                      fl_sym *rest);

static bool act_set(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "fused_activation_function");
    return a && a->kind == FL_ATTR_S && a->v.s.p && strcmp(a->v.s.p, "NONE") != 0;
}

static int in_dtype(const fl_node *n) {
    return n->n_inputs > 0 ? (int)fl_node_in(n, 0)->dtype : FL_DT_INVALID;
}

/* SVDF (the header's rule). */
static fl_status infer_svdf(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    fl_sym f = in_dim(n, 1, 0), u = fl_sym_unknown();
    const fl_attr *ra = fl__node_attr(n, "rank");
    int64_t rank = ra && ra->kind == FL_ATTR_I ? ra->v.i : 0;
    if (fl_sym_is_known(f) && rank > 0 && f.k % rank == 0) {
        u = fl_sym_const(f.k / rank);
    } else if (fl_sym_is_known(f)) {
        fl__node_warn(c->d, n,
                      "tensor '%s': %lld filters are not a positive multiple of option rank "
                      "%lld; the file's shape is used",
                      n->name, (long long)f.k, (long long)rank);
    }
    fl_status st = x->rank == 2
                       ? fl__op_set_output(c, n, 0, in_dtype(n), 2, (fl_sym[]){x->dims[0], u})
                       : fl__op_set_output(c, n, 0, in_dtype(n), -1, NULL);
    for (int p = 1; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return fl__tfl_check_all(c, n, st);
}

static fl_status cost_svdf(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym b = in_dim(n, 0, 0), bf = fl__ar_mul(&k, b, in_dim(n, 1, 0));
    fl_sym macs = fl__ar_mul(&k, bf, fl__ar_add(&k, in_dim(n, 0, 1), in_dim(n, 2, 1)));
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), bf);
    if (act_set(n)) {
        flops = fl__ar_add(&k, flops, fl__ar_numel(&k, &n->outputs[0].shape));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* Bidirectional sequence cells (the header's rule). */
static bool is_bidi_lstm(const fl_node *n) {
    return n->kind == FL_OP_TFL_BIDIRECTIONAL_SEQUENCE_LSTM;
}

/* Output units of the forward (bw false) or backward cell. */
static fl_sym bidi_units(const fl_node *n, bool bw) {
    return is_bidi_lstm(n) ? in_dim(n, bw ? 25 : 8, 1) : in_dim(n, bw ? 5 : 1, 0);
}

static fl_status infer_bidi(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    const fl_attr *ma = fl__node_attr(n, "merge_outputs");
    bool merge = ma && ma->kind == FL_ATTR_B && ma->v.b;
    fl_arith k = {c, n, FL_OK};
    fl_sym fw = bidi_units(n, false), bw = bidi_units(n, true);
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && p < 2 && st == FL_OK; p++) {
        if (p == 1 && merge) {
            st = fl__tfl_from_stored(c, n, p);
        } else if (x->rank != 3) {
            st = fl__op_set_output(c, n, p, in_dtype(n), -1, NULL);
        } else {
            fl_sym u = p == 1 ? bw : merge ? fl__ar_add(&k, fw, bw) : fw;
            st = fl__op_set_output(c, n, p, in_dtype(n), 3, (fl_sym[]){x->dims[0], x->dims[1], u});
        }
    }
    for (int p = 2; p < n->n_outputs && st == FL_OK; p++) {
        st = fl__tfl_from_stored(c, n, p);
    }
    return fl__tfl_check_all(c, n, st != FL_OK ? st : k.st);
}

/* Last dim of input i (the input width it feeds a cell). */
static fl_sym width(const fl_node *n, int i) {
    const fl_shape *s = fl__tfl_in_shape(n, i);
    return s->rank >= 1 ? s->dims[s->rank - 1] : fl_sym_unknown();
}

static fl_status cost_bidi(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__tfl_in_shape(n, 0);
    if (x->rank < 1) {
        return fl__ar_put_cost(&k, out, fl_sym_unknown(), fl_sym_unknown());
    }
    bool lstm = is_bidi_lstm(n);
    int aux = lstm ? 39 : 9, fw_aux = lstm ? 41 : 10, bw_aux = lstm ? 45 : 11;
    fl_sym steps = fl__ar_dims_prod(&k, x, 0, x->rank - 1), aux_w = width(n, aux);
    fl_sym macs = fl_sym_const(0), rest = fl_sym_const(0);
    for (int dir = 0; dir < 2; dir++) {
        bool bw = dir == 1;
        /* the backward cell reads aux_input when no aux weights are given */
        fl_sym in = bw && present(n, aux) && !present(n, fw_aux) ? aux_w : width(n, 0);
        fl_sym m, r;
        if (lstm) {
            lstm_step(&k, n, bw ? 17 : 0, in, &m, &r);
            int first = bw ? 44 : 40; /* aux weights: input gate (optional) .. output */
            for (int i = first; i < first + 4; i++) {
                if (present(n, i)) {
                    m = fl__ar_add(&k, m, fl__ar_mul(&k, in_dim(n, i, 0), aux_w));
                }
            }
        } else {
            fl_sym u = bidi_units(n, bw);
            m = fl__ar_mul(&k, u, fl__ar_add(&k, in, u));
            if (present(n, bw ? bw_aux : fw_aux)) {
                m = fl__ar_add(&k, m, fl__ar_mul(&k, u, aux_w));
            }
            r = fl__ar_scale(&k, u, act_set(n) ? 2 : 1);
        }
        macs = fl__ar_add(&k, macs, m);
        rest = fl__ar_add(&k, rest, r);
    }
    macs = fl__ar_mul(&k, steps, macs);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_mul(&k, steps, rest));
    return fl__ar_put_cost(&k, out, flops, macs);
}

static bool is_bidi(const fl_node *n) {
    return n->kind == FL_OP_TFL_BIDIRECTIONAL_SEQUENCE_RNN || is_bidi_lstm(n);
}

fl_status fl__tfl_infer_rnn(fl_ctx *c, fl_node *n) {
    if (n->kind == FL_OP_TFL_SVDF) {
        return infer_svdf(c, n);
    }
    if (is_bidi(n)) {
        return infer_bidi(c, n);
    }
    const fl_shape *x = fl__tfl_in_shape(n, 0);
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

/* Per step and batch row: *macs and the other FLOPs (*rest) of the LSTM
 * cell whose weights start at input 1 + base (the unidirectional layout;
 * the backward cell of BIDIRECTIONAL_SEQUENCE_LSTM at base 17). */
static void lstm_step(fl_arith *k, const fl_node *n, int base, fl_sym in, fl_sym *macs,
                      fl_sym *rest) {
    fl_sym cell = in_dim(n, base + 4, 0), out = in_dim(n, base + 8, 1);
    int64_t gates = present(n, base + 1) ? 4 : 3;
    fl_sym m = fl__ar_mul(k, fl__ar_scale(k, cell, gates), fl__ar_add(k, in, out));
    for (int i = 9; i <= 11; i++) {
        if (present(n, base + i)) {
            m = fl__ar_add(k, m, cell);
        }
    }
    if (present(n, base + 16)) {
        m = fl__ar_add(k, m, fl__ar_mul(k, out, cell));
    }
    *macs = m;
    *rest = fl__ar_scale(k, cell, 2 * gates + 5);
    if (present(n, base + 17)) {
        *rest = fl__ar_add(k, *rest, out);
    }
}

fl_status fl__tfl_cost_rnn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    if (n->kind == FL_OP_TFL_SVDF) {
        return cost_svdf(c, n, out);
    }
    if (is_bidi(n)) {
        return cost_bidi(c, n, out);
    }
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__tfl_in_shape(n, 0);
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
        lstm_step(&k, n, 0, in, &macs, &rest);
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
