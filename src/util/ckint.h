/*
 * ckint.h - int64 arithmetic that remembers overflow.
 *
 * A rule's constants come from model attributes and known dims, so any of
 * them can sit near the int64 limits. Build the expression from fl_ck values
 * and check once at the end, instead of testing after every step:
 *
 *   fl_ck eff = fl_ck_add(fl_ck_mul(fl_ck_of(k - 1), fl_ck_of(dilation)), fl_ck_of(1));
 *
 * An overflow anywhere in the expression sets .ovf in the result (.v is then
 * meaningless). The op hooks check with fl__op_ck (ops/common.h), which fails
 * with FL_EOVERFLOW naming the node; code that degrades instead of failing
 * (an unknown dim, a warning) tests .ovf itself.
 */
#ifndef FL_UTIL_CKINT_H
#define FL_UTIL_CKINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_ck {
    int64_t v;
    bool ovf;
} fl_ck;

static inline fl_ck fl_ck_of(int64_t v) {
    return (fl_ck){.v = v, .ovf = false};
}

static inline fl_ck fl_ck_add(fl_ck a, fl_ck b) {
    fl_ck r = {0, a.ovf || b.ovf};
    r.ovf |= __builtin_add_overflow(a.v, b.v, &r.v);
    return r;
}

static inline fl_ck fl_ck_sub(fl_ck a, fl_ck b) {
    fl_ck r = {0, a.ovf || b.ovf};
    r.ovf |= __builtin_sub_overflow(a.v, b.v, &r.v);
    return r;
}

static inline fl_ck fl_ck_mul(fl_ck a, fl_ck b) {
    fl_ck r = {0, a.ovf || b.ovf};
    r.ovf |= __builtin_mul_overflow(a.v, b.v, &r.v);
    return r;
}

/* v[0] + ... + v[n-1] (0 for n == 0). */
static inline fl_ck fl_ck_sum(const int64_t *v, size_t n) {
    fl_ck r = fl_ck_of(0);
    for (size_t i = 0; i < n; i++) {
        r = fl_ck_add(r, fl_ck_of(v[i]));
    }
    return r;
}

#endif
