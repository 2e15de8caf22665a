/* The public in-place protobuf decoder (include/foldline/wire.h): the
 * importers' wire reader over an arena of its own. */
#include "foldline/wire.h"

#include "import/pbwire.h"

#include <stdlib.h>

struct fl_wire_msgs {
    fl_arena arena;
};

fl_wire_msgs *fl_wire_msgs_new(void) {
    fl_wire_msgs *m = malloc(sizeof *m);
    if (m) {
        fl__arena_init(&m->arena, 0);
    }
    return m;
}

void fl_wire_msgs_free(fl_wire_msgs *m) {
    if (m) {
        fl__arena_free(&m->arena);
        free(m);
    }
}

ProtobufCMessage *fl_wire_unpack(fl_wire_msgs *m, const ProtobufCMessageDescriptor *desc,
                                 const uint8_t *buf, size_t len, fl_wire_error *err) {
    fl_pbwire_error e = {0};
    ProtobufCMessage *msg = NULL;
    if (!m || !desc) {
        e.what = !m ? "no message set to decode into" : "no message descriptor";
        e.message = desc ? desc->name : NULL;
    } else {
        msg = fl__pbwire_unpack(&m->arena, desc, buf, len, &e);
    }
    if (!msg && err) {
        err->message = e.message;
        err->field = e.field;
        err->offset = e.offset;
        err->what = e.what;
        err->oom = e.oom;
    }
    return msg;
}
