/*
 * util.c - what the pass files share (see util.h).
 */
#include "passes/util.h"

#include "shape/infer.h"
#include "util/check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl__same_device(const fl_node *a, const fl_node *b) {
    const char *x = fl__dev_of(a), *y = fl__dev_of(b);
    return x == y || strcmp(x, y) == 0; /* unplaced nodes share one "" */
}

bool fl__is_const(const fl_node *n) {
    return n && n->kind == FL_OP_CONST && !(n->flags & FL_NODE_REMOVED);
}

bool fl__is_add(const fl_node *n) {
    return n->kind == FL_OP_ADD_V2 ||
           (n->kind == FL_OP_ADD && fl__attr_type(n, "T") != FL_DT_STRING);
}

bool fl__is_feed(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT;
}

static const char *const pass_op_names[FL_POP_COUNT] = {
#define FL_POP_NAME(e, name) [FL_POP_##e] = name,
    FL_PASS_OPS(FL_POP_NAME)
#undef FL_POP_NAME
};

bool fl__is_pass_op(const fl_node *n, fl_pass_op op) {
    /* The first character inline: the rules ask this of every node for
     * lists of ops, and nearly every comparison fails there. */
    const char *want = pass_op_names[op];
    return n->op[0] == want[0] && strcmp(n->op, want) == 0;
}

const char *fl__pass_op_name(int op) {
    return op >= 0 && op < FL_POP_COUNT ? pass_op_names[op] : "?";
}

bool fl__pass_op_in(const fl_node *n, const fl_pass_op *ops, size_t n_ops) {
    for (size_t i = 0; i < n_ops; i++) {
        if (fl__is_pass_op(n, ops[i])) {
            return true;
        }
    }
    return false;
}

bool fl__kind_in(int kind, const fl_op_kind *kinds, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if ((int)kinds[i] == kind) {
            return true;
        }
    }
    return false;
}

void fl__kind_table_build(fl_kind_table *t, const fl_kinds_fn *tests, int n_tests) {
    memset(t, 0, sizeof *t);
    t->n_tests = n_tests;
    memcpy(t->tests, tests, (size_t)n_tests * sizeof tests[0]);
    for (int k = 0; k < FL_OP_COUNT; k++) {
        atomic_init(&t->kinds[k].ready, 0);
    }
}

static pthread_mutex_t kind_fill_lock = PTHREAD_MUTEX_INITIALIZER;

void fl__kind_table_fill(const fl_kind_table *ct, int k) {
    /* the tables are static and writable: const only to the readers */
    fl_kind_table *t = (fl_kind_table *)ct;
    pthread_mutex_lock(&kind_fill_lock);
    if (!atomic_load_explicit(&t->kinds[k].ready, memory_order_relaxed)) {
        fl_node probe;
        memset(&probe, 0, sizeof probe);
        probe.kind = k;
        probe.op = fl__op_name(k);
        t->kinds[k].name = probe.op;
        uint32_t rules = 0, type_rules = 0;
        for (int r = 0; r < t->n_tests; r++) {
            rules |= t->tests[r](&probe) ? 1u << r : 0;
        }
        const char *sep = strstr(probe.op, "::");
        if (sep && sep[2]) {
            probe.op = t->kinds[k].type = sep + 2;
            for (int r = 0; r < t->n_tests; r++) {
                type_rules |= t->tests[r](&probe) ? 1u << r : 0;
            }
        }
        t->kinds[k].rules = rules;
        t->kinds[k].type_rules = type_rules;
        atomic_store_explicit(&t->kinds[k].ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&kind_fill_lock);
}

uint32_t fl__kind_tests_ask(const fl_kind_table *t, const fl_node *n, int first, int last) {
    uint32_t r = 0;
    for (int i = first; i < last; i++) {
        r |= t->tests[i](n) ? 1u << i : 0;
    }
    return r;
}

bool fl__has_ctrl_input(const fl_node *n, const fl_node *dep) {
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return true;
        }
    }
    return false;
}

