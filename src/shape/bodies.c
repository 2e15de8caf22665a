/*
 * bodies.c - the bodies of ONNX If, Loop and Scan, analysed and costed.
 *
 * When the graph's shapes are inferred, each If/Loop/Scan body is built as
 * a stand-alone model (src/import/onnx_body.c: its inputs typed from the
 * node's inputs, the outer-scope values it reads visible as initializers or
 * typed inputs), imported, inferred (bodies nested in it in turn, up to 8
 * levels) and costed, with the outer graph's symbol table: a dim that is
 * one symbol of the outer graph (a dim_param such as `batch`) is that same
 * symbol in the body, so the body's shapes and counts are in the outer
 * graph's terms. What the analysis gives is kept on the node, for its
 * hooks (src/ops/onnxops/control.c, where the rules are stated):
 *   _body_out   the analysed types of each body's outputs: the node's
 *               outputs are typed from them (not only from the types the
 *               bodies declare), and the graph is inferred again when
 *               that changes them (up to MAX_ROUNDS times; fewer in
 *               nested bodies);
 *   _body_cost  each body's FLOPs, MACs, int_ops, nodes and bytes read and
 *               written: the node's counts (If both branches, or the one
 *               a known cond chooses; Loop x M,
 *               Scan x the sequence length), its bytes are its own inputs'
 *               and outputs' plus its bodies';
 *   _body_key   a hash of the body models, so a body is analysed again only
 *               when what it sees changed.
 * A dim the outer graph gives as an expression (2*n, seq + past) is a
 * variable of its own in the body, "(2*n)", and that expression is
 * substituted back for it in the body's counts and output dims
 * (fl__sym_subst_syms), so they too are in the outer graph's symbols
 * (a body over [2*n,4] counts 8*n FLOPs for an Add, not "(2*n)"-many).
 * A body whose counts are not known numbers or expressions in the outer
 * graph's symbols (a dim the outer graph does not know becomes a symbol of
 * the body's own), or that fails to analyse, leaves the node incomplete,
 * with a warning saying why: never a silent zero. Warnings are given once,
 * when the rounds are over.
 *
 * Why ONNX bodies are costed here and not as TFLite's and TensorFlow's loop
 * bodies are (nodes of the graph whose counts src/cost/cost.c multiplies):
 * an ONNX body is a GraphProto attribute of its node, not part of the
 * graph; importing its nodes into the outer IR would have the ONNX writer
 * (src/export, `foldline optimize`) write them into the outer graph, and
 * the passes rewrite them as outer nodes. And ONNX counts are symbolic (a
 * Scan's length 8*n, a body over [batch,4]), where the repeat mechanism
 * multiplies by a known integer. A symbolic repeat count in cost.c would let
 * both share one mechanism.
 */
#include "cost/cost.h"
#include "graph/mutate.h"
#include "import/import.h"
#include "ops/common.h"
#include "ops/core/core.h"
#include "ops/onnxops/sequence.h"
#include "ops/onnxops/util.h"
#include "shape/infer.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH   8
#define MAX_BODIES  2
#define MAX_ROUNDS  4
#define BODY_FIELDS 7 /* per body in _body_cost: known, FLOPs, MACs, int_ops, nodes, rd, wr */

static _Thread_local int depth;

typedef struct body_totals {
    bool known;
    bool lower; /* known, but a loop in it has an unknown trip count (counted once) */
    fl_sym flops, macs, iops, rd, wr;
    int64_t nodes;
    const char *attr;
    char why[160];
    /* The body's outputs, as the outer graph sees them (dims in symbols of
     * the body's own: unknown). */
    int n_out;
    fl_tensor *outs;
} body_totals;

/* The symbols of the outer graph: those of its inputs' dims. */
typedef struct outer_syms {
    const char **v;
    size_t n, cap;
    fl_arena *a;
    bool oom, foreign;
} outer_syms;

