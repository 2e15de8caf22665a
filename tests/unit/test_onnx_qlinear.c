/*
 * test_onnx_qlinear.c - ONNX Runtime's QOperator-format contrib ops
 * (src/ops/onnxms/qlinear.c): QLinearAdd/Mul/Sigmoid/LeakyRelu/Softmax,
 * the quantized pools, QLinearReduceMean, QLinearConcat, QLinearWhere,
 * DynamicQuantizeMatMul, MatMulIntegerToFloat, QOrderedGelu,
 * QOrderedLayerNormalization and QOrderedAttention, the NHWC QLinearConv and
 * NhwcMaxPool. Shapes from ORT's contrib op schemas; counts
 * derived by hand from the rules in qlinear.c's header: a dequantization
 * (x - zp) * s is 1 int_op + 1 FLOP per operand element, a quantization
 * round(y / s) + zp 2 FLOPs + 1 int_op per output element, the float op in
 * between as its onnx twin counts it.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3 };

static void scalars(ob_model *m) {
    ob_init_f(m, "s", 0, NULL, false);
    ob_input(m, "zu", U8, 1, (int64_t[]){1}, NULL);
    ob_input(m, "zi", I8, 1, (int64_t[]){1}, NULL);
}

static void assert_out(const fl_report_node *n, const char *shape, const char *dtype) {
    assert_string_equal(n->outputs[0].shape, shape);
    assert_string_equal(n->outputs[0].dtype, dtype);
}

/* QLinearAdd A uint8 [2,3,4] + B uint8 [4] -> C uint8 [2,3,4]: E(A) 24,
 * E(B) 4, E(C) 24.
 *   int_ops = 24 + 4 (zero points off) + 24 (C's on) = 52;
 *   FLOPs = 24 + 4 (scales) + 24 (add) + 24 (round) = 76.
 *   Bytes: A 24 + B 4 + 3 scales 12 + 3 zero points 3 read, C 24: 67.
 * QLinearMul, same operands: int_ops = 28 + 24 (integer product) + 24 = 76;
 *   FLOPs = 24 (times sA * sB / sC) + 24 (round) = 48.
 * A zero point left out (absent) is still subtracted: same counts. */
static void test_qlinear_binary(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", U8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "b", U8, 1, (int64_t[]){4}, NULL);
    ob_input(m, "c", U8, 2, (int64_t[]){3, 5}, NULL);
    oc_ms_node(m, "QLinearAdd", "qadd", "a,s,zu,b,s,zu,s,zu", "y1");
    oc_ms_node(m, "QLinearMul", "qmul", "a,s,zu,b,s,zu,s,zu", "y2");
    oc_ms_node(m, "QLinearAdd", "qadd_nozp", "a,s,,b,s,,s", "y3");
    ob_outputs(m, "y", 3);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *add = oc_node(r, "qadd");
    assert_out(add, "[2,3,4]", "uint8");
    oc_assert_int(add, 76, 52);
    assert_true(add->bytes.known);
    assert_int_equal(add->bytes.value, 24 + 4 + 12 + 3 + 24);
    const fl_report_node *mul = oc_node(r, "qmul");
    assert_out(mul, "[2,3,4]", "uint8");
    oc_assert_int(mul, 48, 76);
    oc_assert_int(oc_node(r, "qadd_nozp"), 76, 52);
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    /* Operands that do not broadcast fail naming the node. */
    oc_ms_node(m, "QLinearAdd", "qadd_bad", "a,s,zu,c,s,zu,s,zu", "y4");
    ob_output(m, "y4");
    oc_expect_error(m, "node 'qadd_bad'");
}

/* X int8 [2,8], E = 16. QLinearSigmoid and QLinearLeakyRelu: int_ops 2 * 16
 * = 32, FLOPs (1 + 1 + 2) * 16 = 64. QLinearSoftmax (opset 13, axis -1):
 * FLOPs (1 + 5 + 2) * 16 = 128, int_ops 32. QOrderedGelu X int8 [2,4,8]
 * (E 64): FLOPs 4 * 64 = 256, 0 int_ops. */
