/*
 * sym_walk.c - walks over symbolic expressions: substitution of known values
 * (fl__sym_subst), canonical text (fl__sym_format, fl__sym_to_str) and variable
 * listing (fl__sym_vars). See sym.h for the contract and sym_int.h for the
 * representation.
 */
#include "sym/sym_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Substitution                                                             */
/* ------------------------------------------------------------------------ */

typedef struct subst_ctx {
    fl_symtab *t;
    size_t n;
    const char *const *names;
    const int64_t *values; /* known values, or NULL: */
    const fl_sym *syms;    /* values that are fl_syms (fl__sym_subst_syms) */
    uint64_t epoch;        /* atoms with mark == epoch hold their value in memo */
} subst_ctx;

static fl_status subst_sym(subst_ctx *c, fl_sym s, fl_sym *out);

/* base^exp by squaring, every step overflow-checked. */
static fl_status sym_pow(fl_symtab *t, fl_sym base, uint32_t exp, fl_sym *out) {
    fl_sym r = fl_sym_const(1);
    fl_status st = FL_OK;
    while (exp) {
        if (exp & 1) {
            if ((st = fl__sym_mul(t, r, base, &r))) {
                break;
            }
        }
        exp >>= 1;
        if (exp && (st = fl__sym_mul(t, base, base, &base))) {
            break;
        }
    }
    *out = st ? fl_sym_unknown() : r;
    return st;
}

static fl_status subst_atom(subst_ctx *c, const sym_atom *atom, fl_sym *out) {
    if (atom->mark == c->epoch) {
        *out = atom->memo;
        return FL_OK;
    }
    fl_status st = FL_OK;
    bool bound = false;
    if (atom->kind == SYM_VAR) {
        for (size_t i = 0; i < c->n; i++) {
            if (c->names[i] && strcmp(c->names[i], atom->name) == 0) {
                *out = c->syms ? c->syms[i] : fl_sym_const(c->values[i]);
                bound = true;
                break;
            }
        }
        if (!bound) {
            st = fl__symint_atom_sym(c->t, atom, out);
        }
    } else {
        fl_sym a, b;
        if ((st = subst_sym(c, atom->a, &a)) || (st = subst_sym(c, atom->b, &b))) {
            return st;
        }
        if (a.e == atom->a.e && a.k == atom->a.k && b.e == atom->b.e && b.k == atom->b.k) {
            st = fl__symint_atom_sym(c->t, atom, out); /* unchanged */
        } else {
            switch (atom->kind) {
            case SYM_FLOOR:
                st = fl__sym_floordiv(c->t, a, b, out);
                break;
            case SYM_CEIL:
                st = fl__sym_ceildiv(c->t, a, b, out);
                break;
            case SYM_MOD:
                st = fl__sym_mod(c->t, a, b, out);
                break;
            case SYM_MAX:
                st = fl__sym_max(c->t, a, b, out);
                break;
            case SYM_CLOG2:
                st = fl__sym_clog2(c->t, a, out);
                break;
            default:
                st = fl__sym_min(c->t, a, b, out);
                break;
            }
        }
    }
    if (st) {
        return st;
    }
    sym_atom *m = (sym_atom *)atom; /* arena memory: the walk state is mutable */
    m->mark = c->epoch;
    m->memo = *out;
    return FL_OK;
}

