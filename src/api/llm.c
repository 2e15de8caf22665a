/*
 * llm.c - the LLM view of a decoder (fl_options.llm, fl_report.llm): the
 * cost per token of the two phases of generation, each one more analysis of
 * the graph as given with the phase's bindings (and the caller's passes,
 * which give the phase's figures after them). The roles of the symbols are
 * read from the report of the graph as given (foldline.h, fl_report_llm).
 */
#include "api/llm.h"

#include "util/arena.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_SYMS 64

const char *fl__llm_check(const fl_options *opt) {
    if (opt->llm_prompt < 0) {
        return "llm_prompt must be >= 1 (0: the default 128)";
    }
    if (opt->llm_context < 0 || opt->llm_context == 1) {
        return "llm_context must be at least 2 for the decode phase (0: the default 1024)";
    }
    return NULL;
}

/* `word` (lower case) occurs in s, ignoring case. */
static bool has(const char *s, const char *word) {
    for (; *s; s++) {
        size_t i = 0;
        while (word[i] && tolower((unsigned char)s[i]) == word[i]) {
            i++;
        }
        if (!word[i]) {
            return true;
        }
    }
    return false;
}

typedef struct roles {
    const char *past, *seq;
    const char *total[MAX_SYMS];
    size_t n_total;
    const char *seq_input; /* its elements are the tokens of a step */
    int64_t n_kv;
} roles;

static bool is_kv(const fl_report_input *in) {
    return in->rank >= 3 && (has(in->name, "past") || has(in->name, "cache"));
}

/* A dim that is one free symbol of r (the symbol's own string). */
static const char *sym_dim(const fl_report *r, const fl_quantity *q) {
    for (size_t i = 0; !q->known && i < r->n_symbols; i++) {
        if (strcmp(q->text, r->symbols[i]) == 0) {
            return r->symbols[i];
        }
    }
    return NULL;
}

static void find_roles(const fl_report *r, roles *x) {
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (is_kv(in)) {
            x->n_kv++;
            if (!x->past) {
                x->past = sym_dim(r, &in->dims[in->rank - 2]);
            }
        }
    }
    for (size_t i = 0; i < r->n_symbols; i++) {
        const char *s = r->symbols[i];
        if (s == x->past) {
            continue;
        }
        if (has(s, "total") || (has(s, "past") && has(s, "seq"))) {
            if (x->n_total < MAX_SYMS) {
                x->total[x->n_total++] = s;
            }
        } else if (!x->seq && has(s, "seq") && !has(s, "past")) {
            x->seq = s;
        }
    }
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (is_kv(in) || in->rank != 2) {
            continue;
        }
        const char *s = sym_dim(r, &in->dims[1]);
        if (s && s != x->past && (!x->seq || s == x->seq)) {
            x->seq = s;
            x->seq_input = in->name;
            break;
        }
    }
}

static bool is_total(const roles *x, const char *s) {
    for (size_t k = 0; k < x->n_total; k++) {
        if (s == x->total[k]) {
            return true;
        }
    }
    return false;
}

/* The bindings of one phase: the caller's, then past/seq/total, then 1 for
 * every other free symbol of base. */
static size_t phase_bindings(const fl_report *base, const fl_options *opt, const roles *x,
                             int64_t past, int64_t seq, fl_symbol_binding *b) {
    size_t n = 0;
    for (size_t i = 0; i < opt->n_symbols; i++) {
        b[n++] = opt->symbols[i];
    }
    for (size_t i = 0; i < base->n_symbols; i++) {
        const char *s = base->symbols[i];
        b[n].name = s;
        b[n++].value = s == x->past ? past : s == x->seq ? seq : is_total(x, s) ? past + seq : 1;
    }
    return n;
}

static size_t dtype_size(const char *dt) {
    static const struct {
        const char *name;
        size_t size;
    } t[] = {{"float", 4}, {"float16", 2}, {"bfloat16", 2}, {"double", 8}, {"int8", 1},
             {"uint8", 1}, {"int16", 2},   {"uint16", 2},   {"int32", 4},  {"uint32", 4},
             {"int64", 8}, {"uint64", 8},  {"bool", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(dt, t[i].name) == 0) {
            return t[i].size;
        }
    }
    return 0;
}

