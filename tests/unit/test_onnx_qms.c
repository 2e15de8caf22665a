/*
 * test_onnx_qms.c - ONNX Runtime's quantized contrib contractions
 * (src/ops/onnxms/quant.c, attention.c): QGemm, QOrderedMatMul,
 * MatMulInteger16 and QAttention. Shapes from ORT's contrib op schemas;
 * int_ops, FLOPs, MACs and bytes derived by hand from the rules stated in
 * those files' headers (integer multiply-accumulates 2 int_ops each, zero
 * points once per operand element, scale arithmetic in FLOPs).
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3, U16 = 4, I16 = 5 };

static void scalars(ob_model *m) {
    ob_init_f(m, "s", 0, NULL, false);
    ob_input(m, "zu", U8, 1, (int64_t[]){1}, NULL);
    ob_input(m, "zi", I8, 1, (int64_t[]){1}, NULL);
}

/* QGemm A uint8 [4,16], B int8 [16,8], C int32 [8], y_scale, y_zero_point
 * uint8 -> Y uint8 [4,8]: E(Y) = 32, M = 4 * 8 * 16 = 512 integer MACs.
 *   int_ops = 2 * 512 + E(A) 64 + E(B) 128 (zero points) + 32 (C's add) +
 *             32 (y's zero point) = 1280; FLOPs = 32 (scale) + 32 (round).
 * QGemm transB, A uint8 [4,16], B uint8 [8,16], no C, no y_scale /
 *   y_zero_point -> Y float [4,8]: int_ops = 1024 + 64 + 128 = 1216; FLOPs
 *   32 (the accumulator times alpha * a_scale * b_scale).
 * Bytes of the first: A 64 + B 128 + C 32 + 3 scales 12 + 3 zero points 3
 *   read, Y 32 written: 271. */
static void test_qgemm(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", U8, 2, (int64_t[]){4, 16}, NULL);
    ob_input(m, "b", I8, 2, (int64_t[]){16, 8}, NULL);
    ob_input(m, "bt", U8, 2, (int64_t[]){8, 16}, NULL);
    ob_input(m, "c", OB_INT32, 1, (int64_t[]){8}, NULL);
    oc_ms_node(m, "QGemm", "qg", "a,s,zu,b,s,zi,c,s,zu", "y1");
    Onnx__NodeProto *n = oc_ms_node(m, "QGemm", "qg_float", "a,s,zu,bt,s,zu", "y2");
    ob_attr_i(m, n, "transB", 1);
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qg = oc_node(r, "qg");
    assert_string_equal(qg->outputs[0].shape, "[4,8]");
    assert_string_equal(qg->outputs[0].dtype, "uint8");
    oc_assert_int(qg, 64, 1280);
    assert_true(qg->bytes.known);
    assert_int_equal(qg->bytes.value, 64 + 128 + 32 + 12 + 3 + 32);
    const fl_report_node *qf = oc_node(r, "qg_float");
    assert_string_equal(qf->outputs[0].shape, "[4,8]");
    assert_string_equal(qf->outputs[0].dtype, "float");
    oc_assert_int(qf, 32, 1216);
    assert_int_equal(r->totals.macs.value, 0);
    fl_report_free(r);
    ob_free(m);
}