static void test_qlinear_unary(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 2, (int64_t[]){2, 8}, NULL);
    ob_input(m, "x3", I8, 3, (int64_t[]){2, 4, 8}, NULL);
    oc_ms_node(m, "QLinearSigmoid", "qsig", "x,s,zi,s,zi", "y1");
    Onnx__NodeProto *n = oc_ms_node(m, "QLinearLeakyRelu", "qlrelu", "x,s,zi,s,zi", "y2");
    ob_attr_f(m, n, "alpha", 0.1f);
    n = oc_ms_node(m, "QLinearSoftmax", "qsm", "x,s,zi,s,zi", "y3");
    ob_attr_i(m, n, "opset", 13);
    oc_ms_node(m, "QOrderedGelu", "qgelu", "x3,s,s", "y4");
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "qsig"), "[2,8]", "int8");
    oc_assert_int(oc_node(r, "qsig"), 64, 32);
    oc_assert_int(oc_node(r, "qlrelu"), 64, 32);
    assert_out(oc_node(r, "qsm"), "[2,8]", "int8");
    oc_assert_int(oc_node(r, "qsm"), 128, 32);
    assert_out(oc_node(r, "qgelu"), "[2,4,8]", "int8");
    oc_assert_int(oc_node(r, "qgelu"), 256, 0);
    fl_report_free(r);
    /* Softmax axis 2 on a rank-2 X; opset missing. */
    n = oc_ms_node(m, "QLinearSoftmax", "qsm_bad", "x,s,zi,s,zi", "y5");
    ob_attr_i(m, n, "opset", 13);
    ob_attr_i(m, n, "axis", 2);
    ob_output(m, "y5");
    oc_expect_error(m, "node 'qsm_bad' (QLinearSoftmax): attr 'axis' 2 is out of range for rank 2");
    m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 2, (int64_t[]){2, 8}, NULL);
    oc_ms_node(m, "QLinearSoftmax", "qsm_noopset", "x,s,zi,s,zi", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'qsm_noopset' (QLinearSoftmax): missing required attr 'opset'");
    /* QLinearSoftmax's y_zero_point is required (unlike QLinearSigmoid's):
     * ONNX Runtime refuses the node without it, at load; x_zero_point may be
     * absent. */
    m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 2, (int64_t[]){2, 8}, NULL);
    n = oc_ms_node(m, "QLinearSoftmax", "qsm_noxzp", "x,s,,s,zi", "y1");
    ob_attr_i(m, n, "opset", 13);
    ob_output(m, "y1");
    r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "qsm_noxzp"), "[2,8]", "int8");
    oc_assert_int(oc_node(r, "qsm_noxzp"), 128, 32);
    fl_report_free(r);
    n = oc_ms_node(m, "QLinearSoftmax", "qsm_noyzp", "x,s,zi,s", "y2");
    ob_attr_i(m, n, "opset", 13);
    ob_output(m, "y2");
    oc_expect_error(m, "node 'qsm_noyzp' (QLinearSoftmax): expects 5 inputs, got 4");
}

/* QOrderedLayerNormalization X int8 [2,4,8], gamma and B float [8], axis
 * -1: E 64, R = 8 rows. LayerNormalization counts 6 * 64 + 2 * 8 + 64 (B) =
 * 464; + 64 (X times its scale) + 2 * 64 (quantize) = 656 FLOPs, 0 int_ops.
 * Without B: 400 + 192 = 592. Bytes of the first: X 64 + 2 scales 8 + gamma
 * 32 + B 32 read, Y 64 written = 200. */
static void test_qordered_layer_norm(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 3, (int64_t[]){2, 4, 8}, NULL);
    ob_input(m, "g", OB_FLOAT, 1, (int64_t[]){8}, NULL);
    ob_input(m, "b", OB_FLOAT, 1, (int64_t[]){8}, NULL);
    oc_ms_node(m, "QOrderedLayerNormalization", "qln", "x,s,g,b,s", "y1");
    oc_ms_node(m, "QOrderedLayerNormalization", "qln_nob", "x,s,g,,s", "y2");
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *ln = oc_node(r, "qln");
    assert_out(ln, "[2,4,8]", "int8");
    oc_assert_int(ln, 656, 0);
    assert_int_equal(ln->bytes.value, 64 + 8 + 32 + 32 + 64);
    oc_assert_int(oc_node(r, "qln_nob"), 592, 0);
    fl_report_free(r);
    ob_free(m);
}

