/*
 * cast.c - Cast (ew family).
 *
 * Shape: the input's, dtype attr DstT. eval: element by element (arith.c).
 * Float tensors never hold symbols; a Cast back to an integer type looks
 * through the float subgraph and keeps symbols when every step is exact
 * (Cast, Floor/Ceil, Add/Sub, Mul or Div by a power of two or Mul by an
 * integer constant; see fs_eval): Cast(Shape) to float and back keeps N,
 * ToInt32(Ceil(float(H) * 0.03125)) gives ceil(H/32), while a Mul by 0.1 or
 * a truncating Cast of H/2 gives no value.
 *
 * FLOP rules ("complete" convention): 1 * E(out).
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

#include <math.h>

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
    return fl__ew_sym_ok(st, *r) && fs_norm(c, r, sr);
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
    return fl__ew_sym_ok(st, *r) && *sr <= FS_MAX_SHIFT && fs_norm(c, r, sr);
}

static bool fs_eval(fl_ctx *c, const fl_tensor *t, int *budget, fsv *out) {
    if (--*budget < 0 || fl__ew_vkind(t->dtype) != VK_FLOAT) {
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
        if (fl__ew_vkind(a->dtype) == VK_INT || fl__ew_vkind(a->dtype) == VK_BOOL) {
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
                    int64_t k = fl__ew_wrap_int(a->dtype, (uint64_t)s.k);
                    double d =
                        fl__ew_round_dt(t->dtype, fl__ew_int_to_float(a->dtype, t->dtype, k));
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
    if (fl__ew_is_u64(dt)) {
        return k >= 0;
    }
    return k >= fl__ew_int_lowest(dt) && k <= fl__ew_int_highest(dt);
}

/* A Cast to an integer type whose float input has no value (see fs_eval). */
static fl_status cast_lookthrough(fl_ctx *c, fl_node *n) {
    if (fl__ew_vkind(n->outputs[0].dtype) != VK_INT) {
        return FL_OK;
    }
    int budget = FS_BUDGET;
    fsv r;
    if (!fs_eval(c, fl_node_in(n, 0), &budget, &r) || fs_count(c, &n->outputs[0]) != r.n) {
        return fl__ew_no_value(c);
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
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
        if (!fl__ew_put_num(v, i, &e)) {
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

/* Hook sets and descriptors (their rows: ew/cast.def). */
#define HOOKS_cast .infer = infer_cast, .eval = fl__ew_eval, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/cast.def"
#undef FL_OP
