/*
 * test_onnxfill.c - the fl_onnxfill tool (tests/tools/onnxfill.c), run as a
 * process: test_onnxfill_tool PATH_TO_fl_onnxfill.
 *
 * A small stripped model built here (Conv with stripped weights and bias,
 * BatchNormalization with four stripped vectors, Relu, Flatten, Gemm with a
 * stripped [10, 256] weight, a Constant node whose float tensor is stripped,
 * an intact int64 initializer) is filled; the output must
 *  - carry data of the right size in every float tensor that had none, the
 *    untouched tensors byte-identical, values finite and small, batch-norm
 *    vectors positive, metadata weights_stripped=false;
 *  - re-import with the same nodes, output shapes and dtypes, FLOPs, MACs and
 *    bytes, node by node and in the totals;
 *  - leave no stripped constant: constant folding folds values ("fold"),
 *    never "fold_stripped" as it does on the stripped input;
 *  - be deterministic (same seed, same bytes; another seed, other values).
 * With the shared corpus present, resnet18.raw.stripped.onnx is filled and
 * re-imported with identical totals too.
 */
#include "foldline/foldline.h"
#include "onnx/onnx.pb-c.h"
#include "onnxbuild.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *TOOL;
static char DIR_[256];

static int setup(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(DIR_, sizeof DIR_, "%s/fl_onnxfill_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(DIR_) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const uint8_t *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Runs the tool; returns its exit status. */
static int run_tool(const char *in, const char *out, const char *seed) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'%s%s", TOOL, in, out, seed ? " --seed " : "",
             seed ? seed : "");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* x[1,3,16,16] -> Conv 4x3x3x3 pads 1 (+B) -> BatchNormalization -> Relu
 * -> Mul by (k + k) -> Reshape [1,1024] -> Gemm (W [10,1024] transB, C [10]);
 * k is a Constant [4,1,1] (float, stripped), k + k a constant subgraph. */
static uint8_t *stripped_model(size_t *len) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 16, 16}, NULL);
    ob_init_f(m, "W", 4, (int64_t[]){4, 3, 3, 3}, true);
    ob_init_f(m, "B", 1, (int64_t[]){4}, true);
    const char *bn[] = {"scale", "bias", "mean", "var"};
    for (int i = 0; i < 4; i++) {
        ob_init_f(m, bn[i], 1, (int64_t[]){4}, true);
    }
    ob_init_f(m, "fcW", 2, (int64_t[]){10, 1024}, true);
    ob_init_f(m, "fcB", 1, (int64_t[]){10}, true);
    ob_init_i64(m, "shape", 1, (int64_t[]){2}, (int64_t[]){1, 1024});
    Onnx__NodeProto *c = ob_node(m, "Conv", "conv", "x,W,B", "c");
    ob_attr_ints(m, c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_ints(m, c, "kernel_shape", 2, (int64_t[]){3, 3});
    Onnx__NodeProto *b = ob_node(m, "BatchNormalization", "bn", "c,scale,bias,mean,var", "b");
    ob_attr_f(m, b, "epsilon", 1e-5f);
    ob_node(m, "Relu", "relu", "b", "r");
    /* A Constant whose float value is stripped (int64 attr builder, then
     * turned into an empty float tensor: dims kept, data gone). */
    Onnx__NodeProto *k = ob_node(m, "Constant", "k", "", "kv");
    ob_attr_tensor_i64(m, k, "value", 3, (int64_t[]){4, 1, 1}, (int64_t[]){0, 0, 0, 0});
    Onnx__TensorProto *kt = k->attribute[0]->t;
    kt->data_type = OB_FLOAT;
    kt->raw_data.len = 0;
    ob_node(m, "Add", "k2", "kv,kv", "kk"); /* constant-only: folded by the passes */
    ob_node(m, "Mul", "scaled", "r,kk", "s");
    ob_node(m, "Reshape", "flat", "s,shape", "f");
    Onnx__NodeProto *g = ob_node(m, "Gemm", "fc", "f,fcW,fcB", "y");
    ob_attr_i(m, g, "transB", 1);
    ob_output(m, "y");
    uint8_t *buf = ob_pack(m, len);
    ob_free(m);
    return buf;
}

static fl_report *analyze_file(const char *path, const char *passes) {
    size_t len;
    unsigned char *buf = fl_test_read_file(path, &len);
    assert_non_null(buf);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = passes;
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, &o, &r);
    free(buf);
    if (st != FL_OK) {
        fail_msg("analysis of %s failed: %s", path, r && r->error ? r->error : "?");
    }
    return r;
}

