/*
 * test_tflite_shapes.c - TFLite data-movement builtins inferred from their
 * inputs and options (through TensorFlow's descriptors), on models written
 * in memory by tflbuild.h, with a free batch dim.
 *
 * The model (x's batch dim is free: shape_signature -1, symbol "x.0" = N):
 *   x [N,4,6] float32
 *   t   = TRANSPOSE(x, [0,2,1])                       -> [N,6,4]
 *   s   = SHAPE(x)                                    -> [3] = {N,4,6}
 *   b   = STRIDED_SLICE(s, [0], [1], [1]), shrink 1   -> [] = N
 *   ps  = PACK(b, 24), axis 0                         -> [2] = {N,24}
 *   r   = RESHAPE(t, ps)                              -> [N,24]
 *   g   = GATHER(t, [0,2,5]), axis 1                  -> [N,3,4]
 *   sp0, sp1 = SPLIT(2, g), num_splits 2              -> [N,3,2] each
 *   sl  = SLICE(g, [0,1,0], [-1,2,4])                 -> [N,2,4]
 *   y   = FULLY_CONNECTED(r, w [5,24]), no bias       -> [N,5]
 * The file stores -1 for every free dim (shape_signature): operators taking
 * the stored shapes would leave it unknown, and the FC's MACs with it.
 * MACs: FC E(out) * in = 5N * 24 = 120N; FLOPs 240N. With N bound to 3:
 * 360 MACs, 720 FLOPs. No other operator computes (data movement: 0).
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
    C_FC = 9,
    C_RESHAPE = 22,
    C_GATHER = 36,
    C_TRANSPOSE = 39,
    C_STRIDED_SLICE = 45,
    C_SPLIT = 49,
    C_SLICE = 65,
    C_SHAPE = 77,
    C_PACK = 83,
    O_FC = 8,
    O_GATHER = 23,
    O_STRIDED_SLICE = 32,
    O_SPLIT = 35,
    O_SHAPE = 55,
    O_PACK = 59,
};

static const int32_t perm[] = {0, 2, 1}, zero1[] = {0}, one1[] = {1}, c24[] = {24},
                     idx[] = {0, 2, 5}, two[] = {2}, sbeg[] = {0, 1, 0}, ssize[] = {-1, 2, 4};
static float fcw[120];

/* Tensors; `sl_stored` is the stored shape of sl's output. */
static tb_tensor tensors[] = {
    {"x", TB_FLOAT32, 3, {-1, 4, 6}},
    {"perm", TB_INT32, 1, {3}, perm, sizeof perm},
    {"t", TB_FLOAT32, 3, {-1, 6, 4}},
    {"s", TB_INT32, 1, {3}},
    {"b", TB_INT32, 0, {0}},
    {"c24", TB_INT32, 0, {0}, c24, sizeof c24},
    {"ps", TB_INT32, 1, {2}},
    {"r", TB_FLOAT32, 2, {-1, 24}},
    {"idx", TB_INT32, 1, {3}, idx, sizeof idx},
    {"g", TB_FLOAT32, 3, {-1, 3, 4}},
    {"two", TB_INT32, 0, {0}, two, sizeof two},
    {"sp0", TB_FLOAT32, 3, {-1, 3, 2}},
    {"sp1", TB_FLOAT32, 3, {-1, 3, 2}},
    {"sbeg", TB_INT32, 1, {3}, sbeg, sizeof sbeg},
    {"ssize", TB_INT32, 1, {3}, ssize, sizeof ssize},
    {"sl", TB_FLOAT32, 3, {-1, 2, 4}},
    {"w", TB_FLOAT32, 2, {5, 24}, fcw, sizeof fcw},
    {"y", TB_FLOAT32, 2, {-1, 5}},
    {"zero1", TB_INT32, 1, {1}, zero1, sizeof zero1},
    {"one1", TB_INT32, 1, {1}, one1, sizeof one1},
};

static const int codes[] = {C_TRANSPOSE, C_SHAPE, C_STRIDED_SLICE, C_PACK, C_RESHAPE,
                            C_GATHER,    C_SPLIT, C_SLICE,         C_FC};

