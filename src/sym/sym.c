/*
 * sym.c - symbolic integers: the interning table, the structural orders, and
 * canonical polynomial arithmetic (add, sub, mul, exact division, floor/ceil
 * division, mod, max, min). See sym.h for the contract and sym_int.h for the
 * representation. Substitution, formatting and variable listing are in
 * sym_walk.c, running sums in sym_sum.c.
 */
#include "sym/sym_int.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

/* The unknown sentinel: an empty polynomial no table ever holds. */
static const fl_expr unknown_sentinel;
/* A node's cost keeps an expression's address in a word whose two low bits
 * are tags (fl_node_cost, graph/graph.h). */
_Static_assert(_Alignof(fl_expr) >= 4, "an expression's address has two low bits free");
const fl_expr *const fl__sym_unknown_expr = &unknown_sentinel;

#define INITIAL_SLOTS  256
#define SCRATCH_MIN    (16 * 1024)
#define DIV_STEP_LIMIT 4096 /* polynomial long division gives up after this */
#define SCRATCH_ALIGN  16

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static fl_status fail(fl_sym *out, fl_status st) {
    *out = fl_sym_unknown();
    return st;
}

static fl_sym sym_of(const fl_expr *e) {
    fl_sym s = {0, e};
    return s;
}

/* Same canonical value (known by value, symbolic by pointer). */
static bool sym_same(fl_sym x, fl_sym y) {
    return x.e == y.e && (x.e != NULL || x.k == y.k);
}

static uint64_t fmix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    return fmix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* One element into a running hash: an xor and a multiply (odd constant: a
 * bijection of h ^ v), so a long key costs one multiply's latency per
 * element; `seal` mixes the high bits down once at the end. Used for the
 * keys interned most often (monomials, polynomials: every sum and product
 * of the costing), where mix's full finaliser per element was most of the
 * interning's time. */
static uint64_t step(uint64_t h, uint64_t v) {
    return (h ^ v) * 0x9e3779b97f4a7c15ULL;
}

static uint64_t seal(uint64_t h) {
    return fmix(h);
}

static uint64_t hash_str(const char *s) {
    return fmix(fl__hash_str(s));
}

static uint64_t hash_sym(fl_sym s) {
    return s.e ? s.e->h.hash : mix(0x6b6e6f776eULL, (uint64_t)s.k);
}

static uint64_t uabs64(int64_t v) {
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Python-style floor division and modulo of known values; b != 0 and not
 * (a == INT64_MIN && b == -1). */
static int64_t floordiv64(int64_t a, int64_t b) {
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) {
        q--;
    }
    return q;
}

static int64_t ceildiv64(int64_t a, int64_t b) {
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) == (b < 0))) {
        q++;
    }
    return q;
}

static int64_t mod64(int64_t a, int64_t b) {
    if (b == -1) {
        return 0;
    }
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
        r += b;
    }
    return r;
}

fl_symtab *fl__symint_tab_of(const fl_expr *e) {
    /* A symbolic polynomial's first term has the highest degree, which is >= 1. */
    return e->t[0].m->f[0].atom->tab;
}

static fl_symtab *resolve(fl_symtab *t, fl_sym a, fl_sym b) {
    if (t) {
        return t;
    }
    return fl__symint_tab_of(fl_sym_is_symbolic(a) ? a.e : b.e);
}

/* ------------------------------------------------------------------------ */
/* Scratch stack                                                            */
/* ------------------------------------------------------------------------ */

static sym_chunk *chunk_new(fl_symtab *t, size_t size) {
    if (size > SIZE_MAX / 2) {
        return NULL;
    }
    /* a stack written before it is read: not zeroed */
    sym_chunk *c = fl__arena_alloc_raw(t->arena, sizeof(*c) + size);
    if (c) {
        c->next = NULL;
        c->size = size;
        c->used = 0;
    }
    return c;
}

static void *scr_alloc(fl_symtab *t, size_t n) {
    if (n > SIZE_MAX / 4) {
        return NULL;
    }
    n = (n + SCRATCH_ALIGN - 1) & ~(size_t)(SCRATCH_ALIGN - 1);
    if (n == 0) {
        n = SCRATCH_ALIGN;
    }
    sym_chunk *c = t->scr;
    if (c->size - c->used < n) {
        if (c->next && c->next->size >= n) {
            c = c->next;
        } else {
            size_t size = c->size * 2 > n ? c->size * 2 : n;
            sym_chunk *nc = chunk_new(t, size);
            if (!nc) {
                return NULL;
            }
            nc->next = c->next;
            c->next = nc;
            c = nc;
        }
        c->used = 0;
        t->scr = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static void *scr_array(fl_symtab *t, size_t n, size_t elem) {
    if (elem && n > SIZE_MAX / 4 / elem) {
        return NULL;
    }
    return scr_alloc(t, n * elem);
}

/* ------------------------------------------------------------------------ */
/* Structural orders                                                        */
/* ------------------------------------------------------------------------ */

static int poly_cmp(const fl_expr *a, const fl_expr *b);

static int cmp_i64(int64_t a, int64_t b) {
    return a < b ? -1 : (a > b ? 1 : 0);
}

/* Known values first (numerically), then symbolic ones by polynomial order. */
static int sym_cmp(fl_sym x, fl_sym y) {
    if (x.e == NULL && y.e == NULL) {
        return cmp_i64(x.k, y.k);
    }
    if (x.e == NULL) {
        return -1;
    }
    if (y.e == NULL) {
        return 1;
    }
    return poly_cmp(x.e, y.e);
}

static int atom_cmp(const sym_atom *a, const sym_atom *b) {
    if (a == b) {
        return 0;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind ? -1 : 1;
    }
    if (a->kind == SYM_VAR) {
        int c = strcmp(a->name, b->name);
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    int c = sym_cmp(a->a, b->a);
    return c ? c : sym_cmp(a->b, b->b);
}

/* Negative when a prints before b (a is the greater in graded lex order). */
static int mono_cmp(const sym_mono *a, const sym_mono *b) {
    if (a == b) {
        return 0;
    }
    if (a->degree != b->degree) {
        return a->degree > b->degree ? -1 : 1;
    }
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        if (a->f[i].atom != b->f[i].atom) {
            return atom_cmp(a->f[i].atom, b->f[i].atom);
        }
        if (a->f[i].exp != b->f[i].exp) {
            return a->f[i].exp > b->f[i].exp ? -1 : 1;
        }
    }
    return a->n > b->n ? -1 : (a->n < b->n ? 1 : 0);
}

static int poly_cmp(const fl_expr *a, const fl_expr *b) {
    if (a == b) {
        return 0;
    }
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        int c = mono_cmp(a->t[i].m, b->t[i].m);
        if (c) {
            return c;
        }
        c = cmp_i64(a->t[i].coef, b->t[i].coef);
        if (c) {
            return c;
        }
    }
    return a->n < b->n ? -1 : (a->n > b->n ? 1 : 0);
}

static int term_qsort_cmp(const void *x, const void *y) {
    const sym_term *a = x;
    const sym_term *b = y;
    return mono_cmp(a->m, b->m);
}

/* ------------------------------------------------------------------------ */
/* Interning table                                                          */
/* ------------------------------------------------------------------------ */

typedef bool (*node_eq_fn)(const sym_node *n, const void *key);

static void slots_place(sym_node **slots, size_t cap, sym_node *n) {
    size_t mask = cap - 1;
    size_t i = (size_t)n->hash & mask;
    while (slots[i]) {
        i = (i + 1) & mask;
    }
    slots[i] = n;
}

static sym_node *table_find(const fl_symtab *t, uint64_t hash, uint32_t kind, const void *key,
                            node_eq_fn eq) {
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        sym_node *n = t->slots[i];
        if (!n) {
            return NULL;
        }
        if (n->hash == hash && n->kind == kind && eq(n, key)) {
            return n;
        }
    }
}

