/*
 * files.c - see files.h.
 */
#include "files.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
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

/* ------------------------------------------------------------------------- */
/* The model file: mapped, or read when it cannot be                          */
/* ------------------------------------------------------------------------- */

/* The path the SIGBUS handler names (a mapped file that shrank under us). */
static char bus_path[512];

static void on_sigbus(int sig) {
    (void)sig;
    static const char a[] = "foldline: ";
    static const char b[] = ": the file shrank while it was being read (it is mapped, not "
                            "copied); no result\n";
    ssize_t r = write(STDERR_FILENO, a, sizeof a - 1);
    r = write(STDERR_FILENO, bus_path, strlen(bus_path));
    r = write(STDERR_FILENO, b, sizeof b - 1);
    (void)r;
    _exit(EXIT_IO);
}

/* Reads the whole of fd (a pipe, a file of a filesystem that cannot map). */
static int read_all(fl_cli_model *m, int fd, char *err, size_t errlen) {
    size_t cap = 0, n = 0;
    unsigned char *buf = NULL;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : (size_t)1 << 16;
            unsigned char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                snprintf(err, errlen, "out of memory reading '%s'", m->path);
                return -1;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            snprintf(err, errlen, "cannot read '%s': %s", m->path, strerror(errno));
            free(buf);
            return -1;
        }
        if (r == 0) {
            break;
        }
        n += (size_t)r;
    }
    m->owned = buf;
    m->bytes = buf ? (const void *)buf : "";
    m->len = n;
    return 0;
}

int fl_cli_model_open(fl_cli_model *m, const char *path, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    m->fd = -1;
    snprintf(m->path, sizeof m->path, "%s", path);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &m->st) != 0) {
        snprintf(err, errlen, "cannot stat '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(m->st.st_mode)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(EISDIR));
        close(fd);
        return -1;
    }
    bool regular = S_ISREG(m->st.st_mode);
    if (regular && m->st.st_size > 0 && !getenv("FOLDLINE_NO_MMAP")) {
        void *p = mmap(NULL, (size_t)m->st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            m->bytes = p;
            m->len = (size_t)m->st.st_size;
            m->mapped = true;
            posix_madvise(p, m->len, POSIX_MADV_RANDOM); /* no read-ahead of weights */
            m->fd = fd;                                  /* kept to check the size again */
            snprintf(bus_path, sizeof bus_path, "%s", path);
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_sigbus;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGBUS, &sa, NULL);
            return 0;
        }
        /* a filesystem that cannot map: read it instead */
    }
    int rc = read_all(m, fd, err, errlen);
    close(fd);
    return rc;
}

int fl_cli_model_check(const fl_cli_model *m, char *err, size_t errlen) {
    if (!m->mapped) {
        return 0; /* a private copy: nothing can change under us */
    }
    struct stat now;
    if (fstat(m->fd, &now) != 0) {
        snprintf(err, errlen, "cannot stat '%s' again: %s", m->path, strerror(errno));
        return -1;
    }
    if (now.st_size != m->st.st_size || now.st_mtim.tv_sec != m->st.st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != m->st.st_mtim.tv_nsec) {
        snprintf(err, errlen,
                 "'%s' changed while it was being read (%lld bytes when mapped, %lld now); it is "
                 "mapped, not copied, so the result is not reported",
                 m->path, (long long)m->st.st_size, (long long)now.st_size);
        return -1;
    }
    return 0;
}

void fl_cli_model_replace(fl_cli_model *m, unsigned char *buf, size_t len) {
    fl_cli_model_close(m);
    m->owned = buf;
    m->bytes = buf;
    m->len = len;
}

void fl_cli_model_close(fl_cli_model *m) {
    if (m->mapped) {
        munmap((void *)(uintptr_t)m->bytes, m->len);
        signal(SIGBUS, SIG_DFL);
    }
    if (m->fd >= 0) {
        close(m->fd);
    }
    free(m->owned);
    m->owned = NULL;
    m->mapped = false;
    m->fd = -1;
    m->bytes = NULL;
    m->len = 0;
}
