/*
 * test_onnx_quant.c - integer operations of ONNX's quantized ops
 * (src/ops/onnxops/misc.c, src/ops/onnxms/quant.c): int_ops, FLOPs and bytes
 * derived by hand from each op's definition and the rule stated in the
 * family file's header; int_ops never in FLOPs or MACs; sub-byte tensors at
 * their packed width.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3, I4 = 22 };

/* A scale (float scalar) and zero points (uint8 / int8, one element: a
 * per-tensor zero point may be 1-D of length 1). */
static void scalars(ob_model *m) {
    ob_init_f(m, "s", 0, NULL, false);
    ob_input(m, "zu", U8, 1, (int64_t[]){1}, NULL);
    ob_input(m, "zi", I8, 1, (int64_t[]){1}, NULL);
}

/* QLinearConv x uint8 [1,3,8,8], w uint8 [4,3,3,3], pads 1 -> y uint8
 * [1,4,8,8]: E(y) = 256, M = 256 * 27 = 6912 integer MACs.
 *   int_ops = 2 * 6912 + E(x) 192 + E(w) 108 (zero points) + E(y) 256 (y's
 *             zero point) + E(y) 256 (int32 bias) = 14636; without the bias
 *             14380
 *   FLOPs   = 2 * E(y) = 512 (requantization multiply and round); MACs 0.
 * QLinearMatMul a uint8 [2,5,16], b uint8 [16,8] -> y [2,5,8]: M = 80 * 16 =
 *   1280; int_ops = 2560 + 160 + 128 + 80 = 2928; FLOPs 160.
 * MatMulInteger a uint8 [3,16], b int8 [16,4] -> int32 [3,4]: M = 192;
 *   int_ops = 384 + 48 + 64 = 496; FLOPs 0.
 * ConvInteger x uint8 [1,2,5,5], w uint8 [3,2,3,3] -> int32 [1,3,3,3]: M =
 *   27 * 18 = 486; int_ops = 972 + 50 + 54 = 1076; FLOPs 0. */
static void test_contractions(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    scalars(m);
    ob_input(m, "x", U8, 4, (int64_t[]){1, 3, 8, 8}, NULL);
    ob_input(m, "w", U8, 4, (int64_t[]){4, 3, 3, 3}, NULL);
    ob_input(m, "bias", OB_INT32, 1, (int64_t[]){4}, NULL);
    ob_input(m, "a", U8, 3, (int64_t[]){2, 5, 16}, NULL);
    ob_input(m, "b", U8, 2, (int64_t[]){16, 8}, NULL);
    ob_input(m, "a2", U8, 2, (int64_t[]){3, 16}, NULL);
    ob_input(m, "b2", I8, 2, (int64_t[]){16, 4}, NULL);
    ob_input(m, "x3", U8, 4, (int64_t[]){1, 2, 5, 5}, NULL);
    ob_input(m, "w3", U8, 4, (int64_t[]){3, 2, 3, 3}, NULL);
    const int64_t pads[] = {1, 1, 1, 1};
    Onnx__NodeProto *n = ob_node(m, "QLinearConv", "qc", "x,s,zu,w,s,zu,s,zu,bias", "y1");
    ob_attr_ints(m, n, "pads", 4, pads);
    n = ob_node(m, "QLinearConv", "qc_nobias", "x,s,zu,w,s,zu,s,zu", "y2");
    ob_attr_ints(m, n, "pads", 4, pads);
    ob_node(m, "QLinearMatMul", "qmm", "a,s,zu,b,s,zu,s,zu", "y3");
    ob_node(m, "MatMulInteger", "mmi", "a2,b2,zu,zi", "y4");
    ob_node(m, "ConvInteger", "ci", "x3,w3,zu,zu", "y5");
    ob_outputs(m, "y", 5);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qc = oc_node(r, "qc");
    assert_string_equal(qc->outputs[0].shape, "[1,4,8,8]");
    assert_string_equal(qc->outputs[0].dtype, "uint8");
    oc_assert_int(qc, 512, 14636);
    oc_assert_int(oc_node(r, "qc_nobias"), 512, 14380);
    const fl_report_node *qmm = oc_node(r, "qmm");
    assert_string_equal(qmm->outputs[0].shape, "[2,5,8]");
    oc_assert_int(qmm, 160, 2928);
    const fl_report_node *mmi = oc_node(r, "mmi");
    assert_string_equal(mmi->outputs[0].dtype, "int32");
    assert_string_equal(mmi->outputs[0].shape, "[3,4]");
    oc_assert_int(mmi, 0, 496);
    const fl_report_node *ci = oc_node(r, "ci");
    assert_string_equal(ci->outputs[0].shape, "[1,3,3,3]");
    oc_assert_int(ci, 0, 1076);
    /* The totals: integer work apart from FLOPs and MACs. */
    assert_true(r->totals.int_ops.known && r->totals.macs.known && r->totals.flops.known);
    assert_int_equal(r->totals.int_ops.value, 14636 + 14380 + 2928 + 496 + 1076);
    assert_int_equal(r->totals.macs.value, 0);
    assert_int_equal(r->totals.flops.value, 512 + 512 + 160);
    /* Per op type. */
    bool seen = false;
    for (size_t i = 0; i < r->n_ops; i++) {
        if (strcmp(r->ops[i].op, "QLinearConv") == 0) {
            assert_int_equal(r->ops[i].int_ops.value, 14636 + 14380);
            assert_int_equal(r->ops[i].count, 2);
            seen = true;
        }
    }
    assert_true(seen);
    /* Ordered by FLOPs + integer ops: QLinearConv (2 nodes) first. */
    assert_string_equal(r->ops[0].op, "QLinearConv");
    fl_report_free(r);
    ob_free(m);
}

