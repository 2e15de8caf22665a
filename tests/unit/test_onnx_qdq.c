/*
 * test_onnx_qdq.c - the QDQ fusion pass (src/passes/qdq/fuse.c) on small
 * hand-built ONNX graphs: each rule's rewrite (the operator, its inputs in
 * ONNX Runtime's order, the attrs kept, the group's nodes gone, the counts
 * of the integer operator as the QOperator rules in README give them) and
 * each refusal (the group left, the ledger's reason). Graph input xq is
 * uint8 (already quantized); the group's QuantizeLinear is read by a
 * DequantizeLinear whose float output is the graph output, as between two
 * layers of a real network (so the fused node is named after the op).
 */
#include "foldline/foldline.h"
#include "onnx_passtest.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3, U16 = 4, I16 = 5 };

/* A float scalar initializer holding v. */
static void init_scale(ob_model *m, const char *name, float v) {
    ob_init_raw(m, name, OB_FLOAT, 0, NULL, &v, sizeof v);
}

static void init_u8(ob_model *m, const char *name, uint8_t v) {
    ob_init_raw(m, name, U8, 0, NULL, &v, 1);
}

/* The common scalars: s = 0.02, z = uint8 0, s2 = 0.05 (another scale),
 * z10 = uint8 10, sneg = -0.02. */
static ob_model *qdq_model(void) {
    ob_model *m = oc_ms_model();
    init_scale(m, "s", 0.02f);
    init_scale(m, "s2", 0.05f);
    init_scale(m, "sneg", -0.02f);
    init_u8(m, "z", 0);
    init_u8(m, "z10", 10);
    return m;
}

/* y = DQ(Q(t_out, qs, qz)) as the graph output "y". */
static void close_group(ob_model *m, const char *t_out, const char *qs, const char *qz) {
    char in[96];
    snprintf(in, sizeof in, "%s,%s,%s", t_out, qs, qz);
    ob_node(m, "QuantizeLinear", "q", in, "yq");
    snprintf(in, sizeof in, "yq,%s,%s", qs, qz);
    ob_node(m, "DequantizeLinear", "dq_out", in, "y");
    ob_output(m, "y");
}

static fl_report *run_passes(ob_model *m, const char *passes, const char *disable) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = passes;
    const char *off[1] = {disable};
    if (disable) {
        o.disabled_passes = off;
        o.n_disabled_passes = 1;
    }
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, &o, &r);
    free(buf);
    if (st != FL_OK) {
        printf("status %d: %s\n", st, r && r->error ? r->error : "?");
    }
    assert_int_equal(st, FL_OK);
    assert_true(r->optimized);
    return r;
}

static const fl_report_node *after(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        if (strcmp(r->nodes_after[i].name, name) == 0) {
            return &r->nodes_after[i];
        }
    }
    return NULL;
}

static size_t count_op(const fl_report *r, const char *op) {
    size_t k = 0;
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        k += strcmp(r->nodes_after[i].op, op) == 0;
    }
    return k;
}

/* The ledger entries of rule `rule`; *detail: the last one's detail. */
static size_t fired(const fl_report *r, const char *rule, const char **detail) {
    size_t k = 0;
    for (size_t i = 0; i < r->n_ledger; i++) {
        if (strcmp(r->ledger[i].rule, rule) == 0) {
            k++;
            if (detail) {
                *detail = r->ledger[i].detail;
            }
        }
    }
    return k;
}

static void assert_left(const fl_report *r, const char *why) {
    const char *detail = NULL;
    assert_int_equal(fired(r, "qdq_left", &detail), 1);
    if (!strstr(detail, why)) {
        fail_msg("ledger detail '%s' lacks '%s'", detail, why);
    }
}

/* DQ(xq uint8 [1,3,8,8]), DQ(w int8 [4,3,3,3], per-channel scales [4]
 * along axis 0), DQ(b int32 [4]) -> Conv -> Relu -> Q(s, z). The Relu is
 * redundant (z is uint8's minimum): QLinearConv "conv" (x, xs, xz, w, ws,
 * wz, ys, yz, b) with Conv's attrs. y [1,4,6,6]: E(y) 144; M = 144 * 27 =
 * 3888; int_ops 2M + E(x) 192 + E(w) 108 + E(y) 144 + E(y) 144 (bias) =
 * 8364; FLOPs 2 E(y) = 288 (README's QLinearConv rule). The bias scales
 * are x_scale * w_scale = 0.02 * ws (ORT's check); with bias_off they are ws
 * itself: left. conv_act_model: the same with activation `act` ("Relu", or
 * "Clip" reading lo, hi) before Q(qs, qz). */
static ob_model *conv_act_model(const char *act, const char *qs, const char *qz, bool bias_off) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 3, 8, 8}, NULL);
    ob_init_raw(m, "w", I8, 4, (int64_t[]){4, 3, 3, 3}, NULL, 0);
    float ws[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    float bsc[4] = {0.002f, 0.004f, 0.006f, 0.008f};
    int8_t wz[4] = {0};
    int32_t b[4] = {1, 2, 3, 4}, bz[4] = {0};
    ob_init_raw(m, "ws", OB_FLOAT, 1, (int64_t[]){4}, ws, sizeof ws);
    ob_init_raw(m, "wz", I8, 1, (int64_t[]){4}, wz, sizeof wz);
    ob_init_raw(m, "b", OB_INT32, 1, (int64_t[]){4}, b, sizeof b);
    ob_init_raw(m, "bs", OB_FLOAT, 1, (int64_t[]){4}, bias_off ? ws : bsc, sizeof ws);
    ob_init_raw(m, "bz", OB_INT32, 1, (int64_t[]){4}, bz, sizeof bz);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    Onnx__NodeProto *n = ob_node(m, "DequantizeLinear", "dq_w", "w,ws,wz", "wf");
    ob_attr_i(m, n, "axis", 0);
    n = ob_node(m, "DequantizeLinear", "dq_b", "b,bs,bz", "bf");
    ob_attr_i(m, n, "axis", 0);
    n = ob_node(m, "Conv", "conv", "x,wf,bf", "c");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_node(m, act, "relu", strcmp(act, "Clip") == 0 ? "c,lo,hi" : "c", "r");
    close_group(m, "r", qs, qz);
    return m;
}

