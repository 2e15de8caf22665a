/*
 * onnx_wire.c - an ONNX ModelProto read into protobuf-c's structs by code
 * written for each message the importer reads in bulk: GraphProto,
 * NodeProto, AttributeProto, TensorProto, ValueInfoProto, TypeProto and its
 * Tensor, TensorShapeProto and its Dimension (and the ModelProto around
 * them). Each is read with pbwire's field reader (pbwire.h) and filled
 * with stores to its members: no descriptor lookup, per-field state or
 * generic value conversion per field. A message short enough for its
 * repeated elements to fit in the reader's scratch (every field takes at
 * least two bytes, so len / 2 cells always do) is read in one sweep: each
 * field is checked and stored as it is met, a repeated element or unknown
 * field kept in a cell until the message ends, when its count is known and
 * its array allocated. A graph is read in one sweep whatever its length:
 * the scratch grows for its elements (a cell per node, tensor or value
 * info, not per two bytes), so its bytes are not swept twice. A longer
 * message of another type is read in two: one that checks every tag and
 * counts the repeated fields' elements, one that fills the struct. The
 * structs are
 * the ones the generic reader fills (pbwire.c), field for field: bytes and
 * aligned fixed-width runs are views into the input (a tensor's float_data
 * or double_data run at any alignment: alloc_slots), strings arena copies,
 * unknown fields kept; the importer, the ONNX writer and the constants'
 * sources read them as before. Every other message type (opset imports,
 * functions, sparse tensors, external data entries, ...) is decoded by the
 * generic reader where it lies.
 *
 * The generic reader stays the reference: anything beyond the plain
 * encoding of these messages makes this reader give up, and the whole
 * model is read again by pbwire.c, so that a malformed file gets its error
 * (message, field, byte offset) from there and protobuf-c's merge rules
 * apply where they matter:
 *  - any malformed field (a tag, length or varint, a wire type that is not
 *    the field's) and nesting deeper than FL_PBWIRE_MAX_DEPTH;
 *  - a singular message field (not a oneof member) met more than once,
 *    which protobuf-c merges.
 * Only running out of memory ends the read here.
 */
#include "import/onnx_wire.h"

#include "import/pbwire.h"

#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "packed fixed-width runs are read in place: a little-endian host is assumed"
#endif

typedef fl_pbwire_field wfield;

/* A repeated element or an unknown field of a message read in one sweep,
 * kept until the message ends: the field's wire type, payload and value
 * (a string's copy or a submessage: ptr), and its slot (CELL_UNKNOWN: an
 * unknown field, p and len then the bytes protobuf-c keeps after the tag,
 * id its number). */
typedef struct cell {
    const uint8_t *p;
    size_t len;
    uint64_t v;
    void *ptr;
    uint32_t id;
    uint8_t wt;
    uint8_t slot;
} cell;

#define CELL_UNKNOWN 0xff

/* Cells of the reader's scratch: messages up to twice as many bytes are
 * read in one sweep (most of a graph's nodes, attributes and tensors; the
 * larger ones gain little). 10 KiB to start with: ordinary heap memory,
 * where a larger block (2048 cells) changed how much the allocator hands
 * back to the OS between analyses. It grows only for a graph (room). */
#define SCRATCH_CELLS 256

typedef struct owire {
    fl_arena *a;
    bool oom;
    cell *cells;      /* fl__mem_realloc's; NULL: every message is read in two sweeps */
    size_t cap;       /* cells */
    size_t top;       /* cells in use by the messages being read */
    fl_str_pool strs; /* the strings' copies */
} owire;

/* Before a graph keeps a cell: at least SCRATCH_CELLS free above it, so
 * that the messages it holds (nodes, tensors) are still read in one sweep;
 * the scratch doubles when fewer are. False (out of memory) when it cannot. */
static bool room(owire *w) {
    if (w->cap - w->top > SCRATCH_CELLS) {
        return true;
    }
    cell *q = fl__mem_realloc(w->cells, 2 * w->cap * sizeof(cell));
    if (!q) {
        w->oom = true;
        return false;
    }
    w->cells = q;
    w->cap *= 2;
    return true;
}

/* What a field of a message read here is (its number indexes a table of
 * these): unknown, a singular scalar of a wire type, a singular string,
 * bytes or message (a message met twice gives up, but for a oneof
 * member's), or a repeated field (slot: its counter) of scalars that may be
 * packed (varints, 4- or 8-byte values) or of length-delimited values. */
enum {
    K_UNKNOWN = 0,
    K_VARINT,
    K_I32,
    K_LEN,
    K_MSG,
    K_ONEOF_MSG,
    K_REP_VARINT,
    K_REP_I32,
    K_REP_I64,
    K_REP_LEN
};

typedef struct kfield {
    uint8_t kind;
    uint8_t slot; /* repeated: its counter */
} kfield;

#define MAX_SLOTS 10

