/*
 * test_onnx_legacy.c - ONNX models of opsets 1-6, read as those opsets define
 * their operators: legacy broadcasting (attrs broadcast and axis on Add, Sub,
 * Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less), Cast-1's type names,
 * Concat-1's default axis, Reshape-1, Tile-1, Pad-1, Upsample-1,
 * Dropout's mask type, Gemm-1/6, Sum/Max/Min/Mean without broadcasting,
 * PRelu-1/6's per-channel slope, GlobalLpPool-1's float p, MVN-1; and the
 * experimental ImageScaler, Scale, Affine, ScaledTanh, ParametricSoftplus
 * and Crop (opsets 1-9).
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
    ob_outputs(m, "y", 5);
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

/* Opset 1, x (2,3,4) float (24 elements):
 *   Reshape-1 attr shape (0,-1): one input; 0 copies dim 0 (2), -1 = 24 / 2
 *   = 12: (2,12), 0 FLOPs;
 *   Tile-1 (x, tiles 3, axis 1): dim 1 times 3: (2,9,4), 0 FLOPs;
 *   Pad-1 attr paddings (0,1,0, 0,2,1): (2,3+1+2,4+1) = (2,6,5), 0 FLOPs;
 *   Dropout-1 (is_test 0) with mask: both (2,3,4) float (the mask is T
 *   until opset 10), 0 FLOPs.
 * No opset warning: everything is read as opset 1 defines it. */
static void test_reshape1_tile1_pad1_dropout(void **state) {
    (void)state;
    ob_model *m = ob_new(1);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_init_i64(m, "tiles", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_init_i64(m, "axis", 1, (int64_t[]){1}, (int64_t[]){1});
    Onnx__NodeProto *n = ob_node(m, "Reshape", "rs", "x", "r");
    ob_attr_ints(m, n, "shape", 2, (int64_t[]){0, -1});
    ob_attr_ints(m, n, "consumed_inputs", 1, (int64_t[]){0});
    ob_node(m, "Tile", "tile", "x,tiles,axis", "t");
    n = ob_node(m, "Pad", "pad", "x", "p");
    ob_attr_ints(m, n, "paddings", 6, (int64_t[]){0, 1, 0, 0, 2, 1});
    n = ob_node(m, "Dropout", "drop", "x", "d,mask");
    ob_attr_i(m, n, "is_test", 0);
    ob_output(m, "r");
    ob_output(m, "t");
    ob_output(m, "p");
    ob_output(m, "d");
    ob_output(m, "mask");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "rs")->outputs[0].shape, "[2,12]");
    assert_string_equal(oc_node(r, "tile")->outputs[0].shape, "[2,9,4]");
    assert_string_equal(oc_node(r, "pad")->outputs[0].shape, "[2,6,5]");
    const fl_report_node *d = oc_node(r, "drop");
    assert_string_equal(d->outputs[1].shape, "[2,3,4]");
    assert_string_equal(d->outputs[1].dtype, "float");
    oc_assert_cost(oc_node(r, "tile"), 0, 0);
    assert_false(fl_test_has_warning(r, "opset", NULL));
    fl_report_free(r);
    ob_free(m);

    /* Reshape-1 without attr shape; Reshape-5 with one input */
    m = ob_new(1);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_node(m, "Reshape", "rs", "x", "r");
    ob_output(m, "r");
    oc_expect_error(m, "node 'rs' (Reshape): attr 'shape' is missing (Reshape-1, opset 1");
    m = ob_new(5);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_attr_ints(m, ob_node(m, "Reshape", "rs", "x", "r"), "shape", 1, (int64_t[]){24});
    ob_output(m, "r");
    oc_expect_error(m, "node 'rs' (Reshape): expects 2 inputs, got 1 (field: input)");
    /* Tile-1 takes three inputs; at opset 6 two */
    m = ob_new(5);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_init_i64(m, "rep", 1, (int64_t[]){3}, (int64_t[]){1, 2, 1});
    ob_node(m, "Tile", "tile", "x,rep", "t");
    ob_output(m, "t");
    oc_expect_error(m, "node 'tile' (Tile): expects 3 inputs, got 2 (field: input)");
}

