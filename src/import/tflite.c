/*
 * tflite.c - TensorFlow Lite flatbuffers (schema TFL3) into the IR.
 *
 * The file is read in place (src/import/tflite_fb.c checks every offset,
 * vtable and vector length before reading). Each subgraph's tensors become
 * node outputs:
 *  - subgraph 0's inputs are Placeholders, named by the signature def's
 *    input names when the file has one (else by tensor name); a -1 of
 *    shape_signature is an unknown dim, a symbol INPUT.AXIS;
 *  - a tensor with buffer data is a Const whose value is a view into the
 *    file (integers decoded when small); sparse tensors (sparsity
 *    parameters) and tensors without data that no operator produces are
 *    stripped constants (shape and dtype known, value unknown);
 *  - each operator is a node whose op is the builtin name ("CONV_2D") or the
 *    custom code, bound to the registry's "tflite::NAME" or
 *    "tflite::custom::CODE"; its builtin options are attrs named as the
 *    schema's fields (padding "SAME"/"VALID", fused_activation_function
 *    "NONE"/"RELU"/..., TensorType fields as types), custom options are the
 *    bytes of attr "custom_options"; the shapes and types the file stores for
 *    its outputs are attrs _output_shapes and _output_types (the op hooks
 *    check their inference against them); a tensor's quantization is
 *    attr "_quantized" (list of bools, one per input). Its input count
 *    (absent inputs, -1, included) must lie within its row's min_inputs and
 *    max_inputs, and a -1 may stand only for an input the row marks
 *    optional, as TFLite's kernels check them (src/ops/tflite/tflite.def);
 *    trailing -1s are then dropped, others read an absent-input node.
 * Subgraphs other than 0 (WHILE/IF bodies, CALL_ONCE initialisers) are
 * imported once each into the same graph, their node names prefixed with the
 * subgraph's name, their inputs "_subgraph_input" nodes of the stored shape.
 * Operator codes read the larger of deprecated_builtin_code and
 * builtin_code, as TFLite's own reader does. Buffers past 2 GB (offset/size
 * instead of data) are views too.
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "import/tflite_fb.h"
#include "import/tflite_loop.h"
#include "import/tflite_schema.h"
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl__import_sniff_tflite(const uint8_t *buf, size_t len) {
    return len >= 8 && memcmp(buf + 4, "TFL3", 4) == 0;
}

/* TensorType -> dtype; FL_DT_INVALID for an unknown type. */
static int tfl_dtype(int t) {
    static const int map[] = {
        FL_DT_FLOAT,  FL_DT_HALF,       FL_DT_INT32,  FL_DT_UINT8,     FL_DT_INT64,
        FL_DT_STRING, FL_DT_BOOL,       FL_DT_INT16,  FL_DT_COMPLEX64, FL_DT_INT8,
        FL_DT_DOUBLE, FL_DT_COMPLEX128, FL_DT_UINT64, FL_DT_RESOURCE,  FL_DT_VARIANT,
        FL_DT_UINT32, FL_DT_UINT16,     FL_DT_INT4,   FL_DT_BFLOAT16,
    };
    return t >= 0 && (size_t)t < sizeof map / sizeof map[0] ? map[t] : FL_DT_INVALID;
}

/* Schema slots. */
enum {
    MODEL_OPCODES = 1,
    MODEL_SUBGRAPHS = 2,
    MODEL_BUFFERS = 4,
    MODEL_SIGNATURES = 7,
    OPCODE_DEPRECATED = 0,
    OPCODE_CUSTOM = 1,
    OPCODE_VERSION = 2,
    OPCODE_BUILTIN = 3,
    SG_TENSORS = 0,
    SG_INPUTS = 1,
    SG_OUTPUTS = 2,
    SG_OPERATORS = 3,
    SG_NAME = 4,
    T_SHAPE = 0,
    T_TYPE = 1,
    T_BUFFER = 2,
    T_NAME = 3,
    T_QUANT = 4,
    T_VARIABLE = 5,
    T_SPARSITY = 6,
    T_SIGNATURE = 7,
    T_HAS_RANK = 8,
    Q_SCALE = 2,
    OP_OPCODE = 0,
    OP_INPUTS = 1,
    OP_OUTPUTS = 2,
    OP_OPT_TYPE = 3,
    OP_OPT = 4,
    OP_CUSTOM = 5,
    OP_LARGE_OFF = 9,
    OP_LARGE_SIZE = 10,
    OP_OPT2_TYPE = 11,
    OP_OPT2 = 12,
    BUF_DATA = 0,
    BUF_OFFSET = 1,
    BUF_SIZE = 2,
    SIG_INPUTS = 0,
    SIG_OUTPUTS = 1,
    SIG_SUBGRAPH = 4,
    MAP_NAME = 0,
    MAP_TENSOR = 1,
};

#define CUSTOM_CODE 32
#define MAX_RANK    64

typedef struct tensor_info {
    const char *name;
    int dtype;
    int rank; /* -1: unknown */
    int64_t dims[MAX_RANK];
    uint32_t buffer;
    bool quantized, sparse, variable;
} tensor_info;

typedef struct tfl {
    fl_graph *g;
    fl_diag *d;
    const fl_import_opts *o;
    fl_fb_reader r;
    fl_fb_vec opcodes, subgraphs, buffers, signatures;
    const char **op_names; /* per opcode: node op ("CONV_2D", custom code) */
    int *op_kinds;         /* per opcode: registry kind (FL_OP_UNKNOWN allowed) */
    uint64_t slots_left;   /* operator inputs+outputs the file can hold */
    fl_node *absent;
    /* per subgraph being imported */
    int sg;
    const char *prefix;
    fl_fb_vec tensors, ops;
    fl_node **prod;
    int *port;
    fl_tfl_subgraph *sgs; /* per subgraph: nodes, inputs, outputs (WHILE trip counts) */
    int64_t n_no_data;    /* tensors read without data or producer (stripped weights) */
    const char *no_data;  /* the first of them */
} tfl;

