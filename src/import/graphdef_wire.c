/*
 * graphdef_wire.c - a GraphDef read into the IR straight from its bytes.
 *
 * NodeDefs, their attr entries, AttrValues and list(int) values are read
 * where they lie, with pbwire's field reader (pbwire.h); a TensorProto or
 * TensorShapeProto in TensorFlow's encoding is read into its message struct
 * in one pass here, and one in another encoding, a NameAttrList, VersionDef
 * or another kind of list is decoded on its own by pbwire; all are
 * converted by the code the tree reader uses (graphdef_conv.h), so
 * constants keep the TensorProto the GraphDef writer shares and tensor
 * payloads stay views. No message per node, attr
 * entry or AttrValue is built: on a large graph that tree was about half
 * of the import's memory and most of its time.
 *
 * It reads the encodings TensorFlow writes and nothing else; on anything
 * beyond them it gives up (WIRE_OFF) and the graph is read again from the
 * message tree by graphdef.c, which stays the one reference:
 *  - a function library that is not empty, debug_info or an unknown field;
 *  - a singular field (name, op, device, an entry's key or value, the
 *    GraphDef's versions or library) met twice, an AttrValue with two
 *    members set (protobuf-c's merge and oneof rules apply there);
 *  - a wire type other than the field's, a NUL inside a name, op, device,
 *    input or attr name, an attr name the engine reserves
 *    (util/reserved.h: dropped with a warning there), more than
 *    WIRE_MAX_ATTRS attrs on a node;
 *  - any failure at all: a malformed GraphDef is refused by the tree
 *    reader, so that every message (the node, the field, the byte offset)
 *    is the one it gives. Only running out of memory or a cancellation ends
 *    the import here.
 * The node limit is checked before anything is built: a graph above it is
 * refused without decoding its nodes.
 */
#include "import/graphdef_conv.h"
#include "import/pbutil.h"
#include "import/pbwire.h"
#include "ops/ops.h"
#include "tensorflow/function.pb-c.h"
#include "tensorflow/graph.pb-c.h"
#include "util/hash.h"
#include "util/reserved.h"

#include <string.h>

typedef fl_gd_conv conv;

#define WIRE_OFF       ((fl_status)-1000)
#define WIRE_MAX_ATTRS 64

typedef struct wview {
    const uint8_t *p;
    size_t len;
} wview;

/* One NodeDef's fields, as views. */
typedef struct wnode {
    wview name, op, device;
    bool has_name, has_op, has_device;
    int n_attr;
    /* The attr entries' bytes, from the first entry's tag to the end of the
     * last, when no other field lies between them (as TensorFlow writes a
     * NodeDef): the key of the attr cache below. */
    wview attr_span;
    bool attr_split;
    /* The end of the last name, op or input field: the sweeps over the
     * inputs read the NodeDef's bytes up to there only. */
    const uint8_t *inputs_end;
    struct wentry {
        wview key, val;
        bool has_val;
    } attr[WIRE_MAX_ATTRS];
} wnode;

/* The attr arrays of the NodeDefs read last, by the bytes of their attr
 * entries (direct-mapped): a node whose entries are byte for byte those of
 * one read before takes the same array (attr arrays are never written in
 * place: graph/mutate.h copies one before a change), so the thousands of
 * nodes of a layer stack with equal attrs take no memory for them. Only
 * arrays of plain values are kept (no tensor, function or list of those:
 * their conversion may depend on the node). Its slots: the node count
 * rounded up to a power of two, from 16 to ATTR_CACHE_SLOTS (a small graph
 * does not clear 8 KB for it). */
#define ATTR_CACHE_SLOTS 256

typedef struct attr_cache {
    size_t mask; /* slots - 1 */
    struct attr_slot {
        wview span; /* p NULL: empty */
        fl_attr *attrs;
        int n;
    } slot[];
} attr_cache;

static size_t attr_cache_ix(wview span, size_t mask) {
    return (size_t)fl__hash_words(span.p, span.len) & mask;
}

/* Whether a node's attrs may be in the cache: none is a tensor or a
 * function (AttrValue's first tag is field 8 or 10, length-delimited), so
 * the span is not hashed for a Const, whose span holds its weights (all
 * their bytes read for a lookup that cannot hit: such attrs are never
 * stored). A tag written in more bytes than it needs is not recognised
 * here, and the lookup then simply misses. */
static bool attrs_cacheable(const wnode *w) {
    for (int k = 0; k < w->n_attr; k++) {
        const struct wentry *e = &w->attr[k];
        if (e->has_val && e->val.len && (e->val.p[0] == 0x42 || e->val.p[0] == 0x52)) {
            return false;
        }
    }
    return true;
}

