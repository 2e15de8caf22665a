/*
 * test_constant_folding_scatter.c - the Scatter* / ResourceScatter* ops of
 * the core family (src/ops/core.c: shapes, FLOPs, flags, errors) and the
 * RemoveRedundantVariableUpdates cases they bring to constant folding
 * (src/passes/constant_folding.c): ScatterAdd/ScatterSub by zeros and
 * ScatterMul/ScatterDiv by ones -> Identity of the ref; the resource forms
 * -> NoOp.
 *
 * As in test_constant_folding_more.c, each rule test builds a GraphDef, runs
 * "constfold" once with the verifier on, and compares the whole rewritten
 * graph printed as "name=Op(in,in:1,^ctrl); ..."; negative tests are named
 * *_kept_when_<reason>, one per blocking condition.
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F32_REF = F32 + 100, RESOURCE = 20 };

static const pt_opts CONSTFOLD = {.passes = "constfold", .iterations = 1};

static void expect_kept(tg_graph *g, const char *want) {
    pt_expect(g, &CONSTFOLD, want, "RemoveRedundantVariableUpdates", NULL, false);
    tg_free(g);
}

static const int64_t D43[] = {4, 3};
static const int64_t D2[] = {2};
static const int64_t D23[] = {2, 3};

static tg_node *bool_ph(tg_graph *g, const char *name) {
    tg_producer(g, 1000);
    return tg_placeholder(g, name, BOOL, 0, NULL);
}

/* The updates input "z": a Const of [2, 3] all `value`, or op(x) for a
 * placeholder x when op is not "Const" (ZerosLike, OnesLike, Relu, Fill). */
static void add_updates(tg_graph *g, const char *op, float value) {
    if (strcmp(op, "Const") == 0) {
        tg_const_f32_vals(g, "z", 2, D23, (float[]){value}, 1);
    } else if (strcmp(op, "Fill") == 0) {
        tg_const_i32_vals(g, "dims", 1, D2, (int32_t[]){2, 3}, 2);
        tg_const_f32_vals(g, "k", 0, NULL, (float[]){value}, 1);
        pt_op2(g, "z", "Fill", "dims", "k", F32);
    } else {
        /* An unknown rank keeps ZerosLike/OnesLike from
         * being materialized as a Const. */
        tg_placeholder(g, "x", F32, -1, NULL);
        pt_op1(g, "z", op, "x", F32);
    }
}

/* var = VariableV2 [4, 3]; i = Const [2]; a = op(var, i, z); y = Identity(a). */
static tg_graph *ref_graph(const char *op, const char *updates_op, float value) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 1, D2, (int32_t[]){0, 2}, 2);
    add_updates(g, updates_op, value);
    tg_node *a = tg_add(g, "a", op, "var", "i", "z", NULL);
    tg_attr_type(a, "T", F32);
    tg_attr_type(a, "Tindices", I32);
    tg_attr_bool(a, "use_locking", 0);
    pt_op1(g, "y", "Identity", "a", F32);
    return g;
}

/* v = VarHandleOp [4, 3]; i = Const [2]; u = op(h, i, z); r =
 * ReadVariableOp(v, ^u); h is v, or port 1 of Switch(v, pred). */
static tg_graph *resource_graph(const char *op, const char *updates_op, float value,
                                bool handle_from_switch) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 1, D2, (int32_t[]){0, 2}, 2);
    add_updates(g, updates_op, value);
    const char *h = "v";
    if (handle_from_switch) {
        bool_ph(g, "pred");
        tg_node *sw = tg_add(g, "sw", "Switch", "v", "pred", NULL);
        tg_attr_type(sw, "T", RESOURCE);
        h = "sw:1";
    }
    tg_node *u = tg_add(g, "u", op, h, "i", "z", NULL);
    tg_attr_type(u, "dtype", F32);
    tg_attr_type(u, "Tindices", I32);
    tg_attr_str(u, "_class", "loc:@v");
    tg_node *r = tg_add(g, "r", "ReadVariableOp", "v", "^u", NULL);
    tg_attr_type(r, "dtype", F32);
    return g;
}

