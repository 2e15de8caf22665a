/*
 * pipeline.h - the pass driver: runs Grappler's default pass order over the
 * IR, re-infers shapes and re-counts costs after each pass, and keeps the
 * ledger of what fired.
 *
 *     fl_pipeline_config cfg;
 *     fl__pipeline_config_init(&cfg);          // all passes, 2 iterations
 *     cfg.passes = "constfold,dependency";    // or NULL / "default" / "none"
 *     fl_ledger led;
 *     fl__ledger_init(&led, c->a);
 *     fl_cost_totals after;
 *     st = fl__pipeline_run(c, opt, &cfg, &led, &after);
 *
 * The graph must already be imported, sorted, inferred and costed (as
 * fl_analyze does). What the pass files share is in passes/util.h.
 */
#ifndef FL_PASSES_PIPELINE_H
#define FL_PASSES_PIPELINE_H

#include "foldline/foldline.h"
#include "passes/pass.h"

/* The passes in Grappler's default order; names as on the command line. */
typedef enum fl_pass_id {
    FL_PASS_PRUNING = 0,
    FL_PASS_CSE,
    FL_PASS_QDQ, /* ONNX graphs with Q/DQ nodes only (passes/qdq/) */
    FL_PASS_CONSTFOLD,
    FL_PASS_TRANSPOSE, /* ONNX graphs with a Transpose, first iteration only (passes/transpose/) */
    FL_PASS_SHAPE,
    FL_PASS_ARITHMETIC,
    FL_PASS_REMAP,
    FL_PASS_DEPENDENCY,
    FL_PASS_COUNT
} fl_pass_id;

typedef struct fl_pipeline_config {
    const char *passes;          /* NULL or "default": all; "none": nothing; else "a,b,..." */
    const char *const *disabled; /* pass names switched off */
    size_t n_disabled;
    const char *const *outputs; /* explicit graph outputs; none: nodes without consumers */
    size_t n_outputs;
    fl_pass_options opt; /* device, remapper mode, folding limit, iterations */
    bool verify;         /* fl__graph_verify after every pass (tests, debug builds) */
    /* In: when set, every node is costed already (fl__cost_graph) and these
     * are the totals it gave: the driver does not cost the graph again
     * before the first pass. NULL: the driver costs it. */
    const fl_cost_totals *costed;
    /* Out: when set, the driver appends one entry per pass that failed and
     * was skipped (see fl__pipeline_run); when NULL, each becomes a warning
     * of c->d instead. */
    struct fl_pass_failures *failures;
} fl_pipeline_config;

/* A pass that failed and was skipped: the graph was put back as it was
 * before the pass, and its ledger record (`record`, an index into the
 * ledger's passes) shows no changes. */
typedef struct fl_pass_failure {
    const char *pass;
    int iteration;
    fl_status status;    /* the pass's error */
    const char *message; /* "pass 'arithmetic' failed and was skipped: <error>" */
    const char *why;     /* "<error>" alone */
    size_t record;
} fl_pass_failure;

typedef struct fl_pass_failures {
    fl_pass_failure *items; /* in c's arena */
    size_t n, cap;
} fl_pass_failures;

/* Defaults: all passes, no outputs given, CPU, standard remapper, 100 KiB
 * folding limit, 2 iterations, verification on in debug builds and with
 * FOLDLINE_VERIFY=1 (util/check.h). */
void fl__pipeline_config_init(fl_pipeline_config *cfg);

/* The name of a pass ("pruning", "cse", ...). */
const char *fl__pipeline_pass_name(fl_pass_id id);

/* Resolves cfg->passes and cfg->disabled into on/off flags. FL_EUSAGE (d
 * failed, naming the word) on an unknown pass name. */
fl_status fl__pipeline_select(const fl_pipeline_config *cfg, bool on[FL_PASS_COUNT], fl_diag *d);

/* A ledger whose strings and arrays live in `a`. */
void fl__ledger_init(fl_ledger *l, fl_arena *a);

/* Runs the selected passes over c->g (already inferred and costed with
 * `opt`'s bindings), `cfg->opt.iterations` times. After each pass: compaction,
 * shape inference, costing, a pass record in `led`. On success *after holds
 * the final totals. Fails with FL_EUSAGE on a bad pass or output name.
 *
 * A pass that fails (its own error, or one found after it: a dangling input,
 * a cycle, a failed re-inference or verification, a graph output whose name,
 * count, dtype or shape changed) does not fail the run, as in Grappler's
 * meta-optimizer: the graph is restored to its state before the pass (a
 * journal opened before every pass that runs, graph/snapshot.h), the error is cleared from
 * c->d, the pass gets a record with no changes and an entry in
 * cfg->failures, and the next pass runs. FL_ENOMEM and FL_ECANCELED are not
 * pass failures: they fail the run. The journal's buffers count against
 * the arena's memory limit while a pass runs. */
fl_status fl__pipeline_run(fl_ctx *c, const fl_options *opt, const fl_pipeline_config *cfg,
                           fl_ledger *led, fl_cost_totals *after);

/* Tests only: a function the driver calls right after each pass returned
 * FL_OK, inside the pass's rollback scope (before compaction and
 * re-inference); a status other than FL_OK counts as the pass failing with
 * it (the hook fails pc->c->d itself, or the driver records a generic
 * message). Set per thread, so that a test reaches it through fl_analyze
 * without an option in the public API; NULL (the default) switches it off. */
typedef fl_status (*fl_pipeline_test_hook)(fl_pass_ctx *pc, void *arg);
void fl__pipeline_set_test_hook(fl_pipeline_test_hook fn, void *arg);

#endif
