/*
 * test_sym_fast.c - the fast paths of fl__sym_mul, fl__sym_add/sub and the
 * running sum (src/sym) give what the general term-list arithmetic gives:
 *  - a known times a symbolic value (either order, with and without a table,
 *    up to and past the terms kept on the stack) against
 *    fl__symint_mul_terms: the same status, the same interned pointer or
 *    known value, the same text;
 *  - a sum or difference of two symbolic values, those with the same
 *    monomials included (coefficients that cancel, that overflow int64 and
 *    that just fit) against fl__symint_addsub_terms;
 *  - a symbolic value plus a known one (either order) against
 *    fl__symint_addsub_terms: constant terms added, changed, cancelled and
 *    overflowing;
 *  - a running sum of one-term values equals the chain of fl__sym_add (the
 *    same partial results and the same failure);
 *  - each product that fits is checked by substitution against 128-bit
 *    integer arithmetic, and each one that does not fit is FL_EOVERFLOW.
 * The coefficients are edge values: 0, +-1, 2, 3, powers of two around
 * 2^31 and 2^32, 3037000499 and 3037000500 (whose square is just below and
 * just above INT64_MAX), INT64_MAX/2 and its neighbours, INT64_MAX and
 * INT64_MIN.
 */
#include "sym/sym_int.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t edges[] = {0,
                                1,
                                -1,
                                2,
                                -2,
                                3,
                                7,
                                1000003,
                                2147483647,
                                2147483648,
                                4294967296,
                                -4294967296,
                                3037000499,
                                3037000500,
                                -3037000500,
                                INT64_MAX / 2,
                                INT64_MAX / 2 + 1,
                                -(INT64_MAX / 2) - 1,
                                INT64_MAX - 1,
                                INT64_MAX,
                                INT64_MIN + 1,
                                INT64_MIN};
#define N_EDGES (sizeof edges / sizeof edges[0])

#define MAX_POOL 4096

typedef struct pool {
    fl_sym s[MAX_POOL];
    size_t n;
} pool;

static fl_arena arena;
static fl_symtab *T;
static pool P;

static void text(fl_sym s, char *buf, size_t size) {
    size_t n = fl__sym_format(s, buf, size);
    assert_true(n < size);
}

/* Same status; on success the same canonical value (pointer or known value)
 * and the same text. */
static void assert_agree(fl_status st1, fl_sym r1, fl_status st2, fl_sym r2) {
    assert_int_equal(st1, st2);
    if (st1 != FL_OK) {
        assert_true(fl_sym_is_unknown(r1));
        assert_true(fl_sym_is_unknown(r2));
        return;
    }
    assert_ptr_equal(r1.e, r2.e);
    if (fl_sym_is_known(r1)) {
        assert_true(r1.k == r2.k);
    }
    char b1[1024], b2[1024];
    text(r1, b1, sizeof b1);
    text(r2, b2, sizeof b2);
    assert_string_equal(b1, b2);
}

static void add_pool(fl_sym s) {
    if (fl_sym_is_symbolic(s) && P.n < MAX_POOL) {
        P.s[P.n++] = s;
    }
}

/* Symbolic values: c*N, c*N + d, c*N*H + d*W + e, N^2 - H, and a sum of 10
 * variables times c (more terms than the fast paths keep on the stack),
 * for c, d, e among the edges (the products that fit). */
