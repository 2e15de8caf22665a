/*
 * report.c - the public report of an analysed graph (see report.h).
 */
#include "api/report.h"

#include "ops/common.h"
#include "util/hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Formatting into the report arena                                           */
/* ------------------------------------------------------------------------- */

static fl_quantity quantity(fl_arena *ra, fl_sym s) {
    fl_quantity q;
    q.known = fl_sym_is_known(s);
    q.value = q.known ? s.k : 0;
    q.text = fl__sym_to_str(ra, s);
    if (!q.text) {
        q.text = "?";
    }
    return q;
}

/* A shape as text and typed dims: each dim is formatted once, and the text
 * is those pieces joined, so a client can rebuild one from the other. */
static void shape_fill(fl_arena *ra, const fl_shape *s, const char **text, int *rank,
                       const fl_quantity **dims) {
    *text = "?";
    *rank = -1;
    *dims = NULL;
    if (s->rank < 0) {
        return;
    }
    fl_quantity *d = fl__arena_calloc(ra, (size_t)s->rank + 1, sizeof(*d));
    if (!d) {
        return;
    }
    size_t len = 2;
    for (int i = 0; i < s->rank; i++) {
        d[i].known = fl_sym_is_known(s->dims[i]);
        d[i].value = d[i].known ? s->dims[i].k : 0;
        size_t need = fl__sym_format(s->dims[i], NULL, 0);
        char *piece = fl__arena_alloc(ra, need + 1);
        if (!piece) {
            return;
        }
        fl__sym_format(s->dims[i], piece, need + 1);
        d[i].text = piece;
        len += need + 1;
    }
    char *buf = fl__arena_alloc(ra, len + 1);
    if (!buf) {
        return;
    }
    size_t o = 0;
    buf[o++] = '[';
    for (int i = 0; i < s->rank; i++) {
        size_t pl = strlen(d[i].text);
        if (i) {
            buf[o++] = ',';
        }
        memcpy(buf + o, d[i].text, pl);
        o += pl;
    }
    buf[o++] = ']';
    buf[o] = '\0';
    *text = buf;
    *rank = s->rank;
    *dims = d;
}

static const char *dtype_text(int dt) {
    return dt == FL_DT_INVALID ? "unknown" : fl__dtype_name(dt);
}

/* Whether the report counts `n` as a node: every node of a TensorFlow
 * graph; the operators of an ONNX graph. */
static bool is_reported(const fl_graph *g, const fl_node *n) {
    return !g->onnx.is_onnx || !fl__cost_is_value_node(n);
}

/* The node count of totals `t` as the report counts nodes. */
static int64_t reported_nodes(const fl_graph *g, const fl_cost_totals *t) {
    int64_t all = t->nodes_with_rule + t->nodes_without_rule + t->nodes_incomplete;
    return g->onnx.is_onnx ? all - t->nodes_values : all;
}

/* ------------------------------------------------------------------------- */
/* Per-op summary                                                             */
/* ------------------------------------------------------------------------- */

typedef struct op_acc {
    const char *op;
    int64_t count;
    fl_sym flops, tfprof, int_ops;
    double sort_key; /* flops + int_ops with symbols at 1, for ordering */
} op_acc;

static int op_cmp(const void *pa, const void *pb) {
    const op_acc *a = pa, *b = pb;
    if (a->sort_key != b->sort_key) {
        return a->sort_key < b->sort_key ? 1 : -1;
    }
    return strcmp(a->op, b->op);
}

/* acc ordered by op_cmp: a small graph's few op types by insertion (qsort's
 * merge sort cost more than the rest of the table's ordering), others by
 * qsort. op_cmp is a total order (one entry per op type): the same order. */
