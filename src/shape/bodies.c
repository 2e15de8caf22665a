/*
 * bodies.c - the bodies of ONNX If, Loop and Scan, analysed and costed.
 *
 * After the graph's shapes are inferred, each If/Loop/Scan body is built as
 * a stand-alone model (src/import/onnx_body.c: its inputs typed from the
 * node's inputs, the outer-scope values it reads visible as initializers or
 * typed inputs), imported, inferred (bodies nested in it in turn, up to 8
 * levels) and costed. Its totals are kept on the node as attr _body_cost
 * (ints: per body known, FLOPs, MACs, int_ops, nodes) and the node's cost
 * hook adds them (src/ops/onnxops/control.c, where the rule is stated):
 *   If    both branches (an upper bound: one runs), with a warning giving
 *         each branch's counts, as a TensorFlow v1 cond (src/cost/cond.c);
 *   Loop  the body times the trip count M when M is a known constant (an
 *         upper bound when the body's condition can end the loop earlier),
 *         else once, with a warning naming the node;
 *   Scan  the body times the sequence length (the first scan input's dim
 *         along its scan axis), symbolic when that dim is; an unknown
 *         length counts the body once, with a warning.
 * A body whose counts are not known numbers (its shapes depend on dims the
 * outer graph does not give it as numbers, or it fails to analyse) leaves
 * the node incomplete, with a warning saying why: never a silent zero. The
 * body's bytes are not added (the node's bytes are its own inputs and
 * outputs).
 */
#include "cost/cost.h"
#include "graph/mutate.h"
#include "import/import.h"
#include "ops/common.h"
#include "shape/infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH  8
#define MAX_BODIES 2

static _Thread_local int depth;

typedef struct body_totals {
    bool known;
    int64_t flops, macs, iops, nodes;
    const char *attr;
    char why[160];
} body_totals;

/* Imports, infers and costs one body model. Fails only on what must stop
 * the whole analysis (memory, limits, cancellation); a body that does not
 * analyse is `known` false with the reason in why. */
static fl_status analyse(fl_ctx *c, const fl_options *opt, const uint8_t *buf, size_t len,
                         body_totals *b) {
    fl_graph *sg = fl__graph_new(c->a);
    if (!sg) {
        return fl__diag_oom(c->d);
    }
    fl_diag d2;
    fl__diag_init(&d2, c->a);
    d2.stop = c->d->stop;
    d2.stop_arg = c->d->stop_arg;
    fl_ctx c2 = {sg, sg->syms, c->a, &d2, c->max_value_elems};
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
    b->nodes = t.nodes_with_rule + t.nodes_without_rule - t.nodes_values;
    if (t.nodes_incomplete || !fl_sym_is_known(t.flops) || !fl_sym_is_known(t.macs) ||
        !fl_sym_is_known(t.int_ops)) {
        snprintf(b->why, sizeof b->why,
                 "%lld of its nodes have counts that depend on dims it does not know",
                 (long long)(t.nodes_incomplete ? t.nodes_incomplete : 1));
        return FL_OK;
    }
    b->known = true;
    b->flops = t.flops.k;
    b->macs = t.macs.k;
    b->iops = t.int_ops.k;
    return FL_OK;
}

/* Known scalar value of input i; false when absent or unknown. */
static bool known_int(const fl_node *n, int i, int64_t *out) {
    if (i >= n->n_inputs || fl_node_in(n, i)->dtype == FL_DT_INVALID) {
        return false;
    }
    const fl_value *v = fl_op_in_value(n, i);
    if (!v || v->n != 1 || !v->ints) {
        return false;
    }
    *out = v->ints[0].k;
    return fl_sym_is_known(v->ints[0]);
}

