/*
 * graphdef_write.c - the IR as a binary GraphDef (protobuf-c structs from
 * proto/tensorflow), for `foldline optimize` and fl_report.graph_bytes.
 *
 * Messages are built in the graph's arena and packed once. Unchanged parts
 * are shared with the unpacked original (g->src): the function library, the
 * versions, and the TensorProto of every constant that came from the file.
 */
#include "export/graphdef_write.h"

#include "graph/mutate.h"
#include "tensorflow/graph.pb-c.h"
#include "util/reserved.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wctx {
    fl_arena *a;
    fl_diag *d;
    const fl_node *node; /* for messages */
} wctx;

static void *wz(wctx *w, size_t size) {
    return fl__arena_zalloc(w->a, size);
}

static Tensorflow__TensorShapeProto *shape_msg(wctx *w, int rank, const int64_t *dims) {
    Tensorflow__TensorShapeProto *s = wz(w, sizeof(*s));
    if (!s) {
        return NULL;
    }
    tensorflow__tensor_shape_proto__init(s);
    if (rank < 0) {
        s->unknown_rank = 1;
        return s;
    }
    s->n_dim = (size_t)rank;
    s->dim = fl__arena_calloc(w->a, (size_t)rank + 1, sizeof(*s->dim));
    if (!s->dim) {
        return NULL;
    }
    for (int i = 0; i < rank; i++) {
        Tensorflow__TensorShapeProto__Dim *dm = wz(w, sizeof(*dm));
        if (!dm) {
            return NULL;
        }
        tensorflow__tensor_shape_proto__dim__init(dm);
        dm->size = dims[i];
        s->dim[i] = dm;
    }
    return s;
}

/* A TensorProto for a constant: its original when it has one, else built
 * from its value (little-endian tensor_content), or dtype and shape only for
 * a stripped constant. */
static Tensorflow__TensorProto *tensor_msg(wctx *w, const fl_const *c) {
    if (c->src) {
        return (Tensorflow__TensorProto *)c->src;
    }
    Tensorflow__TensorProto *t = wz(w, sizeof(*t));
    if (!t) {
        return NULL;
    }
    tensorflow__tensor_proto__init(t);
    t->dtype = (Tensorflow__DataType)c->dtype;
    t->tensor_shape = shape_msg(w, c->shape.rank, c->shape.dims);
    if (!t->tensor_shape) {
        return NULL;
    }
    if (c->stripped) {
        return t;
    }
    const fl_value *v = c->value;
    size_t es = fl__dtype_size(c->dtype);
    if (!v || !es) {
        fl__node_fail(w->d, FL_EINVAL, w->node, "cannot write a %s constant without a value",
                      fl__dtype_name(c->dtype));
        return NULL;
    }
    size_t nb = (size_t)v->n * es;
    uint8_t *buf = fl__arena_alloc(w->a, nb ? nb : 1);
    if (!buf) {
        return NULL;
    }
    if (v->ints) {
        for (int64_t i = 0; i < v->n; i++) {
            fl_sym s = v->ints[i];
            if (!fl_sym_is_known(s)) {
                fl__node_fail(w->d, FL_EINVAL, w->node,
                              "cannot write a constant with a symbolic element");
                return NULL;
            }
            uint64_t x = (uint64_t)s.k;
            for (size_t b = 0; b < es; b++) {
                buf[(size_t)i * es + b] = (uint8_t)(x >> (8 * b));
            }
        }
    } else if (v->raw) {
        memcpy(buf, v->raw, nb); /* raw values are little-endian already */
    }
    t->tensor_content.data = buf;
    t->tensor_content.len = nb;
    return t;
}

static Tensorflow__AttrValue *attr_msg(wctx *w, const fl_attr *a);

static Tensorflow__NameAttrList *func_msg(wctx *w, const fl_func_ref *f) {
    Tensorflow__NameAttrList *m = wz(w, sizeof(*m));
    if (!m) {
        return NULL;
    }
    tensorflow__name_attr_list__init(m);
    m->name = (char *)f->name;
    m->n_attr = (size_t)f->n_attrs;
    m->attr = fl__arena_calloc(w->a, m->n_attr + 1, sizeof(*m->attr));
    if (!m->attr) {
        return NULL;
    }
    for (int i = 0; i < f->n_attrs; i++) {
        Tensorflow__NameAttrList__AttrEntry *e = wz(w, sizeof(*e));
        if (!e) {
            return NULL;
        }
        tensorflow__name_attr_list__attr_entry__init(e);
        e->key = (char *)f->attrs[i].name;
        e->value = attr_msg(w, &f->attrs[i]);
        if (!e->value) {
            return NULL;
        }
        m->attr[i] = e;
    }
    return m;
}

