/*
 * The public in-place decoder (include/foldline/wire.h), through its header
 * only: a message's bytes fields are views into the caller's buffer, several
 * messages share one set and live until it is freed, and malformed bytes are
 * rejected naming the message type, the field and the byte offset. The
 * messages are onnx.TensorProto (field numbers from onnx.proto3: dims 1,
 * data_type 2, name 8, raw_data 9), written byte by byte here.
 */
#include "foldline/wire.h"
#include "onnx/onnx.pb-c.h"
#include "testutil.h"

#include <string.h>

/* A tensor named "w" with dims [2, 3], data_type 1 and 6 raw bytes. */
static const uint8_t tensor[] = {
    0x08, 0x02,                    /* dims: 2 */
    0x08, 0x03,                    /* dims: 3 */
    0x10, 0x01,                    /* data_type: 1 (FLOAT) */
    0x42, 0x01, 'w',               /* name: "w" */
    0x4a, 0x06, 1,   2, 3, 4, 5, 6 /* raw_data: 6 bytes */
};

static void test_bytes_are_views(void **state) {
    (void)state;
    fl_wire_msgs *m = fl_wire_msgs_new();
    assert_non_null(m);
    fl_wire_error e;
    memset(&e, 0, sizeof e);
    Onnx__TensorProto *t = (Onnx__TensorProto *)fl_wire_unpack(m, &onnx__tensor_proto__descriptor,
                                                               tensor, sizeof tensor, &e);
    assert_non_null(t);
    assert_int_equal(t->n_dims, 2);
    assert_int_equal(t->dims[0], 2);
    assert_int_equal(t->dims[1], 3);
    assert_int_equal(t->data_type, 1);
    assert_string_equal(t->name, "w");
    assert_int_equal(t->raw_data.len, 6);
    /* Not a copy: the payload is the buffer's own bytes (offset 11). */
    assert_ptr_equal(t->raw_data.data, tensor + 11);

    /* A second message in the same set; both stay valid. */
    Onnx__TensorProto *u = (Onnx__TensorProto *)fl_wire_unpack(m, &onnx__tensor_proto__descriptor,
                                                               tensor + 6, sizeof tensor - 6, &e);
    assert_non_null(u);
    assert_int_equal(u->n_dims, 0);
    assert_string_equal(u->name, "w");
    assert_ptr_equal(u->raw_data.data, tensor + 11);
    assert_int_equal(t->dims[1], 3);
    fl_wire_msgs_free(m);
}

static void test_length_past_end(void **state) {
    (void)state;
    /* raw_data claims 7 bytes where 6 are left. */
    uint8_t bad[sizeof tensor];
    memcpy(bad, tensor, sizeof tensor);
    bad[10] = 7;
    fl_wire_msgs *m = fl_wire_msgs_new();
    assert_non_null(m);
    fl_wire_error e;
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(m, &onnx__tensor_proto__descriptor, bad, sizeof bad, &e));
    assert_string_equal(e.message, "onnx.TensorProto");
    assert_non_null(e.field);
    assert_string_equal(e.field, "raw_data");
    assert_non_null(e.what);
    assert_int_equal(e.oom, 0);
    assert_int_equal(e.offset, 9); /* where the field's tag starts */
    fl_wire_msgs_free(m);
}

static void test_wrong_wire_type_and_cut(void **state) {
    (void)state;
    fl_wire_msgs *m = fl_wire_msgs_new();
    assert_non_null(m);
    fl_wire_error e;
    /* name (8) as a varint: the wire type does not match a string field. */
    static const uint8_t wt[] = {0x08, 0x02, 0x40, 0x01};
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(m, &onnx__tensor_proto__descriptor, wt, sizeof wt, &e));
    assert_non_null(e.field);
    assert_string_equal(e.field, "name");
    assert_int_equal(e.offset, 2);
    /* A varint cut short at the end. */
    static const uint8_t cut[] = {0x08, 0x82};
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(m, &onnx__tensor_proto__descriptor, cut, sizeof cut, &e));
    assert_string_equal(e.message, "onnx.TensorProto");
    assert_non_null(e.what);
    /* Field number 0. */
    static const uint8_t zero[] = {0x00, 0x01};
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(m, &onnx__tensor_proto__descriptor, zero, sizeof zero, &e));
    assert_int_equal(e.offset, 0);
    /* The set is still usable after failures. */
    assert_non_null(
        fl_wire_unpack(m, &onnx__tensor_proto__descriptor, tensor, sizeof tensor, NULL));
    fl_wire_msgs_free(m);
}

static void test_empty_and_missing(void **state) {
    (void)state;
    fl_wire_msgs *m = fl_wire_msgs_new();
    assert_non_null(m);
    /* No bytes: a message with every field at its default. */
    Onnx__TensorProto *t =
        (Onnx__TensorProto *)fl_wire_unpack(m, &onnx__tensor_proto__descriptor, NULL, 0, NULL);
    assert_non_null(t);
    assert_int_equal(t->n_dims, 0);
    assert_int_equal(t->raw_data.len, 0);
    fl_wire_error e;
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(NULL, &onnx__tensor_proto__descriptor, tensor, sizeof tensor, &e));
    assert_non_null(e.what);
    memset(&e, 0, sizeof e);
    assert_null(fl_wire_unpack(m, NULL, tensor, sizeof tensor, &e));
    assert_non_null(e.what);
    fl_wire_msgs_free(m);
    fl_wire_msgs_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_are_views),
        cmocka_unit_test(test_length_past_end),
        cmocka_unit_test(test_wrong_wire_type_and_cut),
        cmocka_unit_test(test_empty_and_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