static void warn_counts(fl_ctx *c, const fl_node *n, const body_totals *b, size_t nb) {
    char text[512];
    size_t w = 0;
    for (size_t i = 0; i < nb && w < sizeof text; i++) {
        w += (size_t)snprintf(text + w, sizeof text - w,
                              "%s%s %lld FLOPs, %lld MACs, %lld integer ops over %lld node(s)",
                              i ? "; " : "", b[i].attr, (long long)b[i].flops, (long long)b[i].macs,
                              (long long)b[i].iops, (long long)b[i].nodes);
    }
    if (n->kind == FL_OP_ONNX_IF) {
        fl__node_warn(c->d, n, "the totals count both branches, though one runs: %s", text);
        return;
    }
    int64_t m;
    if (n->kind == FL_OP_ONNX_LOOP && !(n->n_inputs > 0 && known_int(n, 0, &m))) {
        fl__node_warn(c->d, n,
                      "the trip count is unknown (input 0, M, is not a known constant): the "
                      "body is counted once (%s)",
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
            fl__node_warn(c->d, n, "the sequence length is unknown: the body is counted once (%s)",
                          text);
        }
    }
}

/* Analyses n's bodies and keeps their totals in attr _body_cost. */
static fl_status cost_bodies(fl_ctx *c, const fl_options *opt, fl_node *n) {
    body_totals b[MAX_BODIES];
    memset(b, 0, sizeof b);
    size_t nb = 0;
    fl_status st = FL_OK;
    for (int which = 0; which < MAX_BODIES && st == FL_OK; which++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        fl_diag d2;
        fl__diag_init(&d2, c->a);
        st = fl__onnx_body_model(c->g, n, which, &b[nb].attr, &buf, &len, &d2);
        if (st == FL_ENOTFOUND) {
            st = FL_OK;
            break;
        }
        if (st == FL_ENOMEM) {
            free(buf);
            return fl__diag_oom(c->d);
        }
        if (st != FL_OK) {
            snprintf(b[nb].why, sizeof b[nb].why, "%s", d2.msg ? d2.msg : fl_status_str(st));
            st = FL_OK;
        } else {
            st = analyse(c, opt, buf, len, &b[nb]);
        }
        free(buf);
        nb++;
    }
    if (st != FL_OK) {
        return st;
    }
    /* The attr marks the node as done even without bodies (nb 0), so a
     * later inference (after the passes) does not look again. */
    int64_t v[1 + 5 * MAX_BODIES];
    v[0] = (int64_t)nb;
    bool all = true;
    for (size_t i = 0; i < nb; i++) {
        int64_t *e = &v[1 + 5 * i];
        e[0] = b[i].known;
        e[1] = b[i].flops;
        e[2] = b[i].macs;
        e[3] = b[i].iops;
        e[4] = b[i].nodes;
        if (!b[i].known) {
            all = false;
            fl__node_warn(c->d, n, "its %s is not counted: %s", b[i].attr, b[i].why);
        }
    }
    fl_attr a = fl__attr_make_ints(c->g, "_body_cost", 1 + 5 * nb, v);
    if (!a.name) {
        return fl__diag_oom(c->d);
    }
    st = fl__node_set_attr(c->g, n, &a);
    if (st == FL_OK && all && nb > 0) {
        warn_counts(c, n, b, nb);
    }
    return st;
}

fl_status fl__infer_onnx_bodies(fl_ctx *c, const fl_options *opt) {
    if (!c->g->onnx.is_onnx) {
        return FL_OK;
    }
    if (depth >= MAX_DEPTH) {
        fl__diag_warn(c->d, "control-flow bodies nested deeper than %d levels are not counted",
                      MAX_DEPTH);
        return FL_OK;
    }
    depth++;
    fl_status st = FL_OK;
    for (size_t i = 0; i < c->g->n_nodes && st == FL_OK; i++) {
        fl_node *n = c->g->nodes[i];
        bool flow = n->kind == FL_OP_ONNX_IF || n->kind == FL_OP_ONNX_LOOP ||
                    (n->kind == FL_OP_ONNX_SCAN && c->g->producer >= 9);
        if (flow && !fl__node_attr(n, "_body_cost")) {
            st = cost_bodies(c, opt, n);
        }
    }
    depth--;
    return st;
}
