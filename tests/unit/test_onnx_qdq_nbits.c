/*
 * test_onnx_qdq_nbits.c - the qdq pass's MatMulNBits rule
 * (src/passes/qdq/nbits.c, ONNX Runtime's DQMatMulToMatMulNBits): a
 * DequantizeLinear of 4-bit blockwise weights -> MatMul becomes
 * com.microsoft MatMulNBits. The rewritten graph exactly, the re-laid
 * constants byte for byte (derived from the layout in nbits.c's header,
 * and anchored on the bytes ONNX Runtime 1.30 writes for the same models:
 * its 'extended' graph, read by hand), and the counts before and after
 * (MACs, FLOPs and int_ops equal: MatMulNBits' rule is the chain's).
 *
 * `test_onnx_qdq_nbits --write DIR` writes the models ONNX Runtime runs
 * (NAME.qdq_matmul_nbits.onnx) for tests/integration/ort_quantized.sh.
 */
#include "onnx_passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3, U4 = 21, I4 = 22 };

/* ---- models ---- */

/* A [2, K] float "a" -> MatMul "mm" with DQ(w [K, N] int4/uint4, scales [K/bs, N],
 * zero points (with_zp), axis 0, block_size bs). Weights: element (k, n)
 * = ((k * 7 + n * 3) % 16) - 8 (int4) or that + 8 (uint4); scales 0.01 *
 * (1 + (b + n) % 5); zero points (b * 3 + n) % 16 - 8 (int4) or + 8. */
static ob_model *nbits_model(int wt, int64_t k, int64_t n, int64_t bs, bool with_zp, int64_t axis,
                             bool stripped) {
    ob_model *m = ob_new(21);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){2, k}, NULL);
    int64_t kb = (k + bs - 1) / bs;
    uint8_t *w = calloc((size_t)(k * n + 1) / 2, 1);
    uint8_t *zp = calloc((size_t)(kb * n + 1) / 2, 1);
    float *sc = calloc((size_t)(kb * n), sizeof(float));
    for (int64_t i = 0; i < k * n; i++) {
        int64_t r = i / n, c = i % n;
        int v = (int)((r * 7 + c * 3) % 16) - 8 + (wt == U4 ? 8 : 0);
        w[i / 2] |= (uint8_t)((v & 15) << (4 * (i % 2)));
    }
    for (int64_t i = 0; i < kb * n; i++) {
        int64_t b = i / n, c = i % n;
        int v = (int)((b * 3 + c) % 16) - 8 + (wt == U4 ? 8 : 0);
        zp[i / 2] |= (uint8_t)((v & 15) << (4 * (i % 2)));
        sc[i] = 0.01f * (float)(1 + (b + c) % 5);
    }
    ob_init_raw(m, "w", wt, 2, (int64_t[]){k, n}, stripped ? NULL : w, (size_t)(k * n + 1) / 2);
    ob_init_raw(m, "ws", OB_FLOAT, 2, (int64_t[]){kb, n}, sc, (size_t)(kb * n) * sizeof(float));
    if (with_zp) {
        ob_init_raw(m, "wz", wt, 2, (int64_t[]){kb, n}, zp, (size_t)(kb * n + 1) / 2);
    }
    free(w);
    free(zp);
    free(sc);
    Onnx__NodeProto *d = ob_node(m, "DequantizeLinear", "dq_w", with_zp ? "w,ws,wz" : "w,ws", "wf");
    if (axis >= 0) { /* -1: no axis attr (DequantizeLinear's default 1) */
        ob_attr_i(m, d, "axis", axis);
    }
    ob_attr_i(m, d, "block_size", bs);
    ob_node(m, "MatMul", "mm", "a,wf", "y");
    ob_output(m, "y");
    return m;
}

/* Byte i of Const `name` (a uint8 value). */
static int64_t byte_at(pt_run *r, const char *name, int64_t i) {
    const fl_value *v = pt_out0(r, name)->value;
    assert_non_null(v);
    assert_true(i < v->n);
    return pt_known(v->ints[i]);
}

static double elem_at(pt_run *r, const char *name, int64_t i) {
    double e = 0;
    assert_true(fl__value_f64(pt_out0(r, name)->value, i, &e));
    return e;
}

static void expect_dims(pt_run *r, const char *name, int rank, const int64_t *dims) {
    const fl_tensor *t = pt_out0(r, name);
    assert_int_equal(t->shape.rank, rank);
    for (int i = 0; i < rank; i++) {
        assert_int_equal(pt_known(t->shape.dims[i]), dims[i]);
    }
}

