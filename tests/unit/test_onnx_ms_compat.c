/*
 * test_onnx_ms_compat.c - ONNX Runtime's contrib forms of ai.onnx operators
 * (src/ops/onnxms/compat.c), its Inverse, CDist, UnfoldTensor and
 * CropAndResize, NGramRepeatBlock, MurmurHash3, WordConvEmbedding,
 * DynamicTimeWarping, BifurcationDetector and Tokenizer (misc.c),
 * MatMulBnb4, MulInteger and
 * ReduceSumInteger (quant.c), QEmbedLayerNormalization (embed.c),
 * DynamicQuantizeLSTM (onnxops/nn.c) and ONNX's experimental
 * DynamicSlice: exact shapes and counts derived by hand from each file's
 * stated rule, symbolic dims, and bad inputs failing with the node and the
 * input or attr named. cli_onnx_ortsweep checks the same ops' shapes and
 * dtypes against ONNX Runtime.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts, each node on its own inputs:
 *   Inverse x [2,3,3]: 2 matrices of n = 3: MACs 2 * 27 = 54, FLOPs 108;
 *   CDist a [4,3], b [5,3] sqeuclidean: [4,5], 20 pairs, MACs 20 * 3 = 60,
 *   FLOPs 3 * 60 = 180; euclidean + 20 square roots: 200;
 *   CropAndResize x [2,3,8,8], 4 rois, crop (5,6): [4,3,5,6] = 360
 *   elements, bilinear 9 * 360 = 3240, nearest 0;
 *   MatMulBnb4 a [2,3,32], K 32, N 16, block 64: [2,3,16], rows 6, MACs 6
 *   * 16 * 32 = 3072, FLOPs 2 * 3072 + 16 * 32 = 6656;
 *   TransposeMatMul a [2,4,3]^T [2,3,4] . b [5,4]^T [4,5], alpha 0.5:
 *   [2,3,5], MACs 2 * 3 * 5 * 4 = 120, FLOPs 240 + 30 (alpha) = 270;
 *   GridSample x [1,2,4,5], grid [1,3,6,2], bilinear: [1,2,3,6], 36
 *   outputs, 9 each (two axes): 324;
 *   UnfoldTensor [2,10,3] dim 1 size 4 step 3: [2,3,3,4] ((10 - 4) / 3 +
 *   1 = 3), 0. */
static void test_counts(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 3}, NULL);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){4, 3}, NULL);
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    ob_input(m, "img", OB_FLOAT, 4, (int64_t[]){2, 3, 8, 8}, NULL);
    ob_init_f(m, "rois", 2, (int64_t[]){4, 4}, false);
    ob_init_raw(m, "bi", OB_INT32, 1, (int64_t[]){4}, (const int32_t[]){0, 1, 0, 1}, 16);
    ob_init_raw(m, "cs", OB_INT32, 1, (int64_t[]){2}, (const int32_t[]){5, 6}, 8);
    ob_input(m, "qa", OB_FLOAT, 3, (int64_t[]){2, 3, 32}, NULL);
    ob_init_raw(m, "qb", OB_UINT8, 1, (int64_t[]){256}, NULL, 0);
    ob_init_f(m, "absmax", 1, (int64_t[]){8}, false);
    ob_input(m, "ta", OB_FLOAT, 3, (int64_t[]){2, 4, 3}, NULL);
    ob_input(m, "tb", OB_FLOAT, 2, (int64_t[]){5, 4}, NULL);
    ob_input(m, "gx", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 5}, NULL);
    ob_input(m, "grid", OB_FLOAT, 4, (int64_t[]){1, 3, 6, 2}, NULL);
    ob_input(m, "u", OB_FLOAT, 3, (int64_t[]){2, 10, 3}, NULL);
    oc_ms_node(m, "Inverse", "inv", "x", "y1");
    oc_ms_node(m, "CDist", "cd", "a,b", "y2");
    ob_attr_s(m, oc_ms_node(m, "CDist", "cde", "a,b", "y3"), "metric", "euclidean");
    oc_ms_node(m, "CropAndResize", "crb", "img,rois,bi,cs", "y4");
    ob_attr_s(m, oc_ms_node(m, "CropAndResize", "crn", "img,rois,bi,cs", "y5"), "mode", "nearest");
    Onnx__NodeProto *n = oc_ms_node(m, "MatMulBnb4", "bnb", "qa,qb,absmax", "y6");
    ob_attr_i(m, n, "K", 32);
    ob_attr_i(m, n, "N", 16);
    ob_attr_i(m, n, "block_size", 64);
    ob_attr_i(m, n, "quant_type", 1);
    n = oc_ms_node(m, "TransposeMatMul", "tmm", "ta,tb", "y7");
    ob_attr_i(m, n, "transA", 1);
    ob_attr_i(m, n, "transB", 1);
    ob_attr_f(m, n, "alpha", 0.5f);
    oc_ms_node(m, "GridSample", "gs", "gx,grid", "y8");
    n = oc_ms_node(m, "UnfoldTensor", "unf", "u", "y9");
    ob_attr_i(m, n, "dim", 1);
    ob_attr_i(m, n, "size", 4);
    ob_attr_i(m, n, "step", 3);
    ob_outputs(m, "y", 9);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape;
        int64_t flops, macs;
    } want[] = {
        {"inv", "[2,3,3]", 108, 54},   {"cd", "[4,5]", 180, 60},    {"cde", "[4,5]", 200, 60},
        {"crb", "[4,3,5,6]", 3240, 0}, {"crn", "[4,3,5,6]", 0, 0},  {"bnb", "[2,3,16]", 6656, 3072},
        {"tmm", "[2,3,5]", 270, 120},  {"gs", "[1,2,3,6]", 324, 0}, {"unf", "[2,3,3,4]", 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        assert_string_equal(a->outputs[0].dtype, "float");
        oc_assert_cost(a, want[i].flops, want[i].macs);
    }
    fl_report_free(r);
    ob_free(m);
}

/* Shapes of the contrib forms, constants known:
 *   ExpandDims x [2,3,4] axis -1: [2,3,4,1]; axis 1: [2,1,3,4];
 *   Pad x [2,3] pads [1,4] (-1,2, 0,-3): [1,2]; 1-D (0,1,1,0): [3,4];
 *   Range int64 2..7 without delta: [5]; with delta -3 from 10 to 2: [3];
 *   Unique over the constant (3,1,3,2,1,3): y [3], idx [6] and counts [3],
 *   int64;
 *   DynamicSlice (ai.onnx, opset 9) x [3,4,5] starts (1,0) ends (3,-1) axes
 *   (0,2): [2,4,4]. All count 0 FLOPs. */
