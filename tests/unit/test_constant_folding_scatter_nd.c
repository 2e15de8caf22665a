/*
 * test_constant_folding_scatter_nd.c - the ScatterNd* / ResourceScatterNd*
 * ops of the core family (src/ops/core.c: shapes as TensorFlow's
 * ScatterNdUpdateShape, FLOPs, flags, errors) and the
 * RemoveRedundantVariableUpdates cases they bring to constant folding
 * (src/passes/constant_folding.c): ScatterNdAdd/ScatterNdSub by zeros ->
 * Identity of the ref; ResourceScatterNdAdd/ResourceScatterNdSub by zeros
 * -> NoOp. TensorFlow registers no ScatterNdMul/Div (Grappler's list names
 * them all the same), so no "by ones" case exists for this family.
 *
 * As in test_constant_folding_scatter.c, each rule test builds a GraphDef,
 * runs "constfold" once with the verifier on, and compares the whole
 * rewritten graph printed as "name=Op(in,in:1,^ctrl); ..."; negative tests
 * are named *_kept_when_<reason>, one per blocking condition.
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
static const int64_t D21[] = {2, 1};
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
        tg_const_i32_vals(g, "dims", 1, (int64_t[]){2}, (int32_t[]){2, 3}, 2);
        tg_const_f32_vals(g, "k", 0, NULL, (float[]){value}, 1);
        pt_op2(g, "z", "Fill", "dims", "k", F32);
    } else {
        /* An unknown rank keeps ZerosLike/OnesLike from being materialized
         * as a Const. */
        tg_placeholder(g, "x", F32, -1, NULL);
        pt_op1(g, "z", op, "x", F32);
    }
}

/* var = VariableV2 [4, 3]; i = Const [2, 1] (K = 1); a = op(var, i, z);
 * y = Identity(a). */
static tg_graph *ref_graph(const char *op, const char *updates_op, float value) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 2, D21, (int32_t[]){0, 2}, 2);
    add_updates(g, updates_op, value);
    tg_node *a = tg_add(g, "a", op, "var", "i", "z", NULL);
    tg_attr_type(a, "T", F32);
    tg_attr_type(a, "Tindices", I32);
    tg_attr_bool(a, "use_locking", 0);
    pt_op1(g, "y", "Identity", "a", F32);
    return g;
}

/* v = VarHandleOp [4, 3]; i = Const [2, 1]; u = op(h, i, z); r =
 * ReadVariableOp(v, ^u); h is v, or port 1 of Switch(v, pred). */
static tg_graph *resource_graph(const char *op, const char *updates_op, float value,
                                bool handle_from_switch) {
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 2, D21, (int32_t[]){0, 2}, 2);
    add_updates(g, updates_op, value);
    const char *h = "v";
    if (handle_from_switch) {
        bool_ph(g, "pred");
        tg_node *sw = tg_add(g, "sw", "Switch", "v", "pred", NULL);
        tg_attr_type(sw, "T", RESOURCE);
        h = "sw:1";
    }
    tg_node *u = tg_add(g, "u", op, h, "i", "z", NULL);
    tg_attr_type(u, "T", F32);
    tg_attr_type(u, "Tindices", I32);
    tg_attr_bool(u, "use_locking", 1);
    tg_attr_str(u, "_class", "loc:@v");
    tg_node *r = tg_add(g, "r", "ReadVariableOp", "v", "^u", NULL);
    tg_attr_type(r, "dtype", F32);
    return g;
}

/* ------------------------------------------------------------------------- */
/* Ref forms -> Identity(ref)                                                 */
/* ------------------------------------------------------------------------- */

static void test_scatter_nd_add_by_zeros_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterNdAdd", "Const", 0), NULL, 0);
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
static void test_scatter_nd_sub_by_zeros_like_to_identity(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterNdSub", "ZerosLike", 0), NULL, 0);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); x=Placeholder(); "
                                    "z=ZerosLike(x); a=Identity(var,^i,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

/* Fill of a zero counts as zeros. */
static void test_scatter_nd_add_by_fill_of_zero(void **state) {
    (void)state;
    pt_run *p = pt_constfold_free(ref_graph("ScatterNdAdd", "Fill", 0), NULL, 0);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); dims=Const(); k=Const(); "
                                    "z=Const(^dims,^k); a=Identity(var,^i,^z); y=Identity(a)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "a"));
    pt_free(p);
}

