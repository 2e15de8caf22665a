/*
 * diff.c - `foldline diff BASE NEW [analyze options] [--fail-on METRIC:+N%]...
 * [--json]`: totals and per-op-type deltas, estimated time per profile,
 * nodes added and removed by name; exit 1 when a --fail-on threshold is
 * exceeded.
 *
 * Both models are analysed with the same options. A --bind applies to the
 * models that have the symbol (a GraphDef's `input.0` and the same model's
 * ONNX `N` can both be bound on one command line); a --bind neither model
 * has is a usage error.
 */
#include "diff.h"

#include "analysis.h"
#include "cli.h"
#include "diffout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parses "+N%", "N%", "-N%", "+N" or "N" into t. */
static bool parse_threshold(const char *s, fl_diff_threshold *t) {
    t->shrink = *s == '-';
    if (*s == '+' || *s == '-') {
        s++;
    }
    char *end;
    errno = 0;
    t->amount = strtod(s, &end);
    if (errno || end == s || t->amount < 0 || !isfinite(t->amount)) {
        return false;
    }
    t->percent = *end == '%';
    return *(end + t->percent) == '\0';
}

/* The LLM view's metrics: "kv_bytes_per_token", "prefill." or "decode."
 * followed by flops_per_token, macs_per_token, bytes_per_token or
 * time_per_token[@PROFILE]. Sets *phase (0 prefill, 1 decode, -1 KV) and
 * *what (after the phase's dot). */
static bool llm_metric(const char *name, int *phase, const char **what) {
    if (strcmp(name, "kv_bytes_per_token") == 0) {
        *phase = -1;
        *what = name;
        return true;
    }
    *phase = strncmp(name, "prefill.", 8) == 0 ? 0 : strncmp(name, "decode.", 7) == 0 ? 1 : -2;
    if (*phase < 0) {
        return false;
    }
    *what = name + (*phase ? 7 : 8);
    if (strncmp(*what, "time_per_token", 14) == 0) {
        return (*what)[14] == '\0' || ((*what)[14] == '@' && (*what)[15] != '\0');
    }
    return strcmp(*what, "flops_per_token") == 0 || strcmp(*what, "macs_per_token") == 0 ||
           strcmp(*what, "bytes_per_token") == 0;
}

/* Whether `name` is a metric (the profile of time@NAME is checked later). */
static bool is_metric_name(const char *name) {
    int phase;
    const char *what;
    if (llm_metric(name, &phase, &what)) {
        return true;
    }
    if (strncmp(name, "after.", 6) == 0 && llm_metric(name + 6, &phase, &what)) {
        return phase >= 0; /* the passes leave the KV cache as it is */
    }
    static const char *const names[] = {"flops",         "macs",   "int_ops", "bytes", "bytes_read",
                                        "bytes_written", "params", "nodes",   "time"};
    if (strncmp(name, "after.", 6) == 0) {
        name += 6;
    }
    if (strncmp(name, "time@", 5) == 0) {
        return name[5] != '\0';
    }
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(name, names[k]) == 0) {
            return true;
        }
    }
    return false;
}

/* --fail-on METRIC:THRESHOLD. */
static int parse_fail_on(fl_diff_args *d, char *arg) {
    char *colon = strrchr(arg, ':');
    if (!colon || colon == arg) {
        return fl_cli_usage_error("--fail-on expects METRIC:+N%% (e.g. flops:+5%%), got '%s'", arg);
    }
    *colon = '\0';
    fl_diff_threshold *t = &d->fails[d->n_fails];
    t->metric = arg;
    t->spec = colon + 1;
    if (!is_metric_name(arg)) {
        return fl_cli_usage_error(
            "--fail-on: unknown metric '%s' (the metrics: " FL_DIFF_METRICS ")", arg);
    }
    if (!parse_threshold(colon + 1, t)) {
        return fl_cli_usage_error("--fail-on %s: '%s' is not a threshold (+N%%, -N%% or +N)", arg,
                                  colon + 1);
    }
    d->n_fails++;
    return 0;
}