static void add_sym(const char *name, void *arg) {
    outer_syms *o = arg;
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->v[i], name) == 0) {
            return;
        }
    }
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        const char **v = fl__arena_grow(o->a, o->v, o->n, cap, sizeof(*v));
        if (!v) {
            o->oom = true;
            return;
        }
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = name;
}

static void check_sym(const char *name, void *arg) {
    outer_syms *o = arg;
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->v[i], name) == 0) {
            return;
        }
    }
    o->foreign = true;
}

/* s in the outer graph's terms: the variables standing for the outer
 * graph's expression dims replaced by those expressions (dims), then s when
 * it is a number or an expression in the outer graph's symbols, else
 * unknown. */
static fl_status outer_only(outer_syms *o, const fl_onnx_body_dims *dims, fl_sym s, fl_sym *out) {
    *out = fl_sym_unknown();
    if (!fl_sym_is_symbolic(s)) {
        *out = s;
        return FL_OK;
    }
    if (dims && dims->n) {
        fl_status st = fl__sym_subst_syms(NULL, s, dims->n, dims->names, dims->values, &s);
        if (st == FL_ENOMEM) {
            return st;
        }
        if (st != FL_OK || !fl_sym_is_symbolic(s)) {
            *out = st == FL_OK ? s : fl_sym_unknown();
            return FL_OK;
        }
    }
    o->foreign = false;
    fl__sym_vars(s, check_sym, o);
    *out = o->foreign ? fl_sym_unknown() : s;
    return FL_OK;
}

/* The body graph's outputs (in order), their dims in the outer symbols. */
static fl_status body_outputs(fl_ctx *c, fl_graph *sg, outer_syms *os,
                              const fl_onnx_body_dims *dims, body_totals *b) {
    b->n_out = (int)sg->onnx.n_outputs;
    b->outs = fl__arena_calloc(c->a, sg->onnx.n_outputs + 1, sizeof(fl_tensor));
    fl_onnx_values *vals = b->outs ? fl__onnx_values_new(sg, c->d) : NULL;
    if (!vals) {
        return fl__diag_oom(c->d);
    }
    fl_status st = FL_OK;
    for (size_t i = 0; i < sg->onnx.n_outputs && st == FL_OK; i++) {
        const fl_node *o;
        int port;
        fl_tensor *t = &b->outs[i];
        t->shape.rank = -1;
        if (!fl__onnx_values_find(vals, sg->onnx.outputs[i], &o, &port) || port >= o->n_outputs) {
            continue;
        }
        const fl_tensor *src = &o->outputs[port];
        t->dtype = src->dtype;
        t->shape.rank = src->shape.rank;
        if (src->shape.rank > 0) {
            fl_sym *d = fl__arena_calloc(c->a, (size_t)src->shape.rank, sizeof(fl_sym));
            if (!d) {
                st = fl__diag_oom(c->d);
                break;
            }
            for (int k = 0; k < src->shape.rank && st == FL_OK; k++) {
                st = outer_only(os, dims, src->shape.dims[k], &d[k]);
            }
            if (st != FL_OK) {
                st = fl__diag_oom(c->d);
                break;
            }
            t->shape.dims = d;
        }
    }
    fl__onnx_values_free(vals);
    return st;
}

/* Imports, infers and costs one body model, with the outer symbol table.
 * Fails only on what must stop the whole analysis (memory, limits,
 * cancellation); a body that does not analyse is `known` false with the
 * reason in why. */
