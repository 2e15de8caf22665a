/*
 * onnx_ort.c - the fusions of ONNX Runtime's 'extended' level that
 * Grappler has no rule for, over ONNX operators: transformer subgraphs
 * recognised as the contrib operators ONNX Runtime runs (com.microsoft
 * FusedMatMul, SkipLayerNormalization, BiasGelu, FastGelu), so the optimised
 * graph written back loads there. Ledger names are the names of ONNX
 * Runtime's graph transformers (its optimizer/ sources), in snake case.
 * Every rule keeps MACs: the contraction is the same, only the elementwise
 * work around it moves into the fused operator.
 *
 *  matmul_transpose_fusion / matmul_scale_fusion (MatmulTransposeFusion,
 *  MatMulScaleFusion):
 *    MatMul(a, b) or com.microsoft::FusedMatMul(a, b) whose operand a (or
 *    b, likewise) is
 *      Transpose(x) with a permutation FusedMatMul expresses, for x of rank
 *        R >= 2: [0..R-3, R-1, R-2] -> transA; [1..R-2, 0, R-1] ->
 *        transBatchA; [1..R-2, R-1, 0] -> transBatchA and transA (both only
 *        when R >= 3 and the other operand has rank R too, as ORT's kernel
 *        requires);
 *      Mul(x, c) / Mul(c, x) / Div(x, c), c a one-element float constant
 *        of rank <= x's rank, x of rank >= 1: alpha *= c (Div: 1/c, as
 *        float);
 *    repeatedly (a Transpose of a scaled operand, a scaled transposed
 *    operand; one Transpose per operand, and only while that operand has no
 *    trans flag yet), and a Mul/Div by such a constant that is the MatMul's
 *    only reader (the root is then that Mul/Div)  =>
 *    com.microsoft::FusedMatMul(x_a, x_b) with transA, transB, transBatchA,
 *    transBatchB and alpha (the product of the scales, in float), named
 *    after the root. Conditions: the operands float, double or half; every
 *    folded node read only inside the pattern, not a graph output, no
 *    control edges - except a Transpose that is the MatMul's operand itself
 *    (not behind a scale): read by other nodes too, it is folded all the
 *    same and kept for them, as ONNX Runtime does; the last MatMul to fold
 *    it (no live reader left) drops it. A Transpose that is a graph output
 *    or has control edges is never folded.
 *  skip_layer_norm_fusion (SkipLayerNormFusion):
 *    LayerNormalization(Add(a, b), gamma[, beta]) normalising the last axis
 *    (axis -1 or rank-1), a and b 3-D of one shape (dims 1 and 2 known,
 *    dim 0 the same, possibly a symbol), gamma and beta 1-D of the hidden
 *    size (SkipLayerNormalization's schema), float or half, the Add read only
 *    by the LayerNormalization and its mean/inv-std outputs unread  =>
 *    com.microsoft::SkipLayerNormalization(a, b, gamma, beta) named after
 *    the LayerNormalization, its epsilon (explicitly: SkipLayerNormalization's
 *    default, 1e-12, is not LayerNormalization's). When a (else b) is
 *    Add(x, c) (either order) with c a 1-D constant of the hidden size,
 *    read only by this Add and with beta present, x takes its place and c
 *    becomes the bias input (ONNX Runtime's formats 1 and 2).
 *  bias_gelu_fusion (BiasGelu):
 *    com.microsoft::Gelu(Add(x, b)) or FastGelu(Add(x, b)) without bias, b
 *    (either operand) of rank 1 and x of rank >= 1 with equal known last
 *    dims, the Add read only by the Gelu  =>  com.microsoft::BiasGelu(x, b)
 *    (FastGelu(x, b)) named after the Gelu. ONNX Runtime matches Add at
 *    opset 7 only; the Add of every opset computes the same and is taken.
 *  gemm_transpose_fusion (GemmTransposeFusion): Gemm whose A or B is a
 *    2-D Transpose (perm [1, 0] or absent) read only by it  =>  the Gemm
 *    on the Transpose's input with transA / transB flipped.
 *  gather_slice_to_split_fusion (GatherSliceToSplitFusion, its Slice
 *    form): k >= 2 Slices that are every reader of a tensor x, each over one
 *    constant axis (the same for all) with step 1 and constant starts/ends,
 *    whose ranges (clamped to [0, d] as ONNX does) tile x's known dim d on
 *    that axis without gap or overlap  =>  one Split(x) along that axis
 *    named <first slice>/Split, sizes in range order (an int64 input
 *    <x>/split_sizes from opset 13, else the 'split' attr); each Slice's
 *    readers read the Split's output of its range. No Slice may be a graph
 *    output.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool float_dtype(int dt) {
    return dt == FL_DT_FLOAT || dt == FL_DT_DOUBLE || dt == FL_DT_HALF;
}

/* Mul/Div by a one-element float constant: the other input's index in *xi
 * and the factor in *f. */
