/*
 * tflbuild.h - small TFLite models written in memory for the tests, byte by
 * byte as schema TFL3 lays them out (no flatbuffers library): each table
 * after a vtable of its own, every child after its parent (all uoffsets point
 * forward), every scalar field in a 4-byte slot (little-endian, so a byte
 * field reads its low byte).
 *
 * A model: operator codes (builtin codes), subgraphs of tensors and
 * operators. A tensor dim of -1 is written as 1 in `shape` and -1 in
 * `shape_signature` (a free dim); a tensor with data gets a buffer of its
 * own. Option fields are given in schema order: a scalar, or an int32 vector
 * when `v` is set, an int64 vector when `v64` is (BuiltinOptions2's
 * StableHLO options, `opt2`), a string when `s` is, or left out (`absent`). An options table's
 * fields take 8-byte slots, so an int64 scalar (written sign-extended) has
 * room; narrower fields read their low bytes.
 */
#ifndef FL_TESTS_TFLBUILD_H
#define FL_TESTS_TFLBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TB_FLOAT32 = 0, TB_INT32 = 2, TB_BOOL = 6, TB_INT8 = 9 };

typedef struct tb_tensor {
    const char *name;
    int type;
    int rank;
    int32_t shape[6];
    const void *data; /* NULL: no buffer */
    size_t nbytes;
    bool variable;
} tb_tensor;

typedef struct tb_field {
    int32_t i;
    int nv;
    const int32_t *v;   /* set: an int32 vector field */
    const int64_t *v64; /* set: an int64 vector field of nv entries */
    bool absent;        /* the field is left out of the table (its default) */
    const char *s;      /* set: a string field */
} tb_field;

typedef struct tb_op {
    int opcode; /* index into the model's codes */
    int n_in;
    int32_t in[48];
    int n_out;
    int32_t out[4];
    int opt_type; /* BuiltinOptions union type, 0: none */
    int n_opt;
    tb_field opt[18];
    bool opt2; /* opt_type is a BuiltinOptions2 type (StableHLO options) */
} tb_op;

typedef struct tb_subgraph {
    const char *name;
    int n_tensors;
    const tb_tensor *tensors;
    int n_in;
    int32_t in[8];
    int n_out;
    int32_t out[8];
    int n_ops;
    const tb_op *ops;
} tb_subgraph;

typedef struct tb {
    uint8_t *b;
    size_t len, cap;
} tb;

static inline void tb_grow(tb *w, size_t more) {
    if (w->len + more > w->cap) {
        size_t cap = (w->len + more) * 2 + 4096;
        uint8_t *nb = realloc(w->b, cap);
        if (!nb) {
            abort();
        }
        memset(nb + w->cap, 0, cap - w->cap);
        w->b = nb;
        w->cap = cap;
    }
}

static inline void tb_byte(tb *w, uint8_t v) {
    tb_grow(w, 1);
    w->b[w->len++] = v;
}

static inline void tb_align(tb *w, size_t a) {
    while (w->len % a) {
        tb_byte(w, 0);
    }
}

static inline void tb_set32(tb *w, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
    }
}

static inline size_t tb_put32(tb *w, uint32_t v) {
    tb_grow(w, 4);
    size_t at = w->len;
    tb_set32(w, at, v);
    w->len += 4;
    return at;
}

/* Points the uoffset at `field` to the current position. */
static inline void tb_link(tb *w, size_t field) {
    tb_set32(w, field, (uint32_t)(w->len - field));
}

/* A table of n slots of `slot` bytes (present[i] 0: absent) linked from
 * `from`; returns the position of slot 0 (slot i at + slot * i). */
