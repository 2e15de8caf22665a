/*
 * activation.c - ONNX Runtime contrib operators (domain com.microsoft) that
 * fuse a bias add with an activation or a residual add, as ORT's optimiser
 * writes them into transformer and diffusion graphs: BiasGelu, FastGelu,
 * BiasAdd, BiasSplitGelu, BiasSoftmax, BiasDropout, GemmFastGelu.
 *
 * Shapes (ORT's contrib op schemas):
 *   BiasGelu(A, B)        out = Gelu(A + B): A's shape and dtype; B is 1-D,
 *                         its length A's last dim
 *   FastGelu(X, bias?)    out = Gelu_tanh(X + bias): X's shape and dtype;
 *                         the optional bias 1-D, X's last dim
 *   BiasAdd(X, bias, skip) out = X + bias + skip: X is 3-D (N, S, C), bias
 *                         1-D (C), skip (N, S, C)
 *   BiasSplitGelu(X, bias) (X + bias)'s left half times Gelu of its right
 *                         half along the last dim: X (N, S, D), bias (D), out
 *                         (N, S, D / 2); an odd D fails
 *   BiasSoftmax(data, bias) softmax(data + bias): data's shape and dtype;
 *                         bias must broadcast to data
 *   BiasDropout(data, bias, residual?, ratio?, training_mode?) Dropout(data +
 *                         bias) + residual: data's shape and dtype, bias 1-D
 *                         (data's last dim) or data's shape, residual data's
 *                         shape; the optional mask bool, data's shape
 *   GemmFastGelu(X, W, bias?) FastGelu(X W + bias): MatMul's shape of X, W;
 *                         bias 1-D, the output's last dim
 * A bias whose rank or length disagrees fails naming the node and input.
 *
 * FLOP rules ("complete" convention, E = element count of the output, no
 * MACs): each fused op counts what its unfused chain counts in foldline, so
 * that ORT's optimised graph and the raw graph have the same totals where the
 * raw graph spells the activation as one op:
 *   BiasGelu     2 * E   (Add E + Gelu E; an activation counts 1 per element,
 *                         as Gelu, Relu, Sigmoid in onnx.c)
 *   FastGelu     1 * E, + E when the bias is given (the tanh approximation is
 *                         one activation, as Gelu with approximate="tanh")
 *   BiasAdd      2 * E   (two adds)
 *   BiasSplitGelu  4 * E (the bias add over X, 2 * E; Gelu and the
 *                         multiply, E each)
 *   BiasSoftmax  6 * E   (the add, then Softmax's 5 per element)
 *   BiasDropout  E, + E with residual (the adds; Dropout counts 0, as
 *                         onnx::Dropout)
 *   GemmFastGelu MatMul's MACs and FLOPs (2 per MAC) + E (FastGelu) + E with
 *                         bias
 * A raw graph that writes Gelu out as Div, Erf, Add, Mul, Mul counts 5 * E
 * there and 1 * E once fused: FLOPs can differ between the two forms; MACs
 * (none here) cannot.
 */
#include "ops/onnxops/util.h"

#include <stdio.h>

/* Input i (when given) is 1-D and its length merges with X's last dim. */
static fl_status check_bias(fl_ctx *c, const fl_node *n, int i, const char *name) {
    if (fl__ox_absent(n, i)) {
        return FL_OK;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_shape *b = fl__op_in_shape(n, i);
    if (b->rank < 0) {
        return FL_OK;
    }
    if (b->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want 1 (1-D bias)", i,
                             name, b->rank);
    }
    if (x->rank < 1) {
        return x->rank == 0 ? fl__node_fail(c->d, FL_EINVAL, n,
                                            "input 0 is a scalar; a bias "
                                            "needs a last dim")
                            : FL_OK;
    }
    fl_sym m;
    char what[64];
    snprintf(what, sizeof what, "input %d (%s) and input 0's last dim", i, name);
    return fl__op_merge_dim(c, n, x->dims[x->rank - 1], b->dims[0], what, &m);
}

static fl_status infer_bias_act(fl_ctx *c, fl_node *n) {
    fl_status st = check_bias(c, n, 1, n->kind == FL_OP_ONNX_MS_BIAS_GELU ? "B" : "bias");
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_bias_act(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, fl__ox_absent(n, 1) ? 1 : 2);
}

/* BiasAdd: X (N, S, C) + bias (C) + skip (N, S, C). */
static fl_status infer_bias_add(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_shape *skip = fl__op_in_shape(n, 2);
    if (x->rank >= 0 && x->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 3 (N, S, C)",
                             x->rank);
    }
    fl_status st = check_bias(c, n, 1, "bias");
    if (st != FL_OK) {
        return st;
    }
    if (x->rank == 3 && skip->rank >= 0) {
        if (skip->rank != 3) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 2 (skip) has rank %d, want 3 like input 0 (X)", skip->rank);
        }
        for (int i = 0; i < 3 && st == FL_OK; i++) {
            fl_sym m;
            st = fl__op_merge_dim(c, n, x->dims[i], skip->dims[i], "input 2 (skip) and input 0 (X)",
                                  &m);
        }
    }
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_bias_add(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 2);
}

/* clang-format off */
/* BiasSplitGelu(X (N, S, D), bias (D)): X + bias split in halves along D,
 * the left times Gelu of the right: (N, S, D / 2), D even. */
