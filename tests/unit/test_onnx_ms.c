/*
 * test_onnx_ms.c - ONNX Runtime's contrib operators (com.microsoft) of
 * src/ops/onnxms/: exact shapes and counts derived by hand from each family
 * file's stated rule, and bad inputs failing with the node and input named
 * (LongformerAttention and QOrderedLongformerAttention among them).
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BiasGelu A [2,5,8] + B [8]: out [2,5,8], E = 80; Add 80 + Gelu 80 = 160
 * FLOPs. FastGelu with a bias: 160; without: 80. BiasAdd X [2,5,8] + bias
 * [8] + skip [2,5,8]: two adds, 160. None has MACs. */
static void test_bias_activations(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 5, 8}, NULL);
    ob_input(m, "s", OB_FLOAT, 3, (int64_t[]){2, 5, 8}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){8}, false);
    oc_ms_node(m, "BiasGelu", "bg", "a,b", "y1");
    oc_ms_node(m, "FastGelu", "fg", "a,b", "y2");
    oc_ms_node(m, "FastGelu", "fg1", "a", "y3");
    oc_ms_node(m, "BiasAdd", "ba", "a,b,s", "y4");
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const char *names[] = {"bg", "fg", "fg1", "ba"};
    const int64_t flops[] = {160, 160, 80, 160};
    for (int i = 0; i < 4; i++) {
        const fl_report_node *n = oc_node(r, names[i]);
        assert_string_equal(n->outputs[0].shape, "[2,5,8]");
        assert_string_equal(n->outputs[0].dtype, "float");
        oc_assert_cost(n, flops[i], 0);
    }
    fl_report_free(r);
    ob_free(m);
}

/* Symbolic rows: A [n,16] + B [16] through BiasGelu: [n,16], 2 * 16 * n =
 * 32*n FLOPs. */
static void test_bias_gelu_symbolic(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){-1, 16}, (const char *[]){"n", NULL});
    ob_init_f(m, "b", 1, (int64_t[]){16}, false);
    oc_ms_node(m, "BiasGelu", "bg", "a,b", "y");
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *n = oc_node(r, "bg");
    assert_string_equal(n->outputs[0].shape, "[n,16]");
    assert_string_equal(n->flops.text, "32*n");
    fl_report_free(r);
    ob_free(m);
}

/* SkipSimplifiedLayerNormalization input [2,3,8] + skip [2,3,8], gamma [8]:
 * E = 48, R = 6 rows. Without bias: skip add 48 + RMS norm 4 * 48 + 2 * 6 =
 * 48 + 192 + 12 = 252. With bias [8]: + 48 = 300. Outputs: output and
 * input_skip_bias_sum [2,3,8], mean/inv_std_var [2,3,1] float. */
static void test_skip_simplified_layer_norm(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "s", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_init_f(m, "g", 1, (int64_t[]){8}, false);
    ob_init_f(m, "b", 1, (int64_t[]){8}, false);
    oc_ms_node(m, "SkipSimplifiedLayerNormalization", "ln", "x,s,g", "y,mean,inv,sum");
    oc_ms_node(m, "SkipSimplifiedLayerNormalization", "lnb", "x,s,g,b", "y2");
    ob_output(m, "y");
    ob_output(m, "sum");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *n = oc_node(r, "ln");
    assert_string_equal(n->outputs[0].shape, "[2,3,8]");
    assert_string_equal(n->outputs[1].shape, "[2,3,1]");
    assert_string_equal(n->outputs[2].shape, "[2,3,1]");
    assert_string_equal(n->outputs[2].dtype, "float");
    assert_string_equal(n->outputs[3].shape, "[2,3,8]");
    oc_assert_cost(n, 252, 0);
    const fl_report_node *nb = oc_node(r, "lnb");
    assert_string_equal(nb->outputs[0].shape, "[2,3,8]");
    oc_assert_cost(nb, 300, 0);
    fl_report_free(r);
    ob_free(m);
}

/* The mean and inverse std dev outputs are of the schemas' type U, not X's:
 * SkipLayerNormalization's always float (its 4th output, the sum, is X's
 * type); LayerNormalization's stash_type's, float by default. X float16
 * (10), stash_type 16 bfloat16; an int stash_type fails naming the attr. */
static void test_layer_norm_stats_dtype(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", 10, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "s", 10, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "g", 10, 1, (int64_t[]){8}, NULL);
    ob_input(m, "b", 10, 1, (int64_t[]){8}, NULL);
    oc_ms_node(m, "SkipLayerNormalization", "sln", "x,s,g,b", "y,mean,inv,sum");
    ob_node(m, "LayerNormalization", "ln", "x,g,b", "y2,mean2,inv2");
    Onnx__NodeProto *n = ob_node(m, "LayerNormalization", "lnbf", "x,g,b", "y3,mean3");
    ob_attr_i(m, n, "stash_type", 16);
    ob_output(m, "y");
    ob_output(m, "sum");
    ob_output(m, "y2");
    ob_output(m, "y3");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "sln");
    const char *want[] = {"half", "float", "float", "half"};
    for (int k = 0; k < 4; k++) {
        assert_string_equal(a->outputs[k].dtype, want[k]);
    }
    assert_string_equal(a->outputs[1].shape, "[2,3,1]");
    a = oc_node(r, "ln");
    assert_string_equal(a->outputs[0].dtype, "half");
    assert_string_equal(a->outputs[1].dtype, "float");
    assert_string_equal(a->outputs[2].dtype, "float");
    a = oc_node(r, "lnbf");
    assert_string_equal(a->outputs[1].dtype, "bfloat16");
    assert_string_equal(a->outputs[1].shape, "[2,3,1]");
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){3, 8}, NULL);
    ob_init_f(m, "g", 1, (int64_t[]){8}, false);
    n = ob_node(m, "LayerNormalization", "bad", "x,g", "y,mean");
    ob_attr_i(m, n, "stash_type", 7);
    ob_output(m, "y");
    oc_expect_error(m, "node 'bad' (LayerNormalization): attr 'stash_type' is 7");
}

/* A bias or gamma whose length is not the last dim, a bias of rank 2, an
 * input of the wrong rank: errors naming node and input. */
