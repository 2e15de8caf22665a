/*
 * onnx_ext.c - see onnx_ext.h; and fl__import_onnx_refs (import.h), the
 * external data files a model names, read before the model is imported.
 */
#include "import/onnx_ext.h"

#include "import/onnx_wire.h"

#include <stdlib.h>
#include <string.h>

const fl_file *fl__import_find_file(const fl_import_files *o, const char *path) {
    if (!o) {
        return NULL;
    }
    for (size_t i = 0; i < o->n; i++) {
        if (o->files[i].name && strcmp(o->files[i].name, path) == 0) {
            return &o->files[i];
        }
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < o->n; i++) {
        const char *n = o->files[i].name;
        const char *nb = n ? strrchr(n, '/') : NULL;
        if (n && strcmp(nb ? nb + 1 : n, base) == 0) {
            return &o->files[i];
        }
    }
    return NULL;
}

/* A location inside the model's directory: relative, no ".." component. */
static bool inside_model_dir(const char *loc) {
    if (!*loc || loc[0] == '/' || loc[0] == '\\' || strchr(loc, ':')) {
        return false;
    }
    for (const char *p = loc; *p;) {
        const char *e = p + strcspn(p, "/\\");
        if (e - p == 2 && p[0] == '.' && p[1] == '.') {
            return false;
        }
        p = *e ? e + 1 : e;
    }
    return true;
}

/* A decimal integer in [0, 2^63); false otherwise. */
static bool parse_u63(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!s || !*s) {
        return false;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_C(1) << 62) / 5) {
            return false;
        }
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return v < (UINT64_C(1) << 63);
}

typedef struct ext_keys {
    const char *location, *offset, *length;
} ext_keys;

static fl_status read_keys(fl_diag *d, const fl_node *node, const Onnx__TensorProto *p,
                           ext_keys *k) {
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < p->n_external_data; i++) {
        const char *key = p->external_data[i]->key ? p->external_data[i]->key : "";
        const char *val = p->external_data[i]->value ? p->external_data[i]->value : "";
        const char **slot = strcmp(key, "location") == 0 ? &k->location
                            : strcmp(key, "offset") == 0 ? &k->offset
                            : strcmp(key, "length") == 0 ? &k->length
                                                         : NULL;
        if (slot && *slot) {
            return fl__node_fail(d, FL_EINVAL, node,
                                 "external_data has '%s' twice (field: external_data.%s)", key,
                                 key);
        }
        if (slot) {
            *slot = val;
        }
    }
    if (!k->location) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "data_location is EXTERNAL but external_data has no 'location' "
                             "(field: external_data)");
    }
    if (!inside_model_dir(k->location)) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data location '%s' is not a path inside the model's "
                             "directory (field: external_data.location)",
                             k->location);
    }
    return FL_OK;
}

static void warn_missing(fl_onnx_ext *x, fl_graph *g, fl_diag *d, const fl_node *node,
                         const char *loc) {
    for (size_t i = 0; i < x->n_warned; i++) {
        if (strcmp(x->warned[i], loc) == 0) {
            return;
        }
    }
    const char **w =
        fl__arena_grow(g->arena, x->warned, x->n_warned, x->n_warned + 1, sizeof(char *));
    if (w) {
        x->warned = w;
        x->warned[x->n_warned++] = loc;
    }
    fl__node_warn(d, node,
                  "external data file '%s' was not given (not found beside the model): the "
                  "tensors stored there are counted by size, their values unknown",
                  loc);
}

static fl_status add_range(fl_onnx_ext *x, fl_graph *g, fl_diag *d, const fl_file *f, uint64_t off,
                           uint64_t len, const fl_node *node) {
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 64;
        x->scratch = g->arena;
        fl_onnx_ext_range *r = fl__arena_scratch_grow(g->arena, x->ranges, x->n, nc, sizeof *r);
        if (!r) {
            return fl__diag_oom(d);
        }
        x->ranges = r;
        x->cap = nc;
    }
    x->ranges[x->n++] = (fl_onnx_ext_range){f, off, len, node->name};
    return FL_OK;
}

