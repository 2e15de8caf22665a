/*
 * test_tf_while.c - TensorFlow's functional While / StatelessWhile and Case
 * (TF 2 graphs, SavedModels) lowered at import (src/import/funcinline.c):
 * a While's cond and body are inlined on the loop variables (typed, without
 * values); a counted loop (src/import/tf_loop.c, the recognizer TFLite's
 * WHILE uses) counts its body once per trip and its cond once more, any
 * other loop counts them once with a warning saying the totals are a lower
 * bound; a Case costs every branch (an upper bound, as both branches of an
 * If), with a warning giving each branch's counts.
 *
 * Counts: MatMul [M,K]x[K,N] 2*M*K*N FLOPs, M*K*N MACs; AddV2, Less, Relu 1
 * FLOP per output element; Identity, IdentityN, Const 0.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#define DT_FLOAT 1
#define DT_INT32 3

static bool warned(const fl_report *r, const char *a, const char *b) {
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strstr(r->warnings[i], a) && (!b || strstr(r->warnings[i], b))) {
            return true;
        }
    }
    for (size_t i = 0; i < r->n_warnings; i++) {
        printf("warning: %s\n", r->warnings[i]);
    }
    return false;
}

/* cond C(i, x, n) = Less(i, LIM) with LIM a Const 5 in the cond (limit_var
 * 0) or the loop variable n (limit_var 1: the body passes it on);
 * body B(i, x, n) = (AddV2(i, 1), MatMul(x, w), n), w [16,16]; limit_var 2:
 * LIM 5 and the body's AddV2(i, i), no constant step (no counted loop). */
static void loop_functions(tg_graph *g, tg_graph *cb, tg_graph *bb, int limit_var) {
    const char *in[] = {"i", "x", "n"};
    int types[] = {DT_INT32, DT_FLOAT, DT_INT32};
    tg_const_int(cb, "lim", DT_INT32, 0, NULL, (int64_t[]){5});
    tg_node *less = tg_add(cb, "less", "Less", "i", limit_var == 1 ? "n" : "lim:output:0", NULL);
    tg_attr_type(less, "T", DT_INT32);
    tg_function(g, cb, "C", 3, in, types, 1, (const char *[]){"ok"}, (int[]){10},
                (const char *[]){"less:z:0"});
    tg_const_int(bb, "one", DT_INT32, 0, NULL, (int64_t[]){1});
    tg_attr_type(tg_add(bb, "inc", "AddV2", "i", limit_var == 2 ? "i" : "one:output:0", NULL), "T",
                 DT_INT32);
    tg_const_f32(bb, "w", 2, (int64_t[]){16, 16}, NULL, 0);
    tg_attr_type(tg_add(bb, "mm", "MatMul", "x", "w:output:0", NULL), "T", DT_FLOAT);
    tg_attr_type(tg_add(bb, "keep", "Identity", "n", NULL), "T", DT_INT32);
    tg_function(g, bb, "B", 3, in, types, 3, (const char *[]){"i2", "y", "n2"}, types,
                (const char *[]){"inc:z:0", "mm:product:0", "keep:output:0"});
}

/* How loop_graph makes n. */
enum { N_PLACEHOLDER, N_CONST, N_SIZE, N_VECTOR };

/* While(i0 = 0, x [2,16], n) then out = loop:1 @ w3 [16,8]; n is a
 * Placeholder int32 scalar (N_PLACEHOLDER, no value), a Const 5 (N_CONST),
 * Size(s) of a Placeholder s [?,3] (N_SIZE: 3*s.0) or a Placeholder int32
 * [1] (N_VECTOR: no value, not a scalar). */
