/*
 * test_pbwire.c - the zero-copy wire reader (src/import/pbwire.c).
 *
 * The reference is protobuf-c's own unpacker: on every model of tests/data
 * and the corpus, and on every truncation of a small model, both readers
 * must agree (both fail, or both succeed and protobuf-c packs the two
 * results to the same bytes). Payloads must be views into the input. The
 * malformed inputs are written byte by byte with the field numbers of
 * onnx.proto (ModelProto.graph 7, GraphProto.node 1 / initializer 5,
 * NodeProto.attribute 5, AttributeProto.g 6, TensorProto.dims 1 /
 * data_type 2 / float_data 4 / raw_data 9). Every ModelProto read here is
 * also read by the ONNX reader (onnx_wire.c), which must give pbwire's
 * message or pbwire's error.
 */
#include "import/onnx_wire.h"
#include "import/pbwire.h"
#include "onnx/onnx.pb-c.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing protobuf bytes ---------------------------------------------- */

typedef struct wbuf {
    uint8_t b[8192];
    size_t n;
} wbuf;

static void w_varint(wbuf *w, uint64_t v) {
    while (v >= 0x80) {
        w->b[w->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    w->b[w->n++] = (uint8_t)v;
}

static void w_tag(wbuf *w, uint32_t field, int wt) {
    w_varint(w, ((uint64_t)field << 3) | (uint64_t)wt);
}

static void w_bytes(wbuf *w, uint32_t field, const void *p, size_t len) {
    w_tag(w, field, 2);
    w_varint(w, len);
    memcpy(w->b + w->n, p, len);
    w->n += len;
}

/* ---- comparing with protobuf-c --------------------------------------------- */

static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *out = malloc(*len ? *len : 1);
    assert_non_null(out);
    assert_int_equal(protobuf_c_message_pack(m, out), *len);
    return out;
}

/* 1 when both readers succeed with equal messages, 0 when both fail; fails
 * the test when they disagree. */
static void agree_onnx(const uint8_t *buf, size_t len, const char *what);

static int agree(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                 const char *what) {
    if (d == &onnx__model_proto__descriptor) {
        agree_onnx(buf, len, what);
    }
    ProtobufCMessage *ref = protobuf_c_message_unpack(d, NULL, len, buf);
    fl_arena a;
    fl__arena_init(&a, (size_t)1 << 30);
    fl_pbwire_error e;
    ProtobufCMessage *m = fl__pbwire_unpack(&a, d, buf, len, &e);
    if (!ref || !m) {
        if (ref || m) {
            print_error("%s (%zu bytes): protobuf-c %s, pbwire %s (%s at %zu)\n", what, len,
                        ref ? "accepts" : "rejects", m ? "accepts" : "rejects", m ? "" : e.what,
                        m ? (size_t)0 : e.offset);
        }
        assert_true(!ref && !m);
        fl__arena_free(&a);
        return 0;
    }
    size_t la, lb;
    uint8_t *pa = pack(ref, &la), *pb = pack(m, &lb);
    if (la != lb || memcmp(pa, pb, la) != 0) {
        print_error("%s: the two readers' messages pack differently (%zu vs %zu bytes)\n", what, la,
                    lb);
        fail();
    }
    free(pa);
    free(pb);
    protobuf_c_message_free_unpacked(ref, NULL);
    fl__arena_free(&a);
    return 1;
}

/* The ONNX reader (onnx_wire.c) and pbwire on a ModelProto: both fail with
 * the same error, or both succeed and their messages pack to the same
 * bytes. */
static void agree_onnx(const uint8_t *buf, size_t len, const char *what) {
    fl_arena a;
    fl__arena_init(&a, (size_t)1 << 30);
    fl_pbwire_error e, eo;
    ProtobufCMessage *m = fl__pbwire_unpack(&a, &onnx__model_proto__descriptor, buf, len, &e);
    ProtobufCMessage *o = (ProtobufCMessage *)fl__onnx_wire_unpack(&a, buf, len, &eo);
    if (!m || !o) {
        if (m || o) {
            print_error("%s (%zu bytes): pbwire %s, onnx_wire %s\n", what, len,
                        m ? "accepts" : "rejects", o ? "accepts" : "rejects");
            fail();
        }
        assert_string_equal(e.what, eo.what);
        assert_ptr_equal(e.message, eo.message);
        assert_ptr_equal(e.field, eo.field);
        assert_int_equal(e.offset, eo.offset);
    } else {
        size_t la, lb;
        uint8_t *pa = pack(m, &la), *pb = pack(o, &lb);
        if (la != lb || memcmp(pa, pb, la) != 0) {
            print_error("%s: pbwire's and onnx_wire's messages pack differently (%zu vs %zu "
                        "bytes)\n",
                        what, la, lb);
            fail();
        }
        free(pa);
        free(pb);
    }
    fl__arena_free(&a);
}

static const ProtobufCMessageDescriptor *desc_for(const char *name) {
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".onnx") == 0) {
        return &onnx__model_proto__descriptor;
    }
    if (strcmp(name, "saved_model.pb") == 0) {
        return &tensorflow__saved_model__descriptor;
    }
    return n > 3 && strcmp(name + n - 3, ".pb") == 0 ? &tensorflow__graph_def__descriptor : NULL;
}

static int agree_dir(const char *dir) {
    DIR *dp = opendir(dir);
    if (!dp) {
        return 0;
    }
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        const ProtobufCMessageDescriptor *d = desc_for(de->d_name);
        if (!d) {
            continue;
        }
        size_t len;
        unsigned char *buf = fl_test_read_file(path, &len);
        assert_non_null(buf);
        n += agree(d, buf, len, path);
        free(buf);
    }
    closedir(dp);
    return n;
}

