/*
 * test_onnx_external.c - ONNX external data (data_location EXTERNAL) through
 * fl_analyze with the data file in fl_options.files.
 *
 * The model: x [1,4] float -> Reshape(x, s) -> y -> MatMul(y, w) -> z, with
 * s (int64 [2] = {2, 2}) and w (float [2,3]) stored in "w.bin": s at bytes
 * [0, 16), w at [4096, 4120). y is [2,2] only when s's values are read from
 * the file, and then MatMul [2,2] x [2,3] is 2*2*3 = 12 MACs. w's page is
 * mapped PROT_NONE: the analysis must not read a weight it does not need
 * (a read would end the test with SIGSEGV).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

typedef struct ext {
    const char *loc, *off, *len;
} ext;

/* Sets t's external data entries (malloc'd; freed by clear_external). */
static void set_external(Onnx__TensorProto *t, ext e) {
    t->has_raw_data = 0;
    t->raw_data.len = 0;
    t->raw_data.data = NULL;
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    const char *keys[3] = {"location", "offset", "length"};
    const char *vals[3] = {e.loc, e.off, e.len};
    t->external_data = calloc(3, sizeof(*t->external_data));
    assert_non_null(t->external_data);
    for (int i = 0; i < 3; i++) {
        if (!vals[i]) {
            continue;
        }
        Onnx__StringStringEntryProto *kv = calloc(1, sizeof(*kv));
        assert_non_null(kv);
        onnx__string_string_entry_proto__init(kv);
        kv->key = (char *)keys[i];
        kv->value = (char *)vals[i];
        t->external_data[t->n_external_data++] = kv;
    }
}

static void clear_external(Onnx__TensorProto *t) {
    for (size_t i = 0; i < t->n_external_data; i++) {
        free(t->external_data[i]);
    }
    free(t->external_data);
    t->external_data = NULL;
    t->n_external_data = 0;
}

/* The model with s and w external as given; the caller frees it. */
static uint8_t *model(ext es, ext ew, size_t *len) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){1, 4}, NULL);
    Onnx__TensorProto *s = ob_init_i64(m, "s", 1, (int64_t[]){2}, (int64_t[]){0, 0});
    Onnx__TensorProto *w = ob_init_f(m, "w", 2, (int64_t[]){2, 3}, true);
    set_external(s, es);
    set_external(w, ew);
    ob_node(m, "Reshape", "reshape", "x,s", "y");
    ob_node(m, "MatMul", "matmul", "y,w", "z");
    ob_output(m, "z");
    uint8_t *buf = ob_pack(m, len);
    clear_external(s);
    clear_external(w);
    ob_free(m);
    return buf;
}

static uint8_t *data; /* two pages: s's values, then w's (PROT_NONE) */

static int setup(void **state) {
    (void)state;
    data = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(data != MAP_FAILED);
    int64_t shape[2] = {2, 2};
    memcpy(data, shape, sizeof shape);
    assert_int_equal(mprotect(data + PAGE, PAGE, PROT_NONE), 0);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    munmap(data, 2 * PAGE);
    return 0;
}

static fl_status run(ext es, ext ew, size_t data_len, fl_report **r) {
    size_t len;
    uint8_t *buf = model(es, ew, &len);
    fl_file f = {"w.bin", data, data_len};
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_ONNX;
    o.files = data_len ? &f : NULL;
    o.n_files = data_len ? 1 : 0;
    fl_status st = fl_analyze(buf, len, &o, r);
    free(buf);
    return st;
}

static const ext S_EXT = {"w.bin", "0", "16"};
static const ext W_EXT = {"w.bin", "4096", "24"};

static void expect_error(ext es, ext ew, size_t data_len, const char *node, const char *text) {
    fl_report *r = NULL;
    assert_int_equal(run(es, ew, data_len, &r), FL_EINVAL);
    assert_non_null(r);
    if (!strstr(r->error, text) || !strstr(r->error, node)) {
        print_error("error '%s' lacks '%s' or '%s'\n", r->error, node, text);
        fail();
    }
    fl_report_free(r);
}

static void test_values_read_from_the_file(void **state) {
    (void)state;
    fl_report *r = NULL;
    assert_int_equal(run(S_EXT, W_EXT, 2 * PAGE, &r), FL_OK);
    assert_true(r->complete);
    assert_true(r->totals.macs.known);
    assert_int_equal(r->totals.macs.value, 12);
    assert_int_equal(r->n_warnings, 0);
    fl_report_free(r);
}

static void test_file_not_given(void **state) {
    (void)state;
    fl_report *r = NULL;
    assert_int_equal(run(S_EXT, W_EXT, 0, &r), FL_OK);
    /* y's shape needs s's values: MatMul cannot be counted */
    assert_false(r->complete);
    assert_false(r->totals.macs.known && r->totals.macs.value == 12);
    assert_int_equal(r->n_warnings >= 1, 1);
    assert_true(fl_test_has_warning(r, "external data file 'w.bin' was not given", NULL));
    fl_report_free(r);
}

