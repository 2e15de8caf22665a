/*
 * bench_scaling.c - how analysis time and memory grow with the graph, and
 * the fixed cost of a tiny graph. Not a test: it prints figures.
 *
 *   bench_scaling [runs]              tiny_cnn, then chains of 10k, 100k, 1M
 *   bench_scaling [runs] N|tiny...    chains of N nodes only (e.g. 10000000),
 *                                     or tiny_cnn
 *   bench_scaling [runs] none:N       the chain of N nodes without passes only
 *   bench_scaling [runs] default:N    the chain of N nodes with the default
 *                                     passes only (e.g. under perf record)
 *   bench_scaling [runs] phases:N     the chain of N nodes with the default
 *                                     passes, its CPU time and page faults per
 *                                     node by phase (phases-none:N: without)
 *   bench_scaling [rounds] cold:N1,N2,...  first analyses: each round runs
 *                                     every size once, each in a fresh
 *                                     process doing one analysis with the
 *                                     default passes (cold-none:...: without)
 *   bench_scaling [runs] tiny-wake    tiny_cnn back to back, after other data,
 *                                     after a sleep (see tiny_wake)
 *   bench_scaling --write-chain N F   writes the chain of N nodes to F (.pb)
 *
 * The chain is chain.h's Conv2D/BiasAdd/Relu chain. Each chain size is
 * measured in a child process per mode (no passes, the default passes), so
 * that the child's peak RSS is its own: the line gives the median wall and
 * CPU time of `runs` analyses (CPU time is the trustworthy figure on a
 * loaded host), nanoseconds per node, and the peak RSS above the one the
 * child had with the model's bytes in memory, per node (a median of two
 * runs, as the 1M and 10M chains take, is their mean); then the page faults
 * per node and the kernel's share of the CPU time, and, with more than one
 * run, the first analysis's CPU time and faults per node apart from the
 * later ones' (the first faults in all the memory it uses; the later ones
 * reuse the memory the process keeps, up to 64 MB: the small chains run
 * from it, the large ones fault theirs in again); without passes, also
 * one memcpy of the model's bytes, the floor an import cannot beat. tiny_cnn
 * (tests/data) is analysed with the default passes in batches of 200; the
 * median batch gives microseconds per analysis.
 *
 * phases:N splits each analysis by fl_options.progress: user and system
 * time and page faults from one phase's start to the next's (a pass's
 * phase holds its re-inference and re-costing; "report" is what runs
 * between the costs and the first pass: the report and the pipeline's
 * set-up; "end" what follows the last phase: the report's pass records,
 * releasing the analysis's memory), per node, the mean of the runs.
 *
 * cold:N1,N2,... measures what the CLI meets: one process, one analysis. Each
 * of the `rounds` rounds runs every size once, smallest first in the even
 * rounds and largest first in the odd ones (so that neither end always runs
 * after the other on a host whose load drifts), each in a child process of
 * its own that builds the chain and runs exactly one analysis (with the
 * default passes; cold-none: without), its report released as the other
 * modes do. The child sends back the analysis's CPU time (user + system),
 * wall time, page faults, system time and the peak RSS above the one it had
 * with the model's bytes in memory. Per size the line gives the medians over
 * the rounds of the CPU and wall ns per node, the faults per node, the
 * kernel's share of the CPU time and the peak RSS per node, and each
 * median's ratio to the smallest size's (CPU and wall); also the user time
 * per node and its ratio (the engine's own work: the system time is the
 * kernel's for the pages the analysis faults in) and the kernel's time per
 * fault. Last, what a fresh page costs this host's kernel apart from any
 * analysis (a new 64 MB mapping, each page touched once): on a virtual
 * machine that backs guest memory lazily it is microseconds, more for
 * memory the guest has not used lately, and it is what grows at 10M nodes.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "chain.h"
#include "foldline/foldline.h"
#include "testutil.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n sorted values: the middle one, or the mean of the two
 * middle ones when n is even (the 1M and 10M chains run twice). */
