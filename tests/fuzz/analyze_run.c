/*
 * analyze_run.c - the whole analysis as `foldline analyze` runs it, with its
 * invariants checked (analyze_run.h), for the targets that analyse models:
 * fuzz_analyze (arbitrary bytes) and fuzz_onnx_struct (ONNX models mutated
 * field by field).
 */
#include "analyze_run.h"

#include "formula.h"
#include "fuzz.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Ledger rules that may legitimately add FLOPs (a rewrite that trades
 * compute for something else). Empty: no rule of ours does. */
static const char *const compute_rules[] = {NULL};

void fuzz_analyze_init(void) {
    /* The pass verifier in every build type (src/passes/pipeline.c). */
    setenv("FOLDLINE_VERIFY", "1", 1);
}

static void check_quantity(const fl_quantity *q, const char *what) {
    fuzz_require(q->text && *q->text, "%s: no text", what);
    if (q->known) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRId64, q->value);
        fuzz_require(strcmp(buf, q->text) == 0, "%s: known %" PRId64 " printed as '%s'", what,
                     q->value, q->text);
    }
}

static void check_totals(const fl_totals *t, const char *what) {
    check_quantity(&t->flops, what);
    check_quantity(&t->tfprof_flops, what);
    check_quantity(&t->macs, what);
    check_quantity(&t->bytes, what);
    check_quantity(&t->bytes_read, what);
    check_quantity(&t->bytes_written, what);
}

static void check_nodes(const fl_report_node *ns, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++) {
        fuzz_require(ns[i].name && ns[i].op, "%s %zu: no name or op", what, i);
        for (size_t k = 0; k < ns[i].n_outputs; k++) {
            fuzz_require(ns[i].outputs[k].dtype && ns[i].outputs[k].shape,
                         "%s '%s' output %zu: no dtype or shape", what, ns[i].name, k);
        }
        check_quantity(&ns[i].flops, ns[i].name);
        check_quantity(&ns[i].macs, ns[i].name);
        check_quantity(&ns[i].bytes, ns[i].name);
    }
}

/* Every field of a successful report is set. */
static void check_report(const fl_report *r) {
    fuzz_require(!r->error, "FL_OK with an error: %s", r->error);
    fuzz_require(r->format, "no format");
    check_totals(&r->totals, "totals");
    fuzz_require((size_t)r->n_nodes == r->n_nodes_detail, "n_nodes %" PRId64 " vs %zu listed",
                 r->n_nodes, r->n_nodes_detail);
    check_nodes(r->nodes, r->n_nodes_detail, "node");
    for (size_t i = 0; i < r->n_ops; i++) {
        fuzz_require(r->ops[i].op && r->ops[i].count > 0, "op row %zu", i);
        check_quantity(&r->ops[i].flops, r->ops[i].op);
    }
    for (size_t i = 0; i < r->n_warnings; i++) {
        fuzz_require(r->warnings[i] && *r->warnings[i], "warning %zu empty", i);
    }
    for (size_t i = 0; i < r->n_inputs; i++) {
        fuzz_require(r->inputs[i].name && r->inputs[i].dtype && r->inputs[i].shape, "input %zu", i);
    }
    for (size_t i = 0; i < r->n_outputs; i++) {
        fuzz_require(r->outputs[i], "output %zu", i);
    }
    for (size_t i = 0; i < r->n_symbols; i++) {
        fuzz_require(r->symbols[i] && *r->symbols[i], "symbol %zu", i);
    }
    fuzz_require(r->optimized, "passes requested but the report is not optimised");
    check_totals(&r->before, "before");
    check_totals(&r->after, "after");
    fuzz_require(strcmp(r->before.flops.text, r->totals.flops.text) == 0, "before != totals");
    check_nodes(r->nodes_after, r->n_nodes_after, "node after");
    fuzz_require((int64_t)r->n_nodes_after == r->after.nodes, "after: %zu nodes listed, %" PRId64,
                 r->n_nodes_after, r->after.nodes);
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        fuzz_require(p->pass && p->first_entry + p->n_entries <= r->n_ledger, "pass record %zu", i);
        fuzz_require(!p->failed || (!strstr(p->failed, "verifier") && *p->failed),
                     "pass '%s' rolled back: %s", p->pass, p->failed);
        check_totals(&p->before, p->pass);
        check_totals(&p->after, p->pass);
    }
    for (size_t i = 0; i < r->n_ledger; i++) {
        const fl_report_ledger_entry *e = &r->ledger[i];
        fuzz_require(e->pass && e->rule && e->node && e->detail, "ledger entry %zu", i);
    }
}

