/*
 * hash.h - the string hash the engine's lookup tables share: 64-bit FNV-1a.
 * Tables index by its low bits (a power-of-two mask).
 */
#ifndef FL_UTIL_HASH_H
#define FL_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t fl__hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    }
    return h;
}

#endif