static ob_model *conv_model(const char *relu_zp, bool bias_off) {
    return conv_act_model("Relu", "s", relu_zp, bias_off);
}

static void test_conv(void **state) {
    (void)state;
    fl_report *r = run_passes(conv_model("z", false), "qdq", NULL);
    const fl_report_node *c = after(r, "conv");
    assert_non_null(c);
    assert_string_equal(c->op, "QLinearConv");
    assert_string_equal(c->outputs[0].shape, "[1,4,6,6]");
    assert_string_equal(c->outputs[0].dtype, "uint8");
    oc_assert_int(c, 288, 8364);
    for (const char *gone = "Conv\0Relu\0QuantizeLinear\0"; *gone; gone += strlen(gone) + 1) {
        assert_int_equal(count_op(r, gone), 0);
    }
    assert_int_equal(count_op(r, "DequantizeLinear"), 1); /* dq_out only */
    assert_int_equal(fired(r, "qdq_conv", NULL), 1);
    /* ORT removes the Relu before it fuses (act_q.c), as here */
    assert_int_equal(fired(r, "qdq_relu_quant", NULL), 1);
    assert_int_equal(r->after.macs.value, 0);
    assert_int_equal(r->before.macs.value, 3888);
    fl_report_free(r);

    /* --disable qdq: the float graph stays (MACs 3888 after). */
    r = run_passes(conv_model("z", false), "default", "qdq");
    assert_int_equal(r->after.macs.value, 3888);
    assert_int_equal(fired(r, "qdq_conv", NULL), 0);
    fl_report_free(r);

    /* Q's zero point 10: the Relu clips what Q's range keeps: left. */
    r = run_passes(conv_model("z10", false), "qdq", NULL);
    assert_left(r, "Relu/Clip before the QuantizeLinear is not made redundant");
    assert_int_equal(count_op(r, "Conv"), 1);
    assert_int_equal(r->after.macs.value, 3888);
    fl_report_free(r);

    /* Bias scales ws instead of 0.02 * ws: QLinearConv would add the bias
     * at the wrong scale: left. */
    r = run_passes(conv_model("z", true), "qdq", NULL);
    assert_left(r, "the bias's scale is not x_scale * w_scale");
    assert_int_equal(count_op(r, "Conv"), 1);
    fl_report_free(r);
}

/* DQ(a uint8 [2,4]) x DQ(b int8 [4,3], scales [3] along axis 1) -> MatMul
 * -> Q: QLinearMatMul (a, as, az, b, bs, bz, ys, yz). M = 2*3*4 = 24:
 * int_ops 48 + E(a) 8 + E(b) 12 + E(y) 6 = 74, FLOPs 2 E(y) = 12.
 * Scales [3] along axis 0 of b ([4,3]: not its N axis): left. */
static ob_model *matmul_model(int64_t axis) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    float bs[3] = {0.1f, 0.2f, 0.3f};
    int8_t bz[3] = {0};
    ob_init_raw(m, "b", I8, 2, (int64_t[]){4, 3}, NULL, 0);
    ob_init_raw(m, "bs", OB_FLOAT, 1, (int64_t[]){3}, bs, sizeof bs);
    ob_init_raw(m, "bz", I8, 1, (int64_t[]){3}, bz, sizeof bz);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s,z", "a");
    Onnx__NodeProto *n = ob_node(m, "DequantizeLinear", "dq_b", "b,bs,bz", "bf");
    ob_attr_i(m, n, "axis", axis);
    ob_node(m, "MatMul", "mm", "a,bf", "t");
    close_group(m, "t", "s2", "z");
    return m;
}

static void test_matmul(void **state) {
    (void)state;
    fl_report *r = run_passes(matmul_model(1), "qdq", NULL);
    const fl_report_node *c = after(r, "mm");
    assert_non_null(c);
    assert_string_equal(c->op, "QLinearMatMul");
    assert_string_equal(c->outputs[0].shape, "[2,3]");
    oc_assert_int(c, 12, 74);
    assert_int_equal(fired(r, "qdq_matmul", NULL), 1);
    assert_int_equal(count_op(r, "DequantizeLinear"), 1);
    fl_report_free(r);
    r = run_passes(matmul_model(0), "qdq", NULL);
    assert_left(r, "quantized along an axis the QLinear operator does not take");
    assert_int_equal(count_op(r, "MatMul"), 1);
    fl_report_free(r);
}

/* DQ(A uint8 [2,4]), DQ(B int8 [3,4]) (transB 1, per-tensor), DQ(C int32
 * [3]) -> Gemm (alpha 1, beta as given) -> Q: com.microsoft QGemm (A, As,
 * Az, B, Bs, Bz, C, Ys, Yz) with transB (no beta: QGemm has none). M = 24:
 * int_ops 48 + E(A) 8 + E(B) 12 + E(Y) 6 (C) + E(Y) 6 (Y's zero point) =
 * 80, FLOPs 2 E(Y) = 12 (README's QGemm rule). beta 0.5: left. */
static ob_model *gemm_model(float beta) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    int32_t c[3] = {1, 2, 3}, cz = 0;
    int8_t bz = 0;
    ob_init_raw(m, "B", I8, 2, (int64_t[]){3, 4}, NULL, 0);
    ob_init_raw(m, "bz", I8, 0, NULL, &bz, 1);
    ob_init_raw(m, "C", OB_INT32, 1, (int64_t[]){3}, c, sizeof c);
    ob_init_raw(m, "cz", OB_INT32, 0, NULL, &cz, sizeof cz);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s,z", "a");
    ob_node(m, "DequantizeLinear", "dq_b", "B,s2,bz", "bf");
    ob_node(m, "DequantizeLinear", "dq_c", "C,s,cz", "cf");
    Onnx__NodeProto *n = ob_node(m, "Gemm", "fc", "a,bf,cf", "t");
    ob_attr_i(m, n, "transB", 1);
    ob_attr_f(m, n, "beta", beta);
    close_group(m, "t", "s2", "z");
    return m;
}

