/*
 * pbwire.c - see pbwire.h.
 *
 * Each message is read in two passes over its bytes: the first checks every
 * tag, wire type and length and counts the elements of each repeated field
 * (and the occurrences of each singular message field); the second allocates
 * arrays of exactly that size and fills them.
 *
 * A singular message field met more than once is merged as protobuf-c's
 * unpacker merges it (the reference the importers were written against, and
 * fuzz_pbwire's), which is not everywhere the protobuf encoding's "parse the
 * occurrences joined": each occurrence is decoded on its own, then the
 * occurrences merge field by field (merge_all below). A member of a oneof
 * never merges: its last occurrence replaces the earlier ones.
 */
#include "import/pbwire.h"

#include "import/pbutil.h"
#include "onnx/onnx.pb-c.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "packed fixed-width runs are read in place: a little-endian host is assumed"
#endif

enum {
    WT_VARINT = FL_PB_WT_VARINT,
    WT_I64 = FL_PB_WT_I64,
    WT_LEN = FL_PB_WT_LEN,
    WT_I32 = FL_PB_WT_I32
};

/* Whether a message type has a required field, remembered per type (a
 * message of many fields checked field by field for each of its
 * occurrences cost more than reading them). */
typedef struct wreq {
    const ProtobufCMessageDescriptor *d;
    bool required;
} wreq;

typedef struct wdec {
    fl_arena *a;
    const uint8_t *base; /* start of the input, for offsets in errors */
    fl_pbwire_error *err;
    const uint8_t *end; /* end of the input */
    wreq req[16];       /* by the descriptor's address */
} wdec;

/* Per-field state of one message being decoded. */
typedef struct fslot {
    size_t count;           /* repeated: elements; singular: occurrences */
    size_t fill;            /* pass 2: elements written so far */
    size_t runs;            /* occurrences (packed runs and single values) */
    const uint8_t *run;     /* the first packed run */
    ProtobufCMessage **occ; /* singular message met more than once: each occurrence */
} fslot;

static bool fail(wdec *w, const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *f,
                 const uint8_t *at, const char *what) {
    if (!w->err->what) {
        w->err->message = d ? d->name : NULL;
        w->err->field = f ? f->name : NULL;
        w->err->offset = at >= w->base && at <= w->end ? (size_t)(at - w->base) : 0;
        w->err->what = what;
    }
    return false;
}

static bool oom(wdec *w) {
    w->err->oom = 1;
    w->err->what = "out of memory";
    return false;
}

/* The wire type a field's values use when not packed. */
static int field_wt(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return WT_I32;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return WT_I64;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return WT_LEN;
    default:
        return WT_VARINT;
    }
}

const char *fl__pbwire_field_slow(const uint8_t **p, const uint8_t *end, fl_pbwire_field *f) {
    f->tag = *p;
    const uint8_t *q = *p;
    /* A two-byte tag (fields 16 to 2047) and a one-byte varint, as ONNX's
     * AttributeProto.type (20) is on every attribute: read directly. */
    if (end - q >= 3 && q[0] >= 0x80 && (q[0] & 7) == FL_PB_WT_VARINT && q[1] != 0 && q[1] < 0x80 &&
        q[2] < 0x80) {
        f->id = (uint32_t)((q[0] & 0x7f) >> 3) | (uint32_t)q[1] << 4;
        f->wt = FL_PB_WT_VARINT;
        f->body = q + 2;
        f->p = q + 2;
        f->len = 1;
        f->v = q[2];
        *p = q + 3;
        return NULL;
    }
    uint64_t key;
    if (!fl__pbwire_varint(p, end, &key)) {
        return "a tag is cut short or longer than 10 bytes";
    }
    if (key > 0xffffffffu) {
        return PBWIRE_WIDE_TAG;
    }
    if ((key >> 3) == 0) {
        return PBWIRE_ZERO_TAG;
    }
    f->id = (uint32_t)(key >> 3);
    f->wt = (int)(key & 7);
    f->body = *p;
    switch (f->wt) {
    case FL_PB_WT_VARINT:
        f->p = *p;
        if (!fl__pbwire_varint(p, end, &f->v)) {
            return "a varint is cut short or longer than 10 bytes";
        }
        f->len = (size_t)(*p - f->p);
        return NULL;
    case FL_PB_WT_I64:
    case FL_PB_WT_I32: {
        size_t n = f->wt == FL_PB_WT_I64 ? 8 : 4;
        if ((size_t)(end - *p) < n) {
            return "a fixed-width value runs past the end";
        }
        f->p = *p;
        f->len = n;
        f->v = fl__pbwire_le(*p, n);
        *p += n;
        return NULL;
    }
    case FL_PB_WT_LEN: {
        uint64_t n;
        if (!fl__pbwire_varint(p, end, &n)) {
            return "a length is cut short";
        }
        if (n > (uint64_t)(end - *p)) {
            return PBWIRE_PAST_END;
        }
        f->p = *p;
        f->len = (size_t)n;
        *p += n;
        return NULL;
    }
    default:
        return "wire type 3, 4, 6 or 7 (groups are not supported)";
    }
}

