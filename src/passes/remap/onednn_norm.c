/*
 * onednn_norm.c - the remapper's oneDNN normalisation rules (rows 24, 25):
 * _MklLayerNorm (the Keras FusedBatchNormV3 form, the custom form, the
 * mean/variance form over the last axis) and _MklFusedInstanceNorm (with
 * Relu/LeakyRelu). Each rule's pattern, conditions and new-node names are
 * at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A node of op op1 (or op2; FL_OP_UNKNOWN: none) with exactly two data
 * inputs. */
static bool binary(const fl_node *n, int op1, int op2) {
    return n && (n->kind == op1 || (op2 != FL_OP_UNKNOWN && n->kind == op2)) && n->n_inputs == 2;
}

/* Input i of n is output 0 of `m`. */
static bool feeds(const fl_node *n, int i, const fl_node *m) {
    return i < n->n_inputs && n->inputs[i].node == m && n->inputs[i].port == 0;
}

/* IsCommonNormPattern: output = Add|AddV2(Mul(x, m1), Sub(beta, Mul(m1,
 * mean1))), m1 = Mul(Rsqrt(Add|AddV2(Mean(SquaredDifference(x, mean1),
 * Const), eps)), gamma), mean1 = Mean(x, axes1); gamma, beta, eps, axes1
 * Const; Add/AddV2/Mul operands in either order (SquaredDifference, Sub and
 * Mean as written). Every inner node fl__rm_removable (no control edges, not
 * preserved, uses only inside the match; TensorFlow's matcher passes no
 * preserve set here, we keep ours). */
typedef struct norm_match {
    fl_node *nodes[9]; /* mul0, mul1, rsqrt, add, mean0, sqd, mean1, sub0, mul2 */
    fl_node *gamma, *beta, *eps, *mean1;
    fl_input x;
} norm_match;

static bool match_common_norm(const rctx *r, const fl_node *out, norm_match *m) {
    if (!binary(out, FL_OP_ADD, FL_OP_ADD_V2)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul0 = fl__rm_in_node(out, s), *sub0 = fl__rm_in_node(out, 1 - s);
        if (!binary(mul0, FL_OP_MUL, FL_OP_UNKNOWN) || !binary(sub0, FL_OP_SUB, FL_OP_UNKNOWN) ||
            !feeds(out, s, mul0) || !feeds(out, 1 - s, sub0)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_input x = mul0->inputs[q];
            fl_node *mul1 = fl__rm_in_node(mul0, 1 - q);
            if (!binary(mul1, FL_OP_MUL, FL_OP_UNKNOWN) || !feeds(mul0, 1 - q, mul1)) {
                continue;
            }
            for (int t = 0; t < 2; t++) {
                fl_node *rsqrt = fl__rm_in_node(mul1, t), *gamma = fl__rm_in_node(mul1, 1 - t);
                if (!rsqrt || rsqrt->kind != FL_OP_RSQRT || rsqrt->n_inputs != 1 ||
                    !feeds(mul1, t, rsqrt) || !fl__is_const(gamma)) {
                    continue;
                }
                fl_node *add = fl__rm_in_node(rsqrt, 0);
                if (!binary(add, FL_OP_ADD, FL_OP_ADD_V2) || !feeds(rsqrt, 0, add)) {
                    continue;
                }
                for (int u = 0; u < 2; u++) {
                    fl_node *mean0 = fl__rm_in_node(add, u), *eps = fl__rm_in_node(add, 1 - u);
                    if (!binary(mean0, FL_OP_MEAN, FL_OP_UNKNOWN) || !feeds(add, u, mean0) ||
                        !fl__is_const(eps) || !fl__is_const(fl__rm_in_node(mean0, 1))) {
                        continue;
                    }
                    fl_node *sqd = fl__rm_in_node(mean0, 0);
                    if (!binary(sqd, FL_OP_SQUARED_DIFFERENCE, FL_OP_UNKNOWN) ||
                        !feeds(mean0, 0, sqd) || !fl__rm_same_input(sqd->inputs[0], x)) {
                        continue;
                    }
                    fl_node *mean1 = fl__rm_in_node(sqd, 1);
                    if (!binary(mean1, FL_OP_MEAN, FL_OP_UNKNOWN) || !feeds(sqd, 1, mean1) ||
                        !fl__rm_same_input(mean1->inputs[0], x) ||
                        !fl__is_const(fl__rm_in_node(mean1, 1))) {
                        continue;
                    }
                    fl_node *beta = fl__rm_in_node(sub0, 0), *mul2 = fl__rm_in_node(sub0, 1);
                    if (!fl__is_const(beta) || !binary(mul2, FL_OP_MUL, FL_OP_UNKNOWN) ||
                        !feeds(sub0, 1, mul2) ||
                        !((feeds(mul2, 0, mul1) && feeds(mul2, 1, mean1)) ||
                          (feeds(mul2, 1, mul1) && feeds(mul2, 0, mean1)))) {
                        continue;
                    }
                    if (!fl__rm_removable(r, mul0, (const fl_node *[]){out}, 1) ||
                        !fl__rm_removable(r, mul1, (const fl_node *[]){mul0, mul2}, 2) ||
                        !fl__rm_removable(r, rsqrt, (const fl_node *[]){mul1}, 1) ||
                        !fl__rm_removable(r, add, (const fl_node *[]){rsqrt}, 1) ||
                        !fl__rm_removable(r, mean0, (const fl_node *[]){add}, 1) ||
                        !fl__rm_removable(r, sqd, (const fl_node *[]){mean0}, 1) ||
                        !fl__rm_removable(r, mean1, (const fl_node *[]){sqd, mul2}, 2) ||
                        !fl__rm_removable(r, sub0, (const fl_node *[]){out}, 1) ||
                        !fl__rm_removable(r, mul2, (const fl_node *[]){sub0}, 1)) {
                        return false;
                    }
                    fl_node *nodes[9] = {mul0, mul1, rsqrt, add, mean0, sqd, mean1, sub0, mul2};
                    memcpy(m->nodes, nodes, sizeof nodes);
                    m->gamma = gamma;
                    m->beta = beta;
                    m->eps = eps;
                    m->mean1 = mean1;
                    m->x = x;
                    return true;
                }
            }
        }
    }
    return false;
}

