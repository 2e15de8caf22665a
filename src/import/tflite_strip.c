/*
 * tflite_strip.c - see tflite_strip.h. The flatbuffer is walked in full by
 * schema TFL3 (every table the schema names, the builtin options through
 * tflite_schema.c's field lists), recording where every offset is: the
 * uoffsets (a table's child, a vector, a string, a vector's elements) and
 * each table's soffset to its vtable. The data of each buffer above the
 * threshold is then cut out (its vector keeps its length field, set to 0),
 * by a multiple of 16 bytes so that everything after keeps its alignment,
 * and every recorded offset is rewritten for the new positions: a uoffset
 * at p to q becomes new(q) - new(p), new(x) = x minus the bytes cut before
 * x. Tables themselves do not change (their fields sit where they were
 * relative to the table). A field the schema does not know, data outside
 * the flatbuffer (offset/size buffers, large custom options) or an offset
 * into cut bytes leaves the model unstripped (NULL): nothing can be missed.
 */
#include "import/tflite_strip.h"

#include "import/tflite_fb.h"
#include "import/tflite_schema.h"

#include <stdlib.h>
#include <string.h>

typedef struct cut {
    uint32_t from, to; /* bytes [from, to) removed */
} cut;

typedef struct strip {
    fl_fb_reader r;
    uint32_t *sites; /* uoffset positions */
    size_t n_sites, cap_sites;
    uint32_t *tables; /* table positions (their soffsets) */
    size_t n_tables, cap_tables;
    uint8_t *seen; /* tables walked, by position / 4 */
    cut *cuts;
    size_t n_cuts, cap_cuts;
    int64_t threshold;
    bool fail;
} strip;

