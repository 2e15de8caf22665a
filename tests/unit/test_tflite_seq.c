/*
 * test_tflite_seq.c - TFLite builtins that used to take the shapes the file
 * stores: SVDF, BIDIRECTIONAL_SEQUENCE_RNN/LSTM (src/ops/tflite/rnn.c),
 * SEGMENT_SUM and UNSORTED_SEGMENT_*, StableHLO's element-wise ops
 * (src/ops/tflite/tflite.c) and its shape ops (src/ops/tflite/stablehlo.c),
 * on models written in memory by tflbuild.h; and the input counts and
 * absent (-1) inputs the importer takes, as TFLite's kernels do.
 * Shapes follow TFLite's kernels (Prepare); counts are derived by hand from
 * the rules in those files' headers. A free dim (shape_signature -1) is the
 * symbol "x.0": a stored shape holds -1 there, so only inference from the
 * inputs gives the dims and counts asserted below.
 */
#include "foldline/foldline.h"
#include "testgraph.h"
#include "testutil.h"
#include "tflbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables below leave trailing fields (no data, no options) implicit. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* Builtin codes and option types of schema TFL3. */
enum {
    C_ADD = 0,
    C_CONV_2D = 3,
    C_DEPTHWISE_CONV_2D = 4,
    C_FULLY_CONNECTED = 9,
    C_SVDF = 27,
    C_BIDI_RNN = 46,
    C_BIDI_LSTM = 52,
    C_SEGMENT_SUM = 125,
    C_UNSORTED_SEGMENT_MAX = 154,
    C_HLO_LOGISTIC = 162,
    C_HLO_ADD = 163,
    C_HLO_CLAMP = 168,
    C_HLO_RSQRT = 186,
    C_HLO_SELECT = 187,
    C_HLO_SLICE = 172,
    C_HLO_CONCATENATE = 169,
    C_HLO_DSLICE = 193,
    C_HLO_DUPDATE_SLICE = 194,
    C_HLO_PAD = 195,
    C_HLO_DOT_GENERAL = 197,
    C_HLO_TRANSPOSE = 202,
    C_HLO_REDUCE = 174,
    C_HLO_REDUCE_WINDOW = 198,
    C_HLO_MULTIPLY = 165,
    C_HLO_MAXIMUM = 166,
    O_SVDF = 6,
    O_BIDI_LSTM = 69,
    O_BIDI_RNN = 70,
    O2_CONCATENATE = 1,
    O2_SLICE = 3,
    O2_DYNAMIC_SLICE = 9,
    O2_PAD = 10,
    O2_REDUCE = 6,
    O2_DOT_GENERAL = 12,
    O2_REDUCE_WINDOW = 13,
    O2_TRANSPOSE = 17,
    A_RELU = 1,
    A_TANH = 4,
};

static float zeros[64];

static fl_report *run_sgs(const tb_subgraph *sg, int n_sg, int n_codes, const int *codes) {
    tb w;
    tb_model(&w, n_codes, codes, n_sg, sg);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_report *r = NULL;
    fl_status st = fl_analyze(w.b, w.len, &o, &r);
    free(w.b);
    if (st != FL_OK) {
        fail_msg("analysis failed: %s", r && r->error ? r->error : fl_status_str(st));
    }
    return r;
}

static fl_report *run(const tb_subgraph *sg, int n_codes, const int *codes) {
    return run_sgs(sg, 1, n_codes, codes);
}

/* The analysis fails with FL_EINVAL and an error containing `want`. */
static void expect_fail(const tb_subgraph *sg, int n_codes, const int *codes, const char *want) {
    tb w;
    tb_model(&w, n_codes, codes, 1, sg);
    fl_options o;
    fl_options_init(&o);
    fl_report *r = NULL;
    fl_status st = fl_analyze(w.b, w.len, &o, &r);
    free(w.b);
    assert_int_equal(st, FL_EINVAL);
    assert_non_null(r);
    assert_non_null(r->error);
    if (!strstr(r->error, want)) {
        fail_msg("error '%s' lacks '%s'", r->error, want);
    }
    fl_report_free(r);
}

