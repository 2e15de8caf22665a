/*
 * analyze.c - the public entry point: import, infer, cost, report.
 *
 * The analysis runs in one arena that is released before returning; the
 * report is copied into its own arena (the report_mem the report heads) so
 * that it outlives the IR and can be handed to another thread.
 */
#include "cost/cost.h"
#include "cost/roofline.h"
#include "export/graphdef_write.h"
#include "foldline/foldline.h"
#include "import/import.h"
#include "ops/common.h"
#include "passes/pipeline.h"
#include "shape/infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fl_version(void) {
    return FL_VERSION_STRING;
}

int fl_version_number(void) {
    return FL_VERSION_NUMBER;
}

void fl_options_init_size(fl_options *o, size_t size) {
    fl_options d;
    memset(&d, 0, sizeof d);
    d.format = FL_FORMAT_AUTO;
    d.max_nodes = 5000000;
    d.max_value_elements = 1 << 20;
    d.max_memory_bytes = (size_t)8 << 30;
    d.size = size < sizeof d ? size : sizeof d;
    memcpy(o, &d, d.size);
}

/* The caller's options as this library's fl_options: the fields it has (by
 * its `size`; 0 = a zeroed struct of this version) and defaults for those
 * it was compiled without. */
static void options_in(const fl_options *in, fl_options *out) {
    fl_options_init(out);
    if (in) {
        size_t n = in->size && in->size < sizeof *out ? in->size : sizeof *out;
        memcpy(out, in, n);
        out->size = sizeof *out;
    }
}

/* A report and the arena holding everything it points to; fl_report_free
 * finds the arena from the report (its first member). */
typedef struct report_mem {
    fl_report report;
    fl_arena arena;
} report_mem;

static fl_arena *report_arena(fl_report *r) {
    return &((report_mem *)r)->arena;
}

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

static const char *shape_text(fl_arena *ra, const fl_shape *s) {
    if (s->rank < 0) {
        return "?";
    }
    /* Every failure here marks the report arena failed: fl_analyze then
     * fails with FL_ENOMEM instead of answering with a "?" shape. */
    size_t cap = 64, len = 0;
    char *buf = fl__alloc_should_fail() ? NULL : malloc(cap);
    if (!buf) {
        ra->failed = true;
        return "?";
    }
    buf[len++] = '[';
    for (int i = 0; i < s->rank; i++) {
        char tmp[256];
        size_t need = fl__sym_format(s->dims[i], tmp, sizeof tmp);
        char *piece = tmp;
        char *heap = NULL;
        if (need >= sizeof tmp) {
            heap = malloc(need + 1);
            if (!heap) {
                free(buf);
                ra->failed = true;
                return "?";
            }
            fl__sym_format(s->dims[i], heap, need + 1);
            piece = heap;
        }
        size_t pl = strlen(piece);
        if (len + pl + 4 > cap) {
            while (len + pl + 4 > cap) {
                cap *= 2;
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(heap);
                free(buf);
                ra->failed = true;
                return "?";
            }
            buf = nb;
        }
        if (i) {
            buf[len++] = ',';
        }
        memcpy(buf + len, piece, pl);
        len += pl;
        free(heap);
    }
    buf[len++] = ']';
    buf[len] = '\0';
    char *r = fl__arena_strndup(ra, buf, len);
    free(buf);
    return r ? r : "?";
}

static const char *dtype_text(int dt) {
    return dt == FL_DT_INVALID ? "unknown" : fl__dtype_name(dt);
}

/* ------------------------------------------------------------------------- */
/* Per-op summary                                                             */
/* ------------------------------------------------------------------------- */

typedef struct op_acc {
    const char *op;
    int64_t count;
    fl_sym flops, tfprof;
    double sort_key; /* flops with symbols at 1, for ordering */
} op_acc;