static void assert_q_equal(const fl_quantity *a, const fl_quantity *b, const char *what) {
    if (a->known != b->known || strcmp(a->text, b->text) != 0) {
        fail_msg("%s: %s vs %s", what, a->text, b->text);
    }
}

/* Same nodes, shapes, dtypes and counts. */
static void assert_same_analysis(const fl_report *a, const fl_report *b) {
    assert_int_equal(a->n_nodes, b->n_nodes);
    assert_q_equal(&a->totals.flops, &b->totals.flops, "total flops");
    assert_q_equal(&a->totals.macs, &b->totals.macs, "total macs");
    assert_q_equal(&a->totals.bytes, &b->totals.bytes, "total bytes");
    assert_int_equal(a->n_nodes_detail, b->n_nodes_detail);
    for (size_t i = 0; i < a->n_nodes_detail; i++) {
        const fl_report_node *x = &a->nodes[i], *y = &b->nodes[i];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->op, y->op);
        assert_int_equal(x->n_outputs, y->n_outputs);
        for (size_t k = 0; k < x->n_outputs; k++) {
            assert_string_equal(x->outputs[k].shape, y->outputs[k].shape);
            assert_string_equal(x->outputs[k].dtype, y->outputs[k].dtype);
        }
        assert_q_equal(&x->flops, &y->flops, x->name);
        assert_q_equal(&x->macs, &y->macs, x->name);
        assert_q_equal(&x->bytes, &y->bytes, x->name);
    }
}

static size_t count_rule(const fl_report *r, const char *rule) {
    size_t n = 0;
    for (size_t i = 0; i < r->n_ledger; i++) {
        n += strcmp(r->ledger[i].rule, rule) == 0;
    }
    return n;
}

static Onnx__ModelProto *load_model(const char *path) {
    size_t len;
    unsigned char *buf = fl_test_read_file(path, &len);
    assert_non_null(buf);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(m);
    return m;
}

static const Onnx__TensorProto *init_named(const Onnx__ModelProto *m, const char *name) {
    for (size_t i = 0; i < m->graph->n_initializer; i++) {
        if (strcmp(m->graph->initializer[i]->name, name) == 0) {
            return m->graph->initializer[i];
        }
    }
    fail_msg("no initializer %s", name);
    return NULL;
}

static void assert_filled_f32(const Onnx__TensorProto *t, size_t n, double lo, double hi) {
    assert_int_equal(t->raw_data.len, n * 4);
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, t->raw_data.data + 4 * i, 4);
        if (!isfinite(f) || f < lo || f > hi) {
            fail_msg("%s[%zu] = %g, want in [%g, %g]", t->name, i, (double)f, lo, hi);
        }
    }
}

static void test_fill_small_model(void **state) {
    (void)state;
    char in[400], out[400], out2[400], out3[400];
    snprintf(in, sizeof in, "%s/small.stripped.onnx", DIR_);
    snprintf(out, sizeof out, "%s/small.filled.onnx", DIR_);
    snprintf(out2, sizeof out2, "%s/small.filled2.onnx", DIR_);
    snprintf(out3, sizeof out3, "%s/small.seed7.onnx", DIR_);
    size_t len;
    uint8_t *buf = stripped_model(&len);
    write_file(in, buf, len);
    free(buf);
    assert_int_equal(run_tool(in, out, NULL), 0);

    /* Contents. */
    Onnx__ModelProto *m = load_model(out);
    double w = sqrt(3.0 / 27.0); /* Conv W: fan = 3 x 3 x 3 */
    assert_filled_f32(init_named(m, "W"), 108, -w, w);
    assert_filled_f32(init_named(m, "var"), 4, 0.5, 1.0);
    assert_filled_f32(init_named(m, "B"), 4, 0.5, 1.0);
    double f = sqrt(3.0 / 1024.0); /* fcW [10,1024]: the larger dim */
    assert_filled_f32(init_named(m, "fcW"), 10240, -f, f);
    const Onnx__TensorProto *sh = init_named(m, "shape");
    assert_int_equal(sh->raw_data.len, 16); /* intact int64 tensor untouched */
    int64_t v1;
    memcpy(&v1, sh->raw_data.data + 8, 8);
    assert_int_equal(v1, 1024);
    const Onnx__TensorProto *kt = NULL;
    for (size_t i = 0; i < m->graph->n_node; i++) {
        if (strcmp(m->graph->node[i]->op_type, "Constant") == 0) {
            kt = m->graph->node[i]->attribute[0]->t;
        }
    }
    assert_non_null(kt);
    double kb = sqrt(3.0 / 1.0); /* [4,1,1]: fan = 1 */
    assert_filled_f32(kt, 4, -kb, kb);
    int marked = 0;
    for (size_t i = 0; i < m->n_metadata_props; i++) {
        if (strcmp(m->metadata_props[i]->key, "weights_filled") == 0) {
            marked = 1;
        }
    }
    assert_true(marked);
    onnx__model_proto__free_unpacked(m, NULL);

    /* Re-import: identical analysis; constants now have values. */
    fl_report *a = analyze_file(in, "none");
    fl_report *b = analyze_file(out, "none");
    assert_same_analysis(a, b);
    fl_report_free(a);
    fl_report_free(b);
    a = analyze_file(in, "default");
    b = analyze_file(out, "default");
    assert_true(count_rule(a, "fold_stripped") > 0);
    assert_int_equal(count_rule(b, "fold_stripped"), 0);
    assert_true(count_rule(b, "fold") > 0);
    fl_report_free(a);
    fl_report_free(b);

    /* Deterministic; another seed gives other values of the same size. */
    assert_int_equal(run_tool(in, out2, NULL), 0);
    assert_int_equal(run_tool(in, out3, "7"), 0);
    size_t l1, l2, l3;
    unsigned char *b1 = fl_test_read_file(out, &l1), *b2 = fl_test_read_file(out2, &l2),
                  *b3 = fl_test_read_file(out3, &l3);
    assert_non_null(b1);
    assert_non_null(b2);
    assert_non_null(b3);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    assert_true(l3 == l1 && memcmp(b1, b3, l1) != 0);
    free(b1);
    free(b2);
    free(b3);
}

