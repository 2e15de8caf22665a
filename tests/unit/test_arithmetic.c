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
#include "import/import.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct prun {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_ledger led;
    fl_cost_totals after;
    fl_options opt;
    fl_pipeline_config cfg;
    char dump[8192];
} prun;

/* Imports g and runs the arithmetic pass once (outputs: `outs`, or the
 * nodes without consumers), verifier on; asserts success. */
static prun *run_outs(tg_graph *tg, const char *const *outs, size_t n_outs, fl_device dev) {
    size_t len;
    uint8_t *buf = tg_pack(tg, &len);
    prun *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    fl_arena_init(&p->arena, 0);
    fl_diag_init(&p->d, &p->arena);
    p->g = fl_graph_new(&p->arena);
    assert_non_null(p->g);
    p->c = (fl_ctx){p->g, p->g->syms, &p->arena, &p->d, 1 << 20};
    fl_options_init(&p->opt);
    fl_import_opts io = {1000000, 1 << 20, NULL};
    fl_status st = fl_import_graphdef(p->g, buf, len, &io, &p->d);
    free(buf);
    fl_infer_result ir;
    fl_cost_totals t;
    if (st == FL_OK) {
        st = fl_graph_toposort(p->g, &p->d);
    }
    if (st == FL_OK) {
        st = fl_infer_shapes(&p->c, &p->opt, &ir);
    }
    if (st == FL_OK) {
        st = fl_cost_graph(&p->c, &t);
    }
    fl_pipeline_config_init(&p->cfg);
    p->cfg.passes = "arithmetic";
    p->cfg.opt.iterations = 1;
    p->cfg.opt.device = dev;
    p->cfg.outputs = outs;
    p->cfg.n_outputs = n_outs;
    p->cfg.verify = true;
    fl_ledger_init(&p->led, &p->arena);
    if (st == FL_OK) {
        st = fl_pipeline_run(&p->c, &p->opt, &p->cfg, &p->led, &p->after);
    }
    if (st != FL_OK) {
        fail_msg("pipeline failed: %s", p->d.msg ? p->d.msg : fl_status_str(st));
    }
    return p;
}

static prun *run(tg_graph *tg) {
    return run_outs(tg, NULL, 0, FL_DEVICE_CPU);
}

static void prun_free(prun *p) {
    fl_arena_free(&p->arena);
    free(p);
}

/* The graph as "a=Op(in,in:1,^c); b=...". */
static const char *dump(prun *p) {
    size_t o = 0;
    char *s = p->dump;
    size_t cap = sizeof p->dump;
    for (size_t i = 0; i < p->g->n_nodes; i++) {
        const fl_node *n = p->g->nodes[i];
        o += (size_t)snprintf(s + o, cap - o, "%s%s=%s(", i ? "; " : "", n->name, n->op);
        for (int k = 0; k < n->n_inputs; k++) {
            o += (size_t)snprintf(s + o, cap - o, k ? ",%s" : "%s", n->inputs[k].node->name);
            if (n->inputs[k].port) {
                o += (size_t)snprintf(s + o, cap - o, ":%d", n->inputs[k].port);
            }
        }
        for (int k = 0; k < n->n_ctrl; k++) {
            o += (size_t)snprintf(s + o, cap - o, "%s^%s", n->n_inputs || k ? "," : "",
                                  n->ctrl[k]->name);
        }
        o += (size_t)snprintf(s + o, cap - o, ")");
        assert_true(o < cap);
    }
    return s;
}

static bool fired(const prun *p, const char *rule, const char *node) {
    for (size_t i = 0; i < p->led.n_entries; i++) {
        if (strcmp(p->led.entries[i].rule, rule) == 0 &&
            (!node || strcmp(p->led.entries[i].node, node) == 0)) {
            return true;
        }
    }
    return false;
}

static const fl_node *node(const prun *p, const char *name) {
    const fl_node *n = fl_graph_find(p->g, name);
    if (!n) {
        fail_msg("no node %s in %s", name, ((prun *)p)->dump);
    }
    return n;
}

