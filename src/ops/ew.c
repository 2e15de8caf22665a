/*
 * ew.c - the element-wise family: unary math and activations, Cast,
 * ZerosLike/OnesLike, binary ops with numpy broadcasting (arithmetic,
 * comparisons, logical), Prelu, Select/SelectV2, AddN, ClipByValue, the
 * reductions (Sum, Mean, Max, Min, Prod, All, Any), ArgMax/ArgMin and the
 * scans Cumsum/Cumprod.
 *
 * Shapes follow TensorFlow's shape functions (UnchangedShape, the broadcasting
 * helper, Select's and ReductionShape's rules, ArgOpShape), with symbolic dims
 * carried through.
 *
 * Evaluation (eval hooks, plus two values set during infer) computes outputs
 * on known inputs, with TensorFlow's semantics:
 *  - integers: known values are computed in 64-bit two's complement and
 *    truncated to the dtype's width (int32 wraps); Div/RealDiv/TruncateDiv
 *    truncate like C, FloorDiv/FloorMod round toward minus infinity,
 *    Mod/TruncateMod take the dividend's sign; division by zero gives no
 *    value. Symbolic elements (a Shape of a tensor with a symbolic batch) go
 *    through fl_sym: Add/Sub/Mul/Neg/Square/SquaredDifference, FloorDiv,
 *    FloorMod, Maximum/Minimum/Relu/Relu6, Pow by a small known exponent,
 *    Div-like ops when the division is exact, comparisons when the difference
 *    is a known number, Sum/Prod/Max/Min/Mean reductions, AddN, Cumsum/Cumprod,
 *    Cast between integer types. Anything not decidable leaves the output
 *    without a value (never a value with unknown elements).
 *  - floats: each element is computed in double and rounded once to the
 *    output dtype by fl__value_set_f64, which is the correctly rounded result
 *    for + - * / and sqrt in float32 (and what Eigen computes for half and
 *    bfloat16, which go through float). Ops made of several TF steps round in
 *    between (FloorDiv floors the rounded quotient, SquaredDifference squares
 *    the rounded difference, AddN and Cumsum round after every addition).
 *    Xdivy(x, y) is 0 where x == 0, else x / y (one rounding); MulNoNan(x, y)
 *    is 0 where y == 0 (even for an infinite or NaN x), else x * y;
 *    Xlogy(x, y) and Xlog1py(x, y) are 0 where x == 0, else x times the
 *    log (log1p) of y rounded to the dtype (Eigen's two steps). These four
 *    are defined for float and complex T only (TensorFlow's OpDefs): integer
 *    operands get no value. AccumulateNV2 sums like AddN, in input order
 *    (TensorFlow's runtime order is the order inputs become ready; integer
 *    sums do not depend on it).
 *    Transcendental functions use libm in double and may differ from TF's
 *    Eigen kernels in the last bit; reductions accumulate in double.
 *  - Cast: int->float rounds like a C cast through float (double for
 *    float64); float->int truncates and gives no value for NaN or out of
 *    range; Truncate=true narrowing that is inexact gives no value.
 *    Float tensors never hold symbols; a Cast back to an integer type looks
 *    through the float subgraph and keeps symbols when every step is exact
 *    (Cast, Floor/Ceil, Add/Sub, Mul or Div by a power of two or Mul by an
 *    integer constant; see fs_eval): Cast(Shape) to float and back keeps N,
 *    ToInt32(Ceil(float(H) * 0.03125)) gives ceil(H/32), while a Mul by
 *    0.1 or a truncating Cast of H/2 gives no value.
 *  - ZerosLike/OnesLike get their value in infer from a concrete shape.
 *
 * FLOP rules. "complete" convention (out->flops); E(t) = element count;
 * a FLOP here means one arithmetic/logical operation per element, so a
 * transcendental function (exp, tanh, erf, ...) counts 1:
 *  - unary math and activations, Cast, comparisons, logical ops, binary
 *    arithmetic (incl. Pow, Atan2, FloorMod), Select/SelectV2, ClipByValue,
 *    LeakyRelu: 1 * E(out).
 *  - Rsqrt: 2 * E(out) (tfprof's count: sqrt + reciprocal).
 *  - SquaredDifference: 2 * E(out) (subtract + multiply).
 *  - Prelu: 2 * E(out) (a multiply by alpha + a select per element), as
 *    nn.c counts a Prelu fused into _FusedConv2D.
 *  - Gelu: the element-wise ops of its definition, as nn.c counts the
 *    remapper's fused GeluExact / GeluApproximate (so fusing the op or its
 *    unfused subgraph into _FusedMatMul leaves the FLOPs unchanged): exact
 *    5 * E(out) (Mul 1/sqrt2, Erf, Add 1, Mul 1/2, Mul x), approximate
 *    (attr approximate) 9 * E(out) (Square, Mul, Mul c, Add, Mul, Tanh,
 *    Add 1, Mul 1/2, Mul x).
 *  - ReluGrad: 1 * E(out) (a select per element).
 *  - AddN, AccumulateNV2: (N - 1) * E(out), N = data inputs.
 *  - Xdivy, Xlogy, Xlog1py, MulNoNan: 1 * E(out), like the other binary
 *    ops (the test for zero is not counted, as DivNoNan's is not).
 *  - Sum, Max, Min, Prod, All, Any, ArgMax, ArgMin: E(in) - E(out).
 *  - Mean: E(in) (tfprof's formula E(in0) * 1 + E(out) * (1 - 1)).
 *  - Cumsum, Cumprod: (L - 1) per scan line of length L = E(in) - E(in)/L
 *    (exclusive scans counted the same).
 *  - Conj: 1 * E(out), like the other unary ops (no eval).
 *  - _UnaryOpsComposition: the sum of its op_names' factors above times
 *    E(out) (Rsqrt counts 2); tfprof_rule false.
 *  - ZerosLike, OnesLike: 0 (fills; a real rule, has_rule true).
 * tfprof convention (out->tfprof_flops), exactly its registered formulas:
 *  Reciprocal, Square, Log, Neg: E(in0); Rsqrt: 2 * E(in0); Add, AddV2, Sub,
 *  Mul, RealDiv, Maximum, Minimum, Pow, Greater, GreaterEqual, Less,
 *  LessEqual, Equal, NotEqual: E(out); SquaredDifference: 2 * E(out); Mean:
 *  E(in0); Sum, ArgMax, ArgMin: E(in0) - E(out); AddN: E(in0) * (inputs - 1)
 *  where inputs counts control inputs too. Every other op here: 0,
 *  tfprof_rule false (tfprof registers none of Xdivy, Xlogy, Xlog1py,
 *  MulNoNan, AccumulateNV2). MACs: always 0.
 */
#include "ops/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Dtypes                                                                     */
/* ------------------------------------------------------------------------- */

enum { VK_NONE, VK_INT, VK_BOOL, VK_FLOAT };

/* How values of a dtype are evaluated here. Quantized, complex and string
 * types are not. */
static int vkind(int dt) {
    switch (fl_dtype_base(dt)) {
    case FL_DT_INT8:
    case FL_DT_INT16:
    case FL_DT_INT32:
    case FL_DT_INT64:
    case FL_DT_UINT8:
    case FL_DT_UINT16:
    case FL_DT_UINT32:
    case FL_DT_UINT64:
        return VK_INT;
    case FL_DT_BOOL:
        return VK_BOOL;
    case FL_DT_HALF:
    case FL_DT_BFLOAT16:
    case FL_DT_FLOAT:
    case FL_DT_DOUBLE:
        return VK_FLOAT;
    default:
        return VK_NONE;
    }
}

static int int_bits(int dt, bool *is_signed) {
    switch (fl_dtype_base(dt)) {
    case FL_DT_BOOL:
        *is_signed = false;
        return 1;
    case FL_DT_INT8:
        *is_signed = true;
        return 8;
    case FL_DT_UINT8:
        *is_signed = false;
        return 8;
    case FL_DT_INT16:
        *is_signed = true;
        return 16;
    case FL_DT_UINT16:
        *is_signed = false;
        return 16;
    case FL_DT_INT32:
        *is_signed = true;
        return 32;
    case FL_DT_UINT32:
        *is_signed = false;
        return 32;
    case FL_DT_UINT64:
        *is_signed = false;
        return 64;
    default:
        *is_signed = true;
        return 64;
    }
}

static bool is_u64(int dt) {
    return fl_dtype_base(dt) == FL_DT_UINT64;
}

static int64_t u2s(uint64_t x) {
    int64_t r;
    memcpy(&r, &x, sizeof(r));
    return r;
}

/* x reduced to dtype dt's width, two's complement (bool: 0/1). uint64 keeps
 * its bit pattern in the int64. */
static int64_t wrap_int(int dt, uint64_t x) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (bits == 1) {
        return x != 0;
    }
    if (bits >= 64) {
        return u2s(x);
    }
    uint64_t m = ((uint64_t)1 << bits) - 1;
    x &= m;
    if (sg && ((x >> (bits - 1)) & 1)) {
        return (int64_t)x - ((int64_t)1 << bits);
    }
    return (int64_t)x;
}

/* Smallest / largest value of an integer dtype (uint64's max as bit pattern). */
static int64_t int_lowest(int dt) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (!sg) {
        return 0;
    }
    return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
}

static int64_t int_highest(int dt) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (bits >= 64) {
        return sg ? INT64_MAX : -1;
    }
    return sg ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
}

/* x rounded to the precision of float dtype dt (double: unchanged). */
static double round_dt(int dt, double x) {
    switch (fl_dtype_base(dt)) {
    case FL_DT_FLOAT:
        return (double)(float)x;
    case FL_DT_HALF:
    case FL_DT_BFLOAT16: {
        unsigned char buf[8] = {0};
        int64_t one = 1;
        fl_value t = {fl_dtype_base(dt), 0, &one, 1, NULL, buf};
        double r = x;
        fl__value_set_f64(&t, 0, x);
        fl__value_f64(&t, 0, &r);
        return r;
    }
    default:
        return x;
    }
}

/* An integer of dtype src converted to float dtype dst as C/Eigen do: through
 * float for every float type but double. */
static double int_to_float(int src, int dst, int64_t k) {
    if (fl_dtype_base(dst) == FL_DT_DOUBLE) {
        return is_u64(src) ? (double)(uint64_t)k : (double)k;
    }
    float f = is_u64(src) ? (float)(uint64_t)k : (float)k;
    return (double)f;
}

/* A float truncated toward zero into integer dtype dt; false for NaN and out
 * of range (TensorFlow's result is undefined there). */