static void test_gemm(void **state) {
    (void)state;
    fl_report *r = run_passes(gemm_model(1.0f), "qdq", NULL);
    const fl_report_node *c = after(r, "fc");
    assert_non_null(c);
    assert_string_equal(c->op, "QGemm");
    assert_string_equal(c->outputs[0].shape, "[2,3]");
    oc_assert_int(c, 12, 80);
    assert_int_equal(fired(r, "qdq_gemm", NULL), 1);
    fl_report_free(r);
    r = run_passes(gemm_model(0.5f), "qdq", NULL);
    assert_left(r, "Gemm's beta is not 1");
    fl_report_free(r);
}

/* DQ(a uint8 [2,3,4]) + DQ(b uint8 [4]) -> Add|Mul -> Q: QLinearAdd|Mul
 * (a, as, az, b, bs, bz, cs, cz). E(A) 24, E(B) 4, E(C) 24 (README):
 * QLinearAdd int_ops 52, FLOPs 24 + 4 + 48 = 76; QLinearMul int_ops 28 +
 * 24 + 24 = 76, FLOPs 48. b's DQ is also read by a Neg: it stays for it.
 * b quantized per axis (scales [4]): left. */
static ob_model *binary_model(const char *op, bool b_per_axis) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "bq", U8, 1, (int64_t[]){4}, NULL);
    float s4[4] = {0.1f, 0.1f, 0.2f, 0.2f};
    uint8_t z4[4] = {0};
    ob_init_raw(m, "s4", OB_FLOAT, 1, (int64_t[]){4}, s4, sizeof s4);
    ob_init_raw(m, "z4", U8, 1, (int64_t[]){4}, z4, sizeof z4);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s,z", "a");
    Onnx__NodeProto *n =
        ob_node(m, "DequantizeLinear", "dq_b", b_per_axis ? "bq,s4,z4" : "bq,s2,z", "b");
    ob_attr_i(m, n, "axis", 0);
    ob_node(m, op, "bin", "a,b", "t");
    ob_node(m, "Neg", "other", "b", "nb");
    ob_output(m, "nb");
    close_group(m, "t", "s2", "z");
    return m;
}

static void test_binary(void **state) {
    (void)state;
    fl_report *r = run_passes(binary_model("Add", false), "qdq", NULL);
    const fl_report_node *c = after(r, "bin");
    assert_non_null(c);
    assert_string_equal(c->op, "QLinearAdd");
    assert_string_equal(c->outputs[0].shape, "[2,3,4]");
    oc_assert_int(c, 76, 52);
    assert_non_null(after(r, "dq_b")); /* still read by the Neg */
    assert_null(after(r, "dq_a"));
    assert_int_equal(fired(r, "qdq_binary", NULL), 1);
    fl_report_free(r);
    r = run_passes(binary_model("Mul", false), "qdq", NULL);
    assert_string_equal(after(r, "bin")->op, "QLinearMul");
    oc_assert_int(after(r, "bin"), 48, 76);
    fl_report_free(r);
    r = run_passes(binary_model("Add", true), "qdq", NULL);
    assert_left(r, "quantized per axis");
    assert_string_equal(after(r, "bin")->op, "Add");
    fl_report_free(r);
}

/* DQ(xq uint8 [1,4,3,3]) -> op -> Q(s2, z), E(X) 36 (qlinear.c's rules):
 * GlobalAveragePool -> QLinearGlobalAveragePool [1,4,1,1] (E(Y) 4): int_ops
 * 36 + 4 = 40, FLOPs 36 + 36 + 8 = 80; AveragePool kernel [3,3] ->
 * QLinearAveragePool [1,4,1,1]: int_ops 40, FLOPs 36 + 9 * 4 + 8 = 80;
 * LeakyRelu, Sigmoid -> QLinearLeakyRelu, QLinearSigmoid [1,4,3,3]:
 * int_ops 2 * 36 = 72, FLOPs 4 * 36 = 144; Softmax (axis 1) ->
 * QLinearSoftmax: int_ops 72, FLOPs 8 * 36 = 288. With q_is_output, Q's value is
 * the graph output: the fused node takes Q's name. */
static ob_model *unary_model(const char *op, bool q_is_output) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 4, 3, 3}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    Onnx__NodeProto *n = ob_node(m, op, "op", "x", "t");
    if (strcmp(op, "AveragePool") == 0) {
        ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
    }
    if (strcmp(op, "LeakyRelu") == 0) {
        ob_attr_f(m, n, "alpha", 0.1f);
    }
    if (strcmp(op, "Softmax") == 0) {
        ob_attr_i(m, n, "axis", 1);
    }
    if (q_is_output) {
        ob_node(m, "QuantizeLinear", "q", "t,s2,z", "yq");
        ob_output(m, "yq");
    } else {
        close_group(m, "t", "s2", "z");
    }
    return m;
}

static void test_unary(void **state) {
    (void)state;
    const char *ops[] = {"GlobalAveragePool", "AveragePool", "LeakyRelu", "Sigmoid", "Softmax"};
    const char *want[] = {"QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearLeakyRelu",
                          "QLinearSigmoid", "QLinearSoftmax"};
    const char *shape[] = {"[1,4,1,1]", "[1,4,1,1]", "[1,4,3,3]", "[1,4,3,3]", "[1,4,3,3]"};
    const int64_t flops[] = {80, 80, 144, 144, 288}, ints[] = {40, 40, 72, 72, 72};
    for (int i = 0; i < 5; i++) {
        fl_report *r = run_passes(unary_model(ops[i], false), "qdq", NULL);
        const fl_report_node *c = after(r, "op");
        assert_non_null(c);
        assert_string_equal(c->op, want[i]);
        assert_string_equal(c->outputs[0].shape, shape[i]);
        assert_string_equal(c->outputs[0].dtype, "uint8");
        oc_assert_int(c, flops[i], ints[i]);
        assert_int_equal(fired(r, "qdq_unary", NULL), 1);
        assert_int_equal(count_op(r, ops[i]) + count_op(r, "QuantizeLinear"), 0);
        fl_report_free(r);
    }
    fl_report *r = run_passes(unary_model("GlobalAveragePool", true), "qdq", NULL);
    assert_null(after(r, "op"));
    assert_string_equal(after(r, "q")->op, "QLinearGlobalAveragePool");
    assert_int_equal(count_op(r, "QuantizeLinear") + count_op(r, "GlobalAveragePool"), 0);
    fl_report_free(r);
}

