/*
 * roofcli.c - the CLI's profile and roofline parts (see roofcli.h): option
 * parsing for --profile/--profiles-dir/--sweep, profile selection, the sweep
 * loop, the `profiles` command and the roofline renderings.
 */
#include "roofcli.h"

#include "cli.h"
#include "print.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef FL_DEFAULT_PROFILES_DIR
#define FL_DEFAULT_PROFILES_DIR "deploy/profiles"
#endif

static void jstr(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p, f);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* A double as JSON, exactly (%.17g round-trips); null when negative
 * (undefined, e.g. the intensity of an op that moves no bytes). */
static void jnum(FILE *f, double v) {
    if (v < 0) {
        fputs("null", f);
    } else {
        fprintf(f, "%.17g", v);
    }
}

const char *fl_roof_cli_dir(void) {
    const char *env = getenv("FOLDLINE_PROFILES_DIR");
    if (env && *env) {
        return env;
    }
    return FL_DEFAULT_PROFILES_DIR;
}

bool fl_roof_cli_is_file(const char *arg) {
    size_t n = strlen(arg);
    return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

/* ------------------------------------------------------------------------- */
/* Options                                                                    */
/* ------------------------------------------------------------------------- */

static int parse_sweep(fl_roof_cli *rc, char *arg) {
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        return fl_cli_usage_error("--sweep expects SYMBOL=V1,V2,..., got '%s'", arg);
    }
    if (rc->sweep_sym) {
        return fl_cli_usage_error("%s", "--sweep may be given once");
    }
    *eq = '\0';
    rc->sweep_sym = arg;
    rc->sweep_vals = calloc(strlen(eq + 1) + 1, sizeof(int64_t));
    if (!rc->sweep_vals) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    char *save = NULL;
    for (char *tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        long long v = strtoll(tok, &end, 10);
        if (errno || *end || !*tok || v < 0) {
            return fl_cli_usage_error("--sweep: value '%s' is not a non-negative integer", tok);
        }
        rc->sweep_vals[rc->n_sweep++] = v;
    }
    if (!rc->n_sweep) {
        return fl_cli_usage_error("--sweep expects SYMBOL=V1,V2,..., got '%s='", arg);
    }
    return 0;
}

int fl_roof_cli_option(fl_roof_cli *rc, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool is_profile = strcmp(a, "--profile") == 0, is_dir = strcmp(a, "--profiles-dir") == 0,
         is_sweep = strcmp(a, "--sweep") == 0;
    if (!is_profile && !is_dir && !is_sweep) {
        return 0;
    }
    if (*i + 1 >= argc) {
        fl_cli_usage_error("option %s needs a value", a);
        return 2;
    }
    char *val = argv[++*i];
    if (is_dir) {
        const char **nd = realloc(rc->dirs, (rc->n_dirs + 1) * sizeof(char *));
        if (!nd) {
            fl_cli_usage_error("%s", "out of memory");
            return 2;
        }
        rc->dirs = nd;
        rc->dirs[rc->n_dirs++] = val;
        return 1;
    }
    if (is_sweep) {
        return parse_sweep(rc, val) ? 2 : 1;
    }
    if (!*val) {
        fl_cli_usage_error("%s", "--profile needs a profile name or a FILE.yaml (see foldline "
                                 "profiles)");
        return 2;
    }
    const char **nn = realloc(rc->names, (rc->n_names + 1) * sizeof(char *));
    if (!nn) {
        fl_cli_usage_error("%s", "out of memory");
        return 2;
    }
    rc->names = nn;
    rc->names[rc->n_names++] = val;
    return 1;
}

static int exit_of_load(fl_status st) {
    return st == FL_EIO || st == FL_ENOMEM ? EXIT_IO : EXIT_BAD_MODEL;
}

/* The shipped profiles plus every --profiles-dir. The shipped directory may
 * be missing when other directories are given, unless $FOLDLINE_PROFILES_DIR
 * names it. */
static int load_set(fl_roof_cli *rc) {
    char err[768];
    const char *env = getenv("FOLDLINE_PROFILES_DIR");
    bool required = !rc->n_dirs || (env && *env);
    fl_status st = fl_profile_set_add_dir(&rc->set, fl_roof_cli_dir(), err, sizeof err);
    if (st != FL_OK && (st != FL_EIO || required)) {
        fprintf(stderr, "foldline: %s\n", err);
        return exit_of_load(st);
    }
    for (size_t i = 0; i < rc->n_dirs; i++) {
        if ((st = fl_profile_set_add_dir(&rc->set, rc->dirs[i], err, sizeof err)) != FL_OK) {
            fprintf(stderr, "foldline: %s\n", err);
            return exit_of_load(st);
        }
    }
    return 0;
}

/* Where names were looked up, for messages. */
static void dirs_text(const fl_roof_cli *rc, char *buf, size_t size) {
    size_t o = (size_t)snprintf(buf, size, "%s", fl_roof_cli_dir());
    for (size_t i = 0; i < rc->n_dirs && o < size; i++) {
        o += (size_t)snprintf(buf + o, size - o, ", %s", rc->dirs[i]);
    }
}

