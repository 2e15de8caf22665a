/*
 * pbenc.h - a protobuf-c message encoded in one pass, back to front.
 *
 * protobuf_c_message_pack() needs a buffer of the packed size, so a caller
 * first walks the whole message for protobuf_c_message_get_packed_size()
 * and then walks it again to write it, and the writing walk moves every
 * nested message of 128 bytes or more once per level to make room for its
 * length. foldlined's reply to a small analysis (hundreds of nested
 * Quantity and Totals messages) spent more time there than in the
 * report-to-message mapping. Written from the last field to the first, a
 * nested message's length is known when its prefix is written: one walk,
 * nothing moved.
 *
 * The bytes are those protobuf_c_message_pack() writes (protobuf-c 1.4's
 * rules for which fields are written: a proto3 scalar equal to zero, an
 * empty string, bytes of length 0 or a NULL message are left out; a oneof
 * member only when its case is set; an optional scalar only with its has_
 * flag; unknown fields after the known ones); test_report_pb compares them
 * on every corpus report and on a message with every field type.
 */
#ifndef FL_PBENC_H
#define FL_PBENC_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The writer: the bytes written so far are buf[pos .. cap), the last field
 * first (each value before its key, a nested message before its length),
 * so that reading forwards gives the fields in order. report_pb.c writes a
 * reply with it straight from a report (fl_report_encode). Start from
 * {NULL, 0, 0, false}; fl_pbw_finish hands the buffer over (or frees it). */
typedef struct fl_pbw {
    uint8_t *buf;
    size_t cap, pos;
    bool oom; /* memory ran out: later writes do nothing */
} fl_pbw;

bool fl_pbw_grow(fl_pbw *w, size_t n);
void fl_pbw_varint_long(fl_pbw *w, uint64_t v);

/* v as a varint in t (at most 10 bytes, first byte first); its length. */
static inline size_t fl_pb_varint_bytes(uint8_t t[10], uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    return n;
}

/* Bytes written so far. */
static inline size_t fl_pbw_len(const fl_pbw *w) {
    return w->cap - w->pos;
}

/* Room for n more bytes in front of what is written. */
static inline bool fl_pbw_room(fl_pbw *w, size_t n) {
    return w->pos >= n || fl_pbw_grow(w, n);
}

static inline void fl_pbw_put(fl_pbw *w, const void *p, size_t n) {
    if (n && fl_pbw_room(w, n)) {
        w->pos -= n;
        memcpy(w->buf + w->pos, p, n);
    }
}

static inline void fl_pbw_varint(fl_pbw *w, uint64_t v) {
    if (v < 0x80 && fl_pbw_room(w, 1)) { /* keys, lengths and most counts */
        w->buf[--w->pos] = (uint8_t)v;
        return;
    }
    fl_pbw_varint_long(w, v);
}

/* The fields of m (no key, no length). */
void fl_pbw_message(fl_pbw *w, const ProtobufCMessage *m);

/* The wire type of a field of type t. */
unsigned fl_pb_wire_type(ProtobufCType t);

/* One value of type t at p (laid out as in a protobuf-c message), without
 * its key; a length prefix included. */
static inline void fl_pbw_value(fl_pbw *w, ProtobufCType t, const void *p) {
    switch (t) {
    case PROTOBUF_C_TYPE_SINT32: {
        int32_t v = *(const int32_t *)p;
        fl_pbw_varint(w, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
        break;
    }
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_INT32: /* negative: ten bytes, as int64 */
        fl_pbw_varint(w, (uint64_t)(int64_t) * (const int32_t *)p);
        break;
    case PROTOBUF_C_TYPE_UINT32:
        fl_pbw_varint(w, *(const uint32_t *)p);
        break;
    case PROTOBUF_C_TYPE_SINT64: {
        int64_t v = *(const int64_t *)p;
        fl_pbw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
        break;
    }
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
        fl_pbw_varint(w, *(const uint64_t *)p);
        break;
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        fl_pbw_put(w, p, 4);
        break;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        fl_pbw_put(w, p, 8);
        break;
    case PROTOBUF_C_TYPE_BOOL: {
        uint8_t b = *(const protobuf_c_boolean *)p ? 1 : 0;
        fl_pbw_put(w, &b, 1);
        break;
    }
    case PROTOBUF_C_TYPE_STRING: { /* NULL: the empty string */
        const char *s = *(const char *const *)p;
        size_t n = s ? strlen(s) : 0;
        fl_pbw_put(w, s, n);
        fl_pbw_varint(w, n);
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *b = p;
        fl_pbw_put(w, b->data, b->len);
        fl_pbw_varint(w, b->len);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: { /* NULL: an empty message */
        const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
        size_t end = fl_pbw_len(w);
        if (sub) {
            fl_pbw_message(w, sub);
        }
        fl_pbw_varint(w, fl_pbw_len(w) - end);
        break;
    }
    }
}

/* A proto3 field left out: zero, an empty string, no bytes, no message. */
static inline bool fl_pb_zeroish(ProtobufCType t, const void *p) {
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

/* Whether singular field f is written, its value at member and its has_
 * flag or oneof case at q (the rules above). */
bool fl_pb_present(const ProtobufCFieldDescriptor *f, const void *member, const void *q);

/* The count elements at elts of repeated field f, keys included. */
void fl_pbw_repeated(fl_pbw *w, const ProtobufCFieldDescriptor *f, const void *elts, size_t count);

/* Hands the bytes over as fl_pb_encode does (front bytes of room before
 * *data); false, with the buffer freed, when memory ran out. */
bool fl_pbw_finish(fl_pbw *w, size_t front, uint8_t **block, uint8_t **data, size_t *len);

/* Encodes m. On success *block is a malloc'd block (free it), the bytes are
 * *data .. *data + *len, and `front` bytes before *data are the caller's (a
 * prefix written in place). false when memory ran out (nothing to free). */
bool fl_pb_encode(const ProtobufCMessage *m, size_t front, uint8_t **block, uint8_t **data,
                  size_t *len);

#endif
