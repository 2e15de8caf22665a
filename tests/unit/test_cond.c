/*
 * test_cond.c - TensorFlow v1 conds (tf.cond lowered to Switch/Merge) with a
 * predicate the analysis cannot know: both branches are inferred, the Merge
 * gets the most specific shape every branch fits (a fresh symbol NODE.AXIS
 * where they differ, unknown where a branch is unknown), the totals count
 * both branches and a warning states each branch's cost.
 *
 * The graphs are built as tf.cond builds them (TF 1.x control_flow_ops.cond):
 * a Switch of the predicate with itself whose outputs, through Identity
 * (switch_f / switch_t), anchor the branch constants by control edges, and a
 * Switch per tensor a branch reads.
 *
 * Counts (src/ops; MatMul [M,K]x[K,N]: 2*M*K*N FLOPs, M*K*N MACs; Relu and
 * Greater: 1 FLOP per output element; Identity, Switch, Merge, Const: 0).
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static void mm(tg_graph *g, const char *name, const char *a, const char *b) {
    tg_node *n = tg_add(g, name, "MatMul", a, b, NULL);
    tg_attr_type(n, "T", 1);
}

static void unary(tg_graph *g, const char *name, const char *op, const char *a) {
    tg_node *n = tg_add(g, name, op, a, NULL);
    tg_attr_type(n, "T", 1);
}

/* x [2,16] float, t a float scalar; pred = Greater(t, 0.5) (known only at
 * run time); cond/Switch = Switch(pred, pred) with switch_f/switch_t; the
 * data Switch cond/Switch_1 = Switch(x, pred). */
static tg_graph *cond_head_t(const float *t_const) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000); /* a scalar shape attr means scalar (from 21 on) */
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 16});
    if (t_const) {
        tg_const_f32_vals(g, "t", 0, NULL, t_const, 1);
    } else {
        tg_placeholder(g, "t", 1, 0, NULL);
    }
    tg_const_f32_vals(g, "half", 0, NULL, (float[]){0.5f}, 1);
    tg_node *p = tg_add(g, "pred", "Greater", "t", "half", NULL);
    tg_attr_type(p, "T", 1);
    tg_node *s = tg_add(g, "cond/Switch", "Switch", "pred", "pred", NULL);
    tg_attr_type(s, "T", 10);
    tg_node *f = tg_add(g, "cond/switch_f", "Identity", "cond/Switch", NULL);
    tg_attr_type(f, "T", 10);
    tg_node *t = tg_add(g, "cond/switch_t", "Identity", "cond/Switch:1", NULL);
    tg_attr_type(t, "T", 10);
    tg_node *s1 = tg_add(g, "cond/Switch_1", "Switch", "x", "pred", NULL);
    tg_attr_type(s1, "T", 1);
    return g;
}

static tg_graph *cond_head(void) {
    return cond_head_t(NULL);
}

static void merge(tg_graph *g, const char *a, const char *b) {
    tg_node *m = tg_add(g, "cond/Merge", "Merge", a, b, NULL);
    tg_attr_type(m, "T", 1);
    tg_attr_int(m, "N", 2);
}

/* false: x @ w_f [16,n_f]; true: Relu(x @ w_t [16,n_t]); merged. The
 * weights hang off the pivots by control edges, as tf.cond makes them. */
static tg_graph *cond_graph_t(int64_t n_f, int64_t n_t, const float *t_const) {
    tg_graph *g = cond_head_t(t_const);
    tg_input(tg_const_f32(g, "cond/w_f", 2, (int64_t[]){16, n_f}, NULL, 0), "^cond/switch_f");
    tg_input(tg_const_f32(g, "cond/w_t", 2, (int64_t[]){16, n_t}, NULL, 0), "^cond/switch_t");
    mm(g, "cond/f", "cond/Switch_1", "cond/w_f");
    mm(g, "cond/t", "cond/Switch_1:1", "cond/w_t");
    unary(g, "cond/t_relu", "Relu", "cond/t");
    merge(g, "cond/f", "cond/t_relu");
    return g;
}

