/*
 * nn/fused_ew.c - the element-wise ops the remapper produces:
 * _<Comparison>WithCast, _TensorToHashBucketFast, _MklFusedMish (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Other ops the remapper produces                                            */
/* ------------------------------------------------------------------------- */

/* _<Comparison>WithCast (Equal, NotEqual, Greater, GreaterEqual, Less,
 * LessEqual): the comparison of two broadcast operands of type T, cast back
 * to T. FLOPs: the comparison and the Cast, 1 each per output element. */
static fl_status infer_compare_cast(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_shape out;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_broadcast(c, n, fl__op_in_shape(n, 0), fl__op_in_shape(n, 1), &out);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

/* Element-wise rules of these ops: `per` FLOPs per output element, no tfprof
 * rule (tfprof registers none of them). */
static fl_status cost_per_elem_no_tfprof(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    return fl__ar_put_cost_tf(&k, out, fl__ar_scale(&k, e, per), fl_sym_const(0), fl_sym_const(0),
                              false);
}

static fl_status cost_compare_cast(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 2);
}

/* _TensorToHashBucketFast: AsString + StringToHashBucketFast of an integer
 * tensor; output int64 of the input's shape. FLOPs: the conversion (counted
 * as Cast is) and the hash, 1 each per element. */
static fl_status infer_tensor_to_hash_bucket(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, FL_DT_INT64, x->rank, x->dims);
}
static fl_status cost_tensor_to_hash_bucket(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 2);
}

/* _MklFusedMish (oneDNN): x * Tanh(Softplus(x)); FLOPs 3 per element. */
static fl_status infer_mish(fl_ctx *c, fl_node *n) {
    return fl__op_pass_through(c, n, 0, 0);
}
static fl_status cost_mish(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_elem_no_tfprof(c, n, out, 3);
}

/* Hook sets and descriptors (their rows: fused_ew.def). */
#define HOOKS_compare_cast .infer = infer_compare_cast, .cost = cost_compare_cast
#define HOOKS_hash_bucket  .infer = infer_tensor_to_hash_bucket, .cost = cost_tensor_to_hash_bucket
#define HOOKS_mish         .infer = infer_mish, .cost = cost_mish

#define FL_OP FL_OP_DESC
#include "ops/nn/fused_ew.def"
#undef FL_OP