static void sort_accs(op_acc *acc, size_t n) {
    if (n > 16) {
        qsort(acc, n, sizeof(op_acc), op_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        op_acc x = acc[i];
        size_t j = i;
        for (; j > 0 && op_cmp(&acc[j - 1], &x) > 0; j--) {
            acc[j] = acc[j - 1];
        }
        acc[j] = x;
    }
}

typedef struct var_names {
    const char *names[32];
    size_t n;
} var_names;

static void note_var(const char *name, void *ctx) {
    var_names *v = ctx;
    if (v->n < 32) {
        v->names[v->n++] = name;
    }
}

/* A number to order op types by FLOPs: a symbolic count is evaluated with
 * every symbol at 1 (ordering only; the report keeps the formula). */
static double sort_value(fl_ctx *c, fl_sym s) {
    if (fl_sym_is_known(s)) {
        return (double)s.k;
    }
    if (fl_sym_is_unknown(s)) {
        return 0;
    }
    /* The usual count: a polynomial in variables, its value at 1 the sum of
     * its coefficients (the substitution below binds at most 32). */
    int64_t at1;
    fl_status fast = fl__sym_at_ones(s, 32, &at1);
    if (fast != FL_ENOTFOUND) {
        return fast == FL_OK ? (double)at1 : 0;
    }
    var_names v = {{0}, 0};
    fl__sym_vars(s, note_var, &v);
    int64_t ones[32];
    for (size_t i = 0; i < 32; i++) {
        ones[i] = 1;
    }
    fl_sym r;
    if (fl__sym_subst(c->st, s, v.n, v.names, ones, &r) == FL_OK && fl_sym_is_known(r)) {
        return (double)r.k;
    }
    return 0;
}

/* The entries per op type, in the order met, and a hash index of them
 * (slots hold entry + 1; 0 is empty): a graph with many distinct op types
 * costs one probe per node, not a scan of the types met so far. by_kind:
 * the entry last found for a registry kind (entry + 1; kinds that share the
 * low bits share a place), tried first: a node's op is then compared with
 * its op, not hashed. Both grow with the op types met (a graph has a few
 * dozen; sized for every node to be its own, they were 80 bytes of scratch
 * per node, twice, counted against the memory limit). */
#define BY_KIND 256
typedef struct op_accs {
    op_acc *e;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
    uint32_t by_kind[BY_KIND];
} op_accs;

/* Doubles t's entries and index (the entries rehashed); false when out of
 * memory (t unchanged). */
static bool accs_grow(fl_arena *ar, op_accs *t) {
    size_t cap = t->cap * 2, slots = 2 * (t->mask + 1);
    op_acc *e = fl__arena_scratch_grow(ar, t->e, t->n, cap, sizeof(op_acc));
    uint32_t *slot = e ? fl__arena_scratch(ar, slots, sizeof(uint32_t)) : NULL;
    if (e) {
        t->e = e;
    }
    if (!slot) {
        return false;
    }
    fl__arena_scratch_free(ar, t->slot);
    t->slot = slot;
    t->mask = slots - 1;
    t->cap = cap;
    for (size_t k = 0; k < t->n; k++) {
        size_t j = (size_t)fl__hash_str(e[k].op) & t->mask;
        while (slot[j]) {
            j = (j + 1) & t->mask;
        }
        slot[j] = (uint32_t)k + 1;
    }
    return true;
}

/* The entry of `op`, added when new; NULL when out of memory. */
static op_acc *acc_find_op(fl_arena *ar, op_accs *t, const char *op) {
    size_t j = (size_t)fl__hash_str(op) & t->mask;
    for (; t->slot[j]; j = (j + 1) & t->mask) {
        op_acc *a = &t->e[t->slot[j] - 1];
        if (a->op == op || strcmp(a->op, op) == 0) {
            return a;
        }
    }
    if (t->n == t->cap) {
        if (t->n >= UINT32_MAX - 1 || !accs_grow(ar, t)) {
            return NULL;
        }
        for (j = (size_t)fl__hash_str(op) & t->mask; t->slot[j]; j = (j + 1) & t->mask) {
        }
    }
    op_acc *a = &t->e[t->n++];
    t->slot[j] = (uint32_t)t->n;
    a->op = op;
    a->flops = a->tfprof = a->int_ops = fl_sym_const(0);
    return a;
}

/* The entry of node n's op, added when new; NULL when out of memory. */
static op_acc *acc_find(fl_arena *ar, op_accs *t, const fl_node *n) {
    const char *op = n->op;
    uint32_t *k = &t->by_kind[(unsigned)n->kind % BY_KIND];
    if (*k) {
        op_acc *a = &t->e[*k - 1];
        if (a->op == op || strcmp(a->op, op) == 0) {
            return a;
        }
    }
    op_acc *a = acc_find_op(ar, t, op);
    if (a) {
        *k = (uint32_t)(a - t->e) + 1;
    }
    return a;
}

/* The quantities of one op table, each value formatted once: an op type's
 * FLOPs often equal its tfprof FLOPs, and most types count no integer ops.
 * The last OPS_SEEN values met, searched newest first. */
#define OPS_SEEN 8
typedef struct ops_seen {
    fl_sym s[OPS_SEEN];
    fl_quantity q[OPS_SEEN];
    size_t n; /* values met; the newest at (n - 1) % OPS_SEEN */
} ops_seen;

static fl_quantity quantity_seen(ops_seen *m, fl_arena *ra, fl_sym s) {
    size_t have = m->n < OPS_SEEN ? m->n : OPS_SEEN;
    for (size_t i = 1; i <= have; i++) {
        size_t j = (m->n - i) % OPS_SEEN;
        if (m->s[j].k == s.k && m->s[j].e == s.e) {
            return m->q[j];
        }
    }
    size_t j = m->n++ % OPS_SEEN;
    m->s[j] = s;
    m->q[j] = quantity(ra, s);
    return m->q[j];
}

static fl_report_op *ops_out(fl_arena *ra, const op_acc *acc, size_t n, bool counts) {
    fl_report_op *ops = fl__arena_calloc(ra, n + 1, sizeof(*ops));
    ops_seen m;
    m.n = 0;
    for (size_t k = 0; ops && k < n; k++) {
        ops[k].op = fl__arena_strdup(ra, acc[k].op);
        ops[k].count = acc[k].count;
        ops[k].flops = quantity_seen(&m, ra, counts ? acc[k].flops : fl_sym_const(0));
        ops[k].tfprof_flops = quantity_seen(&m, ra, counts ? acc[k].tfprof : fl_sym_const(0));
        ops[k].int_ops = quantity_seen(&m, ra, counts ? acc[k].int_ops : fl_sym_const(0));
    }
    return ops;
}

/* k empty tables, with room for 16 op types each (a small graph's types
 * fit; the entries, 768 bytes with their head, stay within the sizes
 * malloc keeps a per-thread cache of, which 32 did not). */
static bool accs_new(fl_arena *a, op_accs *t, size_t k) {
    bool ok = true;
    for (size_t i = 0; i < k; i++) {
        t[i] = (op_accs){NULL, 0, 16, NULL, 31, {0}};
        if (ok) {
            t[i].e = fl__arena_scratch(a, t[i].cap, sizeof(op_acc));
            t[i].slot = fl__arena_scratch(a, t[i].mask + 1, sizeof(uint32_t));
            ok = t[i].e && t[i].slot;
        }
    }
    return ok;
}

static void accs_free(fl_arena *a, op_accs *t, size_t k) {
    for (size_t i = 0; i < k; i++) {
        fl__arena_scratch_free(a, t[i].e);
        fl__arena_scratch_free(a, t[i].slot);
    }
}

/* r->ops (per op type, by FLOPs) and r->unknown_ops. */
static fl_status op_summary(fl_ctx *c, fl_arena *ra, fl_report *r) {
    fl_graph *g = c->g;
    op_accs t[2]; /* every op type; the unknown ones, made at the first */
    bool made = accs_new(c->a, t, 1);
    t[1] = (op_accs){NULL, 0, 0, NULL, 0, {0}};
    if (!made) {
        accs_free(c->a, t, 1);
        return fl__diag_oom(c->d);
    }
    fl_status st = FL_OK;
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        const fl_node *n = g->nodes[i];
        if (!is_reported(g, n)) {
            continue;
        }
        op_acc *a = acc_find(c->a, &t[0], n);
        bool unknown = a && !n->desc && !n->func;
        if (unknown && !t[1].e && !accs_new(c->a, &t[1], 1)) {
            st = fl__diag_oom(c->d);
            break;
        }
        op_acc *u = unknown ? acc_find(c->a, &t[1], n) : a;
        if (!u) {
            st = fl__diag_oom(c->d);
            break;
        }
        a->count++;
        if (!fl__node_cost_incomplete(n)) {
            st = fl__op_add(c, n, a->flops, fl__node_count(n, FL_COUNT_FLOPS), &a->flops);
            if (st == FL_OK) {
                st = fl__op_add(c, n, a->tfprof, fl__node_count(n, FL_COUNT_TFPROF_FLOPS),
                                &a->tfprof);
            }
            if (st == FL_OK) {
                st = fl__op_add(c, n, a->int_ops, fl__node_count(n, FL_COUNT_INT_OPS), &a->int_ops);
            }
        }
        if (u != a) {
            u->count++;
        }
    }
    if (st == FL_OK) {
        op_acc *acc = t[0].e, *unk = t[1].e;
        size_t n_acc = t[0].n, n_unk = t[1].n;
        for (size_t k = 0; k < n_acc; k++) {
            acc[k].sort_key = sort_value(c, acc[k].flops) + sort_value(c, acc[k].int_ops);
        }
        sort_accs(acc, n_acc);
        sort_accs(unk, n_unk);
        r->ops = ops_out(ra, acc, n_acc, true);
        r->n_ops = n_acc;
        r->unknown_ops = ops_out(ra, unk, n_unk, false);
        r->n_unknown_ops = n_unk;
        if (!r->ops || !r->unknown_ops) {
            st = fl__diag_oom(c->d);
        }
    }
    accs_free(c->a, t, 2);
    return st;
}

