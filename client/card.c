/*
 * card.c - `foldline card MODEL [analyze options] [--profile NAME|FILE|all]
 * [--format md|json]`: a model-card section a registry can attach as is:
 * parameters, FLOPs, MACs and bytes as formulas in the model's free symbols
 * and at stated bindings, and the estimated latency per profile with the
 * profile's source and whether it is calibrated.
 *
 * Two analyses: one without --bind (the formulas), one with the bindings
 * (--bind as given; every other free symbol at 1, said so) for the values
 * and the estimates.
 */
#include "card.h"

#include "analysis.h"
#include "cli.h"
#include "print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct card_args {
    const char *model;
    char **opts; /* analyze's options other than --bind */
    int n_opts;
    char **binds; /* "SYM=N" */
    int n_binds;
    bool json;
} card_args;

static int parse_card_args(card_args *a, int argc, char **argv) {
    if (argc < 1 || argv[0][0] == '-') {
        return fl_cli_usage_error("%s", "card needs MODEL first: foldline card MODEL [analyze "
                                        "options] [--profile NAME] [--format md|json]");
    }
    a->model = argv[0];
    a->opts = calloc((size_t)argc + 1, sizeof(char *));
    a->binds = calloc((size_t)argc + 1, sizeof(char *));
    if (!a->opts || !a->binds) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool valued = strcmp(s, "--format") == 0 || strcmp(s, "--bind") == 0;
        if (valued && i + 1 >= argc) {
            return fl_cli_usage_error("option %s needs a value", s);
        }
        if (strcmp(s, "--format") == 0) {
            const char *v = argv[++i];
            if (strcmp(v, "md") != 0 && strcmp(v, "json") != 0) {
                return fl_cli_usage_error("card --format must be md or json, got '%s' (the "
                                          "model's format is detected, or given with "
                                          "--model-format)",
                                          v);
            }
            a->json = strcmp(v, "json") == 0;
        } else if (strcmp(s, "--model-format") == 0 && i + 1 < argc) {
            a->opts[a->n_opts++] = "--format";
            a->opts[a->n_opts++] = argv[++i];
        } else if (strcmp(s, "--bind") == 0) {
            a->binds[a->n_binds++] = argv[++i];
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--sweep") == 0 || strcmp(s, "--summary") == 0 ||
                   strcmp(s, "--per-node") == 0 || strcmp(s, "-o") == 0) {
            return fl_cli_usage_error("card takes no %s (see foldline help card)", s);
        } else {
            a->opts[a->n_opts++] = argv[i];
        }
    }
    return 0;
}

/* Runs one analysis: MODEL, the options (without profiles when `bare`),
 * the bindings, extra arguments. */
static int run_one(const card_args *a, bool bare, const fl_card_binding *b, size_t n_b,
                   const char *const *extra, int n_extra, fl_cli_analysis **out) {
    char **v = calloc((size_t)(a->n_opts + 2 * (int)n_b + n_extra + 2), sizeof(char *));
    if (!v) {
        return EXIT_IO;
    }
    int n = 0;
    v[n++] = (char *)a->model;
    for (int i = 0; i < a->n_opts; i++) {
        bool profile_opt =
            strcmp(a->opts[i], "--profile") == 0 || strcmp(a->opts[i], "--profiles-dir") == 0;
        if (bare && profile_opt && i + 1 < a->n_opts) {
            i++;
            continue;
        }
        v[n++] = a->opts[i];
    }
    for (size_t i = 0; i < n_b; i++) {
        v[n++] = "--bind";
        v[n++] = b[i].text;
    }
    for (int i = 0; i < n_extra; i++) {
        v[n++] = (char *)extra[i];
    }
    int rc = fl_cli_analysis_run(n, v, out);
    free(v);
    return rc;
}

/* The bindings: --bind as given, then every other free symbol of `r` at 1. */
static fl_card_binding *bindings(const card_args *a, const fl_report *r, size_t *n_out) {
    fl_card_binding *b = calloc((size_t)a->n_binds + r->n_symbols + 1, sizeof *b);
    size_t n = 0;
    for (int i = 0; b && i < a->n_binds; i++) {
        b[n++].text = strdup(a->binds[i]);
    }
    for (size_t k = 0; b && k < r->n_symbols; k++) {
        size_t len = strlen(r->symbols[k]);
        bool given = false;
        for (int i = 0; i < a->n_binds; i++) {
            given |= strncmp(a->binds[i], r->symbols[k], len) == 0 && a->binds[i][len] == '=';
        }
        if (!given) {
            b[n].text = malloc(len + 3);
            if (b[n].text) {
                snprintf(b[n].text, len + 3, "%s=1", r->symbols[k]);
            }
            b[n++].by_default = true;
        }
    }
    for (size_t i = 0; b && i < n; i++) {
        if (!b[i].text) {
            b = NULL; /* leaks a few bytes on the way out of memory */
        }
    }
    *n_out = n;
    return b;
}

int fl_cmd_card(int argc, char **argv) {
    card_args a = {0};
    fl_cli_analysis *formulas = NULL, *bound = NULL, *view = NULL;
    fl_card_binding *b = NULL;
    size_t n_b = 0;
    int rc = parse_card_args(&a, argc, argv);
    if (rc == 0) {
        static const char *const none[] = {"--passes", "none"};
        rc = run_one(&a, true, NULL, 0, none, 2, &formulas);
    }
    if (rc == 0) {
        b = bindings(&a, fl_cli_analysis_report(formulas), &n_b);
        rc = b ? 0 : EXIT_IO;
    }
    if (rc == 0) {
        rc = run_one(&a, false, b, n_b, NULL, 0, &bound);
    }
    if (rc == 0 && fl_cli_analysis_report(formulas)->llm) {
        /* The view needs its symbols free: the bindings given (the first
         * a.n_binds of b) only, with the profiles for its times and the
         * passes for its figures after them (as analyze prints it). */
        rc = run_one(&a, false, b, (size_t)a.n_binds, NULL, 0, &view);
    }
    if (rc == 0) {
        fl_card card = {a.model,
                        fl_cli_analysis_report(formulas),
                        fl_cli_analysis_report(bound),
                        b,
                        n_b,
                        bound,
                        view ? fl_cli_analysis_report(view)->llm : NULL};
        if (a.json) {
            fl_card_print_json(stdout, &card);
        } else {
            fl_card_print_md(stdout, &card);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
            rc = EXIT_IO;
        }
    }
    for (size_t i = 0; i < n_b; i++) {
        free(b[i].text);
    }
    free(b);
    fl_cli_analysis_free(formulas);
    fl_cli_analysis_free(bound);
    fl_cli_analysis_free(view);
    free(a.opts);
    free(a.binds);
    return rc;
}
