/*
 * onnx/matmul.c - Gemm, MatMul and com.microsoft FusedGemm/FusedMatMul (rules
 * in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Gemm, MatMul                                                               */
/* ------------------------------------------------------------------------- */

/* M, K, N of Gemm with transA/transB. */
static fl_status gemm_dims(fl_ctx *c, const fl_node *n, fl_sym *m, fl_sym *kk, fl_sym *nn) {
    int64_t ta, tb;
    fl_status st;
    if ((st = fl__attr_int_or(n, "transA", 0, &ta, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "transB", 0, &tb, c->d)) != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    for (int i = 0; i < 2; i++) {
        const fl_shape *s = i ? b : a;
        if (s->rank >= 0 && s->rank != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be 2-D, got rank %d",
                                 i ? "B" : "A", s->rank);
        }
    }
    *m = fl__shape_dim(a, ta ? 1 : 0);
    *nn = fl__shape_dim(b, tb ? 0 : 1);
    return fl__op_merge_dim(c, n, fl__shape_dim(a, ta ? 0 : 1), fl__shape_dim(b, tb ? 1 : 0),
                            "inner dimensions of 'A' and 'B'", kk);
}

/* Gemm-1/6 (before opset 7): C required, [M, N] unless attr broadcast
 * (default 0) is set; then it must broadcast to [M, N]. */
static fl_status infer_gemm6(fl_ctx *c, fl_node *n, fl_sym *dims) {
    int64_t bc;
    fl_status st = fl__attr_int_or(n, "broadcast", 0, &bc, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (n->n_inputs < 3 || fl__ox_absent(n, 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'C' is required (Gemm-1/6, opset %lld; optional from opset 11)",
                             (long long)c->g->onnx.opset);
    }
    const fl_shape *cs = fl__op_in_shape(n, 2);
    fl_shape o = {2, dims}, b;
    if (bc) {
        st = fl__op_broadcast(c, n, cs, &o, &b);
    } else if (cs->rank >= 0) {
        bool ok = cs->rank == 2;
        for (int i = 0; ok && i < 2; i++) {
            ok = !fl_sym_is_known(cs->dims[i]) || !fl_sym_is_known(dims[i]) ||
                 cs->dims[i].k == dims[i].k;
        }
        if (!ok) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'C' has rank %d, want [M, N] = [%lld, %lld] with attr "
                                 "'broadcast' 0 (Gemm-1/6, opset %lld)",
                                 cs->rank, fl_sym_is_known(dims[0]) ? (long long)dims[0].k : -1LL,
                                 fl_sym_is_known(dims[1]) ? (long long)dims[1].k : -1LL,
                                 (long long)c->g->onnx.opset);
        }
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, dims) : st;
}

static fl_status infer_gemm(fl_ctx *c, fl_node *n) {
    fl_sym dims[2], kk;
    fl_status st = gemm_dims(c, n, &dims[0], &kk, &dims[1]);
    if (st != FL_OK) {
        return st;
    }
    if (n->kind == FL_OP_ONNX_GEMM && fl__ox_opset_before(c, 7)) {
        return infer_gemm6(c, n, dims);
    }
    if (!fl__ox_absent(n, 2)) {
        fl_shape o = {2, dims}, b;
        st = fl__op_broadcast(c, n, fl__op_in_shape(n, 2), &o, &b); /* C must broadcast to [M, N] */
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, dims);
}

static fl_status cost_gemm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym m, kk, nn;
    fl_status st = gemm_dims(c, n, &m, &kk, &nn);
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym macs = fl__ar_mul(&k, e, kk);
    int extra =
        !fl__ox_absent(n, 2) + (n->kind == FL_OP_ONNX_MS_FUSED_GEMM && fl__onnx_has_activation(n));
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, e, extra));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* numpy matmul of inputs 0 and 1 (last two dims swapped by transA/transB for
 * FusedMatMul): output shape, M, N, K and the broadcast batch size. */
typedef struct mm_shape {
    fl_shape out;
    fl_sym m, nn, k;
    fl_shape batch;
} mm_shape;

/* FusedMatMul's view of an operand: transBatch moves dim 0 to position
 * rank-2 (permutation [1..rank-2, 0, rank-1]), then trans swaps the last two
 * dims. */
