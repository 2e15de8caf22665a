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

/* Encodes m. On success *block is a malloc'd block (free it), the bytes are
 * *data .. *data + *len, and `front` bytes before *data are the caller's (a
 * prefix written in place). false when memory ran out (nothing to free). */
bool fl_pb_encode(const ProtobufCMessage *m, size_t front, uint8_t **block, uint8_t **data,
                  size_t *len);

#endif
