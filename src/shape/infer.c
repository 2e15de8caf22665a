/*
 * infer.c - shape inference driver; see infer.h.
 */
#include "shape/infer.h"

#include "ops/common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOOP_ROUNDS 4
/* How often inference is redone because it found symbols to be one size:
 * each round can only merge symbols, so a handful suffices. */
#define MAX_ALIAS_ROUNDS 8

char *fl__infer_symbol_name(fl_arena *a, const char *name, int axis) {
    return fl__arena_printf(a, "%s.%d", name, axis);
}

static bool is_placeholder(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT;
}

/* Nodes that make symbols: the inputs (INPUT.AXIS) and the Merge of a cond,
 * whose dims that differ between branches are NODE.AXIS (control_flow.c). */
static bool makes_symbols(const fl_node *n) {
    return is_placeholder(n) || ((n->kind == FL_OP_MERGE || n->kind == FL_OP_REF_MERGE) &&
                                 !(n->flags & FL_NODE_BACK_EDGE));
}

bool fl__infer_makes_symbols(const fl_node *n) {
    return makes_symbols(n);
}

static fl_status unknown_input(fl_ctx *c, const char *name, const char *what);

/* Finds the placeholder a binding names and reads its dtype and declared
 * shape. `what` is "input" or "value" for messages. */
