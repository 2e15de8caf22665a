/*
 * fit.c - `foldline fit --profile BASE -o OUT.yaml MODEL=TRACE...`: fits the
 * efficiency tables of a profile to a runtime's measured per-node times.
 *
 * A trace is ONNX Runtime's profiling output (SessionOptions.enableProfiling):
 * a JSON array (or {"traceEvents": [...]}) of Chrome trace events. Kernel
 * events have cat "Node", a name "<node>_kernel_time", dur in microseconds
 * and args.op_name / args.output_type_shape; "model_run" events (cat
 * "Session") time whole runs. Per node the median over the runs is used
 * (--quantile Q: that quantile instead). On a shared host other processes
 * interrupt the runs: --quantile 0 takes each kernel's least time (its
 * undisturbed run), except for a kernel longer than a time slice (least time
 * over 4 ms): no run of it is undisturbed, and it takes its median time x
 * @MS / the traced runs' median wall time (the share of the time the process
 * ran, when @MS is the untraced runs' CPU time) if that is less (kernel_time).
 * ONNX Runtime writes each duration truncated to whole microseconds
 * (profiler.cc: duration_cast<microseconds> of high_resolution_clock times,
 * which rounds toward zero: a kernel of 2.0 to 2.99 us is written 2). The
 * traced span (the sequential executor's KernelScope) starts before the
 * profiler formats the inputs' types and shapes and ends after it has
 * formatted the outputs' and built the event's arguments, around Compute,
 * which allocates the outputs: ORT's own bookkeeping is inside every traced
 * kernel. A statistic over a kernel's runs therefore treats its figures as
 * grouped data (spread_whole_us): the k runs written d are spread evenly
 * over [d, d + 1), the j-th at d + (j - 0.5) / k, so the median is the
 * grouped-data median (d + (n/2 - runs below d) / k for the bin d holding
 * it) and a lone figure counts as d + 0.5 (the least time: kernel_time).
 * Within one run each kernel counts as its figure + 0.5 us, and the run's
 * gaps between kernels take those halves off.
 *
 * MODEL=TRACE@MS gives the model's untraced latency (ms): the dispatch
 * overhead is then (MS - the kernels' times) / kernels, since ORT's
 * profiler adds its own cost between traced kernels, bounded by the traced
 * runs' gaps (an upper bound, profiler included: a latency measured on a
 * loaded host must not become a huge per-kernel cost; with --quantile 0 the
 * least gap at each place of the run over the runs, run_gaps); without @MS
 * the traced runs' gaps are used. That is with --gap-per-kernel (the fit
 * before 7.7). By default the run's gap (MS less the sum of the kernels'
 * times, whole: a typical run against the kernels' chosen times included;
 * without @MS the traced runs' gaps) is fitted as a share of the kernels'
 * time, the profile's `gap`, plus a cost per kernel for what the share
 * leaves (fl_fit_terms_run): the gap grows with the kernels' time, not with
 * their count.
 *
 * A TensorFlow trace (told from its bytes) is the Chrome trace TensorFlow's
 * timeline writes from RunMetadata.step_stats (complete events, ph "X", with
 * args.name the node and args.op its op type, dur in us; "M" process_name
 * events name each pid's device) or a binary RunMetadata / StepStats
 * (tftrace.c; all_end_rel_nanos when set, else _micros). Only nodes that ran
 * on a CPU are read. Such a file is one step (a RunMetadata is one
 * Session.run's; the timeline converts one): TensorFlow's executor records a
 * NodeExecStats each time a node runs, with no iteration or frame field, so
 * a node named again in one file ran again within the step (a while loop's
 * body, once an iteration) and its times there are summed. Several steps
 * are several files, MODEL=A,B,C[@MS]: a node's time is the median over the
 * steps it ran in of its time in each (--quantile as above, the figures
 * taken as written). Nodes are matched by name and op type to a TensorFlow model's
 * ops costed as kernels, in the graph as given or, when more of them match
 * there, after foldline's remapper (TensorFlow's Grappler fuses at run time,
 * a _FusedConv2D named after the chain's last node). The traces have no
 * whole-run time: @MS gives it.
 *
 * Each model is analysed as given (no passes) on BASE, and every kernel is
 * matched to an op: by node name and op type (ONNX Runtime keeps the model's
 * node names when it does not rewrite the graph), else by op type (ORT's
 * Fused* forms match their base op) and output shape, in graph order. A
 * name match whose output shape differs is an error (a trace of another input
 * size). The fit itself is fl_fit (src/cost/fit.c); OUT is BASE's figures
 * plus the fitted section, written atomically after it was parsed back; BASE
 * is never written.
 */
#include "cli.h"
#include "roofcli.h"
#include "tftrace.h"
#include "tracejson.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct kernel {
    char *name; /* node name (the event name without "_kernel_time") */
    const char *op;
    char *op_own;   /* op when it is a copy (a binary trace's) */
    char shape[96]; /* first output, "[1,64,112,112]"; "" when absent */
    double *durs;   /* microseconds, one per run */
    size_t n_durs, cap;
    double median_s;
    int matched; /* 0, or 1 + the op index */
    bool looped; /* TensorFlow: ran more than once within a step (durs: the steps' sums) */
} kernel;