/* ------------------------------------------------------------------------- */
/* Symbols of the totals                                                      */
/* ------------------------------------------------------------------------- */

typedef struct sym_list {
    fl_arena *ra;
    const char **names;
    size_t n, cap;
} sym_list;

static void add_sym(const char *name, void *ctx) {
    sym_list *l = ctx;
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->names[i], name) == 0) {
            return;
        }
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        const char **nn = fl__arena_grow(l->ra, (void *)l->names, l->n, nc, sizeof(char *));
        if (!nn) {
            return;
        }
        l->names = nn;
        l->cap = nc;
    }
    const char *copy = fl__arena_strdup(l->ra, name);
    if (copy) { /* else the arena is marked failed: the analysis fails */
        l->names[l->n++] = copy;
    }
}

/* ------------------------------------------------------------------------- */
/* Nodes and totals                                                           */
/* ------------------------------------------------------------------------- */

/* Texts already made for the nodes of one list, shared by the nodes that
 * have the same: a quantity's by its value, a shape's by its dims, an op's
 * by its registry kind. Each in a slot chosen by hash that keeps the last
 * one met and is checked against the key, so a miss only formats again. */
#define Q_SLOTS     512
#define SHAPE_SLOTS 256
#define OP_SLOTS    64
typedef struct text_cache {
    struct {
        fl_sym s;
        fl_quantity q; /* q.text NULL: empty */
    } q[Q_SLOTS];
    struct {
        const fl_sym *dims; /* dims formatted: the graph's, unchanged meanwhile */
        int rank;
        const char *text; /* NULL: empty */
        const fl_quantity *d;
    } sh[SHAPE_SLOTS];
    const char *op[OP_SLOTS];
} text_cache;

