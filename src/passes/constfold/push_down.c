/*
 * push_down.c - constant folding's ConstantPushDown, ConstantPushDownBiasAdd
 * and MulConvPushDown (constant_folding.cc, SimplifyNode).
 *  - ConstantPushDown: Add/AddV2/Sub/Mul/Div trees with sign tracking;
 *    Sub/Div only for float/complex; not bf16/half; child single-use, not
 *    preserved; same devices; the constant not larger than the leaf.
 *  - ConstantPushDownBiasAdd: the same over BiasAdd and Add/AddV2 parents
 *    and children, one of the child's operands a vector.
 *  - MulConvPushDown: the conv takes the Mul's name, the Mul becomes
 *    <conv>/merged_input on the filter; Mul or MulNoNan; the constant's
 *    shape as IsValidConstShapeForMulConvPushDown accepts.
 * A pushed-down child or the Mul on the filter whose inputs are all
 * constants is folded at once.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

typedef struct push_down {
    fl_node *op_child, *const_child, *left_leaf, *right_leaf;
    bool left_child_const, left_leaf_const, right_leaf_const;
} push_down;

/* PrepareConstantPushDown: parent(C, op_child(leaf, leaf)) with exactly one
 * constant child... The op child's single use (Grappler's NumNonControlOutputs
 * == 1) is left to the callers, after their tests of its kind: counting uses
 * walks the graph, so testing it first made the pass quadratic on a long
 * chain of nodes the rules never apply to... */
static bool prepare_push_down(const fl_node *parent, push_down *x) {
    if (parent->n_inputs != 2) {
        return false;
    }
    fl_node *l = parent->inputs[0].node, *r = parent->inputs[1].node;
    bool lc = fl__is_const(l), rc = fl__is_const(r);
    if (!lc && !rc) {
        return false;
    }
    x->left_child_const = lc;
    x->op_child = lc ? r : l;
    x->const_child = lc ? l : r;
    if (!fl__same_device(parent, x->op_child) || !fl__same_device(parent, x->const_child)) {
        return false;
    }
    fl_node *c = x->op_child;
    if (c->n_inputs < 2 || fl__preserved(c)) {
        return false;
    }
    int t = fl__attr_type(parent, "T");
    if (t == FL_DT_INVALID || t == FL_DT_BFLOAT16 || t == FL_DT_HALF) {
        return false;
    }
    if (fl__has_ctrl_input(x->const_child, c)) {
        return false; /* the swap would close a cycle */
    }
    x->left_leaf = c->inputs[0].node;
    x->right_leaf = c->inputs[1].node;
    x->left_leaf_const = fl__is_const(x->left_leaf);
    x->right_leaf_const = fl__is_const(x->right_leaf);
    if (x->left_leaf_const && x->right_leaf_const) {
        return false; /* the child folds by itself */
    }
    return fl__same_device(parent, x->left_leaf) && fl__same_device(parent, x->right_leaf);
}

/* Dim of s as Grappler sees it: the size, or -1 when not a known number. */
static int64_t gdim(const fl_shape *s, int i) {
    return fl_sym_is_known(s->dims[i]) ? s->dims[i].k : -1;
}

bool fl__cf_constant_push_down_kinds(const fl_node *n) {
    /* Add and AddV2 (fl__is_add tests Add's T itself), Mul, Sub, Div */
    return n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_MUL ||
           n->kind == FL_OP_SUB || n->kind == FL_OP_DIV;
}

