/*
 * dtype.h - tensor element types, numbered exactly as TensorFlow's DataType.
 *
 * The IR stores TensorFlow's numbers directly, so importing and writing back a
 * GraphDef needs no mapping. Reference types (value + 100) are folded to their
 * base type by fl_dtype_base() wherever element sizes or kinds are needed.
 */
#ifndef FL_GRAPH_DTYPE_H
#define FL_GRAPH_DTYPE_H

#include "foldline/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fl_dtype {
    FL_DT_INVALID = 0,
    FL_DT_FLOAT = 1,
    FL_DT_DOUBLE = 2,
    FL_DT_INT32 = 3,
    FL_DT_UINT8 = 4,
    FL_DT_INT16 = 5,
    FL_DT_INT8 = 6,
    FL_DT_STRING = 7,
    FL_DT_COMPLEX64 = 8,
    FL_DT_INT64 = 9,
    FL_DT_BOOL = 10,
    FL_DT_QINT8 = 11,
    FL_DT_QUINT8 = 12,
    FL_DT_QINT32 = 13,
    FL_DT_BFLOAT16 = 14,
    FL_DT_QINT16 = 15,
    FL_DT_QUINT16 = 16,
    FL_DT_UINT16 = 17,
    FL_DT_COMPLEX128 = 18,
    FL_DT_HALF = 19,
    FL_DT_RESOURCE = 20,
    FL_DT_VARIANT = 21,
    FL_DT_UINT32 = 22,
    FL_DT_UINT64 = 23,
    FL_DT_FLOAT8_E5M2 = 24,
    FL_DT_FLOAT8_E4M3FN = 25,
    FL_DT_FLOAT8_E4M3FNUZ = 26,
    FL_DT_FLOAT8_E4M3B11FNUZ = 27,
    FL_DT_FLOAT8_E5M2FNUZ = 28,
    FL_DT_INT4 = 29,
    FL_DT_UINT4 = 30,
    FL_DT_INT2 = 31,
    FL_DT_UINT2 = 32,
    FL_DT_FLOAT4_E2M1FN = 33,  /* ONNX FLOAT4E2M1 (opset 23), packed two per byte */
    FL_DT_FLOAT8_E8M0FNU = 34, /* ONNX FLOAT8E8M0 (opset 24, MX scales): no TensorFlow value;
                                * 34 is foldline's own, after TensorFlow's last (33) */
    FL_DT_REF_OFFSET = 100,
} fl_dtype;

/* Strips the _REF offset. */
static inline fl_dtype fl_dtype_base(int dt) {
    return (fl_dtype)(dt > FL_DT_REF_OFFSET ? dt - FL_DT_REF_OFFSET : dt);
}

/* True for a value TensorFlow defines (with or without _REF). */
bool fl__dtype_valid(int dt);

/* Element size in bytes in memory (tensor_content); 0 for string, resource,
 * variant and invalid types. Sub-byte types (int4, uint4, int2, uint2,
 * float4_e2m1fn) report 1, as TensorFlow stores one element per byte (ONNX
 * and TFLite pack them: the cost layer's byte rule). */
size_t fl__dtype_size(int dt);

/* "float", "int32", "float_ref", ... (TensorFlow's lower-case names). */
const char *fl__dtype_name(int dt);

bool fl__dtype_is_float(int dt);   /* half, bfloat16, float, double, float8, float4 */
bool fl__dtype_is_integer(int dt); /* signed/unsigned ints incl. quantized, 4/2-bit */
bool fl__dtype_is_complex(int dt);

/* ONNX's TensorProto.DataType -> fl_dtype; FL_DT_INVALID when unsupported
 * (the ONNX importer and the ONNX ops' Cast/ConstantOfShape dtype attrs). */
fl_dtype fl__onnx_dtype(int32_t onnx_type);

/* ONNX's name of a TensorProto.DataType value ("FLOAT", "FLOAT4E2M1"), NULL
 * for a value ONNX does not define (as far as we know). */
const char *fl__onnx_dtype_name(int32_t onnx_type);

/* Why an ONNX data type code has no fl_dtype: FL_EINVAL for UNDEFINED (0)
 * and negative codes (the model is wrong), FL_EUNSUPPORTED for a type ONNX
 * defines that foldline does not handle, or a code newer than it knows. */
fl_status fl__onnx_dtype_error(int32_t onnx_type);

#endif
