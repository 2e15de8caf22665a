/*
 * arena.c - bump allocator; see arena.h for the contract.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "util/arena.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_ALIGN 16
_Static_assert(ARENA_ALIGN == 16, "arena.h's inline path rounds to 16");
#define ARENA_MIN_BLOCK (64 * 1024)

/* Large blocks are faulted in ahead of use, POPULATE_STEP bytes at a time
 * (one madvise instead of one page fault per 4 KB page); blocks below
 * POPULATE_MIN fault page by page as before. */
#define POPULATE_MIN  (2u * 1024 * 1024)
#define POPULATE_STEP (1u * 1024 * 1024)

/* Blocks up to LAZY_ZERO_MAX come from malloc (below malloc's mmap threshold
 * calloc would clear the whole block itself, and a small analysis uses a
 * fraction of its 64 KB blocks); larger blocks come from calloc (fresh
 * mmap'd pages, zero without a write). Bytes that may hold old data are
 * zeroed as the allocations reach them, ZERO_STEP bytes ahead at a time. */
#define LAZY_ZERO_MAX (128u * 1024)
#define ZERO_STEP     1024u

/* struct fl_arena_block: arena.h (the inline allocation path reads it). */

/* Makes the block ready up to at least `end` (at most `charged`, which
 * holds it): the old data below `dirty` zeroed up to there (and ZERO_STEP
 * beyond); past `dirty`, a large block's pages faulted in (a hint: on a
 * kernel without MADV_POPULATE_WRITE the pages fault on first touch as
 * usual), any other's simply zero. */
