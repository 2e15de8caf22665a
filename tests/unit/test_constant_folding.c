/*
 * test_constant_folding.c - the constant-folding rules beyond plain folding
 * (src/passes/constant_folding.c): arithmetic strength reduction, constant
 * push-down, MulConvPushDown, partial AddN/Concat folding, Select, Pack,
 * reductions, StridedSlice, IdentityN, MergeConcat and the materializations.
 *
 * As in test_passes.c, each test builds a GraphDef, runs "constfold" once
 * with the verifier on, and compares the whole rewritten graph printed as
 * "name=Op(in,in:1,^ctrl); ..." in graph order; new constants are checked by
 * value, and each rule has negative tests named *_kept_when_<reason>.
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness (passtest.h)                                                       */
/* ------------------------------------------------------------------------- */

static const pt_opts CONSTFOLD = {.passes = "constfold", .iterations = 1};

static pt_run *run_outs(tg_graph *tg, const char *const *outs, size_t n_outs) {
    pt_opts o = CONSTFOLD;
    o.outputs = outs;
    o.n_outputs = n_outs;
    return pt_pipeline(tg, &o);
}

static pt_run *run(tg_graph *tg) {
    return pt_pipeline(tg, &CONSTFOLD);
}

/* Runs constfold once and compares the graph; when `rule` is given, also
 * checks that it fired on `node` (expect) or fired nowhere (expect_kept).
 * Both free g. */
static void expect(tg_graph *g, const char *want, const char *rule, const char *node) {
    pt_expect(g, &CONSTFOLD, want, rule, node, true);
    tg_free(g);
}

static void expect_kept(tg_graph *g, const char *want, const char *rule) {
    pt_expect(g, &CONSTFOLD, want, rule, NULL, false);
    tg_free(g);
}

static const int64_t D23[] = {2, 3};
static const int64_t D3[] = {3};

/* ------------------------------------------------------------------------- */
/* 0 - y, 1 / y, Div by a constant                                           */
/* ------------------------------------------------------------------------- */

static void test_sub_from_zero_to_neg(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    pt_op2(g, "s", "Sub", "zero", "x", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); zero=Const(); s=Neg(x,^zero); y=Relu(s)");
    assert_true(pt_fired(p, "ReplaceSubtractionFromZeroByNegation", "s"));
    assert_int_equal(pt_attr_t(p, "s", "T"), 1);
    pt_free(p);
    tg_free(g);
}

/* A node with an attr whose name holds "_tpu_" is left alone (Grappler's
 * constant folding skips such nodes): the Sub(0, x) that the test above
 * turns into Neg(x) stays a Sub, and nothing is noted. */
static void test_tpu_attr_left_alone(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    tg_node *s = pt_op2(g, "s", "Sub", "zero", "x", F32);
    tg_attr_str(s, "_tpu_replicate", "cluster");
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); zero=Const(); s=Sub(zero,x); y=Relu(s)");
    assert_int_equal(p->led.n_entries, 0);
    pt_free(p);
    tg_free(g);
}

static void test_sub_from_zero_kept_when_broadcasting(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    tg_const_f32_vals(g, "zero", 2, D23, (float[]){0}, 0);
    pt_op2(g, "s", "Sub", "zero", "x", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); zero=Const(); s=Sub(zero,x); y=Relu(s)",
                "ReplaceSubtractionFromZeroByNegation");
}

static void test_sub_from_zero_kept_when_not_zero(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "k", 0, NULL, (float[]){-0.5f}, 0);
    pt_op2(g, "s", "Sub", "k", "x", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); k=Const(); s=Sub(k,x); y=Relu(s)",
                "ReplaceSubtractionFromZeroByNegation");
}

static void test_one_over_y_to_reciprocal(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "one", 0, NULL, (float[]){1}, 0);
    pt_op2(g, "d", "RealDiv", "one", "x", F32);
    pt_op1(g, "y", "Relu", "d", F32);
    expect(g, "x=Placeholder(); one=Const(); d=Reciprocal(x,^one); y=Relu(d)",
           "ReplaceDivisionOfOnesByReciprocal", "d");
}

static void test_one_over_y_kept_when_integer(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 3, 2, D23);
    tg_const_int(g, "one", 3, 0, NULL, (int64_t[]){1});
    pt_op2(g, "d", "Div", "one", "x", 3);
    pt_op2(g, "y", "Add", "d", "x", 3);
    expect_kept(g, "x=Placeholder(); one=Const(); d=Div(one,x); y=Add(d,x)",
                "ReplaceDivisionOfOnesByReciprocal");
}

static void test_div_by_const_to_mul_reciprocal(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "c", 1, D3, (float[]){2, 4, 0.5f}, 0);
    pt_op2(g, "d", "RealDiv", "x", "c", F32);
    pt_op1(g, "y", "Relu", "d", F32);
    pt_run *p = run(g);
    /* Reciprocal(c) is folded at once, keeping its name. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); d=Mul(x,ConstantFolding/d_recip); y=Relu(d); "
                                    "ConstantFolding/d_recip=Const()");
    assert_true(pt_fired(p, "ReduceDivToReciprocalMul", "d"));
    assert_true(pt_cf(p, "ConstantFolding/d_recip", 0) == 0.5 &&
                pt_cf(p, "ConstantFolding/d_recip", 1) == 0.25 &&
                pt_cf(p, "ConstantFolding/d_recip", 2) == 2.0);
    /* RealDiv and Mul cost the same: FLOPs unchanged. */
    assert_true(fl__sym_eq(p->before.flops, p->after.flops));
    pt_free(p);
    tg_free(g);
}

