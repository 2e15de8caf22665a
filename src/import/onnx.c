/*
 * onnx.c - ONNX ModelProto importer (bytes -> IR; no inference, no costing).
 *
 * Mapping:
 *  - every graph initializer becomes a node of kind Const (op "Const") named
 *    after its value, with attrs dtype and value; an initializer whose dims
 *    hold elements but which carries no data at all (raw_data empty, no typed
 *    field: a "stripped" file) or whose data lives in an external file is a
 *    stripped constant (FL_NODE_STRIPPED: value unknown, full size counted);
 *  - every graph input that is not an initializer becomes a node of kind
 *    Placeholder named after its value, with attrs dtype, shape (-1 for a
 *    dim_param or absent dim) and _dim_names (the dim_params, "" for none):
 *    shape inference makes a dim_param the symbol of that name (so
 *    `--bind batch=8` binds it) and a dim without value or name the symbol
 *    INPUT.AXIS, as for TensorFlow; a sequence(tensor) input is a variant
 *    of shape [count, element dims...] (count the symbol INPUT.0), an
 *    optional(tensor) input a variant of its element's shape, an
 *    optional(sequence(tensor)) one as a sequence; they carry the element's
 *    dtype in _elem_dtype and _container ("sequence", "optional",
 *    "optional_sequence"), which the sequence ops read (onnxops/sequence.c);
 *  - a Constant node becomes a node of kind Const (op "Constant");
 *  - every other node keeps its op_type as op and is looked up in the
 *    registry under its qualified name (ops.def: "onnx::Conv",
 *    "com.microsoft::FusedConv"; the default domain is "" or "ai.onnx").
 *    An op no family registers, of a domain we do not model, is imported
 *    as an unknown op with a warning naming op, domain and opset version
 *    (inference leaves its outputs unknown and the report counts it);
 *    an ai.onnx opset outside 7..FL_ONNX_MAX_OPSET is read with a warning;
 *    Its data inputs are resolved by ONNX value name to (node, port); an
 *    empty input name is an absent optional input: trailing ones are
 *    dropped, one followed by a present input reads the output of one shared
 *    node of kind onnx::_absent (an empty tensor).
 *
 * Node names: the node's name when set and free, else its first output's
 * name, else its op type; made unique with a _N suffix.
 *
 * Attributes: INT/FLOAT/STRING become i/f/s, INTS/FLOATS/STRINGS lists, TENSOR
 * a tensor attr; a graph attribute (control-flow bodies are not analysed)
 * becomes the declared shapes and dtypes of its outputs (attrs NAME,
 * NAME.types, NAME.cond_kept: see graph_attr); sparse/type attributes are
 * kept as empty attrs.
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "import/onnx_ext.h"
#include "import/onnx_wire.h"
#include "import/pbutil.h"
#include "import/pbwire.h"
#include "onnx/onnx.pb-c.h"
#include "ops/ops.h"
#include "util/hash.h"
#include "util/reserved.h"

/* The newest ai.onnx opset whose operator definitions are modelled. */
#define FL_ONNX_MAX_OPSET 26

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Element types                                                              */
/* ------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------- */
/* Value names -> (node, port)                                                */
/* ------------------------------------------------------------------------- */

typedef struct vslot {
    const char *name;
    fl_node *node;
    int port;
} vslot;

/* The table: open addressing over 8-byte cells (the name's hash and the
 * entry's index + 1; 0: empty), so that the part probed at random and
 * zeroed is a third of what slots holding the entries were (swin_t: 128
 * KB, not 384); the entries follow in the order they are added. */
typedef struct vcell {
    uint32_t hash; /* vmap_hash's: names are compared only when these agree */
    uint32_t ix;   /* entries[ix - 1] */
} vcell;

typedef struct vmap {
    vcell *cells;   /* scratch of a */
    vslot *entries; /* scratch of a, size / 2 of them */
    size_t size;    /* cells: a power of two, at least twice `used` */
    size_t used;
    fl_arena *a;
} vmap;

static bool vmap_init(vmap *m, fl_arena *a, size_t expect) {
    if (expect > UINT32_MAX / 4) { /* an index of the cells' 32 bits */
        a->failed = true;
        return false;
    }
    size_t size = 64;
    while (size < expect * 2 + 2) {
        size *= 2;
    }
    m->cells = fl__arena_scratch(a, size, sizeof(vcell));
    m->entries = m->cells ? fl__arena_scratch_raw(a, size / 2, sizeof(vslot)) : NULL;
    m->size = size;
    m->used = 0;
    m->a = a;
    return m->entries != NULL;
}

/* Value names are long ("/layer1/layer1.0/conv1/Conv_output_0"): hashed 8
 * bytes a step. */
static uint32_t vmap_hash(const char *name) {
    return (uint32_t)fl__hash_words(name, strlen(name));
}

static vslot *vmap_find(const vmap *m, const char *name) {
    uint32_t h = vmap_hash(name);
    size_t i = h & (m->size - 1);
    while (m->cells[i].ix) {
        if (m->cells[i].hash == h && strcmp(m->entries[m->cells[i].ix - 1].name, name) == 0) {
            return &m->entries[m->cells[i].ix - 1];
        }
        i = (i + 1) & (m->size - 1);
    }
    return NULL;
}

/* Doubles the cells and the entries (a node may define many more values
 * than the graph has nodes: one Split of a thousand outputs). False when
 * out of memory. */
static bool vmap_grow(vmap *m) {
    size_t size = m->size * 2;
    vslot *e = m->size <= UINT32_MAX
                   ? fl__arena_scratch_grow(m->a, m->entries, m->size / 2, size / 2, sizeof(vslot))
                   : NULL;
    vcell *bigger = e ? fl__arena_scratch(m->a, size, sizeof(vcell)) : NULL;
    m->entries = e ? e : m->entries;
    if (!bigger) {
        return false;
    }
    for (size_t k = 0; k < m->size; k++) {
        if (m->cells[k].ix) {
            size_t i = m->cells[k].hash & (size - 1);
            while (bigger[i].ix) {
                i = (i + 1) & (size - 1);
            }
            bigger[i] = m->cells[k];
        }
    }
    fl__arena_scratch_free(m->a, m->cells);
    m->cells = bigger;
    m->size = size;
    return true;
}

/* Adds name -> (node, port); returns the existing entry instead when
 * taken, NULL when out of memory. The entry stays where it is until the
 * next vmap_put. */
static vslot *vmap_put(vmap *m, const char *name, fl_node *node, int port, bool *added) {
    if ((m->used + 1) * 2 > m->size && !vmap_grow(m)) {
        return NULL;
    }
    uint32_t h = vmap_hash(name);
    size_t i = h & (m->size - 1);
    while (m->cells[i].ix) {
        if (m->cells[i].hash == h && strcmp(m->entries[m->cells[i].ix - 1].name, name) == 0) {
            *added = false;
            return &m->entries[m->cells[i].ix - 1];
        }
        i = (i + 1) & (m->size - 1);
    }
    vslot *e = &m->entries[m->used++];
    e->name = name;
    e->node = node;
    e->port = port;
    m->cells[i] = (vcell){h, (uint32_t)m->used};
    *added = true;
    return e;
}

/* ------------------------------------------------------------------------- */
/* Tensors                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct imp {
    fl_graph *g;
    fl_diag *d;
    const fl_import_opts *o;
    vmap values;
    fl_node *absent;    /* shared node for absent optional inputs, created lazily */
    fl_onnx_ext ext;    /* external data files and the ranges read from them */
    bool dflt_imported; /* the model imports ai.onnx (asked once, not per node) */
    struct {
        const char *op; /* an ai.onnx op type met before (a node's string) */
        fl_op_kind kind;
    } kinds[64]; /* by its first two characters (default_kind) */
    /* Per graph.node: its inputs less trailing absent ones, FULL_IN set when
     * early_inputs resolved them all (scratch). */
    uint32_t *n_in;
} imp;