static void test_bad_inputs(void **state) {
    (void)state;
    struct {
        const char *op, *in;
        int brank;
        int64_t bdims[2];
        const char *want;
    } cases[] = {
        {"BiasGelu", "a,b", 1, {7, 0}, "node 'bad' (BiasGelu): input 1 (B) and input 0's last dim"},
        {"FastGelu", "a,b", 2, {1, 8}, "node 'bad' (FastGelu): input 1 (bias) has rank 2, want 1"},
        {"BiasAdd", "a2,b,a2", 1, {8, 0}, "node 'bad' (BiasAdd): input 0 (X) has rank 2, want 3"},
        {"SkipSimplifiedLayerNormalization",
         "a,a,b",
         1,
         {9, 0},
         "node 'bad' (SkipSimplifiedLayerNormalization): input 2 (gamma)'s last dim"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 5, 8}, NULL);
        ob_input(m, "a2", OB_FLOAT, 2, (int64_t[]){5, 8}, NULL);
        ob_init_f(m, "b", cases[i].brank, cases[i].bdims, false);
        oc_ms_node(m, cases[i].op, "bad", cases[i].in, "y");
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* Attention, input [2,4,8], weights [8,24] (Hq = Hk = Hv = 8), bias [24],
 * num_heads 2 (head size 4), no past: T = S = 4. output [2,4,8], present
 * [2,2,2,4,4].
 *   projection MACs  2 * 4 * 8 * 24           = 1536
 *   Q K^T + weighted sum  B*N*S*T*(4 + 4) = 2*2*4*4*8 = 512
 *   MACs = 2048; scores B*N*S*T = 64
 *   FLOPs = 2 * 2048 + bias 2 * 4 * 24 + 6 * 64 = 4096 + 192 + 384 = 4672
 * With past [2,2,2,3,4] (P = 3, T = 7) and a mask [2,7]:
 *   MACs = 1536 + 2*2*4*7*8 = 1536 + 896 = 2432; scores 2*2*4*7 = 112
 *   FLOPs = 4864 + 192 + 7 * 112 = 5840; present [2,2,2,7,4]. */
static void test_attention(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 4, 8}, NULL);
    ob_input(m, "past", OB_FLOAT, 5, (int64_t[]){2, 2, 2, 3, 4}, NULL);
    ob_input(m, "mask", OB_INT32, 2, (int64_t[]){2, 7}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
    ob_init_f(m, "b", 1, (int64_t[]){24}, false);
    ob_attr_i(m, oc_ms_node(m, "Attention", "att", "x,w,b", "y,present"), "num_heads", 2);
    ob_attr_i(m, oc_ms_node(m, "Attention", "attp", "x,w,b,mask,past", "y2,present2"), "num_heads",
              2);
    ob_output(m, "y");
    ob_output(m, "present");
    ob_output(m, "y2");
    ob_output(m, "present2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "att");
    assert_string_equal(a->outputs[0].shape, "[2,4,8]");
    assert_string_equal(a->outputs[1].shape, "[2,2,2,4,4]");
    oc_assert_cost(a, 4672, 2048);
    const fl_report_node *p = oc_node(r, "attp");
    assert_string_equal(p->outputs[0].shape, "[2,4,8]");
    assert_string_equal(p->outputs[1].shape, "[2,2,2,7,4]");
    oc_assert_cost(p, 5840, 2432);
    fl_report_free(r);
    ob_free(m);
}

/* Valid nodes ONNX Runtime 1.30's CPU kernels refuse, so cli_onnx_ortsweep
 * cannot compare them (shapes from ContribOperators.md), num_heads 2:
 *   Attention input [2,3,8], weights [8,24], bias [24], a 4-D mask
 *     (2,1,4,4) (max_sequence_length 4): output [2,3,8].
 *   past_present_share_buffer 1, input [2,1,8], past [2,2,2,6,4] (the
 *     buffer), past_sequence_length 3: output [2,1,8], present the buffer.
 *   past [2,2,2,3,4] with attention_bias [2,2,2,5], input [2,2,8]: output
 *     [2,2,8], present [2,2,2,5,4].
 *   do_rotary 1, input [1,2,64], weights [64,192]: output [1,2,64].
 *   MoE with fc3 (silu, k 2), input [6,8], 4 experts, fc1 and fc3 (4,16,8),
 *     fc2 (4,8,16): output [6,8]. */
static void test_ms_nodes_ort_cannot_run(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, true);
    ob_init_f(m, "b", 1, (int64_t[]){24}, true);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "mask", OB_INT32, 4, (int64_t[]){2, 1, 4, 4}, NULL);
    ob_attr_i(m, oc_ms_node(m, "Attention", "mask4d", "x,w,b,mask", "y1"), "num_heads", 2);
    ob_input(m, "x1", OB_FLOAT, 3, (int64_t[]){2, 1, 8}, NULL);
    ob_input(m, "buf", OB_FLOAT, 5, (int64_t[]){2, 2, 2, 6, 4}, NULL);
    ob_init_raw(m, "psl", OB_INT32, 1, (int64_t[]){1}, (int32_t[]){3}, sizeof(int32_t));
    Onnx__NodeProto *n = oc_ms_node(m, "Attention", "share", "x1,w,b,,buf,,psl", "y2,present2");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "past_present_share_buffer", 1);
    ob_input(m, "x2", OB_FLOAT, 3, (int64_t[]){2, 2, 8}, NULL);
    ob_input(m, "past", OB_FLOAT, 5, (int64_t[]){2, 2, 2, 3, 4}, NULL);
    ob_input(m, "ab", OB_FLOAT, 4, (int64_t[]){2, 2, 2, 5}, NULL);
    ob_attr_i(m, oc_ms_node(m, "Attention", "pastbias", "x2,w,b,,past,ab", "y3,present3"),
              "num_heads", 2);
    ob_input(m, "x3", OB_FLOAT, 3, (int64_t[]){1, 2, 64}, NULL);
    ob_init_f(m, "wr", 2, (int64_t[]){64, 192}, true);
    ob_init_f(m, "br", 1, (int64_t[]){192}, true);
    n = oc_ms_node(m, "Attention", "rotary", "x3,wr,br", "y4");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "do_rotary", 1);
    ob_input(m, "xm", OB_FLOAT, 2, (int64_t[]){6, 8}, NULL);
    ob_input(m, "r", OB_FLOAT, 2, (int64_t[]){6, 4}, NULL);
    ob_init_f(m, "w1", 3, (int64_t[]){4, 16, 8}, true);
    ob_init_f(m, "w2", 3, (int64_t[]){4, 8, 16}, true);
    n = oc_ms_node(m, "MoE", "fc3", "xm,r,w1,,w2,,w1", "y5");
    ob_attr_i(m, n, "k", 2);
    ob_attr_s(m, n, "activation_type", "silu");
    ob_outputs(m, "y", 5);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(oc_node(r, "mask4d")->outputs[0].shape, "[2,3,8]");
    assert_string_equal(oc_node(r, "share")->outputs[0].shape, "[2,1,8]");
    assert_string_equal(oc_node(r, "share")->outputs[1].shape, "[2,2,2,6,4]");
    assert_string_equal(oc_node(r, "pastbias")->outputs[0].shape, "[2,2,8]");
    assert_string_equal(oc_node(r, "pastbias")->outputs[1].shape, "[2,2,2,5,4]");
    assert_string_equal(oc_node(r, "rotary")->outputs[0].shape, "[1,2,64]");
    assert_string_equal(oc_node(r, "fc3")->outputs[0].shape, "[6,8]");
    fl_report_free(r);
    ob_free(m);
}

/* Attention over a symbolic sequence s, input [1,s,8], weights [8,24], no
 * bias, num_heads 2, unidirectional (a causal mask counts the full score
 * matrix): MACs = s * 8 * 24 + s * s * (8 + 8) = 16*s^2 + 192*s; bound at
 * s = 5: 400 + 960 = 1360. qkv_hidden_sizes (8, 8, 16) with weights [8,32]:
 * output [1,s,16]. */
static void test_attention_symbolic(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, -1, 8}, (const char *[]){NULL, "s", NULL});
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
    ob_init_f(m, "w2", 2, (int64_t[]){8, 32}, false);
    Onnx__NodeProto *n = oc_ms_node(m, "Attention", "att", "x,w", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "unidirectional", 1);
    n = oc_ms_node(m, "Attention", "att2", "x,w2", "y2");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_ints(m, n, "qkv_hidden_sizes", 3, (int64_t[]){8, 8, 16});
    ob_output(m, "y");
    ob_output(m, "y2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "att");
    assert_string_equal(a->outputs[0].shape, "[1,s,8]");
    assert_string_equal(a->macs.text, "16*s^2 + 192*s");
    assert_string_equal(oc_node(r, "att2")->outputs[0].shape, "[1,s,16]");
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 5, 8}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
    ob_attr_i(m, oc_ms_node(m, "Attention", "att", "x,w", "y"), "num_heads", 2);
    ob_output(m, "y");
    r = oc_run(m, FL_OK);
    assert_int_equal(oc_node(r, "att")->macs.value, 1360);
    fl_report_free(r);
    ob_free(m);
}

