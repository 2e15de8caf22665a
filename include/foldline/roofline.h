/*
 * foldline/roofline.h - device profiles and roofline time estimates.
 *
 * A profile describes one device as data: peak throughput per unit class
 * (matrix units such as tensor cores or AMX, vector FMA units) and dtype,
 * memory levels (bandwidth and capacity), a per-op dispatch/launch overhead
 * and optional efficiency factors per op class, each figure with its source.
 * Profiles are YAML files (schema in README.md, "Device profiles and roofline
 * estimates"); fl_profile_load() validates one and names file, line and field
 * on any error.
 *
 * fl_analyze() estimates the graph's time on every profile listed in
 * fl_options.profiles and returns the results in fl_report.roofline (one
 * fl_roofline_result per profile). Each result holds the estimate for the
 * analysed graph (`before`) and, when the rewrite passes ran
 * (fl_options.passes), for the rewritten graph (`after`, NULL otherwise).
 *
 * Times are doubles in seconds; counts stay exact in the rest of the report.
 * Profiles are immutable after loading and may be shared between threads.
 */
#ifndef FOLDLINE_ROOFLINE_H
#define FOLDLINE_ROOFLINE_H

#include "foldline/export.h"
#include "foldline/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types a profile gives peaks for. */
typedef enum fl_precision {
    FL_PREC_FP32 = 0,
    FL_PREC_FP16,
    FL_PREC_BF16,
    FL_PREC_INT8,
    FL_PREC_COUNT
} fl_precision;

/* Execution unit classes. */
typedef enum fl_unit { FL_UNIT_VECTOR = 0, FL_UNIT_MATRIX, FL_UNIT_COUNT } fl_unit;

/* Op classes that efficiency factors apply to (see fl_op_class_name). */
typedef enum fl_op_class {
    FL_CLASS_MATMUL = 0, /* MatMul, BatchMatMul*, Einsum and their fused forms */
    FL_CLASS_CONV,       /* Conv2D/3D and fused forms, backprops */
    FL_CLASS_DEPTHWISE,  /* depthwise convolutions */
    FL_CLASS_ELEMENTWISE,
    FL_CLASS_REDUCTION,     /* Sum/Mean/Max/ArgMax/..., ONNX Reduce* */
    FL_CLASS_OTHER,         /* ops that move no bytes (Reshape, Shape-like metadata, ...) */
    FL_CLASS_POOLING,       /* MaxPool/AvgPool/GlobalAveragePool/... */
    FL_CLASS_SOFTMAX,       /* Softmax, LogSoftmax, Hardmax, attention ops */
    FL_CLASS_NORMALIZATION, /* batch/layer/instance/group normalisation, LRN */
    FL_CLASS_DATA_MOVEMENT, /* ops without FLOPs that move bytes: Transpose, Concat, Gather... */
    FL_CLASS_COUNT
} fl_op_class;

/* What an efficiency table's size buckets measure. */
typedef enum fl_size_key { FL_SIZE_FLOPS = 0, FL_SIZE_BYTES } fl_size_key;

/* One size bucket of a class's efficiency table: ops of size <= upto (the
 * last bucket: every larger op) reach `compute` of the unit's peak and
 * `memory` of the level's bandwidth, and pay fixed_s per op plus
 * per_channel_s per channel group on top (depthwise convolutions: a runtime
 * that runs one small kernel per channel pays its setup per channel; in the
 * data_movement class per contiguous run a Transpose copies; in the pooling
 * class per output row of a plane of a windowed pool), and
 * broadcast_s on top for a binary element-wise op with a broadcast operand
 * (a runtime's broadcasting loop sets up per op what a same-shape or unary
 * kernel does not). */
typedef struct fl_eff_bucket {
    double upto;     /* FLOPs or bytes (the table's `by`); 0 in the last bucket */
    double compute;  /* fraction of peak, (0, 1] */
    double memory;   /* fraction of bandwidth, (0, 1] */
    double fixed_s;  /* seconds per op, >= 0 */
    double samples;  /* ops a fit used (informational; 0 when not fitted) */
    double residual; /* the fit's median |relative error| there (informational) */
    const char *source;
    double per_channel_s; /* seconds per channel group of a depthwise op, or per contiguous
                             run of a Transpose keeping the innermost axis, >= 0 (0: none) */
    double broadcast_s;   /* seconds per element-wise op with a broadcast operand, >= 0 */
} fl_eff_bucket;

