/*
 * cost.c - per-node costs and totals; see cost.h for the byte rule.
 */
#include "cost/cost.h"

#include "ops/common.h"

#include <string.h>

/* Elements per byte of a sub-byte dtype as ONNX and TFLite store it (packed:
 * int4/uint4 two per byte, int2/uint2 four); 1 otherwise, and for TensorFlow
 * graphs, whose int4 tensors hold one element per byte. */
static int64_t packed_per_byte(const fl_ctx *c, const fl_node *n, int dt) {
    bool packs = c->g->onnx.is_onnx || strncmp(n->op, "tflite::", 8) == 0;
    dt = fl_dtype_base(dt);
    if (!packs) {
        return 1;
    }
    return dt == FL_DT_INT4 || dt == FL_DT_UINT4   ? 2
           : dt == FL_DT_INT2 || dt == FL_DT_UINT2 ? 4
                                                   : 1;
}

/* Size in bytes of a tensor, unknown when its shape or dtype is; sub-byte
 * elements at their packed width, ceil(E / per byte). */
static fl_status tensor_bytes(fl_ctx *c, const fl_node *n, const fl_tensor *t, fl_sym *out) {
    if (t->dtype == FL_DT_INVALID) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, &t->shape, &e);
    if (st != FL_OK) {
        return st;
    }
    int64_t per = packed_per_byte(c, n, t->dtype);
    if (per > 1) {
        return fl__op_ceildiv(c, n, e, fl_sym_const(per), out);
    }
    return fl__op_scale(c, n, e, (int64_t)fl__dtype_size(t->dtype), out);
}

static fl_status node_bytes(fl_ctx *c, fl_node *n) {
    uint32_t fl = n->desc ? n->desc->flags : 0;
    fl_sym rd = n->cost.bytes_read, wr = n->cost.bytes_written, b; /* the hook's, 0 for most */
    fl_status st;
    if (!(fl & (FL_OPF_NO_BYTES | FL_OPF_ALIAS)) && !n->cost.per_load) {
        if (!(fl & FL_OPF_META)) {
            for (int i = 0; i < n->n_inputs; i++) {
                if ((st = tensor_bytes(c, n, fl_node_in(n, i), &b)) != FL_OK ||
                    (st = fl__op_add(c, n, rd, b, &rd)) != FL_OK) {
                    return st;
                }
            }
        }
        for (int k = 0; k < n->n_outputs; k++) {
            if ((st = tensor_bytes(c, n, &n->outputs[k], &b)) != FL_OK ||
                (st = fl__op_add(c, n, wr, b, &wr)) != FL_OK) {
                return st;
            }
        }
    }
    n->cost.bytes_read = rd;
    n->cost.bytes_written = wr;
    if (fl_sym_is_unknown(rd) || fl_sym_is_unknown(wr)) {
        n->cost.incomplete = true;
    }
    return FL_OK;
}

static bool incomplete_sym(fl_sym s) {
    return fl_sym_is_unknown(s);
}

/* How often nodes run per inference, when not once. One mechanism for the
 * loops whose bodies are nodes of the graph: a TFLite WHILE's body and cond
 * nodes carry attr _repeat (FL_NODE_REPEATED, src/import/tflite_loop.c); a
 * TensorFlow While W lowered at import (src/import/tf_loop.c: the node
 * "W/while", attr _loop "W") carries _body_trips and _cond_trips, which
 * count every node named after its inlined body ("W/body/...") or cond
 * ("W/cond/..."), so nodes the passes make there (named after a node they
 * replace) count as often. Nested loops multiply. */
typedef struct repeats {
    size_t n;
    const char **prefix;
    size_t *len;
    int64_t *times;
} repeats;

static int64_t int_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_I && a->v.i >= 0 ? a->v.i : -1;
}

/* The prefixes of the graph's counted While loops (scratch memory). */
static fl_status repeats_build(fl_ctx *c, repeats *r) {
    memset(r, 0, sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *w = c->g->nodes[i];
        n += (w->kind == FL_OP_WHILE || w->kind == FL_OP_STATELESS_WHILE) &&
             int_attr(w, "_body_trips") >= 0;
    }
    if (!n) {
        return FL_OK;
    }
    r->prefix = fl__arena_scratch(c->a, 2 * n, sizeof(char *));
    r->len = fl__arena_scratch(c->a, 2 * n, sizeof(size_t));
    r->times = fl__arena_scratch(c->a, 2 * n, sizeof(int64_t));
    if (!r->prefix || !r->len || !r->times) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *w = c->g->nodes[i];
        int64_t bt = int_attr(w, "_body_trips"), ct = int_attr(w, "_cond_trips");
        const fl_attr *loop = fl__node_attr(w, "_loop");
        if ((w->kind != FL_OP_WHILE && w->kind != FL_OP_STATELESS_WHILE) || bt < 0 || ct < 0 ||
            !loop || loop->kind != FL_ATTR_S) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            const char *p = fl__arena_printf(c->a, "%s/%s/", loop->v.s.p, side ? "cond" : "body");
            if (!p) {
                return fl__diag_oom(c->d);
            }
            r->prefix[r->n] = p;
            r->len[r->n] = strlen(p);
            r->times[r->n++] = side ? ct : bt;
        }
    }
    return FL_OK;
}

