/*
 * value.c - known tensor contents: allocation and element access.
 *
 * Integer and bool tensors keep each element as an fl_sym so that shape
 * vectors computed from symbolic shapes stay exact. Floating-point tensors keep
 * their little-endian bytes in their own dtype; reads widen to double, writes
 * round to nearest-even, so arithmetic done in double and stored in float32 is
 * the correctly rounded float32 result for + - * / and sqrt.
 */
#include "graph/graph.h"

#include <math.h>
#include <string.h>

static bool holds_ints(fl_dtype dt) {
    return fl__dtype_is_integer(dt) || fl_dtype_base(dt) == FL_DT_BOOL;
}

/* The header of a value: dtype, a copy of dims, the element count; NULL when
 * the product of the dims other than 0 overflows (so that any product of a
 * value's dims fits in int64, as the evaluations' strides assume: an empty
 * value's other dims may otherwise be huge) or memory runs out. */
static fl_value *value_head(fl_arena *a, fl_dtype dtype, int rank, const int64_t *dims) {
    int64_t n = 1;
    bool empty = false;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || (dims[i] && n > INT64_MAX / dims[i])) {
            return NULL;
        }
        if (dims[i] == 0) {
            empty = true;
        } else {
            n *= dims[i];
        }
    }
    n = empty ? 0 : n;
    /* the dims right behind the header, in the same allocation */
    _Static_assert(sizeof(fl_value) % _Alignof(int64_t) == 0, "dims after fl_value misaligned");
    size_t nd = rank > 0 ? (size_t)rank : 1;
    fl_value *v = fl__arena_zalloc(a, sizeof(*v) + nd * sizeof(int64_t));
    if (!v) {
        return NULL;
    }
    int64_t *d = (int64_t *)(void *)(v + 1);
    if (rank > 0) {
        memcpy(d, dims, (size_t)rank * sizeof(int64_t));
    }
    v->dtype = dtype;
    v->rank = rank;
    v->dims = d;
    v->n = n;
    return v;
}

fl_value *fl__value_new(fl_arena *a, fl_dtype dtype, int rank, const int64_t *dims) {
    dtype = fl_dtype_base(dtype);
    fl_value *v = value_head(a, dtype, rank, dims);
    if (!v) {
        return NULL;
    }
    int64_t n = v->n;
    if (holds_ints(dtype)) {
        v->ints = fl__arena_calloc(a, (size_t)(n ? n : 1), sizeof(fl_sym));
        if (!v->ints) {
            return NULL;
        }
    } else {
        size_t es = fl__dtype_size(dtype);
        if (es == 0) {
            return NULL; /* strings, resources, variants have no numeric value */
        }
        v->raw = fl__arena_calloc(a, (size_t)(n ? n : 1), es);
        if (!v->raw) {
            return NULL;
        }
    }
    return v;
}

fl_value *fl__value_view(fl_arena *a, fl_dtype dtype, int rank, const int64_t *dims,
                         const void *bytes) {
    dtype = fl_dtype_base(dtype);
    if (holds_ints(dtype) || fl__dtype_size(dtype) == 0 || !bytes) {
        return NULL;
    }
    fl_value *v = value_head(a, dtype, rank, dims);
    if (v) {
        v->raw = bytes;
        v->view = true;
    }
    return v;
}

fl_value *fl__value_reshaped(fl_arena *a, const fl_value *src, int rank, const int64_t *dims) {
    fl_value *v = value_head(a, fl_dtype_base(src->dtype), rank, dims);
    if (!v || v->n != src->n) {
        return NULL;
    }
    v->ints = src->ints;
    v->raw = src->raw;
    v->view = src->view;
    return v;
}

fl_sym fl__value_int(const fl_value *v, int64_t i) {
    if (v->ints && i >= 0 && i < v->n) {
        return v->ints[i];
    }
    return fl_sym_unknown();
}

static float half_to_float(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double r;
    if (exp == 0) {
        r = ldexp(man, -24);
    } else if (exp == 31) {
        r = man ? NAN : INFINITY;
    } else {
        r = ldexp(man + 1024, exp - 25);
    }
    return (float)(sign ? -r : r);
}