static int setup(void **state) {
    (void)state;
    fl__arena_init(&arena, 0);
    T = fl__symtab_new(&arena);
    if (!T) {
        return -1;
    }
    P.n = 0;
    fl_sym N, H, W, vars[10];
    if (fl__sym_var(T, "N", &N) || fl__sym_var(T, "H", &H) || fl__sym_var(T, "W", &W)) {
        return -1;
    }
    fl_sym many = fl_sym_const(0);
    for (int i = 0; i < 10; i++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", i);
        if (fl__sym_var(T, name, &vars[i]) || fl__sym_add(T, many, vars[i], &many)) {
            return -1;
        }
    }
    fl_sym NH, N2, N2H;
    if (fl__sym_mul(T, N, H, &NH) || fl__sym_mul(T, N, N, &N2) || fl__sym_sub(T, N2, H, &N2H)) {
        return -1;
    }
    add_pool(N);
    add_pool(NH);
    add_pool(N2H);
    add_pool(many);
    for (size_t i = 0; i < N_EDGES; i++) {
        fl_sym cN, cNH, cmany;
        if (fl__sym_mul(T, fl_sym_const(edges[i]), N, &cN) == FL_OK) {
            add_pool(cN);
        }
        if (fl__sym_mul(T, fl_sym_const(edges[i]), many, &cmany) == FL_OK) {
            add_pool(cmany);
        }
        if (fl__sym_mul(T, fl_sym_const(edges[i]), NH, &cNH) != FL_OK) {
            continue;
        }
        for (size_t j = 0; j < N_EDGES; j += 3) {
            fl_sym cNd, dW, cNHdW;
            if (fl__sym_add(T, cN, fl_sym_const(edges[j]), &cNd) == FL_OK) {
                add_pool(cNd);
            }
            if (fl__sym_mul(T, fl_sym_const(edges[j]), W, &dW) == FL_OK &&
                fl__sym_add(T, cNH, dW, &cNHdW) == FL_OK &&
                fl__sym_add(T, cNHdW, fl_sym_const(edges[(i + j) % N_EDGES]), &cNHdW) == FL_OK) {
                add_pool(cNHdW);
            }
        }
    }
    return P.n > 200 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    fl__arena_free(&arena);
    T = NULL;
    return 0;
}

/* The value of s at N=3, H=5, W=7, v_i = i + 2, in 128 bits: false when it
 * does not fit int64 (or s has other variables). */