/* QLinearGlobalAveragePool X uint8 [1,4,3,3] -> [1,4,1,1]: E(X) 36, E(Y) 4:
 * int_ops 36 + 4 = 40, FLOPs 36 (scale) + 36 (the mean) + 8 = 80.
 * channels_last X [1,3,3,4] -> [1,1,1,4], the same counts.
 * QLinearAveragePool kernel [3,2], strides [3,2]: X [1,3,6,4] -> [1,3,2,2]
 * ((6-3)/3+1, (4-2)/2+1); channels_last X [1,6,4,3] -> [1,2,2,3]. E(X) 72,
 * E(Y) 12: int_ops 84, FLOPs 72 + 6 * 12 (AveragePool) + 24 = 168. */
static void test_qlinear_pools(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", U8, 4, (int64_t[]){1, 4, 3, 3}, NULL);
    ob_input(m, "xl", U8, 4, (int64_t[]){1, 3, 3, 4}, NULL);
    ob_input(m, "p", U8, 4, (int64_t[]){1, 3, 6, 4}, NULL);
    ob_input(m, "pl", U8, 4, (int64_t[]){1, 6, 4, 3}, NULL);
    oc_ms_node(m, "QLinearGlobalAveragePool", "gap", "x,s,zu,s,zu", "y1");
    Onnx__NodeProto *n = oc_ms_node(m, "QLinearGlobalAveragePool", "gap_l", "xl,s,zu,s,zu", "y2");
    ob_attr_i(m, n, "channels_last", 1);
    const char *names[] = {"ap", "ap_l"}, *ins[] = {"p,s,zu,s,zu", "pl,s,zu,s,zu"};
    const char *outs[] = {"y3", "y4"};
    for (int i = 0; i < 2; i++) {
        n = oc_ms_node(m, "QLinearAveragePool", names[i], ins[i], outs[i]);
        ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 2});
        ob_attr_ints(m, n, "strides", 2, (int64_t[]){3, 2});
        ob_attr_i(m, n, "channels_last", i);
    }
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "gap"), "[1,4,1,1]", "uint8");
    oc_assert_int(oc_node(r, "gap"), 80, 40);
    assert_out(oc_node(r, "gap_l"), "[1,1,1,4]", "uint8");
    oc_assert_int(oc_node(r, "gap_l"), 80, 40);
    assert_out(oc_node(r, "ap"), "[1,3,2,2]", "uint8");
    oc_assert_int(oc_node(r, "ap"), 168, 84);
    assert_out(oc_node(r, "ap_l"), "[1,2,2,3]", "uint8");
    oc_assert_int(oc_node(r, "ap_l"), 168, 84);
    fl_report_free(r);
    ob_free(m);
}

/* The NHWC forms of ORT's layout transformer. com.microsoft QLinearConv
 * counts as onnx::QLinearConv (test_onnx_quant derives its rule): x uint8
 * [1,6,10,3] channels_last, w [4,3,3,3], no pads -> y [1,4,8,4] (H 6-3+1,
 * W 10-3+1, then M): E(y) 128, M = 128 * 27 = 3456; int_ops 2 * 3456 +
 * E(x) 180 + E(w) 108 + E(y) 128 = 7328 (+ 128 with the int32 bias = 7456);
 * FLOPs 2 * 128 = 256. channels_last 0 on x [1,3,6,10]: y [1,4,4,8], the
 * same counts. NhwcMaxPool x uint8 [1,6,4,3], kernel [3,2], strides [3,2]
 * -> [1,2,2,3]: onnx::MaxPool's prod(kernel) * E(y) = 6 * 12 = 72
 * comparisons, integer ones (uint8): 72 int_ops, 0 FLOPs.
 * x with 5 channels for w's 3, and a pool without kernel_shape, fail naming
 * the node. */
