/*
 * tf_loop.c - the trip counts of TensorFlow's functional While loops, after
 * funcinline.c has lowered them: While W is "W/while" (attr _loop "W"),
 * and "W/cond" and "W/body" are its cond and body functions called on
 * W/while's outputs and inlined (each function's arguments are the
 * Identity nodes "W/cond/ARG" in signature order, its returns the inputs of
 * the IdentityN "W/cond"); the loop's initial values are W/while's inputs.
 *
 * A loop is a counted one when its cond and body have the pattern TFLite's
 * WHILE is read by (src/import/tflite_loop.c: a loop variable stepped by a
 * constant in the body, compared with a constant or an unchanged loop
 * variable in the cond, from constant initial values; the same recognizer,
 * over TensorFlow's ops): then W gets attrs _body_trips (T) and _cond_trips
 * (T + 1), and the cost model counts every node of the body (the nodes
 * named "W/body/...", nested calls and loops included) T times and of the
 * cond T + 1 times (src/cost/cost.c), a warning stating it. A counted
 * loop whose limit is a loop variable without a constant initial value (a
 * graph input, a size computed from shapes) gets attr _trip_form instead
 * (src/util/reserved.h): the cost model counts its trips from the value
 * inference gives that initial value, known or symbolic, or from the
 * symbol named after the integer scalar input it comes from. Otherwise the
 * body and the cond are counted once, with a warning naming the loop and
 * saying the totals are then a lower bound, and W gets attr _trip_unknown
 * (1): the cost model marks W/while incomplete, so the answer is partial
 * (src/cost/cost.c).
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "import/tflite_loop.h"
#include "ops/ops.h"

#include <stdio.h>
#include <string.h>

static bool has_prefix(const char *s, const char *p, size_t len) {
    return strncmp(s, p, len) == 0;
}

/* The inlined call "LOOP/SIDE" of loop w as a subgraph: its argument
 * Identities (the first n nodes named "LOOP/SIDE/", each reading w's
 * output in turn) and its IdentityN's inputs. false when it is not so (the
 * call was not inlined). */
static bool inlined_call(fl_graph *g, const fl_node *w, const char *loop, const char *side,
                         fl_tfl_subgraph *s, fl_diag *d, bool *oom) {
    char *name = fl__arena_printf(g->arena, "%s/%s", loop, side);
    char *prefix = fl__arena_printf(g->arena, "%s/%s/", loop, side);
    s->in = fl__arena_calloc(g->arena, (size_t)w->n_inputs + 1, sizeof(fl_node *));
    if (!name || !prefix || !s->in) {
        *oom = true;
        fl__diag_oom(d);
        return false;
    }
    const fl_node *idn = fl__graph_find(g, name);
    if (!idn || strcmp(idn->op, "IdentityN") != 0) {
        return false;
    }
    s->name = name;
    s->n_out = idn->n_inputs;
    s->out = idn->inputs;
    size_t len = strlen(prefix), i = 0;
    while (i < g->n_nodes && !has_prefix(g->nodes[i]->name, prefix, len)) {
        i++;
    }
    for (int k = 0; k < w->n_inputs; k++, i++) {
        fl_node *a = i < g->n_nodes ? g->nodes[i] : NULL;
        if (!a || !has_prefix(a->name, prefix, len) || strcmp(a->op, "Identity") != 0 ||
            a->n_inputs != 1 || a->inputs[0].node != w || a->inputs[0].port != k) {
            return false;
        }
        s->in[k] = a;
    }
    s->n_in = w->n_inputs;
    return true;
}

static const char *str_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_S ? a->v.s.p : NULL;
}

/* Trip count of lowered loop w: attrs and the warning. */
static fl_status one_loop(fl_graph *g, fl_node *w, fl_diag *d) {
    const char *cf = str_attr(w, "_lowered_cond"), *bf = str_attr(w, "_lowered_body");
    const char *loop = str_attr(w, "_loop");
    fl_tfl_subgraph cond = {0}, body = {0};
    bool oom = false;
    if (!inlined_call(g, w, loop, "cond", &cond, d, &oom) ||
        !inlined_call(g, w, loop, "body", &body, d, &oom)) {
        return oom ? d->status : FL_OK; /* not inlined: the inliner's warning says so */
    }
    int64_t t = 0;
    char why[160];
    fl_loop_form form;
    bool known = fl__loop_trips(w, &cond, &body, &t, why, sizeof why, &form);
    if (!known && form.limit_input >= 0) {
        /* Counted once the limit's value is inferred (src/cost/cost.c,
         * which warns with the count). */
        int64_t f[4] = {form.cmp, form.start, form.step, form.limit_input};
        fl_attr a = fl__attr_make_ints(g, "_trip_form", 4, f);
        return a.name ? fl__node_set_attr(g, w, &a) : fl__diag_oom(d);
    }
    if (!known || t > INT64_MAX / 8) {
        fl__node_warn(d, w,
                      "While '%s': trip count unknown (%s): its body '%s' and cond '%s' are "
                      "counted once, so the loop is incomplete, the answer partial and the "
                      "totals a lower bound",
                      loop, t > INT64_MAX / 8 ? "too large" : why, bf, cf);
        fl_attr u = fl__attr_make_int(g, "_trip_unknown", 1);
        return u.name ? fl__node_set_attr(g, w, &u) : fl__diag_oom(d);
    }
    fl__node_warn(d, w,
                  "While '%s': trip count %lld, derived from its cond '%s': body '%s' counted "
                  "%lld times, cond %lld times",
                  loop, (long long)t, cf, bf, (long long)t, (long long)t + 1);
    fl_attr bt = fl__attr_make_int(g, "_body_trips", t);
    fl_attr ct = fl__attr_make_int(g, "_cond_trips", t + 1);
    if (!bt.name || !ct.name) {
        return fl__diag_oom(d);
    }
    fl_status st = fl__node_set_attr(g, w, &bt);
    return st == FL_OK ? fl__node_set_attr(g, w, &ct) : st;
}

fl_status fl__tf_loops(fl_graph *g, fl_diag *d) {
    fl_status st = FL_OK;
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        fl_node *n = g->nodes[i];
        if ((n->kind == FL_OP_WHILE || n->kind == FL_OP_STATELESS_WHILE) &&
            str_attr(n, "_lowered_body") && str_attr(n, "_lowered_cond") && str_attr(n, "_loop")) {
            st = one_loop(g, n, d);
        }
    }
    return st;
}