/* Loads a --profile FILE.yaml (kept in rc->files). */
static int load_file(fl_roof_cli *rc, const char *path, const fl_profile **out) {
    char err[768];
    fl_profile **nf = realloc(rc->files, (rc->n_files + 1) * sizeof(*nf));
    if (!nf) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    rc->files = nf;
    fl_profile *p = NULL;
    fl_status st = fl_profile_load(path, &p, err, sizeof err);
    if (st != FL_OK) {
        fprintf(stderr, "foldline: --profile: %s\n", err);
        return exit_of_load(st);
    }
    rc->files[rc->n_files++] = p;
    *out = p;
    return 0;
}

/* Adds p to the selection; two different profiles of one name are an error
 * naming both files (the report names results by profile). */
static int select_profile(fl_roof_cli *rc, const fl_profile *p) {
    for (size_t k = 0; k < rc->n_selected; k++) {
        const fl_profile *q = rc->selected[k];
        if (q != p && strcmp(q->name, p->name) == 0) {
            fprintf(stderr, "foldline: --profile: profile '%s' is defined in %s and in %s\n",
                    p->name, q->path, p->path);
            return EXIT_BAD_MODEL;
        }
    }
    rc->selected[rc->n_selected++] = p;
    return 0;
}

int fl_roof_cli_prepare(fl_roof_cli *rc, fl_options *opt) {
    if (!rc->n_names) {
        return 0;
    }
    bool need_set = false;
    for (size_t i = 0; i < rc->n_names; i++) {
        need_set |= !fl_roof_cli_is_file(rc->names[i]);
    }
    int e = need_set ? load_set(rc) : 0;
    if (e) {
        return e;
    }
    size_t cap = rc->n_names * (rc->set.n + 1);
    rc->selected = calloc(cap + 1, sizeof(*rc->selected));
    if (!rc->selected) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    for (size_t i = 0; i < rc->n_names && !e; i++) {
        const char *nm = rc->names[i];
        if (strcmp(nm, "all") == 0) {
            for (size_t k = 0; k < rc->set.n && !e; k++) {
                e = select_profile(rc, rc->set.profiles[k]);
            }
            continue;
        }
        const fl_profile *p = NULL;
        if (fl_roof_cli_is_file(nm)) {
            e = load_file(rc, nm, &p);
        } else if (!(p = fl_profile_set_find(&rc->set, nm))) {
            char where[1024];
            dirs_text(rc, where, sizeof where);
            fprintf(stderr,
                    "foldline: --profile: no profile named '%s' in %s (see foldline profiles; a "
                    "profile file is given by its path, e.g. --profile ./%s.yaml)\n",
                    nm, where, nm);
            return EXIT_USAGE;
        }
        if (!e) {
            e = select_profile(rc, p);
        }
    }
    if (e) {
        return e;
    }
    opt->profiles = rc->selected;
    opt->n_profiles = rc->n_selected;
    return 0;
}

int fl_roof_cli_check_remote(const fl_roof_cli *rc) {
    for (size_t i = 0; i < rc->n_names; i++) {
        if (fl_roof_cli_is_file(rc->names[i])) {
            return fl_cli_usage_error("--profile %s: a profile file is used in-process only; with "
                                      "--server, name one of the server's profiles (foldline "
                                      "--server HOST:PORT profiles)",
                                      rc->names[i]);
        }
    }
    return 0;
}

void fl_roof_cli_free(fl_roof_cli *rc) {
    free(rc->names);
    free(rc->dirs);
    for (size_t i = 0; i < rc->n_files; i++) {
        fl_profile_free(rc->files[i]);
    }
    free(rc->files);
    free(rc->sweep_vals);
    free(rc->selected);
    fl_profile_set_free(&rc->set);
    memset(rc, 0, sizeof(*rc));
}

/* ------------------------------------------------------------------------- */
/* Renderings                                                                 */
/* ------------------------------------------------------------------------- */

/* "12.3 us"-style time. */
static const char *fmt_time(double s, char *buf, size_t size) {
    if (s <= 0) {
        snprintf(buf, size, "0 s");
    } else if (s >= 1) {
        snprintf(buf, size, "%.3g s", s);
    } else if (s >= 1e-3) {
        snprintf(buf, size, "%.3g ms", s * 1e3);
    } else if (s >= 1e-6) {
        snprintf(buf, size, "%.3g us", s * 1e6);
    } else {
        snprintf(buf, size, "%.3g ns", s * 1e9);
    }
    return buf;
}

const char *fl_roof_cli_fmt_time(double s, char *buf, size_t size) {
    return fmt_time(s, buf, size);
}

static const char *fmt_rate(double v, const char *unit, char *buf, size_t size) {
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (v >= 1000.0 && i < 5) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, size, "%.4g %s%s", v, pre[i], unit);
    return buf;
}