static fl_status file_bad(tfl *t, const char *where) {
    return fl__diag_fail(t->d, FL_EINVAL, "invalid TFLite flatbuffer: %s (while reading %s)",
                         t->r.why, where);
}

/* ------------------------------------------------------------------------- */
/* Tensors                                                                    */
/* ------------------------------------------------------------------------- */

static fl_status read_tensor(tfl *t, int32_t idx, tensor_info *ti) {
    fl_fb_table tt = fl__fb_vec_table(&t->r, t->tensors, (uint32_t)idx);
    uint32_t nl = 0;
    const char *nm = fl__fb_str(&t->r, tt, T_NAME, &nl);
    fl_fb_vec shape = fl__fb_vec_field(&t->r, tt, T_SHAPE, 4);
    fl_fb_vec sig = fl__fb_vec_field(&t->r, tt, T_SIGNATURE, 4);
    fl_fb_table q = fl__fb_table_field(&t->r, tt, T_QUANT);
    fl_fb_vec scale = fl__fb_vec_field(&t->r, q, Q_SCALE, 4);
    int type = fl__fb_i8(&t->r, tt, T_TYPE, 0);
    ti->buffer = fl__fb_u32(&t->r, tt, T_BUFFER, 0);
    ti->variable = fl__fb_u8(&t->r, tt, T_VARIABLE, 0) != 0;
    ti->sparse = fl__fb_has(&t->r, tt, T_SPARSITY);
    ti->quantized = scale.n > 0;
    bool has_rank = fl__fb_u8(&t->r, tt, T_HAS_RANK, 0) != 0;
    if (t->r.bad) {
        char where[64];
        snprintf(where, sizeof where, "subgraph %d tensor %d", t->sg, idx);
        return file_bad(t, where);
    }
    char *name = fl__arena_printf(t->g->arena, "%s%.*s", t->prefix, (int)nl, nm ? nm : "");
    if (!name) {
        return fl__diag_oom(t->d);
    }
    if (!nl) {
        name = fl__arena_printf(t->g->arena, "%stensor_%d", t->prefix, idx);
    }
    ti->name = name;
    ti->dtype = tfl_dtype(type);
    if (ti->dtype == FL_DT_INVALID) {
        return fl__diag_fail(t->d, FL_EINVAL,
                             "tensor '%s' has unknown TensorType %d (field: subgraphs[%d]."
                             "tensors[%d].type)",
                             name, type, t->sg, idx);
    }
    fl_fb_vec use = sig.n == shape.n && sig.n ? sig : shape;
    if (use.n > MAX_RANK) {
        return fl__diag_fail(t->d, FL_EINVAL, "tensor '%s' has rank %u, above %d (field: shape)",
                             name, use.n, MAX_RANK);
    }
    ti->rank = (int)use.n;
    if (!use.n && !has_rank && shape.n == 0 && !fl__fb_has(&t->r, tt, T_SHAPE)) {
        ti->rank = -1; /* no shape at all: unknown rank */
    }
    for (uint32_t k = 0; k < use.n; k++) {
        int32_t v = fl__fb_vec_i32(&t->r, use, k);
        if (v < -1) {
            return fl__diag_fail(t->d, FL_EINVAL,
                                 "tensor '%s' has dim %u of size %d (field: shape)", name, k, v);
        }
        ti->dims[k] = v;
    }
    return FL_OK;
}

/* The bytes of buffer `idx`: data vector, or offset/size past the
 * flatbuffer (files over 2 GB). */
static fl_status buffer_bytes(tfl *t, uint32_t idx, const char *tensor, const uint8_t **p,
                              uint64_t *n) {
    *p = NULL;
    *n = 0;
    if (idx == 0) {
        return FL_OK; /* the sentinel empty buffer */
    }
    if (idx >= t->buffers.n) {
        return fl__diag_fail(t->d, FL_EINVAL,
                             "tensor '%s' names buffer %u but the model has %u (field: buffer)",
                             tensor, idx, t->buffers.n);
    }
    fl_fb_table b = fl__fb_vec_table(&t->r, t->buffers, idx);
    fl_fb_vec data = fl__fb_vec_field(&t->r, b, BUF_DATA, 1);
    uint64_t off = fl__fb_u64(&t->r, b, BUF_OFFSET, 0), size = fl__fb_u64(&t->r, b, BUF_SIZE, 0);
    if (t->r.bad) {
        return file_bad(t, "a buffer");
    }
    if (data.n) {
        *p = t->r.p + data.pos;
        *n = data.n;
    } else if (off > 1) {
        if (off > t->r.len || size > t->r.len - off) {
            return fl__diag_fail(t->d, FL_EINVAL,
                                 "tensor '%s': buffer %u's bytes [%llu, %llu) lie outside the "
                                 "file of %zu bytes (field: buffers[%u].offset)",
                                 tensor, idx, (unsigned long long)off,
                                 (unsigned long long)(off + size), t->r.len, idx);
        }
        *p = t->r.p + off;
        *n = size;
    }
    return FL_OK;
}