static fl_status analyse(fl_ctx *c, const fl_options *opt, outer_syms *os, const uint8_t *buf,
                         size_t len, const fl_onnx_body_dims *dims, body_totals *b) {
    for (size_t i = 0; dims && i < dims->n; i++) {
        os->foreign = false;
        check_sym(dims->names[i], os);
        if (!os->foreign) {
            snprintf(b->why, sizeof b->why,
                     "the name '%s' it gives an expression dim is a dim name of the graph",
                     dims->names[i]);
            return FL_OK;
        }
    }
    fl_graph *sg = fl__graph_new(c->a);
    if (!sg) {
        return fl__diag_oom(c->d);
    }
    sg->syms = c->st;
    fl_diag d2;
    fl__diag_init(&d2, c->a);
    d2.stop = c->d->stop;
    d2.stop_arg = c->d->stop_arg;
    d2.request_names = c->d->request_names; /* the caller's wording of options */
    fl_ctx c2 = {sg, c->st, c->a, &d2, c->max_value_elems};
    fl_import_opts io = {opt->max_nodes, opt->max_value_elements, NULL};
    fl_options o2 = *opt;
    o2.inputs = NULL;
    o2.n_inputs = 0;
    o2.symbols = NULL;
    o2.n_symbols = 0;
    o2.values = NULL;
    o2.n_values = 0;
    o2.tensor_values = NULL;
    o2.n_tensor_values = 0;
    fl_infer_result ir = {0, 0};
    fl_cost_totals t;
    fl_status st = fl__import_onnx(sg, buf, len, &io, &d2);
    if (st == FL_OK) {
        st = fl__graph_toposort(sg, &d2);
    }
    if (st == FL_OK) {
        st = fl__infer_shapes(&c2, &o2, &ir);
    }
    if (st == FL_OK) {
        st = fl__cost_graph(&c2, &t);
    }
    if (st == FL_ENOMEM || st == FL_ECANCELED || st == FL_ELIMIT) {
        return fl__diag_fail(c->d, st, "%s", d2.msg ? d2.msg : fl_status_str(st));
    }
    if (st != FL_OK) {
        snprintf(b->why, sizeof b->why, "it does not analyse: %s",
                 d2.msg ? d2.msg : fl_status_str(st));
        return FL_OK;
    }
    if ((st = body_outputs(c, sg, os, dims, b)) != FL_OK) {
        return st;
    }
    b->nodes = t.nodes_with_rule + t.nodes_without_rule + t.nodes_trips_unknown - t.nodes_values;
    fl_sym *f[] = {&t.flops, &t.macs, &t.int_ops, &t.bytes_read, &t.bytes_written};
    bool known = t.nodes_incomplete == t.nodes_trips_unknown;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (outer_only(os, dims, *f[i], f[i]) != FL_OK) {
            return fl__diag_oom(c->d);
        }
        known = known && !fl_sym_is_unknown(*f[i]);
    }
    if (!known) {
        snprintf(b->why, sizeof b->why,
                 "%lld of its nodes have counts that depend on dims it does not know",
                 (long long)(t.nodes_incomplete ? t.nodes_incomplete - t.nodes_trips_unknown : 1));
        return FL_OK;
    }
    b->known = true;
    b->lower = t.nodes_trips_unknown > 0;
    b->flops = t.flops;
    b->macs = t.macs;
    b->iops = t.int_ops;
    b->rd = t.bytes_read;
    b->wr = t.bytes_written;
    return FL_OK;
}

/* Whether Loop n's M (input 0) counts its trips (control.c's rule: a
 * value, known and not negative or symbolic, or an integer scalar input's
 * symbol). */
static bool counted_m(fl_ctx *c, const fl_node *n) {
    fl_sym m = fl_sym_unknown();
    if (n->n_inputs < 1 || fl_node_in(n, 0)->dtype == FL_DT_INVALID ||
        n->inputs[0].node->kind == FL_OP_ONNX_ABSENT || fl__count_value(c, n, 0, &m) != FL_OK) {
        return false;
    }
    return !fl_sym_is_unknown(m) && !(fl_sym_is_known(m) && m.k < 0);
}

/* s as text in buf, ending "..." when it does not fit. */
static void format_count(fl_sym s, char *buf, size_t size) {
    if (fl__sym_format(s, buf, size) >= size && size > 4) {
        memcpy(buf + size - 4, "...", 4);
    }
}