/* Inserts n (known to be absent), doubling the table at load 1/2. */
static bool table_add(fl_symtab *t, sym_node *n) {
    if ((t->count + 1) * 2 > t->cap) {
        size_t ncap = t->cap * 2;
        sym_node **ns = fl__arena_calloc(t->arena, ncap, sizeof(*ns));
        if (!ns) {
            return false;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (t->slots[i]) {
                slots_place(ns, ncap, t->slots[i]);
            }
        }
        t->slots = ns; /* the old array is abandoned in the arena */
        t->cap = ncap;
    }
    slots_place(t->slots, t->cap, n);
    t->count++;
    return true;
}

static bool atom_eq(const sym_node *n, const void *key) {
    const sym_atom *x = (const sym_atom *)n;
    const sym_atom *k = key;
    if (x->kind != k->kind) {
        return false;
    }
    if (k->kind == SYM_VAR) {
        return strcmp(x->name, k->name) == 0;
    }
    return sym_same(x->a, k->a) && sym_same(x->b, k->b);
}

/* Interns a variable (name != NULL) or op(a, b). NULL on OOM. */
static const sym_atom *intern_atom(fl_symtab *t, sym_atom_kind kind, const char *name, fl_sym a,
                                   fl_sym b) {
    sym_atom key;
    memset(&key, 0, sizeof(key));
    key.kind = kind;
    uint64_t h = mix(0x61746f6dULL, (uint64_t)kind);
    if (kind == SYM_VAR) {
        key.name = name;
        h = mix(h, hash_str(name));
    } else {
        if (a.e) {
            a.k = 0;
        }
        if (b.e) {
            b.k = 0;
        }
        key.a = a;
        key.b = b;
        h = mix(mix(h, hash_sym(a)), hash_sym(b));
    }
    sym_node *found = table_find(t, h, SYM_NODE_ATOM, &key, atom_eq);
    if (found) {
        return (const sym_atom *)found;
    }
    sym_atom *n = fl__arena_alloc(t->arena, sizeof(*n));
    if (!n) {
        return NULL;
    }
    *n = key;
    n->h.hash = h;
    n->h.kind = SYM_NODE_ATOM;
    n->tab = t;
    n->self = NULL;
    n->mark = 0;
    n->memo = fl_sym_unknown();
    n->aliased = false;
    n->alias = fl_sym_const(0);
    n->fixed = false;
    n->fixed_k = 0;
    if (kind == SYM_VAR) {
        n->seq = t->n_vars++;
        n->name = fl__arena_strdup(t->arena, name);
        if (!n->name) {
            return NULL;
        }
    }
    if (!table_add(t, &n->h)) {
        return NULL;
    }
    return n;
}

typedef struct mono_key {
    const sym_factor *f;
    size_t n;
} mono_key;

static bool mono_eq(const sym_node *n, const void *key) {
    const sym_mono *m = (const sym_mono *)n;
    const mono_key *k = key;
    if (m->n != k->n) {
        return false;
    }
    for (size_t i = 0; i < k->n; i++) {
        if (m->f[i].atom != k->f[i].atom || m->f[i].exp != k->f[i].exp) {
            return false;
        }
    }
    return true;
}

/* Interns a monomial from factors sorted by atom order. Sets *out (NULL only
 * with an error status). */
static fl_status intern_mono(fl_symtab *t, const sym_factor *f, size_t n, const sym_mono **out) {
    *out = NULL;
    if (n == 0) {
        *out = t->one;
        return FL_OK;
    }
    uint64_t h = step(0x6d6f6e6fULL, n);
    uint64_t degree = 0;
    for (size_t i = 0; i < n; i++) {
        h = step(step(h, f[i].atom->h.hash), f[i].exp);
        degree += f[i].exp;
    }
    h = seal(h);
    if (degree > UINT32_MAX) {
        return FL_EOVERFLOW;
    }
    mono_key key = {f, n};
    sym_node *found = table_find(t, h, SYM_NODE_MONO, &key, mono_eq);
    if (found) {
        *out = (const sym_mono *)found;
        return FL_OK;
    }
    if (n > (SIZE_MAX / 4) / sizeof(sym_factor)) {
        return FL_ENOMEM;
    }
    sym_mono *m = fl__arena_alloc(t->arena, sizeof(*m) + n * sizeof(sym_factor));
    if (!m) {
        return FL_ENOMEM;
    }
    m->h.hash = h;
    m->h.kind = SYM_NODE_MONO;
    m->degree = (uint32_t)degree;
    m->n = n;
    memcpy(m->f, f, n * sizeof(sym_factor));
    if (!table_add(t, &m->h)) {
        return FL_ENOMEM;
    }
    *out = m;
    return FL_OK;
}