/* DQ(x1 [1,2,3,3]), DQ(x2 [1,3,3,3]), DQ(x3 [1,1,3,3]) -> Concat axis 1 ->
 * Q: QLinearConcat (ys, yz, x1, s, z, x2, s, z, x3, s, z) -> [1,6,3,3],
 * E(Y) 54: int_ops 108, FLOPs 108. */
static void test_concat(void **state) {
    (void)state;
    ob_model *m = qdq_model();
    ob_input(m, "x1", U8, 4, (int64_t[]){1, 2, 3, 3}, NULL);
    ob_input(m, "x2", U8, 4, (int64_t[]){1, 3, 3, 3}, NULL);
    ob_input(m, "x3", U8, 4, (int64_t[]){1, 1, 3, 3}, NULL);
    ob_node(m, "DequantizeLinear", "dq1", "x1,s,z", "f1");
    ob_node(m, "DequantizeLinear", "dq2", "x2,s2,z", "f2");
    ob_node(m, "DequantizeLinear", "dq3", "x3,s,z10", "f3");
    Onnx__NodeProto *n = ob_node(m, "Concat", "cat", "f1,f2,f3", "t");
    ob_attr_i(m, n, "axis", 1);
    close_group(m, "t", "s2", "z");
    fl_report *r = run_passes(m, "qdq", NULL);
    const fl_report_node *c = after(r, "cat");
    assert_non_null(c);
    assert_string_equal(c->op, "QLinearConcat");
    assert_string_equal(c->outputs[0].shape, "[1,6,3,3]");
    oc_assert_int(c, 108, 108);
    assert_int_equal(fired(r, "qdq_variadic", NULL), 1);
    assert_int_equal(count_op(r, "DequantizeLinear"), 1);
    fl_report_free(r);
}

/* DQ(xq uint8 [1,2,4,4], s, z) -> MaxPool kernel [2,2] strides [2,2] ->
 * Q(qs, z): equal parameters: MaxPool on the uint8 tensor [1,2,2,2], its 4
 * * 8 = 32 comparisons integer ops, 0 FLOPs; Q/DQ gone. Q with another
 * scale, or both with a negative one: left. Reshape to [1,32] with equal
 * parameters: a Reshape of uint8. */
static ob_model *drop_model(const char *op, const char *ds, const char *qs) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 2, 4, 4}, NULL);
    ob_init_i64(m, "shape", 1, (int64_t[]){2}, (int64_t[]){1, 32});
    char in[32];
    snprintf(in, sizeof in, "xq,%s,z", ds);
    ob_node(m, "DequantizeLinear", "dq_x", in, "x");
    Onnx__NodeProto *n = ob_node(m, op, "op", strcmp(op, "Reshape") == 0 ? "x,shape" : "x", "t");
    if (strcmp(op, "MaxPool") == 0) {
        ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){2, 2});
        ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
    }
    close_group(m, "t", qs, "z");
    return m;
}

static void test_drop(void **state) {
    (void)state;
    fl_report *r = run_passes(drop_model("MaxPool", "s", "s"), "qdq", NULL);
    const fl_report_node *c = after(r, "op");
    assert_string_equal(c->op, "MaxPool");
    assert_string_equal(c->outputs[0].shape, "[1,2,2,2]");
    assert_string_equal(c->outputs[0].dtype, "uint8");
    oc_assert_int(c, 0, 32);
    assert_int_equal(fired(r, "qdq_drop", NULL), 1);
    assert_int_equal(count_op(r, "QuantizeLinear"), 0);
    assert_int_equal(count_op(r, "DequantizeLinear"), 1);
    fl_report_free(r);
    r = run_passes(drop_model("MaxPool", "s", "s2"), "qdq", NULL);
    assert_left(r, "differ in scale or zero point");
    assert_string_equal(after(r, "op")->outputs[0].dtype, "float");
    fl_report_free(r);
    r = run_passes(drop_model("MaxPool", "sneg", "sneg"), "qdq", NULL);
    assert_left(r, "scale is not positive");
    fl_report_free(r);
    r = run_passes(drop_model("Reshape", "s", "s"), "qdq", NULL);
    assert_string_equal(after(r, "op")->op, "Reshape");
    assert_string_equal(after(r, "op")->outputs[0].shape, "[1,32]");
    assert_string_equal(after(r, "op")->outputs[0].dtype, "uint8");
    assert_int_equal(count_op(r, "QuantizeLinear"), 0);
    fl_report_free(r);
}

/* Groups without a QuantizeLinear (ORT's MatMul and Gemm rules with a
 * float output). DQ(a uint8 [2,4] s z) x DQ(b int8 [4,3], scales [3] along
 * axis `axis`) -> MatMul "mm" -> t, then per `tail`: "out" t is the graph
 * output; "relu_out" Relu(t) is; "relu" Neg(Relu(t)) is; "qneg" Q(t) and
 * Neg(t) both read t. */
