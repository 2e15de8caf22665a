/*
 * test_incremental.c - after a pass, the pipeline infers and costs again
 * only the nodes the pass changed and the consumers of nodes whose outputs
 * came out different (src/shape/incremental.c), with the same result as the
 * whole inference (the verifier compares them node by node: cfg.verify).
 *
 * The graph: x [4] -> i (Identity) -> r1 .. r50 (Relu) -> s = Sum over axis
 * 0 (a scalar, the graph's output), and a second input x2 [8]. Pruning
 * removes i (r1 then reads x, same shape: one node inferred again). A test
 * hook that moves r1 onto x2 changes every Relu's shape but not the output's:
 * r1 .. r50 and s are inferred again, with [8] shapes and 8 FLOPs per Relu,
 * also when the hook records the edit nowhere but in r1's mark; a hook that
 * only writes a ledger entry changes nothing and nothing is redone. A reader
 * that CSE moves onto an equal producer is not inferred again, nor a
 * MaxPool moved onto a producer of the same tensor.
 */
#include "graph/snapshot.h"
#include "import/import.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RELUS 50

typedef struct fixture {
    uint8_t *bytes; /* the graph's values are views into them: kept to the end */
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_options opt;
    const char *out; /* the graph's output */
} fixture;

static void load(fixture *f, tg_graph *t);

static void setup_f(fixture *f) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "x", 1, 1, (int64_t[]){4});
    tg_placeholder(t, "x2", 1, 1, (int64_t[]){8});
    tg_attr_type(tg_add(t, "i", "Identity", "x", NULL), "T", 1);
    char prev[16] = "i", name[16];
    for (int k = 1; k <= RELUS; k++) {
        snprintf(name, sizeof name, "r%d", k);
        tg_attr_type(tg_add(t, name, "Relu", prev, NULL), "T", 1);
        memcpy(prev, name, sizeof prev);
    }
    tg_const_int(t, "axis", 3, 1, (int64_t[]){1}, (int64_t[]){0});
    tg_node *s = tg_add(t, "s", "Sum", prev, "axis", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "Tidx", 3);
    tg_attr_bool(s, "keep_dims", 0);
    load(f, t);
}

/* Imports t (freed), infers and costs it. */
static void load(fixture *f, tg_graph *t) {
    f->out = NULL;
    size_t len;
    uint8_t *buf = tg_pack(t, &len);
    tg_free(t);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    f->c = (fl_ctx){f->g, f->g->syms, &f->arena, &f->d, 1 << 20};
    fl_options_init(&f->opt);
    fl_import_opts io = {1000, 1 << 20, NULL};
    assert_int_equal(fl__import_graphdef(f->g, buf, len, &io, &f->d), FL_OK);
    f->bytes = buf;
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
    fl_infer_result ir;
    assert_int_equal(fl__infer_shapes(&f->c, &f->opt, &ir), FL_OK);
    fl_cost_totals t0;
    assert_int_equal(fl__cost_graph(&f->c, &t0), FL_OK);
}

static void teardown_f(fixture *f) {
    fl__arena_free(&f->arena);
    free(f->bytes);
}

/* Runs `passes` once (one iteration) with the verifier on or off; returns
 * the ledger (its records) and the totals after. */
static void run_v(fixture *f, const char *passes, bool verify, fl_ledger *led,
                  fl_cost_totals *after) {
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.verify = verify;
    cfg.passes = passes;
    cfg.opt.iterations = 1;
    cfg.outputs = (const char *[]){f->out ? f->out : "s"};
    cfg.n_outputs = 1;
    fl_pass_failures fails = {NULL, 0, 0};
    cfg.failures = &fails;
    fl__ledger_init(led, &f->arena);
    assert_int_equal(fl__pipeline_run(&f->c, &f->opt, &cfg, led, after), FL_OK);
    assert_int_equal(fails.n, 0);
}

static void run(fixture *f, const char *passes, fl_ledger *led, fl_cost_totals *after) {
    run_v(f, passes, true, led, after);
}

