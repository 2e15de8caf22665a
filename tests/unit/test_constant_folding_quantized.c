/*
 * test_constant_folding_quantized.c - QuantizedMatMul (src/ops/nn.c: shapes,
 * FLOPs, errors) and constant folding's multiply-by-zero on it
 * (AddQuantizedMatMulMinMaxOutConstNodes): the product becomes a zeros Const
 * of Toutput, its min_out / max_out outputs the float Consts
 * ConstantFolding/<n>-quantized_matmul_min_out / -max_out holding Toutput's
 * range, waiting on every input of the product.
 */
#include "passtest.h"

#include <string.h>

enum { QUINT8 = 12, QINT32 = 13, QINT8 = 11 };

static const pt_opts CONSTFOLD = {.passes = "constfold", .iterations = 1};

static void scalar_f(tg_graph *g, const char *name, float v) {
    tg_const_f32_vals(g, name, 0, NULL, &v, 1);
}

/* a [2,3] (quint8 zeros when a_zero, else a placeholder) x b [3,4] (quint8
 * placeholder) -> qm; readers: out = Reshape(qm, shp), lo = Mul(qm:1, f),
 * hi = Mul(qm:2, f), with non-constant shp and f so that they stay. */
static tg_graph *qmm_graph(bool a_zero, int toutput, bool set_toutput) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    if (a_zero) {
        static const uint8_t zeros[6] = {0};
        tg_const_raw(g, "a", QUINT8, 2, (const int64_t[]){2, 3}, zeros, sizeof zeros);
    } else {
        tg_placeholder(g, "a", QUINT8, 2, (const int64_t[]){2, 3});
    }
    tg_placeholder(g, "b", QUINT8, 2, (const int64_t[]){3, 4});
    scalar_f(g, "min_a", -1.0f);
    scalar_f(g, "max_a", 1.0f);
    scalar_f(g, "min_b", -2.0f);
    scalar_f(g, "max_b", 2.0f);
    tg_node *q =
        tg_add(g, "qm", "QuantizedMatMul", "a", "b", "min_a", "max_a", "min_b", "max_b", NULL);
    tg_attr_type(q, "T1", QUINT8);
    tg_attr_type(q, "T2", QUINT8);
    if (set_toutput) {
        tg_attr_type(q, "Toutput", toutput);
    }
    tg_placeholder(g, "shp", I32, 1, (const int64_t[]){2});
    tg_placeholder(g, "f", F32, 0, NULL);
    tg_node *r = tg_add(g, "out", "Reshape", "qm", "shp", NULL);
    tg_attr_type(r, "T", toutput);
    pt_op2(g, "lo", "Mul", "qm:1", "f", F32);
    pt_op2(g, "hi", "Mul", "qm:2", "f", F32);
    return g;
}

static void test_quantized_matmul_shapes_and_cost(void **state) {
    (void)state;
    tg_graph *g = qmm_graph(false, QINT32, false);
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "qm");
    assert_int_equal(n->n_outputs, 3);
    assert_string_equal(n->outputs[0].shape, "[2,4]");
    assert_string_equal(n->outputs[0].dtype, "qint32"); /* Toutput's default */
    assert_string_equal(n->outputs[1].shape, "[]");
    assert_string_equal(n->outputs[2].dtype, "float");
    /* 2 * M * N * K = 2 * 2 * 4 * 3; no tfprof rule. */
    assert_int_equal(n->flops.value, 48);
    assert_int_equal(n->macs.value, 24);
    assert_int_equal(n->tfprof_flops.value, 0);
    fl_report_free(r);
    tg_free(g);

    /* A range input that is not a scalar, and mismatched inner dims. */
    g = tg_new();
    tg_placeholder(g, "a", QUINT8, 2, (const int64_t[]){2, 3});
    tg_placeholder(g, "b", QUINT8, 2, (const int64_t[]){5, 4});
    tg_const_f32(g, "r", 1, (const int64_t[]){2}, NULL, 0);
    tg_const_f32_vals(g, "s", 0, NULL, (const float[]){1}, 1);
    tg_add(g, "qm", "QuantizedMatMul", "a", "b", "s", "s", "s", "s", NULL);
    tg_expect_error(g, NULL, FL_EINVAL, "inner dimensions of 'a' and 'b'");
    tg_free(g);
    g = tg_new();
    tg_placeholder(g, "a", QUINT8, 2, (const int64_t[]){2, 3});
    tg_placeholder(g, "b", QUINT8, 2, (const int64_t[]){3, 4});
    tg_const_f32(g, "r", 1, (const int64_t[]){2}, NULL, 0);
    tg_const_f32_vals(g, "s", 0, NULL, (const float[]){1}, 1);
    tg_add(g, "qm", "QuantizedMatMul", "a", "b", "s", "r", "s", "s", NULL);
    tg_expect_error(g, NULL, FL_EINVAL, "max_a");
    tg_free(g);
}

