/*
 * progress.c - a one-line progress display on stderr for long analyses:
 * which model, the how-many-th analysis of the command (diff, report and
 * --sweep run several), and the time spent; driven by the engine's
 * cancellation poll (fl_options.should_stop, asked between phases and every
 * 1024 nodes), so a million-node graph updates it often and a small graph
 * finishes before it would show.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int analyses; /* begun by this process: the step shown */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double delay_s(void) {
    const char *v = getenv("FOLDLINE_PROGRESS_AFTER_MS");
    char *end;
    long ms = v && *v ? strtol(v, &end, 10) : 1000;
    return v && *v && (*end || ms < 0) ? 1.0 : (double)ms / 1000.0;
}

void fl_progress_begin(fl_progress *p, const char *what) {
    memset(p, 0, sizeof *p);
    p->what = what;
    p->enabled = isatty(STDERR_FILENO) == 1;
    p->start = now_s();
    p->last = p->start + delay_s() - 0.1; /* first line at start + delay */
    analyses++;
}

bool fl_progress_tick(void *arg) {
    fl_progress *p = arg;
    if (!p || !p->enabled) {
        return false;
    }
    double t = now_s();
    if (t - p->last < 0.1) {
        return false;
    }
    p->last = t;
    const char *base = p->what ? strrchr(p->what, '/') : NULL;
    fprintf(stderr, "\rfoldline: analysing %s", base ? base + 1 : p->what ? p->what : "");
    if (analyses > 1) {
        fprintf(stderr, " (analysis %d)", analyses);
    }
    fprintf(stderr, ": %.1f s\033[K", t - p->start);
    fflush(stderr);
    p->shown = true;
    return false;
}

void fl_progress_end(fl_progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}
