/*
 * fit.c - fits a profile's efficiency tables to measured kernel times
 * (fl_fit, declared with the model it fits in include/foldline/roofline.h)
 * and writes the fitted profile as YAML.
 *
 * Per class: size buckets from decades of the size key; per bucket a fixed
 * cost per op from a grid (see search_fixed) and the median compute and
 * memory efficiencies given that fixed cost. Medians make the fit
 * robust to the few kernels a shared host slows down; every efficiency is
 * bounded to [1e-4, 1]; nothing depends on the order of equal values, so the
 * same traces give the same table.
 */
#include "foldline/roofline.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BUCKET  6  /* ops per bucket before a decade is merged into the next */
#define FIXED_STEPS 24 /* fixed-cost candidates per bucket: 3 x FIXED_STEPS + 1 */
#define GRID        (3 * FIXED_STEPS + 1)
#define EFF_MIN     1e-4
#define PARSIMONY   0.01 /* a fixed cost within 1 % of the best error: the least is kept */
#define CHAN_STEPS  24   /* per-channel candidates: the least time per channel x j / CHAN_STEPS */

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest of v[0..n) (k < n), left at v[k] with no greater value
 * before it (reorders v): Hoare partitions around a median of three, O(n)
 * on average. The value does not depend on the order of v. */
static double select_kth(double *v, size_t n, size_t k) {
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) {
                i++;
            }
            while (v[j] > pivot) {
                j--;
            }
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        /* v[lo..j] <= pivot, v[j+1..i-1] == pivot, v[i..hi] >= pivot */
        if (kk <= j) {
            hi = j;
        } else if (kk >= i) {
            lo = i;
        } else {
            break;
        }
    }
    return v[k];
}

/* Median of v[0..n) (reorders v); 0 when n == 0. The same value as the
 * middle of the sorted values (the mean of the middle two when n is even). */
static double median(double *v, size_t n) {
    if (!n) {
        return 0;
    }
    double hi = select_kth(v, n, n / 2);
    if (n % 2) {
        return hi;
    }
    double lo = v[0]; /* the greatest of v[0 .. n/2): the (n/2 - 1)-th smallest */
    for (size_t i = 1; i < n / 2; i++) {
        lo = v[i] > lo ? v[i] : lo;
    }
    return 0.5 * (lo + hi);
}

/* Linear-interpolation quantile of sorted v. */
static double quantile(const double *v, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = (size_t)ceil(pos);
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

static double clampe(double e) {
    return e < EFF_MIN ? EFF_MIN : e > 1 ? 1 : e;
}

static fl_size_key key_of(fl_op_class c) {
    return c == FL_CLASS_MATMUL || c == FL_CLASS_CONV || c == FL_CLASS_DEPTHWISE ? FL_SIZE_FLOPS
                                                                                 : FL_SIZE_BYTES;
}

static double size_of(const fl_fit_op *o, fl_size_key k) {
    return k == FL_SIZE_FLOPS ? o->flops : o->bytes;
}

static const fl_eff_bucket *find_bucket(const fl_eff_table *t, double v) {
    if (!t->n_buckets) {
        return NULL;
    }
    size_t i = 0;
    while (i + 1 < t->n_buckets && v > t->buckets[i].upto) {
        i++;
    }
    return &t->buckets[i];
}

/* The scales of the result being fitted or used (see fl_fit_result). */
typedef struct scales {
    double c, m;
    const double *level; /* fl_fit_result.level_scale */
    double stream;       /* seconds per byte the kernels before an op evicted (0: none) */
} scales;

/* The memory term's scale of op o: its level's own, else the common one. */
static double mscale(scales sc, const fl_fit_op *o) {
    int l = o->level - 1;
    return l >= 0 && l < FL_FIT_LEVELS && sc.level && sc.level[l] > 0 ? sc.level[l] : sc.m;
}

static double terms_s(const fl_eff_bucket *b, const fl_fit_op *o, scales sc) {
    double c = o->compute_s / sc.c / (b ? b->compute : 1);
    double m = o->memory_s / mscale(sc, o) / (b ? b->memory : 1);
    return c > m ? c : m;
}

double fl_fit_predict_op(const fl_fit_result *r, const fl_fit_op *o) {
    const fl_eff_table *t = &r->table[o->cls];
    const fl_eff_bucket *b = find_bucket(t, size_of(o, t->by));
    bool runs = o->executed || o->flops > 0 || o->bytes > 0;
    scales sc = {r->compute_scale > 0 ? r->compute_scale : 1,
                 r->memory_scale > 0 ? r->memory_scale : 1, r->level_scale, 0};
    double t_op = terms_s(b, o, sc);
    if (runs) {
        t_op += (r->have_overhead ? r->overhead_s : 0) + (b ? b->fixed_s : 0);
    }
    if (b && (o->flops > 0 || o->bytes > 0)) {
        t_op += o->channels * b->per_channel_s + (o->broadcast ? b->broadcast_s : 0);
    }
    return t_op;
}

/* ------------------------------------------------------------------------- */
/* One class                                                                  */
/* ------------------------------------------------------------------------- */

typedef struct sample {
    const fl_fit_op *op;
    double size;
    int bucket;
    double t;      /* the measured time less the per-unit time being tried */
    double xc, xm; /* op->compute_s / scales.c, op->memory_s / scales.m */
    double ms;     /* op->measured_s */
    double ev;     /* the bytes the kernels run before the op evicted (fl_fit_streamed) */
} sample;

static int cmp_sample(const void *a, const void *b) {
    const sample *x = a, *y = b;
    if (x->size != y->size) {
        return x->size < y->size ? -1 : 1;
    }
    /* equal sizes: by the op's times, so equal inputs in any order fit alike */
    if (x->op->measured_s != y->op->measured_s) {
        return x->op->measured_s < y->op->measured_s ? -1 : 1;
    }
    return (x->op->compute_s > y->op->compute_s) - (x->op->compute_s < y->op->compute_s);
}

/* The decade of a size: d with 10^d < size <= 10^(d+1) (buckets hold the
 * sizes up to and including their `upto`). */
static double decade(double size) {
    return size > 0 ? ceil(log10(size)) - 1 : -99;
}

/* Buckets from decades of the (sorted) sizes: a decade joins the next until
 * the bucket holds MIN_BUCKET ops; a short tail joins the last bucket, which
 * is open-ended. Returns the bucket count; sets s[i].bucket and upto[]. */
static size_t make_buckets(sample *s, size_t n, double *upto) {
    size_t nb = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        double d = decade(s[i].size);
        bool decade_ends = i + 1 == n || decade(s[i + 1].size) != d;
        if (decade_ends && i + 1 - start >= MIN_BUCKET && i + 1 < n) {
            upto[nb] = pow(10, d + 1);
            for (size_t k = start; k <= i; k++) {
                s[k].bucket = (int)nb;
            }
            nb++;
            start = i + 1;
        }
    }
    if (start < n || nb == 0) {
        if (start < n && n - start < MIN_BUCKET && nb > 0) {
            nb--; /* a short tail joins the previous bucket */
        }
        for (size_t k = 0; k < n; k++) {
            if (s[k].bucket < 0 || s[k].bucket >= (int)nb) {
                s[k].bucket = (int)nb;
            }
        }
        nb++;
    }
    upto[nb - 1] = 0;
    return nb;
}

