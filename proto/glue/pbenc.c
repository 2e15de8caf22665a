/*
 * pbenc.c - protobuf-c messages encoded back to front (see pbenc.h).
 *
 * The writer fills its buffer from the end: the bytes written so far are
 * buf[pos .. cap). Fields go in reverse order (the last field of the
 * descriptor first, the last element of a repeated field first), and each
 * value before its key, so that reading the buffer forwards gives the
 * fields in descriptor order, each as key, length (where one is due) and
 * value. Assumes a little-endian host, as the fixed-width values are copied
 * as they lie in memory.
 */
#include "pbenc.h"

#include <stdlib.h>
#include <string.h>

#define START_CAP 4096

typedef struct wr {
    uint8_t *buf;
    size_t cap, pos;
    bool oom;
} wr;

static size_t written(const wr *w) {
    return w->cap - w->pos;
}

/* A larger buffer with room for n more bytes in front of what is written. */
static bool grow(wr *w, size_t n) {
    if (w->oom) {
        return false;
    }
    size_t used = written(w), nc = w->cap ? w->cap : START_CAP;
    while (nc - used < n) {
        if (nc > SIZE_MAX / 2) {
            w->oom = true;
            return false;
        }
        nc *= 2;
    }
    uint8_t *nb = malloc(nc);
    if (!nb) {
        w->oom = true;
        return false;
    }
    if (used) {
        memcpy(nb + nc - used, w->buf + w->pos, used);
    }
    free(w->buf);
    w->buf = nb;
    w->cap = nc;
    w->pos = nc - used;
    return true;
}

/* Room for n more bytes in front of what is written. */
static inline bool room(wr *w, size_t n) {
    return w->pos >= n || grow(w, n);
}

static void put(wr *w, const void *p, size_t n) {
    if (n && room(w, n)) {
        w->pos -= n;
        memcpy(w->buf + w->pos, p, n);
    }
}

static void put_varint(wr *w, uint64_t v) {
    if (v < 0x80 && room(w, 1)) { /* keys, lengths and most counts */
        w->buf[--w->pos] = (uint8_t)v;
        return;
    }
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    put(w, t, n);
}

static void put_key(wr *w, uint32_t id, unsigned wire) {
    put_varint(w, ((uint64_t)id << 3) | wire);
}

static unsigned wire_of(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return PROTOBUF_C_WIRE_TYPE_32BIT;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return PROTOBUF_C_WIRE_TYPE_64BIT;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    default:
        return PROTOBUF_C_WIRE_TYPE_VARINT;
    }
}

/* Bytes one element of a repeated field takes in its array. */
static size_t elt_size(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 4;
    }
}

static void put_message(wr *w, const ProtobufCMessage *m);

/* One value of type t at p, without its key (a length prefix included). */
static void put_value(wr *w, ProtobufCType t, const void *p) {
    switch (t) {
    case PROTOBUF_C_TYPE_SINT32: {
        int32_t v = *(const int32_t *)p;
        put_varint(w, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
        break;
    }
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_INT32: /* negative: ten bytes, as int64 */
        put_varint(w, (uint64_t)(int64_t) * (const int32_t *)p);
        break;
    case PROTOBUF_C_TYPE_UINT32:
        put_varint(w, *(const uint32_t *)p);
        break;
    case PROTOBUF_C_TYPE_SINT64: {
        int64_t v = *(const int64_t *)p;
        put_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
        break;
    }
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
        put_varint(w, *(const uint64_t *)p);
        break;
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        put(w, p, 4);
        break;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        put(w, p, 8);
        break;
    case PROTOBUF_C_TYPE_BOOL: {
        uint8_t b = *(const protobuf_c_boolean *)p ? 1 : 0;
        put(w, &b, 1);
        break;
    }
    case PROTOBUF_C_TYPE_STRING: { /* NULL: the empty string */
        const char *s = *(const char *const *)p;
        size_t n = s ? strlen(s) : 0;
        put(w, s, n);
        put_varint(w, n);
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *b = p;
        put(w, b->data, b->len);
        put_varint(w, b->len);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: { /* NULL: an empty message */
        const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
        size_t end = written(w);
        if (sub) {
            put_message(w, sub);
        }
        put_varint(w, written(w) - end);
        break;
    }
    }
}

/* A proto3 field left out: zero, an empty string, no bytes, no message. */
static bool zeroish(ProtobufCType t, const void *p) {
    switch (t) {
    case PROTOBUF_C_TYPE_BOOL:
        return *(const protobuf_c_boolean *)p == 0;
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
        return *(const uint64_t *)p == 0;
    case PROTOBUF_C_TYPE_FLOAT:
        return *(const float *)p == 0; /* -0.0 too */
    case PROTOBUF_C_TYPE_DOUBLE:
        return *(const double *)p == 0;
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(const char *const *)p;
        return !s || !*s;
    }
    case PROTOBUF_C_TYPE_BYTES:
        return ((const ProtobufCBinaryData *)p)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE:
        return *(const void *const *)p == NULL;
    default:
        return *(const uint32_t *)p == 0;
    }
}

/* Whether a singular field is written (pbenc.h's rules). */
static bool present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
    const char *member = (const char *)m + f->offset;
    const char *q = (const char *)m + f->quantifier_offset;
    bool by_ptr = f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING;
    const void *ptr = by_ptr ? *(const void *const *)member : NULL;
    if (f->label == PROTOBUF_C_LABEL_REQUIRED) {
        return true;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        return *(const uint32_t *)q == f->id && (!by_ptr || (ptr && ptr != f->default_value));
    }
    if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
        return by_ptr ? ptr && ptr != f->default_value : *(const protobuf_c_boolean *)q != 0;
    }
    return !zeroish(f->type, member);
}

static void put_repeated(wr *w, const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
    size_t count = *(const size_t *)((const char *)m + f->quantifier_offset);
    const char *arr = *(const char *const *)((const char *)m + f->offset);
    size_t sz = elt_size(f->type);
    if (count == 0) {
        return;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
        size_t end = written(w);
        for (size_t i = count; i-- > 0;) {
            put_value(w, f->type, arr + i * sz);
        }
        put_varint(w, written(w) - end);
        put_key(w, f->id, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
        return;
    }
    for (size_t i = count; i-- > 0;) {
        put_value(w, f->type, arr + i * sz);
        put_key(w, f->id, wire_of(f->type));
    }
}

static void put_message(wr *w, const ProtobufCMessage *m) {
    for (size_t i = m->n_unknown_fields; i-- > 0;) {
        const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
        put(w, u->data, u->len);
        put_key(w, u->tag, u->wire_type);
    }
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (size_t i = d->n_fields; i-- > 0 && !w->oom;) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            put_repeated(w, m, f);
        } else if (present(m, f)) {
            put_value(w, f->type, (const char *)m + f->offset);
            put_key(w, f->id, wire_of(f->type));
        }
    }
}

bool fl_pb_encode(const ProtobufCMessage *m, size_t front, uint8_t **block, uint8_t **data,
                  size_t *len) {
    wr w = {NULL, 0, 0, false};
    put_message(&w, m);
    if (!room(&w, front + 1) || w.oom) { /* +1: never a NULL block */
        free(w.buf);
        return false;
    }
    *block = w.buf;
    *data = w.buf + w.pos;
    *len = written(&w);
    return true;
}
