/*
 * test_pass_failure.c - Grappler's failure semantics for the pass pipeline:
 * a pass that fails is rolled back and skipped, the run goes on.
 *
 * Graph snapshots (src/graph/snapshot.h): after heavy mutation, a restore
 * gives back exactly the graph that was saved (names, edges, attrs, shapes,
 * index, order, and the very same node and array pointers).
 *
 * The pipeline (src/passes/pipeline.c): failures are forced with the
 * test-only hook of pipeline.h, which runs right after a pass inside its
 * rollback scope: it rewrites the graph the way a pass does and then fails,
 * or leaves an invariant broken for the driver's checks to find. A failed
 * pass must leave the graph exactly as before it (so a run where it fails
 * equals a run where it is disabled), the analysis succeeds with one warning
 * "pass 'NAME' failed and was skipped: ...", and its ledger record shows no
 * changes. FL_ENOMEM and FL_ECANCELED (fl_options.should_stop) still fail.
 */
#include "graph/mutate.h"
#include "graph/snapshot.h"
#include "import/import.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"
#include "util/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Fixture                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct fixture {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_options opt;
    fl_cost_totals totals;
} fixture;

/* Imports, sorts, infers and costs the graph, as fl_analyze does. */
static void setup_f(fixture *f) {
    tg_graph *t = tg_every_pass_graph();
    size_t len;
    uint8_t *buf = tg_pack(t, &len);
    tg_free(t);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    f->c = (fl_ctx){f->g, f->g->syms, &f->arena, &f->d, 1 << 20};
    fl_options_init(&f->opt);
    fl_import_opts io = {1000, 1 << 20, NULL};
    const uint8_t *own = tg_keep(&f->arena, buf, len);
    assert_int_equal(fl__import_graphdef(f->g, own, len, &io, &f->d), FL_OK);
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
    fl_infer_result ir;
    assert_int_equal(fl__infer_shapes(&f->c, &f->opt, &ir), FL_OK);
    assert_int_equal(fl__cost_graph(&f->c, &f->totals), FL_OK);
}

static void teardown_f(fixture *f) {
    fl__arena_free(&f->arena);
}

/* ------------------------------------------------------------------------- */
/* A complete textual fingerprint of the IR                                   */
/* ------------------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
}

static void sb_sym(sbuf *b, fl_sym s) {
    char tmp[256];
    fl__sym_format(s, tmp, sizeof tmp);
    sb_printf(b, "%s", tmp);
}

static void sb_attr(sbuf *b, const fl_attr *a) {
    sb_printf(b, "%s:%d", a->name, (int)a->kind);
    switch (a->kind) {
    case FL_ATTR_I:
        sb_printf(b, "=%lld", (long long)a->v.i);
        break;
    case FL_ATTR_TYPE:
        sb_printf(b, "=%d", a->v.type);
        break;
    case FL_ATTR_B:
        sb_printf(b, "=%d", (int)a->v.b);
        break;
    case FL_ATTR_F:
        sb_printf(b, "=%g", (double)a->v.f);
        break;
    case FL_ATTR_S:
        sb_printf(b, "=%s", a->v.s.p);
        break;
    case FL_ATTR_TENSOR:
        sb_printf(b, "=tensor@%p", (const void *)a->v.tensor);
        break;
    case FL_ATTR_LIST:
        sb_printf(b, "=list(%d,%zu)", (int)a->list_kind, a->n);
        break;
    default:
        break;
    }
}

/* Everything a pass may touch, with the pointers that must survive a
 * restore. `flag_mask` selects the node flags shown. */
static char *fingerprint(const fl_graph *g, uint32_t flag_mask) {
    sbuf b = {NULL, 0, 0};
    sb_printf(&b, "nodes=%zu cap=%zu index=%zu funcs=%zu order=%s\n", g->n_nodes, g->cap_nodes,
              g->index_size, g->n_funcs, g->order ? "set" : "none");
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        sb_printf(&b, "%u %s@%p %s flags=%x ctrl_consumers=%u (", n->id, n->name, (const void *)n,
                  n->op, n->flags & flag_mask, n->n_ctrl_consumers);
        for (int k = 0; k < n->n_inputs; k++) {
            sb_printf(&b, "%s:%d,", n->inputs[k].node->name, n->inputs[k].port);
        }
        for (int k = 0; k < n->n_ctrl; k++) {
            sb_printf(&b, "^%s,", n->ctrl[k]->name);
        }
        sb_printf(&b, ") {");
        for (int k = 0; k < n->n_attrs; k++) {
            sb_attr(&b, &n->attrs[k]);
            sb_printf(&b, ";");
        }
        sb_printf(&b, "} ->");
        for (int k = 0; k < n->n_outputs; k++) {
            const fl_tensor *t = &n->outputs[k];
            sb_printf(&b, " %d[", (int)t->dtype);
            for (int j = 0; j < t->shape.rank; j++) {
                sb_sym(&b, t->shape.dims[j]);
                sb_printf(&b, j + 1 < t->shape.rank ? "," : "");
            }
            sb_printf(&b, "]r%d v=%p uses=%u", t->shape.rank, (const void *)t->value,
                      t->n_consumers);
        }
        sb_printf(&b, " flops=");
        sb_sym(&b, fl__node_cost(n).flops);
        sb_printf(&b, " bytes=");
        sb_sym(&b, fl__node_cost(n).bytes_read);
        sb_printf(&b, "\n");
    }
    if (g->order) {
        sb_printf(&b, "order:");
        for (size_t i = 0; i < g->n_nodes; i++) {
            sb_printf(&b, " %s", g->order[i]->name);
        }
        sb_printf(&b, "\n");
    }
    return b.p;
}

/* Every node is found under its name, and nothing else is. */
static void expect_index(const fl_graph *g) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        assert_ptr_equal(fl__graph_find(g, g->nodes[i]->name), g->nodes[i]);
    }
    size_t live = 0;
    for (size_t i = 0; i < g->index_size; i++) {
        live += g->index[i].node != NULL;
    }
    assert_int_equal(live, g->n_nodes);
}

