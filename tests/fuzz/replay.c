/*
 * replay.c - main() for a fuzz target outside libFuzzer: runs the target's
 * LLVMFuzzerTestOneInput over every file named on the command line (a
 * directory: every file in it). The ordinary build links each target with
 * this file and CTest runs it over tests/fuzz/regress/<target> and
 * tests/data, so inputs that once failed stay fixed and the invariants run
 * in every build (ASan/UBSan included). Exit 1 when a path cannot be read;
 * a failed invariant aborts.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path, int *n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    (*n)++;
    return 0;
}

static int run_path(const char *path, int *n) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return run_file(path, n);
    }
    DIR *dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "replay: cannot open directory %s\n", path);
        return 1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc |= run_path(sub, n);
    }
    closedir(dir);
    return rc;
}

/* As libFuzzer: a target may leave LLVMFuzzerInitialize out. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    int rc = 0, n = 0;
    for (int i = 1; i < argc; i++) {
        rc |= run_path(argv[i], &n);
    }
    printf("replay: %d inputs, every invariant held\n", n);
    return rc;
}
