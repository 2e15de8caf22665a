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
#include "cost/cost.h"
#include "import/import.h"
#include "passes/pass.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct harness {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_ledger led;
    fl_pass_options opt;
    fl_pass_ctx pc;
} harness;

static void h_analyse(harness *h) {
    fl_options o;
    fl_options_init(&o);
    fl_infer_result ir = {0, 0};
    fl_cost_totals t;
    if (fl_infer_shapes(&h->c, &o, &ir) != FL_OK) {
        fail_msg("inference: %s", h->d.msg);
    }
    if (fl_cost_graph(&h->c, &t) != FL_OK) {
        fail_msg("costing: %s", h->d.msg);
    }
}

/* Packs and imports tg into h, analyses it, preserves nodes without
 * consumers. */
static void h_load(harness *h, tg_graph *tg) {
    memset(h, 0, sizeof(*h));
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    tg_free(tg);
    fl_arena_init(&h->arena, (size_t)2 << 30);
    fl_diag_init(&h->d, &h->arena);
    h->g = fl_graph_new(&h->arena);
    assert_non_null(h->g);
    h->c = (fl_ctx){h->g, h->g->syms, &h->arena, &h->d, 1 << 20};
    fl_import_opts io = {5000000, 1 << 20, NULL};
    fl_status st = fl_import_graphdef(h->g, bytes, len, &io, &h->d);
    free(bytes);
    if (st == FL_OK) {
        st = fl_graph_toposort(h->g, &h->d);
    }
    if (st != FL_OK) {
        fail_msg("load: %s", h->d.msg ? h->d.msg : "?");
    }
    h_analyse(h);
    for (size_t i = 0; i < h->g->n_nodes; i++) {
        fl_node *n = h->g->nodes[i];
        bool used = n->n_ctrl_consumers > 0;
        for (int p = 0; p < n->n_outputs; p++) {
            used |= n->outputs[p].n_consumers > 0;
        }
        if (!used) {
            n->flags |= FL_NODE_PRESERVE;
        }
    }
    h->led.arena = &h->arena;
}

/* Runs pass `fn` once, then re-sorts, verifies, re-infers and re-costs. */
static void h_pass(harness *h, fl_pass_fn fn, const char *name, fl_remapper_mode mode) {
    h->opt.device = FL_DEVICE_CPU;
    h->opt.remapper_mode = mode;
    h->opt.max_folded_bytes = 100 * 1024;
    h->opt.iterations = 1;
    h->pc = (fl_pass_ctx){&h->c, &h->opt, &h->led, name, 0, 0, 0};
    if (!h->g->order) {
        assert_int_equal(fl_graph_toposort(h->g, &h->d), FL_OK);
    }
    fl_status st = fn(&h->pc);
    if (st != FL_OK) {
        fail_msg("%s failed: %s", name, h->d.msg ? h->d.msg : "?");
    }
    assert_int_equal(fl_graph_compact(h->g, &h->d), FL_OK);
    assert_int_equal(fl_graph_toposort(h->g, &h->d), FL_OK);
    if (fl_graph_verify(h->g, &h->d) != FL_OK) {
        fail_msg("verify: %s", h->d.msg);
    }
    h_analyse(h);
}

static void h_remap(harness *h, fl_remapper_mode mode) {
    h_pass(h, fl_pass_remapper, "remapper", mode);
}

static void h_free(harness *h) {
    fl_arena_free(&h->arena);
}

/* ------------------------------------------------------------------------- */
/* Assertions                                                                 */
/* ------------------------------------------------------------------------- */

static fl_node *need(harness *h, const char *name) {
    fl_node *n = fl_graph_find(h->g, name);
    if (!n) {
        fail_msg("node '%s' missing", name);
    }
    return n;
}

static void absent(harness *h, const char *name) {
    if (fl_graph_find(h->g, name)) {
        fail_msg("node '%s' should be gone", name);
    }
}

/* n has op `op` and the NULL-terminated data inputs ("x" or "x:1"). */
static void expect_node(harness *h, const char *name, const char *op, ...) {
    fl_node *n = need(h, name);
    if (strcmp(n->op, op) != 0) {
        fail_msg("node '%s' is %s, want %s", name, n->op, op);
    }
    va_list ap;
    va_start(ap, op);
    int i = 0;
    for (const char *in; (in = va_arg(ap, const char *)) != NULL; i++) {
        if (i >= n->n_inputs) {
            fail_msg("node '%s' has %d inputs, want more", name, n->n_inputs);
        }
        char buf[512];
        if (n->inputs[i].port) {
            snprintf(buf, sizeof buf, "%s:%d", n->inputs[i].node->name, n->inputs[i].port);
        } else {
            snprintf(buf, sizeof buf, "%s", n->inputs[i].node->name);
        }
        if (strcmp(buf, in) != 0) {
            fail_msg("node '%s' input %d is %s, want %s", name, i, buf, in);
        }
    }
    va_end(ap);
    assert_int_equal(n->n_inputs, i);
}

/* n's control inputs are exactly the NULL-terminated names, in order. */
static void expect_ctrl(harness *h, const char *name, ...) {
    fl_node *n = need(h, name);
    va_list ap;
    va_start(ap, name);
    int i = 0;
    for (const char *in; (in = va_arg(ap, const char *)) != NULL; i++) {
        if (i >= n->n_ctrl) {
            fail_msg("node '%s' has %d control inputs, want more", name, n->n_ctrl);
        }
        if (strcmp(n->ctrl[i]->name, in) != 0) {
            fail_msg("node '%s' control input %d is %s, want %s", name, i, n->ctrl[i]->name, in);
        }
    }
    va_end(ap);
    if (n->n_ctrl != i) {
        fail_msg("node '%s' has %d control inputs, want %d", name, n->n_ctrl, i);
    }
}

