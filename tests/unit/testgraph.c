/*
 * testgraph.c - GraphDef builder for tests; see testgraph.h.
 *
 * Messages are built with the protobuf-c structs generated from proto/ and
 * packed with the generated packer, so tests feed the importer real bytes.
 * All memory lives in one arena released by tg_free().
 */
#include "testgraph.h"

#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"
#include "testutil.h"
#include "util/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tg_node {
    Tensorflow__NodeDef nd;
    size_t cap_attr;
};

struct tg_graph {
    fl_arena arena;
    Tensorflow__GraphDef gd;
    Tensorflow__VersionDef versions;
    size_t cap_node;
};

static void *must(void *p) {
    if (!p) {
        fail_msg("testgraph: out of memory");
    }
    return p;
}

tg_graph *tg_new(void) {
    tg_graph *g = must(calloc(1, sizeof(*g)));
    fl__arena_init(&g->arena, 0);
    tensorflow__graph_def__init(&g->gd);
    tensorflow__version_def__init(&g->versions);
    return g;
}

void tg_free(tg_graph *g) {
    if (g) {
        fl__arena_free(&g->arena);
        free(g);
    }
}

void tg_producer(tg_graph *g, int producer) {
    g->versions.producer = producer;
    g->gd.versions = &g->versions;
}

static char *dup(tg_graph *g, const char *s) {
    return must(fl__arena_strdup(&g->arena, s));
}

/* Attr helpers take only the node; they allocate in the arena of the graph
 * most recently passed to tg_add (tests build one graph at a time). */
static tg_graph *current;

tg_node *tg_find_node(tg_graph *g, const char *name) {
    current = g;
    for (size_t i = 0; i < g->gd.n_node; i++) {
        if (strcmp(g->gd.node[i]->name, name) == 0) {
            return (tg_node *)g->gd.node[i];
        }
    }
    fail_msg("testgraph: no node '%s'", name);
    return NULL;
}

tg_node *tg_add(tg_graph *g, const char *name, const char *op, ...) {
    current = g;
    tg_node *n = must(fl__arena_zalloc(&g->arena, sizeof(*n)));
    tensorflow__node_def__init(&n->nd);
    n->nd.name = dup(g, name);
    n->nd.op = dup(g, op);
    va_list ap;
    va_start(ap, op);
    const char *in;
    size_t cnt = 0;
    char *ins[64];
    while ((in = va_arg(ap, const char *)) != NULL && cnt < 64) {
        ins[cnt++] = dup(g, in);
    }
    va_end(ap);
    n->nd.n_input = cnt;
    n->nd.input = must(fl__arena_calloc(&g->arena, cnt + 1, sizeof(char *)));
    memcpy(n->nd.input, ins, cnt * sizeof(char *));
    if (g->gd.n_node == g->cap_node) {
        size_t nc = g->cap_node ? g->cap_node * 2 : 16;
        g->gd.node = must(fl__arena_grow(&g->arena, g->gd.node, g->gd.n_node, nc, sizeof(void *)));
        g->cap_node = nc;
    }
    g->gd.node[g->gd.n_node++] = &n->nd;
    n->nd.device = (char *)"";
    return n;
}

void tg_input(tg_node *n, const char *in) {
    fl_arena *a = &current->arena;
    char **v = must(fl__arena_calloc(a, n->nd.n_input + 2, sizeof(char *)));
    memcpy(v, n->nd.input, n->nd.n_input * sizeof(char *));
    v[n->nd.n_input++] = must(fl__arena_strdup(a, in));
    n->nd.input = v;
}

static Tensorflow__AttrValue *new_attr(tg_node *n, const char *key) {
    fl_arena *a = &current->arena;
    Tensorflow__NodeDef__AttrEntry *e = must(fl__arena_zalloc(a, sizeof(*e)));
    tensorflow__node_def__attr_entry__init(e);
    e->key = must(fl__arena_strdup(a, key));
    Tensorflow__AttrValue *v = must(fl__arena_zalloc(a, sizeof(*v)));
    tensorflow__attr_value__init(v);
    e->value = v;
    if (n->nd.n_attr == n->cap_attr) {
        size_t nc = n->cap_attr ? n->cap_attr * 2 : 4;
        n->nd.attr = must(fl__arena_grow(a, n->nd.attr, n->nd.n_attr, nc, sizeof(void *)));
        n->cap_attr = nc;
    }
    n->nd.attr[n->nd.n_attr++] = e;
    return v;
}

