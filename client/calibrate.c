/*
 * calibrate.c - `foldline calibrate`: measures this host and writes a
 * loadable profile whose every figure is marked "calibrated DATE on HOST".
 *
 * Measurements (with --threads N threads at once, default every online CPU;
 * --threads 1 gives single-core figures; each the best of many short
 * trials, counting only the undisturbed ones: see best_trial):
 *  - matrix fp32: the vector FMA peak below, the units a CPU's GEMM runs on,
 *    so that the profile's peaks bound every runtime's kernels. A square
 *    SGEMM through OpenBLAS (2*n^3 FLOPs per call, n = 512 per thread, at
 *    most 2048: a few milliseconds per call) is measured beside it and its
 *    share of that peak written in the source: it is one library's rate, not
 *    the hardware's. OpenBLAS 0.3.21 runs its AVX2 (Haswell) kernels on a
 *    Zen 5 EPYC, at 45 % of the AVX-512 peak, while ONNX Runtime's own GEMM
 *    reached 63-69 % of it there: with the sgemm figure as the peak, a
 *    roofline labelled a lower bound on time was above ONNX Runtime's
 *    measured time for large MatMuls. (Debian's OpenBLAS is built without
 *    sbgemm, so BF16 and the other dtypes are not measured: they fall back
 *    as the roofline rules say.)
 *  - int8 (x86 with AVX2): independent chains of int8 dot products, the
 *    instructions int8 GEMMs use (vpdpbusd with AVX-512 VNNI or AVX-VNNI,
 *    else vpmaddubsw/vpmaddwd/vpaddd), 2 operations per u8 x s8
 *    multiply-add as foldline counts int_ops; written as the vector and the
 *    matrix int8 peak. Without it, int8 contractions ran at the fp32 peak,
 *    and ONNX Runtime's MatMulInteger outran that "lower bound" by 2x.
 *  - vector fp32: independent FMA chains on the widest vectors the CPU has
 *    (AVX-512, AVX2+FMA, or plain C), 2 FLOPs per lane per FMA, in trials of
 *    about half a millisecond. Timed as three long trials by the wall clock
 *    alone, a busy host read both compute peaks at a third of the quiet ones.
 *  - bandwidth: a triad c = a + s*b (3 streams counted, no write-allocate)
 *    with a working set of half the L2 per thread (the "L2" level), of twice
 *    the L2 per thread when the CPU has an L3 (the "L3" level, whose capacity
 *    is the largest working set, probed by doubling up to the reported L3
 *    size, still served at the geometric mean of the L3 and DRAM rates or
 *    better), and one well beyond the caches ("DRAM": twice the L3, at least
 *    256 MiB). Cache sizes come from sysfs, else from sysconf (CPUID).
 *    Each level is the best of many short trials (24 MiB of triad per
 *    thread, a fraction of a millisecond in cache) run in a time budget,
 *    counting only trials during which every thread kept its CPU (thread CPU
 *    time >= 98 % of wall time). A trial that was descheduled counts another
 *    task's time slice and restarts with its caches evicted: with a few long
 *    trials timed by the wall clock alone, a busy host measured the L2 below
 *    the L3. A level still measured below a slower one is reported as a
 *    busy host (a warning on stderr and in the profile), as are a figure
 *    none of whose trials ran undisturbed and compute peaks out of order
 *    (cal_warnings).
 *  - overhead: the round trip of handing an op to spinning worker threads
 *    and joining them (10th percentile; the source says so and gives the
 *    median too), as runtimes dispatch consecutive ops: a lower bound for a
 *    runtime's per-op dispatch. `foldline fit` replaces it with the per-op
 *    cost a runtime's traces show.
 * Full mode stays well under 60 s; --short uses tiny sizes (for tests: the
 * figures are then only indicative). OpenBLAS is loaded with dlopen when
 * calibrate runs (load_openblas below): the executable does not link it, so
 * that the other commands do not pay for its thread pool at start-up.
 */
#include "cli.h"
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

/* Per-thread clocks of one trial on the pool (trial_begin/trial_end): wall
 * start and end, thread CPU time; the threads start together behind a spin
 * barrier, so the pool's wake-ups are not timed. */
typedef struct trial_clock {
    double *t0, *t1, *cpu;
    _Atomic int arrived;
    int nthreads;
} trial_clock;

/* A chain trial: `kernel` runs `iters` steps of independent chains on
 * each thread (fp32 FMAs, or int8 dot products: u8 x s8 multiply-adds
 * summed into int32 lanes, as int8 GEMM kernels do). */
typedef struct fma_job {
    long iters;
    _Atomic double sink;
    trial_clock k;
    double (*kernel)(long iters);
} fma_job;

static double trial_begin(trial_clock *k, int idx);
static void trial_end(trial_clock *k, int idx, double cpu0);

#if defined(__GNUC__) && defined(__x86_64__)
#define FL_X86 1
#include <cpuid.h>
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

/* Int8 dot products: independent int32 accumulators, each step adding 4
 * u8 x s8 products per 32-bit lane (VNNI's vpdpbusd; without VNNI, the
 * vpmaddubsw / vpmaddwd / vpaddd sequence int8 GEMMs use on AVX2). The
 * steps are written in asm, the accumulators its register operands: with
 * intrinsics of constant operands each step adds a constant, which clang
 * folds (it turned a loop of them into one multiply), and GCC 12 kept the
 * 256-bit accumulators on the stack, storing them every step. The products
 * do not depend on the accumulators, as in a GEMM kernel, where they come
 * from loads. DOT_STEP12 is twelve steps of one instruction; "%{vex%}"
 * asks the assembler for AVX-VNNI's VEX encoding (its default for a ymm
 * vpdpbusd is AVX-512 VNNI's EVEX one, which an AVX-VNNI CPU lacks). */
#define DOT_STEP12(OP)                                                                             \
    OP " %[b], %[a], %[c0]\n\t" OP " %[b], %[a], %[c1]\n\t" OP " %[b], %[a], %[c2]\n\t" OP         \
       " %[b], %[a], %[c3]\n\t" OP " %[b], %[a], %[c4]\n\t" OP " %[b], %[a], %[c5]\n\t" OP         \
       " %[b], %[a], %[c6]\n\t" OP " %[b], %[a], %[c7]\n\t" OP " %[b], %[a], %[c8]\n\t" OP         \
       " %[b], %[a], %[c9]\n\t" OP " %[b], %[a], %[c10]\n\t" OP " %[b], %[a], %[c11]\n\t"