static void expect_strs(harness *h, const char *name, const char *attr, size_t n, ...) {
    const fl_attr *a = fl_node_attr(need(h, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_LIST);
    assert_int_equal(a->n, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(a->v.list.s[i].p, va_arg(ap, const char *));
    }
    va_end(ap);
}

static void expect_ints(harness *h, const char *name, const char *attr, size_t n, ...) {
    const fl_attr *a = fl_node_attr(need(h, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_LIST);
    assert_int_equal(a->n, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a->v.list.i[i], va_arg(ap, int));
    }
    va_end(ap);
}

static int64_t attr_i(harness *h, const char *name, const char *attr) {
    const fl_attr *a = fl_node_attr(need(h, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_I);
    return a->v.i;
}

static float attr_f(harness *h, const char *name, const char *attr) {
    const fl_attr *a = fl_node_attr(need(h, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_F);
    return a->v.f;
}

static int attr_t(harness *h, const char *name, const char *attr) {
    const fl_attr *a = fl_node_attr(need(h, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_TYPE);
    return a->v.type;
}

/* Output 0 of `name` has dtype dt and exactly the given known dims. */
static void expect_shape(harness *h, const char *name, int dt, int rank, ...) {
    const fl_tensor *t = &need(h, name)->outputs[0];
    assert_int_equal(t->dtype, dt);
    assert_int_equal(t->shape.rank, rank);
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        int64_t want = va_arg(ap, int);
        if (!fl_sym_is_known(t->shape.dims[i]) || t->shape.dims[i].k != want) {
            fail_msg("node '%s' dim %d is not %lld", name, i, (long long)want);
        }
    }
    va_end(ap);
}

/* The cost of `name`: a rule, complete, with these known counts. */
static void expect_cost(harness *h, const char *name, int64_t flops, int64_t tfprof, int64_t macs) {
    fl_node *n = need(h, name);
    assert_non_null(n->desc);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&h->c, n, &c), FL_OK);
    assert_true(c.has_rule);
    assert_false(c.incomplete);
    assert_true(fl_sym_is_known(c.flops) && fl_sym_is_known(c.tfprof_flops) &&
                fl_sym_is_known(c.macs));
    if (c.flops.k != flops || c.tfprof_flops.k != tfprof || c.macs.k != macs) {
        fail_msg("node '%s' costs %lld/%lld/%lld, want %lld/%lld/%lld", name, (long long)c.flops.k,
                 (long long)c.tfprof_flops.k, (long long)c.macs.k, (long long)flops,
                 (long long)tfprof, (long long)macs);
    }
}

static void expect_untouched(harness *h) {
    assert_int_equal(h->pc.rewritten, 0);
    assert_int_equal(h->pc.removed, 0);
    assert_int_equal(h->pc.added, 0);
}

/* ------------------------------------------------------------------------- */
/* Graph helpers                                                              */
/* ------------------------------------------------------------------------- */

enum { F32 = 1, I32 = 3, BOOL = 10, I64 = 9, BF16 = 14, F64 = 2 };

static tg_node *op1(tg_graph *g, const char *name, const char *op, const char *a, int t) {
    tg_node *n = tg_add(g, name, op, a, NULL);
    if (t) {
        tg_attr_type(n, "T", t);
    }
    return n;
}

static tg_node *op2(tg_graph *g, const char *name, const char *op, const char *a, const char *b,
                    int t) {
    tg_node *n = tg_add(g, name, op, a, b, NULL);
    if (t) {
        tg_attr_type(n, "T", t);
    }
    return n;
}

static void conv_attrs(tg_node *n, int rank, const char *padding) {
    static const int64_t ones[5] = {1, 1, 1, 1, 1};
    tg_attr_ints(n, "strides", (size_t)rank, ones);
    tg_attr_str(n, "padding", padding);
    tg_attr_ints(n, "dilations", (size_t)rank, ones);
    tg_attr_str(n, "data_format", rank == 5 ? "NDHWC" : "NHWC");
}

static tg_node *scalar_f32(tg_graph *g, const char *name, float v) {
    return tg_const_f32_vals(g, name, 0, NULL, &v, 1);
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
    harness h;
    h_load(&h, g);
    expect_shape(&h, "f", F32, 5, 2, 4, 6, 6, 8);
    int64_t e = 2 * 4 * 6 * 6 * 8, macs = e * 27 * 3;
    expect_cost(&h, "f", 2 * macs + 2 * e, 0, macs);
    /* Pad 1 on each spatial side, then VALID 3x3x3: same spatial size. */
    expect_shape(&h, "p", F32, 5, 2, 4, 6, 6, 8);
    expect_cost(&h, "p", 2 * macs, 0, macs);
    h_free(&h);
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
        op2(g, "c", ops[i], "a", "b", F32);
        harness h;
        h_load(&h, g);
        expect_shape(&h, "c", F32, 2, 4, 5);
        expect_cost(&h, "c", 40, 0, 0);
        h_free(&h);
    }
}

/* _TensorToHashBucketFast: int64 of the input's shape, 2 FLOPs per element. */
static void test_registry_tensor_to_hash_bucket(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "ids", I32, 2, (int64_t[]){3, 7});
    tg_node *t = op1(g, "h", "_TensorToHashBucketFast", "ids", I32);
    tg_attr_int(t, "num_buckets", 100);
    harness h;
    h_load(&h, g);
    expect_shape(&h, "h", I64, 2, 3, 7);
    expect_cost(&h, "h", 42, 0, 0);
    h_free(&h);
}

/* _MklFusedMish: x's shape, 3 FLOPs per element; _MklFusedBatchMatMulV2:
 * BatchMatMulV2's shape, 2*MACs + Mul + Add. */
static void test_registry_mish_and_fused_bmm(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 2, (int64_t[]){4, 6});
    op1(g, "m", "_MklFusedMish", "x", F32);
    tg_placeholder(g, "a", F32, 4, (int64_t[]){2, 3, 4, 5});
    tg_placeholder(g, "b", F32, 4, (int64_t[]){2, 3, 5, 6});
    tg_placeholder(g, "add", F32, 4, (int64_t[]){2, 1, 4, 6});
    scalar_f32(g, "s", 0.5f);
    tg_node *f = tg_add(g, "f", "_MklFusedBatchMatMulV2", "a", "b", "s", "add", NULL);
    tg_attr_type(f, "T", F32);
    tg_attr_bool(f, "adj_x", 0);
    tg_attr_bool(f, "adj_y", 0);
    tg_attr_int(f, "num_args", 2);
    tg_attr_strs(f, "fused_ops", 2, (const char *const[]){"Mul", "Add"});
    harness h;
    h_load(&h, g);
    expect_shape(&h, "m", F32, 2, 4, 6);
    expect_cost(&h, "m", 72, 0, 0);
    expect_shape(&h, "f", F32, 4, 2, 3, 4, 6);
    int64_t e = 2 * 3 * 4 * 6;
    expect_cost(&h, "f", 2 * e * 5 + 2 * e, 0, e * 5);
    h_free(&h);
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
        harness h;
        h_load(&h, g);
        expect_cost(&h, "f", 2 * 8 * 8 + 8 * (1 + t[i].per), 0, 64);
        h_free(&h);
    }
}