/* Elements of input `name` (all dims known), or -1. */
static int64_t input_elems(const fl_report *r, const char *name, size_t *bytes_each) {
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (strcmp(in->name, name) != 0 || in->rank < 0) {
            continue;
        }
        int64_t e = 1;
        for (int k = 0; k < in->rank; k++) {
            if (!in->dims[k].known || in->dims[k].value < 0 ||
                (in->dims[k].value && e > INT64_MAX / in->dims[k].value)) {
                return -1;
            }
            e *= in->dims[k].value;
        }
        *bytes_each = dtype_size(in->dtype);
        return e;
    }
    return -1;
}

static double per(int64_t v, int64_t tokens) {
    return tokens > 0 ? (double)v / (double)tokens : 0.0;
}

/* The bound of a whole estimate: its largest share of time. */
static const char *graph_bound(const fl_roofline_graph *g) {
    if (!(g->time_s > 0)) {
        return "none";
    }
    return g->compute_s >= g->memory_s && g->compute_s >= g->overhead_s ? "compute"
           : g->memory_s >= g->overhead_s                               ? "memory"
                                                                        : "overhead";
}

/* The phase's times from its report r (after the passes with `after`) into
 * slot `decode` of each entry of rl (one per profile, r->n_roofline). */
static void phase_times(const fl_report *r, const fl_llm_phase *p, bool decode, bool after,
                        fl_llm_roofline *rl) {
    for (size_t i = 0; rl && i < r->n_roofline; i++) {
        const fl_roofline_graph *g = after ? r->roofline[i].after : r->roofline[i].before;
        fl_llm_time *t = decode ? &rl[i].decode : &rl[i].prefill;
        if (!g) {
            continue;
        }
        t->time_s = g->time_s;
        t->time_per_token_s = p->tokens > 0 ? g->time_s / (double)p->tokens : 0.0;
        t->bound = graph_bound(g);
        rl[i].calibrated = g->calibrated;
    }
}

/* The phase's figures from its report r: the totals t (r's own, or after
 * the passes). */
static void phase_fill(const fl_report *r, const fl_totals *t, const roles *x, bool decode,
                       fl_llm_phase *p) {
    size_t es = 0;
    int64_t elems = x->seq_input ? input_elems(r, x->seq_input, &es) : -1;
    int64_t tokens = elems > 0 ? elems : p->seq;
    p->tokens = decode && p->seq > 0 ? tokens / p->seq : tokens;
    p->flops = t->flops.value;
    p->macs = t->macs.value;
    p->int_ops = t->int_ops.known ? t->int_ops.value : 0;
    p->bytes = t->bytes.value;
    p->kv_bytes = 0;
    for (size_t i = 0; i < r->n_inputs; i++) {
        int64_t e = is_kv(&r->inputs[i]) ? input_elems(r, r->inputs[i].name, &es) : -1;
        p->kv_bytes += e > 0 ? e * (int64_t)es : 0;
    }
    p->flops_per_token = per(p->flops, p->tokens);
    p->macs_per_token = per(p->macs, p->tokens);
    p->bytes_per_token = per(p->bytes, p->tokens);
    p->intensity = p->bytes > 0 ? (double)p->flops / (double)p->bytes : 0.0;
}

static bool totals_known(const fl_totals *t) {
    return t->flops.known && t->macs.known && t->bytes.known;
}

/* Where one phase's figures go: before the passes, and after them (pa and
 * rla NULL without passes). */
typedef struct phase_out {
    fl_llm_phase *p, *pa;
    fl_llm_roofline *rl, *rla;
} phase_out;

/* Analyses one phase (with the caller's passes); on failure writes why into
 * err and returns false (*phase_st the phase's status: FL_ECANCELED when the
 * caller's should_stop ended it, FL_ENOMEM when memory ran out). */
