/*
 * roofline.c - roofline time estimates; the model is stated in roofline.h.
 */
#include "cost/roofline.h"

#include "foldline/foldline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_ROOFLINE_TOP 10
#define FL_MAX_LEVELS   16 /* memory levels the per-operand rule handles (more: working set) */

static bool has_prefix(const char *s, const char *p) {
    return strncmp(s, p, strlen(p)) == 0;
}

/* An ONNX-style grouped convolution with one input channel per group (the
 * weight's dim 1, C_in / group, is 1 and group > 1): a depthwise conv. */
static bool onnx_depthwise(const fl_node *n) {
    const fl_attr *g = fl__node_attr(n, "group");
    if (!g || g->kind != FL_ATTR_I || g->v.i <= 1 || n->n_inputs < 2) {
        return false;
    }
    const fl_node *w = n->inputs[1].node;
    int port = n->inputs[1].port;
    if (!w || port < 0 || port >= w->n_outputs) {
        return false;
    }
    const fl_shape *s = &w->outputs[port].shape;
    return s->rank >= 3 && fl_sym_is_known(s->dims[1]) && s->dims[1].k == 1;
}

/* A known dim `i` of input `in`'s shape, 0 when unknown or absent. */
static double input_dim(const fl_node *n, int in, int i) {
    if (in >= n->n_inputs || !n->inputs[in].node) {
        return 0;
    }
    const fl_node *src = n->inputs[in].node;
    int port = n->inputs[in].port;
    if (port < 0 || port >= src->n_outputs) {
        return 0;
    }
    const fl_shape *s = &src->outputs[port].shape;
    if (i < 0) {
        i += s->rank;
    }
    return i >= 0 && i < s->rank && fl_sym_is_known(s->dims[i]) ? (double)s->dims[i].k : 0;
}

/* The channel groups of a depthwise op: ONNX's `group`, else the input
 * channels (TensorFlow's filter [kh, kw, in, multiplier] dim 2; TFLite's
 * NHWC input's last dim). Runtimes that run a depthwise convolution as one
 * small kernel per channel (ONNX Runtime's im2col + GEMM per group) pay its
 * setup once per group. 0 when unknown. */
static double channel_groups(const fl_node *n) {
    const fl_attr *g = fl__node_attr(n, "group");
    if (g && g->kind == FL_ATTR_I) {
        return g->v.i > 1 ? (double)g->v.i : 0;
    }
    if (n->desc && strncmp(n->desc->name, "tflite::", 8) == 0) {
        return input_dim(n, 0, -1);
    }
    return input_dim(n, 1, 2);
}

static bool in_list(const char *op, const char *const *list) {
    for (int i = 0; list[i]; i++) {
        /* Exact names, or prefixes when longer than 4 characters (MaxPool3D,
         * ReduceMean, FusedBatchNormV3, SkipLayerNormalization, ...). */
        if (strcmp(op, list[i]) == 0 || (has_prefix(op, list[i]) && strlen(list[i]) > 4)) {
            return true;
        }
    }
    return false;
}