/* Attention's bad attributes: each error names the node and attribute. */
static void test_attention_bad_attrs(void **state) {
    (void)state;
    struct {
        int64_t heads; /* 0: absent */
        int n_sizes;
        const char *want;
    } cases[] = {
        {0, 0, "node 'bad' (Attention): missing required attr 'num_heads'"},
        {-2, 0, "node 'bad' (Attention): attr 'num_heads' is -2, want > 0"},
        {3, 0, "node 'bad' (Attention): attr 'num_heads' 3 does not divide"},
        {2, 3,
         "node 'bad' (Attention): attr 'qkv_hidden_sizes' sums to 36, input 1 (weights) "
         "has 24 columns"},
        {2, 2, "node 'bad' (Attention): attr 'qkv_hidden_sizes' must be three positive ints"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 4, 8}, NULL);
        ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
        Onnx__NodeProto *n = oc_ms_node(m, "Attention", "bad", "x,w", "y");
        if (cases[i].heads) {
            ob_attr_i(m, n, "num_heads", cases[i].heads);
        }
        if (cases[i].n_sizes) {
            ob_attr_ints(m, n, "qkv_hidden_sizes", (size_t)cases[i].n_sizes,
                         (int64_t[]){12, 12, 12});
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* MatMulNBits, A [2,3,64] float, K 64, N 32, bits 4, block_size 32: B
 * [32, ceil(64/32) = 2, 32*4/8 = 16] uint8, scales [64]: Y [2,3,32].
 * Rows R = 6: MACs = 6 * 32 * 64 = 12288; FLOPs = 2 * 12288 + the scale's
 * multiply 32 * 64 = 24576 + 2048 = 26624; with bias [32]: + 6 * 32 =
 * 26816; int_ops = the zero point's subtraction 32 * 64 = 2048 (absent:
 * 8, still subtracted). With float zero points [64] the subtraction is
 * float: FLOPs 24576 + 2 * 2048 = 28672, int_ops 0. Bytes at the stored
 * widths: A 6*64*4 = 1536, B 32*2*16 = 1024 (two int4 per byte), scales
 * 64*4 = 256, Y 6*32*4 = 768: 3584 (+ bias 128 = 3712). */
static void test_matmul_nbits(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 3, 64}, NULL);
    ob_input(m, "b", 2 /* uint8 */, 3, (int64_t[]){32, 2, 16}, NULL);
    ob_init_f(m, "sc", 1, (int64_t[]){64}, false);
    ob_init_f(m, "bias", 1, (int64_t[]){32}, false);
    ob_init_f(m, "zpf", 1, (int64_t[]){64}, false);
    const char *ins[] = {"a,b,sc", "a,b,sc,,,bias", "a,b,sc,zpf"};
    const char *names[] = {"mm", "mmb", "mmz"};
    const char *outs[] = {"y", "y2", "y3"};
    for (int i = 0; i < 3; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "MatMulNBits", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "K", 64);
        ob_attr_i(m, n, "N", 32);
        ob_attr_i(m, n, "bits", 4);
        ob_attr_i(m, n, "block_size", 32);
    }
    ob_output(m, "y");
    ob_output(m, "y2");
    ob_output(m, "y3");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "mm");
    assert_string_equal(a->outputs[0].shape, "[2,3,32]");
    oc_assert_cost(a, 26624, 12288);
    assert_int_equal(a->int_ops.value, 2048);
    assert_int_equal(a->bytes.value, 3584);
    const fl_report_node *b = oc_node(r, "mmb");
    oc_assert_cost(b, 26816, 12288);
    assert_int_equal(b->int_ops.value, 2048);
    assert_int_equal(b->bytes.value, 3712);
    const fl_report_node *z = oc_node(r, "mmz");
    oc_assert_cost(z, 28672, 12288);
    assert_true(z->int_ops.known);
    assert_int_equal(z->int_ops.value, 0);
    fl_report_free(r);
    ob_free(m);
}

/* MatMulNBits' bad attributes and a B of the wrong packing. */
static void test_matmul_nbits_bad(void **state) {
    (void)state;
    struct {
        int64_t k, bits, block, bdim2;
        const char *want;
    } cases[] = {
        {0, 4, 32, 16, "node 'bad' (MatMulNBits): attr 'K' is 0, want > 0"},
        {64, 9, 32, 16, "node 'bad' (MatMulNBits): attr 'bits' is 9, want 2..8"},
        {64, 4, 24, 16, "node 'bad' (MatMulNBits): attr 'block_size' is 24"},
        {64, 4, 32, 32, "node 'bad' (MatMulNBits): input 1 (B)"},
        {48, 4, 32, 16, "node 'bad' (MatMulNBits): input 0 (A)'s last dim and attr 'K'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, 64}, NULL);
        ob_input(m, "b", 2, 3, (int64_t[]){32, 2, cases[i].bdim2}, NULL);
        ob_init_f(m, "sc", 1, (int64_t[]){64}, false);
        Onnx__NodeProto *n = oc_ms_node(m, "MatMulNBits", "bad", "a,b,sc", "y");
        ob_attr_i(m, n, "K", cases[i].k);
        ob_attr_i(m, n, "N", 32);
        ob_attr_i(m, n, "bits", cases[i].bits);
        ob_attr_i(m, n, "block_size", cases[i].block);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* The cuBLASLt orders QOrderedLongformerAttention's schema requires (row
 * major activations, column-major weights, as tests/tools/longformer_ort.py
 * gives ONNX Runtime). */
static void lf_orders(ob_model *m, Onnx__NodeProto *n) {
    ob_attr_i(m, n, "order_input", 1);
    ob_attr_i(m, n, "order_weight", 0);
    ob_attr_i(m, n, "order_global_weight", 0);
    ob_attr_i(m, n, "order_output", 1);
}

/* A Longformer model: input [1,s,4] (s = `seq`, or the symbol s when seq
 * < 0), weights, biases and mask; global flags [1,8] with tokens 0 and 5 set
 * (`flags`), else a graph input without value. num_heads 2, window 2.
 * `what` breaks it: 1 no window, 2 a mask of rank 1, 3 a weight [H, 2H], 4
 * (quant) no orders. */
static ob_model *longformer_model(int64_t seq, bool flags, bool quant, int64_t hidden, int what) {
    ob_model *m = oc_ms_model();
    const char *sym[] = {NULL, "s", NULL};
    int xt = quant ? 3 /* int8 */ : OB_FLOAT;
    ob_input(m, "x", xt, 3, (int64_t[]){1, seq, hidden}, seq < 0 ? sym : NULL);
    ob_input(m, "w", xt, 2, (int64_t[]){hidden, (what == 3 ? 2 : 3) * hidden}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){3 * hidden}, false);
    if (what == 2) {
        ob_input(m, "mask", OB_FLOAT, 1, (int64_t[]){seq}, NULL);
    } else {
        ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){1, seq}, seq < 0 ? sym : NULL);
    }
    ob_init_f(m, "sc", 0, NULL, false);
    if (flags) {
        ob_init_i64(m, "g", 2, (int64_t[]){1, 8}, (int64_t[]){1, 0, 0, 0, 0, 1, 0, 0});
    } else {
        ob_input(m, "g", OB_INT32, 2, (int64_t[]){1, seq}, seq < 0 ? sym : NULL);
    }
    const char *in = quant ? "x,sc,w,sc,b,sc,sc,mask,w,sc,b,sc,g,sc" : "x,w,b,mask,w,b,g";
    Onnx__NodeProto *n =
        oc_ms_node(m, quant ? "QOrderedLongformerAttention" : "LongformerAttention", "lf", in, "y");
    ob_attr_i(m, n, "num_heads", 2);
    if (what != 1) {
        ob_attr_i(m, n, "window", 2);
    }
    if (quant && what != 4) {
        lf_orders(m, n);
    }
    ob_output(m, "y");
    return m;
}

/* LongformerAttention, B 1, S 8, H 4, N 2 (d 2), W 2.
 * Band scores per head: query i attends keys max(i-2,0)..min(i+2,7): i = 0
 * 3, i = 1 4, i = 2..5 5 each (20), i = 6 4, i = 7 3: 34 = 8 * 5 - 2 * 3
 * (S * (2W + 1) - W * (W + 1)). Projections, local and global, over all 8
 * tokens: 2 * 8 * 4 * 12 = 768 MACs; B * S * 3H = 96 projected elements
 * each.
 * Flags with G = 2 set: each adds its row and column, 2 * 8 * 2 = 32 scores
 * per head, 34 + 32 = 66 per head, 132 scores; 2 * d = 4 MACs each: 528.
 *   MACs = 768 + 528 = 1296; FLOPs = 2 * 1296 + 2 * 96 (biases) + 7 * 132
 *   = 2592 + 192 + 924 = 3708.
 * Flags without value: G counted 0 (warning): 68 scores, 272 MACs;
 *   MACs = 1040; FLOPs = 2080 + 192 + 476 = 2748.
 * Symbolic s, flags without value: band 5*s - 6 per head, projections
 *   2 * s * 4 * 12 = 96*s, attention 2 * 2 * 2 * (5*s - 6) = 40*s - 48:
 *   MACs 136*s - 48 (1040 at s = 8, as above); FLOPs 2 * (136*s - 48) + 24*s
 *   + 7 * 2 * (5*s - 6) = 366*s - 180 (2748 at s = 8). */
static void test_longformer_attention(void **state) {
    (void)state;
    ob_model *m = longformer_model(8, true, false, 4, 0);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *n = oc_node(r, "lf");
    assert_string_equal(n->outputs[0].shape, "[1,8,4]");
    assert_string_equal(n->outputs[0].dtype, "float");
    oc_assert_cost(n, 3708, 1296);
    assert_false(fl_test_has_warning(r, "'lf'", "lower bound"));
    fl_report_free(r);
    ob_free(m);

    m = longformer_model(8, false, false, 4, 0);
    r = oc_run(m, FL_OK);
    oc_assert_cost(oc_node(r, "lf"), 2748, 1040);
    assert_true(fl_test_has_warning(r, "'lf'", "input 6 (global) has no known value"));
    assert_true(fl_test_has_warning(r, "'lf'", "lower bound"));
    fl_report_free(r);
    ob_free(m);

    m = longformer_model(-1, false, false, 4, 0);
    r = oc_run(m, FL_OK);
    n = oc_node(r, "lf");
    assert_string_equal(n->outputs[0].shape, "[1,s,4]");
    assert_string_equal(n->macs.text, "136*s - 48");
    assert_string_equal(n->flops.text, "366*s - 180");
    fl_report_free(r);
    ob_free(m);
}

