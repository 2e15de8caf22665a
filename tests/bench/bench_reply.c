/*
 * bench_reply.c - foldlined's reply encoding, before and after, side by
 * side in one run: the report of an Analyze with no options (what
 * bench_server.sh sends: the default passes, no per-node detail) encoded as
 * AnalyzeReply bytes.
 *
 *   before   fl_report_to_pb (a protobuf-c message per Quantity, Totals,
 *            ...) then fl_pb_encode over the messages' descriptors
 *   after    fl_report_encode: straight from the report to the bytes
 *
 * Rounds alternate the two; each figure is the median over the rounds of
 * the mean time per reply in a round. The bytes of both are compared first.
 *
 * Then the analysis itself (fl_analyze with those options, then
 * fl_report_free), timed the same way in the thread's CPU time: with the
 * encoding, what an Analyze call of this model costs foldlined's pool
 * thread at the least (bench_server.sh compares it with the server's CPU
 * time per call).
 *
 * usage: bench_reply [MODEL ...]   (default tests/data's tiny_cnn.pb and
 * tiny_cnn.onnx)
 */
#include "foldline/foldline.h"
#include "pbenc.h"
#include "report_pb.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 15
#define REPS   200

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The median over ROUNDS of the mean thread CPU time of an analysis of
 * bytes with o (its report freed); a negative value when one fails. */
static double analysis_cpu(const unsigned char *bytes, size_t len, const fl_options *o) {
    double t[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = thread_cpu();
        for (int i = 0; i < REPS; i++) {
            fl_report *r = NULL;
            fl_status st = fl_analyze(bytes, len, o, &r);
            fl_report_free(r);
            if (st != FL_OK) {
                return -1;
            }
        }
        t[k] = (thread_cpu() - t0) / REPS;
    }
    qsort(t, ROUNDS, sizeof(double), cmp_dbl);
    return t[ROUNDS / 2];
}

/* The reply the way foldlined encoded it before; its length, 0 on failure. */
static size_t before(const fl_report *r, uint8_t **block, uint8_t **data) {
    fl_pb_arena a = {0};
    Foldline__V1__AnalyzeReply m = FOLDLINE__V1__ANALYZE_REPLY__INIT;
    char err[256];
    size_t len = 0;
    if (!fl_report_to_pb(r, fl_version(), &a, &m, err, sizeof err) ||
        !fl_pb_encode(&m.base, 8, block, data, &len)) {
        len = 0;
    }
    fl_pb_arena_free(&a);
    return len;
}

static size_t after(const fl_report *r, uint8_t **block, uint8_t **data) {
    size_t len;
    bool oom;
    char err[256];
    return fl_report_encode(r, fl_version(), 8, block, data, &len, &oom, err, sizeof err) ? len : 0;
}

static int bench(const char *path) {
    size_t len;
    unsigned char *bytes = fl_test_read_file(path, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default"; /* foldlined's default, as `foldline analyze` */
    fl_report *r = NULL;
    if (!bytes || fl_analyze(bytes, len, &o, &r) != FL_OK) {
        printf("%s: does not analyse\n", path);
        fl_report_free(r);
        free(bytes);
        return 1;
    }
    uint8_t *b1, *d1, *b2, *d2;
    size_t n1 = before(r, &b1, &d1), n2 = after(r, &b2, &d2);
    int bad = !n1 || n1 != n2 || memcmp(d1, d2, n1) != 0;
    if (n1) {
        free(b1);
    }
    if (n2) {
        free(b2);
    }
    if (bad) {
        printf("%s: the two encodings differ (%zu vs %zu bytes)\n", path, n1, n2);
    } else {
        double t[2][ROUNDS];
        for (int k = 0; k < ROUNDS; k++) {
            for (int w = 0; w < 2; w++) {
                double t0 = now();
                for (int i = 0; i < REPS; i++) {
                    uint8_t *blk, *dat;
                    if ((w ? after : before)(r, &blk, &dat)) {
                        free(blk);
                    }
                }
                t[w][k] = (now() - t0) / REPS;
            }
        }
        qsort(t[0], ROUNDS, sizeof(double), cmp_dbl);
        qsort(t[1], ROUNDS, sizeof(double), cmp_dbl);
        double m0 = t[0][ROUNDS / 2], m1 = t[1][ROUNDS / 2];
        double an = analysis_cpu(bytes, len, &o);
        printf("%-16s %6zu bytes  before %7.2f us  after %7.2f us  (%.2fx)  analysis %7.2f us "
               "CPU\n",
               strrchr(path, '/') ? strrchr(path, '/') + 1 : path, n1, m0 * 1e6, m1 * 1e6, m0 / m1,
               an * 1e6);
        bad |= an < 0;
    }
    fl_report_free(r);
    free(bytes);
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            bad |= bench(argv[i]);
        }
    } else {
        bad |= bench(FL_SOURCE_DIR "/tests/data/tiny_cnn.pb");
        bad |= bench(FL_SOURCE_DIR "/tests/data/tiny_cnn.onnx");
    }
    return bad;
}