static int op_cmp(const void *pa, const void *pb) {
    const op_acc *a = pa, *b = pb;
    if (a->sort_key != b->sort_key) {
        return a->sort_key < b->sort_key ? 1 : -1;
    }
    return strcmp(a->op, b->op);
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
    if (copy) { /* out of memory: the report's arena says so afterwards */
        l->names[l->n++] = copy;
    }
}

/* ------------------------------------------------------------------------- */
/* Report                                                                     */
/* ------------------------------------------------------------------------- */

static fl_report *report_new(void) {
    report_mem *m = calloc(1, sizeof(*m));
    if (!m) {
        return NULL;
    }
    fl__arena_init(&m->arena, 0);
    return &m->report;
}

void fl_report_free(fl_report *r) {
    if (!r) {
        return;
    }
    report_mem *m = (report_mem *)r;
    fl__arena_free(&m->arena);
    free(m);
}

/* Every node of c->g with its shapes and counts, in graph order. */
static fl_status node_list(fl_ctx *c, fl_arena *ra, const fl_report_node **out, size_t *n_out) {
    fl_graph *g = c->g;
    fl_report_node *nodes = fl__arena_calloc(ra, g->n_nodes + 1, sizeof(*nodes));
    if (!nodes) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        fl_report_node *rn = &nodes[i];
        rn->name = fl__arena_strdup(ra, n->name);
        rn->op = fl__arena_strdup(ra, n->op);
        rn->n_outputs = (size_t)n->n_outputs;
        fl_report_tensor *ts = fl__arena_calloc(ra, rn->n_outputs + 1, sizeof(*ts));
        if (!ts) {
            return fl__diag_oom(c->d);
        }
        for (int k = 0; k < n->n_outputs; k++) {
            ts[k].dtype = dtype_text(n->outputs[k].dtype);
            ts[k].shape = shape_text(ra, &n->outputs[k].shape);
        }
        rn->outputs = ts;
        fl_sym b;
        if (fl__sym_add(c->st, n->cost.bytes_read, n->cost.bytes_written, &b) != FL_OK) {
            b = fl_sym_unknown();
        }
        rn->flops = quantity(ra, n->cost.flops);
        rn->tfprof_flops = quantity(ra, n->cost.tfprof_flops);
        rn->macs = quantity(ra, n->cost.macs);
        rn->bytes = quantity(ra, b);
        rn->has_rule = n->cost.has_rule;
        rn->incomplete = n->cost.incomplete;
    }
    *out = nodes;
    *n_out = g->n_nodes;
    return FL_OK;
}

/* Cost totals as report quantities; `nodes` is the graph's node count. */
static fl_status fill_totals(fl_ctx *c, fl_arena *ra, const fl_cost_totals *t, int64_t nodes,
                             fl_totals *out) {
    fl_sym bytes;
    fl_status st = fl__op_add(c, NULL, t->bytes_read, t->bytes_written, &bytes);
    if (st != FL_OK) {
        return st;
    }
    out->flops = quantity(ra, t->flops);
    out->tfprof_flops = quantity(ra, t->tfprof_flops);
    out->macs = quantity(ra, t->macs);
    out->bytes = quantity(ra, bytes);
    out->bytes_read = quantity(ra, t->bytes_read);
    out->bytes_written = quantity(ra, t->bytes_written);
    out->nodes = nodes;
    return FL_OK;
}

