/*
 * test_tfjs.c - the TF.js graph-model importer on small hand-written
 * model.json files: weights decoded from shards (views, straddling shards,
 * strings, int64/double widening), dequantized as tfjs-core's decodeWeight
 * (uint8/uint16 affine in double rounded to float32, Math.round for int32,
 * float16 widened exactly; expected values worked out by hand below),
 * stripped weights without shards, format detection, and every malformed
 * input as an error or warning naming the weight, shard or field; then
 * truncations and byte flips of a valid model, which must never crash.
 */
#include "foldline/foldline.h"
#include "graph/graph.h"
#include "import/import.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x [2,3] float -> MatMul with weight w [3,4] -> out. */
#define TOPO_MATMUL(WDTYPE)                                                                        \
    "\"modelTopology\":{\"node\":["                                                                \
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},"          \
    "\"shape\":{\"shape\":{\"dim\":[{\"size\":\"2\"},{\"size\":\"3\"}]}}}},"                       \
    "{\"name\":\"w\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"" WDTYPE "\"},"              \
    "\"value\":{\"tensor\":{\"dtype\":\"" WDTYPE "\",\"tensorShape\":{\"dim\":[{\"size\":\"3\"},"  \
    "{\"size\":\"4\"}]}}}}},"                                                                      \
    "{\"name\":\"out\",\"op\":\"MatMul\",\"input\":[\"x\",\"w\"],\"attr\":{\"T\":{\"type\":"       \
    "\"DT_FLOAT\"},\"transpose_a\":{\"b\":false},\"transposeB\":{\"b\":false}}}],"                 \
    "\"versions\":{\"producer\":1234}}"

static fl_status run(const char *json, const fl_file *files, size_t n_files, fl_report **r) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.format = FL_FORMAT_TFJS;
    o.files = files;
    o.n_files = n_files;
    return fl_analyze(json, strlen(json), &o, r);
}

static void expect_error(const char *json, const fl_file *files, size_t n, const char *needle) {
    fl_report *r = NULL;
    fl_status st = run(json, files, n, &r);
    assert_int_equal(st, FL_EINVAL);
    if (!strstr(r->error, needle)) {
        fail_msg("error '%s' lacks '%s'", r->error, needle);
    }
    fl_report_free(r);
}

