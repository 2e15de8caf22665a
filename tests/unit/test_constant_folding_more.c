/*
 * test_constant_folding_more.c - the constant-folding rules on v1 control
 * flow, TensorArrays, Case, variable updates and the ops added with them
 * (src/passes/constant_folding.c): SimplifySwitch, MoveConstantsPastEnter,
 * TensorArraySizeV3 materialization, SimplifyCase,
 * RemoveRedundantVariableUpdates, RemoveRandomShuffle, and the arithmetic
 * rules on MulNoNan, Xdivy and AccumulateNV2.
 *
 * As in test_constant_folding.c, each test builds a GraphDef, runs
 * "constfold" once with the verifier on, and compares the whole rewritten
 * graph printed as "name=Op(in,in:1,^ctrl); ..." in graph order; new
 * constants are checked by value, and each rule has negative tests named
 * *_kept_when_<reason>, one per blocking condition.
 */
#include "passtest.h"
#include "tensorflow/graph.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pt_opts CONSTFOLD = {.passes = "constfold", .iterations = 1};

static pt_run *run(tg_graph *tg) {
    return pt_pipeline(tg, &CONSTFOLD);
}

static void expect(tg_graph *g, const char *want, const char *rule, const char *node) {
    pt_expect(g, &CONSTFOLD, want, rule, node, true);
    tg_free(g);
}

static void expect_kept(tg_graph *g, const char *want, const char *rule) {
    pt_expect(g, &CONSTFOLD, want, rule, NULL, false);
    tg_free(g);
}

static const int64_t D23[] = {2, 3};
static const int64_t D13[] = {1, 3};
static const int64_t D3[] = {3};

/* A scalar placeholder (producer > 21: a scalar shape attr is a scalar). */
static tg_node *bool_ph(tg_graph *g, const char *name) {
    tg_producer(g, 1000);
    return tg_placeholder(g, name, BOOL, 0, NULL);
}

static tg_node *i32_scalar(tg_graph *g, const char *name, int64_t v) {
    return tg_const_int(g, name, I32, 0, NULL, (int64_t[]){v});
}

/* ------------------------------------------------------------------------- */
/* SimplifySwitch                                                             */
/* ------------------------------------------------------------------------- */

/* Switch(x, x) read by an Equal on each port. */
static tg_graph *switch_graph(bool same, int extra_consumers) {
    tg_graph *g = tg_new();
    bool_ph(g, "x");
    bool_ph(g, "y");
    pt_op2(g, "sw", "Switch", "x", same ? "x" : "y", BOOL);
    pt_op2(g, "a", "Equal", "sw", "y", BOOL);
    pt_op2(g, "b", "NotEqual", "sw:1", "y", BOOL);
    for (int i = 0; i < extra_consumers; i++) {
        pt_op2(g, "c", "LogicalAnd", "sw:1", "y", 0);
    }
    return g;
}

static void test_switch_same_input_to_constants(void **state) {
    (void)state;
    tg_graph *g = switch_graph(true, 0);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); y=Placeholder(); sw=Switch(x,x); "
                        "a=Equal(ConstantFolding/sw_const_false,y); "
                        "b=NotEqual(ConstantFolding/sw_const_true,y); "
                        "ConstantFolding/sw_const_false=Const(^ConstantFoldingCtrl/sw_0); "
                        "ConstantFolding/sw_const_true=Const(^ConstantFoldingCtrl/sw_1); "
                        "ConstantFoldingCtrl/sw_0=Identity(sw); "
                        "ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "SimplifySwitch", "sw"));
    assert_int_equal(pt_ci(p, "ConstantFolding/sw_const_false", 0), 0);
    assert_int_equal(pt_ci(p, "ConstantFolding/sw_const_true", 0), 1);
    pt_expect_shape(p, "ConstantFolding/sw_const_true", BOOL, 0);
    assert_int_equal(pt_attr_t(p, "ConstantFoldingCtrl/sw_0", "T"), BOOL);
    assert_int_equal(pt_attr_t(p, "ConstantFoldingCtrl/sw_1", "T"), BOOL);
    pt_free(p);
    tg_free(g);
}

static void test_switch_kept_when_inputs_differ(void **state) {
    (void)state;
    expect_kept(switch_graph(false, 0),
                "x=Placeholder(); y=Placeholder(); sw=Switch(x,y); a=Equal(sw,y); "
                "b=NotEqual(sw:1,y)",
                "SimplifySwitch");
}

/* Grappler's "already optimized" test passes unless the Switch has exactly
 * two consumer nodes: with three, nothing happens. */
static void test_switch_kept_when_three_consumers(void **state) {
    (void)state;
    expect_kept(switch_graph(true, 1),
                "x=Placeholder(); y=Placeholder(); sw=Switch(x,x); a=Equal(sw,y); "
                "b=NotEqual(sw:1,y); c=LogicalAnd(sw:1,y)",
                "SimplifySwitch");
}

/* Two Identities without data consumers: already optimized. */
static void test_switch_kept_when_already_optimized(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    bool_ph(g, "x");
    pt_op2(g, "sw", "Switch", "x", "x", BOOL);
    pt_op1(g, "i0", "Identity", "sw", BOOL);
    pt_op1(g, "i1", "Identity", "sw:1", BOOL);
    tg_add(g, "n", "NoOp", "^i0", "^i1", NULL);
    expect_kept(g,
                "x=Placeholder(); sw=Switch(x,x); i0=Identity(sw); i1=Identity(sw:1); "
                "n=NoOp(^i0,^i1)",
                "SimplifySwitch");
}

