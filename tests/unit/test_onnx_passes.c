/*
 * test_onnx_passes.c - Grappler's rules over ONNX operators: small ONNX
 * models built here, run through the whole pass pipeline; the rewritten
 * operators (exact names, op types, inputs and attrs), the folded constants'
 * values (derived by hand in the comments), the ledger, and FLOPs/MACs before
 * and after (derived from the FLOP rules of src/ops/onnx.c's header).
 */
#include "export/onnx_write.h"
#include "onnx_passtest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A float initializer holding vals (little-endian raw_data). */
static void init_vals(ob_model *m, const char *name, int rank, const int64_t *dims,
                      const float *vals, size_t n) {
    Onnx__TensorProto *t = ob_init_f(m, name, rank, dims, false);
    assert_int_equal(t->raw_data.len, n * 4);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &vals[i], 4);
        for (int b = 0; b < 4; b++) {
            t->raw_data.data[i * 4 + (size_t)b] = (uint8_t)(u >> (8 * b));
        }
    }
}

static void expect_values(const pt_run *r, const char *name, const float *want, int64_t n) {
    const fl_node *k = pt_need(r, name);
    assert_int_equal(k->kind, FL_OP_CONST);
    assert_false(k->flags & FL_NODE_STRIPPED);
    const fl_value *v = k->outputs[0].value;
    assert_non_null(v);
    assert_int_equal(v->n, n);
    for (int64_t i = 0; i < n; i++) {
        double x;
        assert_true(fl__value_f64(v, i, &x));
        if (x != (double)want[i]) {
            fail_msg("%s[%lld] = %g, want %g", name, (long long)i, x, (double)want[i]);
        }
    }
}

/* x[1,2,4,4] -> Conv(W[2,2,1,1], B) -> BatchNormalization(epsilon 1), the
 * values of test_conv_bn_relu_values; the batch norm's output is `n`. */
static ob_model *conv_bn_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 4}, NULL);
    init_vals(m, "w", 4, (int64_t[]){2, 2, 1, 1}, (float[]){1, 2, 3, 4}, 4);
    init_vals(m, "b", 1, (int64_t[]){2}, (float[]){0.5f, -1}, 2);
    init_vals(m, "scale", 1, (int64_t[]){2}, (float[]){2, 0.5f}, 2);
    init_vals(m, "bias", 1, (int64_t[]){2}, (float[]){1, 0}, 2);
    init_vals(m, "mean", 1, (int64_t[]){2}, (float[]){0.5f, 1}, 2);
    init_vals(m, "var", 1, (int64_t[]){2}, (float[]){3, 15}, 2);
    ob_node(m, "Conv", "conv", "x,w,b", "c");
    Onnx__NodeProto *bn = ob_node(m, "BatchNormalization", "bn", "c,scale,bias,mean,var", "n");
    ob_attr_f(m, bn, "epsilon", 1.0f);
    return m;
}

/* Conv + BatchNormalization + Relu with weights: f = scale / sqrt(var + 1) =
 * [2/2, 0.5/4] = [1, 0.125]; W' = [1*1, 2*1, 3*0.125, 4*0.125] =
 * [1, 2, 0.375, 0.5]; B' = (B - mean) * f + bias = [(0.5-0.5)*1 + 1,
 * (-1-1)*0.125 + 0] = [1, -0.25]. One FusedConv named after the Relu.
 * FLOPs before: Conv 2*MACs + E = 2*(32*2*1) + 32 = 160, BN 2*32, Relu 32:
 * 256; after: FusedConv 128 + 32 bias + 32 activation = 192. MACs 64. */
static void test_conv_bn_relu_values(void **state) {
    (void)state;
    ob_model *m = conv_bn_model();
    ob_node(m, "Relu", "relu", "n", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "relu=FusedConv(x,bn/folded_weights,bn/folded_bias)");
    assert_true(pt_fired(r, "conv2d_batch_norm", "bn"));
    assert_true(pt_fired(r, "contraction_bias_activation", "relu"));
    fl_node *f = pt_need(r, "relu");
    assert_int_equal(f->kind, FL_OP_ONNX_MS_FUSED_CONV);
    assert_string_equal(fl__node_attr(f, "activation")->v.s.p, "Relu");
    expect_values(r, "bn/folded_weights", (float[]){1, 2, 0.375f, 0.5f}, 4);
    expect_values(r, "bn/folded_bias", (float[]){1, -0.25f}, 2);
    assert_null(fl__graph_find(r->g, "w")); /* the old weights are gone */
    assert_int_equal(pt_known(r->before.flops), 256);
    assert_int_equal(pt_known(r->after.flops), 192);
    assert_int_equal(pt_known(r->before.macs), 64);
    assert_int_equal(pt_known(r->after.macs), 64);
    pt_free(r);
}

/* Stripped weights: the rule fires on shapes alone; the folded constants
 * are stripped of the weights' shapes. Clip(0, 6) from two Constant nodes
 * fuses as activation Clip with activation_params [0, 6]; the Constants
 * become initializers and go with the Clip. FLOPs as above: Clip counts 1 per
 * element like Relu (before 256, after 192). */
static void test_conv_bn_clip_stripped(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 4}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){2, 2, 1, 1}, true);
    ob_init_f(m, "scale", 1, (int64_t[]){2}, true);
    ob_init_f(m, "bias", 1, (int64_t[]){2}, true);
    ob_init_f(m, "mean", 1, (int64_t[]){2}, true);
    ob_init_f(m, "var", 1, (int64_t[]){2}, true);
    ob_node(m, "Conv", "conv", "x,w", "c");
    ob_node(m, "BatchNormalization", "bn", "c,scale,bias,mean,var", "n");
    init_vals(m, "lo", 0, NULL, (float[]){0}, 1);
    init_vals(m, "hi", 0, NULL, (float[]){6}, 1);
    ob_node(m, "Clip", "clip", "n,lo,hi", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "clip=FusedConv(x,bn/folded_weights,bn/folded_bias)");
    assert_true(pt_fired(r, "conv2d_batch_norm", "bn"));
    assert_true(pt_fired(r, "contraction_bias_activation", "clip"));
    fl_node *w = pt_need(r, "bn/folded_weights");
    assert_true(w->flags & FL_NODE_STRIPPED);
    assert_int_equal(w->outputs[0].shape.rank, 4);
    assert_int_equal(pt_known(w->outputs[0].shape.dims[1]), 2);
    assert_true(pt_need(r, "bn/folded_bias")->flags & FL_NODE_STRIPPED);
    const fl_attr *p = fl__node_attr(pt_need(r, "clip"), "activation_params");
    assert_non_null(p);
    assert_int_equal(p->n, 2);
    assert_true(p->v.list.f[0] == 0.0f && p->v.list.f[1] == 6.0f);
    /* Conv without bias: 2*64 = 128; BN 64; Clip 32 -> 224. After: the
     * folded bias is added (+32) and Clip fused (+32): 192. */
    assert_int_equal(pt_known(r->before.flops), 224);
    assert_int_equal(pt_known(r->after.flops), 192);
    pt_free(r);
}

/* Weights over --max-folded-bytes (8 here; W holds 16 bytes): the folded
 * weights are a stripped constant of W's shape, the bias is still computed
 * ([1, -0.25] as in test_conv_bn_relu_values), the BN's output `n` is the
 * graph output and the Conv takes the batch norm's name. */
static void test_conv_bn_over_limit(void **state) {
    (void)state;
    ob_model *m = conv_bn_model();
    ob_output(m, "n");
    pt_run *r = oxp_pipeline(m, &(pt_opts){.max_folded_bytes = 8});
    assert_string_equal(oxp_dump(r), "bn=Conv(x,bn/folded_weights,bn/folded_bias)");
    assert_true(pt_need(r, "bn/folded_weights")->flags & FL_NODE_STRIPPED);
    expect_values(r, "bn/folded_bias", (float[]){1, -0.25f}, 2);
    pt_free(r);
}

