/*
 * cache.c - the LRU result cache (see cache.h): a chained hash table of
 * entries that are also on a doubly linked recency list (head = most recent).
 */
#include "cache.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define N_BUCKETS 4096 /* power of two; chains stay short for thousands of entries */

typedef struct entry {
    fl_hash key;
    unsigned char *key_bytes; /* the key (fl_cache_key's bytes): compared on a hit */
    size_t key_len;
    struct entry *next_in_bucket;
    struct entry *prev, *next; /* recency list */
    size_t len;
    unsigned char *data;
} entry;

struct fl_cache {
    uv_mutex_t mu;
    size_t max_bytes, bytes;
    uint64_t hits, misses, entries;
    entry *head, *tail;
    entry *buckets[N_BUCKETS];
};

/* ------------------------------------------------------------------------- */
/* Hash: two FNV-1a style 64-bit lanes with different bases and primes, so a
 * collision needs both to collide at once.                                   */
/* ------------------------------------------------------------------------- */

void fl_hash_init(fl_hash *h) {
    h->a = 0xcbf29ce484222325ULL;
    h->b = 0x84222325cbf29ce4ULL;
}

void fl_hash_update(fl_hash *h, const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t a = h->a, b = h->b;
    /* Eight bytes a step, then the tail byte by byte. The same sequence of
     * updates gives the same hash, which is all the cache needs (it only
     * picks the bucket: a hit compares the whole key). */
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        a = (a ^ w) * 0x100000001b3ULL;
        a ^= a >> 32;
        b = (b ^ w) * 0x9e3779b97f4a7c15ULL;
        b ^= b >> 29;
    }
    for (size_t i = 0; i < len; i++) {
        a = (a ^ p[i]) * 0x100000001b3ULL;
        b = (b ^ p[i]) * 0x9e3779b97f4a7c15ULL;
        b ^= b >> 29;
    }
    h->a = a;
    h->b = b;
}

/* ------------------------------------------------------------------------- */
/* The graph's part of a key: SHA-256 (libcrypto, which gRPC links already).  */
/*                                                                            */
/* Why a digest is enough: an entry answers a request whose key bytes are     */
/* equal to its own, and the key holds the options and profiles as they are,  */
/* so two requests share a reply only when their graphs (and files) have the  */
/* same length and the same SHA-256. No collision of SHA-256 is known; a      */
/* generic search needs about 2^128 evaluations, and by chance, among the     */
/* at most 2^40 graphs a server could ever see, one pair collides with        */
/* probability below 2^80 / 2^256. A crafted collision would take breaking    */
/* SHA-256, so the key stays sound against clients that choose their bytes    */
/* (the bucket hash above is not relied on: it only picks the chain).         */
/* ------------------------------------------------------------------------- */

static EVP_MD *sha256_md;
static uv_once_t sha256_once = UV_ONCE_INIT;

static void sha256_fetch(void) {
    /* Fetched once: an implicit fetch at every init costs a lookup. */
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (!sha256_md) {
        ERR_clear_error(); /* fl_digest_available reports it */
    }
}

bool fl_digest_available(void) {
    uv_once(&sha256_once, sha256_fetch);
    return sha256_md != NULL;
}

void fl_digest_end(fl_key_digest *d) {
    EVP_MD_CTX_free(d->ctx);
    d->ctx = NULL;
}

bool fl_digest_begin(fl_key_digest *d) {
    uv_once(&sha256_once, sha256_fetch);
    d->ctx = sha256_md ? EVP_MD_CTX_new() : NULL;
    d->failed = !d->ctx || EVP_DigestInit_ex(d->ctx, sha256_md, NULL) != 1;
    if (d->failed) {
        fl_digest_end(d);
    }
    return !d->failed;
}

void fl_digest_update(fl_key_digest *d, const void *data, size_t len) {
    if (!d->failed && len && EVP_DigestUpdate(d->ctx, data, len) != 1) {
        d->failed = true;
    }
}

void fl_key_init(fl_cache_key *k) {
    memset(k, 0, sizeof *k);
    fl_hash_init(&k->hash);
}

void fl_key_add_digest(fl_cache_key *k, fl_key_digest *d, uint64_t len) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (d->failed || EVP_DigestFinal_ex(d->ctx, md, &n) != 1 || n != 32) {
        k->failed = true;
    } else {
        fl_key_add(k, md, n);
        fl_key_add(k, &len, sizeof len);
    }
    fl_digest_end(d);
}

