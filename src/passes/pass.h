/*
 * pass.h - Grappler-style rewrite passes over the IR, and their ledger.
 *
 * A pass takes the graph (shapes inferred, costs counted), rewrites it in
 * place, and records in the ledger which rule fired on which nodes. The
 * driver (pipeline.c) runs the passes in Grappler's default order, re-infers
 * shapes and re-counts costs after each one, and fills each pass's before and
 * after totals.
 *
 * Rewriting uses the mutation API in graph/mutate.h: redirect uses, add nodes,
 * mark nodes removed, then fl__graph_compact(). A pass never leaves a dangling
 * input, never removes or renames a preserved node (graph outputs and fetches:
 * FL_NODE_PRESERVE), and never changes a preserved node's dtype or shape.
 */
#ifndef FL_PASSES_PASS_H
#define FL_PASSES_PASS_H

#include "cost/cost.h"
#include "foldline/foldline.h" /* fl_device, fl_remapper_mode */
#include "graph/mutate.h"
#include "ops/ops.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_pass_options {
    fl_device device;               /* default CPU */
    fl_remapper_mode remapper_mode; /* default standard */
    bool persistent_bn;             /* TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1 */
    int64_t max_folded_bytes;       /* constant folding output limit; default 100 KiB */
    int iterations;                 /* meta-optimizer iterations; default 2 */
} fl_pass_options;

/* One rule firing: `rule` on `node` (the node matched, before rewriting), with
 * a short human description ("Conv2D+BiasAdd+Relu -> _FusedConv2D").
 * `node` is the node's own name string, not a copy: a node's name is
 * written once, into the analysis's arena (import, fl__graph_unique_name,
 * a rename's new copy; a node taking another's name shares that string),
 * and that arena frees nothing before the analysis ends, so the name stays
 * as it was noted through removal, renaming and a rolled-back pass. Passes
 * run on the analysed graph only (an ONNX body is a graph of its own,
 * analysed in the same arena, that no pass sees). The report copies it. */
typedef struct fl_ledger_entry {
    const char *pass; /* the pipeline's static name (the report keeps the pointer) */
    const char *rule;
    const char *node;
    const char *detail;
} fl_ledger_entry;

/* What one pass did, in one iteration. */
typedef struct fl_pass_record {
    const char *pass; /* the pipeline's static name (the report keeps the pointer) */
    int iteration;
    int64_t nodes_removed, nodes_added, nodes_rewritten;
    int64_t nodes_reinferred; /* inferred and costed again after it (the whole graph, or
                               * what the incremental update visited); 0: unchanged */
    fl_cost_totals before, after;
    size_t first_entry, n_entries; /* slice of the ledger's entries */
} fl_pass_record;

typedef struct fl_ledger {
    fl_arena *arena;
    /* The arena the entries' rule and detail texts are written to: `arena`
     * unless the caller sets the one it keeps them in (fl_analyze: the
     * report's, which then takes them as they are instead of copying) */
    fl_arena *text;
    /* The entries, in segments of FL_LEDGER_SEG (fl__ledger_entry): a
     * full ledger takes one more segment and the entries stay where they
     * are (an array grown by doubling left each old copy in the arena: 17
     * bytes a node on the 1M chain with the passes). */
    fl_ledger_entry **seg;
    size_t n_entries, n_seg, cap_seg;
    fl_pass_record *passes;
    size_t n_passes, cap_passes;
} fl_ledger;

#define FL_LEDGER_SEG 256u

/* Entry i (< l->n_entries) of ledger l. */
static inline fl_ledger_entry *fl__ledger_entry(const fl_ledger *l, size_t i) {
    return &l->seg[i / FL_LEDGER_SEG][i % FL_LEDGER_SEG];
}

/* What a pass sees. */
typedef struct fl_pass_ctx {
    fl_ctx *c; /* graph, symbols, arena, diagnostics, limits */
    const fl_pass_options *opt;
    fl_ledger *ledger;
    const char *pass;                  /* the running pass's name, for the ledger */
    int64_t removed, added, rewritten; /* counters the pass bumps */
} fl_pass_ctx;

