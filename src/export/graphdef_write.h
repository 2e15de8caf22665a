/*
 * graphdef_write.h - writes foldline's IR back as a binary TensorFlow GraphDef.
 */
#ifndef FL_EXPORT_GRAPHDEF_WRITE_H
#define FL_EXPORT_GRAPHDEF_WRITE_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Serialises g (every node in g->nodes order: name, op, device, inputs as
 * "name", "name:port", "^name", and every attr) with the original GraphDef's
 * versions and function library when g->src is set. Constants keep their
 * original TensorProto when they have one; new constants are written with
 * little-endian tensor_content; a stripped constant is written without
 * content and with attr _stripped_content_bytes, as the importer reads it.
 * On success *out is a malloc'd buffer of *len bytes (the caller frees it);
 * scratch memory comes from g's arena. FL_ENOMEM or FL_EINVAL (a constant
 * whose value cannot be written) with d failed. */
fl_status fl__graphdef_write(const fl_graph *g, uint8_t **out, size_t *len, fl_diag *d);

#endif