void tg_attr_int(tg_node *n, const char *key, int64_t v) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
    a->i = v;
}

void tg_attr_float(tg_node *n, const char *key, float v) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
    a->f = v;
}

void tg_attr_bool(tg_node *n, const char *key, int v) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
    a->b = v != 0;
}

void tg_attr_type(tg_node *n, const char *key, int dtype) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
    a->type = (Tensorflow__DataType)dtype;
}

void tg_attr_func(tg_node *n, const char *key, const char *fn) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    Tensorflow__NameAttrList *f = must(fl__arena_zalloc(&current->arena, sizeof(*f)));
    tensorflow__name_attr_list__init(f);
    f->name = must(fl__arena_strdup(&current->arena, fn));
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
    a->func = f;
}

static Tensorflow__AttrValue__ListValue *new_list(tg_node *n, const char *key);

void tg_attr_funcs(tg_node *n, const char *key, size_t count, const char *const *fns) {
    Tensorflow__AttrValue__ListValue *l = new_list(n, key);
    l->n_func = count;
    l->func = must(fl__arena_calloc(&current->arena, count + 1, sizeof(*l->func)));
    for (size_t i = 0; i < count; i++) {
        Tensorflow__NameAttrList *f = must(fl__arena_zalloc(&current->arena, sizeof(*f)));
        tensorflow__name_attr_list__init(f);
        f->name = must(fl__arena_strdup(&current->arena, fns[i]));
        l->func[i] = f;
    }
}

void tg_attr_placeholder(tg_node *n, const char *key, const char *name) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
    a->placeholder = must(fl__arena_strdup(&current->arena, name));
}

void tg_attr_str(tg_node *n, const char *key, const char *v) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
    a->s.data = (uint8_t *)must(fl__arena_strdup(&current->arena, v));
    a->s.len = strlen(v);
}

static Tensorflow__TensorShapeProto *shape_proto(int rank, const int64_t *dims) {
    fl_arena *a = &current->arena;
    Tensorflow__TensorShapeProto *s = must(fl__arena_zalloc(a, sizeof(*s)));
    tensorflow__tensor_shape_proto__init(s);
    if (rank < 0) {
        s->unknown_rank = 1;
        return s;
    }
    s->n_dim = (size_t)rank;
    s->dim = must(fl__arena_calloc(a, (size_t)rank + 1, sizeof(void *)));
    for (int i = 0; i < rank; i++) {
        Tensorflow__TensorShapeProto__Dim *d = must(fl__arena_zalloc(a, sizeof(*d)));
        tensorflow__tensor_shape_proto__dim__init(d);
        d->size = dims[i];
        s->dim[i] = d;
    }
    return s;
}

void tg_attr_shape(tg_node *n, const char *key, int rank, const int64_t *dims) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
    a->shape = shape_proto(rank, dims);
}

static Tensorflow__AttrValue__ListValue *new_list(tg_node *n, const char *key) {
    Tensorflow__AttrValue *a = new_attr(n, key);
    Tensorflow__AttrValue__ListValue *l = must(fl__arena_zalloc(&current->arena, sizeof(*l)));
    tensorflow__attr_value__list_value__init(l);
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    a->list = l;
    return l;
}

void tg_attr_ints(tg_node *n, const char *key, size_t count, const int64_t *v) {
    Tensorflow__AttrValue__ListValue *l = new_list(n, key);
    l->n_i = count;
    l->i = must(fl__arena_calloc(&current->arena, count + 1, sizeof(int64_t)));
    memcpy(l->i, v, count * sizeof(int64_t));
}