/* ------------------------------------------------------------------------- */
/* Snapshots                                                                  */
/* ------------------------------------------------------------------------- */

/* Rewrites f's graph in every way the mutation API allows: rename, new node,
 * redirected uses, control edges, attrs replaced and deleted, a shape and a
 * dtype changed in place, a node removed and compacted away, a new order. */
static void mutate_everything(fixture *f) {
    fl_graph *g = f->g;
    fl_node *x = fl__graph_find(g, "x"), *m = fl__graph_find(g, "m"), *a = fl__graph_find(g, "a");
    fl_node *y = fl__graph_find(g, "y"), *dep = fl__graph_find(g, "dep"),
            *i = fl__graph_find(g, "i");
    assert_int_equal(fl__graph_rename(g, m, "m_renamed", &f->d), FL_OK);
    fl_input in = {x, 0};
    fl_node *r = fl__op_add_op(g, fl__graph_unique_name(g, "fresh"), "Relu", 1, &in, 1, &f->d);
    assert_non_null(r);
    assert_true(fl__graph_replace_uses(g, i, 0, r, 0) > 0);
    assert_int_equal(fl__node_add_ctrl(g, a, r), FL_OK);
    fl_attr t = fl__attr_make_type(g, "T", 3);
    assert_int_equal(fl__node_set_attr(g, y, &t), FL_OK);
    assert_int_equal(fl__node_del_attr(g, a, "T"), FL_OK);
    fl_attr extra = fl__attr_make_int(g, "extra", 42);
    assert_int_equal(fl__node_set_attr(g, a, &extra), FL_OK);
    y->outputs[0].shape.dims[1] = fl_sym_const(99);
    y->outputs[0].dtype = FL_DT_INVALID;
    fl_cost yk = fl__node_cost(y);
    yk.flops = fl_sym_const(12345);
    assert_int_equal(fl__node_set_cost(g, y, &yk), FL_OK);
    assert_true(fl__graph_replace_ctrl_uses(g, dep, NULL) > 0);
    fl__graph_remove_node(dep);
    fl__graph_remove_node(i);
    assert_int_equal(fl__graph_compact(g, &f->d), FL_OK);
    for (int k = 0; k < 40; k++) { /* grows the node array and the index */
        char name[32];
        snprintf(name, sizeof name, "grow%d", k);
        assert_non_null(fl__op_add_op(g, name, "Relu", 1, &in, 1, &f->d));
    }
    assert_int_equal(fl__graph_toposort(g, &f->d), FL_OK);
    assert_null(fl__graph_find(g, "dep"));
    assert_null(fl__graph_find(g, "m"));
}

/* Restores s (a snapshot or journal of f's graph after mutate_everything)
 * and checks that the graph is `before` again, a working graph whose index
 * finds every node and no name of mutate_everything's. */
static void expect_restored(fixture *f, fl_graph_snapshot *s, const char *before) {
    fl__graph_snapshot_restore(s, f->g);
    char *after = fingerprint(f->g, ~0u);
    assert_string_equal(before, after);
    free(after);
    expect_index(f->g);
    assert_null(fl__graph_find(f->g, "fresh"));
    assert_null(fl__graph_find(f->g, "m_renamed"));
    assert_non_null(fl__graph_find(f->g, "dep"));
    assert_int_equal(fl__graph_verify(f->g, &f->d), FL_OK);
}

static void test_snapshot_restore_exact(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    char *before = fingerprint(f.g, ~0u);
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_snapshot_take(&s, f.g, 0, &f.d), FL_OK);
    assert_true(s.bytes > 0);

    mutate_everything(&f);
    char *mutated = fingerprint(f.g, ~0u);
    assert_string_not_equal(before, mutated);
    expect_restored(&f, &s, before);
    assert_int_equal(fl__attr_need_type(fl__graph_find(f.g, "y"), "T", &(int){0}, &f.d), FL_OK);

    /* The snapshot stays valid: mutate and restore again. */
    mutate_everything(&f);
    expect_restored(&f, &s, before);

    /* The restored graph is a working graph: it sorts, infers and costs to
     * the same totals. */
    assert_int_equal(fl__graph_toposort(f.g, &f.d), FL_OK);
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    assert_int_equal(f.d.status, FL_OK);
    free(before);
    free(mutated);
    fl__graph_snapshot_free(&s);
    teardown_f(&f);
}

/* A second take reuses the buffers and replaces the first snapshot. */
static void test_snapshot_retake(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_snapshot_take(&s, f.g, 0, &f.d), FL_OK);
    mutate_everything(&f);
    char *mid = fingerprint(f.g, ~0u);
    assert_int_equal(fl__graph_snapshot_take(&s, f.g, 0, &f.d), FL_OK);
    fl_node *y = fl__graph_find(f.g, "y");
    assert_int_equal(fl__graph_rename(f.g, y, "y2", &f.d), FL_OK);
    fl__graph_remove_node(fl__graph_find(f.g, "grow3"));
    assert_int_equal(fl__graph_compact(f.g, &f.d), FL_OK);
    fl__graph_snapshot_restore(&s, f.g);
    char *back = fingerprint(f.g, ~0u);
    assert_string_equal(mid, back);
    expect_index(f.g);
    free(mid);
    free(back);
    fl__graph_snapshot_free(&s);
    teardown_f(&f);
}

/* Attr arrays are saved by pointer, so no edit may write one a snapshot
 * holds: fl__node_set_attr and fl__node_del_attr copy it first, and write in
 * place only into the array they made since the last take (a fused node gets
 * its attrs one at a time without a copy each). */
static int attr_t(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "T");
    return a && a->kind == FL_ATTR_TYPE ? a->v.type : -1;
}

