/*
 * incremental.c - shapes and costs brought up to date after a rewrite,
 * visiting only what it changed; see fl__infer_refresh in infer.h.
 *
 * A node is inferred again when the snapshot taken before the rewrite says
 * it changed (new, or a different op, attrs, inputs or output array), when
 * the rewrite set its outputs itself, or when an input's producer came out
 * of its own re-inference with different outputs. Everything else keeps the
 * dtypes, shapes, values and counts it had: they are functions of the same
 * op, attrs and input tensors, so the whole inference would recompute them
 * equal. The caller costs the re-inferred nodes again
 * (fl__cost_graph_some with the mask this returns).
 *
 * The whole inference is used instead (*done false) when its extra rounds
 * could matter: a graph with loop headers (loop-carried shapes iterate), or
 * symbol bindings (the equation discovery walks), or a changed placeholder
 * (bindings). When re-inference finds two symbols equal, the caller also
 * runs the whole inference, which repeats with the alias at the inputs.
 * The bodies of ONNX If/Loop/Scan nodes are analysed again when what they
 * see changed (fl__refresh_onnx_bodies); when that changes a node's outputs
 * the whole inference runs (it infers the graph again from them).
 */
#include "graph/mutate.h"
#include "graph/snapshot.h"
#include "ops/common.h"
#include "shape/infer.h"

#include <stdlib.h>

/* The whole inference is needed for this graph and these options. */
static bool needs_whole(const fl_graph *g, const fl_options *opt) {
    if (opt->n_symbols) {
        return true;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->flags & FL_NODE_BACK_EDGE) {
            return true;
        }
    }
    return false;
}

/* Sets n's FL_NODE_INCOMPLETE as the whole inference would (an output's
 * shape not determined), writing the flags only where they change (a
 * journal saves the node). */
static void set_incomplete(fl_graph *g, fl_node *n) {
    uint32_t flags = n->flags & ~(uint32_t)FL_NODE_INCOMPLETE;
    for (int k = 0; k < n->n_outputs; k++) {
        if (!fl__shape_is_determined(&n->outputs[k].shape)) {
            flags |= FL_NODE_INCOMPLETE;
            break;
        }
    }
    if (flags != n->flags) {
        fl__graph_journal_save(g, n);
        n->flags = flags;
    }
}

/* A reader whose op says it reads its input tensors only (FL_OPF_READS_TENSORS):
 * with its inputs holding the tensors they held, it is as it was. */
static bool reads_tensors_only(const fl_node *n) {
    return n->desc && (n->desc->flags & FL_OPF_READS_TENSORS);
}

/* Marks in `redo` the nodes the rewrite changed (2: also their outputs).
 * False when a node that makes symbols changed: the whole inference's.
 * Only nodes added or marked edited since the snapshot (graph/mutate.h) are
 * compared with it: every other node is as it was (the pass driver's
 * verifier checks that after every pass), its outputs and so its
 * FL_NODE_INCOMPLETE too; the flag of a marked node that is not to be
 * re-inferred is set here from its outputs (propagate sets the others'). */
static bool changed_nodes(fl_graph *g, const fl_graph_snapshot *before, uint8_t *redo) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->nodes[i];
        if (!fl__graph_snapshot_marked(before, n)) {
            redo[i] = 0;
            continue;
        }
        bool outs;
        bool ch = fl__graph_snapshot_changed(before, n, &outs);
        if ((ch || outs) && fl__infer_makes_symbols(n)) {
            return false;
        }
        redo[i] = ch || outs ? (outs ? 2 : 1) : 0;
        if (!redo[i]) { /* else propagate sets it */
            set_incomplete(g, n);
        }
    }
    return true;
}

/* Re-infers, in topological order, the nodes marked in `redo` and those
 * reading a node whose outputs differ now, and sets their
 * FL_NODE_INCOMPLETE; marks every node inferred in redo (for costing).
 * Stops with *whole set at a node that makes symbols. The bodies' refresh
 * after it changes no outputs (it asks for the whole inference when it
 * does), so no other node's flag can change. */
static fl_status propagate(fl_ctx *c, const fl_graph_snapshot *before, uint8_t *redo,
                           uint8_t *differs, bool *whole) {
    fl_graph *g = c->g;
    /* No node met so far has outputs that differ: none read can (differs[]
     * is set only on nodes met before, in the order), so the inputs are
     * not read (a node's inputs, and each producer, cost a miss apiece on
     * a graph larger than the caches). */
    bool any_differ = false;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->order[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            return c->d->status;
        }
        bool again = redo[n->id] != 0;
        for (int k = 0; k < n->n_inputs && !again && any_differ; k++) {
            again = differs[n->inputs[k].node->id];
        }
        for (int k = 0; k < n->n_ctrl && !again && any_differ; k++) {
            again = differs[n->ctrl[k]->id]; /* deadness passes control edges */
        }
        if (!again) {
            continue;
        }
        if (redo[n->id] == 1 && reads_tensors_only(n) && fl__graph_snapshot_reads_same(before, n)) {
            /* rewired onto a producer with equal outputs (a fused node) */
            redo[n->id] = 0;
            set_incomplete(g, n);
            continue;
        }
        if (fl__infer_makes_symbols(n)) {
            *whole = true;
            return FL_OK;
        }
        fl__graph_journal_save(g, n); /* its outputs, flags and cost are written */
        uint32_t dead = n->flags & FL_NODE_DEADNESS;
        fl_status st = fl__infer_node_again(c, n);
        if (st != FL_OK) {
            return st;
        }
        redo[n->id] = 1;
        differs[n->id] =
            fl__graph_snapshot_outputs_differ(before, n) || (n->flags & FL_NODE_DEADNESS) != dead;
        any_differ = any_differ || differs[n->id];
        set_incomplete(g, n);
    }
    return FL_OK;
}

fl_status fl__infer_refresh(fl_ctx *c, const fl_options *opt, const fl_graph_snapshot *before,
                            uint8_t **redone) {
    fl_graph *g = c->g;
    *redone = NULL;
    if (!before || !before->taken || !before->indexed || needs_whole(g, opt)) {
        return FL_OK;
    }
    size_t n = g->n_nodes;
    uint8_t *redo = calloc(n + 1, 2);
    if (!redo) {
        return fl__diag_oom(c->d);
    }
    uint8_t *differs = redo + n + 1;
    if (!changed_nodes(g, before, redo)) {
        free(redo);
        return FL_OK;
    }
    fl_status st = g->order ? FL_OK : fl__graph_toposort(g, c->d);
    size_t merges = fl__sym_n_merges(c->st);
    bool whole = false;
    if (st == FL_OK) {
        st = propagate(c, before, redo, differs, &whole);
    }
    if (st == FL_OK && !whole) {
        /* ONNX bodies see the outer graph as it is now (bodies.c). */
        st = fl__refresh_onnx_bodies(c, opt, redo, &whole);
    }
    if (st != FL_OK || whole || fl__sym_n_merges(c->st) != merges) {
        free(redo);
        return st; /* new equations: the whole inference (*redone NULL) */
    }
    *redone = redo;
    return FL_OK;
}
