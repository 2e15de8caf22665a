/*
 * graphdef.c - TensorFlow GraphDef and SavedModel importer: the reader of the
 * decoded message tree.
 *
 * The protobuf is unpacked by pbwire into the analysis arena, then turned
 * into IR in three sweeps: (1) nodes with their attrs, decoded constants and
 * the function library; (2) output counts; (3) inputs, resolved and
 * validated. The unpacked message stays alive with the arena so passes can
 * write unchanged parts back. A GraphDef file is read straight from its bytes
 * by graphdef_wire.c when it can; this reader takes SavedModels, TF.js
 * models, graphs with a function library and whatever that reader leaves
 * (it lists them), and is its reference.
 */
#include "import/graphdef_conv.h"
#include "import/import.h"
#include "import/pbutil.h"
#include "ops/ops.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Shapes and tensors                                                         */
/* ------------------------------------------------------------------------- */

typedef fl_gd_conv conv;

static fl_status fail(conv *cv, const char *fmt, const char *detail) {
    return fl__node_fail(cv->d, FL_EINVAL, cv->node, "attr '%.200s': %s", cv->key,
                         detail ? detail : fmt);
}

fl_status fl__gd_shape_lit(conv *cv, const Tensorflow__TensorShapeProto *p, bool allow_unknown,
                           fl_shape_lit *out) {
    if (!p) {
        out->rank = 0; /* absent shape = scalar */
        out->dims = NULL;
        return FL_OK;
    }
    if (p->unknown_rank) {
        if (!allow_unknown) {
            return fail(cv, "", "tensor shape must have a known rank");
        }
        out->rank = -1;
        out->dims = NULL;
        return FL_OK;
    }
    if (p->n_dim > 254) {
        return fail(cv, "", "shape has more than 254 dimensions");
    }
    int64_t *dims = fl__arena_calloc(cv->g->arena, p->n_dim ? p->n_dim : 1, sizeof(int64_t));
    if (!dims) {
        return fl__diag_oom(cv->d);
    }
    for (size_t i = 0; i < p->n_dim; i++) {
        int64_t s = p->dim[i]->size;
        if (s < -1 || (s == -1 && !allow_unknown)) {
            char buf[96];
            snprintf(buf, sizeof buf, "shape dim %zu has invalid size %lld", i, (long long)s);
            return fl__node_fail(cv->d, FL_EINVAL, cv->node, "attr '%.200s': %s", cv->key, buf);
        }
        dims[i] = s;
    }
    out->rank = (int)p->n_dim;
    out->dims = dims;
    return FL_OK;
}

static bool is_unsigned(fl_dtype dt) {
    switch (dt) {
    case FL_DT_UINT8:
    case FL_DT_UINT16:
    case FL_DT_UINT32:
    case FL_DT_UINT64:
    case FL_DT_QUINT8:
    case FL_DT_QUINT16:
    case FL_DT_UINT4:
    case FL_DT_UINT2:
    case FL_DT_BOOL:
        return true;
    default:
        return false;
    }
}

/* The bytes of a float/complex tensor's n elements when the file stores them
 * as the value holds them (little-endian, one after the other):
 * tensor_content, or a float_val/double_val/scomplex_val/dcomplex_val run
 * with every element written out. NULL when they need decoding. */
static const void *typed_in_place(const Tensorflow__TensorProto *p, fl_dtype dt, int64_t n) {
    if (fl__dtype_is_integer(dt) || dt == FL_DT_BOOL || n <= 0) {
        return NULL;
    }
    if (p->tensor_content.len) {
        return p->tensor_content.data;
    }
    size_t k = (size_t)n;
    switch (dt) {
    case FL_DT_FLOAT:
        return p->n_float_val == k ? p->float_val : NULL;
    case FL_DT_DOUBLE:
        return p->n_double_val == k ? p->double_val : NULL;
    case FL_DT_COMPLEX64:
        return p->n_scomplex_val == 2 * k ? p->scomplex_val : NULL;
    case FL_DT_COMPLEX128:
        return p->n_dcomplex_val == 2 * k ? p->dcomplex_val : NULL;
    default:
        return NULL;
    }
}