/* max(xc / ce, xm / me) as terms_s takes it (ce, me > 0), dividing once
 * where the products, both normal numbers (relative error 2^-53 each),
 * order the quotients with room to spare: rounding keeps the order of the
 * exact quotients, so the larger one's rounded value is the maximum of the
 * two rounded values. Otherwise both, as before. */
static double term_max(double xc, double ce, double xm, double me) {
    double a = xc * me, b = xm * ce;
    if (b >= DBL_MIN && a > b * (1 + 0x1p-40)) {
        return xc / ce;
    }
    if (a >= DBL_MIN && b > a * (1 + 0x1p-40)) {
        return xm / me;
    }
    double c = xc / ce, m = xm / me;
    return c > m ? c : m;
}

/* Efficiencies of every bucket (bucket k: samples start[k] .. start[k+1])
 * for fixed costs f[bucket]; compute-bound ops
 * (by the terms at efficiency 1, or by bounds[] when given) set `compute`,
 * the others `memory`; a bucket without one kind takes the other's value.
 * err[bucket] receives the bucket's summed relative error. */
static void fit_effs(const sample *s, size_t n, size_t nb, const size_t *start, const double *f,
                     const bool *bounds, fl_eff_bucket *b, double *scratch, double *err,
                     const fl_eff_bucket *same, const double *same_err, const double *stop) {
    for (size_t k = 0; k < nb; k++) {
        if (same && memcmp(&same[k].fixed_s, &f[k], sizeof(double)) == 0) {
            /* the same fixed cost (bit for bit) on the same samples: the
             * same efficiencies and error as then */
            b[k].compute = same[k].compute, b[k].memory = same[k].memory;
            b[k].fixed_s = f[k], err[k] = same_err[k];
            continue;
        }
        size_t nc = 0, nm = 0;
        double *vc = scratch, *vm = scratch + n;
        for (size_t i = start[k]; i < start[k + 1]; i++) {
            double left = s[i].t - f[k], xc = s[i].xc, xm = s[i].xm;
            if (left <= 0) {
                continue; /* all fixed cost: says nothing about the efficiencies */
            }
            bool comp = bounds ? bounds[i] : xc >= xm;
            if (comp) {
                vc[nc++] = xc / left;
            } else {
                vm[nm++] = xm / left;
            }
        }
        double ec = nc ? clampe(median(vc, nc)) : 0, em = nm ? clampe(median(vm, nm)) : 0;
        b[k].compute = nc ? ec : (nm ? em : 1);
        b[k].memory = nm ? em : (nc ? ec : 1);
        b[k].fixed_s = f[k];
        /* the bucket's samples are contiguous: its error sums them in order */
        double e = 0, ce = b[k].compute, me = b[k].memory, fk = f[k];
        double limit = stop ? stop[k] * (1 + PARSIMONY) : INFINITY;
        for (size_t i = start[k]; i < start[k + 1] && !(e > limit); i++) {
            e += fabs(fk + term_max(s[i].xc, ce, s[i].xm, me) - s[i].t) / s[i].ms;
        }
        err[k] = e; /* past stop[k] x (1 + PARSIMONY): a part of the sum (see search_fixed) */
    }
}

/* Working memory of one class's fit (n samples, nb <= n buckets). */
typedef struct class_work {
    double *upto, *scratch, *tmin, *tmed, *f, *err, *best_err, *limit;
    fl_eff_bucket *best, *cur;
    bool *bounds;
    size_t *start;       /* bucket k holds samples start[k] .. start[k+1] (sorted by size) */
    fl_eff_bucket *grid; /* GRID x nb: search_fixed's first pass, bucket k of point j at j*nb+k */
    double *grid_err;    /* and its errors */
} class_work;

static void work_free(class_work *w) {
    free(w->upto), free(w->scratch), free(w->tmin), free(w->tmed), free(w->f), free(w->err);
    free(w->best_err), free(w->cur), free(w->bounds), free(w->limit), free(w->start);
    free(w->grid), free(w->grid_err);
}