/* Whether an attr's value is a plain one (the cache's condition above). */
static bool attr_plain(const fl_attr *a) {
    switch (a->kind) {
    case FL_ATTR_TENSOR:
    case FL_ATTR_FUNC:
        return false;
    case FL_ATTR_LIST:
        return a->list_kind != FL_ATTR_TENSOR && a->list_kind != FL_ATTR_FUNC;
    default:
        return true;
    }
}

static bool has_nul(wview v) {
    return v.len && memchr(v.p, '\0', v.len) != NULL;
}

/* The key and value of a map entry (key 1, value 2, each at most once). */
static bool wire_entry(const uint8_t *p, size_t len, struct wentry *e) {
    const uint8_t *end = p + len;
    bool has_key = false;
    e->key = (wview){(const uint8_t *)"", 0};
    e->val = (wview){NULL, 0};
    e->has_val = false;
    while (p < end) {
        fl_pbwire_field f = {0};
        if (fl__pbwire_field(&p, end, &f) || f.wt != FL_PB_WT_LEN) {
            return false;
        }
        if (f.id == 1 && !has_key) {
            e->key = (wview){f.p, f.len};
            has_key = true;
        } else if (f.id == 2 && !e->has_val) {
            e->val = (wview){f.p, f.len};
            e->has_val = true;
        } else {
            return false;
        }
    }
    return !has_nul(e->key);
}

/* Whether v decodes as a message of type desc (decoded into a, dropped). */
static bool wire_valid(fl_arena *a, const ProtobufCMessageDescriptor *desc, wview v) {
    fl_pbwire_error e;
    memset(&e, 0, sizeof e);
    return fl__pbwire_unpack(a, desc, v.p, v.len, &e) != NULL;
}

/* The fields of a NodeDef but its inputs (checked only: sweep 2 reads them).
 * experimental_debug_info and experimental_type are only checked: nothing
 * reads them. */
static bool wire_node(fl_arena *a, const uint8_t *p, size_t len, wnode *w) {
    const uint8_t *start = p, *end = p + len;
    w->has_name = w->has_op = w->has_device = false;
    w->n_attr = 0;
    w->attr_span = (wview){NULL, 0};
    w->attr_split = false;
    w->inputs_end = p;
    while (p < end) {
        fl_pbwire_field f = {0};
        if (fl__pbwire_field(&p, end, &f) || f.wt != FL_PB_WT_LEN) {
            return false;
        }
        wview v = {f.p, f.len};
        if (f.id <= 3) {
            w->inputs_end = p;
        }
        if (f.id == 5) {
            if (!w->n_attr) {
                w->attr_span.p = f.tag;
            } else if (w->attr_span.p + w->attr_span.len != f.tag) {
                w->attr_split = true;
            }
            w->attr_span.len = (size_t)(p - w->attr_span.p);
        }
        switch (f.id) {
        case 1:
        case 2:
        case 4: {
            bool *has = f.id == 1 ? &w->has_name : f.id == 2 ? &w->has_op : &w->has_device;
            if (*has || (f.id == 4 && has_nul(v))) {
                return false;
            }
            *has = true;
            *(f.id == 1 ? &w->name : f.id == 2 ? &w->op : &w->device) = v;
            break;
        }
        case 3:
            break;
        case 5:
            if (w->n_attr == WIRE_MAX_ATTRS || !wire_entry(f.p, f.len, &w->attr[w->n_attr])) {
                return false;
            }
            w->n_attr++;
            break;
        case 6:
        case 7:
            if (!wire_valid(a,
                            f.id == 6 ? &tensorflow__node_def__experimental_debug_info__descriptor
                                      : &tensorflow__full_type_def__descriptor,
                            v)) {
                return false;
            }
            break;
        default:
            return false;
        }
    }
    /* No NUL in a name, op or input: one scan of the bytes up to the last of
     * them (tags and lengths are not 0 but for an empty field) instead of
     * one per field; only when that finds one, each field on its own. */
    wview names = {start, (size_t)(w->inputs_end - start)};
    if (has_nul(names)) {
        for (const uint8_t *q = start; q < w->inputs_end;) {
            fl_pbwire_field f = {0};
            fl__pbwire_field(&q, end, &f); /* read once above */
            if (f.id <= 3 && has_nul((wview){f.p, f.len})) {
                return false;
            }
        }
    }
    return true;
}

/* A submessage decoded on its own by pbwire: NULL with *st WIRE_OFF when
 * its bytes do not decode (the tree path names the fault), FL_ENOMEM when
 * memory ran out. */
static void *wire_sub(conv *cv, const ProtobufCMessageDescriptor *desc, wview v, fl_status *st) {
    fl_pbwire_error e;
    memset(&e, 0, sizeof e);
    void *m = fl__pbwire_unpack(cv->g->arena, desc, v.p, v.len, &e);
    if (!m) {
        *st = e.oom || cv->g->arena->failed ? fl__diag_oom(cv->d) : WIRE_OFF;
    }
    return m;
}