static fl_status binding_target(fl_ctx *c, const char *name, const char *what, fl_node **out,
                                int *dtype, fl_shape_lit *decl) {
    fl_node *n = fl__graph_find(c->g, name);
    if (!n) {
        return unknown_input(c, name, what);
    }
    if (!is_placeholder(n)) {
        return fl__node_fail(c->d, FL_EUSAGE, n,
                             "%s binding names a %s node; only Placeholder inputs can be bound",
                             what, n->op);
    }
    fl_status st = fl__attr_need_type(n, "dtype", dtype, c->d);
    if (st != FL_OK) {
        return st;
    }
    decl->rank = -1;
    decl->dims = NULL;
    st = fl__attr_get_shape(n, "shape", decl, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    *out = n;
    return FL_OK;
}

/* The shape a tensor value binding takes: the input's bound shape, else its
 * declared one; a rank-1 (or unknown-rank) input of unstated length takes
 * the value's length. */
static fl_status value_shape(fl_ctx *c, fl_node *n, const fl_tensor_value_binding *b, bool bound,
                             const fl_shape_lit *decl, int *rank, int64_t *dims) {
    if (bound) {
        const fl_shape *s = &n->outputs[0].shape;
        if (!fl__shape_is_concrete(s)) {
            return fl__node_fail(c->d, FL_EUSAGE, n, "value binding needs a known input shape");
        }
        *rank = s->rank;
        for (int k = 0; k < s->rank; k++) {
            dims[k] = s->dims[k].k;
        }
    } else if (decl->rank < 0 || (decl->rank == 1 && decl->dims[0] < 0)) {
        *rank = 1;
        dims[0] = (int64_t)b->n_values;
    } else {
        *rank = decl->rank;
        for (int k = 0; k < decl->rank; k++) {
            if (decl->dims[k] < 0) {
                return fl__node_fail(c->d, FL_EUSAGE, n,
                                     "value binding: dim %d of the input is not known; give the "
                                     "shape with an input binding",
                                     k);
            }
            dims[k] = decl->dims[k];
        }
    }
    int64_t total = 1;
    for (int k = 0; k < *rank; k++) {
        total = dims[k] && total > INT64_MAX / dims[k] ? INT64_MAX : total * dims[k];
    }
    if (total != (int64_t)b->n_values) {
        return fl__node_fail(c->d, FL_EUSAGE, n,
                             "value binding gives %zu values but the input's shape holds %lld",
                             b->n_values, (long long)total);
    }
    return FL_OK;
}

/* Binds one --value: a scalar (sb), or a small tensor (tb). */
static fl_status bind_value(fl_ctx *c, const fl_value_binding *sb,
                            const fl_tensor_value_binding *tb, bool *bound) {
    const char *name = sb ? sb->name : tb->name;
    fl_node *n;
    int dtype = FL_DT_INVALID;
    fl_shape_lit decl;
    fl_status st = binding_target(c, name, "value", &n, &dtype, &decl);
    if (st != FL_OK) {
        return st;
    }
    int rank = 0;
    int64_t dims[256];
    const double *xs = sb ? &sb->value : tb->values;
    int64_t count = 1;
    if (tb) {
        if ((int64_t)tb->n_values > c->max_value_elems) {
            return fl__node_fail(c->d, FL_ELIMIT, n,
                                 "value binding has %zu values, above the limit of %lld "
                                 "(max_value_elements)",
                                 tb->n_values, (long long)c->max_value_elems);
        }
        if (!tb->values && tb->n_values) {
            return fl__node_fail(c->d, FL_EUSAGE, n, "value binding has no values");
        }
        if (decl.rank > 254) {
            return fl__node_fail(c->d, FL_EUSAGE, n, "value binding: input rank %d", decl.rank);
        }
        st = value_shape(c, n, tb, bound[n->id], &decl, &rank, dims);
        if (st != FL_OK) {
            return st;
        }
        count = (int64_t)tb->n_values;
    } else if (decl.rank > 0) {
        return fl__node_fail(c->d, FL_EUSAGE, n,
                             "value binding needs a scalar input; this one has rank %d", decl.rank);
    } else if (bound[n->id] && n->outputs[0].shape.rank != 0) {
        return fl__node_fail(c->d, FL_EUSAGE, n, "value binding needs a scalar input");
    }
    fl_value *v = fl__value_new(c->a, (fl_dtype)dtype, rank, dims);
    if (!v) {
        return fl__node_fail(c->d, FL_EUSAGE, n, "value binding: dtype %s cannot hold a number",
                             fl__dtype_name(dtype));
    }
    for (int64_t k = 0; k < count; k++) {
        double x = xs[k];
        if (!v->ints) {
            fl__value_set_f64(v, k, x);
        } else if (x != x || x < -9007199254740992.0 || x > 9007199254740992.0 ||
                   x != (double)(int64_t)x) {
            return fl__node_fail(c->d, FL_EUSAGE, n,
                                 "value binding %g is not an integer but the input is %s", x,
                                 fl__dtype_name(dtype));
        } else {
            ((fl_sym *)v->ints)[k] = fl_sym_const((int64_t)x);
        }
    }
    fl_sym sd[256];
    for (int k = 0; k < rank; k++) {
        sd[k] = fl_sym_const(dims[k]);
    }
    st = fl__op_set_output(c, n, 0, dtype, rank, sd);
    if (st != FL_OK) {
        return st;
    }
    fl__op_set_value(n, 0, v);
    bound[n->id] = true;
    return FL_OK;
}

/* Binds --input shapes and --value scalars to placeholders. Bound nodes get
 * their outputs set here and are skipped by the walk (marked in `bound`). */
static fl_status bind_inputs(fl_ctx *c, const fl_options *opt, bool *bound) {
    for (size_t i = 0; i < opt->n_inputs; i++) {
        const fl_input_binding *b = &opt->inputs[i];
        fl_node *n;
        int dtype = FL_DT_INVALID;
        fl_shape_lit decl;
        fl_status st = binding_target(c, b->name, "input", &n, &dtype, &decl);
        if (st != FL_OK) {
            return st;
        }
        if (b->rank < 0 || b->rank > 254) {
            return fl__node_fail(c->d, FL_EUSAGE, n, "input binding has invalid rank %d", b->rank);
        }
        if (decl.rank >= 0 && decl.rank != b->rank) {
            return fl__node_fail(c->d, FL_EUSAGE, n,
                                 "input binding gives rank %d but the placeholder's shape has "
                                 "rank %d",
                                 b->rank, decl.rank);
        }
        fl_sym dims[256];
        for (int k = 0; k < b->rank; k++) {
            if (b->dims[k] < 0) {
                return fl__node_fail(c->d, FL_EUSAGE, n, "input binding dim %d is negative", k);
            }
            if (decl.rank >= 0 && decl.dims[k] >= 0 && decl.dims[k] != b->dims[k]) {
                return fl__node_fail(c->d, FL_EUSAGE, n,
                                     "input binding gives dim %d = %lld but the placeholder "
                                     "declares %lld",
                                     k, (long long)b->dims[k], (long long)decl.dims[k]);
            }
            dims[k] = fl_sym_const(b->dims[k]);
        }
        st = fl__op_set_output(c, n, 0, dtype, b->rank, dims);
        if (st != FL_OK) {
            return st;
        }
        bound[n->id] = true;
    }
    for (size_t i = 0; i < opt->n_values; i++) {
        fl_status st = bind_value(c, &opt->values[i], NULL, bound);
        if (st != FL_OK) {
            return st;
        }
    }
    for (size_t i = 0; i < opt->n_tensor_values; i++) {
        fl_status st = bind_value(c, NULL, &opt->tensor_values[i], bound);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* The user's symbol bindings (--bind), extended with what the equations
 * found so far imply (sym.h): a binding of an aliased symbol also binds the
 * symbol it is an alias of. */
typedef struct symbinds {
    const char **names;
    int64_t *vals;
    size_t *origin; /* per entry: the user binding it comes from */
    size_t n;       /* entries: the user's first, then the implied ones */
    size_t n_user;
    bool *used; /* per user binding: it named a symbol of the graph */
} symbinds;

typedef struct mention {
    const char *name;
    bool found;
} mention;

static void mention_fn(const char *name, void *ctx) {
    mention *m = ctx;
    m->found = m->found || strcmp(name, m->name) == 0;
}

/* The variable `name` occurs in s (a dim that is an expression of names). */
static bool mentions(fl_sym s, const char *name) {
    mention m = {name, false};
    fl__sym_vars(s, mention_fn, &m);
    return m.found;
}

/* Substitutes the equations and the bindings into a placeholder's (or cond
 * Merge's) output dims: the only places symbols are made, so the rest of the
 * walk sees one symbol per size. */
static fl_status subst_symbols(fl_ctx *c, fl_node *n, const symbinds *sb) {
    if (n->n_outputs < 1) {
        return FL_OK;
    }
    fl_tensor *t = &n->outputs[0];
    bool fresh = false;
    for (int k = 0; k < t->shape.rank; k++) {
        fl_sym s = t->shape.dims[k];
        if (!fl_sym_is_symbolic(s)) {
            continue;
        }
        fl_sym r = fl__sym_resolve(s);
        for (size_t j = 0; j < sb->n; j++) {
            fl_sym v;
            if (fl__sym_var(c->st, sb->names[j], &v) != FL_OK) {
                return fl__diag_oom(c->d);
            }
            if (fl__sym_eq(v, s) || fl__sym_eq(fl__sym_resolve(v), r) ||
                (!fl__sym_var_name(s) && mentions(s, sb->names[j]))) {
                sb->used[sb->origin[j]] = true;
            }
        }
        if (sb->n && fl_sym_is_symbolic(r)) {
            fl_status st = fl__sym_subst(c->st, r, sb->n, sb->names, sb->vals, &r);
            if (st != FL_OK) {
                return fl__node_fail(c->d, st, n, "binding symbols: %s", fl_status_str(st));
            }
        }
        if (fl_sym_is_known(r) && r.k < 0) {
            return fl__node_fail(c->d, FL_EUSAGE, n, "symbol binding makes dim %d negative", k);
        }
        if (r.k == s.k && r.e == s.e) {
            continue;
        }
        if (!fresh) {
            /* The dims array may be one the output kept from an earlier
             * inference (fl__op_set_output), which other tensors or a
             * snapshot may share: write into a copy. */
            fl_sym *d = fl__arena_calloc(c->a, (size_t)t->shape.rank, sizeof(fl_sym));
            if (!d) {
                return fl__diag_oom(c->d);
            }
            memcpy(d, t->shape.dims, (size_t)t->shape.rank * sizeof(fl_sym));
            t->shape.dims = d;
            fresh = true;
        }
        t->shape.dims[k] = r;
    }
    return FL_OK;
}

/* The node that proved symbol `name` equal to something, for messages. */
static const char *alias_why(const fl_symtab *st, const char *name) {
    for (size_t i = 0; i < fl__sym_n_aliases(st); i++) {
        const char *nm, *why;
        fl_sym v;
        fl__sym_alias_at(st, i, &nm, &v, &why);
        if (strcmp(nm, name) == 0) {
            return why;
        }
    }
    return "";
}

/* Rebuilds the implied entries of sb from the user's bindings and the
 * equations known now. Fails when a binding contradicts them. */
static fl_status imply_bindings(fl_ctx *c, symbinds *sb) {
    sb->n = sb->n_user;
    for (size_t j = 0; j < sb->n_user; j++) {
        fl_sym v;
        if (fl__sym_var(c->st, sb->names[j], &v) != FL_OK) {
            return fl__diag_oom(c->d);
        }
        fl_sym r = fl__sym_resolve(v);
        int64_t k;
        if (fl__sym_fixed(v, &k) && k != sb->vals[j]) {
            const char *rn = fl__sym_var_name(r);
            const char *why = alias_why(c->st, rn ? rn : sb->names[j]);
            return fl__diag_fail(c->d, FL_EUSAGE,
                                 "symbol binding %s=%lld contradicts the graph: node '%s' needs "
                                 "%s to be %lld",
                                 sb->names[j], (long long)sb->vals[j], why, sb->names[j],
                                 (long long)k);
        }
        if (fl__sym_eq(r, v)) {
            continue;
        }
        const char *why = alias_why(c->st, sb->names[j]);
        const char *rn = fl__sym_var_name(r);
        for (size_t i = 0; rn && i < sb->n; i++) {
            if (strcmp(sb->names[i], rn) == 0 && sb->vals[i] != sb->vals[j]) {
                return fl__diag_fail(c->d, FL_EUSAGE,
                                     "symbol bindings %s=%lld and %s=%lld disagree: node '%s' "
                                     "needs %s and %s to be equal",
                                     sb->names[i], (long long)sb->vals[i], sb->names[j],
                                     (long long)sb->vals[j], why, rn, sb->names[j]);
            }
        }
        if (rn) {
            sb->names[sb->n] = rn;
            sb->vals[sb->n] = sb->vals[j];
            sb->origin[sb->n++] = j;
        }
    }
    return FL_OK;
}

/* Says what the equations recorded since `from` mean for the user. */
static void note_aliases(fl_ctx *c, size_t from) {
    for (size_t i = from; i < fl__sym_n_aliases(c->st); i++) {
        const char *nm, *why;
        fl_sym v;
        fl__sym_alias_at(c->st, i, &nm, &v, &why);
        if (fl_sym_is_known(v)) {
            fl__diag_warn(c->d, "symbol %s is %lld: node '%s' needs it to be", nm, (long long)v.k,
                          why);
        } else if (fl__sym_var_name(v)) {
            fl__diag_warn(c->d,
                          "symbols %s and %s are one size (node '%s' needs them equal): %s is "
                          "reported as %s, and binding either binds both",
                          fl__sym_var_name(v), nm, why, nm, fl__sym_var_name(v));
        }
    }
}

static bool all_inputs_valued(const fl_node *n) {
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl_node_in(n, i)->value) {
            return false;
        }
    }
    return true;
}

/* Outputs of a node whose op the registry does not know: dtypes from the
 * called function's signature where there is one, shapes unknown. */
static void infer_opaque(fl_node *n) {
    for (int k = 0; k < n->n_outputs; k++) {
        fl_tensor *t = &n->outputs[k];
        t->shape.rank = -1;
        t->shape.dims = NULL;
        t->value = NULL;
        t->dtype = FL_DT_INVALID;
        if (n->func && k < n->func->n_out) {
            int dt = n->func->out_types[k];
            if (fl__dtype_valid(dt)) {
                t->dtype = (fl_dtype)dt;
            }
        }
    }
}

static bool shapes_equal(const fl_shape *a, const fl_shape *b) {
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (fl_sym_is_unknown(a->dims[i]) != fl_sym_is_unknown(b->dims[i])) {
            return false;
        }
        if (!fl_sym_is_unknown(a->dims[i]) && !fl__sym_eq(a->dims[i], b->dims[i])) {
            return false;
        }
    }
    return true;
}

