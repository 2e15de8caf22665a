/*
 * fuzz_onnx_struct.c - libFuzzer target: ONNX models mutated field by field,
 * through the whole analysis (analyze_run.h, the invariants fuzz_analyze
 * checks).
 *
 * Byte-level mutation of a model rarely keeps it valid while putting an
 * extreme value exactly where a shape or cost rule reads it. This target's
 * LLVMFuzzerCustomMutator decodes the input as an ONNX ModelProto (the
 * protobuf-c code of proto/onnx/onnx.proto), applies one to three of the
 * structural mutations below to the model or to a subgraph of one of its
 * nodes (If/Loop/Scan bodies), and encodes it again:
 *
 *   - an INT attr, or one element of an INTS attr, set to a value of
 *     `extremes` (0, +-1, 2, the int32 and int64 limits, 2^31, 2^32, 2^62,
 *     ...), a small value, or its old value nudged;
 *   - an INTS attr one element shorter or longer (one dropped or repeated);
 *   - a graph input's, output's or value_info's dim set to such a value,
 *     turned into a dim_param (or back), dropped or repeated; its element
 *     type changed;
 *   - an initializer's or a tensor attr's (Constant) dims set, dropped or
 *     repeated; its data_type changed;
 *   - an element of an int64 or int32 tensor (shapes, axes, pads, starts...)
 *     set to such a value, or a rank-1 one grown or shrunk by one element;
 *   - a node's op_type swapped for another op of its domain that the op
 *     registry (src/ops/ops.def) knows and that takes its input count;
 *   - a node input dropped, repeated or made absent ("");
 *   - an opset_import's version changed.
 *
 * An input that does not decode, one with nothing to mutate, and one in 16
 * inputs that do, go to libFuzzer's own byte mutations (LLVMFuzzerMutate)
 * instead, so the target still explores the importer's handling of broken
 * bytes. Seeds: the ONNX models of tests/data (the ortsweep cases cover
 * most op rules) and the corpus.
 *
 * In the ordinary build (replay.c) only LLVMFuzzerTestOneInput runs; the
 * mutator is compiled there too (LLVMFuzzerMutate is then a null weak
 * symbol, never called).
 */
#include "analyze_run.h"
#include "fuzz.h"
#include "onnx/onnx.pb-c.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_analyze_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_analyze_input(data, size);
    return 0;
}

/* ---- random numbers (splitmix64, seeded by libFuzzer's seed) ---- */

typedef struct {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
static size_t below(rng *r, size_t n) {
    return (size_t)(rnd(r) % n);
}

/* Values the shape and cost rules must survive. */
static const int64_t extremes[] = {
    0,
    1,
    -1,
    2,
    3,
    -2,
    INT32_MAX,
    INT32_MIN,
    (int64_t)INT32_MAX + 1, /* 2^31 */
    (int64_t)UINT32_MAX,    /* 2^32 - 1 */
    (int64_t)1 << 32,       /* 2^32 */
    ((int64_t)1 << 32) + 1, /* 2^32 + 1 */
    3037000500,             /* just above sqrt(2^63): its square overflows */
    (int64_t)1 << 40,       /* 2^40 */
    (int64_t)1 << 53,       /* 2^53 */
    (int64_t)1 << 62,       /* 2^62 = INT64_MAX / 2 + 1 */
    -((int64_t)1 << 62),    /* -2^62 */
    ((int64_t)1 << 62) - 1, /* 2^62 - 1 */
    INT64_MAX / 3 + 1,      /* x3 overflows */
    INT64_MAX - 1,
    INT64_MAX,
    INT64_MIN,
    INT64_MIN + 1,
};

static int64_t pick_value(rng *r, int64_t old) {
    switch (below(r, 8)) {
    case 0:
    case 1:
    case 2:
    case 3:
        return extremes[below(r, sizeof extremes / sizeof extremes[0])];
    case 4:
    case 5:
        return (int64_t)below(r, 21) - 4; /* -4 .. 16 */
    case 6: /* nudged: +-1, +-2 (wrapping, as an attacker's value would) */
        return (int64_t)((uint64_t)old + (uint64_t)((int64_t)below(r, 5) - 2));
    default: /* doubled or halved */
        return below(r, 2) ? (int64_t)((uint64_t)old * 2u) : old / 2;
    }
}

/* ONNX element types, a few invalid ones among them. */
static int32_t pick_dtype(rng *r) {
    static const int32_t t[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 0,  25, -1, INT32_MAX};
    return t[below(r, sizeof t / sizeof t[0])];
}

/* ---- the op registry's ONNX op names ---- */

typedef struct {
    const char *name; /* "onnx::Conv", "com.microsoft::Attention", ... */
    int min_in, max_in;
} op_row;

#define FL_OP(e, name, family, min_in, max_in, ...) {name, min_in, max_in},
static const op_row ops[] = {
#include "ops/ops.def"
};
#undef FL_OP
#define N_OPS (sizeof ops / sizeof ops[0])

/* ---- mutation sites, collected over the model and its subgraphs ---- */

typedef struct {
    void **p;
    size_t n, cap;
} vec;

static bool vec_push(vec *v, void *x) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        void **np = realloc(v->p, cap * sizeof *np);
        if (!np) {
            return false;
        }
        v->p = np;
        v->cap = cap;
    }
    v->p[v->n++] = x;
    return true;
}

