/*
 * passtest.c - the harness shared by the rewrite-pass suites (passtest.h).
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Import and analysis                                                        */
/* ------------------------------------------------------------------------- */

/* Imports buf into r with `import` (arena limit `arena_limit`), sorts,
 * infers and costs the graph (costs in r->before). */
static fl_status import_analysed(pt_run *r, pt_import_fn import, const uint8_t *buf, size_t len,
                                 size_t arena_limit, fl_import_opts io) {
    fl__arena_init(&r->arena, arena_limit);
    fl__diag_init(&r->d, &r->arena);
    r->g = fl__graph_new(&r->arena);
    assert_non_null(r->g);
    r->c = (fl_ctx){r->g, r->g->syms, &r->arena, &r->d, 1 << 20};
    fl_options_init(&r->opt);
    fl__ledger_init(&r->led, &r->arena);
    fl_infer_result ir = {0, 0};
    /* The graph's payloads are views into its bytes: the run's arena keeps a
     * copy, so callers may free theirs. */
    uint8_t *own = fl__arena_alloc(&r->arena, len ? len : 1);
    assert_non_null(own);
    memcpy(own, buf, len);
    fl_status st = import(r->g, own, len, &io, &r->d);
    if (st == FL_OK) {
        st = fl__graph_toposort(r->g, &r->d);
    }
    if (st == FL_OK) {
        st = fl__infer_shapes(&r->c, &r->opt, &ir);
    }
    if (st == FL_OK) {
        st = fl__cost_graph(&r->c, &r->before);
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Pipeline runs                                                              */
/* ------------------------------------------------------------------------- */

pt_run *pt_pipeline_import(pt_import_fn import, const uint8_t *buf, size_t len, const pt_opts *o) {
    pt_run *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    fl_status st =
        import_analysed(p, import, buf, len, 0, (fl_import_opts){1000000, 1 << 20, NULL});
    fl__pipeline_config_init(&p->cfg);
    p->cfg.passes = o->passes;
    p->cfg.opt.iterations = o->iterations;
    p->cfg.opt.device = o->device;
    p->cfg.opt.remapper_mode = o->remapper_mode;
    p->cfg.opt.persistent_bn = o->persistent_bn;
    p->cfg.outputs = o->outputs;
    p->cfg.n_outputs = o->n_outputs;
    p->cfg.verify = true;
    if (o->max_folded_bytes) {
        p->cfg.opt.max_folded_bytes = o->max_folded_bytes;
    }
    if (st == FL_OK) {
        st = fl__pipeline_run(&p->c, &p->opt, &p->cfg, &p->led, &p->after);
    }
    if (st != FL_OK) {
        fail_msg("pipeline failed: %s", p->d.msg ? p->d.msg : fl_status_str(st));
    }
    return p;
}

pt_run *pt_pipeline_bytes(const uint8_t *buf, size_t len, const pt_opts *o) {
    return pt_pipeline_import(fl__import_graphdef, buf, len, o);
}

pt_run *pt_pipeline(tg_graph *tg, const pt_opts *o) {
    size_t len;
    uint8_t *buf = tg_pack(tg, &len);
    pt_run *p = pt_pipeline_bytes(buf, len, o);
    free(buf);
    return p;
}

pt_run *pt_pipeline_free(tg_graph *tg, const pt_opts *o) {
    pt_run *p = pt_pipeline(tg, o);
    tg_free(tg);
    return p;
}

pt_run *pt_constfold_free(tg_graph *tg, const char *const *outs, size_t n_outs) {
    return pt_pipeline_free(
        tg,
        &(pt_opts){.passes = "constfold", .iterations = 1, .outputs = outs, .n_outputs = n_outs});
}

void pt_free(pt_run *p) {
    fl__arena_free(&p->arena);
    free(p);
}

void pt_expect(tg_graph *g, const pt_opts *o, const char *want, const char *rule, const char *node,
               bool fires) {
    pt_run *p = pt_pipeline(g, o);
    assert_string_equal(pt_dump(p), want);
    if (rule && fires) {
        assert_true(pt_fired(p, rule, node));
    } else if (rule) {
        assert_false(pt_fired(p, rule, NULL));
    }
    pt_free(p);
}

/* ------------------------------------------------------------------------- */
/* Single-pass runs                                                           */
/* ------------------------------------------------------------------------- */

fl_status pt_load_bytes(pt_run *h, const uint8_t *bytes, size_t len) {
    memset(h, 0, sizeof(*h));
    fl_status st = import_analysed(h, fl__import_graphdef, bytes, len, (size_t)2 << 30,
                                   (fl_import_opts){5000000, 1 << 20, NULL});
    if (st != FL_OK) {
        print_message("load failed: %s\n", h->d.msg ? h->d.msg : "?");
        return st;
    }
    for (size_t i = 0; i < h->g->n_nodes; i++) {
        fl_node *n = h->g->nodes[i];
        bool used = n->n_ctrl_consumers > 0;
        for (int p = 0; p < n->n_outputs; p++) {
            used |= n->outputs[p].n_consumers > 0;
        }
        if (!used) {
            n->flags |= FL_NODE_PRESERVE;
        }
    }
    return FL_OK;
}

void pt_load(pt_run *h, tg_graph *tg) {
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    tg_free(tg);
    fl_status st = pt_load_bytes(h, bytes, len);
    free(bytes);
    if (st != FL_OK) {
        fail_msg("load: %s", h->d.msg ? h->d.msg : "?");
    }
}

void pt_pass(pt_run *h, fl_pass_fn fn, const char *name, fl_device dev, fl_remapper_mode mode) {
    h->popt.device = dev;
    h->popt.remapper_mode = mode;
    h->popt.max_folded_bytes = 100 * 1024;
    h->popt.iterations = 1;
    h->pc = (fl_pass_ctx){&h->c, &h->popt, &h->led, name, 0, 0, 0};
    if (!h->g->order) {
        assert_int_equal(fl__graph_toposort(h->g, &h->d), FL_OK);
    }
    fl_status st = fn(&h->pc);
    if (st != FL_OK) {
        fail_msg("%s failed: %s", name, h->d.msg ? h->d.msg : "?");
    }
    assert_int_equal(fl__graph_compact(h->g, &h->d), FL_OK);
    assert_int_equal(fl__graph_toposort(h->g, &h->d), FL_OK);
    if (fl__graph_verify(h->g, &h->d) != FL_OK) {
        fail_msg("verify: %s", h->d.msg);
    }
    fl_infer_result ir = {0, 0};
    fl_cost_totals t;
    if (fl__infer_shapes(&h->c, &h->opt, &ir) != FL_OK) {
        fail_msg("re-inference: %s", h->d.msg);
    }
    if (fl__cost_graph(&h->c, &t) != FL_OK) {
        fail_msg("re-costing: %s", h->d.msg);
    }
}

void pt_remap(pt_run *h, fl_device dev, fl_remapper_mode mode) {
    pt_pass(h, fl__pass_remapper, "remapper", dev, mode);
}

void pt_fini(pt_run *h) {
    fl__arena_free(&h->arena);
}

/* ------------------------------------------------------------------------- */
/* Checks                                                                     */
/* ------------------------------------------------------------------------- */

const char *pt_dump(pt_run *r) {
    size_t o = 0;
    char *s = r->dump;
    size_t cap = sizeof r->dump;
    for (size_t i = 0; i < r->g->n_nodes; i++) {
        const fl_node *n = r->g->nodes[i];
        o += (size_t)snprintf(s + o, cap - o, "%s%s=%s(", i ? "; " : "", n->name, n->op);
        for (int k = 0; k < n->n_inputs; k++) {
            o += (size_t)snprintf(s + o, cap - o, k ? ",%s" : "%s", n->inputs[k].node->name);
            if (n->inputs[k].port) {
                o += (size_t)snprintf(s + o, cap - o, ":%d", n->inputs[k].port);
            }
        }
        for (int k = 0; k < n->n_ctrl; k++) {
            o += (size_t)snprintf(s + o, cap - o, "%s^%s", n->n_inputs || k ? "," : "",
                                  n->ctrl[k]->name);
        }
        o += (size_t)snprintf(s + o, cap - o, ")");
        assert_true(o < cap);
    }
    return s;
}

size_t pt_fired(const pt_run *r, const char *rule, const char *node) {
    size_t k = 0;
    for (size_t i = 0; i < r->led.n_entries; i++) {
        k += strcmp(fl__ledger_entry(&r->led, i)->rule, rule) == 0 &&
             (!node || strcmp(fl__ledger_entry(&r->led, i)->node, node) == 0);
    }
    return k;
}

fl_node *pt_need(const pt_run *r, const char *name) {
    fl_node *n = fl__graph_find(r->g, name);
    if (!n) {
        fail_msg("node '%s' missing (graph: %s)", name, r->dump);
    }
    return n;
}

const fl_tensor *pt_out0(const pt_run *r, const char *name) {
    return &pt_need(r, name)->outputs[0];
}

int64_t pt_known(fl_sym s) {
    assert_true(fl_sym_is_known(s));
    return s.k;
}

void pt_absent(const pt_run *r, const char *name) {
    if (fl__graph_find(r->g, name)) {
        fail_msg("node '%s' should be gone", name);
    }
}

void pt_expect_node(const pt_run *r, const char *name, const char *op, ...) {
    fl_node *n = pt_need(r, name);
    if (strcmp(n->op, op) != 0) {
        fail_msg("node '%s' is %s, want %s", name, n->op, op);
    }
    va_list ap;
    va_start(ap, op);
    int i = 0;
    for (const char *in; (in = va_arg(ap, const char *)) != NULL; i++) {
        if (i >= n->n_inputs) {
            fail_msg("node '%s' has %d inputs, want more", name, n->n_inputs);
        }
        char buf[512];
        if (n->inputs[i].port) {
            snprintf(buf, sizeof buf, "%s:%d", n->inputs[i].node->name, n->inputs[i].port);
        } else {
            snprintf(buf, sizeof buf, "%s", n->inputs[i].node->name);
        }
        if (strcmp(buf, in) != 0) {
            fail_msg("node '%s' input %d is %s, want %s", name, i, buf, in);
        }
    }
    va_end(ap);
    assert_int_equal(n->n_inputs, i);
}

void pt_expect_ctrl(const pt_run *r, const char *name, ...) {
    fl_node *n = pt_need(r, name);
    va_list ap;
    va_start(ap, name);
    int i = 0;
    for (const char *in; (in = va_arg(ap, const char *)) != NULL; i++) {
        if (i >= n->n_ctrl) {
            fail_msg("node '%s' has %d control inputs, want more", name, n->n_ctrl);
        }
        if (strcmp(n->ctrl[i]->name, in) != 0) {
            fail_msg("node '%s' control input %d is %s, want %s", name, i, n->ctrl[i]->name, in);
        }
    }
    va_end(ap);
    if (n->n_ctrl != i) {
        fail_msg("node '%s' has %d control inputs, want %d", name, n->n_ctrl, i);
    }
}

/* The attr `attr` of `name`, present and of kind `kind`. */
static const fl_attr *need_attr(const pt_run *r, const char *name, const char *attr,
                                fl_attr_kind kind) {
    const fl_attr *a = fl__node_attr(pt_need(r, name), attr);
    assert_non_null(a);
    assert_int_equal(a->kind, kind);
    return a;
}

/* The list attr `attr` of `name`, of n elements. */
static const fl_attr *need_list(const pt_run *r, const char *name, const char *attr, size_t n) {
    const fl_attr *a = need_attr(r, name, attr, FL_ATTR_LIST);
    assert_int_equal(a->n, n);
    return a;
}

void pt_expect_strs(const pt_run *r, const char *name, const char *attr, size_t n, ...) {
    const fl_attr *a = need_list(r, name, attr, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(a->v.list.s[i].p, va_arg(ap, const char *));
    }
    va_end(ap);
}

void pt_expect_ints(const pt_run *r, const char *name, const char *attr, size_t n, ...) {
    const fl_attr *a = need_list(r, name, attr, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a->v.list.i[i], va_arg(ap, int));
    }
    va_end(ap);
}

int64_t pt_attr_i(const pt_run *r, const char *name, const char *attr) {
    return need_attr(r, name, attr, FL_ATTR_I)->v.i;
}

float pt_attr_f(const pt_run *r, const char *name, const char *attr) {
    return need_attr(r, name, attr, FL_ATTR_F)->v.f;
}

int pt_attr_t(const pt_run *r, const char *name, const char *attr) {
    return need_attr(r, name, attr, FL_ATTR_TYPE)->v.type;
}

const char *pt_attr_s(const pt_run *r, const char *name, const char *attr) {
    return need_attr(r, name, attr, FL_ATTR_S)->v.s.p;
}

bool pt_attr_bool(const pt_run *r, const char *name, const char *attr) {
    const fl_attr *a = fl__node_attr(pt_need(r, name), attr);
    return a && a->kind == FL_ATTR_B && a->v.b;
}

const fl_value *pt_cval(const pt_run *r, const char *name) {
    const fl_node *n = pt_need(r, name);
    assert_string_equal(n->op, "Const");
    const fl_attr *a = fl__node_attr(n, "value");
    assert_non_null(a);
    assert_non_null(a->v.tensor->value);
    return a->v.tensor->value;
}

double pt_cf(const pt_run *r, const char *name, int64_t i) {
    double x = 0;
    assert_true(fl__value_f64(pt_cval(r, name), i, &x));
    return x;
}

int64_t pt_ci(const pt_run *r, const char *name, int64_t i) {
    return fl__value_int(pt_cval(r, name), i).k;
}

void pt_expect_shape(const pt_run *r, const char *name, int dt, int rank, ...) {
    const fl_tensor *t = &pt_need(r, name)->outputs[0];
    assert_int_equal(t->dtype, dt);
    assert_int_equal(t->shape.rank, rank);
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        int64_t want = va_arg(ap, int);
        if (!fl_sym_is_known(t->shape.dims[i]) || t->shape.dims[i].k != want) {
            fail_msg("node '%s' dim %d is not %lld", name, i, (long long)want);
        }
    }
    va_end(ap);
}