static void test_snapshot_attr_arrays_not_written(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph *g = f.g;
    fl_node *y = fl__graph_find(g, "y");
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_snapshot_take(&s, g, 0, &f.d), FL_OK);
    fl_attr *p = y->attrs;
    int n0 = y->n_attrs;
    assert_true(n0 >= 1);
    fl_attr saved[8];
    assert_true(n0 <= 8);
    memcpy(saved, p, (size_t)n0 * sizeof(fl_attr));
    int t0 = attr_t(y);
    assert_int_equal(t0, 1);

    fl_attr t = fl__attr_make_type(g, "T", 3); /* replace: a copy */
    assert_int_equal(fl__node_set_attr(g, y, &t), FL_OK);
    fl_attr *q = y->attrs;
    assert_ptr_not_equal(q, p);
    assert_memory_equal(p, saved, (size_t)n0 * sizeof(fl_attr));
    assert_int_equal(attr_t(y), 3);
    fl_attr e = fl__attr_make_int(g, "extra", 7); /* the copy is edited in place */
    assert_int_equal(fl__node_set_attr(g, y, &e), FL_OK);
    assert_int_equal(fl__node_del_attr(g, y, "T"), FL_OK);
    assert_ptr_equal(y->attrs, q);
    assert_int_equal(y->n_attrs, n0);
    assert_int_equal(attr_t(y), -1);

    /* A second take: now q is held, and the next edit copies it. */
    fl_graph_snapshot s2;
    fl__graph_snapshot_init(&s2);
    assert_int_equal(fl__graph_snapshot_take(&s2, g, 0, &f.d), FL_OK);
    fl_attr q0 = q[0];
    assert_int_equal(fl__node_del_attr(g, y, q0.name), FL_OK);
    assert_ptr_not_equal(y->attrs, q);
    assert_memory_equal(&q[0], &q0, sizeof(fl_attr));
    fl__graph_snapshot_restore(&s2, g);
    assert_ptr_equal(y->attrs, q);
    assert_int_equal(y->n_attrs, n0);

    fl__graph_snapshot_restore(&s, g);
    assert_ptr_equal(y->attrs, p);
    assert_int_equal(y->n_attrs, n0);
    assert_memory_equal(p, saved, (size_t)n0 * sizeof(fl_attr));
    assert_int_equal(attr_t(y), t0);
    assert_int_equal(fl__graph_verify(g, &f.d), FL_OK);
    fl__graph_snapshot_free(&s);
    fl__graph_snapshot_free(&s2);
    teardown_f(&f);
}

static void test_snapshot_byte_limit(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_snapshot_take(&s, f.g, 64, &f.d), FL_ENOMEM);
    assert_false(s.taken);
    fl__graph_snapshot_free(&s);
    teardown_f(&f);
}

/* ------------------------------------------------------------------------- */
/* Journals                                                                   */
/* ------------------------------------------------------------------------- */

/* A journal saves only the nodes an edit marks (mutate_everything marks m,
 * a and y, and rewrites the node array in its compaction), and its restore
 * gives back exactly the graph it was opened on, as a full snapshot's does:
 * names, edges, attrs, shapes, costs, flags, consumer counts, ids, index,
 * order and the very same pointers. Then it is empty, and serves again. */
static void test_journal_restore_exact(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    char *before = fingerprint(f.g, ~0u);
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_journal_open(&s, f.g, 0, NULL, &f.d), FL_OK);
    assert_ptr_equal(f.g->journal.s, &s);
    assert_int_equal(s.n_nodes, 0);
    f.g->birth = s.stamp; /* the pass's stamp, as the driver sets it: added nodes carry it */

    mutate_everything(&f);
    assert_int_equal(s.n_nodes, 3);
    const char *saved[3] = {s.node_ptrs[0]->name, s.node_ptrs[1]->name, s.node_ptrs[2]->name};
    assert_string_equal(saved[0], "m_renamed"); /* marked by the rename, saved as "m" */
    assert_string_equal(s.nodes[0].name, "m");
    assert_string_equal(saved[1], "a");
    assert_string_equal(saved[2], "y");
    assert_true(s.list_saved);
    assert_false(s.oom);
    char *mutated = fingerprint(f.g, ~0u);
    assert_string_not_equal(before, mutated);
    expect_restored(&f, &s, before);
    assert_int_equal(s.n_nodes, 0);
    assert_ptr_equal(f.g->journal.s, &s);

    /* Still open: mutate and restore again. */
    f.g->birth = s.stamp;
    mutate_everything(&f);
    assert_int_equal(s.n_nodes, 3);
    expect_restored(&f, &s, before);
    assert_int_equal(fl__graph_toposort(f.g, &f.d), FL_OK);
    assert_int_equal(fl__graph_verify(f.g, &f.d), FL_OK);
    assert_int_equal(f.d.status, FL_OK);

    /* Freeing it closes it: edits are not saved any more. */
    fl__graph_snapshot_free(&s);
    assert_null(f.g->journal.s);
    fl_attr t = fl__attr_make_type(f.g, "T", 3);
    assert_int_equal(fl__node_set_attr(f.g, fl__graph_find(f.g, "y"), &t), FL_OK);
    assert_int_equal(s.n_nodes, 0);
    free(before);
    free(mutated);
    teardown_f(&f);
}

/* The journal's restore equals the full snapshot's, checked field by field
 * by fl__graph_snapshot_mismatch; a node written before its mark is found
 * (the journal would save it as already changed), and so is a difference
 * the mismatch check is there for. */
static void test_journal_matches_full_copy(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph_snapshot full, s;
    fl__graph_snapshot_init(&full);
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_snapshot_take(&full, f.g, 0, &f.d), FL_OK);
    assert_int_equal(fl__graph_journal_open(&s, f.g, 0, &full, &f.d), FL_OK);
    const fl_node *at = NULL;
    assert_null(fl__graph_snapshot_mismatch(&full, f.g, &at));
    f.g->birth = s.stamp;
    mutate_everything(&f);
    assert_null(s.early); /* every write came after the node's mark */
    assert_non_null(fl__graph_snapshot_mismatch(&full, f.g, &at));
    fl__graph_snapshot_restore(&s, f.g);
    assert_null(fl__graph_snapshot_mismatch(&full, f.g, &at));
    assert_null(at);

    /* z's dtype written, then z marked: saved too late. */
    f.g->birth = s.stamp;
    fl_node *z = fl__graph_find(f.g, "z");
    z->outputs[0].dtype = FL_DT_INVALID;
    fl__node_touch(f.g, z);
    assert_ptr_equal(s.early, z);
    fl__graph_snapshot_restore(&s, f.g);
    assert_null(s.early);
    assert_string_equal(fl__graph_snapshot_mismatch(&full, f.g, &at), "the node's outputs");
    assert_ptr_equal(at, z);
    fl__graph_snapshot_restore(&full, f.g);
    assert_null(fl__graph_snapshot_mismatch(&full, f.g, &at));
    assert_int_equal(z->outputs[0].dtype, FL_DT_FLOAT);
    fl__graph_snapshot_free(&s);
    fl__graph_snapshot_free(&full);
    teardown_f(&f);
}