static bool float_to_int(int dt, double x, int64_t *out) {
    if (isnan(x)) {
        return false;
    }
    bool sg;
    int bits = int_bits(dt, &sg);
    double t = trunc(x);
    if (bits == 1) {
        *out = x != 0;
        return true;
    }
    if (sg) {
        double lim = ldexp(1.0, bits - 1);
        if (t < -lim || t >= lim) {
            return false;
        }
        *out = (int64_t)t;
    } else {
        double lim = ldexp(1.0, bits);
        if (t < 0 || t >= lim) {
            return false;
        }
        *out = u2s((uint64_t)t);
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Elements                                                                   */
/* ------------------------------------------------------------------------- */

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

static bool get_num(const fl_value *v, int64_t i, ew_num *out) {
    out->s = fl_sym_const(0);
    out->x = 0;
    if (i < 0 || i >= v->n) {
        return false;
    }
    if (v->ints) {
        out->f = false;
        out->s = v->ints[i];
        return !fl_sym_is_unknown(out->s);
    }
    out->f = true;
    return fl__value_f64(v, i, &out->x);
}

/* Writes r into element i of v (ints wrapped to v's dtype). */
static bool put_num(fl_value *v, int64_t i, const ew_num *r) {
    if (v->ints) {
        if (r->f || fl_sym_is_unknown(r->s)) {
            return false;
        }
        fl_sym s = r->s;
        if (fl_sym_is_known(s)) {
            s.k = wrap_int(v->dtype, (uint64_t)s.k);
        }
        ((fl_sym *)v->ints)[i] = s;
        return true;
    }
    double x;
    if (r->f) {
        x = r->x;
    } else if (fl_sym_is_known(r->s)) {
        x = (double)r->s.k;
    } else {
        return false;
    }
    fl__value_set_f64(v, i, x);
    return true;
}

/* An element as a double (known integers converted). */
static bool num_f(const ew_num *a, int dt, double *out) {
    if (a->f) {
        *out = a->x;
        return true;
    }
    if (!fl_sym_is_known(a->s)) {
        return false;
    }
    *out = is_u64(dt) ? (double)(uint64_t)a->s.k : (double)a->s.k;
    return true;
}

static bool is_compare(int kind) {
    switch (kind) {
    case FL_OP_GREATER:
    case FL_OP_GREATER_EQUAL:
    case FL_OP_LESS:
    case FL_OP_LESS_EQUAL:
    case FL_OP_EQUAL:
    case FL_OP_NOT_EQUAL:
        return true;
    default:
        return false;
    }
}

static bool is_logical(int kind) {
    return kind == FL_OP_LOGICAL_AND || kind == FL_OP_LOGICAL_OR;
}

/* Integer binary op on known operands, in dtype dt. */
static bool int_known_binop(int kind, int dt, int64_t a, int64_t b, int64_t *r) {
    a = wrap_int(dt, (uint64_t)a);
    b = wrap_int(dt, (uint64_t)b);
    bool u64 = is_u64(dt);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
        *r = wrap_int(dt, ua + ub);
        return true;
    case FL_OP_SUB:
        *r = wrap_int(dt, ua - ub);
        return true;
    case FL_OP_MUL:
        *r = wrap_int(dt, ua * ub);
        return true;
    case FL_OP_SQUARED_DIFFERENCE: {
        uint64_t d = (uint64_t)wrap_int(dt, ua - ub);
        *r = wrap_int(dt, d * d);
        return true;
    }
    case FL_OP_DIV:
    case FL_OP_REAL_DIV:
    case FL_OP_TRUNCATE_DIV:
    case FL_OP_DIV_NO_NAN:
        if (b == 0) {
            if (kind == FL_OP_DIV_NO_NAN) {
                *r = 0;
                return true;
            }
            return false;
        }
        if (u64) {
            *r = u2s(ua / ub);
        } else if (b == -1) {
            *r = wrap_int(dt, 0 - ua);
        } else {
            *r = wrap_int(dt, (uint64_t)(a / b));
        }
        return true;
    case FL_OP_FLOOR_DIV:
        if (b == 0) {
            return false;
        }
        if (u64) {
            *r = u2s(ua / ub);
        } else if (b == -1) {
            *r = wrap_int(dt, 0 - ua);
        } else {
            int64_t q = a / b;
            if (a % b != 0 && ((a < 0) != (b < 0))) {
                q--;
            }
            *r = wrap_int(dt, (uint64_t)q);
        }
        return true;
    case FL_OP_FLOOR_MOD:
        if (b == 0) {
            return false;
        }
        if (u64) {
            *r = u2s(ua % ub);
        } else if (b == -1) {
            *r = 0;
        } else {
            int64_t m = a % b;
            if (m != 0 && ((m < 0) != (b < 0))) {
                m += b;
            }
            *r = m;
        }
        return true;
    case FL_OP_MOD:
    case FL_OP_TRUNCATE_MOD:
        if (b == 0) {
            return false;
        }
        if (u64) {
            *r = u2s(ua % ub);
        } else {
            *r = b == -1 ? 0 : a % b;
        }
        return true;
    case FL_OP_MAXIMUM:
        *r = (u64 ? ua > ub : a > b) ? a : b;
        return true;
    case FL_OP_MINIMUM:
        *r = (u64 ? ua < ub : a < b) ? a : b;
        return true;
    case FL_OP_POW: {
        if (!u64 && b < 0) {
            return false; /* TF: integers to negative powers are not allowed */
        }
        uint64_t base = ua, e = ub, acc = 1;
        while (e) {
            if (e & 1) {
                acc *= base;
            }
            base *= base;
            e >>= 1;
        }
        *r = wrap_int(dt, acc);
        return true;
    }
    case FL_OP_PRELU: /* x < 0 ? alpha * x : x */
        *r = (!u64 && a < 0) ? wrap_int(dt, ua * ub) : a;
        return true;
    default:
        return false;
    }
}

static bool sym_ok(fl_status st, fl_sym r) {
    return st == FL_OK && !fl_sym_is_unknown(r);
}

/* Integer binary op on possibly symbolic operands. */
static bool int_binop(fl_symtab *st, int kind, int dt, fl_sym a, fl_sym b, fl_sym *r) {
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return false;
    }
    if (fl_sym_is_known(a) && fl_sym_is_known(b)) {
        int64_t k;
        if (!int_known_binop(kind, dt, a.k, b.k, &k)) {
            return false;
        }
        *r = fl_sym_const(k);
        return true;
    }
    if (is_u64(dt)) {
        return false;
    }
    fl_status s;
    bool exact;
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
        s = fl__sym_add(st, a, b, r);
        break;
    case FL_OP_SUB:
        s = fl__sym_sub(st, a, b, r);
        break;
    case FL_OP_MUL:
        s = fl__sym_mul(st, a, b, r);
        break;
    case FL_OP_SQUARED_DIFFERENCE: {
        fl_sym d;
        s = fl__sym_sub(st, a, b, &d);
        if (s == FL_OK) {
            s = fl__sym_mul(st, d, d, r);
        }
        break;
    }
    case FL_OP_DIV_NO_NAN:
        if (!fl_sym_is_known(b)) {
            return false; /* a symbolic divisor might be 0 */
        }
        if (b.k == 0) {
            *r = fl_sym_const(0);
            return true;
        }
        s = fl__sym_div(st, a, b, r, &exact);
        if (s == FL_OK && !exact) {
            return false;
        }
        break;
    case FL_OP_DIV:
    case FL_OP_REAL_DIV:
    case FL_OP_TRUNCATE_DIV:
        if (fl_sym_is_known(b) && b.k == 0) {
            return false;
        }
        /* Truncation equals the exact quotient only when it is exact. */
        s = fl__sym_div(st, a, b, r, &exact);
        if (s == FL_OK && !exact) {
            return false;
        }
        break;
    case FL_OP_FLOOR_DIV:
        if (fl_sym_is_known(b) && b.k == 0) {
            return false;
        }
        s = fl__sym_floordiv(st, a, b, r);
        break;
    case FL_OP_FLOOR_MOD:
        if (fl_sym_is_known(b) && b.k == 0) {
            return false;
        }
        s = fl__sym_mod(st, a, b, r);
        break;
    case FL_OP_MOD:
    case FL_OP_TRUNCATE_MOD: {
        fl_sym q;
        if (fl_sym_is_known(b) && b.k == 0) {
            return false;
        }
        s = fl__sym_div(st, a, b, &q, &exact);
        if (s != FL_OK || !exact) {
            return false;
        }
        *r = fl_sym_const(0);
        return true;
    }
    case FL_OP_MAXIMUM:
        s = fl__sym_max(st, a, b, r);
        break;
    case FL_OP_MINIMUM:
        s = fl__sym_min(st, a, b, r);
        break;
    case FL_OP_POW: {
        if (!fl_sym_is_known(b) || b.k < 0 || b.k > 16) {
            return false;
        }
        fl_sym acc = fl_sym_const(1);
        s = FL_OK;
        for (int64_t i = 0; i < b.k && s == FL_OK; i++) {
            s = fl__sym_mul(st, acc, a, &acc);
        }
        *r = acc;
        break;
    }
    default:
        return false;
    }
    return sym_ok(s, *r);
}

/* Comparison of two elements; *res is 0 or 1. */
static bool cmp_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, int *res) {
    if (a->f || b->f) {
        double x, y;
        if (!num_f(a, o->in_dt, &x) || !num_f(b, o->in_dt, &y)) {
            return false;
        }
        switch (kind) {
        case FL_OP_GREATER:
            *res = x > y;
            break;
        case FL_OP_GREATER_EQUAL:
            *res = x >= y;
            break;
        case FL_OP_LESS:
            *res = x < y;
            break;
        case FL_OP_LESS_EQUAL:
            *res = x <= y;
            break;
        case FL_OP_EQUAL:
            *res = x == y;
            break;
        default:
            *res = x != y;
            break;
        }
        return true;
    }
    int sign; /* sign of a - b */
    if (fl_sym_is_known(a->s) && fl_sym_is_known(b->s)) {
        int64_t x = wrap_int(o->in_dt, (uint64_t)a->s.k), y = wrap_int(o->in_dt, (uint64_t)b->s.k);
        if (is_u64(o->in_dt)) {
            sign = (uint64_t)x > (uint64_t)y ? 1 : (uint64_t)x < (uint64_t)y ? -1 : 0;
        } else {
            sign = x > y ? 1 : x < y ? -1 : 0;
        }
    } else {
        fl_sym d;
        if (is_u64(o->in_dt) || fl__sym_sub(o->c->st, a->s, b->s, &d) != FL_OK ||
            !fl_sym_is_known(d)) {
            return false;
        }
        sign = d.k > 0 ? 1 : d.k < 0 ? -1 : 0;
    }
    switch (kind) {
    case FL_OP_GREATER:
        *res = sign > 0;
        break;
    case FL_OP_GREATER_EQUAL:
        *res = sign >= 0;
        break;
    case FL_OP_LESS:
        *res = sign < 0;
        break;
    case FL_OP_LESS_EQUAL:
        *res = sign <= 0;
        break;
    case FL_OP_EQUAL:
        *res = sign == 0;
        break;
    default:
        *res = sign != 0;
        break;
    }
    return true;
}