static int attr_type(const prun *p, const char *name, const char *attr) {
    const fl_attr *a = fl_node_attr(node(p, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_TYPE);
    return a->v.type;
}

static bool attr_bool(const prun *p, const char *name, const char *attr) {
    const fl_attr *a = fl_node_attr(node(p, name), attr);
    return a && a->kind == FL_ATTR_B && a->v.b;
}

/* Runs and compares the dump; the ledger must (or must not) name `rule`. */
static void expect(tg_graph *g, const char *want, const char *rule) {
    prun *p = run(g);
    assert_string_equal(dump(p), want);
    if (rule) {
        assert_true(fired(p, rule, NULL));
    }
    prun_free(p);
}

static void ph(tg_graph *g, const char *name, int rank, const int64_t *dims) {
    tg_placeholder(g, name, 1, rank, dims);
}

static tg_node *op1(tg_graph *g, const char *name, const char *op, const char *a) {
    tg_node *n = tg_add(g, name, op, a, NULL);
    tg_attr_type(n, "T", 1);
    return n;
}

static tg_node *op2(tg_graph *g, const char *name, const char *op, const char *a, const char *b) {
    tg_node *n = tg_add(g, name, op, a, b, NULL);
    tg_attr_type(n, "T", 1);
    return n;
}

static void scalar(tg_graph *g, const char *name, float v) {
    tg_const_f32_vals(g, name, 0, NULL, &v, 1);
}

static const int64_t D23[] = {2, 3};
static const int64_t D3[] = {3};

/* ------------------------------------------------------------------------- */
/* AddOpsRewrite                                                              */
/* ------------------------------------------------------------------------- */

static void test_add_ops_single_shape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, D23);
    ph(g, "b", 2, D23);
    ph(g, "c", 2, D23);
    ph(g, "d", 2, D23);
    op2(g, "s/ab", "AddV2", "a", "b");
    op2(g, "s/cd", "Add", "c", "d");
    op2(g, "s/root", "AddV2", "s/ab", "s/cd");
    op1(g, "y", "Neg", "s/root");
    prun *p = run(g);
    assert_string_equal(dump(p),
                        "a=Placeholder(); b=Placeholder(); c=Placeholder(); "
                        "d=Placeholder(); y=Neg(s/ArithmeticOptimizer/AddOpsRewrite_root); "
                        "s/ArithmeticOptimizer/AddOpsRewrite_root=AddN(a,b,c,d)");
    assert_true(fired(p, "combine_add_to_addn", "s/root"));
    const char *nn = "s/ArithmeticOptimizer/AddOpsRewrite_root";
    assert_int_equal(attr_type(p, nn, "T"), 1);
    assert_true(attr_bool(p, nn, "_grappler_ArithmeticOptimizer_AddOpsRewriteStage"));
    assert_int_equal(p->led.passes[0].nodes_added, 1);
    prun_free(p);
    tg_free(g);
}

static void test_add_ops_two_shapes(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, D23);
    ph(g, "b", 1, D3);
    ph(g, "c", 2, D23);
    ph(g, "d", 1, D3);
    op2(g, "ab", "AddV2", "a", "b");
    op2(g, "abc", "AddV2", "ab", "c");
    op2(g, "root", "AddV2", "abc", "d");
    op1(g, "y", "Neg", "root");
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
    ph(g, "a", 2, D23);
    ph(g, "b", 2, D23);
    ph(g, "c", 2, D23);
    op2(g, "ab", "AddV2", "a", "b");
    op2(g, "root", "AddV2", "ab", "c");
    op2(g, "y", "Mul", "root", "ab"); /* ab read twice */
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); ab=AddV2(a,b); "
           "root=AddV2(ab,c); y=Mul(root,ab)",
           NULL);
    tg_free(g);
}

static void test_add_ops_kept_when_preserved_or_ctrl(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, D23);
    ph(g, "b", 2, D23);
    ph(g, "c", 2, D23);
    op2(g, "ab", "AddV2", "a", "b");
    op2(g, "root", "AddV2", "ab", "c");
    op1(g, "y", "Neg", "root");
    static const char *const outs[] = {"y", "ab"}; /* ab is an output */
    prun *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(dump(p), "a=Placeholder(); b=Placeholder(); c=Placeholder(); "
                                 "ab=AddV2(a,b); root=AddV2(ab,c); y=Neg(root)");
    prun_free(p);
    tg_free(g);
    g = tg_new();
    ph(g, "a", 2, D23);
    ph(g, "b", 2, D23);
    ph(g, "c", 2, D23);
    tg_node *ab = tg_add(g, "ab", "AddV2", "a", "b", "^c", NULL);
    tg_attr_type(ab, "T", 1);
    op2(g, "root", "AddV2", "ab", "c");
    op1(g, "y", "Neg", "root");
    expect(g,
           "a=Placeholder(); b=Placeholder(); c=Placeholder(); ab=AddV2(a,b,^c); "
           "root=AddV2(ab,c); y=Neg(root)",
           NULL);
    tg_free(g);
}

