/*
 * onnx_contraction.c - the remapper's contraction rows (1-3), the
 * batch-norm rows (4-5) and the oneDNN swish row over ONNX operators, and the
 * order they are tried in on an ONNX graph (fl__rm_onnx_rewrite: two sweeps,
 * as ONNX Runtime runs its transformers one after another - first its
 * level-1 EliminateDropout (onnx_basic.c) and the fusions of its level 1
 * and of level 2 up to SimplifiedLayerNormFusion (Conv/Gemm activations,
 * MatMul + Add, Gelu, the layer norms, Conv + BatchNormalization, Gemm +
 * Transpose), then those after it
 * (GatherSliceToSplit, SkipLayerNorm, BiasGelu, QuickGelu, MatmulTranspose
 * and MatMulScale), so that a Gelu's Mul by 0.5 becomes part of the Gelu
 * before a MatMul reading it could take it as a scale). The fused
 * nodes are operators ONNX Runtime executes (com.microsoft FusedConv and
 * FusedGemm, ai.onnx Gemm, com.microsoft QuickGelu), so the optimised graph
 * written back loads there. Ledger names are the TensorFlow rules'. The
 * Gelu and layer-norm subgraph rules are in onnx_norm.c.
 *
 *  contraction_bias_activation / fused_conv_activation (rows 2 and 13):
 *    act(Conv(X, W[, B]))  =>  com.microsoft::FusedConv(X, W[, B]) named
 *    after the activation, the Conv's attrs plus activation=<op type> and
 *    activation_params: Relu, Sigmoid, Tanh (none), LeakyRelu [alpha, default
 *    0.01], HardSigmoid [alpha 0.2, beta 0.5], Clip [min, max] (opset >= 11:
 *    constant scalar inputs, an absent one the float limit; earlier: attrs).
 *    The rule is contraction_bias_activation when the Conv has a bias,
 *    fused_conv_activation when not. When the Conv's output reaches the
 *    activation through an inference BatchNormalization, the batch norm is
 *    folded first (onnx_batchnorm.c) and the activation fused with the new
 *    Conv in the same sweep.
 *  contraction_bias_activation (row 2, Gemm):
 *    act(Gemm(A, B[, C]))  =>  com.microsoft::FusedGemm named after the
 *    activation: the Gemm's attrs plus activation=<op type> and each of the
 *    activation's attrs as activation_<name>. Activations: Elu, HardSigmoid,
 *    LeakyRelu, Relu, Selu, Sigmoid, Softplus, Softsign, Tanh,
 *    ThresholdedRelu.
 *  contraction_bias (row 1, MatMul):
 *    Add(MatMul(A, B), C) (either operand order) with A and B of rank 2, B
 *    a constant, C a constant of rank <= 2 that broadcasts to the product's
 *    [M, N] one way  =>  Gemm(A, B, C) named after the Add. With A of
 *    another rank and static shapes, ONNX Runtime's MatMulAddFusion form:
 *    Reshape + Gemm + Reshape (matmul_add_nd says which conditions).
 *  swish (oneDNN row 21's neighbour, FindSigmoidAndMul):
 *    Mul(x, Sigmoid(x)) (either order)  =>  com.microsoft::QuickGelu(x),
 *    alpha=1, named after the Mul; the Sigmoid read only by the Mul.
 *
 * Common conditions: the contraction (or Sigmoid) is read only by the root,
 * is not a graph output and has no control edges; the activation reads its
 * output 0. A graph output stays one: the fused node takes the root's name
 * and output value name.
 */
#include "passes/remap/remap.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* FusedConv's activation and its activation_params; false when `act` is
 * not one FusedConv takes. */
static bool conv_activation(const fl_node *act, float *params, size_t *n_params) {
    *n_params = 0;
    switch (act->kind) {
    case FL_OP_ONNX_RELU:
    case FL_OP_ONNX_SIGMOID:
    case FL_OP_ONNX_TANH:
        return act->n_inputs == 1;
    case FL_OP_ONNX_LEAKY_RELU:
        params[0] = fl__attr_float(act, "alpha", 0.01f);
        *n_params = 1;
        return true;
    case FL_OP_ONNX_HARD_SIGMOID:
        params[0] = fl__attr_float(act, "alpha", 0.2f);
        params[1] = fl__attr_float(act, "beta", 0.5f);
        *n_params = 2;
        return true;
    case FL_OP_ONNX_CLIP:
        break;
    default:
        return false;
    }
    params[0] = fl__attr_float(act, "min", -FLT_MAX);
    params[1] = fl__attr_float(act, "max", FLT_MAX);
    *n_params = 2;
    for (int i = 1; i < act->n_inputs && i < 3; i++) {
        const fl_node *k = fl__rm_in_node(act, i);
        if (k->kind == FL_OP_ONNX_ABSENT) {
            continue;
        }
        const fl_value *v = fl__rm_onnx_value(k);
        double x;
        if (!v || v->n != 1 || !fl__value_f64(v, 0, &x)) {
            return false;
        }
        params[i - 1] = (float)x;
    }
    return true;
}

