/*
 * test_onnx_qdq_prop.c - QDQ propagation (src/passes/qdq/propagate.c, ONNX
 * Runtime's QDQPropagationTransformer) and the fusion it enables: small
 * ONNX models run through the qdq pass (verifier on); the rewritten graph
 * exactly (names, op types, inputs), the ledger, and the counts after.
 * Every model: uint8 activations of scale s = 0.02 and zero point z = 0.
 * The expected graphs follow from the rule in propagate.c's header and
 * the fusion rules of fuse.c, derived by hand in the comments.
 *
 * `test_onnx_qdq_prop --write DIR` writes the models whose rewrite ONNX
 * Runtime 1.30 runs (NAME.qdq_propagation.onnx) for
 * tests/integration/ort_quantized.sh.
 */
#include "onnx_passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8 = 2, I8 = 3 };

/* ---- models ---- */

static void init_scale(ob_model *m, const char *name, float v) {
    ob_init_raw(m, name, OB_FLOAT, 0, NULL, &v, sizeof v);
}

/* Opset `opset`, scalars s (0.02), z (uint8 0), ws (0.0005), wz (int8 0), s11
 * (0.02 as a [1,1] tensor: one element, but not a scalar or a
 * one-element vector). */
static ob_model *model(int64_t opset) {
    ob_model *m = ob_new(opset);
    uint8_t z = 0;
    int8_t wz = 0;
    float s = 0.02f;
    init_scale(m, "s", s);
    init_scale(m, "ws", 0.0005f);
    ob_init_raw(m, "z", U8, 0, NULL, &z, 1);
    ob_init_raw(m, "wz", I8, 0, NULL, &wz, 1);
    ob_init_raw(m, "s11", OB_FLOAT, 2, (int64_t[]){1, 1}, &s, sizeof s);
    return m;
}

/* w: int8 [4,3,3,3] (stripped), dq_w -> wf; conv(in, wf) -> out, 3x3. */
static void conv(ob_model *m, const char *in, const char *out) {
    ob_init_raw(m, "w", I8, 4, (int64_t[]){4, 3, 3, 3}, NULL, 0);
    ob_node(m, "DequantizeLinear", "dq_w", "w,ws,wz", "wf");
    char ins[64];
    snprintf(ins, sizeof ins, "%s,wf", in);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", ins, out);
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){3, 3});
}

/* Q backward: DQ(xq [1,3,8,8]) -> conv -> c [1,4,6,6] -> Transpose "tr"
 * (perm 0,2,3,1) -> Q(qs) -> DQ -> y. */
static ob_model *backward_model(int64_t opset, const char *qs) {
    ob_model *m = model(opset);
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 3, 8, 8}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    conv(m, "x", "c");
    Onnx__NodeProto *n = ob_node(m, "Transpose", "tr", "c", "t");
    ob_attr_ints(m, n, "perm", 4, (int64_t[]){0, 2, 3, 1});
    char in[32];
    snprintf(in, sizeof in, "t,%s,z", qs);
    ob_node(m, "QuantizeLinear", "q", in, "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s,z", "y");
    ob_output(m, "y");
    return m;
}

/* Conv -> Transpose -> Q: the edge conv -> tr gets Q(s, z) -> DQ(s, z)
 * (named after the producer: conv_q, conv_dq); then the
 * fusion: DQ(conv_dq) -> tr -> q is a qdq_drop group (Transpose on conv_q,
 * named tr), and DQ(x), DQ(w) -> conv -> conv_q a QLinearConv named conv.
 * QLinearConv counts (README's rule, no bias): y [1,4,6,6], E(y) 144, M =
 * 144 * 27 = 3888; int_ops 2M + E(x) 192 + E(w) 108 + E(y) 144 = 8220;
 * FLOPs 2 E(y) = 288; dq_out E(y) int_ops (zero point) and E(y) FLOPs
 * (scale): totals 8364 int_ops, 432 FLOPs. MACs 3888 before, 0 after. */
static void test_backward(void **state) {
    (void)state;
    pt_run *r = oxp_run(backward_model(17, "s"), "qdq");
    oxp_expect_graph(r, "conv=QLinearConv(xq,s,z,w,ws,wz,s,z); tr=Transpose(conv); "
                        "dq_out=DequantizeLinear(tr,s,z)");
    assert_int_equal(pt_fired(r, "qdq_propagation", "tr"), 1);
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 1);
    assert_int_equal(pt_fired(r, "qdq_drop", "tr"), 1);
    assert_int_equal(pt_fired(r, "qdq_conv", "conv"), 1);
    assert_int_equal(pt_out0(r, "tr")->dtype, FL_DT_UINT8);
    assert_int_equal(pt_known(r->before.macs), 3888);
    assert_int_equal(pt_known(r->after.macs), 0);
    assert_int_equal(pt_known(r->after.int_ops), 8220 + 144);
    assert_int_equal(pt_known(r->after.flops), 288 + 144);
    pt_free(r);

    /* Q's scale [1,1]: one element, but ORT takes a scalar or a
     * one-element vector only: nothing propagates, the Conv stays float. */
    r = oxp_run(backward_model(17, "s11"), "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    assert_int_equal(pt_fired(r, "qdq_conv", NULL), 0);
    assert_int_equal(pt_known(r->after.macs), 3888);
    pt_free(r);
}

