/*
 * arena.h - bump allocator that owns everything of one analysis.
 *
 * An arena hands out memory from large blocks and frees it all at once in
 * fl__arena_free(). Nothing allocated from it is freed individually. Failure is
 * sticky (as in SQLite): once an allocation fails, `failed` stays set and every
 * later allocation returns NULL, so callers may allocate several times and check
 * once. An arena is not thread-safe; one analysis uses one arena on one thread.
 *
 * Memory is never handed out twice and every allocation starts out zero:
 * large blocks are fresh mappings (pages zero without a write), small
 * ones and blocks used before (the process keeps freed blocks, up to 64 MB
 * and never more than its analyses once used at the same time, for its
 * next arenas and scratch arrays) are zeroed as the allocations reach
 * them, so the zero-filling calls (zalloc, calloc, grow) write nothing
 * themselves. That matters on large
 * graphs, where zeroing megabytes of fresh pages (which the kernel hands out
 * zeroed) used to cost a pass over memory per allocation. Whoever writes past
 * the end of an allocation breaks this for the next one, as any overflow
 * would. fl__arena_alloc_raw hands out memory whose contents are
 * unspecified, for buffers written before they are read.
 */
#ifndef FL_UTIL_ARENA_H
#define FL_UTIL_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A block of an arena (arena.c's; here for the inline path below). */
struct fl_arena_block {
    struct fl_arena_block *next;
    struct fl_arena_block *prev; /* kept blocks only: the next newer one */
    size_t size;                 /* usable bytes after the header */
    size_t step;                 /* the size it was asked for (an arena's ladder goes on
                                  * from it) */
    size_t used;                 /* bytes handed out */
    size_t charged;              /* bytes from the start counted in the arena's
                                  * `reserved` (an arena block's; arena.c) */
    size_t ready;                /* data bytes known zero (and, below `dirty`, zeroed) */
    size_t dirty;                /* bytes from the start that may hold old data: zeroed
                                  * as handed out; past them the block is zero */
    bool populate;               /* zero past `dirty` but not yet faulted in: faulted in
                                  * POPULATE_STEP ahead (a large block of the ladder) */
    bool own;                    /* a mapping of its own, else from malloc */
    void *map;                   /* a table's own mapping (fl__arena_table; no data here) */
    size_t mapped;               /* its bytes; 0: none */
    max_align_t data[];
};

/* Size classes of the small scratch chunks an arena keeps (arena.c). */
#define FL_ARENA_SPARE_CLASSES 10

typedef struct fl_arena {
    struct fl_arena_block *head;         /* newest block first */
    size_t used;                         /* bytes handed out, for statistics */
    size_t reserved;                     /* bytes held: the blocks' bytes counted (under a
                                          * limit, the part of each its allocations have
                                          * reached), tables and scratch */
    size_t limit;                        /* 0 = unlimited; otherwise reserved may not exceed it */
    bool failed;                         /* sticky: an allocation failed */
    bool over_limit;                     /* one failed for `limit` (else the system refused) */
    void *spare[FL_ARENA_SPARE_CLASSES]; /* small scratch chunks given back, kept for
                                          * the arena's next ones (arena.c) */
} fl_arena;

/* Initialises an empty arena. `limit` bounds the total memory (0: none). */
void fl__arena_init(fl_arena *a, size_t limit);

/* Releases every block. The arena may be reused after fl__arena_init(). */
void fl__arena_free(fl_arena *a);

/* Set while a test's fail hook (below) is: every allocation asks it. */
extern bool fl__arena_hooked;

/* `size` bytes off the newest block when it has them ready (known zero:
 * nothing to zero) and no check stands in the way; else NULL, and nothing
 * changed. The usual case of an allocation, inline. */
static inline void *fl__arena_bump_ready(fl_arena *a, size_t size) {
    struct fl_arena_block *b = a->head;
    size_t need = (size + 15) & ~(size_t)15; /* arena.c's ARENA_ALIGN */
    /* size - 1 < SIZE_MAX / 2: neither 0 nor past the slow path's limit */
    if (b && !a->failed && !fl__arena_hooked && size - 1 < SIZE_MAX / 2 &&
        b->used + need <= b->ready) {
        void *p = (char *)b->data + b->used;
        b->used += need;
        a->used += need;
        return p;
    }
    return NULL;
}

/* fl__arena_alloc's whole procedure (a new block, zeroing, the checks). */
void *fl__arena_alloc_slow(fl_arena *a, size_t size);

/* Returns `size` bytes aligned to 16, or NULL (and sets a->failed) when memory
 * or the limit is exhausted. The memory is zero (see above); callers that need
 * zeroes say so with zalloc/calloc. Inline when the newest block has the
 * room and its bytes are known zero (an import makes tens of thousands of
 * allocations; a call each was a twentieth of its instructions). */
static inline void *fl__arena_alloc(fl_arena *a, size_t size) {
    void *p = fl__arena_bump_ready(a, size);
    return p ? p : fl__arena_alloc_slow(a, size);
}

/* fl__arena_alloc_raw's whole procedure. */
void *fl__arena_alloc_raw_slow(fl_arena *a, size_t size);

/* As fl__arena_alloc, but the contents are unspecified (not zeroed): for
 * memory the caller writes before reading, such as a scratch stack. Inline
 * as fl__arena_alloc is. */
