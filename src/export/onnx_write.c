/*
 * onnx_write.c - the IR of an imported ONNX model, after the passes, as a
 * binary ModelProto (protobuf-c structs from proto/onnx), for `foldline
 * optimize x.onnx -o y.onnx` and fl_report.graph_bytes.
 *
 * What is written:
 *  - the model's header (ir_version, opset imports, producer, domain,
 *    model_version, doc, metadata, functions) as imported, plus an import of
 *    com.microsoft version 1 when an operator of that domain is written and
 *    the model did not import it;
 *  - the graph's name, inputs and outputs as imported (an input that named
 *    an initializer the passes removed is left out); no value_info (the
 *    shapes there would describe the graph before the passes);
 *  - one initializer per live constant: the TensorProto it came from (an
 *    initializer's own; a Constant operator's value under the constant's
 *    value name), else built from its value (little-endian raw_data). An
 *    initializer whose data was in an external file given to the import is
 *    written inline (raw_data: the file's bytes); the whole model must stay
 *    under protobuf's 2 GiB message limit, else the write fails saying so
 *    (external data is not written back). One whose file was not given is
 *    written with its external reference unchanged, as a stripped one. In a
 *    weight-stripped model a stripped constant is written with dims and type
 *    only, as the importer reads a stripped file; in a model with its
 *    weights, a constant a pass made without computing its content (limits)
 *    fails the write naming it and the limits to raise;
 *  - every operator in topological order: name, op type, domain (from the
 *    registry's DOMAIN::OpType; an unregistered op keeps its NodeProto's),
 *    inputs and outputs by value name, and its attributes: the NodeProto's
 *    own when the node still has the op type it was imported with, else
 *    converted from the IR's attrs (ints, floats, strings, their lists,
 *    tensors; attrs whose name starts with '_' are foldline's and not
 *    written).
 *
 * Value names: an output keeps the name its NodeProto gave it (a node a
 * pass built in place of another carries that node's NodeProto, see
 * passes/remap/onnx_batchnorm.c); graph inputs and initializers keep theirs;
 * a new node's output 0 is named after the node, port p > 0 "NODE:p". A
 * graph output whose producer a pass rebuilt without its NodeProto (folded
 * into a constant in place) gets its declared name back
 * (keep_output_names): a graph output may then be an initializer.
 * Control edges have no ONNX form and are dropped (ONNX orders by data).
 */
#include "export/onnx_write.h"

#include "graph/mutate.h"
#include "onnx/onnx.pb-c.h"
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct owctx {
    fl_graph *g;
    fl_arena *a;
    fl_diag *d;
    bool ms_used;        /* an operator of com.microsoft is written */
    bool model_stripped; /* some imported initializer is stripped */
} owctx;

static const ProtobufCMessageDescriptor *desc_of(const void *src) {
    return src ? ((const ProtobufCMessage *)src)->descriptor : NULL;
}

static const Onnx__NodeProto *node_proto(const fl_node *n) {
    return desc_of(n->src) == &onnx__node_proto__descriptor ? n->src : NULL;
}

static bool is_value_node(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_CONST || n->kind == FL_OP_ONNX_ABSENT;
}

/* The ONNX value name of output `port` of n ("" for an absent input). */
static const char *value_name(owctx *w, const fl_node *n, int port) {
    if (n->kind == FL_OP_ONNX_ABSENT) {
        return "";
    }
    const void *src = n->src;
    if (desc_of(src) == &onnx__value_info_proto__descriptor) {
        return ((const Onnx__ValueInfoProto *)src)->name;
    }
    if (desc_of(src) == &onnx__tensor_proto__descriptor) {
        return ((const Onnx__TensorProto *)src)->name;
    }
    const Onnx__NodeProto *np = node_proto(n);
    if (np && (size_t)port < np->n_output && np->output[port][0]) {
        return np->output[port];
    }
    return port == 0 ? n->name : fl__arena_printf(w->a, "%s:%d", n->name, port);
}

static int32_t onnx_type_of(int dt) {
    for (int32_t t = 1; t <= 22; t++) {
        if ((int)fl__onnx_dtype(t) == dt) {
            return t;
        }
    }
    return 0;
}