/* Upsample-1 (opset 1, experimental): x (1,2,3,4), height_scale 2,
 * width_scale 1.5, bilinear: (1,2,6,6) (floor(3*2), floor(4*1.5));
 * 72 outputs, 2 axes interpolated: 3 * (2^2 - 1) = 9 each, 648 FLOPs.
 * GlobalLpPool-1's p is a float: (1,2,1,1), 2 * 24 = 48 FLOPs. */
static void test_upsample1_global_lp_pool1(void **state) {
    (void)state;
    ob_model *m = ob_new(1);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Upsample", "up", "x", "y");
    ob_attr_f(m, n, "height_scale", 2.0f);
    ob_attr_f(m, n, "width_scale", 1.5f);
    ob_attr_s(m, n, "mode", "bilinear");
    ob_attr_f(m, ob_node(m, "GlobalLpPool", "glp", "x", "g"), "p", 3.0f);
    ob_output(m, "y");
    ob_output(m, "g");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "up")->outputs[0].shape, "[1,2,6,6]");
    oc_assert_cost(oc_node(r, "up"), 648, 0);
    assert_string_equal(oc_node(r, "glp")->outputs[0].shape, "[1,2,1,1]");
    oc_assert_cost(oc_node(r, "glp"), 48, 0);
    fl_report_free(r);
    ob_free(m);

    m = ob_new(1);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 4}, NULL);
    ob_attr_f(m, ob_node(m, "Upsample", "up", "x", "y"), "height_scale", 2.0f);
    ob_output(m, "y");
    oc_expect_error(m, "node 'up' (Upsample): attr 'width_scale' (float) is missing (Upsample-1");
}

/* Opset 6: Gemm a (3,4) b (4,5) c (5) broadcast 1: (3,5), 60 MACs, 2 * 60 +
 * 15 = 135 FLOPs; Sum of two (2,3): (2,3), 6 FLOPs; PRelu x (2,3,4,5) with a
 * slope of 3 (one a channel): (2,3,4,5), 2 * 120 = 240 FLOPs. Without
 * broadcast Gemm's C must be (3,5); Sum's inputs one shape. */
static void test_gemm6_sum6_prelu6(void **state) {
    (void)state;
    ob_model *m = ob_new(6);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    ob_input(m, "c", OB_FLOAT, 1, (int64_t[]){5}, NULL);
    ob_input(m, "s", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, NULL);
    ob_input(m, "slope", OB_FLOAT, 1, (int64_t[]){3}, NULL);
    ob_attr_i(m, ob_node(m, "Gemm", "gemm", "a,b,c", "y"), "broadcast", 1);
    ob_node(m, "Sum", "sum", "s,s", "z");
    ob_node(m, "PRelu", "prelu", "x,slope", "p");
    ob_output(m, "y");
    ob_output(m, "z");
    ob_output(m, "p");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "gemm")->outputs[0].shape, "[3,5]");
    oc_assert_cost(oc_node(r, "gemm"), 135, 60);
    assert_string_equal(oc_node(r, "sum")->outputs[0].shape, "[2,3]");
    oc_assert_cost(oc_node(r, "sum"), 6, 0);
    assert_string_equal(oc_node(r, "prelu")->outputs[0].shape, "[2,3,4,5]");
    oc_assert_cost(oc_node(r, "prelu"), 240, 0);
    fl_report_free(r);
    ob_free(m);

    m = ob_new(6);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    ob_input(m, "c", OB_FLOAT, 1, (int64_t[]){5}, NULL);
    ob_node(m, "Gemm", "gemm", "a,b,c", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'gemm' (Gemm): input 'C' has rank 1, want [M, N] = [3, 5] with attr "
                       "'broadcast' 0 (Gemm-1/6, opset 6)");
    m = ob_new(7);
    ob_input(m, "s", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "t", OB_FLOAT, 1, (int64_t[]){3}, NULL);
    ob_node(m, "Max", "max", "s,t", "z");
    ob_output(m, "z");
    oc_expect_error(m, "node 'max' (Max): input 1 has rank 1, input 0 rank 2: opset 7's Max takes "
                       "inputs of one shape");
}