/* n's FL_NODE_DEAD from its inputs (graph.h's rule); the Switch hook adds
 * its dead port. */
static void set_deadness(fl_node *n) {
    n->flags &= ~(uint32_t)FL_NODE_DEADNESS;
    uint32_t any = 0; /* no input marked at all: the usual case, one OR each */
    for (int k = 0; k < n->n_inputs; k++) {
        any |= n->inputs[k].node->flags;
    }
    for (int k = 0; k < n->n_ctrl; k++) {
        any |= n->ctrl[k]->flags;
    }
    if (!(any & FL_NODE_DEADNESS)) {
        return;
    }
    int dead = 0;
    for (int k = 0; k < n->n_inputs; k++) {
        dead += fl__node_in_dead(n, k);
    }
    bool is_dead;
    if (n->flags & FL_NODE_OP_MERGE) {
        is_dead = n->n_inputs > 0 && dead == n->n_inputs;
    } else {
        is_dead = dead > 0;
        for (int k = 0; k < n->n_ctrl && !is_dead; k++) {
            is_dead = n->ctrl[k]->flags & FL_NODE_DEAD;
        }
    }
    if (is_dead) {
        n->flags |= FL_NODE_DEAD;
    }
}

fl_status fl__infer_one(fl_ctx *c, fl_node *n) {
    set_deadness(n);
    if (!n->desc) {
        infer_opaque(n);
        return FL_OK;
    }
    for (int k = 0; k < n->n_outputs; k++) {
        n->outputs[k].value = NULL;
    }
    fl_status st = n->desc->infer(c, n);
    if (st != FL_OK) {
        if (c->d->status == FL_OK) {
            fl__node_fail(c->d, st, n, "shape inference failed");
        }
        return st;
    }
    return FL_OK;
}