static tg_graph *cond_graph(int64_t n_f, int64_t n_t) {
    return cond_graph_t(n_f, n_t, NULL);
}

static const char *find_warning(const fl_report *r, const char *prefix) {
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strncmp(r->warnings[i], prefix, strlen(prefix)) == 0) {
            return r->warnings[i];
        }
    }
    return NULL;
}

/* Equal branch shapes: the Merge is exact and what follows it is counted. */
static void test_cond_equal_shapes(void **state) {
    (void)state;
    tg_graph *g = cond_graph(32, 32);
    tg_const_f32(g, "w3", 2, (int64_t[]){32, 8}, NULL, 0);
    mm(g, "out", "cond/Merge", "w3");
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,32]");
    assert_string_equal(tg_find(r, "out")->outputs[0].shape, "[2,8]");
    /* out: 2*2*32*8 = 1024 FLOPs, 512 MACs. */
    assert_int_equal(tg_find(r, "out")->flops.value, 1024);
    assert_int_equal(tg_find(r, "out")->macs.value, 512);
    assert_true(r->complete);
    /* Both branches counted: Greater 1 + false 2*2*16*32 (2048) + true 2048
     * + Relu 64 + out 1024 = 5185; MACs 1024 + 1024 + 512 = 2560. */
    assert_int_equal(r->totals.flops.value, 5185);
    assert_int_equal(r->totals.macs.value, 2560);
    fl_report_free(r);
    tg_free(g);
}

/* The warning states each branch: false = switch_f, w_f, f (3 nodes, 2048
 * FLOPs, 1024 MACs); true = switch_t, w_t, t, t_relu (4 nodes, 2048 + 64
 * FLOPs, 1024 MACs). The Merge and `out` follow the join: in neither. */
static void test_cond_branch_warning(void **state) {
    (void)state;
    tg_graph *g = cond_graph(32, 32);
    tg_const_f32(g, "w3", 2, (int64_t[]){32, 8}, NULL, 0);
    mm(g, "out", "cond/Merge", "w3");
    fl_report *r = tg_analyze(g, NULL);
    const char *w = find_warning(r, "cond on predicate");
    assert_non_null(w);
    assert_string_equal(w, "cond on predicate 'pred' (2 Switch node(s), e.g. 'cond/Switch'): the "
                           "totals count both branches, though one runs per step: false branch "
                           "2048 FLOPs, 1024 MACs over 3 node(s); true branch 2112 FLOPs, 1024 "
                           "MACs over 4 node(s)");
    fl_report_free(r);
    tg_free(g);
}

/* Branches of different widths (32 and 64 columns): the Merge's column dim
 * is the fresh symbol cond/Merge.1, never 0 and never one branch's size;
 * what follows is counted in it, and --bind cond/Merge.1=N picks a branch. */
static void test_cond_differing_dims_symbol(void **state) {
    (void)state;
    tg_graph *g = cond_graph(32, 64);
    unary(g, "out", "Relu", "cond/Merge");
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,cond/Merge.1]");
    const fl_report_node *out = tg_find(r, "out");
    assert_string_equal(out->outputs[0].shape, "[2,cond/Merge.1]");
    assert_false(out->incomplete);
    assert_false(out->flops.known);
    assert_string_equal(out->flops.text, "2*cond/Merge.1");
    assert_true(r->complete);
    /* 1 + 2*2*16*32 (2048) + 2*2*16*64 (4096) + Relu 128 + 2*m. */
    assert_string_equal(r->totals.flops.text, "2*cond/Merge.1 + 6273");
    assert_int_equal(r->n_symbols, 1);
    assert_string_equal(r->symbols[0], "cond/Merge.1");
    fl_report_free(r);

    /* The true branch's width bound: everything exact. */
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_symbol_binding b = {"cond/Merge.1", 64};
    o.symbols = &b;
    o.n_symbols = 1;
    r = tg_analyze(g, &o);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,64]");
    assert_int_equal(tg_find(r, "out")->flops.value, 128);
    assert_int_equal(r->totals.flops.value, 6273 + 128);
    fl_report_free(r);
    tg_free(g);
}