static bool work_alloc(class_work *w, size_t n) {
    w->upto = calloc(n + 1, sizeof(double));
    w->scratch = calloc(2 * n + 1, sizeof(double));
    w->tmin = calloc(n + 1, sizeof(double));
    w->tmed = calloc(n + 1, sizeof(double));
    w->f = calloc(n + 1, sizeof(double));
    w->err = calloc(n + 1, sizeof(double));
    w->best_err = calloc(n + 1, sizeof(double));
    w->best = calloc(n + 1, sizeof(fl_eff_bucket));
    w->cur = calloc(n + 1, sizeof(fl_eff_bucket));
    w->bounds = calloc(n + 1, sizeof(bool));
    w->limit = calloc(n + 1, sizeof(double));
    w->start = calloc(n + 2, sizeof(size_t));
    if (w->upto && w->scratch && w->tmin && w->tmed && w->f && w->err && w->best_err && w->best &&
        w->cur && w->bounds && w->limit && w->start) {
        return true;
    }
    work_free(w);
    free(w->best);
    return false;
}

/* Keeps, per bucket, the candidate of w->cur with the smaller error. */
static void keep_better(class_work *w, size_t nb) {
    for (size_t k = 0; k < nb; k++) {
        if (w->err[k] < w->best_err[k]) {
            w->best_err[k] = w->err[k];
            w->best[k] = w->cur[k];
        }
    }
}

/* Grid point j of every bucket's fixed cost into w->f: the class's fastest
 * time x j / FIXED_STEPS (one fixed cost for the class is among the
 * candidates), the bucket's own fastest time x j / FIXED_STEPS, then on up to
 * the bucket's median time (a bucket of ops that are mostly fixed cost, e.g.
 * ops that move no bytes, is not held below its fastest op). */
static void grid_point(class_work *w, size_t nb, int j, double cmin) {
    for (size_t k = 0; k < nb; k++) {
        double lo = w->tmin[k], hi = w->tmed[k];
        int g = j / FIXED_STEPS, i = j % FIXED_STEPS;
        w->f[k] = g == 0   ? cmin * i / FIXED_STEPS
                  : g == 1 ? lo * i / FIXED_STEPS
                  : g == 2 ? lo + (hi - lo) * i / FIXED_STEPS
                           : hi;
    }
}

/* Per bucket: the fixed cost on a grid below the bucket's fastest op with the
 * least summed relative error (buckets are independent given their fixed
 * costs), then once more with each op's bound as that fit sees it. */
static void search_fixed(const sample *s, size_t n, size_t nb, scales sc, class_work *w) {
    for (size_t k = 0; k < nb; k++) {
        w->best_err[k] = INFINITY;
    }
    double cmin = INFINITY;
    for (size_t k = 0; k < nb; k++) {
        size_t m = 0;
        w->tmin[k] = INFINITY;
        for (size_t i = w->start[k]; i < w->start[k + 1]; i++) {
            w->scratch[m++] = s[i].t;
            w->tmin[k] = s[i].t < w->tmin[k] ? s[i].t : w->tmin[k];
        }
        w->tmin[k] = m ? w->tmin[k] : 0;
        w->tmed[k] = median(w->scratch, m);
        cmin = w->tmin[k] < cmin ? w->tmin[k] : cmin;
    }
    for (int j = 0; j < GRID; j++) {
        grid_point(w, nb, j, cmin);
        /* a point of the second group can repeat the first group's (j = 0 and
         * FIXED_STEPS are both 0; the bucket holding the class's fastest op
         * has the same grid in both) */
        bool second = j >= FIXED_STEPS && j < 2 * FIXED_STEPS;
        size_t back = second ? (size_t)(j - FIXED_STEPS) * nb : 0;
        /* A candidate whose error passes the best so far x (1 + PARSIMONY)
         * can neither be better nor come within PARSIMONY of the best (the
         * best only falls): the rest of its sum is not needed. */
        fit_effs(s, n, nb, w->start, w->f, NULL, w->cur, w->scratch, w->err,
                 second ? &w->grid[back] : NULL, second ? &w->grid_err[back] : NULL, w->best_err);
        keep_better(w, nb);
        memcpy(&w->grid[(size_t)j * nb], w->cur, nb * sizeof(*w->cur));
        memcpy(&w->grid_err[(size_t)j * nb], w->err, nb * sizeof(*w->err));
    }
    /* The least fixed cost that fits within PARSIMONY of the best: ops of
     * one size cannot tell a fixed cost from a slower rate, and a fixed
     * cost taken from such a bucket would be charged to every other size. */
    for (size_t k = 0; k < nb; k++) {
        w->limit[k] = -1; /* ops without work: only a fixed cost explains them */
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i].op->compute_s > 0 || s[i].op->memory_s > 0) {
            w->limit[s[i].bucket] = w->best_err[s[i].bucket] * (1 + PARSIMONY);
        }
    }
    for (size_t j = 0; j < GRID; j++) { /* the first pass's candidates again */
        const fl_eff_bucket *cur = &w->grid[j * nb];
        const double *err = &w->grid_err[j * nb];
        for (size_t k = 0; k < nb; k++) {
            if (err[k] <= w->limit[k] && cur[k].fixed_s < w->best[k].fixed_s) {
                w->best_err[k] = err[k];
                w->best[k] = cur[k];
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        const fl_eff_bucket *b = &w->best[s[i].bucket];
        w->bounds[i] = s[i].op->compute_s / sc.c / b->compute >=
                       s[i].op->memory_s / mscale(sc, s[i].op) / b->memory;
    }
    for (size_t k = 0; k < nb; k++) {
        w->f[k] = w->best[k].fixed_s;
    }
    fit_effs(s, n, nb, w->start, w->f, w->bounds, w->cur, w->scratch, w->err, NULL, NULL, NULL);
    keep_better(w, nb);
}

/* What a class-wide time is paid per: a depthwise op's channel groups, or
 * one per broadcast element-wise op (the classes never have both). */
static double units(const fl_fit_op *o) {
    return o->channels + (o->broadcast ? 1 : 0);
}

/* Sets every sample's time less pc per unit and less the refill after the
 * kernels before it (stream per evicted byte). */
static void set_unit_time(sample *s, size_t n, double pc, double stream) {
    for (size_t i = 0; i < n; i++) {
        s[i].t = s[i].op->measured_s - pc * units(s[i].op) - stream * s[i].ev;
    }
}

/* The class's summed relative error with the buckets search_fixed chose. */
static double class_error(const class_work *w, size_t nb) {
    double e = 0;
    for (size_t k = 0; k < nb; k++) {
        e += w->best_err[k];
    }
    return e;
}

/* The per-unit time (units()) of a class whose ops have channel groups or
 * broadcast operands, and its buckets in w->best: candidates are the least
 * measured time per unit x j / CHAN_STEPS (a per-unit time cannot exceed
 * any op's time), each fitted as search_fixed does; the least within
 * PARSIMONY of the least summed relative error is kept (ops whose units grow
 * with their work cannot tell a per-unit time from a slower rate). 0 for
 * other classes. */
static double fit_unit_time(sample *s, size_t n, size_t nb, scales sc, class_work *w) {
    double least = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const fl_fit_op *o = s[i].op;
        double left = o->measured_s - sc.stream * s[i].ev;
        if (units(o) > 0 && left / units(o) < least) {
            least = left / units(o);
        }
    }
    set_unit_time(s, n, 0, sc.stream);
    search_fixed(s, n, nb, sc, w);
    if (!isfinite(least)) {
        return 0;
    }
    double err[CHAN_STEPS], best = class_error(w, nb);
    err[0] = best;
    for (int j = 1; j < CHAN_STEPS; j++) {
        set_unit_time(s, n, least * j / CHAN_STEPS, sc.stream);
        search_fixed(s, n, nb, sc, w);
        err[j] = class_error(w, nb);
        best = err[j] < best ? err[j] : best;
    }
    int pick = 0;
    while (pick + 1 < CHAN_STEPS && err[pick] > best * (1 + PARSIMONY)) {
        pick++;
    }
    double pc = least * pick / CHAN_STEPS;
    set_unit_time(s, n, pc, sc.stream);
    search_fixed(s, n, nb, sc, w);
    return pc;
}

