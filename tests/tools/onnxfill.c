/*
 * onnxfill.c - makes a weight-stripped ONNX model runnable.
 *
 *     fl_onnxfill IN.onnx OUT.onnx [--seed N] [--ints] [--float-data]
 *
 * A stripped model (the corpus's `*.stripped.onnx`) keeps every tensor's
 * name, dims and data_type but leaves the content of large float tensors
 * empty, so no runtime can execute it. This tool fills every tensor that has
 * elements but no data at all (graph initializers, Constant nodes' `value`,
 * tensor attributes of any node, subgraphs included) with deterministic
 * pseudo-random values of the right size in raw_data, and writes the model
 * back. Everything else (graph, attributes, intact tensors, unknown fields) is
 * kept as read.
 *
 * Values: a xorshift64* stream seeded by --seed (default 1) and the tensor's
 * name, so a tensor's contents depend on nothing else. They are small enough
 * that activations stay finite through deep networks:
 *  - rank >= 2 (weights, embeddings): uniform in +-sqrt(3 / fan), variance
 *    1/fan, fan = prod(dims[1:]) (a conv's C_in/group * kernel), for rank 2
 *    the larger of the two dims (Gemm and MatMul store K on either side);
 *  - rank <= 1 (biases, batch-norm scale/bias/mean/var, norms' gamma/beta):
 *    uniform in [0.5, 1), positive so a batch-norm variance is valid.
 * float, double, float16 and bfloat16 are generated; any other element type
 * without data is zero-filled and reported, unless --ints (for quantized
 * graphs, whose stripped tensors are int8 weights, int32 biases and
 * per-channel scales; a zero-weight network computes only zeros):
 *  - int8, uint8, int16 and uint16 uniform over the type's whole range (a
 *    quantizer spreads each channel's weights over it), int32 uniform in
 *    [-1024, 1023] (a bias at scale x_scale * w_scale, a few hundredths in
 *    float);
 *  - a float tensor that is the scale (input 1) of a QuantizeLinear or
 *    DequantizeLinear of the same graph: uniform in [2^-11, 2^-10), so an
 *    int8 weight's float value has a standard deviation of 0.02 to 0.04,
 *    the He initialisation's sqrt(2 / fan) for fans of about 1,000 to 5,000
 *    (the stripped scales are those of layers with more than 256 channels).
 *
 * --float-data writes float and double tensors' values in float_data and
 * double_data (packed runs) instead of raw_data, as some exporters do.
 *
 * The model's metadata entry weights_stripped=true becomes
 * weights_stripped=false and weights_filled=fl_onnxfill seed N is added.
 * Exit status: 0 on success, 1 on an invalid model, 2 on a usage error, 3 on
 * an I/O error or out of memory.
 */
