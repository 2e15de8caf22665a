/*
 * test_tflite_loop.c - WHILE trip counts on models written in memory by
 * tflbuild.h.
 *
 * The model: main runs WHILE(i0, x) with cond subgraph "cond" and body
 * subgraph "body":
 *   cond(ci, cx): cb = LESS(ci, lim)                  (lim a constant)
 *   body(bi, bx): bi2 = ADD(bi, step); bx2 = FULLY_CONNECTED(bx, w [4,4])
 * x [1,4]; i0 = 0, lim = 5, step = 1: the loop runs while i < 5, i = 0..4,
 * 5 times; the cond is evaluated 6 times (the last one false).
 * Per body run: FC MACs 1*4 * 4 = 16, FLOPs 32; ADD 1 FLOP (one element);
 * per cond run: LESS 1 FLOP. Totals: MACs 5 * 16 = 80; FLOPs 5 * (32 + 1) +
 * 6 * 1 = 171. The FC's bytes per run: reads x 16 + w 64, writes 16 = 96;
 * 480 over the 5 runs.
 * Counting down: i0 = 10, GREATER(ci, 3), step -2: i = 10, 8, 6, 4 pass, 2
 * stops: 4 runs, MACs 64, FLOPs 4 * 33 + 5 = 137.
 * An unknown trip count (the body adds bi to itself: no constant step): the
 * body and cond are counted once, MACs 16, FLOPs 32 + 1 + 1 = 34, a
 * warning names the WHILE and says the trip count is unknown, and the
 * answer is partial (the WHILE node incomplete, the totals a lower bound).
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

enum { C_ADD = 0, C_FC = 9, C_LESS = 58, C_GREATER = 61, C_WHILE = 119, O_FC = 8, O_WHILE = 93 };

static int32_t i0[1], lim[1], step[1];
static float w[16];

static const tb_tensor main_t[] = {
    {"x", TB_FLOAT32, 2, {1, 4}},
    {"i0", TB_INT32, 0, {0}, i0, sizeof i0},
    {"i_out", TB_INT32, 0, {0}},
    {"y", TB_FLOAT32, 2, {1, 4}},
};
static const tb_op main_ops[] = {
    /* WhileOptions: cond_subgraph_index 1, body_subgraph_index 2 */
    {0, 2, {1, 0}, 2, {2, 3}, O_WHILE, 2, {{1}, {2}}},
};

static const tb_tensor cond_t[] = {
    {"ci", TB_INT32, 0, {0}},
    {"cx", TB_FLOAT32, 2, {1, 4}},
    {"lim", TB_INT32, 0, {0}, lim, sizeof lim},
    {"cb", TB_BOOL, 0, {0}},
};

static const tb_tensor body_t[] = {
    {"bi", TB_INT32, 0, {0}},
    {"bx", TB_FLOAT32, 2, {1, 4}},
    {"step", TB_INT32, 0, {0}, step, sizeof step},
    {"bi2", TB_INT32, 0, {0}},
    {"w", TB_FLOAT32, 2, {4, 4}, w, sizeof w},
    {"bx2", TB_FLOAT32, 2, {1, 4}},
};

/* cmp: LESS or GREATER (opcode 1 or 4); self_add: the body adds bi to
 * itself (no constant step). */
static unsigned char *build(int cmp, bool self_add, size_t *len) {
    const int codes[] = {C_WHILE, C_LESS, C_ADD, C_FC, C_GREATER};
    tb_op cond_ops[] = {{cmp, 2, {0, 2}, 1, {3}}};
    tb_op body_ops[] = {
        {2, 2, {0, self_add ? 0 : 2}, 1, {3}},
        /* FullyConnectedOptions: activation NONE; no bias */
        {3, 3, {1, 4, -1}, 1, {5}, O_FC, 1, {{0}}},
    };
    tb_subgraph sg[] = {
        {"main", 4, main_t, 1, {0}, 1, {3}, 1, main_ops},
        {"cond", 4, cond_t, 2, {0, 1}, 1, {3}, 1, cond_ops},
        {"body", 6, body_t, 2, {0, 1}, 2, {3, 5}, 2, body_ops},
    };
    tb wr;
    tb_model(&wr, 5, codes, 3, sg);
    *len = wr.len;
    return wr.b;
}