static double nan_max(double x, double y) {
    if (isnan(x) || isnan(y)) {
        return NAN;
    }
    return x > y ? x : y;
}

static double nan_min(double x, double y) {
    if (isnan(x) || isnan(y)) {
        return NAN;
    }
    return x < y ? x : y;
}

/* Float binary op; results are rounded by the caller (put_num), except the
 * intermediate steps TensorFlow rounds itself. */
static bool flt_binop(int kind, int dt, double x, double y, double *r) {
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
        *r = x + y;
        return true;
    case FL_OP_SUB:
        *r = x - y;
        return true;
    case FL_OP_MUL:
        *r = x * y;
        return true;
    case FL_OP_DIV:
    case FL_OP_REAL_DIV:
        *r = x / y;
        return true;
    case FL_OP_DIV_NO_NAN:
        *r = y == 0 ? 0.0 : x / y;
        return true;
    case FL_OP_XDIVY:
        *r = x == 0 ? 0.0 : x / y;
        return true;
    case FL_OP_MUL_NO_NAN:
        *r = y == 0 ? 0.0 : x * y;
        return true;
    case FL_OP_XLOGY:
        *r = x == 0 ? 0.0 : x * round_dt(dt, log(y));
        return true;
    case FL_OP_XLOG1PY:
        *r = x == 0 ? 0.0 : x * round_dt(dt, log1p(y));
        return true;
    case FL_OP_FLOOR_DIV:
        *r = floor(round_dt(dt, x / y));
        return true;
    case FL_OP_TRUNCATE_DIV:
        *r = trunc(round_dt(dt, x / y));
        return true;
    case FL_OP_FLOOR_MOD: {
        double m = fmod(x, y);
        if (m != 0 && ((y < 0) != (m < 0))) {
            m += y;
        }
        *r = m;
        return true;
    }
    case FL_OP_MOD:
    case FL_OP_TRUNCATE_MOD:
        *r = fmod(x, y);
        return true;
    case FL_OP_MAXIMUM:
        *r = nan_max(x, y);
        return true;
    case FL_OP_MINIMUM:
        *r = nan_min(x, y);
        return true;
    case FL_OP_POW:
        *r = pow(x, y);
        return true;
    case FL_OP_SQUARED_DIFFERENCE: {
        double d = round_dt(dt, x - y);
        *r = d * d;
        return true;
    }
    case FL_OP_ATAN2:
        *r = atan2(x, y);
        return true;
    case FL_OP_PRELU:
        *r = x < 0 ? y * x : x;
        return true;
    default:
        return false;
    }
}

/* Binary op of kind `kind` (which may differ from o->kind: AddN, reductions). */
static bool bin_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, ew_num *r) {
    r->f = false;
    r->s = fl_sym_const(0);
    r->x = 0;
    if (is_compare(kind)) {
        int res;
        if (!cmp_apply(o, kind, a, b, &res)) {
            return false;
        }
        r->f = false;
        r->s = fl_sym_const(res);
        return true;
    }
    if (is_logical(kind)) {
        if (a->f || b->f || !fl_sym_is_known(a->s) || !fl_sym_is_known(b->s)) {
            return false;
        }
        bool x = a->s.k != 0, y = b->s.k != 0;
        r->f = false;
        r->s = fl_sym_const(kind == FL_OP_LOGICAL_AND ? (x && y) : (x || y));
        return true;
    }
    if (!a->f && !b->f) {
        r->f = false;
        return int_binop(o->c->st, kind, o->in_dt, a->s, b->s, &r->s);
    }
    double x, y;
    if (!num_f(a, o->in_dt, &x) || !num_f(b, o->in_dt, &y)) {
        return false;
    }
    r->f = true;
    return flt_binop(kind, o->in_dt, x, y, &r->x);
}

/* Integer unary ops. */
static bool int_unop(const ew_op *o, fl_sym a, fl_sym *r) {
    int dt = o->in_dt;
    bool u64 = is_u64(dt);
    if (fl_sym_is_known(a)) {
        int64_t k = wrap_int(dt, (uint64_t)a.k), res;
        uint64_t uk = (uint64_t)k;
        switch (o->kind) {
        case FL_OP_LOGICAL_NOT:
            res = k == 0;
            break;
        case FL_OP_NEG:
            res = wrap_int(dt, 0 - uk);
            break;
        case FL_OP_ABS:
            res = (!u64 && k < 0) ? wrap_int(dt, 0 - uk) : k;
            break;
        case FL_OP_SQUARE:
            res = wrap_int(dt, uk * uk);
            break;
        case FL_OP_SIGN:
            res = u64 ? (k != 0) : (k > 0) - (k < 0);
            break;
        case FL_OP_RELU:
            res = (!u64 && k < 0) ? 0 : k;
            break;
        case FL_OP_RELU6:
            res = (!u64 && k < 0) ? 0 : k;
            if (u64 ? uk > 6 : res > 6) {
                res = 6;
            }
            break;
        case FL_OP_FLOOR:
        case FL_OP_CEIL:
        case FL_OP_ROUND:
        case FL_OP_RINT:
            res = k;
            break;
        case FL_OP_RECIPROCAL:
        case FL_OP_INV:
            if (k == 0) {
                return false;
            }
            res = u64 ? (uk == 1) : 1 / k;
            break;
        default:
            return false;
        }
        *r = fl_sym_const(res);
        return true;
    }
    if (u64 || !fl_sym_is_symbolic(a)) {
        return false;
    }
    fl_status s;
    fl_symtab *st = o->c->st;
    switch (o->kind) {
    case FL_OP_NEG:
        s = fl__sym_neg(st, a, r);
        break;
    case FL_OP_SQUARE:
        s = fl__sym_mul(st, a, a, r);
        break;
    case FL_OP_RELU:
        s = fl__sym_max(st, a, fl_sym_const(0), r);
        break;
    case FL_OP_RELU6: {
        fl_sym t;
        s = fl__sym_max(st, a, fl_sym_const(0), &t);
        if (s == FL_OK) {
            s = fl__sym_min(st, t, fl_sym_const(6), r);
        }
        break;
    }
    case FL_OP_FLOOR:
    case FL_OP_CEIL:
    case FL_OP_ROUND:
    case FL_OP_RINT:
        *r = a;
        return true;
    default:
        return false;
    }
    return sym_ok(s, *r);
}

static double sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

/* Float unary ops (IsNan/IsInf/IsFinite give bools in *is_bool). */
static bool flt_unop(const ew_op *o, double x, ew_num *r) {
    const double selu_scale = 1.0507009873554804934193349852946;
    const double selu_alpha = 1.6732632423543772848170429916717;
    double y;
    r->f = true;
    switch (o->kind) {
    case FL_OP_IS_NAN:
    case FL_OP_IS_INF:
    case FL_OP_IS_FINITE: {
        int b = o->kind == FL_OP_IS_NAN   ? isnan(x) != 0
                : o->kind == FL_OP_IS_INF ? isinf(x) != 0
                                          : isfinite(x) != 0;
        r->f = false;
        r->s = fl_sym_const(b);
        return true;
    }
    case FL_OP_ABS:
        y = fabs(x);
        break;
    case FL_OP_NEG:
        y = -x;
        break;
    case FL_OP_EXP:
        y = exp(x);
        break;
    case FL_OP_EXPM1:
        y = expm1(x);
        break;
    case FL_OP_LOG:
        y = log(x);
        break;
    case FL_OP_LOG1P:
        y = log1p(x);
        break;
    case FL_OP_SQRT:
        y = sqrt(x);
        break;
    case FL_OP_RSQRT:
        y = 1.0 / sqrt(x);
        break;
    case FL_OP_SQUARE:
        y = x * x;
        break;
    case FL_OP_RECIPROCAL:
    case FL_OP_INV:
        y = 1.0 / x;
        break;
    case FL_OP_SIGMOID:
        y = sigmoid(x);
        break;
    case FL_OP_MKL_SWISH: /* oneDNN's fused x * Sigmoid(x) */
        y = x * sigmoid(x);
        break;
    case FL_OP_TANH:
        y = tanh(x);
        break;
    case FL_OP_RELU:
        y = isnan(x) ? x : x > 0 ? x : 0.0;
        break;
    case FL_OP_RELU6:
        y = isnan(x) ? x : x > 6 ? 6.0 : x > 0 ? x : 0.0;
        break;
    case FL_OP_ELU:
        y = x > 0 ? x : expm1(x);
        break;
    case FL_OP_SELU:
        y = x > 0 ? selu_scale * x : selu_scale * selu_alpha * expm1(x);
        break;
    case FL_OP_LEAKY_RELU:
        y = x > 0 ? x : o->alpha * x;
        break;
    case FL_OP_SOFTPLUS:
        y = x > 40 ? x : log1p(exp(x));
        break;
    case FL_OP_SOFTSIGN:
        y = x / (1.0 + fabs(x));
        break;
    case FL_OP_GELU:
        if (o->approximate) {
            const double k = 0.7978845608028654; /* sqrt(2/pi) */
            y = 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
        } else {
            y = 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
        }
        break;
    case FL_OP_FLOOR:
        y = floor(x);
        break;
    case FL_OP_CEIL:
        y = ceil(x);
        break;
    case FL_OP_ROUND:
    case FL_OP_RINT:
        y = nearbyint(x); /* half to even in the default rounding mode */
        break;
    case FL_OP_SIGN:
        y = isnan(x) ? x : (double)((x > 0) - (x < 0));
        break;
    case FL_OP_SIN:
        y = sin(x);
        break;
    case FL_OP_COS:
        y = cos(x);
        break;
    case FL_OP_TAN:
        y = tan(x);
        break;
    case FL_OP_ASIN:
        y = asin(x);
        break;
    case FL_OP_ACOS:
        y = acos(x);
        break;
    case FL_OP_ATAN:
        y = atan(x);
        break;
    case FL_OP_ERF:
        y = erf(x);
        break;
    case FL_OP_ERFC:
        y = erfc(x);
        break;
    default:
        return false;
    }
    r->x = y;
    return true;
}

static bool un_apply(const ew_op *o, const ew_num *a, ew_num *r) {
    r->f = false;
    r->s = fl_sym_const(0);
    r->x = 0;
    if (!a->f) {
        if (o->kind == FL_OP_IS_NAN || o->kind == FL_OP_IS_INF || o->kind == FL_OP_IS_FINITE) {
            return false; /* float-only ops */
        }
        r->f = false;
        return int_unop(o, a->s, &r->s);
    }
    return flt_unop(o, a->x, r);
}