static bool gemm_activation(const fl_node *act) {
    static const fl_op_kind kinds[] = {
        FL_OP_ONNX_ELU,  FL_OP_ONNX_HARD_SIGMOID,     FL_OP_ONNX_LEAKY_RELU, FL_OP_ONNX_RELU,
        FL_OP_ONNX_SELU, FL_OP_ONNX_SIGMOID,          FL_OP_ONNX_SOFTPLUS,   FL_OP_ONNX_SOFTSIGN,
        FL_OP_ONNX_TANH, FL_OP_ONNX_THRESHOLDED_RELU,
    };
    return act->n_inputs == 1 && fl__kind_in(act->kind, kinds, sizeof kinds / sizeof kinds[0]);
}

/* The contraction under `root`'s input `i` when the root may absorb it:
 * output 0 read by root only (one_use: known to be so, for a node this
 * sweep built), not preserved, no control edges. */
static fl_node *absorbable(const rctx *r, const fl_node *root, int i, int kind, bool one_use) {
    fl_node *c = fl__rm_in_node(root, i);
    if (!c || fl__rm_is_removed(c) || c->kind != kind || root->inputs[i].port != 0 ||
        fl__preserved(c) || c->n_ctrl > 0) {
        return NULL;
    }
    if (c->id < r->n0 ? (fl__rm_fanout(r, c, 0) != 1 || fl__rm_has_ctrl(r, c)) : !one_use) {
        return NULL;
    }
    return c;
}

static bool fuse_conv_act(rctx *r, fl_node *act, bool one_use) {
    float params[2];
    size_t n_params;
    fl_node *c = absorbable(r, act, 0, FL_OP_ONNX_CONV, one_use);
    if (!c || fl__rm_has_ctrl(r, act) || !conv_activation(act, params, &n_params)) {
        return false;
    }
    bool bias = c->n_inputs == 3;
    fl__ledger_note(r->pc, bias ? "contraction_bias_activation" : "fused_conv_activation", act,
                    "Conv+%s -> com.microsoft.FusedConv", act->op);
    fl_node *f = fl__rm_onnx_replace(r, act, FL_OP_ONNX_MS_FUSED_CONV, c->n_inputs, c->inputs);
    if (!f) {
        return false;
    }
    fl__rm_onnx_copy_attrs(r, f, c);
    fl__rm_set_attr(r, f, fl__attr_make_str(r->g, "activation", act->op));
    if (n_params) {
        fl_attr p = {.name = "activation_params", .kind = FL_ATTR_LIST, .list_kind = FL_ATTR_F};
        float *copy = fl__arena_calloc(r->g->arena, n_params, sizeof(float));
        if (!copy) {
            fl__rm_fail_oom(r);
            return false;
        }
        memcpy(copy, params, n_params * sizeof(float));
        p.n = n_params;
        p.v.list.f = copy;
        fl__rm_set_attr(r, f, p);
    }
    fl__rm_drop(r, c);
    return r->st == FL_OK;
}

static bool fuse_gemm_act(rctx *r, fl_node *act) {
    fl_node *c = absorbable(r, act, 0, FL_OP_ONNX_GEMM, false);
    if (!c || fl__rm_has_ctrl(r, act) || !gemm_activation(act)) {
        return false;
    }
    fl__ledger_note(r->pc, "contraction_bias_activation", act, "Gemm+%s -> com.microsoft.FusedGemm",
                    act->op);
    fl_node *f = fl__rm_onnx_replace(r, act, FL_OP_ONNX_MS_FUSED_GEMM, c->n_inputs, c->inputs);
    if (!f) {
        return false;
    }
    fl__rm_onnx_copy_attrs(r, f, c);
    fl__rm_set_attr(r, f, fl__attr_make_str(r->g, "activation", act->op));
    for (int i = 0; i < act->n_attrs; i++) {
        fl_attr a = act->attrs[i];
        a.name = fl__arena_printf(r->g->arena, "activation_%s", act->attrs[i].name);
        if (!a.name) {
            fl__rm_fail_oom(r);
            return false;
        }
        fl__rm_set_attr(r, f, a);
    }
    fl__rm_drop(r, c);
    return r->st == FL_OK;
}

/* C broadcasts to [m, n] one way (Gemm's rule for C). */
static bool gemm_c_ok(const fl_shape *c, fl_sym m, fl_sym n) {
    if (c->rank < 0 || c->rank > 2 || !fl__shape_is_concrete(c)) {
        return false;
    }
    const fl_sym want[2] = {m, n};
    for (int i = 0; i < c->rank; i++) {
        const fl_sym *w = &want[2 - c->rank + i];
        if (c->dims[i].k != 1 && !(fl_sym_is_known(*w) && w->k == c->dims[i].k)) {
            return false;
        }
    }
    return true;
}

