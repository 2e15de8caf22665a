/*
 * test_onnx_node.c - ONNX's own backend node test cases (Debian's
 * libonnx-testdata, data/node; skipped with exit code 77 when absent).
 *
 * Each case is a folder with model.onnx (usually one node) and
 * test_data_set_0/input_K.pb, output_K.pb: TensorProtos of the graph's K-th
 * input and output, written by ONNX's reference implementation. For every
 * case whose inputs and outputs are all tensors: the model is imported, each
 * graph input is bound to its tensor's shape and, when the tensor is small
 * (at most VALUE_LIMIT numeric elements), to its contents as well (so inputs
 * that determine shapes - Reshape's shape, Resize's sizes, axes, pads, repeats
 * - are known, as a user gives them with --value NAME=V,V,...); shapes are
 * inferred, and every graph output must have the expected dtype and exactly
 * the expected shape. Where the engine evaluated an output's value, it must
 * equal the expected tensor (integers exactly, floats within a relative
 * 1e-3 or absolute 1e-5). Two conventions of the test data are read as
 * ONNX's generator writes them: a UINT16 tensor for a value declared
 * BFLOAT16 holds bfloat16 bits (numpy has no bfloat16), and an input tensor
 * whose shape contradicts the input's declared one (CastLike's bfloat16
 * cases give a [1] `like` for a declared [3,4]) is left to its declaration.
 * The FLOAT to BFLOAT16 casts of the 1.12 data expect truncated values;
 * the engine rounds to nearest even, as ONNX's later reference and test data
 * do: such an output passes when every expected element is the input
 * truncated and every evaluated one the input rounded to nearest even (both
 * derived here from the input's bits), and is counted on a line of its own.
 *
 * Cases with sequence or optional inputs or outputs (of tensors) are counted
 * apart: their data files are ONNX's SequenceProto and OptionalProto. A
 * sequence input is bound as the engine reads one, to [count, element
 * dims...] when its elements share one shape (else left unbound), an
 * optional tensor to its element's shape; a sequence output passes when the
 * engine lists exactly the expected elements, each of the expected dtype and
 * shape (fl__ox_seq_describe).
 *
 * The test prints the pass counts and the failing cases grouped by op, and
 * fails when a count falls below its floor committed in
 * tests/data/onnx_node_floor.txt (raised as ops are added), or when any case
 * crashes the engine (the process dies). The TensorProtos are read with the
 * engine's protobuf-c ONNX schema (proto/onnx/onnx.proto).
 *
 * FL_ONNX_NODE_DIR (environment) overrides the data folder.
 */
#include "graph/dtype.h"
#include "graph/graph.h"
#include "import/import.h"
#include "onnx/onnx.pb-c.h"
#include "ops/onnxops/sequence.h"
#include "shape/infer.h"
#include "sym/sym.h"
#include "util/arena.h"
#include "util/diag.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VALUE_LIMIT 4096
#define MAX_IO      32
#define MAX_CASES   4096
#define MAX_ELEMS   64

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static Onnx__TensorProto *read_tensor(const char *path) {
    size_t len;
    unsigned char *buf = read_all(path, &len);
    if (!buf) {
        return NULL;
    }
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
    free(buf);
    return t;
}

/* A sequence or optional value of a case (ONNX's SequenceProto and
 * OptionalProto, read field by field: name 1, elem_type 2, then a
 * SequenceProto's tensor_values 3, an OptionalProto's tensor_value 3 or
 * sequence_value 5). kind: 1 a sequence of tensors, 2 an optional holding a
 * tensor (t[0]), 0 an empty optional; -1 anything else. */
typedef struct container {
    int kind;
    Onnx__TensorProto *t[MAX_ELEMS];
    size_t n;
} container;

static bool read_varint(const uint8_t *p, size_t len, size_t *at, uint64_t *v) {
    *v = 0;
    for (int shift = 0; *at < len && shift < 64; shift += 7) {
        uint8_t b = p[(*at)++];
        *v |= (uint64_t)(b & 127) << shift;
        if (b < 128) {
            return true;
        }
    }
    return false;
}