/* diff's own options; the rest are analyze's, kept in order for both models. */
static int parse_diff_args(fl_diff_args *d, int argc, char **argv) {
    if (argc < 2 || argv[0][0] == '-' || argv[1][0] == '-') {
        return fl_cli_usage_error("%s", "diff needs BASE and NEW first: foldline diff BASE NEW "
                                        "[analyze options] [--fail-on METRIC:+N%] [--json]");
    }
    d->base = argv[0];
    d->new_model = argv[1];
    d->opts = calloc((size_t)argc, sizeof(char *));
    d->binds = calloc((size_t)argc, sizeof(char *));
    d->fails = calloc((size_t)argc, sizeof(fl_diff_threshold));
    if (!d->opts || !d->binds || !d->fails) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool valued = strcmp(a, "--fail-on") == 0 || strcmp(a, "--bind") == 0;
        if (valued && i + 1 >= argc) {
            return fl_cli_usage_error("option %s needs a value", a);
        }
        int rc = 0;
        if (strcmp(a, "--fail-on") == 0) {
            rc = parse_fail_on(d, argv[++i]);
        } else if (strcmp(a, "--bind") == 0) {
            d->binds[d->n_binds++] = argv[++i];
            if (!strchr(argv[i], '=') || argv[i][0] == '=') {
                rc = fl_cli_usage_error("--bind expects SYMBOL=N, got '%s'", argv[i]);
            }
        } else if (strcmp(a, "--json") == 0) {
            d->json = true;
        } else if (strcmp(a, "--sweep") == 0 || strcmp(a, "--summary") == 0 ||
                   strcmp(a, "--per-node") == 0 || strcmp(a, "--require-complete") == 0 ||
                   strcmp(a, "-o") == 0) {
            rc = fl_cli_usage_error("diff takes no %s (see foldline help diff)", a);
        } else {
            d->opts[d->n_opts++] = argv[i];
        }
        if (rc) {
            return rc;
        }
    }
    return 0;
}

/* The argument vector of one model's analysis: MODEL, analyze's options,
 * the bindings `keep` selects (all when NULL), extra arguments. */
static char **side_argv(const fl_diff_args *d, const char *model, const bool *keep,
                        const char *const *extra, int n_extra, int *argc) {
    char **v = calloc((size_t)(d->n_opts + 2 * d->n_binds + n_extra + 2), sizeof(char *));
    if (!v) {
        return NULL;
    }
    int n = 0;
    v[n++] = (char *)model;
    for (int i = 0; i < d->n_opts; i++) {
        v[n++] = d->opts[i];
    }
    for (int i = 0; i < d->n_binds; i++) {
        if (!keep || keep[i]) {
            v[n++] = "--bind";
            v[n++] = d->binds[i];
        }
    }
    for (int i = 0; i < n_extra; i++) {
        v[n++] = (char *)extra[i];
    }
    *argc = n;
    return v;
}

/* Whether binding "SYM=N" names one of the report's symbols. */
static bool has_symbol(const fl_report *r, const char *binding) {
    size_t len = strcspn(binding, "=");
    for (size_t k = 0; k < r->n_symbols; k++) {
        if (strlen(r->symbols[k]) == len && strncmp(r->symbols[k], binding, len) == 0) {
            return true;
        }
    }
    return false;
}

/* The analyze options without --profile and --profiles-dir (a probe needs
 * no estimate, and estimates need every symbol bound). */
static fl_diff_args probe_args(const fl_diff_args *d, char **buf) {
    fl_diff_args p = *d;
    p.opts = buf;
    p.n_opts = 0;
    for (int i = 0; i < d->n_opts; i++) {
        if ((strcmp(d->opts[i], "--profile") == 0 || strcmp(d->opts[i], "--profiles-dir") == 0) &&
            i + 1 < d->n_opts) {
            i++;
            continue;
        }
        buf[p.n_opts++] = d->opts[i];
    }
    return p;
}

/* Which --bind arguments apply to `model`: those naming one of its symbols
 * (found by analysing it without bindings or passes). */