#define FULL_IN 0x80000000u

static bool dt_unsigned(fl_dtype dt) {
    return dt == FL_DT_UINT8 || dt == FL_DT_UINT16 || dt == FL_DT_UINT32 || dt == FL_DT_UINT64 ||
           dt == FL_DT_BOOL;
}

/* Elements per byte of ONNX's packed sub-byte types (int4, uint4, float4e2m1:
 * 2; int2, uint2: 4), 1 for the others. */
static int dt_per_byte(fl_dtype dt) {
    return dt == FL_DT_INT4 || dt == FL_DT_UINT4 || dt == FL_DT_FLOAT4_E2M1FN ? 2
           : dt == FL_DT_INT2 || dt == FL_DT_UINT2                            ? 4
                                                                              : 1;
}

static bool dt_packed(fl_dtype dt) {
    return dt_per_byte(dt) > 1;
}

/* Bytes of n elements of dt as ONNX stores them (raw_data, external data). */
static uint64_t dt_bytes(fl_dtype dt, int64_t n, size_t es) {
    int per = dt_per_byte(dt);
    return per > 1 ? ((uint64_t)n + (uint64_t)per - 1) / (uint64_t)per : (uint64_t)n * es;
}

/* Number of entries in the typed field the ONNX spec assigns to dt. */
static size_t typed_count(const Onnx__TensorProto *p, fl_dtype dt) {
    switch (dt) {
    case FL_DT_FLOAT:
        return p->n_float_data;
    case FL_DT_COMPLEX64:
        return p->n_float_data / 2;
    case FL_DT_DOUBLE:
        return p->n_double_data;
    case FL_DT_COMPLEX128:
        return p->n_double_data / 2;
    case FL_DT_INT64:
        return p->n_int64_data;
    case FL_DT_UINT32:
    case FL_DT_UINT64:
        return p->n_uint64_data;
    case FL_DT_STRING:
        return p->n_string_data;
    default:
        return p->n_int32_data;
    }
}

/* Any data field at all (used to tell a stripped tensor). */
static bool has_any_data(const Onnx__TensorProto *p) {
    return p->raw_data.len || p->n_float_data || p->n_int32_data || p->n_string_data ||
           p->n_int64_data || p->n_double_data || p->n_uint64_data;
}

/* The bytes of a float/complex tensor's elements when the file stores them
 * as the value holds them (little-endian, element after element): raw_data,
 * or float_data/double_data for float, double and the complex types (any
 * alignment, as raw_data: a view of the model's bytes). NULL
 * when they need decoding (integers become fl_sym, float16 and bfloat16
 * travel in int32_data). */
static const void *typed_in_place(const Onnx__TensorProto *p, fl_dtype dt) {
    if (fl__dtype_is_integer(dt) || dt == FL_DT_BOOL) {
        return NULL;
    }
    if (p->raw_data.len) {
        return p->raw_data.data;
    }
    if ((dt == FL_DT_FLOAT || dt == FL_DT_COMPLEX64) && p->n_float_data) {
        return p->float_data;
    }
    if ((dt == FL_DT_DOUBLE || dt == FL_DT_COMPLEX128) && p->n_double_data) {
        return p->double_data;
    }
    return NULL;
}

/* A data type code without an fl_dtype: the model's fault (UNDEFINED) or
 * a type foldline does not handle (FL_EUNSUPPORTED). */
static fl_status dtype_fail(imp *im, const fl_node *node, const char *where, const char *field,
                            int32_t t) {
    const char *name = fl__onnx_dtype_name(t);
    const char *leaf = strrchr(field, '.') ? strrchr(field, '.') + 1 : field;
    fl_status st = fl__onnx_dtype_error(t);
    if (st == FL_EINVAL) {
        return fl__node_fail(im->d, st, node, "%s: %s %d is not a data type (field: %s)", where,
                             leaf, (int)t, field);
    }
    return fl__node_fail(im->d, st, node, "%s: %s %d (%s) is not supported (field: %s)", where,
                         leaf, (int)t, name ? name : "newer than this foldline knows", field);
}

/* Decodes the elements of a tensor whose bytes need it (integers, float16
 * and bfloat16 in int32_data) into a value of its own. */
static fl_status decode_value(imp *im, const Onnx__TensorProto *p, fl_const *c) {
    fl_arena *a = im->g->arena;
    fl_dtype dt = c->dtype;
    int64_t n = c->n;
    size_t es = fl__dtype_size(dt);
    fl_value *v = fl__value_new(a, dt, c->shape.rank, c->shape.dims);
    if (!v) {
        return a->failed ? fl__diag_oom(im->d) : FL_OK;
    }
    fl_sym *ints = (fl_sym *)v->ints;
    uint8_t *bytes = (uint8_t *)v->raw;
    const uint8_t *raw = p->raw_data.len ? p->raw_data.data : NULL;
    bool sgn = !dt_unsigned(dt);
    for (int64_t i = 0; i < n; i++) {
        if (raw) {
            if (ints && es == 8) {
                int64_t x; /* little-endian host (pbwire.c) */
                memcpy(&x, raw + (size_t)i * 8, 8);
                ints[i] = fl_sym_const(x);
            } else if (ints) {
                ints[i] = fl_sym_const(fl__pb_read_le(raw + (size_t)i * es, es, sgn));
            } else {
                memcpy(bytes + (size_t)i * es, raw + (size_t)i * es, es);
            }
            continue;
        }
        /* float_data and double_data may be views at any alignment
         * (onnx_wire.c): read as bytes */
        switch (dt) {
        case FL_DT_FLOAT:
        case FL_DT_COMPLEX64:
            memcpy(bytes + es * (size_t)i, (const uint8_t *)p->float_data + es * (size_t)i, es);
            break;
        case FL_DT_DOUBLE:
        case FL_DT_COMPLEX128:
            memcpy(bytes + es * (size_t)i, (const uint8_t *)p->double_data + es * (size_t)i, es);
            break;
        case FL_DT_INT64:
            ints[i] = fl_sym_const(p->int64_data[i]);
            break;
        case FL_DT_UINT32:
        case FL_DT_UINT64:
            ints[i] = fl_sym_const((int64_t)p->uint64_data[i]);
            break;
        default:
            if (ints) {
                /* int32_data holds int32 and the narrower ints and bool: keep
                 * the value as the narrow type reads it. */
                uint32_t u = (uint32_t)p->int32_data[i];
                ints[i] = fl_sym_const(fl__pb_read_le((const uint8_t *)&u, es, sgn));
            } else {
                uint16_t h = (uint16_t)p->int32_data[i]; /* float16/bfloat16 bits */
                memcpy(bytes + (size_t)i * es, &h, es < 2 ? es : 2);
            }
            break;
        }
    }
    c->value = v;
    return FL_OK;
}

/* A tensor whose bytes live in an external file: *p becomes a copy whose
 * raw_data is a view of the file's range (onnx_ext.h) and which has no
 * external data entries, or stays as it is when the file was not given. */
