/*
 * test_onnx_scalar.c - an ONNX graph input whose shape is present with no
 * dims is a scalar (rank 0), not a tensor of unknown rank: ONNX's
 * TypeProto.Tensor.shape, when set, is the full shape, and an empty one has
 * rank 0 (only an absent shape means an unknown rank).
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3 };

/* DequantizeLinear x int8 [2,10] with a scalar float scale and a scalar
 * int8 zero point, both graph inputs of shape []: int_ops 20, FLOPs 20;
 * bytes read x 20 + scale 4 + zero point 1, written 20 * 4 = 80: 105. The
 * inputs are listed as rank 0 with no warning about an unknown rank. An
 * input with no shape at all keeps an unknown rank (and its warning). */
static void test_scalar_inputs(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", I8, 2, (int64_t[]){2, 10}, NULL);
    ob_input(m, "s", OB_FLOAT, 0, NULL, NULL);
    ob_input(m, "z", I8, 0, NULL, NULL);
    ob_input(m, "u", OB_FLOAT, -1, NULL, NULL);
    ob_node(m, "DequantizeLinear", "dq", "x,s,z", "y");
    ob_node(m, "Add", "add", "s,s", "y2");
    ob_node(m, "Relu", "relu", "u", "y3");
    ob_output(m, "y");
    ob_output(m, "y2");
    ob_output(m, "y3");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *dq = oc_node(r, "dq");
    assert_string_equal(dq->outputs[0].shape, "[2,10]");
    oc_assert_int(dq, 20, 20);
    assert_true(dq->bytes.known);
    assert_int_equal(dq->bytes.value, 105);
    const fl_report_node *add = oc_node(r, "add");
    assert_string_equal(add->outputs[0].shape, "[]");
    oc_assert_cost(add, 1, 0);
    assert_string_equal(oc_node(r, "relu")->outputs[0].shape, "?");
    bool seen_s = false, warned_u = false;
    for (size_t i = 0; i < r->n_inputs; i++) {
        if (strcmp(r->inputs[i].name, "s") == 0 || strcmp(r->inputs[i].name, "z") == 0) {
            assert_int_equal(r->inputs[i].rank, 0);
            seen_s = true;
        }
    }
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strstr(r->warnings[i], "unknown rank")) {
            assert_non_null(strstr(r->warnings[i], "'u'"));
            warned_u = true;
        }
    }
    assert_true(seen_s);
    assert_true(warned_u);
    fl_report_free(r);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
