/*
 * add_ops.c - the arithmetic optimizer's AddOpsRewrite (stage 1), run from
 * tree roots in the reverse sweep.
 *  - combine_add_to_addn (AddOpsRewrite, 1): a tree of Add/AddV2/AddN nodes
 *    (not preserved, no control edges, members read once, every node's
 *    inputs broadcastable to its symbolically known shape) -> one AddN of
 *    the leaves per distinct input shape ("AddOpsRewrite_Leaf_<i>_<root>")
 *    and a chain of AddV2 combining them smallest first
 *    ("AddOpsRewrite_Internal_<i>_<root>"), rooted at "AddOpsRewrite_<root>".
 *    All members are tagged _grappler_ArithmeticOptimizer_AddOpsRewriteStage.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool add_can_optimize(const ao *a, const fl_node *n) {
    if (!fl__is_add(n) && n->kind != FL_OP_ADD_N) {
        return false;
    }
    if (fl__preserved(n) || (n->flags & FL_NODE_REMOVED) || fl__node_attr(n, ADD_OPS_TAG)) {
        return false;
    }
    return n->n_ctrl == 0 && a->ctrl_uses[n->id] == 0 && n->n_outputs == 1;
}

bool fl__ao_inputs_bcast_to(const fl_node *n) {
    const fl_shape *s = &n->outputs[0].shape;
    for (int k = 0; k < n->n_inputs; k++) {
        if (!fl__ao_bcastable(s, &fl_node_in(n, k)->shape)) {
            return false;
        }
    }
    return true;
}

static bool add_absorbable(const ao *a, const fl_node *root, const fl_node *n) {
    if (!add_can_optimize(a, n)) {
        return false;
    }
    return fl__same_device(root, n) && a->uses[n->id] == 1 && fl__ao_inputs_bcast_to(n);
}

add_group *fl__ao_group_reset(ao *a) {
    a->grp.n_members = 0;
    a->grp.n_inputs = 0;
    return &a->grp;
}

fl_status fl__ao_group_push(ao *a, void **arr, size_t *n, size_t *cap, size_t elem, const void *x) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *p = fl__arena_grow(a->pc->c->a, *arr, *cap, nc, elem);
        if (!p) {
            return fl__ao_oom(a);
        }
        *arr = p;
        *cap = nc;
    }
    memcpy((char *)*arr + *n * elem, x, elem);
    (*n)++;
    return FL_OK;
}

/* Depth-first, left to right: fl__ao_absorbable nodes join the group, anything else
 * is a leaf input. */
static fl_status add_absorb(ao *a, const fl_node *root, fl_input in, add_group *gr, int depth) {
    fl_node *m = in.node;
    if (depth < 10000 && add_absorbable(a, root, m)) {
        fl_status st = fl__ao_group_push(a, (void **)&gr->members, &gr->n_members, &gr->cap_members,
                                         sizeof(fl_node *), &m);
        for (int k = 0; k < m->n_inputs && st == FL_OK; k++) {
            st = add_absorb(a, root, m->inputs[k], gr, depth + 1);
        }
        return st;
    }
    return fl__ao_group_push(a, (void **)&gr->inputs, &gr->n_inputs, &gr->cap_inputs,
                             sizeof(fl_input), &in);
}

static fl_status tag(ao *a, fl_node *n) {
    return fl__ao_set_attr(a, n, fl__attr_make_bool(a->g, ADD_OPS_TAG, true));
}

/* Add, AddV2 (fl__is_add tests Add's T itself) and AddN. */
bool fl__ao_add_ops_rewrite_kinds(const fl_node *n) {
    return n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_ADD_N;
}