static double median(const double *t, int n) {
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static long max_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Page faults (minor: a fresh page the kernel clears) and system CPU time
 * so far: the kernel's share of an analysis, which on this host's virtual
 * machine costs more per fault on the larger sizes. */
static void faults_sys(long *minflt, double *sys_s) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *minflt = ru.ru_minflt;
    *sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The phases of phases:N (see above), in the order an analysis runs them
 * (the same in every run). */
#define MAX_PHASES 64
typedef struct phase_acc {
    char name[24];
    int iteration;
    double user, sys;
    long faults;
} phase_acc;

static struct {
    bool on;
    phase_acc ph[MAX_PHASES];
    int n, cur; /* phases met; the one running (-1: none yet) */
    double user0, sys0;
    long flt0;
} phases;

static void usage_now(double *user, double *sys, long *flt) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
    *sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    *flt = ru.ru_minflt;
}

/* Ends the running phase (what was used since it started goes to it) and
 * starts phase `name` (NULL: none; the time until the next goes nowhere). */
static void phase_switch(const char *name, int iteration) {
    double user, sys;
    long flt;
    usage_now(&user, &sys, &flt);
    if (phases.cur >= 0) {
        phase_acc *a = &phases.ph[phases.cur];
        a->user += user - phases.user0;
        a->sys += sys - phases.sys0;
        a->faults += flt - phases.flt0;
    }
    phases.cur = -1;
    if (name) {
        int k = 0;
        while (k < phases.n &&
               (strcmp(phases.ph[k].name, name) != 0 || phases.ph[k].iteration != iteration)) {
            k++;
        }
        if (k == phases.n && k < MAX_PHASES) {
            snprintf(phases.ph[k].name, sizeof phases.ph[k].name, "%s", name);
            phases.ph[k].iteration = iteration;
            phases.n++;
        }
        phases.cur = k < MAX_PHASES ? k : -1;
    }
    usage_now(&phases.user0, &phases.sys0, &phases.flt0);
}

/* fl_options.progress: a phase's start switches to it; the cost phase's end
 * to "report" (the report is built before the passes start), a pass's end
 * to "end" (until the next pass starts). */
static void on_progress(const fl_progress *p, void *arg) {
    (void)arg;
    if (p->nodes_done == 0) {
        phase_switch(p->name, p->iteration);
    } else if (p->nodes_done == p->nodes_total && p->phase == FL_PHASE_COST) {
        phase_switch("report", 0);
    } else if (p->nodes_done == p->nodes_total && p->phase == FL_PHASE_PASS) {
        phase_switch("end", 0);
    }
}

static void phases_print(long n, const char *passes, int runs) {
    double k = 1e9 / (double)runs / (double)n;
    int end = phases.n; /* "end" printed last */
    for (int j = 0; j <= phases.n; j++) {
        int i = j < phases.n && strcmp(phases.ph[j].name, "end") == 0 ? (end = j, -1)
                : j < phases.n                                        ? j
                                                                      : end;
        if (i < 0 || i >= phases.n) {
            continue;
        }
        const phase_acc *a = &phases.ph[i];
        printf("chain %8ld nodes %-8s phase %-14s %d  user %6.0f  sys %6.0f ns/node  page faults "
               "%.4f per node\n",
               n, passes ? passes : "none", a->name, a->iteration, a->user * k, a->sys * k,
               (double)a->faults / (double)runs / (double)n);
    }
}

/* One analysis; false (message printed) when it fails. */
static bool analyze(const uint8_t *buf, size_t len, const char *passes, int64_t *nodes_after) {
    fl_options o;
    fl_options_init(&o);
    o.passes = passes;
    o.max_nodes = 20000000;
    o.max_memory_bytes = 0; /* the 10M chain needs more than the default 8 GiB */
    if (phases.on) {
        o.progress = on_progress;
        phases.cur = -1;
    }
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, &o, &r);
    if (phases.on) {
        phase_switch("end", 0); /* what follows the last phase: to "end" */
    }
    if (st != FL_OK) {
        printf("analysis failed: %s\n", r && r->error ? r->error : "?");
        fl_report_free(r);
        return false;
    }
    if (nodes_after) {
        *nodes_after = passes ? r->after.nodes : r->n_nodes;
    }
    fl_report_free(r);
    if (phases.on) {
        phase_switch(NULL, 0); /* the report's release: to "end" */
    }
    return true;
}