/* The initializer of a constant node named `name`. */
static Onnx__TensorProto *tensor_msg(owctx *w, const fl_node *n, const char *name) {
    const fl_attr *va = fl__node_attr(n, "value");
    const fl_const *c = va && va->kind == FL_ATTR_TENSOR ? va->v.tensor : NULL;
    if (!c) {
        fl__node_fail(w->d, FL_EINVAL, n, "constant without a value attr cannot be written");
        return NULL;
    }
    Onnx__TensorProto *t = fl__arena_zalloc(w->a, sizeof(*t));
    if (!t) {
        return NULL;
    }
    if (desc_of(c->src) == &onnx__tensor_proto__descriptor) {
        *t = *(const Onnx__TensorProto *)c->src; /* shallow: shares the data */
        t->name = (char *)name;
        return t;
    }
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->data_type = onnx_type_of(c->dtype);
    t->has_data_type = 1;
    size_t es = fl__dtype_size(c->dtype);
    if (!t->data_type || !es || c->shape.rank < 0) {
        fl__node_fail(w->d, FL_EINVAL, n, "cannot write a %s constant to ONNX",
                      fl__dtype_name(c->dtype));
        return NULL;
    }
    t->n_dims = (size_t)c->shape.rank;
    t->dims = (int64_t *)c->shape.dims;
    const fl_value *v = c->value;
    if ((c->stripped || !v) && !w->model_stripped) {
        fl__node_fail(
            w->d, FL_EINVAL, n,
            "this constant made by the passes has no computed content (its inputs "
            "exceed %s or it exceeds %s): raise those limits to write the model with "
            "its weights",
            fl__diag_opt(w->d, "--max-value-elements", "options.limits.max_value_elements"),
            fl__diag_opt(w->d, "--max-folded-bytes", "options.max_folded_bytes"));
        return NULL;
    }
    if (c->stripped || !v) {
        return t; /* dims and type only: a stripped constant, as in a stripped model */
    }
    size_t nb = (size_t)v->n * es;
    uint8_t *buf = fl__arena_alloc(w->a, nb ? nb : 1);
    if (!buf) {
        return NULL;
    }
    if (v->ints) {
        for (int64_t i = 0; i < v->n; i++) {
            if (!fl_sym_is_known(v->ints[i])) {
                fl__node_fail(w->d, FL_EINVAL, n,
                              "cannot write a constant with a symbolic element");
                return NULL;
            }
            uint64_t x = (uint64_t)v->ints[i].k;
            for (size_t b = 0; b < es; b++) {
                buf[(size_t)i * es + b] = (uint8_t)(x >> (8 * b));
            }
        }
    } else if (v->raw) {
        memcpy(buf, v->raw, nb); /* raw values are little-endian already */
    }
    t->has_raw_data = 1;
    t->raw_data.data = buf;
    t->raw_data.len = nb;
    return t;
}

/* One IR attr as an AttributeProto; NULL with *skip for attrs not written. */
static Onnx__AttributeProto *attr_msg(owctx *w, const fl_node *n, const fl_attr *a, bool *skip) {
    *skip = a->name[0] == '_' || a->kind == FL_ATTR_NONE;
    if (*skip) {
        return NULL;
    }
    Onnx__AttributeProto *p = fl__arena_zalloc(w->a, sizeof(*p));
    if (!p) {
        return NULL;
    }
    onnx__attribute_proto__init(p);
    p->name = (char *)a->name;
    p->has_type = 1;
    switch (a->kind) {
    case FL_ATTR_I:
    case FL_ATTR_B:
    case FL_ATTR_TYPE:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        p->i = a->kind == FL_ATTR_I ? a->v.i : a->kind == FL_ATTR_B ? a->v.b : a->v.type;
        p->has_i = 1;
        return p;
    case FL_ATTR_F:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
        p->f = a->v.f;
        p->has_f = 1;
        return p;
    case FL_ATTR_S:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        p->s.data = (uint8_t *)a->v.s.p;
        p->s.len = a->v.s.len;
        p->has_s = 1;
        return p;
    case FL_ATTR_TENSOR: {
        fl_node tmp = *n;
        fl_attr va = *a;
        va.name = "value";
        tmp.attrs = &va;
        tmp.n_attrs = 1;
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
        p->t = tensor_msg(w, &tmp, "");
        return p->t ? p : NULL;
    }
    case FL_ATTR_LIST:
        if (a->list_kind == FL_ATTR_I || a->list_kind == FL_ATTR_NONE) {
            p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            p->n_ints = a->n;
            p->ints = (int64_t *)a->v.list.i;
            return p;
        }
        if (a->list_kind == FL_ATTR_F) {
            p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
            p->n_floats = a->n;
            p->floats = (float *)a->v.list.f;
            return p;
        }
        if (a->list_kind == FL_ATTR_S) {
            p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
            p->n_strings = a->n;
            p->strings = fl__arena_calloc(w->a, a->n + 1, sizeof(*p->strings));
            if (!p->strings) {
                return NULL;
            }
            for (size_t i = 0; i < a->n; i++) {
                p->strings[i].data = (uint8_t *)a->v.list.s[i].p;
                p->strings[i].len = a->v.list.s[i].len;
            }
            return p;
        }
        break;
    default:
        break;
    }
    fl__node_fail(w->d, FL_EINVAL, n, "attr '%s' cannot be written to ONNX", a->name);
    return NULL;
}