/* ------------------------------------------------------------------------- */
/* Ref forms -> Identity(ref)                                                 */
/* ------------------------------------------------------------------------- */

static void test_scatter_add_by_zeros_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterAdd", "Const", 0), NULL, 0);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); z=Const(); "
                                    "a=Identity(var,^i,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    /* ReplaceOperationWithIdentity: regular attrs dropped, T set. */
    fl_node *a = pt_need(p, "a");
    assert_int_equal(a->n_attrs, 1);
    assert_int_equal(pt_attr_t(p, "a", "T"), F32);
    pt_expect_shape(p, "a", F32, 2, 4, 3);
    pt_free(p);
}

/* ZerosLike counts as zeros (IsZeros). */
static void test_scatter_sub_by_zeros_like_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterSub", "ZerosLike", 0), NULL, 0);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); x=Placeholder(); "
                                    "z=ZerosLike(x); a=Identity(var,^i,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

/* Mul and Div updates by ones (IsOnes), Grappler's !is_add_or_sub case. */
static void test_scatter_mul_by_ones_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterMul", "Const", 1), NULL, 0);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); z=Const(); "
                                    "a=Identity(var,^i,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

static void test_scatter_div_by_ones_like_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterDiv", "OnesLike", 0), NULL, 0);
    pt_expect_node(p, "a", "Identity", "var", NULL);
    pt_expect_ctrl(p, "a", "i", "z", NULL);
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

/* Fill of a zero counts as zeros. */
static void test_scatter_add_by_fill_of_zero(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterAdd", "Fill", 0), NULL, 0);
    pt_expect_node(p, "a", "Identity", "var", NULL);
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

/* The node's own control inputs follow the ones made from its data inputs. */
static void test_scatter_add_keeps_control_inputs(void **state) {
    (void)state;
    tg_graph *g = ref_graph("ScatterAdd", "Const", 0);
    pt_ph(g, "c", 0, NULL);
    tg_node *a = tg_add(g, "a2", "ScatterAdd", "var", "i", "z", "^c", NULL);
    tg_attr_type(a, "T", F32);
    pt_op1(g, "y2", "Identity", "a2", F32);
    pt_run *p = pt_constfold_free(g, NULL, 0);
    pt_expect_node(p, "a2", "Identity", "var", NULL);
    pt_expect_ctrl(p, "a2", "i", "z", "c", NULL);
    pt_free(p);
}

/* Indices read from a Switch port: the control input goes through the
 * ConstantFoldingCtrl/<switch>_<port> anchor. */
static void test_scatter_add_indices_from_switch_anchored(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 1, D2, (int32_t[]){0, 2}, 2);
    bool_ph(g, "pred");
    pt_op2(g, "sw", "Switch", "i", "pred", I32);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_node *a = tg_add(g, "a", "ScatterAdd", "var", "sw:1", "z", NULL);
    tg_attr_type(a, "T", F32);
    pt_op1(g, "y", "Identity", "a", F32);
    pt_run *p = pt_constfold_free(g, NULL, 0);
    assert_string_equal(pt_dump(p),
                        "var=VariableV2(); i=Const(); pred=Placeholder(); sw=Switch(i,pred); "
                        "z=Const(); a=Identity(var,^ConstantFoldingCtrl/sw_1,^z); y=Identity(a); "
                        "ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_int_equal(pt_attr_t(p, "ConstantFoldingCtrl/sw_1", "T"), I32);
    pt_free(p);
}

static void test_scatter_add_kept_when_not_zeros(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterAdd", "Const", 1),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterAdd(var,i,z); y=Identity(a)");
}

static void test_scatter_sub_kept_when_not_constant(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterSub", "Relu", 0),
                "var=VariableV2(); i=Const(); x=Placeholder(); z=Relu(x); "
                "a=ScatterSub(var,i,z); y=Identity(a)");
}

/* Mul/Div need ones: zeros (and OnesLike for Add) do not count. */
static void test_scatter_mul_kept_when_zeros(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterMul", "Const", 0),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterMul(var,i,z); y=Identity(a)");
}