/* The warning about n's counts (*text empty: none). */
static void count_warning(fl_ctx *c, const fl_node *n, const body_totals *b, size_t nb, char *out,
                          size_t size) {
    char text[1200];
    size_t w = 0;
    *out = '\0';
    for (size_t i = 0; i < nb && w < sizeof text; i++) {
        /* a count in symbols can be long (a formula of floors) */
        char f[256], m[256], io[64];
        format_count(b[i].flops, f, sizeof f);
        format_count(b[i].macs, m, sizeof m);
        format_count(b[i].iops, io, sizeof io);
        w += (size_t)snprintf(text + w, sizeof text - w,
                              "%s%s %s FLOPs, %s MACs, %s integer ops over %lld node(s)",
                              i ? "; " : "", b[i].attr, f, m, io, (long long)b[i].nodes);
    }
    if (n->kind == FL_OP_ONNX_IF) {
        snprintf(out, size, "the totals count both branches, though one runs: %s", text);
        return;
    }
    if (n->kind == FL_OP_ONNX_LOOP && !counted_m(c, n)) {
        snprintf(out, size,
                 "the trip count is unknown (input 0, M, has no value the analysis knows): the "
                 "body is counted once, so the Loop is incomplete, the answer partial and the "
                 "totals a lower bound (%s)",
                 text);
        return;
    }
    if (n->kind == FL_OP_ONNX_SCAN) {
        const fl_attr *ns = fl__node_attr(n, "num_scan_inputs");
        int64_t k = ns && ns->kind == FL_ATTR_I ? ns->v.i : 0;
        int first = n->n_inputs - (int)k;
        const fl_attr *ax = fl__node_attr(n, "scan_input_axes");
        int64_t axis = ax && ax->kind == FL_ATTR_LIST && ax->n ? ax->v.list.i[0] : 0;
        const fl_shape *s = k > 0 && first >= 0 ? &fl_node_in(n, first)->shape : NULL;
        if (s && s->rank > 0 && axis < 0) {
            axis += s->rank;
        }
        if (!s || s->rank <= 0 || axis < 0 || axis >= s->rank || fl_sym_is_unknown(s->dims[axis])) {
            snprintf(out, size,
                     "the sequence length is unknown: the body is counted once, so the Scan is "
                     "incomplete, the answer partial and the totals a lower bound (%s)",
                     text);
        }
    }
}

/* A tensor attr holding `n` symbolic integers (the hooks read them). */
static fl_status set_syms(fl_ctx *c, fl_node *n, const char *name, const fl_sym *v, int64_t len) {
    fl_value *val = fl__value_new(c->a, FL_DT_INT64, 1, &len);
    if (!val) {
        return fl__diag_oom(c->d);
    }
    memcpy((fl_sym *)val->ints, v, (size_t)len * sizeof(fl_sym));
    fl_attr a = fl__attr_make_tensor(c->g, name, FL_DT_INT64, 1, &len, val);
    if (!a.name || !a.v.tensor) {
        return fl__diag_oom(c->d);
    }
    return fl__node_set_attr(c->g, n, &a);
}

/* Attrs _body_cost and _body_out from the analysed bodies. */
static fl_status keep_results(fl_ctx *c, fl_node *n, const body_totals *b, size_t nb) {
    fl_sym v[1 + BODY_FIELDS * MAX_BODIES];
    v[0] = fl_sym_const((int64_t)nb);
    int64_t len = 1;
    for (size_t i = 0; i < nb; i++) {
        fl_sym *e = &v[1 + BODY_FIELDS * i];
        e[0] = fl_sym_const(!b[i].known ? 0 : b[i].lower ? 2 : 1); /* control.c reads 2 */
        e[1] = b[i].known ? b[i].flops : fl_sym_const(0);
        e[2] = b[i].known ? b[i].macs : fl_sym_const(0);
        e[3] = b[i].known ? b[i].iops : fl_sym_const(0);
        e[4] = fl_sym_const(b[i].nodes);
        e[5] = b[i].known ? b[i].rd : fl_sym_const(0);
        e[6] = b[i].known ? b[i].wr : fl_sym_const(0);
    }
    fl_status st = set_syms(c, n, "_body_cost", v, 1 + BODY_FIELDS * (int64_t)nb);
    for (size_t i = 0; i < nb; i++) {
        for (int k = 0; k < b[i].n_out; k++) {
            len += 2 + (b[i].outs[k].shape.rank > 0 ? b[i].outs[k].shape.rank : 0);
        }
        len++;
    }
    fl_sym *o = st == FL_OK ? fl__arena_calloc(c->a, (size_t)len, sizeof(fl_sym)) : NULL;
    if (st != FL_OK || !o) {
        return st != FL_OK ? st : fl__diag_oom(c->d);
    }
    size_t at = 0;
    o[at++] = fl_sym_const((int64_t)nb);
    for (size_t i = 0; i < nb; i++) {
        o[at++] = fl_sym_const(b[i].n_out);
        for (int k = 0; k < b[i].n_out; k++) {
            const fl_tensor *t = &b[i].outs[k];
            o[at++] = fl_sym_const(t->dtype);
            o[at++] = fl_sym_const(t->shape.rank);
            for (int j = 0; j < t->shape.rank; j++) {
                o[at++] = t->shape.dims[j];
            }
        }
    }
    return set_syms(c, n, "_body_out", o, len);
}