/* Evaluates n when every input value is known and its op can. */
static fl_status eval_node(fl_ctx *c, fl_node *n) {
    if (n->desc->eval && !(n->desc->flags & FL_OPF_STATEFUL) && n->n_inputs > 0 &&
        all_inputs_valued(n)) {
        /* A failing evaluation (an index out of range in a branch that
         * never runs, an unsupported dtype) leaves the value unknown and is
         * reported as a warning: evaluation only sharpens shapes. */
        fl_status saved = c->d->status;
        char *saved_msg = c->d->msg;
        fl_status st = n->desc->eval(c, n);
        if (st != FL_OK) {
            const char *why = c->d->msg ? c->d->msg : fl_status_str(st);
            c->d->status = saved;
            c->d->msg = saved_msg;
            if (st == FL_ENOMEM) {
                return fl__diag_oom(c->d);
            }
            fl__diag_warn(c->d, "constant evaluation skipped: %s", why);
            for (int k = 0; k < n->n_outputs; k++) {
                n->outputs[k].value = NULL;
            }
        }
    }
    return FL_OK;
}

fl_status fl__infer_node_again(fl_ctx *c, fl_node *n) {
    fl_status st = fl__infer_one(c, n);
    return st == FL_OK && n->desc ? eval_node(c, n) : st;
}