static fl_status build_report(fl_ctx *c, const fl_options *opt, const char *format,
                              const fl_cost_totals *t, const fl_infer_result *ir, fl_report *r) {
    fl_arena *ra = report_arena(r);
    fl_graph *g = c->g;
    r->format = format;
    r->producer = g->producer;
    r->n_nodes = (int64_t)g->n_nodes;
    r->n_functions = (int64_t)g->n_funcs;
    for (size_t i = 0; i < g->n_funcs; i++) {
        r->n_function_nodes += g->funcs[i].n_nodes;
    }

    /* Inputs and outputs. */
    size_t n_in = 0, n_out = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (n->kind == FL_OP_PLACEHOLDER) {
            n_in++;
        }
        bool consumed = n->n_ctrl_consumers > 0;
        for (int k = 0; k < n->n_outputs && !consumed; k++) {
            consumed = n->outputs[k].n_consumers > 0;
        }
        if (!consumed) {
            n_out++;
        }
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
            in->shape = shape_text(ra, &n->outputs[0].shape);
        }
        bool consumed = n->n_ctrl_consumers > 0;
        for (int k = 0; k < n->n_outputs && !consumed; k++) {
            consumed = n->outputs[k].n_consumers > 0;
        }
        if (!consumed) {
            outs[r->n_outputs++] = fl__arena_strdup(ra, n->name);
        }
    }
    r->inputs = ins;
    r->outputs = outs;

    /* Totals. */
    fl_sym bytes;
    fl_status st = fl__op_add(c, NULL, t->bytes_read, t->bytes_written, &bytes);
    if (st != FL_OK) {
        return st;
    }
    r->totals.flops = quantity(ra, t->flops);
    r->totals.tfprof_flops = quantity(ra, t->tfprof_flops);
    r->totals.macs = quantity(ra, t->macs);
    r->totals.bytes = quantity(ra, bytes);
    r->totals.bytes_read = quantity(ra, t->bytes_read);
    r->totals.bytes_written = quantity(ra, t->bytes_written);
    r->totals.nodes = (int64_t)g->n_nodes;
    r->nodes_with_rule = t->nodes_with_rule;
    r->nodes_without_rule = t->nodes_without_rule;
    r->nodes_incomplete = t->nodes_incomplete;
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
    fl__sym_vars(bytes, add_sym, &sl);
    r->symbols = sl.names;
    r->n_symbols = sl.n;

    /* Per op type, and unknown ops. */
    op_acc *acc = calloc(FL_OP_COUNT + g->n_nodes + 1, sizeof(op_acc));
    op_acc *unk = calloc(g->n_nodes + 1, sizeof(op_acc));
    if (!acc || !unk) {
        free(acc);
        free(unk);
        return fl__diag_oom(c->d);
    }
    size_t n_acc = 0, n_unk = 0;
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        const fl_node *n = g->nodes[i];
        op_acc *a = NULL;
        for (size_t k = 0; k < n_acc; k++) {
            if (strcmp(acc[k].op, n->op) == 0) {
                a = &acc[k];
                break;
            }
        }
        if (!a) {
            a = &acc[n_acc++];
            a->op = n->op;
            a->flops = a->tfprof = fl_sym_const(0);
        }
        a->count++;
        if (!n->cost.incomplete) {
            st = fl__op_add(c, n, a->flops, n->cost.flops, &a->flops);
            if (st == FL_OK) {
                st = fl__op_add(c, n, a->tfprof, n->cost.tfprof_flops, &a->tfprof);
            }
        }
        if (!n->desc && !n->func) {
            op_acc *u = NULL;
            for (size_t k = 0; k < n_unk; k++) {
                if (strcmp(unk[k].op, n->op) == 0) {
                    u = &unk[k];
                    break;
                }
            }
            if (!u) {
                u = &unk[n_unk++];
                u->op = n->op;
                u->flops = u->tfprof = fl_sym_const(0);
            }
            u->count++;
        }
    }
    (void)ir;
    if (st == FL_OK) {
        for (size_t k = 0; k < n_acc; k++) {
            acc[k].sort_key = sort_value(c, acc[k].flops);
        }
        qsort(acc, n_acc, sizeof(op_acc), op_cmp);
        qsort(unk, n_unk, sizeof(op_acc), op_cmp);
        fl_report_op *ops = fl__arena_calloc(ra, n_acc + 1, sizeof(*ops));
        fl_report_op *uops = fl__arena_calloc(ra, n_unk + 1, sizeof(*uops));
        if (!ops || !uops) {
            st = fl__diag_oom(c->d);
        } else {
            for (size_t k = 0; k < n_acc; k++) {
                ops[k].op = fl__arena_strdup(ra, acc[k].op);
                ops[k].count = acc[k].count;
                ops[k].flops = quantity(ra, acc[k].flops);
                ops[k].tfprof_flops = quantity(ra, acc[k].tfprof);
            }
            for (size_t k = 0; k < n_unk; k++) {
                uops[k].op = fl__arena_strdup(ra, unk[k].op);
                uops[k].count = unk[k].count;
                uops[k].flops = quantity(ra, fl_sym_const(0));
                uops[k].tfprof_flops = uops[k].flops;
            }
            r->ops = ops;
            r->n_ops = n_acc;
            r->unknown_ops = uops;
            r->n_unknown_ops = n_unk;
        }
    }
    free(acc);
    free(unk);
    if (st != FL_OK) {
        return st;
    }

    /* Per node. */
    if (opt->per_node) {
        st = node_list(c, ra, &r->nodes, &r->n_nodes_detail);
        if (st != FL_OK) {
            return st;
        }
    }

    /* Warnings: the engine's, plus a summary of what the totals leave out. */
    size_t n_extra = 2;
    const char **w = fl__arena_calloc(ra, c->d->n_warnings + n_extra + 1, sizeof(char *));
    if (!w) {
        return fl__diag_oom(c->d);
    }
    size_t nw = 0;
    if (n_unk) {
        w[nw++] = fl__arena_printf(ra,
                                   "%lld node(s) have op types foldline does not know; their "
                                   "outputs have unknown shapes and they count 0 FLOPs",
                                   (long long)ir->n_unknown_nodes);
    }
    if (t->nodes_incomplete) {
        w[nw++] = fl__arena_printf(ra,
                                   "%lld node(s) have counts that depend on undetermined "
                                   "dimensions; the totals exclude them",
                                   (long long)t->nodes_incomplete);
    }
    for (size_t i = 0; i < c->d->n_warnings; i++) {
        w[nw++] = fl__arena_strdup(ra, c->d->warnings[i]);
    }
    if (c->d->n_warnings_dropped) {
        const char **w2 = fl__arena_grow(ra, (void *)w, nw, nw + 1, sizeof(char *));
        if (w2) {
            w = w2;
            w[nw++] =
                fl__arena_printf(ra, "%zu more warning(s) not shown", c->d->n_warnings_dropped);
        }
    }
    r->warnings = w;
    r->n_warnings = nw;
    return ra->failed ? fl__diag_oom(c->d) : FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Passes                                                                     */