/* QOrderedLongformerAttention, the same shapes int8 (B 1, S 8, H 4, N 2,
 * W 2): the two projections are int8 GEMMs, 2 * 768 = 1536 int_ops; the
 * attention float: with G = 2, 132 scores, 528 MACs;
 *   FLOPs = 2 * 528 + 7 * 132 + 2 * 3 * 96 (scale, bias, round of both
 *   projections) + 2 * 96 (their dequantization) + 2 * 8 * 4 (output) =
 *   1056 + 924 + 576 + 192 + 64 = 2812.
 * Flags without value: 68 scores, 272 MACs; FLOPs 544 + 476 + 576 + 192 +
 *   64 = 1852; int_ops 1536. */
static void test_qordered_longformer_attention(void **state) {
    (void)state;
    ob_model *m = longformer_model(8, true, true, 4, 0);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *n = oc_node(r, "lf");
    assert_string_equal(n->outputs[0].shape, "[1,8,4]");
    assert_string_equal(n->outputs[0].dtype, "int8");
    assert_true(n->has_rule && !n->incomplete);
    assert_int_equal(n->macs.value, 528);
    assert_int_equal(n->flops.value, 2812);
    assert_int_equal(n->int_ops.value, 1536);
    fl_report_free(r);
    ob_free(m);

    m = longformer_model(8, false, true, 4, 0);
    r = oc_run(m, FL_OK);
    n = oc_node(r, "lf");
    assert_int_equal(n->macs.value, 272);
    assert_int_equal(n->flops.value, 1852);
    assert_int_equal(n->int_ops.value, 1536);
    assert_true(fl_test_has_warning(r, "'lf'", "input 12 (global) has no known value"));
    fl_report_free(r);
    ob_free(m);
}

/* The weights in ORT's format 0 (its kernels' input checks accept both):
 * weight and global_weight (3, H, H), bias (5H: Q, K, V, global K, global
 * V), global_bias (H: global Q). The same projections: B 1, S 8, H 4, N 2,
 * W 2 with tokens 0 and 5 global count as test_longformer_attention's:
 * MACs 768 + 528 = 1296; the bias adds are 5H + H = 6H = 24 per token, 192
 * as format 1's 3H + 3H: FLOPs 3708. `what` breaks it: 1 a bias of 3H (12,
 * format 1's), 2 a global_weight (H, 3H), 3 a weight of rank 4. */
static ob_model *longformer_f0_model(bool quant, int what) {
    ob_model *m = oc_ms_model();
    int xt = quant ? 3 /* int8 */ : OB_FLOAT;
    ob_input(m, "x", xt, 3, (int64_t[]){1, 8, 4}, NULL);
    if (what == 3) {
        ob_input(m, "w", xt, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    } else {
        ob_input(m, "w", xt, 3, (int64_t[]){3, 4, 4}, NULL);
    }
    ob_input(m, "gw", xt, what == 2 ? 2 : 3, what == 2 ? (int64_t[]){4, 12} : (int64_t[]){3, 4, 4},
             NULL);
    ob_init_f(m, "b", 1, (int64_t[]){what == 1 ? 12 : 20}, false);
    ob_init_f(m, "gb", 1, (int64_t[]){4}, false);
    ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){1, 8}, NULL);
    ob_init_f(m, "sc", 0, NULL, false);
    ob_init_i64(m, "g", 2, (int64_t[]){1, 8}, (int64_t[]){1, 0, 0, 0, 0, 1, 0, 0});
    const char *in = quant ? "x,sc,w,sc,b,sc,sc,mask,gw,sc,gb,sc,g,sc" : "x,w,b,mask,gw,gb,g";
    Onnx__NodeProto *n =
        oc_ms_node(m, quant ? "QOrderedLongformerAttention" : "LongformerAttention", "lf", in, "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "window", 2);
    if (quant) {
        lf_orders(m, n);
    }
    ob_output(m, "y");
    return m;
}

static void test_longformer_format0(void **state) {
    (void)state;
    ob_model *m = longformer_f0_model(false, 0);
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *n = oc_node(r, "lf");
    assert_string_equal(n->outputs[0].shape, "[1,8,4]");
    oc_assert_cost(n, 3708, 1296);
    fl_report_free(r);
    ob_free(m);
    m = longformer_f0_model(true, 0); /* as test_qordered_longformer_attention */
    r = oc_run(m, FL_OK);
    n = oc_node(r, "lf");
    assert_string_equal(n->outputs[0].dtype, "int8");
    assert_int_equal(n->macs.value, 528);
    assert_int_equal(n->flops.value, 2812);
    assert_int_equal(n->int_ops.value, 1536);
    fl_report_free(r);
    ob_free(m);
    static const char *const want[] = {
        NULL,
        "node 'lf' (LongformerAttention): input 2 (bias) has dim 0 of 12, want 20",
        "node 'lf' (LongformerAttention): input 4 (global_weight) has rank 2, want 3",
        "node 'lf' (LongformerAttention): input 1 (weight) has rank 4, want 2 (hidden, 3 * "
        "hidden) or 3 (3, hidden, hidden)",
    };
    for (int what = 1; what <= 3; what++) {
        m = longformer_f0_model(false, what);
        oc_expect_error(m, want[what]);
    }
}

/* Bad Longformer inputs fail naming the node and the attr or input: S 6
 * not a multiple of 2W = 4; H 5 not divisible by num_heads 2; window
 * absent; a mask of rank 1; a weight [4,8] (3H = 12 columns wanted); the
 * quantized form without the cuBLASLt orders its schema requires. */
static void test_longformer_bad(void **state) {
    (void)state;
    struct {
        int64_t seq, hidden;
        bool quant;
        int what; /* 0 as built, 1 no window, 2 mask rank 1, 3 weight [4,8], 4 no orders */
        const char *want;
    } cases[] = {
        {6, 4, false, 0,
         "node 'lf' (LongformerAttention): input 0 (input)'s sequence length 6 is not a "
         "multiple of 2 * attr 'window' (4)"},
        {8, 5, true, 0,
         "node 'lf' (QOrderedLongformerAttention): input 0 (input)'s hidden size 5 is not "
         "divisible by attr 'num_heads' 2"},
        {8, 4, false, 1, "node 'lf' (LongformerAttention): missing required attr 'window'"},
        {8, 4, false, 2, "node 'lf' (LongformerAttention): input 3 (mask) has rank 1, want 2"},
        {8, 4, true, 3,
         "node 'lf' (QOrderedLongformerAttention): input 2 (weight) has dim 1 of 8, want 12"},
        {8, 4, true, 4,
         "node 'lf' (QOrderedLongformerAttention): missing required attr 'order_input' (int)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m =
            longformer_model(cases[i].seq, false, cases[i].quant, cases[i].hidden, cases[i].what);
        oc_expect_error(m, cases[i].want);
    }
}

/* GroupNorm (com.microsoft, Stable Diffusion's UNet as ORT optimises it): X
 * (2,4,4,8) NHWC, groups 4, E = 256: onnx GroupNormalization's 8 per element
 * (2048) + SiLU 1 per element with activation 1: 2304; NCHW (2,8,4,4),
 * channels_last 0, activation 0: 2048. SkipGroupNorm X (2,4,4,8), skip
 * (2,8), bias (8), activation 1: + skip add + bias add: 11 * 256 = 2816,
 * outputs Y and S (2,4,4,8). BiasSplitGelu X (2,16,20), bias (20): Y
 * (2,16,10), E(Y) = 320: bias add 640 + Gelu 320 + multiply 320 = 1280. */
static void test_group_norm_split_gelu(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){2, 4, 4, 8}, NULL);
    ob_input(m, "xc", OB_FLOAT, 4, (int64_t[]){2, 8, 4, 4}, NULL);
    ob_input(m, "skip", OB_FLOAT, 2, (int64_t[]){2, 8}, NULL);
    ob_input(m, "h", OB_FLOAT, 3, (int64_t[]){2, 16, 20}, NULL);
    ob_init_f(m, "g", 1, (int64_t[]){8}, false);
    ob_init_f(m, "b20", 1, (int64_t[]){20}, false);
    Onnx__NodeProto *a = oc_ms_node(m, "GroupNorm", "gn", "x,g,g", "y");
    Onnx__NodeProto *b = oc_ms_node(m, "GroupNorm", "gnc", "xc,g,g", "yc");
    Onnx__NodeProto *s = oc_ms_node(m, "SkipGroupNorm", "sgn", "x,g,g,skip,g", "ys,sum");
    oc_ms_node(m, "BiasSplitGelu", "bsg", "h,b20", "z");
    Onnx__NodeProto *all[] = {a, b, s};
    for (int i = 0; i < 3; i++) {
        ob_attr_i(m, all[i], "groups", 4);
        ob_attr_i(m, all[i], "activation", i != 1);
    }
    ob_attr_i(m, b, "channels_last", 0);
    static const char *const outs[] = {"y", "yc", "ys", "sum", "z"};
    for (int i = 0; i < 5; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *gn = oc_node(r, "gn");
    assert_string_equal(gn->outputs[0].shape, "[2,4,4,8]");
    oc_assert_cost(gn, 2304, 0);
    oc_assert_cost(oc_node(r, "gnc"), 2048, 0);
    const fl_report_node *sg = oc_node(r, "sgn");
    assert_string_equal(sg->outputs[1].shape, "[2,4,4,8]");
    oc_assert_cost(sg, 2816, 0);
    const fl_report_node *z = oc_node(r, "bsg");
    assert_string_equal(z->outputs[0].shape, "[2,16,10]");
    oc_assert_cost(z, 1280, 0);
    fl_report_free(r);
    ob_free(m);
}

