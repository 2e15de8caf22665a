/*
 * analyze.c - the public entry point: import, infer, cost, report.
 *
 * The analysis runs in one arena that is released before returning; the
 * report is copied into its own arena (the report_mem the report heads) so
 * that it outlives the IR and can be handed to another thread.
 */
#include "api/llm.h"
#include "api/progress.h"
#include "api/report.h"
#include "cost/cost.h"
#include "cost/roofline.h"
#include "export/graphdef_write.h"
#include "export/onnx_write.h"
#include "foldline/foldline.h"
#include "import/import.h"
#include "import/tflite_strip.h"
#include "ops/common.h"
#include "passes/pipeline.h"
#include "shape/infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fl_version(void) {
    return FL_VERSION_STRING;
}

int fl_version_number(void) {
    return FL_VERSION_NUMBER;
}

void fl_options_init_size(fl_options *o, size_t size) {
    fl_options d;
    memset(&d, 0, sizeof d);
    d.format = FL_FORMAT_AUTO;
    d.max_nodes = 5000000;
    d.max_value_elements = 1 << 20;
    d.max_memory_bytes = (size_t)8 << 30;
    d.size = size < sizeof d ? size : sizeof d;
    memcpy(o, &d, d.size);
}

/* The caller's options as this library's fl_options: the fields it has (by
 * its `size`; 0 = a zeroed struct of this version) and defaults for those
 * it was compiled without. */
static void options_in(const fl_options *in, fl_options *out) {
    fl_options_init(out);
    if (in) {
        size_t n = in->size && in->size < sizeof *out ? in->size : sizeof *out;
        memcpy(out, in, n);
        out->size = sizeof *out;
    }
}

/* A report and the arena holding everything it points to; fl_report_free
 * finds the arena from the report (its first member). */
typedef struct report_mem {
    fl_report report;
    fl_arena arena;
    bool over_limit; /* the analysis failed on max_memory_bytes */
} report_mem;

static fl_arena *report_arena(fl_report *r) {
    return &((report_mem *)r)->arena;
}

bool fl__report_over_limit(const fl_report *r) {
    return r && ((const report_mem *)r)->over_limit;
}

/* ------------------------------------------------------------------------- */
/* Report                                                                     */
/* ------------------------------------------------------------------------- */

static fl_report *report_new(void) {
    report_mem *m = calloc(1, sizeof(*m));
    if (!m) {
        return NULL;
    }
    fl__arena_init(&m->arena, 0);
    return &m->report;
}

void fl_report_free(fl_report *r) {
    if (!r) {
        return;
    }
    report_mem *m = (report_mem *)r;
    fl__arena_free(&m->arena);
    free(m);
}

/* ------------------------------------------------------------------------- */
/* Passes                                                                     */
/* ------------------------------------------------------------------------- */

/* Runs the passes opt->passes selects over the analysed graph and fills the
 * report's before/after totals, pass records, ledger, and on request the
 * optimised GraphDef and the per-node list of the optimised graph. */
/* The ledger entry of a TFLite model: no pass was run. */
static fl_status note_passes_not_applicable(fl_ctx *c, fl_report *r) {
    fl_arena *ra = report_arena(r);
    fl_report_ledger_entry *es = fl__arena_calloc(ra, r->n_ledger + 1, sizeof(*es));
    if (!es) {
        return fl__diag_oom(c->d);
    }
    es[0].pass = "none";
    es[0].rule = "not_applicable";
    es[0].node = "";
    es[0].detail = "Grappler's passes do not apply to a TFLite model (already converted and "
                   "optimised by the TFLite converter): none was run, after = before";
    if (r->n_ledger) {
        memcpy(es + 1, r->ledger, r->n_ledger * sizeof(*es));
    }
    r->ledger = es;
    r->n_ledger++;
    /* The JSON and proto carry ledger entries per pass: a warning too. */
    const char **w = fl__arena_calloc(ra, r->n_warnings + 1, sizeof(char *));
    if (!w) {
        return fl__diag_oom(c->d);
    }
    if (r->n_warnings) {
        memcpy(w, r->warnings, r->n_warnings * sizeof(char *));
    }
    w[r->n_warnings++] = es[0].detail;
    r->warnings = w;
    return FL_OK;
}

