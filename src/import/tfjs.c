/*
 * tfjs.c - TensorFlow.js graph models (model.json and its weight shards).
 *
 * A graph model's `modelTopology` is a tensorflow.GraphDef in protobuf's JSON
 * mapping: it is read into the same protobuf-c messages as a binary GraphDef
 * (src/import/pbjson.c) and turned into IR by the GraphDef importer's own
 * path (fl__import_graphdef_msg), so both formats give one IR. The
 * converter moves every Const's value out of the topology into the
 * `weightsManifest`: groups of weights (name, shape, dtype, optional
 * quantization) stored back to back in the concatenation of the group's
 * shard files (`paths`). Each weight becomes its Const node's tensor:
 *  - shards given: float32/int32/bool/complex64 weights are views into the
 *    shard bytes (copied only when a weight straddles two shards); quantized
 *    weights are dequantized as tfjs-core's decodeWeight does: uint8/uint16
 *    affine, v * scale + min computed in double and rounded to float32 (int32
 *    weights: Math.round, i.e. floor(x + 0.5)), float16 widened exactly;
 *    strings are 4-byte little-endian lengths followed by the bytes;
 *  - no shard of the group given: a stripped constant (shape and dtype known,
 *    value unknown, _stripped_content_bytes the dequantized size), as the
 *    GraphDef corpus writes large constants.
 * Shards shorter than the manifest needs, weights whose Const disagrees in
 * dtype or shape, and malformed JSON are errors naming the shard, weight or
 * field; a weight that names no Const, a missing shard and a Const without a
 * weight are warnings (the analysis goes on with unknown values).
 */
#include "import/fjson.h"
#include "import/import.h"
#include "import/pbjson.h"
#include "tensorflow/graph.pb-c.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIPPED_ATTR "_stripped_content_bytes"