/* ------------------------------------------------------------------------- */

/* Runs the passes opt->passes selects over the analysed graph and fills the
 * report's before/after totals, pass records, ledger, and on request the
 * optimised GraphDef and the per-node list of the optimised graph. */
/* The ledger entry of a TFLite model: no pass was run. */
static fl_status note_passes_not_applicable(fl_ctx *c, fl_report *r) {
    fl_arena *ra = report_arena(r);
    fl_report_ledger_entry *es = fl__arena_calloc(ra, r->n_ledger + 1, sizeof(*es));
    if (!es) {
        return fl__diag_oom(c->d);
    }
    es[0].pass = "none";
    es[0].rule = "not_applicable";
    es[0].node = "";
    es[0].detail = "Grappler's passes do not apply to a TFLite model (already converted and "
                   "optimised by the TFLite converter): none was run, after = before";
    if (r->n_ledger) {
        memcpy(es + 1, r->ledger, r->n_ledger * sizeof(*es));
    }
    r->ledger = es;
    r->n_ledger++;
    /* The JSON and proto carry ledger entries per pass: a warning too. */
    const char **w = fl__arena_calloc(ra, r->n_warnings + 1, sizeof(char *));
    if (!w) {
        return fl__diag_oom(c->d);
    }
    if (r->n_warnings) {
        memcpy(w, r->warnings, r->n_warnings * sizeof(char *));
    }
    w[r->n_warnings++] = es[0].detail;
    r->warnings = w;
    return FL_OK;
}