static double pct(double a, double b) {
    return b > 0 ? 100.0 * a / b : 0.0;
}

static void print_graph_text(FILE *f, const fl_roofline_graph *g, size_t top) {
    char b1[32], b2[32], b3[32], b4[32];
    if (g->calibrated && g->coverage > 0) {
        char lo[32], hi[32];
        fprintf(f, "  time          %s, %.0f %% interval %s-%s  (fitted efficiency table)\n",
                fmt_time(g->time_s, b1, sizeof b1), 100 * g->coverage,
                fmt_time(g->low_s, lo, sizeof lo), fmt_time(g->high_s, hi, sizeof hi));
    } else if (g->calibrated) {
        fprintf(f, "  time          %s  (efficiency table; the profile gives no interval)\n",
                fmt_time(g->time_s, b1, sizeof b1));
    } else {
        fprintf(f,
                "  time          %s  (upper-bound roofline: peaks only, the profile has no "
                "efficiency table; a lower bound on time)\n",
                fmt_time(g->time_s, b1, sizeof b1));
    }
    fprintf(f, "  upper bound   %s  (Grappler's compute + memory + overhead, no overlap)\n",
            fmt_time(g->upper_s, b1, sizeof b1));
    fprintf(f,
            "  shares        compute-bound %s (%.1f%%), memory-bound %s (%.1f%%), "
            "overhead %s (%.1f%%)\n",
            fmt_time(g->compute_s, b2, sizeof b2), pct(g->compute_s, g->time_s),
            fmt_time(g->memory_s, b3, sizeof b3), pct(g->memory_s, g->time_s),
            fmt_time(g->overhead_s, b4, sizeof b4), pct(g->overhead_s, g->time_s));
    fprintf(f,
            "  ops           %" PRId64 " compute-bound, %" PRId64 " memory-bound, %" PRId64
            " overhead-bound, of %" PRId64 " costed\n",
            g->ops_compute_bound, g->ops_memory_bound, g->ops_overhead_bound, g->ops_costed);
    if (g->streamed_s > 0) {
        fprintf(f,
                "  refill        %s (%.1f%%) of the overhead: after the bytes the kernels run "
                "before each op streamed (the profile's `streamed`)\n",
                fmt_time(g->streamed_s, b1, sizeof b1), pct(g->streamed_s, g->time_s));
    }
    if (g->gap_s > 0) {
        fprintf(f,
                "  run's gap     %s (%.1f%%) of the overhead: the run's time beyond its kernels, "
                "%.3g %% of their time (the profile's `gap`: %s)\n",
                fmt_time(g->gap_s, b1, sizeof b1), pct(g->gap_s, g->time_s), 100 * g->gap_share,
                g->gap_source ? g->gap_source : "");
    }
    if (g->n_top && top) {
        size_t rows = g->n_top < top ? g->n_top : top;
        const char *names[64] = {0};
        rows = rows > 64 ? 64 : rows;
        for (size_t i = 0; i < rows; i++) {
            names[i] = g->top[i].name;
        }
        int nw = (int)fl_text_name_width(names, rows, 8, 44);
        fprintf(f, "  top ops by time\n    %-*s %-18s %10s %6s  %-8s %-12s %-10s %-6s %s\n", nw,
                "node", "op", "time", "share", "bound", "unit", "FLOP/byte", "level",
                "class (bucket)");
        for (size_t i = 0; i < rows; i++) {
            const fl_roofline_node *n = &g->top[i];
            char name[64];
            fl_text_abbrev(names, rows, i, (size_t)nw, name, sizeof name);
            char ai[32];
            if (n->intensity < 0) {
                snprintf(ai, sizeof ai, "-");
            } else {
                snprintf(ai, sizeof ai, "%.3g", n->intensity);
            }
            char unit[24];
            snprintf(unit, sizeof unit, "%s/%s", n->unit, n->dtype);
            fprintf(f, "    %-*s %-18.18s %10s %5.1f%%  %-8s %-12s %-10s %-6s %s%s%s%s\n", nw, name,
                    n->op, fmt_time(n->time_s, b1, sizeof b1), pct(n->time_s, g->time_s), n->bound,
                    unit, ai, n->level, n->op_class ? n->op_class : "",
                    n->bucket && *n->bucket ? " (" : "", n->bucket ? n->bucket : "",
                    n->bucket && *n->bucket ? ")" : "");
        }
    }
}

/* The dominant bound of a graph's estimate: the largest of the three shares. */
static const char *main_bound(const fl_roofline_graph *g) {
    if (g->compute_s >= g->memory_s && g->compute_s >= g->overhead_s) {
        return "compute";
    }
    return g->memory_s >= g->overhead_s ? "memory" : "overhead";
}

/* One line per profile, before the per-profile sections, when there are
 * several (`--profile all`). */
