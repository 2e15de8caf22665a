/*
 * test_arithmetic.c - the arithmetic optimizer's stages added on top of the
 * first set (src/passes/arithmetic_optimizer.c; the first set is covered in
 * test_passes.c).
 *
 * Each test builds a small GraphDef with testgraph.h, runs the arithmetic
 * pass once with the verifier on, and compares the whole rewritten graph,
 * printed as "name=Op(input,input:1,^ctrl)" per node in graph order, with the
 * exact expected text; attrs that a stage sets are checked one by one. Every
 * stage has a positive test and a negative test per blocking condition
 * (named *_kept_when_<reason>).
 */
#include "passtest.h"
#include "tensorflow/graph.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness (passtest.h)                                                       */
/* ------------------------------------------------------------------------- */

/* Imports g and runs the arithmetic pass once (outputs: `outs`, or the
 * nodes without consumers), verifier on; asserts success. */
static pt_run *run_outs(tg_graph *tg, const char *const *outs, size_t n_outs, fl_device dev) {
    return pt_pipeline(tg, &(pt_opts){.passes = "arithmetic",
                                      .iterations = 1,
                                      .outputs = outs,
                                      .n_outputs = n_outs,
                                      .device = dev});
}

static pt_run *run(tg_graph *tg) {
    return run_outs(tg, NULL, 0, FL_DEVICE_CPU);
}

/* Runs and compares the dump; the ledger must name `rule` (when given). */
static void expect(tg_graph *g, const char *want, const char *rule) {
    pt_expect(g, &(pt_opts){.passes = "arithmetic", .iterations = 1}, want, rule, NULL, true);
}

static const int64_t D23[] = {2, 3};
static const int64_t D3[] = {3};

/* ------------------------------------------------------------------------- */
/* AddOpsRewrite                                                              */
/* ------------------------------------------------------------------------- */

static void test_add_ops_single_shape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 2, D23);
    pt_ph(g, "c", 2, D23);
    pt_ph(g, "d", 2, D23);
    pt_op2(g, "s/ab", "AddV2", "a", "b", F32);
    pt_op2(g, "s/cd", "Add", "c", "d", F32);
    pt_op2(g, "s/root", "AddV2", "s/ab", "s/cd", F32);
    pt_op1(g, "y", "Neg", "s/root", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "a=Placeholder(); b=Placeholder(); c=Placeholder(); "
                        "d=Placeholder(); y=Neg(s/ArithmeticOptimizer/AddOpsRewrite_root); "
                        "s/ArithmeticOptimizer/AddOpsRewrite_root=AddN(a,b,c,d)");
    assert_true(pt_fired(p, "combine_add_to_addn", "s/root"));
    const char *nn = "s/ArithmeticOptimizer/AddOpsRewrite_root";
    assert_int_equal(pt_attr_t(p, nn, "T"), 1);
    assert_true(pt_attr_bool(p, nn, "_grappler_ArithmeticOptimizer_AddOpsRewriteStage"));
    assert_int_equal(p->led.passes[0].nodes_added, 1);
    pt_free(p);
    tg_free(g);
}

static void test_add_ops_two_shapes(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 1, D3);
    pt_ph(g, "c", 2, D23);
    pt_ph(g, "d", 1, D3);
    pt_op2(g, "ab", "AddV2", "a", "b", F32);
    pt_op2(g, "abc", "AddV2", "ab", "c", F32);
    pt_op2(g, "root", "AddV2", "abc", "d", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    /* [3] inputs are smaller: their AddN is Leaf_0, the [2,3] one Leaf_1. */
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); d=Placeholder(); "
           "y=Neg(ArithmeticOptimizer/AddOpsRewrite_root); "
           "ArithmeticOptimizer/AddOpsRewrite_Leaf_0_root=AddN(b,d); "
           "ArithmeticOptimizer/AddOpsRewrite_Leaf_1_root=AddN(a,c); "
           "ArithmeticOptimizer/AddOpsRewrite_root=AddV2(ArithmeticOptimizer/"
           "AddOpsRewrite_Leaf_0_root,ArithmeticOptimizer/AddOpsRewrite_Leaf_1_root)",
           "combine_add_to_addn");
    tg_free(g);
}

static void test_add_ops_kept_when_shared(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 2, D23);
    pt_ph(g, "c", 2, D23);
    pt_op2(g, "ab", "AddV2", "a", "b", F32);
    pt_op2(g, "root", "AddV2", "ab", "c", F32);
    pt_op2(g, "y", "Mul", "root", "ab", F32); /* ab read twice */
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); ab=AddV2(a,b); "
           "root=AddV2(ab,c); y=Mul(root,ab)",
           NULL);
    tg_free(g);
}

static void test_add_ops_kept_when_preserved_or_ctrl(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 2, D23);
    pt_ph(g, "c", 2, D23);
    pt_op2(g, "ab", "AddV2", "a", "b", F32);
    pt_op2(g, "root", "AddV2", "ab", "c", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    static const char *const outs[] = {"y", "ab"}; /* ab is an output */
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p), "a=Placeholder(); b=Placeholder(); c=Placeholder(); "
                                    "ab=AddV2(a,b); root=AddV2(ab,c); y=Neg(root)");
    pt_free(p);
    tg_free(g);
    g = tg_new();
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 2, D23);
    pt_ph(g, "c", 2, D23);
    tg_node *ab = tg_add(g, "ab", "AddV2", "a", "b", "^c", NULL);
    tg_attr_type(ab, "T", 1);
    pt_op2(g, "root", "AddV2", "ab", "c", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); ab=AddV2(a,b,^c); "
           "root=AddV2(ab,c); y=Neg(root)",
           NULL);
    tg_free(g);
}

static void test_add_ops_kept_when_not_broadcastable(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, (int64_t[]){-1, 3}); /* unknown dim: shape not defined */
    pt_ph(g, "b", 2, (int64_t[]){-1, 3});
    pt_ph(g, "c", 2, (int64_t[]){-1, 3});
    pt_op2(g, "ab", "AddV2", "a", "b", F32);
    pt_op2(g, "root", "AddV2", "ab", "c", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    /* the batch is a symbol (a.0, b.0, c.0): different symbols do not
     * broadcast to each other */
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); ab=AddV2(a,b); "
           "root=AddV2(ab,c); y=Neg(root)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* FoldMultiplyIntoConv                                                       */
/* ------------------------------------------------------------------------- */

static void conv_graph(tg_graph *g, bool const_w, bool scalar_scale, bool shared) {
    pt_ph(g, "x", 4, (int64_t[]){1, 8, 8, 3});
    if (scalar_scale) {
        pt_scalar(g, "s", 0.5f);
    } else {
        tg_const_f32(g, "s", 1, D3, NULL, 0);
    }
    pt_op2(g, "m", "Mul", "x", "s", F32);
    pt_op1(g, "i", "Identity", "m", F32);
    if (const_w) {
        tg_const_f32(g, "w/k", 4, (int64_t[]){3, 3, 3, 4}, NULL, 0);
    } else {
        pt_ph(g, "w/k", 4, (int64_t[]){3, 3, 3, 4});
    }
    tg_node *c = pt_op2(g, "conv", "Conv2D", "i", "w/k", F32);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    if (shared) {
        pt_op1(g, "y", "Neg", "m", F32);
    }
}

static void test_fold_multiply_into_conv(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    conv_graph(g, true, true, false);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); s=Const(); i=Identity(x); w/k=Const(); "
                        "conv=Conv2D(i,w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k); "
                        "w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k=Mul(w/k,s)");
    assert_true(pt_fired(p, "fold_multiply_into_conv", "conv"));
    assert_int_equal(pt_attr_t(p, "w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k", "T"),
                     1);
    pt_free(p);
    tg_free(g);
}

