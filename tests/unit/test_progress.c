/*
 * test_progress.c - fl_options.progress: the phases of an analysis in order,
 * each starting at 0 nodes, its counts never going down inside it, and each
 * ending at the graph's nodes; one phase per pass run, matching the report's
 * pass records; nothing after a failure; nothing from the LLM view.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 512

typedef struct recorder {
    size_t n;
    fl_progress ev[MAX_EVENTS];
    char names[MAX_EVENTS][32];
} recorder;

static void record(const fl_progress *p, void *arg) {
    recorder *rec = arg;
    assert_true(rec->n < MAX_EVENTS);
    rec->ev[rec->n] = *p;
    snprintf(rec->names[rec->n], sizeof rec->names[0], "%s", p->name);
    rec->ev[rec->n].name = rec->names[rec->n];
    rec->n++;
}

/* x [1,8] -> n `op` nodes, with an Identity after every `identity_every`-th
 * (0: none). */
static tg_graph *chain(const char *op, int n, int identity_every) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){1, 8});
    char prev[32] = "x", name[32];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "r%d", i);
        tg_node *r = tg_add(g, name, op, prev, NULL);
        tg_attr_type(r, "T", 1);
        memcpy(prev, name, sizeof prev);
        if (identity_every && i % identity_every == 0 && i + 1 < n) {
            snprintf(name, sizeof name, "id%d", i);
            tg_node *id = tg_add(g, name, "Identity", prev, NULL);
            tg_attr_type(id, "T", 1);
            memcpy(prev, name, sizeof prev);
        }
    }
    return g;
}

/* One phase's events: [first, end). Checks the rules every phase keeps and
 * returns how many events it had between its start and its end. */
static size_t check_phase(const recorder *rec, size_t first, size_t end, int64_t total) {
    assert_true(end - first >= 2);
    const fl_progress *s = &rec->ev[first], *e = &rec->ev[end - 1];
    assert_int_equal(s->nodes_done, 0);
    assert_int_equal(e->nodes_done, total);
    assert_int_equal(e->nodes_total, total);
    for (size_t i = first + 1; i < end; i++) {
        const fl_progress *p = &rec->ev[i];
        assert_int_equal(p->phase, s->phase);
        assert_string_equal(p->name, s->name);
        assert_int_equal(p->iteration, s->iteration);
        assert_true(p->nodes_done >= rec->ev[i - 1].nodes_done);
        if (i + 1 < end) { /* a tick: the total as started, short of it */
            assert_int_equal(p->nodes_total, s->nodes_total);
            assert_true(p->nodes_done < total);
        }
    }
    return end - first - 2;
}

/* The end (one past) of the phase starting at `first`: its last event is
 * the first after it with nodes_done == nodes_total (a tick is short of the
 * total; import's ticks have none). */
static size_t phase_end(const recorder *rec, size_t first) {
    size_t i = first + 1;
    while (i < rec->n &&
           !(rec->ev[i].nodes_total >= 0 && rec->ev[i].nodes_done == rec->ev[i].nodes_total)) {
        i++;
    }
    assert_true(i < rec->n);
    return i + 1;
}

/* 3,000 Relu nodes and the Placeholder: import, shapes and cost each start
 * at 0 of 3,001 (import: of an unknown total), tick every 1,024 nodes
 * (floor(3001 / 1024) = 2 ticks at least; a walk repeated adds none) and
 * end at 3,001 of 3,001; nothing follows without passes. */
