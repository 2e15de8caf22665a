/*
 * onnx_ext.h - ONNX external data (TensorProto.data_location EXTERNAL): a
 * tensor's bytes stored in another file, named by external_data entries
 * `location` (relative to the model's directory), `offset` and `length`.
 *
 * The file comes from the model's side files (fl_options.files, looked up by
 * exact name, then by base name); its range becomes a view, read only when a
 * value is needed. A file not given leaves the tensor a stripped constant
 * (its size counted, value unknown) with one warning per file. A location
 * that leaves the model's directory, a range past the file's end, a length
 * that disagrees with dims and data_type, and two tensors whose ranges
 * overlap are FL_EINVAL naming the tensor and the field.
 */
#ifndef FL_IMPORT_ONNX_EXT_H
#define FL_IMPORT_ONNX_EXT_H

#include "graph/graph.h"
#include "import/import.h"
#include "onnx/onnx.pb-c.h"

typedef struct fl_onnx_ext_range {
    const fl_file *file;
    uint64_t off, len;
    const char *tensor; /* the node named after the tensor */
} fl_onnx_ext_range;

typedef struct fl_onnx_ext {
    const fl_import_files *files; /* may be NULL */
    fl_onnx_ext_range *ranges;    /* scratch of `scratch`; fl__onnx_ext_free */
    size_t n, cap;
    const char **warned; /* locations already warned about (arena) */
    size_t n_warned;
    fl_arena *scratch; /* the graph's arena, once a range is held */
} fl_onnx_ext;

/* Resolves tensor p's external data of `want` bytes. *bytes is the view, or
 * NULL when the file was not given (warned once). */
fl_status fl__onnx_ext_resolve(fl_onnx_ext *x, fl_graph *g, fl_diag *d, const fl_node *node,
                               const Onnx__TensorProto *p, uint64_t want, const uint8_t **bytes);

/* Fails when two resolved ranges of one file overlap. */
fl_status fl__onnx_ext_check_overlap(fl_onnx_ext *x, fl_diag *d);

void fl__onnx_ext_free(fl_onnx_ext *x);

#endif