/* The count of a repeated field (sweep 1) and its array (sweep 2). */
typedef struct rslot {
    size_t count; /* elements */
    size_t runs;  /* packed runs, and 2 for each single value */
    const uint8_t *run;
    size_t fill;
    void *arr;
} rslot;

/* The counts of one message: its repeated fields' and unknown fields'. A
 * slot is only valid once its field was met (bit k of `used`): most
 * messages meet few of their repeated fields, and are many. */
typedef struct mcount {
    rslot s[MAX_SLOTS];
    uint32_t used;
    size_t n_unknown;
} mcount;

static bool giveup(void) {
    return false;
}

static bool oom(owire *w) {
    w->oom = true;
    return false;
}

/* Elements of a packed run of varints, (size_t)-1 when the last one is cut
 * short. */
static size_t varint_count(const uint8_t *p, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += !(p[i] & 0x80);
    }
    return len && (p[len - 1] & 0x80) ? (size_t)-1 : n;
}

/* Sweep 1: checks every field of the message at p..end against its table
 * (n entries, by field number) and counts. */
static bool count_fields(const kfield *tab, size_t n, const uint8_t *p, const uint8_t *end,
                         mcount *c) {
    c->used = 0;
    c->n_unknown = 0;
    uint32_t seen = 0; /* singular messages met, by field number (all below 32) */
    while (p < end) {
        wfield f;
        if (fl__pbwire_field(&p, end, &f)) {
            return giveup();
        }
        kfield k = f.id < n ? tab[f.id] : (kfield){K_UNKNOWN, 0};
        rslot *s = &c->s[k.slot];
        if (k.kind >= K_REP_VARINT && !(c->used & (1u << k.slot))) {
            *s = (rslot){0, 0, NULL, 0, NULL};
            c->used |= 1u << k.slot;
        }
        switch (k.kind) {
        case K_UNKNOWN:
            c->n_unknown++;
            break;
        case K_VARINT:
            if (f.wt != FL_PB_WT_VARINT) {
                return giveup();
            }
            break;
        case K_I32:
            if (f.wt != FL_PB_WT_I32) {
                return giveup();
            }
            break;
        case K_LEN:
        case K_ONEOF_MSG:
            if (f.wt != FL_PB_WT_LEN) {
                return giveup();
            }
            break;
        case K_MSG:
            if (f.wt != FL_PB_WT_LEN || (seen & (1u << f.id))) {
                return giveup();
            }
            seen |= 1u << f.id;
            break;
        case K_REP_LEN:
            if (f.wt != FL_PB_WT_LEN) {
                return giveup();
            }
            s->count++;
            break;
        default: { /* a repeated scalar: packed runs or single values */
            int want = k.kind == K_REP_VARINT ? FL_PB_WT_VARINT
                       : k.kind == K_REP_I32  ? FL_PB_WT_I32
                                              : FL_PB_WT_I64;
            if (f.wt == FL_PB_WT_LEN) {
                size_t m;
                if (want == FL_PB_WT_VARINT) {
                    m = varint_count(f.p, f.len);
                } else {
                    size_t es = want == FL_PB_WT_I32 ? 4 : 8;
                    m = f.len % es ? (size_t)-1 : f.len / es;
                }
                if (m == (size_t)-1) {
                    return giveup();
                }
                s->count += m;
                s->run = s->runs++ ? s->run : f.p;
            } else if (f.wt == want) {
                s->count++;
                s->runs += 2;
            } else {
                return giveup();
            }
            break;
        }
        }
    }
    return true;
}

/* How slot k's elements are stored: varints into 8 or 4 bytes, 4- or
 * 8-byte fixed-width values, pointers (strings and messages) or
 * ProtobufCBinaryData; E_T32 and E_T64 are a tensor's float_data and
 * double_data, 4- or 8-byte values whose single packed run stays a view
 * of the input at any alignment: the importer and the ONNX writer read
 * those arrays as bytes (memcpy), never a value through the pointer, so a
 * weight the analysis does not fold is neither copied nor read. */
enum { E_V64, E_V32, E_F32, E_F64, E_PTR, E_BIN, E_T32, E_T64 };

static size_t elem_size(uint8_t e) {
    switch (e) {
    case E_V32:
    case E_F32:
    case E_T32:
        return 4;
    case E_PTR:
        return sizeof(void *);
    case E_BIN:
        return sizeof(ProtobufCBinaryData);
    default:
        return 8;
    }
}

/* The arrays of the repeated fields (sweep 1's counts; es[k]: slot k's
 * E_ code). As in the generic reader, a single aligned packed run of
 * fixed-width values is a view, and so is a tensor's single run at any
 * alignment (E_T32, E_T64); every other array is arena memory. */
