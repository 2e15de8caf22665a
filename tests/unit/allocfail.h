/*
 * allocfail.h - allocation-failure injection for the tests (test_oom).
 *
 * The test executable is linked with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc: every malloc, calloc and realloc call in the engine's
 * objects (and the test's own) goes through __wrap_* in allocfail.c, and
 * the engine's code is the release build's, unchanged. Armed, every such
 * call and every arena allocation (util/arena.h's fail hook: arena
 * memory, scratch arrays, tables) counts as one allocation, in call
 * order, and the fail_at-th fails: malloc, calloc and realloc return NULL
 * (realloc leaving its block as it was), the arena's hook says fail. Calls
 * from inside the C library (its own allocations) are not counted. Not
 * thread-safe: arm it only while one thread allocates (fl_analyze runs on
 * the calling thread).
 */
#ifndef FL_ALLOCFAIL_H
#define FL_ALLOCFAIL_H

#include <stdbool.h>
#include <stddef.h>

/* Starts counting from 0; the fail_at-th allocation fails (0: none). */
void fl_af_arm(long fail_at);

/* Stops counting and failing. */
void fl_af_disarm(void);

/* The allocations counted since the last fl_af_arm. */
long fl_af_calls(void);

/* Of those, the malloc/calloc/realloc calls (the others are the arena's). */
long fl_af_raw_calls(void);

/* Whether the fail_at-th allocation came (and failed). */
bool fl_af_failed(void);

/* The indices (1-based, in all allocations) of the first `cap`
 * malloc/calloc/realloc calls since the last fl_af_arm, into out; returns
 * how many it wrote. */
size_t fl_af_raw_indices(long *out, size_t cap);

/* Prints the call stack of the allocation that failed, as the C
 * library's backtrace_symbols_fd does (static functions as offsets into
 * the executable: addr2line -f -e EXE OFFSET names them). */
void fl_af_print_where(void);

/* True when the test executable was linked with the wrappers (the
 * __wrap_ functions were called): a check that the injection works. */
bool fl_af_wrapped(void);

#endif