typedef struct poly_key {
    const sym_term *t;
    size_t n;
} poly_key;

static bool poly_eq(const sym_node *n, const void *key) {
    const fl_expr *e = (const fl_expr *)n;
    const poly_key *k = key;
    if (e->n != k->n) {
        return false;
    }
    for (size_t i = 0; i < k->n; i++) {
        if (e->t[i].m != k->t[i].m || e->t[i].coef != k->t[i].coef) {
            return false;
        }
    }
    return true;
}

static const fl_expr *intern_poly(fl_symtab *t, const sym_term *terms, size_t n) {
    uint64_t h = step(0x706f6c79ULL, n);
    for (size_t i = 0; i < n; i++) {
        h = step(step(h, terms[i].m->h.hash), (uint64_t)terms[i].coef);
    }
    h = seal(h);
    poly_key key = {terms, n};
    sym_node *found = table_find(t, h, SYM_NODE_POLY, &key, poly_eq);
    if (found) {
        return (const fl_expr *)found;
    }
    if (n > (SIZE_MAX / 4) / sizeof(sym_term)) {
        return NULL;
    }
    fl_expr *e = fl__arena_alloc(t->arena, sizeof(*e) + n * sizeof(sym_term));
    if (!e) {
        return NULL;
    }
    e->h.hash = h;
    e->h.kind = SYM_NODE_POLY;
    e->n = n;
    memcpy(e->t, terms, n * sizeof(sym_term));
    if (!table_add(t, &e->h)) {
        return NULL;
    }
    return e;
}

fl_status fl__symint_atom_sym(fl_symtab *t, const sym_atom *atom, fl_sym *out) {
    if (!atom->self) {
        sym_factor f = {atom, 1};
        const sym_mono *m;
        fl_status st = intern_mono(t, &f, 1, &m);
        if (st) {
            return fail(out, st);
        }
        sym_term term = {1, m};
        const fl_expr *e = intern_poly(t, &term, 1);
        if (!e) {
            return fail(out, FL_ENOMEM);
        }
        ((sym_atom *)atom)->self = e;
    }
    *out = sym_of(atom->self);
    return FL_OK;
}

fl_symtab *fl__symtab_new(fl_arena *a) {
    fl_symtab *t = fl__arena_zalloc(a, sizeof(*t));
    if (!t) {
        return NULL;
    }
    t->arena = a;
    t->cap = INITIAL_SLOTS;
    t->slots = fl__arena_calloc(a, t->cap, sizeof(*t->slots));
    sym_mono *one = fl__arena_zalloc(a, sizeof(*one));
    t->scr = chunk_new(t, SCRATCH_MIN);
    if (!t->slots || !one || !t->scr) {
        return NULL;
    }
    one->h.hash = mix(0x6f6e65ULL, 0);
    one->h.kind = SYM_NODE_MONO;
    t->one = one;
    return t;
}

/* ------------------------------------------------------------------------ */
/* Term lists (sorted canonical term arrays, usually in scratch)            */
/* ------------------------------------------------------------------------ */

/* The canonical fl_sym of a term list: known when constant, else interned. */
fl_status fl__symint_finish(fl_symtab *t, tlist l, fl_sym *out) {
    if (l.n == 0) {
        *out = fl_sym_const(0);
        return FL_OK;
    }
    if (l.n == 1 && l.t[0].m == t->one) {
        *out = fl_sym_const(l.t[0].coef);
        return FL_OK;
    }
    const fl_expr *e = intern_poly(t, l.t, l.n);
    if (!e) {
        return fail(out, FL_ENOMEM);
    }
    *out = sym_of(e);
    return FL_OK;
}

/* True (and *k) when l is a constant. */
static bool tl_const(const fl_symtab *t, tlist l, int64_t *k) {
    if (l.n == 0) {
        *k = 0;
        return true;
    }
    if (l.n == 1 && l.t[0].m == t->one) {
        *k = l.t[0].coef;
        return true;
    }
    return false;
}

/* a + bscale * b. */
fl_status fl__symint_tl_add(fl_symtab *t, tlist a, tlist b, int64_t bscale, tlist *out) {
    sym_term *r = scr_array(t, a.n + b.n, sizeof(*r));
    if (!r) {
        return FL_ENOMEM;
    }
    size_t i = 0, j = 0, n = 0;
    while (i < a.n || j < b.n) {
        int c;
        if (i == a.n) {
            c = 1;
        } else if (j == b.n) {
            c = -1;
        } else {
            c = mono_cmp(a.t[i].m, b.t[j].m);
        }
        if (c < 0) {
            r[n++] = a.t[i++];
            continue;
        }
        int64_t bc;
        if (__builtin_mul_overflow(b.t[j].coef, bscale, &bc)) {
            return FL_EOVERFLOW;
        }
        if (c == 0) {
            int64_t s;
            if (__builtin_add_overflow(a.t[i].coef, bc, &s)) {
                return FL_EOVERFLOW;
            }
            if (s != 0) {
                r[n].coef = s;
                r[n].m = a.t[i].m;
                n++;
            }
            i++;
            j++;
        } else {
            r[n].coef = bc;
            r[n].m = b.t[j].m;
            n++;
            j++;
        }
    }
    out->t = r;
    out->n = n;
    return FL_OK;
}

/* k * a, k != 0 (the order is unchanged). */
static fl_status tl_scale(fl_symtab *t, tlist a, int64_t k, tlist *out) {
    sym_term *r = scr_array(t, a.n, sizeof(*r));
    if (!r) {
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < a.n; i++) {
        if (__builtin_mul_overflow(a.t[i].coef, k, &r[i].coef)) {
            return FL_EOVERFLOW;
        }
        r[i].m = a.t[i].m;
    }
    out->t = r;
    out->n = a.n;
    return FL_OK;
}