static void test_fold_multiply_kept(void **state) {
    (void)state;
    static const char *const want_shared =
        "x=Placeholder(); s=Const(); m=Mul(x,s); i=Identity(m); w/k=Const(); "
        "conv=Conv2D(i,w/k); y=Neg(m)";
    tg_graph *g = tg_new();
    conv_graph(g, true, true, true); /* Mul read twice */
    expect(g, want_shared, NULL);
    tg_free(g);
    g = tg_new();
    conv_graph(g, false, true, false); /* weights not constant */
    expect(g,
           "x=Placeholder(); s=Const(); m=Mul(x,s); i=Identity(m); w/k=Placeholder(); "
           "conv=Conv2D(i,w/k)",
           NULL);
    tg_free(g);
    g = tg_new();
    conv_graph(g, true, false, false); /* scale not a scalar */
    expect(g,
           "x=Placeholder(); s=Const(); m=Mul(x,s); i=Identity(m); w/k=Const(); "
           "conv=Conv2D(i,w/k)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* FoldTransposeIntoMatMul                                                    */
/* ------------------------------------------------------------------------- */

static void test_fold_transpose_into_matmul(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, (int64_t[]){3, 2});
    pt_ph(g, "b", 2, (int64_t[]){3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    pt_op2(g, "t", "Transpose", "a", "p", F32);
    pt_op2(g, "mm", "MatMul", "t", "b", F32);
    pt_op1(g, "y", "Neg", "mm", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "a=Placeholder(); b=Placeholder(); y=Neg(ArithmeticOptimizer/"
                                    "FoldTransposeIntoMatMul_mm); "
                                    "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm=MatMul(a,b)");
    assert_true(pt_attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "transpose_a"));
    assert_false(pt_attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "transpose_b"));
    pt_free(p);
    tg_free(g);
    /* BatchMatMulV2 with the right operand transposed: adj_y */
    g = tg_new();
    pt_ph(g, "a", 3, (int64_t[]){5, 2, 3});
    pt_ph(g, "b", 3, (int64_t[]){5, 4, 3});
    tg_const_int(g, "p", 3, 1, (int64_t[]){3}, (int64_t[]){0, 2, 1});
    pt_op2(g, "t", "Transpose", "b", "p", F32);
    pt_op2(g, "mm", "BatchMatMulV2", "a", "t", F32);
    pt_op1(g, "y", "Neg", "mm", F32);
    p = run(g);
    assert_string_equal(pt_dump(p),
                        "a=Placeholder(); b=Placeholder(); y=Neg(ArithmeticOptimizer/"
                        "FoldTransposeIntoMatMul_mm); "
                        "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm=BatchMatMulV2(a,b)");
    assert_true(pt_attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "adj_y"));
    assert_false(pt_attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "adj_x"));
    pt_free(p);
    tg_free(g);
}

