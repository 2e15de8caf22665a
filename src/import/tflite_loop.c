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
 * s. Anything else (a step that never reaches the limit, a value the file
 * does not hold) is an unknown trip count.
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

static int op_of(const fl_node *n) {
    switch (n ? n->kind : FL_OP_UNKNOWN) {
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

/* Adds `times` to subgraph s's count (saturating at INT64_MAX / 4). */
static void add_count(int64_t *count, bool *reached, int s, int64_t times) {
    int64_t cap = INT64_MAX / 4;
    count[s] = count[s] > cap - times ? cap : count[s] + times;
    reached[s] = true;
}

static int64_t mul_cap(int64_t a, int64_t b) {
    int64_t cap = INT64_MAX / 4;
    return a && b > cap / a ? cap : a * b;
}

static bool valid_sg(int idx, int n_sg) {
    return idx > 0 && idx < n_sg;
}

/* Passes subgraph s's count to the subgraphs its WHILE/IF/CALL nodes run. */
static void visit(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *sg, int n_sg, int s,
                  int64_t *count, bool *reached) {
    for (size_t i = sg[s].first; i < sg[s].end; i++) {
        const fl_node *n = g->nodes[i];
        int64_t m = count[s];
        if (n->kind == FL_OP_TFL_WHILE) {
            int ci = (int)int_attr(n, "cond_subgraph_index", -1);
            int bi = (int)int_attr(n, "body_subgraph_index", -1);
            if (!valid_sg(ci, n_sg) || !valid_sg(bi, n_sg)) {
                continue;
            }
            char why[160];
            int64_t t = 0;
            bool known = fl__loop_trips(n, &sg[ci], &sg[bi], &t, why, sizeof why, NULL);
            if (known) {
                fl__node_warn(d, n,
                              "WHILE '%s': trip count %lld, derived from its cond subgraph "
                              "'%s': body subgraph '%s' counted %lld times, cond %lld times",
                              n->name, (long long)t, sg[ci].name, sg[bi].name, (long long)t,
                              (long long)t + 1);
            } else {
                fl__node_warn(d, n,
                              "WHILE '%s': trip count unknown (%s): its body subgraph '%s' and "
                              "cond subgraph '%s' are counted once",
                              n->name, why, sg[bi].name, sg[ci].name);
            }
            add_count(count, reached, bi, mul_cap(m, known ? t : 1));
            add_count(count, reached, ci, mul_cap(m, known ? t + 1 : 1));
        } else if (n->kind == FL_OP_TFL_IF) {
            int a = (int)int_attr(n, "then_subgraph_index", -1);
            int b = (int)int_attr(n, "else_subgraph_index", -1);
            if (valid_sg(a, n_sg)) {
                add_count(count, reached, a, m);
            }
            if (valid_sg(b, n_sg)) {
                add_count(count, reached, b, m);
            }
        } else if (n->kind == FL_OP_TFL_CALL) {
            int a = (int)int_attr(n, "subgraph", -1);
            if (valid_sg(a, n_sg)) {
                add_count(count, reached, a, m);
            }
        }
    }
}

/* Marks the nodes of subgraph s to run `times` times. */
static fl_status mark(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *s, int64_t times) {
    for (size_t i = s->first; i < s->end; i++) {
        fl_node *n = g->nodes[i];
        fl_attr *attrs = fl__arena_calloc(g->arena, (size_t)n->n_attrs + 1, sizeof(fl_attr));
        if (!attrs) {
            return fl__diag_oom(d);
        }
        if (n->n_attrs) {
            memcpy(attrs, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        }
        attrs[n->n_attrs] = fl__attr_make_int(g, "_repeat", times);
        n->attrs = attrs;
        n->n_attrs++;
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
            st = mark(g, d, &sg[bi], 0);
        }
    }
    return st;
}

fl_status fl__tfl_loops(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *sg, int n_sg) {
    if (n_sg < 2) {
        return FL_OK;
    }
    fl_arena *a = g->arena; /* scratch: counted against the memory limit */
    int64_t *count = fl__arena_scratch(a, (size_t)n_sg, sizeof(int64_t));
    bool *reached = fl__arena_scratch(a, (size_t)n_sg, sizeof(bool));
    int *queue = fl__arena_scratch(a, (size_t)n_sg, sizeof(int));
    bool *queued = fl__arena_scratch(a, (size_t)n_sg, sizeof(bool));
    fl_status st = count && reached && queue && queued ? FL_OK : fl__diag_oom(d);
    int head = 0, tail = 0;
    if (st == FL_OK) {
        count[0] = 1;
        reached[0] = queued[0] = true;
        queue[tail++] = 0;
    }
    /* Breadth first from subgraph 0, each subgraph visited once: a
     * subgraph reached again after its visit keeps its new count but does
     * not pass the difference on (a recursive or shared body). */
    while (st == FL_OK && head < tail) {
        int s = queue[head++];
        visit(g, d, sg, n_sg, s, count, reached);
        for (int k = 0; k < n_sg; k++) {
            if (reached[k] && !queued[k]) {
                queued[k] = true;
                queue[tail++] = k;
            }
        }
    }
    for (int s = 1; s < n_sg && st == FL_OK; s++) {
        if (reached[s] && count[s] != 1) {
            st = mark(g, d, &sg[s], count[s]);
        }
    }
    if (st == FL_OK) {
        st = reduce_bodies(g, d, sg, n_sg, reached, queued);
    }
    fl__arena_scratch_free(a, count);
    fl__arena_scratch_free(a, reached);
    fl__arena_scratch_free(a, queue);
    fl__arena_scratch_free(a, queued);
    return st;
}
