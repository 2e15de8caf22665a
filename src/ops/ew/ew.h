/*
 * ew.h - what the element-wise family's files share (fl__ew_*): numbers of
 * each dtype (number.c), arithmetic on one element (arith.c), the evaluation
 * loop and infer checks (eval.c), the cost hooks (cost.c).
 */
#ifndef FL_OPS_EW_EW_H
#define FL_OPS_EW_EW_H

#include "ops/common.h"

#include <stdint.h>

/* How values of a dtype are evaluated (vkind): quantized, complex and string
 * types are not. */
enum { VK_NONE, VK_INT, VK_BOOL, VK_FLOAT };

/* One element during evaluation: a double (float dtypes) or an fl_sym
 * (integer and bool dtypes, possibly symbolic). */
typedef struct ew_num {
    bool f;
    double x;
    fl_sym s;
} ew_num;

/* What an element-wise evaluation needs to know. */
typedef struct ew_op {
    fl_ctx *c;
    int kind;
    int in_dt;  /* dtype of the data inputs (Select: of 't') */
    int out_dt; /* dtype of the output */
    double alpha;
    bool approximate;
    bool truncate;
} ew_op;

/* number.c */
/* A float truncated toward zero into integer dtype dt; false for NaN and out
 * of range (TensorFlow's result is undefined there). */
bool fl__ew_float_to_int(int dt, double x, int64_t *out);

bool fl__ew_get_num(const fl_value *v, int64_t i, ew_num *out);

int64_t fl__ew_int_highest(int dt);

/* Smallest / largest value of an integer dtype (uint64's max as bit pattern). */
int64_t fl__ew_int_lowest(int dt);

/* An integer of dtype src converted to float dtype dst as C/Eigen do: through
 * float for every float type but double. */
double fl__ew_int_to_float(int src, int dst, int64_t k);

bool fl__ew_is_compare(int kind);

bool fl__ew_is_logical(int kind);

bool fl__ew_is_u64(int dt);

/* An element as a double (known integers converted). */
bool fl__ew_num_f(const ew_num *a, int dt, double *out);

/* Writes r into element i of v (ints wrapped to v's dtype). */
bool fl__ew_put_num(fl_value *v, int64_t i, const ew_num *r);

/* x rounded to the precision of float dtype dt (double: unchanged). */
double fl__ew_round_dt(int dt, double x);

bool fl__ew_sym_ok(fl_status st, fl_sym r);

int64_t fl__ew_u2s(uint64_t x);

/* How values of a dtype are evaluated here. Quantized, complex and string
 * types are not. */
int fl__ew_vkind(int dt);

/* x reduced to dtype dt's width, two's complement (bool: 0/1). uint64 keeps
 * its bit pattern in the int64. */
int64_t fl__ew_wrap_int(int dt, uint64_t x);

/* arith.c */
/* Integer binary op of kind `kind` (not a comparison or logical op) on known
 * operands, in dtype dt; false where it has no value (division by 0, ...). */
bool fl__ew_int_known_binop(int kind, int dt, int64_t a, int64_t b, int64_t *r);

/* Binary op of kind `kind` (which may differ from o->kind: AddN, reductions). */
bool fl__ew_bin_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, ew_num *r);

/* Cast of one element from o->in_dt to o->out_dt. */
bool fl__ew_cast_apply(const ew_op *o, const ew_num *a, ew_num *r);

/* Comparison of two elements; *res is 0 or 1. */
bool fl__ew_cmp_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, int *res);

bool fl__ew_un_apply(const ew_op *o, const ew_num *a, ew_num *r);

/* eval.c */
/* True when broadcasting a with b fails for certain (the fl__op_broadcast
 * error condition). */
bool fl__ew_bcast_incompatible(const fl_shape *a, const fl_shape *b);

fl_status fl__ew_eval(fl_ctx *c, fl_node *n);

/* A known scalar or 1-element integer value of input i. */
bool fl__ew_in_scalar_int(const fl_node *n, int i, int64_t *out);

/* Merges two shapes that must be equal (unknown parts are filled from the
 * other side). */
fl_status fl__ew_merge_shapes(fl_ctx *c, const fl_node *n, const fl_shape *a, const fl_shape *b,
                              const char *what, fl_shape *out);

fl_status fl__ew_no_value(fl_ctx *c);

fl_status fl__ew_op_setup(fl_ctx *c, fl_node *n, ew_op *o);

/* Input i must be a scalar (TensorFlow: WithRank 0); a 1-element vector is
 * accepted too, as tfjs graphs give ArgMax's dimension and Cumsum's axis
 * ([1]): unlike fl__op_want_scalar, on purpose. */
fl_status fl__ew_want_scalar_or_one(fl_ctx *c, const fl_node *n, int i, const char *name);

/* cost.c */
fl_status fl__ew_cost(fl_ctx *c, const fl_node *n, fl_cost *out);

/* _UnaryOpsComposition: sum over op_names of each op's complete factor times
 * E(out); tfprof registers no rule for it (0, tfprof_rule false). */
fl_status fl__ew_cost_unary_composition(fl_ctx *c, const fl_node *n, fl_cost *out);

/* reduce.c */
/* Splits a value's dims around `axis` into outer * len * inner. */
void fl__ew_split_axis(const fl_value *x, int axis, int64_t *outer, int64_t *len, int64_t *inner);

#endif
