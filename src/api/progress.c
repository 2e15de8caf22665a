/*
 * progress.c - fl_options.progress; see progress.h.
 */
#include "api/progress.h"

#include <string.h>

static void emit(fl_progress_state *p) {
    p->fn(&p->cur, p->arg);
}

void fl__progress_end(fl_progress_state *p, int64_t total) {
    if (!p->fn || !p->open) {
        return;
    }
    p->open = false;
    if (total >= 0) {
        p->cur.nodes_total = total;
    }
    if (p->cur.nodes_total < 0) { /* the import: the nodes read */
        p->cur.nodes_total = p->g ? (int64_t)p->g->n_nodes : p->cur.nodes_done;
    }
    p->cur.nodes_done = p->cur.nodes_total;
    emit(p);
}

void fl__progress_begin(fl_progress_state *p, fl_phase phase, const char *name, int iteration,
                        int64_t total) {
    if (!p->fn) {
        return;
    }
    fl__progress_end(p, -1);
    p->cur = (fl_progress){phase, name, iteration, 0, total};
    p->open = true;
    p->polls0 = p->d->polls;
    emit(p);
}

/* The diag's hook: a pass starts (phase set) or the per-node loops have
 * polled `polls` times in all. */
static void on_diag(void *arg, const char *phase, int iteration, unsigned polls) {
    fl_progress_state *p = arg;
    if (phase) {
        fl__progress_begin(p, FL_PHASE_PASS, phase, iteration, p->g ? (int64_t)p->g->n_nodes : -1);
        return;
    }
    if (!p->open || p->cur.phase == FL_PHASE_PASS) {
        return; /* a pass's polls are re-inferred nodes, not its progress */
    }
    int64_t done = (int64_t)(unsigned)(polls - p->polls0);
    if (p->cur.nodes_total >= 0 && done >= p->cur.nodes_total) {
        return; /* a second walk (or more polls than nodes): the end says it */
    }
    if (done > p->cur.nodes_done) {
        p->cur.nodes_done = done;
        emit(p);
    }
}

void fl__progress_init(fl_progress_state *p, const fl_options *opt, fl_diag *d, const fl_graph *g) {
    memset(p, 0, sizeof(*p));
    p->fn = opt->progress;
    p->arg = opt->progress_arg;
    p->d = d;
    p->g = g;
    if (p->fn) {
        d->progress = on_diag;
        d->progress_arg = p;
        if (d->status == FL_OK) {
            fl__progress_begin(p, FL_PHASE_IMPORT, "import", 0, -1);
        }
    }
}