static ob_model *matmul_noq_model(int64_t axis, const char *tail) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    float bs[3] = {0.1f, 0.2f, 0.3f};
    int8_t bz[3] = {0};
    ob_init_raw(m, "b", I8, 2, (int64_t[]){4, 3}, NULL, 0);
    ob_init_raw(m, "bs", OB_FLOAT, 1, (int64_t[]){3}, bs, sizeof bs);
    ob_init_raw(m, "bz", I8, 1, (int64_t[]){3}, bz, sizeof bz);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s,z", "a");
    Onnx__NodeProto *n = ob_node(m, "DequantizeLinear", "dq_b", "b,bs,bz", "bf");
    ob_attr_i(m, n, "axis", axis);
    ob_node(m, "MatMul", "mm", "a,bf", "t");
    if (strncmp(tail, "relu", 4) == 0) {
        ob_node(m, "Relu", "relu", "t", tail[4] ? "y" : "r");
        if (!tail[4]) {
            ob_node(m, "Neg", "neg", "r", "y");
        }
        ob_output(m, "y");
    } else if (strcmp(tail, "qneg") == 0) {
        ob_node(m, "QuantizeLinear", "q", "t,s2,z", "yq");
        ob_node(m, "Neg", "neg", "t", "y");
        ob_output(m, "yq");
        ob_output(m, "y");
    } else {
        ob_output(m, "t");
    }
    return m;
}

/* MatMulIntegerToFloat "mm" (A, B, As, Bs, Az, Bz), float [2,3] (its type
 * is a_scale's, its shape A x B's: a wrong input order fails both): M =
 * 2*4*3 = 24, int_ops 2M + E(A) 8 + E(B) 12 = 68, FLOPs E(Y) 6 (the scale
 * multiply; README's MatMulIntegerToFloat rule). Both DQs go; also when
 * t's only reader is a Relu that is the graph output (ORT looks for a Q
 * after a Relu/Clip only when the Relu has one reader node). Refusals: b's
 * scales along axis 0 ([4,3]: not its N axis); Relu(t) read by one Neg (ORT
 * looks for a Q after it and finds none); a Q among t's readers (the Q's
 * group, not fusable with Neg also reading t: nothing fires). */
static void test_matmul_float_out(void **state) {
    (void)state;
    fl_report *r = run_passes(matmul_noq_model(1, "out"), "qdq", NULL);
    const fl_report_node *c = after(r, "mm");
    assert_non_null(c);
    assert_string_equal(c->op, "MatMulIntegerToFloat");
    assert_string_equal(c->outputs[0].shape, "[2,3]");
    assert_string_equal(c->outputs[0].dtype, "float");
    oc_assert_int(c, 6, 68);
    assert_int_equal(fired(r, "qdq_matmul", NULL), 1);
    assert_int_equal(count_op(r, "DequantizeLinear"), 0);
    assert_int_equal(r->after.macs.value, 0);
    assert_int_equal(r->before.macs.value, 24);
    fl_report_free(r);
    r = run_passes(matmul_noq_model(0, "out"), "qdq", NULL);
    assert_left(r, "quantized along an axis the QLinear operator does not take");
    assert_int_equal(count_op(r, "MatMul"), 1);
    fl_report_free(r);
    r = run_passes(matmul_noq_model(1, "relu_out"), "qdq", NULL);
    assert_string_equal(after(r, "mm")->op, "MatMulIntegerToFloat");
    assert_int_equal(count_op(r, "Relu"), 1);
    fl_report_free(r);
    r = run_passes(matmul_noq_model(1, "relu"), "qdq", NULL);
    assert_left(r, "its only reader is a Relu/Clip");
    assert_int_equal(count_op(r, "MatMul"), 1);
    fl_report_free(r);
    r = run_passes(matmul_noq_model(1, "qneg"), "qdq", NULL);
    assert_int_equal(count_op(r, "MatMul"), 1);
    assert_int_equal(fired(r, "qdq_matmul", NULL), 0);
    assert_int_equal(fired(r, "qdq_left", NULL), 0);
    fl_report_free(r);
}

/* gemm_model's group without its Q (t the graph output): com.microsoft
 * QGemm (A, As, Az, B, Bs, Bz, C) with a float output [2,3]: int_ops 2M 48
 * + E(A) 8 + E(B) 12 + E(Y) 6 (C) = 74, FLOPs E(Y) 6 (README's QGemm rule
 * without y_zero_point). beta 0.5: left. */
static ob_model *gemm_noq_model(float beta) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    int32_t c[3] = {1, 2, 3}, cz = 0;
    int8_t bz = 0;
    ob_init_raw(m, "B", I8, 2, (int64_t[]){3, 4}, NULL, 0);
    ob_init_raw(m, "bz", I8, 0, NULL, &bz, 1);
    ob_init_raw(m, "C", OB_INT32, 1, (int64_t[]){3}, c, sizeof c);
    ob_init_raw(m, "cz", OB_INT32, 0, NULL, &cz, sizeof cz);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s,z", "a");
    ob_node(m, "DequantizeLinear", "dq_b", "B,s2,bz", "bf");
    ob_node(m, "DequantizeLinear", "dq_c", "C,s,cz", "cf");
    Onnx__NodeProto *n = ob_node(m, "Gemm", "fc", "a,bf,cf", "t");
    ob_attr_i(m, n, "transB", 1);
    ob_attr_f(m, n, "beta", beta);
    ob_output(m, "t");
    return m;
}

static void test_gemm_float_out(void **state) {
    (void)state;
    fl_report *r = run_passes(gemm_noq_model(1.0f), "qdq", NULL);
    const fl_report_node *c = after(r, "fc");
    assert_non_null(c);
    assert_string_equal(c->op, "QGemm");
    assert_string_equal(c->outputs[0].shape, "[2,3]");
    assert_string_equal(c->outputs[0].dtype, "float");
    oc_assert_int(c, 6, 74);
    assert_int_equal(fired(r, "qdq_gemm", NULL), 1);
    assert_int_equal(count_op(r, "DequantizeLinear"), 0);
    fl_report_free(r);
    r = run_passes(gemm_noq_model(0.5f), "qdq", NULL);
    assert_left(r, "Gemm's beta is not 1");
    assert_int_equal(count_op(r, "Gemm"), 1);
    fl_report_free(r);
}