/* A Const for tensor ti with `n` bytes of data at p (p NULL: stripped). */
static fl_status make_const(tfl *t, const tensor_info *ti, const uint8_t *p, uint64_t nbytes,
                            fl_node **out) {
    fl_graph *g = t->g;
    const char *name = fl__graph_unique_name(g, ti->name);
    fl_node *n = name ? fl__graph_add_node(g, name, "Const", t->d) : NULL;
    fl_const *k = fl__arena_zalloc(g->arena, sizeof *k);
    int64_t *dims = fl__arena_calloc(g->arena, ti->rank > 0 ? (size_t)ti->rank : 1, 8);
    if (!n || !k || !dims) {
        return n || !name ? fl__diag_oom(t->d) : t->d->status;
    }
    fl__op_bind_kind(n, FL_OP_CONST);
    int64_t cnt = 1;
    for (int i = 0; i < ti->rank; i++) {
        dims[i] = ti->dims[i] < 0 ? 1 : ti->dims[i]; /* a constant's shape is concrete */
        cnt = dims[i] && cnt > INT64_MAX / 2 / dims[i] ? INT64_MAX / 2 : cnt * dims[i];
    }
    size_t es = fl__dtype_size(ti->dtype);
    k->dtype = ti->dtype;
    k->shape.rank = ti->rank < 0 ? 0 : ti->rank;
    k->shape.dims = dims;
    k->n = cnt;
    k->content_bytes = es ? (uint64_t)cnt * es : nbytes;
    uint64_t need = ti->dtype == FL_DT_INT4 ? ((uint64_t)cnt + 1) / 2 : (uint64_t)cnt * es;
    if (p && !ti->sparse && es && nbytes < need && ti->dtype != FL_DT_STRING) {
        return fl__node_fail(t->d, FL_EINVAL, n,
                             "tensor '%s': buffer %u holds %llu bytes but shape and type need "
                             "%llu (field: buffers[%u].data)",
                             ti->name, ti->buffer, (unsigned long long)nbytes,
                             (unsigned long long)need, ti->buffer);
    }
    if (!p || ti->sparse) {
        k->stripped = true;
        n->flags |= FL_NODE_STRIPPED;
    } else if (es && ti->dtype != FL_DT_INT4 && cnt <= t->o->max_value_elems) {
        fl_value *v = fl__value_new(g->arena, ti->dtype, k->shape.rank, dims);
        if (v && v->ints) {
            fl_sym *ints = (fl_sym *)v->ints;
            bool sgn = ti->dtype != FL_DT_UINT8 && ti->dtype != FL_DT_UINT16 &&
                       ti->dtype != FL_DT_UINT32 && ti->dtype != FL_DT_UINT64 &&
                       ti->dtype != FL_DT_BOOL;
            for (int64_t i = 0; i < cnt; i++) {
                uint64_t x = 0;
                for (size_t b = 0; b < es; b++) {
                    x |= (uint64_t)p[(size_t)i * es + b] << (8 * b);
                }
                if (sgn && es < 8 && (x >> (8 * es - 1)) & 1) {
                    x |= ~(uint64_t)0 << (8 * es);
                }
                ints[i] = fl_sym_const((int64_t)x);
            }
        } else if (v) {
            v->raw = p; /* a view into the file */
        }
        k->value = v;
    }
    n->attrs = fl__arena_calloc(g->arena, 2, sizeof(fl_attr));
    if (!n->attrs || fl__node_alloc_outputs(g, n, 1) != FL_OK) {
        return fl__diag_oom(t->d);
    }
    n->attrs[0] = fl__attr_make_type(g, "dtype", ti->dtype);
    n->attrs[1].name = "value";
    n->attrs[1].kind = FL_ATTR_TENSOR;
    n->attrs[1].v.tensor = k;
    n->n_attrs = 2;
    *out = n;
    return FL_OK;
}

/* The node and port producing tensor idx, creating a Const for a tensor
 * with data (or without a producer). */
