/*
 * test_sym.c - unit tests for the symbolic integers of src/sym (sym.h):
 * the known fast path and overflow, floor/ceil/mod semantics, interning,
 * exact and inexact division, conv/pool/reshape shape formulas checked by
 * substitution against direct computation, formatting, variable listing,
 * substitution, unknowns and division by zero.
 */
#include "sym/sym.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_arena arena;
static fl_symtab *T;

static int setup(void **state) {
    (void)state;
    fl__arena_init(&arena, 0);
    T = fl__symtab_new(&arena);
    return T ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    fl__arena_free(&arena);
    T = NULL;
    return 0;
}

/* ---- helpers: each asserts success ---- */

static fl_sym K(int64_t k) {
    return fl_sym_const(k);
}

static fl_sym V(const char *name) {
    fl_sym s;
    assert_int_equal(fl__sym_var(T, name, &s), FL_OK);
    assert_true(fl_sym_is_symbolic(s));
    return s;
}

static fl_sym ADD(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_add(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym SUB(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_sub(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym MUL(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_mul(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym FDIV(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_floordiv(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym CDIV(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_ceildiv(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym MOD(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_mod(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym MAX(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_max(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym MIN(fl_sym a, fl_sym b) {
    fl_sym r;
    assert_int_equal(fl__sym_min(T, a, b, &r), FL_OK);
    return r;
}

static fl_sym DIV(fl_sym a, fl_sym b, bool want_exact) {
    fl_sym r;
    bool exact = !want_exact;
    assert_int_equal(fl__sym_div(T, a, b, &r, &exact), FL_OK);
    assert_int_equal(exact, want_exact);
    return r;
}

static fl_sym SUBST(fl_sym s, size_t n, const char *const *names, const int64_t *values) {
    fl_sym r;
    assert_int_equal(fl__sym_subst(T, s, n, names, values, &r), FL_OK);
    return r;
}

static int64_t EVAL1(fl_sym s, const char *name, int64_t v) {
    fl_sym r = SUBST(s, 1, &name, &v);
    assert_true(fl_sym_is_known(r));
    return r.k;
}

static void assert_fmt(fl_sym s, const char *want) {
    char buf[512];
    size_t n = fl__sym_format(s, buf, sizeof(buf));
    if (strcmp(buf, want) != 0) {
        print_error("format: got \"%s\", want \"%s\"\n", buf, want);
    }
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    /* fl__sym_to_str writes a*x + b straight; the same text either way */
    char *str = fl__sym_to_str(&arena, s);
    assert_non_null(str);
    assert_string_equal(str, want);
}

static void assert_known(fl_sym s, int64_t k) {
    assert_true(fl_sym_is_known(s));
    assert_int_equal(s.k, k);
}

static void assert_same(fl_sym a, fl_sym b) {
    assert_true(fl__sym_eq(a, b));
    assert_ptr_equal(a.e, b.e);
}

/* Python-style reference arithmetic. */
static int64_t ref_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ref_ceildiv(int64_t a, int64_t b) {
    return -ref_floordiv(-a, b);
}

static int64_t ref_mod(int64_t a, int64_t b) {
    return a - b * ref_floordiv(a, b);
}

/* ---- known values ---- */

static void test_known_fast_path(void **state) {
    (void)state;
    fl_sym r;
    /* No table needed for known operands. */
    assert_int_equal(fl__sym_add(NULL, K(2), K(3), &r), FL_OK);
    assert_known(r, 5);
    assert_int_equal(fl__sym_sub(NULL, K(2), K(3), &r), FL_OK);
    assert_known(r, -1);
    assert_int_equal(fl__sym_mul(NULL, K(-4), K(3), &r), FL_OK);
    assert_known(r, -12);
    assert_int_equal(fl__sym_neg(NULL, K(7), &r), FL_OK);
    assert_known(r, -7);
    assert_int_equal(fl__sym_max(NULL, K(7), K(-9), &r), FL_OK);
    assert_known(r, 7);
    assert_int_equal(fl__sym_min(NULL, K(7), K(-9), &r), FL_OK);
    assert_known(r, -9);
    assert_true(fl__sym_eq(K(5), K(5)));
    assert_false(fl__sym_eq(K(5), K(6)));
    size_t before = arena.used;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(fl__sym_mul(T, K(i), K(i + 1), &r), FL_OK);
        assert_int_equal(fl__sym_add(T, r, K(1), &r), FL_OK);
        assert_int_equal(fl__sym_ceildiv(T, r, K(3), &r), FL_OK);
    }
    assert_int_equal(arena.used, before); /* known values never allocate */
}

static void test_known_overflow(void **state) {
    (void)state;
    fl_sym r = K(1);
    assert_int_equal(fl__sym_add(NULL, K(INT64_MAX), K(1), &r), FL_EOVERFLOW);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_sub(NULL, K(INT64_MIN), K(1), &r), FL_EOVERFLOW);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_mul(NULL, K(INT64_MAX / 2 + 1), K(2), &r), FL_EOVERFLOW);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_mul(NULL, K(INT64_C(1) << 32), K(INT64_C(1) << 30), &r), FL_OK);
    assert_known(r, INT64_C(1) << 62);
    assert_int_equal(fl__sym_mul(NULL, K(-(INT64_C(1) << 32)), K(INT64_C(1) << 31), &r), FL_OK);
    assert_known(r, INT64_MIN);
    assert_int_equal(fl__sym_mul(NULL, K(INT64_C(1) << 32), K(INT64_C(1) << 31), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_neg(NULL, K(INT64_MIN), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_floordiv(NULL, K(INT64_MIN), K(-1), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_ceildiv(NULL, K(INT64_MIN), K(-1), &r), FL_EOVERFLOW);
    bool exact;
    assert_int_equal(fl__sym_div(NULL, K(INT64_MIN), K(-1), &r, &exact), FL_EOVERFLOW);
    assert_int_equal(fl__sym_mod(NULL, K(INT64_MIN), K(-1), &r), FL_OK);
    assert_known(r, 0);
    assert_int_equal(fl__sym_add(NULL, K(INT64_MAX), K(INT64_MIN), &r), FL_OK);
    assert_known(r, -1);
}

/* A running sum (fl__sym_sum_*) gives what fl__sym_add gives term by term:
 * the same canonical result, unknown absorbing everything after it, and
 * the same overflow failures. */
static void test_running_sum(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), r;
    fl_sym_sum sum;
    fl__sym_sum_init(&sum, T);
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_known(r, 0); /* nothing added */

    /* 5 + 4N - 5 - 4N = 0 */
    fl_sym cancel[] = {K(5), MUL(K(4), N), K(-5), MUL(K(-4), N)};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(fl__sym_sum_add(&sum, cancel[i]), FL_OK);
    }
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_known(r, 0);

    /* N + H + N*H + 7 + N = 2N + H + NH + 7: 33 at N=3, H=5 */
    fl__sym_sum_init(&sum, T);
    fl_sym terms[] = {N, H, MUL(N, H), K(7), N, K(0)};
    fl_sym chain = K(0);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(fl__sym_sum_add(&sum, terms[i]), FL_OK);
        chain = ADD(chain, terms[i]);
    }
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_same(r, chain);
    const char *names[] = {"N", "H"};
    int64_t values[] = {3, 5};
    assert_known(SUBST(r, 2, names, values), 33);

    /* more terms than any first capacity: v0 + ... + v39, 40 at all ones */
    fl__sym_sum_init(&sum, T);
    chain = K(0);
    const char *vn[40];
    int64_t ones[40];
    char buf[40][8];
    for (int i = 0; i < 40; i++) {
        snprintf(buf[i], sizeof buf[i], "v%d", i);
        vn[i] = buf[i];
        ones[i] = 1;
        assert_int_equal(fl__sym_sum_add(&sum, V(buf[i])), FL_OK);
        chain = ADD(chain, V(buf[i]));
    }
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_same(r, chain);
    assert_known(SUBST(r, 40, vn, ones), 40);

    /* overflow where fl__sym_add overflows: known and symbolic */
    fl__sym_sum_init(&sum, T);
    assert_int_equal(fl__sym_sum_add(&sum, K(INT64_MAX)), FL_OK);
    assert_int_equal(fl__sym_sum_add(&sum, K(1)), FL_EOVERFLOW);
    assert_int_equal(fl__sym_add(T, K(INT64_MAX), K(1), &r), FL_EOVERFLOW);
    fl__sym_sum_init(&sum, T);
    assert_int_equal(fl__sym_sum_add(&sum, MUL(K(INT64_MAX), N)), FL_OK);
    assert_int_equal(fl__sym_sum_add(&sum, N), FL_EOVERFLOW);
    assert_int_equal(fl__sym_add(T, MUL(K(INT64_MAX), N), N, &r), FL_EOVERFLOW);

    /* taking away (fl__sym_sum_sub) as fl__sym_sub: 3N + NH + 7 - N - NH -
     * 7 - H = 2N - H, the terms in place or merged; overflow as it does */
    fl__sym_sum_init(&sum, T);
    fl_sym adds[] = {MUL(K(3), N), MUL(N, H), K(7)}, subs[] = {N, MUL(N, H), K(7), H};
    chain = K(0);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(fl__sym_sum_add(&sum, adds[i]), FL_OK);
        chain = ADD(chain, adds[i]);
    }
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(fl__sym_sum_sub(&sum, subs[i]), FL_OK);
        assert_int_equal(fl__sym_sub(T, chain, subs[i], &chain), FL_OK);
    }
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_same(r, chain);
    assert_known(SUBST(r, 2, names, values), 2 * 3 - 5);
    fl__sym_sum_init(&sum, T);
    assert_int_equal(fl__sym_sum_add(&sum, MUL(K(INT64_MIN + 1), N)), FL_OK);
    assert_int_equal(fl__sym_sum_sub(&sum, MUL(K(2), N)), FL_EOVERFLOW);
    assert_int_equal(fl__sym_sub(T, MUL(K(INT64_MIN + 1), N), MUL(K(2), N), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_sum_sub(&sum, MUL(K(-1), N)), FL_OK); /* s unchanged above */
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_same(r, MUL(K(INT64_MIN + 2), N));

    /* unknown absorbs what follows, an overflowing term too */
    fl__sym_sum_init(&sum, T);
    assert_int_equal(fl__sym_sum_add(&sum, N), FL_OK);
    assert_int_equal(fl__sym_sum_add(&sum, fl_sym_unknown()), FL_OK);
    assert_int_equal(fl__sym_sum_add(&sum, K(INT64_MAX)), FL_OK);
    assert_int_equal(fl__sym_sum_add(&sum, K(INT64_MAX)), FL_OK);
    assert_int_equal(fl__sym_sum_total(&sum, &r), FL_OK);
    assert_true(fl_sym_is_unknown(r));
}

static void test_known_div_semantics(void **state) {
    (void)state;
    static const int64_t vals[] = {-9, -7, -6, -1, 0, 1, 5, 6, 7, 9, INT64_MAX, INT64_MIN + 1};
    static const int64_t divs[] = {-4, -3, -2, -1, 1, 2, 3, 4, INT64_MAX};
    fl_sym r;
    assert_int_equal(fl__sym_floordiv(NULL, K(-7), K(2), &r), FL_OK);
    assert_known(r, -4);
    assert_int_equal(fl__sym_ceildiv(NULL, K(-7), K(2), &r), FL_OK);
    assert_known(r, -3);
    assert_int_equal(fl__sym_mod(NULL, K(-7), K(2), &r), FL_OK);
    assert_known(r, 1);
    assert_int_equal(fl__sym_floordiv(NULL, K(7), K(-2), &r), FL_OK);
    assert_known(r, -4);
    assert_int_equal(fl__sym_ceildiv(NULL, K(7), K(-2), &r), FL_OK);
    assert_known(r, -3);
    assert_int_equal(fl__sym_mod(NULL, K(7), K(-2), &r), FL_OK);
    assert_known(r, -1);
    assert_int_equal(fl__sym_mod(NULL, K(-7), K(-2), &r), FL_OK);
    assert_known(r, -1);
    assert_int_equal(fl__sym_ceildiv(NULL, K(255), K(2), &r), FL_OK);
    assert_known(r, 128);
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        for (size_t j = 0; j < sizeof(divs) / sizeof(divs[0]); j++) {
            int64_t a = vals[i], b = divs[j];
            assert_int_equal(fl__sym_floordiv(NULL, K(a), K(b), &r), FL_OK);
            int64_t q = r.k;
            assert_int_equal(fl__sym_mod(NULL, K(a), K(b), &r), FL_OK);
            int64_t m = r.k;
            /* a == q*b + m with m in [0, b) or (b, 0] */
            assert_true(b > 0 ? (m >= 0 && m < b) : (m <= 0 && m > b));
            assert_true((__int128)q * b + m == a);
            assert_int_equal(fl__sym_ceildiv(NULL, K(a), K(b), &r), FL_OK);
            assert_int_equal(r.k, m == 0 ? q : q + 1);
            bool exact;
            assert_int_equal(fl__sym_div(NULL, K(a), K(b), &r, &exact), FL_OK);
            assert_int_equal(r.k, q);
            assert_int_equal(exact, m == 0);
        }
    }
}

static void test_division_by_zero(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), r;
    bool exact;
    assert_int_equal(fl__sym_floordiv(NULL, K(5), K(0), &r), FL_EINVAL);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_ceildiv(NULL, K(5), K(0), &r), FL_EINVAL);
    assert_int_equal(fl__sym_mod(NULL, K(5), K(0), &r), FL_EINVAL);
    assert_int_equal(fl__sym_div(NULL, K(5), K(0), &r, &exact), FL_EINVAL);
    assert_int_equal(fl__sym_floordiv(T, N, K(0), &r), FL_EINVAL);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_ceildiv(T, N, K(0), &r), FL_EINVAL);
    assert_int_equal(fl__sym_mod(T, N, K(0), &r), FL_EINVAL);
    assert_int_equal(fl__sym_div(T, N, K(0), &r, &exact), FL_EINVAL);
    assert_int_equal(fl__sym_floordiv(T, fl_sym_unknown(), K(0), &r), FL_EINVAL);
    /* A symbolic divisor that becomes zero on substitution. */
    fl_sym q = FDIV(N, H);
    assert_fmt(q, "floor(N/H)");
    const char *names[] = {"N", "H"};
    int64_t vals[] = {7, 0};
    assert_int_equal(fl__sym_subst(T, q, 2, names, vals, &r), FL_EINVAL);
    assert_true(fl_sym_is_unknown(r));
    vals[1] = 2;
    assert_known(SUBST(q, 2, names, vals), 3);
}

/* ---- canonical form and interning ---- */

static void test_interning(void **state) {
    (void)state;
    fl_sym N = V("N"), N2 = V("N");
    assert_same(N, N2);
    char name[] = "H";
    fl_sym H = V(name);
    name[0] = 'X'; /* the name was copied */
    assert_fmt(H, "H");
    fl_sym sq = MUL(ADD(N, K(1)), ADD(N, K(1)));
    fl_sym ex = ADD(ADD(MUL(N, N), MUL(K(2), N)), K(1));
    assert_same(sq, ex);
    assert_fmt(sq, "N^2 + 2*N + 1");
    /* Commutativity and associativity. */
    assert_same(ADD(N, H), ADD(H, N));
    assert_same(MUL(MUL(N, H), K(3)), MUL(K(3), MUL(H, N)));
    assert_same(ADD(ADD(N, H), K(2)), ADD(N, ADD(K(2), H)));
    /* Distributivity. */
    assert_same(MUL(ADD(N, H), ADD(N, K(-1))), SUB(ADD(MUL(N, N), MUL(H, N)), ADD(N, H)));
    /* Cancellation collapses to known. */
    assert_known(SUB(ADD(N, K(1)), ADD(N, K(1))), 0);
    assert_known(SUB(ADD(N, K(5)), N), 5);
    assert_known(SUB(sq, ADD(MUL(N, N), MUL(K(2), N))), 1);
    assert_known(MUL(SUB(N, N), H), 0);
    fl_sym r;
    assert_int_equal(fl__sym_neg(T, N, &r), FL_OK);
    assert_fmt(r, "-N");
    assert_known(ADD(r, N), 0);
    /* Atoms are interned too. */
    assert_same(CDIV(H, K(2)), CDIV(H, K(2)));
    assert_same(MUL(CDIV(H, K(2)), N), MUL(N, CDIV(H, K(2))));
    assert_same(MAX(N, H), MAX(H, N));
    assert_same(MIN(N, H), MIN(H, N));
    assert_false(fl__sym_eq(MAX(N, H), MIN(N, H)));
    assert_false(fl__sym_eq(CDIV(H, K(2)), FDIV(H, K(2))));
    /* Multiplying by 1 and adding 0 return the operand itself. */
    assert_same(MUL(sq, K(1)), sq);
    assert_same(ADD(K(0), sq), sq);
}

static void test_many_vars(void **state) {
    (void)state;
    /* Enough nodes to grow the table many times. */
    fl_sym sum = K(0);
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "v%d", i);
        sum = ADD(sum, MUL(V(name), K(i + 1)));
    }
    fl_sym again = K(0);
    for (int i = 999; i >= 0; i--) {
        snprintf(name, sizeof(name), "v%d", i);
        again = ADD(MUL(K(i + 1), V(name)), again);
    }
    assert_same(sum, again);
    const char *n1[] = {"v0", "v999"};
    int64_t v1[] = {10, 1};
    fl_sym part = SUBST(sum, 2, n1, v1);
    assert_true(fl_sym_is_symbolic(part));
    /* sum - part = v0 + 1000*v999 - (10 + 1000) */
    assert_same(SUB(sum, part), SUB(ADD(V("v0"), MUL(K(1000), V("v999"))), K(1010)));
}

/* ---- division ---- */

static void test_exact_division(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W");
    fl_sym a = MUL(MUL(K(6), N), H);
    fl_sym b = MUL(K(3), H);
    assert_same(DIV(a, b, true), MUL(K(2), N));
    assert_same(FDIV(a, b), MUL(K(2), N));
    assert_same(CDIV(a, b), MUL(K(2), N));
    assert_known(MOD(a, b), 0);
    /* Division by a constant dividing every coefficient. */
    assert_same(DIV(ADD(MUL(K(4), N), K(8)), K(4), true), ADD(N, K(2)));
    assert_same(DIV(ADD(MUL(K(4), N), K(8)), K(-4), true), SUB(K(-2), N));
    /* Division by a polynomial (long division). */
    fl_sym h1 = ADD(H, K(1));
    assert_same(DIV(MUL(MUL(N, h1), W), h1, true), MUL(N, W));
    assert_same(DIV(SUB(MUL(N, N), K(1)), SUB(N, K(1)), true), ADD(N, K(1)));
    fl_sym p = ADD(ADD(MUL(N, H), W), K(3));
    fl_sym q = SUB(MUL(H, H), MUL(K(2), W));
    assert_same(DIV(MUL(p, q), q, true), p);
    assert_same(DIV(MUL(p, q), p, true), q);
    assert_same(DIV(N, N, true), K(1));
    assert_known(DIV(K(0), N, true), 0);
    /* Negative leading coefficient in the divisor. */
    assert_same(DIV(MUL(p, SUB(K(0), q)), SUB(K(0), q), true), p);
    /* The table may be omitted: it is found through the operands. */
    fl_sym r;
    bool exact = false;
    assert_int_equal(fl__sym_div(NULL, MUL(p, q), q, &r, &exact), FL_OK);
    assert_true(exact);
    assert_same(r, p);
    assert_int_equal(fl__sym_add(NULL, K(1), N, &r), FL_OK);
    assert_same(r, ADD(N, K(1)));
    assert_int_equal(fl__sym_ceildiv(NULL, H, K(2), &r), FL_OK);
    assert_same(r, CDIV(H, K(2)));
    assert_int_equal(
        fl__sym_subst(NULL, r, 1, (const char *const[]){"H"}, (const int64_t[]){5}, &r), FL_OK);
    assert_known(r, 3);
    assert_int_equal(fl__sym_var(T, NULL, &r), FL_EINVAL);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_var(NULL, "N", &r), FL_EINVAL);
}

static void test_nonexact_division(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W");
    fl_sym r = DIV(N, K(2), false);
    assert_fmt(r, "floor(N/2)");
    assert_same(r, FDIV(N, K(2)));
    assert_fmt(CDIV(H, K(2)), "ceil(H/2)");
    assert_same(CDIV(H, K(1)), H);
    assert_same(FDIV(H, K(1)), H);
    assert_same(FDIV(H, K(-1)), SUB(K(0), H));
    assert_known(MOD(H, K(1)), 0);
    /* Parts divisible by the divisor leave the atom. */
    assert_same(FDIV(ADD(MUL(K(2), N), K(1)), K(2)), N);
    assert_same(CDIV(ADD(MUL(K(2), N), K(1)), K(2)), ADD(N, K(1)));
    assert_known(MOD(ADD(MUL(K(2), N), K(3)), K(2)), 1);
    assert_fmt(CDIV(SUB(H, K(2)), K(2)), "ceil(H/2) - 1");
    assert_fmt(FDIV(MUL(K(6), N), K(4)), "N + floor(N/2)");
    assert_same(FDIV(MUL(K(2), H), K(4)), FDIV(H, K(2)));
    assert_fmt(MOD(MUL(K(2), H), K(4)), "2*mod(H, 2)");
    assert_fmt(MOD(H, K(-3)), "-mod(2*H, 3)");
    assert_fmt(FDIV(H, K(-3)), "-H + floor(2*H/3)");
    /* Symbolic divisors. */
    r = DIV(MUL(N, H), W, false);
    assert_fmt(r, "floor(H*N/W)");
    assert_same(FDIV(MUL(K(2), N), MUL(K(2), H)), FDIV(N, H));
    assert_same(FDIV(N, SUB(K(0), H)), FDIV(SUB(K(0), N), H));
    assert_fmt(FDIV(N, MUL(K(2), H)), "floor(N/(2*H))");
    assert_fmt(FDIV(K(-3), H), "floor(-3/H)");
    assert_fmt(MOD(MUL(K(4), N), MUL(K(6), H)), "2*mod(2*N, 3*H)");
    assert_fmt(MOD(N, SUB(K(0), H)), "-mod(-N, H)");
    /* Nested ceil/floor with known positive divisors fold. */
    assert_same(CDIV(CDIV(H, K(2)), K(2)), CDIV(H, K(4)));
    assert_same(FDIV(FDIV(H, K(2)), K(3)), FDIV(H, K(6)));
    assert_same(CDIV(CDIV(CDIV(H, K(2)), K(2)), K(2)), CDIV(H, K(8)));
    assert_same(FDIV(ADD(FDIV(H, K(2)), K(1)), K(2)), FDIV(ADD(H, K(2)), K(4)));
    /* Mixed kinds stay nested. */
    assert_fmt(CDIV(FDIV(H, K(2)), K(2)), "ceil(floor(H/2)/2)");
    /* Every rewrite above is an identity over all integers. */
    static const char *const names[] = {"N", "H", "W"};
    for (int64_t h = -30; h <= 30; h++) {
        for (int64_t n = -7; n <= 7; n++) {
            int64_t vals[] = {n, h, 5};
            fl_sym e = SUBST(FDIV(MUL(K(6), N), K(4)), 3, names, vals);
            assert_known(e, ref_floordiv(6 * n, 4));
            assert_known(SUBST(MOD(H, K(-3)), 3, names, vals), ref_mod(h, -3));
            assert_known(SUBST(FDIV(H, K(-3)), 3, names, vals), ref_floordiv(h, -3));
            assert_known(SUBST(CDIV(H, K(-3)), 3, names, vals), ref_ceildiv(h, -3));
            assert_known(SUBST(CDIV(CDIV(H, K(3)), K(2)), 3, names, vals),
                         ref_ceildiv(ref_ceildiv(h, 3), 2));
            assert_known(SUBST(FDIV(ADD(FDIV(H, K(2)), K(1)), K(3)), 3, names, vals),
                         ref_floordiv(ref_floordiv(h, 2) + 1, 3));
            if (h != 0) {
                assert_known(SUBST(MOD(MUL(K(4), N), MUL(K(6), H)), 3, names, vals),
                             ref_mod(4 * n, 6 * h));
                assert_known(SUBST(FDIV(N, SUB(K(0), H)), 3, names, vals), ref_floordiv(n, -h));
                assert_known(SUBST(CDIV(MUL(K(2), N), MUL(K(-4), H)), 3, names, vals),
                             ref_ceildiv(2 * n, -4 * h));
                assert_known(SUBST(MOD(N, SUB(K(0), H)), 3, names, vals), ref_mod(n, -h));
            }
        }
    }
}

static void test_reshape(void **state) {
    (void)state;
    fl_sym N = V("x.0"), L = V("x.1"), H = V("image_tensor.1"), W = V("image_tensor.2");
    /* [N, 7, 7, 512] -> [-1, 25088] */
    fl_sym in[] = {N, K(7), K(7), K(512)};
    fl_sym total = K(1);
    for (int i = 0; i < 4; i++) {
        total = MUL(total, in[i]);
    }
    assert_fmt(total, "25088*x.0");
    assert_same(DIV(total, K(25088), true), N);
    /* [N, L, 4] -> [-1, 4] and -> [N, -1] */
    total = MUL(MUL(N, L), K(4));
    assert_same(DIV(total, K(4), true), MUL(N, L));
    assert_same(DIV(total, N, true), MUL(K(4), L));
    /* [N, H, W, 3] -> [N, -1, 3]: the known product of the others is N*3. */
    total = MUL(MUL(MUL(N, H), W), K(3));
    fl_sym r = DIV(total, MUL(N, K(3)), true);
    assert_same(r, MUL(H, W));
    assert_fmt(r, "image_tensor.1*image_tensor.2");
    /* [N, H+1, W] -> [-1, (H+1)*W] */
    fl_sym h1 = ADD(H, K(1));
    total = MUL(MUL(N, h1), W);
    assert_fmt(total, "image_tensor.1*image_tensor.2*x.0 + image_tensor.2*x.0");
    assert_same(DIV(total, MUL(h1, W), true), N);
    /* Not divisible: 3*N*H / (2*H) */
    r = DIV(MUL(MUL(K(3), N), H), MUL(K(2), H), false);
    assert_fmt(r, "floor(3*image_tensor.1*x.0/(2*image_tensor.1))");
    const char *names[] = {"x.0", "image_tensor.1"};
    int64_t vals[] = {5, 4};
    assert_known(SUBST(r, 2, names, vals), 7);
}

/* SAME: ceil(H/s); VALID: ceil((H-K+1)/s) = floor((H-K)/s) + 1. */
static void test_conv_formulas(void **state) {
    (void)state;
    fl_sym H = V("H"), W = V("W"), N = V("N");
    for (int64_t s = 1; s <= 3; s++) {
        for (int64_t k = 1; k <= 7; k++) {
            fl_sym same = CDIV(H, K(s));
            fl_sym valid1 = CDIV(ADD(SUB(H, K(k)), K(1)), K(s));
            fl_sym valid2 = ADD(FDIV(SUB(H, K(k)), K(s)), K(1));
            /* a FLOP count on an H x W SAME output: 2*N*Ho*Wo*k*k*Cin*Cout */
            fl_sym wo = CDIV(W, K(s));
            fl_sym flops = MUL(MUL(MUL(MUL(K(2), N), same), wo), K(k * k * 3 * 32));
            fl_sym pooled = CDIV(same, K(2)); /* a following 2x2/2 SAME pool */
            for (int64_t h = 1; h <= 300; h++) {
                int64_t want_same = (h + s - 1) / s;
                int64_t want_valid = ref_floordiv(h - k, s) + 1;
                assert_int_equal(EVAL1(same, "H", h), want_same);
                assert_int_equal(EVAL1(valid1, "H", h), want_valid);
                assert_int_equal(EVAL1(valid2, "H", h), want_valid);
                if (h >= k) {
                    assert_int_equal(want_valid, (h - k) / s + 1);
                }
                assert_int_equal(EVAL1(pooled, "H", h), (want_same + 1) / 2);
                const char *names[] = {"N", "H", "W"};
                int64_t w = 301 - h;
                int64_t vals[] = {h % 4 + 1, h, w};
                fl_sym f = SUBST(flops, 3, names, vals);
                assert_known(f, 2 * vals[0] * want_same * ((w + s - 1) / s) * k * k * 3 * 32);
            }
        }
    }
    /* The strings a user sees. */
    assert_fmt(CDIV(SUB(H, K(2)), K(2)), "ceil(H/2) - 1");
    assert_fmt(ADD(FDIV(SUB(H, K(3)), K(2)), K(1)), "floor((H + 1)/2) - 1");
    assert_fmt(CDIV(ADD(H, K(1)), K(2)), "ceil((H + 1)/2)");
    fl_sym ho = CDIV(H, K(2)), wo = CDIV(W, K(2));
    fl_sym fl = ADD(MUL(MUL(MUL(MUL(K(2), N), ho), wo), K(864)), MUL(K(6), N));
    assert_fmt(fl, "1728*N*ceil(H/2)*ceil(W/2) + 6*N");
}

/* ---- formatting ---- */

static void test_format(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W"), x = V("x");
    assert_fmt(K(42), "42");
    assert_fmt(K(-42), "-42");
    assert_fmt(K(INT64_MIN), "-9223372036854775808");
    assert_fmt(fl_sym_unknown(), "?");
    assert_fmt(N, "N");
    fl_sym e = ADD(MUL(MUL(MUL(K(2), N), H), W), MUL(K(6), N));
    assert_fmt(e, "2*H*N*W + 6*N");
    assert_fmt(MUL(MUL(CDIV(H, K(2)), CDIV(W, K(2))), K(96)), "96*ceil(H/2)*ceil(W/2)");
    assert_fmt(SUB(N, MUL(K(3), x)), "N - 3*x");
    assert_fmt(SUB(K(3), N), "-N + 3");
    assert_fmt(SUB(K(0), MUL(K(3), x)), "-3*x");
    assert_fmt(SUB(MUL(N, N), N), "N^2 - N");
    assert_fmt(MUL(MUL(N, N), MUL(H, MUL(N, H))), "H^2*N^3");
    assert_fmt(ADD(ADD(MUL(H, H), MUL(N, N)), MUL(H, N)), "H^2 + H*N + N^2");
    assert_fmt(MUL(K(INT64_MIN), N), "-9223372036854775808*N");
    assert_fmt(MAX(W, H), "max(H, W)");
    assert_fmt(MIN(ADD(H, K(1)), K(7)), "min(7, H + 1)");
    assert_fmt(MOD(N, K(3)), "mod(N, 3)");
    assert_fmt(FDIV(ADD(N, H), ADD(W, K(2))), "floor((H + N)/(W + 2))");
    assert_fmt(CDIV(N, MUL(H, H)), "ceil(N/H^2)");
    assert_fmt(MUL(CDIV(H, K(2)), CDIV(H, K(2))), "ceil(H/2)^2");
    /* atom order: variables by name, then floor, ceil, mod, max, min */
    fl_sym mixed = MUL(MUL(MUL(MIN(H, W), MAX(H, W)), MUL(MOD(H, K(3)), CDIV(H, K(2)))),
                       MUL(FDIV(H, K(2)), MUL(x, N)));
    assert_fmt(mixed, "N*x*floor(H/2)*ceil(H/2)*mod(H, 3)*max(H, W)*min(H, W)");
    fl_sym v1 = V("image_tensor.1"), v0 = V("x.0");
    assert_fmt(MUL(v0, v1), "image_tensor.1*x.0");
    /* Truncation behaves like snprintf. */
    char buf[5];
    assert_int_equal(fl__sym_format(e, buf, sizeof(buf)), strlen("2*H*N*W + 6*N"));
    assert_string_equal(buf, "2*H*");
    assert_int_equal(fl__sym_format(e, NULL, 0), strlen("2*H*N*W + 6*N"));
    buf[0] = 'z';
    assert_int_equal(fl__sym_format(K(123456), buf, 1), 6);
    assert_int_equal(buf[0], '\0');
    char *s = fl__sym_to_str(&arena, e);
    assert_non_null(s);
    assert_string_equal(s, "2*H*N*W + 6*N");
}

/* The printed text depends on structure only, not on construction order. */
/* fl__sym_to_str's straight path for linear polynomials: signs, a
 * coefficient of 1 and -1, the extreme coefficients, the constant term, more
 * than one variable; other shapes and texts longer than its buffer go the
 * general way with the same result. */
static void test_format_linear(void **state) {
    (void)state;
    fl_sym x = V("input.0"), y = V("y");
    assert_fmt(x, "input.0");
    assert_fmt(MUL(K(-1), x), "-input.0");
    assert_fmt(MUL(K(617852), x), "617852*input.0");
    assert_fmt(ADD(MUL(K(250184), x), K(6256)), "250184*input.0 + 6256");
    assert_fmt(ADD(MUL(K(-3), x), K(-1)), "-3*input.0 - 1");
    assert_fmt(ADD(x, K(1)), "input.0 + 1");
    assert_fmt(ADD(ADD(MUL(K(-1), x), y), K(-7)), "-input.0 + y - 7");
    assert_fmt(MUL(K(INT64_MIN), x), "-9223372036854775808*input.0");
    assert_fmt(ADD(MUL(K(INT64_MAX), x), K(INT64_MIN)),
               "9223372036854775807*input.0 - 9223372036854775808");
    assert_fmt(ADD(MUL(x, x), K(2)), "input.0^2 + 2");
    assert_fmt(ADD(MUL(x, y), x), "input.0*y + input.0");
    char name[200];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    fl_sym n = V(name);
    char want[260];
    snprintf(want, sizeof want, "5*%s + 3", name);
    assert_fmt(ADD(MUL(K(5), n), K(3)), want);
    fl_sym sum = K(0);
    char many[512] = "";
    for (int i = 0; i < 8; i++) {
        char v[16];
        snprintf(v, sizeof v, "v%d", i);
        sum = ADD(sum, MUL(K(1000000000000LL + i), V(v)));
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%lld*v%d", i ? " + " : "",
                 1000000000000LL + i, i);
    }
    assert_fmt(sum, many);
}

static void test_format_deterministic(void **state) {
    (void)state;
    char first[256], second[256];
    fl_sym W = V("W"), H = V("H"), N = V("N");
    fl_sym e = ADD(MUL(CDIV(W, K(2)), N), MUL(MAX(H, W), FDIV(H, K(3))));
    fl__sym_format(e, first, sizeof(first));
    teardown(state);
    assert_int_equal(setup(state), 0);
    fl_sym n2 = V("N"), h2 = V("H"), w2 = V("W");
    fl_sym e2 = ADD(MUL(MAX(w2, h2), FDIV(h2, K(3))), MUL(n2, CDIV(w2, K(2))));
    fl__sym_format(e2, second, sizeof(second));
    assert_string_equal(first, second);
    assert_string_equal(first, "N*ceil(W/2) + floor(H/3)*max(H, W)");
}

/* ---- variables ---- */

typedef struct names_seen {
    char buf[256];
    int count;
} names_seen;

static void collect(const char *name, void *ctx) {
    names_seen *n = ctx;
    if (n->count++) {
        strcat(n->buf, ",");
    }
    strcat(n->buf, name);
}

static void test_vars(void **state) {
    (void)state;
    fl_sym z = V("Z"), x0 = V("x.0"), it = V("image_tensor.1"), a = V("A"), b = V("b");
    fl_sym e = ADD(MUL(x0, CDIV(it, K(2))), MUL(MAX(z, ADD(a, x0)), FDIV(a, it)));
    names_seen seen = {"", 0};
    fl__sym_vars(e, collect, &seen);
    assert_string_equal(seen.buf, "A,Z,image_tensor.1,x.0");
    assert_int_equal(seen.count, 4);
    /* Twice gives the same answer. */
    names_seen again = {"", 0};
    fl__sym_vars(e, collect, &again);
    assert_string_equal(again.buf, seen.buf);
    names_seen none = {"", 0};
    fl__sym_vars(K(3), collect, &none);
    fl__sym_vars(fl_sym_unknown(), collect, &none);
    assert_int_equal(none.count, 0);
    names_seen one = {"", 0};
    fl__sym_vars(MUL(b, b), collect, &one);
    assert_string_equal(one.buf, "b");
    /* A deep chain of shared subexpressions is walked once per node. */
    fl_sym chain = a;
    for (int i = 0; i < 60; i++) {
        chain = MAX(ADD(chain, K(1)), MUL(chain, b));
    }
    names_seen deep = {"", 0};
    fl__sym_vars(chain, collect, &deep);
    assert_string_equal(deep.buf, "A,b");
}

/* ---- substitution ---- */

static void test_subst(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W");
    fl_sym ho = CDIV(H, K(2));
    assert_int_equal(EVAL1(ho, "H", 255), 128);
    assert_int_equal(EVAL1(ho, "H", 0), 0);
    fl_sym e = ADD(MUL(MUL(K(2), N), H), CDIV(W, K(2)));
    /* Partial binding. */
    fl_sym p = SUBST(e, 1, (const char *const[]){"H"}, (const int64_t[]){3});
    assert_fmt(p, "6*N + ceil(W/2)");
    assert_same(p, ADD(MUL(K(6), N), CDIV(W, K(2))));
    p = SUBST(e, 1, (const char *const[]){"W"}, (const int64_t[]){9});
    assert_fmt(p, "2*H*N + 5");
    /* Unrelated names and no names: the same pointer comes back. */
    assert_same(SUBST(e, 1, (const char *const[]){"Q"}, (const int64_t[]){9}), e);
    assert_same(SUBST(e, 0, NULL, NULL), e);
    /* Full binding gives a known value. */
    const char *names[] = {"N", "H", "W"};
    int64_t vals[] = {2, 5, 7};
    assert_known(SUBST(e, 3, names, vals), 2 * 2 * 5 + 4);
    /* The first binding of a name wins. */
    assert_int_equal(EVAL1(ADD(H, K(0)), "H", 4), 4);
    assert_known(SUBST(H, 2, (const char *const[]){"H", "H"}, (const int64_t[]){1, 2}), 1);
    /* Known and unknown pass through. */
    assert_known(SUBST(K(4), 3, names, vals), 4);
    assert_true(fl_sym_is_unknown(SUBST(fl_sym_unknown(), 3, names, vals)));
    /* Substitution re-canonicalises through atoms: ceil((H+1)/2) at H = 2*N - 1. */
    fl_sym c = CDIV(ADD(H, K(1)), K(2));
    assert_int_equal(EVAL1(c, "H", 254), 128);
    fl_sym m = MAX(MUL(N, H), ADD(H, K(3)));
    assert_same(SUBST(m, 1, (const char *const[]){"N"}, (const int64_t[]){1}), ADD(H, K(3)));
}

static void test_subst_overflow(void **state) {
    (void)state;
    fl_sym N = V("N");
    fl_sym e = MUL(MUL(N, N), N);
    fl_sym r;
    const char *name = "N";
    int64_t v = INT64_C(3000000);
    assert_int_equal(fl__sym_subst(T, e, 1, &name, &v, &r), FL_EOVERFLOW);
    assert_true(fl_sym_is_unknown(r));
    v = 2000000;
    assert_int_equal(fl__sym_subst(T, e, 1, &name, &v, &r), FL_OK);
    assert_known(r, INT64_C(8000000000000000000));
    assert_int_equal(fl__sym_subst(T, e, 1, NULL, &v, &r), FL_EINVAL);
}

/* ---- unknowns and symbolic overflow ---- */

static void test_unknown(void **state) {
    (void)state;
    fl_sym N = V("N"), u = fl_sym_unknown(), r;
    bool exact = true;
    assert_true(fl_sym_is_unknown(ADD(u, N)));
    assert_true(fl_sym_is_unknown(ADD(K(1), u)));
    assert_true(fl_sym_is_unknown(SUB(u, u)));
    assert_true(fl_sym_is_unknown(MUL(u, N)));
    assert_true(fl_sym_is_unknown(MUL(K(3), u)));
    assert_known(MUL(K(0), u), 0);
    assert_known(MUL(u, K(0)), 0);
    assert_known(MUL(SUB(N, N), u), 0);
    assert_true(fl_sym_is_unknown(FDIV(u, K(2))));
    assert_true(fl_sym_is_unknown(CDIV(N, u)));
    assert_true(fl_sym_is_unknown(MOD(K(0), u)));
    assert_true(fl_sym_is_unknown(MAX(u, K(1))));
    assert_true(fl_sym_is_unknown(MIN(N, u)));
    assert_int_equal(fl__sym_neg(T, u, &r), FL_OK);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_div(T, N, u, &r, &exact), FL_OK);
    assert_true(fl_sym_is_unknown(r));
    assert_false(exact);
    assert_false(fl__sym_eq(u, u));
    assert_false(fl__sym_eq(u, K(0)));
    assert_false(fl__sym_eq(N, K(0)));
    assert_false(fl_sym_is_known(u));
    assert_false(fl_sym_is_symbolic(u));
}

