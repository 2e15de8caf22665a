/*
 * progress.h - progress of long work on stderr: shown only when stderr is a
 * terminal and the work has run for a second (FOLDLINE_PROGRESS_AFTER_MS
 * changes the delay), never when stderr is piped or redirected.
 */
#ifndef FL_CLIENT_PROGRESS_H
#define FL_CLIENT_PROGRESS_H

#include "foldline/foldline.h"

#include <stdbool.h>

typedef struct fl_cli_progress {
    const char *what; /* the model being analysed */
    double start, last;
    bool enabled, shown;
    bool have_phase;   /* the engine has told a phase (local analyses) */
    fl_progress phase; /* the last told, its name copied to `name` */
    char name[32];
} fl_cli_progress;

/* Starts timing one analysis of `what` (borrowed). */
void fl_cli_progress_begin(fl_cli_progress *p, const char *what);

/* fl_options.should_stop: updates the line at most 10 times a second;
 * never asks to stop. */
bool fl_cli_progress_tick(void *arg);

/* fl_options.progress: the phase and nodes done, shown on the line (at
 * once when a phase starts, else as fl_cli_progress_tick). */
void fl_cli_progress_phase(const fl_progress *phase, void *arg);

/* Clears the line when it was shown. */
void fl_cli_progress_end(fl_cli_progress *p);

#endif