/* Fits class table t from its n samples (n > 0). */
static fl_status fit_class(sample *s, size_t n, fl_size_key key, scales sc, fl_eff_table *t,
                           double *residual) {
    qsort(s, n, sizeof(*s), cmp_sample);
    for (size_t i = 0; i < n; i++) {
        s[i].bucket = -1;
        s[i].xc = s[i].op->compute_s / sc.c;
        s[i].xm = s[i].op->memory_s / mscale(sc, s[i].op);
        s[i].ms = s[i].op->measured_s;
    }
    class_work w;
    memset(&w, 0, sizeof w);
    if (!work_alloc(&w, n)) {
        return FL_ENOMEM;
    }
    size_t nb = make_buckets(s, n, w.upto);
    w.grid = calloc(GRID * nb, sizeof(*w.grid));
    w.grid_err = calloc(GRID * nb, sizeof(*w.grid_err));
    if (!w.grid || !w.grid_err) {
        free(w.best);
        work_free(&w);
        return FL_ENOMEM;
    }
    for (size_t i = 0, k = 0; k <= nb; k++) { /* the buckets are runs of the sorted samples */
        while (i < n && s[i].bucket < (int)k) {
            i++;
        }
        w.start[k] = i;
    }
    double pc = fit_unit_time(s, n, nb, sc, &w);
    bool channels = false;
    for (size_t i = 0; i < n; i++) {
        channels = channels || s[i].op->channels > 0;
    }
    fl_eff_bucket *best = w.best;
    double *scratch = w.scratch;
    for (size_t k = 0; k < nb; k++) {
        size_t m = 0;
        for (size_t i = w.start[k]; i < w.start[k + 1]; i++) {
            double p = best[k].fixed_s + terms_s(&best[k], s[i].op, sc);
            scratch[m++] = fabs(p - s[i].t) / s[i].op->measured_s;
        }
        best[k].samples = (double)m;
        best[k].residual = median(scratch, m);
        best[k].upto = w.upto[k];
        best[k].per_channel_s = channels ? pc : 0;
        best[k].broadcast_s = channels ? 0 : pc;
    }
    for (size_t i = 0; i < n; i++) {
        double p = best[s[i].bucket].fixed_s + terms_s(&best[s[i].bucket], s[i].op, sc);
        scratch[i] = fabs(p - s[i].t) / s[i].op->measured_s;
    }
    *residual = median(scratch, n);
    t->by = key;
    t->n_buckets = nb;
    t->buckets = best;
    work_free(&w);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* The whole fit                                                              */
/* ------------------------------------------------------------------------- */

static void free_tables(fl_fit_result *r) {
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        free((void *)r->table[c].buckets);
        r->table[c].buckets = NULL;
        r->table[c].n_buckets = 0;
    }
}

void fl_fit_result_free(fl_fit_result *r) {
    if (!r) {
        return;
    }
    free_tables(r);
    free(r->predicted_s);
    free(r->cv_s);
    memset(r, 0, sizeof(*r));
}

/* Model m's time with result r, and the refill (stream per evicted byte,
 * ev[i] op i's evicted bytes; ev NULL: none), and the run's gap as a share
 * of each op's time less its dispatch overhead (0: none), as the roofline
 * charges it. */
static double predict_model(const fl_fit_result *r, const fl_fit_model *m, const double *ev,
                            double stream, double share) {
    double t = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        double op = fl_fit_predict_op(r, &m->ops[i]) + (ev ? stream * ev[i] : 0);
        if (share > 0) {
            const fl_fit_op *o = &m->ops[i];
            bool runs = o->executed || o->flops > 0 || o->bytes > 0;
            double ovh = runs && r->have_overhead ? r->overhead_s : 0;
            op += share * (op - ovh);
        }
        t += op;
    }
    return t;
}

/* The 98th percentile of (time at efficiency 1) / measured over the traced
 * compute- (memory-) bound ops, those of memory level `level` (1 + index)
 * when level > 0; 1 when below 1 or no op; 0 when a level has fewer than
 * FL_FIT_LEVEL_OPS ops. */