static void test_symbolic_overflow(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), r;
    fl_sym big = MUL(K(INT64_MAX), N);
    assert_int_equal(fl__sym_mul(T, big, K(2), &r), FL_EOVERFLOW);
    assert_true(fl_sym_is_unknown(r));
    assert_int_equal(fl__sym_add(T, big, N, &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_add(T, ADD(big, K(INT64_MAX)), K(1), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_mul(T, ADD(big, H), ADD(N, K(2)), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_neg(T, MUL(K(INT64_MIN), N), &r), FL_EOVERFLOW);
    assert_int_equal(fl__sym_sub(T, K(0), MUL(K(INT64_MIN), N), &r), FL_EOVERFLOW);
    /* INT64_MAX*N - INT64_MAX*N is fine. */
    assert_known(SUB(big, big), 0);
    assert_known(ADD(big, MUL(K(-INT64_MAX), N)), 0);
}

/* ---- max / min ---- */

static void test_max_min(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H");
    assert_same(MAX(N, N), N);
    assert_same(MAX(ADD(N, K(1)), N), ADD(N, K(1)));
    assert_same(MIN(ADD(N, K(1)), N), N);
    assert_same(MAX(SUB(H, K(2)), ADD(H, K(3))), ADD(H, K(3)));
    assert_known(MAX(K(3), K(5)), 5);
    assert_known(MIN(K(3), K(5)), 3);
    fl_sym m = MAX(N, K(1));
    assert_fmt(m, "max(1, N)");
    assert_int_equal(EVAL1(m, "N", 0), 1);
    assert_int_equal(EVAL1(m, "N", 9), 9);
    fl_sym mm = MIN(MUL(N, H), ADD(H, K(3)));
    const char *names[] = {"N", "H"};
    for (int64_t n = -3; n <= 3; n++) {
        for (int64_t h = -3; h <= 3; h++) {
            int64_t vals[] = {n, h};
            int64_t a = n * h, b = h + 3;
            assert_known(SUBST(mm, 2, names, vals), a < b ? a : b);
        }
    }
    /* Binding only N = 1 gives min(H, H + 3) = H. */
    assert_same(SUBST(mm, 1, names, (const int64_t[]){1}), H);
}

/* ---- randomised identities ---- */

static uint64_t rng_state = 88172645463325252ULL;

static int64_t rnd(int64_t lo, int64_t hi) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (int64_t)(rng_state % (uint64_t)(hi - lo + 1));
}

static fl_sym random_poly(const fl_sym *vars, int nvars, int depth) {
    fl_sym p = K(rnd(-3, 3));
    int terms = (int)rnd(1, 3);
    for (int i = 0; i < terms; i++) {
        fl_sym t = K(rnd(-4, 4));
        int factors = (int)rnd(1, 2);
        for (int j = 0; j < factors; j++) {
            fl_sym f = vars[rnd(0, nvars - 1)];
            if (depth > 0 && rnd(0, 3) == 0) {
                int kind = (int)rnd(0, 2);
                fl_sym inner = random_poly(vars, nvars, depth - 1);
                int64_t c = rnd(1, 5);
                f = kind == 0 ? FDIV(inner, K(c))
                              : (kind == 1 ? CDIV(inner, K(c)) : MOD(inner, K(c)));
            }
            t = MUL(t, f);
        }
        p = ADD(p, t);
    }
    return p;
}

/* Random polynomials with nested floor/ceil/mod atoms: every operation,
 * evaluated by substitution at random (also negative) points, must agree with
 * the same operation on the evaluated operands. */
static void test_random_identities(void **state) {
    (void)state;
    fl_sym vars[] = {V("a"), V("b"), V("c")};
    const char *names[] = {"a", "b", "c"};
    for (int iter = 0; iter < 300; iter++) {
        fl_sym p = random_poly(vars, 3, 2);
        fl_sym q = random_poly(vars, 3, 1);
        if (fl_sym_is_known(q) && q.k == 0) {
            q = K(1);
        }
        fl_sym pq = MUL(p, q);
        int64_t c = rnd(-6, 6);
        if (c == 0) {
            c = 7;
        }
        fl_sym fd = FDIV(p, K(c)), cd = CDIV(p, K(c)), md = MOD(p, K(c));
        fl_sym sum = ADD(p, q), diff = SUB(p, q), mx = MAX(p, q), mn = MIN(p, q);
        fl_sym fq = FDIV(p, q), mq = MOD(p, q);
        if (fl_sym_is_symbolic(q)) {
            /* exact division recovers p */
            assert_same(DIV(pq, q, true), p);
        }
        for (int k = 0; k < 6; k++) {
            int64_t vals[] = {rnd(-9, 9), rnd(-9, 9), rnd(-9, 9)};
            fl_sym pv = SUBST(p, 3, names, vals), qv = SUBST(q, 3, names, vals);
            assert_true(fl_sym_is_known(pv) && fl_sym_is_known(qv));
            int64_t P = pv.k, Q = qv.k;
            assert_known(SUBST(pq, 3, names, vals), P * Q);
            assert_known(SUBST(sum, 3, names, vals), P + Q);
            assert_known(SUBST(diff, 3, names, vals), P - Q);
            assert_known(SUBST(mx, 3, names, vals), P > Q ? P : Q);
            assert_known(SUBST(mn, 3, names, vals), P < Q ? P : Q);
            assert_known(SUBST(fd, 3, names, vals), ref_floordiv(P, c));
            assert_known(SUBST(cd, 3, names, vals), ref_ceildiv(P, c));
            assert_known(SUBST(md, 3, names, vals), ref_mod(P, c));
            fl_sym r;
            fl_status st = fl__sym_subst(T, fq, 3, names, vals, &r);
            if (Q != 0) {
                assert_int_equal(st, FL_OK);
                assert_known(r, ref_floordiv(P, Q));
                assert_known(SUBST(mq, 3, names, vals), ref_mod(P, Q));
            } else if (fl_sym_is_symbolic(q)) {
                /* a symbolic divisor that evaluates to 0, unless the
                 * quotient was exact and the division disappeared */
                assert_true(st == FL_EINVAL || st == FL_OK);
            }
        }
    }
}

/* Expressions for variables (fl__sym_subst_syms), against the results built
 * by hand with the arithmetic operations. */
static fl_sym SUBSTS(fl_sym s, size_t n, const char *const *names, const fl_sym *values) {
    fl_sym r;
    assert_int_equal(fl__sym_subst_syms(T, s, n, names, values, &r), FL_OK);
    return r;
}

/* fl__sym_at_ones: hand-computed values at every variable 1, each checked
 * against fl__sym_subst binding the variables to 1; the overflow and the
 * cases it leaves to substitution. */
static void note_name(const char *name, void *ctx) {
    const char **v = ctx;
    while (*v) {
        v++;
    }
    *v = name;
}

static void test_at_ones(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W");
    const int64_t big = INT64_MAX - 1;
    const struct {
        fl_sym s;
        fl_status st;
        int64_t want;
    } cases[] = {
        {MUL(K(24), N), FL_OK, 24},
        {ADD(MUL(K(12), N), K(-40)), FL_OK, -28},
        {SUB(MUL(MUL(K(3), H), W), MUL(N, N)), FL_OK, 2},           /* 3*H*W - N^2 */
        {ADD(MUL(MUL(N, N), MUL(N, H)), MUL(K(-7), W)), FL_OK, -6}, /* N^3*H - 7*W */
        {ADD(MUL(K(big), N), ADD(H, W)), FL_EOVERFLOW, 0},          /* big + 1 + 1 */
        {ADD(MUL(K(big), N), SUB(H, W)), FL_OK, big},               /* big + 1 - 1 */
        {ADD(FDIV(N, K(2)), H), FL_ENOTFOUND, 0},                   /* an atom not a variable */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 0;
        assert_int_equal(fl__sym_at_ones(cases[i].s, 32, &v), cases[i].st);
        const char *names[4] = {NULL};
        fl__sym_vars(cases[i].s, note_name, names);
        size_t n = 0;
        while (names[n]) {
            n++;
        }
        fl_sym r;
        fl_status sub = fl__sym_subst(T, cases[i].s, n, names, (const int64_t[]){1, 1, 1}, &r);
        if (cases[i].st == FL_ENOTFOUND) {
            continue;
        }
        assert_int_equal(sub, cases[i].st);
        if (sub == FL_OK) {
            assert_int_equal(v, cases[i].want);
            assert_true(fl_sym_is_known(r));
            assert_int_equal(r.k, cases[i].want);
        }
    }
    /* Occurrences past max, known and unknown values: substitute. */
    int64_t v;
    assert_int_equal(fl__sym_at_ones(ADD(MUL(N, H), N), 2, &v), FL_ENOTFOUND);
    assert_int_equal(fl__sym_at_ones(ADD(MUL(N, H), N), 3, &v), FL_OK);
    assert_int_equal(v, 2);
    assert_int_equal(fl__sym_at_ones(K(5), 32, &v), FL_ENOTFOUND);
    assert_int_equal(fl__sym_at_ones(fl_sym_unknown(), 32, &v), FL_ENOTFOUND);
}

static void test_subst_syms(void **state) {
    (void)state;
    fl_sym N = V("N"), H = V("H"), W = V("W"), b = V("b"), x = V("x"), y = V("y");
    /* 2*H*N + ceil(W/2), H -> 2*b, W -> 4*b + 1: 4*b*N + 2*b + 1
     * (ceil((4*b + 1)/2) = 2*b + ceil(1/2)). */
    fl_sym e = ADD(MUL(MUL(K(2), N), H), CDIV(W, K(2)));
    fl_sym r = SUBSTS(e, 2, (const char *const[]){"H", "W"},
                      (const fl_sym[]){MUL(K(2), b), ADD(MUL(K(4), b), K(1))});
    assert_same(r, ADD(ADD(MUL(MUL(K(4), b), N), MUL(K(2), b)), K(1)));
    assert_fmt(r, "4*N*b + 2*b + 1");
    /* An atom simplifies with its new operand: ceil(H/2), H -> 2*N is N;
     * floor((H + 3)/4), H -> 4*N + 1 is N + 1. */
    assert_same(
        SUBSTS(CDIV(H, K(2)), 1, (const char *const[]){"H"}, (const fl_sym[]){MUL(K(2), N)}), N);
    assert_same(SUBSTS(FDIV(ADD(H, K(3)), K(4)), 1, (const char *const[]){"H"},
                       (const fl_sym[]){ADD(MUL(K(4), N), K(1))}),
                ADD(N, K(1)));
    /* Simultaneous: x -> x + 1 in x*y is x*y + y; swapping x and y in
     * x - 2*y gives y - 2*x. */
    assert_same(SUBSTS(MUL(x, y), 1, (const char *const[]){"x"}, (const fl_sym[]){ADD(x, K(1))}),
                ADD(MUL(x, y), y));
    assert_same(
        SUBSTS(SUB(x, MUL(K(2), y)), 2, (const char *const[]){"x", "y"}, (const fl_sym[]){y, x}),
        SUB(y, MUL(K(2), x)));
    /* Powers: (seq + past)^2 from N^2 with N -> seq + past. */
    fl_sym seq = V("seq"), past = V("past");
    fl_sym sp = ADD(seq, past);
    assert_same(SUBSTS(MUL(N, N), 1, (const char *const[]){"N"}, (const fl_sym[]){sp}),
                MUL(sp, sp));
    /* Known values, mixed with expressions; a result that folds to a number. */
    assert_known(SUBSTS(SUB(MUL(K(3), H), W), 2, (const char *const[]){"H", "W"},
                        (const fl_sym[]){K(4), K(5)}),
                 7);
    assert_known(SUBSTS(SUB(H, W), 2, (const char *const[]){"H", "W"}, (const fl_sym[]){b, b}), 0);
    /* Unbound variables: the same pointer back; an unknown value: unknown. */
    assert_same(SUBSTS(e, 1, (const char *const[]){"Q"}, (const fl_sym[]){b}), e);
    assert_true(fl_sym_is_unknown(
        SUBSTS(e, 1, (const char *const[]){"H"}, (const fl_sym[]){fl_sym_unknown()})));
    assert_same(SUBSTS(W, 1, (const char *const[]){"H"}, (const fl_sym[]){fl_sym_unknown()}), W);
    /* Errors: a value of another table; a divisor that becomes 0. */
    fl_arena other;
    fl__arena_init(&other, 0);
    fl_symtab *t2 = fl__symtab_new(&other);
    fl_sym z;
    assert_int_equal(fl__sym_var(t2, "z", &z), FL_OK);
    assert_int_equal(fl__sym_subst_syms(T, e, 1, (const char *const[]){"H"}, &z, &r), FL_EINVAL);
    assert_true(fl_sym_is_unknown(r));
    fl__arena_free(&other);
    assert_int_equal(fl__sym_subst_syms(T, FDIV(N, H), 1, (const char *const[]){"H"},
                                        (const fl_sym[]){SUB(b, b)}, &r),
                     FL_EINVAL);
    assert_int_equal(fl__sym_subst_syms(T, e, 1, NULL, &z, &r), FL_EINVAL);
}

/* Random polynomials p(a, b, c) with nested floor/ceil/mod atoms and
 * random expressions qa(b, c), qb(a, c): p with a -> qa, b -> qb, then
 * evaluated at a point, equals p evaluated where a and b take qa's and
 * qb's values at that point. */
static void test_subst_syms_random(void **state) {
    (void)state;
    fl_sym vars[] = {V("a"), V("b"), V("c")};
    const char *names[] = {"a", "b", "c"};
    int compared = 0;
    for (int iter = 0; iter < 200; iter++) {
        fl_sym p = random_poly(vars, 3, 2);
        fl_sym q[2] = {random_poly(vars, 3, 1), random_poly(vars, 3, 1)};
        fl_sym r;
        fl_status st = fl__sym_subst_syms(T, p, 2, names, q, &r);
        if (st == FL_EINVAL || st == FL_EOVERFLOW) {
            continue; /* a divisor became 0, or a coefficient too large */
        }
        assert_int_equal(st, FL_OK);
        for (int k = 0; k < 6; k++) {
            int64_t pt[] = {rnd(-9, 9), rnd(-9, 9), rnd(-9, 9)};
            fl_sym qa = SUBST(q[0], 3, names, pt), qb = SUBST(q[1], 3, names, pt);
            assert_true(fl_sym_is_known(qa) && fl_sym_is_known(qb));
            int64_t at[] = {qa.k, qb.k, pt[2]};
            fl_sym want, got;
            fl_status sw = fl__sym_subst(T, p, 3, names, at, &want);
            fl_status sg = fl__sym_subst(T, r, 3, names, pt, &got);
            if (sw == FL_OK && sg == FL_OK) {
                assert_true(fl_sym_is_known(want) && fl_sym_is_known(got));
                assert_int_equal(got.k, want.k);
                compared++;
            }
        }
    }
    assert_true(compared > 600); /* of 1200: the check is not vacuous */
}

static void test_arena_exhaustion(void **state) {
    (void)state;
    fl_arena small;
    fl__arena_init(&small, 100);
    assert_null(fl__symtab_new(&small));
    fl__arena_free(&small);
    fl__arena_init(&small, 256 * 1024);
    fl_symtab *t = fl__symtab_new(&small);
    assert_non_null(t);
    fl_status st = FL_OK;
    fl_sym sum = K(0);
    char name[32];
    for (int i = 0; i < 100000 && st == FL_OK; i++) {
        fl_sym v;
        snprintf(name, sizeof(name), "variable_%d", i);
        st = fl__sym_var(t, name, &v);
        if (st == FL_OK) {
            st = fl__sym_add(t, sum, v, &sum);
        }
    }
    assert_int_equal(st, FL_ENOMEM);
    assert_true(fl_sym_is_unknown(sum) || fl_sym_is_symbolic(sum));
    fl__arena_free(&small);
}

/* ceil(log2(a)): the least k >= 0 with 2^k >= a. Known values by the
 * definition: 2^0 = 1 >= 1 (and >= any a <= 1), 2^1 = 2, 2^2 = 4 >= 3, 4;
 * 2^3 = 8 >= 5; 2^10 = 1024, 2^11 = 2048 >= 1025; 2^62 >= 2^62, 2^63 >
 * INT64_MAX. A symbolic operand is one atom: interned (the same pointer),
 * printed "ceil(log2(n))", ordered after min, multiplied like any factor,
 * and evaluated by a binding (n = 1000: 2^10 >= 1000 > 2^9, so
 * 1000 * 10) or by a substituted expression (n -> 2*m at m = 3: 6, 3). */
static void test_clog2(void **state) {
    (void)state;
    const int64_t in[] = {INT64_MIN, -7, 0, 1, 2, 3, 4, 5, 1024, 1025, INT64_C(1) << 62, INT64_MAX};
    const int64_t want[] = {0, 0, 0, 0, 1, 2, 2, 3, 10, 11, 62, 63};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        fl_sym r;
        assert_int_equal(fl__sym_clog2(NULL, K(in[i]), &r), FL_OK);
        assert_true(fl_sym_is_known(r));
        assert_int_equal(r.k, want[i]);
    }
    fl_sym n = V("n"), l1, l2, lu;
    assert_int_equal(fl__sym_clog2(T, n, &l1), FL_OK);
    assert_int_equal(fl__sym_clog2(NULL, n, &l2), FL_OK);
    assert_true(fl_sym_is_symbolic(l1));
    assert_true(fl__sym_eq(l1, l2));
    assert_int_equal(fl__sym_clog2(T, fl_sym_unknown(), &lu), FL_OK);
    assert_true(fl_sym_is_unknown(lu));
    assert_fmt(l1, "ceil(log2(n))");
    fl_sym c = MUL(MUL(K(4), n), l1);
    assert_fmt(c, "4*n*ceil(log2(n))");
    assert_int_equal(EVAL1(c, "n", 1000), 40000);
    assert_int_equal(EVAL1(c, "n", 1), 0);
    fl_sym p;
    assert_int_equal(fl__sym_clog2(T, ADD(n, K(1)), &p), FL_OK);
    assert_fmt(p, "ceil(log2(n + 1))");
    assert_fmt(ADD(p, MIN(n, K(3))), "min(3, n) + ceil(log2(n + 1))");
    assert_int_equal(EVAL1(p, "n", 7), 3);
    fl_sym m = V("m"), two_m = MUL(K(2), m), r;
    assert_int_equal(fl__sym_subst_syms(T, l1, 1, (const char *const[]){"n"}, &two_m, &r), FL_OK);
    assert_fmt(r, "ceil(log2(2*m))");
    assert_int_equal(EVAL1(r, "m", 3), 3);
}

