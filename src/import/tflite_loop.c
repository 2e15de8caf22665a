/*
 * tflite_loop.c - see tflite_loop.h. A WHILE's trip count, from what the
 * converter writes for a counted loop (tf.while_loop, a Keras RNN unrolled
 * over time):
 *   cond:  out = CMP(v_k, limit)    CMP in LESS, LESS_EQUAL, GREATER,
 *          (or limit CMP v_k)       GREATER_EQUAL, NOT_EQUAL; limit a
 *                                   constant, or a loop variable the body
 *                                   passes through unchanged
 *          or LOGICAL_AND of two such comparisons (the smaller count)
 *   body:  out_k = ADD(v_k, step) or SUB(v_k, step), step a constant
 *   WHILE: input k (and a variable limit) constant scalars.
 * The loop runs while the comparison holds: for i < L stepping s > 0,
 * ceil((L - i0) / s) times (0 when i0 >= L); i <= L: floor((L - i0) / s) +
 * 1; > and >= alike with s < 0; != when L - i0 is a non-negative multiple of
 * s. STABLEHLO_WHILE alike, its cond a STABLEHLO_COMPARE (direction LT, LE,
 * GT, GE, NE) or STABLEHLO_AND of two, its body's step a STABLEHLO_ADD or
 * STABLEHLO_SUBTRACT.
 *
 * A loop of that form whose limit is a loop variable without a constant
 * initial value (a graph input, a size computed from shapes) gets attr
 * _trip_form, and the nodes of its body and cond attrs _trip_loops /
 * _trip_plus naming it: src/cost/cost.c counts them from the limit's
 * inferred value (a formula in the graph's symbols, exact under a binding).
 * Anything else (a step that never reaches the limit, a limit that is not a
 * loop variable) is an unknown trip count: counted once, with a warning
 * that the totals are a lower bound, and attr _trip_unknown (1) on the
 * WHILE, which the cost model marks incomplete (the answer is partial).
 */
#include "import/tflite_loop.h"

#include "graph/mutate.h"
#include "ops/ops.h"
#include "util/reserved.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loop_ctx {
    const fl_node *w;
    const fl_tfl_subgraph *cond, *body;
    fl_loop_form *form; /* NULL: not wanted */
    char why[160];
} loop_ctx;

/* The ops the recognizer reads, TFLite's and TensorFlow's alike. */
enum { OP_OTHER, OP_LT, OP_LE, OP_GT, OP_GE, OP_NE, OP_AND, OP_ADD, OP_SUB, OP_IDENTITY };

static int64_t int_attr(const fl_node *n, const char *name, int64_t dflt);

/* STABLEHLO_COMPARE's comparison_direction (schema enum
 * StablehloComparisonDirection: EQ, NE, GE, GT, LE, LT). */
static int hlo_compare(const fl_node *n) {
    static const int ops[] = {OP_OTHER, OP_NE, OP_GE, OP_GT, OP_LE, OP_LT};
    int64_t dir = int_attr(n, "comparison_direction", 0);
    return dir >= 0 && dir < 6 ? ops[dir] : OP_OTHER;
}

static int op_of(const fl_node *n) {
    switch (n ? n->kind : FL_OP_UNKNOWN) {
    case FL_OP_TFL_STABLEHLO_COMPARE:
        return hlo_compare(n);
    case FL_OP_TFL_STABLEHLO_AND:
        return OP_AND;
    case FL_OP_TFL_STABLEHLO_ADD:
        return OP_ADD;
    case FL_OP_TFL_STABLEHLO_SUBTRACT:
        return OP_SUB;
    case FL_OP_TFL_LESS:
    case FL_OP_LESS:
        return OP_LT;
    case FL_OP_TFL_LESS_EQUAL:
    case FL_OP_LESS_EQUAL:
        return OP_LE;
    case FL_OP_TFL_GREATER:
    case FL_OP_GREATER:
        return OP_GT;
    case FL_OP_TFL_GREATER_EQUAL:
    case FL_OP_GREATER_EQUAL:
        return OP_GE;
    case FL_OP_TFL_NOT_EQUAL:
    case FL_OP_NOT_EQUAL:
        return OP_NE;
    case FL_OP_TFL_LOGICAL_AND:
    case FL_OP_LOGICAL_AND:
        return OP_AND;
    case FL_OP_TFL_ADD:
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
        return OP_ADD;
    case FL_OP_TFL_SUB:
    case FL_OP_SUB:
        return OP_SUB;
    case FL_OP_IDENTITY:
        return OP_IDENTITY;
    default:
        return OP_OTHER;
    }
}