enum { S_INT, S_INTS, S_SHAPE, S_TYPE, S_TENSOR, S_NODE, S_N };

typedef struct {
    vec v[S_N]; /* attrs (INT), attrs (INTS), shapes, tensor types, tensors, nodes */
} sites;

static void collect_graph(sites *s, Onnx__GraphProto *g, int depth);

static void collect_type(sites *s, Onnx__TypeProto *t, int depth) {
    if (!t || depth > 8) {
        return;
    }
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        vec_push(&s->v[S_TYPE], t->tensor_type);
        if (t->tensor_type->shape) {
            vec_push(&s->v[S_SHAPE], t->tensor_type->shape);
        }
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        collect_type(s, t->sequence_type->elem_type, depth + 1);
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        collect_type(s, t->optional_type->elem_type, depth + 1);
        break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        collect_type(s, t->map_type->value_type, depth + 1);
        break;
    default:
        break;
    }
}

static void collect_values(sites *s, Onnx__ValueInfoProto **v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        collect_type(s, v[i]->type, 0);
    }
}

static void collect_graph(sites *s, Onnx__GraphProto *g, int depth) {
    if (!g || depth > 8) {
        return;
    }
    collect_values(s, g->input, g->n_input);
    collect_values(s, g->output, g->n_output);
    collect_values(s, g->value_info, g->n_value_info);
    for (size_t i = 0; i < g->n_initializer; i++) {
        vec_push(&s->v[S_TENSOR], g->initializer[i]);
    }
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        vec_push(&s->v[S_NODE], n);
        for (size_t k = 0; k < n->n_attribute; k++) {
            Onnx__AttributeProto *a = n->attribute[k];
            if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT || a->has_i) {
                vec_push(&s->v[S_INT], a);
            }
            if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS || a->n_ints) {
                vec_push(&s->v[S_INTS], a);
            }
            if (a->t) {
                vec_push(&s->v[S_TENSOR], a->t);
            }
            for (size_t j = 0; j < a->n_tensors; j++) {
                vec_push(&s->v[S_TENSOR], a->tensors[j]);
            }
            collect_graph(s, a->g, depth + 1);
            for (size_t j = 0; j < a->n_graphs; j++) {
                collect_graph(s, a->graphs[j], depth + 1);
            }
        }
    }
}

/* ---- array edits (protobuf-c's default allocator is malloc/free) ---- */

/* Removes element i of an array of n elements of `size` bytes. */
static void drop_at(void *arr, size_t *n, size_t size, size_t i) {
    char *a = arr;
    memmove(a + i * size, a + (i + 1) * size, (*n - i - 1) * size);
    (*n)--;
}

/* Inserts a copy of element `from` at i (the array grown by realloc). */
static bool dup_at(void **arr, size_t *n, size_t size, size_t from, size_t i) {
    char *a = realloc(*arr, (*n + 1) * size);
    if (!a) {
        return false;
    }
    char tmp[16];
    memcpy(tmp, a + from * size, size);
    memmove(a + (i + 1) * size, a + i * size, (*n - i) * size);
    memcpy(a + i * size, tmp, size);
    *arr = a;
    (*n)++;
    return true;
}

static char *dup_str(const char *s) {
    size_t len = strlen(s) + 1;
    char *d = malloc(len);
    if (d) {
        memcpy(d, s, len);
    }
    return d;
}