static void test_fold_transpose_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* the perm is not an inner-matrix transpose */
    pt_ph(g, "a", 3, (int64_t[]){2, 3, 3});
    pt_ph(g, "b", 3, (int64_t[]){3, 3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){3}, (int64_t[]){1, 0, 2});
    pt_op2(g, "t", "Transpose", "a", "p", F32);
    pt_op2(g, "mm", "BatchMatMulV2", "t", "b", F32);
    pt_op1(g, "y", "Neg", "mm", F32);
    expect(g,
           "a=Placeholder(); b=Placeholder(); p=Const(); t=Transpose(a,p); "
           "mm=BatchMatMulV2(t,b); y=Neg(mm)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the MatMul is an output */
    pt_ph(g, "a", 2, (int64_t[]){3, 2});
    pt_ph(g, "b", 2, (int64_t[]){3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    pt_op2(g, "t", "Transpose", "a", "p", F32);
    pt_op2(g, "mm", "MatMul", "t", "b", F32);
    expect(g, "a=Placeholder(); b=Placeholder(); p=Const(); t=Transpose(a,p); mm=MatMul(t,b)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* RemoveRedundantBitcast                                                     */
/* ------------------------------------------------------------------------- */

static tg_node *bitcast(tg_graph *g, const char *name, const char *in, int t, int type) {
    tg_node *n = tg_add(g, name, "Bitcast", in, NULL);
    tg_attr_type(n, "T", t);
    tg_attr_type(n, "type", type);
    return n;
}

static void test_redundant_bitcast(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    bitcast(g, "same", "x", 1, 1);
    bitcast(g, "b1", "same", 1, 3);
    bitcast(g, "b2", "b1", 3, 6);
    tg_add(g, "y", "Identity", "b2", NULL);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); b2=Bitcast(x); y=Identity(b2)");
    assert_true(pt_fired(p, "remove_redundant_bitcast", "same"));
    assert_true(pt_fired(p, "remove_redundant_bitcast", "b2"));
    assert_int_equal(pt_attr_t(p, "b2", "T"), 1);
    assert_int_equal(pt_attr_t(p, "b2", "type"), 6);
    pt_free(p);
    tg_free(g);
}

static void test_redundant_bitcast_kept_when_preserved(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    bitcast(g, "b1", "x", 1, 3);
    bitcast(g, "b2", "b1", 3, 6);
    tg_add(g, "y", "Identity", "b2", NULL);
    static const char *const outs[] = {"y", "b1"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); b1=Bitcast(x); b2=Bitcast(b1); y=Identity(b2)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* SimplifyAggregation: N copies                                              */
/* ------------------------------------------------------------------------- */

static void test_aggregation_of_copies(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_node *n = tg_add(g, "s/sum", "AddN", "x", "x", "x", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_int(n, "N", 3);
    pt_op1(g, "y", "Neg", "s/sum", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); y=Neg(s/ArithmeticOptimizer/"
                        "SimplifyAggregation_Mul_sum); "
                        "s/ArithmeticOptimizer/SimplifyAggregation_Const_sum=Const(^x); "
                        "s/ArithmeticOptimizer/SimplifyAggregation_Mul_sum=Mul(s/"
                        "ArithmeticOptimizer/SimplifyAggregation_Const_sum,x)");
    const fl_node *c = pt_need(p, "s/ArithmeticOptimizer/SimplifyAggregation_Const_sum");
    double v = 0;
    assert_true(fl__value_f64(c->outputs[0].value, 0, &v));
    assert_true(v == 3.0);
    assert_int_equal(c->outputs[0].shape.rank, 0);
    assert_true(pt_fired(p, "simplify_aggregation", "s/sum"));
    pt_free(p);
    tg_free(g);
}

static void test_aggregation_kept_when_inputs_differ_or_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    tg_node *n = tg_add(g, "sum", "AddN", "x", "x", "z", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_int(n, "N", 3);
    pt_op2(g, "out", "AddV2", "x", "x", F32); /* an output: kept */
    pt_op1(g, "y", "Neg", "sum", F32);
    expect(g, "x=Placeholder(); z=Placeholder(); sum=AddN(x,x,z); out=AddV2(x,x); y=Neg(sum)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConvertPow                                                                 */
/* ------------------------------------------------------------------------- */

static void pow_graph(tg_graph *g, float e) {
    pt_ph(g, "x", 2, D23);
    pt_scalar(g, "e", e);
    pt_op2(g, "p", "Pow", "x", "e", F32);
    pt_op1(g, "y", "Neg", "p", F32);
}

static void test_convert_pow(void **state) {
    (void)state;
    static const struct {
        float e;
        const char *op;
    } cases[] = {
        {2, "Square"}, {0.5f, "Sqrt"}, {-0.5f, "Rsqrt"}, {-1, "Reciprocal"}, {1, "Identity"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tg_graph *g = tg_new();
        pow_graph(g, cases[i].e);
        char want[256];
        snprintf(want, sizeof want, "x=Placeholder(); e=Const(); p=%s(x,^e); y=Neg(p)",
                 cases[i].op);
        expect(g, want, "convert_pow");
        tg_free(g);
    }
}

static void test_convert_pow_cube_and_zero(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pow_graph(g, 3);
    expect(g,
           "x=Placeholder(); e=Const(); p=Mul(x,ArithmeticOptimizer/ConvertPow__inner_p,^e); "
           "y=Neg(p); ArithmeticOptimizer/ConvertPow__inner_p=Square(x)",
           "convert_pow");
    tg_free(g);
    g = tg_new(); /* 3 on GPU: kept */
    pow_graph(g, 3);
    pt_run *p = run_outs(g, NULL, 0, FL_DEVICE_GPU);
    assert_string_equal(pt_dump(p), "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)");
    pt_free(p);
    tg_free(g);
    g = tg_new();
    pow_graph(g, 0);
    p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); e=Const(); p=Const(^x,^e); y=Neg(p)");
    double v = 0;
    assert_non_null(pt_need(p, "p")->outputs[0].value);
    assert_true(fl__value_f64(pt_need(p, "p")->outputs[0].value, 5, &v) && v == 1.0);
    pt_free(p);
    tg_free(g);
}

static void test_convert_pow_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* exponent elements differ */
    pt_ph(g, "x", 2, D23);
    tg_const_f32_vals(g, "e", 1, D3, (const float[]){2, 2, 3}, 3);
    pt_op2(g, "p", "Pow", "x", "e", F32);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* the exponent broadcasts x: the shape would change */
    pt_ph(g, "x", 1, D3);
    tg_const_f32_vals(g, "e", 2, D23, (const float[]){2}, 1);
    pt_op2(g, "p", "Pow", "x", "e", F32);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* exponent not constant */
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "e", 0, NULL);
    pt_op2(g, "p", "Pow", "x", "e", F32);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); e=Placeholder(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConvertLog1p, ConvertExpm1                                                 */
/* ------------------------------------------------------------------------- */

static void test_convert_log1p(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_scalar(g, "one", 1);
    pt_op2(g, "a", "AddV2", "one", "x", F32);
    pt_op1(g, "l", "Log", "a", F32);
    expect(g, "x=Placeholder(); one=Const(); l=Log1p(x,^one)", "convert_log1p");
    tg_free(g);
}

static void test_convert_log1p_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* not one */
    pt_ph(g, "x", 2, D23);
    pt_scalar(g, "two", 2);
    pt_op2(g, "a", "AddV2", "x", "two", F32);
    pt_op1(g, "l", "Log", "a", F32);
    expect(g, "x=Placeholder(); two=Const(); a=AddV2(x,two); l=Log(a)", NULL);
    tg_free(g);
    g = tg_new(); /* the ones broadcast x */
    pt_ph(g, "x", 1, D3);
    tg_const_f32_vals(g, "one", 2, D23, (const float[]){1}, 1);
    pt_op2(g, "a", "AddV2", "x", "one", F32);
    pt_op1(g, "l", "Log", "a", F32);
    expect(g, "x=Placeholder(); one=Const(); a=AddV2(x,one); l=Log(a)", NULL);
    tg_free(g);
}

static void test_convert_expm1(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_scalar(g, "one", 1);
    pt_op1(g, "e", "Exp", "x", F32);
    pt_op2(g, "s", "Sub", "e", "one", F32);
    expect(g, "x=Placeholder(); one=Const(); s=Expm1(x,^one)", "convert_expm1");
    tg_free(g);
}

static void test_convert_expm1_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* Sub(1, Exp(x)): wrong side */
    pt_ph(g, "x", 2, D23);
    pt_scalar(g, "one", 1);
    pt_op1(g, "e", "Exp", "x", F32);
    pt_op2(g, "s", "Sub", "one", "e", F32);
    expect(g, "x=Placeholder(); one=Const(); e=Exp(x); s=Sub(one,e)", NULL);
    tg_free(g);
    g = tg_new(); /* integer ones */
    tg_placeholder(g, "x", 3, 1, D3);
    tg_const_int(g, "one", 3, 0, NULL, (int64_t[]){1});
    tg_node *e = tg_add(g, "e", "Exp", "x", NULL);
    tg_attr_type(e, "T", 3);
    tg_node *s = tg_add(g, "s", "Sub", "e", "one", NULL);
    tg_attr_type(s, "T", 3);
    expect(g, "x=Placeholder(); one=Const(); e=Exp(x); s=Sub(e,one)", NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* OptimizeMaxOrMinOfMonotonic                                                */
/* ------------------------------------------------------------------------- */

static void reduce_graph(tg_graph *g, const char *f, const char *red) {
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    pt_op1(g, "f", f, "x", F32);
    tg_node *r = tg_add(g, "r", red, "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    pt_op1(g, "y", "Abs", "r", F32);
}

static void test_max_of_monotonic(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    reduce_graph(g, "Sqrt", "Max");
    expect(g, "x=Placeholder(); ax=Const(); f=Sqrt(r); r=Max(x,ax); y=Abs(f)",
           "optimize_max_or_min_of_monotonic");
    tg_free(g);
    g = tg_new(); /* decreasing: Max(Neg(x)) = Neg(Min(x)) */
    reduce_graph(g, "Neg", "Max");
    expect(g, "x=Placeholder(); ax=Const(); f=Neg(r); r=Min(x,ax); y=Abs(f)", NULL);
    tg_free(g);
    g = tg_new(); /* ArgMax(Tanh(x)) = Identity(ArgMax(x)) */
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    pt_op1(g, "f", "Tanh", "x", F32);
    tg_node *r = tg_add(g, "r", "ArgMax", "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    tg_attr_type(r, "output_type", 9);
    tg_node *y = tg_add(g, "y", "Identity", "r", NULL);
    tg_attr_type(y, "T", 9);
    pt_run *p = run(g);
    assert_string_equal(
        pt_dump(p), "x=Placeholder(); ax=Const(); f=Identity(r); r=ArgMax(x,ax); y=Identity(f)");
    assert_int_equal(pt_attr_t(p, "f", "T"), 9);
    pt_free(p);
    tg_free(g);
}

static void test_max_of_monotonic_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* not monotonic */
    reduce_graph(g, "Sin", "Max");
    expect(g, "x=Placeholder(); ax=Const(); f=Sin(x); r=Max(f,ax); y=Abs(r)", NULL);
    tg_free(g);
    g = tg_new(); /* f read twice */
    reduce_graph(g, "Exp", "Max");
    pt_op1(g, "y2", "Abs", "f", F32);
    expect(g, "x=Placeholder(); ax=Const(); f=Exp(x); r=Max(f,ax); y=Abs(r); y2=Abs(f)", NULL);
    tg_free(g);
    g = tg_new(); /* MaxPool of a decreasing function */
    pt_ph(g, "x", 4, (int64_t[]){1, 4, 4, 3});
    pt_op1(g, "f", "Neg", "x", F32);
    tg_node *mp = pt_op1(g, "mp", "MaxPool", "f", F32);
    tg_attr_ints(mp, "ksize", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_ints(mp, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(mp, "padding", "VALID");
    pt_op1(g, "y", "Abs", "mp", F32);
    expect(g, "x=Placeholder(); f=Neg(x); mp=MaxPool(f); y=Abs(mp)", NULL);
    tg_free(g);
    g = tg_new(); /* Relu fed by BiasAdd: left for the remapper */
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "b", 1, D3, NULL, 0);
    pt_op2(g, "ba", "BiasAdd", "x", "b", F32);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    pt_op1(g, "f", "Relu", "ba", F32);
    tg_node *r = tg_add(g, "r", "Max", "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    pt_op1(g, "y", "Abs", "r", F32);
    expect(g,
           "x=Placeholder(); b=Const(); ba=BiasAdd(x,b); ax=Const(); f=Relu(ba); r=Max(f,ax); "
           "y=Abs(r)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Second set: helpers                                                        */
/* ------------------------------------------------------------------------- */

/* testgraph has no device setter: a tg_node starts with its NodeDef. */
static void set_device(tg_node *n, const char *device) {
    ((Tensorflow__NodeDef *)(void *)n)->device = (char *)device;
}

static void i32vec(tg_graph *g, const char *name, int n, const int64_t *v) {
    tg_const_int(g, name, 3, 1, (int64_t[]){n}, v);
}

static tg_node *reshape(tg_graph *g, const char *name, const char *x, const char *shape) {
    tg_node *n = pt_op2(g, name, "Reshape", x, shape, F32);
    tg_attr_type(n, "Tshape", 3);
    return n;
}

static tg_node *tile(tg_graph *g, const char *name, const char *x, const char *mult) {
    tg_node *n = pt_op2(g, name, "Tile", x, mult, F32);
    tg_attr_type(n, "Tmultiples", 3);
    return n;
}

static tg_node *pack2(tg_graph *g, const char *name, const char *a, const char *b, int axis) {
    tg_node *n = pt_op2(g, name, "Pack", a, b, F32);
    tg_attr_int(n, "N", 2);
    tg_attr_int(n, "axis", axis);
    return n;
}

/* The int32 elements of node `name`'s value. */
static void expect_ints(const pt_run *p, const char *name, int n, const int64_t *want) {
    const fl_value *v = pt_need(p, name)->outputs[0].value;
    assert_non_null(v);
    assert_int_equal(v->n, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(fl__value_int(v, i).k, want[i]);
    }
}

/* ------------------------------------------------------------------------- */
/* SqrtDivToRsqrtMul                                                          */
/* ------------------------------------------------------------------------- */

static void sqrt_div_graph(tg_graph *g, const char *div) {
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "y", 2, D23);
    pt_op1(g, "s", "Sqrt", "y", F32);
    pt_op2(g, "d", div, "x", "s", F32);
    pt_op1(g, "o", "Neg", "d", F32);
}

static void test_sqrt_div_to_rsqrt_mul(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    sqrt_div_graph(g, "RealDiv");
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Placeholder(); s=Rsqrt(y); d=Mul(x,s); "
                                    "o=Neg(d)");
    assert_true(pt_fired(p, "convert_sqrt_div_to_rsqrt_mul", "d"));
    assert_int_equal(pt_need(p, "d")->outputs[0].shape.rank, 2);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* Xdivy(x, Sqrt(y)) -> MulNoNan(Rsqrt(y), x) */
    sqrt_div_graph(g, "Xdivy");
    expect(g, "x=Placeholder(); y=Placeholder(); s=Rsqrt(y); d=MulNoNan(s,x); o=Neg(d)",
           "convert_sqrt_div_to_rsqrt_mul");
    tg_free(g);
}

static void test_sqrt_div_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* FloorDiv excluded */
    sqrt_div_graph(g, "FloorDiv");
    expect(g, "x=Placeholder(); y=Placeholder(); s=Sqrt(y); d=FloorDiv(x,s); o=Neg(d)", NULL);
    tg_free(g);
    g = tg_new(); /* DivNoNan excluded */
    sqrt_div_graph(g, "DivNoNan");
    expect(g, "x=Placeholder(); y=Placeholder(); s=Sqrt(y); d=DivNoNan(x,s); o=Neg(d)", NULL);
    tg_free(g);
    g = tg_new(); /* the Sqrt is read twice */
    sqrt_div_graph(g, "RealDiv");
    pt_op1(g, "o2", "Neg", "s", F32);
    expect(g, "x=Placeholder(); y=Placeholder(); s=Sqrt(y); d=RealDiv(x,s); o=Neg(d); o2=Neg(s)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the Sqrt is an output */
    sqrt_div_graph(g, "RealDiv");
    static const char *const outs[] = {"o", "s"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); y=Placeholder(); s=Sqrt(y); d=RealDiv(x,s); o=Neg(d)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* RemoveIdempotent                                                           */
/* ------------------------------------------------------------------------- */

static void test_remove_idempotent(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Snapshot", "x", F32);
    pt_op1(g, "b", "Snapshot", "a", F32);
    pt_op1(g, "y", "Neg", "b", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); a=Snapshot(x); y=Neg(a)");
    assert_true(pt_fired(p, "remove_idempotent", "b"));
    pt_free(p);
    tg_free(g);
}

static void test_remove_idempotent_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* different ops */
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Snapshot", "x", F32);
    pt_op1(g, "b", "StopGradient", "a", F32);
    pt_op1(g, "y", "Neg", "b", F32);
    expect(g, "x=Placeholder(); a=Snapshot(x); b=StopGradient(a); y=Neg(b)", NULL);
    tg_free(g);
    g = tg_new(); /* different devices */
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Snapshot", "x", F32);
    tg_node *b = pt_op1(g, "b", "Snapshot", "a", F32);
    set_device(b, "/device:GPU:0");
    pt_op1(g, "y", "Neg", "b", F32);
    expect(g, "x=Placeholder(); a=Snapshot(x); b=Snapshot(a); y=Neg(b)", NULL);
    tg_free(g);
    g = tg_new(); /* the outer one is an output */
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Snapshot", "x", F32);
    pt_op1(g, "b", "Snapshot", "a", F32);
    expect(g, "x=Placeholder(); a=Snapshot(x); b=Snapshot(a)", NULL);
    tg_free(g);
    g = tg_new(); /* a control input on the outer one */
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "c", 0, NULL);
    pt_op1(g, "a", "Snapshot", "x", F32);
    tg_node *b2 = tg_add(g, "b", "Snapshot", "a", "^c", NULL);
    tg_attr_type(b2, "T", 1);
    pt_op1(g, "y", "Neg", "b", F32);
    expect(g, "x=Placeholder(); c=Placeholder(); a=Snapshot(x); b=Snapshot(a,^c); y=Neg(b)", NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* RemoveRedundantReshape: Reshape(chain(Reshape(x)))                         */
/* ------------------------------------------------------------------------- */

static void reshape_chain_graph(tg_graph *g) {
    pt_ph(g, "x", 2, D23);
    i32vec(g, "s1", 2, (int64_t[]){3, 2});
    reshape(g, "r1", "x", "s1");
    pt_op1(g, "e", "Exp", "r1", F32);
    i32vec(g, "s2", 1, (int64_t[]){6});
    reshape(g, "r2", "e", "s2");
    pt_op1(g, "y", "Neg", "r2", F32);
}

static void test_reshape_of_reshape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    reshape_chain_graph(g);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); e=Exp(x); s2=Const(); r2=Reshape(e,s2); y=Neg(r2)");
    assert_true(pt_fired(p, "remove_redundant_reshape", "r2"));
    assert_int_equal(pt_need(p, "e")->outputs[0].shape.rank, 2);
    assert_int_equal(pt_need(p, "r2")->outputs[0].shape.dims[0].k, 6);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* directly adjacent */
    pt_ph(g, "x", 2, D23);
    i32vec(g, "s1", 2, (int64_t[]){3, 2});
    reshape(g, "r1", "x", "s1");
    i32vec(g, "s2", 1, (int64_t[]){6});
    reshape(g, "r2", "r1", "s2");
    pt_op1(g, "y", "Neg", "r2", F32);
    expect(g, "x=Placeholder(); s2=Const(); r2=Reshape(x,s2); y=Neg(r2)",
           "remove_redundant_reshape");
    tg_free(g);
}

static void test_reshape_of_reshape_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* the inner Reshape is read twice */
    reshape_chain_graph(g);
    pt_op1(g, "y2", "Abs", "r1", F32);
    expect(g,
           "x=Placeholder(); s1=Const(); r1=Reshape(x,s1); e=Exp(r1); s2=Const(); "
           "r2=Reshape(e,s2); y=Neg(r2); y2=Abs(r1)",
           NULL);
    tg_free(g);
    g = tg_new(); /* a chain member is read twice */
    reshape_chain_graph(g);
    pt_op1(g, "y2", "Abs", "e", F32);
    expect(g,
           "x=Placeholder(); s1=Const(); r1=Reshape(x,s1); e=Exp(r1); s2=Const(); "
           "r2=Reshape(e,s2); y=Neg(r2); y2=Abs(e)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the inner Reshape is an output */
    reshape_chain_graph(g);
    static const char *const outs[] = {"y", "r1"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p), "x=Placeholder(); s1=Const(); r1=Reshape(x,s1); e=Exp(r1); "
                                    "s2=Const(); r2=Reshape(e,s2); y=Neg(r2)");
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* a non-unary op in between */
    pt_ph(g, "x", 2, D23);
    i32vec(g, "s1", 2, (int64_t[]){3, 2});
    reshape(g, "r1", "x", "s1");
    pt_ph(g, "z", 2, (int64_t[]){3, 2});
    pt_op2(g, "e", "AddV2", "r1", "z", F32);
    i32vec(g, "s2", 1, (int64_t[]){6});
    reshape(g, "r2", "e", "s2");
    pt_op1(g, "y", "Neg", "r2", F32);
    expect(g,
           "x=Placeholder(); s1=Const(); r1=Reshape(x,s1); z=Placeholder(); e=AddV2(r1,z); "
           "s2=Const(); "
           "r2=Reshape(e,s2); y=Neg(r2)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ReplaceMulWithBroadcastByTile                                              */
/* ------------------------------------------------------------------------- */

/* x is an Abs: a feed (Placeholder) is preserved, and Grappler leaves a Mul
 * reading a preserved node alone. */
static void mul_ones_graph(tg_graph *g, int xrank, const int64_t *xdims, float one) {
    pt_ph(g, "in", xrank, xdims);
    pt_op1(g, "x", "Abs", "in", F32);
    tg_const_f32_vals(g, "ones", 2, D23, (const float[]){one}, 1);
    pt_op2(g, "s/m", "Mul", "x", "ones", F32);
    pt_op1(g, "y", "Neg", "s/m", F32);
}

static void test_replace_mul_with_tile(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    mul_ones_graph(g, 2, (int64_t[]){1, 3}, 1.0f);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "in=Placeholder(); x=Abs(in); "
                        "y=Neg(s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Tile_m); "
                        "s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Const_m=Const(); "
                        "s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Tile_m=Tile(x,s/"
                        "ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Const_m)");
    assert_true(pt_fired(p, "replace_mul_with_tile", "s/m"));
    expect_ints(p, "s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Const_m", 2,
                (int64_t[]){2, 1});
    assert_int_equal(
        pt_attr_t(p, "s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Tile_m", "Tmultiples"),
        3);
    const fl_node *t = pt_need(p, "s/ArithmeticOptimizer/ReplaceMulWithBroadcastByTile_Tile_m");
    assert_int_equal(t->outputs[0].shape.dims[0].k, 2);
    assert_int_equal(t->outputs[0].shape.dims[1].k, 3);
    pt_free(p);
    tg_free(g);
}

static void test_replace_mul_with_tile_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* not ones */
    mul_ones_graph(g, 2, (int64_t[]){1, 3}, 2.0f);
    expect(g, "in=Placeholder(); x=Abs(in); ones=Const(); s/m=Mul(x,ones); y=Neg(s/m)", NULL);
    tg_free(g);
    g = tg_new(); /* the ranks differ */
    mul_ones_graph(g, 1, D3, 1.0f);
    expect(g, "in=Placeholder(); x=Abs(in); ones=Const(); s/m=Mul(x,ones); y=Neg(s/m)", NULL);
    tg_free(g);
    g = tg_new(); /* no broadcast: the shape stays */
    mul_ones_graph(g, 2, D23, 1.0f);
    expect(g, "in=Placeholder(); x=Abs(in); ones=Const(); s/m=Mul(x,ones); y=Neg(s/m)", NULL);
    tg_free(g);
    g = tg_new(); /* the ones on the left */
    pt_ph(g, "in", 2, (int64_t[]){1, 3});
    pt_op1(g, "x", "Abs", "in", F32);
    tg_const_f32_vals(g, "ones", 2, D23, (const float[]){1}, 1);
    pt_op2(g, "s/m", "Mul", "ones", "x", F32);
    pt_op1(g, "y", "Neg", "s/m", F32);
    expect(g, "in=Placeholder(); x=Abs(in); ones=Const(); s/m=Mul(ones,x); y=Neg(s/m)", NULL);
    tg_free(g);
    g = tg_new(); /* the Mul is an output */
    mul_ones_graph(g, 2, (int64_t[]){1, 3}, 1.0f);
    static const char *const outs[] = {"y", "s/m"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p),
                        "in=Placeholder(); x=Abs(in); ones=Const(); s/m=Mul(x,ones); y=Neg(s/m)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ReplacePackWithTileReshape                                                 */
/* ------------------------------------------------------------------------- */

static void test_replace_pack_with_tile_reshape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pack2(g, "p", "x", "x", 1);
    pt_op1(g, "y", "Neg", "p", F32);
    pt_run *p = run(g);
    assert_string_equal(
        pt_dump(p),
        "x=Placeholder(); y=Neg(ArithmeticOptimizer/ReplacePackWithTileReshape_Reshape_p); "
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Multiples_p=Const(^x); "
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Tile_p=Tile(x,"
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Multiples_p); "
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Shape_p=Const(^x); "
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Reshape_p=Reshape("
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Tile_p,"
        "ArithmeticOptimizer/ReplacePackWithTileReshape_Shape_p)");
    assert_true(pt_fired(p, "replace_pack_with_tile_reshape", "p"));
    expect_ints(p, "ArithmeticOptimizer/ReplacePackWithTileReshape_Multiples_p", 2,
                (int64_t[]){1, 2});
    expect_ints(p, "ArithmeticOptimizer/ReplacePackWithTileReshape_Shape_p", 3,
                (int64_t[]){2, 2, 3});
    assert_int_equal(p->led.passes[0].nodes_added, 4);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* a chain of two Packs: Pack(Pack(x, x, axis 0), ..., axis 2) */
    pt_ph(g, "x", 1, D3);
    pack2(g, "p1", "x", "x", 0);   /* [2, 3] */
    pack2(g, "p2", "p1", "p1", 1); /* [2, 2, 3] */
    pt_op1(g, "y", "Neg", "p2", F32);
    p = run(g);
    /* x's dim 0 gets 2 * 2: Tile(x, [4]) then Reshape [2, 2, 3] */
    expect_ints(p, "ArithmeticOptimizer/ReplacePackWithTileReshape_Multiples_p2", 1,
                (int64_t[]){4});
    assert_string_equal(
        pt_need(p, "ArithmeticOptimizer/ReplacePackWithTileReshape_Tile_p2")->inputs[0].node->name,
        "x");
    pt_free(p);
    tg_free(g);
}

static void test_replace_pack_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* inputs differ */
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pack2(g, "p", "x", "z", 0);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); z=Placeholder(); p=Pack(x,z); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* packing on the last axis */
    pt_ph(g, "x", 2, D23);
    pack2(g, "p", "x", "x", 2);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); p=Pack(x,x); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* x's shape not fully defined (symbolic batch) */
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    pack2(g, "p", "x", "x", 0);
    pt_op1(g, "y", "Neg", "p", F32);
    expect(g, "x=Placeholder(); p=Pack(x,x); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* the Pack is an output */
    pt_ph(g, "x", 2, D23);
    pack2(g, "p", "x", "x", 0);
    expect(g, "x=Placeholder(); p=Pack(x,x)", NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ReduceUpsamplingDims                                                       */
/* ------------------------------------------------------------------------- */

static void upsample_graph(tg_graph *g, int64_t m3, bool shared) {
    pt_ph(g, "x", 4, (int64_t[]){1, 2, 2, 3});
    i32vec(g, "s6", 6, (int64_t[]){1, 2, 1, 2, 1, 3});
    reshape(g, "r1", "x", "s6");
    i32vec(g, "m6", 6, (int64_t[]){1, 1, 2, m3, 2, 1});
    tile(g, "t", "r1", "m6");
    i32vec(g, "s4", 4, (int64_t[]){1, 4, 4, 3 * m3});
    reshape(g, "r2", "t", "s4");
    pt_op1(g, "y", "Neg", "r2", F32);
    if (shared) {
        pt_op1(g, "y2", "Abs", "t", F32);
    }
}

static void test_reduce_upsampling_dims(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    upsample_graph(g, 1, false);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); s4=Const(); r2=Reshape(ArithmeticOptimizer/"
                        "ReduceUpsamplingDims_Tile_r2,s4); y=Neg(r2); "
                        "ArithmeticOptimizer/ReduceUpsamplingDims_Multiples_r2=Const(); "
                        "ArithmeticOptimizer/ReduceUpsamplingDims_Shape_r2=Const(); "
                        "ArithmeticOptimizer/ReduceUpsamplingDims_Reshape_r2=Reshape(x,"
                        "ArithmeticOptimizer/ReduceUpsamplingDims_Shape_r2); "
                        "ArithmeticOptimizer/ReduceUpsamplingDims_Tile_r2=Tile(ArithmeticOptimizer/"
                        "ReduceUpsamplingDims_Reshape_r2,ArithmeticOptimizer/"
                        "ReduceUpsamplingDims_Multiples_r2)");
    assert_true(pt_fired(p, "reduce_upsampling_dims", "r2"));
    expect_ints(p, "ArithmeticOptimizer/ReduceUpsamplingDims_Multiples_r2", 4,
                (int64_t[]){1, 1, 2, 2});
    expect_ints(p, "ArithmeticOptimizer/ReduceUpsamplingDims_Shape_r2", 4, (int64_t[]){1, 2, 2, 3});
    const fl_shape *s = &pt_need(p, "r2")->outputs[0].shape;
    assert_int_equal(s->rank, 4);
    assert_int_equal(s->dims[1].k, 4);
    assert_int_equal(s->dims[3].k, 3);
    pt_free(p);
    tg_free(g);
}

static void test_reduce_upsampling_dims_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* multiples[3] != 1 */
    upsample_graph(g, 2, false);
    expect(g,
           "x=Placeholder(); s6=Const(); r1=Reshape(x,s6); m6=Const(); t=Tile(r1,m6); "
           "s4=Const(); r2=Reshape(t,s4); y=Neg(r2)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the Tile is read twice */
    upsample_graph(g, 1, true);
    expect(g,
           "x=Placeholder(); s6=Const(); r1=Reshape(x,s6); m6=Const(); t=Tile(r1,m6); "
           "s4=Const(); r2=Reshape(t,s4); y=Neg(r2); y2=Abs(t)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the inner shape is not 6-D */
    pt_ph(g, "x", 4, (int64_t[]){1, 2, 2, 3});
    i32vec(g, "s5", 5, (int64_t[]){1, 2, 1, 2, 3});
    reshape(g, "r1", "x", "s5");
    i32vec(g, "m5", 5, (int64_t[]){1, 1, 2, 1, 1});
    tile(g, "t", "r1", "m5");
    i32vec(g, "s4", 4, (int64_t[]){1, 4, 2, 3});
    reshape(g, "r2", "t", "s4");
    pt_op1(g, "y", "Neg", "r2", F32);
    expect(g,
           "x=Placeholder(); s5=Const(); r1=Reshape(x,s5); m5=Const(); t=Tile(r1,m5); "
           "s4=Const(); r2=Reshape(t,s4); y=Neg(r2)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* RemoveStackSliceSameAxis                                                   */
/* ------------------------------------------------------------------------- */

static void stack_graph(tg_graph *g, int axis) {
    pt_ph(g, "a", 2, D23);
    pt_ph(g, "b", 2, D23);
    pack2(g, "p", "a", "b", axis);
}

static tg_node *strided(tg_graph *g, const char *name, int64_t b, int64_t e, int shrink) {
    i32vec(g, "sb", 1, (int64_t[]){b});
    i32vec(g, "se", 1, (int64_t[]){e});
    i32vec(g, "ss", 1, (int64_t[]){1});
    tg_node *n = tg_add(g, name, "StridedSlice", "p", "sb", "se", "ss", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_type(n, "Index", 3);
    tg_attr_int(n, "begin_mask", 0);
    tg_attr_int(n, "end_mask", 0);
    tg_attr_int(n, "ellipsis_mask", 0);
    tg_attr_int(n, "new_axis_mask", 0);
    tg_attr_int(n, "shrink_axis_mask", shrink);
    return n;
}

static void test_remove_stack_slice_same_axis(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* stack([a, b])[1] -> b */
    stack_graph(g, 0);
    strided(g, "sl", 1, 2, 1);
    pt_op1(g, "y", "Neg", "sl", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "a=Placeholder(); b=Placeholder(); "
                        "y=Neg(ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_sl); "
                        "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_sl=Identity(b)");
    assert_true(pt_fired(p, "remove_stack_slice_same_axis", "sl"));
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* Slice(stack([a, b], axis 1), [0, 0, 0], [-1, 1, -1]) -> ExpandDims(a, 1) */
    stack_graph(g, 1);
    i32vec(g, "begin", 3, (int64_t[]){0, 0, 0});
    i32vec(g, "size", 3, (int64_t[]){-1, 1, -1});
    tg_node *sl = tg_add(g, "sl", "Slice", "p", "begin", "size", NULL);
    tg_attr_type(sl, "T", 1);
    tg_attr_type(sl, "Index", 3);
    pt_op1(g, "y", "Neg", "sl", F32);
    p = run(g);
    assert_string_equal(pt_dump(p),
                        "a=Placeholder(); b=Placeholder(); "
                        "y=Neg(ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_sl); "
                        "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_Axis_sl=Const(^a); "
                        "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_sl=ExpandDims(a,"
                        "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_Axis_sl)");
    const fl_shape *s =
        &pt_need(p, "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_sl")->outputs[0].shape;
    assert_int_equal(s->rank, 3);
    assert_int_equal(s->dims[1].k, 1);
    pt_free(p);
    tg_free(g);
}

static void test_remove_stack_slice_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* two elements taken */
    stack_graph(g, 0);
    strided(g, "sl", 0, 2, 0);
    pt_op1(g, "y", "Neg", "sl", F32);
    expect(g,
           "a=Placeholder(); b=Placeholder(); p=Pack(a,b); sb=Const(); se=Const(); ss=Const(); "
           "sl=StridedSlice(p,sb,se,ss); y=Neg(sl)",
           NULL);
    tg_free(g);
    g = tg_new(); /* sliced on another axis than the pack axis */
    stack_graph(g, 1);
    strided(g, "sl", 1, 2, 1);
    pt_op1(g, "y", "Neg", "sl", F32);
    expect(g,
           "a=Placeholder(); b=Placeholder(); p=Pack(a,b); sb=Const(); se=Const(); ss=Const(); "
           "sl=StridedSlice(p,sb,se,ss); y=Neg(sl)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the input is not a Pack */
    pt_ph(g, "p", 3, (int64_t[]){2, 2, 3});
    strided(g, "sl", 1, 2, 1);
    pt_op1(g, "y", "Neg", "sl", F32);
    expect(g,
           "p=Placeholder(); sb=Const(); se=Const(); ss=Const(); sl=StridedSlice(p,sb,se,ss); "
           "y=Neg(sl)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the slice is an output */
    stack_graph(g, 0);
    strided(g, "sl", 1, 2, 1);
    expect(g,
           "a=Placeholder(); b=Placeholder(); p=Pack(a,b); sb=Const(); se=Const(); ss=Const(); "
           "sl=StridedSlice(p,sb,se,ss)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* SimplifyEmbeddingLookup, RemoveCastIntoSegmentReduction                    */
/* ------------------------------------------------------------------------- */

static void embedding_graph(tg_graph *g, int64_t gather_axis, const char *idx) {
    pt_ph(g, "params", 2, (int64_t[]){10, 4});
    tg_placeholder(g, "ids", 9, 1, (int64_t[]){5});
    tg_node *u = tg_add(g, "u", "Unique", "ids", NULL);
    tg_attr_type(u, "T", 9);
    tg_attr_type(u, "out_idx", 3);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){gather_axis});
    tg_node *ga = tg_add(g, "ga", "GatherV2", "params", "u", "ax", NULL);
    tg_attr_type(ga, "Tparams", 1);
    tg_attr_type(ga, "Tindices", 9);
    tg_attr_type(ga, "Taxis", 3);
    tg_placeholder(g, "seg", 3, 1, (int64_t[]){5});
    tg_node *r = tg_add(g, "r", "SparseSegmentSum", "ga", idx, "seg", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    pt_op1(g, "y", "Neg", "r", F32);
}

static void test_simplify_embedding_lookup(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    embedding_graph(g, 0, "u:1");
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "params=Placeholder(); ids=Placeholder(); u=Unique(ids); "
                                    "seg=Placeholder(); r=SparseSegmentSum(params,ids,seg); "
                                    "y=Neg(r)");
    assert_true(pt_fired(p, "simplify_embedding_lookup", "r"));
    assert_int_equal(pt_attr_t(p, "r", "Tidx"), 9);
    pt_free(p);
    tg_free(g);
}

static void test_simplify_embedding_lookup_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* gathered on axis 1 */
    embedding_graph(g, 1, "u:1");
    expect(g,
           "params=Placeholder(); ids=Placeholder(); u=Unique(ids); ax=Const(); "
           "ga=GatherV2(params,u,ax); seg=Placeholder(); r=SparseSegmentSum(ga,u:1,seg); "
           "y=Neg(r)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the indices are not the Unique's idx */
    embedding_graph(g, 0, "seg");
    expect(g,
           "params=Placeholder(); ids=Placeholder(); u=Unique(ids); ax=Const(); "
           "ga=GatherV2(params,u,ax); seg=Placeholder(); r=SparseSegmentSum(ga,seg,seg); "
           "y=Neg(r)",
           NULL);
    tg_free(g);
}

static void segment_cast_graph(tg_graph *g, int src) {
    pt_ph(g, "data", 2, (int64_t[]){10, 4});
    tg_placeholder(g, "idx", src, 1, (int64_t[]){5});
    tg_placeholder(g, "seg", 9, 1, (int64_t[]){5});
    tg_node *c1 = tg_add(g, "c1", "Cast", "idx", NULL);
    tg_attr_type(c1, "SrcT", src);
    tg_attr_type(c1, "DstT", 3);
    tg_node *c2 = tg_add(g, "c2", "Cast", "seg", NULL);
    tg_attr_type(c2, "SrcT", 9);
    tg_attr_type(c2, "DstT", 3);
    tg_node *r = tg_add(g, "r", "SparseSegmentMean", "data", "c1", "c2", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    tg_attr_type(r, "Tsegmentids", 3);
    pt_op1(g, "y", "Neg", "r", F32);
}

static void test_remove_cast_into_segment_reduction(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    segment_cast_graph(g, 9);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "data=Placeholder(); idx=Placeholder(); seg=Placeholder(); "
                                    "r=SparseSegmentMean(data,idx,seg); y=Neg(r)");
    assert_true(pt_fired(p, "remove_cast_into_segment_reduction", "r"));
    assert_int_equal(pt_attr_t(p, "r", "Tidx"), 9);
    assert_int_equal(pt_attr_t(p, "r", "Tsegmentids"), 9);
    pt_free(p);
    tg_free(g);
}

static void test_remove_cast_into_segment_reduction_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* a Cast from float is kept; the int64 one goes */
    segment_cast_graph(g, 1);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "data=Placeholder(); idx=Placeholder(); seg=Placeholder(); "
                                    "c1=Cast(idx); r=SparseSegmentMean(data,c1,seg); y=Neg(r)");
    assert_int_equal(pt_attr_t(p, "r", "Tidx"), 3);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* the reduction is an output */
    segment_cast_graph(g, 9);
    static const char *const outs[] = {"r"};
    p = run_outs(g, outs, 1, FL_DEVICE_CPU);
    assert_false(pt_fired(p, "remove_cast_into_segment_reduction", NULL));
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ReorderCastLikeAndValuePreserving                                          */
/* ------------------------------------------------------------------------- */

static void cast_transpose_graph(tg_graph *g, int src, int dst, bool cast_first) {
    tg_placeholder(g, "x", src, 2, D23);
    tg_const_int(g, "perm", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    const char *cin = cast_first ? "x" : "t";
    const char *tin = cast_first ? "c" : "x";
    if (!cast_first) {
        tg_node *t = tg_add(g, "t", "Transpose", tin, "perm", NULL);
        tg_attr_type(t, "T", src);
    }
    tg_node *c = tg_add(g, "c", "Cast", cin, NULL);
    tg_attr_type(c, "SrcT", src);
    tg_attr_type(c, "DstT", dst);
    if (cast_first) {
        tg_node *t = tg_add(g, "t", "Transpose", tin, "perm", NULL);
        tg_attr_type(t, "T", dst);
    }
    tg_node *y = tg_add(g, "y", "Neg", cast_first ? "t" : "c", NULL);
    tg_attr_type(y, "T", dst);
}

static void test_reorder_cast_like(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* Transpose(Cast(uint8 -> float)) -> Cast(Transpose(uint8)) */
    cast_transpose_graph(g, 4, 1, true);
    pt_run *p = run(g);
    assert_string_equal(
        pt_dump(p),
        "x=Placeholder(); perm=Const(); "
        "y=Neg(ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_float_c); "
        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t=Transpose(x,perm); "
        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_float_c=Cast("
        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t)");
    assert_true(pt_fired(p, "reorder_cast_like_and_value_preserving", "t"));
    assert_int_equal(
        pt_attr_t(p, "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t", "T"), 4);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* Cast(Transpose(float) -> uint8) -> Transpose(Cast(float)) */
    cast_transpose_graph(g, 1, 4, false);
    p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); perm=Const(); "
                        "y=Neg(ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t); "
                        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_float_c=Cast(x); "
                        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t=Transpose("
                        "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_float_c,perm)");
    assert_int_equal(
        pt_attr_t(p, "ArithmeticOptimizer/ReorderCastLikeAndValuePreserving_uint8_t", "T"), 4);
    pt_free(p);
    tg_free(g);
}

static void test_reorder_cast_like_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* narrowing Cast under the Transpose */
    cast_transpose_graph(g, 1, 4, true);
    expect(g, "x=Placeholder(); perm=Const(); c=Cast(x); t=Transpose(c,perm); y=Neg(t)", NULL);
    tg_free(g);
    g = tg_new(); /* widening Cast over the Transpose */
    cast_transpose_graph(g, 4, 1, false);
    expect(g, "x=Placeholder(); perm=Const(); t=Transpose(x,perm); c=Cast(t); y=Neg(c)", NULL);
    tg_free(g);
    g = tg_new(); /* on different devices */
    tg_placeholder(g, "x", 4, 2, D23);
    tg_const_int(g, "perm", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    tg_node *c = tg_add(g, "c", "Cast", "x", NULL);
    tg_attr_type(c, "SrcT", 4);
    tg_attr_type(c, "DstT", 1);
    set_device(c, "/device:CPU:0");
    tg_node *t = tg_add(g, "t", "Transpose", "c", "perm", NULL);
    tg_attr_type(t, "T", 1);
    set_device(t, "/device:GPU:0");
    pt_op1(g, "y", "Neg", "t", F32);
    expect(g, "x=Placeholder(); perm=Const(); c=Cast(x); t=Transpose(c,perm); y=Neg(t)", NULL);
    tg_free(g);
    g = tg_new(); /* the Cast is an output */
    cast_transpose_graph(g, 4, 1, true);
    static const char *const outs[] = {"y", "c"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); perm=Const(); c=Cast(x); t=Transpose(c,perm); y=Neg(t)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* FoldConjugateIntoTranspose                                                 */
/* ------------------------------------------------------------------------- */

static void conj_graph(tg_graph *g, bool conj_outer, const char *inner_op) {
    tg_placeholder(g, "x", 8, 2, D23);
    tg_const_int(g, "perm", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    if (conj_outer) {
        tg_node *t = tg_add(g, "t", inner_op, "x", "perm", NULL);
        tg_attr_type(t, "T", 8);
        tg_node *c = tg_add(g, "c", "Conj", "t", NULL);
        tg_attr_type(c, "T", 8);
    } else {
        tg_node *c = tg_add(g, "c", inner_op, "x", NULL);
        tg_attr_type(c, "T", 8);
        tg_node *t = tg_add(g, "t", "Transpose", "c", "perm", NULL);
        tg_attr_type(t, "T", 8);
    }
    tg_node *y = tg_add(g, "y", "Identity", conj_outer ? "c" : "t", NULL);
    tg_attr_type(y, "T", 8);
}

static void test_fold_conjugate_into_transpose(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* Conj(Transpose(x)) -> ConjugateTranspose(x) */
    conj_graph(g, true, "Transpose");
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); perm=Const(); "
                                    "y=Identity(ArithmeticOptimizer/FoldConjugateIntoTranspose_c); "
                                    "ArithmeticOptimizer/FoldConjugateIntoTranspose_c="
                                    "ConjugateTranspose(x,perm)");
    assert_true(pt_fired(p, "fold_conjugate_into_transpose", "c"));
    const fl_tensor *o =
        &pt_need(p, "ArithmeticOptimizer/FoldConjugateIntoTranspose_c")->outputs[0];
    assert_int_equal(o->dtype, 8);
    assert_int_equal(o->shape.dims[0].k, 3);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* Conj(ConjugateTranspose(x)) -> Transpose(x) */
    conj_graph(g, true, "ConjugateTranspose");
    expect(g,
           "x=Placeholder(); perm=Const(); "
           "y=Identity(ArithmeticOptimizer/FoldConjugateIntoTranspose_c); "
           "ArithmeticOptimizer/FoldConjugateIntoTranspose_c=Transpose(x,perm)",
           "fold_conjugate_into_transpose");
    tg_free(g);
    g = tg_new(); /* Transpose(Conj(x)) -> ConjugateTranspose(x) */
    conj_graph(g, false, "Conj");
    expect(g,
           "x=Placeholder(); perm=Const(); "
           "y=Identity(ArithmeticOptimizer/FoldConjugateIntoTranspose_t); "
           "ArithmeticOptimizer/FoldConjugateIntoTranspose_t=ConjugateTranspose(x,perm)",
           "fold_conjugate_into_transpose");
    tg_free(g);
}

static void test_fold_conjugate_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* Transpose(Neg(x)): no Conj */
    conj_graph(g, false, "Neg");
    expect(g, "x=Placeholder(); perm=Const(); c=Neg(x); t=Transpose(c,perm); y=Identity(t)", NULL);
    tg_free(g);
    g = tg_new(); /* the Conj is an output */
    conj_graph(g, true, "Transpose");
    static const char *const outs[] = {"y", "c"};
    pt_run *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(
        pt_dump(p), "x=Placeholder(); perm=Const(); t=Transpose(x,perm); c=Conj(t); y=Identity(c)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* MinimizeBroadcasts                                                         */
/* ------------------------------------------------------------------------- */

/* (scalar leaves are Consts: a rank-0 Placeholder here has unknown rank) */
static void bcast_graph(tg_graph *g, const char *op, bool scalars) {
    if (scalars) {
        pt_scalar(g, "a", 2);
    } else {
        pt_ph(g, "a", 2, D23);
    }
    pt_ph(g, "b", 2, D23);
    if (scalars) {
        pt_scalar(g, "c", 3);
    } else {
        pt_ph(g, "c", 2, D23);
    }
    pt_ph(g, "d", 2, D23);
    pt_op2(g, "m1", op, "a", "b", F32);
    pt_op2(g, "m2", op, "c", "d", F32);
    pt_op2(g, "root", op, "m1", "m2", F32);
    pt_op1(g, "y", "Neg", "root", F32);
}

static void test_minimize_broadcasts(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* (a*b)*(c*d), a and c scalars -> (a*c)*(b*d) */
    bcast_graph(g, "Mul", true);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "a=Const(); b=Placeholder(); c=Const(); d=Placeholder(); "
                                    "m1=Mul(b,d); m2=Mul(a,c); root=Mul(m2,m1); y=Neg(root)");
    assert_true(pt_fired(p, "minimize_broadcasts", "root"));
    assert_true(pt_attr_bool(p, "root", "_grappler_ArithmeticOptimizer_MinimizeBroadcasts"));
    assert_true(pt_attr_bool(p, "m1", "_grappler_ArithmeticOptimizer_MinimizeBroadcasts"));
    assert_int_equal(pt_need(p, "m2")->outputs[0].shape.rank, 0);
    assert_int_equal(p->led.passes[0].nodes_rewritten, 3);
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* an odd count: the largest joins the root */
    pt_scalar(g, "a", 2);
    pt_ph(g, "b", 2, D23);
    pt_scalar(g, "c", 3);
    pt_op2(g, "m1", "Mul", "b", "a", F32);
    pt_op2(g, "root", "Mul", "m1", "c", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    expect(g,
           "a=Const(); b=Placeholder(); c=Const(); m1=Mul(a,c); root=Mul(m1,b); "
           "y=Neg(root)",
           "minimize_broadcasts");
    tg_free(g);
}

static void test_minimize_broadcasts_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* one shape: tagged, not reordered */
    bcast_graph(g, "Mul", false);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "a=Placeholder(); b=Placeholder(); c=Placeholder(); "
                                    "d=Placeholder(); m1=Mul(a,b); m2=Mul(c,d); root=Mul(m1,m2); "
                                    "y=Neg(root)");
    assert_false(pt_fired(p, "minimize_broadcasts", NULL));
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* members read twice: no group */
    bcast_graph(g, "Mul", true);
    pt_op1(g, "y1", "Abs", "m1", F32);
    pt_op1(g, "y2", "Abs", "m2", F32);
    expect(g,
           "a=Const(); b=Placeholder(); c=Const(); d=Placeholder(); m1=Mul(a,b); "
           "m2=Mul(c,d); root=Mul(m1,m2); y=Neg(root); y1=Abs(m1); y2=Abs(m2)",
           NULL);
    tg_free(g);
    g = tg_new(); /* a different op below the root */
    pt_scalar(g, "a", 2);
    pt_ph(g, "b", 2, D23);
    pt_scalar(g, "c", 3);
    pt_op2(g, "m1", "RealDiv", "b", "a", F32);
    pt_op2(g, "root", "Mul", "m1", "c", F32);
    pt_op1(g, "y", "Neg", "root", F32);
    expect(g,
           "a=Const(); b=Placeholder(); c=Const(); m1=RealDiv(b,a); "
           "root=Mul(m1,c); y=Neg(root)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* UnaryOpsComposition                                                        */
/* ------------------------------------------------------------------------- */

static void unary_chain_graph(tg_graph *g, bool shared) {
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "s", "Sin", "x", F32);
    pt_op1(g, "e", "Exp", "s", F32);
    pt_op1(g, "t", "Tanh", "e", F32);
    pt_op1(g, "y", "Identity", "t", F32);
    if (shared) {
        pt_op1(g, "y2", "Identity", "s", F32);
    }
}

static void test_unary_ops_composition(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    unary_chain_graph(g, false);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Identity(t/unary_ops_composition); "
                                    "t/unary_ops_composition=_UnaryOpsComposition(x)");
    assert_true(pt_fired(p, "unary_ops_composition", "t"));
    const fl_node *c = pt_need(p, "t/unary_ops_composition");
    const fl_attr *on = fl__node_attr(c, "op_names");
    assert_non_null(on);
    assert_int_equal(on->n, 3);
    assert_string_equal(on->v.list.s[0].p, "Sin");
    assert_string_equal(on->v.list.s[1].p, "Exp");
    assert_string_equal(on->v.list.s[2].p, "Tanh");
    assert_int_equal(pt_attr_t(p, "t/unary_ops_composition", "T"), 1);
    assert_int_equal(c->outputs[0].shape.rank, 2);
    assert_int_equal(p->after.flops.k, 18); /* 3 ops on 6 elements, as before */
    pt_free(p);
    tg_free(g);
}

static void test_unary_ops_composition_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* on GPU: CPU only */
    unary_chain_graph(g, false);
    pt_run *p = run_outs(g, NULL, 0, FL_DEVICE_GPU);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); s=Sin(x); e=Exp(s); t=Tanh(e); y=Identity(t)");
    pt_free(p);
    tg_free(g);
    g = tg_new(); /* Sin read twice: only Exp and Tanh */
    unary_chain_graph(g, true);
    expect(g,
           "x=Placeholder(); s=Sin(x); y=Identity(t/unary_ops_composition); y2=Identity(s); "
           "t/unary_ops_composition=_UnaryOpsComposition(s)",
           "unary_ops_composition");
    tg_free(g);
    g = tg_new(); /* int32: not supported */
    tg_placeholder(g, "x", 3, 2, D23);
    tg_node *a = tg_add(g, "a", "Abs", "x", NULL);
    tg_attr_type(a, "T", 3);
    tg_node *n = tg_add(g, "n", "Neg", "a", NULL);
    tg_attr_type(n, "T", 3);
    tg_node *y = tg_add(g, "y", "Identity", "n", NULL);
    tg_attr_type(y, "T", 3);
    expect(g, "x=Placeholder(); a=Abs(x); n=Neg(a); y=Identity(n)", NULL);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_ops_single_shape),
        cmocka_unit_test(test_add_ops_two_shapes),
        cmocka_unit_test(test_add_ops_kept_when_shared),
        cmocka_unit_test(test_add_ops_kept_when_preserved_or_ctrl),
        cmocka_unit_test(test_add_ops_kept_when_not_broadcastable),
        cmocka_unit_test(test_fold_multiply_into_conv),
        cmocka_unit_test(test_fold_multiply_kept),
        cmocka_unit_test(test_fold_transpose_into_matmul),
        cmocka_unit_test(test_fold_transpose_kept),
        cmocka_unit_test(test_redundant_bitcast),
        cmocka_unit_test(test_redundant_bitcast_kept_when_preserved),
        cmocka_unit_test(test_aggregation_of_copies),
        cmocka_unit_test(test_aggregation_kept_when_inputs_differ_or_output),
        cmocka_unit_test(test_convert_pow),
        cmocka_unit_test(test_convert_pow_cube_and_zero),
        cmocka_unit_test(test_convert_pow_kept),
        cmocka_unit_test(test_convert_log1p),
        cmocka_unit_test(test_convert_log1p_kept),
        cmocka_unit_test(test_convert_expm1),
        cmocka_unit_test(test_convert_expm1_kept),
        cmocka_unit_test(test_max_of_monotonic),
        cmocka_unit_test(test_max_of_monotonic_kept),
        cmocka_unit_test(test_sqrt_div_to_rsqrt_mul),
        cmocka_unit_test(test_sqrt_div_kept),
        cmocka_unit_test(test_remove_idempotent),
        cmocka_unit_test(test_remove_idempotent_kept),
        cmocka_unit_test(test_reshape_of_reshape),
        cmocka_unit_test(test_reshape_of_reshape_kept),
        cmocka_unit_test(test_replace_mul_with_tile),
        cmocka_unit_test(test_replace_mul_with_tile_kept),
        cmocka_unit_test(test_replace_pack_with_tile_reshape),
        cmocka_unit_test(test_replace_pack_kept),
        cmocka_unit_test(test_reduce_upsampling_dims),
        cmocka_unit_test(test_reduce_upsampling_dims_kept),
        cmocka_unit_test(test_remove_stack_slice_same_axis),
        cmocka_unit_test(test_remove_stack_slice_kept),
        cmocka_unit_test(test_simplify_embedding_lookup),
        cmocka_unit_test(test_simplify_embedding_lookup_kept),
        cmocka_unit_test(test_remove_cast_into_segment_reduction),
        cmocka_unit_test(test_remove_cast_into_segment_reduction_kept),
        cmocka_unit_test(test_reorder_cast_like),
        cmocka_unit_test(test_reorder_cast_like_kept),
        cmocka_unit_test(test_fold_conjugate_into_transpose),
        cmocka_unit_test(test_fold_conjugate_kept),
        cmocka_unit_test(test_minimize_broadcasts),
        cmocka_unit_test(test_minimize_broadcasts_kept),
        cmocka_unit_test(test_unary_ops_composition),
        cmocka_unit_test(test_unary_ops_composition_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