/* True when every int, float, string and int/float list attr of the IR is in the
 * NodeProto with that value (a node a pass rebuilt with the same op type,
 * e.g. a Gemm whose transB changed, is written from the IR). */
static bool proto_attrs_current(const Onnx__NodeProto *np, const fl_node *n) {
    for (int i = 0; i < n->n_attrs; i++) {
        const fl_attr *a = &n->attrs[i];
        if (a->name[0] == '_' || a->kind == FL_ATTR_NONE) {
            continue;
        }
        const Onnx__AttributeProto *p = NULL;
        for (size_t j = 0; j < np->n_attribute && !p; j++) {
            p = strcmp(np->attribute[j]->name, a->name) == 0 ? np->attribute[j] : NULL;
        }
        bool ints = a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_I;
        bool flts = a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_F;
        if (!p || (a->kind == FL_ATTR_I && p->i != a->v.i) ||
            (ints && (p->n_ints != a->n ||
                      (a->n && memcmp(p->ints, a->v.list.i, a->n * sizeof(int64_t)) != 0))) ||
            (flts && (p->n_floats != a->n ||
                      (a->n && memcmp(p->floats, a->v.list.f, a->n * sizeof(float)) != 0))) ||
            (a->kind == FL_ATTR_F && p->f != a->v.f) ||
            (a->kind == FL_ATTR_S &&
             (p->s.len != a->v.s.len ||
              (a->v.s.len && memcmp(p->s.data, a->v.s.p, a->v.s.len) != 0)))) {
            return false;
        }
    }
    return true;
}

/* The node's attributes: its NodeProto's when it keeps its imported op
 * type and attr values, else converted from the IR. */
static bool node_attrs(owctx *w, const fl_node *n, Onnx__NodeProto *out) {
    const Onnx__NodeProto *np = node_proto(n);
    if (np && np->op_type && strcmp(np->op_type, n->op) == 0 && proto_attrs_current(np, n)) {
        out->n_attribute = np->n_attribute;
        out->attribute = np->attribute;
        return true;
    }
    out->attribute = fl__arena_calloc(w->a, (size_t)n->n_attrs + 1, sizeof(*out->attribute));
    if (!out->attribute) {
        return false;
    }
    for (int i = 0; i < n->n_attrs; i++) {
        bool skip;
        Onnx__AttributeProto *p = attr_msg(w, n, &n->attrs[i], &skip);
        if (!p && !skip) {
            return false;
        }
        if (p) {
            out->attribute[out->n_attribute++] = p;
        }
    }
    return true;
}

