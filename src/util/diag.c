/*
 * diag.c - error and warning context; see diag.h.
 */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fl__diag_init(fl_diag *d, fl_arena *a) {
    memset(d, 0, sizeof(*d));
    d->arena = a;
}

static char *vformat(fl_arena *a, const char *subject, const char *kind, const char *fmt,
                     va_list ap) __attribute__((format(printf, 4, 0)));

static char *vformat(fl_arena *a, const char *subject, const char *kind, const char *fmt,
                     va_list ap) {
    char body[1024];
    vsnprintf(body, sizeof(body), fmt, ap);
    if (subject) {
        return fl__arena_printf(a, "node '%s' (%s): %s", subject, kind ? kind : "", body);
    }
    return fl__arena_strdup(a, body);
}

fl_status fl__diag_failv(fl_diag *d, fl_status st, const char *subject, const char *kind,
                         const char *fmt, va_list ap) {
    if (d->status != FL_OK) {
        return st;
    }
    d->status = st;
    d->msg = vformat(d->arena, subject, kind, fmt, ap);
    return st;
}

fl_status fl__diag_fail(fl_diag *d, fl_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fl__diag_failv(d, st, NULL, NULL, fmt, ap);
    va_end(ap);
    return st;
}

void fl__diag_warnv(fl_diag *d, const char *subject, const char *kind, const char *fmt,
                    va_list ap) {
    if (d->n_warnings >= FL_DIAG_MAX_WARNINGS) {
        d->n_warnings_dropped++;
        return;
    }
    if (!d->warnings) {
        d->warnings = fl__arena_calloc(d->arena, FL_DIAG_MAX_WARNINGS, sizeof(char *));
        if (!d->warnings) {
            return;
        }
    }
    char *m = vformat(d->arena, subject, kind, fmt, ap);
    if (m) {
        d->warnings[d->n_warnings++] = m;
    }
}

void fl__diag_warn(fl_diag *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fl__diag_warnv(d, NULL, NULL, fmt, ap);
    va_end(ap);
}

fl_status fl__diag_oom(fl_diag *d) {
    if (d->status == FL_OK) {
        d->status = FL_ENOMEM;
        d->msg = (char *)"out of memory";
    }
    return FL_ENOMEM;
}

fl_status fl__diag_over_limit(fl_diag *d) {
    d->over_limit = true;
    return fl__diag_oom(d);
}

fl_status fl__diag_check_stop(fl_diag *d) {
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

fl_status fl__diag_poll_now(fl_diag *d) {
    if (d->progress && d->status == FL_OK) {
        d->progress(d->progress_arg, NULL, 0, d->polls);
    }
    return fl__diag_check_stop(d);
}

void fl__diag_phase(fl_diag *d, const char *phase, int iteration) {
    if (d->progress && d->status == FL_OK) {
        d->progress(d->progress_arg, phase, iteration, d->polls);
    }
}