static void test_add_ops_kept_when_not_broadcastable(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, (int64_t[]){-1, 3}); /* unknown dim: shape not defined */
    ph(g, "b", 2, (int64_t[]){-1, 3});
    ph(g, "c", 2, (int64_t[]){-1, 3});
    op2(g, "ab", "AddV2", "a", "b");
    op2(g, "root", "AddV2", "ab", "c");
    op1(g, "y", "Neg", "root");
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
    ph(g, "x", 4, (int64_t[]){1, 8, 8, 3});
    if (scalar_scale) {
        scalar(g, "s", 0.5f);
    } else {
        tg_const_f32(g, "s", 1, D3, NULL, 0);
    }
    op2(g, "m", "Mul", "x", "s");
    op1(g, "i", "Identity", "m");
    if (const_w) {
        tg_const_f32(g, "w/k", 4, (int64_t[]){3, 3, 3, 4}, NULL, 0);
    } else {
        ph(g, "w/k", 4, (int64_t[]){3, 3, 3, 4});
    }
    tg_node *c = op2(g, "conv", "Conv2D", "i", "w/k");
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    if (shared) {
        op1(g, "y", "Neg", "m");
    }
}

static void test_fold_multiply_into_conv(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    conv_graph(g, true, true, false);
    prun *p = run(g);
    assert_string_equal(dump(p),
                        "x=Placeholder(); s=Const(); i=Identity(x); w/k=Const(); "
                        "conv=Conv2D(i,w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k); "
                        "w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k=Mul(w/k,s)");
    assert_true(fired(p, "fold_multiply_into_conv", "conv"));
    assert_int_equal(attr_type(p, "w/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_conv_k", "T"),
                     1);
    prun_free(p);
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
    ph(g, "a", 2, (int64_t[]){3, 2});
    ph(g, "b", 2, (int64_t[]){3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    op2(g, "t", "Transpose", "a", "p");
    op2(g, "mm", "MatMul", "t", "b");
    op1(g, "y", "Neg", "mm");
    prun *p = run(g);
    assert_string_equal(dump(p), "a=Placeholder(); b=Placeholder(); y=Neg(ArithmeticOptimizer/"
                                 "FoldTransposeIntoMatMul_mm); "
                                 "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm=MatMul(a,b)");
    assert_true(attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "transpose_a"));
    assert_false(attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "transpose_b"));
    prun_free(p);
    tg_free(g);
    /* BatchMatMulV2 with the right operand transposed: adj_y */
    g = tg_new();
    ph(g, "a", 3, (int64_t[]){5, 2, 3});
    ph(g, "b", 3, (int64_t[]){5, 4, 3});
    tg_const_int(g, "p", 3, 1, (int64_t[]){3}, (int64_t[]){0, 2, 1});
    op2(g, "t", "Transpose", "b", "p");
    op2(g, "mm", "BatchMatMulV2", "a", "t");
    op1(g, "y", "Neg", "mm");
    p = run(g);
    assert_string_equal(dump(p),
                        "a=Placeholder(); b=Placeholder(); y=Neg(ArithmeticOptimizer/"
                        "FoldTransposeIntoMatMul_mm); "
                        "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm=BatchMatMulV2(a,b)");
    assert_true(attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "adj_y"));
    assert_false(attr_bool(p, "ArithmeticOptimizer/FoldTransposeIntoMatMul_mm", "adj_x"));
    prun_free(p);
    tg_free(g);
}

static void test_fold_transpose_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* the perm is not an inner-matrix transpose */
    ph(g, "a", 3, (int64_t[]){2, 3, 3});
    ph(g, "b", 3, (int64_t[]){3, 3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){3}, (int64_t[]){1, 0, 2});
    op2(g, "t", "Transpose", "a", "p");
    op2(g, "mm", "BatchMatMulV2", "t", "b");
    op1(g, "y", "Neg", "mm");
    expect(g,
           "a=Placeholder(); b=Placeholder(); p=Const(); t=Transpose(a,p); "
           "mm=BatchMatMulV2(t,b); y=Neg(mm)",
           NULL);
    tg_free(g);
    g = tg_new(); /* the MatMul is an output */
    ph(g, "a", 2, (int64_t[]){3, 2});
    ph(g, "b", 2, (int64_t[]){3, 4});
    tg_const_int(g, "p", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    op2(g, "t", "Transpose", "a", "p");
    op2(g, "mm", "MatMul", "t", "b");
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
    ph(g, "x", 2, D23);
    bitcast(g, "same", "x", 1, 1);
    bitcast(g, "b1", "same", 1, 3);
    bitcast(g, "b2", "b1", 3, 6);
    tg_add(g, "y", "Identity", "b2", NULL);
    prun *p = run(g);
    assert_string_equal(dump(p), "x=Placeholder(); b2=Bitcast(x); y=Identity(b2)");
    assert_true(fired(p, "remove_redundant_bitcast", "same"));
    assert_true(fired(p, "remove_redundant_bitcast", "b2"));
    assert_int_equal(attr_type(p, "b2", "T"), 1);
    assert_int_equal(attr_type(p, "b2", "type"), 6);
    prun_free(p);
    tg_free(g);
}

