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
 * fl_analyze does). The helpers named fl__* are shared by the pass files only.
 */
#ifndef FL_PASSES_PIPELINE_H
#define FL_PASSES_PIPELINE_H

#include "foldline/foldline.h"
#include "passes/pass.h"

/* The passes in Grappler's default order; names as on the command line. */
typedef enum fl_pass_id {
    FL_PASS_PRUNING = 0,
    FL_PASS_CSE,
    FL_PASS_CONSTFOLD,
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
 * snapshot taken before every pass that runs), the error is cleared from
 * c->d, the pass gets a record with no changes and an entry in
 * cfg->failures, and the next pass runs. FL_ENOMEM and FL_ECANCELED are not
 * pass failures: they fail the run. The snapshot's buffers count against
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

/* ---- helpers shared by the pass files ---- */

/* True when n is a graph output or feed (FL_NODE_PRESERVE). */
static inline bool fl__preserved(const fl_node *n) {
    return (n->flags & FL_NODE_PRESERVE) != 0;
}

/* Turns n into an op of type `op` in place (name, inputs and outputs kept;
 * attrs untouched): sets op, kind and descriptor. */
void fl__node_become(fl_graph *g, fl_node *n, const char *op);

/* Grappler's ConstantFolding::AddControlDependency: the node a control
 * edge replacing data input `in` must come from. Normally in.node itself.
 * For an output of a Switch/RefSwitch, only one of whose outputs is alive,
 * a control edge on the Switch would fire on both branches: the Identity
 * ConstantFoldingCtrl/<switch>_<port> reading that port instead, created on
 * first use (the Switch's device, T = the Switch's T, else the port's base
 * dtype; shapes inferred) and reused after (a removed node of that name
 * gives the Switch itself). NULL on OOM, with pc->c->d failed. Constant
 * folding uses it where Grappler does (its header lists where), and the
 * dependency optimizer when it turns a node into a NoOp. */
fl_node *fl__ctrl_anchor(fl_pass_ctx *pc, fl_input in);

/* Adds fl__ctrl_anchor(pc, in) as a control input of n (fl__node_add_ctrl:
 * no duplicates). */
fl_status fl__add_ctrl_anchor(fl_pass_ctx *pc, fl_node *n, fl_input in);

/* Rewrites n in place into a Const holding `v` (or a stripped constant of
 * n's output dtype and shape when v is NULL, with _stripped_content_bytes):
 * data inputs become plain control inputs when keep_inputs_as_ctrl, else
 * they are dropped. n must have one output of known dtype and fully known
 * shape. */
fl_status fl__node_make_const(fl_pass_ctx *pc, fl_node *n, const fl_value *v,
                              bool keep_inputs_as_ctrl);

/* fl__node_make_const keeping the data inputs as control inputs through
 * their anchors (fl__ctrl_anchor), in input order: Grappler's
 * ReplaceOperationWithConstantTensor. */
fl_status fl__node_make_const_anchored(fl_pass_ctx *pc, fl_node *n, const fl_value *v);

/* Rewrites n in place into Identity(n's data input `keep`); its other data
 * inputs become control inputs through their anchors (fl__ctrl_anchor), in
 * input order; attrs become {T}. Grappler's ReplaceOperationWithIdentity. */
fl_status fl__node_make_identity(fl_pass_ctx *pc, fl_node *n, int keep);

/* True when both shapes have the same known rank and every dim is known or
 * symbolic and equal. */
bool fl__shape_same(const fl_shape *a, const fl_shape *b);

/* A node's device type, as TensorFlow's DeviceNameUtils reads it: the
 * component after "device:" (or the last "/"-separated one, legacy
 * "/cpu:0"), up to its ':'. An empty device string is the pass target. */
typedef enum fl_dev_type { FL_DEV_CPU, FL_DEV_GPU, FL_DEV_OTHER } fl_dev_type;
fl_dev_type fl__node_device(const fl_node *n, fl_device target);

/* Follows `fwd` (indexed by node id; node NULL = not forwarded) to the final
 * producer of an input. */
fl_input fl__resolve(const fl_input *fwd, fl_input in);

/* Calls n's infer hook, then its eval hook when every input has a value.
 * Used on nodes a pass creates whose inputs are constants. */
fl_status fl__infer_node(fl_pass_ctx *pc, fl_node *n);

/* Which nodes have consumers now (indexed by id; g->n_nodes entries), for
 * fl__remove_dead. */
bool *fl__consumed_snapshot(fl_pass_ctx *pc);

/* Removes the nodes the pass left without consumers: live, not preserved,
 * consumed in `snap`, free of side effects (registered, not stateful, not
 * control flow); then, transitively, their producers that end up the same
 * way. Each removal is noted under `rule`. */
fl_status fl__remove_dead(fl_pass_ctx *pc, const bool *snap, size_t n_snap, const char *rule);

#endif