/* Wider than the pass's runs of 256 elements: 260 output channels of 300
 * inputs each (1x1 kernel, no Conv bias, epsilon 1). W[o][c] = c, scale[o] =
 * o + 1, var 3, so f[o] = (o + 1) / 2 and W'[o][c] = c * (o + 1) / 2; mean 2,
 * bias[o] = o, so B'[o] = (0 - 2) * (o + 1) / 2 + o = -1. All exact in float;
 * a channel read at the wrong factor or an element skipped at a run's edge
 * shows. */
static void test_conv_bn_wide_values(void **state) {
    (void)state;
    enum { M = 260, C = 300 };
    float *w = malloc(sizeof(float) * M * C), *want = malloc(sizeof(float) * M * C);
    float scale[M], bias[M], mean[M], var[M], wantb[M];
    assert_non_null(w);
    assert_non_null(want);
    for (int o = 0; o < M; o++) {
        for (int c = 0; c < C; c++) {
            w[o * C + c] = (float)c;
            want[o * C + c] = (float)c * (float)(o + 1) / 2;
        }
        scale[o] = (float)(o + 1);
        bias[o] = (float)o;
        mean[o] = 2;
        var[o] = 3;
        wantb[o] = -1;
    }
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, C, 2, 2}, NULL);
    init_vals(m, "w", 4, (int64_t[]){M, C, 1, 1}, w, M * C);
    init_vals(m, "scale", 1, (int64_t[]){M}, scale, M);
    init_vals(m, "bias", 1, (int64_t[]){M}, bias, M);
    init_vals(m, "mean", 1, (int64_t[]){M}, mean, M);
    init_vals(m, "var", 1, (int64_t[]){M}, var, M);
    ob_node(m, "Conv", "conv", "x,w", "c");
    Onnx__NodeProto *bn = ob_node(m, "BatchNormalization", "bn", "c,scale,bias,mean,var", "n");
    ob_attr_f(m, bn, "epsilon", 1.0f);
    ob_output(m, "n");
    pt_run *r = oxp_pipeline(m, &(pt_opts){.max_folded_bytes = 4 * M * C});
    assert_string_equal(oxp_dump(r), "bn=Conv(x,bn/folded_weights,bn/folded_bias)");
    expect_values(r, "bn/folded_weights", want, M * C);
    expect_values(r, "bn/folded_bias", wantb, M);
    pt_free(r);
    free(w);
    free(want);
}

/* The batch norm is not folded when the Conv's output has another reader,
 * nor in training mode. */
static void test_conv_bn_negative(void **state) {
    (void)state;
    ob_model *m = ob_new(14);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 4}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){2, 2, 1, 1}, true);
    ob_init_f(m, "s", 1, (int64_t[]){2}, true);
    ob_node(m, "Conv", "conv", "x,w", "c");
    ob_node(m, "BatchNormalization", "bn", "c,s,s,s,s", "n");
    ob_node(m, "Add", "add", "c,n", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "conv=Conv(x,w); bn=BatchNormalization(conv,s,s,s,s); "
                                     "add=Add(conv,bn)");
    assert_false(pt_fired(r, "conv2d_batch_norm", NULL));
    pt_free(r);
}

/* A batch norm in training mode normalises by the batch's own statistics:
 * counted 4 an element plus 11 a channel (TensorFlow's FusedBatchNorm in
 * training) and never folded into the Conv. Training mode is training_mode 1
 * from opset 14, any statistics output at opsets 7-13 (read or not), and
 * is_test 0 (the default) before opset 7. x[1,2,4,4], W[2,2,1,1] without
 * bias: Conv 2*32*2 = 128; BN 4*32 + 11*2 = 150 in training (278 in all),
 * 2*32 = 64 in inference (192), which folds into the Conv: 128 + 32 for the
 * folded bias (160 after). */
static void test_conv_bn_training(void **state) {
    (void)state;
    static const struct {
        int opset;
        const char *attr; /* NULL: none */
        int64_t v;
        const char *outs;
        bool training;
    } cases[] = {
        {14, "training_mode", 1, "n,rm,rv", true},
        {14, "training_mode", 0, "n", false},
        {15, NULL, 0, "n", false},
        {9, NULL, 0, "n,m,v,sm,sv", true},
        {9, NULL, 0, "n", false},
        {7, NULL, 0, "n,m,v", true},
        {6, NULL, 0, "n", true},
        {6, "is_test", 0, "n", true},
        {6, "is_test", 1, "n", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(cases[i].opset);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 4}, NULL);
        ob_init_f(m, "w", 4, (int64_t[]){2, 2, 1, 1}, true);
        ob_init_f(m, "s", 1, (int64_t[]){2}, true);
        ob_node(m, "Conv", "conv", "x,w", "c");
        Onnx__NodeProto *bn = ob_node(m, "BatchNormalization", "bn", "c,s,s,s,s", cases[i].outs);
        if (cases[i].attr) {
            ob_attr_i(m, bn, cases[i].attr, cases[i].v);
        }
        ob_output(m, "n");
        pt_run *r = oxp_run(m, NULL);
        bool t = cases[i].training;
        if (pt_fired(r, "conv2d_batch_norm", NULL) == t) {
            fail_msg("case %zu (opset %d): folded %d", i, cases[i].opset, !t);
        }
        assert_int_equal(pt_known(r->before.flops), t ? 278 : 192);
        assert_int_equal(pt_known(r->after.flops), t ? 278 : 160);
        pt_free(r);
    }
}

/* MatMul(x[4,8], W[8,3]) + c[3] -> Gemm, then Gemm + LeakyRelu ->
 * FusedGemm(activation LeakyRelu, activation_alpha 0.1) named after the
 * LeakyRelu. FLOPs: MatMul 2*4*3*8 = 192, Add 12, LeakyRelu 12: 216 before;
 * FusedGemm 192 + 12 (C) + 12 (activation): 216 after. MACs 96. */
static void test_matmul_add_gemm_act(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 3}, true);
    init_vals(m, "c", 1, (int64_t[]){3}, (float[]){1, 2, 3}, 3);
    ob_node(m, "MatMul", "mm", "x,w", "p");
    ob_node(m, "Add", "add", "c,p", "q");
    Onnx__NodeProto *a = ob_node(m, "LeakyRelu", "act", "q", "y");
    ob_attr_f(m, a, "alpha", 0.1f);
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "act=FusedGemm(x,w,c)");
    assert_true(pt_fired(r, "contraction_bias", "add"));
    assert_true(pt_fired(r, "contraction_bias_activation", "act"));
    fl_node *f = pt_need(r, "act");
    assert_int_equal(f->kind, FL_OP_ONNX_MS_FUSED_GEMM);
    assert_string_equal(fl__node_attr(f, "activation")->v.s.p, "LeakyRelu");
    assert_true(fl__node_attr(f, "activation_alpha")->v.f == 0.1f);
    assert_int_equal(pt_known(r->before.flops), 216);
    assert_int_equal(pt_known(r->after.flops), 216);
    assert_int_equal(pt_known(r->after.macs), 96);
    /* Written back: one com.microsoft FusedGemm reading the graph input and
     * both initializers, producing the graph output y; com.microsoft
     * imported. */
    uint8_t *out;
    size_t len;
    assert_int_equal(fl__onnx_write(r->g, &out, &len, &r->d), FL_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, out);
    assert_non_null(mp);
    assert_int_equal(mp->graph->n_node, 1);
    const Onnx__NodeProto *np = mp->graph->node[0];
    assert_string_equal(np->op_type, "FusedGemm");
    assert_string_equal(np->domain, "com.microsoft");
    assert_int_equal(np->n_input, 3);
    assert_string_equal(np->input[0], "x");
    assert_string_equal(np->input[1], "w");
    assert_string_equal(np->input[2], "c");
    assert_int_equal(np->n_output, 1);
    assert_string_equal(np->output[0], "y");
    assert_int_equal(mp->graph->n_initializer, 2);
    assert_string_equal(mp->graph->output[0]->name, "y");
    bool ms = false, alpha = false, act = false;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        ms |= strcmp(mp->opset_import[i]->domain, "com.microsoft") == 0;
    }
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *at = np->attribute[i];
        alpha |= strcmp(at->name, "activation_alpha") == 0 && at->f == 0.1f;
        act |= strcmp(at->name, "activation") == 0 && at->s.len == 9 &&
               memcmp(at->s.data, "LeakyRelu", 9) == 0;
    }
    assert_true(ms && alpha && act);
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    pt_free(r);
}