static int64_t flops(const fl_cost_totals *t) {
    assert_true(fl_sym_is_known(t->flops));
    return t->flops.k;
}

/* Pruning bypasses the Identity: r1 is the only node inferred again. */
static void test_bypass_reinfers_one(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_ledger led;
    fl_cost_totals after;
    run(&f, "pruning", &led, &after);
    assert_int_equal(led.n_passes, 1);
    assert_int_equal(led.passes[0].nodes_removed, 1);
    assert_int_equal(led.passes[0].nodes_reinferred, 1);
    assert_null(fl__graph_find(f.g, "i"));
    /* 50 Relus of 4 elements, and Sum's 3 additions. */
    assert_int_equal(flops(&after), RELUS * 4 + 3);
    teardown_f(&f);
}

/* A rewrite that changes a shape: the change travels down the chain. */
static fl_status move_to_x2(fl_pass_ctx *pc, void *arg) {
    (void)arg;
    fl_node *r1 = fl__graph_find(pc->c->g, "r1");
    fl_node *x2 = fl__graph_find(pc->c->g, "x2");
    fl__node_set_input(pc->c->g, r1, 0, (fl_input){x2, 0});
    pc->rewritten++;
    return FL_OK;
}

static void test_shape_change_travels(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_ledger led;
    fl_cost_totals after;
    fl__pipeline_set_test_hook(move_to_x2, NULL);
    run(&f, "shape", &led, &after);
    fl__pipeline_set_test_hook(NULL, NULL);
    assert_int_equal(led.n_passes, 1);
    /* r1 .. r50 and s; i, x, x2 and the axis keep theirs. */
    assert_int_equal(led.passes[0].nodes_reinferred, RELUS + 1);
    const fl_node *last = fl__graph_find(f.g, "r50");
    assert_int_equal(last->outputs[0].shape.rank, 1);
    assert_int_equal(last->outputs[0].shape.dims[0].k, 8);
    assert_int_equal(flops(&led.passes[0].before), RELUS * 4 + 3);
    assert_int_equal(flops(&after), RELUS * 8 + 7);
    teardown_f(&f);
}

/* The same edit, recorded nowhere but in the node's mark (no ledger entry,
 * no rewritten count): the marks say the pass changed the graph, so it is
 * inferred and costed again as above. Before the marks decided, such a
 * pass left r1 .. r50 and s with their [4] shapes and the totals at 203. */
static fl_status move_to_x2_silently(fl_pass_ctx *pc, void *arg) {
    (void)arg;
    fl_node *r1 = fl__graph_find(pc->c->g, "r1");
    fl_node *x2 = fl__graph_find(pc->c->g, "x2");
    fl__node_set_input(pc->c->g, r1, 0, (fl_input){x2, 0});
    return FL_OK;
}

static void test_unrecorded_edit_refreshed(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_f(&f);
        fl_ledger led;
        fl_cost_totals after;
        fl__pipeline_set_test_hook(move_to_x2_silently, NULL);
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.n_passes, 1);
        assert_int_equal(led.passes[0].n_entries, 0);
        assert_int_equal(led.passes[0].nodes_reinferred, RELUS + 1);
        assert_int_equal(fl__graph_find(f.g, "r50")->outputs[0].shape.dims[0].k, 8);
        /* 50 Relus of 8 elements, and Sum's 7 additions. */
        assert_int_equal(flops(&after), RELUS * 8 + 7);
        teardown_f(&f);
    }
}

/* A ledger entry with no edit behind it: nothing changed, so nothing is
 * brought up to date (the order from before the pass is kept: the same
 * array; a refresh sorts anew). */
static fl_status note_only(fl_pass_ctx *pc, void *arg) {
    (void)arg;
    fl__ledger_note(pc, "test_rule", fl__graph_find(pc->c->g, "r1"), "noted, not done");
    return FL_OK;
}