/* a / k for a k that divides every coefficient. */
static fl_status tl_divk(fl_symtab *t, tlist a, int64_t k, tlist *out) {
    sym_term *r = scr_array(t, a.n, sizeof(*r));
    if (!r) {
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < a.n; i++) {
        if (k == -1 && a.t[i].coef == INT64_MIN) {
            return FL_EOVERFLOW;
        }
        r[i].coef = a.t[i].coef / k;
        r[i].m = a.t[i].m;
    }
    out->t = r;
    out->n = a.n;
    return FL_OK;
}

static fl_status mono_mul(fl_symtab *t, const sym_mono *a, const sym_mono *b,
                          const sym_mono **out) {
    if (a == t->one) {
        *out = b;
        return FL_OK;
    }
    if (b == t->one) {
        *out = a;
        return FL_OK;
    }
    sym_scr_mark mk = scr_save(t);
    sym_factor *f = scr_array(t, a->n + b->n, sizeof(*f));
    if (!f) {
        return FL_ENOMEM;
    }
    size_t i = 0, j = 0, n = 0;
    while (i < a->n || j < b->n) {
        int c;
        if (i == a->n) {
            c = 1;
        } else if (j == b->n) {
            c = -1;
        } else {
            c = atom_cmp(a->f[i].atom, b->f[j].atom);
        }
        if (c < 0) {
            f[n++] = a->f[i++];
        } else if (c > 0) {
            f[n++] = b->f[j++];
        } else {
            f[n].atom = a->f[i].atom;
            if (__builtin_add_overflow(a->f[i].exp, b->f[j].exp, &f[n].exp)) {
                scr_restore(t, mk);
                return FL_EOVERFLOW;
            }
            n++;
            i++;
            j++;
        }
    }
    fl_status st = intern_mono(t, f, n, out);
    scr_restore(t, mk);
    return st;
}

/* a / b when b divides a (*ok), else *ok = false. */
static fl_status mono_div(fl_symtab *t, const sym_mono *a, const sym_mono *b, const sym_mono **out,
                          bool *ok) {
    *ok = false;
    if (b == t->one) {
        *out = a;
        *ok = true;
        return FL_OK;
    }
    if (b->degree > a->degree) {
        return FL_OK;
    }
    sym_scr_mark mk = scr_save(t);
    sym_factor *f = scr_array(t, a->n, sizeof(*f));
    if (!f) {
        return FL_ENOMEM;
    }
    size_t i = 0, n = 0;
    fl_status st = FL_OK;
    for (size_t j = 0; j < b->n; j++) {
        while (i < a->n && a->f[i].atom != b->f[j].atom &&
               atom_cmp(a->f[i].atom, b->f[j].atom) < 0) {
            f[n++] = a->f[i++];
        }
        if (i == a->n || a->f[i].atom != b->f[j].atom || a->f[i].exp < b->f[j].exp) {
            scr_restore(t, mk);
            return FL_OK;
        }
        if (a->f[i].exp > b->f[j].exp) {
            f[n].atom = a->f[i].atom;
            f[n].exp = a->f[i].exp - b->f[j].exp;
            n++;
        }
        i++;
    }
    while (i < a->n) {
        f[n++] = a->f[i++];
    }
    st = intern_mono(t, f, n, out);
    scr_restore(t, mk);
    *ok = st == FL_OK;
    return st;
}

/* term * b (the order of b is preserved: the monomial order is multiplicative). */
static fl_status tl_mul_term(fl_symtab *t, tlist b, sym_term term, tlist *out) {
    sym_term *r = scr_array(t, b.n, sizeof(*r));
    if (!r) {
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < b.n; i++) {
        if (__builtin_mul_overflow(b.t[i].coef, term.coef, &r[i].coef)) {
            return FL_EOVERFLOW;
        }
        fl_status st = mono_mul(t, b.t[i].m, term.m, &r[i].m);
        if (st) {
            return st;
        }
    }
    out->t = r;
    out->n = b.n;
    return FL_OK;
}

static fl_status tl_mul(fl_symtab *t, tlist a, tlist b, tlist *out) {
    if (a.n == 0 || b.n == 0) {
        out->t = NULL;
        out->n = 0;
        return FL_OK;
    }
    if (a.n == 1) {
        return tl_mul_term(t, b, a.t[0], out);
    }
    if (b.n == 1) {
        return tl_mul_term(t, a, b.t[0], out);
    }
    if (a.n > SIZE_MAX / 4 / b.n) {
        return FL_ENOMEM;
    }
    size_t n = a.n * b.n;
    sym_term *r = scr_array(t, n, sizeof(*r));
    if (!r) {
        return FL_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < a.n; i++) {
        for (size_t j = 0; j < b.n; j++, k++) {
            if (__builtin_mul_overflow(a.t[i].coef, b.t[j].coef, &r[k].coef)) {
                return FL_EOVERFLOW;
            }
            fl_status st = mono_mul(t, a.t[i].m, b.t[j].m, &r[k].m);
            if (st) {
                return st;
            }
        }
    }
    qsort(r, n, sizeof(*r), term_qsort_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && r[w - 1].m == r[i].m) {
            if (__builtin_add_overflow(r[w - 1].coef, r[i].coef, &r[w - 1].coef)) {
                return FL_EOVERFLOW;
            }
        } else {
            r[w++] = r[i];
        }
    }
    size_t z = 0;
    for (size_t i = 0; i < w; i++) {
        if (r[i].coef != 0) {
            r[z++] = r[i];
        }
    }
    out->t = r;
    out->n = z;
    return FL_OK;
}

/* Exact division a / b over polynomials with integer coefficients (atoms
 * taken as independent indeterminates). *ok tells whether it is exact.
 * Overflow in the quotient of a monomial divisor is FL_EOVERFLOW; inside long
 * division it only means "not exact". */