/* Totals formatted for the report: the graph's as analysed (the first
 * pass's "before"), the graph's after the passes (the last pass's
 * "after"), and the last others formatted: a pass record's "before" is the
 * previous one's "after", and a pass that changed nothing has equal ones,
 * so most records reuse the formatted strings (formatting symbolic counts
 * is most of a tiny graph's report). */
#define MEMO_KEPT 2 /* the totals as analysed and after the passes */
typedef struct totals_memo_t {
    size_t n; /* entries set */
    struct {
        fl_cost_totals t;
        fl_totals out;
    } e[MEMO_KEPT + 1];
} totals_memo_t;

static bool sym_same(fl_sym a, fl_sym b) {
    return a.k == b.k && a.e == b.e;
}

/* Whether fl__report_totals gives a and b the same text: the counts it
 * formats and those its node count sums are equal (a polynomial is
 * interned: equal ones are one pointer). Not the whole struct: the parts
 * the updates by differences keep beside them play no part. */
static bool totals_same(const fl_cost_totals *a, const fl_cost_totals *b) {
    return sym_same(a->flops, b->flops) && sym_same(a->bytes_read, b->bytes_read) &&
           sym_same(a->bytes_written, b->bytes_written) &&
           sym_same(a->tfprof_flops, b->tfprof_flops) && sym_same(a->macs, b->macs) &&
           sym_same(a->int_ops, b->int_ops) && a->nodes_with_rule == b->nodes_with_rule &&
           a->nodes_without_rule == b->nodes_without_rule &&
           a->nodes_incomplete == b->nodes_incomplete && a->nodes_values == b->nodes_values;
}

static fl_status totals_memo(fl_ctx *c, fl_arena *ra, totals_memo_t *m, const fl_cost_totals *t,
                             fl_totals *out) {
    for (size_t i = 0; i < m->n; i++) {
        if (totals_same(&m->e[i].t, t)) {
            *out = m->e[i].out;
            return FL_OK;
        }
    }
    fl_status st = fl__report_totals(c, ra, t, out);
    if (st == FL_OK) {
        size_t i = m->n < MEMO_KEPT + 1 ? m->n++ : MEMO_KEPT;
        m->e[i].t = *t;
        m->e[i].out = *out;
    }
    return st;
}

/* The report's n pass records and a zeroed one after them, or NULL. Not
 * zeroed but the end: run_passes writes each record whole (the records are
 * large, and zeroing them was a fortieth of a small analysis; a failed
 * analysis's report keeps none of them). */
static fl_report_pass *report_passes_alloc(fl_arena *ra, size_t n) {
    fl_report_pass *ps =
        n < SIZE_MAX / sizeof(*ps) - 1 ? fl__arena_alloc_raw(ra, (n + 1) * sizeof(*ps)) : NULL;
    if (ps) {
        memset(&ps[n], 0, sizeof(*ps));
    }
    return ps;
}

/* A copy of s in ra, or prev_copy (the copy of prev_src, the string before
 * it) when s equals that one: a pass's entries in a row share one copy of
 * the pass's and the rule's names. */
static const char *copy_as_before(fl_arena *ra, const char *s, const char *prev_src,
                                  const char *prev_copy) {
    if (s && prev_src && prev_copy && strcmp(s, prev_src) == 0) {
        return prev_copy;
    }
    return fl__arena_strdup(ra, s);
}

/* The ledger's entries into the report's es (led->n_entries of them); the
 * rule and detail texts as they are when the ledger wrote them into ra. */
