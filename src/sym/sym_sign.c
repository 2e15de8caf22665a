/*
 * sym_sign.c - lower bounds of symbolic expressions over sizes; see sym.h.
 *
 * The canonical form assumes nothing of a variable's sign, and that stays:
 * every rewrite is an identity over all integers. This file answers one
 * question beside it, for code that compares values computed from shapes
 * (an exporter's "is this dim -1?" test): is an expression at least 0, or at
 * least 1, for every value of its variables a size can take? A variable is a
 * size when the code that made it said so (fl__sym_size_var: a tensor's
 * dim); any other variable (a scalar input's value) may be negative, and an
 * expression holding one is not bounded here.
 */
#include "sym/sym_int.h"

#include <stdint.h>

static int lower_of(fl_sym s, int depth);

/* The lower bound of an atom: 1, 0 or -1 (none known). Each kind by its
 * definition (sym.h): floor and ceil of a bounded numerator by a positive
 * known divisor, a mod by a positive divisor (the sign of the divisor), a max
 * of which one side is bounded, a min of two bounded sides, ceil(log2). */
static int atom_lower(const sym_atom *a, int depth) {
    switch (a->kind) {
    case SYM_VAR:
        if (a->fixed) {
            return a->fixed_k >= 1 ? 1 : a->fixed_k >= 0 ? 0 : -1;
        }
        return a->size ? 0 : -1;
    case SYM_FLOOR:
    case SYM_CEIL: {
        if (!fl_sym_is_known(a->b) || a->b.k <= 0) {
            return -1;
        }
        int p = lower_of(a->a, depth + 1);
        if (p < 0) {
            return -1;
        }
        /* ceil(p / b) >= 1 for p >= 1; floor(p / b) >= 1 only for p >= b */
        return a->kind == SYM_CEIL && p >= 1 ? 1 : 0;
    }
    case SYM_MOD:
        return fl_sym_is_known(a->b) && a->b.k > 0 ? 0 : -1;
    case SYM_MAX: {
        int x = lower_of(a->a, depth + 1), y = lower_of(a->b, depth + 1);
        return x > y ? x : y;
    }
    case SYM_MIN: {
        int x = lower_of(a->a, depth + 1), y = lower_of(a->b, depth + 1);
        return x < y ? x : y;
    }
    case SYM_CLOG2:
        return 0;
    }
    return -1;
}

/* A polynomial with no negative coefficient but perhaps its constant term
 * is at least that constant plus, for each other term, its coefficient when
 * every factor is at least 1, else 0 (every factor of odd power at least 0;
 * a factor of even power is never negative). */
static int lower_of(fl_sym s, int depth) {
    if (fl_sym_is_known(s)) {
        return s.k >= 1 ? 1 : s.k >= 0 ? 0 : -1;
    }
    if (!fl_sym_is_symbolic(s) || depth > 32) {
        return -1;
    }
    int64_t low = 0;
    for (size_t i = 0; i < s.e->n; i++) {
        const sym_term *t = &s.e->t[i];
        if (t->m->n == 0) {
            if (__builtin_add_overflow(low, t->coef, &low)) {
                return -1; /* past int64: not bounded here */
            }
            continue;
        }
        if (t->coef < 0) {
            return -1;
        }
        bool one = true;
        for (size_t j = 0; j < t->m->n; j++) {
            int f = atom_lower(t->m->f[j].atom, depth);
            if (f < 0 && t->m->f[j].exp % 2 != 0) {
                return -1;
            }
            one = one && f >= 1;
        }
        if (one && __builtin_add_overflow(low, t->coef, &low)) {
            low = INT64_MAX;
        }
    }
    return low >= 1 ? 1 : low >= 0 ? 0 : -1;
}

int fl__sym_lower_bound(fl_sym s) {
    return lower_of(fl__sym_resolve(s), 0);
}

fl_status fl__sym_size_var(fl_symtab *t, const char *name, fl_sym *out) {
    fl_status st = fl__sym_var(t, name, out);
    if (st == FL_OK) {
        sym_atom *a = (sym_atom *)out->e->t[0].m->f[0].atom; /* only the flag changes */
        a->size = true;
    }
    return st;
}