static size_t sym_slot(fl_sym s, size_t n) {
    uint64_t h =
        ((uint64_t)s.k ^ (uint64_t)(uintptr_t)s.e * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 40) & (n - 1);
}

static fl_quantity quantity_shared(text_cache *tc, fl_arena *ra, fl_sym s) {
    size_t j = sym_slot(s, Q_SLOTS);
    if (tc->q[j].q.text && tc->q[j].s.k == s.k && tc->q[j].s.e == s.e) {
        return tc->q[j].q;
    }
    tc->q[j].s = s;
    tc->q[j].q = quantity(ra, s);
    return tc->q[j].q;
}

static bool same_dims(const fl_sym *a, const fl_sym *b, int rank) {
    for (int i = 0; i < rank; i++) {
        if (a[i].k != b[i].k || a[i].e != b[i].e) {
            return false;
        }
    }
    return true;
}

/* shape_fill, the text and dims shared with an earlier equal shape. */
static void shape_fill_shared(text_cache *tc, fl_arena *ra, const fl_shape *s, const char **text,
                              int *rank, const fl_quantity **dims) {
    if (s->rank <= 0) {
        shape_fill(ra, s, text, rank, dims);
        return;
    }
    size_t j = sym_slot(s->dims[0], SHAPE_SLOTS);
    for (int i = 1; i < s->rank; i++) {
        j = (j * 31 + sym_slot(s->dims[i], SHAPE_SLOTS)) & (SHAPE_SLOTS - 1);
    }
    if (tc->sh[j].text && tc->sh[j].rank == s->rank &&
        same_dims(tc->sh[j].dims, s->dims, s->rank)) {
        *text = tc->sh[j].text;
        *rank = s->rank;
        *dims = tc->sh[j].d;
        return;
    }
    shape_fill(ra, s, text, rank, dims);
    if (*rank == s->rank && *dims) {
        tc->sh[j].dims = s->dims;
        tc->sh[j].rank = s->rank;
        tc->sh[j].text = *text;
        tc->sh[j].d = *dims;
    }
}

static const char *op_shared(text_cache *tc, fl_arena *ra, const fl_node *n) {
    const char **o = &tc->op[(unsigned)n->kind % OP_SLOTS];
    if (!*o || strcmp(*o, n->op) != 0) {
        *o = fl__arena_strdup(ra, n->op);
    }
    return *o;
}

fl_status fl__report_nodes(fl_ctx *c, fl_arena *ra, const fl_report_node **out, size_t *n_out) {
    fl_graph *g = c->g;
    fl_report_node *nodes = fl__arena_calloc(ra, g->n_nodes + 1, sizeof(*nodes));
    text_cache *tc = fl__arena_scratch(c->a, 1, sizeof(text_cache));
    if (!nodes || !tc) {
        fl__arena_scratch_free(c->a, tc);
        return fl__diag_oom(c->d);
    }
    size_t m = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (!is_reported(g, n)) {
            continue;
        }
        fl_report_node *rn = &nodes[m++];
        rn->name = fl__arena_strdup(ra, n->name);
        rn->op = op_shared(tc, ra, n);
        rn->n_outputs = (size_t)n->n_outputs;
        fl_report_tensor *ts = fl__arena_calloc(ra, rn->n_outputs + 1, sizeof(*ts));
        if (!ts) {
            fl__arena_scratch_free(c->a, tc);
            return fl__diag_oom(c->d);
        }
        for (int k = 0; k < n->n_outputs; k++) {
            ts[k].dtype = dtype_text(n->outputs[k].dtype);
            shape_fill_shared(tc, ra, &n->outputs[k].shape, &ts[k].shape, &ts[k].rank, &ts[k].dims);
        }
        rn->outputs = ts;
        fl_sym b;
        const fl_cost k = fl__node_cost(n);
        if (fl__sym_add(c->st, k.bytes_read, k.bytes_written, &b) != FL_OK) {
            b = fl_sym_unknown();
        }
        rn->flops = quantity_shared(tc, ra, k.flops);
        rn->tfprof_flops = quantity_shared(tc, ra, k.tfprof_flops);
        rn->macs = quantity_shared(tc, ra, k.macs);
        rn->int_ops = quantity_shared(tc, ra, k.int_ops);
        rn->bytes = quantity_shared(tc, ra, b);
        rn->has_rule = k.has_rule;
        rn->incomplete = k.incomplete || k.trips_unknown;
    }
    fl__arena_scratch_free(c->a, tc);
    *out = nodes;
    *n_out = m;
    return ra->failed ? fl__diag_oom(c->d) : FL_OK;
}