typedef fl_pbwire_field wfield;

/* The descriptor of field `id` of d, NULL when d has none. The fields are
 * in number order, and most messages number them 1..n, or start so (ONNX's
 * AttributeProto: 1..11, then 13, 14, 15, 20..23): a field numbered like its
 * position is d->fields[id - 1], found without protobuf-c's search, which
 * is left for the others. */
static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessageDescriptor *d, uint32_t id) {
    if (id >= 1 && id <= d->n_fields && d->fields[id - 1].id == id) {
        return &d->fields[id - 1];
    }
    if (d->n_field_ranges == 1 && d->field_ranges[0].start_value == 1 &&
        d->field_ranges[0].orig_index == 0) {
        return NULL;
    }
    return protobuf_c_message_descriptor_get_field(d, id);
}

static bool next_field(wdec *w, const ProtobufCMessageDescriptor *d, const uint8_t **p,
                       const uint8_t *end, wfield *f) {
    const char *why = fl__pbwire_field(p, end, f);
    if (!why) {
        return true;
    }
    /* Only a length past the end is the field's own fault: name it. */
    const ProtobufCFieldDescriptor *fd =
        strcmp(why, PBWIRE_PAST_END) == 0 ? field_of(d, f->id) : NULL;
    return fail(w, d, fd, f->tag, why);
}

/* Elements in a packed run of a scalar type, or (size_t)-1 when malformed. */
static size_t packed_count(ProtobufCType t, const uint8_t *p, size_t len) {
    int wt = field_wt(t);
    if (wt == WT_I32 || wt == WT_I64) {
        size_t es = wt == WT_I32 ? 4 : 8;
        return len % es ? (size_t)-1 : len / es;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += !(p[i] & 0x80);
    }
    return len && (p[len - 1] & 0x80) ? (size_t)-1 : n;
}

static bool is_packable(ProtobufCType t) {
    return t != PROTOBUF_C_TYPE_STRING && t != PROTOBUF_C_TYPE_BYTES &&
           t != PROTOBUF_C_TYPE_MESSAGE;
}

/* Pass 1: checks the message's fields and counts repeated elements. */
static bool count_fields(wdec *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
                         const uint8_t *end, fslot *slots, size_t *n_unknown, size_t *n_repeated) {
    wfield f;
    while (p < end) {
        if (!next_field(w, d, &p, end, &f)) {
            return false;
        }
        const ProtobufCFieldDescriptor *fd = field_of(d, f.id);
        if (!fd) {
            (*n_unknown)++;
            continue;
        }
        fslot *s = &slots[fd - d->fields];
        *n_repeated += fd->label == PROTOBUF_C_LABEL_REPEATED;
        int want = field_wt(fd->type);
        if (fd->label == PROTOBUF_C_LABEL_REPEATED && f.wt == WT_LEN && is_packable(fd->type)) {
            size_t k = packed_count(fd->type, f.p, f.len);
            if (k == (size_t)-1) {
                return fail(w, d, fd, f.tag,
                            "a packed run's length is not a whole number of "
                            "values");
            }
            s->count += k;
            s->run = s->runs++ ? s->run : f.p;
            continue;
        }
        if (f.wt != want) {
            return fail(w, d, fd, f.tag, "the wire type does not match the field's type");
        }
        s->count++;
        s->runs += 2; /* a single value: never a view */
    }
    return true;
}