static void test_scatter_add_kept_when_ones_like(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterAdd", "OnesLike", 0),
                "var=VariableV2(); i=Const(); x=Placeholder(); z=OnesLike(x); "
                "a=ScatterAdd(var,i,z); y=Identity(a)");
}

/* Not in Grappler's list of variable updates. */
static void test_scatter_update_max_min_kept(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterUpdate", "Const", 0), "var=VariableV2(); i=Const(); z=Const(); "
                                                        "a=ScatterUpdate(var,i,z); y=Identity(a)");
    expect_kept(ref_graph("ScatterMax", "Const", 0),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterMax(var,i,z); y=Identity(a)");
    expect_kept(ref_graph("ScatterMin", "Const", 1),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterMin(var,i,z); y=Identity(a)");
}

/* A graph output is not rewritten (the deliberate difference of the header:
 * simplifications leave preserved nodes alone). */
static void test_scatter_add_kept_when_preserved(void **state) {
    (void)state;
    const char *outs[] = {"a", "y"};
    pt_run *p = pt_constfold_free(ref_graph("ScatterAdd", "Const", 0), outs, 2);
    assert_string_equal(pt_dump(p),
                        "var=VariableV2(); i=Const(); z=Const(); a=ScatterAdd(var,i,z); "
                        "y=Identity(a)");
    assert_false(pt_fired(p, "RemoveRedundantVariableUpdates", NULL));
    pt_free(p);
}

/* Without attr T there is no type for the Identity (Grappler's
 * ReplaceOperationWithIdentity returns on DT_INVALID; foldline needs T). */
static void test_scatter_add_kept_when_no_t(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 1, D2, (int32_t[]){0, 2}, 2);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_add(g, "a", "ScatterAdd", "var", "i", "z", NULL);
    pt_op1(g, "y", "Identity", "a", F32);
    expect_kept(g, "var=VariableV2(); i=Const(); z=Const(); a=ScatterAdd(var,i,z); y=Identity(a)");
}

/* ------------------------------------------------------------------------- */
/* Resource forms -> NoOp                                                     */
/* ------------------------------------------------------------------------- */

static void test_resource_scatter_add_by_zeros_to_noop(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(resource_graph("ResourceScatterAdd", "Const", 0, false), NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); z=Const(); "
                                    "u=NoOp(^v,^i,^z); r=ReadVariableOp(v,^u)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    /* ReplaceOperationWithNoOp: regular attrs dropped, '_' attrs kept. */
    assert_null(fl__node_attr(pt_need(p, "u"), "dtype"));
    assert_null(fl__node_attr(pt_need(p, "u"), "Tindices"));
    assert_string_equal(pt_attr_s(p, "u", "_class"), "loc:@v");
    pt_free(p);
}

static void test_resource_scatter_sub_by_zeros_like_to_noop(void **state) {
    (void)state;
    pt_run *p =
        pt_constfold_free(resource_graph("ResourceScatterSub", "ZerosLike", 0, false), NULL, 0);
    pt_expect_node(p, "u", "NoOp", NULL);
    pt_expect_ctrl(p, "u", "v", "i", "z", NULL);
    pt_free(p);
}

static void test_resource_scatter_mul_div_by_ones_to_noop(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(resource_graph("ResourceScatterMul", "Const", 1, false), NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); z=Const(); "
                                    "u=NoOp(^v,^i,^z); r=ReadVariableOp(v,^u)");
    pt_free(p);
    p = pt_constfold_free(resource_graph("ResourceScatterDiv", "Fill", 1, false), NULL, 0);
    pt_expect_node(p, "u", "NoOp", NULL);
    pt_expect_ctrl(p, "u", "v", "i", "z", NULL);
    pt_free(p);
}