/* ---- TensorShapeProto and TensorProto read straight from their bytes ----
 * The encodings TensorFlow writes for a shape (dims with a size and no
 * name, unknown_rank) and a constant (dtype, shape, version_number,
 * tensor_content) are read here in one pass into the structs pbwire would
 * build; anything else (a dim's name, a repeated or packed value field, a
 * second shape to merge, an unknown field, a wire type not the field's, a
 * fault) returns NULL with *st untouched, and the caller decodes the bytes
 * with pbwire, which names any fault. The values are pbwire's (protobuf-c's
 * proto3 rules): the last occurrence of a scalar or bytes field wins. */

/* A Dim's size, or false for anything but size (field 1) fields. */
static bool wire_dim(wview v, int64_t *size) {
    const uint8_t *p = v.p, *end = v.p + v.len;
    *size = 0;
    while (p < end) {
        fl_pbwire_field f;
        if (fl__pbwire_field(&p, end, &f) || f.id != 1 || f.wt != FL_PB_WT_VARINT) {
            return false;
        }
        *size = (int64_t)f.v;
    }
    return true;
}

static Tensorflow__TensorShapeProto *wire_shape_fast(conv *cv, wview v, fl_status *st) {
    const uint8_t *p = v.p, *end = v.p + v.len;
    size_t n = 0;
    bool unknown_rank = false;
    while (p < end) {
        fl_pbwire_field f;
        if (fl__pbwire_field(&p, end, &f)) {
            return NULL;
        }
        if (f.id == 2 && f.wt == FL_PB_WT_LEN) {
            n++;
        } else if (f.id == 3 && f.wt == FL_PB_WT_VARINT) {
            unknown_rank = f.v != 0;
        } else {
            return NULL;
        }
    }
    /* The message, then its dim pointers, then the dims, in one block. */
    size_t dims_at = (sizeof(Tensorflow__TensorShapeProto) + 15) & ~(size_t)15;
    size_t ptrs = (n * sizeof(Tensorflow__TensorShapeProto__Dim *) + 15) & ~(size_t)15;
    uint8_t *blk = fl__arena_alloc(cv->g->arena,
                                   dims_at + ptrs + n * sizeof(Tensorflow__TensorShapeProto__Dim));
    if (!blk) {
        *st = fl__diag_oom(cv->d);
        return NULL;
    }
    Tensorflow__TensorShapeProto *s = (Tensorflow__TensorShapeProto *)blk;
    *s = (Tensorflow__TensorShapeProto)TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
    s->unknown_rank = unknown_rank;
    if (!n) {
        return s;
    }
    s->n_dim = n;
    s->dim = (Tensorflow__TensorShapeProto__Dim **)(blk + dims_at);
    Tensorflow__TensorShapeProto__Dim *dims =
        (Tensorflow__TensorShapeProto__Dim *)(blk + dims_at + ptrs);
    size_t k = 0;
    for (p = v.p; p < end;) {
        fl_pbwire_field f;
        fl__pbwire_field(&p, end, &f);
        if (f.id != 2) {
            continue;
        }
        dims[k] = (Tensorflow__TensorShapeProto__Dim)TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT;
        if (!wire_dim((wview){f.p, f.len}, &dims[k].size)) {
            return NULL;
        }
        s->dim[k] = &dims[k];
        k++;
    }
    return s;
}