/* Number of typed *_val entries of p for dtype dt, and a reader for entry i. */
static size_t typed_count(const Tensorflow__TensorProto *p, fl_dtype dt) {
    switch (dt) {
    case FL_DT_FLOAT:
        return p->n_float_val;
    case FL_DT_DOUBLE:
        return p->n_double_val;
    case FL_DT_INT64:
        return p->n_int64_val;
    case FL_DT_BOOL:
        return p->n_bool_val;
    case FL_DT_HALF:
    case FL_DT_BFLOAT16:
        return p->n_half_val;
    case FL_DT_UINT32:
        return p->n_uint32_val;
    case FL_DT_UINT64:
        return p->n_uint64_val;
    case FL_DT_COMPLEX64:
        return p->n_scomplex_val / 2;
    case FL_DT_COMPLEX128:
        return p->n_dcomplex_val / 2;
    case FL_DT_STRING:
        return p->n_string_val;
    default:
        if (fl__dtype_is_integer(dt)) {
            return p->n_int_val;
        }
        return 0;
    }
}

/* Decodes the elements of a tensor whose bytes need it (integers, float16,
 * a typed run shorter than the shape) into a value of its own. */
static fl_status decode_value(conv *cv, const Tensorflow__TensorProto *p, fl_const *c,
                              size_t n_typed) {
    fl_arena *a = cv->g->arena;
    fl_dtype dt = c->dtype;
    int64_t n = c->n;
    size_t es = fl__dtype_size(dt);
    fl_value *v = fl__value_new(a, dt, c->shape.rank, c->shape.dims);
    if (!v) {
        if (a->failed) {
            return fl__diag_oom(cv->d);
        }
        return FL_OK;
    }
    const uint8_t *raw = p->tensor_content.data;
    bool sgn = !is_unsigned(dt);
    fl_sym *ints = (fl_sym *)v->ints;
    uint8_t *bytes = (uint8_t *)v->raw;
    for (int64_t i = 0; i < n; i++) {
        /* Typed fields shorter than the shape repeat their last value; no
         * values at all means zeros. */
        size_t j = n_typed ? ((size_t)i < n_typed ? (size_t)i : n_typed - 1) : 0;
        if (raw) {
            if (ints) {
                ints[i] = fl_sym_const(fl__pb_read_le(raw + (size_t)i * es, es, sgn));
            } else {
                memcpy(bytes + (size_t)i * es, raw + (size_t)i * es, es);
            }
            continue;
        }
        if (!n_typed) {
            continue; /* zero-filled */
        }
        switch (dt) {
        case FL_DT_FLOAT:
            memcpy(bytes + 4 * i, &p->float_val[j], 4);
            break;
        case FL_DT_DOUBLE:
            memcpy(bytes + 8 * i, &p->double_val[j], 8);
            break;
        case FL_DT_HALF:
        case FL_DT_BFLOAT16: {
            uint16_t h = (uint16_t)p->half_val[j];
            memcpy(bytes + 2 * i, &h, 2);
            break;
        }
        case FL_DT_COMPLEX64:
            memcpy(bytes + 8 * i, &p->scomplex_val[2 * j], 8);
            break;
        case FL_DT_COMPLEX128:
            memcpy(bytes + 16 * i, &p->dcomplex_val[2 * j], 16);
            break;
        case FL_DT_INT64:
            ints[i] = fl_sym_const(p->int64_val[j]);
            break;
        case FL_DT_BOOL:
            ints[i] = fl_sym_const(p->bool_val[j] ? 1 : 0);
            break;
        case FL_DT_UINT32:
            ints[i] = fl_sym_const((int64_t)p->uint32_val[j]);
            break;
        case FL_DT_UINT64:
            ints[i] = fl_sym_const((int64_t)p->uint64_val[j]);
            break;
        default:
            if (ints) {
                /* int_val holds int32, int16, int8, uint8, uint16, qint*: keep
                 * the value as the narrower type reads it. */
                int64_t x = p->int_val[j];
                if (es < 4) {
                    x = fl__pb_read_le((const uint8_t *)&(uint32_t){(uint32_t)x}, es, sgn);
                }
                ints[i] = fl_sym_const(x);
            }
            break;
        }
    }
    c->value = v;
    return FL_OK;
}

/* Decodes a TensorProto. `stripped_bytes` >= 0 marks a constant whose content
 * was removed from the file (attr _stripped_content_bytes): its value is
 * unknown and its content size is that many bytes. */
