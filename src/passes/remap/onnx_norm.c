/*
 * onnx_norm.c - the remapper's subgraph rules for Gelu and layer norm
 * (oneDNN rows 17 and 24) over ONNX operators, as exporters write them at
 * opsets without the fused operators. The results are operators ONNX
 * Runtime runs (com.microsoft::Gelu; LayerNormalization, which ONNX Runtime
 * registers for every opset).
 *
 *  gelu_exact (row 17's exact form, FindMatMulBiasAddAndGelu without the
 *  MatMul):
 *    Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5), or
 *    Mul(Mul(x, 0.5), Add(Erf(Div(x, sqrt 2)), 1))   (operands of every Mul
 *    and the Add in either order; Div(x, sqrt 2) may be Mul(x, 1/sqrt 2))
 *    =>  com.microsoft::Gelu(x) named after the last Mul.
 *    Constants: one element each, sqrt 2 and 1/sqrt 2 within 1e-4, 1 and 0.5
 *    exactly. Every intermediate read only inside the pattern.
 *  layer_norm (row 24's mean/variance form over the last axis):
 *    m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2));
 *    n = Div(d, Sqrt(Add(v, eps))); Add(Mul(n, gamma), beta)
 *    =>  LayerNormalization(x, gamma, beta), axis -1, epsilon eps, named
 *    after the last Add. Conditions: both ReduceMeans over the last axis
 *    only (axes attr [-1] or [rank-1]; keepdims 1), eps and 2 one-element
 *    constants, gamma and beta constants of shape [D] (D = x's last dim),
 *    the Add/Mul operands in either order; d read by the Pow and the Div
 *    only, every other intermediate only by its successor.
 *  simplified_layer_norm (ONNX Runtime's SimplifiedLayerNormFusion, after
 *  LayerNormFusion: what is left of a layer norm whose mean was taken
 *  elsewhere, as after the transpose optimizer moved its Sub):
 *    Mul(Div(x, Sqrt(Add(ReduceMean(Pow(x, 2)), eps))), gamma)
 *    =>  SimplifiedLayerNormalization(x, gamma), axis -1, epsilon eps,
 *    named after the Mul. Conditions: the ReduceMean over the last axis
 *    (keepdims 1), eps and 2 one-element constants, gamma a constant of
 *    shape [D] (D = x's last dim), float, half, double or bfloat16, the
 *    Add/Mul operands in either order, every intermediate read only by its
 *    successor (x may have other readers).
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <string.h>

/* The one-element value of a constant, false when n is not one. */
static bool scalar(const fl_node *n, double *v) {
    return n && fl__rm_const_scalar(n, false, false, v);
}

/* In binary node b, the input that is not a scalar constant equal to
 * want (within tol): its index, or -1. */
static int other_than_const(const fl_node *b, double want, double tol) {
    for (int k = 0; k < 2; k++) {
        double v;
        if (scalar(fl__rm_in_node(b, k), &v) && fabs(v - want) <= tol) {
            return 1 - k;
        }
    }
    return -1;
}

/* Add(Erf(Div(x, sqrt 2) | Mul(x, 1/sqrt 2)), 1) whose nodes are read only
 * by `user`: x through *x, the nodes in nodes[0..2]. */
