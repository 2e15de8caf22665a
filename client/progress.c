/*
 * progress.c - a one-line progress display on stderr for long analyses:
 * which model, the how-many-th analysis of the command (diff, report and
 * --sweep run several), the engine's phase with its nodes done
 * (fl_options.progress: "shapes 41,984 of 100,001 nodes", "pass cse
 * (iteration 1) on 3,001 nodes") and the time spent. Driven by the engine's calls (phases,
 * every 1024 nodes) and its cancellation poll, so a million-node graph
 * updates it often and a small graph finishes before it would show.
 */
#include "progress.h"

#include <inttypes.h>
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

void fl_cli_progress_begin(fl_cli_progress *p, const char *what) {
    memset(p, 0, sizeof *p);
    p->what = what;
    p->enabled = isatty(STDERR_FILENO) == 1;
    p->start = now_s();
    p->last = p->start + delay_s() - 0.1; /* first line at start + delay */
    analyses++;
}

/* n with a comma between thousands ("1,000,001"). */
static void print_count(int64_t n) {
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRId64, n < 0 ? 0 : n);
    for (int i = 0; i < len; i++) {
        fputc(digits[i], stderr);
        if (i + 1 < len && (len - i - 1) % 3 == 0) {
            fputc(',', stderr);
        }
    }
}

static void print_phase(const fl_progress *ph) {
    if (ph->phase == FL_PHASE_PASS) { /* a pass tells its start and end only */
        fprintf(stderr, ": pass %s (iteration %d) on ", ph->name, ph->iteration + 1);
        print_count(ph->nodes_total);
        fputs(" nodes", stderr);
        return;
    }
    fprintf(stderr, ": %s ", ph->name);
    print_count(ph->nodes_done);
    if (ph->nodes_total >= 0) {
        fputs(" of ", stderr);
        print_count(ph->nodes_total);
    }
    fputs(" nodes", stderr);
}

static void draw(fl_cli_progress *p, double t) {
    p->last = t;
    const char *base = p->what ? strrchr(p->what, '/') : NULL;
    fprintf(stderr, "\rfoldline: analysing %s", base ? base + 1 : p->what ? p->what : "");
    if (analyses > 1) {
        fprintf(stderr, " (analysis %d)", analyses);
    }
    if (p->have_phase) {
        print_phase(&p->phase);
    }
    fprintf(stderr, ", %.1f s\033[K", t - p->start);
    fflush(stderr);
    p->shown = true;
}

bool fl_cli_progress_tick(void *arg) {
    fl_cli_progress *p = arg;
    if (!p || !p->enabled) {
        return false;
    }
    double t = now_s();
    if (t - p->last >= 0.1) {
        draw(p, t);
    }
    return false;
}

void fl_cli_progress_phase(const fl_progress *phase, void *arg) {
    fl_cli_progress *p = arg;
    if (!p || !p->enabled) {
        return;
    }
    const char *name = phase->name ? phase->name : "";
    bool starts = !p->have_phase || phase->phase != p->phase.phase ||
                  strncmp(name, p->name, sizeof p->name - 1) != 0 ||
                  phase->iteration != p->phase.iteration;
    p->phase = *phase;
    snprintf(p->name, sizeof p->name, "%s", name); /* valid during the call only */
    p->phase.name = p->name;
    p->have_phase = true;
    double t = now_s();
    /* A phase's start shows at once once the delay has passed: the line
     * names every phase of a long analysis, however short the phase. */
    if (t - p->last >= 0.1 || (starts && t >= p->start + delay_s())) {
        draw(p, t);
    }
}

void fl_cli_progress_end(fl_cli_progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}
