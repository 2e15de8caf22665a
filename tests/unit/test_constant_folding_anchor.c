/*
 * test_constant_folding_anchor.c - Grappler's AddControlDependency in the
 * constant-folding rules whose control inputs come from the shared helpers
 * of src/passes/util.c (fl__ctrl_anchor, fl__node_make_const_anchored,
 * fl__node_make_identity): a data input read from a Switch port that a rule
 * turns into a control input becomes ^ConstantFoldingCtrl/<switch>_<port>,
 * an Identity of that port made once and reused, never ^<switch> (which
 * would fire on both branches).
 *
 * Each test builds a GraphDef, runs "constfold" (or another pass) once with
 * the verifier on, and compares the whole rewritten graph printed as
 * "name=Op(in,in:1,^ctrl); ..." (new nodes last).
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pt_opts CONSTFOLD = {.passes = "constfold", .iterations = 1};

static const int64_t D23[] = {2, 3};

/* pred: a bool scalar placeholder; sw = Switch(src, pred) with T = t. */
static void add_switch(tg_graph *g, const char *src, int t) {
    tg_producer(g, 1000);
    tg_placeholder(g, "pred", BOOL, 0, NULL);
    pt_op2(g, "sw", "Switch", src, "pred", t);
}

/* The anchor `name` exists: Identity of `port_input`, attr T = t, on the
 * Switch's device. */
static void expect_anchor(pt_run *p, const char *name, const char *port_input, int t) {
    pt_expect_node(p, name, "Identity", port_input, NULL);
    assert_int_equal(pt_attr_t(p, name, "T"), t);
    assert_string_equal(pt_need(p, name)->device, pt_need(p, "sw")->device);
}

/* MaterializeShapes: Shape/Size/Rank of a Switch output -> Const waiting on
 * the port's anchor; the two materializations of port 1 share one anchor,
 * port 0 gets its own. */
static void test_materialized_shape_of_switch_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    add_switch(g, "x", F32);
    tg_node *s = pt_op1(g, "s", "Shape", "sw:1", F32);
    tg_attr_type(s, "out_type", I32);
    tg_node *z = pt_op1(g, "z", "Size", "sw:1", F32);
    tg_attr_type(z, "out_type", I32);
    pt_op1(g, "r", "Rank", "sw", F32);
    tg_placeholder(g, "q", I32, 0, NULL);
    pt_op2(g, "ys", "Add", "s", "q", I32);
    pt_op2(g, "yz", "Add", "z", "q", I32);
    pt_op2(g, "yr", "Add", "r", "q", I32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                                    "s=Const(^ConstantFoldingCtrl/sw_1); "
                                    "z=Const(^ConstantFoldingCtrl/sw_1); "
                                    "r=Const(^ConstantFoldingCtrl/sw_0); q=Placeholder(); "
                                    "ys=Add(s,q); yz=Add(z,q); yr=Add(r,q); "
                                    "ConstantFoldingCtrl/sw_1=Identity(sw:1); "
                                    "ConstantFoldingCtrl/sw_0=Identity(sw)");
    assert_true(pt_fired(p, "materialize_shape", "s"));
    expect_anchor(p, "ConstantFoldingCtrl/sw_1", "sw:1", F32);
    expect_anchor(p, "ConstantFoldingCtrl/sw_0", "sw", F32);
    assert_int_equal(pt_ci(p, "s", 1), 3);
    assert_int_equal(pt_ci(p, "z", 0), 6);
    pt_free(p);
}

/* An input that is not a Switch output stays a plain control input. */
static void test_materialized_shape_of_other_input_plain(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    pt_op1(g, "e", "Relu", "x", F32);
    tg_node *s = pt_op1(g, "s", "Shape", "e", F32);
    tg_attr_type(s, "out_type", I32);
    tg_placeholder(g, "q", I32, 0, NULL);
    pt_op2(g, "ys", "Add", "s", "q", I32);
    pt_op1(g, "ye", "Identity", "e", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "x=Placeholder(); e=Relu(x); s=Const(^e); q=Placeholder(); "
                                    "ys=Add(s,q); ye=Identity(e)");
    pt_free(p);
}

/* MaterializeConstantValuedNode (ReplaceOperationWithConstant): ZerosLike
 * and OnesLike of a Switch output. */
static void test_zeros_like_of_switch_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    add_switch(g, "x", F32);
    pt_op1(g, "z", "ZerosLike", "sw:1", F32);
    pt_op1(g, "o", "OnesLike", "sw:1", F32);
    pt_op2(g, "yz", "AddV2", "z", "x", F32);
    pt_op2(g, "yo", "AddV2", "o", "x", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                                    "z=Const(^ConstantFoldingCtrl/sw_1); "
                                    "o=Const(^ConstantFoldingCtrl/sw_1); yz=AddV2(z,x); "
                                    "yo=AddV2(o,x); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "MaterializeConstantValuedNode", "z"));
    assert_true(pt_cf(p, "o", 5) == 1.0);
    pt_free(p);
}