/* SVDF x [N,3] (I 3), weights_feature [4,3] (F 4), weights_time [4,5] (M 5),
 * bias [2], state [N,20], rank 2 -> U = 4 / 2 = 2, y [N,2]; RELU.
 * Per batch row: MACs F * (I + M) = 32; FLOPs 64 + F 4 (the sum over rank)
 * + U 2 (RELU) = 70. */
static void test_svdf(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {-1, 3}},
        {"wf", TB_FLOAT32, 2, {4, 3}, zeros, 48},
        {"wt", TB_FLOAT32, 2, {4, 5}, zeros, 80},
        {"b", TB_FLOAT32, 1, {2}, zeros, 8},
        {"st", TB_FLOAT32, 2, {-1, 20}, NULL, 0, true},
        {"y", TB_FLOAT32, 2, {-1, 2}},
    };
    const int codes[] = {C_SVDF};
    /* SVDFOptions: rank 2, activation RELU */
    const tb_op o[] = {{0, 5, {0, 1, 2, 3, 4}, 1, {5}, O_SVDF, 2, {{2}, {A_RELU}}}};
    tb_subgraph sg = {"main", 6, t, 1, {0}, 1, {5}, 1, o};
    fl_report *r = run(&sg, 1, codes);
    tg_expect_shape(r, "y", 0, "[x.0,2]");
    assert_string_equal(tg_find(r, "y")->macs.text, "32*x.0");
    assert_string_equal(tg_find(r, "y")->flops.text, "70*x.0");
    assert_false(fl_test_has_warning(r, "the file stores", NULL));
    fl_report_free(r);
}

/* BIDIRECTIONAL_SEQUENCE_RNN, time major, x [T,2,4] (T free = x.0, B 2, I
 * 4); forward cell U 5 (weights [5,4], recurrent [5,5]), backward cell U 6;
 * TANH. Steps T * B = 2 * x.0.
 *   separate outputs: fw [x.0,2,5], bw [x.0,2,6]; merged: [x.0,2,11].
 *   MACs per step 5 * (4 + 5) + 6 * (4 + 6) = 105 -> 210*x.0; FLOPs 2 * 105
 *   + (5 + 5) + (6 + 6) (biases, activations) = 232 per step -> 464*x.0.
 *   aux_input [x?,2,7] without aux weights: the backward cell reads it, 6 *
 *   (7 + 6) = 78: MACs 123 per step -> 246*x.0, FLOPs 268 -> 536*x.0. */