/* The baseline: the median CPU time of one memcpy of the model's bytes into
 * a buffer whose pages are already faulted in (the analysis's own page
 * faults are part of its time; a copy's floor is the bandwidth). */
static double memcpy_ms(const uint8_t *buf, size_t len, int runs) {
    uint8_t *dst = malloc(len ? len : 1);
    double t[16];
    if (!dst) {
        return 0;
    }
    memcpy(dst, buf, len); /* warm-up: dst's pages faulted in */
    runs = runs < 3 ? 3 : runs > 16 ? 16 : runs;
    for (int i = 0; i < runs; i++) {
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        memcpy(dst, buf, len);
        __asm__ volatile("" : : "r"(dst) : "memory"); /* the copy is used */
        t[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    free(dst);
    qsort(t, (size_t)runs, sizeof(double), cmp_d);
    return t[runs / 2] * 1e3;
}

/* The child's part: `runs` analyses of the chain of n nodes in one mode. */
static int chain_child(long n, const char *passes, int runs) {
    size_t len;
    uint8_t *buf = chain_graphdef(n, &len);
    long rss0 = max_rss_kb(), flt0, flt1;
    double wall[16], cpu[16], sys0, sys1, cpu_all = 0;
    int64_t after = 0;
    runs = runs > 16 ? 16 : runs;
    faults_sys(&flt0, &sys0);
    long flt_first = flt0;
    for (int i = 0; i < runs; i++) {
        double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (!analyze(buf, len, passes, &after)) {
            return 1;
        }
        wall[i] = clock_s(CLOCK_MONOTONIC) - w0;
        cpu[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        cpu_all += cpu[i];
        if (i == 0) {
            double sys_first;
            faults_sys(&flt_first, &sys_first);
        }
    }
    faults_sys(&flt1, &sys1);
    long rss1 = max_rss_kb();
    double first = cpu[0];
    qsort(wall, (size_t)runs, sizeof(double), cmp_d);
    qsort(cpu, (size_t)runs, sizeof(double), cmp_d);
    double cpu_med = median(cpu, runs);
    printf("chain %8ld nodes %-8s -> %8lld nodes  wall %9.1f ms  cpu %9.1f ms  %6.0f ns/node (cpu) "
           " peak rss +%7.1f MB  %5.0f B/node  (%d runs)\n",
           n, passes ? passes : "none", (long long)after, median(wall, runs) * 1e3, cpu_med * 1e3,
           cpu_med * 1e9 / (double)n, (double)(rss1 - rss0) / 1024.0,
           (double)(rss1 - rss0) * 1024.0 / (double)n, runs);
    printf("chain %8ld nodes %-8s page faults %.3f per node, system time %.0f%% of the CPU time\n",
           n, passes ? passes : "none", (double)(flt1 - flt0) / runs / (double)n,
           cpu_all > 0 ? (sys1 - sys0) * 100 / cpu_all : 0);
    if (runs > 1) {
        printf("chain %8ld nodes %-8s first analysis %6.0f ns/node (cpu), %.3f page faults per "
               "node; the %d after it %.3f per node\n",
               n, passes ? passes : "none", first * 1e9 / (double)n,
               (double)(flt_first - flt0) / (double)n, runs - 1,
               (double)(flt1 - flt_first) / (runs - 1) / (double)n);
    }
    if (phases.on) {
        phases_print(n, passes, runs);
    }
    double cp = passes ? 0 : memcpy_ms(buf, len, runs);
    if (cp > 0) {
        printf("chain %8ld nodes memcpy of its %.1f MB: %.2f ms; analysis without passes = %.0fx "
               "memcpy\n",
               n, (double)len / 1e6, cp, cpu[runs / 2] * 1e3 / cp);
    }
    free(buf);
    return 0;
}

/* The chain of n nodes in modes m0..m1: 0 without passes, 1 with the
 * default passes. */
static void chain(long n, int runs, int m0, int m1) {
    const char *modes[2] = {NULL, "default"};
    for (int m = m0; m <= m1; m++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int rc = chain_child(n, modes[m], n >= 1000000 ? 1 + (runs > 1) : runs);
            fflush(stdout); /* _exit does not flush */
            _exit(rc);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            printf("chain %ld nodes %s: the measuring process failed\n", n,
                   modes[m] ? modes[m] : "none");
        }
    }
}

/* The kernel's time for one fresh page of a new mapping of `bytes`, each
 * page touched once: the median of `reps` mappings, in microseconds (what
 * any memory an analysis takes anew costs on this host, beside which its
 * faults per node are read). */
static double page_cost_us(size_t bytes, int reps) {
    double v[8];
    int k = 0;
    reps = reps > 8 ? 8 : reps;
    for (int r = 0; r < reps; r++) {
        unsigned char *p =
            mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            continue;
        }
        long f0, f1;
        double s0, s1;
        faults_sys(&f0, &s0);
        for (size_t off = 0; off < bytes; off += 4096) {
            p[off] = 1;
        }
        faults_sys(&f1, &s1);
        munmap(p, bytes);
        if (f1 > f0) {
            v[k++] = (s1 - s0) * 1e6 / (double)(f1 - f0);
        }
    }
    if (k == 0) {
        return 0;
    }
    qsort(v, (size_t)k, sizeof(double), cmp_d);
    return median(v, k);
}

/* cold:N1,N2,... (see the header): one analysis per fresh process. */
typedef struct cold_sample {
    double cpu, wall, sys; /* seconds */
    double faults, rss_kb;
    int64_t after;
    int ok;
} cold_sample;

#define COLD_MAX_SIZES  16
#define COLD_MAX_ROUNDS 64

/* The child's part: builds the chain of n nodes, analyses it once, writes
 * the sample to fd. */
static int cold_child(long n, const char *passes, int fd) {
    size_t len;
    uint8_t *buf = chain_graphdef(n, &len);
    cold_sample s = {0};
    long rss0 = max_rss_kb(), flt0, flt1;
    double sys0, sys1;
    faults_sys(&flt0, &sys0);
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    s.ok = analyze(buf, len, passes, &s.after);
    s.wall = clock_s(CLOCK_MONOTONIC) - w0;
    s.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    faults_sys(&flt1, &sys1);
    s.sys = sys1 - sys0;
    s.faults = (double)(flt1 - flt0);
    s.rss_kb = (double)(max_rss_kb() - rss0);
    free(buf);
    return write(fd, &s, sizeof s) == (ssize_t)sizeof s && s.ok ? 0 : 1;
}

static bool cold_run(long n, const char *passes, cold_sample *out) {
    int fds[2];
    if (pipe(fds) != 0) {
        return false;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int rc = cold_child(n, passes, fds[1]);
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    bool got = pid > 0 && read(fds[0], out, sizeof *out) == (ssize_t)sizeof *out;
    close(fds[0]);
    int status = 0;
    bool ok =
        pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return got && ok && out->ok;
}

static double cold_median(cold_sample *s, int k, size_t field) {
    double v[COLD_MAX_ROUNDS];
    for (int i = 0; i < k; i++) {
        memcpy(&v[i], (const char *)&s[i] + field, sizeof(double));
    }
    qsort(v, (size_t)k, sizeof(double), cmp_d);
    return median(v, k);
}

static void cold(const char *list, int rounds, const char *passes) {
    long size[COLD_MAX_SIZES];
    int ns = 0;
    for (const char *p = list; *p && ns < COLD_MAX_SIZES;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 4) {
            printf("cold: bad size list '%s'\n", list);
            return;
        }
        size[ns++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            printf("cold: bad size list '%s'\n", list);
            return;
        }
    }
    rounds = rounds > COLD_MAX_ROUNDS ? COLD_MAX_ROUNDS : rounds;
    static cold_sample smp[COLD_MAX_SIZES][COLD_MAX_ROUNDS];
    int got[COLD_MAX_SIZES] = {0};
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < ns; j++) {
            int i = r % 2 ? ns - 1 - j : j;
            cold_sample s;
            if (cold_run(size[i], passes, &s)) {
                smp[i][got[i]++] = s;
            } else {
                printf("chain %ld nodes %s cold: the measuring process failed\n", size[i],
                       passes ? passes : "none");
            }
        }
    }
    double cpu0 = 0, wall0 = 0, user0 = 0;
    for (int i = 0; i < ns; i++) {
        int k = got[i];
        if (k == 0) {
            continue;
        }
        double nn = (double)size[i];
        double cpu = cold_median(smp[i], k, offsetof(cold_sample, cpu)) * 1e9 / nn;
        double wall = cold_median(smp[i], k, offsetof(cold_sample, wall)) * 1e9 / nn;
        double flt = cold_median(smp[i], k, offsetof(cold_sample, faults)) / nn;
        double rss = cold_median(smp[i], k, offsetof(cold_sample, rss_kb)) * 1024.0 / nn;
        double share[COLD_MAX_ROUNDS], user[COLD_MAX_ROUNDS], per_fault[COLD_MAX_ROUNDS];
        for (int j = 0; j < k; j++) {
            share[j] = smp[i][j].cpu > 0 ? smp[i][j].sys * 100 / smp[i][j].cpu : 0;
            user[j] = smp[i][j].cpu - smp[i][j].sys;
            per_fault[j] = smp[i][j].faults > 0 ? smp[i][j].sys * 1e6 / smp[i][j].faults : 0;
        }
        qsort(share, (size_t)k, sizeof(double), cmp_d);
        qsort(user, (size_t)k, sizeof(double), cmp_d);
        qsort(per_fault, (size_t)k, sizeof(double), cmp_d);
        double usr = median(user, k) * 1e9 / nn;
        if (cpu0 == 0) {
            cpu0 = cpu;
            wall0 = wall;
            user0 = usr;
        }
        printf("chain %8ld nodes %-8s cold -> %8lld nodes  cpu %6.0f  wall %6.0f  user %6.0f "
               "ns/node  faults %.3f/node  kernel %3.0f%% (%.2f us/fault)  peak rss %5.0f B/node  "
               "x%.2f cpu  x%.2f wall  x%.2f user  (median of %d first analyses)\n",
               size[i], passes ? passes : "none", (long long)smp[i][0].after, cpu, wall, usr, flt,
               median(share, k), median(per_fault, k), rss, cpu / cpu0, wall / wall0, usr / user0,
               k);
    }
    printf("host: a fresh 4 KB page costs the kernel %.2f us (a new 64 MB mapping touched once, "
           "median of 3, after the rounds)\n",
           page_cost_us(64u << 20, 3));
}

