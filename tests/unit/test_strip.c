/*
 * test_strip.c - the wire-format limits checked before protobuf-c unpacks a
 * message (proto/glue/pbguard.c) and the CLI's --strip-weights format handling
 * (client/strip.c). Inputs are written byte by byte here from the field
 * numbers of proto/tensorflow (GraphDef node = 1, versions = 4; NodeDef
 * name = 1, op = 2, attr = 5; AttrValue func = 10; NameAttrList attr = 2;
 * map entries key = 1, value = 2; VersionDef producer = 1).
 */
#include "pbguard.h"
#include "strip.h"
#include "tensorflow/graph.pb-c.h"
#include "testutil.h"

#include <cmocka.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *bytes, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, bytes, n);
    b->n += n;
}

static void put_varint(buf *b, uint64_t v) {
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, t, n);
}

/* Field `num` (wire type 2) holding `inner`. */
static void put_sub(buf *b, unsigned num, const buf *inner) {
    put_varint(b, (uint64_t)num << 3 | 2);
    put_varint(b, inner->n);
    put(b, inner->p, inner->n);
}

static void put_str(buf *b, unsigned num, const char *s) {
    buf t = {(unsigned char *)s, strlen(s), 0};
    put_sub(b, num, &t);
}

/* A NodeDef named `name` with op `op`. */
static void put_node(buf *g, const char *name, const char *op) {
    buf nd = {0};
    put_str(&nd, 1, name);
    put_str(&nd, 2, op);
    put_sub(g, 1, &nd);
    free(nd.p);
}

static void put_versions(buf *g, unsigned times) {
    const unsigned char v[] = {0x22, 2, 0x08, 5}; /* versions { producer: 5 } */
    for (unsigned i = 0; i < times; i++) {
        put(g, v, sizeof v);
    }
}

static int guard_graphdef(const buf *b, char *err, size_t n) {
    return fl_pb_guard(&tensorflow__graph_def__descriptor, b->p, b->n, err, n);
}

/* The limit counts occurrences of one singular message field within one
 * message: 16 are accepted (and protobuf-c merges them), 17 are not. */
static void test_singular_occurrences(void **state) {
    (void)state;
    char err[768];
    buf g = {0};
    put_node(&g, "a", "NoOp");
    put_versions(&g, 16);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), 0);
    assert_string_equal(err, "");
    Tensorflow__GraphDef *m = tensorflow__graph_def__unpack(NULL, g.n, g.p);
    assert_non_null(m);
    assert_int_equal(m->versions->producer, 5);
    tensorflow__graph_def__free_unpacked(m, NULL);
    put_versions(&g, 1);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), -1);
    assert_string_equal(err, "tensorflow.GraphDef: the singular message field versions occurs "
                             "more than 16 times in one message; at most 16 are accepted (each "
                             "occurrence is merged into the earlier ones)");
    free(g.p);
}

/* Repeated fields have no such limit: 100,000 nodes pass, and each
 * message's count is its own (16 `value`s in each of two attr entries). */
static void test_repeated_unlimited(void **state) {
    (void)state;
    char err[768];
    buf g = {0};
    for (int i = 0; i < 100000; i++) {
        put_node(&g, "n", "NoOp");
    }
    assert_int_equal(guard_graphdef(&g, err, sizeof err), 0);
    buf av = {0}, entry = {0}, nd = {0};
    put_varint(&av, 3 << 3); /* AttrValue { i: 1 } */
    put_varint(&av, 1);
    put_str(&entry, 1, "k");
    for (int i = 0; i < 16; i++) {
        put_sub(&entry, 2, &av);
    }
    put_str(&nd, 1, "x");
    put_sub(&nd, 5, &entry);
    put_sub(&nd, 5, &entry);
    put_sub(&g, 1, &nd);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), 0);
    /* One more `value` in the second entry of node 100,000: named by path. */
    put_sub(&entry, 2, &av);
    nd.n = 0;
    put_str(&nd, 1, "x");
    put_sub(&nd, 5, &av);
    put_sub(&nd, 5, &entry);
    put_sub(&g, 1, &nd);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), -1);
    assert_non_null(strstr(err, "the singular message field node[100001].attr[1].value occurs"));
    free(g.p);
    free(av.p);
    free(entry.p);
    free(nd.p);
}

/* AttrValue { func { attr { key: "f" value: <levels - 3 more> } } }: three
 * message levels per step. */
static void nest(buf *out, int steps) {
    buf inner = {0};
    for (int s = 0; s < steps; s++) {
        buf entry = {0}, func = {0}, value = {0};
        put_str(&entry, 1, "f");
        if (inner.n) {
            put_sub(&entry, 2, &inner);
        }
        put_sub(&func, 2, &entry);
        put_sub(&value, 10, &func);
        free(inner.p);
        free(entry.p);
        free(func.p);
        inner = value;
    }
    /* GraphDef { node { name: "d" attr { key: "v" value: <inner> } } } */
    buf entry = {0}, nd = {0};
    put_str(&entry, 1, "v");
    put_sub(&entry, 2, &inner);
    put_str(&nd, 1, "d");
    put_sub(&nd, 5, &entry);
    put_sub(out, 1, &nd);
    free(inner.p);
    free(entry.p);
    free(nd.p);
}