static Tensorflow__TensorProto *wire_tensor_fast(conv *cv, wview v, fl_status *st) {
    const uint8_t *p = v.p, *end = v.p + v.len;
    wview shape = {NULL, 0};
    int32_t dtype = 0, version = 0;
    wview content = {NULL, 0}, ints = {NULL, 0};
    while (p < end) {
        fl_pbwire_field f;
        if (fl__pbwire_field(&p, end, &f)) {
            return NULL;
        }
        if ((f.id == 1 || f.id == 3) && f.wt == FL_PB_WT_VARINT) {
            *(f.id == 1 ? &dtype : &version) = (int32_t)(uint32_t)f.v;
        } else if (f.id == 2 && f.wt == FL_PB_WT_LEN && !shape.p) {
            shape = (wview){f.p, f.len};
        } else if (f.id == 4 && f.wt == FL_PB_WT_LEN) {
            content = (wview){f.p, f.len};
        } else if (f.id == 7 && f.wt == FL_PB_WT_LEN && !ints.p) {
            ints = (wview){f.p, f.len}; /* int_val, one packed run (as TensorFlow writes it) */
        } else {
            return NULL;
        }
    }
    /* int_val's values: as many as bytes that end a varint; none may be cut
     * short at the run's end or run past 10 bytes (else the decoder reads
     * it, and says what is wrong) */
    size_t n_ints = 0;
    for (size_t k = 0; k < ints.len; k++) {
        n_ints += !(ints.p[k] & 0x80);
    }
    if (ints.len && (ints.p[ints.len - 1] & 0x80)) {
        return NULL;
    }
    int32_t *iv = n_ints ? fl__arena_alloc_raw(cv->g->arena, n_ints * sizeof(int32_t)) : NULL;
    if (n_ints && !iv) {
        *st = fl__diag_oom(cv->d);
        return NULL;
    }
    /* (no int_val: ints.p is NULL, and NULL + 0 is undefined) */
    const uint8_t *q = ints.p, *qe = n_ints ? ints.p + ints.len : ints.p;
    for (size_t k = 0; k < n_ints; k++) {
        uint64_t x;
        if (!fl__pbwire_varint(&q, qe, &x)) {
            return NULL;
        }
        iv[k] = (int32_t)(uint32_t)x; /* protobuf's int32: the low 32 bits */
    }
    Tensorflow__TensorShapeProto *s = shape.p ? wire_shape_fast(cv, shape, st) : NULL;
    if (shape.p && !s) {
        return NULL;
    }
    Tensorflow__TensorProto *t = fl__arena_alloc(cv->g->arena, sizeof *t);
    if (!t) {
        *st = fl__diag_oom(cv->d);
        return NULL;
    }
    *t = (Tensorflow__TensorProto)TENSORFLOW__TENSOR_PROTO__INIT;
    t->dtype = (Tensorflow__DataType)dtype;
    t->tensor_shape = s;
    t->version_number = version;
    t->tensor_content =
        (ProtobufCBinaryData){content.len, content.len ? (uint8_t *)content.p : NULL};
    t->n_int_val = n_ints;
    t->int_val = iv;
    return t;
}

/* A list(int) written as field 3 only (packed runs or single values) into
 * out; false when the list holds anything else. */
static bool wire_list_i(conv *cv, wview v, fl_attr *out, fl_status *st) {
    const uint8_t *p = v.p, *end = v.p + v.len;
    size_t n = 0;
    while (p < end) {
        fl_pbwire_field f = {0};
        if (fl__pbwire_field(&p, end, &f) || f.id != 3 ||
            (f.wt != FL_PB_WT_VARINT && f.wt != FL_PB_WT_LEN)) {
            return false;
        }
        if (f.wt == FL_PB_WT_VARINT) {
            n++;
            continue;
        }
        if (f.len && (f.p[f.len - 1] & 0x80)) {
            return false; /* a run that ends inside a varint */
        }
        for (size_t k = 0; k < f.len; k++) {
            n += !(f.p[k] & 0x80);
        }
    }
    out->kind = FL_ATTR_LIST;
    out->list_kind = FL_ATTR_NONE;
    out->n = 0;
    if (!n) {
        return true;
    }
    int64_t *vals = fl__arena_alloc(cv->g->arena, n * sizeof(int64_t));
    if (!vals) {
        *st = fl__diag_oom(cv->d);
        return true;
    }
    size_t k = 0;
    for (p = v.p; p < end;) {
        fl_pbwire_field f = {0};
        fl__pbwire_field(&p, end, &f);
        if (f.wt == FL_PB_WT_VARINT) {
            vals[k++] = (int64_t)f.v;
            continue;
        }
        const uint8_t *q = f.p, *qe = f.p + f.len;
        uint64_t x;
        while (q < qe) {
            if (!fl__pbwire_varint(&q, qe, &x)) {
                return false; /* longer than 10 bytes */
            }
            vals[k++] = (int64_t)x;
        }
    }
    out->list_kind = FL_ATTR_I;
    out->n = n;
    out->v.list.i = vals;
    return true;
}

