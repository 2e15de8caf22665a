/*
 * tflite_strip.h - a TFLite model without the data of its large buffers
 * (`--strip-weights`): the bytes a registry sends for an analysis.
 */
#ifndef FL_IMPORT_TFLITE_STRIP_H
#define FL_IMPORT_TFLITE_STRIP_H

#include <stddef.h>
#include <stdint.h>

/* A malloc'd copy of the TFLite model buf[0, len) in which every buffer
 * whose data is longer than `threshold` bytes is empty (its tensors keep
 * name, type and shape, from which the analysis counts their full size), the
 * rest of the flatbuffer unchanged but for its offsets; *out_len its size.
 * NULL when the bytes are not a flatbuffer this schema describes completely
 * (a field it does not know, data outside the flatbuffer, an offset into
 * the bytes to cut) or memory runs out: the caller then sends the model
 * whole. */
uint8_t *fl__tflite_strip(const uint8_t *buf, size_t len, int64_t threshold, size_t *out_len);

#endif
