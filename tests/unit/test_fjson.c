/*
 * test_fjson.c - the model.json reader (src/import/fjson.c) against RFC
 * 8259's grammar: values and their types, escapes (surrogate pairs to
 * UTF-8), numbers (integer vs real, range), duplicate keys, and every kind
 * of invalid text, each failing with its message and position.
 */
#include "import/fjson.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static const fl_json *parse(fl_arena *a, const char *s, bool dups, char *err) {
    return fl__json_parse(a, s, strlen(s), dups, err, 200);
}

static void test_values(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 0);
    char err[200];
    const fl_json *j =
        parse(&a,
              " {\"a\": [1, -0, 2.5, -1e3, true, false, null], \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t"
              "\\u00e9\\ud83d\\ude00\", \"big\": 9223372036854775807, \"o\": {}, \"e\": []}\n",
              true, err);
    assert_non_null(j);
    assert_true(fl__json_is(j, FL_JSON_OBJECT));
    assert_int_equal(j->n, 5);
    const fl_json *arr = fl__json_get(j, "a");
    assert_int_equal(fl__json_size(arr), 7);
    assert_true(fl__json_is(fl__json_at(arr, 0), FL_JSON_INTEGER));
    assert_int_equal(fl__json_int(fl__json_at(arr, 0)), 1);
    assert_int_equal(fl__json_int(fl__json_at(arr, 1)), 0);
    assert_true(fl__json_is(fl__json_at(arr, 2), FL_JSON_REAL));
    assert_true(fl__json_number(fl__json_at(arr, 2)) == 2.5);
    assert_true(fl__json_number(fl__json_at(arr, 3)) == -1000.0);
    assert_true(fl__json_is(fl__json_at(arr, 4), FL_JSON_TRUE));
    assert_true(fl__json_is(fl__json_at(arr, 5), FL_JSON_FALSE));
    assert_true(fl__json_is(fl__json_at(arr, 6), FL_JSON_NULL));
    assert_null(fl__json_at(arr, 7));
    /* x " \ / BS FF LF CR TAB, U+00E9 (2 bytes), U+1F600 (4 bytes) */
    const char want[] = "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80";
    assert_int_equal(fl__json_strlen(fl__json_get(j, "s")), sizeof want - 1);
    assert_memory_equal(fl__json_str(fl__json_get(j, "s")), want, sizeof want);
    assert_int_equal(fl__json_int(fl__json_get(j, "big")), 9223372036854775807LL);
    assert_int_equal(fl__json_get(j, "o")->n, 0);
    assert_int_equal(fl__json_size(fl__json_get(j, "e")), 0);
    assert_null(fl__json_get(j, "missing"));
    assert_null(fl__json_get(arr, "a"));
    /* Without duplicate rejection, the last of equal keys is found. */
    j = parse(&a, "{\"k\": 1, \"k\": 2}", false, err);
    assert_int_equal(fl__json_int(fl__json_get(j, "k")), 2);
    fl__arena_free(&a);
}

static void expect_bad(const char *text, bool dups, const char *msg) {
    fl_arena a;
    fl__arena_init(&a, 0);
    char err[200] = "";
    const fl_json *j = parse(&a, text, dups, err);
    if (j || strcmp(err, msg) != 0) {
        fail_msg("'%s': got '%s', want '%s'", text, j ? "success" : err, msg);
    }
    fl__arena_free(&a);
}

static void test_invalid(void **state) {
    (void)state;
    expect_bad("", false, "'[' or '{' expected (line 1, column 1)");
    expect_bad("1", false, "'[' or '{' expected (line 1, column 1)");
    expect_bad("{\"a\": 1} x", false, "end of file expected (line 1, column 10)");
    /* A duplicate is found when its object closes: the position is past '}'. */
    expect_bad("{\"a\": 1,\n \"a\": 2}", true, "duplicate object key (line 2, column 9)");
    expect_bad("{\"a\" 1}", false, "':' expected (line 1, column 6)");
    expect_bad("{\"a\": [1 2]}", false, "']' or ',' expected (line 1, column 10)");
    expect_bad("{\"a\": 1 \"b\": 2}", false, "'}' or ',' expected (line 1, column 9)");
    expect_bad("{1: 2}", false, "string or '}' expected (line 1, column 2)");
    expect_bad("[tru]", false, "invalid token (line 1, column 2)");
    expect_bad("[+1]", false, "invalid token (line 1, column 2)");
    expect_bad("[01]", false, "']' or ',' expected (line 1, column 3)");
    expect_bad("[1.]", false, "invalid real number (line 1, column 4)");
    expect_bad("[1e]", false, "invalid real number (line 1, column 4)");
    expect_bad("[9223372036854775808]", false, "too big integer (line 1, column 21)");
    expect_bad("[1e999]", false, "real number overflow (line 1, column 7)");
    expect_bad("[\"a", false, "unterminated string (line 1, column 4)");
    expect_bad("[\"a\tb\"]", false, "control character in a string (line 1, column 4)");
    expect_bad("[\"\\x\"]", false, "invalid escape (line 1, column 4)");
    expect_bad("[\"\\u12G4\"]", false, "invalid escape (line 1, column 5)");
    expect_bad("[\"\\u0000\"]", false, "\\u0000 is not allowed (line 1, column 9)");
    expect_bad("[\"\\udc00\"]", false, "invalid Unicode: a lone low surrogate (line 1, column 9)");
    expect_bad("[\"\\ud800x\"]", false,
               "invalid Unicode '\\uD800'-'\\uDBFF' without its low surrogate (line 1, column 9)");
    expect_bad("[\"\xc3\"]", false, "invalid UTF-8 in a string (line 1, column 3)");
    expect_bad("[\"\xed\xa0\x80\"]", false, "invalid UTF-8 in a string (line 1, column 3)");
    expect_bad("[\"\xc0\xaf\"]", false, "invalid UTF-8 in a string (line 1, column 3)");
    expect_bad("[1,", false, "unexpected end of input (line 1, column 4)");
    /* Nesting: 1024 levels are read, 1025 are not. */
    char deep[2 * 1025 + 1];
    memset(deep, '[', 1024);
    memset(deep + 1024, ']', 1024);
    deep[2048] = '\0';
    fl_arena a;
    fl__arena_init(&a, 0);
    char err[200];
    assert_non_null(parse(&a, deep, false, err));
    fl__arena_free(&a);
    memset(deep, '[', 1025);
    memset(deep + 1025, ']', 1025);
    deep[2050] = '\0';
    expect_bad(deep, false, "maximum parsing depth reached (line 1, column 1025)");
}

/* Many keys: duplicates found by sorting (one late duplicate among 200). */
static void test_many_keys(void **state) {
    (void)state;
    char buf[8192];
    size_t n = 0;
    buf[n++] = '{';
    for (int i = 0; i < 200; i++) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"k%d\": %d", i ? ", " : "", i, i);
    }
    snprintf(buf + n, sizeof buf - n, "}");
    fl_arena a;
    fl__arena_init(&a, 0);
    char err[200];
    const fl_json *j = parse(&a, buf, true, err);
    assert_non_null(j);
    assert_int_equal(fl__json_int(fl__json_get(j, "k137")), 137);
    fl__arena_free(&a);
    snprintf(buf + n, sizeof buf - n, ", \"k5\": 0}");
    fl__arena_init(&a, 0);
    assert_null(parse(&a, buf, true, err));
    assert_non_null(strstr(err, "duplicate object key"));
    fl__arena_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