/* The weight of the model at (k, c), unsigned form (int4 + 8), as
 * nbits_model writes it; K padded with 0 past k_rows. */
static int64_t w_u(int64_t k, int64_t c, int64_t k_rows) {
    return k < k_rows ? (k * 7 + c * 3) % 16 : 0;
}

/* int4 [32, 8], block 16, no zero point: mm=MatMulNBits(a, w_T, ws_T),
 * K 32, N 8, bits 4, block_size 16, accuracy_level 4. B' [8, 2, 8]: column
 * c, block b, byte j holds w(16b + 2j, c) + 8 low and w(16b + 2j + 1, c)
 * + 8 high; for c = 0 the unsigned weights are 7k mod 16: bytes 0x70,
 * 0x5e, 0x3c, 0x1a, 0xf8, 0xd6, 0xb4, 0x92 (ORT's own w_T starts so).
 * scales' [16]: element c * 2 + b = 0.01 (1 + (b + c) mod 5). Counts: DQ
 * E(w) 256 int_ops (zero point) + 256 FLOPs (scale), MatMul 2 * 8 * 32 =
 * 512 MACs, 1024 FLOPs: 512 MACs, 1280 FLOPs, 256 int_ops before and
 * after (ORT's graph analysed gives the same). */
static void test_int4(void **state) {
    (void)state;
    pt_run *r = oxp_run(nbits_model(I4, 32, 8, 16, false, 0, false), "qdq");
    oxp_expect_graph(r, "mm=MatMulNBits(a,w_T,ws_T)");
    assert_int_equal(pt_fired(r, "qdq_matmul_nbits", "mm"), 1);
    assert_int_equal(pt_attr_i(r, "mm", "K"), 32);
    assert_int_equal(pt_attr_i(r, "mm", "N"), 8);
    assert_int_equal(pt_attr_i(r, "mm", "bits"), 4);
    assert_int_equal(pt_attr_i(r, "mm", "block_size"), 16);
    assert_int_equal(pt_attr_i(r, "mm", "accuracy_level"), 4);
    expect_dims(r, "w_T", 3, (int64_t[]){8, 2, 8});
    assert_int_equal(pt_out0(r, "w_T")->dtype, FL_DT_UINT8);
    static const int64_t ort_col0[8] = {0x70, 0x5e, 0x3c, 0x1a, 0xf8, 0xd6, 0xb4, 0x92};
    for (int j = 0; j < 8; j++) {
        assert_int_equal(byte_at(r, "w_T", j), ort_col0[j]);
    }
    for (int64_t c = 0; c < 8; c++) {
        for (int64_t b = 0; b < 2; b++) {
            for (int64_t j = 0; j < 8; j++) {
                int64_t k = 16 * b + 2 * j;
                assert_int_equal(byte_at(r, "w_T", c * 16 + b * 8 + j),
                                 w_u(k, c, 32) | w_u(k + 1, c, 32) << 4);
            }
            assert_true(elem_at(r, "ws_T", c * 2 + b) ==
                        (double)(0.01f * (float)(1 + (b + c) % 5)));
        }
    }
    expect_dims(r, "ws_T", 1, (int64_t[]){16});
    assert_int_equal(pt_known(r->before.macs), 512);
    assert_int_equal(pt_known(r->after.macs), 512);
    assert_int_equal(pt_known(r->before.flops), 1280);
    assert_int_equal(pt_known(r->after.flops), 1280);
    assert_int_equal(pt_known(r->before.int_ops), 256);
    assert_int_equal(pt_known(r->after.int_ops), 256);
    assert_null(fl__graph_find(r->g, "w")); /* the int4 weights went with the DQ */
    pt_free(r);
}

/* uint4 [40, 8] with zero points, block 16: k_blocks 3, B' [8, 3, 8], the
 * last block's weights 32..39 then 0 padding (bytes 4..7 of it zero); zero
 * points' [8 * 2]: column c's blocks b = 0, 1 in byte 2c (low, high) and
 * b = 2 in byte 2c + 1, the value (3b + c) mod 16: 0x30 0x06 0x41 0x07 ...
 * (ORT's wz_T: 3006410752086309740a850b960ca70d). uint4 without zero
 * point: zero_points' all 0 (MatMulNBits' default would be 8). */