fl_op_class fl__roofline_op_class(const fl_node *n) {
    const char *op = fl__roofline_op_name(n);
    if (strstr(op, "Depthwise")) {
        return FL_CLASS_DEPTHWISE;
    }
    if (strstr(op, "Conv") && !strstr(op, "Convert")) {
        return onnx_depthwise(n) ? FL_CLASS_DEPTHWISE : FL_CLASS_CONV;
    }
    if (strstr(op, "MatMul") || has_prefix(op, "Einsum") || strstr(op, "Gemm")) {
        return FL_CLASS_MATMUL;
    }
    /* ONNX's variadic Sum/Max/Min/Mean are element-wise across their inputs
     * (TensorFlow's ops of those names reduce over axes). */
    if (n->desc && has_prefix(n->desc->name, "onnx::") &&
        (strcmp(op, "Sum") == 0 || strcmp(op, "Max") == 0 || strcmp(op, "Min") == 0 ||
         strcmp(op, "Mean") == 0)) {
        return FL_CLASS_ELEMENTWISE;
    }
    static const char *const pool[] = {"AvgPool",
                                       "MaxPool",
                                       "AveragePool",
                                       "GlobalAveragePool",
                                       "GlobalMaxPool",
                                       "GlobalLpPool",
                                       "LpPool",
                                       "MaxRoiPool",
                                       NULL};
    static const char *const soft[] = {"Softmax",   "LogSoftmax",         "Hardmax",
                                       "Attention", "MultiHeadAttention", NULL};
    static const char *const norm[] = {"FusedBatchNorm",
                                       "LRN",
                                       "BatchNormalization",
                                       "InstanceNormalization",
                                       "GroupNormalization",
                                       "LpNormalization",
                                       "MeanVarianceNormalization",
                                       "LayerNormalization",
                                       "SkipLayerNormalization",
                                       "SimplifiedLayerNormalization",
                                       "SkipSimplifiedLayerNormalization",
                                       NULL};
    static const char *const red[] = {"Sum",           "Mean",   "Max", "Min", "Prod",
                                      "ArgMax",        "ArgMin", "All", "Any", "L2Loss",
                                      "EuclideanNorm", "Reduce", NULL};
    if (in_list(op, pool)) {
        return FL_CLASS_POOLING;
    }
    if (in_list(op, soft)) {
        return FL_CLASS_SOFTMAX;
    }
    if (in_list(op, norm)) {
        return FL_CLASS_NORMALIZATION;
    }
    if (in_list(op, red)) {
        return FL_CLASS_REDUCTION;
    }
    fl_sym flops = fl__node_count(n, FL_COUNT_FLOPS);
    if (fl_sym_is_known(flops) && flops.k > 0) {
        return FL_CLASS_ELEMENTWISE;
    }
    const fl_cost kn = fl__node_cost(n), *k = &kn;
    if ((fl_sym_is_known(k->bytes_read) && k->bytes_read.k > 0) ||
        (fl_sym_is_known(k->bytes_written) && k->bytes_written.k > 0)) {
        return FL_CLASS_DATA_MOVEMENT;
    }
    return FL_CLASS_OTHER;
}

fl_precision fl__roofline_precision(const fl_node *n) {
    if (n->n_outputs < 1) {
        return FL_PREC_FP32;
    }
    switch (fl_dtype_base(n->outputs[0].dtype)) {
    case FL_DT_HALF:
        return FL_PREC_FP16;
    case FL_DT_BFLOAT16:
        return FL_PREC_BF16;
    case FL_DT_INT8:
    case FL_DT_UINT8:
    case FL_DT_QINT8:
    case FL_DT_QUINT8:
        return FL_PREC_INT8;
    default:
        return FL_PREC_FP32;
    }
}

/* The precision of an op's integer work (int_ops): int8 when its first
 * integer input (its quantized operand; else its output) is 8 bits or
 * narrower, the profile's int8 peaks counting those ops; a wider integer
 * operand (int16, int32) has no integer peak in the profile schema and runs
 * as fp32 work, as does integer work on a profile without an int8 peak
 * (stated in README). */
static fl_precision int_precision(const fl_node *n) {
    int dt = FL_DT_INVALID;
    for (int i = 0; i < n->n_inputs && dt == FL_DT_INVALID; i++) {
        const fl_tensor *t = fl_node_in(n, i);
        if (t && fl__dtype_is_integer(t->dtype)) {
            dt = fl_dtype_base(t->dtype);
        }
    }
    if (dt == FL_DT_INVALID && n->n_outputs > 0) {
        dt = fl_dtype_base(n->outputs[0].dtype);
    }
    switch (dt) {
    case FL_DT_INT8:
    case FL_DT_UINT8:
    case FL_DT_QINT8:
    case FL_DT_QUINT8:
    case FL_DT_INT4:
    case FL_DT_UINT4:
    case FL_DT_INT2:
    case FL_DT_UINT2:
        return FL_PREC_INT8;
    default:
        return FL_PREC_FP32;
    }
}