/* The node's own control inputs follow the ones made from its data inputs. */
static void test_scatter_nd_sub_keeps_control_inputs(void **state) {
    (void)state;
    tg_graph *g = ref_graph("ScatterNdSub", "Const", 0);
    pt_ph(g, "c", 0, NULL);
    tg_node *a = tg_add(g, "a2", "ScatterNdSub", "var", "i", "z", "^c", NULL);
    tg_attr_type(a, "T", F32);
    pt_op1(g, "y2", "Identity", "a2", F32);
    pt_run *p = pt_constfold_free(g, NULL, 0);
    pt_expect_node(p, "a2", "Identity", "var", NULL);
    pt_expect_ctrl(p, "a2", "i", "z", "c", NULL);
    pt_free(p);
}

/* Indices read from a Switch port: the control input goes through the
 * ConstantFoldingCtrl/<switch>_<port> anchor. */
static void test_scatter_nd_add_indices_from_switch_anchored(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 2, D21, (int32_t[]){0, 2}, 2);
    bool_ph(g, "pred");
    pt_op2(g, "sw", "Switch", "i", "pred", I32);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_node *a = tg_add(g, "a", "ScatterNdAdd", "var", "sw:1", "z", NULL);
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

static void test_scatter_nd_add_kept_when_not_zeros(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterNdAdd", "Const", 1),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterNdAdd(var,i,z); y=Identity(a)");
}

static void test_scatter_nd_sub_kept_when_not_constant(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterNdSub", "Relu", 0),
                "var=VariableV2(); i=Const(); x=Placeholder(); z=Relu(x); "
                "a=ScatterNdSub(var,i,z); y=Identity(a)");
}