static fl_status tl_divexact(fl_symtab *t, tlist a, tlist b, tlist *q, bool *ok) {
    *ok = false;
    int64_t bc = b.t[0].coef;
    const sym_mono *bm = b.t[0].m;
    if (b.n == 1) {
        sym_term *r = scr_array(t, a.n, sizeof(*r));
        if (!r) {
            return FL_ENOMEM;
        }
        for (size_t i = 0; i < a.n; i++) {
            int64_t co = a.t[i].coef;
            if (bc == -1 && co == INT64_MIN) {
                return FL_EOVERFLOW;
            }
            if (co % bc != 0) {
                return FL_OK;
            }
            bool div;
            fl_status st = mono_div(t, a.t[i].m, bm, &r[i].m, &div);
            if (st || !div) {
                return st;
            }
            r[i].coef = co / bc;
        }
        q->t = r;
        q->n = a.n;
        *ok = true;
        return FL_OK;
    }
    size_t cap = 8, nq = 0;
    sym_term *qt = scr_array(t, cap, sizeof(*qt));
    if (!qt) {
        return FL_ENOMEM;
    }
    tlist r = a;
    for (size_t steps = 0; r.n > 0; steps++) {
        if (steps >= DIV_STEP_LIMIT) {
            return FL_OK;
        }
        int64_t co = r.t[0].coef;
        if ((bc == -1 && co == INT64_MIN) || co % bc != 0) {
            return FL_OK;
        }
        sym_term term;
        bool div;
        fl_status st = mono_div(t, r.t[0].m, bm, &term.m, &div);
        if (st || !div) {
            return st;
        }
        term.coef = co / bc;
        if (nq == cap) {
            sym_term *nt = scr_array(t, cap * 2, sizeof(*nt));
            if (!nt) {
                return FL_ENOMEM;
            }
            memcpy(nt, qt, nq * sizeof(*qt));
            qt = nt;
            cap *= 2;
        }
        qt[nq++] = term;
        tlist prod;
        st = tl_mul_term(t, b, term, &prod);
        if (st == FL_OK) {
            st = fl__symint_tl_add(t, r, prod, -1, &r);
        }
        if (st == FL_EOVERFLOW) {
            return FL_OK;
        }
        if (st) {
            return st;
        }
    }
    q->t = qt;
    q->n = nq;
    *ok = true;
    return FL_OK;
}

/* gcd of the absolute values of the coefficients (0 for an empty list). */
static uint64_t tl_content(tlist a) {
    uint64_t g = 0;
    for (size_t i = 0; i < a.n; i++) {
        g = gcd64(g, uabs64(a.t[i].coef));
    }
    return g;
}

/* ------------------------------------------------------------------------ */
/* Public arithmetic                                                        */
/* ------------------------------------------------------------------------ */

fl_status fl__sym_var(fl_symtab *t, const char *name, fl_sym *out) {
    if (!t || !name) {
        return fail(out, FL_EINVAL);
    }
    const sym_atom *atom = intern_atom(t, SYM_VAR, name, fl_sym_const(0), fl_sym_const(0));
    if (!atom) {
        return fail(out, FL_ENOMEM);
    }
    return fl__symint_atom_sym(t, atom, out);
}

/* Operands on the stack for the fast paths below, when they have this many
 * terms or fewer (a count or a size: one or two). */
#define FAST_TERMS 8

/* a + bscale * b for symbolic/known operands, neither unknown. */
fl_status fl__symint_addsub_terms(fl_symtab *t, fl_sym a, fl_sym b, int64_t bscale, fl_sym *out) {
    t = resolve(t, a, b);
    sym_scr_mark mk = scr_save(t);
    sym_term ba, bb;
    tlist r;
    fl_status st = fl__symint_tl_add(t, as_tlist(t, a, &ba), as_tlist(t, b, &bb), bscale, &r);
    if (st == FL_OK) {
        st = fl__symint_finish(t, r, out);
    }
    scr_restore(t, mk);
    return st ? fail(out, st) : FL_OK;
}

/* a + bscale * b when both are symbolic with the same monomials term for
 * term (interned: the same pointers) and no sum overflows or is 0: the
 * merge of fl__symint_tl_add then only adds coefficients, in order. True
 * with *out (the same interned result); false, nothing done, otherwise. */
static bool add_alike(fl_symtab *t, fl_sym a, fl_sym b, int64_t bscale, fl_sym *out) {
    if (!fl_sym_is_symbolic(a) || !fl_sym_is_symbolic(b) || a.e->n != b.e->n ||
        a.e->n > FAST_TERMS) {
        return false;
    }
    sym_term r[FAST_TERMS];
    for (size_t i = 0; i < a.e->n; i++) {
        int64_t bc;
        if (a.e->t[i].m != b.e->t[i].m || __builtin_mul_overflow(b.e->t[i].coef, bscale, &bc) ||
            __builtin_add_overflow(a.e->t[i].coef, bc, &r[i].coef) || r[i].coef == 0) {
            return false;
        }
        r[i].m = a.e->t[i].m;
    }
    tlist l = {r, a.e->n};
    return fl__symint_finish(resolve(t, a, b), l, out) == FL_OK;
}

/* a + k for a symbolic a and a known k other than 0: a's terms and k
 * merged into its constant term, the last one (the only monomial of degree
 * 0 sorts after all others), or appended as one; what fl__symint_tl_add's
 * merge gives (a constant term that becomes 0 is dropped). False, nothing
 * done, when that sum overflows (the general path says so) or on failure. */
static bool add_known(fl_symtab *t, fl_sym a, int64_t k, fl_sym *out) {
    size_t n = a.e->n;
    if (n > FAST_TERMS) {
        return false;
    }
    t = t ? t : fl__symint_tab_of(a.e);
    sym_term r[FAST_TERMS + 1];
    memcpy(r, a.e->t, n * sizeof(sym_term));
    if (r[n - 1].m == t->one) {
        if (__builtin_add_overflow(r[n - 1].coef, k, &r[n - 1].coef)) {
            return false;
        }
        n -= r[n - 1].coef == 0;
    } else {
        r[n].coef = k;
        r[n].m = t->one;
        n++;
    }
    tlist l = {r, n};
    return fl__symint_finish(t, l, out) == FL_OK;
}