static void test_nhwc_ops(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "xl", U8, 4, (int64_t[]){1, 6, 10, 3}, NULL);
    ob_input(m, "xf", U8, 4, (int64_t[]){1, 3, 6, 10}, NULL);
    ob_input(m, "w", U8, 4, (int64_t[]){4, 3, 3, 3}, NULL);
    ob_input(m, "bias", OB_INT32, 1, (int64_t[]){4}, NULL);
    ob_input(m, "p", U8, 4, (int64_t[]){1, 6, 4, 3}, NULL);
    const char *names[] = {"qc_l", "qc_lb", "qc_f"};
    const char *ins[] = {"xl,s,zu,w,s,zu,s,zu", "xl,s,zu,w,s,zu,s,zu,bias", "xf,s,zu,w,s,zu,s,zu"};
    const char *outs[] = {"y1", "y2", "y3"};
    for (int i = 0; i < 3; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "QLinearConv", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "channels_last", i < 2);
        ob_output(m, outs[i]);
    }
    Onnx__NodeProto *n = oc_ms_node(m, "NhwcMaxPool", "mp", "p", "y4");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 2});
    ob_attr_ints(m, n, "strides", 2, (int64_t[]){3, 2});
    ob_output(m, "y4");
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "qc_l"), "[1,4,8,4]", "uint8");
    oc_assert_int(oc_node(r, "qc_l"), 256, 7328);
    oc_assert_int(oc_node(r, "qc_lb"), 256, 7456);
    assert_out(oc_node(r, "qc_f"), "[1,4,4,8]", "uint8");
    oc_assert_int(oc_node(r, "qc_f"), 256, 7328);
    const fl_report_node *mp = oc_node(r, "mp");
    assert_out(mp, "[1,2,2,3]", "uint8");
    oc_assert_int(mp, 0, 72);
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    scalars(m);
    ob_input(m, "x5", U8, 4, (int64_t[]){1, 6, 10, 5}, NULL);
    ob_input(m, "w", U8, 4, (int64_t[]){4, 3, 3, 3}, NULL);
    n = oc_ms_node(m, "QLinearConv", "qc_bad", "x5,s,zu,w,s,zu,s,zu", "y");
    ob_attr_i(m, n, "channels_last", 1);
    ob_output(m, "y");
    oc_expect_error(m, "node 'qc_bad' (QLinearConv): input 'X' has 5 channels but 'W' expects 3");
    m = oc_ms_model();
    ob_input(m, "p", U8, 4, (int64_t[]){1, 6, 4, 3}, NULL);
    oc_ms_node(m, "NhwcMaxPool", "mp_bad", "p", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'mp_bad' (NhwcMaxPool): missing required attr 'kernel_shape'");
}

/* Comparisons of integers are integer operations (src/ops/onnx/onnx.h):
 * MaxPool x uint8 [1,2,5,5], kernel [3,3], strides [2,2] -> [1,2,2,2]:
 * 9 * 8 = 72 comparisons: 72 int_ops, 0 FLOPs; the same pool on float x:
 * 72 FLOPs, 0 int_ops. ReduceMax / ReduceMin over axis 1 of int8 / uint8
 * [2,3,4] (keepdims 0) -> [2,4]: E(in) - E(out) = 24 - 8 = 16 int_ops.
 * Max(int32 [2,3], int32 [3]) -> [2,3]: 6 int_ops; Min of three int32
 * operands: (3 - 1) * 6 = 12; Max of two float [2,3]: 6 FLOPs. ArgMax over
 * axis 1 of uint8 [2,3,4] (keepdims 0) -> int64 [2,4]: 24 - 8 = 16 int_ops;
 * ArgMin over axis 0 of float [2,3] -> [1,3]: 6 - 3 = 3 FLOPs. */