typedef struct fl_eff_table {
    fl_size_key by;
    size_t n_buckets; /* 0: the class has no entry (peak, no fixed cost) */
    const fl_eff_bucket *buckets;
} fl_eff_table;

/* The spread of the graph time a fit observed: the true time fell within
 * [low x estimate, high x estimate] for `coverage` of the models checked. */
typedef struct fl_interval {
    double low, high, coverage; /* all 0 when the profile gives none */
    const char *source;
} fl_interval;

/* One sourced figure; value 0 means "absent" (every present value is > 0). */
typedef struct fl_figure {
    double value;
    const char *source; /* datasheet, "[D] ...", "calibrated YYYY-MM-DD on HOST", ... */
} fl_figure;

typedef struct fl_mem_level {
    const char *name; /* "L2", "DRAM", "HBM2e" */
    double bandwidth; /* bytes/s */
    double capacity;  /* bytes; 0 = unbounded (only the last level) */
    const char *source;
} fl_mem_level;

typedef struct fl_efficiency {
    double compute; /* fraction of peak attained, (0, 1]; 1 when not given */
    double memory;  /* fraction of bandwidth attained, (0, 1]; 1 when not given */
    const char *source;
} fl_efficiency;

/* A loaded profile: the library owns its memory (fl_profile_free, or the
 * set that holds it); a program never copies or allocates one. */
typedef struct fl_profile {
    const char *path; /* the file it was loaded from */
    const char *name; /* unique within a directory: what --profile selects */
    const char *kind; /* cpu | gpu | mobile-cpu | mobile-gpu | npu */
    const char *description;
    fl_figure peak[FL_UNIT_COUNT][FL_PREC_COUNT]; /* FLOP/s (int8: ops/s) */
    size_t n_levels;
    const fl_mem_level *levels; /* fastest (smallest) first; the last is main memory */
    fl_figure overhead;         /* seconds per dispatched op; value 0 when not given */
    fl_efficiency efficiency[FL_CLASS_COUNT]; /* the one-bucket form's figures (see table) */
    /* The efficiency section: per class, size buckets (the one-bucket form
     * `class: {compute, memory, fixed, source}` is a table of one bucket).
     * calibrated: the profile has an efficiency section; without one, its
     * estimates are an upper-bound roofline (peaks: times are lower bounds). */
    bool calibrated;
    fl_eff_table table[FL_CLASS_COUNT];
    fl_interval interval;
    /* The refill an op pays after the kernels run just before it streamed
     * bytes through the caches, evicting the runtime's own code and data:
     * seconds per byte evicted (a kernel of B bytes evicts min(B, capacity)
     * from each cache level, the memory levels but the last; an op pays the
     * mean over the FL_STREAMED_WINDOW kernels before it in the runtime's
     * order). Value 0 when not given: no such term. */
    fl_figure streamed;
    /* The run's gap: what a whole run of the graph takes beyond its kernels
     * (the runtime's work between kernels, and a typical run against the
     * least disturbed kernel times), as a share of the kernels' time: every
     * op also pays `gap` x its time less its dispatch overhead, the refill
     * included (fl_roofline_graph.node_gap_s). A share in (0, 1];
     * value 0 when not given: no such term. */
    fl_figure gap;
} fl_profile;

/* Kernels run before an op whose evicted bytes it pays for (fl_profile.streamed). */
#define FL_STREAMED_WINDOW 5

/* "fp32", "fp16", "bf16", "int8". */
FL_EXTERN const char *fl_precision_name(fl_precision p);
/* "vector", "matrix". */
FL_EXTERN const char *fl_unit_name(fl_unit u);
/* "matmul", "conv", "depthwise", "elementwise", "reduction", "other", "pooling",
 * "softmax", "normalization", "data_movement". */
FL_EXTERN const char *fl_op_class_name(fl_op_class c);

