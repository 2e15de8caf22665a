/*
 * test_mutate.c - in-place rewriting of the IR: use lists, redirecting uses,
 * removal and compaction, renaming, unique names, attrs.
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "ops/ops.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
} fixture;

/* x -> a (Relu) -> b (Relu) -> c (Relu), plus d = AddV2(a, a) and a NoOp
 * `dep` with a control edge into c. */
static void build(fixture *f) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "x", 1, 1, (int64_t[]){4});
    tg_attr_type(tg_add(t, "a", "Relu", "x", NULL), "T", 1);
    tg_attr_type(tg_add(t, "b", "Relu", "a", NULL), "T", 1);
    tg_add(t, "dep", "NoOp", NULL);
    tg_attr_type(tg_add(t, "c", "Relu", "b", "^dep", NULL), "T", 1);
    tg_attr_type(tg_add(t, "d", "AddV2", "a", "a", NULL), "T", 1);
    size_t len;
    uint8_t *buf = tg_pack(t, &len);
    tg_free(t);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    fl_import_opts o = {1000, 1 << 16, NULL};
    const uint8_t *own = tg_keep(&f->arena, buf, len);
    assert_int_equal(fl__import_graphdef(f->g, own, len, &o, &f->d), FL_OK);
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
}

static void teardown_f(fixture *f) {
    fl__arena_free(&f->arena);
}

static void test_uses(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_uses u;
    assert_int_equal(fl__uses_build(f.g, &u, &f.d), FL_OK);
    size_t n;
    const fl_use *us = fl__uses_of(&u, fl__graph_find(f.g, "a"), 0, &n);
    /* a feeds b (input 0) and d (inputs 0 and 1). */
    assert_int_equal(n, 3);
    int seen_b = 0, seen_d = 0;
    for (size_t i = 0; i < n; i++) {
        seen_b += strcmp(us[i].node->name, "b") == 0;
        seen_d += strcmp(us[i].node->name, "d") == 0;
    }
    assert_int_equal(seen_b, 1);
    assert_int_equal(seen_d, 2);
    assert_int_equal(fl__uses_total(&u, fl__graph_find(f.g, "dep")), 1);
    assert_int_equal(fl__uses_total(&u, fl__graph_find(f.g, "c")), 0);
    teardown_f(&f);
}

/* Use lists are handed out again while the graph has not changed since
 * they were built (no marked edit, no node added or removed); an edit
 * through the API, a removal or a new node makes the next build new. */
static void test_uses_kept_until_an_edit(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_graph *g = f.g;
    fl_node *a = fl__graph_find(g, "a"), *b = fl__graph_find(g, "b"), *c = fl__graph_find(g, "c");
    fl_uses u1, u2;
    size_t n;
    assert_int_equal(fl__uses_build(g, &u1, &f.d), FL_OK);
    fl__uses_release(g);
    /* Writing back the value an input has is no edit. */
    uint64_t edits = g->edits;
    fl__node_set_input(g, c, 0, (fl_input){b, 0});
    fl__node_set_ctrl(g, c, 0, fl__graph_find(g, "dep"));
    fl__node_trim_ctrl(g, c, 1);
    assert_int_equal(g->edits, edits);
    assert_int_equal(fl__uses_build(g, &u2, &f.d), FL_OK);
    assert_ptr_equal(u2.uses, u1.uses); /* kept, not rebuilt */
    fl__uses_of(&u2, b, 0, &n);
    assert_int_equal(n, 1);
    fl__uses_release(g);
    /* c reads a now: marked, and the next build sees it. */
    uint32_t stamp = g->birth = 7;
    fl__node_set_input(g, c, 0, (fl_input){a, 0});
    assert_int_equal(c->edited, stamp);
    assert_true(g->edits > edits);
    assert_int_equal(fl__uses_build(g, &u2, &f.d), FL_OK);
    fl__uses_of(&u2, b, 0, &n);
    assert_int_equal(n, 0);
    fl__uses_of(&u2, a, 0, &n);
    assert_int_equal(n, 4); /* b, c and d twice */
    fl__uses_release(g);
    /* A removal alone (b reads a, nothing reads b) also invalidates them. */
    fl__graph_remove_node(b);
    assert_int_equal(fl__uses_build(g, &u2, &f.d), FL_OK);
    fl__uses_of(&u2, a, 0, &n);
    assert_int_equal(n, 3);
    fl__uses_release(g);
    /* An edit behind the API is found by the self-check (tests run with
     * FOLDLINE_VERIFY=1): the kept lists differ from a new build. */
    assert_int_equal(fl__uses_build(g, &u2, &f.d), FL_OK);
    fl__uses_release(g);
    c->inputs[0] = (fl_input){fl__graph_find(g, "x"), 0};
    assert_int_equal(fl__uses_build(g, &u2, &f.d), FL_EINTERNAL);
    assert_non_null(strstr(f.d.msg, "use lists kept since an earlier build differ"));
    teardown_f(&f);
}