typedef struct trace {
    char *text; /* the file, its strings decoded in place (kernels' op names point into it) */
    kernel *k;
    size_t n;
    double run_s; /* median model_run, 0 when absent */
    double gap_s; /* median over runs of (model_run - the kernels inside it) */
    size_t n_runs;
    size_t *slots;  /* the kernels by name: 1 + an index into k, 0 empty (open addressing) */
    size_t n_slots; /* a power of two, at least twice n */
    bool tf;        /* TensorFlow's timings (a timeline or step stats), CPU nodes only */
    size_t n_other; /* TensorFlow nodes timed on other devices (left out) */
    char other[96]; /* the first of those devices */
    bool others;    /* more than one other device */
    size_t n_steps; /* TensorFlow: the steps read (a file each) */
} trace;

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n) {
    qsort(v, n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The q-quantile (linear interpolation) of v[0..n), n > 0 (reorders v). */
static double quantile_of(double *v, size_t n, double q) {
    qsort(v, n, sizeof(double), cmp_d);
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = (size_t)ceil(pos);
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

static void trace_free(trace *t) {
    for (size_t i = 0; i < t->n; i++) {
        free(t->k[i].durs);
        free(t->k[i].name);
        free(t->k[i].op_own);
    }
    free(t->k);
    free(t->slots);
    free(t->text);
    memset(t, 0, sizeof(*t));
}

/* A node name's slot to start probing at (FNV-1a; the high bits folded in). */
static size_t name_slot(const char *name, size_t mask) {
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 32)) & mask;
}

/* The kernel of that node name, NULL when none has it. */
static kernel *find_kernel(trace *t, const char *name) {
    for (size_t i = t->n_slots ? name_slot(name, t->n_slots - 1) : 0; t->n_slots && t->slots[i];
         i = (i + 1) & (t->n_slots - 1)) {
        if (strcmp(t->k[t->slots[i] - 1].name, name) == 0) {
            return &t->k[t->slots[i] - 1];
        }
    }
    return NULL;
}

/* Indexes the kernels from t->k[from] on (the table doubled first when it
 * would be more than half full: every kernel then indexed again). */
static bool index_kernels(trace *t, size_t from) {
    if (2 * t->n > t->n_slots) {
        size_t ns = t->n_slots ? t->n_slots : 64;
        while (2 * t->n > ns) {
            ns *= 2;
        }
        size_t *slots = calloc(ns, sizeof(size_t));
        if (!slots) {
            return false;
        }
        free(t->slots);
        t->slots = slots;
        t->n_slots = ns;
        from = 0;
    }
    for (size_t j = from; j < t->n; j++) {
        size_t i = name_slot(t->k[j].name, t->n_slots - 1);
        while (t->slots[i]) {
            i = (i + 1) & (t->n_slots - 1);
        }
        t->slots[i] = j + 1;
    }
    return true;
}

/* Room for one more element of size `size` in *a (n used, *cap allocated). */
static bool grow_one(void **a, size_t size, size_t *cap, size_t n) {
    if (n < *cap) {
        return true;
    }
    size_t nc = *cap ? 2 * *cap : 8;
    void *na = realloc(*a, nc * size);
    if (na) {
        *a = na;
        *cap = nc;
    }
    return na != NULL;
}

/* One run of the kernel `name` (created with op, copied when copy_op, and
 * shape when it is new): dur us. 0 or an exit status. */
static int kernel_add(trace *t, const char *name, const char *op, bool copy_op, const char *shape,
                      double dur) {
    kernel *k = find_kernel(t, name);
    if (!k) {
        kernel *nk = realloc(t->k, (t->n + 1) * sizeof(*nk));
        if (!nk) {
            return EXIT_IO;
        }
        t->k = nk;
        k = &t->k[t->n];
        memset(k, 0, sizeof(*k));
        if (!(k->name = strdup(name)) || (copy_op && !(k->op_own = strdup(op)))) {
            free(k->name);
            return EXIT_IO;
        }
        t->n++;
        k->op = copy_op ? k->op_own : op;
        snprintf(k->shape, sizeof k->shape, "%s", shape);
        if (!index_kernels(t, t->n - 1)) {
            return EXIT_IO;
        }
    }
    if (!grow_one((void **)&k->durs, sizeof(double), &k->cap, k->n_durs)) {
        return EXIT_IO;
    }
    k->durs[k->n_durs++] = dur;
    return 0;
}

/* One "Node" event into t (op and shape in the trace's text). 0 or an exit
 * status (message printed). */
static int add_kernel(trace *t, const char *path, const fl_trace_event *ev) {
    const char *op = ev->op_name, *name = ev->name;
    if (!ev->has_dur || ev->dur < 0 || !isfinite(ev->dur)) {
        fprintf(stderr, "foldline: fit: %s: event %zu (%s): 'dur' is not a number >= 0\n", path,
                ev->index, name);
        return EXIT_BAD_MODEL;
    }
    if (!op) {
        fprintf(stderr, "foldline: fit: %s: event %zu (%s): no args.op_name\n", path, ev->index,
                name);
        return EXIT_BAD_MODEL;
    }
    size_t nlen = strlen(name) - strlen("_kernel_time");
    char nb[1024];
    snprintf(nb, sizeof nb, "%.*s", (int)nlen, name);
    return kernel_add(t, nb, op, false, ev->shape, ev->dur);
}

/* A TensorFlow node's name as foldline's import names it, into out (at
 * least strlen(name) + 1 bytes): without the "/_N" components (N digits,
 * not the last component) of the call nodes TensorFlow inlines. Lowering a
 * functional While W, TensorFlow calls its body from a node named
 * Graph::NewName("W/body") = "W/body/_N" and inlines the call, each body
 * node named "<call>/<node>": "W/body/_12/mm", which foldline's import of
 * the same While names "W/body/mm". */
static void strip_call_ids(const char *name, char *out) {
    const char *p = name;
    while (*p) {
        if (p != name && p[0] == '/' && p[1] == '_' && p[2] >= '0' && p[2] <= '9') {
            const char *q = p + 2;
            while (*q >= '0' && *q <= '9') {
                q++;
            }
            if (*q == '/') {
                p = q;
                continue;
            }
        }
        *out++ = *p++;
    }
    *out = '\0';
}

/* One TensorFlow node's run into t when its device is a CPU (else counted
 * as another device's), named as strip_call_ids names it. 0 or an exit
 * status. */
static int add_tf_node(trace *t, const char *device, const char *name, const char *op, bool copy_op,
                       double dur) {
    t->tf = true;
    if (device && !fl_tf_device_is_cpu(device)) {
        if (!t->n_other++) {
            snprintf(t->other, sizeof t->other, "%s", device);
        }
        t->others |= strncmp(t->other, device, sizeof t->other - 1) != 0;
        return 0;
    }
    char *own = malloc(strlen(name) + 1);
    if (!own) {
        return EXIT_IO;
    }
    strip_call_ids(name, own);
    int rc = kernel_add(t, own, op, copy_op, "", dur);
    free(own);
    return rc;
}

/* A kernel longer than this (us) outlasts the time slices a loaded host's
 * scheduler gives a process: no run of it is undisturbed. */
#define LONG_KERNEL_US 4000.0

/* Sorts a kernel's n traced figures d (whole us, truncated) and spreads the
 * k figures equal to d evenly over [d, d + 1): the j-th (1-based) becomes
 * d + (j - 0.5) / k. The order statistics of the result are those of
 * grouped data interpolated within each 1 us bin. */
static void spread_whole_us(double *d, size_t n) {
    qsort(d, n, sizeof(double), cmp_d);
    for (size_t i = 0; i < n;) {
        size_t k = 1;
        while (i + k < n && d[i + k] == d[i]) {
            k++;
        }
        for (size_t j = 0; j < k; j++) {
            d[i + j] += ((double)j + 0.5) / (double)k;
        }
        i += k;
    }
}

/* One kernel's time (us) from its n > 0 runs d (reorders d; figures spread
 * over their 1 us bins by spread_whole_us first): their q-quantile;
 * q == 0: the least time, the run least disturbed by other processes: the
 * runs in the least 1 us bin any run fell in cannot be told apart, so their
 * grouped median, the bin's middle (d + 0.5, whatever their number), not the
 * least of them spread (d + 0.5 / k: the low tail of a kernel's undisturbed
 * runs, not its undisturbed time); for a kernel whose least time exceeds
 * LONG_KERNEL_US, its median time x rho (the share of wall time the process
 * ran) when that is less, since every run of it was interrupted. */
static double kernel_time(double *d, size_t n, double q, double rho) {
    spread_whole_us(d, n);
    if (q == 0.5) {
        return median_of(d, n);
    }
    if (q > 0) {
        return quantile_of(d, n, q);
    }
    double least = floor(d[0]) + 0.5, scaled = median_of(d, n) * rho;
    return least > LONG_KERNEL_US && scaled < least ? scaled : least;
}

/* A TensorFlow node's time (us) from its n > 0 runs d (reorders d): their
 * q-quantile, the least with q == 0. */
static double tf_kernel_time(double *d, size_t n, double q) {
    qsort(d, n, sizeof(double), cmp_d);
    return q == 0 ? d[0] : quantile_of(d, n, q);
}

/* The traced runs' time between kernels (us): per run, its time minus the
 * kernels that started inside it, each + 0.5 us (truncated to whole us); the
 * median over the runs. least: per position in the run (before each kernel,
 * after the last), the least gap over the runs, summed: the dispatch gaps of
 * runs that other processes did not interrupt (the runs must have the same
 * kernels; else the median). */
static double run_gaps(const double *runs, const double *run_ts, size_t n_runs, const double *k_ts,
                       const double *k_dur, size_t nk, bool least) {
    double *g = calloc(n_runs + 1, sizeof(double));
    double *pos = least ? calloc(nk + n_runs + 1, sizeof(double)) : NULL;
    size_t n_pos = 0;
    bool same = least && pos;
    for (size_t r = 0; g && r < n_runs; r++) {
        double sum = 0, end = run_ts[r];
        size_t p = 0;
        for (size_t k = 0; k < nk; k++) {
            if (k_ts[k] >= run_ts[r] && k_ts[k] <= run_ts[r] + runs[r]) {
                sum += k_dur[k] + 0.5;
                if (same) {
                    /* after a kernel, whose end is truncated: - 0.5 us */
                    double gap = k_ts[k] - end - (p > 0 ? 0.5 : 0);
                    gap = gap > 0 ? gap : 0;
                    pos[p] = r == 0 || gap < pos[p] ? gap : pos[p];
                    p++;
                }
                end = k_ts[k] + k_dur[k];
            }
        }
        g[r] = runs[r] - sum > 0 ? runs[r] - sum : 0;
        if (same) {
            double tail = run_ts[r] + runs[r] - end - 0.5;
            tail = tail > 0 ? tail : 0;
            pos[p] = r == 0 || tail < pos[p] ? tail : pos[p];
            p++;
            same = r == 0 || p == n_pos;
            n_pos = p;
        }
    }
    double out = g ? median_of(g, n_runs) : 0;
    if (same && n_runs > 0) {
        out = 0;
        for (size_t i = 0; i < n_pos; i++) {
            out += pos[i];
        }
    }
    free(g), free(pos);
    return out;
}

/* A TensorFlow timeline's op event (strings in the trace's text), kept until
 * the names of the processes (devices) are known. */
typedef struct tf_event {
    const char *name, *op;
    double pid, dur;
    bool has_pid;
} tf_event;

/* A process of a TensorFlow timeline: its pid and name (the device). */
typedef struct tf_pid {
    double pid;
    const char *device;
    size_t index; /* of its process_name event */
} tf_pid;

static int cmp_pid_only(const void *a, const void *b) {
    const tf_pid *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_pid(const void *a, const void *b) {
    const tf_pid *x = a, *y = b;
    return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid)
                            : (x->index > y->index) - (x->index < y->index);
}

/* The events read so far: kernels into the trace, and the times of the
 * kernels and runs for run_gaps; TensorFlow's op events and processes. */
typedef struct event_sink {
    trace *t;
    const char *path;
    double *runs, *run_ts, *k_ts, *k_dur;
    size_t nk, cap_k, cap_runs;
    tf_event *tf;
    size_t n_tf, cap_tf;
    tf_pid *pids;
    size_t n_pids, cap_pids;
} event_sink;

static bool grow(double **a, double **b, size_t *cap, size_t n) {
    if (n < *cap) {
        return true;
    }
    size_t nc = *cap ? 2 * *cap : 1024;
    double *na = realloc(*a, nc * sizeof(double));
    if (na) {
        *a = na;
    }
    double *nb = na ? realloc(*b, nc * sizeof(double)) : NULL;
    if (nb) {
        *b = nb;
        *cap = nc;
    }
    return nb != NULL;
}

/* A TensorFlow timeline's events: a process's name ("M" process_name, the
 * device), an op's run ("X" with args.name and args.op). *taken false when
 * the event is neither (an ONNX Runtime event, say); 0 or an exit status. */
static int on_tf_event(event_sink *k, const fl_trace_event *ev, bool *taken) {
    *taken = true;
    bool meta = strcmp(ev->ph, "M") == 0 && ev->name && strcmp(ev->name, "process_name") == 0 &&
                ev->arg_name && ev->has_pid;
    if (meta) {
        if (!grow_one((void **)&k->pids, sizeof(tf_pid), &k->cap_pids, k->n_pids)) {
            return EXIT_IO;
        }
        k->pids[k->n_pids++] = (tf_pid){ev->pid, ev->arg_name, ev->index};
        return 0;
    }
    if (strcmp(ev->ph, "X") != 0 || !ev->arg_name || !ev->arg_op) {
        *taken = false;
        return 0;
    }
    if (!ev->has_dur || ev->dur < 0 || !isfinite(ev->dur)) {
        fprintf(stderr, "foldline: fit: %s: event %zu (node %s): 'dur' is not a number >= 0\n",
                k->path, ev->index, ev->arg_name);
        return EXIT_BAD_MODEL;
    }
    if (!grow_one((void **)&k->tf, sizeof(tf_event), &k->cap_tf, k->n_tf)) {
        return EXIT_IO;
    }
    k->tf[k->n_tf++] = (tf_event){ev->arg_name, ev->arg_op, ev->pid, ev->dur, ev->has_pid};
    return 0;
}

/* The TensorFlow timeline's op events into the trace, each on the device
 * its process is named after (an unnamed process: taken as the CPU's); a
 * pid named twice with different names is an error. 0 or an exit status. */
static int tf_events_done(event_sink *k) {
    qsort(k->pids, k->n_pids, sizeof(tf_pid), cmp_pid);
    for (size_t p = 1; p < k->n_pids; p++) {
        const tf_pid *a = &k->pids[p - 1], *b = &k->pids[p];
        if (a->pid == b->pid && strcmp(a->device, b->device) != 0) {
            fprintf(stderr,
                    "foldline: fit: %s: event %zu: process_name names pid %.17g again (event "
                    "%zu named it \"%s\", this one \"%s\"): which device ran its ops is "
                    "unknown\n",
                    k->path, b->index, b->pid, a->index, a->device, b->device);
            return EXIT_BAD_MODEL;
        }
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < k->n_tf; i++) {
        const tf_event *e = &k->tf[i];
        tf_pid key = {e->pid, NULL, 0};
        const tf_pid *hit = e->has_pid && k->n_pids
                                ? bsearch(&key, k->pids, k->n_pids, sizeof(tf_pid), cmp_pid_only)
                                : NULL;
        rc = add_tf_node(k->t, hit ? hit->device : NULL, e->name, e->op, false, e->dur);
    }
    return rc;
}

static int on_event(void *arg, const fl_trace_event *ev) {
    event_sink *k = arg;
    bool taken = false;
    int tf_rc = ev->ph ? on_tf_event(k, ev, &taken) : 0;
    if (tf_rc || taken) {
        return tf_rc;
    }
    if (!ev->cat || !ev->name) {
        return 0;
    }
    size_t nl = strlen(ev->name);
    if (strcmp(ev->cat, "Node") == 0 && nl > 12 &&
        strcmp(ev->name + nl - 12, "_kernel_time") == 0) {
        int rc = add_kernel(k->t, k->path, ev);
        if (rc || !grow(&k->k_ts, &k->k_dur, &k->cap_k, k->nk)) {
            return rc ? rc : EXIT_IO;
        }
        k->k_ts[k->nk] = ev->ts;
        k->k_dur[k->nk++] = ev->dur;
    } else if (strcmp(ev->cat, "Session") == 0 && strcmp(ev->name, "model_run") == 0 &&
               ev->has_dur && ev->dur > 0) {
        if (!grow(&k->runs, &k->run_ts, &k->cap_runs, k->t->n_runs)) {
            return EXIT_IO;
        }
        k->run_ts[k->t->n_runs] = ev->ts;
        k->runs[k->t->n_runs++] = ev->dur;
    }
    return 0;
}

/* The whole file at path into *text (NUL-terminated); 0 or an exit status
 * (message printed). */
static int read_text(const char *path, char **text, size_t *len) {
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "foldline: fit: %s: %s\n", path,
                f ? "not a regular file" : strerror(errno));
        if (f) {
            fclose(f);
        }
        return f ? EXIT_BAD_MODEL : EXIT_IO;
    }
    *len = (size_t)st.st_size;
    *text = malloc(*len + 1);
    size_t got = *text ? fread(*text, 1, *len, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (!*text || err || got != *len) {
        fprintf(stderr, "foldline: fit: %s: %s\n", path, *text ? "read error" : "out of memory");
        free(*text);
        *text = NULL;
        return EXIT_IO;
    }
    return 0;
}

