/*
 * mktflite.c - writes tests/data/tiny.tflite, a TFLite flatbuffer built by
 * hand (no flatbuffers library): the bytes follow schema TFL3's layout, each
 * table with its vtable just before it, children after their parents (so
 * every uoffset points forward).
 *
 * The model (MACs and FLOPs worked out by hand in tests/unit/test_tflite.c):
 *   image [1,8,8,3] float32 (signature input "image", tensor "x")
 *   -> CONV_2D w [4,3,3,3] float32 + bias [4], SAME, stride 1, RELU -> [1,8,8,4]
 *   -> DEPTHWISE_CONV_2D w [1,3,3,4], VALID, stride 2, no bias -> [1,3,3,4]
 *   -> RESHAPE by a constant [1,36] -> [1,36]
 *   -> FULLY_CONNECTED by DEQUANTIZE(float16 w [10,36]), no bias -> [1,10]
 * The CONV_2D code is given in builtin_code with deprecated_builtin_code 0,
 * the others in deprecated_builtin_code only: the reader takes the larger.
 *
 * With --int8, tests/data/tiny_int8.tflite: the same graph fully quantized
 * (activations and weights int8, the bias int32, as TFLite's integer
 * kernels take them); FULLY_CONNECTED reads the int8 weights [10,36]
 * directly and the DEQUANTIZE's float copy is left unused.
 *
 * usage: fl_mktflite [--int8] OUT.tflite
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t buf[1 << 16];
static size_t len;

static void align(size_t a) {
    while (len % a) {
        buf[len++] = 0;
    }
}

static size_t put32(uint32_t v) {
    size_t at = len;
    for (int i = 0; i < 4; i++) {
        buf[len++] = (uint8_t)(v >> (8 * i));
    }
    return at;
}

static void set32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        buf[at + (size_t)i] = (uint8_t)(v >> (8 * i));
    }
}

/* Points the uoffset at `field` to the current position. */
static void link(size_t field) {
    set32(field, (uint32_t)(len - field));
}

/* A table of n 4-byte slots (present[i] == 0: absent), pointed to by the
 * uoffset at `from`. Returns the position of slot 0's field; slot i is at
 * the result + 4 * i. */
static size_t table(int n, const int *present, size_t from) {
    align(4);
    size_t vt = len;
    size_t vt_len = 4 + 2 * (size_t)n;
    buf[len++] = (uint8_t)vt_len;
    buf[len++] = 0;
    buf[len++] = (uint8_t)(4 + 4 * n);
    buf[len++] = 0;
    for (int i = 0; i < n; i++) {
        uint16_t off = present[i] ? (uint16_t)(4 + 4 * i) : 0;
        buf[len++] = (uint8_t)off;
        buf[len++] = (uint8_t)(off >> 8);
    }
    align(4);
    size_t t = len;
    set32(from, (uint32_t)(t - from));
    put32((uint32_t)(t - vt)); /* soffset: vtable = t - soffset */
    for (int i = 0; i < n; i++) {
        put32(0);
    }
    return t + 4;
}

static void vec_i32(size_t field, int n, const int32_t *v) {
    align(4);
    link(field);
    put32((uint32_t)n);
    for (int i = 0; i < n; i++) {
        put32((uint32_t)v[i]);
    }
}

static void string(size_t field, const char *s) {
    align(4);
    link(field);
    put32((uint32_t)strlen(s));
    memcpy(buf + len, s, strlen(s) + 1);
    len += strlen(s) + 1;
}

/* Vector of n offsets; returns the position of element 0. */
static size_t vec_offsets(size_t field, int n) {
    align(4);
    link(field);
    put32((uint32_t)n);
    size_t at = len;
    for (int i = 0; i < n; i++) {
        put32(0);
    }
    return at;
}