/* attr() for an AttrValue's bytes (has_val false: the entry has none). */
static fl_status wire_attr(conv *cv, const char *name, const struct wentry *e, int64_t stripped,
                           fl_attr *out) {
    out->name = name;
    out->kind = FL_ATTR_NONE;
    if (!e->has_val || !e->val.len) {
        return FL_OK;
    }
    const uint8_t *p = e->val.p, *end = p + e->val.len;
    fl_pbwire_field f = {0};
    if (fl__pbwire_field(&p, end, &f) || p != end) {
        return WIRE_OFF; /* a fault, or a second member: the oneof's rules */
    }
    static const int8_t wt_of[11] = {
        -1,           FL_PB_WT_LEN,    FL_PB_WT_LEN,    FL_PB_WT_VARINT,
        FL_PB_WT_I32, FL_PB_WT_VARINT, FL_PB_WT_VARINT, FL_PB_WT_LEN,
        FL_PB_WT_LEN, FL_PB_WT_LEN,    FL_PB_WT_LEN};
    if (f.id > 10 || f.wt != wt_of[f.id]) {
        return WIRE_OFF;
    }
    wview v = {f.p, f.len};
    fl_status st = FL_OK;
    const void *m;
    switch (f.id) {
    case 1:
        if (wire_list_i(cv, v, out, &st)) {
            return st;
        }
        m = wire_sub(cv, &tensorflow__attr_value__list_value__descriptor, v, &st);
        return m ? fl__gd_attr_list(cv, m, out) : st;
    case 2:
        out->kind = FL_ATTR_S;
        out->v.s = fl__gd_bytes_str(cv->g->arena, (ProtobufCBinaryData){f.len, (uint8_t *)f.p});
        return out->v.s.p ? FL_OK : fl__diag_oom(cv->d);
    case 3:
        out->kind = FL_ATTR_I;
        out->v.i = (int64_t)f.v;
        return FL_OK;
    case 4: {
        uint32_t bits = (uint32_t)f.v;
        out->kind = FL_ATTR_F;
        memcpy(&out->v.f, &bits, sizeof bits);
        return FL_OK;
    }
    case 5:
        out->kind = FL_ATTR_B;
        out->v.b = f.v != 0;
        return FL_OK;
    case 6:
        out->kind = FL_ATTR_TYPE;
        out->v.type = (int)(int32_t)(uint32_t)f.v;
        return fl__dtype_valid(out->v.type) || out->v.type == 0 ? FL_OK : WIRE_OFF;
    case 7:
        out->kind = FL_ATTR_SHAPE;
        m = wire_shape_fast(cv, v, &st);
        if (!m && st == FL_OK) {
            m = wire_sub(cv, &tensorflow__tensor_shape_proto__descriptor, v, &st);
        }
        return m ? fl__gd_shape_lit(cv, m, true, &out->v.shape) : st;
    case 8:
        out->kind = FL_ATTR_TENSOR;
        m = wire_tensor_fast(cv, v, &st);
        if (!m && st == FL_OK) {
            m = wire_sub(cv, &tensorflow__tensor_proto__descriptor, v, &st);
        }
        return m ? fl__gd_tensor(cv, m, stripped, &out->v.tensor) : st;
    case 9:
        out->kind = FL_ATTR_PLACEHOLDER;
        out->v.placeholder = fl__arena_strndup(cv->g->arena, (const char *)f.p, f.len);
        return out->v.placeholder ? FL_OK : fl__diag_oom(cv->d);
    case 10:
        out->kind = FL_ATTR_FUNC;
        m = wire_sub(cv, &tensorflow__name_attr_list__descriptor, v, &st);
        return m ? fl__gd_func_ref(cv, m, &out->v.func) : st;
    default:
        return WIRE_OFF;
    }
}

/* A copy of v, NUL-terminated, in buf when it fits, else in the arena. */
static const char *wire_str(fl_arena *a, wview v, char *buf, size_t size) {
    if (v.len < size) {
        memcpy(buf, v.p, v.len);
        buf[v.len] = '\0';
        return buf;
    }
    return fl__arena_strndup(a, (const char *)v.p, v.len);
}

/* _stripped_content_bytes (stripped_bytes above): -1 when the node has none. */
static fl_status wire_stripped(const wnode *w, fl_node *n, int64_t *out) {
    static const char key[] = "_stripped_content_bytes";
    *out = -1;
    for (int k = 0; k < w->n_attr; k++) {
        const struct wentry *e = &w->attr[k];
        if (e->key.len != sizeof key - 1 || memcmp(e->key.p, key, sizeof key - 1) != 0) {
            continue;
        }
        if (!e->has_val) {
            return WIRE_OFF;
        }
        const uint8_t *p = e->val.p, *end = p + e->val.len;
        fl_pbwire_field f = {0};
        if (fl__pbwire_field(&p, end, &f) || p != end || f.id != 3 || f.wt != FL_PB_WT_VARINT ||
            (int64_t)f.v < 0) {
            return WIRE_OFF;
        }
        *out = (int64_t)f.v;
        n->flags |= FL_NODE_STRIPPED;
    }
    return FL_OK;
}