void tg_attr_strs(tg_node *n, const char *key, size_t count, const char *const *v) {
    Tensorflow__AttrValue__ListValue *l = new_list(n, key);
    l->n_s = count;
    l->s = must(fl__arena_calloc(&current->arena, count + 1, sizeof(ProtobufCBinaryData)));
    for (size_t i = 0; i < count; i++) {
        l->s[i].data = (uint8_t *)must(fl__arena_strdup(&current->arena, v[i]));
        l->s[i].len = strlen(v[i]);
    }
}

void tg_attr_types(tg_node *n, const char *key, size_t count, const int *v) {
    Tensorflow__AttrValue__ListValue *l = new_list(n, key);
    l->n_type = count;
    l->type = must(fl__arena_calloc(&current->arena, count + 1, sizeof(Tensorflow__DataType)));
    for (size_t i = 0; i < count; i++) {
        l->type[i] = (Tensorflow__DataType)v[i];
    }
}

static Tensorflow__TensorProto *tensor_proto(int dtype, int rank, const int64_t *dims) {
    Tensorflow__TensorProto *t = must(fl__arena_zalloc(&current->arena, sizeof(*t)));
    tensorflow__tensor_proto__init(t);
    t->dtype = (Tensorflow__DataType)dtype;
    t->tensor_shape = shape_proto(rank, dims);
    return t;
}

static int64_t count_of(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    return n;
}

tg_node *tg_const_f32(tg_graph *g, const char *name, int rank, const int64_t *dims,
                      const float *values, int stripped) {
    current = g;
    tg_node *n = tg_add(g, name, "Const", NULL);
    tg_attr_type(n, "dtype", 1);
    Tensorflow__AttrValue *a = new_attr(n, "value");
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    a->tensor = tensor_proto(1, rank, dims);
    int64_t cnt = count_of(rank, dims);
    if (stripped) {
        tg_attr_int(n, "_stripped_content_bytes", cnt * 4);
        return n;
    }
    float *buf = must(fl__arena_calloc(&g->arena, (size_t)cnt + 1, sizeof(float)));
    for (int64_t i = 0; i < cnt; i++) {
        buf[i] = values ? values[i] : (float)((i % 7) - 3) * 0.125f;
    }
    a->tensor->tensor_content.data = (uint8_t *)buf;
    a->tensor->tensor_content.len = (size_t)cnt * 4;
    return n;
}

tg_node *tg_const_int(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims,
                      const int64_t *values) {
    current = g;
    tg_node *n = tg_add(g, name, "Const", NULL);
    tg_attr_type(n, "dtype", dtype);
    Tensorflow__AttrValue *a = new_attr(n, "value");
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    a->tensor = tensor_proto(dtype, rank, dims);
    int64_t cnt = count_of(rank, dims);
    if (dtype == 9) {
        a->tensor->n_int64_val = (size_t)cnt;
        a->tensor->int64_val = must(fl__arena_calloc(&g->arena, (size_t)cnt + 1, 8));
        memcpy(a->tensor->int64_val, values, (size_t)cnt * 8);
    } else {
        a->tensor->n_int_val = (size_t)cnt;
        a->tensor->int_val = must(fl__arena_calloc(&g->arena, (size_t)cnt + 1, 4));
        for (int64_t i = 0; i < cnt; i++) {
            a->tensor->int_val[i] = (int32_t)values[i];
        }
    }
    return n;
}

tg_node *tg_const_raw(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims,
                      const void *bytes, size_t len) {
    current = g;
    tg_node *n = tg_add(g, name, "Const", NULL);
    tg_attr_type(n, "dtype", dtype);
    Tensorflow__AttrValue *a = new_attr(n, "value");
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    a->tensor = tensor_proto(dtype, rank, dims);
    uint8_t *buf = must(fl__arena_alloc(&g->arena, len + 1));
    memcpy(buf, bytes, len);
    a->tensor->tensor_content.data = buf;
    a->tensor->tensor_content.len = len;
    return n;
}

tg_node *tg_const_f32_vals(tg_graph *g, const char *name, int rank, const int64_t *dims,
                           const float *vals, size_t n_vals) {
    current = g;
    tg_node *n = tg_add(g, name, "Const", NULL);
    tg_attr_type(n, "dtype", 1);
    Tensorflow__AttrValue *a = new_attr(n, "value");
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    a->tensor = tensor_proto(1, rank, dims);
    a->tensor->n_float_val = n_vals;
    a->tensor->float_val = must(fl__arena_calloc(&g->arena, n_vals + 1, sizeof(float)));
    if (n_vals) {
        memcpy(a->tensor->float_val, vals, n_vals * sizeof(float));
    }
    return n;
}

