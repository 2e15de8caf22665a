/*
 * check.h - the engine's self-checks: the pass verifier (fl__graph_verify
 * after every rewrite pass) and FL_DCHECK, assertions on IR invariants.
 *
 * They are on in debug builds (no NDEBUG) and, in any build, when the
 * environment has FOLDLINE_VERIFY=1: every CTest test and every fuzz target
 * sets it, so the checks never depend on the build type the suite happens to
 * be built with. A failed FL_DCHECK prints the condition and its place and
 * aborts: it marks a bug in foldline, never bad input (which is an error
 * status with a message).
 */
#ifndef FL_UTIL_CHECK_H
#define FL_UTIL_CHECK_H

#include <stdbool.h>

/* True when the self-checks are on (see above). Cheap: the environment is
 * read once. */
bool fl__checks_on(void);

/* Prints "foldline: internal check failed: COND (FILE:LINE)" and aborts. */
_Noreturn void fl__check_failed(const char *cond, const char *file, int line);

#define FL_DCHECK(cond)                                                                            \
    do {                                                                                           \
        if (fl__checks_on() && !(cond)) {                                                          \
            fl__check_failed(#cond, __FILE__, __LINE__);                                           \
        }                                                                                          \
    } while (0)

#endif
