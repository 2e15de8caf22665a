/*
 * strip.h - drops large constant contents from a model before it is sent to
 * a server (`foldline --server ... --strip-weights [BYTES]`).
 */
#ifndef FL_CLIENT_STRIP_H
#define FL_CLIENT_STRIP_H

#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>

/* Returns a malloc'd copy of the model (`len` bytes, format `fmt`; AUTO is
 * detected as the engine does) in which every Const whose tensor encodes to
 * more than `threshold` bytes has lost its contents and gained the attr
 * `_stripped_content_bytes` (the engine then knows its shape, dtype and size
 * but not its values; costs need only those). Sets *out_len. Returns NULL when
 * the bytes do not decode (the caller sends them unchanged and lets the
 * server report the problem) or memory runs out. Constants inside library
 * functions are left alone. For ONNX, initializers and Constant values above
 * the threshold keep name, dims and data_type and lose their contents; for
 * TFLite, buffers above it are emptied (fl_strip_tflite). */
unsigned char *fl_strip_weights(const unsigned char *buf, size_t len, fl_format fmt,
                                int64_t threshold, size_t *out_len);

#endif
