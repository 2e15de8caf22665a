/*
 * test_wirescan.c - the incremental model scanner (fl_wire_scan_*,
 * include/foldline/wire.h; src/import/wirescan.c).
 *
 * The reference is protobuf-c's own unpacker: on tests/data's tiny_cnn
 * models, the bytes the scan leaves out are exactly the payloads (ONNX
 * raw_data, GraphDef tensor_content) of the numeric tensors with more
 * elements than max_value_elements, in file order, and the nodes it counts
 * are the ones the importers count (ONNX: nodes, initializers and inputs of
 * the model's graph; GraphDef: its nodes), fed whole or a byte at a time.
 * Hand-written messages (field numbers of onnx.proto: ModelProto.graph 7,
 * GraphProto.initializer 5, TensorProto.dims 1 / data_type 2 / raw_data 9;
 * graph.proto: GraphDef.node 1) cover what is kept: a payload before its
 * data_type, a 4-bit tensor, bytes that may still be TF.js, TFLite.
 */
#include "foldline/wire.h"
#include "onnx/onnx.pb-c.h"
#include "tensorflow/graph.pb-c.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct result {
    uint8_t *left_out; /* the bytes left out, in order */
    size_t n_left_out;
    int64_t nodes;
    const char *error; /* copied */
    char error_buf[256];
    char retyped[256]; /* fl_wire_scan_retyped's, or "" */
    size_t consumed;
} result;

/* Scans `len` bytes in pieces of `step` (0: whole). */
static void scan(const uint8_t *buf, size_t len, fl_format fmt, int64_t max_nodes,
                 int64_t max_elems, size_t step, result *r) {
    memset(r, 0, sizeof *r);
    r->left_out = malloc(len ? len : 1);
    assert_non_null(r->left_out);
    fl_wire_scan *s = fl_wire_scan_new(fmt, max_nodes, max_elems);
    assert_non_null(s);
    size_t pos = 0;
    while (pos < len) {
        size_t end = step && len - pos > step ? pos + step : len;
        size_t k = 1;
        while (pos < end && k) {
            int keep;
            k = fl_wire_scan_next(s, buf + pos, end - pos, &keep);
            if (k && !keep) {
                memcpy(r->left_out + r->n_left_out, buf + pos, k);
                r->n_left_out += k;
            }
            pos += k;
        }
        if (!k) {
            break;
        }
    }
    r->consumed = pos;
    r->nodes = fl_wire_scan_nodes(s);
    assert_int_equal(fl_wire_scan_dropped(s), r->n_left_out);
    if (fl_wire_scan_error(s)) {
        snprintf(r->error_buf, sizeof r->error_buf, "%s", fl_wire_scan_error(s));
        r->error = r->error_buf;
    }
    if (fl_wire_scan_retyped(s)) {
        snprintf(r->retyped, sizeof r->retyped, "%s", fl_wire_scan_retyped(s));
    }
    fl_wire_scan_free(s);
}

static void append(uint8_t *out, size_t *n, const uint8_t *p, size_t len) {
    memcpy(out + *n, p, len);
    *n += len;
}

/* ONNX numeric types other than string and 4-bit ones (onnx.proto
 * DataType 1-16 but 8). */
static bool onnx_droppable(int dt) {
    return dt >= 1 && dt <= 16 && dt != 8;
}