int fl__import_sniff_tfjs(const uint8_t *buf, size_t len) {
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF) {
        i = 3; /* UTF-8 byte order mark */
    }
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')) {
        i++;
    }
    if (i >= len || buf[i] != '{') {
        return 0;
    }
    static const char key[] = "\"modelTopology\"";
    size_t kl = sizeof key - 1;
    for (size_t k = i; k + kl <= len; k++) {
        if (buf[k] == '"' && memcmp(buf + k, key, kl) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Shards                                                                     */
/* ------------------------------------------------------------------------- */

/* A group's shards: the given files in manifest order, read as one buffer. */
typedef struct group_buf {
    const fl_file *files[64];
    size_t n;
    uint64_t total;
} group_buf;

/* Bytes [off, off + n) of the group: a view into one shard, or a copy into
 * the arena when the range straddles shards. */
static const uint8_t *group_bytes(fl_arena *a, const group_buf *gb, uint64_t off, uint64_t n) {
    uint64_t base = 0;
    for (size_t i = 0; i < gb->n; i++) {
        uint64_t len = gb->files[i]->len;
        if (off >= base && off - base + n <= len) {
            return (const uint8_t *)gb->files[i]->bytes + (off - base);
        }
        base += len;
    }
    uint8_t *copy = fl__arena_alloc(a, n ? n : 1);
    if (!copy) {
        return NULL;
    }
    base = 0;
    uint64_t done = 0;
    for (size_t i = 0; i < gb->n && done < n; i++) {
        uint64_t len = gb->files[i]->len;
        uint64_t at = off + done;
        if (at < base + len) {
            uint64_t take = base + len - at;
            if (take > n - done) {
                take = n - done;
            }
            memcpy(copy + done, (const uint8_t *)gb->files[i]->bytes + (at - base), take);
            done += take;
        }
        base += len;
    }
    return copy;
}

/* ------------------------------------------------------------------------- */
/* Weights                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct wctx {
    fl_arena *a;
    fl_diag *d;
    Tensorflow__GraphDef *gd;
    struct named *sorted; /* node names sorted, for lookup */
    bool *has_weight;     /* per node */
} wctx;

typedef struct named {
    const char *name;
    size_t i;
} named;

static int cmp_name(const void *x, const void *y) {
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

static Tensorflow__NodeDef *find_node(const wctx *w, const char *name, size_t *at) {
    size_t lo = 0, hi = w->gd->n_node;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(w->sorted[mid].name, name);
        if (c == 0) {
            *at = w->sorted[mid].i;
            return w->gd->node[*at];
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

static Tensorflow__AttrValue *node_attr(Tensorflow__NodeDef *nd, const char *key) {
    for (size_t k = 0; k < nd->n_attr; k++) {
        if (nd->attr[k]->key && strcmp(nd->attr[k]->key, key) == 0) {
            return nd->attr[k]->value;
        }
    }
    return NULL;
}

static fl_status add_int_attr(wctx *w, Tensorflow__NodeDef *nd, const char *key, int64_t v) {
    Tensorflow__NodeDef__AttrEntry **arr = fl__arena_calloc(w->a, nd->n_attr + 1, sizeof(*arr));
    Tensorflow__NodeDef__AttrEntry *e = fl__arena_zalloc(w->a, sizeof *e);
    Tensorflow__AttrValue *av = fl__arena_zalloc(w->a, sizeof *av);
    if (!arr || !e || !av) {
        return fl__diag_oom(w->d);
    }
    tensorflow__node_def__attr_entry__init(e);
    tensorflow__attr_value__init(av);
    av->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
    av->i = v;
    e->key = (char *)key;
    e->value = av;
    if (nd->n_attr) {
        memcpy(arr, nd->attr, nd->n_attr * sizeof(*arr));
    }
    arr[nd->n_attr++] = e;
    nd->attr = arr;
    return FL_OK;
}

/* The manifest's dtype string as a TensorFlow DataType and its byte size. */
static int manifest_dtype(const char *s, size_t *size) {
    static const struct {
        const char *name;
        int dt;
        size_t size;
    } map[] = {
        {"float32", TENSORFLOW__DATA_TYPE__DT_FLOAT, 4},
        {"int32", TENSORFLOW__DATA_TYPE__DT_INT32, 4},
        {"bool", TENSORFLOW__DATA_TYPE__DT_BOOL, 1},
        {"complex64", TENSORFLOW__DATA_TYPE__DT_COMPLEX64, 8},
        {"string", TENSORFLOW__DATA_TYPE__DT_STRING, 0},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(s, map[i].name) == 0) {
            *size = map[i].size;
            return map[i].dt;
        }
    }
    return -1;
}

/* IEEE half to float, exact (subnormals, infinities and NaN included). */
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        float f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* What one manifest entry says. */
typedef struct wspec {
    const char *name;
    int dtype;        /* TensorFlow DataType */
    size_t dsize;     /* its byte size (0: string) */
    int64_t dims[32]; /* shape */
    int rank;
    int64_t n;         /* elements */
    const char *qtype; /* quantization dtype, or NULL */
    size_t qsize;      /* stored bytes per element */
    double scale, min;
    char field[96]; /* "weightsManifest[g].weights[i]" */
} wspec;

static fl_status wfail(wctx *w, const wspec *s, const char *what) {
    return fl__diag_fail(w->d, FL_EINVAL, "weight '%s': %s (field: %s)", s->name, what, s->field);
}

static fl_status parse_spec(wctx *w, const fl_json *j, wspec *s) {
    const fl_json *name = fl__json_get(j, "name"), *shape = fl__json_get(j, "shape");
    const fl_json *dtype = fl__json_get(j, "dtype"), *q = fl__json_get(j, "quantization");
    s->name = fl__json_is(name, FL_JSON_STRING) ? fl__json_str(name) : "";
    if (!fl__json_is(name, FL_JSON_STRING) || !s->name[0]) {
        return wfail(w, s, "needs a non-empty string 'name'");
    }
    if (!fl__json_is(dtype, FL_JSON_STRING) ||
        (s->dtype = manifest_dtype(fl__json_str(dtype), &s->dsize)) < 0) {
        return wfail(w, s, "'dtype' must be float32, int32, bool, complex64 or string");
    }
    if (!fl__json_is(shape, FL_JSON_ARRAY) || fl__json_size(shape) > 32) {
        return wfail(w, s, "'shape' must be an array of at most 32 sizes");
    }
    s->rank = (int)fl__json_size(shape);
    s->n = 1;
    for (int i = 0; i < s->rank; i++) {
        const fl_json *v = fl__json_at(shape, (size_t)i);
        if (!fl__json_is(v, FL_JSON_INTEGER) || fl__json_int(v) < 0 ||
            fl__json_int(v) > ((int64_t)1 << 40)) {
            return wfail(w, s, "'shape' sizes must be integers in [0, 2^40]");
        }
        s->dims[i] = fl__json_int(v);
        if (s->dims[i] && s->n > ((int64_t)1 << 50) / s->dims[i]) {
            return wfail(w, s, "element count overflows");
        }
        s->n *= s->dims[i];
    }
    s->qtype = NULL;
    s->qsize = s->dsize;
    if (q && !fl__json_is(q, FL_JSON_NULL)) {
        const fl_json *qd = fl__json_get(q, "dtype");
        const char *qt = fl__json_is(qd, FL_JSON_STRING) ? fl__json_str(qd) : "";
        bool affine = strcmp(qt, "uint8") == 0 || strcmp(qt, "uint16") == 0;
        if (!affine && strcmp(qt, "float16") != 0) {
            return wfail(w, s, "quantization dtype must be uint8, uint16 or float16");
        }
        if (affine && (s->dtype != TENSORFLOW__DATA_TYPE__DT_FLOAT &&
                       s->dtype != TENSORFLOW__DATA_TYPE__DT_INT32)) {
            return wfail(w, s, "uint8/uint16 quantization needs dtype float32 or int32");
        }
        if (!affine && s->dtype != TENSORFLOW__DATA_TYPE__DT_FLOAT) {
            return wfail(w, s, "float16 quantization needs dtype float32");
        }
        if (affine && (!fl__json_is_number(fl__json_get(q, "scale")) ||
                       !fl__json_is_number(fl__json_get(q, "min")))) {
            return wfail(w, s, "uint8/uint16 quantization needs numbers 'scale' and 'min'");
        }
        s->qtype = qt;
        s->qsize = strcmp(qt, "uint8") == 0 ? 1 : 2;
        s->scale = affine ? fl__json_number(fl__json_get(q, "scale")) : 0;
        s->min = affine ? fl__json_number(fl__json_get(q, "min")) : 0;
    }
    return FL_OK;
}

/* tfjs has no 64-bit types: the converter stores int64 weights as int32 and
 * double as float32 and keeps the Const's dtype; the values widen back. */
static bool widened(int stored, int node) {
    return (stored == TENSORFLOW__DATA_TYPE__DT_INT32 && node == TENSORFLOW__DATA_TYPE__DT_INT64) ||
           (stored == TENSORFLOW__DATA_TYPE__DT_FLOAT && node == TENSORFLOW__DATA_TYPE__DT_DOUBLE);
}

/* The Const's tensor for weight s, checked against the manifest. */
static fl_status const_tensor(wctx *w, const wspec *s, Tensorflow__NodeDef *nd,
                              Tensorflow__TensorProto **out) {
    *out = NULL;
    Tensorflow__AttrValue *v = node_attr(nd, "value");
    if (strcmp(nd->op ? nd->op : "", "Const") != 0 || !v ||
        v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR || !v->tensor) {
        fl__diag_warn(w->d,
                      "weight '%s' of the manifest names node '%s' (%s), which is not a Const "
                      "with a tensor 'value'; the weight is ignored (field: %s)",
                      s->name, nd->name, nd->op ? nd->op : "", s->field);
        return FL_OK;
    }
    Tensorflow__TensorProto *t = v->tensor;
    if ((int)t->dtype != s->dtype && !widened(s->dtype, (int)t->dtype)) {
        char msg[160];
        snprintf(msg, sizeof msg, "the manifest's dtype is DataType %d but Const '%.60s' holds %d",
                 s->dtype, nd->name, (int)t->dtype);
        return wfail(w, s, msg);
    }
    if (t->tensor_content.len || t->n_float_val || t->n_int_val || t->n_string_val ||
        t->n_bool_val || t->n_half_val || t->n_int64_val || t->n_double_val) {
        return wfail(w, s, "its Const already holds a value in modelTopology");
    }
    if (t->tensor_shape && !t->tensor_shape->unknown_rank) {
        bool same = (int)t->tensor_shape->n_dim == s->rank;
        for (int i = 0; same && i < s->rank; i++) {
            same = t->tensor_shape->dim[i]->size == s->dims[i];
        }
        if (!same) {
            return wfail(w, s, "the manifest's shape differs from its Const's tensorShape");
        }
    } else {
        Tensorflow__TensorShapeProto *sp = fl__arena_zalloc(w->a, sizeof *sp);
        Tensorflow__TensorShapeProto__Dim **dims =
            fl__arena_calloc(w->a, (size_t)s->rank + 1, sizeof(*dims));
        if (!sp || !dims) {
            return fl__diag_oom(w->d);
        }
        tensorflow__tensor_shape_proto__init(sp);
        for (int i = 0; i < s->rank; i++) {
            dims[i] = fl__arena_zalloc(w->a, sizeof **dims);
            if (!dims[i]) {
                return fl__diag_oom(w->d);
            }
            tensorflow__tensor_shape_proto__dim__init(dims[i]);
            dims[i]->size = s->dims[i];
        }
        sp->n_dim = (size_t)s->rank;
        sp->dim = dims;
        t->tensor_shape = sp;
    }
    *out = t;
    return FL_OK;
}

/* Widens t's int32/float32 content to its Const's int64/double. */
static fl_status widen(wctx *w, const wspec *s, Tensorflow__TensorProto *t) {
    const uint8_t *p = t->tensor_content.data;
    uint8_t *out = fl__arena_alloc(w->a, (size_t)s->n * 8 + 1);
    if (!out) {
        return fl__diag_oom(w->d);
    }
    for (int64_t i = 0; i < s->n; i++) {
        if (t->dtype == TENSORFLOW__DATA_TYPE__DT_INT64) {
            int32_t v;
            memcpy(&v, p + 4 * i, 4);
            int64_t x = v;
            memcpy(out + 8 * i, &x, 8);
        } else {
            float v;
            memcpy(&v, p + 4 * i, 4);
            double x = v;
            memcpy(out + 8 * i, &x, 8);
        }
    }
    t->tensor_content.data = out;
    t->tensor_content.len = (size_t)s->n * 8;
    return FL_OK;
}

/* Fills t from the weight's stored bytes p (s->n elements of s->qsize). */
static fl_status fill_value(wctx *w, const wspec *s, const uint8_t *p, Tensorflow__TensorProto *t) {
    size_t nb = (size_t)s->n * s->dsize;
    if (!s->qtype) {
        t->tensor_content.data = (uint8_t *)p; /* a view into the shard */
        t->tensor_content.len = nb;
        return (int)t->dtype != s->dtype ? widen(w, s, t) : FL_OK;
    }
    uint8_t *out = fl__arena_alloc(w->a, nb ? nb : 1);
    if (!out) {
        return fl__diag_oom(w->d);
    }
    bool f16 = strcmp(s->qtype, "float16") == 0;
    for (int64_t i = 0; i < s->n; i++) {
        uint32_t q = s->qsize == 1 ? p[i] : (uint32_t)(p[2 * i] | (p[2 * i + 1] << 8));
        if (f16) {
            float f = half_to_float((uint16_t)q);
            memcpy(out + 4 * i, &f, 4);
        } else if (s->dtype == TENSORFLOW__DATA_TYPE__DT_FLOAT) {
            float f = (float)((double)q * s->scale + s->min);
            memcpy(out + 4 * i, &f, 4);
        } else {
            double x = floor((double)q * s->scale + s->min + 0.5);
            int32_t v = x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
            memcpy(out + 4 * i, &v, 4);
        }
    }
    t->tensor_content.data = out;
    t->tensor_content.len = nb;
    return (int)t->dtype != s->dtype ? widen(w, s, t) : FL_OK;
}

/* A string weight: n entries of a 4-byte little-endian length and the
 * bytes. *used is its stored size; p NULL only measures (bounded by avail). */
static fl_status string_value(wctx *w, const wspec *s, const group_buf *gb, uint64_t off,
                              Tensorflow__TensorProto *t, uint64_t *used) {
    uint64_t at = off;
    ProtobufCBinaryData *vals = t ? fl__arena_calloc(w->a, (size_t)s->n + 1, sizeof(*vals)) : NULL;
    if (t && !vals) {
        return fl__diag_oom(w->d);
    }
    for (int64_t i = 0; i < s->n; i++) {
        if (at + 4 > gb->total) {
            return wfail(w, s, "the shards end inside its string lengths");
        }
        const uint8_t *lp = group_bytes(w->a, gb, at, 4);
        if (!lp) {
            return fl__diag_oom(w->d);
        }
        uint64_t l =
            (uint64_t)lp[0] | (uint64_t)lp[1] << 8 | (uint64_t)lp[2] << 16 | (uint64_t)lp[3] << 24;
        at += 4;
        if (l > gb->total - at) {
            return wfail(w, s, "a string runs past the end of the shards");
        }
        if (vals) {
            vals[i].data = (uint8_t *)group_bytes(w->a, gb, at, l);
            vals[i].len = l;
            if (!vals[i].data) {
                return fl__diag_oom(w->d);
            }
        }
        at += l;
    }
    if (t) {
        t->n_string_val = (size_t)s->n;
        t->string_val = vals;
    }
    *used = at - off;
    return FL_OK;
}

/* One manifest group: its shards, then each weight in order. */
static fl_status import_group(wctx *w, const fl_json *grp, size_t gi, const fl_import_files *o) {
    const fl_json *paths = fl__json_get(grp, "paths"), *weights = fl__json_get(grp, "weights");
    if (!fl__json_is(paths, FL_JSON_ARRAY) || !fl__json_is(weights, FL_JSON_ARRAY)) {
        return fl__diag_fail(w->d, FL_EINVAL,
                             "a weights group needs arrays 'paths' and 'weights' (field: "
                             "weightsManifest[%zu])",
                             gi);
    }
    group_buf gb = {.n = 0, .total = 0};
    size_t missing = 0;
    const char *first_missing = NULL;
    if (fl__json_size(paths) > sizeof gb.files / sizeof gb.files[0]) {
        return fl__diag_fail(w->d, FL_ELIMIT,
                             "a weights group has %zu shards, above the limit of 64 (field: "
                             "weightsManifest[%zu].paths)",
                             fl__json_size(paths), gi);
    }
    for (size_t i = 0; i < fl__json_size(paths); i++) {
        const fl_json *p = fl__json_at(paths, i);
        if (!fl__json_is(p, FL_JSON_STRING)) {
            return fl__diag_fail(w->d, FL_EINVAL,
                                 "shard paths must be strings (field: weightsManifest[%zu]."
                                 "paths[%zu])",
                                 gi, i);
        }
        const fl_file *f = fl__import_find_file(o, fl__json_str(p));
        if (!f) {
            missing++;
            first_missing = first_missing ? first_missing : fl__json_str(p);
            continue;
        }
        gb.files[gb.n++] = f;
        gb.total += f->len;
    }
    bool stripped = missing > 0;
    if (missing && gb.n) {
        fl__diag_warn(w->d,
                      "shard '%s' of weights group %zu was not given (%zu of %zu missing): the "
                      "group's weights are unknown values",
                      first_missing, gi, missing, fl__json_size(paths));
    }
    uint64_t off = 0;
    for (size_t i = 0; i < fl__json_size(weights); i++) {
        wspec s;
        snprintf(s.field, sizeof s.field, "weightsManifest[%zu].weights[%zu]", gi, i);
        fl_status st = parse_spec(w, fl__json_at(weights, i), &s);
        if (st != FL_OK) {
            return st;
        }
        size_t at = 0;
        Tensorflow__NodeDef *nd = find_node(w, s.name, &at);
        Tensorflow__TensorProto *t = NULL;
        if (!nd) {
            fl__diag_warn(w->d,
                          "weight '%s' of the manifest names no node of the graph (field: %s)",
                          s.name, s.field);
        } else if ((st = const_tensor(w, &s, nd, &t)) != FL_OK) {
            return st;
        }
        if (t) {
            w->has_weight[at] = true;
        }
        if (stripped) {
            int64_t es = t && (int)t->dtype != s.dtype ? 8 : (int64_t)s.dsize;
            if (t && (st = add_int_attr(w, nd, STRIPPED_ATTR, s.n * es)) != FL_OK) {
                return st;
            }
            continue;
        }
        uint64_t used = (uint64_t)s.n * s.qsize;
        if (s.dtype == TENSORFLOW__DATA_TYPE__DT_STRING) {
            st = string_value(w, &s, &gb, off, t, &used);
            if (st != FL_OK) {
                return st;
            }
        } else if (used > gb.total || off > gb.total - used) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "needs bytes [%llu, %llu) of its group but the group's %zu shard%s hold "
                     "%llu bytes",
                     (unsigned long long)off, (unsigned long long)(off + used), gb.n,
                     gb.n == 1 ? "" : "s", (unsigned long long)gb.total);
            return wfail(w, &s, msg);
        } else if (t) {
            const uint8_t *p = group_bytes(w->a, &gb, off, used);
            if (!p) {
                return fl__diag_oom(w->d);
            }
            if ((st = fill_value(w, &s, p, t)) != FL_OK) {
                return st;
            }
        }
        off += used;
    }
    return FL_OK;
}

/* Const nodes the manifest gives no weight: tfjs cannot run them; their value
 * is unknown here (a stripped constant), never zeros. */
static fl_status unweighted_consts(wctx *w) {
    size_t n_unknown = 0;
    const char *first = NULL;
    for (size_t i = 0; i < w->gd->n_node; i++) {
        Tensorflow__NodeDef *nd = w->gd->node[i];
        if (w->has_weight[i] || strcmp(nd->op ? nd->op : "", "Const") != 0) {
            continue;
        }
        Tensorflow__AttrValue *v = node_attr(nd, "value");
        if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR || !v->tensor ||
            node_attr(nd, STRIPPED_ATTR)) {
            continue;
        }
        Tensorflow__TensorProto *t = v->tensor;
        if (t->tensor_content.len || t->n_float_val || t->n_int_val || t->n_string_val ||
            t->n_bool_val || t->n_half_val || t->n_int64_val || t->n_double_val ||
            t->n_scomplex_val || t->n_dcomplex_val || t->n_uint32_val || t->n_uint64_val) {
            continue; /* holds its value in the topology */
        }
        int64_t n = 1;
        bool empty = false, huge = false;
        for (size_t k = 0; t->tensor_shape && k < t->tensor_shape->n_dim; k++) {
            int64_t size = t->tensor_shape->dim[k]->size;
            huge |= size > 0 && n > INT64_MAX / 4 / size; /* its bytes not an int64 */
            n = size > 0 && !huge ? n * size : n;
            empty |= size == 0;
        }
        if (empty) {
            continue; /* zero elements: nothing to know */
        }
        if (huge) {
            return fl__diag_fail(w->d, FL_EINVAL,
                                 "node '%s': Const value's tensorShape has more elements than a "
                                 "tensor can hold (field: modelTopology.node.attr.value.tensor."
                                 "tensorShape)",
                                 nd->name);
        }
        fl_status st = add_int_attr(w, nd, STRIPPED_ATTR, n * 4);
        if (st != FL_OK) {
            return st;
        }
        n_unknown++;
        first = first ? first : nd->name;
    }
    if (n_unknown) {
        fl__diag_warn(w->d,
                      "%zu Const node%s (first '%s') ha%s no weight in the manifest and no value "
                      "in modelTopology: treated as unknown values",
                      n_unknown, n_unknown == 1 ? "" : "s", first, n_unknown == 1 ? "s" : "ve");
    }
    return FL_OK;
}