static void test_quantized_matmul_by_zeros(void **state) {
    (void)state;
    tg_graph *g = qmm_graph(true, QINT32, true);
    pt_run *p = pt_pipeline(g, &CONSTFOLD);
    assert_string_equal(
        pt_dump(p),
        "a=Const(); b=Placeholder(); min_a=Const(); max_a=Const(); min_b=Const(); max_b=Const(); "
        "qm=Const(^a,^b,^min_a,^max_a,^min_b,^max_b); shp=Placeholder(); f=Placeholder(); "
        "out=Reshape(qm,shp); lo=Mul(ConstantFolding/qm-quantized_matmul_min_out,f); "
        "hi=Mul(ConstantFolding/qm-quantized_matmul_max_out,f); "
        "ConstantFolding/qm-quantized_matmul_min_out=Const(^a,^b,^min_a,^max_a,^min_b,^max_b); "
        "ConstantFolding/qm-quantized_matmul_max_out=Const(^a,^b,^min_a,^max_a,^min_b,^max_b)");
    assert_true(pt_fired(p, "multiply_by_zero", "qm"));
    pt_expect_shape(p, "qm", QINT32, 2, 2, 4);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(pt_ci(p, "qm", i), 0);
    }
    pt_expect_shape(p, "ConstantFolding/qm-quantized_matmul_min_out", F32, 0);
    assert_true(pt_cf(p, "ConstantFolding/qm-quantized_matmul_min_out", 0) == -2147483648.0);
    /* qint32's max as a float rounds up to 2^31. */
    assert_true(pt_cf(p, "ConstantFolding/qm-quantized_matmul_max_out", 0) == 2147483648.0);
    pt_free(p);
    tg_free(g);
}

/* The range follows Toutput. */
static void test_quantized_matmul_range_of_toutput(void **state) {
    (void)state;
    tg_graph *g = qmm_graph(true, QINT8, true);
    pt_run *p = pt_pipeline(g, &CONSTFOLD);
    pt_expect_shape(p, "qm", QINT8, 2, 2, 4);
    assert_true(pt_cf(p, "ConstantFolding/qm-quantized_matmul_min_out", 0) == -128.0);
    assert_true(pt_cf(p, "ConstantFolding/qm-quantized_matmul_max_out", 0) == 127.0);
    pt_free(p);
    tg_free(g);
}

/* Not by zeros; a name already taken (TensorFlow fails the pass there). */
static void test_quantized_matmul_kept(void **state) {
    (void)state;
    tg_graph *g = qmm_graph(false, QINT32, true);
    pt_run *p = pt_pipeline(g, &CONSTFOLD);
    assert_string_equal(pt_need(p, "qm")->op, "QuantizedMatMul");
    assert_false(pt_fired(p, "multiply_by_zero", NULL));
    pt_free(p);
    tg_free(g);

    g = qmm_graph(true, QINT32, true);
    tg_const_f32_vals(g, "ConstantFolding/qm-quantized_matmul_max_out", 0, NULL, (const float[]){0},
                      1);
    pt_op2(g, "taken", "Mul", "ConstantFolding/qm-quantized_matmul_max_out", "f", F32);
    p = pt_pipeline(g, &CONSTFOLD);
    assert_string_equal(pt_need(p, "qm")->op, "QuantizedMatMul");
    pt_expect_node(p, "hi", "Mul", "qm:2", "f", NULL);
    pt_free(p);
    tg_free(g);
}

/* Beyond the folding limit the product stays. */
static void test_quantized_matmul_kept_over_limit(void **state) {
    (void)state;
    tg_graph *g = qmm_graph(true, QINT32, true);
    pt_opts o = CONSTFOLD;
    o.max_folded_bytes = 16; /* the zeros would be 2 * 4 * 4 bytes */
    pt_run *p = pt_pipeline(g, &o);
    assert_string_equal(pt_need(p, "qm")->op, "QuantizedMatMul");
    pt_free(p);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantized_matmul_shapes_and_cost),
        cmocka_unit_test(test_quantized_matmul_by_zeros),
        cmocka_unit_test(test_quantized_matmul_range_of_toutput),
        cmocka_unit_test(test_quantized_matmul_kept),
        cmocka_unit_test(test_quantized_matmul_kept_over_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
