/*
 * test_reinfer.c - the memory the pass pipeline reuses from one pass to the
 * next gives the results fresh memory gives:
 *  - re-inference and re-costing after the passes equal a fresh import and
 *    inference of the optimised graph (node by node: dtypes, shapes, counts);
 *  - use lists built into released buffers equal freshly allocated ones;
 *  - the name index rebuilt in place finds every live node and only those,
 *    and still rejects two live nodes of one name;
 *  - arena memory handed out zero-filled is zero (blocks come zeroed);
 *  - each pass record's node counts add up (the O(n) set difference).
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The benchmark's block, `blocks` times, on a batch left free:
 * x -> Identity -> Mul(., one) -> AddV2(., Neg(c1 + c2)) -> Neg. Every
 * pass has work (pruning, folding, neutral elements, CSE, dependencies). */
static tg_graph *chain(int blocks) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 16});
    tg_const_f32(g, "one", 0, NULL, (float[]){1}, 0);
    tg_const_f32(g, "c1", 1, (int64_t[]){16}, NULL, 0);
    tg_const_f32(g, "c2", 1, (int64_t[]){16}, NULL, 0);
    char prev[64] = "x", n[6][64];
    for (int i = 0; i < blocks; i++) {
        const char *names[] = {"i", "m", "s", "k", "a", "y"};
        for (int k = 0; k < 6; k++) {
            snprintf(n[k], sizeof n[k], "%s%d", names[k], i);
        }
        tg_attr_type(tg_add(g, n[0], "Identity", prev, NULL), "T", 1);
        tg_attr_type(tg_add(g, n[1], "Mul", n[0], "one", NULL), "T", 1);
        tg_attr_type(tg_add(g, n[2], "AddV2", "c1", "c2", NULL), "T", 1);
        tg_attr_type(tg_add(g, n[3], "Neg", n[2], NULL), "T", 1);
        tg_attr_type(tg_add(g, n[4], "AddV2", n[1], n[3], NULL), "T", 1);
        tg_attr_type(tg_add(g, n[5], "Neg", n[4], NULL), "T", 1);
        snprintf(prev, sizeof prev, "%s", n[5]);
    }
    return g;
}

static const fl_report_node *find_node(const fl_report_node *ns, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ns[i].name, name) == 0) {
            return &ns[i];
        }
    }
    return NULL;
}

static void same_node(const fl_report_node *a, const fl_report_node *b) {
    assert_string_equal(a->op, b->op);
    assert_int_equal(a->n_outputs, b->n_outputs);
    for (size_t k = 0; k < a->n_outputs; k++) {
        assert_string_equal(a->outputs[k].dtype, b->outputs[k].dtype);
        assert_string_equal(a->outputs[k].shape, b->outputs[k].shape);
    }
    assert_string_equal(a->flops.text, b->flops.text);
    assert_string_equal(a->tfprof_flops.text, b->tfprof_flops.text);
    assert_string_equal(a->macs.text, b->macs.text);
    assert_string_equal(a->bytes.text, b->bytes.text);
    assert_int_equal(a->has_rule, b->has_rule);
    assert_int_equal(a->incomplete, b->incomplete);
}

static void same_totals(const fl_totals *a, const fl_totals *b) {
    assert_string_equal(a->flops.text, b->flops.text);
    assert_string_equal(a->tfprof_flops.text, b->tfprof_flops.text);
    assert_string_equal(a->macs.text, b->macs.text);
    assert_string_equal(a->bytes_read.text, b->bytes_read.text);
    assert_string_equal(a->bytes_written.text, b->bytes_written.text);
    assert_int_equal(a->nodes, b->nodes);
}

/* The graph after the pipeline (re-inferred and re-costed after every pass,
 * in reused memory) against the optimised graph imported and analysed from
 * scratch. */
static void test_reinfer_equals_fresh(void **state) {
    (void)state;
    tg_graph *g = chain(40);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    o.return_graph = true;
    fl_report *r = tg_analyze(g, &o);
    tg_free(g);
    assert_true(r->optimized);
    assert_non_null(r->graph_bytes);
    assert_true(r->after.nodes < r->before.nodes);

    fl_options o2;
    fl_options_init(&o2);
    o2.per_node = true;
    fl_report *f = NULL;
    assert_int_equal(fl_analyze(r->graph_bytes, r->graph_len, &o2, &f), FL_OK);
    assert_int_equal(f->n_nodes_detail, r->n_nodes_after);
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        const fl_report_node *a = &r->nodes_after[i];
        const fl_report_node *b = find_node(f->nodes, f->n_nodes_detail, a->name);
        assert_non_null(b);
        same_node(a, b);
    }
    same_totals(&r->after, &f->totals);

    /* Every record's counts add up: before - removed + added = after. */
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        assert_int_equal(p->before.nodes - p->nodes_removed + p->nodes_added, p->after.nodes);
    }
    fl_report_free(f);
    fl_report_free(r);
}

/* Two analyses of one graph give one result (nothing carried over). */
static void test_repeatable(void **state) {
    (void)state;
    tg_graph *g = chain(12);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    fl_report *a = tg_analyze(g, &o);
    fl_report *b = tg_analyze(g, &o);
    tg_free(g);
    same_totals(&a->after, &b->after);
    assert_int_equal(a->n_passes, b->n_passes);
    for (size_t i = 0; i < a->n_passes; i++) {
        assert_int_equal(a->passes[i].nodes_removed, b->passes[i].nodes_removed);
        assert_int_equal(a->passes[i].nodes_added, b->passes[i].nodes_added);
        assert_int_equal(a->passes[i].nodes_rewritten, b->passes[i].nodes_rewritten);
    }
    assert_int_equal(a->n_nodes_after, b->n_nodes_after);
    for (size_t i = 0; i < a->n_nodes_after; i++) {
        assert_string_equal(a->nodes_after[i].name, b->nodes_after[i].name);
        same_node(&a->nodes_after[i], &b->nodes_after[i]);
    }
    fl_report_free(a);
    fl_report_free(b);
}

