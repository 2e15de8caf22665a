/*
 * tflite_fb.c - see tflite_fb.h.
 */
#include "import/tflite_fb.h"

#include <stdio.h>
#include <string.h>

static void bad(fl_fb_reader *r, const char *what, uint64_t at) {
    if (!r->bad) {
        snprintf(r->why, sizeof r->why, "%s at byte %llu of %zu", what, (unsigned long long)at,
                 r->len);
    }
    r->bad = true;
}

static bool in(const fl_fb_reader *r, uint64_t pos, uint64_t n) {
    return pos <= r->len && n <= r->len - pos;
}

static uint32_t rd_u32(const fl_fb_reader *r, uint64_t pos) {
    const uint8_t *p = r->p + pos;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd_u16(const fl_fb_reader *r, uint64_t pos) {
    return (uint16_t)(r->p[pos] | r->p[pos + 1] << 8);
}

static uint64_t rd_u64(const fl_fb_reader *r, uint64_t pos) {
    return (uint64_t)rd_u32(r, pos) | (uint64_t)rd_u32(r, pos + 4) << 32;
}

fl_fb_table fl__fb_table_at(fl_fb_reader *r, uint32_t pos) {
    fl_fb_table t = {0, 0, 0, 0, false};
    if (!in(r, pos, 4)) {
        bad(r, "table offset outside the file", pos);
        return t;
    }
    int64_t vt = (int64_t)pos - (int32_t)rd_u32(r, pos);
    if (vt < 0 || !in(r, (uint64_t)vt, 4)) {
        bad(r, "vtable outside the file", pos);
        return t;
    }
    uint16_t vt_len = rd_u16(r, (uint64_t)vt), t_len = rd_u16(r, (uint64_t)vt + 2);
    if (vt_len < 4 || vt_len % 2 || !in(r, (uint64_t)vt, vt_len)) {
        bad(r, "vtable with an invalid size", (uint64_t)vt);
        return t;
    }
    if (t_len < 4 || !in(r, pos, t_len)) {
        bad(r, "table larger than the file", pos);
        return t;
    }
    t.pos = pos;
    t.vt = (uint32_t)vt;
    t.vt_len = vt_len;
    t.t_len = t_len;
    t.ok = true;
    return t;
}

fl_fb_table fl__fb_root(fl_fb_reader *r) {
    if (r->len < 8) {
        bad(r, "file too short for a flatbuffer", 0);
        return (fl_fb_table){0, 0, 0, 0, false};
    }
    return fl__fb_table_at(r, rd_u32(r, 0));
}

/* Position of field `slot` of width `size`, 0 when absent. */
static uint32_t field(fl_fb_reader *r, fl_fb_table t, int slot, size_t size) {
    if (!t.ok) {
        return 0;
    }
    uint32_t vo = 4 + 2 * (uint32_t)slot;
    if (vo + 2 > t.vt_len) {
        return 0;
    }
    uint16_t off = rd_u16(r, (uint64_t)t.vt + vo);
    if (!off) {
        return 0;
    }
    if ((uint32_t)off + size > t.t_len) {
        bad(r, "field outside its table", t.pos);
        return 0;
    }
    return t.pos + off;
}

bool fl__fb_has(fl_fb_reader *r, fl_fb_table t, int slot) {
    return field(r, t, slot, 1) != 0;
}

uint8_t fl__fb_u8(fl_fb_reader *r, fl_fb_table t, int slot, uint8_t dflt) {
    uint32_t f = field(r, t, slot, 1);
    return f ? r->p[f] : dflt;
}

int8_t fl__fb_i8(fl_fb_reader *r, fl_fb_table t, int slot, int8_t dflt) {
    uint32_t f = field(r, t, slot, 1);
    return f ? (int8_t)r->p[f] : dflt;
}

int32_t fl__fb_i32(fl_fb_reader *r, fl_fb_table t, int slot, int32_t dflt) {
    uint32_t f = field(r, t, slot, 4);
    return f ? (int32_t)rd_u32(r, f) : dflt;
}

uint32_t fl__fb_u32(fl_fb_reader *r, fl_fb_table t, int slot, uint32_t dflt) {
    uint32_t f = field(r, t, slot, 4);
    return f ? rd_u32(r, f) : dflt;
}

int64_t fl__fb_i64(fl_fb_reader *r, fl_fb_table t, int slot, int64_t dflt) {
    uint32_t f = field(r, t, slot, 8);
    return f ? (int64_t)rd_u64(r, f) : dflt;
}

uint64_t fl__fb_u64(fl_fb_reader *r, fl_fb_table t, int slot, uint64_t dflt) {
    uint32_t f = field(r, t, slot, 8);
    return f ? rd_u64(r, f) : dflt;
}

float fl__fb_f32(fl_fb_reader *r, fl_fb_table t, int slot, float dflt) {
    uint32_t f = field(r, t, slot, 4);
    if (!f) {
        return dflt;
    }
    uint32_t u = rd_u32(r, f);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* Target of the uoffset field at f (0 when f is 0). */
static uint32_t target(fl_fb_reader *r, uint32_t f) {
    if (!f) {
        return 0;
    }
    uint64_t to = (uint64_t)f + rd_u32(r, f);
    if (to >= r->len) {
        bad(r, "offset outside the file", f);
        return 0;
    }
    return (uint32_t)to;
}

fl_fb_table fl__fb_table_field(fl_fb_reader *r, fl_fb_table t, int slot) {
    uint32_t to = target(r, field(r, t, slot, 4));
    return to ? fl__fb_table_at(r, to) : (fl_fb_table){0, 0, 0, 0, false};
}

fl_fb_vec fl__fb_vec_field(fl_fb_reader *r, fl_fb_table t, int slot, size_t elem) {
    fl_fb_vec v = {0, 0};
    uint32_t to = target(r, field(r, t, slot, 4));
    if (!to) {
        return v;
    }
    if (!in(r, to, 4)) {
        bad(r, "vector length outside the file", to);
        return v;
    }
    uint32_t n = rd_u32(r, to);
    if (!in(r, (uint64_t)to + 4, (uint64_t)n * elem)) {
        bad(r, "vector longer than the file", to);
        return v;
    }
    v.pos = to + 4;
    v.n = n;
    return v;
}

const char *fl__fb_str(fl_fb_reader *r, fl_fb_table t, int slot, uint32_t *len) {
    fl_fb_vec v = fl__fb_vec_field(r, t, slot, 1);
    *len = v.n;
    return v.pos ? (const char *)r->p + v.pos : NULL;
}

fl_fb_table fl__fb_vec_table(fl_fb_reader *r, fl_fb_vec v, uint32_t i) {
    if (i >= v.n) {
        bad(r, "vector index out of range", v.pos);
        return (fl_fb_table){0, 0, 0, 0, false};
    }
    uint32_t to = target(r, v.pos + 4 * i);
    return to ? fl__fb_table_at(r, to) : (fl_fb_table){0, 0, 0, 0, false};
}

int32_t fl__fb_vec_i32(fl_fb_reader *r, fl_fb_vec v, uint32_t i) {
    if (i >= v.n) {
        bad(r, "vector index out of range", v.pos);
        return 0;
    }
    return (int32_t)rd_u32(r, (uint64_t)v.pos + 4 * (uint64_t)i);
}

int64_t fl__fb_vec_i64(fl_fb_reader *r, fl_fb_vec v, uint32_t i) {
    if (i >= v.n) {
        bad(r, "vector index out of range", v.pos);
        return 0;
    }
    return (int64_t)rd_u64(r, (uint64_t)v.pos + 8 * (uint64_t)i);
}

float fl__fb_vec_f32(fl_fb_reader *r, fl_fb_vec v, uint32_t i) {
    uint32_t u = (uint32_t)fl__fb_vec_i32(r, v, i);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint8_t fl__fb_vec_u8(fl_fb_reader *r, fl_fb_vec v, uint32_t i) {
    if (i >= v.n) {
        bad(r, "vector index out of range", v.pos);
        return 0;
    }
    return r->p[v.pos + i];
}