size_t fl__consumers_of(const fl_graph *g, const fl_node *n, fl_node **out, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool reads = false;
        for (int j = 0; j < m->n_inputs && !reads; j++) {
            reads = m->inputs[j].node == n;
        }
        for (int j = 0; j < m->n_ctrl && !reads; j++) {
            reads = m->ctrl[j] == n;
        }
        if (reads) {
            if (k < cap) {
                out[k] = m;
            }
            k++;
        }
    }
    return k;
}

int fl__attr_type(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_TYPE ? a->v.type : FL_DT_INVALID;
}

int64_t fl__attr_int(const fl_node *n, const char *name, int64_t dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_I ? a->v.i : dflt;
}

bool fl__attr_bool(const fl_node *n, const char *name, bool dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_B ? a->v.b : dflt;
}

const char *fl__attr_str(const fl_node *n, const char *name, const char *dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_S ? a->v.s.p : dflt;
}

float fl__attr_float(const fl_node *n, const char *name, float dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_F ? a->v.f : dflt;
}

bool fl__value_all_equal(const fl_value *v, double x) {
    for (int64_t i = 0; i < v->n; i++) {
        double e;
        if (!fl__value_f64(v, i, &e) || e != x) {
            return false;
        }
    }
    return true;
}

void fl__node_become(fl_graph *g, fl_node *n, const char *op) {
    char *copy = fl__arena_strdup(g->arena, op);
    if (!copy) {
        return; /* out of memory: the arena's failure fails the pass; n is as it was */
    }
    fl__node_touch(g, n);
    n->op = copy;
    fl__op_bind(n);
    n->func = NULL;
    n->flags &= ~(uint32_t)FL_NODE_FUNC_CALL;
    g->order = NULL;
}

static bool is_switch(const fl_node *n) {
    return n->kind == FL_OP_SWITCH || n->kind == FL_OP_REF_SWITCH;
}

/* Grappler first looks for an Identity already reading the Switch, but
 * compares the Switch's own input with the port's name, which never
 * matches; so the anchor is always the ConstantFoldingCtrl node. */
fl_node *fl__ctrl_anchor(fl_pass_ctx *pc, fl_input in) {
    fl_graph *g = pc->c->g;
    fl_node *sw = in.node;
    if (!is_switch(sw)) {
        return sw;
    }
    const char *name = fl__arena_printf(pc->c->a, "ConstantFoldingCtrl/%s_%d", sw->name, in.port);
    if (!name) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    fl_node *m = fl__graph_find(g, name);
    if (m) {
        return (m->flags & FL_NODE_REMOVED) ? sw : m;
    }
    const fl_attr *ta = fl__node_attr(sw, "T");
    int t = ta && ta->kind == FL_ATTR_TYPE ? (int)ta->v.type : FL_DT_INVALID;
    if (t == FL_DT_INVALID && in.port < sw->n_outputs) {
        t = (int)fl_dtype_base(sw->outputs[in.port].dtype);
    }
    fl_attr tattr = fl__attr_make_type(g, "T", t);
    m = tattr.name ? fl__op_add_op(g, name, fl__op_name(FL_OP_IDENTITY), 1, &in, 1, pc->c->d)
                   : NULL;
    if (!m || fl__node_set_attr(g, m, &tattr) != FL_OK) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    m->device = sw->device;
    pc->added++;
    return fl__infer_node(pc, m) == FL_OK ? m : NULL;
}

fl_status fl__add_ctrl_anchor(fl_pass_ctx *pc, fl_node *n, fl_input in) {
    fl_node *a = fl__ctrl_anchor(pc, in);
    if (!a) {
        return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
    }
    return fl__node_add_ctrl(pc->c->g, n, a) == FL_OK ? FL_OK : fl__diag_oom(pc->c->d);
}

/* Moves n's data inputs but `except` to its control inputs (skipping
 * duplicates), through their anchors when `anchored`. The inputs are read
 * from a copy: making an anchor adds a node to the graph. */
