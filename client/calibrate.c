/*
 * calibrate.c - `foldline calibrate`: measures this host and writes a
 * loadable profile whose every figure is marked "calibrated DATE on HOST".
 *
 * Measurements (all threads of the machine run at once, best of a few
 * repetitions):
 *  - matrix fp32: a square SGEMM through OpenBLAS, 2*n^3 FLOPs per call. On
 *    a CPU this is the rate conv/matmul ops attain, whichever units the BLAS
 *    uses. (Debian's OpenBLAS is built without sbgemm, so BF16 and the other
 *    dtypes are not measured: they fall back as the roofline rules say.)
 *  - vector fp32: independent FMA chains on the widest vectors the CPU has
 *    (AVX-512, AVX2+FMA, or plain C), 2 FLOPs per lane per FMA.
 *  - bandwidth: a triad c = a + s*b (3 streams counted, no write-allocate)
 *    with a working set of half the L2 per thread (the "L2" level), of twice
 *    the L2 per thread when the CPU has an L3 (the "L3" level, whose capacity
 *    is the largest working set, probed by doubling up to the reported L3
 *    size, still served at the geometric mean of the L3 and DRAM rates or
 *    better), and one well beyond the caches ("DRAM": twice the L3, at least
 *    256 MiB). Cache sizes come from sysfs, else from sysconf (CPUID).
 *  - overhead: the round trip of handing an op to spinning worker threads
 *    and joining them (10th percentile), as runtimes dispatch consecutive ops: a lower
 *    bound for a runtime's per-op dispatch.
 * Full mode stays well under 60 s; --short uses tiny sizes (for tests: the
 * figures are then only indicative). OpenBLAS is loaded with dlopen when
 * calibrate runs (load_openblas below): the executable does not link it, so
 * that the other commands do not pay for its thread pool at start-up.
 */
#include "roofcli.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------- */
/* Worker threads: run fn(i) on every thread at once                         */
/* ------------------------------------------------------------------------- */

typedef struct pool {
    int n;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned gen;
    int pending;
    bool quit;
    void (*fn)(int idx, void *arg);
    void *arg;
} pool;

typedef struct worker {
    pool *p;
    int idx;
} worker;

static void *worker_main(void *v) {
    worker *w = v;
    pool *p = w->p;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit) {
            pthread_cond_wait(&p->go, &p->mu);
        }
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        seen = p->gen;
        void (*fn)(int, void *) = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        if (fn) {
            fn(w->idx, arg);
        }
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) {
            pthread_cond_signal(&p->done);
        }
        pthread_mutex_unlock(&p->mu);
    }
    free(w);
    return NULL;
}

static bool pool_start(pool *p, int n) {
    memset(p, 0, sizeof(*p));
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->th = calloc((size_t)n, sizeof(pthread_t));
    if (!p->th) {
        return false;
    }
    p->n = n;
    for (int i = 0; i < n; i++) {
        worker *w = malloc(sizeof(*w));
        if (!w) {
            p->n = i;
            return false;
        }
        w->p = p;
        w->idx = i;
        if (pthread_create(&p->th[i], NULL, worker_main, w) != 0) {
            free(w);
            p->n = i;
            return false;
        }
    }
    return true;
}

static void pool_run(pool *p, void (*fn)(int, void *), void *arg) {
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->pending = p->n;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    while (p->pending > 0) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
}

static void pool_stop(pool *p) {
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n; i++) {
        pthread_join(p->th[i], NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p->th);
}

/* ------------------------------------------------------------------------- */
/* Vector FMA peak                                                            */
/* ------------------------------------------------------------------------- */

#define FMA_CHAINS 12

typedef struct fma_job {
    long iters;
    _Atomic double sink;
} fma_job;

#if defined(__GNUC__) && defined(__x86_64__)
#define FL_X86 1
#include <immintrin.h>

/* Twelve independent accumulators in registers (spelled out: an array would
 * live in memory at -O2 and measure store forwarding instead of FMAs). */