static void make_ready(struct fl_arena_block *b, size_t end) {
    if (b->ready < b->dirty) {
        size_t want = end + ZERO_STEP < b->dirty ? end + ZERO_STEP : b->dirty;
        memset((char *)b->data + b->ready, 0, want - b->ready);
        b->ready = want < b->charged ? want : b->charged;
        if (want >= end) {
            return;
        }
    }
    if (!b->populate) {
        b->ready = b->charged;
        return;
    }
#ifdef MADV_POPULATE_WRITE
    const size_t page = 4096;
    uintptr_t base = (uintptr_t)b->data;
    uintptr_t from = (base + b->ready + page - 1) & ~(uintptr_t)(page - 1);
    size_t want = end + POPULATE_STEP;
    if (want > b->charged) { /* no page past what the limit counts */
        want = b->charged;
    }
    uintptr_t to = (base + want) & ~(uintptr_t)(page - 1);
    if (to > from) {
        (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
    }
    b->ready = want;
#else
    b->ready = b->charged;
#endif
}

/* Freed blocks are kept for the process's next arenas and scratch arrays,
 * in one cache the threads share, up to cache_cap bytes. An analysis takes
 * a ladder of blocks (64 KB doubling) and a few scratch arrays per step and
 * frees them; given back, the large ones were unmapped, and the next
 * analysis faulted the same memory in again, page by page, each page
 * cleared by the kernel: on a VM that is microseconds a page, a third of a
 * medium graph's time. A block is handed out again for any arena block or
 * scratch array it holds, the smallest kept one that does (the ladder's
 * sizes recur, and an arena uses a larger block's room as well); its bytes
 * that held data are zeroed again as they are handed out. The cache is
 * bounded three ways: blocks over CACHE_BLOCK bytes are not kept; a block
 * that takes it past its cap pushes out the oldest; and memory taken anew
 * from the system (no kept block holds it) first frees as many bytes of
 * kept blocks, the oldest first. So memory freed during an analysis serves
 * its later steps of other sizes, and what is kept does not raise the peak
 * of memory in use (a large table's mapping aside, see cache_make_room):
 * within one analysis as without the cache, and a process keeps at most
 * what its analyses once used at the same time.
 * Blocks above LAZY_ZERO_MAX are mappings of their own (but on a graph
 * past the cap, see block_new), so that a freed one is returned to the
 * system at once (from malloc it could stay in its heap, or raise malloc's
 * mmap threshold so that the next ones did). Under
 * AddressSanitizer a kept block is poisoned until it is used again. */
#define CACHE_CAP   (64u * 1024 * 1024)
#define CACHE_BLOCK (16u * 1024 * 1024)

#if defined(__SANITIZE_ADDRESS__)
#define FL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FL_ASAN 1
#endif
#endif
#ifdef FL_ASAN
#include <sanitizer/asan_interface.h>
#define OWN_MAPS       0
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define OWN_MAPS       1
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fl_arena_block *cache_new, *cache_old; /* newest and oldest kept */
static size_t cache_bytes;                           /* data bytes of the kept blocks */
static size_t cache_blocks;
static size_t cache_cap = CACHE_CAP;

/* Takes b out of the cache; cache_mu held. */
static void cache_unlink(struct fl_arena_block *b) {
    *(b->prev ? &b->prev->next : &cache_new) = b->next;
    *(b->next ? &b->next->prev : &cache_old) = b->prev;
    cache_bytes -= b->size;
    cache_blocks--;
}

/* The bytes mapped for a block of `size` data bytes over LAZY_ZERO_MAX
 * (the header, then the data, to a whole page). */
static size_t block_map_len(size_t size) {
    const size_t page = 4096;
    return (sizeof(struct fl_arena_block) + size + page - 1) & ~(page - 1);
}

/* A new block of `size` data bytes, its `size`, `dirty` and `own` set, or
 * NULL: small ones from malloc (their bytes dirty), larger ones a mapping
 * of their own (zero pages), or from calloc for an arena `past` the cap:
 * such a graph's blocks are not kept for its next analysis, so freeing
 * them first gives memory back to malloc's heap, where the next sizes
 * reuse it without faulting it in again (unmapped, it would be). Under
 * AddressSanitizer all from malloc: its leak check does not read our own
 * mappings for the pointers that keep other memory reachable (an arena's
 * older, smaller blocks). */
static struct fl_arena_block *block_new(size_t size, bool past) {
    struct fl_arena_block *b;
    bool own = OWN_MAPS && size > LAZY_ZERO_MAX && !past;
    if (size <= LAZY_ZERO_MAX) {
        b = malloc(sizeof(*b) + size);
    } else if (!own) {
        b = calloc(1, sizeof(*b) + size);
    } else {
        void *p = mmap(NULL, block_map_len(size), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        b = p == MAP_FAILED ? NULL : p;
    }
    if (b) {
        b->size = size;
        b->dirty = size <= LAZY_ZERO_MAX ? size : 0;
        b->own = own;
    }
    return b;
}

static void block_release(struct fl_arena_block *b) {
    if (!b->own) {
        free(b);
    } else {
        (void)munmap(b, block_map_len(b->size));
    }
}

/* Takes the oldest kept blocks out until at most `keep` bytes are kept, and
 * returns them as a list (linked by `next`) for the caller to free once it
 * has let go of cache_mu; cache_mu held. */
static struct fl_arena_block *cache_shed(size_t keep) {
    struct fl_arena_block *out = NULL;
    while (cache_bytes > keep) {
        struct fl_arena_block *b = cache_old;
        cache_unlink(b);
        b->next = out;
        out = b;
    }
    return out;
}

static void blocks_free(struct fl_arena_block *b) {
    while (b) {
        struct fl_arena_block *next = b->next;
        UNPOISON(b->data, b->size);
        block_release(b);
        b = next;
    }
}

/* Gives back block b (not a table's): kept for reuse, or freed. */
static void block_put(struct fl_arena_block *b) {
    if (b->size > CACHE_BLOCK) {
        block_release(b);
        return;
    }
    /* What may hold data now: the old data not yet zeroed again, or what
     * was handed out (past it the bytes were zeroed, or are zero pages). */
    b->dirty = b->ready < b->dirty ? b->dirty : b->used;
    POISON(b->data, b->size);
    pthread_mutex_lock(&cache_mu);
    b->prev = NULL;
    b->next = cache_new;
    *(cache_new ? &cache_new->prev : &cache_old) = b;
    cache_new = b;
    cache_bytes += b->size;
    cache_blocks++;
    struct fl_arena_block *out = cache_shed(cache_cap);
    pthread_mutex_unlock(&cache_mu);
    blocks_free(out);
}

/* Before `size` bytes are taken anew from the system: as many bytes of
 * kept blocks are freed first, the oldest first, so that what is kept does
 * not add to the peak (a kept block that holds `size` bytes would have
 * served instead). A table's mapping (fl__arena_table), which no kept
 * block serves, does so only when its arena, holding `held` bytes, grows
 * past the cap: made at the start of every analysis of a large graph, it
 * would otherwise free the blocks the analysis's next steps take. */
static void cache_make_room(size_t size, bool table, size_t held) {
    pthread_mutex_lock(&cache_mu);
    struct fl_arena_block *out = NULL;
    if (!table || held > cache_cap || size > cache_cap - held) {
        out = cache_shed(cache_bytes > size ? cache_bytes - size : 0);
    }
    pthread_mutex_unlock(&cache_mu);
    blocks_free(out);
}

/* A block of at least `size` data bytes and at most `most`: the smallest
 * kept one (the newest of those), else a new one of `size` once as many
 * kept bytes are freed; NULL when memory is exhausted. Its `size`, `dirty`
 * and `step` are set (`step`: `size`), its other fields are the caller's.
 * For an arena holding `held` bytes past the cap (a graph larger than what
 * is kept), at most twice `size`: the cache cannot keep that analysis's
 * memory for the next one anyway, and a larger block taken for less than
 * it holds would leave its size to be taken anew when asked for next (a
 * new block, where freeing the kept one first gave its memory back). */
static struct fl_arena_block *block_get(size_t size, size_t most, size_t held) {
    struct fl_arena_block *b = NULL;
    pthread_mutex_lock(&cache_mu);
    bool past = held > cache_cap;
    if (past && size <= most / 2) {
        most = 2 * size;
    }
    for (struct fl_arena_block *k = cache_new; k; k = k->next) {
        if (k->size >= size && k->size <= most && (!b || k->size < b->size)) {
            b = k;
            if (k->size == size) {
                break;
            }
        }
    }
    if (b) {
        cache_unlink(b);
    }
    pthread_mutex_unlock(&cache_mu);
    if (!b) {
        cache_make_room(size, false, 0);
        b = block_new(size, past);
    }
    if (b) {
        UNPOISON(b->data, b->size);
        b->step = size;
    }
    return b;
}

void fl__arena_cache_stats(size_t *bytes, size_t *blocks) {
    pthread_mutex_lock(&cache_mu);
    *bytes = cache_bytes;
    *blocks = cache_blocks;
    pthread_mutex_unlock(&cache_mu);
}

size_t fl__arena_cache_set_cap(size_t cap) {
    pthread_mutex_lock(&cache_mu);
    size_t old = cache_cap;
    cache_cap = cap;
    struct fl_arena_block *out = cache_shed(cap);
    pthread_mutex_unlock(&cache_mu);
    blocks_free(out);
    return old;
}

void fl__arena_init(fl_arena *a, size_t limit) {
    memset(a, 0, sizeof(*a));
    a->limit = limit;
}

static void spare_free(fl_arena *a);

void fl__arena_free(fl_arena *a) {
    spare_free(a);
    struct fl_arena_block *b = a->head;
    while (b) {
        struct fl_arena_block *next = b->next;
        if (b->mapped) {
            (void)munmap(b->map, b->mapped);
            free(b);
        } else {
            block_put(b);
        }
        b = next;
    }
    a->head = NULL;
    a->used = 0;
    a->reserved = 0;
}

static bool (*fail_hook)(void *arg);
static void *fail_hook_arg;
bool fl__arena_hooked;

void fl__arena_set_fail_hook(bool (*fail)(void *arg), void *arg) {
    fail_hook = fail;
    fail_hook_arg = arg;
    fl__arena_hooked = fail != NULL;
}

/* Under a limit an arena block counts against it only as far as its
 * allocations have reached, CHARGE_STEP bytes at a time (a block faulted
 * in ahead: a 32nd of it, up to POPULATE_STEP; no page is faulted in past
 * what is counted): its room beyond is not memory the analysis holds
 * (pages never touched, or a kept block's). So the blocks' sizes are those
 * of the ladder under any limit, and what an analysis is charged at each
 * step is the same under every limit it fits in: a larger limit never
 * fails where a smaller one passed. (Blocks cut down to the room a limit
 * left made it depend on the limit: swin_t with the passes fitted in
 * 12-15 MB, not in 16 or 17, where the ladder's 8 MB block took the room
 * the passes' scratch arrays and journal needed.) */
#define CHARGE_STEP (64u * 1024)

/* Counts b, a's newest block or a new one, as far as `end` at least, or
 * fails (a->failed, over_limit) when that passes the limit. */
static bool charge(fl_arena *a, struct fl_arena_block *b, size_t end) {
    if (end <= b->charged) {
        return true;
    }
    size_t step = CHARGE_STEP;
    while (b->populate && step < POPULATE_STEP && step < b->size / 32) {
        step *= 2;
    }
    size_t to = (end + step - 1) & ~(size_t)(step - 1);
    if (to > b->size || to < end) {
        to = b->size;
    }
    size_t more = to - b->charged;
    if (a->limit && (a->reserved > a->limit || more > a->limit - a->reserved)) {
        a->failed = a->over_limit = true;
        return false;
    }
    a->reserved += more;
    b->charged = to;
    return true;
}

/* bump() when the newest block has no room, or there is none, or a check
 * fails: the whole procedure. */
__attribute__((noinline)) static void *bump_slow(fl_arena *a, size_t size,
                                                 struct fl_arena_block **blk) {
    if (a->failed) {
        return NULL;
    }
    if (fail_hook && fail_hook(fail_hook_arg)) {
        a->failed = true;
        return NULL;
    }
    if (size == 0) {
        size = 1;
    }
    if (size > SIZE_MAX / 2) {
        a->failed = true;
        return NULL;
    }
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    struct fl_arena_block *b = a->head;
    if (b && b->size - b->used >= need) {
        /* Room in the newest block that the limit does not count yet. */
        if (!charge(a, b, b->used + need)) {
            return NULL;
        }
    } else {
        /* The ladder's next size, the same under any limit (see charge). */
        size_t bsize = b ? b->step * 2 : ARENA_MIN_BLOCK;
        if (bsize > 64u * 1024 * 1024) {
            bsize = 64u * 1024 * 1024;
        }
        if (bsize < need) {
            bsize = need;
        }
        if (a->limit && (a->reserved > a->limit || need > a->limit - a->reserved)) {
            a->failed = a->over_limit = true;
            return NULL;
        }
        /* A kept block larger than asked serves as well (its room is used);
         * the ladder goes on from the size asked. */
        struct fl_arena_block *nb = block_get(bsize, SIZE_MAX, a->reserved);
        if (!nb) {
            a->failed = true;
            return NULL;
        }
        nb->used = 0;
        nb->map = NULL;
        nb->mapped = 0;
        /* A block made for one large allocation is left to fault on use:
         * its owner may touch little of it. */
        nb->populate = nb->size > LAZY_ZERO_MAX && nb->size >= POPULATE_MIN && nb->size > need;
        nb->ready = 0;
        /* A large one-off allocation goes behind the current block so that the
         * remaining space of the current block is not abandoned. */
        if (b && need > b->size) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        nb->charged = a->limit ? 0 : nb->size;
        a->reserved += nb->charged;
        if (a->limit && !charge(a, nb, need)) {
            return NULL; /* the block stays the arena's, freed with it */
        }
        nb->ready = nb->dirty || nb->populate ? 0 : nb->charged;
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += need;
    a->used += need;
    *blk = b;
    return p;
}

/* Bumps `size` bytes off the newest block (a new block when it has no
 * room); NULL and a->failed on failure. The bytes are not made ready. The
 * usual case, room in the newest block, inline and apart from bump_slow
 * (which saves and restores registers an arena allocation does not need). */
static inline void *bump(fl_arena *a, size_t size, struct fl_arena_block **blk) {
    struct fl_arena_block *b = a->head;
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    /* size - 1 < SIZE_MAX / 2: neither 0 nor past bump_slow's limit */
    if (b && !a->failed && !fail_hook && size - 1 < SIZE_MAX / 2 && b->charged - b->used >= need) {
        void *p = (char *)b->data + b->used;
        b->used += need;
        a->used += need;
        *blk = b;
        return p;
    }
    return bump_slow(a, size, blk);
}

void *fl__arena_alloc_slow(fl_arena *a, size_t size) {
    struct fl_arena_block *b;
    void *p = bump(a, size, &b);
    if (p && b->used > b->ready) {
        make_ready(b, b->used);
    }
    return p;
}

void *fl__arena_alloc_raw_slow(fl_arena *a, size_t size) {
    struct fl_arena_block *b;
    void *p = bump(a, size, &b);
    if (p && b->used > b->ready) {
        if (b->used <= b->dirty) {
            b->ready = b->used; /* handed out as it is: nothing to zero */
        } else {
            if (b->ready < b->dirty) {
                b->ready = b->dirty; /* the same */
            }
            make_ready(b, b->used);
        }
    }
    return p;
}

/* Tables of TABLE_MIN bytes and more get a mapping of their own, aligned
 * to and a multiple of HUGE_PAGE, with MADV_HUGEPAGE. */
#define HUGE_PAGE (2u * 1024 * 1024)
#define TABLE_MIN (2 * HUGE_PAGE)

void *fl__arena_table(fl_arena *a, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        a->failed = true;
        return NULL;
    }
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    size_t bytes = n * size;
    if (bytes < TABLE_MIN || bytes > SIZE_MAX / 4 || !a->head) {
        /* Small, or the arena's first allocation (which starts its blocks). */
        return fl__arena_calloc(a, n, size);
    }
    if (a->failed || (fail_hook && fail_hook(fail_hook_arg))) {
        a->failed = true;
        return NULL;
    }
    size_t len = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    if (a->limit && (a->reserved > a->limit || len > a->limit - a->reserved)) {
        a->failed = a->over_limit = true;
        return NULL;
    }
    cache_make_room(len, true, a->reserved);
    /* The block's header on its own (the mapping is the table's bytes
     * only: a header in front would fault in one more huge page). */
    struct fl_arena_block *b = calloc(1, sizeof(*b));
    /* Mapped one huge page longer, then trimmed to the alignment. */
    char *p =
        b ? mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
          : MAP_FAILED;
    if (p == MAP_FAILED) {
        free(b);
        a->failed = true;
        return NULL;
    }
    uintptr_t base = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = base - (uintptr_t)p;
    if (head) {
        (void)munmap(p, head);
    }
    (void)munmap((char *)base + len, HUGE_PAGE - head);
    (void)madvise((void *)base, len, MADV_HUGEPAGE);
    b->map = (void *)base; /* zero, as anonymous memory is */
    b->mapped = len;
    /* Behind the newest block, whose free room stays in use. */
    b->next = a->head->next;
    a->head->next = b;
    a->reserved += len;
    a->used += bytes;
    return b->map;
#else
    return fl__arena_calloc(a, n, size);
#endif
}

char *fl__arena_strndup(fl_arena *a, const char *s, size_t len) {
    char *p = fl__arena_alloc(a, len + 1);
    if (p) {
        if (len) {
            memcpy(p, s, len);
        }
        p[len] = '\0';
    }
    return p;
}

char *fl__arena_strdup(fl_arena *a, const char *s) {
    return fl__arena_strndup(a, s, strlen(s));
}

char *fl__arena_pool_strndup_slow(fl_arena *a, fl_str_pool *sp, const char *s, size_t len) {
    if (len >= FL_STR_CHUNK / 16) {
        return fl__arena_strndup(a, s, len);
    }
    if (!(sp->p = fl__arena_alloc_raw(a, FL_STR_CHUNK))) {
        sp->left = 0;
        return NULL;
    }
    sp->left = FL_STR_CHUNK;
    return fl__arena_pool_strndup(a, sp, s, len);
}

char *fl__arena_printf(fl_arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return NULL;
    }
    char *p = fl__arena_alloc(a, (size_t)n + 1);
    if (!p) {
        return NULL;
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *fl__arena_grow(fl_arena *a, void *old, size_t old_n, size_t new_n, size_t elem) {
    void *p = fl__arena_calloc(a, new_n, elem);
    if (p && old && old_n) {
        memcpy(p, old, (old_n < new_n ? old_n : new_n) * elem);
    }
    return p;
}

/* Scratch arrays and buffers (fl__mem_realloc) carry a head in front: the
 * bytes asked for with the head's own, and whether they are a block's. */
typedef union scratch_head {
    struct {
        size_t size;
        bool block;
        unsigned char spare; /* an arena's small chunk: its size class + 1 (0: none) */
        void *next;          /* kept by its arena: the next of its class */
    } h;
    max_align_t align;
} scratch_head;

/* Up to SCRATCH_SMALL bytes from malloc; more, a block. */
#define SCRATCH_SMALL (32u * 1024)

/* `total` bytes with a head in front, zero when `zero`; NULL when memory is
 * exhausted. Small ones from malloc (zeroed here: glibc's calloc skips its
 * per-thread cache, and a step's scratch is freed before the next step's
 * is asked for, a sort's queues on every pass); large ones are blocks, a
 * kept one (zeroed as far as it held data) or a new one. `held`: the
 * bytes of the arena they are counted against (0: none). */
static scratch_head *chunk_get(size_t total, bool zero, size_t held) {
    scratch_head *h;
    if (total <= SCRATCH_SMALL) {
        h = malloc(total);
        if (h && zero) {
            /* the bytes after the head (written below): malloc and a memset
             * of the whole would be compiled back into calloc */
            memset(h + 1, 0, total - sizeof(*h));
        }
        if (h) {
            h->h.block = false;
            h->h.spare = 0;
        }
    } else {
        struct fl_arena_block *b = block_get(total, SIZE_MAX, held);
        if (!b) {
            return NULL;
        }
        if (zero) {
            memset(b->data, 0, total < b->dirty ? total : b->dirty);
        }
        b->used = b->ready = total;
        b->dirty = b->dirty > total ? b->dirty : 0;
        b->populate = false;
        b->map = NULL;
        b->mapped = 0;
        h = (scratch_head *)b->data;
        h->h.block = true;
        h->h.spare = 0;
    }
    if (h) {
        h->h.size = total;
    }
    return h;
}

static struct fl_arena_block *chunk_block(scratch_head *h) {
    return (struct fl_arena_block *)((char *)h - offsetof(struct fl_arena_block, data));
}

static void chunk_put(scratch_head *h) {
    if (h->h.block) {
        block_put(chunk_block(h));
    } else {
        free(h);
    }
}

static bool hook_scratch; /* the allocation the hook is asked about is scratch */

bool fl__alloc_hook_is_scratch(void) {
    return hook_scratch;
}

/* An arena's small scratch chunks (up to SPARE_MAX bytes with the head)
 * come from malloc in sizes of SPARE_MIN << k and, freed, are kept in its
 * list a->spare[k] for the arena's next scratch of that class, until the
 * arena is freed: an analysis asks for the same few scratch arrays at every
 * step and pass (a small graph's ~60, each a malloc, a free and a memset),
 * and what is kept is at most what was held at once. They count against
 * the arena's limit while held, as before; kept, they do not. */
#define SPARE_MIN 64u
#define SPARE_MAX (SPARE_MIN << (FL_ARENA_SPARE_CLASSES - 1))
_Static_assert(SPARE_MAX <= SCRATCH_SMALL, "an arena's kept chunks are small ones");

/* The smallest k with SPARE_MIN << k >= total (total <= SPARE_MAX). */
static unsigned spare_class(size_t total) {
    if (total <= SPARE_MIN) {
        return 0;
    }
    /* bits of total - 1, less those of SPARE_MIN - 1 (6) */
    return (unsigned)(sizeof(unsigned long long) * 8) - (unsigned)__builtin_clzll(total - 1) - 6u;
}
_Static_assert(SPARE_MIN == 64u, "spare_class counts 6 bits below SPARE_MIN");

/* A scratch chunk of `total` bytes (head included) of a's class lists,
 * zeroed when `zero`, NULL when memory is exhausted. */
static scratch_head *spare_get(fl_arena *a, size_t total, bool zero) {
    unsigned k = spare_class(total);
    size_t cap = (size_t)SPARE_MIN << k;
    scratch_head *h = a->spare[k];
    if (h) {
        UNPOISON(h + 1, total - sizeof(*h));
        a->spare[k] = h->h.next;
    } else if ((h = malloc(cap)) != NULL) {
        h->h.block = false;
        h->h.spare = (unsigned char)(k + 1);
        /* under AddressSanitizer the bytes past `total` stay out of
         * bounds, as they were in a chunk of its own */
        POISON((char *)h + total, cap - total);
    } else {
        return NULL;
    }
    if (zero) {
        memset(h + 1, 0, total - sizeof(*h));
    }
    h->h.size = total;
    return h;
}

static void spare_free(fl_arena *a) {
    for (unsigned k = 0; k < FL_ARENA_SPARE_CLASSES; k++) {
        scratch_head *h = a->spare[k];
        while (h) {
            scratch_head *next = h->h.next;
            UNPOISON(h + 1, ((size_t)SPARE_MIN << k) - sizeof(*h));
            free(h);
            h = next;
        }
        a->spare[k] = NULL;
    }
}

/* fl__arena_scratch, zeroed when `zero`. */
static void *scratch_get(fl_arena *a, size_t n, size_t size, bool zero) {
    if (a->failed) {
        return NULL;
    }
    bool fail = false;
    if (fail_hook) { /* tests only, one thread (arena.h): no write otherwise */
        hook_scratch = true;
        fail = fail_hook(fail_hook_arg);
        hook_scratch = false;
    }
    size_t bytes = n * size;
    if (fail || (size && n > SIZE_MAX / size) || bytes > SIZE_MAX / 2) {
        a->failed = true;
        return NULL;
    }
    size_t total = sizeof(scratch_head) + (bytes ? bytes : 1);
    if (a->limit && (a->reserved > a->limit || total > a->limit - a->reserved)) {
        a->failed = a->over_limit = true;
        return NULL;
    }
    scratch_head *h =
        total <= SPARE_MAX ? spare_get(a, total, zero) : chunk_get(total, zero, a->reserved);
    if (!h) {
        a->failed = true;
        return NULL;
    }
    a->reserved += total;
    return h + 1;
}

void *fl__arena_scratch(fl_arena *a, size_t n, size_t size) {
    return scratch_get(a, n, size, true);
}

void *fl__arena_scratch_raw(fl_arena *a, size_t n, size_t size) {
    return scratch_get(a, n, size, false);
}

void *fl__arena_scratch_grow(fl_arena *a, void *p, size_t old_n, size_t new_n, size_t size) {
    unsigned char *q = fl__arena_scratch(a, new_n, size);
    if (q && p && old_n) {
        memcpy(q, p, (old_n < new_n ? old_n : new_n) * size);
    }
    if (q) {
        fl__arena_scratch_free(a, p);
    }
    return q;
}

void fl__arena_scratch_free(fl_arena *a, void *p) {
    if (!p) {
        return;
    }
    scratch_head *h = (scratch_head *)p - 1;
    a->reserved -= h->h.size < a->reserved ? h->h.size : a->reserved;
    if (h->h.spare) {
        unsigned k = h->h.spare - 1u;
        h->h.next = a->spare[k];
        a->spare[k] = h;
        POISON(h + 1, ((size_t)SPARE_MIN << k) - sizeof(*h));
        return;
    }
    chunk_put(h);
}

void *fl__mem_realloc(void *p, size_t size) {
    if (size > SIZE_MAX / 2) {
        return NULL;
    }
    size_t total = sizeof(scratch_head) + (size ? size : 1);
    scratch_head *h = p ? (scratch_head *)p - 1 : NULL;
    if (h && h->h.block && total <= chunk_block(h)->size) {
        struct fl_arena_block *b = chunk_block(h); /* room in its block */
        if (total > b->used) {
            b->dirty = b->dirty > total ? b->dirty : 0;
            b->used = b->ready = total;
        }
        h->h.size = total;
        return p;
    }
    if (h && !h->h.block && total <= SCRATCH_SMALL) {
        h = realloc(h, total);
        if (h) {
            h->h.size = total;
            h->h.spare = 0; /* its size is now its own */
        }
        return h ? h + 1 : NULL;
    }
    scratch_head *n = chunk_get(total, false, 0);
    if (n && h) {
        size_t keep = (h->h.size < total ? h->h.size : total) - sizeof(*h);
        memcpy(n + 1, h + 1, keep);
        chunk_put(h);
    }
    return n ? n + 1 : NULL;
}

void fl__mem_free(void *p) {
    if (p) {
        chunk_put((scratch_head *)p - 1);
    }
}