/* QuantizeLinear x float [2,10] -> uint8: FLOPs 2 * 20 (divide, round),
 * int_ops 20 (zero point). DequantizeLinear x int8 [2,10]: int_ops 20
 * (subtract the zero point), FLOPs 20 (scale). DynamicQuantizeLinear x
 * float [2,10]: FLOPs 4 * 20 (min, max, divide, round), int_ops 20; outputs
 * uint8 [2,10], float scalar, uint8 scalar. */
static void test_quantize(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    scalars(m);
    ob_input(m, "xf", OB_FLOAT, 2, (int64_t[]){2, 10}, NULL);
    ob_input(m, "xq", I8, 2, (int64_t[]){2, 10}, NULL);
    ob_node(m, "QuantizeLinear", "q", "xf,s,zu", "y1");
    ob_node(m, "DequantizeLinear", "dq", "xq,s,zi", "y2");
    ob_node(m, "DynamicQuantizeLinear", "dyn", "xf", "y3,y3s,y3z");
    ob_outputs(m, "y", 3);
    ob_output(m, "y3s");
    ob_output(m, "y3z");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *q = oc_node(r, "q");
    assert_string_equal(q->outputs[0].dtype, "uint8");
    oc_assert_int(q, 40, 20);
    const fl_report_node *dq = oc_node(r, "dq");
    assert_string_equal(dq->outputs[0].dtype, "float");
    oc_assert_int(dq, 20, 20);
    const fl_report_node *dyn = oc_node(r, "dyn");
    assert_string_equal(dyn->outputs[0].shape, "[2,10]");
    assert_string_equal(dyn->outputs[1].shape, "[]");
    oc_assert_int(dyn, 80, 20);
    assert_int_equal(r->totals.int_ops.value, 60);
    fl_report_free(r);
    ob_free(m);
}

/* int4 packs two per byte: DequantizeLinear of x int4 [3,5] (opset 21)
 * reads ceil(15 / 2) = 8 bytes of x + 4 of the scale and writes 15 * 4 =
 * 60: 72 bytes; int_ops 15, FLOPs 15. A [3,4] int4 tensor reads 6. */
static void test_int4_bytes(void **state) {
    (void)state;
    ob_model *m = ob_new(21);
    ob_init_f(m, "s", 0, NULL, false);
    ob_input(m, "x", I4, 2, (int64_t[]){3, 5}, NULL);
    ob_input(m, "x2", I4, 2, (int64_t[]){3, 4}, NULL);
    ob_node(m, "DequantizeLinear", "dq", "x,s", "y");
    ob_node(m, "DequantizeLinear", "dq2", "x2,s", "y2");
    ob_output(m, "y");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *dq = oc_node(r, "dq");
    oc_assert_int(dq, 15, 15);
    assert_true(dq->bytes.known);
    assert_int_equal(dq->bytes.value, 72);
    assert_int_equal(oc_node(r, "dq2")->bytes.value, 6 + 4 + 48);
    fl_report_free(r);
    ob_free(m);
}

/* A symbolic batch: QLinearMatMul a uint8 [n,16] x b [16,8]: M = 128 n;
 * int_ops = 256 n + 16 n + 128 + 8 n = 280 n + 128; FLOPs 16 n. */
static void test_symbolic(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    scalars(m);
    ob_input(m, "a", U8, 2, (int64_t[]){-1, 16}, (const char *[]){"n", NULL});
    ob_input(m, "b", U8, 2, (int64_t[]){16, 8}, NULL);
    ob_node(m, "QLinearMatMul", "qmm", "a,s,zu,b,s,zu,s,zu", "y");
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qmm = oc_node(r, "qmm");
    assert_false(qmm->int_ops.known);
    assert_string_equal(qmm->int_ops.text, "280*n + 128");
    assert_string_equal(qmm->flops.text, "16*n");
    assert_string_equal(r->totals.int_ops.text, "280*n + 128");
    bool named = false;
    for (size_t i = 0; i < r->n_symbols; i++) {
        named |= strcmp(r->symbols[i], "n") == 0;
    }
    assert_true(named);
    fl_report_free(r);
    ob_free(m);
}

/* A float model counts no integer operations. */
static void test_float_zero(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){4, 16}, NULL);
    ob_init_f(m, "b", 2, (int64_t[]){16, 8}, false);
    ob_node(m, "MatMul", "mm", "a,b", "y");
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    oc_assert_cost(oc_node(r, "mm"), 1024, 512);
    assert_true(r->totals.int_ops.known);
    assert_int_equal(r->totals.int_ops.value, 0);
    fl_report_free(r);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contractions), cmocka_unit_test(test_quantize),
        cmocka_unit_test(test_int4_bytes),   cmocka_unit_test(test_symbolic),
        cmocka_unit_test(test_float_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
