/*
 * pbwire.h - the protobuf wire-format reader of the import path.
 *
 * It fills the same message structs protobuf-c generates (so every importer
 * reads them as before) from a byte range it does not own, without copying
 * payloads: a `bytes` field (ONNX raw_data, TensorFlow tensor_content, an
 * unknown field) points into the input, so the caller's buffer must outlive
 * the messages. Only strings (NUL-terminated copies) and repeated scalar
 * runs that need decoding (varints, or a fixed-width run that is not
 * aligned for its element type, but ONNX float_data and double_data, read
 * as bytes) are written to the arena. A weight that
 * nothing reads is never touched: its pages are not faulted in when the
 * input is a mapped file.
 *
 * Semantics are protobuf-c's unpacker's (the importers' reference): last
 * value wins for a singular scalar, repeated scalars may be packed or not
 * (or both), unknown fields are kept, and occurrences of a singular message
 * merge as protobuf-c merges them, which is not always the encoding's
 * "decode them joined" (see pbwire.c: a proto3 scalar is the last
 * occurrence's, a oneof member is replaced, not merged). Nesting is limited
 * to FL_PBWIRE_MAX_DEPTH messages; groups (wire types 3 and 4) are invalid.
 */
#ifndef FL_IMPORT_PBWIRE_H
#define FL_IMPORT_PBWIRE_H

#include "util/arena.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_PBWIRE_MAX_DEPTH 100

/* Why a decode failed: the message type and field (NULL when the tag is not
 * a field), the byte offset in the input and what is wrong. */
/* The rejection of a key wider than 32 bits (a field number far above
 * 2^29-1). protobuf-c reads keys as 32-bit values and keeps the low bits of
 * such a key, so it may accept what this reader rejects. */
#define PBWIRE_WIDE_TAG "a tag wider than 32 bits (field number above 2^29-1)"
/* The rejection of field number 0, which protobuf-c takes as an unknown
 * field. */
#define PBWIRE_ZERO_TAG "field number 0"

/* The rejection of a length-delimited field longer than what is left of
 * its message (the one pointer fl__pbwire_field returns for it). */
#define PBWIRE_PAST_END "a length points past the end of its message"

typedef struct fl_pbwire_error {
    const char *message; /* full name of the message type being read */
    const char *field;   /* the field's name, or NULL */
    size_t offset;
    const char *what;
    int oom; /* the arena ran out */
} fl_pbwire_error;

/* Decodes `len` bytes at `buf` as a message of type `desc` into the arena.
 * NULL with *err filled on malformed input or when memory runs out. */
ProtobufCMessage *fl__pbwire_unpack(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                    const uint8_t *buf, size_t len, fl_pbwire_error *err);

/* As fl__pbwire_unpack, for a message nested `depth` levels deep in one
 * read by other code (onnx_wire.c): the nesting limit counts from there.
 * Offsets in *err are from buf. */
ProtobufCMessage *fl__pbwire_unpack_at(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                       const uint8_t *buf, size_t len, int depth,
                                       fl_pbwire_error *err);

/* Wire types. */
enum { FL_PB_WT_VARINT = 0, FL_PB_WT_I64 = 1, FL_PB_WT_LEN = 2, FL_PB_WT_I32 = 5 };

/* One field as it is on the wire: its number and wire type (0 varint, 1
 * 64-bit, 2 length-delimited, 5 32-bit), where its tag starts, where its
 * body starts (after the tag: a length's varint first), its payload (p,
 * len: the bytes of a length-delimited field, else the value's own bytes)
 * and, for a varint or fixed-width field, its value (little-endian bits). */
typedef struct fl_pbwire_field {
    uint32_t id;
    int wt;
    const uint8_t *tag;
    const uint8_t *body;
    const uint8_t *p;
    size_t len;
    uint64_t v;
} fl_pbwire_field;

/* Reads a varint of at most 10 bytes at *p (before end) and moves *p past
 * it; false when it is cut short or longer. */
static inline bool fl__pbwire_varint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
    const uint8_t *q = *p;
    if (q < end && !(*q & 0x80)) { /* one byte: most tags, lengths and values */
        *out = *q;
        *p = q + 1;
        return true;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && q < end; shift += 7) {
        uint8_t b = *q++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            *p = q;
            return true;
        }
    }
    return false;
}

/* The little-endian value of the n bytes at p. */
static inline uint64_t fl__pbwire_le(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* fl__pbwire_field's general case (pbwire.c): any tag, length or value. */
const char *fl__pbwire_field_slow(const uint8_t **p, const uint8_t *end, fl_pbwire_field *f);

/* Reads the field at *p (before end) into *f and moves *p past it: the one
 * tag, length and value check of the import path, shared by the message
 * decoder above and the importers that read a message straight from its
 * bytes (graphdef.c). NULL on success, else what is wrong (a string
 * literal: PBWIRE_PAST_END, PBWIRE_WIDE_TAG, PBWIRE_ZERO_TAG or another;
 * compare its text, not its address). */
static inline const char *fl__pbwire_field(const uint8_t **p, const uint8_t *end,
                                           fl_pbwire_field *f) {
    const uint8_t *q = *p;
    f->tag = q;
    /* Most fields: a one-byte tag, then a one-byte varint or length, or a
     * two-byte length (a message or string of 128 bytes to 16 KB, as a
     * graph's nodes are), read here, inline; the others by
     * fl__pbwire_field_slow. */
    if (end - q >= 2 && q[0] >= 8 && q[0] < 0x80) {
        f->id = (uint32_t)(q[0] >> 3);
        f->wt = q[0] & 7;
        f->body = q + 1;
        if (q[1] < 0x80) {
            if (f->wt == FL_PB_WT_VARINT) {
                f->p = q + 1;
                f->len = 1;
                f->v = q[1];
                *p = q + 2;
                return NULL;
            }
            if (f->wt == FL_PB_WT_LEN && q[1] <= (size_t)(end - q - 2)) {
                f->p = q + 2;
                f->len = q[1];
                *p = q + 2 + q[1];
                return NULL;
            }
        } else if (f->wt == FL_PB_WT_LEN && end - q >= 3 && q[2] < 0x80) {
            size_t n = (size_t)(q[1] & 0x7f) | (size_t)q[2] << 7;
            if (n <= (size_t)(end - q - 3)) {
                f->p = q + 3;
                f->len = n;
                *p = q + 3 + n;
                return NULL;
            }
        }
    }
    /* Through copies: neither *p nor *f has its address taken, so a caller's
     * cursor and field stay in registers on the paths above. */
    const uint8_t *slow_p = q;
    fl_pbwire_field slow_f = *f;
    const char *what = fl__pbwire_field_slow(&slow_p, end, &slow_f);
    *p = slow_p;
    *f = slow_f;
    return what;
}

#endif