/* Cast of one element from o->in_dt to o->out_dt. */
static bool cast_apply(const ew_op *o, const ew_num *a, ew_num *r) {
    int dk = vkind(o->out_dt);
    r->f = false;
    r->s = fl_sym_const(0);
    r->x = 0;
    if (!a->f) {
        fl_sym s = a->s;
        if (dk == VK_INT || dk == VK_BOOL) {
            r->f = false;
            if (fl_sym_is_known(s)) {
                int64_t k = wrap_int(o->in_dt, (uint64_t)s.k);
                r->s = fl_sym_const(wrap_int(o->out_dt, (uint64_t)k));
                return true;
            }
            if (dk == VK_BOOL || !fl_sym_is_symbolic(s)) {
                return false;
            }
            r->s = s; /* integer to integer keeps the symbol */
            return true;
        }
        if (dk != VK_FLOAT || !fl_sym_is_known(s)) {
            return false;
        }
        r->f = true;
        r->x = int_to_float(
            o->in_dt, o->out_dt,
            fl_dtype_base(o->in_dt) == FL_DT_BOOL ? (s.k != 0) : wrap_int(o->in_dt, (uint64_t)s.k));
        return true;
    }
    double x = a->x;
    switch (dk) {
    case VK_FLOAT:
        if (o->truncate && !isnan(x) && round_dt(o->out_dt, x) != x) {
            return false; /* mantissa truncation is not modelled */
        }
        r->f = true;
        r->x = x;
        return true;
    case VK_BOOL:
        r->f = false;
        r->s = fl_sym_const(x != 0);
        return true;
    case VK_INT: {
        int64_t k;
        if (!float_to_int(o->out_dt, x, &k)) {
            return false;
        }
        r->f = false;
        r->s = fl_sym_const(k);
        return true;
    }
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------- */
/* The element-wise evaluation loop with broadcasting                         */
/* ------------------------------------------------------------------------- */

/* Flat index into `in` of output element `flat` under numpy broadcasting. */
static int64_t bcast_index(const fl_value *in, int orank, const int64_t *odims, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int d = orank - 1, j = in->rank - 1; d >= 0; d--, j--) {
        int64_t coord = odims[d] ? flat % odims[d] : 0;
        flat = odims[d] ? flat / odims[d] : 0;
        if (j >= 0) {
            if (in->dims[j] != 1) {
                idx += coord * stride;
            }
            stride *= in->dims[j];
        }
    }
    return idx;
}

/* True when the output tensor's (concrete) shape is exactly the broadcast of
 * the input values ins[first..nin). */
static bool bcast_matches(const fl_tensor *out, const fl_value *const *ins, int first, int nin) {
    if (!fl__shape_is_concrete(&out->shape)) {
        return false;
    }
    int r = out->shape.rank, maxr = 0;
    for (int j = first; j < nin; j++) {
        if (ins[j]->rank > r) {
            return false;
        }
        if (ins[j]->rank > maxr) {
            maxr = ins[j]->rank;
        }
    }
    if (maxr != r) {
        return false;
    }
    for (int d = 0; d < r; d++) {
        int64_t od = out->shape.dims[d].k;
        bool hit = od == 1;
        for (int j = first; j < nin; j++) {
            int k = ins[j]->rank - r + d;
            if (k < 0) {
                continue;
            }
            int64_t id = ins[j]->dims[k];
            if (id == od) {
                hit = true;
            } else if (id != 1) {
                return false;
            }
        }
        if (!hit) {
            return false;
        }
    }
    return true;
}

static bool all_values(const fl_node *n) {
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl_op_in_value(n, i)) {
            return false;
        }
    }
    return true;
}

static fl_status no_value(fl_ctx *c) {
    return c->d->status == FL_ENOMEM ? FL_ENOMEM : FL_OK;
}

static bool same_dims(const fl_value *a, const fl_value *b) {
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i]) {
            return false;
        }
    }
    return true;
}

/* Evaluates output 0 element by element from all data inputs. */
static fl_status ew_run(fl_ctx *c, fl_node *n, const ew_op *o) {
    int nin = n->n_inputs;
    if (nin < 1 || n->n_outputs < 1 || !all_values(n) || vkind(n->outputs[0].dtype) == VK_NONE) {
        return FL_OK;
    }
    const fl_value **ins = fl__arena_calloc(c->a, (size_t)nin, sizeof(*ins));
    ew_num *args = fl__arena_calloc(c->a, (size_t)nin, sizeof(*args));
    if (!ins || !args) {
        return fl__diag_oom(c->d);
    }
    for (int j = 0; j < nin; j++) {
        ins[j] = fl_op_in_value(n, j);
        if (vkind(ins[j]->dtype) == VK_NONE) {
            return FL_OK;
        }
    }
    const fl_tensor *out = &n->outputs[0];
    bool cond_vec = false; /* Select: a vector condition picks rows of dim 0 */
    if (o->kind == FL_OP_SELECT && ins[0]->rank == 1 && ins[1]->rank > 1) {
        if (!same_dims(ins[1], ins[2]) || ins[0]->dims[0] != ins[1]->dims[0]) {
            return FL_OK;
        }
        cond_vec = true;
    } else if (o->kind == FL_OP_SELECT) {
        if (!same_dims(ins[1], ins[2]) || (ins[0]->rank != 0 && !same_dims(ins[0], ins[1]))) {
            return FL_OK;
        }
    } else if (o->kind == FL_OP_CLIP_BY_VALUE || o->kind == FL_OP_ADD_N ||
               o->kind == FL_OP_ACCUMULATE_NV2) {
        for (int j = 1; j < nin; j++) {
            bool ok =
                same_dims(ins[j], ins[0]) || (o->kind == FL_OP_CLIP_BY_VALUE && ins[j]->rank == 0);
            if (!ok) {
                return FL_OK;
            }
        }
    }
    if (!bcast_matches(out, ins, cond_vec ? 1 : 0, nin)) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    int64_t inner = 1;
    if (cond_vec) {
        for (int d = 1; d < v->rank; d++) {
            inner *= v->dims[d];
        }
    }
    for (int64_t i = 0; i < v->n; i++) {
        for (int j = 0; j < nin; j++) {
            int64_t idx = (cond_vec && j == 0) ? (inner ? i / inner : 0)
                                               : bcast_index(ins[j], v->rank, v->dims, i);
            if (!get_num(ins[j], idx, &args[j])) {
                return FL_OK;
            }
        }
        ew_num r;
        bool ok;
        switch (o->kind) {
        case FL_OP_CAST:
            ok = cast_apply(o, &args[0], &r);
            break;
        case FL_OP_SELECT:
        case FL_OP_SELECT_V2:
            ok = !args[0].f && fl_sym_is_known(args[0].s);
            if (ok) {
                r = args[0].s.k ? args[1] : args[2];
            }
            break;
        case FL_OP_ADD_N:
        case FL_OP_ACCUMULATE_NV2:
            r = args[0];
            ok = true;
            for (int j = 1; j < nin && ok; j++) {
                ew_num t;
                ok = bin_apply(o, FL_OP_ADD, &r, &args[j], &t);
                if (ok && t.f) {
                    t.x = round_dt(o->in_dt, t.x);
                }
                r = t;
            }
            break;
        case FL_OP_CLIP_BY_VALUE: {
            ew_num t;
            ok = bin_apply(o, FL_OP_MINIMUM, &args[0], &args[2], &t) &&
                 bin_apply(o, FL_OP_MAXIMUM, &t, &args[1], &r);
            break;
        }
        default:
            ok = nin == 1 ? un_apply(o, &args[0], &r)
                          : bin_apply(o, o->kind, &args[0], &args[1], &r);
            break;
        }
        if (!ok || !put_num(v, i, &r)) {
            return FL_OK;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status op_setup(fl_ctx *c, fl_node *n, ew_op *o) {
    memset(o, 0, sizeof(*o));
    o->c = c;
    o->kind = n->kind;
    int src = (n->kind == FL_OP_SELECT || n->kind == FL_OP_SELECT_V2) ? 1 : 0;
    const fl_value *v = src < n->n_inputs ? fl_op_in_value(n, src) : NULL;
    o->in_dt = v ? fl_dtype_base(v->dtype) : FL_DT_INVALID;
    o->out_dt = n->n_outputs > 0 ? fl_dtype_base(n->outputs[0].dtype) : FL_DT_INVALID;
    fl_status st = FL_OK;
    if (n->kind == FL_OP_LEAKY_RELU) {
        float a;
        st = fl__attr_float_or(n, "alpha", 0.2f, &a, c->d);
        o->alpha = a;
    } else if (n->kind == FL_OP_GELU) {
        st = fl__attr_bool_or(n, "approximate", false, &o->approximate, c->d);
    } else if (n->kind == FL_OP_CAST) {
        st = fl__attr_bool_or(n, "Truncate", false, &o->truncate, c->d);
    }
    return st;
}

static fl_status eval_ew(fl_ctx *c, fl_node *n) {
    ew_op o;
    fl_status st = op_setup(c, n, &o);
    if (st != FL_OK) {
        return st;
    }
    return ew_run(c, n, &o);
}

/* ------------------------------------------------------------------------- */
/* Infer helpers                                                              */
/* ------------------------------------------------------------------------- */

/* Dtype from type attr `attr`, else from data input `in`'s dtype. */
static fl_status dtype_of(fl_ctx *c, const fl_node *n, const char *attr, int in, int *dt) {
    int t;
    fl_status st = fl__attr_get_type(n, attr, &t, c->d);
    if (st == FL_OK) {
        if (!fl__dtype_valid(t)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' holds invalid DataType %d", attr,
                                 t);
        }
        *dt = fl_dtype_base(t);
        return FL_OK;
    }
    if (st != FL_ENOTFOUND) {
        return st;
    }
    *dt = (in >= 0 && in < n->n_inputs) ? fl_dtype_base(fl_node_in(n, in)->dtype) : FL_DT_INVALID;
    return FL_OK;
}

/* Merges two shapes that must be equal (unknown parts are filled from the
 * other side). */
static fl_status merge_shapes(fl_ctx *c, const fl_node *n, const fl_shape *a, const fl_shape *b,
                              const char *what, fl_shape *out) {
    if (a->rank < 0) {
        *out = *b;
        return FL_OK;
    }
    if (b->rank < 0) {
        *out = *a;
        return FL_OK;
    }
    if (a->rank != b->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%s must have the same shape, got ranks %d and %d",
                             what, a->rank, b->rank);
    }
    fl_sym *d = fl__arena_calloc(c->a, a->rank ? (size_t)a->rank : 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < a->rank; i++) {
        fl_sym x = a->dims[i], y = b->dims[i];
        if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "%s must have the same shape, dim %d is %lld vs %lld", what, i,
                                 (long long)x.k, (long long)y.k);
        }
        fl_status st = fl__op_merge_dim(c, n, x, y, what, &d[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    out->rank = a->rank;
    out->dims = d;
    return FL_OK;
}

/* True when broadcasting a with b fails for certain (the fl__op_broadcast
 * error condition). */
static bool bcast_incompatible(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || b->rank < 0) {
        return false;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        if (ia < 0 || ib < 0) {
            continue;
        }
        fl_sym x = a->dims[ia], y = b->dims[ib];
        if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k && x.k != 1 && y.k != 1) {
            return true;
        }
    }
    return false;
}

