/*
 * test_remapper_more.c - the ops the remapper produces (their shapes and
 * FLOPs), the oneDNN remapper rows added after test_remapper.c's set, and the
 * dependency optimizer's transitive reduction and cross-device grouping.
 *
 * Each rule: one test asserting the exact rewritten node (op, inputs in
 * order, attrs) and not_fused_due_to_<reason> checks for its blocking
 * conditions. The harness is test_remapper.c's: import -> toposort -> infer
 * -> cost, nodes without consumers preserved, run one pass, then re-sort,
 * verify, re-infer and re-cost.
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Graph helpers                                                              */
/* ------------------------------------------------------------------------- */

static void conv_attrs(tg_node *n, int rank, const char *padding) {
    static const int64_t ones[5] = {1, 1, 1, 1, 1};
    tg_attr_ints(n, "strides", (size_t)rank, ones);
    tg_attr_str(n, "padding", padding);
    tg_attr_ints(n, "dilations", (size_t)rank, ones);
    tg_attr_str(n, "data_format", rank == 5 ? "NDHWC" : "NHWC");
}

/* ------------------------------------------------------------------------- */
/* A. Registry: ops the remapper produces                                     */
/* ------------------------------------------------------------------------- */

/* _FusedConv3D: Conv3D's shape, MACs = E(out)*Kd*Kh*Kw*Cin, FLOPs 2*MACs +
 * the fused_ops epilogue; padding_list pads the input first. */
static void test_registry_fused_conv3d(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 5, (int64_t[]){2, 4, 6, 6, 3});
    tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
    tg_const_f32(g, "b", 1, (int64_t[]){8}, NULL, 0);
    tg_node *f = tg_add(g, "f", "_FusedConv3D", "x", "w", "b", NULL);
    tg_attr_type(f, "T", F32);
    conv_attrs(f, 5, "SAME");
    tg_attr_int(f, "num_args", 1);
    tg_attr_strs(f, "fused_ops", 2, (const char *const[]){"BiasAdd", "Relu"});
    tg_node *p = tg_add(g, "p", "_FusedConv3D", "x", "w", NULL);
    tg_attr_type(p, "T", F32);
    conv_attrs(p, 5, "VALID");
    tg_attr_int(p, "num_args", 0);
    tg_attr_ints(p, "padding_list", 10, (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
    pt_run h;
    pt_load(&h, g);
    pt_expect_shape(&h, "f", F32, 5, 2, 4, 6, 6, 8);
    int64_t e = 2 * 4 * 6 * 6 * 8, macs = e * 27 * 3;
    pt_expect_cost(&h, "f", 2 * macs + 2 * e, 0, macs);
    /* Pad 1 on each spatial side, then VALID 3x3x3: same spatial size. */
    pt_expect_shape(&h, "p", F32, 5, 2, 4, 6, 6, 8);
    pt_expect_cost(&h, "p", 2 * macs, 0, macs);
    pt_fini(&h);
}

/* _<Comparison>WithCast: broadcast shape, dtype T, 2 FLOPs per element. */
static void test_registry_comparison_with_cast(void **state) {
    (void)state;
    static const char *const ops[] = {"_EqualWithCast",   "_NotEqualWithCast",
                                      "_GreaterWithCast", "_GreaterEqualWithCast",
                                      "_LessWithCast",    "_LessEqualWithCast"};
    for (size_t i = 0; i < 6; i++) {
        tg_graph *g = tg_new();
        tg_placeholder(g, "a", F32, 2, (int64_t[]){4, 5});
        tg_placeholder(g, "b", F32, 1, (int64_t[]){5});
        pt_op2(g, "c", ops[i], "a", "b", F32);
        pt_run h;
        pt_load(&h, g);
        pt_expect_shape(&h, "c", F32, 2, 4, 5);
        pt_expect_cost(&h, "c", 40, 0, 0);
        pt_fini(&h);
    }
}

/* _TensorToHashBucketFast: int64 of the input's shape, 2 FLOPs per element. */
static void test_registry_tensor_to_hash_bucket(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "ids", I32, 2, (int64_t[]){3, 7});
    tg_node *t = pt_op1(g, "h", "_TensorToHashBucketFast", "ids", I32);
    tg_attr_int(t, "num_buckets", 100);
    pt_run h;
    pt_load(&h, g);
    pt_expect_shape(&h, "h", I64, 2, 3, 7);
    pt_expect_cost(&h, "h", 42, 0, 0);
    pt_fini(&h);
}

/* _MklFusedMish: x's shape, 3 FLOPs per element; _MklFusedBatchMatMulV2:
 * BatchMatMulV2's shape, 2*MACs + Mul + Add. */
static void test_registry_mish_and_fused_bmm(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, (int64_t[]){4, 6});
    pt_op1(g, "m", "_MklFusedMish", "x", F32);
    tg_placeholder(g, "a", F32, 4, (int64_t[]){2, 3, 4, 5});
    tg_placeholder(g, "b", F32, 4, (int64_t[]){2, 3, 5, 6});
    tg_placeholder(g, "add", F32, 4, (int64_t[]){2, 1, 4, 6});
    pt_scalar(g, "s", 0.5f);
    tg_node *f = tg_add(g, "f", "_MklFusedBatchMatMulV2", "a", "b", "s", "add", NULL);
    tg_attr_type(f, "T", F32);
    tg_attr_bool(f, "adj_x", 0);
    tg_attr_bool(f, "adj_y", 0);
    tg_attr_int(f, "num_args", 2);
    tg_attr_strs(f, "fused_ops", 2, (const char *const[]){"Mul", "Add"});
    pt_run h;
    pt_load(&h, g);
    pt_expect_shape(&h, "m", F32, 2, 4, 6);
    pt_expect_cost(&h, "m", 72, 0, 0);
    pt_expect_shape(&h, "f", F32, 4, 2, 3, 4, 6);
    int64_t e = 2 * 3 * 4 * 6;
    pt_expect_cost(&h, "f", 2 * e * 5 + 2 * e, 0, e * 5);
    pt_fini(&h);
}

/* fused_ops epilogues count what the unfused chain counts. */
static void test_registry_fused_epilogues(void **state) {
    (void)state;
    static const struct {
        const char *op;
        int64_t per;
    } t[] = {{"_MklSwish", 2}, {"_FusedHardSwish", 4}, {"GeluExact", 5}, {"GeluApproximate", 9}};
    for (size_t i = 0; i < 4; i++) {
        tg_graph *g = tg_new();
        tg_placeholder(g, "x", F32, 2, (int64_t[]){2, 8});
        tg_const_f32(g, "w", 2, (int64_t[]){8, 4}, NULL, 0);
        tg_const_f32(g, "b", 1, (int64_t[]){4}, NULL, 0);
        tg_node *f = tg_add(g, "f", "_FusedMatMul", "x", "w", "b", NULL);
        tg_attr_type(f, "T", F32);
        tg_attr_int(f, "num_args", 1);
        tg_attr_strs(f, "fused_ops", 2, (const char *const[]){"BiasAdd", t[i].op});
        pt_run h;
        pt_load(&h, g);
        pt_expect_cost(&h, "f", 2 * 8 * 8 + 8 * (1 + t[i].per), 0, 64);
        pt_fini(&h);
    }
}