/* A compaction of a graph nothing changed since the last one is skipped
 * (it counts no edit); any removal or marked edit makes it run. */
static void test_compact_again_skipped(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_graph *g = f.g;
    assert_int_equal(fl__graph_compact(g, &f.d), FL_OK);
    uint64_t edits = g->edits;
    assert_int_equal(fl__graph_compact(g, &f.d), FL_OK);
    assert_int_equal(g->edits, edits);
    fl_node *a = fl__graph_find(g, "a"), *b = fl__graph_find(g, "b");
    assert_int_equal(fl__graph_replace_uses(g, b, 0, a, 0), 1);
    fl__graph_remove_node(b);
    assert_int_equal(fl__graph_compact(g, &f.d), FL_OK);
    assert_true(g->edits > edits);
    assert_int_equal(g->n_nodes, 5);
    assert_null(fl__graph_find(g, "b"));
    assert_int_equal(a->outputs[0].n_consumers, 3);
    assert_int_equal(fl__graph_verify(g, &f.d), FL_OK);
    teardown_f(&f);
}

/* Bypass b: c reads a; remove b; compact renumbers and keeps the index. */
static void test_bypass_and_compact(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    assert_int_equal(fl__graph_replace_uses(f.g, b, 0, a, 0), 1);
    fl__graph_remove_node(b);
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_int_equal(f.g->n_nodes, 5);
    assert_null(fl__graph_find(f.g, "b"));
    fl_node *c = fl__graph_find(f.g, "c");
    assert_ptr_equal(c->inputs[0].node, a);
    assert_int_equal(a->outputs[0].n_consumers, 3);
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    assert_int_equal(fl__graph_toposort(f.g, &f.d), FL_OK);
    teardown_f(&f);
}

static void test_compact_refuses_dangling(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl__graph_remove_node(fl__graph_find(f.g, "b"));
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_EINTERNAL);
    assert_non_null(
        strstr(f.d.msg, "node 'c' (Relu): rewrite left input 0 reading removed node 'b'"));
    teardown_f(&f);
}

/* Removing a node drops control edges on it; replace_ctrl_uses forwards. */
static void test_control_edges(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *dep = fl__graph_find(f.g, "dep"), *x = fl__graph_find(f.g, "x");
    fl_node *c = fl__graph_find(f.g, "c");
    assert_int_equal(fl__graph_replace_ctrl_uses(f.g, dep, x), 1);
    assert_ptr_equal(c->ctrl[0], x);
    assert_int_equal(fl__node_add_ctrl(f.g, c, x), FL_OK);
    assert_int_equal(c->n_ctrl, 1); /* already present */
    /* Compaction drops control edges on a removed node. */
    assert_int_equal(fl__node_add_ctrl(f.g, c, dep), FL_OK);
    assert_int_equal(c->n_ctrl, 2);
    fl__graph_remove_node(dep);
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_int_equal(c->n_ctrl, 1);
    assert_ptr_equal(c->ctrl[0], x);
    teardown_f(&f);
}

/* A fused node can take over the name of the node it replaces. */
static void test_rename_and_unique_names(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *c = fl__graph_find(f.g, "c");
    assert_int_equal(fl__graph_rename(f.g, c, "c/old", &f.d), FL_OK);
    assert_null(fl__graph_find(f.g, "c"));
    assert_ptr_equal(fl__graph_find(f.g, "c/old"), c);
    /* Every other node is still found after the backward-shift delete. */
    const char *names[] = {"x", "a", "b", "dep", "d"};
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(fl__graph_find(f.g, names[i]));
    }
    assert_string_equal(fl__graph_unique_name(f.g, "a"), "a_1");
    assert_string_equal(fl__graph_unique_name(f.g, "c"), "c");
    fl_input in = {fl__graph_find(f.g, "b"), 0};
    fl_node *n = fl__op_add_op(f.g, "c", "Relu", 1, &in, 1, &f.d);
    assert_non_null(n);
    fl_attr t = fl__attr_make_type(f.g, "T", 1);
    assert_int_equal(fl__node_set_attr(f.g, n, &t), FL_OK);
    assert_int_equal(fl__graph_replace_uses(f.g, c, 0, n, 0), 0);
    fl__graph_remove_node(c);
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_ptr_equal(fl__graph_find(f.g, "c"), n);
    assert_int_equal(fl__graph_rename(f.g, n, "a", &f.d), FL_EINTERNAL);
    fl_diag d2;
    fl__diag_init(&d2, &f.arena);
    assert_int_equal(fl__graph_verify(f.g, &d2), FL_OK);
    teardown_f(&f);
}

