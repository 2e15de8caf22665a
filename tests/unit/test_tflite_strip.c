/*
 * test_tflite_strip.c - fl_strip_tflite on tests/data/tiny.tflite and on
 * hand-built models.
 *
 * tiny.tflite's buffers (tests/tools/mktflite.c): conv_w 432 bytes, conv_b
 * 16, dw_w 144, the reshape's shape 8, fc_w16 720. A buffer above the
 * threshold loses its data rounded down to a multiple of 16 bytes (the rest
 * stays as padding, so every later byte keeps its alignment):
 *   threshold 0:    432 + 16 + 144 + 0 (8 rounds down to 0) + 720 = 1,312
 *   threshold 200:  432 + 720 = 1,152
 *   threshold 1024: nothing (the model comes back byte for byte).
 * The stripped model analyses as the whole one: MACs 7,596, FLOPs 15,704,
 * bytes 5,176 (test_tflite.c derives them), and the same parameter count.
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

/* The analysis with the default options (no per-node detail). */
static fl_report *analyze(const void *b, size_t len) {
    fl_options o;
    fl_options_init(&o);
    return tg_analyze_bytes(b, len, &o);
}

static void test_tiny(void **state) {
    (void)state;
    size_t len;
    unsigned char *model = fl_test_read_file(FL_TEST_DATA_DIR "/tiny.tflite", &len);
    assert_non_null(model);
    fl_report *full = analyze(model, len);
    const int64_t thresholds[] = {0, 200, 1024}, cut[] = {1312, 1152, 0};
    for (int i = 0; i < 3; i++) {
        size_t sl = 0;
        unsigned char *s = fl_strip_tflite(model, len, thresholds[i], &sl);
        assert_non_null(s);
        assert_int_equal(sl, len - (size_t)cut[i]);
        if (!cut[i]) {
            assert_memory_equal(s, model, len);
        }
        fl_report *r = analyze(s, sl);
        assert_int_equal(r->totals.macs.value, 7596);
        assert_int_equal(r->totals.flops.value, 15704);
        assert_int_equal(r->totals.bytes.value, 5176);
        assert_int_equal(r->params, full->params);
        assert_int_equal(r->n_unknown_ops, 0);
        fl_report_free(r);
        free(s);
    }
    fl_report_free(full);
    /* Not TFLite; a truncated file. */
    size_t sl = 0;
    assert_null(fl_strip_tflite("{}", 2, 0, &sl));
    assert_null(fl_strip_tflite(model, len / 2, 0, &sl));
    free(model);
}

/* A model whose operator has builtin options of a type this schema does
 * not know: its fields cannot all be found, so it is not stripped. */
static void test_unknown_options(void **state) {
    (void)state;
    static float w[64];
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {1, 8}},
        {"w", TB_FLOAT32, 2, {8, 8}, w, sizeof w},
        {"y", TB_FLOAT32, 2, {1, 8}},
    };
    const int codes[] = {9}; /* FULLY_CONNECTED */
    tb_op op = {0, 2, {0, 1}, 1, {2}, 8, 1, {{0}}};
    tb_subgraph sg = {"main", 3, t, 1, {0}, 1, {2}, 1, &op};
    tb wr;
    tb_model(&wr, 1, codes, 1, &sg);
    size_t sl = 0;
    unsigned char *s = fl_strip_tflite(wr.b, wr.len, 0, &sl);
    assert_non_null(s);
    assert_int_equal(sl, wr.len - 256); /* w's 256 bytes */
    free(s);
    free(wr.b);
    op.opt_type = 250;
    tb_model(&wr, 1, codes, 1, &sg);
    assert_null(fl_strip_tflite(wr.b, wr.len, 0, &sl));
    free(wr.b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_unknown_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
