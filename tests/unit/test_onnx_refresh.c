/*
 * test_onnx_refresh.c - after a pass changes what an ONNX control-flow
 * node's bodies see, the incremental re-inference (src/shape/incremental.c)
 * analyses those bodies again (src/shape/bodies.c, fl__refresh_onnx_bodies)
 * rather than re-typing the node from the bodies' old results: the totals
 * after the pass are those of a fresh analysis of the rewritten graph, and
 * the pipeline's verifier (cfg.verify: incremental against whole, node by
 * node) finds no difference.
 *
 * The graph: a [3,4] and b [5,4] float inputs; a Loop with M = 5 (an
 * initializer) carrying v0 = a, body v_out = Add(v_in, v_in) and cond_out =
 * Identity(cond_in); Relu(v) after it, and the graph's output a ReduceSum
 * of that to a scalar (so the graph's output keeps its shape, as a pass
 * must). Before: the Loop 5 trips of a 12-FLOP Add = 60, the Relu 12. A
 * test rewrite moves the Loop's carried input onto b: the Loop 5 x 20 =
 * 100, v [5,4], the Relu 20; the totals equal a fresh analysis of the
 * graph with the Loop on b.
 *
 * Also: the importer gives a node of a registered op the registry's copy of
 * its op type (the text after "onnx::" in the kind's name, one pointer for
 * every node of the kind, which the passes' kind tables compare first) and
 * every Constant one static "Constant": the text is the model's, not read
 * from the model's bytes again.
 */
#include "cost/cost.h"
#include "foldline/foldline.h"
#include "import/import.h"
#include "onnxbuild.h"
#include "ops/ops.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    uint8_t *bytes; /* the graph's protos are views into them: kept to the end */
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_options opt;
} fixture;

/* The model, its Loop reading `carried`. */
static uint8_t *model(const char *carried, size_t *len) {
    ob_model *b = ob_new(13);
    ob_input(b, "i", OB_INT64, 0, NULL, NULL);
    ob_input(b, "cond_in", OB_BOOL, 0, NULL, NULL);
    ob_input(b, "v_in", OB_FLOAT, 2, (int64_t[]){-1, 4}, NULL);
    ob_node(b, "Identity", "keep", "cond_in", "cond_out");
    ob_node(b, "Add", "step", "v_in,v_in", "v_out");
    ob_output(b, "cond_out");
    ob_output(b, "v_out");
    ob_model *m = ob_new(13);
    ob_init_i64(m, "M", 0, NULL, (int64_t[]){5});
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){5, 4}, NULL);
    char in[32];
    snprintf(in, sizeof in, "M,,%s", carried);
    Onnx__NodeProto *n = ob_node(m, "Loop", "loop", in, "v");
    ob_attr_graph(m, n, "body", b);
    ob_node(m, "Relu", "after", "v", "r");
    Onnx__NodeProto *sum = ob_node(m, "ReduceSum", "total", "r", "out");
    ob_attr_i(m, sum, "keepdims", 0);
    ob_output(m, "out");
    uint8_t *buf = ob_pack(m, len);
    ob_free(m);
    ob_free(b);
    return buf;
}

static void setup_f(fixture *f, const char *carried, fl_cost_totals *t0) {
    size_t len;
    f->bytes = model(carried, &len);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    f->c = (fl_ctx){f->g, f->g->syms, &f->arena, &f->d, 1 << 20};
    fl_options_init(&f->opt);
    fl_import_opts io = {1000, 1 << 20, NULL};
    assert_int_equal(fl__import_onnx(f->g, f->bytes, len, &io, &f->d), FL_OK);
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
    fl_infer_result ir;
    assert_int_equal(fl__infer_shapes(&f->c, &f->opt, &ir), FL_OK);
    assert_int_equal(fl__cost_graph(&f->c, t0), FL_OK);
}

static void teardown_f(fixture *f) {
    fl__arena_free(&f->arena);
    free(f->bytes);
}