/* After the stock rows 8 and 10 the fused nodes keep known shapes and costs. */
static void test_registry_after_stock_rewrites(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", F32, 2, (int64_t[]){4, 5});
    tg_placeholder(g, "b", F32, 2, (int64_t[]){4, 5});
    op2(g, "ge", "GreaterEqual", "a", "b", F32);
    tg_node *cast = tg_add(g, "cast", "Cast", "ge", NULL);
    tg_attr_type(cast, "SrcT", BOOL);
    tg_attr_type(cast, "DstT", F32);
    tg_placeholder(g, "ids", I64, 1, (int64_t[]){6});
    tg_node *as = op1(g, "as", "AsString", "ids", I64);
    tg_attr_int(as, "width", -1);
    tg_attr_str(as, "fill", "");
    tg_attr_int(tg_add(g, "hash", "StringToHashBucketFast", "as", NULL), "num_buckets", 10);
    harness h;
    h_load(&h, g);
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_node(&h, "cast", "_GreaterEqualWithCast", "a", "b", NULL);
    expect_shape(&h, "cast", F32, 2, 4, 5);
    expect_cost(&h, "cast", 40, 0, 0);
    expect_node(&h, "hash", "_TensorToHashBucketFast", "ids", NULL);
    assert_int_equal(attr_t(&h, "hash", "T"), I64);
    assert_int_equal(attr_i(&h, "hash", "num_buckets"), 10);
    expect_shape(&h, "hash", I64, 1, 6);
    expect_cost(&h, "hash", 12, 0, 0);
    h_free(&h);
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
    conv_attrs(op2(g, "c", "Conv2D", "x", "w", F32), 4, "SAME");
    op2(g, "b", "AddV2", swap ? "bias_v" : "c", swap ? "c" : "bias_v", F32);
    op1(g, "out", "Identity", act ? "a" : "b", F32);
    if (act) {
        op1(g, "a", act, "b", F32);
    }
    return g;
}