/* The int64 elements of constant `name`, as "a,b,c". */
static const char *int_values(const pt_run *r, const char *name, char *buf, size_t cap) {
    const fl_value *v = pt_need(r, name)->outputs[0].value;
    assert_non_null(v);
    size_t at = 0;
    buf[0] = '\0';
    for (int64_t i = 0; i < v->n; i++) {
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? "," : "",
                               (long long)pt_known(fl__value_int(v, i)));
        assert_true(at < cap);
    }
    return buf;
}

/* A 3-D MatMul(x[2,4,8], W[8,3]) + c[3] (ONNX Runtime's MatMulAddFusion):
 * Reshape(x, [8, 8]) -> Gemm(., W, c) -> Reshape(., [2, 4, 3]), the last
 * named after the Add. FLOPs: MatMul 2*2*4*3*8 = 384 + Add 24 = 408 before;
 * Gemm 2*8*3*8 + 24 (C) = 408 after; MACs 192 both. */
static void test_matmul_add_nd_gemm(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 4, 8}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 3}, true);
    init_vals(m, "c", 1, (int64_t[]){3}, (float[]){1, 2, 3}, 3);
    ob_node(m, "MatMul", "mm", "x,w", "p");
    ob_node(m, "Add", "add", "p,c", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "add/gemm_input=Reshape(x,add/gemm_input_shape); "
                                     "add/gemm=Gemm(add/gemm_input,w,c); "
                                     "add=Reshape(add/gemm,add/gemm_output_shape)");
    assert_true(pt_fired(r, "contraction_bias", "add"));
    char buf[64];
    assert_string_equal(int_values(r, "add/gemm_input_shape", buf, sizeof buf), "8,8");
    assert_string_equal(int_values(r, "add/gemm_output_shape", buf, sizeof buf), "2,4,3");
    assert_int_equal(pt_known(r->before.flops), 408);
    assert_int_equal(pt_known(r->after.flops), 408);
    assert_int_equal(pt_known(r->before.macs), 192);
    assert_int_equal(pt_known(r->after.macs), 192);
    pt_free(r);
}

/* With a symbolic dim in x the Reshape targets are not constants (ONNX
 * Runtime leaves it too): unchanged. */
static void test_matmul_3d_symbolic_kept(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, 4, 8}, (const char *const[]){"N", NULL, NULL});
    ob_init_f(m, "w", 2, (int64_t[]){8, 3}, true);
    init_vals(m, "c", 1, (int64_t[]){3}, (float[]){1, 2, 3}, 3);
    ob_node(m, "MatMul", "mm", "x,w", "p");
    ob_node(m, "Add", "add", "p,c", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "mm=MatMul(x,w); add=Add(mm,c)");
    pt_free(r);
}

/* The written node named `name` and its attribute `attr`. */
static const Onnx__AttributeProto *written_attr(const Onnx__ModelProto *mp, const char *name,
                                                const char *attr) {
    for (size_t i = 0; i < mp->graph->n_node; i++) {
        const Onnx__NodeProto *np = mp->graph->node[i];
        for (size_t j = 0; strcmp(np->name, name) == 0 && j < np->n_attribute; j++) {
            if (strcmp(np->attribute[j]->name, attr) == 0) {
                return np->attribute[j];
            }
        }
    }
    fail_msg("no written attr %s.%s", name, attr);
    return NULL;
}

/* Attention scores as torch exports them: q, k [S=3, H=2, D=4];
 * MatMul(Div(Transpose(q, [1,0,2]), 2), Transpose(k, [1,2,0])) ->
 * com.microsoft::FusedMatMul(q, k), transBatchA 1, transBatchB 1, transB 1,
 * alpha 0.5 (ONNX Runtime's graph of the tiny transformer has the same).
 * Output [2,3,3]; MACs 2*3*3*4 = 72 before and after; FLOPs: Div 24 +
 * MatMul 144 = 168 before, FusedMatMul 144 + 18 (alpha) = 162 after. The
 * written node carries those attributes. */
static void test_fused_matmul_transpose_scale(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){3, 2, 4}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){3, 2, 4}, NULL);
    init_vals(m, "two", 0, NULL, (float[]){2}, 1);
    Onnx__NodeProto *t1 = ob_node(m, "Transpose", "tq", "q", "a");
    ob_attr_ints(m, t1, "perm", 3, (int64_t[]){1, 0, 2});
    ob_node(m, "Div", "div", "a,two", "b");
    Onnx__NodeProto *t2 = ob_node(m, "Transpose", "tk", "k", "c");
    ob_attr_ints(m, t2, "perm", 3, (int64_t[]){1, 2, 0});
    ob_node(m, "MatMul", "mm", "b,c", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "mm=FusedMatMul(q,k)");
    assert_true(pt_fired(r, "matmul_transpose_fusion", "mm"));
    assert_true(pt_fired(r, "matmul_scale_fusion", "mm"));
    fl_node *f = pt_need(r, "mm");
    assert_int_equal(f->kind, FL_OP_ONNX_MS_FUSED_MATMUL);
    assert_int_equal(fl__node_attr(f, "transA")->v.i, 0);
    assert_int_equal(fl__node_attr(f, "transB")->v.i, 1);
    assert_int_equal(fl__node_attr(f, "transBatchA")->v.i, 1);
    assert_int_equal(fl__node_attr(f, "transBatchB")->v.i, 1);
    assert_true(fl__node_attr(f, "alpha")->v.f == 0.5f);
    assert_int_equal(pt_known(f->outputs[0].shape.dims[0]), 2);
    assert_int_equal(pt_known(f->outputs[0].shape.dims[2]), 3);
    assert_int_equal(pt_known(r->before.macs), 72);
    assert_int_equal(pt_known(r->after.macs), 72);
    assert_int_equal(pt_known(r->before.flops), 168);
    assert_int_equal(pt_known(r->after.flops), 162);
    uint8_t *out;
    size_t len;
    assert_int_equal(fl__onnx_write(r->g, &out, &len, &r->d), FL_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, out);
    assert_non_null(mp);
    assert_int_equal(mp->graph->n_node, 1);
    assert_string_equal(mp->graph->node[0]->domain, "com.microsoft");
    assert_string_equal(mp->graph->node[0]->output[0], "y");
    assert_int_equal(written_attr(mp, "mm", "transBatchA")->i, 1);
    assert_int_equal(written_attr(mp, "mm", "transB")->i, 1);
    assert_true(written_attr(mp, "mm", "alpha")->f == 0.5f);
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    pt_free(r);
}

/* An output scale Mul(0.25, MatMul(t, b)) folds (the root is the Mul); a
 * Transpose [1,2,0] of a 3-D operand against a 2-D one has no FusedMatMul
 * form (transBatch needs both operands of one rank) and stays. */
static void test_fused_matmul_output_scale(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "a0", OB_FLOAT, 3, (int64_t[]){4, 2, 3}, NULL);
    ob_init_f(m, "b", 2, (int64_t[]){4, 5}, true);
    init_vals(m, "quarter", 0, NULL, (float[]){0.25f}, 1);
    Onnx__NodeProto *t = ob_node(m, "Transpose", "t", "a0", "a");
    ob_attr_ints(m, t, "perm", 3, (int64_t[]){1, 2, 0});
    ob_node(m, "MatMul", "mm", "a,b", "p");
    ob_node(m, "Mul", "mul", "quarter,p", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "t=Transpose(a0); mul=FusedMatMul(t,b)");
    assert_true(pt_fired(r, "matmul_scale_fusion", "mul"));
    assert_false(pt_fired(r, "matmul_transpose_fusion", NULL));
    fl_node *f = pt_need(r, "mul");
    assert_true(fl__node_attr(f, "alpha")->v.f == 0.25f);
    assert_int_equal(fl__node_attr(f, "transBatchA")->v.i, 0);
    assert_int_equal(pt_known(r->before.macs), 2 * 3 * 5 * 4);
    assert_int_equal(pt_known(r->after.macs), 2 * 3 * 5 * 4);
    pt_free(r);
}