/* add_node() for a NodeDef's bytes. */
static fl_status wire_add_node(fl_graph *g, const wnode *w, const fl_import_opts *o, attr_cache *ac,
                               fl_diag *d) {
    if (!w->has_name || !w->name.len || w->name.p[0] == '^' ||
        memchr(w->name.p, ':', w->name.len) || !w->has_op || !w->op.len) {
        return WIRE_OFF;
    }
    char *name = fl__graph_strndup(g, (const char *)w->name.p, w->name.len);
    /* no NUL in the op (wire_node) */
    fl_op_kind kind = fl__op_lookup_n((const char *)w->op.p, w->op.len);
    /* a known op: the registry's equal string, one per op type */
    const char *op = kind != FL_OP_UNKNOWN
                         ? fl__op_name(kind)
                         : fl__arena_strndup(g->arena, (const char *)w->op.p, w->op.len);
    if (!op || !name) {
        return fl__diag_oom(d);
    }
    fl_node *n = fl__graph_add_node_view(g, name, op, d);
    if (!n) {
        return d->status == FL_ENOMEM ? FL_ENOMEM : WIRE_OFF;
    }
    fl__op_bind_kind(n, kind);
    if (w->has_device && w->device.len &&
        !(n->device = fl__arena_strndup(g->arena, (const char *)w->device.p, w->device.len))) {
        return fl__diag_oom(d);
    }
    int64_t stripped;
    fl_status st = wire_stripped(w, n, &stripped);
    n->n_attrs = w->n_attr;
    struct attr_slot *cached = NULL;
    if (st == FL_OK && w->n_attr && !w->attr_split && attrs_cacheable(w)) {
        cached = &ac->slot[attr_cache_ix(w->attr_span, ac->mask)];
        if (cached->span.p && cached->span.len == w->attr_span.len && cached->n == w->n_attr &&
            memcmp(cached->span.p, w->attr_span.p, w->attr_span.len) == 0) {
            n->attrs = cached->attrs;
            return FL_OK;
        }
    }
    n->attrs = fl__arena_calloc(g->arena, w->n_attr ? (size_t)w->n_attr : 1, sizeof(fl_attr));
    if (st == FL_OK && !n->attrs) {
        st = fl__diag_oom(d);
    }
    bool plain = cached != NULL;
    for (int k = 0; k < w->n_attr && st == FL_OK; k++) {
        const struct wentry *e = &w->attr[k];
        /* no NUL in the key (wire_entry) */
        const char *iname = fl__graph_intern_n(g, (const char *)e->key.p, e->key.len);
        if (!iname) {
            return fl__diag_oom(d);
        }
        if (fl__attr_reserved(iname)) {
            return WIRE_OFF; /* dropped with a warning by the tree path */
        }
        for (int j = 0; j < k; j++) {
            if (n->attrs[j].name == iname) {
                return WIRE_OFF;
            }
        }
        conv cv = {g, d, o, n, iname};
        st = wire_attr(&cv, iname, e,
                       e->key.len == 5 && memcmp(e->key.p, "value", 5) == 0 ? stripped : -1,
                       &n->attrs[k]);
        plain = plain && attr_plain(&n->attrs[k]);
    }
    if (st == FL_OK && plain) {
        *cached = (struct attr_slot){w->attr_span, n->attrs, w->n_attr};
    }
    return st;
}

/* The node-name part of an input string (parse_input's rules, without the
 * checks): for the index prefetch only. */
static wview wire_input_name(wview s) {
    if (s.len && s.p[0] == '^') {
        return (wview){s.p + 1, s.len - 1};
    }
    size_t k = s.len;
    while (k && s.p[k - 1] >= '0' && s.p[k - 1] <= '9') {
        k--;
    }
    return k && k < s.len && s.p[k - 1] == ':' ? (wview){s.p, k - 1} : s;
}

/* The input strings of a NodeDef that wire_node() accepted. */
#define WIRE_EACH_INPUT(nd, f)                                                                     \
    for (const uint8_t *wp_ = (nd).p, *we_ = (nd).p + (nd).len;                                    \
         wp_ < we_ && !fl__pbwire_field(&wp_, we_, &(f));)                                         \
        if ((f).id == 3)

/* A NodeDef's name when TensorFlow wrote it first with a one-byte length
 * (for the prefetches only); p NULL otherwise. */
static wview wire_quick_name(wview nd) {
    if (nd.len > 2 && nd.p[0] == 0x0a && nd.p[1] < 0x80 && nd.p[1] <= nd.len - 2) {
        return (wview){nd.p + 2, nd.p[1]};
    }
    return (wview){NULL, 0};
}

/* Brings the index slots of nd's inputs towards the cache, but for an input
 * that names the NodeDef before it (`prev`: wire_node_inputs finds that one
 * without the index). */
static void wire_prefetch_inputs(const fl_graph *g, wview nd, wview prev) {
    fl_pbwire_field f = {0};
    WIRE_EACH_INPUT(nd, f) {
        wview name = wire_input_name((wview){f.p, f.len});
        if (!prev.p || name.len != prev.len || memcmp(name.p, prev.p, name.len) != 0) {
            fl__graph_prefetch_name(g, (const char *)name.p, name.len);
        }
    }
}