/* fl__sym_lower_bound over sizes: n and m are sizes (>= 0), x is any
 * integer. Each expression's claimed bound (1: >= 1, 0: >= 0, -1: none) is
 * its exact one where stated, and holds at every n, m in 0..6 and x in
 * -6..6. */
static void test_lower_bound(void **state) {
    (void)state;
    fl_sym n, m;
    assert_int_equal(fl__sym_size_var(T, "n", &n), FL_OK);
    assert_int_equal(fl__sym_size_var(T, "m", &m), FL_OK);
    fl_sym x = V("x");
    const struct {
        fl_sym s;
        int want;
    } cases[] = {
        {n, 0},
        {ADD(n, K(1)), 1}, /* an exporter's "dim == -1": dim + 1 */
        {SUB(n, K(1)), -1},
        {ADD(MUL(K(2), MUL(n, m)), K(3)), 1},
        {SUB(K(0), ADD(n, K(1))), -1},
        {ADD(x, K(1)), -1},
        {MUL(x, x), 0},
        {ADD(MUL(MUL(x, x), n), K(1)), 1},
        {MUL(x, n), -1},
        {FDIV(ADD(n, K(1)), K(2)), 0},
        {CDIV(ADD(n, K(1)), K(2)), 1},
        {CDIV(n, K(2)), 0},
        {SUB(MUL(K(2), CDIV(ADD(n, K(1)), K(2))), K(1)), 1},
        {FDIV(x, K(2)), -1},
        {MOD(x, K(3)), 0},
        {MOD(n, SUB(K(0), K(3))), -1},
        {MAX(x, ADD(n, K(1))), 1},
        {MIN(ADD(n, K(1)), ADD(m, K(2))), 1},
        {MIN(x, n), -1},
        {ADD(MAX(x, n), m), 0},
        {K(5), 1},
        {K(0), 0},
        {K(-2), -1},
    };
    const char *names[3] = {"n", "m", "x"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int lo = fl__sym_lower_bound(cases[i].s);
        assert_int_equal(lo, cases[i].want);
        for (int64_t a = 0; lo >= 0 && a <= 6; a++) {
            for (int64_t b = 0; b <= 6; b++) {
                for (int64_t c = -6; c <= 6; c++) {
                    fl_sym r = SUBST(cases[i].s, 3, names, (const int64_t[]){a, b, c});
                    assert_true(fl_sym_is_known(r));
                    assert_true(r.k >= lo); /* lo is 0 or 1 here */
                }
            }
        }
    }
    /* a plain variable of the same name made earlier stays what it was: the
     * flag belongs to the atom, set by whoever declares it a size */
    fl_sym y = V("y");
    assert_int_equal(fl__sym_lower_bound(y), -1);
    fl_sym y2;
    assert_int_equal(fl__sym_size_var(T, "y", &y2), FL_OK);
    assert_true(fl__sym_eq(y, y2));
    assert_int_equal(fl__sym_lower_bound(ADD(y, K(1))), 1);
}