tg_node *tg_const_i32_vals(tg_graph *g, const char *name, int rank, const int64_t *dims,
                           const int32_t *vals, size_t n_vals) {
    current = g;
    tg_node *n = tg_add(g, name, "Const", NULL);
    tg_attr_type(n, "dtype", 3);
    Tensorflow__AttrValue *a = new_attr(n, "value");
    a->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    a->tensor = tensor_proto(3, rank, dims);
    a->tensor->n_int_val = n_vals;
    a->tensor->int_val = must(fl__arena_calloc(&g->arena, n_vals + 1, sizeof(int32_t)));
    memcpy(a->tensor->int_val, vals, n_vals * sizeof(int32_t));
    return n;
}

uint8_t *tg_pack_savedmodel(tg_graph *g, const char *tag, size_t *len) {
    Tensorflow__MetaGraphDef__MetaInfoDef info;
    tensorflow__meta_graph_def__meta_info_def__init(&info);
    char *tags[1] = {(char *)tag};
    info.n_tags = 1;
    info.tags = tags;
    Tensorflow__MetaGraphDef mg;
    tensorflow__meta_graph_def__init(&mg);
    mg.meta_info_def = &info;
    mg.graph_def = &g->gd;
    Tensorflow__MetaGraphDef *mgs[1] = {&mg};
    Tensorflow__SavedModel sm;
    tensorflow__saved_model__init(&sm);
    sm.saved_model_schema_version = 1;
    sm.n_meta_graphs = 1;
    sm.meta_graphs = mgs;
    size_t n = tensorflow__saved_model__get_packed_size(&sm);
    uint8_t *buf = must(malloc(n ? n : 1));
    *len = tensorflow__saved_model__pack(&sm, buf);
    return buf;
}

tg_node *tg_placeholder(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims) {
    current = g;
    tg_node *n = tg_add(g, name, "Placeholder", NULL);
    tg_attr_type(n, "dtype", dtype);
    tg_attr_shape(n, "shape", rank, dims);
    return n;
}

static Tensorflow__OpDef__ArgDef **arg_defs(tg_graph *g, size_t n, const char *const *names,
                                            const int *types) {
    Tensorflow__OpDef__ArgDef **v = must(fl__arena_calloc(&g->arena, n + 1, sizeof(*v)));
    for (size_t i = 0; i < n; i++) {
        v[i] = must(fl__arena_zalloc(&g->arena, sizeof(**v)));
        tensorflow__op_def__arg_def__init(v[i]);
        v[i]->name = dup(g, names[i]);
        v[i]->type = (Tensorflow__DataType)types[i];
    }
    return v;
}

void tg_function(tg_graph *g, tg_graph *body, const char *name, size_t n_in,
                 const char *const *in_names, const int *in_types, size_t n_out,
                 const char *const *out_names, const int *out_types, const char *const *rets) {
    fl_arena *a = &g->arena;
    Tensorflow__FunctionDef *f = must(fl__arena_zalloc(a, sizeof(*f)));
    tensorflow__function_def__init(f);
    Tensorflow__OpDef *sig = must(fl__arena_zalloc(a, sizeof(*sig)));
    tensorflow__op_def__init(sig);
    sig->name = dup(g, name);
    sig->n_input_arg = n_in;
    sig->input_arg = arg_defs(g, n_in, in_names, in_types);
    sig->n_output_arg = n_out;
    sig->output_arg = arg_defs(g, n_out, out_names, out_types);
    f->signature = sig;
    f->n_node_def = body->gd.n_node;
    f->node_def = body->gd.node;
    f->n_ret = n_out;
    f->ret = must(fl__arena_calloc(a, n_out + 1, sizeof(*f->ret)));
    for (size_t i = 0; i < n_out; i++) {
        f->ret[i] = must(fl__arena_zalloc(a, sizeof(**f->ret)));
        tensorflow__function_def__ret_entry__init(f->ret[i]);
        f->ret[i]->key = dup(g, out_names[i]);
        f->ret[i]->value = dup(g, rets[i]);
    }
    if (!g->gd.library) {
        g->gd.library = must(fl__arena_zalloc(a, sizeof(*g->gd.library)));
        tensorflow__function_def_library__init(g->gd.library);
    }
    Tensorflow__FunctionDefLibrary *lib = g->gd.library;
    lib->function = must(
        fl__arena_grow(a, lib->function, lib->n_function, lib->n_function + 1, sizeof(void *)));
    lib->function[lib->n_function++] = f;
    current = g;
}

