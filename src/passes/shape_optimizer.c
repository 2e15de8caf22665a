/*
 * shape_optimizer.c - Grappler's ShapeOptimizer (grappler/optimizers/shape_optimizer.cc), rule (1).
 *
 * prod_of_shape: Prod(Shape(x), axes) with keep_dims false whose axes (a
 * Const) reduce the whole shape vector -> Size(x) in place, out_type the
 * Prod's T; the axes become a control input. A Shape node nothing else
 * reads is removed. Not applied to preserved nodes.
 *
 * size_ratio (rule 2): integer Div(Size(x), Size(y)) whose symbolic dims
 * cancel one for one (x [N,8,4] over y [N,2]: N over N) -> Const(ratio of
 * the known parts, integer division as TensorFlow's ComputeSizeRatio) in
 * place, its inputs kept as control inputs. It does not fire when a dim or a
 * rank is unknown, when a symbolic dim has no partner, or when the known
 * part of y is 0. Not applied to preserved nodes.
 */
#include "passes/util.h"

#include <inttypes.h>
#include <stdint.h>

/* Whether Prod node n reduces every element of its rank-1 input. */
static bool reduces_all(const fl_node *n) {
    const fl_node *ax = n->inputs[1].node;
    const fl_value *v = fl_node_in(n, 1)->value;
    if (ax->kind != FL_OP_CONST || !v || !fl__value_is_concrete(v)) {
        return false;
    }
    const fl_attr *kd = fl__node_attr(n, "keep_dims");
    if (kd && (kd->kind != FL_ATTR_B || kd->v.b)) {
        return false;
    }
    bool axis0 = false;
    for (int64_t i = 0; i < v->n; i++) {
        int64_t a = fl__value_int(v, i).k;
        if (a != 0 && a != -1) {
            return false;
        }
        axis0 = true;
    }
    return axis0;
}

/* TensorFlow's ComputeSizeRatio over our dims: known dims multiply, symbolic
 * ones must pair up by symbolic equality; -1 when the ratio is not known. */
static int64_t size_ratio(const fl_shape *num, const fl_shape *den) {
    enum { MAX_RANK = 256 };
    if (num->rank < 0 || den->rank < 0 || num->rank > MAX_RANK) {
        return -1;
    }
    bool paired[MAX_RANK] = {false};
    int64_t n = 1, d = 1;
    for (int i = 0; i < num->rank; i++) {
        fl_sym s = num->dims[i];
        if (fl_sym_is_unknown(s)) {
            return -1;
        }
        if (fl_sym_is_known(s) && __builtin_mul_overflow(n, s.k, &n)) {
            return -1;
        }
        paired[i] = fl_sym_is_known(s); /* known dims need no partner */
    }
    for (int j = 0; j < den->rank; j++) {
        fl_sym s = den->dims[j];
        if (fl_sym_is_unknown(s)) {
            return -1;
        }
        if (fl_sym_is_known(s)) {
            if (__builtin_mul_overflow(d, s.k, &d)) {
                return -1;
            }
            continue;
        }
        int i = 0;
        while (i < num->rank && (paired[i] || !fl__sym_eq(num->dims[i], s))) {
            i++;
        }
        if (i == num->rank) {
            return -1;
        }
        paired[i] = true;
    }
    for (int i = 0; i < num->rank; i++) {
        if (!paired[i]) {
            return -1;
        }
    }
    return d == 0 ? -1 : n / d;
}

static bool is_size_of_one(const fl_node *n) {
    return n->kind == FL_OP_SIZE && n->n_inputs == 1;
}

