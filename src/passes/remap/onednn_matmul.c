/*
 * onednn_matmul.c - the remapper's oneDNN MatMul rules: BatchMatMulV2 + Mul
 * + AddV2 -> _MklFusedBatchMatMulV2 (row 20), and the Gelu forms after
 * MatMul + BiasAdd -> _FusedMatMul (row 17: the exact (Erf) and the
 * approximate (Tanh) subgraphs, and the standalone Gelu op). Each rule's
 * pattern, conditions and new-node names are at the rule.
 *
 * Row 17's standalone-Gelu form is in no remapper.cc we could read
 * (tensorflow/tensorflow, its mirrors, the Intel fork): it is written as the
 * Gelu-exact rule is (rewrite_matmul_gelu_op says which conditions that
 * gives) and is the one rule here not checked line by line against
 * TensorFlow.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Pattern (row 20): AddV2(Mul(BatchMatMulV2(a, b), m), addend) (operands of
 * AddV2 and Mul in either order)  =>  _MklFusedBatchMatMulV2 named after the
 * AddV2 (device of the BatchMatMulV2), inputs [a, b, m, addend], T, adj_x,
 * adj_y, fused_ops [Mul, Add], num_args 2. Conditions: oneDNN; no control
 * inputs on the AddV2; Mul and BatchMatMulV2 fl__rm_removable; m has one element;
 * the BatchMatMulV2 on CPU with T float/bf16 and a rank-4 output; the addend
 * rank 4 with dim 1 equal to 1. */
bool fl__rm_rewrite_fused_batch_matmul(rctx *r, fl_node *root) {
    if (!r->onednn || root->kind != FL_OP_ADD_V2 || root->n_inputs != 2 || root->n_ctrl > 0) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul = fl__rm_in_node(root, s);
        if (mul->kind != FL_OP_MUL || mul->n_inputs != 2) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *bmm = fl__rm_in_node(mul, q);
            if (bmm->kind != FL_OP_BATCH_MATMUL_V2 || bmm->n_inputs != 2 ||
                !fl__rm_removable(r, mul, (const fl_node *[]){root}, 1) ||
                !fl__rm_removable(r, bmm, (const fl_node *[]){mul}, 1)) {
                continue;
            }
            const fl_shape *ms = &fl_node_in(mul, 1 - q)->shape;
            const fl_shape *bs = &bmm->outputs[0].shape, *as = &fl_node_in(root, 1 - s)->shape;
            fl_sym me;
            if (fl__op_num_elements(r->pc->c, mul, ms, &me) != FL_OK || !fl_sym_is_known(me) ||
                me.k != 1 || !fl__rm_on_cpu(r, bmm) || !fl__rm_t_float_or_bf16(bmm) ||
                bs->rank != 4 || as->rank != 4 || !fl_sym_is_known(as->dims[1]) ||
                as->dims[1].k != 1) {
                continue;
            }
            fl__ledger_note(r->pc, "fused_batch_matmul", root,
                            "BatchMatMulV2+Mul+AddV2 -> _MklFusedBatchMatMulV2");
            fl_input in[4] = {bmm->inputs[0], bmm->inputs[1], mul->inputs[1 - q],
                              root->inputs[1 - s]};
            fl_node *f = fl__rm_replace_root(r, root, fl__op_name(FL_OP_MKL_FUSED_BATCH_MATMUL_V2),
                                             bmm->device, 4, in, 1);
            if (!f) {
                return false;
            }
            fl_attr fa = fl__attr_make_bool(r->g, "adj_x", false);
            fl_attr fb = fl__attr_make_bool(r->g, "adj_y", false);
            fl__rm_copy_attr(r, f, bmm, "T", NULL);
            fl__rm_copy_attr(r, f, bmm, "adj_x", &fa);
            fl__rm_copy_attr(r, f, bmm, "adj_y", &fb);
            static const char *const ops[] = {"Mul", "Add"};
            fl__rm_set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", 2, ops));
            fl__rm_set_attr(r, f, fl__attr_make_int(r->g, "num_args", 2));
            fl__rm_set_attr(r, f, fl__attr_make_float(r->g, "epsilon", 0.0f));
            fl__rm_drop(r, mul);
            fl__rm_drop(r, bmm);
            return true;
        }
    }
    return false;
}

