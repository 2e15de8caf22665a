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

/* A key whose "graph" is the string s (no other part): its SHA-256 and
 * length, 40 bytes. */
static fl_cache_key key_of(const char *s) {
    fl_cache_key k;
    fl_key_init(&k);
    fl_key_add_hashed(&k, s, strlen(s));
    return k;
}

static bool has(fl_cache *c, const char *k) {
    fl_cache_key h = key_of(k);
    unsigned char *out = NULL;
    size_t len = 0;
    bool hit = fl_cache_get(c, &h, &out, &len);
    free(out);
    fl_key_free(&h);
    return hit;
}

static void put(fl_cache *c, const char *k, size_t len) {
    fl_cache_key h = key_of(k);
    unsigned char *buf = calloc(1, len);
    assert_non_null(buf);
    memset(buf, k[0], len);
    fl_cache_put(c, &h, buf, len);
    free(buf);
    fl_key_free(&h);
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
    assert_int_equal(cc.bytes, 5 + 40); /* the reply and its key */
    fl_key_free(&h);
    fl_cache_free(c);
}

/* Bound 300 bytes, entries of 100 (60 of reply, 40 of key): the fourth
 * insert evicts the least recently used one, which a lookup refreshes. */
static void evicts_least_recently_used(void **state) {
    (void)state;
    fl_cache *c = fl_cache_new(300);
    put(c, "a", 60);
    put(c, "b", 60);
    put(c, "c", 60);
    assert_true(has(c, "a")); /* a is now the most recent; b the least */
    put(c, "d", 60);
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
    fl_cache *c = fl_cache_new(90);
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
    assert_int_equal(cc.bytes, 20 + 40);
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
    fl_cache_key k1 = key_of("graph"), k2 = key_of("graph"), k3 = key_of("graphX"),
                 k4 = key_of("grap");
    fl_key_add(&k1, "opts-A", 6);
    fl_key_add(&k2, "opts-B", 6);
    fl_key_add(&k3, "opts-A", 6);
    fl_key_add(&k4, "hopts-A", 7);
    k2.hash = k3.hash = k4.hash = k1.hash;
    fl_cache_put(c, &k1, (const unsigned char *)"reply-1", 7);
    unsigned char *out = NULL;
    size_t len = 0;
    assert_false(fl_cache_get(c, &k2, &out, &len));
    assert_false(fl_cache_get(c, &k3, &out, &len));
    assert_false(fl_cache_get(c, &k4, &out, &len));
    assert_null(out);
    fl_cache_key k1b = key_of("graph");
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

/* The graph enters the key as its SHA-256 and length: FIPS 180-2's
 * examples ("abc", and the 448-bit message) give the published digests,
 * whatever pieces the bytes come in. */
static void graph_key_is_sha256(void **state) {
    (void)state;
    static const unsigned char abc[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                          0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                          0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                          0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
    static const unsigned char two_blocks[32] = {0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8,
                                                 0xe5, 0xc0, 0x26, 0x93, 0x0c, 0x3e, 0x60, 0x39,
                                                 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff, 0x21, 0x67,
                                                 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1};
    fl_cache_key k = key_of("abc");
    assert_int_equal(k.len, 40);
    assert_memory_equal(k.bytes, abc, 32);
    uint64_t n;
    memcpy(&n, k.bytes + 32, 8);
    assert_int_equal(n, 3);
    fl_key_free(&k);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    fl_key_digest d;
    assert_true(fl_digest_begin(&d));
    size_t mlen = strlen(m);
    for (size_t i = 0; i < mlen; i += 5) { /* pieces of 5 bytes */
        fl_digest_update(&d, m + i, mlen - i < 5 ? mlen - i : 5);
    }
    fl_key_init(&k);
    fl_key_add_digest(&k, &d, mlen);
    assert_false(k.failed);
    assert_memory_equal(k.bytes, two_blocks, 32);
    fl_key_free(&k);
}

/* An entry holds no copy of the graph: a 4 MiB graph's entry counts its
 * reply and a 40-byte key, and is found again after the caller's graph
 * bytes are gone. One byte changed anywhere in the graph (its first, its
 * middle, its last) misses: the whole graph is in the key. */
static void entry_holds_no_graph_copy(void **state) {
    (void)state;
    size_t n = (size_t)4 << 20;
    unsigned char *g = malloc(n);
    assert_non_null(g);
    for (size_t i = 0; i < n; i++) {
        g[i] = (unsigned char)(i * 131 + (i >> 13));
    }
    fl_cache *c = fl_cache_new((size_t)1 << 20);
    fl_cache_key k;
    fl_key_init(&k);
    fl_key_add_hashed(&k, g, n);
    fl_cache_put(c, &k, (const unsigned char *)"reply", 5);
    fl_key_free(&k);
    fl_cache_counters cc;
    fl_cache_read_counters(c, &cc);
    assert_int_equal(cc.entries, 1);
    assert_int_equal(cc.bytes, 5 + 40);
    const size_t at[] = {0, n / 2, n - 1};
    for (size_t j = 0; j < 3; j++) {
        g[at[j]] ^= 1;
        fl_key_init(&k);
        fl_key_add_hashed(&k, g, n);
        unsigned char *out = NULL;
        size_t len = 0;
        assert_false(fl_cache_get(c, &k, &out, &len));
        fl_key_free(&k);
        g[at[j]] ^= 1;
    }
    fl_key_init(&k);
    fl_key_add_hashed(&k, g, n);
    free(g); /* the graph's bytes gone: the entry still answers its key */
    unsigned char *out = NULL;
    size_t len = 0;
    assert_true(fl_cache_get(c, &k, &out, &len));
    assert_memory_equal(out, "reply", 5);
    free(out);
    fl_key_free(&k);
    /* The same bytes with another length are another graph. */
    fl_cache_key a = key_of("aaaa"), b = key_of("aaaa");
    fl_key_digest d;
    assert_true(fl_digest_begin(&d));
    fl_digest_update(&d, "aaaa", 4);
    fl_key_free(&b);
    fl_key_init(&b);
    fl_key_add_digest(&b, &d, 5);
    fl_cache_put(c, &a, (const unsigned char *)"r", 1);
    assert_false(fl_cache_get(c, &b, &out, &len));
    fl_key_free(&a);
    fl_key_free(&b);
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
    return a->hash.a == b->hash.a && a->hash.b == b->hash.b && a->len == b->len &&
           memcmp(a->bytes, b->bytes, a->len) == 0;
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
        cmocka_unit_test(graph_key_is_sha256),     cmocka_unit_test(entry_holds_no_graph_copy),
        cmocka_unit_test(profile_key_follows_gap), cmocka_unit_test(profile_key_follows_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
