/*
 * onnxbuild.c - see onnxbuild.h.
 */
#include "onnxbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OB_MAX 256

struct ob_model {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto *opsets[8];
    Onnx__NodeProto *nodes[OB_MAX];
    Onnx__TensorProto *inits[OB_MAX];
    Onnx__ValueInfoProto *inputs[OB_MAX];
    Onnx__ValueInfoProto *outputs[OB_MAX];
    void **blocks; /* every allocation, for ob_free */
    size_t n_blocks, cap_blocks;
};

static void *ob_alloc(ob_model *m, size_t size) {
    void *p = calloc(1, size ? size : 1);
    if (!p) {
        abort();
    }
    if (m->n_blocks == m->cap_blocks) {
        m->cap_blocks = m->cap_blocks ? m->cap_blocks * 2 : 64;
        m->blocks = realloc(m->blocks, m->cap_blocks * sizeof(void *));
        if (!m->blocks) {
            abort();
        }
    }
    m->blocks[m->n_blocks++] = p;
    return p;
}

static char *ob_strdup(ob_model *m, const char *s) {
    char *r = ob_alloc(m, strlen(s) + 1);
    memcpy(r, s, strlen(s) + 1);
    return r;
}

/* Splits "a,b,,c" into n strings (empty ones kept). */
static char **ob_split(ob_model *m, const char *s, size_t *n) {
    *n = 0;
    if (!s || !*s) {
        return NULL;
    }
    size_t cnt = 1;
    for (const char *p = s; *p; p++) {
        cnt += *p == ',';
    }
    char **out = ob_alloc(m, cnt * sizeof(char *));
    const char *start = s;
    for (size_t i = 0; i < cnt; i++) {
        const char *end = strchr(start, ',');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        out[i] = ob_alloc(m, len + 1);
        memcpy(out[i], start, len);
        start = end ? end + 1 : start + len;
    }
    *n = cnt;
    return out;
}

ob_model *ob_new(int64_t opset) {
    ob_model *m = calloc(1, sizeof(*m));
    if (!m) {
        abort();
    }
    onnx__model_proto__init(&m->model);
    onnx__graph_proto__init(&m->graph);
    m->model.has_ir_version = 1;
    m->model.ir_version = 7;
    m->model.graph = &m->graph;
    m->model.opset_import = m->opsets;
    m->graph.node = m->nodes;
    m->graph.initializer = m->inits;
    m->graph.input = m->inputs;
    m->graph.output = m->outputs;
    m->graph.name = "test";
    ob_opset(m, "", opset);
    return m;
}

void ob_opset(ob_model *m, const char *domain, int64_t version) {
    Onnx__OperatorSetIdProto *o = ob_alloc(m, sizeof(*o));
    onnx__operator_set_id_proto__init(o);
    o->domain = ob_strdup(m, domain);
    o->has_version = 1;
    o->version = version;
    m->opsets[m->model.n_opset_import++] = o;
}

void ob_input(ob_model *m, const char *name, int elem_type, int rank, const int64_t *dims,
              const char *const *params) {
    Onnx__ValueInfoProto *v = ob_alloc(m, sizeof(*v));
    Onnx__TypeProto *t = ob_alloc(m, sizeof(*t));
    Onnx__TypeProto__Tensor *tt = ob_alloc(m, sizeof(*tt));
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(t);
    onnx__type_proto__tensor__init(tt);
    v->name = ob_strdup(m, name);
    v->type = t;
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = tt;
    tt->has_elem_type = 1;
    tt->elem_type = elem_type;
    if (rank >= 0) {
        Onnx__TensorShapeProto *s = ob_alloc(m, sizeof(*s));
        onnx__tensor_shape_proto__init(s);
        s->n_dim = (size_t)rank;
        s->dim = ob_alloc(m, (size_t)rank * sizeof(*s->dim));
        for (int i = 0; i < rank; i++) {
            Onnx__TensorShapeProto__Dimension *d = ob_alloc(m, sizeof(*d));
            onnx__tensor_shape_proto__dimension__init(d);
            if (params && params[i]) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = ob_strdup(m, params[i]);
            } else if (dims[i] >= 0) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = dims[i];
            }
            s->dim[i] = d;
        }
        tt->shape = s;
    }
    m->inputs[m->graph.n_input++] = v;
}