static ProtobufCMessage *decode(wdec *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
                                size_t len, int depth);

/* Stores a scalar of fd's type from a varint or fixed-width value. */
static void put_scalar(const ProtobufCFieldDescriptor *fd, void *dst, uint64_t v) {
    switch (fd->type) {
    case PROTOBUF_C_TYPE_SINT32: {
        uint32_t u = (uint32_t)v;
        int32_t x = (int32_t)(u >> 1) ^ -(int32_t)(u & 1);
        memcpy(dst, &x, 4);
        break;
    }
    case PROTOBUF_C_TYPE_SINT64: {
        int64_t x = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
        memcpy(dst, &x, 8);
        break;
    }
    case PROTOBUF_C_TYPE_BOOL: {
        protobuf_c_boolean b = v != 0;
        memcpy(dst, &b, sizeof b);
        break;
    }
    default:
        if (fl__pb_elem_size(fd->type) == 8) {
            memcpy(dst, &v, 8);
        } else {
            uint32_t u = (uint32_t)v;
            memcpy(dst, &u, 4);
        }
        break;
    }
}

/* A length-delimited value of a string, bytes or message field. */
static bool put_len(wdec *w, const ProtobufCFieldDescriptor *fd, void *dst, const wfield *f,
                    int depth) {
    if (fd->type == PROTOBUF_C_TYPE_STRING) {
        char *s = fl__arena_alloc(w->a, f->len + 1);
        if (!s) {
            return oom(w);
        }
        memcpy(s, f->p, f->len);
        s[f->len] = '\0';
        memcpy(dst, &s, sizeof s);
        return true;
    }
    if (fd->type == PROTOBUF_C_TYPE_BYTES) {
        ProtobufCBinaryData b = {f->len, f->len ? (uint8_t *)(uintptr_t)f->p : NULL};
        memcpy(dst, &b, sizeof b);
        return true;
    }
    ProtobufCMessage *m = decode(w, fd->descriptor, f->p, f->len, depth + 1);
    if (!m) {
        return false;
    }
    memcpy(dst, &m, sizeof m);
    return true;
}

/* Appends a packed run to a repeated field's array. */
static void put_packed(const ProtobufCFieldDescriptor *fd, uint8_t *arr, fslot *s,
                       const wfield *f) {
    size_t es = fl__pb_elem_size(fd->type);
    int wt = field_wt(fd->type);
    if (f->len == 0) {
        return; /* an empty run: nothing to add (the array may be NULL) */
    }
    if (wt != WT_VARINT) {
        size_t k = f->len / (wt == WT_I32 ? 4 : 8);
        if (arr + s->fill * es != f->p) {
            memcpy(arr + s->fill * es, f->p, f->len); /* little-endian host */
        }
        s->fill += k;
        return;
    }
    const uint8_t *q = f->p, *end = f->p + f->len;
    uint64_t v;
    while (q < end && fl__pbwire_varint(&q, end, &v)) {
        put_scalar(fd, arr + s->fill * es, v);
        s->fill++;
    }
}

/* ---- a singular message met several times: protobuf-c's merge ----------- */

static uint8_t *field_at(ProtobufCMessage *m, size_t offset) {
    return (uint8_t *)m + offset;
}

/* Whether m has a non-repeated field, as protobuf-c's merge reads it: the
 * has_ flag or oneof case when there is one. A proto3 scalar has neither
 * (its quantifier offset is 0, where protobuf-c reads the message's first
 * word, never 0), so it counts as present in every occurrence and the last
 * occurrence's value stays, even when that occurrence did not carry it. */
static bool present(ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd) {
    uint32_t q = 1;
    if (fd->quantifier_offset) {
        memcpy(&q, field_at(m, fd->quantifier_offset), sizeof q);
    }
    return q != 0;
}

