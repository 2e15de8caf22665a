/*
 * number.c - the element-wise family's numbers (ew.h): how values of each
 * dtype are evaluated (integers computed in 64-bit two's complement and
 * truncated to the dtype's width, so int32 wraps; floats in double, rounded
 * once to the output dtype by fl__value_set_f64, the correctly rounded
 * result for + - * / and sqrt in float32, and what Eigen computes for half
 * and bfloat16, which go through float), and the elements read from and
 * written to values (ew_num: a double, or an fl_sym for integer and bool
 * dtypes, possibly symbolic).
 */
#include "ops/ew/ew.h"

#include <math.h>
#include <string.h>

/* How values of a dtype are evaluated here. Quantized, complex and string
 * types are not. */
int fl__ew_vkind(int dt) {
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

bool fl__ew_is_u64(int dt) {
    return fl_dtype_base(dt) == FL_DT_UINT64;
}

int64_t fl__ew_u2s(uint64_t x) {
    int64_t r;
    memcpy(&r, &x, sizeof(r));
    return r;
}

/* x reduced to dtype dt's width, two's complement (bool: 0/1). uint64 keeps
 * its bit pattern in the int64. */
int64_t fl__ew_wrap_int(int dt, uint64_t x) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (bits == 1) {
        return x != 0;
    }
    if (bits >= 64) {
        return fl__ew_u2s(x);
    }
    uint64_t m = ((uint64_t)1 << bits) - 1;
    x &= m;
    if (sg && ((x >> (bits - 1)) & 1)) {
        return (int64_t)x - ((int64_t)1 << bits);
    }
    return (int64_t)x;
}

/* Smallest / largest value of an integer dtype (uint64's max as bit pattern). */
int64_t fl__ew_int_lowest(int dt) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (!sg) {
        return 0;
    }
    return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
}

int64_t fl__ew_int_highest(int dt) {
    bool sg;
    int bits = int_bits(dt, &sg);
    if (bits >= 64) {
        return sg ? INT64_MAX : -1;
    }
    return sg ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
}

/* x rounded to the precision of float dtype dt (double: unchanged). */
double fl__ew_round_dt(int dt, double x) {
    switch (fl_dtype_base(dt)) {
    case FL_DT_FLOAT:
        return (double)(float)x;
    case FL_DT_HALF:
    case FL_DT_BFLOAT16: {
        unsigned char buf[8] = {0};
        int64_t one = 1;
        fl_value t = {fl_dtype_base(dt), 0, &one, 1, NULL, buf, false};
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
double fl__ew_int_to_float(int src, int dst, int64_t k) {
    if (fl_dtype_base(dst) == FL_DT_DOUBLE) {
        return fl__ew_is_u64(src) ? (double)(uint64_t)k : (double)k;
    }
    float f = fl__ew_is_u64(src) ? (float)(uint64_t)k : (float)k;
    return (double)f;
}

/* A float truncated toward zero into integer dtype dt; false for NaN and out
 * of range (TensorFlow's result is undefined there). */
bool fl__ew_float_to_int(int dt, double x, int64_t *out) {
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
        *out = fl__ew_u2s((uint64_t)t);
    }
    return true;
}

bool fl__ew_get_num(const fl_value *v, int64_t i, ew_num *out) {
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
bool fl__ew_put_num(fl_value *v, int64_t i, const ew_num *r) {
    if (v->ints) {
        if (r->f || fl_sym_is_unknown(r->s)) {
            return false;
        }
        fl_sym s = r->s;
        if (fl_sym_is_known(s)) {
            s.k = fl__ew_wrap_int(v->dtype, (uint64_t)s.k);
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
bool fl__ew_num_f(const ew_num *a, int dt, double *out) {
    if (a->f) {
        *out = a->x;
        return true;
    }
    if (!fl_sym_is_known(a->s)) {
        return false;
    }
    *out = fl__ew_is_u64(dt) ? (double)(uint64_t)a->s.k : (double)a->s.k;
    return true;
}

bool fl__ew_is_compare(int kind) {
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

bool fl__ew_is_logical(int kind) {
    return kind == FL_OP_LOGICAL_AND || kind == FL_OP_LOGICAL_OR;
}

bool fl__ew_sym_ok(fl_status st, fl_sym r) {
    return st == FL_OK && !fl_sym_is_unknown(r);
}