static uint32_t rd32(const strip *s, uint32_t pos) {
    const uint8_t *p = s->r.p + pos;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static bool add(uint32_t **v, size_t *n, size_t *cap, uint32_t x) {
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        uint32_t *nv = realloc(*v, c * sizeof *nv);
        if (!nv) {
            return false;
        }
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return true;
}

/* Position of present field `slot` (0 when absent). */
static uint32_t field_pos(strip *s, fl_fb_table t, int slot) {
    uint32_t vo = 4 + 2 * (uint32_t)slot;
    if (!t.ok || vo + 2 > t.vt_len) {
        return 0;
    }
    uint16_t off = (uint16_t)(s->r.p[t.vt + vo] | s->r.p[t.vt + vo + 1] << 8);
    if (off && off >= t.t_len) {
        s->fail = true;
        return 0;
    }
    return off ? t.pos + off : 0;
}

/* The uoffset of field `slot`: recorded; its target (0 when absent). */
static uint32_t uoff(strip *s, fl_fb_table t, int slot) {
    uint32_t f = field_pos(s, t, slot);
    if (!f) {
        return 0;
    }
    if ((uint64_t)f + 4 > (uint64_t)t.pos + t.t_len) {
        s->fail = true;
        return 0;
    }
    uint64_t q = (uint64_t)f + rd32(s, f);
    if (q + 4 > s->r.len || !add(&s->sites, &s->n_sites, &s->cap_sites, f)) {
        s->fail = true;
        return 0;
    }
    return (uint32_t)q;
}

/* A table at pos with `known` slots: recorded once; false when it was walked
 * before, is invalid or has a field past `known`. */
static bool enter(strip *s, uint32_t pos, int known, fl_fb_table *t) {
    *t = fl__fb_table_at(&s->r, pos);
    if (!t->ok || pos % 4) {
        s->fail = true;
        return false;
    }
    if (s->seen[pos / 4]) {
        return false;
    }
    s->seen[pos / 4] = 1;
    for (int k = known; 4 + 2 * (uint32_t)k + 2 <= t->vt_len; k++) {
        if (field_pos(s, *t, k)) {
            s->fail = true; /* a field this schema does not know */
            return false;
        }
    }
    if (!add(&s->tables, &s->n_tables, &s->cap_tables, pos)) {
        s->fail = true;
        return false;
    }
    return true;
}

typedef void (*walk_fn)(strip *s, uint32_t pos);

/* Field `slot`, a vector of tables: the vector's offset, each element's,
 * and each table through fn. */
static void vec_of(strip *s, fl_fb_table t, int slot, walk_fn fn) {
    uint32_t v = uoff(s, t, slot);
    if (!v || s->fail) {
        return;
    }
    uint32_t n = rd32(s, v);
    if ((uint64_t)v + 4 + 4 * (uint64_t)n > s->r.len) {
        s->fail = true;
        return;
    }
    for (uint32_t i = 0; i < n && !s->fail; i++) {
        uint32_t e = v + 4 + 4 * i;
        uint64_t q = (uint64_t)e + rd32(s, e);
        if (q + 4 > s->r.len || !add(&s->sites, &s->n_sites, &s->cap_sites, e)) {
            s->fail = true;
            return;
        }
        fn(s, (uint32_t)q);
    }
}

/* Fields that are offsets to leaves (strings, scalar vectors). */
static void leaves(strip *s, fl_fb_table t, const int *slots, int n) {
    for (int i = 0; i < n; i++) {
        uoff(s, t, slots[i]);
    }
}

/* A table of `known` slots whose offset fields (`slots`) are all leaves. */
static void leaf_table(strip *s, uint32_t pos, int known, const int *slots, int n) {
    fl_fb_table t;
    if (enter(s, pos, known, &t)) {
        leaves(s, t, slots, n);
    }
}

/* ------------------------------------------------------------------------- */
/* Schema TFL3                                                                */
/* ------------------------------------------------------------------------- */

static void w_opcode(strip *s, uint32_t pos) {
    leaf_table(s, pos, 4, (const int[]){1}, 1); /* custom_code */
}

static void w_tensor_map(strip *s, uint32_t pos) {
    leaf_table(s, pos, 2, (const int[]){0}, 1); /* name */
}

static void w_metadata(strip *s, uint32_t pos) {
    leaf_table(s, pos, 2, (const int[]){0}, 1);
}

static void w_variant(strip *s, uint32_t pos) {
    leaf_table(s, pos, 3, (const int[]){0}, 1); /* shape */
}

/* DimensionMetadata: array_segments (3) and array_indices (5) are union
 * tables of one vector (Int32Vector, Uint16Vector, Uint8Vector). */
static void w_dim(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 6, &t)) {
        return;
    }
    for (int slot = 3; slot <= 5; slot += 2) {
        uint32_t u = uoff(s, t, slot);
        if (u) {
            leaf_table(s, u, 1, (const int[]){0}, 1);
        }
    }
}

static void w_tensor(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 10, &t)) {
        return;
    }
    leaves(s, t, (const int[]){0, 3, 7}, 3); /* shape, name, shape_signature */
    uint32_t q = uoff(s, t, 4);              /* QuantizationParameters */
    fl_fb_table qt;
    if (q && enter(s, q, 7, &qt)) {
        leaves(s, qt, (const int[]){0, 1, 2, 3}, 4); /* min, max, scale, zero_point */
        uint32_t d = uoff(s, qt, 5);                 /* CustomQuantization */
        if (d) {
            leaf_table(s, d, 1, (const int[]){0}, 1);
        }
    }
    uint32_t sp = uoff(s, t, 6); /* SparsityParameters */
    fl_fb_table st;
    if (sp && enter(s, sp, 3, &st)) {
        leaves(s, st, (const int[]){0, 1}, 2);
        vec_of(s, st, 2, w_dim);
    }
    vec_of(s, t, 9, w_variant);
}