static fl_status external_view(imp *im, const fl_node *node, const Onnx__TensorProto **p,
                               uint64_t want) {
    const uint8_t *bytes = NULL;
    fl_status st = fl__onnx_ext_resolve(&im->ext, im->g, im->d, node, *p, want, &bytes);
    if (st != FL_OK || !bytes) {
        return st;
    }
    Onnx__TensorProto *q = fl__arena_alloc(im->g->arena, sizeof *q);
    if (!q) {
        return fl__diag_oom(im->d);
    }
    *q = **p;
    q->raw_data.data = (uint8_t *)(uintptr_t)bytes;
    q->raw_data.len = (size_t)want;
    q->has_raw_data = 1;
    q->has_data_location = 0;
    q->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
    q->n_external_data = 0;
    q->external_data = NULL;
    *p = q;
    return FL_OK;
}

/* Decodes a TensorProto into an fl_const. `node` and `field` name the place
 * for messages. *stripped is set when the content is absent (see above). */
static fl_status decode_tensor(imp *im, const fl_node *node, const char *field,
                               const Onnx__TensorProto *p, const fl_const **out, bool *stripped) {
    fl_arena *a = im->g->arena;
    fl_const *c = fl__arena_zalloc(a, sizeof(*c));
    if (!c) {
        return fl__diag_oom(im->d);
    }
    *stripped = false;
    fl_dtype dt = fl__onnx_dtype(p->data_type);
    if (dt == FL_DT_INVALID) {
        return dtype_fail(im, node, field, "data_type", p->data_type);
    }
    if (p->n_dims > 254) {
        return fl__node_fail(im->d, FL_EUNSUPPORTED, node,
                             "%s: more than 254 dims, foldline's limit (field: dims)", field);
    }
    int64_t n = 1;
    for (size_t i = 0; i < p->n_dims; i++) {
        if (p->dims[i] < 0) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: dim %zu is negative (%lld) (field: dims)", field, i,
                                 (long long)p->dims[i]);
        }
        if (p->dims[i] && n > INT64_MAX / p->dims[i]) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: element count overflows 64 bits (field: dims)", field);
        }
        n *= p->dims[i];
    }
    size_t es = fl__dtype_size(dt);
    if (es && (uint64_t)n > UINT64_MAX / 2 / es) {
        return fl__node_fail(im->d, FL_EINVAL, node, "%s: byte size overflows (field: dims)",
                             field);
    }
    c->dtype = dt;
    c->shape.rank = (int)p->n_dims;
    c->shape.dims = p->dims;
    c->n = n;
    c->src = p;
    c->content_bytes = (uint64_t)n * es;
    *out = c;

    bool external =
        p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (external && dt != FL_DT_STRING && es) {
        fl_status st = external_view(im, node, &p, dt_bytes(dt, n, es));
        if (st != FL_OK) {
            return st;
        }
        external = p->has_data_location; /* false once resolved to a view */
        c->src = p;                      /* the ONNX writer writes the bytes inline */
    }
    if (external || (n > 0 && dt != FL_DT_STRING && !has_any_data(p))) {
        c->stripped = true;
        *stripped = true;
        return FL_OK;
    }
    if (dt == FL_DT_STRING) {
        if (p->raw_data.len) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: a string tensor cannot use raw_data (field: raw_data)",
                                 field);
        }
        if (p->n_string_data != (size_t)n) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: %zu string_data entries but dims hold %lld elements "
                                 "(field: string_data)",
                                 field, p->n_string_data, (long long)n);
        }
        return FL_OK;
    }
    size_t n_typed = typed_count(p, dt);
    bool other_typed = (p->n_float_data + p->n_int32_data + p->n_string_data + p->n_int64_data +
                        p->n_double_data + p->n_uint64_data) != 0 &&
                       n_typed == 0;
    if (other_typed) {
        return fl__node_fail(im->d, FL_EINVAL, node,
                             "%s: data is in a typed field that does not match data_type %s", field,
                             fl__dtype_name(dt));
    }
    uint64_t want = dt_bytes(dt, n, es);
    if (p->raw_data.len) {
        if (n_typed) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: has both raw_data and a typed data field", field);
        }
        if ((uint64_t)p->raw_data.len != want) {
            return fl__node_fail(im->d, FL_EINVAL, node,
                                 "%s: raw_data is %zu bytes but dims (%lld elements) of %s need "
                                 "%llu (field: raw_data)",
                                 field, p->raw_data.len, (long long)n, fl__dtype_name(dt),
                                 (unsigned long long)want);
        }
    } else if (n_typed != (size_t)n && !dt_packed(dt)) {
        return fl__node_fail(im->d, FL_EINVAL, node,
                             "%s: %zu typed values but dims hold %lld elements", field, n_typed,
                             (long long)n);
    }
    if (n > im->o->max_value_elems || dt_packed(dt) || es == 0) {
        return FL_OK; /* shape and dtype known; contents not decoded */
    }
    const void *in_place = typed_in_place(p, dt);
    if (in_place) { /* a view of the model's bytes: read only when used */
        fl_value *w = fl__value_view(a, dt, c->shape.rank, c->shape.dims, in_place);
        if (!w && a->failed) {
            return fl__diag_oom(im->d);
        }
        c->value = w;
        return FL_OK;
    }
    return decode_value(im, p, c);
}

/* ------------------------------------------------------------------------- */
/* Nodes                                                                      */
/* ------------------------------------------------------------------------- */

/* Adds a node of op type `op` (as the file spells it) named `want`, or
 * (once import_graph enters it in the name index) a unique variant of it;
 * the caller binds its kind. `want` and `op` are strings of the decoded
 * model (in the graph's arena) or literals: the node keeps them, without
 * copies. */
static fl_node *add_named(imp *im, const char *want, const char *op) {
    return fl__graph_add_node_unindexed(im->g, want && *want ? want : op, op, im->d);
}

/* Registers output `port` of n under value `name` (empty: unused output);
 * `field` names it in an error, followed by [index] when index >= 0. */
static fl_status def_value(imp *im, fl_node *n, const char *name, int port, const char *field,
                           int index) {
    if (!name || !*name) {
        return FL_OK;
    }
    bool added;
    vslot *s = vmap_put(&im->values, name, n, port, &added);
    if (!s) {
        return fl__diag_oom(im->d);
    }
    if (!added) {
        char at[24] = "";
        if (index >= 0) {
            snprintf(at, sizeof at, "[%d]", index);
        }
        return fl__node_fail(im->d, FL_EINVAL, n,
                             "value '%s' is already produced by '%s' (field: %s%s)", name,
                             s->node->name, field, at);
    }
    return FL_OK;
}

/* A Const node (kind CONST) holding k, with op type `op`. */
static fl_status make_const(imp *im, fl_node *n, const fl_const *k, bool stripped) {
    fl_graph *g = im->g;
    fl__op_bind_kind(n, FL_OP_CONST);
    if (stripped) {
        n->flags |= FL_NODE_STRIPPED;
    }
    n->attrs = fl__arena_calloc(g->arena, 2, sizeof(fl_attr));
    if (!n->attrs) {
        return fl__diag_oom(im->d);
    }
    /* Literal names (every initializer has these two): not interned. */
    n->attrs[0].name = "dtype";
    n->attrs[0].kind = FL_ATTR_TYPE;
    n->attrs[0].v.type = k->dtype;
    n->attrs[1].name = "value";
    n->attrs[1].kind = FL_ATTR_TENSOR;
    n->attrs[1].v.tensor = k;
    n->n_attrs = 2;
    return fl__node_alloc_outputs(g, n, 1) == FL_OK ? FL_OK : fl__diag_oom(im->d);
}