/* Reads the message p[0..len) into c; `seq` says it is a SequenceProto. */
static void read_container_msg(const uint8_t *p, size_t len, bool seq, container *c) {
    size_t at = 0;
    int elem_type = -1;
    while (at < len && c->kind >= 0) {
        uint64_t key, v;
        if (!read_varint(p, len, &at, &key)) {
            c->kind = -1;
        } else if ((key & 7) == 0) {
            c->kind = read_varint(p, len, &at, &v) ? c->kind : -1;
            elem_type = (key >> 3) == 2 ? (int)v : elem_type;
        } else if ((key & 7) == 2 && read_varint(p, len, &at, &v) && v <= len - at) {
            uint64_t f = key >> 3;
            if (f == 3 && c->n < MAX_ELEMS) {
                c->t[c->n] = onnx__tensor_proto__unpack(NULL, (size_t)v, p + at);
                c->kind = c->t[c->n++] ? c->kind : -1;
            } else if (f == 5 && !seq) {
                read_container_msg(p + at, (size_t)v, true, c);
            } else if (f != 1) {
                c->kind = -1;
            }
            at += (size_t)v;
        } else {
            c->kind = -1;
        }
    }
    if (c->kind >= 0) {
        /* elem_type: 1 tensor, 3 sequence (OptionalProto), 0 undefined */
        c->kind = seq ? (elem_type == 1 || c->n == 0 ? 1 : -1)
                      : (elem_type == 1   ? 2
                         : elem_type == 0 ? 0
                         : elem_type == 3 ? 1
                                          : -1);
    }
}

static bool read_container(const char *path, bool seq, container *c) {
    size_t len;
    unsigned char *buf = read_all(path, &len);
    memset(c, 0, sizeof *c);
    if (!buf) {
        return false;
    }
    read_container_msg(buf, len, seq, c);
    free(buf);
    return c->kind >= 0;
}

static void container_free(container *c) {
    for (size_t i = 0; i < c->n; i++) {
        onnx__tensor_proto__free_unpacked(c->t[i], NULL);
    }
}

static int64_t numel(const Onnx__TensorProto *t) {
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        n *= t->dims[i];
    }
    return n;
}

static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Element i of raw little-endian data of ONNX type dt as a double. */
static bool raw_elem(const uint8_t *p, int dt, int64_t i, double *out) {
    union {
        float f;
        double d;
        uint32_t u32;
        uint64_t u64;
    } u;
    switch (dt) {
    case 1:
        memcpy(&u.f, p + 4 * i, 4);
        *out = u.f;
        return true;
    case 11:
        memcpy(&u.d, p + 8 * i, 8);
        *out = u.d;
        return true;
    case 2:
        *out = p[i];
        return true;
    case 3:
        *out = (int8_t)p[i];
        return true;
    case 9:
        *out = p[i] != 0;
        return true;
    case 4:
        *out = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        return true;
    case 5:
        *out = (int16_t)(p[2 * i] | p[2 * i + 1] << 8);
        return true;
    case 10:
        *out = half_to_double((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
        return true;
    case 16:
        u.u32 = (uint32_t)(p[2 * i] | p[2 * i + 1] << 8) << 16;
        *out = u.f;
        return true;
    case 6:
        memcpy(&u.u32, p + 4 * i, 4);
        *out = (int32_t)u.u32;
        return true;
    case 12:
        memcpy(&u.u32, p + 4 * i, 4);
        *out = u.u32;
        return true;
    case 7:
        memcpy(&u.u64, p + 8 * i, 8);
        *out = (double)(int64_t)u.u64;
        return true;
    case 13:
        memcpy(&u.u64, p + 8 * i, 8);
        *out = (double)u.u64;
        return true;
    default:
        return false;
    }
}

/* The tensor's elements, read as ONNX type dt, as doubles (NULL when the
 * type has no numeric reading here: strings, complex, 4/8-bit floats). */
static double *tensor_doubles(const Onnx__TensorProto *t, int dt, int64_t n) {
    static const int8_t raw_size[] = {
        [1] = 4, [2] = 1,  [3] = 1,  [4] = 2,  [5] = 2,  [6] = 4, [7] = 8,
        [9] = 1, [10] = 2, [11] = 8, [12] = 4, [13] = 8, [16] = 2};
    if (dt <= 0 || dt > 16 || !raw_size[dt] || n < 0) {
        return NULL;
    }
    double *xs = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!xs) {
        return NULL;
    }
    bool ok = true;
    if (t->has_raw_data && t->raw_data.len) {
        ok = t->raw_data.len == (size_t)n * (size_t)raw_size[dt];
        for (int64_t i = 0; ok && i < n; i++) {
            ok = raw_elem(t->raw_data.data, dt, i, &xs[i]);
        }
    } else if (dt == 1) {
        ok = t->n_float_data == (size_t)n;
        for (int64_t i = 0; ok && i < n; i++) {
            xs[i] = t->float_data[i];
        }
    } else if (dt == 11) {
        ok = t->n_double_data == (size_t)n;
        for (int64_t i = 0; ok && i < n; i++) {
            xs[i] = t->double_data[i];
        }
    } else if (dt == 7) {
        ok = t->n_int64_data == (size_t)n;
        for (int64_t i = 0; ok && i < n; i++) {
            xs[i] = (double)t->int64_data[i];
        }
    } else if (dt == 12 || dt == 13) {
        ok = t->n_uint64_data == (size_t)n;
        for (int64_t i = 0; ok && i < n; i++) {
            xs[i] = (double)t->uint64_data[i];
        }
    } else {
        /* int32_data holds int32, int16, int8, uint16, uint8, bool, and the
         * bits of float16 / bfloat16. */
        ok = t->n_int32_data == (size_t)n;
        for (int64_t i = 0; ok && i < n; i++) {
            int32_t v = t->int32_data[i];
            if (dt == 10) {
                xs[i] = half_to_double((uint16_t)v);
            } else if (dt == 16) {
                union {
                    uint32_t u;
                    float f;
                } b = {(uint32_t)(uint16_t)v << 16};
                xs[i] = b.f;
            } else {
                xs[i] = v;
            }
        }
    }
    if (!ok) {
        free(xs);
        return NULL;
    }
    return xs;
}

static bool is_tensor_vi(const Onnx__ValueInfoProto *v) {
    return v->type && v->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
}

static bool is_tensor_type(const Onnx__TypeProto *t) {
    return t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
}

/* What value v declares: 0 a tensor, 1 a sequence of tensors, 2 an optional
 * tensor, 3 an optional sequence of tensors; -1 anything else (maps...). */
static int value_kind(const Onnx__ValueInfoProto *v) {
    const Onnx__TypeProto *t = v->type;
    if (is_tensor_type(t)) {
        return 0;
    }
    if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && t->sequence_type) {
        return is_tensor_type(t->sequence_type->elem_type) ? 1 : -1;
    }
    if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && t->optional_type) {
        const Onnx__TypeProto *e = t->optional_type->elem_type;
        if (is_tensor_type(e)) {
            return 2;
        }
        return e && e->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && e->sequence_type &&
                       is_tensor_type(e->sequence_type->elem_type)
                   ? 3
                   : -1;
    }
    return -1;
}