static void test_div_by_const_kept_when_integer_div(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 3, 2, D23);
    tg_const_int(g, "c", 3, 0, NULL, (int64_t[]){3});
    pt_op2(g, "d", "Div", "x", "c", 3);
    pt_op2(g, "y", "Add", "d", "x", 3);
    expect_kept(g, "x=Placeholder(); c=Const(); d=Div(x,c); y=Add(d,x)",
                "ReduceDivToReciprocalMul");
}

static void test_div_kept_when_denominator_not_const(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op2(g, "d", "Div", "x", "z", F32);
    pt_op1(g, "y", "Relu", "d", F32);
    expect_kept(g, "x=Placeholder(); z=Placeholder(); d=Div(x,z); y=Relu(d)",
                "ReduceDivToReciprocalMul");
}

/* x * ones whose shape is the output's but not x's: BroadcastTo(x). */
static void test_multiply_by_one_broadcast_to(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    tg_const_f32(g, "one", 2, D23, (float[]){1, 1, 1, 1, 1, 1}, 0);
    pt_op2(g, "m", "Mul", "x", "one", F32);
    pt_op1(g, "y", "Relu", "m", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); one=Const(); m=BroadcastTo(x,ConstantFolding/"
                                    "m-broadcastto_shape-0,^one); y=Relu(m); "
                                    "ConstantFolding/m-broadcastto_shape-0=Const(^one)");
    assert_int_equal(pt_ci(p, "ConstantFolding/m-broadcastto_shape-0", 0), 2);
    assert_int_equal(pt_ci(p, "ConstantFolding/m-broadcastto_shape-0", 1), 3);
    assert_int_equal(pt_attr_t(p, "m", "Tidx"), 3);
    pt_free(p);
    tg_free(g);
}

