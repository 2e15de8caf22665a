/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point's
 * prototype, a failed invariant (a message and abort(), which libFuzzer
 * reports as a crash with the input saved), and the status checks.
 *
 * The targets are built two ways: with libFuzzer (cmake -DFL_FUZZ=ON, clang)
 * and, in the ordinary build, with replay.c's main(), which runs them over
 * files (tests/fuzz/regress, tests/data) as a CTest test.
 */
#ifndef FL_FUZZ_FUZZ_H
#define FL_FUZZ_FUZZ_H

#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* On a target's own per-byte loops (feeding, comparing, hashing the input):
 * libFuzzer's coverage instrumentation there would cost more than the code
 * under test and guide the mutator by the harness's branches, not the
 * engine's. The ordinary build (replay.c, any compiler) has none to drop. */
#if defined(__clang__)
#define FUZZ_HARNESS __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_HARNESS
#endif

/* Statuses bad input may produce, as bits (1 << -status). */
#define FUZZ_BIT(s) (1u << (unsigned)-(int)(s))
#define FUZZ_IMPORT_STATUSES                                                                       \
    (FUZZ_BIT(FL_EINVAL) | FUZZ_BIT(FL_ELIMIT) | FUZZ_BIT(FL_EOVERFLOW) |                          \
     FUZZ_BIT(FL_EUNSUPPORTED) | FUZZ_BIT(FL_ENOTFOUND) | FUZZ_BIT(FL_ENOMEM))

#define fuzz_require(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz invariant failed (%s:%d): ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A failure must be one of `allowed` and carry a message. */
static inline void fuzz_check_failure(fl_status st, const char *msg, unsigned allowed) {
    fuzz_require(st < 0 && st >= FL_ECANCELED && (allowed & FUZZ_BIT(st)),
                 "status %d (%s) is not one bad input may produce; message: %s", (int)st,
                 fl_status_name(st), msg ? msg : "(none)");
    fuzz_require(msg && *msg, "status %s without a message", fl_status_name(st));
}

#endif