/* QGemm with a 3-D A fails naming the node and the input. */
static void test_qgemm_bad_rank(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", U8, 3, (int64_t[]){2, 4, 16}, NULL);
    ob_input(m, "b", I8, 2, (int64_t[]){16, 8}, NULL);
    oc_ms_node(m, "QGemm", "qg3", "a,s,zu,b,s,zi", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'qg3' (QGemm): input 0 (A) has rank 3, want 2");
}

/* QOrderedMatMul A int8 [2,4,16], B int8 [16,8], bias float [8], C int8
 * [2,4,8] -> Y int8 [2,4,8]: E(Y) = 64, M = 64 * 16 = 1024.
 *   int_ops = 2048 (no zero points); FLOPs = 64 * (2 + 1 bias + 2 C) = 320.
 * Without bias and C: FLOPs 128. Bytes of the first: A 128 + B 128 + bias
 *   32 + C 64 + 4 scales 16 read, Y 64 written = 432. */
static void test_qordered_matmul(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", I8, 3, (int64_t[]){2, 4, 16}, NULL);
    ob_input(m, "b", I8, 2, (int64_t[]){16, 8}, NULL);
    ob_input(m, "bias", OB_FLOAT, 1, (int64_t[]){8}, NULL);
    ob_input(m, "c", I8, 3, (int64_t[]){2, 4, 8}, NULL);
    ob_input(m, "a4", I8, 4, (int64_t[]){1, 2, 4, 16}, NULL);
    const char *names[] = {"qo", "qo_plain"};
    const char *ins[] = {"a,s,b,s,s,bias,c,s", "a,s,b,s,s"};
    const char *outs[] = {"y1", "y2"};
    for (int i = 0; i < 2; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "QOrderedMatMul", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "order_A", 1);
        ob_attr_i(m, n, "order_B", 0);
        ob_attr_i(m, n, "order_Y", 1);
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qo = oc_node(r, "qo");
    assert_string_equal(qo->outputs[0].shape, "[2,4,8]");
    assert_string_equal(qo->outputs[0].dtype, "int8");
    oc_assert_int(qo, 320, 2048);
    assert_int_equal(qo->bytes.value, 128 + 128 + 32 + 64 + 16 + 64);
    oc_assert_int(oc_node(r, "qo_plain"), 128, 2048);
    fl_report_free(r);
    /* A rank-4 A is outside the op's definition. */
    Onnx__NodeProto *n = oc_ms_node(m, "QOrderedMatMul", "qo4", "a4,s,b,s,s", "y4");
    ob_attr_i(m, n, "order_A", 1);
    ob_attr_i(m, n, "order_B", 0);
    ob_attr_i(m, n, "order_Y", 1);
    ob_output(m, "y4");
    oc_expect_error(m, "node 'qo4' (QOrderedMatMul): input 0 (A) has rank 4, want 2 or 3");
    /* The schema requires all three cuBLASLt orders. */
    m = oc_ms_model();
    scalars(m);
    ob_input(m, "a", I8, 3, (int64_t[]){2, 4, 16}, NULL);
    ob_input(m, "b", I8, 2, (int64_t[]){16, 8}, NULL);
    n = oc_ms_node(m, "QOrderedMatMul", "qo_orders", "a,s,b,s,s", "y5");
    ob_attr_i(m, n, "order_A", 1);
    ob_attr_i(m, n, "order_Y", 1);
    ob_output(m, "y5");
    oc_expect_error(m, "node 'qo_orders' (QOrderedMatMul): missing required attr 'order_B' (int)");
}

/* MatMulInteger16 A int16 [2,3,8] x B int16 [8,5] -> int32 [2,3,5]: M = 6 *
 * 5 * 8 = 240, int_ops 480, FLOPs 0; bytes: A 96 + B 80 read (2 bytes an
 * element), Y 120 written (4): 296. uint16 x uint16 -> uint32. A symbolic
 * batch n: A int16 [n,8] -> [n,5], int_ops 80 * n. */
static void test_matmul_integer16(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "a", I16, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "b", I16, 2, (int64_t[]){8, 5}, NULL);
    ob_input(m, "au", U16, 2, (int64_t[]){3, 8}, NULL);
    ob_input(m, "bu", U16, 2, (int64_t[]){8, 5}, NULL);
    ob_input(m, "an", I16, 2, (int64_t[]){-1, 8}, (const char *[]){"n", NULL});
    oc_ms_node(m, "MatMulInteger16", "mm16", "a,b", "y1");
    oc_ms_node(m, "MatMulInteger16", "mm16u", "au,bu", "y2");
    oc_ms_node(m, "MatMulInteger16", "mm16n", "an,b", "y3");
    ob_outputs(m, "y", 3);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *mm = oc_node(r, "mm16");
    assert_string_equal(mm->outputs[0].shape, "[2,3,5]");
    assert_string_equal(mm->outputs[0].dtype, "int32");
    oc_assert_int(mm, 0, 480);
    assert_int_equal(mm->bytes.value, 96 + 80 + 120);
    const fl_report_node *mu = oc_node(r, "mm16u");
    assert_string_equal(mu->outputs[0].dtype, "uint32");
    oc_assert_int(mu, 0, 240);
    const fl_report_node *mn = oc_node(r, "mm16n");
    assert_string_equal(mn->outputs[0].shape, "[n,5]");
    assert_string_equal(mn->int_ops.text, "80*n");
    fl_report_free(r);
    ob_free(m);
}