/* Whether the merge of an earlier into a later occurrence keeps the earlier
 * value of a non-repeated field (e, l: the field's bytes in each). A message
 * is kept when only the earlier one is set (two set messages merge: the
 * caller's part); a string when the earlier one is not the field's default
 * and the later one is; bytes when the earlier value has data (an empty one
 * has none) and the later has none or the default's; any other type when
 * the earlier occurrence has it and the later does not. */
static bool earlier_wins(const ProtobufCFieldDescriptor *fd, const uint8_t *e, const uint8_t *l,
                         bool e_set, bool l_set) {
    switch (fd->type) {
    case PROTOBUF_C_TYPE_MESSAGE: {
        const void *em, *lm;
        memcpy(&em, e, sizeof em);
        memcpy(&lm, l, sizeof lm);
        return em && !lm;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        ProtobufCBinaryData eb, lb;
        memcpy(&eb, e, sizeof eb);
        memcpy(&lb, l, sizeof lb);
        const ProtobufCBinaryData *def = fd->default_value;
        return eb.data && (!def || eb.data != def->data) &&
               (!lb.data || (def && lb.data == def->data));
    }
    case PROTOBUF_C_TYPE_STRING: {
        const char *es, *ls;
        memcpy(&es, e, sizeof es);
        memcpy(&ls, l, sizeof ls);
        return (const void *)es != fd->default_value && (const void *)ls == fd->default_value;
    }
    default:
        return e_set && !l_set;
    }
}

/* A repeated field: the occurrences' elements concatenated, in order. */
static bool merge_repeated(wdec *w, const ProtobufCFieldDescriptor *fd, ProtobufCMessage **ms,
                           size_t k) {
    size_t es = fl__pb_elem_size(fd->type), total = 0, nonempty = 0, last = 0;
    for (size_t j = 0; j < k; j++) {
        size_t n;
        memcpy(&n, field_at(ms[j], fd->quantifier_offset), sizeof n);
        if (n) {
            if (n > SIZE_MAX / es - total) {
                return oom(w);
            }
            total += n;
            nonempty++;
            last = j;
        }
    }
    if (nonempty == 0) {
        return true;
    }
    uint8_t *arr;
    memcpy(&arr, field_at(ms[last], fd->offset), sizeof arr);
    if (nonempty > 1) {
        arr = fl__arena_alloc(w->a, total * es);
        if (!arr) {
            return oom(w);
        }
        size_t at = 0;
        for (size_t j = 0; j < k; j++) {
            size_t n;
            const uint8_t *p;
            memcpy(&n, field_at(ms[j], fd->quantifier_offset), sizeof n);
            memcpy(&p, field_at(ms[j], fd->offset), sizeof p);
            if (n) {
                memcpy(arr + at * es, p, n * es);
                at += n;
            }
        }
    }
    memcpy(field_at(ms[k - 1], fd->offset), &arr, sizeof arr);
    memcpy(field_at(ms[k - 1], fd->quantifier_offset), &total, sizeof total);
    return true;
}

/* A oneof (fd: its first member in the descriptor). A later occurrence that
 * sets it replaces it whole, even with the same member (no merge); one that
 * does not keeps the earlier member when earlier_wins() says so, else the
 * oneof ends unset. When neither sets it, protobuf-c's merge looks up field
 * number 0 and rejects the input; here the oneof stays unset. */
