/*
 * test_cli_textfmt.c - the CLI's text tables: names shortened in the middle
 * stay distinct within a table and keep their ends; long cells wrap under
 * their column.
 */
#include "testutil.h"
#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every shortened name of names[0..n) is at most `width` long, distinct
 * names stay distinct, and each keeps its own first 4 and last 4 chars. */
static void check_table(const char *const *names, size_t n, size_t width) {
    char out[16][128];
    for (size_t i = 0; i < n; i++) {
        fl_text_abbrev(names, n, i, width, out[i], sizeof out[i]);
        size_t len = strlen(names[i]), ol = strlen(out[i]);
        assert_true(ol <= width);
        assert_memory_equal(out[i], names[i], 4);
        assert_memory_equal(out[i] + ol - 4, names[i] + len - 4, 4);
        if (len <= width) {
            assert_string_equal(out[i], names[i]);
        } else {
            assert_non_null(strstr(out[i], "..."));
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++) {
            if (strcmp(names[i], names[k]) != 0) {
                assert_string_not_equal(out[i], out[k]);
            }
        }
    }
}

/* Names that differ in two places (a layer index near the start and a
 * sub-block near the end), as a transformer's top ops do. */
static void test_two_places(void **state) {
    (void)state;
    const char *names[] = {
        "/encoder/layers/encoder_layer_0/mlp/mlp.0/Transpose",
        "/encoder/layers/encoder_layer_0/mlp/mlp.3/Transpose",
        "/encoder/layers/encoder_layer_1/mlp/mlp.0/Transpose",
        "/encoder/layers/encoder_layer_1/mlp/mlp.3/Transpose",
    };
    check_table(names, 4, 44);
    check_table(names, 4, 32);
    char out[64];
    fl_text_abbrev(names, 4, 2, 44, out, sizeof out);
    assert_string_equal(out, "/encoder/la...er_layer_1/mlp/mlp.0/Transpose");
}

/* Names that differ only in the middle of a long common start and end: the
 * middle window shows the difference. */
static void test_middle_only(void **state) {
    (void)state;
    const char *names[] = {
        "model/block_a/very/long/common/path/unit_17/and/then/a/long/common/tail/Conv2D",
        "model/block_a/very/long/common/path/unit_18/and/then/a/long/common/tail/Conv2D",
        "short",
    };
    check_table(names, 3, 40);
    char a[64], b[64];
    fl_text_abbrev(names, 3, 0, 40, a, sizeof a);
    fl_text_abbrev(names, 3, 1, 40, b, sizeof b);
    assert_non_null(strstr(a, "17"));
    assert_non_null(strstr(b, "18"));
}

static void test_name_width(void **state) {
    (void)state;
    const char *names[] = {"ab", "abcdefghij"};
    assert_int_equal(fl_text_name_width(names, 2, 4, 40), 10);
    assert_int_equal(fl_text_name_width(names, 2, 4, 6), 6);
    assert_int_equal(fl_text_name_width(names, 1, 4, 40), 4);
}

/* A formula longer than its column continues on the next lines, each piece
 * right-aligned under the column, broken at spaces. */
static void test_row_wraps(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *cells[] = {"148854*x.0 + 5041*y.0 + 29*x.0*y.0 + 7", "12"};
    fl_text_row(f, "  ", "FLOPs", 6, cells, 2, 16);
    fclose(f);
    assert_string_equal(buf, "  FLOPs      148854*x.0 +                12\n"
                             "               5041*y.0 +\n"
                             "           29*x.0*y.0 + 7\n");
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_places),
        cmocka_unit_test(test_middle_only),
        cmocka_unit_test(test_name_width),
        cmocka_unit_test(test_row_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