static fl_status run_passes(fl_ctx *c, const fl_options *opt, fl_report *r) {
    fl_arena *ra = report_arena(r);
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.passes = opt->passes;
    cfg.disabled = opt->disabled_passes;
    cfg.n_disabled = opt->n_disabled_passes;
    cfg.outputs = opt->output_names;
    cfg.n_outputs = opt->n_output_names;
    cfg.opt.device = opt->device;
    cfg.opt.remapper_mode = opt->remapper_mode;
    cfg.opt.persistent_bn = opt->cudnn_persistent_batchnorm;
    if (opt->max_folded_bytes > 0) {
        cfg.opt.max_folded_bytes = opt->max_folded_bytes;
    }
    fl_pass_failures failures = {NULL, 0, 0};
    cfg.failures = &failures;
    fl_ledger led;
    fl__ledger_init(&led, c->a);
    fl_cost_totals after;
    fl_status st = fl__pipeline_run(c, opt, &cfg, &led, &after);
    if (st != FL_OK) {
        return st;
    }
    /* Passes that failed and were skipped: one warning each (once when a
     * pass fails the same way in both iterations). */
    if (failures.n) {
        const char **w = fl__arena_calloc(ra, r->n_warnings + failures.n + 1, sizeof(char *));
        if (!w) {
            return fl__diag_oom(c->d);
        }
        size_t nw = r->n_warnings;
        if (nw) {
            memcpy(w, r->warnings, nw * sizeof(char *));
        }
        for (size_t i = 0; i < failures.n; i++) {
            const char *m = failures.items[i].message;
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++) {
                seen = strcmp(failures.items[k].message, m) == 0;
            }
            if (!seen) {
                w[nw++] = fl__arena_strdup(ra, m);
            }
        }
        r->warnings = w;
        r->n_warnings = nw;
    }
    r->optimized = true;
    r->before = r->totals;
    st = fill_totals(c, ra, &after, (int64_t)c->g->n_nodes, &r->after);
    if (st != FL_OK) {
        return st;
    }
    fl_report_pass *ps = fl__arena_calloc(ra, led.n_passes + 1, sizeof(*ps));
    fl_report_ledger_entry *es = fl__arena_calloc(ra, led.n_entries + 1, sizeof(*es));
    if (!ps || !es) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < led.n_passes && st == FL_OK; i++) {
        const fl_pass_record *p = &led.passes[i];
        ps[i].pass = fl__arena_strdup(ra, p->pass);
        ps[i].iteration = p->iteration;
        ps[i].nodes_removed = p->nodes_removed;
        ps[i].nodes_added = p->nodes_added;
        ps[i].nodes_rewritten = p->nodes_rewritten;
        ps[i].first_entry = p->first_entry;
        ps[i].n_entries = p->n_entries;
        for (size_t k = 0; k < failures.n; k++) {
            if (failures.items[k].record == i) {
                ps[i].failed = fl__arena_strdup(ra, failures.items[k].why);
                st = ps[i].failed ? FL_OK : fl__diag_oom(c->d);
            }
        }
        const fl_cost_totals *b = &p->before, *a = &p->after;
        if (st == FL_OK) { /* keep a failure to copy `failed` */
            st = fill_totals(c, ra, b,
                             b->nodes_with_rule + b->nodes_without_rule + b->nodes_incomplete,
                             &ps[i].before);
        }
        if (st == FL_OK) {
            st = fill_totals(c, ra, a,
                             a->nodes_with_rule + a->nodes_without_rule + a->nodes_incomplete,
                             &ps[i].after);
        }
    }
    for (size_t i = 0; i < led.n_entries; i++) {
        es[i].pass = fl__arena_strdup(ra, led.entries[i].pass);
        es[i].rule = fl__arena_strdup(ra, led.entries[i].rule);
        es[i].node = fl__arena_strdup(ra, led.entries[i].node);
        es[i].detail = fl__arena_strdup(ra, led.entries[i].detail);
    }
    r->passes = ps;
    r->n_passes = led.n_passes;
    r->ledger = es;
    r->n_ledger = led.n_entries;
    if (st == FL_OK && opt->per_node) {
        st = node_list(c, ra, &r->nodes_after, &r->n_nodes_after);
    }
    if (st == FL_OK && opt->return_graph) {
        uint8_t *buf = NULL;
        size_t len = 0;
        st = fl__graphdef_write(c->g, &buf, &len, c->d);
        if (st == FL_OK) {
            uint8_t *copy = fl__arena_alloc(ra, len ? len : 1);
            if (!copy) {
                st = fl__diag_oom(c->d);
            } else {
                memcpy(copy, buf, len);
                r->graph_bytes = copy;
                r->graph_len = len;
            }
        }
        free(buf);
    }
    return st;
}

