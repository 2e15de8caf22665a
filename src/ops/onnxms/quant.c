/*
 * quant.c - ONNX Runtime contrib operators (domain com.microsoft) on
 * quantized operands: MatMulNBits, the 2..8-bit weight-only matmul of
 * quantized LLM graphs, MatMulBnb4 (4-bit bitsandbytes weights), and the
 * integer contractions QGemm, QOrderedMatMul and MatMulInteger16, and the
 * element-wise MulInteger and ReduceSumInteger.
 *
 * MatMulNBits shapes (ORT's contrib op schema): A (..., K), B (N, k_blocks,
 * blob_size) uint8 with k_blocks = ceil(K / block_size) and blob_size =
 * block_size * bits / 8 (int4 weights pack two per byte: the bytes moved are
 * the stored uint8 tensor's, the real element width), scales, zero_points,
 * g_idx and bias (N) optional. Attrs K, N, block_size required, bits default
 * 4. Output Y (..., N), A's dtype. K or N not positive, block_size not a
 * power of two >= 16, bits outside 2..8, A's last dim not K, or B's dims not
 * (N, k_blocks, blob_size) fail naming the node and the attribute or input.
 *
 * MatMulNBits FLOP rule ("complete" convention), R = E(A) / K rows: what the
 * unfused chain DequantizeLinear(B) -> MatMul (-> Add bias) counts:
 *   MACs    = R * N * K (the product is a float one: A is float)
 *   FLOPs   = 2 * MACs + N * K (the weight's dequantisation multiply by its
 *             scale) + R * N with a bias
 *   int_ops = N * K (the zero point's subtraction from the stored integers,
 *             as onnx::DequantizeLinear counts it; an absent zero point is
 *             2^(bits-1) and still subtracted). A zero_points input of A's
 *             float type makes that subtraction float: FLOPs + N * K instead.
 * accuracy_level (ORT may quantize A to int8 at level 4) is an execution
 * choice, not the op's definition: the product is counted as float.
 *
 * MatMulBnb4 (bitsandbytes' 4-bit FP4/NF4 weights): A (..., K), B uint8
 * holding (N * K + 1) / 2 packed bytes, absmax (A's type) holding ceil(N *
 * K / block_size) block scales; attrs K, N, block_size, quant_type (0 FP4,
 * 1 NF4) required, transB and training_mode layout only. Y (..., N), A's
 * type. MACs = R * N * K, FLOPs = 2 * MACs + N * K (each weight's code is
 * looked up, not computed, then multiplied by its block's absmax: N * K
 * multiplies); no int_ops.
 *
 * The integer contractions follow onnx::MatMulInteger's rule (the header of
 * src/ops/onnxops/misc.c): integer multiply-accumulates count 2 int_ops each
 * (M = the integer MACs), never MACs or FLOPs; a zero point's subtraction
 * counts once per element of its operand (an absent one is 0 and still
 * subtracted, as the definition reads); float arithmetic on the int32
 * accumulator (scales) counts in FLOPs, the per-tensor scale quotients free.
 *   MatMulInteger16  A, B int16/uint16 (no zero points), numpy matmul shape;
 *                    Y int32 (uint32 when both are uint16). int_ops 2 * M.
 *   QGemm            A (M, K) (transA: (K, M)), a_scale, a_zero_point, B
 *                    (K, N) (transB: (N, K)), b_scale, b_zero_point, C int32
 *                    (optional), y_scale, y_zero_point (optional); Y (M, N)
 *                    of y_zero_point's type, float without one (ORT's type
 *                    rule). A or B not 2-D fails naming the input.
 *                    int_ops = 2 * M + E(A) + E(B) (zero points) + E(Y) with
 *                    C (the int32 add) + E(Y) when quantized (y's zero
 *                    point); FLOPs = E(Y) (the accumulator times alpha *
 *                    a_scale * b_scale) + E(Y) when quantized (the divide by
 *                    y_scale folds into that multiply; the rounding counts).
 *   QOrderedMatMul   Y = alpha * A.B + bias + beta * C, int8 (symmetric: no
 *                    zero points), A (batch?, M, K), B (batch?, K, N) as the
 *                    CUDA kernel reads them (ranks 2 or 3, else a failure
 *                    naming the input), Y A's shape with its last dim N,
 *                    int8. int_ops 2 * M; FLOPs 2 * E(Y) (scale, round) +
 *                    E(Y) with bias + 2 * E(Y) with C (its scale, the add).
 *                    order_A/order_B/order_Y are memory layouts: no count.
 *   MulInteger       C = (A - A_zero_point) * (B - B_zero_point), int8 or
 *                    uint8, numpy broadcasting; C int32. int_ops E(C) (the
 *                    multiply) + E(A) + E(B) (the zero points, absent ones
 *                    still subtracted).
 *   ReduceSumInteger int8/uint8 data, attrs axes and keepdims (required):
 *                    ReduceSum's shape, int32. int_ops E(in) - E(out)
 *                    (ReduceSum's adds).
 */