static bool scale_of(const fl_node *s, int *xi, float *f) {
    if ((s->kind != FL_OP_ONNX_MUL && s->kind != FL_OP_ONNX_DIV) || s->n_inputs != 2) {
        return false;
    }
    for (int k = s->kind == FL_OP_ONNX_DIV ? 1 : 0; k < 2; k++) {
        const fl_node *c = fl__rm_in_node(s, k);
        double v;
        const fl_tensor *x = fl_node_in(s, 1 - k);
        if (!c || c->kind != FL_OP_CONST || !fl__rm_onnx_value(c) ||
            !float_dtype(c->outputs[0].dtype) || !fl__rm_const_scalar(c, false, false, &v) ||
            x->shape.rank < 1 || c->outputs[0].shape.rank > x->shape.rank) {
            continue;
        }
        *xi = 1 - k;
        *f = s->kind == FL_OP_ONNX_DIV ? 1.0f / (float)v : (float)v;
        return true;
    }
    return false;
}

/* The FusedMatMul flags of Transpose t's permutation (false when it has
 * none); other_rank: the rank of the MatMul's other operand. */
static bool perm_flags(const fl_node *t, int other_rank, int64_t *trans, int64_t *tbatch) {
    int r = fl_node_in(t, 0)->shape.rank;
    const fl_attr *pa = fl__node_attr(t, "perm");
    if (r < 2 || r > FL_RM_ONNX_MAX_RANK) {
        return false;
    }
    int64_t p[FL_RM_ONNX_MAX_RANK];
    if (!pa) {
        for (int i = 0; i < r; i++) {
            p[i] = r - 1 - i;
        }
    } else if (pa->kind == FL_ATTR_LIST && pa->list_kind == FL_ATTR_I && (int)pa->n == r) {
        memcpy(p, pa->v.list.i, (size_t)r * sizeof(int64_t));
    } else {
        return false;
    }
    bool swap = p[r - 2] == r - 1 && p[r - 1] == r - 2, keep = true, shift = true;
    for (int i = 0; i < r - 2; i++) {
        keep &= p[i] == i;
        shift &= p[i] == i + 1;
    }
    if (keep && swap) {
        *trans = 1;
        *tbatch = 0;
        return true;
    }
    if (!shift || r < 3 || other_rank != r) {
        return false;
    }
    if (p[r - 2] == 0 && p[r - 1] == r - 1) {
        *trans = 0;
    } else if (p[r - 2] == r - 1 && p[r - 1] == 0) {
        *trans = 1;
    } else {
        return false;
    }
    *tbatch = 1;
    return true;
}

typedef struct mm_fold {
    fl_input in[2];
    int64_t t[2], tb[2];
    float alpha;
    bool transposed, scaled, kept; /* kept: a folded Transpose stays for other readers */
    fl_node *drop[16];
    int n_drop;
} mm_fold;

/* Whether a live node other than mm reads t (the edge index lists a
 * superset of t's readers, including nodes this pass added). */
static bool read_elsewhere(rctx *r, const fl_node *t, const fl_node *mm) {
    if (fl__edge_index_need(&r->edges, r->d) != FL_OK) {
        fl__rm_fail_oom(r);
        return true;
    }
    if (t->id >= r->edges.cap_head) {
        return true;
    }
    for (uint32_t e = r->edges.head[t->id]; e; e = fl__edge_index_at(&r->edges, e)->next) {
        const fl_node *q = fl__edge_index_reader(&r->edges, e);
        if (q == mm || fl__rm_is_removed(q)) {
            continue;
        }
        for (int i = 0; i < q->n_inputs; i++) {
            if (q->inputs[i].node == t) {
                return true;
            }
        }
        for (int i = 0; i < q->n_ctrl; i++) {
            if (q->ctrl[i] == t) {
                return true;
            }
        }
    }
    return false;
}

