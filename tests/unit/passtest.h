/*
 * passtest.h - the harness shared by the rewrite-pass suites (test_passes.c,
 * test_constant_folding.c, test_arithmetic.c, test_remapper.c,
 * test_remapper_more.c, test_remapper_gelu.c, test_hoist_unary.c).
 *
 * A pt_run holds one imported graph and what was done to it. Two ways to
 * fill it (onnx_passtest.h fills it from an ONNX model):
 *
 *  - the pipeline (pt_pipeline, pt_pipeline_bytes): import -> toposort ->
 *    infer -> cost ("before"), then fl__pipeline_run with the verifier on
 *    ("after"); the run is heap-allocated, released with pt_free;
 *
 *  - one pass on its own (pt_load / pt_load_bytes, then pt_pass or
 *    pt_remap): import -> toposort -> infer -> cost, nodes without consumers
 *    marked preserved; the pass, then re-sort, verify, re-infer and re-cost.
 *    The run usually lives on the stack; pt_fini releases it.
 *
 * The checks below work on either: the graph as "name=Op(in,in:1,^ctrl); ..."
 * (pt_dump), the ledger (pt_fired), and nodes, attrs and values of the
 * rewritten graph. Every helper fails the test on error.
 */
#ifndef FL_PASSTEST_H
#define FL_PASSTEST_H

#include "cost/cost.h"
#include "import/import.h"
#include "passes/pass.h"
#include "passes/pipeline.h"
#include "passes/util.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TensorFlow dtype numbers used when building graphs. */
enum { F32 = 1, F64 = 2, I32 = 3, I64 = 9, BOOL = 10, BF16 = 14 };

typedef struct pt_run {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_options opt;
    fl_ledger led;
    /* Pipeline runs: the costs before and after, and the configuration. */
    fl_cost_totals before, after;
    fl_pipeline_config cfg;
    /* Single-pass runs: the pass options and context (pc.rewritten, ...). */
    fl_pass_options popt;
    fl_pass_ctx pc;
    char dump[8192];
} pt_run;

/* ------------------------------------------------------------------------- */
/* Pipeline runs                                                              */
/* ------------------------------------------------------------------------- */

typedef struct pt_opts {
    const char *passes;         /* a pipeline pass list; NULL: the default */
    int iterations;             /* pipeline iterations */
    const char *const *outputs; /* NULL: the nodes without consumers */
    size_t n_outputs;
    int64_t max_folded_bytes;       /* 0: the pipeline's default */
    fl_device device;               /* default CPU */
    fl_remapper_mode remapper_mode; /* default FL_REMAPPER_STANDARD */
    bool persistent_bn;             /* TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1 */
} pt_opts;

/* Imports `buf` and runs the pipeline as `o` says, verifier on; asserts
 * success. */
pt_run *pt_pipeline_bytes(const uint8_t *buf, size_t len, const pt_opts *o);
/* The same for a testgraph (packed here; tg stays the caller's). */
pt_run *pt_pipeline(tg_graph *tg, const pt_opts *o);
/* An importer of the engine (fl__import_graphdef, fl__import_onnx). */
typedef fl_status (*pt_import_fn)(fl_graph *g, const uint8_t *buf, size_t len,
                                  const fl_import_opts *o, fl_diag *d);
/* pt_pipeline_bytes reading buf with `import`. */
pt_run *pt_pipeline_import(pt_import_fn import, const uint8_t *buf, size_t len, const pt_opts *o);
/* pt_pipeline that frees tg. */
pt_run *pt_pipeline_free(tg_graph *tg, const pt_opts *o);
/* The constant folding pass alone, one iteration, with `outs` as the fetch
 * nodes (NULL, 0: the nodes without consumers); frees tg. */
pt_run *pt_constfold_free(tg_graph *tg, const char *const *outs, size_t n_outs);
void pt_free(pt_run *p);

/* Runs the pipeline on g and compares the dump with `want`. With `rule`, the
 * ledger must have an entry of `rule` (on `node`, or anywhere when node is
 * NULL) if `fires`, and none anywhere if not. g stays the caller's. */
void pt_expect(tg_graph *g, const pt_opts *o, const char *want, const char *rule, const char *node,
               bool fires);