/* Parses and validates a profile from `len` bytes of YAML; `path` names it in
 * messages and is copied into the profile. On success returns FL_OK and *out
 * (free with fl_profile_free). On failure returns FL_EINVAL (or FL_ENOMEM),
 * *out NULL, and writes "PATH:LINE: FIELD: problem" into err. Never crashes
 * on any input. */
FL_EXTERN fl_status fl_profile_parse(const char *text, size_t len, const char *path,
                                     fl_profile **out, char *err, size_t errlen);

/* Reads and parses the file at `path` (FL_EIO when it cannot be read). */
FL_EXTERN fl_status fl_profile_load(const char *path, fl_profile **out, char *err, size_t errlen);

/* Releases a profile (NULL is fine). */
FL_EXTERN void fl_profile_free(fl_profile *p);

/* A set of profiles loaded from a directory. */
typedef struct fl_profile_set {
    size_t n;
    fl_profile **profiles; /* sorted by name */
} fl_profile_set;

/* Loads every *.yaml / *.yml file of `dir` (sorted by name). Each file must
 * define the profile its file name says (gpu.yaml defines `name: gpu`). Fails
 * on the first invalid file (err names it), on a profile not named after its
 * file, on two files with the same `name` (err names both), or when the
 * directory cannot be read (FL_EIO). On failure *out is empty. */
FL_EXTERN fl_status fl_profile_set_load(const char *dir, fl_profile_set *out, char *err,
                                        size_t errlen);

/* Adds the profiles of `dir` to *s (which may hold profiles already, e.g. the
 * shipped ones), with the rules of fl_profile_set_load; a name already in the
 * set is an error naming both files. On failure *s is unchanged. */
FL_EXTERN fl_status fl_profile_set_add_dir(fl_profile_set *s, const char *dir, char *err,
                                           size_t errlen);

/* Adds one loaded profile to *s, which then owns it. FL_EINVAL (err naming
 * both files) when the set has a profile of that name: the caller still owns
 * p then. */
FL_EXTERN fl_status fl_profile_set_add(fl_profile_set *s, fl_profile *p, char *err, size_t errlen);

/* The profile called `name`, or NULL. */
FL_EXTERN const fl_profile *fl_profile_set_find(const fl_profile_set *s, const char *name);

/* Releases every profile of the set and empties it. */
FL_EXTERN void fl_profile_set_free(fl_profile_set *s);

/* One op's estimate on one profile. */
typedef struct fl_roofline_node {
    const char *name;
    const char *op;
    const char *unit;  /* "matrix" | "vector" */
    const char *dtype; /* precision used: "fp32" | "fp16" | "bf16" | "int8" */
    const char *level; /* memory level the working set was served from */
    double flops;      /* complete-convention FLOPs + int_ops (the work) */
    double bytes;      /* read + written */
    double intensity;  /* FLOP per byte; -1 when the op moves no bytes */
    double compute_s;  /* flops / (peak x efficiency) */
    double memory_s;   /* bytes / (bandwidth x efficiency) */
    double overhead_s; /* dispatch overhead (0 for ops that do no work) */
    double time_s;     /* max(compute, memory) + overhead */
    double upper_s;    /* compute + memory + overhead (Grappler's default, no overlap) */
    const char *bound; /* "compute" | "memory" | "overhead" | "none" */
    /* The efficiency-table entry used, and the terms at efficiency 1. */
    const char *op_class;  /* fl_op_class_name() */
    const char *bucket;    /* "<= 1e+06 flops", "> 1e+08 bytes", "all"; "" without a table */
    double fixed_s;        /* the bucket's per-op fixed cost (in time_s and upper_s) */
    double compute_peak_s; /* flops / peak (no efficiency) */
    double memory_peak_s;  /* bytes / bandwidth (no efficiency) */
    bool executed;   /* runs as a kernel (not Const, Placeholder, NoOp): with a calibrated profile
                        it pays the dispatch overhead even when it moves no bytes */
    double channels; /* a depthwise op's channel groups (ONNX group, TensorFlow's input
                        channels), a Transpose's contiguous runs when it keeps the
                        innermost axis, a windowed pool's output rows over its planes
                        (batch x channels); 0 for other ops */
    double channel_time_s;   /* channels x the bucket's per_channel_s (in time_s and upper_s) */
    bool broadcast;          /* an element-wise op with broadcasting semantics (Add, Mul, Where,
                                ...) one of whose operands has fewer elements than its output */
    double broadcast_time_s; /* the bucket's broadcast_s when broadcast (in time_s and upper_s) */
} fl_roofline_node;