static void test_onnx_payloads_left_out(void **state) {
    (void)state;
    size_t len;
    uint8_t *buf = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.onnx", &len);
    assert_non_null(buf);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    assert_non_null(m);
    const int64_t max = 64;
    uint8_t *want = malloc(len);
    size_t n_want = 0;
    for (size_t i = 0; i < m->graph->n_initializer; i++) {
        const Onnx__TensorProto *t = m->graph->initializer[i];
        int64_t n = 1;
        for (size_t d = 0; d < t->n_dims; d++) {
            n *= t->dims[d];
        }
        if (n > max && onnx_droppable(t->data_type) && t->raw_data.len) {
            append(want, &n_want, t->raw_data.data, t->raw_data.len);
        }
    }
    int64_t nodes = (int64_t)(m->graph->n_node + m->graph->n_initializer + m->graph->n_input);
    assert_true(n_want > 1000); /* the conv and dense weights */
    for (size_t step = 0; step < 3; step++) {
        result r;
        scan(buf, len, FL_FORMAT_AUTO, 1000, max, step, &r);
        assert_null(r.error);
        assert_int_equal(r.consumed, len);
        assert_int_equal(r.nodes, nodes);
        assert_int_equal(r.n_left_out, n_want);
        assert_memory_equal(r.left_out, want, n_want);
        free(r.left_out);
    }
    /* With the default limit nothing of this small model is left out. */
    result r;
    scan(buf, len, FL_FORMAT_ONNX, 1000, 1048576, 0, &r);
    assert_int_equal(r.n_left_out, 0);
    free(r.left_out);
    /* The node limit: passed at the last of them, not before. */
    scan(buf, len, FL_FORMAT_AUTO, nodes, max, 1, &r);
    assert_null(r.error);
    free(r.left_out);
    scan(buf, len, FL_FORMAT_AUTO, nodes - 1, max, 1, &r);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "nodes, initializers and inputs (field: graph.node, at byte"));
    assert_true(r.consumed < len);
    free(r.left_out);
    onnx__model_proto__free_unpacked(m, NULL);
    free(want);
    free(buf);
}

static void test_graphdef_payloads_left_out(void **state) {
    (void)state;
    size_t len;
    uint8_t *buf = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &len);
    assert_non_null(buf);
    Tensorflow__GraphDef *g = tensorflow__graph_def__unpack(NULL, len, buf);
    assert_non_null(g);
    const int64_t max = 64;
    uint8_t *want = malloc(len);
    size_t n_want = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        const Tensorflow__NodeDef *nd = g->node[i];
        for (size_t a = 0; a < nd->n_attr; a++) {
            const Tensorflow__AttrValue *v = nd->attr[a]->value;
            const Tensorflow__TensorProto *t =
                v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR ? v->tensor : NULL;
            if (!t || !t->tensor_content.len || !t->tensor_shape) {
                continue;
            }
            int64_t n = 1;
            for (size_t d = 0; d < t->tensor_shape->n_dim; d++) {
                n *= t->tensor_shape->dim[d]->size;
            }
            if (n > max && t->dtype == TENSORFLOW__DATA_TYPE__DT_FLOAT) {
                append(want, &n_want, t->tensor_content.data, t->tensor_content.len);
            }
        }
    }
    assert_true(n_want > 1000);
    for (size_t step = 0; step < 3; step++) {
        result r;
        scan(buf, len, FL_FORMAT_AUTO, 1000, max, step, &r);
        assert_null(r.error);
        assert_int_equal(r.nodes, (int64_t)g->n_node);
        assert_int_equal(r.n_left_out, n_want);
        assert_memory_equal(r.left_out, want, n_want);
        free(r.left_out);
    }
    result r;
    scan(buf, len, FL_FORMAT_AUTO, (int64_t)g->n_node - 1, max, 7, &r);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "(field: node, at byte"));
    free(r.left_out);
    tensorflow__graph_def__free_unpacked(g, NULL);
    free(want);
    free(buf);
}

/* An ONNX model: graph { initializer { <tensor> } }, with a varint and
 * length each written in one byte (the tensors here are small). */
static size_t onnx_with(const uint8_t *tensor, size_t tlen, uint8_t *out) {
    size_t n = 0;
    out[n++] = 0x3a; /* graph (7) */
    out[n++] = (uint8_t)(tlen + 2);
    out[n++] = 0x2a; /* initializer (5) */
    out[n++] = (uint8_t)tlen;
    memcpy(out + n, tensor, tlen);
    return n + tlen;
}