/* The precision an op of dtype `prec` is timed at on p: prec when p has a
 * peak for it on either unit; else fp32, which runtimes convert such work to
 * (FP16 on a CPU without FP16 arithmetic: ONNX Runtime casts around the fp32
 * kernels), on the unit the op would use for prec (peak_for). */
static fl_precision timed_precision(const fl_profile *p, fl_precision prec) {
    return p->peak[FL_UNIT_MATRIX][prec].value > 0 || p->peak[FL_UNIT_VECTOR][prec].value > 0
               ? prec
               : FL_PREC_FP32;
}

/* Peak for (unit, dtype) with the documented fallbacks: the matrix unit only
 * when the profile lists it for the dtype; the vector unit for the dtype,
 * else vector fp32 (required in every profile). */
static double peak_for(const fl_profile *p, bool wants_matrix, fl_precision prec, fl_unit *unit,
                       fl_precision *used) {
    if (wants_matrix && p->peak[FL_UNIT_MATRIX][prec].value > 0) {
        *unit = FL_UNIT_MATRIX;
        *used = prec;
        return p->peak[FL_UNIT_MATRIX][prec].value;
    }
    *unit = FL_UNIT_VECTOR;
    if (p->peak[FL_UNIT_VECTOR][prec].value > 0) {
        *used = prec;
        return p->peak[FL_UNIT_VECTOR][prec].value;
    }
    *used = FL_PREC_FP32;
    return p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value;
}

static const fl_mem_level *level_for(const fl_profile *p, double bytes) {
    for (size_t i = 0; i + 1 < p->n_levels; i++) {
        if (bytes <= p->levels[i].capacity) {
            return &p->levels[i];
        }
    }
    return &p->levels[p->n_levels - 1];
}

/* Adds `bytes` last touched `dist` bytes ago to the levels serving them:
 * a level of capacity C keeps C / dist of them (as a cache replacing lines
 * at random does in the steady state), less what the faster levels keep;
 * the first level holding dist serves the rest. */
static void spread(const fl_profile *p, double dist, double bytes, double *share) {
    double kept = 0;
    for (size_t l = 0; l < p->n_levels; l++) {
        if (l + 1 == p->n_levels || dist <= p->levels[l].capacity) {
            share[l] += bytes * (1 - kept);
            return;
        }
        double f = p->levels[l].capacity / dist;
        share[l] += bytes * (f - kept);
        kept = f;
    }
}

/* The memory time of an op moving `bytes` (its working set) when each
 * operand is served by the level holding its reuse distance (reuse.c): an
 * input by the level whose capacity holds the bytes brought in since it was
 * last touched, an output by the level holding it; the operands share the
 * op's bytes in proportion to their sizes (the kernel-level byte rules of
 * traffic.c scale them all). *lv: the level carrying the most time. Without
 * distances (or operands of known size), bytes / bandwidth[level of the
 * working set]. */
static double memory_time(const fl_profile *p, const fl_node *nd, const fl_reuse *ru, double bytes,
                          const fl_mem_level **lv) {
    *lv = level_for(p, bytes);
    double whole = bytes / (*lv)->bandwidth;
    if (!ru || bytes <= 0 || p->n_levels < 2 || p->n_levels > FL_MAX_LEVELS) {
        return whole;
    }
    double share[FL_MAX_LEVELS] = {0}, raw = 0;
    bool meta = nd->desc && (nd->desc->flags & FL_OPF_META);
    for (int i = 0; !meta && i < nd->n_inputs; i++) {
        double b, d = fl__reuse_input(ru, nd, i, &b);
        if (d < 0) {
            return whole;
        }
        spread(p, d, b, share);
        raw += b;
    }
    for (int k = 0; k < nd->n_outputs; k++) {
        double b = fl__roofline_tensor_bytes(&nd->outputs[k]);
        spread(p, b, b, share);
        raw += b;
    }
    if (raw <= 0) {
        return whole;
    }
    double t = 0, most = -1;
    for (size_t l = 0; l < p->n_levels; l++) {
        double tl = bytes * (share[l] / raw) / p->levels[l].bandwidth;
        t += tl;
        if (share[l] > 0 && tl > most) {
            most = tl;
            *lv = &p->levels[l];
        }
    }
    return t;
}