/* The element type a test tensor holds for a value declared as `v`: its own
 * data_type, except that ONNX's generator writes bfloat16 data (numpy has no
 * bfloat16) as UINT16 tensors of the same bits: a UINT16 tensor for a value
 * declared BFLOAT16 holds bfloat16 numbers. */
static int data_type_for(const Onnx__ValueInfoProto *v, const Onnx__TensorProto *t) {
    enum { UINT16 = 4, BFLOAT16 = 16 };
    bool bf16 = is_tensor_vi(v) && v->type->tensor_type->elem_type == BFLOAT16;
    return bf16 && t->data_type == UINT16 ? BFLOAT16 : t->data_type;
}

/* False when v declares a shape whose rank or fixed dims contradict t's (a
 * few cases feed a [1] tensor to an input declared [3,4] that only its
 * dtype matters for: CastLike's `like`). */
static bool fits_declared(const Onnx__ValueInfoProto *v, const Onnx__TensorProto *t) {
    const Onnx__TypeProto__Tensor *tt = is_tensor_vi(v) ? v->type->tensor_type : NULL;
    if (!tt || !tt->shape) {
        return true;
    }
    if (tt->shape->n_dim != t->n_dims) {
        return false;
    }
    for (size_t i = 0; i < t->n_dims; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value != t->dims[i]) {
            return false;
        }
    }
    return true;
}

/* One case's inputs and outputs as read from test_data_set_0: tensors in
 * in/out, sequences and optionals (in[i] NULL) in cin/cout. */
typedef struct io_set {
    Onnx__TensorProto *in[MAX_IO], *out[MAX_IO];
    size_t n_in, n_out;
    container cin[MAX_IO], cout[MAX_IO];
    bool c_in[MAX_IO], c_out[MAX_IO];
    int64_t cdims[MAX_IO][FL_OX_SEQ_RANK + 1]; /* a sequence input's binding */
} io_set;