fl_status fl__report_totals(fl_ctx *c, fl_arena *ra, const fl_cost_totals *t, fl_totals *out) {
    fl_sym bytes;
    fl_status st = fl__sym_add(c->st, t->bytes_read, t->bytes_written, &bytes);
    if (st == FL_EOVERFLOW) {
        char rs[64], ws[64];
        fl__sym_format(t->bytes_read, rs, sizeof rs);
        fl__sym_format(t->bytes_written, ws, sizeof ws);
        return fl__diag_fail(c->d, st,
                             "the graph's total bytes moved (read %s + written %s) overflows "
                             "64-bit integers",
                             rs, ws);
    }
    if (st != FL_OK) {
        return st == FL_ENOMEM ? fl__diag_oom(c->d) : st;
    }
    out->flops = quantity(ra, t->flops);
    out->tfprof_flops = quantity(ra, t->tfprof_flops);
    out->macs = quantity(ra, t->macs);
    out->int_ops = quantity(ra, t->int_ops);
    out->bytes = quantity(ra, bytes);
    out->bytes_read = quantity(ra, t->bytes_read);
    out->bytes_written = quantity(ra, t->bytes_written);
    out->nodes = reported_nodes(c->g, t);
    return FL_OK;
}

/* Whether constants of type `dt` count as parameters (fl_report.params). */
static bool is_param_dtype(fl_dtype dt) {
    switch (dt) {
    case FL_DT_INT32:
    case FL_DT_INT64:
    case FL_DT_UINT32:
    case FL_DT_UINT64:
    case FL_DT_QINT32:
    case FL_DT_BOOL:
    case FL_DT_STRING:
    case FL_DT_RESOURCE:
    case FL_DT_VARIANT:
    case FL_DT_INVALID:
        return false;
    default:
        return true;
    }
}

/* fl_report.params: the elements of the constant tensors of parameter
 * types (saturating at INT64_MAX). */
static int64_t count_params(const fl_graph *g) {
    int64_t total = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (n->kind != FL_OP_CONST || n->n_outputs < 1 ||
            !is_param_dtype(fl_dtype_base(n->outputs[0].dtype))) {
            continue;
        }
        const fl_shape *s = &n->outputs[0].shape;
        int64_t elems = s->rank >= 0 ? 1 : 0;
        for (int d = 0; d < s->rank && elems; d++) {
            if (!fl_sym_is_known(s->dims[d]) || s->dims[d].k < 0 ||
                (s->dims[d].k && elems > INT64_MAX / s->dims[d].k)) {
                elems = 0;
                break;
            }
            elems *= s->dims[d].k;
        }
        total = elems > INT64_MAX - total ? INT64_MAX : total + elems;
    }
    return total;
}

/* Whether a data or control edge reads n. */
static bool is_consumed(const fl_node *n) {
    bool consumed = n->n_ctrl_consumers > 0;
    for (int k = 0; k < n->n_outputs && !consumed; k++) {
        consumed = n->outputs[k].n_consumers > 0;
    }
    return consumed;
}

