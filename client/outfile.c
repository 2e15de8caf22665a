/*
 * outfile.c - files the CLI writes whole or not at all (see roofcli.h): the
 * text goes to a temporary file beside the target, which is flushed, synced
 * and renamed over it only when everything was written. A failure leaves the
 * target as it was.
 */
#include "roofcli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fl_outfile_open(fl_outfile *o, const char *path, char *err, size_t errlen) {
    memset(o, 0, sizeof(*o));
    o->path = path;
    if (!path) {
        o->f = stdout;
        return 0;
    }
    size_t n = strlen(path) + 16;
    o->tmp = malloc(n);
    if (!o->tmp) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return -1;
    }
    snprintf(o->tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        fl_outfile_abort(o);
        return -1;
    }
    return 0;
}

int fl_outfile_commit(fl_outfile *o, char *err, size_t errlen) {
    if (!o->path) {
        return fflush(stdout) == 0 ? 0 : -1;
    }
    bool ok = fflush(o->f) == 0 && !ferror(o->f) && fsync(fileno(o->f)) == 0;
    int e = errno;
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    if (ok && rename(o->tmp, o->path) != 0) {
        e = errno;
        ok = false;
    }
    if (!ok) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(e));
        fl_outfile_abort(o);
        return -1;
    }
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void fl_outfile_abort(fl_outfile *o) {
    if (o->f && o->f != stdout) {
        fclose(o->f);
    }
    o->f = NULL;
    if (o->tmp) {
        remove(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
}