fl_status fl__ao_add_ops_rewrite(ao *a, fl_node *root, bool *fired) {
    if (!fl__ao_add_ops_rewrite_kinds(root) || !add_can_optimize(a, root) ||
        !fl__shape_is_determined(&root->outputs[0].shape) || !fl__ao_inputs_bcast_to(root)) {
        return FL_OK;
    }
    add_group *gr = fl__ao_group_reset(a);
    fl_status st = FL_OK;
    for (int k = 0; k < root->n_inputs && st == FL_OK; k++) {
        st = add_absorb(a, root, root->inputs[k], gr, 0);
    }
    if (st != FL_OK || gr->n_members == 0) {
        return st;
    }
    int dt = fl__attr_type(root, "T");
    if (dt == FL_DT_INVALID) {
        return FL_OK;
    }
    /* Distinct shapes in order of first appearance, then sorted smallest
     * first (stable). */
    size_t ni = gr->n_inputs;
    int *sig = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(int));
    size_t *order = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(size_t));
    fl_input *leaf_in = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(fl_input));
    if (!sig || !order || !leaf_in) {
        return fl__ao_oom(a);
    }
    size_t n_sig = 0;
    for (size_t i = 0; i < ni; i++) {
        const fl_shape *s = &gr->inputs[i].node->outputs[gr->inputs[i].port].shape;
        size_t j = 0;
        for (; j < n_sig; j++) {
            const fl_shape *r =
                &gr->inputs[order[j]].node->outputs[gr->inputs[order[j]].port].shape;
            if (fl__ao_same_sig(s, r)) {
                break;
            }
        }
        if (j == n_sig) {
            order[n_sig++] = i;
        }
        sig[i] = (int)j;
    }
    /* sort representative indices: insertion sort, stable */
    size_t *rank_of = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    size_t *sorted = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    if (!rank_of || !sorted) {
        return fl__ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        sorted[j] = j;
    }
    for (size_t j = 1; j < n_sig; j++) {
        size_t x = sorted[j], p = j;
        const fl_input *xi = &gr->inputs[order[x]];
        while (p > 0) {
            const fl_input *yi = &gr->inputs[order[sorted[p - 1]]];
            if (!fl__ao_smaller(&xi->node->outputs[xi->port].shape,
                                &yi->node->outputs[yi->port].shape)) {
                break;
            }
            sorted[p] = sorted[p - 1];
            p--;
        }
        sorted[p] = x;
    }
    fl__ledger_note(a->pc, "combine_add_to_addn", root,
                    "%zu Add/AddN nodes over %zu inputs (%zu shapes) -> AddN", gr->n_members + 1,
                    ni, n_sig);
    fl_input result = {NULL, 0};
    fl_input *leaves = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(fl_input));
    if (!leaves) {
        return fl__ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        size_t s = sorted[j], cnt = 0;
        for (size_t i = 0; i < ni; i++) {
            if ((size_t)sig[i] == s) {
                leaf_in[cnt++] = gr->inputs[i];
            }
        }
        if (cnt == 1) {
            leaves[j] = leaf_in[0];
            continue;
        }
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Leaf_%zu", j);
        const char *nm = fl__ao_opt_name(a, root->name, n_sig == 1 ? "AddOpsRewrite" : pre);
        fl_node *addn =
            fl__ao_add(a, nm, fl__op_name(FL_OP_ADD_N), root->device, (int)cnt, leaf_in);
        if (!addn || fl__ao_set_attr(a, addn, fl__attr_make_type(a->g, "T", dt)) != FL_OK ||
            fl__ao_set_attr(a, addn, fl__attr_make_int(a->g, "N", (int64_t)cnt)) != FL_OK ||
            tag(a, addn) != FL_OK) {
            return fl__ao_oom(a);
        }
        leaves[j] = (fl_input){addn, 0};
    }
    /* left-deep chain of AddV2, smallest shapes first */
    result = leaves[0];
    for (size_t j = 1; j < n_sig; j++) {
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Internal_%zu", j - 1);
        const char *nm = fl__ao_opt_name(a, root->name, j + 1 == n_sig ? "AddOpsRewrite" : pre);
        fl_input in[2] = {result, leaves[j]};
        fl_node *add = fl__ao_add(a, nm, fl__op_name(FL_OP_ADD_V2), root->device, 2, in);
        if (!add || fl__ao_set_attr(a, add, fl__attr_make_type(a->g, "T", dt)) != FL_OK ||
            tag(a, add) != FL_OK) {
            return fl__ao_oom(a);
        }
        result = (fl_input){add, 0};
    }
    fl__ao_forward(a, root, result);
    for (size_t i = 0; i < gr->n_members; i++) {
        fl__ao_remove(a, gr->members[i]);
    }
    *fired = true;
    return FL_OK;
}