static fl_status import_initializers(imp *im, const Onnx__GraphProto *gp) {
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        if (!t->name || !*t->name) {
            return fl__diag_fail(im->d, FL_EINVAL,
                                 "initializer %zu has no name (field: graph.initializer.name)", i);
        }
        if (vmap_find(&im->values, t->name)) {
            return fl__diag_fail(im->d, FL_EINVAL,
                                 "initializer '%s' appears twice (field: graph.initializer)",
                                 t->name);
        }
        fl_node *n = add_named(im, t->name, "Const");
        if (!n) {
            return im->d->status;
        }
        n->src = t;
        const fl_const *k;
        bool stripped;
        fl_status st = decode_tensor(im, n, "initializer", t, &k, &stripped);
        if (st == FL_OK) {
            st = make_const(im, n, k, stripped);
        }
        if (st == FL_OK) {
            st = def_value(im, n, t->name, 0, "graph.initializer", -1);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* What a graph input holds: a tensor, or a sequence or optional of one. */
typedef enum in_container {
    IN_TENSOR,
    IN_SEQUENCE,
    IN_OPTIONAL,
    IN_OPTIONAL_SEQUENCE
} in_container;

/* The tensor type of graph input n's type proto tp, and what holds it:
 * tensor, sequence(tensor), optional(tensor), optional(sequence(tensor)).
 * Maps, sparse tensors and deeper nestings are refused. */
static fl_status input_type(imp *im, fl_node *n, const Onnx__TypeProto *tp, in_container *kind,
                            const Onnx__TypeProto__Tensor **out) {
    *kind = IN_TENSOR;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type) {
        *kind = IN_OPTIONAL;
        tp = tp->optional_type->elem_type;
    }
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type) {
        *kind = *kind == IN_OPTIONAL ? IN_OPTIONAL_SEQUENCE : IN_SEQUENCE;
        tp = tp->sequence_type->elem_type;
    }
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
        return fl__node_fail(im->d, FL_EUNSUPPORTED, n,
                             "graph input is not a tensor, a sequence of tensors or an optional "
                             "of either (a map, sparse tensor or nested sequence input is not "
                             "supported; field: graph.input.type)");
    }
    *out = tp->tensor_type;
    return FL_OK;
}

/* Placeholder n's attrs from its tensor type tt: dtype, and when tt has a
 * shape, shape and _dim_names. A sequence input is a variant of shape
 * [count, element dims...] (its count a free dim, so the symbol INPUT.0);
 * an optional input a variant of its element's shape; both carry the
 * element's dtype in _elem_dtype and what holds it in _container
 * ("sequence", "optional", "optional_sequence"). */
static fl_status input_attrs(imp *im, fl_node *n, in_container kind,
                             const Onnx__TypeProto__Tensor *tt) {
    static const char *const container[] = {"", "sequence", "optional", "optional_sequence"};
    fl_graph *g = im->g;
    fl_dtype dt = fl__onnx_dtype(tt->elem_type);
    if (dt == FL_DT_INVALID) {
        return dtype_fail(im, n, "graph input", "graph.input.type.tensor_type.elem_type",
                          tt->elem_type);
    }
    const Onnx__TensorShapeProto *sp = tt->shape;
    int lead = kind == IN_SEQUENCE || kind == IN_OPTIONAL_SEQUENCE; /* the count */
    int rank = sp ? (int)sp->n_dim + lead : -1;
    if (rank > 254) {
        return fl__node_fail(im->d, FL_EUNSUPPORTED, n,
                             "graph input has more than 254 dims, foldline's limit");
    }
    int64_t *lit = fl__arena_calloc(g->arena, rank > 0 ? (size_t)rank : 1, sizeof(int64_t));
    fl_str *names = fl__arena_calloc(g->arena, rank > 0 ? (size_t)rank : 1, sizeof(fl_str));
    n->attrs = fl__arena_calloc(g->arena, 5, sizeof(fl_attr));
    if (!lit || !names || !n->attrs || fl__node_alloc_outputs(g, n, 1) != FL_OK) {
        return fl__diag_oom(im->d);
    }
    for (int k = 0; k < rank; k++) {
        lit[k] = -1;
        names[k].p = "";
        if (k < lead) {
            continue;
        }
        const Onnx__TensorShapeProto__Dimension *dm = sp->dim[k - lead];
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            dm->dim_value >= 0) {
            lit[k] = dm->dim_value;
        } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            return fl__node_fail(im->d, FL_EINVAL, n,
                                 "graph input dim %d is negative (field: "
                                 "graph.input.type.tensor_type.shape.dim)",
                                 k - lead);
        } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   dm->dim_param && *dm->dim_param) {
            names[k].p = dm->dim_param;
            names[k].len = strlen(dm->dim_param);
        }
    }
    n->attrs[0] = fl__attr_make_type(g, "dtype", kind == IN_TENSOR ? dt : FL_DT_VARIANT);
    n->n_attrs = 1;
    if (rank >= 0) {
        /* The Placeholder's shape attr, and the names of its free dims
         * (dim_param; "" for none) in _dim_names: shape inference makes
         * them symbols of those names (others INPUT.AXIS). */
        n->attrs[1].name = "shape";
        n->attrs[1].kind = FL_ATTR_SHAPE;
        n->attrs[1].v.shape.rank = rank;
        n->attrs[1].v.shape.dims = lit;
        n->attrs[2].name = "_dim_names";
        n->attrs[2].kind = FL_ATTR_LIST;
        n->attrs[2].list_kind = FL_ATTR_S;
        n->attrs[2].n = (size_t)rank;
        n->attrs[2].v.list.s = names;
        n->n_attrs = 3;
    }
    if (kind != IN_TENSOR) {
        n->attrs[n->n_attrs++] = fl__attr_make_type(g, "_elem_dtype", dt);
        n->attrs[n->n_attrs++] = fl__attr_make_str(g, "_container", container[kind]);
        if (!n->attrs[n->n_attrs - 1].v.s.p || !n->attrs[n->n_attrs - 2].name) {
            return fl__diag_oom(im->d);
        }
    }
    return FL_OK;
}