static void test_integer_comparisons(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "xu", U8, 4, (int64_t[]){1, 2, 5, 5}, NULL);
    ob_input(m, "xf", OB_FLOAT, 4, (int64_t[]){1, 2, 5, 5}, NULL);
    ob_input(m, "ri", I8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "ru", U8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "a", OB_INT32, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "b", OB_INT32, 1, (int64_t[]){3}, NULL);
    ob_input(m, "fa", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    const char *pools[][2] = {{"mp_u8", "xu"}, {"mp_f", "xf"}};
    for (int i = 0; i < 2; i++) {
        char out[16];
        snprintf(out, sizeof out, "y_%s", pools[i][0]);
        Onnx__NodeProto *n = ob_node(m, "MaxPool", pools[i][0], pools[i][1], out);
        ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
        ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
        ob_output(m, out);
    }
    Onnx__NodeProto *n = ob_node(m, "ReduceMax", "rmax", "ri", "y_rmax");
    ob_attr_ints(m, n, "axes", 1, (int64_t[]){1});
    ob_attr_i(m, n, "keepdims", 0);
    n = ob_node(m, "ReduceMin", "rmin", "ru", "y_rmin");
    ob_attr_ints(m, n, "axes", 1, (int64_t[]){1});
    ob_attr_i(m, n, "keepdims", 0);
    ob_node(m, "Max", "max_i", "a,b", "y_max_i");
    ob_node(m, "Min", "min_i", "a,b,a", "y_min_i");
    ob_node(m, "Max", "max_f", "fa,fa", "y_max_f");
    n = ob_node(m, "ArgMax", "amax_u", "ru", "y_amax_u");
    ob_attr_i(m, n, "axis", 1);
    ob_attr_i(m, n, "keepdims", 0);
    ob_attr_i(m, ob_node(m, "ArgMin", "amin_f", "fa", "y_amin_f"), "axis", 0);
    const char *outs[] = {"y_rmax",  "y_rmin",   "y_max_i", "y_min_i",
                          "y_max_f", "y_amax_u", "y_amin_f"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "mp_u8"), "[1,2,2,2]", "uint8");
    oc_assert_int(oc_node(r, "mp_u8"), 0, 72);
    oc_assert_int(oc_node(r, "mp_f"), 72, 0);
    assert_out(oc_node(r, "rmax"), "[2,4]", "int8");
    oc_assert_int(oc_node(r, "rmax"), 0, 16);
    oc_assert_int(oc_node(r, "rmin"), 0, 16);
    assert_out(oc_node(r, "max_i"), "[2,3]", "int32");
    oc_assert_int(oc_node(r, "max_i"), 0, 6);
    oc_assert_int(oc_node(r, "min_i"), 0, 12);
    oc_assert_int(oc_node(r, "max_f"), 6, 0);
    assert_out(oc_node(r, "amax_u"), "[2,4]", "int64");
    oc_assert_int(oc_node(r, "amax_u"), 0, 16);
    assert_out(oc_node(r, "amin_f"), "[1,3]", "int64");
    oc_assert_int(oc_node(r, "amin_f"), 3, 0);
    assert_int_equal(r->totals.int_ops.value, 72 + 16 + 16 + 6 + 12 + 16);
    assert_int_equal(r->totals.flops.value, 72 + 6 + 3);
    fl_report_free(r);
    ob_free(m);
}

/* QLinearReduceMean X int8 [2,3,4], axes [1], keepdims 0 -> [2,4]: E(X) 24,
 * E(Y) 8: int_ops 32, FLOPs 24 + 24 (ReduceMean) + 16 = 64; keepdims 1 ->
 * [2,1,4], the same counts. keepdims missing (required): an error. */
static void test_qlinear_reduce_mean(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 3, (int64_t[]){2, 3, 4}, NULL);
    for (int keep = 0; keep < 2; keep++) {
        Onnx__NodeProto *n = oc_ms_node(m, "QLinearReduceMean", keep ? "rm_keep" : "rm",
                                        "x,s,zi,s,zi", keep ? "y2" : "y1");
        ob_attr_ints(m, n, "axes", 1, (int64_t[]){1});
        ob_attr_i(m, n, "keepdims", keep);
        ob_output(m, keep ? "y2" : "y1");
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "rm"), "[2,4]", "int8");
    oc_assert_int(oc_node(r, "rm"), 64, 32);
    assert_out(oc_node(r, "rm_keep"), "[2,1,4]", "int8");
    oc_assert_int(oc_node(r, "rm_keep"), 64, 32);
    fl_report_free(r);
    Onnx__NodeProto *n = oc_ms_node(m, "QLinearReduceMean", "rm_bad", "x,s,zi,s,zi", "y3");
    ob_attr_ints(m, n, "axes", 1, (int64_t[]){1});
    ob_output(m, "y3");
    oc_expect_error(m, "node 'rm_bad' (QLinearReduceMean): missing required attr 'keepdims'");
}