static inline size_t tb_table_w(tb *w, int n, const int *present, size_t from, int slot) {
    tb_align(w, 4);
    size_t vt = w->len;
    size_t vt_len = 4 + 2 * (size_t)n;
    tb_byte(w, (uint8_t)vt_len);
    tb_byte(w, (uint8_t)(vt_len >> 8));
    tb_byte(w, (uint8_t)(4 + slot * n));
    tb_byte(w, (uint8_t)((4 + slot * n) >> 8));
    for (int i = 0; i < n; i++) {
        uint16_t off = present[i] ? (uint16_t)(4 + slot * i) : 0;
        tb_byte(w, (uint8_t)off);
        tb_byte(w, (uint8_t)(off >> 8));
    }
    tb_align(w, 4);
    size_t t = w->len;
    tb_set32(w, from, (uint32_t)(t - from));
    tb_put32(w, (uint32_t)(t - vt));
    for (int i = 0; i < n * slot / 4; i++) {
        tb_put32(w, 0);
    }
    return t + 4;
}

static inline size_t tb_table(tb *w, int n, const int *present, size_t from) {
    return tb_table_w(w, n, present, from, 4);
}

static inline void tb_vec_i32(tb *w, size_t field, int n, const int32_t *v) {
    tb_align(w, 4);
    tb_link(w, field);
    tb_put32(w, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        tb_put32(w, (uint32_t)v[i]);
    }
}

static inline void tb_vec_i64(tb *w, size_t field, int n, const int64_t *v) {
    while ((w->len + 4) % 8) {
        tb_byte(w, 0); /* the elements start 8-aligned after the length */
    }
    tb_link(w, field);
    tb_put32(w, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        tb_put32(w, (uint32_t)(uint64_t)v[i]);
        tb_put32(w, (uint32_t)((uint64_t)v[i] >> 32));
    }
}

static inline void tb_string(tb *w, size_t field, const char *s) {
    tb_align(w, 4);
    tb_link(w, field);
    tb_put32(w, (uint32_t)strlen(s));
    for (const char *p = s; *p; p++) {
        tb_byte(w, (uint8_t)*p);
    }
    tb_byte(w, 0);
}

/* A vector of n uoffsets linked from `field`; returns element 0's position. */
static inline size_t tb_vec_offsets(tb *w, size_t field, int n) {
    tb_align(w, 4);
    tb_link(w, field);
    tb_put32(w, (uint32_t)n);
    size_t at = w->len;
    for (int i = 0; i < n; i++) {
        tb_put32(w, 0);
    }
    return at;
}