static void test_redundant_bitcast_kept_when_preserved(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, D23);
    bitcast(g, "b1", "x", 1, 3);
    bitcast(g, "b2", "b1", 3, 6);
    tg_add(g, "y", "Identity", "b2", NULL);
    static const char *const outs[] = {"y", "b1"};
    prun *p = run_outs(g, outs, 2, FL_DEVICE_CPU);
    assert_string_equal(dump(p), "x=Placeholder(); b1=Bitcast(x); b2=Bitcast(b1); y=Identity(b2)");
    prun_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* SimplifyAggregation: N copies                                              */
/* ------------------------------------------------------------------------- */

static void test_aggregation_of_copies(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, D23);
    tg_node *n = tg_add(g, "s/sum", "AddN", "x", "x", "x", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_int(n, "N", 3);
    op1(g, "y", "Neg", "s/sum");
    prun *p = run(g);
    assert_string_equal(dump(p), "x=Placeholder(); y=Neg(s/ArithmeticOptimizer/"
                                 "SimplifyAggregation_Mul_sum); "
                                 "s/ArithmeticOptimizer/SimplifyAggregation_Const_sum=Const(^x); "
                                 "s/ArithmeticOptimizer/SimplifyAggregation_Mul_sum=Mul(s/"
                                 "ArithmeticOptimizer/SimplifyAggregation_Const_sum,x)");
    const fl_node *c = node(p, "s/ArithmeticOptimizer/SimplifyAggregation_Const_sum");
    double v = 0;
    assert_true(fl_value_f64(c->outputs[0].value, 0, &v));
    assert_true(v == 3.0);
    assert_int_equal(c->outputs[0].shape.rank, 0);
    assert_true(fired(p, "simplify_aggregation", "s/sum"));
    prun_free(p);
    tg_free(g);
}

static void test_aggregation_kept_when_inputs_differ_or_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, D23);
    ph(g, "z", 2, D23);
    tg_node *n = tg_add(g, "sum", "AddN", "x", "x", "z", NULL);
    tg_attr_type(n, "T", 1);
    tg_attr_int(n, "N", 3);
    op2(g, "out", "AddV2", "x", "x"); /* an output: kept */
    op1(g, "y", "Neg", "sum");
    expect(g, "x=Placeholder(); z=Placeholder(); sum=AddN(x,x,z); out=AddV2(x,x); y=Neg(sum)",
           NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConvertPow                                                                 */
/* ------------------------------------------------------------------------- */

static void pow_graph(tg_graph *g, float e) {
    ph(g, "x", 2, D23);
    scalar(g, "e", e);
    op2(g, "p", "Pow", "x", "e");
    op1(g, "y", "Neg", "p");
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
    prun *p = run_outs(g, NULL, 0, FL_DEVICE_GPU);
    assert_string_equal(dump(p), "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)");
    prun_free(p);
    tg_free(g);
    g = tg_new();
    pow_graph(g, 0);
    p = run(g);
    assert_string_equal(dump(p), "x=Placeholder(); e=Const(); p=Const(^x,^e); y=Neg(p)");
    double v = 0;
    assert_non_null(node(p, "p")->outputs[0].value);
    assert_true(fl_value_f64(node(p, "p")->outputs[0].value, 5, &v) && v == 1.0);
    prun_free(p);
    tg_free(g);
}

static void test_convert_pow_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* exponent elements differ */
    ph(g, "x", 2, D23);
    tg_const_f32_vals(g, "e", 1, D3, (const float[]){2, 2, 3}, 3);
    op2(g, "p", "Pow", "x", "e");
    op1(g, "y", "Neg", "p");
    expect(g, "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* the exponent broadcasts x: the shape would change */
    ph(g, "x", 1, D3);
    tg_const_f32_vals(g, "e", 2, D23, (const float[]){2}, 1);
    op2(g, "p", "Pow", "x", "e");
    op1(g, "y", "Neg", "p");
    expect(g, "x=Placeholder(); e=Const(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
    g = tg_new(); /* exponent not constant */
    ph(g, "x", 2, D23);
    ph(g, "e", 0, NULL);
    op2(g, "p", "Pow", "x", "e");
    op1(g, "y", "Neg", "p");
    expect(g, "x=Placeholder(); e=Placeholder(); p=Pow(x,e); y=Neg(p)", NULL);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConvertLog1p, ConvertExpm1                                                 */
/* ------------------------------------------------------------------------- */

static void test_convert_log1p(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, D23);
    scalar(g, "one", 1);
    op2(g, "a", "AddV2", "one", "x");
    op1(g, "l", "Log", "a");
    expect(g, "x=Placeholder(); one=Const(); l=Log1p(x,^one)", "convert_log1p");
    tg_free(g);
}

static void test_convert_log1p_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* not one */
    ph(g, "x", 2, D23);
    scalar(g, "two", 2);
    op2(g, "a", "AddV2", "x", "two");
    op1(g, "l", "Log", "a");
    expect(g, "x=Placeholder(); two=Const(); a=AddV2(x,two); l=Log(a)", NULL);
    tg_free(g);
    g = tg_new(); /* the ones broadcast x */
    ph(g, "x", 1, D3);
    tg_const_f32_vals(g, "one", 2, D23, (const float[]){1}, 1);
    op2(g, "a", "AddV2", "x", "one");
    op1(g, "l", "Log", "a");
    expect(g, "x=Placeholder(); one=Const(); a=AddV2(x,one); l=Log(a)", NULL);
    tg_free(g);
}

static void test_convert_expm1(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, D23);
    scalar(g, "one", 1);
    op1(g, "e", "Exp", "x");
    op2(g, "s", "Sub", "e", "one");
    expect(g, "x=Placeholder(); one=Const(); s=Expm1(x,^one)", "convert_expm1");
    tg_free(g);
}

