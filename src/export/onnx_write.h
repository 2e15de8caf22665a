/*
 * onnx_write.h - writes the IR of an imported ONNX model back as a binary
 * ModelProto.
 */
#ifndef FL_EXPORT_ONNX_WRITE_H
#define FL_EXPORT_ONNX_WRITE_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Serialises g (imported from ONNX: g->onnx.model set) as a ModelProto:
 * the imported model's header, graph inputs and outputs, every live
 * constant as an initializer and every operator in topological order (see
 * onnx_write.c for names, domains and attributes). On success *out is a
 * malloc'd buffer of *len bytes (the caller frees it); scratch memory comes
 * from g's arena and the imported message (whose bytes must still be
 * alive). FL_ENOMEM, or FL_EINVAL naming the node when a node or constant
 * has no ONNX form. */
fl_status fl__onnx_write(fl_graph *g, uint8_t **out, size_t *len, fl_diag *d);

#endif