/* Where(cond bool [2,4], DQ(xq uint8 [2,4]), DQ(wq `ytype` [4])) -> Q(s2,
 * z): com.microsoft QLinearWhere (cond, X, xs, xz, Y, ys, yz, zs, zz),
 * uint8 [2,4]. E(X) 8, E(Y) 4, E(Z) 8: int_ops 20, FLOPs 20 (the select)
 * + 2 E(Z) 16 = 36 (README's QLinearWhere rule). Y int8: the types differ,
 * left. */
static ob_model *where_model(int ytype) {
    ob_model *m = qdq_model();
    ob_input(m, "cond", OB_BOOL, 2, (int64_t[]){2, 4}, NULL);
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    ob_input(m, "wq", ytype, 1, (int64_t[]){4}, NULL);
    int8_t z8 = 0;
    ob_init_raw(m, "z8", I8, 0, NULL, &z8, 1);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_node(m, "DequantizeLinear", "dq_y", ytype == U8 ? "wq,s,z" : "wq,s,z8", "yv");
    ob_node(m, "Where", "wh", "cond,x,yv", "t");
    close_group(m, "t", "s2", "z");
    return m;
}

static void test_where(void **state) {
    (void)state;
    fl_report *r = run_passes(where_model(U8), "qdq", NULL);
    const fl_report_node *c = after(r, "wh");
    assert_non_null(c);
    assert_string_equal(c->op, "QLinearWhere");
    assert_string_equal(c->outputs[0].shape, "[2,4]");
    assert_string_equal(c->outputs[0].dtype, "uint8");
    oc_assert_int(c, 36, 20);
    assert_int_equal(fired(r, "qdq_where", NULL), 1);
    assert_int_equal(count_op(r, "QuantizeLinear"), 0);
    assert_int_equal(count_op(r, "DequantizeLinear"), 1); /* dq_out */
    fl_report_free(r);
    r = run_passes(where_model(I8), "qdq", NULL);
    assert_left(r, "the input and output types differ");
    assert_int_equal(count_op(r, "Where"), 1);
    fl_report_free(r);
}

/* DQ(xq `xtype` [2,4], s, zero point `zp` or none) -> ArgMax (axis 1,
 * keepdims 0) -> int64 [2], the graph output: ORT's DropDQNodesRules (its
 * DQ needs constant scalar scale and zero point; ORT does not check the
 * scale's sign here): ArgMax on the integers, counted as ArgMax is,
 * E(in) - E(out) = 6 comparisons, of integers: 6 int_ops, 0 FLOPs; the DQ
 * (E 8 int_ops + 8 FLOPs) goes.
 * Without a zero point, or uint16: left. */
static ob_model *argmax_model(int xtype, const char *zp) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", xtype, 2, (int64_t[]){2, 4}, NULL);
    uint16_t z16 = 0;
    ob_init_raw(m, "z16", U16, 0, NULL, &z16, 2);
    char in[32];
    snprintf(in, sizeof in, "xq,s%s%s", zp ? "," : "", zp ? zp : "");
    ob_node(m, "DequantizeLinear", "dq_x", in, "x");
    Onnx__NodeProto *n = ob_node(m, "ArgMax", "am", "x", "y");
    ob_attr_i(m, n, "axis", 1);
    ob_attr_i(m, n, "keepdims", 0);
    ob_output(m, "y");
    return m;
}

static void test_argmax(void **state) {
    (void)state;
    fl_report *r = run_passes(argmax_model(U8, "z"), "qdq", NULL);
    const fl_report_node *c = after(r, "am");
    assert_non_null(c);
    assert_string_equal(c->op, "ArgMax");
    assert_string_equal(c->outputs[0].shape, "[2]");
    assert_string_equal(c->outputs[0].dtype, "int64");
    assert_int_equal(fired(r, "qdq_drop_dq", NULL), 1);
    assert_int_equal(count_op(r, "DequantizeLinear"), 0);
    assert_int_equal(r->n_nodes_after, 1);
    oc_assert_int(c, 0, 6);
    fl_report_free(r);
    r = run_passes(argmax_model(U8, NULL), "qdq", NULL);
    assert_left(r, "has no zero point");
    assert_int_equal(count_op(r, "DequantizeLinear"), 1);
    fl_report_free(r);
    r = run_passes(argmax_model(U16, "z16"), "qdq", NULL);
    assert_left(r, "not a type ArgMax takes on integers");
    fl_report_free(r);
}

/* DQ(xq uint8 [2,4], s, z) -> Split (axis 1, split [1,3]) -> Q(s, z) on
 * output 0 and Q(`qs1`, z) on output 1, each read by a DQ that is a graph
 * output: ORT's dropSplitQDQ: Split "sp" on the integers, uint8 [2,1] and
 * [2,3], both Qs and the input DQ gone (2 output DQs left). Q 1 with
 * another scale: left; a Neg also reading output 0: no group (ORT's
 * CheckQDQNodes: a Q per output and nothing else), nothing noted. */
static ob_model *split_model(const char *qs1, bool neg) {
    ob_model *m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    ob_init_i64(m, "parts", 1, (int64_t[]){2}, (int64_t[]){1, 3});
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_attr_i(m, ob_node(m, "Split", "sp", "x,parts", "p0,p1"), "axis", 1);
    char in[32];
    ob_node(m, "QuantizeLinear", "q0", "p0,s,z", "q0v");
    snprintf(in, sizeof in, "p1,%s,z", qs1);
    ob_node(m, "QuantizeLinear", "q1", in, "q1v");
    ob_node(m, "DequantizeLinear", "dq0", "q0v,s,z", "y0");
    snprintf(in, sizeof in, "q1v,%s,z", qs1);
    ob_node(m, "DequantizeLinear", "dq1", in, "y1");
    ob_output(m, "y0");
    ob_output(m, "y1");
    if (neg) {
        ob_node(m, "Neg", "neg", "p0", "y2");
        ob_output(m, "y2");
    }
    return m;
}