static int probe_symbols(const fl_diff_args *d, const char *model, bool *keep) {
    char **buf = calloc((size_t)d->n_opts + 1, sizeof(char *));
    if (!buf) {
        return EXIT_IO;
    }
    fl_diff_args p = probe_args(d, buf);
    p.n_binds = 0;
    static const char *const extra[] = {"--passes", "none", "--no-llm"};
    int argc = 0;
    char **argv = side_argv(&p, model, NULL, extra, 3, &argc);
    int rc = argv ? 0 : EXIT_IO;
    if (argv) {
        fl_cli_analysis *a = NULL;
        rc = fl_cli_analysis_run(argc, argv, &a);
        for (int i = 0; rc == 0 && i < d->n_binds; i++) {
            keep[i] = has_symbol(fl_cli_analysis_report(a), d->binds[i]);
        }
        fl_cli_analysis_free(a);
    }
    free(argv);
    free(buf);
    return rc;
}

/* Analyses one side with the bindings it has. */
static int analyse_side(const fl_diff_args *d, const char *model, const bool *keep,
                        fl_cli_analysis **out) {
    static const char *const extra[] = {"--per-node"};
    int argc = 0;
    char **argv = side_argv(d, model, keep, extra, 1, &argc);
    if (!argv) {
        return EXIT_IO;
    }
    int rc = fl_cli_analysis_run(argc, argv, out);
    free(argv);
    return rc;
}

/* Both analyses, the bindings split between them. */
static int analyse_both(const fl_diff_args *d, fl_cli_analysis **a, fl_cli_analysis **b) {
    bool *keep_a = calloc((size_t)d->n_binds + 1, sizeof(bool));
    bool *keep_b = calloc((size_t)d->n_binds + 1, sizeof(bool));
    int rc = keep_a && keep_b ? 0 : EXIT_IO;
    if (rc == 0 && d->n_binds) {
        rc = probe_symbols(d, d->base, keep_a);
        if (rc == 0) {
            rc = probe_symbols(d, d->new_model, keep_b);
        }
        for (int i = 0; rc == 0 && i < d->n_binds; i++) {
            if (!keep_a[i] && !keep_b[i]) {
                rc = fl_cli_usage_error("--bind %s: neither model has the symbol (see the "
                                        "symbols of foldline analyze BASE and NEW)",
                                        d->binds[i]);
            }
        }
    }
    if (rc == 0) {
        rc = analyse_side(d, d->base, d->n_binds ? keep_a : NULL, a);
    }
    if (rc == 0) {
        rc = analyse_side(d, d->new_model, d->n_binds ? keep_b : NULL, b);
    }
    free(keep_a);
    free(keep_b);
    return rc;
}

static fl_diff_value quantity_value(const fl_quantity *q) {
    fl_diff_value v = {true, q->known, (double)q->value, q->text};
    return v;
}

static fl_diff_value number_value(double x) {
    fl_diff_value v = {true, true, x, NULL};
    return v;
}

/* An LLM metric of r's view (llm_metric's phase and what; `after` the
 * passes); false when the view has no such profile. No view (or no view
 * after the passes): not present. */
static bool llm_value(const fl_report *r, bool after, int phase, const char *what,
                      fl_diff_value *out) {
    const fl_report_llm *v = r->llm;
    if (!v || (after && (!v->after || phase < 0))) {
        return true;
    }
    const fl_llm_phase *p = after   ? (phase ? &v->after->decode : &v->after->prefill)
                            : phase ? &v->decode
                                    : &v->prefill;
    const fl_llm_roofline *rl = after ? v->after->roofline : v->roofline;
    size_t n_rl = after ? v->after->n_roofline : v->n_roofline;
    if (phase < 0) {
        *out = number_value(v->kv_bytes_per_token);
    } else if (strcmp(what, "flops_per_token") == 0) {
        *out = number_value(p->flops_per_token);
    } else if (strcmp(what, "macs_per_token") == 0) {
        *out = number_value(p->macs_per_token);
    } else if (strcmp(what, "bytes_per_token") == 0) {
        *out = number_value(p->bytes_per_token);
    } else {
        const char *profile = what[14] == '@' ? what + 15 : NULL;
        for (size_t i = 0; i < n_rl; i++) {
            if (!profile || strcmp(rl[i].profile, profile) == 0) {
                const fl_llm_time *t = phase ? &rl[i].decode : &rl[i].prefill;
                *out = number_value(t->time_per_token_s);
                return true;
            }
        }
        return false;
    }
    return true;
}