static void test_shapes(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "p", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_init_raw(m, "am1", OB_INT32, 0, NULL, (const int32_t[]){-1}, 4);
    ob_init_raw(m, "a1", OB_INT32, 0, NULL, (const int32_t[]){1}, 4);
    ob_init_i64(m, "pads2", 2, (int64_t[]){1, 4}, (int64_t[]){-1, 2, 0, -3});
    ob_init_i64(m, "pads1", 1, (int64_t[]){4}, (int64_t[]){0, 1, 1, 0});
    ob_init_i64(m, "s", 0, NULL, (int64_t[]){2});
    ob_init_i64(m, "l", 0, NULL, (int64_t[]){7});
    ob_init_i64(m, "s10", 0, NULL, (int64_t[]){10});
    ob_init_i64(m, "dm3", 0, NULL, (int64_t[]){-3});
    ob_init_raw(m, "uq", OB_FLOAT, 1, (int64_t[]){6}, (const float[]){3, 1, 3, 2, 1, 3}, 24);
    oc_ms_node(m, "ExpandDims", "ed1", "x,am1", "y1");
    oc_ms_node(m, "ExpandDims", "ed2", "x,a1", "y2");
    oc_ms_node(m, "Pad", "pad2", "p,pads2", "y3");
    oc_ms_node(m, "Pad", "pad1", "p,pads1", "y4");
    oc_ms_node(m, "Range", "rg", "s,l", "y5");
    oc_ms_node(m, "Range", "rgd", "s10,s,dm3", "y6");
    oc_ms_node(m, "Unique", "uniq", "uq", "y7,idx,counts");
    ob_outputs(m, "y", 7);
    ob_output(m, "idx");
    ob_output(m, "counts");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape;
    } want[] = {{"ed1", "[2,3,4,1]"}, {"ed2", "[2,1,3,4]"}, {"pad2", "[1,2]"}, {"pad1", "[3,4]"},
                {"rg", "[5]"},        {"rgd", "[3]"},       {"uniq", "[3]"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        oc_assert_cost(a, 0, 0);
    }
    const fl_report_node *u = oc_node(r, "uniq");
    assert_string_equal(u->outputs[1].shape, "[6]");
    assert_string_equal(u->outputs[1].dtype, "int64");
    assert_string_equal(u->outputs[2].shape, "[3]");
    assert_string_equal(u->outputs[2].dtype, "int64");
    fl_report_free(r);
    ob_free(m);

    m = ob_new(9);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){3, 4, 5}, NULL);
    ob_init_i64(m, "st", 1, (int64_t[]){2}, (int64_t[]){1, 0});
    ob_init_i64(m, "en", 1, (int64_t[]){2}, (int64_t[]){3, -1});
    ob_init_i64(m, "ax", 1, (int64_t[]){2}, (int64_t[]){0, 2});
    ob_node(m, "DynamicSlice", "ds", "x,st,en,ax", "y");
    ob_output(m, "y");
    r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(oc_node(r, "ds")->outputs[0].shape, "[2,4,4]");
    assert_false(fl_test_has_warning(r, "experimental", NULL));
    fl_report_free(r);
    ob_free(m);
}

/* Symbolic dims: UnfoldTensor over [n,10] dim 0 size 2 step 2: (n - 2) / 2
 * + 1 windows; CDist a [m,3] b [k,3]: [m,k], 9 * m * k FLOPs (3 * K = 9
 * each pair), 3 * m * k MACs; Inverse [b,4,4]: 128 * b FLOPs. */
static void test_symbolic(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "u", OB_FLOAT, 2, (int64_t[]){-1, 10}, (const char *[]){"n", NULL});
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){-1, 3}, (const char *[]){"m", NULL});
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){-1, 3}, (const char *[]){"k", NULL});
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, 4, 4}, (const char *[]){"b", NULL, NULL});
    Onnx__NodeProto *n = oc_ms_node(m, "UnfoldTensor", "unf", "u", "y1");
    ob_attr_i(m, n, "dim", 0);
    ob_attr_i(m, n, "size", 2);
    ob_attr_i(m, n, "step", 2);
    oc_ms_node(m, "CDist", "cd", "a,b", "y2");
    oc_ms_node(m, "Inverse", "inv", "x", "y3");
    ob_outputs(m, "y", 3);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "unf");
    assert_int_equal(a->outputs[0].rank, 3);
    assert_non_null(strstr(a->outputs[0].shape, "n"));
    assert_string_equal(strrchr(a->outputs[0].shape, ','), ",2]");
    a = oc_node(r, "cd");
    assert_string_equal(a->outputs[0].shape, "[m,k]");
    assert_string_equal(a->flops.text, "9*k*m");
    assert_string_equal(oc_node(r, "inv")->flops.text, "128*b");
    fl_report_free(r);
    ob_free(m);
}

/* Bad nodes fail naming the node and what is wrong. */
static void test_bad(void **state) {
    (void)state;
    static const struct {
        const char *op, *in, *attr, *sval;
        int64_t ival;
        const char *err;
    } cases[] = {
        {"CDist", "a,b", "metric", "cosine", 0,
         "node 'n' (CDist): attr 'metric' is 'cosine' (sqeuclidean or euclidean"},
        {"CDist", "a,c", NULL, NULL, 0, "node 'n' (CDist): inputs A's and B's dim 1"},
        {"Inverse", "a", NULL, NULL, 0, "node 'n' (Inverse): input 0 (X)'s last two dims"},
        {"UnfoldTensor", "a", "size", NULL, 5,
         "node 'n' (UnfoldTensor): attr 'size' is 5, dim 1 only 3 long"},
        {"UnfoldTensor", "a", NULL, NULL, 0,
         "node 'n' (UnfoldTensor): missing required attr "
         "'size'"},
        {"ExpandDims", "a,ax", NULL, NULL, 0, "node 'n' (ExpandDims): input 'axis'"},
        {"GridSample", "v,g", NULL, NULL, 0,
         "node 'n' (GridSample): input 0 (X) has rank 5, want 4"},
        {"Pad", "a,p3", NULL, NULL, 0,
         "node 'n' (Pad): input 1 (pads) has rank 3, want [2 * rank] or [1, 2 * rank]"},
        {"Pad", "a,p6", NULL, NULL, 0, "node 'n' (Pad): 'pads' needs 4 entries, got 6"},
        {"Pad", "a,p6", "mode", "wrap", 0,
         "node 'n' (Pad): attr 'mode' is 'wrap' (constant, reflect or edge)"},
        {"CropAndResize", "img,a,bi,cs", "mode", "cubic", 0,
         "node 'n' (CropAndResize): attr 'mode' is 'cubic' (bilinear or nearest)"},
        {"CropAndResize", "img,a,bi,cs", NULL, NULL, 0,
         "node 'n' (CropAndResize): input 1 (rois) is not [num_rois, 4]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){4, 3}, NULL);
        ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){5, 3}, NULL);
        ob_input(m, "c", OB_FLOAT, 2, (int64_t[]){5, 2}, NULL);
        ob_input(m, "v", OB_FLOAT, 5, (int64_t[]){1, 2, 3, 4, 5}, NULL);
        ob_input(m, "g", OB_FLOAT, 5, (int64_t[]){1, 2, 3, 4, 3}, NULL);
        ob_input(m, "img", OB_FLOAT, 4, (int64_t[]){1, 2, 8, 8}, NULL);
        ob_init_raw(m, "ax", OB_INT32, 0, NULL, (const int32_t[]){3}, 4);
        ob_init_i64(m, "p3", 3, (int64_t[]){1, 1, 4}, (int64_t[]){0, 0, 0, 0});
        ob_init_i64(m, "p6", 1, (int64_t[]){6}, (int64_t[]){0, 0, 0, 0, 0, 0});
        ob_init_raw(m, "bi", OB_INT32, 1, (int64_t[]){4}, (const int32_t[]){0, 0, 0, 0}, 16);
        ob_init_raw(m, "cs", OB_INT32, 1, (int64_t[]){2}, (const int32_t[]){2, 2}, 8);
        Onnx__NodeProto *n = oc_ms_node(m, cases[i].op, "n", cases[i].in, "y");
        if (cases[i].attr && cases[i].sval) {
            ob_attr_s(m, n, cases[i].attr, cases[i].sval);
        } else if (cases[i].attr) {
            ob_attr_i(m, n, cases[i].attr, cases[i].ival);
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].err);
    }
}

