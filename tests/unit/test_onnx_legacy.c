/*
 * test_onnx_legacy.c - ONNX models of opsets 1-6, read as those opsets define
 * their operators: legacy broadcasting (attrs broadcast and axis on Add, Sub,
 * Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less), Cast-1's type names,
 * Concat-1's default axis; and the experimental ImageScaler (opsets 1-9).
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* m analysed with the default rewrite passes. */
static fl_report *run_passes(ob_model *m) {
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    return oc_run_opts(m, &o, FL_OK);
}

/* Opset 6, A (2,3,4,5) float:
 *   Add B (3,4) broadcast 1 axis 1: C (2,3,4,5), 120 FLOPs (one a C
 *   element; numpy would refuse (3,4) against (4,5));
 *   Mul B (5) broadcast 1, no axis (aligned to the back): (2,3,4,5), 120;
 *   Sub B (1) broadcast 1: (2,3,4,5); Div B (2,3,4,5) broadcast 0: (2,3,4,5);
 *   Greater B (2) broadcast 1 axis 0: bool (2,3,4,5), 120.
 * The Add along axis 1 keeps every rewrite pass from running (their rules
 * read numpy broadcasting), with a warning naming the node. */
static void test_legacy_broadcast(void **state) {
    (void)state;
    ob_model *m = ob_new(6);
    ob_input(m, "a", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
    ob_input(m, "b34", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "b5", OB_FLOAT, 1, (int64_t[]){5}, NULL);
    ob_input(m, "b1", OB_FLOAT, 1, (int64_t[]){1}, NULL);
    ob_input(m, "b2", OB_FLOAT, 1, (int64_t[]){2}, NULL);
    ob_input(m, "full", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Add", "add", "a,b34", "y1");
    ob_attr_i(m, n, "broadcast", 1);
    ob_attr_i(m, n, "axis", 1);
    n = ob_node(m, "Mul", "mul", "a,b5", "y2");
    ob_attr_i(m, n, "broadcast", 1);
    n = ob_node(m, "Sub", "sub", "a,b1", "y3");
    ob_attr_i(m, n, "broadcast", 1);
    ob_node(m, "Div", "div", "a,full", "y4");
    n = ob_node(m, "Greater", "gt", "a,b2", "y5");
    ob_attr_i(m, n, "broadcast", 1);
    ob_attr_i(m, n, "axis", 0);
    for (int i = 1; i <= 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "y%d", i);
        ob_output(m, name);
    }
    fl_report *r = oc_run(m, FL_OK);
    static const char *const names[] = {"add", "mul", "sub", "div", "gt"};
    for (int i = 0; i < 5; i++) {
        const fl_report_node *a = oc_node(r, names[i]);
        assert_string_equal(a->outputs[0].shape, "[2,3,4,5]");
        assert_string_equal(a->outputs[0].dtype, i == 4 ? "bool" : "float");
        oc_assert_cost(a, 120, 0);
    }
    assert_false(fl_test_has_warning(r, "no rewrite pass run", NULL));
    fl_report_free(r);
    r = run_passes(m);
    assert_true(
        fl_test_has_warning(r,
                            "no rewrite pass run: node 'add' (Add) broadcasts input 1 along "
                            "attr axis, opset 6's legacy broadcasting",
                            NULL));
    assert_int_equal(r->n_passes, 0);
    fl_report_free(r);
    ob_free(m);
}

/* The same nodes aligned to the back leave the passes on (no warning), and
 * at opset 7 the attrs are not read: numpy broadcasting of (2,3,4,5) and
 * (3,4) fails naming the node. */
static void test_legacy_aligned_and_opset7(void **state) {
    (void)state;
    ob_model *m = ob_new(6);
    ob_input(m, "a", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
    ob_input(m, "b45", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Add", "add", "a,b45", "y");
    ob_attr_i(m, n, "broadcast", 1);
    ob_attr_i(m, n, "axis", 2);
    ob_output(m, "y");
    fl_report *r = run_passes(m);
    assert_string_equal(oc_node(r, "add")->outputs[0].shape, "[2,3,4,5]");
    assert_false(fl_test_has_warning(r, "no rewrite pass run", NULL));
    assert_true(r->n_passes > 0);
    fl_report_free(r);
    ob_free(m);

    m = ob_new(7);
    ob_input(m, "a", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
    ob_input(m, "b34", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    n = ob_node(m, "Add", "add", "a,b34", "y");
    ob_attr_i(m, n, "broadcast", 1);
    ob_attr_i(m, n, "axis", 1);
    ob_output(m, "y");
    oc_expect_error(m, "node 'add' (Add)");
}

/* Legacy broadcasting's bad inputs name the attrs and dims. */
static void test_legacy_broadcast_bad(void **state) {
    (void)state;
    static const struct {
        const char *b;
        int64_t bc, axis; /* axis -1: absent */
        const char *want;
    } cases[] = {
        {"b34", 0, -1,
         "node 'n' (Add): input 1 has rank 2, input 0 rank 4: with attr 'broadcast' 0 and attr "
         "'axis' 0 it must equal input 0's shape (legacy broadcasting, opset 6)"},
        {"b34", 1, 2,
         "node 'n' (Add): input 1's dim 0 is 3 but input 0's dim 2 is 4 (attr 'broadcast' 1, "
         "axis 2: legacy broadcasting, opset 6)"},
        {"b34", 1, 3,
         "node 'n' (Add): input 1 has rank 2, input 0 rank 4: with attr 'broadcast' 1 and attr "
         "'axis' 3 it must lie within input 0's dims"},
        {"b34", 1, -1, "node 'n' (Add): input 1's dim 0 is 3 but input 0's dim 2 is 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(6);
        ob_input(m, "a", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
        ob_input(m, "b34", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
        Onnx__NodeProto *n = ob_node(m, "Add", "n", "a,b34", "y");
        ob_attr_i(m, n, "broadcast", cases[i].bc);
        if (cases[i].axis >= 0) {
            ob_attr_i(m, n, "axis", cases[i].axis);
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* Cast-1 names its type ("INT64", any case); Concat-1 concatenates along
 * axis 1 by default. Opset 3: Cast x (2,3) to int64; Concat of (2,3) and
 * (2,4) without attr axis: (2,7). An unknown name fails naming it. */
static void test_cast1_concat1(void **state) {
    (void)state;
    ob_model *m = ob_new(3);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "z", OB_FLOAT, 2, (int64_t[]){2, 4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Cast", "cast", "x", "y");
    ob_attr_s(m, n, "to", "INT64");
    n = ob_node(m, "Cast", "cast16", "x", "h");
    ob_attr_s(m, n, "to", "float16");
    ob_node(m, "Concat", "cat", "x,z", "c");
    ob_output(m, "y");
    ob_output(m, "h");
    ob_output(m, "c");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "cast")->outputs[0].dtype, "int64");
    assert_string_equal(oc_node(r, "cast16")->outputs[0].dtype, "half");
    assert_string_equal(oc_node(r, "cat")->outputs[0].shape, "[2,7]");
    fl_report_free(r);
    ob_free(m);

    m = ob_new(3);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    n = ob_node(m, "Cast", "cast", "x", "y");
    ob_attr_s(m, n, "to", "QUAD");
    ob_output(m, "y");
    oc_expect_error(m, "node 'cast' (Cast): attr 'to' is 'QUAD', not a TensorProto data type name");

    m = ob_new(4); /* from opset 4 Concat's axis is required */
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "Concat", "cat", "x,x", "c");
    ob_output(m, "c");
    oc_expect_error(m, "node 'cat' (Concat): missing required attr 'axis'");
}

/* ImageScaler (opset 8, as tiny-yolov2 has it): x (1,3,4,4), scale 0.5,
 * bias 3 values: y (1,3,4,4), 2 * 48 = 96 FLOPs. A bias of 2 values for 3
 * channels fails naming the attr. */
static void test_image_scaler(void **state) {
    (void)state;
    ob_model *m = ob_new(8);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "ImageScaler", "sc", "x", "y");
    ob_attr_f(m, n, "scale", 0.5f);
    ob_attr_floats(m, n, "bias", 3, (const float[]){1, 2, 3});
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "sc");
    assert_string_equal(a->outputs[0].shape, "[1,3,4,4]");
    oc_assert_cost(a, 96, 0);
    fl_report_free(r);
    ob_free(m);

    m = ob_new(8);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    n = ob_node(m, "ImageScaler", "sc", "x", "y");
    ob_attr_floats(m, n, "bias", 2, (const float[]){1, 2});
    ob_output(m, "y");
    oc_expect_error(m, "node 'sc' (ImageScaler): attr 'bias' has 2 values, input 0 has 3 channels");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_broadcast),
        cmocka_unit_test(test_legacy_aligned_and_opset7),
        cmocka_unit_test(test_legacy_broadcast_bad),
        cmocka_unit_test(test_cast1_concat1),
        cmocka_unit_test(test_image_scaler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