/* Pattern (row 17, exact form): Mul(Mul(AddV2(Erf(Mul(y, c1)), c2), c3), y)
 * or Mul(Add|AddV2(Erf(Mul(y, c1)), c2), Mul(y, c3)), y = BiasAdd(MatMul(a,
 * b), bias), constants c1 0.707106, c2 1, c3 0.5 (Const or Cast, within
 * 1e-2)  =>  _FusedMatMul named after the outer Mul, inputs [a, b, bias],
 * fused_ops [BiasAdd, GeluExact], num_args 1. Conditions: oneDNN; the inner
 * nodes, the BiasAdd and the MatMul fl__rm_removable (no control edges, uses inside
 * the pattern, not preserved); MatMul CPU-compatible. */
static bool gelu_const(const fl_node *n, double want) {
    double v;
    return n && (n->kind == FL_OP_CONST || n->kind == FL_OP_CAST) &&
           fl__rm_const_scalar(n, true, false, &v) && fabs(v - want) <= 1e-2;
}

/* Mul(y, c) with y a BiasAdd (commutative); *y set. */
static bool mul_by_const(const fl_node *m, double c, fl_node **y) {
    if (m->kind != FL_OP_MUL || m->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        if (fl__rm_in_node(m, s)->kind == FL_OP_BIAS_ADD && m->inputs[s].port == 0 &&
            gelu_const(fl__rm_in_node(m, 1 - s), c)) {
            *y = fl__rm_in_node(m, s);
            return true;
        }
    }
    return false;
}

/* Add|AddV2(Erf(Mul(y, 0.707106)), 1); *erf, *mulc, *y set. */
static bool erf_plus_one(const fl_node *a, bool v2_only, fl_node **erf, fl_node **mulc,
                         fl_node **y) {
    if (!(v2_only ? a->kind == FL_OP_ADD_V2 : fl__is_add(a)) || a->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *e = fl__rm_in_node(a, s);
        if (e->kind == FL_OP_ERF && e->n_inputs == 1 && gelu_const(fl__rm_in_node(a, 1 - s), 1.0) &&
            mul_by_const(fl__rm_in_node(e, 0), 0.707106, y)) {
            *erf = e;
            *mulc = fl__rm_in_node(e, 0);
            return true;
        }
    }
    return false;
}

bool fl__rm_rewrite_matmul_gelu_exact(rctx *r, fl_node *out) {
    if (!r->onednn || out->kind != FL_OP_MUL || out->n_inputs != 2 || out->n_ctrl > 0) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *a = fl__rm_in_node(out, s), *b = fl__rm_in_node(out, 1 - s);
        fl_node *erf, *mulc, *y = NULL, *y2 = NULL, *half = NULL, *plus = NULL;
        /* form 1: Mul(Mul(AddV2(erf..), 0.5), y) */
        if (a->kind == FL_OP_MUL && a->n_inputs == 2) {
            for (int q = 0; q < 2 && !y2; q++) {
                if (erf_plus_one(fl__rm_in_node(a, q), true, &erf, &mulc, &y) &&
                    gelu_const(fl__rm_in_node(a, 1 - q), 0.5) && b->kind == FL_OP_BIAS_ADD &&
                    out->inputs[1 - s].port == 0) {
                    y2 = b;
                    half = a;
                    plus = fl__rm_in_node(a, q);
                }
            }
        }
        /* form 2: Mul(Add|AddV2(erf..), Mul(y, 0.5)) */
        if (!y2 && erf_plus_one(a, false, &erf, &mulc, &y) && mul_by_const(b, 0.5, &y2)) {
            half = b;
            plus = a;
        }
        if (!y2 || y2 != y) {
            continue;
        }
        fl_node *mm = fl__rm_in_node(y, 0);
        const fl_node *y_users[] = {mulc, out, half};
        if (!fl__rm_is_matmul(mm) || y->n_inputs != 2 || y->inputs[0].port != 0 ||
            !fl__rm_removable(r, half, (const fl_node *[]){out}, 1) ||
            !fl__rm_removable(r, plus, (const fl_node *[]){out, half}, 2) ||
            !fl__rm_removable(r, erf, (const fl_node *[]){plus}, 1) ||
            !fl__rm_removable(r, mulc, (const fl_node *[]){erf}, 1) ||
            !fl__rm_removable(r, y, y_users, 3) ||
            !fl__rm_removable(r, mm, (const fl_node *[]){y}, 1) ||
            !fl__rm_cpu_contraction_ok(r, mm)) {
            continue;
        }
        static const char *const ops[] = {"BiasAdd", "GeluExact"};
        fl__ledger_note(r->pc, "matmul_bias_gelu_exact", out,
                        "MatMul+BiasAdd+Gelu -> _FusedMatMul");
        if (!fl__rm_build_fused(r, out, mm, &y->inputs[1], 1, ops, 2, 0.0f, NULL)) {
            return false;
        }
        fl__rm_drop(r, half);
        fl__rm_drop(r, plus);
        fl__rm_drop(r, erf);
        fl__rm_drop(r, mulc);
        fl__rm_drop(r, y);
        fl__rm_drop(r, mm);
        return true;
    }
    return false;
}