#define FL_FMA_BODY(T, SET1, FMA)                                                                  \
    T m = SET1(0.999999f), a = SET1(1e-7f);                                                        \
    T c0 = SET1(1), c1 = SET1(2), c2 = SET1(3), c3 = SET1(4), c4 = SET1(5), c5 = SET1(6);          \
    T c6 = SET1(7), c7 = SET1(8), c8 = SET1(9), c9 = SET1(10), c10 = SET1(11), c11 = SET1(12);     \
    for (long it = 0; it < iters; it++) {                                                          \
        c0 = FMA(c0, m, a);                                                                        \
        c1 = FMA(c1, m, a);                                                                        \
        c2 = FMA(c2, m, a);                                                                        \
        c3 = FMA(c3, m, a);                                                                        \
        c4 = FMA(c4, m, a);                                                                        \
        c5 = FMA(c5, m, a);                                                                        \
        c6 = FMA(c6, m, a);                                                                        \
        c7 = FMA(c7, m, a);                                                                        \
        c8 = FMA(c8, m, a);                                                                        \
        c9 = FMA(c9, m, a);                                                                        \
        c10 = FMA(c10, m, a);                                                                      \
        c11 = FMA(c11, m, a);                                                                      \
    }                                                                                              \
    T sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;

__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
    FL_FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps)
    return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
    FL_FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps)
    float v[8];
    _mm256_storeu_ps(v, sum);
    return v[0];
}
#endif

/* Portable fallback: scalar multiply-adds (2 FLOPs each). */
static double fma_scalar(long iters) {
    float acc[FMA_CHAINS];
    for (int c = 0; c < FMA_CHAINS; c++) {
        acc[c] = (float)(c + 1);
    }
    for (long it = 0; it < iters; it++) {
        for (int c = 0; c < FMA_CHAINS; c++) {
            acc[c] = acc[c] * 0.999999f + 1e-7f;
        }
    }
    double s = 0;
    for (int c = 0; c < FMA_CHAINS; c++) {
        s += acc[c];
    }
    return s;
}

static int fma_lanes(const char **isa) {
#ifdef FL_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *isa = "AVX-512";
        return 16;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *isa = "AVX2+FMA";
        return 8;
    }
#endif
    *isa = "scalar C";
    return 1;
}

static void fma_thread(int idx, void *arg) {
    (void)idx;
    fma_job *j = arg;
    const char *isa;
    int lanes = fma_lanes(&isa);
    double s;
#ifdef FL_X86
    if (lanes == 16) {
        s = fma_avx512(j->iters);
    } else if (lanes == 8) {
        s = fma_avx2(j->iters);
    } else {
        s = fma_scalar(j->iters);
    }
#else
    s = fma_scalar(j->iters);
#endif
    atomic_store(&j->sink, s);
}

/* ------------------------------------------------------------------------- */
/* Triad bandwidth                                                            */
/* ------------------------------------------------------------------------- */

typedef struct triad_job {
    float **a, **b, **c;
    size_t n; /* elements per array per thread */
    int reps;
} triad_job;

static void triad_plain(float *c, const float *a, const float *b, float s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        c[i] = a[i] + s * b[i];
    }
}

#ifdef FL_X86
__attribute__((target("avx2"))) static void triad_avx2(float *c, const float *a, const float *b,
                                                       float s, size_t n) {
    __m256 vs = _mm256_set1_ps(s);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_mul_ps(vs, _mm256_loadu_ps(b + i)));
        _mm256_storeu_ps(c + i, v);
    }
    triad_plain(c + i, a + i, b + i, s, n - i);
}
#endif

static void triad_thread(int idx, void *arg) {
    triad_job *j = arg;
    float *a = j->a[idx], *b = j->b[idx], *c = j->c[idx];
#ifdef FL_X86
    bool avx2 = __builtin_cpu_supports("avx2");
#endif
    for (int r = 0; r < j->reps; r++) {
        float s = 1.0f + (float)r * 1e-6f;
#ifdef FL_X86
        if (avx2) {
            triad_avx2(c, a, b, s, j->n);
        } else {
            triad_plain(c, a, b, s, j->n);
        }
#else
        triad_plain(c, a, b, s, j->n);
#endif
        __asm__ volatile("" : : "r"(c) : "memory");
    }
}