/* The warnings about n's bodies, kept until the rounds are over. */
static fl_status keep_warnings(fl_ctx *c, fl_node *n, const body_totals *b, size_t nb) {
    const char *w[2 * MAX_BODIES + 1] = {0};
    int64_t of[2 * MAX_BODIES + 1] = {0}; /* the body each is about; -1 all of them */
    size_t nw = 0;
    bool all = nb > 0;
    char text[2 * MAX_BODIES + 1][1400];
    for (size_t i = 0; i < nb; i++) {
        if (!b[i].known) {
            all = false;
            snprintf(text[nw], sizeof text[nw], "its %s is not counted: %s", b[i].attr, b[i].why);
            w[nw] = text[nw];
            of[nw++] = (int64_t)i;
        } else if (b[i].lower) {
            snprintf(text[nw], sizeof text[nw],
                     "its %s has a loop whose trip count is unknown, counted once, so the node "
                     "is incomplete, the answer partial and the totals a lower bound",
                     b[i].attr);
            w[nw] = text[nw];
            of[nw++] = (int64_t)i;
        }
    }
    if (all) {
        count_warning(c, n, b, nb, text[nw], sizeof text[nw]);
        if (text[nw][0]) {
            w[nw] = text[nw];
            of[nw++] = -1;
        }
    }
    fl_attr a = fl__attr_make_strs(c->g, "_body_warn", nw, w);
    if (!a.name || (nw && !a.v.list.s)) {
        return fl__diag_oom(c->d);
    }
    fl_status st = fl__node_set_attr(c->g, n, &a);
    fl_attr o = st == FL_OK ? fl__attr_make_ints(c->g, "_body_warn_of", nw, of) : a;
    if (st == FL_OK && (!o.name || (nw && !o.v.list.i))) {
        return fl__diag_oom(c->d);
    }
    return st == FL_OK ? fl__node_set_attr(c->g, n, &o) : st;
}

static bool same_types(const fl_tensor *a, const fl_tensor *b, int n) {
    for (int k = 0; k < n; k++) {
        if (a[k].dtype != b[k].dtype || a[k].shape.rank != b[k].shape.rank) {
            return false;
        }
        for (int j = 0; j < a[k].shape.rank; j++) {
            if (!fl__sym_eq(a[k].shape.dims[j], b[k].shape.dims[j]) &&
                !(fl_sym_is_unknown(a[k].shape.dims[j]) && fl_sym_is_unknown(b[k].shape.dims[j]))) {
                return false;
            }
        }
    }
    return true;
}

/* The packed models of n's bodies (nb of them; a body that cannot be built
 * has why set) and their key. */
typedef struct body_models {
    uint8_t *buf[MAX_BODIES];
    size_t len[MAX_BODIES];
    fl_onnx_body_dims dims[MAX_BODIES]; /* the expression dims each body gets */
    size_t nb;
    uint64_t key;
} body_models;