static bool alloc_slots(owire *w, mcount *c, const uint8_t *es) {
    for (uint32_t u = c->used; u; u &= u - 1) {
        int k = __builtin_ctz(u);
        rslot *s = &c->s[k];
        if (!s->count) {
            continue;
        }
        size_t size = elem_size(es[k]);
        bool tensor = es[k] == E_T32 || es[k] == E_T64;
        bool fixed = tensor || es[k] == E_F32 || es[k] == E_F64;
        if (s->count > SIZE_MAX / size) {
            return oom(w);
        }
        if (fixed && s->runs == 1 && (tensor || (uintptr_t)s->run % size == 0)) {
            s->arr = (void *)(uintptr_t)s->run;
        } else if (!(s->arr = fl__arena_alloc(w->a, s->count * size))) {
            return oom(w);
        }
    }
    return true;
}

/* Appends field f's values (packed run or single value) to a repeated
 * varint field whose elements are 8 bytes (wide) or 4 (the low bits). */
static void put_varints(rslot *s, const wfield *f, bool wide) {
    if (f->wt != FL_PB_WT_LEN) {
        if (wide) {
            ((uint64_t *)s->arr)[s->fill++] = f->v;
        } else {
            ((uint32_t *)s->arr)[s->fill++] = (uint32_t)f->v;
        }
        return;
    }
    const uint8_t *q = f->p, *end = f->p + f->len;
    uint64_t v;
    while (q < end && fl__pbwire_varint(&q, end, &v)) {
        if (wide) {
            ((uint64_t *)s->arr)[s->fill++] = v;
        } else {
            ((uint32_t *)s->arr)[s->fill++] = (uint32_t)v;
        }
    }
}

/* Appends field f's values to a repeated fixed-width field (es bytes). */
static void put_fixed(rslot *s, const wfield *f, size_t es) {
    if (f->wt == FL_PB_WT_LEN && f->len == 0) {
        return; /* an empty run: nothing to add (the array may be NULL) */
    }
    uint8_t *dst = (uint8_t *)s->arr + s->fill * es;
    if (f->wt != FL_PB_WT_LEN) {
        memcpy(dst, &f->v, es); /* little-endian host */
        s->fill++;
        return;
    }
    if (dst != f->p) {
        memcpy(dst, f->p, f->len);
    }
    s->fill += f->len / es;
}

static char *put_str(owire *w, const wfield *f) {
    char *s = fl__arena_pool_strndup(w->a, &w->strs, (const char *)f->p, f->len);
    if (!s) {
        oom(w);
    }
    return s;
}

static ProtobufCBinaryData put_bytes(const wfield *f) {
    return (ProtobufCBinaryData){f->len, f->len ? (uint8_t *)(uintptr_t)f->p : NULL};
}

/* An unknown field, kept as the generic reader keeps it. */
static void put_unknown(ProtobufCMessage *m, const wfield *f) {
    ProtobufCMessageUnknownField *u = &m->unknown_fields[m->n_unknown_fields++];
    u->tag = f->id;
    u->wire_type = (ProtobufCWireType)f->wt;
    u->len = (size_t)(f->p + f->len - f->body);
    u->data = (uint8_t *)(uintptr_t)f->body;
}

static bool alloc_unknown(owire *w, ProtobufCMessage *m, size_t n) {
    if (n && !(m->unknown_fields = fl__arena_calloc(w->a, n, sizeof *m->unknown_fields))) {
        return oom(w);
    }
    return true;
}

/* Appends field f's element (ptr: a string's copy or a submessage) to
 * slot s, whose elements are stored as e says. */
static void put_elem(rslot *s, uint8_t e, const wfield *f, void *ptr) {
    switch (e) {
    case E_V64:
    case E_V32:
        put_varints(s, f, e == E_V64);
        break;
    case E_F32:
    case E_F64:
    case E_T32:
    case E_T64:
        put_fixed(s, f, elem_size(e));
        break;
    case E_BIN:
        ((ProtobufCBinaryData *)s->arr)[s->fill++] = put_bytes(f);
        break;
    default:
        ((void **)s->arr)[s->fill++] = ptr;
        break;
    }
}

/* The wire types each kind of field accepts (bit wt), packed runs of
 * repeated scalars included. */
static const uint8_t kind_wts[] = {[K_UNKNOWN] = 1u << FL_PB_WT_VARINT | 1u << FL_PB_WT_I64 |
                                                 1u << FL_PB_WT_LEN | 1u << FL_PB_WT_I32,
                                   [K_VARINT] = 1u << FL_PB_WT_VARINT,
                                   [K_I32] = 1u << FL_PB_WT_I32,
                                   [K_LEN] = 1u << FL_PB_WT_LEN,
                                   [K_MSG] = 1u << FL_PB_WT_LEN,
                                   [K_ONEOF_MSG] = 1u << FL_PB_WT_LEN,
                                   [K_REP_VARINT] = 1u << FL_PB_WT_VARINT | 1u << FL_PB_WT_LEN,
                                   [K_REP_I32] = 1u << FL_PB_WT_I32 | 1u << FL_PB_WT_LEN,
                                   [K_REP_I64] = 1u << FL_PB_WT_I64 | 1u << FL_PB_WT_LEN,
                                   [K_REP_LEN] = 1u << FL_PB_WT_LEN};