/* Messages nest at most 100 levels: GraphDef (1), NodeDef (2), the attr
 * entry (3), then 3 per step; 32 steps are 99 levels, 33 are 102. */
static void test_depth(void **state) {
    (void)state;
    char err[768];
    buf g = {0};
    nest(&g, 32);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), 0);
    Tensorflow__GraphDef *m = tensorflow__graph_def__unpack(NULL, g.n, g.p);
    assert_non_null(m);
    tensorflow__graph_def__free_unpacked(m, NULL);
    g.n = 0;
    nest(&g, 33);
    assert_int_equal(guard_graphdef(&g, err, sizeof err), -1);
    assert_non_null(strstr(err, "tensorflow.GraphDef: messages nested deeper than 100 levels (at "
                                "field node[0].attr[0].value.func.attr[0].value.func."));
    assert_non_null(strstr(err, "at most 100 are accepted"));
    free(g.p);
}

/* Bytes that are not wire format are left to protobuf-c. */
static void test_bad_wire_left_to_unpack(void **state) {
    (void)state;
    char err[768];
    const unsigned char bad[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
    assert_int_equal(
        fl_pb_guard(&tensorflow__graph_def__descriptor, bad, sizeof bad, err, sizeof err), 0);
    assert_null(tensorflow__graph_def__unpack(NULL, sizeof bad, bad));
    assert_int_equal(fl_pb_guard(&tensorflow__graph_def__descriptor, NULL, 0, err, sizeof err), 0);
}

static int strip(const void *bytes, size_t len, fl_format fmt, unsigned char **out, char *err) {
    size_t n = 0;
    *out = NULL;
    return fl_strip_weights(bytes, len, fmt, 1024, out, &n, err, 768);
}

/* --strip-weights on input of no format foldline reads: an error naming
 * what it is not (it used to be taken for a SavedModel and sent as is). */
static void test_strip_unknown_format(void **state) {
    (void)state;
    char err[768];
    unsigned char *out = NULL;
    const char *text = "hello world, not a model\n";
    assert_int_equal(strip(text, strlen(text), FL_FORMAT_AUTO, &out, err), -1);
    assert_null(out);
    assert_string_equal(err, "not a model foldline reads: not TFLite (no TFL3 identifier), TF.js "
                             "(no model.json object), ONNX (no ModelProto graph), a SavedModel "
                             "(no meta graph), nor a tensorflow.GraphDef (the bytes do not decode "
                             "as one)");
    /* Decodes as a GraphDef with no node: "\x12\x00" is an empty library. */
    assert_int_equal(strip("\x12\x00", 2, FL_FORMAT_AUTO, &out, err), -1);
    assert_non_null(strstr(err, "nor a tensorflow.GraphDef (it decodes as one without any node)"));
    assert_int_equal(strip(text, strlen(text), FL_FORMAT_GRAPHDEF, &out, err), -1);
    assert_string_equal(err, "not a valid binary tensorflow.GraphDef (the bytes do not decode as "
                             "one)");
    assert_int_equal(strip(text, strlen(text), FL_FORMAT_ONNX, &out, err), -1);
    assert_string_equal(err, "not a valid binary onnx.ModelProto (the bytes do not decode as one)");
    /* Over the limit: named before unpacking. */
    buf g = {0};
    put_node(&g, "a", "NoOp");
    put_versions(&g, 17);
    assert_int_equal(strip(g.p, g.n, FL_FORMAT_AUTO, &out, err), -1);
    assert_non_null(strstr(err, "singular message field versions occurs more than 16 times"));
    free(g.p);
}

/* Known formats: a GraphDef is stripped (its 4,608-byte conv2 kernel goes),
 * a model.json is sent as it is. */
static void test_strip_known_formats(void **state) {
    (void)state;
    char err[768];
    size_t len = 0;
    unsigned char *pb = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &len);
    assert_non_null(pb);
    unsigned char *out = NULL;
    size_t n = 0;
    assert_int_equal(fl_strip_weights(pb, len, FL_FORMAT_AUTO, 1024, &out, &n, err, sizeof err), 0);
    assert_non_null(out);
    assert_true(n < len);
    Tensorflow__GraphDef *m = tensorflow__graph_def__unpack(NULL, n, out);
    assert_non_null(m);
    Tensorflow__GraphDef *o = tensorflow__graph_def__unpack(NULL, len, pb);
    assert_int_equal(m->n_node, o->n_node);
    tensorflow__graph_def__free_unpacked(m, NULL);
    tensorflow__graph_def__free_unpacked(o, NULL);
    free(out);
    free(pb);
    const char *json = "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":[]},"
                       "\"weightsManifest\":[]}";
    assert_int_equal(fl_detect_format(json, strlen(json)), FL_FORMAT_TFJS);
    assert_int_equal(strip(json, strlen(json), FL_FORMAT_AUTO, &out, err), 1);
    assert_null(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_singular_occurrences),
        cmocka_unit_test(test_repeated_unlimited),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_bad_wire_left_to_unpack),
        cmocka_unit_test(test_strip_unknown_format),
        cmocka_unit_test(test_strip_known_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