#include "ops/onnxops/util.h"

#include <stdint.h>

typedef struct nbits_attrs {
    int64_t k, n, bits, block;
} nbits_attrs;

static fl_status nbits_read(fl_ctx *c, const fl_node *n, nbits_attrs *a) {
    fl_status st;
    if ((st = fl__attr_need_int(n, "K", &a->k, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "N", &a->n, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "block_size", &a->block, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "bits", 4, &a->bits, c->d)) != FL_OK) {
        return st;
    }
    if (a->k <= 0 || a->n <= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, want > 0",
                             a->k <= 0 ? "K" : "N", (long long)(a->k <= 0 ? a->k : a->n));
    }
    if (a->bits < 2 || a->bits > 8) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'bits' is %lld, want 2..8",
                             (long long)a->bits);
    }
    if (a->block < 16 || (a->block & (a->block - 1)) != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'block_size' is %lld, want a power of two >= 16",
                             (long long)a->block);
    }
    int64_t blob_bits; /* the blob's block_size * bits / 8 bytes */
    return fl__op_ck(c, n, fl_ck_mul(fl_ck_of(a->block), fl_ck_of(a->bits)), &blob_bits,
                     "attr 'block_size' is %lld: block_size * bits", (long long)a->block);
}

/* A (..., K): its last dim must be attr K. */
static fl_status check_a(fl_ctx *c, const fl_node *n, int64_t k) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (A) is a scalar, want (..., K)");
    }
    fl_sym m;
    return x->rank > 0 ? fl__op_merge_dim(c, n, x->dims[x->rank - 1], fl_sym_const(k),
                                          "input 0 (A)'s last dim and attr 'K'", &m)
                       : FL_OK;
}

/* Y: A's shape with its last dim N, A's type. */
static fl_status set_y(fl_ctx *c, fl_node *n, int64_t nn) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    fl_sym dims[64];
    if (x->rank > 64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (A) has rank %d, over 64", x->rank);
    }
    for (int i = 0; i < x->rank - 1; i++) {
        dims[i] = x->dims[i];
    }
    dims[x->rank - 1] = fl_sym_const(nn);
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
}

static fl_status infer_matmul_nbits(fl_ctx *c, fl_node *n) {
    nbits_attrs a;
    fl_status st = nbits_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *b = fl__op_in_shape(n, 1);
    fl_sym m;
    if ((st = check_a(c, n, a.k)) != FL_OK) {
        return st;
    }
    if (b->rank >= 0) {
        int64_t want[3] = {a.n, (a.k - 1) / a.block + 1 /* ceil(K / block), K > 0 */,
                           a.block * a.bits / 8};
        if (b->rank != 3) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 1 (B) has rank %d, want 3 (N, k_blocks, blob_size)",
                                 b->rank);
        }
        for (int i = 0; i < 3 && st == FL_OK; i++) {
            st = fl__op_merge_dim(c, n, b->dims[i], fl_sym_const(want[i]),
                                  "input 1 (B) (N, ceil(K / block_size), block_size * bits / 8)",
                                  &m);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return set_y(c, n, a.n);
}

static fl_status cost_matmul_nbits(fl_ctx *c, const fl_node *n, fl_cost *out) {
    nbits_attrs a;
    fl_status st = nbits_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym rows = x->rank >= 1 ? fl__ar_dims_prod(&k, x, 0, x->rank - 1) : fl_sym_unknown();
    fl_sym rn = fl__ar_scale(&k, rows, a.n);
    fl_sym macs = fl__ar_scale(&k, rn, a.k);
    fl_sym nk = fl__ar_mul(&k, fl_sym_const(a.n), fl_sym_const(a.k));
    bool float_zp = !fl__ox_absent(n, 3) && fl__dtype_is_float(fl__ox_in_dtype(n, 3));
    fl_sym flops =
        fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, nk, float_zp ? 2 : 1));
    if (!fl__ox_absent(n, 5)) {
        flops = fl__ar_add(&k, flops, rn);
    }
    return fl__ar_put_int_cost(&k, out, flops, macs, float_zp ? fl_sym_const(0) : nk);
}