static const tb_op ops[] = {
    {0, 2, {0, 1}, 1, {2}},
    /* ShapeOptions: out_type INT32 */
    {1, 1, {0}, 1, {3}, O_SHAPE, 1, {{TB_INT32}}},
    /* StridedSliceOptions: begin_mask, end_mask, ellipsis_mask,
     * new_axis_mask, shrink_axis_mask 1 */
    {2, 4, {3, 18, 19, 19}, 1, {4}, O_STRIDED_SLICE, 5, {{0}, {0}, {0}, {0}, {1}}},
    /* PackOptions: values_count 2, axis 0 */
    {3, 2, {4, 5}, 1, {6}, O_PACK, 2, {{2}, {0}}},
    {4, 2, {2, 6}, 1, {7}},
    /* GatherOptions: axis 1, batch_dims 0 */
    {5, 2, {2, 8}, 1, {9}, O_GATHER, 2, {{1}, {0}}},
    /* SplitOptions: num_splits 2 */
    {6, 2, {10, 9}, 2, {11, 12}, O_SPLIT, 1, {{2}}},
    {7, 3, {9, 13, 14}, 1, {15}},
    /* FullyConnectedOptions: activation NONE */
    {8, 3, {7, 16, -1}, 1, {17}, O_FC, 1, {{0}}},
};

static unsigned char *build(size_t *len) {
    tb w;
    tb_subgraph sg = {"main",       (int)(sizeof tensors / sizeof tensors[0]), tensors, 1, {0}, 3,
                      {17, 11, 15}, (int)(sizeof ops / sizeof ops[0]),         ops};
    tb_model(&w, (int)(sizeof codes / sizeof codes[0]), codes, 1, &sg);
    *len = w.len;
    return w.b;
}

static fl_status run(const unsigned char *b, size_t len, const fl_symbol_binding *sym,
                     fl_report **r) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.symbols = sym;
    o.n_symbols = sym ? 1 : 0;
    return fl_analyze(b, len, &o, r);
}