static void test_bidirectional_rnn(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 3, {-1, 2, 4}},
        {"fw_w", TB_FLOAT32, 2, {5, 4}, zeros, 80},
        {"fw_r", TB_FLOAT32, 2, {5, 5}, zeros, 100},
        {"fw_b", TB_FLOAT32, 1, {5}, zeros, 20},
        {"fw_h", TB_FLOAT32, 2, {2, 5}, NULL, 0, true},
        {"bw_w", TB_FLOAT32, 2, {6, 4}, zeros, 96},
        {"bw_r", TB_FLOAT32, 2, {6, 6}, zeros, 144},
        {"bw_b", TB_FLOAT32, 1, {6}, zeros, 24},
        {"bw_h", TB_FLOAT32, 2, {2, 6}, NULL, 0, true},
        {"fw", TB_FLOAT32, 3, {-1, 2, 5}},
        {"bw", TB_FLOAT32, 3, {-1, 2, 6}},
        {"merged", TB_FLOAT32, 3, {-1, 2, 11}},
        {"aux", TB_FLOAT32, 3, {-1, 2, 7}},
        {"afw", TB_FLOAT32, 3, {-1, 2, 5}},
        {"abw", TB_FLOAT32, 3, {-1, 2, 6}},
    };
    const int codes[] = {C_BIDI_RNN};
    /* BidirectionalSequenceRNNOptions: time_major, activation, merge_outputs */
    const tb_op o[] = {
        {0,
         12,
         {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1},
         2,
         {9, 10},
         O_BIDI_RNN,
         3,
         {{1}, {A_TANH}, {0}}},
        {0,
         12,
         {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1},
         1,
         {11},
         O_BIDI_RNN,
         3,
         {{1}, {A_TANH}, {1}}},
        {0,
         12,
         {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, -1, -1},
         2,
         {13, 14},
         O_BIDI_RNN,
         3,
         {{1}, {A_TANH}, {0}}},
    };
    tb_subgraph sg = {"main", 15, t, 2, {0, 12}, 4, {9, 10, 11, 13}, 3, o};
    fl_report *r = run(&sg, 1, codes);
    tg_expect_shape(r, "fw", 0, "[x.0,2,5]");
    tg_expect_shape(r, "fw", 1, "[x.0,2,6]");
    assert_string_equal(tg_find(r, "fw")->macs.text, "210*x.0");
    assert_string_equal(tg_find(r, "fw")->flops.text, "464*x.0");
    tg_expect_shape(r, "merged", 0, "[x.0,2,11]");
    assert_string_equal(tg_find(r, "merged")->macs.text, "210*x.0");
    tg_expect_shape(r, "afw", 1, "[x.0,2,6]");
    assert_string_equal(tg_find(r, "afw")->macs.text, "246*x.0");
    assert_string_equal(tg_find(r, "afw")->flops.text, "536*x.0");
    assert_false(fl_test_has_warning(r, "the file stores", NULL));
    fl_report_free(r);
}

/* BIDIRECTIONAL_SEQUENCE_LSTM, time major, x [T,1,3] (T free, I 3). Forward
 * cell: all four gates, C 4, O 4; backward cell: coupled input and forget
 * gates (CIFG: inputs 18, 22 and 29 absent), C 4, O 4. No peepholes or
 * projection. Outputs fw [x.0,1,4], bw [x.0,1,4]. Per step (steps = T):
 *   forward MACs 4 * 4 * (3 + 4) = 112, other FLOPs 4 * (2 * 4 + 5) = 52;
 *   backward MACs 3 * 4 * 7 = 84, other FLOPs 4 * (2 * 3 + 5) = 44.
 *   MACs 196*x.0; FLOPs 2 * 196 + 96 = 488*x.0. */
static void test_bidirectional_lstm(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 3, {-1, 1, 3}},
        {"wi", TB_FLOAT32, 2, {4, 3}, zeros, 48},
        {"wr", TB_FLOAT32, 2, {4, 4}, zeros, 64},
        {"b", TB_FLOAT32, 1, {4}, zeros, 16},
        {"h", TB_FLOAT32, 2, {1, 4}, NULL, 0, true},
        {"fw", TB_FLOAT32, 3, {-1, 1, 4}},
        {"bw", TB_FLOAT32, 3, {-1, 1, 4}},
    };
    const int codes[] = {C_BIDI_LSTM};
    /* BidirectionalSequenceLSTMOptions: activation TANH, cell_clip,
     * proj_clip, merge_outputs 0, time_major 1 */
    const tb_op o[] = {
        {0,
         48,
         {0, 1, 1,  1,  1,  2,  2, 2, 2, -1, -1, -1, 3, 3, 3, 3,  -1, -1, -1, 1,  1,  1,  -1, 2,
          2, 2, -1, -1, -1, -1, 3, 3, 3, -1, -1, 4,  4, 4, 4, -1, -1, -1, -1, -1, -1, -1, -1, -1},
         2,
         {5, 6},
         O_BIDI_LSTM,
         5,
         {{A_TANH}, {0}, {0}, {0}, {1}}}};
    tb_subgraph sg = {"main", 7, t, 1, {0}, 2, {5, 6}, 1, o};
    fl_report *r = run(&sg, 1, codes);
    tg_expect_shape(r, "fw", 0, "[x.0,1,4]");
    tg_expect_shape(r, "fw", 1, "[x.0,1,4]");
    assert_string_equal(tg_find(r, "fw")->macs.text, "196*x.0");
    assert_string_equal(tg_find(r, "fw")->flops.text, "488*x.0");
    assert_false(fl_test_has_warning(r, "the file stores", NULL));
    fl_report_free(r);
    /* Every -1 above is an input TFLite's kernel takes as absent; the
     * forward cell's input-to-forget weights (2) and the forward output
     * state (35) are not. */
    for (int k = 2; k <= 35; k += 33) {
        tb_op bad = o[0];
        bad.in[k] = -1;
        tb_subgraph bsg = {"main", 7, t, 1, {0}, 2, {5, 6}, 1, &bad};
        char want[160];
        snprintf(want, sizeof want,
                 "node 'fw' (BIDIRECTIONAL_SEQUENCE_LSTM): input %d is required, but is -1 (no "
                 "tensor) (field: subgraphs[0].operators[0].inputs[%d])",
                 k, k);
        expect_fail(&bsg, 1, codes, want);
    }
}