/* QAttention, num_heads 2: input uint8 [2,3,8] (B 2, S 3, H_in 8), weight
 * uint8 [8,12] (H = 4, D = 2), bias float [12], mask_index int32 [2]; T = S
 * = 3.
 *   int_ops = 2 * (2*3*8*12 = 576) + E(input) 48 + E(weight) 96 = 1296
 *   MACs    = B*N*S*T*(D + D) = 2*2*3*3*4 = 144 (float attention)
 *   FLOPs   = 2 * 144 + 2 * (6 rows * 12) (dequantize, bias) + 7 * 36
 *             (scale, softmax 5, mask add) = 288 + 144 + 252 = 684
 * Output [2,3,4] float, present [2,2,2,3,2]. Without the mask: 648.
 * With past float [2,2,2,p,2]: T = p + 3, MACs = 2*2*3*(p + 3)*4 = 48*p +
 * 144, FLOPs = 96*p + 288 + 144 + 6 * (12*p + 36) = 168*p + 648, present
 * [2,2,2,p + 3,2]. */
static void test_qattention(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", U8, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "w", U8, 2, (int64_t[]){8, 12}, NULL);
    ob_input(m, "bias", OB_FLOAT, 1, (int64_t[]){12}, NULL);
    ob_input(m, "mask", OB_INT32, 1, (int64_t[]){2}, NULL);
    const char *const pp[] = {NULL, NULL, NULL, "p", NULL};
    ob_input(m, "past", OB_FLOAT, 5, (int64_t[]){2, 2, 2, -1, 2}, pp);
    const char *names[] = {"qa", "qa_nomask", "qa_past"};
    const char *ins[] = {"x,w,bias,s,s,mask,zu,zu", "x,w,bias,s,s", "x,w,bias,s,s,,zu,zu,past"};
    const char *outs[] = {"y1,p1", "y2", "y3,p3"};
    for (int i = 0; i < 3; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "QAttention", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "num_heads", 2);
    }
    ob_output(m, "y1");
    ob_output(m, "p1");
    ob_output(m, "y2");
    ob_output(m, "y3");
    ob_output(m, "p3");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *qa = oc_node(r, "qa");
    assert_string_equal(qa->outputs[0].shape, "[2,3,4]");
    assert_string_equal(qa->outputs[0].dtype, "float");
    assert_string_equal(qa->outputs[1].shape, "[2,2,2,3,2]");
    assert_true(qa->flops.known && qa->macs.known && qa->int_ops.known);
    assert_int_equal(qa->int_ops.value, 1296);
    assert_int_equal(qa->macs.value, 144);
    assert_int_equal(qa->flops.value, 684);
    const fl_report_node *qn = oc_node(r, "qa_nomask");
    assert_int_equal(qn->flops.value, 648);
    assert_int_equal(qn->int_ops.value, 1296);
    const fl_report_node *qp = oc_node(r, "qa_past");
    assert_string_equal(qp->outputs[1].shape, "[2,2,2,p + 3,2]");
    assert_string_equal(qp->macs.text, "48*p + 144");
    assert_string_equal(qp->flops.text, "168*p + 648");
    assert_int_equal(qp->int_ops.value, 1296);
    fl_report_free(r);
    ob_free(m);
}

/* QAttention's weight not a multiple of three columns fails naming the node
 * and the input. */
static void test_qattention_bad(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "x", U8, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "w", U8, 2, (int64_t[]){8, 10}, NULL);
    ob_input(m, "bias", OB_FLOAT, 1, (int64_t[]){10}, NULL);
    Onnx__NodeProto *n = oc_ms_node(m, "QAttention", "qa_bad", "x,w,bias,s,s", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_output(m, "y");
    oc_expect_error(m, "node 'qa_bad' (QAttention): input 1 (weights) has 10 columns");
}

/* Two hand-made profiles: vector fp32 1e9, matrix fp32 4e9 and, in the
 * first, matrix int8 16e9; no efficiency table (peak). */