/* One graph's estimate on one profile. */
typedef struct fl_roofline_graph {
    double time_s;     /* sum over ops of max(compute, memory) + overhead */
    double upper_s;    /* sum over ops of compute + memory + overhead */
    double compute_s;  /* time of compute-bound ops spent computing: max(c, m) where c >= m */
    double memory_s;   /* time of memory-bound ops spent moving data: max(c, m) where m > c */
    double overhead_s; /* sum of overheads; compute_s + memory_s + overhead_s == time_s */
    int64_t ops_compute_bound, ops_memory_bound, ops_overhead_bound;
    int64_t ops_costed; /* ops estimated (incomplete ones are left out, as in the totals) */
    size_t n_top;       /* up to 10 ops with the largest time, largest first */
    const fl_roofline_node *top;
    size_t n_nodes; /* with fl_options.per_node: every costed op in file order */
    const fl_roofline_node *nodes;
    /* calibrated: the profile has an efficiency table; otherwise time_s is an
     * upper-bound roofline (peaks only: a lower bound on time). With the
     * profile's interval, [low_s, high_s] holds the time with probability
     * `coverage` as the fit measured it (all 0 without one). */
    bool calibrated;
    double low_s, high_s, coverage;
    /* Per entry of `nodes` (NULL without them, or on a profile without
     * cache levels): the mean bytes the FL_STREAMED_WINDOW kernels run just
     * before the op (in the runtime's order) evicted from the profile's
     * caches, and the refill time that adds with the profile's `streamed`
     * figure (0 without it), which is in the op's time_s and upper_s and in
     * the graph's overhead_s; streamed_s: its sum over the graph. */
    const double *node_evicted_bytes;
    const double *node_streamed_s;
    double streamed_s;
    /* With the profile's `gap`: per entry of `nodes` (NULL without them or
     * without the figure) the op's share of the run's gap, gap x (time_s
     * less overhead_s, the refill included), which is in its time_s and
     * upper_s and in the graph's overhead_s; gap_s: its sum over the graph
     * (0 without the figure); gap_share and gap_source: the profile's
     * figure (0 and NULL without it). */
    const double *node_gap_s;
    double gap_s;
    double gap_share;
    const char *gap_source;
} fl_roofline_graph;

/* The estimates for one profile. */
typedef struct fl_roofline_result {
    const char *profile;             /* profile name */
    const fl_roofline_graph *before; /* the analysed graph */
    const fl_roofline_graph *after;  /* the rewritten graph; NULL unless the passes ran */
    double speedup;                  /* before.time_s / after.time_s; 0 without `after` */
} fl_roofline_result;

/* ------------------------------------------------------------------------- */
/* Fitting an efficiency table to measured kernel times (`foldline fit`)      */
/* ------------------------------------------------------------------------- */

/* One op of a traced model, as the base profile sees it. */
typedef struct fl_fit_op {
    fl_op_class cls;
    double flops, bytes;        /* the bucket keys */
    double compute_s, memory_s; /* at efficiency 1 (fl_roofline_node's *_peak_s) */
    bool executed;              /* runs as a kernel (pays the dispatch overhead) */
    double measured_s;          /* the runtime's median kernel time; < 0: not traced */
    double channels;            /* a depthwise op's channel groups (fl_roofline_node) */
    bool broadcast;             /* a broadcast element-wise op (fl_roofline_node) */
    int level; /* 1 + the index of the memory level carrying most of memory_s (fl_roofline_node's
                  level); 0: unknown */
} fl_fit_op;

/* Memory levels whose bandwidth fl_fit raises one by one (fl_fit_result.level_scale). */
#define FL_FIT_LEVELS 8