/* Input i of n as a Const of int32/int64 values (at most cap). */
static bool const_axes(const fl_node *n, int i, int64_t *out, int64_t cap, int64_t *len) {
    int dt = i < n->n_inputs ? fl_dtype_base(fl_node_in(n, i)->dtype) : FL_DT_INVALID;
    return fl__is_const(fl__rm_in_node(n, i)) && (dt == FL_DT_INT32 || dt == FL_DT_INT64) &&
           fl__rm_int_input(n, i, out, cap, len);
}

/* FindInstanceNorm on top of the common pattern: mean1 keep_dims; x of
 * known rank; mean1 T float/bf16 (TF 2.11-2.13; current TF float/half);
 * gamma and beta of equal (known) shape; axes1 int32/int64 with rank - 2
 * elements, [1,2] or [2,3] for 4-D, [1,2,3] or [2,3,4] for 5-D. */
static bool match_instance_norm(const rctx *r, const fl_node *out, norm_match *m, int64_t *axes,
                                int64_t *n_axes) {
    if (!match_common_norm(r, out, m) || !fl__attr_bool(m->mean1, "keep_dims", false) ||
        !fl__rm_t_float_or_bf16(m->mean1)) {
        return false;
    }
    int rank = fl_node_in(m->mean1, 0)->shape.rank;
    if ((rank != 4 && rank != 5) ||
        !fl__shape_same(&m->gamma->outputs[0].shape, &m->beta->outputs[0].shape) ||
        !const_axes(m->mean1, 1, axes, 3, n_axes) || *n_axes + 2 != rank) {
        return false;
    }
    for (int64_t k = 0; k < *n_axes; k++) {
        if (axes[k] != axes[0] + k) {
            return false;
        }
    }
    return axes[0] == 1 || axes[0] == 2;
}