/* A known scalar or 1-element integer value of input i. */
static bool in_scalar_int(const fl_node *n, int i, int64_t *out) {
    const fl_value *v = fl_op_in_value(n, i);
    if (!v || !v->ints || v->n != 1 || v->rank > 1 || !fl_sym_is_known(v->ints[0])) {
        return false;
    }
    *out = v->ints[0].k;
    return true;
}

/* Input i must be a scalar (TensorFlow: WithRank 0); a 1-element vector is
 * accepted too, as tfjs graphs give ArgMax's dimension and Cumsum's axis
 * ([1]): unlike fl__op_want_scalar, on purpose. */
static fl_status want_scalar_or_one(fl_ctx *c, const fl_node *n, int i, const char *name) {
    const fl_shape *s = &fl_node_in(n, i)->shape;
    if (s->rank < 0 || s->rank == 0) {
        return FL_OK;
    }
    if (s->rank == 1 && (!fl_sym_is_known(s->dims[0]) || s->dims[0].k == 1)) {
        return FL_OK;
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be a scalar, got rank %d", name,
                         s->rank);
}

/* ------------------------------------------------------------------------- */
/* Unary ops, Cast, ZerosLike/OnesLike                                        */
/* ------------------------------------------------------------------------- */

static fl_status infer_unary(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    switch (n->kind) {
    case FL_OP_IS_NAN:
    case FL_OP_IS_INF:
    case FL_OP_IS_FINITE:
    case FL_OP_LOGICAL_NOT:
        dt = FL_DT_BOOL;
        break;
    default:
        break;
    }
    ew_op o;
    st = op_setup(c, n, &o); /* validates LeakyRelu's alpha, Gelu's approximate */
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

static fl_status infer_like(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
    }
    if (st != FL_OK) {
        return st;
    }
    /* The value follows from the shape alone. */
    if (vkind(dt) == VK_NONE || !fl__shape_is_concrete(&n->outputs[0].shape)) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    if (n->kind == FL_OP_ONES_LIKE) {
        ew_num one = {false, 1.0, fl_sym_const(1)};
        for (int64_t i = 0; i < v->n; i++) {
            put_num(v, i, &one);
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/*
 * Symbolic integers through float tensors. Float tensors never hold symbols,
 * so a Cast to an integer type whose input has no value looks back through
 * the float subgraph that produced it and evaluates it exactly: every element
 * is kept as num / 2^shift (num an fl_sym, possibly symbolic). Only steps
 * that cannot round are followed: Cast from an integer value (the leaf) or
 * between float types, Identity, Neg, Floor/Ceil (floordiv/ceildiv), Round and
 * Rint (of integers or known values), Add/Sub/Maximum/Minimum, Mul by a known
 * constant that is an integer or a power of two, and RealDiv/Div by a known
 * power of two. Known float constants must be integers or powers of two
 * (0.5, 0.03125): multiplying by any other fraction rounds. Anything else
 * (Mul of two symbolic values, division by 3, a Cast that truncates a
 * symbolic fraction) gives no value. As with any Cast of a symbolic integer
 * to float and back, symbolic values are assumed exactly representable in
 * the float type (below 2^24 for float32, 2^11 for half).
 */
typedef struct fsv {
    int64_t n;
    fl_sym *num;
    int *shift;
} fsv;

enum { FS_MAX_SHIFT = 62, FS_BUDGET = 64 };

static bool fs_alloc(fl_ctx *c, int64_t n, fsv *out) {
    out->n = n;
    out->num = fl__arena_calloc(c->a, n ? (size_t)n : 1, sizeof(fl_sym));
    out->shift = fl__arena_calloc(c->a, n ? (size_t)n : 1, sizeof(int));
    return out->num && out->shift;
}

/* Element count of a tensor with a concrete shape within the value limit, or -1. */
static int64_t fs_count(const fl_ctx *c, const fl_tensor *t) {
    if (!fl__shape_is_concrete(&t->shape)) {
        return -1;
    }
    int64_t cnt = 1;
    for (int i = 0; i < t->shape.rank; i++) {
        int64_t d = t->shape.dims[i].k;
        if (d && cnt > c->max_value_elems / d) {
            return -1;
        }
        cnt *= d;
    }
    return cnt <= c->max_value_elems ? cnt : -1;
}

static fl_sym pow2(int k) {
    return fl_sym_const((int64_t)1 << k);
}

/* Removes common factors of 2 from num / 2^shift. */
static bool fs_norm(fl_ctx *c, fl_sym *num, int *shift) {
    while (*shift > 0) {
        if (fl_sym_is_known(*num)) {
            if (num->k % 2 != 0) {
                break;
            }
            *num = fl_sym_const(num->k / 2);
        } else {
            fl_sym q;
            bool exact;
            if (fl__sym_div(c->st, *num, fl_sym_const(2), &q, &exact) != FL_OK || !exact) {
                break;
            }
            *num = q;
        }
        (*shift)--;
    }
    return *shift >= 0 && *shift <= FS_MAX_SHIFT;
}

/* A known float as num / 2^shift: integers below 2^53 and powers of two only. */
static bool fs_from_double(double x, fl_sym *num, int *shift) {
    if (!isfinite(x)) {
        return false;
    }
    if (x == trunc(x) && fabs(x) < 9007199254740992.0) {
        *num = fl_sym_const((int64_t)x);
        *shift = 0;
        return true;
    }
    int e;
    double m = frexp(fabs(x), &e); /* |x| = m * 2^e, m in [0.5, 1) */
    if (m != 0.5 || 1 - e > FS_MAX_SHIFT) {
        return false;
    }
    *num = fl_sym_const(x < 0 ? -1 : 1);
    *shift = 1 - e;
    return true;
}

/* True when every element is known and, if `pow2_only`, a power of two. */
static bool fs_known(const fsv *v, bool pow2_only) {
    for (int64_t i = 0; i < v->n; i++) {
        if (!fl_sym_is_known(v->num[i])) {
            return false;
        }
        if (pow2_only) {
            int64_t k = v->num[i].k;
            uint64_t a = k < 0 ? 0 - (uint64_t)k : (uint64_t)k;
            if (a == 0 || (a & (a - 1)) != 0) {
                return false;
            }
        }
    }
    return true;
}

/* log2 of a known power of two. */
static int ilog2(int64_t k) {
    uint64_t a = k < 0 ? 0 - (uint64_t)k : (uint64_t)k;
    int r = 0;
    while (a > 1) {
        a >>= 1;
        r++;
    }
    return r;
}

/* Round half to even of a known num / 2^shift (shift > 0). */
static int64_t round_half_even(int64_t num, int shift) {
    int64_t d = (int64_t)1 << shift;
    int64_t q = num / d, r = num % d;
    if (r < 0) { /* floor division */
        q--;
        r += d;
    }
    if (2 * r > d || (2 * r == d && (q & 1))) {
        q++;
    }
    return q;
}

static bool fs_unary(fl_ctx *c, int kind, fl_sym a, int sa, fl_sym *r, int *sr) {
    fl_status st = FL_OK;
    *sr = 0;
    switch (kind) {
    case FL_OP_NEG:
        *sr = sa;
        st = fl__sym_neg(c->st, a, r);
        break;
    case FL_OP_FLOOR:
    case FL_OP_CEIL:
        if (sa == 0) {
            *r = a;
        } else if (kind == FL_OP_FLOOR) {
            st = fl__sym_floordiv(c->st, a, pow2(sa), r);
        } else {
            st = fl__sym_ceildiv(c->st, a, pow2(sa), r);
        }
        break;
    case FL_OP_ROUND:
    case FL_OP_RINT:
        if (sa == 0) {
            *r = a;
        } else if (fl_sym_is_known(a)) {
            *r = fl_sym_const(round_half_even(a.k, sa));
        } else {
            return false;
        }
        break;
    default:
        return false;
    }
    return sym_ok(st, *r) && fs_norm(c, r, sr);
}

/* x op y on num / 2^shift operands; xk / yk: that operand is all known
 * (yk2: the divisor is all powers of two). */
static bool fs_binary(fl_ctx *c, int kind, fl_sym x, int sx, fl_sym y, int sy, bool xk, bool yk,
                      bool yk2, fl_sym *r, int *sr) {
    fl_status st;
    fl_symtab *t = c->st;
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_SUB:
    case FL_OP_MAXIMUM:
    case FL_OP_MINIMUM: {
        int s = sx > sy ? sx : sy;
        fl_sym a, b;
        st = fl__sym_mul(t, x, pow2(s - sx), &a);
        if (st == FL_OK) {
            st = fl__sym_mul(t, y, pow2(s - sy), &b);
        }
        if (st == FL_OK) {
            st = kind == FL_OP_SUB       ? fl__sym_sub(t, a, b, r)
                 : kind == FL_OP_MAXIMUM ? fl__sym_max(t, a, b, r)
                 : kind == FL_OP_MINIMUM ? fl__sym_min(t, a, b, r)
                                         : fl__sym_add(t, a, b, r);
        }
        *sr = s;
        break;
    }
    case FL_OP_MUL:
        if (!xk && !yk) {
            return false; /* a product of two symbolic floats may round */
        }
        st = fl__sym_mul(t, x, y, r);
        *sr = sx + sy;
        break;
    case FL_OP_REAL_DIV:
    case FL_OP_DIV: {
        if (!yk2) {
            return false;
        }
        /* x / (y / 2^sy) with y = +-2^j: +-x * 2^sy / 2^(sx + j). */
        int s = sx + ilog2(y.k) - sy;
        st = y.k < 0 ? fl__sym_neg(t, x, r) : (*r = x, FL_OK);
        if (st == FL_OK && s < 0) {
            if (-s > FS_MAX_SHIFT) {
                return false;
            }
            st = fl__sym_mul(t, *r, pow2(-s), r);
            s = 0;
        }
        *sr = s;
        break;
    }
    default:
        return false;
    }
    return sym_ok(st, *r) && *sr <= FS_MAX_SHIFT && fs_norm(c, r, sr);
}

static bool fs_eval(fl_ctx *c, const fl_tensor *t, int *budget, fsv *out) {
    if (--*budget < 0 || vkind(t->dtype) != VK_FLOAT) {
        return false;
    }
    int64_t cnt = fs_count(c, t);
    if (cnt < 0) {
        return false;
    }
    if (t->value) {
        if (t->value->n != cnt || !fs_alloc(c, cnt, out)) {
            return false;
        }
        for (int64_t i = 0; i < cnt; i++) {
            double x;
            if (!fl__value_f64(t->value, i, &x) ||
                !fs_from_double(x, &out->num[i], &out->shift[i])) {
                return false;
            }
        }
        return true;
    }
    const fl_node *p = t->producer;
    if (!p || t->port != 0 || p->n_inputs < 1) {
        return false;
    }
    const fl_tensor *a = fl_node_in(p, 0);
    fsv x, y;
    switch (p->kind) {
    case FL_OP_CAST:
        if (vkind(a->dtype) == VK_INT || vkind(a->dtype) == VK_BOOL) {
            const fl_value *v = a->value;
            if (!v || !v->ints || v->n != cnt || !fs_alloc(c, cnt, out)) {
                return false;
            }
            for (int64_t i = 0; i < cnt; i++) {
                fl_sym s = v->ints[i];
                out->num[i] = s;
                out->shift[i] = 0;
                if (fl_sym_is_unknown(s)) {
                    return false;
                }
                if (fl_sym_is_known(s)) {
                    int64_t k = wrap_int(a->dtype, (uint64_t)s.k);
                    double d = round_dt(t->dtype, int_to_float(a->dtype, t->dtype, k));
                    if (!fs_from_double(d, &out->num[i], &out->shift[i])) {
                        return false;
                    }
                }
            }
            return true;
        }
        return fs_eval(c, a, budget, out) && out->n == cnt;
    case FL_OP_IDENTITY:
    case FL_OP_SNAPSHOT:
    case FL_OP_STOP_GRADIENT:
        return fs_eval(c, a, budget, out) && out->n == cnt;
    case FL_OP_NEG:
    case FL_OP_FLOOR:
    case FL_OP_CEIL:
    case FL_OP_ROUND:
    case FL_OP_RINT:
        if (!fs_eval(c, a, budget, &x) || x.n != cnt || !fs_alloc(c, cnt, out)) {
            return false;
        }
        for (int64_t i = 0; i < cnt; i++) {
            if (!fs_unary(c, p->kind, x.num[i], x.shift[i], &out->num[i], &out->shift[i])) {
                return false;
            }
        }
        return true;
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_SUB:
    case FL_OP_MUL:
    case FL_OP_REAL_DIV:
    case FL_OP_DIV:
    case FL_OP_MAXIMUM:
    case FL_OP_MINIMUM: {
        if (p->n_inputs < 2 || !fs_eval(c, a, budget, &x) ||
            !fs_eval(c, fl_node_in(p, 1), budget, &y) || !fs_alloc(c, cnt, out)) {
            return false;
        }
        if ((x.n != cnt && x.n != 1) || (y.n != cnt && y.n != 1)) {
            return false;
        }
        bool xk = fs_known(&x, false), yk = fs_known(&y, false), yk2 = fs_known(&y, true);
        for (int64_t i = 0; i < cnt; i++) {
            int64_t ix = x.n == 1 ? 0 : i, iy = y.n == 1 ? 0 : i;
            if (!fs_binary(c, p->kind, x.num[ix], x.shift[ix], y.num[iy], y.shift[iy], xk, yk, yk2,
                           &out->num[i], &out->shift[i])) {
                return false;
            }
        }
        return true;
    }
    default:
        return false;
    }
}

/* True when the known integer k is in the range of integer dtype dt. */
static bool int_fits(int dt, int64_t k) {
    if (is_u64(dt)) {
        return k >= 0;
    }
    return k >= int_lowest(dt) && k <= int_highest(dt);
}

/* A Cast to an integer type whose float input has no value (see fs_eval). */
static fl_status cast_lookthrough(fl_ctx *c, fl_node *n) {
    if (vkind(n->outputs[0].dtype) != VK_INT) {
        return FL_OK;
    }
    int budget = FS_BUDGET;
    fsv r;
    if (!fs_eval(c, fl_node_in(n, 0), &budget, &r) || fs_count(c, &n->outputs[0]) != r.n) {
        return no_value(c);
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    for (int64_t i = 0; i < v->n; i++) {
        ew_num e = {false, 0.0, r.num[i]};
        if (r.shift[i] > 0) {
            if (!fl_sym_is_known(r.num[i])) {
                return FL_OK; /* truncating a symbolic fraction */
            }
            e.s = fl_sym_const(r.num[i].k / ((int64_t)1 << r.shift[i]));
        }
        if (fl_sym_is_known(e.s) && !int_fits(v->dtype, e.s.k)) {
            return FL_OK;
        }
        if (!put_num(v, i, &e)) {
            return FL_OK;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_cast(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dst, srct;
    fl_status st = fl__attr_need_type(n, "DstT", &dst, c->d);
    if (st != FL_OK) {
        return st;
    }
    st = fl__attr_get_type(n, "SrcT", &srct, c->d);
    if (st == FL_OK) {
        if (x->dtype != FL_DT_INVALID && fl_dtype_base(x->dtype) != fl_dtype_base(srct)) {
            fl__node_warn(c->d, n, "attr 'SrcT' is %s but input 0 is %s", fl__dtype_name(srct),
                          fl__dtype_name(x->dtype));
        }
    } else if (st != FL_ENOTFOUND) {
        return st;
    }
    bool trunc_attr;
    st = fl__attr_bool_or(n, "Truncate", false, &trunc_attr, c->d);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, fl_dtype_base(dst), x->shape.rank, x->shape.dims);
    }
    if (st != FL_OK) {
        return st;
    }
    if (!x->value) {
        return cast_lookthrough(c, n);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Binary ops, Prelu, Select, AddN, ClipByValue                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_binary(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0), *y = fl_node_in(n, 1);
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    if (is_compare(n->kind) || is_logical(n->kind)) {
        dt = FL_DT_BOOL;
    }
    if (n->kind == FL_OP_EQUAL || n->kind == FL_OP_NOT_EQUAL) {
        bool strict;
        st = fl__attr_bool_or(n, "incompatible_shape_error", true, &strict, c->d);
        if (st != FL_OK) {
            return st;
        }
        if (!strict && bcast_incompatible(&x->shape, &y->shape)) {
            /* TensorFlow then returns a scalar: false for Equal, true for NotEqual. */
            st = fl__op_set_output(c, n, 0, FL_DT_BOOL, 0, NULL);
            if (st != FL_OK) {
                return st;
            }
            fl_value *v = fl__op_new_value(c, n, 0);
            if (!v) {
                return no_value(c);
            }
            ((fl_sym *)v->ints)[0] = fl_sym_const(n->kind == FL_OP_NOT_EQUAL);
            fl__op_set_value(n, 0, v);
            return FL_OK;
        }
    }
    fl_shape out;
    st = fl__op_broadcast(c, n, &x->shape, &y->shape, &out);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

static fl_status eval_binary(fl_ctx *c, fl_node *n) {
    if (n->outputs[0].value) {
        return FL_OK; /* set by infer (Equal of incompatible shapes) */
    }
    return eval_ew(c, n);
}

/* Select: 't' and 'e' have the same shape; 'condition' is a scalar, has that
 * shape too, or is a vector matching dim 0 of 't'. */
static fl_status infer_select(fl_ctx *c, fl_node *n) {
    const fl_shape *cond = &fl_node_in(n, 0)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 1, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape data;
    st = merge_shapes(c, n, &fl_node_in(n, 1)->shape, &fl_node_in(n, 2)->shape,
                      "inputs 't' and 'e'", &data);
    if (st != FL_OK) {
        return st;
    }
    if (cond->rank > 0 && data.rank >= 0) {
        if (cond->rank != 1 || data.rank == 0) {
            st = merge_shapes(c, n, &data, cond, "inputs 'condition' and 't'", &data);
        } else {
            fl_sym a = cond->dims[0], b = data.dims[0];
            if (fl_sym_is_known(a) && fl_sym_is_known(b) && a.k != b.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'condition' is a vector of %lld elements but dim 0 of "
                                     "'t' is %lld",
                                     (long long)a.k, (long long)b.k);
            }
            fl_sym *d = fl__arena_calloc(c->a, (size_t)data.rank, sizeof(fl_sym));
            if (!d) {
                return fl__diag_oom(c->d);
            }
            memcpy(d, data.dims, (size_t)data.rank * sizeof(fl_sym));
            st = fl__op_merge_dim(c, n, b, a, "dim 0 of inputs 'condition' and 't'", &d[0]);
            data.dims = d;
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, data.rank, data.dims);
}

static fl_status infer_select_v2(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 1, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape te, out;
    st = fl__op_broadcast(c, n, &fl_node_in(n, 1)->shape, &fl_node_in(n, 2)->shape, &te);
    if (st == FL_OK) {
        st = fl__op_broadcast(c, n, &fl_node_in(n, 0)->shape, &te, &out);
    }
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

static fl_status infer_add_n(fl_ctx *c, fl_node *n) {
    int64_t attr_n;
    fl_status st = fl__attr_get_int(n, "N", &attr_n, c->d);
    if (st == FL_OK) {
        if (attr_n < 1 || attr_n != n->n_inputs) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'N' is %lld but the node has %d data inputs",
                                 (long long)attr_n, n->n_inputs);
        }
    } else if (st != FL_ENOTFOUND) {
        return st;
    }
    int dt = FL_DT_INVALID;
    st = dtype_of(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    fl_shape s = fl_node_in(n, 0)->shape;
    for (int i = 1; i < n->n_inputs; i++) {
        st = merge_shapes(c, n, &s, &fl_node_in(n, i)->shape, "inputs of AddN", &s);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, s.rank, s.dims);
}

/* AccumulateNV2: TensorFlow's shape function is ExplicitShape (attr
 * 'shape'); the inputs, which the kernel requires to have that shape too,
 * fill in what the attr leaves unknown (all of it when the attr is
 * missing). */
static fl_status infer_accumulate_n(fl_ctx *c, fl_node *n) {
    fl_status st = infer_add_n(c, n);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        return FL_OK; /* required by TensorFlow; without it the inputs decide */
    }
    if (st != FL_OK || lit.rank < 0) {
        return st;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)lit.rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < lit.rank; i++) {
        int64_t v = lit.dims ? lit.dims[i] : -1;
        if (v < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has invalid dim %lld at axis %d",
                                 (long long)v, i);
        }
        d[i] = v >= 0 ? fl_sym_const(v) : fl_sym_unknown();
    }
    fl_shape attr = {lit.rank, d}, out;
    st = merge_shapes(c, n, &attr, &n->outputs[0].shape, "attr 'shape' and the inputs", &out);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, n->outputs[0].dtype, out.rank, out.dims);
}

static fl_status infer_clip(fl_ctx *c, fl_node *n) {
    const fl_tensor *t = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, t->shape.rank, t->shape.dims);
}

/* ------------------------------------------------------------------------- */
/* Reductions                                                                 */
/* ------------------------------------------------------------------------- */

/* Marks the axes of a known reduction_indices value in mask[rank]. */
static fl_status reduce_mask(fl_ctx *c, const fl_node *n, int rank, const fl_value *ax,
                             bool *mask) {
    for (int64_t i = 0; i < ax->n; i++) {
        int64_t a = ax->ints[i].k;
        if (a < -rank || a >= rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'reduction_indices' holds %lld, out of range for an input "
                                 "of rank %d",
                                 (long long)a, rank);
        }
        mask[a < 0 ? a + rank : a] = true;
    }
    return FL_OK;
}