/* One traced model: every costed op (traced or not) and the trace's totals. */
typedef struct fl_fit_model {
    const char *name;
    size_t n_ops;
    const fl_fit_op *ops;
    double measured_s;   /* median whole-run time; 0 when the trace has none */
    double kernel_sum_s; /* sum of the median times of every kernel of the trace */
    size_t n_kernels;    /* kernels per run in the trace */
} fl_fit_model;

/* What fl_fit found. Tables and arrays are owned (fl_fit_result_free). */
typedef struct fl_fit_result {
    fl_eff_table table[FL_CLASS_COUNT]; /* classes without samples: n_buckets 0 */
    double overhead_s;                  /* per-op dispatch: median over models of
                                           (run - sum of kernels) / kernels */
    bool have_overhead;                 /* some model had a whole-run time */
    fl_interval interval;               /* leave-one-model-out; coverage 0 with < 3 models */
    int64_t samples[FL_CLASS_COUNT];    /* traced ops per class */
    double residual[FL_CLASS_COUNT];    /* in-sample median |predicted - measured| / measured */
    /* When kernels ran faster than the base profile's peaks allow (a base
     * calibrated low, e.g. on a loaded host), every compute peak (memory
     * bandwidth) is raised by this factor, the 98th percentile of (time at
     * efficiency 1) / measured over compute- (memory-) bound ops; 1 otherwise.
     * Efficiencies are relative to the raised figures. */
    double compute_scale, memory_scale;
    size_t n_models;
    double *predicted_s; /* per model: the whole model with the fitted table */
    double *cv_s;        /* per model: the same, fitted without that model (0 if < 3) */
    /* Per memory level (by index): the raise of its bandwidth when at least
     * FL_FIT_LEVEL_OPS memory-bound ops are mostly served there (their 98th
     * percentile, >= 1: calibration measures each level apart, and a busy
     * host may have slowed one trial of them only); 0: memory_scale applies. */
    double level_scale[FL_FIT_LEVELS];
} fl_fit_result;

/* Memory-bound ops a level needs for its own bandwidth raise. */
#define FL_FIT_LEVEL_OPS 12

/* Fits, per op class, size buckets (decades of FLOPs for matmul, conv and
 * depthwise, of bytes for the other classes, merged until each holds at
 * least 6 ops) and per bucket a fixed cost and the compute and memory
 * efficiencies: the fixed cost is chosen on a grid (below the class's
 * fastest op, below the bucket's fastest op, and from there up to the
 * bucket's median time), the efficiencies are medians of (time at efficiency
 * 1) / (measured - fixed) over the bucket's compute- and memory-bound ops,
 * bounded to [1e-4, 1]; the fixed cost minimising the bucket's summed
 * relative error wins. A class whose ops have channel groups (depthwise) or
 * contiguous runs (Transposes keeping the innermost axis) or output rows
 * (pools) also gets a
 * per-channel (per-run) time, the same in every bucket, on a grid below
 * the least measured time per channel: the one minimising the class's summed
 * relative error (the least within 1 % of it); a class with broadcast ops
 * (element-wise) gets a broadcast time per such op the same way, below the
 * least measured time of a broadcast op. A model's measured_s below its kernels' sum gives an
 * overhead of 0. Deterministic. FL_EINVAL (err says why) when no op is
 * traced or a time is not finite and > 0. */
fl_status fl_fit(const fl_fit_model *models, size_t n_models, fl_fit_result *out, char *err,
                 size_t errlen);

/* fl_fit with the refill term of fl_profile.streamed: evicted[m][i] (evicted
 * or evicted[m] NULL: none) is the mean bytes the kernels before op i of
 * model m evicted (fl_roofline_graph.node_evicted_bytes). Every op's
 * measured time less streamed x evicted is fitted as fl_fit does; the
 * seconds per evicted byte, *streamed, are chosen on a grid of 24 steps
 * below the least measured time per evicted byte of a traced op (no op
 * takes less than its refill), fitting the `other` class (ops that are all
 * fixed cost, where a refill does not hide in a rate) with each: the least
 * within 1 % of the least summed relative error is kept (0: no term).
 * predicted_s and cv_s include the term (each left-out fit chooses its own). */