/* Pattern (row 25): the common norm pattern with instance-norm axes,
 * optionally followed by Relu | LeakyRelu (root, no control edges; the
 * norm's output then fl__rm_removable too)  =>  _MklFusedInstanceNorm named after
 * the root, device of the norm's output node, inputs [x, gamma, beta], T of
 * the output, epsilon = the eps Const's first element when readable (else
 * absent: op default 1e-4), reduction_axes, with an activation fused_ops
 * [act] (+ leakyrelu_alpha). Conditions: oneDNN; match_instance_norm. x is
 * mean1's input tensor (TensorFlow names the input node, i.e. its output
 * 0). */
bool fl__rm_rewrite_instance_norm(rctx *r, fl_node *root) {
    if (!r->onednn) {
        return false;
    }
    fl_node *act = NULL, *out = root;
    if (root->kind == FL_OP_RELU || root->kind == FL_OP_LEAKY_RELU) {
        act = root;
        out = fl__rm_in_node(root, 0);
        if (root->n_inputs != 1 || fl__rm_has_ctrl(r, root) || !feeds(root, 0, out) ||
            !fl__rm_removable(r, out, (const fl_node *[]){root}, 1)) {
            return false;
        }
    }
    norm_match m;
    int64_t axes[3], n_axes;
    if (!match_instance_norm(r, out, &m, axes, &n_axes)) {
        return false;
    }
    fl__ledger_note(r->pc, "instance_norm", root, "instance-norm ops%s%s -> _MklFusedInstanceNorm",
                    act ? "+" : "", act ? act->op : "");
    fl_input in[3] = {m.x, {m.gamma, 0}, {m.beta, 0}};
    fl_node *f = fl__rm_replace_root(r, root, fl__op_name(FL_OP_MKL_FUSED_INSTANCE_NORM),
                                     out->device, 3, in, 1);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, out, "T", NULL);
    double eps;
    const fl_value *ev = m.eps->outputs[0].value;
    if (ev && ev->n >= 1 && fl__value_f64(ev, 0, &eps)) {
        fl__rm_set_attr(r, f, fl__attr_make_float(r->g, "epsilon", (float)eps));
    }
    fl__rm_set_attr(r, f, fl__attr_make_ints(r->g, "reduction_axes", (size_t)n_axes, axes));
    if (act) {
        const char *ops[] = {act->op};
        fl__rm_set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", 1, ops));
        if (act->kind == FL_OP_LEAKY_RELU) {
            fl__rm_set_attr(
                r, f,
                fl__attr_make_float(r->g, "leakyrelu_alpha", fl__attr_float(act, "alpha", 0.2f)));
        }
        fl__rm_drop(r, out);
    }
    for (int k = 0; k < 9; k++) {
        fl__rm_drop(r, m.nodes[k]);
    }
    return true;
}

/* Keras LayerNormalization (pattern 1): AddV2(beta, Mul(Reshape(
 * FusedBatchNormV3(Reshape(x, *), Fill(*, Const), Fill(*, Const), empty,
 * empty), *), gamma)), the same zero-element Const as mean and variance,
 * is_training present and true. Removed: Mul, both Reshapes, the BN, both
 * Fills. Sets *x, *gamma, *beta; nodes[0..5]. */
