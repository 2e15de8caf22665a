/*
 * hash.h - the hash the engine's lookup tables and fingerprints share:
 * 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211).
 * Tables index by its low bits (a power-of-two mask); a table whose keys
 * differ only in their last characters mixes the result first (graph.c,
 * sym.c, registry.c).
 */
#ifndef FL_UTIL_HASH_H
#define FL_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FL_HASH_INIT 14695981039346656037ull

/* h continued over the n bytes at p (start with FL_HASH_INIT). */
static inline uint64_t fl__hash_step(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

/* The hash of the first len bytes of s. */
static inline uint64_t fl__hash_mem(const char *s, size_t len) {
    return fl__hash_step(FL_HASH_INIT, s, len);
}

/* The hash of the string s (its terminator left out). */
static inline uint64_t fl__hash_str(const char *s) {
    uint64_t h = FL_HASH_INIT;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

/* h with its bits spread over the low ones (murmur3's finaliser, one
 * round): for a hash built from values that differ in their high or middle
 * bits before a power-of-two mask takes its low bits. */
static inline uint64_t fl__hash_mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* Another hash of the n bytes at p, for tables keyed by long strings: 8
 * bytes a step (xor, multiply by the FNV prime), its length folded in first
 * and the result mixed at the end (murmur3's finaliser), so its low bits
 * index a table. Bytes left over after the last whole word are the last 8
 * bytes taken as one more word (overlapping the one before; n is in the
 * hash already), or a byte a step when n < 8. Not fl__hash_mem's value. */
static inline uint64_t fl__hash_words(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = FL_HASH_INIT ^ n;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, 8); /* unaligned */
        h = (h ^ w) * 1099511628211ull;
    }
    if (k < n && n >= 8) {
        uint64_t w;
        memcpy(&w, b + n - 8, 8);
        h = (h ^ w) * 1099511628211ull;
        k = n;
    }
    for (; k < n; k++) {
        h = (h ^ b[k]) * 1099511628211ull;
    }
    return fl__hash_mix(h);
}

#endif
