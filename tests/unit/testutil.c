/*
 * testutil.c - helpers shared by the cmocka suites.
 */
#include "testutil.h"

#include "foldline/foldline.h"
#include "graph/graph.h"
#include "import/import.h"
#include "util/arena.h"
#include "util/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

unsigned char *fl_test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        *len = (size_t)n;
    }
    return buf;
}

int fl_test_have_corpus(const char *what) {
    struct stat st;
    if (stat(FL_CORPUS_DIR, &st) == 0 && S_ISDIR(st.st_mode)) {
        return 1;
    }
    printf("SKIP %s: corpus directory %s is absent (it sits beside the checkout in CI)\n", what,
           FL_CORPUS_DIR);
    return 0;
}

static int n_skipped;

int fl_test_skip_allowed(void) {
    const char *req = getenv("FL_REQUIRE_ALL");
    if (req && strcmp(req, "1") == 0) {
        printf("FL_REQUIRE_ALL=1: the skip above is a failure\n");
        return 0;
    }
    n_skipped++;
    return 1;
}

int fl_test_exit(int failed) {
    if (failed) {
        return failed == 77 ? 1 : failed;
    }
    if (n_skipped) {
        printf("%d test(s) skipped (reasons above): exit 77\n", n_skipped);
        return 77;
    }
    return 0;
}

bool fl_test_fail_kth(void *arg) {
    fl_test_alloc_counter *a = arg;
    ++a->calls;
    if (fl__alloc_hook_is_scratch() && a->n_scratch < FL_TEST_MAX_SCRATCH) {
        a->scratch[a->n_scratch++] = a->calls;
    }
    return a->calls == a->fail_at;
}

static fl_status import_once(int fmt, const void *buf, size_t len, const fl_file *files,
                             size_t n_files, fl_test_alloc_counter *c) {
    fl_arena a;
    fl__arena_init(&a, (size_t)1 << 30);
    fl_diag d;
    fl__diag_init(&d, &a);
    fl__arena_set_fail_hook(fl_test_fail_kth, c);
    fl_graph *g = fl__graph_new(&a);
    fl_import_opts io = {1000000, 1 << 20, NULL};
    fl_import_files fs = {files, n_files};
    const uint8_t *b = buf;
    fl_status st = !g                        ? FL_ENOMEM
                   : fmt == FL_FORMAT_TFLITE ? fl__import_tflite(g, b, len, &io, &d)
                   : fmt == FL_FORMAT_TFJS   ? fl__import_tfjs(g, b, len, &io, &fs, &d)
                   : fmt == FL_FORMAT_ONNX   ? fl__import_onnx_files(g, b, len, &io, &fs, &d)
                                             : fl__import_graphdef(g, b, len, &io, &d);
    fl__arena_set_fail_hook(NULL, NULL);
    fl__arena_free(&a);
    return st;
}

size_t fl_test_import_scratch_oom(int fmt, const void *buf, size_t len, const fl_file *files,
                                  size_t n_files) {
    static fl_test_alloc_counter none, c;
    memset(&none, 0, sizeof none);
    assert_int_equal(import_once(fmt, buf, len, files, n_files, &none), FL_OK);
    assert_true(none.n_scratch < FL_TEST_MAX_SCRATCH);
    for (size_t j = 0; j < none.n_scratch; j++) {
        memset(&c, 0, sizeof c);
        c.fail_at = none.scratch[j];
        fl_status st = import_once(fmt, buf, len, files, n_files, &c);
        if (st != FL_ENOMEM) {
            fail_msg("scratch allocation %zu of %zu (call %ld) failed, the import returned %s",
                     j + 1, none.n_scratch, none.scratch[j], fl_status_name(st));
        }
    }
    return none.n_scratch;
}

bool fl_test_has_warning(const fl_report *r, const char *a, const char *b) {
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strstr(r->warnings[i], a) && (!b || strstr(r->warnings[i], b))) {
            return true;
        }
    }
    return false;
}