/* One walk over the order. */
static fl_status walk(fl_ctx *c, const bool *bound, const symbinds *sb) {
    fl_graph *g = c->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->order[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            return c->d->status;
        }
        if (bound[n->id]) {
            continue;
        }
        fl_status st = fl__infer_one(c, n);
        if (st != FL_OK) {
            return st;
        }
        if (!n->desc) {
            continue;
        }
        if (makes_symbols(n)) {
            st = subst_symbols(c, n, sb);
            if (st != FL_OK) {
                return st;
            }
        }
        if ((st = eval_node(c, n)) != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* The names of the graph's symbols, for a message: those bound (used) and
 * those still free in the inputs' dims, each once, comma-separated. */
typedef struct sym_names {
    char buf[400];
    size_t len, n;
} sym_names;

static void add_sym_name(const char *name, void *ctx) {
    sym_names *l = ctx;
    size_t nl = strlen(name);
    for (const char *p = l->buf; (p = strstr(p, name)) != NULL; p += nl) {
        bool starts = p == l->buf || p[-1] == ' ';
        if (starts && (p[nl] == ',' || p[nl] == '\0')) {
            return; /* listed already */
        }
    }
    if (l->len + nl + 8 >= sizeof l->buf) {
        if (!strstr(l->buf, ", ...")) {
            strcpy(l->buf + l->len, ", ...");
            l->len += 5;
        }
        return;
    }
    l->len +=
        (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, "%s%s", l->n ? ", " : "", name);
    l->n++;
}

/* A symbol binding naming no symbol of the graph: a usage error that lists
 * the graph's symbols (INPUT.AXIS for TensorFlow graphs, an ONNX model's
 * dim_param names). */
static fl_status unknown_symbol(fl_ctx *c, const char **names, const bool *used, size_t n,
                                size_t bad) {
    sym_names l = {{0}, 0, 0};
    for (size_t j = 0; j < n; j++) {
        if (used[j]) {
            add_sym_name(names[j], &l);
        }
    }
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *p = c->g->nodes[i];
        if (!makes_symbols(p) || p->n_outputs < 1) {
            continue;
        }
        for (int k = 0; k < p->outputs[0].shape.rank; k++) {
            fl__sym_vars(p->outputs[0].shape.dims[k], add_sym_name, &l);
        }
    }
    if (!l.n) {
        return fl__diag_fail(c->d, FL_EUSAGE,
                             "symbol binding names '%s', but the graph has no symbols (every "
                             "input dimension is known)",
                             names[bad]);
    }
    return fl__diag_fail(c->d, FL_EUSAGE,
                         "symbol binding names '%s', which is not a symbol of the graph (its "
                         "symbols: %s)",
                         names[bad], l.buf);
}

/* A binding naming no node: a usage error that lists the graph's inputs. */
static fl_status unknown_input(fl_ctx *c, const char *name, const char *what) {
    sym_names l = {{0}, 0, 0};
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        if (is_placeholder(c->g->nodes[i])) {
            add_sym_name(c->g->nodes[i]->name, &l);
        }
    }
    return fl__diag_fail(c->d, FL_EUSAGE,
                         "%s binding names '%s', which is not a node of the graph (%s%s)", what,
                         name, l.n ? "its inputs: " : "it has no inputs", l.buf);
}