/* time@NAME or time (the first profile) of one graph (before or after). */
static bool time_value(const fl_report *r, const char *profile, bool after, fl_diff_value *out) {
    for (size_t i = 0; i < r->n_roofline; i++) {
        const fl_roofline_result *rr = &r->roofline[i];
        if (!profile || strcmp(rr->profile, profile) == 0) {
            const fl_roofline_graph *g = after ? rr->after : rr->before;
            *out = g ? number_value(g->time_s) : (fl_diff_value){0};
            return true;
        }
    }
    return false;
}

bool fl_diff_metric(const fl_report *r, const char *metric, fl_diff_value *out) {
    bool after = strncmp(metric, "after.", 6) == 0;
    const char *m = after ? metric + 6 : metric;
    const fl_totals *t = after ? &r->after : &r->totals;
    memset(out, 0, sizeof *out);
    int phase;
    const char *what;
    if (llm_metric(m, &phase, &what)) {
        return llm_value(r, after, phase, what, out);
    }
    if (strncmp(m, "time@", 5) == 0 || strcmp(m, "time") == 0) {
        return time_value(r, m[4] ? m + 5 : NULL, after, out);
    }
    if (after && !r->optimized) {
        return is_metric_name(metric);
    }
    if (strcmp(m, "flops") == 0) {
        *out = quantity_value(&t->flops);
    } else if (strcmp(m, "macs") == 0) {
        *out = quantity_value(&t->macs);
    } else if (strcmp(m, "int_ops") == 0) {
        *out = quantity_value(&t->int_ops);
    } else if (strcmp(m, "bytes") == 0) {
        *out = quantity_value(&t->bytes);
    } else if (strcmp(m, "bytes_read") == 0) {
        *out = quantity_value(&t->bytes_read);
    } else if (strcmp(m, "bytes_written") == 0) {
        *out = quantity_value(&t->bytes_written);
    } else if (strcmp(m, "nodes") == 0) {
        *out = number_value((double)t->nodes);
    } else if (strcmp(m, "params") == 0) {
        *out = after ? (fl_diff_value){0} : number_value((double)r->params);
    } else {
        return false;
    }
    return true;
}

/* Checks one threshold against one metric; false with a usage error
 * printed when it cannot be checked (symbolic, no such profile). */
static int check_one(const fl_report *a, const fl_report *b, const char *metric,
                     fl_diff_threshold *t, fl_diff_check *out) {
    fl_diff_value va, vb;
    int phase;
    const char *what;
    const char *lm = strncmp(metric, "after.", 6) == 0 ? metric + 6 : metric;
    if (llm_metric(lm, &phase, &what) && (!a->llm || !b->llm)) {
        return fl_cli_usage_error("--fail-on %s: %s has no LLM view (a decoder with a KV cache or "
                                  "a sequence symbol, without --no-llm)",
                                  metric, !a->llm ? "BASE" : "NEW");
    }
    if (!fl_diff_metric(a, metric, &va) || !fl_diff_metric(b, metric, &vb)) {
        return fl_cli_usage_error("--fail-on %s: no such profile among the estimates (give it "
                                  "with --profile)",
                                  metric);
    }
    if (!va.present || !vb.present) {
        return fl_cli_usage_error("--fail-on %s: the reports have no such value (after.* needs "
                                  "the rewrite passes; after.params is not a metric)",
                                  metric);
    }
    if (!va.known || !vb.known) {
        return fl_cli_usage_error("--fail-on %s: the value is symbolic (%s); bind the symbols "
                                  "with --bind SYM=N",
                                  metric, !va.known ? va.text : vb.text);
    }
    out->threshold = t;
    out->metric = metric;
    out->base = va.v;
    out->new_value = vb.v;
    double delta = vb.v - va.v;
    double pct = va.v != 0 ? delta / fabs(va.v) * 100.0 : (delta == 0 ? 0 : INFINITY);
    double moved = t->percent ? pct : delta;
    out->exceeded = t->shrink ? -moved > t->amount : moved > t->amount;
    return 0;
}

/* A model whose whole-graph estimate was left out: profiles were given, but
 * its symbols are free and the LLM view estimated each phase instead. */
static bool time_deferred(const fl_report *r) {
    return r->n_roofline == 0 && r->llm && r->llm->n_roofline > 0;
}