static void test_phases_in_order(void **state) {
    (void)state;
    tg_graph *g = chain("Relu", 3000, 0);
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    recorder *rec = calloc(1, sizeof *rec);
    assert_non_null(rec);
    fl_options o;
    fl_options_init(&o);
    o.progress = record;
    o.progress_arg = rec;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, &o, &r), FL_OK);
    assert_int_equal(r->totals.flops.value, 3000 * 8);

    static const char *const names[] = {"import", "shapes", "cost"};
    static const fl_phase phases[] = {FL_PHASE_IMPORT, FL_PHASE_SHAPES, FL_PHASE_COST};
    size_t at = 0;
    for (int k = 0; k < 3; k++) {
        assert_true(at < rec->n);
        assert_int_equal(rec->ev[at].phase, phases[k]);
        assert_string_equal(rec->ev[at].name, names[k]);
        assert_int_equal(rec->ev[at].nodes_total, k == 0 ? -1 : 3001);
        size_t end = phase_end(rec, at);
        size_t ticks = check_phase(rec, at, end, 3001);
        if (k > 0) { /* the importers differ in how they walk */
            assert_true(ticks >= 2);
            assert_true(ticks <= 3);
        }
        at = end;
    }
    assert_int_equal(at, rec->n);
    fl_report_free(r);

    /* The same without the callback: the same answer. */
    o.progress = NULL;
    assert_int_equal(fl_analyze(bytes, len, &o, &r), FL_OK);
    assert_int_equal(r->totals.flops.value, 3000 * 8);
    fl_report_free(r);
    free(rec);
    free(bytes);
    tg_free(g);
}

/* With the default passes, after cost: one phase per pass run, in the
 * order and iterations of the report's pass records (Grappler's order:
 * pruning, cse, constfold, shape, arithmetic, remap, dependency, twice).
 * Each pass starts at 0 of the graph's nodes as it starts and ends there:
 * the chain has 3,001 nodes and 150 Identity nodes (one after every 20th
 * Sigmoid, the last excepted), so the pruner starts at 3,151 and, having
 * removed the 150, cse at 3,001; from then on each pass starts at the
 * nodes the one before left (its record's removed and added nodes: the
 * arithmetic optimizer composes the Sigmoid chain), the last ending at the
 * optimised graph's nodes. */
static void test_pass_phases(void **state) {
    (void)state;
    tg_graph *g = chain("Sigmoid", 3000, 20);
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    recorder *rec = calloc(1, sizeof *rec);
    assert_non_null(rec);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    o.progress = record;
    o.progress_arg = rec;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, &o, &r), FL_OK);
    assert_int_equal(r->before.nodes, 3151);

    size_t at = 0;
    for (int k = 0; k < 3; k++) {
        at = phase_end(rec, at);
    }
    static const char *const grappler[] = {"pruning",    "cse",   "constfold", "shape",
                                           "arithmetic", "remap", "dependency"};
    assert_int_equal(r->n_passes, 14);
    int64_t total = 3151;
    for (size_t i = 0; i < r->n_passes; i++) {
        assert_true(at < rec->n);
        const fl_progress *p = &rec->ev[at];
        assert_int_equal(p->phase, FL_PHASE_PASS);
        assert_string_equal(p->name, grappler[i % 7]);
        assert_int_equal(p->iteration, (int)(i / 7));
        assert_string_equal(p->name, r->passes[i].pass);
        assert_int_equal(p->iteration, r->passes[i].iteration);
        if (i < 2) {
            assert_int_equal(total, i == 0 ? 3151 : 3001);
        }
        assert_int_equal(p->nodes_total, total);
        size_t end = phase_end(rec, at);
        assert_int_equal(check_phase(rec, at, end, total), 0); /* start and end only */
        at = end;
        total += r->passes[i].nodes_added - r->passes[i].nodes_removed;
    }
    assert_int_equal(at, rec->n);
    assert_int_equal(total, r->after.nodes);
    assert_true(total < 3001);
    fl_report_free(r);
    free(rec);
    free(bytes);
    tg_free(g);
}

/* A graph without a node fails after the import started: the import's
 * start is all there is, no end. */
static void test_failure_stops(void **state) {
    (void)state;
    recorder *rec = calloc(1, sizeof *rec);
    assert_non_null(rec);
    fl_options o;
    fl_options_init(&o);
    o.progress = record;
    o.progress_arg = rec;
    fl_report *r = NULL;
    static const uint8_t empty[1] = {0};
    assert_int_equal(fl_analyze(empty, 0, &o, &r), FL_EINVAL);
    fl_report_free(r);
    assert_int_equal(rec->n, 1);
    assert_int_equal(rec->ev[0].phase, FL_PHASE_IMPORT);
    assert_int_equal(rec->ev[0].nodes_done, 0);
    free(rec);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases_in_order),
        cmocka_unit_test(test_pass_phases),
        cmocka_unit_test(test_failure_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