static int cmp_time(const void *pa, const void *pb) {
    const fl_roofline_node *a = *(const fl_roofline_node *const *)pa;
    const fl_roofline_node *b = *(const fl_roofline_node *const *)pb;
    if (a->time_s != b->time_s) {
        return a->time_s < b->time_s ? 1 : -1;
    }
    return a < b ? -1 : (a > b);
}

/* The bucket of table t an op of `flops` and `bytes` falls in (NULL when the
 * class has no entry), and its label in buf. */
static const fl_eff_bucket *bucket_for(const fl_eff_table *t, double flops, double bytes, char *buf,
                                       size_t size) {
    buf[0] = '\0';
    if (!t->n_buckets) {
        return NULL;
    }
    double v = t->by == FL_SIZE_FLOPS ? flops : bytes;
    const char *unit = t->by == FL_SIZE_FLOPS ? "flops" : "bytes";
    size_t i = 0;
    while (i + 1 < t->n_buckets && v > t->buckets[i].upto) {
        i++;
    }
    if (t->n_buckets == 1) {
        snprintf(buf, size, "all");
    } else if (i + 1 < t->n_buckets) {
        snprintf(buf, size, "<= %.3g %s", t->buckets[i].upto, unit);
    } else {
        snprintf(buf, size, "> %.3g %s", t->buckets[i - 1].upto, unit);
    }
    return &t->buckets[i];
}

/* Bucket labels, interned per estimate (a table has at most 64 buckets per
 * class): the strings live in the report arena. */
typedef struct label_cache {
    fl_arena *ra;
    const char *s[FL_CLASS_COUNT][65];
} label_cache;

static const char *intern_label(label_cache *lc, fl_op_class c, const fl_eff_table *t,
                                const fl_eff_bucket *b, const char *text) {
    size_t i = b ? (size_t)(b - t->buckets) + 1 : 0;
    if (!lc->s[c][i]) {
        lc->s[c][i] = fl__arena_strdup(lc->ra, text);
    }
    return lc->s[c][i] ? lc->s[c][i] : "";
}

/* One op's terms on p:
 *   compute = flops / (peak x eff.compute), memory = bytes / (bw x eff.memory)
 *   time = overhead + fixed + channels x per_channel [+ broadcast]
 *          + max(compute, memory),
 *   upper = overhead + fixed + channels x per_channel [+ broadcast]
 *          + compute + memory';
 *   overhead is charged to ops that do work, and with a calibrated profile
 *   to every executed op; channels are a depthwise op's channel groups, a
 *   Transpose's contiguous runs, a windowed pool's output rows; broadcast is
 *   charged to an element-wise op with a broadcast operand; for a Transpose
 *   moving the innermost axis, memory counts its strided side in vectors
 *   and memory' in cache lines (an element-by-element copy), else memory' =
 *   memory (traffic.c). */
