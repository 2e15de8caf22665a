/*
 * test_import.c - the GraphDef/SavedModel importer on well-formed and
 * malformed graphs: every failure must name the node and the field.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_options opts(void) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    return o;
}

static void relu_on(tg_graph *g, const char *name, const char *input) {
    tg_node *n = tg_add(g, name, "Relu", input, NULL);
    tg_attr_type(n, "T", 1);
}

static void test_duplicate_names(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    relu_on(g, "a", "x");
    relu_on(g, "a", "x");
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "duplicate node name 'a' (field: node.name)");
    tg_free(g);
}

static void test_missing_input_node(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    relu_on(g, "a", "nope");
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL,
                    "node 'a' (Relu): input 'nope' names a node that does not exist (field: "
                    "input[0])");
    tg_free(g);
}

static void test_missing_output_port(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    relu_on(g, "a", "x:1");
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL,
                    "node 'a' (Relu): input 0 reads output 1 of 'x' (Placeholder), which has 1 "
                    "output");
    tg_free(g);
}

static void test_malformed_inputs(void **state) {
    (void)state;
    const char *bad[] = {"x:", ":0", "^", "x:a", "", "^x:0", "x:-1", "x:12345678901"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_graph *g = tg_new();
        tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
        relu_on(g, "a", bad[i]);
        fl_options o = opts();
        tg_expect_error(g, &o, FL_EINVAL, "malformed input");
        tg_free(g);
    }
}

/* A name an input cannot refer to: "name:port" and "^name" are input syntax. */
static void test_invalid_node_names(void **state) {
    (void)state;
    const char *bad[] = {"a:1", "^a", "scope/a:b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_graph *g = tg_new();
        tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
        relu_on(g, bad[i], "x");
        fl_options o = opts();
        char want[160];
        snprintf(want, sizeof want,
                 "node 1 has an invalid name '%s' (field: name; a node name has no ':' and does "
                 "not start with '^')",
                 bad[i]);
        tg_expect_error(g, &o, FL_EINVAL, want);
        tg_free(g);
    }
}

static void test_data_after_control(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    tg_add(g, "a", "Identity", "^x", "x", NULL);
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "data input 'x' follows a control input (field: input[1])");
    tg_free(g);
}

static void test_cycle_rejected(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    tg_node *a = tg_add(g, "a", "AddV2", "x", "b", NULL);
    tg_attr_type(a, "T", 1);
    relu_on(g, "b", "a");
    relu_on(g, "out", "b");
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "graph has a cycle through this node");
    tg_free(g);
}

static void test_control_cycle_rejected(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_add(g, "a", "NoOp", "^b", NULL);
    tg_add(g, "b", "NoOp", "^a", NULL);
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "cycle");
    tg_free(g);
}

/* A v1 while loop: i = 0; while i < 10: i = i + 1. The NextIteration ->
 * Merge edge closes a legal cycle. */
static void test_while_loop_accepted(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_const_i32_vals(g, "zero", 0, NULL, (int32_t[]){0}, 1);
    tg_const_i32_vals(g, "ten", 0, NULL, (int32_t[]){10}, 1);
    tg_const_i32_vals(g, "one", 0, NULL, (int32_t[]){1}, 1);
    tg_node *e = tg_add(g, "enter", "Enter", "zero", NULL);
    tg_attr_type(e, "T", 3);
    tg_attr_str(e, "frame_name", "loop");
    tg_node *m = tg_add(g, "merge", "Merge", "enter", "next", NULL);
    tg_attr_type(m, "T", 3);
    tg_attr_int(m, "N", 2);
    tg_node *l = tg_add(g, "less", "Less", "merge", "ten", NULL);
    tg_attr_type(l, "T", 3);
    tg_add(g, "cond", "LoopCond", "less", NULL);
    tg_node *s = tg_add(g, "switch", "Switch", "merge", "cond", NULL);
    tg_attr_type(s, "T", 3);
    tg_node *add = tg_add(g, "add", "AddV2", "switch:1", "one", NULL);
    tg_attr_type(add, "T", 3);
    tg_node *nx = tg_add(g, "next", "NextIteration", "add", NULL);
    tg_attr_type(nx, "T", 3);
    tg_node *ex = tg_add(g, "exit", "Exit", "switch", NULL);
    tg_attr_type(ex, "T", 3);
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "exit");
    assert_string_equal(n->outputs[0].dtype, "int32");
    assert_string_equal(n->outputs[0].shape, "[]");
    fl_report_free(r);
    tg_free(g);
}

