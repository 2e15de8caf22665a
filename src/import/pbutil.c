/*
 * pbutil.c - see pbutil.h.
 */
#include "import/pbutil.h"

#include "import/pbwire.h"

void *fl__pb_unpack(fl_graph *g, const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                    size_t len, const char *what, fl_diag *d) {
    fl_pbwire_error e;
    ProtobufCMessage *m = fl__pbwire_unpack(g->arena, desc, buf, len, &e);
    if (!m) {
        fl__pb_unpack_fail(g, &e, len, what, d);
    }
    return m;
}

void fl__pb_unpack_fail(fl_graph *g, const fl_pbwire_error *e, size_t len, const char *what,
                        fl_diag *d) {
    if (e->oom || g->arena->failed) {
        fl__diag_oom(d);
    } else if (e->field) {
        fl__diag_fail(d, FL_EINVAL,
                      "not a valid binary %s (%zu bytes could not be decoded as protobuf: "
                      "%s, in field '%s' of %s at byte %zu)",
                      what, len, e->what, e->field, e->message, e->offset);
    } else {
        fl__diag_fail(d, FL_EINVAL,
                      "not a valid binary %s (%zu bytes could not be decoded as protobuf: "
                      "%s, in %s at byte %zu)",
                      what, len, e->what, e->message, e->offset);
    }
}

int64_t fl__pb_read_le(const uint8_t *p, size_t size, bool is_signed) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1) {
        v |= ~(uint64_t)0 << (8 * size);
    }
    return (int64_t)v;
}

size_t fl__pb_elem_size(ProtobufCType t) {
    switch (t) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
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
        return 4; /* 32-bit integers, floats and enums */
    }
}
