/*
 * strip.c - see strip.h. Works on the protobuf-c messages generated from
 * proto/tensorflow; fields our schema does not name are kept by protobuf-c as
 * unknown fields and written back unchanged.
 */
#include "strip.h"

#include "onnx/onnx.pb-c.h"
#include "pbguard.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replaces the Const's tensor by one with only dtype and shape, and records
 * the dropped size. Returns 0, or -1 when memory runs out (the node is then
 * unchanged or consistently half-done: no attr added, tensor kept). */
static int strip_node(Tensorflow__NodeDef *nd, int64_t threshold) {
    Tensorflow__AttrValue *value = NULL;
    for (size_t k = 0; k < nd->n_attr; k++) {
        const char *key = nd->attr[k]->key;
        if (key && strcmp(key, "_stripped_content_bytes") == 0) {
            return 0; /* already stripped */
        }
        if (key && strcmp(key, "value") == 0) {
            value = nd->attr[k]->value;
        }
    }
    if (!value || value->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR || !value->tensor) {
        return 0;
    }
    Tensorflow__TensorProto *old = value->tensor;
    size_t size = tensorflow__tensor_proto__get_packed_size(old);
    if ((int64_t)size <= threshold) {
        return 0;
    }
    Tensorflow__TensorProto *t = malloc(sizeof *t);
    Tensorflow__NodeDef__AttrEntry *e = malloc(sizeof *e);
    Tensorflow__AttrValue *v = malloc(sizeof *v);
    char *key = malloc(sizeof "_stripped_content_bytes");
    Tensorflow__NodeDef__AttrEntry **attrs = realloc(nd->attr, (nd->n_attr + 1) * sizeof *attrs);
    if (attrs) {
        nd->attr = attrs;
    }
    if (!t || !e || !v || !key || !attrs) {
        free(t);
        free(e);
        free(v);
        free(key);
        return -1;
    }
    tensorflow__tensor_proto__init(t);
    t->dtype = old->dtype;
    t->tensor_shape = old->tensor_shape; /* moved */
    old->tensor_shape = NULL;
    int64_t content = old->tensor_content.len ? (int64_t)old->tensor_content.len : (int64_t)size;
    tensorflow__tensor_proto__free_unpacked(old, NULL);
    value->tensor = t;

    tensorflow__attr_value__init(v);
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
    v->i = content;
    tensorflow__node_def__attr_entry__init(e);
    memcpy(key, "_stripped_content_bytes", sizeof "_stripped_content_bytes");
    e->key = key;
    e->value = v;
    nd->attr[nd->n_attr++] = e;
    return 0;
}