static void test_agrees_on_test_models(void **state) {
    (void)state;
    /* tiny_cnn.pb, .onnx, tiny_decoder{,_mask}.onnx,
     * bert_tiny{,_attn,_mha}.stripped.onnx */
    assert_int_equal(agree_dir(FL_TEST_DATA_DIR), 7);
}

static void test_agrees_on_corpus(void **state) {
    (void)state;
    if (!fl_test_have_corpus("pbwire corpus agreement")) {
        fl_test_skip();
        return;
    }
    static const char *dirs[] = {"tf", "tf-unfused", "onnx", "onnx/ort-extended"};
    int n = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FL_CORPUS_DIR, dirs[i]);
        n += agree_dir(path);
    }
    print_message("pbwire: %d corpus models decode as protobuf-c decodes them\n", n);
    assert_true(n > 50);
}

/* Every prefix of a model: both readers fail or agree. */
static void test_agrees_on_truncations(void **state) {
    (void)state;
    size_t len;
    unsigned char *buf = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.onnx", &len);
    assert_non_null(buf);
    int ok = 0;
    for (size_t k = 0; k <= len; k++) {
        ok += agree(&onnx__model_proto__descriptor, buf, k, "tiny_cnn.onnx prefix");
    }
    assert_true(ok >= 2); /* the empty message and the whole file at least */
    free(buf);
    buf = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &len);
    assert_non_null(buf);
    for (size_t k = 0; k <= len; k++) {
        agree(&tensorflow__graph_def__descriptor, buf, k, "tiny_cnn.pb prefix");
    }
    free(buf);
}

/* ---- views ----------------------------------------------------------------- */

static void test_payloads_are_views(void **state) {
    (void)state;
    static const float vals[4] = {1.5f, -2.0f, 0.25f, 3.0f};
    for (int shift = 0; shift < 4; shift++) {
        /* a TensorProto: dims [4], data_type 1, float_data packed; then a
         * second one with the same floats in raw_data */
        _Alignas(16) uint8_t mem[256];
        wbuf w = {{0}, 0};
        w.n = (size_t)shift; /* moves the float run's alignment */
        w_tag(&w, 1, 0);
        w_varint(&w, 4);
        w_tag(&w, 2, 0);
        w_varint(&w, 1);
        w_bytes(&w, 4, vals, sizeof vals);
        size_t run_at = w.n - sizeof vals;
        w_bytes(&w, 9, vals, sizeof vals);
        size_t raw_at = w.n - sizeof vals;
        memcpy(mem, w.b, w.n);
        fl_arena a;
        fl__arena_init(&a, 1 << 20);
        fl_pbwire_error e;
        Onnx__TensorProto *t = (Onnx__TensorProto *)fl__pbwire_unpack(
            &a, &onnx__tensor_proto__descriptor, mem + shift, w.n - (size_t)shift, &e);
        assert_non_null(t);
        assert_int_equal(t->n_float_data, 4);
        assert_memory_equal(t->float_data, vals, sizeof vals);
        assert_ptr_equal(t->raw_data.data, mem + raw_at);
        assert_int_equal(t->raw_data.len, sizeof vals);
        /* a view at any alignment (read as bytes) */
        assert_ptr_equal((void *)t->float_data, mem + run_at);
        fl__arena_free(&a);
    }
}

/* ---- malformed input ----------------------------------------------------- */

static void expect_fail(const ProtobufCMessageDescriptor *d, const wbuf *w, const char *field,
                        const char *what) {
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    assert_null(fl__pbwire_unpack(&a, d, w->b, w->n, &e));
    assert_non_null(e.what);
    if (!strstr(e.what, what)) {
        print_error("error '%s' does not say '%s'\n", e.what, what);
        fail();
    }
    if (field) {
        assert_non_null(e.field);
        assert_string_equal(e.field, field);
    }
    fl__arena_free(&a);
    /* protobuf-c refuses the same bytes */
    ProtobufCMessage *ref = protobuf_c_message_unpack(d, NULL, w->n, w->b);
    assert_null(ref);
}

static void test_length_past_end(void **state) {
    (void)state;
    wbuf w = {{0}, 0};
    w_tag(&w, 9, 2);
    w_varint(&w, 1000); /* raw_data of 1000 bytes, 3 present */
    w.b[w.n++] = 1;
    w.b[w.n++] = 2;
    w.b[w.n++] = 3;
    expect_fail(&onnx__tensor_proto__descriptor, &w, "raw_data", "past the end");
    /* inside a graph: the inner message's field is named, at its offset */
    wbuf g = {{0}, 0};
    w_bytes(&g, 5, w.b, w.n); /* GraphProto.initializer */
    expect_fail(&onnx__graph_proto__descriptor, &g, "raw_data", "past the end");
    /* a two-byte length (128 to 16383) ending exactly at the message's end
     * is read, as a view; one byte fewer is past the end */
    uint8_t raw[200];
    for (size_t i = 0; i < sizeof raw; i++) {
        raw[i] = (uint8_t)i;
    }
    wbuf x = {{0}, 0};
    w_bytes(&x, 9, raw, sizeof raw);
    assert_int_equal(x.n, 3 + sizeof raw); /* tag, two length bytes, payload */
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    Onnx__TensorProto *t =
        (Onnx__TensorProto *)fl__pbwire_unpack(&a, &onnx__tensor_proto__descriptor, x.b, x.n, &e);
    assert_non_null(t);
    assert_int_equal(t->raw_data.len, sizeof raw);
    assert_ptr_equal(t->raw_data.data, x.b + 3);
    fl__arena_free(&a);
    x.n--;
    expect_fail(&onnx__tensor_proto__descriptor, &x, "raw_data", "past the end");
}