static void estimate_node(const fl_profile *p, const fl_node *nd, const fl_reuse *ru,
                          fl_roofline_node *r, label_cache *lc) {
    const fl_cost kn = fl__node_cost(nd), *k = &kn;
    /* The work: FLOPs at the peak of the op's float dtype (fp32 for an
     * integer output: its float work is requantization), a quantized op's
     * integer operations at its integer peak (int_precision). */
    double fl = (double)k->flops.k, iops = (double)k->int_ops.k;
    double flops = fl + iops;
    fl_op_class cls = fl__roofline_op_class(nd);
    /* The time terms follow what the kernel computes and moves (traffic.c):
     * its extra vector work (transcendental functions) runs with the FLOPs. */
    fl_traffic tr;
    fl__roofline_traffic(nd, cls, &tr);
    double bytes = tr.bytes;
    fl += tr.work - flops;
    fl_unit unit, iunit;
    fl_precision used, iused, prec = fl__roofline_precision(nd);
    /* Depthwise convolutions have MACs but no reduction over channels to
     * feed a matrix unit (GEMM): they run on the vector unit. Integer
     * contractions (QLinearConv, MatMulInteger) have int_ops, no MACs. */
    bool depthwise = cls == FL_CLASS_DEPTHWISE;
    bool imatrix = iops > 0 && (cls == FL_CLASS_CONV || cls == FL_CLASS_MATMUL) && !depthwise;
    /* A dtype without any peak in the profile (FP16 or BF16 float work,
     * int8 integer work) is timed as fp32 work on the same unit, not at
     * peak_for's vector fp32 fallback: a GEMM converted to fp32 is still a
     * GEMM. */
    double peak =
        peak_for(p, k->macs.k > 0 && !depthwise,
                 timed_precision(p, prec == FL_PREC_INT8 ? FL_PREC_FP32 : prec), &unit, &used);
    double ipeak = peak_for(p, imatrix, timed_precision(p, int_precision(nd)), &iunit, &iused);
    double compute = fl / peak + iops / ipeak;
    if (iops / ipeak > fl / peak) { /* the unit and dtype of the larger term */
        unit = iunit;
        used = iused;
    }
    const fl_mem_level *lv;
    double mem_peak = memory_time(p, nd, ru, bytes, &lv);
    char label[64];
    const fl_eff_bucket *b = bucket_for(&p->table[cls], flops, bytes, label, sizeof label);
    r->op_class = fl_op_class_name(cls);
    r->bucket = intern_label(lc, cls, &p->table[cls], b, label);
    r->unit = fl_unit_name(unit);
    r->dtype = fl_precision_name(used);
    r->level = lv->name;
    r->flops = flops;
    r->bytes = bytes;
    r->intensity = bytes > 0 ? flops / bytes : -1;
    r->compute_peak_s = compute;
    r->memory_peak_s = mem_peak;
    double memory_eff = b ? b->memory : p->efficiency[cls].memory;
    double upper_mem = r->memory_peak_s;
    if (tr.strided_bytes > 0) {
        /* the strided side of a Transpose: the cache level serving it (the
         * last cache when the working set only fits main memory) carries
         * vectors, and lines in the upper estimate */
        const fl_mem_level *c = lv;
        if (lv == &p->levels[p->n_levels - 1] && p->n_levels > 1) {
            c = &p->levels[p->n_levels - 2];
        }
        double t = tr.strided_bytes / c->bandwidth, u = tr.line_bytes / c->bandwidth;
        r->memory_peak_s = t > r->memory_peak_s ? t : r->memory_peak_s;
        upper_mem = u > r->memory_peak_s ? u : r->memory_peak_s;
    }
    r->compute_s = r->compute_peak_s / (b ? b->compute : p->efficiency[cls].compute);
    r->memory_s = r->memory_peak_s / memory_eff;
    bool works = flops > 0 || bytes > 0;
    r->overhead_s = (works || (p->calibrated && r->executed)) ? p->overhead.value : 0;
    r->fixed_s = b && (works || r->executed) ? b->fixed_s : 0;
    /* the units of the bucket's per-unit time: a depthwise op's channel
     * groups, a Transpose's contiguous runs, a windowed pool's output rows */
    r->channels = depthwise ? channel_groups(nd) : tr.runs;
    r->channel_time_s = b && works ? r->channels * b->per_channel_s : 0;
    r->broadcast = fl__roofline_broadcast(nd, cls);
    r->broadcast_time_s = b && works && r->broadcast ? b->broadcast_s : 0;
    double m = r->compute_s >= r->memory_s ? r->compute_s : r->memory_s;
    double fixed = r->overhead_s + r->fixed_s + r->channel_time_s + r->broadcast_time_s;
    r->time_s = m + fixed;
    r->upper_s = r->compute_s + upper_mem / memory_eff + fixed;
}

/* The bytes a kernel streaming `bytes` evicts from p's caches (the memory
 * levels but the last): min(bytes, capacity) from each. */
static double evicted(const fl_profile *p, double bytes) {
    double e = 0;
    for (size_t l = 0; l + 1 < p->n_levels; l++) {
        double c = p->levels[l].capacity;
        e += c > 0 && c < bytes ? c : bytes;
    }
    return e;
}