static void test_kept(void **state) {
    (void)state;
    uint8_t model[128];
    result r;
    /* dims [40], FLOAT, 160 bytes would be too long for the one-byte
     * lengths: dims [20] of FLOAT16 (2 bytes each), 40 payload bytes. */
    uint8_t before[] = {0x08, 20, 0x10, 10, 0x4a, 40};
    uint8_t t[64];
    memcpy(t, before, sizeof before);
    memset(t + sizeof before, 0x55, 40);
    size_t n = onnx_with(t, sizeof before + 40, model);
    scan(model, n, FL_FORMAT_ONNX, 10, 8, 0, &r);
    assert_int_equal(r.n_left_out, 40); /* left out: 20 elements > 8 */
    assert_int_equal(r.nodes, 1);
    free(r.left_out);
    /* The same with data_type after raw_data: kept (the type decides). */
    uint8_t after[] = {0x08, 20, 0x4a, 40};
    memcpy(t, after, sizeof after);
    memset(t + sizeof after, 0x55, 40);
    t[sizeof after + 40] = 0x10;
    t[sizeof after + 41] = 10;
    n = onnx_with(t, sizeof after + 42, model);
    scan(model, n, FL_FORMAT_ONNX, 10, 8, 0, &r);
    assert_int_equal(r.n_left_out, 0);
    free(r.left_out);
    /* INT4 (22): kept, the passes read the packed bytes. */
    uint8_t int4[] = {0x08, 80, 0x10, 22, 0x4a, 40};
    memcpy(t, int4, sizeof int4);
    memset(t + sizeof int4, 0x55, 40);
    n = onnx_with(t, sizeof int4 + 40, model);
    scan(model, n, FL_FORMAT_ONNX, 10, 8, 0, &r);
    assert_int_equal(r.n_left_out, 0);
    free(r.left_out);
    /* A GraphDef whose first node is 123 bytes long reads "\n{" like the
     * start of a TF.js model.json: detected, it is kept whole and its node
     * not counted; named a GraphDef, it is scanned. */
    uint8_t gd[2 + 123];
    gd[0] = 0x0a;
    gd[1] = 123;
    gd[2] = 0x0a; /* NodeDef.name (1) */
    gd[3] = 121;
    memset(gd + 4, 'n', 121);
    scan(gd, sizeof gd, FL_FORMAT_AUTO, 10, 8, 0, &r);
    assert_int_equal(r.nodes, 0);
    free(r.left_out);
    /* The same a byte at a time: the node's tag is read before the first 8
     * bytes tell TF.js, and is not counted either. */
    scan(gd, sizeof gd, FL_FORMAT_AUTO, 10, 8, 1, &r);
    assert_int_equal(r.nodes, 0);
    assert_int_equal(r.n_left_out, 0);
    free(r.left_out);
    scan(gd, sizeof gd, FL_FORMAT_GRAPHDEF, 10, 8, 0, &r);
    assert_int_equal(r.nodes, 1);
    free(r.left_out);
    /* TFLite (TFL3 at bytes 4-7) and a SavedModel: kept whole, not counted. */
    size_t tl;
    uint8_t *tfl = fl_test_read_file(FL_TEST_DATA_DIR "/tiny.tflite", &tl);
    assert_non_null(tfl);
    scan(tfl, tl, FL_FORMAT_AUTO, 1, 0, 1, &r);
    assert_int_equal(r.n_left_out, 0);
    assert_int_equal(r.nodes, 0);
    assert_null(r.error);
    free(r.left_out);
    free(tfl);
    uint8_t sm[] = {0x08, 0x01, 0x12, 0x02, 0x0a, 0x00, 0x0a, 0x00, 0x0a, 0x00};
    scan(sm, sizeof sm, FL_FORMAT_AUTO, 1, 0, 1, &r);
    assert_int_equal(r.nodes, 0);
    assert_null(r.error);
    free(r.left_out);
}

