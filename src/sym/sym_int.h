/*
 * sym_int.h - private representation of symbolic integers (see sym.h).
 *
 * Three kinds of interned node live in one open-addressing hash table of an
 * fl_symtab: atoms, monomials and polynomials. Children are interned before
 * their parents, so structural equality of a node reduces to comparing its
 * fields and child pointers (hash-consing).
 *
 *   atom        a variable (by name) or op(a, b) for op in floor, ceil, mod,
 *               max, min, or clog2(a) (b 0); a and b are canonical fl_sym
 *               values (known or symbolic, never unknown).
 *   monomial    a list of (atom, exponent > 0) sorted by atom_order; the empty
 *               monomial (the constant 1) is fl_symtab.one.
 *   polynomial  (struct fl_expr) a list of terms (nonzero coefficient,
 *               monomial), sorted in print order, no two with the same
 *               monomial, and never a constant (those are known fl_syms).
 *
 * Orders are structural, never by address, so printing is deterministic:
 *   atom order      variables first, by name (strcmp); then floor, ceil, mod,
 *                   max, min, clog2; within a kind by the first argument, then the
 *                   second (known values before symbolic ones, numerically;
 *                   symbolic ones by polynomial order).
 *   monomial order  graded lexicographic, highest first: higher total degree
 *                   first; at equal degree, lexicographic on exponent vectors
 *                   with atoms in atom order. This is a monomial order
 *                   (compatible with multiplication), which exact division
 *                   relies on.
 *   polynomial order  term by term (monomial, then coefficient), then length.
 */
#ifndef FL_SYM_SYM_INT_H
#define FL_SYM_SYM_INT_H

#include "sym/sym.h"

enum { SYM_NODE_ATOM = 1, SYM_NODE_MONO = 2, SYM_NODE_POLY = 3 };

typedef enum sym_atom_kind {
    SYM_VAR = 0,
    SYM_FLOOR = 1,
    SYM_CEIL = 2,
    SYM_MOD = 3,
    SYM_MAX = 4,
    SYM_MIN = 5,
    SYM_CLOG2 = 6 /* ceil(log2(a)); b is 0 */
} sym_atom_kind;

/* Common header of every interned node. */
typedef struct sym_node {
    uint64_t hash; /* structural: computed from names, values and child hashes */
    uint32_t kind; /* SYM_NODE_* */
} sym_node;

typedef struct sym_atom {
    sym_node h;
    sym_atom_kind kind;
    fl_symtab *tab;      /* owning table (lets table-less calls find it) */
    const char *name;    /* SYM_VAR: the variable's name */
    fl_sym a, b;         /* other kinds: the operands */
    const fl_expr *self; /* the polynomial 1*atom, made on first use */
    uint64_t mark;       /* epoch of the last walk that visited this atom */
    fl_sym memo;         /* fl__sym_subst: value under walk `mark` */
    uint32_t seq;        /* SYM_VAR: creation order in its table (0 first) */
    bool aliased;        /* SYM_VAR: an earlier variable it equals (sym_alias.c) */
    fl_sym alias;        /* when aliased: that variable */
    bool size;           /* SYM_VAR: a tensor's dim, so never negative (sym_sign.c) */
    bool fixed;          /* SYM_VAR: a known value it equals */
    int64_t fixed_k;     /* when fixed: that value */
} sym_atom;

typedef struct sym_factor {
    const sym_atom *atom;
    uint32_t exp; /* > 0 */
} sym_factor;

typedef struct sym_mono {
    sym_node h;
    uint32_t degree; /* sum of exponents */
    size_t n;
    sym_factor f[];
} sym_mono;

typedef struct sym_term {
    int64_t coef; /* nonzero in canonical lists */
    const sym_mono *m;
} sym_term;

struct fl_expr {
    sym_node h;
    size_t n; /* >= 1; a single term never has the empty monomial */
    sym_term t[];
};

/* Scratch memory: a stack of arena chunks reused between operations. */
typedef struct sym_chunk {
    struct sym_chunk *next;
    size_t size;
    size_t used;
    max_align_t data[];
} sym_chunk;

typedef struct sym_scr_mark {
    sym_chunk *chunk;
    size_t used;
} sym_scr_mark;

#define SYM_MUL_MEMO 64 /* a power of 2 */

struct fl_symtab {
    fl_arena *arena;
    sym_node **slots; /* open addressing, linear probing; capacity a power of 2 */
    size_t cap;
    size_t count;
    const sym_mono *one; /* the empty monomial */
    sym_chunk *scr;      /* current scratch chunk */
    uint64_t epoch;      /* walk counter for sym_atom.mark */
    uint32_t n_vars;     /* variables interned so far (sym_atom.seq) */
    /* Equations recorded by fl__sym_alias, in order (sym_alias.c). */
    struct sym_alias_rec *aliases;
    size_t n_aliases, cap_aliases;
    size_t n_merges; /* of them, variable = variable */
    /* The last products of an expression by a constant met (sym.c's
     * mul_known), direct-mapped: a graph's costs multiply the same few
     * expressions (a batch dimension) by the same sizes over and over.
     * e NULL: empty. Interned expressions are never freed or changed. */
    struct sym_mul_memo {
        const fl_expr *e;
        int64_t k;
        fl_sym out;
    } mul_memo[SYM_MUL_MEMO];
};

/* ---- Term lists, shared by sym.c and sym_sum.c ---- */

/* A sorted canonical term array, usually in scratch. */
typedef struct tlist {
    const sym_term *t;
    size_t n;
} tlist;

/* Views s (not unknown) as a term list; `buf` backs the list of a known. */
static inline tlist as_tlist(const fl_symtab *t, fl_sym s, sym_term *buf) {
    tlist l;
    if (s.e) {
        l.t = s.e->t;
        l.n = s.e->n;
    } else {
        buf->coef = s.k;
        buf->m = t->one;
        l.t = buf;
        l.n = s.k != 0;
    }
    return l;
}

/* The scratch stack's top, and the stack put back to it. */
static inline sym_scr_mark scr_save(fl_symtab *t) {
    sym_scr_mark m = {t->scr, t->scr->used};
    return m;
}

static inline void scr_restore(fl_symtab *t, sym_scr_mark m) {
    t->scr = m.chunk;
    t->scr->used = m.used;
}

/* The canonical fl_sym of a term list: known when constant, else interned. */
fl_status fl__symint_finish(fl_symtab *t, tlist l, fl_sym *out);

/* a + bscale * b into scratch. */
fl_status fl__symint_tl_add(fl_symtab *t, tlist a, tlist b, int64_t bscale, tlist *out);

/* fl__sym_add/sub (bscale 1/-1) and fl__sym_mul of operands neither
 * unknown, by the general merge and product of term lists: what the fast
 * paths of those functions must equal (test_sym checks them against it). */
fl_status fl__symint_addsub_terms(fl_symtab *t, fl_sym a, fl_sym b, int64_t bscale, fl_sym *out);
fl_status fl__symint_mul_terms(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);

/* The table owning symbolic expression e. */
fl_symtab *fl__symint_tab_of(const fl_expr *e);

/* The polynomial 1*atom as an fl_sym (interned on first use). */
fl_status fl__symint_atom_sym(fl_symtab *t, const sym_atom *atom, fl_sym *out);

#endif