/* Walks until the loop headers' shapes stop changing (at most
 * MAX_LOOP_ROUNDS walks; then loop-carried shapes become unknown). The first
 * walk leaves the back edges out of the Merges (not inferred yet); later
 * walks count them, so a loop-carried tensor that is unknown at the end of
 * the body makes the header unknown, never the entry's shape alone. */
static fl_status walk_loops(fl_ctx *c, const bool *bound, const symbinds *sb, size_t n_merge,
                            fl_shape *prev) {
    fl_graph *g = c->g;
    for (int round = 0;; round++) {
        c->g->infer_first_round = round == 0;
        fl_status st = walk(c, bound, sb);
        c->g->infer_first_round = false;
        if (st != FL_OK || !n_merge) {
            return st;
        }
        bool changed = false;
        size_t m = 0;
        for (size_t i = 0; i < g->n_nodes; i++) {
            fl_node *n = g->nodes[i];
            if (!(n->flags & FL_NODE_BACK_EDGE) || n->n_outputs < 1) {
                continue;
            }
            if (round == 0 || !shapes_equal(&prev[m], &n->outputs[0].shape)) {
                changed = true;
            }
            prev[m++] = n->outputs[0].shape;
        }
        if (!changed) {
            return FL_OK;
        }
        if (round + 1 >= MAX_LOOP_ROUNDS) {
            /* Still changing: give up on exact loop-carried shapes. */
            for (size_t i = 0; i < g->n_nodes; i++) {
                fl_node *n = g->nodes[i];
                if ((n->flags & FL_NODE_BACK_EDGE) && n->n_outputs > 0) {
                    n->outputs[0].shape.rank = -1;
                    n->outputs[0].shape.dims = NULL;
                }
            }
            fl__diag_warn(c->d,
                          "loop-carried shapes did not settle after %d rounds; they are "
                          "treated as unknown",
                          MAX_LOOP_ROUNDS);
            return FL_OK;
        }
    }
}