/* Index of n among the subgraph's inputs, -1 if none. */
static int input_index(const fl_tfl_subgraph *s, const fl_node *n);

/* n past the Identity nodes a TensorFlow function puts between values (not
 * past one of subgraph s's inputs: those are the loop variables). */
static const fl_node *skip_identity(const fl_tfl_subgraph *s, const fl_node *n) {
    for (int i = 0;
         i < 64 && n && op_of(n) == OP_IDENTITY && n->n_inputs == 1 && input_index(s, n) < 0; i++) {
        n = n->inputs[0].node;
    }
    return n;
}

static int64_t int_attr(const fl_node *n, const char *name, int64_t dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_I ? a->v.i : dflt;
}

/* The known integer scalar (or one-element tensor) a Const holds. */
static bool const_int(const fl_node *n, int64_t *v) {
    if (!n || n->kind != FL_OP_CONST) {
        return false;
    }
    const fl_attr *a = fl__node_attr(n, "value");
    const fl_value *val = a && a->kind == FL_ATTR_TENSOR && a->v.tensor ? a->v.tensor->value : NULL;
    if (!val || val->n != 1 || !val->ints || !fl_sym_is_known(val->ints[0])) {
        return false;
    }
    *v = val->ints[0].k;
    return true;
}

/* Index of n among the subgraph's inputs, -1 if none. */
static int input_index(const fl_tfl_subgraph *s, const fl_node *n) {
    for (int i = 0; i < s->n_in; i++) {
        if (s->in[i] && s->in[i] == n) {
            return i;
        }
    }
    return -1;
}

/* The WHILE's initial value of loop variable k. */
static bool initial(const loop_ctx *l, int k, int64_t *v) {
    return k < l->w->n_inputs && l->w->inputs[k].port == 0 && const_int(l->w->inputs[k].node, v);
}

/* The loop variable a cond operand is when the body passes it on
 * unchanged; -1 otherwise. */
static int invariant_var(const loop_ctx *l, const fl_node *n) {
    int j = input_index(l->cond, skip_identity(l->cond, n));
    if (j < 0 || j >= l->body->n_out || j >= l->body->n_in || !l->body->in[j] ||
        skip_identity(l->body, l->body->out[j].node) != l->body->in[j]) {
        return -1;
    }
    return j;
}

/* A cond operand: a constant, or a loop variable the body does not change
 * with a constant initial value. */
static bool limit_value(const loop_ctx *l, const fl_node *n, int64_t *v) {
    if (const_int(skip_identity(l->cond, n), v)) {
        return true;
    }
    int j = invariant_var(l, n);
    return j >= 0 && initial(l, j, v);
}

static int trip_cmp(int op) {
    switch (op) {
    case OP_LT:
        return FL_TRIP_LT;
    case OP_LE:
        return FL_TRIP_LE;
    case OP_GT:
        return FL_TRIP_GT;
    case OP_GE:
        return FL_TRIP_GE;
    default:
        return FL_TRIP_NE;
    }
}