static void bytes(size_t field, const void *p, size_t n) {
    align(16);
    len += 12; /* data aligned to 16 after the length */
    link(field);
    put32((uint32_t)n);
    memcpy(buf + len, p, n);
    len += n;
}

typedef struct tensor {
    const char *name;
    int type; /* 0 float32, 1 float16, 2 int32 */
    int rank;
    int32_t shape[4];
    uint32_t buffer;
} tensor;

static tensor tensors[] = {
    {"x", 0, 4, {1, 8, 8, 3}, 0},    {"conv_w", 0, 4, {4, 3, 3, 3}, 1},
    {"conv_b", 0, 1, {4}, 2},        {"conv_out", 0, 4, {1, 8, 8, 4}, 0},
    {"dw_w", 0, 4, {1, 3, 3, 4}, 3}, {"dw_out", 0, 4, {1, 3, 3, 4}, 0},
    {"shape", 2, 1, {2}, 4},         {"flat", 0, 2, {1, 36}, 0},
    {"fc_w16", 1, 2, {10, 36}, 5},   {"fc_w", 0, 2, {10, 36}, 0},
    {"logits", 0, 2, {1, 10}, 0},
};
#define N_TENSORS ((int)(sizeof tensors / sizeof tensors[0]))

typedef struct op {
    int opcode;
    int n_in, n_out;
    int32_t in[3], out[1];
    int opt_type;
    int n_opt;
    int32_t opt[6];
} op;

/* Opcodes: 0 CONV_2D, 1 DEPTHWISE_CONV_2D, 2 RESHAPE, 3 DEQUANTIZE, 4 FC. */
static op ops[] = {
    /* Conv2DOptions: padding SAME(0), stride_w, stride_h, act RELU(1) */
    {0, 3, 1, {0, 1, 2}, {3}, 1, 4, {0, 1, 1, 1}},
    /* DepthwiseConv2DOptions: padding VALID(1), stride_w 2, stride_h 2,
     * depth_multiplier 1, act NONE; no bias: two inputs (TFLite's kernel
     * takes no -1 for it) */
    {1, 2, 1, {3, 4}, {5}, 2, 5, {1, 2, 2, 1, 0}},
    {2, 2, 1, {5, 6}, {7}, 0, 0, {0}},
    {3, 1, 1, {8}, {9}, 0, 0, {0}},
    /* FullyConnectedOptions: act NONE; bias absent (-1, as TFLite's kernel
     * allows) */
    {4, 3, 1, {7, 9, -1}, {10}, 8, 1, {0}},
};

/* The --int8 variant: int8 activations and weights (type 9), FC on the
 * int8 weights. */
static void make_int8(void) {
    static const int types[] = {9, 9, 2, 9, 9, 9, 2, 9, 9, 0, 9};
    for (int i = 0; i < N_TENSORS; i++) {
        tensors[i].type = types[i];
    }
    ops[4].in[1] = 8;
}