static bool adds_compute(const fl_report *r) {
    for (size_t i = 0; i < r->n_ledger; i++) {
        for (size_t k = 0; compute_rules[k]; k++) {
            if (strcmp(r->ledger[i].rule, compute_rules[k]) == 0) {
                return true;
            }
        }
    }
    return false;
}

/* FLOPs after <= before, at every symbol = 1 and every symbol = 7. */
static void check_flops_monotone(const fl_report *r) {
    /* An incomplete node counts nothing before; once a rewrite determines
     * its shape it counts (constfold's ConstantPushDown turning
     * Add(Add(b, W), b) with W unknown into Add(Add(b, b), W) makes the
     * inner Add a 1-FLOP scalar add: "0 -> 1", a partial total grown). */
    if (adds_compute(r) || r->nodes_incomplete > 0) {
        return;
    }
    int64_t vals[64];
    size_t n = r->n_symbols < 64 ? r->n_symbols : 64;
    for (int64_t v = 1; v <= 7; v += 6) {
        for (size_t i = 0; i < n; i++) {
            vals[i] = v;
        }
        int64_t b, a;
        char err[128];
        if (!formula_eval(r->before.flops.text, n, r->symbols, vals, &b, err, sizeof err) ||
            !formula_eval(r->after.flops.text, n, r->symbols, vals, &a, err, sizeof err)) {
            return; /* a symbol the list leaves out, or an overflow: not comparable */
        }
        fuzz_require(a <= b, "FLOPs grew: %s -> %s (symbols = %" PRId64 ")", r->before.flops.text,
                     r->after.flops.text, v);
    }
}

/* The optimised graph, imported and analysed again without passes, costs
 * exactly what the report says "after". */
static void check_reimport(const fl_report *r) {
    if (!r->graph_bytes) {
        return;
    }
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_GRAPHDEF;
    o.max_memory_bytes = (size_t)256 << 20;
    fl_report *again = NULL;
    fl_status st = fl_analyze(r->graph_bytes, r->graph_len, &o, &again);
    fuzz_require(st == FL_OK, "the optimised graph does not import again: %s",
                 again && again->error ? again->error : fl_status_name(st));
    const fl_totals *x = &r->after, *y = &again->totals;
    fuzz_require(strcmp(x->flops.text, y->flops.text) == 0 &&
                     strcmp(x->macs.text, y->macs.text) == 0 &&
                     strcmp(x->bytes.text, y->bytes.text) == 0 && x->nodes == y->nodes,
                 "re-import of the optimised graph: flops %s vs %s, macs %s vs %s, bytes %s vs "
                 "%s, nodes %" PRId64 " vs %" PRId64,
                 x->flops.text, y->flops.text, x->macs.text, y->macs.text, x->bytes.text,
                 y->bytes.text, x->nodes, y->nodes);
    fl_report_free(again);
}

void fuzz_analyze_input(const uint8_t *data, size_t size) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    o.max_memory_bytes = (size_t)256 << 20;
    o.max_nodes = 20000;
    /* Writing the graph back is for TensorFlow formats. */
    fl_format f = fl_detect_format(data, size);
    o.return_graph = f == FL_FORMAT_GRAPHDEF || f == FL_FORMAT_SAVEDMODEL;
    fl_report *r = NULL;
    fl_status st = fl_analyze(data, size, &o, &r);
    fuzz_require(r, "no report (status %s)", fl_status_name(st));
    if (st != FL_OK) {
        fuzz_check_failure(st, r->error, FUZZ_IMPORT_STATUSES);
    } else {
        check_report(r);
        check_flops_monotone(r);
        check_reimport(r);
    }
    fl_report_free(r);
}