static void test_onednn_bias_semantic_add(void **state) {
    (void)state;
    harness h;
    /* 1-D bias, and [1,1,1,C] with the bias first */
    h_load(&h, bias_add_chain((int64_t[]){4}, 1, NULL, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "c");
    expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    expect_strs(&h, "b", "fused_ops", 1, "BiasAdd");
    assert_int_equal(attr_i(&h, "b", "num_args"), 1);
    h_free(&h);
    h_load(&h, bias_add_chain((int64_t[]){1, 1, 1, 4}, 4, "Relu", 1));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Relu");
    expect_shape(&h, "a", F32, 4, 1, 8, 8, 4);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, bias_add_chain((int64_t[]){4}, 1, NULL, 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_bias_shape: a dim other than the last is not 1 */
    h_load(&h, bias_add_chain((int64_t[]){8, 1, 4}, 3, NULL, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_equal_shapes (a residual Add, not a bias) */
    h_load(&h, bias_add_chain((int64_t[]){1, 8, 8, 4}, 4, NULL, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_channel_mismatch: bias [1] broadcasts but is not C */
    h_load(&h, bias_add_chain((int64_t[]){1}, 1, NULL, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "b", "AddV2", "c", "bias_v", NULL);
    expect_untouched(&h);
    h_free(&h);
}

/* Maximum(x, Mul(x, alpha)) -> LeakyRelu. */
static tg_graph *mulmax(float alpha, int alpha_rank, int dt, int mul_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt == F64 ? F64 : F32, 2, (int64_t[]){3, 4});
    if (alpha_rank == 0) {
        scalar_f32(g, "alpha", alpha);
    } else {
        tg_const_f32_vals(g, "alpha", 1, (int64_t[]){1}, &alpha, 1);
    }
    op2(g, "mul", "Mul", "alpha", "x", dt);
    op2(g, "max", "Maximum", "x", "mul", dt);
    op1(g, "out", "Identity", "max", dt);
    if (mul_spy) {
        op1(g, "spy", "Identity", "mul", dt);
    }
    return g;
}

static void test_onednn_mul_maximum(void **state) {
    (void)state;
    harness h;
    h_load(&h, mulmax(0.2f, 0, F32, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "mul");
    expect_node(&h, "max", "LeakyRelu", "x", NULL);
    assert_int_equal(attr_t(&h, "max", "T"), F32);
    assert_true(attr_f(&h, "max", "alpha") == 0.2f);
    expect_shape(&h, "max", F32, 2, 3, 4);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 1);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, mulmax(0.2f, 0, F32, 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_negative_alpha */
    h_load(&h, mulmax(-0.5f, 0, F32, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "max", "Maximum", "x", "mul", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_alpha_not_scalar */
    h_load(&h, mulmax(0.2f, 1, F32, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_mul_other_consumer */
    h_load(&h, mulmax(0.2f, 0, F32, 1));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
}

/* Mul(x, Tanh(Softplus(x))) -> _MklFusedMish. */
static tg_graph *mish(int dt, int tanh_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 2, (int64_t[]){3, 4});
    op1(g, "sp", "Softplus", "x", dt);
    op1(g, "tanh", "Tanh", "sp", dt);
    op2(g, "mul", "Mul", "x", "tanh", dt);
    op1(g, "out", "Identity", "mul", dt);
    if (tanh_spy) {
        op1(g, "spy", "Identity", "tanh", dt);
    }
    return g;
}

static void test_onednn_mish(void **state) {
    (void)state;
    harness h;
    h_load(&h, mish(F32, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "sp");
    absent(&h, "tanh");
    expect_node(&h, "mul", "_MklFusedMish", "x", NULL);
    assert_int_equal(attr_t(&h, "mul", "T"), F32);
    expect_cost(&h, "mul", 36, 0, 0);
    h_free(&h);
    h_load(&h, mish(F32, 0));
    h_remap(&h, FL_REMAPPER_STANDARD); /* not_fused_due_to_stock_build */
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, mish(F64, 0)); /* not_fused_due_to_dtype */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, mish(F32, 1)); /* not_fused_due_to_tanh_other_consumer */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "mul", "Mul", "x", "tanh", NULL);
    expect_untouched(&h);
    h_free(&h);
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
    conv_attrs(op2(g, "c", "Conv2D", "x", "w", F32), 4, "SAME");
    if (bn) {
        tg_node *y =
            tg_add(g, "y", "FusedBatchNormV3", "c", "scale", "offset", "mean", "var", NULL);
        tg_attr_type(y, "T", F32);
        tg_attr_type(y, "U", F32);
        tg_attr_bool(y, "is_training", training);
        tg_attr_float(y, "epsilon", 0.001f);
        tg_attr_str(y, "data_format", "NHWC");
    } else {
        op2(g, "y", "BiasAdd", "c", "scale", F32);
    }
    op1(g, "sig", "Sigmoid", "y", F32);
    op2(g, "mul", "Mul", "y", "sig", F32);
    op1(g, "out", "Identity", "mul", F32);
    if (sig_spy) {
        op1(g, "spy", "Identity", "sig", F32);
    }
    return g;
}

static void test_onednn_conv_swish(void **state) {
    (void)state;
    harness h;
    h_load(&h, conv_swish(0, 0, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "c");
    absent(&h, "y");
    absent(&h, "sig");
    expect_node(&h, "mul", "_FusedConv2D", "x", "w", "scale", NULL);
    expect_strs(&h, "mul", "fused_ops", 2, "BiasAdd", "_MklSwish");
    assert_int_equal(attr_i(&h, "mul", "num_args"), 1);
    int64_t e = 8 * 8 * 4, macs = e * 36;
    expect_cost(&h, "mul", 2 * macs + 3 * e, 0, macs);
    h_free(&h);
    h_load(&h, conv_swish(1, 0, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "mul", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    expect_strs(&h, "mul", "fused_ops", 2, "FusedBatchNorm", "_MklSwish");
    assert_int_equal(attr_i(&h, "mul", "num_args"), 4);
    assert_true(attr_f(&h, "mul", "epsilon") == 0.001f);
    h_free(&h);
    /* not_fused_due_to_training: only y * Sigmoid(y) -> _MklSwish (row 23) */
    h_load(&h, conv_swish(1, 1, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "mul", "_MklSwish", "y", NULL);
    need(&h, "c");
    h_free(&h);
    /* not_fused_due_to_sigmoid_other_consumer: only y*sigmoid(y) -> _MklSwish
     * does not fire either (the Sigmoid is shared); the conv+bias still fuses */
    h_load(&h, conv_swish(0, 0, 1));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "mul", "Mul", "y", "sig", NULL);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, conv_swish(0, 0, 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_node(&h, "mul", "Mul", "y", "sig", NULL);
    h_free(&h);
}

/* Pad -> Conv3D -> Identity. */
static tg_graph *pad_conv3d(const char *pad_op, int dt, int pad_spy) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
    tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
    tg_const_int(g, "pads", I32, 2, (int64_t[]){5, 2}, (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
    if (strcmp(pad_op, "PadV2") == 0) {
        scalar_f32(g, "pv", 0.0f);
        op2(g, "pad", "PadV2", "x", "pads", F32);
        tg_free(g);
        g = tg_new();
        tg_placeholder(g, "x", F32, 5, (int64_t[]){1, 4, 6, 6, 3});
        tg_const_f32(g, "w", 5, (int64_t[]){3, 3, 3, 3, 8}, NULL, 0);
        tg_const_int(g, "pads", I32, 2, (int64_t[]){5, 2},
                     (int64_t[]){0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
        scalar_f32(g, "pv", 0.0f);
        tg_attr_type(tg_add(g, "pad", "PadV2", "x", "pads", "pv", NULL), "T", F32);
    } else {
        op2(g, "pad", "Pad", "x", "pads", F32);
    }
    conv_attrs(op2(g, "c", "Conv3D", "pad", "w", dt), 5, "VALID");
    op1(g, "out", "Identity", "c", dt);
    if (pad_spy) {
        op1(g, "spy", "Identity", "pad", F32);
    }
    return g;
}

static void test_onednn_pad_conv3d(void **state) {
    (void)state;
    harness h;
    h_load(&h, pad_conv3d("Pad", F32, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "pad");
    expect_node(&h, "c", "_FusedConv3D", "x", "w", NULL);
    expect_ints(&h, "c", "padding_list", 10, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0);
    assert_int_equal(attr_i(&h, "c", "num_args"), 0);
    expect_shape(&h, "c", F32, 5, 1, 4, 6, 6, 8);
    int64_t e = 4 * 6 * 6 * 8, macs = e * 81;
    expect_cost(&h, "c", 2 * macs, 0, macs);
    h_free(&h);
    h_load(&h, pad_conv3d("Pad", F32, 0)); /* not_fused_due_to_stock_build */
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, pad_conv3d("PadV2", F32, 0)); /* not_fused_due_to_pad_op */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, pad_conv3d("Pad", F32, 1)); /* not_fused_due_to_pad_other_consumer */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "c", "Conv3D", "pad", "w", NULL);
    expect_untouched(&h);
    h_free(&h);
}

/* BiasAdd(conv) "y" -> x*Relu6(x+3)*0.16666 (first form). */
static tg_graph *hard_swish(const char *conv, float three, int second_form) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, strcmp(conv, "Conv2D") == 0 ? 4 : 1}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    conv_attrs(op2(g, "c", conv, "x", "w", F32), 4, "SAME");
    op2(g, "y", "BiasAdd", "c", "bias_v", F32);
    scalar_f32(g, "three", three);
    scalar_f32(g, "sixth", 0.16666f);
    op2(g, "add", "AddV2", "three", "y", F32);
    op1(g, "r6", "Relu6", "add", F32);
    if (second_form) {
        op2(g, "inner", "Mul", "y", "r6", F32);
        op2(g, "out", "Mul", "inner", "sixth", F32);
    } else {
        op2(g, "inner", "Mul", "r6", "sixth", F32);
        op2(g, "out", "Mul", "y", "inner", F32);
    }
    op1(g, "id", "Identity", "out", F32);
    return g;
}

static void test_onednn_hard_swish(void **state) {
    (void)state;
    harness h;
    for (int form = 0; form < 2; form++) {
        h_load(&h, hard_swish("Conv2D", 3.0f, form));
        h_remap(&h, FL_REMAPPER_ONEDNN);
        static const char *const gone[] = {"c", "y", "add", "r6", "inner", "three", "sixth"};
        for (size_t i = 0; i < 7; i++) {
            absent(&h, gone[i]);
        }
        expect_node(&h, "out", "_FusedConv2D", "x", "w", "bias_v", NULL);
        expect_strs(&h, "out", "fused_ops", 2, "BiasAdd", "_FusedHardSwish");
        assert_int_equal(attr_i(&h, "out", "num_args"), 1);
        h_free(&h);
    }
    h_load(&h, hard_swish("DepthwiseConv2dNative", 3.0f, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "_FusedDepthwiseConv2dNative", "x", "w", "bias_v", NULL);
    h_free(&h);
    /* not_fused_due_to_constant: 2.5 instead of 3 (the conv + bias still fuse) */
    h_load(&h, hard_swish("Conv2D", 2.5f, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "Mul", "y", "inner", NULL);
    expect_node(&h, "y", "_FusedConv2D", "x", "w", "bias_v", NULL);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, hard_swish("Conv2D", 3.0f, 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_node(&h, "out", "Mul", "y", "inner", NULL);
    h_free(&h);
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
    tg_node *m = op2(g, "bmm", "BatchMatMulV2", "a", "b", F32);
    tg_attr_bool(m, "adj_x", 0);
    tg_attr_bool(m, "adj_y", 0);
    op2(g, "mul", "Mul", "bmm", "s", F32);
    op2(g, "root", "AddV2", "addend", "mul", F32);
    op1(g, "out", "Identity", "root", F32);
    return g;
}

static void test_onednn_fused_batch_matmul(void **state) {
    (void)state;
    harness h;
    h_load(&h, fused_bmm(1, 1, 4));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "mul");
    absent(&h, "bmm");
    expect_node(&h, "root", "_MklFusedBatchMatMulV2", "a", "b", "s", "addend", NULL);
    expect_strs(&h, "root", "fused_ops", 2, "Mul", "Add");
    assert_int_equal(attr_i(&h, "root", "num_args"), 2);
    expect_shape(&h, "root", F32, 4, 2, 3, 4, 6);
    h_free(&h);
    h_load(&h, fused_bmm(2, 1, 4)); /* not_fused_due_to_multiplicand_size */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, fused_bmm(1, 3, 4)); /* not_fused_due_to_addend_dim1 */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, fused_bmm(1, 1, 3)); /* not_fused_due_to_bmm_rank */
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    h_load(&h, fused_bmm(1, 1, 4)); /* not_fused_due_to_stock_build */
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
}

/* MatMul -> BiasAdd y -> exact Gelu y * 0.5 * (1 + Erf(y * 0.707106)). */
static tg_graph *gelu_exact(int form, float c1, int dt) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 2, (int64_t[]){2, 8});
    tg_const_f32(g, "w", 2, (int64_t[]){8, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *m = op2(g, "mm", "MatMul", "x", "w", dt);
    tg_attr_bool(m, "transpose_a", 0);
    tg_attr_bool(m, "transpose_b", 0);
    op2(g, "y", "BiasAdd", "mm", "bias_v", dt);
    scalar_f32(g, "c1", c1);
    scalar_f32(g, "one", 1.0f);
    scalar_f32(g, "half", 0.5f);
    op2(g, "mulc", "Mul", "y", "c1", dt);
    op1(g, "erf", "Erf", "mulc", dt);
    op2(g, "plus", "AddV2", "erf", "one", dt);
    if (form == 0) {
        op2(g, "h", "Mul", "plus", "half", dt);
        op2(g, "out", "Mul", "h", "y", dt);
    } else {
        op2(g, "h", "Mul", "y", "half", dt);
        op2(g, "out", "Mul", "plus", "h", dt);
    }
    op1(g, "id", "Identity", "out", dt);
    return g;
}

static void test_onednn_matmul_gelu_exact(void **state) {
    (void)state;
    harness h;
    for (int form = 0; form < 2; form++) {
        h_load(&h, gelu_exact(form, 0.707106f, F32));
        h_remap(&h, FL_REMAPPER_ONEDNN);
        static const char *const gone[] = {"mm", "y", "mulc", "erf", "plus", "h"};
        for (size_t i = 0; i < 6; i++) {
            absent(&h, gone[i]);
        }
        expect_node(&h, "out", "_FusedMatMul", "x", "w", "bias_v", NULL);
        expect_strs(&h, "out", "fused_ops", 2, "BiasAdd", "GeluExact");
        assert_int_equal(attr_i(&h, "out", "num_args"), 1);
        expect_cost(&h, "out", 2 * 64 + 8 * 6, 0, 64);
        h_free(&h);
    }
    /* not_fused_due_to_constant (the MatMul + BiasAdd still fuse) */
    h_load(&h, gelu_exact(0, 0.5f, F32));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "Mul", "h", "y", NULL);
    expect_node(&h, "y", "_FusedMatMul", "x", "w", "bias_v", NULL);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, gelu_exact(0, 0.707106f, F32));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_node(&h, "out", "Mul", "h", "y", NULL);
    h_free(&h);
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
    tg_node *a = op1(g, "a", act, "f", F32);
    if (strcmp(act, "LeakyRelu") == 0) {
        tg_attr_float(a, "alpha", 0.1f);
    }
    op1(g, "out", "Identity", "a", F32);
    if (f_spy) {
        op1(g, "spy", "Identity", "f", F32);
    }
    return g;
}

/* Row 14 (FindContractionWithActivation): only a fused conv is extended. */
static void test_onednn_fused_conv_activation(void **state) {
    (void)state;
    harness h;
    h_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "f");
    expect_node(&h, "a", "_FusedConv2D", "x", "w", "b", NULL);
    expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "LeakyRelu");
    assert_int_equal(attr_i(&h, "a", "num_args"), 1);
    assert_true(attr_f(&h, "a", "leakyrelu_alpha") == 0.1f);
    assert_string_equal(fl_node_attr(need(&h, "a"), "padding")->v.s.p, "SAME");
    int64_t e = 8 * 8 * 8, macs = e * 27;
    expect_cost(&h, "a", 2 * macs + 2 * e, 0, macs);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 1);
    h_free(&h);
    h_load(&h, fused_conv_act("_FusedConv2D", "_MklFusedMish", 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "_FusedConv2D", "x", "w", "b", NULL);
    expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Mish");
    assert_null(fl_node_attr(need(&h, "a"), "leakyrelu_alpha"));
    expect_cost(&h, "a", 2 * macs + 4 * e, 0, macs);
    h_free(&h);
    h_load(&h, fused_conv_act("_FusedConv3D", "LeakyRelu", 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "_FusedConv3D", "x", "w", "b", NULL);
    expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "LeakyRelu");
    h_free(&h);
    /* not_fused_due_to_plain_conv2d (TF 2.11/2.12 took it; current TF not) */
    h_load(&h, fused_conv_act("Conv2D", "LeakyRelu", 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "LeakyRelu", "f", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_conv_other_consumer (ours: TF would leave it dangling) */
    h_load(&h, fused_conv_act("_FusedConv2D", "LeakyRelu", 1));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "LeakyRelu", "f", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_activation (Relu is not a row-14 activation) */
    h_load(&h, fused_conv_act("_FusedConv2D", "Relu", 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "Relu", "f", NULL);
    expect_untouched(&h);
    h_free(&h);
}

/* x -> Conv2D "c" -> BiasAdd "b" -> AddV2 "add"(b, other) -> Identity. */
static tg_graph *conv_bias_addend(int dt) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", dt, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(g, "other", dt, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(g, "w", dt, 4, (int64_t[]){3, 3, 4, 4});
    tg_placeholder(g, "bias_v", dt, 1, (int64_t[]){4});
    conv_attrs(op2(g, "c", "Conv2D", "x", "w", dt), 4, "SAME");
    op2(g, "b", "BiasAdd", "c", "bias_v", dt);
    op2(g, "add", "AddV2", "b", "other", dt);
    op1(g, "out", "Identity", "add", dt);
    return g;
}

/* Row 15 (FindContractionWithBiasAddAndAdd): the Add's placement and T are
 * checked, the contraction's are not. */
static void test_onednn_bias_add_device(void **state) {
    (void)state;
    harness h;
    h_load(&h, conv_bias_addend(F32));
    need(&h, "c")->device = "/device:GPU:0";
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "add", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    expect_strs(&h, "add", "fused_ops", 2, "BiasAdd", "Add");
    assert_string_equal(need(&h, "add")->device, "/device:GPU:0");
    h_free(&h);
    /* not_fused_due_to_add_device */
    h_load(&h, conv_bias_addend(F32));
    need(&h, "add")->device = "/device:GPU:0";
    need(&h, "c")->device = "/device:GPU:0";
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "add", "AddV2", "b", "other", NULL);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_add_dtype (double) */
    h_load(&h, conv_bias_addend(F64));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "add", "AddV2", "b", "other", NULL);
    h_free(&h);
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
    tg_node *c = op2(g, "c", "Conv2D", "s2b", "w", F32);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(c, "padding", "VALID");
    tg_attr_type(tg_add(g, "b2s", "BatchToSpaceND", "c", "bs", "crops", NULL), "T", F32);
    op1(g, "out", "Identity", "b2s", F32);
    harness h;
    h_load(&h, g);
    h_remap(&h, FL_REMAPPER_STANDARD);
    absent(&h, "s2b");
    absent(&h, "c");
    expect_node(&h, "b2s", "Conv2D", "x", "w", NULL);
    expect_ints(&h, "b2s", "dilations", 4, 1, 2, 2, 1);
    expect_ints(&h, "b2s", "strides", 4, 1, 2, 2, 1);
    assert_string_equal(fl_node_attr(need(&h, "b2s"), "padding")->v.s.p, "SAME");
    h_free(&h);
}

/* ------------------------------------------------------------------------- */
/* E. oneDNN normalisations (rows 24, 25)                                     */
/* ------------------------------------------------------------------------- */

/* The complete-convention FLOPs of node `name` (must be known). */
static int64_t flops_of(harness *h, const char *name) {
    fl_node *n = need(h, name);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&h->c, n, &c), FL_OK);
    assert_true(c.has_rule && !c.incomplete && fl_sym_is_known(c.flops));
    return c.flops.k;
}

static int64_t flops_sum(harness *h, const char *const *names, size_t n) {
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += flops_of(h, names[i]);
    }
    return t;
}

static tg_node *mean_op(tg_graph *g, const char *name, const char *x, const char *ax, int keep,
                        int dt) {
    tg_node *m = op2(g, name, "Mean", x, ax, dt);
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
    op2(g, "sqd", "SquaredDifference", "x", "mean1", o->dt);
    mean_op(g, "mean0", "sqd", "axes0", o->keep_dims, o->dt);
    op2(g, "add", "AddV2", "mean0", "eps", o->dt);
    op1(g, "rsqrt", "Rsqrt", "add", o->dt);
    op2(g, "mul1", "Mul", "rsqrt", "gamma", o->dt);
    op2(g, "mul0", "Mul", "x", "mul1", o->dt);
    op2(g, "mul2", "Mul", "mul1", "mean1", o->dt);
    op2(g, "sub0", "Sub", "beta", "mul2", o->dt);
    op2(g, "out", "AddV2", "mul0", "sub0", o->dt);
    if (o->act) {
        tg_node *a = op1(g, "a", o->act, "out", o->dt);
        if (strcmp(o->act, "LeakyRelu") == 0) {
            tg_attr_float(a, "alpha", 0.3f);
        }
    }
    op1(g, "id", "Identity", o->act ? "a" : "out", o->dt);
    if (o->mul1_spy) {
        op1(g, "spy", "Identity", "mul1", o->dt);
    }
    return g;
}

static const char *const norm_nodes[] = {"mean1", "sqd",  "mean0", "add",  "rsqrt",
                                         "mul1",  "mul0", "mul2",  "sub0", "out"};

static void expect_norm_gone(harness *h) {
    for (size_t i = 0; i < 9; i++) {
        absent(h, norm_nodes[i]);
    }
}

static void test_onednn_instance_norm(void **state) {
    (void)state;
    static const int64_t x4[] = {2, 4, 4, 3}, x5[] = {1, 2, 4, 4, 3};
    harness h;
    norm_opts o = {4, x4, (int64_t[]){1, 2}, 2, 3, 3, 1, F32, NULL, 0};
    h_load(&h, common_norm(&o));
    int64_t unfused = flops_sum(&h, norm_nodes, 10);
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_norm_gone(&h);
    expect_node(&h, "out", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    assert_int_equal(attr_t(&h, "out", "T"), F32);
    assert_true(attr_f(&h, "out", "epsilon") == 0.001f);
    expect_ints(&h, "out", "reduction_axes", 2, 1, 2);
    assert_null(fl_node_attr(need(&h, "out"), "fused_ops"));
    expect_shape(&h, "out", F32, 4, 2, 4, 4, 3);
    /* E 96, G 6, M 6: 6E + 3G + 3M, what the ten unfused nodes count */
    expect_cost(&h, "out", 612, 0, 0);
    assert_int_equal(unfused, 612);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 9);
    h_free(&h);
    /* with LeakyRelu: named after it, fused_ops [LeakyRelu], alpha */
    o.act = "LeakyRelu";
    h_load(&h, common_norm(&o));
    unfused = flops_sum(&h, norm_nodes, 10) + flops_of(&h, "a");
    h_remap(&h, FL_REMAPPER_ONEDNN);
    absent(&h, "out");
    expect_node(&h, "a", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    expect_strs(&h, "a", "fused_ops", 1, "LeakyRelu");
    assert_true(attr_f(&h, "a", "leakyrelu_alpha") == 0.3f);
    expect_cost(&h, "a", unfused, 0, 0);
    assert_int_equal(h.pc.removed, 10);
    h_free(&h);
    /* 5-D, axes [1,2,3] */
    norm_opts o5 = {5, x5, (int64_t[]){1, 2, 3}, 3, 3, 3, 1, F32, "Relu", 0};
    h_load(&h, common_norm(&o5));
    unfused = flops_sum(&h, norm_nodes, 10) + flops_of(&h, "a");
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "a", "_MklFusedInstanceNorm", "x", "gamma", "beta", NULL);
    expect_ints(&h, "a", "reduction_axes", 3, 1, 2, 3);
    expect_strs(&h, "a", "fused_ops", 1, "Relu");
    expect_cost(&h, "a", unfused, 0, 0);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    o.act = NULL;
    h_load(&h, common_norm(&o));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_axes ([1,3] is neither [1,2] nor [2,3]) */
    norm_opts ob = o;
    ob.axes = (int64_t[]){1, 3};
    ob.gamma_len = ob.beta_len = 1;
    h_load(&h, common_norm(&ob));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_gamma_beta_size */
    ob = o;
    ob.beta_len = 1;
    h_load(&h, common_norm(&ob));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_keep_dims */
    ob = o;
    ob.keep_dims = 0; /* x [1,4,4,1] so that the unkept mean still broadcasts */
    ob.xdims = (int64_t[]){1, 4, 4, 1};
    ob.gamma_len = ob.beta_len = 1;
    h_load(&h, common_norm(&ob));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_dtype (double) */
    ob = o;
    ob.dt = F64;
    h_load(&h, common_norm(&ob));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "AddV2", "mul0", "sub0", NULL);
    h_free(&h);
    /* not_fused_due_to_inner_consumer */
    ob = o;
    ob.mul1_spy = 1;
    h_load(&h, common_norm(&ob));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
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
    op2(g, "d", "Sub", "x", "mean", F32);
    if (other_sub) {
        op2(g, "d2", "Sub", "mean", "x", F32);
        op1(g, "sq", "Square", "d2", F32);
    } else {
        op1(g, "sq", "Square", "d", F32);
    }
    mean_op(g, "ms", "sq", "ax", 1, F32);
    op2(g, "ae", "AddV2", "ms", "eps", F32);
    op1(g, "rs", "Rsqrt", "ae", F32);
    op2(g, "scale", "Mul", "rs", "gamma", F32);
    op2(g, "mul", "Mul", "d", "scale", F32);
    op2(g, "out", "AddV2", "beta", "mul", F32);
    op1(g, "id", "Identity", "out", F32);
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
    tg_node *r = op2(g, "pre", "Reshape", "x", "pre_shape", F32);
    tg_attr_type(r, "Tshape", I32);
    tg_attr_type(tg_add(g, "fs", "Fill", "fdims", "one", NULL), "T", F32);
    tg_attr_type(tg_add(g, "fo", "Fill", "fdims", "zero", NULL), "T", F32);
    tg_node *bn = tg_add(g, "bn", "FusedBatchNormV3", "pre", "fs", "fo", "empty", "empty", NULL);
    tg_attr_type(bn, "T", F32);
    tg_attr_type(bn, "U", F32);
    tg_attr_bool(bn, "is_training", 1);
    tg_attr_str(bn, "data_format", "NCHW");
    tg_attr_float(bn, "epsilon", 0.001f);
    r = op2(g, "post", "Reshape", "bn", "post_shape", F32);
    tg_attr_type(r, "Tshape", I32);
    op2(g, "scale", "Mul", "post", "gamma", F32);
    op2(g, "out", "AddV2", "scale", "beta", F32);
    op1(g, "id", "Identity", "out", F32);
    return g;
}

static void test_onednn_layer_norm(void **state) {
    (void)state;
    static const int64_t x2[] = {4, 8}, x4[] = {2, 2, 2, 8};
    static const char *const custom[] = {"mean", "d",     "sq",  "ms", "ae",
                                         "rs",   "scale", "mul", "out"};
    harness h;
    h_load(&h, custom_layer_norm(2, x2, 0));
    int64_t unfused = flops_sum(&h, custom, 9);
    h_remap(&h, FL_REMAPPER_ONEDNN);
    for (size_t i = 0; i < 8; i++) {
        absent(&h, custom[i]);
    }
    expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    assert_int_equal(attr_t(&h, "out", "T"), F32);
    assert_null(fl_node_attr(need(&h, "out"), "epsilon"));
    expect_shape(&h, "out", F32, 2, 4, 8);
    /* E 32, R 4: 7E + 3R, what the custom chain counts */
    expect_cost(&h, "out", 236, 0, 0);
    assert_int_equal(unfused, 236);
    assert_int_equal(h.pc.removed, 8);
    h_free(&h);
    /* the common norm pattern over the last axis (pattern 3), rank 3 */
    norm_opts o = {3, (int64_t[]){2, 4, 8}, (int64_t[]){2}, 1, 8, 8, 1, F32, NULL, 0};
    h_load(&h, common_norm(&o));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_norm_gone(&h);
    expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    h_free(&h);
    /* Keras form (pattern 1) */
    h_load(&h, keras_layer_norm(0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    static const char *const keras[] = {"scale", "post", "bn", "pre", "fs", "fo"};
    for (size_t i = 0; i < 6; i++) {
        absent(&h, keras[i]);
    }
    expect_node(&h, "out", "_MklLayerNorm", "x", "gamma", "beta", NULL);
    expect_shape(&h, "out", F32, 2, 4, 8);
    h_free(&h);
    /* not_fused_due_to_nonempty_mean (the Keras form's mean/variance are empty) */
    h_load(&h, keras_layer_norm(4));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "AddV2", "scale", "beta", NULL);
    h_free(&h);
    /* not_fused_due_to_rank (4-D input) */
    h_load(&h, custom_layer_norm(4, x4, 0));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_other_sub (ours: Square must read the same Sub) */
    h_load(&h, custom_layer_norm(2, x2, 1));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_node(&h, "out", "AddV2", "beta", "mul", NULL);
    h_free(&h);
    /* not_fused_due_to_axis (pattern 3 reducing axis 1 of 3) */
    o.axes = (int64_t[]){1};
    o.gamma_len = o.beta_len = 1;
    h_load(&h, common_norm(&o));
    h_remap(&h, FL_REMAPPER_ONEDNN);
    expect_untouched(&h);
    h_free(&h);
    /* not_fused_due_to_stock_build */
    h_load(&h, custom_layer_norm(2, x2, 0));
    h_remap(&h, FL_REMAPPER_STANDARD);
    expect_untouched(&h);
    h_free(&h);
}

/* ------------------------------------------------------------------------- */
/* C. Dependency optimizer                                                    */
/* ------------------------------------------------------------------------- */

static void h_dependency(harness *h) {
    h_pass(h, fl_pass_dependency_optimizer, "dependency", FL_REMAPPER_STANDARD);
}

static bool ledger_has(harness *h, const char *rule, const char *node) {
    for (size_t i = 0; i < h->led.n_entries; i++) {
        if (strcmp(h->led.entries[i].rule, rule) == 0 &&
            strcmp(h->led.entries[i].node, node) == 0) {
            return true;
        }
    }
    return false;
}

/* a -> b -> c with ^a on c: the control edge goes (path a-b-c is longer);
 * ^a on d, reachable only directly, stays. */
static void test_dependency_transitive_reduction(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    op1(g, "a", "Relu", "x", F32);
    op1(g, "b", "Relu", "a", F32);
    tg_attr_type(tg_add(g, "c", "Relu", "b", "^a", NULL), "T", F32);
    tg_attr_type(tg_add(g, "d", "Relu", "x", "^a", NULL), "T", F32);
    /* e: ^b reachable through b -> c's control chain? no: e reads c, so
     * b -> c -> e is a path of 2: ^b dropped */
    tg_attr_type(tg_add(g, "e", "Relu", "c", "^b", NULL), "T", F32);
    harness h;
    h_load(&h, g);
    h_dependency(&h);
    expect_node(&h, "c", "Relu", "b", NULL);
    expect_ctrl(&h, "c", NULL);
    expect_ctrl(&h, "d", "a", NULL);
    expect_ctrl(&h, "e", NULL);
    assert_true(ledger_has(&h, "transitive_reduction", "c"));
    assert_true(ledger_has(&h, "transitive_reduction", "e"));
    assert_false(ledger_has(&h, "transitive_reduction", "d"));
    h_free(&h);
}

/* Grappler's limits: a path through a Merge does not count, and a
 * frame-modifying target (Enter) keeps its control inputs. */
static void test_dependency_transitive_reduction_limits(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    op1(g, "a", "Relu", "x", F32);
    tg_node *m = tg_add(g, "m", "Merge", "a", "x", NULL);
    tg_attr_type(m, "T", F32);
    tg_attr_int(m, "N", 2);
    tg_attr_type(tg_add(g, "c", "Relu", "m", "^a", NULL), "T", F32);
    tg_node *en = tg_add(g, "en", "Enter", "a", "^x", NULL);
    tg_attr_type(en, "T", F32);
    tg_attr_str(en, "frame_name", "f");
    op1(g, "en_out", "Exit", "en", F32);
    harness h;
    h_load(&h, g);
    h_dependency(&h);
    expect_ctrl(&h, "c", "a", NULL);  /* not_reduced_due_to_merge */
    expect_ctrl(&h, "en", "x", NULL); /* not_reduced_due_to_frame */
    assert_false(ledger_has(&h, "transitive_reduction", "c"));
    h_free(&h);
}

/* Two control inputs from one other device go through one NoOp there. */
static void test_dependency_group_cross_device(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    op1(g, "p", "Relu", "x", F32);
    op1(g, "q", "Relu", "x", F32);
    op1(g, "r", "Relu", "x", F32);
    op1(g, "p_out", "Identity", "p", F32);
    op1(g, "q_out", "Identity", "q", F32);
    op1(g, "r_out", "Identity", "r", F32);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^p", "^r", "^q", NULL), "T", F32);
    harness h;
    h_load(&h, g);
    need(&h, "p")->device = "/device:GPU:0";
    need(&h, "q")->device = "/device:GPU:0";
    need(&h, "r")->device = "/device:GPU:1";
    need(&h, "m")->device = "/device:CPU:0";
    h_dependency(&h);
    const char *gname = "GroupCrossDeviceControlEdges_0/m";
    expect_node(&h, gname, "NoOp", NULL);
    expect_ctrl(&h, gname, "p", "q", NULL);
    assert_string_equal(need(&h, gname)->device, "/device:GPU:0");
    expect_ctrl(&h, "m", "r", gname, NULL);
    assert_true(ledger_has(&h, "group_cross_device_control_edges", "m"));
    assert_int_equal(h.pc.added, 1);
    h_free(&h);
    /* not_grouped_due_to_unplaced_node */
    g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    op1(g, "p", "Relu", "x", F32);
    op1(g, "q", "Relu", "x", F32);
    op1(g, "p_out", "Identity", "p", F32);
    op1(g, "q_out", "Identity", "q", F32);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^p", "^q", NULL), "T", F32);
    h_load(&h, g);
    need(&h, "p")->device = "/device:GPU:0";
    need(&h, "q")->device = "/device:GPU:0";
    h_dependency(&h);
    expect_ctrl(&h, "m", "p", "q", NULL);
    assert_int_equal(h.pc.added, 0);
    h_free(&h);
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