/* An outer sequence a body reads, as the sequence rules know it
 * (fl__ox_seq_describe): its elements' dtype and the shape they all have
 * (listed elements merged: a dim where they differ is unknown). A rule's
 * failure is not the body's: the value is then passed undescribed. */
static bool describe_outer_seq(void *ctx, const fl_node *o, int port, int *dtype, fl_shape *elem) {
    fl_ctx *c = ctx;
    if (port != 0) {
        return false;
    }
    fl_ox_seq q;
    fl_diag d2, *d = c->d;
    fl__diag_init(&d2, c->a);
    c->d = &d2;
    fl_status st = fl__ox_seq_describe(c, o, &q);
    c->d = d;
    if (st != FL_OK || !q.known || q.dtype == FL_DT_INVALID || q.n == 0) {
        return false;
    }
    fl_ox_seq_elem u = q.n > 0 ? q.e[0] : q.uni;
    for (int i = 1; i < q.n && u.rank >= 0; i++) {
        if (q.e[i].rank != u.rank) {
            u.rank = -1;
            break;
        }
        for (int k = 0; k < u.rank; k++) {
            if (!fl__sym_eq(q.e[i].d[k], u.d[k])) {
                u.d[k] = fl_sym_unknown();
            }
        }
    }
    elem->rank = u.rank;
    elem->dims = NULL;
    if (u.rank > 0) {
        fl_sym *dims = fl__arena_calloc(c->a, (size_t)u.rank, sizeof(fl_sym));
        if (!dims) {
            return false;
        }
        memcpy(dims, u.d, (size_t)u.rank * sizeof(fl_sym));
        elem->dims = dims;
    }
    *dtype = q.dtype;
    return true;
}

static fl_status build_models(fl_ctx *c, const fl_onnx_values *vals, fl_node *n, body_totals *b,
                              body_models *m) {
    memset(m, 0, sizeof *m);
    m->key = FL_HASH_INIT;
    for (int which = 0; which < MAX_BODIES; which++) {
        fl_diag d2;
        fl__diag_init(&d2, c->a);
        d2.request_names = c->d->request_names;
        fl_onnx_outer_seq seqs = {describe_outer_seq, c};
        fl_status st = fl__onnx_body_model(c->g, vals, n, which, &b[m->nb].attr, &m->buf[m->nb],
                                           &m->len[m->nb], &m->dims[m->nb], &seqs, &d2);
        if (st == FL_ENOTFOUND) {
            break;
        }
        if (st == FL_ENOMEM) {
            return fl__diag_oom(c->d);
        }
        if (st != FL_OK) {
            snprintf(b[m->nb].why, sizeof b[m->nb].why, "%s", d2.msg ? d2.msg : fl_status_str(st));
        }
        uint8_t tag = (uint8_t)(st == FL_OK ? 1 + which : 0x80);
        m->key = fl__hash_step(fl__hash_step(m->key, &tag, 1), m->buf[m->nb], m->len[m->nb]);
        m->nb++;
    }
    return FL_OK;
}

/* Analyses n's bodies when what they see changed since the last time (attr
 * _body_key), keeps what they give on n (see the header) and infers n
 * again from it; *changed when n's outputs changed. */