/* One node of a binary step stats into the trace. */
static int on_tf_node(void *arg, const fl_tf_node *n) {
    event_sink *k = arg;
    return add_tf_node(k->t, n->device, n->name, n->op, true, n->dur_us);
}

/* The trace's events into k, its format told by its bytes: JSON (ONNX
 * Runtime's profile or TensorFlow's timeline), gzip (refused), else a
 * binary RunMetadata / StepStats. 0 or an exit status (message printed). */
static int scan_events(const char *path, char *text, size_t len, event_sink *k) {
    size_t i = 0;
    while (i < len && text[i] && strchr(" \t\r\n", text[i])) {
        i++;
    }
    char err[512];
    if (len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
        fprintf(stderr,
                "foldline: fit: %s: gzip-compressed (as the TensorFlow profiler writes its "
                "trace.json.gz): decompress it first (gunzip)\n",
                path);
        return EXIT_BAD_MODEL;
    }
    /* a RunMetadata or StepStats begins with field 1: 0x0a, a newline to
       JSON; one whose length reads as '{' or '[' is told by decoding it */
    bool json = i < len && (text[i] == '{' || text[i] == '[');
    bool binary = len && text[0] == 0x0a &&
                  (!json || fl_tf_stepstats_scan((const unsigned char *)text, len, NULL, NULL, err,
                                                 sizeof err) != FL_TF_UNDECODED);
    if (binary) {
        int rc =
            fl_tf_stepstats_scan((const unsigned char *)text, len, on_tf_node, k, err, sizeof err);
        if (rc == FL_TF_UNDECODED) {
            fprintf(stderr,
                    "foldline: fit: %s: neither JSON trace events nor a TensorFlow RunMetadata "
                    "or StepStats message: %s\n",
                    path, err);
        } else if (rc == FL_TF_INVALID) {
            fprintf(stderr, "foldline: fit: %s: %s\n", path, err);
        }
        return rc < 0 ? EXIT_BAD_MODEL : rc;
    }
    int rc = fl_trace_scan(text, len, on_event, k, err, sizeof err);
    if (rc == FL_TRACE_SYNTAX) {
        fprintf(stderr, "foldline: fit: %s:%s\n", path, err);
        rc = EXIT_BAD_MODEL;
    } else if (rc == FL_TRACE_NOT_EVENTS) {
        fprintf(stderr,
                "foldline: fit: %s: not a trace (expected a JSON array of trace events or an "
                "object with a traceEvents array)\n",
                path);
        rc = EXIT_BAD_MODEL;
    }
    if (!rc && !k->t->n && k->n_tf) { /* a TensorFlow timeline (not mixed with ORT's kernels) */
        rc = tf_events_done(k);
    }
    free(k->tf), free(k->pids);
    return rc;
}