/* The comparisons the incremental re-inference makes against the state
 * before a pass work on a journal for the nodes it saved: a marked node
 * with new attrs changed, one saved and left alone did not; a node the
 * journal does not hold counts as new (changed). */
static void test_journal_comparisons(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph *g = f.g;
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_journal_open(&s, g, 0, NULL, &f.d), FL_OK);
    fl_node *y = fl__graph_find(g, "y"), *a = fl__graph_find(g, "a");
    fl_node *z = fl__graph_find(g, "z");
    g->birth = s.stamp; /* the pass's stamp, as the driver sets it */
    fl_attr t = fl__attr_make_type(g, "T", 3);
    assert_int_equal(fl__node_set_attr(g, y, &t), FL_OK);
    fl__graph_journal_save(g, a);
    assert_int_equal(s.n_nodes, 2);
    assert_true(fl__graph_snapshot_marked(&s, y));
    assert_false(fl__graph_snapshot_marked(&s, a));
    bool outs = true;
    assert_true(fl__graph_snapshot_changed(&s, y, &outs));
    assert_false(outs);
    assert_false(fl__graph_snapshot_changed(&s, a, &outs));
    assert_false(outs);
    assert_false(fl__graph_snapshot_outputs_differ(&s, a));
    assert_true(fl__graph_snapshot_changed(&s, z, &outs));
    assert_true(outs);
    /* y's output shape set anew (a new dims array, as inference does). */
    fl_sym *dims = fl__arena_calloc(&f.arena, 2, sizeof(fl_sym));
    assert_non_null(dims);
    dims[0] = y->outputs[0].shape.dims[0];
    dims[1] = fl_sym_const(17);
    y->outputs[0].shape.dims = dims;
    assert_true(fl__graph_snapshot_outputs_differ(&s, y));
    /* Saving again keeps the first state. */
    fl__node_touch(g, y);
    fl__graph_journal_save(g, y);
    assert_int_equal(s.n_nodes, 2);
    fl__graph_snapshot_restore(&s, g);
    assert_int_equal(attr_t(y), 1);
    assert_true(fl_sym_is_known(y->outputs[0].shape.dims[1]));
    assert_int_equal(y->outputs[0].shape.dims[1].k, 16);
    fl__graph_snapshot_free(&s);
    teardown_f(&f);
}

/* A journal whose saves would pass its byte limit says so (oom) and saves
 * nothing more: the driver then fails the run with FL_ENOMEM. */
static void test_journal_byte_limit(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_graph_snapshot s;
    fl__graph_snapshot_init(&s);
    assert_int_equal(fl__graph_journal_open(&s, f.g, 64, NULL, &f.d), FL_OK);
    fl_attr t = fl__attr_make_type(f.g, "T", 3);
    assert_int_equal(fl__node_set_attr(f.g, fl__graph_find(f.g, "y"), &t), FL_OK);
    assert_true(s.oom);
    assert_int_equal(s.n_nodes, 0);
    assert_true(s.bytes <= 64);
    fl__graph_snapshot_free(&s);
    teardown_f(&f);
}

/* ------------------------------------------------------------------------- */
/* Pipeline                                                                   */
/* ------------------------------------------------------------------------- */

typedef enum hook_mode {
    HOOK_FAIL,           /* rewrite like a pass, then fail with FL_EINTERNAL */
    HOOK_FAIL_NO_MSG,    /* return an error without failing the diag */
    HOOK_BREAK_EDGES,    /* remove a consumed node: compaction fails */
    HOOK_BREAK_OUTPUTS,  /* remove a graph output: the outputs check fails */
    HOOK_BREAK_DTYPE,    /* change a graph output's dtype: the outputs check fails */
    HOOK_OOM,            /* run out of memory */
    HOOK_CANCEL,         /* ask to stop: the stop callback answers yes */
    HOOK_STALE_INDEX,    /* drop a node from the name index: only the verifier sees it */
    HOOK_HIDDEN_REMOVAL, /* set a node's removal flag without fl__graph_remove_node */
    HOOK_UNMARKED_INPUT, /* write a data input in place, not through graph/mutate.h */
    HOOK_UNMARKED_CTRL,  /* drop a control input in place, not through graph/mutate.h */
    HOOK_MARKED_INPUT,   /* the same edit as HOOK_UNMARKED_INPUT through the API */
} hook_mode;

typedef struct hook_state {
    const char *pass; /* the pass to fail */
    hook_mode mode;
    int calls;
    bool stop; /* read by stop_cb */
} hook_state;

static bool stop_cb(void *arg) {
    return ((hook_state *)arg)->stop;
}