static bool match_layer_norm_keras(const rctx *r, const fl_node *out, fl_input *x, fl_input *gamma,
                                   fl_input *beta, fl_node **nodes) {
    for (int s = 0; s < 2; s++) {
        fl_node *scale = fl__rm_in_node(out, 1 - s);
        if (!binary(scale, FL_OP_MUL, FL_OP_UNKNOWN) || !feeds(out, 1 - s, scale)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *post = fl__rm_in_node(scale, q);
            if (!binary(post, FL_OP_RESHAPE, FL_OP_UNKNOWN) || !feeds(scale, q, post)) {
                continue;
            }
            fl_node *bn = fl__rm_in_node(post, 0), *pre, *f1, *f2, *empty;
            if (!bn || bn->kind != FL_OP_FUSED_BATCH_NORM_V3 || bn->n_inputs != 5 ||
                !feeds(post, 0, bn)) {
                continue;
            }
            pre = fl__rm_in_node(bn, 0);
            f1 = fl__rm_in_node(bn, 1);
            f2 = fl__rm_in_node(bn, 2);
            empty = fl__rm_in_node(bn, 3);
            if (!binary(pre, FL_OP_RESHAPE, FL_OP_UNKNOWN) ||
                !binary(f1, FL_OP_FILL, FL_OP_UNKNOWN) || !binary(f2, FL_OP_FILL, FL_OP_UNKNOWN) ||
                !feeds(bn, 0, pre) || !feeds(bn, 1, f1) || !feeds(bn, 2, f2) ||
                !fl__is_const(fl__rm_in_node(f1, 1)) || !fl__is_const(fl__rm_in_node(f2, 1)) ||
                !fl__is_const(empty) || fl__rm_in_node(bn, 4) != empty) {
                continue;
            }
            const fl_attr *tr = fl__node_attr(bn, "is_training");
            fl_sym ne;
            if (!tr || tr->kind != FL_ATTR_B || !tr->v.b ||
                fl__op_num_elements(r->pc->c, empty, &empty->outputs[0].shape, &ne) != FL_OK ||
                !fl_sym_is_known(ne) || ne.k != 0) {
                return false;
            }
            if (!fl__rm_removable(r, scale, (const fl_node *[]){out}, 1) ||
                !fl__rm_removable(r, post, (const fl_node *[]){scale}, 1) ||
                !fl__rm_removable(r, bn, (const fl_node *[]){post}, 1) ||
                !fl__rm_removable(r, pre, (const fl_node *[]){bn}, 1) ||
                !fl__rm_removable(r, f1, (const fl_node *[]){bn}, 1) ||
                !fl__rm_removable(r, f2, (const fl_node *[]){bn}, 1)) {
                return false;
            }
            *x = pre->inputs[0];
            *gamma = scale->inputs[1 - q];
            *beta = out->inputs[s];
            fl_node *n6[6] = {scale, post, bn, pre, f1, f2};
            memcpy(nodes, n6, sizeof n6);
            return true;
        }
    }
    return false;
}

/* Custom LayerNorm (pattern 2): AddV2(beta, Mul(Sub(x, Mean(x, *)),
 * Mul(Rsqrt(AddV2(Mean(Square(d), *), Const eps)), gamma))). TensorFlow's
 * pattern lets Square read any Sub; ours requires the same Sub d. Removed:
 * the eight inner nodes (nodes[0..7]). */
static bool match_layer_norm_custom(const rctx *r, const fl_node *out, fl_input *x, fl_input *gamma,
                                    fl_input *beta, fl_node **nodes) {
    for (int s = 0; s < 2; s++) {
        fl_node *mul = fl__rm_in_node(out, 1 - s);
        if (!binary(mul, FL_OP_MUL, FL_OP_UNKNOWN) || !feeds(out, 1 - s, mul)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *d = fl__rm_in_node(mul, q), *scale = fl__rm_in_node(mul, 1 - q);
            if (!binary(d, FL_OP_SUB, FL_OP_UNKNOWN) || !binary(scale, FL_OP_MUL, FL_OP_UNKNOWN) ||
                !feeds(mul, q, d) || !feeds(mul, 1 - q, scale)) {
                continue;
            }
            fl_node *mean = fl__rm_in_node(d, 1);
            if (!binary(mean, FL_OP_MEAN, FL_OP_UNKNOWN) || !feeds(d, 1, mean) ||
                !fl__rm_same_input(mean->inputs[0], d->inputs[0])) {
                continue;
            }
            for (int t = 0; t < 2; t++) {
                fl_node *rs = fl__rm_in_node(scale, t);
                if (!rs || rs->kind != FL_OP_RSQRT || rs->n_inputs != 1 || !feeds(scale, t, rs)) {
                    continue;
                }
                fl_node *ae = fl__rm_in_node(rs, 0);
                if (!binary(ae, FL_OP_ADD_V2, FL_OP_UNKNOWN) || !feeds(rs, 0, ae)) {
                    continue;
                }
                for (int u = 0; u < 2; u++) {
                    fl_node *ms = fl__rm_in_node(ae, u), *sq;
                    if (!binary(ms, FL_OP_MEAN, FL_OP_UNKNOWN) || !feeds(ae, u, ms) ||
                        !fl__is_const(fl__rm_in_node(ae, 1 - u))) {
                        continue;
                    }
                    sq = fl__rm_in_node(ms, 0);
                    if (!sq || sq->kind != FL_OP_SQUARE || sq->n_inputs != 1 || !feeds(ms, 0, sq) ||
                        !feeds(sq, 0, d)) {
                        continue;
                    }
                    if (!fl__rm_removable(r, mul, (const fl_node *[]){out}, 1) ||
                        !fl__rm_removable(r, d, (const fl_node *[]){mul, sq}, 2) ||
                        !fl__rm_removable(r, mean, (const fl_node *[]){d}, 1) ||
                        !fl__rm_removable(r, scale, (const fl_node *[]){mul}, 1) ||
                        !fl__rm_removable(r, rs, (const fl_node *[]){scale}, 1) ||
                        !fl__rm_removable(r, ae, (const fl_node *[]){rs}, 1) ||
                        !fl__rm_removable(r, ms, (const fl_node *[]){ae}, 1) ||
                        !fl__rm_removable(r, sq, (const fl_node *[]){ms}, 1)) {
                        return false;
                    }
                    *x = d->inputs[0];
                    *gamma = scale->inputs[1 - t];
                    *beta = out->inputs[s];
                    fl_node *n8[8] = {mul, d, mean, scale, rs, ae, ms, sq};
                    memcpy(nodes, n8, 8 * sizeof(fl_node *));
                    return true;
                }
            }
        }
    }
    return false;
}