/* Reads one trace file into t; a TensorFlow trace is one step, and a node
 * that ran more than once in it (a loop's iterations, a function called
 * again) counts its times summed, as one run of the step. 0 or an exit
 * status (message printed). */
static int trace_read(const char *path, double q, trace *t) {
    memset(t, 0, sizeof(*t));
    size_t len = 0;
    int rc = read_text(path, &t->text, &len);
    if (rc) {
        return rc;
    }
    event_sink k;
    memset(&k, 0, sizeof k);
    k.t = t, k.path = path;
    rc = scan_events(path, t->text, len, &k);
    double *runs = k.runs, *run_ts = k.run_ts, *k_ts = k.k_ts, *k_dur = k.k_dur;
    size_t nk = k.nk;
    if (!rc && t->n_runs) {
        t->gap_s = run_gaps(runs, run_ts, t->n_runs, k_ts, k_dur, nk, q == 0) * 1e-6;
        t->run_s = median_of(runs, t->n_runs) * 1e-6;
    }
    free(runs), free(run_ts), free(k_ts), free(k_dur);
    if (rc) {
        return rc;
    }
    if (!t->n && t->tf) {
        fprintf(stderr,
                "foldline: fit: %s: no node ran on a CPU: a trace of another device only (%zu "
                "node runs on %s%s); fit reads TensorFlow's CPU timings\n",
                path, t->n_other, t->other, t->others ? " and others" : "");
        return EXIT_BAD_MODEL;
    }
    if (!t->n) {
        fprintf(stderr,
                "foldline: fit: %s: no kernel events: neither ONNX Runtime's profiling output "
                "(cat \"Node\", name \"..._kernel_time\") nor TensorFlow's timeline (ph \"X\" "
                "with args.name and args.op) or step stats\n",
                path);
        return EXIT_BAD_MODEL;
    }
    for (size_t i = 0; t->tf && i < t->n; i++) {
        kernel *kn = &t->k[i];
        double sum = 0;
        for (size_t r = 0; r < kn->n_durs; r++) {
            sum += kn->durs[r];
        }
        if (!isfinite(sum)) {
            fprintf(stderr,
                    "foldline: fit: %s: node %s: its %zu times in the step sum past what a "
                    "double holds (a duration of %g us)\n",
                    path, kn->name, kn->n_durs, kn->durs[0]);
            return EXIT_BAD_MODEL;
        }
        kn->looped = kn->n_durs > 1;
        kn->durs[0] = sum;
        kn->n_durs = 1;
    }
    t->n_steps = t->tf;
    return 0;
}

/* Adds the TensorFlow step s, read from path (one of the list paths), to
 * the steps in t (its nodes' op types copied). A node whose op type differs
 * from an earlier step's is an error: the steps are not of one graph, and
 * which op would count would depend on the list's order. 0 or an exit
 * status (message printed). */
