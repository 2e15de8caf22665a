/*
 * fuzz_pbwire.c - libFuzzer target for the zero-copy wire reader
 * (src/import/pbwire.c), differential against protobuf-c's unpacker. The
 * first byte picks the message type (ONNX ModelProto, TensorProto,
 * tensorflow.GraphDef, SavedModel); the rest is the message.
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak or undefined behaviour (the build's sanitizers): every
 *     length is checked before a read, nesting is bounded;
 *   - when both readers accept the input, protobuf-c packs the two messages
 *     to the same bytes (pbwire may reject invalid input protobuf-c takes:
 *     see the comment at the rejection);
 *   - a rejection names what is wrong at an offset inside the input;
 *   - on a ModelProto, the ONNX reader (src/import/onnx_wire.c) accepts what
 *     pbwire accepts, with a message that packs to the same bytes, and
 *     rejects the rest with pbwire's error.
 */
#include "fuzz.h"
#include "import/onnx_wire.h"
#include "import/pbwire.h"
#include "onnx/onnx.pb-c.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *out = malloc(*len ? *len : 1);
    fuzz_require(out != NULL, "out of memory");
    fuzz_require(protobuf_c_message_pack(m, out) == *len, "pack size changed");
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const ProtobufCMessageDescriptor *const types[4] = {
        &onnx__model_proto__descriptor, &onnx__tensor_proto__descriptor,
        &tensorflow__graph_def__descriptor, &tensorflow__saved_model__descriptor};
    if (size == 0) {
        return 0;
    }
    const ProtobufCMessageDescriptor *d = types[data[0] % 4];
    const uint8_t *msg = data + 1;
    size_t len = size - 1;
    fl_arena a;
    fl__arena_init(&a, (size_t)256 << 20);
    fl_pbwire_error e;
    ProtobufCMessage *m = fl__pbwire_unpack(&a, d, msg, len, &e);
    ProtobufCMessage *ref = protobuf_c_message_unpack(d, NULL, len, msg);
    if (!m) {
        fuzz_require(e.what && *e.what, "a rejection without a reason");
        fuzz_require(e.oom || e.offset <= len, "error offset %zu past the input (%zu bytes)",
                     e.offset, len);
        /* No check that protobuf-c rejects it too: this reader is stricter
         * than protobuf-c on invalid input (protobuf-c wraps a key wider
         * than 32 bits, takes field number 0 as an unknown field, and reads
         * a bool whatever its wire type). That valid input is accepted is
         * test_pbwire's part: every corpus model re-packs identically. */
    } else if (ref) {
        size_t la, lb;
        uint8_t *pa = pack(ref, &la), *pb = pack(m, &lb);
        fuzz_require(la == lb && memcmp(pa, pb, la) == 0,
                     "the readers' messages pack differently (%zu vs %zu bytes)", la, lb);
        free(pa);
        free(pb);
    }
    if (d == &onnx__model_proto__descriptor) {
        /* The ONNX reader gives pbwire's message or pbwire's error. */
        fl_pbwire_error eo;
        ProtobufCMessage *o = (ProtobufCMessage *)fl__onnx_wire_unpack(&a, msg, len, &eo);
        fuzz_require(!m == !o, "pbwire %s, the ONNX reader %s", m ? "accepts" : "rejects",
                     o ? "accepts" : "rejects");
        if (!m) {
            fuzz_require(e.oom || eo.oom ||
                             (strcmp(e.what, eo.what) == 0 && e.offset == eo.offset &&
                              e.field == eo.field && e.message == eo.message),
                         "the readers' errors differ (%s at %zu, %s at %zu)", e.what, e.offset,
                         eo.what, eo.offset);
        } else {
            size_t la, lb;
            uint8_t *pa = pack(m, &la), *pb = pack(o, &lb);
            fuzz_require(la == lb && memcmp(pa, pb, la) == 0,
                         "pbwire's and the ONNX reader's messages pack differently");
            free(pa);
            free(pb);
        }
    }
    if (ref) {
        protobuf_c_message_free_unpacked(ref, NULL);
    }
    fl__arena_free(&a);
    return 0;
}