static void test_resource_scatter_add_handle_from_switch_anchored(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(resource_graph("ResourceScatterAdd", "Const", 0, true), NULL, 0);
    assert_string_equal(pt_dump(p),
                        "v=VarHandleOp(); i=Const(); z=Const(); pred=Placeholder(); "
                        "sw=Switch(v,pred); u=NoOp(^ConstantFoldingCtrl/sw_1,^i,^z); "
                        "r=ReadVariableOp(v,^u); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    pt_free(p);
}

/* A sink (preserved as a graph output): rewritten all the same, as
 * Grappler's ReplaceOperationWithNoOp only needs no regular outputs. */
static void test_resource_scatter_add_preserved_to_noop(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 1, D2, (int32_t[]){0, 2}, 2);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_node *u = tg_add(g, "u", "ResourceScatterAdd", "v", "i", "z", NULL);
    tg_attr_type(u, "dtype", F32);
    pt_run *p = pt_constfold_free(g, NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); z=Const(); u=NoOp(^v,^i,^z)");
    pt_free(p);
}

static void test_resource_scatter_add_kept_when_not_zeros(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterAdd", "Const", 2, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterAdd(v,i,z); "
                "r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_sub_kept_when_not_constant(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterSub", "Relu", 0, false),
                "v=VarHandleOp(); i=Const(); x=Placeholder(); z=Relu(x); "
                "u=ResourceScatterSub(v,i,z); r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_div_kept_when_zeros(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterDiv", "Const", 0, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterDiv(v,i,z); "
                "r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_update_max_min_kept(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterUpdate", "Const", 0, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterUpdate(v,i,z); "
                "r=ReadVariableOp(v,^u)");
    expect_kept(resource_graph("ResourceScatterMax", "Const", 0, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterMax(v,i,z); "
                "r=ReadVariableOp(v,^u)");
    expect_kept(resource_graph("ResourceScatterMin", "Const", 1, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterMin(v,i,z); "
                "r=ReadVariableOp(v,^u)");
}

/* ------------------------------------------------------------------------- */
/* Registry: flags, shapes, FLOPs, errors                                     */
/* ------------------------------------------------------------------------- */

static const char *const REF_OPS[] = {"ScatterAdd", "ScatterSub", "ScatterMul",   "ScatterDiv",
                                      "ScatterMax", "ScatterMin", "ScatterUpdate"};
static const char *const RES_OPS[] = {
    "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",   "ResourceScatterDiv",
    "ResourceScatterMax", "ResourceScatterMin", "ResourceScatterUpdate"};

static void test_descriptors(void **state) {
    (void)state;
    for (size_t i = 0; i < 7; i++) {
        for (int res = 0; res < 2; res++) {
            const char *name = res ? RES_OPS[i] : REF_OPS[i];
            const struct fl_op_desc *d = fl__op_desc_of(fl__op_lookup(name));
            assert_non_null(d);
            assert_string_equal(d->name, name);
            assert_true(d->flags & FL_OPF_STATEFUL);
            assert_null(d->eval); /* never evaluated, so never folded */
            assert_non_null(d->cost);
            assert_int_equal(d->min_inputs, 3);
            assert_int_equal(d->max_inputs, 3);
            assert_int_equal(d->n_outputs, res ? 0 : 1);
        }
    }
}

/* var [5, 2, 3]; indices [2, 2]; updates [2, 2, 2, 3] (or a scalar). */
static tg_graph *shape_graph(const char *op, bool resource, bool scalar_updates) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    const int64_t dv[] = {5, 2, 3}, di[] = {2, 2}, du[] = {2, 2, 2, 3};
    tg_node *v = tg_add(g, "v", resource ? "VarHandleOp" : "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 3, dv);
    tg_placeholder(g, "i", I32, 2, di);
    tg_placeholder(g, "z", F32, scalar_updates ? 0 : 4, scalar_updates ? NULL : du);
    tg_node *u = tg_add(g, "u", op, "v", "i", "z", NULL);
    tg_attr_type(u, resource ? "dtype" : "T", F32);
    if (!resource) {
        pt_op1(g, "y", "Identity", "u", F32);
    }
    return g;
}

static void test_shapes_and_flops(void **state) {
    (void)state;
    for (size_t i = 0; i < 7; i++) {
        for (int res = 0; res < 2; res++) {
            for (int scalar = 0; scalar < 2; scalar++) {
                pt_run h;
                pt_load(&h, shape_graph(res ? RES_OPS[i] : REF_OPS[i], res, scalar));
                fl_node *u = pt_need(&h, "u");
                if (res) {
                    assert_int_equal(u->n_outputs, 0);
                } else {
                    /* output_ref: the ref itself. */
                    pt_expect_shape(&h, "u", F32_REF, 3, 5, 2, 3);
                }
                /* E(indices) * prod(var.shape[1:]) = 4 * 6; tfprof none. */
                pt_expect_cost(&h, "u", 24, 0, 0);
                pt_fini(&h);
            }
        }
    }
}

static fl_cost cost_of(pt_run *h, const char *name) {
    fl_node *n = pt_need(h, name);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&h->c, n, &c), FL_OK);
    return c;
}

