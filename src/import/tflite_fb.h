/*
 * tflite_fb.h - a bounds-checked reader of FlatBuffers (the TFLite file
 * format), reading the bytes in place.
 *
 * Every access validates against the buffer before reading: a table's
 * vtable offset, the vtable's size (even, at least 4) and its table size, a
 * field's offset and width inside its table, an offset field's target, a
 * vector's length against the bytes after it, a string's length. A failed
 * check sets r->bad (and the first message in r->why) and the access
 * returns the field's default, so callers read a whole structure and check
 * r->bad once. Nothing here recurses, so reference cycles in a hostile file
 * cannot loop; the callers' walk of the schema has a fixed depth.
 */
#ifndef FL_IMPORT_TFLITE_FB_H
#define FL_IMPORT_TFLITE_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_fb_reader {
    const uint8_t *p;
    size_t len;
    bool bad;
    char why[160]; /* the first failed check */
} fl_fb_reader;

/* A table: its position, its vtable's, the vtable size and table size. */
typedef struct fl_fb_table {
    uint32_t pos, vt;
    uint16_t vt_len, t_len;
    bool ok; /* false: absent or invalid (every field reads as default) */
} fl_fb_table;

/* A vector: position of element 0 and count. */
typedef struct fl_fb_vec {
    uint32_t pos;
    uint32_t n;
} fl_fb_vec;

/* The root table (the uoffset at 0). */
fl_fb_table fl__fb_root(fl_fb_reader *r);

/* Scalars of field `slot` of t, or `dflt` when absent. */
uint8_t fl__fb_u8(fl_fb_reader *r, fl_fb_table t, int slot, uint8_t dflt);
int8_t fl__fb_i8(fl_fb_reader *r, fl_fb_table t, int slot, int8_t dflt);
int32_t fl__fb_i32(fl_fb_reader *r, fl_fb_table t, int slot, int32_t dflt);
uint32_t fl__fb_u32(fl_fb_reader *r, fl_fb_table t, int slot, uint32_t dflt);
int64_t fl__fb_i64(fl_fb_reader *r, fl_fb_table t, int slot, int64_t dflt);
uint64_t fl__fb_u64(fl_fb_reader *r, fl_fb_table t, int slot, uint64_t dflt);
float fl__fb_f32(fl_fb_reader *r, fl_fb_table t, int slot, float dflt);
/* True when field `slot` is present. */
bool fl__fb_has(fl_fb_reader *r, fl_fb_table t, int slot);

/* Table, vector (elements of `elem` bytes) and string fields; absent gives
 * an empty result. */
fl_fb_table fl__fb_table_field(fl_fb_reader *r, fl_fb_table t, int slot);
fl_fb_vec fl__fb_vec_field(fl_fb_reader *r, fl_fb_table t, int slot, size_t elem);
/* A string: *len bytes at the returned pointer (NULL when absent). */
const char *fl__fb_str(fl_fb_reader *r, fl_fb_table t, int slot, uint32_t *len);

/* Element i of a vector of tables (offsets). */
fl_fb_table fl__fb_vec_table(fl_fb_reader *r, fl_fb_vec v, uint32_t i);
/* Elements of scalar vectors (i < v.n, checked). */
int32_t fl__fb_vec_i32(fl_fb_reader *r, fl_fb_vec v, uint32_t i);
int64_t fl__fb_vec_i64(fl_fb_reader *r, fl_fb_vec v, uint32_t i);
float fl__fb_vec_f32(fl_fb_reader *r, fl_fb_vec v, uint32_t i);
uint8_t fl__fb_vec_u8(fl_fb_reader *r, fl_fb_vec v, uint32_t i);

/* The table at position pos (a union value's target, already resolved). */
fl_fb_table fl__fb_table_at(fl_fb_reader *r, uint32_t pos);

#endif
