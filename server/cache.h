/*
 * cache.h - foldlined's result cache: packed AnalyzeReply bytes keyed by the
 * request (the graph's SHA-256 digest, then the options and profile contents
 * serialised by the caller), least recently used entries evicted first, bounded by the
 * bytes it holds (replies and keys). Thread-safe (one mutex): pool threads
 * look up and insert.
 *
 * A 128-bit hash of the key picks the bucket; a hit compares the whole key,
 * whose graph part is a SHA-256 digest (cache.h's fl_cache_key).
 */
#ifndef FL_SERVER_CACHE_H
#define FL_SERVER_CACHE_H

#include "foldline/roofline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_cache fl_cache;

/* A running hash: fl_hash_init, fl_hash_update as often as needed. */
typedef struct fl_hash {
    uint64_t a, b;
} fl_hash;

void fl_hash_init(fl_hash *h);
void fl_hash_update(fl_hash *h, const void *data, size_t len);

/* A request's key: every input of the analysis, appended in order. The
 * model's bytes (the graph, its files) enter as their SHA-256 digest and
 * length, so an entry holds no copy of them; the rest (options, profile
 * figures) as the bytes themselves. A hit compares the whole key (a few
 * hundred bytes), the graph through its digest: two different graphs share
 * an entry only if their SHA-256 digests collide (cache.c). A key whose
 * building failed (out of memory) is never looked up or stored: the request
 * is analysed uncached. */
typedef struct fl_cache_key {
    fl_hash hash; /* of `bytes`: picks the bucket */
    unsigned char *bytes;
    size_t len, cap;
    bool failed;
} fl_cache_key;

/* SHA-256 over bytes given piece by piece (the pieces' split does not
 * matter), then added to a key with fl_key_add_digest. */
typedef struct fl_key_digest {
    void *ctx;
    bool failed;
} fl_key_digest;

/* Starts an empty key. */
void fl_key_init(fl_cache_key *k);
/* Starts a digest; false (and d->failed) when memory runs out. */
/* Whether libcrypto supplies SHA-256 (a configuration without its default
 * provider does not): the cache's keys need it, so the server checks at
 * start. */
bool fl_digest_available(void);
bool fl_digest_begin(fl_key_digest *d);
void fl_digest_update(fl_key_digest *d, const void *data, size_t len);
/* Appends d's SHA-256 and `len` (the length of what it stands for) to the
 * key and releases d; a failed digest fails the key. */
void fl_key_add_digest(fl_cache_key *k, fl_key_digest *d, uint64_t len);
/* Releases d unused. */
void fl_digest_end(fl_key_digest *d);
/* Appends the SHA-256 of `len` bytes at data, and len. */
void fl_key_add_hashed(fl_cache_key *k, const void *data, size_t len);
/* Appends `len` bytes (an option, a profile figure) to the key. */
void fl_key_add(fl_cache_key *k, const void *data, size_t len);
/* Appends a string (NULL and "" differ), a double's bytes. */
void fl_key_add_str(fl_cache_key *k, const char *str);
void fl_key_add_double(fl_cache_key *k, double v);
/* Appends every figure of a profile that can reach a reply, with its source:
 * a profile file edited (and the server restarted) gives another key. */
void fl_key_add_profile(fl_cache_key *k, const fl_profile *p);
void fl_key_free(fl_cache_key *k);

/* A cache holding at most `max_bytes` of replies; NULL when out of memory. */
fl_cache *fl_cache_new(size_t max_bytes);

/* Releases the cache and every entry (NULL is fine). */
void fl_cache_free(fl_cache *c);

/* On a hit returns true and a malloc'd copy of the reply in *out / *len (the
 * caller frees it); counts a hit or a miss. */
bool fl_cache_get(fl_cache *c, const fl_cache_key *key, unsigned char **out, size_t *len);

/* Stores a copy of `len` bytes under `key`, evicting the least recently used
 * entries to stay within the bound (which counts the reply and the key's
 * bytes, the graph's 40 of them). Entries larger than the bound, a failed key, or an allocation
 * failure leave the cache unchanged. */
void fl_cache_put(fl_cache *c, const fl_cache_key *key, const unsigned char *data, size_t len);

typedef struct fl_cache_counters {
    uint64_t hits, misses, bytes, entries;
} fl_cache_counters;

void fl_cache_read_counters(fl_cache *c, fl_cache_counters *out);

#endif