static fl_status producer(tfl *t, int32_t idx, fl_input *in) {
    if (t->prod[idx]) {
        in->node = t->prod[idx];
        in->port = t->port[idx];
        return FL_OK;
    }
    tensor_info ti;
    fl_status st = read_tensor(t, idx, &ti);
    const uint8_t *p = NULL;
    uint64_t nb = 0;
    if (st == FL_OK) {
        st = buffer_bytes(t, ti.buffer, ti.name, &p, &nb);
    }
    if (st == FL_OK && !p && !ti.variable && !t->n_no_data++) {
        t->no_data = ti.name;
    }
    fl_node *n = NULL;
    if (st == FL_OK) {
        st = make_const(t, &ti, p, nb, &n);
    }
    if (st != FL_OK) {
        return st;
    }
    t->prod[idx] = n;
    t->port[idx] = 0;
    in->node = n;
    in->port = 0;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Options                                                                    */
/* ------------------------------------------------------------------------- */

static const char *activation_name(int v) {
    static const char *const names[] = {"NONE",  "RELU", "RELU_N1_TO_1",
                                        "RELU6", "TANH", "SIGN_BIT"};
    return v >= 0 && v < 6 ? names[v] : "UNKNOWN";
}

/* One option field into attr *a; false when the field is not decoded. */
static bool option_attr(tfl *t, fl_fb_table ot, int slot, const char *name, char type, double dflt,
                        fl_attr *a) {
    fl_graph *g = t->g;
    fl_fb_reader *r = &t->r;
    switch (type) {
    case 'P':
        *a = fl__attr_make_str(g, name,
                               fl__fb_i8(r, ot, slot, (int8_t)dflt) == 1 ? "VALID" : "SAME");
        return true;
    case 'A':
        *a = fl__attr_make_str(g, name, activation_name(fl__fb_i8(r, ot, slot, (int8_t)dflt)));
        return true;
    case 'T':
        *a = fl__attr_make_type(g, name, tfl_dtype(fl__fb_i8(r, ot, slot, (int8_t)dflt)));
        return true;
    case 'b':
        *a = fl__attr_make_bool(g, name, fl__fb_u8(r, ot, slot, (uint8_t)dflt) != 0);
        return true;
    case 'e':
        *a = fl__attr_make_int(g, name, fl__fb_i8(r, ot, slot, (int8_t)dflt));
        return true;
    case 'i':
        *a = fl__attr_make_int(g, name, fl__fb_i32(r, ot, slot, (int32_t)dflt));
        return true;
    case 'u':
        *a = fl__attr_make_int(g, name, fl__fb_u32(r, ot, slot, (uint32_t)dflt));
        return true;
    case 'l':
        *a = fl__attr_make_int(g, name, fl__fb_i64(r, ot, slot, (int64_t)dflt));
        return true;
    case 'f':
        *a = fl__attr_make_float(g, name, fl__fb_f32(r, ot, slot, (float)dflt));
        return true;
    case 's': {
        uint32_t l = 0;
        const char *s = fl__fb_str(r, ot, slot, &l);
        char *copy = fl__arena_strndup(g->arena, s ? s : "", s ? l : 0);
        *a = fl__attr_make_str(g, name, copy ? copy : "");
        return true;
    }
    case 'I':
    case 'L':
    case 'B': {
        fl_fb_vec v = fl__fb_vec_field(r, ot, slot, type == 'I' ? 4 : type == 'L' ? 8 : 1);
        int64_t *vals = fl__arena_calloc(g->arena, v.n ? v.n : 1, 8);
        for (uint32_t i = 0; vals && i < v.n && !r->bad; i++) {
            vals[i] = type == 'I'   ? fl__fb_vec_i32(r, v, i)
                      : type == 'L' ? fl__fb_vec_i64(r, v, i)
                                    : fl__fb_vec_u8(r, v, i);
        }
        *a = fl__attr_make_ints(g, name, v.n, vals ? vals : (int64_t[]){0});
        return true;
    }
    case 'F': {
        fl_fb_vec v = fl__fb_vec_field(r, ot, slot, 4);
        float *vals = fl__arena_calloc(g->arena, v.n ? v.n : 1, 4);
        if (!vals) {
            return false;
        }
        for (uint32_t i = 0; i < v.n && !r->bad; i++) {
            vals[i] = fl__fb_vec_f32(r, v, i);
        }
        a->name = name;
        a->kind = FL_ATTR_LIST;
        a->list_kind = FL_ATTR_F;
        a->n = v.n;
        a->v.list.f = vals;
        return true;
    }
    default:
        return false;
    }
}

/* Appends the decoded fields of an options table to attrs[*na]. */
static fl_status options_attrs(tfl *t, fl_fb_table op, int which, fl_attr *attrs, int *na,
                               int cap) {
    int type = fl__fb_u8(&t->r, op, which == 1 ? OP_OPT_TYPE : OP_OPT2_TYPE, 0);
    if (!type) {
        return FL_OK;
    }
    const char *tname = NULL;
    const char *spec = fl__tfl_options_fields(which, type, &tname);
    if (!spec) {
        fl__diag_warn(t->d, "builtin options of unknown type %d are not read", type);
        return FL_OK;
    }
    fl_fb_table ot = fl__fb_table_field(&t->r, op, which == 1 ? OP_OPT : OP_OPT2);
    int slot = 0;
    for (const char *s = spec; *s && *na < cap; slot++) {
        while (*s == ' ') {
            s++;
        }
        const char *colon = strchr(s, ':');
        if (!colon) {
            break;
        }
        char *name = fl__arena_strndup(t->g->arena, s, (size_t)(colon - s));
        char type_c = colon[1];
        double dflt = colon[2] == '=' ? strtod(colon + 3, NULL) : 0;
        s = colon + 2;
        while (*s && *s != ' ') {
            s++;
        }
        if (!name) {
            return fl__diag_oom(t->d);
        }
        if (option_attr(t, ot, slot, name, type_c, dflt, &attrs[*na])) {
            (*na)++;
        }
    }
    return t->r.bad ? file_bad(t, tname) : FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Operators                                                                  */
/* ------------------------------------------------------------------------- */

/* Resolves every operator code to an op name and registry kind. */
static fl_status read_opcodes(tfl *t) {
    uint32_t n = t->opcodes.n;
    t->op_names = fl__arena_calloc(t->g->arena, n ? n : 1, sizeof(char *));
    t->op_kinds = fl__arena_calloc(t->g->arena, n ? n : 1, sizeof(int));
    if (!t->op_names || !t->op_kinds) {
        return fl__diag_oom(t->d);
    }
    for (uint32_t i = 0; i < n; i++) {
        fl_fb_table oc = fl__fb_vec_table(&t->r, t->opcodes, i);
        int code = fl__fb_i8(&t->r, oc, OPCODE_DEPRECATED, 0);
        int32_t wide = fl__fb_i32(&t->r, oc, OPCODE_BUILTIN, 0);
        code = wide > code ? wide : code;
        uint32_t cl = 0;
        const char *custom = fl__fb_str(&t->r, oc, OPCODE_CUSTOM, &cl);
        if (t->r.bad) {
            return file_bad(t, "operator_codes");
        }
        const char *name = fl__tfl_builtin_name(code);
        char key[300];
        if (code == CUSTOM_CODE) {
            if (!custom || !cl) {
                return fl__diag_fail(t->d, FL_EINVAL,
                                     "operator code %u is CUSTOM without a custom_code (field: "
                                     "operator_codes[%u].custom_code)",
                                     i, i);
            }
            name = fl__arena_strndup(t->g->arena, custom, cl);
            snprintf(key, sizeof key, "tflite::custom::%.*s", (int)(cl > 200 ? 200 : cl), custom);
        } else if (!name) {
            name = fl__arena_printf(t->g->arena, "BUILTIN_%d", code);
            snprintf(key, sizeof key, "tflite::BUILTIN_%d", code);
            fl__diag_warn(t->d,
                          "operator code %u has builtin code %d, unknown to this schema: its "
                          "operators are counted as unknown",
                          i, code);
        } else {
            snprintf(key, sizeof key, "tflite::%s", name);
        }
        if (!name) {
            return fl__diag_oom(t->d);
        }
        t->op_names[i] = name;
        t->op_kinds[i] = fl__op_lookup(key);
    }
    return FL_OK;
}

/* The stored shapes and types of an operator's outputs, and which inputs are
 * quantized, as attrs. */
static fl_status stored_attrs(tfl *t, fl_fb_vec ins, fl_fb_vec outs, fl_attr *attrs, int *na) {
    fl_graph *g = t->g;
    fl_shape_lit *shapes = fl__arena_calloc(g->arena, outs.n ? outs.n : 1, sizeof *shapes);
    int *types = fl__arena_calloc(g->arena, outs.n ? outs.n : 1, sizeof(int));
    int64_t *quant = fl__arena_calloc(g->arena, ins.n ? ins.n : 1, sizeof(int64_t));
    if (!shapes || !types || !quant) {
        return fl__diag_oom(t->d);
    }
    for (uint32_t k = 0; k < outs.n; k++) {
        tensor_info ti;
        fl_status st = read_tensor(t, fl__fb_vec_i32(&t->r, outs, k), &ti);
        if (st != FL_OK) {
            return st;
        }
        int64_t *dims = fl__arena_calloc(g->arena, ti.rank > 0 ? (size_t)ti.rank : 1, 8);
        if (!dims) {
            return fl__diag_oom(t->d);
        }
        memcpy(dims, ti.dims, (size_t)(ti.rank > 0 ? ti.rank : 0) * 8);
        shapes[k].rank = ti.rank;
        shapes[k].dims = dims;
        types[k] = ti.dtype;
    }
    for (uint32_t k = 0; k < ins.n; k++) {
        int32_t idx = fl__fb_vec_i32(&t->r, ins, k);
        tensor_info ti;
        if (idx >= 0) {
            fl_status st = read_tensor(t, idx, &ti);
            if (st != FL_OK) {
                return st;
            }
            quant[k] = ti.quantized;
        }
    }
    fl_attr *a = &attrs[(*na)++];
    a->name = "_output_shapes";
    a->kind = FL_ATTR_LIST;
    a->list_kind = FL_ATTR_SHAPE;
    a->n = outs.n;
    a->v.list.shape = shapes;
    a = &attrs[(*na)++];
    a->name = "_output_types";
    a->kind = FL_ATTR_LIST;
    a->list_kind = FL_ATTR_TYPE;
    a->n = outs.n;
    a->v.list.type = types;
    attrs[(*na)++] = fl__attr_make_ints(g, "_quantized", ins.n, quant);
    return FL_OK;
}

/* Checks an operator's tensor indices and charges them to the budget of
 * slots the file can hold (vectors shared by many operators would make the
 * graph quadratic in the file's size). */
static fl_status check_indices(tfl *t, uint32_t oi, fl_fb_vec ins, fl_fb_vec outs) {
    uint64_t cnt = (uint64_t)ins.n + outs.n;
    if (cnt > t->slots_left) {
        return fl__diag_fail(t->d, FL_ELIMIT,
                             "operators reference more tensor slots than the file holds "
                             "(shared vectors; field: subgraphs[%d].operators[%u])",
                             t->sg, oi);
    }
    t->slots_left -= cnt;
    for (uint32_t k = 0; k < ins.n + outs.n; k++) {
        bool is_in = k < ins.n;
        int32_t idx =
            is_in ? fl__fb_vec_i32(&t->r, ins, k) : fl__fb_vec_i32(&t->r, outs, k - ins.n);
        if (idx < (is_in ? -1 : 0) || (idx >= 0 && (uint32_t)idx >= t->tensors.n)) {
            return fl__diag_fail(t->d, FL_EINVAL,
                                 "operator %u of subgraph %d names tensor %d of %u (field: "
                                 "subgraphs[%d].operators[%u].%s)",
                                 oi, t->sg, idx, t->tensors.n, t->sg, oi,
                                 is_in ? "inputs" : "outputs");
        }
    }
    return FL_OK;
}

/* The node of operator oi: op, attrs and outputs (inputs later). */
static fl_status add_operator(tfl *t, uint32_t oi, fl_node **out) {
    fl_fb_reader *r = &t->r;
    fl_fb_table op = fl__fb_vec_table(r, t->ops, oi);
    uint32_t code = fl__fb_u32(r, op, OP_OPCODE, 0);
    fl_fb_vec ins = fl__fb_vec_field(r, op, OP_INPUTS, 4),
              outs = fl__fb_vec_field(r, op, OP_OUTPUTS, 4);
    fl_fb_vec custom = fl__fb_vec_field(r, op, OP_CUSTOM, 1);
    uint64_t loff = fl__fb_u64(r, op, OP_LARGE_OFF, 0), lsize = fl__fb_u64(r, op, OP_LARGE_SIZE, 0);
    if (r->bad) {
        char where[64];
        snprintf(where, sizeof where, "subgraph %d operator %u", t->sg, oi);
        return file_bad(t, where);
    }
    if (code >= t->opcodes.n) {
        return fl__diag_fail(t->d, FL_EINVAL,
                             "operator %u of subgraph %d has opcode_index %u of %u (field: "
                             "subgraphs[%d].operators[%u].opcode_index)",
                             oi, t->sg, code, t->opcodes.n, t->sg, oi);
    }
    fl_status st = check_indices(t, oi, ins, outs);
    if (st != FL_OK) {
        return st;
    }
    /* Named after its first output tensor. */
    tensor_info ti = {.name = ""};
    if (outs.n && (st = read_tensor(t, fl__fb_vec_i32(r, outs, 0), &ti)) != FL_OK) {
        return st;
    }
    char base[320];
    snprintf(base, sizeof base, "%s", outs.n ? ti.name : t->op_names[code]);
    const char *name = fl__graph_unique_name(t->g, base);
    fl_node *n = name ? fl__graph_add_node(t->g, name, t->op_names[code], t->d) : NULL;
    if (!n) {
        return name ? t->d->status : fl__diag_oom(t->d);
    }
    fl__op_bind_kind(n, t->op_kinds[code]);
    int cap = 160, na = 0;
    fl_attr *attrs = fl__arena_calloc(t->g->arena, (size_t)cap, sizeof(fl_attr));
    if (!attrs) {
        return fl__diag_oom(t->d);
    }
    if ((st = options_attrs(t, op, 1, attrs, &na, cap - 8)) != FL_OK ||
        (st = options_attrs(t, op, 2, attrs, &na, cap - 8)) != FL_OK ||
        (st = stored_attrs(t, ins, outs, attrs, &na)) != FL_OK) {
        return st;
    }
    const uint8_t *cp = custom.n ? r->p + custom.pos : NULL;
    uint64_t cn = custom.n;
    if (!cp && loff > 1) {
        if (loff > r->len || lsize > r->len - loff) {
            return fl__node_fail(t->d, FL_EINVAL, n,
                                 "large custom options [%llu, %llu) lie outside the file "
                                 "(field: large_custom_options_offset)",
                                 (unsigned long long)loff, (unsigned long long)(loff + lsize));
        }
        cp = r->p + loff;
        cn = lsize;
    }
    if (cp) {
        fl_attr *a = &attrs[na++];
        a->name = "custom_options";
        a->kind = FL_ATTR_S;
        a->v.s.p = fl__arena_strndup(t->g->arena, (const char *)cp, (size_t)cn);
        a->v.s.len = (size_t)cn;
        if (!a->v.s.p) {
            return fl__diag_oom(t->d);
        }
    }
    n->attrs = attrs;
    n->n_attrs = na;
    if (n->desc && n->desc->n_outputs >= 0 && outs.n < (uint32_t)n->desc->n_outputs) {
        return fl__node_fail(t->d, FL_EINVAL, n,
                             "operator has %u outputs, the op defines %d (field: "
                             "subgraphs[%d].operators[%u].outputs)",
                             outs.n, n->desc->n_outputs, t->sg, oi);
    }
    /* The input count as TFLite's kernel checks it (absent inputs, -1,
     * included), and each -1 at a position the kernel requires. */
    char field[64];
    snprintf(field, sizeof field, "subgraphs[%d].operators[%u].inputs", t->sg, oi);
    if ((st = fl__import_check_arity(t->d, n, (int)ins.n, "inputs", field)) != FL_OK) {
        return st;
    }
    for (uint32_t k = 0; k < ins.n; k++) {
        if (fl__fb_vec_i32(r, ins, k) < 0 && !fl__op_input_may_be_minus1(n->desc, k)) {
            return fl__node_fail(t->d, FL_EINVAL, n,
                                 "input %u is required, but is -1 (no tensor) (field: %s[%u])", k,
                                 field, k);
        }
    }
    if (fl__node_alloc_outputs(t->g, n, (int)outs.n) != FL_OK) {
        return fl__diag_oom(t->d);
    }
    for (uint32_t k = 0; k < outs.n; k++) {
        int32_t idx = fl__fb_vec_i32(r, outs, k);
        if (t->prod[idx]) {
            return fl__node_fail(t->d, FL_EINVAL, n,
                                 "output %u is tensor %d, which '%s' already produces (field: "
                                 "subgraphs[%d].operators[%u].outputs)",
                                 k, idx, t->prod[idx]->name, t->sg, oi);
        }
        t->prod[idx] = n;
        t->port[idx] = (int)k;
    }
    *out = n;
    return FL_OK;
}

static fl_status absent_input(tfl *t, fl_input *in) {
    if (!t->absent) {
        const char *name = fl__graph_unique_name(t->g, "tflite::absent");
        fl_node *n = name ? fl__graph_add_node(t->g, name, "_absent", t->d) : NULL;
        if (!n) {
            return name ? t->d->status : fl__diag_oom(t->d);
        }
        fl__op_bind_kind(n, FL_OP_ONNX_ABSENT);
        if (fl__node_alloc_outputs(t->g, n, 1) != FL_OK) {
            return fl__diag_oom(t->d);
        }
        t->absent = n;
    }
    in->node = t->absent;
    in->port = 0;
    return FL_OK;
}

/* Resolves the inputs of operator oi's node n. */
static fl_status link_inputs(tfl *t, uint32_t oi, fl_node *n) {
    fl_fb_table op = fl__fb_vec_table(&t->r, t->ops, oi);
    fl_fb_vec ins = fl__fb_vec_field(&t->r, op, OP_INPUTS, 4);
    uint32_t cnt = ins.n;
    while (cnt > 0 && fl__fb_vec_i32(&t->r, ins, cnt - 1) < 0) {
        cnt--; /* trailing absent optional inputs */
    }
    n->inputs = fl__arena_calloc(t->g->arena, cnt ? cnt : 1, sizeof(fl_input));
    n->ctrl = fl__arena_calloc(t->g->arena, 1, sizeof(fl_node *));
    if (!n->inputs || !n->ctrl) {
        return fl__diag_oom(t->d);
    }
    for (uint32_t k = 0; k < cnt; k++) {
        int32_t idx = fl__fb_vec_i32(&t->r, ins, k);
        fl_status st = idx < 0 ? absent_input(t, &n->inputs[k]) : producer(t, idx, &n->inputs[k]);
        if (st != FL_OK) {
            return st;
        }
        n->n_inputs++;
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Subgraphs                                                                  */
/* ------------------------------------------------------------------------- */

/* The signature def's name for input tensor idx of subgraph sg, or NULL. */
static const char *signature_name(tfl *t, int sg, int32_t idx, int slot) {
    for (uint32_t i = 0; i < t->signatures.n; i++) {
        fl_fb_table s = fl__fb_vec_table(&t->r, t->signatures, i);
        if ((int)fl__fb_u32(&t->r, s, SIG_SUBGRAPH, 0) != sg) {
            continue;
        }
        fl_fb_vec maps = fl__fb_vec_field(&t->r, s, slot, 4);
        for (uint32_t k = 0; k < maps.n && !t->r.bad; k++) {
            fl_fb_table m = fl__fb_vec_table(&t->r, maps, k);
            uint32_t l = 0;
            const char *nm = fl__fb_str(&t->r, m, MAP_NAME, &l);
            if ((int32_t)fl__fb_u32(&t->r, m, MAP_TENSOR, 0) == idx && nm && l) {
                return fl__arena_strndup(t->g->arena, nm, l);
            }
        }
        return NULL; /* the first signature of the subgraph */
    }
    return NULL;
}

/* An input tensor of the subgraph: a Placeholder (subgraph 0) or a
 * _subgraph_input node with the stored shape. */
static fl_status add_input(tfl *t, int32_t idx) {
    tensor_info ti;
    fl_status st = read_tensor(t, idx, &ti);
    if (st != FL_OK) {
        return st;
    }
    const char *sig = t->sg == 0 ? signature_name(t, 0, idx, SIG_INPUTS) : NULL;
    const char *name =
        fl__graph_unique_name(t->g, sig && !fl__graph_find(t->g, sig) ? sig : ti.name);
    fl_node *n =
        name ? fl__graph_add_node(t->g, name, t->sg ? "_subgraph_input" : "Placeholder", t->d)
             : NULL;
    int64_t *dims = fl__arena_calloc(t->g->arena, ti.rank > 0 ? (size_t)ti.rank : 1, 8);
    n = n && dims ? n : NULL;
    if (!n) {
        return t->d->status != FL_OK ? t->d->status : fl__diag_oom(t->d);
    }
    fl__op_bind_kind(n, t->sg ? fl__op_lookup("tflite::_subgraph_input") : FL_OP_PLACEHOLDER);
    memcpy(dims, ti.dims, (size_t)(ti.rank > 0 ? ti.rank : 0) * 8);
    n->attrs = fl__arena_calloc(t->g->arena, 2, sizeof(fl_attr));
    if (!n->attrs || fl__node_alloc_outputs(t->g, n, 1) != FL_OK) {
        return fl__diag_oom(t->d);
    }
    n->attrs[0] = fl__attr_make_type(t->g, "dtype", ti.dtype);
    n->n_attrs = 1;
    if (ti.rank >= 0) {
        n->attrs[1].name = "shape";
        n->attrs[1].kind = FL_ATTR_SHAPE;
        n->attrs[1].v.shape.rank = ti.rank;
        n->attrs[1].v.shape.dims = dims;
        n->n_attrs = 2;
    }
    if (t->prod[idx]) {
        return fl__node_fail(t->d, FL_EINVAL, n,
                             "tensor %d is listed twice among the inputs (field: subgraphs[%d]."
                             "inputs)",
                             idx, t->sg);
    }
    t->prod[idx] = n;
    t->port[idx] = 0;
    return FL_OK;
}

/* What fl__tfl_loops needs of the subgraph just imported: its nodes (from
 * `first` on), its input nodes and its outputs' producers. */
static fl_status record_subgraph(tfl *t, fl_fb_table s, fl_fb_vec inputs, size_t first) {
    fl_fb_vec outputs = fl__fb_vec_field(&t->r, s, SG_OUTPUTS, 4);
    if (t->r.bad) {
        return file_bad(t, "a subgraph's outputs");
    }
    fl_tfl_subgraph *r = &t->sgs[t->sg];
    size_t pl = strlen(t->prefix);
    r->name = pl ? fl__arena_strndup(t->g->arena, t->prefix, pl - 1) : "main";
    r->first = first;
    r->end = t->g->n_nodes;
    r->n_in = (int)inputs.n;
    r->n_out = (int)outputs.n;
    r->in = fl__arena_calloc(t->g->arena, inputs.n ? inputs.n : 1, sizeof(fl_node *));
    r->out = fl__arena_calloc(t->g->arena, outputs.n ? outputs.n : 1, sizeof(fl_input));
    if (!r->in || !r->out || !r->name) {
        return fl__diag_oom(t->d);
    }
    for (uint32_t i = 0; i < inputs.n; i++) {
        r->in[i] = t->prod[fl__fb_vec_i32(&t->r, inputs, i)]; /* checked on import */
    }
    for (uint32_t i = 0; i < outputs.n; i++) {
        int32_t idx = fl__fb_vec_i32(&t->r, outputs, i);
        if (idx >= 0 && (uint32_t)idx < t->tensors.n && t->prod[idx]) {
            r->out[i].node = t->prod[idx];
            r->out[i].port = t->port[idx];
        }
    }
    return FL_OK;
}

static fl_status import_subgraph(tfl *t, int sg) {
    fl_fb_reader *r = &t->r;
    fl_fb_table s = fl__fb_vec_table(r, t->subgraphs, (uint32_t)sg);
    t->sg = sg;
    t->tensors = fl__fb_vec_field(r, s, SG_TENSORS, 4);
    t->ops = fl__fb_vec_field(r, s, SG_OPERATORS, 4);
    fl_fb_vec inputs = fl__fb_vec_field(r, s, SG_INPUTS, 4);
    uint32_t nl = 0;
    const char *nm = fl__fb_str(r, s, SG_NAME, &nl);
    if (r->bad) {
        return file_bad(t, "a subgraph");
    }
    t->prefix = sg == 0 ? ""
                : nl    ? fl__arena_printf(t->g->arena, "%.*s/", (int)nl, nm)
                        : fl__arena_printf(t->g->arena, "subgraph_%d/", sg);
    if ((int64_t)(t->g->n_nodes + t->ops.n) > t->o->max_nodes) {
        return fl__diag_fail(t->d, FL_ELIMIT,
                             "model has more than %lld operators, the node limit (field: "
                             "subgraphs[%d].operators)",
                             (long long)t->o->max_nodes, sg);
    }
    size_t first = t->g->n_nodes;
    fl_arena *a = t->g->arena;
    t->prod = fl__arena_scratch(a, t->tensors.n, sizeof(fl_node *));
    t->port = fl__arena_scratch(a, t->tensors.n, sizeof(int));
    fl_node **nodes = fl__arena_scratch(a, t->ops.n, sizeof(fl_node *));
    fl_status st = t->prod && t->port && nodes && t->prefix ? FL_OK : fl__diag_oom(t->d);
    for (uint32_t i = 0; i < inputs.n && st == FL_OK; i++) {
        int32_t idx = fl__fb_vec_i32(r, inputs, i);
        if (idx < 0 || (uint32_t)idx >= t->tensors.n) {
            st = fl__diag_fail(t->d, FL_EINVAL,
                               "subgraph %d input %u names tensor %d of %u (field: subgraphs[%d]."
                               "inputs)",
                               sg, i, idx, t->tensors.n, sg);
        } else {
            st = add_input(t, idx);
        }
    }
    for (uint32_t i = 0; i < t->ops.n && st == FL_OK; i++) {
        st = fl_diag_poll(t->d) != FL_OK ? t->d->status : add_operator(t, i, &nodes[i]);
    }
    for (uint32_t i = 0; i < t->ops.n && st == FL_OK; i++) {
        st = link_inputs(t, i, nodes[i]);
    }
    if (st == FL_OK) {
        st = record_subgraph(t, s, inputs, first);
    }
    fl__arena_scratch_free(a, t->prod);
    fl__arena_scratch_free(a, t->port);
    fl__arena_scratch_free(a, nodes);
    t->prod = NULL;
    t->port = NULL;
    return st;
}

/* States the convention for DEQUANTIZE of constant weights (float16 or
 * int8 weights behind a DEQUANTIZE, the converter's usual output). */
static void note_dequantize(tfl *t) {
    int64_t ops = 0, elems = 0;
    for (size_t i = 0; i < t->g->n_nodes; i++) {
        const fl_node *n = t->g->nodes[i];
        if (n->kind == (int)fl__op_lookup("tflite::DEQUANTIZE") && n->n_inputs > 0 &&
            n->inputs[0].node->kind == FL_OP_CONST) {
            const fl_attr *v = fl__node_attr(n->inputs[0].node, "value");
            ops++;
            elems += v && v->kind == FL_ATTR_TENSOR && v->v.tensor ? v->v.tensor->n : 0;
        }
    }
    if (ops) {
        fl__diag_warn(t->d,
                      "%lld DEQUANTIZE ops widen %lld constant weight elements: counted as a "
                      "per-load cost (once, when the interpreter prepares the model), not "
                      "per inference: 0 FLOPs and 0 bytes here",
                      (long long)ops, (long long)elems);
    }
}

fl_status fl__import_tflite(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                            fl_diag *d) {
    tfl t = {.g = g, .d = d, .o = o, .r = {.p = buf, .len = len}};
    if (!fl__import_sniff_tflite(buf, len)) {
        return fl__diag_fail(d, FL_EINVAL,
                             "not a TFLite model: the file identifier at bytes 4-7 is not "
                             "'TFL3'");
    }
    fl_fb_table model = fl__fb_root(&t.r);
    t.opcodes = fl__fb_vec_field(&t.r, model, MODEL_OPCODES, 4);
    t.subgraphs = fl__fb_vec_field(&t.r, model, MODEL_SUBGRAPHS, 4);
    t.buffers = fl__fb_vec_field(&t.r, model, MODEL_BUFFERS, 4);
    t.signatures = fl__fb_vec_field(&t.r, model, MODEL_SIGNATURES, 4);
    if (t.r.bad) {
        return file_bad(&t, "the model table");
    }
    if (!t.subgraphs.n) {
        return fl__diag_fail(d, FL_EINVAL, "TFLite model has no subgraph (field: subgraphs)");
    }
    t.slots_left = len / 4 + 1024;
    t.sgs = fl__arena_calloc(g->arena, t.subgraphs.n, sizeof(fl_tfl_subgraph));
    fl_status st = t.sgs ? read_opcodes(&t) : fl__diag_oom(d);
    for (uint32_t sg = 0; sg < t.subgraphs.n && st == FL_OK; sg++) {
        st = import_subgraph(&t, (int)sg);
    }
    if (st == FL_OK) {
        note_dequantize(&t);
    }
    if (st == FL_OK && t.n_no_data) {
        fl__diag_warn(d,
                      "%lld tensors read by operators have no data and no producer (the first: "
                      "'%s'; a weight-stripped model?): their values are unknown, their shapes "
                      "and types are the file's",
                      (long long)t.n_no_data, t.no_data);
    }
    if (st == FL_OK && t.subgraphs.n > 1) {
        fl__diag_warn(d,
                      "the model has %u subgraphs: subgraphs 1..%u (control-flow bodies, "
                      "initialisers) are analysed beside subgraph 0, a WHILE's body and cond "
                      "as many times as it runs them when its trip count is known or follows "
                      "from its limit's value, else once",
                      t.subgraphs.n, t.subgraphs.n - 1);
        st = fl__tfl_loops(g, d, t.sgs, (int)t.subgraphs.n);
    }
    return st;
}