/* MatMulBnb4: B's packed bytes and absmax's scales are checked against K *
 * N; quant_type must be 0 or 1. */
static void test_bnb4_bad(void **state) {
    (void)state;
    static const struct {
        int64_t nb, na, qt;
        const char *err;
    } cases[] = {
        {255, 8, 1, "node 'q' (MatMulBnb4): input 1 (B), (N * K + 1) / 2 packed bytes"},
        {256, 9, 1, "node 'q' (MatMulBnb4): input 2 (absmax), ceil(N * K / block_size) scales"},
        {256, 8, 2, "node 'q' (MatMulBnb4): attr 'quant_type' is 2 (0 FP4, 1 NF4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 32}, NULL);
        ob_init_raw(m, "b", OB_UINT8, 1, (int64_t[]){cases[i].nb}, NULL, 0);
        ob_init_f(m, "am", 1, (int64_t[]){cases[i].na}, true);
        Onnx__NodeProto *n = oc_ms_node(m, "MatMulBnb4", "q", "a,b,am", "y");
        ob_attr_i(m, n, "K", 32);
        ob_attr_i(m, n, "N", 16);
        ob_attr_i(m, n, "block_size", 64);
        ob_attr_i(m, n, "quant_type", cases[i].qt);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].err);
    }
}

/* The integer element-wise ops (ONNX Runtime has no CPU kernel for them):
 *   MulInteger a [2,3] uint8 - 3, b [3] uint8 - 1: [2,3] int32, int_ops 6
 *   (multiplies) + 6 + 3 (zero points) = 15, 0 FLOPs; without zero points
 *   the same count (absent ones are 0 and still subtracted);
 *   ReduceSumInteger [2,3,4] int8 axes (1) keepdims 1: [2,1,4] int32,
 *   int_ops 24 - 8 = 16; keepdims 0 over axes (0,2): [3], 24 - 3 = 21.
 * MaxpoolWithMask x [1,2,6,6], kernel 3x3, strides 2, pads 1: [1,2,3,3],
 * MaxPool's 9 * 18 = 162 FLOPs. NGramRepeatBlock ids [2,5], scores [2,6]:
 * [2,6], 0; ids of batch 3 fail naming the dim. */
static void test_integer_and_pool(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "a", OB_UINT8, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "b", OB_UINT8, 1, (int64_t[]){3}, NULL);
    ob_init_raw(m, "az", OB_UINT8, 0, NULL, (const uint8_t[]){3}, 1);
    ob_init_raw(m, "bz", OB_UINT8, 0, NULL, (const uint8_t[]){1}, 1);
    ob_input(m, "r", OB_INT8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 6, 6}, NULL);
    ob_input(m, "mask", OB_INT32, 4, (int64_t[]){1, 2, 6, 6}, NULL);
    ob_input(m, "ids", OB_INT64, 2, (int64_t[]){2, 5}, NULL);
    ob_input(m, "sc", OB_FLOAT, 2, (int64_t[]){2, 6}, NULL);
    oc_ms_node(m, "MulInteger", "mi", "a,az,b,bz", "y1");
    oc_ms_node(m, "MulInteger", "mi0", "a,,b", "y2");
    Onnx__NodeProto *n = oc_ms_node(m, "ReduceSumInteger", "rk", "r", "y3");
    ob_attr_ints(m, n, "axes", 1, (int64_t[]){1});
    ob_attr_i(m, n, "keepdims", 1);
    n = oc_ms_node(m, "ReduceSumInteger", "rn", "r", "y4");
    ob_attr_ints(m, n, "axes", 2, (int64_t[]){0, 2});
    ob_attr_i(m, n, "keepdims", 0);
    n = oc_ms_node(m, "MaxpoolWithMask", "mp", "x,mask", "y5");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_i(m, oc_ms_node(m, "NGramRepeatBlock", "ng", "ids,sc", "y6"), "ngram_size", 2);
    ob_outputs(m, "y", 6);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape, *dtype;
        int64_t flops, int_ops;
    } want[] = {
        {"mi", "[2,3]", "int32", 0, 15},      {"mi0", "[2,3]", "int32", 0, 15},
        {"rk", "[2,1,4]", "int32", 0, 16},    {"rn", "[3]", "int32", 0, 21},
        {"mp", "[1,2,3,3]", "float", 162, 0}, {"ng", "[2,6]", "float", 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        assert_string_equal(a->outputs[0].dtype, want[i].dtype);
        oc_assert_int(a, want[i].flops, want[i].int_ops);
    }
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    ob_input(m, "ids", OB_INT64, 2, (int64_t[]){3, 5}, NULL);
    ob_input(m, "sc", OB_FLOAT, 2, (int64_t[]){2, 6}, NULL);
    ob_attr_i(m, oc_ms_node(m, "NGramRepeatBlock", "ng", "ids,sc", "y"), "ngram_size", 2);
    ob_output(m, "y");
    oc_expect_error(m, "node 'ng' (NGramRepeatBlock): inputs input_ids' and scores' dim 0");
    m = oc_ms_model();
    ob_input(m, "r", OB_INT8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_attr_i(m, oc_ms_node(m, "ReduceSumInteger", "rs", "r", "y"), "keepdims", 1);
    ob_output(m, "y");
    oc_expect_error(m, "node 'rs' (ReduceSumInteger): missing required attr 'axes'");
}

/* QEmbedLayerNormalization, ids [2,3] (6 rows), tables of hidden 8 (E =
 * 48): EmbedLayerNormalization's 9 * 48 + 2 * 6 + 6 (mask) = 450 FLOPs with
 * the segment table, plus the dequantisation of word, position and segment
 * per element and of gamma and beta: 3 * 48 + 2 * 8 = 160 FLOPs and 160
 * int_ops: 610 FLOPs. Without segment and mask: 8 * 48 + 12 = 396, + 2 * 48
 * + 16 = 112: 508 FLOPs, 112 int_ops. Output float (the scales' type),
 * mask_index int32 [2]. */
static void test_qembed_ln(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "ids", OB_INT32, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "seg", OB_INT32, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "mask", OB_INT32, 2, (int64_t[]){2, 3}, NULL);
    ob_init_raw(m, "we", OB_UINT8, 2, (int64_t[]){10, 8}, NULL, 0);
    ob_init_raw(m, "pe", OB_UINT8, 2, (int64_t[]){6, 8}, NULL, 0);
    ob_init_raw(m, "se", OB_UINT8, 2, (int64_t[]){2, 8}, NULL, 0);
    ob_init_raw(m, "g", OB_UINT8, 1, (int64_t[]){8}, NULL, 0);
    ob_init_raw(m, "b", OB_UINT8, 1, (int64_t[]){8}, NULL, 0);
    ob_init_f(m, "sc", 0, NULL, false);
    ob_init_raw(m, "zp", OB_UINT8, 0, NULL, (const uint8_t[]){128}, 1);
    oc_ms_node(m, "QEmbedLayerNormalization", "full",
               "ids,seg,we,pe,se,g,b,mask,sc,sc,sc,sc,sc,zp,zp,zp,zp,zp", "y1,mi1");
    oc_ms_node(m, "QEmbedLayerNormalization", "noseg", "ids,,we,pe,,g,b,,sc,sc,,sc,sc,zp,zp,,zp,zp",
               "y2,mi2");
    ob_output(m, "y1");
    ob_output(m, "mi1");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "full");
    assert_string_equal(a->outputs[0].shape, "[2,3,8]");
    assert_string_equal(a->outputs[0].dtype, "float");
    assert_string_equal(a->outputs[1].shape, "[2]");
    assert_string_equal(a->outputs[1].dtype, "int32");
    oc_assert_int(a, 610, 160);
    oc_assert_int(oc_node(r, "noseg"), 508, 112);
    fl_report_free(r);
    ob_free(m);
}