static fl_status hook(fl_pass_ctx *pc, void *arg) {
    hook_state *h = arg;
    if (strcmp(pc->pass, h->pass) != 0) {
        return FL_OK;
    }
    h->calls++;
    fl_graph *g = pc->c->g;
    if (h->mode == HOOK_STALE_INDEX) {
        /* No node changes (nothing to mark, nothing brought up to date
         * after the pass): only the index is stale. A marked rename is no
         * longer stale after the pass: the compaction after it indexes the
         * names again. */
        fl_node *i = fl__graph_find(g, "x");
        assert_non_null(i);
        for (size_t k = 0; k < g->index_size; k++) {
            if (g->index[k].node == i) {
                g->index[k].node = NULL;
            }
        }
        return FL_OK;
    }
    if (h->mode == HOOK_HIDDEN_REMOVAL) {
        fl_node *z = fl__graph_find(g, "z");
        assert_non_null(z);
        z->flags |= FL_NODE_REMOVED;
        return FL_OK;
    }
    if (h->mode >= HOOK_UNMARKED_INPUT) {
        /* z reads a new Identity of what it read (same dtype and shape), or
         * y's control inputs become one on the placeholder x. */
        fl_node *z = fl__graph_find(g, "z"), *y = fl__graph_find(g, "y");
        assert_true(z && y && z->n_inputs == 1);
        if (h->mode == HOOK_UNMARKED_CTRL) {
            fl_node **ctrl = fl__arena_calloc(pc->c->a, 1, sizeof(*ctrl));
            assert_non_null(ctrl);
            ctrl[0] = fl__graph_find(g, "x");
            y->ctrl = ctrl;
            y->n_ctrl = 1;
            return FL_OK;
        }
        fl_node *id = fl__op_add_op(g, fl__graph_unique_name(g, "z_in"), "Identity", 1,
                                    &z->inputs[0], 1, pc->c->d);
        assert_non_null(id);
        fl_attr t = fl__attr_make_type(g, "T", 1);
        assert_int_equal(fl__node_set_attr(g, id, &t), FL_OK);
        if (h->mode == HOOK_UNMARKED_INPUT) {
            z->inputs[0] = (fl_input){id, 0};
        } else {
            fl__node_set_input(g, z, 0, (fl_input){id, 0});
            assert_int_equal(z->edited, g->birth);
            fl__ledger_note(pc, "Rewire", z, "reads a new Identity");
        }
        return FL_OK;
    }
    /* Rewrite first, as a pass that fails half-way would have. */
    fl_node *y = fl__graph_find(g, "y");
    fl_node *x = fl__graph_find(g, "x");
    assert_non_null(y);
    fl_input in = {x, 0};
    fl_node *r =
        fl__op_add_op(g, fl__graph_unique_name(g, "half_done"), "Relu", 1, &in, 1, pc->c->d);
    assert_non_null(r);
    assert_int_equal(fl__node_set_inputs(g, y, 1, &in), FL_OK);
    if (h->mode != HOOK_BREAK_OUTPUTS) {
        fl_attr t = fl__attr_make_type(g, "T", 3);
        assert_int_equal(fl__node_set_attr(g, y, &t), FL_OK);
    }
    if (y->outputs[0].shape.rank > 1) {
        /* A new shape, as fl__op_set_output gives one: a dims array may be
         * shared by outputs of equal shape, and nothing writes into one. */
        fl_shape *s = &y->outputs[0].shape;
        fl_sym *d = fl__arena_calloc(g->arena, (size_t)s->rank, sizeof(fl_sym));
        assert_non_null(d);
        memcpy(d, s->dims, (size_t)s->rank * sizeof(fl_sym));
        d[1] = fl_sym_const(7);
        s->dims = d;
    }
    fl__ledger_note(pc, "HalfDone", y, "rewired before failing");
    pc->rewritten++;
    switch (h->mode) {
    case HOOK_FAIL:
        return fl__node_fail(pc->c->d, FL_EINTERNAL, y, "forced failure in %s", pc->pass);
    case HOOK_FAIL_NO_MSG:
        return FL_EINVAL;
    case HOOK_BREAK_EDGES: {
        fl_node *victim = fl__graph_find(g, "a") ? fl__graph_find(g, "a") : fl__graph_find(g, "m");
        assert_non_null(victim);
        fl__node_set_inputs(g, y, 1, &(fl_input){victim, 0});
        fl__graph_remove_node(victim);
        return FL_OK;
    }
    case HOOK_BREAK_OUTPUTS:
        fl__graph_remove_node(fl__graph_find(g, "z"));
        return FL_OK;
    case HOOK_BREAK_DTYPE:
        return FL_OK;
    case HOOK_OOM:
        return fl__diag_oom(pc->c->d);
    case HOOK_CANCEL:
        h->stop = true;
        return fl__diag_check_stop(pc->c->d);
    case HOOK_STALE_INDEX:
    case HOOK_HIDDEN_REMOVAL:
    case HOOK_UNMARKED_INPUT:
    case HOOK_UNMARKED_CTRL:
    case HOOK_MARKED_INPUT:
        break;
    }
    return FL_OK;
}

typedef struct run_result {
    fl_status st;
    char *graph;    /* fingerprint of the graph after the run (no pointers) */
    char *ledger;   /* "pass/iteration: removed added rewritten [rules]" per record */
    char *after;    /* after totals */
    char *failures; /* failure messages */
} run_result;

static void run_result_free(run_result *r) {
    free(r->graph);
    free(r->ledger);
    free(r->after);
    free(r->failures);
}

/* Names and edges only: comparable across two separate runs. */
static char *dump(const fl_graph *g) {
    sbuf b = {NULL, 0, 0};
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        sb_printf(&b, "%s=%s(", n->name, n->op);
        for (int k = 0; k < n->n_inputs; k++) {
            sb_printf(&b, "%s:%d,", n->inputs[k].node->name, n->inputs[k].port);
        }
        for (int k = 0; k < n->n_ctrl; k++) {
            sb_printf(&b, "^%s,", n->ctrl[k]->name);
        }
        sb_printf(&b, ")");
        for (int k = 0; k < n->n_outputs; k++) {
            sb_printf(&b, " %d[", (int)n->outputs[k].dtype);
            for (int j = 0; j < n->outputs[k].shape.rank; j++) {
                sb_sym(&b, n->outputs[k].shape.dims[j]);
                sb_printf(&b, ",");
            }
            sb_printf(&b, "]");
        }
        sb_printf(&b, "; ");
    }
    return b.p;
}