/* A node added under the name of the node it replaces: the index keeps the
 * old node under the name (the name stays taken) until the compaction,
 * which indexes the new one; the old node must be removed by then. */
static void test_add_taking_name(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *b = fl__graph_find(f.g, "b"), *c = fl__graph_find(f.g, "c");
    size_t n0 = f.g->n_nodes;
    fl_input in = {fl__graph_find(f.g, "a"), 0};
    fl_node *n = fl__op_add_op_taking_name(f.g, b, "Relu6", 1, &in, 1, &f.d);
    assert_non_null(n);
    assert_ptr_equal(n->name, b->name);
    assert_string_equal(n->op, "Relu6");
    assert_int_equal(n->kind, FL_OP_RELU6);
    assert_int_equal(f.g->n_nodes, n0 + 1);
    assert_ptr_equal(f.g->nodes[n0], n);
    assert_ptr_equal(fl__graph_find(f.g, "b"), b);
    assert_string_equal(fl__graph_unique_name(f.g, "b"), "b_1");
    assert_int_equal(fl__graph_replace_uses(f.g, b, 0, n, 0), 1);
    assert_ptr_equal(c->inputs[0].node, n);
    fl__graph_remove_node(b);
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_int_equal(f.g->n_nodes, n0);
    assert_ptr_equal(fl__graph_find(f.g, "b"), n);
    assert_int_equal(n->outputs[0].n_consumers, 1);
    fl_diag d2;
    fl__diag_init(&d2, &f.arena);
    assert_int_equal(fl__graph_verify(f.g, &d2), FL_OK);
    teardown_f(&f);
}

/* A node keeps its name's hash for the index; a name set directly (a fused
 * node taking the name of the node it replaced, as the Q/DQ fusions do) is
 * indexed under the new name by the next compaction, and the old name is
 * free again. */
static void test_compact_after_direct_rename(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *b = fl__graph_find(f.g, "b"), *c = fl__graph_find(f.g, "c");
    fl_input in = {fl__graph_find(f.g, "a"), 0};
    fl_node *n = fl__op_add_op(f.g, "b_fused", "Relu6", 1, &in, 1, &f.d);
    assert_non_null(n);
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK); /* n's hash is of "b_fused" */
    assert_ptr_equal(fl__graph_find(f.g, "b_fused"), n);
    assert_int_equal(fl__graph_replace_uses(f.g, b, 0, n, 0), 1);
    fl__graph_remove_node(b);
    n->name = b->name;
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_ptr_equal(fl__graph_find(f.g, "b"), n);
    assert_null(fl__graph_find(f.g, "b_fused"));
    assert_string_equal(fl__graph_unique_name(f.g, "b_fused"), "b_fused");
    assert_ptr_equal(c->inputs[0].node, n);
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    /* and once more, with every hash kept */
    assert_int_equal(fl__graph_rename(f.g, c, "c2", &f.d), FL_OK);
    fl__graph_remove_node(fl__graph_find(f.g, "d"));
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_ptr_equal(fl__graph_find(f.g, "c2"), c);
    assert_null(fl__graph_find(f.g, "c"));
    assert_null(fl__graph_find(f.g, "d"));
    assert_ptr_equal(fl__graph_find(f.g, "b"), n);
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    teardown_f(&f);
}

/* The compaction updates the name index in place: a node added under a
 * taken name and removed again before it leaves the name to its holder; the
 * removed nodes' names are free; the verifier finds an entry left for a
 * node that is no longer in the graph. */
static void test_compact_index_in_place(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    fl_input in = {a, 0};
    fl_node *n = fl__op_add_op_taking_name(f.g, b, "Relu6", 1, &in, 1, &f.d);
    assert_non_null(n);
    fl__graph_remove_node(n);
    fl__graph_remove_node(fl__graph_find(f.g, "d"));
    size_t n0 = f.g->n_nodes;
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_int_equal(f.g->n_nodes, n0 - 2);
    assert_ptr_equal(fl__graph_find(f.g, "b"), b);
    assert_null(fl__graph_find(f.g, "d"));
    assert_string_equal(fl__graph_unique_name(f.g, "d"), "d");
    for (size_t i = 0; i < f.g->n_nodes; i++) {
        assert_ptr_equal(fl__graph_find(f.g, f.g->nodes[i]->name), f.g->nodes[i]);
    }
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    /* an entry of a node the graph no longer holds */
    fl_node *c = fl__graph_find(f.g, "c");
    f.g->nodes[c->id] = f.g->nodes[--f.g->n_nodes];
    f.g->nodes[c->id]->id = c->id;
    fl_diag d2;
    fl__diag_init(&d2, &f.arena);
    assert_int_equal(fl__graph_verify(f.g, &d2), FL_EINTERNAL);
    assert_non_null(strstr(d2.msg, "name index holds"));
    teardown_f(&f);
}

