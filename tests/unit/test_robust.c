/*
 * test_robust.c - malformed bytes never crash, hang or half-succeed.
 *
 * Deterministic mutations (bit flips, byte overwrites, truncations, spliced
 * varints) of real GraphDefs are fed to fl_analyze. Each run must either
 * succeed with a consistent report or fail with a status and a non-empty
 * message. Run under ASan/UBSan in CI, this is a cheap, always-on cousin of
 * the libFuzzer target in tests/fuzz.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) {
    /* xorshift64*: fixed seed, so every run tests the same inputs. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static void mutate(uint8_t *buf, size_t *len) {
    int kind = (int)(rng() % 4);
    size_t n = *len;
    if (n == 0) {
        return;
    }
    switch (kind) {
    case 0: /* flip a few bits */
        for (int i = 0; i < 1 + (int)(rng() % 4); i++) {
            buf[rng() % n] ^= (uint8_t)(1u << (rng() % 8));
        }
        break;
    case 1: /* overwrite a byte with an interesting value */
    {
        static const uint8_t vals[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0x0a, 0x12, 0x3a};
        buf[rng() % n] = vals[rng() % sizeof vals];
        break;
    }
    case 2: /* truncate */
        *len = (size_t)(rng() % n);
        break;
    default: /* a huge varint length in the middle */
    {
        size_t at = rng() % n;
        const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
        for (size_t i = 0; i < sizeof big && at + i < n; i++) {
            buf[at + i] = big[i];
        }
        break;
    }
    }
}

static void run_mutations(const uint8_t *orig, size_t len, int rounds, int *ok, int *bad) {
    uint8_t *buf = malloc(len ? len : 1);
    assert_non_null(buf);
    for (int r = 0; r < rounds; r++) {
        memcpy(buf, orig, len);
        size_t n = len;
        mutate(buf, &n);
        fl_options o;
        fl_options_init(&o);
        o.per_node = (r % 2) == 0;
        fl_report *rep = NULL;
        fl_status st = fl_analyze(buf, n, &o, &rep);
        assert_non_null(rep);
        if (st == FL_OK) {
            assert_null(rep->error);
            assert_non_null(rep->totals.flops.text);
            (*ok)++;
        } else {
            assert_non_null(rep->error);
            assert_true(strlen(rep->error) > 0);
            (*bad)++;
        }
        fl_report_free(rep);
    }
    free(buf);
}

static void test_mutated_tiny_cnn(void **state) {
    (void)state;
    size_t len;
    uint8_t *orig = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &len);
    assert_non_null(orig);
    int ok = 0, bad = 0;
    run_mutations(orig, len, 3000, &ok, &bad);
    printf("tiny_cnn: %d mutants analysed, %d rejected with a message\n", ok, bad);
    assert_true(bad > 0);
    free(orig);
}

static void test_mutated_corpus(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_mutated_corpus")) {
        fl_test_skip();
    }
    const char *files[] = {"human-antispoof.pb", "grappler-while_loop.pb",
                           "grappler-function_functional_while.pb", "human-faceboxes.pb",
                           "human-nanodet.pb"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tf/%s", FL_CORPUS_DIR, files[i]);
        size_t len;
        uint8_t *orig = fl_test_read_file(path, &len);
        assert_non_null(orig);
        int ok = 0, bad = 0;
        run_mutations(orig, len, i == 3 ? 300 : 600, &ok, &bad);
        printf("%s: %d mutants analysed, %d rejected with a message\n", files[i], ok, bad);
        free(orig);
    }
}

/* Graphs that are valid protobuf but hostile in structure. */
static void test_hostile_structures(void **state) {
    (void)state;
    /* A Reshape whose target is not a multiple of the input size. */
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){6});
    tg_const_int(g, "s", 3, 1, (int64_t[]){2}, (int64_t[]){4, -1});
    tg_node *r = tg_add(g, "r", "Reshape", "x", "s", NULL);
    tg_attr_type(r, "T", 1);
    fl_options o;
    fl_options_init(&o);
    tg_expect_error(g, &o, FL_EINVAL, "node 'r' (Reshape)");
    tg_free(g);

    /* Dimensions whose product overflows 64 bits. */
    g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1ll << 20, 1ll << 20, 1ll << 20, 1ll << 20});
    tg_node *n = tg_add(g, "relu", "Relu", "x", NULL);
    tg_attr_type(n, "T", 1);
    tg_expect_error(g, &o, FL_EOVERFLOW, "overflows");
    tg_free(g);

    /* A very deep chain analyses without deep recursion. */
    g = tg_new();
    tg_placeholder(g, "x", 1, 1, (int64_t[]){4});
    char prev[32] = "x", name[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "r%d", i);
        tg_node *m = tg_add(g, name, "Relu", prev, NULL);
        tg_attr_type(m, "T", 1);
        memcpy(prev, name, sizeof prev);
    }
    fl_report *rep = tg_analyze(g, &o);
    assert_int_equal(rep->totals.flops.value, 4 * 20000);
    fl_report_free(rep);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_tiny_cnn),
        cmocka_unit_test(test_mutated_corpus),
        cmocka_unit_test(test_hostile_structures),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