static double q98_ratio(const fl_fit_model *models, size_t n_models, long skip, bool compute,
                        int level) {
    size_t n = 0, cap = 0;
    for (size_t m = 0; m < n_models; m++) {
        cap += models[m].n_ops;
    }
    double *v = calloc(cap + 1, sizeof(double));
    if (!v) {
        return 1;
    }
    for (size_t m = 0; m < n_models; m++) {
        for (size_t i = 0; (long)m != skip && i < models[m].n_ops; i++) {
            const fl_fit_op *o = &models[m].ops[i];
            bool cb = o->compute_s >= o->memory_s;
            /* data movement's strided copies are costed at a line per
             * element (an upper bound): their excess says nothing of the
             * base's bandwidth */
            if (o->measured_s > 0 && cb == compute && (compute ? o->compute_s : o->memory_s) > 0 &&
                o->cls != FL_CLASS_DATA_MOVEMENT && (level == 0 || o->level == level)) {
                v[n++] = (compute ? o->compute_s : o->memory_s) / o->measured_s;
            }
        }
    }
    double q = 1;
    if (level > 0 && n < FL_FIT_LEVEL_OPS) {
        q = 0;
    } else if (n) {
        qsort(v, n, sizeof(double), cmp_dbl);
        q = quantile(v, n, 0.98);
    }
    free(v);
    return q > 1 || q == 0 ? q : 1;
}

static void peak_scales(const fl_fit_model *models, size_t n_models, long skip, fl_fit_result *r) {
    r->compute_scale = q98_ratio(models, n_models, skip, true, 0);
    r->memory_scale = q98_ratio(models, n_models, skip, false, 0);
    for (int l = 0; l < FL_FIT_LEVELS; l++) {
        r->level_scale[l] = q98_ratio(models, n_models, skip, false, l + 1);
    }
}

/* The `other` class's summed relative error with seconds per evicted byte
 * `stream`: its table fitted to the times less the refill (s: its n
 * samples, reordered; table memory freed here). HUGE_VAL on failure. */
static double other_error(sample *s, size_t n, scales sc) {
    fl_eff_table t;
    double residual;
    memset(&t, 0, sizeof t);
    if (fit_class(s, n, key_of(FL_CLASS_OTHER), sc, &t, &residual) != FL_OK) {
        return HUGE_VAL;
    }
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        const fl_eff_bucket *b = find_bucket(&t, s[i].size);
        double p = b->fixed_s + terms_s(b, s[i].op, sc) + sc.stream * s[i].ev;
        e += fabs(p - s[i].ms) / s[i].ms;
    }
    free((void *)t.buckets);
    return e;
}

/* The seconds per byte evicted by the kernels before an op (see
 * fl_fit_streamed): candidates are the least measured time per evicted byte
 * over the traced ops (no op takes less than its refill) x j / CHAN_STEPS;
 * each fits the `other` class (ops that are all fixed cost, where a refill
 * is not hidden in a rate), the least within PARSIMONY of the least summed
 * relative error is kept. 0 without evicted bytes or `other` ops. */
static double fit_stream(const fl_fit_model *models, size_t n_models, const double *const *ev,
                         long skip, scales sc, sample *s) {
    double least = INFINITY;
    size_t n = 0;
    for (size_t m = 0; ev && m < n_models; m++) {
        for (size_t i = 0; (long)m != skip && ev[m] && i < models[m].n_ops; i++) {
            const fl_fit_op *o = &models[m].ops[i];
            if (o->measured_s > 0 && ev[m][i] > 0 && o->measured_s / ev[m][i] < least) {
                least = o->measured_s / ev[m][i];
            }
            if (o->measured_s > 0 && o->cls == FL_CLASS_OTHER) {
                s[n++] =
                    (sample){.op = o, .size = size_of(o, key_of(FL_CLASS_OTHER)), .ev = ev[m][i]};
            }
        }
    }
    if (!n || !isfinite(least)) {
        return 0;
    }
    double err[CHAN_STEPS], best = INFINITY;
    for (int j = 0; j < CHAN_STEPS; j++) {
        sc.stream = least * j / CHAN_STEPS;
        err[j] = other_error(s, n, sc);
        best = err[j] < best ? err[j] : best;
    }
    int pick = 0;
    while (pick + 1 < CHAN_STEPS && err[pick] > best * (1 + PARSIMONY)) {
        pick++;
    }
    return least * pick / CHAN_STEPS;
}

/* The run's gap of the models but `skip` into r->overhead_s (seconds per
 * kernel) and, with `share` non-NULL, *share (of the kernels' time) first:
 * the median over the models with a whole-run time of (run - kernels) /
 * kernels, bounded to [0, 1]; the cost per kernel is then the median of
 * what that share leaves, (run - (1 + share) x kernels) / kernel count, at
 * least 0. Without `share`, the median of each model's gap per kernel, each
 * at least 0. *ng: the models with a whole-run time. */
static fl_status fit_gap(const fl_fit_model *models, size_t n_models, long skip, fl_fit_result *r,
                         double *share, size_t *ng) {
    double *gaps = calloc(n_models + 1, sizeof(double));
    if (!gaps) {
        return FL_ENOMEM;
    }
    size_t n = 0;
    for (size_t m = 0; m < n_models; m++) {
        const fl_fit_model *md = &models[m];
        if ((long)m != skip && md->measured_s > 0 && md->n_kernels > 0 &&
            (!share || md->kernel_sum_s > 0)) {
            double g = share ? (md->measured_s - md->kernel_sum_s) / md->kernel_sum_s
                             : (md->measured_s - md->kernel_sum_s) / (double)md->n_kernels;
            gaps[n++] = g > 0 || share ? g : 0;
        }
    }
    double sh = 0;
    if (share && n) {
        sh = median(gaps, n);
        sh = sh > 0 ? (sh < 1 ? sh : 1) : 0;
        n = 0;
        for (size_t m = 0; m < n_models; m++) {
            const fl_fit_model *md = &models[m];
            if ((long)m != skip && md->measured_s > 0 && md->n_kernels > 0 &&
                md->kernel_sum_s > 0) {
                gaps[n++] = (md->measured_s - (1 + sh) * md->kernel_sum_s) / (double)md->n_kernels;
            }
        }
    }
    r->have_overhead = n > 0;
    r->overhead_s = median(gaps, n);
    if (share) {
        r->overhead_s = r->overhead_s > 0 ? r->overhead_s : 0;
        *share = sh;
    }
    *ng = n;
    free(gaps);
    return FL_OK;
}