/* The same Identities with a data consumer: rewritten. */
static void test_switch_identities_with_data_consumer(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    bool_ph(g, "x");
    pt_op2(g, "sw", "Switch", "x", "x", BOOL);
    pt_op1(g, "i0", "Identity", "sw", BOOL);
    pt_op1(g, "i1", "Identity", "sw:1", BOOL);
    pt_op2(g, "n", "LogicalOr", "i0", "x", 0);
    tg_add(g, "z", "NoOp", "^i1", NULL);
    pt_run *p = run(g);
    assert_true(pt_fired(p, "SimplifySwitch", "sw"));
    pt_expect_node(p, "i0", "Const", NULL); /* Identity of a constant: folded */
    pt_expect_ctrl(p, "i0", "ConstantFoldingCtrl/sw_0", NULL);
    pt_free(p);
    tg_free(g);
}

static void test_switch_kept_when_constant_exists(void **state) {
    (void)state;
    tg_graph *g = switch_graph(true, 0);
    pt_ph(g, "ConstantFolding/sw_const_false", 1, D3);
    pt_op1(g, "r", "Relu", "ConstantFolding/sw_const_false", F32);
    expect_kept(g,
                "x=Placeholder(); y=Placeholder(); sw=Switch(x,x); a=Equal(sw,y); "
                "b=NotEqual(sw:1,y); ConstantFolding/sw_const_false=Placeholder(); "
                "r=Relu(ConstantFolding/sw_const_false)",
                "SimplifySwitch");
}

/* ------------------------------------------------------------------------- */
/* MoveConstantsPastEnter                                                     */
/* ------------------------------------------------------------------------- */

static tg_graph *enter_graph(int is_constant, bool const_input) {
    tg_graph *g = tg_new();
    if (const_input) {
        tg_const_f32(g, "c", 1, D3, (float[]){1, 2, 3}, 0);
    } else {
        pt_ph(g, "c", 1, D3);
    }
    pt_ph(g, "x", 1, D3);
    tg_node *e = pt_op1(g, "e", "Enter", "c", F32);
    tg_attr_str(e, "frame_name", "f");
    if (is_constant >= 0) {
        tg_attr_bool(e, "is_constant", is_constant);
    }
    tg_node *xe = pt_op1(g, "xe", "Enter", "x", F32);
    tg_attr_str(xe, "frame_name", "f");
    return g;
}

static void test_enter_constant_moved(void **state) {
    (void)state;
    tg_graph *g = enter_graph(1, true);
    pt_op2(g, "m", "Mul", "e", "xe", F32);
    pt_op2(g, "s", "Sub", "xe", "e", F32);
    pt_run *p = run(g);
    assert_string_equal(pt_dump(p), "c=Const(); x=Placeholder(); e=Enter(c); xe=Enter(x); "
                                    "m=Mul(ConstantFolding/c_enter,xe); "
                                    "s=Sub(xe,ConstantFolding/c_enter); "
                                    "ConstantFolding/c_enter=Const(^e)");
    assert_true(pt_fired(p, "MoveConstantsPastEnter", "e"));
    assert_true(pt_cf(p, "ConstantFolding/c_enter", 0) == 1.0 &&
                pt_cf(p, "ConstantFolding/c_enter", 2) == 3.0);
    pt_expect_shape(p, "ConstantFolding/c_enter", F32, 1, 3);
    pt_free(p);
    tg_free(g);
}

static void test_enter_kept_when_not_constant_frame(void **state) {
    (void)state;
    tg_graph *g = enter_graph(0, true);
    pt_op2(g, "m", "Mul", "e", "xe", F32);
    expect_kept(g, "c=Const(); x=Placeholder(); e=Enter(c); xe=Enter(x); m=Mul(e,xe)",
                "MoveConstantsPastEnter");
}

static void test_enter_kept_when_no_is_constant_attr(void **state) {
    (void)state;
    tg_graph *g = enter_graph(-1, true);
    pt_op2(g, "m", "Mul", "e", "xe", F32);
    expect_kept(g, "c=Const(); x=Placeholder(); e=Enter(c); xe=Enter(x); m=Mul(e,xe)",
                "MoveConstantsPastEnter");
}

static void test_enter_kept_when_input_not_const(void **state) {
    (void)state;
    tg_graph *g = enter_graph(1, false);
    pt_op2(g, "m", "Mul", "e", "xe", F32);
    expect_kept(g, "c=Placeholder(); x=Placeholder(); e=Enter(c); xe=Enter(x); m=Mul(e,xe)",
                "MoveConstantsPastEnter");
}

static void test_enter_kept_when_only_control_consumers(void **state) {
    (void)state;
    tg_graph *g = enter_graph(1, true);
    tg_attr_type(tg_add(g, "m", "Identity", "xe", "^e", NULL), "T", F32);
    pt_op1(g, "r", "Relu", "m", F32);
    expect_kept(g,
                "c=Const(); x=Placeholder(); e=Enter(c); xe=Enter(x); m=Identity(xe,^e); "
                "r=Relu(m)",
                "MoveConstantsPastEnter");
}

