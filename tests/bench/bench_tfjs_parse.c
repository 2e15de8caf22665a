/*
 * bench_tfjs_parse.c - time of reading a TF.js model.json, side by side in
 * one run (interleaved, medians):
 *   jansson    json_loadb + json_decref of the file (the reader used before)
 *   fjson      fl__json_parse into an arena + freeing the arena (the reader
 *              now used)
 *   analyze    fl_analyze of the model.json, passes none
 *   analyze pb fl_analyze of the same network's GraphDef, passes none
 * Not a test: it prints figures and asserts nothing about speed.
 *
 *   bench_tfjs_parse [runs [MODEL.json [TWIN.pb]]]
 *
 * Defaults: the corpus's tfjs/facemesh-attention-pinto/model.json (343 KB,
 * no shards) and tf/human-facemesh-attention-pinto.pb.
 */
#include "foldline/foldline.h"
#include "import/fjson.h"
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    return t[n / 2];
}

static double time_analyze(const unsigned char *b, size_t len) {
    fl_options o;
    fl_options_init(&o);
    o.passes = "none";
    fl_report *r = NULL;
    double t0 = now_ms();
    fl_status st = fl_analyze(b, len, &o, &r);
    double t = now_ms() - t0;
    if (st != FL_OK) {
        fprintf(stderr, "analysis failed: %s\n", r && r->error ? r->error : "?");
        exit(1);
    }
    fl_report_free(r);
    return t;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 21;
    const char *jp = argc > 2 ? argv[2] : FL_CORPUS_DIR "/tfjs/facemesh-attention-pinto/model.json";
    const char *pp = argc > 3 ? argv[3] : FL_CORPUS_DIR "/tf/human-facemesh-attention-pinto.pb";
    if (runs < 1 || runs > 1000) {
        runs = 21;
    }
    size_t jl = 0, pl = 0;
    unsigned char *j = fl_test_read_file(jp, &jl), *p = fl_test_read_file(pp, &pl);
    if (!j) {
        printf("bench_tfjs_parse: %s not found (the corpus is absent?)\n", jp);
        return 0;
    }
    double *t = calloc((size_t)runs * 4, sizeof *t);
    if (!t) {
        return 1;
    }
    for (int i = 0; i < runs; i++) {
        json_error_t err;
        double t0 = now_ms();
        json_t *root = json_loadb((const char *)j, jl, JSON_REJECT_DUPLICATES, &err);
        json_decref(root);
        t[i] = now_ms() - t0;
        char msg[200];
        fl_arena a;
        fl__arena_init(&a, 0);
        t0 = now_ms();
        const fl_json *r = fl__json_parse(&a, (const char *)j, jl, true, msg, sizeof msg);
        fl__arena_free(&a);
        t[runs + i] = now_ms() - t0;
        if (!root || !r) {
            fprintf(stderr, "parse failed\n");
            return 1;
        }
        t[2 * runs + i] = time_analyze(j, jl);
        t[3 * runs + i] = p ? time_analyze(p, pl) : 0;
    }
    double mj = median(t, runs), mf = median(t + runs, runs);
    double ma = median(t + 2 * runs, runs), mp = median(t + 3 * runs, runs);
    printf("%s: %zu bytes, %d runs, medians\n", jp, jl, runs);
    printf("  parse  jansson %8.3f ms   fjson %8.3f ms   (%.1fx)\n", mj, mf, mj / mf);
    printf("  analyze model.json %8.3f ms", ma);
    if (p) {
        printf("   twin .pb %8.3f ms   (json/pb %.2fx)", mp, ma / mp);
    }
    printf("\n");
    free(t);
    free(j);
    free(p);
    return 0;
}