/* A Transpose with other readers (ONNX Runtime's MatmulTransposeFusion
 * folds it all the same and keeps it for them): k [2,4,3] -> kt =
 * Transpose(k, [0,2,1]) [2,3,4], read by MatMul(q [2,5,3], kt) and by Relu.
 * The MatMul becomes FusedMatMul(q, k) transB 1; kt stays for the Relu.
 * MACs 2*5*4*3 = 120 before and after. FLOPs: MatMul 240 + Relu 24 = 264
 * both (FusedMatMul with alpha 1 counts as the MatMul). */
static void test_fused_matmul_shared_transpose(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 5, 3}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){2, 4, 3}, NULL);
    Onnx__NodeProto *t = ob_node(m, "Transpose", "kt", "k", "ktv");
    ob_attr_ints(m, t, "perm", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "MatMul", "mm", "q,ktv", "y");
    ob_node(m, "Relu", "relu", "ktv", "z");
    ob_output(m, "y");
    ob_output(m, "z");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "kt=Transpose(k); mm=FusedMatMul(q,k); relu=Relu(kt)");
    assert_true(pt_fired(r, "matmul_transpose_fusion", "mm"));
    fl_node *f = pt_need(r, "mm");
    assert_int_equal(fl__node_attr(f, "transA")->v.i, 0);
    assert_int_equal(fl__node_attr(f, "transB")->v.i, 1);
    assert_int_equal(fl__node_attr(f, "transBatchB")->v.i, 0);
    assert_int_equal(pt_known(f->outputs[0].shape.dims[1]), 5);
    assert_int_equal(pt_known(f->outputs[0].shape.dims[2]), 4);
    assert_int_equal(pt_known(r->before.macs), 120);
    assert_int_equal(pt_known(r->after.macs), 120);
    assert_int_equal(pt_known(r->before.flops), 264);
    assert_int_equal(pt_known(r->after.flops), 264);
    pt_free(r);
}

/* The same Transpose read by two MatMuls only: each folds it, and the last
 * one drops it (no reader left). a = MatMul(q, kt) [2,5,4], b =
 * MatMul(p [2,1,3], kt) [2,1,4]: MACs 120 + 24 = 144 before and after. A
 * Transpose that is a graph output is never folded (ONNX Runtime skips it
 * too): with kt also a declared output, read by both MatMuls, the pass
 * driver preserves it and both MatMuls stay (it used to be dropped, the
 * declared output lost). */
static void test_fused_matmul_transpose_two_matmuls(void **state) {
    (void)state;
    for (int as_output = 0; as_output < 2; as_output++) {
        ob_model *m = ob_new(13);
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 5, 3}, NULL);
        ob_input(m, "p", OB_FLOAT, 3, (int64_t[]){2, 1, 3}, NULL);
        ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){2, 4, 3}, NULL);
        Onnx__NodeProto *t = ob_node(m, "Transpose", "kt", "k", "ktv");
        ob_attr_ints(m, t, "perm", 3, (int64_t[]){0, 2, 1});
        ob_node(m, "MatMul", "ma", "q,ktv", "a");
        ob_node(m, "MatMul", "mb", "p,ktv", "b");
        ob_output(m, "a");
        ob_output(m, "b");
        if (as_output) {
            ob_output(m, "ktv");
        }
        pt_run *r = oxp_run(m, NULL);
        assert_string_equal(oxp_dump(r), as_output
                                             ? "kt=Transpose(k); ma=MatMul(q,kt); mb=MatMul(p,kt)"
                                             : "mb=FusedMatMul(p,k); ma=FusedMatMul(q,k)");
        assert_int_equal(pt_known(r->before.macs), 144);
        assert_int_equal(pt_known(r->after.macs), 144);
        pt_free(r);
    }
}

/* gamma [1, 8] is a valid LayerNormalization scale (it broadcasts over the
 * normalised axis) but not SkipLayerNormalization's 1-D gamma: no fusion. */
static void test_skip_layer_norm_2d_gamma(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "b", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_init_f(m, "gamma", 2, (int64_t[]){1, 8}, true);
    ob_init_f(m, "beta", 1, (int64_t[]){8}, true);
    ob_node(m, "Add", "add", "a,b", "s");
    ob_node(m, "LayerNormalization", "ln", "s,gamma,beta", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "add=Add(a,b); ln=LayerNormalization(add,gamma,beta)");
    assert_false(pt_fired(r, "skip_layer_norm_fusion", NULL));
    assert_int_equal(r->d.n_warnings, 0); /* no pass failed (and was rolled back) */
    pt_free(r);
}

/* LayerNormalization(Add(a, Add(c, b))) with c a bias [8] ->
 * com.microsoft::SkipLayerNormalization(a, b, gamma, beta, c), epsilon the
 * LayerNormalization's (1e-3). a, b [2,3,8]: E = 48, R = 6; FLOPs before:
 * Add 48 + Add 48 + LayerNormalization 6*48 + 2*6 + 48 (beta) = 444; after:
 * SkipLayerNormalization 48 (skip) + 48 (bias) + 348 = 444. An Add whose
 * operands differ in shape (a broadcast bias) is no skip connection. */
static void test_skip_layer_norm(void **state) {
    (void)state;
    for (int broadcast = 0; broadcast < 2; broadcast++) {
        ob_model *m = ob_new(17);
        ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
        ob_input(m, "b", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
        ob_init_f(m, "c", 1, (int64_t[]){8}, true);
        ob_init_f(m, "gamma", 1, (int64_t[]){8}, true);
        ob_init_f(m, "beta", 1, (int64_t[]){8}, true);
        if (broadcast) {
            ob_node(m, "Add", "add", "a,c", "s");
        } else {
            ob_node(m, "Add", "bias", "c,b", "bb");
            ob_node(m, "Add", "add", "a,bb", "s");
        }
        Onnx__NodeProto *ln = ob_node(m, "LayerNormalization", "ln", "s,gamma,beta", "y");
        ob_attr_f(m, ln, "epsilon", 1e-3f);
        ob_output(m, "y");
        pt_run *r = oxp_run(m, NULL);
        if (broadcast) {
            assert_string_equal(oxp_dump(r), "add=Add(a,c); ln=LayerNormalization(add,gamma,beta)");
            assert_false(pt_fired(r, "skip_layer_norm_fusion", NULL));
        } else {
            assert_string_equal(oxp_dump(r), "ln=SkipLayerNormalization(a,b,gamma,beta,c)");
            assert_true(pt_fired(r, "skip_layer_norm_fusion", "ln"));
            fl_node *f = pt_need(r, "ln");
            assert_int_equal(f->kind, FL_OP_ONNX_MS_SKIP_LAYER_NORM);
            assert_true(fl__node_attr(f, "epsilon")->v.f == 1e-3f);
            assert_int_equal(pt_known(r->before.flops), 444);
            assert_int_equal(pt_known(r->after.flops), 444);
        }
        pt_free(r);
    }
}

/* com.microsoft::Gelu(Add(x[2,4], b[4])) -> BiasGelu(x, b); FLOPs Add 8 +
 * Gelu 8 before, BiasGelu 2 * 8 after. */
static void test_bias_gelu(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_opset(m, "com.microsoft", 1);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 4}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){4}, true);
    ob_node(m, "Add", "add", "b,x", "s");
    Onnx__NodeProto *g = ob_node(m, "Gelu", "gelu", "s", "y");
    ob_domain(m, g, "com.microsoft");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "gelu=BiasGelu(x,b)");
    assert_true(pt_fired(r, "bias_gelu_fusion", "gelu"));
    assert_int_equal(pt_need(r, "gelu")->kind, FL_OP_ONNX_MS_BIAS_GELU);
    assert_int_equal(pt_known(r->before.flops), 16);
    assert_int_equal(pt_known(r->after.flops), 16);
    pt_free(r);
}