static tg_graph *loop_graph(const char *op, tg_graph *cb, tg_graph *bb, int limit_var,
                            int n_known) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    loop_functions(g, cb, bb, limit_var);
    tg_const_int(g, "i0", DT_INT32, 0, NULL, (int64_t[]){0});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    if (n_known == N_CONST) {
        tg_const_int(g, "n", DT_INT32, 0, NULL, (int64_t[]){5});
    } else if (n_known == N_SIZE) {
        tg_placeholder(g, "s", DT_FLOAT, 2, (int64_t[]){-1, 3});
        tg_node *sz = tg_add(g, "n", "Size", "s", NULL);
        tg_attr_type(sz, "T", DT_FLOAT);
        tg_attr_type(sz, "out_type", DT_INT32);
    } else {
        tg_placeholder(g, "n", DT_INT32, n_known == N_VECTOR, (int64_t[]){1});
    }
    tg_node *w = tg_add(g, "loop", op, "i0", "x", "n", NULL);
    tg_attr_types(w, "T", 3, (int[]){DT_INT32, DT_FLOAT, DT_INT32});
    tg_attr_func(w, "cond", "C");
    tg_attr_func(w, "body", "B");
    tg_const_f32(g, "w3", 2, (int64_t[]){16, 8}, NULL, 0);
    tg_attr_type(tg_add(g, "out", "MatMul", "loop:1", "w3", NULL), "T", DT_FLOAT);
    return g;
}

/* A counted loop, i from 0 by 1 while i < 5: 5 trips.
 *   body a trip: inc 1 + mm 2*2*16*16 = 1024 FLOPs, 512 MACs
 *   x 5:         5125 FLOPs (mm 5120), 2560 MACs
 *   cond:        Less 1 FLOP x 6 = 6
 *   out:         2*2*16*8 = 512 FLOPs, 256 MACs
 *   totals       5125 + 6 + 512 = 5643 FLOPs, 2816 MACs.
 * The same with the limit a loop variable the body passes on (n = 5). */
