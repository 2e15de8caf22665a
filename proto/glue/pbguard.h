/*
 * pbguard.h - limits checked on a protobuf message's wire bytes before
 * protobuf-c unpacks them.
 *
 * protobuf-c (1.4, 1.5) unpacks each occurrence of a singular message field
 * on its own and merges the earlier result into the later one, copying every
 * repeated field of the earlier into a new array. k occurrences that each
 * carry repeated entries cost O(k^2) copies: 40,000 occurrences of
 * AnalyzeRequest.options, each with one `profiles` string (200 KB), take
 * 16 s to unpack (tests/bench/bench_unpack.c). protobuf-c also recurses once
 * per nesting level with no bound.
 *
 * fl_pb_guard walks the bytes once (linear time, no allocation for messages
 * of up to 64 fields) and rejects a message in which
 *   - one singular message field occurs more than FL_PB_MAX_OCCURRENCES times
 *     within one enclosing message (an encoder writes it once; concatenated
 *     messages a few times), or
 *   - messages nest deeper than FL_PB_MAX_DEPTH levels (protobuf's own
 *     default recursion limit).
 * With both bounds, protobuf-c's unpack is linear in the input. Bytes that are
 * not valid wire format are left to protobuf-c to reject.
 */
#ifndef FL_COMMON_PBGUARD_H
#define FL_COMMON_PBGUARD_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#define FL_PB_MAX_OCCURRENCES 16
#define FL_PB_MAX_DEPTH       100

/* 0 when the message is within the limits (or not valid wire format), else -1
 * with `err` naming the field by its path from the top message
 * ("options.llm", "node[3].attr[0].value.list") and the limit. */
int fl_pb_guard(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len, char *err,
                size_t errlen);

#endif