/* After the stock rows 8 and 10 the fused nodes keep known shapes and costs. */
static void test_registry_after_stock_rewrites(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", F32, 2, (int64_t[]){4, 5});
    tg_placeholder(g, "b", F32, 2, (int64_t[]){4, 5});
    pt_op2(g, "ge", "GreaterEqual", "a", "b", F32);
    tg_node *cast = tg_add(g, "cast", "Cast", "ge", NULL);
    tg_attr_type(cast, "SrcT", BOOL);
    tg_attr_type(cast, "DstT", F32);
    tg_placeholder(g, "ids", I64, 1, (int64_t[]){6});
    tg_node *as = pt_op1(g, "as", "AsString", "ids", I64);
    tg_attr_int(as, "width", -1);
    tg_attr_str(as, "fill", "");
    tg_attr_int(tg_add(g, "hash", "StringToHashBucketFast", "as", NULL), "num_buckets", 10);
    pt_run h;
    pt_load(&h, g);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "cast", "_GreaterEqualWithCast", "a", "b", NULL);
    pt_expect_shape(&h, "cast", F32, 2, 4, 5);
    pt_expect_cost(&h, "cast", 40, 0, 0);
    pt_expect_node(&h, "hash", "_TensorToHashBucketFast", "ids", NULL);
    assert_int_equal(pt_attr_t(&h, "hash", "T"), I64);
    assert_int_equal(pt_attr_i(&h, "hash", "num_buckets"), 10);
    pt_expect_shape(&h, "hash", I64, 1, 6);
    pt_expect_cost(&h, "hash", 12, 0, 0);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* B. oneDNN rows                                                             */
/* ------------------------------------------------------------------------- */

/* x[1,8,8,4] -> Conv2D "c" -> Add "b"(c, bias) (-> act "a") -> Identity. */
static tg_graph *bias_add_chain(const int64_t *bias_dims, int bias_rank, const char *act,
                                int swap) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", bias_rank, bias_dims, NULL, 0);
    conv_attrs(pt_op2(g, "c", "Conv2D", "x", "w", F32), 4, "SAME");
    pt_op2(g, "b", "AddV2", swap ? "bias_v" : "c", swap ? "c" : "bias_v", F32);
    pt_op1(g, "out", "Identity", act ? "a" : "b", F32);
    if (act) {
        pt_op1(g, "a", act, "b", F32);
    }
    return g;
}