/* MatMulBnb4 (rules in the header). */
static fl_status bnb4_read(fl_ctx *c, const fl_node *n, int64_t *k, int64_t *nn) {
    int64_t block, qt;
    fl_status st;
    if ((st = fl__attr_need_int(n, "K", k, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "N", nn, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "block_size", &block, c->d)) != FL_OK ||
        (st = fl__attr_need_int(n, "quant_type", &qt, c->d)) != FL_OK) {
        return st;
    }
    if (*k <= 0 || *nn <= 0 || block <= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attrs K %lld, N %lld, block_size %lld: each must be > 0",
                             (long long)*k, (long long)*nn, (long long)block);
    }
    int64_t kn;
    if ((st = fl__op_ck(c, n, fl_ck_mul(fl_ck_of(*k), fl_ck_of(*nn)), &kn,
                        "attrs K %lld and N %lld: K * N", (long long)*k, (long long)*nn)) !=
        FL_OK) {
        return st;
    }
    if (qt != 0 && qt != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'quant_type' is %lld (0 FP4, 1 NF4)",
                             (long long)qt);
    }
    int64_t want[2] = {kn / 2 + kn % 2, kn / block + (kn % block != 0)};
    static const char *const what[2] = {"input 1 (B), (N * K + 1) / 2 packed bytes",
                                        "input 2 (absmax), ceil(N * K / block_size) scales"};
    for (int i = 0; i < 2; i++) {
        fl_arith ar = {c, n, FL_OK};
        fl_sym e = fl__ar_numel(&ar, fl__op_in_shape(n, i + 1)), m;
        if (ar.st != FL_OK) {
            return ar.st;
        }
        if ((st = fl__op_merge_dim(c, n, e, fl_sym_const(want[i]), what[i], &m)) != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_matmul_bnb4(fl_ctx *c, fl_node *n) {
    int64_t k, nn;
    fl_status st = bnb4_read(c, n, &k, &nn);
    if (st == FL_OK) {
        st = check_a(c, n, k);
    }
    return st == FL_OK ? set_y(c, n, nn) : st;
}

static fl_status cost_matmul_bnb4(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t k, nn;
    fl_status st = bnb4_read(c, n, &k, &nn);
    if (st != FL_OK) {
        return st;
    }
    fl_arith ar = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym rows = x->rank >= 1 ? fl__ar_dims_prod(&ar, x, 0, x->rank - 1) : fl_sym_unknown();
    fl_sym macs = fl__ar_scale(&ar, fl__ar_scale(&ar, rows, nn), k);
    fl_sym flops = fl__ar_add(&ar, fl__ar_scale(&ar, macs, 2), fl_sym_const(nn * k));
    return fl__ar_put_cost(&ar, out, flops, macs);
}

/* MulInteger and ReduceSumInteger (rules in the header). */
static const int mul_idx[] = {0, 2};

static fl_status infer_int_elementwise(fl_ctx *c, fl_node *n) {
    fl_status st;
    if (n->kind == FL_OP_ONNX_MS_MUL_INTEGER) {
        st = fl__ox_delegate(c, n, FL_OP_ONNX_MUL, mul_idx, 2);
    } else {
        static const char *const req[] = {"keepdims", NULL};
        const int64_t *ax;
        size_t na;
        st = fl__ox_need_int_attrs(c, n, req);
        if (st == FL_OK && (st = fl__attr_need_ints(n, "axes", &ax, &na, c->d)) == FL_OK) {
            st = fl__ox_infer_reduce(c, n);
        }
    }
    return st == FL_OK ? fl__ox_retype(c, n, 0, FL_DT_INT32) : st;
}

static fl_status cost_int_elementwise(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym y = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym a = fl__ar_numel(&k, &fl_node_in(n, 0)->shape);
    fl_sym iops =
        n->kind == FL_OP_ONNX_MS_MUL_INTEGER
            ? fl__ar_add(&k, fl__ar_add(&k, y, a), fl__ar_numel(&k, &fl_node_in(n, 2)->shape))
            : fl__ar_sub(&k, a, y);
    return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), iops);
}