fl_status fl__gd_tensor(conv *cv, const Tensorflow__TensorProto *p, int64_t stripped_bytes,
                        const fl_const **out) {
    fl_arena *a = cv->g->arena;
    fl_const *c = fl__arena_zalloc(a, sizeof(*c));
    if (!c) {
        return fl__diag_oom(cv->d);
    }
    int dt_raw = (int)p->dtype;
    if (!fl__dtype_valid(dt_raw) || dt_raw > FL_DT_REF_OFFSET) {
        char buf[64];
        snprintf(buf, sizeof buf, "tensor has invalid dtype %d", dt_raw);
        return fl__node_fail(cv->d, FL_EINVAL, cv->node, "attr '%.200s': %s", cv->key, buf);
    }
    fl_dtype dt = (fl_dtype)dt_raw;
    c->dtype = dt;
    c->src = p;
    fl_status st = fl__gd_shape_lit(cv, p->tensor_shape, false, &c->shape);
    if (st != FL_OK) {
        return st;
    }
    int64_t n = 1;
    for (int i = 0; i < c->shape.rank; i++) {
        if (c->shape.dims[i] && n > INT64_MAX / c->shape.dims[i]) {
            return fail(cv, "", "tensor element count overflows 64 bits");
        }
        n *= c->shape.dims[i];
    }
    c->n = n;
    size_t es = fl__dtype_size(dt);
    if (es && n > (int64_t)(UINT64_MAX / 2 / es)) {
        return fail(cv, "", "tensor byte size overflows");
    }
    *out = c;

    if (stripped_bytes >= 0) {
        c->stripped = true;
        c->content_bytes = es ? (uint64_t)n * es : (uint64_t)stripped_bytes;
        if (p->tensor_content.len || typed_count(p, dt)) {
            return fail(cv, "", "constant marked _stripped_content_bytes still has content");
        }
        return FL_OK;
    }
    c->content_bytes = es ? (uint64_t)n * es : 0;
    if (dt == FL_DT_STRING || dt == FL_DT_RESOURCE || dt == FL_DT_VARIANT) {
        if (dt == FL_DT_STRING && p->n_string_val > (size_t)(n ? n : 0) && n >= 0) {
            return fail(cv, "", "more string_val entries than the shape holds");
        }
        return FL_OK; /* no numeric value */
    }

    size_t n_typed = typed_count(p, dt);
    if (p->tensor_content.len) {
        if (n_typed) {
            return fail(cv, "", "tensor has both tensor_content and typed *_val fields");
        }
        if ((uint64_t)p->tensor_content.len != (uint64_t)n * es) {
            char buf[160];
            snprintf(buf, sizeof buf,
                     "tensor_content is %zu bytes but shape (%lld elements) x %s (%zu bytes) "
                     "needs %llu",
                     p->tensor_content.len, (long long)n, fl__dtype_name(dt), es,
                     (unsigned long long)((uint64_t)n * es));
            return fl__node_fail(cv->d, FL_EINVAL, cv->node, "attr '%.200s': %s", cv->key, buf);
        }
    } else if (n_typed > (size_t)n) {
        char buf[128];
        snprintf(buf, sizeof buf, "%zu typed values but the shape holds %lld elements", n_typed,
                 (long long)n);
        return fl__node_fail(cv->d, FL_EINVAL, cv->node, "attr '%.200s': %s", cv->key, buf);
    } else if ((dt == FL_DT_COMPLEX64 && p->n_scomplex_val % 2) ||
               (dt == FL_DT_COMPLEX128 && p->n_dcomplex_val % 2)) {
        return fail(cv, "", "complex values must come in (real, imag) pairs");
    }

    if (n > cv->o->max_value_elems) {
        return FL_OK; /* shape and dtype known; contents not decoded */
    }
    const void *in_place = typed_in_place(p, dt, n);
    if (in_place) { /* a view of the model's bytes: read only when used */
        c->value = fl__value_view(a, dt, c->shape.rank, c->shape.dims, in_place);
        return c->value || !a->failed ? FL_OK : fl__diag_oom(cv->d);
    }
    return decode_value(cv, p, c, n_typed);
}

/* ------------------------------------------------------------------------- */
/* Attributes                                                                 */
/* ------------------------------------------------------------------------- */

static fl_status attr(conv *cv, const char *name, const Tensorflow__AttrValue *p, int64_t stripped,
                      fl_attr *out);

