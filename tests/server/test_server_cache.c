/*
 * test_server_cache.c - foldlined's LRU result cache (server/cache.c): hits
 * return the stored bytes, the bound (replies and keys) is kept by evicting
 * least recently used entries, counters count, the hash separates what it
 * must, and a hit needs the whole key to match, not only its hash; a
 * profile's key follows every figure that can reach a reply and its source
 * (the refill after streaming kernels, the run's gap).
 */
#include "cache.h"
#include "foldline/roofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs these before it; keep the order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

/* A key whose "graph" is the string s (no other part). */
static fl_cache_key key_of(const char *s) {
    fl_cache_key k;
    fl_key_init(&k, s, strlen(s));
    return k;
}

static bool has(fl_cache *c, const char *k) {
    fl_cache_key h = key_of(k);
    unsigned char *out = NULL;
    size_t len = 0;
    bool hit = fl_cache_get(c, &h, &out, &len);
    free(out);
    return hit;
}

static void put(fl_cache *c, const char *k, size_t len) {
    fl_cache_key h = key_of(k);
    unsigned char *buf = calloc(1, len);
    assert_non_null(buf);
    memset(buf, k[0], len);
    fl_cache_put(c, &h, buf, len);
    free(buf);
}

static void hit_returns_bytes(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(1000);
    assert_non_null(c);
    fl_cache_key h = key_of("graph-a");
    fl_cache_put(c, &h, (const unsigned char *)"reply", 5);
    unsigned char *out = NULL;
    size_t len = 0;
    assert_true(fl_cache_get(c, &h, &out, &len));
    assert_int_equal(len, 5);
    assert_memory_equal(out, "reply", 5);
    free(out);
    assert_false(has(c, "graph-b"));
    fl_cache_counters cc;
    fl_cache_read_counters(c, &cc);
    assert_int_equal(cc.hits, 1);
    assert_int_equal(cc.misses, 1);
    assert_int_equal(cc.entries, 1);
    assert_int_equal(cc.bytes, 5 + 7); /* the reply and its key */
    fl_cache_free(c);
}

/* Bound 300 bytes, entries of 100 (99 of reply, 1 of key): the fourth
 * insert evicts the least recently used one, which a lookup refreshes. */
static void evicts_least_recently_used(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(300);
    put(c, "a", 99);
    put(c, "b", 99);
    put(c, "c", 99);
    assert_true(has(c, "a")); /* a is now the most recent; b the least */
    put(c, "d", 99);
    assert_false(has(c, "b"));
    assert_true(has(c, "a"));
    assert_true(has(c, "c"));
    assert_true(has(c, "d"));
    fl_cache_counters cc;
    fl_cache_read_counters(c, &cc);
    assert_int_equal(cc.bytes, 300);
    assert_int_equal(cc.entries, 3);
    fl_cache_free(c);
}

static void too_large_is_not_stored(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(50);
    put(c, "a", 40);
    put(c, "big", 51);
    assert_false(has(c, "big"));
    assert_true(has(c, "a"));
    fl_cache_free(c);
}

static void same_key_replaces(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(1000);
    put(c, "a", 10);
    put(c, "a", 20);
    fl_cache_counters cc;
    fl_cache_read_counters(c, &cc);
    assert_int_equal(cc.entries, 1);
    assert_int_equal(cc.bytes, 20 + 1);
    fl_cache_free(c);
}

static fl_hash hash_of(const unsigned char *p, size_t n) {
    fl_hash h;
    fl_hash_init(&h);
    fl_hash_update(&h, p, n);
    return h;
}

/* Single-byte changes give different hashes, in the 8-byte steps and in
 * the tail; the same updates give the same hash. (Where one update ends
 * and the next begins may change the hash: a key is always built by the
 * same sequence of updates, and a hit compares the whole key anyway.) */
static void hash_separates(void **state) {
    (void)state;
    fl_hash a = hash_of((const unsigned char *)"graph1", 6);
    fl_hash b = hash_of((const unsigned char *)"graph2", 6);
    assert_false(a.a == b.a && a.b == b.b);
    unsigned char buf[43];
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (unsigned char)(i * 7 + 1);
    }
    fl_hash base = hash_of(buf, sizeof buf), again = hash_of(buf, sizeof buf);
    assert_true(base.a == again.a && base.b == again.b);
    for (size_t i = 0; i < sizeof buf; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1u << bit);
            fl_hash h = hash_of(buf, sizeof buf);
            assert_true(h.a != base.a && h.b != base.b);
            buf[i] ^= (unsigned char)(1u << bit);
        }
    }
    fl_hash shorter = hash_of(buf, sizeof buf - 1); /* the tail's length counts */
    assert_false(shorter.a == base.a && shorter.b == base.b);
}

/* Two requests whose hashes collide (forced here) but whose bytes differ
 * never share a reply: in the graph, in the options, or in where the graph
 * ends and the options begin. */