/* QLinearConcat Y_scale, Y_zero_point, (a uint8 [2,3], s, zu), (b uint8
 * [2,5], s, zu), axis 1 -> [2,8] uint8, E(Y) 16: int_ops 32, FLOPs 32.
 * Bytes: s 4 + zu 1 + a 6 + 4 + 1 + b 10 + 4 + 1 read, Y 16: 47.
 * Six inputs (a triple cut short) fail naming the node. */
static void test_qlinear_concat(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", U8, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "b", U8, 2, (int64_t[]){2, 5}, NULL);
    Onnx__NodeProto *n = oc_ms_node(m, "QLinearConcat", "qc", "s,zu,a,s,zu,b,s,zu", "y");
    ob_attr_i(m, n, "axis", 1);
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qc = oc_node(r, "qc");
    assert_out(qc, "[2,8]", "uint8");
    oc_assert_int(qc, 32, 32);
    assert_int_equal(qc->bytes.value, 4 + 1 + 6 + 4 + 1 + 10 + 4 + 1 + 16);
    fl_report_free(r);
    n = oc_ms_node(m, "QLinearConcat", "qc_bad", "s,zu,a,s,zu,b", "y2");
    ob_attr_i(m, n, "axis", 1);
    ob_output(m, "y2");
    oc_expect_error(m, "node 'qc_bad' (QLinearConcat): has 6 inputs");
}

/* QLinearWhere cond bool [2,1,4], X int8 [3,4], Y int8 [4] -> Z int8
 * [2,3,4]: E(Z) 24, E(X) 12, E(Y) 4: int_ops 12 + 4 + 24 = 40; FLOPs 16
 * (scales) + 24 (select) + 48 (quantize) = 88. */
static void test_qlinear_where(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "c", OB_BOOL, 3, (int64_t[]){2, 1, 4}, NULL);
    ob_input(m, "x", I8, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "y", I8, 1, (int64_t[]){4}, NULL);
    oc_ms_node(m, "QLinearWhere", "qw", "c,x,s,zi,y,s,zi,s,zi", "z");
    ob_output(m, "z");
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "qw"), "[2,3,4]", "int8");
    oc_assert_int(oc_node(r, "qw"), 88, 40);
    fl_report_free(r);
    ob_free(m);
}

/* DynamicQuantizeMatMul A float [2,3,8], B int8 [8,5], b_scale, b_zero_point,
 * bias float [5] -> Y float [2,3,5]: E(A) 48, E(B) 40, E(Y) 30, M = 6 * 5 *
 * 8 = 240. int_ops 480 + 48 (A's zero point on) + 48 + 40 (off) = 616;
 * FLOPs 4 * 48 (DynamicQuantizeLinear) + 30 (scales) + 30 (bias) = 252;
 * without bias or zero point 222 FLOPs, int_ops the same.
 * MatMulIntegerToFloat A uint8 [4,8], B int8 [8,6], a_scale, b_scale, zero
 * points, bias float [6] -> float [4,6]: M = 192, int_ops 384 + 32 + 48 =
 * 464, FLOPs 24 + 24 = 48; A [n,8] without bias: int_ops 2 * 48n + 8n + 48 =
 * 104n + 48, FLOPs 6n. */
static void test_hybrid_matmul(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "b", I8, 2, (int64_t[]){8, 5}, NULL);
    ob_input(m, "bias", OB_FLOAT, 1, (int64_t[]){5}, NULL);
    ob_input(m, "au", U8, 2, (int64_t[]){4, 8}, NULL);
    ob_input(m, "an", U8, 2, (int64_t[]){-1, 8}, (const char *[]){"n", NULL});
    ob_input(m, "b6", I8, 2, (int64_t[]){8, 6}, NULL);
    ob_input(m, "bias6", OB_FLOAT, 1, (int64_t[]){6}, NULL);
    oc_ms_node(m, "DynamicQuantizeMatMul", "dqmm", "a,b,s,zi,bias", "y1");
    oc_ms_node(m, "DynamicQuantizeMatMul", "dqmm_plain", "a,b,s", "y2");
    oc_ms_node(m, "MatMulIntegerToFloat", "mmitf", "au,b6,s,s,zu,zi,bias6", "y3");
    oc_ms_node(m, "MatMulIntegerToFloat", "mmitf_n", "an,b6,s,s", "y4");
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "dqmm"), "[2,3,5]", "float");
    oc_assert_int(oc_node(r, "dqmm"), 252, 616);
    oc_assert_int(oc_node(r, "dqmm_plain"), 222, 616);
    assert_out(oc_node(r, "mmitf"), "[4,6]", "float");
    oc_assert_int(oc_node(r, "mmitf"), 48, 464);
    const fl_report_node *mn = oc_node(r, "mmitf_n");
    assert_out(mn, "[n,6]", "float");
    assert_string_equal(mn->int_ops.text, "104*n + 48");
    assert_string_equal(mn->flops.text, "6*n");
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    ob_free(m);
}

