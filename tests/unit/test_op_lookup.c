/*
 * test_op_lookup.c - fl__op_lookup, the op-name table built at first use
 * (src/ops/registry.c):
 *  - lookups racing from several threads on the table's first use (the
 *    first test, so that nothing in this process looked a name up before)
 *    all give the right kinds, whether they ran before, during or after the
 *    build;
 *  - every op of ops.def is found by its name (from a copy of the string,
 *    so nothing depends on pointer identity) and only by it;
 *  - names that are not ops are not found: empty, "?", prefixes, suffixes,
 *    other case, one character changed, very long.
 */
#include "ops/ops.h"
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The list straight from ops.def, independent of the registry's own. */
static const struct {
    const char *name;
    int kind;
} defs[] = {
#define FL_OP(e, name, ...) {name, FL_OP_##e},
#include "ops/ops.def"
#undef FL_OP
};
#define N_DEFS (sizeof defs / sizeof defs[0])

#define N_THREADS 8
#define ROUNDS    200

static pthread_barrier_t start;

static void *worker(void *arg) {
    size_t seed = (size_t)(uintptr_t)arg;
    long bad = 0;
    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = 0; i < N_DEFS; i++) {
            size_t j = (i * 7 + seed * 31 + (size_t)r) % N_DEFS; /* different orders */
            if ((int)fl__op_lookup(defs[j].name) != defs[j].kind) {
                bad++;
            }
        }
        if (fl__op_lookup("NotAnOpAtAll") != FL_OP_UNKNOWN) {
            bad++;
        }
    }
    return (void *)(intptr_t)bad;
}

static void test_concurrent_first_use(void **state) {
    (void)state;
    pthread_t t[N_THREADS];
    assert_int_equal(pthread_barrier_init(&start, NULL, N_THREADS), 0);
    for (size_t i = 0; i < N_THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i), 0);
    }
    long bad = 0;
    for (size_t i = 0; i < N_THREADS; i++) {
        void *r = NULL;
        assert_int_equal(pthread_join(t[i], &r), 0);
        bad += (long)(intptr_t)r;
    }
    pthread_barrier_destroy(&start);
    assert_int_equal(bad, 0);
}

static void test_every_op_found(void **state) {
    (void)state;
    assert_int_equal(N_DEFS, FL_OP_COUNT - 1);
    for (size_t i = 0; i < N_DEFS; i++) {
        char *copy = strdup(defs[i].name);
        assert_non_null(copy);
        assert_int_equal(fl__op_lookup(copy), defs[i].kind);
        assert_string_equal(fl__op_name(defs[i].kind), defs[i].name);
        free(copy);
    }
}

static void test_unknown_names_not_found(void **state) {
    (void)state;
    static const char *const none[] = {"",         "?",          "const",  "CONST",
                                       "Const ",   " Const",     "Cons",   "Const2",
                                       "NoSuchOp", "Identity\n", "conv2d", "MatMulX"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        assert_int_equal(fl__op_lookup(none[i]), FL_OP_UNKNOWN);
    }
    char buf[4200];
    for (size_t i = 0; i < N_DEFS; i++) {
        const char *s = defs[i].name;
        size_t len = strlen(s);
        assert_true(len + 2 < sizeof buf);
        /* every proper prefix that is not itself an op */
        for (size_t l = 0; l < len; l++) {
            memcpy(buf, s, l);
            buf[l] = '\0';
            int k = fl__op_lookup(buf);
            if (k != FL_OP_UNKNOWN) {
                assert_string_equal(fl__op_name(k), buf);
            }
        }
        /* a suffix added, the first character's case flipped, the last changed */
        snprintf(buf, sizeof buf, "%s_", s);
        assert_int_equal(fl__op_lookup(buf), FL_OP_UNKNOWN);
        snprintf(buf, sizeof buf, "%s", s);
        buf[0] = (char)(buf[0] ^ 0x20);
        assert_int_equal(fl__op_lookup(buf), FL_OP_UNKNOWN);
        snprintf(buf, sizeof buf, "%s", s);
        buf[len - 1] = '#';
        assert_int_equal(fl__op_lookup(buf), FL_OP_UNKNOWN);
    }
    memset(buf, 'A', sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    assert_int_equal(fl__op_lookup(buf), FL_OP_UNKNOWN);
}

/* fl__op_lookup_n (an op's name where it lies, not NUL-terminated) finds
 * what fl__op_lookup finds for the same bytes: every op's name with bytes
 * after it, each of its proper prefixes, the unknown names above. */
static void test_lookup_n_agrees(void **state) {
    (void)state;
    char buf[4200];
    for (size_t i = 0; i < N_DEFS; i++) {
        const char *s = defs[i].name;
        size_t len = strlen(s);
        assert_true(len + 2 < sizeof buf);
        snprintf(buf, sizeof buf, "%sX", s);
        assert_int_equal(fl__op_lookup_n(buf, len), defs[i].kind);
        assert_int_equal(fl__op_lookup_n(buf, len + 1), FL_OP_UNKNOWN);
        for (size_t l = 0; l < len; l++) {
            char prefix[4200];
            memcpy(prefix, s, l);
            prefix[l] = '\0';
            assert_int_equal(fl__op_lookup_n(s, l), fl__op_lookup(prefix));
        }
    }
    static const char *const none[] = {"?", "const", "Const ", "Cons", "Const2", "MatMulX"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        assert_int_equal(fl__op_lookup_n(none[i], strlen(none[i])), FL_OP_UNKNOWN);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_first_use), /* first: races the build */
        cmocka_unit_test(test_every_op_found),
        cmocka_unit_test(test_unknown_names_not_found),
        cmocka_unit_test(test_lookup_n_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