static int steps_merge(trace *t, const trace *s, const char *path, const char *paths) {
    t->tf = true;
    t->n_steps++;
    if (s->n_other && !t->n_other) {
        snprintf(t->other, sizeof t->other, "%s", s->other);
    }
    t->others |= s->others || (s->n_other && strcmp(t->other, s->other) != 0);
    t->n_other += s->n_other;
    for (size_t i = 0; i < s->n; i++) {
        const kernel *was = find_kernel(t, s->k[i].name);
        if (was && was->op && *was->op && s->k[i].op && *s->k[i].op &&
            strcmp(was->op, s->k[i].op) != 0) {
            fprintf(stderr,
                    "foldline: fit: %s: node %s ran as %s here but as %s in an earlier step of "
                    "the list %s: the steps are not of one graph\n",
                    path, s->k[i].name, s->k[i].op, was->op, paths);
            return EXIT_BAD_MODEL;
        }
        int rc = kernel_add(t, s->k[i].name, s->k[i].op, true, "", s->k[i].durs[0]);
        if (rc) {
            return rc;
        }
        find_kernel(t, s->k[i].name)->looped |= s->k[i].looped;
    }
    return 0;
}

/* Reads and checks the traces of one model: one file (ONNX Runtime's
 * profile with its runs, or one TensorFlow step), or TensorFlow steps a
 * file each, "A,B,C" (a node's time in each step its run); latency_s: the
 * untraced run's time (@MS) or 0. 0 or an exit status (message printed). */
static int trace_load(const char *paths, double q, double latency_s, trace *t) {
    struct stat st;
    if (!strchr(paths, ',') || stat(paths, &st) == 0) {
        int rc = trace_read(paths, q, t);
        if (rc) {
            return rc;
        }
    } else {
        memset(t, 0, sizeof(*t));
        char *list = strdup(paths);
        int rc = list ? 0 : EXIT_IO;
        for (char *p = list, *next; !rc && p; p = next) {
            next = strchr(p, ',');
            if (next) {
                *next++ = '\0';
            }
            if (!*p) {
                rc = fl_cli_usage_error("fit: '%s': an empty name in the list of a model's "
                                        "TensorFlow steps (FILE,FILE,...)",
                                        paths);
                break;
            }
            trace s;
            rc = trace_read(p, q, &s);
            if (!rc && !s.tf) {
                fprintf(stderr,
                        "foldline: fit: %s: ONNX Runtime's profile, in a list of files for one "
                        "model (%s), which are TensorFlow steps: a profile holds its runs in "
                        "one file\n",
                        p, paths);
                rc = EXIT_BAD_MODEL;
            }
            rc = rc ? rc : steps_merge(t, &s, p, paths);
            trace_free(&s);
        }
        free(list);
        if (rc) {
            return rc;
        }
    }
    bool any = false;
    /* the share of the traced runs' wall time the process ran: @MS (CPU
     * time on a shared host) over the traced runs' median */
    double rho = latency_s > 0 && t->run_s > latency_s ? latency_s / t->run_s : 1;
    for (size_t i = 0; i < t->n; i++) {
        for (size_t r = 0; r < t->k[i].n_durs; r++) {
            any |= t->k[i].durs[r] > 0;
        }
        /* in us, each figure spread over its truncated 1 us (kernel_time);
           TensorFlow's as written (its ends and starts are both whole us or
           ns, not a truncated span) */
        t->k[i].median_s = (t->tf ? tf_kernel_time(t->k[i].durs, t->k[i].n_durs, q)
                                  : kernel_time(t->k[i].durs, t->k[i].n_durs, q, rho)) *
                           1e-6;
    }
    if (!any) {
        fprintf(stderr, "foldline: fit: %s: every kernel time is 0\n", paths);
        return EXIT_BAD_MODEL;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Matching kernels to ops                                                    */
/* ------------------------------------------------------------------------- */

/* A kernel's op type (ONNX Runtime's Fused* form: its base op; a TensorFlow
 * node without a timeline label (tf): "", any op) is the node's. */
static bool same_op(const char *kop, const char *op, bool tf) {
    return (tf && !kop[0]) || strcmp(kop, op) == 0 ||
           (strncmp(kop, "Fused", 5) == 0 && strcmp(kop + 5, op) == 0);
}

static const char *out_shape(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        if (strcmp(r->nodes[i].name, name) == 0) {
            return r->nodes[i].n_outputs ? r->nodes[i].outputs[0].shape : "";
        }
    }
    return "";
}

typedef struct match_count {
    size_t by_name, by_shape;
} match_count;

/* Sets ops[i].measured_s from the kernels; 0 or an exit status. */
static int match(const fl_report *r, const fl_roofline_graph *g, trace *t, fl_fit_op *ops,
                 const char *tpath, const char *mpath, match_count *mc) {
    memset(mc, 0, sizeof(*mc));
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_roofline_node *n = &g->nodes[i];
        kernel *k = find_kernel(t, n->name);
        /* TensorFlow also times what no kernel costs here (a Const's
           output, say): only ops costed as kernels are matched */
        if (!k || k->matched || !same_op(k->op, n->op, t->tf) || (t->tf && !n->executed)) {
            continue;
        }
        const char *s = out_shape(r, n->name);
        if (k->shape[0] && s[0] && strcmp(k->shape, s) != 0) {
            fprintf(stderr,
                    "foldline: fit: %s: node %s (%s): traced output %s but %s gives %s (a trace "
                    "of another model or input size?)\n",
                    tpath, n->name, n->op, k->shape, mpath, s);
            return EXIT_BAD_MODEL;
        }
        k->matched = (int)i + 1;
        ops[i].measured_s = k->median_s;
        mc->by_name++;
    }
    for (size_t j = 0; j < t->n; j++) { /* the rest by op and output shape, in order */
        kernel *k = &t->k[j];
        for (size_t i = 0; !k->matched && i < g->n_nodes; i++) {
            const fl_roofline_node *n = &g->nodes[i];
            if (ops[i].measured_s < 0 && same_op(k->op, n->op, t->tf) && k->shape[0] &&
                strcmp(k->shape, out_shape(r, n->name)) == 0) {
                k->matched = (int)i + 1;
                ops[i].measured_s = k->median_s;
                mc->by_shape++;
            }
        }
    }
    if (!mc->by_name && !mc->by_shape) {
        fprintf(stderr,
                "foldline: fit: %s: no kernel matches an op of %s (by node name%s): a trace of "
                "another model?\n",
                tpath, mpath,
                t->tf ? " and op type, as given and as foldline's remapper fuses it"
                      : ", or by op type and output shape");
        return EXIT_BAD_MODEL;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The command                                                                */
/* ------------------------------------------------------------------------- */

typedef struct fit_cli {
    fl_roof_cli roof; /* --profile BASE */
    const char *out;
    char **pairs;
    size_t n_pairs;
    fl_symbol_binding *binds;
    size_t n_binds;
    double quantile;     /* of each kernel's times over the runs; 0.5 by default */
    bool gap_per_kernel; /* --gap-per-kernel: no `gap` share, the run's gap per kernel alone */
    size_t n_tf;         /* traces of TensorFlow's (the others: ONNX Runtime's) */
} fit_cli;

/* The profile name an output file gives: its base name without .yaml/.yml. */
static void out_name(const char *out, char *name, size_t size) {
    const char *slash = strrchr(out, '/'), *b = slash ? slash + 1 : out;
    size_t bl = strlen(b);
    bl -= bl > 5 && strcmp(b + bl - 5, ".yaml") == 0  ? 5
          : bl > 4 && strcmp(b + bl - 4, ".yml") == 0 ? 4
                                                      : 0;
    snprintf(name, size, "%.*s", (int)bl, b);
}

/* Whether `name` is a valid profile name (as a profile file requires). */
static bool name_ok(const char *name) {
    size_t n = strlen(name);
    bool ok = n > 0 && n <= 64 && strcmp(name, "all") != 0;
    for (const char *p = name; ok && *p; p++) {
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '-' || *p == '_' || *p == '.';
    }
    return ok;
}

static int parse_fit(fit_cli *c, int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int r = strcmp(a, "--profile") == 0 ? fl_roof_cli_option(&c->roof, argc, argv, &i) : 0;
        if (r == 2) {
            return EXIT_USAGE;
        } else if (r == 1) {
            continue;
        }
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--bind") == 0 || strcmp(a, "--quantile") == 0) &&
            i + 1 >= argc) {
            return fl_cli_usage_error("fit: option %s needs a value", a);
        }
        if (strcmp(a, "-o") == 0) {
            c->out = argv[++i];
        } else if (strcmp(a, "--gap-per-kernel") == 0) {
            c->gap_per_kernel = true;
        } else if (strcmp(a, "--quantile") == 0) {
            char *end;
            const char *v = argv[++i];
            double q = strtod(v, &end);
            if (end == v || *end || !(q >= 0 && q < 1)) {
                return fl_cli_usage_error("fit: --quantile expects a number in [0, 1), got '%s'",
                                          v);
            }
            c->quantile = q;
        } else if (strcmp(a, "--bind") == 0) {
            char *v = argv[++i], *eq = strrchr(v, '='), *end;
            long long n = eq ? strtoll(eq + 1, &end, 10) : -1;
            if (!eq || eq == v || !eq[1] || *end || n < 0) {
                return fl_cli_usage_error("fit: --bind expects SYM=N, got '%s'", v);
            }
            *eq = '\0';
            fl_symbol_binding *nb = realloc(c->binds, (c->n_binds + 1) * sizeof(*nb));
            if (!nb) {
                return EXIT_IO;
            }
            c->binds = nb;
            c->binds[c->n_binds].name = v;
            c->binds[c->n_binds++].value = n;
        } else if (a[0] != '-' && strchr(a, '=') && strchr(a, '=') != a && strchr(a, '=')[1]) {
            char **np = realloc(c->pairs, (c->n_pairs + 1) * sizeof(char *));
            if (!np) {
                return EXIT_IO;
            }
            c->pairs = np;
            c->pairs[c->n_pairs++] = argv[i];
        } else {
            return fl_cli_usage_error("fit: unexpected argument '%s' (fit takes --profile BASE, "
                                      "-o OUT.yaml, --bind SYM=N, --quantile Q, "
                                      "--gap-per-kernel and "
                                      "MODEL=TRACE.json[@MS] pairs)",
                                      a);
        }
    }
    if (c->roof.n_names != 1 || strcmp(c->roof.names[0], "all") == 0) {
        return fl_cli_usage_error("%s", "fit: give one base profile: --profile NAME|FILE.yaml");
    }
    if (!c->out) {
        return fl_cli_usage_error("%s", "fit: -o OUT.yaml is required (the base profile is never "
                                        "written)");
    }
    if (!c->n_pairs) {
        return fl_cli_usage_error("%s", "fit: give at least one MODEL.onnx=TRACE.json");
    }
    char name[128];
    out_name(c->out, name, sizeof name);
    if (!name_ok(name)) {
        return fl_cli_usage_error("fit: -o %s: the profile is named after its file, and '%s' is "
                                  "not a valid name (1-64 of A-Z a-z 0-9 . _ -, not 'all')",
                                  c->out, name);
    }
    return 0;
}