/* Counts what the walk left unknown and warns about unbound unknown ranks. */
static void summarise(fl_ctx *c, fl_infer_result *res) {
    fl_graph *g = c->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->nodes[i];
        if (n->kind == FL_OP_PLACEHOLDER && n->n_outputs > 0 && n->outputs[0].shape.rank < 0 &&
            n->outputs[0].n_consumers > 0) {
            fl__diag_warn(c->d,
                          "input '%s' has unknown rank: what depends on it is not counted; bind "
                          "it with %s%s%s",
                          n->name, fl__diag_opt(c->d, "--input ", "options.inputs (name '"),
                          n->name, fl__diag_opt(c->d, "=D0,D1,...", "', dims)"));
        }
        if (!n->desc && !n->func) {
            res->n_unknown_nodes++;
        }
        for (int k = 0; k < n->n_outputs; k++) {
            if (!fl__shape_is_determined(&n->outputs[k].shape)) {
                n->flags |= FL_NODE_INCOMPLETE;
            }
        }
        if (n->flags & FL_NODE_INCOMPLETE) {
            res->n_incomplete++;
        }
    }
}

/* Reads the user's symbol bindings into sb (room for the implied ones). */
static fl_status init_bindings(fl_ctx *c, const fl_options *opt, symbinds *sb) {
    size_t n = opt->n_symbols;
    sb->names = fl__arena_calloc(c->a, 2 * n + 1, sizeof(char *));
    sb->vals = fl__arena_calloc(c->a, 2 * n + 1, sizeof(int64_t));
    sb->origin = fl__arena_calloc(c->a, 2 * n + 1, sizeof(size_t));
    sb->used = fl__arena_calloc(c->a, n + 1, sizeof(bool));
    if (!sb->names || !sb->vals || !sb->origin || !sb->used) {
        return fl__diag_oom(c->d);
    }
    sb->n = sb->n_user = n;
    for (size_t j = 0; j < n; j++) {
        sb->names[j] = opt->symbols[j].name;
        sb->vals[j] = opt->symbols[j].value;
        sb->origin[j] = j;
        if (sb->vals[j] < 0) {
            return fl__diag_fail(c->d, FL_EUSAGE, "symbol binding %s=%lld is negative",
                                 sb->names[j], (long long)sb->vals[j]);
        }
    }
    return FL_OK;
}

/* A symbol binding that names an integer scalar input binds that input's
 * value, as a value binding does: a loop whose trip count depends on such
 * an input counts it in the symbol named after the input
 * (fl__count_value, src/ops/core/core.h). A value or shape binding of the
 * same input wins. */