static fl_status inputs_to_ctrl(fl_pass_ctx *pc, fl_node *n, int except, bool anchored) {
    fl_graph *g = pc->c->g;
    int n_in = n->n_inputs;
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)n_in + 1, sizeof(fl_input));
    if (!in) {
        return fl__diag_oom(pc->c->d);
    }
    memcpy(in, n->inputs, (size_t)n_in * sizeof(fl_input));
    for (int i = 0; i < n_in; i++) {
        if (i == except) {
            continue;
        }
        fl_status st = anchored ? fl__add_ctrl_anchor(pc, n, in[i])
                       : fl__node_add_ctrl(g, n, in[i].node) == FL_OK ? FL_OK
                                                                      : fl__diag_oom(pc->c->d);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* What becomes of a node's data inputs when it turns into a Const. */
enum { CONST_DROP_INPUTS, CONST_PLAIN_CTRL, CONST_ANCHORED_CTRL };

static fl_status make_const(fl_pass_ctx *pc, fl_node *n, const fl_value *v, int inputs) {
    fl_graph *g = pc->c->g;
    const fl_tensor *t = &n->outputs[0];
    int rank = t->shape.rank;
    int64_t dims[256];
    for (int i = 0; i < rank; i++) {
        dims[i] = t->shape.dims[i].k;
    }
    fl_attr value = fl__attr_make_tensor(g, "value", t->dtype, rank, dims, v);
    fl_attr dtype = fl__attr_make_type(g, "dtype", t->dtype);
    if (!value.v.tensor || !value.name || !dtype.name) {
        return fl__diag_oom(pc->c->d);
    }
    if (inputs != CONST_DROP_INPUTS) {
        fl_status st = inputs_to_ctrl(pc, n, -1, inputs == CONST_ANCHORED_CTRL);
        if (st != FL_OK) {
            return st;
        }
    }
    /* A folded input's own control inputs stay as control inputs. */
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_node *in = n->inputs[i].node;
        for (int k = 0; k < in->n_ctrl; k++) {
            if (fl__node_add_ctrl(g, n, in->ctrl[k]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
    }
    fl__node_trim_inputs(g, n, 0);
    fl__node_set_attrs(g, n, 0, NULL);
    fl__node_become(g, n, fl__op_name(FL_OP_CONST));
    if (fl__node_set_attr(g, n, &dtype) != FL_OK || fl__node_set_attr(g, n, &value) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    if (!v) {
        fl_attr sb =
            fl__attr_make_int(g, "_stripped_content_bytes", (int64_t)value.v.tensor->content_bytes);
        if (!sb.name || fl__node_set_attr(g, n, &sb) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        n->flags |= FL_NODE_STRIPPED;
    } else {
        n->flags &= ~(uint32_t)FL_NODE_STRIPPED;
    }
    n->src = NULL;
    n->outputs[0].value = v; /* later folds in the same sweep read it */
    fl__node_touch(g, n);
    return FL_OK;
}

fl_status fl__node_make_const(fl_pass_ctx *pc, fl_node *n, const fl_value *v,
                              bool keep_inputs_as_ctrl) {
    return make_const(pc, n, v, keep_inputs_as_ctrl ? CONST_PLAIN_CTRL : CONST_DROP_INPUTS);
}

fl_status fl__node_make_const_anchored(fl_pass_ctx *pc, fl_node *n, const fl_value *v) {
    return make_const(pc, n, v, CONST_ANCHORED_CTRL);
}

fl_status fl__node_make_identity(fl_pass_ctx *pc, fl_node *n, int keep) {
    fl_graph *g = pc->c->g;
    int dt = n->outputs[0].dtype;
    if (dt == FL_DT_INVALID) {
        dt = fl_node_in(n, keep)->dtype;
    }
    fl_attr t = fl__attr_make_type(g, "T", dt);
    if (!t.name) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = inputs_to_ctrl(pc, n, keep, true);
    if (st != FL_OK) {
        return st;
    }
    fl_input in = n->inputs[keep];
    if (fl__node_set_inputs(g, n, 1, &in) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    /* The kept input must not stay as a control input as well. */
    int w = 0;
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] != in.node) {
            fl__node_set_ctrl(g, n, w++, n->ctrl[k]);
        }
    }
    fl__node_trim_ctrl(g, n, w);
    fl__node_set_attrs(g, n, 0, NULL);
    fl__node_become(g, n, fl__op_name(FL_OP_IDENTITY));
    if (fl__node_set_attr(g, n, &t) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->src = NULL;
    return FL_OK;
}

bool fl__shape_same(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (fl_sym_is_unknown(a->dims[i]) || fl_sym_is_unknown(b->dims[i]) ||
            !fl__sym_eq(a->dims[i], b->dims[i])) {
            return false;
        }
    }
    return true;
}

fl_input fl__resolve(const fl_input *fwd, fl_input in) {
    for (int guard = 0; guard < 1 << 20 && fwd[in.node->id].node; guard++) {
        in = fwd[in.node->id];
    }
    return in;
}

fl_status fl__infer_node(fl_pass_ctx *pc, fl_node *n) {
    fl_ctx *c = pc->c;
    if (!n->desc) {
        return FL_OK;
    }
    fl__node_touch(c->g, n); /* its outputs are set here */
    fl_status st = n->desc->infer(c, n);
    if (st != FL_OK) {
        return st;
    }
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl_node_in(n, i)->value) {
            return FL_OK;
        }
    }
    if (n->desc->eval && !(n->desc->flags & FL_OPF_STATEFUL)) {
        st = n->desc->eval(c, n);
    }
    return st;
}

/* The graph's edit and removal counts when this thread's last
 * fl__consumed_snapshot was taken, for fl__remove_dead. */
static _Thread_local struct consumed_at {
    const bool *snap;
    const fl_graph *g;
    uint64_t edits, removals;
} consumed_at;

const bool *fl__consumed_snapshot(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    struct fl_consumed_cache *cc = &g->consumed;
    uint64_t removals = fl__graph_removals();
    /* The passes that take one run back to back and most change nothing:
     * on a large graph each walk costs a miss or two per node. The
     * self-checks walk anyway and compare. */
    bool same =
        cc->marks && cc->edits == g->edits && cc->removals == removals && cc->n_nodes == g->n_nodes;
    if (same && !fl__checks_on()) {
        consumed_at = (struct consumed_at){cc->marks, g, g->edits, removals};
        return cc->marks;
    }
    bool *s = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(bool));
    if (!s) {
        return NULL;
    }
    consumed_at = (struct consumed_at){s, g, g->edits, removals};
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        s[i] = n->n_ctrl_consumers > 0;
        for (int k = 0; k < n->n_outputs && !s[i]; k++) {
            s[i] = n->outputs[k].n_consumers > 0;
        }
    }
    FL_DCHECK(!same || !memcmp(s, cc->marks, g->n_nodes * sizeof(bool)));
    *cc = (struct fl_consumed_cache){s, g->edits, removals, g->n_nodes};
    return s;
}