static void sb_totals(sbuf *b, const fl_cost_totals *t) {
    sb_printf(b, "flops=");
    sb_sym(b, t->flops);
    sb_printf(b, " tfprof=");
    sb_sym(b, t->tfprof_flops);
    sb_printf(b, " read=");
    sb_sym(b, t->bytes_read);
    sb_printf(b, " written=");
    sb_sym(b, t->bytes_written);
}

/* Runs the pipeline over the fixture graph with `passes`, `disabled` and the
 * hook (NULL: off); the graph must be exactly as before every failed pass. */
static run_result run_pipeline(const char *passes, const char *disabled, int iters, hook_state *h) {
    fixture f;
    setup_f(&f);
    if (h) {
        f.d.stop = stop_cb;
        f.d.stop_arg = h;
    }
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.verify = true;
    cfg.passes = passes;
    cfg.disabled = &disabled;
    cfg.n_disabled = disabled ? 1 : 0;
    cfg.opt.iterations = iters;
    fl_pass_failures fails = {NULL, 0, 0};
    cfg.failures = &fails;
    fl_ledger led;
    fl__ledger_init(&led, &f.arena);
    fl_cost_totals after;
    fl__pipeline_set_test_hook(h ? hook : NULL, h);
    run_result r = {fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after), NULL, NULL, NULL, NULL};
    fl__pipeline_set_test_hook(NULL, NULL);
    if (r.st == FL_OK) {
        assert_int_equal(f.d.status, FL_OK);
        assert_null(f.d.msg);
        r.graph = dump(f.g);
        sbuf b = {NULL, 0, 0};
        for (size_t i = 0; i < led.n_passes; i++) {
            const fl_pass_record *p = &led.passes[i];
            sb_printf(&b, "%s/%d: -%lld +%lld ~%lld [", p->pass, p->iteration,
                      (long long)p->nodes_removed, (long long)p->nodes_added,
                      (long long)p->nodes_rewritten);
            for (size_t k = 0; k < p->n_entries; k++) {
                const fl_ledger_entry *e = fl__ledger_entry(&led, p->first_entry + k);
                sb_printf(&b, "%s(%s) ", e->rule, e->node);
            }
            sb_printf(&b, "]\n");
        }
        r.ledger = b.p;
        sbuf t = {NULL, 0, 0};
        sb_totals(&t, &after);
        r.after = t.p;
        sbuf m = {NULL, 0, 0};
        sb_printf(&m, "%s", "");
        for (size_t i = 0; i < fails.n; i++) {
            const fl_pass_failure *x = &fails.items[i];
            sb_printf(&m, "%s/%d rec=%zu st=%d: %s\n", x->pass, x->iteration, x->record,
                      (int)x->status, x->message);
            /* The failed pass's record: no changes, no ledger entries,
             * totals as before. */
            const fl_pass_record *p = &led.passes[x->record];
            assert_string_equal(p->pass, x->pass);
            assert_int_equal(p->iteration, x->iteration);
            assert_int_equal(p->nodes_removed + p->nodes_added + p->nodes_rewritten, 0);
            assert_int_equal(p->n_entries, 0);
            sbuf tb = {NULL, 0, 0}, ta = {NULL, 0, 0};
            sb_totals(&tb, &p->before);
            sb_totals(&ta, &p->after);
            assert_string_equal(tb.p, ta.p);
            free(tb.p);
            free(ta.p);
        }
        r.failures = m.p;
    }
    teardown_f(&f);
    return r;
}

/* The key property: a pass that fails is exactly a pass that did not run. */
static void expect_same_as_disabled(const char *pass, hook_mode mode, const char *needle) {
    for (int iters = 1; iters <= 2; iters++) {
        hook_state h = {pass, mode, 0, false};
        run_result failed = run_pipeline("default", NULL, iters, &h);
        assert_int_equal(failed.st, FL_OK);
        assert_int_equal(h.calls, iters);
        run_result off = run_pipeline("default", pass, iters, NULL);
        assert_int_equal(off.st, FL_OK);
        assert_string_equal(failed.graph, off.graph);
        assert_string_equal(failed.after, off.after);
        /* The ledgers agree but for the failed pass's empty records. */
        sbuf rest = {NULL, 0, 0};
        sb_printf(&rest, "%s", "");
        char head[64];
        snprintf(head, sizeof head, "%s/", pass);
        int empty = 0;
        for (const char *line = failed.ledger; *line;) {
            const char *nl = strchr(line, '\n');
            if (strncmp(line, head, strlen(head)) == 0) {
                assert_non_null(strstr(line, ": -0 +0 ~0 []"));
                empty++;
            } else {
                sb_printf(&rest, "%.*s", (int)(nl - line + 1), line);
            }
            line = nl + 1;
        }
        assert_int_equal(empty, iters);
        assert_string_equal(rest.p, off.ledger);
        free(rest.p);
        /* One failure per iteration, with the pass's message. */
        char expect_head[128];
        snprintf(expect_head, sizeof expect_head, "%s/0 ", pass);
        assert_non_null(strstr(failed.failures, expect_head));
        char msg[128];
        snprintf(msg, sizeof msg, "pass '%s' failed and was skipped: ", pass);
        assert_non_null(strstr(failed.failures, msg));
        if (!strstr(failed.failures, needle)) {
            print_message("failures: %s\n", failed.failures);
        }
        assert_non_null(strstr(failed.failures, needle));
        assert_null(strstr(failed.failures, iters == 1 ? "/1 " : "/2 "));
        run_result_free(&failed);
        run_result_free(&off);
    }
}

static void test_failed_pass_equals_disabled_pass(void **state) {
    (void)state;
    expect_same_as_disabled("arithmetic", HOOK_FAIL,
                            "node 'y' (Neg): forced failure in arithmetic");
    expect_same_as_disabled("constfold", HOOK_FAIL, "forced failure in constfold");
    expect_same_as_disabled("pruning", HOOK_FAIL, "forced failure in pruning");
    expect_same_as_disabled("dependency", HOOK_FAIL, "forced failure in dependency");
}

static void test_failure_without_message(void **state) {
    (void)state;
    expect_same_as_disabled("remap", HOOK_FAIL_NO_MSG, "invalid");
}