static void full_key_compared(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(1000);
    fl_cache_key k1, k2, k3, k4;
    fl_key_init(&k1, "graph", 5);
    fl_key_add(&k1, "opts-A", 6);
    fl_key_init(&k2, "graph", 5);
    fl_key_add(&k2, "opts-B", 6);
    fl_key_init(&k3, "graphX", 6);
    fl_key_add(&k3, "opts-A", 6);
    fl_key_init(&k4, "grap", 4);
    fl_key_add(&k4, "hopts-A", 7);
    k2.hash = k3.hash = k4.hash = k1.hash;
    fl_cache_put(c, &k1, (const unsigned char *)"reply-1", 7);
    unsigned char *out = NULL;
    size_t len = 0;
    assert_false(fl_cache_get(c, &k2, &out, &len));
    assert_false(fl_cache_get(c, &k3, &out, &len));
    assert_false(fl_cache_get(c, &k4, &out, &len));
    assert_null(out);
    fl_cache_key k1b;
    fl_key_init(&k1b, "graph", 5);
    fl_key_add(&k1b, "opts-A", 6);
    assert_true(fl_cache_get(c, &k1b, &out, &len));
    assert_memory_equal(out, "reply-1", 7);
    free(out);
    /* The colliding key replaces nothing: both entries live side by side. */
    fl_cache_put(c, &k2, (const unsigned char *)"reply-2", 7);
    fl_cache_counters cc;
    fl_cache_read_counters(c, &cc);
    assert_int_equal(cc.entries, 2);
    /* A key whose building failed is neither stored nor looked up. */
    k1b.failed = true;
    assert_false(fl_cache_get(c, &k1b, &out, &len));
    fl_key_free(&k1);
    fl_key_free(&k2);
    fl_key_free(&k3);
    fl_key_free(&k4);
    fl_key_free(&k1b);
    fl_cache_free(c);
}

/* The key of the graph "g" analysed on a profile of two memory levels and
 * the lines `extra` (figures of its own). */
static fl_cache_key profile_key(const char *extra) {
    char yaml[1024], err[256];
    snprintf(yaml, sizeof yaml,
             "schema: 1\nname: p\nkind: cpu\n"
             "compute: {vector: {fp32: {peak: 1e11, source: t}}}\n"
             "memory:\n"
             "  - {name: L2, bandwidth: 2e11, capacity: 1e6, source: t}\n"
             "  - {name: DRAM, bandwidth: 2e10, source: t}\n"
             "overhead: {seconds: 1e-6, source: t}\n%s",
             extra);
    fl_profile *p = NULL;
    fl_status st = fl_profile_parse(yaml, strlen(yaml), "p.yaml", &p, err, sizeof err);
    if (st != FL_OK) {
        fail_msg("%s", err);
    }
    fl_cache_key k = key_of("g");
    fl_key_add_profile(&k, p);
    fl_profile_free(p);
    return k;
}

static bool same_key(const fl_cache_key *a, const fl_cache_key *b) {
    return a->hash.a == b->hash.a && a->hash.b == b->hash.b && a->rest_len == b->rest_len &&
           memcmp(a->rest, b->rest, a->rest_len) == 0;
}

/* The key of `extra` against that of each of the others: equal to the
 * first, different from the rest. */
static void keys_follow(const char *extra, const char *same, const char *const *others, size_t n) {
    fl_cache_key k = profile_key(extra), s = profile_key(same);
    assert_true(same_key(&k, &s));
    for (size_t i = 0; i < n; i++) {
        fl_cache_key o = profile_key(others[i]);
        if (same_key(&k, &o)) {
            fail_msg("'%s' and '%s' give the same key", extra, others[i]);
        }
        fl_key_free(&o);
    }
    fl_key_free(&k);
    fl_key_free(&s);
}

/* The run's gap: its share and its source are both in the key (a profile
 * refitted to other traces, or its figure's source edited, is not served
 * from the cache); so is its absence. */
static void profile_key_follows_gap(void **state) {
    (void)state;
    static const char *const others[] = {
        "gap: {share: 0.125, source: runs}\n",
        "gap: {share: 0.0625, source: \"fitted to other traces\"}\n",
        "",
    };
    keys_follow("gap: {share: 0.0625, source: runs}\n", "gap: {share: 0.0625, source: runs}\n",
                others, sizeof others / sizeof others[0]);
}

/* The same for the refill after streaming kernels (`streamed`). */
static void profile_key_follows_streamed(void **state) {
    (void)state;
    static const char *const others[] = {
        "streamed: {seconds_per_byte: 5e-13, source: refill}\n",
        "streamed: {seconds_per_byte: 2.5e-13, source: other}\n",
        "",
    };
    keys_follow("streamed: {seconds_per_byte: 2.5e-13, source: refill}\n",
                "streamed: {seconds_per_byte: 2.5e-13, source: refill}\n", others,
                sizeof others / sizeof others[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hit_returns_bytes),       cmocka_unit_test(evicts_least_recently_used),
        cmocka_unit_test(too_large_is_not_stored), cmocka_unit_test(same_key_replaces),
        cmocka_unit_test(hash_separates),          cmocka_unit_test(full_key_compared),
        cmocka_unit_test(profile_key_follows_gap), cmocka_unit_test(profile_key_follows_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