/* Input counts and absent (-1) inputs as TFLite's kernels take them.
 * FULLY_CONNECTED x [2,3], weights [4,3], bias -1 (optional): [2,4], MACs
 * 24, FLOPs 48. Weights -1 fail, as a DEPTHWISE_CONV_2D bias of -1 does
 * (its kernel takes two inputs for no bias, not a -1); CONV_2D needs its
 * bias (3 inputs) and ADD exactly 2. */
static void test_input_counts(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {2, 3}},
        {"w", TB_FLOAT32, 2, {4, 3}, zeros, 48},
        {"b", TB_FLOAT32, 1, {4}, zeros, 16},
        {"y", TB_FLOAT32, 2, {2, 4}},
    };
    const int codes[] = {C_FULLY_CONNECTED, C_DEPTHWISE_CONV_2D, C_CONV_2D, C_ADD};
    tb_op o = {0, 3, {0, 1, -1}, 1, {3}};
    tb_subgraph sg = {"main", 4, t, 1, {0}, 1, {3}, 1, &o};
    fl_report *r = run(&sg, 4, codes);
    tg_expect_shape(r, "y", 0, "[2,4]");
    assert_int_equal(tg_find(r, "y")->macs.value, 24);
    assert_int_equal(tg_find(r, "y")->flops.value, 48);
    fl_report_free(r);
    const struct {
        int code, n_in;
        int32_t in[3];
        const char *want;
    } bad[] = {
        {0, 3, {0, -1, 2}, "node 'y' (FULLY_CONNECTED): input 1 is required, but is -1"},
        {1, 3, {0, 1, -1}, "node 'y' (DEPTHWISE_CONV_2D): input 2 is required, but is -1"},
        {2,
         2,
         {0, 1},
         "node 'y' (CONV_2D): expects 3 inputs, got 2 (field: "
         "subgraphs[0].operators[0].inputs)"},
        {3, 3, {0, 0, 0}, "node 'y' (ADD): expects 2 inputs, got 3"},
        {0, 1, {0}, "node 'y' (FULLY_CONNECTED): expects 2 to 3 inputs, got 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_op b = {bad[i].code, bad[i].n_in, {0}, 1, {3}};
        memcpy(b.in, bad[i].in, sizeof bad[i].in);
        tb_subgraph bsg = {"main", 4, t, 1, {0}, 1, {3}, 1, &b};
        expect_fail(&bsg, 4, codes, bad[i].want);
    }
}

/* SEGMENT_SUM data [x.0,3] with segment_ids {0,0,1,3} -> [4,3] (last id +
 * 1), FLOPs E(data) = 3*x.0. UNSORTED_SEGMENT_MAX data [2,2,3], ids [2,2]
 * {2,0,2,1}, num_segments 5 -> [5,3] (dims of data past ids' rank), 12
 * FLOPs. Its file stores [6,3]: a warning naming the tensor, the stored
 * shape used. */