/* The model file's bytes (NULL with the error printed). */
static unsigned char *read_model(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    if (!buf) {
        fprintf(stderr, "foldline: fit: cannot read '%s': %s\n", path,
                f ? "read error" : strerror(errno));
    }
    if (f) {
        fclose(f);
    }
    *len = buf ? (size_t)n : 0;
    return buf;
}

/* Analyses the model at mpath (*r set; 0 or an exit status, message
 * printed). A TensorFlow trace needs a TensorFlow model, which is analysed
 * with foldline's remapper too: the fused nodes TensorFlow's Grappler forms
 * at run time are then nodes of the graph after it. */
static int analyse_model(const fit_cli *c, const fl_options *base_opt, const char *mpath,
                         const char *tpath, bool tf, fl_report **r) {
    size_t len = 0;
    unsigned char *buf = read_model(mpath, &len);
    if (!buf) {
        return EXIT_IO;
    }
    fl_format fmt = fl_detect_format(buf, len);
    if (tf && fmt != FL_FORMAT_GRAPHDEF && fmt != FL_FORMAT_SAVEDMODEL && fmt != FL_FORMAT_TFJS) {
        fprintf(stderr,
                "foldline: fit: %s holds TensorFlow timings, but %s is no TensorFlow model "
                "(GraphDef, SavedModel or TF.js graph model)\n",
                tpath, mpath);
        free(buf);
        return EXIT_BAD_MODEL;
    }
    fl_options o = *base_opt;
    o.symbols = c->binds;
    o.n_symbols = c->n_binds;
    if (tf) {
        o.passes = "remap";
        o.device = FL_DEVICE_CPU;
    }
    fl_status st = fl_analyze(buf, len, &o, r);
    free(buf);
    if (st != FL_OK) {
        fprintf(stderr, "foldline: fit: %s: %s\n", mpath,
                *r && (*r)->error ? (*r)->error : fl_status_str(st));
        return fl_cli_exit_of(st);
    }
    return 0;
}

/* The nodes of g as the fit's ops (measured_s -1: not traced yet). */
static void fill_ops(const fl_roofline_graph *g, const fl_profile *bp, fl_fit_op *ops) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_roofline_node *n = &g->nodes[i];
        fl_op_class cls = FL_CLASS_OTHER;
        for (int k = 0; k < FL_CLASS_COUNT; k++) {
            cls = strcmp(fl_op_class_name((fl_op_class)k), n->op_class) == 0 ? (fl_op_class)k : cls;
        }
        int level = 0; /* 1 + the index of the node's memory level in the base profile */
        for (size_t l = 0; n->level && l < bp->n_levels; l++) {
            level = strcmp(bp->levels[l].name, n->level) == 0 ? (int)l + 1 : level;
        }
        ops[i] =
            (fl_fit_op){cls,         n->flops, n->bytes,    n->compute_peak_s, n->memory_peak_s,
                        n->executed, -1,       n->channels, n->broadcast,      level};
    }
}

/* The nodes of g a TensorFlow trace times: same name, same op type (or
 * none in the trace), costed as a kernel. */
static size_t tf_matches(const fl_roofline_graph *g, trace *t) {
    size_t n = 0;
    for (size_t i = 0; g && i < g->n_nodes; i++) {
        kernel *k = g->nodes[i].executed ? find_kernel(t, g->nodes[i].name) : NULL;
        n += k && same_op(k->op, g->nodes[i].op, true);
    }
    return n;
}

/* Analyses one model and matches its trace into m (ops malloc'd), and the
 * bytes the kernels before each op evicted into *ev (malloc'd; NULL on a
 * base profile without caches). */
/* What a TensorFlow trace matched: nodes by name and op type, how many of
 * them are fused chains of foldline's remapper, what was left out. */