/* BiasSoftmax data (2,4,8,8), bias (2,1,8,8) broadcast: (2,4,8,8), E 512:
 * the add + Softmax's 5 = 6 * 512 = 3072. BiasDropout data (2,5,16), bias
 * (16), residual (2,5,16): output (2,5,16) and a bool mask, 2 adds * 160 =
 * 320; without residual 160. GemmFastGelu X (b,s,16), W (16,32), bias (32):
 * (b,s,32), MACs b*s*16*32 = 512*b*s, FLOPs 2 * MACs + FastGelu E + the bias
 * E (E = 32*b*s): 1024*b*s + 64*b*s = 1088*b*s. */
static void test_bias_softmax_dropout_gemm_gelu(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "d", OB_FLOAT, 4, (int64_t[]){2, 4, 8, 8}, NULL);
    ob_input(m, "mask", OB_FLOAT, 4, (int64_t[]){2, 1, 8, 8}, NULL);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 5, 16}, NULL);
    ob_input(m, "xs", OB_FLOAT, 3, (int64_t[]){-1, -1, 16}, (const char *[]){"b", "s", 0});
    ob_init_f(m, "b16", 1, (int64_t[]){16}, false);
    ob_init_f(m, "b32", 1, (int64_t[]){32}, false);
    ob_init_f(m, "w", 2, (int64_t[]){16, 32}, false);
    Onnx__NodeProto *n = oc_ms_node(m, "BiasSoftmax", "bs", "d,mask", "y1");
    ob_attr_i(m, n, "axis", 3);
    ob_attr_i(m, n, "is_inner_broadcast", 0);
    oc_ms_node(m, "BiasDropout", "bd", "x,b16,x", "y2,m2");
    oc_ms_node(m, "BiasDropout", "bd1", "x,b16", "y3");
    oc_ms_node(m, "GemmFastGelu", "gg", "xs,w,b32", "y4");
    static const char *const outs[] = {"y1", "y2", "m2", "y3", "y4"};
    for (int i = 0; i < 5; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *bs = oc_node(r, "bs"), *bd = oc_node(r, "bd"), *gg = oc_node(r, "gg");
    assert_string_equal(bs->outputs[0].shape, "[2,4,8,8]");
    oc_assert_cost(bs, 3072, 0);
    assert_string_equal(bd->outputs[0].shape, "[2,5,16]");
    assert_string_equal(bd->outputs[1].dtype, "bool");
    assert_string_equal(bd->outputs[1].shape, "[2,5,16]");
    oc_assert_cost(bd, 320, 0);
    oc_assert_cost(oc_node(r, "bd1"), 160, 0);
    assert_string_equal(gg->outputs[0].shape, "[b,s,32]");
    assert_string_equal(gg->macs.text, "512*b*s");
    assert_string_equal(gg->flops.text, "1088*b*s");
    fl_report_free(r);
    ob_free(m);
}

/* Bad inputs of the three fail naming node and input or attr. */
static void test_bias_softmax_dropout_gemm_gelu_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "node 'bad' (GemmFastGelu): input 2 (bias) and the output's last dim disagree: 32 vs 16",
        "node 'bad' (BiasDropout): input 2 (residual) and input 0 (data) disagree: 16 vs 8",
        "node 'bad' (BiasSoftmax): missing required attr 'is_inner_broadcast'",
    };
    for (int i = 0; i < 3; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 5, 16}, NULL);
        ob_input(m, "r", OB_FLOAT, 3, (int64_t[]){2, 5, 8}, NULL);
        ob_init_f(m, "b16", 1, (int64_t[]){16}, false);
        ob_init_f(m, "w", 2, (int64_t[]){16, 32}, false);
        if (i == 0) {
            oc_ms_node(m, "GemmFastGelu", "bad", "x,w,b16", "y");
        } else if (i == 1) {
            oc_ms_node(m, "BiasDropout", "bad", "x,b16,r", "y");
        } else {
            oc_ms_node(m, "BiasSoftmax", "bad", "x,b16", "y");
        }
        ob_output(m, "y");
        oc_expect_error(m, want[i]);
    }
}

/* Bad GroupNorm / BiasSplitGelu inputs fail naming node and attr or input:
 * 8 channels in 3 groups; a gamma of 6; activation 2; X of rank 3; an odd
 * BiasSplitGelu width. */