static void test_convert_expm1_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new(); /* Sub(1, Exp(x)): wrong side */
    ph(g, "x", 2, D23);
    scalar(g, "one", 1);
    op1(g, "e", "Exp", "x");
    op2(g, "s", "Sub", "one", "e");
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
    ph(g, "x", 2, D23);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    op1(g, "f", f, "x");
    tg_node *r = tg_add(g, "r", red, "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    op1(g, "y", "Abs", "r");
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
    ph(g, "x", 2, D23);
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    op1(g, "f", "Tanh", "x");
    tg_node *r = tg_add(g, "r", "ArgMax", "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    tg_attr_type(r, "Tidx", 3);
    tg_attr_type(r, "output_type", 9);
    tg_node *y = tg_add(g, "y", "Identity", "r", NULL);
    tg_attr_type(y, "T", 9);
    prun *p = run(g);
    assert_string_equal(
        dump(p), "x=Placeholder(); ax=Const(); f=Identity(r); r=ArgMax(x,ax); y=Identity(f)");
    assert_int_equal(attr_type(p, "f", "T"), 9);
    prun_free(p);
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
    op1(g, "y2", "Abs", "f");
    expect(g, "x=Placeholder(); ax=Const(); f=Exp(x); r=Max(f,ax); y=Abs(r); y2=Abs(f)", NULL);
    tg_free(g);
    g = tg_new(); /* MaxPool of a decreasing function */
    ph(g, "x", 4, (int64_t[]){1, 4, 4, 3});
    op1(g, "f", "Neg", "x");
    tg_node *mp = op1(g, "mp", "MaxPool", "f");
    tg_attr_ints(mp, "ksize", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_ints(mp, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(mp, "padding", "VALID");
    op1(g, "y", "Abs", "mp");
    expect(g, "x=Placeholder(); f=Neg(x); mp=MaxPool(f); y=Abs(mp)", NULL);
    tg_free(g);
    g = tg_new(); /* Relu fed by BiasAdd: left for the remapper */
    ph(g, "x", 2, D23);
    tg_const_f32(g, "b", 1, D3, NULL, 0);
    op2(g, "ba", "BiasAdd", "x", "b");
    tg_const_int(g, "ax", 3, 0, NULL, (int64_t[]){1});
    op1(g, "f", "Relu", "ba");
    tg_node *r = tg_add(g, "r", "Max", "f", "ax", NULL);
    tg_attr_type(r, "T", 1);
    op1(g, "y", "Abs", "r");
    expect(g,
           "x=Placeholder(); b=Const(); ba=BiasAdd(x,b); ax=Const(); f=Relu(ba); r=Max(f,ax); "
           "y=Abs(r)",
           NULL);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