static void set_str(char **field, const char *v) {
    char *d = dup_str(v);
    if (!d) {
        return;
    }
    if (*field && *field != protobuf_c_empty_string) {
        free(*field);
    }
    *field = d;
}

/* ---- the mutations; each returns false when it had nothing to change ---- */

static bool mut_int(rng *r, Onnx__AttributeProto *a) {
    a->i = pick_value(r, a->i);
    a->has_i = 1;
    return true;
}

static bool mut_ints(rng *r, Onnx__AttributeProto *a) {
    unsigned how = (unsigned)below(r, 4);
    if (a->n_ints == 0 || how == 3) { /* a longer list */
        if (a->n_ints == 0) {
            int64_t *p = realloc(a->ints, sizeof *p);
            if (!p) {
                return false;
            }
            p[0] = pick_value(r, 1);
            a->ints = p;
            a->n_ints = 1;
            return true;
        }
        return dup_at((void **)&a->ints, &a->n_ints, sizeof *a->ints, below(r, a->n_ints),
                      below(r, a->n_ints + 1));
    }
    if (how == 2) { /* a shorter list */
        drop_at(a->ints, &a->n_ints, sizeof *a->ints, below(r, a->n_ints));
        return true;
    }
    size_t i = below(r, a->n_ints);
    a->ints[i] = pick_value(r, a->ints[i]);
    return true;
}

static Onnx__TensorShapeProto__Dimension *new_dim(int64_t v) {
    Onnx__TensorShapeProto__Dimension *d = malloc(sizeof *d);
    if (d) {
        onnx__tensor_shape_proto__dimension__init(d);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = v;
    }
    return d;
}

static bool mut_shape(rng *r, Onnx__TensorShapeProto *s) {
    unsigned how = (unsigned)below(r, 8);
    if (s->n_dim == 0 || how == 7) { /* one more dim */
        Onnx__TensorShapeProto__Dimension *d = new_dim(pick_value(r, 1));
        if (!d) {
            return false;
        }
        Onnx__TensorShapeProto__Dimension **p = realloc(s->dim, (s->n_dim + 1) * sizeof *p);
        if (!p) {
            free(d);
            return false;
        }
        size_t at = below(r, s->n_dim + 1);
        memmove(p + at + 1, p + at, (s->n_dim - at) * sizeof *p);
        p[at] = d;
        s->dim = p;
        s->n_dim++;
        return true;
    }
    size_t i = below(r, s->n_dim);
    Onnx__TensorShapeProto__Dimension *d = s->dim[i];
    if (how == 6) { /* one dim less */
        protobuf_c_message_free_unpacked(&d->base, NULL);
        drop_at(s->dim, &s->n_dim, sizeof *s->dim, i);
        return true;
    }
    bool is_param = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    if (is_param) {
        free(d->dim_param);
        d->dim_param = NULL;
    }
    if (how == 5 && !is_param) { /* a symbol; a few names, so dims share them */
        static const char *const names[] = {"N", "batch", "seq", "M"};
        d->dim_param = dup_str(names[below(r, 4)]);
        d->value_case = d->dim_param ? ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                     : ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
        return true;
    }
    int64_t old =
        d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : 1;
    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d->dim_value = pick_value(r, old);
    return true;
}

static bool mut_type(rng *r, Onnx__TypeProto__Tensor *t) {
    t->elem_type = pick_dtype(r);
    t->has_elem_type = 1;
    return true;
}

/* An int64 or int32 tensor's element i, wherever its values are. */
static size_t tensor_count(const Onnx__TensorProto *t, size_t *width) {
    *width = t->data_type == 7 ? 8 : t->data_type == 6 ? 4 : 0;
    if (!*width) {
        return 0;
    }
    if (t->has_raw_data && t->raw_data.len) {
        return t->raw_data.len / *width;
    }
    return *width == 8 ? t->n_int64_data : t->n_int32_data;
}

static int64_t tensor_get(const Onnx__TensorProto *t, size_t width, size_t i) {
    if (t->has_raw_data && t->raw_data.len) {
        if (width == 8) {
            int64_t v;
            memcpy(&v, t->raw_data.data + i * 8, 8);
            return v;
        }
        int32_t v;
        memcpy(&v, t->raw_data.data + i * 4, 4);
        return v;
    }
    return width == 8 ? t->int64_data[i] : t->int32_data[i];
}