fl_format fl_detect_format(const void *bytes, size_t len) {
    return fl__import_sniff_tflite(bytes, len)       ? FL_FORMAT_TFLITE
           : fl__import_sniff_tfjs(bytes, len)       ? FL_FORMAT_TFJS
           : fl__import_sniff_onnx(bytes, len)       ? FL_FORMAT_ONNX
           : fl__import_sniff_savedmodel(bytes, len) ? FL_FORMAT_SAVEDMODEL
                                                     : FL_FORMAT_GRAPHDEF;
}

int fl_model_file_refs(const void *bytes, size_t len, fl_format format,
                       void (*fn)(const char *name, void *arg), void *arg) {
    if (format == FL_FORMAT_AUTO) {
        format = fl_detect_format(bytes, len);
    }
    if (format == FL_FORMAT_TFJS) {
        return fl__import_tfjs_refs(bytes, len, fn, arg);
    }
    return 0;
}

/* The report's one-line error for a failed analysis (NULL: out of memory). */
static const char *error_message(const fl_diag *d, const fl_options *opt, fl_arena *ra) {
    fl_status st = d->status;
    if (d->status == FL_ENOMEM && opt->max_memory_bytes) {
        return fl__arena_printf(ra, "analysis needs more than the memory limit of %zu bytes",
                                opt->max_memory_bytes);
    } else if (d->status == FL_EOVERFLOW && opt->n_symbols) {
        size_t big = 0;
        for (size_t k = 1; k < opt->n_symbols; k++) {
            big = opt->symbols[k].value > opt->symbols[big].value ? k : big;
        }
        /* Counts are exact 64-bit integers: a large symbol binding is the
         * likely cause (the symbolic analysis keeps the formula). */
        return fl__arena_printf(ra,
                                "%s (with the symbol binding %s=%lld: counts are exact "
                                "64-bit integers, so the bound values must keep them "
                                "below 2^63)",
                                d->msg ? d->msg : fl_status_str(st), opt->symbols[big].name,
                                (long long)opt->symbols[big].value);
    } else {
        return fl__arena_strdup(ra, d->msg ? d->msg : fl_status_str(st));
    }
}