/* model (n bytes, its last two a data_type 22 or a droppable type, after a
 * 40-byte raw_data left out at max_value_elements 8) scanned whole, a byte
 * at a time and in pieces: the payload left out each way, and the retype
 * reported at the data_type's byte when `retyped`, else nothing. */
static void check_retyped(const uint8_t *model, size_t n, bool retyped) {
    for (size_t step = 0; step < 3; step++) {
        result r;
        scan(model, n, FL_FORMAT_ONNX, 10, 8, step, &r);
        assert_null(r.error);
        assert_int_equal(r.consumed, n);
        assert_int_equal(r.n_left_out, 40);
        if (retyped) {
            char want[64];
            snprintf(want, sizeof want, "data_type 22 at byte %zu of the model", n - 2);
            assert_non_null(strstr(r.retyped, want));
            assert_non_null(strstr(r.retyped, "after its raw_data"));
            assert_non_null(strstr(r.retyped, "(field: data_type)"));
        } else {
            assert_string_equal(r.retyped, "");
        }
        free(r.left_out);
    }
}

/* data_type given again after a left-out raw_data (protobuf: the last one
 * counts): turned into INT4 (22), whose packed bytes the nbits pass reads,
 * the scan reports it, naming the field and the byte of that data_type;
 * turned into another type of fixed size (FLOAT), it does not (the importer
 * then reads no value either, and reports the payload's length against the
 * dims whatever the bytes). Any split of the input. */
static void test_retyped_after_payload(void **state) {
    (void)state;
    uint8_t t[64], model[128];
    uint8_t head[] = {0x08, 20, 0x10, 10, 0x4a, 40}; /* dims [20], FLOAT16, raw_data */
    memcpy(t, head, sizeof head);
    memset(t + sizeof head, 0x5a, 40);
    t[sizeof head + 40] = 0x10; /* data_type */
    for (int i = 0; i < 2; i++) {
        t[sizeof head + 41] = i == 0 ? 22 : 1;
        size_t n = onnx_with(t, sizeof head + 42, model);
        check_retyped(model, n, i == 0);
    }
}

/* AttributeProto.t is a single message: a second t in one attribute is
 * merged into the first by protobuf's rules (the importer's too), so a
 * data_type given in it retypes the first t's left-out raw_data. */
static void test_retyped_in_second_t(void **state) {
    (void)state;
    uint8_t model[80];
    for (int i = 0; i < 2; i++) {
        size_t n = 0;
        const uint8_t head[] = {0x3a, 56, 0x0a, 54, 0x2a, 52, 0x2a, 46, /* graph, node, attr, t */
                                0x08, 20, 0x10, 10, 0x4a, 40}; /* dims [20], FLOAT16, raw_data */
        memcpy(model, head, sizeof head);
        n = sizeof head;
        memset(model + n, 0x5a, 40);
        n += 40;
        model[n++] = 0x2a; /* t again */
        model[n++] = 2;
        model[n++] = 0x10; /* data_type */
        model[n++] = i == 0 ? 22 : 10;
        assert_int_equal(n, 58);
        check_retyped(model, n, i == 0);
    }
}

/* Packed runs of fixed-width values (ONNX float_data 4 and double_data 10,
 * GraphDef float_val 5, double_val 6, scomplex_val 9 and dcomplex_val 12):
 * their element count is their
 * length over 4 or 8 whatever the bytes, so past max_value_elements they are
 * left out like raw_data; a run whose length is not a whole number of
 * values is kept (the importer reports it), and so is a varint-packed one
 * (int64_data 7: its count depends on the bytes). */