static void test_free_batch(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = build(&len);
    fl_report *r = NULL;
    assert_int_equal(run(b, len, NULL, &r), FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    tg_expect_shape(r, "t", 0, "[x.0,6,4]");
    tg_expect_shape(r, "s", 0, "[3]");
    tg_expect_shape(r, "b", 0, "[]");
    tg_expect_shape(r, "ps", 0, "[2]");
    tg_expect_shape(r, "r", 0, "[x.0,24]");
    tg_expect_shape(r, "g", 0, "[x.0,3,4]");
    tg_expect_shape(r, "sp0", 0, "[x.0,3,2]");
    tg_expect_shape(r, "sp0", 1, "[x.0,3,2]");
    tg_expect_shape(r, "sl", 0, "[x.0,2,4]");
    tg_expect_shape(r, "y", 0, "[x.0,5]");
    assert_string_equal(r->totals.macs.text, "120*x.0");
    assert_string_equal(r->totals.flops.text, "240*x.0");
    assert_false(fl_test_has_warning(r, "the file stores", NULL));
    fl_report_free(r);

    fl_symbol_binding n3 = {"x.0", 3};
    assert_int_equal(run(b, len, &n3, &r), FL_OK);
    tg_expect_shape(r, "r", 0, "[3,24]");
    tg_expect_shape(r, "sl", 0, "[3,2,4]");
    assert_true(r->totals.macs.known);
    assert_int_equal(r->totals.macs.value, 360);
    assert_int_equal(r->totals.flops.value, 720);
    fl_report_free(r);
    free(b);
}

/* A stored shape that disagrees with the inferred one: a warning naming the
 * tensor; the file's shape is used. */
static void test_stored_disagrees(void **state) {
    (void)state;
    tensors[15].shape[1] = 3; /* sl stored [N,3,4]; SLICE size 2 gives [N,2,4] */
    size_t len;
    unsigned char *b = build(&len);
    tensors[15].shape[1] = 2;
    fl_report *r = NULL;
    assert_int_equal(run(b, len, NULL, &r), FL_OK);
    assert_true(fl_test_has_warning(
        r, "tensor 'sl': inferred shape [-1,2,4] but the file stores [-1,3,4]", NULL));
    tg_expect_shape(r, "sl", 0, "[?,3,4]");
    fl_report_free(r);
    free(b);
}

/* A TensorFlow shape function that rejects the node: a warning naming the
 * tensor, the stored shapes, no failure (TRANSPOSE by a perm of the wrong
 * length). */
static void test_rejected(void **state) {
    (void)state;
    tensors[1].shape[0] = 2;
    tensors[1].nbytes = 8;
    size_t len;
    unsigned char *b = build(&len);
    tensors[1].shape[0] = 3;
    tensors[1].nbytes = sizeof perm;
    fl_report *r = NULL;
    assert_int_equal(run(b, len, NULL, &r), FL_OK);
    assert_true(fl_test_has_warning(
        r, "tensor 't': shapes not inferred from the inputs and options", NULL));
    tg_expect_shape(r, "t", 0, "[?,6,4]");
    fl_report_free(r);
    free(b);
}

/* Recurrent cells.
 * UNIDIRECTIONAL_SEQUENCE_LSTM, batch major (time_major false), x [N,3,2]:
 * T 3, I 2; C 4 (input-to-gate weights [4,2]), O 4 (recurrent weights
 * [4,4]), 4 gates (input gate present), no peephole, no projection. Output
 * [N,3,4]. Per step and batch row: MACs 4 * 4 * (2 + 4) = 96; other FLOPs
 * C * (2 * 4 + 5) = 52. S = 3N: MACs 288N, FLOPs 2 * 288N + 3N * 52 = 732N.
 * RNN x [2,3], weights [5,3], recurrent [5,5], TANH: output [2,5]; MACs
 * B * U * (I + U) = 2 * 5 * 8 = 80; FLOPs 160 + B * 2U (bias, activation)
 * = 180. */
enum { C_RNN = 24, C_SEQ_LSTM = 44, O_RNN = 7, O_SEQ_LSTM = 71 };
static float zeros[64];

static void test_rnn_cells(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 3, {-1, 3, 2}},
        {"wi", TB_FLOAT32, 2, {4, 2}, zeros, 32},
        {"wr", TB_FLOAT32, 2, {4, 4}, zeros, 64},
        {"bias", TB_FLOAT32, 1, {4}, zeros, 16},
        {"h", TB_FLOAT32, 2, {1, 4}, NULL, 0, true},
        {"cs", TB_FLOAT32, 2, {1, 4}, NULL, 0, true},
        {"seq", TB_FLOAT32, 3, {-1, 3, 4}},
        {"rx", TB_FLOAT32, 2, {2, 3}},
        {"rw", TB_FLOAT32, 2, {5, 3}, zeros, 60},
        {"rr", TB_FLOAT32, 2, {5, 5}, zeros, 100},
        {"rb", TB_FLOAT32, 1, {5}, zeros, 20},
        {"rh", TB_FLOAT32, 2, {2, 5}, NULL, 0, true},
        {"rout", TB_FLOAT32, 2, {2, 5}},
    };
    const int rcodes[] = {C_SEQ_LSTM, C_RNN};
    const tb_op o[] = {
        /* UnidirectionalSequenceLSTMOptions: activation TANH, cell_clip,
         * proj_clip, time_major false */
        {0,
         24,
         {0, 1, 1, 1, 1, 2, 2, 2, 2, -1, -1, -1, 3, 3, 3, 3, -1, -1, 4, 5, -1, -1, -1, -1},
         1,
         {6},
         O_SEQ_LSTM,
         4,
         {{4}, {0}, {0}, {0}}},
        /* RNNOptions: activation TANH */
        {1, 5, {7, 8, 9, 10, 11}, 1, {12}, O_RNN, 1, {{4}}},
    };
    tb_subgraph sg = {"main", 13, t, 2, {0, 7}, 2, {6, 12}, 2, o};
    tb w;
    tb_model(&w, 2, rcodes, 1, &sg);
    fl_report *r = NULL;
    assert_int_equal(run(w.b, w.len, NULL, &r), FL_OK);
    tg_expect_shape(r, "seq", 0, "[x.0,3,4]");
    assert_string_equal(tg_find(r, "seq")->macs.text, "288*x.0");
    assert_string_equal(tg_find(r, "seq")->flops.text, "732*x.0");
    tg_expect_shape(r, "rout", 0, "[2,5]");
    assert_int_equal(tg_find(r, "rout")->macs.value, 80);
    assert_int_equal(tg_find(r, "rout")->flops.value, 180);
    assert_false(fl_test_has_warning(r, "the file stores", NULL));
    fl_report_free(r);
    free(w.b);
}

/* A scalar graph input (a tensor of rank 0) is a scalar, not an unknown rank: s [] + x [2,3]
 * -> [2,3], 6 FLOPs. (The GraphDef rule "a scalar shape attr of producer <= 21 means unknown"
 * is TensorFlow's, and the TFLite importer leaves the producer 0.) */
static void test_scalar_input(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {2, 3}},
        {"s", TB_FLOAT32, 0, {0}},
        {"y", TB_FLOAT32, 2, {2, 3}},
    };
    const int acodes[] = {C_ADD};
    const tb_op o[] = {{0, 2, {0, 1}, 1, {2}}};
    tb_subgraph sg = {"main", 3, t, 2, {0, 1}, 1, {2}, 1, o};
    tb w;
    tb_model(&w, 1, acodes, 1, &sg);
    fl_report *r = NULL;
    assert_int_equal(run(w.b, w.len, NULL, &r), FL_OK);
    tg_expect_shape(r, "s", 0, "[]");
    tg_expect_shape(r, "y", 0, "[2,3]");
    assert_int_equal(tg_find(r, "y")->flops.value, 6);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
    free(w.b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_batch),   cmocka_unit_test(test_stored_disagrees),
        cmocka_unit_test(test_rejected),     cmocka_unit_test(test_rnn_cells),
        cmocka_unit_test(test_scalar_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