static void test_matmul_by_zeros(void **state) {
    (void)state;
    /* MatMul by a zeros matrix -> zeros Const of the output shape. */
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32_vals(g, "w", 2, (int64_t[]){3, 4}, (float[]){0}, 0);
    pt_op2(g, "mm", "MatMul", "x", "w", F32);
    pt_op1(g, "y", "Relu", "mm", F32);
    pt_run *p = run(g);
    assert_true(pt_fired(p, "multiply_by_zero", "mm"));
    assert_string_equal(pt_dump(p), "x=Placeholder(); w=Const(); y=Const(^x,^w)");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConstantPushDown, ConstantPushDownBiasAdd                                 */
/* ------------------------------------------------------------------------- */

static void test_push_down_add(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "c1", 1, D3, (float[]){1, 2, 3}, 0);
    tg_const_f32(g, "c2", 1, D3, (float[]){10, 20, 30}, 0);
    pt_op2(g, "a", "AddV2", "x", "c2", F32);
    pt_op2(g, "s", "AddV2", "c1", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    /* s = x + (c1 + c2); the child a folds to a Const. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); a=Const(); s=AddV2(x,a); y=Relu(s)");
    assert_true(pt_fired(p, "ConstantPushDown", "s"));
    assert_true(pt_cf(p, "a", 0) == 11 && pt_cf(p, "a", 1) == 22 && pt_cf(p, "a", 2) == 33);
    /* Two adds of 6 elements -> one. */
    assert_true(fl_sym_is_known(p->before.flops) && fl_sym_is_known(p->after.flops));
    assert_int_equal(p->before.flops.k - p->after.flops.k, 6);
    pt_free(p);
    tg_free(g);
}

static void test_push_down_sub_sign_tracking(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    tg_const_f32(g, "c1", 1, D3, (float[]){1, 2, 3}, 0);
    tg_const_f32(g, "c2", 1, D3, (float[]){10, 20, 30}, 0);
    pt_op2(g, "a", "Sub", "x", "c2", F32);
    pt_op2(g, "s", "Sub", "c1", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    /* c1 - (x - c2) = (c1 + c2) - x */
    assert_string_equal(pt_dump(p), "x=Placeholder(); a=Const(); s=Sub(a,x); y=Relu(s)");
    assert_true(pt_cf(p, "a", 0) == 11 && pt_cf(p, "a", 2) == 33);
    pt_free(p);
    tg_free(g);
}

static void test_push_down_div_sign_tracking(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    tg_const_f32(g, "c1", 1, D3, (float[]){8, 8, 8}, 0);
    tg_const_f32(g, "c2", 1, D3, (float[]){2, 4, 8}, 0);
    pt_op2(g, "a", "Mul", "c2", "x", F32);
    pt_op2(g, "s", "Div", "c1", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    /* c1 / (c2 * x) = (c1 / c2) / x */
    assert_string_equal(pt_dump(p), "x=Placeholder(); a=Const(); s=Div(a,x); y=Relu(s)");
    assert_true(pt_cf(p, "a", 0) == 4 && pt_cf(p, "a", 1) == 2 && pt_cf(p, "a", 2) == 1);
    pt_free(p);
    tg_free(g);
}

static void test_push_down_kept_when_integer_sub(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 3, 1, D3);
    tg_const_int(g, "c1", 3, 1, D3, (int64_t[]){1, 2, 3});
    tg_const_int(g, "c2", 3, 1, D3, (int64_t[]){4, 5, 6});
    pt_op2(g, "a", "Sub", "x", "c2", 3);
    pt_op2(g, "s", "Sub", "c1", "a", 3);
    pt_op2(g, "y", "Add", "s", "x", 3);
    expect_kept(g, "x=Placeholder(); c1=Const(); c2=Const(); a=Sub(x,c2); s=Sub(c1,a); y=Add(s,x)",
                "ConstantPushDown");
}

static void test_push_down_kept_when_half(void **state) {
    (void)state;
    static const uint16_t one[3] = {0x3C00, 0x3C00, 0x3C00}; /* half 1.0 */
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 19, 1, D3);
    tg_const_raw(g, "c1", 19, 1, D3, one, sizeof one);
    tg_const_raw(g, "c2", 19, 1, D3, one, sizeof one);
    pt_op2(g, "a", "AddV2", "x", "c2", 19);
    pt_op2(g, "s", "AddV2", "c1", "a", 19);
    pt_op2(g, "y", "Mul", "s", "x", 19);
    expect_kept(g,
                "x=Placeholder(); c1=Const(); c2=Const(); a=AddV2(x,c2); s=AddV2(c1,a); "
                "y=Mul(s,x)",
                "ConstantPushDown");
}

static void test_push_down_kept_when_child_shared(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    pt_op2(g, "a", "AddV2", "x", "z", F32);
    pt_op2(g, "s", "AddV2", "c", "a", F32);
    pt_op2(g, "y", "Mul", "s", "a", F32);
    expect_kept(g,
                "x=Placeholder(); z=Placeholder(); c=Const(); a=AddV2(x,z); s=AddV2(c,a); "
                "y=Mul(s,a)",
                "ConstantPushDown");
}

static void test_push_down_kept_when_child_preserved(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    pt_op2(g, "a", "AddV2", "x", "z", F32);
    pt_op2(g, "s", "AddV2", "c", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    const char *outs[] = {"y", "a"};
    pt_run *p = run_outs(g, outs, 2);
    assert_string_equal(pt_dump(p), "x=Placeholder(); z=Placeholder(); c=Const(); a=AddV2(x,z); "
                                    "s=AddV2(c,a); y=Relu(s)");
    assert_false(pt_fired(p, "ConstantPushDown", NULL));
    pt_free(p);
    tg_free(g);
}

static void test_push_down_symmetric_without_const_leaf(void **state) {
    (void)state;
    /* c + (x + z): no constant leaf, the constant still moves down. */
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    pt_op2(g, "a", "AddV2", "x", "z", F32);
    pt_op2(g, "s", "AddV2", "c", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect(g, "x=Placeholder(); z=Placeholder(); c=Const(); a=AddV2(c,z); s=AddV2(x,a); y=Relu(s)",
           "ConstantPushDown", "s");
}

static void test_push_down_kept_when_const_larger_than_leaf(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c", 2, D23, (float[]){1, 2, 3, 4, 5, 6}, 0);
    pt_op2(g, "a", "AddV2", "x", "z", F32);
    pt_op2(g, "s", "AddV2", "c", "a", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g,
                "x=Placeholder(); z=Placeholder(); c=Const(); a=AddV2(x,z); s=AddV2(c,a); "
                "y=Relu(s)",
                "ConstantPushDown");
}

static void test_push_down_bias_add(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "b", 1, D3);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    pt_op2(g, "ba", "BiasAdd", "x", "b", F32);
    pt_op2(g, "s", "AddV2", "ba", "c", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect(g,
           "x=Placeholder(); b=Placeholder(); c=Const(); ba=BiasAdd(x,c); s=AddV2(ba,b); "
           "y=Relu(s)",
           "ConstantPushDownBiasAdd", "s");
}

static void test_push_down_bias_add_kept_when_leaf_const(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "b", 1, D3, (float[]){4, 5, 6}, 0);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    pt_op2(g, "ba", "BiasAdd", "x", "b", F32);
    pt_op2(g, "s", "BiasAdd", "ba", "c", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g,
                "x=Placeholder(); b=Const(); c=Const(); ba=BiasAdd(x,b); s=BiasAdd(ba,c); "
                "y=Relu(s)",
                "ConstantPushDownBiasAdd");
}

/* ------------------------------------------------------------------------- */
/* MulConvPushDown                                                            */
/* ------------------------------------------------------------------------- */

static tg_graph *conv_graph(const char *fmt, int c_rank, const int64_t *c_dims, const float *cv) {
    tg_graph *g = tg_new();
    bool nchw = strcmp(fmt, "NCHW") == 0;
    pt_ph(g, "x", 4, nchw ? (int64_t[]){1, 2, 5, 5} : (int64_t[]){1, 5, 5, 2});
    float w[2 * 2 * 2 * 3];
    for (int i = 0; i < 24; i++) {
        w[i] = (float)(i + 1);
    }
    tg_const_f32(g, "w", 4, (int64_t[]){2, 2, 2, 3}, w, 0);
    tg_node *c = pt_op2(g, "conv", "Conv2D", "x", "w", F32);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "VALID");
    tg_attr_str(c, "data_format", fmt);
    tg_const_f32(g, "k", c_rank, c_dims, cv, 0);
    pt_op2(g, "m", "Mul", "conv", "k", F32);
    pt_op1(g, "y", "Relu", "m", F32);
    return g;
}

static void test_mul_conv_push_down(void **state) {
    (void)state;
    tg_graph *g = conv_graph("NHWC", 1, D3, (float[]){2, 3, 0.5f});
    pt_run *p = run(g);
    /* The conv takes the Mul's name; the Mul, renamed, scales the filter
     * and folds. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); m=Conv2D(x,conv/merged_input); "
                                    "conv/merged_input=Const(); y=Relu(m)");
    assert_true(pt_fired(p, "MulConvPushDown", "m"));
    /* filter [2,2,2,3] * [2,3,0.5] along the output channel */
    assert_true(pt_cf(p, "conv/merged_input", 0) == 2 && pt_cf(p, "conv/merged_input", 1) == 6 &&
                pt_cf(p, "conv/merged_input", 2) == 1.5 && pt_cf(p, "conv/merged_input", 5) == 3);
    /* The Mul's FLOPs over the conv output are gone. */
    assert_int_equal(p->before.flops.k - p->after.flops.k, 4 * 4 * 3);
    pt_free(p);
    tg_free(g);
}

static void test_mul_conv_push_down_scalar_nchw(void **state) {
    (void)state;
    tg_graph *g = conv_graph("NCHW", 0, NULL, (float[]){2});
    expect(g,
           "x=Placeholder(); m=Conv2D(x,conv/merged_input); conv/merged_input=Const(); y=Relu(m)",
           "MulConvPushDown", "m");
}

static void test_mul_conv_kept_when_nchw_vector(void **state) {
    (void)state;
    tg_graph *g = conv_graph("NCHW", 3, (int64_t[]){3, 1, 1}, (float[]){2, 3, 4});
    expect_kept(g,
                "x=Placeholder(); w=Const(); conv=Conv2D(x,w); k=Const(); m=Mul(conv,k); "
                "y=Relu(m)",
                "MulConvPushDown");
}

static void test_mul_conv_kept_when_conv_shared(void **state) {
    (void)state;
    tg_graph *g = conv_graph("NHWC", 1, D3, (float[]){2, 3, 4});
    pt_op2(g, "z", "AddV2", "y", "conv", F32);
    expect_kept(g,
                "x=Placeholder(); w=Const(); conv=Conv2D(x,w); k=Const(); m=Mul(conv,k); "
                "y=Relu(m); z=AddV2(y,conv)",
                "MulConvPushDown");
}

static void test_mul_conv_kept_when_const_not_per_channel(void **state) {
    (void)state;
    tg_graph *g = conv_graph("NHWC", 2, (int64_t[]){4, 1}, (float[]){1, 2, 3, 4});
    expect_kept(g,
                "x=Placeholder(); w=Const(); conv=Conv2D(x,w); k=Const(); m=Mul(conv,k); "
                "y=Relu(m)",
                "MulConvPushDown");
}

/* ------------------------------------------------------------------------- */
/* Partial AddN / Concat folding, MergeConcat                                 */
/* ------------------------------------------------------------------------- */

static void test_partial_addn(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c1", 1, D3, (float[]){1, 2, 3}, 0);
    tg_const_f32(g, "c2", 1, D3, (float[]){4, 5, 6}, 0);
    tg_node *s = tg_add(g, "s", "AddN", "x", "c1", "z", "c2", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_int(s, "N", 4);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); z=Placeholder(); "
                                    "s=AddN(x,ConstantFolding/s_partial_split_2,z); y=Relu(s); "
                                    "ConstantFolding/s_partial_split_2=Const()");
    assert_true(pt_fired(p, "PartialAssocOpConstFolding", "s"));
    assert_int_equal(pt_attr_i(p, "s", "N"), 3);
    assert_true(pt_cf(p, "ConstantFolding/s_partial_split_2", 0) == 5 &&
                pt_cf(p, "ConstantFolding/s_partial_split_2", 2) == 9);
    pt_free(p);
    tg_free(g);
}