void fl_key_add_hashed(fl_cache_key *k, const void *data, size_t len) {
    fl_key_digest d;
    fl_digest_begin(&d);
    fl_digest_update(&d, data, len);
    fl_key_add_digest(k, &d, len);
}

void fl_key_add(fl_cache_key *k, const void *data, size_t len) {
    if (k->failed || len == 0) {
        return;
    }
    if (k->len + len > k->cap) {
        size_t nc = k->cap ? k->cap : 256;
        while (nc < k->len + len) {
            nc *= 2;
        }
        unsigned char *nb = realloc(k->bytes, nc);
        if (!nb) {
            k->failed = true;
            return;
        }
        k->bytes = nb;
        k->cap = nc;
    }
    memcpy(k->bytes + k->len, data, len);
    k->len += len;
    fl_hash_update(&k->hash, data, len);
}

void fl_key_add_str(fl_cache_key *h, const char *str) {
    uint64_t n = str ? strlen(str) + 1 : 0; /* NULL and "" differ */
    fl_key_add(h, &n, sizeof n);
    if (n) {
        fl_key_add(h, str, (size_t)n);
    }
}

void fl_key_add_double(fl_cache_key *h, double v) {
    fl_key_add(h, &v, sizeof v);
}

void fl_key_add_profile(fl_cache_key *h, const fl_profile *p) {
    fl_key_add_str(h, p->name);
    fl_key_add_str(h, p->kind);
    fl_key_add_str(h, p->description);
    fl_key_add_str(h, p->path);
    for (int u = 0; u < FL_UNIT_COUNT; u++) {
        for (int d = 0; d < FL_PREC_COUNT; d++) {
            fl_key_add_double(h, p->peak[u][d].value);
            fl_key_add_str(h, p->peak[u][d].source);
        }
    }
    uint64_t nl = p->n_levels;
    fl_key_add(h, &nl, sizeof nl);
    for (size_t i = 0; i < p->n_levels; i++) {
        fl_key_add_str(h, p->levels[i].name);
        fl_key_add_double(h, p->levels[i].bandwidth);
        fl_key_add_double(h, p->levels[i].capacity);
        fl_key_add_str(h, p->levels[i].source);
    }
    fl_key_add_double(h, p->overhead.value);
    fl_key_add_str(h, p->overhead.source);
    for (int k = 0; k < FL_CLASS_COUNT; k++) {
        fl_key_add_double(h, p->efficiency[k].compute);
        fl_key_add_double(h, p->efficiency[k].memory);
        fl_key_add_str(h, p->efficiency[k].source);
        const fl_eff_table *t = &p->table[k];
        uint64_t nb = t->n_buckets, by = (uint64_t)t->by;
        fl_key_add(h, &nb, sizeof nb);
        fl_key_add(h, &by, sizeof by);
        for (size_t i = 0; i < t->n_buckets; i++) {
            fl_key_add_double(h, t->buckets[i].upto);
            fl_key_add_double(h, t->buckets[i].compute);
            fl_key_add_double(h, t->buckets[i].memory);
            fl_key_add_double(h, t->buckets[i].fixed_s);
            fl_key_add_str(h, t->buckets[i].source);
            fl_key_add_double(h, t->buckets[i].per_channel_s);
            fl_key_add_double(h, t->buckets[i].broadcast_s);
        }
    }
    uint8_t cal = p->calibrated;
    fl_key_add(h, &cal, 1);
    fl_key_add_double(h, p->interval.low);
    fl_key_add_double(h, p->interval.high);
    fl_key_add_double(h, p->interval.coverage);
    fl_key_add_str(h, p->interval.source);
    fl_key_add_double(h, p->streamed.value);
    fl_key_add_str(h, p->streamed.source);
    fl_key_add_double(h, p->gap.value);
    fl_key_add_str(h, p->gap.source);
}

void fl_key_free(fl_cache_key *k) {
    free(k->bytes);
    k->bytes = NULL;
    k->len = k->cap = 0;
}

static size_t bucket_of(const fl_hash *k) {
    return (size_t)(k->a ^ (k->b >> 7)) & (N_BUCKETS - 1);
}

/* ------------------------------------------------------------------------- */
/* List and table helpers (caller holds the mutex)                            */
/* ------------------------------------------------------------------------- */