static void test_segments(void **state) {
    (void)state;
    static const int32_t ids[] = {0, 0, 1, 3}, uids[] = {2, 0, 2, 1}, nseg[] = {5};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {-1, 3}},
        {"ids", TB_INT32, 1, {4}, ids, sizeof ids},
        {"seg", TB_FLOAT32, 2, {4, 3}},
        {"d", TB_FLOAT32, 3, {2, 2, 3}},
        {"uids", TB_INT32, 2, {2, 2}, uids, sizeof uids},
        {"nseg", TB_INT32, 0, {0}, nseg, sizeof nseg},
        {"useg", TB_FLOAT32, 2, {6, 3}},
    };
    const int codes[] = {C_SEGMENT_SUM, C_UNSORTED_SEGMENT_MAX};
    const tb_op o[] = {{0, 2, {0, 1}, 1, {2}}, {1, 3, {3, 4, 5}, 1, {6}}};
    tb_subgraph sg = {"main", 7, t, 2, {0, 3}, 2, {2, 6}, 2, o};
    fl_report *r = run(&sg, 2, codes);
    tg_expect_shape(r, "seg", 0, "[4,3]");
    assert_string_equal(tg_find(r, "seg")->flops.text, "3*x.0");
    assert_int_equal(tg_find(r, "useg")->flops.value, 12);
    assert_true(fl_test_has_warning(
        r, "tensor 'useg': inferred shape [5,3] but the file stores [6,3]", NULL));
    tg_expect_shape(r, "useg", 0, "[6,3]");
    fl_report_free(r);
}

/* StableHLO element-wise ops over x [x.0,3] (E = 3*x.0): ADD(x, x) 1 per
 * element, LOGISTIC 1, RSQRT 2, CLAMP(lo, x, hi) with scalar bounds 2 (max,
 * min), SELECT(p, x, x) with a scalar predicate 1. */
static void test_stablehlo_elementwise(void **state) {
    (void)state;
    static const float lo[] = {0}, hi[] = {6};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {-1, 3}},
        {"add", TB_FLOAT32, 2, {-1, 3}},
        {"lg", TB_FLOAT32, 2, {-1, 3}},
        {"rs", TB_FLOAT32, 2, {-1, 3}},
        {"lo", TB_FLOAT32, 0, {0}, lo, sizeof lo},
        {"hi", TB_FLOAT32, 0, {0}, hi, sizeof hi},
        {"cl", TB_FLOAT32, 2, {-1, 3}},
        {"p", TB_BOOL, 0, {0}},
        {"sel", TB_FLOAT32, 2, {-1, 3}},
    };
    const int codes[] = {C_HLO_ADD, C_HLO_LOGISTIC, C_HLO_RSQRT, C_HLO_CLAMP, C_HLO_SELECT};
    const tb_op o[] = {
        {0, 2, {0, 0}, 1, {1}},    {1, 1, {1}, 1, {2}},       {2, 1, {2}, 1, {3}},
        {3, 3, {4, 3, 5}, 1, {6}}, {4, 3, {7, 6, 6}, 1, {8}},
    };
    tb_subgraph sg = {"main", 9, t, 2, {0, 7}, 1, {8}, 5, o};
    fl_report *r = run(&sg, 5, codes);
    const char *names[] = {"add", "lg", "rs", "cl", "sel"};
    const char *flops[] = {"3*x.0", "3*x.0", "6*x.0", "6*x.0", "3*x.0"};
    for (int i = 0; i < 5; i++) {
        tg_expect_shape(r, names[i], 0, "[x.0,3]");
        assert_string_equal(tg_find(r, names[i])->flops.text, flops[i]);
    }
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* StableHLO shape ops with their options (BuiltinOptions2), x [6,8]:
 *   SLICE start {1,0} limit {5,8} strides {2,3} -> [ceil(4/2), ceil(8/3)] =
 *   [2,3]; TRANSPOSE {1,0} -> [8,6]; PAD low {1,0} high {0,2} interior
 *   {0,1} -> [6+1, 8+7+2] = [7,17]; CONCATENATE(x, x) dimension 1 -> [6,16];
 *   DYNAMIC_SLICE slice_sizes {2,4} -> [2,4]; DYNAMIC_UPDATE_SLICE -> [6,8];
 *   all 0 FLOPs. DOT_GENERAL a [2,N,4] . w [2,4,5], batching {0}/{0},
 *   contracting {2}/{1} -> [2,N,5], MACs E(out) * 4 = 40*a.1, FLOPs 80*a.1.
 *   A permutation of 1 entry for a rank-2 operand: a warning naming the
 *   tensor, the stored shape [8,6] used. The stored shapes hold -1 dims, so
 *   only inference gives them. */
