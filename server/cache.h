/*
 * cache.h - foldlined's result cache: packed AnalyzeReply bytes keyed by the
 * request (the graph bytes, then the options and profile contents serialised
 * by the caller), least recently used entries evicted first, bounded by the
 * bytes it holds (replies and keys). Thread-safe (one mutex): pool threads
 * look up and insert.
 *
 * A 128-bit hash picks the entry; a hit also compares the whole key, so two
 * different requests never share a reply, whatever their hashes.
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

/* A request's key: the graph bytes (referenced, not copied: they must
 * outlive the get/put calls) and every other input of the analysis,
 * appended with fl_key_add (copied). A key whose building failed (out of
 * memory) is never looked up or stored: the request is analysed uncached. */
typedef struct fl_cache_key {
    fl_hash hash;
    const unsigned char *graph;
    size_t graph_len;
    unsigned char *rest;
    size_t rest_len, rest_cap;
    bool failed;
} fl_cache_key;

/* Starts a key with the graph bytes. */
void fl_key_init(fl_cache_key *k, const void *graph, size_t len);
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
 * bytes). Entries larger than the bound, a failed key, or an allocation
 * failure leave the cache unchanged. */
void fl_cache_put(fl_cache *c, const fl_cache_key *key, const unsigned char *data, size_t len);

typedef struct fl_cache_counters {
    uint64_t hits, misses, bytes, entries;
} fl_cache_counters;

void fl_cache_read_counters(fl_cache *c, fl_cache_counters *out);

#endif