static void test_uint4(void **state) {
    (void)state;
    pt_run *r = oxp_run(nbits_model(U4, 40, 8, 16, true, 0, false), "qdq");
    oxp_expect_graph(r, "mm=MatMulNBits(a,w_T,ws_T,wz_T)");
    expect_dims(r, "w_T", 3, (int64_t[]){8, 3, 8});
    expect_dims(r, "wz_T", 1, (int64_t[]){16});
    static const int64_t ort_zp[16] = {0x30, 0x06, 0x41, 0x07, 0x52, 0x08, 0x63, 0x09,
                                       0x74, 0x0a, 0x85, 0x0b, 0x96, 0x0c, 0xa7, 0x0d};
    for (int64_t i = 0; i < 16; i++) {
        assert_int_equal(byte_at(r, "wz_T", i), ort_zp[i]);
        int64_t c = i / 2, b = 2 * (i % 2);
        int64_t want = (3 * b + c) % 16 | (i % 2 ? 0 : ((3 * (b + 1) + c) % 16) << 4);
        assert_int_equal(byte_at(r, "wz_T", i), want);
    }
    for (int64_t c = 0; c < 8; c++) {
        for (int64_t j = 0; j < 8; j++) {
            int64_t k = 32 + 2 * j;
            assert_int_equal(byte_at(r, "w_T", c * 24 + 16 + j), w_u(k, c, 40) | w_u(k + 1, c, 40)
                                                                                     << 4);
        }
        assert_int_equal(byte_at(r, "w_T", c * 24 + 16 + 7), 0);
    }
    assert_int_equal(pt_known(r->after.macs), 2 * 8 * 40);
    pt_free(r);

    r = oxp_run(nbits_model(U4, 32, 8, 16, false, 0, false), "qdq");
    oxp_expect_graph(r, "mm=MatMulNBits(a,w_T,ws_T,fused_DQ_MatMul_zero_point_T)");
    expect_dims(r, "fused_DQ_MatMul_zero_point_T", 1, (int64_t[]){8});
    for (int64_t i = 0; i < 8; i++) {
        assert_int_equal(byte_at(r, "fused_DQ_MatMul_zero_point_T", i), 0);
    }
    pt_free(r);
}

/* Weights stripped: the same rewrite with a stripped B' of its shape; the
 * counts as with values. */
static void test_stripped(void **state) {
    (void)state;
    pt_run *r = oxp_run(nbits_model(I4, 32, 8, 16, false, 0, true), "qdq");
    oxp_expect_graph(r, "mm=MatMulNBits(a,w_T,ws_T)");
    expect_dims(r, "w_T", 3, (int64_t[]){8, 2, 8});
    assert_null(pt_out0(r, "w_T")->value);
    assert_int_equal(pt_known(r->after.macs), 512);
    assert_int_equal(pt_known(r->after.flops), 1280);
    pt_free(r);
}

/* Left as they are: no axis attr (the default 1), block_size 8, and a DQ
 * read by a second node. */
static void test_refusals(void **state) {
    (void)state;
    pt_run *r = oxp_run(nbits_model(I4, 32, 8, 16, false, -1, false), "qdq");
    assert_int_equal(pt_fired(r, "qdq_matmul_nbits", NULL), 0);
    oxp_expect_graph(r, "dq_w=DequantizeLinear(w,ws); mm=MatMul(a,dq_w)");
    pt_free(r);
    r = oxp_run(nbits_model(I4, 32, 8, 8, false, 0, false), "qdq");
    assert_int_equal(pt_fired(r, "qdq_matmul_nbits", NULL), 0);
    pt_free(r);
    ob_model *m = nbits_model(I4, 32, 8, 16, false, 0, false);
    ob_node(m, "Neg", "neg", "wf", "wneg");
    ob_output(m, "wneg");
    r = oxp_run(m, "qdq");
    assert_int_equal(pt_fired(r, "qdq_matmul_nbits", NULL), 0);
    pt_free(r);
}

/* ---- writing the models ---- */

static int write_models(const char *dir) {
    oxp_named ms[] = {
        {"nbits_i4.qdq_matmul_nbits", nbits_model(I4, 32, 8, 16, false, 0, false)},
        {"nbits_i4zp.qdq_matmul_nbits", nbits_model(I4, 32, 8, 16, true, 0, false)},
        {"nbits_u4.qdq_matmul_nbits", nbits_model(U4, 32, 8, 16, false, 0, false)},
        {"nbits_u4zp.qdq_matmul_nbits", nbits_model(U4, 40, 8, 16, true, 0, false)},
    };
    return oxp_write_models(dir, ms, sizeof ms / sizeof ms[0]);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        return write_models(argv[2]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int4),
        cmocka_unit_test(test_uint4),
        cmocka_unit_test(test_stripped),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
