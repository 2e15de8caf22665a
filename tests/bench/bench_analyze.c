/*
 * bench_analyze.c - time of a whole analysis (import, shapes, costs, report).
 *
 * Prints the median and min of several runs for: the largest graphs of the
 * shared corpus (when present), and synthetic chains of 10k, 100k and 1M nodes
 * (Conv2D / BiasAdd / Relu blocks on a small feature map). Not a test: it
 * prints figures and asserts nothing about speed.
 *
 *   bench_analyze [runs [FILE.pb...]]
 *
 * With files, only those graphs are timed.
 */
#include "chain.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench_bytes(const char *label, const uint8_t *buf, size_t len, int runs) {
    double t[64];
    if (runs > 64) {
        runs = 64;
    }
    const char *flops = "";
    char flops_buf[64] = "";
    for (int i = 0; i < runs; i++) {
        fl_options o;
        fl_options_init(&o);
        fl_report *r = NULL;
        double t0 = now_s();
        fl_status st = fl_analyze(buf, len, &o, &r);
        t[i] = now_s() - t0;
        if (st != FL_OK) {
            printf("%-44s FAILED: %s\n", label, r && r->error ? r->error : "?");
            fl_report_free(r);
            return;
        }
        snprintf(flops_buf, sizeof flops_buf, "%.40s", r->totals.flops.text);
        flops = flops_buf;
        fl_report_free(r);
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_d);
    printf("%-44s %9zu bytes  median %9.3f ms  min %9.3f ms  (%d runs)  flops %s\n", label, len,
           t[runs / 2] * 1e3, t[0] * 1e3, runs, flops);
}

static void bench_file(const char *name, int runs) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tf/%s", FL_CORPUS_DIR, name);
    size_t len;
    unsigned char *buf = fl_test_read_file(path, &len);
    if (!buf) {
        printf("%-44s skipped: corpus absent\n", name);
        return;
    }
    bench_bytes(name, buf, len, runs);
    free(buf);
}

/* The chain of chain.h, n nodes. */
static void bench_chain(long n, int runs) {
    size_t len;
    uint8_t *buf = chain_graphdef(n, &len);
    char label[64];
    snprintf(label, sizeof label, "synthetic chain %ld nodes", n);
    bench_bytes(label, buf, len, runs);
    free(buf);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1) {
        runs = 1;
    }
    printf("foldline %s analysis benchmark (median of %d runs)\n", fl_version(), runs);
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            size_t len;
            unsigned char *buf = fl_test_read_file(argv[i], &len);
            if (!buf) {
                printf("%-44s cannot be read\n", argv[i]);
                continue;
            }
            const char *base = strrchr(argv[i], '/');
            bench_bytes(base ? base + 1 : argv[i], buf, len, runs);
            free(buf);
        }
        return 0;
    }
    bench_file("human-facemesh-attention-pinto.pb", runs);
    bench_file("human-faceboxes.pb", runs);
    bench_file("foolmarks-cifar-cnn.pb", runs);
    bench_file("tf2onnx-ae0.pb", runs);
    bench_chain(10000, runs);
    bench_chain(100000, runs);
    bench_chain(1000000, runs > 3 ? 3 : runs);
    return 0;
}