static void test_attr_wrong_type(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 3});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 3, 4}, NULL, 0);
    tg_node *c = tg_add(g, "conv", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_int(c, "strides", 1);
    tg_attr_str(c, "padding", "SAME");
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "node 'conv' (Conv2D): attr 'strides' must be list(int)");
    tg_free(g);
}

static void test_tensor_content_size_mismatch(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    float v[3] = {1, 2, 3};
    tg_const_raw(g, "c", 1, 2, (int64_t[]){2, 2}, v, sizeof v);
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL,
                    "node 'c' (Const): attr 'value': tensor_content is 12 bytes but shape (4 "
                    "elements) x float (4 bytes) needs 16");
    tg_free(g);
}

static void test_too_many_typed_values(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_const_f32_vals(g, "c", 1, (int64_t[]){2}, (float[]){1, 2, 3}, 3);
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "3 typed values but the shape holds 2 elements");
    tg_free(g);
}

/* int_val shorter than the shape repeats its last value: a Reshape target
 * [4] given as one int_val {4} with shape [2] is [4, 4]. */
static void test_typed_values_repeat_last(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){16});
    tg_const_i32_vals(g, "shape", 1, (int64_t[]){2}, (int32_t[]){4}, 1);
    tg_node *r = tg_add(g, "r", "Reshape", "x", "shape", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tshape", 3);
    fl_report *rep = tg_analyze(g, NULL);
    assert_string_equal(tg_find(rep, "r")->outputs[0].shape, "[4,4]");
    fl_report_free(rep);
    tg_free(g);
}

/* A stripped constant keeps dtype and shape; the op reading it counts its
 * full size in bytes. */
static void test_stripped_constant(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){1, 256});
    tg_const_f32(g, "w", 2, (int64_t[]){256, 64}, NULL, 1);
    tg_node *mm = tg_add(g, "mm", "MatMul", "x", "w", NULL);
    tg_attr_type(mm, "T", 1);
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "mm");
    assert_string_equal(n->outputs[0].shape, "[1,64]");
    /* MatMul [1,256]x[256,64]: 2*1*64*256 = 32768 FLOPs, 16384 MACs; bytes
     * read 1*256*4 + 256*64*4 = 66560, written 64*4 = 256. */
    assert_true(n->flops.known);
    assert_int_equal(n->flops.value, 32768);
    assert_int_equal(n->macs.value, 16384);
    assert_int_equal(n->bytes.value, 66560 + 256);
    const fl_report_node *w = tg_find(r, "w");
    assert_string_equal(w->outputs[0].shape, "[256,64]");
    assert_int_equal(w->bytes.value, 0);
    fl_report_free(r);
    tg_free(g);
}

static void test_not_protobuf(void **state) {
    (void)state;
    const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
    fl_report *r = NULL;
    fl_options o = opts();
    o.format = FL_FORMAT_GRAPHDEF;
    assert_int_equal(fl_analyze(junk, sizeof junk, &o, &r), FL_EINVAL);
    assert_non_null(strstr(r->error, "not a valid binary tensorflow.GraphDef"));
    fl_report_free(r);
}

/* Format detection: a top-level field 7 or 8 (length-delimited) makes bytes
 * ONNX, unless a field 1 that is not a varint came first (a GraphDef's
 * nodes; ModelProto's field 1 is ir_version, a varint). */