static Onnx__NodeProto *node_msg(owctx *w, const fl_node *n) {
    Onnx__NodeProto *m = fl__arena_zalloc(w->a, sizeof(*m));
    const Onnx__NodeProto *np = node_proto(n);
    if (!m) {
        return NULL;
    }
    onnx__node_proto__init(m);
    m->name = (char *)n->name;
    m->op_type = (char *)n->op;
    const char *q = n->desc ? fl__op_name(n->kind) : NULL;
    const char *sep = q ? strstr(q, "::") : NULL;
    bool tf_identity = n->kind == FL_OP_IDENTITY; /* a pass's forwarding node */
    if (q && !sep && !tf_identity) {
        fl__node_fail(w->d, FL_EINVAL, n, "op %s has no ONNX form: the graph cannot be written",
                      n->op);
        return NULL;
    }
    if (sep && strncmp(q, "onnx::", 6) != 0) {
        m->domain = fl__arena_strndup(w->a, q, (size_t)(sep - q));
        w->ms_used |= strncmp(q, "com.microsoft::", 15) == 0;
    } else if (!sep && np) {
        m->domain = np->domain;
    }
    size_t n_out = np && np->n_output && np->n_output <= (size_t)n->n_outputs
                       ? np->n_output
                       : (size_t)n->n_outputs;
    m->input = fl__arena_calloc(w->a, (size_t)n->n_inputs + 1, sizeof(char *));
    m->output = fl__arena_calloc(w->a, n_out + 1, sizeof(char *));
    if (!m->input || !m->output) {
        return NULL;
    }
    for (int i = 0; i < n->n_inputs; i++) {
        m->input[m->n_input++] = (char *)value_name(w, n->inputs[i].node, n->inputs[i].port);
    }
    for (size_t p = 0; p < n_out; p++) {
        m->output[m->n_output++] = (char *)value_name(w, n, (int)p);
    }
    if (tf_identity) {
        m->domain = "";
        return m; /* ONNX Identity: no attrs */
    }
    return node_attrs(w, n, m) ? m : NULL;
}

/* Nodes and initializers of g into gp. */
static fl_status graph_body(owctx *w, Onnx__GraphProto *gp) {
    fl_graph *g = w->g;
    gp->node = fl__arena_calloc(w->a, g->n_nodes + 1, sizeof(*gp->node));
    gp->initializer = fl__arena_calloc(w->a, g->n_nodes + 1, sizeof(*gp->initializer));
    if (!gp->node || !gp->initializer) {
        return fl__diag_oom(w->d);
    }
    gp->n_node = gp->n_initializer = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->order[i];
        if (n->kind == FL_OP_CONST) {
            Onnx__TensorProto *t = tensor_msg(w, n, value_name(w, n, 0));
            if (!t) {
                return w->d->status != FL_OK ? w->d->status : fl__diag_oom(w->d);
            }
            gp->initializer[gp->n_initializer++] = t;
        } else if (!is_value_node(n)) {
            Onnx__NodeProto *m = node_msg(w, n);
            if (!m) {
                return w->d->status != FL_OK ? w->d->status : fl__diag_oom(w->d);
            }
            gp->node[gp->n_node++] = m;
        }
    }
    return FL_OK;
}