/* The body's step of loop variable k: out_k = ADD(v_k, c) or SUB(v_k, c). */
static bool step_of(const loop_ctx *l, int k, int64_t *step) {
    const fl_node *b = k < l->body->n_out ? skip_identity(l->body, l->body->out[k].node) : NULL;
    const fl_node *v = k < l->body->n_in ? l->body->in[k] : NULL;
    int op = op_of(b);
    if (!b || !v || b->n_inputs != 2 || (op != OP_ADD && op != OP_SUB)) {
        return false;
    }
    const fl_node *x = skip_identity(l->body, b->inputs[0].node);
    const fl_node *y = skip_identity(l->body, b->inputs[1].node);
    int64_t c;
    if (x == v && const_int(y, &c)) {
        *step = op == OP_SUB ? -c : c;
        return c != INT64_MIN;
    }
    if (op == OP_ADD && y == v && const_int(x, &c)) {
        *step = c;
        return true;
    }
    return false;
}

/* Trips of `i OP limit` from i0 by s; false when it never ends or the
 * numbers are out of range. */
static bool trips(int op, int64_t i0, int64_t lim, int64_t s, int64_t *out) {
    if (i0 < -(INT64_C(1) << 52) || i0 > (INT64_C(1) << 52) || lim < -(INT64_C(1) << 52) ||
        lim > (INT64_C(1) << 52) || s == 0) {
        return false;
    }
    int64_t d = lim - i0;
    switch (op) {
    case OP_LT:
    case OP_LE: {
        bool runs = op == OP_LT ? d > 0 : d >= 0;
        if (!runs) {
            *out = 0;
            return true;
        }
        if (s < 0) {
            return false;
        }
        *out = op == OP_LT ? (d + s - 1) / s : d / s + 1;
        return true;
    }
    case OP_GT:
    case OP_GE:
        return trips(op == OP_GT ? OP_LT : OP_LE, -i0, -lim, -s, out);
    case OP_NE:
        if (d % s != 0 || d / s < 0) {
            return false;
        }
        *out = d / s;
        return true;
    default:
        return false;
    }
}

/* The operator with its operands swapped (limit OP i as i OP' limit). */
static int swapped(int op) {
    switch (op) {
    case OP_LT:
        return OP_GT;
    case OP_GT:
        return OP_LT;
    case OP_LE:
        return OP_GE;
    case OP_GE:
        return OP_LE;
    default:
        return op;
    }
}

/* Trip count of the loop the comparison cmp controls. */
static bool cmp_trips(loop_ctx *l, const fl_node *cmp, int64_t *out) {
    if (cmp->n_inputs != 2) {
        return false;
    }
    for (int side = 0; side < 2; side++) {
        const fl_node *var = skip_identity(l->cond, cmp->inputs[side].node);
        const fl_node *other = cmp->inputs[1 - side].node;
        int k = input_index(l->cond, var);
        int64_t i0, lim, step;
        if (k < 0 || !step_of(l, k, &step)) {
            continue;
        }
        int op = side == 0 ? op_of(cmp) : swapped(op_of(cmp));
        if (!initial(l, k, &i0) || !limit_value(l, other, &lim)) {
            int j = invariant_var(l, other);
            if (l->form && j >= 0 && j < l->w->n_inputs && initial(l, k, &i0)) {
                fl_loop_form f = {trip_cmp(op), i0, step, j};
                *l->form = f;
            }
            snprintf(l->why, sizeof l->why,
                     "loop variable %d or its limit does not start from a constant", k);
            return false;
        }
        if (!trips(op, i0, lim, step, out)) {
            snprintf(l->why, sizeof l->why,
                     "loop variable %d from %lld by %lld never meets its limit %lld", k,
                     (long long)i0, (long long)step, (long long)lim);
            return false;
        }
        return true;
    }
    snprintf(l->why, sizeof l->why,
             "the cond's comparison '%s' reads no loop variable the body steps by a constant",
             cmp->name);
    return false;
}