static void test_format_sniff(void **state) {
    (void)state;
    const uint8_t onnx_like[] = {0x08, 0x08, 0x3a, 0x00}; /* ir_version 8, graph {} */
    assert_int_equal(fl_detect_format(onnx_like, sizeof onnx_like), FL_FORMAT_ONNX);
    const uint8_t opset_first[] = {0x42, 0x00, 0x08, 0x08};
    assert_int_equal(fl_detect_format(opset_first, sizeof opset_first), FL_FORMAT_ONNX);
    const uint8_t nodes_first[] = {0x0a, 0x00, 0x3a, 0x00}; /* node {}, then a field 7 */
    assert_int_equal(fl_detect_format(nodes_first, sizeof nodes_first), FL_FORMAT_GRAPHDEF);

    /* A GraphDef with an unknown top-level field 7 after its nodes is read as
     * a GraphDef (the unknown field is skipped), not refused as ONNX. */
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    relu_on(g, "a", "x");
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    uint8_t *more = realloc(buf, len + 4);
    assert_non_null(more);
    memcpy(more + len, (const uint8_t[]){0x3a, 0x02, 0x08, 0x01}, 4);
    assert_int_equal(fl_detect_format(more, len + 4), FL_FORMAT_GRAPHDEF);
    fl_report *r = NULL;
    fl_options o = opts();
    assert_int_equal(fl_analyze(more, len + 4, &o, &r), FL_OK);
    assert_int_equal(tg_find(r, "a")->flops.value, 4);
    fl_report_free(r);
    free(more);
    tg_free(g);
}

static void test_empty_graph(void **state) {
    (void)state;
    fl_report *r = NULL;
    fl_options o = opts();
    o.format = FL_FORMAT_GRAPHDEF;
    /* An empty graph is not a graph of 0 FLOPs: nothing was analysed. */
    assert_int_equal(fl_analyze("", 0, &o, &r), FL_EINVAL);
    assert_non_null(strstr(r->error, "the graph has no nodes"));
    fl_report_free(r);
}

static void test_node_limit(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    relu_on(g, "a", "x");
    relu_on(g, "b", "a");
    fl_options o = opts();
    o.max_nodes = 2;
    tg_expect_error(g, &o, FL_ELIMIT, "graph has 3 nodes, above the limit of 2");
    tg_free(g);
}

static void test_wrong_input_count(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 3});
    tg_node *c = tg_add(g, "conv", "Conv2D", "x", NULL);
    tg_attr_type(c, "T", 1);
    fl_options o = opts();
    tg_expect_error(g, &o, FL_EINVAL, "node 'conv' (Conv2D): expects 2 data inputs, got 1");
    tg_free(g);
}

/* An op foldline does not know is reported by name and count; the rest of
 * the graph is still analysed. */
static void test_unknown_op_reported(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 3});
    tg_add(g, "m1", "MysteryOp", "x", NULL);
    tg_add(g, "m2", "MysteryOp", "m1", NULL);
    relu_on(g, "r", "x");
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->n_unknown_ops, 1);
    assert_string_equal(r->unknown_ops[0].op, "MysteryOp");
    assert_int_equal(r->unknown_ops[0].count, 2);
    assert_string_equal(tg_find(r, "m2")->outputs[0].shape, "?");
    assert_string_equal(tg_find(r, "r")->outputs[0].shape, "[2,3]");
    assert_int_equal(tg_find(r, "r")->flops.value, 6);
    fl_report_free(r);
    tg_free(g);
}

/* The report's op-type tables start small and grow with the types met: 70
 * distinct unknown ops (op i met i % 3 + 1 times) beside Relu, each listed
 * once with its count in both lists, past two doublings of each table. */
