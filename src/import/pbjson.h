/*
 * pbjson.h - protobuf's JSON mapping read into protobuf-c messages.
 *
 * One generic reader driven by the generated descriptors, so any message of
 * our schemas (a TF.js modelTopology is a tensorflow.GraphDef) can come from
 * JSON: keys are a field's lowerCamelCase JSON name or its proto name; int64
 * and uint64 as strings or numbers; bytes as base64 (standard or URL-safe);
 * enums by name or number; floats as numbers or "NaN"/"Infinity"/"-Infinity";
 * maps as objects; oneofs set their case. Keys the schema does not name are
 * ignored, as protobuf's parsers do with ignore_unknown_fields. Everything is
 * allocated in the graph's arena and copied out of the JSON tree, which the
 * caller may free afterwards.
 */
#ifndef FL_IMPORT_PBJSON_H
#define FL_IMPORT_PBJSON_H

#include "graph/graph.h"
#include "import/fjson.h"

#include <protobuf-c/protobuf-c.h>
#include <stdint.h>

/* Reads `j` (a JSON object) as a message of type `desc`. `path` names the
 * value in messages ("modelTopology"). NULL with d failed (FL_EINVAL naming
 * the field path and what is wrong, or FL_ENOMEM). */
ProtobufCMessage *fl__pbjson_read(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                  const fl_json *j, const char *path, fl_diag *d);

/* Decodes base64 (standard or URL-safe alphabet, padding optional) into the
 * arena. Returns false on a character outside the alphabet or a bad length. */
bool fl__base64_decode(fl_arena *a, const char *s, size_t len, ProtobufCBinaryData *out);

#endif
