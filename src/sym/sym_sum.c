/*
 * sym_sum.c - running sums of symbolic integers (fl__sym_sum_*, sym.h): the
 * partial sum is a term list in the table's arena, added to in place when
 * it can be and merged with sym.c's term-list addition otherwise; only the
 * total is interned.
 */
#include "sym/sym_int.h"

#include <string.h>

void fl__sym_sum_init(fl_sym_sum *s, fl_symtab *t) {
    memset(s, 0, sizeof(*s));
    s->t = t;
}

/* s + bscale * b in place when every term of b is one of s's (interned
 * monomials: the same pointer) and no coefficient overflows or becomes 0:
 * tl_add's result then. False (s unchanged) otherwise. */
static bool sum_in_place(fl_sym_sum *s, tlist b, int64_t bscale) {
    if (b.n > s->n) {
        return false;
    }
    if (b.n == 1) { /* one term (a count of one size): one pass, nothing to undo */
        for (size_t i = 0; i < s->n; i++) {
            if (s->terms[i].m == b.t[0].m) {
                int64_t bc, r;
                if (__builtin_mul_overflow(b.t[0].coef, bscale, &bc) ||
                    __builtin_add_overflow(s->terms[i].coef, bc, &r) || r == 0) {
                    return false;
                }
                s->terms[i].coef = r;
                return true;
            }
        }
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0;
        for (size_t j = 0; j < b.n; j++, i++) {
            while (i < s->n && s->terms[i].m != b.t[j].m) {
                i++;
            }
            int64_t bc, r;
            if (i == s->n || __builtin_mul_overflow(b.t[j].coef, bscale, &bc) ||
                __builtin_add_overflow(s->terms[i].coef, bc, &r) || r == 0) {
                return false; /* only in the first pass */
            }
            if (pass) {
                s->terms[i].coef = r;
            }
        }
    }
    return true;
}

static fl_status sum_addsub(fl_sym_sum *s, fl_sym b, int64_t bscale) {
    /* fl__sym_add's cases: unknown absorbs everything, a known 0 adds
     * nothing, and anything else is tl_add's sum of the two term lists. */
    if (s->unknown) {
        return FL_OK;
    }
    if (fl_sym_is_unknown(b)) {
        s->unknown = true;
        return FL_OK;
    }
    if (b.e == NULL && b.k == 0) {
        return FL_OK;
    }
    fl_symtab *t = s->t;
    sym_term bb;
    tlist bl = as_tlist(t, b, &bb);
    if (sum_in_place(s, bl, bscale)) {
        return FL_OK;
    }
    sym_scr_mark mk = scr_save(t);
    tlist r, a = {s->terms, s->n};
    fl_status st = fl__symint_tl_add(t, a, bl, bscale, &r);
    if (st == FL_OK && r.n > s->cap) {
        size_t cap = r.n > 2 * s->cap ? r.n : 2 * s->cap;
        sym_term *nt = cap < SIZE_MAX / 4 / sizeof(*nt)
                           ? fl__arena_alloc_raw(t->arena, cap * sizeof(*nt))
                           : NULL;
        if (nt) {
            s->terms = nt; /* the old array is abandoned in the arena */
            s->cap = cap;
        } else {
            st = FL_ENOMEM;
        }
    }
    if (st == FL_OK) {
        if (r.n) {
            memcpy(s->terms, r.t, r.n * sizeof(*r.t));
        }
        s->n = r.n;
    }
    scr_restore(t, mk);
    return st;
}

fl_status fl__sym_sum_add(fl_sym_sum *s, fl_sym b) {
    return sum_addsub(s, b, 1);
}

fl_status fl__sym_sum_sub(fl_sym_sum *s, fl_sym b) {
    return sum_addsub(s, b, -1);
}

fl_status fl__sym_sum_total(const fl_sym_sum *s, fl_sym *out) {
    if (s->unknown) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    tlist l = {s->terms, s->n};
    return fl__symint_finish(s->t, l, out);
}