/* The next field of a message read in one sweep, checked as count_fields
 * checks it (a packed run's length when keep counts it); *seen: the
 * singular message fields met. */
static inline __attribute__((always_inline)) bool next_checked(const kfield *tab, size_t n,
                                                               const uint8_t **p,
                                                               const uint8_t *end, wfield *f,
                                                               uint32_t *seen) {
    if (fl__pbwire_field(p, end, f)) {
        return giveup();
    }
    uint8_t kind = f->id < n ? tab[f->id].kind : K_UNKNOWN;
    if (!(kind_wts[kind] & (1u << f->wt))) {
        return giveup();
    }
    if (kind == K_MSG) {
        if (*seen & (1u << f->id)) {
            return giveup();
        }
        *seen |= 1u << f->id;
    }
    return true;
}

/* Keeps field f as a cell of slot k (CELL_UNKNOWN: an unknown field) and
 * counts it in c as count_fields counts (es: the slots' E_ codes); false
 * when a packed run is not a whole number of values. The caller's length
 * check guarantees room. */
static inline __attribute__((always_inline)) bool keep(owire *w, mcount *c, const uint8_t *es,
                                                       uint8_t k, const wfield *f, void *ptr) {
    cell *x = &w->cells[w->top++];
    x->p = f->p;
    x->len = f->len;
    x->v = f->v;
    x->ptr = ptr;
    x->id = f->id;
    x->wt = (uint8_t)f->wt;
    x->slot = k;
    if (k == CELL_UNKNOWN) { /* settle gives put_unknown body == p */
        x->p = f->body;
        x->len = (size_t)(f->p + f->len - f->body);
        c->n_unknown++;
        return true;
    }
    rslot *s = &c->s[k];
    if (!(c->used & (1u << k))) {
        *s = (rslot){0, 0, NULL, 0, NULL};
        c->used |= 1u << k;
    }
    uint8_t e = es[k];
    if (f->wt == FL_PB_WT_LEN && e != E_PTR && e != E_BIN) {
        size_t n;
        if (e == E_V64 || e == E_V32) {
            n = varint_count(f->p, f->len);
        } else {
            size_t size = elem_size(e);
            n = f->len % size ? (size_t)-1 : f->len / size;
        }
        if (n == (size_t)-1) {
            return giveup();
        }
        s->count += n;
        s->run = s->runs++ ? s->run : f->p;
    } else {
        s->count++;
        s->runs += 2;
    }
    return true;
}

/* The end of a message read in one sweep: the arrays allocated (keep's
 * counts), the kept elements and unknown fields stored in the order they
 * were met. */
static bool settle(owire *w, mcount *c, size_t base, const uint8_t *es, ProtobufCMessage *m) {
    if (!alloc_slots(w, c, es) || !alloc_unknown(w, m, c->n_unknown)) {
        return false;
    }
    for (size_t i = base; i < w->top; i++) {
        const cell *x = &w->cells[i];
        if (x->slot != CELL_UNKNOWN && es[x->slot] == E_PTR) { /* most: strings, messages */
            rslot *s = &c->s[x->slot];
            ((void **)s->arr)[s->fill++] = x->ptr;
            continue;
        }
        wfield f = {x->id, x->wt, NULL, x->p, x->p, x->len, x->v};
        if (x->slot == CELL_UNKNOWN) {
            put_unknown(m, &f);
        } else {
            put_elem(&c->s[x->slot], es[x->slot], &f, x->ptr);
        }
    }
    w->top = base;
    return true;
}

/* A message of another type, decoded by the generic reader. */
static void *cold(owire *w, const ProtobufCMessageDescriptor *d, const wfield *f, int depth) {
    fl_pbwire_error e;
    void *m = fl__pbwire_unpack_at(w->a, d, f->p, f->len, depth, &e);
    if (!m && e.oom) {
        oom(w);
    }
    return m;
}

/* Each reader below: the message of its type at p (len bytes), NULL when
 * it gives up or memory runs out (w->oom). */
static Onnx__TensorProto *rd_tensor(owire *w, const uint8_t *p, size_t len, int depth);
static Onnx__GraphProto *rd_graph(owire *w, const uint8_t *p, size_t len, int depth);
static Onnx__TypeProto *rd_type(owire *w, const uint8_t *p, size_t len, int depth);

#define SUB(fn, f) fn(w, (f).p, (f).len, depth + 1)

/* Starts a message: its depth is checked; read in one sweep when len / 2
 * cells are free in the scratch (one) or the scratch may grow for it
 * (grow: a graph, whose elements are few for its length), else its fields
 * are counted and its arrays and unknown fields allocated first. */