static void test_stablehlo_shapes(void **state) {
    (void)state;
    static const int64_t b0[] = {1, 0}, e0[] = {5, 8}, st[] = {2, 3}, perm[] = {1, 0},
                         bad_perm[] = {0}, lo[] = {1, 0}, hi[] = {0, 2}, in[] = {0, 1},
                         sz[] = {2, 4}, bat[] = {0}, lc[] = {2}, rc[] = {1};
    static const float pv[] = {0};
    static const int32_t i0[] = {1};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {6, 8}},
        {"sl", TB_FLOAT32, 2, {-1, -1}},
        {"tr", TB_FLOAT32, 2, {-1, -1}},
        {"pv", TB_FLOAT32, 0, {0}, pv, sizeof pv},
        {"pad", TB_FLOAT32, 2, {-1, -1}},
        {"cat", TB_FLOAT32, 2, {-1, -1}},
        {"i0", TB_INT32, 0, {0}, i0, sizeof i0},
        {"ds", TB_FLOAT32, 2, {-1, -1}},
        {"upd", TB_FLOAT32, 2, {2, 4}},
        {"dus", TB_FLOAT32, 2, {-1, -1}},
        {"a", TB_FLOAT32, 3, {2, -1, 4}},
        {"w", TB_FLOAT32, 3, {2, 4, 5}, zeros, 160},
        {"dot", TB_FLOAT32, 3, {2, -1, 5}},
        {"trbad", TB_FLOAT32, 2, {8, 6}},
    };
    const int codes[] = {C_HLO_SLICE,  C_HLO_TRANSPOSE,     C_HLO_PAD,        C_HLO_CONCATENATE,
                         C_HLO_DSLICE, C_HLO_DUPDATE_SLICE, C_HLO_DOT_GENERAL};
    const tb_op o[] = {
        {0,
         1,
         {0},
         1,
         {1},
         O2_SLICE,
         3,
         {{0, 2, NULL, b0}, {0, 2, NULL, e0}, {0, 2, NULL, st}},
         true},
        {1, 1, {0}, 1, {2}, O2_TRANSPOSE, 1, {{0, 2, NULL, perm}}, true},
        {2,
         2,
         {0, 3},
         1,
         {4},
         O2_PAD,
         3,
         {{0, 2, NULL, lo}, {0, 2, NULL, hi}, {0, 2, NULL, in}},
         true},
        /* dimension is an int64: its slot and a 0 high half after it */
        {3, 2, {0, 0}, 1, {5}, O2_CONCATENATE, 2, {{1}, {0}}, true},
        {4, 3, {0, 6, 6}, 1, {7}, O2_DYNAMIC_SLICE, 1, {{0, 2, NULL, sz}}, true},
        {5, 4, {0, 8, 6, 6}, 1, {9}},
        {6,
         2,
         {10, 11},
         1,
         {12},
         O2_DOT_GENERAL,
         4,
         {{0, 1, NULL, bat}, {0, 1, NULL, bat}, {0, 1, NULL, lc}, {0, 1, NULL, rc}},
         true},
        {1, 1, {0}, 1, {13}, O2_TRANSPOSE, 1, {{0, 1, NULL, bad_perm}}, true},
    };
    tb_subgraph sg = {"main", 14, t, 3, {0, 8, 10}, 7, {1, 2, 4, 5, 7, 9, 12}, 8, o};
    fl_report *r = run(&sg, 7, codes);
    const char *names[] = {"sl", "tr", "pad", "cat", "ds", "dus"};
    const char *shapes[] = {"[2,3]", "[8,6]", "[7,17]", "[6,16]", "[2,4]", "[6,8]"};
    for (int i = 0; i < 6; i++) {
        tg_expect_shape(r, names[i], 0, shapes[i]);
        assert_true(tg_find(r, names[i])->flops.known);
        assert_int_equal(tg_find(r, names[i])->flops.value, 0);
    }
    tg_expect_shape(r, "dot", 0, "[2,a.1,5]");
    assert_string_equal(tg_find(r, "dot")->macs.text, "40*a.1");
    assert_string_equal(tg_find(r, "dot")->flops.text, "80*a.1");
    assert_true(fl_test_has_warning(
        r, "tensor 'trbad': option permutation has 1 entries for rank 2", NULL));
    tg_expect_shape(r, "trbad", 0, "[8,6]");
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* STABLEHLO_REDUCE x [6,8] over dimensions {1} -> [6], 48 FLOPs (each
 * element combined once). STABLEHLO_REDUCE_WINDOW x [6,8], window {2,3},
 * strides {2,2}, dilations 1, padding {{0,0},{1,0}}: dim 0 (6 - 2) / 2 + 1
 * = 3, dim 1 (8 + 1 - 3) / 2 + 1 = 4 -> [3,4]; FLOPs 2 * 3 * 12 = 72. */