/* A predicate the analysis knows (here t fed as a value: Greater(t, 0.5)
 * evaluates) leaves the other branch dead, as TensorFlow's executor does:
 * the Merge is the taken branch's shape, with no symbol; the dead branch's
 * nodes count 0 FLOPs (tfprof, reading the static graph, still counts
 * them); the warning names the branch that runs. */
static void test_cond_known_pred(void **state) {
    (void)state;
    tg_graph *g = cond_graph(32, 64);
    unary(g, "out", "Relu", "cond/Merge");
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_tensor_value_binding v = {"t", (double[]){1.0}, 1};
    o.tensor_values = &v;
    o.n_tensor_values = 1;
    fl_report *r = tg_analyze(g, &o);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,64]");
    assert_int_equal(tg_find(r, "out")->flops.value, 128);
    assert_int_equal(tg_find(r, "cond/f")->flops.value, 0);
    assert_int_equal(tg_find(r, "cond/f")->macs.value, 0);
    assert_int_equal(tg_find(r, "cond/f")->tfprof_flops.value, 2048);
    assert_int_equal(tg_find(r, "cond/t")->flops.value, 4096);
    assert_true(r->complete);
    assert_int_equal(r->n_symbols, 0);
    /* Greater 1 + true 2*2*16*64 (4096) + Relu 128 + out 128. */
    assert_int_equal(r->totals.flops.value, 4353);
    assert_int_equal(r->totals.macs.value, 2048);
    assert_string_equal(find_warning(r, "cond on predicate"),
                        "cond on predicate 'pred' (2 Switch node(s), e.g. 'cond/Switch'): the "
                        "predicate is known to be true, so only that branch runs and is counted "
                        "(true branch 4224 FLOPs, 2048 MACs over 4 node(s)); the false branch's 3 "
                        "node(s) do not run and count 0");
    fl_report_free(r);

    /* With the passes: the dead branch stays dead through each rewrite. */
    o.passes = "default";
    r = tg_analyze(g, &o);
    assert_int_equal(r->after.flops.value, 4353);
    fl_report_free(r);
    o.passes = NULL;

    /* False: the [2,32] branch; its 2048 FLOPs + Greater 1 + out 64. */
    v.values = (double[]){0.0};
    r = tg_analyze(g, &o);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,32]");
    assert_int_equal(tg_find(r, "cond/t")->flops.value, 0);
    assert_int_equal(tg_find(r, "cond/t_relu")->flops.value, 0);
    assert_int_equal(r->totals.flops.value, 2113);
    assert_int_equal(r->totals.macs.value, 1024);
    assert_true(r->complete);
    fl_report_free(r);
    tg_free(g);
}

/* A constant predicate (t a Const 0.25: Greater(t, 0.5) is false): the
 * graph as given counts the false branch only; constant folding then makes
 * the predicate a Const and rewires the Switches, and the re-inference of
 * the rewritten graph keeps the true branch dead: the same count after,
 * less the folded Greater. */
static void test_cond_constant_pred_passes(void **state) {
    (void)state;
    tg_graph *g = cond_graph_t(32, 64, (const float[]){0.25f});
    unary(g, "out", "Relu", "cond/Merge");
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    fl_report *r = tg_analyze(g, &o);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[2,32]");
    assert_int_equal(r->before.flops.value, 2113);
    assert_int_equal(r->after.flops.value, 2112);
    assert_int_equal(r->after.macs.value, 1024);
    assert_true(r->complete);
    fl_report_free(r);
    tg_free(g);
}