/* Failures the driver finds after the pass: a dangling input at compaction,
 * a removed graph output, a graph output whose dtype changed. */
static void test_broken_invariants_roll_back(void **state) {
    (void)state;
    expect_same_as_disabled("cse", HOOK_BREAK_EDGES, "removed node");
    expect_same_as_disabled("shape", HOOK_BREAK_OUTPUTS,
                            "internal error: the pass removed graph output 'z'");
    expect_same_as_disabled("arithmetic", HOOK_BREAK_DTYPE,
                            "internal error: the pass changed the dtype or shape of graph output "
                            "'y' (output 0)");
    /* The driver counts what a pass added and removed only when the pass
     * removed something through the API or the node count changed; the
     * verifier counts always and finds a removal made behind the API. */
    expect_same_as_disabled("shape", HOOK_HIDDEN_REMOVAL,
                            "internal error: the pass removed or added nodes without "
                            "fl__graph_remove_node");
}

/* An edit of an existing node's edges that bypasses graph/mutate.h leaves
 * the node unmarked: the verifier compares every node with the snapshot
 * taken before the pass and fails the pass (rolled back as if disabled).
 * The same edit through fl__node_set_input marks the node and passes. */
static void test_unmarked_edits_roll_back(void **state) {
    (void)state;
    expect_same_as_disabled("shape", HOOK_UNMARKED_INPUT,
                            "node 'z' (Relu): internal error: the pass changed the node without "
                            "marking it");
    expect_same_as_disabled("cse", HOOK_UNMARKED_CTRL,
                            "node 'y' (Neg): internal error: the pass changed the node without "
                            "marking it");
    hook_state h = {"shape", HOOK_MARKED_INPUT, 0, false};
    run_result r = run_pipeline("default", NULL, 1, &h);
    assert_int_equal(r.st, FL_OK);
    assert_int_equal(h.calls, 1);
    assert_null(strstr(r.failures, "failed and was skipped"));
    assert_non_null(strstr(r.ledger, "shape/0: -0 +1 ~0 [Rewire(z) ]"));
    run_result_free(&r);
}

/* The graph after a failed pass is exactly the graph before it, pointer for
 * pointer: nodes, arrays, shapes, values, costs, order, name index. With
 * the verifier, the journal's restore is also compared with a full copy;
 * without it, the journal alone restores. */
static void test_rollback_is_exact(void **state) {
    (void)state;
    for (int run = 0; run < 2 * (HOOK_BREAK_DTYPE + 1); run++) {
        int mode = run % (HOOK_BREAK_DTYPE + 1);
        fixture f;
        setup_f(&f);
        fl_pipeline_config cfg;
        fl__pipeline_config_init(&cfg);
        cfg.verify = run <= HOOK_BREAK_DTYPE;
        cfg.passes = "arithmetic";
        fl_ledger led;
        fl__ledger_init(&led, &f.arena);
        fl_cost_totals after;
        /* mark_outputs sets FL_NODE_PRESERVE before the first pass. */
        char *start = fingerprint(f.g, ~(uint32_t)FL_NODE_PRESERVE);
        hook_state h = {"arithmetic", (hook_mode)mode, 0, false};
        fl__pipeline_set_test_hook(hook, &h);
        assert_int_equal(fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after), FL_OK);
        fl__pipeline_set_test_hook(NULL, NULL);
        assert_int_equal(h.calls, 2);
        char *end = fingerprint(f.g, ~(uint32_t)FL_NODE_PRESERVE);
        assert_string_equal(start, end);
        expect_index(f.g);
        assert_int_equal(led.n_passes, 2);
        assert_int_equal(led.n_entries, 0);
        assert_int_equal(f.d.status, FL_OK);
        assert_null(f.d.msg);
        assert_int_equal(f.d.n_warnings, 2); /* one per iteration (no cfg.failures) */
        free(start);
        free(end);
        teardown_f(&f);
    }
}

/* ------------------------------------------------------------------------- */
/* Through fl_analyze                                                         */
/* ------------------------------------------------------------------------- */

static size_t count_warnings(const fl_report *r, const char *needle) {
    size_t k = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        k += strstr(r->warnings[i], needle) != NULL;
    }
    return k;
}

static void test_analyze_succeeds_with_warning(void **state) {
    (void)state;
    tg_graph *t = tg_every_pass_graph();
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    o.per_node = true;
    hook_state h = {"arithmetic", HOOK_FAIL, 0, false};
    fl__pipeline_set_test_hook(hook, &h);
    fl_report *r = tg_analyze(t, &o);
    fl__pipeline_set_test_hook(NULL, NULL);
    assert_int_equal(h.calls, 2);
    /* Once, although it failed in both iterations. */
    assert_int_equal(count_warnings(r, "pass 'arithmetic' failed and was skipped: node 'y' "
                                       "(Neg): forced failure in arithmetic"),
                     1);
    size_t n_arith = 0;
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        if (strcmp(p->pass, "arithmetic") == 0) {
            n_arith++;
            assert_int_equal(p->nodes_removed + p->nodes_added + p->nodes_rewritten, 0);
            assert_int_equal(p->n_entries, 0);
            assert_string_equal(p->before.flops.text, p->after.flops.text);
            /* The record itself says it failed, and why. */
            assert_non_null(p->failed);
            assert_string_equal(p->failed, "node 'y' (Neg): forced failure in arithmetic");
        } else {
            assert_null(p->failed);
        }
    }
    assert_int_equal(n_arith, 2);
    for (size_t i = 0; i < r->n_ledger; i++) {
        assert_string_not_equal(r->ledger[i].rule, "HalfDone");
    }

    /* Same result as with the pass disabled. */
    const char *off[] = {"arithmetic"};
    o.disabled_passes = off;
    o.n_disabled_passes = 1;
    fl_report *r2 = tg_analyze(t, &o);
    assert_string_equal(r->after.flops.text, r2->after.flops.text);
    assert_string_equal(r->after.bytes.text, r2->after.bytes.text);
    assert_int_equal(r->after.nodes, r2->after.nodes);
    assert_int_equal(r->n_nodes_after, r2->n_nodes_after);
    for (size_t i = 0; i < r->n_nodes_after; i++) {
        assert_string_equal(r->nodes_after[i].name, r2->nodes_after[i].name);
        assert_string_equal(r->nodes_after[i].op, r2->nodes_after[i].op);
        assert_string_equal(r->nodes_after[i].outputs[0].shape,
                            r2->nodes_after[i].outputs[0].shape);
    }
    assert_int_equal(count_warnings(r2, "failed and was skipped"), 0);
    for (size_t i = 0; i < r2->n_passes; i++) {
        assert_null(r2->passes[i].failed);
    }
    assert_int_equal(r->n_warnings, r2->n_warnings + 1);
    fl_report_free(r);
    fl_report_free(r2);
    tg_free(t);
}

