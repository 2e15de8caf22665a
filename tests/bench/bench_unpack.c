/*
 * bench_unpack.c - protobuf-c's unpack of messages whose singular message
 * fields occur many times, before and after the wire-format limits of
 * proto/glue/pbguard.c, side by side in one run.
 *
 * "before" is what foldlined (AnalyzeRequest) and `--strip-weights`
 * (GraphDef) did: protobuf-c's unpack alone. "after" is what they do now:
 * fl_pb_guard, then the unpack when the guard accepts; "guard" is
 * fl_pb_guard alone. Each figure is the median of the runs (3, or 1 where
 * one run takes over a second).
 *
 * Cases, for k occurrences:
 *   options      AnalyzeRequest { options { profiles: "a" } } k times
 *   versions     GraphDef { versions { bad_consumers: 1 } } k times
 *   profiles     one AnalyzeRequest.options with k profile names (repeated:
 *                no limit; the guard's cost beside the unpack's)
 *   nodes        a GraphDef of k NoOp nodes (the same)
 *
 * usage: bench_unpack [MAX_K]   (default 40000; up to 100000, which takes
 * minutes before)
 */
#include "pbguard.h"
#include "tensorflow/graph.pb-c.h"
#ifdef FL_HAVE_SERVICE_PROTO
#include "foldline/v1/cost_model.pb-c.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct buf {
    unsigned char *p;
    size_t n;
} buf;

static void put(buf *b, const void *bytes, size_t n) {
    memcpy(b->p + b->n, bytes, n);
    b->n += n;
}

/* Repeats `unit` k times, or (wrap_field > 0) wraps k units in one field. */
static buf make(const unsigned char *unit, size_t n, size_t k, unsigned wrap_field) {
    buf b = {malloc(n * k + 16), 0};
    if (!b.p) {
        exit(1);
    }
    if (wrap_field) {
        size_t body = n * k;
        unsigned char h[12];
        size_t hn = 0;
        h[hn++] = (unsigned char)(wrap_field << 3 | 2);
        do {
            h[hn++] = (unsigned char)((body & 0x7f) | (body > 0x7f ? 0x80 : 0));
            body >>= 7;
        } while (body);
        put(&b, h, hn);
    }
    for (size_t i = 0; i < k; i++) {
        put(&b, unit, n);
    }
    return b;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of unpacking (guard first when `guarded`); *rejected set
 * when the guard refused. */
static double time_unpack(const ProtobufCMessageDescriptor *d, const buf *b, int guarded,
                          int *rejected) {
    double t[3];
    int runs = 3;
    char err[768];
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        *rejected = guarded && fl_pb_guard(d, b->p, b->n, err, sizeof err) != 0;
        if (!*rejected) {
            ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, b->n, b->p);
            if (!m) {
                fprintf(stderr, "bench_unpack: %s did not unpack\n", d->name);
                exit(1);
            }
            protobuf_c_message_free_unpacked(m, NULL);
        }
        t[r] = now() - t0;
        if (t[r] > 1.0) {
            runs = r + 1;
            break;
        }
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp);
    return t[runs / 2];
}

/* Median seconds of the guard alone. */
static double time_guard(const ProtobufCMessageDescriptor *d, const buf *b) {
    double t[3];
    char err[768];
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        (void)fl_pb_guard(d, b->p, b->n, err, sizeof err);
        t[r] = now() - t0;
    }
    qsort(t, 3, sizeof t[0], cmp);
    return t[1];
}

static void row(const char *name, const ProtobufCMessageDescriptor *d, const buf *b, size_t k) {
    int rej = 0;
    double before = time_unpack(d, b, 0, &rej);
    double after = time_unpack(d, b, 1, &rej);
    double guard = time_guard(d, b);
    printf("%-9s %8zu %10zu %12.3f %12.3f %9.1fx %10.3f  %s\n", name, k, b->n, before * 1e3,
           after * 1e3, after > 0 ? before / after : 0.0, guard * 1e3,
           rej ? "rejected (INVALID_ARGUMENT)" : "accepted");
    fflush(stdout);
}

int main(int argc, char **argv) {
    size_t max_k = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 40000;
    printf("%-9s %8s %10s %12s %12s %10s %10s  %s\n", "case", "k", "bytes", "before ms", "after ms",
           "ratio", "guard ms", "after: guard");
    static const unsigned char versions[] = {0x22, 2, 0x18, 1}; /* versions{bad_consumers:1} */
    static const unsigned char node[] = {0x0a, 9, 0x0a, 1, 'n', 0x12, 4, 'N', 'o', 'O', 'p'};
    static const size_t ks[] = {16, 17, 1000, 4000, 10000, 20000, 40000, 100000};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0] && ks[i] <= max_k; i++) {
        size_t k = ks[i];
#ifdef FL_HAVE_SERVICE_PROTO
        static const unsigned char options[] = {0x12, 3, 0x52, 1, 'a'};
        buf o = make(options, sizeof options, k, 0);
        row("options", &foldline__v1__analyze_request__descriptor, &o, k);
        free(o.p);
#endif
        buf v = make(versions, sizeof versions, k, 0);
        row("versions", &tensorflow__graph_def__descriptor, &v, k);
        free(v.p);
    }
    for (size_t k = 10000; k <= 1000000; k *= 10) {
#ifdef FL_HAVE_SERVICE_PROTO
        static const unsigned char profile[] = {0x52, 1, 'a'};
        buf p = make(profile, sizeof profile, k, 2);
        row("profiles", &foldline__v1__analyze_request__descriptor, &p, k);
        free(p.p);
#endif
        buf n = make(node, sizeof node, k, 0);
        row("nodes", &tensorflow__graph_def__descriptor, &n, k);
        free(n.p);
    }
    return 0;
}
