/*
 * test_hoist_unary.c - ArithmeticOptimizer's HoistCWiseUnaryChains (stage
 * 20, src/passes/arithmetic_optimizer.c): the Concat and Split forms, with
 * the exact rewritten graph (names included), and one negative test per
 * blocking condition (*_kept_when_<reason>).
 *
 * Runs use the arithmetic pass alone, one iteration; most target GPU so that
 * UnaryOpsComposition (CPU only) leaves the hoisted chains visible; one test
 * shows the two stages together on CPU.
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
/* Harness (a minimal copy of test_arithmetic.c's)                            */
/* ------------------------------------------------------------------------- */

typedef struct prun {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_ledger led;
    fl_cost_totals before, after;
    fl_options opt;
    fl_pipeline_config cfg;
    char dump[8192];
} prun;

typedef struct popts {
    const char *passes;
    int iterations;
    fl_device device;
    fl_remapper_mode mode;
    const char *const *outputs; /* NULL: the nodes without consumers */
    size_t n_outputs;
} popts;

/* Imports tg and runs the pipeline as o says (outputs: the nodes without
 * consumers), verifier on; asserts success. */
static prun *run_with(tg_graph *tg, const popts *o) {
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
    if (st == FL_OK) {
        st = fl_graph_toposort(p->g, &p->d);
    }
    if (st == FL_OK) {
        st = fl_infer_shapes(&p->c, &p->opt, &ir);
    }
    if (st == FL_OK) {
        st = fl_cost_graph(&p->c, &p->before);
    }
    fl_pipeline_config_init(&p->cfg);
    p->cfg.passes = o->passes;
    p->cfg.opt.iterations = o->iterations;
    p->cfg.opt.device = o->device;
    p->cfg.opt.remapper_mode = o->mode;
    p->cfg.outputs = o->outputs;
    p->cfg.n_outputs = o->n_outputs;
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

static const int64_t D23[] = {2, 3};
static const int64_t D43[] = {4, 3};

static prun *arith(tg_graph *g, fl_device dev) {
    popts o = {"arithmetic", 1, dev, FL_REMAPPER_STANDARD, NULL, 0};
    return run_with(g, &o);
}

/* Expects the arithmetic pass (GPU) to leave g as it is (dump `want`),
 * with no hoist in the ledger. */
static void expect_kept(tg_graph *g, const char *want) {
    prun *p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(dump(p), want);
    assert_false(fired(p, "hoist_cwise_unary_chains", NULL));
    prun_free(p);
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
    op1(g, "a/sin", "Sin", "x");
    op1(g, "a/exp", "Exp", "a/sin");
    op1(g, "b/sin", "Sin", "y");
    op1(g, "b/exp", "Exp", "b/sin");
    concat_v2(g, "c", "a/exp", "b/exp");
    op1(g, "out", "Identity", "c");
    return g;
}

static void test_hoist_concat(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    prun *p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(dump(p), "x=Placeholder(); y=Placeholder(); axis=Const(); a/sin=Sin(c); "
                                 "a/exp=Exp(a/sin); c=ConcatV2(x,y,axis); out=Identity(a/exp)");
    assert_true(fired(p, "hoist_cwise_unary_chains", "c"));
    const fl_node *c = node(p, "c");
    assert_int_equal(c->outputs[0].shape.rank, 2);
    assert_int_equal(c->outputs[0].shape.dims[0].k, 4);
    assert_int_equal(c->outputs[0].shape.dims[1].k, 3);
    const fl_node *e = node(p, "a/exp");
    assert_int_equal(e->outputs[0].dtype, FL_DT_FLOAT);
    assert_int_equal(e->outputs[0].shape.dims[0].k, 4);
    /* the same element-wise work: 2 ops on 12 elements */
    assert_int_equal(p->before.flops.k, p->after.flops.k);
    assert_int_equal(p->after.flops.k, 24);
    prun_free(p);
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
    op1(g, "sa", "Sin", "x");
    op1(g, "ea", "Exp", "sa");
    tg_node *sb = tg_add(g, "sb", "Sin", "y", "^dep", NULL);
    tg_attr_type(sb, "T", 1);
    op1(g, "eb", "Exp", "sb");
    tg_node *c = tg_add(g, "c", "Concat", "axis", "ea", "eb", NULL);
    tg_attr_int(c, "N", 2);
    tg_attr_type(c, "T", 1);
    op1(g, "out", "Identity", "c");
    prun *p = arith(g, FL_DEVICE_CPU);
    assert_string_equal(dump(p),
                        "x=Placeholder(); y=Placeholder(); dep=Placeholder(); axis=Const(); "
                        "c=Concat(axis,x,y,^dep); out=Identity(ea/unary_ops_composition); "
                        "ea/unary_ops_composition=_UnaryOpsComposition(c)");
    assert_true(fired(p, "hoist_cwise_unary_chains", "c"));
    assert_true(fired(p, "unary_ops_composition", "ea"));
    prun_free(p);
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
    op1(g, "ea", "Exp", "blk/split");
    op1(g, "na", "Neg", "ea");
    op1(g, "eb", "Exp", "blk/split:1");
    op1(g, "nb", "Neg", "eb");
    op1(g, "oa", "Identity", "na");
    op1(g, "ob", "Identity", "nb");
    return g;
}

static void test_hoist_split(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    prun *p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(
        dump(p), "x=Placeholder(); axis=Const(); "
                 "blk/split=Split(axis,blk/ArithmeticOptimizer/_na_split); oa=Identity(blk/split); "
                 "ob=Identity(blk/split:1); blk/ArithmeticOptimizer/_ea_split=Exp(x); "
                 "blk/ArithmeticOptimizer/_na_split=Neg(blk/ArithmeticOptimizer/_ea_split)");
    assert_true(fired(p, "hoist_cwise_unary_chains", "blk/split"));
    const fl_node *s = node(p, "blk/split");
    assert_int_equal(s->outputs[1].shape.dims[0].k, 2);
    assert_int_equal(s->outputs[1].shape.dims[1].k, 3);
    const fl_node *e = node(p, "blk/ArithmeticOptimizer/_ea_split");
    assert_int_equal(e->outputs[0].shape.dims[0].k, 4);
    assert_int_equal(p->before.flops.k, p->after.flops.k);
    prun_free(p);
    tg_free(g);
    g = split_graph(true); /* SplitV: the value is input 0 */
    p = arith(g, FL_DEVICE_GPU);
    assert_string_equal(
        dump(p),
        "x=Placeholder(); axis=Const(); sizes=Const(); "
        "blk/split=SplitV(blk/ArithmeticOptimizer/_na_split,sizes,axis); oa=Identity(blk/split); "
        "ob=Identity(blk/split:1); blk/ArithmeticOptimizer/_ea_split=Exp(x); "
        "blk/ArithmeticOptimizer/_na_split=Neg(blk/ArithmeticOptimizer/_ea_split)");
    const fl_node *sv = node(p, "blk/split");
    assert_int_equal(sv->outputs[0].shape.dims[0].k, 1);
    assert_int_equal(sv->outputs[1].shape.dims[0].k, 3);
    prun_free(p);
    tg_free(g);
}

static void test_hoist_kept_when_ops_differ(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    op1(g, "ea", "Exp", "x");
    op1(g, "lb", "Log", "y");
    concat_v2(g, "c", "ea", "lb");
    op1(g, "out", "Identity", "c");
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); ea=Exp(x); lb=Log(y); "
                   "c=ConcatV2(ea,lb,axis); out=Identity(c)");
}