fl_status fl__sym_add(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL) {
        int64_t r;
        if (__builtin_add_overflow(a.k, b.k, &r)) {
            return fail(out, FL_EOVERFLOW);
        }
        *out = fl_sym_const(r);
        return FL_OK;
    }
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (b.e == NULL && b.k == 0) {
        *out = a;
        return FL_OK;
    }
    if (a.e == NULL && a.k == 0) {
        *out = b;
        return FL_OK;
    }
    if (b.e == NULL ? add_known(t, a, b.k, out) : a.e == NULL && add_known(t, b, a.k, out)) {
        return FL_OK;
    }
    return add_alike(t, a, b, 1, out) ? FL_OK : fl__symint_addsub_terms(t, a, b, 1, out);
}

fl_status fl__sym_sub(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL) {
        int64_t r;
        if (__builtin_sub_overflow(a.k, b.k, &r)) {
            return fail(out, FL_EOVERFLOW);
        }
        *out = fl_sym_const(r);
        return FL_OK;
    }
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (a.e == b.e) {
        *out = fl_sym_const(0);
        return FL_OK;
    }
    if (b.e == NULL && b.k == 0) {
        *out = a;
        return FL_OK;
    }
    return add_alike(t, a, b, -1, out) ? FL_OK : fl__symint_addsub_terms(t, a, b, -1, out);
}

/* k * e for a known k other than 0 and 1 and a symbolic e: e's terms with
 * their coefficients times k, what tl_mul's product by the constant term k
 * gives (each monomial times 1 is itself, so the order holds and no two
 * terms merge; a product that overflows is FL_EOVERFLOW there too),
 * without its scratch list and monomial products. */
static fl_status mul_known(fl_symtab *t, int64_t k, const fl_expr *e, fl_sym *out) {
    t = t ? t : fl__symint_tab_of(e);
    uint64_t h =
        ((uint64_t)(uintptr_t)e ^ (uint64_t)k * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    struct sym_mul_memo *memo = &t->mul_memo[(h >> 40) & (SYM_MUL_MEMO - 1)];
    if (memo->e == e && memo->k == k) {
        *out = memo->out;
        return FL_OK;
    }
    sym_scr_mark mk = scr_save(t);
    sym_term buf[FAST_TERMS];
    sym_term *r = e->n <= FAST_TERMS ? buf : scr_array(t, e->n, sizeof(*r));
    fl_status st = r ? FL_OK : FL_ENOMEM;
    for (size_t i = 0; i < e->n && st == FL_OK; i++) {
        if (__builtin_mul_overflow(e->t[i].coef, k, &r[i].coef)) {
            st = FL_EOVERFLOW;
        }
        r[i].m = e->t[i].m;
    }
    if (st == FL_OK) {
        tlist l = {r, e->n};
        st = fl__symint_finish(t, l, out);
    }
    scr_restore(t, mk);
    if (st == FL_OK) {
        *memo = (struct sym_mul_memo){e, k, *out};
    }
    return st ? fail(out, st) : FL_OK;
}

fl_status fl__sym_mul(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL) {
        int64_t r;
        if (__builtin_mul_overflow(a.k, b.k, &r)) {
            return fail(out, FL_EOVERFLOW);
        }
        *out = fl_sym_const(r);
        return FL_OK;
    }
    if ((a.e == NULL && a.k == 0) || (b.e == NULL && b.k == 0)) {
        *out = fl_sym_const(0);
        return FL_OK;
    }
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (a.e == NULL && a.k == 1) {
        *out = b;
        return FL_OK;
    }
    if (b.e == NULL && b.k == 1) {
        *out = a;
        return FL_OK;
    }
    if (a.e == NULL) {
        return mul_known(t, a.k, b.e, out);
    }
    if (b.e == NULL) {
        return mul_known(t, b.k, a.e, out);
    }
    return fl__symint_mul_terms(t, a, b, out);
}

/* a * b by term lists, neither unknown. */
fl_status fl__symint_mul_terms(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    t = resolve(t, a, b);
    sym_scr_mark mk = scr_save(t);
    sym_term ba, bb;
    tlist r;
    fl_status st = tl_mul(t, as_tlist(t, a, &ba), as_tlist(t, b, &bb), &r);
    if (st == FL_OK) {
        st = fl__symint_finish(t, r, out);
    }
    scr_restore(t, mk);
    return st ? fail(out, st) : FL_OK;
}

fl_status fl__sym_neg(fl_symtab *t, fl_sym a, fl_sym *out) {
    return fl__sym_mul(t, fl_sym_const(-1), a, out);
}

/* q + scale * atom, canonical. */
static fl_status add_atom_term(fl_symtab *t, tlist q, const sym_atom *atom, int64_t scale,
                               fl_sym *out) {
    fl_sym as;
    fl_status st = fl__symint_atom_sym(t, atom, &as);
    if (st) {
        return st;
    }
    sym_term term = {scale, as.e->t[0].m};
    tlist one = {&term, 1};
    tlist r;
    st = fl__symint_tl_add(t, q, one, 1, &r);
    return st ? st : fl__symint_finish(t, r, out);
}

static fl_status divide(fl_symtab *t, sym_atom_kind kind, fl_sym a, fl_sym b, fl_sym *out);

/* kind(a / c) for symbolic a and c >= 2: splits every coefficient as
 * q*c + r with 0 <= r < c, so kind(a/c) = sum(q*m) + kind(sum(r*m)/c), then
 * removes the gcd of c and the remainders, and folds nested floor/ceil. */