static void test_group_norm_bad(void **state) {
    (void)state;
    struct {
        int64_t groups, gamma, act, rank, width;
        const char *want;
    } cases[] = {
        {3, 8, 1, 4, 20,
         "node 'gn' (GroupNorm): input 0 (X) has 8 channels, not a multiple of attr 'groups' 3"},
        {4, 6, 1, 4, 20,
         "node 'gn' (GroupNorm): the channels of input 0 (X) and input 1 (gamma) disagree: 8 vs 6"},
        {4, 8, 2, 4, 20,
         "node 'gn' (GroupNorm): attr 'activation' is 2, want 0 (none) or 1 (SiLU)"},
        {4, 8, 1, 3, 20, "node 'gn' (GroupNorm): input 0 (X) has rank 3, want 4 (N, H, W, C)"},
        {4, 8, 1, 4, 21,
         "node 'bsg' (BiasSplitGelu): input 0 (X)'s last dim 21 is odd: BiasSplitGelu halves it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, (int)cases[i].rank, (int64_t[]){2, 4, 4, 8}, NULL);
        ob_input(m, "h", OB_FLOAT, 3, (int64_t[]){2, 16, cases[i].width}, NULL);
        ob_init_f(m, "g", 1, (int64_t[]){cases[i].gamma}, false);
        ob_init_f(m, "b", 1, (int64_t[]){cases[i].width}, false);
        Onnx__NodeProto *n = oc_ms_node(m, "GroupNorm", "gn", "x,g,g", "y");
        ob_attr_i(m, n, "groups", cases[i].groups);
        ob_attr_i(m, n, "activation", cases[i].act);
        oc_ms_node(m, "BiasSplitGelu", "bsg", "h,b", "z");
        ob_output(m, "y");
        ob_output(m, "z");
        oc_expect_error(m, cases[i].want);
    }
}

/* Every com.microsoft attention op whose input 0 is (batch, sequence,
 * hidden) fails on a rank-2 input 0 naming the node, input 0 and the rank
 * it wants (the other inputs are copies of it: the check comes first). */
static void test_attention_input_rank(void **state) {
    (void)state;
    static const struct {
        const char *op;
        int n_in;
    } cases[] = {
        {"Attention", 2},          {"QAttention", 5},          {"DecoderMaskedSelfAttention", 7},
        {"QOrderedAttention", 17}, {"LongformerAttention", 7}, {"QOrderedLongformerAttention", 14},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
        char in[64] = "x";
        for (int k = 1; k < cases[i].n_in; k++) {
            strcat(in, ",x");
        }
        Onnx__NodeProto *n = oc_ms_node(m, cases[i].op, "bad", in, "y");
        ob_attr_i(m, n, "num_heads", 2);
        ob_attr_i(m, n, "window", 2);
        if (strncmp(cases[i].op, "QOrdered", 8) == 0) {
            lf_orders(m, n); /* QOrderedAttention's three are among them */
        }
        ob_output(m, "y");
        char want[160];
        snprintf(want, sizeof want,
                 "node 'bad' (%s): input 0 (input) has rank 2, want 3 (batch, sequence, hidden)",
                 cases[i].op);
        oc_expect_error(m, want);
    }
}

/* DecoderMaskedSelfAttention (Attention's rule and inputs 0-6), one
 * decoding step: input (2,1,8), weights (8,24), bias (24), num_heads 2 (D
 * = 4), a shared cache past (2,2,2,6,4) holding past_sequence_length 3
 * tokens: T = 3 + 1 = 4, present keeps (2,2,2,6,4).
 *   MACs  = projection 2*1*8*24 = 384 + B*N*S*T*(D + Dv) = 16 * 8 = 128: 512
 *   FLOPs = 1024 + bias 2*1*24 = 48 + 6 * 16 = 96: 1168; with a mask (2,4)
 *           + 16: 1184.
 * Attention with the same inputs and past_present_share_buffer 1 counts the
 * same; without the attribute the past is concatenated: T = 6 + 1 = 7,
 * present (2,2,2,7,4), MACs 384 + 2*2*7*8 = 608. */
static void test_decoder_masked_self_attention(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 1, 8}, NULL);
    ob_input(m, "past", OB_FLOAT, 5, (int64_t[]){2, 2, 2, 6, 4}, NULL);
    ob_input(m, "mask", OB_INT32, 2, (int64_t[]){2, 4}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
    ob_init_f(m, "b", 1, (int64_t[]){24}, false);
    int32_t three = 3;
    ob_init_raw(m, "psl", OB_INT32, 1, (int64_t[]){1}, &three, sizeof three);
    static const struct {
        const char *op, *name, *in;
        int64_t share;
    } nodes[] = {
        {"DecoderMaskedSelfAttention", "dmsa", "x,w,b,,past,,psl", 1},
        {"DecoderMaskedSelfAttention", "dmsa_mask", "x,w,b,mask,past,,psl", 1},
        {"Attention", "att_shared", "x,w,b,,past,,psl", 1},
        {"Attention", "att", "x,w,b,,past", 0},
    };
    char y[16], pr[16];
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        snprintf(y, sizeof y, "y%zu", i);
        snprintf(pr, sizeof pr, "p%zu", i);
        char outs[40];
        snprintf(outs, sizeof outs, "%s,%s", y, pr);
        Onnx__NodeProto *n = oc_ms_node(m, nodes[i].op, nodes[i].name, nodes[i].in, outs);
        ob_attr_i(m, n, "num_heads", 2);
        if (nodes[i].share) {
            ob_attr_i(m, n, "past_present_share_buffer", 1);
        }
        ob_output(m, y);
        ob_output(m, pr);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const char *shared[] = {"dmsa", "dmsa_mask", "att_shared"};
    for (int i = 0; i < 3; i++) {
        const fl_report_node *a = oc_node(r, shared[i]);
        assert_string_equal(a->outputs[0].shape, "[2,1,8]");
        assert_string_equal(a->outputs[1].shape, "[2,2,2,6,4]");
        oc_assert_cost(a, i == 1 ? 1184 : 1168, 512);
    }
    const fl_report_node *a = oc_node(r, "att");
    assert_string_equal(a->outputs[1].shape, "[2,2,2,7,4]");
    assert_int_equal(a->macs.value, 608);
    fl_report_free(r);
    ob_free(m);
}

/* MoE (src/ops/onnxms/moe.c's rule), 4 experts, H 8, I 16, k 2: R = T * 2
 * routed rows.
 *   relu, input (3,8), fc1 (4,16,8) with bias (4,16), fc2 (4,8,16): T 3, R
 *   6; MACs = 6 * 8 * 16 * 2 = 1536; FLOPs = 3072 + fc1 bias 6 * 16 = 96 +
 *   relu 96 + weighted sum 6 * 2 * 8 = 96 + softmax 5 * 3 * 4 = 60 = 3420.
 *   The same over a symbolic n tokens, no bias: MACs 512*n, FLOPs 1024n +
 *   32n + 32n + 20n = 1108*n.
 *   swiglu fused in FC1 (swiglu_fusion 1, fc1 (4,32,8)) with swiglu_limit,
 *   fc2 bias (4,8), normalize_routing_weights, k 1, input (2,3,8): T 6, R
 *   6; MACs = 6 * 8 * 16 * 3 = 2304; FLOPs = 4608 + 6 * (swiglu 8 * 16 +
 *   2 * 8 + fc2 bias 8 = 152) = 912 + softmax 120 + normalize 12 = 5652.
 * QMoE, 4-bit (two to a byte), relu, k 2, no bias: fc1 (4,16,4), fc2
 * (4,8,8) uint8 unpack to MoE's first case: MACs 1536, FLOPs 3072 + 96 +
 * 96 + 60 = 3324.
 * The older transposed layout counts the same: relu_old fc1 (4,8,16), fc2
 * (4,16,8); swiglu_old fc1 (4,8,32); q4_old fc1 (4,8,8), fc2 (4,16,4).
 * H == I == 8 with SwiGLU fused (k 1, no limit), input (2,8): fc1 (4,16,8)
 * documented, (4,8,16) older, fc2 (4,8,8) either: T 2, R 2; MACs 2 * 8 * 8
 * * 3 = 384; FLOPs 768 + 2 * (swiglu 5 * 8 + 2 * 8) 112 + softmax 40 = 920. */