static inline void tb_bytes(tb *w, size_t field, const void *p, size_t n) {
    tb_align(w, 16);
    for (int i = 0; i < 12; i++) {
        tb_byte(w, 0); /* the data starts 16-aligned after the length */
    }
    tb_link(w, field);
    tb_put32(w, (uint32_t)n);
    tb_grow(w, n);
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

static inline void tb_tensor_table(tb *w, size_t from, const tb_tensor *t, uint32_t buffer) {
    bool free_dim = false;
    int32_t shape[6], sig[6];
    for (int k = 0; k < t->rank; k++) {
        shape[k] = t->shape[k] < 0 ? 1 : t->shape[k];
        sig[k] = t->shape[k];
        free_dim = free_dim || t->shape[k] < 0;
    }
    /* Tensor: shape 0, type 1, buffer 2, name 3, quantization 4,
     * is_variable 5, sparsity 6, shape_signature 7 */
    size_t f = tb_table(w, 8, (const int[]){1, 1, 1, 1, 0, t->variable, 0, free_dim}, from);
    tb_set32(w, f + 4, (uint32_t)t->type);
    tb_set32(w, f + 8, buffer);
    tb_set32(w, f + 20, t->variable);
    tb_vec_i32(w, f, t->rank, shape);
    tb_string(w, f + 12, t->name);
    if (free_dim) {
        tb_vec_i32(w, f + 28, t->rank, sig);
    }
}

static inline void tb_op_table(tb *w, size_t from, const tb_op *o) {
    /* Operator: opcode_index 0, inputs 1, outputs 2, builtin_options_type 3,
     * builtin_options 4, ..., builtin_options_2_type 11, builtin_options_2 12 */
    bool o1 = o->opt_type != 0 && !o->opt2, o2 = o->opt_type != 0 && o->opt2;
    size_t f = tb_table(w, 13, (const int[]){1, 1, 1, o1, o1, 0, 0, 0, 0, 0, 0, o2, o2}, from);
    tb_set32(w, f, (uint32_t)o->opcode);
    tb_set32(w, f + (o2 ? 44 : 12), (uint32_t)o->opt_type);
    tb_vec_i32(w, f + 4, o->n_in, o->in);
    tb_vec_i32(w, f + 8, o->n_out, o->out);
    if (o->opt_type) {
        int present[18];
        for (int k = 0; k < o->n_opt; k++) {
            present[k] = !o->opt[k].absent;
        }
        size_t of = tb_table_w(w, o->n_opt, present, f + (o2 ? 48 : 16), 8);
        for (int k = 0; k < o->n_opt; k++) {
            size_t at = of + 8 * (size_t)k;
            if (o->opt[k].absent) {
                continue;
            } else if (o->opt[k].s) {
                tb_string(w, at, o->opt[k].s);
            } else if (o->opt[k].v64) {
                tb_vec_i64(w, at, o->opt[k].nv, o->opt[k].v64);
            } else if (o->opt[k].v) {
                tb_vec_i32(w, at, o->opt[k].nv, o->opt[k].v);
            } else {
                tb_set32(w, at, (uint32_t)o->opt[k].i);
                tb_set32(w, at + 4, o->opt[k].i < 0 ? 0xffffffffu : 0);
            }
        }
    }
}

/* The model's bytes (free w->b); codes are builtin operator codes. */
static inline void tb_model(tb *w, int n_codes, const int *codes, int n_sg, const tb_subgraph *sg) {
    memset(w, 0, sizeof *w);
    tb_put32(w, 0);
    const char *id = "TFL3";
    for (int i = 0; i < 4; i++) {
        tb_byte(w, (uint8_t)id[i]);
    }
    /* Model: version 0, operator_codes 1, subgraphs 2, description 3,
     * buffers 4 */
    size_t model = tb_table(w, 5, (const int[]){1, 1, 1, 0, 1}, 0);
    tb_set32(w, model, 3);
    size_t oc = tb_vec_offsets(w, model + 4, n_codes);
    for (int i = 0; i < n_codes; i++) {
        /* OperatorCode: deprecated_builtin_code 0, custom_code 1, version 2,
         * builtin_code 3 */
        size_t f = tb_table(w, 4, (const int[]){1, 0, 1, 1}, oc + 4 * (size_t)i);
        tb_set32(w, f, (uint32_t)(codes[i] < 127 ? codes[i] : 127));
        tb_set32(w, f + 8, 1);
        tb_set32(w, f + 12, (uint32_t)codes[i]);
    }
    uint32_t n_buffers = 1;
    size_t sgs = tb_vec_offsets(w, model + 8, n_sg);
    for (int s = 0; s < n_sg; s++) {
        const tb_subgraph *g = &sg[s];
        /* SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4 */
        size_t f = tb_table(w, 5, (const int[]){1, 1, 1, 1, 1}, sgs + 4 * (size_t)s);
        size_t tv = tb_vec_offsets(w, f, g->n_tensors);
        for (int i = 0; i < g->n_tensors; i++) {
            uint32_t buf = g->tensors[i].data ? n_buffers++ : 0;
            tb_tensor_table(w, tv + 4 * (size_t)i, &g->tensors[i], buf);
        }
        tb_vec_i32(w, f + 4, g->n_in, g->in);
        tb_vec_i32(w, f + 8, g->n_out, g->out);
        size_t ov = tb_vec_offsets(w, f + 12, g->n_ops);
        for (int i = 0; i < g->n_ops; i++) {
            tb_op_table(w, ov + 4 * (size_t)i, &g->ops[i]);
        }
        tb_string(w, f + 16, g->name);
    }
    size_t bv = tb_vec_offsets(w, model + 16, (int)n_buffers);
    tb_table(w, 1, (const int[]){0}, bv);
    uint32_t at = 1;
    for (int s = 0; s < n_sg; s++) {
        for (int i = 0; i < sg[s].n_tensors; i++) {
            const tb_tensor *t = &sg[s].tensors[i];
            if (t->data) {
                size_t f = tb_table(w, 1, (const int[]){1}, bv + 4 * (size_t)at++);
                tb_bytes(w, f, t->data, t->nbytes);
            }
        }
    }
}

#endif