/* A loop whose trip count is unknown makes the answer partial: its WHILE
 * node (named after its first output) is the one incomplete node, and its
 * body and cond, counted once, stay in the totals (a lower bound). */
static void assert_partial_loop(const fl_report *r, const char *loop) {
    assert_false(r->complete);
    assert_int_equal(r->nodes_incomplete, 1);
    assert_int_equal(r->nodes_excluded, 1);
    assert_true(tg_find(r, loop)->incomplete);
    assert_true(
        fl_test_has_warning(r,
                            "1 node(s) depend on trip counts the analysis cannot determine (a loop "
                            "counted once, or a subgraph also run inside a loop): their counts in "
                            "the totals are a lower bound",
                            NULL));
}

static void test_counted_up(void **state) {
    (void)state;
    i0[0] = 0;
    lim[0] = 5;
    step[0] = 1;
    size_t len;
    unsigned char *b = build(1, false, &len);
    fl_report *r = tg_analyze_bytes(b, len, NULL);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(r->totals.macs.value, 80);
    assert_int_equal(r->totals.flops.value, 171);
    assert_true(r->complete);
    assert_false(tg_find(r, "i_out")->incomplete);
    assert_int_equal(tg_find(r, "body/bx2")->macs.value, 80);
    assert_int_equal(tg_find(r, "body/bx2")->bytes.value, 480);
    assert_int_equal(tg_find(r, "cond/cb")->flops.value, 6);
    assert_true(
        fl_test_has_warning(r,
                            "WHILE 'i_out': trip count 5, derived from its cond subgraph 'cond': "
                            "body subgraph 'body' counted 5 times, cond 6 times",
                            NULL));
    fl_report_free(r);
    free(b);
}

static void test_counted_down(void **state) {
    (void)state;
    i0[0] = 10;
    lim[0] = 3;
    step[0] = -2;
    size_t len;
    unsigned char *b = build(4, false, &len);
    fl_report *r = tg_analyze_bytes(b, len, NULL);
    assert_int_equal(r->totals.macs.value, 64);
    assert_int_equal(r->totals.flops.value, 137);
    assert_true(fl_test_has_warning(r, "trip count 4", NULL));
    fl_report_free(r);
    free(b);
}

/* A loop that never starts: i0 = 7, i < 5: the body runs 0 times, the cond
 * once. */
static void test_zero_trips(void **state) {
    (void)state;
    i0[0] = 7;
    lim[0] = 5;
    step[0] = 1;
    size_t len;
    unsigned char *b = build(1, false, &len);
    fl_report *r = tg_analyze_bytes(b, len, NULL);
    assert_int_equal(r->totals.macs.value, 0);
    assert_int_equal(r->totals.flops.value, 1);
    fl_report_free(r);
    free(b);
}

static void test_unknown(void **state) {
    (void)state;
    i0[0] = 0;
    lim[0] = 5;
    step[0] = 1;
    size_t len;
    unsigned char *b = build(1, true, &len);
    fl_report *r = tg_analyze_bytes(b, len, NULL);
    assert_int_equal(r->totals.macs.value, 16);
    assert_int_equal(r->totals.flops.value, 34);
    assert_true(
        fl_test_has_warning(r,
                            "WHILE 'i_out': trip count unknown (the cond's comparison 'cond/cb' "
                            "reads no loop variable the body steps by a constant): its body "
                            "subgraph 'body' and cond subgraph 'cond' are counted once, so the "
                            "loop is incomplete, the answer partial and the totals a lower bound",
                            NULL));
    assert_partial_loop(r, "i_out");
    fl_report_free(r);
    free(b);
}