fl_status fl__gd_func_ref(conv *cv, const Tensorflow__NameAttrList *p, fl_func_ref *out) {
    out->name = p->name ? p->name : "";
    out->n_attrs = (int)p->n_attr;
    out->attrs = fl__arena_calloc(cv->g->arena, p->n_attr ? p->n_attr : 1, sizeof(fl_attr));
    if (!out->attrs) {
        return fl__diag_oom(cv->d);
    }
    for (size_t i = 0; i < p->n_attr; i++) {
        const Tensorflow__NameAttrList__AttrEntry *e = p->attr[i];
        fl_status st = attr(cv, e->key ? e->key : "", e->value, -1, &out->attrs[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

fl_str fl__gd_bytes_str(fl_arena *a, ProtobufCBinaryData b) {
    fl_str s = {fl__arena_strndup(a, (const char *)b.data, b.len), b.len};
    return s;
}

fl_status fl__gd_attr_list(conv *cv, const Tensorflow__AttrValue__ListValue *l, fl_attr *out) {
    fl_arena *a = cv->g->arena;
    out->kind = FL_ATTR_LIST;
    /* A ListValue holds one kind of element; a list with two kinds is invalid. */
    int kinds = (l->n_s > 0) + (l->n_i > 0) + (l->n_f > 0) + (l->n_b > 0) + (l->n_type > 0) +
                (l->n_shape > 0) + (l->n_tensor > 0) + (l->n_func > 0);
    if (kinds > 1) {
        return fail(cv, "", "list attr mixes element kinds");
    }
    out->list_kind = FL_ATTR_NONE;
    out->n = 0;
    if (l->n_s) {
        fl_str *v = fl__arena_calloc(a, l->n_s, sizeof(*v));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_s; i++) {
            v[i] = fl__gd_bytes_str(a, l->s[i]);
        }
        out->list_kind = FL_ATTR_S;
        out->n = l->n_s;
        out->v.list.s = v;
    } else if (l->n_i) {
        out->list_kind = FL_ATTR_I;
        out->n = l->n_i;
        out->v.list.i = l->i;
    } else if (l->n_f) {
        out->list_kind = FL_ATTR_F;
        out->n = l->n_f;
        out->v.list.f = l->f;
    } else if (l->n_b) {
        bool *v = fl__arena_calloc(a, l->n_b, sizeof(bool));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_b; i++) {
            v[i] = l->b[i] != 0;
        }
        out->list_kind = FL_ATTR_B;
        out->n = l->n_b;
        out->v.list.b = v;
    } else if (l->n_type) {
        int *v = fl__arena_calloc(a, l->n_type, sizeof(int));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_type; i++) {
            v[i] = (int)l->type[i];
            if (!fl__dtype_valid(v[i])) {
                return fail(cv, "", "list(type) holds an invalid DataType");
            }
        }
        out->list_kind = FL_ATTR_TYPE;
        out->n = l->n_type;
        out->v.list.type = v;
    } else if (l->n_shape) {
        fl_shape_lit *v = fl__arena_calloc(a, l->n_shape, sizeof(*v));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_shape; i++) {
            fl_status st = fl__gd_shape_lit(cv, l->shape[i], true, &v[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        out->list_kind = FL_ATTR_SHAPE;
        out->n = l->n_shape;
        out->v.list.shape = v;
    } else if (l->n_tensor) {
        const fl_const **v = fl__arena_calloc(a, l->n_tensor, sizeof(*v));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_tensor; i++) {
            fl_status st = fl__gd_tensor(cv, l->tensor[i], -1, &v[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        out->list_kind = FL_ATTR_TENSOR;
        out->n = l->n_tensor;
        out->v.list.tensor = v;
    } else if (l->n_func) {
        fl_func_ref *v = fl__arena_calloc(a, l->n_func, sizeof(*v));
        if (!v) {
            return fl__diag_oom(cv->d);
        }
        for (size_t i = 0; i < l->n_func; i++) {
            fl_status st = fl__gd_func_ref(cv, l->func[i], &v[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        out->list_kind = FL_ATTR_FUNC;
        out->n = l->n_func;
        out->v.list.func = v;
    }
    return FL_OK;
}

static fl_status attr(conv *cv, const char *name, const Tensorflow__AttrValue *p, int64_t stripped,
                      fl_attr *out) {
    out->name = name;
    if (!p) {
        out->kind = FL_ATTR_NONE;
        return FL_OK;
    }
    switch (p->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_S:
        out->kind = FL_ATTR_S;
        out->v.s = fl__gd_bytes_str(cv->g->arena, p->s);
        return out->v.s.p ? FL_OK : fl__diag_oom(cv->d);
    case TENSORFLOW__ATTR_VALUE__VALUE_I:
        out->kind = FL_ATTR_I;
        out->v.i = p->i;
        return FL_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_F:
        out->kind = FL_ATTR_F;
        out->v.f = p->f;
        return FL_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_B:
        out->kind = FL_ATTR_B;
        out->v.b = p->b != 0;
        return FL_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE:
        out->kind = FL_ATTR_TYPE;
        out->v.type = (int)p->type;
        if (!fl__dtype_valid(out->v.type) && out->v.type != 0) {
            return fail(cv, "", "type attr holds an invalid DataType");
        }
        return FL_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE:
        out->kind = FL_ATTR_SHAPE;
        return fl__gd_shape_lit(cv, p->shape, true, &out->v.shape);
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR:
        out->kind = FL_ATTR_TENSOR;
        return fl__gd_tensor(cv, p->tensor, stripped, &out->v.tensor);
    case TENSORFLOW__ATTR_VALUE__VALUE_LIST:
        return fl__gd_attr_list(cv, p->list, out);
    case TENSORFLOW__ATTR_VALUE__VALUE_FUNC:
        out->kind = FL_ATTR_FUNC;
        return fl__gd_func_ref(cv, p->func, &out->v.func);
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER:
        out->kind = FL_ATTR_PLACEHOLDER;
        out->v.placeholder = p->placeholder ? p->placeholder : "";
        return FL_OK;
    default:
        out->kind = FL_ATTR_NONE; /* an AttrValue with nothing set */
        return FL_OK;
    }
}

/* ------------------------------------------------------------------------- */
/* Function library                                                           */
/* ------------------------------------------------------------------------- */

static fl_status functions(fl_graph *g, const Tensorflow__FunctionDefLibrary *lib, fl_diag *d) {
    if (!lib || !lib->n_function) {
        return FL_OK;
    }
    g->funcs = fl__arena_calloc(g->arena, lib->n_function, sizeof(fl_function));
    if (!g->funcs) {
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < lib->n_function; i++) {
        const Tensorflow__FunctionDef *f = lib->function[i];
        const Tensorflow__OpDef *sig = f->signature;
        if (!sig || !sig->name || !sig->name[0]) {
            return fl__diag_fail(d, FL_EINVAL,
                                 "library function %zu has no signature name (field: "
                                 "library.function.signature.name)",
                                 i);
        }
        if (fl__graph_find_function(g, sig->name)) {
            return fl__diag_fail(d, FL_EINVAL,
                                 "duplicate library function '%s' (field: library.function)",
                                 sig->name);
        }
        fl_function *fn = &g->funcs[g->n_funcs];
        fn->name = sig->name;
        fn->n_in = (int)sig->n_input_arg;
        fn->n_out = (int)sig->n_output_arg;
        int *in_t = fl__arena_calloc(g->arena, sig->n_input_arg + 1, sizeof(int));
        int *out_t = fl__arena_calloc(g->arena, sig->n_output_arg + 1, sizeof(int));
        if (!in_t || !out_t) {
            return fl__diag_oom(d);
        }
        for (size_t k = 0; k < sig->n_input_arg; k++) {
            in_t[k] = (int)sig->input_arg[k]->type;
        }
        for (size_t k = 0; k < sig->n_output_arg; k++) {
            out_t[k] = (int)sig->output_arg[k]->type;
        }
        fn->in_types = in_t;
        fn->out_types = out_t;
        fn->n_nodes = (int)f->n_node_def;
        fn->src = f;
        g->n_funcs++;
    }
    return FL_OK;
}

/* Output count of a call to library function fn from node n: each output arg
 * is one tensor, or N (number_attr) or len(list) (type_list_attr). */
static int function_outputs(const fl_function *fn, const fl_node *n) {
    const Tensorflow__FunctionDef *f = fn->src;
    const Tensorflow__OpDef *sig = f->signature;
    int total = 0;
    for (size_t k = 0; k < sig->n_output_arg; k++) {
        const Tensorflow__OpDef__ArgDef *arg = sig->output_arg[k];
        int cnt = 1;
        if (arg->number_attr && arg->number_attr[0]) {
            const fl_attr *a = fl__node_attr(n, arg->number_attr);
            cnt = (a && a->kind == FL_ATTR_I && a->v.i >= 0 && a->v.i < 65536) ? (int)a->v.i : -1;
        } else if (arg->type_list_attr && arg->type_list_attr[0]) {
            const fl_attr *a = fl__node_attr(n, arg->type_list_attr);
            cnt = (a && a->kind == FL_ATTR_LIST && a->n < 65536) ? (int)a->n : -1;
        }
        if (cnt < 0) {
            return -1;
        }
        total += cnt;
    }
    return total;
}

/* ------------------------------------------------------------------------- */
/* Inputs                                                                     */
/* ------------------------------------------------------------------------- */

/* Splits "name", "name:port" or "^name". Returns false for a malformed string.
 * *name_len is the length of the node-name part; *port is -1 for control. */
bool fl__gd_parse_input(const char *s, size_t *name_off, size_t *name_len, long *port) {
    if (!s || !*s) {
        return false;
    }
    if (s[0] == '^') {
        if (!s[1] || strchr(s + 1, ':')) {
            return false;
        }
        *name_off = 1;
        *name_len = strlen(s + 1);
        *port = -1;
        return true;
    }
    const char *colon = strrchr(s, ':');
    *name_off = 0;
    if (!colon) {
        *name_len = strlen(s);
        *port = 0;
        return true;
    }
    if (colon == s || !colon[1]) {
        return false;
    }
    for (const char *c = colon + 1; *c; c++) {
        if (*c < '0' || *c > '9') {
            return false;
        }
    }
    if (strlen(colon + 1) > 9) {
        return false;
    }
    *name_len = (size_t)(colon - s);
    *port = strtol(colon + 1, NULL, 10);
    return true;
}

/* ------------------------------------------------------------------------- */
/* GraphDef                                                                   */
/* ------------------------------------------------------------------------- */

/* The attrs the engine reserves dropped (reserved_attrs.c), calls of library
 * functions inlined (funcinline.c), then the library read: *gd becomes the
 * graph with the calls inlined, which g keeps as its source. */
static fl_status library(fl_graph *g, const Tensorflow__GraphDef **gd, const fl_import_opts *o,
                         fl_diag *d) {
    fl_status st = fl__drop_reserved_attrs(g->arena, *gd, d, gd);
    if (st == FL_OK) {
        st = fl__inline_calls(g->arena, *gd, o, d, gd);
    }
    if (st != FL_OK) {
        return st;
    }
    g->src = *gd;
    return functions(g, (*gd)->library, d);
}

/* A stripped constant announces itself with _stripped_content_bytes: its
 * value (the byte count), or -1 when the node has none. */
static fl_status stripped_bytes(const Tensorflow__NodeDef *nd, fl_node *n, fl_diag *d,
                                int64_t *out) {
    *out = -1;
    for (size_t k = 0; k < nd->n_attr; k++) {
        const Tensorflow__NodeDef__AttrEntry *e = nd->attr[k];
        if (e->key && strcmp(e->key, "_stripped_content_bytes") == 0) {
            if (!e->value || e->value->value_case != TENSORFLOW__ATTR_VALUE__VALUE_I ||
                e->value->i < 0) {
                return fl__node_fail(d, FL_EINVAL, n,
                                     "attr '_stripped_content_bytes' must be a "
                                     "non-negative int");
            }
            *out = e->value->i;
            n->flags |= FL_NODE_STRIPPED;
        }
    }
    return FL_OK;
}

/* Sweep 1 for one node: the node and its attrs. */
static fl_status add_node(fl_graph *g, const Tensorflow__NodeDef *nd, size_t i,
                          const fl_import_opts *o, fl_diag *d) {
    if (!nd->name || !nd->name[0]) {
        return fl__diag_fail(d, FL_EINVAL, "node %zu has an empty name (field: name)", i);
    }
    /* An input names its node as "name", "name:port" or "^name": a name with
     * a ':' or a leading '^' could not be read back (TensorFlow refuses such
     * names too), and a function call's expansion "C/N" would inherit it. */
    if (nd->name[0] == '^' || strchr(nd->name, ':')) {
        return fl__diag_fail(d, FL_EINVAL,
                             "node %zu has an invalid name '%s' (field: name; a node name has no "
                             "':' and does not start with '^')",
                             i, nd->name);
    }
    if (!nd->op || !nd->op[0]) {
        return fl__diag_fail(d, FL_EINVAL, "node '%s' has an empty op (field: op)", nd->name);
    }
    /* The decoded message lives in g's arena as long as the graph: the node
     * keeps its name and op strings instead of copies. */
    fl_node *n = fl__graph_add_node_view(g, nd->name, nd->op, d);
    if (!n) {
        return d->status;
    }
    fl__op_bind(n);
    if (n->kind != FL_OP_UNKNOWN) {
        n->op = fl__op_name(n->kind); /* the registry's equal string: one per op type */
    }
    n->src = nd;
    n->device = nd->device ? nd->device : "";
    if (n->kind == FL_OP_UNKNOWN) {
        n->func = fl__graph_find_function(g, nd->op);
        if (n->func) {
            n->flags |= FL_NODE_FUNC_CALL;
        }
    }
    int64_t stripped;
    fl_status st = stripped_bytes(nd, n, d, &stripped);
    if (st != FL_OK) {
        return st;
    }
    n->n_attrs = (int)nd->n_attr;
    n->attrs = fl__arena_calloc(g->arena, nd->n_attr ? nd->n_attr : 1, sizeof(fl_attr));
    if (!n->attrs) {
        return fl__diag_oom(d);
    }
    for (size_t k = 0; k < nd->n_attr; k++) {
        const Tensorflow__NodeDef__AttrEntry *e = nd->attr[k];
        const char *key = e->key ? e->key : "";
        /* Attr names are interned: every op's shape and cost rules look
         * attrs up by name, and a few shared strings stay in cache where a
         * copy per node in the decoded message would not. Equal names are
         * the same pointer. */
        const char *iname = fl__graph_intern(g, key);
        if (!iname) {
            return fl__diag_oom(d);
        }
        for (size_t j = 0; j < k; j++) {
            if (n->attrs[j].name == iname) {
                return fl__node_fail(d, FL_EINVAL, n, "attr '%s' appears twice (field: attr)", key);
            }
        }
        conv cv = {g, d, o, n, key};
        st = attr(&cv, iname, e->value, strcmp(key, "value") == 0 ? stripped : -1, &n->attrs[k]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* The index slots of nd's input names, towards the cache (a hint only). */
static void prefetch_inputs(const fl_graph *g, const Tensorflow__NodeDef *nd) {
    for (size_t k = 0; k < nd->n_input; k++) {
        size_t off, len;
        long port;
        if (fl__gd_parse_input(nd->input[k], &off, &len, &port)) {
            fl__graph_prefetch_name(g, nd->input[k] + off, len);
        }
    }
}

/* Sweep 2 for one node: its inputs, split and resolved; max_port (by node
 * id) keeps the largest port read of each node, for ops whose output count
 * only their consumers tell. */
static fl_status node_inputs(fl_graph *g, const Tensorflow__NodeDef *nd, fl_node *n, int *max_port,
                             fl_diag *d) {
    size_t n_data = 0, n_ctrl = 0;
    for (size_t k = 0; k < nd->n_input; k++) {
        if (nd->input[k] && nd->input[k][0] == '^') {
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
    for (size_t k = 0; k < nd->n_input; k++) {
        const char *s = nd->input[k];
        size_t off, len;
        long port;
        if (!fl__gd_parse_input(s, &off, &len, &port)) {
            return fl__node_fail(d, FL_EINVAL, n,
                                 "malformed input '%s' (field: input[%zu]; expected 'name', "
                                 "'name:port' or '^name')",
                                 s ? s : "", k);
        }
        if (port >= 0 && n->n_ctrl > 0) {
            return fl__node_fail(d, FL_EINVAL, n,
                                 "data input '%s' follows a control input (field: input[%zu])", s,
                                 k);
        }
        char buf[512];
        const char *name = s + off;
        if (len < sizeof buf) {
            memcpy(buf, s + off, len);
            buf[len] = '\0';
            name = buf;
        } else if (!(name = fl__arena_strndup(g->arena, s + off, len))) {
            return fl__diag_oom(d);
        }
        fl_node *src = fl__graph_find(g, name);
        if (!src) {
            return fl__node_fail(d, FL_EINVAL, n,
                                 "input '%s' names a node that does not exist (field: "
                                 "input[%zu])",
                                 s, k);
        }
        fl__gd_add_input(n, src, port, max_port);
    }
    return FL_OK;
}

void fl__gd_add_input(fl_node *n, fl_node *src, long port, int *max_port) {
    if (port < 0) {
        n->ctrl[n->n_ctrl++] = src;
        return;
    }
    n->inputs[n->n_inputs].node = src;
    n->inputs[n->n_inputs].port = (int)port;
    n->n_inputs++;
    if (port > max_port[src->id]) {
        max_port[src->id] = (int)port;
    }
}

/* Sweep 3 for one node: its data input count checked against its op, and its
 * outputs allocated (an unknown op: as many as its consumers read, at least
 * one). */
fl_status fl__gd_node_outputs(fl_graph *g, fl_node *n, int max_port, fl_diag *d) {
    int cnt;
    if (n->desc) {
        fl_status st = fl__import_check_arity(d, n, n->n_inputs, "data inputs", "input");
        if (st != FL_OK) {
            return st;
        }
        cnt = n->desc->n_outputs >= 0 ? n->desc->n_outputs : n->desc->count_outputs(n, d);
        if (cnt < 0) {
            return d->status != FL_OK ? d->status
                                      : fl__node_fail(d, FL_EINVAL, n,
                                                      "cannot tell the number of outputs from "
                                                      "its attrs (field: attr)");
        }
    } else if (n->func) {
        cnt = function_outputs(n->func, n);
        if (cnt < 0) {
            return fl__node_fail(d, FL_EINVAL, n,
                                 "call of function '%s' lacks the attrs that size its outputs "
                                 "(field: attr)",
                                 n->func->name);
        }
    } else {
        cnt = max_port + 1; /* unknown op: at least one output */
    }
    return fl__node_alloc_outputs(g, n, cnt) != FL_OK ? fl__diag_oom(d) : FL_OK;
}

/* Every input reads an output its producer has. */
fl_status fl__gd_check_ports(const fl_graph *g, fl_diag *d) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_input *in = &n->inputs[k];
            if (in->port >= in->node->n_outputs) {
                return fl__node_fail(d, FL_EINVAL, n,
                                     "input %d reads output %d of '%s' (%s), which has %d "
                                     "output%s (field: input)",
                                     k, in->port, in->node->name, in->node->op, in->node->n_outputs,
                                     in->node->n_outputs == 1 ? "" : "s");
            }
        }
    }
    return FL_OK;
}

fl_status fl__import_graphdef_msg(fl_graph *g, const Tensorflow__GraphDef *gd,
                                  const fl_import_opts *o, fl_diag *d) {
    if ((int64_t)gd->n_node > o->max_nodes) {
        return fl__diag_fail(d, FL_ELIMIT,
                             "graph has %zu nodes, above the limit of %lld (field: node)",
                             gd->n_node, (long long)o->max_nodes);
    }
    g->producer = gd->versions ? gd->versions->producer : 0;
    fl_status st = library(g, &gd, o, d);
    if (st != FL_OK) {
        return st;
    }
    /* Sweep 1: nodes and attrs. The node array and name index are sized
     * once; each name's index slot is fetched a few nodes ahead, so that the
     * cache misses of a large graph's lookups overlap. */
    st = fl__graph_reserve(g, gd->n_node, d);
    if (st != FL_OK) {
        return st;
    }
    for (size_t i = 0; i < gd->n_node; i++) {
        if (fl_diag_poll(d) != FL_OK) {
            return d->status;
        }
        if (i + PREFETCH_AHEAD < gd->n_node && gd->node[i + PREFETCH_AHEAD]->name) {
            const char *ahead = gd->node[i + PREFETCH_AHEAD]->name;
            fl__graph_prefetch_name(g, ahead, strlen(ahead));
        }
        st = add_node(g, gd->node[i], i, o, d);
        if (st != FL_OK) {
            return st;
        }
    }
    /* Sweep 2: inputs. */
    int *max_port = fl__arena_scratch(g->arena, g->n_nodes, sizeof(int));
    if (!max_port) {
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < gd->n_node && st == FL_OK; i++) {
        if (i + PREFETCH_AHEAD < gd->n_node) {
            prefetch_inputs(g, gd->node[i + PREFETCH_AHEAD]);
        }
        st = node_inputs(g, gd->node[i], g->nodes[i], max_port, d);
    }
    /* Sweep 3: output counts, then port and arity checks. */
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        st = fl__gd_node_outputs(g, g->nodes[i], max_port[i], d);
    }
    if (st == FL_OK) {
        st = fl__gd_check_ports(g, d);
    }
    fl__arena_scratch_free(g->arena, max_port);
    return st == FL_OK ? fl__tf_loops(g, d) : st;
}

int fl__import_sniff_savedmodel(const uint8_t *buf, size_t len) {
    /* SavedModel opens with field 1 (varint: schema version) or field 2
     * (meta_graphs); a GraphDef writes field 1 as a length-delimited NodeDef. */
    return len > 0 && buf[0] == 0x08;
}

fl_status fl__import_savedmodel(fl_graph *g, const uint8_t *buf, size_t len,
                                const fl_import_opts *o, fl_diag *d) {
    Tensorflow__SavedModel *sm = fl__pb_unpack(g, &tensorflow__saved_model__descriptor, buf, len,
                                               "tensorflow.SavedModel", d);
    if (!sm) {
        return d->status;
    }
    if (!sm->n_meta_graphs) {
        return fl__diag_fail(d, FL_EINVAL, "SavedModel has no meta graph (field: meta_graphs)");
    }
    const char *want = o->tag ? o->tag : "serve";
    const Tensorflow__MetaGraphDef *pick = NULL;
    for (size_t i = 0; i < sm->n_meta_graphs && !pick; i++) {
        const Tensorflow__MetaGraphDef *m = sm->meta_graphs[i];
        if (!m->meta_info_def) {
            continue;
        }
        for (size_t k = 0; k < m->meta_info_def->n_tags; k++) {
            if (strcmp(m->meta_info_def->tags[k], want) == 0) {
                pick = m;
                break;
            }
        }
    }
    if (!pick && !o->tag && sm->n_meta_graphs == 1) {
        pick = sm->meta_graphs[0];
    }
    if (!pick) {
        return fl__diag_fail(d, FL_ENOTFOUND,
                             "SavedModel has no meta graph tagged '%s' (field: "
                             "meta_graphs.meta_info_def.tags)",
                             want);
    }
    if (!pick->graph_def) {
        return fl__diag_fail(d, FL_EINVAL,
                             "meta graph tagged '%s' has no graph (field: meta_graphs.graph_def)",
                             want);
    }
    return fl__import_graphdef_msg(g, pick->graph_def, o, d);
}
