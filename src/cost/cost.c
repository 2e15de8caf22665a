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

/* A node that runs attr _repeat times per inference (FL_NODE_REPEATED):
 * every count times that. */
static fl_status repeat_cost(fl_ctx *c, fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "_repeat");
    if (!a || a->kind != FL_ATTR_I || a->v.i < 0) {
        return FL_OK;
    }
    fl_cost *k = &n->cost;
    fl_sym *f[] = {&k->flops,   &k->tfprof_flops, &k->macs,
                   &k->int_ops, &k->bytes_read,   &k->bytes_written};
    fl_status st = FL_OK;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && st == FL_OK; i++) {
        if (!fl_sym_is_unknown(*f[i])) {
            st = fl__op_scale(c, n, *f[i], a->v.i, f[i]);
        }
    }
    return st;
}

/* n's own counts (n->cost), from its shapes. */
static fl_status cost_node(fl_ctx *c, fl_node *n) {
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
    return st == FL_OK && (n->flags & FL_NODE_REPEATED) ? repeat_cost(c, n) : st;
}

bool fl__cost_is_value_node(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_ONNX_ABSENT ||
           (n->kind == FL_OP_CONST && strcmp(n->op, "Const") == 0);
}

fl_status fl__cost_graph(fl_ctx *c, fl_cost_totals *t) {
    return fl__cost_graph_some(c, t, NULL);
}

fl_status fl__cost_graph_some(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost) {
    fl_graph *g = c->g;
    memset(t, 0, sizeof(*t));
    fl_sym zero = fl_sym_const(0);
    t->flops = t->tfprof_flops = t->macs = t->bytes_read = t->bytes_written = zero;
    t->bytes_without_rule = t->int_ops = zero;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->order ? g->order[i] : g->nodes[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            return c->d->status;
        }
        fl_cost *k = &n->cost;
        fl_status st;
        if (!recost || recost[n->id]) {
            if ((st = cost_node(c, n)) != FL_OK) {
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