void pt_expect_cost(pt_run *r, const char *name, int64_t flops, int64_t tfprof, int64_t macs) {
    fl_node *n = pt_need(r, name);
    assert_non_null(n->desc);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&r->c, n, &c), FL_OK);
    assert_true(c.has_rule);
    assert_false(c.incomplete);
    assert_true(fl_sym_is_known(c.flops) && fl_sym_is_known(c.tfprof_flops) &&
                fl_sym_is_known(c.macs));
    if (c.flops.k != flops || c.tfprof_flops.k != tfprof || c.macs.k != macs) {
        fail_msg("node '%s' costs %lld/%lld/%lld, want %lld/%lld/%lld", name, (long long)c.flops.k,
                 (long long)c.tfprof_flops.k, (long long)c.macs.k, (long long)flops,
                 (long long)tfprof, (long long)macs);
    }
}

void pt_expect_untouched(const pt_run *h) {
    assert_int_equal(h->pc.rewritten, 0);
    assert_int_equal(h->pc.removed, 0);
    assert_int_equal(h->pc.added, 0);
}

/* ------------------------------------------------------------------------- */
/* Building graphs                                                            */
/* ------------------------------------------------------------------------- */

void pt_ph(tg_graph *g, const char *name, int rank, const int64_t *dims) {
    tg_placeholder(g, name, F32, rank, dims);
}

tg_node *pt_op1(tg_graph *g, const char *name, const char *op, const char *a, int t) {
    tg_node *n = tg_add(g, name, op, a, NULL);
    if (t) {
        tg_attr_type(n, "T", t);
    }
    return n;
}

tg_node *pt_op2(tg_graph *g, const char *name, const char *op, const char *a, const char *b,
                int t) {
    tg_node *n = tg_add(g, name, op, a, b, NULL);
    if (t) {
        tg_attr_type(n, "T", t);
    }
    return n;
}

tg_node *pt_scalar(tg_graph *g, const char *name, float v) {
    return tg_const_f32_vals(g, name, 0, NULL, &v, 1);
}