/* A Transpose directly under mm that other nodes read too (ONNX Runtime
 * folds it and keeps it for them): folded into f's operand k, dropped when
 * no live reader is left. */
static bool fold_shared_transpose(rctx *r, const fl_node *mm, mm_fold *f, int k) {
    fl_node *p = f->in[k].node;
    int64_t t, tb;
    if (f->in[k].port != 0 || p->kind != FL_OP_ONNX_TRANSPOSE || p->n_inputs != 1 || f->t[k] ||
        f->tb[k] || fl__rm_is_removed(p) || fl__rm_has_ctrl(r, p) || fl__preserved(p) ||
        p->id >= r->n0 || !perm_flags(p, fl_node_in(mm, 1 - k)->shape.rank, &t, &tb)) {
        return false;
    }
    f->t[k] = t;
    f->tb[k] = tb;
    f->transposed = true;
    f->in[k] = p->inputs[0];
    if (!read_elsewhere(r, p, mm)) {
        f->drop[f->n_drop++] = p;
    } else {
        f->kept = true;
    }
    return true;
}

/* Folds the Transposes and scales feeding operand k of mm into f. */
static void fold_operand(rctx *r, const fl_node *mm, mm_fold *f, int k) {
    const fl_node *user = mm;
    while (f->n_drop < 16) {
        fl_node *p = f->in[k].node;
        int xi;
        float s;
        int64_t t, tb;
        if (f->in[k].port != 0) {
            return;
        }
        if (!fl__rm_removable(r, p, &user, 1)) {
            if (user == mm) {
                fold_shared_transpose(r, mm, f, k);
            }
            return;
        }
        if (p->kind == FL_OP_ONNX_TRANSPOSE && p->n_inputs == 1 && !f->t[k] && !f->tb[k] &&
            perm_flags(p, fl_node_in(mm, 1 - k)->shape.rank, &t, &tb)) {
            f->t[k] = t;
            f->tb[k] = tb;
            f->transposed = true;
            xi = 0;
        } else if (scale_of(p, &xi, &s)) {
            f->alpha *= s;
            f->scaled = true;
        } else {
            return;
        }
        f->in[k] = p->inputs[xi];
        f->drop[f->n_drop++] = p;
        user = p;
    }
}

static bool matmul_kind(const fl_node *n) {
    return (n->kind == FL_OP_ONNX_MATMUL || n->kind == FL_OP_ONNX_MS_FUSED_MATMUL) &&
           n->n_inputs == 2;
}

/* The FusedMatMul flags and alpha mm already has. */
static void initial_flags(const fl_node *mm, mm_fold *f) {
    f->alpha = 1.0f;
    for (int k = 0; k < 2; k++) {
        f->in[k] = mm->inputs[k];
        f->t[k] = f->tb[k] = 0;
    }
    if (mm->kind == FL_OP_ONNX_MS_FUSED_MATMUL) {
        f->t[0] = fl__attr_int(mm, "transA", 0);
        f->t[1] = fl__attr_int(mm, "transB", 0);
        f->tb[0] = fl__attr_int(mm, "transBatchA", 0);
        f->tb[1] = fl__attr_int(mm, "transBatchB", 0);
        f->alpha = fl__attr_float(mm, "alpha", 1.0f);
    }
}

