/*
 * sym.h - exact symbolic integers for dimensions, sizes and costs.
 *
 * An fl_sym is either a known 64-bit integer, "unknown", or a symbolic
 * expression over named variables (a placeholder's free batch size, an image
 * height). Known integers never touch the expression machinery, so concrete
 * graphs pay nothing for symbols.
 *
 * Symbolic expressions are polynomials with int64 coefficients over "atoms".
 * An atom is a variable, or an irreducible operation on polynomials:
 * floor(p / q), ceil(p / q), p mod q, max(p, q), min(p, q), ceil(log2(p)). Every expression is
 * kept in one canonical form and interned in an fl_symtab, so two equal
 * expressions are the same pointer and fl__sym_eq() is a pointer comparison.
 *
 * Canonical form: terms sorted by monomial, like terms merged, zero terms
 * dropped; a monomial is a sorted list of (atom, exponent>0). Division by a
 * constant that divides every coefficient, or by a monomial that divides every
 * term, is exact and yields a polynomial (so is exact division by any
 * polynomial, found by long division); any other quotient becomes an atom.
 * Results that simplify to a constant are returned as known integers.
 * floor/ceil/mod by a known c > 0 first take out the multiples of c
 * (floor((2*N + 3)/2) = N + 1, ceil((H - 2)/2) = ceil(H/2) - 1) and the gcd
 * of c and the rest (floor(2*H/4) = floor(H/2)), and nested floor (or ceil)
 * by known positive divisors fold: ceil(ceil(H/2)/2) = ceil(H/4). Every
 * rewrite is an identity over all integers (no variable is assumed >= 0).
 * Orders are structural (names, kinds, values), never addresses, so the same
 * expression prints the same text in every run.
 *
 * All arithmetic is overflow-checked: a coefficient or a known result that does
 * not fit int64 yields FL_EOVERFLOW. Any operation with an unknown operand
 * yields unknown (except multiplication by a known 0, which yields 0).
 *
 * Threading: an fl_symtab belongs to one analysis and one thread.
 */
#ifndef FL_SYM_SYM_H
#define FL_SYM_SYM_H

#include "foldline/status.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_expr fl_expr;     /* opaque, immutable, interned */
typedef struct fl_symtab fl_symtab; /* interning table; memory in an arena */

typedef struct fl_sym {
    int64_t k;        /* the value, when e == NULL */
    const fl_expr *e; /* NULL: known k; fl__sym_unknown_expr: unknown; else symbolic */
} fl_sym;

/* The sentinel expression that marks an unknown value. */
extern const fl_expr *const fl__sym_unknown_expr;

/* Creates a table whose memory lives in `a` (freed with the arena). NULL on OOM. */
fl_symtab *fl__symtab_new(fl_arena *a);

static inline fl_sym fl_sym_const(int64_t k) {
    fl_sym s = {k, NULL};
    return s;
}
static inline fl_sym fl_sym_unknown(void) {
    fl_sym s = {0, fl__sym_unknown_expr};
    return s;
}
static inline bool fl_sym_is_known(fl_sym s) {
    return s.e == NULL;
}
static inline bool fl_sym_is_unknown(fl_sym s) {
    return s.e == fl__sym_unknown_expr;
}
/* True for a symbolic expression (neither known nor unknown). */
static inline bool fl_sym_is_symbolic(fl_sym s) {
    return s.e != NULL && s.e != fl__sym_unknown_expr;
}

/* The variable called `name` (interned: the same name gives the same fl_sym).
 * The name is copied. Returns FL_ENOMEM on arena exhaustion, FL_EINVAL when
 * t or name is NULL. */
fl_status fl__sym_var(fl_symtab *t, const char *name, fl_sym *out);

/* Arithmetic. Each returns FL_OK and the canonical result in *out, FL_EOVERFLOW
 * when a coefficient or known result does not fit int64, FL_EINVAL for a
 * division or modulo by a known zero, FL_ENOMEM on arena exhaustion. On error
 * *out is set to unknown. `t` may be NULL when both operands are known. */