static void test_ledger_without_edit_kept(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_node **order = f.g->order;
    assert_non_null(order);
    fl_ledger led;
    fl_cost_totals after;
    fl__pipeline_set_test_hook(note_only, NULL);
    run_v(&f, "shape", false, &led, &after);
    fl__pipeline_set_test_hook(NULL, NULL);
    assert_int_equal(led.n_passes, 1);
    assert_int_equal(led.passes[0].n_entries, 1);
    assert_int_equal(led.passes[0].nodes_reinferred, 0);
    assert_ptr_equal(f.g->order, order);
    assert_int_equal(flops(&after), RELUS * 4 + 3);
    teardown_f(&f);
}

/* Two iterations of pruning and shape: pruning removes i in the first (the
 * graph changes), shape changes nothing after it, pruning changes nothing
 * in the second; shape would see the very graph it left as it was, so the
 * driver records it without running it (the verifier runs it anyway and
 * requires it to leave no trace). A hook that turns a pass into one that
 * changes the graph on its second call is caught by the verifier: the
 * analysis fails, naming the pass, the iteration and the node. */
typedef struct calls {
    int shape;
    bool edit_second; /* the second call moves r1 onto x2 */
} calls;

static fl_status count_shape(fl_pass_ctx *pc, void *arg) {
    calls *k = arg;
    if (strcmp(pc->pass, "shape") != 0) {
        return FL_OK;
    }
    if (++k->shape == 2 && k->edit_second) {
        return move_to_x2_silently(pc, NULL);
    }
    return FL_OK;
}

static fl_status run_twice(fixture *f, bool verify, calls *k, fl_ledger *led, fl_cost_totals *after,
                           fl_pass_failures *fails) {
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.verify = verify;
    cfg.passes = "pruning,shape";
    cfg.opt.iterations = 2;
    cfg.outputs = (const char *[]){"s"};
    cfg.n_outputs = 1;
    cfg.failures = fails;
    fl__ledger_init(led, &f->arena);
    fl__pipeline_set_test_hook(count_shape, k);
    fl_status st = fl__pipeline_run(&f->c, &f->opt, &cfg, led, after);
    fl__pipeline_set_test_hook(NULL, NULL);
    return st;
}

static void test_quiet_pass_not_run_again(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_f(&f);
        calls k = {0, false};
        fl_ledger led;
        fl_cost_totals after;
        fl_pass_failures fails = {NULL, 0, 0};
        assert_int_equal(run_twice(&f, verify, &k, &led, &after, &fails), FL_OK);
        assert_int_equal(fails.n, 0);
        assert_int_equal(k.shape, verify ? 2 : 1);
        assert_int_equal(led.n_passes, 4); /* recorded either way */
        assert_string_equal(led.passes[3].pass, "shape");
        assert_int_equal(led.passes[3].iteration, 1);
        assert_int_equal(led.passes[3].n_entries, 0);
        assert_int_equal(led.passes[0].nodes_removed, 1);
        assert_int_equal(flops(&led.passes[3].before), RELUS * 4 + 3);
        assert_int_equal(flops(&led.passes[3].after), RELUS * 4 + 3);
        assert_int_equal(flops(&after), RELUS * 4 + 3);
        teardown_f(&f);
    }
}

static void test_quiet_pass_changing_caught(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_f(&f);
        calls k = {0, true};
        fl_ledger led;
        fl_cost_totals after;
        fl_pass_failures fails = {NULL, 0, 0};
        fl_status st = run_twice(&f, verify, &k, &led, &after, &fails);
        assert_int_equal(k.shape, verify ? 2 : 1);
        assert_int_equal(fails.n, 0);
        if (verify) {
            /* the second run's edit fails the analysis: a wrong skip */
            assert_int_equal(st, FL_EINTERNAL);
            assert_string_equal(f.c.d->msg,
                                "internal error: pass 'shape' (iteration 1) changed node 'r1' of "
                                "a graph where it would have been skipped: it had left it as it "
                                "was, or the changes since could give it no work (its skip test)");
        } else {
            assert_int_equal(st, FL_OK);
            assert_int_equal(flops(&after), RELUS * 4 + 3);
            assert_int_equal(fl__graph_find(f.g, "r50")->outputs[0].shape.dims[0].k, 4);
        }
        teardown_f(&f);
    }
}