void ob_input_wrap(ob_model *m, const char *how) {
    Onnx__ValueInfoProto *v = m->inputs[m->graph.n_input - 1];
    for (; *how; how++) {
        Onnx__TypeProto *t = ob_alloc(m, sizeof(*t));
        onnx__type_proto__init(t);
        if (*how == 's') {
            Onnx__TypeProto__Sequence *sq = ob_alloc(m, sizeof(*sq));
            onnx__type_proto__sequence__init(sq);
            sq->elem_type = v->type;
            t->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
            t->sequence_type = sq;
        } else if (*how == 'o') {
            Onnx__TypeProto__Optional *op = ob_alloc(m, sizeof(*op));
            onnx__type_proto__optional__init(op);
            op->elem_type = v->type;
            t->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
            t->optional_type = op;
        } else {
            Onnx__TypeProto__Map *mp = ob_alloc(m, sizeof(*mp));
            onnx__type_proto__map__init(mp);
            mp->has_key_type = 1;
            mp->key_type = OB_INT64;
            mp->value_type = v->type;
            t->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
            t->map_type = mp;
        }
        v->type = t;
    }
}

static Onnx__TensorProto *ob_tensor(ob_model *m, const char *name, int type, int rank,
                                    const int64_t *dims) {
    Onnx__TensorProto *t = ob_alloc(m, sizeof(*t));
    onnx__tensor_proto__init(t);
    if (name) {
        t->name = ob_strdup(m, name);
    }
    t->has_data_type = 1;
    t->data_type = type;
    t->n_dims = (size_t)rank;
    t->dims = ob_alloc(m, (size_t)(rank > 0 ? rank : 1) * sizeof(int64_t));
    for (int i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
    }
    return t;
}

static size_t ob_numel(int rank, const int64_t *dims) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= (size_t)dims[i];
    }
    return n;
}

Onnx__TensorProto *ob_init_f(ob_model *m, const char *name, int rank, const int64_t *dims,
                             bool stripped) {
    Onnx__TensorProto *t = ob_tensor(m, name, OB_FLOAT, rank, dims);
    if (!stripped) {
        size_t bytes = ob_numel(rank, dims) * 4;
        t->has_raw_data = 1;
        t->raw_data.len = bytes;
        t->raw_data.data = ob_alloc(m, bytes);
    }
    m->inits[m->graph.n_initializer++] = t;
    return t;
}

static void ob_fill_i64(ob_model *m, Onnx__TensorProto *t, size_t n, const int64_t *vals) {
    t->has_raw_data = 1;
    t->raw_data.len = n * 8;
    t->raw_data.data = ob_alloc(m, n * 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)vals[i];
        for (int b = 0; b < 8; b++) {
            t->raw_data.data[i * 8 + (size_t)b] = (uint8_t)(u >> (8 * b));
        }
    }
}

Onnx__TensorProto *ob_init_raw(ob_model *m, const char *name, int elem_type, int rank,
                               const int64_t *dims, const void *data, size_t bytes) {
    Onnx__TensorProto *t = ob_tensor(m, name, elem_type, rank, dims);
    if (data) {
        t->has_raw_data = 1;
        t->raw_data.len = bytes;
        t->raw_data.data = ob_alloc(m, bytes ? bytes : 1);
        memcpy(t->raw_data.data, data, bytes);
    }
    m->inits[m->graph.n_initializer++] = t;
    return t;
}

Onnx__TensorProto *ob_init_i64(ob_model *m, const char *name, int rank, const int64_t *dims,
                               const int64_t *vals) {
    Onnx__TensorProto *t = ob_tensor(m, name, OB_INT64, rank, dims);
    ob_fill_i64(m, t, ob_numel(rank, dims), vals);
    m->inits[m->graph.n_initializer++] = t;
    return t;
}