/* The reduction_indices value when every element is known, else NULL. */
static const fl_value *known_axes(const fl_node *n) {
    const fl_value *ax = fl_op_in_value(n, 1);
    if (!ax || !ax->ints) {
        return NULL;
    }
    for (int64_t i = 0; i < ax->n; i++) {
        if (!fl_sym_is_known(ax->ints[i])) {
            return NULL;
        }
    }
    return ax;
}

static fl_status infer_reduce(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    const fl_shape *axs = &fl_node_in(n, 1)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    if (n->kind == FL_OP_ALL || n->kind == FL_OP_ANY) {
        dt = FL_DT_BOOL;
    }
    bool keep;
    st = fl__attr_bool_or(n, "keep_dims", false, &keep, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (axs->rank > 1 && c->g && c->g->producer >= 21) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'reduction_indices' must be a scalar or vector, got rank %d",
                             axs->rank);
    }
    const fl_value *ax = known_axes(n);
    if (!ax || x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, (keep && x->rank >= 0) ? x->rank : -1);
    }
    bool *mask = fl__arena_calloc(c->a, x->rank ? (size_t)x->rank : 1, sizeof(bool));
    fl_sym *d = fl__arena_calloc(c->a, x->rank ? (size_t)x->rank : 1, sizeof(fl_sym));
    if (!mask || !d) {
        return fl__diag_oom(c->d);
    }
    st = reduce_mask(c, n, x->rank, ax, mask);
    if (st != FL_OK) {
        return st;
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!mask[i]) {
            d[r++] = x->dims[i];
        } else if (keep) {
            d[r++] = fl_sym_const(1);
        }
    }
    return fl__op_set_output(c, n, 0, dt, r, d);
}