/* Totals brought up to date by differences (fl__cost_graph_update) hold
 * symbolic counts and the count of incomplete nodes exactly: the graph
 * y [N] -> ry (Relu: FLOPs and bytes in the symbol), u (unknown rank) -> sh
 * (Shape: its output's size, so its bytes, unknown: an incomplete node,
 * left out of the sums), x [4] -> rx (Relu, 4 FLOPs). A hook removes nodes:
 * without sh no node is incomplete; without ry the FLOPs lose their symbol.
 * Each result equals a costing of the whole graph after it, field by
 * field, with the verifier off (no whole recount inside) and on. */
static fl_status drop_named(fl_pass_ctx *pc, void *arg) {
    for (const char *const *name = arg; *name; name++) {
        fl__graph_remove_node(fl__graph_find(pc->c->g, *name));
        pc->rewritten++;
    }
    return FL_OK;
}

static void setup_mixed(fixture *f) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "y", 1, 1, (int64_t[]){-1});
    tg_attr_type(tg_add(t, "ry", "Relu", "y", NULL), "T", 1);
    tg_placeholder(t, "u", 1, -1, NULL);
    tg_node *sh = tg_add(t, "sh", "Shape", "u", NULL);
    tg_attr_type(sh, "T", 1);
    tg_attr_type(sh, "out_type", 3);
    tg_placeholder(t, "x", 1, 1, (int64_t[]){4});
    tg_attr_type(tg_add(t, "rx", "Relu", "x", NULL), "T", 1);
    load(f, t);
    f->out = "rx";
}

static void assert_totals_equal(const fl_cost_totals *a, const fl_cost_totals *b) {
    const fl_sym sa[] = {a->flops,   a->tfprof_flops, a->macs,
                         a->int_ops, a->bytes_read,   a->bytes_written};
    const fl_sym sb[] = {b->flops,   b->tfprof_flops, b->macs,
                         b->int_ops, b->bytes_read,   b->bytes_written};
    for (size_t i = 0; i < sizeof sa / sizeof *sa; i++) {
        assert_int_equal(fl_sym_is_unknown(sa[i]), fl_sym_is_unknown(sb[i]));
        assert_true(fl_sym_is_unknown(sa[i]) || fl__sym_eq(sa[i], sb[i]));
    }
    assert_int_equal(a->nodes_with_rule, b->nodes_with_rule);
    assert_int_equal(a->nodes_without_rule, b->nodes_without_rule);
    assert_int_equal(a->nodes_incomplete, b->nodes_incomplete);
    assert_int_equal(a->nodes_values, b->nodes_values);
}

static void test_totals_by_difference(void **state) {
    (void)state;
    const char *no_sh[] = {"sh", NULL}, *no_ry[] = {"ry", NULL};
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_mixed(&f);
        fl_ledger led;
        fl_cost_totals after, whole;
        fl__pipeline_set_test_hook(drop_named, no_sh);
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_removed, 1);
        assert_int_equal(led.passes[0].before.nodes_incomplete, 1);
        assert_int_equal(after.nodes_incomplete, 0);
        assert_true(fl_sym_is_symbolic(after.bytes_written));
        assert_true(fl_sym_is_symbolic(after.flops));
        assert_int_equal(fl__cost_graph(&f.c, &whole), FL_OK);
        assert_totals_equal(&after, &whole);

        fl__pipeline_set_test_hook(drop_named, no_ry);
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_removed, 1);
        assert_int_equal(flops(&after), 4); /* rx alone */
        assert_int_equal(fl__cost_graph(&f.c, &whole), FL_OK);
        assert_totals_equal(&after, &whole);
        teardown_f(&f);
    }
}