/* QOrderedAttention input int8 [2,3,4] (B 2, S 3, H_in 4), Q/K/V weights
 * int8 [4,4] (Hq = Hk = Hv = 4), num_heads 2, mask_index [2] -> int8
 * [2,3,4]. B * S = 6 rows; projections P = 6 * 12 = 72 elements, their
 * products 72 * 4 = 288 MACs; B * S * S = 18, Q K^T and the weighted sum 18
 * * (4 + 4) = 144 MACs; 36 scores.
 *   int_ops = 2 * (288 + 144) = 864;
 *   FLOPs = 3 * 72 + 36 * (10 + 1 mask) + 2 * 6 * 4 = 216 + 396 + 48 = 660;
 *   without mask_index 624. num_heads 3 does not divide 4: an error. */
static void test_qordered_attention(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", I8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "w", I8, 2, (int64_t[]){4, 4}, NULL);
    ob_input(m, "bias", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_input(m, "mask", OB_INT32, 1, (int64_t[]){2}, NULL);
    const char *names[] = {"qoa", "qoa_nomask"};
    const char *ins[] = {"x,s,s,s,s,w,w,w,s,s,s,bias,bias,bias,s,s,s,mask",
                         "x,s,s,s,s,w,w,w,s,s,s,bias,bias,bias,s,s,s"};
    const char *outs[] = {"y1", "y2"};
    for (int i = 0; i < 2; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "QOrderedAttention", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "num_heads", 2);
        ob_attr_i(m, n, "order_input", 1);
        ob_attr_i(m, n, "order_output", 1);
        ob_attr_i(m, n, "order_weight", 0);
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_out(oc_node(r, "qoa"), "[2,3,4]", "int8");
    oc_assert_int(oc_node(r, "qoa"), 660, 864);
    oc_assert_int(oc_node(r, "qoa_nomask"), 624, 864);
    fl_report_free(r);
    Onnx__NodeProto *n = oc_ms_node(m, "QOrderedAttention", "qoa_bad", ins[1], "y3");
    ob_attr_i(m, n, "num_heads", 3);
    ob_attr_i(m, n, "order_input", 1);
    ob_attr_i(m, n, "order_output", 1);
    ob_attr_i(m, n, "order_weight", 0);
    ob_output(m, "y3");
    oc_expect_error(m,
                    "node 'qoa_bad' (QOrderedAttention): attr 'num_heads' 3 does not divide input "
                    "5 (Q_weight)'s 4 columns");
    /* The schema requires the orders of the input, weights and output. */
    m = oc_ms_model();
    ob_input(m, "x", OB_INT8, 3, (int64_t[]){2, 3, 4}, NULL);
    n = oc_ms_node(m, "QOrderedAttention", "qoa_orders", "x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x", "y4");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "order_input", 1);
    ob_attr_i(m, n, "order_weight", 0);
    ob_output(m, "y4");
    oc_expect_error(m, "node 'qoa_orders' (QOrderedAttention): missing required attr "
                       "'order_output' (int)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qlinear_binary),      cmocka_unit_test(test_qlinear_unary),
        cmocka_unit_test(test_qordered_layer_norm), cmocka_unit_test(test_qlinear_pools),
        cmocka_unit_test(test_qlinear_reduce_mean), cmocka_unit_test(test_qlinear_concat),
        cmocka_unit_test(test_qlinear_where),       cmocka_unit_test(test_hybrid_matmul),
        cmocka_unit_test(test_qordered_attention),  cmocka_unit_test(test_nhwc_ops),
        cmocka_unit_test(test_integer_comparisons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
