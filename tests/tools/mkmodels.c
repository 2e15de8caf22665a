/*
 * mkmodels.c - writes the small models in tests/data.
 *
 * The models are built with the tests' GraphDef builder, so they are ours and
 * can be regenerated: build the target fl_mkmodels and run it with the output
 * directory (tests/data). Weights follow a fixed pattern (GraphDef) or are
 * zeros (ONNX).
 */
#include "onnxbuild.h"
#include "testgraph.h"

#include <stdio.h>
#include <stdlib.h>

static int write_model(tg_graph *g, const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "mkmodels: cannot write %s\n", path);
        free(buf);
        return 1;
    }
    free(buf);
    printf("wrote %s (%zu bytes)\n", path, len);
    return 0;
}

/* tiny_cnn: a small image classifier with a free batch dimension.
 * input [?,32,32,3] -> Conv2D 3x3x3x8 SAME -> BiasAdd -> Relu -> MaxPool 2x2/2
 * -> Conv2D 3x3x8x16 stride 2 SAME -> BiasAdd -> Relu6 -> Mean over H,W
 * -> MatMul 16x10 -> BiasAdd -> Softmax. */
static tg_graph *tiny_cnn(void) {
    tg_graph *g = tg_new();
    tg_producer(g, 1205);
    tg_placeholder(g, "input", 1, 4, (int64_t[]){-1, 32, 32, 3});
    tg_const_f32(g, "conv1/w", 4, (int64_t[]){3, 3, 3, 8}, NULL, 0);
    tg_const_f32(g, "conv1/b", 1, (int64_t[]){8}, NULL, 0);
    tg_node *c1 = tg_add(g, "conv1/Conv2D", "Conv2D", "input", "conv1/w", NULL);
    tg_attr_type(c1, "T", 1);
    tg_attr_ints(c1, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c1, "padding", "SAME");
    tg_attr_str(c1, "data_format", "NHWC");
    tg_node *b1 = tg_add(g, "conv1/BiasAdd", "BiasAdd", "conv1/Conv2D", "conv1/b", NULL);
    tg_attr_type(b1, "T", 1);
    tg_node *r1 = tg_add(g, "conv1/Relu", "Relu", "conv1/BiasAdd", NULL);
    tg_attr_type(r1, "T", 1);
    tg_node *p1 = tg_add(g, "pool1", "MaxPool", "conv1/Relu", NULL);
    tg_attr_type(p1, "T", 1);
    tg_attr_ints(p1, "ksize", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_ints(p1, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(p1, "padding", "VALID");
    tg_attr_str(p1, "data_format", "NHWC");
    tg_const_f32(g, "conv2/w", 4, (int64_t[]){3, 3, 8, 16}, NULL, 0);
    tg_const_f32(g, "conv2/b", 1, (int64_t[]){16}, NULL, 0);
    tg_node *c2 = tg_add(g, "conv2/Conv2D", "Conv2D", "pool1", "conv2/w", NULL);
    tg_attr_type(c2, "T", 1);
    tg_attr_ints(c2, "strides", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_str(c2, "padding", "SAME");
    tg_node *b2 = tg_add(g, "conv2/BiasAdd", "BiasAdd", "conv2/Conv2D", "conv2/b", NULL);
    tg_attr_type(b2, "T", 1);
    tg_node *r2 = tg_add(g, "conv2/Relu6", "Relu6", "conv2/BiasAdd", NULL);
    tg_attr_type(r2, "T", 1);
    tg_const_int(g, "gap/axes", 3, 1, (int64_t[]){2}, (int64_t[]){1, 2});
    tg_node *m = tg_add(g, "gap", "Mean", "conv2/Relu6", "gap/axes", NULL);
    tg_attr_type(m, "T", 1);
    tg_attr_type(m, "Tidx", 3);
    tg_attr_bool(m, "keep_dims", 0);
    tg_const_f32(g, "fc/w", 2, (int64_t[]){16, 10}, NULL, 0);
    tg_const_f32(g, "fc/b", 1, (int64_t[]){10}, NULL, 0);
    tg_node *mm = tg_add(g, "fc/MatMul", "MatMul", "gap", "fc/w", NULL);
    tg_attr_type(mm, "T", 1);
    tg_attr_bool(mm, "transpose_a", 0);
    tg_attr_bool(mm, "transpose_b", 0);
    tg_node *fb = tg_add(g, "fc/BiasAdd", "BiasAdd", "fc/MatMul", "fc/b", NULL);
    tg_attr_type(fb, "T", 1);
    tg_node *sm = tg_add(g, "probs", "Softmax", "fc/BiasAdd", NULL);
    tg_attr_type(sm, "T", 1);
    return g;
}

static int write_bytes(uint8_t *buf, size_t len, const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int rc = 0;
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "mkmodels: cannot write %s\n", path);
        rc = 1;
    } else {
        printf("wrote %s (%zu bytes)\n", path, len);
    }
    free(buf);
    return rc;
}

/* tiny_cnn.onnx: the same kind of classifier as ONNX (opset 13, NCHW), batch
 * a dim_param N. input [N,3,32,32] -> Conv 8x3x3x3 pads 1 + bias ->
 * BatchNormalization -> Relu -> MaxPool 2x2/2 -> Conv 16x8x3x3 stride 2 pads 1
 * + bias -> Relu -> GlobalAveragePool -> Flatten -> Gemm (transB) 10x16 + bias
 * -> Softmax. conv2's weights (4608 bytes) are above --strip-weights'
 * default threshold, conv1's (864) below. */
static uint8_t *tiny_cnn_onnx(size_t *len) {
    ob_model *m = ob_new(13);
    ob_input(m, "input", OB_FLOAT, 4, (int64_t[]){-1, 3, 32, 32},
             (const char *const[]){"N", NULL, NULL, NULL});
    ob_init_f(m, "conv1.w", 4, (int64_t[]){8, 3, 3, 3}, false);
    ob_init_f(m, "conv1.b", 1, (int64_t[]){8}, false);
    Onnx__NodeProto *c1 = ob_node(m, "Conv", "conv1", "input,conv1.w,conv1.b", "c1");
    ob_attr_ints(m, c1, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(m, c1, "pads", 4, (int64_t[]){1, 1, 1, 1});
    static const char *const bn_params[] = {"bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"};
    for (int i = 0; i < 4; i++) {
        ob_init_f(m, bn_params[i], 1, (int64_t[]){8}, false);
    }
    Onnx__NodeProto *bn =
        ob_node(m, "BatchNormalization", "bn1", "c1,bn1.scale,bn1.bias,bn1.mean,bn1.var", "b1");
    ob_attr_f(m, bn, "epsilon", 1e-5f);
    ob_node(m, "Relu", "relu1", "b1", "r1");
    Onnx__NodeProto *p1 = ob_node(m, "MaxPool", "pool1", "r1", "p1");
    ob_attr_ints(m, p1, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, p1, "strides", 2, (int64_t[]){2, 2});
    ob_init_f(m, "conv2.w", 4, (int64_t[]){16, 8, 3, 3}, false);
    ob_init_f(m, "conv2.b", 1, (int64_t[]){16}, false);
    Onnx__NodeProto *c2 = ob_node(m, "Conv", "conv2", "p1,conv2.w,conv2.b", "c2");
    ob_attr_ints(m, c2, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(m, c2, "strides", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, c2, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "Relu", "relu2", "c2", "r2");
    ob_node(m, "GlobalAveragePool", "gap", "r2", "g");
    ob_node(m, "Flatten", "flatten", "g", "f");
    ob_init_f(m, "fc.w", 2, (int64_t[]){10, 16}, false);
    ob_init_f(m, "fc.b", 1, (int64_t[]){10}, false);
    Onnx__NodeProto *fc = ob_node(m, "Gemm", "fc", "f,fc.w,fc.b", "logits");
    ob_attr_i(m, fc, "transB", 1);
    ob_node(m, "Softmax", "softmax", "logits", "probs");
    ob_output(m, "probs");
    uint8_t *buf = ob_pack(m, len);
    ob_free(m);
    return buf;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int rc = 0;
    tg_graph *g = tiny_cnn();
    rc |= write_model(g, dir, "tiny_cnn.pb");
    tg_free(g);
    size_t len = 0;
    uint8_t *onnx = tiny_cnn_onnx(&len);
    rc |= write_bytes(onnx, len, dir, "tiny_cnn.onnx");
    return rc;
}
