/*
 * roofline.h - per-op and per-graph time estimates on a device profile.
 *
 * For one analysed graph (every node's counts filled by fl__cost_graph) and one
 * profile, each costed op gets
 *
 *   compute = FLOPs / (peak[unit][dtype] x eff_compute[class])
 *   memory  = bytes / (bandwidth[level] x eff_memory[class])
 *   time    = max(compute, memory) + overhead
 *   upper   = compute + memory + overhead      (Grappler's no-overlap sum)
 *
 * where unit is the matrix unit for ops with MACs (when the profile has one
 * for the dtype), except depthwise convolutions, and the vector unit
 * otherwise; dtype comes from the op's
 * first output; with several memory levels each operand is served by the
 * levels holding its reuse distance (memory_time in roofline.c, reuse.c),
 * else the smallest level whose capacity holds the op's working set (bytes
 * read + written), else main memory; overhead is the
 * profile's per-op dispatch cost, charged to ops that compute or move bytes;
 * with the profile's `gap` (the run's time beyond its kernels, as a share of
 * theirs) each op's time and upper bound then grow by gap x (time -
 * overhead), the refill after streaming kernels included.
 * The graph time is the sum over ops (a sequential executor). The rewrite
 * passes will call fl__roofline_estimate once more on the rewritten graph to
 * fill `after`.
 */
#ifndef FL_COST_ROOFLINE_H
#define FL_COST_ROOFLINE_H

#include "foldline/roofline.h"
#include "ops/ops.h"

/* The op type the classes and the kernel traffic rules go by: n->op, except
 * that a TensorFlow Lite builtin takes the name of the TensorFlow or ONNX op
 * that computes the same (CONV_2D -> Conv2D, LOGISTIC -> Sigmoid, TRANSPOSE ->
 * Transpose, ...); a builtin without one keeps its own name (traffic.c). */
const char *fl__roofline_op_name(const fl_node *n);
/* The class an op's efficiency factor is looked up under. */
fl_op_class fl__roofline_op_class(const fl_node *n);

/* The precision an op is costed at, from its first output's dtype: float ->
 * fp32, half -> fp16, bfloat16 -> bf16, int8/uint8/qint8/quint8 -> int8,
 * anything else -> fp32. */
fl_precision fl__roofline_precision(const fl_node *n);

/* What a kernel computes and moves, as the time terms use it (traffic.c):
 * `work` operations (FLOPs + integer ops, plus FL_TRANSCENDENTAL_OPS per
 * element of a transcendental element-wise op or a Softmax), `bytes` moved
 * (the counts' read + written, except that Slice/Gather-like ops read only
 * the elements they copy); for a Transpose that moves the innermost axis,
 * `strided_bytes` > 0: its strided side a vector per element plus the other
 * side's bytes, which the cache level serving it carries, and `line_bytes`:
 * the same with a 64-byte line per element (an element-by-element copy), the
 * bound the upper estimate keeps; for one that keeps it, `runs` > 0: the
 * contiguous runs it copies, each paying the bucket's per-unit time; for a
 * pool, `runs`: its output rows over its planes; none for a global pool
 * and `work` the operations of the kernel's path (traffic.c). */
typedef struct fl_traffic {
    double work, bytes, strided_bytes, line_bytes, runs;
} fl_traffic;

void fl__roofline_traffic(const fl_node *n, fl_op_class cls, fl_traffic *t);

/* Whether n, of class cls, is an element-wise op with broadcasting semantics
 * (Add, Mul, Where, ...; TensorFlow's and TFLite's binary ops alike) one of
 * whose operands (known shapes) has fewer elements than its output: it pays
 * its bucket's broadcast_s (traffic.c). */
bool fl__roofline_broadcast(const fl_node *n, fl_op_class cls);

/* The bytes of a tensor whose shape is known (0 otherwise), at the dtype's
 * size per element (reuse.c). */
double fl__roofline_tensor_bytes(const fl_tensor *t);