static fl_profile *profile(bool int8) {
    char text[512];
    snprintf(text, sizeof text,
             "schema: 1\nname: %s\nkind: cpu\ncompute:\n  vector:\n"
             "    fp32: {peak: 1e9, source: test}\n  matrix:\n"
             "    fp32: {peak: 4e9, source: test}\n%s"
             "memory:\n  - {name: DRAM, bandwidth: 1e9, source: test}\n",
             int8 ? "int8" : "noint8", int8 ? "    int8: {peak: 16e9, source: test}\n" : "");
    char err[256];
    fl_profile *p = NULL;
    if (fl_profile_parse(text, strlen(text), "test.yaml", &p, err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    return p;
}

static const fl_roofline_node *rnode(const fl_report *r, const char *name) {
    const fl_roofline_graph *g = r->roofline[0].before;
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (strcmp(g->nodes[i].name, name) == 0) {
            return &g->nodes[i];
        }
    }
    fail_msg("no roofline node %s", name);
    return NULL;
}

static void near(double a, double b) {
    if (fabs(a - b) > 1e-9 * fabs(b)) {
        fail_msg("%.17g != %.17g", a, b);
    }
}

/* Integer work is timed at the profile's int8 peak when the op's quantized
 * operand is 8-bit, its float work (requantization) at the float peak:
 *   MatMulInteger uint8 x int8 (int_ops 496, see test_onnx_quant): matrix
 *     int8, compute 496 / 16e9; on a profile without an int8 peak, the
 *     explicit fallback: matrix fp32, 496 / 4e9.
 *   QLinearMatMul uint8 [2,5,16] x [16,8] (int_ops 2928, FLOPs 160): 2928 /
 *     16e9 + 160 / 1e9 (vector fp32, no MACs); the integer term (1.83e-7 s
 *     against 1.6e-7) names the unit and dtype: matrix int8. Without int8:
 *     2928 / 4e9 + 160 / 1e9, matrix fp32.
 *   MatMulInteger16 int16 [3,8] x [8,5] (int_ops 240): no int16 peak in the
 *     profile schema: matrix fp32, 240 / 4e9, on both. */
static void test_int8_peak(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    scalars(m);
    ob_input(m, "a2", U8, 2, (int64_t[]){3, 16}, NULL);
    ob_input(m, "b2", I8, 2, (int64_t[]){16, 4}, NULL);
    ob_input(m, "a", U8, 3, (int64_t[]){2, 5, 16}, NULL);
    ob_input(m, "b", U8, 2, (int64_t[]){16, 8}, NULL);
    ob_input(m, "a16", I16, 2, (int64_t[]){3, 8}, NULL);
    ob_input(m, "b16", I16, 2, (int64_t[]){8, 5}, NULL);
    ob_node(m, "MatMulInteger", "mmi", "a2,b2,zu,zi", "y1");
    ob_node(m, "QLinearMatMul", "qmm", "a,s,zu,b,s,zu,s,zu", "y2");
    oc_ms_node(m, "MatMulInteger16", "mm16", "a16,b16", "y3");
    ob_outputs(m, "y", 3);
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    for (int with = 1; with >= 0; with--) {
        fl_profile *p = profile(with);
        fl_options o;
        fl_options_init(&o);
        o.per_node = true;
        const fl_profile *ps[1] = {p};
        o.profiles = ps;
        o.n_profiles = 1;
        fl_report *r = NULL;
        fl_status st = fl_analyze(buf, len, &o, &r);
        if (st != FL_OK) {
            fail_msg("analysis failed: %s", r && r->error ? r->error : "?");
        }
        double ipeak = with ? 16e9 : 4e9;
        const fl_roofline_node *mmi = rnode(r, "mmi");
        assert_string_equal(mmi->unit, "matrix");
        assert_string_equal(mmi->dtype, with ? "int8" : "fp32");
        near(mmi->compute_s, 496 / ipeak);
        const fl_roofline_node *qmm = rnode(r, "qmm");
        near(qmm->flops, 2928 + 160);
        near(qmm->compute_s, 2928 / ipeak + 160 / 1e9);
        assert_string_equal(qmm->unit, "matrix");
        assert_string_equal(qmm->dtype, with ? "int8" : "fp32");
        const fl_roofline_node *mm16 = rnode(r, "mm16");
        assert_string_equal(mm16->unit, "matrix");
        assert_string_equal(mm16->dtype, "fp32");
        near(mm16->compute_s, 240.0 / 4e9);
        fl_report_free(r);
        fl_profile_free(p);
    }
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qgemm),           cmocka_unit_test(test_qgemm_bad_rank),
        cmocka_unit_test(test_qordered_matmul), cmocka_unit_test(test_matmul_integer16),
        cmocka_unit_test(test_qattention),      cmocka_unit_test(test_qattention_bad),
        cmocka_unit_test(test_int8_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
