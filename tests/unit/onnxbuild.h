/*
 * onnxbuild.h - builds small ONNX ModelProtos in tests with the protobuf-c
 * structs generated from proto/onnx/onnx.proto.
 *
 *     ob_model *m = ob_new(13);
 *     ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 8, 8}, NULL);
 *     ob_init_f(m, "w", 4, (int64_t[]){4, 3, 3, 3}, true);   // stripped weights
 *     Onnx__NodeProto *c = ob_node(m, "Conv", "conv", "x,w", "y");
 *     ob_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
 *     ob_output(m, "y");
 *     size_t len;
 *     uint8_t *buf = ob_pack(m, &len);   // malloc'd
 *     ob_free(m);
 *
 * Every string and array is copied; ob_free releases them all.
 */
#ifndef FL_TEST_ONNXBUILD_H
#define FL_TEST_ONNXBUILD_H

#include "onnx/onnx.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ONNX element types used by the tests. */
enum { OB_FLOAT = 1, OB_UINT8 = 2, OB_INT8 = 3, OB_INT32 = 6, OB_INT64 = 7, OB_BOOL = 9 };

typedef struct ob_model ob_model;

/* A model importing ai.onnx at `opset`. */
ob_model *ob_new(int64_t opset);
/* Imports another operator set (e.g. "com.microsoft", 1). */
void ob_opset(ob_model *m, const char *domain, int64_t version);
/* A graph input; dims < 0 are dims without value; params[i] (when params
 * and params[i] are non-NULL) names dim i with a dim_param. rank < 0: no
 * shape. */
void ob_input(ob_model *m, const char *name, int elem_type, int rank, const int64_t *dims,
              const char *const *params);
/* Wraps the type of the last graph input added: each letter of `how`, in
 * order, in a sequence ('s'), an optional ('o') or as a map's value with
 * int64 keys ('m'): "so" makes optional(sequence(tensor)). */
void ob_input_wrap(ob_model *m, const char *how);
/* A float initializer of zeros in raw_data, or with empty raw_data
 * (stripped). */
Onnx__TensorProto *ob_init_f(ob_model *m, const char *name, int rank, const int64_t *dims,
                             bool stripped);
/* An initializer of any element type whose raw_data is the `bytes` bytes
 * at `data` (little-endian elements), or stripped (empty) when data is
 * NULL. */
Onnx__TensorProto *ob_init_raw(ob_model *m, const char *name, int elem_type, int rank,
                               const int64_t *dims, const void *data, size_t bytes);
/* An int64 initializer holding `vals` (raw_data). */
Onnx__TensorProto *ob_init_i64(ob_model *m, const char *name, int rank, const int64_t *dims,
                               const int64_t *vals);
/* A node; `inputs` and `outputs` are comma-separated value names (an empty
 * item is an absent optional input: "x,,max"). */
Onnx__NodeProto *ob_node(ob_model *m, const char *op, const char *name, const char *inputs,
                         const char *outputs);
void ob_domain(ob_model *m, Onnx__NodeProto *n, const char *domain);
void ob_attr_i(ob_model *m, Onnx__NodeProto *n, const char *name, int64_t v);
void ob_attr_f(ob_model *m, Onnx__NodeProto *n, const char *name, float v);
/* A graph attr (If's branches, Loop's and Scan's body): body's graph,
 * borrowed (free body after m is packed). */
void ob_attr_graph(ob_model *m, Onnx__NodeProto *n, const char *name, ob_model *body);
void ob_attr_s(ob_model *m, Onnx__NodeProto *n, const char *name, const char *v);
void ob_attr_strings(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt,
                     const char *const *v);
void ob_attr_ints(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt, const int64_t *v);
void ob_attr_floats(ob_model *m, Onnx__NodeProto *n, const char *name, size_t cnt, const float *v);
/* A tensor attr (e.g. Constant's value) holding int64 values. */
void ob_attr_tensor_i64(ob_model *m, Onnx__NodeProto *n, const char *name, int rank,
                        const int64_t *dims, const int64_t *vals);
/* Declares a graph output. */
void ob_output(ob_model *m, const char *name);
/* Declares the graph outputs prefix1 .. prefix<cnt> (e.g. y1, y2, y3). */
void ob_outputs(ob_model *m, const char *prefix, int cnt);
/* Declares a graph output with a tensor type (a body's declared outputs). */
void ob_output_typed(ob_model *m, const char *name, int elem_type, int rank, const int64_t *dims);
/* Serialises the model; the caller frees the buffer. */
uint8_t *ob_pack(ob_model *m, size_t *len);
void ob_free(ob_model *m);

#endif