/* The refill term (fl_profile.streamed) of the n estimated ops all[] (ids:
 * their node ids): into ev[] the mean bytes the FL_STREAMED_WINDOW kernels
 * run before each evicted, into st[] the time that adds, also added into
 * each op's time_s and upper_s. FL_ENOMEM when scratch runs out. */
static fl_status streamed_terms(const fl_graph *g, const fl_profile *p, fl_roofline_node *all,
                                const uint32_t *ids, size_t n, double *ev, double *st) {
    fl_arena *sa = g->arena;
    fl_run_order ro;
    double *in = fl__arena_scratch(sa, g->n_nodes + 1, sizeof(*in));
    double *out = fl__arena_scratch(sa, g->n_nodes + 1, sizeof(*out));
    if (!in || !out || fl__run_order_build(g, sa, &ro) != FL_OK) {
        fl__arena_scratch_free(sa, in);
        fl__arena_scratch_free(sa, out);
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        in[ids[i]] = evicted(p, all[i].bytes);
    }
    fl__run_order_before(&ro, in, FL_STREAMED_WINDOW, out);
    for (size_t i = 0; i < n; i++) {
        fl_roofline_node *r = &all[i];
        bool pays = ro.pos[ids[i]] != SIZE_MAX && (r->flops > 0 || r->bytes > 0 || r->executed);
        ev[i] = pays ? out[ids[i]] / FL_STREAMED_WINDOW : 0;
        st[i] = ev[i] * p->streamed.value;
        r->time_s += st[i];
        r->upper_s += st[i];
    }
    fl__run_order_free(sa, &ro);
    fl__arena_scratch_free(sa, in);
    fl__arena_scratch_free(sa, out);
    return FL_OK;
}

/* The run's gap (fl_profile.gap) of the n estimated ops all[]: returns
 * each op's share x its time less its dispatch overhead (the refill
 * included), n doubles in `ra` (NULL when it runs out), also added into its
 * time_s and upper_s; the figure into out. */
static double *gap_terms(const fl_profile *p, fl_roofline_node *all, size_t n, fl_arena *ra,
                         fl_roofline_graph *out) {
    double *gp = fl__arena_calloc(ra, n + 1, sizeof(*gp));
    if (!gp) {
        return NULL;
    }
    out->gap_share = p->gap.value;
    out->gap_source = fl__arena_strdup(ra, p->gap.source);
    for (size_t i = 0; i < n; i++) {
        fl_roofline_node *r = &all[i];
        gp[i] = p->gap.value * (r->time_s - r->overhead_s);
        r->time_s += gp[i];
        r->upper_s += gp[i];
    }
    return gp;
}

/* Each op's bound, and the graph's totals from its n ops (st: each op's
 * refill, gp: its share of the run's gap, both in its fixed part; NULL:
 * none). */
static void add_totals(fl_roofline_node *all, size_t n, const double *st, const double *gp,
                       fl_roofline_graph *out) {
    for (size_t i = 0; i < n; i++) {
        fl_roofline_node *r = &all[i];
        double m = r->compute_s >= r->memory_s ? r->compute_s : r->memory_s;
        double fixed = r->overhead_s + r->fixed_s + r->channel_time_s + r->broadcast_time_s +
                       (st ? st[i] : 0) + (gp ? gp[i] : 0);
        out->streamed_s += st ? st[i] : 0;
        out->gap_s += gp ? gp[i] : 0;
        if (r->time_s == 0) {
            r->bound = "none";
        } else if (fixed > m) {
            r->bound = "overhead";
            out->ops_overhead_bound++;
        } else if (r->compute_s >= r->memory_s) {
            r->bound = "compute";
            out->ops_compute_bound++;
        } else {
            r->bound = "memory";
            out->ops_memory_bound++;
        }
        if (r->compute_s >= r->memory_s) {
            out->compute_s += m;
        } else {
            out->memory_s += m;
        }
        out->overhead_s += fixed;
        out->time_s += r->time_s;
        out->upper_s += r->upper_s;
    }
}

