/*
 * test_hoist_unary.c - ArithmeticOptimizer's HoistCWiseUnaryChains (stage
 * 20, src/passes/arith/hoist.c): the Concat and Split forms, with
 * the exact rewritten graph (names included), and one negative test per
 * blocking condition (*_kept_when_<reason>).
 *
 * Runs use the arithmetic pass alone, one iteration; most target GPU so that
 * UnaryOpsComposition (CPU only) leaves the hoisted chains visible; one test
 * shows the two stages together on CPU.
 */
#include "passtest.h"

static const int64_t D23[] = {2, 3};
static const int64_t D43[] = {4, 3};

/* The arithmetic pass alone, one iteration, on `dev`. */
static pt_run *arith(tg_graph *g, fl_device dev) {
    return pt_pipeline(g, &(pt_opts){.passes = "arithmetic", .iterations = 1, .device = dev});
}

/* Expects the arithmetic pass (GPU) to leave g as it is (dump `want`),
 * with no hoist in the ledger. */
static void expect_kept(tg_graph *g, const char *want) {
    pt_expect(g, &(pt_opts){.passes = "arithmetic", .iterations = 1, .device = FL_DEVICE_GPU}, want,
              "hoist_cwise_unary_chains", NULL, false);
    tg_free(g);
}

static void axis0(tg_graph *g, const char *name) {
    tg_const_i32_vals(g, name, 0, NULL, (const int32_t[]){0}, 1);
}

static tg_node *concat_v2(tg_graph *g, const char *name, const char *a, const char *b) {
    tg_node *c = tg_add(g, name, "ConcatV2", a, b, "axis", NULL);
    tg_attr_int(c, "N", 2);
    tg_attr_type(c, "T", 1);
    tg_attr_type(c, "Tidx", 3);
    return c;
}

/* x, y [2,3]; ea = Exp(Sin(x)), eb = Exp(Sin(y)); c = ConcatV2(ea, eb). */
static tg_graph *concat_graph(void) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    pt_op1(g, "a/sin", "Sin", "x", F32);
    pt_op1(g, "a/exp", "Exp", "a/sin", F32);
    pt_op1(g, "b/sin", "Sin", "y", F32);
    pt_op1(g, "b/exp", "Exp", "b/sin", F32);
    concat_v2(g, "c", "a/exp", "b/exp");
    pt_op1(g, "out", "Identity", "c", F32);
    return g;
}

static void test_hoist_concat(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    pt_run *p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Placeholder(); axis=Const(); a/sin=Sin(c); "
                                    "a/exp=Exp(a/sin); c=ConcatV2(x,y,axis); out=Identity(a/exp)");
    assert_true(pt_fired(p, "hoist_cwise_unary_chains", "c"));
    const fl_node *c = pt_need(p, "c");
    assert_int_equal(c->outputs[0].shape.rank, 2);
    assert_int_equal(c->outputs[0].shape.dims[0].k, 4);
    assert_int_equal(c->outputs[0].shape.dims[1].k, 3);
    const fl_node *e = pt_need(p, "a/exp");
    assert_int_equal(e->outputs[0].dtype, FL_DT_FLOAT);
    assert_int_equal(e->outputs[0].shape.dims[0].k, 4);
    /* the same element-wise work: 2 ops on 12 elements */
    assert_int_equal(p->before.flops.k, p->after.flops.k);
    assert_int_equal(p->after.flops.k, 24);
    pt_free(p);
    tg_free(g);
}

/* Concat (axis first) on CPU: the chain's control input moves to the
 * Concat, and UnaryOpsComposition then fuses the hoisted chain. */