static int strip_graph(Tensorflow__GraphDef *g, int64_t threshold) {
    for (size_t i = 0; g && i < g->n_node; i++) {
        Tensorflow__NodeDef *nd = g->node[i];
        if (nd->op && strcmp(nd->op, "Const") == 0 && strip_node(nd, threshold) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ONNX: a tensor above the threshold keeps name, dims and data_type and loses
 * its contents (raw_data and the typed fields), which is how the engine's
 * ONNX importer recognises a stripped constant. External data is left as
 * is (already not in the file). */
static void strip_onnx_tensor(Onnx__TensorProto *t, int64_t threshold) {
    if (!t || (int64_t)onnx__tensor_proto__get_packed_size(t) <= threshold) {
        return;
    }
    free(t->raw_data.data);
    t->raw_data.data = NULL;
    t->raw_data.len = 0;
    t->has_raw_data = 0;
#define FL_DROP(field)                                                                             \
    free(t->field);                                                                                \
    t->field = NULL;                                                                               \
    t->n_##field = 0
    FL_DROP(float_data);
    FL_DROP(int32_data);
    FL_DROP(int64_data);
    FL_DROP(double_data);
    FL_DROP(uint64_data);
#undef FL_DROP
    for (size_t i = 0; i < t->n_string_data; i++) {
        free(t->string_data[i].data);
    }
    free(t->string_data);
    t->string_data = NULL;
    t->n_string_data = 0;
}

static void strip_onnx_graph(Onnx__GraphProto *g, int64_t threshold) {
    for (size_t i = 0; g && i < g->n_initializer; i++) {
        strip_onnx_tensor(g->initializer[i], threshold);
    }
    for (size_t i = 0; g && i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        if (!nd->op_type || strcmp(nd->op_type, "Constant") != 0 ||
            (nd->domain && nd->domain[0] && strcmp(nd->domain, "ai.onnx") != 0)) {
            continue;
        }
        for (size_t k = 0; k < nd->n_attribute; k++) {
            if (nd->attribute[k]->name && strcmp(nd->attribute[k]->name, "value") == 0) {
                strip_onnx_tensor(nd->attribute[k]->t, threshold);
            }
        }
    }
}

/* Packs a message into a malloc'd buffer. */
static unsigned char *pack(const ProtobufCMessage *m, size_t *out_len) {
    size_t n = protobuf_c_message_get_packed_size(m);
    unsigned char *buf = malloc(n ? n : 1);
    if (buf) {
        protobuf_c_message_pack(m, buf);
        *out_len = n;
    }
    return buf;
}

static const char *format_name(fl_format fmt) {
    switch (fmt) {
    case FL_FORMAT_GRAPHDEF:
        return "tensorflow.GraphDef";
    case FL_FORMAT_SAVEDMODEL:
        return "tensorflow.SavedModel";
    case FL_FORMAT_ONNX:
        return "onnx.ModelProto";
    default:
        return "model";
    }
}

/* The message `fmt` decoded after the wire-format limits (pbguard.h), or
 * NULL with `err` set: over a limit, not decodable, or (auto-detected
 * GraphDef) decodable but without a node or function, which is what any
 * other file tends to decode as. */
static ProtobufCMessage *unpack(const unsigned char *buf, size_t len, fl_format fmt, bool detected,
                                char *err, size_t errlen) {
    const ProtobufCMessageDescriptor *d = fmt == FL_FORMAT_ONNX ? &onnx__model_proto__descriptor
                                          : fmt == FL_FORMAT_SAVEDMODEL
                                              ? &tensorflow__saved_model__descriptor
                                              : &tensorflow__graph_def__descriptor;
    char why[768];
    if (fl_pb_guard(d, buf, len, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, buf);
    const Tensorflow__GraphDef *g =
        fmt == FL_FORMAT_GRAPHDEF ? (const Tensorflow__GraphDef *)m : NULL;
    bool empty = g && g->n_node == 0 && (!g->library || g->library->n_function == 0);
    if (m && !(detected && empty)) {
        return m;
    }
    if (m) {
        protobuf_c_message_free_unpacked(m, NULL);
    }
    if (detected) {
        snprintf(err, errlen,
                 "not a model foldline reads: not TFLite (no TFL3 identifier), TF.js (no "
                 "model.json object), ONNX (no ModelProto graph), a SavedModel (no meta graph), "
                 "nor a tensorflow.GraphDef (%s)",
                 m ? "it decodes as one without any node" : "the bytes do not decode as one");
    } else {
        snprintf(err, errlen, "not a valid binary %s (the bytes do not decode as one)",
                 format_name(fmt));
    }
    return NULL;
}

/* Strips the decoded message in place; -1 when memory runs out. */
static int strip_message(ProtobufCMessage *m, fl_format fmt, int64_t threshold) {
    if (fmt == FL_FORMAT_ONNX) {
        strip_onnx_graph(((Onnx__ModelProto *)m)->graph, threshold);
        return 0;
    }
    if (fmt == FL_FORMAT_GRAPHDEF) {
        return strip_graph((Tensorflow__GraphDef *)m, threshold);
    }
    Tensorflow__SavedModel *sm = (Tensorflow__SavedModel *)m;
    for (size_t i = 0; i < sm->n_meta_graphs; i++) {
        if (strip_graph(sm->meta_graphs[i]->graph_def, threshold) != 0) {
            return -1;
        }
    }
    return 0;
}

int fl_strip_weights(const unsigned char *buf, size_t len, fl_format fmt, int64_t threshold,
                     unsigned char **out, size_t *out_len, char *err, size_t errlen) {
    bool detected = fmt == FL_FORMAT_AUTO;
    *out = NULL;
    if (detected) {
        fmt = fl_detect_format(buf, len);
    }
    if (fmt == FL_FORMAT_TFJS) {
        return 1; /* model.json holds no weight: sent as it is, without its shards */
    }
    if (fmt == FL_FORMAT_TFLITE) {
        *out = fl_strip_tflite(buf, len, threshold, out_len);
        return *out ? 0 : 1; /* a layout the schema walk does not know: sent whole */
    }
    if (fmt != FL_FORMAT_GRAPHDEF && fmt != FL_FORMAT_SAVEDMODEL && fmt != FL_FORMAT_ONNX) {
        snprintf(err, errlen, "--strip-weights does not know format %d", (int)fmt);
        return -1;
    }
    ProtobufCMessage *m = unpack(buf, len, fmt, detected, err, errlen);
    if (!m) {
        return -1;
    }
    if (strip_message(m, fmt, threshold) == 0) {
        *out = pack(m, out_len);
    }
    protobuf_c_message_free_unpacked(m, NULL);
    if (!*out) {
        snprintf(err, errlen, "out of memory stripping the weights");
        return -1;
    }
    return 0;
}
