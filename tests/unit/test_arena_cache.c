/*
 * test_arena_cache.c - the blocks the process keeps for its next arenas
 * (src/util/arena.c): a freed arena's blocks are handed out again, zero; the
 * cap bounds what is kept; blocks too large to keep are freed; a kept block
 * serves arenas and scratch arrays of other sizes, and memory taken anew
 * gives as many kept bytes back first; a scratch array not zeroed leaves
 * none of its bytes in later zero memory; buffers of fl__mem_realloc
 * keep their contents as they grow through and out of kept blocks; and
 * threads sharing the cache each get zero memory of their own.
 */
#include "testutil.h"
#include "util/arena.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t kept_bytes(void) {
    size_t bytes, blocks;
    fl__arena_cache_stats(&bytes, &blocks);
    return bytes;
}

static void assert_zero(const unsigned char *p, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (p[k]) {
            fail_msg("byte %zu of %zu is 0x%02x, not zero", k, n, p[k]);
        }
    }
}

/* Allocations of an arena up to `total` bytes, each checked zero and then
 * written with `fill`; returns the first allocation. */
static unsigned char *fill_arena(fl_arena *a, size_t total, unsigned char fill) {
    unsigned char *first = NULL;
    size_t done = 0;
    for (size_t i = 0; done < total; i++) {
        size_t size = i % 9 == 8 ? 20000 + i % 3000 : 1 + (i * 53) % 300;
        unsigned char *p = i % 4 == 3 ? fl__arena_alloc_raw(a, size) : fl__arena_alloc(a, size);
        assert_non_null(p);
        if (i % 4 != 3) {
            assert_zero(p, size);
        }
        memset(p, fill, size);
        first = first ? first : p;
        done += size;
    }
    return first;
}

/* An arena's blocks (64 KB doubling: 64 + 128 + ... + 2048 KB for 3 MB
 * handed out) are kept when it is freed and handed out again to the next
 * arena, the same blocks (its first allocation at the same address), every
 * allocation zero although the first arena wrote every byte. */
static void test_blocks_reused_zero(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(0); /* empty to start with */
    fl__arena_cache_set_cap(cap);
    assert_int_equal(kept_bytes(), 0);
    fl_arena a;
    fl__arena_init(&a, 0);
    unsigned char *first = fill_arena(&a, 3u << 20, 0xa5);
    size_t reserved = a.reserved;
    fl__arena_free(&a);
    assert_int_equal(kept_bytes(), reserved); /* every block kept */
    for (int round = 0; round < 3; round++) {
        fl__arena_init(&a, 0);
        assert_ptr_equal(fill_arena(&a, 3u << 20, (unsigned char)(0x11 * (round + 1))), first);
        assert_int_equal(a.reserved, reserved);
        assert_int_equal(kept_bytes(), 0); /* all taken again */
        fl__arena_free(&a);
        assert_int_equal(kept_bytes(), reserved);
    }
    /* Scratch arrays come from the kept blocks too, zero, and go back. */
    fl__arena_init(&a, 0);
    unsigned char *s = fl__arena_scratch(&a, 100000, 3);
    assert_non_null(s);
    assert_zero(s, 300000);
    assert_true(kept_bytes() < reserved); /* a block taken */
    memset(s, 0x77, 300000);
    fl__arena_scratch_free(&a, s);
    assert_int_equal(kept_bytes(), reserved);
    s = fl__arena_scratch(&a, 100000, 3);
    assert_zero(s, 300000);
    fl__arena_scratch_free(&a, s);
    fl__arena_free(&a);
    fl__arena_cache_set_cap(0);
    assert_int_equal(kept_bytes(), 0);
    fl__arena_cache_set_cap(cap);
}

/* A scratch array not zeroed (fl__arena_scratch_raw) is counted against the
 * arena as the others are and goes back to the kept blocks: the scratch
 * array and the arena allocations that take its block next are zero,
 * although every byte of it was written; past the limit it fails. */