static void print_roofline_summary(FILE *f, const fl_report *r) {
    const char *names[64] = {0};
    size_t n = r->n_roofline < 64 ? r->n_roofline : 64;
    for (size_t i = 0; i < n; i++) {
        names[i] = r->roofline[i].profile;
    }
    int nw = (int)fl_text_name_width(names, n, 7, 32);
    fprintf(f, "\nroofline summary (%zu profiles; details below)\n", r->n_roofline);
    fprintf(f, "  %-*s %10s %10s %9s  %-8s %s\n", nw, "profile", "before", "after", "speed-up",
            "bound", "estimate");
    for (size_t i = 0; i < n; i++) {
        const fl_roofline_result *res = &r->roofline[i];
        char name[40], b1[32], b2[32], sp[16];
        fl_text_abbrev(names, n, i, (size_t)nw, name, sizeof name);
        const fl_roofline_graph *g = res->after ? res->after : res->before;
        snprintf(sp, sizeof sp, "%.3gx", res->speedup);
        fprintf(f, "  %-*s %10s %10s %9s  %-8s %s\n", nw, name,
                fmt_time(res->before->time_s, b1, sizeof b1),
                res->after ? fmt_time(res->after->time_s, b2, sizeof b2) : "n/a",
                res->after ? sp : "n/a", main_bound(g),
                g->calibrated ? "efficiency table" : "upper-bound roofline");
    }
}

void fl_print_roofline_text(FILE *f, const fl_report *r, size_t top) {
    if (r->n_roofline > 1) {
        print_roofline_summary(f, r);
    }
    for (size_t i = 0; i < r->n_roofline; i++) {
        const fl_roofline_result *res = &r->roofline[i];
        fprintf(f, "\nroofline on %s (before rewriting)\n", res->profile);
        print_graph_text(f, res->before, top);
        if (res->after) {
            fprintf(f, "roofline on %s (after rewriting)\n", res->profile);
            print_graph_text(f, res->after, top);
            fprintf(f, "  speed-up      %.3gx\n", res->speedup);
        } else {
            fprintf(f, "  after         n/a (the rewrite passes did not run)\n");
        }
    }
}

/* ev, st: the node's evicted bytes and refill time, gp: its share of the
 * run's gap (NULL: not printed). */
static void json_node(FILE *f, const fl_roofline_node *n, const double *ev, const double *st,
                      const double *gp) {
    fprintf(f, "{\"name\": ");
    jstr(f, n->name);
    fprintf(f, ", \"op\": ");
    jstr(f, n->op);
    fprintf(f, ", \"unit\": ");
    jstr(f, n->unit);
    fprintf(f, ", \"dtype\": ");
    jstr(f, n->dtype);
    fprintf(f, ", \"level\": ");
    jstr(f, n->level);
    fprintf(f, ", \"flops\": ");
    jnum(f, n->flops);
    fprintf(f, ", \"bytes\": ");
    jnum(f, n->bytes);
    fprintf(f, ", \"intensity\": ");
    jnum(f, n->intensity);
    fprintf(f, ", \"compute_s\": ");
    jnum(f, n->compute_s);
    fprintf(f, ", \"memory_s\": ");
    jnum(f, n->memory_s);
    fprintf(f, ", \"overhead_s\": ");
    jnum(f, n->overhead_s);
    fprintf(f, ", \"time_s\": ");
    jnum(f, n->time_s);
    fprintf(f, ", \"upper_s\": ");
    jnum(f, n->upper_s);
    fprintf(f, ", \"bound\": ");
    jstr(f, n->bound);
    fprintf(f, ", \"class\": ");
    jstr(f, n->op_class);
    fprintf(f, ", \"bucket\": ");
    jstr(f, n->bucket);
    fprintf(f, ", \"fixed_s\": ");
    jnum(f, n->fixed_s);
    fprintf(f, ", \"compute_peak_s\": ");
    jnum(f, n->compute_peak_s);
    fprintf(f, ", \"memory_peak_s\": ");
    jnum(f, n->memory_peak_s);
    fprintf(f, ", \"executed\": %s", n->executed ? "true" : "false");
    fprintf(f, ", \"channels\": ");
    jnum(f, n->channels);
    fprintf(f, ", \"channel_time_s\": ");
    jnum(f, n->channel_time_s);
    fprintf(f, ", \"broadcast\": %s", n->broadcast ? "true" : "false");
    fprintf(f, ", \"broadcast_time_s\": ");
    jnum(f, n->broadcast_time_s);
    if (ev && st) {
        fprintf(f, ", \"evicted_bytes\": ");
        jnum(f, *ev);
        fprintf(f, ", \"streamed_s\": ");
        jnum(f, *st);
    }
    if (gp) {
        fprintf(f, ", \"gap_s\": ");
        jnum(f, *gp);
    }
    fputc('}', f);
}