/* A cond inside a branch that does not run (t = 0.25: the outer true
 * branch is dead, and with it the inner cond's Switches, though the inner
 * predicate Less(t, 0.5) is known too): one warning, the outer cond's; the
 * inner cond's nodes count 0. */
static void test_cond_nested_in_dead_branch(void **state) {
    (void)state;
    tg_graph *g = cond_head_t((const float[]){0.25f});
    tg_input(tg_const_f32(g, "cond/w_f", 2, (int64_t[]){16, 32}, NULL, 0), "^cond/switch_f");
    tg_input(tg_const_f32(g, "cond/w_t", 2, (int64_t[]){16, 32}, NULL, 0), "^cond/switch_t");
    mm(g, "cond/f", "cond/Switch_1", "cond/w_f");
    mm(g, "cond/t", "cond/Switch_1:1", "cond/w_t");
    tg_node *p2 = tg_add(g, "cond/inner/pred", "Less", "t", "half", NULL);
    tg_attr_type(p2, "T", 1);
    tg_node *s2 = tg_add(g, "cond/inner/Switch", "Switch", "cond/t", "cond/inner/pred", NULL);
    tg_attr_type(s2, "T", 1);
    unary(g, "cond/inner/f", "Relu", "cond/inner/Switch");
    unary(g, "cond/inner/t", "Sigmoid", "cond/inner/Switch:1");
    tg_node *m2 = tg_add(g, "cond/inner/Merge", "Merge", "cond/inner/f", "cond/inner/t", NULL);
    tg_attr_type(m2, "T", 1);
    tg_attr_int(m2, "N", 2);
    merge(g, "cond/f", "cond/inner/Merge");
    fl_report *r = tg_analyze(g, NULL);
    size_t conds = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        conds += strncmp(r->warnings[i], "cond on predicate", 17) == 0;
    }
    assert_int_equal(conds, 1);
    assert_non_null(find_warning(r, "cond on predicate 'pred' (2 Switch node(s), e.g. "
                                    "'cond/Switch'): the predicate is known to be false"));
    assert_int_equal(tg_find(r, "cond/inner/t")->flops.value, 0);
    assert_int_equal(tg_find(r, "cond/inner/pred")->flops.value, 1);
    /* Greater 1 + Less 1 + false 2*2*16*32 (2048). */
    assert_int_equal(r->totals.flops.value, 2050);
    fl_report_free(r);
    tg_free(g);
}

/* A branch whose output has unknown rank (an op the registry does not
 * know): the Merge has unknown rank too - it does not take the other
 * branch's shape - and what follows is incomplete, not a silent zero. */
static void test_cond_unknown_branch(void **state) {
    (void)state;
    tg_graph *g = cond_head();
    tg_input(tg_const_f32(g, "cond/w_f", 2, (int64_t[]){16, 32}, NULL, 0), "^cond/switch_f");
    mm(g, "cond/f", "cond/Switch_1", "cond/w_f");
    unary(g, "cond/t", "SomeCustomOp", "cond/Switch_1:1");
    merge(g, "cond/f", "cond/t");
    unary(g, "out", "Relu", "cond/Merge");
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "?");
    assert_true(tg_find(r, "out")->incomplete);
    assert_false(r->complete);
    fl_report_free(r);
    tg_free(g);
}

/* Same rank, one branch with an unknown dim: that dim is unknown (a symbol
 * would claim a size the analysis does not have), the others stay. */