/* x[1,4,8,8] uint8 -> DequantizeLinear (xs, xz) -> Conv with W: int8
 * [16,4,3,3] through DequantizeLinear (ws [16] stripped, axis 0) and bias B
 * (int32 [16] through DequantizeLinear, scale bs from a Constant node,
 * stripped) -> Mul by g (float [16,1,1], stripped, not a scale) ->
 * QuantizeLinear (ys, yz) -> y. */
static uint8_t *stripped_qdq_model(size_t *len) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_UINT8, 4, (int64_t[]){1, 4, 8, 8}, NULL);
    ob_init_raw(m, "W", OB_INT8, 4, (int64_t[]){16, 4, 3, 3}, NULL, 0);
    ob_init_f(m, "ws", 1, (int64_t[]){16}, true);
    ob_init_raw(m, "B", OB_INT32, 1, (int64_t[]){16}, NULL, 0);
    ob_init_f(m, "g", 3, (int64_t[]){16, 1, 1}, true);
    float sc = 0.05f;
    uint8_t zp = 0;
    ob_init_raw(m, "xs", OB_FLOAT, 0, NULL, &sc, 4);
    ob_init_raw(m, "xz", OB_UINT8, 0, NULL, &zp, 1);
    ob_init_raw(m, "ys", OB_FLOAT, 0, NULL, &sc, 4);
    ob_init_raw(m, "yz", OB_UINT8, 0, NULL, &zp, 1);
    Onnx__NodeProto *k = ob_node(m, "Constant", "bs_const", "", "bs");
    ob_attr_tensor_i64(m, k, "value", 1, (int64_t[]){16}, (int64_t[16]){0});
    Onnx__TensorProto *kt = k->attribute[0]->t;
    kt->data_type = OB_FLOAT;
    kt->raw_data.len = 0;
    ob_node(m, "DequantizeLinear", "dqx", "x,xs,xz", "xf");
    ob_attr_i(m, ob_node(m, "DequantizeLinear", "dqw", "W,ws", "wf"), "axis", 0);
    ob_node(m, "DequantizeLinear", "dqb", "B,bs", "bf");
    Onnx__NodeProto *c = ob_node(m, "Conv", "conv", "xf,wf,bf", "c");
    ob_attr_ints(m, c, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_node(m, "Mul", "mul", "c,g", "cg");
    ob_node(m, "QuantizeLinear", "q", "cg,ys,yz", "y");
    ob_output(m, "y");
    uint8_t *buf = ob_pack(m, len);
    ob_free(m);
    return buf;
}

/* Integer elements of t (raw_data, es bytes each, signed when sgn) all in
 * [lo, hi], and not all equal. */
static void assert_filled_int(const Onnx__TensorProto *t, size_t n, size_t es, bool sgn, int64_t lo,
                              int64_t hi) {
    assert_int_equal(t->raw_data.len, n * es);
    int64_t first = 0;
    bool varied = false;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = t->raw_data.data + es * i;
        int64_t v;
        if (es == 1) {
            v = sgn ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
        } else {
            int32_t w;
            memcpy(&w, p, 4);
            v = w;
        }
        if (v < lo || v > hi) {
            fail_msg("%s[%zu] = %lld, want in [%lld, %lld]", t->name, i, (long long)v,
                     (long long)lo, (long long)hi);
        }
        if (i == 0) {
            first = v;
        }
        varied = varied || v != first;
    }
    assert_true(varied);
}