static void test_no_length_reads_to_the_end(void **state) {
    (void)state;
    fl_report *r = NULL;
    ext w_to_end = {"w.bin", "4096", NULL}; /* 24 bytes to the end of a 4120-byte file */
    assert_int_equal(run(S_EXT, w_to_end, PAGE + 24, &r), FL_OK);
    assert_int_equal(r->totals.macs.value, 12);
    fl_report_free(r);
    expect_error(S_EXT, w_to_end, PAGE + 28, "'w'",
                 "external data is 28 bytes (to the end of 'w.bin') but dims and data_type "
                 "need 24 (field: external_data.length)");
}

static void test_bad_ranges(void **state) {
    (void)state;
    expect_error(S_EXT, (ext){"w.bin", "4096", "24"}, PAGE + 8, "'w'",
                 "external data range [4096, 4120) runs past the end of 'w.bin' (4104 bytes) "
                 "(field: external_data.length)");
    expect_error(S_EXT, (ext){"w.bin", "9000", "24"}, 2 * PAGE, "'w'",
                 "(field: external_data.offset)");
    expect_error((ext){"w.bin", "0", "20"}, W_EXT, 2 * PAGE, "'s'",
                 "external data length is 20 bytes but dims and data_type need 16 (field: "
                 "external_data.length)");
    expect_error((ext){"w.bin", "x1", "16"}, W_EXT, 2 * PAGE, "'s'",
                 "external data offset 'x1' is not a byte count (field: external_data.offset)");
    expect_error(S_EXT, (ext){"w.bin", "8", "24"}, 2 * PAGE, "'s' and 'w'",
                 "overlap in external data file 'w.bin' (bytes [0, 16) and [8, 32))");
    expect_error((ext){NULL, "0", "16"}, W_EXT, 2 * PAGE, "'s'",
                 "external_data has no 'location' (field: external_data)");
}

static void test_location_outside_model_dir(void **state) {
    (void)state;
    static const char *bad[] = {"../w.bin", "/etc/w.bin", "a/../../w.bin", "", "C:w.bin"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        expect_error((ext){bad[i], "0", "16"}, W_EXT, 2 * PAGE, "'s'",
                     "is not a path inside the model's directory (field: "
                     "external_data.location)");
    }
}

static void add_name(const char *name, void *arg) {
    char *out = arg;
    strcat(out, name);
    strcat(out, ";");
}

static void test_file_refs(void **state) {
    (void)state;
    size_t len;
    uint8_t *buf = model(S_EXT, (ext){"sub/v.bin", "0", "24"}, &len);
    char names[256] = "";
    assert_int_equal(fl_model_file_refs(buf, len, FL_FORMAT_AUTO, add_name, names), 2);
    assert_string_equal(names, "w.bin;sub/v.bin;");
    free(buf);
}

/* The resolved ranges (checked for overlap at the end of the import) are
 * scratch memory under the memory limit, with the value-name table: each
 * failing in turn fails the import with FL_ENOMEM. */
static void test_out_of_memory(void **state) {
    (void)state;
    size_t len;
    uint8_t *buf = model(S_EXT, W_EXT, &len);
    fl_file f = {"w.bin", data, 2 * PAGE};
    assert_true(fl_test_import_scratch_oom(FL_FORMAT_ONNX, buf, len, &f, 1) >= 2);
    free(buf);
}

/* `foldline optimize` of a model with external data: the written model
 * holds s and w inline (raw_data: the file's bytes, no external data
 * entries), so it loads without the file. w's bytes here are 6 distinct
 * floats at offset 4096 of a readable copy of the file. */
static void test_written_inline(void **state) {
    (void)state;
    uint8_t file[PAGE + 24];
    memcpy(file, data, 16);
    const float w[6] = {1, 2, 3, 4, 5, 6};
    memcpy(file + PAGE, w, sizeof w);
    size_t len;
    uint8_t *buf = model(S_EXT, W_EXT, &len);
    fl_file f = {"w.bin", file, sizeof file};
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_ONNX;
    o.files = &f;
    o.n_files = 1;
    o.passes = "default";
    o.return_graph = true;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
    free(buf);
    assert_non_null(r->graph_bytes);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, r->graph_len, r->graph_bytes);
    assert_non_null(mp);
    int seen = 0;
    for (size_t i = 0; i < mp->graph->n_initializer; i++) {
        const Onnx__TensorProto *t = mp->graph->initializer[i];
        assert_false(t->has_data_location &&
                     t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
        assert_int_equal(t->n_external_data, 0);
        if (strcmp(t->name, "w") == 0) {
            assert_int_equal(t->raw_data.len, sizeof w);
            assert_memory_equal(t->raw_data.data, w, sizeof w);
            seen++;
        } else if (strcmp(t->name, "s") == 0) {
            assert_int_equal(t->raw_data.len, 16);
            assert_memory_equal(t->raw_data.data, file, 16);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    onnx__model_proto__free_unpacked(mp, NULL);
    fl_report_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_read_from_the_file),
        cmocka_unit_test(test_file_not_given),
        cmocka_unit_test(test_no_length_reads_to_the_end),
        cmocka_unit_test(test_bad_ranges),
        cmocka_unit_test(test_location_outside_model_dir),
        cmocka_unit_test(test_file_refs),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_written_inline),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