static fl_status import_inputs(imp *im, const Onnx__GraphProto *gp) {
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !*vi->name) {
            return fl__diag_fail(im->d, FL_EINVAL,
                                 "graph input %zu has no name (field: graph.input.name)", i);
        }
        if (vmap_find(&im->values, vi->name)) {
            continue; /* an initializer: its declared type adds nothing */
        }
        fl_node *n = add_named(im, vi->name, "Placeholder");
        if (!n) {
            return im->d->status;
        }
        fl__op_bind_kind(n, FL_OP_PLACEHOLDER);
        n->src = vi;
        const Onnx__TypeProto *tp = vi->type;
        if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
            return fl__node_fail(im->d, FL_EINVAL, n,
                                 "graph input has no type (field: graph.input.type)");
        }
        in_container kind;
        const Onnx__TypeProto__Tensor *tt = NULL;
        fl_status st = input_type(im, n, tp, &kind, &tt);
        if (st == FL_OK) {
            st = input_attrs(im, n, kind, tt);
        }
        if (st == FL_OK) {
            st = def_value(im, n, vi->name, 0, "graph.input", -1);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* A graph attr (If's branches, Loop's and Scan's body) is not analysed; it
 * is kept as the declared types of the subgraph's outputs: attr NAME lists
 * their shapes (-1 for a dim without value, rank -1 without a shape or for a
 * non-tensor), attr NAME.types their dtypes (invalid for a non-tensor), so
 * the control-flow ops type their outputs from them; types[1] gets
 * NAME.cond_kept. */
static fl_status graph_attr(imp *im, const Onnx__AttributeProto *p, fl_attr *out, fl_attr *types) {
    fl_arena *a = im->g->arena;
    const Onnx__GraphProto *sg = p->g;
    size_t no = sg ? sg->n_output : 0;
    fl_shape_lit *shapes = fl__arena_calloc(a, no ? no : 1, sizeof(fl_shape_lit));
    int *dts = fl__arena_calloc(a, no ? no : 1, sizeof(int));
    char *tname = fl__arena_printf(a, "%s.types", p->name);
    if (!shapes || !dts || !tname) {
        return fl__diag_oom(im->d);
    }
    for (size_t i = 0; i < no; i++) {
        const Onnx__TypeProto *tp = sg->output[i]->type;
        const Onnx__TypeProto__Tensor *tt =
            tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? tp->tensor_type : NULL;
        dts[i] = tt ? (int)fl__onnx_dtype(tt->elem_type) : FL_DT_INVALID;
        shapes[i].rank = tt && tt->shape && tt->shape->n_dim <= 254 ? (int)tt->shape->n_dim : -1;
        int64_t *d =
            fl__arena_calloc(a, shapes[i].rank > 0 ? (size_t)shapes[i].rank : 1, sizeof(int64_t));
        if (!d) {
            return fl__diag_oom(im->d);
        }
        for (int k = 0; k < shapes[i].rank; k++) {
            const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[k];
            d[k] = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                           dm->dim_value >= 0
                       ? dm->dim_value
                       : -1;
        }
        shapes[i].dims = d;
    }
    out->kind = FL_ATTR_LIST;
    out->list_kind = no ? FL_ATTR_SHAPE : FL_ATTR_NONE;
    out->n = no;
    out->v.list.shape = shapes;
    memset(types, 0, sizeof *types);
    types->name = tname;
    types->kind = FL_ATTR_LIST;
    types->list_kind = no ? FL_ATTR_TYPE : FL_ATTR_NONE;
    types->n = no;
    types->v.list.type = dts;
    /* NAME.cond_kept (Loop bodies): output 0, the condition, is input 1
     * passed on unchanged (directly or through an Identity), so the loop
     * runs its trip count M whenever it starts. */
    bool kept = false;
    if (sg && sg->n_output && sg->n_input > 1 && sg->output[0]->name && sg->input[1]->name) {
        const char *co = sg->output[0]->name, *ci = sg->input[1]->name;
        kept = strcmp(co, ci) == 0;
        for (size_t i = 0; i < sg->n_node && !kept; i++) {
            const Onnx__NodeProto *bn = sg->node[i];
            kept = bn->op_type && strcmp(bn->op_type, "Identity") == 0 && bn->n_output == 1 &&
                   bn->n_input == 1 && strcmp(bn->output[0], co) == 0 &&
                   strcmp(bn->input[0], ci) == 0;
        }
    }
    char *kname = fl__arena_printf(a, "%s.cond_kept", p->name);
    if (!kname) {
        return fl__diag_oom(im->d);
    }
    types[1] = fl__attr_make_int(im->g, kname, kept);
    return FL_OK;
}

/* Attribute conversion. */
static fl_status convert_attr(imp *im, fl_node *n, const Onnx__AttributeProto *p, fl_attr *out) {
    fl_arena *a = im->g->arena;
    memset(out, 0, sizeof(*out));
    out->name = p->name;
    int type = p->has_type ? (int)p->type : 0;
    if (type == 0) {
        /* Before IR 2 the type was implied by the field set. */
        type = p->has_f       ? 1
               : p->has_i     ? 2
               : p->has_s     ? 3
               : p->t         ? 4
               : p->g         ? 5
               : p->n_floats  ? 6
               : p->n_ints    ? 7
               : p->n_strings ? 8
                              : 0;
    }
    switch (type) {
    case 1:
        out->kind = FL_ATTR_F;
        out->v.f = p->f;
        return FL_OK;
    case 2:
        out->kind = FL_ATTR_I;
        out->v.i = p->i;
        return FL_OK;
    case 3:
        out->kind = FL_ATTR_S;
        out->v.s.p = fl__arena_strndup(a, (const char *)p->s.data, p->s.len);
        out->v.s.len = p->s.len;
        return out->v.s.p ? FL_OK : fl__diag_oom(im->d);
    case 4: {
        char field[300];
        snprintf(field, sizeof field, "attr '%.200s'", p->name);
        if (!p->t) {
            return fl__node_fail(im->d, FL_EINVAL, n, "%s: type TENSOR but no tensor (field: t)",
                                 field);
        }
        bool stripped;
        out->kind = FL_ATTR_TENSOR;
        return decode_tensor(im, n, field, p->t, &out->v.tensor, &stripped);
    }
    case 6:
        out->kind = FL_ATTR_LIST;
        out->list_kind = p->n_floats ? FL_ATTR_F : FL_ATTR_NONE;
        out->n = p->n_floats;
        out->v.list.f = p->floats;
        return FL_OK;
    case 7:
        out->kind = FL_ATTR_LIST;
        out->list_kind = p->n_ints ? FL_ATTR_I : FL_ATTR_NONE;
        out->n = p->n_ints;
        out->v.list.i = p->ints;
        return FL_OK;
    case 8: {
        fl_str *s = fl__arena_calloc(a, p->n_strings ? p->n_strings : 1, sizeof(fl_str));
        if (!s) {
            return fl__diag_oom(im->d);
        }
        for (size_t i = 0; i < p->n_strings; i++) {
            s[i].p = fl__arena_strndup(a, (const char *)p->strings[i].data, p->strings[i].len);
            s[i].len = p->strings[i].len;
            if (!s[i].p) {
                return fl__diag_oom(im->d);
            }
        }
        out->kind = FL_ATTR_LIST;
        out->list_kind = p->n_strings ? FL_ATTR_S : FL_ATTR_NONE;
        out->n = p->n_strings;
        out->v.list.s = s;
        return FL_OK;
    }
    default:
        out->kind = FL_ATTR_NONE; /* graphs, sparse tensors, type protos: not analysed */
        return FL_OK;
    }
}

/* Constant node -> Const kind. Supports value, value_float(s), value_int(s),
 * value_string(s); not sparse_value. */
static fl_status import_constant(imp *im, fl_node *n, const Onnx__NodeProto *np) {
    fl_graph *g = im->g;
    if (np->n_attribute != 1 || !np->attribute[0]->name) {
        return fl__node_fail(im->d, FL_EINVAL, n,
                             "Constant needs exactly one value attr, got %zu (field: attribute)",
                             np->n_attribute);
    }
    const Onnx__AttributeProto *at = np->attribute[0];
    const char *an = at->name;
    const fl_const *k = NULL;
    bool stripped = false;
    if (strcmp(an, "value") == 0) {
        if (!at->t) {
            return fl__node_fail(im->d, FL_EINVAL, n, "attr 'value' holds no tensor (field: t)");
        }
        fl_status st = decode_tensor(im, n, "attr 'value'", at->t, &k, &stripped);
        if (st != FL_OK) {
            return st;
        }
    } else if (strcmp(an, "value_float") == 0 || strcmp(an, "value_int") == 0 ||
               strcmp(an, "value_floats") == 0 || strcmp(an, "value_ints") == 0) {
        bool is_f = an[6] == 'f', is_list = an[strlen(an) - 1] == 's';
        int64_t len = is_list ? (int64_t)(is_f ? at->n_floats : at->n_ints) : 1;
        int64_t dims[1] = {len};
        fl_value *v = fl__value_new(g->arena, is_f ? FL_DT_FLOAT : FL_DT_INT64, is_list, dims);
        if (!v) {
            return fl__diag_oom(im->d);
        }
        for (int64_t i = 0; i < len; i++) {
            if (is_f) {
                fl__value_set_f64(v, i, is_list ? at->floats[i] : at->f);
            } else {
                ((fl_sym *)v->ints)[i] = fl_sym_const(is_list ? at->ints[i] : at->i);
            }
        }
        fl_attr t = fl__attr_make_tensor(g, "value", v->dtype, is_list, dims, v);
        if (!t.v.tensor) {
            return fl__diag_oom(im->d);
        }
        k = t.v.tensor;
    } else if (strcmp(an, "value_string") == 0 || strcmp(an, "value_strings") == 0) {
        /* A string tensor, [n] or a scalar, over the attr's own strings. */
        bool is_list = an[12] == 's';
        Onnx__TensorProto *tp = fl__arena_zalloc(g->arena, sizeof(*tp));
        int64_t *dims = fl__arena_calloc(g->arena, 1, sizeof(int64_t));
        if (!tp || !dims) {
            return fl__diag_oom(im->d);
        }
        onnx__tensor_proto__init(tp);
        tp->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
        tp->has_data_type = 1;
        tp->n_dims = is_list ? 1 : 0;
        tp->dims = dims;
        dims[0] = (int64_t)at->n_strings;
        tp->n_string_data = is_list ? at->n_strings : 1;
        tp->string_data = is_list ? at->strings : (ProtobufCBinaryData *)&at->s;
        fl_status st = decode_tensor(
            im, n, is_list ? "attr 'value_strings'" : "attr 'value_string'", tp, &k, &stripped);
        if (st != FL_OK) {
            return st;
        }
    } else if (strcmp(an, "sparse_value") == 0) {
        return fl__node_fail(im->d, FL_EUNSUPPORTED, n,
                             "Constant attr 'sparse_value' is not supported (value, value_float, "
                             "value_floats, value_int, value_ints, value_string, value_strings "
                             "are; field: attribute)");
    } else {
        return fl__node_fail(im->d, FL_EINVAL, n,
                             "Constant attr '%s' is not one of ONNX's Constant attributes "
                             "(field: attribute)",
                             an);
    }
    return make_const(im, n, k, stripped);
}

/* The registry kind of an op in `domain` ("" = ai.onnx). */
/* The registry's prefix of an op of `domain` ("onnx" for ai.onnx). */
static const char *op_prefix(const char *domain) {
    return (!*domain || strcmp(domain, "ai.onnx") == 0) ? "onnx" : domain;
}

static fl_op_kind lookup_op(const char *domain, const char *op_type) {
    char buf[300];
    const char *pfx = op_prefix(domain);
    size_t lp = strlen(pfx), lt = strlen(op_type);
    if (lp + 2 + lt >= sizeof buf) {
        return FL_OP_UNKNOWN;
    }
    memcpy(buf, pfx, lp);
    memcpy(buf + lp, "::", 2);
    memcpy(buf + lp + 2, op_type, lt + 1);
    return fl__op_lookup(buf);
}

/* lookup_op of an op of the default domain, remembered per op type: a graph
 * has many nodes of few types. A slot is found by the type's first two
 * characters and confirmed by comparing it; a miss looks the op up and
 * takes the slot. */
static fl_op_kind default_kind(imp *im, const char *op_type) {
    unsigned char c0 = (unsigned char)op_type[0];
    unsigned char c1 = c0 ? (unsigned char)op_type[1] : 0;
    size_t i = ((size_t)c0 * 7u + c1) % (sizeof im->kinds / sizeof im->kinds[0]);
    if (im->kinds[i].op && strcmp(im->kinds[i].op, op_type) == 0) {
        return im->kinds[i].kind;
    }
    fl_op_kind kind = lookup_op("", op_type);
    im->kinds[i].op = op_type;
    im->kinds[i].kind = kind;
    return kind;
}

static bool domain_supported(const char *domain) {
    return !*domain || strcmp(domain, "ai.onnx") == 0 || strcmp(domain, "com.microsoft") == 0 ||
           strcmp(domain, "ai.onnx.ml") == 0 || strcmp(domain, "ai.onnx.preview.training") == 0;
}

/* The opset version the model imports for `domain` (-1 when none). */
static int64_t domain_version(const Onnx__ModelProto *m, const char *domain) {
    bool dflt = !*domain || strcmp(domain, "ai.onnx") == 0;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
        if (strcmp(d, domain) == 0 || (dflt && (!*d || strcmp(d, "ai.onnx") == 0))) {
            return m->opset_import[i]->version;
        }
    }
    return -1;
}

static bool domain_imported(const Onnx__ModelProto *m, const char *domain) {
    bool dflt = !*domain || strcmp(domain, "ai.onnx") == 0;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
        if (strcmp(d, domain) == 0 || (dflt && (!*d || strcmp(d, "ai.onnx") == 0))) {
            return true;
        }
    }
    return false;
}