/* With few nodes to move (an eighth of the graph's at most) the index is
 * updated in place: a node taking a removed node's name, a removed node, a
 * node renamed directly, and the rest as they were. */
static void test_compact_index_few_moved(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_input in = {fl__graph_find(f.g, "a"), 0};
    char name[16];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "r%d", i);
        assert_non_null(fl__op_add_op(f.g, name, "Relu", 1, &in, 1, &f.d));
    }
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    fl_node *b = fl__graph_find(f.g, "b"), *c = fl__graph_find(f.g, "c");
    fl_node *r3 = fl__graph_find(f.g, "r3"), *r5 = fl__graph_find(f.g, "r5");
    fl_node *n = fl__op_add_op_taking_name(f.g, b, "Relu6", 1, &in, 1, &f.d);
    assert_non_null(n);
    assert_int_equal(fl__graph_replace_uses(f.g, b, 0, n, 0), 1);
    fl__graph_remove_node(b);
    fl__graph_remove_node(r3);
    r5->name = "r5_renamed";
    size_t n0 = f.g->n_nodes;
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    assert_int_equal(f.g->n_nodes, n0 - 2);
    assert_ptr_equal(fl__graph_find(f.g, "b"), n);
    assert_null(fl__graph_find(f.g, "r3"));
    assert_null(fl__graph_find(f.g, "r5"));
    assert_ptr_equal(fl__graph_find(f.g, "r5_renamed"), r5);
    assert_ptr_equal(c->inputs[0].node, n);
    for (size_t i = 0; i < f.g->n_nodes; i++) {
        assert_ptr_equal(fl__graph_find(f.g, f.g->nodes[i]->name), f.g->nodes[i]);
    }
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    teardown_f(&f);
}

/* fl__node_init_attrs: one array of the attrs given, plus room; the room is
 * filled in place by fl__node_set_attr, past it the array is copied (the
 * attrs as before, the new one appended). */
static void test_init_attrs(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a");
    fl_attr init[2] = {fl__attr_make_int(f.g, "num_args", 1),
                       fl__attr_make_float(f.g, "epsilon", 0.5f)};
    assert_int_equal(fl__node_init_attrs(f.g, a, 2, init, 1), FL_OK);
    assert_int_equal(a->n_attrs, 2);
    fl_attr *arr = a->attrs;
    assert_string_equal(arr[0].name, "num_args");
    assert_string_equal(arr[1].name, "epsilon");
    fl_attr t = fl__attr_make_type(f.g, "T", 1);
    assert_int_equal(fl__node_set_attr(f.g, a, &t), FL_OK);
    assert_ptr_equal(a->attrs, arr); /* the room */
    fl_attr l = fl__attr_make_float(f.g, "leakyrelu_alpha", 0.25f);
    assert_int_equal(fl__node_set_attr(f.g, a, &l), FL_OK);
    assert_ptr_not_equal(a->attrs, arr); /* past it: a copy */
    assert_int_equal(a->n_attrs, 4);
    const char *names[] = {"num_args", "epsilon", "T", "leakyrelu_alpha"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(a->attrs[i].name, names[i]);
    }
    int64_t k;
    float x;
    assert_int_equal(fl__attr_get_int(a, "num_args", &k, &f.d), FL_OK);
    assert_int_equal(k, 1);
    assert_int_equal(fl__attr_get_float(a, "leakyrelu_alpha", &x, &f.d), FL_OK);
    assert_true(x == 0.25f);
    /* With no room and no attrs: an array of one, and set_attr copies. */
    fl_node *d = fl__graph_find(f.g, "d");
    assert_int_equal(fl__node_init_attrs(f.g, d, 0, NULL, 0), FL_OK);
    assert_int_equal(d->n_attrs, 0);
    assert_int_equal(fl__node_set_attr(f.g, d, &t), FL_OK);
    assert_int_equal(d->n_attrs, 1);
    /* With no room the array is never written in place, so two nodes may
     * share it: replacing an attr of one (an edit that would fit in place)
     * gives that node a copy and leaves the other's attrs as they were. */
    fl_node *b = fl__graph_find(f.g, "b"), *c = fl__graph_find(f.g, "c");
    assert_int_equal(fl__node_init_attrs(f.g, b, 2, init, 0), FL_OK);
    fl_attr *shared = b->attrs;
    fl__node_set_attrs(f.g, c, 2, shared);
    fl_attr i5 = fl__attr_make_int(f.g, "num_args", 5);
    assert_int_equal(fl__node_set_attr(f.g, b, &i5), FL_OK);
    assert_ptr_not_equal(b->attrs, shared);
    assert_ptr_equal(c->attrs, shared);
    assert_int_equal(fl__attr_get_int(b, "num_args", &k, &f.d), FL_OK);
    assert_int_equal(k, 5);
    assert_int_equal(fl__attr_get_int(c, "num_args", &k, &f.d), FL_OK);
    assert_int_equal(k, 1);
    assert_int_equal(fl__node_del_attr(f.g, c, "epsilon"), FL_OK);
    assert_ptr_not_equal(c->attrs, shared);
    assert_int_equal(shared[1].kind, FL_ATTR_F); /* still there for whoever shares it */
    teardown_f(&f);
}