/* Graph info, inputs and outputs. */
static fl_status graph_info(fl_ctx *c, fl_arena *ra, const char *format, fl_report *r) {
    const fl_graph *g = c->g;
    r->format = format;
    r->producer = g->onnx.is_onnx ? 0 : g->producer; /* ONNX: g->producer is the opset */
    r->producer_name = g->onnx.producer_name ? fl__arena_strdup(ra, g->onnx.producer_name) : NULL;
    r->producer_version =
        g->onnx.producer_version ? fl__arena_strdup(ra, g->onnx.producer_version) : NULL;
    r->opset = g->onnx.opset;
    r->n_initializers = g->onnx.n_initializers;
    r->params = count_params(g);
    r->n_functions = (int64_t)g->n_funcs;
    for (size_t i = 0; i < g->n_funcs; i++) {
        r->n_function_nodes += g->funcs[i].n_nodes;
    }
    /* Counted first: the report's arrays take what they hold, not a slot
     * per node (8 MB on a 1M-node graph with one output). */
    size_t n_in = 0, n_out = g->onnx.n_outputs;
    for (size_t i = 0; i < g->n_nodes; i++) {
        n_in += g->nodes[i]->kind == FL_OP_PLACEHOLDER;
        n_out += !g->onnx.is_onnx && !is_consumed(g->nodes[i]);
    }
    fl_report_input *ins = fl__arena_calloc(ra, n_in + 1, sizeof(*ins));
    const char **outs = fl__arena_calloc(ra, n_out + 1, sizeof(char *));
    if (!ins || !outs) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (n->kind == FL_OP_PLACEHOLDER && n->n_outputs > 0) {
            fl_report_input *in = &ins[r->n_inputs++];
            in->name = fl__arena_strdup(ra, n->name);
            in->dtype = dtype_text(n->outputs[0].dtype);
            shape_fill(ra, &n->outputs[0].shape, &in->shape, &in->rank, &in->dims);
        }
        if (!g->onnx.is_onnx && !is_consumed(n)) {
            outs[r->n_outputs++] = fl__arena_strdup(ra, n->name);
        }
    }
    for (size_t i = 0; i < g->onnx.n_outputs; i++) {
        outs[r->n_outputs++] = fl__arena_strdup(ra, g->onnx.outputs[i]);
    }
    r->inputs = ins;
    r->outputs = outs;
    return FL_OK;
}

/* Totals, coverage, completeness and the free symbols. */
static fl_status totals_coverage(fl_ctx *c, fl_arena *ra, const fl_cost_totals *t, fl_report *r) {
    fl_status st = fl__report_totals(c, ra, t, &r->totals);
    if (st != FL_OK) {
        return st;
    }
    r->n_nodes = r->totals.nodes;
    r->nodes_with_rule = t->nodes_with_rule - (c->g->onnx.is_onnx ? t->nodes_values : 0);
    r->nodes_without_rule = t->nodes_without_rule;
    r->nodes_incomplete = t->nodes_incomplete;
    r->nodes_excluded = t->nodes_without_rule + t->nodes_incomplete;
    r->complete = r->nodes_excluded == 0;
    fl_sym bytes;
    st = fl__op_add(c, NULL, t->bytes_read, t->bytes_written, &bytes);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(bytes) && fl_sym_is_known(t->bytes_without_rule)) {
        r->bytes_share_without_rule =
            bytes.k ? (double)t->bytes_without_rule.k / (double)bytes.k : 0.0;
    } else {
        r->bytes_share_without_rule = -1;
    }
    sym_list sl = {ra, NULL, 0, 0};
    fl__sym_vars(t->flops, add_sym, &sl);
    fl__sym_vars(t->tfprof_flops, add_sym, &sl);
    fl__sym_vars(t->macs, add_sym, &sl);
    fl__sym_vars(t->int_ops, add_sym, &sl);
    fl__sym_vars(bytes, add_sym, &sl);
    r->symbols = sl.names;
    r->n_symbols = sl.n;
    return FL_OK;
}

/* The engine's warnings, after a summary of what the totals leave out. */
static fl_status warnings(fl_ctx *c, fl_arena *ra, const fl_cost_totals *t,
                          const fl_infer_result *ir, fl_report *r) {
    const char **w = fl__arena_calloc(ra, c->d->n_warnings + 4 + 1, sizeof(char *));
    if (!w) {
        return fl__diag_oom(c->d);
    }
    size_t nw = 0;
    if (r->n_unknown_ops) {
        w[nw++] = fl__arena_printf(ra,
                                   "%lld node(s) have op types foldline does not know; their "
                                   "outputs have unknown shapes and they count 0 FLOPs",
                                   (long long)ir->n_unknown_nodes);
    }
    if (t->nodes_incomplete > t->nodes_trips_unknown) {
        w[nw++] = fl__arena_printf(ra,
                                   "%lld node(s) have counts that depend on undetermined "
                                   "dimensions; the totals exclude them",
                                   (long long)(t->nodes_incomplete - t->nodes_trips_unknown));
    }
    if (t->nodes_trips_unknown) {
        w[nw++] = fl__arena_printf(ra,
                                   "%lld node(s) depend on trip counts the analysis cannot "
                                   "determine (a loop counted once, or a subgraph also run inside "
                                   "a loop): their counts in the totals are a lower bound",
                                   (long long)t->nodes_trips_unknown);
    }
    for (size_t i = 0; i < c->d->n_warnings; i++) {
        w[nw++] = fl__arena_strdup(ra, c->d->warnings[i]);
    }
    if (c->d->n_warnings_dropped) {
        w[nw++] = fl__arena_printf(ra, "%zu more warning(s) not shown", c->d->n_warnings_dropped);
    }
    r->warnings = w;
    r->n_warnings = nw;
    return FL_OK;
}

