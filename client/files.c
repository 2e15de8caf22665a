/*
 * files.c - see files.h.
 */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct refs {
    char **names;
    size_t n, cap;
    bool oom;
} refs;

static void add_ref(const char *name, void *arg) {
    refs *r = arg;
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 8;
        char **nn = realloc(r->names, nc * sizeof(char *));
        if (!nn) {
            r->oom = true;
            return;
        }
        r->names = nn;
        r->cap = nc;
    }
    char *copy = strdup(name);
    if (!copy) {
        r->oom = true;
        return;
    }
    r->names[r->n++] = copy;
}

/* Maps path read-only; 1 when it does not exist, 0 when mapped, -1 on error. */
static int map_file(const char *path, const void **bytes, size_t *len, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT) {
            return 1;
        }
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a regular file", path);
        close(fd);
        return -1;
    }
    *len = (size_t)st.st_size;
    *bytes = "";
    if (*len) {
        void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "cannot map '%s': %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        *bytes = p;
    }
    close(fd);
    return 0;
}

int fl_cli_files_load(fl_cli_files *f, const char *model_path, const void *buf, size_t len,
                      fl_format fmt, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    refs r = {0};
    if (fl_model_file_refs(buf, len, fmt, add_ref, &r) <= 0 && !r.oom) {
        free(r.names);
        return 0;
    }
    int rc = 0;
    if (r.oom) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    /* Names are relative to the model's folder (the path itself when it is
     * one: `foldline analyze dir/` reads dir/model.json). */
    struct stat st;
    bool is_dir = stat(model_path, &st) == 0 && S_ISDIR(st.st_mode);
    const char *slash = strrchr(model_path, '/');
    size_t dir_len = is_dir ? strlen(model_path) : slash ? (size_t)(slash - model_path) + 1 : 0;
    const char *sep = is_dir && dir_len && model_path[dir_len - 1] != '/' ? "/" : "";
    f->files = calloc(r.n ? r.n : 1, sizeof(fl_file));
    if (!f->files && rc == 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; i < r.n && rc == 0; i++) {
        if (strstr(r.names[i], "..") || r.names[i][0] == '/') {
            continue; /* stays inside the model's directory */
        }
        size_t plen = dir_len + strlen(r.names[i]) + 2;
        char *path = malloc(plen);
        if (!path) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        snprintf(path, plen, "%.*s%s%s", (int)dir_len, model_path, sep, r.names[i]);
        const void *bytes = NULL;
        size_t blen = 0;
        int m = map_file(path, &bytes, &blen, err, errlen);
        free(path);
        if (m < 0) {
            rc = -1;
        } else if (m == 0) {
            f->files[f->n].name = r.names[i];
            f->files[f->n].bytes = bytes;
            f->files[f->n].len = blen;
            f->n++;
            r.names[i] = NULL; /* owned by f now */
        }
    }
    for (size_t i = 0; i < r.n; i++) {
        free(r.names[i]);
    }
    free(r.names);
    if (rc) {
        fl_cli_files_free(f);
    }
    return rc;
}

void fl_cli_files_free(fl_cli_files *f) {
    for (size_t i = 0; i < f->n; i++) {
        if (f->files[i].len) {
            munmap((void *)f->files[i].bytes, f->files[i].len);
        }
        free((char *)f->files[i].name);
    }
    free(f->files);
    memset(f, 0, sizeof *f);
}