/* DynamicQuantizeLSTM (onnxops/nn.c's rule), x [3,2,5] (seq 3, batch 2,
 * input 5), hidden 4, forward: LSTM's MACs 3 * 2 * 4 * 4 * 9 = 864, 24 h
 * elements, E(X) 30: int_ops 2 * 864 + 2 * (30 + 24) + 5 * 16 + 3 * 4 * 16 =
 * 2108; FLOPs 4 * 54 + 29 * 24 = 912. Bidirectional x [4,1,3], hidden 2:
 * MACs 320, 16 h elements, E(X) 24 over both directions: int_ops 640 + 80 +
 * 2 * (24 + 64) = 896, FLOPs 160 + 464 = 624. Y [3,1,2,4] and [4,2,1,2]. W
 * in LSTM's own layout [1,16,5] fails naming W. */
static void test_dq_lstm(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){3, 2, 5}, NULL);
    ob_input(m, "x2", OB_FLOAT, 3, (int64_t[]){4, 1, 3}, NULL);
    ob_init_raw(m, "w", OB_INT8, 3, (int64_t[]){1, 5, 16}, NULL, 0);
    ob_init_raw(m, "r", OB_INT8, 3, (int64_t[]){1, 4, 16}, NULL, 0);
    ob_init_raw(m, "w2", OB_INT8, 3, (int64_t[]){2, 3, 8}, NULL, 0);
    ob_init_raw(m, "r2", OB_INT8, 3, (int64_t[]){2, 2, 8}, NULL, 0);
    ob_init_f(m, "sc", 1, (int64_t[]){1}, false);
    ob_init_raw(m, "zp", OB_INT8, 1, (int64_t[]){1}, NULL, 0);
    ob_attr_i(m, oc_ms_node(m, "DynamicQuantizeLSTM", "fwd", "x,w,r,,,,,,sc,zp,sc,zp", "y1,h1"),
              "hidden_size", 4);
    Onnx__NodeProto *n =
        oc_ms_node(m, "DynamicQuantizeLSTM", "bi", "x2,w2,r2,,,,,,sc,zp,sc,zp", "y2,h2,c2");
    ob_attr_i(m, n, "hidden_size", 2);
    ob_attr_s(m, n, "direction", "bidirectional");
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "fwd");
    assert_string_equal(a->outputs[0].shape, "[3,1,2,4]");
    assert_string_equal(a->outputs[1].shape, "[1,2,4]");
    oc_assert_int(a, 912, 2108);
    assert_int_equal(a->macs.value, 0);
    a = oc_node(r, "bi");
    assert_string_equal(a->outputs[0].shape, "[4,2,1,2]");
    assert_string_equal(a->outputs[2].shape, "[2,1,2]");
    oc_assert_int(a, 624, 896);
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){3, 2, 5}, NULL);
    ob_init_raw(m, "w", OB_INT8, 3, (int64_t[]){1, 16, 5}, NULL, 0);
    ob_init_raw(m, "r", OB_INT8, 3, (int64_t[]){1, 4, 16}, NULL, 0);
    ob_init_f(m, "sc", 1, (int64_t[]){1}, false);
    ob_init_raw(m, "zp", OB_INT8, 1, (int64_t[]){1}, NULL, 0);
    ob_attr_i(m, oc_ms_node(m, "DynamicQuantizeLSTM", "q", "x,w,r,,,,,,sc,zp,sc,zp", "y"),
              "hidden_size", 4);
    ob_output(m, "y");
    oc_expect_error(m, "node 'q' (DynamicQuantizeLSTM): input 1 (W) [dirs, input, 4 * hidden]");
}

/* ConvTransposeWithDynamicPads: ConvTranspose with pads from input 2.
 * x [1,2,5,5], W [2,3,3,3], B [3], strides 2, output_padding (1,0):
 *   Pads (1,0, 1,2): H (5-1)*2 + 1 + 3 - 1 - 1 = 10, W 8 + 0 + 3 - 0 - 2 = 9:
 *     [1,3,10,9]; MACs E(x) 50 * 3 * 9 = 1350, FLOPs 2 * 1350 + bias 270 =
 *     2970;
 *   Pads absent: [1,3,12,11], FLOPs 2700 + 396 = 3096;
 *   Pads a graph input (values unknown): [1,3,?,?], counts incomplete.
 * Bad: Pads of 3 values, a negative pad, int32 Pads, attr pads. */