#define BEGIN(T, INIT, tab, es, grow)                                                              \
    if (depth > FL_PBWIRE_MAX_DEPTH) {                                                             \
        return NULL;                                                                               \
    }                                                                                              \
    const uint8_t *end = p + len;                                                                  \
    const kfield *const tab_ = tab;                                                                \
    const size_t n_tab = sizeof tab / sizeof tab[0];                                               \
    const uint8_t *const es_ = es;                                                                 \
    const size_t base = w->top;                                                                    \
    const bool grow_ = (grow);                                                                     \
    const bool one = w->cells && (grow_ || len / 2 <= w->cap - base);                              \
    mcount c;                                                                                      \
    c.used = 0;                                                                                    \
    c.n_unknown = 0;                                                                               \
    if (!one && (!count_fields(tab_, n_tab, p, end, &c) || !alloc_slots(w, &c, es_))) {            \
        return NULL;                                                                               \
    }                                                                                              \
    T *m = fl__arena_alloc_raw(w->a, sizeof *m);                                                   \
    if (!m) {                                                                                      \
        oom(w);                                                                                    \
        return NULL;                                                                               \
    }                                                                                              \
    *m = (T)INIT;                                                                                  \
    if (!one && !alloc_unknown(w, &m->base, c.n_unknown)) {                                        \
        return NULL;                                                                               \
    }                                                                                              \
    uint32_t seen = 0;                                                                             \
    wfield f;

/* The next field: checked here in one sweep (sweep 1 checked it in two). */
#define NEXT()                                                                                     \
    CHECK(one ? next_checked(tab_, n_tab, &p, end, &f, &seen)                                      \
              : (fl__pbwire_field(&p, end, &f), (void)seen, true))

/* Field f as an element of repeated slot k (ptr: a string's copy or a
 * submessage), or an unknown field: stored, or kept until FINISH. */
#define REP(k, ptr)                                                                                \
    if (one) {                                                                                     \
        CHECK(!grow_ || room(w));                                                                  \
        CHECK(keep(w, &c, es_, k, &f, ptr));                                                       \
    } else {                                                                                       \
        put_elem(&c.s[k], es_[k], &f, ptr);                                                        \
    }

#define UNKNOWN()                                                                                  \
    if (one) {                                                                                     \
        CHECK(!grow_ || room(w));                                                                  \
        CHECK(keep(w, &c, es_, CELL_UNKNOWN, &f, NULL));                                           \
    } else {                                                                                       \
        put_unknown(&m->base, &f);                                                                 \
    }

/* The end of the fields: the kept cells stored (one sweep). */
#define FINISH()                                                                                   \
    if (one && w->top != base) {                                                                   \
        CHECK(settle(w, &c, base, es_, &m->base));                                                 \
    }

/* Stores a repeated field's array and count (when it has elements). */
#define SET_REP(field, k)                                                                          \
    if ((c.used & (1u << k)) && c.s[k].count) {                                                    \
        m->n_##field = c.s[k].count;                                                               \
        m->field = c.s[k].arr;                                                                     \
    }

/* A string, message or repeated element that could not be read. */
#define CHECK(x)                                                                                   \
    if (!(x)) {                                                                                    \
        return NULL;                                                                               \
    }

/* Appends a length-delimited element (a pointer) to slot k. */
#define PUSH_PTR(k, v)                                                                             \
    do {                                                                                           \
        void *v_ = (v);                                                                            \
        CHECK(v_);                                                                                 \
        REP(k, v_)                                                                                 \
    } while (0)

/* ---- TensorShapeProto, TypeProto, ValueInfoProto ------------------------ */

static const kfield dim_tab[] = {[1] = {K_VARINT, 0}, [2] = {K_LEN, 0}, [3] = {K_LEN, 0}};
static const uint8_t no_es[1] = {0};

static Onnx__TensorShapeProto__Dimension *rd_dim(owire *w, const uint8_t *p, size_t len,
                                                 int depth) {
    BEGIN(Onnx__TensorShapeProto__Dimension, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT, dim_tab,
          no_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            m->dim_value = (int64_t)f.v;
            m->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            break;
        case 2:
            CHECK(m->dim_param = put_str(w, &f));
            m->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            break;
        case 3:
            CHECK(m->denotation = put_str(w, &f));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    return m;
}

static const kfield shape_tab[] = {[1] = {K_REP_LEN, 0}};
static const uint8_t shape_es[] = {E_PTR};

static Onnx__TensorShapeProto *rd_shape(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__TensorShapeProto, ONNX__TENSOR_SHAPE_PROTO__INIT, shape_tab, shape_es, false)
    while (p < end) {
        NEXT();
        if (f.id == 1) {
            PUSH_PTR(0, SUB(rd_dim, f));
        } else {
            UNKNOWN()
        }
    }
    FINISH()
    SET_REP(dim, 0)
    return m;
}

static const kfield ttensor_tab[] = {[1] = {K_VARINT, 0}, [2] = {K_MSG, 0}};

static Onnx__TypeProto__Tensor *rd_ttensor(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__TypeProto__Tensor, ONNX__TYPE_PROTO__TENSOR__INIT, ttensor_tab, no_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            m->elem_type = (int32_t)(uint32_t)f.v;
            m->has_elem_type = 1;
            break;
        case 2:
            CHECK(m->shape = SUB(rd_shape, f));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    return m;
}