static void copy_ledger(fl_arena *ra, const fl_ledger *led, fl_report_ledger_entry *es) {
    bool kept = led->text == ra;
    /* Many entries: their node names packed in 64 KB chunks, not 16 bytes
     * each at least (a small graph's few take no chunk). */
    fl_str_pool names = {NULL, 0};
    bool pack = led->n_entries >= 1024;
    for (size_t i = 0; i < led->n_entries; i++) {
        const fl_ledger_entry *e = fl__ledger_entry(led, i);
        const fl_ledger_entry *prev = i ? fl__ledger_entry(led, i - 1) : NULL;
        es[i].pass = e->pass; /* a pass's name: the pipeline's table, not copied */
        es[i].rule =
            kept ? e->rule
                 : copy_as_before(ra, e->rule, prev ? prev->rule : NULL, i ? es[i - 1].rule : NULL);
        es[i].node = pack ? fl__arena_pool_strndup(ra, &names, e->node, strlen(e->node))
                          : fl__arena_strdup(ra, e->node);
        es[i].detail = kept ? e->detail : fl__arena_strdup(ra, e->detail);
    }
}

/* The warnings of the rewrite stage into r's: the pipeline's own (those of
 * c->d from w0 on), then passes that failed and were skipped, one warning
 * each (once when a pass fails the same way in both iterations). */
static fl_status pass_warnings(fl_ctx *c, fl_arena *ra, fl_report *r, size_t w0,
                               const fl_pass_failures *failures) {
    size_t extra = c->d->n_warnings > w0 ? c->d->n_warnings - w0 : 0;
    if (!failures->n && !extra) {
        return FL_OK;
    }
    const char **w = fl__arena_calloc(ra, r->n_warnings + extra + failures->n + 1, sizeof(char *));
    if (!w) {
        return fl__diag_oom(c->d);
    }
    size_t nw = r->n_warnings;
    if (nw) {
        memcpy(w, r->warnings, nw * sizeof(char *));
    }
    for (size_t i = 0; i < extra; i++) {
        if (!(w[nw++] = fl__arena_strdup(ra, c->d->warnings[w0 + i]))) {
            return fl__diag_oom(c->d);
        }
    }
    for (size_t i = 0; i < failures->n; i++) {
        const char *m = failures->items[i].message;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) {
            seen = strcmp(failures->items[k].message, m) == 0;
        }
        if (!seen) {
            w[nw++] = fl__arena_strdup(ra, m);
        }
    }
    r->warnings = w;
    r->n_warnings = nw;
    return FL_OK;
}