static void test_hoist_concat_v1_then_composition(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    tg_placeholder(g, "dep", 1, 2, D23);
    axis0(g, "axis");
    pt_op1(g, "sa", "Sin", "x", F32);
    pt_op1(g, "ea", "Exp", "sa", F32);
    tg_node *sb = tg_add(g, "sb", "Sin", "y", "^dep", NULL);
    tg_attr_type(sb, "T", 1);
    pt_op1(g, "eb", "Exp", "sb", F32);
    tg_node *c = tg_add(g, "c", "Concat", "axis", "ea", "eb", NULL);
    tg_attr_int(c, "N", 2);
    tg_attr_type(c, "T", 1);
    pt_op1(g, "out", "Identity", "c", F32);
    pt_run *p = arith(g, FL_DEVICE_CPU);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); y=Placeholder(); dep=Placeholder(); axis=Const(); "
                        "c=Concat(axis,x,y,^dep); out=Identity(ea/unary_ops_composition); "
                        "ea/unary_ops_composition=_UnaryOpsComposition(c)");
    assert_true(pt_fired(p, "hoist_cwise_unary_chains", "c"));
    assert_true(pt_fired(p, "unary_ops_composition", "ea"));
    pt_free(p);
    tg_free(g);
}

/* s = Split(x) into 2; each output -> Exp -> Neg. */
static tg_graph *split_graph(bool v) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D43);
    axis0(g, "axis");
    tg_node *s;
    if (v) {
        tg_const_i32_vals(g, "sizes", 1, (const int64_t[]){2}, (const int32_t[]){1, 3}, 2);
        s = tg_add(g, "blk/split", "SplitV", "x", "sizes", "axis", NULL);
        tg_attr_type(s, "Tlen", 3);
    } else {
        s = tg_add(g, "blk/split", "Split", "axis", "x", NULL);
    }
    tg_attr_int(s, "num_split", 2);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "ea", "Exp", "blk/split", F32);
    pt_op1(g, "na", "Neg", "ea", F32);
    pt_op1(g, "eb", "Exp", "blk/split:1", F32);
    pt_op1(g, "nb", "Neg", "eb", F32);
    pt_op1(g, "oa", "Identity", "na", F32);
    pt_op1(g, "ob", "Identity", "nb", F32);
    return g;
}

static void test_hoist_split(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    pt_run *p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(
        pt_dump(p),
        "x=Placeholder(); axis=Const(); "
        "blk/split=Split(axis,blk/ArithmeticOptimizer/_na_split); oa=Identity(blk/split); "
        "ob=Identity(blk/split:1); blk/ArithmeticOptimizer/_ea_split=Exp(x); "
        "blk/ArithmeticOptimizer/_na_split=Neg(blk/ArithmeticOptimizer/_ea_split)");
    assert_true(pt_fired(p, "hoist_cwise_unary_chains", "blk/split"));
    const fl_node *s = pt_need(p, "blk/split");
    assert_int_equal(s->outputs[1].shape.dims[0].k, 2);
    assert_int_equal(s->outputs[1].shape.dims[1].k, 3);
    const fl_node *e = pt_need(p, "blk/ArithmeticOptimizer/_ea_split");
    assert_int_equal(e->outputs[0].shape.dims[0].k, 4);
    assert_int_equal(p->before.flops.k, p->after.flops.k);
    pt_free(p);
    tg_free(g);
    g = split_graph(true); /* SplitV: the value is input 0 */
    p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(
        pt_dump(p),
        "x=Placeholder(); axis=Const(); sizes=Const(); "
        "blk/split=SplitV(blk/ArithmeticOptimizer/_na_split,sizes,axis); oa=Identity(blk/split); "
        "ob=Identity(blk/split:1); blk/ArithmeticOptimizer/_ea_split=Exp(x); "
        "blk/ArithmeticOptimizer/_na_split=Neg(blk/ArithmeticOptimizer/_ea_split)");
    const fl_node *sv = pt_need(p, "blk/split");
    assert_int_equal(sv->outputs[0].shape.dims[0].k, 1);
    assert_int_equal(sv->outputs[1].shape.dims[0].k, 3);
    pt_free(p);
    tg_free(g);
}