static void print_tf_matches(const char *tpath, const trace *t, const fl_roofline_graph *g,
                             const fl_fit_op *ops, bool after, const match_count *mc) {
    size_t fused = 0;
    for (size_t i = 0; after && i < g->n_nodes; i++) {
        fused += ops[i].measured_s >= 0 && strncmp(g->nodes[i].op, "_Fused", 6) == 0;
    }
    printf("  %-40s %5zu TensorFlow nodes on the CPU, %5zu matched by name and op type (%zu of "
           "them fused chains as foldline's remapper forms them, named after the chain's last "
           "node), %zu unmatched",
           tpath, t->n, mc->by_name, fused, t->n - mc->by_name);
    if (t->n_other) {
        printf(", %zu node runs on other devices left out (%s%s)", t->n_other, t->other,
               t->others ? " and others" : "");
    }
    size_t looped = 0;
    for (size_t i = 0; i < t->n; i++) {
        looped += t->k[i].looped;
    }
    printf("; %zu step%s (a file each)", t->n_steps, t->n_steps == 1 ? "" : "s");
    if (looped) {
        printf(", %zu node%s ran more than once within a step (a loop's iterations: their times "
               "in a step summed)",
               looped, looped == 1 ? "" : "s");
    }
    printf("\n");
}

/* One MODEL=TRACE pair into m (and its evicted bytes, *ev); *files: the
 * trace files it read (a TensorFlow step each, or one profile). */
static int load_pair(fit_cli *c, const fl_options *base_opt, char *pair, fl_fit_model *m,
                     double **ev, size_t *files) {
    char *eq = strchr(pair, '=');
    *eq = '\0';
    const char *mpath = pair, *tpath = eq + 1;
    /* MODEL=TRACE@MS: the untraced whole-run latency, measured apart (the
     * profiler's own cost between kernels inflates traced runs). */
    double latency_s = 0;
    char *at = strrchr(eq + 1, '@');
    if (at) {
        char *end;
        errno = 0;
        double ms = strtod(at + 1, &end);
        if (errno || *end || !at[1] || !(ms > 0) || !isfinite(ms)) {
            return fl_cli_usage_error("fit: '%s': the latency after '@' must be milliseconds > 0",
                                      at + 1);
        }
        *at = '\0';
        latency_s = ms * 1e-3;
    }
    m->name = mpath;
    trace t;
    int rc = trace_load(tpath, c->quantile, latency_s, &t);
    fl_report *r = NULL;
    if (!rc) {
        rc = analyse_model(c, base_opt, mpath, tpath, t.tf, &r);
    }
    const fl_roofline_graph *g = rc ? NULL : r->roofline[0].before;
    /* TensorFlow's trace of a graph Grappler remapped names the fused nodes
       after each chain's last node: the graph after foldline's remapper
       when more of its nodes are traced */
    bool after = g && t.tf && tf_matches(r->roofline[0].after, &t) > tf_matches(g, &t);
    g = after ? r->roofline[0].after : g;
    fl_fit_op *ops = g ? calloc(g->n_nodes + 1, sizeof(*ops)) : NULL;
    *ev = g && g->node_evicted_bytes ? calloc(g->n_nodes + 1, sizeof(double)) : NULL;
    if (!rc && (!ops || (g->node_evicted_bytes && !*ev))) {
        rc = EXIT_IO;
    }
    if (!rc && *ev) {
        memcpy(*ev, g->node_evicted_bytes, g->n_nodes * sizeof(double));
    }
    if (!rc) {
        fill_ops(g, base_opt->profiles[0], ops);
    }
    match_count mc = {0, 0};
    if (!rc) {
        rc = match(r, g, &t, ops, tpath, mpath, &mc);
    }
    if (!rc) {
        m->ops = ops;
        m->n_ops = g->n_nodes;
        double ksum = 0;
        for (size_t i = 0; i < t.n; i++) {
            ksum += t.k[i].median_s;
        }
        /* the per-kernel dispatch gap: (latency - kernels) / kernels, or the
         * traced runs' own gaps when no latency was given */
        m->measured_s = latency_s > 0 ? latency_s : t.run_s;
        m->kernel_sum_s = t.run_s - t.gap_s;
        if (latency_s > 0 && !c->gap_per_kernel) {
            /* the gap as a share of the kernels' time: the whole of it, a
               typical run against the kernels' times included (each
               model's share is bounded by the median over the models) */
            m->kernel_sum_s = ksum;
        } else if (latency_s > 0 && t.tf) { /* no traced runs to bound it */
            m->kernel_sum_s = ksum < latency_s ? ksum : latency_s;
        } else if (latency_s > 0) { /* at most the traced gap, which includes the profiler's
                                       cost: a noisy latency must not turn into a huge
                                       per-kernel cost */
            double gap = latency_s - ksum;
            gap = gap < 0 ? 0 : gap > t.gap_s ? t.gap_s : gap;
            m->kernel_sum_s = latency_s - gap;
        }
        m->n_kernels = t.n;
        *files = t.tf ? t.n_steps : 1;
        c->n_tf += t.tf;
        if (t.tf) {
            print_tf_matches(tpath, &t, g, ops, after, &mc);
        } else {
            printf("  %-40s %5zu kernels, %5zu matched (%zu by name, %zu by op and shape), run "
                   "%.4g ms\n",
                   tpath, t.n, mc.by_name + mc.by_shape, mc.by_name, mc.by_shape, t.run_s * 1e3);
        }
    } else {
        free(ops);
        free(*ev);
        *ev = NULL;
    }
    fl_report_free(r);
    trace_free(&t);
    return rc;
}

/* "N KIND traces" for n models read from as many files, else "N models, F
 * KIND trace files" (a TensorFlow model traced step by step has a file per
 * step: "1 trace" for three steps' files would hide two of them). kind:
 * "" or a name and a space. */
static void count_traces(char *buf, size_t size, size_t n, size_t files, const char *kind) {
    if (files == n) {
        snprintf(buf, size, "%zu %strace%s", n, kind, n == 1 ? "" : "s");
    } else {
        snprintf(buf, size, "%zu model%s, %zu %strace files", n, n == 1 ? "" : "s", files, kind);
    }
}