static void test_matmul_with_shard(void **state) {
    (void)state;
    float w[12];
    for (int i = 0; i < 12; i++) {
        w[i] = (float)i;
    }
    const char *json = "{\"format\":\"graph-model\"," TOPO_MATMUL(
        "DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[\"group1-shard1of1.bin\"],"
                    "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],\"dtype\":\"float32\"}]}]}";
    assert_int_equal(fl_detect_format(json, strlen(json)), FL_FORMAT_TFJS);
    fl_file f = {"group1-shard1of1.bin", w, sizeof w};
    fl_report *r = NULL;
    assert_int_equal(run(json, &f, 1, &r), FL_OK);
    assert_string_equal(r->format, "tfjs");
    assert_int_equal(r->producer, 1234);
    assert_int_equal(r->n_nodes, 3);
    /* [2,3] x [3,4]: 2*4*3 = 24 MACs. */
    assert_true(r->totals.macs.known);
    assert_int_equal(r->totals.macs.value, 24);
    assert_int_equal(r->n_warnings, 0);
    assert_string_equal(r->nodes[2].outputs[0].shape, "[2,4]");
    fl_report_free(r);

    /* Without the shard: a stripped constant, same costs, a warning-free
     * analysis (a registry without shards is the normal case). */
    assert_int_equal(run(json, NULL, 0, &r), FL_OK);
    assert_int_equal(r->totals.macs.value, 24);
    fl_report_free(r);

    /* Paths resolve by base name too; a shard shorter than the manifest
     * needs is an error naming the weight and the byte range. */
    fl_file shortf = {"dir/group1-shard1of1.bin", w, 40};
    expect_error(json, &shortf, 1,
                 "weight 'w': needs bytes [0, 48) of its group but the group's 1 shard hold 40 "
                 "bytes (field: weightsManifest[0].weights[0])");
}

/* Imports json into a graph and returns the decoded value of Const `name`. */
static const fl_value *const_value(fl_arena *a, const char *json, const fl_file *files, size_t n,
                                   const char *name) {
    fl_graph *g = fl__graph_new(a);
    fl_diag d;
    fl__diag_init(&d, a);
    fl_import_opts io = {1000, 1 << 20, NULL};
    fl_import_files fs = {files, n};
    fl_status st = fl__import_tfjs(g, (const uint8_t *)json, strlen(json), &io, &fs, &d);
    if (st != FL_OK) {
        fail_msg("import failed: %s", d.msg);
    }
    fl_node *node = fl__graph_find(g, name);
    assert_non_null(node);
    const fl_attr *v = fl__node_attr(node, "value");
    assert_non_null(v);
    return v->v.tensor->value;
}

static void test_dequantize(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 0);
    /* uint8 affine: q * 0.1 + -1 in double, then to float32. */
    const uint8_t q8[12] = {0, 1, 10, 20, 255, 128, 7, 3, 2, 1, 0, 50};
    const char *j8 =
        "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[\"a.bin\"],"
                                    "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                    "\"dtype\":\"float32\",\"quantization\":{"
                                    "\"dtype\":\"uint8\",\"scale\":0.1,\"min\":-1}}]}]}";
    fl_file f8 = {"a.bin", q8, sizeof q8};
    const fl_value *v = const_value(&a, j8, &f8, 1, "w");
    assert_non_null(v);
    const float *fv = v->raw;
    for (int i = 0; i < 12; i++) {
        float want = (float)((double)q8[i] * 0.1 + -1.0);
        assert_memory_equal(&fv[i], &want, 4);
    }
    assert_true(fv[4] == (float)24.5); /* 255 * 0.1 - 1 = 24.5 exactly after rounding */

    /* float16: 1.0, -2.0, the smallest subnormal 2^-24, +inf, 65504, 0.5. */
    const uint16_t h[12] = {0x3C00, 0xC000, 0x0001, 0x7C00, 0x7BFF, 0x3800,
                            0,      0x8000, 0x3C00, 0x3C00, 0x3C00, 0x3C00};
    const char *j16 = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[\"h.bin\"],"
                                                  "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                                  "\"dtype\":\"float32\",\"quantization\":{"
                                                  "\"dtype\":\"float16\"}}]}]}";
    fl_file f16 = {"h.bin", h, sizeof h};
    v = const_value(&a, j16, &f16, 1, "w");
    fv = v->raw;
    assert_true(fv[0] == 1.0f && fv[1] == -2.0f && fv[2] == ldexpf(1.0f, -24));
    assert_true(isinf(fv[3]) && fv[3] > 0 && fv[4] == 65504.0f && fv[5] == 0.5f);
    assert_true(fv[7] == 0.0f && signbit(fv[7]));

    /* uint16 affine into int32: Math.round(q * 0.5 + -3) = floor(x + 0.5):
     * q = 0 -> -3, 1 -> -2.5 -> -2, 3 -> -1.5 -> -1, 7 -> 0.5 -> 1. */
    const uint16_t q16[4] = {0, 1, 3, 7};
    const char *ji =
        "{\"modelTopology\":{\"node\":[{\"name\":\"c\",\"op\":\"Const\",\"attr\":{\"dtype\":{"
        "\"type\":\"DT_INT32\"},\"value\":{\"tensor\":{\"dtype\":\"DT_INT32\",\"tensorShape\":{"
        "\"dim\":[{\"size\":\"4\"}]}}}}}]},\"weightsManifest\":[{\"paths\":[\"i.bin\"],"
        "\"weights\":[{\"name\":\"c\",\"shape\":[4],\"dtype\":\"int32\",\"quantization\":{"
        "\"dtype\":\"uint16\",\"scale\":0.5,\"min\":-3}}]}]}";
    fl_file fi = {"i.bin", q16, sizeof q16};
    v = const_value(&a, ji, &fi, 1, "c");
    assert_int_equal(fl__value_int(v, 0).k, -3);
    assert_int_equal(fl__value_int(v, 1).k, -2);
    assert_int_equal(fl__value_int(v, 2).k, -1);
    assert_int_equal(fl__value_int(v, 3).k, 1);
    fl__arena_free(&a);
}

static void test_straddle_widen_strings(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 0);
    /* Two int32 weights over two shards: b straddles them; b's Const is
     * int64 (tfjs stores it as int32): widened. Then a string weight. */
    const int32_t av[2] = {7, -8};
    const int32_t bv[3] = {100, -200, 300};
    uint8_t s1[12], s2[100];
    memcpy(s1, av, 8);
    memcpy(s1 + 8, bv, 4);
    memcpy(s2, bv + 1, 8);
    size_t n2 = 8;
    const char *strs[2] = {"hi", ""};
    for (int i = 0; i < 2; i++) {
        uint32_t l = (uint32_t)strlen(strs[i]);
        memcpy(s2 + n2, &l, 4);
        memcpy(s2 + n2 + 4, strs[i], l);
        n2 += 4 + l;
    }
    const char *json =
        "{\"modelTopology\":{\"node\":["
        "{\"name\":\"a\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_INT32\"},\"value\":{"
        "\"tensor\":{\"dtype\":\"DT_INT32\",\"tensorShape\":{\"dim\":[{\"size\":\"2\"}]}}}}},"
        "{\"name\":\"b\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_INT64\"},\"value\":{"
        "\"tensor\":{\"dtype\":\"DT_INT64\",\"tensorShape\":{\"dim\":[{\"size\":\"3\"}]}}}}},"
        "{\"name\":\"s\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_STRING\"},\"value\":{"
        "\"tensor\":{\"dtype\":\"DT_STRING\",\"tensorShape\":{\"dim\":[{\"size\":\"2\"}]}}}}}]},"
        "\"weightsManifest\":[{\"paths\":[\"p1\",\"p2\"],\"weights\":["
        "{\"name\":\"a\",\"shape\":[2],\"dtype\":\"int32\"},"
        "{\"name\":\"b\",\"shape\":[3],\"dtype\":\"int32\"},"
        "{\"name\":\"s\",\"shape\":[2],\"dtype\":\"string\"}]}]}";
    fl_file files[2] = {{"p1", s1, sizeof s1}, {"p2", s2, n2}};
    const fl_value *v = const_value(&a, json, files, 2, "a");
    assert_int_equal(fl__value_int(v, 1).k, -8);
    v = const_value(&a, json, files, 2, "b");
    assert_int_equal(v->dtype, FL_DT_INT64);
    assert_int_equal(fl__value_int(v, 0).k, 100);
    assert_int_equal(fl__value_int(v, 1).k, -200);
    assert_int_equal(fl__value_int(v, 2).k, 300);
    fl__arena_free(&a);

    /* The string's length prefix running past the shards is an error. */
    s2[8] = 200;
    expect_error(json, files, 2, "weight 's': a string runs past the end of the shards");
}

