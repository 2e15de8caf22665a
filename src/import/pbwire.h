/*
 * pbwire.h - the protobuf wire-format reader of the import path.
 *
 * It fills the same message structs protobuf-c generates (so every importer
 * reads them as before) from a byte range it does not own, without copying
 * payloads: a `bytes` field (ONNX raw_data, TensorFlow tensor_content, an
 * unknown field) points into the input, so the caller's buffer must outlive
 * the messages. Only strings (NUL-terminated copies) and repeated scalar
 * runs that need decoding (varints, or a fixed-width run that is not
 * aligned for its element type) are written to the arena. A weight that
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

#endif