/* Two-byte tags with a one-byte varint: AttributeProto.type (20) and an
 * unknown field 2047 are read as protobuf-c reads them, directly and with
 * every shorter prefix; a two-byte tag whose second byte is 0 (field 2, not
 * minimal) reads as AttributeProto.f's tag would, as an I32 field. */
static void test_two_byte_tags(void **state) {
    (void)state;
    wbuf w = {{0}, 0};
    w_bytes(&w, 1, "k", 1);
    w_tag(&w, 20, 0);
    w_varint(&w, 7);
    w_tag(&w, 2047, 0);
    w_varint(&w, 5);
    assert_int_equal(w.n, 3 + 3 + 3);
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    Onnx__AttributeProto *at = (Onnx__AttributeProto *)fl__pbwire_unpack(
        &a, &onnx__attribute_proto__descriptor, w.b, w.n, &e);
    assert_non_null(at);
    assert_true(at->has_type);
    assert_int_equal(at->type, 7);
    assert_int_equal(at->base.n_unknown_fields, 1);
    assert_int_equal(at->base.unknown_fields[0].tag, 2047);
    assert_int_equal(at->base.unknown_fields[0].wire_type, 0);
    assert_int_equal(at->base.unknown_fields[0].len, 1);
    assert_int_equal(at->base.unknown_fields[0].data[0], 5);
    fl__arena_free(&a);
    for (size_t k = 0; k <= w.n; k++) {
        agree(&onnx__attribute_proto__descriptor, w.b, k, "two-byte tags prefix");
    }
    wbuf z = {{0}, 0};
    z.b[z.n++] = 0x95; /* field 2 (f, float), wire type 5, over two bytes */
    z.b[z.n++] = 0x00;
    float one = 1.0f;
    memcpy(z.b + z.n, &one, 4);
    z.n += 4;
    assert_int_equal(agree(&onnx__attribute_proto__descriptor, z.b, z.n, "two-byte tag 0x95 0x00"),
                     1);
}

static void test_bad_wire_types(void **state) {
    (void)state;
    wbuf w = {{0}, 0};
    w_bytes(&w, 2, "ab", 2); /* data_type (an enum) as bytes */
    expect_fail(&onnx__tensor_proto__descriptor, &w, "data_type", "wire type");
    wbuf grp = {{0}, 0};
    w_tag(&grp, 1, 3); /* a group */
    expect_fail(&onnx__tensor_proto__descriptor, &grp, NULL, "groups");
    wbuf z = {{0}, 0};
    w_tag(&z, 0, 0); /* field 0 */
    w_varint(&z, 1);
    expect_fail(&onnx__tensor_proto__descriptor, &z, NULL, "field number 0");
    wbuf run = {{0}, 0};
    w_bytes(&run, 4, "abcde", 5); /* packed floats of 5 bytes */
    expect_fail(&onnx__tensor_proto__descriptor, &run, "float_data", "whole number");
    wbuf vi = {{0}, 0};
    w_tag(&vi, 2, 0);
    for (int i = 0; i < 11; i++) {
        vi.b[vi.n++] = 0xff; /* a varint of 11 bytes */
    }
    vi.b[vi.n++] = 0;
    expect_fail(&onnx__tensor_proto__descriptor, &vi, NULL, "varint");
}

/* AttributeProto.g -> GraphProto.node -> NodeProto.attribute -> ...: `levels`
 * rounds of three messages, built inside out. */
static void nest(wbuf *out, int levels) {
    wbuf cur = {{0}, 0}, next;
    for (int i = 0; i < levels; i++) {
        next.n = 0;
        w_bytes(&next, 5, cur.b, cur.n); /* NodeProto.attribute */
        cur = next;
        next.n = 0;
        w_bytes(&next, 1, cur.b, cur.n); /* GraphProto.node */
        cur = next;
        next.n = 0;
        w_bytes(&next, 6, cur.b, cur.n); /* AttributeProto.g */
        cur = next;
    }
    *out = cur;
}

static void test_nesting_limit(void **state) {
    (void)state;
    wbuf *w = malloc(sizeof *w);
    assert_non_null(w);
    nest(w, 33); /* 99 levels below the attribute: accepted */
    assert_int_equal(agree(&onnx__attribute_proto__descriptor, w->b, w->n, "nest 33"), 1);
    nest(w, 34); /* 102 levels */
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    assert_null(fl__pbwire_unpack(&a, &onnx__attribute_proto__descriptor, w->b, w->n, &e));
    assert_non_null(strstr(e.what, "deeper than 100"));
    fl__arena_free(&a);
    free(w);
}

/* A singular message met twice merges; unknown fields are kept, and
 * protobuf-c packs them back to the same bytes (agree()). */