static bool eval(fl_sym s, int64_t *out) {
    static const char *const names[] = {"N",  "H",  "W",  "v0", "v1", "v2", "v3",
                                        "v4", "v5", "v6", "v7", "v8", "v9"};
    static const int64_t values[] = {3, 5, 7, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    fl_sym r;
    if (fl__sym_subst(T, s, 13, names, values, &r) != FL_OK || !fl_sym_is_known(r)) {
        return false;
    }
    *out = r.k;
    return true;
}

static void known_times_symbolic(void **state) {
    (void)state;
    size_t checked = 0, overflowed = 0;
    for (size_t i = 0; i < P.n; i++) {
        fl_sym p = P.s[i];
        int64_t pv;
        bool has_pv = eval(p, &pv);
        for (size_t j = 0; j < N_EDGES; j++) {
            fl_sym k = fl_sym_const(edges[j]), r1, r2, r3, r4;
            fl_status st1 = fl__sym_mul(T, k, p, &r1);
            fl_status st2 = fl__symint_mul_terms(T, k, p, &r2);
            assert_agree(st1, r1, st2, r2);
            fl_status st3 = fl__sym_mul(NULL, p, k, &r3);
            fl_status st4 = fl__symint_mul_terms(NULL, p, k, &r4);
            assert_agree(st3, r3, st4, r4);
            assert_agree(st1, r1, st3, r3);
            /* every coefficient times k fits, or the product overflows */
            bool fits = true;
            for (size_t t = 0; t < p.e->n; t++) {
                int64_t c;
                fits = fits && !__builtin_mul_overflow(p.e->t[t].coef, edges[j], &c);
            }
            assert_int_equal(st1, fits ? FL_OK : FL_EOVERFLOW);
            overflowed += !fits;
            int64_t rv;
            if (fits && has_pv && eval(r1, &rv)) {
                __int128 want = (__int128)pv * edges[j];
                assert_true(want == rv);
            }
            checked++;
        }
    }
    assert_true(checked > 5000 && overflowed > 100);
}

static void symbolic_plus_symbolic(void **state) {
    (void)state;
    size_t alike = 0, cancelled = 0, overflowed = 0;
    for (size_t i = 0; i < P.n; i++) {
        /* every 7th partner, and the neighbours, which often share the
         * monomials (c*N and d*N, c*N + d and c'*N + d') */
        for (size_t j = i % 7; j < P.n; j += (j + 1 == i || j == i || j == i + 1) ? 1 : 7) {
            fl_sym a = P.s[i], b = P.s[j];
            bool same = a.e->n == b.e->n;
            for (size_t t = 0; same && t < a.e->n; t++) {
                same = a.e->t[t].m == b.e->t[t].m;
            }
            alike += same;
            for (int64_t scale = 1; scale >= -1; scale -= 2) {
                fl_sym r1, r2;
                fl_status st1 = scale > 0 ? fl__sym_add(T, a, b, &r1) : fl__sym_sub(T, a, b, &r1);
                fl_status st2 = fl__symint_addsub_terms(T, a, b, scale, &r2);
                if (!(scale < 0 && a.e == b.e)) { /* a - a is 0 before either path */
                    assert_agree(st1, r1, st2, r2);
                }
                overflowed += st1 == FL_EOVERFLOW;
                cancelled += st1 == FL_OK && same && (fl_sym_is_known(r1) || r1.e->n < a.e->n);
            }
        }
    }
    assert_true(alike > 100 && cancelled > 10 && overflowed > 10);
}

/* A symbolic value plus a known one, either order, against the general
 * merge: constant terms that appear, change, cancel and overflow. */
static void symbolic_plus_known(void **state) {
    (void)state;
    size_t cancelled = 0, overflowed = 0, checked = 0;
    for (size_t i = 0; i < P.n; i++) {
        fl_sym p = P.s[i];
        for (size_t j = 0; j < N_EDGES; j++) {
            fl_sym k = fl_sym_const(edges[j]), r1, r2, r3, r4;
            fl_status st1 = fl__sym_add(T, p, k, &r1);
            fl_status st2 = fl__symint_addsub_terms(T, p, k, 1, &r2);
            assert_agree(st1, r1, st2, r2);
            fl_status st3 = fl__sym_add(NULL, k, p, &r3);
            fl_status st4 = fl__symint_addsub_terms(T, k, p, 1, &r4);
            assert_agree(st3, r3, st4, r4);
            assert_agree(st1, r1, st3, r3);
            overflowed += st1 == FL_EOVERFLOW;
            cancelled += st1 == FL_OK && fl_sym_is_symbolic(r1) && r1.e->n < p.e->n;
            checked++;
        }
    }
    assert_true(checked > 5000 && cancelled > 10 && overflowed > 10);
}

/* c*N + c2*N ... as a running sum and as a chain of fl__sym_add, each
 * step's total compared; the chain stops at the first failure, which the
 * sum must give too. */
static void running_sum_single_terms(void **state) {
    (void)state;
    fl_sym N;
    assert_int_equal(fl__sym_var(T, "N", &N), FL_OK);
    for (size_t start = 0; start < N_EDGES; start++) {
        fl_sym_sum s;
        fl__sym_sum_init(&s, T);
        fl_sym chain = fl_sym_const(0);
        for (size_t step = 0; step < 2 * N_EDGES; step++) {
            int64_t c = edges[(start + step * 5) % N_EDGES];
            fl_sym term;
            fl_status st =
                fl__sym_mul(T, fl_sym_const(c), step % 3 == 2 ? fl_sym_const(1) : N, &term);
            assert_int_equal(st, FL_OK);
            bool sub = step % 4 == 3;
            fl_status st_sum = sub ? fl__sym_sum_sub(&s, term) : fl__sym_sum_add(&s, term);
            fl_status st_chain =
                sub ? fl__sym_sub(T, chain, term, &chain) : fl__sym_add(T, chain, term, &chain);
            assert_int_equal(st_sum, st_chain);
            if (st_chain != FL_OK) {
                break;
            }
            fl_sym total;
            assert_int_equal(fl__sym_sum_total(&s, &total), FL_OK);
            assert_agree(FL_OK, total, FL_OK, chain);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(known_times_symbolic, setup, teardown),
        cmocka_unit_test_setup_teardown(symbolic_plus_symbolic, setup, teardown),
        cmocka_unit_test_setup_teardown(symbolic_plus_known, setup, teardown),
        cmocka_unit_test_setup_teardown(running_sum_single_terms, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