/* Pattern (row 17, approximate form; FindMatMulBiasAddAndGelu's second
 * pattern):
 *   Mul(Mul(AddV2(Tanh(Mul(AddV2(m, p), c_sqrt)), c_one), c_half), m)
 * with m a _FusedMatMul whose fused_ops are exactly [BiasAdd] (the first
 * remapper run fused MatMul+BiasAdd; this matches in the next run) and p the
 * cube term: on CPU Mul(Mul(c_emp, m), Square(m)) (ArithmeticOptimizer's
 * ConvertPow and MinimizeBroadcasts rewrote c_emp * Pow(m, 3) into it), on
 * GPU (root placed on GPU) Mul(Pow(m, c_three), c_emp). Binary ops match in
 * either operand order (their two operands always differ in op type, so
 * this equals TensorFlow's one-step look-ahead). Constants: Const nodes (no
 * Cast in this pattern) holding one float/bfloat16/half element within 1e-2
 * of c_sqrt 0.797884, c_one 1, c_half 0.5, c_emp 0.044715, c_three 3 (GPU)
 *   =>  _FusedMatMul named after the root, device of m, inputs m's [a, b,
 * bias], T, transpose_a, transpose_b copied, fused_ops [BiasAdd,
 * GeluApproximate], num_args 1, epsilon 0.
 * Conditions: oneDNN (cublasLt and cuDNN runtime fusion are off); no control
 * input on the root; every other matched op fl__rm_removable (no control edges,
 * uses inside the pattern, not preserved); not transpose_a when m is on CPU.
 * No dtype check (TensorFlow's: m was already fused for a compatible T). */
static bool gelu_approx_const(const fl_node *n, double want) {
    double v;
    if (!n || n->kind != FL_OP_CONST || !fl__rm_const_scalar(n, false, false, &v)) {
        return false;
    }
    int dt = n->outputs[0].value->dtype;
    return (dt == FL_DT_FLOAT || dt == FL_DT_BFLOAT16 || dt == FL_DT_HALF) &&
           fabs(v - want) <= 1e-2;
}

/* A binary `op` reading node a-op `op_a` and b-op `op_b` in either order:
 * the operand of op_a in *a, of op_b in *b (port 0 both). */
static bool binary_of(const fl_node *n, int op, int op_a, int op_b, fl_node **a, fl_node **b) {
    if (!n || n->kind != op || n->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *x = fl__rm_in_node(n, s), *y = fl__rm_in_node(n, 1 - s);
        if (x->kind == op_a && y->kind == op_b && n->inputs[s].port == 0 &&
            n->inputs[1 - s].port == 0) {
            *a = x;
            *b = y;
            return true;
        }
    }
    return false;
}