#include "onnx/onnx.pb-c.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fill_stats {
    size_t filled;       /* tensors generated */
    size_t zeroed;       /* tensors of other element types zero-filled */
    uint64_t bytes;      /* bytes written into raw_data */
    uint64_t seed;       /* --seed */
    bool ints;           /* --ints */
    bool typed;          /* --float-data */
    bool in_scale;       /* filling the value of a Constant node whose output is a scale */
    const char **scales; /* names of Q/DQ scale inputs of the graph being filled (--ints) */
    size_t n_scales;
    bool oom;
} fill_stats;

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* xorshift64*: a uniform double in [0, 1). */
static double next_u(uint64_t *st) {
    uint64_t x = *st;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *st = x;
    return (double)((x * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static uint16_t to_half(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    int32_t e = (int32_t)((u >> 23) & 0xff) - 127 + 15;
    uint32_t m = u & 0x7fffffu;
    if (e <= 0) {
        return (uint16_t)sign; /* |f| < 2^-14: flush (the values here are larger) */
    }
    if (e >= 31) {
        return (uint16_t)(sign | 0x7bffu); /* clamp to the largest finite half */
    }
    return (uint16_t)(sign | ((uint32_t)e << 10) | (m >> 13));
}

static size_t elem_size(int32_t t) {
    switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
        return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64:
        return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128:
        return 16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
        return 2;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FN:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FNUZ:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2FNUZ:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0:
        return 1;
    default:
        return 0; /* strings, packed 4-bit types: never stripped here */
    }
}

static bool is_scale(const fill_stats *s, const char *name) {
    for (size_t i = 0; name && i < s->n_scales; i++) {
        if (strcmp(s->scales[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* --ints: the integer range of type dt, false for other types. */
static bool int_range(int32_t dt, double *lo, double *hi) {
    switch (dt) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
        *lo = -128, *hi = 127;
        return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
        *lo = 0, *hi = 255;
        return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
        *lo = -32768, *hi = 32767;
        return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
        *lo = 0, *hi = 65535;
        return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        *lo = -1024, *hi = 1023;
        return true;
    default:
        return false;
    }
}

/* Integer element i of buf (type dt, size es) set to v. */
static void put_int(uint8_t *buf, size_t es, uint64_t i, int64_t v) {
    if (es == 1) {
        buf[i] = (uint8_t)v;
    } else if (es == 2) {
        uint16_t u = (uint16_t)v;
        memcpy(buf + 2 * i, &u, 2);
    } else {
        uint32_t u = (uint32_t)v;
        memcpy(buf + 4 * i, &u, 4);
    }
}

static bool has_data(const Onnx__TensorProto *t) {
    return t->raw_data.len || t->n_float_data || t->n_int32_data || t->n_string_data ||
           t->n_int64_data || t->n_double_data || t->n_uint64_data;
}

/* Fills one tensor when it has elements but no data. Returns false on an
 * invalid tensor (message printed). */
static bool fill_tensor(Onnx__TensorProto *t, fill_stats *s) {
    if (!t || has_data(t) ||
        (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
        return true;
    }
    uint64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0 || (t->dims[i] && n > (UINT64_MAX >> 8) / (uint64_t)t->dims[i])) {
            fprintf(stderr, "onnxfill: tensor '%s': invalid dims\n", t->name ? t->name : "");
            return false;
        }
        n *= (uint64_t)t->dims[i];
    }
    size_t es = elem_size(t->data_type);
    if (n == 0 || es == 0) {
        return true;
    }
    uint8_t *buf = malloc((size_t)(n * es));
    if (!buf) {
        s->oom = true;
        return false;
    }
    int32_t dt = t->data_type;
    bool gen = dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ||
               dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ||
               dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
               dt == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
    double ilo, ihi;
    uint64_t st = (s->seed * 0x9E3779B97F4A7C15ull) ^ fnv1a(t->name);
    if (st == 0) {
        st = 0x2545F4914F6CDD1Dull;
    }
    if (!gen && s->ints && int_range(dt, &ilo, &ihi)) {
        for (uint64_t i = 0; i < n; i++) {
            put_int(buf, es, i, (int64_t)floor(ilo + (ihi - ilo + 1) * next_u(&st)));
        }
        s->filled++;
    } else if (!gen) {
        memset(buf, 0, (size_t)(n * es));
        fprintf(stderr, "onnxfill: note: tensor '%s' (data_type %d) zero-filled\n",
                t->name ? t->name : "", (int)dt);
        s->zeroed++;
    } else {
        double lo, hi;
        if (s->ints && (s->in_scale || is_scale(s, t->name))) {
            lo = ldexp(1.0, -11);
            hi = ldexp(1.0, -10);
        } else if (t->n_dims >= 2) {
            uint64_t fan = 1;
            for (size_t i = 1; i < t->n_dims; i++) {
                fan *= (uint64_t)t->dims[i];
            }
            if (t->n_dims == 2 && (uint64_t)t->dims[0] > fan) {
                fan = (uint64_t)t->dims[0];
            }
            hi = sqrt(3.0 / (double)(fan ? fan : 1));
            lo = -hi;
        } else {
            lo = 0.5;
            hi = 1.0;
        }
        for (uint64_t i = 0; i < n; i++) {
            double v = lo + (hi - lo) * next_u(&st);
            float f = (float)v;
            if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
                memcpy(buf + 4 * i, &f, 4); /* little-endian host, as ONNX stores */
            } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
                memcpy(buf + 8 * i, &v, 8);
            } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {
                uint16_t h = to_half(f);
                memcpy(buf + 2 * i, &h, 2);
            } else {
                uint32_t u;
                memcpy(&u, &f, 4);
                uint16_t b = (uint16_t)(u >> 16);
                memcpy(buf + 2 * i, &b, 2);
            }
        }
        s->filled++;
    }
    if (s->typed && dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
        t->float_data = (float *)(void *)buf; /* malloc's: aligned */
        t->n_float_data = (size_t)n;
    } else if (s->typed && dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
        t->double_data = (double *)(void *)buf;
        t->n_double_data = (size_t)n;
    } else {
        t->raw_data.data = buf;
        t->raw_data.len = (size_t)(n * es);
        t->has_raw_data = 1;
    }
    s->bytes += n * es;
    return true;
}

static bool fill_graph(Onnx__GraphProto *g, fill_stats *s, int depth);

static bool fill_attr(Onnx__AttributeProto *a, fill_stats *s, int depth) {
    if (!fill_tensor(a->t, s)) {
        return false;
    }
    for (size_t i = 0; i < a->n_tensors; i++) {
        if (!fill_tensor(a->tensors[i], s)) {
            return false;
        }
    }
    if (a->g && !fill_graph(a->g, s, depth + 1)) {
        return false;
    }
    for (size_t i = 0; i < a->n_graphs; i++) {
        if (!fill_graph(a->graphs[i], s, depth + 1)) {
            return false;
        }
    }
    return true;
}

/* --ints: the names of the scale inputs of g's QuantizeLinear and
 * DequantizeLinear nodes, in a new list that also holds the enclosing
 * graphs' names. */
static bool collect_scales(const Onnx__GraphProto *g, fill_stats *s) {
    size_t n = s->n_scales;
    const char **v = malloc((n + g->n_node + 1) * sizeof(*v));
    if (!v) {
        s->oom = true;
        return false;
    }
    if (n) {
        memcpy(v, s->scales, n * sizeof(*v));
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        if (nd->op_type && nd->n_input >= 2 &&
            (strcmp(nd->op_type, "QuantizeLinear") == 0 ||
             strcmp(nd->op_type, "DequantizeLinear") == 0)) {
            v[n++] = nd->input[1];
        }
    }
    s->scales = v;
    s->n_scales = n;
    return true;
}

static bool fill_graph(Onnx__GraphProto *g, fill_stats *s, int depth) {
    if (!g) {
        return true;
    }
    if (depth > 64) {
        fprintf(stderr, "onnxfill: subgraphs nested more than 64 deep\n");
        return false;
    }
    const char **outer = s->scales;
    size_t n_outer = s->n_scales;
    if (s->ints && !collect_scales(g, s)) {
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < g->n_initializer; i++) {
        ok = fill_tensor(g->initializer[i], s);
    }
    for (size_t i = 0; ok && i < g->n_node; i++) {
        Onnx__NodeProto *nd = g->node[i];
        s->in_scale = s->ints && nd->op_type && strcmp(nd->op_type, "Constant") == 0 &&
                      nd->n_output == 1 && is_scale(s, nd->output[0]);
        for (size_t k = 0; ok && k < nd->n_attribute; k++) {
            ok = fill_attr(nd->attribute[k], s, depth);
        }
        s->in_scale = false;
    }
    if (s->scales != outer) {
        free(s->scales);
    }
    s->scales = outer;
    s->n_scales = n_outer;
    return ok;
}

/* weights_stripped=true -> false; appends weights_filled. Every string set
 * here is malloc'd, as protobuf-c's free_unpacked expects. */
static bool mark_filled(Onnx__ModelProto *m, fill_stats *s) {
    for (size_t i = 0; i < m->n_metadata_props; i++) {
        Onnx__StringStringEntryProto *e = m->metadata_props[i];
        if (e->key && strcmp(e->key, "weights_stripped") == 0) {
            char *v = malloc(sizeof "false");
            if (!v) {
                s->oom = true;
                return false;
            }
            memcpy(v, "false", sizeof "false");
            free(e->value);
            e->value = v;
        }
    }
    Onnx__StringStringEntryProto **v =
        realloc(m->metadata_props, (m->n_metadata_props + 1) * sizeof(*v));
    if (!v) {
        s->oom = true;
        return false;
    }
    m->metadata_props = v;
    Onnx__StringStringEntryProto *e = malloc(sizeof(*e));
    char *key = malloc(sizeof "weights_filled"), *val = malloc(64);
    if (!e || !key || !val) {
        free(e);
        free(key);
        free(val);
        s->oom = true;
        return false;
    }
    onnx__string_string_entry_proto__init(e);
    memcpy(key, "weights_filled", sizeof "weights_filled");
    snprintf(val, 64, "fl_onnxfill seed %llu", (unsigned long long)s->seed);
    e->key = key;
    e->value = val;
    v[m->n_metadata_props++] = e;
    return true;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            break;
        }
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    fill_stats s = {0};
    s.seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            s.seed = strtoull(argv[++i], &end, 10);
            if (*end) {
                fprintf(stderr, "onnxfill: --seed wants an integer\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--ints") == 0) {
            s.ints = true;
        } else if (strcmp(argv[i], "--float-data") == 0) {
            s.typed = true;
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            in = NULL;
            break;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "usage: fl_onnxfill IN.onnx OUT.onnx [--seed N] [--ints] [--float-data]\n");
        return 2;
    }
    size_t len;
    uint8_t *buf = read_file(in, &len);
    if (!buf) {
        fprintf(stderr, "onnxfill: cannot read %s\n", in);
        return 3;
    }
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    if (!m) {
        fprintf(stderr, "onnxfill: %s is not an ONNX ModelProto\n", in);
        return 1;
    }
    bool ok = fill_graph(m->graph, &s, 0) && mark_filled(m, &s);
    int rc = 0;
    if (!ok) {
        rc = s.oom ? 3 : 1;
        fprintf(stderr, "onnxfill: %s\n", s.oom ? "out of memory" : "invalid model");
    } else {
        size_t olen = onnx__model_proto__get_packed_size(m);
        uint8_t *obuf = malloc(olen ? olen : 1);
        FILE *f = obuf ? fopen(out, "wb") : NULL;
        if (!obuf) {
            fprintf(stderr, "onnxfill: out of memory\n");
            rc = 3;
        } else if (!f || onnx__model_proto__pack(m, obuf) != olen ||
                   fwrite(obuf, 1, olen, f) != olen) {
            fprintf(stderr, "onnxfill: cannot write %s\n", out);
            rc = 3;
        }
        if (f && fclose(f) != 0 && rc == 0) {
            fprintf(stderr, "onnxfill: cannot write %s\n", out);
            rc = 3;
        }
        free(obuf);
        if (rc == 0) {
            printf("onnxfill: %s: filled %zu tensors (%llu bytes)%s -> %s\n", in, s.filled,
                   (unsigned long long)s.bytes, s.zeroed ? ", some zero-filled" : "", out);
        }
    }
    onnx__model_proto__free_unpacked(m, NULL);
    return rc;
}