static void test_merge_and_unknown(void **state) {
    (void)state;
    wbuf g1 = {{0}, 0}, g2 = {{0}, 0}, n = {{0}, 0}, m = {{0}, 0};
    w_bytes(&n, 4, "Relu", 4); /* NodeProto.op_type */
    w_bytes(&g1, 2, "first", 5);
    w_bytes(&g1, 1, n.b, n.n);
    w_bytes(&g2, 1, n.b, n.n);
    w_tag(&g2, 999, 0); /* unknown fields: a varint, */
    w_varint(&g2, 42);
    w_bytes(&g2, 998, "xyz", 3); /* length-delimited (packed again with its length), */
    w_tag(&g2, 997, 5);          /* fixed32 */
    memcpy(g2.b + g2.n, "\x04\x03\x02\x01", 4);
    g2.n += 4;
    w_bytes(&m, 7, g1.b, g1.n);
    w_bytes(&m, 7, g2.b, g2.n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m.b, m.n, "merge"), 1);
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    Onnx__ModelProto *mp =
        (Onnx__ModelProto *)fl__pbwire_unpack(&a, &onnx__model_proto__descriptor, m.b, m.n, &e);
    assert_non_null(mp);
    assert_string_equal(mp->graph->name, "first");
    assert_int_equal(mp->graph->n_node, 2);
    assert_string_equal(mp->graph->node[1]->op_type, "Relu");
    assert_int_equal(mp->graph->base.n_unknown_fields, 3);
    assert_int_equal(mp->graph->base.unknown_fields[0].tag, 999);
    assert_int_equal(mp->graph->base.unknown_fields[1].tag, 998);
    fl__arena_free(&a);
}

/* ---- merging as protobuf-c does ------------------------------------------ */

static void w_int(wbuf *w, uint32_t field, uint64_t v) {
    w_tag(w, field, 0);
    w_varint(w, v);
}

/* The AttrValue of NodeDef{attr{key "a", value V1, value V2}} inside a
 * GraphDef g (GraphDef.node 1, NodeDef.attr 5, AttrEntry key 1 / value 2),
 * after checking that both readers agree on g. */
static Tensorflow__AttrValue *attr_of_two(fl_arena *a, wbuf *g, const wbuf *v1, const wbuf *v2,
                                          const char *what) {
    wbuf e = {{0}, 0}, n = {{0}, 0};
    w_bytes(&e, 1, "a", 1);
    w_bytes(&e, 2, v1->b, v1->n);
    w_bytes(&e, 2, v2->b, v2->n);
    w_bytes(&n, 5, e.b, e.n);
    g->n = 0;
    w_bytes(g, 1, n.b, n.n);
    assert_int_equal(agree(&tensorflow__graph_def__descriptor, g->b, g->n, what), 1);
    fl_pbwire_error err;
    Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)fl__pbwire_unpack(
        a, &tensorflow__graph_def__descriptor, g->b, g->n, &err);
    assert_non_null(gd);
    assert_int_equal(gd->n_node, 1);
    assert_int_equal(gd->node[0]->n_attr, 1);
    return gd->node[0]->attr[0]->value;
}

/* protobuf-c merges a singular message met twice field by field, earlier
 * occurrence into later (protobuf-c.c merge_messages), which differs from
 * decoding the occurrences joined: a proto3 scalar is the later
 * occurrence's, set or not; a oneof set in the later occurrence replaces the
 * earlier one whole, and a oneof string or empty bytes of the earlier one
 * does not carry over; empty bytes in the later occurrence keep the earlier
 * data. A oneof member met twice in one message is its last occurrence. */
static void test_merge_as_protobuf_c(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error err;
    wbuf v1 = {{0}, 0}, v2 = {{0}, 0}, g = {{0}, 0}, t = {{0}, 0};
    /* GraphDef.versions twice (VersionDef producer 1, min_consumer 2,
     * bad_consumers 3) */
    w_int(&v1, 1, 5);
    w_int(&v1, 3, 1);
    w_int(&v2, 2, 3);
    w_int(&v2, 3, 2);
    w_bytes(&g, 4, v1.b, v1.n);
    w_bytes(&g, 4, v2.b, v2.n);
    assert_int_equal(agree(&tensorflow__graph_def__descriptor, g.b, g.n, "versions twice"), 1);
    Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)fl__pbwire_unpack(
        &a, &tensorflow__graph_def__descriptor, g.b, g.n, &err);
    assert_non_null(gd);
    assert_int_equal(gd->versions->producer, 0); /* the later occurrence has none */
    assert_int_equal(gd->versions->min_consumer, 3);
    assert_int_equal(gd->versions->n_bad_consumers, 2);
    assert_int_equal(gd->versions->bad_consumers[0], 1);
    assert_int_equal(gd->versions->bad_consumers[1], 2);

    /* AttrValue.list (a oneof member): twice in one value, then in each of
     * two values: the last list only (ListValue.i 3) */
    v1.n = v2.n = t.n = 0;
    w_int(&t, 3, 1);
    w_bytes(&v1, 1, t.b, t.n);
    t.n = 0;
    w_int(&t, 3, 2);
    w_bytes(&v1, 1, t.b, t.n);
    w_bytes(&v2, 1, t.b, t.n);
    Tensorflow__AttrValue *av = attr_of_two(&a, &g, &v1, &v2, "list in two values");
    assert_int_equal(av->value_case, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
    assert_int_equal(av->list->n_i, 1);
    assert_int_equal(av->list->i[0], 2);
    Tensorflow__AttrValue *one = (Tensorflow__AttrValue *)fl__pbwire_unpack(
        &a, &tensorflow__attr_value__descriptor, v1.b, v1.n, &err);
    assert_non_null(one);
    assert_int_equal(one->list->n_i, 1); /* twice in one value: the last */
    assert_int_equal(one->list->i[0], 2);

    /* an earlier oneof carries over a later value that leaves it unset when
     * it is an int (AttrValue.i 3), not a string (placeholder 9) or empty
     * bytes (s 2) */
    v1.n = v2.n = 0;
    w_int(&v1, 3, 7);
    av = attr_of_two(&a, &g, &v1, &v2, "i then nothing");
    assert_int_equal(av->value_case, TENSORFLOW__ATTR_VALUE__VALUE_I);
    assert_int_equal(av->i, 7);
    v1.n = 0;
    w_bytes(&v1, 9, "x", 1);
    av = attr_of_two(&a, &g, &v1, &v2, "placeholder then nothing");
    assert_int_equal(av->value_case, TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET);
    v1.n = 0;
    w_bytes(&v1, 2, "", 0);
    av = attr_of_two(&a, &g, &v1, &v2, "empty s then nothing");
    assert_int_equal(av->value_case, TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET);

    /* AttributeProto.t twice (onnx, proto2): raw_data "abcd", then empty */
    v1.n = v2.n = t.n = 0;
    w_bytes(&v1, 9, "abcd", 4);
    w_bytes(&v2, 9, "", 0);
    w_bytes(&t, 5, v1.b, v1.n);
    w_bytes(&t, 5, v2.b, v2.n);
    assert_int_equal(agree(&onnx__attribute_proto__descriptor, t.b, t.n, "raw_data twice"), 1);
    Onnx__AttributeProto *ap = (Onnx__AttributeProto *)fl__pbwire_unpack(
        &a, &onnx__attribute_proto__descriptor, t.b, t.n, &err);
    assert_non_null(ap);
    assert_true(ap->t->has_raw_data);
    assert_int_equal(ap->t->raw_data.len, 4);
    assert_memory_equal(ap->t->raw_data.data, "abcd", 4);
    fl__arena_free(&a);
}