/* Gemm(x, Transpose(w), c) -> Gemm(x, w, c) with transB 1; the written
 * Gemm carries transB 1 (not the imported NodeProto's attrs). */
static void test_gemm_transpose(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){3, 8}, NULL);
    init_vals(m, "c", 1, (int64_t[]){3}, (float[]){1, 2, 3}, 3);
    ob_node(m, "Transpose", "t", "w", "wt");
    Onnx__NodeProto *g = ob_node(m, "Gemm", "gemm", "x,wt,c", "y");
    ob_attr_f(m, g, "beta", 0.5f);
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "gemm=Gemm(x,w,c)");
    assert_true(pt_fired(r, "gemm_transpose_fusion", "gemm"));
    assert_int_equal(fl__node_attr(pt_need(r, "gemm"), "transB")->v.i, 1);
    assert_int_equal(pt_known(r->after.macs), 4 * 3 * 8);
    uint8_t *out;
    size_t len;
    assert_int_equal(fl__onnx_write(r->g, &out, &len, &r->d), FL_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, out);
    assert_non_null(mp);
    assert_int_equal(written_attr(mp, "gemm", "transB")->i, 1);
    assert_true(written_attr(mp, "gemm", "beta")->f == 0.5f);
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    pt_free(r);
}

/* Mul(x, Sigmoid(x)) -> QuickGelu(x, alpha 1). FLOPs 2*E = 2*24 before,
 * QuickGelu 1*E = 24 after. */
static void test_swish_quick_gelu(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
    ob_node(m, "Sigmoid", "sig", "x", "s");
    ob_node(m, "Mul", "mul", "s,x", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "mul=QuickGelu(x)");
    assert_true(pt_fired(r, "swish", "mul"));
    assert_true(fl__node_attr(pt_need(r, "mul"), "alpha")->v.f == 1.0f);
    assert_int_equal(pt_known(r->before.flops), 48);
    assert_int_equal(pt_known(r->after.flops), 24);
    pt_free(r);
}

/* A Shape chain feeding Reshape (as torch exports x.view(x.size(0), -1)):
 * Shape(x[2,3,4]) -> Gather(index 0) -> Unsqueeze(axes [0]) -> Concat with
 * Constant [-1] -> Reshape. After: Reshape(x, <Const [2, -1]>) alone; the
 * Constant became an initializer, the Shape was materialized, the rest
 * folded. */
static void test_shape_chain_folds(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    Onnx__NodeProto *k0 = ob_node(m, "Constant", "k0", "", "i0");
    ob_attr_tensor_i64(m, k0, "value", 0, NULL, (int64_t[]){0});
    Onnx__NodeProto *km = ob_node(m, "Constant", "km", "", "m1");
    ob_attr_tensor_i64(m, km, "value", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_init_i64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_node(m, "Shape", "shape", "x", "s");
    ob_node(m, "Gather", "gather", "s,i0", "g");
    ob_node(m, "Unsqueeze", "unsq", "g,axes", "u");
    Onnx__NodeProto *cc = ob_node(m, "Concat", "concat", "u,m1", "t");
    ob_attr_i(m, cc, "axis", 0);
    ob_node(m, "Reshape", "reshape", "x,t", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "reshape=Reshape(x,concat)");
    assert_true(pt_fired(r, "constant_to_initializer", "k0"));
    assert_true(pt_fired(r, "materialize_shape", "shape"));
    assert_true(pt_fired(r, "fold", "concat"));
    const fl_value *v = pt_need(r, "concat")->outputs[0].value;
    assert_non_null(v);
    assert_int_equal(v->n, 2);
    assert_int_equal(pt_known(fl__value_int(v, 0)), 2);
    assert_int_equal(pt_known(fl__value_int(v, 1)), -1);
    pt_free(r);
}

/* Exact Gelu as torch writes it at opset 13, in both Mul orders:
 * x * 0.5 * (1 + erf(x / sqrt 2)) -> com.microsoft::Gelu(x) named after the
 * last Mul. FLOPs: Div, Erf, Add, Mul, Mul at 1 per element: 5 * 24 = 120
 * before; Gelu 1 per element: 24 after. */
static void test_gelu_exact(void **state) {
    (void)state;
    for (int half_first = 0; half_first < 2; half_first++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
        init_vals(m, "s2", 0, NULL, (float[]){1.4142135f}, 1);
        init_vals(m, "one", 0, NULL, (float[]){1}, 1);
        init_vals(m, "half", 0, NULL, (float[]){0.5f}, 1);
        ob_node(m, "Div", "div", "x,s2", "d");
        ob_node(m, "Erf", "erf", "d", "e");
        ob_node(m, "Add", "add", "one,e", "a");
        if (half_first) {
            ob_node(m, "Mul", "mul1", "half,x", "h");
            ob_node(m, "Mul", "mul2", "a,h", "y");
        } else {
            ob_node(m, "Mul", "mul1", "x,a", "h");
            ob_node(m, "Mul", "mul2", "h,half", "y");
        }
        ob_output(m, "y");
        pt_run *r = oxp_run(m, NULL);
        assert_string_equal(oxp_dump(r), "mul2=Gelu(x)");
        assert_true(pt_fired(r, "gelu_exact", "mul2"));
        assert_int_equal(pt_need(r, "mul2")->kind, FL_OP_ONNX_MS_GELU);
        assert_int_equal(pt_known(r->before.flops), 120);
        assert_int_equal(pt_known(r->after.flops), 24);
        pt_free(r);
    }
}

/* Add(x[4,6], b[6]), the exact Gelu chain on it, and a MatMul by w[6,3]
 * reading the chain's last Mul (by 0.5): ONNX Runtime runs GeluFusion
 * before BiasGeluFusion and MatMulScaleFusion, so the Mul by 0.5 is the
 * Gelu's, the Gelu takes the bias (BiasGelu) and the MatMul stays one (not
 * a FusedMatMul with alpha 0.5 of the unfinished chain). Without the Add:
 * Gelu(x) and the MatMul. FLOPs before: Add 24 + Div, Erf, Add, Mul, Mul
 * 5 * 24 + MatMul 2 * 4 * 6 * 3 = 288 (264 without the Add); after:
 * BiasGelu 2 * 24 (Gelu 24) + 144. */
static void test_gelu_before_matmul_scale(void **state) {
    (void)state;
    for (int bias = 0; bias < 2; bias++) {
        ob_model *m = ob_new(13);
        ob_opset(m, "com.microsoft", 1);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
        init_vals(m, "s2", 0, NULL, (float[]){1.4142135f}, 1);
        init_vals(m, "one", 0, NULL, (float[]){1}, 1);
        init_vals(m, "half", 0, NULL, (float[]){0.5f}, 1);
        ob_init_f(m, "b", 1, (int64_t[]){6}, true);
        ob_init_f(m, "w", 2, (int64_t[]){6, 3}, true);
        const char *g = "x";
        if (bias) {
            ob_node(m, "Add", "add_b", "x,b", "xb");
            g = "xb";
        }
        char in[16];
        snprintf(in, sizeof in, "%s,s2", g);
        ob_node(m, "Div", "div", in, "d");
        ob_node(m, "Erf", "erf", "d", "e");
        ob_node(m, "Add", "add", "e,one", "a");
        snprintf(in, sizeof in, "%s,a", g);
        ob_node(m, "Mul", "mul1", in, "h");
        ob_node(m, "Mul", "mul2", "h,half", "gl");
        ob_node(m, "MatMul", "mm", "gl,w", "y");
        ob_output(m, "y");
        pt_run *r = oxp_run(m, NULL);
        assert_string_equal(oxp_dump(r), bias ? "mul2=BiasGelu(x,b); mm=MatMul(mul2,w)"
                                              : "mul2=Gelu(x); mm=MatMul(mul2,w)");
        assert_true(pt_fired(r, "gelu_exact", "mul2"));
        assert_int_equal(pt_fired(r, "bias_gelu_fusion", "mul2"), bias);
        assert_false(pt_fired(r, "matmul_scale_fusion", NULL));
        assert_int_equal(pt_known(r->before.flops), 264 + 24 * bias);
        assert_int_equal(pt_known(r->after.flops), 144 + 24 + 24 * bias);
        pt_free(r);
    }
}

/* A Gelu-like chain with the wrong constant (Div by 2) is left alone. */
static void test_gelu_wrong_constant(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
    init_vals(m, "s2", 0, NULL, (float[]){2}, 1);
    init_vals(m, "one", 0, NULL, (float[]){1}, 1);
    init_vals(m, "half", 0, NULL, (float[]){0.5f}, 1);
    ob_node(m, "Div", "div", "x,s2", "d");
    ob_node(m, "Erf", "erf", "d", "e");
    ob_node(m, "Add", "add", "e,one", "a");
    ob_node(m, "Mul", "mul1", "x,a", "h");
    ob_node(m, "Mul", "mul2", "h,half", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, NULL);
    assert_false(pt_fired(r, "gelu_exact", NULL));
    assert_string_equal(oxp_dump(r), "div=Div(x,s2); erf=Erf(div); add=Add(erf,one); "
                                     "mul1=Mul(x,add); mul2=Mul(mul1,half)");
    pt_free(r);
}

/* The layer norm of torch's opset-13 export over x [2,3,8]: the means
 * over axes [ax1] and [ax2]; gamma and beta ones and zeros when initial,
 * else stripped. */
static ob_model *ln_model(int64_t ax1, int64_t ax2, bool initial) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    init_vals(m, "two", 0, NULL, (float[]){2}, 1);
    init_vals(m, "eps", 0, NULL, (float[]){1e-5f}, 1);
    if (initial) { /* ones and zeros, as a layer is initialised */
        init_vals(m, "gamma", 1, (int64_t[]){8}, (float[]){1, 1, 1, 1, 1, 1, 1, 1}, 8);
        init_vals(m, "beta", 1, (int64_t[]){8}, (float[]){0, 0, 0, 0, 0, 0, 0, 0}, 8);
    } else {
        ob_init_f(m, "gamma", 1, (int64_t[]){8}, true);
        ob_init_f(m, "beta", 1, (int64_t[]){8}, true);
    }
    Onnx__NodeProto *m1 = ob_node(m, "ReduceMean", "mean1", "x", "m");
    ob_attr_ints(m, m1, "axes", 1, (int64_t[]){ax1});
    ob_node(m, "Sub", "sub", "x,m", "d");
    ob_node(m, "Pow", "pow", "d,two", "p");
    Onnx__NodeProto *m2 = ob_node(m, "ReduceMean", "mean2", "p", "v");
    ob_attr_ints(m, m2, "axes", 1, (int64_t[]){ax2});
    ob_node(m, "Add", "add_eps", "v,eps", "a");
    ob_node(m, "Sqrt", "sqrt", "a", "s");
    ob_node(m, "Div", "div", "d,s", "n");
    ob_node(m, "Mul", "mul", "gamma,n", "g");
    ob_node(m, "Add", "add", "g,beta", "y");
    ob_output(m, "y");
    return m;
}