static void test_hoist_kept_when_ops_differ(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    pt_op1(g, "ea", "Exp", "x", F32);
    pt_op1(g, "lb", "Log", "y", F32);
    concat_v2(g, "c", "ea", "lb");
    pt_op1(g, "out", "Identity", "c", F32);
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); ea=Exp(x); lb=Log(y); "
                   "c=ConcatV2(ea,lb,axis); out=Identity(c)");
}

static void test_hoist_kept_when_not_unary(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    pt_op2(g, "ma", "Mul", "x", "y", F32);
    pt_op2(g, "mb", "Mul", "y", "x", F32);
    concat_v2(g, "c", "ma", "mb");
    pt_op1(g, "out", "Identity", "c", F32);
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); ma=Mul(x,y); mb=Mul(y,x); "
                   "c=ConcatV2(ma,mb,axis); out=Identity(c)");
}

static void test_hoist_kept_when_shared(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    pt_op1(g, "other", "Identity", "a/exp", F32); /* a/exp read twice */
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); a/sin=Sin(x); "
                   "a/exp=Exp(a/sin); b/sin=Sin(y); b/exp=Exp(b/sin); "
                   "c=ConcatV2(a/exp,b/exp,axis); out=Identity(c); other=Identity(a/exp)");
}

static void test_hoist_kept_when_control_consumer(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    tg_node *w = tg_add(g, "w", "Identity", "x", "^b/exp", NULL);
    tg_attr_type(w, "T", 1);
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); a/sin=Sin(x); "
                   "a/exp=Exp(a/sin); b/sin=Sin(y); b/exp=Exp(b/sin); "
                   "c=ConcatV2(a/exp,b/exp,axis); out=Identity(c); w=Identity(x,^b/exp)");
}

static void test_hoist_kept_when_inputs_repeat(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    axis0(g, "axis");
    pt_op1(g, "ea", "Exp", "x", F32);
    concat_v2(g, "c", "ea", "ea");
    pt_op1(g, "out", "Identity", "c", F32);
    expect_kept(
        g, "x=Placeholder(); axis=Const(); ea=Exp(x); c=ConcatV2(ea,ea,axis); out=Identity(c)");
}

static void test_hoist_kept_when_preserved(void **state) {
    (void)state;
    tg_graph *g = concat_graph(); /* a chain op is a graph output */
    const char *outs[] = {"out", "b/exp"};
    pt_opts o = {.passes = "arithmetic",
                 .iterations = 1,
                 .outputs = outs,
                 .n_outputs = 2,
                 .device = FL_DEVICE_GPU};
    pt_run *p = pt_pipeline(g, &o);
    assert_false(pt_fired(p, "hoist_cwise_unary_chains", NULL));
    pt_need(p, "a/sin");
    pt_need(p, "b/sin");
    assert_string_equal(pt_need(p, "c")->inputs[0].node->name, "a/exp");
    pt_free(p);
    tg_free(g);
    g = concat_graph(); /* the Concat is a graph output */
    const char *outs2[] = {"out", "c"};
    o.outputs = outs2;
    p = pt_pipeline(g, &o);
    assert_false(pt_fired(p, "hoist_cwise_unary_chains", NULL));
    pt_free(p);
    tg_free(g);
}

static void test_hoist_kept_when_dtype_changes(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    pt_op1(g, "na", "IsNan", "x", F32);
    pt_op1(g, "nb", "IsNan", "y", F32);
    tg_node *c = tg_add(g, "c", "ConcatV2", "na", "nb", "axis", NULL);
    tg_attr_int(c, "N", 2);
    tg_attr_type(c, "T", 10);
    tg_attr_type(c, "Tidx", 3);
    tg_node *o = tg_add(g, "out", "Identity", "c", NULL);
    tg_attr_type(o, "T", 10);
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); na=IsNan(x); nb=IsNan(y); "
                   "c=ConcatV2(na,nb,axis); out=Identity(c)");
}

