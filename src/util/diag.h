/*
 * diag.h - the error and warning context of one analysis.
 *
 * The first error wins (as SQLite's Parse): later failures keep the original
 * status and message, so the root cause survives. Messages that concern a node
 * name it and its op: "node 'conv1' (Conv2D): attr 'strides' must be list(int)".
 * Warnings are collected up to a cap; beyond it they are only counted.
 */
#ifndef FL_UTIL_DIAG_H
#define FL_UTIL_DIAG_H

#include "foldline/status.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>

#define FL_DIAG_MAX_WARNINGS 200

struct fl_node;

typedef struct fl_diag {
    fl_arena *arena;
    fl_status status; /* FL_OK until the first failure */
    char *msg;        /* first error's message (arena), or NULL */
    char **warnings;  /* up to FL_DIAG_MAX_WARNINGS messages */
    size_t n_warnings;
    size_t n_warnings_dropped;

    /* Cancellation: when set, polled at the engine's check points (between
     * phases and passes, and every FL_DIAG_POLL_EVERY nodes inside them); a
     * true answer fails the analysis with FL_ECANCELED. */
    bool (*stop)(void *arg);
    void *stop_arg;
    unsigned polls;
} fl_diag;

#define FL_DIAG_POLL_EVERY 1024u

void fl_diag_init(fl_diag *d, fl_arena *a);

/* Records an error (if none is recorded yet) and returns `st`, so callers can
 * write `return fl_diag_fail(d, FL_EINVAL, n, "...")`. `n` may be NULL; when
 * given, the message is prefixed with "node 'NAME' (OP): ". */
fl_status fl_diag_fail(fl_diag *d, fl_status st, const struct fl_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a warning, prefixed like fl_diag_fail's messages. */
void fl_diag_warn(fl_diag *d, const struct fl_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records an out-of-memory failure (no allocation needed). */
fl_status fl_diag_oom(fl_diag *d);

/* Asks the stop callback now: FL_ECANCELED (recorded as the error) when it
 * says stop, else the status already recorded (FL_OK normally). */
fl_status fl_diag_check_stop(fl_diag *d);

/* The cheap form for per-node loops: asks every FL_DIAG_POLL_EVERY calls. */
static inline fl_status fl_diag_poll(fl_diag *d) {
    if (d->stop && ++d->polls % FL_DIAG_POLL_EVERY == 0) {
        return fl_diag_check_stop(d);
    }
    return FL_OK;
}

#endif