static int reduce_combine_kind(int kind) {
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_MEAN:
        return FL_OP_ADD;
    case FL_OP_PROD:
        return FL_OP_MUL;
    case FL_OP_MAX:
        return FL_OP_MAXIMUM;
    case FL_OP_MIN:
        return FL_OP_MINIMUM;
    case FL_OP_ALL:
        return FL_OP_LOGICAL_AND;
    default:
        return FL_OP_LOGICAL_OR;
    }
}

/* The value of an empty reduction. */
static bool reduce_identity(int kind, int dt, ew_num *r) {
    bool fl = vkind(dt) == VK_FLOAT;
    r->f = fl;
    r->x = 0;
    r->s = fl_sym_const(0);
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_ANY:
        return true;
    case FL_OP_PROD:
    case FL_OP_ALL:
        r->x = 1;
        r->s = fl_sym_const(1);
        return true;
    case FL_OP_MAX:
        r->x = -INFINITY;
        r->s = fl_sym_const(int_lowest(dt));
        return true;
    case FL_OP_MIN:
        r->x = INFINITY;
        r->s = fl_sym_const(int_highest(dt));
        return true;
    default:
        return false; /* Mean of nothing */
    }
}

static fl_status eval_reduce(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    const fl_value *ax = known_axes(n);
    const fl_tensor *out = &n->outputs[0];
    if (!x || !ax || vkind(x->dtype) == VK_NONE || vkind(out->dtype) == VK_NONE ||
        !fl__shape_is_concrete(&out->shape)) {
        return FL_OK;
    }
    int rank = x->rank;
    bool keep;
    fl_status st = fl__attr_bool_or(n, "keep_dims", false, &keep, c->d);
    if (st != FL_OK) {
        return st;
    }
    bool *mask = fl__arena_calloc(c->a, rank ? (size_t)rank : 1, sizeof(bool));
    if (!mask) {
        return fl__diag_oom(c->d);
    }
    st = reduce_mask(c, n, rank, ax, mask);
    if (st != FL_OK) {
        return st;
    }
    /* The output shape must be what the mask gives. */
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (mask[i] && !keep) {
            continue;
        }
        int64_t want = mask[i] ? 1 : x->dims[i];
        if (r >= out->shape.rank || out->shape.dims[r].k != want) {
            return FL_OK;
        }
        r++;
    }
    if (r != out->shape.rank) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.kind = n->kind;
    o.in_dt = fl_dtype_base(x->dtype);
    o.out_dt = fl_dtype_base(v->dtype);
    ew_num *acc = calloc(v->n ? (size_t)v->n : 1, sizeof(ew_num));
    bool *seen = calloc(v->n ? (size_t)v->n : 1, sizeof(bool));
    if (!acc || !seen) {
        free(acc);
        free(seen);
        return fl__diag_oom(c->d);
    }
    int comb = reduce_combine_kind(n->kind);
    bool ok = true;
    for (int64_t i = 0; i < x->n && ok; i++) {
        /* Output index: the input coordinates without (or at 0 on) reduced axes. */
        int64_t rem = i, oidx = 0, ostride = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t coord = rem % x->dims[d];
            rem /= x->dims[d];
            if (!mask[d]) {
                oidx += coord * ostride;
                ostride *= x->dims[d];
            }
        }
        ew_num e, t;
        ok = get_num(x, i, &e);
        if (ok && !seen[oidx]) {
            /* The first element seeds the accumulator (no max(lowest, N) atoms). */
            acc[oidx] = e;
            seen[oidx] = true;
        } else if (ok) {
            ok = bin_apply(&o, comb, &acc[oidx], &e, &t);
            if (ok) {
                acc[oidx] = t;
            }
        }
    }
    int64_t count = v->n ? x->n / v->n : 0;
    for (int64_t i = 0; i < v->n && ok; i++) {
        if (!seen[i]) {
            ok = reduce_identity(n->kind, x->dtype, &acc[i]);
        } else if (n->kind == FL_OP_MEAN) {
            if (acc[i].f) {
                acc[i].x /= (double)count;
            } else {
                ew_num cnt = {false, 0, fl_sym_const(count)}, t;
                ok = bin_apply(&o, FL_OP_DIV, &acc[i], &cnt, &t);
                if (ok) {
                    acc[i] = t;
                }
            }
        }
        if (ok) {
            ok = put_num(v, i, &acc[i]);
        }
    }
    free(seen);
    free(acc);
    if (ok) {
        fl__op_set_value(n, 0, v);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* ArgMax / ArgMin                                                            */
/* ------------------------------------------------------------------------- */

static fl_status arg_output_type(fl_ctx *c, const fl_node *n, int *dt) {
    fl_status st = fl__attr_get_type(n, "output_type", dt, c->d);
    if (st == FL_ENOTFOUND) {
        *dt = FL_DT_INT64;
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    switch (*dt) {
    case FL_DT_INT16:
    case FL_DT_UINT16:
    case FL_DT_INT32:
    case FL_DT_INT64:
        return FL_OK;
    default:
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'output_type' must be int16, uint16, int32 or int64, got %s",
                             fl__dtype_name(*dt));
    }
}

static fl_status infer_arg(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = arg_output_type(c, n, &dt);
    if (st == FL_OK) {
        st = want_scalar_or_one(c, n, 1, "dimension");
    }
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, -1);
    }
    if (x->rank <= 1) {
        return fl__op_set_output(c, n, 0, dt, 0, NULL);
    }
    int64_t a;
    if (!in_scalar_int(n, 1, &a)) {
        return fl__op_set_output_rank(c, n, 0, dt, x->rank - 1);
    }
    if (a < -x->rank || a >= x->rank) {
        return fl__node_fail(
            c->d, FL_EINVAL, n,
            "input 'dimension' is %lld, out of range [%d, %d) for the input's rank", (long long)a,
            -x->rank, x->rank);
    }
    if (a < 0) {
        a += x->rank;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != a) {
            d[r++] = x->dims[i];
        }
    }
    return fl__op_set_output(c, n, 0, dt, r, d);
}

/* Splits a value's dims around `axis` into outer * len * inner. */
static void split_axis(const fl_value *x, int axis, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++) {
        *outer *= x->dims[d];
    }
    for (int d = axis + 1; d < x->rank; d++) {
        *inner *= x->dims[d];
    }
    *len = x->dims[axis];
}