static void json_graph(FILE *f, const fl_roofline_graph *g, const char *ind) {
    if (!g) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"time_s\": ");
    jnum(f, g->time_s);
    fprintf(f, ", \"upper_s\": ");
    jnum(f, g->upper_s);
    fprintf(f, ", \"compute_s\": ");
    jnum(f, g->compute_s);
    fprintf(f, ", \"memory_s\": ");
    jnum(f, g->memory_s);
    fprintf(f, ", \"overhead_s\": ");
    jnum(f, g->overhead_s);
    fprintf(f, ", \"calibrated\": %s, \"interval\": ", g->calibrated ? "true" : "false");
    if (g->coverage > 0) {
        fprintf(f, "{\"low_s\": ");
        jnum(f, g->low_s);
        fprintf(f, ", \"high_s\": ");
        jnum(f, g->high_s);
        fprintf(f, ", \"coverage\": ");
        jnum(f, g->coverage);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fprintf(f,
            ", \"ops_compute_bound\": %" PRId64 ", \"ops_memory_bound\": %" PRId64
            ", \"ops_overhead_bound\": %" PRId64 ", \"ops_costed\": %" PRId64 ",\n%s  \"top\": [",
            g->ops_compute_bound, g->ops_memory_bound, g->ops_overhead_bound, g->ops_costed, ind);
    for (size_t i = 0; i < g->n_top; i++) {
        fprintf(f, "%s\n%s    ", i ? "," : "", ind);
        json_node(f, &g->top[i], NULL, NULL, NULL);
    }
    fprintf(f, "%s]", g->n_top ? "\n  " : "");
    if (g->nodes) {
        fprintf(f, ",\n%s  \"nodes\": [", ind);
        for (size_t i = 0; i < g->n_nodes; i++) {
            fprintf(f, "%s\n%s    ", i ? "," : "", ind);
            json_node(f, &g->nodes[i], g->node_evicted_bytes ? &g->node_evicted_bytes[i] : NULL,
                      g->node_streamed_s ? &g->node_streamed_s[i] : NULL,
                      g->node_gap_s ? &g->node_gap_s[i] : NULL);
        }
        fprintf(f, "%s]", g->n_nodes ? "\n  " : "");
    }
    if (g->streamed_s > 0) {
        fprintf(f, ", \"streamed_s\": ");
        jnum(f, g->streamed_s);
    }
    if (g->gap_share > 0) {
        fprintf(f, ", \"gap_s\": ");
        jnum(f, g->gap_s);
        fprintf(f, ", \"gap\": {\"share\": ");
        jnum(f, g->gap_share);
        fprintf(f, ", \"source\": ");
        jstr(f, g->gap_source ? g->gap_source : "");
        fputc('}', f);
    }
    fputc('}', f);
}

void fl_print_roofline_json(FILE *f, const fl_report *r, const char *indent) {
    fputc('[', f);
    for (size_t i = 0; i < r->n_roofline; i++) {
        const fl_roofline_result *res = &r->roofline[i];
        fprintf(f, "%s\n%s  {\"profile\": ", i ? "," : "", indent);
        jstr(f, res->profile);
        fprintf(f, ",\n%s   \"before\": ", indent);
        json_graph(f, res->before, indent);
        fprintf(f, ",\n%s   \"after\": ", indent);
        json_graph(f, res->after, indent);
        fprintf(f, ",\n%s   \"speedup\": ", indent);
        if (res->after) {
            jnum(f, res->speedup);
        } else {
            fputs("null", f);
        }
        fputc('}', f);
    }
    fprintf(f, "%s]", r->n_roofline ? "\n  " : "");
}

/* ------------------------------------------------------------------------- */
/* Sweep                                                                      */
/* ------------------------------------------------------------------------- */

/* The table's head, from the first point's report: its profiles and, for
 * a decoder, the LLM view's columns (prompt and context of that view). */
static void sweep_header(const fl_roof_cli *rc, const char *model, const fl_report *r) {
    printf("sweep of %s over %s (times: the graph as given -> after the rewrite passes",
           rc->sweep_sym, model);
    if (r->llm) {
        printf("; LLM view at prompt %" PRId64 ", context %" PRId64, r->llm->prompt,
               r->llm->context);
    }
    printf(")\n  %-12s %-24s", rc->sweep_sym, "FLOPs");
    for (size_t k = 0; k < r->n_roofline; k++) {
        printf(" %24.24s", r->roofline[k].profile);
    }
    if (r->llm) {
        printf(" %18s %18s %14s", "prefill FLOPs/tok", "decode FLOPs/tok", "KV bytes/tok");
    }
    printf("\n");
}

/* One point's row: FLOPs, the time per profile, the LLM view's figures. */
static void sweep_row(int64_t value, const fl_report *r, bool llm) {
    printf("  %-12" PRId64 " %-24s", value, r->totals.flops.text);
    for (size_t k = 0; k < r->n_roofline; k++) {
        char tb[32], ta[32], cell[80];
        const fl_roofline_result *res = &r->roofline[k];
        snprintf(cell, sizeof cell, "%s -> %s", fmt_time(res->before->time_s, tb, sizeof tb),
                 res->after ? fmt_time(res->after->time_s, ta, sizeof ta) : "n/a");
        printf(" %24s", cell);
    }
    if (llm && r->llm) {
        printf(" %18.1f %18.1f %14.0f", r->llm->prefill.flops_per_token,
               r->llm->decode.flops_per_token, r->llm->kv_bytes_per_token);
    } else if (llm) {
        printf(" %18s %18s %14s", "n/a", "n/a", "n/a");
    }
    printf("\n");
}