static void test_attrs(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a");
    fl_attr s = fl__attr_make_strs(f.g, "fused_ops", 2, (const char *const[]){"BiasAdd", "Relu"});
    assert_int_equal(fl__node_set_attr(f.g, a, &s), FL_OK);
    const fl_str *v;
    size_t n;
    assert_int_equal(fl__attr_get_strs(a, "fused_ops", &v, &n, &f.d), FL_OK);
    assert_int_equal(n, 2);
    assert_string_equal(v[1].p, "Relu");
    fl_attr i2 = fl__attr_make_int(f.g, "num_args", 1);
    assert_int_equal(fl__node_set_attr(f.g, a, &i2), FL_OK);
    fl_attr i3 = fl__attr_make_int(f.g, "num_args", 2);
    assert_int_equal(fl__node_set_attr(f.g, a, &i3), FL_OK);
    int64_t k;
    assert_int_equal(fl__attr_get_int(a, "num_args", &k, &f.d), FL_OK);
    assert_int_equal(k, 2);
    assert_int_equal(fl__node_del_attr(f.g, a, "num_args"), FL_OK);
    assert_int_equal(fl__attr_get_int(a, "num_args", &k, &f.d), FL_ENOTFOUND);
    fl_attr t = fl__attr_make_tensor(f.g, "value", 1, 2, (int64_t[]){3, 4}, NULL);
    assert_true(t.v.tensor->stripped);
    assert_int_equal(t.v.tensor->content_bytes, 48);
    teardown_f(&f);
}

/* The edge index finds the readers a whole-graph walk finds, also those
 * noted after it was built, and skips the entries its own moves left stale:
 * the same edges change and the counts are the walk's. */