/* node_inputs() for a NodeDef's bytes. */
static fl_status wire_node_inputs(fl_graph *g, wview nd, fl_node *n, int *max_port, fl_diag *d) {
    size_t n_data = 0, n_ctrl = 0;
    fl_pbwire_field f = {0};
    WIRE_EACH_INPUT(nd, f) {
        if (f.len && f.p[0] == '^') {
            n_ctrl++;
        } else {
            n_data++;
        }
    }
    n->inputs = fl__arena_calloc(g->arena, n_data ? n_data : 1, sizeof(fl_input));
    /* No control inputs: no array (NULL, as fl__node_clear_ctrl leaves it;
     * 16 bytes per node). */
    n->ctrl = n_ctrl ? fl__arena_calloc(g->arena, n_ctrl, sizeof(fl_node *)) : NULL;
    if (!n->inputs || (n_ctrl && !n->ctrl)) {
        return fl__diag_oom(d);
    }
    WIRE_EACH_INPUT(nd, f) {
        char buf[512];
        const char *s = wire_str(g->arena, (wview){f.p, f.len}, buf, sizeof buf);
        size_t off, len;
        long port;
        if (!s) {
            return fl__diag_oom(d);
        }
        if (!fl__gd_parse_input(s, &off, &len, &port) || (port >= 0 && n->n_ctrl > 0)) {
            return WIRE_OFF;
        }
        ((char *)s)[off + len] = '\0'; /* s is this sweep's own copy */
        /* An input from the node just before, the most common one (a
         * layer's input is the layer before), is found without a probe of
         * the index at a random place. */
        fl_node *prev = n->id ? g->nodes[n->id - 1] : NULL;
        fl_node *src = prev && strcmp(prev->name, s + off) == 0 ? prev : fl__graph_find(g, s + off);
        if (!src) {
            return WIRE_OFF;
        }
        fl__gd_add_input(n, src, port, max_port);
    }
    return FL_OK;
}

/* The GraphDef's top level: its NodeDefs (nodes: NULL to count them only)
 * and its versions. False for anything the wire reader leaves to the tree
 * path. */
static bool wire_top(const uint8_t *buf, size_t len, wview *nodes, size_t *n_nodes, wview *versions,
                     bool *empty_library) {
    const uint8_t *p = buf, *end = buf + len;
    *n_nodes = 0;
    versions->p = NULL;
    *empty_library = false;
    while (p < end) {
        fl_pbwire_field f = {0};
        if (fl__pbwire_field(&p, end, &f)) {
            return false;
        }
        if (f.id == 1 && f.wt == FL_PB_WT_LEN) {
            if (nodes) {
                nodes[*n_nodes] = (wview){f.p, f.len};
            }
            (*n_nodes)++;
        } else if (f.id == 4 && f.wt == FL_PB_WT_LEN && !versions->p) {
            *versions = (wview){f.p, f.len};
        } else if (f.id == 2 && f.wt == FL_PB_WT_LEN && !f.len && !*empty_library) {
            *empty_library = true; /* TensorFlow writes `library {}` */
        } else if (f.id != 3 || f.wt != FL_PB_WT_VARINT) {
            return false; /* a library, debug_info, a second versions... */
        }
    }
    return true;
}

/* The GraphDef g keeps as its source, for the writer: the versions and an
 * empty library when the file has one (no nodes). */
static fl_status wire_src(fl_graph *g, wview versions, bool empty_library, fl_diag *d) {
    Tensorflow__GraphDef *gd = fl__arena_alloc(g->arena, sizeof(*gd));
    Tensorflow__FunctionDefLibrary *lib =
        empty_library ? fl__arena_alloc(g->arena, sizeof(*lib)) : NULL;
    if (!gd || (empty_library && !lib)) {
        return fl__diag_oom(d);
    }
    tensorflow__graph_def__init(gd);
    if (lib) {
        tensorflow__function_def_library__init(lib);
        gd->library = lib;
    }
    if (versions.p) {
        fl_pbwire_error e;
        memset(&e, 0, sizeof e);
        gd->versions = (Tensorflow__VersionDef *)fl__pbwire_unpack(
            g->arena, &tensorflow__version_def__descriptor, versions.p, versions.len, &e);
        if (!gd->versions) {
            return e.oom || g->arena->failed ? fl__diag_oom(d) : WIRE_OFF;
        }
        g->producer = gd->versions->producer;
    }
    g->src = gd;
    return FL_OK;
}

/* Sweeps 1 to 3 (fl__import_graphdef_msg's) over the NodeDefs' bytes; sweep
 * 1 cuts each view of nodes[] after the node's last input (inputs_end). */