/* Two values that both leave the oneof unset: protobuf-c 1.4's merge looks
 * up the oneof's field number 0 and rejects the input; this reader takes the
 * oneof as unset (what the encoding says). When protobuf-c accepts it, the
 * two must still agree. */
static void test_merge_oneof_unset_in_both(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    wbuf v1 = {{0}, 0}, g = {{0}, 0}, e = {{0}, 0}, n = {{0}, 0};
    w_bytes(&e, 1, "a", 1);
    w_bytes(&e, 2, v1.b, v1.n);
    w_bytes(&e, 2, v1.b, v1.n);
    w_bytes(&n, 5, e.b, e.n);
    w_bytes(&g, 1, n.b, n.n);
    fl_pbwire_error err;
    Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)fl__pbwire_unpack(
        &a, &tensorflow__graph_def__descriptor, g.b, g.n, &err);
    assert_non_null(gd);
    assert_int_equal(gd->node[0]->attr[0]->value->value_case,
                     TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET);
    ProtobufCMessage *ref =
        protobuf_c_message_unpack(&tensorflow__graph_def__descriptor, NULL, g.n, g.b);
    if (ref) {
        protobuf_c_message_free_unpacked(ref, NULL);
        assert_int_equal(agree(&tensorflow__graph_def__descriptor, g.b, g.n, "unset twice"), 1);
    }
    fl__arena_free(&a);
}

/* A model of the encodings the ONNX reader handles itself, and of some it
 * leaves to pbwire, read by both (agree_onnx): dims unpacked, packed, and
 * both in one tensor; float_data unpacked then packed; unknown fields in a
 * node, an attribute, a tensor and a dimension; a dimension with dim_value
 * then dim_param (a oneof: the last); TypeProto.tensor_type twice (a oneof
 * member: the last, no merge); INT, FLOATS, INTS and TENSOR attributes;
 * then the same node with its attribute's tensor twice (merged: pbwire's
 * part). Field numbers: GraphProto node 1 / initializer 5 / input 11,
 * NodeProto input 1 / output 2 / op_type 4 / attribute 5, AttributeProto
 * name 1 / i 3 / t 5 / floats 7 / ints 8 / type 20, TensorProto dims 1 /
 * data_type 2 / float_data 4 / name 8, ValueInfoProto name 1 / type 2,
 * TypeProto tensor_type 1, TypeProto.Tensor elem_type 1 / shape 2,
 * TensorShapeProto dim 1, Dimension dim_value 1 / dim_param 2. */