/* Rule (2) on node m; FL_OK whether or not it fired. */
static fl_status div_of_sizes(fl_pass_ctx *pc, fl_node *m) {
    int dt = m->n_outputs == 1 ? (int)m->outputs[0].dtype : FL_DT_INVALID;
    if (m->kind != FL_OP_DIV || m->n_inputs != 2 || fl__preserved(m) ||
        (dt != FL_DT_INT32 && dt != FL_DT_INT64) || !is_size_of_one(m->inputs[0].node) ||
        !is_size_of_one(m->inputs[1].node) || m->outputs[0].shape.rank != 0) {
        return FL_OK;
    }
    const fl_node *sx = m->inputs[0].node, *sy = m->inputs[1].node;
    int64_t r = size_ratio(&fl_node_in(sx, 0)->shape, &fl_node_in(sy, 0)->shape);
    if (r < 0 || (dt == FL_DT_INT32 && r > INT32_MAX)) {
        return FL_OK;
    }
    fl_value *v = fl__value_new(pc->c->a, (fl_dtype)dt, 0, NULL);
    if (!v) {
        return fl__diag_oom(pc->c->d);
    }
    ((fl_sym *)v->ints)[0] = fl_sym_const(r);
    fl__ledger_note(pc, "size_ratio", m, "Size('%s') / Size('%s') -> %" PRId64,
                    sx->inputs[0].node->name, sy->inputs[0].node->name, r);
    fl_status st = fl__node_make_const(pc, m, v, true);
    if (st == FL_OK) {
        pc->rewritten++;
    }
    return st;
}

fl_status fl__pass_shape_optimizer(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    const bool *snap = fl__consumed_snapshot(pc);
    if (!snap) {
        return fl__diag_oom(pc->c->d);
    }
    for (size_t i = 0; i < n; i++) {
        fl_node *m = g->nodes[i];
        fl_status st = div_of_sizes(pc, m);
        if (st != FL_OK) {
            return st;
        }
        if (m->kind != FL_OP_PROD || m->n_inputs != 2 || fl__preserved(m) ||
            m->inputs[0].node->kind != FL_OP_SHAPE || m->inputs[0].node->n_inputs != 1 ||
            !reduces_all(m)) {
            continue;
        }
        fl_node *shape = m->inputs[0].node;
        int out_type = m->outputs[0].dtype;
        int t = fl_node_in(shape, 0)->dtype;
        if (out_type != FL_DT_INT32 && out_type != FL_DT_INT64) {
            continue;
        }
        fl_attr at = fl__attr_make_type(g, "T", t);
        fl_attr ao = fl__attr_make_type(g, "out_type", out_type);
        fl_input x = shape->inputs[0];
        if (!at.name || !ao.name || fl__node_add_ctrl(g, m, m->inputs[1].node) != FL_OK ||
            fl__node_set_inputs(g, m, 1, &x) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        fl__ledger_note(pc, "prod_of_shape", m, "Prod(Shape('%s')) -> Size", x.node->name);
        fl__node_set_attrs(g, m, 0, NULL);
        m->src = NULL;
        fl__node_become(g, m, fl__op_name(FL_OP_SIZE));
        if (fl__node_set_attr(g, m, &at) != FL_OK || fl__node_set_attr(g, m, &ao) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        pc->rewritten++;
    }
    return fl__remove_dead(pc, snap, n, "remove_dead");
}

/* The skip test (pass.h). prod_of_shape reads the Prod (op, inputs, attrs,
 * dtype, preserved), its axes input (kind, value) and its Shape input (op,
 * inputs, its input's dtype); size_ratio the Div (op, inputs, dtype, shape,
 * preserved), its two Size inputs (op, inputs) and their inputs' shapes;
 * remove_dead removes only what the pass's own rewrites left without
 * consumers. So a change that gives the pass work touches a Prod, Shape,
 * Div or Size, or a producer of one (which marks it a neighbour): a marked
 * node of another kind gives none. */
bool fl__shape_optimizer_may_work(const fl_graph *g, const uint8_t *mark) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        int k = g->nodes[i]->kind;
        if (mark[i] && (k == FL_OP_PROD || k == FL_OP_SHAPE || k == FL_OP_DIV || k == FL_OP_SIZE)) {
            return true;
        }
    }
    return false;
}