/* fl__sym_parse_dim: names and integers joined by " + ", " - ", " * " and
 * parenthesised, with the usual precedence; anything else is not an
 * expression (a name). */
static void test_parse_dim(void **state) {
    (void)state;
    const struct {
        const char *text, *want; /* want NULL: not an expression */
    } cases[] = {
        {"past_sequence_length + sequence_length", "past_sequence_length + sequence_length"},
        {"past + 1", "past + 1"},
        {"2 * n", "2*n"},
        {"a + b * c", "b*c + a"},
        {"(a + b) * c", "a*c + b*c"},
        {"a - b - c", "a - b - c"},
        {"a - (b - c)", "a - b + c"},
        {"x.0 + 1", "x.0 + 1"},
        {"n + 2 - n", "2"},
        {"a+b", NULL},
        {"batch-size", NULL},
        {"a + 2x", NULL},
        {"a +  b", NULL},
        {"a + ", NULL},
        {" a + b", NULL},
        {"a", NULL},
        {"(a + b", NULL},
        {"a / 2", NULL},
        {"99999999999999999999 + a", NULL},
        {"4611686018427387904 * 4 + a", NULL},
        {"(a + b) * (c + d) * (e + f) * (g + h) * (i + j) * (k + l) * (m + o)", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_sym r = fl_sym_unknown();
        fl_status st = fl__sym_parse_dim(T, cases[i].text, &r);
        if (!cases[i].want) {
            assert_int_equal(st, FL_ENOTFOUND);
            continue;
        }
        assert_int_equal(st, FL_OK);
        char buf[128];
        fl__sym_format(r, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
    }
    /* its names are sizes */
    fl_sym r;
    assert_int_equal(fl__sym_parse_dim(T, "p + q", &r), FL_OK);
    assert_int_equal(fl__sym_lower_bound(ADD(V("p"), K(1))), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_known_fast_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_known_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_running_sum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_known_div_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_division_by_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_vars, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact_division, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonexact_division, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reshape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conv_formulas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vars, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subst_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symbolic_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max_min, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_identities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at_ones, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subst_syms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subst_syms_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arena_exhaustion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clog2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_linear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lower_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_dim, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