/* ONNX Runtime leaves an N-D MatMul + Add alone when the MatMul reads the
 * attention's output projection: Reshape(Transpose(MatMul(Softmax(..), v))). */
static bool attention_projection(const fl_node *mm) {
    static const int chain[] = {FL_OP_ONNX_RESHAPE, FL_OP_ONNX_TRANSPOSE, FL_OP_ONNX_MATMUL,
                                FL_OP_ONNX_SOFTMAX};
    const fl_node *n = mm;
    for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++) {
        n = fl__rm_in_node(n, 0);
        if (!n || n->kind != chain[i]) {
            return false;
        }
    }
    return true;
}

/* A new int64 initializer <owner>/<suffix> holding v[0..n). */
static fl_node *shape_const(rctx *r, const fl_node *owner, const char *suffix, int64_t n,
                            const int64_t *v) {
    fl_value *val = fl__value_new(r->g->arena, FL_DT_INT64, 1, &n);
    if (!val) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    fl_sym *e = (fl_sym *)val->ints;
    for (int64_t i = 0; i < n; i++) {
        e[i] = fl_sym_const(v[i]);
    }
    return fl__rm_onnx_new_const(r, owner, suffix, FL_DT_INT64, 1, &n, val);
}

/* A new ONNX operator <owner>/<suffix> of registry kind `kind`. */
static fl_node *extra_op(rctx *r, const fl_node *owner, const char *suffix, int kind, int n_in,
                         const fl_input *in) {
    const char *q = fl__op_name(kind);
    fl_node *n =
        fl__rm_add_extra(r, owner->name, suffix, strstr(q, "::") + 2, owner->device, n_in, in);
    if (n) {
        fl__op_bind_kind(n, kind);
    }
    return n;
}

/* contraction_bias on an N-D operand (ONNX Runtime's MatMulAddFusion):
 * Add(MatMul(A, B), C), A of rank != 2 with every dim known ([..., K], M
 * the product of the others), B 2-D [K, N] with K and N known, C 1-D [N],
 * float or half  =>  Reshape(Gemm(Reshape(A, [M, K]), B, C), A's dims with
 * the last one N): the outer Reshape named after the Add, the Gemm
 * <add>/gemm, the inner Reshape <add>/gemm_input (shapes <add>/gemm_input_shape,
 * <add>/gemm_output_shape). Not when A is the attention's output
 * projection (see attention_projection). */
static bool matmul_add_nd(rctx *r, fl_node *add, fl_node *mm, int ci) {
    const fl_tensor *a = fl_node_in(mm, 0), *b = fl_node_in(mm, 1);
    fl_input c = add->inputs[ci];
    const fl_shape *cs = &fl_node_in(add, ci)->shape;
    int rank = a->shape.rank;
    if (rank < 1 || rank == 2 || rank > FL_RM_ONNX_MAX_RANK || b->shape.rank != 2 ||
        !fl__shape_is_concrete(&a->shape) || !fl__shape_is_concrete(&b->shape) ||
        (a->dtype != FL_DT_FLOAT && a->dtype != FL_DT_HALF) || b->dtype != a->dtype ||
        cs->rank != 1 || !fl_sym_is_known(cs->dims[0]) || cs->dims[0].k != b->shape.dims[1].k ||
        fl_node_in(add, ci)->dtype != a->dtype || attention_projection(mm)) {
        return false;
    }
    int64_t m = 1, kk = b->shape.dims[0].k, nn = b->shape.dims[1].k, out[FL_RM_ONNX_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        out[i] = a->shape.dims[i].k;
        m *= i < rank - 1 ? out[i] : 1;
    }
    if (out[rank - 1] != kk) {
        return false;
    }
    out[rank - 1] = nn;
    fl__ledger_note(r->pc, "contraction_bias", add,
                    "MatMul+Add (rank %d) -> Reshape + Gemm + Reshape", rank);
    fl_node *s_in = shape_const(r, add, "gemm_input_shape", 2, (int64_t[]){m, kk});
    fl_node *s_out = shape_const(r, add, "gemm_output_shape", rank, out);
    if (!s_in || !s_out) {
        return false;
    }
    fl_node *r_in = extra_op(r, add, "gemm_input", FL_OP_ONNX_RESHAPE, 2,
                             (fl_input[]){mm->inputs[0], {s_in, 0}});
    fl_node *gemm = r_in ? extra_op(r, add, "gemm", FL_OP_ONNX_GEMM, 3,
                                    (fl_input[]){{r_in, 0}, mm->inputs[1], c})
                         : NULL;
    if (!gemm ||
        !fl__rm_onnx_replace(r, add, FL_OP_ONNX_RESHAPE, 2, (fl_input[]){{gemm, 0}, {s_out, 0}})) {
        return false;
    }
    fl__rm_drop(r, mm);
    return r->st == FL_OK;
}