static void test_partial_addn_kept_when_one_const(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    pt_ph(g, "z", 1, D3);
    tg_const_f32(g, "c1", 1, D3, (float[]){1, 2, 3}, 0);
    tg_node *s = tg_add(g, "s", "AddN", "x", "c1", "z", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_int(s, "N", 3);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); z=Placeholder(); c1=Const(); s=AddN(x,c1,z); y=Relu(s)",
                "PartialAssocOpConstFolding");
}

static tg_graph *concat_graph(const char *a, const char *b, const char *c, const char *d) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, (int64_t[]){2});
    pt_ph(g, "z", 1, (int64_t[]){2});
    tg_const_f32(g, "c1", 1, (int64_t[]){2}, (float[]){1, 2}, 0);
    tg_const_f32(g, "c2", 1, (int64_t[]){2}, (float[]){3, 4}, 0);
    tg_const_int(g, "axis", 3, 0, NULL, (int64_t[]){0});
    tg_node *n = tg_add(g, "cc", "ConcatV2", a, b, c, d, "axis", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_type(n, "Tidx", 3);
    tg_attr_int(n, "N", 4);
    pt_op1(g, "y", "Relu", "cc", F32);
    return g;
}

static void test_partial_concat(void **state) {
    (void)state;
    tg_graph *g = concat_graph("x", "c1", "c2", "z");
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); z=Placeholder(); axis=Const(); "
                                    "cc=ConcatV2(x,ConstantFolding/cc_partial_split_1,z,axis); "
                                    "y=Relu(cc); ConstantFolding/cc_partial_split_1=Const()");
    assert_true(pt_fired(p, "PartialConcatConstFolding", "cc"));
    assert_int_equal(pt_attr_i(p, "cc", "N"), 3);
    assert_true(pt_cf(p, "ConstantFolding/cc_partial_split_1", 0) == 1 &&
                pt_cf(p, "ConstantFolding/cc_partial_split_1", 3) == 4);
    pt_free(p);
    tg_free(g);
}

