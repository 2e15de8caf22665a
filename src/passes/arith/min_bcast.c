/*
 * min_bcast.c - the arithmetic optimizer's MinimizeBroadcasts (stage 6), run
 * from tree roots in the reverse sweep after AddOpsRewrite.
 *  - minimize_broadcasts (6): a tree of one binary op (Mul, or Add/AddV2 that
 *    AddOpsRewrite left; members not preserved, not tagged by either stage,
 *    no control edges, read once, same device, inputs broadcastable to the
 *    node's defined shape) with more than one leaf shape: leaves sorted
 *    smallest first (stable), paired front to front into the members (last
 *    member first, the root last; a rebuilt node counts as a scalar, an odd
 *    largest leaf joins the root), in place. Root and members are tagged
 *    _grappler_ArithmeticOptimizer_MinimizeBroadcasts (also when one shape).
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MinimizeBroadcasts (6), in the reverse sweep after AddOpsRewrite. */
#define MIN_BCAST_TAG "_grappler_ArithmeticOptimizer_MinimizeBroadcasts"

static bool min_bcast_tagged(const fl_node *n) {
    return fl__node_attr(n, MIN_BCAST_TAG) || fl__node_attr(n, ADD_OPS_TAG);
}

static bool min_bcast_op(const fl_node *n) {
    return (n->kind == FL_OP_MUL || fl__is_add(n)) && n->n_inputs == 2 && n->n_outputs == 1;
}

static bool min_bcast_absorbable(const ao *a, const fl_node *root, const fl_node *n) {
    return strcmp(n->op, root->op) == 0 && min_bcast_op(n) && !fl__preserved(n) &&
           !(n->flags & FL_NODE_REMOVED) && !min_bcast_tagged(n) && n->n_ctrl == 0 &&
           a->ctrl_uses[n->id] == 0 && fl__same_device(root, n) && a->uses[n->id] == 1 &&
           fl__shape_is_determined(&n->outputs[0].shape) && fl__ao_inputs_bcast_to(n);
}

static fl_status min_bcast_absorb(ao *a, const fl_node *root, fl_input in, add_group *gr,
                                  int depth) {
    fl_node *m = in.node;
    if (depth < 10000 && min_bcast_absorbable(a, root, m)) {
        fl_status st = fl__ao_group_push(a, (void **)&gr->members, &gr->n_members, &gr->cap_members,
                                         sizeof(fl_node *), &m);
        for (int k = 0; k < m->n_inputs && st == FL_OK; k++) {
            st = min_bcast_absorb(a, root, m->inputs[k], gr, depth + 1);
        }
        return st;
    }
    return fl__ao_group_push(a, (void **)&gr->inputs, &gr->n_inputs, &gr->cap_inputs,
                             sizeof(fl_input), &in);
}

typedef struct bcast_item {
    fl_input in;
    const fl_shape *shape; /* a rebuilt node counts as a scalar, as in Grappler */
} bcast_item;

static const fl_shape scalar_shape = {0, NULL};

static void bcast_update(ao *a, fl_node *n, fl_input x, fl_input y) {
    if (n->inputs[0].node != x.node || n->inputs[0].port != x.port || n->inputs[1].node != y.node ||
        n->inputs[1].port != y.port) {
        fl__ao_set_input(a, n, 0, x);
        fl__ao_set_input(a, n, 1, y);
        a->pc->rewritten++;
    }
}

/* Mul, Add and AddV2 (fl__is_add tests Add's T itself). */
bool fl__ao_minimize_broadcasts_kinds(const fl_node *n) {
    return n->kind == FL_OP_MUL || n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2;
}

fl_status fl__ao_minimize_broadcasts(ao *a, fl_node *root, bool *claimed) {
    if (!fl__ao_minimize_broadcasts_kinds(root) || !min_bcast_op(root) || min_bcast_tagged(root) ||
        (root->flags & FL_NODE_REMOVED) || !fl__shape_is_determined(&root->outputs[0].shape) ||
        !fl__ao_inputs_bcast_to(root)) {
        return FL_OK;
    }
    add_group *gr = fl__ao_group_reset(a);
    fl_status st = FL_OK;
    for (int k = 0; k < root->n_inputs && st == FL_OK; k++) {
        st = min_bcast_absorb(a, root, root->inputs[k], gr, 0);
    }
    if (st != FL_OK || gr->n_members == 0) {
        return st;
    }
    st = fl__ao_set_attr(a, root, fl__attr_make_bool(a->g, MIN_BCAST_TAG, true));
    for (size_t i = 0; i < gr->n_members && st == FL_OK; i++) {
        st = fl__ao_set_attr(a, gr->members[i], fl__attr_make_bool(a->g, MIN_BCAST_TAG, true));
    }
    if (st != FL_OK) {
        return st;
    }
    *claimed = true;
    size_t ni = gr->n_inputs;
    bool distinct = false;
    for (size_t i = 1; i < ni; i++) {
        distinct =
            distinct || !fl__ao_same_sig(&gr->inputs[i].node->outputs[gr->inputs[i].port].shape,
                                         &gr->inputs[0].node->outputs[gr->inputs[0].port].shape);
    }
    if (!distinct || ni != gr->n_members + 2) {
        return FL_OK;
    }
    /* a deque of 3 * ni slots, starting in the middle */
    bcast_item *dq = fl__arena_calloc(a->pc->c->a, 3 * ni + 4, sizeof(bcast_item));
    if (!dq) {
        return fl__ao_oom(a);
    }
    size_t head = ni + 2, tail = head;
    for (size_t i = 0; i < ni; i++) {
        bcast_item it = {gr->inputs[i], &gr->inputs[i].node->outputs[gr->inputs[i].port].shape};
        size_t p = tail++;
        while (p > head && fl__ao_smaller(it.shape, dq[p - 1].shape)) { /* stable insertion sort */
            dq[p] = dq[p - 1];
            p--;
        }
        dq[p] = it;
    }
    bcast_item leftover = {{NULL, 0}, NULL};
    if ((tail - head) % 2) {
        leftover = dq[--tail];
    }
    size_t next_member = gr->n_members;
    fl__ledger_note(a->pc, "minimize_broadcasts", root, "%s tree of %zu nodes reordered", root->op,
                    gr->n_members + 1);
    do {
        bcast_item l = dq[head++], r = dq[head++];
        fl_node *node = next_member > 0 ? gr->members[--next_member] : root;
        bcast_update(a, node, l.in, r.in);
        bcast_item up = {{node, 0}, &scalar_shape};
        if (tail - head >= 2 && fl__ao_smaller(dq[head].shape, dq[head + 1].shape)) {
            dq[--head] = up;
        } else {
            dq[tail++] = up;
        }
    } while (tail - head > 1);
    if (leftover.in.node) {
        bcast_update(a, root, dq[head].in, leftover.in);
    }
    return FL_OK;
}