static void merge_oneof(const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *fd,
                        ProtobufCMessage **ms, size_t k) {
    size_t acc = 0;
    for (size_t j = 1; j < k; j++) {
        uint32_t c, c_acc;
        memcpy(&c, field_at(ms[j], fd->quantifier_offset), sizeof c);
        memcpy(&c_acc, field_at(ms[acc], fd->quantifier_offset), sizeof c_acc);
        const ProtobufCFieldDescriptor *fe =
            c || !c_acc ? NULL : protobuf_c_message_descriptor_get_field(d, c_acc);
        if (!fe || !earlier_wins(fe, field_at(ms[acc], fe->offset), field_at(ms[j], fe->offset),
                                 true, false)) {
            acc = j;
        }
    }
    uint32_t c;
    memcpy(&c, field_at(ms[acc], fd->quantifier_offset), sizeof c);
    const ProtobufCFieldDescriptor *fe = protobuf_c_message_descriptor_get_field(d, c);
    if (acc != k - 1 && fe) {
        /* the last occurrence has it unset: its case and value are 0 */
        memcpy(field_at(ms[k - 1], fe->offset), field_at(ms[acc], fe->offset),
               fl__pb_elem_size(fe->type));
        memcpy(field_at(ms[k - 1], fd->quantifier_offset), &c, sizeof c);
    }
}

static bool merge_all(wdec *w, const ProtobufCMessageDescriptor *d, ProtobufCMessage **ms,
                      size_t k);

/* A singular message field: the occurrences that set it, merged. */
static bool merge_sub(wdec *w, const ProtobufCFieldDescriptor *fd, ProtobufCMessage **ms,
                      size_t k) {
    size_t n = 0;
    ProtobufCMessage *sub = NULL;
    for (size_t j = 0; j < k; j++) {
        memcpy(&sub, field_at(ms[j], fd->offset), sizeof sub);
        n += sub != NULL;
    }
    ProtobufCMessage **subs = NULL;
    if (n > 1 && !(subs = fl__arena_alloc(w->a, n * sizeof *subs))) {
        return oom(w);
    }
    size_t i = 0;
    for (size_t j = 0; j < k && n; j++) {
        ProtobufCMessage *m;
        memcpy(&m, field_at(ms[j], fd->offset), sizeof m);
        if (m) {
            sub = m;
            if (subs) {
                subs[i++] = m;
            }
        }
    }
    if (n > 1 && !merge_all(w, fd->descriptor, subs, n)) {
        return false;
    }
    if (n) {
        memcpy(field_at(ms[k - 1], fd->offset), &sub, sizeof sub);
    }
    return true;
}

static bool first_of_oneof(const ProtobufCMessageDescriptor *d, unsigned i) {
    for (unsigned j = 0; j < i; j++) {
        if ((d->fields[j].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            d->fields[j].quantifier_offset == d->fields[i].quantifier_offset) {
            return false;
        }
    }
    return true;
}

/* Merges the k occurrences ms[0..k-1] of a message into ms[k-1], as
 * protobuf-c merges each earlier one into the next: repeated fields
 * concatenate, singular messages merge, other fields follow earlier_wins(),
 * and unknown fields are the last occurrence's only. */
static bool merge_all(wdec *w, const ProtobufCMessageDescriptor *d, ProtobufCMessage **ms,
                      size_t k) {
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &d->fields[i];
        if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
            if (!merge_repeated(w, fd, ms, k)) {
                return false;
            }
        } else if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            if (first_of_oneof(d, i)) {
                merge_oneof(d, fd, ms, k);
            }
        } else if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
            if (!merge_sub(w, fd, ms, k)) {
                return false;
            }
        } else {
            size_t acc = 0;
            for (size_t j = 1; j < k; j++) {
                if (!earlier_wins(fd, field_at(ms[acc], fd->offset), field_at(ms[j], fd->offset),
                                  present(ms[acc], fd), present(ms[j], fd))) {
                    acc = j;
                }
            }
            if (acc != k - 1) {
                memcpy(field_at(ms[k - 1], fd->offset), field_at(ms[acc], fd->offset),
                       fl__pb_elem_size(fd->type));
                if (fd->quantifier_offset) {
                    memcpy(field_at(ms[k - 1], fd->quantifier_offset),
                           field_at(ms[acc], fd->quantifier_offset), sizeof(uint32_t));
                }
            }
        }
    }
    return true;
}

/* Pass 2 for one occurrence of a singular message field met several times:
 * decoded on its own, merged with the others at the last one. */