static void test_partial_concat_kept_when_not_consecutive(void **state) {
    (void)state;
    tg_graph *g = concat_graph("c1", "x", "c2", "z");
    expect_kept(g,
                "x=Placeholder(); z=Placeholder(); c1=Const(); c2=Const(); axis=Const(); "
                "cc=ConcatV2(c1,x,c2,z,axis); y=Relu(cc)",
                "PartialConcatConstFolding");
}

static void test_merge_concat(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, (int64_t[]){2});
    pt_ph(g, "z", 1, (int64_t[]){2});
    pt_ph(g, "w", 1, (int64_t[]){2});
    tg_const_int(g, "axis", 3, 0, NULL, (int64_t[]){0});
    tg_node *a = tg_add(g, "a", "ConcatV2", "x", "z", "axis", NULL);
    tg_attr_type(a, "T", 1);
    tg_attr_int(a, "N", 2);
    tg_node *b = tg_add(g, "b", "ConcatV2", "a", "w", "axis", NULL);
    tg_attr_type(b, "T", 1);
    tg_attr_int(b, "N", 2);
    pt_op1(g, "y", "Relu", "b", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); z=Placeholder(); w=Placeholder(); "
                                    "axis=Const(); b=ConcatV2(x,z,w,axis); y=Relu(b)");
    assert_true(pt_fired(p, "MergeConcat", "a"));
    assert_int_equal(pt_attr_i(p, "b", "N"), 3);
    pt_free(p);
    tg_free(g);
}

static void test_merge_concat_kept_when_axis_differs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){2, 2});
    pt_ph(g, "z", 2, (int64_t[]){2, 2});
    tg_const_int(g, "a0", 3, 0, NULL, (int64_t[]){0});
    tg_const_int(g, "a1", 3, 0, NULL, (int64_t[]){1});
    tg_node *a = tg_add(g, "a", "ConcatV2", "x", "z", "a0", NULL);
    tg_attr_type(a, "T", 1);
    tg_attr_int(a, "N", 2);
    tg_node *b = tg_add(g, "b", "ConcatV2", "a", "a", "a1", NULL);
    tg_attr_type(b, "T", 1);
    tg_attr_int(b, "N", 2);
    pt_op1(g, "y", "Relu", "b", F32);
    expect_kept(g,
                "x=Placeholder(); z=Placeholder(); a0=Const(); a1=Const(); a=ConcatV2(x,z,a0); "
                "b=ConcatV2(a,a,a1); y=Relu(b)",
                "MergeConcat");
}

/* ------------------------------------------------------------------------- */
/* Select, Pack, reductions, StridedSlice, IdentityN                          */
/* ------------------------------------------------------------------------- */

static void test_select_true_predicate(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "t", 2, D23);
    pt_ph(g, "e", 2, D23);
    tg_placeholder(g, "pp", 10, 2, D23);
    tg_node *p0 = tg_add(g, "p", "OnesLike", "pp", NULL);
    tg_attr_type(p0, "T", 10);
    tg_node *s = tg_add(g, "s", "SelectV2", "p", "t", "e", NULL);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    /* p materializes to a true Const, then s forwards t. */
    assert_string_equal(pt_dump(p), "t=Placeholder(); e=Placeholder(); pp=Placeholder(); "
                                    "p=Const(^pp); s=Identity(t,^p,^e); y=Relu(s)");
    assert_true(pt_fired(p, "SimplifySelect", "s"));
    assert_true(pt_fired(p, "MaterializeConstantValuedNode", "p"));
    pt_free(p);
    tg_free(g);
}

static void test_select_false_predicate_broadcast(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "t", 2, D23);
    pt_ph(g, "e", 1, D3);
    tg_placeholder(g, "pp", 10, 2, D23);
    tg_node *p0 = tg_add(g, "p", "ZerosLike", "pp", NULL);
    tg_attr_type(p0, "T", 10);
    tg_node *s = tg_add(g, "s", "SelectV2", "p", "t", "e", NULL);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "t=Placeholder(); e=Placeholder(); pp=Placeholder(); "
                                    "p=Const(^pp); s=BroadcastTo(e,ConstantFolding/"
                                    "s-broadcastto_shape-2,^p,^t); y=Relu(s); "
                                    "ConstantFolding/s-broadcastto_shape-2=Const(^p,^t)");
    assert_true(pt_fired(p, "SimplifySelect", "s"));
    pt_free(p);
    tg_free(g);
}