static fl_status run_passes(fl_ctx *c, const fl_options *opt, const fl_cost_totals *costed,
                            fl_progress_state *prog, fl_report *r) {
    fl_arena *ra = report_arena(r);
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.costed = costed; /* the graph as analysed: costed once, not again */
    cfg.passes = opt->passes;
    cfg.disabled = opt->disabled_passes;
    cfg.n_disabled = opt->n_disabled_passes;
    cfg.outputs = opt->output_names;
    cfg.n_outputs = opt->n_output_names;
    cfg.opt.device = opt->device;
    cfg.opt.remapper_mode = opt->remapper_mode;
    cfg.opt.persistent_bn = opt->cudnn_persistent_batchnorm;
    if (opt->max_folded_bytes > 0) {
        cfg.opt.max_folded_bytes = opt->max_folded_bytes;
    }
    fl_pass_failures failures = {NULL, 0, 0};
    cfg.failures = &failures;
    fl_ledger led;
    fl__ledger_init(&led, c->a);
    led.text = ra; /* the report keeps the notes' texts */
    fl_cost_totals after;
    size_t w0 = c->d->n_warnings;
    fl_status st = fl__pipeline_run(c, opt, &cfg, &led, &after);
    if (st != FL_OK) {
        return st;
    }
    fl__progress_end(prog, -1); /* the last pass */
    if ((st = pass_warnings(c, ra, r, w0, &failures)) != FL_OK) {
        return st;
    }
    r->optimized = true;
    r->before = r->totals;
    totals_memo_t memo;
    memset(&memo, 0, sizeof memo);
    memo.e[0].t = *costed; /* r->totals was formatted from it */
    memo.e[0].out = r->totals;
    memo.n = 1;
    st = totals_memo(c, ra, &memo, &after, &r->after);
    if (st != FL_OK) {
        return st;
    }
    fl_report_pass *ps = report_passes_alloc(ra, led.n_passes);
    fl_report_ledger_entry *es = fl__arena_calloc(ra, led.n_entries + 1, sizeof(*es));
    if (!ps || !es) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < led.n_passes && st == FL_OK; i++) {
        const fl_pass_record *p = &led.passes[i];
        ps[i].failed = NULL;
        ps[i].pass = p->pass; /* the pipeline's table of names: not copied */
        ps[i].iteration = p->iteration;
        ps[i].nodes_removed = p->nodes_removed;
        ps[i].nodes_added = p->nodes_added;
        ps[i].nodes_rewritten = p->nodes_rewritten;
        ps[i].first_entry = p->first_entry;
        ps[i].n_entries = p->n_entries;
        for (size_t k = 0; k < failures.n; k++) {
            if (failures.items[k].record == i) {
                ps[i].failed = fl__arena_strdup(ra, failures.items[k].why);
                st = ps[i].failed ? FL_OK : fl__diag_oom(c->d);
            }
        }
        if (st == FL_OK) { /* keep a failure to copy `failed` */
            st = totals_memo(c, ra, &memo, &p->before, &ps[i].before);
        }
        if (st == FL_OK) {
            st = totals_memo(c, ra, &memo, &p->after, &ps[i].after);
        }
    }
    copy_ledger(ra, &led, es);
    r->passes = ps;
    r->n_passes = led.n_passes;
    r->ledger = es;
    r->n_ledger = led.n_entries;
    if (st == FL_OK && opt->per_node) {
        st = fl__report_nodes(c, ra, &r->nodes_after, &r->n_nodes_after);
    }
    if (st == FL_OK && opt->return_graph) {
        uint8_t *buf = NULL;
        size_t len = 0;
        st = c->g->onnx.is_onnx ? fl__onnx_write(c->g, &buf, &len, c->d)
                                : fl__graphdef_write(c->g, &buf, &len, c->d);
        if (st == FL_OK) {
            uint8_t *copy = fl__arena_alloc(ra, len ? len : 1);
            if (!copy) {
                st = fl__diag_oom(c->d);
            } else {
                memcpy(copy, buf, len);
                r->graph_bytes = copy;
                r->graph_len = len;
            }
        }
        free(buf);
    }
    return st;
}

fl_format fl_detect_format(const void *bytes, size_t len) {
    return fl__import_sniff_tflite(bytes, len)       ? FL_FORMAT_TFLITE
           : fl__import_sniff_tfjs(bytes, len)       ? FL_FORMAT_TFJS
           : fl__import_sniff_onnx(bytes, len)       ? FL_FORMAT_ONNX
           : fl__import_sniff_savedmodel(bytes, len) ? FL_FORMAT_SAVEDMODEL
                                                     : FL_FORMAT_GRAPHDEF;
}

int fl_model_file_refs(const void *bytes, size_t len, fl_format format,
                       void (*fn)(const char *name, void *arg), void *arg) {
    if (format == FL_FORMAT_AUTO) {
        format = fl_detect_format(bytes, len);
    }
    if (format == FL_FORMAT_TFJS) {
        return fl__import_tfjs_refs(bytes, len, fn, arg);
    }
    if (format == FL_FORMAT_ONNX) {
        return fl__import_onnx_refs(bytes, len, fn, arg);
    }
    return 0;
}

void *fl_strip_tflite(const void *bytes, size_t len, int64_t threshold, size_t *out_len) {
    return bytes && out_len ? fl__tflite_strip(bytes, len, threshold, out_len) : NULL;
}

/* The report's one-line error for a failed analysis (NULL: out of memory).
 * Out of memory names the limit when the limit refused the memory (the
 * arena's or a pass's journal's), else the system. */