static fl_status fused_operand(fl_ctx *c, const fl_node *n, const fl_shape *s, int64_t tbatch,
                               int64_t t, const char *what, fl_shape *out) {
    *out = *s;
    if ((!tbatch && !t) || s->rank < 2) {
        return FL_OK;
    }
    if (tbatch && s->rank < 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "transBatch%s needs rank 3 or more, got %d", what,
                             s->rank);
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)s->rank, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    int r = s->rank;
    for (int i = 0; i < r; i++) {
        d[i] = s->dims[i];
    }
    if (tbatch) {
        for (int i = 0; i < r - 2; i++) {
            d[i] = s->dims[i + 1];
        }
        d[r - 2] = s->dims[0];
    }
    if (t) {
        fl_sym x = d[r - 2];
        d[r - 2] = d[r - 1];
        d[r - 1] = x;
    }
    out->dims = d;
    return FL_OK;
}

static fl_status matmul_shape(fl_ctx *c, const fl_node *n, mm_shape *r) {
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    int64_t ta = 0, tb = 0, tba = 0, tbb = 0;
    fl_status st;
    if (n->kind == FL_OP_ONNX_MS_FUSED_MATMUL &&
        ((st = fl__attr_int_or(n, "transA", 0, &ta, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transB", 0, &tb, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transBatchA", 0, &tba, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transBatchB", 0, &tbb, c->d)) != FL_OK)) {
        return st;
    }
    r->out.rank = -1;
    r->out.dims = NULL;
    r->m = r->nn = r->k = fl_sym_unknown();
    r->batch.rank = -1;
    if (a->rank < 0 || b->rank < 0) {
        return FL_OK;
    }
    fl_shape ea, eb;
    if ((st = fused_operand(c, n, a, tba, ta, "A", &ea)) != FL_OK ||
        (st = fused_operand(c, n, b, tbb, tb, "B", &eb)) != FL_OK) {
        return st;
    }
    a = &ea;
    b = &eb;
    ta = tb = 0;
    if (a->rank == 0 || b->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "MatMul inputs must have rank 1 or more");
    }
    fl_sym am = a->rank == 1 ? fl_sym_const(1) : fl__shape_dim(a, ta ? -1 : -2);
    fl_sym ak = a->rank == 1 ? a->dims[0] : fl__shape_dim(a, ta ? -2 : -1);
    fl_sym bk = b->rank == 1 ? b->dims[0] : fl__shape_dim(b, tb ? -1 : -2);
    fl_sym bn = b->rank == 1 ? fl_sym_const(1) : fl__shape_dim(b, tb ? -2 : -1);
    if ((st = fl__op_merge_dim(c, n, ak, bk, "inner dimensions of 'A' and 'B'", &r->k)) != FL_OK) {
        return st;
    }
    fl_shape ba = {a->rank > 2 ? a->rank - 2 : 0, a->dims};
    fl_shape bb = {b->rank > 2 ? b->rank - 2 : 0, b->dims};
    if ((st = fl__op_broadcast(c, n, &ba, &bb, &r->batch)) != FL_OK) {
        return st;
    }
    int rank = r->batch.rank + (a->rank > 1) + (b->rank > 1);
    fl_sym *d = fl__arena_calloc(c->a, (size_t)rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r->batch.rank; i++) {
        d[i] = r->batch.dims[i];
    }
    int j = r->batch.rank;
    if (a->rank > 1) {
        d[j++] = am;
    }
    if (b->rank > 1) {
        d[j++] = bn;
    }
    r->out.rank = rank;
    r->out.dims = d;
    r->m = am;
    r->nn = bn;
    return FL_OK;
}

static fl_status infer_matmul(fl_ctx *c, fl_node *n) {
    mm_shape r;
    fl_status st = matmul_shape(c, n, &r);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), r.out.rank, r.out.dims)
                       : st;
}

static fl_status cost_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    mm_shape r;
    fl_status st = matmul_shape(c, n, &r);
    if (st != FL_OK) {
        return st;
    }
    fl_sym macs =
        fl__ar_mul(&k, fl__ar_mul(&k, fl__ar_numel(&k, &r.batch), r.m), fl__ar_mul(&k, r.nn, r.k));
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    float alpha = 1.0f;
    if (n->kind == FL_OP_ONNX_MS_FUSED_MATMUL &&
        (st = fl__attr_float_or(n, "alpha", 1.0f, &alpha, c->d)) != FL_OK) {
        return st;
    }
    if (alpha != 1.0f) {
        flops = fl__ar_add(&k, flops, fl__ar_numel(&k, &n->outputs[0].shape));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* Hook sets and descriptors (their rows: matmul.def). */
#define HOOKS_gemm   .infer = infer_gemm, .cost = cost_gemm
#define HOOKS_matmul .infer = infer_matmul, .cost = cost_matmul

#define FL_OP FL_OP_DESC
#include "ops/onnx/matmul.def"
#undef FL_OP