/* --ints: integer tensors over their ranges, Q/DQ scales (an initializer
 * and a Constant node's value) in [2^-11, 2^-10), other floats as before;
 * without it integers are zero-filled. */
static void test_fill_ints(void **state) {
    (void)state;
    char in[400], out[400], zero[400], cmd[1400];
    snprintf(in, sizeof in, "%s/qdq.stripped.onnx", DIR_);
    snprintf(out, sizeof out, "%s/qdq.filled.onnx", DIR_);
    snprintf(zero, sizeof zero, "%s/qdq.zero.onnx", DIR_);
    size_t len;
    uint8_t *buf = stripped_qdq_model(&len);
    write_file(in, buf, len);
    free(buf);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' --ints >/dev/null", TOOL, in, out);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    Onnx__ModelProto *m = load_model(out);
    assert_filled_int(init_named(m, "W"), 576, 1, true, -128, 127);
    assert_filled_int(init_named(m, "B"), 16, 4, true, -1024, 1023);
    assert_filled_f32(init_named(m, "ws"), 16, ldexp(1.0, -11), ldexp(1.0, -10));
    assert_filled_f32(m->graph->node[0]->attribute[0]->t, 16, ldexp(1.0, -11), ldexp(1.0, -10));
    double gb = sqrt(3.0 / 1.0); /* [16,1,1]: fan 1, not a scale */
    assert_filled_f32(init_named(m, "g"), 16, -gb, gb);
    const Onnx__TensorProto *xs = init_named(m, "xs"); /* intact: untouched */
    float f;
    assert_int_equal(xs->raw_data.len, 4);
    memcpy(&f, xs->raw_data.data, 4);
    assert_true(f == 0.05f);
    onnx__model_proto__free_unpacked(m, NULL);
    fl_report *a = analyze_file(in, "none");
    fl_report *b = analyze_file(out, "none");
    assert_same_analysis(a, b);
    fl_report_free(a);
    fl_report_free(b);

    /* Without --ints: W and B zero-filled (as before), ws a plain vector. */
    assert_int_equal(run_tool(in, zero, NULL), 0);
    m = load_model(zero);
    const Onnx__TensorProto *w = init_named(m, "W");
    assert_int_equal(w->raw_data.len, 576);
    for (size_t i = 0; i < 576; i++) {
        assert_int_equal(w->raw_data.data[i], 0);
    }
    assert_filled_f32(init_named(m, "ws"), 16, 0.5, 1.0);
    onnx__model_proto__free_unpacked(m, NULL);
}

static void test_usage_and_bad_input(void **state) {
    (void)state;
    char bad[400], out[400], cmd[600];
    snprintf(bad, sizeof bad, "%s/bad.onnx", DIR_);
    snprintf(out, sizeof out, "%s/bad.out.onnx", DIR_);
    write_file(bad, (const uint8_t *)"\xff\xff\xff\xff not a model", 17);
    assert_int_equal(run_tool(bad, out, NULL), 1);
    snprintf(cmd, sizeof cmd, "%s/missing.onnx", DIR_);
    assert_int_equal(run_tool(cmd, out, NULL), 3);
    snprintf(cmd, sizeof cmd, "'%s' 2>/dev/null", TOOL);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

static void test_fill_corpus_model(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_fill_corpus_model")) {
        fl_test_skip();
    }
    char in[512], out[400];
    snprintf(in, sizeof in, "%s/onnx/resnet18.raw.stripped.onnx", FL_CORPUS_DIR);
    if (access(in, R_OK) != 0) {
        printf("skipped: %s not found\n", in);
        fl_test_skip();
    }
    snprintf(out, sizeof out, "%s/resnet18.filled.onnx", DIR_);
    assert_int_equal(run_tool(in, out, NULL), 0);
    fl_report *a = analyze_file(in, "none");
    fl_report *b = analyze_file(out, "none");
    assert_same_analysis(a, b);
    fl_report_free(a);
    fl_report_free(b);
    remove(out);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_onnxfill_tool PATH_TO_fl_onnxfill\n");
        return 2;
    }
    TOOL = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_small_model),
        cmocka_unit_test(test_fill_ints),
        cmocka_unit_test(test_usage_and_bad_input),
        cmocka_unit_test(test_fill_corpus_model),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
