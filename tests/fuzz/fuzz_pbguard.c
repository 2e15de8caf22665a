/*
 * fuzz_pbguard.c - libFuzzer target for the wire-format limits checked
 * before protobuf-c unpacks untrusted bytes (common/pbguard.c: foldlined's
 * requests, --strip-weights). The first byte picks the message type
 * (tensorflow.GraphDef, SavedModel, ONNX ModelProto); the rest is the
 * message.
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak or undefined behaviour (the build's sanitizers);
 *   - a refusal names the top message and says which limit;
 *   - what protobuf-c decodes, packed again (every singular field once),
 *     is refused only for its nesting: an encoder's output never hits the
 *     occurrence limit.
 */
#include "fuzz.h"
#include "onnx/onnx.pb-c.h"
#include "pbguard.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

static void check_refusal(const ProtobufCMessageDescriptor *d, const char *err) {
    fuzz_require(strncmp(err, d->name, strlen(d->name)) == 0 && err[strlen(d->name)] == ':',
                 "a refusal that does not name %s: %s", d->name, err);
    fuzz_require(strstr(err, "occurs more than 16 times") || strstr(err, "nested deeper than 100"),
                 "a refusal naming no limit: %s", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const ProtobufCMessageDescriptor *const types[3] = {&tensorflow__graph_def__descriptor,
                                                               &tensorflow__saved_model__descriptor,
                                                               &onnx__model_proto__descriptor};
    if (size == 0) {
        return 0;
    }
    const ProtobufCMessageDescriptor *d = types[data[0] % 3];
    char err[768];
    if (fl_pb_guard(d, data + 1, size - 1, err, sizeof err) != 0) {
        check_refusal(d, err);
    }
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, size - 1, data + 1);
    if (!m) {
        return 0;
    }
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *packed = malloc(n ? n : 1);
    fuzz_require(packed != NULL, "out of memory");
    fuzz_require(protobuf_c_message_pack(m, packed) == n, "pack size changed");
    protobuf_c_message_free_unpacked(m, NULL);
    if (fl_pb_guard(d, packed, n, err, sizeof err) != 0) {
        check_refusal(d, err);
        fuzz_require(strstr(err, "nested deeper than 100") != NULL,
                     "protobuf-c's own encoding refused: %s", err);
    }
    free(packed);
    return 0;
}