int fl_roof_cli_sweep(fl_roof_cli *rc, const unsigned char *buf, size_t len, fl_options *opt,
                      bool json, const char *model, const fl_roof_backend *be) {
    fl_symbol_binding *b = calloc(opt->n_symbols + 1, sizeof(*b));
    if (!b) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    if (opt->n_symbols) {
        memcpy(b, opt->symbols, opt->n_symbols * sizeof(*b));
    }
    fl_options o = *opt;
    o.symbols = b;
    o.n_symbols = opt->n_symbols + 1;
    b[opt->n_symbols].name = rc->sweep_sym;
    if (json) {
        printf("{\n\"schema_version\": %d,\n\"foldline_version\": ", FL_JSON_SCHEMA_VERSION);
        fl_print_json_str(stdout, fl_version());
        printf(",\n\"sweep\": {\"symbol\": ");
        fl_print_json_str(stdout, rc->sweep_sym);
        printf(", \"values\": [");
        for (size_t i = 0; i < rc->n_sweep; i++) {
            printf("%s%" PRId64, i ? ", " : "", rc->sweep_vals[i]);
        }
        printf("]},\n\"results\": [\n");
    }
    bool llm = false; /* the first point has the LLM view's columns */
    int ret = 0;
    size_t partial = 0;
    for (size_t i = 0; i < rc->n_sweep; i++) {
        b[opt->n_symbols].value = rc->sweep_vals[i];
        fl_report *r = NULL;
        if (be) { /* remote: the server names the profiles; header after the first reply */
            char err[1024];
            ret = be->analyze(be->ctx, buf, len, &o, &r, err, sizeof err);
            if (ret) {
                fprintf(stderr, "foldline: %s: %s=%" PRId64 ": %s\n", model, rc->sweep_sym,
                        rc->sweep_vals[i], err);
                break;
            }
        } else {
            fl_status st = fl_analyze(buf, len, &o, &r);
            if (st != FL_OK) {
                fprintf(stderr, "foldline: %s: %s=%" PRId64 ": %s\n", model, rc->sweep_sym,
                        rc->sweep_vals[i], r && r->error ? r->error : fl_status_str(st));
                fl_report_free(r);
                ret = fl_cli_exit_of(st);
                break;
            }
        }
        if (!r->complete) {
            partial++;
        }
        if (!json && i == 0) {
            sweep_header(rc, model, r);
            llm = r->llm != NULL;
        }
        if (json) {
            if (i) {
                printf(",\n");
            }
            (rc->summary ? fl_print_summary : fl_print_json)(stdout, r, model);
        } else {
            sweep_row(rc->sweep_vals[i], r, llm);
        }
        if (be) {
            be->free_report(r);
        } else {
            fl_report_free(r);
        }
    }
    if (json && ret == 0) {
        printf("]\n}\n");
    }
    free(b);
    if (ret == 0 && partial && rc->require_complete) {
        fprintf(stderr,
                "foldline: %s: %zu of %zu sweep points are partial answers (--require-complete)\n",
                model, partial, rc->n_sweep);
        ret = EXIT_PARTIAL;
    }
    return ret;
}

/* ------------------------------------------------------------------------- */
/* `foldline profiles`                                                        */
/* ------------------------------------------------------------------------- */

static const fl_figure *best_peak(const fl_profile *p, fl_unit u, fl_precision *prec) {
    const fl_figure *best = NULL;
    for (int d = 0; d < FL_PREC_COUNT; d++) {
        const fl_figure *fg = &p->peak[u][d];
        if (fg->value > 0 && (!best || fg->value > best->value)) {
            best = fg;
            *prec = (fl_precision)d;
        }
    }
    return best;
}

int fl_cmd_profiles(int argc, char **argv) {
    fl_roof_cli rc;
    memset(&rc, 0, sizeof rc);
    bool json = false, verbose = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--sources") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--profiles-dir") == 0) {
            int r = fl_roof_cli_option(&rc, argc, argv, &i);
            if (r != 1) {
                fl_roof_cli_free(&rc);
                return EXIT_USAGE;
            }
        } else {
            fl_roof_cli_free(&rc);
            return fl_cli_usage_error("profiles: unknown argument '%s'", argv[i]);
        }
    }
    int e = load_set(&rc);
    if (e) {
        fl_roof_cli_free(&rc);
        return e;
    }
    char where[1024];
    dirs_text(&rc, where, sizeof where);
    fl_print_profiles(&rc.set, where, json, verbose);
    fl_roof_cli_free(&rc);
    return 0;
}

