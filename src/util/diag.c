/*
 * diag.c - error and warning context; see diag.h.
 */
#include "util/diag.h"

#include "graph/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fl_diag_init(fl_diag *d, fl_arena *a) {
    memset(d, 0, sizeof(*d));
    d->arena = a;
}

static char *vformat(fl_arena *a, const struct fl_node *n, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static char *vformat(fl_arena *a, const struct fl_node *n, const char *fmt, va_list ap) {
    char body[1024];
    vsnprintf(body, sizeof(body), fmt, ap);
    if (n) {
        return fl_arena_printf(a, "node '%s' (%s): %s", n->name ? n->name : "", n->op ? n->op : "",
                               body);
    }
    return fl_arena_strdup(a, body);
}

fl_status fl_diag_fail(fl_diag *d, fl_status st, const struct fl_node *n, const char *fmt, ...) {
    if (d->status != FL_OK) {
        return st;
    }
    d->status = st;
    va_list ap;
    va_start(ap, fmt);
    d->msg = vformat(d->arena, n, fmt, ap);
    va_end(ap);
    return st;
}

void fl_diag_warn(fl_diag *d, const struct fl_node *n, const char *fmt, ...) {
    if (d->n_warnings >= FL_DIAG_MAX_WARNINGS) {
        d->n_warnings_dropped++;
        return;
    }
    if (!d->warnings) {
        d->warnings = fl_arena_calloc(d->arena, FL_DIAG_MAX_WARNINGS, sizeof(char *));
        if (!d->warnings) {
            return;
        }
    }
    va_list ap;
    va_start(ap, fmt);
    char *m = vformat(d->arena, n, fmt, ap);
    va_end(ap);
    if (m) {
        d->warnings[d->n_warnings++] = m;
    }
}

fl_status fl_diag_oom(fl_diag *d) {
    if (d->status == FL_OK) {
        d->status = FL_ENOMEM;
        d->msg = (char *)"out of memory (analysis memory limit reached)";
    }
    return FL_ENOMEM;
}

fl_status fl_diag_check_stop(fl_diag *d) {
    if (d->status != FL_OK) {
        return d->status;
    }
    if (d->stop && d->stop(d->stop_arg)) {
        d->status = FL_ECANCELED;
        d->msg = (char *)"analysis cancelled (deadline passed or the caller gave up)";
        return FL_ECANCELED;
    }
    return FL_OK;
}