static bool node_trips(loop_ctx *l, const fl_node *n, int depth, int64_t *out) {
    n = skip_identity(l->cond, n);
    switch (op_of(n)) {
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_NE:
        return cmp_trips(l, n, out);
    case OP_AND: {
        int64_t a, b;
        fl_loop_form *form = l->form;
        l->form = NULL; /* the smaller of two counts: no single form */
        bool ok = depth <= 8 && n->n_inputs == 2 &&
                  node_trips(l, n->inputs[0].node, depth + 1, &a) &&
                  node_trips(l, n->inputs[1].node, depth + 1, &b);
        l->form = form;
        if (!ok) {
            return false;
        }
        *out = a < b ? a : b;
        return true;
    }
    default:
        snprintf(l->why, sizeof l->why, "the cond's result is not a comparison of a counter");
        return false;
    }
}

bool fl__loop_trips(const fl_node *w, const fl_tfl_subgraph *cond, const fl_tfl_subgraph *body,
                    int64_t *trips, char *why, size_t why_size, fl_loop_form *form) {
    loop_ctx l = {w, cond, body, form, "the cond has no output"};
    if (form) {
        form->limit_input = -1;
    }
    bool known = cond->n_out > 0 && node_trips(&l, cond->out[0].node, 0, trips);
    if (!known && why_size) {
        snprintf(why, why_size, "%s", l.why);
    }
    return known;
}

/* The loops with a symbolic trip count a subgraph runs inside (outermost
 * first): WHILE w[i]'s body (plus[i] 0) or cond (plus[i] 1: its trips + 1).
 * mixed: reached by more than one op while one of them has such loops. */
enum { MAX_SYM_LOOPS = 8 };
typedef struct sym_path {
    int n;
    bool mixed;
    const fl_node *w[MAX_SYM_LOOPS];
    int64_t plus[MAX_SYM_LOOPS];
} sym_path;

typedef struct walk {
    fl_graph *g;
    fl_diag *d;
    const fl_tfl_subgraph *sg;
    int n_sg;
    int64_t *count;
    bool *reached;
    sym_path *path;
} walk;

/* Adds `times` runs of subgraph t, inside the symbolic loops of `from` and
 * (w not NULL) WHILE w's body or cond, to t's count (saturating at
 * INT64_MAX / 4). */
static void add_count(walk *k, int t, int64_t times, const sym_path *from, const fl_node *w,
                      int64_t plus) {
    int64_t cap = INT64_MAX / 4;
    sym_path p = *from;
    p.mixed = false;
    if (w && p.n < MAX_SYM_LOOPS) {
        p.w[p.n] = w;
        p.plus[p.n++] = plus;
    } else if (w) {
        p.mixed = true; /* nested deeper than the path holds */
    }
    if (k->reached[t] && (k->path[t].n || p.n || from->mixed)) {
        k->path[t].mixed = true;
    } else if (!k->reached[t]) {
        k->path[t] = p;
        k->path[t].mixed = p.mixed || from->mixed;
    }
    k->count[t] = k->count[t] > cap - times ? cap : k->count[t] + times;
    k->reached[t] = true;
}

static int64_t mul_cap(int64_t a, int64_t b) {
    int64_t cap = INT64_MAX / 4;
    return a && b > cap / a ? cap : a * b;
}

static bool valid_sg(int idx, int n_sg) {
    return idx > 0 && idx < n_sg;
}

static bool is_while(int kind) {
    return kind == FL_OP_TFL_WHILE || kind == FL_OP_TFL_STABLEHLO_WHILE;
}