static bool run_phase(const void *bytes, size_t len, const fl_options *opt, const fl_report *base,
                      const roles *x, bool decode, const phase_out *out, char *err, size_t err_size,
                      fl_status *phase_st) {
    fl_symbol_binding b[MAX_SYMS * 2];
    if (opt->n_symbols + base->n_symbols > sizeof b / sizeof b[0]) {
        snprintf(err, err_size, "more than %zu symbols", sizeof b / sizeof b[0]);
        return false;
    }
    fl_llm_phase *p = out->p;
    fl_options o = *opt;
    o.symbols = b;
    o.n_symbols = phase_bindings(base, opt, x, p->past, p->seq, b);
    o.per_node = false;
    o.passes = out->pa ? opt->passes : NULL;
    o.return_graph = false;
    o.llm = false;
    o.progress = NULL; /* the view's phases report nothing (fl_options.progress) */
    fl_report *r = NULL;
    fl_status st = fl_analyze(bytes, len, &o, &r);
    bool ok = st == FL_OK;
    /* The caller's max_memory_bytes reached is a limit of this view, as
     * max_nodes is: the view is left out with a warning saying why. */
    *phase_st = st == FL_ENOMEM && fl__report_over_limit(r) ? FL_ELIMIT : st;
    if (!ok) {
        snprintf(err, err_size, "%s", r && r->error ? r->error : fl_status_str(st));
    } else if (!totals_known(&r->totals) || (out->pa && !totals_known(&r->after))) {
        snprintf(err, err_size, "its totals are not numbers (FLOPs %s)",
                 totals_known(&r->totals) ? r->after.flops.text : r->totals.flops.text);
        ok = false;
    } else if (!r->complete) {
        /* lower bounds are not a phase's cost per token */
        snprintf(err, err_size,
                 "the answer is partial (the totals leave %lld node(s) out; analyse with "
                 "these bindings to see why)",
                 (long long)r->nodes_excluded);
        ok = false;
    } else {
        phase_fill(r, &r->totals, x, decode, p);
        phase_times(r, p, decode, false, out->rl);
        if (out->pa) {
            out->pa->past = p->past;
            out->pa->seq = p->seq;
            phase_fill(r, &r->after, x, decode, out->pa);
            phase_times(r, out->pa, decode, true, out->rla);
        }
    }
    fl_report_free(r);
    return ok;
}

/* Appends one warning to the report's list. */
static void add_warning(fl_arena *ra, fl_report *r, const char *w) {
    const char **v = fl__arena_calloc(ra, r->n_warnings + 1, sizeof *v);
    if (!v) {
        return;
    }
    for (size_t i = 0; i < r->n_warnings; i++) {
        v[i] = r->warnings[i];
    }
    v[r->n_warnings] = fl__arena_strdup(ra, w);
    r->warnings = v;
    r->n_warnings++;
}

/* The symbols of base with no role, in order. */
static void other_symbols(fl_arena *ra, const fl_report *base, const roles *x, fl_report_llm *v) {
    const char **o = fl__arena_calloc(ra, base->n_symbols + 1, sizeof *o);
    const char **t = fl__arena_calloc(ra, x->n_total + 1, sizeof *t);
    if (!o || !t) {
        return;
    }
    for (size_t i = 0; i < base->n_symbols; i++) {
        const char *s = base->symbols[i];
        if (s != x->seq && s != x->past && !is_total(x, s)) {
            o[v->n_other_symbols++] = s;
        }
    }
    for (size_t i = 0; i < x->n_total; i++) {
        t[i] = x->total[i];
    }
    v->other_symbols = o;
    v->total_symbols = t;
    v->n_total_symbols = x->n_total;
}

static bool is_decoder(const roles *x) {
    return x->seq && !(x->n_kv && !x->past);
}

bool fl__llm_applies(const fl_report *r) {
    roles x;
    find_roles(r, &x);
    return is_decoder(&x);
}

/* Per-profile entries, named (their times filled by the phases); NULL
 * without profiles. */
static fl_llm_roofline *roofline_new(const fl_options *opt, fl_arena *ra) {
    if (!opt->n_profiles) {
        return NULL;
    }
    fl_llm_roofline *rl = fl__arena_calloc(ra, opt->n_profiles, sizeof *rl);
    for (size_t i = 0; rl && i < opt->n_profiles; i++) {
        rl[i].profile = fl__arena_strdup(ra, opt->profiles[i]->name);
        rl[i].prefill.bound = rl[i].decode.bound = "none";
    }
    return rl;
}

/* The view's entries: v's roofline, and v->after when the passes ran on the
 * graph as given (`optimized`). */
static fl_status view_new(const fl_options *opt, bool optimized, fl_arena *ra, fl_report_llm *v,
                          fl_llm_after **after) {
    fl_llm_roofline *rl = roofline_new(opt, ra);
    v->roofline = rl;
    v->n_roofline = rl ? opt->n_profiles : 0;
    *after = NULL;
    if (optimized) {
        *after = fl__arena_zalloc(ra, sizeof **after);
        if (*after) {
            (*after)->roofline = roofline_new(opt, ra);
            (*after)->n_roofline = (*after)->roofline ? opt->n_profiles : 0;
        }
    }
    return ra->failed ? FL_ENOMEM : FL_OK;
}

/* The symbols of r, comma-separated, into buf. */
static void symbol_list(const fl_report *r, char *buf, size_t size) {
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n_symbols && o + 1 < size; i++) {
        int w = snprintf(buf + o, size - o, "%s%s", i ? ", " : "", r->symbols[i]);
        o += w > 0 ? (size_t)w : 0;
    }
}