static const kfield type_tab[] = {
    [1] = {K_ONEOF_MSG, 0}, [4] = {K_ONEOF_MSG, 0}, [5] = {K_ONEOF_MSG, 0},
    [6] = {K_LEN, 0},       [8] = {K_ONEOF_MSG, 0}, [9] = {K_ONEOF_MSG, 0}};

static Onnx__TypeProto *rd_type(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__TypeProto, ONNX__TYPE_PROTO__INIT, type_tab, no_es, false)
    while (p < end) {
        /* A oneof member replaces the one before (no merge), as in the
         * generic reader. */
        NEXT();
        switch (f.id) {
        case 1:
            CHECK(m->tensor_type = SUB(rd_ttensor, f));
            m->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
            break;
        case 4:
            CHECK(m->sequence_type =
                      cold(w, &onnx__type_proto__sequence__descriptor, &f, depth + 1));
            m->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
            break;
        case 5:
            CHECK(m->map_type = cold(w, &onnx__type_proto__map__descriptor, &f, depth + 1));
            m->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
            break;
        case 8:
            CHECK(m->sparse_tensor_type =
                      cold(w, &onnx__type_proto__sparse_tensor__descriptor, &f, depth + 1));
            m->value_case = ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
            break;
        case 9:
            CHECK(m->optional_type =
                      cold(w, &onnx__type_proto__optional__descriptor, &f, depth + 1));
            m->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
            break;
        case 6:
            CHECK(m->denotation = put_str(w, &f));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    return m;
}

static const kfield vinfo_tab[] = {
    [1] = {K_LEN, 0}, [2] = {K_MSG, 0}, [3] = {K_LEN, 0}, [4] = {K_REP_LEN, 0}};
static const uint8_t vinfo_es[] = {E_PTR};

static Onnx__ValueInfoProto *rd_vinfo(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__ValueInfoProto, ONNX__VALUE_INFO_PROTO__INIT, vinfo_tab, vinfo_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            CHECK(m->name = put_str(w, &f));
            break;
        case 2:
            CHECK(m->type = SUB(rd_type, f));
            break;
        case 3:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 4:
            PUSH_PTR(0, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(metadata_props, 0)
    return m;
}

/* ---- TensorProto --------------------------------------------------------- */

/* Slots: dims, float_data, int32_data, string_data, int64_data,
 * double_data, uint64_data, external_data, metadata_props. */
static const kfield tensor_tab[] = {
    [1] = {K_REP_VARINT, 0}, [2] = {K_VARINT, 0},   [3] = {K_MSG, 0},         [4] = {K_REP_I32, 1},
    [5] = {K_REP_VARINT, 2}, [6] = {K_REP_LEN, 3},  [7] = {K_REP_VARINT, 4},  [8] = {K_LEN, 0},
    [9] = {K_LEN, 0},        [10] = {K_REP_I64, 5}, [11] = {K_REP_VARINT, 6}, [12] = {K_LEN, 0},
    [13] = {K_REP_LEN, 7},   [14] = {K_VARINT, 0},  [16] = {K_REP_LEN, 8}};
static const uint8_t tensor_es[] = {E_V64, E_T32, E_V32, E_BIN, E_V64, E_T64, E_V64, E_PTR, E_PTR};

static Onnx__TensorProto *rd_tensor(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__TensorProto, ONNX__TENSOR_PROTO__INIT, tensor_tab, tensor_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            REP(0, NULL)
            break;
        case 2:
            m->data_type = (int32_t)(uint32_t)f.v;
            m->has_data_type = 1;
            break;
        case 3:
            CHECK(m->segment = cold(w, &onnx__tensor_proto__segment__descriptor, &f, depth + 1));
            break;
        case 4:
            REP(1, NULL)
            break;
        case 5:
            REP(2, NULL)
            break;
        case 6:
            REP(3, NULL)
            break;
        case 7:
            REP(4, NULL)
            break;
        case 8:
            CHECK(m->name = put_str(w, &f));
            break;
        case 9:
            m->raw_data = put_bytes(&f);
            m->has_raw_data = 1;
            break;
        case 10:
            REP(5, NULL)
            break;
        case 11:
            REP(6, NULL)
            break;
        case 12:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 13:
            PUSH_PTR(7, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        case 14:
            m->data_location = (Onnx__TensorProto__DataLocation)(uint32_t)f.v;
            m->has_data_location = 1;
            break;
        case 16:
            PUSH_PTR(8, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(dims, 0)
    SET_REP(float_data, 1)
    SET_REP(int32_data, 2)
    SET_REP(string_data, 3)
    SET_REP(int64_data, 4)
    SET_REP(double_data, 5)
    SET_REP(uint64_data, 6)
    SET_REP(external_data, 7)
    SET_REP(metadata_props, 8)
    return m;
}

/* ---- AttributeProto and NodeProto ------------------------------------------ */

/* Slots: floats, ints, strings, tensors, graphs, sparse_tensors,
 * type_protos. */
static const kfield attr_tab[] = {
    [1] = {K_LEN, 0},     [2] = {K_I32, 0},      [3] = {K_VARINT, 0},   [4] = {K_LEN, 0},
    [5] = {K_MSG, 0},     [6] = {K_MSG, 0},      [7] = {K_REP_I32, 0},  [8] = {K_REP_VARINT, 1},
    [9] = {K_REP_LEN, 2}, [10] = {K_REP_LEN, 3}, [11] = {K_REP_LEN, 4}, [13] = {K_LEN, 0},
    [14] = {K_MSG, 0},    [15] = {K_REP_LEN, 6}, [20] = {K_VARINT, 0},  [21] = {K_LEN, 0},
    [22] = {K_MSG, 0},    [23] = {K_REP_LEN, 5}};
static const uint8_t attr_es[] = {E_F32, E_V64, E_BIN, E_PTR, E_PTR, E_PTR, E_PTR};

static Onnx__AttributeProto *rd_attr(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__AttributeProto, ONNX__ATTRIBUTE_PROTO__INIT, attr_tab, attr_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            CHECK(m->name = put_str(w, &f));
            break;
        case 2: {
            uint32_t u = (uint32_t)f.v;
            memcpy(&m->f, &u, 4);
            m->has_f = 1;
            break;
        }
        case 3:
            m->i = (int64_t)f.v;
            m->has_i = 1;
            break;
        case 4:
            m->s = put_bytes(&f);
            m->has_s = 1;
            break;
        case 5:
            CHECK(m->t = SUB(rd_tensor, f));
            break;
        case 6:
            CHECK(m->g = SUB(rd_graph, f));
            break;
        case 7:
            REP(0, NULL)
            break;
        case 8:
            REP(1, NULL)
            break;
        case 9:
            REP(2, NULL)
            break;
        case 10:
            PUSH_PTR(3, SUB(rd_tensor, f));
            break;
        case 11:
            PUSH_PTR(4, SUB(rd_graph, f));
            break;
        case 13:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 14:
            CHECK(m->tp = SUB(rd_type, f));
            break;
        case 15:
            PUSH_PTR(6, SUB(rd_type, f));
            break;
        case 20:
            m->type = (Onnx__AttributeProto__AttributeType)(uint32_t)f.v;
            m->has_type = 1;
            break;
        case 21:
            CHECK(m->ref_attr_name = put_str(w, &f));
            break;
        case 22:
            CHECK(m->sparse_tensor =
                      cold(w, &onnx__sparse_tensor_proto__descriptor, &f, depth + 1));
            break;
        case 23:
            PUSH_PTR(5, cold(w, &onnx__sparse_tensor_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(floats, 0)
    SET_REP(ints, 1)
    SET_REP(strings, 2)
    SET_REP(tensors, 3)
    SET_REP(graphs, 4)
    SET_REP(sparse_tensors, 5)
    SET_REP(type_protos, 6)
    return m;
}

/* Slots: input, output, attribute, metadata_props. */
static const kfield node_tab[] = {[1] = {K_REP_LEN, 0}, [2] = {K_REP_LEN, 1}, [3] = {K_LEN, 0},
                                  [4] = {K_LEN, 0},     [5] = {K_REP_LEN, 2}, [6] = {K_LEN, 0},
                                  [7] = {K_LEN, 0},     [8] = {K_LEN, 0},     [9] = {K_REP_LEN, 3}};
static const uint8_t node_es[] = {E_PTR, E_PTR, E_PTR, E_PTR};

static Onnx__NodeProto *rd_node(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__NodeProto, ONNX__NODE_PROTO__INIT, node_tab, node_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            PUSH_PTR(0, put_str(w, &f));
            break;
        case 2:
            PUSH_PTR(1, put_str(w, &f));
            break;
        case 3:
            CHECK(m->name = put_str(w, &f));
            break;
        case 4:
            CHECK(m->op_type = put_str(w, &f));
            break;
        case 5:
            PUSH_PTR(2, SUB(rd_attr, f));
            break;
        case 6:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 7:
            CHECK(m->domain = put_str(w, &f));
            break;
        case 8:
            CHECK(m->overload = put_str(w, &f));
            break;
        case 9:
            PUSH_PTR(3, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(input, 0)
    SET_REP(output, 1)
    SET_REP(attribute, 2)
    SET_REP(metadata_props, 3)
    return m;
}

/* ---- GraphProto and ModelProto ------------------------------------------- */

/* Slots: node, initializer, sparse_initializer, input, output, value_info,
 * quantization_annotation, metadata_props. */
static const kfield graph_tab[] = {
    [1] = {K_REP_LEN, 0},  [2] = {K_LEN, 0},      [5] = {K_REP_LEN, 1},  [10] = {K_LEN, 0},
    [11] = {K_REP_LEN, 3}, [12] = {K_REP_LEN, 4}, [13] = {K_REP_LEN, 5}, [14] = {K_REP_LEN, 6},
    [15] = {K_REP_LEN, 2}, [16] = {K_REP_LEN, 7}};
static const uint8_t graph_es[] = {E_PTR, E_PTR, E_PTR, E_PTR, E_PTR, E_PTR, E_PTR, E_PTR};

static Onnx__GraphProto *rd_graph(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__GraphProto, ONNX__GRAPH_PROTO__INIT, graph_tab, graph_es, true)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            PUSH_PTR(0, SUB(rd_node, f));
            break;
        case 2:
            CHECK(m->name = put_str(w, &f));
            break;
        case 5:
            PUSH_PTR(1, SUB(rd_tensor, f));
            break;
        case 10:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 11:
            PUSH_PTR(3, SUB(rd_vinfo, f));
            break;
        case 12:
            PUSH_PTR(4, SUB(rd_vinfo, f));
            break;
        case 13:
            PUSH_PTR(5, SUB(rd_vinfo, f));
            break;
        case 14:
            PUSH_PTR(6, cold(w, &onnx__tensor_annotation__descriptor, &f, depth + 1));
            break;
        case 15:
            PUSH_PTR(2, cold(w, &onnx__sparse_tensor_proto__descriptor, &f, depth + 1));
            break;
        case 16:
            PUSH_PTR(7, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(node, 0)
    SET_REP(initializer, 1)
    SET_REP(sparse_initializer, 2)
    SET_REP(input, 3)
    SET_REP(output, 4)
    SET_REP(value_info, 5)
    SET_REP(quantization_annotation, 6)
    SET_REP(metadata_props, 7)
    return m;
}

/* Slots: opset_import, metadata_props, functions. */
static const kfield model_tab[] = {
    [1] = {K_VARINT, 0},   [2] = {K_LEN, 0},     [3] = {K_LEN, 0}, [4] = {K_LEN, 0},
    [5] = {K_VARINT, 0},   [6] = {K_LEN, 0},     [7] = {K_MSG, 0}, [8] = {K_REP_LEN, 0},
    [14] = {K_REP_LEN, 1}, [25] = {K_REP_LEN, 2}};
static const uint8_t model_es[] = {E_PTR, E_PTR, E_PTR};

static Onnx__ModelProto *rd_model(owire *w, const uint8_t *p, size_t len, int depth) {
    BEGIN(Onnx__ModelProto, ONNX__MODEL_PROTO__INIT, model_tab, model_es, false)
    while (p < end) {
        NEXT();
        switch (f.id) {
        case 1:
            m->ir_version = (int64_t)f.v;
            m->has_ir_version = 1;
            break;
        case 2:
            CHECK(m->producer_name = put_str(w, &f));
            break;
        case 3:
            CHECK(m->producer_version = put_str(w, &f));
            break;
        case 4:
            CHECK(m->domain = put_str(w, &f));
            break;
        case 5:
            m->model_version = (int64_t)f.v;
            m->has_model_version = 1;
            break;
        case 6:
            CHECK(m->doc_string = put_str(w, &f));
            break;
        case 7:
            CHECK(m->graph = SUB(rd_graph, f));
            break;
        case 8:
            PUSH_PTR(0, cold(w, &onnx__operator_set_id_proto__descriptor, &f, depth + 1));
            break;
        case 14:
            PUSH_PTR(1, cold(w, &onnx__string_string_entry_proto__descriptor, &f, depth + 1));
            break;
        case 25:
            PUSH_PTR(2, cold(w, &onnx__function_proto__descriptor, &f, depth + 1));
            break;
        default:
            UNKNOWN()
            break;
        }
    }
    FINISH()
    SET_REP(opset_import, 0)
    SET_REP(metadata_props, 1)
    SET_REP(functions, 2)
    return m;
}

Onnx__ModelProto *fl__onnx_wire_unpack(fl_arena *a, const uint8_t *buf, size_t len,
                                       fl_pbwire_error *err) {
    static const uint8_t empty[1];
    /* The scratch is the reader's own, not the arena's: it is given back
     * when the model is read. Without it every message takes two sweeps. */
    owire w = {a, false,    fl__mem_realloc(NULL, SCRATCH_CELLS * sizeof(cell)), SCRATCH_CELLS,
               0, {NULL, 0}};
    if (!w.cells) {
        w.cap = 0;
    }
    memset(err, 0, sizeof *err);
    Onnx__ModelProto *m = rd_model(&w, buf ? buf : empty, buf ? len : 0, 0);
    fl__mem_free(w.cells);
    if (m) {
        return m;
    }
    if (w.oom || a->failed) {
        err->oom = 1;
        err->what = "out of memory";
        return NULL;
    }
    return (Onnx__ModelProto *)fl__pbwire_unpack(a, &onnx__model_proto__descriptor, buf, len, err);
}