static void test_typed_payloads(void **state) {
    (void)state;
    uint8_t t[96], model[128];
    result r;
    struct {
        uint8_t dtype, field;
        size_t len, left_out;
    } cases[] = {
        {1, 4, 40, 40},   /* FLOAT, float_data: 10 values of 4 bytes */
        {11, 10, 80, 80}, /* DOUBLE, double_data: 10 of 8 */
        {1, 4, 38, 0},    /* not a whole number of floats */
        {7, 7, 40, 0},    /* INT64, int64_data: varints */
        {1, 4, 0, 0},     /* empty */
        {1, 4, 36, 0},    /* 9 floats for dims of 10: too short, kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t tag = (uint8_t)(cases[i].field << 3 | 2);
        uint8_t head[] = {0x08, 10, 0x10, cases[i].dtype, tag, (uint8_t)cases[i].len};
        memcpy(t, head, sizeof head);
        memset(t + sizeof head, 0x01, cases[i].len);
        size_t n = onnx_with(t, sizeof head + cases[i].len, model);
        for (size_t step = 0; step < 3; step++) {
            scan(model, n, FL_FORMAT_ONNX, 10, 8, step, &r);
            assert_null(r.error);
            assert_int_equal(r.n_left_out, cases[i].left_out);
            free(r.left_out);
        }
        /* With 10 elements allowed, nothing is left out. */
        scan(model, n, FL_FORMAT_ONNX, 10, 10, 0, &r);
        assert_int_equal(r.n_left_out, 0);
        free(r.left_out);
    }
    /* GraphDef: a Const's tensor { dtype, shape [5], a run of 5 values } of
     * each packed fixed-width field: DT_FLOAT float_val (5), DT_DOUBLE
     * double_val (6), DT_COMPLEX64 scomplex_val (9, a real and an imaginary
     * float each) and DT_COMPLEX128 dcomplex_val (12), with 4 elements
     * allowed: left out; with 5, kept. */
    struct {
        uint8_t dtype, field, len;
    } gcases[] = {{1, 5, 20}, {2, 6, 40}, {8, 9, 40}, {18, 12, 80}};
    for (size_t c = 0; c < sizeof gcases / sizeof gcases[0]; c++) {
        uint8_t gd[160];
        size_t k = 0;
        uint8_t tensor[100];
        size_t tl = 0;
        tensor[tl++] = 0x08; /* dtype */
        tensor[tl++] = gcases[c].dtype;
        uint8_t shape[] = {0x12, 0x04, 0x12, 0x02, 0x08, 5}; /* tensor_shape { dim { size 5 } } */
        memcpy(tensor + tl, shape, sizeof shape);
        tl += sizeof shape;
        tensor[tl++] = (uint8_t)(gcases[c].field << 3 | 2);
        tensor[tl++] = gcases[c].len;
        memset(tensor + tl, 0x3f, gcases[c].len);
        tl += gcases[c].len;
        /* node { name "c" op "Const" attr { key "value" value { tensor } } } */
        uint8_t attr_val[104];
        size_t al = 0;
        attr_val[al++] = 0x42; /* AttrValue.tensor (8) */
        attr_val[al++] = (uint8_t)tl;
        memcpy(attr_val + al, tensor, tl);
        al += tl;
        uint8_t entry[120];
        size_t el = 0;
        uint8_t key[] = {0x0a, 0x05, 'v', 'a', 'l', 'u', 'e'};
        memcpy(entry, key, sizeof key);
        el += sizeof key;
        entry[el++] = 0x12;
        entry[el++] = (uint8_t)al;
        memcpy(entry + el, attr_val, al);
        el += al;
        uint8_t node[140];
        size_t nl = 0;
        uint8_t nm[] = {0x0a, 0x01, 'c', 0x12, 0x05, 'C', 'o', 'n', 's', 't'};
        memcpy(node, nm, sizeof nm);
        nl += sizeof nm;
        node[nl++] = 0x2a; /* NodeDef.attr (5) */
        node[nl++] = (uint8_t)el;
        memcpy(node + nl, entry, el);
        nl += el;
        gd[k++] = 0x0a;
        gd[k++] = (uint8_t)nl;
        memcpy(gd + k, node, nl);
        k += nl;
        for (size_t step = 0; step < 3; step++) {
            scan(gd, k, FL_FORMAT_AUTO, 10, 4, step, &r);
            assert_null(r.error);
            assert_int_equal(r.nodes, 1);
            assert_int_equal(r.n_left_out, gcases[c].len);
            assert_memory_equal(r.left_out, gd + k - gcases[c].len, gcases[c].len);
            free(r.left_out);
        }
        scan(gd, k, FL_FORMAT_AUTO, 10, 5, 0, &r);
        assert_int_equal(r.n_left_out, 0);
        free(r.left_out);
    }
}