static void io_free(io_set *s) {
    for (size_t i = 0; i < s->n_in; i++) {
        if (s->in[i]) {
            onnx__tensor_proto__free_unpacked(s->in[i], NULL);
        }
        container_free(&s->cin[i]);
    }
    for (size_t i = 0; i < s->n_out; i++) {
        if (s->out[i]) {
            onnx__tensor_proto__free_unpacked(s->out[i], NULL);
        }
        container_free(&s->cout[i]);
    }
}

/* The producer (node, port) of graph value `name`. */
static const fl_tensor *find_value(const fl_graph *g, const char *name) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        const Onnx__NodeProto *np = n->src;
        if (np) {
            for (size_t k = 0; k < np->n_output && (int)k < n->n_outputs; k++) {
                if (np->output[k] && strcmp(np->output[k], name) == 0) {
                    return &n->outputs[k];
                }
            }
        } else if (n->n_outputs == 1 && strcmp(n->name, name) == 0) {
            return &n->outputs[0];
        }
    }
    return NULL;
}

static void shape_text(char *buf, size_t size, const fl_tensor *t) {
    if (t->shape.rank < 0) {
        snprintf(buf, size, "%s ?", fl__dtype_name(t->dtype));
        return;
    }
    size_t w = (size_t)snprintf(buf, size, "%s [", fl__dtype_name(t->dtype));
    for (int k = 0; k < t->shape.rank && w < size; k++) {
        fl_sym s = t->shape.dims[k];
        w += (size_t)snprintf(buf + w, size - w, "%s", k ? "," : "");
        if (fl_sym_is_known(s)) {
            w += (size_t)snprintf(buf + w, size - w, "%lld", (long long)s.k);
        } else {
            w += (size_t)snprintf(buf + w, size - w, "%s", fl_sym_is_symbolic(s) ? "sym" : "?");
        }
    }
    if (w < size) {
        snprintf(buf + w, size - w, "]");
    }
}

static void proto_text(char *buf, size_t size, const Onnx__TensorProto *t) {
    size_t w = (size_t)snprintf(buf, size, "%s [", fl__dtype_name(fl__onnx_dtype(t->data_type)));
    for (size_t k = 0; k < t->n_dims && w < size; k++) {
        w += (size_t)snprintf(buf + w, size - w, "%s%lld", k ? "," : "", (long long)t->dims[k]);
    }
    if (w < size) {
        snprintf(buf + w, size - w, "]");
    }
}

/* Compares an evaluated value with the expected tensor; 1 equal, 0 differs,
 * -1 not comparable (symbolic elements, no numeric reading). */
static int compare_value(const fl_value *v, const Onnx__TensorProto *t, int dt) {
    int64_t n = numel(t);
    if (v->n != n || !fl__value_is_concrete(v)) {
        return v->n != n ? 0 : -1;
    }
    double *want = tensor_doubles(t, dt, n);
    if (!want) {
        return -1;
    }
    int r = 1;
    for (int64_t i = 0; i < n && r == 1; i++) {
        double got;
        if (!fl__value_f64(v, i, &got)) {
            r = -1;
        } else if (isnan(want[i]) || isnan(got)) {
            r = isnan(want[i]) && isnan(got) ? 1 : 0;
        } else if (got != want[i] &&
                   fabs(got - want[i]) > 1e-5 + 1e-3 * fmax(fabs(got), fabs(want[i]))) {
            r = 0;
        }
    }
    free(want);
    return r;
}

/* The bfloat16 bits of float x: truncated, or rounded to nearest even. */
static uint16_t bf16_trunc(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)(u >> 16);
}