static void test_edge_index(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_edge_index x;
    size_t reserved0 = f.g->arena->reserved;
    assert_int_equal(fl__edge_index_build(f.g, &x, &f.d), FL_OK);
    assert_true(f.g->arena->reserved > reserved0); /* held apart, until freed */
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    fl_node *c = fl__graph_find(f.g, "c"), *d = fl__graph_find(f.g, "d");
    fl_node *dep = fl__graph_find(f.g, "dep"), *xn = fl__graph_find(f.g, "x");
    /* Noting d again and again adds entries (stale duplicates the
     * replacements skip) past the first segment of entries, so the ones
     * below are found through later segments. */
    size_t n0 = x.n_e;
    while (x.n_e < n0 + 2 * x.seg_cap) {
        assert_int_equal(fl__edge_index_note(&x, d, &f.d), FL_OK);
    }
    assert_true(x.n_seg >= 3);
    /* A node added after the build and noted: e = Relu(a), after ^dep. */
    fl_input in = {a, 0};
    fl_node *e = fl__op_add_op(f.g, "e", "Relu", 1, &in, 1, &f.d);
    assert_non_null(e);
    assert_int_equal(fl__node_add_ctrl(f.g, e, dep), FL_OK);
    assert_int_equal(fl__edge_index_note(&x, e, &f.d), FL_OK);
    /* a is read by b, by d twice and by e: 4 inputs move to c (which
     * nothing read). */
    assert_int_equal(fl__edge_index_replace_uses(&x, a, 0, c, 0, &f.d), 4);
    assert_ptr_equal(b->inputs[0].node, c);
    assert_ptr_equal(d->inputs[0].node, c);
    assert_ptr_equal(d->inputs[1].node, c);
    assert_ptr_equal(e->inputs[0].node, c);
    /* The stale entries of a find nothing more. */
    assert_int_equal(fl__edge_index_replace_uses(&x, a, 0, b, 0, &f.d), 0);
    /* The moved readers are c's now: back to a through the index. */
    assert_int_equal(fl__edge_index_replace_uses(&x, c, 0, a, 0, &f.d), 4);
    assert_ptr_equal(b->inputs[0].node, a);
    assert_ptr_equal(e->inputs[0].node, a);
    assert_ptr_equal(a->inputs[0].node, xn);
    /* Control edges: dep's go to b (c and e); then b's to NULL (dropped). */
    assert_int_equal(fl__edge_index_replace_ctrl_uses(&x, dep, b, &f.d), 2);
    assert_ptr_equal(c->ctrl[0], b);
    assert_ptr_equal(e->ctrl[0], b);
    assert_int_equal(fl__edge_index_replace_ctrl_uses(&x, b, NULL, &f.d), 2);
    assert_int_equal(c->n_ctrl, 0);
    assert_int_equal(e->n_ctrl, 0);
    /* The whole-graph walk agrees that nothing reads dep or c now. */
    assert_int_equal(fl__graph_replace_ctrl_uses(f.g, dep, NULL), 0);
    assert_int_equal(fl__graph_replace_uses(f.g, c, 0, a, 0), 0);
    /* Freeing gives its memory back (the node e's stays in the arena). */
    size_t with_e = f.g->arena->reserved;
    fl__edge_index_free(&x);
    assert_true(f.g->arena->reserved < with_e);
    assert_null(x.head);
    assert_null(x.seg);
    assert_int_equal(x.n_e, 0);
    assert_int_equal(x.n_seg, 0);
    fl__edge_index_free(&x); /* an emptied index: nothing */
    teardown_f(&f);
}

/* A deferred index holds no memory until its first use; then it finds what
 * a built one finds, also a node added before that use (e: noted by the
 * build, and once more by the caller, a duplicate the replacements skip). */
static void test_edge_index_deferred(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_edge_index x;
    size_t reserved0 = f.g->arena->reserved;
    fl__edge_index_defer(f.g, &x);
    assert_null(x.head);
    assert_int_equal(x.cap_head, 0);
    assert_int_equal(f.g->arena->reserved, reserved0);
    fl__edge_index_free(&x); /* never used: nothing to give back */
    assert_int_equal(f.g->arena->reserved, reserved0);
    fl__edge_index_defer(f.g, &x);
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    fl_node *c = fl__graph_find(f.g, "c"), *d = fl__graph_find(f.g, "d");
    fl_node *dep = fl__graph_find(f.g, "dep");
    fl_input in = {a, 0};
    fl_node *e = fl__op_add_op(f.g, "e", "Relu", 1, &in, 1, &f.d);
    assert_non_null(e);
    assert_int_equal(fl__edge_index_note(&x, e, &f.d), FL_OK); /* the build */
    assert_non_null(x.head);
    assert_true(f.g->arena->reserved > reserved0);
    assert_int_equal(fl__edge_index_note(&x, e, &f.d), FL_OK);
    /* a is read by b, by d twice and by e: 4 inputs move to c */
    assert_int_equal(fl__edge_index_replace_uses(&x, a, 0, c, 0, &f.d), 4);
    assert_ptr_equal(b->inputs[0].node, c);
    assert_ptr_equal(d->inputs[0].node, c);
    assert_ptr_equal(d->inputs[1].node, c);
    assert_ptr_equal(e->inputs[0].node, c);
    assert_int_equal(fl__graph_replace_uses(f.g, a, 0, c, 0), 0);
    fl__edge_index_free(&x);
    /* deferred again, first used by a control replacement: dep's one
     * reader (c) moves to b */
    fl__edge_index_defer(f.g, &x);
    assert_int_equal(fl__edge_index_replace_ctrl_uses(&x, dep, b, &f.d), 1);
    assert_ptr_equal(c->ctrl[0], b);
    assert_int_equal(fl__graph_replace_ctrl_uses(f.g, dep, NULL), 0);
    const uint32_t *head = x.head;
    assert_int_equal(fl__edge_index_need(&x, &f.d), FL_OK); /* built already: kept */
    assert_ptr_equal(x.head, head);
    size_t with_index = f.g->arena->reserved;
    fl__edge_index_free(&x);
    assert_true(f.g->arena->reserved < with_index);
    teardown_f(&f);
}