/* Layer norm over the last axis as torch writes it at opset 13 ->
 * LayerNormalization(x, gamma, beta), axis -1, epsilon 1e-5; also with
 * gamma all ones and beta all zeros (an untrained layer: the Mul and the
 * Add are not no-ops to ONNX Runtime's NoopElimination, which takes
 * one-element constants only, so they fuse). x [2,3,8]:
 * E = 48, R = 6 rows. FLOPs before: ReduceMean E, Sub E, Pow E, ReduceMean
 * E, Add R, Sqrt R, Div E, Mul E, Add E = 7 * 48 + 2 * 6 = 348; after,
 * LayerNormalization with a bias counts its decomposition: 348. */
static void test_layer_norm(void **state) {
    (void)state;
    for (int initial = 0; initial < 2; initial++) {
        pt_run *r = oxp_run(ln_model(-1, 2, initial), NULL);
        assert_string_equal(oxp_dump(r), "add=LayerNormalization(x,gamma,beta)");
        assert_true(pt_fired(r, "layer_norm", "add"));
        fl_node *ln = pt_need(r, "add");
        assert_int_equal(ln->kind, FL_OP_ONNX_LAYER_NORM);
        assert_true(fl__node_attr(ln, "epsilon")->v.f == 1e-5f);
        assert_int_equal(fl__node_attr(ln, "axis")->v.i, -1);
        assert_int_equal(pt_known(r->before.flops), 348);
        assert_int_equal(pt_known(r->after.flops), 348);
        pt_free(r);
    }
}

/* The mean over another axis is not a layer norm over the last one. */
static void test_layer_norm_other_axis(void **state) {
    (void)state;
    pt_run *r = oxp_run(ln_model(1, 1, false), NULL);
    assert_false(pt_fired(r, "layer_norm", NULL));
    pt_free(r);
}

/* Relu(Dropout(x, 0.1, false)) with the Dropout's mask output named but
 * unread: the Dropout goes (eliminate_dropout, ONNX Runtime's
 * EliminateDropout), the Relu reads x. With the mask a graph output too,
 * the Dropout stays. */
static void test_eliminate_dropout(void **state) {
    (void)state;
    for (int mask_out = 0; mask_out < 2; mask_out++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
        init_vals(m, "ratio", 0, NULL, (float[]){0.1f}, 1);
        ob_init_raw(m, "train", OB_BOOL, 0, NULL, (uint8_t[]){0}, 1);
        ob_node(m, "Dropout", "drop", "x,ratio,train", "d,mask");
        ob_node(m, "Relu", "relu", "d", "y");
        ob_output(m, "y");
        if (mask_out) {
            ob_output(m, "mask");
        }
        pt_run *r = oxp_run(m, NULL);
        assert_string_equal(oxp_dump(r), mask_out ? "drop=Dropout(x,ratio,train); relu=Relu(drop)"
                                                  : "relu=Relu(x)");
        assert_int_equal(pt_fired(r, "eliminate_dropout", "drop"), !mask_out);
        pt_free(r);
    }
}

/* A graph output computed from constants only, y = c1 + c2 = [4, 7]:
 * constant folding turns its producer into a constant in place (dropping its
 * NodeProto); the written model still declares and produces y, as an
 * initializer named y holding [4, 7], next to z = Relu(x). */
static void test_output_folded_written(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){2}, NULL);
    init_vals(m, "c1", 1, (int64_t[]){2}, (float[]){1, 2}, 2);
    init_vals(m, "c2", 1, (int64_t[]){2}, (float[]){3, 5}, 2);
    ob_node(m, "Add", "add", "c1,c2", "y");
    ob_node(m, "Relu", "relu", "x", "z");
    ob_output(m, "y");
    ob_output(m, "z");
    pt_run *r = oxp_run(m, NULL);
    assert_true(pt_fired(r, "fold", "add"));
    assert_string_equal(oxp_dump(r), "relu=Relu(x)");
    uint8_t *out;
    size_t len;
    assert_int_equal(fl__onnx_write(r->g, &out, &len, &r->d), FL_OK);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, out);
    assert_non_null(mp);
    assert_int_equal(mp->graph->n_initializer, 1);
    const Onnx__TensorProto *t = mp->graph->initializer[0];
    assert_string_equal(t->name, "y");
    const float want[2] = {4, 7};
    assert_int_equal(t->raw_data.len, sizeof want);
    assert_memory_equal(t->raw_data.data, want, sizeof want);
    assert_int_equal(mp->graph->n_node, 1);
    assert_string_equal(mp->graph->node[0]->output[0], "z");
    assert_int_equal(mp->graph->n_output, 2);
    assert_string_equal(mp->graph->output[0]->name, "y");
    onnx__model_proto__free_unpacked(mp, NULL);
    free(out);
    pt_free(r);
}