static void test_enter_kept_when_copy_exists(void **state) {
    (void)state;
    tg_graph *g = enter_graph(1, true);
    pt_op2(g, "m", "Mul", "e", "xe", F32);
    pt_ph(g, "ConstantFolding/c_enter", 1, D3);
    pt_op2(g, "q", "Mul", "ConstantFolding/c_enter", "x", F32);
    expect_kept(g,
                "c=Const(); x=Placeholder(); e=Enter(c); xe=Enter(x); m=Mul(e,xe); "
                "ConstantFolding/c_enter=Placeholder(); q=Mul(ConstantFolding/c_enter,x)",
                "MoveConstantsPastEnter");
}

/* ------------------------------------------------------------------------- */
/* TensorArraySizeV3                                                          */
/* ------------------------------------------------------------------------- */

/* ta = TensorArrayV3(size); sz = TensorArraySizeV3(ta, flow); out = sz + p. */
static tg_graph *ta_graph(const char *size_op, int64_t size, int dynamic, const char *flow) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    if (strcmp(size_op, "Const") == 0) {
        i32_scalar(g, "size", size);
    } else {
        tg_placeholder(g, "size", I32, 0, NULL);
    }
    tg_placeholder(g, "p", I32, 0, NULL);
    tg_node *ta = tg_add(g, "ta", "TensorArrayV3", "size", NULL);
    tg_attr_type(ta, "dtype", F32);
    if (dynamic >= 0) {
        tg_attr_bool(ta, "dynamic_size", dynamic);
    }
    tg_attr_shape(ta, "element_shape", 1, D3);
    if (flow && strcmp(flow, "sw:1") == 0) {
        bool_ph(g, "pred");
        pt_op2(g, "sw", "Switch", "ta:1", "pred", F32);
    }
    tg_add(g, "sz", "TensorArraySizeV3", "ta", flow ? flow : "ta:1", NULL);
    pt_op2(g, "out", "AddV2", "sz", "p", I32);
    return g;
}

static void test_ta_size_materialized(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ta_graph("Const", 5, 0, NULL), NULL, 0);
    assert_string_equal(pt_dump(p), "size=Const(); p=Placeholder(); ta=TensorArrayV3(size); "
                                    "sz=Const(^ta); out=AddV2(sz,p)");
    assert_true(pt_fired(p, "MaterializeShapes", "sz"));
    assert_int_equal(pt_ci(p, "sz", 0), 5);
    pt_expect_shape(p, "sz", I32, 0);
    assert_int_equal(pt_attr_t(p, "sz", "dtype"), I32);
    pt_free(p);
}

/* The flow comes from a Switch: its anchor, on port 0 (Grappler takes the
 * node name of the flow input). */
static void test_ta_size_flow_from_switch_anchored(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ta_graph("Const", 5, -1, "sw:1"), NULL, 0);
    assert_string_equal(pt_dump(p), "size=Const(); p=Placeholder(); ta=TensorArrayV3(size); "
                                    "pred=Placeholder(); sw=Switch(ta:1,pred); "
                                    "sz=Const(^ta,^ConstantFoldingCtrl/sw_0); out=AddV2(sz,p); "
                                    "ConstantFoldingCtrl/sw_0=Identity(sw)");
    assert_int_equal(pt_attr_t(p, "ConstantFoldingCtrl/sw_0", "T"), F32);
    assert_int_equal(pt_ci(p, "sz", 0), 5);
    pt_free(p);
}

static void test_ta_size_kept_when_dynamic(void **state) {
    (void)state;
    expect_kept(ta_graph("Const", 5, 1, NULL),
                "size=Const(); p=Placeholder(); ta=TensorArrayV3(size); "
                "sz=TensorArraySizeV3(ta,ta:1); out=AddV2(sz,p)",
                "MaterializeShapes");
}

static void test_ta_size_kept_when_zero(void **state) {
    (void)state;
    expect_kept(ta_graph("Const", 0, 0, NULL),
                "size=Const(); p=Placeholder(); ta=TensorArrayV3(size); "
                "sz=TensorArraySizeV3(ta,ta:1); out=AddV2(sz,p)",
                "MaterializeShapes");
}

static void test_ta_size_kept_when_size_not_const(void **state) {
    (void)state;
    expect_kept(ta_graph("Placeholder", 0, 0, NULL),
                "size=Placeholder(); p=Placeholder(); ta=TensorArrayV3(size); "
                "sz=TensorArraySizeV3(ta,ta:1); out=AddV2(sz,p)",
                "MaterializeShapes");
}

/* The handle through an Identity: its producer's input is no Const. */
static void test_ta_size_kept_when_handle_forwarded(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    i32_scalar(g, "size", 4);
    tg_placeholder(g, "p", I32, 0, NULL);
    tg_node *ta = tg_add(g, "ta", "TensorArrayV3", "size", NULL);
    tg_attr_type(ta, "dtype", F32);
    tg_attr_shape(ta, "element_shape", 1, D3);
    tg_add(g, "h", "Identity", "ta", NULL);
    tg_add(g, "sz", "TensorArraySizeV3", "h", "ta:1", NULL);
    pt_op2(g, "out", "AddV2", "sz", "p", I32);
    expect_kept(g,
                "size=Const(); p=Placeholder(); ta=TensorArrayV3(size); h=Identity(ta); "
                "sz=TensorArraySizeV3(h,ta:1); out=AddV2(sz,p)",
                "MaterializeShapes");
}