static void test_moe(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){3, 8}, NULL);
    ob_input(m, "r", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "xs", OB_FLOAT, 2, (int64_t[]){-1, 8}, (const char *[]){"n", NULL});
    ob_input(m, "rs", OB_FLOAT, 2, (int64_t[]){-1, 4}, (const char *[]){"n", NULL});
    ob_input(m, "x3", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "r3", OB_FLOAT, 2, (int64_t[]){6, 4}, NULL);
    ob_init_f(m, "w1", 3, (int64_t[]){4, 16, 8}, false);
    ob_init_f(m, "b1", 2, (int64_t[]){4, 16}, false);
    ob_init_f(m, "w2", 3, (int64_t[]){4, 8, 16}, false);
    ob_init_f(m, "w1s", 3, (int64_t[]){4, 32, 8}, false);
    ob_init_f(m, "b2", 2, (int64_t[]){4, 8}, false);
    ob_init_raw(m, "q1", 2, 3, (int64_t[]){4, 16, 4}, NULL, 0);
    ob_init_raw(m, "q2", 2, 3, (int64_t[]){4, 8, 8}, NULL, 0);
    ob_init_f(m, "s1", 2, (int64_t[]){4, 16}, false);
    ob_init_f(m, "s2", 2, (int64_t[]){4, 8}, false);
    ob_init_f(m, "w1o", 3, (int64_t[]){4, 8, 16}, false);
    ob_init_f(m, "w2o", 3, (int64_t[]){4, 16, 8}, false);
    ob_init_f(m, "w1so", 3, (int64_t[]){4, 8, 32}, false);
    ob_init_raw(m, "q1o", 2, 3, (int64_t[]){4, 8, 8}, NULL, 0);
    ob_init_raw(m, "q2o", 2, 3, (int64_t[]){4, 16, 4}, NULL, 0);
    ob_input(m, "xh", OB_FLOAT, 2, (int64_t[]){2, 8}, NULL);
    ob_input(m, "rh", OB_FLOAT, 2, (int64_t[]){2, 4}, NULL);
    ob_init_f(m, "w1h", 3, (int64_t[]){4, 16, 8}, false);
    ob_init_f(m, "w1ho", 3, (int64_t[]){4, 8, 16}, false);
    ob_init_f(m, "w2h", 3, (int64_t[]){4, 8, 8}, false);
    static const struct {
        const char *op, *name, *in, *act;
        int64_t k;
    } older[] = {
        {"MoE", "relu_old", "x,r,w1o,b1,w2o", "relu", 2},
        {"MoE", "swiglu_old", "x3,r3,w1so,,w2o,b2", "swiglu", 1},
        {"QMoE", "q4_old", "x,r,q1o,s1,,q2o,s2", "relu", 2},
        {"MoE", "hi", "xh,rh,w1h,,w2h", "swiglu", 1},
        {"MoE", "hi_old", "xh,rh,w1ho,,w2h", "swiglu", 1},
    };
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        Onnx__NodeProto *o = oc_ms_node(m, older[i].op, older[i].name, older[i].in, older[i].name);
        ob_attr_i(m, o, "k", older[i].k);
        ob_attr_s(m, o, "activation_type", older[i].act);
        if (!strcmp(older[i].act, "swiglu")) {
            ob_attr_i(m, o, "swiglu_fusion", 1);
        }
        if (!strcmp(older[i].name, "swiglu_old")) {
            ob_attr_f(m, o, "swiglu_limit", 7.0f);
            ob_attr_i(m, o, "normalize_routing_weights", 1);
        }
        if (!strcmp(older[i].op, "QMoE")) {
            ob_attr_i(m, o, "expert_weight_bits", 4);
        }
        ob_output(m, older[i].name);
    }
    Onnx__NodeProto *n = oc_ms_node(m, "MoE", "relu", "x,r,w1,b1,w2", "y1");
    ob_attr_i(m, n, "k", 2);
    n = oc_ms_node(m, "MoE", "sym", "xs,rs,w1,,w2", "y2");
    ob_attr_i(m, n, "k", 2);
    n = oc_ms_node(m, "MoE", "swiglu", "x3,r3,w1s,,w2,b2", "y3");
    ob_attr_i(m, n, "k", 1);
    ob_attr_s(m, n, "activation_type", "swiglu");
    ob_attr_i(m, n, "swiglu_fusion", 1);
    ob_attr_f(m, n, "swiglu_limit", 7.0f);
    ob_attr_i(m, n, "normalize_routing_weights", 1);
    n = oc_ms_node(m, "QMoE", "q4", "x,r,q1,s1,,q2,s2", "y4");
    ob_attr_i(m, n, "k", 2);
    ob_attr_i(m, n, "expert_weight_bits", 4);
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "relu");
    assert_string_equal(a->outputs[0].shape, "[3,8]");
    oc_assert_cost(a, 3420, 1536);
    a = oc_node(r, "sym");
    assert_string_equal(a->outputs[0].shape, "[n,8]");
    assert_string_equal(a->macs.text, "512*n");
    assert_string_equal(a->flops.text, "1108*n");
    a = oc_node(r, "swiglu");
    assert_string_equal(a->outputs[0].shape, "[2,3,8]");
    oc_assert_cost(a, 5652, 2304);
    a = oc_node(r, "q4");
    assert_string_equal(a->outputs[0].shape, "[3,8]");
    oc_assert_cost(a, 3324, 1536);
    static const struct {
        const char *name, *shape;
        int64_t flops, macs;
    } want[] = {
        {"relu_old", "[3,8]", 3420, 1536}, {"swiglu_old", "[2,3,8]", 5652, 2304},
        {"q4_old", "[3,8]", 3324, 1536},   {"hi", "[2,8]", 920, 384},
        {"hi_old", "[2,8]", 920, 384},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        a = oc_node(r, want[i].name);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        oc_assert_cost(a, want[i].flops, want[i].macs);
    }
    fl_report_free(r);
    ob_free(m);
}

/* MoE's bad inputs name the node and the attr or input. */
static void test_moe_bad(void **state) {
    (void)state;
    static const struct {
        const char *in, *act;
        int64_t k;
        const char *want;
    } cases[] = {
        {"x,r,w1,,w2", "relu", 5, "node 'bad' (MoE): attr 'k' 5 is more than the 4 experts"},
        {"x,r,w1,,w2", "tanh", 2,
         "node 'bad' (MoE): attr 'activation_type' is 'tanh' (relu, gelu, silu, swiglu or "
         "identity)"},
        {"x,r,w1,,w1", "relu", 2,
         "node 'bad' (MoE): input 2 (fc1_experts_weights, older layout "
         "(experts, hidden, inter))'s dim 1"},
        {"x,r,w1o20,,w2o", "relu", 2,
         "node 'bad' (MoE): input 2 (fc1_experts_weights, older layout (experts, hidden, inter)) "
         "has 20 columns, want 16 (1 * inter_size 16)"},
        {"x,r,w20,,w2", "relu", 2,
         "node 'bad' (MoE): input 2 (fc1_experts_weights) has 20 rows, want 16 (1 * inter_size "
         "16)"},
        {"x,r,w1,,b1", "relu", 2,
         "node 'bad' (MoE): input 4 (fc2_experts_weights) has rank 2, want 3"},
        {"x,r,w1,,w2", "swiglu", 2,
         "node 'bad' (MoE): attr 'activation_type' swiglu with attr 'swiglu_fusion' 0 needs "
         "fc3_experts_weights"},
        {"x,r,w1,,w2", "relu", 0, "node 'bad' (MoE): missing required attr 'k'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){3, 8}, NULL);
        ob_input(m, "r", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
        ob_init_f(m, "w1", 3, (int64_t[]){4, 16, 8}, false);
        ob_init_f(m, "w20", 3, (int64_t[]){4, 20, 8}, false);
        ob_init_f(m, "b1", 2, (int64_t[]){4, 16}, false);
        ob_init_f(m, "w2", 3, (int64_t[]){4, 8, 16}, false);
        ob_init_f(m, "w1o20", 3, (int64_t[]){4, 8, 20}, false);
        ob_init_f(m, "w2o", 3, (int64_t[]){4, 16, 8}, false);
        Onnx__NodeProto *n = oc_ms_node(m, "MoE", "bad", cases[i].in, "y");
        if (cases[i].k) {
            ob_attr_i(m, n, "k", cases[i].k);
        }
        ob_attr_s(m, n, "activation_type", cases[i].act);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* NhwcConv and NhwcFusedConv: Conv's and FusedConv's counts on
 * channels-last X and Y (ONNX Runtime 1.30's shape inference gives the
 * same three output shapes when it loads these nodes; its CPU provider has
 * no kernel for them).
 *   X (1,5,5,3), W (4,3,3,3), pads 1, bias: Y (1,5,5,4), E(Y) 100; MACs =
 *   100 * 27 = 2700; FLOPs 5400 + bias 100 = 5500. Fused with activation
 *   Relu and Z (1,5,5,4): + 100 + 100 = 5700.
 *   X (1,6,6,4), W (4,2,3,3), group 2, strides 2: Y (1,2,2,4), E(Y) 16;
 *   MACs 16 * 18 = 288, FLOPs 576. */
static void test_nhwc_conv(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 5, 5, 3}, NULL);
    ob_input(m, "x2", OB_FLOAT, 4, (int64_t[]){1, 6, 6, 4}, NULL);
    ob_input(m, "z", OB_FLOAT, 4, (int64_t[]){1, 5, 5, 4}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){4, 3, 3, 3}, false);
    ob_init_f(m, "w2", 4, (int64_t[]){4, 2, 3, 3}, false);
    ob_init_f(m, "b", 1, (int64_t[]){4}, false);
    Onnx__NodeProto *n = oc_ms_node(m, "NhwcConv", "c1", "x,w,b", "y1");
    ob_attr_ints(m, n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    n = oc_ms_node(m, "NhwcConv", "c2", "x2,w2", "y2");
    ob_attr_i(m, n, "group", 2);
    ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
    n = oc_ms_node(m, "NhwcFusedConv", "c3", "x,w,b,z", "y3");
    ob_attr_ints(m, n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_s(m, n, "activation", "Relu");
    ob_outputs(m, "y", 3);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "c1");
    assert_string_equal(a->outputs[0].shape, "[1,5,5,4]");
    oc_assert_cost(a, 5500, 2700);
    a = oc_node(r, "c2");
    assert_string_equal(a->outputs[0].shape, "[1,2,2,4]");
    oc_assert_cost(a, 576, 288);
    a = oc_node(r, "c3");
    assert_string_equal(a->outputs[0].shape, "[1,5,5,4]");
    oc_assert_cost(a, 5700, 2700);
    fl_report_free(r);
    ob_free(m);
}

/* NhwcConv's W as ONNX Runtime's NHWC fusion writes it, (M, kH, kW, C/g):
 * X (1,8,8,4), W (6,3,3,4), pads 1: Y (1,8,8,6), MACs 384 * 36 = 13824;
 * the documented (6,4,3,3) gives the same. X (1,6,6,2), W (4,2,3,2): both
 * layouts fit the channels; with kernel_shape (3,2) only the documented
 * one fits: kernel 3x2, Y (1,4,5,4); without it the fusion's layout is
 * read: kernel 2x3, Y (1,5,4,4); 80 outputs * 12 = 960 MACs either way. */
static void test_nhwc_conv_weight_layout(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 8, 4}, NULL);
    ob_input(m, "x2", OB_FLOAT, 4, (int64_t[]){1, 6, 6, 2}, NULL);
    ob_init_f(m, "wl", 4, (int64_t[]){6, 3, 3, 4}, false);
    ob_init_f(m, "wf", 4, (int64_t[]){6, 4, 3, 3}, false);
    ob_init_f(m, "w2", 4, (int64_t[]){4, 2, 3, 2}, false);
    ob_attr_ints(m, oc_ms_node(m, "NhwcConv", "last", "x,wl", "y1"), "pads", 4,
                 (int64_t[]){1, 1, 1, 1});
    ob_attr_ints(m, oc_ms_node(m, "NhwcConv", "first", "x,wf", "y2"), "pads", 4,
                 (int64_t[]){1, 1, 1, 1});
    ob_attr_ints(m, oc_ms_node(m, "NhwcConv", "ks", "x2,w2", "y3"), "kernel_shape", 2,
                 (int64_t[]){3, 2});
    oc_ms_node(m, "NhwcConv", "noks", "x2,w2", "y4");
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    static const struct {
        const char *node, *shape;
        int64_t macs;
    } want[] = {{"last", "[1,8,8,6]", 13824},
                {"first", "[1,8,8,6]", 13824},
                {"ks", "[1,4,5,4]", 960},
                {"noks", "[1,5,4,4]", 960}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *a = oc_node(r, want[i].node);
        assert_string_equal(a->outputs[0].shape, want[i].shape);
        oc_assert_cost(a, 2 * want[i].macs, want[i].macs);
    }
    fl_report_free(r);
    ob_free(m);
}