fl_status fl__roofline_estimate(const fl_graph *g, const fl_profile *p, bool per_node, fl_arena *ra,
                                fl_diag *d, fl_roofline_graph *out) {
    memset(out, 0, sizeof(*out));
    fl_arena *sa = g->arena; /* scratch, counted against the analysis's memory limit */
    /* the refill after the kernels before each op: with the profile's
     * figure, or per node for a fit to read (a profile with caches); ids:
     * the estimated ops' node ids */
    bool refill = p->n_levels > 1 && (per_node || p->streamed.value > 0);
    fl_roofline_node *all = fl__arena_scratch(sa, g->n_nodes + 1, sizeof(*all));
    uint32_t *ids = refill ? fl__arena_scratch(sa, g->n_nodes + 1, sizeof(*ids)) : NULL;
    label_cache *labels =
        all && (ids || !refill) ? fl__arena_scratch(sa, 1, sizeof(*labels)) : NULL;
    if (!labels) {
        fl__arena_scratch_free(sa, all);
        fl__arena_scratch_free(sa, ids);
        return fl__diag_oom(d);
    }
    size_t n = 0;
    labels->ra = ra;
    fl_reuse ru;
    memset(&ru, 0, sizeof ru);
    if (p->n_levels > 1 && fl__reuse_build(g, sa, &ru) != FL_OK) {
        fl__arena_scratch_free(sa, all);
        fl__arena_scratch_free(sa, ids);
        fl__arena_scratch_free(sa, labels);
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *nd = g->nodes[i];
        const fl_cost kn = fl__node_cost(nd), *k = &kn;
        if (k->incomplete) {
            continue;
        }
        if (!fl_sym_is_known(k->flops) || !fl_sym_is_known(k->bytes_read) ||
            !fl_sym_is_known(k->bytes_written) || !fl_sym_is_known(k->macs) ||
            !fl_sym_is_known(k->int_ops)) {
            fl__reuse_free(sa, &ru);
            fl__arena_scratch_free(sa, all);
            fl__arena_scratch_free(sa, ids);
            fl__arena_scratch_free(sa, labels);
            return fl__node_fail(d, FL_EUSAGE, nd,
                                 "roofline estimate needs known counts: bind every symbol");
        }
        if (ids) {
            ids[n] = nd->id;
        }
        fl_roofline_node *r = &all[n++];
        r->name = nd->name;
        r->op = nd->op;
        r->executed = !(nd->desc && (nd->desc->flags & FL_OPF_NO_BYTES)) &&
                      !fl__node_cost_per_load(nd) && !(nd->flags & FL_NODE_DEAD);
        estimate_node(p, nd, ru.pos ? &ru : NULL, r, labels);
    }
    fl__reuse_free(sa, &ru);
    double *ev = NULL, *st = NULL;
    if (refill) {
        ev = fl__arena_calloc(ra, n + 1, sizeof(*ev));
        st = fl__arena_calloc(ra, n + 1, sizeof(*st));
        if (!ev || !st || streamed_terms(g, p, all, ids, n, ev, st) != FL_OK) {
            fl__arena_scratch_free(sa, all);
            fl__arena_scratch_free(sa, ids);
            fl__arena_scratch_free(sa, labels);
            return fl__diag_oom(d);
        }
    }
    fl__arena_scratch_free(sa, ids);
    double *gp = NULL;
    if (p->gap.value > 0 && !(gp = gap_terms(p, all, n, ra, out))) {
        fl__arena_scratch_free(sa, all);
        fl__arena_scratch_free(sa, labels);
        return fl__diag_oom(d);
    }
    add_totals(all, n, st, gp, out);
    out->ops_costed = (int64_t)n;
    fl__arena_scratch_free(sa, labels);
    out->calibrated = p->calibrated;
    if (p->interval.coverage > 0) {
        out->low_s = out->time_s * p->interval.low;
        out->high_s = out->time_s * p->interval.high;
        out->coverage = p->interval.coverage;
    }

    /* Copy strings into the report arena; pick the top ops by time. */
    fl_roofline_node **order = fl__arena_scratch(sa, n + 1, sizeof(*order));
    fl_roofline_node *top = fl__arena_calloc(ra, FL_ROOFLINE_TOP + 1, sizeof(*top));
    fl_roofline_node *nodes = per_node ? fl__arena_calloc(ra, n + 1, sizeof(*nodes)) : NULL;
    if (!order || !top || (per_node && !nodes)) {
        fl__arena_scratch_free(sa, order);
        fl__arena_scratch_free(sa, all);
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < n; i++) {
        all[i].name = fl__arena_strdup(ra, all[i].name);
        all[i].op = fl__arena_strdup(ra, all[i].op);
        all[i].level = fl__arena_strdup(ra, all[i].level);
        order[i] = &all[i];
        if (nodes) {
            nodes[i] = all[i];
        }
    }
    qsort(order, n, sizeof(*order), cmp_time);
    size_t nt = 0;
    for (size_t i = 0; i < n && nt < FL_ROOFLINE_TOP; i++) {
        if (order[i]->time_s > 0) {
            top[nt++] = *order[i];
        }
    }
    fl__arena_scratch_free(sa, order);
    fl__arena_scratch_free(sa, all);
    out->top = top;
    out->n_top = nt;
    out->nodes = nodes;
    out->n_nodes = nodes ? n : 0;
    out->node_evicted_bytes = nodes ? ev : NULL;
    out->node_streamed_s = nodes ? st : NULL;
    out->node_gap_s = nodes ? gp : NULL;
    return ra->failed ? fl__diag_oom(d) : FL_OK;
}