/* ------------------------------------------------------------------------- */
/* SimplifyCase                                                               */
/* ------------------------------------------------------------------------- */

/* Adds to node `name` of the packed graph the Case attrs: branches (the n
 * function names), output_shapes (n_shapes shapes [2,3]). Returns new bytes. */
static uint8_t *add_case_attrs(uint8_t *buf, size_t *len, const char *name, size_t n_branches,
                               size_t n_shapes) {
    Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, *len, buf);
    assert_non_null(gd);
    free(buf);
    Tensorflow__NodeDef *nd = NULL;
    for (size_t i = 0; i < gd->n_node; i++) {
        if (strcmp(gd->node[i]->name, name) == 0) {
            nd = gd->node[i];
        }
    }
    assert_non_null(nd);
    static Tensorflow__NameAttrList funcs[4];
    static Tensorflow__NameAttrList *fptr[4];
    static const char *fnames[4] = {"branch0", "branch1", "branch2", "branch3"};
    static Tensorflow__TensorShapeProto shp[4];
    static Tensorflow__TensorShapeProto *sptr[4];
    static Tensorflow__TensorShapeProto__Dim dims[2];
    static Tensorflow__TensorShapeProto__Dim *dptr[2];
    for (size_t i = 0; i < 2; i++) {
        tensorflow__tensor_shape_proto__dim__init(&dims[i]);
        dims[i].size = i == 0 ? 2 : 3;
        dptr[i] = &dims[i];
    }
    for (size_t i = 0; i < 4; i++) {
        tensorflow__name_attr_list__init(&funcs[i]);
        funcs[i].name = (char *)fnames[i];
        fptr[i] = &funcs[i];
        tensorflow__tensor_shape_proto__init(&shp[i]);
        shp[i].n_dim = 2;
        shp[i].dim = dptr;
        sptr[i] = &shp[i];
    }
    static Tensorflow__AttrValue__ListValue lb, ls;
    static Tensorflow__AttrValue vb, vs;
    static Tensorflow__NodeDef__AttrEntry eb, es;
    tensorflow__attr_value__list_value__init(&lb);
    lb.n_func = n_branches;
    lb.func = fptr;
    tensorflow__attr_value__list_value__init(&ls);
    ls.n_shape = n_shapes;
    ls.shape = sptr;
    tensorflow__attr_value__init(&vb);
    vb.value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    vb.list = &lb;
    tensorflow__attr_value__init(&vs);
    vs.value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    vs.list = &ls;
    tensorflow__node_def__attr_entry__init(&eb);
    eb.key = (char *)"branches";
    eb.value = &vb;
    tensorflow__node_def__attr_entry__init(&es);
    es.key = (char *)"output_shapes";
    es.value = &vs;
    Tensorflow__NodeDef__AttrEntry **attrs =
        calloc(nd->n_attr + 2, sizeof(Tensorflow__NodeDef__AttrEntry *));
    assert_non_null(attrs);
    memcpy(attrs, nd->attr, nd->n_attr * sizeof(*attrs));
    Tensorflow__NodeDef__AttrEntry **old = nd->attr;
    size_t n_old = nd->n_attr;
    attrs[n_old] = &eb;
    attrs[n_old + 1] = &es;
    nd->attr = attrs;
    nd->n_attr = n_old + 2;
    *len = tensorflow__graph_def__get_packed_size(gd);
    uint8_t *out = malloc(*len);
    assert_non_null(out);
    tensorflow__graph_def__pack(gd, out);
    nd->attr = old;
    nd->n_attr = n_old;
    free(attrs);
    tensorflow__graph_def__free_unpacked(gd, NULL);
    return out;
}

/* c = Case(idx, x) with Tout of n_out floats; y = Relu(c) (and c:1). */
static pt_run *case_run(bool idx_const, int64_t idx, size_t n_branches, int n_out, size_t n_shapes,
                        const char *const *outs, size_t n_outs) {
    tg_graph *g = tg_new();
    if (idx_const) {
        i32_scalar(g, "idx", idx);
    } else {
        tg_placeholder(g, "idx", I32, 0, NULL);
    }
    pt_ph(g, "x", 2, D23);
    tg_node *c = tg_add(g, "c", "Case", "idx", "x", NULL);
    tg_attr_types(c, "Tin", 1, (int[]){F32});
    tg_attr_types(c, "Tout", (size_t)n_out, (int[]){F32, F32});
    pt_op1(g, "y", "Relu", "c", F32);
    if (n_out > 1) {
        pt_op1(g, "y1", "Relu", "c:1", F32);
    }
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    tg_free(g);
    buf = add_case_attrs(buf, &len, "c", n_branches, n_shapes);
    pt_opts o = CONSTFOLD;
    o.outputs = outs;
    o.n_outputs = n_outs;
    pt_run *p = pt_pipeline_bytes(buf, len, &o);
    free(buf);
    return p;
}