bool fl__rm_onnx_fused_matmul(rctx *r, fl_node *root) {
    if (fl__rm_has_ctrl(r, root)) {
        return false;
    }
    fl_node *mm = root;
    mm_fold f = {0};
    float out_scale = 1.0f;
    int xi;
    if (!matmul_kind(root)) {
        if (!scale_of(root, &xi, &out_scale)) {
            return false;
        }
        mm = fl__rm_in_node(root, xi);
        if (!matmul_kind(mm) || root->inputs[xi].port != 0 ||
            !fl__rm_removable(r, mm, (const fl_node *[]){root}, 1)) {
            return false;
        }
        f.scaled = true;
    }
    initial_flags(mm, &f);
    f.alpha *= out_scale;
    if (!float_dtype(fl_node_in(mm, 0)->dtype) || !float_dtype(fl_node_in(mm, 1)->dtype)) {
        return false;
    }
    fold_operand(r, mm, &f, 0);
    fold_operand(r, mm, &f, 1);
    if (!f.transposed && !f.scaled) {
        return false;
    }
    if (f.transposed) {
        fl__ledger_note(r->pc, "matmul_transpose_fusion", root,
                        "Transpose folded into %s -> com.microsoft.FusedMatMul%s", mm->op,
                        f.kept ? " (the Transpose kept for its other readers)" : "");
    }
    if (f.scaled) {
        fl__ledger_note(
            r->pc, "matmul_scale_fusion", root,
            "scale by a constant folded into %s -> com.microsoft.FusedMatMul (alpha %g)", mm->op,
            (double)f.alpha);
    }
    fl_node *n = fl__rm_onnx_replace(r, root, FL_OP_ONNX_MS_FUSED_MATMUL, 2, f.in);
    if (!n) {
        return false;
    }
    static const char *const names[4] = {"transA", "transB", "transBatchA", "transBatchB"};
    const int64_t vals[4] = {f.t[0], f.t[1], f.tb[0], f.tb[1]};
    for (int i = 0; i < 4; i++) {
        fl__rm_set_attr(r, n, fl__attr_make_int(r->g, names[i], vals[i]));
    }
    fl__rm_set_attr(r, n, fl__attr_make_float(r->g, "alpha", f.alpha));
    if (mm != root) {
        fl__rm_drop(r, mm);
    }
    for (int i = 0; i < f.n_drop; i++) {
        fl__rm_drop(r, f.drop[i]);
    }
    return r->st == FL_OK;
}

/* Add(x, c) or Add(c, x), c a 1-D constant of length h, read only by
 * `user`, x of shape s: x's input index in *xi. */
static bool bias_add(const rctx *r, fl_node *add, const fl_node *user, const fl_shape *s, fl_sym h,
                     int *xi) {
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 || !fl__rm_removable(r, add, &user, 1)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        const fl_node *c = fl__rm_in_node(add, k);
        const fl_shape *cs = &c->outputs[0].shape;
        if (fl__rm_onnx_const(c) && cs->rank == 1 && cs->dims[0].k == h.k &&
            fl__shape_same(&fl_node_in(add, 1 - k)->shape, s)) {
            *xi = 1 - k;
            return true;
        }
    }
    return false;
}

/* The LayerNormalization's input Add, when the rule applies to ln. */
static fl_node *skip_add(const rctx *r, const fl_node *ln) {
    if (ln->kind != FL_OP_ONNX_LAYER_NORM || ln->n_inputs < 2 || ln->n_inputs > 3 ||
        fl__rm_has_ctrl(r, ln) || ln->inputs[0].port != 0 ||
        (ln->n_inputs == 3 && fl__rm_in_node(ln, 2)->kind == FL_OP_ONNX_ABSENT)) {
        return NULL;
    }
    for (int p = 1; p < ln->n_outputs; p++) {
        if (fl__rm_fanout(r, ln, p) != 0) {
            return NULL;
        }
    }
    fl_node *add = fl__rm_in_node(ln, 0);
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 || !fl__rm_removable(r, add, &ln, 1)) {
        return NULL;
    }
    const fl_shape *a = &fl_node_in(add, 0)->shape, *b = &fl_node_in(add, 1)->shape;
    int dt = add->outputs[0].dtype;
    int64_t axis = fl__attr_int(ln, "axis", -1);
    if (a->rank != 3 || !fl__shape_same(a, b) || !fl_sym_is_known(a->dims[1]) ||
        !fl_sym_is_known(a->dims[2]) || (dt != FL_DT_FLOAT && dt != FL_DT_HALF) ||
        (axis != -1 && axis != 2)) {
        return NULL;
    }
    for (int i = 1; i < ln->n_inputs; i++) { /* SkipLayerNormalization: gamma, beta [hidden] */
        const fl_shape *g = &fl_node_in(ln, i)->shape;
        if (g->rank != 1 || !fl_sym_is_known(g->dims[0]) || g->dims[0].k != a->dims[2].k) {
            return NULL;
        }
    }
    return add;
}

