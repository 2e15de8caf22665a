/*
 * subgraph.c - the remapper's subgraph matcher (utils::SubGraphMatcher
 * <kFollowInputs>), used by the GRU and Gelu-op rules: an op-type pattern
 * matched by following inputs from a root, then the safety test of the
 * nodes to remove.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The rules below are written, as in remapper.cc, as op-type patterns
 * matched by the generic matcher of grappler/utils/pattern_utils.cc. Its
 * semantics, reproduced here:
 *  - a pattern node matches a graph node of its op type (PAT_ANY: any);
 *    a node that is not kRemain must have no control input
 *    or control use;
 *  - a label names one node: a label met again must be the same node;
 *  - a pattern node with inputs requires exactly that many data inputs and
 *    matches them in order, output ports ignored; for a commutative op (Add,
 *    AddV2, Mul, Maximum, SquaredDifference) with two inputs the pattern's
 *    inputs are swapped when a one-level look at the graph's input op types
 *    says so (input 0's op fits pattern input 1 but not 0, or input 1's op
 *    fits pattern input 0 but not 1); no backtracking;
 *  - after the match, every kRemove node must be outside the preserve set and
 *    have no data use outside the matched nodes (IsSafeNodesToRemove).
 * A node removed by an earlier rewrite of this run, or added by one, does not
 * take part (their uses are not in the use lists). */
/* Whether a node of kind `kind` fits pattern op `op`. */
static bool pat_op_is(fl_op_kind op, int kind) {
    return op == PAT_ANY || (int)op == kind;
}

static bool pat_commutative(fl_op_kind op) {
    static const fl_op_kind ops[] = {FL_OP_ADD, FL_OP_ADD_V2, FL_OP_MUL, FL_OP_MAXIMUM,
                                     FL_OP_SQUARED_DIFFERENCE};
    return op != PAT_ANY && fl__kind_in(op, ops, sizeof ops / sizeof ops[0]);
}

fl_node *fl__rm_pm_get(const pmatch *m, const char *label) {
    for (int i = 0; i < m->n_labels; i++) {
        if (strcmp(m->label[i], label) == 0) {
            return m->node[i];
        }
    }
    return NULL;
}

static bool pm_has_node(const pmatch *m, const fl_node *n) {
    for (int i = 0; i < m->n_labels; i++) {
        if (m->node[i] == n) {
            return true;
        }
    }
    return false;
}

static bool pm_match(const rctx *r, const pat *p, fl_node *n, pmatch *m) {
    if (!n || fl__rm_is_removed(n) || (p->status != P_REMAIN && fl__rm_has_ctrl(r, n)) ||
        !pat_op_is(p->op, n->kind)) {
        return false;
    }
    fl_node *bound = fl__rm_pm_get(m, p->label);
    if (!bound) {
        if (m->n_labels == PM_MAX) {
            return false;
        }
        m->label[m->n_labels] = p->label;
        m->node[m->n_labels++] = n;
        if (p->status == P_REMOVE) {
            bool seen = false;
            for (int i = 0; i < m->n_removed && !seen; i++) {
                seen = m->removed[i] == n;
            }
            if (!seen) {
                m->removed[m->n_removed++] = n;
            }
        }
    } else if (bound != n) {
        return false;
    }
    if (p->n_in == 0) {
        return true;
    }
    if (n->n_inputs != p->n_in) {
        return false;
    }
    int first = 0;
    if (p->n_in == 2 && pat_commutative(p->op)) {
        int g0 = fl__rm_in_node(n, 0)->kind, g1 = fl__rm_in_node(n, 1)->kind;
        if ((!pat_op_is(p->in[0]->op, g0) && pat_op_is(p->in[1]->op, g0)) ||
            (!pat_op_is(p->in[1]->op, g1) && pat_op_is(p->in[0]->op, g1))) {
            first = 1;
        }
    }
    for (int i = 0; i < p->n_in; i++) {
        const pat *child = p->in[p->n_in == 2 ? (i + first) % 2 : i];
        if (!pm_match(r, child, fl__rm_in_node(n, i), m)) {
            return false;
        }
    }
    return true;
}

bool fl__rm_pm_run(const rctx *r, const pat *p, fl_node *root, pmatch *m) {
    memset(m, 0, sizeof *m);
    if (!pm_match(r, p, root, m)) {
        return false;
    }
    for (int i = 0; i < m->n_removed; i++) {
        const fl_node *n = m->removed[i];
        if (fl__preserved(n) || n->id >= r->n0) {
            return false;
        }
        for (int port = 0; port < n->n_outputs; port++) {
            size_t k;
            const fl_use *u = fl__uses_of(&r->uses, n, port, &k);
            for (size_t j = 0; j < k; j++) {
                if (!pm_has_node(m, u[j].node)) {
                    return false;
                }
            }
        }
    }
    return true;
}