/* Sweep 1 for one node: create it, its attrs and its outputs. */
/* The node's inputs less trailing absent optional ones. */
static size_t input_count(const Onnx__NodeProto *np) {
    size_t cnt = np->n_input;
    while (cnt > 0 && (!np->input[cnt - 1] || !*np->input[cnt - 1])) {
        cnt--;
    }
    return cnt;
}

/* Sweep 1's part of a node's inputs: those whose producer is met already
 * (nodes come in topological order, so nearly all) are resolved while the
 * producer's slot and name are still in cache. resolve_inputs does the
 * rest, and every check, once all nodes are in: a name is bound once, so
 * what is found now is what it would find. */
static fl_status early_inputs(imp *im, fl_node *n, const Onnx__NodeProto *np, size_t idx) {
    size_t cnt = input_count(np);
    n->inputs = fl__arena_calloc(im->g->arena, cnt ? cnt : 1, sizeof(fl_input));
    if (!n->inputs) {
        return fl__diag_oom(im->d);
    }
    uint32_t all = FULL_IN;
    for (size_t k = 0; k < cnt; k++) {
        const char *v = np->input[k];
        const vslot *s = v && *v ? vmap_find(&im->values, v) : NULL;
        if (s) {
            n->inputs[k].node = s->node;
            n->inputs[k].port = s->port;
        } else {
            all = 0;
        }
    }
    im->n_in[idx] = (uint32_t)cnt | all; /* cnt <= 65535 (import_node) */
    return FL_OK;
}