static uint16_t float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff);
    uint32_t man = x & 0x7fffff;
    if (exp == 255) {
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    }
    int32_t e = exp - 127 + 15;
    if (e >= 31) {
        return (uint16_t)(sign | 0x7c00);
    }
    if (e <= 0) {
        if (e < -10) {
            return (uint16_t)sign;
        }
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) {
            half++;
        }
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) {
        half++; /* may carry into the exponent, which is the right result */
    }
    return (uint16_t)half;
}

static float bf16_to_float(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static uint16_t float_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) {
        return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
    }
    uint32_t lsb = (x >> 16) & 1;
    x += 0x7fff + lsb;
    return (uint16_t)(x >> 16);
}

bool fl__value_f64(const fl_value *v, int64_t i, double *out) {
    if (i < 0 || i >= v->n) {
        return false;
    }
    if (v->ints) {
        fl_sym s = v->ints[i];
        if (!fl_sym_is_known(s)) {
            return false;
        }
        if (fl_dtype_base(v->dtype) == FL_DT_UINT64) {
            *out = (double)(uint64_t)s.k;
        } else {
            *out = (double)s.k;
        }
        return true;
    }
    if (!v->raw) {
        return false;
    }
    const unsigned char *p = (const unsigned char *)v->raw;
    switch (fl_dtype_base(v->dtype)) {
    case FL_DT_FLOAT: {
        float f;
        memcpy(&f, p + 4 * i, 4);
        *out = f;
        return true;
    }
    case FL_DT_DOUBLE:
        memcpy(out, p + 8 * i, 8);
        return true;
    case FL_DT_HALF: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        *out = half_to_float(h);
        return true;
    }
    case FL_DT_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        *out = bf16_to_float(h);
        return true;
    }
    default:
        return false;
    }
}

bool fl__value_f64_run(const fl_value *v, int64_t i, int64_t n, double *out) {
    if (i < 0 || n < 0 || n > v->n - i) {
        return false;
    }
    if (!v->ints && v->raw && fl_dtype_base(v->dtype) == FL_DT_FLOAT) {
        const unsigned char *p = (const unsigned char *)v->raw + 4 * i;
        for (int64_t k = 0; k < n; k++) {
            float f;
            memcpy(&f, p + 4 * k, 4);
            out[k] = f;
        }
        return true;
    }
    for (int64_t k = 0; k < n; k++) {
        if (!fl__value_f64(v, i + k, &out[k])) {
            return false;
        }
    }
    return true;
}

void fl__value_set_f64_run(fl_value *v, int64_t i, int64_t n, const double *x) {
    if (i < 0 || n < 0 || n > v->n - i || !v->raw) {
        return;
    }
    if (fl_dtype_base(v->dtype) == FL_DT_FLOAT) {
        unsigned char *p = (unsigned char *)v->raw + 4 * i;
        for (int64_t k = 0; k < n; k++) {
            float f = (float)x[k];
            memcpy(p + 4 * k, &f, 4);
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        fl__value_set_f64(v, i + k, x[k]);
    }
}

void fl__value_set_f64(fl_value *v, int64_t i, double x) {
    if (i < 0 || i >= v->n || !v->raw) {
        return;
    }
    unsigned char *p = (unsigned char *)v->raw;
    switch (fl_dtype_base(v->dtype)) {
    case FL_DT_FLOAT: {
        float f = (float)x;
        memcpy(p + 4 * i, &f, 4);
        break;
    }
    case FL_DT_DOUBLE:
        memcpy(p + 8 * i, &x, 8);
        break;
    case FL_DT_HALF: {
        uint16_t h = float_to_half((float)x);
        memcpy(p + 2 * i, &h, 2);
        break;
    }
    case FL_DT_BFLOAT16: {
        uint16_t h = float_to_bf16((float)x);
        memcpy(p + 2 * i, &h, 2);
        break;
    }
    default:
        break;
    }
}

bool fl__value_is_concrete(const fl_value *v) {
    if (v->ints) {
        for (int64_t i = 0; i < v->n; i++) {
            if (!fl_sym_is_known(v->ints[i])) {
                return false;
            }
        }
        return true;
    }
    return v->raw != NULL;
}
