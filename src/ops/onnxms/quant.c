/*
 * quant.c - ONNX Runtime contrib operators (domain com.microsoft) on
 * block-quantized weights: MatMulNBits, the 2..8-bit weight-only matmul of
 * quantized LLM graphs.
 *
 * Shapes (ORT's contrib op schema): A (..., K), B (N, k_blocks, blob_size)
 * uint8 with k_blocks = ceil(K / block_size) and blob_size = block_size *
 * bits / 8 (int4 weights pack two per byte: the bytes moved are the stored
 * uint8 tensor's, the real element width), scales, zero_points, g_idx and
 * bias (N) optional. Attrs K, N, block_size required, bits default 4. Output
 * Y (..., N), A's dtype. K or N not positive, block_size not a power of two
 * >= 16, bits outside 2..8, A's last dim not K, or B's dims not (N, k_blocks,
 * blob_size) fail naming the node and the attribute or input.
 *
 * FLOP rule ("complete" convention), R = E(A) / K rows: what the unfused
 * chain DequantizeLinear(B) -> MatMul (-> Add bias) counts:
 *   MACs    = R * N * K (the product is a float one: A is float)
 *   FLOPs   = 2 * MACs + N * K (the weight's dequantisation multiply by its
 *             scale) + R * N with a bias
 *   int_ops = N * K (the zero point's subtraction from the stored integers,
 *             as onnx::DequantizeLinear counts it; an absent zero point is
 *             2^(bits-1) and still subtracted). A zero_points input of A's
 *             float type makes that subtraction float: FLOPs + N * K instead.
 * accuracy_level (ORT may quantize A to int8 at level 4) is an execution
 * choice, not the op's definition: the product is counted as float.
 */
#include "ops/onnxops/util.h"

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
    return FL_OK;
}

static fl_status infer_matmul_nbits(fl_ctx *c, fl_node *n) {
    nbits_attrs a;
    fl_status st = nbits_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_shape *b = fl__op_in_shape(n, 1);
    if (x->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (A) is a scalar, want (..., K)");
    }
    fl_sym m;
    if (x->rank > 0 &&
        (st = fl__op_merge_dim(c, n, x->dims[x->rank - 1], fl_sym_const(a.k),
                               "input 0 (A)'s last dim and attr 'K'", &m)) != FL_OK) {
        return st;
    }
    if (b->rank >= 0) {
        int64_t want[3] = {a.n, (a.k + a.block - 1) / a.block, a.block * a.bits / 8};
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
    dims[x->rank - 1] = fl_sym_const(a.n);
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
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

/* clang-format off */
#define HOOKS_matmul_nbits .infer = infer_matmul_nbits, .cost = cost_matmul_nbits
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/quant.def"
#undef FL_OP
