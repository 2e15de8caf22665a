/*
 * pbutil.h - what the importers share about protobuf-c: unpacking a file's
 * bytes into the graph's arena, little-endian element reads, the size of a
 * field's value in the generated structs.
 */
#ifndef FL_IMPORT_PBUTIL_H
#define FL_IMPORT_PBUTIL_H

#include "graph/graph.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unpacks `len` bytes as a message of type `desc` with the zero-copy reader
 * (pbwire.h: bytes fields are views into buf, which must outlive the
 * messages), allocating in g's arena (released with it). NULL with d failed
 * when the bytes do not decode ("not a valid binary WHAT (N bytes could not
 * be decoded as protobuf: WHY, in field 'F' of TYPE at byte K)") or memory
 * runs out. */
void *fl__pb_unpack(fl_graph *g, const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                    size_t len, const char *what, fl_diag *d);

/* Fails d with what fl__pb_unpack says when a read of `len` bytes as a
 * WHAT failed with *e. */
struct fl_pbwire_error;
void fl__pb_unpack_fail(fl_graph *g, const struct fl_pbwire_error *e, size_t len, const char *what,
                        fl_diag *d);

/* The little-endian integer of `size` (1..8) bytes at p, sign-extended when
 * is_signed. */
int64_t fl__pb_read_le(const uint8_t *p, size_t size, bool is_signed);

/* The bytes one value of type t takes in a protobuf-c struct (an element of
 * a repeated field's array, or a singular field). */
size_t fl__pb_elem_size(ProtobufCType t);

#endif
