/*
 * onnx_wire.h - an ONNX ModelProto read with code of its own for the
 * messages a graph holds in bulk (see onnx_wire.c).
 */
#ifndef FL_IMPORT_ONNX_WIRE_H
#define FL_IMPORT_ONNX_WIRE_H

#include "import/pbwire.h"
#include "onnx/onnx.pb-c.h"

/* Decodes `len` bytes at `buf` as a ModelProto into the arena: the same
 * message, field for field, as fl__pbwire_unpack(a,
 * &onnx__model_proto__descriptor, ...) gives (bytes are views into buf,
 * which must outlive it), and on malformed input the same NULL and *err,
 * since such input is read again by that reader. */
Onnx__ModelProto *fl__onnx_wire_unpack(fl_arena *a, const uint8_t *buf, size_t len,
                                       fl_pbwire_error *err);

#endif