static void test_split(void **state) {
    (void)state;
    fl_report *r = run_passes(split_model("s", false), "qdq", NULL);
    const fl_report_node *c = after(r, "sp");
    assert_non_null(c);
    assert_string_equal(c->op, "Split");
    assert_int_equal(c->n_outputs, 2);
    assert_string_equal(c->outputs[0].shape, "[2,1]");
    assert_string_equal(c->outputs[1].shape, "[2,3]");
    assert_string_equal(c->outputs[0].dtype, "uint8");
    assert_string_equal(c->outputs[1].dtype, "uint8");
    assert_int_equal(fired(r, "qdq_split", NULL), 1);
    assert_int_equal(count_op(r, "QuantizeLinear"), 0);
    assert_int_equal(count_op(r, "DequantizeLinear"), 2);
    fl_report_free(r);
    r = run_passes(split_model("s2", false), "qdq", NULL);
    assert_left(r, "differ in scale or zero point");
    assert_int_equal(count_op(r, "QuantizeLinear"), 2);
    fl_report_free(r);
    r = run_passes(split_model("s", true), "qdq", NULL);
    assert_int_equal(fired(r, "qdq_split", NULL), 0);
    assert_int_equal(fired(r, "qdq_left", NULL), 0);
    assert_int_equal(count_op(r, "QuantizeLinear"), 2);
    fl_report_free(r);
}

/* Conv -> Clip(0, max) -> Q(s6 = 6/255, z 0): Clip's range in Q's
 * integers is [rint(0 / s6), rint(max / s6)]: max 6 gives [0, 255], all of
 * uint8: absorbed; max 5 gives [0, 212]: it clips, the group is left. */
static void test_clip(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        ob_model *m = qdq_model();
        init_scale(m, "s6", 6.0f / 255.0f);
        init_scale(m, "lo", 0.0f);
        init_scale(m, "hi", k == 0 ? 6.0f : 5.0f);
        ob_input(m, "xq", U8, 4, (int64_t[]){1, 3, 8, 8}, NULL);
        ob_init_raw(m, "w", I8, 4, (int64_t[]){4, 3, 3, 3}, NULL, 0);
        int8_t wz = 0;
        ob_init_raw(m, "wz", I8, 0, NULL, &wz, 1);
        ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
        ob_node(m, "DequantizeLinear", "dq_w", "w,s,wz", "wf");
        Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,wf", "c");
        ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
        ob_node(m, "Clip", "clip", "c,lo,hi", "r");
        close_group(m, "r", "s6", "z");
        fl_report *r = run_passes(m, "qdq", NULL);
        if (k == 0) {
            assert_string_equal(after(r, "conv")->op, "QLinearConv");
            assert_int_equal(count_op(r, "Clip"), 0);
        } else {
            assert_left(r, "not made redundant");
            assert_int_equal(count_op(r, "Clip"), 1);
        }
        fl_report_free(r);
    }
}

/* ONNX Runtime's ReluQuantFusion and ClipQuantFusion (act_q.c) run before
 * the fusion, so they also remove the Relu/Clip of a group that stays
 * float (here: its bias scale fails the check), as ORT 1.30's 'extended'
 * graph of the same model does: Conv -> Q, where the remapper would
 * otherwise fuse Conv and Relu into FusedConv. Relu: removed when Q's zero
 * point is the type's minimum (uint8 0, int8 -128; not 10 or -127, not
 * when the Relu is also a graph output). Clip(0, hi) before Q(6/255, 0):
 * Q's range is [s * (0 - 0), s * (255 - 0)] = [0, 6] in float arithmetic;
 * hi 6 clips nothing: removed; hi 5 clips: kept; a scale of shape [1]
 * instead of a scalar: kept (ORT reads the range of scalars only). */
static void test_activation_q(void **state) {
    (void)state;
    static const struct {
        const char *act, *qs, *qz;
        float hi;
        bool graph_out;
        size_t fired;
    } cases[] = {
        {"Relu", "s", "z", 6, false, 1},   {"Relu", "s", "z10", 6, false, 0},
        {"Relu", "s", "z8m", 6, false, 1}, {"Relu", "s", "z8", 6, false, 0},
        {"Relu", "s", "z", 6, true, 0},    {"Clip", "s6", "z", 6, false, 1},
        {"Clip", "s6", "z", 5, false, 0},  {"Clip", "s6v", "z", 6, false, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int dflt = 0; dflt < 2; dflt++) {
            ob_model *m = conv_act_model(cases[k].act, cases[k].qs, cases[k].qz, true);
            float s6 = 6.0f / 255.0f;
            int8_t z8m = -128, z8 = -127;
            init_scale(m, "s6", s6);
            ob_init_raw(m, "s6v", OB_FLOAT, 1, (int64_t[]){1}, &s6, sizeof s6);
            ob_init_raw(m, "z8m", I8, 0, NULL, &z8m, 1);
            ob_init_raw(m, "z8", I8, 0, NULL, &z8, 1);
            init_scale(m, "lo", 0.0f);
            init_scale(m, "hi", cases[k].hi);
            if (cases[k].graph_out) {
                ob_output(m, "r");
            }
            fl_report *r = run_passes(m, dflt ? "default" : "qdq", NULL);
            const char *rule =
                strcmp(cases[k].act, "Relu") == 0 ? "qdq_relu_quant" : "qdq_clip_quant";
            if (fired(r, rule, NULL) != cases[k].fired) {
                fail_msg("case %zu (%s passes): %s fired %zu times", k, dflt ? "default" : "qdq",
                         rule, fired(r, rule, NULL));
            }
            /* left for its bias scale (with the Relu a graph output
             * there is no group: Q's input is not read by Q alone) */
            assert_int_equal(fired(r, "qdq_left", NULL), cases[k].graph_out ? 0 : 1);
            if (dflt) {
                /* removed: the float Conv stays Conv; kept: Conv and the
                 * activation become one FusedConv */
                assert_int_equal(count_op(r, "FusedConv"), 1 - cases[k].fired);
                assert_int_equal(count_op(r, "Conv"), cases[k].fired);
            } else {
                assert_int_equal(count_op(r, cases[k].act), 1 - cases[k].fired);
            }
            fl_report_free(r);
        }
    }
}