static void test_select_kept_when_predicate_mixed(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "t", 1, (int64_t[]){2});
    pt_ph(g, "e", 1, (int64_t[]){2});
    tg_placeholder(g, "p", 10, 1, (int64_t[]){2});
    tg_node *s = tg_add(g, "s", "Select", "p", "t", "e", NULL);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "t=Placeholder(); e=Placeholder(); p=Placeholder(); s=Select(p,t,e); y=Relu(s)",
                "SimplifySelect");
}

static void test_pack_single_to_expand_dims(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "n", "Relu", "x", F32);
    tg_node *k = tg_add(g, "k", "Pack", "n", NULL);
    tg_attr_type(k, "T", 1);
    tg_attr_int(k, "N", 1);
    tg_attr_int(k, "axis", 1);
    pt_op1(g, "y", "Relu", "k", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); n=Relu(x); k=ExpandDims(n,ConstantFolding/"
                        "k_const_axis); y=Relu(k); ConstantFolding/k_const_axis=Const(^n)");
    assert_true(pt_fired(p, "SimplifyPack", "k"));
    assert_int_equal(pt_ci(p, "ConstantFolding/k_const_axis", 0), 1);
    assert_int_equal(pt_attr_t(p, "k", "Tdim"), 3);
    assert_null(fl__node_attr(pt_need(p, "k"), "N"));
    assert_null(fl__node_attr(pt_need(p, "k"), "axis"));
    const fl_shape *s = &pt_need(p, "k")->outputs[0].shape;
    assert_int_equal(s->rank, 3);
    assert_int_equal(s->dims[1].k, 1);
    pt_free(p);
    tg_free(g);
}

static void test_pack_kept_when_input_is_feed(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_node *k = tg_add(g, "k", "Pack", "x", NULL);
    tg_attr_type(k, "T", 1);
    tg_attr_int(k, "N", 1);
    pt_op1(g, "y", "Relu", "k", F32);
    expect_kept(g, "x=Placeholder(); k=Pack(x); y=Relu(k)", "SimplifyPack");
}

static tg_node *sum(tg_graph *g, const char *name, const char *x, const char *idx, int keep) {
    tg_node *s = tg_add(g, name, "Sum", x, idx, NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "Tidx", 3);
    tg_attr_bool(s, "keep_dims", keep);
    return s;
}

static void test_reduction_single_element_to_reshape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){1, 1});
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){1});
    sum(g, "s", "x", "ax", 0);
    pt_op1(g, "y", "Relu", "s", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); ax=Const(); s=Reshape(x,ConstantFolding/"
                        "s_shape_const); y=Relu(s); ConstantFolding/s_shape_const=Const(^ax)");
    assert_true(pt_fired(p, "SimplifyReduction", "s"));
    assert_int_equal(pt_ci(p, "ConstantFolding/s_shape_const", 0), 1);
    assert_int_equal(pt_attr_t(p, "s", "Tshape"), 3);
    assert_null(fl__node_attr(pt_need(p, "s"), "keep_dims"));
    pt_free(p);
    tg_free(g);
}

static void test_reduction_kept_when_several_elements(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){1, 2});
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){1});
    sum(g, "s", "x", "ax", 0);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); ax=Const(); s=Sum(x,ax); y=Relu(s)", "SimplifyReduction");
}

static void test_reduction_indices_materialized(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_placeholder(g, "ax", 3, 1, (int64_t[]){2});
    sum(g, "s", "x", "ax", 0);
    tg_const_int(g, "shp", 3, 1, (int64_t[]){1}, (int64_t[]){1});
    pt_op2(g, "y", "Reshape", "s", "shp", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "x=Placeholder(); ax=Placeholder(); s=Sum(x,ConstantFolding/"
                                    "s-reduction_indices); shp=Const(); y=Reshape(s,shp); "
                                    "ConstantFolding/s-reduction_indices=Const(^ax)");
    assert_true(pt_fired(p, "MaterializeReductionIndices", "s"));
    assert_int_equal(pt_ci(p, "ConstantFolding/s-reduction_indices", 1), 1);
    pt_free(p);
    tg_free(g);
}

/* The reduction's shape, unknown before, would become known at an output:
 * foldline's driver keeps outputs' shapes, so the rule does not fire. */
static void test_reduction_indices_kept_when_output_shape_refines(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_placeholder(g, "ax", 3, 1, (int64_t[]){2});
    sum(g, "s", "x", "ax", 0);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); ax=Placeholder(); s=Sum(x,ax); y=Relu(s)",
                "MaterializeReductionIndices");
}

static void test_reduction_indices_kept_when_partial(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_placeholder(g, "ax", 3, 1, (int64_t[]){1});
    sum(g, "s", "x", "ax", 0);
    pt_op1(g, "y", "Relu", "s", F32);
    expect_kept(g, "x=Placeholder(); ax=Placeholder(); s=Sum(x,ax); y=Relu(s)",
                "MaterializeReductionIndices");
}

static tg_graph *ss_graph(const int64_t *b, const int64_t *e, const int64_t *s, int shrink) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "b", 3, 1, (int64_t[]){2}, b);
    tg_const_int(g, "e", 3, 1, (int64_t[]){2}, e);
    tg_const_int(g, "st", 3, 1, (int64_t[]){2}, s);
    tg_node *n = tg_add(g, "ss", "StridedSlice", "x", "b", "e", "st", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_type(n, "Index", 3);
    tg_attr_int(n, "begin_mask", 0);
    tg_attr_int(n, "end_mask", 2);
    tg_attr_int(n, "ellipsis_mask", 0);
    tg_attr_int(n, "new_axis_mask", 0);
    tg_attr_int(n, "shrink_axis_mask", shrink);
    pt_op1(g, "y", "Relu", "ss", F32);
    return g;
}

