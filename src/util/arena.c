/*
 * arena.c - bump allocator; see arena.h for the contract.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "util/arena.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_ALIGN     16
#define ARENA_MIN_BLOCK (64 * 1024)

/* Large blocks are faulted in ahead of use, POPULATE_STEP bytes at a time
 * (one madvise instead of one page fault per 4 KB page); blocks below
 * POPULATE_MIN fault page by page as before. */
#define POPULATE_MIN  (2u * 1024 * 1024)
#define POPULATE_STEP (1u * 1024 * 1024)

/* Blocks up to LAZY_ZERO_MAX come from malloc and are zeroed as they are
 * handed out, ZERO_STEP bytes ahead at a time: below malloc's mmap
 * threshold calloc clears the whole block itself, and a small analysis
 * uses a fraction of its 64 KB blocks. Larger blocks come from calloc
 * (fresh mmap'd pages, zero without a write). */
#define LAZY_ZERO_MAX (128u * 1024)
#define ZERO_STEP     1024u

struct fl_arena_block {
    struct fl_arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    size_t ready;  /* data bytes known zero (and, large blocks, faulted in) */
    bool lazy;     /* from malloc: zeroed up to `ready` only */
    void *map;     /* a table's own mapping (fl__arena_table; no data here) */
    size_t mapped; /* its bytes; 0: none */
    max_align_t data[];
};

/* Makes the block ready up to at least `end`: a lazy block zeroed up to
 * there (and ZERO_STEP beyond); a large one's pages faulted in (a hint: on a
 * kernel without MADV_POPULATE_WRITE the pages fault on first touch as
 * usual). */
