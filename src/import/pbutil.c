/*
 * pbutil.c - see pbutil.h.
 */
#include "import/pbutil.h"

static void *pb_alloc(void *data, size_t size) {
    return fl__arena_alloc((fl_arena *)data, size);
}

static void pb_free(void *data, void *p) {
    (void)data;
    (void)p; /* released with the arena */
}

void *fl__pb_unpack(fl_graph *g, const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                    size_t len, const char *what, fl_diag *d) {
    ProtobufCAllocator alloc = {pb_alloc, pb_free, g->arena};
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, &alloc, len, buf);
    if (!m) {
        if (g->arena->failed) {
            fl__diag_oom(d);
        } else {
            fl__diag_fail(d, FL_EINVAL,
                          "not a valid binary %s (%zu bytes could not be decoded as protobuf)",
                          what, len);
        }
    }
    return m;
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