fl_status fl__sym_add(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__sym_sub(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__sym_mul(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__sym_neg(fl_symtab *t, fl_sym a, fl_sym *out);

/* A running sum s = 0 + b1 + b2 + ...: each fl__sym_sum_add adds as
 * fl__sym_add(t, s, b) would, with the same partial sums and the same
 * failures, but the partial sums are not interned, only the total
 * (fl__sym_sum_total). The terms live in t's arena. */
typedef struct fl_sym_sum {
    fl_symtab *t;
    struct sym_term *terms; /* the partial sum, canonical */
    size_t n, cap;
    bool unknown;
} fl_sym_sum;

void fl__sym_sum_init(fl_sym_sum *s, fl_symtab *t);
fl_status fl__sym_sum_add(fl_sym_sum *s, fl_sym b);
/* s - b, as fl__sym_sub(t, s, b) would (an unknown b makes s unknown). */
fl_status fl__sym_sum_sub(fl_sym_sum *s, fl_sym b);
fl_status fl__sym_sum_total(const fl_sym_sum *s, fl_sym *out);
/* floor(a / b) with floor rounding for negative known values (Python's //). */
fl_status fl__sym_floordiv(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
/* ceil(a / b). */
fl_status fl__sym_ceildiv(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
/* a mod b with the sign of b (Python's %). */
fl_status fl__sym_mod(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__sym_max(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);
fl_status fl__sym_min(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out);

/* ceil(log2(a)): the least k >= 0 with 2^k >= a, so 0 for every a <= 1 (a
 * binary split's depth over a items: a comparison sort's rounds). A
 * symbolic a gives an atom, printed "ceil(log2(a))", that a binding
 * evaluates exactly (fl__sym_subst). */
fl_status fl__sym_clog2(fl_symtab *t, fl_sym a, fl_sym *out);

/* a / b when it is exact: both known and b divides a, or b (known or a
 * monomial) divides every term of a, or b is a polynomial factor of a (long
 * division). Sets *exact to false and *out to floor(a / b) otherwise. */
fl_status fl__sym_div(fl_symtab *t, fl_sym a, fl_sym b, fl_sym *out, bool *exact);

/* Structural equality of canonical forms (known == known by value, symbolic by
 * pointer). Unknown is equal to nothing, itself included. */
bool fl__sym_eq(fl_sym a, fl_sym b);

/* A hash of a known or symbolic value that depends on its canonical form
 * only, never on where it is in memory (equal values hash alike; the same
 * in every run). */
uint64_t fl__sym_hash(fl_sym a);

/* Substitutes known values for variables. `names`/`values` hold n bindings
 * (the first binding of a name wins); variables not named stay symbolic. The
 * result is re-canonicalised through atoms (ceil(H/2) at H=255 is 128) and is
 * a known integer when every variable was bound; an expression none of whose
 * variables is bound comes back as the same pointer. FL_EOVERFLOW when a value
 * does not fit int64, FL_EINVAL when a divisor evaluates to 0 (or names/values
 * is NULL with n > 0); *out is unknown on error. Known and unknown s are
 * returned as they are. `t` may be NULL. */
fl_status fl__sym_subst(fl_symtab *t, fl_sym s, size_t n, const char *const *names,
                        const int64_t *values, fl_sym *out);

/* fl__sym_subst binding every variable of symbolic s to 1, in one pass over
 * s's terms, when every atom of s is a variable and s has at most `max`
 * variable occurrences (a variable counted once per term it occurs in):
 * FL_OK and the value (the sum of the coefficients, added in term order as
 * fl__sym_subst adds them), or FL_EOVERFLOW when that sum overflows.
 * FL_ENOTFOUND otherwise (known, unknown, another atom, more occurrences):
 * then substitute. */
fl_status fl__sym_at_ones(fl_sym s, size_t max, int64_t *out);

/* Substitutes expressions for variables: as fl__sym_subst, but each bound
 * variable is replaced by values[i], a known, unknown or symbolic fl_sym of
 * the same table as s. The substitution is simultaneous (a value is not
 * substituted into again: x -> x + 1 in x*y gives x*y + y) and the result
 * is canonical, atoms re-simplified with their new operands
 * (ceil(H/2) with H -> 2*N is N). A bound variable that occurs in s and
 * whose value is unknown makes the result unknown. FL_EOVERFLOW, FL_EINVAL
 * (a divisor becomes 0; a value or t from another table; names/values NULL
 * with n > 0) as fl__sym_subst; *out is unknown on error. `t` may be NULL. */
fl_status fl__sym_subst_syms(fl_symtab *t, fl_sym s, size_t n, const char *const *names,
                             const fl_sym *values, fl_sym *out);

/* ------------------------------------------------------------------------- */
/* Equations between variables (sym_alias.c)                                  */
/*                                                                            */
/* Shape inference proves some dimensions equal: the non-concatenated dims   */
/* of a Concat, a MatMul's inner dims, a convolution's input depth and its   */
/* filter's. Two variables found equal become one (the one created first    */
/* represents both, so the input met first names the symbol): the driver     */
/* (shape/infer.c) infers again with the alias replaced at the inputs, so    */
/* the totals carry one symbol where the graph has one size. A variable      */
/* found equal to a known value is "fixed": that checks bindings and is      */
/* reported, but is not substituted (sym_alias.c says why).                  */
/* ------------------------------------------------------------------------- */

/* The variable's name when s is exactly one variable (1*v), else NULL. */
const char *fl__sym_var_name(fl_sym s);

/* Records that a equals b because of `why` (copied: a node's name). Only an
 * equation with a variable on one side (after resolving both sides) is
 * recorded: variable = variable (the later one becomes an alias of the
 * earlier) or variable = known value (the variable is fixed; a second,
 * different value for it is not recorded: the binding check reports such
 * contradictions). Returns true when something new was recorded; false when
 * it adds nothing, or on OOM with *oom set. */
bool fl__sym_alias(fl_symtab *t, fl_sym a, fl_sym b, const char *why, bool *oom);

/* s with its alias chain followed: the representative variable; s itself
 * when it is not an aliased variable. */
fl_sym fl__sym_resolve(fl_sym s);

/* How many equations fl__sym_alias has recorded in t; how many of them
 * merged two variables. */
size_t fl__sym_n_aliases(const fl_symtab *t);
size_t fl__sym_n_merges(const fl_symtab *t);

/* True, with *k, when the variable s (or its representative) is fixed. */
bool fl__sym_fixed(fl_sym s, int64_t *k);

/* Equation i (recording order): the aliased variable's name, what it equals
 * (resolved now: a known value or the representative variable) and why. */
void fl__sym_alias_at(const fl_symtab *t, size_t i, const char **name, fl_sym *value,
                      const char **why);

/* ------------------------------------------------------------------------- */
/* Bounds over sizes (sym_sign.c)                                            */
/* ------------------------------------------------------------------------- */

/* fl__sym_var for a variable that is a size (a tensor's dim): never negative.
 * Only fl__sym_lower_bound reads that; the canonical form does not. */
fl_status fl__sym_size_var(fl_symtab *t, const char *name, fl_sym *out);

/* A dim's name that is an expression of other dims ("past_sequence_length +
 * sequence_length", "past + 1": names and integers joined by " + ", " - ",
 * " * " with a space each side, and parentheses; sym_parse.c): FL_OK with
 * *out, its names size variables. FL_ENOTFOUND when the name is not such an
 * expression (read it as one name); FL_ENOMEM. */
fl_status fl__sym_parse_dim(fl_symtab *t, const char *text, fl_sym *out);

/* 1 when s >= 1 for every value its variables can take, else 0 when s >= 0,
 * else -1 (not known: a variable that is not a size, a negative term). */
int fl__sym_lower_bound(fl_sym s);

/* Writes the canonical text of s into buf (always NUL-terminated when size>0)
 * and returns the length it needed (like snprintf). Known: "42"; unknown: "?".
 * Symbolic: terms highest total degree first (ties: lexicographic in atom
 * order), joined by " + " / " - "; a term is its coefficient first (omitted
 * when 1, "-" when -1 on the first term), then its factors in atom order,
 * joined by "*", powers as "N^2". Atom order: variables by name (strcmp),
 * then floor, ceil, mod, max, min, clog2 (by their arguments). Atoms print as
 * "floor(a/b)", "ceil(a/b)", "mod(a, b)", "max(a, b)", "min(a, b)",
 * "ceil(log2(a))"; a floor or
 * ceil operand that is a sum is parenthesised, as is a divisor that is not a
 * single factor: "ceil((H + 1)/2)", "floor(N/(2*H))". Examples:
 * "2*H*N*W + 6*N", "96*ceil(H/2)*ceil(W/2)", "N^2 - 3*x + 1",
 * "ceil(H/2) - 1". Variable names print as they are. Deterministic: the same
 * expression always prints the same text. */
size_t fl__sym_format(fl_sym s, char *buf, size_t size);

/* As fl__sym_format, into arena memory; NULL on OOM. */
char *fl__sym_to_str(fl_arena *a, fl_sym s);

/* Calls fn(name, ctx) once for every distinct variable occurring in s (inside
 * atoms too), in increasing strcmp order of the names. Nothing for known or
 * unknown s. Allocates nothing. */
void fl__sym_vars(fl_sym s, void (*fn)(const char *name, void *ctx), void *ctx);

#endif