/* ------------------------------------------------------------------------- */
/* Single-pass runs                                                           */
/* ------------------------------------------------------------------------- */

/* Imports and analyses bytes into h, marks nodes without consumers
 * preserved; prints the reason and returns the status on failure. */
fl_status pt_load_bytes(pt_run *h, const uint8_t *bytes, size_t len);
/* Packs tg (and frees it) and loads it; fails the test on error. */
void pt_load(pt_run *h, tg_graph *tg);
/* Runs pass `fn` once (h->popt.persistent_bn as set by the caller), then re-sorts, verifies,
 * re-infers and re-costs. */
void pt_pass(pt_run *h, fl_pass_fn fn, const char *name, fl_device dev, fl_remapper_mode mode);
/* pt_pass with the remapper. */
void pt_remap(pt_run *h, fl_device dev, fl_remapper_mode mode);
/* Releases a loaded run (not the pt_run itself). */
void pt_fini(pt_run *h);

/* ------------------------------------------------------------------------- */
/* Checks on the rewritten graph                                              */
/* ------------------------------------------------------------------------- */

/* The graph as "a=Op(in,in:1,^c); b=..." (kept in r->dump). */
const char *pt_dump(pt_run *r);
/* How many ledger entries of `rule` there are on `node` (NULL: on any node). */
size_t pt_fired(const pt_run *r, const char *rule, const char *node);

/* The node called `name`; fails when there is none. */
fl_node *pt_need(const pt_run *r, const char *name);
/* Output 0 of the node called `name`; fails when there is none. */
const fl_tensor *pt_out0(const pt_run *r, const char *name);
/* s's value; fails when s is not a known integer. */
int64_t pt_known(fl_sym s);
/* Fails when a node called `name` is left. */
void pt_absent(const pt_run *r, const char *name);
/* `name` has op `op` and the NULL-terminated data inputs ("x" or "x:1"). */
void pt_expect_node(const pt_run *r, const char *name, const char *op, ...);
/* `name`'s control inputs are exactly the NULL-terminated names, in order. */
void pt_expect_ctrl(const pt_run *r, const char *name, ...);
/* The list attr `attr` of `name` holds exactly the n strings / ints given. */
void pt_expect_strs(const pt_run *r, const char *name, const char *attr, size_t n, ...);
void pt_expect_ints(const pt_run *r, const char *name, const char *attr, size_t n, ...);

/* Attr `attr` of `name`, which must be present and of that kind. */
int64_t pt_attr_i(const pt_run *r, const char *name, const char *attr);
float pt_attr_f(const pt_run *r, const char *name, const char *attr);
int pt_attr_t(const pt_run *r, const char *name, const char *attr);
const char *pt_attr_s(const pt_run *r, const char *name, const char *attr);
/* Whether `name` has a bool attr `attr` that is true. */
bool pt_attr_bool(const pt_run *r, const char *name, const char *attr);

/* The value of Const `name`, and its element i as a double / an integer. */
const fl_value *pt_cval(const pt_run *r, const char *name);
double pt_cf(const pt_run *r, const char *name, int64_t i);
int64_t pt_ci(const pt_run *r, const char *name, int64_t i);

/* Output 0 of `name` has dtype dt and exactly the given known dims (ints). */
void pt_expect_shape(const pt_run *r, const char *name, int dt, int rank, ...);
/* The cost of `name`: a rule, complete, with these known counts. */
void pt_expect_cost(pt_run *r, const char *name, int64_t flops, int64_t tfprof, int64_t macs);
/* The last single pass changed nothing. */
void pt_expect_untouched(const pt_run *h);

/* ------------------------------------------------------------------------- */
/* Building graphs                                                            */
/* ------------------------------------------------------------------------- */

/* A float Placeholder of the given shape. */
void pt_ph(tg_graph *g, const char *name, int rank, const int64_t *dims);
/* A node with one / two inputs and attr T = t (t == 0: no T). */
tg_node *pt_op1(tg_graph *g, const char *name, const char *op, const char *a, int t);
tg_node *pt_op2(tg_graph *g, const char *name, const char *op, const char *a, const char *b, int t);
/* A float scalar Const. */
tg_node *pt_scalar(tg_graph *g, const char *name, float v);

#endif