fl_status fl__onnx_ext_resolve(fl_onnx_ext *x, fl_graph *g, fl_diag *d, const fl_node *node,
                               const Onnx__TensorProto *p, uint64_t want, const uint8_t **bytes) {
    *bytes = NULL;
    ext_keys k;
    fl_status st = read_keys(d, node, p, &k);
    if (st != FL_OK) {
        return st;
    }
    uint64_t off = 0, len = 0;
    if (k.offset && !parse_u63(k.offset, &off)) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data offset '%s' is not a byte count (field: "
                             "external_data.offset)",
                             k.offset);
    }
    if (k.length && !parse_u63(k.length, &len)) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data length '%s' is not a byte count (field: "
                             "external_data.length)",
                             k.length);
    }
    if (p->raw_data.len || p->n_float_data || p->n_int32_data || p->n_int64_data ||
        p->n_double_data || p->n_uint64_data || p->n_string_data) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "data_location is EXTERNAL but the tensor also has data in the model "
                             "(field: data_location)");
    }
    if (k.length && len != want) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data length is %llu bytes but dims and data_type need "
                             "%llu (field: external_data.length)",
                             (unsigned long long)len, (unsigned long long)want);
    }
    const fl_file *f = fl__import_find_file(x->files, k.location);
    if (!f) {
        warn_missing(x, g, d, node, k.location);
        return FL_OK; /* a stripped constant */
    }
    if (!k.length) {
        len = off <= f->len ? (uint64_t)f->len - off : 0;
    }
    if (off > f->len || len > (uint64_t)f->len - off) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data range [%llu, %llu) runs past the end of '%s' (%zu "
                             "bytes) (field: external_data.%s)",
                             (unsigned long long)off, (unsigned long long)(off + len), k.location,
                             f->len, off > f->len ? "offset" : "length");
    }
    if (len != want) {
        return fl__node_fail(d, FL_EINVAL, node,
                             "external data is %llu bytes (to the end of '%s') but dims and "
                             "data_type need %llu (field: external_data.length)",
                             (unsigned long long)len, k.location, (unsigned long long)want);
    }
    *bytes = (const uint8_t *)f->bytes + off;
    return len ? add_range(x, g, d, f, off, len, node) : FL_OK;
}

static int cmp_range(const void *a, const void *b) {
    const fl_onnx_ext_range *x = a, *y = b;
    if (x->file != y->file) {
        return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
    }
    return x->off < y->off ? -1 : x->off > y->off;
}

fl_status fl__onnx_ext_check_overlap(fl_onnx_ext *x, fl_diag *d) {
    if (x->n < 2) {
        return FL_OK;
    }
    qsort(x->ranges, x->n, sizeof *x->ranges, cmp_range);
    for (size_t i = 1; i < x->n; i++) {
        const fl_onnx_ext_range *a = &x->ranges[i - 1], *b = &x->ranges[i];
        if (a->file == b->file && b->off < a->off + a->len) {
            return fl__diag_fail(d, FL_EINVAL,
                                 "initializers '%s' and '%s' overlap in external data file '%s' "
                                 "(bytes [%llu, %llu) and [%llu, %llu)) (field: "
                                 "external_data.offset)",
                                 a->tensor, b->tensor, a->file->name, (unsigned long long)a->off,
                                 (unsigned long long)(a->off + a->len), (unsigned long long)b->off,
                                 (unsigned long long)(b->off + b->len));
        }
    }
    return FL_OK;
}

void fl__onnx_ext_free(fl_onnx_ext *x) {
    if (x->scratch) {
        fl__arena_scratch_free(x->scratch, x->ranges);
    }
    x->ranges = NULL;
    x->n = x->cap = 0;
}

/* Calls fn once for each external data location of the main graph's
 * initializers and Constant nodes. */
static void tensor_ref(const Onnx__TensorProto *t, const char **seen, size_t *n_seen, size_t cap,
                       void (*fn)(const char *name, void *arg), void *arg) {
    if (!t || !t->has_data_location ||
        t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        return;
    }
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (!e->key || strcmp(e->key, "location") != 0 || !e->value || !*e->value) {
            continue;
        }
        for (size_t k = 0; k < *n_seen; k++) {
            if (strcmp(seen[k], e->value) == 0) {
                return;
            }
        }
        if (*n_seen < cap) {
            seen[(*n_seen)++] = e->value;
            fn(e->value, arg);
        }
        return;
    }
}

int fl__import_onnx_refs(const uint8_t *buf, size_t len, void (*fn)(const char *name, void *arg),
                         void *arg) {
    fl_arena a;
    fl__arena_init(&a, (size_t)1 << 30);
    fl_pbwire_error e;
    const Onnx__ModelProto *m = fl__onnx_wire_unpack(&a, buf, len, &e);
    const Onnx__GraphProto *gp = m ? m->graph : NULL;
    size_t cap = gp ? gp->n_initializer + gp->n_node : 0, n = 0;
    const char **seen = cap ? fl__arena_calloc(&a, cap, sizeof(char *)) : NULL;
    for (size_t i = 0; seen && i < gp->n_initializer; i++) {
        tensor_ref(gp->initializer[i], seen, &n, cap, fn, arg);
    }
    for (size_t i = 0; seen && i < gp->n_node; i++) {
        for (size_t k = 0; k < gp->node[i]->n_attribute; k++) {
            tensor_ref(gp->node[i]->attribute[k]->t, seen, &n, cap, fn, arg);
        }
    }
    fl__arena_free(&a);
    return m ? (int)n : -1;
}