/* Tables and overhead from the models, leaving out model `skip` (-1: none);
 * with evicted bytes (ev), the seconds per evicted byte into *stream; with
 * `share` non-NULL the run's gap as a share of kernel time (fit_gap). */
static fl_status fit_tables(const fl_fit_model *models, size_t n_models, const double *const *ev,
                            long skip, fl_fit_result *r, double *stream, double *share,
                            size_t *gap_models) {
    size_t total = 0;
    for (size_t m = 0; m < n_models; m++) {
        total += (long)m == skip ? 0 : models[m].n_ops;
    }
    sample *s = calloc(total + 1, sizeof(*s));
    size_t ng = 0;
    if (!s || fit_gap(models, n_models, skip, r, share, &ng) != FL_OK) {
        free(s);
        return FL_ENOMEM;
    }
    if (gap_models) {
        *gap_models = ng;
    }
    peak_scales(models, n_models, skip, r);
    scales sc = {r->compute_scale, r->memory_scale, r->level_scale, 0};
    sc.stream = fit_stream(models, n_models, ev, skip, sc, s);
    *stream = sc.stream;
    fl_status st = FL_OK;
    for (int c = 0; c < FL_CLASS_COUNT && st == FL_OK; c++) {
        size_t n = 0;
        for (size_t m = 0; m < n_models; m++) {
            for (size_t i = 0; (long)m != skip && i < models[m].n_ops; i++) {
                const fl_fit_op *o = &models[m].ops[i];
                if (o->cls == (fl_op_class)c && o->measured_s > 0) {
                    s[n].op = o;
                    s[n].size = size_of(o, key_of((fl_op_class)c));
                    s[n].ev = ev && ev[m] ? ev[m][i] : 0;
                    n++;
                }
            }
        }
        r->samples[c] = (int64_t)n;
        if (n) {
            st = fit_class(s, n, key_of((fl_op_class)c), sc, &r->table[c], &r->residual[c]);
        }
    }
    free(s);
    return st;
}

static fl_status check_models(const fl_fit_model *models, size_t n_models, char *err,
                              size_t errlen) {
    size_t traced = 0;
    for (size_t m = 0; m < n_models; m++) {
        for (size_t i = 0; i < models[m].n_ops; i++) {
            double t = models[m].ops[i].measured_s;
            if (!(t < 0) && !(isfinite(t) && t > 0)) { /* < 0: not traced */
                snprintf(err, errlen, "%s: op %zu: measured time %g s is not a positive number",
                         models[m].name, i, t);
                return FL_EINVAL;
            }
            traced += t > 0;
            double ch = models[m].ops[i].channels;
            if (!(isfinite(ch) && ch >= 0)) {
                snprintf(err, errlen, "%s: op %zu: channel groups %g is not a number >= 0",
                         models[m].name, i, ch);
                return FL_EINVAL;
            }
        }
        if (!(isfinite(models[m].measured_s) && models[m].measured_s >= 0)) {
            snprintf(err, errlen, "%s: whole-run time %g s is not a number >= 0", models[m].name,
                     models[m].measured_s);
            return FL_EINVAL;
        }
    }
    if (!traced) {
        snprintf(err, errlen, "no traced op to fit (no trace event matched an op of its model)");
        return FL_EINVAL;
    }
    return FL_OK;
}

/* Leave-one-model-out: each model predicted by a fit without it; the
 * interval holds the 10th to 90th percentile of measured / predicted. */
static fl_status cross_validate(const fl_fit_model *models, size_t n_models,
                                const double *const *ev, bool gap, fl_fit_result *r) {
    size_t nm = 0;
    double *ratio = calloc(n_models + 1, sizeof(double));
    if (!ratio) {
        return FL_ENOMEM;
    }
    for (size_t m = 0; m < n_models; m++) {
        fl_fit_result cv;
        memset(&cv, 0, sizeof cv);
        double stream = 0, share = 0;
        fl_status st =
            fit_tables(models, n_models, ev, (long)m, &cv, &stream, gap ? &share : NULL, NULL);
        if (st != FL_OK) {
            free_tables(&cv);
            free(ratio);
            return st;
        }
        r->cv_s[m] = predict_model(&cv, &models[m], ev ? ev[m] : NULL, stream, share);
        free_tables(&cv);
        if (models[m].measured_s > 0 && r->cv_s[m] > 0) {
            ratio[nm++] = models[m].measured_s / r->cv_s[m];
        }
    }
    if (nm >= 3) {
        qsort(ratio, nm, sizeof(double), cmp_dbl);
        double lo = quantile(ratio, nm, 0.1), hi = quantile(ratio, nm, 0.9);
        r->interval.low = lo < 1 ? lo : 1;
        r->interval.high = hi > 1 ? hi : 1;
        r->interval.coverage = 0.8;
    }
    free(ratio);
    return FL_OK;
}

/* The first release's fl_fit_terms ends after gap_models; the second
 * after gap_files. */
#define FIT_TERMS_V1 (offsetof(fl_fit_terms, gap_models) + sizeof(size_t))
#define FIT_TERMS_V2 (offsetof(fl_fit_terms, gap_files) + sizeof(size_t))