static void test_stablehlo_reductions(void **state) {
    (void)state;
    static const int64_t red[] = {1}, win[] = {2, 3}, str[] = {2, 2}, one[] = {1, 1},
                         pad[] = {0, 0, 1, 0};
    static const float init[] = {0};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {6, 8}},
        {"init", TB_FLOAT32, 0, {0}, init, sizeof init},
        {"rd", TB_FLOAT32, 1, {-1}},
        {"rw", TB_FLOAT32, 2, {-1, -1}},
    };
    const int codes[] = {C_HLO_REDUCE, C_HLO_REDUCE_WINDOW};
    const tb_op o[] = {
        {0, 2, {0, 1}, 1, {2}, O2_REDUCE, 1, {{0, 1, NULL, red}}, true},
        {1,
         2,
         {0, 1},
         1,
         {3},
         O2_REDUCE_WINDOW,
         5,
         {{0, 2, NULL, win},
          {0, 2, NULL, str},
          {0, 2, NULL, one},
          {0, 2, NULL, one},
          {0, 4, NULL, pad}},
         true},
    };
    tb_subgraph sg = {"main", 4, t, 1, {0}, 2, {2, 3}, 2, o};
    fl_report *r = run(&sg, 2, codes);
    tg_expect_shape(r, "rd", 0, "[6]");
    assert_int_equal(tg_find(r, "rd")->flops.value, 48);
    tg_expect_shape(r, "rw", 0, "[3,4]");
    assert_int_equal(tg_find(r, "rw")->flops.value, 72);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* Reductions with their bodies (subgraphs 1 and 2), counted once per
 * application and not on their own. Body 1, a sum of squares: sq =
 * MULTIPLY(x, x), out = ADD(acc, sq): 2 FLOPs an application. Body 2,
 * MAXIMUM(acc, x): 1 FLOP.
 *  - REDUCE x [6,8] over {1} with body 1: 48 applications (each element
 *    combined into its accumulator once), 96 FLOPs;
 *  - REDUCE xs [xs.0,8] over {1} with body 1: 8*xs.0 applications,
 *    16*xs.0 FLOPs;
 *  - REDUCE_WINDOW x [6,8] (the earlier test's window {2,3}, strides
 *    {2,2}, padding {{0,0},{1,0}}: [3,4]) with body 2: 12 positions x 6
 *    window elements = 72 applications, 72 FLOPs.
 * The body nodes count 0 (they ran once, 2 + 1 FLOPs, before). Totals:
 * 96 + 72 + 16*xs.0 = 16*xs.0 + 168. */