#define DOT_OUT12(R)                                                                               \
    [c0] R(c0), [c1] R(c1), [c2] R(c2), [c3] R(c3), [c4] R(c4), [c5] R(c5), [c6] R(c6),            \
        [c7] R(c7), [c8] R(c8), [c9] R(c9), [c10] R(c10), [c11] R(c11)
/* Accumulators as twelve variables (in an array GCC stored them every
 * iteration) and their sum, which keeps them live. */
#define DOT_VARS12(T, SET)                                                                         \
    T c0 = SET(1), c1 = SET(2), c2 = SET(3), c3 = SET(4), c4 = SET(5), c5 = SET(6), c6 = SET(7);   \
    T c7 = SET(8), c8 = SET(9), c9 = SET(10), c10 = SET(11), c11 = SET(12)
#define DOT_SUM12(ADD)                                                                             \
    ADD(ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))),                         \
        ADD(ADD(c8, c9), ADD(c10, c11)))

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static double dot_vnni512(long iters) {
    __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5);
    DOT_VARS12(__m512i, _mm512_set1_epi32);
    for (long it = 0; it < iters; it++) {
        __asm__(DOT_STEP12("vpdpbusd") : DOT_OUT12("+v") : [a] "v"(a), [b] "v"(b));
    }
    /* one lane, read as unsigned: the accumulators wrap, as the hardware's
     * do (the header's _mm512_reduce_add_epi32 adds as int: UB then) */
    __m512i sum = DOT_SUM12(_mm512_add_epi32);
    unsigned x[16];
    memcpy(x, &sum, sizeof x);
    return (double)x[0];
}

__attribute__((target("avx2"))) static double dot_lane0(__m256i sum) {
    unsigned x[8];
    memcpy(x, &sum, sizeof x);
    return (double)x[0];
}

__attribute__((target("avx2,avxvnni"))) static double dot_vnni256(long iters) {
    __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(5);
    DOT_VARS12(__m256i, _mm256_set1_epi32);
    for (long it = 0; it < iters; it++) {
        __asm__(DOT_STEP12("%{vex%} vpdpbusd") : DOT_OUT12("+x") : [a] "x"(a), [b] "x"(b));
    }
    return dot_lane0(DOT_SUM12(_mm256_add_epi32));
}

/* AVX2: eight accumulators, the products in two temporaries in turn (eight
 * accumulators, a, b, the ones and two temporaries fill 13 of the 16
 * registers). */
#define MADD_STEP(T, C)                                                                            \
    "vpmaddubsw %[b], %[a], %[" T "]\n\t"                                                          \
    "vpmaddwd %[one], %[" T "], %[" T "]\n\t"                                                      \
    "vpaddd %[" T "], %[" C "], %[" C "]\n\t"
__attribute__((target("avx2"))) static double dot_avx2(long iters) {
    __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(5), one = _mm256_set1_epi16(1);
    DOT_VARS12(__m256i, _mm256_set1_epi32);
    __m256i t0, t1;
    for (long it = 0; it < iters; it++) {
        __asm__(MADD_STEP("t0", "c0") MADD_STEP("t1", "c1") MADD_STEP("t0", "c2")
                    MADD_STEP("t1", "c3") MADD_STEP("t0", "c4") MADD_STEP("t1", "c5")
                        MADD_STEP("t0", "c6") MADD_STEP("t1", "c7")
                : [c0] "+x"(c0), [c1] "+x"(c1), [c2] "+x"(c2), [c3] "+x"(c3), [c4] "+x"(c4),
                  [c5] "+x"(c5), [c6] "+x"(c6), [c7] "+x"(c7), [t0] "=&x"(t0), [t1] "=&x"(t1)
                : [a] "x"(a), [b] "x"(b), [one] "x"(one));
    }
    /* c8..c11 are not stepped (eight chains here), only summed */
    return dot_lane0(DOT_SUM12(_mm256_add_epi32));
}
#undef MADD_STEP

/* CPUID leaf 7 feature bits the compilers' __builtin_cpu_supports does not
 * all know (clang 14 has no "avxvnni"): subleaf 0 ECX bit 11 AVX512_VNNI,
 * subleaf 1 EAX bit 4 AVX-VNNI. The OS's saving of the registers is what
 * __builtin_cpu_supports checks for AVX-512 and AVX2. */
static bool cpuid7_bit(unsigned sub, int reg, unsigned bit) {
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(7, sub, &r[0], &r[1], &r[2], &r[3])) {
        return false;
    }
    return (r[reg] >> bit) & 1u;
}
#endif

/* The test knob's dot8=avxvnni (1) or dot8=avx2 (2): the widest kernel
 * tried, so that tests run each one a host has; 0: the widest there is. */
static int dot8_cap;

/* The int8 dot-product units: *isa names them, *kernel runs their chains,
 * the result is the int8 operations (2 per multiply-add) of one iteration
 * of the kernel's loop on one thread; 0 without them (no int8 figure: int8
 * work then runs as fp32, as the roofline rules say). */
static int dot8_ops(const char **isa, double (**kernel)(long)) {
#ifdef FL_X86
    __builtin_cpu_init();
    if (dot8_cap < 1 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        cpuid7_bit(0, 2, 11)) {
        *isa = "AVX-512 VNNI (vpdpbusd)";
        *kernel = dot_vnni512;
        return 12 * 2 * 4 * 16;
    }
    if (dot8_cap < 2 && __builtin_cpu_supports("avx2") && cpuid7_bit(1, 0, 4)) {
        *isa = "AVX-VNNI (vpdpbusd)";
        *kernel = dot_vnni256;
        return 12 * 2 * 4 * 8;
    }
    if (__builtin_cpu_supports("avx2")) {
        *isa = "AVX2 (vpmaddubsw, vpmaddwd, vpaddd)";
        *kernel = dot_avx2;
        return 8 * 2 * 4 * 8;
    }
#endif
    *isa = "";
    *kernel = NULL;
    return 0;
}

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

