/*
 * cost.h - per-node FLOP, MAC and byte counts and their totals.
 *
 * FLOPs come from each op's cost hook (src/ops). Bytes follow one rule for
 * every op: bytes read = the sizes of its data inputs, bytes written = the
 * sizes of its outputs (elements x dtype size), with three exceptions set by
 * descriptor flags: ops that move nothing (Const, Placeholder, NoOp:
 * FL_OPF_NO_BYTES), ops whose output aliases their input (Identity, Reshape,
 * Squeeze, ExpandDims, control flow: FL_OPF_ALIAS), and ops that read only
 * metadata (Shape, Size, Rank: FL_OPF_META, which write their output). A
 * stripped constant read by an op counts its full size. Bytes a cost hook
 * sets are added to these: an ONNX If/Loop/Scan's hook sets the bytes its
 * bodies move (src/ops/onnxops/control.c).
 */
#ifndef FL_COST_COST_H
#define FL_COST_COST_H

#include "graph/snapshot.h"
#include "ops/ops.h"

#define FL_COST_N_SUMS 7

typedef struct fl_cost_totals {
    fl_sym flops, tfprof_flops, macs, bytes_read, bytes_written;
    fl_sym int_ops;            /* integer operations of quantized ops (fl_cost.int_ops) */
    fl_sym bytes_without_rule; /* bytes moved by nodes without a FLOP rule */
    int64_t nodes_with_rule, nodes_without_rule, nodes_incomplete;
    /* Of nodes_incomplete, the loops whose trip count is unknown
     * (fl_cost.trips_unknown): their counts are in the sums. */
    int64_t nodes_trips_unknown;
    /* Of all nodes, those that hold values rather than compute: Placeholder,
     * Const with op "Const" (a TensorFlow constant, an ONNX initializer, a
     * folded constant) and ONNX's absent-input marker. The report counts
     * ONNX nodes as ONNX does, operators only: the other counts minus these. */
    int64_t nodes_values;
    /* What fl__cost_graph_update brings up to date by differences: per sum
     * (flops, tfprof_flops, macs, int_ops, bytes_read, bytes_written,
     * bytes_without_rule), the nodes whose count is unknown (the sum is
     * unknown while there is one) and the sum of the others' counts. A bit
     * of parts_bad: that sum overflowed after an unknown count (the sum
     * node by node stops at the first unknown: the total is unknown and no
     * error), so it is not known. */
    int64_t n_unknown[FL_COST_N_SUMS];
    fl_sym part[FL_COST_N_SUMS];
    unsigned parts_bad;
} fl_cost_totals;

/* A node that holds a value rather than computing (see nodes_values): a
 * Placeholder, an absent ONNX input or a "Const" (an ONNX Constant, of kind
 * Const too, is an operator). Asked of every node in each sum and in the
 * report: inline, the op's text compared by its characters (a call to
 * strcmp each time cost more than the test itself). */
static inline bool fl__cost_is_value_node(const fl_node *n) {
    const char *o = n->op;
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_ONNX_ABSENT ||
           (n->kind == FL_OP_CONST && o[0] == 'C' && o[1] == 'o' && o[2] == 'n' && o[3] == 's' &&
            o[4] == 't' && o[5] == '\0');
}

/* Fills n->cost for every node and sums the totals over nodes whose counts are
 * complete. Fails only on overflow or OOM (with c->d naming the node). */
fl_status fl__cost_graph(fl_ctx *c, fl_cost_totals *t);

/* After fl__cost_graph: one warning per v1 cond (Switch nodes sharing a
 * predicate that is not a loop's) stating what each branch costs; the totals
 * count both branches (cond.c states the rule). */
fl_status fl__cost_conds(fl_ctx *c);

/* Called by fl__cost_conds: one warning per While counted from its limit's
 * inferred value (attr _trip_form, cost.c) stating the count, or that it is
 * unknown and the loop counted once. */
fl_status fl__cost_loop_warnings(fl_ctx *c);

/* As fl__cost_graph, but only the nodes whose recost[id] is set get their
 * counts computed again (recost NULL: all); the others keep n->cost. The
 * totals sum every node. */
fl_status fl__cost_graph_some(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost);

/* After a rewrite, with `before` the journal opened on the graph
 * (graph/snapshot.h) when *t held its totals: costs again the nodes whose
 * recost[id] is set, as fl__cost_graph_some, and brings *t up to date by
 * the difference alone: the counts of the nodes the journal saved or that
 * the graph no longer holds, as they were, taken away; those of the nodes
 * saved or added since, as they are now, added. A node that is neither
 * saved nor added nor removed has the op and counts it had, so the totals
 * are those fl__cost_graph_some would sum, exactly (polynomials in the
 * graph's symbols are added and taken away exactly; unknown counts are
 * counted). Where that does not apply (no journal, one that is not
 * complete, a sum that overflows, a re-costed node the journal did not
 * save) every node's counts are summed again. */
fl_status fl__cost_graph_update(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost,
                                const fl_graph_snapshot *before);

#endif