static void unlink_lru(fl_cache *c, entry *e) {
    if (e->prev) {
        e->prev->next = e->next;
    } else {
        c->head = e->next;
    }
    if (e->next) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }
    e->prev = e->next = NULL;
}

static void push_front(fl_cache *c, entry *e) {
    e->prev = NULL;
    e->next = c->head;
    if (c->head) {
        c->head->prev = e;
    }
    c->head = e;
    if (!c->tail) {
        c->tail = e;
    }
}

static bool same_key(const entry *e, const fl_cache_key *k) {
    return e->key.a == k->hash.a && e->key.b == k->hash.b && e->key_len == k->len &&
           (k->len == 0 || memcmp(e->key_bytes, k->bytes, k->len) == 0);
}

static entry *find(fl_cache *c, const fl_cache_key *k) {
    for (entry *e = c->buckets[bucket_of(&k->hash)]; e; e = e->next_in_bucket) {
        if (same_key(e, k)) {
            return e;
        }
    }
    return NULL;
}

static void remove_entry(fl_cache *c, entry *e) {
    entry **pp = &c->buckets[bucket_of(&e->key)];
    while (*pp != e) {
        pp = &(*pp)->next_in_bucket;
    }
    *pp = e->next_in_bucket;
    unlink_lru(c, e);
    c->bytes -= e->len + e->key_len;
    c->entries--;
    free(e->data);
    free(e->key_bytes);
    free(e);
}

/* ------------------------------------------------------------------------- */
/* API                                                                        */
/* ------------------------------------------------------------------------- */

fl_cache *fl_cache_new(size_t max_bytes) {
    fl_cache *c = calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    if (uv_mutex_init(&c->mu) != 0) {
        free(c);
        return NULL;
    }
    c->max_bytes = max_bytes;
    return c;
}

void fl_cache_free(fl_cache *c) {
    if (!c) {
        return;
    }
    while (c->head) {
        remove_entry(c, c->head);
    }
    uv_mutex_destroy(&c->mu);
    free(c);
}

bool fl_cache_get(fl_cache *c, const fl_cache_key *key, unsigned char **out, size_t *len) {
    *out = NULL;
    if (key->failed) {
        return false;
    }
    uv_mutex_lock(&c->mu);
    entry *e = find(c, key);
    unsigned char *copy = NULL;
    if (e) {
        copy = malloc(e->len ? e->len : 1);
        if (copy) {
            memcpy(copy, e->data, e->len);
            *len = e->len;
            unlink_lru(c, e);
            push_front(c, e);
        }
    }
    if (copy) {
        c->hits++;
    } else {
        c->misses++;
    }
    uv_mutex_unlock(&c->mu);
    *out = copy;
    return copy != NULL;
}

void fl_cache_put(fl_cache *c, const fl_cache_key *key, const unsigned char *data, size_t len) {
    size_t klen = key->len;
    if (key->failed || len > c->max_bytes || klen > c->max_bytes - len) {
        return;
    }
    entry *e = calloc(1, sizeof *e);
    unsigned char *copy = malloc(len ? len : 1);
    unsigned char *kb = malloc(klen ? klen : 1);
    if (!e || !copy || !kb) {
        free(e);
        free(copy);
        free(kb);
        return;
    }
    memcpy(copy, data, len);
    if (klen) {
        memcpy(kb, key->bytes, klen);
    }
    e->key = key->hash;
    e->key_bytes = kb;
    e->key_len = klen;
    e->data = copy;
    e->len = len;
    uv_mutex_lock(&c->mu);
    entry *old = find(c, key);
    if (old) {
        remove_entry(c, old); /* two workers raced on the same request */
    }
    while (c->tail && c->bytes + len + klen > c->max_bytes) {
        remove_entry(c, c->tail);
    }
    size_t b = bucket_of(&key->hash);
    e->next_in_bucket = c->buckets[b];
    c->buckets[b] = e;
    push_front(c, e);
    c->bytes += len + klen;
    c->entries++;
    uv_mutex_unlock(&c->mu);
}

void fl_cache_read_counters(fl_cache *c, fl_cache_counters *out) {
    uv_mutex_lock(&c->mu);
    out->hits = c->hits;
    out->misses = c->misses;
    out->bytes = c->bytes;
    out->entries = c->entries;
    uv_mutex_unlock(&c->mu);
}
