/*
 * pbenc.c - protobuf-c messages encoded back to front (see pbenc.h).
 *
 * The writer fills its buffer from the end: the bytes written so far are
 * buf[pos .. cap). Fields go in reverse order (the last field of the
 * descriptor first, the last element of a repeated field first), and each
 * value before its key, so that reading the buffer forwards gives the
 * fields in descriptor order, each as key, length (where one is due) and
 * value. Assumes a little-endian host, as the fixed-width values are copied
 * as they lie in memory.
 */
#include "pbenc.h"

#include <stdlib.h>
#include <string.h>

#define START_CAP 8192

bool fl_pbw_grow(fl_pbw *w, size_t n) {
    if (w->oom) {
        return false;
    }
    size_t used = fl_pbw_len(w), nc = w->cap ? w->cap : START_CAP;
    while (nc - used < n) {
        if (nc > SIZE_MAX / 2) {
            w->oom = true;
            return false;
        }
        nc *= 2;
    }
    uint8_t *nb = malloc(nc);
    if (!nb) {
        w->oom = true;
        return false;
    }
    if (used) {
        memcpy(nb + nc - used, w->buf + w->pos, used);
    }
    free(w->buf);
    w->buf = nb;
    w->cap = nc;
    w->pos = nc - used;
    return true;
}

void fl_pbw_varint_long(fl_pbw *w, uint64_t v) {
    uint8_t t[10];
    fl_pbw_put(w, t, fl_pb_varint_bytes(t, v));
}

static void put_key(fl_pbw *w, uint32_t id, unsigned wire) {
    fl_pbw_varint(w, ((uint64_t)id << 3) | wire);
}

unsigned fl_pb_wire_type(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return PROTOBUF_C_WIRE_TYPE_32BIT;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return PROTOBUF_C_WIRE_TYPE_64BIT;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    default:
        return PROTOBUF_C_WIRE_TYPE_VARINT;
    }
}

/* Bytes one element of a repeated field takes in its array. */
static size_t elt_size(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 4;
    }
}

bool fl_pb_present(const ProtobufCFieldDescriptor *f, const void *member, const void *q) {
    bool by_ptr = f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING;
    const void *ptr = by_ptr ? *(const void *const *)member : NULL;
    if (f->label == PROTOBUF_C_LABEL_REQUIRED) {
        return true;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        return *(const uint32_t *)q == f->id && (!by_ptr || (ptr && ptr != f->default_value));
    }
    if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
        return by_ptr ? ptr && ptr != f->default_value : *(const protobuf_c_boolean *)q != 0;
    }
    return !fl_pb_zeroish(f->type, member);
}

void fl_pbw_repeated(fl_pbw *w, const ProtobufCFieldDescriptor *f, const void *elts, size_t count) {
    const char *arr = elts;
    size_t sz = elt_size(f->type);
    if (count == 0) {
        return;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
        size_t end = fl_pbw_len(w);
        for (size_t i = count; i-- > 0;) {
            fl_pbw_value(w, f->type, arr + i * sz);
        }
        fl_pbw_varint(w, fl_pbw_len(w) - end);
        put_key(w, f->id, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
        return;
    }
    for (size_t i = count; i-- > 0;) {
        fl_pbw_value(w, f->type, arr + i * sz);
        put_key(w, f->id, fl_pb_wire_type(f->type));
    }
}

void fl_pbw_message(fl_pbw *w, const ProtobufCMessage *m) {
    for (size_t i = m->n_unknown_fields; i-- > 0;) {
        const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
        fl_pbw_put(w, u->data, u->len);
        put_key(w, u->tag, u->wire_type);
    }
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (size_t i = d->n_fields; i-- > 0 && !w->oom;) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        const char *member = (const char *)m + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            fl_pbw_repeated(w, f, *(const void *const *)member,
                            *(const size_t *)((const char *)m + f->quantifier_offset));
        } else if (fl_pb_present(f, member, (const char *)m + f->quantifier_offset)) {
            fl_pbw_value(w, f->type, member);
            put_key(w, f->id, fl_pb_wire_type(f->type));
        }
    }
}

bool fl_pbw_finish(fl_pbw *w, size_t front, uint8_t **block, uint8_t **data, size_t *len) {
    if (!fl_pbw_room(w, front + 1) || w->oom) { /* +1: never a NULL block */
        free(w->buf);
        return false;
    }
    *block = w->buf;
    *data = w->buf + w->pos;
    *len = fl_pbw_len(w);
    return true;
}

bool fl_pb_encode(const ProtobufCMessage *m, size_t front, uint8_t **block, uint8_t **data,
                  size_t *len) {
    fl_pbw w = {NULL, 0, 0, false};
    fl_pbw_message(&w, m);
    return fl_pbw_finish(&w, front, block, data, len);
}