static void test_warnings(void **state) {
    (void)state;
    /* A weight that names no node, a missing shard of a partly given group,
     * a Const the manifest does not cover. */
    const char *json =
        "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[\"a.bin\",\"b.bin\"],"
                                    "\"weights\":[{\"name\":\"ghost\",\"shape\":[1],"
                                    "\"dtype\":\"float32\"}]}]}";
    float one = 1;
    fl_file f = {"a.bin", &one, 4};
    fl_report *r = NULL;
    assert_int_equal(run(json, &f, 1, &r), FL_OK);
    assert_true(fl_test_has_warning(r, "shard 'b.bin' of weights group 0 was not given", NULL));
    assert_true(fl_test_has_warning(r,
                                    "weight 'ghost' of the manifest names no node of the graph "
                                    "(field: weightsManifest[0].weights[0])",
                                    NULL));
    assert_true(
        fl_test_has_warning(r, "1 Const node (first 'w') has no weight in the manifest", NULL));
    assert_int_equal(r->totals.macs.value, 24);
    fl_report_free(r);
}

static void test_errors(void **state) {
    (void)state;
    expect_error("{\"modelTopology\": {\"node\": [}", NULL, 0, "not valid JSON: ");
    expect_error("{\"modelTopology\": {\"node\": [{\"name\": 3}]}}", NULL, 0,
                 "expected a string (field: modelTopology.node[0].name)");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"a\",\"op\":\"Const\",\"attr\":{"
                 "\"x\":{\"s\":\"@@@\"}}}]}}",
                 NULL, 0, "invalid base64 (field: modelTopology.node[0].attr['x'].s)");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"a\",\"op\":\"Const\",\"attr\":{"
                 "\"dtype\":{\"type\":\"DT_NOPE\"}}}]}}",
                 NULL, 0, "'DT_NOPE' is not a value of tensorflow.DataType");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"a\",\"op\":\"Const\",\"attr\":{"
                 "\"n\":{\"i\":\"12x\"}}}]}}",
                 NULL, 0, "expected a decimal integer string in range");
    expect_error("{\"format\":\"layers-model\",\"modelTopology\":{}}", NULL, 0,
                 "a TF.js layers model (Keras topology) is not a graph model");
    expect_error("{\"modelTopology\":{\"class_name\":\"Sequential\"}}", NULL, 0,
                 "modelTopology is a Keras model config");
    expect_error("{\"weightsManifest\":[]}", NULL, 0, "no object 'modelTopology'");
    const char *topo = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[],"
                                                   "\"weights\":[{\"name\":\"w\",\"shape\":[3,5],"
                                                   "\"dtype\":\"float32\"}]}]}";
    expect_error(topo, NULL, 0,
                 "weight 'w': the manifest's shape differs from its Const's tensorShape "
                 "(field: weightsManifest[0].weights[0])");
    const char *dt = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[],"
                                                 "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                                 "\"dtype\":\"int32\"}]}]}";
    expect_error(dt, NULL, 0, "weight 'w': the manifest's dtype is DataType 3 but Const 'w'");
    const char *q = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[],"
                                                "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                                "\"dtype\":\"float32\",\"quantization\":{"
                                                "\"dtype\":\"int4\"}}]}]}";
    expect_error(q, NULL, 0, "quantization dtype must be uint8, uint16 or float16");
    const char *nos = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[],"
                                                  "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                                  "\"dtype\":\"float32\",\"quantization\":{"
                                                  "\"dtype\":\"uint8\"}}]}]}";
    expect_error(nos, NULL, 0, "uint8/uint16 quantization needs numbers 'scale' and 'min'");
    /* A Const without weight or value whose shape has more elements than
     * int64 bytes can count (2^60 * 2^4: the product overflowed, found by
     * fuzz_tfjs); 2^40 * 2^20 elements are still counted (4 << 60 bytes). */
    const char *big = "{\"modelTopology\":{\"node\":[{\"name\":\"c\",\"op\":\"Const\",\"attr\":{"
                      "\"dtype\":{\"type\":\"DT_FLOAT\"},\"value\":{\"tensor\":{\"dtype\":"
                      "\"DT_FLOAT\",\"tensorShape\":{\"dim\":[{\"size\":\"1152921504606846976\"},"
                      "{\"size\":\"16\"}]}}}}}]},\"weightsManifest\":[]}";
    expect_error(big, NULL, 0,
                 "node 'c': Const value's tensorShape has more elements than a tensor can hold "
                 "(field: modelTopology.node.attr.value.tensor.tensorShape)");
    fl_report *r = NULL;
    const char *fits = "{\"modelTopology\":{\"node\":[{\"name\":\"c\",\"op\":\"Const\",\"attr\":{"
                       "\"dtype\":{\"type\":\"DT_FLOAT\"},\"value\":{\"tensor\":{\"dtype\":"
                       "\"DT_FLOAT\",\"tensorShape\":{\"dim\":[{\"size\":\"1099511627776\"},"
                       "{\"size\":\"1048576\"}]}}}}}]},\"weightsManifest\":[]}";
    fl_status st = run(fits, NULL, 0, &r);
    if (st != FL_OK && r && r->error && strstr(r->error, "more elements than a tensor")) {
        fail_msg("a 2^60-element Const was refused: %s", r->error);
    }
    fl_report_free(r);
}