static void test_many_op_types_reported(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 3});
    relu_on(g, "r", "x");
    char name[32], op[32];
    int64_t total = 0;
    for (int i = 0; i < 70; i++) {
        snprintf(op, sizeof op, "Mystery%d", i);
        for (int k = 0; k <= i % 3; k++, total++) {
            snprintf(name, sizeof name, "m%d_%d", i, k);
            tg_add(g, name, op, "x", NULL);
        }
    }
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->n_unknown_ops, 70);
    assert_int_equal(r->n_ops, 72); /* Placeholder and Relu too */
    int64_t seen = 0;
    bool found[70] = {false};
    for (size_t k = 0; k < r->n_unknown_ops; k++) {
        int i = atoi(r->unknown_ops[k].op + strlen("Mystery"));
        assert_true(i >= 0 && i < 70 && !found[i]);
        found[i] = true;
        assert_int_equal(r->unknown_ops[k].count, i % 3 + 1);
        seen += r->unknown_ops[k].count;
    }
    assert_int_equal(seen, total);
    for (size_t k = 0; k < r->n_ops; k++) {
        const char *o = r->ops[k].op;
        int64_t want = strcmp(o, "Relu") == 0 || strcmp(o, "Placeholder") == 0
                           ? 1
                           : atoi(o + strlen("Mystery")) % 3 + 1;
        assert_int_equal(r->ops[k].count, want);
    }
    fl_report_free(r);
    tg_free(g);
}

static void test_savedmodel(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 3});
    relu_on(g, "r", "x");
    size_t len;
    uint8_t *buf = tg_pack_savedmodel(g, "serve", &len);
    fl_options o = opts();
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
    assert_string_equal(r->format, "savedmodel");
    assert_int_equal(r->n_nodes, 2);
    fl_report_free(r);
    o.saved_model_tag = "train";
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_ENOTFOUND);
    assert_non_null(strstr(r->error, "no meta graph tagged 'train'"));
    fl_report_free(r);
    free(buf);
    tg_free(g);
}

/* Bindings that do not fit the graph are usage errors (the caller's options
 * are wrong, not the model), each naming what is wrong. */
static void test_binding_errors(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 3});
    relu_on(g, "r", "x");
    fl_options o = opts();
    fl_input_binding in = {"nope", 2, (int64_t[]){1, 3}};
    o.inputs = &in;
    o.n_inputs = 1;
    tg_expect_error(g, &o, FL_EUSAGE, "input binding names 'nope', which is not a node");
    in.name = "x";
    in.dims = (int64_t[]){1, 4};
    tg_expect_error(g, &o, FL_EUSAGE,
                    "input binding gives dim 1 = 4 but the placeholder declares 3");
    in.rank = 3;
    in.dims = (int64_t[]){1, 3, 1};
    tg_expect_error(g, &o, FL_EUSAGE, "input binding gives rank 3");
    in.name = "r";
    tg_expect_error(g, &o, FL_EUSAGE, "only Placeholder inputs can be bound");
    o.n_inputs = 0;
    fl_symbol_binding sb = {"N", 8};
    o.symbols = &sb;
    o.n_symbols = 1;
    /* The message lists the graph's symbols (x's free batch dim). */
    tg_expect_error(g, &o, FL_EUSAGE,
                    "symbol binding names 'N', which is not a symbol of the graph (its symbols: "
                    "x.0)");
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicate_names),
        cmocka_unit_test(test_missing_input_node),
        cmocka_unit_test(test_missing_output_port),
        cmocka_unit_test(test_malformed_inputs),
        cmocka_unit_test(test_invalid_node_names),
        cmocka_unit_test(test_data_after_control),
        cmocka_unit_test(test_cycle_rejected),
        cmocka_unit_test(test_control_cycle_rejected),
        cmocka_unit_test(test_while_loop_accepted),
        cmocka_unit_test(test_attr_wrong_type),
        cmocka_unit_test(test_tensor_content_size_mismatch),
        cmocka_unit_test(test_too_many_typed_values),
        cmocka_unit_test(test_typed_values_repeat_last),
        cmocka_unit_test(test_stripped_constant),
        cmocka_unit_test(test_not_protobuf),
        cmocka_unit_test(test_format_sniff),
        cmocka_unit_test(test_empty_graph),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_wrong_input_count),
        cmocka_unit_test(test_unknown_op_reported),
        cmocka_unit_test(test_many_op_types_reported),
        cmocka_unit_test(test_savedmodel),
        cmocka_unit_test(test_binding_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