static void test_strided_slice_identity(void **state) {
    (void)state;
    /* end of dim 1 is masked */
    tg_graph *g = ss_graph((int64_t[]){0, 0}, (int64_t[]){2, 0}, (int64_t[]){1, 1}, 0);
    expect(g,
           "x=Placeholder(); b=Const(); e=Const(); st=Const(); ss=Identity(x,^b,^e,^st); "
           "y=Relu(ss)",
           "SimplifyStridedSlice", "ss");
}

static void test_strided_slice_kept_when_strided_or_shrinking(void **state) {
    (void)state;
    tg_graph *g = ss_graph((int64_t[]){0, 0}, (int64_t[]){2, 0}, (int64_t[]){2, 1}, 0);
    expect_kept(g,
                "x=Placeholder(); b=Const(); e=Const(); st=Const(); ss=StridedSlice(x,b,e,st); "
                "y=Relu(ss)",
                "SimplifyStridedSlice");
    g = ss_graph((int64_t[]){0, 0}, (int64_t[]){1, 0}, (int64_t[]){1, 1}, 0);
    expect_kept(g,
                "x=Placeholder(); b=Const(); e=Const(); st=Const(); ss=StridedSlice(x,b,e,st); "
                "y=Relu(ss)",
                "SimplifyStridedSlice");
}

static void test_identity_n_forwards_constants(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, D3);
    tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    tg_node *n = tg_add(g, "idn", "IdentityN", "x", "c", NULL);
    tg_attr_types(n, "T", 2, (int[]){1, 1});
    pt_op2(g, "y", "AddV2", "idn", "idn:1", F32);
    expect(g, "x=Placeholder(); c=Const(); idn=IdentityN(x,c); y=AddV2(idn,c)",
           "PartialConstPropThroughIdentityN", "idn");
}

/* ------------------------------------------------------------------------- */
/* ShapeN, BroadcastGradientArgs, ZerosLike                                   */
/* ------------------------------------------------------------------------- */

static void test_shape_n_materialized(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, (int64_t[]){-1, 3});
    tg_node *n = tg_add(g, "sn", "ShapeN", "x", "z", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_int(n, "N", 2);
    tg_attr_type(n, "out_type", 3);
    tg_node *r = tg_add(g, "r", "Reshape", "z", "sn", NULL);
    tg_attr_type(r, "T", 1);
    tg_node *q = tg_add(g, "q", "Reshape", "x", "sn:1", NULL);
    tg_attr_type(q, "T", 1);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); z=Placeholder(); sn=ShapeN(x,z); "
                        "r=Reshape(z,ConstantFolding/sn-matshapes-0); q=Reshape(x,sn:1); "
                        "ConstantFolding/sn-matshapes-0=Const(^sn)");
    assert_true(pt_fired(p, "MaterializeShapes", "sn"));
    assert_int_equal(pt_ci(p, "ConstantFolding/sn-matshapes-0", 1), 3);
    pt_free(p);
    tg_free(g);
}

static tg_graph *bga_graph(int64_t a0, int64_t b0) {
    tg_graph *g = tg_new();
    pt_ph(g, "a", 2, (int64_t[]){a0, 3});
    pt_ph(g, "b", 2, (int64_t[]){b0, 1});
    tg_node *sa = tg_add(g, "sa", "Shape", "a", NULL);
    tg_attr_type(sa, "T", 1);
    tg_attr_type(sa, "out_type", 3);
    tg_node *sb = tg_add(g, "sb", "Shape", "b", NULL);
    tg_attr_type(sb, "T", 1);
    tg_attr_type(sb, "out_type", 3);
    tg_node *n = tg_add(g, "bga", "BroadcastGradientArgs", "sa", "sb", NULL);
    tg_attr_type(n, "T", 3);
    tg_node *s = tg_add(g, "sz", "Size", "bga:1", NULL);
    tg_attr_type(s, "T", 3);
    tg_attr_type(s, "out_type", 3);
    return g;
}

static void test_broadcast_gradient_args_materialized(void **state) {
    (void)state;
    tg_graph *g = bga_graph(-1, -1);
    pt_run *p = run(g);
    /* a.0 and b.0 are different symbols: Grappler cannot tell whether they
     * broadcast, so nothing happens. */
    assert_false(pt_fired(p, "MaterializeBroadcastGradientArgs", NULL));
    pt_free(p);
    tg_free(g);
    g = bga_graph(4, 4);
    p = run(g);
    assert_true(pt_fired(p, "MaterializeBroadcastGradientArgs", "bga"));
    /* [4,3] vs [4,1]: y reduces over dim 1, x over nothing */
    assert_int_equal(pt_cval(p, "ConstantFolding/bga-bcastargs-0")->n, 0);
    assert_int_equal(pt_cval(p, "ConstantFolding/bga-bcastargs-1")->n, 1);
    assert_int_equal(pt_ci(p, "ConstantFolding/bga-bcastargs-1", 0), 1);
    assert_string_equal(pt_dump(p), "a=Placeholder(); b=Placeholder(); sa=Const(^a); sb=Const(^b); "
                                    "bga=BroadcastGradientArgs(sa,sb); "
                                    "sz=Size(ConstantFolding/bga-bcastargs-1); "
                                    "ConstantFolding/bga-bcastargs-0=Const(^bga); "
                                    "ConstantFolding/bga-bcastargs-1=Const(^bga)");
    pt_free(p);
    tg_free(g);
}