/* Appends attrs to n (arena copies). */
static fl_status add_attrs(fl_graph *g, fl_diag *d, fl_node *n, int cnt, const fl_attr *more) {
    fl_attr *attrs = fl__arena_calloc(g->arena, (size_t)n->n_attrs + (size_t)cnt, sizeof(fl_attr));
    if (!attrs) {
        return fl__diag_oom(d);
    }
    if (n->n_attrs) {
        memcpy(attrs, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
    }
    for (int i = 0; i < cnt; i++) {
        if (!more[i].name) {
            return fl__diag_oom(d);
        }
        attrs[n->n_attrs + i] = more[i];
    }
    n->attrs = attrs;
    n->n_attrs += cnt;
    return FL_OK;
}

/* WHILE n counted from its limit's inferred value (src/cost/cost.c): attr
 * _trip_form {cmp, start, step, input}, and its subgraphs' names as
 * _lowered_body / _lowered_cond for the cost model's warning. */
static fl_status mark_form(walk *k, fl_node *n, const fl_loop_form *f, int ci, int bi) {
    int64_t v[4] = {f->cmp, f->start, f->step, f->limit_input};
    fl_attr a[3] = {fl__attr_make_ints(k->g, "_trip_form", 4, v),
                    fl__attr_make_str(k->g, "_lowered_body", k->sg[bi].name),
                    fl__attr_make_str(k->g, "_lowered_cond", k->sg[ci].name)};
    return add_attrs(k->g, k->d, n, 3, a);
}

/* A WHILE (or STABLEHLO_WHILE) n run count[s] times: its body and cond
 * subgraphs' counts. */
static fl_status visit_while(walk *k, int s, fl_node *n) {
    int ci = (int)int_attr(n, "cond_subgraph_index", -1);
    int bi = (int)int_attr(n, "body_subgraph_index", -1);
    if (!valid_sg(ci, k->n_sg) || !valid_sg(bi, k->n_sg)) {
        return FL_OK;
    }
    const fl_tfl_subgraph *sg = k->sg;
    const char *op = n->kind == FL_OP_TFL_WHILE ? "WHILE" : "STABLEHLO_WHILE";
    char why[160];
    int64_t t = 0, m = k->count[s];
    fl_loop_form form;
    bool known = fl__loop_trips(n, &sg[ci], &sg[bi], &t, why, sizeof why, &form);
    if (known) {
        fl__node_warn(k->d, n,
                      "%s '%s': trip count %lld, derived from its cond subgraph '%s': body "
                      "subgraph '%s' counted %lld times, cond %lld times",
                      op, n->name, (long long)t, sg[ci].name, sg[bi].name, (long long)t,
                      (long long)t + 1);
    } else if (form.limit_input >= 0) {
        /* counted when costed, from the limit's value: fl__cost_loop_warnings
         * says how often */
        fl_status st = mark_form(k, n, &form, ci, bi);
        if (st != FL_OK) {
            return st;
        }
        add_count(k, bi, m, &k->path[s], n, 0);
        add_count(k, ci, m, &k->path[s], n, 1);
        return FL_OK;
    } else {
        fl__node_warn(k->d, n,
                      "%s '%s': trip count unknown (%s): its body subgraph '%s' and cond "
                      "subgraph '%s' are counted once, so the loop is incomplete, the answer "
                      "partial and the totals a lower bound",
                      op, n->name, why, sg[bi].name, sg[ci].name);
        fl_attr u = fl__attr_make_int(k->g, "_trip_unknown", 1);
        fl_status st = u.name ? fl__node_set_attr(k->g, n, &u) : fl__diag_oom(k->d);
        if (st != FL_OK) {
            return st;
        }
    }
    add_count(k, bi, mul_cap(m, known ? t : 1), &k->path[s], NULL, 0);
    add_count(k, ci, mul_cap(m, known ? t + 1 : 1), &k->path[s], NULL, 0);
    return FL_OK;
}

/* Passes subgraph s's count to the subgraphs its WHILE/IF/CALL/COMPOSITE
 * nodes run. */
static fl_status visit(walk *k, int s) {
    fl_status st = FL_OK;
    for (size_t i = k->sg[s].first; i < k->sg[s].end && st == FL_OK; i++) {
        fl_node *n = k->g->nodes[i];
        int64_t m = k->count[s];
        if (is_while(n->kind)) {
            st = visit_while(k, s, n);
        } else if (n->kind == FL_OP_TFL_IF) {
            int a = (int)int_attr(n, "then_subgraph_index", -1);
            int b = (int)int_attr(n, "else_subgraph_index", -1);
            if (valid_sg(a, k->n_sg)) {
                add_count(k, a, m, &k->path[s], NULL, 0);
            }
            if (valid_sg(b, k->n_sg)) {
                add_count(k, b, m, &k->path[s], NULL, 0);
            }
        } else if (n->kind == FL_OP_TFL_CALL || n->kind == FL_OP_TFL_STABLEHLO_COMPOSITE) {
            /* a COMPOSITE runs its decomposition as a CALL runs its subgraph */
            int a = (int)int_attr(
                n, n->kind == FL_OP_TFL_CALL ? "subgraph" : "decomposition_subgraph_index", -1);
            if (valid_sg(a, k->n_sg)) {
                add_count(k, a, m, &k->path[s], NULL, 0);
            }
        }
    }
    return st;
}

/* Marks the nodes of subgraph s to run `times` times (attr _repeat), and
 * inside the symbolic loops of p (attrs _trip_loops: the WHILE nodes'
 * names, _trip_plus: 1 for a cond, which runs once more); when p is mixed,
 * attr _trip_unknown (1): their counts are a lower bound, and the cost
 * model makes them incomplete (the answer partial). */
static fl_status mark(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *s, int64_t times,
                      const sym_path *p) {
    const char *names[MAX_SYM_LOOPS];
    int np = p && !p->mixed ? p->n : 0;
    for (int i = 0; i < np; i++) {
        names[i] = p->w[i]->name;
    }
    for (size_t i = s->first; i < s->end; i++) {
        fl_node *n = g->nodes[i];
        fl_attr a[4] = {fl__attr_make_int(g, "_repeat", times)};
        int na = 1;
        if (np) {
            a[na++] = fl__attr_make_strs(g, "_trip_loops", (size_t)np, names);
            a[na++] = fl__attr_make_ints(g, "_trip_plus", (size_t)np, p->plus);
        }
        if (p && p->mixed) { /* counted without symbolic trips: a lower bound */
            a[na++] = fl__attr_make_int(g, "_trip_unknown", 1);
        }
        fl_status st = add_attrs(g, d, n, na, a);
        if (st != FL_OK) {
            return st;
        }
        n->flags |= FL_NODE_REPEATED;
    }
    return FL_OK;
}

/* The option naming the subgraph a StableHLO op applies per element:
 * REDUCE / REDUCE_WINDOW's body, SCATTER's update computation, SORT's
 * comparator; NULL for other ops. */
static const char *body_field(int kind) {
    switch (kind) {
    case FL_OP_TFL_STABLEHLO_REDUCE:
    case FL_OP_TFL_STABLEHLO_REDUCE_WINDOW:
        return "body_subgraph_index";
    case FL_OP_TFL_STABLEHLO_SCATTER:
        return "update_computation_subgraph_index";
    case FL_OP_TFL_STABLEHLO_SORT:
        return "comparator_subgraph_index";
    default:
        return NULL;
    }
}

/* The bodies of STABLEHLO_REDUCE / REDUCE_WINDOW / SCATTER / SORT (body_field):
 * each such node gets attr
 * _body_nodes (the names of its body subgraph's nodes; the op's cost hook
 * counts the body once per application, src/ops/tflite/stablehlo*.c), and
 * the body's nodes _repeat 0 (not counted again on their own). A body that
 * control flow also runs (reached) is left as it is. `done` (n_sg entries,
 * reused scratch) marks the bodies zeroed. */
static fl_status reduce_bodies(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *sg, int n_sg,
                               const bool *reached, bool *done) {
    memset(done, 0, (size_t)n_sg * sizeof *done);
    fl_status st = FL_OK;
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        fl_node *n = g->nodes[i];
        const char *field = body_field(n->kind);
        if (!field) {
            continue;
        }
        int bi = (int)int_attr(n, field, -1);
        if (!valid_sg(bi, n_sg) || reached[bi] || sg[bi].end <= sg[bi].first) {
            continue;
        }
        size_t cnt = sg[bi].end - sg[bi].first;
        const char **names = fl__arena_calloc(g->arena, cnt, sizeof(char *));
        fl_attr *attrs = fl__arena_calloc(g->arena, (size_t)n->n_attrs + 1, sizeof(fl_attr));
        if (!names || !attrs) {
            return fl__diag_oom(d);
        }
        for (size_t j = 0; j < cnt; j++) {
            names[j] = g->nodes[sg[bi].first + j]->name;
        }
        if (n->n_attrs) {
            memcpy(attrs, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        }
        attrs[n->n_attrs] = fl__attr_make_strs(g, "_body_nodes", cnt, names);
        if (!attrs[n->n_attrs].name) {
            return fl__diag_oom(d);
        }
        n->attrs = attrs;
        n->n_attrs++;
        if (!done[bi]) {
            done[bi] = true;
            st = mark(g, d, &sg[bi], 0, NULL);
        }
    }
    return st;
}

fl_status fl__tfl_loops(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *sg, int n_sg) {
    if (n_sg < 2) {
        return FL_OK;
    }
    fl_arena *a = g->arena; /* scratch: counted against the memory limit */
    walk k = {g, d, sg, n_sg, NULL, NULL, NULL};
    k.count = fl__arena_scratch(a, (size_t)n_sg, sizeof(int64_t));
    k.reached = fl__arena_scratch(a, (size_t)n_sg, sizeof(bool));
    k.path = fl__arena_scratch(a, (size_t)n_sg, sizeof(sym_path));
    int *queue = fl__arena_scratch(a, (size_t)n_sg, sizeof(int));
    bool *queued = fl__arena_scratch(a, (size_t)n_sg, sizeof(bool));
    fl_status st = k.count && k.reached && k.path && queue && queued ? FL_OK : fl__diag_oom(d);
    int head = 0, tail = 0;
    if (st == FL_OK) {
        memset(k.path, 0, (size_t)n_sg * sizeof(sym_path));
        k.count[0] = 1;
        k.reached[0] = queued[0] = true;
        queue[tail++] = 0;
    }
    /* Breadth first from subgraph 0, each subgraph visited once: a
     * subgraph reached again after its visit keeps its new count but does
     * not pass the difference on (a recursive or shared body). */
    while (st == FL_OK && head < tail) {
        int s = queue[head++];
        st = visit(&k, s);
        for (int j = 0; j < n_sg; j++) {
            if (k.reached[j] && !queued[j]) {
                queued[j] = true;
                queue[tail++] = j;
            }
        }
    }
    for (int s = 1; s < n_sg && st == FL_OK; s++) {
        if (k.reached[s] && k.path[s].mixed) {
            fl__diag_warn(d,
                          "subgraph '%s' runs from more than one op, one of them inside a WHILE "
                          "whose trip count is counted from its limit's value: its nodes are "
                          "counted without those trip counts, so they are incomplete, the "
                          "answer partial and the totals a lower bound",
                          sg[s].name);
        }
        if (k.reached[s] &&
            (k.count[s] != 1 || k.path[s].mixed || (k.path[s].n && !k.path[s].mixed))) {
            st = mark(g, d, &sg[s], k.count[s], &k.path[s]);
        }
    }
    if (st == FL_OK) {
        st = reduce_bodies(g, d, sg, n_sg, k.reached, queued);
    }
    fl__arena_scratch_free(a, k.count);
    fl__arena_scratch_free(a, k.reached);
    fl__arena_scratch_free(a, k.path);
    fl__arena_scratch_free(a, queue);
    fl__arena_scratch_free(a, queued);
    return st;
}
