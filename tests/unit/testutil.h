/*
 * testutil.h - helpers shared by the cmocka suites.
 */
#ifndef FL_TESTUTIL_H
#define FL_TESTUTIL_H

/* cmocka.h needs these three before it; keep the order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

/* Reads a whole file into malloc'd memory; NULL if it cannot be read. */
unsigned char *fl_test_read_file(const char *path, size_t *len);

/* True when the shared corpus directory exists; otherwise prints why the
 * caller skips (with fl_test_skip). */
int fl_test_have_corpus(const char *what);

/* Skipping: print the reason ("SKIP what: why"), then fl_test_skip() ends the
 * current test as skipped, and fl_test_exit() makes the binary exit 77, which
 * CTest reports as "Skipped" (SKIP_RETURN_CODE, tests/CMakeLists.txt). With
 * FL_REQUIRE_ALL=1 in the environment (.ci/run) a skip fails the test
 * instead: CI runs everything or fails. */
#define fl_test_skip()                                                                             \
    do {                                                                                           \
        if (fl_test_skip_allowed()) {                                                              \
            skip();                                                                                \
        } else {                                                                                   \
            fail_msg("a test was skipped and FL_REQUIRE_ALL=1 forbids skips");                     \
        }                                                                                          \
    } while (0)

/* Records a skip; false when FL_REQUIRE_ALL=1 forbids it. */
int fl_test_skip_allowed(void);

/* A fail hook for util/arena.h's fl__arena_set_fail_hook (arg: a counter):
 * counts the engine's allocations and fails the fail_at-th (only that one;
 * 0: none); remembers which calls were scratch memory (fl__arena_scratch). */
#define FL_TEST_MAX_SCRATCH 4096
typedef struct fl_test_alloc_counter {
    long calls, fail_at;
    long scratch[FL_TEST_MAX_SCRATCH];
    size_t n_scratch;
} fl_test_alloc_counter;
bool fl_test_fail_kth(void *arg);

/* Imports `len` bytes of format `fmt` (with `files` for ONNX external data
 * and TF.js shards) into a fresh graph once, counting the scratch
 * allocations (util/arena.h fl__arena_scratch) the importer makes, then
 * fails each of them in turn: the import must return FL_ENOMEM every time.
 * Returns the count. The first import must succeed. */
struct fl_file;
size_t fl_test_import_scratch_oom(int fmt, const void *buf, size_t len, const struct fl_file *files,
                                  size_t n_files);

/* Whether some warning of report r contains a and, when b is not NULL, b. */
struct fl_report;
bool fl_test_has_warning(const struct fl_report *r, const char *a, const char *b);

/* main's return value: `failed` (cmocka_run_group_tests) when a test failed,
 * else 77 when one was skipped, else 0. */
int fl_test_exit(int failed);

#endif