static void test_case_constant_index_to_partitioned_call(void **state) {
    (void)state;
    pt_run *p = case_run(true, 0, 2, 1, 1, NULL, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); c=PartitionedCall(x); y=Relu(c)");
    assert_true(pt_fired(p, "SimplifyCase", "c"));
    const fl_node *c = pt_need(p, "c");
    const fl_attr *f = fl__node_attr(c, "f");
    assert_non_null(f);
    assert_int_equal(f->kind, FL_ATTR_FUNC);
    assert_string_equal(f->v.func.name, "branch0");
    assert_null(fl__node_attr(c, "branches"));
    assert_null(fl__node_attr(c, "output_shapes"));
    const fl_attr *os = fl__node_attr(c, "_output_shapes");
    assert_non_null(os);
    assert_int_equal(os->n, 1);
    assert_non_null(fl__node_attr(c, "Tout"));
    pt_expect_shape(p, "c", F32, 2, 2, 3);
    pt_free(p);
}

/* Branch 1 of a one-output Case with unknown output shapes (no
 * output_shapes entries): the index past the entries adds none. */
static void test_case_second_branch(void **state) {
    (void)state;
    pt_run *p = case_run(true, 1, 2, 1, 0, NULL, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); c=PartitionedCall(x); y=Relu(c)");
    const fl_attr *f = fl__node_attr(pt_need(p, "c"), "f");
    assert_non_null(f);
    assert_string_equal(f->v.func.name, "branch1");
    assert_null(fl__node_attr(pt_need(p, "c"), "_output_shapes"));
    pt_free(p);
}

static void test_case_kept_when_index_not_const(void **state) {
    (void)state;
    pt_run *p = case_run(false, 0, 2, 1, 1, NULL, 0);
    assert_string_equal(pt_dump(p), "idx=Placeholder(); x=Placeholder(); c=Case(idx,x); y=Relu(c)");
    assert_false(pt_fired(p, "SimplifyCase", NULL));
    pt_free(p);
}

static void test_case_kept_when_index_out_of_range(void **state) {
    (void)state;
    pt_run *p = case_run(true, 2, 2, 1, 1, NULL, 0);
    assert_string_equal(pt_dump(p), "idx=Const(); x=Placeholder(); c=Case(idx,x); y=Relu(c)");
    assert_false(pt_fired(p, "SimplifyCase", NULL));
    pt_free(p);
}

/* Branch 1 with a known output shape: Grappler would add no _output_shapes
 * entry (the index is past output_shapes' one entry); foldline cannot infer
 * through the function, so the rule does not fire. */
static void test_case_kept_when_shape_would_be_lost(void **state) {
    (void)state;
    pt_run *p = case_run(true, 1, 2, 1, 1, NULL, 0);
    assert_string_equal(pt_dump(p), "idx=Const(); x=Placeholder(); c=Case(idx,x); y=Relu(c)");
    assert_false(pt_fired(p, "SimplifyCase", NULL));
    pt_free(p);
}

static void test_case_kept_when_two_known_outputs(void **state) {
    (void)state;
    pt_run *p = case_run(true, 0, 2, 2, 2, NULL, 0);
    assert_string_equal(pt_dump(p), "idx=Const(); x=Placeholder(); c=Case(idx,x); y=Relu(c); "
                                    "y1=Relu(c:1)");
    assert_false(pt_fired(p, "SimplifyCase", NULL));
    pt_free(p);
}

static void test_case_kept_when_preserved(void **state) {
    (void)state;
    const char *outs[] = {"c", "y"};
    pt_run *p = case_run(true, 0, 2, 1, 1, outs, 2);
    assert_string_equal(pt_dump(p), "idx=Const(); x=Placeholder(); c=Case(idx,x); y=Relu(c)");
    assert_false(pt_fired(p, "SimplifyCase", NULL));
    pt_free(p);
}

/* ------------------------------------------------------------------------- */
/* RemoveRedundantVariableUpdates                                             */
/* ------------------------------------------------------------------------- */

/* v = VarHandleOp; u = op(v, value); r = ReadVariableOp(v, ^u). */
static tg_graph *resource_graph(const char *op, float value, bool handle_from_switch) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 1, D3);
    tg_const_f32_vals(g, "z", 1, D3, (float[]){value}, 1);
    const char *h = "v";
    if (handle_from_switch) {
        bool_ph(g, "pred");
        tg_node *sw = tg_add(g, "sw", "Switch", "v", "pred", NULL);
        tg_attr_type(sw, "T", 20); /* DT_RESOURCE */
        h = "sw:1";
    }
    tg_node *u = tg_add(g, "u", op, h, "z", NULL);
    tg_attr_type(u, "dtype", F32);
    tg_node *r = tg_add(g, "r", "ReadVariableOp", "v", "^u", NULL);
    tg_attr_type(r, "dtype", F32);
    return g;
}

static void test_assign_add_variable_by_zero_to_noop(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(resource_graph("AssignAddVariableOp", 0, false), NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); z=Const(); u=NoOp(^v,^z); "
                                    "r=ReadVariableOp(v,^u)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    assert_null(fl__node_attr(pt_need(p, "u"), "dtype"));
    pt_free(p);
}

