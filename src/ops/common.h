/*
 * common.h - helpers shared by the op families' hooks.
 *
 * Every helper that can fail records the failure in c->d and returns its
 * status, so hooks can write `if ((st = helper(...)) != FL_OK) return st;`.
 * Arithmetic on dimensions goes through these wrappers (or fl_sym_* directly)
 * so that overflow is reported with the node's name.
 */
#ifndef FL_OPS_COMMON_H
#define FL_OPS_COMMON_H

#include "ops/ops.h"
#include "util/ckint.h"

/* Defines the descriptor of one ops.def row, fl__desc_ENUM: name, arity and
 * flags from the row, hooks from the macro HOOKS_<hooks> that the family file
 * defines (designated initializers, e.g. `#define HOOKS_matmul .infer =
 * infer_matmul, .cost = cost_matmul`). A family file ends with its list:
 *
 *   #define FL_OP FL_OP_DESC
 *   #include "ops/nn/matmul.def"
 *   #undef FL_OP
 */
#define FL_OP_DESC(e, name_, family, min_in, max_in, n_out, flags_, hooks)                         \
    _Static_assert(FL_OP_##e > FL_OP_UNKNOWN, #e " is a row of ops.def");                          \
    const struct fl_op_desc fl__desc_##e = {                                                       \
        .name = name_,                                                                             \
        .min_inputs = min_in,                                                                      \
        .max_inputs = max_in,                                                                      \
        .n_outputs = n_out,                                                                        \
        .flags = flags_,                                                                           \
        HOOKS_##hooks,                                                                             \
    };

/* Checked arithmetic on fl_sym; failures are reported against node n. */
fl_status fl__op_add_any(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);
/* fl__op_add_any, with the sum of two known values that does not overflow
 * taken inline (most of the sums the costing and the report make). */