/* multiply_by_zero with a fully known output (ReplaceOperationWithConstant):
 * Mul(sw:1, zeros) -> zeros Const waiting on the anchor and the zeros. */
static void test_mul_by_zeros_of_switch_output_to_const(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    add_switch(g, "x", F32);
    tg_const_f32_vals(g, "c", 2, D23, NULL, 0);
    pt_op2(g, "m", "Mul", "sw:1", "c", F32);
    pt_op2(g, "y", "Sub", "m", "x", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                                    "c=Const(); m=Const(^ConstantFoldingCtrl/sw_1,^c); "
                                    "y=Sub(m,x); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "multiply_by_zero", "m"));
    pt_free(p);
}

/* multiply_by_zero with a symbolic output (ReplaceOperationWithIdentity):
 * Mul(sw:1, ZerosLike(x)) -> Identity of the zeros, the Switch output as
 * the anchor. */
static void test_mul_by_zeros_of_switch_output_to_identity(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, (int64_t[]){-1, 3});
    add_switch(g, "x", F32);
    pt_op1(g, "z", "ZerosLike", "x", F32);
    pt_op2(g, "m", "Mul", "sw:1", "z", F32);
    pt_op1(g, "y", "Identity", "m", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                                    "z=ZerosLike(x); m=Identity(z,^ConstantFoldingCtrl/sw_1); "
                                    "y=Identity(m); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "multiply_by_zero", "m"));
    assert_int_equal(pt_attr_t(p, "m", "T"), F32);
    pt_free(p);
}

/* A bool Const of shape dims, all true. */
static void bool_true(tg_graph *g, const char *name, int rank, const int64_t *dims) {
    unsigned char ones[64];
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= (size_t)dims[i];
    }
    memset(ones, 1, sizeof ones);
    tg_const_raw(g, name, BOOL, rank, dims, ones, n);
}

/* LogicalOr with an all-true input -> true Const
 * (ReplaceOperationWithConstant). */
static void test_logical_or_true_of_switch_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_placeholder(g, "b", BOOL, 1, (int64_t[]){4});
    add_switch(g, "b", BOOL);
    bool_true(g, "t", 1, (int64_t[]){4});
    pt_op2(g, "o", "LogicalOr", "sw:1", "t", 0);
    pt_op2(g, "y", "LogicalAnd", "o", "b", 0);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "b=Placeholder(); pred=Placeholder(); sw=Switch(b,pred); "
                                    "t=Const(); o=Const(^ConstantFoldingCtrl/sw_1,^t); "
                                    "y=LogicalAnd(o,b); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "logical_or_true", "o"));
    expect_anchor(p, "ConstantFoldingCtrl/sw_1", "sw:1", BOOL);
    pt_free(p);
}

/* split_one (ReplaceOperationWithIdentity): Split into one piece with its
 * axis read from a Switch -> Identity(value, ^anchor). The Switch forwards
 * the axis's value to shape inference; it is not a Const, so nothing folds. */
static void test_split_axis_from_switch_to_identity(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    tg_const_i32_vals(g, "axis", 0, NULL, (int32_t[]){1}, 1);
    add_switch(g, "axis", I32);
    tg_node *s = tg_add(g, "s", "Split", "sw:1", "x", NULL);
    tg_attr_type(s, "T", F32);
    tg_attr_int(s, "num_split", 1);
    pt_op1(g, "y", "Identity", "s", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); axis=Const(); pred=Placeholder(); "
                        "sw=Switch(axis,pred); s=Identity(x,^ConstantFoldingCtrl/sw_1); "
                        "y=Identity(s); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "split_one", "s"));
    expect_anchor(p, "ConstantFoldingCtrl/sw_1", "sw:1", I32);
    pt_free(p);
}

/* SimplifySelect with equal shapes: Identity(live, ^pred, ^anchor of the
 * dead branch). */
static void test_select_dead_branch_from_switch_to_identity(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "t", F32, 2, D23);
    tg_placeholder(g, "e", F32, 2, D23);
    add_switch(g, "e", F32);
    bool_true(g, "c", 2, D23);
    tg_attr_type(tg_add(g, "s", "Select", "c", "t", "sw:1", NULL), "T", F32);
    pt_op1(g, "y", "Identity", "s", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p), "t=Placeholder(); e=Placeholder(); pred=Placeholder(); "
                                    "sw=Switch(e,pred); c=Const(); "
                                    "s=Identity(t,^c,^ConstantFoldingCtrl/sw_1); y=Identity(s); "
                                    "ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "SimplifySelect", "s"));
    pt_free(p);
}

/* SimplifySelect through BroadcastTo (ReplaceOperationWithBroadcastTo): the
 * node's other inputs become control inputs through their anchors
 * (Grappler's order: the third input first, the first last); the shape
 * constant's come by node name, so the Switch output gets the port-0
 * anchor ConstantFoldingCtrl/sw_0, as in Grappler. */