/* A profile's efficiency section and interval as JSON members. */
static void json_efficiency(const fl_profile *p) {
    printf(", \"calibrated\": %s, \"efficiency\": [", p->calibrated ? "true" : "false");
    bool first = true;
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        const fl_eff_table *t = &p->table[c];
        if (!t->n_buckets) {
            continue;
        }
        printf("%s{\"class\": \"%s\", \"by\": \"%s\", \"buckets\": [", first ? "" : ", ",
               fl_op_class_name((fl_op_class)c), t->by == FL_SIZE_FLOPS ? "flops" : "bytes");
        first = false;
        for (size_t k = 0; k < t->n_buckets; k++) {
            const fl_eff_bucket *b = &t->buckets[k];
            printf("%s{\"upto\": ", k ? ", " : "");
            if (k + 1 < t->n_buckets) {
                printf("%.9g", b->upto);
            } else {
                printf("null");
            }
            printf(", \"compute\": %.9g, \"memory\": %.9g, \"fixed_s\": %.9g, \"samples\": %.9g, "
                   "\"residual\": %.9g, \"per_channel_s\": %.9g, \"broadcast_s\": %.9g, "
                   "\"source\": ",
                   b->compute, b->memory, b->fixed_s, b->samples, b->residual, b->per_channel_s,
                   b->broadcast_s);
            jstr(stdout, b->source);
            putchar('}');
        }
        printf("]}");
    }
    printf("], \"interval\": ");
    if (p->interval.coverage > 0) {
        printf("{\"low\": %.9g, \"high\": %.9g, \"coverage\": %.9g, \"source\": ", p->interval.low,
               p->interval.high, p->interval.coverage);
        jstr(stdout, p->interval.source);
        putchar('}');
    } else {
        printf("null");
    }
}

/* A profile's efficiency section as text: a summary line, or with `verbose`
 * every bucket with its source. Nothing for an uncalibrated profile. */
static void text_efficiency(const fl_profile *p, bool verbose) {
    char b1[32];
    if (!p->calibrated) {
        return;
    }
    int nc = 0;
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        nc += p->table[c].n_buckets > 0;
    }
    printf("      efficiency table: %d class%s", nc, nc == 1 ? "" : "es");
    if (p->interval.coverage > 0) {
        printf(", %.0f %% interval %.3g-%.3g x the estimate", 100 * p->interval.coverage,
               p->interval.low, p->interval.high);
    }
    printf("\n");
    for (int c = 0; verbose && c < FL_CLASS_COUNT; c++) {
        const fl_eff_table *t = &p->table[c];
        for (size_t k = 0; k < t->n_buckets; k++) {
            const fl_eff_bucket *b = &t->buckets[k];
            char range[48];
            const char *unit = t->by == FL_SIZE_FLOPS ? "flops" : "bytes";
            if (t->n_buckets == 1) {
                snprintf(range, sizeof range, "all");
            } else if (k + 1 < t->n_buckets) {
                snprintf(range, sizeof range, "<= %.3g %s", b->upto, unit);
            } else {
                snprintf(range, sizeof range, "> %.3g %s", t->buckets[k - 1].upto, unit);
            }
            printf("      %s %s: compute %.3g, memory %.3g, fixed %s",
                   fl_op_class_name((fl_op_class)c), range, b->compute, b->memory,
                   fmt_time(b->fixed_s, b1, sizeof b1));
            if (b->per_channel_s > 0) {
                printf(", per channel %s", fmt_time(b->per_channel_s, b1, sizeof b1));
            }
            if (b->broadcast_s > 0) {
                printf(", per broadcast op %s", fmt_time(b->broadcast_s, b1, sizeof b1));
            }
            printf(": %s\n", b->source ? b->source : "");
        }
    }
    if (verbose && p->interval.coverage > 0) {
        printf("      interval: %s\n", p->interval.source ? p->interval.source : "");
    }
}

/* A profile's optional figures, `streamed` and `gap`: JSON keys only when
 * given. */
static void json_optional_figures(const fl_profile *p) {
    if (p->streamed.value > 0) {
        printf(", \"streamed_s_per_byte\": %.9g, \"streamed_source\": ", p->streamed.value);
        jstr(stdout, p->streamed.source);
    }
    if (p->gap.value > 0) {
        printf(", \"gap_share\": %.9g, \"gap_source\": ", p->gap.value);
        jstr(stdout, p->gap.source);
    }
}

/* The same as text lines, their sources when verbose. */
static void text_optional_figures(const fl_profile *p, bool verbose) {
    if (p->streamed.value > 0) {
        printf("      refill after streaming kernels %.3g us per MB evicted (`streamed`)%s%s\n",
               p->streamed.value * 1e12, verbose ? ": " : "",
               verbose && p->streamed.source ? p->streamed.source : "");
    }
    if (p->gap.value > 0) {
        printf("      run's gap %.3g %% of kernel time (`gap`)%s%s\n", 100 * p->gap.value,
               verbose ? ": " : "", verbose && p->gap.source ? p->gap.source : "");
    }
}