static fl_status view(const void *bytes, size_t len, const fl_options *opt, fl_arena *ra,
                      fl_report *r) {
    roles x;
    find_roles(r, &x);
    if (!is_decoder(&x)) {
        return FL_OK; /* not a decoder as far as the names tell */
    }
    fl_report_llm *v = fl__arena_zalloc(ra, sizeof *v);
    fl_llm_after *after = NULL;
    if (!v || view_new(opt, r->optimized, ra, v, &after) != FL_OK) {
        return FL_ENOMEM;
    }
    fl_llm_roofline *rl = (fl_llm_roofline *)v->roofline;
    fl_llm_roofline *rla = after ? (fl_llm_roofline *)after->roofline : NULL;
    phase_out pre = {&v->prefill, after ? &after->prefill : NULL, rl, rla};
    phase_out dec = {&v->decode, after ? &after->decode : NULL, rl, rla};
    v->prompt = opt->llm_prompt ? opt->llm_prompt : 128;
    v->context = opt->llm_context ? opt->llm_context : 1024;
    v->seq_symbol = x.seq;
    v->past_symbol = x.past;
    v->token_input = x.seq_input;
    v->kv_inputs = x.n_kv;
    other_symbols(ra, r, &x, v);
    v->prefill.seq = v->prompt;
    v->decode.past = x.n_kv ? v->context - 1 : 0;
    v->decode.seq = x.n_kv ? 1 : v->context;
    char err[1024];
    const char *failed = NULL;
    fl_status pst = FL_OK;
    if (!run_phase(bytes, len, opt, r, &x, false, &pre, err, sizeof err, &pst)) {
        failed = "prefill";
    } else if (!run_phase(bytes, len, opt, r, &x, true, &dec, err, sizeof err, &pst)) {
        failed = "decode";
    }
    if (pst == FL_ECANCELED) {
        return FL_ECANCELED;
    }
    if (pst == FL_ENOMEM) {
        /* Out of memory is no reason to leave the view out: as in a pass,
         * it fails the analysis (a report without it would look whole). */
        r->error =
            fl__arena_printf(ra, "out of memory in the LLM view's %s phase: %s", failed, err);
        return FL_ENOMEM;
    }
    bool deferred = opt->n_profiles && r->n_symbols; /* fl_analyze left its estimate out */
    char list[512];
    symbol_list(r, list, sizeof list);
    if (failed && deferred) { /* no estimate at all: the roofline's usage error */
        const char *e = fl__arena_printf(ra,
                                         "a roofline estimate needs every symbol bound; unbound: "
                                         "%s (the LLM view, which estimates each phase, failed in "
                                         "its %s phase: %s)",
                                         list, failed, err);
        r->error = e ? e : "a roofline estimate needs every symbol bound";
        return FL_EUSAGE;
    }
    if (failed) {
        const fl_llm_phase *p = failed[0] == 'p' ? &v->prefill : &v->decode;
        char *w = fl__arena_printf(
            ra, "LLM view left out: its %s phase (%s=%" PRId64 ", %s=%" PRId64 ") failed: %s",
            failed, x.seq, p->seq, x.past ? x.past : "past", p->past, err);
        add_warning(ra, r, w ? w : "LLM view left out");
        return ra->failed ? FL_ENOMEM : FL_OK;
    }
    if (deferred) {
        char *w = fl__arena_printf(ra,
                                   "no roofline estimate of the graph as given: its symbols %s "
                                   "are free; the LLM view estimates each phase (bind every "
                                   "symbol for the whole graph's)",
                                   list);
        add_warning(ra, r, w ? w : "no roofline estimate of the graph as given");
    }
    if (x.n_kv) {
        v->kv_bytes_per_token = (double)v->decode.kv_bytes / (double)(v->context - 1);
        v->kv_bytes_at_context = v->kv_bytes_per_token * (double)v->context;
    }
    v->after = after;
    r->llm = v;
    return ra->failed ? FL_ENOMEM : FL_OK;
}

fl_status fl__llm_view(const void *bytes, size_t len, const fl_options *opt, fl_arena *ra,
                       fl_report *r) {
    fl_status st = view(bytes, len, opt, ra, r);
    if (st != FL_OK && !r->error) { /* the error only, as any failure */
        r->error = st == FL_ENOMEM ? "out of memory" : fl_status_str(st);
    }
    return st;
}