/* Transposes over ONNX: [1,0,2] twice cancels (remove_identity_transpose);
 * [1,2,0] twice merges into one Transpose with q[j] = p1[p2[j]] = [2,0,1]
 * (x [2,3,4] -> [4,2,3] either way), written back with that perm; an
 * identity permutation is removed. The transpose pass (ONNX Runtime's
 * transpose optimizer, which runs first by default) is left out here; with
 * it the pairs go there (transpose_cancel, transpose_merge), to the same
 * graphs. */
static const int64_t transposes_perms[3][3] = {{1, 0, 2}, {1, 2, 0}, {0, 1, 2}};

static ob_model *transposes_model(int c) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    Onnx__NodeProto *t1 = ob_node(m, "Transpose", "t1", "x", "a");
    ob_attr_ints(m, t1, "perm", 3, transposes_perms[c]);
    const char *relu_in = "a";
    if (c < 2) {
        Onnx__NodeProto *t2 = ob_node(m, "Transpose", "t2", "a", "b");
        ob_attr_ints(m, t2, "perm", 3, transposes_perms[c]);
        relu_in = "b";
    }
    ob_node(m, "Relu", "relu", relu_in, "y");
    ob_output(m, "y");
    return m;
}

static void test_onnx_transposes(void **state) {
    (void)state;
    static const char *const want[3] = {"relu=Relu(x)", "t2=Transpose(x); relu=Relu(t2)",
                                        "relu=Relu(x)"};
    for (int c = 0; c < 3; c++) {
        ob_model *m2 = c < 2 ? transposes_model(c) : NULL;
        pt_run *r =
            oxp_run(transposes_model(c), "pruning,cse,constfold,shape,arithmetic,remap,dependency");
        assert_string_equal(oxp_dump(r), want[c]);
        assert_true(pt_fired(r, c == 1 ? "merge_transposes" : "remove_identity_transpose",
                             c == 2 ? "t1" : "t2"));
        if (m2) {
            pt_run *r2 = oxp_run(m2, NULL);
            assert_string_equal(oxp_dump(r2), want[c]);
            assert_true(pt_fired(r2, c == 1 ? "transpose_merge" : "transpose_cancel", "t2"));
            pt_free(r2);
        }
        if (c == 1) {
            const fl_attr *p = fl__node_attr(pt_need(r, "t2"), "perm");
            assert_int_equal(p->n, 3);
            assert_true(p->v.list.i[0] == 2 && p->v.list.i[1] == 0 && p->v.list.i[2] == 1);
            assert_int_equal(pt_known(pt_need(r, "t2")->outputs[0].shape.dims[0]), 4);
            uint8_t *out;
            size_t len;
            assert_int_equal(fl__onnx_write(r->g, &out, &len, &r->d), FL_OK);
            Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, out);
            assert_non_null(mp);
            const Onnx__AttributeProto *wp = written_attr(mp, "t2", "perm");
            assert_int_equal(wp->n_ints, 3);
            assert_true(wp->ints[0] == 2 && wp->ints[1] == 0 && wp->ints[2] == 1);
            assert_string_equal(mp->graph->node[0]->input[0], "x");
            onnx__model_proto__free_unpacked(mp, NULL);
            free(out);
        }
        pt_free(r);
    }
}

/* Mul(x, 1), Add(0, .), Neg(Neg(.)), Identity over ONNX: all removed, the
 * Relu reads x. FLOPs before: Mul 6 + Add 6 + Neg 6 + Neg 6 + Relu 6 = 30;
 * after: Relu 6. An Add of a zeros constant that broadcasts x [1,3] up to
 * [2,3] changes the shape and stays. So do a Mul by ones [3] and an Add of
 * zeros [3] (ONNX Runtime's NoopElimination takes a one-element constant
 * only; a layer norm's initial scale and bias are such vectors): 6 FLOPs
 * each, before and after. */
static void test_onnx_neutral_elements(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "v", OB_FLOAT, 2, (int64_t[]){1, 3}, NULL);
    init_vals(m, "one", 1, (int64_t[]){1}, (float[]){1}, 1);
    init_vals(m, "zero", 0, NULL, (float[]){0}, 1);
    init_vals(m, "zeros3", 1, (int64_t[]){3}, (float[]){0, 0, 0}, 3);
    init_vals(m, "ones3", 1, (int64_t[]){3}, (float[]){1, 1, 1}, 3);
    init_vals(m, "zeros23", 2, (int64_t[]){2, 3}, (float[]){0, 0, 0, 0, 0, 0}, 6);
    ob_node(m, "Mul", "mul", "x,one", "a");
    ob_node(m, "Add", "add", "zero,a", "b");
    ob_node(m, "Neg", "neg1", "b", "c");
    ob_node(m, "Neg", "neg2", "c", "d");
    ob_node(m, "Identity", "id", "d", "e");
    ob_node(m, "Relu", "relu", "e", "y");
    ob_node(m, "Add", "bcast", "v,zeros23", "z");
    ob_node(m, "Mul", "scale", "x,ones3", "s");
    ob_node(m, "Add", "shift", "s,zeros3", "t");
    ob_output(m, "y");
    ob_output(m, "z");
    ob_output(m, "t");
    pt_run *r = oxp_run(m, NULL);
    assert_string_equal(oxp_dump(r), "relu=Relu(x); scale=Mul(x,ones3); bcast=Add(v,zeros23); "
                                     "shift=Add(scale,zeros3)");
    assert_true(pt_fired(r, "multiply_by_one", "mul"));
    assert_true(pt_fired(r, "add_zero", "add"));
    assert_true(pt_fired(r, "remove_involution", "neg2"));
    assert_true(pt_fired(r, "remove_identity", "id"));
    assert_int_equal(pt_known(r->before.flops), 30 + 6 + 12);
    assert_int_equal(pt_known(r->after.flops), 6 + 6 + 12);
    pt_free(r);
}

/* A transformer's head split at opset 13: Reshape(x, Concat(Unsqueeze(
 * Gather(Shape(x), 0), [0]), Unsqueeze(Gather(Shape(x), 1), [0]), [2],
 * [8])) with x [B, S, 16] (B and S unknown: the Shape chain does not fold)
 * -> Reshape(x, [0, 0, 2, 8]) as ONNX Runtime's ReshapeFusion writes it:
 * the Concat is the int64 constant [0, 0, 2, 8] (0: x's dim at that
 * position), Shape, Gathers and Unsqueezes gone, the output [B, S, 2, 8]
 * as before. With the Gathers swapped (x's dim 1 first, the output
 * [S, B, 2, 8]) a 0 would copy the wrong dim: nothing changes. */
static void test_reshape_fusion(void **state) {
    (void)state;
    for (int swapped = 0; swapped < 2; swapped++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, -1, 16}, (const char *[]){"B", "S", NULL});
        ob_init_i64(m, "i0", 0, NULL, (int64_t[]){swapped});
        ob_init_i64(m, "i1", 0, NULL, (int64_t[]){1 - swapped});
        ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){0});
        ob_init_i64(m, "heads", 1, (int64_t[]){1}, (int64_t[]){2});
        ob_init_i64(m, "hd", 1, (int64_t[]){1}, (int64_t[]){8});
        ob_node(m, "Shape", "shape", "x", "s");
        ob_node(m, "Gather", "g0", "s,i0", "d0");
        ob_node(m, "Gather", "g1", "s,i1", "d1");
        ob_node(m, "Unsqueeze", "u0", "d0,ax", "v0");
        ob_node(m, "Unsqueeze", "u1", "d1,ax", "v1");
        Onnx__NodeProto *c = ob_node(m, "Concat", "concat", "v0,v1,heads,hd", "c");
        ob_attr_i(m, c, "axis", 0);
        ob_node(m, "Reshape", "reshape", "x,c", "y");
        ob_output(m, "y");
        pt_run *r = oxp_run(m, NULL);
        fl_node *k = pt_need(r, "concat"), *y = pt_need(r, "reshape");
        if (swapped) {
            assert_false(pt_fired(r, "reshape_fusion", NULL));
            assert_int_equal(k->kind, FL_OP_ONNX_CONCAT);
            assert_non_null(pt_need(r, "shape"));
        } else {
            assert_string_equal(oxp_dump(r), "reshape=Reshape(x,concat)");
            assert_int_equal(pt_fired(r, "reshape_fusion", "concat"), 1);
            const fl_value *v = k->outputs[0].value;
            assert_true(fl__is_const(k) && v && v->n == 4);
            const int64_t want[4] = {0, 0, 2, 8};
            for (int i = 0; i < 4; i++) {
                assert_true(fl_sym_is_known(v->ints[i]) && v->ints[i].k == want[i]);
            }
        }
        const fl_shape *ys = &y->outputs[0].shape, *xs = &fl_node_in(y, 0)->shape;
        assert_int_equal(ys->rank, 4);
        char b0[32], b1[32];
        fl__sym_format(ys->dims[0], b0, sizeof b0);
        fl__sym_format(ys->dims[1], b1, sizeof b1);
        assert_string_equal(b0, swapped ? "S" : "B"); /* [S, B, 2, 8] swapped */
        assert_string_equal(b1, swapped ? "B" : "S");
        assert_true(fl__sym_eq(ys->dims[0], xs->dims[swapped]) &&
                    fl__sym_eq(ys->dims[1], xs->dims[1 - swapped]));
        assert_false(fl_sym_is_known(ys->dims[0]));
        assert_int_equal(pt_known(ys->dims[2]), 2);
        assert_int_equal(pt_known(ys->dims[3]), 8);
        pt_free(r);
    }
}