fl_status fl__report_build(fl_ctx *c, const fl_options *opt, const char *format,
                           const fl_cost_totals *t, const fl_infer_result *ir, fl_arena *ra,
                           fl_report *r) {
    fl_status st = graph_info(c, ra, format, r);
    if (st == FL_OK) {
        st = totals_coverage(c, ra, t, r);
    }
    if (st == FL_OK) {
        st = op_summary(c, ra, r);
    }
    if (st == FL_OK && opt->per_node) {
        st = fl__report_nodes(c, ra, &r->nodes, &r->n_nodes_detail);
    }
    if (st == FL_OK) {
        st = warnings(c, ra, t, ir, r);
    }
    if (st == FL_OK) {
        st = fl__report_options(c, opt, ra, r);
    }
    if (st == FL_OK && ra->failed) {
        st = fl__diag_oom(c->d);
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Options echo                                                               */
/* ------------------------------------------------------------------------- */

typedef struct fnv {
    uint64_t h;
} fnv;

static void fnv_bytes(fnv *f, const void *p, size_t n) {
    f->h = fl__hash_step(f->h, p, n);
}

/* A string with its terminator (NULL and "" differ). */
static void fnv_str(fnv *f, const char *s) {
    unsigned char absent = 0xff;
    if (s) {
        fnv_bytes(f, s, strlen(s) + 1);
    } else {
        fnv_bytes(f, &absent, 1);
    }
}

/* A double as its IEEE bits in little-endian order. */
static void fnv_double(fnv *f, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned char le[8];
    for (int i = 0; i < 8; i++) {
        le[i] = (unsigned char)(bits >> (8 * i));
    }
    fnv_bytes(f, le, sizeof le);
}

/* 16 hex digits of FNV-1a 64 over the profile's contents, in a fixed order:
 * name, kind, description, the peaks (unit-major, precision-minor; value
 * and source), the memory levels (name, bandwidth, capacity, source), the
 * overhead, per op class the efficiency factors and table (its key, then
 * each bucket's bound, factors, fixed cost and source), whether it is
 * calibrated, and the interval. */
static const char *profile_hash(fl_arena *ra, const fl_profile *p) {
    fnv f = {FL_HASH_INIT};
    fnv_str(&f, p->name);
    fnv_str(&f, p->kind);
    fnv_str(&f, p->description);
    for (int u = 0; u < FL_UNIT_COUNT; u++) {
        for (int d = 0; d < FL_PREC_COUNT; d++) {
            fnv_double(&f, p->peak[u][d].value);
            fnv_str(&f, p->peak[u][d].source);
        }
    }
    for (size_t i = 0; i < p->n_levels; i++) {
        fnv_str(&f, p->levels[i].name);
        fnv_double(&f, p->levels[i].bandwidth);
        fnv_double(&f, p->levels[i].capacity);
        fnv_str(&f, p->levels[i].source);
    }
    fnv_double(&f, p->overhead.value);
    fnv_str(&f, p->overhead.source);
    for (int k = 0; k < FL_CLASS_COUNT; k++) {
        fnv_double(&f, p->efficiency[k].compute);
        fnv_double(&f, p->efficiency[k].memory);
        fnv_str(&f, p->efficiency[k].source);
        const fl_eff_table *t = &p->table[k];
        fnv_double(&f, (double)t->by);
        fnv_double(&f, (double)t->n_buckets);
        for (size_t i = 0; i < t->n_buckets; i++) {
            fnv_double(&f, t->buckets[i].upto);
            fnv_double(&f, t->buckets[i].compute);
            fnv_double(&f, t->buckets[i].memory);
            fnv_double(&f, t->buckets[i].fixed_s);
            fnv_str(&f, t->buckets[i].source);
            fnv_double(&f, t->buckets[i].per_channel_s);
            fnv_double(&f, t->buckets[i].broadcast_s);
        }
    }
    fnv_double(&f, p->calibrated ? 1 : 0);
    fnv_double(&f, p->interval.low);
    fnv_double(&f, p->interval.high);
    fnv_double(&f, p->interval.coverage);
    fnv_str(&f, p->interval.source);
    return fl__arena_printf(ra, "%016" PRIx64, f.h);
}

static const char *const *strs_copy(fl_arena *ra, const char *const *v, size_t n) {
    const char **o = fl__arena_calloc(ra, n + 1, sizeof(char *));
    for (size_t i = 0; o && i < n; i++) {
        o[i] = fl__arena_strdup(ra, v[i] ? v[i] : "");
    }
    return o;
}

/* The pass selection: NULL = "none"; "default"/"all" = "default"; else the
 * comma list split into names. */
static void pass_selection(fl_arena *ra, const char *passes, fl_report_options *e) {
    e->passes = fl__arena_calloc(ra, 1, sizeof(char *));
    if (!passes || strcmp(passes, "none") == 0) {
        e->pass_selection = "none";
        return;
    }
    if (strcmp(passes, "default") == 0 || strcmp(passes, "all") == 0) {
        e->pass_selection = "default";
        return;
    }
    e->pass_selection = "list";
    size_t n = 1;
    for (const char *p = passes; *p; p++) {
        n += *p == ',';
    }
    const char **v = fl__arena_calloc(ra, n + 1, sizeof(char *));
    if (!v) {
        return;
    }
    const char *s = passes;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len) {
            v[e->n_passes++] = fl__arena_strndup(ra, s, len);
        }
        if (!end) {
            break;
        }
        s = end + 1;
    }
    e->passes = v;
}