/* The test rewrite: the Loop's carried input (input 2) moves to b. */
static fl_status move_to_b(fl_pass_ctx *pc, void *arg) {
    bool *done = arg;
    if (*done) {
        return FL_OK;
    }
    fl_node *loop = fl__graph_find(pc->c->g, "loop");
    fl_node *b = fl__graph_find(pc->c->g, "b");
    assert_non_null(loop);
    assert_non_null(b);
    fl__node_set_input(pc->c->g, loop, 2, (fl_input){b, 0});
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

static int64_t known(fl_sym s) {
    assert_true(fl_sym_is_known(s));
    return s.k;
}

static void test_bodies_follow_a_rewrite(void **state) {
    (void)state;
    fixture f;
    fl_cost_totals before, after;
    setup_f(&f, "a", &before);
    assert_int_equal(known(fl__node_cost(fl__graph_find(f.g, "loop")).flops), 60);
    assert_int_equal(known(fl__node_cost(fl__graph_find(f.g, "after")).flops), 12);
    bool done = false;
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.verify = true;
    cfg.passes = "shape";
    cfg.opt.iterations = 1;
    cfg.outputs = (const char *[]){"total"};
    cfg.n_outputs = 1;
    fl_pass_failures fails = {NULL, 0, 0};
    cfg.failures = &fails;
    fl_ledger led;
    fl__ledger_init(&led, &f.arena);
    fl__pipeline_set_test_hook(move_to_b, &done);
    fl_status st = fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after);
    fl__pipeline_set_test_hook(NULL, NULL);
    if (st != FL_OK) {
        printf("pipeline: %s\n", f.d.msg ? f.d.msg : "?");
    }
    assert_int_equal(st, FL_OK);
    assert_true(done);
    for (size_t i = 0; i < fails.n; i++) {
        printf("pass failure: %s\n", fails.items[i].message);
    }
    assert_int_equal(fails.n, 0); /* the verifier found no difference */
    const fl_node *loop = fl__graph_find(f.g, "loop");
    assert_int_equal(loop->outputs[0].shape.rank, 2);
    assert_int_equal(known(loop->outputs[0].shape.dims[0]), 5);
    assert_int_equal(known(fl__node_cost(loop).flops), 100);
    assert_int_equal(known(fl__node_cost(fl__graph_find(f.g, "after")).flops), 20);

    /* A fresh analysis of the graph as the rewrite left it. */
    fixture g;
    fl_cost_totals fresh;
    setup_f(&g, "b", &fresh);
    assert_int_equal(known(fl__node_cost(fl__graph_find(g.g, "loop")).flops), 100);
    assert_int_equal(known(after.flops), known(fresh.flops));
    assert_int_equal(known(after.macs), known(fresh.macs));
    assert_int_equal(known(after.bytes_read), known(fresh.bytes_read));
    assert_int_equal(known(after.bytes_written), known(fresh.bytes_written));
    teardown_f(&g);
    teardown_f(&f);
}

static void test_op_types_are_the_registrys(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_attr_i(m, ob_node(m, "Constant", "k", "", "kv"), "value_int", 3);
    ob_attr_i(m, ob_node(m, "Constant", "k2", "", "kv2"), "value_int", 4);
    ob_node(m, "Relu", "r1", "x", "y1");
    ob_node(m, "Relu", "r2", "y1", "y2");
    ob_node(m, "Add", "add", "y2,x", "out");
    ob_output(m, "out");
    ob_output(m, "kv");
    ob_output(m, "kv2");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    fixture f;
    f.bytes = buf;
    fl__arena_init(&f.arena, 0);
    fl__diag_init(&f.d, &f.arena);
    f.g = fl__graph_new(&f.arena);
    fl_import_opts io = {1000, 1 << 20, NULL};
    assert_int_equal(fl__import_onnx(f.g, f.bytes, len, &io, &f.d), FL_OK);
    const char *relu = fl__op_name(FL_OP_ONNX_RELU) + strlen("onnx::");
    const char *add = fl__op_name(FL_OP_ONNX_ADD) + strlen("onnx::");
    assert_string_equal(relu, "Relu");
    assert_string_equal(add, "Add");
    assert_ptr_equal(fl__graph_find(f.g, "r1")->op, relu);
    assert_ptr_equal(fl__graph_find(f.g, "r2")->op, relu);
    assert_ptr_equal(fl__graph_find(f.g, "add")->op, add);
    const fl_node *k = fl__graph_find(f.g, "k"), *k2 = fl__graph_find(f.g, "k2");
    assert_int_equal(k->kind, FL_OP_CONST);
    assert_string_equal(k->op, "Constant");
    assert_ptr_equal(k->op, k2->op); /* one static copy */
    teardown_f(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bodies_follow_a_rewrite),
        cmocka_unit_test(test_op_types_are_the_registrys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