static bool side_effect_free(const fl_node *n) {
    return n->desc &&
           !(n->desc->flags & (FL_OPF_STATEFUL | FL_OPF_CONTROL_FLOW | FL_OPF_FUNCTIONAL)) &&
           !fl__is_feed(n);
}

fl_status fl__remove_dead(fl_pass_ctx *pc, const bool *snap, size_t n_snap, const char *rule) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    /* No edge, node or removal since snap was taken: every node that had a
     * consumer then has it still (the common case of a pass that found
     * nothing to do), and counting the uses of every node would say so.
     * The self-checks count anyway, and check that. */
    const struct consumed_at *at = &consumed_at;
    bool quiet = at->snap == snap && at->g == g && at->edits == g->edits &&
                 at->removals == fl__graph_removals() && n == n_snap;
    if (quiet && !fl__checks_on()) {
        return FL_OK;
    }
    uint64_t removals0 = fl__graph_removals();
    /* Scratch, held only here: a pass on n nodes that calls this kept 12
     * bytes per node of arena memory to the end of the analysis. */
    uint32_t *uses = fl__arena_scratch(pc->c->a, n + 1, sizeof(uint32_t));
    fl_node **stack = uses ? fl__arena_scratch_raw(pc->c->a, n + 1, sizeof(fl_node *)) : NULL;
    if (!stack) {
        fl__arena_scratch_free(pc->c->a, uses);
        return fl__diag_oom(pc->c->d);
    }
    for (size_t i = 0; i < n; i++) {
        const fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            uses[m->inputs[k].node->id]++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            uses[m->ctrl[k]->id]++;
        }
    }
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        fl_node *m = g->nodes[i];
        if (i < n_snap && snap[i] && !uses[i] && !(m->flags & FL_NODE_REMOVED) &&
            !fl__preserved(m) && side_effect_free(m)) {
            fl__graph_remove_node(m);
            stack[sp++] = m;
        }
    }
    while (sp) {
        fl_node *m = stack[--sp];
        fl__ledger_note(pc, rule, m, "%s left without consumers: removed", m->op);
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            fl_node *p = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
            if (--uses[p->id] == 0 && !(p->flags & FL_NODE_REMOVED) && !fl__preserved(p) &&
                side_effect_free(p)) {
                fl__graph_remove_node(p);
                stack[sp++] = p;
            }
        }
    }
    fl__arena_scratch_free(pc->c->a, uses);
    fl__arena_scratch_free(pc->c->a, stack);
    if (quiet && fl__graph_removals() != removals0) {
        return fl__diag_fail(pc->c->d, FL_EINTERNAL,
                             "internal error: a node lost its consumers without an edit "
                             "recorded (graph/mutate.h)");
    }
    return FL_OK;
}