static void tensor_set(Onnx__TensorProto *t, size_t width, size_t i, int64_t v) {
    if (t->has_raw_data && t->raw_data.len) {
        if (width == 8) {
            memcpy(t->raw_data.data + i * 8, &v, 8);
        } else {
            int32_t w = (int32_t)(uint32_t)(uint64_t)v;
            memcpy(t->raw_data.data + i * 4, &w, 4);
        }
    } else if (width == 8) {
        t->int64_data[i] = v;
    } else {
        t->int32_data[i] = (int32_t)(uint32_t)(uint64_t)v;
    }
}

/* A rank-1 int tensor one element longer (the last repeated) or shorter. */
static bool tensor_resize(rng *r, Onnx__TensorProto *t, size_t width, size_t n) {
    if (t->n_dims != 1 || t->dims[0] != (int64_t)n || n == 0) {
        return false;
    }
    bool grow = below(r, 2) == 0;
    if (t->has_raw_data && t->raw_data.len) {
        if (grow) {
            uint8_t *p = realloc(t->raw_data.data, (n + 1) * width);
            if (!p) {
                return false;
            }
            memcpy(p + n * width, p + (n - 1) * width, width);
            t->raw_data.data = p;
        }
        t->raw_data.len = (grow ? n + 1 : n - 1) * width;
    } else if (width == 8) {
        if (grow) {
            if (!dup_at((void **)&t->int64_data, &t->n_int64_data, 8, n - 1, n)) {
                return false;
            }
        } else {
            t->n_int64_data--;
        }
    } else {
        if (grow) {
            if (!dup_at((void **)&t->int32_data, &t->n_int32_data, 4, n - 1, n)) {
                return false;
            }
        } else {
            t->n_int32_data--;
        }
    }
    t->dims[0] = grow ? (int64_t)n + 1 : (int64_t)n - 1;
    return true;
}

static bool mut_tensor(rng *r, Onnx__TensorProto *t) {
    size_t width, n = tensor_count(t, &width);
    unsigned how = (unsigned)below(r, 10);
    if (n && how < 5) { /* a value */
        size_t i = below(r, n);
        tensor_set(t, width, i, pick_value(r, tensor_get(t, width, i)));
        return true;
    }
    if (n && how == 5 && tensor_resize(r, t, width, n)) {
        return true;
    }
    if (how == 6) {
        t->data_type = pick_dtype(r);
        t->has_data_type = 1;
        return true;
    }
    if (t->n_dims == 0 || how == 7) { /* one more dim */
        int64_t v = pick_value(r, 1);
        if (t->n_dims == 0) {
            int64_t *p = realloc(t->dims, sizeof *p);
            if (!p) {
                return false;
            }
            p[0] = v;
            t->dims = p;
            t->n_dims = 1;
            return true;
        }
        size_t at = below(r, t->n_dims + 1);
        if (!dup_at((void **)&t->dims, &t->n_dims, 8, below(r, t->n_dims), at)) {
            return false;
        }
        t->dims[at] = v;
        return true;
    }
    size_t i = below(r, t->n_dims);
    if (how == 8) {
        drop_at(t->dims, &t->n_dims, 8, i);
        return true;
    }
    t->dims[i] = pick_value(r, t->dims[i]);
    return true;
}

/* The registry prefix of a node's domain: "onnx::" for "" and "ai.onnx". */
static void domain_prefix(const Onnx__NodeProto *n, char *buf, size_t cap) {
    const char *d =
        n->domain && *n->domain && strcmp(n->domain, "ai.onnx") != 0 ? n->domain : "onnx";
    snprintf(buf, cap, "%s::", d);
}

static bool takes(const op_row *o, size_t n_in) {
    return (size_t)o->min_in <= n_in && (o->max_in < 0 || n_in <= (size_t)o->max_in);
}

static bool mut_op(rng *r, Onnx__NodeProto *n) {
    char pre[96];
    domain_prefix(n, pre, sizeof pre);
    size_t plen = strlen(pre), cnt = 0;
    for (size_t i = 0; i < N_OPS; i++) {
        if (strncmp(ops[i].name, pre, plen) == 0 && takes(&ops[i], n->n_input)) {
            cnt++;
        }
    }
    if (cnt == 0) {
        return false;
    }
    size_t k = below(r, cnt);
    for (size_t i = 0; i < N_OPS; i++) {
        if (strncmp(ops[i].name, pre, plen) == 0 && takes(&ops[i], n->n_input) && k-- == 0) {
            set_str(&n->op_type, ops[i].name + plen);
            return true;
        }
    }
    return false;
}