bool fl__rm_rewrite_matmul_gelu_approx(rctx *r, fl_node *out) {
    fl_node *half, *m, *plus, *c_half, *tanh_, *c_one, *msq, *c_sqrt, *addm, *m2, *cube;
    if (!r->onednn || out->n_ctrl > 0 ||
        !binary_of(out, FL_OP_MUL, FL_OP_MUL, FL_OP_FUSED_MATMUL, &half, &m) ||
        !binary_of(half, FL_OP_MUL, FL_OP_ADD_V2, FL_OP_CONST, &plus, &c_half) ||
        !binary_of(plus, FL_OP_ADD_V2, FL_OP_TANH, FL_OP_CONST, &tanh_, &c_one) ||
        tanh_->n_inputs != 1 ||
        !binary_of(fl__rm_in_node(tanh_, 0), FL_OP_MUL, FL_OP_ADD_V2, FL_OP_CONST, &addm,
                   &c_sqrt) ||
        !binary_of(addm, FL_OP_ADD_V2, FL_OP_FUSED_MATMUL, FL_OP_MUL, &m2, &cube) || m2 != m) {
        return false;
    }
    msq = fl__rm_in_node(tanh_, 0);
    bool gpu = fl__rm_on_gpu(r, out);
    fl_node *inner = NULL, *sq_or_pow = NULL, *c_emp = NULL, *c_three = NULL, *x;
    if (gpu) {
        /* Mul(Pow(m, three), c_emp) */
        if (!binary_of(cube, FL_OP_MUL, FL_OP_POW, FL_OP_CONST, &sq_or_pow, &c_emp) ||
            sq_or_pow->n_inputs != 2 || fl__rm_in_node(sq_or_pow, 0) != m ||
            sq_or_pow->inputs[0].port != 0 || fl__rm_in_node(sq_or_pow, 1)->kind != FL_OP_CONST) {
            return false;
        }
        c_three = fl__rm_in_node(sq_or_pow, 1);
    } else {
        /* Mul(Mul(c_emp, m), Square(m)) */
        if (!binary_of(cube, FL_OP_MUL, FL_OP_MUL, FL_OP_SQUARE, &inner, &sq_or_pow) ||
            sq_or_pow->n_inputs != 1 || fl__rm_in_node(sq_or_pow, 0) != m ||
            !binary_of(inner, FL_OP_MUL, FL_OP_CONST, FL_OP_FUSED_MATMUL, &c_emp, &x) || x != m) {
            return false;
        }
    }
    const fl_attr *fo = fl__node_attr(m, "fused_ops");
    if (!fo || fo->kind != FL_ATTR_LIST || fo->n != 1 || fo->list_kind != FL_ATTR_S ||
        strcmp(fo->v.list.s[0].p, "BiasAdd") != 0 || m->n_inputs != 3 ||
        (fl__rm_on_cpu(r, m) && fl__attr_bool(m, "transpose_a", false))) {
        return false;
    }
    if (!gelu_approx_const(c_sqrt, 0.797884) || !gelu_approx_const(c_one, 1.0) ||
        !gelu_approx_const(c_half, 0.5) || !gelu_approx_const(c_emp, 0.044715) ||
        (gpu && !gelu_approx_const(c_three, 3.0))) {
        return false;
    }
    const fl_node *m_users_cpu[] = {out, addm, inner, sq_or_pow};
    const fl_node *m_users_gpu[] = {out, addm, sq_or_pow};
    if (!fl__rm_removable(r, half, (const fl_node *[]){out}, 1) ||
        !fl__rm_removable(r, plus, (const fl_node *[]){half}, 1) ||
        !fl__rm_removable(r, tanh_, (const fl_node *[]){plus}, 1) ||
        !fl__rm_removable(r, msq, (const fl_node *[]){tanh_}, 1) ||
        !fl__rm_removable(r, addm, (const fl_node *[]){msq}, 1) ||
        !fl__rm_removable(r, cube, (const fl_node *[]){addm}, 1) ||
        !fl__rm_removable(r, sq_or_pow, (const fl_node *[]){cube}, 1) ||
        (!gpu && !fl__rm_removable(r, inner, (const fl_node *[]){cube}, 1)) ||
        !fl__rm_removable(r, m, gpu ? m_users_gpu : m_users_cpu, gpu ? 3 : 4)) {
        return false;
    }
    fl__ledger_note(r->pc, "matmul_bias_gelu_approximate", out,
                    "_FusedMatMul[BiasAdd]+Gelu(tanh) -> _FusedMatMul");
    fl_input in[3] = {m->inputs[0], m->inputs[1], m->inputs[2]};
    fl_node *f = fl__rm_replace_root(r, out, fl__op_name(FL_OP_FUSED_MATMUL), m->device, 3, in, 1);
    if (!f) {
        return false;
    }
    fl_attr ta = fl__attr_make_bool(r->g, "transpose_a", false);
    fl_attr tb = fl__attr_make_bool(r->g, "transpose_b", false);
    fl__rm_copy_attr(r, f, m, "T", NULL);
    fl__rm_copy_attr(r, f, m, "transpose_a", &ta);
    fl__rm_copy_attr(r, f, m, "transpose_b", &tb);
    static const char *const ops[] = {"BiasAdd", "GeluApproximate"};
    fl__rm_set_fused_attrs(r, f, ops, 2, 1, 0.0f, NULL);
    fl__rm_drop(r, half);
    fl__rm_drop(r, plus);
    fl__rm_drop(r, tanh_);
    fl__rm_drop(r, msq);
    fl__rm_drop(r, addm);
    fl__rm_drop(r, cube);
    fl__rm_drop(r, sq_or_pow);
    if (!gpu) {
        fl__rm_drop(r, inner);
    }
    fl__rm_drop(r, m);
    return true;
}