static void test_onnx_reader_encodings(void **state) {
    (void)state;
    wbuf t = {{0}, 0}, at = {{0}, 0}, at2 = {{0}, 0}, n = {{0}, 0}, g = {{0}, 0}, m = {{0}, 0};
    wbuf dim = {{0}, 0}, shp = {{0}, 0}, tt = {{0}, 0}, ty = {{0}, 0}, vi = {{0}, 0};
    wbuf run = {{0}, 0};
    w_int(&t, 1, 2); /* dims: 2 unpacked, then a packed run 3, 300 */
    w_varint(&run, 3);
    w_varint(&run, 300);
    w_bytes(&t, 1, run.b, run.n);
    w_int(&t, 2, 1);
    w_tag(&t, 4, 5); /* float_data: one unpacked value, then a packed run */
    memcpy(t.b + t.n, "\x00\x00\x80\x3f", 4);
    t.n += 4;
    w_bytes(&t, 4, "\x00\x00\x00\x40\x00\x00\x40\x40", 8);
    w_bytes(&t, 8, "w", 1);
    w_int(&t, 77, 5); /* unknown */
    w_bytes(&at, 1, "k", 1);
    w_int(&at, 20, 4);
    w_bytes(&at, 5, t.b, t.n);
    w_int(&at, 3, (uint64_t)-7); /* i: a negative int64 */
    w_int(&at, 8, 1);            /* ints: unpacked */
    w_int(&at, 8, 2);
    w_bytes(&at, 7, "\x00\x00\x80\x3f", 4); /* floats: packed */
    w_bytes(&at, 99, "zz", 2);              /* unknown */
    w_bytes(&n, 1, "x", 1);
    w_bytes(&n, 2, "y", 1);
    w_bytes(&n, 4, "Relu", 4);
    w_bytes(&n, 5, at.b, at.n);
    w_tag(&n, 50, 1); /* unknown fixed64 */
    memcpy(n.b + n.n, "12345678", 8);
    n.n += 8;
    w_int(&dim, 1, 4);
    w_bytes(&dim, 2, "batch", 5);
    w_int(&dim, 9, 1); /* unknown */
    w_bytes(&shp, 1, dim.b, dim.n);
    w_bytes(&shp, 1, dim.b, dim.n);
    w_int(&tt, 1, 1);
    w_bytes(&tt, 2, shp.b, shp.n);
    w_bytes(&ty, 1, tt.b, tt.n);
    w_bytes(&ty, 1, tt.b, tt.n);
    w_bytes(&vi, 1, "x", 1);
    w_bytes(&vi, 2, ty.b, ty.n);
    w_bytes(&g, 1, n.b, n.n);
    w_bytes(&g, 5, t.b, t.n);
    w_bytes(&g, 11, vi.b, vi.n);
    w_bytes(&m, 7, g.b, g.n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m.b, m.n, "onnx encodings"), 1);
    fl_arena a;
    fl__arena_init(&a, 1 << 20);
    fl_pbwire_error e;
    Onnx__ModelProto *mp = fl__onnx_wire_unpack(&a, m.b, m.n, &e);
    assert_non_null(mp);
    const Onnx__TensorProto *tp = mp->graph->initializer[0];
    assert_int_equal(tp->n_dims, 3);
    assert_int_equal(tp->dims[2], 300);
    assert_int_equal(tp->n_float_data, 3);
    assert_true(tp->float_data[2] == 3.0f);
    assert_int_equal(tp->base.n_unknown_fields, 1);
    const Onnx__AttributeProto *ap = mp->graph->node[0]->attribute[0];
    assert_int_equal(ap->i, -7);
    assert_int_equal(ap->n_ints, 2);
    assert_int_equal(ap->t->n_dims, 3);
    const Onnx__TensorShapeProto__Dimension *dm =
        mp->graph->input[0]->type->tensor_type->shape->dim[1];
    assert_int_equal(dm->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
    assert_string_equal(dm->dim_param, "batch");

    /* the attribute's tensor twice: merged as protobuf-c merges */
    w_bytes(&at2, 5, t.b, t.n);
    w_bytes(&at2, 5, t.b, t.n);
    n.n = g.n = m.n = 0;
    w_bytes(&n, 5, at2.b, at2.n);
    w_bytes(&g, 1, n.b, n.n);
    w_bytes(&m, 7, g.b, g.n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m.b, m.n, "tensor twice"), 1);
    mp = fl__onnx_wire_unpack(&a, m.b, m.n, &e);
    assert_non_null(mp);
    assert_int_equal(mp->graph->node[0]->attribute[0]->t->n_dims, 6);
    fl__arena_free(&a);
}

/* Both ways the ONNX reader reads a message, against pbwire: a node of at
 * most 512 bytes (twice its scratch's cells) is read in one sweep, its
 * repeated elements kept aside until its end (here its inputs around an
 * attribute whose own ints and unknown field are kept above them), and a
 * longer node in two sweeps (700 inputs, about 4.2 KiB). */
static void test_onnx_reader_sweeps(void **state) {
    (void)state;
    wbuf *at = calloc(1, sizeof(wbuf)), *small = calloc(1, sizeof(wbuf));
    wbuf *big = calloc(1, sizeof(wbuf)), *g = calloc(1, sizeof(wbuf));
    wbuf *m = calloc(1, sizeof(wbuf)), *run = calloc(1, sizeof(wbuf));
    assert_true(at && small && big && g && m && run);
    w_bytes(at, 1, "perm", 4);
    w_int(at, 8, 1); /* ints: 1, 2, then a packed run 3, 4, 5 */
    w_int(at, 8, 2);
    w_varint(run, 3);
    w_varint(run, 4);
    w_varint(run, 5);
    w_bytes(at, 8, run->b, run->n);
    w_int(at, 61, 9); /* unknown */
    w_int(at, 20, 7);
    w_bytes(small, 1, "a", 1);
    w_bytes(small, 5, at->b, at->n);
    w_bytes(small, 1, "b", 1);
    w_bytes(small, 2, "c", 1);
    w_bytes(small, 4, "Transpose", 9);
    w_int(small, 40, 3); /* unknown */
    for (int i = 0; i < 700; i++) {
        char name[8];
        snprintf(name, sizeof name, "i%03d", i);
        w_bytes(big, 1, name, 4);
        if (i == 350) {
            w_bytes(big, 5, at->b, at->n);
            w_int(big, 40, 4); /* unknown */
        }
    }
    w_bytes(big, 2, "s", 1);
    w_bytes(big, 4, "Sum", 3);
    assert_true(small->n <= 512 && big->n > 512);
    w_bytes(g, 1, small->b, small->n);
    w_bytes(g, 1, big->b, big->n);
    w_bytes(g, 1, small->b, small->n);
    w_bytes(m, 7, g->b, g->n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m->b, m->n, "onnx sweeps"), 1);

    fl_arena a;
    fl__arena_init(&a, 1 << 24);
    fl_pbwire_error e;
    Onnx__ModelProto *mp = fl__onnx_wire_unpack(&a, m->b, m->n, &e);
    assert_non_null(mp);
    assert_int_equal(mp->graph->n_node, 3);
    for (int k = 0; k < 3; k += 2) {
        const Onnx__NodeProto *n = mp->graph->node[k];
        assert_int_equal(n->n_input, 2);
        assert_string_equal(n->input[0], "a");
        assert_string_equal(n->input[1], "b");
        assert_int_equal(n->n_output, 1);
        assert_int_equal(n->base.n_unknown_fields, 1);
        assert_int_equal(n->n_attribute, 1);
    }
    const Onnx__NodeProto *nb = mp->graph->node[1];
    assert_int_equal(nb->n_input, 700);
    assert_string_equal(nb->input[0], "i000");
    assert_string_equal(nb->input[699], "i699");
    assert_int_equal(nb->base.n_unknown_fields, 1);
    assert_int_equal(nb->base.unknown_fields[0].tag, 40);
    for (int k = 0; k < 3; k++) {
        const Onnx__AttributeProto *ap = mp->graph->node[k]->attribute[0];
        assert_int_equal(ap->n_ints, 5);
        for (int j = 0; j < 5; j++) {
            assert_int_equal(ap->ints[j], j + 1);
        }
        assert_int_equal(ap->base.n_unknown_fields, 1);
        assert_int_equal(ap->base.unknown_fields[0].tag, 61);
        assert_int_equal(ap->type, 7);
    }
    fl__arena_free(&a);
    free(at);
    free(small);
    free(big);
    free(g);
    free(m);
    free(run);
}