/* An unknown variable shape: incomplete. */
static void test_flops_incomplete(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", -1, NULL);
    tg_node *w = tg_add(g, "w", "VariableV2", NULL);
    tg_attr_type(w, "dtype", F32);
    tg_attr_shape(w, "shape", 2, D43);
    tg_placeholder(g, "i", I32, 1, D2);
    tg_placeholder(g, "j", I32, 1, (int64_t[]){-1});
    tg_placeholder(g, "z", F32, 2, D23);
    tg_placeholder(g, "zj", F32, 2, (int64_t[]){-1, 3});
    tg_node *u = tg_add(g, "u", "ResourceScatterAdd", "v", "i", "z", NULL);
    tg_attr_type(u, "dtype", F32);
    tg_node *a = tg_add(g, "a", "ScatterSub", "w", "j", "zj", NULL);
    tg_attr_type(a, "T", F32);
    tg_node *x = tg_add(g, "x", "VariableV2", NULL);
    tg_attr_type(x, "dtype", F32);
    tg_attr_shape(x, "shape", -1, NULL);
    tg_node *b = tg_add(g, "b", "ScatterMax", "x", "i", "z", NULL);
    tg_attr_type(b, "T", F32);
    pt_run h;
    pt_load(&h, g);
    fl_cost c = cost_of(&h, "u");
    assert_true(c.has_rule && c.incomplete);
    /* A -1 dim of a placeholder is a symbol: 3 * j.0, complete. */
    c = cost_of(&h, "a");
    assert_true(c.has_rule && !c.incomplete && !fl_sym_is_known(c.flops));
    pt_expect_shape(&h, "a", F32_REF, 2, 4, 3);
    c = cost_of(&h, "b");
    assert_true(c.has_rule && c.incomplete);
    pt_fini(&h);
}

static void expect_error(tg_graph *g, const char *needle) {
    fl_options o;
    fl_options_init(&o);
    tg_expect_error(g, &o, FL_EINVAL, needle);
    tg_free(g);
}

/* A scalar variable: TensorFlow's Subshape(var, 1) fails. */
static void test_error_scalar_variable(void **state) {
    (void)state;
    for (int res = 0; res < 2; res++) {
        tg_graph *g = tg_new();
        tg_producer(g, 1000);
        tg_node *v = tg_add(g, "v", res ? "VarHandleOp" : "VariableV2", NULL);
        tg_attr_type(v, "dtype", F32);
        tg_attr_shape(v, "shape", 0, NULL);
        tg_placeholder(g, "i", I32, 1, D2);
        tg_placeholder(g, "z", F32, 0, NULL);
        tg_node *u = tg_add(g, "u", res ? "ResourceScatterAdd" : "ScatterAdd", "v", "i", "z", NULL);
        tg_attr_type(u, res ? "dtype" : "T", F32);
        expect_error(g, res ? "node 'u' (ResourceScatterAdd): the variable updated must have "
                              "rank >= 1, got a scalar"
                            : "node 'u' (ScatterAdd): the variable updated must have rank >= 1, "
                              "got a scalar");
    }
}

/* var [4, 3], indices [2]: updates must be [2, 3] (or a scalar). */
static tg_graph *bad_updates(const char *op, bool resource, int rank, const int64_t *dims) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_node *v = tg_add(g, "v", resource ? "VarHandleOp" : "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_placeholder(g, "i", I32, 1, D2);
    tg_placeholder(g, "z", F32, rank, dims);
    tg_node *u = tg_add(g, "u", op, "v", "i", "z", NULL);
    tg_attr_type(u, resource ? "dtype" : "T", F32);
    return g;
}