static fl_status analyze_with_hook(hook_state *h, fl_report **r) {
    tg_graph *t = tg_every_pass_graph();
    size_t len;
    uint8_t *buf = tg_pack(t, &len);
    tg_free(t);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    o.should_stop = stop_cb;
    o.stop_arg = h;
    fl__pipeline_set_test_hook(hook, h);
    fl_status st = fl_analyze(buf, len, &o, r);
    fl__pipeline_set_test_hook(NULL, NULL);
    free(buf);
    return st;
}

static void test_cancel_during_pass_fails(void **state) {
    (void)state;
    hook_state h = {"constfold", HOOK_CANCEL, 0, false};
    fl_report *r = NULL;
    assert_int_equal(analyze_with_hook(&h, &r), FL_ECANCELED);
    assert_int_equal(h.calls, 1);
    assert_non_null(r);
    assert_non_null(r->error);
    assert_false(r->optimized);
    fl_report_free(r);

    /* Directly: the pipeline returns FL_ECANCELED, no failure recorded. */
    hook_state h2 = {"arithmetic", HOOK_CANCEL, 0, false};
    run_result rr = run_pipeline("default", NULL, 2, &h2);
    assert_int_equal(rr.st, FL_ECANCELED);
    assert_int_equal(h2.calls, 1);
    run_result_free(&rr);
}

/* The verifier runs after every pass in fl_analyze whatever the build type:
 * CTest sets FOLDLINE_VERIFY=1 (src/util/check.h), so a release build's
 * suite checks as much as a debug build's. A pass that leaves the name index
 * stale is rolled back with the verifier's message. */
static void test_verifier_on_in_tests(void **state) {
    (void)state;
    assert_true(fl__checks_on());
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    assert_true(cfg.verify);
    hook_state h = {"cse", HOOK_STALE_INDEX, 0, false};
    fl_report *r = NULL;
    assert_int_equal(analyze_with_hook(&h, &r), FL_OK);
    assert_int_equal(h.calls, 2); /* both iterations: each rolled back */
    int found = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        found += strstr(r->warnings[i], "pass 'cse' failed and was skipped") != NULL &&
                 strstr(r->warnings[i], "verifier: name index is stale") != NULL;
    }
    assert_int_equal(found, 1);
    fl_report_free(r);
}

static void test_oom_during_pass_fails(void **state) {
    (void)state;
    hook_state h = {"remap", HOOK_OOM, 0, false};
    fl_report *r = NULL;
    assert_int_equal(analyze_with_hook(&h, &r), FL_ENOMEM);
    assert_int_equal(h.calls, 1);
    assert_non_null(r->error);
    fl_report_free(r);
}

/* Without cfg.failures, a failure becomes a warning of the diag. */
static void test_failure_as_diag_warning(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.passes = "cse";
    cfg.opt.iterations = 1;
    fl_ledger led;
    fl__ledger_init(&led, &f.arena);
    fl_cost_totals after;
    hook_state h = {"cse", HOOK_FAIL, 0, false};
    fl__pipeline_set_test_hook(hook, &h);
    assert_int_equal(fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after), FL_OK);
    fl__pipeline_set_test_hook(NULL, NULL);
    assert_int_equal(f.d.status, FL_OK);
    assert_int_equal(f.d.n_warnings, 1);
    assert_string_equal(f.d.warnings[0], "pass 'cse' failed and was skipped: node 'y' (Neg): "
                                         "forced failure in cse");
    teardown_f(&f);
}

/* The snapshot counts against the memory limit: with a limit the graph fits
 * in but not graph + snapshot, the run fails cleanly with FL_ENOMEM. */
static void test_snapshot_respects_memory_limit(void **state) {
    (void)state;
    fixture f;
    setup_f(&f);
    f.arena.limit = f.arena.reserved; /* nothing left */
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.opt.iterations = 1;
    fl_ledger led;
    fl__ledger_init(&led, &f.arena);
    fl_cost_totals after;
    assert_int_equal(fl__pipeline_run(&f.c, &f.opt, &cfg, &led, &after), FL_ENOMEM);
    f.arena.limit = 0;
    teardown_f(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_restore_exact),
        cmocka_unit_test(test_snapshot_retake),
        cmocka_unit_test(test_snapshot_attr_arrays_not_written),
        cmocka_unit_test(test_snapshot_byte_limit),
        cmocka_unit_test(test_journal_restore_exact),
        cmocka_unit_test(test_journal_matches_full_copy),
        cmocka_unit_test(test_journal_comparisons),
        cmocka_unit_test(test_journal_byte_limit),
        cmocka_unit_test(test_failed_pass_equals_disabled_pass),
        cmocka_unit_test(test_failure_without_message),
        cmocka_unit_test(test_broken_invariants_roll_back),
        cmocka_unit_test(test_unmarked_edits_roll_back),
        cmocka_unit_test(test_rollback_is_exact),
        cmocka_unit_test(test_failure_as_diag_warning),
        cmocka_unit_test(test_analyze_succeeds_with_warning),
        cmocka_unit_test(test_cancel_during_pass_fails),
        cmocka_unit_test(test_oom_during_pass_fails),
        cmocka_unit_test(test_verifier_on_in_tests),
        cmocka_unit_test(test_snapshot_respects_memory_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
