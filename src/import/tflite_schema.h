/*
 * tflite_schema.h - what the TFLite reader knows of schema TFL3
 * (tensorflow/compiler/mlir/lite/schema/schema.fbs): the builtin operator
 * names by code and the fields of every BuiltinOptions / BuiltinOptions2
 * table, as data. Field slots follow the schema's declaration order (a union
 * field takes two slots: its type, then its value).
 */
#ifndef FL_IMPORT_TFLITE_SCHEMA_H
#define FL_IMPORT_TFLITE_SCHEMA_H

#include <stddef.h>

/* Name of BuiltinOperator `code` ("CONV_2D"), or NULL when the schema has
 * none. */
const char *fl__tfl_builtin_name(int code);

/* Largest builtin code the reader knows. */
int fl__tfl_builtin_max(void);

/*
 * The fields of options table `index` of union `which` (1: BuiltinOptions,
 * 2: BuiltinOptions2; index as stored in the *_type field, 1-based): a
 * space-separated list of NAME:TYPE[=DEFAULT], one per slot in order, TYPE
 * one of
 *   P Padding (byte; attr string "SAME"/"VALID")
 *   A ActivationFunctionType (byte; attr string "NONE", "RELU", ...)
 *   T TensorType (byte; attr type)      b bool    e byte enum (attr int)
 *   i int32   u uint32   l int64   f float   s string
 *   I [int]   L [long]   F [float]   B [bool]   x (not decoded)
 * NULL when unknown. *name receives the table's name.
 */
const char *fl__tfl_options_fields(int which, int index, const char **name);

#endif