const uint8_t *tg_keep(struct fl_arena *a, uint8_t *buf, size_t len) {
    uint8_t *own = fl__arena_alloc(a, len ? len : 1);
    assert_non_null(own);
    memcpy(own, buf, len);
    free(buf);
    return own;
}

uint8_t *tg_pack(tg_graph *g, size_t *len) {
    size_t n = tensorflow__graph_def__get_packed_size(&g->gd);
    uint8_t *buf = must(malloc(n ? n : 1));
    *len = tensorflow__graph_def__pack(&g->gd, buf);
    return buf;
}

tg_graph *tg_every_pass_graph(void) {
    tg_graph *t = tg_new();
    tg_placeholder(t, "x", 1, 2, (int64_t[]){-1, 16});
    tg_const_f32(t, "one", 0, NULL, (float[]){1}, 0);
    tg_const_f32(t, "c1", 1, (int64_t[]){16}, NULL, 0);
    tg_const_f32(t, "c2", 1, (int64_t[]){16}, NULL, 0);
    tg_attr_type(tg_add(t, "i", "Identity", "x", NULL), "T", 1);
    tg_attr_type(tg_add(t, "m", "Mul", "i", "one", NULL), "T", 1);
    tg_attr_type(tg_add(t, "s", "AddV2", "c1", "c2", NULL), "T", 1);
    tg_attr_type(tg_add(t, "k", "Neg", "s", NULL), "T", 1);
    tg_attr_type(tg_add(t, "a", "AddV2", "m", "k", NULL), "T", 1);
    tg_add(t, "dep", "NoOp", NULL);
    tg_attr_type(tg_add(t, "y", "Neg", "a", "^dep", NULL), "T", 1);
    tg_attr_type(tg_add(t, "z", "Relu", "m", NULL), "T", 1);
    return t;
}

fl_report *tg_analyze_bytes(const void *buf, size_t len, const fl_options *opt) {
    fl_options dflt;
    if (!opt) {
        fl_options_init(&dflt);
        dflt.per_node = true;
        opt = &dflt;
    }
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, opt, &r);
    if (st != FL_OK) {
        fail_msg("analysis failed: %s: %s", fl_status_name(st), r && r->error ? r->error : "");
    }
    return r;
}

fl_report *tg_analyze(tg_graph *g, const fl_options *opt) {
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    fl_report *r = tg_analyze_bytes(buf, len, opt);
    free(buf);
    return r;
}

void tg_expect_error(tg_graph *g, const fl_options *opt, fl_status want, const char *needle) {
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, opt, &r);
    free(buf);
    const char *msg = r && r->error ? r->error : "";
    if (st != want || !strstr(msg, needle)) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", msg);
        fl_report_free(r);
        fail_msg("expected %s with '%s', got %s: %s", fl_status_name(want), needle,
                 fl_status_name(st), copy);
    }
    fl_report_free(r);
}

const fl_report_node *tg_find(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        if (strcmp(r->nodes[i].name, name) == 0) {
            return &r->nodes[i];
        }
    }
    fail_msg("node '%s' not in report", name);
    return NULL;
}

void tg_expect_shape(const fl_report *r, const char *name, int port, const char *want) {
    const fl_report_node *n = tg_find(r, name);
    assert_true(port < (int)n->n_outputs);
    if (strcmp(n->outputs[port].shape, want) != 0) {
        fail_msg("%s:%d has shape %s, want %s", name, port, n->outputs[port].shape, want);
    }
}