Onnx__NodeProto *ob_node(ob_model *m, const char *op, const char *name, const char *inputs,
                         const char *outputs) {
    Onnx__NodeProto *n = ob_alloc(m, sizeof(*n));
    onnx__node_proto__init(n);
    n->op_type = ob_strdup(m, op);
    n->name = ob_strdup(m, name);
    n->input = ob_split(m, inputs, &n->n_input);
    n->output = ob_split(m, outputs, &n->n_output);
    n->attribute = ob_alloc(m, 16 * sizeof(*n->attribute));
    m->nodes[m->graph.n_node++] = n;
    return n;
}

void ob_domain(ob_model *m, Onnx__NodeProto *n, const char *domain) {
    n->domain = ob_strdup(m, domain);
}

static Onnx__AttributeProto *ob_attr(ob_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__AttributeProto__AttributeType type) {
    Onnx__AttributeProto *a = ob_alloc(m, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = ob_strdup(m, name);
    a->has_type = 1;
    a->type = type;
    n->attribute[n->n_attribute++] = a;
    return a;
}

void ob_attr_i(ob_model *m, Onnx__NodeProto *n, const char *name, int64_t v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

void ob_attr_graph(ob_model *m, Onnx__NodeProto *n, const char *name, ob_model *body) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    a->g = &body->graph;
}

void ob_attr_f(ob_model *m, Onnx__NodeProto *n, const char *name, float v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

void ob_attr_s(ob_model *m, Onnx__NodeProto *n, const char *name, const char *v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = (uint8_t *)ob_strdup(m, v);
}

void ob_attr_strings(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt,
                     const char *const *v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->n_strings = cnt;
    a->strings = ob_alloc(m, (cnt ? cnt : 1) * sizeof(ProtobufCBinaryData));
    for (size_t i = 0; i < cnt; i++) {
        a->strings[i].len = strlen(v[i]);
        a->strings[i].data = (uint8_t *)ob_strdup(m, v[i]);
    }
}

void ob_attr_ints(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt, const int64_t *v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = cnt;
    a->ints = ob_alloc(m, (cnt ? cnt : 1) * sizeof(int64_t));
    memcpy(a->ints, v, cnt * sizeof(int64_t));
}

void ob_attr_floats(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt, const float *v) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a->n_floats = cnt;
    a->floats = ob_alloc(m, (cnt ? cnt : 1) * sizeof(float));
    memcpy(a->floats, v, cnt * sizeof(float));
}

void ob_attr_tensor_i64(ob_model *m, Onnx__NodeProto *n, const char *name, int rank,
                        const int64_t *dims, const int64_t *vals) {
    Onnx__AttributeProto *a = ob_attr(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = ob_tensor(m, NULL, OB_INT64, rank, dims);
    ob_fill_i64(m, a->t, ob_numel(rank, dims), vals);
}

void ob_output(ob_model *m, const char *name) {
    Onnx__ValueInfoProto *v = ob_alloc(m, sizeof(*v));
    onnx__value_info_proto__init(v);
    v->name = ob_strdup(m, name);
    m->outputs[m->graph.n_output++] = v;
}

void ob_outputs(ob_model *m, const char *prefix, int cnt) {
    for (int i = 1; i <= cnt; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        ob_output(m, name);
    }
}

void ob_output_typed(ob_model *m, const char *name, int elem_type, int rank, const int64_t *dims) {
    ob_input(m, name, elem_type, rank, dims, NULL);
    m->outputs[m->graph.n_output++] = m->inputs[--m->graph.n_input];
}

uint8_t *ob_pack(ob_model *m, size_t *len) {
    *len = onnx__model_proto__get_packed_size(&m->model);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (!buf) {
        abort();
    }
    onnx__model_proto__pack(&m->model, buf);
    return buf;
}

void ob_free(ob_model *m) {
    for (size_t i = 0; i < m->n_blocks; i++) {
        free(m->blocks[i]);
    }
    free(m->blocks);
    free(m);
}