/* tiny_cnn with the default passes: microseconds per analysis. */
static void tiny(int runs) {
    size_t len;
    unsigned char *buf = fl_test_read_file(FL_SOURCE_DIR "/tests/data/tiny_cnn.pb", &len);
    if (!buf) {
        printf("tiny_cnn.pb cannot be read\n");
        return;
    }
    const char *modes[2] = {NULL, "default"};
    for (int m = 0; m < 2; m++) {
        double wall[32], cpu[32];
        int batches = runs * 3 > 32 ? 32 : runs * 3;
        int64_t after = 0;
        for (int b = 0; b < batches; b++) {
            double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            for (int i = 0; i < 200; i++) {
                if (!analyze(buf, len, modes[m], &after)) {
                    free(buf);
                    return;
                }
            }
            wall[b] = (clock_s(CLOCK_MONOTONIC) - w0) / 200;
            cpu[b] = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / 200;
        }
        qsort(wall, (size_t)batches, sizeof(double), cmp_d);
        qsort(cpu, (size_t)batches, sizeof(double), cmp_d);
        printf("tiny_cnn.pb (19 nodes) %-8s -> %3lld nodes  wall %7.1f us  cpu %7.1f us per "
               "analysis (median of %d batches of 200)\n",
               modes[m] ? modes[m] : "none", (long long)after, wall[batches / 2] * 1e6,
               cpu[batches / 2] * 1e6, batches);
    }
    free(buf);
}

