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
#include "foldline/foldline.h"

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

/* ---------------------------------------------------------------------------
 * A model scanned as its bytes arrive (foldlined's AnalyzeStream).
 *
 * The scanner reads an ONNX ModelProto or a TensorFlow GraphDef in pieces
 * split anywhere (inside a tag, a varint, a length or a payload) and tells
 * the caller, run by run, which bytes to keep and which it may leave out: a
 * tensor payload (ONNX raw_data, a GraphDef's tensor_content, or a packed
 * run of ONNX float_data / double_data, GraphDef float_val / double_val /
 * scomplex_val / dcomplex_val,
 * whose count its length gives) of a
 * fixed-size numeric type whose dims, given before it, hold more than
 * max_value_elements elements - a constant fl_analyze with that
 * max_value_elements never decodes (4-bit and string tensors are kept) -
 * when it holds at least as many values as those elements: a shorter one
 * (malformed, or a GraphDef typed run repeating its last value) is kept, so
 * a model of at most max_value_elements bytes is kept whole.
 * A caller that writes each kept run at its offset and leaves the left-out
 * runs as zero bytes (unwritten pages) gets a buffer fl_analyze reads
 * exactly as the original: the same offsets, lengths, answers and errors.
 * It also counts the graph's nodes as they arrive (ONNX: the model graph's
 * nodes, initializers and inputs; GraphDef: its nodes), as the importers
 * count them against max_nodes.
 *
 * The format is decided as fl_detect_format decides it (with
 * FL_FORMAT_AUTO): from the first top-level fields; bytes that are, or might
 * still turn out to be, another format (SavedModel, TF.js, TFLite) or that
 * are not valid wire format are kept whole and not counted (the importer
 * reports malformed bytes as it would have). Not thread-safe per scanner.
 * ------------------------------------------------------------------------- */
typedef struct fl_wire_scan fl_wire_scan;

/* A scanner for a model of `format` (FL_FORMAT_AUTO: detected; a format
 * other than ONNX or GraphDef keeps every byte); NULL when memory runs out. */
FL_EXTERN fl_wire_scan *fl_wire_scan_new(fl_format format, int64_t max_nodes,
                                         int64_t max_value_elements);
/* Frees s (NULL: nothing). */
FL_EXTERN void fl_wire_scan_free(fl_wire_scan *s);
/* Reads the next bytes of the model, n at p: returns how many of them (at
 * least 1) form the next run, with *keep 1 for bytes to keep, 0 for bytes
 * that may be left out. Call again with the rest. 0 when n is 0 or once the
 * node limit is passed (fl_wire_scan_error). */
FL_EXTERN size_t fl_wire_scan_next(fl_wire_scan *s, const uint8_t *p, size_t n, int *keep);
/* Once more than max_nodes nodes were met: what passed the limit and at
 * which byte; else NULL. */
FL_EXTERN const char *fl_wire_scan_error(const fl_wire_scan *s);
/* When a tensor whose payload was left out is given, after it, a type
 * whose payload the analysis reads (a 4-bit data_type repeated after
 * raw_data: the last one counts): which and where; else NULL. The caller
 * can no longer analyse the model from the kept runs. */
FL_EXTERN const char *fl_wire_scan_retyped(const fl_wire_scan *s);
/* Bytes left out so far. */
FL_EXTERN uint64_t fl_wire_scan_dropped(const fl_wire_scan *s);
/* Nodes counted so far. */
FL_EXTERN int64_t fl_wire_scan_nodes(const fl_wire_scan *s);

#ifdef __cplusplus
}
#endif

#endif