int main(int argc, char **argv) {
    bool int8 = argc == 3 && strcmp(argv[1], "--int8") == 0;
    if (argc != 2 && !int8) {
        fprintf(stderr, "usage: fl_mktflite [--int8] OUT.tflite\n");
        return 2;
    }
    if (int8) {
        make_int8();
    }
    put32(0);
    memcpy(buf + len, "TFL3", 4);
    len += 4;
    /* Model: version 0, operator_codes 1, subgraphs 2, description 3,
     * buffers 4, metadata_buffer 5, metadata 6, signature_defs 7 */
    size_t model = table(8, (const int[]){1, 1, 1, 0, 1, 0, 0, 1}, 0);
    set32(model, 3);
    /* operator codes */
    size_t oc = vec_offsets(model + 4, 5);
    const int codes[5][2] = {{0, 3}, {4, 0}, {22, 0}, {6, 0}, {9, 0}};
    for (int i = 0; i < 5; i++) {
        size_t f = table(4, (const int[]){1, 0, 1, codes[i][1] != 0}, oc + 4 * (size_t)i);
        set32(f, (uint32_t)codes[i][0]);
        set32(f + 8, 1);
        set32(f + 12, (uint32_t)codes[i][1]);
    }
    /* subgraph */
    size_t sgs = vec_offsets(model + 8, 1);
    size_t sg = table(5, (const int[]){1, 1, 1, 1, 1}, sgs);
    size_t tv = vec_offsets(sg, N_TENSORS);
    for (int i = 0; i < N_TENSORS; i++) {
        const tensor *t = &tensors[i];
        size_t f = table(4, (const int[]){1, 1, 1, 1}, tv + 4 * (size_t)i);
        set32(f + 4, (uint32_t)t->type);
        set32(f + 8, t->buffer);
        vec_i32(f, t->rank, t->shape);
        string(f + 12, t->name);
    }
    vec_i32(sg + 4, 1, (const int32_t[]){0});
    vec_i32(sg + 8, 1, (const int32_t[]){10});
    size_t ov = vec_offsets(sg + 12, 5);
    for (int i = 0; i < 5; i++) {
        const op *o = &ops[i];
        /* Operator: opcode_index 0, inputs 1, outputs 2, options type 3,
         * options 4 */
        size_t f = table(5, (const int[]){1, 1, 1, o->opt_type != 0, o->opt_type != 0},
                         ov + 4 * (size_t)i);
        set32(f, (uint32_t)o->opcode);
        set32(f + 12, (uint32_t)o->opt_type);
        vec_i32(f + 4, o->n_in, o->in);
        vec_i32(f + 8, o->n_out, o->out);
        if (o->opt_type) {
            int present[6] = {1, 1, 1, 1, 1, 1};
            size_t of = table(o->n_opt, present, f + 16);
            for (int k = 0; k < o->n_opt; k++) {
                set32(of + 4 * (size_t)k, (uint32_t)o->opt[k]);
            }
        }
    }
    string(sg + 16, "main");
    /* buffers: 0 empty, 1 conv_w, 2 conv_b, 3 dw_w, 4 shape, 5 fc_w16 */
    size_t bv = vec_offsets(model + 16, 6);
    static float conv_w[108], conv_b[4], dw_w[36];
    static uint16_t fc_w[360];
    for (int i = 0; i < 108; i++) {
        conv_w[i] = (float)(i % 7) * 0.25f;
    }
    for (int i = 0; i < 360; i++) {
        fc_w[i] = 0x3C00; /* 1.0 */
    }
    const int32_t shape[2] = {1, 36};
    const void *data[6] = {NULL, conv_w, conv_b, dw_w, shape, fc_w};
    size_t sizes[6] = {0, sizeof conv_w, sizeof conv_b, sizeof dw_w, sizeof shape, sizeof fc_w};
    if (int8) { /* one byte per weight (the leading bytes of the float data) */
        sizes[1] = 108;
        sizes[3] = 36;
        sizes[5] = 360;
    }
    for (int i = 0; i < 6; i++) {
        size_t f = table(1, (const int[]){data[i] != NULL}, bv + 4 * (size_t)i);
        if (data[i]) {
            bytes(f, data[i], sizes[i]);
        }
    }
    /* signature def: inputs [image -> 0], outputs [scores -> 10], key, subgraph 0 */
    size_t sv = vec_offsets(model + 28, 1);
    size_t sd = table(5, (const int[]){1, 1, 1, 0, 1}, sv);
    const char *names[2] = {"image", "scores"};
    const uint32_t idx[2] = {0, 10};
    for (int k = 0; k < 2; k++) {
        size_t mv = vec_offsets(sd + 4 * (size_t)k, 1);
        size_t m = table(2, (const int[]){1, 1}, mv);
        set32(m + 4, idx[k]);
        string(m, names[k]);
    }
    string(sd + 8, "serving_default");
    const char *path = argv[argc - 1];
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