static const char *error_message(const fl_diag *d, const fl_options *opt, fl_arena *ra) {
    fl_status st = d->status;
    if (d->status == FL_ENOMEM && opt->max_memory_bytes &&
        (d->over_limit || d->arena->over_limit)) {
        return fl__arena_printf(ra, "analysis needs more than the memory limit of %zu bytes",
                                opt->max_memory_bytes);
    } else if (d->status == FL_ENOMEM) {
        return fl__arena_printf(ra,
                                "out of memory: the system refused an allocation (the analysis "
                                "held %zu bytes%s)",
                                d->arena->reserved,
                                opt->max_memory_bytes ? ", below its memory limit" : "");
    } else if (d->status == FL_EOVERFLOW && opt->n_symbols) {
        size_t big = 0;
        for (size_t k = 1; k < opt->n_symbols; k++) {
            big = opt->symbols[k].value > opt->symbols[big].value ? k : big;
        }
        /* Counts are exact 64-bit integers: a large symbol binding is the
         * likely cause (the symbolic analysis keeps the formula). */
        return fl__arena_printf(ra,
                                "%s (with the symbol binding %s=%lld: counts are exact "
                                "64-bit integers, so the bound values must keep them "
                                "below 2^63)",
                                d->msg ? d->msg : fl_status_str(st), opt->symbols[big].name,
                                (long long)opt->symbols[big].value);
    } else {
        return fl__arena_strdup(ra, d->msg ? d->msg : fl_status_str(st));
    }
}

/* A failed analysis's report holds its error only, never a part of a
 * report (fields filled before the failure are cleared); returns `st`. */
static fl_status error_only(fl_report *r, fl_status st) {
    if (st != FL_OK) {
        const char *error = r->error;
        memset(r, 0, sizeof(*r));
        r->error = error;
    }
    return st;
}

/* Fills a failed analysis's report error; returns the status recorded. */
static fl_status report_error(fl_diag *d, fl_status st, const fl_options *opt, fl_report *r) {
    if (d->status == FL_OK) {
        d->status = st;
    }
    r->error = error_message(d, opt, report_arena(r));
    if (!r->error) {
        r->error = "out of memory";
    }
    return d->status;
}

static fl_status tflite_not_written(fl_diag *d) {
    return fl__diag_fail(d, FL_EUSAGE,
                         "%swriting an optimised graph back is implemented for TensorFlow and "
                         "ONNX graphs only; a TFLite model can be analysed%s but not written",
                         fl__diag_opt(d, "", "options.return_optimized_graph: "),
                         fl__diag_opt(d, " (foldline analyze)", ""));
}

/* Whether the graph as given is estimated on the profiles: a decoder's free
 * symbols (past, seq) leave the estimate to the LLM view's phases
 * (src/api/llm.c), whose symbols are all bound. */
static bool whole_estimate(const fl_options *opt, const fl_report *r) {
    return opt->n_profiles && !(opt->llm && r->n_symbols && fl__llm_applies(r));
}