fl_status fl__roofline_report(fl_ctx *c, const fl_options *opt, fl_arena *ra, fl_report *r) {
    if (r->n_symbols) {
        char list[512];
        size_t o = 0;
        list[0] = '\0';
        for (size_t i = 0; i < r->n_symbols && o + 1 < sizeof list; i++) {
            int w = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", r->symbols[i]);
            if (w < 0) {
                break;
            }
            o += (size_t)w;
        }
        return fl__diag_fail(c->d, FL_EUSAGE,
                             "a roofline estimate needs every symbol bound; unbound: %s (%s)", list,
                             fl__diag_opt(c->d,
                                          "bind with --bind SYM=N or --input, or sweep with "
                                          "--sweep SYM=v1,v2,...",
                                          "bind them with options.symbols or options.inputs"));
    }
    fl_roofline_result *res = fl__arena_calloc(ra, opt->n_profiles + 1, sizeof(*res));
    if (!res) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < opt->n_profiles; i++) {
        const fl_profile *p = opt->profiles[i];
        fl_roofline_graph *before = fl__arena_zalloc(ra, sizeof(*before));
        if (!before) {
            return fl__diag_oom(c->d);
        }
        fl_status st = fl__roofline_estimate(c->g, p, opt->per_node, ra, c->d, before);
        if (st != FL_OK) {
            return st;
        }
        res[i].profile = fl__arena_strdup(ra, p->name);
        res[i].before = before;
        res[i].after = NULL; /* filled by fl__roofline_report_after when passes run */
        res[i].speedup = 0;
    }
    r->roofline = res;
    r->n_roofline = opt->n_profiles;
    return ra->failed ? fl__diag_oom(c->d) : FL_OK;
}

fl_status fl__roofline_report_after(fl_ctx *c, const fl_options *opt, fl_arena *ra, fl_report *r) {
    fl_roofline_result *res = (fl_roofline_result *)r->roofline;
    for (size_t i = 0; i < r->n_roofline && i < opt->n_profiles; i++) {
        fl_roofline_graph *after = fl__arena_zalloc(ra, sizeof(*after));
        if (!after) {
            return fl__diag_oom(c->d);
        }
        fl_status st =
            fl__roofline_estimate(c->g, opt->profiles[i], opt->per_node, ra, c->d, after);
        if (st != FL_OK) {
            return st;
        }
        res[i].after = after;
        res[i].speedup = after->time_s > 0 ? res[i].before->time_s / after->time_s : 0;
    }
    return ra->failed ? fl__diag_oom(c->d) : FL_OK;
}