/* Integer contractions (rules in the header). */

static const int mm16_idx[] = {0, 1}, qgemm_idx[] = {0, 3}, qord_idx[] = {0, 2};

static fl_status infer_int_contraction(fl_ctx *c, fl_node *n) {
    fl_status st;
    if (n->kind == FL_OP_ONNX_MS_QORDERED_MATMUL) {
        static const char *const orders[] = {"order_A", "order_B", "order_Y", NULL};
        if ((st = fl__ox_need_int_attrs(c, n, orders)) != FL_OK) {
            return st;
        }
        const char *names[] = {"input 0 (A)", "input 2 (B)"};
        for (int i = 0; i < 2; i++) {
            int r = fl__op_in_shape(n, qord_idx[i])->rank;
            if (r >= 0 && r != 2 && r != 3) {
                return fl__node_fail(c->d, FL_EINVAL, n, "%s has rank %d, want 2 or 3", names[i],
                                     r);
            }
        }
        st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, qord_idx, 2);
        return st == FL_OK ? fl__ox_retype(c, n, 0, FL_DT_INT8) : st;
    }
    if (n->kind == FL_OP_ONNX_MS_QGEMM) {
        const char *names[] = {"input 0 (A)", "input 3 (B)"};
        for (int i = 0; i < 2; i++) {
            int r = fl__op_in_shape(n, qgemm_idx[i])->rank;
            if (r >= 0 && r != 2) {
                return fl__node_fail(c->d, FL_EINVAL, n, "%s has rank %d, want 2", names[i], r);
            }
        }
        st = fl__ox_delegate(c, n, FL_OP_ONNX_GEMM, qgemm_idx, 2);
        int dt = fl__ox_absent(n, 8) ? FL_DT_FLOAT : fl__ox_in_dtype(n, 8);
        return st == FL_OK ? fl__ox_retype(c, n, 0, dt) : st;
    }
    st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, mm16_idx, 2);
    bool u32 = fl__ox_in_dtype(n, 0) == FL_DT_UINT16 && fl__ox_in_dtype(n, 1) == FL_DT_UINT16;
    return st == FL_OK ? fl__ox_retype(c, n, 0, u32 ? FL_DT_UINT32 : FL_DT_INT32) : st;
}

static fl_status cost_int_contraction(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool gemm = n->kind == FL_OP_ONNX_MS_QGEMM;
    const int *idx = gemm                                       ? qgemm_idx
                     : n->kind == FL_OP_ONNX_MS_QORDERED_MATMUL ? qord_idx
                                                                : mm16_idx;
    fl_cost base = {0};
    fl_status st =
        fl__ox_cost_delegate(c, n, gemm ? FL_OP_ONNX_GEMM : FL_OP_ONNX_MATMUL, idx, 2, &base);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym macs = base.incomplete ? fl_sym_unknown() : base.macs;
    fl_sym y = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym iops = fl__ar_scale(&k, macs, 2);
    int64_t flops_per_y = 0, iops_per_y = 0;
    if (gemm) {
        bool quantized = !fl__ox_absent(n, 8);
        iops = fl__ar_add(&k, iops,
                          fl__ar_add(&k, fl__ar_numel(&k, &fl_node_in(n, 0)->shape),
                                     fl__ar_numel(&k, &fl_node_in(n, 3)->shape)));
        iops_per_y = !fl__ox_absent(n, 6) + quantized;
        flops_per_y = 1 + quantized;
    } else if (n->kind == FL_OP_ONNX_MS_QORDERED_MATMUL) {
        flops_per_y = 2 + !fl__ox_absent(n, 5) + 2 * !fl__ox_absent(n, 6);
    }
    iops = fl__ar_add(&k, iops, fl__ar_scale(&k, y, iops_per_y));
    return fl__ar_put_int_cost(&k, out, fl__ar_scale(&k, y, flops_per_y), fl_sym_const(0), iops);
}

/* clang-format off */
#define HOOKS_matmul_nbits      .infer = infer_matmul_nbits, .cost = cost_matmul_nbits
#define HOOKS_matmul_bnb4       .infer = infer_matmul_bnb4, .cost = cost_matmul_bnb4
#define HOOKS_int_elementwise   .infer = infer_int_elementwise, .cost = cost_int_elementwise
#define HOOKS_int_contraction   .infer = infer_int_contraction, .cost = cost_int_contraction
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/quant.def"
#undef FL_OP