static int fma_lanes(const char **isa, double (**kernel)(long)) {
#ifdef FL_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *isa = "AVX-512";
        *kernel = fma_avx512;
        return 16;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *isa = "AVX2+FMA";
        *kernel = fma_avx2;
        return 8;
    }
#endif
    *isa = "scalar C";
    *kernel = fma_scalar;
    return 1;
}

static void fma_thread(int idx, void *arg) {
    fma_job *j = arg;
    double cpu0 = trial_begin(&j->k, idx);
    double s = j->kernel(j->iters);
    trial_end(&j->k, idx, cpu0);
    atomic_store(&j->sink, s);
}

/* ------------------------------------------------------------------------- */
/* Triad bandwidth                                                            */
/* ------------------------------------------------------------------------- */

/* A trial walks TRIAL_BYTES of triad per thread (about 0.3 ms at L2 speed,
 * well inside a scheduler time slice), continuing cyclically through the
 * arrays where the previous trial stopped: a cache-sized working set is swept
 * many times, a DRAM-sized one in consecutive chunks that were evicted since
 * they were last touched. */
#define TRIAL_BYTES ((size_t)24 << 20)

typedef struct triad_job {
    float **a, **b, **c;
    size_t n;    /* elements per array per thread */
    size_t step; /* elements per thread per trial */
    size_t *pos; /* per thread: where the next trial starts */
    trial_clock k;
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

static double thread_cpu_s(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
        return -1;
    }
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void cpu_relax(void);

/* Waits for every thread of the trial, then starts this one's clocks;
 * returns its thread CPU time (-1 without a thread CPU clock). */
static double trial_begin(trial_clock *k, int idx) {
    atomic_fetch_add(&k->arrived, 1);
    while (atomic_load(&k->arrived) < k->nthreads) {
        cpu_relax();
    }
    double cpu0 = thread_cpu_s();
    k->t0[idx] = now_s();
    return cpu0;
}

static void trial_end(trial_clock *k, int idx, double cpu0) {
    k->t1[idx] = now_s();
    double cpu1 = thread_cpu_s();
    k->cpu[idx] = cpu0 >= 0 && cpu1 >= 0 ? cpu1 - cpu0 : -1; /* -1: no thread CPU clock */
}

/* The trial's wall time (first start to last end) and whether it ran
 * undisturbed: each thread on its CPU for at least 98 % of its wall time,
 * so not descheduled (on a busy host a preempted trial counts the other
 * task's time slice and finds its caches evicted). Without a thread CPU
 * clock every trial counts, as the best of all trials did before. */
static double trial_wall(trial_clock *k, bool *clean) {
    double t0 = k->t0[0], t1 = k->t1[0];
    *clean = true;
    for (int i = 0; i < k->nthreads; i++) {
        t0 = k->t0[i] < t0 ? k->t0[i] : t0;
        t1 = k->t1[i] > t1 ? k->t1[i] : t1;
        if (k->cpu[i] >= 0 && k->cpu[i] < 0.98 * (k->t1[i] - k->t0[i])) {
            *clean = false;
        }
    }
    atomic_store(&k->arrived, 0);
    return t1 - t0;
}

/* Set from FOLDLINE_CALIBRATE_TEST (parse_test_knob): every trial counts as
 * disturbed, so that the busy-host fallback runs on any host. */
static bool all_disturbed;

/* What a timed measurement saw: trials run and those undisturbed. */
typedef struct trial_stats {
    int trials, clean;
} trial_stats;

/* The best rate among trials of fn (rate per trial, *clean whether the
 * trial ran undisturbed) run in `budget_s` seconds (at least 3, at most
 * max_trials): the best undisturbed one, the best of all when none ran
 * undisturbed (st says so). */
static double best_trial(double (*fn)(void *ctx, bool *clean), void *ctx, int max_trials,
                         double budget_s, trial_stats *st) {
    double best = 0, best_any = 0;
    memset(st, 0, sizeof(*st));
    double t_end = now_s() + budget_s;
    while (st->trials < max_trials && (st->trials < 3 || now_s() < t_end)) {
        bool clean;
        double r = fn(ctx, &clean);
        clean = clean && !all_disturbed;
        st->trials++;
        best_any = r > best_any ? r : best_any;
        if (clean) {
            st->clean++;
            best = r > best ? r : best;
        }
    }
    return st->clean ? best : best_any;
}

static void triad_thread(int idx, void *arg) {
    triad_job *j = arg;
    float *a = j->a[idx], *b = j->b[idx], *c = j->c[idx];
#ifdef FL_X86
    bool avx2 = __builtin_cpu_supports("avx2");
#endif
    double cpu0 = trial_begin(&j->k, idx);
    size_t left = j->step, pos = j->pos[idx];
    for (int r = 0; left > 0; r++) {
        size_t len = j->n - pos < left ? j->n - pos : left;
        float s = 1.0f + (float)r * 1e-6f;
#ifdef FL_X86
        if (avx2) {
            triad_avx2(c + pos, a + pos, b + pos, s, len);
        } else {
            triad_plain(c + pos, a + pos, b + pos, s, len);
        }
#else
        triad_plain(c + pos, a + pos, b + pos, s, len);
#endif
        __asm__ volatile("" : : "r"(c) : "memory");
        left -= len;
        pos = pos + len == j->n ? 0 : pos + len;
    }
    trial_end(&j->k, idx, cpu0);
    j->pos[idx] = pos;
}

typedef struct triad_ctx {
    pool *p;
    triad_job *j;
} triad_ctx;

/* One timed trial of the triad: bytes/s over every thread. */
static double triad_trial(void *ctx, bool *clean) {
    triad_ctx *t = ctx;
    pool_run(t->p, triad_thread, t->j);
    double dt = trial_wall(&t->j->k, clean);
    return dt > 0 ? 3.0 * (double)t->j->step * sizeof(float) * t->j->k.nthreads / dt : 0;
}

static float **alloc_arrays(int n, size_t elems, float v) {
    float **x = calloc((size_t)n, sizeof(float *));
    for (int i = 0; x && i < n; i++) {
        x[i] = malloc(elems * sizeof(float));
        for (size_t k = 0; x[i] && k < elems; k++) {
            x[i][k] = v;
        }
    }
    return x;
}

static void free_arrays(float **x, int n) {
    for (int i = 0; x && i < n; i++) {
        free(x[i]);
    }
    free(x);
}

/* Bytes/s of the triad with `ws` bytes of working set per thread (3 arrays):
 * the best undisturbed trial among those run in `budget_s` seconds (at least
 * 3, at most 1000); the best of all when none ran undisturbed (st says so). */
static double triad_bw(pool *p, size_t ws, double budget_s, trial_stats *st) {
    int n = p->n;
    size_t elems = ws / 3 / sizeof(float);
    elems = elems < 256 ? 256 : elems;
    float **a = alloc_arrays(n, elems, 1.0f), **b = alloc_arrays(n, elems, 2.0f),
          **c = alloc_arrays(n, elems, 0.0f);
    size_t *pos = calloc((size_t)n, sizeof(size_t));
    double *tt = calloc(3 * (size_t)n, sizeof(double));
    bool ok = a && b && c && pos && tt;
    for (int i = 0; ok && i < n; i++) {
        ok = a[i] && b[i] && c[i];
    }
    double best = 0;
    memset(st, 0, sizeof(*st));
    if (ok) {
        size_t step = TRIAL_BYTES / 3 / sizeof(float);
        triad_job j = {a, b, c, elems, elems, pos, {tt, tt + n, tt + 2 * n, 0, n}};
        triad_ctx ctx = {p, &j};
        bool clean;
        triad_trial(&ctx, &clean); /* warm-up: pages touched, caches filled */
        j.step = step > elems ? step : elems;
        best = best_trial(triad_trial, &ctx, 1000, budget_s, st);
    }
    free_arrays(a, n);
    free_arrays(b, n);
    free_arrays(c, n);
    free(pos);
    free(tt);
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

/* The kernel set OpenBLAS chose for this CPU (openblas_get_corename; ""
 * when the library does not say). */
static char openblas_core[32];

/* Loads OpenBLAS and resolves cblas_sgemm; NULL with the reason printed on
 * stderr when it cannot. The library stays loaded until exit. */
static sgemm_fn load_openblas(int nthreads) {
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
        void *core = dlsym(h, "openblas_get_corename");
        if (core) { /* which kernels it chose for this CPU, for the source */
            char *(*corename)(void);
            memcpy(&corename, &core, sizeof corename);
            const char *cn = corename();
            snprintf(openblas_core, sizeof openblas_core, "%s", cn ? cn : "");
        }
        void *set = dlsym(h, "openblas_set_num_threads");
        if (set) { /* besides OPENBLAS_NUM_THREADS, for a library loaded earlier */
            void (*set_threads)(int);
            memcpy(&set_threads, &set, sizeof set_threads);
            set_threads(nthreads);
        }
        return f;
    }
    fprintf(stderr,
            "foldline: calibrate: the matrix peak is measured with OpenBLAS, which cannot be "
            "loaded (tried %s: %s); install it (Debian: apt-get install libopenblas0) or set "
            "FOLDLINE_OPENBLAS to the library's path\n",
            tried, first_err);
    return NULL;
}

typedef struct gemm_job {
    sgemm_fn sgemm;
    int n, nthreads;
    float *a, *b, *c;
} gemm_job;

static double process_cpu_s(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
        return -1;
    }
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed n x n SGEMM: FLOP/s. OpenBLAS runs it on its own threads, so
 * undisturbed here is the process's CPU time (our pool's threads sleep
 * meanwhile) at least 98 % of nthreads times the wall time. */