static fl_status divide_const(fl_symtab *t, sym_atom_kind kind, fl_sym a, int64_t c, fl_sym *out) {
    tlist ta = {a.e->t, a.e->n};
    sym_term *qt = scr_array(t, ta.n, sizeof(*qt));
    sym_term *rt = scr_array(t, ta.n, sizeof(*rt));
    if (!qt || !rt) {
        return FL_ENOMEM;
    }
    size_t nq = 0, nr = 0;
    for (size_t i = 0; i < ta.n; i++) {
        int64_t co = ta.t[i].coef;
        int64_t qk = co / c, rk = co % c;
        if (rk < 0) {
            rk += c;
            qk -= 1;
        }
        if (qk != 0 && kind != SYM_MOD) {
            qt[nq].coef = qk;
            qt[nq++].m = ta.t[i].m;
        }
        if (rk != 0) {
            rt[nr].coef = rk;
            rt[nr++].m = ta.t[i].m;
        }
    }
    tlist q = {qt, nq};
    if (nr == 0) {
        return fl__symint_finish(t, q, out);
    }
    int64_t g = (int64_t)gcd64((uint64_t)c, tl_content((tlist){rt, nr}));
    int64_t c2 = c / g;
    for (size_t i = 0; i < nr; i++) {
        rt[i].coef /= g;
    }
    tlist r = {rt, nr};
    int64_t rk;
    if (tl_const(t, r, &rk)) {
        /* 0 < rk < c2 */
        int64_t v = kind == SYM_FLOOR ? 0 : (kind == SYM_CEIL ? 1 : rk * g);
        sym_term vt = {v, t->one};
        tlist vl = {&vt, v != 0};
        tlist res;
        fl_status st = fl__symint_tl_add(t, q, vl, 1, &res);
        return st ? st : fl__symint_finish(t, res, out);
    }
    if (kind != SYM_MOD && rt[0].coef == 1 && rt[0].m->n == 1 && rt[0].m->f[0].exp == 1 &&
        (nr == 1 || (nr == 2 && rt[1].m == t->one))) {
        /* kind(kind(x/b) + k) / c2) = kind((x + k*b) / (b*c2)) for b, c2 > 0. */
        const sym_atom *inner = rt[0].m->f[0].atom;
        int64_t k = nr == 2 ? rt[1].coef : 0;
        int64_t kb, bc2;
        if (inner->kind == kind && inner->b.e == NULL && inner->b.k > 0 &&
            !__builtin_mul_overflow(k, inner->b.k, &kb) &&
            !__builtin_mul_overflow(inner->b.k, c2, &bc2)) {
            fl_sym num, folded;
            fl_status st = fl__sym_add(t, inner->a, fl_sym_const(kb), &num);
            if (st == FL_OK) {
                st = divide(t, kind, num, fl_sym_const(bc2), &folded);
            }
            if (st == FL_OK) {
                sym_term fb;
                tlist res;
                st = fl__symint_tl_add(t, q, as_tlist(t, folded, &fb), 1, &res);
                if (st == FL_OK) {
                    st = fl__symint_finish(t, res, out);
                }
            }
            if (st != FL_EOVERFLOW) {
                return st;
            }
            /* overflow while folding: keep the nested form */
        }
    }
    fl_sym rs;
    fl_status st = fl__symint_finish(t, r, &rs);
    if (st) {
        return st;
    }
    const sym_atom *atom = intern_atom(t, kind, NULL, rs, fl_sym_const(c2));
    if (!atom) {
        return FL_ENOMEM;
    }
    return add_atom_term(t, q, atom, kind == SYM_MOD ? g : 1, out);
}

/* kind(a / b) for symbolic b (a known or symbolic). */
static fl_status divide_sym(fl_symtab *t, sym_atom_kind kind, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && a.k == 0) {
        *out = fl_sym_const(0);
        return FL_OK;
    }
    sym_term ba;
    tlist ta = as_tlist(t, a, &ba);
    tlist tb = {b.e->t, b.e->n};
    tlist q;
    bool ok;
    fl_status st = tl_divexact(t, ta, tb, &q, &ok);
    if (st) {
        return st;
    }
    if (ok) {
        if (kind == SYM_MOD) {
            *out = fl_sym_const(0);
            return FL_OK;
        }
        return fl__symint_finish(t, q, out);
    }
    /* Normalise: positive leading divisor coefficient, no common content.
     * floor(a/b) = floor(-a/-b); mod(a, b) = -mod(-a, -b);
     * floor(g*a/(g*b)) = floor(a/b); mod(g*a, g*b) = g*mod(a, b) for g > 0. */
    int64_t scale = 1;
    if (tb.t[0].coef < 0) {
        if ((st = tl_scale(t, ta, -1, &ta)) || (st = tl_scale(t, tb, -1, &tb))) {
            return st;
        }
        scale = -1;
    }
    uint64_t g = gcd64(tl_content(ta), tl_content(tb));
    if (g > 1 && g <= INT64_MAX) {
        if ((st = tl_divk(t, ta, (int64_t)g, &ta)) || (st = tl_divk(t, tb, (int64_t)g, &tb))) {
            return st;
        }
        scale *= (int64_t)g;
    }
    fl_sym na, nb;
    if ((st = fl__symint_finish(t, ta, &na)) || (st = fl__symint_finish(t, tb, &nb))) {
        return st;
    }
    const sym_atom *atom = intern_atom(t, kind, NULL, na, nb);
    if (!atom) {
        return FL_ENOMEM;
    }
    tlist empty = {NULL, 0};
    return add_atom_term(t, empty, atom, kind == SYM_MOD ? scale : 1, out);
}