static void test_stablehlo_reduction_bodies(void **state) {
    (void)state;
    static const int64_t red[] = {1}, win[] = {2, 3}, str[] = {2, 2}, one[] = {1, 1},
                         pad[] = {0, 0, 1, 0};
    static const float init[] = {0};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {6, 8}},   {"init", TB_FLOAT32, 0, {0}, init, sizeof init},
        {"rd", TB_FLOAT32, 1, {-1}},    {"rw", TB_FLOAT32, 2, {-1, -1}},
        {"xs", TB_FLOAT32, 2, {-1, 8}}, {"rs", TB_FLOAT32, 1, {-1}},
    };
    /* codes: 0 REDUCE, 1 REDUCE_WINDOW, 2 MULTIPLY, 3 ADD, 4 MAXIMUM */
    const int codes[] = {C_HLO_REDUCE, C_HLO_REDUCE_WINDOW, C_HLO_MULTIPLY, C_HLO_ADD,
                         C_HLO_MAXIMUM};
    const tb_op o[] = {
        {0, 2, {0, 1}, 1, {2}, O2_REDUCE, 2, {{0, 1, NULL, red}, {1, 0, NULL, NULL}}, true},
        {0, 2, {4, 1}, 1, {5}, O2_REDUCE, 2, {{0, 1, NULL, red}, {1, 0, NULL, NULL}}, true},
        {1,
         2,
         {0, 1},
         1,
         {3},
         O2_REDUCE_WINDOW,
         6,
         {{0, 2, NULL, win},
          {0, 2, NULL, str},
          {0, 2, NULL, one},
          {0, 2, NULL, one},
          {0, 4, NULL, pad},
          {2, 0, NULL, NULL}},
         true},
    };
    const tb_tensor bt[] = {
        {"acc", TB_FLOAT32, 0, {0}},
        {"e", TB_FLOAT32, 0, {0}},
        {"sq", TB_FLOAT32, 0, {0}},
        {"sum", TB_FLOAT32, 0, {0}},
    };
    const tb_op bo[] = {
        {2, 2, {1, 1}, 1, {2}, 0, 0, {{0}}, false},
        {3, 2, {0, 2}, 1, {3}, 0, 0, {{0}}, false},
    };
    const tb_tensor mt[] = {
        {"acc", TB_FLOAT32, 0, {0}},
        {"e", TB_FLOAT32, 0, {0}},
        {"mx", TB_FLOAT32, 0, {0}},
    };
    const tb_op mo[] = {
        {4, 2, {0, 1}, 1, {2}, 0, 0, {{0}}, false},
    };
    const tb_subgraph sg[] = {
        {"main", 6, t, 2, {0, 4}, 3, {2, 3, 5}, 3, o},
        {"sumsq", 4, bt, 2, {0, 1}, 1, {3}, 2, bo},
        {"max", 3, mt, 2, {0, 1}, 1, {2}, 1, mo},
    };
    fl_report *r = run_sgs(sg, 3, 5, codes);
    tg_expect_shape(r, "rd", 0, "[6]");
    assert_int_equal(tg_find(r, "rd")->flops.value, 96);
    assert_string_equal(tg_find(r, "rs")->flops.text, "16*xs.0");
    tg_expect_shape(r, "rw", 0, "[3,4]");
    assert_int_equal(tg_find(r, "rw")->flops.value, 72);
    assert_int_equal(tg_find(r, "sumsq/sq")->flops.value, 0);
    assert_int_equal(tg_find(r, "sumsq/sum")->flops.value, 0);
    assert_int_equal(tg_find(r, "max/mx")->flops.value, 0);
    assert_string_equal(r->totals.flops.text, "16*xs.0 + 168");
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svdf),
        cmocka_unit_test(test_bidirectional_rnn),
        cmocka_unit_test(test_bidirectional_lstm),
        cmocka_unit_test(test_input_counts),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_stablehlo_elementwise),
        cmocka_unit_test(test_stablehlo_shapes),
        cmocka_unit_test(test_stablehlo_reductions),
        cmocka_unit_test(test_stablehlo_reduction_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