static ProtobufCBinaryData bin(fl_str s) {
    ProtobufCBinaryData b = {s.len, (uint8_t *)s.p};
    return b;
}

static bool list_msg(wctx *w, const fl_attr *a, Tensorflow__AttrValue__ListValue *l) {
    size_t n = a->n;
    switch (a->list_kind) {
    case FL_ATTR_S:
        l->s = fl__arena_calloc(w->a, n + 1, sizeof(*l->s));
        if (!l->s) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->s[i] = bin(a->v.list.s[i]);
        }
        l->n_s = n;
        return true;
    case FL_ATTR_I:
        l->i = (int64_t *)a->v.list.i;
        l->n_i = n;
        return true;
    case FL_ATTR_F:
        l->f = (float *)a->v.list.f;
        l->n_f = n;
        return true;
    case FL_ATTR_B:
        l->b = fl__arena_calloc(w->a, n + 1, sizeof(*l->b));
        if (!l->b) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->b[i] = a->v.list.b[i];
        }
        l->n_b = n;
        return true;
    case FL_ATTR_TYPE:
        l->type = fl__arena_calloc(w->a, n + 1, sizeof(*l->type));
        if (!l->type) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->type[i] = (Tensorflow__DataType)a->v.list.type[i];
        }
        l->n_type = n;
        return true;
    case FL_ATTR_SHAPE:
        l->shape = fl__arena_calloc(w->a, n + 1, sizeof(*l->shape));
        if (!l->shape) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->shape[i] = shape_msg(w, a->v.list.shape[i].rank, a->v.list.shape[i].dims);
            if (!l->shape[i]) {
                return false;
            }
        }
        l->n_shape = n;
        return true;
    case FL_ATTR_TENSOR:
        l->tensor = fl__arena_calloc(w->a, n + 1, sizeof(*l->tensor));
        if (!l->tensor) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->tensor[i] = tensor_msg(w, a->v.list.tensor[i]);
            if (!l->tensor[i]) {
                return false;
            }
        }
        l->n_tensor = n;
        return true;
    case FL_ATTR_FUNC:
        l->func = fl__arena_calloc(w->a, n + 1, sizeof(*l->func));
        if (!l->func) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            l->func[i] = func_msg(w, &a->v.list.func[i]);
            if (!l->func[i]) {
                return false;
            }
        }
        l->n_func = n;
        return true;
    default:
        return true; /* an empty list */
    }
}

/* One attr as an AttrValue (NULL on failure, d failed or arena failed). */
static Tensorflow__AttrValue *attr_msg(wctx *w, const fl_attr *a) {
    Tensorflow__AttrValue *m = wz(w, sizeof(*m));
    if (!m) {
        return NULL;
    }
    tensorflow__attr_value__init(m);
    switch (a->kind) {
    case FL_ATTR_S:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
        m->s = bin(a->v.s);
        break;
    case FL_ATTR_I:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
        m->i = a->v.i;
        break;
    case FL_ATTR_F:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
        m->f = a->v.f;
        break;
    case FL_ATTR_B:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
        m->b = a->v.b;
        break;
    case FL_ATTR_TYPE:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
        m->type = (Tensorflow__DataType)a->v.type;
        break;
    case FL_ATTR_SHAPE:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
        m->shape = shape_msg(w, a->v.shape.rank, a->v.shape.dims);
        if (!m->shape) {
            return NULL;
        }
        break;
    case FL_ATTR_TENSOR:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
        if (!a->v.tensor) {
            fl__node_fail(w->d, FL_EINVAL, w->node, "attr '%s' has no tensor", a->name);
            return NULL;
        }
        m->tensor = tensor_msg(w, a->v.tensor);
        if (!m->tensor) {
            return NULL;
        }
        break;
    case FL_ATTR_FUNC:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
        m->func = func_msg(w, &a->v.func);
        if (!m->func) {
            return NULL;
        }
        break;
    case FL_ATTR_PLACEHOLDER:
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
        m->placeholder = (char *)a->v.placeholder;
        break;
    case FL_ATTR_LIST: {
        Tensorflow__AttrValue__ListValue *l = wz(w, sizeof(*l));
        if (!l) {
            return NULL;
        }
        tensorflow__attr_value__list_value__init(l);
        if (!list_msg(w, a, l)) {
            return NULL;
        }
        m->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
        m->list = l;
        break;
    }
    default:
        break; /* an AttrValue with nothing set */
    }
    return m;
}