/* A graph is read in one sweep whatever its length, its scratch growing
 * with its elements: 600 nodes (a cell each, the scratch starts at 256)
 * around a name, an initializer, an unknown field and a node whose
 * attribute holds a graph of 400 nodes (read above the outer graph's cells,
 * growing the scratch again). The same graph with a node field of the wrong
 * wire type after them all fails as pbwire fails. */
static void test_onnx_reader_long_graph(void **state) {
    (void)state;
    wbuf *sub = calloc(1, sizeof(wbuf)), *at = calloc(1, sizeof(wbuf));
    wbuf *holder = calloc(1, sizeof(wbuf)), *g = calloc(1, sizeof(wbuf));
    wbuf *m = calloc(1, sizeof(wbuf)), *t = calloc(1, sizeof(wbuf));
    wbuf *node = calloc(1, sizeof(wbuf));
    assert_true(sub && at && holder && g && m && t && node);
    for (int i = 0; i < 400; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%03d", i);
        node->n = 0;
        w_bytes(node, 2, name, 4);
        w_bytes(sub, 1, node->b, node->n);
    }
    w_bytes(at, 1, "body", 4);
    w_bytes(at, 6, sub->b, sub->n); /* g */
    w_int(at, 20, 5);               /* type GRAPH */
    w_bytes(holder, 2, "loop_out", 8);
    w_bytes(holder, 4, "Loop", 4);
    w_bytes(holder, 5, at->b, at->n);
    w_bytes(t, 8, "w", 1);
    w_int(t, 2, 1); /* data_type FLOAT */
    w_bytes(g, 2, "long", 4);
    for (int i = 0; i < 600; i++) {
        char name[8];
        snprintf(name, sizeof name, "n%03d", i);
        node->n = 0;
        w_bytes(node, 2, name, 4);
        w_bytes(g, 1, node->b, node->n);
        if (i == 100) {
            w_bytes(g, 5, t->b, t->n);
            w_int(g, 40, 6); /* unknown */
        }
        if (i == 300) {
            w_bytes(g, 1, holder->b, holder->n);
        }
    }
    assert_true(holder->n > 512 && g->n + 16 < sizeof g->b);
    w_bytes(m, 7, g->b, g->n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m->b, m->n, "long graph"), 1);

    fl_arena a;
    fl__arena_init(&a, 1 << 24);
    fl_pbwire_error e;
    Onnx__ModelProto *mp = fl__onnx_wire_unpack(&a, m->b, m->n, &e);
    assert_non_null(mp);
    const Onnx__GraphProto *gp = mp->graph;
    assert_string_equal(gp->name, "long");
    assert_int_equal(gp->n_node, 601);
    assert_string_equal(gp->node[0]->output[0], "n000");
    assert_string_equal(gp->node[301]->output[0], "loop_out");
    assert_string_equal(gp->node[302]->output[0], "n301");
    assert_string_equal(gp->node[600]->output[0], "n599");
    assert_int_equal(gp->n_initializer, 1);
    assert_string_equal(gp->initializer[0]->name, "w");
    assert_int_equal(gp->base.n_unknown_fields, 1);
    assert_int_equal(gp->base.unknown_fields[0].tag, 40);
    const Onnx__GraphProto *body = gp->node[301]->attribute[0]->g;
    assert_non_null(body);
    assert_int_equal(body->n_node, 400);
    assert_string_equal(body->node[0]->output[0], "s000");
    assert_string_equal(body->node[399]->output[0], "s399");
    fl__arena_free(&a);

    w_int(g, 1, 3); /* a node as a varint */
    m->n = 0;
    w_bytes(m, 7, g->b, g->n);
    assert_int_equal(agree(&onnx__model_proto__descriptor, m->b, m->n, "long graph, bad node"), 0);
    free(sub);
    free(at);
    free(holder);
    free(g);
    free(m);
    free(t);
    free(node);
}