static bool erf_plus_one(const rctx *r, fl_node *add, const fl_node *user, fl_input *x,
                         fl_node **nodes) {
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 ||
        !fl__rm_removable(r, add, (const fl_node *[]){user}, 1)) {
        return false;
    }
    int e = other_than_const(add, 1.0, 0);
    fl_node *erf = e >= 0 ? fl__rm_in_node(add, e) : NULL;
    if (!erf || erf->kind != FL_OP_ONNX_ERF ||
        !fl__rm_removable(r, erf, (const fl_node *[]){add}, 1)) {
        return false;
    }
    fl_node *sc = fl__rm_in_node(erf, 0);
    if (!sc || sc->n_inputs != 2 || !fl__rm_removable(r, sc, (const fl_node *[]){erf}, 1)) {
        return false;
    }
    double v;
    if (sc->kind == FL_OP_ONNX_DIV && scalar(fl__rm_in_node(sc, 1), &v) &&
        fabs(v - sqrt(2.0)) <= 1e-4) {
        *x = sc->inputs[0];
    } else if (sc->kind == FL_OP_ONNX_MUL && (e = other_than_const(sc, sqrt(0.5), 1e-4)) >= 0) {
        *x = sc->inputs[e];
    } else {
        return false;
    }
    nodes[0] = add;
    nodes[1] = erf;
    nodes[2] = sc;
    return true;
}

bool fl__rm_onnx_gelu(rctx *r, fl_node *root) {
    if (root->kind != FL_OP_ONNX_MUL || root->n_inputs != 2 || fl__rm_has_ctrl(r, root)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        fl_node *inner = fl__rm_in_node(root, k), *nodes[4];
        fl_input other = root->inputs[1 - k], x;
        if (inner->kind != FL_OP_ONNX_MUL || inner->n_inputs != 2 ||
            !fl__rm_removable(r, inner, (const fl_node *[]){root}, 1)) {
            continue;
        }
        double v;
        bool half_outside = scalar(other.node, &v) && v == 0.5;
        for (int j = 0; j < 2; j++) {
            fl_node *a = fl__rm_in_node(inner, j);
            fl_input y = inner->inputs[1 - j];
            /* (x * erf1) * 0.5: y is x; x * 0.5 outside: other is erf1, y 0.5 */
            bool ok = half_outside ? erf_plus_one(r, a, inner, &x, nodes) && fl__rm_same_input(y, x)
                                   : scalar(y.node, &v) && v == 0.5 &&
                                         erf_plus_one(r, other.node, root, &x, nodes) &&
                                         fl__rm_same_input(inner->inputs[j], x);
            if (!ok) {
                continue;
            }
            fl__ledger_note(r->pc, "gelu_exact", root,
                            "Gelu subgraph (Div, Erf, Add, Mul, Mul) -> com.microsoft.Gelu");
            if (!fl__rm_onnx_replace(r, root, FL_OP_ONNX_MS_GELU, 1, &x)) {
                return false;
            }
            nodes[3] = inner;
            for (int i = 0; i < 4; i++) {
                fl__rm_drop(r, nodes[i]);
            }
            return r->st == FL_OK;
        }
    }
    return false;
}

/* A ReduceMean over the last axis of its rank-`rank` input, keepdims 1. */
static bool mean_last(const fl_node *m, int rank) {
    if (m->kind != FL_OP_ONNX_REDUCE_MEAN || m->n_inputs != 1 ||
        fl__attr_int(m, "keepdims", 1) != 1) {
        return false;
    }
    const fl_attr *ax = fl__node_attr(m, "axes");
    if (!ax || ax->kind != FL_ATTR_LIST || ax->n != 1 || ax->list_kind != FL_ATTR_I) {
        return false;
    }
    return ax->v.list.i[0] == -1 || ax->v.list.i[0] == rank - 1;
}

/* A constant of shape [d]. */
static bool vec_of(const fl_node *k, fl_sym d) {
    if (!fl__rm_onnx_const(k)) {
        return false;
    }
    const fl_shape *s = &k->outputs[0].shape;
    return s->rank == 1 && fl_sym_is_known(d) && s->dims[0].k == d.k;
}

/* The binary node's input that is not a constant of shape [d], with that
 * constant's input index in *ci; NULL when neither is one. */
static fl_node *beside_vec(const fl_node *b, fl_sym d, int *ci) {
    for (int k = 0; k < 2; k++) {
        if (vec_of(fl__rm_in_node(b, k), d)) {
            *ci = k;
            return fl__rm_in_node(b, 1 - k);
        }
    }
    return NULL;
}