bool fl__rm_onnx_skip_layer_norm(rctx *r, fl_node *ln) {
    fl_node *add = skip_add(r, ln);
    if (!add) {
        return false;
    }
    const fl_shape *s = &fl_node_in(add, 0)->shape;
    fl_input in[5] = {add->inputs[0], add->inputs[1], ln->inputs[1]};
    int n_in = 3, xi;
    fl_node *bias = NULL;
    if (ln->n_inputs == 3) {
        in[n_in++] = ln->inputs[2];
        for (int k = 0; k < 2 && !bias; k++) {
            fl_node *a2 = fl__rm_in_node(add, k);
            if (add->inputs[k].port == 0 && bias_add(r, a2, add, s, s->dims[2], &xi)) {
                bias = a2;
                in[k] = a2->inputs[xi];
                in[n_in++] = a2->inputs[1 - xi];
            }
        }
    }
    fl__ledger_note(r->pc, "skip_layer_norm_fusion", ln,
                    "Add%s + LayerNormalization -> com.microsoft.SkipLayerNormalization",
                    bias ? " (+ bias Add)" : "");
    float eps = fl__attr_float(ln, "epsilon", 1e-5f);
    fl_node *n = fl__rm_onnx_replace(r, ln, FL_OP_ONNX_MS_SKIP_LAYER_NORM, n_in, in);
    if (!n) {
        return false;
    }
    fl__rm_set_attr(r, n, fl__attr_make_float(r->g, "epsilon", eps));
    fl__rm_drop(r, add);
    if (bias) {
        fl__rm_drop(r, bias);
    }
    return r->st == FL_OK;
}

bool fl__rm_onnx_bias_gelu(rctx *r, fl_node *gelu) {
    bool fast = gelu->kind == FL_OP_ONNX_MS_FAST_GELU;
    if ((gelu->kind != FL_OP_ONNX_MS_GELU && !fast) || gelu->n_inputs != 1 ||
        fl__rm_has_ctrl(r, gelu) || gelu->inputs[0].port != 0) {
        return false;
    }
    fl_node *add = fl__rm_in_node(gelu, 0);
    if (add->kind != FL_OP_ONNX_ADD || add->n_inputs != 2 ||
        !fl__rm_removable(r, add, (const fl_node *[]){gelu}, 1)) {
        return false;
    }
    const fl_shape *s0 = &fl_node_in(add, 0)->shape, *s1 = &fl_node_in(add, 1)->shape;
    if (s0->rank < 1 || s1->rank < 1 || !float_dtype(add->outputs[0].dtype)) {
        return false;
    }
    fl_sym l0 = s0->dims[s0->rank - 1], l1 = s1->dims[s1->rank - 1];
    if (!fl_sym_is_known(l0) || !fl_sym_is_known(l1) || l0.k != l1.k ||
        (s0->rank != 1 && s1->rank != 1)) {
        return false;
    }
    int b = s0->rank == 1 ? 0 : 1;
    fl_input in[2] = {add->inputs[1 - b], add->inputs[b]};
    fl__ledger_note(r->pc, "bias_gelu_fusion", gelu, "Add + %s -> com.microsoft.%s", gelu->op,
                    fast ? "FastGelu" : "BiasGelu");
    if (!fl__rm_onnx_replace(r, gelu, fast ? FL_OP_ONNX_MS_FAST_GELU : FL_OP_ONNX_MS_BIAS_GELU, 2,
                             in)) {
        return false;
    }
    fl__rm_drop(r, add);
    return r->st == FL_OK;
}