/* Builtin options table of union `which`, type `type`: its field list. */
static void w_options(strip *s, fl_fb_table op, int type_slot, int slot, int which) {
    int type = fl__fb_u8(&s->r, op, type_slot, 0);
    uint32_t pos = uoff(s, op, slot);
    if (!pos) {
        return;
    }
    const char *name = NULL;
    const char *spec = type ? fl__tfl_options_fields(which, type, &name) : NULL;
    int n = 0, offs[32], no = 0;
    for (const char *p = spec; p && *p; n++) {
        const char *c = strchr(p, ':');
        if (!c || no == 32) {
            s->fail = true;
            return;
        }
        /* s string, I/L/F/B vectors, x: the undecoded fields, all vectors of
         * scalars in this schema (precision_config, custom_attributes,
         * composite_attributes) */
        if (strchr("sILFBx", c[1])) {
            offs[no++] = n;
        }
        p = strchr(c, ' ');
        p = p ? p + 1 : c + strlen(c);
    }
    if (!spec) {
        s->fail = true;
        return;
    }
    leaf_table(s, pos, n, offs, no);
}

static void w_operator(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 13, &t)) {
        return;
    }
    if (fl__fb_u64(&s->r, t, 9, 0) > 1) {
        s->fail = true; /* large custom options outside the flatbuffer */
        return;
    }
    leaves(s, t, (const int[]){1, 2, 5, 7, 8}, 5);
    w_options(s, t, 3, 4, 1);
    w_options(s, t, 11, 12, 2);
}

static void w_subgraph(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 6, &t)) {
        return;
    }
    vec_of(s, t, 0, w_tensor);
    leaves(s, t, (const int[]){1, 2, 4}, 3);
    vec_of(s, t, 3, w_operator);
}

static void w_signature(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 5, &t)) {
        return;
    }
    vec_of(s, t, 0, w_tensor_map);
    vec_of(s, t, 1, w_tensor_map);
    leaves(s, t, (const int[]){2, 3}, 2);
}

/* A buffer: its data vector, cut when above the threshold. */
static void w_buffer(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 3, &t)) {
        return;
    }
    if (fl__fb_u64(&s->r, t, 1, 0) > 1) {
        s->fail = true; /* data outside the flatbuffer */
        return;
    }
    uint32_t v = uoff(s, t, 0);
    if (!v) {
        return;
    }
    uint32_t n = rd32(s, v);
    if ((uint64_t)v + 4 + n > s->r.len) {
        s->fail = true;
        return;
    }
    uint32_t k = n / 16 * 16;
    if ((int64_t)n > s->threshold && k) {
        if (s->n_cuts == s->cap_cuts) {
            size_t c = s->cap_cuts ? s->cap_cuts * 2 : 64;
            cut *nc = realloc(s->cuts, c * sizeof *nc);
            if (!nc) {
                s->fail = true;
                return;
            }
            s->cuts = nc;
            s->cap_cuts = c;
        }
        s->cuts[s->n_cuts++] = (cut){v + 4, v + 4 + k};
    }
}

static void w_model(strip *s, uint32_t pos) {
    fl_fb_table t;
    if (!enter(s, pos, 8, &t)) {
        s->fail = true;
        return;
    }
    vec_of(s, t, 1, w_opcode);
    vec_of(s, t, 2, w_subgraph);
    leaves(s, t, (const int[]){3, 5}, 2); /* description, metadata_buffer */
    vec_of(s, t, 4, w_buffer);
    vec_of(s, t, 6, w_metadata);
    vec_of(s, t, 7, w_signature);
}

/* ------------------------------------------------------------------------- */
/* Relocation                                                                 */
/* ------------------------------------------------------------------------- */

static int cmp_cut(const void *a, const void *b) {
    uint32_t x = ((const cut *)a)->from, y = ((const cut *)b)->from;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Bytes cut before position x; *inside when x lies in a cut. */
static uint32_t cut_before(const strip *s, const uint32_t *prefix, uint32_t x, bool *inside) {
    size_t lo = 0, hi = s->n_cuts; /* first cut with from > x */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->cuts[mid].from <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo && x < s->cuts[lo - 1].to) {
        *inside = true;
    }
    return prefix[lo];
}