static void make_ready(struct fl_arena_block *b, size_t end) {
    if (b->lazy) {
        size_t want = end + ZERO_STEP < b->size ? end + ZERO_STEP : b->size;
        memset((char *)b->data + b->ready, 0, want - b->ready);
        b->ready = want;
        return;
    }
#ifdef MADV_POPULATE_WRITE
    const size_t page = 4096;
    uintptr_t base = (uintptr_t)b->data;
    uintptr_t from = (base + b->ready + page - 1) & ~(uintptr_t)(page - 1);
    size_t want = end + POPULATE_STEP;
    if (want > b->size) {
        want = b->size;
    }
    uintptr_t to = (base + want) & ~(uintptr_t)(page - 1);
    if (to > from) {
        (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
    }
    b->ready = want;
#else
    b->ready = b->size;
    (void)end;
#endif
}

/* Blocks from malloc (up to LAZY_ZERO_MAX bytes) freed on a thread are kept for the
 * thread's next arenas, up to BLOCK_CACHE of them: an analysis takes a few
 * such blocks and frees them at its end, and given back to malloc they sat
 * at the top of the heap, which malloc returned to the system and took back
 * for the next analysis (two brk calls and a page fault per 4 KB page
 * touched, a third of a small graph's time). A kept block is handed out as
 * a new one is (its bytes zeroed as they are used). The blocks of a thread
 * are freed when it exits, those of the thread that calls exit() then. */
#define BLOCK_CACHE 4

typedef struct block_cache {
    struct fl_arena_block *head;
    int n;
} block_cache;

static _Thread_local block_cache kept;
static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static bool kept_key_ok;

static void kept_free(void *arg) {
    block_cache *c = arg;
    while (c->head) {
        struct fl_arena_block *next = c->head->next;
        free(c->head);
        c->head = next;
    }
    c->n = 0;
}

/* At exit, the exiting thread's blocks (a leak checker that does not scan
 * thread-local storage would report them). */
static void kept_free_at_exit(void) {
    kept_free(&kept);
}

static void kept_key_make(void) {
    kept_key_ok = pthread_key_create(&kept_key, kept_free) == 0 && atexit(kept_free_at_exit) == 0;
}

/* Keeps b for reuse when it is a block from malloc and there is room;
 * false: the caller frees it. */
static bool keep_block(struct fl_arena_block *b) {
    if (!b->lazy || b->mapped || kept.n >= BLOCK_CACHE) {
        return false;
    }
    if (!kept.n) {
        /* the thread's exit frees what it keeps */
        pthread_once(&kept_once, kept_key_make);
        if (!kept_key_ok || pthread_setspecific(kept_key, &kept) != 0) {
            return false;
        }
    }
    b->next = kept.head;
    kept.head = b;
    kept.n++;
    return true;
}

/* A kept block of `bsize` bytes (its fields to be set by the caller), or
 * NULL. */
static struct fl_arena_block *reuse_block(size_t bsize) {
    for (struct fl_arena_block **at = &kept.head; *at; at = &(*at)->next) {
        struct fl_arena_block *b = *at;
        if (b->size == bsize) {
            *at = b->next;
            kept.n--;
            return b;
        }
    }
    return NULL;
}

void fl__arena_init(fl_arena *a, size_t limit) {
    memset(a, 0, sizeof(*a));
    a->limit = limit;
}

void fl__arena_free(fl_arena *a) {
    struct fl_arena_block *b = a->head;
    while (b) {
        struct fl_arena_block *next = b->next;
        if (b->mapped) {
            (void)munmap(b->map, b->mapped);
        }
        if (!keep_block(b)) {
            free(b);
        }
        b = next;
    }
    a->head = NULL;
    a->used = 0;
    a->reserved = 0;
}

static bool (*fail_hook)(void *arg);
static void *fail_hook_arg;

void fl__arena_set_fail_hook(bool (*fail)(void *arg), void *arg) {
    fail_hook = fail;
    fail_hook_arg = arg;
}

bool fl__alloc_should_fail(void) {
    return fail_hook && fail_hook(fail_hook_arg);
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
    if (!b || b->size - b->used < need) {
        size_t bsize = b ? b->size * 2 : ARENA_MIN_BLOCK;
        if (bsize > 64u * 1024 * 1024) {
            bsize = 64u * 1024 * 1024;
        }
        if (bsize < need) {
            bsize = need;
        }
        if (a->limit && a->reserved + bsize > a->limit) {
            if (a->reserved + need > a->limit) {
                a->failed = true;
                return NULL;
            }
            bsize = need;
        }
        /* calloc: large blocks come straight from mmap, already zero and
         * not yet touched; small ones are zeroed as they are used. */
        bool lazy = bsize <= LAZY_ZERO_MAX;
        struct fl_arena_block *nb = reuse_block(bsize);
        if (!nb) {
            nb = lazy ? malloc(sizeof(*nb) + bsize) : calloc(1, sizeof(*nb) + bsize);
        }
        if (!nb) {
            a->failed = true;
            return NULL;
        }
        nb->size = bsize;
        nb->used = 0;
        nb->lazy = lazy;
        nb->map = NULL;
        nb->mapped = 0;
        /* A block made for one large allocation is left to fault on use:
         * its owner may touch little of it. */
        nb->ready = lazy ? 0 : bsize >= POPULATE_MIN && bsize > need ? 0 : bsize;
        /* A large one-off allocation goes behind the current block so that the
         * remaining space of the current block is not abandoned. */
        if (b && need > b->size) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        a->reserved += bsize;
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
    if (b && !a->failed && !fail_hook && size - 1 < SIZE_MAX / 2 && b->size - b->used >= need) {
        void *p = (char *)b->data + b->used;
        b->used += need;
        a->used += need;
        *blk = b;
        return p;
    }
    return bump_slow(a, size, blk);
}

void *fl__arena_alloc(fl_arena *a, size_t size) {
    struct fl_arena_block *b;
    void *p = bump(a, size, &b);
    if (p && b->used > b->ready) {
        make_ready(b, b->used);
    }
    return p;
}

void *fl__arena_alloc_raw(fl_arena *a, size_t size) {
    struct fl_arena_block *b;
    void *p = bump(a, size, &b);
    if (p && b->used > b->ready) {
        if (b->lazy) {
            b->ready = b->used; /* handed out as it is: nothing to zero */
        } else {
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
        a->failed = true;
        return NULL;
    }
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

void *fl__arena_zalloc(fl_arena *a, size_t size) {
    /* Fresh arena memory is zero (arena.h). */
    return fl__arena_alloc(a, size);
}

void *fl__arena_calloc(fl_arena *a, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        a->failed = true;
        return NULL;
    }
    return fl__arena_zalloc(a, n * size);
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

/* Scratch blocks carry their size in front (16 bytes keep the alignment). */
typedef union scratch_head {
    size_t size;
    max_align_t align;
} scratch_head;

#define SCRATCH_SMALL (32u * 1024)

static bool hook_scratch; /* the allocation the hook is asked about is scratch */

bool fl__alloc_hook_is_scratch(void) {
    return hook_scratch;
}

void *fl__arena_scratch(fl_arena *a, size_t n, size_t size) {
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
        a->failed = true;
        return NULL;
    }
    /* Small blocks from malloc and zeroed here: glibc's calloc skips its
     * per-thread cache, and a step's scratch is freed before the next
     * step's is asked for (a sort's queues on every pass). Large ones from
     * calloc, whose fresh pages need no zeroing. */
    scratch_head *h = total <= SCRATCH_SMALL ? malloc(total) : calloc(1, total);
    if (h && total <= SCRATCH_SMALL) {
        /* the bytes after the header (written below): malloc and a memset of
         * the whole would be compiled back into calloc */
        memset(h + 1, 0, total - sizeof(*h));
    }
    if (!h) {
        a->failed = true;
        return NULL;
    }
    h->size = total;
    a->reserved += total;
    return h + 1;
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
    a->reserved -= h->size < a->reserved ? h->size : a->reserved;
    free(h);
}
