/*
 * testutil.c - helpers shared by the cmocka suites.
 */
#include "testutil.h"

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