/* Pattern (row 24, FindMklLayerNorm): root AddV2 of the Keras form (pattern
 * 1) or the custom form (pattern 2), or root Add|AddV2 of the common norm
 * pattern (3) reducing the last axis (mean1 keep_dims; axes1 an int32/int64
 * Const of one element equal to rank - 1)  =>  _MklLayerNorm named after the
 * root, device of the root, inputs [x, gamma, beta], T of the root (no
 * epsilon: TensorFlow writes only T). Conditions: oneDNN; x and the root's
 * output of symbolically equal shape, rank 2 or 3; the matched inner nodes
 * fl__rm_removable. No placement or dtype check (as TensorFlow). */
bool fl__rm_rewrite_layer_norm(rctx *r, fl_node *out) {
    if (!r->onednn || !binary(out, FL_OP_ADD, FL_OP_ADD_V2)) {
        return false;
    }
    fl_input x = {NULL, 0}, gamma = {NULL, 0}, beta = {NULL, 0};
    fl_node *nodes[9];
    int n_nodes = 0, pattern = 0;
    norm_match m;
    if (out->kind == FL_OP_ADD_V2 && match_layer_norm_keras(r, out, &x, &gamma, &beta, nodes)) {
        n_nodes = 6;
        pattern = 1;
    } else if (out->kind == FL_OP_ADD_V2 &&
               match_layer_norm_custom(r, out, &x, &gamma, &beta, nodes)) {
        n_nodes = 8;
        pattern = 2;
    } else if (match_common_norm(r, out, &m)) {
        int64_t ax, n_ax;
        int rank = fl_node_in(m.mean1, 0)->shape.rank;
        if (!fl__attr_bool(m.mean1, "keep_dims", false) || !const_axes(m.mean1, 1, &ax, 1, &n_ax) ||
            n_ax != 1 || rank < 1 || ax != rank - 1) {
            return false;
        }
        x = m.x;
        gamma = (fl_input){m.gamma, 0};
        beta = (fl_input){m.beta, 0};
        memcpy(nodes, m.nodes, sizeof m.nodes);
        n_nodes = 9;
        pattern = 3;
    } else {
        return false;
    }
    const fl_shape *xs = &x.node->outputs[x.port].shape;
    if (!fl__shape_same(xs, &out->outputs[0].shape) || xs->rank < 2 || xs->rank > 3) {
        return false;
    }
    static const char *const what[] = {"", "Keras FusedBatchNormV3", "custom", "mean/variance"};
    fl__ledger_note(r->pc, "layer_norm", out, "%s layer-norm ops -> _MklLayerNorm", what[pattern]);
    fl_input in[3] = {x, gamma, beta};
    fl_node *f =
        fl__rm_replace_root(r, out, fl__op_name(FL_OP_MKL_LAYER_NORM), out->device, 3, in, 1);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, out, "T", NULL);
    for (int k = 0; k < n_nodes; k++) {
        fl__rm_drop(r, nodes[k]);
    }
    return true;
}