/* The experimental ops at opset 7, x (1,3,10,12) = 360 elements:
 *   Scale 1 FLOP an element: 360; Affine 2: 720; ScaledTanh and
 *   ParametricSoftplus 1 (activations): 360 each; all (1,3,10,12);
 *   Crop border (1,2,3,4) = left, top, right, bottom: H 10 - 2 - 4 = 4,
 *   W 12 - 1 - 3 = 8: (1,3,4,8); with scale (5,6): (1,3,5,6); 0 FLOPs;
 *   MVN-1 normalize_variance 0 (opset 7, before MVN-9): 2 * 360 = 720.
 * A crop past H fails naming the attr; GRUUnit warns naming op and opset. */
static void test_experimental_ops(void **state) {
    (void)state;
    ob_model *m = ob_new(7);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 10, 12}, NULL);
    ob_attr_f(m, ob_node(m, "Scale", "scale", "x", "y1"), "scale", 2.0f);
    ob_attr_f(m, ob_node(m, "Affine", "affine", "x", "y2"), "alpha", 2.0f);
    ob_attr_f(m, ob_node(m, "ScaledTanh", "stanh", "x", "y3"), "alpha", 2.0f);
    ob_attr_f(m, ob_node(m, "ParametricSoftplus", "psp", "x", "y4"), "beta", 2.0f);
    ob_attr_ints(m, ob_node(m, "Crop", "crop", "x", "y5"), "border", 4, (int64_t[]){1, 2, 3, 4});
    Onnx__NodeProto *n = ob_node(m, "Crop", "crop2", "x", "y6");
    ob_attr_ints(m, n, "border", 4, (int64_t[]){1, 2, 3, 4});
    ob_attr_ints(m, n, "scale", 2, (int64_t[]){5, 6});
    n = ob_node(m, "MeanVarianceNormalization", "mvn", "x", "y7");
    ob_attr_i(m, n, "normalize_variance", 0);
    ob_outputs(m, "y", 7);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape;
        int64_t flops;
    } want[] = {{"scale", "[1,3,10,12]", 360}, {"affine", "[1,3,10,12]", 720},
                {"stanh", "[1,3,10,12]", 360}, {"psp", "[1,3,10,12]", 360},
                {"crop", "[1,3,4,8]", 0},      {"crop2", "[1,3,5,6]", 0},
                {"mvn", "[1,3,10,12]", 720}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        oc_assert_cost(a, want[i].flops, 0);
    }
    fl_report_free(r);
    ob_free(m);

    m = ob_new(7);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 10, 12}, NULL);
    n = ob_node(m, "Crop", "crop", "x", "y");
    ob_attr_ints(m, n, "border", 4, (int64_t[]){0, 6, 0, 0});
    ob_attr_ints(m, n, "scale", 2, (int64_t[]){5, 6});
    ob_output(m, "y");
    oc_expect_error(m, "node 'crop' (Crop): attr 'scale' takes 5 from offset 6 of H 10");

    m = ob_new(6);
    ob_input(m, "h", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "GRUUnit", "gu", "h,h,h,h", "y");
    ob_output(m, "y");
    r = oc_run(m, FL_OK);
    assert_true(fl_test_has_warning(
        r, "node 'gu' (GRUUnit): ONNX's experimental GRUUnit-1 (ai.onnx opset 6) is not modelled",
        NULL));
    fl_report_free(r);
    ob_free(m);
}