fl_status fl__cf_constant_push_down(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_constant_push_down_kinds(n)) {
        return FL_OK;
    }
    bool is_add = fl__is_add(n), is_mul = n->kind == FL_OP_MUL, is_sub = n->kind == FL_OP_SUB,
         is_div = n->kind == FL_OP_DIV;
    if (!is_add && !is_mul && !is_sub && !is_div) {
        return FL_OK;
    }
    bool sym = is_add || is_mul;
    push_down x;
    if (!prepare_push_down(n, &x)) {
        return FL_OK;
    }
    fl_node *c = x.op_child;
    bool c_add = fl__is_add(c), c_mul = c->kind == FL_OP_MUL, c_sub = c->kind == FL_OP_SUB,
         c_div = c->kind == FL_OP_DIV;
    bool add_sub = (is_add || is_sub) && (c_add || c_sub);
    bool mul_div = (is_mul || is_div) && (c_mul || c_div);
    if ((!add_sub && !mul_div) || fl__cf_data_uses(pc->c->g, c) > 1) {
        return FL_OK;
    }
    bool c_sym = c_add || c_mul;
    if (!(sym && c_sym) && !fl__cf_float_or_complex(fl__attr_type(n, "T"))) {
        return FL_OK;
    }
    /* The constant must not be larger than the leaf it trades places with
     * (checked against the shape Grappler reads, see the file header). */
    const fl_node *y_node = x.left_leaf_const ? x.left_leaf : x.right_leaf;
    if (!fl__is_const(y_node)) {
        const fl_shape *cs = &fl_node_in(n, x.left_child_const ? 0 : 1)->shape;
        const fl_shape *xs = &fl_node_in(c, x.left_leaf_const ? 0 : 1)->shape;
        if (fl__shape_is_concrete(cs) && fl__shape_is_concrete(xs)) {
            uint64_t ce = 1, xe = 1;
            for (int i = 0; i < cs->rank; i++) {
                ce *= (uint64_t)cs->dims[i].k;
            }
            for (int i = 0; i < xs->rank; i++) {
                xe *= (uint64_t)xs->dims[i].k;
            }
            if (ce > xe) {
                return FL_OK;
            }
        } else if (cs->rank > 0 && xs->rank >= 0) {
            for (int i = 0; i < cs->rank && i < xs->rank; i++) {
                if (gdim(xs, i) >= 0 && gdim(cs, i) > gdim(xs, i)) {
                    return FL_OK;
                }
            }
        }
    }
    int xi = x.left_leaf_const ? 1 : 0;
    fl_input in_x = c->inputs[xi], in_y = c->inputs[1 - xi];
    fl_input in_c = n->inputs[x.left_child_const ? 0 : 1];
    fl_input in_op = n->inputs[x.left_child_const ? 1 : 0];
    fl__ledger_note(pc, "ConstantPushDown", n,
                    "%s(%s, %s) with constant '%s' -> constant pushed into '%s'", n->op,
                    n->inputs[0].node->name, n->inputs[1].node->name, x.const_child->name, c->name);
    if (sym && c_sym) {
        fl__node_set_input(pc->c->g, n, 0, in_x);
        fl__node_set_input(pc->c->g, n, 1, in_op);
        fl__node_set_input(pc->c->g, c, 0, in_c);
        fl__node_set_input(pc->c->g, c, 1, in_y);
    } else {
        bool child_neg = !sym && x.left_child_const;
        bool neg_c = !sym && !x.left_child_const;
        bool neg_x = (!c_sym && x.left_leaf_const) != child_neg;
        bool neg_y = (!c_sym && !x.left_leaf_const) != child_neg;
        const char *sym_op = is_add || is_sub ? fl__op_name(FL_OP_ADD) : fl__op_name(FL_OP_MUL);
        const char *nonsym_op = is_add || is_sub ? fl__op_name(FL_OP_SUB) : fl__op_name(FL_OP_DIV);
        fl__node_become(pc->c->g, n, neg_x || (neg_c && neg_y) ? nonsym_op : sym_op);
        fl__node_set_input(pc->c->g, n, 0, neg_x ? in_op : in_x);
        fl__node_set_input(pc->c->g, n, 1, neg_x ? in_x : in_op);
        fl__node_become(pc->c->g, c, neg_c != neg_y ? nonsym_op : sym_op);
        fl__node_set_input(pc->c->g, c, 0, neg_c ? in_y : in_c);
        fl__node_set_input(pc->c->g, c, 1, neg_c ? in_c : in_y);
    }
    n->src = NULL;
    c->src = NULL;
    pc->c->g->order = NULL;
    pc->rewritten += 2;
    *done = true;
    return fl__cf_settle(pc, c);
}

