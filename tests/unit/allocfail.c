/*
 * allocfail.c - allocation-failure injection; see allocfail.h.
 */
#include "allocfail.h"

#include "util/arena.h"

#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

#define MAX_RAW 65536

static bool armed, failed, wrapped;
static long calls, raw_calls, fail_at;
static long raw_at[MAX_RAW];
static void *where[16]; /* the failed allocation's call stack */
static int n_where;

/* One allocation counted: whether it fails. */
static bool tick(bool raw) {
    if (!armed) {
        return false;
    }
    ++calls;
    if (raw) {
        if (raw_calls < MAX_RAW) {
            raw_at[raw_calls] = calls;
        }
        ++raw_calls;
    }
    if (calls == fail_at) {
        failed = true;
        n_where = backtrace(where, 16);
        return true;
    }
    return false;
}

void *__wrap_malloc(size_t size) {
    wrapped = true;
    return tick(true) ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size) {
    wrapped = true;
    return tick(true) ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size) {
    wrapped = true;
    return tick(true) ? NULL : __real_realloc(p, size);
}

static bool arena_hook(void *arg) {
    (void)arg;
    return tick(false);
}

void fl_af_arm(long at) {
    calls = raw_calls = 0;
    fail_at = at;
    failed = false;
    armed = true;
    fl__arena_set_fail_hook(arena_hook, NULL);
}

void fl_af_disarm(void) {
    armed = false;
    fl__arena_set_fail_hook(NULL, NULL);
}

long fl_af_calls(void) {
    return calls;
}

long fl_af_raw_calls(void) {
    return raw_calls;
}

bool fl_af_failed(void) {
    return failed;
}

size_t fl_af_raw_indices(long *out, size_t cap) {
    size_t n = (size_t)(raw_calls < MAX_RAW ? raw_calls : MAX_RAW);
    n = n < cap ? n : cap;
    for (size_t i = 0; i < n; i++) {
        out[i] = raw_at[i];
    }
    return n;
}

bool fl_af_wrapped(void) {
    return wrapped;
}

void fl_af_print_where(void) {
    if (failed) {
        fflush(stdout);
        backtrace_symbols_fd(where, n_where, STDOUT_FILENO);
    }
}