/* Per analysis of tiny_cnn with the default passes, the thread's CPU time
 * of the analysis alone in three conditions, batches of 200 alternated:
 * back to back (as tiny() measures); after writing 256 KiB of other data
 * (the caches' data evicted as another thread's work would); after the
 * thread slept 50 us (as a server's pool thread sleeps between requests:
 * the CPU goes idle or runs another task). The median batch of each. */
#define WAKE_POLLUTE (256u * 1024)
static void tiny_wake(int runs) {
    size_t len;
    unsigned char *buf = fl_test_read_file(FL_SOURCE_DIR "/tests/data/tiny_cnn.pb", &len);
    unsigned char *junk = malloc(WAKE_POLLUTE);
    if (!buf || !junk) {
        printf("tiny_cnn.pb cannot be read\n");
        free(buf);
        free(junk);
        return;
    }
    static const char *const names[3] = {"back to back", "after 256 KiB written", "after a sleep"};
    double cpu[3][32];
    int batches = runs * 3 > 32 ? 32 : runs * 3;
    for (int b = 0; b < batches; b++) {
        for (int m = 0; m < 3; m++) {
            double sum = 0;
            for (int i = 0; i < 200; i++) {
                if (m == 1) {
                    memset(junk, i, WAKE_POLLUTE);
                    __asm__ volatile("" : : "r"(junk) : "memory");
                } else if (m == 2) {
                    struct timespec nap = {0, 50000};
                    nanosleep(&nap, NULL);
                }
                double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
                if (!analyze(buf, len, "default", NULL)) {
                    free(buf);
                    free(junk);
                    return;
                }
                sum += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
            }
            cpu[m][b] = sum / 200;
        }
    }
    for (int m = 0; m < 3; m++) {
        qsort(cpu[m], (size_t)batches, sizeof(double), cmp_d);
        printf("tiny_cnn.pb default %-22s cpu %6.1f us per analysis (%.2fx back to back; median "
               "of %d batches of 200)\n",
               names[m], cpu[m][batches / 2] * 1e6, cpu[m][batches / 2] / cpu[0][batches / 2],
               batches);
    }
    free(buf);
    free(junk);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--write-chain") == 0) {
        size_t len;
        uint8_t *buf = chain_graphdef(atol(argv[2]), &len);
        FILE *f = fopen(argv[3], "wb");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", argv[3]);
            return 1;
        }
        free(buf);
        return 0;
    }
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    runs = runs < 1 ? 1 : runs;
    printf("foldline %s scaling benchmark (single thread)\n", fl_version());
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "tiny") == 0) {
                tiny(runs);
            } else if (strcmp(argv[i], "tiny-wake") == 0) {
                tiny_wake(runs);
            } else if (strncmp(argv[i], "cold:", 5) == 0) {
                cold(argv[i] + 5, runs, "default");
            } else if (strncmp(argv[i], "cold-none:", 10) == 0) {
                cold(argv[i] + 10, runs, NULL);
            } else if (strncmp(argv[i], "phases:", 7) == 0) {
                phases.on = true;
                chain(atol(argv[i] + 7), runs, 1, 1);
                phases.on = false;
            } else if (strncmp(argv[i], "phases-none:", 12) == 0) {
                phases.on = true;
                chain(atol(argv[i] + 12), runs, 0, 0);
                phases.on = false;
            } else if (strncmp(argv[i], "none:", 5) == 0) {
                chain(atol(argv[i] + 5), runs, 0, 0);
            } else if (strncmp(argv[i], "default:", 8) == 0) {
                chain(atol(argv[i] + 8), runs, 1, 1);
            } else {
                chain(atol(argv[i]), runs, 0, 1);
            }
        }
        return 0;
    }
    tiny(runs);
    chain(10000, runs, 0, 1);
    chain(100000, runs, 0, 1);
    chain(1000000, runs, 0, 1);
    return 0;
}