fl_status fl_fit_streamed(const fl_fit_model *models, size_t n_models, const double *const *evicted,
                          fl_fit_result *out, double *streamed, char *err, size_t errlen);

/* What fl_fit_terms fits beyond fl_fit_result, which callers allocate and
 * which therefore keeps its size: this struct carries its own, `size`, set
 * by fl_fit_terms_init() to the sizeof the caller was compiled with (a later
 * library, whose struct has more fields at the end, neither reads nor
 * writes past it). */
typedef struct fl_fit_terms {
    size_t size;
    /* In: as fl_fit_streamed's `evicted` (NULL: no refill term). */
    const double *const *evicted;
    /* In: fit the run's gap as a share of kernel time (fl_profile.gap);
     * true after fl_fit_terms_init(). False: the gap is a cost per kernel
     * alone, as fl_fit fits it. */
    bool gap;
    /* Out: the seconds per evicted byte (fl_fit_streamed's *streamed) and
     * the `other` ops it was chosen on. */
    double streamed;
    int64_t streamed_ops;
    /* Out: the run's gap as a share of the kernels' time, the median over
     * the models with a whole-run time of (run - sum of kernels) / sum of
     * kernels, bounded to [0, 1] (0: no term), and the models it came from.
     * fl_fit_result.overhead_s then holds the cost per kernel of what the
     * share leaves: the median of (run - (1 + share) x sum of kernels) /
     * kernels, at least 0. Both are charged; predicted_s, cv_s and the
     * interval include them (each left-out fit chooses its own). */
    double gap_share;
    size_t gap_models;
    /* In: the trace files each model was read from (n_models entries; NULL:
     * one each, as ONNX Runtime's). Out: the files of the gap_models models
     * (a TensorFlow model traced step by step has a file per step). */
    const size_t *model_files;
    size_t gap_files;
} fl_fit_terms;

/* Sets every field of a caller's fl_fit_terms of `size` bytes to its
 * default (no evicted bytes, gap true, outputs 0) and `size`. */
#define fl_fit_terms_init(t) fl_fit_terms_init_size((t), sizeof(fl_fit_terms))
void fl_fit_terms_init_size(fl_fit_terms *t, size_t size);

/* fl_fit_streamed, and with terms->gap the run's gap as a share of kernel
 * time (fl_fit_terms). FL_EINVAL also when terms is NULL or its size is
 * less than the first release's fl_fit_terms. */
fl_status fl_fit_terms_run(const fl_fit_model *models, size_t n_models, fl_fit_result *out,
                           fl_fit_terms *terms, char *err, size_t errlen);

void fl_fit_result_free(fl_fit_result *r);

/* The predicted time of one op with a fitted result (the roofline's rule),
 * without the refill and the run's gap: with fl_fit_terms_run's figures an
 * op also pays streamed x its evicted bytes, and then gap_share x (its time,
 * refill included, less the dispatch overhead) on top. */
double fl_fit_predict_op(const fl_fit_result *r, const fl_fit_op *op);

/* Writes `base` as a profile named `name` with the fit's efficiency section,
 * dispatch overhead (when measured) and interval; every fitted figure's
 * source is `source` plus its sample count. Returns 0, -1 on a write error. */
int fl_fit_write_profile(FILE *f, const fl_profile *base, const char *name, const fl_fit_result *r,
                         const char *source);

/* fl_fit_write_profile with the `streamed` figure fl_fit_streamed chose
 * (written when > 0; `ops`: the `other` ops it was chosen on). */
int fl_fit_write_profile_streamed(FILE *f, const fl_profile *base, const char *name,
                                  const fl_fit_result *r, double streamed, int64_t ops,
                                  const char *source);

/* fl_fit_write_profile with every figure of `terms` (fl_fit_terms_run):
 * `streamed` and `gap` written when > 0; without a whole-run time in the
 * traces (have_overhead false) the base's overhead and gap are kept. */
int fl_fit_write_profile_terms(FILE *f, const fl_profile *base, const char *name,
                               const fl_fit_result *r, const fl_fit_terms *terms,
                               const char *source);

#ifdef __cplusplus
}
#endif

#endif