bool fl__rm_onnx_gemm_transpose(rctx *r, fl_node *gemm) {
    if (gemm->kind != FL_OP_ONNX_GEMM || gemm->n_inputs < 2 || fl__rm_has_ctrl(r, gemm)) {
        return false;
    }
    fl_input in[3];
    bool flip[2] = {false, false};
    for (int k = 0; k < gemm->n_inputs; k++) {
        in[k] = gemm->inputs[k];
        fl_node *t = fl__rm_in_node(gemm, k);
        const fl_attr *pa = k < 2 && t->kind == FL_OP_ONNX_TRANSPOSE && t->n_inputs == 1
                                ? fl__node_attr(t, "perm")
                                : NULL;
        if (k >= 2 || t->kind != FL_OP_ONNX_TRANSPOSE || t->n_inputs != 1 ||
            gemm->inputs[k].port != 0 || fl_node_in(t, 0)->shape.rank != 2 ||
            (pa && (pa->kind != FL_ATTR_LIST || pa->n != 2 || pa->list_kind != FL_ATTR_I ||
                    pa->v.list.i[0] != 1 || pa->v.list.i[1] != 0)) ||
            !fl__rm_removable(r, t, (const fl_node *[]){gemm}, 1)) {
            continue;
        }
        flip[k] = true;
        in[k] = t->inputs[0];
    }
    if (!flip[0] && !flip[1]) {
        return false;
    }
    const char *which = flip[0] && flip[1] ? "A and B" : flip[0] ? "A" : "B";
    fl__ledger_note(r->pc, "gemm_transpose_fusion", gemm,
                    "Transpose of Gemm input %s folded into its trans attr", which);
    fl_node *old[2] = {flip[0] ? fl__rm_in_node(gemm, 0) : NULL,
                       flip[1] ? fl__rm_in_node(gemm, 1) : NULL};
    int64_t ta = fl__attr_int(gemm, "transA", 0) ^ flip[0];
    int64_t tb = fl__attr_int(gemm, "transB", 0) ^ flip[1];
    fl_node *n = fl__rm_onnx_replace(r, gemm, FL_OP_ONNX_GEMM, gemm->n_inputs, in);
    if (!n) {
        return false;
    }
    fl__rm_onnx_copy_attrs(r, n, gemm);
    fl__rm_set_attr(r, n, fl__attr_make_int(r->g, "transA", ta));
    fl__rm_set_attr(r, n, fl__attr_make_int(r->g, "transB", tb));
    for (int k = 0; k < 2; k++) {
        if (old[k]) {
            fl__rm_drop(r, old[k]);
        }
    }
    return r->st == FL_OK;
}

#define SPLIT_MAX 64

typedef struct slice_part {
    fl_node *s;
    int64_t b, e;
} slice_part;

/* Slice s of a rank-`rank` tensor over one constant axis with step 1:
 * its axis (normalised) and range clamped to [0, d] as ONNX does for a
 * positive step, d the dim on that axis (known). */
static bool one_axis_slice(const fl_node *s, const fl_shape *x, int64_t *axis, slice_part *p) {
    int64_t b, e, ax, st = 1, len;
    if (s->kind != FL_OP_ONNX_SLICE || s->n_inputs < 4 || s->n_inputs > 5 ||
        !fl__rm_int_input(s, 1, &b, 1, &len) || len != 1 || !fl__rm_int_input(s, 2, &e, 1, &len) ||
        len != 1 || !fl__rm_int_input(s, 3, &ax, 1, &len) || len != 1) {
        return false;
    }
    if (s->n_inputs == 5 && fl__rm_in_node(s, 4)->kind != FL_OP_ONNX_ABSENT &&
        (!fl__rm_int_input(s, 4, &st, 1, &len) || len != 1)) {
        return false;
    }
    ax += ax < 0 ? x->rank : 0;
    if (st != 1 || ax < 0 || ax >= x->rank || !fl_sym_is_known(x->dims[ax])) {
        return false;
    }
    int64_t d = x->dims[ax].k;
    b = b < 0 ? (b < -d ? 0 : b + d) : (b > d ? d : b);
    e = e < 0 ? (e < -d ? 0 : e + d) : (e > d ? d : e);
    *axis = ax;
    p->b = b;
    p->e = e;
    return b < e;
}

static int by_start(const void *x, const void *y) {
    const slice_part *a = x, *b = y;
    return (a->b > b->b) - (a->b < b->b);
}