/* Add/Sub need zeros: ones (OnesLike, a Const of ones) do not count. */
static void test_scatter_nd_add_kept_when_ones(void **state) {
    (void)state;
    expect_kept(ref_graph("ScatterNdAdd", "OnesLike", 0),
                "var=VariableV2(); i=Const(); x=Placeholder(); z=OnesLike(x); "
                "a=ScatterNdAdd(var,i,z); y=Identity(a)");
    expect_kept(ref_graph("ScatterNdSub", "Const", 1),
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterNdSub(var,i,z); y=Identity(a)");
}

/* Not in Grappler's list of variable updates, by zeros or by ones. */
static void test_scatter_nd_update_max_min_kept(void **state) {
    (void)state;
    static const char *const ops[] = {"ScatterNdUpdate", "ScatterNdMax", "ScatterNdMin"};
    for (size_t k = 0; k < 3; k++) {
        for (int one = 0; one < 2; one++) {
            char want[256];
            snprintf(want, sizeof want,
                     "var=VariableV2(); i=Const(); z=Const(); a=%s(var,i,z); y=Identity(a)",
                     ops[k]);
            expect_kept(ref_graph(ops[k], "Const", (float)one), want);
        }
    }
}

/* A graph output is not rewritten (simplifications leave preserved nodes
 * alone; the header's deliberate difference). */
static void test_scatter_nd_add_kept_when_preserved(void **state) {
    (void)state;
    const char *outs[] = {"a", "y"};
    pt_run *p = pt_constfold_free(ref_graph("ScatterNdAdd", "Const", 0), outs, 2);
    assert_string_equal(pt_dump(p), "var=VariableV2(); i=Const(); z=Const(); "
                                    "a=ScatterNdAdd(var,i,z); y=Identity(a)");
    assert_false(pt_fired(p, "RemoveRedundantVariableUpdates", NULL));
    pt_free(p);
}

/* Without attr T there is no type for the Identity. */
static void test_scatter_nd_add_kept_when_no_t(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "var", "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 2, D21, (int32_t[]){0, 2}, 2);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_add(g, "a", "ScatterNdAdd", "var", "i", "z", NULL);
    pt_op1(g, "y", "Identity", "a", F32);
    expect_kept(g,
                "var=VariableV2(); i=Const(); z=Const(); a=ScatterNdAdd(var,i,z); y=Identity(a)");
}

/* ------------------------------------------------------------------------- */
/* Resource forms -> NoOp                                                     */
/* ------------------------------------------------------------------------- */

static void test_resource_scatter_nd_add_by_zeros_to_noop(void **state) {
    (void)state;
    pt_run *p =
        pt_constfold_free(resource_graph("ResourceScatterNdAdd", "Const", 0, false), NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); z=Const(); "
                                    "u=NoOp(^v,^i,^z); r=ReadVariableOp(v,^u)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    /* ReplaceOperationWithNoOp: regular attrs dropped, '_' attrs kept. */
    fl_node *u = pt_need(p, "u");
    assert_null(fl__node_attr(u, "T"));
    assert_null(fl__node_attr(u, "Tindices"));
    assert_null(fl__node_attr(u, "use_locking"));
    assert_string_equal(pt_attr_s(p, "u", "_class"), "loc:@v");
    assert_int_equal(u->n_outputs, 0);
    pt_free(p);
}

static void test_resource_scatter_nd_sub_by_zeros_like_to_noop(void **state) {
    (void)state;
    pt_run *p =
        pt_constfold_free(resource_graph("ResourceScatterNdSub", "ZerosLike", 0, false), NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); x=Placeholder(); "
                                    "z=ZerosLike(x); u=NoOp(^v,^i,^z); r=ReadVariableOp(v,^u)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    pt_free(p);
}

static void test_resource_scatter_nd_add_handle_from_switch_anchored(void **state) {
    (void)state;
    pt_run *p =
        pt_constfold_free(resource_graph("ResourceScatterNdAdd", "Const", 0, true), NULL, 0);
    assert_string_equal(pt_dump(p),
                        "v=VarHandleOp(); i=Const(); z=Const(); pred=Placeholder(); "
                        "sw=Switch(v,pred); u=NoOp(^ConstantFoldingCtrl/sw_1,^i,^z); "
                        "r=ReadVariableOp(v,^u); ConstantFoldingCtrl/sw_1=Identity(sw:1)");
    assert_int_equal(pt_attr_t(p, "ConstantFoldingCtrl/sw_1", "T"), RESOURCE);
    pt_free(p);
}

/* A sink (preserved as a graph output): rewritten all the same, as
 * Grappler's ReplaceOperationWithNoOp only needs no regular outputs. */
static void test_resource_scatter_nd_sub_preserved_to_noop(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_node *v = tg_add(g, "v", "VarHandleOp", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", 2, D43);
    tg_const_i32_vals(g, "i", 2, D21, (int32_t[]){0, 2}, 2);
    tg_const_f32_vals(g, "z", 2, D23, NULL, 0);
    tg_node *u = tg_add(g, "u", "ResourceScatterNdSub", "v", "i", "z", NULL);
    tg_attr_type(u, "T", F32);
    pt_run *p = pt_constfold_free(g, NULL, 0);
    assert_string_equal(pt_dump(p), "v=VarHandleOp(); i=Const(); z=Const(); u=NoOp(^v,^i,^z)");
    assert_true(pt_fired(p, "RemoveRedundantVariableUpdates", "u"));
    pt_free(p);
}

static void test_resource_scatter_nd_add_kept_when_not_zeros(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterNdAdd", "Const", 2, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterNdAdd(v,i,z); "
                "r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_nd_sub_kept_when_not_constant(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterNdSub", "Relu", 0, false),
                "v=VarHandleOp(); i=Const(); x=Placeholder(); z=Relu(x); "
                "u=ResourceScatterNdSub(v,i,z); r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_nd_add_kept_when_ones(void **state) {
    (void)state;
    expect_kept(resource_graph("ResourceScatterNdAdd", "Const", 1, false),
                "v=VarHandleOp(); i=Const(); z=Const(); u=ResourceScatterNdAdd(v,i,z); "
                "r=ReadVariableOp(v,^u)");
}

static void test_resource_scatter_nd_update_max_min_kept(void **state) {
    (void)state;
    static const char *const ops[] = {"ResourceScatterNdUpdate", "ResourceScatterNdMax",
                                      "ResourceScatterNdMin"};
    for (size_t k = 0; k < 3; k++) {
        for (int one = 0; one < 2; one++) {
            char want[256];
            snprintf(want, sizeof want,
                     "v=VarHandleOp(); i=Const(); z=Const(); u=%s(v,i,z); "
                     "r=ReadVariableOp(v,^u)",
                     ops[k]);
            expect_kept(resource_graph(ops[k], "Const", (float)one, false), want);
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Registry: names, flags, shapes, FLOPs, errors                              */
/* ------------------------------------------------------------------------- */

static const char *const REF_OPS[] = {"ScatterNdAdd", "ScatterNdSub", "ScatterNdMax",
                                      "ScatterNdMin", "ScatterNdUpdate"};
static const char *const RES_OPS[] = {"ResourceScatterNdAdd", "ResourceScatterNdSub",
                                      "ResourceScatterNdMax", "ResourceScatterNdMin",
                                      "ResourceScatterNdUpdate"};

static void test_descriptors(void **state) {
    (void)state;
    for (size_t i = 0; i < 5; i++) {
        for (int res = 0; res < 2; res++) {
            const char *name = res ? RES_OPS[i] : REF_OPS[i];
            const struct fl_op_desc *d = fl__op_desc_of(fl__op_lookup(name));
            assert_non_null(d);
            assert_string_equal(d->name, name);
            assert_string_equal(fl__op_name(fl__op_lookup(name)), name);
            assert_true(d->flags & FL_OPF_STATEFUL);
            assert_null(d->eval); /* never evaluated, so never folded */
            assert_non_null(d->infer);
            assert_non_null(d->cost);
            assert_int_equal(d->min_inputs, 3);
            assert_int_equal(d->max_inputs, 3);
            assert_int_equal(d->n_outputs, res ? 0 : 1);
        }
    }
    /* Grappler lists them, TensorFlow registers no such ops. */
    assert_int_equal(fl__op_lookup("ScatterNdMul"), FL_OP_UNKNOWN);
    assert_int_equal(fl__op_lookup("ScatterNdDiv"), FL_OP_UNKNOWN);
    assert_int_equal(fl__op_lookup("ResourceScatterNdMul"), FL_OP_UNKNOWN);
    assert_int_equal(fl__op_lookup("ResourceScatterNdDiv"), FL_OP_UNKNOWN);
}

/* var of shape `dv` (rank -1: unknown); indices and updates placeholders. */
static tg_graph *shape_graph(const char *op, bool resource, int rv, const int64_t *dv, int ri,
                             const int64_t *di, int ru, const int64_t *du) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_node *v = tg_add(g, "v", resource ? "VarHandleOp" : "VariableV2", NULL);
    tg_attr_type(v, "dtype", F32);
    tg_attr_shape(v, "shape", rv, dv);
    tg_placeholder(g, "i", I32, ri, di);
    tg_placeholder(g, "z", F32, ru, du);
    tg_node *u = tg_add(g, "u", op, "v", "i", "z", NULL);
    tg_attr_type(u, "T", F32);
    if (!resource) {
        pt_op1(g, "y", "Identity", "u", F32);
    }
    return g;
}

static const int64_t V523[] = {5, 2, 3};

/* var [5, 2, 3]: K = 1, 2, 3 and two outer dims; FLOPs = E(updates). */
static void test_shapes_and_flops(void **state) {
    (void)state;
    struct {
        int ri;
        int64_t di[3];
        int ru;
        int64_t du[4];
        int64_t flops;
    } cases[] = {
        {2, {4, 1}, 3, {4, 2, 3}, 24},       /* indices.shape[:-1] + [2, 3] */
        {2, {4, 2}, 2, {4, 3}, 12},          /* + [3] */
        {2, {4, 3}, 1, {4}, 4},              /* + [] */
        {3, {2, 2, 1}, 4, {2, 2, 2, 3}, 24}, /* two outer dims */
        {1, {2}, 1, {3}, 3},                 /* a single index: [] + [3] */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t i = 0; i < 5; i++) {
            for (int res = 0; res < 2; res++) {
                pt_run h;
                pt_load(&h, shape_graph(res ? RES_OPS[i] : REF_OPS[i], res, 3, V523, cases[c].ri,
                                        cases[c].di, cases[c].ru, cases[c].du));
                fl_node *u = pt_need(&h, "u");
                if (res) {
                    assert_int_equal(u->n_outputs, 0);
                } else {
                    /* output_ref: the ref itself. */
                    pt_expect_shape(&h, "u", F32_REF, 3, 5, 2, 3);
                }
                pt_expect_cost(&h, "u", cases[c].flops, 0, 0);
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

/* Unknown dims of updates merge with indices.shape[:-1] + var.shape[K:]
 * before counting; what stays unknown makes the count incomplete. */
static void test_flops_merged_and_incomplete(void **state) {
    (void)state;
    /* updates [?, 3] against [4] + [3]: 12, complete. */
    pt_run h;
    pt_load(&h, shape_graph("ScatterNdSub", false, 3, V523, 2, (int64_t[]){4, 2}, 2,
                            (int64_t[]){-1, 3}));
    pt_expect_cost(&h, "u", 12, 0, 0);
    pt_fini(&h);
    /* The same through a resource handle. */
    pt_load(&h, shape_graph("ResourceScatterNdMax", true, 3, V523, 2, (int64_t[]){4, 2}, 2,
                            (int64_t[]){-1, 3}));
    pt_expect_cost(&h, "u", 12, 0, 0);
    pt_fini(&h);
    /* An unknown variable: only the prefix is known; updates [4, 7]. */
    pt_load(&h, shape_graph("ResourceScatterNdAdd", true, -1, NULL, 2, (int64_t[]){4, 2}, 2,
                            (int64_t[]){4, 7}));
    pt_expect_cost(&h, "u", 28, 0, 0);
    pt_fini(&h);
    /* Unknown rank of updates: incomplete. */
    pt_load(&h, shape_graph("ScatterNdUpdate", false, 3, V523, 2, (int64_t[]){4, 2}, -1, NULL));
    fl_cost c = cost_of(&h, "u");
    assert_true(c.has_rule && c.incomplete);
    pt_fini(&h);
    /* An unknown K leaves the unknown dim of updates unknown. */
    pt_load(&h, shape_graph("ScatterNdAdd", false, 3, V523, 2, (int64_t[]){4, -1}, 2,
                            (int64_t[]){-1, 3}));
    c = cost_of(&h, "u");
    assert_true(c.has_rule && !c.incomplete && !fl_sym_is_known(c.flops));
    pt_fini(&h);
    /* K past the variable's rank: an empty suffix (TensorFlow's Subshape
     * clamps); updates [2]. */
    pt_load(&h,
            shape_graph("ScatterNdMin", false, 2, D43, 2, (int64_t[]){2, 3}, 1, (int64_t[]){2}));
    pt_expect_cost(&h, "u", 2, 0, 0);
    pt_fini(&h);
}

static void expect_error(tg_graph *g, const char *needle) {
    fl_options o;
    fl_options_init(&o);
    tg_expect_error(g, &o, FL_EINVAL, needle);
    tg_free(g);
}

static void test_error_scalar_indices_or_updates(void **state) {
    (void)state;
    expect_error(shape_graph("ScatterNdAdd", false, 3, V523, 0, NULL, 1, (int64_t[]){3}),
                 "node 'u' (ScatterNdAdd): input 'indices' must have rank >= 1, got a scalar");
    expect_error(
        shape_graph("ResourceScatterNdUpdate", true, 3, V523, 2, (int64_t[]){4, 3}, 0, NULL),
        "node 'u' (ResourceScatterNdUpdate): input 'updates' must have rank >= 1, "
        "got a scalar");
}

static void test_error_empty_variable(void **state) {
    (void)state;
    expect_error(shape_graph("ScatterNdSub", false, 2, (int64_t[]){0, 3}, 2, (int64_t[]){2, 1}, 2,
                             (int64_t[]){2, 3}),
                 "node 'u' (ScatterNdSub): indices and updates given for a variable of 0 "
                 "elements");
    /* Nothing given for it: fine (FLOPs 0). */
    pt_run h;
    pt_load(&h, shape_graph("ScatterNdSub", false, 2, (int64_t[]){0, 3}, 2, (int64_t[]){0, 1}, 2,
                            (int64_t[]){0, 3}));
    pt_expect_cost(&h, "u", 0, 0, 0);
    pt_fini(&h);
}

static void test_error_updates_shape(void **state) {
    (void)state;
    expect_error(
        shape_graph("ScatterNdMax", false, 3, V523, 2, (int64_t[]){4, 2}, 3, (int64_t[]){4, 3, 1}),
        "node 'u' (ScatterNdMax): input 'updates' has rank 3, expected 2 "
        "(indices.shape[:-1] + var.shape[K:], K = 2)");
    expect_error(shape_graph("ResourceScatterNdAdd", true, -1, NULL, 3, (int64_t[]){2, 2, 1}, 1,
                             (int64_t[]){2}),
                 "node 'u' (ResourceScatterNdAdd): input 'updates' has rank 1, expected at "
                 "least 2 (indices.shape[:-1] + var.shape[K:], K = 1)");
    expect_error(
        shape_graph("ScatterNdUpdate", false, 3, V523, 2, (int64_t[]){4, 2}, 2, (int64_t[]){5, 3}),
        "node 'u' (ScatterNdUpdate): dim 0 of 'updates' and of indices.shape[:-1] + "
        "var.shape[K:] (K = 2) disagree: 5 vs 4");
    expect_error(shape_graph("ResourceScatterNdMin", true, 3, V523, 2, (int64_t[]){4, 2}, 2,
                             (int64_t[]){4, 2}),
                 "node 'u' (ResourceScatterNdMin): dim 1 of 'updates' and of indices.shape[:-1] "
                 "+ var.shape[K:] (K = 2) disagree: 2 vs 3");
}

/* The resource forms need attr T; ScatterNdUpdateShape does not compare it
 * with the variable's dtype. */
static void test_resource_attr_t(void **state) {
    (void)state;
    tg_graph *g = shape_graph("ResourceScatterNdSub", true, 3, V523, 2, (int64_t[]){4, 2}, 2,
                              (int64_t[]){4, 3});
    tg_add(g, "u2", "ResourceScatterNdSub", "v", "i", "z", NULL);
    expect_error(g, "node 'u2' (ResourceScatterNdSub)");
    g = shape_graph("ResourceScatterNdAdd", true, 3, V523, 2, (int64_t[]){4, 2}, 2,
                    (int64_t[]){4, 3});
    tg_attr_type(tg_add(g, "w", "ResourceScatterNdAdd", "v", "i", "z", NULL), "T", I32);
    pt_run h;
    pt_load(&h, g);
    pt_expect_cost(&h, "w", 12, 0, 0);
    pt_fini(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scatter_nd_add_by_zeros_to_identity),
        cmocka_unit_test(test_scatter_nd_sub_by_zeros_like_to_identity),
        cmocka_unit_test(test_scatter_nd_add_by_fill_of_zero),
        cmocka_unit_test(test_scatter_nd_sub_keeps_control_inputs),
        cmocka_unit_test(test_scatter_nd_add_indices_from_switch_anchored),
        cmocka_unit_test(test_scatter_nd_add_kept_when_not_zeros),
        cmocka_unit_test(test_scatter_nd_sub_kept_when_not_constant),
        cmocka_unit_test(test_scatter_nd_add_kept_when_ones),
        cmocka_unit_test(test_scatter_nd_update_max_min_kept),
        cmocka_unit_test(test_scatter_nd_add_kept_when_preserved),
        cmocka_unit_test(test_scatter_nd_add_kept_when_no_t),
        cmocka_unit_test(test_resource_scatter_nd_add_by_zeros_to_noop),
        cmocka_unit_test(test_resource_scatter_nd_sub_by_zeros_like_to_noop),
        cmocka_unit_test(test_resource_scatter_nd_add_handle_from_switch_anchored),
        cmocka_unit_test(test_resource_scatter_nd_sub_preserved_to_noop),
        cmocka_unit_test(test_resource_scatter_nd_add_kept_when_not_zeros),
        cmocka_unit_test(test_resource_scatter_nd_sub_kept_when_not_constant),
        cmocka_unit_test(test_resource_scatter_nd_add_kept_when_ones),
        cmocka_unit_test(test_resource_scatter_nd_update_max_min_kept),
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_shapes_and_flops),
        cmocka_unit_test(test_flops_merged_and_incomplete),
        cmocka_unit_test(test_error_scalar_indices_or_updates),
        cmocka_unit_test(test_error_empty_variable),
        cmocka_unit_test(test_error_updates_shape),
        cmocka_unit_test(test_resource_attr_t),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