/* ---- Limits from the graph: counted from the limit's value ---------------
 *
 * main: WHILE(i0 = 0, lim, x) with cond "cond" and body "body":
 *   cond(ci, cn, cx): cb = LESS(ci, cn)
 *   body(bi, bn, bx): bi2 = ADD(bi, step 1); bx2 = FULLY_CONNECTED(bx, w
 *   [4,4]); returns (bi2, bn, bx2): bn passed on unchanged, so the limit is
 *   the WHILE's input 1.
 * lim is either the int32 scalar graph input n, or GATHER(SHAPE(s), 0) of
 * the graph input s [?,3] (its value s.0). i from 0 by 1 while i < L: L
 * trips (ceil((L - 0) / 1)), the cond L + 1 times. Per trip FC 16 MACs, 32
 * FLOPs, ADD 1 FLOP; per cond run LESS 1 FLOP (SHAPE, GATHER: 0): FLOPs
 * 33*L + (L + 1) = 34*L + 1, MACs 16*L. At L = 5 these are the constant
 * loop's 171 and 80 (test_counted_up). */

enum { C_SHAPE = 77, C_GATHER = 36, O_GATHER = 23, O_SHAPE = 55 };

static int32_t zero[1];

typedef enum { LIM_INPUT, LIM_SHAPE, LIM_VECTOR } lim_src;