/* DQ forward: DQ(xq [1,48]) -> Reshape "rs" to [1,3,4,4] -> conv -> c
 * [1,4,2,2] -> Q -> DQ -> y. */
static ob_model *forward_model(void) {
    ob_model *m = model(17);
    ob_input(m, "xq", U8, 2, (int64_t[]){1, 48}, NULL);
    ob_init_i64(m, "shape", 1, (int64_t[]){4}, (int64_t[]){1, 3, 4, 4});
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_node(m, "Reshape", "rs", "x,shape", "r");
    conv(m, "r", "c");
    ob_node(m, "QuantizeLinear", "q", "c,s,z", "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s,z", "y");
    ob_output(m, "y");
    return m;
}

/* The edge rs -> conv gets Q(s, z) -> DQ(s, z) (rs_q, rs_dq); then DQ(rs_dq),
 * DQ(w) -> conv -> q is a QLinearConv (reading rs_q), and DQ(x) -> rs ->
 * rs_q a qdq_drop group (Reshape on xq). QLinearConv: E(y) 16, M = 16 * 27
 * = 432; int_ops 864 + E(x) 48 + E(w) 108 + E(y) 16 = 1036, FLOPs 32;
 * with dq_out's E(y): 1052 int_ops, 48 FLOPs. */
static void test_forward(void **state) {
    (void)state;
    pt_run *r = oxp_run(forward_model(), "qdq");
    oxp_expect_graph(r, "rs=Reshape(xq,shape); conv=QLinearConv(rs,s,z,w,ws,wz,s,z); "
                        "dq_out=DequantizeLinear(conv,s,z)");
    assert_int_equal(pt_fired(r, "qdq_propagation", "rs"), 1);
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 1);
    assert_int_equal(pt_fired(r, "qdq_drop", "rs"), 1);
    assert_int_equal(pt_fired(r, "qdq_conv", "conv"), 1);
    assert_int_equal(pt_out0(r, "rs")->dtype, FL_DT_UINT8);
    assert_int_equal(pt_known(r->before.macs), 432);
    assert_int_equal(pt_known(r->after.macs), 0);
    assert_int_equal(pt_known(r->after.int_ops), 1036 + 16);
    assert_int_equal(pt_known(r->after.flops), 32 + 16);
    pt_free(r);
}

/* Breadth first with two readers: DQ(xq [1,3,4,4]) -> Transpose "tr"
 * (perm 0,1,3,2) -> {Reshape "rs" [1,48] -> Sigmoid "sig2" -> y2, Sigmoid
 * "sig" -> y1}. tr's output gets one Q and a DQ per reader (tr_q; tr_dq
 * for rs, tr_dq_1 for sig), then rs's output (rs_q, rs_dq); the Sigmoids
 * do not propagate. Fusion: tr and rs become qdq_drop groups (on the
 * integers), the DQs before the Sigmoids stay (no Q after them). */
static ob_model *fanout_model(void) {
    ob_model *m = model(17);
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    ob_init_i64(m, "shape", 1, (int64_t[]){2}, (int64_t[]){1, 48});
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    Onnx__NodeProto *n = ob_node(m, "Transpose", "tr", "x", "t");
    ob_attr_ints(m, n, "perm", 4, (int64_t[]){0, 1, 3, 2});
    ob_node(m, "Reshape", "rs", "t,shape", "r");
    ob_node(m, "Sigmoid", "sig2", "r", "y2");
    ob_node(m, "Sigmoid", "sig", "t", "y1");
    ob_outputs(m, "y", 2);
    return m;
}

static void test_fanout(void **state) {
    (void)state;
    pt_run *r = oxp_run(fanout_model(), "qdq");
    oxp_expect_graph(r,
                     "tr=Transpose(xq); tr_dq_1=DequantizeLinear(tr,s,z); rs=Reshape(tr,shape); "
                     "sig=Sigmoid(tr_dq_1); rs_dq=DequantizeLinear(rs,s,z); sig2=Sigmoid(rs_dq)");
    assert_int_equal(pt_fired(r, "qdq_propagation", "tr"), 1);
    assert_int_equal(pt_fired(r, "qdq_propagation", "rs"), 1);
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 2);
    assert_int_equal(pt_fired(r, "qdq_drop", NULL), 2);
    assert_int_equal(pt_out0(r, "tr")->dtype, FL_DT_UINT8);
    assert_int_equal(pt_out0(r, "rs")->dtype, FL_DT_UINT8);
    pt_free(r);
}