void fl_print_profiles(const fl_profile_set *set, const char *dir, bool json, bool verbose) {
    char b1[32], b2[32], b3[32];
    if (json) {
        printf("{\"profiles_dir\": ");
        jstr(stdout, dir);
        printf(", \"profiles\": [");
    } else {
        printf("profiles in %s\n  %-22s %-10s %-18s %-20s %-14s %-10s %s\n", dir, "name", "kind",
               "vector fp32", "matrix (best)", "main memory", "overhead", "ridge fp32");
    }
    for (size_t i = 0; i < set->n; i++) {
        const fl_profile *p = set->profiles[i];
        const fl_mem_level *mm = &p->levels[p->n_levels - 1];
        if (json) {
            printf("%s\n  {\"name\": ", i ? "," : "");
            jstr(stdout, p->name);
            printf(", \"kind\": ");
            jstr(stdout, p->kind);
            printf(", \"description\": ");
            jstr(stdout, p->description);
            printf(", \"path\": ");
            jstr(stdout, p->path);
            printf(", \"peak\": [");
            bool first = true;
            for (int u = 0; u < FL_UNIT_COUNT; u++) {
                for (int d = 0; d < FL_PREC_COUNT; d++) {
                    const fl_figure *fg = &p->peak[u][d];
                    if (fg->value <= 0) {
                        continue;
                    }
                    printf("%s{\"unit\": \"%s\", \"dtype\": \"%s\", \"flops_per_s\": %.9g, "
                           "\"source\": ",
                           first ? "" : ", ", fl_unit_name((fl_unit)u),
                           fl_precision_name((fl_precision)d), fg->value);
                    jstr(stdout, fg->source);
                    putchar('}');
                    first = false;
                }
            }
            printf("], \"memory\": [");
            for (size_t k = 0; k < p->n_levels; k++) {
                printf("%s{\"name\": ", k ? ", " : "");
                jstr(stdout, p->levels[k].name);
                printf(", \"bandwidth\": %.9g, \"capacity\": ", p->levels[k].bandwidth);
                if (p->levels[k].capacity > 0) {
                    printf("%.9g", p->levels[k].capacity);
                } else {
                    printf("null");
                }
                printf(", \"source\": ");
                jstr(stdout, p->levels[k].source);
                putchar('}');
            }
            printf("], \"overhead_s\": ");
            if (p->overhead.value > 0) {
                printf("%.9g, \"overhead_source\": ", p->overhead.value);
                jstr(stdout, p->overhead.source);
            } else {
                printf("null");
            }
            json_optional_figures(p);
            json_efficiency(p);
            printf("}");
            continue;
        }
        fl_precision mp = FL_PREC_FP32;
        const fl_figure *m = best_peak(p, FL_UNIT_MATRIX, &mp);
        char mat[40];
        if (m) {
            snprintf(mat, sizeof mat, "%s %s", fmt_rate(m->value, "FLOP/s", b1, sizeof b1),
                     fl_precision_name(mp));
        } else {
            snprintf(mat, sizeof mat, "-");
        }
        double v32 = p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value;
        printf("  %-22s %-10s %-18s %-20s %-14s %-10s %.3g FLOP/B\n", p->name, p->kind,
               fmt_rate(v32, "FLOP/s", b2, sizeof b2), mat,
               fmt_rate(mm->bandwidth, "B/s", b3, sizeof b3),
               p->overhead.value > 0 ? fmt_time(p->overhead.value, b1, sizeof b1) : "-",
               v32 / mm->bandwidth);
        if (verbose) {
            printf("      %s\n", p->description);
            for (int u = 0; u < FL_UNIT_COUNT; u++) {
                for (int d = 0; d < FL_PREC_COUNT; d++) {
                    const fl_figure *fg = &p->peak[u][d];
                    if (fg->value > 0) {
                        printf("      %s %s %s: %s\n", fl_unit_name((fl_unit)u),
                               fl_precision_name((fl_precision)d),
                               fmt_rate(fg->value, "FLOP/s", b1, sizeof b1), fg->source);
                    }
                }
            }
            for (size_t k = 0; k < p->n_levels; k++) {
                printf("      memory %s %s: %s\n", p->levels[k].name,
                       fmt_rate(p->levels[k].bandwidth, "B/s", b1, sizeof b1), p->levels[k].source);
            }
            if (p->overhead.value > 0) {
                printf("      overhead %s: %s\n", fmt_time(p->overhead.value, b1, sizeof b1),
                       p->overhead.source);
            }
        }
        text_optional_figures(p, verbose);
        text_efficiency(p, verbose);
    }
    if (json) {
        printf("%s]}\n", set->n ? "\n" : "");
    } else if (!verbose) {
        printf("(foldline profiles --sources lists every figure with its source)\n");
    }
}