fl_status fl_analyze(const void *bytes, size_t len, const fl_options *opt_in, fl_report **out) {
    fl_options opt_all;
    options_in(opt_in, &opt_all);
    const fl_options *opt = &opt_all;
    *out = NULL;
    fl_report *r = report_new();
    if (!r) {
        return FL_ENOMEM;
    }
    *out = r;
    fl_arena *ra = report_arena(r);

    fl_arena arena;
    fl__arena_init(&arena, opt->max_memory_bytes);
    fl_diag d;
    fl__diag_init(&d, &arena);
    d.stop = opt->should_stop;
    d.stop_arg = opt->stop_arg;
    fl_status st = fl__diag_check_stop(&d);
    fl_graph *g = st == FL_OK ? fl__graph_new(&arena) : NULL;
    if (st == FL_OK && !g) {
        st = fl__diag_oom(&d);
    }
    fl_ctx c = {g, g ? g->syms : NULL, &arena, &d, opt->max_value_elements};

    fl_format fmt = opt->format;
    if (st == FL_OK && fmt == FL_FORMAT_AUTO) {
        fmt = fl_detect_format(bytes, len);
    }
    fl_import_opts io = {opt->max_nodes, opt->max_value_elements, opt->saved_model_tag};
    fl_import_files files = {opt->files, opt->n_files};
    if (st == FL_OK) {
        st = fmt == FL_FORMAT_TFLITE       ? fl__import_tflite(g, bytes, len, &io, &d)
             : fmt == FL_FORMAT_TFJS       ? fl__import_tfjs(g, bytes, len, &io, &files, &d)
             : fmt == FL_FORMAT_ONNX       ? fl__import_onnx(g, bytes, len, &io, &d)
             : fmt == FL_FORMAT_SAVEDMODEL ? fl__import_savedmodel(g, bytes, len, &io, &d)
                                           : fl__import_graphdef(g, bytes, len, &io, &d);
    }
    if (st == FL_OK && (fmt == FL_FORMAT_ONNX || fmt == FL_FORMAT_TFLITE) && opt->return_graph) {
        st = fl__diag_fail(&d, FL_EUSAGE,
                           "writing an optimised graph back is implemented for TensorFlow graphs "
                           "only; an %s model can be analysed (foldline analyze) but not written",
                           fmt == FL_FORMAT_ONNX ? "ONNX" : "TFLite");
    }
    fl_infer_result ir = {0, 0};
    if (st == FL_OK) {
        st = fl__graph_toposort(g, &d);
    }
    if (st == FL_OK) {
        st = fl__diag_check_stop(&d);
    }
    if (st == FL_OK) {
        st = fl__infer_shapes(&c, opt, &ir);
    }
    fl_cost_totals totals;
    if (st == FL_OK) {
        st = fl__cost_graph(&c, &totals);
    }
    if (st == FL_OK) {
        st = build_report(&c, opt,
                          fmt == FL_FORMAT_TFLITE       ? "tflite"
                          : fmt == FL_FORMAT_TFJS       ? "tfjs"
                          : fmt == FL_FORMAT_ONNX       ? "onnx"
                          : fmt == FL_FORMAT_SAVEDMODEL ? "savedmodel"
                                                        : "graphdef",
                          &totals, &ir, r);
    }
    if (st == FL_OK && opt->n_profiles) {
        st = fl__roofline_report(&c, opt, ra, r);
    }
    if (st == FL_OK) {
        st = fl__diag_check_stop(&d);
    }
    if (st == FL_OK && opt->passes) {
        /* A TFLite model was already converted (and optimised) by the TFLite
         * converter: Grappler's passes do not apply; the ledger says so. */
        fl_options no_passes = *opt;
        no_passes.passes = "none";
        st = run_passes(&c, fmt == FL_FORMAT_TFLITE ? &no_passes : opt, r);
        if (st == FL_OK && fmt == FL_FORMAT_TFLITE) {
            st = note_passes_not_applicable(&c, r);
        }
        if (st == FL_OK && opt->n_profiles) {
            st = fl__roofline_report_after(&c, opt, ra, r);
        }
    }
    /* An allocation that failed anywhere, the report's arena included (a
     * string copied after the passes), fails the analysis: never FL_OK with
     * a field missing. */
    if (st == FL_OK && (arena.failed || ra->failed)) {
        st = fl__diag_oom(&d);
    }
    if (st != FL_OK) {
        if (d.status == FL_OK) {
            d.status = st;
        }
        r->error = error_message(&d, opt, ra);
        if (!r->error) {
            r->error = "out of memory";
        }
        st = d.status;
    }
    fl__arena_free(&arena);
    return st;
}