static fl_status eval_arg(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    int64_t a;
    if (!x || x->rank < 1 || !in_scalar_int(n, 1, &a) || vkind(x->dtype) == VK_NONE ||
        vkind(x->dtype) == VK_BOOL) {
        return FL_OK;
    }
    if (a < -x->rank || a >= x->rank) {
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    int64_t outer, len, inner;
    split_axis(x, (int)a, &outer, &len, &inner);
    if (len == 0) {
        return FL_OK; /* TF: reduction over an empty dimension fails */
    }
    const fl_tensor *out = &n->outputs[0];
    if (!fl__shape_is_concrete(&out->shape)) {
        return FL_OK;
    }
    int64_t cnt = 1;
    for (int i = 0; i < out->shape.rank; i++) {
        cnt *= out->shape.dims[i].k;
    }
    if (cnt != outer * inner) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.in_dt = fl_dtype_base(x->dtype);
    int better = n->kind == FL_OP_ARG_MAX ? FL_OP_GREATER : FL_OP_LESS;
    for (int64_t p = 0; p < outer; p++) {
        for (int64_t q = 0; q < inner; q++) {
            ew_num best, e;
            int64_t bi = 0;
            if (!get_num(x, p * len * inner + q, &best) || (best.f && isnan(best.x))) {
                return FL_OK;
            }
            for (int64_t l = 1; l < len; l++) {
                int res;
                if (!get_num(x, (p * len + l) * inner + q, &e) || (e.f && isnan(e.x)) ||
                    !cmp_apply(&o, better, &e, &best, &res)) {
                    return FL_OK;
                }
                if (res) {
                    best = e;
                    bi = l;
                }
            }
            ((fl_sym *)v->ints)[p * inner + q] = fl_sym_const(wrap_int(v->dtype, (uint64_t)bi));
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Cumsum / Cumprod                                                           */
/* ------------------------------------------------------------------------- */

static fl_status infer_cum(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    bool b;
    fl_status st = dtype_of(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "exclusive", false, &b, c->d);
    }
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "reverse", false, &b, c->d);
    }
    if (st == FL_OK) {
        st = want_scalar_or_one(c, n, 1, "axis");
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t a;
    if (x->shape.rank >= 0 && in_scalar_int(n, 1, &a) &&
        (a < -x->shape.rank || a >= x->shape.rank)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'axis' is %lld, out of range [%d, %d) for the input's rank",
                             (long long)a, -x->shape.rank, x->shape.rank);
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

static fl_status eval_cum(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    int64_t a;
    if (!x || x->rank < 1 || !in_scalar_int(n, 1, &a) || vkind(x->dtype) == VK_NONE ||
        vkind(x->dtype) == VK_BOOL || a < -x->rank || a >= x->rank) {
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    bool excl, rev;
    fl_status st = fl__attr_bool_or(n, "exclusive", false, &excl, c->d);
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "reverse", false, &rev, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_tensor *out = &n->outputs[0];
    if (!fl__shape_is_concrete(&out->shape) || out->shape.rank != x->rank) {
        return FL_OK;
    }
    for (int i = 0; i < x->rank; i++) {
        if (out->shape.dims[i].k != x->dims[i]) {
            return FL_OK;
        }
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.in_dt = fl_dtype_base(x->dtype);
    int comb = n->kind == FL_OP_CUMSUM ? FL_OP_ADD : FL_OP_MUL;
    int64_t outer, len, inner;
    split_axis(x, (int)a, &outer, &len, &inner);
    bool fl = vkind(x->dtype) == VK_FLOAT;
    for (int64_t p = 0; p < outer; p++) {
        for (int64_t q = 0; q < inner; q++) {
            ew_num acc = {fl, comb == FL_OP_MUL ? 1.0 : 0.0,
                          fl_sym_const(comb == FL_OP_MUL ? 1 : 0)};
            for (int64_t l = 0; l < len; l++) {
                int64_t ll = rev ? len - 1 - l : l;
                int64_t idx = (p * len + ll) * inner + q;
                ew_num e, t;
                if (!get_num(x, idx, &e)) {
                    return FL_OK;
                }
                if (excl && !put_num(v, idx, &acc)) {
                    return FL_OK;
                }
                if (!bin_apply(&o, comb, &acc, &e, &t)) {
                    return FL_OK;
                }
                if (t.f) {
                    t.x = round_dt(o.in_dt, t.x);
                }
                acc = t;
                if (!excl && !put_num(v, idx, &acc)) {
                    return FL_OK;
                }
            }
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Cost                                                                       */
/* ------------------------------------------------------------------------- */

/* tfprof's factor for the ops it registers: on E(in0) (unary) or E(out). */
static int tfprof_unary_factor(int kind) {
    switch (kind) {
    case FL_OP_RECIPROCAL:
    case FL_OP_SQUARE:
    case FL_OP_LOG:
    case FL_OP_NEG:
        return 1;
    case FL_OP_RSQRT:
        return 2;
    default:
        return 0;
    }
}

static int tfprof_binary_factor(int kind) {
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_SUB:
    case FL_OP_MUL:
    case FL_OP_REAL_DIV:
    case FL_OP_MAXIMUM:
    case FL_OP_MINIMUM:
    case FL_OP_POW:
    case FL_OP_GREATER:
    case FL_OP_GREATER_EQUAL:
    case FL_OP_LESS:
    case FL_OP_LESS_EQUAL:
    case FL_OP_EQUAL:
    case FL_OP_NOT_EQUAL:
        return 1;
    case FL_OP_SQUARED_DIFFERENCE:
        return 2;
    case FL_OP_RSQRT_GRAD:
        return 4;
    default:
        return 0;
    }
}

/* Complete-convention FLOPs per output element of the element-wise ops. */
static int complete_factor(int kind) {
    switch (kind) {
    case FL_OP_RSQRT_GRAD: /* dy * -0.5 * y^3: four multiplies, as tfprof */
        return 4;
    case FL_OP_MKL_SWISH: /* the Sigmoid and the Mul it fuses */
        return 2;
    case FL_OP_RSQRT:
    case FL_OP_SQUARED_DIFFERENCE:
    case FL_OP_PRELU:
        return 2;
    case FL_OP_ZEROS_LIKE:
    case FL_OP_ONES_LIKE:
        return 0;
    default:
        return 1;
    }
}

static bool is_reduction(int kind) {
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_MEAN:
    case FL_OP_MAX:
    case FL_OP_MIN:
    case FL_OP_PROD:
    case FL_OP_ALL:
    case FL_OP_ANY:
    case FL_OP_ARG_MAX:
    case FL_OP_ARG_MIN:
        return true;
    default:
        return false;
    }
}

/* Cumsum/Cumprod: lines * (L - 1); unknown when the axis or a dim is. */
static fl_status cost_cum(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t a;
    if (x->rank < 1 || !in_scalar_int(n, 1, &a) || a < -x->rank || a >= x->rank) {
        out->incomplete = true;
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    fl_sym lines = fl_sym_const(1), len = x->dims[a], l1;
    for (int i = 0; i < x->rank; i++) {
        if (fl_sym_is_unknown(x->dims[i])) {
            out->incomplete = true;
            return FL_OK;
        }
        if (i != a) {
            fl_status st = fl__op_mul(c, n, lines, x->dims[i], &lines);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    if (fl_sym_is_known(len) && len.k == 0) {
        return FL_OK;
    }
    fl_status st = fl__op_sub(c, n, len, fl_sym_const(1), &l1);
    if (st == FL_OK) {
        st = fl__op_mul(c, n, lines, l1, &out->flops);
    }
    return st;
}

static fl_status cost_ew(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int kind = n->kind;
    out->flops = fl_sym_const(0);
    out->tfprof_flops = fl_sym_const(0);
    out->macs = fl_sym_const(0);
    out->has_rule = true;
    out->incomplete = false;
    int tfu = tfprof_unary_factor(kind), tfb = tfprof_binary_factor(kind);
    out->tfprof_rule = tfu || tfb || kind == FL_OP_MEAN || kind == FL_OP_SUM ||
                       kind == FL_OP_ARG_MAX || kind == FL_OP_ARG_MIN || kind == FL_OP_ADD_N;
    if (kind == FL_OP_ZEROS_LIKE || kind == FL_OP_ONES_LIKE) {
        return FL_OK;
    }
    if (kind == FL_OP_CUMSUM || kind == FL_OP_CUMPROD) {
        return cost_cum(c, n, out);
    }
    if (n->n_outputs < 1 || n->n_inputs < 1) {
        out->incomplete = true;
        return FL_OK;
    }
    fl_sym eo, ei;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &eo);
    if (st == FL_OK) {
        st = fl__op_num_elements(c, n, &fl_node_in(n, 0)->shape, &ei);
    }
    if (st != FL_OK) {
        return st;
    }
    bool need_in = tfu || kind == FL_OP_ADD_N || is_reduction(kind);
    if (fl_sym_is_unknown(eo) || (need_in && fl_sym_is_unknown(ei))) {
        out->incomplete = true;
        return FL_OK;
    }
    fl_sym flops, tf = fl_sym_const(0);
    if (kind == FL_OP_MEAN) {
        flops = ei;
        tf = ei;
    } else if (is_reduction(kind)) {
        st = fl__op_sub(c, n, ei, eo, &flops);
        if (kind == FL_OP_SUM || kind == FL_OP_ARG_MAX || kind == FL_OP_ARG_MIN) {
            tf = flops;
        }
    } else if (kind == FL_OP_ACCUMULATE_NV2) {
        st = fl__op_scale(c, n, eo, n->n_inputs - 1, &flops);
    } else if (kind == FL_OP_ADD_N) {
        st = fl__op_scale(c, n, eo, n->n_inputs - 1, &flops);
        if (st == FL_OK) {
            st = fl__op_scale(c, n, ei, (int64_t)n->n_inputs + n->n_ctrl - 1, &tf);
        }
    } else {
        int64_t cf = complete_factor(kind);
        if (kind == FL_OP_GELU) {
            bool approx;
            if ((st = fl__attr_bool_or(n, "approximate", false, &approx, c->d)) != FL_OK) {
                return st;
            }
            cf = approx ? 9 : 5;
        }
        st = fl__op_scale(c, n, eo, cf, &flops);
        if (st == FL_OK && tfu) {
            st = fl__op_scale(c, n, ei, tfu, &tf);
        } else if (st == FL_OK && tfb) {
            st = fl__op_scale(c, n, eo, tfb, &tf);
        }
    }
    if (st != FL_OK) {
        return st;
    }
    out->flops = flops;
    out->tfprof_flops = tf;
    return FL_OK;
}

/* _UnaryOpsComposition: sum over op_names of each op's complete factor times
 * E(out); tfprof registers no rule for it (0, tfprof_rule false). */
static fl_status cost_unary_composition(fl_ctx *c, const fl_node *n, fl_cost *out) {
    out->flops = fl_sym_const(0);
    out->tfprof_flops = fl_sym_const(0);
    out->macs = fl_sym_const(0);
    out->has_rule = true;
    out->tfprof_rule = false;
    out->incomplete = false;
    const fl_attr *names = fl__node_attr(n, "op_names");
    int64_t factor = 0;
    if (!names || names->kind != FL_ATTR_LIST ||
        (names->list_kind != FL_ATTR_S && names->list_kind != FL_ATTR_NONE)) {
        out->incomplete = true;
        return FL_OK;
    }
    for (size_t i = 0; i < names->n; i++) {
        int kind = fl__op_lookup(names->v.list.s[i].p);
        if (kind == FL_OP_UNKNOWN) {
            out->incomplete = true;
            return FL_OK;
        }
        factor += complete_factor(kind);
    }
    fl_sym eo;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &eo);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(eo)) {
        out->incomplete = true;
        return FL_OK;
    }
    return fl__op_scale(c, n, eo, factor, &out->flops);
}

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: the ew lists of ops.def)            */
/* ------------------------------------------------------------------------- */

#define HOOKS_unary        .infer = infer_unary, .eval = eval_ew, .cost = cost_ew
#define HOOKS_conj         .infer = infer_unary, .cost = cost_ew
#define HOOKS_composition  .infer = infer_unary, .cost = cost_unary_composition
#define HOOKS_like         .infer = infer_like, .cost = cost_ew
#define HOOKS_cast         .infer = infer_cast, .eval = eval_ew, .cost = cost_ew
#define HOOKS_binary       .infer = infer_binary, .eval = eval_binary, .cost = cost_ew
#define HOOKS_grad         .infer = infer_binary, .cost = cost_ew
#define HOOKS_select       .infer = infer_select, .eval = eval_ew, .cost = cost_ew
#define HOOKS_select_v2    .infer = infer_select_v2, .eval = eval_ew, .cost = cost_ew
#define HOOKS_add_n        .infer = infer_add_n, .eval = eval_ew, .cost = cost_ew
#define HOOKS_accumulate_n .infer = infer_accumulate_n, .eval = eval_ew, .cost = cost_ew
#define HOOKS_clip         .infer = infer_clip, .eval = eval_ew, .cost = cost_ew
#define HOOKS_reduce       .infer = infer_reduce, .eval = eval_reduce, .cost = cost_ew
#define HOOKS_arg          .infer = infer_arg, .eval = eval_arg, .cost = cost_ew
#define HOOKS_cum          .infer = infer_cum, .eval = eval_cum, .cost = cost_ew

#define FL_OP FL_OP_DESC
#include "ops/ew/binary.def"
#include "ops/ew/cast.def"
#include "ops/ew/nary.def"
#include "ops/ew/reduce.def"
#include "ops/ew/scan.def"
#include "ops/ew/unary.def"
#undef FL_OP