static double gemm_trial(void *ctx, bool *clean) {
    gemm_job *g = ctx;
    double c0 = process_cpu_s(), t0 = now_s();
    g->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, g->n, g->n, g->n, 1.0f, g->a, g->n,
             g->b, g->n, 0.0f, g->c, g->n);
    double dt = now_s() - t0, c1 = process_cpu_s();
    *clean = c0 < 0 || c1 < 0 || c1 - c0 >= 0.98 * g->nthreads * dt;
    return dt > 0 ? 2.0 * (double)g->n * (double)g->n * (double)g->n / dt : 0;
}

/* FLOP/s of an n x n SGEMM: the best undisturbed call in `budget_s`
 * seconds, after one call that warms up. */
static double gemm_rate(sgemm_fn sgemm, int n, int nthreads, double budget_s, trial_stats *st) {
    size_t nn = (size_t)n * (size_t)n;
    gemm_job g = {sgemm,
                  n,
                  nthreads,
                  malloc(nn * sizeof(float)),
                  malloc(nn * sizeof(float)),
                  malloc(nn * sizeof(float))};
    double best = 0;
    memset(st, 0, sizeof(*st));
    if (g.a && g.b && g.c) {
        for (size_t i = 0; i < nn; i++) {
            g.a[i] = (float)(i % 7) * 0.25f;
            g.b[i] = (float)(i % 5) * 0.5f;
        }
        bool clean;
        gemm_trial(&g, &clean);
        best = best_trial(gemm_trial, &g, 1000, budget_s, st);
    }
    free(g.a);
    free(g.b);
    free(g.c);
    return best;
}

/* ------------------------------------------------------------------------- */
/* Dispatch overhead                                                          */
/* ------------------------------------------------------------------------- */

/* One line per step on stderr, only when it is a terminal (a person
 * waiting); piped or redirected, calibrate prints its result line only. */