static fl_status subst_poly(subst_ctx *c, const fl_expr *e, fl_sym *out) {
    /* First pass: is any atom changed? If not, e stands as it is. */
    bool changed = false;
    for (size_t i = 0; i < e->n; i++) {
        const sym_mono *m = e->t[i].m;
        for (size_t j = 0; j < m->n; j++) {
            fl_sym v;
            fl_status st = subst_atom(c, m->f[j].atom, &v);
            if (st) {
                return st;
            }
            if (v.e == NULL || v.e != m->f[j].atom->self) {
                changed = true;
            }
        }
    }
    if (!changed) {
        out->k = 0;
        out->e = e;
        return FL_OK;
    }
    fl_sym acc = fl_sym_const(0);
    for (size_t i = 0; i < e->n; i++) {
        const sym_mono *m = e->t[i].m;
        fl_sym term = fl_sym_const(e->t[i].coef);
        for (size_t j = 0; j < m->n; j++) {
            fl_sym v, p;
            fl_status st = subst_atom(c, m->f[j].atom, &v);
            if (st == FL_OK) {
                st = sym_pow(c->t, v, m->f[j].exp, &p);
            }
            if (st == FL_OK) {
                st = fl__sym_mul(c->t, term, p, &term);
            }
            if (st) {
                return st;
            }
        }
        fl_status st = fl__sym_add(c->t, acc, term, &acc);
        if (st) {
            return st;
        }
    }
    *out = acc;
    return FL_OK;
}

static fl_status subst_sym(subst_ctx *c, fl_sym s, fl_sym *out) {
    if (!fl_sym_is_symbolic(s)) {
        *out = s;
        return FL_OK;
    }
    return subst_poly(c, s.e, out);
}

fl_status fl__sym_subst(fl_symtab *t, fl_sym s, size_t n, const char *const *names,
                        const int64_t *values, fl_sym *out) {
    if (!fl_sym_is_symbolic(s)) {
        *out = s;
        return FL_OK;
    }
    if (n > 0 && (!names || !values)) {
        *out = fl_sym_unknown();
        return FL_EINVAL;
    }
    if (!t) {
        t = fl__symint_tab_of(s.e);
    }
    subst_ctx c = {t, n, names, values, NULL, ++t->epoch};
    fl_status st = subst_poly(&c, s.e, out);
    if (st) {
        *out = fl_sym_unknown();
    }
    return st;
}

fl_status fl__sym_at_ones(fl_sym s, size_t max, int64_t *out) {
    if (!fl_sym_is_symbolic(s)) {
        return FL_ENOTFOUND;
    }
    const fl_expr *e = s.e;
    int64_t acc = 0;
    bool over = false;
    size_t occ = 0;
    for (size_t i = 0; i < e->n; i++) {
        const sym_mono *m = e->t[i].m;
        for (size_t j = 0; j < m->n; j++) {
            if (m->f[j].atom->kind != SYM_VAR || ++occ > max) {
                return FL_ENOTFOUND;
            }
        }
        /* subst_poly: each term is its coefficient times 1s, added to acc */
        over = over || __builtin_add_overflow(acc, e->t[i].coef, &acc);
    }
    *out = acc;
    return over ? FL_EOVERFLOW : FL_OK;
}