/* FL_NODE_INCOMPLETE (an output's shape not determined) follows a node
 * inferred again, as the whole inference would set it: in setup_mixed's
 * graph, ry moved onto u (unknown rank) has it, moved back onto y it has
 * not; with the verifier on and off. */
static fl_status move_ry(fl_pass_ctx *pc, void *arg) {
    fl_graph *g = pc->c->g;
    fl__node_set_input(g, fl__graph_find(g, "ry"), 0, (fl_input){fl__graph_find(g, arg), 0});
    pc->rewritten++;
    return FL_OK;
}

static void test_incomplete_flag_follows(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_mixed(&f);
        fl_ledger led;
        fl_cost_totals after;
        assert_false(fl__graph_find(f.g, "ry")->flags & FL_NODE_INCOMPLETE);
        fl__pipeline_set_test_hook(move_ry, "u");
        run_v(&f, "shape", verify, &led, &after);
        assert_int_equal(led.passes[0].nodes_reinferred, 1);
        assert_int_equal(fl__graph_find(f.g, "ry")->outputs[0].shape.rank, -1);
        assert_true(fl__graph_find(f.g, "ry")->flags & FL_NODE_INCOMPLETE);
        fl__pipeline_set_test_hook(move_ry, "y");
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_reinferred, 1);
        assert_int_equal(fl__graph_find(f.g, "ry")->outputs[0].shape.rank, 1);
        assert_false(fl__graph_find(f.g, "ry")->flags & FL_NODE_INCOMPLETE);
        teardown_f(&f);
    }
}

/* The verifier's node-by-node comparison with the whole costing covers
 * every count and flag of a node's cost: a hook moves r1 onto x (same
 * shape: r1 alone is inferred again) and, without marking them, writes
 * wrong counts that leave the totals right: int_ops 7 into r25 and -7 into
 * r26 (a Relu has none), or per_load (which no total reads) into r25. The
 * update keeps their costs (they are not inferred again) and its totals
 * equal the whole costing's, so only the per-node comparison can see it:
 * the pass fails and is rolled back. */
static fl_status stale_cost(fl_pass_ctx *pc, void *arg) {
    fl_graph *g = pc->c->g;
    fl__node_set_input(g, fl__graph_find(g, "r1"), 0, (fl_input){fl__graph_find(g, "x"), 0});
    fl_node *r25 = fl__graph_find(g, "r25"), *r26 = fl__graph_find(g, "r26");
    fl__graph_journal_save(g, r25); /* saved for the rollback, not marked */
    fl__graph_journal_save(g, r26);
    fl_cost k25 = fl__node_cost(r25), k26 = fl__node_cost(r26);
    if (arg) {
        k25.per_load = true;
    } else {
        k25.int_ops = fl_sym_const(7);
        k26.int_ops = fl_sym_const(-7);
    }
    if (fl__node_set_cost(g, r25, &k25) != FL_OK || fl__node_set_cost(g, r26, &k26) != FL_OK) {
        return FL_ENOMEM;
    }
    pc->rewritten++;
    return FL_OK;
}

static void test_verifier_compares_every_count(void **state) {
    (void)state;
    for (int per_load = 0; per_load < 2; per_load++) {
        fixture f;
        setup_f(&f);
        fl_pipeline_config cfg;
        fl__pipeline_config_init(&cfg);
        cfg.verify = true;
        cfg.passes = "shape";
        cfg.opt.iterations = 1;
        cfg.outputs = (const char *[]){"s"};
        cfg.n_outputs = 1;
        fl_pass_failures fails = {NULL, 0, 0};
        cfg.failures = &fails;
        fl_ledger led;
        fl_cost_totals after;
        fl__ledger_init(&led, &f.arena);
        fl__pipeline_set_test_hook(stale_cost, per_load ? "per_load" : NULL);
        assert_int_equal(fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after), FL_OK);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(fails.n, 1);
        assert_string_equal(fails.items[0].pass, "shape");
        assert_non_null(strstr(fails.items[0].message, "differs from the whole inference"));
        /* rolled back: r1 reads i again, r25's and r26's costs are as they were */
        assert_ptr_equal(fl__graph_find(f.g, "r1")->inputs[0].node, fl__graph_find(f.g, "i"));
        for (int k = 25; k <= 26; k++) {
            char name[8];
            snprintf(name, sizeof name, "r%d", k);
            const fl_cost c = fl__node_cost(fl__graph_find(f.g, name));
            assert_true(fl_sym_is_known(c.int_ops));
            assert_int_equal(c.int_ops.k, 0);
            assert_false(c.per_load);
        }
        teardown_f(&f);
    }
}