static char lower_ascii(char ch) {
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

fl_dev_type fl__node_device(const fl_node *n, fl_device target) {
    const char *s = n->device ? n->device : "";
    if (!*s) {
        return target == FL_DEVICE_GPU ? FL_DEV_GPU : FL_DEV_CPU;
    }
    const char *t = strstr(s, "device:");
    if (t) {
        t += strlen("device:");
    } else {
        t = strrchr(s, '/');
        t = t ? t + 1 : s;
    }
    if (strcspn(t, ":/") == 3) {
        char a = lower_ascii(t[0]), b = lower_ascii(t[1]), c = lower_ascii(t[2]);
        if (a == 'c' && b == 'p' && c == 'u') {
            return FL_DEV_CPU;
        }
        if (a == 'g' && b == 'p' && c == 'u') {
            return FL_DEV_GPU;
        }
    }
    return FL_DEV_OTHER;
}

fl_status fl__sweep_reverse(fl_pass_ctx *pc, fl_uses *uses, fl_edge_index *edges, size_t *n0,
                            fl_sweep_visit visit, void *ctx, const fl_status *st) {
    fl_graph *g = pc->c->g;
    fl_diag *d = pc->c->d;
    fl_status s;
    if (!g->order && (s = fl__graph_toposort(g, d)) != FL_OK) {
        return s;
    }
    size_t n = *n0 = g->n_nodes;
    /* The order, the use lists and the edge index end with the sweep:
     * scratch memory (and the use lists' reused buffers), not arena memory
     * kept to the end of the analysis. */
    fl_node **order = fl__arena_scratch_raw(g->arena, n ? n : 1, sizeof(*order));
    if (!order) {
        return fl__diag_oom(d);
    }
    memcpy(order, g->order, n * sizeof(*order));
    if ((s = fl__uses_build(g, uses, d)) != FL_OK) {
        fl__arena_scratch_free(g->arena, order);
        return s;
    }
    /* built at the first rewrite: a sweep that rewrites nothing (every
     * sweep after the first on most graphs) builds no index */
    fl__edge_index_defer(g, edges);
    bool changed = false;
    for (size_t i = n; i-- > 0 && *st == FL_OK;) {
        if (!(order[i]->flags & FL_NODE_REMOVED)) {
            changed |= visit(ctx, order[i]);
        }
    }
    fl__arena_scratch_free(g->arena, order);
    fl__edge_index_free(edges);
    if (*st != FL_OK) {
        return *st;
    }
    if (g->arena->failed) {
        return fl__diag_oom(d);
    }
    return changed ? fl__graph_compact(g, d) : FL_OK;
}