static bool put_occurrence(wdec *w, const ProtobufCFieldDescriptor *fd, fslot *s, const wfield *f,
                           int depth) {
    if (!s->occ && !(s->occ = fl__arena_alloc(w->a, s->count * sizeof *s->occ))) {
        return oom(w);
    }
    ProtobufCMessage *m = decode(w, fd->descriptor, f->p, f->len, depth + 1);
    if (!m) {
        return false;
    }
    s->occ[s->fill++] = m;
    return true;
}

/* Pass 2 for one known field occurrence. */
static bool fill_field(wdec *w, ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd, fslot *s,
                       const wfield *f, int depth) {
    uint8_t *base = (uint8_t *)m;
    if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
        uint8_t *arr;
        memcpy(&arr, base + fd->offset, sizeof arr);
        size_t es = fl__pb_elem_size(fd->type);
        if (f->wt == WT_LEN && is_packable(fd->type)) {
            put_packed(fd, arr, s, f);
            return true;
        }
        if (f->wt == WT_LEN) {
            if (!put_len(w, fd, arr + s->fill * es, f, depth)) {
                return false;
            }
        } else {
            put_scalar(fd, arr + s->fill * es, f->v);
        }
        s->fill++;
        return true;
    }
    if (fd->type == PROTOBUF_C_TYPE_MESSAGE && s->count > 1 &&
        !(fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)) {
        if (!put_occurrence(w, fd, s, f, depth)) {
            return false;
        }
        if (s->fill < s->count) {
            return true; /* merged once the last occurrence is met */
        }
        ProtobufCMessage *merged = s->occ[s->count - 1];
        if (!merge_all(w, fd->descriptor, s->occ, s->count)) {
            return false;
        }
        memcpy(base + fd->offset, &merged, sizeof merged);
    } else if (f->wt == WT_LEN) {
        if (!put_len(w, fd, base + fd->offset, f, depth)) {
            return false;
        }
    } else {
        put_scalar(fd, base + fd->offset, f->v);
    }
    if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t id = fd->id;
        memcpy(base + fd->quantifier_offset, &id, sizeof id);
    } else if (fd->label == PROTOBUF_C_LABEL_OPTIONAL && fd->type != PROTOBUF_C_TYPE_STRING &&
               fd->type != PROTOBUF_C_TYPE_MESSAGE) {
        protobuf_c_boolean has = 1;
        memcpy(base + fd->quantifier_offset, &has, sizeof has);
    }
    return true;
}

/* Whether fd of a message of type d is ONNX TensorProto's float_data or
 * double_data, whose single packed run stays a view of the input at any
 * alignment, as onnx_wire.c's reader keeps it: the ONNX importer and writer
 * read those arrays as bytes (memcpy), never a value through the pointer,
 * so a weight is neither copied nor read (an unaligned run copied was 4 or
 * 8 bytes an element resident). Any other run is a view only where it is
 * aligned for its element type (GraphDef's readers read values). */
static bool view_any_alignment(const ProtobufCMessageDescriptor *d,
                               const ProtobufCFieldDescriptor *fd) {
    return d == &onnx__tensor_proto__descriptor &&
           (fd->id == 4 || fd->id == 10); /* float_data, double_data */
}

/* Allocates the arrays of repeated fields (pass 1's counts). */
static bool alloc_repeated(wdec *w, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m,
                           fslot *slots) {
    uint8_t *base = (uint8_t *)m;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &d->fields[i];
        if (fd->label != PROTOBUF_C_LABEL_REPEATED || slots[i].count == 0) {
            continue;
        }
        size_t es = fl__pb_elem_size(fd->type);
        if (slots[i].count > SIZE_MAX / es) {
            return oom(w);
        }
        void *arr;
        if (slots[i].runs == 1 && field_wt(fd->type) != WT_VARINT &&
            ((uintptr_t)slots[i].run % es == 0 || view_any_alignment(d, fd))) {
            arr = (void *)(uintptr_t)slots[i].run; /* one run: a view */
        } else {
            arr = fl__arena_alloc(w->a, slots[i].count * es);
        }
        if (!arr) {
            return oom(w);
        }
        memcpy(base + fd->offset, &arr, sizeof arr);
        memcpy(base + fd->quantifier_offset, &slots[i].count, sizeof(size_t));
    }
    return true;
}