static void test_assign_sub_variable_by_zero_anchored_on_switch(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(resource_graph("AssignSubVariableOp", 0, true), NULL, 0);
    assert_string_equal(pt_dump(p),
                        "v=VarHandleOp(); z=Const(); pred=Placeholder(); "
                        "sw=Switch(v,pred); u=NoOp(^ConstantFoldingCtrl/sw_1,^z); "
                        "r=ReadVariableOp(v,^u); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    pt_free(p);
}

/* A sink (preserved as a graph output): rewritten all the same. */
static void test_assign_add_variable_preserved_to_noop(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 1, D3);
    tg_add(g, "zl", "ZerosLike", "v", NULL);
    tg_const_f32_vals(g, "z", 1, D3, NULL, 0);
    tg_node *u = tg_add(g, "u", "AssignAddVariableOp", "v", "z", NULL);
    tg_attr_type(u, "dtype", F32);
    pt_run *p = run(g);
    pt_expect_node(p, "u", "NoOp", NULL);
    pt_expect_ctrl(p, "u", "v", "z", NULL);
    pt_free(p);
    tg_free(g);
}

static void test_assign_add_variable_kept_when_not_zero(void **state) {
    (void)state;
    expect_kept(resource_graph("AssignAddVariableOp", 1, false),
                "v=VarHandleOp(); z=Const(); u=AssignAddVariableOp(v,z); r=ReadVariableOp(v,^u)",
                "RemoveRedundantVariableUpdates");
}

/* var = VariableV2; a = op(var, value); y = Identity(a). */
static tg_graph *ref_graph(const char *op, const char *value_op) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 1, D3);
    if (strcmp(value_op, "Const") == 0) {
        tg_const_f32_vals(g, "z", 1, D3, NULL, 0);
    } else {
        pt_ph(g, "x", 1, D3);
        pt_op1(g, "z", value_op, "x", F32);
    }
    tg_node *a = tg_add(g, "a", op, "var", "z", NULL);
    tg_attr_type(a, "T", F32);
    pt_op1(g, "y", "Identity", "a", F32);
    return g;
}

static void test_assign_add_ref_by_zero_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("AssignAdd", "Const"), NULL, 0);
    assert_string_equal(pt_dump(p),
                        "var=VariableV2(); z=Const(); a=Identity(var,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    assert_int_equal(pt_attr_t(p, "a", "T"), F32);
    pt_expect_shape(p, "a", F32, 1, 3);
    pt_free(p);
}

/* ZerosLike counts as zeros (IsZeros). */
static void test_assign_sub_ref_by_zeros_like(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("AssignSub", "ZerosLike"), NULL, 0);
    pt_expect_node(p, "a", "Identity", "var", NULL);
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

static void test_assign_add_ref_kept_when_not_zero(void **state) {
    (void)state;
    expect_kept(ref_graph("AssignAdd", "Relu"),
                "var=VariableV2(); x=Placeholder(); z=Relu(x); a=AssignAdd(var,z); y=Identity(a)",
                "RemoveRedundantVariableUpdates");
}

static void test_assign_add_ref_kept_when_preserved(void **state) {
    (void)state;
    const char *outs[] = {"a", "y"};
    pt_run *p = pt_constfold_free(ref_graph("AssignAdd", "Const"), outs, 2);
    assert_string_equal(pt_dump(p),
                        "var=VariableV2(); z=Const(); a=AssignAdd(var,z); y=Identity(a)");
    assert_false(pt_fired(p, "RemoveRedundantVariableUpdates", NULL));
    pt_free(p);
}

/* ------------------------------------------------------------------------- */
/* RemoveRandomShuffle                                                        */
/* ------------------------------------------------------------------------- */

static tg_graph *shuffle_graph(int rank, const int64_t *dims) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_placeholder(g, "x", F32, rank, dims);
    pt_op1(g, "s", "RandomShuffle", "x", F32);
    pt_op1(g, "y", "Relu", "s", F32);
    return g;
}

static void test_random_shuffle_of_one_row(void **state) {
    (void)state;
    expect(shuffle_graph(2, D13), "x=Placeholder(); s=Identity(x); y=Relu(s)",
           "RemoveRandomShuffle", "s");
}

static void test_random_shuffle_of_scalar(void **state) {
    (void)state;
    expect(shuffle_graph(0, NULL), "x=Placeholder(); s=Identity(x); y=Relu(s)",
           "RemoveRandomShuffle", "s");
}

static void test_random_shuffle_kept_when_rows(void **state) {
    (void)state;
    expect_kept(shuffle_graph(2, D23), "x=Placeholder(); s=RandomShuffle(x); y=Relu(s)",
                "RemoveRandomShuffle");
}

static void test_random_shuffle_kept_when_dim0_unknown(void **state) {
    (void)state;
    expect_kept(shuffle_graph(2, (int64_t[]){-1, 3}),
                "x=Placeholder(); s=RandomShuffle(x); y=Relu(s)", "RemoveRandomShuffle");
}

static void test_random_shuffle_kept_when_rank_unknown(void **state) {
    (void)state;
    expect_kept(shuffle_graph(-1, NULL), "x=Placeholder(); s=RandomShuffle(x); y=Relu(s)",
                "RemoveRandomShuffle");
}

/* ------------------------------------------------------------------------- */
/* MulNoNan, Xdivy                                                            */
/* ------------------------------------------------------------------------- */

static tg_graph *bin_graph(const char *op, bool const_first, const float *k, int k_rank) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "k", k_rank, k_rank ? D3 : NULL, k, 0);
    pt_op2(g, "m", op, const_first ? "k" : "x", const_first ? "x" : "k", F32);
    pt_op2(g, "y", "Maximum", "m", "x", F32);
    return g;
}

static void test_mul_no_nan_by_one(void **state) {
    (void)state;
    expect(bin_graph("MulNoNan", false, (float[]){1}, 0),
           "x=Placeholder(); k=Const(); m=Identity(x,^k); y=Maximum(m,x)", "multiply_by_one", "m");
}