typedef struct fixture {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
} fixture;

static void load(fixture *f, int blocks) {
    tg_graph *t = chain(blocks);
    size_t len;
    uint8_t *buf = tg_pack(t, &len);
    tg_free(t);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    assert_non_null(f->g);
    fl_import_opts io = {100000, 1 << 16, NULL};
    const uint8_t *own = tg_keep(&f->arena, buf, len);
    assert_int_equal(fl__import_graphdef(f->g, own, len, &io, &f->d), FL_OK);
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
}

/* u and v list the same uses of every output of every node. */
static void same_uses(const fl_graph *g, const fl_uses *u, const fl_uses *v) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        assert_int_equal(fl__uses_total(u, n), fl__uses_total(v, n));
        for (int k = 0; k < n->n_outputs; k++) {
            size_t cu, cv;
            const fl_use *a = fl__uses_of(u, n, k, &cu);
            const fl_use *b = fl__uses_of(v, n, k, &cv);
            assert_int_equal(cu, cv);
            for (size_t j = 0; j < cu; j++) {
                assert_ptr_equal(a[j].node, b[j].node);
                assert_int_equal(a[j].input, b[j].input);
            }
        }
    }
}

static void test_uses_reuse(void **state) {
    (void)state;
    fixture f;
    load(&f, 20);
    fl_uses u1, u2;
    assert_int_equal(fl__uses_build(f.g, &u1, &f.d), FL_OK);
    /* Not released: a second build may not overwrite u1. */
    assert_int_equal(fl__uses_build(f.g, &u2, &f.d), FL_OK);
    assert_ptr_not_equal(u1.uses, u2.uses);
    assert_ptr_not_equal(u1.offsets, u2.offsets);
    assert_ptr_not_equal(u1.port_base, u2.port_base);
    same_uses(f.g, &u1, &u2);

    /* Shrink the graph: drop every block's Identity (bypassed). */
    for (size_t i = 0; i < f.g->n_nodes; i++) {
        fl_node *n = f.g->nodes[i];
        if (strcmp(n->op, "Identity") == 0) {
            fl__graph_replace_uses(f.g, n, 0, n->inputs[0].node, n->inputs[0].port);
            fl__graph_remove_node(n);
        }
    }
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    fl__uses_release(f.g);
    fl_uses u3, u4;
    assert_int_equal(fl__uses_build(f.g, &u3, &f.d), FL_OK);
    assert_ptr_equal(u3.uses, u1.uses); /* the released buffers, reused */
    assert_int_equal(fl__uses_build(f.g, &u4, &f.d), FL_OK);
    assert_ptr_not_equal(u4.uses, u3.uses);
    same_uses(f.g, &u3, &u4);
    size_t c;
    fl__uses_of(&u3, fl__graph_find(f.g, "one"), 0, &c);
    assert_int_equal(c, 20);
    fl__arena_free(&f.arena);
}

static void test_reindex_in_place(void **state) {
    (void)state;
    fixture f;
    load(&f, 30);
    size_t n0 = f.g->n_nodes;
    /* Remove a few nodes nothing reads: the table keeps its size. */
    const char *gone[] = {"y29", "a29", "k29"};
    fl_node *y28 = fl__graph_find(f.g, "y28");
    assert_non_null(y28);
    for (int i = 0; i < 3; i++) {
        fl__graph_remove_node(fl__graph_find(f.g, gone[i]));
    }
    fl_node *m29 = fl__graph_find(f.g, "m29");
    fl__graph_replace_uses(f.g, m29, 0, y28, 0);
    struct fl_name_slot *index0 = f.g->index;
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_ptr_equal(f.g->index, index0);
    assert_int_equal(f.g->n_nodes, n0 - 3);
    for (int i = 0; i < 3; i++) {
        assert_null(fl__graph_find(f.g, gone[i]));
    }
    for (size_t i = 0; i < f.g->n_nodes; i++) {
        assert_ptr_equal(fl__graph_find(f.g, f.g->nodes[i]->name), f.g->nodes[i]);
    }
    /* Two live nodes of one name: rejected. */
    f.g->nodes[5]->name = f.g->nodes[6]->name;
    assert_int_equal(fl__graph_reindex(f.g, &f.d), FL_EINTERNAL);
    fl__arena_free(&f.arena);
}

static void test_arena_zero(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 0);
    for (int round = 0; round < 200; round++) {
        size_t n = 100 + (size_t)round * 997;
        unsigned char *p = fl__arena_alloc(&a, n);
        assert_non_null(p);
        memset(p, 0xAB, n); /* dirty what was handed out */
        unsigned char *z = round % 2 ? fl__arena_zalloc(&a, n) : fl__arena_calloc(&a, n, 1);
        assert_non_null(z);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(z[i], 0);
        }
        memset(z, 0xCD, n);
        uint32_t *g = fl__arena_grow(&a, p, n / 4, n / 2, sizeof(uint32_t));
        assert_non_null(g);
        for (size_t i = 0; i < n / 4; i++) {
            assert_int_equal(g[i], 0xABABABABu);
        }
        for (size_t i = n / 4; i < n / 2; i++) {
            assert_int_equal(g[i], 0);
        }
    }
    fl__arena_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reinfer_equals_fresh), cmocka_unit_test(test_repeatable),
        cmocka_unit_test(test_uses_reuse),           cmocka_unit_test(test_reindex_in_place),
        cmocka_unit_test(test_arena_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