/* A reader moved onto a producer whose outputs equal those of the one it
 * read (fl__graph_journal_same) is not inferred or costed again: the graph
 * x [4] -> a = AddV2(x, c1), b = Sub(x, c2), m = Mul(a, b), and the output
 * y = Relu(x); c1 and c2 equal [4] Consts, c3 a [2, 4] one. CSE removes c2
 * and moves b onto c1: no node is inferred again. A hook that moves b onto
 * c1 or c3 and says the outputs are equal: for c1 nothing is inferred
 * again; for c3 (other dims) the claim is not taken, b and m are inferred
 * again and m is [2, 4]. With the verifier on (the whole inference must
 * agree) and off. */
static void setup_equal_consts(fixture *f) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "x", 1, 1, (int64_t[]){4});
    const float v[] = {1, 2, 3, 4};
    tg_const_f32_vals(t, "c1", 1, (int64_t[]){4}, v, 4);
    tg_const_f32_vals(t, "c2", 1, (int64_t[]){4}, v, 4);
    tg_const_f32_vals(t, "c3", 2, (int64_t[]){2, 4}, v, 4);
    tg_attr_type(tg_add(t, "a", "AddV2", "x", "c1", NULL), "T", 1);
    tg_attr_type(tg_add(t, "b", "Sub", "x", "c2", NULL), "T", 1);
    tg_attr_type(tg_add(t, "m", "Mul", "a", "b", NULL), "T", 1);
    tg_attr_type(tg_add(t, "y", "Relu", "x", NULL), "T", 1);
    load(f, t);
    f->out = "y";
}

static fl_status claim_same(fl_pass_ctx *pc, void *arg) {
    fl_graph *g = pc->c->g;
    fl_node *b = fl__graph_find(g, "b"), *from = fl__graph_find(g, "c2");
    fl_node *to = fl__graph_find(g, arg);
    fl__node_set_input(g, b, 1, (fl_input){to, 0});
    fl__graph_remove_node(from);
    fl__graph_journal_same(g, from, to);
    pc->rewritten++;
    return FL_OK;
}

static void test_reader_of_equal_producer_kept(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        setup_equal_consts(&f);
        fl_ledger led;
        fl_cost_totals after;
        run_v(&f, "cse", verify, &led, &after);
        assert_int_equal(led.passes[0].nodes_removed, 1);
        assert_int_equal(led.passes[0].nodes_reinferred, 0);
        assert_null(fl__graph_find(f.g, "c2"));
        assert_ptr_equal(fl__graph_find(f.g, "b")->inputs[1].node, fl__graph_find(f.g, "c1"));
        assert_int_equal(flops(&after), 4 * 4);
        teardown_f(&f);

        setup_equal_consts(&f);
        fl__pipeline_set_test_hook(claim_same, "c1");
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_removed, 1);
        assert_int_equal(led.passes[0].nodes_reinferred, 0);
        assert_int_equal(flops(&after), 4 * 4);
        teardown_f(&f);

        setup_equal_consts(&f);
        fl__pipeline_set_test_hook(claim_same, "c3");
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_reinferred, 2);
        const fl_shape *sh = &fl__graph_find(f.g, "m")->outputs[0].shape;
        assert_int_equal(sh->rank, 2);
        assert_int_equal(sh->dims[0].k, 2);
        assert_int_equal(sh->dims[1].k, 4);
        assert_int_equal(flops(&after), 4 + 8 + 8 + 4); /* a and y [4], b and m [2, 4] */
        teardown_f(&f);
    }
}