static void test_hoist_kept_when_relu_after_bias_add(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    tg_const_f32(g, "bias", 1, (const int64_t[]){3}, NULL, 0);
    axis0(g, "axis");
    pt_op2(g, "ba", "BiasAdd", "x", "bias", F32);
    pt_op1(g, "ra", "Relu", "ba", F32);
    pt_op2(g, "bb", "BiasAdd", "y", "bias", F32);
    pt_op1(g, "rb", "Relu", "bb", F32);
    concat_v2(g, "c", "ra", "rb");
    pt_op1(g, "out", "Identity", "c", F32);
    expect_kept(
        g, "x=Placeholder(); y=Placeholder(); bias=Const(); axis=Const(); ba=BiasAdd(x,bias); "
           "ra=Relu(ba); bb=BiasAdd(y,bias); rb=Relu(bb); c=ConcatV2(ra,rb,axis); out=Identity(c)");
}

static void test_hoist_split_kept_when_first_input_elsewhere(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    tg_placeholder(g, "z", 1, 2, D23);
    pt_op2(g, "sub", "Sub", "z", "blk/split:1", F32); /* reads the Split as input 1 */
    pt_op1(g, "os", "Identity", "sub", F32);
    expect_kept(g, "x=Placeholder(); axis=Const(); blk/split=Split(axis,x); ea=Exp(blk/split); "
                   "na=Neg(ea); eb=Exp(blk/split:1); nb=Neg(eb); oa=Identity(na); ob=Identity(nb); "
                   "z=Placeholder(); sub=Sub(z,blk/split:1); os=Identity(sub)");
}

static void test_hoist_split_kept_when_too_many_edges(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    pt_op1(g, "ec", "Exp", "blk/split", F32); /* 3 data edges, num_split 2 */
    pt_op1(g, "oc", "Identity", "ec", F32);
    expect_kept(g, "x=Placeholder(); axis=Const(); blk/split=Split(axis,x); ea=Exp(blk/split); "
                   "na=Neg(ea); eb=Exp(blk/split:1); nb=Neg(eb); oa=Identity(na); ob=Identity(nb); "
                   "ec=Exp(blk/split); oc=Identity(ec)");
}

static void test_hoist_split_kept_when_control_output(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    tg_node *w = tg_add(g, "w", "Identity", "x", "^blk/split", NULL);
    tg_attr_type(w, "T", 1);
    expect_kept(g, "x=Placeholder(); axis=Const(); blk/split=Split(axis,x); ea=Exp(blk/split); "
                   "na=Neg(ea); eb=Exp(blk/split:1); nb=Neg(eb); oa=Identity(na); ob=Identity(nb); "
                   "w=Identity(x,^blk/split)");
}

static void test_hoist_split_kept_when_one_consumer(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D43);
    axis0(g, "axis");
    tg_node *s = tg_add(g, "s", "Split", "axis", "x", NULL);
    tg_attr_int(s, "num_split", 2);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "ea", "Exp", "s", F32);
    pt_op1(g, "oa", "Identity", "ea", F32);
    expect_kept(g, "x=Placeholder(); axis=Const(); s=Split(axis,x); ea=Exp(s); oa=Identity(ea)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hoist_concat),
        cmocka_unit_test(test_hoist_concat_v1_then_composition),
        cmocka_unit_test(test_hoist_split),
        cmocka_unit_test(test_hoist_kept_when_ops_differ),
        cmocka_unit_test(test_hoist_kept_when_not_unary),
        cmocka_unit_test(test_hoist_kept_when_shared),
        cmocka_unit_test(test_hoist_kept_when_control_consumer),
        cmocka_unit_test(test_hoist_kept_when_inputs_repeat),
        cmocka_unit_test(test_hoist_kept_when_preserved),
        cmocka_unit_test(test_hoist_kept_when_dtype_changes),
        cmocka_unit_test(test_hoist_kept_when_relu_after_bias_add),
        cmocka_unit_test(test_hoist_split_kept_when_first_input_elsewhere),
        cmocka_unit_test(test_hoist_split_kept_when_too_many_edges),
        cmocka_unit_test(test_hoist_split_kept_when_control_output),
        cmocka_unit_test(test_hoist_split_kept_when_one_consumer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
