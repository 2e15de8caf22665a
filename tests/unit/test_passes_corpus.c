/*
 * test_passes_corpus.c - the rewrite pipeline on every graph of the shared
 * corpus (skipped with a printed reason when the corpus is absent).
 *
 * For each TensorFlow graph: all passes, two iterations, the verifier after
 * every pass (no dangling input, no cycle), the driver's output check (every
 * output keeps its name, dtype and shape); then the graph is written as a
 * GraphDef, re-imported through fl_analyze, and its totals must equal the
 * pipeline's "after" totals exactly. A second optimisation of the written
 * graph must fire no rule at all (idempotence).
 */
#include "cost/cost.h"
#include "export/graphdef_write.h"
#include "import/import.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Totals as text, to compare with a report's quantities. */
static const char *txt(fl_arena *a, fl_sym s) {
    const char *t = fl__sym_to_str(a, s);
    return t ? t : "?";
}

/* Runs the pipeline on one file; returns 0 when every check holds. */
static int check_file(const char *path, const char *name) {
    size_t len;
    unsigned char *buf = fl_test_read_file(path, &len);
    if (!buf) {
        printf("FAIL %s: cannot read\n", name);
        return 1;
    }
    fl_arena arena;
    fl__arena_init(&arena, 0);
    fl_diag d;
    fl__diag_init(&d, &arena);
    fl_graph *g = fl__graph_new(&arena);
    fl_ctx c = {g, g->syms, &arena, &d, 1 << 20};
    fl_options opt;
    fl_options_init(&opt);
    fl_import_opts io = {5000000, 1 << 20, NULL};
    fl_status st = fl__import_sniff_savedmodel(buf, len)
                       ? fl__import_savedmodel(g, buf, len, &io, &d)
                       : fl__import_graphdef(g, buf, len, &io, &d);
    fl_infer_result ir;
    fl_cost_totals before, after;
    if (st == FL_OK) {
        st = fl__graph_toposort(g, &d);
    }
    if (st == FL_OK) {
        st = fl__infer_shapes(&c, &opt, &ir);
    }
    if (st == FL_OK) {
        st = fl__cost_graph(&c, &before);
    }
    size_t n_before = g->n_nodes;
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.verify = true;
    fl_ledger led;
    fl__ledger_init(&led, &arena);
    double t0 = now_ms();
    if (st == FL_OK) {
        st = fl__pipeline_run(&c, &opt, &cfg, &led, &after);
    }
    double t1 = now_ms();
    uint8_t *out = NULL;
    size_t out_len = 0;
    if (st == FL_OK) {
        st = fl__graphdef_write(g, &out, &out_len, &d);
    }
    free(buf);
    if (st != FL_OK) {
        printf("FAIL %s: %s\n", name, d.msg ? d.msg : fl_status_str(st));
        fl__arena_free(&arena);
        free(out);
        return 1;
    }
    int bad = 0;
    fl_report *r = NULL;
    fl_options o2;
    fl_options_init(&o2);
    o2.passes = "default";
    st = fl_analyze(out, out_len, &o2, &r);
    if (st != FL_OK) {
        printf("FAIL %s: re-import: %s\n", name, r && r->error ? r->error : "?");
        bad = 1;
    } else {
        fl_sym bytes;
        fl__sym_add(g->syms, after.bytes_read, after.bytes_written, &bytes);
        if (strcmp(r->totals.flops.text, txt(&arena, after.flops)) ||
            strcmp(r->totals.tfprof_flops.text, txt(&arena, after.tfprof_flops)) ||
            strcmp(r->totals.macs.text, txt(&arena, after.macs)) ||
            strcmp(r->totals.bytes.text, txt(&arena, bytes)) ||
            r->totals.nodes != (int64_t)g->n_nodes) {
            printf("FAIL %s: re-import totals differ: flops %s vs %s, bytes %s vs %s\n", name,
                   r->totals.flops.text, txt(&arena, after.flops), r->totals.bytes.text,
                   txt(&arena, bytes));
            bad = 1;
        }
        /* Idempotence: optimising the optimised graph fires no rule. */
        if (r->n_ledger || strcmp(r->after.flops.text, r->before.flops.text) ||
            strcmp(r->after.bytes.text, r->before.bytes.text)) {
            printf("FAIL %s: a second optimisation changes the graph (flops %s -> %s):\n", name,
                   r->before.flops.text, r->after.flops.text);
            for (size_t i = 0; i < r->n_ledger && i < 10; i++) {
                printf("       %s %s %s: %s\n", r->ledger[i].pass, r->ledger[i].rule,
                       r->ledger[i].node, r->ledger[i].detail);
            }
            bad = 1;
        }
        printf("ok   %-48s %6zu -> %6zu nodes, %4zu firings, %8.1f ms; second run: %zu "
               "firings\n",
               name, n_before, g->n_nodes, led.n_entries, t1 - t0, r->n_ledger);
    }
    fl_report_free(r);
    free(out);
    fl__arena_free(&arena);
    return bad;
}

static void run_dir(const char *sub, int *failures, size_t *files) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", FL_CORPUS_DIR, sub);
    DIR *dd = opendir(dir);
    if (!dd) {
        return;
    }
    char *names[512];
    size_t nf = 0;
    struct dirent *e;
    while ((e = readdir(dd)) && nf < 512) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".pb") == 0) {
            names[nf++] = strdup(e->d_name);
        }
    }
    closedir(dd);
    qsort(names, nf, sizeof(char *), cmp_str);
    for (size_t i = 0; i < nf; i++) {
        char path[2048], label[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(label, sizeof label, "%s/%s", sub, names[i]);
        *failures += check_file(path, label);
        free(names[i]);
    }
    *files += nf;
}

static void test_corpus_pipeline(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_corpus_pipeline")) {
        fl_test_skip();
    }
    int failures = 0;
    size_t files = 0;
    run_dir("tf", &failures, &files);
    run_dir("tf-unfused", &failures, &files);
    printf("%zu corpus graphs, %d failures\n", files, failures);
    assert_true(files > 0);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_pipeline),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