static void test_onednn_bias_semantic_add(void **state) {
    (void)state;
    pt_run h;
    /* 1-D bias, and [1,1,1,C] with the bias first */
    pt_load(&h, bias_add_chain((int64_t[]){4}, 1, NULL, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "c");
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "b", "fused_ops", 1, "BiasAdd");
    assert_int_equal(pt_attr_i(&h, "b", "num_args"), 1);
    pt_fini(&h);
    pt_load(&h, bias_add_chain((int64_t[]){1, 1, 1, 4}, 4, "Relu", 1));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Relu");
    pt_expect_shape(&h, "a", F32, 4, 1, 8, 8, 4);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, bias_add_chain((int64_t[]){4}, 1, NULL, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_bias_shape: a dim other than the last is not 1 */
    pt_load(&h, bias_add_chain((int64_t[]){8, 1, 4}, 3, NULL, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_equal_shapes (a residual Add, not a bias) */
    pt_load(&h, bias_add_chain((int64_t[]){1, 8, 8, 4}, 4, NULL, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_channel_mismatch: bias [1] broadcasts but is not C */
    pt_load(&h, bias_add_chain((int64_t[]){1}, 1, NULL, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* Maximum(x, Mul(x, alpha)) -> LeakyRelu. */
static tg_graph *mulmax(float alpha, int alpha_rank, int dt, int mul_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt == F64 ? F64 : F32, 2, (int64_t[]){3, 4});
    if (alpha_rank == 0) {
        pt_scalar(g, "alpha", alpha);
    } else {
        tg_const_f32_vals(g, "alpha", 1, (int64_t[]){1}, &alpha, 1);
    }
    pt_op2(g, "mul", "Mul", "alpha", "x", dt);
    pt_op2(g, "max", "Maximum", "x", "mul", dt);
    pt_op1(g, "out", "Identity", "max", dt);
    if (mul_spy) {
        pt_op1(g, "spy", "Identity", "mul", dt);
    }
    return g;
}

static void test_onednn_mul_maximum(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, mulmax(0.2f, 0, F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "mul");
    pt_expect_node(&h, "max", "LeakyRelu", "x", NULL);
    assert_int_equal(pt_attr_t(&h, "max", "T"), F32);
    assert_true(pt_attr_f(&h, "max", "alpha") == 0.2f);
    pt_expect_shape(&h, "max", F32, 2, 3, 4);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 1);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, mulmax(0.2f, 0, F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_negative_alpha */
    pt_load(&h, mulmax(-0.5f, 0, F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "max", "Maximum", "x", "mul", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_alpha_not_scalar */
    pt_load(&h, mulmax(0.2f, 1, F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_mul_other_consumer */
    pt_load(&h, mulmax(0.2f, 0, F32, 1));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* Mul(x, Tanh(Softplus(x))) -> _MklFusedMish. */
static tg_graph *mish(int dt, int tanh_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 2, (int64_t[]){3, 4});
    pt_op1(g, "sp", "Softplus", "x", dt);
    pt_op1(g, "tanh", "Tanh", "sp", dt);
    pt_op2(g, "mul", "Mul", "x", "tanh", dt);
    pt_op1(g, "out", "Identity", "mul", dt);
    if (tanh_spy) {
        pt_op1(g, "spy", "Identity", "tanh", dt);
    }
    return g;
}

static void test_onednn_mish(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, mish(F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "sp");
    pt_absent(&h, "tanh");
    pt_expect_node(&h, "mul", "_MklFusedMish", "x", NULL);
    assert_int_equal(pt_attr_t(&h, "mul", "T"), F32);
    pt_expect_cost(&h, "mul", 36, 0, 0);
    pt_fini(&h);
    pt_load(&h, mish(F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD); /* not_fused_due_to_stock_build */
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, mish(F64, 0)); /* not_fused_due_to_dtype */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, mish(F32, 1)); /* not_fused_due_to_tanh_other_consumer */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "mul", "Mul", "x", "tanh", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* Conv2D -> BiasAdd | FusedBatchNormV3 -> Mul(y, Sigmoid(y)). */
static tg_graph *conv_swish(int bn, int training, int sig_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    static const char *const vn[4] = {"scale", "offset", "mean", "var"};
    for (int i = 0; i < 4; i++) {
        tg_const_f32(g, vn[i], 1, (int64_t[]){4}, NULL, 0);
    }
    conv_attrs(pt_op2(g, "c", "Conv2D", "x", "w", F32), 4, "SAME");
    if (bn) {
        tg_node *y =
            tg_add(g, "y", "FusedBatchNormV3", "c", "scale", "offset", "mean", "var", NULL);
        tg_attr_type(y, "T", F32);
        tg_attr_type(y, "U", F32);
        tg_attr_bool(y, "is_training", training);
        tg_attr_float(y, "epsilon", 0.001f);
        tg_attr_str(y, "data_format", "NHWC");
    } else {
        pt_op2(g, "y", "BiasAdd", "c", "scale", F32);
    }
    pt_op1(g, "sig", "Sigmoid", "y", F32);
    pt_op2(g, "mul", "Mul", "y", "sig", F32);
    pt_op1(g, "out", "Identity", "mul", F32);
    if (sig_spy) {
        pt_op1(g, "spy", "Identity", "sig", F32);
    }
    return g;
}

static void test_onednn_conv_swish(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, conv_swish(0, 0, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "c");
    pt_absent(&h, "y");
    pt_absent(&h, "sig");
    pt_expect_node(&h, "mul", "_FusedConv2D", "x", "w", "scale", NULL);
    pt_expect_strs(&h, "mul", "fused_ops", 2, "BiasAdd", "_MklSwish");
    assert_int_equal(pt_attr_i(&h, "mul", "num_args"), 1);
    int64_t e = 8 * 8 * 4, macs = e * 36;
    pt_expect_cost(&h, "mul", 2 * macs + 3 * e, 0, macs);
    pt_fini(&h);
    pt_load(&h, conv_swish(1, 0, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "mul", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    pt_expect_strs(&h, "mul", "fused_ops", 2, "FusedBatchNorm", "_MklSwish");
    assert_int_equal(pt_attr_i(&h, "mul", "num_args"), 4);
    assert_true(pt_attr_f(&h, "mul", "epsilon") == 0.001f);
    pt_fini(&h);
    /* not_fused_due_to_training: only y * Sigmoid(y) -> _MklSwish (row 23) */
    pt_load(&h, conv_swish(1, 1, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "mul", "_MklSwish", "y", NULL);
    pt_need(&h, "c");
    pt_fini(&h);
    /* not_fused_due_to_sigmoid_other_consumer: only y*sigmoid(y) -> _MklSwish
     * does not fire either (the Sigmoid is shared); the conv+bias still fuses */
    pt_load(&h, conv_swish(0, 0, 1));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "mul", "Mul", "y", "sig", NULL);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, conv_swish(0, 0, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "mul", "Mul", "y", "sig", NULL);
    pt_fini(&h);
}

/* Pad -> Conv3D -> Identity. */
static tg_graph *pad_conv3d(const char *pad_op, int dt, int pad_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
    tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
    tg_const_int(g, "pads", I32, 2, (int64_t[]){5, 2}, (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
    if (strcmp(pad_op, "PadV2") == 0) {
        pt_scalar(g, "pv", 0.0f);
        pt_op2(g, "pad", "PadV2", "x", "pads", F32);
        tg_free(g);
        g = tg_new();
        tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
        tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
        tg_const_int(g, "pads", I32, 2, (int64_t[]){5, 2},
                     (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
        pt_scalar(g, "pv", 0.0f);
        tg_attr_type(tg_add(g, "pad", "PadV2", "x", "pads", "pv", NULL), "T", F32);
    } else {
        pt_op2(g, "pad", "Pad", "x", "pads", F32);
    }
    conv_attrs(pt_op2(g, "c", "Conv3D", "pad", "w", dt), 5, "VALID");
    pt_op1(g, "out", "Identity", "c", dt);
    if (pad_spy) {
        pt_op1(g, "spy", "Identity", "pad", F32);
    }
    return g;
}

static void test_onednn_pad_conv3d(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, pad_conv3d("Pad", F32, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "pad");
    pt_expect_node(&h, "c", "_FusedConv3D", "x", "w", NULL);
    pt_expect_ints(&h, "c", "padding_list", 10, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0);
    assert_int_equal(pt_attr_i(&h, "c", "num_args"), 0);
    pt_expect_shape(&h, "c", F32, 5, 1, 4, 6, 6, 8);
    int64_t e = 4 * 6 * 6 * 8, macs = e * 81;
    pt_expect_cost(&h, "c", 2 * macs, 0, macs);
    pt_fini(&h);
    /* a _FusedConv3D (BiasAdd fused) after the Pad: the same, its inputs
     * and attrs kept */
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
    tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
    tg_const_f32(g, "b", 1, (int64_t[]){8}, NULL, 0);
    tg_const_int(g, "pads", I32, 2, (int64_t[]){5, 2}, (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
    pt_op2(g, "pad", "Pad", "x", "pads", F32);
    tg_node *fc = tg_add(g, "c", "_FusedConv3D", "pad", "w", "b", NULL);
    tg_attr_type(fc, "T", F32);
    conv_attrs(fc, 5, "VALID");
    tg_attr_int(fc, "num_args", 1);
    tg_attr_strs(fc, "fused_ops", 1, (const char *const[]){"BiasAdd"});
    pt_op1(g, "out", "Identity", "c", F32);
    pt_load(&h, g);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "pad");
    pt_expect_node(&h, "c", "_FusedConv3D", "x", "w", "b", NULL);
    pt_expect_ints(&h, "c", "padding_list", 10, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0);
    assert_int_equal(pt_attr_i(&h, "c", "num_args"), 1);
    pt_expect_shape(&h, "c", F32, 5, 1, 4, 6, 6, 8);
    pt_fini(&h);
    pt_load(&h, pad_conv3d("Pad", F32, 0)); /* not_fused_due_to_stock_build */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, pad_conv3d("PadV2", F32, 0)); /* not_fused_due_to_pad_op */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, pad_conv3d("Pad", F32, 1)); /* not_fused_due_to_pad_other_consumer */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "c", "Conv3D", "pad", "w", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* BiasAdd(conv) "y" -> x*Relu6(x+3)*0.16666 (first form). */
static tg_graph *hard_swish(const char *conv, float three, int second_form) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, strcmp(conv, "Conv2D") == 0 ? 4 : 1}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    conv_attrs(pt_op2(g, "c", conv, "x", "w", F32), 4, "SAME");
    pt_op2(g, "y", "BiasAdd", "c", "bias_v", F32);
    pt_scalar(g, "three", three);
    pt_scalar(g, "sixth", 0.16666f);
    pt_op2(g, "add", "AddV2", "three", "y", F32);
    pt_op1(g, "r6", "Relu6", "add", F32);
    if (second_form) {
        pt_op2(g, "inner", "Mul", "y", "r6", F32);
        pt_op2(g, "out", "Mul", "inner", "sixth", F32);
    } else {
        pt_op2(g, "inner", "Mul", "r6", "sixth", F32);
        pt_op2(g, "out", "Mul", "y", "inner", F32);
    }
    pt_op1(g, "id", "Identity", "out", F32);
    return g;
}

static void test_onednn_hard_swish(void **state) {
    (void)state;
    pt_run h;
    for (int form = 0; form < 2; form++) {
        pt_load(&h, hard_swish("Conv2D", 3.0f, form));
        pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
        static const char *const gone[] = {"c", "y", "add", "r6", "inner", "three", "sixth"};
        for (size_t i = 0; i < 7; i++) {
            pt_absent(&h, gone[i]);
        }
        pt_expect_node(&h, "out", "_FusedConv2D", "x", "w", "bias_v", NULL);
        pt_expect_strs(&h, "out", "fused_ops", 2, "BiasAdd", "_FusedHardSwish");
        assert_int_equal(pt_attr_i(&h, "out", "num_args"), 1);
        pt_fini(&h);
    }
    pt_load(&h, hard_swish("DepthwiseConv2dNative", 3.0f, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "_FusedDepthwiseConv2dNative", "x", "w", "bias_v", NULL);
    pt_fini(&h);
    /* not_fused_due_to_constant: 2.5 instead of 3 (the conv + bias still fuse) */
    pt_load(&h, hard_swish("Conv2D", 2.5f, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "Mul", "y", "inner", NULL);
    pt_expect_node(&h, "y", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, hard_swish("Conv2D", 3.0f, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "out", "Mul", "y", "inner", NULL);
    pt_fini(&h);
}

/* AddV2(Mul(BatchMatMulV2(a, b), s), addend). */
static tg_graph *fused_bmm(int64_t s_len, int64_t add_d1, int bmm_rank) {
    tg_graph *g = tg_new();
    if (bmm_rank == 4) {
        tg_placeholder(g, "a", F32, 4, (int64_t[]){2, 3, 4, 5});
        tg_placeholder(g, "b", F32, 4, (int64_t[]){2, 3, 5, 6});
    } else {
        tg_placeholder(g, "a", F32, 3, (int64_t[]){3, 4, 5});
        tg_placeholder(g, "b", F32, 3, (int64_t[]){3, 5, 6});
    }
    if (s_len == 1) {
        tg_const_f32(g, "s", 1, (int64_t[]){1}, NULL, 0);
    } else {
        tg_const_f32(g, "s", 4, (int64_t[]){s_len, 1, 1, 1}, NULL, 0);
    }
    tg_placeholder(g, "addend", F32, 4, (int64_t[]){2, add_d1, 4, 6});
    tg_node *m = pt_op2(g, "bmm", "BatchMatMulV2", "a", "b", F32);
    tg_attr_bool(m, "adj_x", 0);
    tg_attr_bool(m, "adj_y", 0);
    pt_op2(g, "mul", "Mul", "bmm", "s", F32);
    pt_op2(g, "root", "AddV2", "addend", "mul", F32);
    pt_op1(g, "out", "Identity", "root", F32);
    return g;
}

static void test_onednn_fused_batch_matmul(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, fused_bmm(1, 1, 4));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "mul");
    pt_absent(&h, "bmm");
    pt_expect_node(&h, "root", "_MklFusedBatchMatMulV2", "a", "b", "s", "addend", NULL);
    pt_expect_strs(&h, "root", "fused_ops", 2, "Mul", "Add");
    assert_int_equal(pt_attr_i(&h, "root", "num_args"), 2);
    pt_expect_shape(&h, "root", F32, 4, 2, 3, 4, 6);
    pt_fini(&h);
    pt_load(&h, fused_bmm(2, 1, 4)); /* not_fused_due_to_multiplicand_size */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, fused_bmm(1, 3, 4)); /* not_fused_due_to_addend_dim1 */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, fused_bmm(1, 1, 3)); /* not_fused_due_to_bmm_rank */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    pt_load(&h, fused_bmm(1, 1, 4)); /* not_fused_due_to_stock_build */
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* MatMul -> BiasAdd y -> exact Gelu y * 0.5 * (1 + Erf(y * 0.707106)). */
static tg_graph *gelu_exact(int form, float c1, int dt) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 2, (int64_t[]){2, 8});
    tg_const_f32(g, "w", 2, (int64_t[]){8, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *m = pt_op2(g, "mm", "MatMul", "x", "w", dt);
    tg_attr_bool(m, "transpose_a", 0);
    tg_attr_bool(m, "transpose_b", 0);
    pt_op2(g, "y", "BiasAdd", "mm", "bias_v", dt);
    pt_scalar(g, "c1", c1);
    pt_scalar(g, "one", 1.0f);
    pt_scalar(g, "half", 0.5f);
    pt_op2(g, "mulc", "Mul", "y", "c1", dt);
    pt_op1(g, "erf", "Erf", "mulc", dt);
    pt_op2(g, "plus", "AddV2", "erf", "one", dt);
    if (form == 0) {
        pt_op2(g, "h", "Mul", "plus", "half", dt);
        pt_op2(g, "out", "Mul", "h", "y", dt);
    } else {
        pt_op2(g, "h", "Mul", "y", "half", dt);
        pt_op2(g, "out", "Mul", "plus", "h", dt);
    }
    pt_op1(g, "id", "Identity", "out", dt);
    return g;
}

static void test_onednn_matmul_gelu_exact(void **state) {
    (void)state;
    pt_run h;
    for (int form = 0; form < 2; form++) {
        pt_load(&h, gelu_exact(form, 0.707106f, F32));
        pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
        static const char *const gone[] = {"mm", "y", "mulc", "erf", "plus", "h"};
        for (size_t i = 0; i < 6; i++) {
            pt_absent(&h, gone[i]);
        }
        pt_expect_node(&h, "out", "_FusedMatMul", "x", "w", "bias_v", NULL);
        pt_expect_strs(&h, "out", "fused_ops", 2, "BiasAdd", "GeluExact");
        assert_int_equal(pt_attr_i(&h, "out", "num_args"), 1);
        pt_expect_cost(&h, "out", 2 * 64 + 8 * 6, 0, 64);
        pt_fini(&h);
    }
    /* not_fused_due_to_constant (the MatMul + BiasAdd still fuse) */
    pt_load(&h, gelu_exact(0, 0.5f, F32));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "Mul", "h", "y", NULL);
    pt_expect_node(&h, "y", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, gelu_exact(0, 0.707106f, F32));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "out", "Mul", "h", "y", NULL);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* D. Rules matched to TensorFlow's conditions                                */
/* ------------------------------------------------------------------------- */

/* _FusedConv2D (or _FusedConv3D) "f" [BiasAdd] -> act "a" -> Identity. */
static tg_graph *fused_conv_act(const char *conv_op, const char *act, int f_spy) {
    tg_graph *g = tg_new();
    int r3 = strcmp(conv_op, "_FusedConv3D") == 0;
    if (r3) {
        tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
        tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
    } else {
        tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 8, 8, 3});
        tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 3, 8}, NULL, 0);
    }
    tg_const_f32(g, "b", 1, (int64_t[]){8}, NULL, 0);
    tg_node *f = strcmp(conv_op, "Conv2D") == 0 ? tg_add(g, "f", conv_op, "x", "w", NULL)
                                                : tg_add(g, "f", conv_op, "x", "w", "b", NULL);
    tg_attr_type(f, "T", F32);
    conv_attrs(f, r3 ? 5 : 4, "SAME");
    if (strcmp(conv_op, "Conv2D") != 0) {
        tg_attr_int(f, "num_args", 1);
        tg_attr_strs(f, "fused_ops", 1, (const char *const[]){"BiasAdd"});
    }
    tg_node *a = pt_op1(g, "a", act, "f", F32);
    if (strcmp(act, "LeakyRelu") == 0) {
        tg_attr_float(a, "alpha", 0.1f);
    }
    pt_op1(g, "out", "Identity", "a", F32);
    if (f_spy) {
        pt_op1(g, "spy", "Identity", "f", F32);
    }
    return g;
}

/* Row 14 (FindContractionWithActivation): only a fused conv is extended. */
static void test_onednn_fused_conv_activation(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "f");
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "b", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "LeakyRelu");
    assert_int_equal(pt_attr_i(&h, "a", "num_args"), 1);
    assert_true(pt_attr_f(&h, "a", "leakyrelu_alpha") == 0.1f);
    assert_string_equal(fl__node_attr(pt_need(&h, "a"), "padding")->v.s.p, "SAME");
    int64_t e = 8 * 8 * 8, macs = e * 27;
    pt_expect_cost(&h, "a", 2 * macs + 2 * e, 0, macs);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 1);
    pt_fini(&h);
    pt_load(&h, fused_conv_act("_FusedConv2D", "_MklFusedMish", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "b", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Mish");
    assert_null(fl__node_attr(pt_need(&h, "a"), "leakyrelu_alpha"));
    pt_expect_cost(&h, "a", 2 * macs + 4 * e, 0, macs);
    pt_fini(&h);
    pt_load(&h, fused_conv_act("_FusedConv3D", "LeakyRelu", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedConv3D", "x", "w", "b", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "LeakyRelu");
    pt_fini(&h);
    /* not_fused_due_to_plain_conv2d (TF 2.11/2.12 took it; current TF not) */
    pt_load(&h, fused_conv_act("Conv2D", "LeakyRelu", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "LeakyRelu", "f", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_conv_other_consumer (ours: TF would leave it dangling) */
    pt_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 1));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "LeakyRelu", "f", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_activation (Relu is not a row-14 activation) */
    pt_load(&h, fused_conv_act("_FusedConv2D", "Relu", 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "Relu", "f", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* x -> Conv2D "c" -> BiasAdd "b" -> AddV2 "add"(b, other) -> Identity. */
static tg_graph *conv_bias_addend(int dt) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(g, "other", dt, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(g, "w", dt, 4, (int64_t[]){3, 3, 4, 4});
    tg_placeholder(g, "bias_v", dt, 1, (int64_t[]){4});
    conv_attrs(pt_op2(g, "c", "Conv2D", "x", "w", dt), 4, "SAME");
    pt_op2(g, "b", "BiasAdd", "c", "bias_v", dt);
    pt_op2(g, "add", "AddV2", "b", "other", dt);
    pt_op1(g, "out", "Identity", "add", dt);
    return g;
}

/* Row 15 (FindContractionWithBiasAddAndAdd): the Add's placement and T are
 * checked, the contraction's are not. */
static void test_onednn_bias_add_device(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, conv_bias_addend(F32));
    pt_need(&h, "c")->device = "/device:GPU:0";
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "add", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    pt_expect_strs(&h, "add", "fused_ops", 2, "BiasAdd", "Add");
    assert_string_equal(pt_need(&h, "add")->device, "/device:GPU:0");
    pt_fini(&h);
    /* not_fused_due_to_add_device */
    pt_load(&h, conv_bias_addend(F32));
    pt_need(&h, "add")->device = "/device:GPU:0";
    pt_need(&h, "c")->device = "/device:GPU:0";
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "add", "AddV2", "b", "other", NULL);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_add_dtype (double) */
    pt_load(&h, conv_bias_addend(F64));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "add", "AddV2", "b", "other", NULL);
    pt_fini(&h);
}

/* Row 11: FindDilatedConv does not look at the conv's strides. */
static void test_dilated_conv_strided(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 16, 16, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_int(g, "bs", I32, 1, (int64_t[]){2}, (int64_t[]){2, 2});
    tg_const_int(g, "pads", I32, 2, (int64_t[]){2, 2}, (int64_t[]){2, 2, 2, 2});
    tg_const_int(g, "crops", I32, 2, (int64_t[]){2, 2}, (int64_t[]){0, 0, 0, 0});
    tg_attr_type(tg_add(g, "s2b", "SpaceToBatchND", "x", "bs", "pads", NULL), "T", F32);
    tg_node *c = pt_op2(g, "c", "Conv2D", "s2b", "w", F32);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(c, "padding", "VALID");
    tg_attr_type(tg_add(g, "b2s", "BatchToSpaceND", "c", "bs", "crops", NULL), "T", F32);
    pt_op1(g, "out", "Identity", "b2s", F32);
    pt_run h;
    pt_load(&h, g);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_absent(&h, "s2b");
    pt_absent(&h, "c");
    pt_expect_node(&h, "b2s", "Conv2D", "x", "w", NULL);
    pt_expect_ints(&h, "b2s", "dilations", 4, 1, 2, 2, 1);
    pt_expect_ints(&h, "b2s", "strides", 4, 1, 2, 2, 1);
    assert_string_equal(fl__node_attr(pt_need(&h, "b2s"), "padding")->v.s.p, "SAME");
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* E. oneDNN normalisations (rows 24, 25)                                     */
/* ------------------------------------------------------------------------- */

/* The complete-convention FLOPs of node `name` (must be known). */
static int64_t flops_of(pt_run *h, const char *name) {
    fl_node *n = pt_need(h, name);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&h->c, n, &c), FL_OK);
    assert_true(c.has_rule && !c.incomplete && fl_sym_is_known(c.flops));
    return c.flops.k;
}

static int64_t flops_sum(pt_run *h, const char *const *names, size_t n) {
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += flops_of(h, names[i]);
    }
    return t;
}

static tg_node *mean_op(tg_graph *g, const char *name, const char *x, const char *ax, int keep,
                        int dt) {
    tg_node *m = pt_op2(g, name, "Mean", x, ax, dt);
    tg_attr_type(m, "Tidx", I32);
    tg_attr_bool(m, "keep_dims", keep);
    return m;
}

typedef struct norm_opts {
    int rank;             /* 2..5 */
    const int64_t *xdims; /* rank dims */
    const int64_t *axes;  /* reduction axes of mean1 (and mean0) */
    int n_axes;
    int64_t gamma_len, beta_len;
    int keep_dims, dt;
    const char *act; /* NULL, "Relu", "LeakyRelu" */
    int mul1_spy;
} norm_opts;

/* The common norm pattern (IsCommonNormPattern), output "out" (-> act "a"). */
static tg_graph *common_norm(const norm_opts *o) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", o->dt, o->rank, o->xdims);
    tg_const_f32(g, "gamma", 1, (int64_t[]){o->gamma_len}, NULL, 0);
    tg_const_f32(g, "beta", 1, (int64_t[]){o->beta_len}, NULL, 0);
    tg_const_int(g, "axes1", I32, 1, (int64_t[]){o->n_axes}, o->axes);
    tg_const_int(g, "axes0", I32, 1, (int64_t[]){o->n_axes}, o->axes);
    tg_const_f32_vals(g, "eps", 0, NULL, (float[]){0.001f}, 1);
    mean_op(g, "mean1", "x", "axes1", o->keep_dims, o->dt);
    pt_op2(g, "sqd", "SquaredDifference", "x", "mean1", o->dt);
    mean_op(g, "mean0", "sqd", "axes0", o->keep_dims, o->dt);
    pt_op2(g, "add", "AddV2", "mean0", "eps", o->dt);
    pt_op1(g, "rsqrt", "Rsqrt", "add", o->dt);
    pt_op2(g, "mul1", "Mul", "rsqrt", "gamma", o->dt);
    pt_op2(g, "mul0", "Mul", "x", "mul1", o->dt);
    pt_op2(g, "mul2", "Mul", "mul1", "mean1", o->dt);
    pt_op2(g, "sub0", "Sub", "beta", "mul2", o->dt);
    pt_op2(g, "out", "AddV2", "mul0", "sub0", o->dt);
    if (o->act) {
        tg_node *a = pt_op1(g, "a", o->act, "out", o->dt);
        if (strcmp(o->act, "LeakyRelu") == 0) {
            tg_attr_float(a, "alpha", 0.3f);
        }
    }
    pt_op1(g, "id", "Identity", o->act ? "a" : "out", o->dt);
    if (o->mul1_spy) {
        pt_op1(g, "spy", "Identity", "mul1", o->dt);
    }
    return g;
}

static const char *const norm_nodes[] = {"mean1", "sqd",  "mean0", "add",  "rsqrt",
                                         "mul1",  "mul0", "mul2",  "sub0", "out"};

static void expect_norm_gone(pt_run *h) {
    for (size_t i = 0; i < 9; i++) {
        pt_absent(h, norm_nodes[i]);
    }
}

static void test_onednn_instance_norm(void **state) {
    (void)state;
    static const int64_t x4[] = {2, 4, 4, 3}, x5[] = {1, 2, 4, 4, 3};
    pt_run h;
    norm_opts o = {4, x4, (int64_t[]){1, 2}, 2, 3, 3, 1, F32, NULL, 0};
    pt_load(&h, common_norm(&o));
    int64_t unfused = flops_sum(&h, norm_nodes, 10);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_norm_gone(&h);
    pt_expect_node(&h, "out", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    assert_int_equal(pt_attr_t(&h, "out", "T"), F32);
    assert_true(pt_attr_f(&h, "out", "epsilon") == 0.001f);
    pt_expect_ints(&h, "out", "reduction_axes", 2, 1, 2);
    assert_null(fl__node_attr(pt_need(&h, "out"), "fused_ops"));
    pt_expect_shape(&h, "out", F32, 4, 2, 4, 4, 3);
    /* E 96, G 6, M 6: 6E + 3G + 3M, what the ten unfused nodes count */
    pt_expect_cost(&h, "out", 612, 0, 0);
    assert_int_equal(unfused, 612);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 9);
    pt_fini(&h);
    /* with LeakyRelu: named after it, fused_ops [LeakyRelu], alpha */
    o.act = "LeakyRelu";
    pt_load(&h, common_norm(&o));
    unfused = flops_sum(&h, norm_nodes, 10) + flops_of(&h, "a");
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_absent(&h, "out");
    pt_expect_node(&h, "a", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 1, "LeakyRelu");
    assert_true(pt_attr_f(&h, "a", "leakyrelu_alpha") == 0.3f);
    pt_expect_cost(&h, "a", unfused, 0, 0);
    assert_int_equal(h.pc.removed, 10);
    pt_fini(&h);
    /* 5-D, axes [1,2,3] */
    norm_opts o5 = {5, x5, (int64_t[]){1, 2, 3}, 3, 3, 3, 1, F32, "Relu", 0};
    pt_load(&h, common_norm(&o5));
    unfused = flops_sum(&h, norm_nodes, 10) + flops_of(&h, "a");
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    pt_expect_ints(&h, "a", "reduction_axes", 3, 1, 2, 3);
    pt_expect_strs(&h, "a", "fused_ops", 1, "Relu");
    pt_expect_cost(&h, "a", unfused, 0, 0);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    o.act = NULL;
    pt_load(&h, common_norm(&o));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_axes ([1,3] is neither [1,2] nor [2,3]) */
    norm_opts ob = o;
    ob.axes = (int64_t[]){1, 3};
    ob.gamma_len = ob.beta_len = 1;
    pt_load(&h, common_norm(&ob));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_gamma_beta_size */
    ob = o;
    ob.beta_len = 1;
    pt_load(&h, common_norm(&ob));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_keep_dims */
    ob = o;
    ob.keep_dims = 0; /* x [1,4,4,1] so that the unkept mean still broadcasts */
    ob.xdims = (int64_t[]){1, 4, 4, 1};
    ob.gamma_len = ob.beta_len = 1;
    pt_load(&h, common_norm(&ob));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_dtype (double) */
    ob = o;
    ob.dt = F64;
    pt_load(&h, common_norm(&ob));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "AddV2", "mul0", "sub0", NULL);
    pt_fini(&h);
    /* not_fused_due_to_inner_consumer */
    ob = o;
    ob.mul1_spy = 1;
    pt_load(&h, common_norm(&ob));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* Custom LayerNorm (pattern 2) on x [4, 8] (or x_dims), output "out". */
static tg_graph *custom_layer_norm(int rank, const int64_t *xdims, int other_sub) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, rank, xdims);
    tg_const_f32(g, "gamma", 1, (int64_t[]){xdims[rank - 1]}, NULL, 0);
    tg_const_f32(g, "beta", 1, (int64_t[]){xdims[rank - 1]}, NULL, 0);
    tg_const_int(g, "ax", I32, 1, (int64_t[]){1}, (int64_t[]){rank - 1});
    tg_const_f32_vals(g, "eps", 0, NULL, (float[]){1e-5f}, 1);
    mean_op(g, "mean", "x", "ax", 1, F32);
    pt_op2(g, "d", "Sub", "x", "mean", F32);
    if (other_sub) {
        pt_op2(g, "d2", "Sub", "mean", "x", F32);
        pt_op1(g, "sq", "Square", "d2", F32);
    } else {
        pt_op1(g, "sq", "Square", "d", F32);
    }
    mean_op(g, "ms", "sq", "ax", 1, F32);
    pt_op2(g, "ae", "AddV2", "ms", "eps", F32);
    pt_op1(g, "rs", "Rsqrt", "ae", F32);
    pt_op2(g, "scale", "Mul", "rs", "gamma", F32);
    pt_op2(g, "mul", "Mul", "d", "scale", F32);
    pt_op2(g, "out", "AddV2", "beta", "mul", F32);
    pt_op1(g, "id", "Identity", "out", F32);
    return g;
}

/* Keras LayerNormalization (pattern 1) on x [4, 8]; mean and variance one
 * Const of empty_len elements. */
static tg_graph *keras_layer_norm(int64_t empty_len) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, (int64_t[]){4, 8});
    tg_const_f32(g, "gamma", 1, (int64_t[]){8}, NULL, 0);
    tg_const_f32(g, "beta", 1, (int64_t[]){8}, NULL, 0);
    tg_const_int(g, "pre_shape", I32, 1, (int64_t[]){4}, (int64_t[]){1, 4, 8, 1});
    tg_const_int(g, "post_shape", I32, 1, (int64_t[]){2}, (int64_t[]){4, 8});
    tg_const_int(g, "fdims", I32, 1, (int64_t[]){1}, (int64_t[]){4});
    tg_const_f32_vals(g, "one", 0, NULL, (float[]){1.0f}, 1);
    tg_const_f32_vals(g, "zero", 0, NULL, (float[]){0.0f}, 1);
    tg_const_f32(g, "empty", 1, (int64_t[]){empty_len}, NULL, 0);
    tg_node *r = pt_op2(g, "pre", "Reshape", "x", "pre_shape", F32);
    tg_attr_type(r, "Tshape", I32);
    tg_attr_type(tg_add(g, "fs", "Fill", "fdims", "one", NULL), "T", F32);
    tg_attr_type(tg_add(g, "fo", "Fill", "fdims", "zero", NULL), "T", F32);
    tg_node *bn = tg_add(g, "bn", "FusedBatchNormV3", "pre", "fs", "fo", "empty", "empty", NULL);
    tg_attr_type(bn, "T", F32);
    tg_attr_type(bn, "U", F32);
    tg_attr_bool(bn, "is_training", 1);
    tg_attr_str(bn, "data_format", "NCHW");
    tg_attr_float(bn, "epsilon", 0.001f);
    r = pt_op2(g, "post", "Reshape", "bn", "post_shape", F32);
    tg_attr_type(r, "Tshape", I32);
    pt_op2(g, "scale", "Mul", "post", "gamma", F32);
    pt_op2(g, "out", "AddV2", "scale", "beta", F32);
    pt_op1(g, "id", "Identity", "out", F32);
    return g;
}

static void test_onednn_layer_norm(void **state) {
    (void)state;
    static const int64_t x2[] = {4, 8}, x4[] = {2, 2, 2, 8};
    static const char *const custom[] = {"mean", "d",     "sq",  "ms", "ae",
                                         "rs",   "scale", "mul", "out"};
    pt_run h;
    pt_load(&h, custom_layer_norm(2, x2, 0));
    int64_t unfused = flops_sum(&h, custom, 9);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    for (size_t i = 0; i < 8; i++) {
        pt_absent(&h, custom[i]);
    }
    pt_expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    assert_int_equal(pt_attr_t(&h, "out", "T"), F32);
    assert_null(fl__node_attr(pt_need(&h, "out"), "epsilon"));
    pt_expect_shape(&h, "out", F32, 2, 4, 8);
    /* E 32, R 4: 7E + 3R, what the custom chain counts */
    pt_expect_cost(&h, "out", 236, 0, 0);
    assert_int_equal(unfused, 236);
    assert_int_equal(h.pc.removed, 8);
    pt_fini(&h);
    /* the common norm pattern over the last axis (pattern 3), rank 3 */
    norm_opts o = {3, (int64_t[]){2, 4, 8}, (int64_t[]){2}, 1, 8, 8, 1, F32, NULL, 0};
    pt_load(&h, common_norm(&o));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_norm_gone(&h);
    pt_expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    pt_fini(&h);
    /* Keras form (pattern 1) */
    pt_load(&h, keras_layer_norm(0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    static const char *const keras[] = {"scale", "post", "bn", "pre", "fs", "fo"};
    for (size_t i = 0; i < 6; i++) {
        pt_absent(&h, keras[i]);
    }
    pt_expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    pt_expect_shape(&h, "out", F32, 2, 4, 8);
    pt_fini(&h);
    /* not_fused_due_to_nonempty_mean (the Keras form's mean/variance are empty) */
    pt_load(&h, keras_layer_norm(4));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "AddV2", "scale", "beta", NULL);
    pt_fini(&h);
    /* not_fused_due_to_rank (4-D input) */
    pt_load(&h, custom_layer_norm(4, x4, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_other_sub (ours: Square must read the same Sub) */
    pt_load(&h, custom_layer_norm(2, x2, 1));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "out", "AddV2", "beta", "mul", NULL);
    pt_fini(&h);
    /* not_fused_due_to_axis (pattern 3 reducing axis 1 of 3) */
    o.axes = (int64_t[]){1};
    o.gamma_len = o.beta_len = 1;
    pt_load(&h, common_norm(&o));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_untouched(&h);
    pt_fini(&h);
    /* not_fused_due_to_stock_build */
    pt_load(&h, custom_layer_norm(2, x2, 0));
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_untouched(&h);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* C. Dependency optimizer                                                    */
/* ------------------------------------------------------------------------- */

static void h_dependency(pt_run *h) {
    pt_pass(h, fl__pass_dependency_optimizer, "dependency", FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
}

/* a -> b -> c with ^a on c: the control edge goes (path a-b-c is longer);
 * ^a on d, reachable only directly, stays. */
static void test_dependency_transitive_reduction(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "a", "Relu", "x", F32);
    pt_op1(g, "b", "Relu", "a", F32);
    tg_attr_type(tg_add(g, "c", "Relu", "b", "^a", NULL), "T", F32);
    tg_attr_type(tg_add(g, "d", "Relu", "x", "^a", NULL), "T", F32);
    /* e: ^b reachable through b -> c's control chain? no: e reads c, so
     * b -> c -> e is a path of 2: ^b dropped */
    tg_attr_type(tg_add(g, "e", "Relu", "c", "^b", NULL), "T", F32);
    pt_run h;
    pt_load(&h, g);
    h_dependency(&h);
    pt_expect_node(&h, "c", "Relu", "b", NULL);
    pt_expect_ctrl(&h, "c", NULL);
    pt_expect_ctrl(&h, "d", "a", NULL);
    pt_expect_ctrl(&h, "e", NULL);
    assert_true(pt_fired(&h, "transitive_reduction", "c"));
    assert_true(pt_fired(&h, "transitive_reduction", "e"));
    assert_false(pt_fired(&h, "transitive_reduction", "d"));
    pt_fini(&h);
}

/* Grappler's limits: a path through a Merge does not count, and a
 * frame-modifying target (Enter) keeps its control inputs. */
static void test_dependency_transitive_reduction_limits(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "a", "Relu", "x", F32);
    tg_node *m = tg_add(g, "m", "Merge", "a", "x", NULL);
    tg_attr_type(m, "T", F32);
    tg_attr_int(m, "N", 2);
    tg_attr_type(tg_add(g, "c", "Relu", "m", "^a", NULL), "T", F32);
    tg_node *en = tg_add(g, "en", "Enter", "a", "^x", NULL);
    tg_attr_type(en, "T", F32);
    tg_attr_str(en, "frame_name", "f");
    pt_op1(g, "en_out", "Exit", "en", F32);
    pt_run h;
    pt_load(&h, g);
    h_dependency(&h);
    pt_expect_ctrl(&h, "c", "a", NULL);  /* not_reduced_due_to_merge */
    pt_expect_ctrl(&h, "en", "x", NULL); /* not_reduced_due_to_frame */
    assert_false(pt_fired(&h, "transitive_reduction", "c"));
    pt_fini(&h);
}

/* Two control inputs from one other device go through one NoOp there. */
static void test_dependency_group_cross_device(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "p", "Relu", "x", F32);
    pt_op1(g, "q", "Relu", "x", F32);
    pt_op1(g, "r", "Relu", "x", F32);
    pt_op1(g, "p_out", "Identity", "p", F32);
    pt_op1(g, "q_out", "Identity", "q", F32);
    pt_op1(g, "r_out", "Identity", "r", F32);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^p", "^r", "^q", NULL), "T", F32);
    pt_run h;
    pt_load(&h, g);
    pt_need(&h, "p")->device = "/device:GPU:0";
    pt_need(&h, "q")->device = "/device:GPU:0";
    pt_need(&h, "r")->device = "/device:GPU:1";
    pt_need(&h, "m")->device = "/device:CPU:0";
    h_dependency(&h);
    const char *gname = "GroupCrossDeviceControlEdges_0/m";
    pt_expect_node(&h, gname, "NoOp", NULL);
    pt_expect_ctrl(&h, gname, "p", "q", NULL);
    assert_string_equal(pt_need(&h, gname)->device, "/device:GPU:0");
    pt_expect_ctrl(&h, "m", "r", gname, NULL);
    assert_true(pt_fired(&h, "group_cross_device_control_edges", "m"));
    assert_int_equal(h.pc.added, 1);
    pt_fini(&h);
    /* not_grouped_due_to_unplaced_node */
    g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "p", "Relu", "x", F32);
    pt_op1(g, "q", "Relu", "x", F32);
    pt_op1(g, "p_out", "Identity", "p", F32);
    pt_op1(g, "q_out", "Identity", "q", F32);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^p", "^q", NULL), "T", F32);
    pt_load(&h, g);
    pt_need(&h, "p")->device = "/device:GPU:0";
    pt_need(&h, "q")->device = "/device:GPU:0";
    h_dependency(&h);
    pt_expect_ctrl(&h, "m", "p", "q", NULL);
    assert_int_equal(h.pc.added, 0);
    pt_fini(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_fused_conv3d),
        cmocka_unit_test(test_registry_comparison_with_cast),
        cmocka_unit_test(test_registry_tensor_to_hash_bucket),
        cmocka_unit_test(test_registry_mish_and_fused_bmm),
        cmocka_unit_test(test_registry_fused_epilogues),
        cmocka_unit_test(test_registry_after_stock_rewrites),
        cmocka_unit_test(test_onednn_bias_semantic_add),
        cmocka_unit_test(test_onednn_mul_maximum),
        cmocka_unit_test(test_onednn_mish),
        cmocka_unit_test(test_onednn_conv_swish),
        cmocka_unit_test(test_onednn_pad_conv3d),
        cmocka_unit_test(test_onednn_hard_swish),
        cmocka_unit_test(test_onednn_fused_batch_matmul),
        cmocka_unit_test(test_onednn_matmul_gelu_exact),
        cmocka_unit_test(test_onednn_fused_conv_activation),
        cmocka_unit_test(test_onednn_bias_add_device),
        cmocka_unit_test(test_dilated_conv_strided),
        cmocka_unit_test(test_onednn_instance_norm),
        cmocka_unit_test(test_onednn_layer_norm),
        cmocka_unit_test(test_dependency_transitive_reduction),
        cmocka_unit_test(test_dependency_transitive_reduction_limits),
        cmocka_unit_test(test_dependency_group_cross_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