static void test_conv_transpose_dyn_pads(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 5, 5}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){2, 3, 3, 3}, false);
    ob_init_f(m, "b", 1, (int64_t[]){3}, false);
    ob_init_i64(m, "p", 1, (int64_t[]){4}, (int64_t[]){1, 0, 1, 2});
    ob_input(m, "pin", OB_INT64, 1, (int64_t[]){4}, NULL);
    static const char *const ins[] = {"x,w,p,b", "x,w,,b", "x,w,pin,b"};
    for (int i = 0; i < 3; i++) {
        char name[8], out[8];
        snprintf(name, sizeof name, "ct%d", i + 1);
        snprintf(out, sizeof out, "y%d", i + 1);
        Onnx__NodeProto *n = oc_ms_node(m, "ConvTransposeWithDynamicPads", name, ins[i], out);
        ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
        ob_attr_ints(m, n, "output_padding", 2, (int64_t[]){1, 0});
    }
    ob_outputs(m, "y", 3);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "ct1");
    assert_string_equal(a->outputs[0].shape, "[1,3,10,9]");
    oc_assert_cost(a, 2970, 1350);
    a = oc_node(r, "ct2");
    assert_string_equal(a->outputs[0].shape, "[1,3,12,11]");
    oc_assert_cost(a, 3096, 1350);
    a = oc_node(r, "ct3");
    assert_string_equal(a->outputs[0].shape, "[1,3,?,?]");
    assert_true(a->incomplete); /* the bias's count needs the output's dims */
    fl_report_free(r);
    ob_free(m);

    static const struct {
        const char *pads_name;
        int64_t n, v0;
        const char *attr, *err;
    } bad[] = {
        {"p", 3, 1, NULL,
         "input 2 (Pads) has 3 values, want 4 (begins and ends of the spatial dims of X [N, C, "
         "...] of rank 4)"},
        {"p", 4, -1, NULL, "input 2 (Pads) value 0 is -1 (0 .. 2^31 - 1)"},
        {"p32", 4, 1, NULL, "input 2 (Pads) is int32, want int64"},
        {"p", 4, 1, "pads",
         "attr 'pads' is not one of ConvTransposeWithDynamicPads' (pads come from input 2)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 5, 5}, NULL);
        ob_init_f(m, "w", 4, (int64_t[]){2, 3, 3, 3}, false);
        int64_t v[4] = {bad[i].v0, 0, 1, 2};
        if (bad[i].pads_name[1]) {
            ob_init_raw(m, "p32", OB_INT32, 1, (int64_t[]){4}, (int32_t[]){1, 0, 1, 2}, 16);
        } else {
            ob_init_i64(m, "p", 1, (int64_t[]){bad[i].n}, v);
        }
        char in[16];
        snprintf(in, sizeof in, "x,w,%s", bad[i].pads_name);
        Onnx__NodeProto *n = oc_ms_node(m, "ConvTransposeWithDynamicPads", "ct", in, "y");
        if (bad[i].attr) {
            ob_attr_ints(m, n, bad[i].attr, 4, (int64_t[]){0, 0, 0, 0});
        }
        ob_output(m, "y");
        char want[256];
        snprintf(want, sizeof want, "node 'ct' (ConvTransposeWithDynamicPads): %s", bad[i].err);
        oc_expect_error(m, want);
    }
}

/* Extreme values fail cleanly, with nothing computed out of range (the
 * suite also runs under UBSan): Range from INT64_MIN to INT64_MAX without
 * delta; float pads; MatMulBnb4 with a block of INT64_MAX (one absmax
 * scale, fine); DynamicQuantizeLSTM whose 4 * hidden_size overflows;
 * NhwcConv and ai.onnx Conv with group INT64_MAX; DeformConv with
 * offset_group INT64_MAX over unknown channels; Crop with a border near
 * INT64_MAX; pads of 2^62 at both ends of a dim, whose sum
 * overflows: the contrib Pad ([1, 2r] pads), ai.onnx Pad and Conv. */
static void test_extremes(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_init_i64(m, "s", 0, NULL, (int64_t[]){INT64_MIN});
    ob_init_i64(m, "l", 0, NULL, (int64_t[]){INT64_MAX});
    oc_ms_node(m, "Range", "rg", "s,l", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'rg' (Range): start -9223372036854775808, limit 9223372036854775807: "
                       "the range is too long");

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_init_f(m, "p", 1, (int64_t[]){4}, false);
    oc_ms_node(m, "Pad", "pad", "x,p", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'pad' (Pad): input 1 (pads) is float, want int64");

    m = oc_ms_model();
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 32}, NULL);
    ob_init_raw(m, "b", OB_UINT8, 1, (int64_t[]){256}, NULL, 0);
    ob_init_f(m, "am", 1, (int64_t[]){1}, true);
    Onnx__NodeProto *n = oc_ms_node(m, "MatMulBnb4", "q", "a,b,am", "y");
    ob_attr_i(m, n, "K", 32);
    ob_attr_i(m, n, "N", 16);
    ob_attr_i(m, n, "block_size", INT64_MAX);
    ob_attr_i(m, n, "quant_type", 0);
    ob_output(m, "y");
    oc_expect_shape(m, "q", "[3,16]");

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){3, 2, 5}, NULL);
    ob_init_raw(m, "w", OB_INT8, 3, (int64_t[]){1, 5, 16}, NULL, 0);
    ob_init_raw(m, "r", OB_INT8, 3, (int64_t[]){1, 4, 16}, NULL, 0);
    ob_init_f(m, "sc", 1, (int64_t[]){1}, false);
    ob_init_raw(m, "zp", OB_INT8, 1, (int64_t[]){1}, NULL, 0);
    ob_attr_i(m, oc_ms_node(m, "DynamicQuantizeLSTM", "q", "x,w,r,,,,,,sc,zp,sc,zp", "y"),
              "hidden_size", INT64_MAX / 2);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'q' (DynamicQuantizeLSTM): product overflows 64-bit integers");

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 8, 4}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){6, 3, 3, 4}, false);
    ob_attr_i(m, oc_ms_node(m, "NhwcConv", "c", "x,w", "y"), "group", INT64_MAX);
    ob_output(m, "y");
    oc_expect_error(m, "node 'c' (NhwcConv): ");

    m = ob_new(19); /* ai.onnx Conv and DeformConv too */
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 8, 8}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){6, 4, 3, 3}, false);
    ob_attr_i(m, ob_node(m, "Conv", "c", "x,w", "y"), "group", INT64_MAX);
    ob_output(m, "y");
    oc_expect_error(m, "node 'c' (Conv): input 'X' has 4 channels but 'W' expects 4 x group "
                       "9223372036854775807");
    m = ob_new(19);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, -1, 8, 8},
             (const char *[]){NULL, "c", NULL, NULL});
    ob_input(m, "off", OB_FLOAT, 4, (int64_t[]){1, 18, 6, 6}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){6, 4, 3, 3}, false);
    ob_attr_i(m, ob_node(m, "DeformConv", "dc", "x,w,off", "y"), "offset_group", INT64_MAX);
    ob_output(m, "y");
    oc_expect_error(m, "node 'dc' (DeformConv): attr 'offset_group' 9223372036854775807 is out of "
                       "range");

    m = ob_new(7);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 10, 12}, NULL);
    ob_attr_ints(m, ob_node(m, "Crop", "crop", "x", "y"), "border", 4,
                 (int64_t[]){0, INT64_MAX - 1, 0, INT64_MAX - 1});
    ob_output(m, "y");
    oc_expect_error(m, "node 'crop' (Crop): attr 'border' value 1 is 9223372036854775806, out of "
                       "range");

    static const int64_t big[] = {0, INT64_MAX / 2 + 1, 0, INT64_MAX / 2 + 1};
    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_init_i64(m, "p", 2, (int64_t[]){1, 4}, big);
    oc_ms_node(m, "Pad", "pad", "x,p", "y");
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'pad' (Pad): dimension sum overflows 64-bit integers");
    m = ob_new(19);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_init_i64(m, "p", 1, (int64_t[]){4}, big);
    ob_node(m, "Pad", "pad", "x,p", "y");
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'pad' (Pad): dimension sum overflows 64-bit integers");
    m = ob_new(19);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 8, 8}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){6, 4, 3, 3}, false);
    ob_attr_ints(m, ob_node(m, "Conv", "c", "x,w", "y"), "pads", 4, big);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'c' (Conv): pads 4611686018427387904 + 4611686018427387904 - "
                          "window 3 overflows 64-bit integers");
}