static fl_status cost_bodies(fl_ctx *c, const fl_options *opt, const fl_onnx_values *vals,
                             outer_syms *os, fl_node *n, bool *changed, bool *analysed) {
    body_totals b[MAX_BODIES];
    memset(b, 0, sizeof b);
    body_models m;
    fl_status st = build_models(c, vals, n, b, &m);
    const fl_attr *key = fl__node_attr(n, "_body_key");
    bool seen = key && key->kind == FL_ATTR_I && (uint64_t)key->v.i == m.key &&
                fl__node_attr(n, "_body_cost");
    if (st == FL_OK && !seen) {
        *analysed = true;
        for (size_t i = 0; i < m.nb && st == FL_OK; i++) {
            if (!b[i].why[0]) {
                st = analyse(c, opt, os, m.buf[i], m.len[i], &m.dims[i], &b[i]);
            }
        }
        fl_attr ka = fl__attr_make_int(c->g, "_body_key", (int64_t)m.key);
        if (st == FL_OK) {
            st = ka.name ? fl__node_set_attr(c->g, n, &ka) : fl__diag_oom(c->d);
        }
        if (st == FL_OK) {
            st = keep_results(c, n, b, m.nb);
        }
        if (st == FL_OK) {
            st = keep_warnings(c, n, b, m.nb);
        }
        fl_tensor *before =
            st == FL_OK ? fl__arena_calloc(c->a, (size_t)n->n_outputs + 1, sizeof(fl_tensor))
                        : NULL;
        if (st == FL_OK && !before) {
            st = fl__diag_oom(c->d);
        }
        if (st == FL_OK) {
            memcpy(before, n->outputs, (size_t)n->n_outputs * sizeof(fl_tensor));
            st = fl__infer_node_again(c, n);
        }
        if (st == FL_OK && !same_types(before, n->outputs, n->n_outputs)) {
            *changed = true;
        }
    }
    for (size_t i = 0; i < MAX_BODIES; i++) {
        fl__arena_scratch_free(c->g->arena, m.buf[i]);
        fl__onnx_body_dims_free(c->g, &m.dims[i]);
    }
    return st;
}

/* Gives the warnings kept on n once per analysis of its bodies: of an If
 * whose cond is known, only those about the branch that runs (what the
 * count is, control.c's cost_flow). */
static fl_status give_warnings(fl_ctx *c, fl_node *n) {
    const fl_attr *w = fl__node_attr(n, "_body_warn"), *key = fl__node_attr(n, "_body_key");
    const fl_attr *done = fl__node_attr(n, "_body_warned"), *of = fl__node_attr(n, "_body_warn_of");
    if (!w || !key || w->kind != FL_ATTR_LIST || key->kind != FL_ATTR_I ||
        (done && done->kind == FL_ATTR_I && done->v.i == key->v.i)) {
        return FL_OK;
    }
    bool cond;
    int64_t only = n->kind == FL_OP_ONNX_IF && fl__ox_known_bool(n, 0, &cond) ? !cond : -1;
    bool tagged = of && of->kind == FL_ATTR_LIST && of->n == w->n &&
                  (of->n == 0 || of->list_kind == FL_ATTR_I);
    for (size_t i = 0; i < w->n && w->list_kind == FL_ATTR_S; i++) {
        if (only >= 0 && tagged && of->v.list.i[i] != only) {
            continue;
        }
        fl__node_warn(c->d, n, "%s", w->v.list.s[i].p);
    }
    fl_attr a = fl__attr_make_int(c->g, "_body_warned", key->v.i);
    return a.name ? fl__node_set_attr(c->g, n, &a) : fl__diag_oom(c->d);
}

static bool is_flow(const fl_graph *g, const fl_node *n) {
    return n->kind == FL_OP_ONNX_IF || n->kind == FL_OP_ONNX_LOOP ||
           (n->kind == FL_OP_ONNX_SCAN && g->producer >= 9);
}

/* Infers n again when the producer of one of its inputs is marked in
 * `dirty` (NULL: none is), and marks n: see all_bodies. */
static fl_status follow(fl_ctx *c, fl_node *n, uint8_t *dirty) {
    for (int k = 0; dirty && k < n->n_inputs; k++) {
        const fl_node *p = n->inputs[k].node;
        if (p && dirty[p->id]) {
            dirty[n->id] = 1;
            if (fl__infer_makes_symbols(n)) {
                return FL_OK; /* the whole inference infers it, in the next round */
            }
            fl__graph_journal_save(c->g, n);
            return fl__infer_node_again(c, n);
        }
    }
    return FL_OK;
}