static uint16_t bf16_rne(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* True when an evaluated FLOAT->BFLOAT16 value differs from the expected one
 * only by the rounding: every element of the expected tensor is the input
 * truncated, every evaluated element is the input rounded to nearest even
 * (NaN stays NaN), and the two rules differ somewhere. ONNX 1.12's generator
 * truncated (it kept the high half of each float's bits); the Cast
 * specification's floating-point narrowing and ONNX's later reference
 * implementation and test data round to nearest even, as the engine does. */
static bool bf16_rounding_only(const fl_value *v, const Onnx__TensorProto *want, int dt,
                               const Onnx__TensorProto *in) {
    enum { FLOAT = 1, BFLOAT16 = 16 };
    int64_t n = numel(want);
    if (dt != BFLOAT16 || !in || in->data_type != FLOAT || numel(in) != n || v->n != n) {
        return false;
    }
    double *x = tensor_doubles(in, FLOAT, n), *w = tensor_doubles(want, dt, n);
    bool ok = x && w, differ = false;
    for (int64_t i = 0; ok && i < n; i++) {
        double got;
        ok = fl__value_f64(v, i, &got);
        float xf = (float)x[i], gf = (float)got, wf = (float)w[i];
        if (ok && isnan(xf)) {
            ok = isnan(gf) && isnan(wf);
        } else if (ok) {
            ok = bf16_trunc(wf) == bf16_trunc(xf) && bf16_trunc(gf) == bf16_rne(xf);
            differ |= bf16_trunc(xf) != bf16_rne(xf);
        }
    }
    free(x);
    free(w);
    return ok && differ;
}

typedef struct case_result {
    int pass;           /* 1 pass, 0 fail, -1 not a tensor case */
    int values_checked; /* outputs whose evaluated value was compared */
    int bf16_rounding;  /* outputs that differ only by bfloat16 rounding */
    int container;      /* 1: a case with sequence or optional values */
    char op[64];
    char why[400];
} case_result;

/* A sequence input's binding: [count, element dims...] when its elements
 * all have one shape; an optional tensor's: its element's shape. An empty
 * optional, or a sequence whose elements differ, stays unbound (false). */
static bool bind_container(const Onnx__ValueInfoProto *v, io_set *io, size_t k,
                           fl_input_binding *b) {
    const container *c = &io->cin[k];
    b->name = v->name;
    if (c->kind == 2) {
        b->rank = (int)c->t[0]->n_dims;
        b->dims = c->t[0]->dims;
        return true;
    }
    if (c->kind != 1 || c->n == 0 || c->t[0]->n_dims > FL_OX_SEQ_RANK) {
        return false;
    }
    size_t r = c->t[0]->n_dims;
    for (size_t i = 1; i < c->n; i++) {
        if (c->t[i]->n_dims != r ||
            (r && memcmp(c->t[i]->dims, c->t[0]->dims, r * sizeof(int64_t)) != 0)) {
            return false;
        }
    }
    io->cdims[k][0] = (int64_t)c->n;
    for (size_t d = 0; d < r; d++) {
        io->cdims[k][d + 1] = c->t[0]->dims[d];
    }
    b->rank = (int)r + 1;
    b->dims = io->cdims[k];
    return true;
}

/* Bindings for the inputs: every shape, and the contents of small tensors. */
static int bind_all(const Onnx__GraphProto *gp, io_set *io, fl_options *o, fl_input_binding *ib,
                    fl_tensor_value_binding *vb, case_result *res) {
    size_t nin = 0, nb = 0;
    for (size_t i = 0; i < gp->n_input && nin < io->n_in; i++) {
        bool init = false;
        for (size_t k = 0; k < gp->n_initializer; k++) {
            init |= strcmp(gp->initializer[k]->name, gp->input[i]->name) == 0;
        }
        if (init) {
            continue;
        }
        if (io->c_in[nin]) {
            nb += bind_container(gp->input[i], io, nin, &ib[nb]);
            nin++;
            continue;
        }
        const Onnx__TensorProto *t = io->in[nin++];
        if (!fits_declared(gp->input[i], t)) {
            continue; /* bound by its declaration alone */
        }
        ib[nb].name = gp->input[i]->name;
        ib[nb].rank = (int)t->n_dims;
        ib[nb].dims = t->dims;
        nb++;
        vb[o->n_tensor_values].name = gp->input[i]->name;
        int64_t n = numel(t);
        double *xs = n <= VALUE_LIMIT ? tensor_doubles(t, data_type_for(gp->input[i], t), n) : NULL;
        if (xs) {
            vb[o->n_tensor_values].values = xs;
            vb[o->n_tensor_values].n_values = (size_t)n;
            o->n_tensor_values++;
        }
    }
    if (nin != io->n_in) {
        snprintf(res->why, sizeof res->why, "%zu input tensors for %zu graph inputs", io->n_in,
                 nin);
        return -1;
    }
    o->inputs = ib;
    o->n_inputs = nb;
    o->tensor_values = vb;
    return 0;
}

/* A sequence output: the engine's description of it (sequence.h) must list
 * exactly the expected elements, each of the expected dtype and shape. */
static void check_sequence(fl_ctx *c, const fl_tensor *t, const container *want, size_t k,
                           case_result *res) {
    fl_ox_seq d;
    if (want->kind != 1) {
        snprintf(res->why, sizeof res->why, "output %zu: an optional tensor, not compared", k);
        res->pass = 0;
        return;
    }
    if (fl__ox_seq_describe(c, t->producer, &d) != FL_OK || !d.known || d.n < 0) {
        snprintf(res->why, sizeof res->why, "output %zu: a sequence of %zu elements, got %s", k,
                 want->n, d.known ? "an unlisted one" : "an unknown one");
        res->pass = 0;
        return;
    }
    if ((size_t)d.n != want->n) {
        snprintf(res->why, sizeof res->why, "output %zu: %d elements, want %zu", k, d.n, want->n);
        res->pass = 0;
        return;
    }
    for (size_t i = 0; i < want->n && res->pass; i++) {
        const Onnx__TensorProto *w = want->t[i];
        bool same = d.dtype == (int)fl__onnx_dtype(w->data_type) && d.e[i].rank == (int)w->n_dims;
        for (int x = 0; same && x < d.e[i].rank; x++) {
            same = fl_sym_is_known(d.e[i].d[x]) && d.e[i].d[x].k == w->dims[x];
        }
        if (!same) {
            snprintf(res->why, sizeof res->why, "output %zu: element %zu differs", k, i);
            res->pass = 0;
        }
    }
}

static void check_outputs(const Onnx__GraphProto *gp, fl_ctx *ctx, const io_set *io,
                          case_result *res) {
    const fl_graph *g = ctx->g;
    res->pass = 1;
    for (size_t k = 0; k < gp->n_output && k < io->n_out && res->pass; k++) {
        const Onnx__TensorProto *want = io->out[k];
        const fl_tensor *t = find_value(g, gp->output[k]->name);
        if (io->c_out[k]) {
            if (t) {
                check_sequence(ctx, t, &io->cout[k], k, res);
            } else {
                snprintf(res->why, sizeof res->why, "output %zu not found", k);
                res->pass = 0;
            }
            continue;
        }
        char got_s[160], want_s[160];
        proto_text(want_s, sizeof want_s, want);
        if (!t) {
            snprintf(res->why, sizeof res->why, "output %zu not found", k);
            res->pass = 0;
            break;
        }
        shape_text(got_s, sizeof got_s, t);
        int want_dt = data_type_for(gp->output[k], want);
        bool same = t->dtype == fl__onnx_dtype(want_dt) && t->shape.rank == (int)want->n_dims;
        for (int d = 0; same && d < t->shape.rank; d++) {
            same = fl_sym_is_known(t->shape.dims[d]) && t->shape.dims[d].k == want->dims[d];
        }
        if (!same) {
            snprintf(res->why, sizeof res->why, "output %zu: got %s, want %s", k, got_s, want_s);
            res->pass = 0;
        } else if (t->value) {
            int c = compare_value(t->value, want, want_dt);
            if (c == 0 &&
                bf16_rounding_only(t->value, want, want_dt, io->n_in ? io->in[0] : NULL)) {
                res->bf16_rounding++;
            } else if (c == 0) {
                snprintf(res->why, sizeof res->why, "output %zu: evaluated value differs", k);
                res->pass = 0;
            }
            res->values_checked += c == 1;
        }
    }
}

/* A failing case is listed under the op of its first node (in topological
 * order) with an output of unknown dtype or rank: in the function-expanded
 * cases that is the op that needs work, not the case's namesake. */
static void blame(const fl_graph *g, case_result *res) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->order[i];
        for (int k = 0; k < n->n_outputs; k++) {
            if (n->outputs[k].dtype == FL_DT_INVALID || n->outputs[k].shape.rank < 0) {
                snprintf(res->op, sizeof res->op, "%s", n->op);
                return;
            }
        }
    }
}