/* RelativePositionBias (posbias.c's rule): bias_table (32,4), query_length
 * 5, key_length 7 (int64 initializers), max_distance 16, bidirectional:
 * output (1,4,5,7); 5 * 7 pairs * (9 + 1) = 350 FLOPs. A query_length
 * without a value (a graph input) leaves its dim and the count unknown.
 * GatedRelativePositionBias, num_heads 2: query_layer (2,3,8) (Dh 4),
 * weight (4,6) (D 6): output (2,2,3,3), E 36; Q = 48, R = 12 rows;
 *   MACs = 48 * 6 = 288; FLOPs = 576 + 48 + 12 * (12 + 4) + 36 = 852.
 * Packed, query_layer (5,8) with token_offset (2,3): output (2,2,3,3);
 *   Q 40, R 10: MACs 240, FLOPs 480 + 40 + 160 + 36 = 716. */
static void test_position_bias(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "qlen_in", OB_INT64, 0, NULL, NULL);
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_input(m, "qp", OB_FLOAT, 2, (int64_t[]){5, 8}, NULL);
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "rel", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 3}, NULL);
    ob_init_f(m, "table", 2, (int64_t[]){32, 4}, false);
    ob_init_i64(m, "five", 0, NULL, (int64_t[]){5});
    ob_init_i64(m, "seven", 0, NULL, (int64_t[]){7});
    ob_init_f(m, "qb", 1, (int64_t[]){8}, false);
    ob_init_f(m, "w", 2, (int64_t[]){4, 6}, false);
    ob_init_f(m, "b", 1, (int64_t[]){6}, false);
    ob_init_f(m, "eco", 4, (int64_t[]){1, 2, 1, 1}, false);
    Onnx__NodeProto *n = oc_ms_node(m, "RelativePositionBias", "rpb", "table,five,seven", "y1");
    ob_attr_i(m, n, "max_distance", 16);
    ob_attr_i(m, n, "is_bidirectional", 1);
    n = oc_ms_node(m, "RelativePositionBias", "rpb_in", "table,qlen_in,seven", "y2");
    ob_attr_i(m, n, "max_distance", 16);
    n = oc_ms_node(m, "GatedRelativePositionBias", "gate", "q,qb,rel,w,b,eco", "y3");
    ob_attr_i(m, n, "num_heads", 2);
    n = oc_ms_node(m, "GatedRelativePositionBias", "gate_packed", "qp,qb,rel,w,b,eco,off", "y4");
    ob_attr_i(m, n, "num_heads", 2);
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "rpb");
    assert_string_equal(a->outputs[0].shape, "[1,4,5,7]");
    oc_assert_cost(a, 350, 0);
    a = oc_node(r, "rpb_in");
    assert_non_null(strstr(a->outputs[0].shape, "?"));
    assert_true(a->incomplete);
    a = oc_node(r, "gate");
    assert_string_equal(a->outputs[0].shape, "[2,2,3,3]");
    oc_assert_cost(a, 852, 288);
    a = oc_node(r, "gate_packed");
    assert_string_equal(a->outputs[0].shape, "[2,2,3,3]");
    oc_assert_cost(a, 716, 240);
    fl_report_free(r);
    ob_free(m);
}

/* The position biases' bad inputs name the node and the attr or input. */
static void test_position_bias_bad(void **state) {
    (void)state;
    static const struct {
        const char *op, *in;
        int64_t attr;
        const char *want;
    } cases[] = {
        {"RelativePositionBias", "table,five,five", 0,
         "node 'bad' (RelativePositionBias): missing required attr 'max_distance'"},
        {"RelativePositionBias", "q,five,five", 16,
         "node 'bad' (RelativePositionBias): input 0 (bias_table) has rank 3, want 2"},
        {"RelativePositionBias", "table,table,five", 16,
         "node 'bad' (RelativePositionBias): input 1 (query_length) is not a scalar or [1]"},
        {"GatedRelativePositionBias", "q,qb,rel,w3,b,eco", 2,
         "node 'bad' (GatedRelativePositionBias): input 3 (weight)'s rows and the head size"},
        {"GatedRelativePositionBias", "q,qb,rel,w,b,eco", 3,
         "node 'bad' (GatedRelativePositionBias): input 0 (query_layer)'s hidden size 8 is not a "
         "multiple of attr 'num_heads' 3"},
        {"GatedRelativePositionBias", "table,qb,rel,w,b,eco", 2,
         "node 'bad' (GatedRelativePositionBias): input 0 (query_layer) has rank 2, want 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
        ob_input(m, "rel", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 3}, NULL);
        ob_init_f(m, "table", 2, (int64_t[]){32, 4}, false);
        ob_init_i64(m, "five", 0, NULL, (int64_t[]){5});
        ob_init_f(m, "qb", 1, (int64_t[]){8}, false);
        ob_init_f(m, "w", 2, (int64_t[]){4, 6}, false);
        ob_init_f(m, "w3", 2, (int64_t[]){3, 6}, false);
        ob_init_f(m, "b", 1, (int64_t[]){6}, false);
        ob_init_f(m, "eco", 4, (int64_t[]){1, 2, 1, 1}, false);
        Onnx__NodeProto *n = oc_ms_node(m, cases[i].op, "bad", cases[i].in, "y");
        if (cases[i].attr) {
            ob_attr_i(m, n, cases[i].op[0] == 'R' ? "max_distance" : "num_heads", cases[i].attr);
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bias_activations),
        cmocka_unit_test(test_bias_gelu_symbolic),
        cmocka_unit_test(test_skip_simplified_layer_norm),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_attention),
        cmocka_unit_test(test_attention_symbolic),
        cmocka_unit_test(test_ms_nodes_ort_cannot_run),
        cmocka_unit_test(test_attention_bad_attrs),
        cmocka_unit_test(test_matmul_nbits),
        cmocka_unit_test(test_matmul_nbits_bad),
        cmocka_unit_test(test_longformer_attention),
        cmocka_unit_test(test_qordered_longformer_attention),
        cmocka_unit_test(test_longformer_format0),
        cmocka_unit_test(test_group_norm_split_gelu),
        cmocka_unit_test(test_group_norm_bad),
        cmocka_unit_test(test_longformer_bad),
        cmocka_unit_test(test_bias_softmax_dropout_gemm_gelu),
        cmocka_unit_test(test_bias_softmax_dropout_gemm_gelu_bad),
        cmocka_unit_test(test_attention_input_rank),
        cmocka_unit_test(test_decoder_masked_self_attention),
        cmocka_unit_test(test_layer_norm_stats_dtype),
        cmocka_unit_test(test_moe),
        cmocka_unit_test(test_moe_bad),
        cmocka_unit_test(test_nhwc_conv),
        cmocka_unit_test(test_nhwc_conv_weight_layout),
        cmocka_unit_test(test_position_bias),
        cmocka_unit_test(test_position_bias_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