static void test_mul_no_nan_one_times(void **state) {
    (void)state;
    expect(bin_graph("MulNoNan", true, (float[]){1}, 0),
           "x=Placeholder(); k=Const(); m=Identity(x,^k); y=Maximum(m,x)", "multiply_by_one", "m");
}

static void test_mul_no_nan_by_zeros(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(bin_graph("MulNoNan", false, (float[]){0, 0, 0}, 1), NULL, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); k=Const(); m=Const(^x,^k); y=Maximum(m,x)");
    assert_true(pt_fired(p, "multiply_by_zero", "m"));
    pt_expect_shape(p, "m", F32, 2, 2, 3);
    for (int i = 0; i < 6; i++) {
        assert_true(pt_cf(p, "m", i) == 0.0);
    }
    pt_free(p);
}

static void test_mul_no_nan_kept_when_not_neutral(void **state) {
    (void)state;
    expect_kept(bin_graph("MulNoNan", false, (float[]){2}, 0),
                "x=Placeholder(); k=Const(); m=MulNoNan(x,k); y=Maximum(m,x)", "multiply_by_one");
}

static void test_xdivy_one_over_y_to_reciprocal(void **state) {
    (void)state;
    expect(bin_graph("Xdivy", true, (float[]){1}, 0),
           "x=Placeholder(); k=Const(); m=Reciprocal(x,^k); y=Maximum(m,x)",
           "ReplaceDivisionOfOnesByReciprocal", "m");
}

static void test_xdivy_by_one(void **state) {
    (void)state;
    expect(bin_graph("Xdivy", false, (float[]){1}, 0),
           "x=Placeholder(); k=Const(); m=Identity(x,^k); y=Maximum(m,x)", "multiply_by_one", "m");
}

static void test_xdivy_by_const_to_mul_no_nan(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(bin_graph("Xdivy", false, (float[]){2, 4, 0.5f}, 1), NULL, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); m=MulNoNan(ConstantFolding/m_recip,x); "
                                    "y=Maximum(m,x); ConstantFolding/m_recip=Const()");
    assert_true(pt_fired(p, "ReduceDivToReciprocalMul", "m"));
    assert_true(pt_cf(p, "ConstantFolding/m_recip", 0) == 0.5 &&
                pt_cf(p, "ConstantFolding/m_recip", 1) == 0.25 &&
                pt_cf(p, "ConstantFolding/m_recip", 2) == 2.0);
    pt_free(p);
}

/* 0 / y only in AGGRESSIVE mode; Xdivy(0, y) is left alone. */
static void test_xdivy_kept_when_zero_numerator(void **state) {
    (void)state;
    expect_kept(bin_graph("Xdivy", true, (float[]){0}, 0),
                "x=Placeholder(); k=Const(); m=Xdivy(k,x); y=Maximum(m,x)", "multiply_by_zero");
}

static void test_xdivy_kept_when_divisor_not_const(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "d", 2, D23);
    pt_op2(g, "m", "Xdivy", "x", "d", F32);
    pt_op1(g, "y", "Relu", "m", F32);
    expect_kept(g, "x=Placeholder(); d=Placeholder(); m=Xdivy(x,d); y=Relu(m)",
                "ReduceDivToReciprocalMul");
}

/* ------------------------------------------------------------------------- */
/* AccumulateNV2                                                              */
/* ------------------------------------------------------------------------- */

/* acc = AccumulateNV2 of the named inputs (a, b, c constants [3], x a
 * placeholder [3]), attr shape [3]. */
static tg_graph *acc_graph(int n, const char *const *in) {
    tg_graph *g = tg_new();
    static const float vals[3][3] = {{1, 2, 3}, {10, 20, 30}, {0.5f, 0.25f, 0.125f}};
    static const char *const names[3] = {"a", "b", "c"};
    for (int k = 0; k < 3; k++) {
        bool used = false;
        for (int i = 0; i < n; i++) {
            used = used || strcmp(in[i], names[k]) == 0;
        }
        if (used) {
            tg_const_f32(g, names[k], 1, D3, vals[k], 0);
        }
    }
    pt_ph(g, "x", 1, D3);
    tg_node *acc = tg_add(g, "acc", "AccumulateNV2", n > 0 ? in[0] : NULL, n > 1 ? in[1] : NULL,
                          n > 2 ? in[2] : NULL, NULL);
    tg_attr_type(acc, "T", F32);
    tg_attr_int(acc, "N", n);
    tg_attr_shape(acc, "shape", 1, D3);
    pt_op2(g, "y", "AddV2", "acc", "x", F32);
    return g;
}

static void test_accumulate_n_of_constants_to_add_n(void **state) {
    (void)state;
    const char *in[] = {"a", "b", "c"};
    pt_run *p = pt_constfold_free(acc_graph(3, in), NULL, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); acc=Const(); y=AddV2(acc,x)");
    assert_true(pt_fired(p, "PartialAssocOpConstFolding", "acc"));
    assert_true(pt_cf(p, "acc", 0) == 11.5 && pt_cf(p, "acc", 1) == 22.25 &&
                pt_cf(p, "acc", 2) == 33.125);
    pt_free(p);
}

