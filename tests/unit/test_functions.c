/*
 * test_functions.c - calls of library functions (PartitionedCall,
 * StatefulPartitionedCall, a node whose op is a function's name) inlined at
 * import (src/import/funcinline.c): the call's outputs get the body's shapes,
 * the body nodes (CALL/NODE) are costed, nested calls are inlined, outputs of
 * ops with several output args are placed by name, and a call that cannot be
 * inlined stays a call with a warning naming it.
 *
 * Counts (src/ops): MatMul [M,K]x[K,N] 2*M*K*N FLOPs and M*K*N MACs; Relu 1
 * FLOP per element; Identity, IdentityN, Const: 0.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define DT_FLOAT 1
#define DT_INT32 3

static void typed(tg_node *n) {
    tg_attr_type(n, "T", DT_FLOAT);
}

/* Body of F(x) = Relu(x @ w), w [16,32] a constant of the body. */
static tg_graph *dense_body(void) {
    tg_graph *b = tg_new();
    tg_const_f32(b, "w", 2, (int64_t[]){16, 32}, NULL, 0);
    typed(tg_add(b, "mm", "MatMul", "x", "w:output:0", NULL));
    typed(tg_add(b, "act", "Relu", "mm:product:0", NULL));
    return b;
}

static void add_dense(tg_graph *g, tg_graph *body, const char *name) {
    tg_function(g, body, name, 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 1,
                (const char *[]){"y"}, (int[]){DT_FLOAT}, (const char *[]){"act:activations:0"});
}

static tg_node *call(tg_graph *g, const char *name, const char *op, const char *fn,
                     const char *in) {
    tg_node *c = tg_add(g, name, op, in, NULL);
    tg_attr_types(c, "Tin", 1, (int[]){DT_FLOAT});
    tg_attr_types(c, "Tout", 1, (int[]){DT_FLOAT});
    if (fn) {
        tg_attr_func(c, "f", fn);
    }
    return c;
}

/* x [2,16] -> StatefulPartitionedCall(F) -> MatMul with w2 [32,8]. */
static void test_partitioned_call_inlined(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *body = dense_body();
    add_dense(g, body, "F");
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    call(g, "call", "StatefulPartitionedCall", "F", "x");
    tg_const_f32(g, "w2", 2, (int64_t[]){32, 8}, NULL, 0);
    typed(tg_add(g, "out", "MatMul", "call", "w2", NULL));
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "call")->outputs[0].shape, "[2,32]");
    assert_string_equal(tg_find(r, "call")->op, "IdentityN");
    assert_string_equal(tg_find(r, "call/x")->outputs[0].shape, "[2,16]");
    assert_int_equal(tg_find(r, "call/mm")->flops.value, 2 * 2 * 16 * 32);
    assert_int_equal(tg_find(r, "call/act")->flops.value, 2 * 32);
    assert_string_equal(tg_find(r, "out")->outputs[0].shape, "[2,8]");
    /* 2048 + 64 + 2*2*32*8 (1024); MACs 1024 + 512. */
    assert_int_equal(r->totals.flops.value, 2048 + 64 + 1024);
    assert_int_equal(r->totals.macs.value, 1024 + 512);
    assert_true(r->complete);
    /* F is only called (and inlined): no body is left uncosted. */
    assert_int_equal(r->n_functions, 0);
    assert_int_equal(r->n_function_nodes, 0);
    fl_report_free(r);

    /* The same graph as a SavedModel. */
    size_t len;
    uint8_t *buf = tg_pack_savedmodel(g, "serve", &len);
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_SAVEDMODEL;
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
    assert_int_equal(r->totals.flops.value, 2048 + 64 + 1024);
    fl_report_free(r);
    free(buf);
    tg_free(g);
    tg_free(body);
}

/* G(x) = F(x) + a direct call of F by op name inside G, and a TopKV2 whose
 * second output arg (indices, port 1) is returned: nested inlining and
 * output args placed by name. */
static void test_nested_and_named_outputs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *fb = dense_body();
    add_dense(g, fb, "F");
    tg_graph *gb = tg_new();
    tg_node *inner = tg_add(gb, "inner", "F", "x", NULL);
    (void)inner;
    tg_const_i32_vals(gb, "k", 0, NULL, (int32_t[]){4}, 1);
    tg_node *tk = tg_add(gb, "topk", "TopKV2", "inner:y:0", "k:output:0", NULL);
    typed(tk);
    tg_function(g, gb, "G", 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 2,
                (const char *[]){"vals", "idx"}, (int[]){DT_FLOAT, DT_INT32},
                (const char *[]){"topk:values:0", "topk:indices:0"});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_node *c = tg_add(g, "c", "PartitionedCall", "x", NULL);
    tg_attr_types(c, "Tin", 1, (int[]){DT_FLOAT});
    tg_attr_types(c, "Tout", 2, (int[]){DT_FLOAT, DT_INT32});
    tg_attr_func(c, "f", "G");
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "c");
    assert_int_equal(n->n_outputs, 2);
    assert_string_equal(n->outputs[0].dtype, "float");
    assert_string_equal(n->outputs[0].shape, "[2,4]");
    assert_string_equal(n->outputs[1].dtype, "int32");
    assert_string_equal(n->outputs[1].shape, "[2,4]");
    assert_int_equal(tg_find(r, "c/inner/mm")->flops.value, 2 * 2 * 16 * 32);
    assert_int_equal(r->totals.macs.value, 2 * 16 * 32);
    fl_report_free(r);
    tg_free(g);
    tg_free(fb);
    tg_free(gb);
}