static bool matmul_add_to_gemm(rctx *r, fl_node *add) {
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 || fl__rm_has_ctrl(r, add)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        fl_node *mm = absorbable(r, add, k, FL_OP_ONNX_MATMUL, false);
        fl_node *cn = fl__rm_in_node(add, 1 - k);
        if (mm && mm->n_inputs == 2 && matmul_add_nd(r, add, mm, 1 - k)) {
            return true;
        }
        if (!mm || mm->n_inputs != 2 || !fl__rm_onnx_const(cn) || add->inputs[1 - k].port != 0) {
            continue;
        }
        const fl_tensor *a = fl_node_in(mm, 0), *b = fl_node_in(mm, 1), *o = &mm->outputs[0];
        if (a->shape.rank != 2 || b->shape.rank != 2 || !fl__rm_onnx_const(mm->inputs[1].node) ||
            o->shape.rank != 2 || cn->outputs[0].dtype != o->dtype ||
            !gemm_c_ok(&cn->outputs[0].shape, o->shape.dims[0], o->shape.dims[1]) ||
            !fl__shape_same(&o->shape, &add->outputs[0].shape)) {
            continue;
        }
        fl__ledger_note(r->pc, "contraction_bias", add, "MatMul+Add -> Gemm");
        fl_input in[3] = {mm->inputs[0], mm->inputs[1], add->inputs[1 - k]};
        if (!fl__rm_onnx_replace(r, add, FL_OP_ONNX_GEMM, 3, in)) {
            return false;
        }
        fl__rm_drop(r, mm);
        return r->st == FL_OK;
    }
    return false;
}

static bool swish(rctx *r, fl_node *mul) {
    if (mul->kind != FL_OP_ONNX_MUL || mul->n_inputs != 2 || fl__rm_has_ctrl(r, mul)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        fl_node *s = absorbable(r, mul, k, FL_OP_ONNX_SIGMOID, false);
        if (!s || s->n_inputs != 1 || !fl__rm_same_input(s->inputs[0], mul->inputs[1 - k])) {
            continue;
        }
        const fl_tensor *x = fl_node_in(s, 0);
        if ((x->dtype != FL_DT_FLOAT && x->dtype != FL_DT_HALF) ||
            !fl__shape_same(&x->shape, &mul->outputs[0].shape)) {
            continue;
        }
        fl__ledger_note(r->pc, "swish", mul, "Mul(x, Sigmoid(x)) -> com.microsoft.QuickGelu");
        fl_node *q = fl__rm_onnx_replace(r, mul, FL_OP_ONNX_MS_QUICK_GELU, 1, s->inputs);
        if (!q) {
            return false;
        }
        fl__rm_set_attr(r, q, fl__attr_make_float(r->g, "alpha", 1.0f));
        fl__rm_drop(r, s);
        return r->st == FL_OK;
    }
    return false;
}

bool fl__rm_onnx_rewrite(rctx *r, fl_node *n) {
    if (r->onnx_phase == 1 && n->n_inputs >= 1 && !fl__rm_has_ctrl(r, n)) {
        float params[2];
        size_t n_params;
        fl_node *bn = fl__rm_in_node(n, 0);
        if (bn->kind == FL_OP_ONNX_BATCH_NORM && !fl__rm_is_removed(bn) && n->inputs[0].port == 0 &&
            fl__rm_fanout(r, bn, 0) == 1 && !fl__preserved(bn) &&
            conv_activation(n, params, &n_params) && fl__rm_onnx_conv_bn(r, bn)) {
            fuse_conv_act(r, n, true);
            return true;
        }
    }
    if (r->onnx_phase == 1) {
        if (fl__rm_onnx_eliminate_dropout(r, n) || fuse_conv_act(r, n, false) ||
            fuse_gemm_act(r, n) || matmul_add_to_gemm(r, n)) {
            return true;
        }
        if (fl__rm_onnx_gelu(r, n) || fl__rm_onnx_layer_norm(r, n)) {
            r->onnx_phase2 = true; /* a Gelu or LayerNormalization: the second sweep's */
            return true;
        }
        return fl__rm_onnx_simplified_layer_norm(r, n) || fl__rm_onnx_conv_bn(r, n) ||
               fl__rm_onnx_gemm_transpose(r, n);
    }
    return fl__rm_onnx_slices_to_split(r, n) || fl__rm_onnx_skip_layer_norm(r, n) ||
           fl__rm_onnx_bias_gelu(r, n) || swish(r, n) || fl__rm_onnx_fused_matmul(r, n);
}