static void test_error_updates_shape(void **state) {
    (void)state;
    expect_error(bad_updates("ScatterMul", false, 1, (int64_t[]){3}),
                 "node 'u' (ScatterMul): input 'updates' has rank 1, expected 0 or 2 "
                 "(indices.shape + var.shape[1:])");
    expect_error(bad_updates("ScatterUpdate", false, 2, (int64_t[]){2, 4}),
                 "node 'u' (ScatterUpdate): dim 1 of 'updates' and of indices.shape + "
                 "var.shape[1:] disagree: 4 vs 3");
    expect_error(bad_updates("ResourceScatterMax", true, 2, (int64_t[]){3, 3}),
                 "node 'u' (ResourceScatterMax): dim 0 of 'updates' and of indices.shape + "
                 "var.shape[1:] disagree: 3 vs 2");
    /* Unknown dims merge. */
    pt_run h;
    pt_load(&h, bad_updates("ScatterAdd", false, 2, (int64_t[]){-1, 3}));
    pt_expect_cost(&h, "u", 6, 0, 0);
    pt_fini(&h);
}

/* attr dtype is required and must match the variable's (TensorFlow's
 * ValidateVariableResourceHandle). */
static void test_error_resource_dtype(void **state) {
    (void)state;
    tg_graph *g = bad_updates("ResourceScatterSub", true, 2, D23);
    tg_node *u = tg_add(g, "u2", "ResourceScatterSub", "v", "i", "z", NULL);
    (void)u;
    expect_error(g, "node 'u2' (ResourceScatterSub)");
    g = bad_updates("ResourceScatterAdd", true, 2, D23);
    tg_node *w = tg_add(g, "w", "ResourceScatterAdd", "v", "i", "z", NULL);
    tg_attr_type(w, "dtype", I32);
    expect_error(g, "node 'w' (ResourceScatterAdd): attr 'dtype' is int32 but variable 'v' "
                    "holds float");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scatter_add_by_zeros_to_identity),
        cmocka_unit_test(test_scatter_sub_by_zeros_like_to_identity),
        cmocka_unit_test(test_scatter_mul_by_ones_to_identity),
        cmocka_unit_test(test_scatter_div_by_ones_like_to_identity),
        cmocka_unit_test(test_scatter_add_by_fill_of_zero),
        cmocka_unit_test(test_scatter_add_keeps_control_inputs),
        cmocka_unit_test(test_scatter_add_indices_from_switch_anchored),
        cmocka_unit_test(test_scatter_add_kept_when_not_zeros),
        cmocka_unit_test(test_scatter_sub_kept_when_not_constant),
        cmocka_unit_test(test_scatter_mul_kept_when_zeros),
        cmocka_unit_test(test_scatter_add_kept_when_ones_like),
        cmocka_unit_test(test_scatter_update_max_min_kept),
        cmocka_unit_test(test_scatter_add_kept_when_preserved),
        cmocka_unit_test(test_scatter_add_kept_when_no_t),
        cmocka_unit_test(test_resource_scatter_add_by_zeros_to_noop),
        cmocka_unit_test(test_resource_scatter_sub_by_zeros_like_to_noop),
        cmocka_unit_test(test_resource_scatter_mul_div_by_ones_to_noop),
        cmocka_unit_test(test_resource_scatter_add_handle_from_switch_anchored),
        cmocka_unit_test(test_resource_scatter_add_preserved_to_noop),
        cmocka_unit_test(test_resource_scatter_add_kept_when_not_zeros),
        cmocka_unit_test(test_resource_scatter_sub_kept_when_not_constant),
        cmocka_unit_test(test_resource_scatter_div_kept_when_zeros),
        cmocka_unit_test(test_resource_scatter_update_max_min_kept),
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_shapes_and_flops),
        cmocka_unit_test(test_flops_incomplete),
        cmocka_unit_test(test_error_scalar_variable),
        cmocka_unit_test(test_error_updates_shape),
        cmocka_unit_test(test_error_resource_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