/* A body node whose attr is a placeholder ($T): the call is kept, its
 * outputs unknown, and a warning names the node, the function and why. */
static void test_not_inlinable_warns(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *b = tg_new();
    tg_node *id = tg_add(b, "id", "Identity", "x", NULL);
    tg_attr_placeholder(id, "T", "T");
    tg_function(g, b, "H", 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 1, (const char *[]){"y"},
                (int[]){DT_FLOAT}, (const char *[]){"id:output:0"});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    call(g, "call", "PartitionedCall", "H", "x");
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "call")->op, "PartitionedCall");
    assert_string_equal(tg_find(r, "call")->outputs[0].shape, "?");
    bool found = false;
    for (size_t i = 0; i < r->n_warnings; i++) {
        found |= strcmp(r->warnings[i],
                        "node 'call' calls function 'H', which is not inlined (a body node's "
                        "attr is a placeholder): its outputs have no shapes and its body is not "
                        "costed") == 0;
    }
    assert_true(found);
    assert_int_equal(r->n_functions, 1);
    fl_report_free(r);
    tg_free(g);
    tg_free(b);
}

/* A function calling itself: inlined to a bounded depth, never a hang. */
static void test_recursive_bounded(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *b = tg_new();
    tg_add(b, "again", "R", "x", NULL);
    tg_function(g, b, "R", 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 1, (const char *[]){"y"},
                (int[]){DT_FLOAT}, (const char *[]){"again:y:0"});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_add(g, "r", "R", "x", NULL);
    fl_report *r = tg_analyze(g, NULL);
    /* 16 levels of (input Identity + IdentityN), then the last call. */
    assert_true(r->n_nodes < 64);
    assert_int_equal(r->n_functions, 1);
    fl_report_free(r);
    tg_free(g);
    tg_free(b);
}

/* G(x, unused, side) = Relu(x @ w), its arg `unused` read by no body node
 * and `side` read only as a control input; the graph x, b, c -> call G ->
 * MatMul "out". The graph's one sink is "out": the argument Identities are
 * consumed (the call's IdentityN waits on call/unused), so the outputs are
 * ["out"], the counts are those of the body and out, 2048 + 64 + 1024
 * FLOPs, and the arguments keep their inputs' shapes. */
static void test_unused_arg_not_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *b = tg_new();
    tg_const_f32(b, "w", 2, (int64_t[]){16, 32}, NULL, 0);
    typed(tg_add(b, "mm", "MatMul", "x", "w:output:0", "^side", NULL));
    typed(tg_add(b, "act", "Relu", "mm:product:0", NULL));
    tg_function(g, b, "G", 3, (const char *[]){"x", "unused", "side"},
                (int[]){DT_FLOAT, DT_FLOAT, DT_FLOAT}, 1, (const char *[]){"y"}, (int[]){DT_FLOAT},
                (const char *[]){"act:activations:0"});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_placeholder(g, "b", DT_FLOAT, 1, (int64_t[]){5});
    tg_placeholder(g, "c", DT_FLOAT, 1, (int64_t[]){3});
    tg_node *c = tg_add(g, "call", "PartitionedCall", "x", "b", "c", NULL);
    tg_attr_types(c, "Tin", 3, (int[]){DT_FLOAT, DT_FLOAT, DT_FLOAT});
    tg_attr_types(c, "Tout", 1, (int[]){DT_FLOAT});
    tg_attr_func(c, "f", "G");
    tg_const_f32(g, "w2", 2, (int64_t[]){32, 8}, NULL, 0);
    typed(tg_add(g, "out", "MatMul", "call", "w2", NULL));
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    opt.passes = "none";
    fl_report *r = tg_analyze(g, &opt);
    assert_int_equal(r->n_outputs, 1);
    assert_string_equal(r->outputs[0], "out");
    assert_string_equal(tg_find(r, "call/unused")->outputs[0].shape, "[5]");
    assert_string_equal(tg_find(r, "call/side")->outputs[0].shape, "[3]");
    assert_int_equal(r->totals.flops.value, 2048 + 64 + 1024);
    fl_report_free(r);
    /* With the default passes too. */
    r = tg_analyze(g, NULL);
    assert_int_equal(r->n_outputs, 1);
    assert_string_equal(r->outputs[0], "out");
    assert_int_equal(r->totals.flops.value, 2048 + 64 + 1024);
    fl_report_free(r);
    tg_free(g);
    tg_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partitioned_call_inlined),
        cmocka_unit_test(test_nested_and_named_outputs),
        cmocka_unit_test(test_not_inlinable_warns),
        cmocka_unit_test(test_recursive_bounded),
        cmocka_unit_test(test_unused_arg_not_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