/* A MaxPool moved onto another producer whose output is the same tensor
 * (dtype, dims; no journal record: a fused node replacing the last of the
 * nodes it fuses) is not inferred or costed again; moved onto one of other
 * dims, it is. The graph: x [1, 4, 4, 1] -> r = Relu(x), q = Tanh(x),
 * p = MaxPool 2x2 (r); w [1, 8, 8, 1] (the output) -> z = Relu(w). */
static void setup_pool(fixture *f) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "x", 1, 4, (int64_t[]){1, 4, 4, 1});
    tg_placeholder(t, "w", 1, 4, (int64_t[]){1, 8, 8, 1});
    tg_attr_type(tg_add(t, "r", "Relu", "x", NULL), "T", 1);
    tg_attr_type(tg_add(t, "q", "Tanh", "x", NULL), "T", 1);
    tg_attr_type(tg_add(t, "z", "Relu", "w", NULL), "T", 1);
    tg_node *p = tg_add(t, "p", "MaxPool", "r", NULL);
    tg_attr_type(p, "T", 1);
    tg_attr_ints(p, "ksize", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_ints(p, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(p, "padding", "VALID");
    tg_attr_str(p, "data_format", "NHWC");
    load(f, t);
    f->out = "w"; /* not p: its shape is to change */
}

static fl_status move_pool(fl_pass_ctx *pc, void *arg) {
    fl_graph *g = pc->c->g;
    fl_node *p = fl__graph_find(g, "p"), *r = fl__graph_find(g, "r");
    fl__node_set_input(g, p, 0, (fl_input){fl__graph_find(g, arg), 0});
    fl__graph_remove_node(r);
    pc->rewritten++;
    return FL_OK;
}

static void test_pool_onto_equal_tensor_kept(void **state) {
    (void)state;
    for (int verify = 0; verify < 2; verify++) {
        fixture f;
        fl_ledger led;
        fl_cost_totals after;
        setup_pool(&f);
        fl__pipeline_set_test_hook(move_pool, "q");
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_reinferred, 0);
        const fl_node *p = fl__graph_find(f.g, "p");
        assert_ptr_equal(p->inputs[0].node, fl__graph_find(f.g, "q"));
        assert_int_equal(p->outputs[0].shape.dims[1].k, 2);
        assert_int_equal(p->outputs[0].shape.dims[2].k, 2);
        assert_int_equal(fl__node_cost(p).bytes_read.k, 16 * 4);
        teardown_f(&f);

        setup_pool(&f);
        fl__pipeline_set_test_hook(move_pool, "z");
        run_v(&f, "shape", verify, &led, &after);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(led.passes[0].nodes_reinferred, 1);
        p = fl__graph_find(f.g, "p");
        assert_int_equal(p->outputs[0].shape.dims[1].k, 4);
        assert_int_equal(p->outputs[0].shape.dims[2].k, 4);
        assert_int_equal(fl__node_cost(p).bytes_read.k, 64 * 4);
        teardown_f(&f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bypass_reinfers_one),
        cmocka_unit_test(test_shape_change_travels),
        cmocka_unit_test(test_unrecorded_edit_refreshed),
        cmocka_unit_test(test_ledger_without_edit_kept),
        cmocka_unit_test(test_quiet_pass_not_run_again),
        cmocka_unit_test(test_quiet_pass_changing_caught),
        cmocka_unit_test(test_totals_by_difference),
        cmocka_unit_test(test_incomplete_flag_follows),
        cmocka_unit_test(test_verifier_compares_every_count),
        cmocka_unit_test(test_reader_of_equal_producer_kept),
        cmocka_unit_test(test_pool_onto_equal_tensor_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
