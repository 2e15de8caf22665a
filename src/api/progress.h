/*
 * progress.h - fl_options.progress: the phases of one analysis as they
 * start, advance and end.
 *
 * The API marks import, shapes and cost; the pass driver marks each pass
 * through the diag (fl__diag_phase), and the per-node loops of the layers
 * below tick through it every FL_DIAG_POLL_EVERY nodes (fl_diag_poll). A
 * phase that starts ends the one before it at its total, so the caller sees
 * every phase end except the one an error stopped.
 */
#ifndef FL_API_PROGRESS_H
#define FL_API_PROGRESS_H

#include "foldline/foldline.h"
#include "graph/graph.h"
#include "util/diag.h"

typedef struct fl_progress_state {
    void (*fn)(const fl_progress *p, void *arg);
    void *arg;
    fl_diag *d;        /* its polls: the nodes done */
    const fl_graph *g; /* a pass's total: the graph's nodes as it starts */
    fl_progress cur;
    bool open;       /* cur is a phase that has started and not ended */
    unsigned polls0; /* the diag's polls as cur started */
} fl_progress_state;

/* Hooks the diag to opt->progress (nothing when it is unset) and, unless
 * the diag has failed already, starts the import phase. */
void fl__progress_init(fl_progress_state *p, const fl_options *opt, fl_diag *d, const fl_graph *g);

/* Ends the open phase, if any, then starts `phase` with `total` nodes (-1:
 * not known yet). */
void fl__progress_begin(fl_progress_state *p, fl_phase phase, const char *name, int iteration,
                        int64_t total);

/* Ends the open phase at `total` nodes (-1: the total it started with; the
 * import's: the graph's nodes). */
void fl__progress_end(fl_progress_state *p, int64_t total);

#endif