static void print_result(const fl_fit_result *res, const fl_fit_model *models, size_t n,
                         const fl_fit_terms *t) {
    if (t->gap) {
        /* the models the share's median is over (those with a whole-run
           time) and their files */
        char over[96];
        count_traces(over, sizeof over, t->gap_models, t->gap_files, "");
        printf("run's gap %.3g %% of the kernels' time (median over %s)%s\n", t->gap_share * 100,
               over,
               !res->have_overhead ? " (no whole-run time: the traces have no model_run events "
                                     "and no @MS was given: base gap kept)"
               : t->gap_share <= 0 ? " (the runs took no longer than their kernels: none written)"
                                   : "");
    }
    printf("dispatch overhead %.3g us per kernel%s%s\n", res->overhead_s * 1e6,
           t->gap ? " beyond the gap's share" : "",
           !res->have_overhead    ? " (no whole-run time: the traces have no model_run events "
                                    "and no @MS was given: base overhead kept)"
           : res->overhead_s <= 0 ? (t->gap ? " (the share leaves none: none written)"
                                            : " (the runs took no longer than their kernels: "
                                              "none written)")
                                  : "");
    printf("refill after streaming kernels %.3g us per MB the %d kernels before an op evicted%s\n",
           t->streamed * 1e12, FL_STREAMED_WINDOW, t->streamed > 0 ? "" : " (none: not written)");
    printf("  %-14s %6s %8s  %s\n", "class", "ops", "buckets", "median |error| (in-sample)");
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        if (res->samples[c]) {
            printf("  %-14s %6lld %8zu  %.1f %%", fl_op_class_name((fl_op_class)c),
                   (long long)res->samples[c], res->table[c].n_buckets, 100 * res->residual[c]);
            double pc = res->table[c].n_buckets ? res->table[c].buckets[0].per_channel_s : 0;
            if (pc > 0) { /* depthwise: per channel group; data movement: per run */
                printf(", %.3g us per %s", pc * 1e6,
                       c == FL_CLASS_DATA_MOVEMENT ? "run" : "channel");
            }
            double bc = res->table[c].n_buckets ? res->table[c].buckets[0].broadcast_s : 0;
            if (bc > 0) {
                printf(", %.3g us per broadcast op", bc * 1e6);
            }
            printf("\n");
        }
    }
    printf("  %-40s %10s %10s %16s\n", "model", "measured", "fitted", "left-out fit");
    for (size_t m = 0; m < n; m++) {
        printf("  %-40.40s %7.4g ms %7.4g ms %13.4g ms\n", models[m].name,
               models[m].measured_s * 1e3, res->predicted_s[m] * 1e3, res->cv_s[m] * 1e3);
    }
    if (res->interval.coverage > 0) {
        printf("interval (leave-one-model-out, 80 %%): %.3g-%.3g x the estimate\n",
               res->interval.low, res->interval.high);
    } else {
        printf("no interval: fewer than 3 traces with whole-run times\n");
    }
}

/* Writes OUT atomically after parsing the text back. */
/* files[i]: the trace files of model i (load_pair). */
static int write_out(fit_cli *c, const fl_profile *base, const fl_fit_result *res, size_t n,
                     const fl_fit_terms *t, const size_t *files) {
    char name[128], err[768], date[32], src[512];
    out_name(c->out, name, sizeof name);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    char q[64] = "";
    if (c->quantile == 0) {
        snprintf(q, sizeof q, " (kernel times: the least of the runs)");
    } else if (c->quantile != 0.5) {
        snprintf(q, sizeof q, " (kernel times: %.3g quantile of the runs)", c->quantile);
    }
    /* models and trace files (ONNX Runtime's: a file a model) */
    size_t n_files = 0;
    for (size_t i = 0; i < n; i++) {
        n_files += files[i];
    }
    char traces[160], kind[224];
    if (!c->n_tf || c->n_tf == n) {
        count_traces(kind, sizeof kind, n, n_files, c->n_tf ? "TensorFlow " : "ONNX Runtime ");
    } else {
        count_traces(traces, sizeof traces, n, n_files, "");
        snprintf(kind, sizeof kind, "%s (%zu ONNX Runtime, %zu TensorFlow)", traces, n - c->n_tf,
                 n_files - (n - c->n_tf));
    }
    count_traces(traces, sizeof traces, n, n_files, "");
    snprintf(src, sizeof src, "fitted %s by foldline fit to %s on %s%s", date, kind, base->name, q);
    fl_outfile o;
    if (fl_outfile_open(&o, c->out, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: fit: %s\n", err);
        return EXIT_IO;
    }
    fprintf(o.f, "# Written by foldline fit %s from profile %s and %s.\n", date, base->path,
            traces);
    if (fl_fit_write_profile_terms(o.f, base, name, res, t, src) != 0 || fflush(o.f) != 0) {
        fprintf(stderr, "foldline: fit: cannot write '%s'\n", c->out);
        fl_outfile_abort(&o);
        return EXIT_IO;
    }
    fl_profile *back = NULL;
    if (fl_profile_load(o.tmp, &back, err, sizeof err) != FL_OK) {
        fprintf(stderr, "foldline: fit: the fitted profile does not load back: %s\n", err);
        fl_outfile_abort(&o);
        return EXIT_BAD_MODEL;
    }
    fl_profile_free(back);
    if (fl_outfile_commit(&o, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: fit: %s\n", err);
        return EXIT_IO;
    }
    printf("wrote %s (profile '%s')\n", c->out, name);
    return 0;
}

int fl_cmd_fit(int argc, char **argv) {
    fit_cli c;
    memset(&c, 0, sizeof c);
    c.quantile = 0.5;
    fl_options opt;
    fl_options_init(&opt);
    int rc = parse_fit(&c, argc, argv);
    if (!rc) {
        rc = fl_roof_cli_prepare(&c.roof, &opt);
    }
    const fl_profile *base = rc ? NULL : opt.profiles[0];
    struct stat so, sb;
    if (!rc && stat(c.out, &so) == 0 && stat(base->path, &sb) == 0 && so.st_dev == sb.st_dev &&
        so.st_ino == sb.st_ino) {
        rc =
            fl_cli_usage_error("fit: -o %s is the base profile, which fit never overwrites", c.out);
    }
    opt.per_node = true;
    opt.passes = "none";
    fl_fit_model *models = rc ? NULL : calloc(c.n_pairs + 1, sizeof(*models));
    double **ev = rc ? NULL : calloc(c.n_pairs + 1, sizeof(*ev));
    size_t *files = rc ? NULL : calloc(c.n_pairs + 1, sizeof(*files));
    rc = rc ? rc : models && ev && files ? 0 : EXIT_IO;
    if (!rc) {
        printf("fit: base profile %s (%s), %zu trace%s\n", base->name, base->path, c.n_pairs,
               c.n_pairs == 1 ? "" : "s");
    }
    size_t loaded = 0;
    for (; !rc && loaded < c.n_pairs; loaded++) {
        rc = load_pair(&c, &opt, c.pairs[loaded], &models[loaded], &ev[loaded], &files[loaded]);
    }
    fl_fit_result res;
    memset(&res, 0, sizeof res);
    if (!rc) {
        char err[512];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        fl_fit_terms terms;
        fl_fit_terms_init(&terms);
        terms.evicted = (const double *const *)ev;
        terms.gap = !c.gap_per_kernel;
        terms.model_files = files;
        fl_status st = fl_fit_terms_run(models, c.n_pairs, &res, &terms, err, sizeof err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st != FL_OK) {
            fprintf(stderr, "foldline: fit: %s\n", err);
            rc = st == FL_ENOMEM ? EXIT_IO : EXIT_BAD_MODEL;
        } else {
            printf("fitted in %.1f ms; ", 1e3 * (double)(t1.tv_sec - t0.tv_sec) +
                                              1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
            print_result(&res, models, c.n_pairs, &terms);
            rc = write_out(&c, base, &res, c.n_pairs, &terms, files);
        }
    }
    for (size_t i = 0; models && i < loaded; i++) {
        free((void *)models[i].ops);
        free(ev[i]);
    }
    free(models);
    free(ev);
    free(files);
    fl_fit_result_free(&res);
    free(c.pairs);
    free(c.binds);
    fl_roof_cli_free(&c.roof);
    return rc;
}