static bool mut_inputs(rng *r, Onnx__NodeProto *n) {
    if (n->n_input == 0) {
        return false;
    }
    size_t i = below(r, n->n_input);
    switch (below(r, 3)) {
    case 0: /* dropped */
        if (n->input[i] != protobuf_c_empty_string) {
            free(n->input[i]);
        }
        drop_at(n->input, &n->n_input, sizeof *n->input, i);
        return true;
    case 1: { /* repeated (another of the node's inputs, or the same) */
        char *d = dup_str(n->input[below(r, n->n_input)]);
        if (!d) {
            return false;
        }
        char **p = realloc(n->input, (n->n_input + 1) * sizeof *p);
        if (!p) {
            free(d);
            return false;
        }
        memmove(p + i + 1, p + i, (n->n_input - i) * sizeof *p);
        p[i] = d;
        n->input = p;
        n->n_input++;
        return true;
    }
    default: /* absent (an optional input left out) */
        set_str(&n->input[i], "");
        return true;
    }
}

static bool mut_opset(rng *r, Onnx__ModelProto *m) {
    if (m->n_opset_import == 0) {
        return false;
    }
    Onnx__OperatorSetIdProto *o = m->opset_import[below(r, m->n_opset_import)];
    o->version = below(r, 4) ? (int64_t)below(r, 26) : pick_value(r, o->version);
    o->has_version = 1;
    return true;
}

static bool mutate_once(rng *r, Onnx__ModelProto *m, sites *s) {
    /* Weights: attrs and tensor values first, they feed the rules most. */
    static const unsigned kinds[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 7, 8};
    for (int tries = 0; tries < 8; tries++) {
        unsigned k = kinds[below(r, sizeof kinds / sizeof kinds[0])];
        vec *v = NULL;
        switch (k) {
        case 0:
            v = &s->v[S_INT];
            break;
        case 1:
            v = &s->v[S_INTS];
            break;
        case 2:
            v = &s->v[S_SHAPE];
            break;
        case 3:
            v = &s->v[S_TYPE];
            break;
        case 4:
            v = &s->v[S_TENSOR];
            break;
        case 5:
        case 6:
        case 7:
            v = &s->v[S_NODE];
            break;
        default:
            break;
        }
        if (k == 8) {
            if (mut_opset(r, m)) {
                return true;
            }
            continue;
        }
        if (v->n == 0) {
            continue;
        }
        void *x = v->p[below(r, v->n)];
        bool done = false;
        switch (k) {
        case 0:
            done = mut_int(r, x);
            break;
        case 1:
            done = mut_ints(r, x);
            break;
        case 2:
            done = mut_shape(r, x);
            break;
        case 3:
            done = mut_type(r, x);
            break;
        case 4:
            done = mut_tensor(r, x);
            break;
        case 5:
        case 6:
            done = mut_op(r, x);
            break;
        default:
            done = mut_inputs(r, x);
            break;
        }
        if (done) {
            return true;
        }
    }
    return false;
}

static size_t byte_mutate(uint8_t *data, size_t size, size_t max_size) {
    return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    rng r = {((uint64_t)seed << 32) ^ seed ^ size};
    if (below(&r, 16) == 0) {
        return byte_mutate(data, size, max_size);
    }
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
    if (!m) {
        return byte_mutate(data, size, max_size);
    }
    sites s;
    memset(&s, 0, sizeof s);
    collect_graph(&s, m->graph, 0);
    bool changed = false;
    size_t rounds = 1 + (below(&r, 4) == 0) + (below(&r, 8) == 0);
    for (size_t i = 0; i < rounds; i++) {
        changed |= mutate_once(&r, m, &s);
    }
    for (int i = 0; i < S_N; i++) {
        free(s.v[i].p);
    }
    size_t out = 0;
    if (changed) {
        size_t len = onnx__model_proto__get_packed_size(m);
        if (len <= max_size) {
            out = onnx__model_proto__pack(m, data);
        }
    }
    onnx__model_proto__free_unpacked(m, NULL);
    return out ? out : byte_mutate(data, size, max_size);
}