static fl_status bind_value_symbols(fl_ctx *c, symbinds *sb, bool *bound) {
    for (size_t j = 0; j < sb->n_user; j++) {
        fl_node *n = fl__graph_find(c->g, sb->names[j]);
        const fl_attr *dt = n ? fl__node_attr(n, "dtype") : NULL;
        const fl_attr *sh = n ? fl__node_attr(n, "shape") : NULL;
        if (!n || !is_placeholder(n) || !dt || dt->kind != FL_ATTR_TYPE ||
            (dt->v.type != FL_DT_INT32 && dt->v.type != FL_DT_INT64) || !sh ||
            sh->kind != FL_ATTR_SHAPE || sh->v.shape.rank != 0) {
            continue;
        }
        sb->used[j] = true;
        fl_value_binding vb = {sb->names[j], (double)sb->vals[j]};
        fl_status st = bound[n->id] ? FL_OK : bind_value(c, &vb, NULL, bound);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* With symbol bindings, a first walk without them finds which symbols are
 * one size, so that a binding of either binds both (and two bindings the
 * graph contradicts are reported as such, not as the node where their values
 * met). Placeholders keep the symbols it gives them; the bindings are
 * substituted on the next walk. Inference with symbols fails only where it
 * would fail with any binding (unknown sizes give unknown results, never an
 * error), so a failure here is the analysis's. */
static fl_status discover_equations(fl_ctx *c, const bool *bound, const symbinds *sb) {
    symbinds none = *sb;
    none.n = 0;
    for (int round = 0; round < MAX_ALIAS_ROUNDS; round++) {
        size_t merges = fl__sym_n_merges(c->st);
        c->g->infer_first_round = round == 0;
        fl_status st = walk(c, bound, &none);
        c->g->infer_first_round = false;
        if (st != FL_OK || fl__sym_n_merges(c->st) == merges) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_all(fl_ctx *c, const fl_options *opt, fl_infer_result *res) {
    fl_graph *g = c->g;
    memset(res, 0, sizeof(*res));
    fl_status st = g->order ? FL_OK : fl__graph_toposort(g, c->d);
    if (st != FL_OK) {
        return st;
    }
    bool *bound = fl__arena_calloc(c->a, g->n_nodes + 1, sizeof(bool));
    symbinds sb = {0};
    if (!bound) {
        return fl__diag_oom(c->d);
    }
    if ((st = init_bindings(c, opt, &sb)) != FL_OK || (st = bind_inputs(c, opt, bound)) != FL_OK ||
        (st = bind_value_symbols(c, &sb, bound)) != FL_OK) {
        return st;
    }
    /* Loop headers: iterate until Merge outputs are stable. */
    size_t n_merge = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->flags & FL_NODE_BACK_EDGE) {
            n_merge++;
        }
    }
    fl_shape *prev = fl__arena_calloc(c->a, n_merge + 1, sizeof(fl_shape));
    if (!prev) {
        return fl__diag_oom(c->d);
    }
    if (sb.n_user && (st = discover_equations(c, bound, &sb)) != FL_OK) {
        return st;
    }
    /* Symbols found to be one size (sym.h's equations): infer again with
     * them merged at the inputs until no new equation appears. */
    for (int round = 0;; round++) {
        size_t known = fl__sym_n_aliases(c->st), merges = fl__sym_n_merges(c->st);
        if ((st = imply_bindings(c, &sb)) != FL_OK) {
            return st;
        }
        if ((st = walk_loops(c, bound, &sb, n_merge, prev)) != FL_OK) {
            return st;
        }
        note_aliases(c, known);
        if (fl__sym_n_merges(c->st) == merges || round + 1 >= MAX_ALIAS_ROUNDS) {
            break;
        }
    }
    for (size_t j = 0; j < sb.n_user; j++) {
        if (!sb.used[j]) {
            return unknown_symbol(c, sb.names, sb.used, sb.n_user, j);
        }
    }
    summarise(c, res);
    return FL_OK;
}

void fl__infer_clear_feeds(fl_graph *g) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->nodes[i];
        if ((n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT) &&
            n->n_outputs > 0) {
            n->outputs[0].dtype = FL_DT_INVALID;
            n->outputs[0].shape.rank = -1;
            n->outputs[0].shape.dims = NULL;
            n->outputs[0].value = NULL;
        }
    }
}

fl_status fl__infer_shapes(fl_ctx *c, const fl_options *opt, fl_infer_result *res) {
    /* ONNX control-flow bodies type their nodes' outputs: infer again while
     * that changes them (src/shape/bodies.c bounds the rounds), each round
     * from the inputs' declarations and the bindings (a round that kept
     * the inputs as the last one bound them would find no symbol a
     * binding names). */
    for (int round = 0;; round++) {
        bool again = false;
        if (round > 0) {
            fl__infer_clear_feeds(c->g);
        }
        fl_status st = infer_all(c, opt, res);
        if (st == FL_OK) {
            st = fl__infer_onnx_bodies(c, opt, round, &again);
        }
        if (st != FL_OK || !again) {
            return st;
        }
        for (size_t i = 0; i < c->g->n_nodes; i++) {
            c->g->nodes[i]->flags &= ~(uint32_t)FL_NODE_INCOMPLETE;
        }
    }
}