/* MurmurHash3, WordConvEmbedding and DynamicTimeWarping (misc.c's rules):
 *   MurmurHash3 x int32 [3,4]: [3,4] uint32 (positive defaults to 1), 1 a
 *   key: 12 FLOPs; positive 0: int32, 12; string keys [5]: uint32, 5;
 *   WordConvEmbedding Sequence [5,6] (L 6), W [4,1,3,2] (M 4, k 3, E 2),
 *   B [4], C [10,2]: Y [5,4] float; U = 6 - 3 + 1 = 4 windows a word, 5 *
 *   4 = 20 GEMM rows, 20 * 4 = 80 outputs before the pool: MACs 80 * 3 * 2
 *   = 480, FLOPs 2 * 480 + 3 * 80 = 1200;
 *   DynamicTimeWarping [4,6]: [2,x] int32, x unknown (the values decide it;
 *   the node's bytes stay unknown), 3 * 24 = 72 FLOPs;
 *   [1,3,5]: 3 * 15 = 45; [1,7] (one row): [2,7], 21; [1,5,1] (one
 *   column): [2,5], 15. */
static void test_hash_wordconv_dtw(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "k", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "ks", 8 /* string */, 1, (int64_t[]){5}, NULL);
    ob_input(m, "seq", OB_INT32, 2, (int64_t[]){5, 6}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){4, 1, 3, 2}, false);
    ob_init_f(m, "b", 1, (int64_t[]){4}, false);
    ob_init_f(m, "c", 2, (int64_t[]){10, 2}, false);
    ob_input(m, "d1", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
    ob_input(m, "d2", OB_FLOAT, 3, (int64_t[]){1, 3, 5}, NULL);
    ob_input(m, "d3", OB_FLOAT, 2, (int64_t[]){1, 7}, NULL);
    ob_input(m, "d4", OB_FLOAT, 3, (int64_t[]){1, 5, 1}, NULL);
    oc_ms_node(m, "MurmurHash3", "mh", "k", "y1");
    Onnx__NodeProto *n = oc_ms_node(m, "MurmurHash3", "mhs", "k", "y2");
    ob_attr_i(m, n, "positive", 0);
    ob_attr_i(m, n, "seed", 42);
    oc_ms_node(m, "MurmurHash3", "mhstr", "ks", "y3");
    n = oc_ms_node(m, "WordConvEmbedding", "wce", "seq,w,b,c", "y4");
    ob_attr_i(m, n, "embedding_size", 4);
    ob_attr_i(m, n, "conv_window_size", 3);
    ob_attr_i(m, n, "char_embedding_size", 2);
    oc_ms_node(m, "DynamicTimeWarping", "dtw", "d1", "y5");
    oc_ms_node(m, "DynamicTimeWarping", "dtw3", "d2", "y6");
    oc_ms_node(m, "DynamicTimeWarping", "dtwr", "d3", "y7");
    oc_ms_node(m, "DynamicTimeWarping", "dtwc", "d4", "y8");
    ob_outputs(m, "y", 8);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *shape, *dtype;
        int64_t flops, macs;
    } want[] = {
        {"mh", "[3,4]", "uint32", 12, 0},  {"mhs", "[3,4]", "int32", 12, 0},
        {"mhstr", "[5]", "uint32", 5, 0},  {"wce", "[5,4]", "float", 1200, 480},
        {"dtw", NULL, "int32", 72, 0},     {"dtw3", NULL, "int32", 45, 0},
        {"dtwr", "[2,7]", "int32", 21, 0}, {"dtwc", "[2,5]", "int32", 15, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        if (want[i].shape) {
            assert_string_equal(a->outputs[0].shape, want[i].shape);
        } else {
            /* [2,x]: the path's length only the values decide */
            assert_int_equal(a->outputs[0].rank, 2);
            assert_int_equal(strncmp(a->outputs[0].shape, "[2,", 3), 0);
            assert_null(strpbrk(a->outputs[0].shape + 3, "0123456789"));
        }
        assert_string_equal(a->outputs[0].dtype, want[i].dtype);
        if (want[i].shape) {
            oc_assert_cost(a, want[i].flops, want[i].macs);
        } else {
            /* exact counts; only the output's bytes are unknown */
            assert_true(a->has_rule && a->flops.known && a->macs.known && !a->bytes.known);
            assert_int_equal(a->flops.value, want[i].flops);
            assert_int_equal(a->macs.value, 0);
        }
    }
    fl_report_free(r);
    ob_free(m);

    /* Symbolic: WordConvEmbedding Sequence [s,6]: Y [s,4], 16 * s outputs
     * before the pool, 96 * s MACs, 192 * s + 48 * s = 240 * s FLOPs;
     * DynamicTimeWarping [m,n]: 3 * m * n. */
    m = oc_ms_model();
    ob_input(m, "seq", OB_INT32, 2, (int64_t[]){-1, 6}, (const char *[]){"s", NULL});
    ob_init_f(m, "w", 4, (int64_t[]){4, 1, 3, 2}, false);
    ob_init_f(m, "b", 1, (int64_t[]){4}, false);
    ob_init_f(m, "c", 2, (int64_t[]){10, 2}, false);
    ob_input(m, "d", OB_FLOAT, 2, (int64_t[]){-1, -1}, (const char *[]){"m", "n"});
    oc_ms_node(m, "WordConvEmbedding", "wce", "seq,w,b,c", "y1");
    oc_ms_node(m, "DynamicTimeWarping", "dtw", "d", "y2");
    ob_outputs(m, "y", 2);
    r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "wce");
    assert_string_equal(a->outputs[0].shape, "[s,4]");
    assert_string_equal(a->flops.text, "240*s");
    assert_string_equal(a->macs.text, "96*s");
    assert_string_equal(oc_node(r, "dtw")->flops.text, "3*m*n");
    fl_report_free(r);
    ob_free(m);
}