static void test_sniff_and_refs(void **state) {
    (void)state;
    const char *a = " \n{\"format\":\"graph-model\",\"modelTopology\":{}}";
    assert_int_equal(fl_detect_format(a, strlen(a)), FL_FORMAT_TFJS);
    const char *b = "{\"format\":\"graph-model\"}";
    assert_int_not_equal(fl_detect_format(b, strlen(b)), FL_FORMAT_TFJS);
    assert_int_not_equal(fl_detect_format("{", 1), FL_FORMAT_TFJS);
}

static void count_ref(const char *name, void *arg) {
    (void)name;
    (*(int *)arg)++;
}

static void test_refs(void **state) {
    (void)state;
    const char *c = "{\"modelTopology\":{},\"weightsManifest\":[{\"paths\":[\"x1\",\"x2\"]},"
                    "{\"paths\":[\"y\"]}]}";
    int n = 0;
    assert_int_equal(fl_model_file_refs(c, strlen(c), FL_FORMAT_AUTO, count_ref, &n), 3);
    assert_int_equal(n, 3);
    assert_int_equal(fl_model_file_refs(c, 5, FL_FORMAT_TFJS, count_ref, &n), -1);
}

/* Every prefix and many single-byte changes of a valid model: an answer or
 * an error with a message, never a crash (run under ASan+UBSan in CI). */