static fl_status import_weights(fl_graph *g, Tensorflow__GraphDef *gd, const fl_json *manifest,
                                const fl_import_files *o, fl_diag *d) {
    wctx w = {g->arena, d, gd, NULL, NULL};
    size_t n = gd->n_node;
    w.sorted = fl__arena_scratch(g->arena, n, sizeof(named));
    w.has_weight = fl__arena_scratch(g->arena, n, sizeof(bool));
    if (!w.sorted || !w.has_weight) {
        fl__arena_scratch_free(g->arena, w.sorted);
        fl__arena_scratch_free(g->arena, w.has_weight);
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < n; i++) {
        w.sorted[i].name = gd->node[i]->name ? gd->node[i]->name : "";
        w.sorted[i].i = i;
    }
    qsort(w.sorted, n, sizeof(named), cmp_name);
    fl_status st = FL_OK;
    if (manifest && !fl__json_is(manifest, FL_JSON_NULL) && !fl__json_is(manifest, FL_JSON_ARRAY)) {
        st = fl__diag_fail(d, FL_EINVAL,
                           "'weightsManifest' must be an array (field: "
                           "weightsManifest)");
    }
    for (size_t i = 0;
         st == FL_OK && fl__json_is(manifest, FL_JSON_ARRAY) && i < fl__json_size(manifest); i++) {
        st = import_group(&w, fl__json_at(manifest, i), i, o);
    }
    if (st == FL_OK) {
        st = unweighted_consts(&w);
    }
    fl__arena_scratch_free(g->arena, w.sorted);
    fl__arena_scratch_free(g->arena, w.has_weight);
    return st;
}