/* div's divisor Sqrt(Add(v, eps)), eps a one-element constant, the Sqrt
 * read only by div and the Add only by the Sqrt: v's producer in *v, the
 * Sqrt and the Add in sq_add[0..1]. */
static bool sqrt_plus_eps(const rctx *r, fl_node *div, fl_node **v, double *eps, fl_node **sq_add) {
    fl_node *sq = fl__rm_in_node(div, 1);
    if (sq->kind != FL_OP_ONNX_SQRT || !fl__rm_removable(r, sq, (const fl_node *[]){div}, 1)) {
        return false;
    }
    fl_node *add = fl__rm_in_node(sq, 0);
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 ||
        !fl__rm_removable(r, add, (const fl_node *[]){sq}, 1)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        if (scalar(fl__rm_in_node(add, k), eps)) {
            *v = fl__rm_in_node(add, 1 - k);
            sq_add[0] = sq;
            sq_add[1] = add;
            return true;
        }
    }
    return false;
}

/* Matches Div(d, Sqrt(Add(ReduceMean(Pow(d, 2)), eps))) with d = Sub(x,
 * ReduceMean(x)); fills nodes[0..6] (div, sqrt, add, mean2, pow, sub,
 * mean1), *x and *eps. */
static bool ln_core(const rctx *r, fl_node *div, fl_node *mul, fl_node **nodes, fl_input *x,
                    double *eps) {
    if (div->kind != FL_OP_ONNX_DIV || div->n_inputs != 2 ||
        !fl__rm_removable(r, div, (const fl_node *[]){mul}, 1)) {
        return false;
    }
    fl_node *sub = fl__rm_in_node(div, 0), *sa[2], *m2 = NULL;
    if (!sqrt_plus_eps(r, div, &m2, eps, sa)) {
        return false;
    }
    fl_node *sq = sa[0], *add = sa[1];
    fl_node *pw = fl__rm_in_node(m2, 0);
    double two;
    if (!fl__rm_removable(r, m2, (const fl_node *[]){add}, 1) || !pw ||
        pw->kind != FL_OP_ONNX_POW || pw->n_inputs != 2 || fl__rm_in_node(pw, 0) != sub ||
        !scalar(fl__rm_in_node(pw, 1), &two) || two != 2.0 ||
        !fl__rm_removable(r, pw, (const fl_node *[]){m2}, 1)) {
        return false;
    }
    if (sub->kind != FL_OP_ONNX_SUB || sub->n_inputs != 2 ||
        !fl__rm_removable(r, sub, (const fl_node *[]){pw, div}, 2)) {
        return false;
    }
    fl_node *m1 = fl__rm_in_node(sub, 1);
    *x = sub->inputs[0];
    int rank = fl_node_in(sub, 0)->shape.rank;
    if (rank < 1 || !mean_last(m1, rank) || !mean_last(m2, rank) ||
        !fl__rm_same_input(m1->inputs[0], *x) ||
        !fl__rm_removable(r, m1, (const fl_node *[]){sub}, 1)) {
        return false;
    }
    fl_node *found[7] = {div, sq, add, m2, pw, sub, m1};
    memcpy(nodes, found, sizeof found);
    return true;
}