static void run_model(const Onnx__GraphProto *gp, const unsigned char *buf, size_t len, io_set *io,
                      case_result *res) {
    fl_options o;
    fl_options_init(&o);
    fl_input_binding ib[MAX_IO];
    fl_tensor_value_binding vb[MAX_IO];
    memset(vb, 0, sizeof vb);
    if (bind_all(gp, io, &o, ib, vb, res) == 0) {
        fl_arena arena;
        fl__arena_init(&arena, 0);
        fl_diag d;
        fl__diag_init(&d, &arena);
        fl_graph *g = fl__graph_new(&arena);
        fl_ctx c = {g, g ? g->syms : NULL, &arena, &d, o.max_value_elements};
        fl_import_opts io_opts = {o.max_nodes, o.max_value_elements, NULL};
        fl_infer_result ir = {0, 0};
        fl_status st = g ? fl__import_onnx(g, buf, len, &io_opts, &d) : FL_ENOMEM;
        if (st == FL_OK) {
            st = fl__graph_toposort(g, &d);
        }
        if (st == FL_OK) {
            st = fl__infer_shapes(&c, &o, &ir);
        }
        if (st != FL_OK) {
            snprintf(res->why, sizeof res->why, "%s", d.msg ? d.msg : fl_status_str(st));
        } else {
            check_outputs(gp, &c, io, res);
            if (!res->pass) {
                blame(g, res);
            }
        }
        fl__arena_free(&arena);
    }
    for (size_t i = 0; i < o.n_tensor_values; i++) {
        free((void *)vb[i].values);
    }
}