fl_status fl__sym_subst_syms(fl_symtab *t, fl_sym s, size_t n, const char *const *names,
                             const fl_sym *values, fl_sym *out) {
    if (!fl_sym_is_symbolic(s)) {
        *out = s;
        return FL_OK;
    }
    if (n > 0 && (!names || !values)) {
        *out = fl_sym_unknown();
        return FL_EINVAL;
    }
    fl_symtab *own = fl__symint_tab_of(s.e);
    if (t && t != own) {
        *out = fl_sym_unknown();
        return FL_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (fl_sym_is_symbolic(values[i]) && fl__symint_tab_of(values[i].e) != own) {
            *out = fl_sym_unknown();
            return FL_EINVAL;
        }
    }
    subst_ctx c = {own, n, names, NULL, values, ++own->epoch};
    fl_status st = subst_poly(&c, s.e, out);
    if (st) {
        *out = fl_sym_unknown();
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* Formatting                                                               */
/* ------------------------------------------------------------------------ */

typedef struct outbuf {
    char *buf;
    size_t size;
    size_t len; /* length the full text needs */
} outbuf;

static void put(outbuf *o, const char *s, size_t n) {
    if (o->size > 0 && o->len < o->size - 1) {
        size_t room = o->size - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void put_str(outbuf *o, const char *s) {
    put(o, s, strlen(s));
}

static void put_u64(outbuf *o, uint64_t v) {
    /* Digits from the right (the report formats every count: no printf). */
    char tmp[24];
    size_t i = sizeof(tmp);
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(o, tmp + i, sizeof(tmp) - i);
}

static void put_i64(outbuf *o, int64_t v) {
    if (v < 0) {
        put(o, "-", 1);
        put_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(o, (uint64_t)v);
    }
}

static void fmt_poly(outbuf *o, const fl_expr *e);

static void fmt_sym(outbuf *o, fl_sym s) {
    if (fl_sym_is_known(s)) {
        put_i64(o, s.k);
    } else if (fl_sym_is_unknown(s)) {
        put(o, "?", 1);
    } else {
        fmt_poly(o, s.e);
    }
}

/* A single factor with coefficient 1, e.g. "H", "N^2", "ceil(H/2)". */
static bool is_single_factor(fl_sym s) {
    return s.e && s.e->n == 1 && s.e->t[0].coef == 1 && s.e->t[0].m->n == 1;
}

/* Operand of floor/ceil: sums always in parentheses; the divisor also when it
 * is a product or has a coefficient. */
static void fmt_operand(outbuf *o, fl_sym s, bool divisor) {
    bool paren = s.e && (s.e->n > 1 || (divisor && !is_single_factor(s)));
    if (paren) {
        put(o, "(", 1);
    }
    fmt_sym(o, s);
    if (paren) {
        put(o, ")", 1);
    }
}

static void fmt_atom(outbuf *o, const sym_atom *a) {
    static const char *const names[] = {"",     "floor(", "ceil(",     "mod(",
                                        "max(", "min(",   "ceil(log2("};
    if (a->kind == SYM_VAR) {
        put_str(o, a->name);
        return;
    }
    put_str(o, names[a->kind]);
    if (a->kind == SYM_CLOG2) {
        fmt_sym(o, a->a);
        put(o, ")", 1);
    } else if (a->kind == SYM_FLOOR || a->kind == SYM_CEIL) {
        fmt_operand(o, a->a, false);
        put(o, "/", 1);
        fmt_operand(o, a->b, true);
    } else {
        fmt_sym(o, a->a);
        put(o, ", ", 2);
        fmt_sym(o, a->b);
    }
    put(o, ")", 1);
}

static void fmt_poly(outbuf *o, const fl_expr *e) {
    for (size_t i = 0; i < e->n; i++) {
        int64_t c = e->t[i].coef;
        const sym_mono *m = e->t[i].m;
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        if (i == 0) {
            if (c < 0) {
                put(o, "-", 1);
            }
        } else {
            put_str(o, c < 0 ? " - " : " + ");
        }
        if (m->n == 0) {
            put_u64(o, mag);
            continue;
        }
        if (mag != 1) {
            put_u64(o, mag);
            put(o, "*", 1);
        }
        for (size_t j = 0; j < m->n; j++) {
            if (j > 0) {
                put(o, "*", 1);
            }
            fmt_atom(o, m->f[j].atom);
            if (m->f[j].exp > 1) {
                put(o, "^", 1);
                put_u64(o, m->f[j].exp);
            }
        }
    }
}

size_t fl__sym_format(fl_sym s, char *buf, size_t size) {
    outbuf o = {buf, size, 0};
    fmt_sym(&o, s);
    if (size > 0) {
        buf[o.len < size - 1 ? o.len : size - 1] = '\0';
    }
    return o.len;
}

/* fmt_poly's text of a polynomial whose monomials are each one variable to
 * the first power or the constant (a*x + b, the counts of a graph with one
 * free dim), written straight into buf with its NUL; 0 for any other shape
 * or when the text might not fit (fmt_poly then). */
static size_t fmt_linear(const fl_expr *e, char *buf, size_t size) {
    size_t len = 0;
    for (size_t i = 0; i < e->n; i++) {
        int64_t c = e->t[i].coef;
        const sym_mono *m = e->t[i].m;
        const char *name = "";
        size_t nl = 0;
        if (m->n) {
            if (m->n != 1 || m->f[0].exp != 1 || m->f[0].atom->kind != SYM_VAR) {
                return 0;
            }
            name = m->f[0].atom->name;
            nl = strlen(name);
        }
        /* a separator (3), at most 20 digits, '*', the name, the NUL */
        if (nl > size || len + 3 + 20 + 1 + nl + 1 > size) {
            return 0;
        }
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        if (i > 0) {
            memcpy(buf + len, c < 0 ? " - " : " + ", 3);
            len += 3;
        } else if (c < 0) {
            buf[len++] = '-';
        }
        if (m->n == 0 || mag != 1) {
            char tmp[20];
            size_t k = sizeof tmp;
            do {
                tmp[--k] = (char)('0' + mag % 10);
                mag /= 10;
            } while (mag);
            memcpy(buf + len, tmp + k, sizeof tmp - k);
            len += sizeof tmp - k;
            if (m->n) {
                buf[len++] = '*';
            }
        }
        memcpy(buf + len, name, nl);
        len += nl;
    }
    buf[len] = '\0';
    return len;
}

char *fl__sym_to_str(fl_arena *a, fl_sym s) {
    /* Formatted once when the text fits the buffer (most do), else twice:
     * to measure it, then into the arena. */
    char buf[128];
    size_t n = fl_sym_is_symbolic(s) ? fmt_linear(s.e, buf, sizeof buf) : 0;
    if (n == 0) {
        n = fl__sym_format(s, buf, sizeof buf);
    }
    char *p = fl__arena_alloc_raw(a, n + 1);
    if (p && n < sizeof buf) {
        memcpy(p, buf, n + 1);
    } else if (p) {
        fl__sym_format(s, p, n + 1);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Variables                                                                */
/* ------------------------------------------------------------------------ */

/* One pass over the DAG (each atom once per epoch): the least variable name
 * greater than `after` (any name when after is NULL). */
static void least_var_poly(const fl_expr *e, uint64_t epoch, const char *after, const char **best);

static void least_var_sym(fl_sym s, uint64_t epoch, const char *after, const char **best) {
    if (fl_sym_is_symbolic(s)) {
        least_var_poly(s.e, epoch, after, best);
    }
}

static void least_var_poly(const fl_expr *e, uint64_t epoch, const char *after, const char **best) {
    for (size_t i = 0; i < e->n; i++) {
        const sym_mono *m = e->t[i].m;
        for (size_t j = 0; j < m->n; j++) {
            sym_atom *a = (sym_atom *)m->f[j].atom;
            if (a->mark == epoch) {
                continue;
            }
            a->mark = epoch;
            if (a->kind == SYM_VAR) {
                if ((!after || strcmp(a->name, after) > 0) &&
                    (!*best || strcmp(a->name, *best) < 0)) {
                    *best = a->name;
                }
            } else {
                least_var_sym(a->a, epoch, after, best);
                least_var_sym(a->b, epoch, after, best);
            }
        }
    }
}

void fl__sym_vars(fl_sym s, void (*fn)(const char *name, void *ctx), void *ctx) {
    if (!fl_sym_is_symbolic(s)) {
        return;
    }
    /* Repeated minimum search needs no memory: O(vars * size), and both are
     * small for dimension expressions. */
    fl_symtab *t = fl__symint_tab_of(s.e);
    const char *after = NULL;
    for (;;) {
        const char *best = NULL;
        least_var_poly(s.e, ++t->epoch, after, &best);
        if (!best) {
            break;
        }
        fn(best, ctx);
        after = best;
    }
}
