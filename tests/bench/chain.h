/*
 * chain.h - the synthetic Conv2D/BiasAdd/Relu chain of the benchmarks,
 * written straight in the GraphDef wire format (no protobuf-c message per
 * node), so that a chain of 10M nodes takes only its bytes to build.
 *
 * The graph: x = Placeholder float [1,8,8,16]; w = Const float [1,1,16,16];
 * b = Const float [16]; then nodes n3 .. n(N-1), node i being Conv2D(prev, w)
 * (1x1, stride 1, SAME) when i % 3 == 0, BiasAdd(prev, b) when i % 3 == 1,
 * Relu(prev) otherwise: N nodes in all. Each Conv2D is 8*8*16*16 MACs.
 */
#ifndef FL_BENCH_CHAIN_H
#define FL_BENCH_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chain_buf {
    uint8_t *p;
    size_t n, cap;
} chain_buf;

static void cb_reserve(chain_buf *b, size_t more) {
    if (b->n + more <= b->cap) {
        return;
    }
    size_t nc = b->cap ? b->cap * 2 : 4096;
    while (nc < b->n + more) {
        nc *= 2;
    }
    uint8_t *np = realloc(b->p, nc);
    if (!np) {
        fprintf(stderr, "chain: out of memory\n");
        exit(1);
    }
    b->p = np;
    b->cap = nc;
}

static void cb_varint(chain_buf *b, uint64_t v) {
    cb_reserve(b, 10);
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        b->p[b->n++] = byte | (v ? 0x80 : 0);
    } while (v);
}

static void cb_bytes(chain_buf *b, int field, const void *p, size_t len) {
    cb_varint(b, (uint64_t)field << 3 | 2);
    cb_varint(b, len);
    if (len == 0) {
        return; /* p may be NULL (an empty sub-message) */
    }
    cb_reserve(b, len);
    memcpy(b->p + b->n, p, len);
    b->n += len;
}

static void cb_str(chain_buf *b, int field, const char *s) {
    cb_bytes(b, field, s, strlen(s));
}

static void cb_int(chain_buf *b, int field, uint64_t v) {
    cb_varint(b, (uint64_t)field << 3);
    cb_varint(b, v);
}

/* Appends sub as field `field` of b, and empties sub. */
static void cb_sub(chain_buf *b, int field, chain_buf *sub) {
    cb_bytes(b, field, sub->p, sub->n);
    sub->n = 0;
}

/* A TensorShapeProto with the given dims. */
static void cb_shape(chain_buf *b, int rank, const int64_t *dims) {
    chain_buf dim = {0};
    for (int i = 0; i < rank; i++) {
        cb_int(&dim, 1, (uint64_t)dims[i]);
        cb_sub(b, 2, &dim);
    }
    free(dim.p);
}

/* attr entry: key -> AttrValue already encoded in val. */
static void cb_attr(chain_buf *node, const char *key, chain_buf *val) {
    chain_buf e = {0};
    cb_str(&e, 1, key);
    cb_sub(&e, 2, val);
    cb_sub(node, 5, &e);
    free(e.p);
}

static void cb_attr_type(chain_buf *node, const char *key, int dt) {
    chain_buf v = {0};
    cb_int(&v, 6, (uint64_t)dt);
    cb_attr(node, key, &v);
    free(v.p);
}

static void cb_const(chain_buf *g, const char *name, int rank, const int64_t *dims) {
    chain_buf node = {0}, t = {0}, sh = {0}, v = {0};
    cb_str(&node, 1, name);
    cb_str(&node, 2, "Const");
    cb_attr_type(&node, "dtype", 1);
    int64_t cnt = 1;
    for (int i = 0; i < rank; i++) {
        cnt *= dims[i];
    }
    cb_int(&t, 1, 1);
    cb_shape(&sh, rank, dims);
    cb_sub(&t, 2, &sh);
    float *vals = calloc((size_t)cnt, sizeof(float));
    for (int64_t i = 0; i < cnt; i++) {
        vals[i] = (float)((i % 7) - 3) * 0.125f;
    }
    cb_bytes(&t, 4, vals, (size_t)cnt * sizeof(float));
    free(vals);
    cb_sub(&v, 8, &t);
    cb_attr(&node, "value", &v);
    cb_sub(g, 1, &node);
    free(node.p);
    free(t.p);
    free(sh.p);
    free(v.p);
}

/* The chain of n nodes (n >= 4) as GraphDef bytes (malloc'd). */
static uint8_t *chain_graphdef(long n, size_t *len) {
    chain_buf g = {0}, node = {0}, v = {0}, sub = {0};
    cb_reserve(&g, (size_t)n * 52 + 4096);
    cb_str(&node, 1, "x");
    cb_str(&node, 2, "Placeholder");
    cb_attr_type(&node, "dtype", 1);
    cb_shape(&sub, 4, (int64_t[]){1, 8, 8, 16});
    cb_sub(&v, 7, &sub);
    cb_attr(&node, "shape", &v);
    cb_sub(&g, 1, &node);
    cb_const(&g, "w", 4, (int64_t[]){1, 1, 16, 16});
    cb_const(&g, "b", 1, (int64_t[]){16});
    /* The attrs every node of a kind shares, encoded once. */
    chain_buf conv_attrs = {0};
    cb_attr_type(&conv_attrs, "T", 1);
    for (int i = 0; i < 4; i++) {
        cb_int(&sub, 3, 1);
    }
    cb_sub(&v, 1, &sub);
    cb_attr(&conv_attrs, "strides", &v);
    cb_str(&v, 2, "SAME");
    cb_attr(&conv_attrs, "padding", &v);
    chain_buf t_attr = {0};
    cb_attr_type(&t_attr, "T", 1);
    char prev[32] = "x", name[32];
    for (long i = 3; i < n; i++) {
        snprintf(name, sizeof name, "n%ld", i);
        cb_str(&node, 1, name);
        const chain_buf *attrs = &t_attr;
        switch (i % 3) {
        case 0:
            cb_str(&node, 2, "Conv2D");
            cb_str(&node, 3, prev);
            cb_str(&node, 3, "w");
            attrs = &conv_attrs;
            break;
        case 1:
            cb_str(&node, 2, "BiasAdd");
            cb_str(&node, 3, prev);
            cb_str(&node, 3, "b");
            break;
        default:
            cb_str(&node, 2, "Relu");
            cb_str(&node, 3, prev);
            break;
        }
        cb_reserve(&node, attrs->n);
        memcpy(node.p + node.n, attrs->p, attrs->n);
        node.n += attrs->n;
        cb_sub(&g, 1, &node);
        memcpy(prev, name, sizeof prev);
    }
    free(node.p);
    free(v.p);
    free(sub.p);
    free(conv_attrs.p);
    free(t_attr.p);
    *len = g.n;
    return g.p;
}

#endif
