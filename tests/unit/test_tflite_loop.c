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
 * body and cond are counted once, MACs 16, FLOPs 32 + 1 + 1 = 34, and a
 * warning names the WHILE and says the trip count is unknown.
 */
#include "foldline/foldline.h"
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

static fl_report *analyze(const unsigned char *b, size_t len) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_report *r = NULL;
    fl_status st = fl_analyze(b, len, &o, &r);
    if (st != FL_OK) {
        fail_msg("analysis failed: %s", r ? r->error : "?");
    }
    return r;
}

static const fl_report_node *node(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        if (strcmp(r->nodes[i].name, name) == 0) {
            return &r->nodes[i];
        }
    }
    fail_msg("no node %s", name);
    return NULL;
}

static bool warned(const fl_report *r, const char *needle) {
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strstr(r->warnings[i], needle)) {
            return true;
        }
    }
    return false;
}

static void test_counted_up(void **state) {
    (void)state;
    i0[0] = 0;
    lim[0] = 5;
    step[0] = 1;
    size_t len;
    unsigned char *b = build(1, false, &len);
    fl_report *r = analyze(b, len);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(r->totals.macs.value, 80);
    assert_int_equal(r->totals.flops.value, 171);
    assert_int_equal(node(r, "body/bx2")->macs.value, 80);
    assert_int_equal(node(r, "body/bx2")->bytes.value, 480);
    assert_int_equal(node(r, "cond/cb")->flops.value, 6);
    assert_true(warned(r, "WHILE 'i_out': trip count 5, derived from its cond subgraph 'cond': "
                          "body subgraph 'body' counted 5 times, cond 6 times"));
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
    fl_report *r = analyze(b, len);
    assert_int_equal(r->totals.macs.value, 64);
    assert_int_equal(r->totals.flops.value, 137);
    assert_true(warned(r, "trip count 4"));
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
    fl_report *r = analyze(b, len);
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
    fl_report *r = analyze(b, len);
    assert_int_equal(r->totals.macs.value, 16);
    assert_int_equal(r->totals.flops.value, 34);
    assert_true(warned(r, "WHILE 'i_out': trip count unknown (the cond's comparison 'cond/cb' "
                          "reads no loop variable the body steps by a constant): its body "
                          "subgraph 'body' and cond subgraph 'cond' are counted once"));
    fl_report_free(r);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_up),
        cmocka_unit_test(test_counted_down),
        cmocka_unit_test(test_zero_trips),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