/* The Slices reading output `port` of n when they are all its readers and
 * tile one axis: their count (sorted by start in parts), the axis in *axis;
 * 0 when not. */
static int tiling_slices(const rctx *r, const fl_node *n, int port, slice_part *parts,
                         int64_t *axis) {
    size_t cnt;
    const fl_use *u = fl__uses_of(&r->uses, n, port, &cnt);
    const fl_shape *x = &n->outputs[port].shape;
    if (cnt < 2 || cnt > SPLIT_MAX || x->rank < 1) {
        return 0;
    }
    for (size_t i = 0; i < cnt; i++) {
        int64_t ax;
        fl_node *s = u[i].node;
        if (u[i].input != 0 || fl__rm_is_removed(s) || s->id >= r->n0 || fl__preserved(s) ||
            fl__rm_has_ctrl(r, s) || !one_axis_slice(s, x, &ax, &parts[i]) ||
            (i > 0 && ax != *axis)) {
            return 0;
        }
        parts[i].s = s;
        *axis = ax;
    }
    qsort(parts, cnt, sizeof parts[0], by_start);
    for (size_t i = 0; i < cnt; i++) {
        int64_t want = i ? parts[i - 1].e : 0;
        if (parts[i].b != want || (i > 0 && parts[i].s == parts[i - 1].s)) {
            return 0;
        }
    }
    return parts[cnt - 1].e == x->dims[*axis].k ? (int)cnt : 0;
}

/* Slices tiling an axis -> Split: see the header. */
static bool slices_to_split(rctx *r, fl_node *n, int port) {
    slice_part parts[SPLIT_MAX];
    int64_t axis = 0, sizes[SPLIT_MAX];
    int k = tiling_slices(r, n, port, parts, &axis);
    if (k == 0) {
        return false;
    }
    for (int i = 0; i < k; i++) {
        sizes[i] = parts[i].e - parts[i].b;
    }
    fl__ledger_note(r->pc, "gather_slice_to_split_fusion", parts[0].s,
                    "%d Slices tiling axis %lld of '%s' -> Split", k, (long long)axis, n->name);
    fl_input in[2] = {{n, port}, {NULL, 0}};
    int n_in = 1;
    bool split_input = r->g->onnx.opset >= 13;
    if (split_input) {
        int64_t len = k;
        fl_value *v = fl__value_new(r->g->arena, FL_DT_INT64, 1, &len);
        if (!v) {
            fl__rm_fail_oom(r);
            return false;
        }
        for (int i = 0; i < k; i++) {
            ((fl_sym *)v->ints)[i] = fl_sym_const(sizes[i]);
        }
        in[1].node = fl__rm_onnx_new_const(r, n, "split_sizes", FL_DT_INT64, 1, &len, v);
        if (!in[1].node) {
            return false;
        }
        n_in = 2;
    }
    char *base = fl__arena_printf(r->g->arena, "%s/Split", parts[0].s->name);
    const char *name = base ? fl__graph_unique_name(r->g, base) : NULL;
    fl_node *sp = name ? fl__op_add_op(r->g, name, "Split", n_in, in, k, r->d) : NULL;
    if (!sp) {
        fl__rm_fail_oom(r);
        return false;
    }
    fl__op_bind_kind(sp, FL_OP_ONNX_SPLIT);
    sp->device = n->device;
    fl__rm_set_attr(r, sp, fl__attr_make_int(r->g, "axis", axis));
    if (!split_input) {
        fl__rm_set_attr(r, sp, fl__attr_make_ints(r->g, "split", (size_t)k, sizes));
    }
    if (fl__edge_index_note(&r->edges, sp, r->d) != FL_OK) {
        fl__rm_fail_oom(r);
        return false;
    }
    r->pc->added++;
    for (int i = 0; i < k; i++) {
        fl__edge_index_replace_uses(&r->edges, parts[i].s, 0, sp, i, r->d);
        fl__rm_drop(r, parts[i].s);
    }
    return r->st == FL_OK;
}

bool fl__rm_onnx_slices_to_split(rctx *r, fl_node *n) {
    for (int p = 0; p < n->n_outputs; p++) {
        if (slices_to_split(r, n, p)) {
            return true;
        }
    }
    return false;
}