static void test_cond_unknown_dim(void **state) {
    (void)state;
    tg_graph *g = cond_head();
    tg_placeholder(g, "y", 1, 2, (int64_t[]){-1, 32});
    tg_node *s2 = tg_add(g, "cond/Switch_2", "Switch", "y", "pred", NULL);
    tg_attr_type(s2, "T", 1);
    tg_input(tg_const_f32(g, "cond/w_f", 2, (int64_t[]){16, 32}, NULL, 0), "^cond/switch_f");
    mm(g, "cond/f", "cond/Switch_1", "cond/w_f");
    unary(g, "cond/t", "Relu", "cond/Switch_2:1");
    merge(g, "cond/f", "cond/t");
    fl_report *r = tg_analyze(g, NULL);
    /* y's first dim is the symbol y.0: known on both sides, so differing
     * (2 vs y.0) gives the Merge symbol. */
    assert_string_equal(tg_find(r, "cond/Merge")->outputs[0].shape, "[cond/Merge.0,32]");
    fl_report_free(r);
    tg_free(g);
}

/* A binding naming a symbol no node makes lists the cond's symbol too. */
static void test_cond_symbol_listed(void **state) {
    (void)state;
    tg_graph *g = cond_graph(32, 64);
    fl_options o;
    fl_options_init(&o);
    fl_symbol_binding b = {"nope", 3};
    o.symbols = &b;
    o.n_symbols = 1;
    tg_expect_error(g, &o, FL_EUSAGE, "(its symbols: cond/Merge.1)");
    tg_free(g);
}

/* A while loop's Switches (predicate from LoopCond) are not conds: no
 * warning, and the loop Merge keeps its rule (NextIteration back edge). */
static void test_loop_switch_not_cond(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_const_i32_vals(g, "zero", 0, NULL, (int32_t[]){0}, 1);
    tg_const_i32_vals(g, "ten", 0, NULL, (int32_t[]){10}, 1);
    tg_const_i32_vals(g, "one", 0, NULL, (int32_t[]){1}, 1);
    tg_node *e = tg_add(g, "w/Enter", "Enter", "zero", NULL);
    tg_attr_type(e, "T", 3);
    tg_attr_str(e, "frame_name", "w");
    tg_node *m = tg_add(g, "w/Merge", "Merge", "w/Enter", "w/NextIteration", NULL);
    tg_attr_type(m, "T", 3);
    tg_attr_int(m, "N", 2);
    tg_node *l = tg_add(g, "w/Less", "Less", "w/Merge", "ten", NULL);
    tg_attr_type(l, "T", 3);
    tg_add(g, "w/LoopCond", "LoopCond", "w/Less", NULL);
    tg_node *s = tg_add(g, "w/Switch", "Switch", "w/Merge", "w/LoopCond", NULL);
    tg_attr_type(s, "T", 3);
    tg_node *i = tg_add(g, "w/Identity", "Identity", "w/Switch:1", NULL);
    tg_attr_type(i, "T", 3);
    tg_node *a = tg_add(g, "w/add", "AddV2", "w/Identity", "one", NULL);
    tg_attr_type(a, "T", 3);
    tg_node *n = tg_add(g, "w/NextIteration", "NextIteration", "w/add", NULL);
    tg_attr_type(n, "T", 3);
    tg_node *x = tg_add(g, "w/Exit", "Exit", "w/Switch", NULL);
    tg_attr_type(x, "T", 3);
    fl_report *r = tg_analyze(g, NULL);
    assert_null(find_warning(r, "cond on predicate"));
    assert_string_equal(tg_find(r, "w/Exit")->outputs[0].shape, "[]");
    fl_report_free(r);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cond_equal_shapes),
        cmocka_unit_test(test_cond_branch_warning),
        cmocka_unit_test(test_cond_differing_dims_symbol),
        cmocka_unit_test(test_cond_unknown_branch),
        cmocka_unit_test(test_cond_unknown_dim),
        cmocka_unit_test(test_cond_symbol_listed),
        cmocka_unit_test(test_loop_switch_not_cond),
        cmocka_unit_test(test_cond_known_pred),
        cmocka_unit_test(test_cond_constant_pred_passes),
        cmocka_unit_test(test_cond_nested_in_dead_branch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