static void run_counted(const char *op, int limit_var) {
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph(op, cb, bb, limit_var, N_CONST);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "none";
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(tg_find(r, "loop")->outputs[1].shape, "[2,16]");
    assert_string_equal(tg_find(r, "out")->outputs[0].shape, "[2,8]");
    assert_int_equal(tg_find(r, "loop/body/mm")->flops.value, 5120);
    assert_int_equal(tg_find(r, "loop/body/mm")->macs.value, 2560);
    assert_int_equal(tg_find(r, "loop/body/inc")->flops.value, 5);
    assert_int_equal(tg_find(r, "loop/cond/less")->flops.value, 6);
    assert_int_equal(tg_find(r, "out")->flops.value, 512);
    assert_true(r->complete);
    assert_int_equal(r->totals.flops.value, 5643);
    assert_int_equal(r->totals.macs.value, 2816);
    assert_true(warned(r, "While 'loop': trip count 5", "body 'B' counted 5 times, cond 6 times"));
    /* C and B are inlined: no body is left uncosted. */
    assert_int_equal(r->n_functions, 0);
    fl_report_free(r);
    /* Analysed without passes (fl_options' default), the counts are as
     * above. */
    r = tg_analyze(g, NULL);
    assert_int_equal(r->totals.flops.value, 5643);
    assert_int_equal(tg_find(r, "loop/body/mm")->flops.value, 5120);
    fl_report_free(r);
    /* The default passes leave the counts as they are: nothing folds (the
     * body's loop variables have no values), and the body, whose results
     * only the loop's control inputs read, is not pruned: TensorFlow runs it
     * 5 times. */
    opt.passes = "default";
    r = tg_analyze(g, &opt);
    assert_string_equal(r->before.flops.text, "5643");
    assert_string_equal(r->after.flops.text, "5643");
    assert_string_equal(r->after.macs.text, "2816");
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* The passes rewrite inside a loop body, as Grappler optimizes a While's
 * body function as an item of its own (only its arguments and return
 * values preserved): body B(i, x) = (AddV2(i, 1), Relu(BiasAdd(MatMul(x, w
 * [16,16]), b [16]))), x [2,16], i from 0 while i < 5 (cond C as in
 * loop_functions, limit the Const 5): 5 trips. A trip: inc 1, mm 1024
 * FLOPs 512 MACs, BiasAdd 32, Relu 32; cond Less 1 x 6: totals 5 * 1089 +
 * 6 = 5451 FLOPs, 2560 MACs. After the default passes the remapper has
 * fused mm + bias + relu into one _FusedMatMul inside the body (its FLOPs
 * the same 1024 + 32 + 32 a trip), still counted 5 times: the same totals,
 * and the body holds no separate MatMul. */
static void test_while_body_optimised(void **state) {
    (void)state;
    tg_graph *g = tg_new(), *cb = tg_new(), *bb = tg_new();
    tg_producer(g, 1000);
    const char *in[] = {"i", "x"};
    int types[] = {DT_INT32, DT_FLOAT};
    tg_const_int(cb, "lim", DT_INT32, 0, NULL, (int64_t[]){5});
    tg_attr_type(tg_add(cb, "less", "Less", "i", "lim:output:0", NULL), "T", DT_INT32);
    tg_function(g, cb, "C", 2, in, types, 1, (const char *[]){"ok"}, (int[]){10},
                (const char *[]){"less:z:0"});
    tg_const_int(bb, "one", DT_INT32, 0, NULL, (int64_t[]){1});
    tg_attr_type(tg_add(bb, "inc", "AddV2", "i", "one:output:0", NULL), "T", DT_INT32);
    tg_const_f32(bb, "w", 2, (int64_t[]){16, 16}, NULL, 0);
    tg_const_f32(bb, "b", 1, (int64_t[]){16}, NULL, 0);
    tg_attr_type(tg_add(bb, "mm", "MatMul", "x", "w:output:0", NULL), "T", DT_FLOAT);
    tg_attr_type(tg_add(bb, "bias", "BiasAdd", "mm:product:0", "b:output:0", NULL), "T", DT_FLOAT);
    tg_attr_type(tg_add(bb, "relu", "Relu", "bias:output:0", NULL), "T", DT_FLOAT);
    tg_function(g, bb, "B", 2, in, types, 2, (const char *[]){"i2", "y"}, types,
                (const char *[]){"inc:z:0", "relu:activations:0"});
    tg_const_int(g, "i0", DT_INT32, 0, NULL, (int64_t[]){0});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_node *w = tg_add(g, "loop", "While", "i0", "x", NULL);
    tg_attr_types(w, "T", 2, (int[]){DT_INT32, DT_FLOAT});
    tg_attr_func(w, "cond", "C");
    tg_attr_func(w, "body", "B");
    tg_attr_type(tg_add(g, "out", "Identity", "loop:1", NULL), "T", DT_FLOAT);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "default";
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(r->before.flops.text, "5451");
    assert_string_equal(r->before.macs.text, "2560");
    assert_string_equal(r->after.flops.text, "5451");
    assert_string_equal(r->after.macs.text, "2560");
    int fused = 0, matmul = 0;
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        const fl_report_node *n = &r->nodes_after[i];
        if (strncmp(n->name, "loop/body/", 10) != 0) {
            continue;
        }
        if (strcmp(n->op, "_FusedMatMul") == 0) {
            fused++;
            assert_int_equal(n->flops.value, 5 * 1088);
        }
        matmul += strcmp(n->op, "MatMul") == 0;
    }
    assert_int_equal(fused, 1);
    assert_int_equal(matmul, 0);
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

static void test_while_counted(void **state) {
    (void)state;
    run_counted("While", 0);
}

static void test_stateless_while_counted(void **state) {
    (void)state;
    run_counted("StatelessWhile", 0);
}

static void test_while_limit_variable(void **state) {
    (void)state;
    run_counted("While", 1);
}

/* The limit a loop variable from an int32 scalar Placeholder n: i from 0 by
 * 1 while i < n runs n times (a symbol named after the input). Body a trip
 * 1024 (mm) + 1 (inc) FLOPs, 512 MACs; cond Less n + 1 times; out 512
 * FLOPs, 256 MACs: totals 1024*n + n + (n + 1) + 512 = 1026*n + 513 FLOPs,
 * 512*n + 256 MACs, before and after the default passes. Binding n = 5
 * (--bind n=5, as --value n=5 does) gives the counted loop's 5643 FLOPs and
 * 2816 MACs (run_counted's derivation); --value n=5 as well. */
static void test_while_symbolic_trips(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 1, N_PLACEHOLDER);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "default";
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(tg_find(r, "loop/body/mm")->flops.text, "1024*n");
    assert_string_equal(tg_find(r, "loop/body/inc")->flops.text, "n");
    assert_string_equal(tg_find(r, "loop/cond/less")->flops.text, "n + 1");
    assert_string_equal(r->before.flops.text, "1026*n + 513");
    assert_string_equal(r->before.macs.text, "512*n + 256");
    assert_string_equal(r->after.flops.text, "1026*n + 513");
    assert_true(warned(r, "While 'loop': trip count n, from the value of its limit (input 2",
                       "body 'B' counted n times, cond n + 1 times"));
    assert_false(warned(r, "lower bound", NULL));
    fl_report_free(r);
    fl_symbol_binding sb = {"n", 5};
    opt.symbols = &sb;
    opt.n_symbols = 1;
    r = tg_analyze(g, &opt);
    assert_string_equal(r->before.flops.text, "5643");
    assert_string_equal(r->before.macs.text, "2816");
    assert_string_equal(r->after.flops.text, "5643");
    assert_true(warned(r, "While 'loop': trip count 5", "cond 6 times"));
    fl_report_free(r);
    fl_value_binding vb = {"n", 5};
    opt.symbols = NULL;
    opt.n_symbols = 0;
    opt.values = &vb;
    opt.n_values = 1;
    r = tg_analyze(g, &opt);
    assert_string_equal(r->before.flops.text, "5643");
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* The limit n = Size(s), s [?,3]: n's value is 3*s.0, so the loop runs
 * 3*s.0 times: mm 3072*s.0, inc 3*s.0, less 3*s.0 + 1; totals 3078*s.0 +
 * 513 FLOPs, 1536*s.0 + 256 MACs. --bind s.0=2 (n = 6): 1025*6 + 7 + 512
 * = 6669 FLOPs (= 3078*2 + 513), 512*6 + 256 = 3328 MACs. */
static void test_while_shape_trips(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 1, N_SIZE);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(tg_find(r, "loop/body/mm")->flops.text, "3072*s.0");
    assert_string_equal(tg_find(r, "loop/cond/less")->flops.text, "3*s.0 + 1");
    assert_string_equal(r->totals.flops.text, "3078*s.0 + 513");
    assert_string_equal(r->totals.macs.text, "1536*s.0 + 256");
    fl_report_free(r);
    fl_symbol_binding sb = {"s.0", 2};
    opt.symbols = &sb;
    opt.n_symbols = 1;
    r = tg_analyze(g, &opt);
    assert_int_equal(r->totals.flops.value, 6669);
    assert_int_equal(r->totals.macs.value, 3328);
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* The limit from an int32 Placeholder of shape [1]: no value and not a
 * scalar input, so the trip count is unknown, the body and cond are
 * counted once (1025 + 1) and the totals, 1025 + 1 + 512 = 1538 FLOPs and
 * 512 + 256 = 768 MACs, are a lower bound. The same counts when the body
 * steps i by itself (limit_var 2: no counted loop, found at import). Either
 * way the answer is partial: the While node "loop/while" is the one
 * incomplete node, and the counts of its one trip stay in the totals, with
 * the passes (the default) and without. */
static void test_while_unknown_trips(void **state) {
    (void)state;
    for (int v = 0; v < 4; v++) {
        tg_graph *cb = tg_new(), *bb = tg_new();
        tg_graph *g = loop_graph("While", cb, bb, v & 1 ? 2 : 1, N_VECTOR);
        fl_options opt;
        fl_options_init(&opt);
        opt.per_node = true;
        opt.passes = v & 2 ? "none" : "default";
        fl_report *r = tg_analyze(g, &opt);
        assert_int_equal(tg_find(r, "loop/body/mm")->flops.value, 1024);
        assert_int_equal(tg_find(r, "loop/cond/less")->flops.value, 1);
        assert_int_equal(r->totals.flops.value, 1538);
        assert_int_equal(r->totals.macs.value, 768);
        assert_true(warned(r, "While 'loop': trip count unknown",
                           "counted once, so the loop is incomplete, the answer partial and the "
                           "totals a lower bound"));
        assert_true(warned(r, "its body 'B' and cond 'C' are counted once", NULL));
        assert_true(
            warned(r, "1 node(s) depend on trip counts the analysis cannot determine", NULL));
        assert_false(r->complete);
        assert_int_equal(r->nodes_incomplete, 1);
        assert_int_equal(r->nodes_excluded, 1);
        assert_true(tg_find(r, "loop/while")->incomplete);
        assert_false(tg_find(r, "loop/body/mm")->incomplete);
        if (!(v & 2)) {
            assert_int_equal(r->after.flops.value, 1538);
        }
        fl_report_free(r);
        tg_free(g);
        tg_free(cb);
        tg_free(bb);
    }
}

static bool after_has(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        if (strcmp(r->nodes_after[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

/* Grappler optimises a While's body as an item of its own, so CSE never
 * merges a node of the body with one outside it: the counted loop (limit a
 * Const 5 in the cond; n a scalar Placeholder the body passes on) with a
 * Const one_out (int32 1, equal to the body's step "one") read by out2 =
 * AddV2(n, one_out) outside. After the default passes both constants are
 * there and no common_subgraph firing names either; the counts are the
 * counted loop's 5643 FLOPs plus out2's 1, before and after. */
static void test_cse_body_boundary(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 0, N_PLACEHOLDER);
    tg_const_int(g, "one_out", DT_INT32, 0, NULL, (int64_t[]){1});
    tg_attr_type(tg_add(g, "out2", "AddV2", "n", "one_out", NULL), "T", DT_INT32);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "default";
    fl_report *r = tg_analyze(g, &opt);
    assert_int_equal(r->totals.flops.value, 5644);
    assert_int_equal(r->after.flops.value, 5644);
    assert_true(after_has(r, "one_out"));
    assert_true(after_has(r, "loop/body/one"));
    for (size_t i = 0; i < r->n_ledger; i++) {
        const fl_report_ledger_entry *e = &r->ledger[i];
        if (strcmp(e->rule, "common_subgraph") == 0) {
            assert_null(strstr(e->detail, "one"));
            assert_null(strstr(e->node, "one"));
        }
    }
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* Case(idx, x [2,16]) over three branches: P = MatMul(x, w) (1024 FLOPs,
 * 512 MACs), Q = Relu(x) (32), R = x (0); idx a Placeholder. Every branch
 * is counted (an upper bound: 1056 FLOPs, 512 MACs), and out = Case @ w3
 * [16,8] adds 512 / 256: 1568 FLOPs, 768 MACs. */
static void test_case(void **state) {
    (void)state;
    tg_graph *g = tg_new(), *p = tg_new(), *q = tg_new(), *rb = tg_new();
    tg_producer(g, 1000);
    const char *in[] = {"x"};
    int ft[] = {DT_FLOAT};
    tg_const_f32(p, "w", 2, (int64_t[]){16, 16}, NULL, 0);
    tg_attr_type(tg_add(p, "mm", "MatMul", "x", "w:output:0", NULL), "T", DT_FLOAT);
    tg_function(g, p, "P", 1, in, ft, 1, (const char *[]){"y"}, ft,
                (const char *[]){"mm:product:0"});
    tg_attr_type(tg_add(q, "act", "Relu", "x", NULL), "T", DT_FLOAT);
    tg_function(g, q, "Q", 1, in, ft, 1, (const char *[]){"y"}, ft,
                (const char *[]){"act:activations:0"});
    tg_attr_type(tg_add(rb, "same", "Identity", "x", NULL), "T", DT_FLOAT);
    tg_function(g, rb, "R", 1, in, ft, 1, (const char *[]){"y"}, ft,
                (const char *[]){"same:output:0"});
    tg_placeholder(g, "idx", DT_INT32, 0, NULL);
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_node *c = tg_add(g, "pick", "Case", "idx", "x", NULL);
    tg_attr_types(c, "Tin", 1, ft);
    tg_attr_types(c, "Tout", 1, ft);
    tg_attr_funcs(c, "branches", 3, (const char *[]){"P", "Q", "R"});
    tg_const_f32(g, "w3", 2, (int64_t[]){16, 8}, NULL, 0);
    tg_attr_type(tg_add(g, "out", "MatMul", "pick", "w3", NULL), "T", DT_FLOAT);
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(tg_find(r, "pick/branch_0/mm")->flops.value, 1024);
    assert_int_equal(tg_find(r, "pick/branch_1/act")->flops.value, 32);
    assert_int_equal(r->totals.flops.value, 1568);
    assert_int_equal(r->totals.macs.value, 768);
    assert_true(warned(r, "Case 'pick': the totals count all 3 branches",
                       "branch 0 1024 FLOPs, 512 MACs over 2 node(s); branch 1 32 FLOPs, 0 MACs "
                       "over 2 node(s); branch 2 0 FLOPs"));
    assert_int_equal(r->n_functions, 0);
    fl_report_free(r);
    tg_free(g);
    tg_free(p);
    tg_free(q);
    tg_free(rb);
}

/* The attrs the engine reserves (src/util/reserved.h) are dropped from a
 * file, each with a warning naming the node: set on the While of the
 * counted loop above (a trip count of 100, markers pointing at another
 * prefix) and on body and graph nodes, they change nothing - the totals
 * stay 5643 FLOPs / 2816 MACs, derived above from the 5 trips. */
static void test_reserved_attrs_counted(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 0, N_CONST);
    tg_node *w = tg_find_node(g, "loop");
    tg_attr_str(w, "_loop", "out");
    tg_attr_int(w, "_body_trips", 100);
    tg_attr_int(w, "_cond_trips", 100);
    tg_attr_int(tg_find_node(g, "out"), "_repeat", 9);
    tg_attr_int(tg_find_node(g, "out"), "_lowered_branches", 3);
    tg_attr_int(tg_find_node(bb, "mm"), "_body_trips", 7);
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->totals.flops.value, 5643);
    assert_int_equal(r->totals.macs.value, 2816);
    assert_true(warned(r, "While 'loop': trip count 5", NULL));
    assert_true(warned(r,
                       "node 'loop': attr '_loop' is reserved for foldline's own use and was "
                       "ignored (field: attr)",
                       NULL));
    assert_true(warned(r, "node 'loop': attr '_body_trips' is reserved", NULL));
    assert_true(warned(r, "node 'out': attr '_repeat' is reserved", NULL));
    assert_true(warned(r, "function 'B', node 'mm': attr '_body_trips' is reserved", NULL));
    assert_false(warned(r, "Case 'out'", NULL));
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* A loop whose trip count is not a known number stays counted as the graph
 * says, whatever the file writes on it: with an unknown limit once (1538
 * FLOPs, 768 MACs, a lower bound), with a scalar input as its limit n times
 * (1026*n + 513 FLOPs, test_while_symbolic_trips), never 50. */
static void test_reserved_attrs_unknown_trips(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 1, N_VECTOR);
    tg_attr_int(tg_find_node(g, "loop"), "_body_trips", 50);
    tg_attr_int(tg_find_node(g, "loop"), "_cond_trips", 51);
    tg_attr_ints(tg_find_node(g, "loop"), "_trip_form", 4, (int64_t[]){0, 0, 1, 2});
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->totals.flops.value, 1538);
    assert_int_equal(r->totals.macs.value, 768);
    assert_true(warned(r, "While 'loop': trip count unknown", "lower bound"));
    assert_true(warned(r, "attr '_trip_form' is reserved", NULL));
    assert_false(r->complete);
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
    cb = tg_new();
    bb = tg_new();
    g = loop_graph("While", cb, bb, 1, N_PLACEHOLDER);
    tg_attr_int(tg_find_node(g, "loop"), "_body_trips", 50);
    r = tg_analyze(g, NULL);
    assert_string_equal(r->totals.flops.text, "1026*n + 513");
    assert_true(r->complete);
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
    /* A file cannot mark a counted loop's trip count unknown either: the
     * 5-trip loop stays complete at 5643 FLOPs (run_counted). */
    cb = tg_new();
    bb = tg_new();
    g = loop_graph("While", cb, bb, 0, N_CONST);
    tg_attr_int(tg_find_node(g, "loop"), "_trip_unknown", 1);
    r = tg_analyze(g, NULL);
    assert_int_equal(r->totals.flops.value, 5643);
    assert_true(r->complete);
    assert_true(warned(r, "attr '_trip_unknown' is reserved", NULL));
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

/* The lowered form without a loop around it: a While "w/while" with _loop
 * "w" (markers kept: the form the writer writes) and a trip count the file
 * states, beside a MatMul "w/body/mm" [2,16]x[16,16] that no inlined body
 * reads from it. No trip count is derived from the graph, so the MatMul
 * counts once: 1024 FLOPs, 512 MACs. */
static void test_reserved_attrs_fake_lowered(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_node *w = tg_add(g, "w/while", "While", "x", NULL);
    tg_attr_types(w, "T", 1, (int[]){DT_FLOAT});
    tg_attr_str(w, "_loop", "w");
    tg_attr_str(w, "_lowered_cond", "C");
    tg_attr_str(w, "_lowered_body", "B");
    tg_attr_int(w, "_body_trips", 10);
    tg_attr_int(w, "_cond_trips", 11);
    tg_const_f32(g, "k", 2, (int64_t[]){16, 16}, NULL, 0);
    tg_attr_type(tg_add(g, "w/body/mm", "MatMul", "x", "k", NULL), "T", DT_FLOAT);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "none";
    fl_report *r = tg_analyze(g, &opt);
    assert_int_equal(tg_find(r, "w/body/mm")->flops.value, 1024);
    assert_int_equal(r->totals.flops.value, 1024);
    assert_int_equal(r->totals.macs.value, 512);
    assert_true(warned(r, "node 'w/while': attr '_body_trips' is reserved", NULL));
    assert_false(warned(r, "attr '_loop' is reserved", NULL));
    fl_report_free(r);
    tg_free(g);
}

/* The optimised graph of the counted loop (constant folding keeps its
 * body) imports again as the same loop: its While keeps the lowered form's
 * markers, the trip count is derived again, and the totals equal the
 * report's "after", 5643 FLOPs, with no reserved attr written. */
static void test_lowered_while_round_trip(void **state) {
    (void)state;
    tg_graph *cb = tg_new(), *bb = tg_new();
    tg_graph *g = loop_graph("While", cb, bb, 0, N_CONST);
    fl_options opt;
    fl_options_init(&opt);
    opt.passes = "constfold";
    opt.return_graph = true;
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(r->after.flops.text, "5643");
    assert_non_null(r->graph_bytes);
    fl_options o2;
    fl_options_init(&o2);
    o2.passes = "none";
    fl_report *again = NULL;
    assert_int_equal(fl_analyze(r->graph_bytes, r->graph_len, &o2, &again), FL_OK);
    assert_int_equal(again->totals.flops.value, 5643);
    assert_int_equal(again->totals.macs.value, 2816);
    assert_true(warned(again, "While 'loop': trip count 5", NULL));
    assert_false(warned(again, "is reserved", NULL));
    fl_report_free(again);
    fl_report_free(r);
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_while_counted),
        cmocka_unit_test(test_stateless_while_counted),
        cmocka_unit_test(test_while_limit_variable),
        cmocka_unit_test(test_while_symbolic_trips),
        cmocka_unit_test(test_while_body_optimised),
        cmocka_unit_test(test_while_shape_trips),
        cmocka_unit_test(test_while_unknown_trips),
        cmocka_unit_test(test_cse_body_boundary),
        cmocka_unit_test(test_case),
        cmocka_unit_test(test_reserved_attrs_counted),
        cmocka_unit_test(test_reserved_attrs_unknown_trips),
        cmocka_unit_test(test_reserved_attrs_fake_lowered),
        cmocka_unit_test(test_lowered_while_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