static void test_mutations(void **state) {
    (void)state;
    float w[12] = {0};
    const char *json = "{" TOPO_MATMUL("DT_FLOAT") ",\"weightsManifest\":[{\"paths\":[\"s\"],"
                                                   "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],"
                                                   "\"dtype\":\"float32\"}]}]}";
    size_t len = strlen(json);
    char *buf = malloc(len + 1);
    fl_file f = {"s", w, sizeof w};
    const char repl[] = {'"', '{', '}', '[', ']', ',', ':', '0', '-', 'x', '\\', ' '};
    int ok = 0, failed = 0;
    for (size_t i = 0; i <= len; i++) {
        for (size_t k = 0; k <= sizeof repl; k++) {
            memcpy(buf, json, len);
            size_t l = len;
            if (k == sizeof repl) {
                l = i; /* truncation */
            } else if (i < len) {
                buf[i] = repl[k];
            } else {
                continue;
            }
            buf[l] = '\0';
            fl_options o;
            fl_options_init(&o);
            o.format = FL_FORMAT_TFJS;
            o.files = &f;
            o.n_files = 1;
            fl_report *r = NULL;
            fl_status st = fl_analyze(buf, l, &o, &r);
            assert_non_null(r);
            assert_true((st == FL_OK) == (r->error == NULL));
            ok += st == FL_OK;
            failed += st != FL_OK;
            fl_report_free(r);
        }
    }
    free(buf);
    assert_true(ok > 0 && failed > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_with_shard),
        cmocka_unit_test(test_dequantize),
        cmocka_unit_test(test_straddle_widen_strings),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sniff_and_refs),
        cmocka_unit_test(test_refs),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
