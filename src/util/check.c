/*
 * check.c - whether the self-checks are on (check.h).
 */
#include "util/check.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0: not read yet, 1: off, 2: on. Racing first reads agree. */
static atomic_int state;

bool fl__checks_on(void) {
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (s == 0) {
#ifdef NDEBUG
        const char *v = getenv("FOLDLINE_VERIFY");
        s = v && strcmp(v, "1") == 0 ? 2 : 1;
#else
        s = 2;
#endif
        atomic_store_explicit(&state, s, memory_order_relaxed);
    }
    return s == 2;
}

_Noreturn void fl__check_failed(const char *cond, const char *file, int line) {
    fprintf(stderr, "foldline: internal check failed: %s (%s:%d)\n", cond, file, line);
    abort();
}