/* The fit of fl_fit_terms_run; terms->size is checked by the caller. */
static fl_status fit_all(const fl_fit_model *models, size_t n_models, fl_fit_result *out,
                         fl_fit_terms *t, char *err, size_t errlen) {
    memset(out, 0, sizeof(*out));
    t->streamed = 0;
    t->streamed_ops = 0;
    t->gap_share = 0;
    t->gap_models = 0;
    if (t->size >= FIT_TERMS_V2) {
        t->gap_files = 0;
    }
    fl_status st = check_models(models, n_models, err, errlen);
    if (st != FL_OK) {
        return st;
    }
    const double *const *evicted = t->evicted;
    out->n_models = n_models;
    out->predicted_s = calloc(n_models + 1, sizeof(double));
    out->cv_s = calloc(n_models + 1, sizeof(double));
    if (!out->predicted_s || !out->cv_s) {
        st = FL_ENOMEM;
    }
    if (st == FL_OK) {
        st = fit_tables(models, n_models, evicted, -1, out, &t->streamed,
                        t->gap ? &t->gap_share : NULL, &t->gap_models);
    }
    for (size_t m = 0; st == FL_OK && m < n_models; m++) {
        out->predicted_s[m] =
            predict_model(out, &models[m], evicted ? evicted[m] : NULL, t->streamed, t->gap_share);
    }
    if (st == FL_OK && n_models >= 3) {
        st = cross_validate(models, n_models, evicted, t->gap, out);
    }
    if (st != FL_OK) {
        snprintf(err, errlen, "out of memory fitting %zu models", n_models);
        fl_fit_result_free(out);
        t->streamed = 0;
        t->gap_share = 0;
        t->gap_models = 0;
        return st;
    }
    t->streamed_ops = t->streamed > 0 ? out->samples[FL_CLASS_OTHER] : 0;
    if (t->size >= FIT_TERMS_V2) { /* the files of fit_gap's models */
        t->gap_files = 0;
        for (size_t m = 0; t->gap_models && m < n_models; m++) {
            const fl_fit_model *md = &models[m];
            if (md->measured_s > 0 && md->n_kernels > 0 && (!t->gap || md->kernel_sum_s > 0)) {
                t->gap_files += t->model_files && t->model_files[m] ? t->model_files[m] : 1;
            }
        }
    }
    return FL_OK;
}

void fl_fit_terms_init_size(fl_fit_terms *t, size_t size) {
    fl_fit_terms d;
    memset(&d, 0, sizeof d);
    d.size = size < sizeof d ? size : sizeof d;
    d.gap = true;
    memcpy(t, &d, d.size);
    t->size = size;
}

fl_status fl_fit_terms_run(const fl_fit_model *models, size_t n_models, fl_fit_result *out,
                           fl_fit_terms *terms, char *err, size_t errlen) {
    if (!terms || terms->size < FIT_TERMS_V1) {
        memset(out, 0, sizeof(*out));
        snprintf(err, errlen,
                 "fit terms: size %zu is less than %zu (set it with fl_fit_terms_init)",
                 terms ? terms->size : 0, (size_t)FIT_TERMS_V1);
        return FL_EINVAL;
    }
    return fit_all(models, n_models, out, terms, err, errlen);
}

fl_status fl_fit(const fl_fit_model *models, size_t n_models, fl_fit_result *out, char *err,
                 size_t errlen) {
    double stream;
    return fl_fit_streamed(models, n_models, NULL, out, &stream, err, errlen);
}

fl_status fl_fit_streamed(const fl_fit_model *models, size_t n_models, const double *const *evicted,
                          fl_fit_result *out, double *streamed, char *err, size_t errlen) {
    fl_fit_terms t;
    fl_fit_terms_init(&t);
    t.evicted = evicted;
    t.gap = false;
    fl_status st = fit_all(models, n_models, out, &t, err, errlen);
    *streamed = t.streamed;
    return st;
}

/* ------------------------------------------------------------------------- */
/* Writing the fitted profile                                                 */
/* ------------------------------------------------------------------------- */