/* Bad MurmurHash3, WordConvEmbedding and DynamicTimeWarping nodes. */
static void test_hash_wordconv_dtw_bad(void **state) {
    (void)state;
    static const struct {
        const char *op, *in, *attr;
        int64_t ival;
        const char *err;
    } cases[] = {
        {"MurmurHash3", "bo", NULL, 0,
         "node 'n' (MurmurHash3): input 0 (X) is bool, want int32, uint32, int64, uint64, "
         "float, double or string"},
        {"WordConvEmbedding", "s3,w,b,c", NULL, 0,
         "node 'n' (WordConvEmbedding): input 0 (Sequence) has rank 3, want 2"},
        {"WordConvEmbedding", "s64,w,b,c", NULL, 0,
         "node 'n' (WordConvEmbedding): input 0 (Sequence) is int64, want int32"},
        {"WordConvEmbedding", "seq,w,b,c3", NULL, 0,
         "node 'n' (WordConvEmbedding): inputs W's dim 3 and C's dim 1 (the character "
         "embedding size)"},
        {"WordConvEmbedding", "seq,w,b5,c", NULL, 0,
         "node 'n' (WordConvEmbedding): inputs W's dim 0 and B's dim 0 (the filters)"},
        {"WordConvEmbedding", "seq,w,b,c", "conv_window_size", 5,
         "node 'n' (WordConvEmbedding): attr 'conv_window_size' is 5, input 1 (W)'s dim 2 is 3"},
        {"WordConvEmbedding", "seq,w,b,c", "char_embedding_size", 3,
         "node 'n' (WordConvEmbedding): attr 'char_embedding_size' is 3, input 3 (C)'s dim 1 "
         "is 2"},
        {"WordConvEmbedding", "short,w,b,c", NULL, 0,
         "node 'n' (WordConvEmbedding): input 0 (Sequence)'s dim 1 (characters a word) is 2, "
         "less than the filter width 3 (input 1 (W)'s dim 2)"},
        {"DynamicTimeWarping", "b", NULL, 0,
         "node 'n' (DynamicTimeWarping): input 0 (input) has rank 1, want 2 or 3"},
        {"DynamicTimeWarping", "d3", NULL, 0,
         "node 'n' (DynamicTimeWarping): input 0 (input)'s dim 0 is 2, want 1 ([1, M, N])"},
        {"DynamicTimeWarping", "seq", NULL, 0,
         "node 'n' (DynamicTimeWarping): input 0 (input) is int32, want float"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "bo", OB_BOOL, 1, (int64_t[]){3}, NULL);
        ob_input(m, "seq", OB_INT32, 2, (int64_t[]){5, 6}, NULL);
        ob_input(m, "short", OB_INT32, 2, (int64_t[]){5, 2}, NULL);
        ob_input(m, "s3", OB_INT32, 3, (int64_t[]){5, 6, 1}, NULL);
        ob_input(m, "s64", OB_INT64, 2, (int64_t[]){5, 6}, NULL);
        ob_init_f(m, "w", 4, (int64_t[]){4, 1, 3, 2}, false);
        ob_init_f(m, "b", 1, (int64_t[]){4}, false);
        ob_init_f(m, "b5", 1, (int64_t[]){5}, false);
        ob_init_f(m, "c", 2, (int64_t[]){10, 2}, false);
        ob_init_f(m, "c3", 2, (int64_t[]){10, 3}, false);
        ob_input(m, "d3", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
        Onnx__NodeProto *n = oc_ms_node(m, cases[i].op, "n", cases[i].in, "y");
        if (cases[i].attr) {
            ob_attr_i(m, n, cases[i].attr, cases[i].ival);
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].err);
    }
}

/* BifurcationDetector, src [6], all int64, 0 FLOPs: without pred, tokens
 * cur's [4] and suffix_match_idx prev's [1]; pred [4]: tokens [x], x (3 +
 * 1 .. 3 + 4) decided by the values, so the node's bytes stay unknown;
 * pred [1]: [2 + 1] = [3]; cur [c] with pred [1]: [c + 1]. */
static void test_bifurcation(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "src", OB_INT64, 1, (int64_t[]){6}, NULL);
    ob_input(m, "cur4", OB_INT64, 1, (int64_t[]){4}, NULL);
    ob_input(m, "cur3", OB_INT64, 1, (int64_t[]){3}, NULL);
    ob_input(m, "cur2", OB_INT64, 1, (int64_t[]){2}, NULL);
    ob_input(m, "curc", OB_INT64, 1, (int64_t[]){-1}, (const char *[]){"c"});
    ob_input(m, "p1", OB_INT64, 1, (int64_t[]){1}, NULL);
    ob_input(m, "p0", OB_INT64, 0, NULL, NULL);
    ob_input(m, "pred4", OB_INT64, 1, (int64_t[]){4}, NULL);
    ob_input(m, "pred1", OB_INT64, 1, (int64_t[]){1}, NULL);
    oc_ms_node(m, "BifurcationDetector", "nopred", "src,cur4,p1", "t1,i1");
    Onnx__NodeProto *n = oc_ms_node(m, "BifurcationDetector", "pred", "src,cur3,p0,pred4", "t2,i2");
    ob_attr_i(m, n, "min_ngram_size", 1);
    ob_attr_i(m, n, "max_ngram_size", 2);
    oc_ms_node(m, "BifurcationDetector", "last", "src,cur2,p0,pred1", "t3,i3");
    oc_ms_node(m, "BifurcationDetector", "sym", "src,curc,p0,pred1", "t4,i4");
    for (int i = 1; i <= 4; i++) {
        char t[8], x[8];
        snprintf(t, sizeof t, "t%d", i);
        snprintf(x, sizeof x, "i%d", i);
        ob_output(m, t);
        ob_output(m, x);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const struct {
        const char *node, *tokens, *idx;
    } want[] = {{"nopred", "[4]", "[1]"}, {"pred", NULL, "[]"}, {"last", "[3]", "[]"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].dtype, "int64");
        assert_string_equal(a->outputs[1].dtype, "int64");
        assert_string_equal(a->outputs[1].shape, want[i].idx);
        if (want[i].tokens) {
            assert_string_equal(a->outputs[0].shape, want[i].tokens);
            oc_assert_cost(a, 0, 0);
        } else {
            assert_int_equal(a->outputs[0].rank, 1);
            assert_null(strpbrk(a->outputs[0].shape, "0123456789"));
            assert_true(a->has_rule && a->flops.known && !a->bytes.known);
            assert_int_equal(a->flops.value, 0);
        }
    }
    assert_string_equal(oc_node(r, "sym")->outputs[0].shape, "[c + 1]");
    fl_report_free(r);
    ob_free(m);
}