static void test_accumulate_n_partial_split(void **state) {
    (void)state;
    const char *in[] = {"a", "x", "b"};
    pt_run *p = pt_constfold_free(acc_graph(3, in), NULL, 0);
    assert_string_equal(
        pt_dump(p), "x=Placeholder(); acc=AccumulateNV2(ConstantFolding/acc_partial_split_2,x); "
                    "y=AddV2(acc,x); ConstantFolding/acc_partial_split_2=Const()");
    assert_true(pt_fired(p, "PartialAssocOpConstFolding", "acc"));
    assert_int_equal(pt_attr_i(p, "acc", "N"), 2);
    assert_true(pt_cf(p, "ConstantFolding/acc_partial_split_2", 0) == 11.0 &&
                pt_cf(p, "ConstantFolding/acc_partial_split_2", 2) == 33.0);
    pt_free(p);
}

/* Two inputs: no split and no conversion; AccumulateNV2 is never folded. */
static void test_accumulate_n_kept_when_two_inputs(void **state) {
    (void)state;
    const char *in[] = {"a", "b"};
    expect_kept(acc_graph(2, in),
                "a=Const(); b=Const(); x=Placeholder(); acc=AccumulateNV2(a,b); "
                "y=AddV2(acc,x)",
                "PartialAssocOpConstFolding");
}

static void test_accumulate_n_kept_when_one_constant(void **state) {
    (void)state;
    const char *in[] = {"a", "x", "x"};
    expect_kept(acc_graph(3, in),
                "a=Const(); x=Placeholder(); acc=AccumulateNV2(a,x,x); "
                "y=AddV2(acc,x)",
                "PartialAssocOpConstFolding");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch_same_input_to_constants),
        cmocka_unit_test(test_switch_kept_when_inputs_differ),
        cmocka_unit_test(test_switch_kept_when_three_consumers),
        cmocka_unit_test(test_switch_kept_when_already_optimized),
        cmocka_unit_test(test_switch_identities_with_data_consumer),
        cmocka_unit_test(test_switch_kept_when_constant_exists),
        cmocka_unit_test(test_enter_constant_moved),
        cmocka_unit_test(test_enter_kept_when_not_constant_frame),
        cmocka_unit_test(test_enter_kept_when_no_is_constant_attr),
        cmocka_unit_test(test_enter_kept_when_input_not_const),
        cmocka_unit_test(test_enter_kept_when_only_control_consumers),
        cmocka_unit_test(test_enter_kept_when_copy_exists),
        cmocka_unit_test(test_ta_size_materialized),
        cmocka_unit_test(test_ta_size_flow_from_switch_anchored),
        cmocka_unit_test(test_ta_size_kept_when_dynamic),
        cmocka_unit_test(test_ta_size_kept_when_zero),
        cmocka_unit_test(test_ta_size_kept_when_size_not_const),
        cmocka_unit_test(test_ta_size_kept_when_handle_forwarded),
        cmocka_unit_test(test_case_constant_index_to_partitioned_call),
        cmocka_unit_test(test_case_second_branch),
        cmocka_unit_test(test_case_kept_when_index_not_const),
        cmocka_unit_test(test_case_kept_when_index_out_of_range),
        cmocka_unit_test(test_case_kept_when_shape_would_be_lost),
        cmocka_unit_test(test_case_kept_when_two_known_outputs),
        cmocka_unit_test(test_case_kept_when_preserved),
        cmocka_unit_test(test_assign_add_variable_by_zero_to_noop),
        cmocka_unit_test(test_assign_sub_variable_by_zero_anchored_on_switch),
        cmocka_unit_test(test_assign_add_variable_preserved_to_noop),
        cmocka_unit_test(test_assign_add_variable_kept_when_not_zero),
        cmocka_unit_test(test_assign_add_ref_by_zero_to_identity),
        cmocka_unit_test(test_assign_sub_ref_by_zeros_like),
        cmocka_unit_test(test_assign_add_ref_kept_when_not_zero),
        cmocka_unit_test(test_assign_add_ref_kept_when_preserved),
        cmocka_unit_test(test_random_shuffle_of_one_row),
        cmocka_unit_test(test_random_shuffle_of_scalar),
        cmocka_unit_test(test_random_shuffle_kept_when_rows),
        cmocka_unit_test(test_random_shuffle_kept_when_dim0_unknown),
        cmocka_unit_test(test_random_shuffle_kept_when_rank_unknown),
        cmocka_unit_test(test_mul_no_nan_by_one),
        cmocka_unit_test(test_mul_no_nan_one_times),
        cmocka_unit_test(test_mul_no_nan_by_zeros),
        cmocka_unit_test(test_mul_no_nan_kept_when_not_neutral),
        cmocka_unit_test(test_xdivy_one_over_y_to_reciprocal),
        cmocka_unit_test(test_xdivy_by_one),
        cmocka_unit_test(test_xdivy_by_const_to_mul_no_nan),
        cmocka_unit_test(test_xdivy_kept_when_zero_numerator),
        cmocka_unit_test(test_xdivy_kept_when_divisor_not_const),
        cmocka_unit_test(test_accumulate_n_of_constants_to_add_n),
        cmocka_unit_test(test_accumulate_n_partial_split),
        cmocka_unit_test(test_accumulate_n_kept_when_two_inputs),
        cmocka_unit_test(test_accumulate_n_kept_when_one_constant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