/* Pattern (row 17, the standalone Gelu op): Gelu(BiasAdd(MatMul(a, b),
 * bias))  =>  _FusedMatMul named after the Gelu, device of the MatMul,
 * inputs [a, b, bias], T, transpose_a, transpose_b copied, fused_ops
 * [BiasAdd, GeluApproximate] when the Gelu's `approximate` is true, else
 * [BiasAdd, GeluExact] (absent: false, the registry's default, ew.c),
 * num_args 1, epsilon 0.
 * Written as the Gelu-exact rule of FindMatMulBiasAddAndGelu is: the
 * matcher above with the Gelu kReplace and the BiasAdd (two inputs) and the
 * MatMul kRemove, so no control edges on the three, the BiasAdd read only by
 * the Gelu and the MatMul only by the BiasAdd, neither preserved; then the
 * MatMul CPU-compatible with oneDNN (on CPU, T float or bfloat16). No dtype
 * check on the BiasAdd or the Gelu (the matcher does none). cublasLt and
 * cuDNN runtime fusion, the GPU routes, are off.
 * Not line-verified: none of the remapper.cc versions we could read has this
 * form (see the header). */
static const pat GELU_MM = {FL_OP_MATMUL, "matmul", P_REMOVE, 0, NULL};
static const pat GELU_BIAS_IN = {PAT_ANY, "bias", P_REMAIN, 0, NULL};
static const pat GELU_BIAS = {FL_OP_BIAS_ADD, "bias_add", P_REMOVE, 2,
                              (const pat *const[]){&GELU_MM, &GELU_BIAS_IN}};
static const pat GELU_OP = {FL_OP_GELU, "output", P_REPLACE, 1, (const pat *const[]){&GELU_BIAS}};

bool fl__rm_rewrite_matmul_gelu_op(rctx *r, fl_node *out) {
    pmatch m;
    if (!r->onednn || out->kind != FL_OP_GELU || !fl__rm_pm_run(r, &GELU_OP, out, &m)) {
        return false;
    }
    fl_node *mm = fl__rm_pm_get(&m, "matmul"), *bias = fl__rm_pm_get(&m, "bias_add");
    if (mm->n_inputs < 2 || !fl__rm_cpu_contraction_ok(r, mm)) {
        return false;
    }
    bool approx = fl__attr_bool(out, "approximate", false);
    const char *ops[] = {"BiasAdd", approx ? "GeluApproximate" : "GeluExact"};
    fl__ledger_note(r->pc, "matmul_bias_gelu_op", out, "MatMul+BiasAdd+Gelu(approximate=%s) -> %s",
                    approx ? "true" : "false", "_FusedMatMul");
    if (!fl__rm_build_fused(r, out, mm, &bias->inputs[1], 1, ops, 2, 0.0f, NULL)) {
        return false;
    }
    fl__rm_drop(r, bias);
    fl__rm_drop(r, mm);
    return true;
}