/* TensorShapeProto.Dim.size is a singular field: given twice, the last one
 * counts (as protobuf and the importers read it), so dims 2000000 then 2
 * are 2 elements: with 8 elements allowed the importer decodes the
 * constant and its payload is kept; with 1 allowed its 8 bytes (2 int32)
 * are left out (read as 4,000,000 or 2,000,000 elements, 8 bytes could
 * not hold them: kept). Given the other way round, 2000000 elements: 8
 * bytes cannot hold them, so they are kept, malformed, for the importer to
 * report with the request's own bytes, whatever the limit. */
static void test_dim_size_given_twice(void **state) {
    (void)state;
    uint8_t gd[] = {
        0x0a, 0x2d,                                     /* GraphDef.node (1), 45 bytes */
        0x0a, 0x01, 's',                                /* NodeDef.name */
        0x12, 0x05, 'C',  'o',  'n', 's', 't',          /* NodeDef.op */
        0x2a, 0x21,                                     /* NodeDef.attr (5), an entry */
        0x0a, 0x05, 'v',  'a',  'l', 'u', 'e',          /* key */
        0x12, 0x18,                                     /* value: AttrValue */
        0x42, 0x16,                                     /* AttrValue.tensor (8) */
        0x08, 0x03,                                     /* TensorProto.dtype DT_INT32 */
        0x12, 0x08,                                     /* tensor_shape (2) */
        0x12, 0x06,                                     /* TensorShapeProto.dim (2) */
        0x08, 0x80, 0x89, 0x7a,                         /* Dim.size 2000000 */
        0x08, 0x02,                                     /* Dim.size 2: replaces it */
        0x22, 0x08, 44,   1,    0,   0,   200, 0, 0, 0, /* tensor_content: 300, 200 */
    };
    for (size_t step = 0; step < 3; step++) {
        result r;
        scan(gd, sizeof gd, FL_FORMAT_AUTO, 10, 8, step, &r);
        assert_null(r.error);
        assert_int_equal(r.nodes, 1);
        assert_int_equal(r.n_left_out, 0);
        free(r.left_out);
        scan(gd, sizeof gd, FL_FORMAT_AUTO, 10, 1, step, &r);
        assert_null(r.error);
        assert_int_equal(r.n_left_out, 8);
        assert_memory_equal(r.left_out, gd + sizeof gd - 8, 8);
        free(r.left_out);
    }
    /* The sizes the other way round: 2 then 2000000. */
    uint8_t big[] = {0x08, 0x02, 0x08, 0x80, 0x89, 0x7a};
    memcpy(gd + 31, big, sizeof big);
    for (size_t step = 0; step < 3; step++) {
        for (int64_t max = 1; max <= 8; max += 7) {
            result r;
            scan(gd, sizeof gd, FL_FORMAT_AUTO, 10, max, step, &r);
            assert_null(r.error);
            assert_int_equal(r.n_left_out, 0);
            free(r.left_out);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_onnx_payloads_left_out),
        cmocka_unit_test(test_graphdef_payloads_left_out),
        cmocka_unit_test(test_kept),
        cmocka_unit_test(test_dim_size_given_twice),
        cmocka_unit_test(test_retyped_after_payload),
        cmocka_unit_test(test_retyped_in_second_t),
        cmocka_unit_test(test_typed_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