static void test_scratch_raw(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
    fl_arena a;
    fl__arena_init(&a, 0);
    unsigned char *r = fl__arena_scratch_raw(&a, 100000, 3);
    assert_non_null(r);
    assert_true(a.reserved >= 300000);
    memset(r, 0x5a, 300000);
    fl__arena_scratch_free(&a, r);
    assert_int_equal(a.reserved, 0);
    assert_true(kept_bytes() >= 300000);
    unsigned char *s = fl__arena_scratch(&a, 100000, 3);
    assert_ptr_equal(s, r); /* the same kept block */
    assert_zero(s, 300000);
    memset(s, 0x5b, 300000);
    fl__arena_scratch_free(&a, s);
    r = fl__arena_scratch_raw(&a, 100000, 3);
    assert_ptr_equal(r, s);
    memset(r, 0x5c, 300000);
    fl__arena_scratch_free(&a, r);
    fill_arena(&a, 1u << 20, 0x33); /* checks every zeroed allocation */
    fl__arena_free(&a);
    fl__arena_init(&a, 1000);
    assert_null(fl__arena_scratch_raw(&a, 2000, 1));
    assert_true(a.failed);
    fl__arena_free(&a);
    fl__arena_cache_set_cap(0);
    assert_int_equal(kept_bytes(), 0);
    fl__arena_cache_set_cap(cap);
}

/* The cap: what would pass it pushes the oldest blocks out; lowering it
 * frees blocks until it holds; a block larger than 16 MB is never kept. */
static void test_cap(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(1u << 20);
    fl_arena a;
    fl__arena_init(&a, 0);
    fill_arena(&a, 3u << 20, 0x5a); /* 64 KB .. 2 MB blocks: 4 MB in all */
    fl__arena_free(&a);
    size_t kept = kept_bytes();
    assert_true(kept > 0 && kept <= (1u << 20));
    fl__arena_cache_set_cap(256u << 10);
    assert_true(kept_bytes() <= (256u << 10));
    fl__arena_cache_set_cap(0);
    assert_int_equal(kept_bytes(), 0);

    /* An allocation of 20 MB: a block of its own, not kept. */
    fl__arena_cache_set_cap(64u << 20);
    fl__arena_init(&a, 0);
    assert_non_null(fl__arena_alloc(&a, 100));
    unsigned char *big = fl__arena_alloc(&a, 20u << 20);
    assert_non_null(big);
    assert_int_equal(big[0] | big[(20u << 20) - 1], 0);
    assert_int_equal(a.reserved, (64u << 10) + (20u << 20));
    fl__arena_free(&a);
    assert_int_equal(kept_bytes(), 64u << 10);

    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
}

/* Memory freed during an analysis serves its later needs of other sizes:
 * a freed scratch array's block (about 1 MB) becomes the next arena's first
 * block (64 KB asked: its first allocation at the block's start, the
 * block's bytes counted, nothing new taken while it has room), zero though
 * the scratch array was written. And memory taken anew frees as many kept
 * bytes first: kept blocks of 200 and 300 KB, then a scratch array of 2 MB
 * that neither holds, and neither is kept any more; freed, the 2 MB block
 * is. An arena past the cap takes no kept block more than twice the size
 * it asks for. */
static void test_other_sizes(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(64u << 20);
    fl_arena a;
    fl__arena_init(&a, 0);
    unsigned char *s = fl__arena_scratch(&a, 1, 1000000);
    assert_non_null(s);
    memset(s, 0xee, 1000000);
    fl__arena_scratch_free(&a, s);
    size_t block = kept_bytes();
    assert_true(block >= 1000000 && block < 1100000);
    fl__arena_free(&a);

    fl__arena_init(&a, 0);
    unsigned char *first = fill_arena(&a, 900000, 3); /* checks every byte zero */
    assert_true(first < s && s - first <= 64);
    assert_int_equal(a.reserved, block);
    assert_int_equal(kept_bytes(), 0);
    fl__arena_free(&a);
    assert_int_equal(kept_bytes(), block);

    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(64u << 20);
    fl__arena_init(&a, 0);
    void *s1 = fl__arena_scratch(&a, 200u << 10, 1);
    void *s2 = fl__arena_scratch(&a, 300u << 10, 1);
    assert_true(s1 && s2);
    fl__arena_scratch_free(&a, s1);
    fl__arena_scratch_free(&a, s2);
    size_t blocks;
    fl__arena_cache_stats(&block, &blocks);
    assert_int_equal(blocks, 2);
    assert_true(block > (500u << 10));
    unsigned char *big = fl__arena_scratch(&a, 2u << 20, 1);
    assert_non_null(big);
    assert_zero(big, 2u << 20);
    assert_int_equal(kept_bytes(), 0);
    fl__arena_scratch_free(&a, big);
    assert_true(kept_bytes() > (2u << 20));
    fl__arena_free(&a);

    /* A 500 KB scratch array of an arena under the cap takes the kept 2 MB
     * block; one of an arena past the cap (2.5 MB here, the arena holding
     * 3 MB) does not take it for less than half its size: the block is
     * freed and a new one taken. */
    for (int past = 0; past < 2; past++) {
        fl__arena_cache_set_cap(0);
        fl__arena_cache_set_cap(64u << 20);
        fl__arena_init(&a, 0);
        if (past) {
            assert_non_null(fl__arena_alloc(&a, 3u << 20));
        }
        big = fl__arena_scratch(&a, 2u << 20, 1);
        assert_non_null(big);
        fl__arena_scratch_free(&a, big);
        fl__arena_cache_set_cap(5u << 19);
        assert_true(kept_bytes() > (2u << 20));
        s1 = fl__arena_scratch(&a, 500u << 10, 1);
        assert_non_null(s1);
        assert_int_equal(kept_bytes(), 0);
        assert_zero(s1, 500u << 10);
        fl__arena_scratch_free(&a, s1);
        if (past) {
            assert_true(kept_bytes() > (500u << 10) && kept_bytes() < (600u << 10));
        } else {
            assert_true(kept_bytes() > (2u << 20));
        }
        fl__arena_free(&a);
    }
    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
}