static void test_select_v2_broadcast_dead_branch_from_switch(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "t", F32, 2, D23);
    tg_placeholder(g, "e", F32, 1, (int64_t[]){3});
    add_switch(g, "e", F32);
    bool_true(g, "c", 0, NULL);
    tg_attr_type(tg_add(g, "s", "SelectV2", "c", "t", "sw:1", NULL), "T", F32);
    pt_op1(g, "y", "Identity", "s", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(
        pt_dump(p),
        "t=Placeholder(); e=Placeholder(); pred=Placeholder(); sw=Switch(e,pred); c=Const(); "
        "s=BroadcastTo(t,ConstantFolding/s-broadcastto_shape-1,^ConstantFoldingCtrl/sw_1,^c); "
        "y=Identity(s); ConstantFolding/s-broadcastto_shape-1=Const(^c,^ConstantFoldingCtrl/sw_0); "
        "ConstantFoldingCtrl/sw_0=Identity(sw); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "SimplifySelect", "s"));
    pt_free(p);
}

/* SimplifyPack: the axis constant waits on the anchor of the packed
 * Switch output. */
static void test_pack_of_switch_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    add_switch(g, "x", F32);
    tg_node *k = tg_add(g, "k", "Pack", "sw:1", NULL);
    tg_attr_type(k, "T", F32);
    tg_attr_int(k, "N", 1);
    tg_attr_int(k, "axis", 0);
    pt_op1(g, "y", "Identity", "k", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                        "k=ExpandDims(sw:1,ConstantFolding/k_const_axis); "
                        "y=Identity(k); ConstantFoldingCtrl/sw_1=Identity(sw:1); "
                        "ConstantFolding/k_const_axis=Const(^ConstantFoldingCtrl/sw_1)");
    assert_true(pt_fired(p, "SimplifyPack", "k"));
    pt_free(p);
}

/* MaterializeReductionIndices: computed indices read from a Switch. */
static void test_reduction_indices_from_switch(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    tg_placeholder(g, "ix", I32, 1, (int64_t[]){2});
    add_switch(g, "ix", I32);
    tg_node *r = tg_add(g, "r", "Sum", "x", "sw:1", NULL);
    tg_attr_type(r, "T", F32);
    tg_attr_type(r, "Tidx", I32);
    tg_attr_bool(r, "keep_dims", 0);
    /* A graph output of a known shape: the materialization refines none. */
    tg_const_i32_vals(g, "shp", 1, (int64_t[]){1}, (int32_t[]){1}, 1);
    pt_op2(g, "y", "Reshape", "r", "shp", F32);
    pt_run *p = pt_pipeline_free(g, &CONSTFOLD);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); ix=Placeholder(); pred=Placeholder(); "
                        "sw=Switch(ix,pred); r=Sum(x,ConstantFolding/r-reduction_indices); "
                        "shp=Const(); y=Reshape(r,shp); ConstantFoldingCtrl/sw_1=Identity(sw:1); "
                        "ConstantFolding/r-reduction_indices=Const(^ConstantFoldingCtrl/sw_1)");
    assert_true(pt_fired(p, "MaterializeReductionIndices", "r"));
    pt_free(p);
}

/* Other passes keep their own rules: the arithmetic optimizer's Pow(x, 0)
 * -> ones makes plain control inputs (Grappler's ConvertPowStage uses
 * AsControlDependency, not AddControlDependency). */
static void test_arithmetic_convert_pow_stays_plain(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, D23);
    add_switch(g, "x", F32);
    tg_const_f32_vals(g, "c", 0, NULL, NULL, 0);
    pt_op2(g, "w", "Pow", "sw:1", "c", F32);
    pt_op1(g, "y", "Identity", "w", F32);
    pt_opts o = {.passes = "arithmetic", .iterations = 1};
    pt_run *p = pt_pipeline_free(g, &o);
    assert_string_equal(pt_dump(p), "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); "
                                    "c=Const(); w=Const(^sw,^c); y=Identity(w)");
    assert_true(pt_fired(p, "convert_pow", "w"));
    pt_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_materialized_shape_of_switch_output),
        cmocka_unit_test(test_materialized_shape_of_other_input_plain),
        cmocka_unit_test(test_zeros_like_of_switch_output),
        cmocka_unit_test(test_mul_by_zeros_of_switch_output_to_const),
        cmocka_unit_test(test_mul_by_zeros_of_switch_output_to_identity),
        cmocka_unit_test(test_logical_or_true_of_switch_output),
        cmocka_unit_test(test_split_axis_from_switch_to_identity),
        cmocka_unit_test(test_select_dead_branch_from_switch_to_identity),
        cmocka_unit_test(test_select_v2_broadcast_dead_branch_from_switch),
        cmocka_unit_test(test_pack_of_switch_output),
        cmocka_unit_test(test_reduction_indices_from_switch),
        cmocka_unit_test(test_arithmetic_convert_pow_stays_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