bool fl__rm_onnx_layer_norm(rctx *r, fl_node *root) {
    if (root->kind != FL_OP_ONNX_ADD || root->n_inputs != 2 || fl__rm_has_ctrl(r, root)) {
        return false;
    }
    const fl_shape *ys = &root->outputs[0].shape;
    if (ys->rank < 1) {
        return false;
    }
    fl_sym d = ys->dims[ys->rank - 1];
    int bi, gi;
    fl_node *mul = beside_vec(root, d, &bi), *nodes[8];
    if (!mul || mul->kind != FL_OP_ONNX_MUL || mul->n_inputs != 2 ||
        !fl__rm_removable(r, mul, (const fl_node *[]){root}, 1)) {
        return false;
    }
    fl_node *div = beside_vec(mul, d, &gi);
    fl_input x;
    double eps;
    if (!div || !ln_core(r, div, mul, nodes, &x, &eps) ||
        !fl__shape_same(&fl_node_in(nodes[5], 0)->shape, ys)) {
        return false;
    }
    fl__ledger_note(r->pc, "layer_norm", root,
                    "layer-norm ops (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) "
                    "-> LayerNormalization");
    fl_input in[3] = {x, mul->inputs[gi], root->inputs[bi]};
    fl_node *f = fl__rm_onnx_replace(r, root, FL_OP_ONNX_LAYER_NORM, 3, in);
    if (!f) {
        return false;
    }
    fl__rm_set_attr(r, f, fl__attr_make_int(r->g, "axis", -1));
    fl__rm_set_attr(r, f, fl__attr_make_float(r->g, "epsilon", (float)eps));
    nodes[7] = mul;
    for (int i = 0; i < 8; i++) {
        fl__rm_drop(r, nodes[i]);
    }
    return r->st == FL_OK;
}

bool fl__rm_onnx_simplified_layer_norm(rctx *r, fl_node *root) {
    if (root->kind != FL_OP_ONNX_MUL || root->n_inputs != 2 || fl__rm_has_ctrl(r, root)) {
        return false;
    }
    const fl_shape *ys = &root->outputs[0].shape;
    int dt = root->outputs[0].dtype;
    if (ys->rank < 1 ||
        (dt != FL_DT_FLOAT && dt != FL_DT_HALF && dt != FL_DT_DOUBLE && dt != FL_DT_BFLOAT16)) {
        return false;
    }
    int gi;
    fl_node *div = beside_vec(root, ys->dims[ys->rank - 1], &gi);
    if (!div || div->kind != FL_OP_ONNX_DIV || div->n_inputs != 2 ||
        !fl__rm_removable(r, div, (const fl_node *[]){root}, 1)) {
        return false;
    }
    double eps, two;
    fl_node *sa[2], *m2 = NULL;
    if (!sqrt_plus_eps(r, div, &m2, &eps, sa)) {
        return false;
    }
    fl_node *sq = sa[0], *add = sa[1];
    fl_node *pw = fl__rm_in_node(m2, 0);
    fl_input x = div->inputs[0];
    if (!fl__rm_removable(r, m2, (const fl_node *[]){add}, 1) || !pw ||
        !mean_last(m2, fl_node_in(div, 0)->shape.rank) || pw->kind != FL_OP_ONNX_POW ||
        pw->n_inputs != 2 || !fl__rm_same_input(pw->inputs[0], x) ||
        !scalar(fl__rm_in_node(pw, 1), &two) || two != 2.0 ||
        !fl__rm_removable(r, pw, (const fl_node *[]){m2}, 1) ||
        !fl__shape_same(&fl_node_in(div, 0)->shape, ys)) {
        return false;
    }
    fl__ledger_note(r->pc, "simplified_layer_norm", root,
                    "ops (Pow, ReduceMean, Add, Sqrt, Div, Mul) -> SimplifiedLayerNormalization");
    fl_input in[2] = {x, root->inputs[gi]};
    fl_node *f = fl__rm_onnx_replace(r, root, FL_OP_ONNX_SIMPLIFIED_LAYER_NORM, 2, in);
    if (!f) {
        return false;
    }
    fl__rm_set_attr(r, f, fl__attr_make_int(r->g, "axis", -1));
    fl__rm_set_attr(r, f, fl__attr_make_float(r->g, "epsilon", (float)eps));
    fl_node *nodes[5] = {div, sq, add, m2, pw};
    for (int i = 0; i < 5; i++) {
        fl__rm_drop(r, nodes[i]);
    }
    return r->st == FL_OK;
}
