/*
 * progress.h - progress of long work on stderr: shown only when stderr is a
 * terminal and the work has run for a second (FOLDLINE_PROGRESS_AFTER_MS
 * changes the delay), never when stderr is piped or redirected.
 */
#ifndef FL_CLIENT_PROGRESS_H
#define FL_CLIENT_PROGRESS_H

#include <stdbool.h>

typedef struct fl_progress {
    const char *what; /* the model being analysed */
    double start, last;
    bool enabled, shown;
} fl_progress;

/* Starts timing one analysis of `what` (borrowed). */
void fl_progress_begin(fl_progress *p, const char *what);

/* fl_options.should_stop: updates the line at most 10 times a second;
 * never asks to stop. */
bool fl_progress_tick(void *arg);

/* Clears the line when it was shown. */
void fl_progress_end(fl_progress *p);

#endif