/* Bytes/s of the triad with `ws` bytes of working set per thread (3 arrays). */
static double triad_bw(pool *p, size_t ws, int reps, int trials) {
    int n = p->n;
    size_t elems = ws / 3 / sizeof(float);
    if (elems < 256) {
        elems = 256;
    }
    float **a = calloc((size_t)n, sizeof(float *)), **b = calloc((size_t)n, sizeof(float *)),
          **c = calloc((size_t)n, sizeof(float *));
    double best = 0;
    bool ok = a && b && c;
    for (int i = 0; i < n && ok; i++) {
        a[i] = malloc(elems * sizeof(float));
        b[i] = malloc(elems * sizeof(float));
        c[i] = malloc(elems * sizeof(float));
        ok = a[i] && b[i] && c[i];
        for (size_t k = 0; ok && k < elems; k++) {
            a[i][k] = 1.0f;
            b[i][k] = 2.0f;
            c[i][k] = 0.0f;
        }
    }
    if (ok) {
        triad_job j = {a, b, c, elems, reps};
        pool_run(p, triad_thread, &j); /* warm-up: pages touched, caches filled */
        for (int t = 0; t < trials; t++) {
            double t0 = now_s();
            pool_run(p, triad_thread, &j);
            double dt = now_s() - t0;
            double bw = 3.0 * (double)elems * sizeof(float) * reps * n / dt;
            if (bw > best) {
                best = bw;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (a) {
            free(a[i]);
        }
        if (b) {
            free(b[i]);
        }
        if (c) {
            free(c[i]);
        }
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* ------------------------------------------------------------------------- */
/* GEMM                                                                       */
/* ------------------------------------------------------------------------- */

/* OpenBLAS's cblas_sgemm (32-bit integers; CBLAS's enums are ints). */
typedef void (*sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };

/* The library names tried, in order, after $FOLDLINE_OPENBLAS (a path or a
 * name): Debian's and Ubuntu's soname (an alternative among the pthread,
 * OpenMP and serial builds), the unversioned development link, Fedora's
 * pthread and OpenMP builds. */
static const char *const openblas_names[] = {"libopenblas.so.0", "libopenblas.so",
                                             "libopenblasp.so.0", "libopenblaso.so.0"};

/* Loads OpenBLAS and resolves cblas_sgemm; NULL with the reason printed on
 * stderr when it cannot. The library stays loaded until exit. */
static sgemm_fn load_openblas(void) {
    const char *env = getenv("FOLDLINE_OPENBLAS");
    char first_err[512] = "", tried[512] = "";
    size_t used = 0;
    size_t n_names = sizeof openblas_names / sizeof openblas_names[0];
    for (size_t i = env && *env ? 0 : 1; i <= n_names; i++) {
        const char *name = i == 0 ? env : openblas_names[i - 1];
        void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *de = dlerror();
            if (!first_err[0]) {
                snprintf(first_err, sizeof first_err, "%s", de ? de : name);
            }
            if (used < sizeof tried) {
                used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s",
                                         used ? ", " : "", name);
            }
            if (i == 0) { /* an explicit choice: no silent fallback */
                break;
            }
            continue;
        }
        /* POSIX's way to turn dlsym's object pointer into a function one. */
        sgemm_fn f;
        void *sym = dlsym(h, "cblas_sgemm");
        if (!sym) {
            fprintf(stderr, "foldline: calibrate: %s has no cblas_sgemm: %s\n", name, dlerror());
            return NULL;
        }
        memcpy(&f, &sym, sizeof f);
        return f;
    }
    fprintf(stderr,
            "foldline: calibrate: the matrix peak is measured with OpenBLAS, which cannot be "
            "loaded (tried %s: %s); install it (Debian: apt-get install libopenblas0) or set "
            "FOLDLINE_OPENBLAS to the library's path\n",
            tried, first_err);
    return NULL;
}

static double gemm_rate(sgemm_fn sgemm, int n, int trials) {
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof(float)), *b = malloc(nn * sizeof(float)),
          *c = malloc(nn * sizeof(float));
    double best = 0;
    if (a && b && c) {
        for (size_t i = 0; i < nn; i++) {
            a[i] = (float)(i % 7) * 0.25f;
            b[i] = (float)(i % 5) * 0.5f;
        }
        for (int t = 0; t <= trials; t++) {
            double t0 = now_s();
            sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f,
                  c, n);
            double dt = now_s() - t0;
            double rate = 2.0 * (double)n * (double)n * (double)n / dt;
            if (t > 0 && rate > best) { /* the first call warms up */
                best = rate;
            }
        }
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* ------------------------------------------------------------------------- */
/* Dispatch overhead                                                          */
/* ------------------------------------------------------------------------- */

static void progress(const char *what) {
    fprintf(stderr, "calibrate: %s\n", what);
}

/* Runtimes such as ONNX Runtime, oneDNN and OpenMP keep their workers
 * spinning between ops (the caller takes a share of the work itself), so
 * consecutive ops are dispatched without a futex wake-up. The overhead is
 * the round trip of that hand-off: the caller publishes a generation and
 * waits until n - 1 spinning workers acknowledged it. The 10th percentile
 * over the rounds is taken: on a shared host a descheduled worker turns a
 * round into a scheduler time slice, which would dominate a mean or even the
 * median. With one thread nothing is handed off: the figure is
 * then the cost of an indirect call, a floor. */
typedef struct spin_pool {
    _Atomic unsigned gen;
    _Atomic int acks;
    _Atomic int quit;
} spin_pool;

static void cpu_relax(void) {
#ifdef FL_X86
    _mm_pause();
#endif
}

static void *spin_worker(void *v) {
    spin_pool *sp = v;
    unsigned seen = 0; /* the initial generation: a round published before
                          this thread ran is still seen */
    long idle = 0;
    while (!atomic_load(&sp->quit)) {
        unsigned g = atomic_load(&sp->gen);
        if (g == seen) {
            if (++idle % 4096 == 0) {
                sched_yield(); /* a shared host: let others run */
            }
            cpu_relax();
            continue;
        }
        idle = 0;
        seen = g;
        atomic_fetch_add(&sp->acks, 1);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void nothing(int idx, void *arg) {
    (void)idx;
    (void)arg;
}

static double dispatch_s(int nthreads, int rounds) {
    spin_pool sp;
    atomic_init(&sp.gen, 0u);
    atomic_init(&sp.acks, 0);
    atomic_init(&sp.quit, 0);
    int nw = nthreads - 1, started = 0;
    pthread_t *th = calloc((size_t)(nw > 0 ? nw : 1), sizeof(pthread_t));
    double *t = calloc((size_t)rounds, sizeof(double));
    double med = 0;
    if (th && t) {
        for (; started < nw; started++) {
            if (pthread_create(&th[started], NULL, spin_worker, &sp) != 0) {
                break;
            }
        }
        void (*volatile fn)(int, void *) = nothing;
        /* The first tenth warms up; at most about half a second in all. */
        double t_end = now_s() + 0.5;
        int done = 0;
        for (int i = -rounds / 10; i < rounds; i++) {
            double t0 = now_s();
            atomic_store(&sp.acks, 0);
            atomic_fetch_add(&sp.gen, 1u);
            fn(0, NULL);
            while (atomic_load(&sp.acks) < started) {
                cpu_relax();
            }
            double t1 = now_s();
            if (i >= 0) {
                t[done++] = t1 - t0;
            }
            if (t1 > t_end && done >= 16) {
                break;
            }
        }
        atomic_store(&sp.quit, 1);
        for (int i = 0; i < started; i++) {
            pthread_join(th[i], NULL);
        }
        qsort(t, (size_t)done, sizeof(double), cmp_double);
        med = done ? t[done / 10] : 0;
        char msg[128];
        snprintf(msg, sizeof msg, "  %d rounds: p10 %.3g s, median %.3g s", done, med,
                 done ? t[done / 2] : 0);
        progress(msg);
    }
    free(th);
    free(t);
    return med;
}

/* ------------------------------------------------------------------------- */
/* The command                                                                */
/* ------------------------------------------------------------------------- */

/* Size of the level-`level` data/unified cache of cpu0 in bytes: sysfs, else
 * glibc's sysconf (which reads CPUID; containers and VMs often hide sysfs's
 * cache directory); 0 when unknown. */
static size_t cache_bytes(int level) {
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) {
            break;
        }
        int lv = 0;
        if (fscanf(f, "%d", &lv) != 1) {
            lv = 0;
        }
        fclose(f);
        if (lv != level) {
            continue;
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        f = fopen(path, "r");
        if (f) {
            bool instr = fgets(buf, sizeof buf, f) && strncmp(buf, "Instruction", 11) == 0;
            fclose(f);
            if (instr) {
                continue;
            }
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f) {
            continue;
        }
        size_t v = 0;
        char unit = 0;
        if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%zu%c", &v, &unit) < 1) {
            v = 0;
        }
        fclose(f);
        return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
    }
    long v = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    if (level == 2) {
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    } else if (level == 3) {
        v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    }
#endif
    return v > 0 ? (size_t)v : 0;
}

int fl_cmd_calibrate(int argc, char **argv) {
    const char *out_path = NULL, *name = "host-calibrated";
    bool shortm = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--short") == 0) {
            shortm = true;
        } else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--name") == 0) && i + 1 < argc) {
            if (argv[i][1] == 'o') {
                out_path = argv[++i];
            } else {
                name = argv[++i];
            }
        } else {
            fprintf(stderr,
                    "foldline: calibrate: unexpected argument '%s'\n(see foldline --help)\n",
                    argv[i]);
            return 2;
        }
    }
    sgemm_fn sgemm = load_openblas(); /* first: fail before minutes of measuring */
    if (!sgemm) {
        return 3;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu > 0 && ncpu < 1024 ? (int)ncpu : 1;
    char host[128] = "unknown-host";
    if (gethostname(host, sizeof host - 1) != 0) {
        snprintf(host, sizeof host, "unknown-host");
    }
    host[sizeof host - 1] = '\0';
    char date[32];
    time_t t = time(NULL);
    struct tm tmv;
    gmtime_r(&t, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    char src[256];
    snprintf(src, sizeof src, "calibrated %s on %s (foldline calibrate%s, %d threads)", date, host,
             shortm ? " --short: indicative only" : "", nthreads);

    pool p;
    if (!pool_start(&p, nthreads)) {
        fprintf(stderr, "foldline: calibrate: cannot start %d threads\n", nthreads);
        pool_stop(&p);
        return 3;
    }
    double t_start = now_s();
    char msg[160];

    /* Vector FMA. */
    const char *isa;
    int lanes = fma_lanes(&isa);
    snprintf(msg, sizeof msg, "vector FMA peak (%s, %d threads)...", isa, nthreads);
    progress(msg);
    fma_job fj;
    fj.iters = shortm ? 20000 : 4000000;
    atomic_init(&fj.sink, 0.0);
    double vec = 0;
    for (int tr = 0; tr < (shortm ? 2 : 3); tr++) {
        double t0 = now_s();
        pool_run(&p, fma_thread, &fj);
        double dt = now_s() - t0;
        double r = 2.0 * FMA_CHAINS * lanes * (double)fj.iters * nthreads / dt;
        if (r > vec) {
            vec = r;
        }
    }

    /* GEMM. */
    double mat32 = 0;
    int n = shortm ? 256 : 2048;
    snprintf(msg, sizeof msg, "matrix peak: OpenBLAS sgemm n=%d...", n);
    progress(msg);
    mat32 = gemm_rate(sgemm, n, shortm ? 2 : 4);

    /* Bandwidth. */
    size_t l2 = cache_bytes(2);
    if (l2 == 0) {
        l2 = 256 << 10;
    }
    progress("bandwidth: L2-resident triad...");
    double bw_l2 = triad_bw(&p, l2 / 2, shortm ? 20 : 400, 3);

    /* Main memory: well beyond every cache (twice the L3 when there is one,
     * at least 256 MiB in all, at most 2 GiB or half the RAM). */
    size_t l3 = cache_bytes(3);
    size_t l2_all = l2 * (size_t)nthreads;
    bool has_l3 = l3 > 2 * l2_all;
    size_t dram_total = (size_t)256 << 20;
    if (has_l3 && 2 * l3 > dram_total) {
        dram_total = 2 * l3;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t ram_half = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : dram_total;
    if (dram_total > ((size_t)2 << 30)) {
        dram_total = (size_t)2 << 30;
    }
    if (dram_total > ram_half) {
        dram_total = ram_half;
    }
    size_t dram_ws = shortm ? ((size_t)8 << 20) : dram_total / (size_t)nthreads;
    progress("bandwidth: DRAM triad...");
    double bw_dram = triad_bw(&p, dram_ws, shortm ? 1 : 4, shortm ? 2 : 3);

    /* L3: the triad at twice the L2s (half the L3 at most), then the
     * effective capacity: the largest working set, doubling up to the reported
     * L3 size, still served at least at the geometric mean of the L3 and DRAM
     * rates (a VM's CPUID may report a whole socket's L3 while a core's slice
     * is much smaller; --short skips the probe). */
    double bw_l3 = 0;
    size_t l3_cap = 0, l3_ws = 0;
    if (has_l3) {
        l3_ws = 2 * l2;
        if (l3_ws * (size_t)nthreads > l3 / 2) {
            l3_ws = l3 / 2 / (size_t)nthreads;
        }
        snprintf(msg, sizeof msg, "bandwidth: L3 triad (L3 %zu KiB)...", l3 >> 10);
        progress(msg);
        bw_l3 = triad_bw(&p, l3_ws, shortm ? 4 : 100, 3);
        l3_cap = l3_ws * (size_t)nthreads;
        double knee = sqrt(bw_l3 * bw_dram);
        for (size_t tot = 2 * l3_cap; !shortm && bw_l3 > bw_dram && tot <= l3 && tot < dram_total;
             tot *= 2) {
            int reps = (int)(((size_t)128 << 20) / tot);
            double bw = triad_bw(&p, tot / (size_t)nthreads, reps > 1 ? reps : 1, 2);
            snprintf(msg, sizeof msg, "  %zu KiB in all: %.3g B/s", tot >> 10, bw);
            progress(msg);
            if (bw < knee) {
                break;
            }
            l3_cap = tot;
        }
        if (bw_l3 <= bw_dram) {
            has_l3 = false; /* no faster than main memory: not a level of its own */
        }
    }

    /* Dispatch. */
    pool_stop(&p);
    progress("dispatch overhead: spinning thread-pool hand-off...");
    double ovh = dispatch_s(nthreads, shortm ? 200 : 20000);
    snprintf(msg, sizeof msg, "done in %.1f s", now_s() - t_start);
    progress(msg);

    FILE *f = stdout;
    if (out_path) {
        f = fopen(out_path, "w");
        if (!f) {
            fprintf(stderr, "foldline: calibrate: cannot write '%s': %s\n", out_path,
                    strerror(errno));
            return 3;
        }
    }
    fprintf(f, "# Written by foldline calibrate %s on %s. Every figure is measured here.\n", date,
            host);
    fprintf(f, "schema: 1\nname: %s\nkind: cpu\n", name);
    fprintf(f, "description: \"%s, %d threads, measured by foldline calibrate%s\"\n", host,
            nthreads, shortm ? " --short" : "");
    fprintf(f, "compute:\n  vector:\n");
    fprintf(f, "    fp32: {peak: %.4g, source: \"%s: %s FMA chains\"}\n", vec, src, isa);
    if (mat32 > 0) {
        fprintf(f, "  matrix:\n");
        fprintf(f, "    fp32: {peak: %.4g, source: \"%s: OpenBLAS sgemm\"}\n", mat32, src);
    }
    fprintf(f, "memory:\n");
    fprintf(f,
            "  - {name: L2, bandwidth: %.4g, capacity: %zu, source: \"%s: triad, %zu KiB per "
            "thread\"}\n",
            bw_l2, l2 * (size_t)nthreads, src, l2 / 2 / 1024);
    if (has_l3) {
        fprintf(f,
                "  - {name: L3, bandwidth: %.4g, capacity: %zu, source: \"%s: triad, %zu KiB per "
                "thread; capacity: largest working set served at L3 speed (reported L3 %zu "
                "KiB)\"}\n",
                bw_l3, l3_cap, src, l3_ws >> 10, l3 >> 10);
    }
    fprintf(f, "  - {name: DRAM, bandwidth: %.4g, source: \"%s: triad, %zu MiB per thread\"}\n",
            bw_dram, src, dram_ws >> 20);
    fprintf(f,
            "overhead: {seconds: %.4g, source: \"%s: spinning thread-pool hand-off round trip, "
            "median\"}\n",
            ovh > 0 ? ovh : 1e-9, src);
    if (out_path && fclose(f) != 0) {
        fprintf(stderr, "foldline: calibrate: cannot write '%s'\n", out_path);
        return 3;
    }
    if (out_path) {
        fprintf(stderr,
                "calibrate: wrote %s (vector fp32 %.3g FLOP/s, sgemm %.3g FLOP/s, L2 %.3g "
                "B/s, L3 %.3g B/s, DRAM %.3g B/s, dispatch %.3g s)\n",
                out_path, vec, mat32, bw_l2, bw_l3, bw_dram, ovh);
    }
    return 0;
}