/* fl__mem_realloc keeps a buffer's bytes as it grows from malloc's sizes
 * into blocks and from block to block, in place while its block has room;
 * freed, a block is kept. */
static void test_mem_realloc(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
    uint32_t *p = NULL;
    size_t n = 0;
    for (size_t want = 16; want < 400000; want = want + want / 2 + 16) {
        uint32_t *q = fl__mem_realloc(p, want * sizeof(uint32_t));
        assert_non_null(q);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(q[i], (uint32_t)(i * 2654435761u));
        }
        for (size_t i = n; i < want; i++) {
            q[i] = (uint32_t)(i * 2654435761u);
        }
        p = q;
        n = want;
    }
    /* smaller again: the same buffer, its first bytes kept */
    uint32_t *q = fl__mem_realloc(p, 1000 * sizeof(uint32_t));
    assert_ptr_equal(q, p);
    assert_int_equal(q[999], (uint32_t)(999 * 2654435761u));
    fl__mem_free(q);
    assert_true(kept_bytes() >= n * sizeof(uint32_t));
    fl__mem_free(NULL);
    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
}

/* Threads sharing the cache: each runs arenas, scratch arrays and buffers
 * over the same sizes, checks that what it gets is zero (or keeps its
 * bytes) and writes its own mark into all of it, so that memory handed to
 * two threads at once, or handed out dirty, fails a check. A thread counts
 * what fails (cmocka's assertions belong to the main thread). */
#define THREADS 4

static bool all_are(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t k = 0; k < n; k++) {
        if (p[k] != v) {
            return false;
        }
    }
    return true;
}

static void *worker(void *arg) {
    unsigned char mark = (unsigned char)(uintptr_t)arg;
    uintptr_t bad = 0;
    for (int round = 0; round < 40; round++) {
        fl_arena a;
        fl__arena_init(&a, 0);
        size_t total = (size_t)(256 + 97 * ((round + mark) % 9)) << 10, done = 0;
        unsigned char *first = NULL;
        for (size_t i = 0; done < total; i++) {
            size_t size = i % 9 == 8 ? 20000 + i % 3000 : 1 + (i * 53) % 300;
            unsigned char *p = fl__arena_alloc(&a, size);
            bad += !p || !all_are(p, size, 0);
            if (p) {
                memset(p, mark, size);
                first = first ? first : p;
            }
            done += size;
        }
        size_t sn = 80000 + 2000 * (size_t)(round % 5);
        unsigned char *s = fl__arena_scratch(&a, sn, 1);
        bad += !s || !all_are(s, sn, 0);
        unsigned char *m = fl__mem_realloc(NULL, 50000);
        if (m) {
            memset(m, mark, 50000);
            m = fl__mem_realloc(m, 200000);
        }
        bad += !m || !all_are(m, 50000, mark);
        if (s && m) {
            memset(s, mark, sn);
            memset(m, mark, 200000);
            bad += !all_are(first, 1, mark) || !all_are(s, sn, mark) || !all_are(m, 200000, mark);
        }
        fl__mem_free(m);
        fl__arena_scratch_free(&a, s);
        bad += a.failed;
        fl__arena_free(&a);
    }
    return (void *)bad;
}

static void test_threads(void **state) {
    (void)state;
    size_t cap = fl__arena_cache_set_cap(4u << 20);
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(i + 1)), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        void *bad = NULL;
        assert_int_equal(pthread_join(t[i], &bad), 0);
        assert_int_equal((uintptr_t)bad, 0);
    }
    assert_true(kept_bytes() > 0 && kept_bytes() <= (4u << 20));
    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(cap);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_reused_zero),
        cmocka_unit_test(test_scratch_raw),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_other_sizes),
        cmocka_unit_test(test_mem_realloc),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