/* A YAML double-quoted string. */
static void yq(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p, f);
        } else if (*p < 0x20) {
            fprintf(f, "\\x%02x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* A base figure's source, with the fit's raise when there was one. */
static void scaled_source(FILE *f, const char *src, double scale) {
    char buf[1024];
    if (scale > 1) {
        snprintf(buf, sizeof buf,
                 "%s; x%.3g by foldline fit: the traced kernels ran up to that much faster (98th "
                 "percentile), so the base figure was low",
                 src, scale);
        yq(f, buf);
    } else {
        yq(f, src);
    }
}

static void write_base(FILE *f, const fl_profile *base, const char *name, const fl_fit_result *r) {
    fprintf(f, "schema: 1\nname: ");
    yq(f, name);
    fprintf(f, "\nkind: %s\ndescription: ", base->kind);
    char desc[512];
    snprintf(desc, sizeof desc, "%s; efficiency fitted by foldline fit", base->description);
    yq(f, desc);
    fprintf(f, "\ncompute:\n");
    for (int u = 0; u < FL_UNIT_COUNT; u++) {
        bool any = false;
        for (int d = 0; d < FL_PREC_COUNT; d++) {
            const fl_figure *fg = &base->peak[u][d];
            if (fg->value <= 0) {
                continue;
            }
            if (!any) {
                fprintf(f, "  %s:\n", fl_unit_name((fl_unit)u));
                any = true;
            }
            fprintf(f, "    %s: {peak: %.9g, source: ", fl_precision_name((fl_precision)d),
                    fg->value * r->compute_scale);
            scaled_source(f, fg->source, r->compute_scale);
            fprintf(f, "}\n");
        }
    }
    fprintf(f, "memory:\n");
    for (size_t i = 0; i < base->n_levels; i++) {
        const fl_mem_level *l = &base->levels[i];
        fprintf(f, "  - {name: ");
        yq(f, l->name);
        double ls =
            i < FL_FIT_LEVELS && r->level_scale[i] > 0 ? r->level_scale[i] : r->memory_scale;
        fprintf(f, ", bandwidth: %.9g", l->bandwidth * ls);
        if (l->capacity > 0) {
            fprintf(f, ", capacity: %.9g", l->capacity);
        }
        fprintf(f, ", source: ");
        scaled_source(f, l->source, ls);
        fprintf(f, "}\n");
    }
}

/* One sourced figure on a line of its own: `head` ("gap: {share: "), the
 * value with `digits` significant digits, its source. */
static void put_figure(FILE *f, const char *head, double v, int digits, const char *src) {
    fprintf(f, "%s%.*g, source: ", head, digits, v);
    yq(f, src);
    fprintf(f, "}\n");
}

int fl_fit_write_profile(FILE *f, const fl_profile *base, const char *name, const fl_fit_result *r,
                         const char *source) {
    return fl_fit_write_profile_streamed(f, base, name, r, 0, 0, source);
}

int fl_fit_write_profile_streamed(FILE *f, const fl_profile *base, const char *name,
                                  const fl_fit_result *r, double streamed, int64_t ops,
                                  const char *source) {
    fl_fit_terms t;
    fl_fit_terms_init(&t);
    t.gap = false;
    t.streamed = streamed;
    t.streamed_ops = ops;
    return fl_fit_write_profile_terms(f, base, name, r, &t, source);
}

int fl_fit_write_profile_terms(FILE *f, const fl_profile *base, const char *name,
                               const fl_fit_result *r, const fl_fit_terms *terms,
                               const char *source) {
    char src[1024];
    const fl_fit_terms *ft = terms;
    if (!ft || ft->size < FIT_TERMS_V1) {
        return -1;
    }
    write_base(f, base, name, r);
    if (ft->streamed > 0) {
        snprintf(src, sizeof src,
                 "%s: the refill after the bytes the %d kernels run before an op evicted from "
                 "the caches, chosen on %lld traced ops of class other",
                 source, FL_STREAMED_WINDOW, (long long)ft->streamed_ops);
        put_figure(f, "streamed: {seconds_per_byte: ", ft->streamed, 6, src);
    }
    bool share = ft->gap && ft->gap_share > 0;
    if (r->have_overhead && share) {
        /* models and their trace files, as fit's gap line counts them: "1
         * trace" for a model of three step files would hide two of them */
        size_t n = ft->gap_models, files = ft->size >= FIT_TERMS_V2 ? ft->gap_files : n;
        char over[96];
        if (files == n) {
            snprintf(over, sizeof over, "%zu trace%s", n, n == 1 ? "" : "s");
        } else {
            snprintf(over, sizeof over, "%zu model%s, %zu trace files", n, n == 1 ? "" : "s",
                     files);
        }
        snprintf(src, sizeof src,
                 "%s: the run's gap over its kernels as a share of their time, the median of "
                 "(whole run - sum of kernel times) / sum of kernel times over %s",
                 source, over);
        put_figure(f, "gap: {share: ", ft->gap_share, 6, src);
    } else if (!r->have_overhead && base->gap.value > 0) {
        put_figure(f, "gap: {share: ", base->gap.value, 17, base->gap.source);
    }
    if (r->have_overhead && r->overhead_s > 0) {
        if (share) {
            snprintf(src, sizeof src,
                     "%s: median over the traces of (whole run - (1 + gap) x sum of kernel "
                     "times) / kernels",
                     source);
        } else {
            snprintf(src, sizeof src,
                     "%s: median over the traces of (whole run - sum of kernel times) / kernels",
                     source);
        }
        put_figure(f, "overhead: {seconds: ", r->overhead_s, 6, src);
    } else if (!r->have_overhead && base->overhead.value > 0) {
        put_figure(f, "overhead: {seconds: ", base->overhead.value, 9, base->overhead.source);
    }
    fprintf(f, "efficiency:\n");
    bool any = false;
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        const fl_eff_table *t = &r->table[c];
        if (!t->n_buckets) {
            continue;
        }
        any = true;
        fprintf(f, "  %s:\n    by: %s\n    buckets:\n", fl_op_class_name((fl_op_class)c),
                t->by == FL_SIZE_FLOPS ? "flops" : "bytes");
        for (size_t k = 0; k < t->n_buckets; k++) {
            const fl_eff_bucket *b = &t->buckets[k];
            fprintf(f, "      - {");
            if (k + 1 < t->n_buckets) {
                fprintf(f, "upto: %.6g, ", b->upto);
            }
            fprintf(f, "compute: %.6g, memory: %.6g, fixed: %.6g, ", b->compute, b->memory,
                    b->fixed_s);
            if (b->per_channel_s > 0) {
                fprintf(f, "per_channel: %.6g, ", b->per_channel_s);
            }
            if (b->broadcast_s > 0) {
                fprintf(f, "broadcast: %.6g, ", b->broadcast_s);
            }
            fprintf(f, "samples: %.0f, residual: %.4g, source: ", b->samples, b->residual);
            snprintf(src, sizeof src, "%s: %.0f traced ops", source, b->samples);
            yq(f, src);
            fprintf(f, "}\n");
        }
    }
    if (!any) { /* cannot happen after a successful fit: a class has samples */
        return -1;
    }
    if (r->interval.coverage > 0) {
        snprintf(src, sizeof src,
                 "%s: 10th-90th percentile of measured / predicted whole-model time, each model "
                 "predicted by a fit without it (%zu models)",
                 source, r->n_models);
        fprintf(f, "interval: {low: %.4g, high: %.4g, coverage: %.2g, source: ", r->interval.low,
                r->interval.high, r->interval.coverage);
        yq(f, src);
        fprintf(f, "}\n");
    }
    return ferror(f) ? -1 : 0;
}