/* The usage error of a time gate on such a model, naming its free symbols. */
static int time_deferred_error(const char *metric, const char *side, const fl_report *r) {
    char list[512];
    size_t o = 0;
    list[0] = '\0';
    for (size_t i = 0; i < r->n_symbols && o + 1 < sizeof list; i++) {
        int w = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", r->symbols[i]);
        o += w > 0 ? (size_t)w : 0;
    }
    return fl_cli_usage_error("--fail-on %s: %s has no whole-graph time estimate: its symbols %s "
                              "are free and a time needs every symbol bound; bind them with --bind "
                              "SYM=N, or gate the LLM view's prefill.time_per_token or "
                              "decode.time_per_token (each phase estimated at its bindings)",
                              metric, side, list);
}

/* Evaluates every --fail-on (time: once per profile). */
static int check_thresholds(fl_diff_args *d, const fl_report *a, const fl_report *b,
                            fl_diff_result *res) {
    size_t np = a->n_roofline + (a->llm ? a->llm->n_roofline : 0);
    res->checks = calloc(d->n_fails * (np + 1) + 1, sizeof(fl_diff_check));
    if (!res->checks) {
        return EXIT_IO;
    }
    for (size_t i = 0; i < d->n_fails; i++) {
        fl_diff_threshold *t = &d->fails[i];
        const char *m = strncmp(t->metric, "after.", 6) == 0 ? t->metric + 6 : t->metric;
        int phase;
        const char *what;
        /* time and PHASE.time_per_token: once per profile */
        bool per_token = llm_metric(m, &phase, &what) && strcmp(what, "time_per_token") == 0;
        size_t n_prof = per_token ? (a->llm ? a->llm->n_roofline : 0) : a->n_roofline;
        bool each = strcmp(m, "time") == 0 || per_token;
        bool whole_time = strcmp(m, "time") == 0 || strncmp(m, "time@", 5) == 0;
        if (whole_time && (time_deferred(a) || time_deferred(b))) {
            return time_deferred_error(t->metric, time_deferred(a) ? "BASE" : "NEW",
                                       time_deferred(a) ? a : b);
        }
        if (each && n_prof == 0 && (!per_token || a->llm)) {
            return fl_cli_usage_error("--fail-on %s needs estimates: add --profile NAME",
                                      t->metric);
        }
        size_t n = each && n_prof ? n_prof : 1;
        for (size_t k = 0; k < n; k++) {
            fl_diff_check *c = &res->checks[res->n_checks];
            const char *metric = t->metric;
            if (each && n_prof) {
                const char *pn = per_token ? a->llm->roofline[k].profile : a->roofline[k].profile;
                c->owned_metric = malloc(strlen(t->metric) + strlen(pn) + 2);
                if (!c->owned_metric) {
                    return EXIT_IO;
                }
                sprintf(c->owned_metric, "%s@%s", t->metric, pn);
                metric = c->owned_metric;
            }
            int rc = check_one(a, b, metric, t, c);
            if (rc) {
                return rc;
            }
            res->exceeded |= c->exceeded;
            res->n_checks++;
        }
    }
    return 0;
}

int fl_cmd_diff(int argc, char **argv) {
    fl_diff_args d = {0};
    fl_diff_result res = {0};
    fl_cli_analysis *a = NULL, *b = NULL;
    int rc = parse_diff_args(&d, argc, argv);
    if (rc == 0) {
        rc = analyse_both(&d, &a, &b);
    }
    if (rc == 0) {
        rc = check_thresholds(&d, fl_cli_analysis_report(a), fl_cli_analysis_report(b), &res);
    }
    if (rc == 0) {
        res.base_path = d.base;
        res.new_path = d.new_model;
        rc = fl_diff_print(stdout, &res, fl_cli_analysis_report(a), fl_cli_analysis_report(b),
                           d.json);
    }
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
        rc = EXIT_IO;
    }
    if (rc == 0 && res.exceeded) {
        rc = 1;
    }
    for (size_t i = 0; i < res.n_checks; i++) {
        free(res.checks[i].owned_metric);
    }
    free(res.checks);
    fl_cli_analysis_free(a);
    fl_cli_analysis_free(b);
    free(d.opts);
    free(d.binds);
    free(d.fails);
    return rc;
}