static void test_hoist_kept_when_not_unary(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    op2(g, "ma", "Mul", "x", "y");
    op2(g, "mb", "Mul", "y", "x");
    concat_v2(g, "c", "ma", "mb");
    op1(g, "out", "Identity", "c");
    expect_kept(g, "x=Placeholder(); y=Placeholder(); axis=Const(); ma=Mul(x,y); mb=Mul(y,x); "
                   "c=ConcatV2(ma,mb,axis); out=Identity(c)");
}

static void test_hoist_kept_when_shared(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    op1(g, "other", "Identity", "a/exp"); /* a/exp read twice */
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
    op1(g, "ea", "Exp", "x");
    concat_v2(g, "c", "ea", "ea");
    op1(g, "out", "Identity", "c");
    expect_kept(
        g, "x=Placeholder(); axis=Const(); ea=Exp(x); c=ConcatV2(ea,ea,axis); out=Identity(c)");
}

static void test_hoist_kept_when_preserved(void **state) {
    (void)state;
    tg_graph *g = concat_graph(); /* a chain op is a graph output */
    const char *outs[] = {"out", "b/exp"};
    popts o = {"arithmetic", 1, FL_DEVICE_GPU, FL_REMAPPER_STANDARD, outs, 2};
    prun *p = run_with(g, &o);
    assert_false(fired(p, "hoist_cwise_unary_chains", NULL));
    node(p, "a/sin");
    node(p, "b/sin");
    assert_string_equal(node(p, "c")->inputs[0].node->name, "a/exp");
    prun_free(p);
    tg_free(g);
    g = concat_graph(); /* the Concat is a graph output */
    const char *outs2[] = {"out", "c"};
    popts o2 = {"arithmetic", 1, FL_DEVICE_GPU, FL_REMAPPER_STANDARD, outs2, 2};
    p = run_with(g, &o2);
    assert_false(fired(p, "hoist_cwise_unary_chains", NULL));
    prun_free(p);
    tg_free(g);
}

static void test_hoist_kept_when_dtype_changes(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, D23);
    tg_placeholder(g, "y", 1, 2, D23);
    axis0(g, "axis");
    op1(g, "na", "IsNan", "x");
    op1(g, "nb", "IsNan", "y");
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
    op2(g, "ba", "BiasAdd", "x", "bias");
    op1(g, "ra", "Relu", "ba");
    op2(g, "bb", "BiasAdd", "y", "bias");
    op1(g, "rb", "Relu", "bb");
    concat_v2(g, "c", "ra", "rb");
    op1(g, "out", "Identity", "c");
    expect_kept(
        g, "x=Placeholder(); y=Placeholder(); bias=Const(); axis=Const(); ba=BiasAdd(x,bias); "
           "ra=Relu(ba); bb=BiasAdd(y,bias); rb=Relu(bb); c=ConcatV2(ra,rb,axis); out=Identity(c)");
}

static void test_hoist_split_kept_when_first_input_elsewhere(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    tg_placeholder(g, "z", 1, 2, D23);
    op2(g, "sub", "Sub", "z", "blk/split:1"); /* reads the Split as input 1 */
    op1(g, "os", "Identity", "sub");
    expect_kept(g, "x=Placeholder(); axis=Const(); blk/split=Split(axis,x); ea=Exp(blk/split); "
                   "na=Neg(ea); eb=Exp(blk/split:1); nb=Neg(eb); oa=Identity(na); ob=Identity(nb); "
                   "z=Placeholder(); sub=Sub(z,blk/split:1); os=Identity(sub)");
}

static void test_hoist_split_kept_when_too_many_edges(void **state) {
    (void)state;
    tg_graph *g = split_graph(false);
    op1(g, "ec", "Exp", "blk/split"); /* 3 data edges, num_split 2 */
    op1(g, "oc", "Identity", "ec");
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
    op1(g, "ea", "Exp", "s");
    op1(g, "oa", "Identity", "ea");
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