static void progress(const char *what) {
    static double t0;
    double t = now_s();
    t0 = t0 > 0 ? t0 : t;
    if (isatty(STDERR_FILENO) == 1) {
        fprintf(stderr, "calibrate: [%5.1f s] %s\n", t - t0, what);
    }
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

typedef struct dispatch_fig {
    double p10, median; /* seconds per round trip */
    int rounds;
} dispatch_fig;

static dispatch_fig dispatch_s(int nthreads, int rounds) {
    spin_pool sp;
    atomic_init(&sp.gen, 0u);
    atomic_init(&sp.acks, 0);
    atomic_init(&sp.quit, 0);
    int nw = nthreads - 1, started = 0;
    pthread_t *th = calloc((size_t)(nw > 0 ? nw : 1), sizeof(pthread_t));
    double *t = calloc((size_t)rounds, sizeof(double));
    dispatch_fig fig = {0, 0, 0};
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
        fig.p10 = done ? t[done / 10] : 0;
        fig.median = done ? t[done / 2] : 0;
        fig.rounds = done;
        char msg[128];
        snprintf(msg, sizeof msg, "  %d rounds: p10 %.3g s, median %.3g s", done, fig.p10,
                 fig.median);
        progress(msg);
    }
    free(th);
    free(t);
    return fig;
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

/* The profile name for -o PATH: the file's name without .yaml/.yml (profiles
 * in a directory are named after their files), else "host-calibrated". */
static void default_name(const char *out_path, char *buf, size_t size) {
    snprintf(buf, size, "host-calibrated");
    if (!out_path) {
        return;
    }
    const char *base = strrchr(out_path, '/');
    base = base ? base + 1 : out_path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0) {
        n -= 5;
    } else if (n > 4 && strcmp(base + n - 4, ".yml") == 0) {
        n -= 4;
    }
    if (n > 0 && n < size) {
        snprintf(buf, size, "%.*s", (int)n, base);
    }
}

/* Options of `calibrate`; 0 or the exit status of a usage error (printed). */
typedef struct cal_opts {
    const char *out_path, *name;
    bool shortm;
    int threads; /* 0: every online CPU */
} cal_opts;

static int parse_cal(int argc, char **argv, cal_opts *o) {
    memset(o, 0, sizeof(*o));
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool takes =
            strcmp(a, "-o") == 0 || strcmp(a, "--name") == 0 || strcmp(a, "--threads") == 0;
        if (strcmp(a, "--short") == 0) {
            o->shortm = true;
            continue;
        }
        if (!takes) {
            return fl_cli_usage_error("calibrate: unexpected argument '%s' (calibrate takes -o "
                                      "FILE, --name NAME, --threads N, --short)",
                                      a);
        }
        if (i + 1 >= argc) {
            return fl_cli_usage_error("calibrate: option %s needs a value", a);
        }
        const char *v = argv[++i];
        if (a[1] == 'o') {
            o->out_path = v;
        } else if (a[2] == 'n') {
            o->name = v;
        } else {
            char *end;
            errno = 0;
            long t = strtol(v, &end, 10);
            if (errno || *end || !*v || t < 1 || t > 1024) {
                return fl_cli_usage_error("calibrate: --threads expects a number of threads from 1 "
                                          "to 1024, got '%s'",
                                          v);
            }
            o->threads = (int)t;
        }
    }
    return 0;
}

/* A test knob, not for users (tests/cli/cli_roofline.sh): the environment
 * variable FOLDLINE_CALIBRATE_TEST holds a comma-separated list of
 *   disturbed                every trial counts as disturbed, so that the
 *                            busy-host fallback (each figure the best of all
 *                            its trials, and a warning) runs on any host;
 *   vector=F, sgemm=F, l2=F, l3=F, dram=F
 *                            that figure is F instead of what was measured,
 *                            before the checks (cal_warnings) run.
 * Anything else in it is a usage error. */
typedef struct cal_test {
    double fig[5]; /* vector, sgemm, l2, l3, dram; > 0: replaces the measured figure */
} cal_test;