static inline void *fl__arena_alloc_raw(fl_arena *a, size_t size) {
    void *p = fl__arena_bump_ready(a, size);
    return p ? p : fl__arena_alloc_raw_slow(a, size);
}

/* As fl__arena_alloc, zero-filled (fresh arena memory is zero). */
static inline void *fl__arena_zalloc(fl_arena *a, size_t size) {
    return fl__arena_alloc(a, size);
}

/* Allocates n * size bytes, zero-filled, failing (NULL) on overflow. */
static inline void *fl__arena_calloc(fl_arena *a, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        a->failed = true;
        return NULL;
    }
    return fl__arena_alloc(a, n * size);
}

/* As fl__arena_calloc, for a large table read at random places (a hash
 * index): from 4 MB, a mapping of its own in transparent huge pages where
 * the system gives them (madvise), so that a probe costs a cache miss and
 * not also a walk of the page tables (on 10M nodes the name index's 256 MB
 * made that walk most of the import's time). Counted and released as the
 * arena's other memory. */
void *fl__arena_table(fl_arena *a, size_t n, size_t size);

/* Copies `len` bytes of `s` and appends a NUL. */
char *fl__arena_strndup(fl_arena *a, const char *s, size_t len);

/* Copies a NUL-terminated string. */
char *fl__arena_strdup(fl_arena *a, const char *s);

/* Where fl__arena_pool_strndup packs strings: the free bytes of its
 * current chunk (zeroed: none yet). */
typedef struct fl_str_pool {
    char *p;
    size_t left;
} fl_str_pool;

/* The size of a pool's chunks; a string of a sixteenth of it or more is a
 * copy of its own. */
#define FL_STR_CHUNK (64u * 1024)

/* fl__arena_pool_strndup's way for a long string (an allocation of its
 * own) or when the current chunk is too small (a new chunk). */
char *fl__arena_pool_strndup_slow(fl_arena *a, fl_str_pool *sp, const char *s, size_t len);

/* As fl__arena_strndup, the copy bumped from sp's chunk of the arena
 * (64 KiB, unaligned, not zeroed) instead of an allocation of its own: for
 * the many short names a model's reader copies. */
static inline char *fl__arena_pool_strndup(fl_arena *a, fl_str_pool *sp, const char *s,
                                           size_t len) {
    if (sp->left <= len || len >= FL_STR_CHUNK / 16) {
        return fl__arena_pool_strndup_slow(a, sp, s, len);
    }
    char *copy = sp->p;
    if (len) {
        memcpy(copy, s, len);
    }
    copy[len] = '\0';
    sp->p += len + 1;
    sp->left -= len + 1;
    return copy;
}

/* printf into arena memory. */
char *fl__arena_printf(fl_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Tests only: when set, `fail(arg)` is asked before every allocation of
 * every arena (and the engine's other allocations that count as such); true
 * makes that allocation fail as if memory were exhausted. NULL (the
 * default): never. Not thread-safe: set it only while no analysis runs. */
void fl__arena_set_fail_hook(bool (*fail)(void *arg), void *arg);

/* Grows an array held in the arena: returns a new array of `new_n` elements with
 * the first `old_n` copied from `old` (the old memory is simply abandoned). */
void *fl__arena_grow(fl_arena *a, void *old, size_t old_n, size_t new_n, size_t elem);

/* Scratch memory of one step (a sort's queues, the report's accumulators),
 * n * size bytes, zero: freed by the caller with fl__arena_scratch_free as
 * soon as the step is done, and counted against the arena's limit while it
 * is held (arena->reserved), so an analysis's memory limit covers it as it
 * covers arena memory. Asks the test hook like any allocation. NULL (and
 * a->failed, sticky) on overflow, past the limit or out of memory. */
void *fl__arena_scratch(fl_arena *a, size_t n, size_t size);

/* As fl__arena_scratch, the contents unspecified (not zeroed): for arrays
 * the step writes before it reads them (a sort's queue and edge lists). */
void *fl__arena_scratch_raw(fl_arena *a, size_t n, size_t size);

/* Frees scratch memory of `a` (NULL: nothing). */
void fl__arena_scratch_free(fl_arena *a, void *p);

/* Grows scratch array p (NULL: none yet) of old_n elements to new_n, the
 * first old_n kept and the rest zero. On failure NULL, and p stays the
 * caller's to free. */
void *fl__arena_scratch_grow(fl_arena *a, void *p, size_t old_n, size_t new_n, size_t size);

/* Tests only: the bytes and blocks the process keeps for its next arenas
 * (freed arenas' blocks, shared by every thread). */
void fl__arena_cache_stats(size_t *bytes, size_t *blocks);

/* Tests only: sets the most bytes kept (64 MB unless set), frees kept
 * blocks over it, and returns the previous cap. */
size_t fl__arena_cache_set_cap(size_t cap);

/* Memory outside arenas, as realloc and free: a buffer that grows (the
 * graph journal's arrays). Large ones come from and go back to the blocks
 * the process keeps (above), so that memory used on every analysis is not
 * faulted in again each time. The contents past the old size are
 * unspecified; NULL when memory is exhausted (p is then unchanged). */
void *fl__mem_realloc(void *p, size_t size);

/* Frees memory of fl__mem_realloc (NULL: nothing). */
void fl__mem_free(void *p);

/* Tests only: whether the allocation the fail hook is being asked about is
 * scratch memory (fl__arena_scratch). */
bool fl__alloc_hook_is_scratch(void);

#endif