/* A full-weight tensor in float_data (or double_data) instead of raw_data:
 * the ONNX reader, and the generic reader that reads a malformed model
 * again, keep its single packed run a view of the input at any alignment,
 * so the weights cost no arena bytes (before, an unaligned run was copied:
 * 4 bytes an element). A model of one initializer "w" of 65,536 floats and
 * one "d" of 32,768 doubles (256 KiB each) is read from 8 offsets into a
 * buffer by both: the arrays are the input's bytes, and the arena holds the
 * messages and the strings' first 64 KiB chunk, under half of one run's
 * bytes. */
static void test_onnx_reader_typed_runs_are_views(void **state) {
    (void)state;
    enum { NF = 65536, ND = 32768 };
    wbuf hf = {{0}, 0}, hd = {{0}, 0}, hm = {{0}, 0};
    w_int(&hf, 1, NF);
    w_int(&hf, 2, 1); /* FLOAT */
    w_bytes(&hf, 8, "w", 1);
    w_tag(&hf, 4, 2);
    w_varint(&hf, (uint64_t)NF * 4);
    w_int(&hd, 1, ND);
    w_int(&hd, 2, 11); /* DOUBLE */
    w_bytes(&hd, 8, "d", 1);
    w_tag(&hd, 10, 2);
    w_varint(&hd, (uint64_t)ND * 8);
    size_t lf = hf.n + (size_t)NF * 4, ld = hd.n + (size_t)ND * 8;
    wbuf tf = {{0}, 0}, td = {{0}, 0};
    w_tag(&tf, 5, 2); /* GraphProto.initializer */
    w_varint(&tf, lf);
    w_tag(&td, 5, 2);
    w_varint(&td, ld);
    size_t lg = tf.n + lf + td.n + ld;
    w_tag(&hm, 7, 2); /* ModelProto.graph */
    w_varint(&hm, lg);
    size_t len = hm.n + lg;
    uint8_t *model = malloc(len);
    assert_non_null(model);
    size_t k = 0;
    memcpy(model + k, hm.b, hm.n), k += hm.n;
    memcpy(model + k, tf.b, tf.n), k += tf.n;
    memcpy(model + k, hf.b, hf.n), k += hf.n;
    size_t run_f = k;
    for (uint32_t i = 0; i < NF; i++, k += 4) {
        float v = (float)i * 0.5f - 7.0f;
        memcpy(model + k, &v, 4);
    }
    memcpy(model + k, td.b, td.n), k += td.n;
    memcpy(model + k, hd.b, hd.n), k += hd.n;
    size_t run_d = k;
    for (uint32_t i = 0; i < ND; i++, k += 8) {
        double v = (double)i * 0.25 + 3.0;
        memcpy(model + k, &v, 8);
    }
    assert_int_equal(k, len);
    uint8_t *mem = malloc(len + 8);
    assert_non_null(mem);
    for (size_t shift = 0; shift < 8; shift++) {
        memcpy(mem + shift, model, len);
        const uint8_t *in = mem + shift;
        for (int generic = 0; generic < 2; generic++) {
            fl_arena a;
            fl__arena_init(&a, 1 << 24);
            fl_pbwire_error e;
            Onnx__ModelProto *mp = generic ? (Onnx__ModelProto *)fl__pbwire_unpack(
                                                 &a, &onnx__model_proto__descriptor, in, len, &e)
                                           : fl__onnx_wire_unpack(&a, in, len, &e);
            assert_non_null(mp);
            assert_int_equal(mp->graph->n_initializer, 2);
            const Onnx__TensorProto *w = mp->graph->initializer[0], *d = mp->graph->initializer[1];
            assert_string_equal(w->name, "w");
            assert_int_equal(w->n_float_data, NF);
            assert_ptr_equal((const void *)w->float_data, in + run_f);
            assert_string_equal(d->name, "d");
            assert_int_equal(d->n_double_data, ND);
            assert_ptr_equal((const void *)d->double_data, in + run_d);
            float f;
            memcpy(&f, (const uint8_t *)w->float_data + 4 * 1001, 4);
            assert_true(f == 1001 * 0.5f - 7.0f);
            double dd;
            memcpy(&dd, (const uint8_t *)d->double_data + 8 * 20001, 8);
            assert_true(dd == 20001 * 0.25 + 3.0);
            if (a.used >= (size_t)NF * 4 / 2) {
                print_error("%s reader, shift %zu: the arena holds %zu bytes\n",
                            generic ? "generic" : "ONNX", shift, a.used);
                fail();
            }
            fl__arena_free(&a);
        }
    }
    /* the same messages as pbwire's and protobuf-c's */
    memcpy(mem + 1, model, len);
    assert_int_equal(agree(&onnx__model_proto__descriptor, mem + 1, len, "typed runs"), 1);
    free(mem);
    free(model);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_on_test_models),
        cmocka_unit_test(test_agrees_on_corpus),
        cmocka_unit_test(test_agrees_on_truncations),
        cmocka_unit_test(test_payloads_are_views),
        cmocka_unit_test(test_length_past_end),
        cmocka_unit_test(test_two_byte_tags),
        cmocka_unit_test(test_bad_wire_types),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_merge_and_unknown),
        cmocka_unit_test(test_merge_as_protobuf_c),
        cmocka_unit_test(test_merge_oneof_unset_in_both),
        cmocka_unit_test(test_onnx_reader_encodings),
        cmocka_unit_test(test_onnx_reader_sweeps),
        cmocka_unit_test(test_onnx_reader_long_graph),
        cmocka_unit_test(test_onnx_reader_typed_runs_are_views),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
