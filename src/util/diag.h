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

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define FL_DIAG_MAX_WARNINGS 200

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

    /* Progress: when set, told of each phase the layers below the API mark
     * (fl__diag_phase: a pass's name and iteration) and, inside a phase,
     * every FL_DIAG_POLL_EVERY polls (phase NULL); `polls` counts the polls
     * so far (one per node in the engine's per-node loops). */
    void (*progress)(void *arg, const char *phase, int iteration, unsigned polls);
    void *progress_arg;

    /* Messages name options as the request's fields (fl_options.option_names
     * FL_OPTION_NAMES_REQUEST) instead of the CLI's flags: fl__diag_opt. */
    bool request_names;

    /* The memory that ran out was the limit's (fl__diag_over_limit). */
    bool over_limit;
} fl_diag;

#define FL_DIAG_POLL_EVERY 1024u

void fl__diag_init(fl_diag *d, fl_arena *a);

/* The wording of an option in a message: `cli` (a flag, "--bind SYM=N") or,
 * with d->request_names, `request` (the request's field, "options.symbols"). */
static inline const char *fl__diag_opt(const fl_diag *d, const char *cli, const char *request) {
    return d && d->request_names ? request : cli;
}

/* Records an error (if none is recorded yet) and returns `st`, so callers can
 * write `return fl__diag_fail(d, FL_EINVAL, "...")`. Messages about a node go
 * through fl__node_fail (graph/graph.h), which names the node and its op. */
fl_status fl__diag_fail(fl_diag *d, fl_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records a warning. */
void fl__diag_warn(fl_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The forms the layers above build on: with `subject` (a node's name) and
 * `kind` (its op type) set, the message is prefixed "node 'SUBJECT' (KIND): ";
 * with subject NULL it is `fmt` alone. */
fl_status fl__diag_failv(fl_diag *d, fl_status st, const char *subject, const char *kind,
                         const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
void fl__diag_warnv(fl_diag *d, const char *subject, const char *kind, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* Records an out-of-memory failure (no allocation needed). */
fl_status fl__diag_oom(fl_diag *d);

/* As fl__diag_oom, when the analysis's memory limit (not the system)
 * refused the memory: the error then names the limit. */
fl_status fl__diag_over_limit(fl_diag *d);

/* Asks the stop callback now: FL_ECANCELED (recorded as the error) when it
 * says stop, else the status already recorded (FL_OK normally). */
fl_status fl__diag_check_stop(fl_diag *d);

/* Tells the progress callback (if any) of the polls so far, then asks the
 * stop callback as fl__diag_check_stop. */
fl_status fl__diag_poll_now(fl_diag *d);

/* Tells the progress callback (if any) that `phase` starts. */
void fl__diag_phase(fl_diag *d, const char *phase, int iteration);

/* The cheap form for per-node loops: asks (and reports progress) every
 * FL_DIAG_POLL_EVERY calls. */
static inline fl_status fl_diag_poll(fl_diag *d) {
    if ((d->stop || d->progress) && ++d->polls % FL_DIAG_POLL_EVERY == 0) {
        return fl__diag_poll_now(d);
    }
    return FL_OK;
}

#endif
