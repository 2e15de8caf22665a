/*
 * arith.c - the element-wise family's arithmetic on one element (ew.h), with
 * TensorFlow's semantics:
 *  - integers: Div/RealDiv/TruncateDiv truncate like C, FloorDiv/FloorMod
 *    round toward minus infinity, Mod/TruncateMod take the dividend's sign;
 *    division by zero gives no value. Symbolic elements (a Shape of a tensor
 *    with a symbolic batch) go through fl_sym: Add/Sub/Mul/Neg/Square/
 *    SquaredDifference, FloorDiv, FloorMod, Maximum/Minimum/Relu/Relu6, Pow
 *    by a small known exponent, Div-like ops when the division is exact,
 *    comparisons when the difference is a known number, Cast between integer
 *    types. Anything not decidable gives no value (never a value with
 *    unknown elements).
 *  - floats: computed in double; ops made of several TF steps round in
 *    between (FloorDiv floors the rounded quotient, SquaredDifference squares
 *    the rounded difference). Xdivy(x, y) is 0 where x == 0, else x / y (one
 *    rounding); MulNoNan(x, y) is 0 where y == 0 (even for an infinite or NaN
 *    x), else x * y; Xlogy(x, y) and Xlog1py(x, y) are 0 where x == 0, else
 *    x times the log (log1p) of y rounded to the dtype (Eigen's two steps).
 *    These four are defined for float and complex T only (TensorFlow's
 *    OpDefs): integer operands get no value. Transcendental functions use
 *    libm in double and may differ from TF's Eigen kernels in the last bit.
 *  - Cast: int->float rounds like a C cast through float (double for
 *    float64); float->int truncates and gives no value for NaN or out of
 *    range; Truncate=true narrowing that is inexact gives no value.
 */
#include "ops/ew/ew.h"

#include <math.h>

bool fl__ew_int_known_binop(int kind, int dt, int64_t a, int64_t b, int64_t *r) {
    a = fl__ew_wrap_int(dt, (uint64_t)a);
    b = fl__ew_wrap_int(dt, (uint64_t)b);
    bool u64 = fl__ew_is_u64(dt);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
        *r = fl__ew_wrap_int(dt, ua + ub);
        return true;
    case FL_OP_SUB:
        *r = fl__ew_wrap_int(dt, ua - ub);
        return true;
    case FL_OP_MUL:
        *r = fl__ew_wrap_int(dt, ua * ub);
        return true;
    case FL_OP_SQUARED_DIFFERENCE: {
        uint64_t d = (uint64_t)fl__ew_wrap_int(dt, ua - ub);
        *r = fl__ew_wrap_int(dt, d * d);
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
            *r = fl__ew_u2s(ua / ub);
        } else if (b == -1) {
            *r = fl__ew_wrap_int(dt, 0 - ua);
        } else {
            *r = fl__ew_wrap_int(dt, (uint64_t)(a / b));
        }
        return true;
    case FL_OP_FLOOR_DIV:
        if (b == 0) {
            return false;
        }
        if (u64) {
            *r = fl__ew_u2s(ua / ub);
        } else if (b == -1) {
            *r = fl__ew_wrap_int(dt, 0 - ua);
        } else {
            int64_t q = a / b;
            if (a % b != 0 && ((a < 0) != (b < 0))) {
                q--;
            }
            *r = fl__ew_wrap_int(dt, (uint64_t)q);
        }
        return true;
    case FL_OP_FLOOR_MOD:
        if (b == 0) {
            return false;
        }
        if (u64) {
            *r = fl__ew_u2s(ua % ub);
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
            *r = fl__ew_u2s(ua % ub);
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
        *r = fl__ew_wrap_int(dt, acc);
        return true;
    }
    case FL_OP_PRELU: /* x < 0 ? alpha * x : x */
        *r = (!u64 && a < 0) ? fl__ew_wrap_int(dt, ua * ub) : a;
        return true;
    default:
        return false;
    }
}

/* Integer binary op on possibly symbolic operands. */
static bool int_binop(fl_symtab *st, int kind, int dt, fl_sym a, fl_sym b, fl_sym *r) {
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return false;
    }
    if (fl_sym_is_known(a) && fl_sym_is_known(b)) {
        int64_t k;
        if (!fl__ew_int_known_binop(kind, dt, a.k, b.k, &k)) {
            return false;
        }
        *r = fl_sym_const(k);
        return true;
    }
    if (fl__ew_is_u64(dt)) {
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
    return fl__ew_sym_ok(s, *r);
}