/* ------------------------------------------------------------------------- */
/* model.json                                                                 */
/* ------------------------------------------------------------------------- */

static const fl_json *load_json(fl_arena *a, const uint8_t *buf, size_t len, fl_diag *d) {
    char err[200];
    const fl_json *root = fl__json_parse(a, (const char *)buf, len, true, err, sizeof err);
    if (!root) {
        fl__diag_fail(d, a->failed ? FL_ENOMEM : FL_EINVAL, "not valid JSON: %s", err);
        return NULL;
    }
    if (!fl__json_is(root, FL_JSON_OBJECT)) {
        fl__diag_fail(d, FL_EINVAL, "a TF.js model.json must be a JSON object");
        return NULL;
    }
    return root;
}

fl_status fl__import_tfjs(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                          const fl_import_files *files, fl_diag *d) {
    /* The JSON tree lives in its own arena, dropped once the messages and
     * the weights have been read out of it. */
    fl_arena ja;
    fl__arena_init(&ja, g->arena->limit);
    const fl_json *root = load_json(&ja, buf, len, d);
    g->arena->over_limit |= ja.over_limit; /* its memory counts as the analysis's */
    if (!root) {
        fl__arena_free(&ja);
        return d->status;
    }
    fl_status st = FL_OK;
    const fl_json *fmt = fl__json_get(root, "format");
    const fl_json *topo = fl__json_get(root, "modelTopology");
    if (fl__json_is(fmt, FL_JSON_STRING) && strcmp(fl__json_str(fmt), "layers-model") == 0) {
        st = fl__diag_fail(d, FL_EINVAL,
                           "a TF.js layers model (Keras topology) is not a graph model; convert "
                           "it with tensorflowjs_converter --output_format tfjs_graph_model "
                           "(field: format)");
    } else if (!fl__json_is(topo, FL_JSON_OBJECT)) {
        st = fl__diag_fail(d, FL_EINVAL,
                           "model.json has no object 'modelTopology' (field: "
                           "modelTopology)");
    } else if (!fl__json_get(topo, "node") && fl__json_get(topo, "class_name")) {
        st = fl__diag_fail(d, FL_EINVAL,
                           "modelTopology is a Keras model config, not a GraphDef: a layers "
                           "model is not supported (field: modelTopology)");
    }
    Tensorflow__GraphDef *gd = NULL;
    if (st == FL_OK) {
        gd = (Tensorflow__GraphDef *)fl__pbjson_read(g->arena, &tensorflow__graph_def__descriptor,
                                                     topo, "modelTopology", d);
        st = gd ? FL_OK : d->status;
    }
    if (st == FL_OK) {
        fl_import_files none = {NULL, 0};
        st = import_weights(g, gd, fl__json_get(root, "weightsManifest"), files ? files : &none, d);
    }
    const fl_json *init = fl__json_get(root, "modelInitializer");
    if (st == FL_OK && fl__json_is(init, FL_JSON_OBJECT) &&
        fl__json_size(fl__json_get(init, "node"))) {
        fl__diag_warn(d, "modelInitializer (%zu nodes that initialise tables) is not analysed",
                      fl__json_size(fl__json_get(init, "node")));
    }
    fl__arena_free(&ja);
    if (st != FL_OK) {
        return st;
    }
    return fl__import_graphdef_msg(g, gd, o, d);
}

int fl__import_tfjs_refs(const uint8_t *buf, size_t len, void (*fn)(const char *name, void *arg),
                         void *arg) {
    char err[200];
    fl_arena ja;
    fl__arena_init(&ja, 0);
    const fl_json *root = fl__json_parse(&ja, (const char *)buf, len, false, err, sizeof err);
    if (!root) {
        fl__arena_free(&ja);
        return -1;
    }
    const fl_json *m = fl__json_get(root, "weightsManifest");
    int count = 0;
    for (size_t i = 0; fl__json_is(m, FL_JSON_ARRAY) && i < fl__json_size(m); i++) {
        const fl_json *paths = fl__json_get(fl__json_at(m, i), "paths");
        for (size_t k = 0; fl__json_is(paths, FL_JSON_ARRAY) && k < fl__json_size(paths); k++) {
            const fl_json *p = fl__json_at(paths, k);
            if (fl__json_is(p, FL_JSON_STRING)) {
                fn(fl__json_str(p), arg);
                count++;
            }
        }
    }
    fl__arena_free(&ja);
    return count;
}