static int parse_test_knob(cal_test *t) {
    static const char *const keys[5] = {"vector", "sgemm", "l2", "l3", "dram"};
    memset(t, 0, sizeof(*t));
    all_disturbed = false;
    dot8_cap = 0;
    const char *p = getenv("FOLDLINE_CALIBRATE_TEST");
    while (p && *p) {
        size_t n = strcspn(p, ","), eq = strcspn(p, "=,");
        int k = 0;
        while (k < 5 && !(eq == strlen(keys[k]) && strncmp(p, keys[k], eq) == 0)) {
            k++;
        }
        char *end = NULL;
        double v = 0;
        if (k < 5 && p[eq] == '=') {
            v = strtod(p + eq + 1, &end);
        }
        if (n == 9 && strncmp(p, "disturbed", 9) == 0) {
            all_disturbed = true;
        } else if (n == 12 && strncmp(p, "dot8=avxvnni", 12) == 0) {
            dot8_cap = 1;
        } else if (n == 9 && strncmp(p, "dot8=avx2", 9) == 0) {
            dot8_cap = 2;
        } else if (k < 5 && end == p + n && v > 0 && isfinite(v)) {
            t->fig[k] = v;
        } else {
            return fl_cli_usage_error("calibrate: FOLDLINE_CALIBRATE_TEST: unknown item '%.*s' "
                                      "(expected disturbed, dot8=avxvnni, dot8=avx2, vector=F, "
                                      "sgemm=F, l2=F, l3=F or dram=F with F > 0)",
                                      (int)n, p);
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Everything calibrate measures. */
typedef struct cal_figs {
    int nthreads, lanes;
    const char *isa, *isa8; /* isa8: the int8 dot-product units, "" without */
    int gemm_n;
    double vec, mat32, bw_l2, bw_l3, bw_dram;
    double int8; /* int8 operations/s (2 per multiply-add); 0: not measured */
    size_t l2, l3, l3_ws, l3_cap, dram_ws;
    bool has_l3;
    trial_stats st_vec, st_mat, st_l2, st_l3, st_dram, st_int8;
    dispatch_fig ovh;
} cal_figs;

/* One FMA trial: FMA_TRIAL_ITERS iterations of the chains per thread,
 * about half a millisecond (well inside a time slice). */
#define FMA_TRIAL_ITERS 200000L

typedef struct fma_ctx {
    pool *p;
    fma_job *j;
    double ops; /* operations of one step of the chains on one thread */
} fma_ctx;

/* One timed chain trial on every thread: operations/s. */
static double fma_trial(void *ctx, bool *clean) {
    fma_ctx *t = ctx;
    pool_run(t->p, fma_thread, t->j);
    double dt = trial_wall(&t->j->k, clean);
    return dt > 0 ? t->ops * (double)t->j->iters * t->j->k.nthreads / dt : 0;
}

/* The best undisturbed trial of `kernel`'s chains (`ops` per step and
 * thread) on every thread at once, after one that wakes the units. */
static double measure_chains(pool *p, bool shortm, double (*kernel)(long), double ops,
                             trial_stats *st) {
    double *tt = calloc(3 * (size_t)p->n, sizeof(double));
    if (!tt) {
        memset(st, 0, sizeof(*st));
        return 0;
    }
    fma_job fj = {FMA_TRIAL_ITERS, 0.0, {tt, tt + p->n, tt + 2 * p->n, 0, p->n}, kernel};
    fma_ctx ctx = {p, &fj, ops};
    bool clean;
    fma_trial(&ctx, &clean);
    double best = best_trial(fma_trial, &ctx, 1000, shortm ? 0.01 : 0.2, st);
    free(tt);
    return best;
}

static void measure_fma(pool *p, bool shortm, cal_figs *f) {
    char msg[160];
    double (*kernel)(long);
    f->lanes = fma_lanes(&f->isa, &kernel);
    snprintf(msg, sizeof msg, "vector FMA peak (%s, %d threads)...", f->isa, f->nthreads);
    progress(msg);
    f->vec = measure_chains(p, shortm, kernel, 2.0 * FMA_CHAINS * f->lanes, &f->st_vec);
    int ops = dot8_ops(&f->isa8, &kernel);
    if (ops > 0) {
        snprintf(msg, sizeof msg, "int8 dot-product peak (%s, %d threads)...", f->isa8,
                 f->nthreads);
        progress(msg);
        f->int8 = measure_chains(p, shortm, kernel, (double)ops, &f->st_int8);
    }
}

/* Main memory: well beyond every cache (twice the L3 when there is one, at
 * least 256 MiB in all, at most 2 GiB or half the RAM). */
static size_t dram_total_bytes(const cal_figs *f) {
    size_t dram_total = (size_t)256 << 20;
    if (f->has_l3 && 2 * f->l3 > dram_total) {
        dram_total = 2 * f->l3;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t ram_half = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : dram_total;
    if (dram_total > ((size_t)2 << 30)) {
        dram_total = (size_t)2 << 30;
    }
    if (dram_total > ram_half) {
        dram_total = ram_half;
    }
    return dram_total;
}

/* L3: the triad at twice the L2s (half the L3 at most), then the effective
 * capacity: the largest working set, doubling up to the reported L3 size,
 * still served at least at the geometric mean of the L3 and DRAM rates (a
 * VM's CPUID may report a whole socket's L3 while a core's slice is much
 * smaller; --short skips the probe). */
static void measure_l3(pool *p, bool shortm, size_t dram_total, cal_figs *f) {
    char msg[160];
    size_t nt = (size_t)f->nthreads;
    f->l3_ws = 2 * f->l2;
    if (f->l3_ws * nt > f->l3 / 2) {
        f->l3_ws = f->l3 / 2 / nt;
    }
    snprintf(msg, sizeof msg, "bandwidth: L3 triad (L3 %zu KiB)...", f->l3 >> 10);
    progress(msg);
    f->bw_l3 = triad_bw(p, f->l3_ws, shortm ? 0.01 : 0.3, &f->st_l3);
    f->l3_cap = f->l3_ws * nt;
    double knee = sqrt(f->bw_l3 * f->bw_dram);
    for (size_t tot = 2 * f->l3_cap;
         !shortm && f->bw_l3 > f->bw_dram && tot <= f->l3 && tot < dram_total; tot *= 2) {
        trial_stats st;
        double bw = triad_bw(p, tot / nt, 0.1, &st);
        snprintf(msg, sizeof msg, "  %zu KiB in all: %.3g B/s", tot >> 10, bw);
        progress(msg);
        if (bw < knee) {
            break;
        }
        f->l3_cap = tot;
    }
    if (f->bw_l3 <= f->bw_dram) {
        f->has_l3 = false; /* no faster than main memory: not a level of its own */
    }
}

static void measure_memory(pool *p, bool shortm, cal_figs *f) {
    f->l2 = cache_bytes(2);
    if (f->l2 == 0) {
        f->l2 = 256 << 10;
    }
    progress("bandwidth: L2-resident triad...");
    f->bw_l2 = triad_bw(p, f->l2 / 2, shortm ? 0.01 : 0.3, &f->st_l2);
    f->l3 = cache_bytes(3);
    f->has_l3 = f->l3 > 2 * f->l2 * (size_t)f->nthreads;
    size_t dram_total = dram_total_bytes(f);
    f->dram_ws = shortm ? ((size_t)8 << 20) : dram_total / (size_t)f->nthreads;
    progress("bandwidth: DRAM triad...");
    f->bw_dram = triad_bw(p, f->dram_ws, shortm ? 0.01 : 0.5, &f->st_dram);
    if (f->has_l3) {
        measure_l3(p, shortm, dram_total, f);
    }
}

/* "best of 180 undisturbed 24 MiB trials (of 200)" for a source (what:
 * "24 MiB trials"). */
static const char *trials_text(const trial_stats *st, const char *what, char *buf, size_t size) {
    if (st->clean) {
        snprintf(buf, size, "best of %d undisturbed %s (of %d)", st->clean, what, st->trials);
    } else {
        snprintf(buf, size, "best of %d %s, none undisturbed: the host was busy", st->trials, what);
    }
    return buf;
}

/* A faster level measured below a slower one is not the hardware (the
 * hierarchy is monotone) but a busy host: the levels that are out of order,
 * as "L2 < L3", or "" when the figures are monotone. */
static const char *inversion(const cal_figs *c, char *buf, size_t size) {
    buf[0] = '\0';
    if (c->has_l3 && c->bw_l2 < c->bw_l3) {
        snprintf(buf, size, "L2 %.3g < L3 %.3g B/s", c->bw_l2, c->bw_l3);
    } else if (c->has_l3 && c->bw_l3 < c->bw_dram) {
        snprintf(buf, size, "L3 %.3g < DRAM %.3g B/s", c->bw_l3, c->bw_dram);
    } else if (c->bw_l2 < c->bw_dram) {
        snprintf(buf, size, "L2 %.3g < DRAM %.3g B/s", c->bw_l2, c->bw_dram);
    }
    return buf;
}

/* At most this many warnings (cal_warnings). */
#define CAL_MAX_WARN 3

/* The busy-host fallback: the figures none of whose trials ran undisturbed,
 * as "the vector FMA peak, the L2 bandwidth" in buf ("" when none). */
static const char *fallen_back(const cal_figs *c, char *buf, size_t size) {
    const trial_stats *st[] = {&c->st_vec, &c->st_mat,  &c->st_l2,
                               &c->st_l3,  &c->st_dram, &c->st_int8};
    static const char *const what[] = {"the vector FMA peak", "the sgemm peak",
                                       "the L2 bandwidth",    "the L3 bandwidth",
                                       "the DRAM bandwidth",  "the int8 dot-product peak"};
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < 6; i++) {
        if (st[i]->trials == 0 || st[i]->clean > 0 || (i == 3 && !c->has_l3)) {
            continue;
        }
        int w = snprintf(buf + o, size - o, "%s%s", o ? ", " : "", what[i]);
        o = w > 0 && (size_t)w < size - o ? o + (size_t)w : o;
    }
    return buf;
}

/* What is wrong with the figures, one sentence each in w (returns how many),
 * every one naming the busy host it points to:
 * - a measurement none of whose trials ran undisturbed (its figure is then
 *   the best of all its trials);
 * - a faster memory level measured below a slower one (inversion);
 * - the compute peaks out of order: an SGEMM runs on the same FMA units the
 *   vector peak measures, so it cannot beat that peak (5 % allowed for clock
 *   changes between the two), and an SGEMM of n >= 256 reaches a fair share
 *   of it (OpenBLAS 45-90 % on one core, by the kernels it has for the CPU),
 *   so a quarter or less means its calls ran on fewer CPUs than asked. Only with vector FMA chains:
 * the plain C fallback does not measure the vector units the BLAS uses. */
static int cal_warnings(const cal_figs *c, char w[CAL_MAX_WARN][320]) {
    int n = 0;
    char buf[160];
    if (fallen_back(c, buf, sizeof buf)[0]) {
        snprintf(w[n++], sizeof w[0],
                 "no trial of %s ran undisturbed: the host was busy; each is the best of all "
                 "its trials: calibrate again when it is quiet",
                 buf);
    }
    if (inversion(c, buf, sizeof buf)[0]) {
        snprintf(w[n++], sizeof w[0],
                 "%s is not the hardware's order: the host was busy; calibrate again when it is "
                 "quiet",
                 buf);
    }
    if (c->mat32 > 0 && c->lanes > 1 && c->mat32 > 1.05 * c->vec) {
        snprintf(w[n++], sizeof w[0],
                 "sgemm %.3g FLOP/s above the vector FMA peak %.3g FLOP/s is not the hardware's "
                 "order (the BLAS runs on the FMA units that peak measures): the host was busy; "
                 "calibrate again when it is quiet",
                 c->mat32, c->vec);
    } else if (c->mat32 > 0 && c->lanes > 1 && c->mat32 < 0.25 * c->vec) {
        snprintf(w[n++], sizeof w[0],
                 "sgemm %.3g FLOP/s is under a quarter of the vector FMA peak %.3g FLOP/s: its "
                 "calls ran on fewer CPUs than asked (a single-threaded BLAS, or the host was "
                 "busy); calibrate again when it is quiet",
                 c->mat32, c->vec);
    }
    return n;
}

/* The profile as YAML. Every figure's source says what was measured how. */
static void write_profile(FILE *f, const cal_figs *c, const char *name, const char *date,
                          const char *host, bool shortm) {
    char src[256];
    const char *pl = c->nthreads == 1 ? "" : "s";
    snprintf(src, sizeof src, "calibrated %s on %s (foldline calibrate%s, %d thread%s)", date, host,
             shortm ? " --short: indicative only" : "", c->nthreads, pl);
    fprintf(f, "# Written by foldline calibrate %s on %s. Every figure is measured here.\n", date,
            host);
    fprintf(f, "schema: 1\nname: %s\nkind: cpu\n", name);
    fprintf(f, "description: \"%s, %d thread%s, measured by foldline calibrate%s\"\n", host,
            c->nthreads, pl, shortm ? " --short" : "");
    char tr[128], what[48], warn[CAL_MAX_WARN][320];
    for (int i = 0, n = cal_warnings(c, warn); i < n; i++) {
        fprintf(f, "# Warning: %s.\n", warn[i]);
    }
    fprintf(f, "compute:\n  vector:\n");
    fprintf(f, "    fp32: {peak: %.4g, source: \"%s: %s FMA chains, %s\"}\n", c->vec, src, c->isa,
            trials_text(&c->st_vec, "trials", tr, sizeof tr));
    if (c->int8 > 0) {
        fprintf(f,
                "    int8: {peak: %.4g, source: \"%s: %s int8 dot-product chains, 2 operations "
                "per u8 x s8 multiply-add, %s\"}\n",
                c->int8, src, c->isa8, trials_text(&c->st_int8, "trials", tr, sizeof tr));
    }
    if (c->mat32 > 0) {
        char core[48] = "";
        if (openblas_core[0]) {
            snprintf(core, sizeof core, " (%s kernels)", openblas_core);
        }
        fprintf(f, "  matrix:\n");
        if (c->mat32 > c->vec) { /* the FMA chains did not reach what the BLAS did */
            fprintf(f,
                    "    fp32: {peak: %.4g, source: \"%s: OpenBLAS sgemm%s n=%d, above the FMA "
                    "chains' %.4g FLOP/s, %s\"}\n",
                    c->mat32, src, core, c->gemm_n, c->vec,
                    trials_text(&c->st_mat, "trials", tr, sizeof tr));
        } else {
            fprintf(f,
                    "    fp32: {peak: %.4g, source: \"%s: the vector FMA peak, the units SGEMM "
                    "runs on; OpenBLAS sgemm%s n=%d reached %.4g FLOP/s (%.0f %% of it), %s\"}\n",
                    c->vec, src, core, c->gemm_n, c->mat32, 100 * c->mat32 / c->vec,
                    trials_text(&c->st_mat, "trials", tr, sizeof tr));
        }
    }
    if (c->int8 > 0) {
        fprintf(f, "%s", c->mat32 > 0 ? "" : "  matrix:\n");
        fprintf(f,
                "    int8: {peak: %.4g, source: \"%s: the vector int8 peak, the units an int8 "
                "GEMM runs on\"}\n",
                c->int8, src);
    }
    snprintf(what, sizeof what, "%zu MiB trials", TRIAL_BYTES >> 20);
    fprintf(f, "memory:\n");
    fprintf(f,
            "  - {name: L2, bandwidth: %.4g, capacity: %zu, source: \"%s: triad, %zu KiB per "
            "thread, %s\"}\n",
            c->bw_l2, c->l2 * (size_t)c->nthreads, src, c->l2 / 2 / 1024,
            trials_text(&c->st_l2, what, tr, sizeof tr));
    if (c->has_l3) {
        fprintf(f,
                "  - {name: L3, bandwidth: %.4g, capacity: %zu, source: \"%s: triad, %zu KiB per "
                "thread, %s; capacity: largest working set served at L3 speed (reported L3 %zu "
                "KiB)\"}\n",
                c->bw_l3, c->l3_cap, src, c->l3_ws >> 10,
                trials_text(&c->st_l3, what, tr, sizeof tr), c->l3 >> 10);
    }
    fprintf(f, "  - {name: DRAM, bandwidth: %.4g, source: \"%s: triad, %zu MiB per thread, %s\"}\n",
            c->bw_dram, src, c->dram_ws >> 20, trials_text(&c->st_dram, what, tr, sizeof tr));
    if (c->nthreads > 1) {
        fprintf(f,
                "overhead: {seconds: %.4g, source: \"%s: spinning thread-pool hand-off round "
                "trip, 10th percentile of %d rounds (median %.4g s)\"}\n",
                c->ovh.p10 > 0 ? c->ovh.p10 : 1e-9, src, c->ovh.rounds, c->ovh.median);
    } else {
        fprintf(f,
                "overhead: {seconds: %.4g, source: \"%s: one thread hands nothing off: an "
                "indirect call, 10th percentile of %d rounds (median %.4g s), a floor; foldline "
                "fit measures a runtime's own per-op cost from its traces\"}\n",
                c->ovh.p10 > 0 ? c->ovh.p10 : 1e-9, src, c->ovh.rounds, c->ovh.median);
    }
}

static void apply_test_knob(const cal_test *t, cal_figs *c) {
    double *fig[5] = {&c->vec, &c->mat32, &c->bw_l2, &c->bw_l3, &c->bw_dram};
    for (int k = 0; k < 5; k++) {
        if (t->fig[k] > 0) {
            *fig[k] = t->fig[k];
        }
    }
}

int fl_cmd_calibrate(int argc, char **argv) {
    cal_opts o;
    cal_test knob;
    int urc = parse_cal(argc, argv, &o);
    if (!urc) {
        urc = parse_test_knob(&knob);
    }
    if (urc) {
        return urc;
    }
    char namebuf[128];
    default_name(o.out_path, namebuf, sizeof namebuf);
    const char *name = o.name ? o.name : namebuf;
    cal_figs c;
    memset(&c, 0, sizeof c);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c.nthreads = o.threads ? o.threads : ncpu > 0 && ncpu < 1024 ? (int)ncpu : 1;
    /* OpenBLAS reads its thread count when it is loaded. */
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", c.nthreads);
    setenv("OPENBLAS_NUM_THREADS", nbuf, 1);
    sgemm_fn sgemm = load_openblas(c.nthreads); /* first: fail before minutes of measuring */
    if (!sgemm) {
        return EXIT_IO;
    }
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

    pool p;
    if (!pool_start(&p, c.nthreads)) {
        fprintf(stderr, "foldline: calibrate: cannot start %d threads\n", c.nthreads);
        pool_stop(&p);
        return EXIT_IO;
    }
    double t_start = now_s();
    char msg[160];
    measure_fma(&p, o.shortm, &c);
    c.gemm_n = o.shortm ? 256 : 512 * c.nthreads < 2048 ? 512 * c.nthreads : 2048;
    snprintf(msg, sizeof msg, "matrix peak: OpenBLAS sgemm n=%d, %d threads...", c.gemm_n,
             c.nthreads);
    progress(msg);
    c.mat32 = gemm_rate(sgemm, c.gemm_n, c.nthreads, o.shortm ? 0.01 : 0.3, &c.st_mat);
    measure_memory(&p, o.shortm, &c);
    pool_stop(&p);
    progress("dispatch overhead: spinning thread-pool hand-off...");
    c.ovh = dispatch_s(c.nthreads, o.shortm ? 200 : 20000);
    apply_test_knob(&knob, &c);
    double took = now_s() - t_start;
    snprintf(msg, sizeof msg, "done in %.1f s", took);
    progress(msg);

    fl_outfile out;
    char err[512];
    if (fl_outfile_open(&out, o.out_path, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: calibrate: %s\n", err);
        return EXIT_IO;
    }
    write_profile(out.f, &c, name, date, host, o.shortm);
    if (fl_outfile_commit(&out, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: calibrate: %s\n", err);
        return EXIT_IO;
    }
    char warn[CAL_MAX_WARN][320];
    for (int i = 0, n = cal_warnings(&c, warn); i < n; i++) {
        fprintf(stderr, "foldline: calibrate: warning: %s\n", warn[i]);
    }
    if (o.out_path) {
        fprintf(stderr,
                "calibrate: wrote %s in %.1f s (profile '%s', %d thread(s): vector fp32 %.3g "
                "FLOP/s, matrix fp32 %.3g FLOP/s, sgemm %.3g FLOP/s, int8 %.3g op/s, L2 %.3g B/s, "
                "L3 %.3g B/s, DRAM %.3g B/s, dispatch %.3g s)\n",
                o.out_path, took, name, c.nthreads, c.vec, c.mat32 > c.vec ? c.mat32 : c.vec,
                c.mat32, c.int8, c.bw_l2, c.bw_l3, c.bw_dram, c.ovh.p10);
    }
    return 0;
}