/* ConstantFill (opset 6, experimental), 0 FLOPs each:
 *   no input, attr shape (2,3), dtype 7: (2,3) int64;
 *   input x (2,3,4), extra_shape (5), dtype 9: (2,3,4,5) bool;
 *   input_as_shape 1 over the constant (4,6), extra_shape (2): (4,6,2)
 *   float (the default dtype);
 *   no input and no shape: a float scalar.
 * Attr shape with an input, extra_shape without one, dtype float16 and an
 * unknown GivenTensorFill fail or warn naming what is wrong. */
static void test_constant_fill(void **state) {
    (void)state;
    ob_model *m = ob_new(6);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_init_i64(m, "shp", 1, (int64_t[]){2}, (int64_t[]){4, 6});
    Onnx__NodeProto *n = ob_node(m, "ConstantFill", "f1", "", "y1");
    ob_attr_ints(m, n, "shape", 2, (int64_t[]){2, 3});
    ob_attr_i(m, n, "dtype", 7);
    n = ob_node(m, "ConstantFill", "f2", "x", "y2");
    ob_attr_ints(m, n, "extra_shape", 1, (int64_t[]){5});
    ob_attr_i(m, n, "dtype", 9);
    n = ob_node(m, "ConstantFill", "f3", "shp", "y3");
    ob_attr_i(m, n, "input_as_shape", 1);
    ob_attr_ints(m, n, "extra_shape", 1, (int64_t[]){2});
    ob_attr_f(m, ob_node(m, "ConstantFill", "f4", "", "y4"), "value", 1.0f);
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape, *dtype;
    } want[] = {{"f1", "[2,3]", "int64"},
                {"f2", "[2,3,4,5]", "bool"},
                {"f3", "[4,6,2]", "float"},
                {"f4", "[]", "float"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        assert_string_equal(a->outputs[0].dtype, want[i].dtype);
        oc_assert_cost(a, 0, 0);
    }
    fl_report_free(r);
    ob_free(m);

    static const struct {
        int with_input, shape, extra;
        int64_t dtype;
        const char *err;
    } bad[] = {
        {1, 1, 0, 1, "node 'f' (ConstantFill): attr 'shape' is given with an input"},
        {0, 1, 1, 1, "node 'f' (ConstantFill): attr 'extra_shape' is given without an input"},
        {0, 1, 0, 10,
         "node 'f' (ConstantFill): attr 'dtype' is 10: ConstantFill fills float (1), "
         "int32 (6), int64 (7) or bool (9)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = ob_new(6);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
        n = ob_node(m, "ConstantFill", "f", bad[i].with_input ? "x" : "", "y");
        if (bad[i].shape) {
            ob_attr_ints(m, n, "shape", 1, (int64_t[]){3});
        }
        if (bad[i].extra) {
            ob_attr_ints(m, n, "extra_shape", 1, (int64_t[]){3});
        }
        ob_attr_i(m, n, "dtype", bad[i].dtype);
        ob_output(m, "y");
        oc_expect_error(m, bad[i].err);
    }

    m = ob_new(6);
    ob_attr_floats(m, ob_node(m, "GivenTensorFill", "g", "", "y"), "values", 2,
                   (const float[]){1, 2});
    ob_output(m, "y");
    r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 1);
    assert_true(fl_test_has_warning(r,
                                    "node 'g' (GivenTensorFill): ONNX's experimental "
                                    "GivenTensorFill-1 (ai.onnx opset 6) is not modelled",
                                    NULL));
    fl_report_free(r);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_broadcast),
        cmocka_unit_test(test_legacy_aligned_and_opset7),
        cmocka_unit_test(test_legacy_broadcast_bad),
        cmocka_unit_test(test_cast1_concat1),
        cmocka_unit_test(test_image_scaler),
        cmocka_unit_test(test_reshape1_tile1_pad1_dropout),
        cmocka_unit_test(test_upsample1_global_lp_pool1),
        cmocka_unit_test(test_gemm6_sum6_prelu6),
        cmocka_unit_test(test_experimental_ops),
        cmocka_unit_test(test_constant_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