static fl_status infer_bias_split_gelu(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st = check_bias(c, n, 1, "bias");
    if (st != FL_OK || x->shape.rank < 0) {
        return st != FL_OK ? st : fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), -1, NULL);
    }
    if (x->shape.rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 3 (N, S, D)",
                             x->shape.rank);
    }
    fl_sym d = x->shape.dims[2], h = fl_sym_unknown();
    if (fl_sym_is_known(d) && d.k % 2 != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (X)'s last dim %lld is odd: BiasSplitGelu halves it",
                             (long long)d.k);
    }
    bool exact = false;
    if (!fl_sym_is_unknown(d) &&
        (fl__sym_div(c->st, d, fl_sym_const(2), &h, &exact) != FL_OK || !exact)) {
        h = fl_sym_unknown();
    }
    return fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), 3,
                             (fl_sym[]){x->shape.dims[0], x->shape.dims[1], h});
}

/* The bias add over X (2 * E(out)), Gelu and the multiply (E(out) each). */
static fl_status cost_bias_split_gelu(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 4);
}

/* BiasSoftmax(data, bias): data's shape; bias broadcasts to it. */
static fl_status infer_bias_softmax(fl_ctx *c, fl_node *n) {
    int64_t inner;
    fl_status st = fl__attr_need_int(n, "is_inner_broadcast", &inner, c->d);
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_shape b;
    if (st != FL_OK || (st = fl__op_broadcast(c, n, x, fl__op_in_shape(n, 1), &b)) != FL_OK) {
        return st;
    }
    if (b.rank >= 0 && x->rank >= 0 && b.rank != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (bias) has more dims than input 0 (data): it must broadcast "
                             "to data");
    }
    return fl__ox_infer_same(c, n);
}

static fl_status cost_bias_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 6);
}

/* BiasDropout: data's shape (bias 1-D or data's shape, residual data's
 * shape); the mask bool. */
static fl_status infer_bias_dropout(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    fl_status st = FL_OK;
    if (b->rank == 1 || b->rank < 0) {
        st = check_bias(c, n, 1, "bias");
    } else if (x->rank >= 0 && b->rank != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (bias) has rank %d: 1-D or input 0 (data)'s rank %d",
                             b->rank, x->rank);
    }
    for (int i = 0; st == FL_OK && b->rank > 1 && i < b->rank; i++) {
        fl_sym m;
        st = fl__op_merge_dim(c, n, x->dims[i], b->dims[i], "input 1 (bias) and input 0 (data)",
                              &m);
    }
    const fl_shape *r = fl__ox_absent(n, 2) ? NULL : fl__op_in_shape(n, 2);
    if (st == FL_OK && r && r->rank >= 0 && x->rank >= 0) {
        if (r->rank != x->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 2 (residual) has rank %d, input 0 (data) %d", r->rank,
                                 x->rank);
        }
        for (int i = 0; i < r->rank && st == FL_OK; i++) {
            fl_sym m;
            st = fl__op_merge_dim(c, n, x->dims[i], r->dims[i],
                                  "input 2 (residual) and input 0 (data)", &m);
        }
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, x->dims);
    }
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_BOOL, x->rank, x->dims) : st;
}

static fl_status cost_bias_dropout(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, fl__ox_absent(n, 2) ? 1 : 2);
}

/* GemmFastGelu(X, W, bias?): MatMul of X and W, the bias its last dim. */
static fl_status infer_gemm_fast_gelu(fl_ctx *c, fl_node *n) {
    static const int idx[] = {0, 1};
    fl_status st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, idx, 2);
    if (st != FL_OK || fl__ox_absent(n, 2)) {
        return st;
    }
    const fl_shape *y = &n->outputs[0].shape, *b = fl__op_in_shape(n, 2);
    if (b->rank < 0) {
        return st;
    }
    if (b->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 2 (bias) has rank %d, want 1 (1-D bias)",
                             b->rank);
    }
    fl_sym m;
    return y->rank >= 1 ? fl__op_merge_dim(c, n, y->dims[y->rank - 1], b->dims[0],
                                           "input 2 (bias) and the output's last dim", &m)
                        : FL_OK;
}

static fl_status cost_gemm_fast_gelu(fl_ctx *c, const fl_node *n, fl_cost *out) {
    static const int idx[] = {0, 1};
    fl_status st = fl__ox_cost_delegate(c, n, FL_OP_ONNX_MATMUL, idx, 2, out);
    if (st != FL_OK || out->incomplete) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym f = fl__ar_add(&k, out->flops, fl__ar_scale(&k, e, fl__ox_absent(n, 2) ? 1 : 2));
    return fl__ar_put_cost(&k, out, f, out->macs);
}

#define HOOKS_bias_split_gelu .infer = infer_bias_split_gelu, .cost = cost_bias_split_gelu
#define HOOKS_bias_act .infer = infer_bias_act, .cost = cost_bias_act
#define HOOKS_bias_add .infer = infer_bias_add, .cost = cost_bias_add
#define HOOKS_bias_softmax .infer = infer_bias_softmax, .cost = cost_bias_softmax
#define HOOKS_bias_dropout .infer = infer_bias_dropout, .cost = cost_bias_dropout
#define HOOKS_gemm_fast_gelu .infer = infer_gemm_fast_gelu, .cost = cost_gemm_fast_gelu
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/activation.def"
#undef FL_OP