static bool fill_fields(wdec *w, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m,
                        const uint8_t *p, const uint8_t *end, fslot *slots, int depth) {
    wfield f;
    while (p < end) {
        if (!next_field(w, d, &p, end, &f)) {
            return false;
        }
        const ProtobufCFieldDescriptor *fd = field_of(d, f.id);
        if (fd) {
            if (!fill_field(w, m, fd, &slots[fd - d->fields], &f, depth)) {
                return false;
            }
            continue;
        }
        ProtobufCMessageUnknownField *u = &m->unknown_fields[m->n_unknown_fields++];
        u->tag = f.id;
        u->wire_type = (ProtobufCWireType)f.wt;
        /* protobuf-c keeps what follows the tag, a length-delimited field's
         * length included (its packer writes the tag and then these bytes). */
        u->len = (size_t)(f.p + f.len - f.body);
        u->data = (uint8_t *)(uintptr_t)f.body;
    }
    return true;
}

static bool has_required(wdec *w, const ProtobufCMessageDescriptor *d) {
    wreq *r = &w->req[((uintptr_t)d / sizeof(void *)) % (sizeof w->req / sizeof w->req[0])];
    if (r->d != d) {
        r->d = d;
        r->required = false;
        for (unsigned i = 0; i < d->n_fields && !r->required; i++) {
            r->required = d->fields[i].label == PROTOBUF_C_LABEL_REQUIRED;
        }
    }
    return r->required;
}

static bool check_required(wdec *w, const ProtobufCMessageDescriptor *d, const uint8_t *at,
                           const fslot *slots) {
    if (!has_required(w, d)) {
        return true;
    }
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (d->fields[i].label == PROTOBUF_C_LABEL_REQUIRED && slots[i].runs == 0) {
            return fail(w, d, &d->fields[i], at, "a required field is missing");
        }
    }
    return true;
}

static ProtobufCMessage *decode(wdec *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
                                size_t len, int depth) {
    if (depth > FL_PBWIRE_MAX_DEPTH) {
        fail(w, d, NULL, p, "messages nest deeper than 100 levels");
        return NULL;
    }
    fslot local[32];
    fslot *slots = local;
    if (d->n_fields > 32) {
        slots = fl__arena_alloc(w->a, d->n_fields * sizeof(fslot));
        if (!slots) {
            oom(w);
            return NULL;
        }
    }
    memset(slots, 0, (d->n_fields ? d->n_fields : 1) * sizeof(fslot));
    const uint8_t *end = p + len;
    size_t n_unknown = 0, n_repeated = 0;
    if (!count_fields(w, d, p, end, slots, &n_unknown, &n_repeated) ||
        !check_required(w, d, p, slots)) {
        return NULL;
    }
    ProtobufCMessage *m = fl__arena_alloc(w->a, d->sizeof_message);
    if (!m) {
        oom(w);
        return NULL;
    }
    d->message_init(m);
    if (n_unknown) {
        m->unknown_fields = fl__arena_calloc(w->a, n_unknown, sizeof(*m->unknown_fields));
        if (!m->unknown_fields) {
            oom(w);
            return NULL;
        }
    }
    if ((n_repeated && !alloc_repeated(w, d, m, slots)) ||
        !fill_fields(w, d, m, p, end, slots, depth)) {
        return NULL;
    }
    return m;
}

ProtobufCMessage *fl__pbwire_unpack_at(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                       const uint8_t *buf, size_t len, int depth,
                                       fl_pbwire_error *err) {
    memset(err, 0, sizeof *err);
    static const uint8_t empty[1];
    wdec w = {a, buf ? buf : empty, err, (buf ? buf : empty) + (buf ? len : 0), {{NULL, false}}};
    return decode(&w, desc, buf ? buf : empty, buf ? len : 0, depth);
}

ProtobufCMessage *fl__pbwire_unpack(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                    const uint8_t *buf, size_t len, fl_pbwire_error *err) {
    return fl__pbwire_unpack_at(a, desc, buf, len, 0, err);
}