/* a, b, c and d carry the same attr bytes (T: float): the GraphDef reader
 * gives them one attr array, and an edit of one node's attrs copies it
 * first, so the others keep theirs. */
static void test_shared_attrs_copied_on_write(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    fl_node *c = fl__graph_find(f.g, "c"), *d = fl__graph_find(f.g, "d");
    assert_ptr_equal(a->attrs, b->attrs);
    assert_ptr_equal(a->attrs, c->attrs);
    assert_ptr_equal(a->attrs, d->attrs);
    fl_attr x = fl__attr_make_int(f.g, "x", 5);
    assert_int_equal(fl__node_set_attr(f.g, a, &x), FL_OK);
    fl_attr t = fl__attr_make_type(f.g, "T", 3);
    assert_int_equal(fl__node_set_attr(f.g, c, &t), FL_OK);
    assert_int_equal(fl__node_del_attr(f.g, d, "T"), FL_OK);
    assert_int_equal(a->n_attrs, 2);
    assert_int_equal(fl__node_attr(a, "x")->v.i, 5);
    assert_int_equal(fl__node_attr(c, "T")->v.type, 3);
    assert_int_equal(d->n_attrs, 0);
    assert_int_equal(b->n_attrs, 1);
    assert_string_equal(b->attrs[0].name, "T");
    assert_int_equal(b->attrs[0].v.type, 1);
    assert_int_equal(fl__node_attr(a, "T")->v.type, 1);
    teardown_f(&f);
}

/* fl__graph_dims: equal dims give one array, other dims another; dims with
 * an unknown one are not shared (NULL). */
static void test_shared_dims(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_sym n;
    assert_int_equal(fl__sym_var(f.g->syms, "n", &n), FL_OK);
    fl_sym d1[3] = {fl_sym_const(1), n, fl_sym_const(16)};
    fl_sym d2[3] = {fl_sym_const(1), n, fl_sym_const(16)};
    fl_sym d3[3] = {fl_sym_const(1), n, fl_sym_const(17)};
    fl_sym *p1 = fl__graph_dims(f.g, 3, d1), *p2 = fl__graph_dims(f.g, 3, d2);
    assert_non_null(p1);
    assert_ptr_equal(p1, p2);
    assert_ptr_not_equal(p1, d1);
    assert_true(fl__sym_eq(p1[1], n));
    assert_int_equal(p1[2].k, 16);
    fl_sym *p3 = fl__graph_dims(f.g, 3, d3);
    assert_non_null(p3);
    assert_ptr_not_equal(p3, p1);
    assert_int_equal(p3[2].k, 17);
    /* The same dims as a shorter shape are another shape. */
    fl_sym *p4 = fl__graph_dims(f.g, 2, d1);
    assert_non_null(p4);
    assert_ptr_not_equal(p4, p1);
    assert_non_null(fl__graph_dims(f.g, 0, NULL));
    d2[0] = fl_sym_unknown();
    assert_null(fl__graph_dims(f.g, 3, d2));
    assert_false(f.arena.failed);
    teardown_f(&f);
}

/* fl__graph_strndup: copies packed one after the other, each with its NUL;
 * a long string is a copy of its own. */
static void test_packed_strings(void **state) {
    (void)state;
    fixture f;
    build(&f);
    char *a = fl__graph_strndup(f.g, "n12345:0", 6);
    char *b = fl__graph_strndup(f.g, "w", 1);
    assert_string_equal(a, "n12345");
    assert_string_equal(b, "w");
    assert_ptr_equal(b, a + 7);
    char big[5000];
    memset(big, 'x', sizeof big);
    char *c = fl__graph_strndup(f.g, big, sizeof big);
    assert_non_null(c);
    assert_int_equal(strlen(c), sizeof big);
    assert_int_equal(memcmp(c, big, sizeof big), 0);
    char *d = fl__graph_strndup(f.g, "", 0);
    assert_string_equal(d, "");
    assert_ptr_equal(d, b + 2);
    assert_false(f.arena.failed);
    teardown_f(&f);
}

/* A node keeps each count in one word: known integers of 63 bits inline, an
 * expression or an unknown count by its address, an integer beyond 63 bits
 * boxed in the arena. Every kind reads back as it was written. */