static bool produced(const Onnx__GraphProto *gp, const char *v) {
    for (size_t i = 0; i < gp->n_initializer; i++) {
        if (strcmp(gp->initializer[i]->name, v) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        for (size_t k = 0; k < gp->node[i]->n_output; k++) {
            if (strcmp(gp->node[i]->output[k], v) == 0) {
                return true;
            }
        }
    }
    return false;
}

/* Every use of value name `from` in gp (initializer and node inputs and
 * outputs) becomes `to`. */
static void rename_value(Onnx__GraphProto *gp, const char *from, const char *to) {
    for (size_t i = 0; i < gp->n_initializer; i++) {
        if (strcmp(gp->initializer[i]->name, from) == 0) {
            gp->initializer[i]->name = (char *)to;
        }
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *m = gp->node[i];
        for (size_t k = 0; k < m->n_input; k++) {
            m->input[k] = strcmp(m->input[k], from) == 0 ? (char *)to : m->input[k];
        }
        for (size_t k = 0; k < m->n_output; k++) {
            m->output[k] = strcmp(m->output[k], from) == 0 ? (char *)to : m->output[k];
        }
    }
}

/* A graph output the written graph does not produce under its name: a pass
 * rebuilt its producer (constant folding turns a node into a constant in
 * place, dropping its NodeProto, so the value took the node's name). The
 * producer's NodeProto names the node the importer made of it; that node's
 * value is renamed to the output's name. */
static fl_status keep_output_names(owctx *w, const Onnx__GraphProto *src, Onnx__GraphProto *gp) {
    for (size_t o = 0; o < src->n_output; o++) {
        const char *v = src->output[o]->name;
        if (produced(gp, v)) {
            continue;
        }
        const fl_node *n = NULL;
        int port = 0;
        for (size_t i = 0; i < src->n_node && !n; i++) {
            const Onnx__NodeProto *np = src->node[i];
            for (size_t k = 0; k < np->n_output && !n; k++) {
                if (strcmp(np->output[k], v) != 0) {
                    continue;
                }
                const char *ir = np->name && *np->name ? np->name : np->output[0];
                n = fl__graph_find(w->g, ir);
                port = (int)k;
            }
        }
        if (!n || port >= n->n_outputs || node_proto(n)) {
            return fl__diag_fail(w->d, FL_EINTERNAL,
                                 "graph output '%s' is not produced by the optimised graph", v);
        }
        rename_value(gp, value_name(w, n, port), v);
    }
    return FL_OK;
}

/* The imported graph inputs still present (feeds, live initializers). */
static fl_status graph_inputs(owctx *w, const Onnx__GraphProto *src, Onnx__GraphProto *gp) {
    gp->input = fl__arena_calloc(w->a, src->n_input + 1, sizeof(*gp->input));
    if (!gp->input) {
        return fl__diag_oom(w->d);
    }
    gp->n_input = 0;
    for (size_t i = 0; i < src->n_input; i++) {
        const fl_node *n = fl__graph_find(w->g, src->input[i]->name);
        if (n && (n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_CONST)) {
            gp->input[gp->n_input++] = src->input[i];
        }
    }
    return FL_OK;
}

/* The opset imports, with com.microsoft added when used and missing. */
static fl_status opsets(owctx *w, const Onnx__ModelProto *src, Onnx__ModelProto *m) {
    bool have = false;
    for (size_t i = 0; i < src->n_opset_import; i++) {
        const char *dom = src->opset_import[i]->domain;
        have |= dom && strcmp(dom, "com.microsoft") == 0;
    }
    if (!w->ms_used || have) {
        return FL_OK;
    }
    m->opset_import = fl__arena_calloc(w->a, src->n_opset_import + 2, sizeof(*m->opset_import));
    Onnx__OperatorSetIdProto *ms = fl__arena_zalloc(w->a, sizeof(*ms));
    if (!m->opset_import || !ms) {
        return fl__diag_oom(w->d);
    }
    memcpy(m->opset_import, src->opset_import, src->n_opset_import * sizeof(*m->opset_import));
    onnx__operator_set_id_proto__init(ms);
    ms->domain = "com.microsoft";
    ms->has_version = 1;
    ms->version = 1;
    m->opset_import[src->n_opset_import] = ms;
    m->n_opset_import = src->n_opset_import + 1;
    return FL_OK;
}

fl_status fl__onnx_write(fl_graph *g, uint8_t **out, size_t *len, fl_diag *d) {
    const Onnx__ModelProto *src = g->onnx.model;
    *out = NULL;
    *len = 0;
    if (!src || !src->graph) {
        return fl__diag_fail(d, FL_EINVAL,
                             "the graph was not imported from ONNX: nothing to write");
    }
    fl_status st = g->order ? FL_OK : fl__graph_toposort(g, d);
    if (st != FL_OK) {
        return st;
    }
    owctx w = {g, g->arena, d, false, false};
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        w.model_stripped |= n->kind == FL_OP_CONST && (n->flags & FL_NODE_STRIPPED) &&
                            desc_of(n->src) == &onnx__tensor_proto__descriptor;
    }
    Onnx__ModelProto *m = fl__arena_zalloc(w.a, sizeof(*m));
    Onnx__GraphProto *gp = fl__arena_zalloc(w.a, sizeof(*gp));
    if (!m || !gp) {
        return fl__diag_oom(d);
    }
    *m = *src;
    *gp = *src->graph;
    gp->n_value_info = 0;
    gp->value_info = NULL;
    m->graph = gp;
    if ((st = graph_body(&w, gp)) != FL_OK || (st = graph_inputs(&w, src->graph, gp)) != FL_OK ||
        (st = keep_output_names(&w, src->graph, gp)) != FL_OK ||
        (st = opsets(&w, src, m)) != FL_OK) {
        return st;
    }
    size_t n = onnx__model_proto__get_packed_size(m);
    if (n > (size_t)INT32_MAX) {
        return fl__diag_fail(d, FL_EUNSUPPORTED,
                             "the optimised model is %zu bytes, over protobuf's 2 GiB limit for "
                             "one message; writing initializers as external data is not supported",
                             n);
    }
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        return fl__diag_oom(d);
    }
    *len = onnx__model_proto__pack(m, buf);
    *out = buf;
    return FL_OK;
}