/* kind(a / b) when not both known. */
static fl_status divide(fl_symtab *t, sym_atom_kind kind, fl_sym a, fl_sym b, fl_sym *out) {
    if (b.e == NULL && b.k == 0) {
        return fail(out, FL_EINVAL);
    }
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (a.e == NULL && b.e == NULL) {
        if (a.k == INT64_MIN && b.k == -1 && kind != SYM_MOD) {
            return fail(out, FL_EOVERFLOW);
        }
        int64_t v = kind == SYM_FLOOR ? floordiv64(a.k, b.k)
                                      : (kind == SYM_CEIL ? ceildiv64(a.k, b.k) : mod64(a.k, b.k));
        *out = fl_sym_const(v);
        return FL_OK;
    }
    t = resolve(t, a, b);
    sym_scr_mark mk = scr_save(t);
    fl_status st;
    if (b.e == NULL) {
        int64_t c = b.k;
        if (c == 1 || c == -1) {
            if (kind == SYM_MOD) {
                *out = fl_sym_const(0);
                st = FL_OK;
            } else {
                st = fl__sym_mul(t, a, fl_sym_const(c), out);
            }
        } else if (c == INT64_MIN) {
            st = FL_EOVERFLOW;
        } else if (c < 0) {
            /* floor(a/c) = floor(-a/-c); mod(a, c) = -mod(-a, -c) */
            fl_sym na;
            st = fl__sym_neg(t, a, &na);
            if (st == FL_OK) {
                st = divide_const(t, kind, na, -c, out);
            }
            if (st == FL_OK && kind == SYM_MOD) {
                st = fl__sym_neg(t, *out, out);
            }
        } else {
            st = divide_const(t, kind, a, c, out);
        }
    } else {
        st = divide_sym(t, kind, a, b, out);
    }
    scr_restore(t, mk);
    return st ? fail(out, st) : FL_OK;
}

fl_status fl__sym_floordiv(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL && b.k != 0 && !(a.k == INT64_MIN && b.k == -1)) {
        *out = fl_sym_const(floordiv64(a.k, b.k));
        return FL_OK;
    }
    return divide(t, SYM_FLOOR, a, b, out);
}

fl_status fl__sym_ceildiv(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL && b.k != 0 && !(a.k == INT64_MIN && b.k == -1)) {
        *out = fl_sym_const(ceildiv64(a.k, b.k));
        return FL_OK;
    }
    return divide(t, SYM_CEIL, a, b, out);
}

fl_status fl__sym_mod(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL && b.k != 0) {
        *out = fl_sym_const(mod64(a.k, b.k));
        return FL_OK;
    }
    return divide(t, SYM_MOD, a, b, out);
}

fl_status fl__sym_div(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out, bool *exact) {
    *exact = false;
    if (b.e == NULL && b.k == 0) {
        return fail(out, FL_EINVAL);
    }
    if (a.e == NULL && b.e == NULL) {
        if (a.k == INT64_MIN && b.k == -1) {
            return fail(out, FL_EOVERFLOW);
        }
        *exact = a.k % b.k == 0;
        *out = fl_sym_const(floordiv64(a.k, b.k));
        return FL_OK;
    }
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (a.e == NULL && a.k == 0) {
        *exact = true;
        *out = fl_sym_const(0);
        return FL_OK;
    }
    t = resolve(t, a, b);
    sym_scr_mark mk = scr_save(t);
    sym_term ba, bb;
    tlist q;
    bool ok;
    fl_status st = tl_divexact(t, as_tlist(t, a, &ba), as_tlist(t, b, &bb), &q, &ok);
    if (st == FL_OK && ok) {
        st = fl__symint_finish(t, q, out);
        *exact = st == FL_OK;
    }
    scr_restore(t, mk);
    if (st) {
        return fail(out, st);
    }
    return ok ? FL_OK : fl__sym_floordiv(t, a, b, out);
}

/* max/min when not both known. */
static fl_status maxmin(fl_symtab *t, sym_atom_kind kind, fl_sym a, fl_sym b, fl_sym *out) {
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fail(out, FL_OK);
    }
    if (sym_same(a, b)) {
        *out = a;
        return FL_OK;
    }
    t = resolve(t, a, b);
    sym_scr_mark mk = scr_save(t);
    sym_term ba, bb;
    tlist d;
    fl_status st = fl__symint_tl_add(t, as_tlist(t, a, &ba), as_tlist(t, b, &bb), -1, &d);
    int64_t dk;
    if (st == FL_OK && tl_const(t, d, &dk)) {
        /* a - b is a constant: the answer is the same for every binding. */
        bool pick_a = kind == SYM_MAX ? dk >= 0 : dk <= 0;
        *out = pick_a ? a : b;
        scr_restore(t, mk);
        return FL_OK;
    }
    scr_restore(t, mk);
    if (st != FL_OK && st != FL_EOVERFLOW) {
        return fail(out, st);
    }
    if (a.e) {
        a.k = 0;
    }
    if (b.e) {
        b.k = 0;
    }
    if (sym_cmp(a, b) > 0) {
        fl_sym tmp = a;
        a = b;
        b = tmp;
    }
    const sym_atom *atom = intern_atom(t, kind, NULL, a, b);
    if (!atom) {
        return fail(out, FL_ENOMEM);
    }
    st = fl__symint_atom_sym(t, atom, out);
    return st ? fail(out, st) : FL_OK;
}

fl_status fl__sym_max(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL) {
        *out = fl_sym_const(a.k > b.k ? a.k : b.k);
        return FL_OK;
    }
    return maxmin(t, SYM_MAX, a, b, out);
}

fl_status fl__sym_min(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out) {
    if (a.e == NULL && b.e == NULL) {
        *out = fl_sym_const(a.k < b.k ? a.k : b.k);
        return FL_OK;
    }
    return maxmin(t, SYM_MIN, a, b, out);
}

fl_status fl__sym_clog2(fl_symtab *t, fl_sym a, fl_sym *out) {
    if (fl_sym_is_unknown(a)) {
        return fail(out, FL_OK);
    }
    if (a.e == NULL) {
        int64_t r = 0;
        while (r < 63 && ((uint64_t)1 << r) < (uint64_t)(a.k > 1 ? a.k : 1)) {
            r++;
        }
        *out = fl_sym_const(r);
        return FL_OK;
    }
    t = resolve(t, a, a);
    a.k = 0;
    const sym_atom *atom = intern_atom(t, SYM_CLOG2, NULL, a, fl_sym_const(0));
    if (!atom) {
        return fail(out, FL_ENOMEM);
    }
    fl_status st = fl__symint_atom_sym(t, atom, out);
    return st ? fail(out, st) : FL_OK;
}

uint64_t fl__sym_hash(fl_sym a) {
    return a.e ? a.e->h.hash : (uint64_t)a.k;
}

bool fl__sym_eq(fl_sym a, fl_sym b) {
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return false;
    }
    return sym_same(a, b);
}