static void test_node_cost_words(void **state) {
    (void)state;
    fixture f;
    build(&f);
    fl_node *a = fl__graph_find(f.g, "a"), *b = fl__graph_find(f.g, "b");
    fl_cost z = fl__node_cost(a); /* a fresh node: all known 0, no flag */
    assert_true(fl_sym_is_known(z.flops) && z.flops.k == 0);
    assert_true(fl_sym_is_known(z.bytes_written) && z.bytes_written.k == 0);
    assert_false(z.has_rule || z.tfprof_rule || z.incomplete || z.trips_unknown || z.per_load);
    fl_sym n;
    assert_int_equal(fl__sym_var(f.g->syms, "N", &n), FL_OK);
    const int64_t lim = (int64_t)1 << 62;
    fl_cost k = {.flops = fl_sym_const(INT64_MAX),
                 .tfprof_flops = fl_sym_const(INT64_MIN),
                 .macs = fl_sym_const(lim - 1),
                 .int_ops = fl_sym_const(-lim),
                 .bytes_read = n,
                 .bytes_written = fl_sym_unknown(),
                 .has_rule = true,
                 .per_load = true};
    assert_int_equal(fl__node_set_cost(f.g, a, &k), FL_OK);
    fl_cost r = fl__node_cost(a);
    assert_true(fl_sym_is_known(r.flops) && r.flops.k == INT64_MAX);
    assert_true(fl_sym_is_known(r.tfprof_flops) && r.tfprof_flops.k == INT64_MIN);
    assert_true(fl_sym_is_known(r.macs) && r.macs.k == lim - 1);
    assert_true(fl_sym_is_known(r.int_ops) && r.int_ops.k == -lim);
    assert_true(fl__sym_eq(r.bytes_read, n));
    assert_true(fl_sym_is_unknown(r.bytes_written));
    assert_true(r.has_rule && r.per_load);
    assert_false(r.tfprof_rule || r.incomplete || r.trips_unknown);
    assert_true(fl__node_cost_per_load(a));
    assert_false(fl__node_cost_incomplete(a));
    /* the limits of the inline form, both sides */
    k = (fl_cost){.flops = fl_sym_const(lim),
                  .macs = fl_sym_const(-lim - 1),
                  .int_ops = fl_sym_const(-1),
                  .incomplete = true,
                  .trips_unknown = true};
    assert_int_equal(fl__node_set_cost(f.g, b, &k), FL_OK);
    r = fl__node_cost(b);
    assert_int_equal(r.flops.k, lim);
    assert_int_equal(r.macs.k, -lim - 1);
    assert_int_equal(r.int_ops.k, -1);
    assert_true(fl_sym_is_known(r.int_ops) && fl_sym_is_known(r.tfprof_flops));
    assert_true(r.incomplete && r.trips_unknown && !r.has_rule && !r.per_load);
    assert_int_equal(fl__node_count(b, FL_COUNT_MACS).k, -lim - 1);
    /* the same counts written twice compare equal unless an integer is boxed */
    fl_node_cost was = b->cost;
    assert_int_equal(fl__node_set_cost(f.g, b, &k), FL_OK); /* flops and macs boxed again */
    assert_false(fl__node_cost_same(&was, &b->cost));
    k.flops = fl_sym_const(4); /* both inline now */
    k.macs = fl_sym_const(3);
    assert_int_equal(fl__node_set_cost(f.g, b, &k), FL_OK);
    was = b->cost;
    assert_int_equal(fl__node_set_cost(f.g, b, &k), FL_OK);
    assert_true(fl__node_cost_same(&was, &b->cost));
    k.flops = fl_sym_const(5);
    assert_int_equal(fl__node_set_cost(f.g, b, &k), FL_OK);
    assert_false(fl__node_cost_same(&was, &b->cost));
    teardown_f(&f);
}

int main(void) {
    /* test_uses_kept_until_an_edit checks the self-check that finds an edit
     * behind the API: on, whether the binary runs under CTest or not. */
    setenv("FOLDLINE_VERIFY", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_attrs_copied_on_write),
        cmocka_unit_test(test_shared_dims),
        cmocka_unit_test(test_packed_strings),
        cmocka_unit_test(test_uses),
        cmocka_unit_test(test_uses_kept_until_an_edit),
        cmocka_unit_test(test_compact_again_skipped),
        cmocka_unit_test(test_bypass_and_compact),
        cmocka_unit_test(test_compact_refuses_dangling),
        cmocka_unit_test(test_control_edges),
        cmocka_unit_test(test_edge_index),
        cmocka_unit_test(test_edge_index_deferred),
        cmocka_unit_test(test_rename_and_unique_names),
        cmocka_unit_test(test_attrs),
        cmocka_unit_test(test_add_taking_name),
        cmocka_unit_test(test_compact_after_direct_rename),
        cmocka_unit_test(test_compact_index_in_place),
        cmocka_unit_test(test_compact_index_few_moved),
        cmocka_unit_test(test_init_attrs),
        cmocka_unit_test(test_node_cost_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