fl_status fl_analyze(const void *bytes, size_t len, const fl_options *opt_in, fl_report **out) {
    fl_options opt_all;
    options_in(opt_in, &opt_all);
    const fl_options *opt = &opt_all;
    *out = NULL;
    fl_report *r = report_new();
    if (!r) {
        return FL_ENOMEM;
    }
    *out = r;
    fl_arena *ra = report_arena(r);
    const char *bad = opt->llm ? fl__llm_check(opt) : NULL;
    if (bad) {
        r->error = bad; /* a static string */
        return FL_EUSAGE;
    }

    fl_arena arena;
    fl__arena_init(&arena, opt->max_memory_bytes);
    fl_diag d;
    fl__diag_init(&d, &arena);
    d.stop = opt->should_stop;
    d.stop_arg = opt->stop_arg;
    d.request_names = opt->option_names == FL_OPTION_NAMES_REQUEST;
    fl_status st = fl__diag_check_stop(&d);
    fl_graph *g = st == FL_OK ? fl__graph_new(&arena) : NULL;
    if (st == FL_OK && !g) {
        st = fl__diag_oom(&d);
    }
    fl_ctx c = {g, g ? g->syms : NULL, &arena, &d, opt->max_value_elements};
    fl_progress_state prog; /* fl_options.progress; starts the import */
    fl__progress_init(&prog, opt, &d, g);

    fl_format fmt = opt->format;
    if (st == FL_OK && fmt == FL_FORMAT_AUTO) {
        fmt = fl_detect_format(bytes, len);
    }
    fl_import_opts io = {opt->max_nodes, opt->max_value_elements, opt->saved_model_tag};
    fl_import_files files = {opt->files, opt->n_files};
    if (st == FL_OK) {
        st = fmt == FL_FORMAT_TFLITE       ? fl__import_tflite(g, bytes, len, &io, &d)
             : fmt == FL_FORMAT_TFJS       ? fl__import_tfjs(g, bytes, len, &io, &files, &d)
             : fmt == FL_FORMAT_ONNX       ? fl__import_onnx_files(g, bytes, len, &io, &files, &d)
             : fmt == FL_FORMAT_SAVEDMODEL ? fl__import_savedmodel(g, bytes, len, &io, &d)
                                           : fl__import_graphdef(g, bytes, len, &io, &d);
    }
    if (st == FL_OK && fmt == FL_FORMAT_TFLITE && opt->return_graph) {
        st = tflite_not_written(&d);
    }
    if (st == FL_OK && g->n_nodes == 0) {
        st = fl__diag_fail(&d, FL_EINVAL,
                           "the graph has no nodes: nothing to analyse (field: node)");
    }
    fl_infer_result ir = {0, 0};
    if (st == FL_OK) {
        fl__progress_begin(&prog, FL_PHASE_SHAPES, "shapes", 0, (int64_t)g->n_nodes);
        st = fl__graph_toposort(g, &d);
    }
    if (st == FL_OK) {
        st = fl__diag_check_stop(&d);
    }
    if (st == FL_OK) {
        st = fl__infer_shapes(&c, opt, &ir);
    }
    fl_cost_totals totals;
    if (st == FL_OK) {
        fl__progress_begin(&prog, FL_PHASE_COST, "cost", 0, (int64_t)g->n_nodes);
        st = fl__cost_graph(&c, &totals);
    }
    if (st == FL_OK) {
        st = fl__cost_conds(&c);
    }
    if (st == FL_OK) {
        fl__progress_end(&prog, -1);
        st = fl__report_build(&c, opt,
                              fmt == FL_FORMAT_TFLITE       ? "tflite"
                              : fmt == FL_FORMAT_TFJS       ? "tfjs"
                              : fmt == FL_FORMAT_ONNX       ? "onnx"
                              : fmt == FL_FORMAT_SAVEDMODEL ? "savedmodel"
                                                            : "graphdef",
                              &totals, &ir, ra, r);
    }
    if (st == FL_OK && whole_estimate(opt, r)) {
        st = fl__roofline_report(&c, opt, ra, r);
    }
    if (st == FL_OK) {
        st = fl__diag_check_stop(&d);
    }
    if (st == FL_OK && opt->passes) {
        /* A TFLite model was already converted (and optimised) by the TFLite
         * converter: Grappler's passes do not apply; the ledger says so. */
        fl_options no_passes = *opt;
        no_passes.passes = "none";
        st = run_passes(&c, fmt == FL_FORMAT_TFLITE ? &no_passes : opt, &totals, &prog, r);
        if (st == FL_OK && fmt == FL_FORMAT_TFLITE) {
            st = note_passes_not_applicable(&c, r);
        }
        if (st == FL_OK && opt->n_profiles) {
            st = fl__roofline_report_after(&c, opt, ra, r);
        }
    }
    /* An allocation that failed anywhere, the report's arena included (a
     * string copied after the passes), fails the analysis: never FL_OK with
     * a field missing. */
    if (st == FL_OK && (arena.failed || ra->failed)) {
        st = fl__diag_oom(&d);
    }
    if (st != FL_OK) {
        st = report_error(&d, st, opt, r);
        ((report_mem *)r)->over_limit = st == FL_ENOMEM && (d.over_limit || arena.over_limit);
    }
    fl__arena_free(&arena);
    if (st == FL_OK && opt->llm) { /* after the analysis's memory is released */
        st = fl__llm_view(bytes, len, opt, ra, r);
    }
    return error_only(r, st);
}