/* Reuse distances over one graph (reuse.c): the position of every node in
 * execution order (the topological order when the graph has one, else the
 * node order), the bytes the ops before each position brought into the
 * caches (outputs written, weights and graph inputs read), and `far`, the
 * distance of data last touched one run before: the weights and graph
 * inputs plus the most activation bytes live at once. */
typedef struct fl_reuse {
    size_t n;
    size_t *pos;    /* by node id */
    double *prefix; /* prefix[k]: bytes brought in by the ops at positions < k */
    double far;
} fl_reuse;

/* Builds r for g with scratch memory of `sa` (FL_ENOMEM when it runs out);
 * fl__reuse_free releases it. */
fl_status fl__reuse_build(const fl_graph *g, fl_arena *sa, fl_reuse *r);
void fl__reuse_free(fl_arena *sa, fl_reuse *r);

/* The reuse distance of data input i of n: the bytes brought in since its
 * producer wrote it (through ops that alias their input) plus its own
 * bytes; `far` (at least its bytes) for a weight or graph input; -1 when
 * unknown (the producer does not run before n). *bytes: the input's bytes. */
double fl__reuse_input(const fl_reuse *r, const fl_node *n, int i, double *bytes);

/* The order a runtime runs g's kernels in (runorder.c): for an ONNX graph
 * ONNX Runtime's (its graph viewer's default order: a reverse depth-first
 * search from the kernels nothing reads, producers taken in ascending node
 * order; Constant nodes, initializers and graph inputs are no kernels), for
 * other graphs the topological order (else the node order) of their
 * kernels (every node but Const, Placeholder and the absent-input node). */
typedef struct fl_run_order {
    size_t n;              /* kernels listed */
    const fl_node **order; /* the kernels in run order */
    size_t *pos;           /* by node id: the position in order; SIZE_MAX: no kernel */
} fl_run_order;

/* Builds r for g with scratch memory of `sa` (FL_ENOMEM when it runs out,
 * r then empty); fl__run_order_free releases it. */
fl_status fl__run_order_build(const fl_graph *g, fl_arena *sa, fl_run_order *r);
void fl__run_order_free(fl_arena *sa, fl_run_order *r);

/* Per kernel of r: out[id] = the sum of v[id'] (both by node id) over the
 * `window` kernels run just before it (fewer at the start). With v a
 * kernel's bytes: the bytes the kernels before it streamed. Entries of
 * nodes that are no kernels are left as they are. */
void fl__run_order_before(const fl_run_order *r, const double *v, size_t window, double *out);

/* Estimates graph g on profile p into *out, with strings and arrays in `ra`.
 * Incomplete nodes are skipped (as in the totals). per_node fills out->nodes.
 * Fails with FL_EUSAGE (d names the node) when a node's counts are symbolic:
 * the caller binds every symbol first. FL_ENOMEM on arena exhaustion. */
fl_status fl__roofline_estimate(const fl_graph *g, const fl_profile *p, bool per_node, fl_arena *ra,
                                fl_diag *d, fl_roofline_graph *out);

/* Fills r->roofline: for every profile of opt->profiles, the estimate of the
 * analysed graph c->g (`before`; `after` is filled by fl__roofline_report_after
 * when the passes run). Fails with FL_EUSAGE, d naming the unbound symbols, when r's totals
 * still have free symbols. Memory comes from the report arena `ra`. */
struct fl_options;
struct fl_report;
fl_status fl__roofline_report(fl_ctx *c, const struct fl_options *opt, fl_arena *ra,
                              struct fl_report *r);

/* After the rewrite passes ran (c->g is the optimised graph, costs counted),
 * estimates it on every profile of the report and fills each result's `after`
 * and `speedup` (before.time_s / after.time_s). */
fl_status fl__roofline_report_after(fl_ctx *c, const struct fl_options *opt, fl_arena *ra,
                                    struct fl_report *r);

#endif