/* Groups left, and why: a scale that is a graph input (not a constant);
 * int16 activations into Conv; a MaxPool between a DQ and a Q without zero
 * points (ORT drops only pairs with them). Q and DQ without zero points
 * around a Sigmoid: fused, with a uint8 zero made for both (QLinearSigmoid
 * [2,4]: int_ops 16, FLOPs 32, as with explicit zero points). */
static void test_refusals(void **state) {
    (void)state;
    Onnx__NodeProto *n;
    ob_model *m = qdq_model();
    ob_input(m, "sx", OB_FLOAT, 0, NULL, NULL);
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,sx,z", "a");
    ob_node(m, "Sigmoid", "op", "a", "t");
    close_group(m, "t", "s", "z");
    fl_report *r = run_passes(m, "qdq", NULL);
    assert_left(r, "scale or zero point is not a constant");
    assert_string_equal(after(r, "op")->op, "Sigmoid");
    fl_report_free(r);

    m = qdq_model();
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 4}, NULL);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s", "a");
    ob_node(m, "Sigmoid", "op", "a", "t");
    ob_node(m, "QuantizeLinear", "q", "t,s", "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s", "y");
    ob_output(m, "y");
    r = run_passes(m, "qdq", NULL);
    assert_int_equal(fired(r, "qdq_left", NULL), 0);
    assert_string_equal(after(r, "op")->op, "QLinearSigmoid");
    oc_assert_int(after(r, "op"), 32, 16);
    fl_report_free(r);

    m = qdq_model();
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 2, 4, 4}, NULL);
    ob_node(m, "DequantizeLinear", "dq_a", "xq,s", "a");
    n = ob_node(m, "MaxPool", "op", "a", "t");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_node(m, "QuantizeLinear", "q", "t,s", "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s", "y");
    ob_output(m, "y");
    r = run_passes(m, "qdq", NULL);
    assert_left(r, "has no zero point");
    fl_report_free(r);

    m = qdq_model();
    ob_input(m, "xq", I16, 4, (int64_t[]){1, 3, 8, 8}, NULL);
    int16_t z16 = 0;
    int8_t wz = 0;
    ob_init_raw(m, "z16", I16, 0, NULL, &z16, sizeof z16);
    ob_init_raw(m, "w", I8, 4, (int64_t[]){4, 3, 3, 3}, NULL, 0);
    ob_init_raw(m, "wz", I8, 0, NULL, &wz, 1);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z16", "x");
    ob_node(m, "DequantizeLinear", "dq_w", "w,s,wz", "wf");
    n = ob_node(m, "Conv", "conv", "x,wf", "c");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
    close_group(m, "c", "s", "z16");
    r = run_passes(m, "qdq", NULL);
    assert_left(r, "not 8-bit");
    fl_report_free(r);
}

/* The pass runs only on ONNX graphs with Q/DQ: a float graph's passes have
 * no qdq record; a QDQ graph's have one per meta-iteration, and a group
 * left is noted once (not again in the second iteration). */
static void test_selection(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 4}, NULL);
    ob_node(m, "Sigmoid", "op", "x", "y");
    ob_output(m, "y");
    fl_report *r = run_passes(m, "default", NULL);
    for (size_t i = 0; i < r->n_passes; i++) {
        assert_string_not_equal(r->passes[i].pass, "qdq");
    }
    assert_int_equal(r->n_passes, 14);
    fl_report_free(r);
    r = run_passes(conv_model("z10", false), "default", NULL);
    size_t runs = 0;
    for (size_t i = 0; i < r->n_passes; i++) {
        runs += strcmp(r->passes[i].pass, "qdq") == 0;
    }
    assert_int_equal(runs, 2);
    assert_int_equal(r->n_passes, 16);
    assert_string_equal(r->passes[2].pass, "qdq");
    assert_int_equal(fired(r, "qdq_left", NULL), 1);
    fl_report_free(r);
}

/* A group left float (bias scale) with Clip(0, 6) before Q(6/255, 0). */
static ob_model *conv_clip_left(void) {
    ob_model *m = conv_act_model("Clip", "s6", "z", true);
    init_scale(m, "s6", 6.0f / 255.0f);
    init_scale(m, "lo", 0.0f);
    init_scale(m, "hi", 6.0f);
    return m;
}

/* --write DIR: the models of the rules ORT 1.30 runs (the fused forms
 * of test_matmul_float_out, test_gemm_float_out, test_where, test_argmax,
 * test_split; test_activation_q's Relu and Clip removals), as NAME.RULE.onnx, for
 * tests/integration/ort_quantized.sh (their int8 weights are stripped: fl_onnxfill --ints fills
 * them). */
static int write_models(const char *dir) {
    oxp_named ms[] = {
        {"matmul.qdq_matmul", matmul_noq_model(1, "out")},
        {"matmul_relu.qdq_matmul", matmul_noq_model(1, "relu_out")},
        {"gemm.qdq_gemm", gemm_noq_model(1.0f)},
        {"where.qdq_where", where_model(U8)},
        {"argmax.qdq_drop_dq", argmax_model(U8, "z")},
        {"split.qdq_split", split_model("s", false)},
        {"conv_relu.qdq_relu_quant", conv_act_model("Relu", "s", "z", true)},
        {"conv_clip.qdq_clip_quant", conv_clip_left()},
    };
    return oxp_write_models(dir, ms, sizeof ms / sizeof ms[0]);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        return write_models(argv[2]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv),           cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_gemm),           cmocka_unit_test(test_binary),
        cmocka_unit_test(test_unary),          cmocka_unit_test(test_concat),
        cmocka_unit_test(test_drop),           cmocka_unit_test(test_clip),
        cmocka_unit_test(test_activation_q),   cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_selection),      cmocka_unit_test(test_matmul_float_out),
        cmocka_unit_test(test_gemm_float_out), cmocka_unit_test(test_where),
        cmocka_unit_test(test_argmax),         cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