/* The result of comparison `kind` given the sign of a - b. */
static int cmp_of_sign(int kind, int sign) {
    switch (kind) {
    case FL_OP_GREATER:
        return sign > 0;
    case FL_OP_GREATER_EQUAL:
        return sign >= 0;
    case FL_OP_LESS:
        return sign < 0;
    case FL_OP_LESS_EQUAL:
        return sign <= 0;
    case FL_OP_EQUAL:
        return sign == 0;
    default:
        return sign != 0;
    }
}

/* A comparison whose difference d = a - b is symbolic: decided when d's
 * sign is known over sizes (sym.h, fl__sym_lower_bound), as an exporter's
 * test of a dim against -1 needs (torch's expand: Where(Equal(shape, -1),
 * 1, shape)). */
static bool sym_cmp(const ew_op *o, int kind, fl_sym d, int *res) {
    fl_sym nd;
    int lo = fl__sym_lower_bound(d), hi = -1; /* d >= 1 / d >= 0; -d >= 1 / -d >= 0 */
    if (lo < 0 && fl__sym_neg(o->c->st, d, &nd) == FL_OK) {
        hi = fl__sym_lower_bound(nd);
    }
    if (lo == 1 || hi == 1) {
        *res = cmp_of_sign(kind, lo == 1 ? 1 : -1);
        return true;
    }
    /* d >= 0 (or <= 0) with equality possible decides only the comparisons
     * equality does not change */
    bool ge = lo == 0, le = hi == 0;
    switch (kind) {
    case FL_OP_GREATER_EQUAL:
    case FL_OP_LESS:
        if (ge) {
            *res = kind == FL_OP_GREATER_EQUAL;
            return true;
        }
        return false;
    case FL_OP_LESS_EQUAL:
    case FL_OP_GREATER:
        if (le) {
            *res = kind == FL_OP_LESS_EQUAL;
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* Comparison of two elements; *res is 0 or 1. A NaN operand compares unordered: only
 * NotEqual holds. */
bool fl__ew_cmp_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, int *res) {
    int sign; /* sign of a - b */
    if (a->f || b->f) {
        double x, y;
        if (!fl__ew_num_f(a, o->in_dt, &x) || !fl__ew_num_f(b, o->in_dt, &y)) {
            return false;
        }
        if (isnan(x) || isnan(y)) {
            *res = kind != FL_OP_EQUAL && kind != FL_OP_GREATER && kind != FL_OP_GREATER_EQUAL &&
                   kind != FL_OP_LESS && kind != FL_OP_LESS_EQUAL;
            return true;
        }
        sign = x > y ? 1 : x < y ? -1 : 0;
    } else if (fl_sym_is_known(a->s) && fl_sym_is_known(b->s)) {
        int64_t x = fl__ew_wrap_int(o->in_dt, (uint64_t)a->s.k),
                y = fl__ew_wrap_int(o->in_dt, (uint64_t)b->s.k);
        if (fl__ew_is_u64(o->in_dt)) {
            sign = (uint64_t)x > (uint64_t)y ? 1 : (uint64_t)x < (uint64_t)y ? -1 : 0;
        } else {
            sign = x > y ? 1 : x < y ? -1 : 0;
        }
    } else {
        fl_sym d;
        if (fl__ew_is_u64(o->in_dt) || fl__sym_sub(o->c->st, a->s, b->s, &d) != FL_OK) {
            return false;
        }
        if (!fl_sym_is_known(d)) {
            return sym_cmp(o, kind, d, res);
        }
        sign = d.k > 0 ? 1 : d.k < 0 ? -1 : 0;
    }
    *res = cmp_of_sign(kind, sign);
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
        *r = x == 0 ? 0.0 : x * fl__ew_round_dt(dt, log(y));
        return true;
    case FL_OP_XLOG1PY:
        *r = x == 0 ? 0.0 : x * fl__ew_round_dt(dt, log1p(y));
        return true;
    case FL_OP_FLOOR_DIV:
        *r = floor(fl__ew_round_dt(dt, x / y));
        return true;
    case FL_OP_TRUNCATE_DIV:
        *r = trunc(fl__ew_round_dt(dt, x / y));
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
        double d = fl__ew_round_dt(dt, x - y);
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
bool fl__ew_bin_apply(const ew_op *o, int kind, const ew_num *a, const ew_num *b, ew_num *r) {
    r->f = false;
    r->s = fl_sym_const(0);
    r->x = 0;
    if (fl__ew_is_compare(kind)) {
        int res;
        if (!fl__ew_cmp_apply(o, kind, a, b, &res)) {
            return false;
        }
        r->f = false;
        r->s = fl_sym_const(res);
        return true;
    }
    if (fl__ew_is_logical(kind)) {
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
    if (!fl__ew_num_f(a, o->in_dt, &x) || !fl__ew_num_f(b, o->in_dt, &y)) {
        return false;
    }
    r->f = true;
    return flt_binop(kind, o->in_dt, x, y, &r->x);
}

/* Integer unary ops. */
static bool int_unop(const ew_op *o, fl_sym a, fl_sym *r) {
    int dt = o->in_dt;
    bool u64 = fl__ew_is_u64(dt);
    if (fl_sym_is_known(a)) {
        int64_t k = fl__ew_wrap_int(dt, (uint64_t)a.k), res;
        uint64_t uk = (uint64_t)k;
        switch (o->kind) {
        case FL_OP_LOGICAL_NOT:
            res = k == 0;
            break;
        case FL_OP_NEG:
            res = fl__ew_wrap_int(dt, 0 - uk);
            break;
        case FL_OP_ABS:
            res = (!u64 && k < 0) ? fl__ew_wrap_int(dt, 0 - uk) : k;
            break;
        case FL_OP_SQUARE:
            res = fl__ew_wrap_int(dt, uk * uk);
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
    return fl__ew_sym_ok(s, *r);
}

static double sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

/* The activations among the float unary ops: *y = f(x); false for other
 * kinds. */
static bool flt_activation(const ew_op *o, double x, double *y) {
    const double selu_scale = 1.0507009873554804934193349852946;
    const double selu_alpha = 1.6732632423543772848170429916717;
    switch (o->kind) {
    case FL_OP_SIGMOID:
        *y = sigmoid(x);
        break;
    case FL_OP_MKL_SWISH: /* oneDNN's fused x * Sigmoid(x) */
        *y = x * sigmoid(x);
        break;
    case FL_OP_TANH:
        *y = tanh(x);
        break;
    case FL_OP_RELU:
        *y = isnan(x) ? x : x > 0 ? x : 0.0;
        break;
    case FL_OP_RELU6:
        *y = isnan(x) ? x : x > 6 ? 6.0 : x > 0 ? x : 0.0;
        break;
    case FL_OP_ELU:
        *y = x > 0 ? x : expm1(x);
        break;
    case FL_OP_SELU:
        *y = x > 0 ? selu_scale * x : selu_scale * selu_alpha * expm1(x);
        break;
    case FL_OP_LEAKY_RELU:
        *y = x > 0 ? x : o->alpha * x;
        break;
    case FL_OP_SOFTPLUS:
        *y = x > 40 ? x : log1p(exp(x));
        break;
    case FL_OP_SOFTSIGN:
        *y = x / (1.0 + fabs(x));
        break;
    case FL_OP_GELU:
        if (o->approximate) {
            const double k = 0.7978845608028654; /* sqrt(2/pi) */
            *y = 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
        } else {
            *y = 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
        }
        break;
    default:
        return false;
    }
    return true;
}

/* Float unary ops (IsNan/IsInf/IsFinite give bools in *is_bool). */
static bool flt_unop(const ew_op *o, double x, ew_num *r) {
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
        if (!flt_activation(o, x, &y)) {
            return false;
        }
        break;
    }
    r->x = y;
    return true;
}

bool fl__ew_un_apply(const ew_op *o, const ew_num *a, ew_num *r) {
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
bool fl__ew_cast_apply(const ew_op *o, const ew_num *a, ew_num *r) {
    int dk = fl__ew_vkind(o->out_dt);
    r->f = false;
    r->s = fl_sym_const(0);
    r->x = 0;
    if (!a->f) {
        fl_sym s = a->s;
        if (dk == VK_INT || dk == VK_BOOL) {
            r->f = false;
            if (fl_sym_is_known(s)) {
                int64_t k = fl__ew_wrap_int(o->in_dt, (uint64_t)s.k);
                r->s = fl_sym_const(fl__ew_wrap_int(o->out_dt, (uint64_t)k));
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
        r->x = fl__ew_int_to_float(o->in_dt, o->out_dt,
                                   fl_dtype_base(o->in_dt) == FL_DT_BOOL
                                       ? (s.k != 0)
                                       : fl__ew_wrap_int(o->in_dt, (uint64_t)s.k));
        return true;
    }
    double x = a->x;
    switch (dk) {
    case VK_FLOAT:
        if (o->truncate && !isnan(x) && fl__ew_round_dt(o->out_dt, x) != x) {
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
        if (!fl__ew_float_to_int(o->out_dt, x, &k)) {
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