/* Sorts and checks the cuts (a data vector shared by two buffers is cut
 * once; overlapping ones fail); prefix[i] = bytes cut by cuts [0, i). */
static uint32_t *prepare_cuts(strip *s) {
    if (s->n_cuts) { /* none: nothing above the threshold */
        qsort(s->cuts, s->n_cuts, sizeof *s->cuts, cmp_cut);
    }
    size_t m = 0;
    for (size_t i = 0; i < s->n_cuts; i++) {
        if (m && s->cuts[i].from == s->cuts[m - 1].from && s->cuts[i].to == s->cuts[m - 1].to) {
            continue;
        }
        if (m && s->cuts[i].from < s->cuts[m - 1].to) {
            s->fail = true;
            return NULL;
        }
        s->cuts[m++] = s->cuts[i];
    }
    s->n_cuts = m;
    uint32_t *prefix = malloc((m + 1) * sizeof *prefix);
    if (!prefix) {
        s->fail = true;
        return NULL;
    }
    prefix[0] = 0;
    for (size_t i = 0; i < m; i++) {
        prefix[i + 1] = prefix[i] + (s->cuts[i].to - s->cuts[i].from);
    }
    return prefix;
}

/* The model rewritten without the cut bytes; NULL when an offset or a
 * table falls into them. */
static uint8_t *relocate(strip *s, const uint32_t *prefix, size_t *out_len) {
    size_t total = prefix[s->n_cuts];
    uint8_t *out = malloc(s->r.len - total);
    if (!out) {
        return NULL;
    }
    size_t o = 0, at = 0;
    for (size_t i = 0; i < s->n_cuts; i++) {
        memcpy(out + o, s->r.p + at, s->cuts[i].from - at);
        o += s->cuts[i].from - at;
        wr32(out + (s->cuts[i].from - 4 - prefix[i]), 0); /* the vector is empty */
        at = s->cuts[i].to;
    }
    memcpy(out + o, s->r.p + at, s->r.len - at);
    bool inside = false;
    for (size_t i = 0; i < s->n_sites && !inside; i++) {
        uint32_t p = s->sites[i], q = p + rd32(s, p);
        uint32_t np = p - cut_before(s, prefix, p, &inside);
        uint32_t nq = q - cut_before(s, prefix, q, &inside);
        wr32(out + np, nq - np);
    }
    for (size_t i = 0; i < s->n_tables && !inside; i++) {
        uint32_t t = s->tables[i], vt = (uint32_t)((int64_t)t - (int32_t)rd32(s, t));
        uint32_t nt = t - cut_before(s, prefix, t, &inside);
        uint32_t nvt = vt - cut_before(s, prefix, vt, &inside);
        wr32(out + nt, (uint32_t)((int32_t)nt - (int32_t)nvt));
    }
    if (inside) {
        free(out);
        return NULL;
    }
    *out_len = s->r.len - total;
    return out;
}

uint8_t *fl__tflite_strip(const uint8_t *buf, size_t len, int64_t threshold, size_t *out_len) {
    if (len < 8 || len > UINT32_MAX / 2 || memcmp(buf + 4, "TFL3", 4) != 0) {
        return NULL;
    }
    strip s = {.r = {.p = buf, .len = len}, .threshold = threshold};
    s.seen = calloc(len / 4 + 1, 1);
    uint8_t *out = NULL;
    if (s.seen && add(&s.sites, &s.n_sites, &s.cap_sites, 0)) {
        w_model(&s, rd32(&s, 0));
    } else {
        s.fail = true;
    }
    uint32_t *prefix = s.fail || s.r.bad ? NULL : prepare_cuts(&s);
    if (prefix && !s.fail) {
        qsort(s.sites, s.n_sites, sizeof *s.sites, cmp_u32);
        out = relocate(&s, prefix, out_len);
    }
    free(prefix);
    free(s.sites);
    free(s.tables);
    free(s.seen);
    free(s.cuts);
    return out;
}