/* Bad BifurcationDetector nodes. */
static void test_bifurcation_bad(void **state) {
    (void)state;
    static const struct {
        const char *in, *attr;
        int64_t ival;
        const char *err;
    } cases[] = {
        {"src,cur,p", "min_ngram_size", 0,
         "node 'n' (BifurcationDetector): attr 'min_ngram_size' is 0, want >= 1"},
        {"src,cur,p", "max_ngram_size", 0,
         "node 'n' (BifurcationDetector): attr 'max_ngram_size' is 0, want >= 1"},
        {"src,cur,p", "min_ngram_size", 4,
         "node 'n' (BifurcationDetector): attr 'max_ngram_size' is 3, less than "
         "min_ngram_size 4"},
        {"src,m2,p", NULL, 0,
         "node 'n' (BifurcationDetector): input 1 (cur_tokens) has rank 2, want 1"},
        {"s32,cur,p", NULL, 0,
         "node 'n' (BifurcationDetector): input 0 (src_tokens) is int32, want int64"},
        {"src,cur,cur", NULL, 0,
         "node 'n' (BifurcationDetector): input 2 (prev_suffix_match_idx) has 3 elements, "
         "want 1"},
        {"src,cur,p,m2", NULL, 0,
         "node 'n' (BifurcationDetector): input 3 (pred_tokens) has rank 2, want 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "src", OB_INT64, 1, (int64_t[]){6}, NULL);
        ob_input(m, "s32", OB_INT32, 1, (int64_t[]){6}, NULL);
        ob_input(m, "cur", OB_INT64, 1, (int64_t[]){3}, NULL);
        ob_input(m, "m2", OB_INT64, 2, (int64_t[]){1, 3}, NULL);
        ob_input(m, "p", OB_INT64, 0, NULL, NULL);
        Onnx__NodeProto *n = oc_ms_node(m, "BifurcationDetector", "n", cases[i].in, "t,x");
        if (cases[i].attr) {
            ob_attr_i(m, n, cases[i].attr, cases[i].ival);
        }
        ob_output(m, "t");
        ob_output(m, "x");
        oc_expect_error(m, cases[i].err);
    }
}

/* Tokenizer, string X [2,3] and [4]: Y [2,3,T] and [4,T], T (the most
 * tokens a string gives) unknown, 0 FLOPs; bad nodes fail naming the input
 * or the missing attr. */
static void test_tokenizer(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", 8 /* string */, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "v", 8, 1, (int64_t[]){4}, NULL);
    static const char *const sep[] = {" ", ";"};
    for (int i = 0; i < 2; i++) {
        Onnx__NodeProto *n =
            oc_ms_node(m, "Tokenizer", i ? "tv" : "tx", i ? "v" : "x", i ? "y2" : "y1");
        ob_attr_i(m, n, "mark", i);
        ob_attr_s(m, n, "pad_value", "#");
        ob_attr_i(m, n, "mincharnum", 1);
        ob_attr_strings(m, n, "separators", 2, sep);
    }
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    static const char *const node[] = {"tx", "tv"}, *const pre[] = {"[2,3,", "[4,"};
    for (int i = 0; i < 2; i++) {
        const fl_report_node *a = oc_node(r, node[i]);
        assert_string_equal(a->outputs[0].dtype, "string");
        assert_int_equal(a->outputs[0].rank, 3 - i);
        assert_int_equal(strncmp(a->outputs[0].shape, pre[i], strlen(pre[i])), 0);
        assert_null(strpbrk(a->outputs[0].shape + strlen(pre[i]), "0123456789"));
        assert_true(a->has_rule && a->flops.known && a->flops.value == 0);
    }
    fl_report_free(r);
    ob_free(m);

    static const struct {
        const char *in;
        bool mark;
        const char *err;
    } cases[] = {
        {"x", false, "node 'n' (Tokenizer): missing required attr 'mark'"},
        {"f", true, "node 'n' (Tokenizer): input 0 (X) is float, want string"},
        {"r3", true, "node 'n' (Tokenizer): input 0 (X) has rank 3, want 1 or 2 ([C] or [N, C])"},
        {"z", true, "node 'n' (Tokenizer): input 0 (X)'s dim 1 is 0, want >= 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        m = oc_ms_model();
        ob_input(m, "x", 8, 1, (int64_t[]){4}, NULL);
        ob_input(m, "f", OB_FLOAT, 1, (int64_t[]){4}, NULL);
        ob_input(m, "r3", 8, 3, (int64_t[]){1, 2, 3}, NULL);
        ob_input(m, "z", 8, 2, (int64_t[]){2, 0}, NULL);
        Onnx__NodeProto *n = oc_ms_node(m, "Tokenizer", "n", cases[i].in, "y");
        if (cases[i].mark) {
            ob_attr_i(m, n, "mark", 0);
        }
        ob_attr_s(m, n, "pad_value", "#");
        ob_attr_i(m, n, "mincharnum", 1);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].err);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_symbolic),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_bnb4_bad),
        cmocka_unit_test(test_integer_and_pool),
        cmocka_unit_test(test_qembed_ln),
        cmocka_unit_test(test_dq_lstm),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_conv_transpose_dyn_pads),
        cmocka_unit_test(test_hash_wordconv_dtw),
        cmocka_unit_test(test_hash_wordconv_dtw_bad),
        cmocka_unit_test(test_bifurcation),
        cmocka_unit_test(test_bifurcation_bad),
        cmocka_unit_test(test_tokenizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