static const char *format_name(fl_format f) {
    return f == FL_FORMAT_GRAPHDEF     ? "graphdef"
           : f == FL_FORMAT_SAVEDMODEL ? "savedmodel"
           : f == FL_FORMAT_ONNX       ? "onnx"
           : f == FL_FORMAT_TFJS       ? "tfjs"
           : f == FL_FORMAT_TFLITE     ? "tflite"
                                       : "auto";
}

/* The bindings as given, copied. */
static void bindings_copy(fl_arena *ra, const fl_options *opt, fl_report_options *e) {
    fl_input_binding *in = fl__arena_calloc(ra, opt->n_inputs + 1, sizeof(*in));
    fl_symbol_binding *sy = fl__arena_calloc(ra, opt->n_symbols + 1, sizeof(*sy));
    fl_value_binding *va = fl__arena_calloc(ra, opt->n_values + 1, sizeof(*va));
    if (!in || !sy || !va) {
        return;
    }
    for (size_t i = 0; i < opt->n_inputs; i++) {
        const fl_input_binding *b = &opt->inputs[i];
        int rank = b->rank > 0 ? b->rank : 0;
        int64_t *dims = fl__arena_calloc(ra, (size_t)rank + 1, sizeof(int64_t));
        if (dims && rank) {
            memcpy(dims, b->dims, (size_t)rank * sizeof(int64_t));
        }
        in[i].name = fl__arena_strdup(ra, b->name ? b->name : "");
        in[i].rank = rank;
        in[i].dims = dims;
    }
    for (size_t i = 0; i < opt->n_symbols; i++) {
        sy[i].name = fl__arena_strdup(ra, opt->symbols[i].name ? opt->symbols[i].name : "");
        sy[i].value = opt->symbols[i].value;
    }
    for (size_t i = 0; i < opt->n_values; i++) {
        va[i].name = fl__arena_strdup(ra, opt->values[i].name ? opt->values[i].name : "");
        va[i].value = opt->values[i].value;
    }
    e->inputs = in;
    e->n_inputs = opt->n_inputs;
    e->symbols = sy;
    e->n_symbols = opt->n_symbols;
    e->values = va;
    e->n_values = opt->n_values;
}

fl_status fl__report_options(fl_ctx *c, const fl_options *opt, fl_arena *ra, fl_report *r) {
    fl_report_options *e = &r->options;
    memset(e, 0, sizeof(*e));
    e->format = format_name(opt->format);
    e->saved_model_tag = opt->saved_model_tag ? fl__arena_strdup(ra, opt->saved_model_tag) : NULL;
    bindings_copy(ra, opt, e);
    pass_selection(ra, opt->passes, e);
    e->disabled_passes = strs_copy(ra, opt->disabled_passes, opt->n_disabled_passes);
    e->n_disabled_passes = opt->n_disabled_passes;
    e->output_names = strs_copy(ra, opt->output_names, opt->n_output_names);
    e->n_output_names = opt->n_output_names;
    e->device = opt->device == FL_DEVICE_GPU ? "gpu" : "cpu";
    e->remapper_mode = opt->remapper_mode == FL_REMAPPER_ONEDNN ? "onednn" : "standard";
    e->cudnn_persistent_batchnorm = opt->cudnn_persistent_batchnorm;
    e->max_nodes = opt->max_nodes;
    e->max_value_elements = opt->max_value_elements;
    e->max_memory_bytes = (int64_t)opt->max_memory_bytes;
    e->max_folded_bytes = opt->max_folded_bytes > 0 ? opt->max_folded_bytes : 100 * 1024;
    fl_report_profile *ps = fl__arena_calloc(ra, opt->n_profiles + 1, sizeof(*ps));
    if (!ps) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < opt->n_profiles; i++) {
        ps[i].name = fl__arena_strdup(ra, opt->profiles[i]->name);
        ps[i].hash = profile_hash(ra, opt->profiles[i]);
    }
    e->profiles = ps;
    e->n_profiles = opt->n_profiles;
    return ra->failed ? fl__diag_oom(c->d) : FL_OK;
}