static void test_zeros_like_materialized(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "z", "ZerosLike", "x", F32);
    pt_op2(g, "y", "AddV2", "z", "x", F32);
    pt_op1(g, "w", "Relu", "y", F32);
    pt_run *p = run(g);
    /* z becomes zeros; then 0 + x is x. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); z=Const(^x); y=Identity(x,^z); w=Relu(y)");
    assert_true(pt_fired(p, "MaterializeConstantValuedNode", "z"));
    assert_true(pt_cf(p, "z", 5) == 0);
    pt_free(p);
    tg_free(g);
}

static void test_zeros_like_kept_when_shape_unknown(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    pt_op1(g, "z", "ZerosLike", "x", F32);
    pt_op1(g, "y", "Relu", "z", F32);
    expect_kept(g, "x=Placeholder(); z=ZerosLike(x); y=Relu(z)", "MaterializeConstantValuedNode");
}

/* Rules skip graph outputs (preserved nodes) except materializations. */
static void test_rules_kept_when_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    pt_op2(g, "s", "Sub", "zero", "x", F32);
    expect_kept(g, "x=Placeholder(); zero=Const(); s=Sub(zero,x)",
                "ReplaceSubtractionFromZeroByNegation");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sub_from_zero_to_neg),
        cmocka_unit_test(test_tpu_attr_left_alone),
        cmocka_unit_test(test_sub_from_zero_kept_when_broadcasting),
        cmocka_unit_test(test_sub_from_zero_kept_when_not_zero),
        cmocka_unit_test(test_one_over_y_to_reciprocal),
        cmocka_unit_test(test_one_over_y_kept_when_integer),
        cmocka_unit_test(test_div_by_const_to_mul_reciprocal),
        cmocka_unit_test(test_div_by_const_kept_when_integer_div),
        cmocka_unit_test(test_div_kept_when_denominator_not_const),
        cmocka_unit_test(test_multiply_by_one_broadcast_to),
        cmocka_unit_test(test_matmul_by_zeros),
        cmocka_unit_test(test_push_down_add),
        cmocka_unit_test(test_push_down_sub_sign_tracking),
        cmocka_unit_test(test_push_down_div_sign_tracking),
        cmocka_unit_test(test_push_down_kept_when_integer_sub),
        cmocka_unit_test(test_push_down_kept_when_half),
        cmocka_unit_test(test_push_down_kept_when_child_shared),
        cmocka_unit_test(test_push_down_kept_when_child_preserved),
        cmocka_unit_test(test_push_down_symmetric_without_const_leaf),
        cmocka_unit_test(test_push_down_kept_when_const_larger_than_leaf),
        cmocka_unit_test(test_push_down_bias_add),
        cmocka_unit_test(test_push_down_bias_add_kept_when_leaf_const),
        cmocka_unit_test(test_mul_conv_push_down),
        cmocka_unit_test(test_mul_conv_push_down_scalar_nchw),
        cmocka_unit_test(test_mul_conv_kept_when_nchw_vector),
        cmocka_unit_test(test_mul_conv_kept_when_conv_shared),
        cmocka_unit_test(test_mul_conv_kept_when_const_not_per_channel),
        cmocka_unit_test(test_partial_addn),
        cmocka_unit_test(test_partial_addn_kept_when_one_const),
        cmocka_unit_test(test_partial_concat),
        cmocka_unit_test(test_partial_concat_kept_when_not_consecutive),
        cmocka_unit_test(test_merge_concat),
        cmocka_unit_test(test_merge_concat_kept_when_axis_differs),
        cmocka_unit_test(test_select_true_predicate),
        cmocka_unit_test(test_select_false_predicate_broadcast),
        cmocka_unit_test(test_select_kept_when_predicate_mixed),
        cmocka_unit_test(test_pack_single_to_expand_dims),
        cmocka_unit_test(test_pack_kept_when_input_is_feed),
        cmocka_unit_test(test_reduction_single_element_to_reshape),
        cmocka_unit_test(test_reduction_kept_when_several_elements),
        cmocka_unit_test(test_reduction_indices_materialized),
        cmocka_unit_test(test_reduction_indices_kept_when_partial),
        cmocka_unit_test(test_reduction_indices_kept_when_output_shape_refines),
        cmocka_unit_test(test_strided_slice_identity),
        cmocka_unit_test(test_strided_slice_kept_when_strided_or_shrinking),
        cmocka_unit_test(test_identity_n_forwards_constants),
        cmocka_unit_test(test_shape_n_materialized),
        cmocka_unit_test(test_broadcast_gradient_args_materialized),
        cmocka_unit_test(test_zeros_like_materialized),
        cmocka_unit_test(test_zeros_like_kept_when_shape_unknown),
        cmocka_unit_test(test_rules_kept_when_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