static fl_status wire_sweeps(fl_graph *g, wview *nodes, size_t n_nodes, const fl_import_opts *o,
                             fl_diag *d) {
    fl_status st = fl__graph_reserve(g, n_nodes, d);
    wnode wn; /* every field read is written first (wire_node, wire_entry) */
    wnode *w = st == FL_OK ? &wn : NULL;
    size_t slots = 16;
    while (slots < n_nodes && slots < ATTR_CACHE_SLOTS) {
        slots *= 2;
    }
    attr_cache *ac =
        w ? fl__arena_scratch(g->arena, 1, sizeof(attr_cache) + slots * sizeof(struct attr_slot))
          : NULL;
    if (!ac) {
        return st != FL_OK ? st : fl__diag_oom(d);
    }
    ac->mask = slots - 1;
    for (size_t i = 0; i < n_nodes && st == FL_OK; i++) {
        if (fl_diag_poll(d) != FL_OK) {
            st = d->status;
            break;
        }
        if (i + PREFETCH_AHEAD < n_nodes) {
            wview ahead = wire_quick_name(nodes[i + PREFETCH_AHEAD]);
            if (ahead.p) {
                fl__graph_prefetch_name(g, (const char *)ahead.p, ahead.len);
            }
        }
        st = wire_node(g->arena, nodes[i].p, nodes[i].len, w) ? wire_add_node(g, w, o, ac, d)
                                                              : WIRE_OFF;
        nodes[i].len = (size_t)(w->inputs_end - nodes[i].p); /* the rest is read */
    }
    fl__arena_scratch_free(g->arena, ac);
    int *max_port = st == FL_OK ? fl__arena_scratch(g->arena, g->n_nodes, sizeof(int)) : NULL;
    if (st == FL_OK && !max_port) {
        st = fl__diag_oom(d);
    }
    for (size_t i = 0; i < n_nodes && st == FL_OK; i++) {
        if (i + PREFETCH_AHEAD < n_nodes) {
            wire_prefetch_inputs(g, nodes[i + PREFETCH_AHEAD],
                                 wire_quick_name(nodes[i + PREFETCH_AHEAD - 1]));
        }
        st = wire_node_inputs(g, nodes[i], g->nodes[i], max_port, d);
    }
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        st = fl__gd_node_outputs(g, g->nodes[i], max_port[i], d);
    }
    if (st == FL_OK) {
        st = fl__gd_check_ports(g, d);
    }
    fl__arena_scratch_free(g->arena, max_port);
    return st;
}

/* The wire reader: FL_OK, FL_ENOMEM or FL_ECANCELED, or WIRE_OFF when the
 * graph must be read by the tree path (g and d as they were before). */
static fl_status import_wire(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                             fl_diag *d) {
    wview versions;
    size_t n_nodes;
    bool empty_library;
    if (!wire_top(buf, len, NULL, &n_nodes, &versions, &empty_library)) {
        return WIRE_OFF;
    }
    if ((int64_t)n_nodes > o->max_nodes) {
        return fl__diag_fail(d, FL_ELIMIT,
                             "graph has %zu nodes, above the limit of %lld (field: node)", n_nodes,
                             (long long)o->max_nodes);
    }
    wview *nodes = fl__arena_scratch(g->arena, n_nodes ? n_nodes : 1, sizeof(wview));
    if (!nodes) {
        return fl__diag_oom(d);
    }
    wire_top(buf, len, nodes, &n_nodes, &versions, &empty_library);
    size_t n_warnings = d->n_warnings, n_dropped = d->n_warnings_dropped;
    fl_status st = wire_src(g, versions, empty_library, d);
    if (st == FL_OK) {
        st = wire_sweeps(g, nodes, n_nodes, o, d);
    }
    fl__arena_scratch_free(g->arena, nodes);
    if (st == FL_OK || st == FL_ENOMEM || st == FL_ECANCELED || g->arena->failed) {
        return st;
    }
    /* Read again by the tree path, from an empty graph and diag. */
    fl__graph_clear(g);
    d->status = FL_OK;
    d->msg = NULL;
    d->n_warnings = n_warnings;
    d->n_warnings_dropped = n_dropped;
    return WIRE_OFF;
}

static _Thread_local uint64_t tree_reads;

uint64_t fl__graphdef_tree_reads(void) {
    return tree_reads;
}

fl_status fl__import_graphdef(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                              fl_diag *d) {
    fl_status st = import_wire(g, buf, len, o, d);
    if (st == FL_OK) {
        return fl__tf_loops(g, d);
    }
    if (st != WIRE_OFF) {
        return st;
    }
    tree_reads++;
    Tensorflow__GraphDef *gd =
        fl__pb_unpack(g, &tensorflow__graph_def__descriptor, buf, len, "tensorflow.GraphDef", d);
    if (!gd) {
        return d->status;
    }
    return fl__import_graphdef_msg(g, gd, o, d);
}
