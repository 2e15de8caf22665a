/*
 * test_arena_cache.c - the blocks the process keeps for its next arenas
 * (src/util/arena.c): a freed arena's blocks are handed out again, zero; the
 * cap bounds what is kept; blocks too large to keep are freed; an arena
 * growing past the cap gives kept blocks back; buffers of fl__mem_realloc
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

/* The cap: what would pass it pushes the oldest blocks out; lowering it
 * frees blocks until it holds; a block larger than 16 MB is never kept; an
 * arena that grows past the cap with new memory gives kept blocks back
 * first, as many bytes as it takes. */
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

    /* Kept: one block of about 1 MB (a scratch array's). Under a cap of
     * 1.5 MB an arena takes new blocks of 64 .. 512 KB (960 KB) and the
     * block stays; its next block, 1 MB, takes it past the cap: the kept
     * block is freed first. */
    fl__arena_cache_set_cap(0);
    fl__arena_cache_set_cap(3u << 19);
    fl__arena_init(&a, 0);
    void *s = fl__arena_scratch(&a, 1, 1000000);
    assert_non_null(s);
    fl__arena_scratch_free(&a, s);
    size_t before = kept_bytes();
    assert_true(before >= 1000000);
    fill_arena(&a, 700u << 10, 1);
    assert_int_equal(a.reserved, 960u << 10);
    assert_int_equal(kept_bytes(), before);
    fill_arena(&a, 600u << 10, 2);
    assert_int_equal(a.reserved, (960u + 1024u) << 10);
    assert_int_equal(kept_bytes(), 0);
    fl__arena_free(&a);
    assert_true(kept_bytes() <= (3u << 19));
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
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_mem_realloc),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
