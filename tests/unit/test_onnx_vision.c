/*
 * test_onnx_vision.c - shapes that vision models exported from PyTorch
 * (detection, segmentation, video, optical flow) derive from their input
 * sizes: constant evaluation through the ops their preprocessing uses, and
 * the shape rules those exports exercise. Exact values from the ONNX
 * operator specification.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A float initializer holding `n` values. */
static void init_floats(ob_model *m, const char *name, int rank, const int64_t *dims,
                        const float *v, size_t n) {
    ob_init_raw(m, name, OB_FLOAT, rank, dims, v, n * sizeof(float));
}

/* A detection model's resize scale: size [320, 640]; ReduceMin and
 * ReduceMax (keepdims 1, every axis) give [320] and [640]; their
 * Reciprocal times 320 and 480: [1] and [0.75]; Min: [0.75] (Max of that
 * one input: the same); size * 0.75 = [240, 480], Floor, Cast to int64,
 * Sum with [0, 0]: ConstantOfShape [240,480]. ReduceMax over axis 0 with
 * keepdims 0 of [[2, 7], [5, 3]] is [5, 7]: ConstantOfShape [5,7]. */
static void test_resize_scale_values(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_init_i64(m, "size", 1, (int64_t[]){2}, (int64_t[]){320, 640});
    ob_init_i64(m, "zero", 1, (int64_t[]){2}, (int64_t[]){0, 0});
    ob_init_i64(m, "grid", 2, (int64_t[]){2, 2}, (int64_t[]){2, 7, 5, 3});
    init_floats(m, "c320", 1, (int64_t[]){1}, (float[]){320.0f}, 1);
    init_floats(m, "c480", 1, (int64_t[]){1}, (float[]){480.0f}, 1);
    ob_node(m, "ReduceMin", "rmin", "size", "lo");
    ob_node(m, "ReduceMax", "rmax", "size", "hi");
    ob_attr_i(m, ob_node(m, "Cast", "flo", "lo", "lof"), "to", OB_FLOAT);
    ob_attr_i(m, ob_node(m, "Cast", "fhi", "hi", "hif"), "to", OB_FLOAT);
    ob_node(m, "Reciprocal", "ilo", "lof", "rlo");
    ob_node(m, "Reciprocal", "ihi", "hif", "rhi");
    ob_node(m, "Mul", "a", "rlo,c320", "sa");
    ob_node(m, "Mul", "b", "rhi,c480", "sb");
    ob_node(m, "Min", "mn", "sa,sb", "s");
    ob_node(m, "Max", "mx", "s", "s1");
    ob_attr_i(m, ob_node(m, "Cast", "fsz", "size", "szf"), "to", OB_FLOAT);
    ob_node(m, "Mul", "scaled", "szf,s1", "hw");
    ob_node(m, "Floor", "fl", "hw", "hwf");
    ob_attr_i(m, ob_node(m, "Cast", "toi", "hwf", "hwi"), "to", OB_INT64);
    ob_node(m, "Sum", "sum", "hwi,zero", "hw2");
    ob_node(m, "ConstantOfShape", "img", "hw2", "y");
    Onnx__NodeProto *g = ob_node(m, "ReduceMax", "gmax", "grid", "gm");
    ob_attr_ints(m, g, "axes", 1, (int64_t[]){0});
    ob_attr_i(m, g, "keepdims", 0);
    ob_node(m, "ConstantOfShape", "img2", "gm", "y2");
    ob_output(m, "y");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "img")->outputs[0].shape, "[240,480]");
    assert_string_equal(oc_node(r, "img2")->outputs[0].shape, "[5,7]");
    fl_report_free(r);
    ob_free(m);
}

/* A Loop carrying a sequence (torch's export of a list built in a loop,
 * MViT's pooling): M = 3, the sequence starts as SequenceEmpty (float) and
 * the body appends Relu(w), w float [3,4] from the outer graph (12 FLOPs).
 * The body's sequence input keeps its declared type (the outer value is a
 * sequence, no tensor type): the body analyses, 3 * 12 = 36 FLOPs, no
 * warning. */
static void test_loop_carried_sequence(void **state) {
    (void)state;
    ob_model *b = ob_new(13);
    ob_input(b, "i", OB_INT64, 0, NULL, NULL);
    ob_input(b, "cond_in", OB_BOOL, 0, NULL, NULL);
    ob_input(b, "s_in", OB_FLOAT, 2, (int64_t[]){-1, 4}, NULL);
    ob_input_wrap(b, "s");
    ob_node(b, "Identity", "keep", "cond_in", "cond_out");
    ob_node(b, "Relu", "act", "w", "r");
    ob_node(b, "SequenceInsert", "append", "s_in,r", "s_out");
    ob_output(b, "cond_out");
    ob_output(b, "s_out");
    ob_model *m = ob_new(13);
    ob_init_i64(m, "M", 0, NULL, (int64_t[]){3});
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_attr_i(m, ob_node(m, "SequenceEmpty", "empty", "", "s0"), "dtype", OB_FLOAT);
    Onnx__NodeProto *n = ob_node(m, "Loop", "loop", "M,,s0", "s");
    ob_attr_graph(m, n, "body", b);
    ob_output(m, "s");
    fl_report *r = oc_run(m, FL_OK);
    for (size_t i = 0; i < r->n_warnings; i++) {
        printf("warning: %s\n", r->warnings[i]);
    }
    assert_int_equal(r->n_warnings, 0);
    oc_assert_cost(oc_node(r, "loop"), 36, 0);
    assert_true(r->complete);
    fl_report_free(r);
    ob_free(m);
    ob_free(b);
}

/* Split and Expand of known values (torch's export of MViT's positional
 * encoding: Expand(3136, [8]) split into eight [1]): Expand([[2], [5]],
 * [2, 3]) is [[2, 2, 2], [5, 5, 5]]; Split of it along axis 1 into [1, 2]
 * gives [[2], [5]] and [[2, 2], [5, 5]]; ConstantOfShape of the first
 * output (reshaped to [2]) is [2,5], of row 1 of the second ([5, 5]) is
 * [5,5]. */
static void test_split_expand_values(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_init_i64(m, "col", 2, (int64_t[]){2, 1}, (int64_t[]){2, 5});
    ob_init_i64(m, "to", 1, (int64_t[]){2}, (int64_t[]){2, 3});
    ob_init_i64(m, "parts", 1, (int64_t[]){2}, (int64_t[]){1, 2});
    ob_init_i64(m, "flat", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_init_i64(m, "row1", 0, NULL, (int64_t[]){1});
    ob_node(m, "Expand", "ex", "col,to", "grid");
    Onnx__NodeProto *sp = ob_node(m, "Split", "sp", "grid,parts", "a,b");
    ob_attr_i(m, sp, "axis", 1);
    ob_node(m, "Reshape", "ra", "a,flat", "av");
    ob_node(m, "Gather", "rb", "b,row1", "bv");
    ob_node(m, "ConstantOfShape", "ya", "av", "y1");
    ob_node(m, "ConstantOfShape", "yb", "bv", "y2");
    ob_output(m, "y1");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "ya")->outputs[0].shape, "[2,5]");
    assert_string_equal(oc_node(r, "yb")->outputs[0].shape, "[5,5]");
    fl_report_free(r);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resize_scale_values),
        cmocka_unit_test(test_loop_carried_sequence),
        cmocka_unit_test(test_split_expand_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