static bool load_io(const char *dir, const Onnx__GraphProto *gp, io_set *io) {
    char path[1200];
    for (io->n_in = 0; io->n_in < MAX_IO; io->n_in++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%zu.pb", dir, io->n_in);
        if (!(io->in[io->n_in] = read_tensor(path))) {
            break;
        }
    }
    for (io->n_out = 0; io->n_out < MAX_IO; io->n_out++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%zu.pb", dir, io->n_out);
        if (!(io->out[io->n_out] = read_tensor(path))) {
            break;
        }
    }
    return io->n_out == gp->n_output;
}

/* As load_io for a case with sequence or optional inputs or outputs: each
 * file read as its graph value declares (initializers have none). */
static bool load_io_containers(const char *dir, const Onnx__GraphProto *gp, io_set *io) {
    char path[1200];
    for (size_t i = 0; i < gp->n_input && io->n_in < MAX_IO; i++) {
        bool init = false;
        for (size_t k = 0; k < gp->n_initializer; k++) {
            init |= strcmp(gp->initializer[k]->name, gp->input[i]->name) == 0;
        }
        if (init) {
            continue;
        }
        size_t k = io->n_in;
        int kind = value_kind(gp->input[i]);
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%zu.pb", dir, k);
        io->c_in[k] = kind > 0;
        io->n_in++;
        if (kind > 0 ? !read_container(path, kind == 1, &io->cin[k])
                     : !(io->in[k] = read_tensor(path))) {
            return false;
        }
    }
    for (size_t i = 0; i < gp->n_output && io->n_out < MAX_IO; i++) {
        size_t k = io->n_out++;
        int kind = value_kind(gp->output[i]);
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%zu.pb", dir, k);
        io->c_out[k] = kind > 0;
        if (kind > 0 ? !read_container(path, kind == 1, &io->cout[k])
                     : !(io->out[k] = read_tensor(path))) {
            return false;
        }
    }
    return io->n_out == gp->n_output;
}

static void run_case(const char *dir, case_result *res) {
    memset(res, 0, sizeof *res);
    res->pass = -1;
    char path[1200];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    size_t len;
    unsigned char *buf = read_all(path, &len);
    Onnx__ModelProto *m = buf ? onnx__model_proto__unpack(NULL, len, buf) : NULL;
    if (!m || !m->graph) {
        snprintf(res->op, sizeof res->op, "?");
        snprintf(res->why, sizeof res->why, "model.onnx unreadable");
        res->pass = 0;
    } else {
        const Onnx__GraphProto *gp = m->graph;
        snprintf(res->op, sizeof res->op, "%s", gp->n_node ? gp->node[0]->op_type : "?");
        for (size_t i = 0; i < gp->n_node; i++) {
            if (strcmp(gp->node[i]->op_type, "Constant") != 0) {
                snprintf(res->op, sizeof res->op, "%s", gp->node[i]->op_type);
                break;
            }
        }
        bool tensors = true, containers = true;
        for (size_t i = 0; i < gp->n_input; i++) {
            tensors &= is_tensor_vi(gp->input[i]);
            containers &= value_kind(gp->input[i]) >= 0;
        }
        for (size_t i = 0; i < gp->n_output; i++) {
            tensors &= is_tensor_vi(gp->output[i]);
            containers &= value_kind(gp->output[i]) >= 0;
        }
        io_set *io = calloc(1, sizeof *io);
        if (io && tensors && load_io(dir, gp, io)) {
            res->pass = 0;
            run_model(gp, buf, len, io, res);
        } else if (io && !tensors && containers) {
            res->container = 1;
            res->pass = 0;
            if (load_io_containers(dir, gp, io)) {
                run_model(gp, buf, len, io, res);
            } else {
                snprintf(res->why, sizeof res->why, "test data unreadable");
            }
        }
        if (io) {
            io_free(io);
            free(io);
        }
    }
    if (m) {
        onnx__model_proto__free_unpacked(m, NULL);
    }
    free(buf);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct failure {
    const char *op;
    const char *name;
    const char *why;
} failure;

static int cmp_failure(const void *a, const void *b) {
    const failure *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    return c ? c : strcmp(x->name, y->name);
}

/* The floor file's `which`-th number (0: tensor cases, 1: sequence and
 * optional cases); -1 when absent. */
static long read_floor(int which) {
    FILE *f = fopen(FL_TEST_DATA_DIR "/onnx_node_floor.txt", "r");
    long v = -1;
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            if (line[0] != '#' && sscanf(line, "%ld", &v) == 1 && which-- == 0) {
                break;
            }
            v = -1;
        }
        fclose(f);
    }
    return v;
}