static Tensorflow__NodeDef *node_msg(wctx *w, const fl_node *n) {
    Tensorflow__NodeDef *m = wz(w, sizeof(*m));
    if (!m) {
        return NULL;
    }
    tensorflow__node_def__init(m);
    w->node = n;
    m->name = (char *)n->name;
    m->op = (char *)n->op;
    m->device = (char *)(n->device ? n->device : "");
    size_t n_in = (size_t)n->n_inputs + (size_t)n->n_ctrl;
    m->input = fl__arena_calloc(w->a, n_in + 1, sizeof(char *));
    if (!m->input) {
        return NULL;
    }
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_input *in = &n->inputs[i];
        m->input[m->n_input++] = in->port == 0
                                     ? (char *)in->node->name
                                     : fl__arena_printf(w->a, "%s:%d", in->node->name, in->port);
    }
    for (int i = 0; i < n->n_ctrl; i++) {
        m->input[m->n_input++] = fl__arena_printf(w->a, "^%s", n->ctrl[i]->name);
    }
    for (size_t i = 0; i < m->n_input; i++) {
        if (!m->input[i]) {
            return NULL;
        }
    }
    /* A stripped constant announces itself with _stripped_content_bytes. */
    const fl_attr *value = fl__node_attr(n, "value");
    bool add_stripped = (n->flags & FL_NODE_STRIPPED) && value && value->kind == FL_ATTR_TENSOR &&
                        value->v.tensor && !fl__node_attr(n, "_stripped_content_bytes");
    m->attr = fl__arena_calloc(w->a, (size_t)n->n_attrs + 2, sizeof(*m->attr));
    if (!m->attr) {
        return NULL;
    }
    for (int i = 0; i < n->n_attrs + (add_stripped ? 1 : 0); i++) {
        /* The engine's own attrs are not written (an import drops them),
         * but for a lowered While's markers (src/import/reserved_attrs.c). */
        if (i < n->n_attrs && fl__attr_reserved(n->attrs[i].name) &&
            !fl__attr_loop_marker(n->attrs[i].name)) {
            continue;
        }
        Tensorflow__NodeDef__AttrEntry *e = wz(w, sizeof(*e));
        if (!e) {
            return NULL;
        }
        tensorflow__node_def__attr_entry__init(e);
        if (i < n->n_attrs) {
            e->key = (char *)n->attrs[i].name;
            e->value = attr_msg(w, &n->attrs[i]);
        } else {
            fl_attr sb = {0};
            sb.name = "_stripped_content_bytes";
            sb.kind = FL_ATTR_I;
            sb.v.i = (int64_t)value->v.tensor->content_bytes;
            e->key = (char *)sb.name;
            e->value = attr_msg(w, &sb);
        }
        if (!e->value) {
            return NULL;
        }
        m->attr[m->n_attr++] = e;
    }
    return m;
}

fl_status fl__graphdef_write(const fl_graph *g, uint8_t **out, size_t *len, fl_diag *d) {
    *out = NULL;
    *len = 0;
    wctx w = {g->arena, d, NULL};
    const Tensorflow__GraphDef *orig = g->src;
    Tensorflow__GraphDef gd;
    tensorflow__graph_def__init(&gd);
    Tensorflow__VersionDef ver;
    tensorflow__version_def__init(&ver);
    ver.producer = g->producer;
    gd.versions = orig && orig->versions ? orig->versions : &ver;
    gd.library = orig ? orig->library : NULL;
    gd.node = fl__arena_calloc(g->arena, g->n_nodes + 1, sizeof(*gd.node));
    if (!gd.node) {
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->flags & FL_NODE_REMOVED) {
            continue; /* not compacted yet */
        }
        Tensorflow__NodeDef *nd = node_msg(&w, g->nodes[i]);
        if (!nd) {
            return d->status != FL_OK ? d->status : fl__diag_oom(d);
        }
        gd.node[gd.n_node++] = nd;
    }
    size_t size = tensorflow__graph_def__get_packed_size(&gd);
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        return fl__diag_oom(d);
    }
    *len = tensorflow__graph_def__pack(&gd, buf);
    *out = buf;
    return FL_OK;
}