static unsigned char *build_var(lim_src src, size_t *len) {
    const int codes[] = {C_WHILE, C_LESS, C_ADD, C_FC, C_SHAPE, C_GATHER};
    const tb_tensor m_t[] = {
        {"x", TB_FLOAT32, 2, {1, 4}},
        {"i0", TB_INT32, 0, {0}, zero, sizeof zero},
        /* a scalar n, or a [1] vector (no scalar input: no symbol) */
        {"n", TB_INT32, src == LIM_VECTOR ? 1 : 0, {1}},
        {"i_out", TB_INT32, 0, {0}},
        {"n_out", TB_INT32, src == LIM_VECTOR ? 1 : 0, {1}},
        {"y", TB_FLOAT32, 2, {1, 4}},
        {"s", TB_FLOAT32, 2, {-1, 3}},
        {"sh", TB_INT32, 1, {2}},
        {"idx", TB_INT32, 0, {0}, zero, sizeof zero},
    };
    const tb_op m_ops[] = {
        /* ShapeOptions: out_type INT32; GatherOptions: axis 0, batch_dims 0 */
        {4, 1, {6}, 1, {7}, O_SHAPE, 1, {{TB_INT32}}},
        {5, 2, {7, 8}, 1, {2}, O_GATHER, 2, {{0}, {0}}},
        {0, 3, {1, 2, 0}, 3, {3, 4, 5}, O_WHILE, 2, {{1}, {2}}},
    };
    const tb_tensor c_t[] = {
        {"ci", TB_INT32, 0, {0}},
        {"cn", TB_INT32, src == LIM_VECTOR ? 1 : 0, {1}},
        {"cx", TB_FLOAT32, 2, {1, 4}},
        {"cb", TB_BOOL, 0, {0}},
    };
    const tb_op c_ops[] = {{1, 2, {0, 1}, 1, {3}}};
    const tb_tensor b_t[] = {
        {"bi", TB_INT32, 0, {0}},       {"bn", TB_INT32, src == LIM_VECTOR ? 1 : 0, {1}},
        {"bx", TB_FLOAT32, 2, {1, 4}},  {"step", TB_INT32, 0, {0}, step, sizeof step},
        {"bi2", TB_INT32, 0, {0}},      {"w", TB_FLOAT32, 2, {4, 4}, w, sizeof w},
        {"bx2", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op b_ops[] = {
        {2, 2, {0, 3}, 1, {4}},
        {3, 3, {2, 5, -1}, 1, {6}, O_FC, 1, {{0}}},
    };
    bool shape = src == LIM_SHAPE;
    tb_subgraph sg[] = {
        {"main", 9, m_t, 2, {0, shape ? 6 : 2}, 1, {5}, shape ? 3 : 1, shape ? m_ops : m_ops + 2},
        {"cond", 4, c_t, 3, {0, 1, 2}, 1, {3}, 1, c_ops},
        {"body", 7, b_t, 3, {0, 1, 2}, 3, {4, 1, 6}, 2, b_ops},
    };
    tb wr;
    tb_model(&wr, 6, codes, 3, sg);
    *len = wr.len;
    return wr.b;
}

static fl_report *analyze_bound(const unsigned char *b, size_t len, const char *sym, int64_t v) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_symbol_binding sb = {sym, v};
    if (sym) {
        o.symbols = &sb;
        o.n_symbols = 1;
    }
    fl_report *r = NULL;
    if (fl_analyze(b, len, &o, &r) != FL_OK) {
        fail_msg("analysis failed: %s", r ? r->error : "?");
    }
    return r;
}

static void test_input_limit(void **state) {
    (void)state;
    step[0] = 1;
    size_t len;
    unsigned char *b = build_var(LIM_INPUT, &len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_true(r->complete);
    assert_string_equal(r->totals.flops.text, "34*n + 1");
    assert_string_equal(r->totals.macs.text, "16*n");
    assert_string_equal(tg_find(r, "body/bx2")->flops.text, "32*n");
    assert_string_equal(tg_find(r, "body/bi2")->flops.text, "n");
    assert_string_equal(tg_find(r, "cond/cb")->flops.text, "n + 1");
    assert_true(
        fl_test_has_warning(r,
                            "WHILE 'i_out': trip count n, from the value of its limit (input 1 of "
                            "the loop): body subgraph 'body' counted n times, cond subgraph 'cond' "
                            "n + 1 times (a formula",
                            NULL));
    assert_false(fl_test_has_warning(r, "lower bound", NULL));
    fl_report_free(r);
    r = analyze_bound(b, len, "n", 5);
    assert_int_equal(r->totals.flops.value, 171);
    assert_int_equal(r->totals.macs.value, 80);
    assert_int_equal(tg_find(r, "body/bx2")->bytes.value, 480);
    assert_true(
        fl_test_has_warning(r, "WHILE 'i_out': trip count 5, from the value of its limit", NULL));
    fl_report_free(r);
    /* n = 0: the loop does not run; the cond once */
    r = analyze_bound(b, len, "n", 0);
    assert_int_equal(r->totals.flops.value, 1);
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    /* --value n=-3 (a symbol binding is a size, never negative): ceil(-3 /
     * 1) = -3 trips is no run at all, 0, not the formula's -3; cond once */
    fl_options o;
    fl_options_init(&o);
    fl_value_binding vb = {"n", -3};
    o.values = &vb;
    o.n_values = 1;
    r = NULL;
    assert_int_equal(fl_analyze(b, len, &o, &r), FL_OK);
    assert_int_equal(r->totals.flops.value, 1);
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    free(b);
}

static void test_shape_limit(void **state) {
    (void)state;
    step[0] = 1;
    size_t len;
    unsigned char *b = build_var(LIM_SHAPE, &len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(r->totals.flops.text, "34*s.0 + 1");
    assert_string_equal(r->totals.macs.text, "16*s.0");
    fl_report_free(r);
    r = analyze_bound(b, len, "s.0", 5);
    assert_int_equal(r->totals.flops.value, 171);
    assert_int_equal(r->totals.macs.value, 80);
    fl_report_free(r);
    free(b);
}

/* The limit an int32 [1] input: neither a value nor a scalar input's
 * symbol, so the trip count is unknown: body and cond once (33 + 1 = 34
 * FLOPs, 16 MACs), with a warning that the totals are a lower bound. */
static void test_unknown_limit(void **state) {
    (void)state;
    step[0] = 1;
    size_t len;
    unsigned char *b = build_var(LIM_VECTOR, &len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->totals.flops.value, 34);
    assert_int_equal(r->totals.macs.value, 16);
    assert_true(fl_test_has_warning(
        r,
        "WHILE 'i_out': trip count unknown (its limit, input 1 of the loop, has "
        "no value the analysis knows, or the counter never meets it): its body "
        "subgraph 'body' and cond subgraph 'cond' are counted once, so the "
        "loop is incomplete, the answer partial and the totals a lower bound",
        NULL));
    assert_partial_loop(r, "i_out");
    fl_report_free(r);
    free(b);
}

/* ---- A subgraph run inside a loop counted from its limit and outside it --
 *
 * main: WHILE(i0 = 0, n, x) as build_var's (n the int32 scalar input, the
 * body passes it on), and z = CALL f(x); the body runs y = CALL f(bx)
 * instead of the FC. f(fx) = FULLY_CONNECTED(fx, w [4,4]): 32 FLOPs, 16
 * MACs a run. f runs n times in the loop and once outside: exactly
 * 32*(n + 1) FLOPs. The import keeps one count per subgraph, and f's two
 * callers differ (one inside the symbolic loop), so f counts its two
 * callers once each, 64 FLOPs and 32 MACs, without n: a lower bound (for
 * n >= 1). Totals: f 64 + ADD n + LESS n + 1 = 2*n + 65 FLOPs, 32 MACs; at
 * n = 5, 75 (the exact count would be 6*32 + 5 + 6 = 203). f's nodes are
 * incomplete (their one count stays in the totals), so the answer is
 * partial, with a warning naming f. */

enum { C_CALL = 31, O_CALL = 16 };

static unsigned char *build_shared_call(size_t *len) {
    const int codes[] = {C_WHILE, C_LESS, C_ADD, C_FC, C_CALL};
    const tb_tensor m_t[] = {
        {"x", TB_FLOAT32, 2, {1, 4}}, {"i0", TB_INT32, 0, {0}, zero, sizeof zero},
        {"n", TB_INT32, 0, {1}},      {"i_out", TB_INT32, 0, {0}},
        {"n_out", TB_INT32, 0, {1}},  {"y", TB_FLOAT32, 2, {1, 4}},
        {"z", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op m_ops[] = {
        {0, 3, {1, 2, 0}, 3, {3, 4, 5}, O_WHILE, 2, {{1}, {2}}},
        /* CallOptions: subgraph 3 */
        {4, 1, {0}, 1, {6}, O_CALL, 1, {{3}}},
    };
    const tb_tensor c_t[] = {
        {"ci", TB_INT32, 0, {0}},
        {"cn", TB_INT32, 0, {1}},
        {"cx", TB_FLOAT32, 2, {1, 4}},
        {"cb", TB_BOOL, 0, {0}},
    };
    const tb_op c_ops[] = {{1, 2, {0, 1}, 1, {3}}};
    const tb_tensor b_t[] = {
        {"bi", TB_INT32, 0, {0}},      {"bn", TB_INT32, 0, {1}},
        {"bx", TB_FLOAT32, 2, {1, 4}}, {"step", TB_INT32, 0, {0}, step, sizeof step},
        {"bi2", TB_INT32, 0, {0}},     {"bx2", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op b_ops[] = {
        {2, 2, {0, 3}, 1, {4}},
        {4, 1, {2}, 1, {5}, O_CALL, 1, {{3}}},
    };
    const tb_tensor f_t[] = {
        {"fx", TB_FLOAT32, 2, {1, 4}},
        {"fw", TB_FLOAT32, 2, {4, 4}, w, sizeof w},
        {"fy", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op f_ops[] = {{3, 3, {0, 1, -1}, 1, {2}, O_FC, 1, {{0}}}};
    tb_subgraph sg[] = {
        {"main", 7, m_t, 2, {0, 2}, 2, {5, 6}, 2, m_ops},
        {"cond", 4, c_t, 3, {0, 1, 2}, 1, {3}, 1, c_ops},
        {"body", 6, b_t, 3, {0, 1, 2}, 3, {4, 1, 5}, 2, b_ops},
        {"f", 3, f_t, 1, {0}, 1, {2}, 1, f_ops},
    };
    tb wr;
    tb_model(&wr, 5, codes, 4, sg);
    *len = wr.len;
    return wr.b;
}

static void test_shared_subgraph_in_loop(void **state) {
    (void)state;
    step[0] = 1;
    size_t len;
    unsigned char *b = build_shared_call(&len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(r->totals.flops.text, "2*n + 65");
    assert_int_equal(r->totals.macs.value, 32);
    assert_int_equal(tg_find(r, "f/fy")->flops.value, 64);
    assert_int_equal(tg_find(r, "f/fy")->macs.value, 32);
    assert_true(tg_find(r, "f/fy")->incomplete);
    assert_false(tg_find(r, "body/bi2")->incomplete);
    assert_false(r->complete);
    assert_true(r->nodes_incomplete >= 1);
    assert_true(
        fl_test_has_warning(r,
                            "subgraph 'f' runs from more than one op, one of them inside a WHILE "
                            "whose trip count is counted from its limit's value: its nodes are "
                            "counted without those trip counts, so they are incomplete, the answer "
                            "partial and the totals a lower bound",
                            NULL));
    fl_report_free(r);
    r = analyze_bound(b, len, "n", 5);
    assert_int_equal(r->totals.flops.value, 75);
    assert_int_equal(r->totals.macs.value, 32);
    assert_false(r->complete);
    fl_report_free(r);
    free(b);
}

/* ---- Nested: a counted loop inside a loop counted from its limit ---------
 *
 * main: WHILE(i0 = 0, n, x) (outer, cond "ocond", body "obody"), n an int32
 * scalar input:
 *   ocond(ci, cn, cx): LESS(ci, cn)
 *   obody(bi, bn, bx): bi2 = ADD(bi, 1); (j_out, bx2) = WHILE(j0 = 0, bx)
 *                      (inner, cond "icond", body "ibody"); (bi2, bn, bx2)
 *   icond(cj, cjx): LESS(cj, 3)
 *   ibody(bj, bjx): bj2 = ADD(bj, 1); bjx2 = FULLY_CONNECTED(bjx, w [4,4])
 * The outer loop runs n times, its cond n + 1; the inner loop 3 times per
 * outer trip (3*n), its cond 4 per outer trip (4*n). FLOPs: ocond n + 1,
 * obody's ADD n, icond 4*n, ibody's ADD 3*n and FC 32 * 3*n = 96*n: 105*n
 * + 1; MACs 16 * 3*n = 48*n. n = 2: 211 FLOPs, 96 MACs. */

static int32_t three[1] = {3}, one[1] = {1};

static unsigned char *build_nested(size_t *len) {
    const int codes[] = {C_WHILE, C_LESS, C_ADD, C_FC};
    const tb_tensor m_t[] = {
        {"x", TB_FLOAT32, 2, {1, 4}}, {"i0", TB_INT32, 0, {0}, zero, sizeof zero},
        {"n", TB_INT32, 0, {0}},      {"i_out", TB_INT32, 0, {0}},
        {"n_out", TB_INT32, 0, {0}},  {"y", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op m_ops[] = {{0, 3, {1, 2, 0}, 3, {3, 4, 5}, O_WHILE, 2, {{1}, {2}}}};
    const tb_tensor oc_t[] = {
        {"ci", TB_INT32, 0, {0}},
        {"cn", TB_INT32, 0, {0}},
        {"cx", TB_FLOAT32, 2, {1, 4}},
        {"cb", TB_BOOL, 0, {0}},
    };
    const tb_op oc_ops[] = {{1, 2, {0, 1}, 1, {3}}};
    const tb_tensor ob_t[] = {
        {"bi", TB_INT32, 0, {0}},      {"bn", TB_INT32, 0, {0}},
        {"bx", TB_FLOAT32, 2, {1, 4}}, {"one", TB_INT32, 0, {0}, one, sizeof one},
        {"bi2", TB_INT32, 0, {0}},     {"j0", TB_INT32, 0, {0}, zero, sizeof zero},
        {"j_out", TB_INT32, 0, {0}},   {"bx2", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op ob_ops[] = {
        {2, 2, {0, 3}, 1, {4}},
        {0, 2, {5, 2}, 2, {6, 7}, O_WHILE, 2, {{3}, {4}}},
    };
    const tb_tensor ic_t[] = {
        {"cj", TB_INT32, 0, {0}},
        {"cjx", TB_FLOAT32, 2, {1, 4}},
        {"three", TB_INT32, 0, {0}, three, sizeof three},
        {"cjb", TB_BOOL, 0, {0}},
    };
    const tb_op ic_ops[] = {{1, 2, {0, 2}, 1, {3}}};
    const tb_tensor ib_t[] = {
        {"bj", TB_INT32, 0, {0}},
        {"bjx", TB_FLOAT32, 2, {1, 4}},
        {"one", TB_INT32, 0, {0}, one, sizeof one},
        {"bj2", TB_INT32, 0, {0}},
        {"w", TB_FLOAT32, 2, {4, 4}, w, sizeof w},
        {"bjx2", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op ib_ops[] = {
        {2, 2, {0, 2}, 1, {3}},
        {3, 3, {1, 4, -1}, 1, {5}, O_FC, 1, {{0}}},
    };
    tb_subgraph sg[] = {
        {"main", 6, m_t, 2, {0, 2}, 1, {5}, 1, m_ops},
        {"ocond", 4, oc_t, 3, {0, 1, 2}, 1, {3}, 1, oc_ops},
        {"obody", 8, ob_t, 3, {0, 1, 2}, 3, {4, 1, 7}, 2, ob_ops},
        {"icond", 4, ic_t, 2, {0, 1}, 1, {3}, 1, ic_ops},
        {"ibody", 6, ib_t, 2, {0, 1}, 2, {3, 5}, 2, ib_ops},
    };
    tb wr;
    tb_model(&wr, 4, codes, 5, sg);
    *len = wr.len;
    return wr.b;
}

static void test_nested(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = build_nested(&len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(r->totals.flops.text, "105*n + 1");
    assert_string_equal(r->totals.macs.text, "48*n");
    assert_string_equal(tg_find(r, "ibody/bjx2")->flops.text, "96*n");
    assert_string_equal(tg_find(r, "icond/cjb")->flops.text, "4*n");
    assert_string_equal(tg_find(r, "obody/bi2")->flops.text, "n");
    assert_string_equal(tg_find(r, "ocond/cb")->flops.text, "n + 1");
    assert_true(fl_test_has_warning(
        r, "WHILE 'obody/j_out': trip count 3, derived from its cond subgraph", NULL));
    fl_report_free(r);
    r = analyze_bound(b, len, "n", 2);
    assert_int_equal(r->totals.flops.value, 211);
    assert_int_equal(r->totals.macs.value, 96);
    fl_report_free(r);
    free(b);
}

/* ---- STABLEHLO_WHILE --------------------------------------------------------
 *
 * main: STABLEHLO_WHILE(i0 = 0, lim, x) with
 *   cond(ci, cn, cx): cb = STABLEHLO_COMPARE(ci, cn) direction LT
 *   body(bi, bn, bx): bi2 = STABLEHLO_ADD(bi, 1); bx2 = STABLEHLO_MULTIPLY(bx,
 *   bx) [1,4]; returns (bi2, bn, bx2)
 * lim a constant 5 or the int32 scalar input n. Per trip ADD 1 + MULTIPLY 4
 * = 5 FLOPs, per cond run COMPARE 1: 5*5 + 6 = 31 FLOPs for lim 5; 5*n + (n
 * + 1) = 6*n + 1 for n, 19 at n = 3. */

enum { C_HLO_ADD = 163, C_HLO_MUL = 165, C_HLO_CMP = 191, C_HLO_WHILE = 200 };
enum { O2_COMPARE = 8, O2_WHILE = 15, DIR_LT = 5, CMP_SIGNED = 3 };

static int32_t five[1] = {5};

static unsigned char *build_hlo(bool input_limit, size_t *len) {
    const int codes[] = {C_HLO_WHILE, C_HLO_CMP, C_HLO_ADD, C_HLO_MUL};
    const tb_tensor m_t[] = {
        {"x", TB_FLOAT32, 2, {1, 4}},
        {"i0", TB_INT32, 0, {0}, zero, sizeof zero},
        {"n", TB_INT32, 0, {0}, input_limit ? NULL : five, input_limit ? 0 : sizeof five},
        {"i_out", TB_INT32, 0, {0}},
        {"n_out", TB_INT32, 0, {0}},
        {"y", TB_FLOAT32, 2, {1, 4}},
    };
    tb_op m_ops[] = {{0, 3, {1, 2, 0}, 3, {3, 4, 5}, O2_WHILE, 2, {{1}, {2}}, true}};
    const tb_tensor c_t[] = {
        {"ci", TB_INT32, 0, {0}},
        {"cn", TB_INT32, 0, {0}},
        {"cx", TB_FLOAT32, 2, {1, 4}},
        {"cb", TB_BOOL, 0, {0}},
    };
    tb_op c_ops[] = {{1, 2, {0, 1}, 1, {3}, O2_COMPARE, 2, {{DIR_LT}, {CMP_SIGNED}}, true}};
    const tb_tensor b_t[] = {
        {"bi", TB_INT32, 0, {0}},      {"bn", TB_INT32, 0, {0}},
        {"bx", TB_FLOAT32, 2, {1, 4}}, {"one", TB_INT32, 0, {0}, one, sizeof one},
        {"bi2", TB_INT32, 0, {0}},     {"bx2", TB_FLOAT32, 2, {1, 4}},
    };
    const tb_op b_ops[] = {{2, 2, {0, 3}, 1, {4}}, {3, 2, {2, 2}, 1, {5}}};
    tb_subgraph sg[] = {
        {"main", 6, m_t, input_limit ? 2 : 1, {0, 2}, 1, {5}, 1, m_ops},
        {"cond", 4, c_t, 3, {0, 1, 2}, 1, {3}, 1, c_ops},
        {"body", 6, b_t, 3, {0, 1, 2}, 3, {4, 1, 5}, 2, b_ops},
    };
    tb wr;
    tb_model(&wr, 4, codes, 3, sg);
    *len = wr.len;
    return wr.b;
}

static void test_hlo_while(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = build_hlo(false, &len);
    fl_report *r = analyze_bound(b, len, NULL, 0);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(r->totals.flops.value, 31);
    assert_int_equal(tg_find(r, "body/bx2")->flops.value, 20);
    assert_true(
        fl_test_has_warning(r,
                            "STABLEHLO_WHILE 'i_out': trip count 5, derived from its cond "
                            "subgraph 'cond': body subgraph 'body' counted 5 times, cond 6 times",
                            NULL));
    fl_report_free(r);
    free(b);
    b = build_hlo(true, &len);
    r = analyze_bound(b, len, NULL, 0);
    assert_string_equal(r->totals.flops.text, "6*n + 1");
    assert_true(fl_test_has_warning(
        r, "STABLEHLO_WHILE 'i_out': trip count n, from the value of its limit", NULL));
    fl_report_free(r);
    r = analyze_bound(b, len, "n", 3);
    assert_int_equal(r->totals.flops.value, 19);
    fl_report_free(r);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_up),
        cmocka_unit_test(test_counted_down),
        cmocka_unit_test(test_zero_trips),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_input_limit),
        cmocka_unit_test(test_shape_limit),
        cmocka_unit_test(test_unknown_limit),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_shared_subgraph_in_loop),
        cmocka_unit_test(test_hlo_while),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
