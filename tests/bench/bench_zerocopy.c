/*
 * bench_zerocopy.c - in-process figures for a full-weight model against its
 * weight-stripped twin, side by side in one run: one memcpy of the full
 * file's bytes (heap to heap, both resident), fl_analyze on the file freshly
 * mapped (as the CLI does) without passes and with the default passes, and
 * fl_analyze of the stripped twin. Medians of RUNS runs after one warm-up,
 * in the process's CPU time (everything runs on one thread, so what else the
 * host runs does not count; the mapping's page faults do).
 * Run by tests/bench/bench_zerocopy.sh, which adds the CLI's wall time and
 * peak RSS and ONNX Runtime's session creation. Not run by CTest.
 *
 * Usage: bench_zerocopy FULL.onnx STRIPPED.onnx [RUNS]
 */
#include "foldline/foldline.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct mapped {
    void *p;
    size_t len;
} mapped;

static mapped map(const char *path) {
    mapped m = {NULL, 0};
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        exit(2);
    }
    m.len = (size_t)st.st_size;
    m.p = mmap(NULL, m.len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m.p == MAP_FAILED) {
        perror(path);
        exit(2);
    }
    return m;
}

/* fl_analyze on `path` mapped afresh; ms. */
static double analyze_once(const char *path, const char *passes, int64_t *macs) {
    double t0 = now_ms();
    mapped m = map(path);
    fl_options o;
    fl_options_init(&o);
    o.passes = passes;
    fl_report *r = NULL;
    fl_status st = fl_analyze(m.p, m.len, &o, &r);
    munmap(m.p, m.len);
    double t = now_ms() - t0;
    if (st != FL_OK) {
        fprintf(stderr, "bench_zerocopy: %s: %s\n", path, r && r->error ? r->error : "failed");
        exit(1);
    }
    *macs = r->totals.macs.value;
    fl_report_free(r);
    return t;
}

static double analyze_median(const char *path, const char *passes, int runs, int64_t *macs) {
    double v[64];
    analyze_once(path, passes, macs); /* warm-up: page cache, lazy binding */
    for (int i = 0; i < runs; i++) {
        v[i] = analyze_once(path, passes, macs);
    }
    return median(v, runs);
}

static double memcpy_median(const char *path, int runs, size_t *len) {
    mapped m = map(path);
    uint8_t *a = malloc(m.len), *b = malloc(m.len);
    if (!a || !b) {
        fprintf(stderr, "bench_zerocopy: out of memory\n");
        exit(2);
    }
    memcpy(a, m.p, m.len); /* a resident copy of the bytes */
    memcpy(b, a, m.len);   /* warm-up: b's pages faulted in */
    double v[64];
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        memcpy(b, a, m.len);
        __asm__ volatile("" : : "r"(b) : "memory"); /* keep the copy */
        v[i] = now_ms() - t0;
    }
    *len = m.len;
    munmap(m.p, m.len);
    free(a);
    free(b);
    return median(v, runs);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_zerocopy FULL.onnx STRIPPED.onnx [RUNS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 7;
    runs = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    size_t full_len = 0, stripped_len = 0;
    double cp = memcpy_median(argv[1], runs, &full_len);
    mapped s = map(argv[2]);
    stripped_len = s.len;
    munmap(s.p, s.len);
    int64_t m_full, m_str, m_full_p, m_str_p;
    double full = analyze_median(argv[1], NULL, runs, &m_full);
    double full_p = analyze_median(argv[1], "default", runs, &m_full_p);
    double str = analyze_median(argv[2], NULL, runs, &m_str);
    double str_p = analyze_median(argv[2], "default", runs, &m_str_p);
    printf("in process, CPU time, medians of %d runs (one run, side by side):\n", runs);
    printf("  memcpy of the full file (%.1f MB)        %9.3f ms\n", full_len / 1e6, cp);
    printf("  analyze full, no passes                 %9.3f ms  (%.2fx memcpy)\n", full, full / cp);
    printf("  analyze full, default passes            %9.3f ms  (%.2fx memcpy)\n", full_p,
           full_p / cp);
    printf("  analyze stripped (%.1f KB), no passes   %9.3f ms\n", stripped_len / 1e3, str);
    printf("  analyze stripped, default passes        %9.3f ms\n", str_p);
    printf("  MACs full %lld, stripped %lld (%s)\n", (long long)m_full, (long long)m_str,
           m_full == m_str ? "equal" : "DIFFER");
    return m_full == m_str ? 0 : 1;
}
