/*
 * bench_passes.c - time of the rewrite pipeline (all passes, 2 iterations).
 *
 * For the largest graphs of the shared corpus (when present) and synthetic
 * chains of 1k, 10k and 100k blocks, prints the median CPU time of a whole
 * analysis without passes and with them, and their difference (the pipeline,
 * including re-inference and re-costing after every pass). An analysis runs
 * on one thread, so the process's CPU time is its own work, whatever else
 * the host runs. A synthetic block
 * is x -> Identity -> Mul(., one) -> AddV2(., Neg(c1 + c2)) -> Neg, so every
 * pass has work: pruning, folding, neutral elements, dependency edges, CSE
 * (two blocks share the constant subexpression). Not a test.
 *
 *   bench_passes [runs [BLOCKS...]]
 *
 * With BLOCKS, only synthetic chains of those block counts are timed (the
 * corpus is skipped); a negative count -N runs one analysis with the passes
 * of a chain of N blocks and prints its time (for /usr/bin/time -v). An
 * argument that is not a number is a graph file (.pb) to time instead.
 */
#include "testgraph.h"
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of `runs` analyses with the given pass list (NULL: none). */
static double median(const uint8_t *buf, size_t len, const char *passes, int runs,
                     int64_t *nodes_after) {
    double t[32];
    if (runs > 32) {
        runs = 32;
    }
    for (int i = 0; i < runs; i++) {
        fl_options o;
        fl_options_init(&o);
        o.passes = passes;
        fl_report *r = NULL;
        double t0 = now_s();
        fl_status st = fl_analyze(buf, len, &o, &r);
        t[i] = now_s() - t0;
        if (st != FL_OK) {
            fprintf(stderr, "analysis failed: %s\n", r && r->error ? r->error : "?");
            fl_report_free(r);
            return -1;
        }
        if (nodes_after) {
            *nodes_after = passes ? r->after.nodes : r->n_nodes;
        }
        fl_report_free(r);
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_d);
    return t[runs / 2];
}

static void bench(const char *label, const uint8_t *buf, size_t len, int runs) {
    int64_t n0 = 0, n1 = 0;
    double a = median(buf, len, NULL, runs, &n0);
    double b = median(buf, len, "default", runs, &n1);
    if (a < 0 || b < 0) {
        return;
    }
    printf("%-44s %8lld -> %8lld nodes   CPU: analyze %9.2f ms   +passes %9.2f ms   pipeline "
           "%9.2f ms\n",
           label, (long long)n0, (long long)n1, a * 1e3, b * 1e3, (b - a) * 1e3);
}

static void synthetic(int blocks, int runs, bool once) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){8, 16});
    tg_const_f32(g, "one", 0, NULL, (float[]){1}, 0);
    tg_const_f32(g, "c1", 1, (int64_t[]){16}, NULL, 0);
    tg_const_f32(g, "c2", 1, (int64_t[]){16}, NULL, 0);
    char prev[64] = "x", n[8][64];
    for (int i = 0; i < blocks; i++) {
        const char *names[] = {"i", "m", "s", "k", "a", "y"};
        for (int k = 0; k < 6; k++) {
            snprintf(n[k], sizeof n[k], "%s%d", names[k], i);
        }
        tg_attr_type(tg_add(g, n[0], "Identity", prev, NULL), "T", 1);
        tg_attr_type(tg_add(g, n[1], "Mul", n[0], "one", NULL), "T", 1);
        tg_attr_type(tg_add(g, n[2], "AddV2", "c1", "c2", NULL), "T", 1);
        tg_attr_type(tg_add(g, n[3], "Neg", n[2], NULL), "T", 1);
        tg_attr_type(tg_add(g, n[4], "AddV2", n[1], n[3], NULL), "T", 1);
        tg_attr_type(tg_add(g, n[5], "Neg", n[4], NULL), "T", 1);
        snprintf(prev, sizeof prev, "%s", n[5]);
    }
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    char label[64];
    snprintf(label, sizeof label, "synthetic chain, %d blocks", blocks);
    if (once) {
        int64_t n1 = 0;
        double b = median(buf, len, "default", 1, &n1);
        printf("%-44s -> %8lld nodes   analyze+passes %9.2f ms (one run)\n", label, (long long)n1,
               b * 1e3);
    } else {
        bench(label, buf, len, runs);
    }
    free(buf);
    tg_free(g);
}

typedef struct file_size {
    char path[1024];
    off_t size;
} file_size;

static int cmp_size(const void *a, const void *b) {
    const file_size *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static void corpus(int runs) {
    DIR *d = opendir(FL_CORPUS_DIR "/tf");
    if (!d) {
        printf("corpus absent (%s): corpus graphs skipped\n", FL_CORPUS_DIR);
        return;
    }
    file_size fs[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".pb") != 0) {
            continue;
        }
        snprintf(fs[n].path, sizeof fs[n].path, "%s/tf/%s", FL_CORPUS_DIR, e->d_name);
        struct stat sb;
        if (stat(fs[n].path, &sb) == 0) {
            fs[n].size = sb.st_size;
            n++;
        }
    }
    closedir(d);
    qsort(fs, n, sizeof(file_size), cmp_size);
    for (size_t i = 0; i < n && i < 5; i++) {
        size_t len;
        unsigned char *buf = fl_test_read_file(fs[i].path, &len);
        if (buf) {
            const char *base = strrchr(fs[i].path, '/');
            bench(base ? base + 1 : fs[i].path, buf, len, runs);
            free(buf);
        }
    }
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1) {
        runs = 1;
    }
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            char *end;
            long b = strtol(argv[i], &end, 10);
            if (*end != '\0' || end == argv[i]) {
                size_t len;
                unsigned char *buf = fl_test_read_file(argv[i], &len);
                const char *base = strrchr(argv[i], '/');
                if (buf) {
                    bench(base ? base + 1 : argv[i], buf, len, runs);
                    free(buf);
                } else {
                    printf("%-44s cannot be read\n", argv[i]);
                }
                continue;
            }
            synthetic((int)(b < 0 ? -b : b), runs, b < 0);
        }
        return 0;
    }
    corpus(runs);
    synthetic(1000, runs, false);
    synthetic(10000, runs, false);
    synthetic(100000, runs > 3 ? 3 : runs, false);
    return 0;
}