bool fl__cf_constant_push_down_bias_add_kinds(const fl_node *n) {
    /* BiasAdd, and Add and AddV2 (fl__is_add tests Add's T itself) */
    return n->kind == FL_OP_BIAS_ADD || n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2;
}

fl_status fl__cf_constant_push_down_bias_add(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_constant_push_down_bias_add_kinds(n)) {
        return FL_OK;
    }
    bool parent_bias = n->kind == FL_OP_BIAS_ADD;
    if (!parent_bias && !fl__is_add(n)) {
        return FL_OK;
    }
    push_down x;
    if (!prepare_push_down(n, &x) || (x.left_child_const && parent_bias)) {
        return FL_OK;
    }
    fl_node *c = x.op_child;
    bool child_bias = c->kind == FL_OP_BIAS_ADD;
    if ((!child_bias && !fl__is_add(c)) || fl__cf_data_uses(pc->c->g, c) > 1) {
        return FL_OK;
    }
    const fl_tensor *p0 = fl_node_in(n, 0), *p1 = fl_node_in(n, 1);
    const fl_tensor *c0 = fl_node_in(c, 0), *c1 = fl_node_in(c, 1);
    if (p0->shape.rank < 0 || p1->shape.rank < 0 || c0->shape.rank < 0 || c1->shape.rank < 0) {
        return FL_OK;
    }
    if (c0->shape.rank != 1 && c1->shape.rank != 1) {
        return FL_OK;
    }
    int vec = c0->shape.rank == 1 ? 0 : 1, mat = 1 - vec;
    const fl_tensor *vt = fl_node_in(c, vec), *mt = fl_node_in(c, mat);
    int ci = x.left_child_const ? 0 : 1;
    const fl_tensor *ct = fl_node_in(n, ci);
    int swap = -1;
    if (!parent_bias && child_bias && ct->shape.rank == mt->shape.rank && ct->dtype == mt->dtype) {
        swap = mat;
    } else if (ct->shape.rank == 1 && ct->dtype == vt->dtype) {
        swap = vec;
    }
    if (swap < 0 || fl__is_const(c->inputs[swap].node)) {
        return FL_OK;
    }
    fl__ledger_note(pc, "ConstantPushDownBiasAdd", n, "constant '%s' swapped with '%s' of '%s'",
                    x.const_child->name, c->inputs[swap].node->name, c->name);
    fl_input t = n->inputs[ci];
    fl__node_set_input(pc->c->g, n, ci, c->inputs[swap]);
    fl__node_set_input(pc->c->g, c, swap, t);
    n->src = NULL;
    c->src = NULL;
    pc->c->g->order = NULL;
    pc->rewritten += 2;
    *done = true;
    return fl__cf_settle(pc, c);
}

/* IsValidConstShapeForMulConvPushDown. */
static bool mul_conv_const_ok(const char *fmt, const fl_shape *filter, const fl_shape *cs) {
    if (!fl__shape_is_concrete(cs)) {
        return false;
    }
    int64_t ne = 1;
    for (int i = 0; i < cs->rank; i++) {
        ne *= cs->dims[i].k;
    }
    if (cs->rank <= (int)strlen(fmt) && ne == 1) {
        return true;
    }
    if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NDHWC") != 0) {
        return false;
    }
    /* Broadcasting the constant onto the filter must leave the filter's
     * shape, and only the last (output channel) dim may exceed 1. */
    if (!fl__shape_is_concrete(filter) || cs->rank > filter->rank) {
        return false;
    }
    for (int i = 0; i < cs->rank; i++) {
        int64_t c = cs->dims[i].k, f = filter->dims[filter->rank - cs->rank + i].k;
        if (c != f && c != 1) {
            return false;
        }
        if (i < cs->rank - 1 && c > 1) {
            return false;
        }
    }
    return true;
}