/* Records a rule firing (copies the strings). */
void fl__ledger_note(fl_pass_ctx *pc, const char *rule, const fl_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same with the detail given as the n_parts strings joined (what
 * fl__ledger_note with "%s%s..." would write, without formatting: for a
 * rule that fires on thousands of nodes). */
void fl__ledger_note_parts(fl_pass_ctx *pc, const char *rule, const fl_node *n,
                           const char *const *parts, int n_parts);

/* A pass: rewrites pc->c->g in place; returns FL_OK (also when nothing
 * matched) or an error with c->d failed. */
typedef fl_status (*fl_pass_fn)(fl_pass_ctx *pc);

/* The passes, in Grappler's default order. */
fl_status fl__pass_model_pruner(fl_pass_ctx *pc);
fl_status fl__pass_common_subgraph_elimination(fl_pass_ctx *pc);
/* ONNX Runtime's QDQ fusion (passes/qdq/); runs only where
 * fl__pass_qdq_applies: an ONNX graph with a QuantizeLinear or
 * DequantizeLinear. */
fl_status fl__pass_qdq(fl_pass_ctx *pc);
bool fl__pass_qdq_applies(const fl_graph *g);
fl_status fl__pass_constant_folding(fl_pass_ctx *pc);
/* ONNX Runtime's transpose optimizer (passes/transpose/); runs only where
 * fl__pass_transpose_applies (an ONNX graph with a Transpose and no Q/DQ),
 * in the first iteration. */
fl_status fl__pass_transpose(fl_pass_ctx *pc);
bool fl__pass_transpose_applies(const fl_graph *g);
fl_status fl__pass_shape_optimizer(fl_pass_ctx *pc);
fl_status fl__pass_arithmetic_optimizer(fl_pass_ctx *pc);
fl_status fl__pass_remapper(fl_pass_ctx *pc);
fl_status fl__pass_dependency_optimizer(fl_pass_ctx *pc);

/* The skip test (pipeline.c). A pass is a function of the graph and the
 * options: run on a graph where it left no trace, it leaves none again. When
 * pass P last left no trace, the driver keeps what changed since: mark[i]
 * (for g->nodes[i]) has FL_MAY_TOUCHED when the node was added, edited,
 * inferred again, lost a consumer (an edge from it moved away or its
 * consumer was removed) since then, FL_MAY_NEAR when it is a producer or a
 * consumer (data or control) of such a node; a touched node added or
 * edited (its own fields set by a rewrite) has FL_MAY_EDITED too. The
 * graph is sorted (consumer
 * counts hold). P's test answers false only when no rule of P can match
 * anything those changes made: the driver then records P as a pass that
 * changed nothing, without running it. Each test states its argument; with
 * the self-checks on (FOLDLINE_VERIFY=1, CTest) the pass runs anyway and
 * any trace it leaves fails the analysis, naming the pass, the iteration and
 * the node. A pass without a test always runs (the remapper: its patterns
 * span several nodes, on kinds nearly every graph has, and its last run is
 * the one that changed the graph where it changes anything). */
enum { FL_MAY_TOUCHED = 1, FL_MAY_NEAR = 2, FL_MAY_EDITED = 4 };
typedef bool (*fl_pass_may_work_fn)(const fl_graph *g, const uint8_t *mark);
bool fl__model_pruner_may_work(const fl_graph *g, const uint8_t *mark);
bool fl__cse_may_work(const fl_graph *g, const uint8_t *mark);
bool fl__constant_folding_may_work(const fl_graph *g, const uint8_t *mark);
bool fl__shape_optimizer_may_work(const fl_graph *g, const uint8_t *mark);
bool fl__arithmetic_optimizer_may_work(const fl_graph *g, const uint8_t *mark);
bool fl__dependency_optimizer_may_work(const fl_graph *g, const uint8_t *mark);

#endif
