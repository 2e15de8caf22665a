/*
 * report_pb.h - the one mapping between the public report (fl_report,
 * include/foldline/foldline.h) and its wire form (foldline.v1.AnalyzeReply,
 * proto/foldline/v1/cost_model.proto).
 *
 * foldlined encodes its reports with fl_report_to_pb and the CLI's remote
 * mode decodes them with fl_report_from_pb, so local and remote output are
 * the same bytes. Both directions read one table per message (report_pb.c):
 * a field added to the report and the proto is one table row. This folder
 * (proto/glue/) is compiled into the server and into the CLI's remote-mode
 * module; it sees only the public headers and the generated messages, never
 * the engine, and calls no engine function.
 */
#ifndef FL_COMMON_REPORT_PB_H
#define FL_COMMON_REPORT_PB_H

#include "foldline/foldline.h"
#include "foldline/v1/cost_model.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A bump allocator: memory handed out zeroed, released in one go. */
typedef struct fl_pb_arena {
    struct fl_pb_block *head;
    bool failed; /* an allocation failed */
} fl_pb_arena;

void *fl_pb_alloc(fl_pb_arena *a, size_t size);
void fl_pb_arena_free(fl_pb_arena *a);

/* Fills `m` (initialised by the caller) from `r`. Sub-messages and arrays
 * are allocated in `a`; strings and bytes point into `r`, which must outlive
 * `m`. `version` goes into foldline_version. Returns false when memory ran
 * out or the report holds a name the proto's enums do not have (err says
 * which). */
bool fl_report_to_pb(const fl_report *r, const char *version, fl_pb_arena *a,
                     Foldline__V1__AnalyzeReply *m, char *err, size_t errlen);

/* Encodes `r` as AnalyzeReply bytes straight from the report: the bytes
 * protobuf-c packs from fl_report_to_pb's message (test_report_pb compares
 * them on every report it makes), with no message built. The buffer is
 * fl_pb_encode's (pbenc.h): *block to free, `front` bytes of room before
 * *data. false when memory ran out (*oom) or the report holds a name the
 * proto's enums do not have (err says which); nothing to free then. */
bool fl_report_encode(const fl_report *r, const char *version, size_t front, uint8_t **block,
                      uint8_t **data, size_t *len, bool *oom, char *err, size_t errlen);

/* Builds a report from `m`, taking ownership of it (freed with the
 * report). NULL when memory ran out (m is freed then too). */
fl_report *fl_report_from_pb(Foldline__V1__AnalyzeReply *m);

/* Releases a report made by fl_report_from_pb (NULL is fine). */
void fl_report_pb_free(fl_report *r);

/* A self-check for tests: NULL when every field of every message the
 * mapping reaches is handled by a table row and every row names a field
 * that exists; else "Message.field" of the first one that is not. */
const char *fl_report_pb_check(void);

/* An enum value's name as the report and the CLI write it: the proto's
 * value name without `prefix`, in lower case ("UNIT_MATRIX" -> "matrix"),
 * allocated in `a`. "?" when the value is not in the enum (a newer peer);
 * NULL when memory ran out. */
const char *fl_pb_enum_name(fl_pb_arena *a, const ProtobufCEnumDescriptor *e, const char *prefix,
                            int value);

/* The enum value named `name` as the report writes it (the inverse of
 * fl_pb_enum_name); false when there is none. */
bool fl_pb_enum_value(const ProtobufCEnumDescriptor *e, const char *prefix, const char *name,
                      int *value);

#endif