static void repeats_free(fl_ctx *c, repeats *r) {
    fl__arena_scratch_free(c->a, r->prefix);
    fl__arena_scratch_free(c->a, r->len);
    fl__arena_scratch_free(c->a, r->times);
}

static int64_t mul_cap(int64_t a, int64_t b) {
    return a && b > INT64_MAX / 4 / a ? INT64_MAX / 4 : a * b;
}

/* How often n runs per inference. */
static int64_t repeat_of(const repeats *r, const fl_node *n) {
    int64_t t = 1;
    if (n->flags & FL_NODE_REPEATED) {
        int64_t k = int_attr(n, "_repeat");
        t = k >= 0 ? k : 1;
    }
    for (size_t i = 0; i < r->n; i++) {
        if (strncmp(n->name, r->prefix[i], r->len[i]) == 0) {
            t = mul_cap(t, r->times[i]);
        }
    }
    return t;
}

/* Every count of n times `times`. */
static fl_status repeat_cost(fl_ctx *c, fl_node *n, int64_t times) {
    fl_cost *k = &n->cost;
    fl_sym *f[] = {&k->flops,   &k->tfprof_flops, &k->macs,
                   &k->int_ops, &k->bytes_read,   &k->bytes_written};
    fl_status st = FL_OK;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && st == FL_OK; i++) {
        if (!fl_sym_is_unknown(*f[i])) {
            st = fl__op_scale(c, n, *f[i], times, f[i]);
        }
    }
    return st;
}

/* n's own counts (n->cost), from its shapes. */
static fl_status cost_node(fl_ctx *c, fl_node *n, const repeats *r) {
    fl_cost *k = &n->cost;
    fl_sym zero = fl_sym_const(0);
    memset(k, 0, sizeof(*k));
    k->flops = k->tfprof_flops = k->macs = k->int_ops = zero;
    if (n->desc && n->desc->cost) {
        fl_status st = n->desc->cost(c, n, k);
        if (st != FL_OK) {
            return st;
        }
        if (incomplete_sym(k->flops) || incomplete_sym(k->tfprof_flops) ||
            incomplete_sym(k->macs) || incomplete_sym(k->int_ops)) {
            k->incomplete = true;
        }
    }
    fl_status st = node_bytes(c, n);
    int64_t times = st == FL_OK ? repeat_of(r, n) : 1;
    return times != 1 ? repeat_cost(c, n, times) : st;
}

static fl_status sum_nodes(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost, const repeats *r);

bool fl__cost_is_value_node(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_ONNX_ABSENT ||
           (n->kind == FL_OP_CONST && strcmp(n->op, "Const") == 0);
}

fl_status fl__cost_graph(fl_ctx *c, fl_cost_totals *t) {
    return fl__cost_graph_some(c, t, NULL);
}

fl_status fl__cost_graph_some(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost) {
    memset(t, 0, sizeof(*t));
    fl_sym zero = fl_sym_const(0);
    t->flops = t->tfprof_flops = t->macs = t->bytes_read = t->bytes_written = zero;
    t->bytes_without_rule = t->int_ops = zero;
    repeats r;
    fl_status rs = repeats_build(c, &r);
    if (rs == FL_OK) {
        rs = sum_nodes(c, t, recost, &r);
    }
    repeats_free(c, &r);
    return rs;
}

/* Costs the nodes (those in recost, or all) and sums them into t. */
static fl_status sum_nodes(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost, const repeats *r) {
    fl_graph *g = c->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->order ? g->order[i] : g->nodes[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            return c->d->status;
        }
        fl_cost *k = &n->cost;
        fl_status st;
        if (!recost || recost[n->id]) {
            if ((st = cost_node(c, n, r)) != FL_OK) {
                return st;
            }
        }
        if (fl__cost_is_value_node(n)) {
            t->nodes_values++;
        }
        if (k->incomplete) {
            t->nodes_incomplete++;
            continue;
        }
        if (k->has_rule) {
            t->nodes_with_rule++;
        } else {
            t->nodes_without_rule++;
        }
        if ((st = fl__op_add(c, n, t->flops, k->flops, &t->flops)) != FL_OK ||
            (st = fl__op_add(c, n, t->tfprof_flops, k->tfprof_flops, &t->tfprof_flops)) != FL_OK ||
            (st = fl__op_add(c, n, t->macs, k->macs, &t->macs)) != FL_OK ||
            (st = fl__op_add(c, n, t->int_ops, k->int_ops, &t->int_ops)) != FL_OK ||
            (st = fl__op_add(c, n, t->bytes_read, k->bytes_read, &t->bytes_read)) != FL_OK ||
            (st = fl__op_add(c, n, t->bytes_written, k->bytes_written, &t->bytes_written)) !=
                FL_OK) {
            return st;
        }
        if (!k->has_rule) {
            fl_sym b;
            if ((st = fl__op_add(c, n, k->bytes_read, k->bytes_written, &b)) != FL_OK ||
                (st = fl__op_add(c, n, t->bytes_without_rule, b, &t->bytes_without_rule)) !=
                    FL_OK) {
                return st;
            }
        }
    }
    return FL_OK;
}