bool fl__cf_mul_conv_push_down_kinds(const fl_node *n) {
    return n->kind == FL_OP_MUL || n->kind == FL_OP_MUL_NO_NAN;
}

fl_status fl__cf_mul_conv_push_down(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_mul_conv_push_down_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if ((n->kind != FL_OP_MUL && n->kind != FL_OP_MUL_NO_NAN) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *l = n->inputs[0].node, *r = n->inputs[1].node;
    bool lc = fl__is_const(l), rc = fl__is_const(r);
    if (!lc && !rc) {
        return FL_OK;
    }
    fl_node *conv = lc ? r : l, *cst = lc ? l : r;
    if ((conv->kind != FL_OP_CONV2D && conv->kind != FL_OP_CONV3D) || !fl__same_device(n, l) ||
        !fl__same_device(n, r)) {
        return FL_OK;
    }
    if (conv->n_inputs < 2 || fl__preserved(conv)) {
        return FL_OK;
    }
    bool cl = fl__is_const(conv->inputs[0].node), cr = fl__is_const(conv->inputs[1].node);
    if (cl == cr || fl__cf_data_uses(g, conv) > 1) {
        return FL_OK; /* no constant operand, or the conv folds by itself */
    }
    if (!fl__shape_same(&n->outputs[0].shape, &conv->outputs[0].shape)) {
        return FL_OK;
    }
    const char *fmt = "NHWC";
    const fl_attr *df = fl__node_attr(conv, "data_format");
    if (df && df->kind == FL_ATTR_S) {
        fmt = df->v.s.p;
    }
    if (!mul_conv_const_ok(fmt, &fl_node_in(conv, 1)->shape, &fl_node_in(n, lc ? 0 : 1)->shape)) {
        return FL_OK;
    }
    const char *new_name = fl__arena_printf(pc->c->a, "%s/merged_input", conv->name);
    if (!new_name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, new_name)) {
        return FL_OK;
    }
    int ci = cl ? 0 : 1;
    fl_input wc = conv->inputs[ci];
    if (fl__has_ctrl_input(cst, conv)) {
        fl__cf_drop_ctrl(pc->c->g, cst, conv);
        if (fl__node_add_ctrl(g, cst, wc.node) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    fl__ledger_note(pc, "MulConvPushDown", n, "%s(%s, '%s') -> %s with filter %s(%s, '%s')", n->op,
                    conv->op, cst->name, conv->op, n->op, wc.node->name, cst->name);
    /* The conv takes the Mul's place: its consumers, its name, its role as
     * an output. */
    const char *mul_name = n->name;
    fl__graph_replace_uses(g, n, 0, conv, 0);
    fl__graph_replace_ctrl_uses(g, n, conv);
    if (fl__graph_rename(g, n, new_name, pc->c->d) != FL_OK ||
        fl__graph_rename(g, conv, mul_name, pc->c->d) != FL_OK) {
        return pc->c->d->status;
    }
    if (fl__preserved(n)) {
        n->flags &= ~(uint32_t)FL_NODE_PRESERVE;
        conv->flags |= FL_NODE_PRESERVE;
    }
    fl__node_set_input(g, conv, ci, (fl_input){n, 0});
    fl__node_set_input(g, n, lc ? 1 : 0, wc);
    n->src = NULL;
    conv->src = NULL;
    g->order = NULL;
    conv->outputs[0].n_consumers = n->outputs[0].n_consumers;
    n->outputs[0].n_consumers = 1;
    pc->rewritten += 2;
    *done = true;
    return fl__cf_settle(pc, n);
}