/* Prints the failures grouped by op. */
static void report_failures(failure *fails, size_t n_fail) {
    qsort(fails, n_fail, sizeof *fails, cmp_failure);
    for (size_t i = 0; i < n_fail;) {
        size_t j = i;
        while (j < n_fail && strcmp(fails[j].op, fails[i].op) == 0) {
            j++;
        }
        printf("FAIL %s (%zu):\n", fails[i].op, j - i);
        for (; i < j; i++) {
            printf("    %s: %s\n", fails[i].name, fails[i].why);
        }
    }
}

int main(void) {
    const char *root = getenv("FL_ONNX_NODE_DIR");
    if (!root || !*root) {
        root = FL_ONNX_NODE_DIR;
    }
    DIR *dh = opendir(root);
    if (!dh) {
        printf("SKIP: ONNX backend node cases not found at %s (install libonnx-testdata)\n", root);
        return 77;
    }
    char **names = calloc(MAX_CASES, sizeof(char *));
    size_t n_names = 0;
    struct dirent *e;
    while ((e = readdir(dh)) && n_names < MAX_CASES) {
        if (strncmp(e->d_name, "test_", 5) == 0) {
            names[n_names++] = strdup(e->d_name);
        }
    }
    closedir(dh);
    qsort(names, n_names, sizeof(char *), cmp_str);
    failure *fails = calloc(n_names + 1, sizeof *fails);
    size_t n_fail = 0, n_tensor = 0, n_pass = 0, n_values = 0, n_bf16 = 0;
    size_t n_cont = 0, n_cont_pass = 0;
    for (size_t i = 0; i < n_names; i++) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        case_result r;
        run_case(dir, &r);
        if (r.pass < 0) {
            continue;
        }
        n_cont += (size_t)r.container;
        n_cont_pass += (size_t)(r.container && r.pass);
        n_tensor += (size_t)!r.container;
        n_values += (size_t)r.values_checked;
        n_bf16 += (size_t)r.bf16_rounding;
        if (r.pass) {
            n_pass += (size_t)!r.container;
        } else {
            fails[n_fail].op = strdup(r.op);
            fails[n_fail].name = names[i];
            fails[n_fail++].why = strdup(r.why);
        }
    }
    report_failures(fails, n_fail);
    long floor_v = read_floor(0), floor_c = read_floor(1);
    printf("onnx node cases: %zu of %zu tensor cases with exact output dtypes and shapes "
           "(%.1f %%), %zu evaluated outputs equal the expected values; floor %ld\n",
           n_pass, n_tensor, n_tensor ? 100.0 * (double)n_pass / (double)n_tensor : 0.0, n_values,
           floor_v);
    printf("onnx node cases with sequence or optional values: %zu of %zu with exact outputs "
           "(sequences: every element's dtype and shape); floor %ld\n",
           n_cont_pass, n_cont, floor_c);
    printf("onnx node cases: %zu evaluated outputs round FLOAT to BFLOAT16 to nearest even where "
           "the data truncates (checked element by element against the input)\n",
           n_bf16);
    for (size_t i = 0; i < n_fail; i++) {
        free((void *)fails[i].op);
        free((void *)fails[i].why);
    }
    for (size_t i = 0; i < n_names; i++) {
        free(names[i]);
    }
    free(fails);
    free(names);
    if (floor_v < 0 || floor_c < 0) {
        printf("FAIL: no floors in tests/data/onnx_node_floor.txt\n");
        return 1;
    }
    return (long)n_pass >= floor_v && (long)n_cont_pass >= floor_c ? 0 : 1;
}
