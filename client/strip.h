/*
 * strip.h - drops large constant contents from a model before it is sent to
 * a server (`foldline --server ... --strip-weights [BYTES]`).
 */
#ifndef FL_CLIENT_STRIP_H
#define FL_CLIENT_STRIP_H

#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>

/* Sets *out to a malloc'd copy of the model (`len` bytes, format `fmt`; AUTO
 * is detected as the engine does) in which every Const whose tensor encodes
 * to more than `threshold` bytes has lost its contents and gained the attr
 * `_stripped_content_bytes` (the engine then knows its shape, dtype and size
 * but not its values; costs need only those), and *out_len; returns 0.
 * Constants inside library functions are left alone. For ONNX, initializers
 * and Constant values above the threshold keep name, dims and data_type and
 * lose their contents; for TFLite, buffers above it are emptied
 * (fl_strip_tflite).
 * Returns 1 (*out NULL) when the model is to be sent as it is: a TF.js
 * model.json (it holds no weight) or a TFLite flatbuffer the schema walk does
 * not fully know. Returns -1 with `err` naming what is wrong when the bytes
 * are not a model of a known format (nor a GraphDef with a node), do not
 * decode as the format given, exceed the wire-format limits of pbguard.h, or
 * memory runs out. */
int fl_strip_weights(const unsigned char *buf, size_t len, fl_format fmt, int64_t threshold,
                     unsigned char **out, size_t *out_len, char *err, size_t errlen);

#endif