/* Where propagation stops or does not start. */
static void test_refusals(void **state) {
    (void)state;
    /* dq_x read by both tr and a Neg: ORT wants one reading edge. */
    ob_model *m = model(17);
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_node(m, "Transpose", "tr", "x", "t");
    ob_node(m, "Sigmoid", "sig", "t", "y");
    ob_node(m, "Neg", "neg", "x", "y2");
    ob_output(m, "y");
    ob_output(m, "y2");
    pt_run *r = oxp_run(m, "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    oxp_expect_graph(r, "dq_x=DequantizeLinear(xq,s,z); tr=Transpose(dq_x); neg=Neg(dq_x); "
                        "sig=Sigmoid(tr)");
    pt_free(r);

    /* tr's output is a graph output (and read by sig): the pair would
     * take its value name; foldline stops there. */
    m = model(17);
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_node(m, "Transpose", "tr", "x", "t");
    ob_node(m, "Sigmoid", "sig", "t", "y");
    ob_output(m, "t");
    ob_output(m, "y");
    r = oxp_run(m, "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    pt_free(r);

    /* DQ -> Transpose -> Q is already a group: neither direction inserts. */
    m = model(17);
    ob_input(m, "xq", U8, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    ob_node(m, "Transpose", "tr", "x", "t");
    ob_node(m, "QuantizeLinear", "q", "t,s,z", "y");
    ob_output(m, "y");
    r = oxp_run(m, "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    assert_int_equal(pt_fired(r, "qdq_drop", "tr"), 1);
    pt_free(r);
}

/* MaxPool propagates from opset 12 (ORT: its definitions 12 and 22):
 * Conv -> MaxPool -> Q at opset 11 stays; at 12 the pair goes in. Q/DQ of
 * opset 23 (definition 23, which ORT 1.30's MatchQNode does not take): no
 * propagation. */
static ob_model *maxpool_model(int64_t opset) {
    ob_model *m = model(opset);
    ob_input(m, "xq", U8, 4, (int64_t[]){1, 3, 8, 8}, NULL);
    ob_node(m, "DequantizeLinear", "dq_x", "xq,s,z", "x");
    conv(m, "x", "c");
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "mp", "c", "p");
    ob_attr_ints(m, n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_node(m, "QuantizeLinear", "q", "p,s,z", "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s,z", "y");
    ob_output(m, "y");
    return m;
}

static void test_versions(void **state) {
    (void)state;
    pt_run *r = oxp_run(maxpool_model(11), "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    pt_free(r);
    r = oxp_run(maxpool_model(12), "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", "mp"), 1);
    oxp_expect_graph(r, "conv=QLinearConv(xq,s,z,w,ws,wz,s,z); mp=MaxPool(conv); "
                        "dq_out=DequantizeLinear(mp,s,z)");
    pt_free(r);
    r = oxp_run(maxpool_model(23), "qdq");
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 0);
    pt_free(r);
}

/* Q backward from a graph input: x (float [2,3]) -> Transpose -> Q -> DQ:
 * the input edge gets the pair (x_q, x_dq); then DQ(x_dq) -> tr -> q is a
 * qdq_drop group: the Transpose runs on x_q. The walk ends at an input. */
static ob_model *input_model(void) {
    ob_model *m = model(17);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "Transpose", "tr", "x", "t");
    ob_node(m, "QuantizeLinear", "q", "t,s,z", "yq");
    ob_node(m, "DequantizeLinear", "dq_out", "yq,s,z", "y");
    ob_output(m, "y");
    return m;
}

static void test_input_edge(void **state) {
    (void)state;
    pt_run *r = oxp_run(input_model(), "qdq");
    oxp_expect_graph(
        r, "x_q=QuantizeLinear(x,s,z); tr=Transpose(x_q); dq_out=DequantizeLinear(tr,s,z)");
    assert_int_equal(pt_fired(r, "qdq_propagation", "tr"), 1);
    pt_free(r);
    /* The default passes: the same, and a second run of the pass (the
     * driver's second iteration) adds nothing. */
    r = oxp_run(input_model(), NULL);
    assert_int_equal(pt_fired(r, "qdq_propagation", NULL), 1);
    pt_free(r);
}

/* --write DIR: the models ORT runs (their int8 weights stripped:
 * fl_onnxfill --ints fills them). */
static int write_models(const char *dir) {
    oxp_named ms[] = {
        {"prop_backward.qdq_propagation", backward_model(17, "s")},
        {"prop_forward.qdq_propagation", forward_model()},
        {"prop_input.qdq_propagation", input_model()},
        {"prop_maxpool.qdq_propagation", maxpool_model(12)},
    };
    return oxp_write_models(dir, ms, sizeof ms / sizeof ms[0]);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        return write_models(argv[2]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backward), cmocka_unit_test(test_forward),
        cmocka_unit_test(test_fanout),   cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_versions), cmocka_unit_test(test_input_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