/* Analyses (when what they see changed) the bodies of every control-flow
 * node of c->g, in order; *changed when a node's outputs changed. In
 * `redo` (may be NULL), marks each node whose bodies were analysed again.
 * Once a node's outputs changed, every node downstream of it is inferred
 * again as the walk reaches it (`dirty` marks them), so a control-flow
 * node after it sees its inputs as they are now: a chain of If nodes, each
 * reading what the one before gives, resolves in one round, not in one
 * round a link (the rounds are bounded: fl__infer_onnx_bodies). The round
 * that follows a change infers the whole graph again as usual. */
static fl_status all_bodies(fl_ctx *c, const fl_options *opt, uint8_t *redo, bool *changed) {
    fl_status st = FL_OK;
    fl_onnx_values *vals = NULL;
    outer_syms os = {NULL, 0, 0, c->a, false, false};
    uint8_t *dirty = NULL;
    for (size_t i = 0; i < c->g->n_nodes && st == FL_OK; i++) {
        fl_node *n = c->g->order ? c->g->order[i] : c->g->nodes[i];
        if ((st = follow(c, n, dirty)) != FL_OK || !is_flow(c->g, n)) {
            continue;
        }
        /* The outer graph's value names and symbols, once for all bodies. */
        if (!vals) {
            for (size_t j = 0; j < c->g->n_nodes; j++) {
                const fl_node *p = c->g->nodes[j];
                for (int k = 0; p->kind == FL_OP_PLACEHOLDER && k < p->n_outputs; k++) {
                    for (int d = 0; d < p->outputs[k].shape.rank; d++) {
                        fl__sym_vars(p->outputs[k].shape.dims[d], add_sym, &os);
                    }
                }
            }
            if (os.oom || !(vals = fl__onnx_values_new(c->g, c->d))) {
                st = fl__diag_oom(c->d);
                break;
            }
        }
        bool analysed = false, differs = false;
        fl__graph_journal_save(c->g, n); /* a rollback restores what is written here */
        st = cost_bodies(c, opt, vals, &os, n, &differs, &analysed);
        if (redo && analysed) {
            redo[n->id] = 1;
        }
        if (st == FL_OK && differs) {
            *changed = true;
            if (!dirty && !(dirty = calloc(c->g->n_nodes + 1, 1))) {
                st = fl__diag_oom(c->d);
                break;
            }
            dirty[n->id] = 1;
        }
    }
    free(dirty);
    fl__onnx_values_free(vals);
    return st;
}

fl_status fl__refresh_onnx_bodies(fl_ctx *c, const fl_options *opt, uint8_t *redo, bool *whole) {
    *whole = false;
    if (!c->g->onnx.is_onnx || depth >= MAX_DEPTH) {
        return FL_OK;
    }
    depth++;
    bool changed = false;
    fl_status st = all_bodies(c, opt, redo, &changed);
    depth--;
    *whole = changed;
    return st;
}

fl_status fl__infer_onnx_bodies(fl_ctx *c, const fl_options *opt, int round, bool *again) {
    *again = false;
    if (!c->g->onnx.is_onnx) {
        return FL_OK;
    }
    if (depth >= MAX_DEPTH) {
        fl__diag_warn(c->d, "control-flow bodies nested deeper than %d levels are not counted",
                      MAX_DEPTH);
        return FL_OK;
    }
    depth++;
    bool changed = false;
    fl_status st = all_bodies(c, opt, NULL, &changed);
    depth--;
    /* Rounds: MAX_ROUNDS for the model's graph, 2 for bodies one or two
     * levels in, none deeper, so nested bodies cost at most 16 analyses
     * each (not MAX_ROUNDS to the power of the depth). */
    int rounds = depth == 0 ? MAX_ROUNDS : depth < 3 ? 2 : 1;
    if (st == FL_OK && changed && round + 1 < rounds) {
        *again = true;
        return FL_OK;
    }
    for (size_t i = 0; i < c->g->n_nodes && st == FL_OK; i++) {
        if (is_flow(c->g, c->g->nodes[i])) {
            st = give_warnings(c, c->g->nodes[i]);
        }
    }
    return st;
}
