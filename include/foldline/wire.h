/*
 * foldline/wire.h - protobuf messages decoded in place.
 *
 * For a program that receives models inside protobuf messages of its own
 * (foldlined's Analyze requests): a message is decoded by the wire reader
 * the importers use, and its bytes and string fields point into the buffer
 * it was read from instead of being copied, so a model of hundreds of
 * megabytes is never held twice. The buffer must outlive the message.
 *
 * The messages are protobuf-c's generated structs (the descriptor says
 * which), allocated in an fl_wire_msgs and freed with it all at once: never
 * pass them to protobuf_c_message_free_unpacked(). Decoding is strict:
 * a truncated field, a length past the end of its message, a wire type that
 * does not match the field, field number 0, a group or nesting deeper than
 * 100 messages is an error that names the message type, the field and the
 * byte offset. Not thread-safe per fl_wire_msgs; separate ones may be used
 * from separate threads.
 */
#ifndef FOLDLINE_WIRE_H
#define FOLDLINE_WIRE_H

#include "foldline/export.h"

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The memory of the messages decoded into it. */
typedef struct fl_wire_msgs fl_wire_msgs;

/* Why a decode failed. Strings are static or point into the descriptor. */
typedef struct fl_wire_error {
    const char *message; /* full name of the message type being read */
    const char *field;   /* the field's name, or NULL when the tag is not a field */
    size_t offset;       /* byte offset in the input */
    const char *what;    /* what is wrong */
    int oom;             /* memory ran out (the other fields may be unset) */
} fl_wire_error;

/* An empty set of messages; NULL when memory runs out. */
FL_EXTERN fl_wire_msgs *fl_wire_msgs_new(void);
/* Frees every message decoded into `m` (NULL: nothing). */
FL_EXTERN void fl_wire_msgs_free(fl_wire_msgs *m);

/* Decodes `len` bytes at `buf` as a message of type `desc` into `m`. NULL
 * with *err filled (err may be NULL) on malformed input or when memory runs
 * out. */
FL_EXTERN ProtobufCMessage *fl_wire_unpack(fl_wire_msgs *m, const ProtobufCMessageDescriptor *desc,
                                           const uint8_t *buf, size_t len, fl_wire_error *err);

#ifdef __cplusplus
}
#endif

#endif