static fl_status import_node(imp *im, const Onnx__ModelProto *m, size_t idx,
                             const Onnx__NodeProto *np) {
    fl_graph *g = im->g;
    const char *op_type = np->op_type ? np->op_type : "";
    const char *domain = np->domain ? np->domain : "";
    if (!*op_type) {
        return fl__diag_fail(im->d, FL_EINVAL,
                             "node %zu ('%s') has an empty op_type "
                             "(field: graph.node.op_type)",
                             idx, np->name ? np->name : "");
    }
    const char *want = np->name && *np->name                             ? np->name
                       : np->n_output && np->output[0] && *np->output[0] ? np->output[0]
                                                                         : op_type;
    fl_node *n = add_named(im, want, op_type);
    if (!n) {
        return im->d->status;
    }
    n->src = np;
    n->device = "";
    if (!(*domain ? domain_imported(m, domain) : im->dflt_imported)) {
        return fl__node_fail(im->d, FL_EINVAL, n,
                             "domain '%s' is not declared in the model's opset_import (field: "
                             "domain)",
                             domain);
    }
    /* A Constant becomes a Const node (import_constant): its op is not
     * looked up. */
    bool constant = !*domain && op_type[0] == 'C' && strcmp(op_type, "Constant") == 0;
    fl_op_kind kind = constant   ? FL_OP_UNKNOWN
                      : !*domain ? default_kind(im, op_type)
                                 : lookup_op(domain, op_type);
    if (!kind && !domain_supported(domain)) {
        /* Analysed as an unknown op (outputs unknown, counted in the report's
         * unknown ops), as an unregistered op of a modelled domain is. */
        fl__diag_warn(im->d,
                      "node '%s': op '%s' of domain '%s' (opset %lld) is not modelled (ai.onnx, "
                      "ai.onnx.ml, ai.onnx.preview.training and com.microsoft are); counted as an "
                      "unknown op",
                      n->name, op_type, domain, (long long)domain_version(m, domain));
    }
    if (np->n_output == 0) {
        return fl__node_fail(im->d, FL_EINVAL, n, "node has no outputs (field: output)");
    }
    if (np->n_output > 65535 || np->n_input > 65535) {
        return fl__node_fail(im->d, FL_EINVAL, n, "node has too many inputs or outputs");
    }
    fl_status st;
    if (constant) {
        n->op = "Constant"; /* static, as the registry's names below */
        st = import_constant(im, n, np);
        if (st != FL_OK) {
            return st;
        }
        if (np->n_output != 1) {
            return fl__node_fail(im->d, FL_EINVAL, n,
                                 "Constant has %zu outputs, expects 1 "
                                 "(field: output)",
                                 np->n_output);
        }
    } else {
        fl__op_bind_kind(n, kind);
        /* the same text, static (found by "PREFIX::" it): compared by
         * pointer first, never read from the model's bytes again */
        if (kind) {
            n->op = fl__op_name(kind) + strlen(op_prefix(domain)) + 2;
        }
        /* room for each graph attr's NAME.types and NAME.cond_kept */
        n->attrs = fl__arena_calloc(g->arena, 3 * np->n_attribute + 1, sizeof(fl_attr));
        if (!n->attrs) {
            return fl__diag_oom(im->d);
        }
        for (size_t k = 0; k < np->n_attribute; k++) {
            const Onnx__AttributeProto *at = np->attribute[k];
            if (!at->name || !*at->name) {
                return fl__node_fail(im->d, FL_EINVAL, n,
                                     "attribute %zu has no name (field: attribute.name)", k);
            }
            if (fl__attr_reserved(at->name) || fl__attr_reserved_suffix(at->name)) {
                fl__node_warn(im->d, n,
                              "attr '%s' is reserved for foldline's own use and was ignored "
                              "(field: attribute)",
                              at->name);
                continue;
            }
            for (int j = 0; j < n->n_attrs; j++) {
                if (strcmp(n->attrs[j].name, at->name) == 0) {
                    return fl__node_fail(im->d, FL_EINVAL, n,
                                         "attr '%s' appears twice (field: attribute)", at->name);
                }
            }
            st = convert_attr(im, n, at, &n->attrs[n->n_attrs]);
            if (st == FL_OK && (at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ||
                                (!at->has_type && at->g))) {
                n->n_attrs += 2;
                st = graph_attr(im, at, &n->attrs[n->n_attrs - 2], &n->attrs[n->n_attrs - 1]);
            }
            if (st != FL_OK) {
                return st;
            }
            n->n_attrs++;
        }
        if (n->desc && n->desc->n_outputs >= 0 && (int)np->n_output > n->desc->n_outputs) {
            return fl__node_fail(im->d, FL_EINVAL, n,
                                 "has %zu outputs, the op has at most %d (field: output)",
                                 np->n_output, n->desc->n_outputs);
        }
        if (fl__node_alloc_outputs(g, n, (int)np->n_output) != FL_OK) {
            return fl__diag_oom(im->d);
        }
    }
    for (size_t k = 0; k < np->n_output; k++) {
        st = def_value(im, n, np->output[k], (int)k, "output", (int)k);
        if (st != FL_OK) {
            return st;
        }
    }
    return constant ? FL_OK : early_inputs(im, n, np, idx);
}

static fl_status absent_input(imp *im, fl_input *in) {
    if (!im->absent) {
        const char *name = fl__graph_unique_name(im->g, "onnx::absent");
        fl_node *n = name ? fl__graph_add_node(im->g, name, "onnx::_absent", im->d) : NULL;
        if (!n) {
            return name ? im->d->status : fl__diag_oom(im->d);
        }
        fl__op_bind_kind(n, FL_OP_ONNX_ABSENT);
        if (fl__node_alloc_outputs(im->g, n, 1) != FL_OK) {
            return fl__diag_oom(im->d);
        }
        im->absent = n;
    }
    in->node = im->absent;
    in->port = 0;
    return FL_OK;
}

/* Sweep 2 for one node: resolve the inputs early_inputs left. */
static fl_status resolve_inputs(imp *im, fl_node *n, const Onnx__NodeProto *np, size_t idx) {
    /* early_inputs left the count unless the node is a Constant */
    size_t cnt = n->inputs ? (size_t)(im->n_in[idx] & ~FULL_IN) : input_count(np);
    if (n->kind == FL_OP_CONST) {
        if (cnt) {
            return fl__node_fail(im->d, FL_EINVAL, n,
                                 "Constant takes no inputs, got %zu (field: "
                                 "input)",
                                 cnt);
        }
        return FL_OK;
    }
    for (size_t k = 0; k < cnt && !(im->n_in[idx] & FULL_IN); k++) {
        if (n->inputs[k].node) {
            continue; /* early_inputs found it */
        }
        const char *v = np->input[k];
        fl_status st;
        if (!v || !*v) {
            if (!fl__op_input_optional(n->desc, k)) {
                return fl__node_fail(im->d, FL_EINVAL, n,
                                     "input %zu is required, but its name is empty (field: "
                                     "input[%zu])",
                                     k, k);
            }
            st = absent_input(im, &n->inputs[k]);
        } else {
            const vslot *s = vmap_find(&im->values, v);
            if (!s) {
                return fl__node_fail(im->d, FL_EINVAL, n,
                                     "input '%s' is not produced by any node, initializer or graph "
                                     "input (field: input[%zu])",
                                     v, k);
            }
            n->inputs[k].node = s->node;
            n->inputs[k].port = s->port;
            st = FL_OK;
        }
        if (st != FL_OK) {
            return st;
        }
    }
    n->n_inputs = (int)cnt;
    return fl__import_check_onnx_node(im->d, n, np->domain, im->g->onnx.opset, n->n_inputs);
}