/* Two Slices of x [2,6] on axis 1 (axes -1), [2, INT64_MAX) and [0, 2),
 * reading x together with nothing else: one Split(x, [2, 4]) named after
 * the slice of the lower range, its outputs in range order
 * (gather_slice_to_split_fusion). With a gap ([0, 2) and [3, 6)) they stay
 * Slices. */
static void test_slices_to_split(void **state) {
    (void)state;
    for (int gap = 0; gap < 2; gap++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 6}, NULL);
        ob_init_i64(m, "b0", 1, (int64_t[]){1}, (int64_t[]){0});
        ob_init_i64(m, "e0", 1, (int64_t[]){1}, (int64_t[]){2});
        ob_init_i64(m, "b1", 1, (int64_t[]){1}, (int64_t[]){gap ? 3 : 2});
        ob_init_i64(m, "e1", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
        ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){-1});
        ob_node(m, "Slice", "hi", "x,b1,e1,ax", "h");
        ob_node(m, "Slice", "lo", "x,b0,e0,ax", "l");
        ob_node(m, "Relu", "r1", "h", "y1");
        ob_node(m, "Relu", "r2", "l", "y2");
        ob_outputs(m, "y", 2);
        pt_run *r = oxp_run(m, NULL);
        if (gap) {
            assert_false(pt_fired(r, "gather_slice_to_split_fusion", NULL));
            assert_string_equal(oxp_dump(r), "hi=Slice(x,b1,e1,ax); lo=Slice(x,b0,e0,ax); "
                                             "r1=Relu(hi); r2=Relu(lo)");
        } else {
            assert_string_equal(oxp_dump(r), "lo/Split=Split(x,x/split_sizes); "
                                             "r1=Relu(lo/Split:1); r2=Relu(lo/Split)");
            assert_true(pt_fired(r, "gather_slice_to_split_fusion", "lo"));
            char buf[32];
            assert_string_equal(int_values(r, "x/split_sizes", buf, sizeof buf), "2,4");
            fl_node *sp = pt_need(r, "lo/Split");
            assert_int_equal(fl__node_attr(sp, "axis")->v.i, 1);
            assert_int_equal(pt_known(sp->outputs[1].shape.dims[1]), 4);
        }
        pt_free(r);
    }
}

/* CSE's constants on an ONNX graph are ONNX Runtime's: two initializers
 * are one only through its ConstantSharing (a single value, rank 0 or
 * [1], of float, float16, double, int32 or int64, equal in type, value and
 * rank). s1, s2: scalar 0.5 floats, shared: mb merges into ma; c1: [1]
 * 0.5, another rank: mc stays; w1, w2: equal [4] floats: both Adds stay;
 * z1, z2: uint8 0 scalars: both QuantizeLinear stay. */
static void test_cse_onnx_constants(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 4}, NULL);
    init_vals(m, "s1", 0, NULL, (float[]){0.5f}, 1);
    init_vals(m, "s2", 0, NULL, (float[]){0.5f}, 1);
    init_vals(m, "c1", 1, (int64_t[]){1}, (float[]){0.5f}, 1);
    init_vals(m, "w1", 1, (int64_t[]){4}, (float[]){1, 2, 3, 4}, 4);
    init_vals(m, "w2", 1, (int64_t[]){4}, (float[]){1, 2, 3, 4}, 4);
    uint8_t zero = 0;
    ob_init_raw(m, "z1", 2, 0, NULL, &zero, 1);
    ob_init_raw(m, "z2", 2, 0, NULL, &zero, 1);
    ob_node(m, "Mul", "ma", "x,s1", "a");
    ob_node(m, "Mul", "mb", "x,s2", "b");
    ob_node(m, "Mul", "mc", "x,c1", "c");
    ob_node(m, "Add", "wa", "x,w1", "wa");
    ob_node(m, "Add", "wb", "x,w2", "wb");
    ob_node(m, "QuantizeLinear", "qa", "x,s1,z1", "qa");
    ob_node(m, "QuantizeLinear", "qb", "x,s1,z2", "qb");
    ob_node(m, "Sum", "y", "a,b,c,wa,wb", "y");
    ob_node(m, "Sub", "yq", "qa,qb", "yq");
    ob_output(m, "y");
    ob_output(m, "yq");
    pt_run *r = oxp_run(m, "cse");
    oxp_expect_graph(r, "ma=Mul(x,s1); mc=Mul(x,c1); wa=Add(x,w1); wb=Add(x,w2); "
                        "qa=QuantizeLinear(x,s1,z1); qb=QuantizeLinear(x,s1,z2); "
                        "y=Sum(ma,ma,mc,wa,wb); yq=Sub(qa,qb)");
    assert_int_equal(pt_fired(r, "common_subgraph", "mb"), 1);
    pt_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_bn_relu_values),
        cmocka_unit_test(test_conv_bn_clip_stripped),
        cmocka_unit_test(test_conv_bn_over_limit),
        cmocka_unit_test(test_conv_bn_wide_values),
        cmocka_unit_test(test_conv_bn_negative),
        cmocka_unit_test(test_conv_bn_training),
        cmocka_unit_test(test_matmul_add_gemm_act),
        cmocka_unit_test(test_matmul_add_nd_gemm),
        cmocka_unit_test(test_matmul_3d_symbolic_kept),
        cmocka_unit_test(test_fused_matmul_transpose_scale),
        cmocka_unit_test(test_fused_matmul_output_scale),
        cmocka_unit_test(test_fused_matmul_shared_transpose),
        cmocka_unit_test(test_fused_matmul_transpose_two_matmuls),
        cmocka_unit_test(test_skip_layer_norm),
        cmocka_unit_test(test_skip_layer_norm_2d_gamma),
        cmocka_unit_test(test_bias_gelu),
        cmocka_unit_test(test_gemm_transpose),
        cmocka_unit_test(test_output_folded_written),
        cmocka_unit_test(test_onnx_transposes),
        cmocka_unit_test(test_onnx_neutral_elements),
        cmocka_unit_test(test_slices_to_split),
        cmocka_unit_test(test_swish_quick_gelu),
        cmocka_unit_test(test_shape_chain_folds),
        cmocka_unit_test(test_gelu_exact),
        cmocka_unit_test(test_gelu_before_matmul_scale),
        cmocka_unit_test(test_reshape_fusion),
        cmocka_unit_test(test_eliminate_dropout),
        cmocka_unit_test(test_gelu_wrong_constant),
        cmocka_unit_test(test_layer_norm),
        cmocka_unit_test(test_layer_norm_other_axis),
        cmocka_unit_test(test_cse_onnx_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
