/*
 * report.c - `foldline report`: arguments, the analyses (one with per-node
 * detail; with --sweep one more per value) and the output file. The page
 * itself is reporthtml.c.
 */
#include "report.h"

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct report_args {
    const char *model, *out;
    char **opts; /* analyze's options */
    int n_opts;
    char *sweep; /* "SYM=V1,V2,..." (a copy) */
} report_args;

static int parse_report_args(report_args *a, int argc, char **argv) {
    if (argc < 1 || argv[0][0] == '-') {
        return fl_cli_usage_error("%s", "report needs MODEL first: foldline report MODEL "
                                        "[analyze options] [--profile NAME] -o OUT.html");
    }
    a->model = argv[0];
    a->opts = calloc((size_t)argc + 1, sizeof(char *));
    if (!a->opts) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool valued = strcmp(s, "-o") == 0 || strcmp(s, "--sweep") == 0;
        if (valued && i + 1 >= argc) {
            return fl_cli_usage_error("option %s needs a value", s);
        }
        if (strcmp(s, "-o") == 0) {
            a->out = argv[++i];
        } else if (strcmp(s, "--sweep") == 0) {
            if (a->sweep) {
                return fl_cli_usage_error("%s", "report takes one --sweep");
            }
            a->sweep = strdup(argv[++i]);
            if (!a->sweep) {
                return fl_cli_usage_error("%s", "out of memory");
            }
        } else if (strcmp(s, "--json") == 0 || strcmp(s, "--summary") == 0 ||
                   strcmp(s, "--per-node") == 0) {
            return fl_cli_usage_error("report takes no %s (the page has the details; "
                                      "analyze --json prints them)",
                                      s);
        } else {
            a->opts[a->n_opts++] = argv[i];
        }
    }
    if (!a->out) {
        return fl_cli_usage_error("%s", "report needs -o OUT.html");
    }
    return 0;
}

/* One analysis: MODEL, the options, extra arguments. */
static int run_one(const report_args *a, const char *const *extra, int n_extra,
                   fl_cli_analysis **out) {
    char **v = calloc((size_t)(a->n_opts + n_extra + 2), sizeof(char *));
    if (!v) {
        return EXIT_IO;
    }
    int n = 0;
    v[n++] = (char *)a->model;
    for (int i = 0; i < a->n_opts; i++) {
        v[n++] = a->opts[i];
    }
    for (int i = 0; i < n_extra; i++) {
        v[n++] = (char *)extra[i];
    }
    int rc = fl_cli_analysis_run(n, v, out);
    free(v);
    return rc;
}

/* --sweep SYM=V1,V2,...: one analysis per value (SYM bound to it). */
static int run_sweep(const report_args *a, fl_html_report *h, fl_sweep_point **pts) {
    char *eq = strchr(a->sweep, '=');
    if (!eq || eq == a->sweep || !eq[1]) {
        return fl_cli_usage_error("--sweep expects SYM=V1,V2,..., got '%s'", a->sweep);
    }
    *eq = '\0';
    h->sweep_symbol = a->sweep;
    size_t cap = 1;
    for (const char *s = eq + 1; *s; s++) {
        cap += *s == ',';
    }
    *pts = calloc(cap, sizeof(fl_sweep_point));
    if (!*pts) {
        return EXIT_IO;
    }
    char *save = NULL;
    for (char *tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end, bind[256];
        errno = 0;
        long long v = strtoll(tok, &end, 10);
        if (errno || *end || v < 0) {
            return fl_cli_usage_error("--sweep %s: '%s' is not an integer >= 0", a->sweep, tok);
        }
        snprintf(bind, sizeof bind, "%s=%lld", a->sweep, v);
        const char *extra[] = {"--bind", bind};
        fl_sweep_point *p = &(*pts)[h->n_sweep++];
        p->value = v;
        int rc = run_one(a, extra, 2, &p->analysis);
        if (rc) {
            return rc;
        }
    }
    h->sweep = *pts;
    return 0;
}

static int write_page(const char *path, const fl_html_report *h) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "foldline: cannot open '%s' for writing: %s\n", path, strerror(errno));
        return EXIT_IO;
    }
    fl_report_write_html(f, h);
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, "foldline: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_IO;
    }
    return 0;
}

int fl_cmd_report(int argc, char **argv) {
    report_args a = {0};
    fl_html_report h = {0};
    fl_cli_analysis *main_a = NULL;
    fl_sweep_point *pts = NULL;
    int rc = parse_report_args(&a, argc, argv);
    char first[256] = "";
    if (rc == 0 && a.sweep) { /* the charts: at the first value swept */
        snprintf(first, sizeof first, "%.*s", (int)strcspn(a.sweep, ","), a.sweep);
        h.main_binding = first;
    }
    if (rc == 0) {
        const char *extra[] = {"--per-node", "--bind", first};
        rc = run_one(&a, extra, a.sweep ? 3 : 1, &main_a);
    }
    if (rc == 0 && a.sweep) {
        rc = run_sweep(&a, &h, &pts);
    }
    if (rc == 0) {
        h.model = a.model;
        h.analysis = main_a;
        rc = write_page(a.out, &h);
    }
    for (size_t i = 0; i < h.n_sweep; i++) {
        fl_cli_analysis_free(pts[i].analysis);
    }
    free(pts);
    fl_cli_analysis_free(main_a);
    free(a.opts);
    free(a.sweep);
    return rc;
}