static fl_status import_graph(imp *im, const Onnx__ModelProto *m) {
    const Onnx__GraphProto *gp = m->graph;
    fl_diag *d = im->d;
    if (!gp) {
        return fl__diag_fail(d, FL_EINVAL, "ONNX model has no graph (field: graph)");
    }
    int64_t total = (int64_t)gp->n_node + (int64_t)gp->n_initializer + (int64_t)gp->n_input;
    if (total > im->o->max_nodes) {
        return fl__diag_fail(d, FL_ELIMIT,
                             "graph has %lld nodes, initializers and inputs, above the limit of "
                             "%lld nodes (field: graph.node)",
                             (long long)total, (long long)im->o->max_nodes);
    }
    /* The default opset, when imported, should be one whose operators we
     * model. */
    int64_t opset = -1;
    bool has_default = false;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *dm = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
        if (!*dm || strcmp(dm, "ai.onnx") == 0) {
            opset = m->opset_import[i]->version;
            has_default = true;
        }
    }
    if (m->n_opset_import == 0) {
        return fl__diag_fail(d, FL_EINVAL,
                             "ONNX model imports no operator set (field: opset_import)");
    }
    /* A model may import only other domains (ai.onnx.preview.training,
     * ai.onnx.ml); an ai.onnx node then fails as of an undeclared domain. */
    if (has_default && opset < 1) {
        return fl__diag_fail(d, FL_EINVAL, "ai.onnx opset %lld is not valid (field: opset_import)",
                             (long long)opset);
    }
    /* Opsets 1-6 are read as they define their operators (the hooks test the
     * opset); an experimental op not modelled warns by itself. */
    if (has_default && opset > FL_ONNX_MAX_OPSET) {
        /* Operators are read with their definitions up to the newest
         * modelled opset; a definition that changed since may be misread. */
        fl__diag_warn(d,
                      "ai.onnx opset %lld is outside the modelled opsets 1..%d: operators are "
                      "read with their opset %d definitions",
                      (long long)opset, FL_ONNX_MAX_OPSET, FL_ONNX_MAX_OPSET);
    }
    /* The ops read the opset from g->producer; the report takes it from
     * g->onnx (versions.producer is TensorFlow's: an ONNX model says who made
     * it and which opset it uses in fields of its own). */
    im->g->producer = (int)(opset > 1000000 ? 1000000 : opset);
    im->g->onnx.is_onnx = true;
    im->g->onnx.opset = has_default ? opset : 0; /* 0: only other domains */
    im->g->onnx.n_initializers = (int64_t)gp->n_initializer;
    if (m->producer_name && *m->producer_name) {
        im->g->onnx.producer_name = fl__arena_strdup(im->g->arena, m->producer_name);
    }
    if (m->producer_version && *m->producer_version) {
        im->g->onnx.producer_version = fl__arena_strdup(im->g->arena, m->producer_version);
    }
    if (!vmap_init(&im->values, im->g->arena, (size_t)total + 16)) {
        return fl__diag_oom(d);
    }
    im->n_in = fl__arena_scratch(im->g->arena, gp->n_node + 1, sizeof(uint32_t));
    if (!im->n_in) {
        return fl__diag_oom(d);
    }
    /* Every node, initializer and input becomes a node (and one node may
     * stand for absent optional inputs): the node array and the name index
     * take their sizes once instead of doubling. */
    fl_status st = fl__graph_reserve(im->g, (size_t)total + 1, d);
    size_t unindexed = im->g->n_nodes;
    if (st == FL_OK) {
        st = import_initializers(im, gp);
    }
    if (st == FL_OK) {
        st = import_inputs(im, gp);
    }
    size_t first = im->g->n_nodes;
    im->dflt_imported = domain_imported(m, "");
    for (size_t i = 0; i < gp->n_node && st == FL_OK; i++) {
        st = import_node(im, m, i, gp->node[i]);
    }
    /* The names in the index at once (a node named as an earlier one is
     * renamed here, in the order of the file): before the absent inputs'
     * node, the first name looked up. */
    if (st == FL_OK) {
        st = fl__graph_index_nodes(im->g, unindexed, d);
    }
    for (size_t i = 0; i < gp->n_node && st == FL_OK; i++) {
        st = resolve_inputs(im, im->g->nodes[first + i], gp->node[i], i);
    }
    if (st == FL_OK && gp->n_node == 0) {
        return fl__diag_fail(d, FL_EINVAL,
                             "the graph has no operator nodes: nothing to analyse (field: "
                             "graph.node)");
    }
    im->g->onnx.outputs = fl__arena_calloc(im->g->arena, gp->n_output + 1, sizeof(char *));
    if (st == FL_OK && !im->g->onnx.outputs) {
        st = fl__diag_oom(d);
    }
    for (size_t i = 0; i < gp->n_output && st == FL_OK; i++) {
        const char *v = gp->output[i]->name;
        vslot *out = v ? vmap_find(&im->values, v) : NULL;
        if (!out) {
            st = fl__diag_fail(d, FL_EINVAL,
                               "graph output '%s' is not produced by any node (field: "
                               "graph.output)",
                               v ? v : "");
        } else {
            im->g->onnx.outputs[im->g->onnx.n_outputs++] = v; /* lives in the arena */
            out->node->flags |= FL_NODE_GRAPH_OUTPUT;
        }
    }
    return st;
}

fl_status fl__import_onnx_files(fl_graph *g, const uint8_t *buf, size_t len,
                                const fl_import_opts *o, const fl_import_files *files, fl_diag *d) {
    fl_pbwire_error e;
    Onnx__ModelProto *m = fl__onnx_wire_unpack(g->arena, buf, len, &e);
    if (!m) {
        fl__pb_unpack_fail(g, &e, len, "ONNX ModelProto", d);
        return d->status;
    }
    g->src = NULL;     /* not a GraphDef */
    g->onnx.model = m; /* written back by export/onnx_write.c */
    imp im = {.g = g, .d = d, .o = o, .values = {.a = g->arena}, .ext = {.files = files}};
    fl_status st = import_graph(&im, m);
    if (st == FL_OK) {
        st = fl__onnx_ext_check_overlap(&im.ext, d);
    }
    fl__onnx_ext_free(&im.ext);
    fl__arena_scratch_free(g->arena, im.values.entries);
    fl__arena_scratch_free(g->arena, im.values.cells);
    fl__arena_scratch_free(g->arena, im.n_in);
    return st;
}

fl_status fl__import_onnx(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                          fl_diag *d) {
    return fl__import_onnx_files(g, buf, len, o, NULL, d);
}

/* ------------------------------------------------------------------------- */
/* Sniffing                                                                   */
/* ------------------------------------------------------------------------- */

static bool rd_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= len) {
            return false;
        }
        uint8_t b = buf[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

int fl__import_sniff_onnx(const uint8_t *buf, size_t len) {
    /* A ModelProto carries its graph in field 7 and opset_import in field 8
     * (length-delimited); neither GraphDef (fields 1-4) nor SavedModel (1, 2)
     * has such a top-level field. Walk the top-level fields until one is
     * seen, or the bytes stop parsing. */
    size_t pos = 0;
    while (pos < len) {
        uint64_t key, v;
        if (!rd_varint(buf, len, &pos, &key)) {
            return 0;
        }
        uint64_t field = key >> 3, wt = key & 7;
        if ((field == 7 || field == 8) && wt == 2) {
            return 1;
        }
        if (field == 1 && wt != 0) {
            /* ModelProto's field 1 (ir_version) is a varint; a GraphDef's
             * is its nodes, length-delimited. The ONNX reader refuses such
             * bytes (the wire type does not match the field's type), and
             * the walk would otherwise read every node of a GraphDef. */
            return 0;
        }
        switch (wt) {
        case 0:
            if (!rd_varint(buf, len, &pos, &v)) {
                return 0;
            }
            break;
        case 1:
            pos += 8;
            break;
        case 2:
            if (!rd_varint(buf, len, &pos, &v) || v > len - pos) {
                return 0;
            }
            pos += (size_t)v;
            break;
        case 5:
            pos += 4;
            break;
        default:
            return 0;
        }
    }
    return 0;
}

const uint8_t *fl__onnx_const_raw(const fl_const *k, size_t *len) {
    const Onnx__TensorProto *p = k ? k->src : NULL;
    if (!p || ((const ProtobufCMessage *)p)->descriptor != &onnx__tensor_proto__descriptor ||
        k->stripped || !p->raw_data.len || !p->raw_data.data) {
        return NULL;
    }
    *len = p->raw_data.len;
    return p->raw_data.data;
}