static inline fl_status fl__op_add(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    int64_t r;
    if (fl_sym_is_known(a) && fl_sym_is_known(b) && !__builtin_add_overflow(a.k, b.k, &r)) {
        *out = fl_sym_const(r);
        return FL_OK;
    }
    return fl__op_add_any(c, n, a, b, out);
}
fl_status fl__op_sub(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__op_mul(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__op_ceildiv(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__op_floordiv(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);
/* a * k for a known k. */
fl_status fl__op_scale(fl_ctx *c, const fl_node *n, fl_sym a, int64_t k, fl_sym *out);

/* A rule constant computed with fl_ck (util/ckint.h): *out := x.v, or, when
 * x overflowed, fails with FL_EOVERFLOW against node n and the message
 * "WHAT overflows 64-bit integers", WHAT formatted from fmt and naming the
 * attrs and values it came from (e.g. "attr 'size' is %lld: 2 * size + 3"). */
fl_status fl__op_ck(fl_ctx *c, const fl_node *n, fl_ck x, int64_t *out, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Product of all dims of s (1 for rank 0; unknown for unknown rank). */
fl_status fl__op_num_elements(fl_ctx *c, const fl_node *n, const fl_shape *s, fl_sym *out);

/* fl__op_num_elements(s) * k for k >= 1, with the same result and the same
 * failure as the two steps (a tensor's bytes: its elements times the dtype's
 * size). */
fl_status fl__op_num_elements_times(fl_ctx *c, const fl_node *n, const fl_shape *s, int64_t k,
                                    fl_sym *out);

/* True when s has known rank and no unknown dim (symbolic dims are fine). */
bool fl__shape_is_determined(const fl_shape *s);
/* True when every dim is a known integer. */
bool fl__shape_is_concrete(const fl_shape *s);

/* Sets output `port` to dtype with `rank` dims copied from `dims` (rank < 0:
 * unknown rank, dims ignored). */
fl_status fl__op_set_output(fl_ctx *c, fl_node *n, int port, int dtype, int rank,
                            const fl_sym *dims);
/* Output `port` := same dtype and shape as data input `in`. */
fl_status fl__op_pass_through(fl_ctx *c, fl_node *n, int in, int port);
/* Output `port` of dtype with known rank and all dims unknown. */
fl_status fl__op_set_output_rank(fl_ctx *c, fl_node *n, int port, int dtype, int rank);
/* Attaches a value to output `port` (its dtype/shape must already be set). */
void fl__op_set_value(fl_node *n, int port, const fl_value *v);

/* Numpy-style broadcast of two shapes. Unknown rank on either side gives
 * unknown rank. A pair of dims that are known and differ (neither 1) fails with
 * FL_EINVAL naming the node. A known 1 against a symbolic or unknown dim yields
 * the other; two different symbolic dims yield unknown... unless equal. */
fl_status fl__op_broadcast(fl_ctx *c, const fl_node *n, const fl_shape *a, const fl_shape *b,
                           fl_shape *out);

/* Records that dims a and b are one size (node n needs them equal): a
 * symbol among them becomes an alias of the other side (fl__sym_alias), and
 * shape inference runs again with the alias replaced at the inputs. Call it
 * only where the op requires equality (not where 1 broadcasts). */
fl_status fl__op_unify(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b);

/* Merges two descriptions of the same dim (e.g. MatMul's inner dims): a known
 * value wins over unknown; two different known values fail with FL_EINVAL
 * (message names `what`). */
fl_status fl__op_merge_dim(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, const char *what,
                           fl_sym *out);

/* Input i's shape; unknown rank for an i beyond the node's inputs (an
 * optional input the node leaves out), which have no tensor to read. */
static inline const fl_shape *fl__op_in_shape(const fl_node *n, int i) {
    static const fl_shape none = {-1, NULL};
    return i < n->n_inputs ? &fl_node_in(n, i)->shape : &none;
}

/* Dim i of s, a negative i counting from the end; unknown when the rank is
 * unknown or i is out of range. */
fl_sym fl__shape_dim(const fl_shape *s, int i);

/* A TensorFlow dtype: type attr `attr`, else data input `in`'s dtype (FL_DT_INVALID when the
 * node has no such input). A ref dtype is dereferenced: an op whose OpDef declares a plain T
 * output never outputs a ref (only the Ref* forms and output_ref ops do, and they set their
 * dtype themselves). An attr holding no valid DataType fails naming the attr. */
fl_status fl__op_attr_dtype(fl_ctx *c, const fl_node *n, const char *attr, int in, int *dt);

/* Fails unless input i (when the node has it) is a scalar or of unknown rank
 * (TensorFlow's WithRank 0); `name` names the input. */
fl_status fl__op_want_scalar(fl_ctx *c, const fl_node *n, int i, const char *name);

/* The cost hook of ops that compute nothing (constants, data movement,
 * metadata, control flow): 0 FLOPs, 0 tfprof FLOPs (no tfprof rule), 0 MACs,
 * has_rule true: 0 is the real count, whatever the shapes. */
fl_status fl__op_cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out);

/* Input i's value if it is known, else NULL. */
static inline const fl_value *fl_op_in_value(const fl_node *n, int i) {
    return fl_node_in(n, i)->value;
}

/* Reads input i as a vector (or scalar) of known integers into a new arena
 * array. Returns FL_ENOTFOUND (d untouched) when the value is absent or any
 * element is not a known integer; FL_EINVAL if the input is not integer-typed
 * or has rank > 1. *n_out = element count. */
fl_status fl__op_in_int_vector(fl_ctx *c, const fl_node *n, int i, int64_t **out, int64_t *n_out);

/* As above, but elements may be symbolic (fl_sym). */
fl_status fl__op_in_sym_vector(fl_ctx *c, const fl_node *n, int i, const fl_sym **out,
                               int64_t *n_out);

/* Data format of conv/pool ops: "NHWC" (default when absent), "NCHW",
 * "NDHWC", "NCDHW". Sets *channels_last. Fails on anything else. */
fl_status fl__op_data_format(fl_ctx *c, const fl_node *n, bool *channels_last);

/* Output size of a sliding window along one spatial dim, as TensorFlow's
 * GetWindowedOutputSize: VALID: ceil((in - eff_k + 1) / s), SAME: ceil(in / s),
 * EXPLICIT: (in + pad_lo + pad_hi - eff_k) / s + 1; eff_k = (k - 1) * dil + 1.
 * `padding` is "VALID", "SAME" or "EXPLICIT". Known results <= 0 fail (TF
 * rejects such graphs). */
fl_status fl__op_window_out(fl_ctx *c, const fl_node *n, fl_sym in, int64_t k, int64_t stride,
                            int64_t dilation, const char *padding, int64_t pad_lo, int64_t pad_hi,
                            fl_sym *out);

/* A new value of output `port`'s dtype and shape (which must be concrete and
 * at most c->max_value_elems elements); NULL when too large or shape not
 * concrete (no failure recorded), or on OOM (d failed). */
fl_value *fl__op_new_value(fl_ctx *c, fl_node *n, int port);

/* As fl__op_new_value, a value of output `port`'s shape whose elements are
 * src's (fl__value_reshaped): NULL also when src's dtype or element count
 * is not the output's. */
fl_value *fl__op_reshaped_value(fl_ctx *c, fl_node *n, int port, const fl_value *src);

/* ------------------------------------------------------------------------- */
/* Sticky arithmetic for cost hooks (shared by every family): after
 * the first failure every result is unknown and `st` keeps the failure, so a
 * hook computes its whole formula and checks once.                          */
/* ------------------------------------------------------------------------- */

typedef struct fl_arith {
    fl_ctx *c;
    const fl_node *n;
    fl_status st;
} fl_arith;

fl_sym fl__ar_add(fl_arith *k, fl_sym a, fl_sym b);
fl_sym fl__ar_sub(fl_arith *k, fl_sym a, fl_sym b);
/* 0 times anything (an unknown included) is 0: an empty tensor costs nothing. */
fl_sym fl__ar_mul(fl_arith *k, fl_sym a, fl_sym b);
fl_sym fl__ar_scale(fl_arith *k, fl_sym a, int64_t m);
/* Product of the integers v[0..cnt). */
fl_sym fl__ar_int_prod(fl_arith *k, const int64_t *v, size_t cnt);
/* Element count of s (unknown for an unknown rank). */
fl_sym fl__ar_numel(fl_arith *k, const fl_shape *s);
/* A reduction's combines, m * ein - eout (each output's first element takes
 * none), or 0 when the input is known empty: nothing is combined (the
 * outputs hold the op's identity), where the formula would go negative. A
 * formula in symbols assumes no dim is 0. */
fl_sym fl__ar_reduce_ops(fl_arith *k, fl_sym ein, int64_t m, fl_sym eout);
/* Product of dims [from, to) of s; unknown when out of range. */
fl_sym fl__ar_dims_prod(fl_arith *k, const fl_shape *s, int from, int to);
/* Stores a complete-convention cost (tfprof 0, no tfprof rule). A count
 * that is unknown makes the node incomplete (counts 0). Returns k->st. */
fl_status fl__ar_put_cost(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym macs);
/* As fl__ar_put_cost with a tfprof-convention count: `tfprof_rule` says
 * whether tfprof registers a rule for the op (tfprof is its count then). */
fl_status fl__ar_put_cost_tf(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym tfprof, fl_sym macs,
                             bool tfprof_rule);
/* No counting rule for the node (it is reported as such): all counts 0. */
void fl__ar_no_rule(fl_cost *out);
/* As fl__ar_put_cost, with the integer operations of a quantized op
 * (fl_cost.int_ops: integer products and sums, 2 per integer MAC, and
 * zero-point arithmetic; never in flops or macs). */
fl_status fl__ar_put_int_cost(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym macs, fl_sym int_ops);

#endif
