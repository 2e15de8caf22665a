/*
 * test_onnx_mha.c - ONNX Runtime's contrib attention and embedding ops of
 * src/ops/onnxms/mha.c and embed.c (MultiHeadAttention, GroupQueryAttention,
 * RotaryEmbedding, EmbedLayerNormalization, GatherBlockQuantized): shapes
 * and counts derived by hand from each family file's stated rule (attention
 * in full: R = B*N*S*T scores, MACs R*(D + Dv), FLOPs 2*MACs + 6*R + ...),
 * KV-cache shapes with a symbolic past, and bad attributes naming the node;
 * and ai.onnx's own transformer ops of opset 23/24 (Attention,
 * RotaryEmbedding, RMSNormalization), counted by the same rules.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MultiHeadAttention, num_heads 2: query (2,4,16), key (2,6,16), value
 * (2,6,8): D = 8, Dv = 4, S = 4, T = L = 6; output (2,4,8). R = 2*2*4*6 =
 * 96; MACs = 96*8 + 96*4 = 1152; FLOPs = 2304 + 6*96 = 2880; with bias
 * (40): + B*S*N*D 128 + B*L*N*(D + Dv) 288 = 3296.
 * Packed QKV query (2,5,2,3,8): S = L = 5, D = Dv = 8, output (2,5,16); R =
 * 2*2*5*5 = 100; MACs 1600; FLOPs 3200 + 600 = 3800. */
static void test_mha(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 4, 16}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){2, 6, 16}, NULL);
    ob_input(m, "v", OB_FLOAT, 3, (int64_t[]){2, 6, 8}, NULL);
    ob_input(m, "qkv", OB_FLOAT, 5, (int64_t[]){2, 5, 2, 3, 8}, NULL);
    ob_init_f(m, "bias", 1, (int64_t[]){40}, false);
    const char *names[] = {"mha", "mha_bias", "packed"};
    const char *ins[] = {"q,k,v", "q,k,v,bias", "qkv"};
    const char *outs[] = {"y1", "y2", "y3"};
    for (int i = 0; i < 3; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "MultiHeadAttention", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "num_heads", 2);
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "mha");
    assert_string_equal(a->outputs[0].shape, "[2,4,8]");
    oc_assert_cost(a, 2880, 1152);
    oc_assert_cost(oc_node(r, "mha_bias"), 3296, 1152);
    const fl_report_node *p = oc_node(r, "packed");
    assert_string_equal(p->outputs[0].shape, "[2,5,16]");
    oc_assert_cost(p, 3800, 1600);
    fl_report_free(r);
    ob_free(m);
}

/* A decode step with a KV cache of symbolic length: query, key, value
 * (1,1,16), num_heads 4 (D = Dv = 4), past_key/past_value (1,4,past,4):
 * present (1,4,past + 1,4); R = 4*(past + 1); MACs = 8*R = 32*past + 32;
 * FLOPs = 16*R + 6*R = 88*past + 88. */
static void test_mha_past(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    const char *const pp[] = {NULL, NULL, "past", NULL};
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, 1, 16}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){1, 4, -1, 4}, pp);
    ob_input(m, "pv", OB_FLOAT, 4, (int64_t[]){1, 4, -1, 4}, pp);
    Onnx__NodeProto *n = oc_ms_node(m, "MultiHeadAttention", "mha", "q,q,q,,,,pk,pv", "y,k2,v2");
    ob_attr_i(m, n, "num_heads", 4);
    ob_output(m, "y");
    ob_output(m, "k2");
    ob_output(m, "v2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "mha");
    assert_string_equal(a->outputs[0].shape, "[1,1,16]");
    assert_string_equal(a->outputs[1].shape, "[1,4,past + 1,4]");
    assert_string_equal(a->outputs[2].shape, "[1,4,past + 1,4]");
    assert_string_equal(a->macs.text, "32*past + 32");
    assert_string_equal(a->flops.text, "88*past + 88");
    fl_report_free(r);
    ob_free(m);
}

/* GroupQueryAttention, num_heads 4, kv_num_heads 2: query (1,3,32) (D = 8),
 * key/value (1,3,16), past (1,2,5,8), total_sequence_length 8: T = 8,
 * present (1,2,max(5, 8) = 8,8); R = 4*3*8 = 96; MACs = 96*16 = 1536;
 * FLOPs = 3072 + 576 = 3648. A shared buffer, past (1,2,10,8) and total 7:
 * present keeps 10, T = 7: R = 84, MACs 1344, FLOPs 2688 + 504 = 3192. */
static void test_gqa(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, 3, 32}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){1, 3, 16}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){1, 2, 5, 8}, NULL);
    ob_input(m, "pk10", OB_FLOAT, 4, (int64_t[]){1, 2, 10, 8}, NULL);
    ob_input(m, "seqlens", OB_INT32, 1, (int64_t[]){1}, NULL);
    ob_init_i64(m, "t8", 0, NULL, (int64_t[]){8});
    ob_init_i64(m, "t7", 0, NULL, (int64_t[]){7});
    const char *names[] = {"gqa", "shared"};
    const char *ins[] = {"q,k,k,pk,pk,seqlens,t8", "q,k,k,pk10,pk10,seqlens,t7"};
    const char *outs[] = {"y1,pk1,pv1", "y2,pk2,pv2"};
    for (int i = 0; i < 2; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "GroupQueryAttention", names[i], ins[i], outs[i]);
        ob_attr_i(m, n, "num_heads", 4);
        ob_attr_i(m, n, "kv_num_heads", 2);
    }
    ob_output(m, "y1");
    ob_output(m, "pk1");
    ob_output(m, "y2");
    ob_output(m, "pk2");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "gqa");
    assert_string_equal(a->outputs[0].shape, "[1,3,32]");
    assert_string_equal(a->outputs[1].shape, "[1,2,8,8]");
    oc_assert_cost(a, 3648, 1536);
    const fl_report_node *b = oc_node(r, "shared");
    assert_string_equal(b->outputs[1].shape, "[1,2,10,8]");
    oc_assert_cost(b, 3192, 1344);
    fl_report_free(r);
    ob_free(m);
}

/* GQA with packed QKV (1, s, (4 + 2*2)*8 = 64), no past, rotary with
 * cos_cache (16,4) (Dr = 8), total_sequence_length unknown: T = s, present
 * (1,2,s,8); R = 4*s^2; MACs = 64*s^2; FLOPs = 128*s^2 + 24*s^2 + rotary
 * 3*(4*s + 2*s)*8 = 152*s^2 + 144*s. */
static void test_gqa_packed_rotary(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "qkv", OB_FLOAT, 3, (int64_t[]){1, -1, 64}, (const char *[]){NULL, "s", NULL});
    ob_input(m, "seqlens", OB_INT32, 1, (int64_t[]){1}, NULL);
    ob_input(m, "total", OB_INT32, 0, NULL, NULL);
    ob_init_f(m, "cos", 2, (int64_t[]){16, 4}, false);
    Onnx__NodeProto *n =
        oc_ms_node(m, "GroupQueryAttention", "gqa", "qkv,,,,,seqlens,total,cos,cos", "y,pk,pv");
    ob_attr_i(m, n, "num_heads", 4);
    ob_attr_i(m, n, "kv_num_heads", 2);
    ob_attr_i(m, n, "do_rotary", 1);
    ob_output(m, "y");
    ob_output(m, "pk");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "gqa");
    assert_string_equal(a->outputs[0].shape, "[1,s,32]");
    assert_string_equal(a->outputs[1].shape, "[1,2,s,8]");
    assert_string_equal(a->macs.text, "64*s^2");
    assert_string_equal(a->flops.text, "152*s^2 + 144*s");
    fl_report_free(r);
    ob_free(m);
}

/* Bad attributes name the node and the attribute or input. */
static void test_attention_bad(void **state) {
    (void)state;
    struct {
        const char *op;
        int64_t heads, kv_heads;
        const char *want;
    } cases[] = {
        {"GroupQueryAttention", 4, 3, "node 'bad' (GroupQueryAttention): attr 'kv_num_heads' 3"},
        {"GroupQueryAttention", 4, 0, "node 'bad' (GroupQueryAttention): attr 'kv_num_heads' is 0"},
        {"MultiHeadAttention", 3, 0,
         "node 'bad' (MultiHeadAttention): input 0 (query)'s hidden "
         "size 16 is not a multiple of 3 heads"},
        {"MultiHeadAttention", -1, 0, "node 'bad' (MultiHeadAttention): attr 'num_heads' is -1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, 3, 16}, NULL);
        ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){1, 3, 16}, NULL);
        ob_input(m, "sl", OB_INT32, 1, (int64_t[]){1}, NULL);
        ob_input(m, "t", OB_INT32, 0, NULL, NULL);
        bool gqa = cases[i].op[0] == 'G';
        Onnx__NodeProto *n = oc_ms_node(m, cases[i].op, "bad", gqa ? "q,k,k,,,sl,t" : "q,k,k", "y");
        ob_attr_i(m, n, "num_heads", cases[i].heads);
        if (gqa) {
            ob_attr_i(m, n, "kv_num_heads", cases[i].kv_heads);
        }
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* RotaryEmbedding (2,3,32), num_heads 4 (D = 8), cos_cache (10,2): Dr = 4
 * (partial rotation), rows 2*3*4 = 24: FLOPs 3*24*4 = 288. (1,2,5,8) with
 * cos_cache (5,4): Dr 8, rows 10: 240. */
static void test_rotary(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 32}, NULL);
    ob_input(m, "x4", OB_FLOAT, 4, (int64_t[]){1, 2, 5, 8}, NULL);
    ob_input(m, "pos", OB_INT64, 2, (int64_t[]){2, 3}, NULL);
    ob_init_f(m, "c2", 2, (int64_t[]){10, 2}, false);
    ob_init_f(m, "c4", 2, (int64_t[]){5, 4}, false);
    Onnx__NodeProto *n = oc_ms_node(m, "RotaryEmbedding", "rot", "x,pos,c2,c2", "y");
    ob_attr_i(m, n, "num_heads", 4);
    oc_ms_node(m, "RotaryEmbedding", "rot4", "x4,pos,c4,c4", "y4");
    ob_output(m, "y");
    ob_output(m, "y4");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "rot");
    assert_string_equal(a->outputs[0].shape, "[2,3,32]");
    oc_assert_cost(a, 288, 0);
    oc_assert_cost(oc_node(r, "rot4"), 240, 0);
    fl_report_free(r);
    ob_free(m);
}

/* An EmbedLayerNormalization node 'eln' of the given inputs over ids
 * (2,7) int32, word (100,16), pos (32,16), seg (2,16) and gamma (16),
 * outputs y and mi. */
static ob_model *embed_model(const char *inputs) {
    ob_model *m = oc_ms_model();
    ob_input(m, "ids", OB_INT32, 2, (int64_t[]){2, 7}, NULL);
    ob_init_f(m, "word", 2, (int64_t[]){100, 16}, true);
    ob_init_f(m, "pos", 2, (int64_t[]){32, 16}, true);
    ob_init_f(m, "seg", 2, (int64_t[]){2, 16}, true);
    ob_init_f(m, "gamma", 1, (int64_t[]){16}, true);
    oc_ms_node(m, "EmbedLayerNormalization", "eln", inputs, "y,mi");
    ob_output(m, "y");
    ob_output(m, "mi");
    return m;
}

/* EmbedLayerNormalization: input_ids (2,7), segment ids, word (100,16),
 * position (32,16), segment (2,16), gamma, beta, mask (2,7): output
 * (2,7,16), mask_index (2) int32. E = 224, rows 14: (1 + 1 + 6 + 1) * 224 +
 * 2 * 14 + 14 = 2058. GatherBlockQuantized of uint8 data (100,8), bits 4
 * (unpacked (100,16)), indices (2,3): output (2,3,16) float, E = 96: FLOPs
 * 96, int_ops 96. */
static void test_embed(void **state) {
    (void)state;
    ob_model *m = embed_model("ids,ids,word,pos,seg,gamma,gamma,ids");
    ob_input(m, "data", 2 /* uint8 */, 2, (int64_t[]){100, 8}, NULL);
    ob_input(m, "idx", OB_INT64, 2, (int64_t[]){2, 3}, NULL);
    ob_init_f(m, "scales", 2, (int64_t[]){100, 1}, true);
    Onnx__NodeProto *g = oc_ms_node(m, "GatherBlockQuantized", "gbq", "data,idx,scales", "e");
    ob_attr_i(m, g, "block_size", 16);
    ob_output(m, "e");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *e = oc_node(r, "eln");
    assert_string_equal(e->outputs[0].shape, "[2,7,16]");
    assert_string_equal(e->outputs[1].shape, "[2]");
    assert_string_equal(e->outputs[1].dtype, "int32");
    oc_assert_cost(e, 2058, 0);
    const fl_report_node *q = oc_node(r, "gbq");
    assert_string_equal(q->outputs[0].shape, "[2,3,16]");
    assert_string_equal(q->outputs[0].dtype, "float");
    oc_assert_int(q, 96, 96);
    fl_report_free(r);
    ob_free(m);
}

/* EmbedLayerNormalization's required inputs: input_ids, word_embedding,
 * position_embedding, gamma and beta (0, 2, 3, 5, 6); segment_ids and
 * segment_embedding (1, 4) come before beta but are optional. Without them:
 * output (2,7,16), (1 + 6 + 1) * 224 + 2 * 14 = 1820. Beta left out (six
 * inputs) fails the input count; beta given as an empty name, with a mask
 * after it, fails naming the input. */
static void test_embed_required_inputs(void **state) {
    (void)state;
    ob_model *m = embed_model("ids,,word,pos,,gamma,gamma");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *e = oc_node(r, "eln");
    assert_string_equal(e->outputs[0].shape, "[2,7,16]");
    oc_assert_cost(e, 1820, 0);
    fl_report_free(r);
    ob_free(m);
    oc_expect_error(embed_model("ids,ids,word,pos,seg,gamma"),
                    "node 'eln' (EmbedLayerNormalization): expects 7 to 9 inputs, got 6 (field: "
                    "input)");
    oc_expect_error(embed_model("ids,ids,word,pos,seg,gamma,,ids"),
                    "node 'eln' (EmbedLayerNormalization): input 6 is required, but its name is "
                    "empty (field: input[6])");
    oc_expect_error(embed_model("ids,ids,,pos,seg,gamma,gamma"),
                    "input 2 is required, but its name is empty (field: input[2])");
}

/* ai.onnx Attention (opset 23/24), 3-D GQA with a cache: q_num_heads 4,
 * kv_num_heads 2, Q (2,3,32) (D = 8), K (2,5,16) (8 per head, L = 5), V
 * (2,5,24) (Dv = 12), past_key (2,2,4,8), past_value (2,2,4,12): T = 4 + 5
 * = 9. Y (2,3,4*12 = 48), present_key (2,2,9,8), present_value (2,2,9,12),
 * qk_matmul_output (2,4,3,9). R = B*Nq*S*T = 2*4*3*9 = 216; MACs = 216 *
 * (8 + 12) = 4320; FLOPs = 2*4320 + 6*216 = 9936. The same with is_causal
 * and softcap 50: + R (the causal bias add) + 3R (softcap) = 8640 + 10*216
 * = 10800.
 * 4-D (heads from the dims): Q (1,2,4,8), K and V (1,2,6,8), attn_mask
 * (4,6): Y (1,2,4,8); R = 1*2*4*6 = 48, MACs 48*16 = 768, FLOPs 1536 +
 * 7*48 = 1872. Symbolic b and s, Q, K, V (b,2,s,8), is_causal: R = 2*b*s^2,
 * MACs 32*b*s^2, FLOPs 64*b*s^2 + 7*2*b*s^2 = 78*b*s^2. */
static void test_onnx_attention(void **state) {
    (void)state;
    ob_model *m = ob_new(24);
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 3, 32}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){2, 5, 16}, NULL);
    ob_input(m, "v", OB_FLOAT, 3, (int64_t[]){2, 5, 24}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){2, 2, 4, 8}, NULL);
    ob_input(m, "pv", OB_FLOAT, 4, (int64_t[]){2, 2, 4, 12}, NULL);
    const char *const bs[] = {"b", NULL, "s", NULL};
    ob_input(m, "q4", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 8}, NULL);
    ob_input(m, "k4", OB_FLOAT, 4, (int64_t[]){1, 2, 6, 8}, NULL);
    ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
    ob_input(m, "qs", OB_FLOAT, 4, (int64_t[]){-1, 2, -1, 8}, bs);
    Onnx__NodeProto *a = ob_node(m, "Attention", "gqa", "q,k,v,,pk,pv", "y,pko,pvo,qk");
    Onnx__NodeProto *b = ob_node(m, "Attention", "causal", "q,k,v,,pk,pv", "y2");
    for (int i = 0; i < 2; i++) {
        ob_attr_i(m, i ? b : a, "q_num_heads", 4);
        ob_attr_i(m, i ? b : a, "kv_num_heads", 2);
    }
    ob_attr_i(m, b, "is_causal", 1);
    ob_attr_f(m, b, "softcap", 50.0f);
    ob_node(m, "Attention", "mha4", "q4,k4,k4,mask", "y3");
    ob_attr_i(m, ob_node(m, "Attention", "sym", "qs,qs,qs", "y4"), "is_causal", 1);
    static const char *const outs[] = {"y", "pko", "pvo", "qk", "y2", "y3", "y4"};
    for (int i = 0; i < 7; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *g = oc_node(r, "gqa");
    assert_string_equal(g->outputs[0].shape, "[2,3,48]");
    assert_string_equal(g->outputs[1].shape, "[2,2,9,8]");
    assert_string_equal(g->outputs[2].shape, "[2,2,9,12]");
    assert_string_equal(g->outputs[3].shape, "[2,4,3,9]");
    oc_assert_cost(g, 9936, 4320);
    oc_assert_cost(oc_node(r, "causal"), 10800, 4320);
    const fl_report_node *h = oc_node(r, "mha4");
    assert_string_equal(h->outputs[0].shape, "[1,2,4,8]");
    oc_assert_cost(h, 1872, 768);
    const fl_report_node *s = oc_node(r, "sym");
    assert_string_equal(s->outputs[0].shape, "[b,2,s,8]");
    assert_string_equal(s->macs.text, "32*b*s^2");
    assert_string_equal(s->flops.text, "78*b*s^2");
    fl_report_free(r);
    ob_free(m);
}

/* Opset 25's sliding window: 4-D Q (1,2,4,8), K and V (1,2,6,8), no mask:
 * R = 48, MACs 768, FLOPs 1536 + 6*48 = 1824; left_window_size 2 bounds a
 * side, so the window's mask is applied as a bias add (+R, nothing halved):
 * 1872; right_window_size 0 alone the same; both -1 (unbounded, the
 * default) 1824. A window below -1 fails naming the attr. */
static void test_onnx_attention_window(void **state) {
    (void)state;
    struct {
        int64_t left, right, flops;
    } cases[] = {{-1, -1, 1824}, {2, -1, 1872}, {-1, 0, 1872}, {2, 1, 1872}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(25);
        ob_input(m, "q", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 8}, NULL);
        ob_input(m, "k", OB_FLOAT, 4, (int64_t[]){1, 2, 6, 8}, NULL);
        Onnx__NodeProto *n = ob_node(m, "Attention", "w", "q,k,k", "y");
        ob_attr_i(m, n, "left_window_size", cases[i].left);
        ob_attr_i(m, n, "right_window_size", cases[i].right);
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        assert_string_equal(oc_node(r, "w")->outputs[0].shape, "[1,2,4,8]");
        oc_assert_cost(oc_node(r, "w"), cases[i].flops, 768);
        fl_report_free(r);
        ob_free(m);
    }
    ob_model *m = ob_new(25);
    ob_input(m, "q", OB_FLOAT, 4, (int64_t[]){1, 2, 4, 8}, NULL);
    ob_attr_i(m, ob_node(m, "Attention", "w", "q,q,q", "y"), "right_window_size", -2);
    ob_output(m, "y");
    oc_expect_error(m, "node 'w' (Attention): attr 'right_window_size' is -2, must be >= -1");
}

/* Bad ai.onnx Attention inputs fail naming the node and the attr or input:
 * 3-D inputs without q_num_heads; 3 query heads for 2 key/value heads; a
 * 4-D K beside a 3-D Q; Q's hidden size 32 for 3 heads. */
static void test_onnx_attention_bad(void **state) {
    (void)state;
    struct {
        int64_t qh, kvh;
        bool k4;
        const char *want;
    } cases[] = {
        {0, 2, false, "node 'bad' (Attention): attr 'q_num_heads' is required with 3-D Q, K and V"},
        {6, 4, false, "node 'bad' (Attention): 6 query heads are not a multiple of 4 key/value"},
        {4, 2, true,
         "node 'bad' (Attention): input 1 (K) has rank 4 and an earlier input rank 3: Q, K and V "
         "are all 3-D or all 4-D"},
        {3, 1, false,
         "node 'bad' (Attention): input 0 (Q)'s hidden size 32 is not a multiple of 3 heads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(23);
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, 3, cases[i].qh == 3 ? 32 : 24}, NULL);
        if (cases[i].k4) {
            ob_input(m, "k", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 6}, NULL);
        } else {
            ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){1, 3, 24}, NULL);
        }
        Onnx__NodeProto *n = ob_node(m, "Attention", "bad", "q,k,k", "y");
        if (cases[i].qh) {
            ob_attr_i(m, n, "q_num_heads", cases[i].qh);
        }
        ob_attr_i(m, n, "kv_num_heads", cases[i].kvh);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* ai.onnx RotaryEmbedding (opset 23: X, cos_cache, sin_cache,
 * position_ids?) counts as com.microsoft's, 3 per rotated element: X
 * (2,5,32), num_heads 4 (D = 8), cos_cache (16,4) with position_ids: Dr = 8,
 * rows 2*5*4 = 40: 960; without position_ids, cos_cache (2,5,2): Dr = 4
 * (partial), 480; X (2,4,5,8) with cos_cache (2,5,4): Dr 8, rows 40, 960.
 * RMSNormalization (opset 23) X (2,3,8), scale (8): one output (2,3,8),
 * 4*E + 2*rows: axis -1, rows 6: 4*48 + 12 = 204; axis 1, rows 2: 196. */
static void test_onnx_rotary_rms(void **state) {
    (void)state;
    ob_model *m = ob_new(23);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 5, 32}, NULL);
    ob_input(m, "x4", OB_FLOAT, 4, (int64_t[]){2, 4, 5, 8}, NULL);
    ob_input(m, "pos", OB_INT64, 2, (int64_t[]){2, 5}, NULL);
    ob_init_f(m, "c", 2, (int64_t[]){16, 4}, false);
    ob_init_f(m, "cb", 3, (int64_t[]){2, 5, 2}, false);
    ob_init_f(m, "cb4", 3, (int64_t[]){2, 5, 4}, false);
    ob_input(m, "h", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
    ob_init_f(m, "scale", 1, (int64_t[]){8}, false);
    ob_init_f(m, "scale2", 2, (int64_t[]){3, 8}, false);
    ob_attr_i(m, ob_node(m, "RotaryEmbedding", "rot", "x,c,c,pos", "y"), "num_heads", 4);
    ob_attr_i(m, ob_node(m, "RotaryEmbedding", "rotb", "x,cb,cb", "y2"), "num_heads", 4);
    ob_node(m, "RotaryEmbedding", "rot4", "x4,cb4,cb4", "y3");
    ob_node(m, "RMSNormalization", "rms", "h,scale", "z");
    ob_attr_i(m, ob_node(m, "RMSNormalization", "rms1", "h,scale2", "z1"), "axis", 1);
    static const char *const outs[] = {"y", "y2", "y3", "z", "z1"};
    for (int i = 0; i < 5; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "rot");
    assert_string_equal(a->outputs[0].shape, "[2,5,32]");
    oc_assert_cost(a, 960, 0);
    oc_assert_cost(oc_node(r, "rotb"), 480, 0);
    oc_assert_cost(oc_node(r, "rot4"), 960, 0);
    const fl_report_node *n = oc_node(r, "rms");
    assert_int_equal(n->n_outputs, 1);
    assert_string_equal(n->outputs[0].shape, "[2,3,8]");
    oc_assert_cost(n, 204, 0);
    oc_assert_cost(oc_node(r, "rms1"), 196, 0);
    fl_report_free(r);
    ob_free(m);
}

/* DecoderMaskedMultiHeadAttention (mha.c's rule with its own input order),
 * num_heads 2, one decoding step: query (2,1,8), D = Dv = 4.
 *   Self attention with a shared cache (attr past_present_share_buffer 1)
 *   past_key/past_value (2,2,6,4), past_sequence_length 3, mask (2,4),
 *   attention_bias (2,2,1,4), bias (24): T = 3 + 1 = 4, present keeps
 *   (2,2,6,4), qk (2,2,1,4). R = 2*2*1*4 = 16; MACs = 16 * 8 = 128; FLOPs =
 *   256 + 7 * 16 (the mask add) + bias adds B*S*N*D 16 + B*L*N*(D + Dv) 32
 *   = 416.
 *   Cross attention, key/value (2,2,5,4): T = L = 5, qk (2,2,1,5); R = 20,
 *   MACs 160, FLOPs 320 + 120 = 440.
 *   Packed QKV query (2,1,24), no key/value: D = 24 / (3 * 2) = 4; an
 *   unshared past (2,2,3,4): T = 3 + 1, present (2,2,4,4); R = 16, MACs
 *   128, FLOPs 256 + 96 = 352.
 *   The shared cache without past_sequence_length: present (2,2,6,4), T
 *   unknown, so qk's last dim and the count are unknown. */
static void test_dmmha(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 1, 8}, NULL);
    ob_input(m, "qkv", OB_FLOAT, 3, (int64_t[]){2, 1, 24}, NULL);
    ob_input(m, "mask", OB_INT32, 2, (int64_t[]){2, 4}, NULL);
    ob_input(m, "ab", OB_FLOAT, 4, (int64_t[]){2, 2, 1, 4}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){2, 2, 6, 4}, NULL);
    ob_input(m, "pk3", OB_FLOAT, 4, (int64_t[]){2, 2, 3, 4}, NULL);
    ob_input(m, "ck", OB_FLOAT, 4, (int64_t[]){2, 2, 5, 4}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){24}, false);
    int32_t three = 3;
    ob_init_raw(m, "psl", OB_INT32, 1, (int64_t[]){1}, &three, sizeof three);
    static const struct {
        const char *name, *in, *out;
        int64_t share, qk;
    } nodes[] = {
        {"self", "q,q,q,mask,ab,pk,pk,psl,,,b", "y1,k1,v1,qk1", 1, 1},
        {"cross", "q,ck,ck", "y2,,,qk2", 1, 1},
        {"packed", "qkv,,,,,pk3,pk3", "y3,k3,v3", 0, 0},
        {"nolen", "q,q,q,,,pk,pk", "y4,k4,v4,qk4", 1, 1},
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        Onnx__NodeProto *n = oc_ms_node(m, "DecoderMaskedMultiHeadAttention", nodes[i].name,
                                        nodes[i].in, nodes[i].out);
        ob_attr_i(m, n, "num_heads", 2);
        ob_attr_i(m, n, "past_present_share_buffer", nodes[i].share);
        ob_attr_i(m, n, "output_qk", nodes[i].qk);
    }
    const char *outs[] = {"y1", "k1", "v1", "qk1", "y2", "qk2",
                          "y3", "k3", "v3", "y4",  "k4", "qk4"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *a = oc_node(r, "self");
    assert_string_equal(a->outputs[0].shape, "[2,1,8]");
    assert_string_equal(a->outputs[1].shape, "[2,2,6,4]");
    assert_string_equal(a->outputs[2].shape, "[2,2,6,4]");
    assert_string_equal(a->outputs[3].shape, "[2,2,1,4]");
    oc_assert_cost(a, 416, 128);
    a = oc_node(r, "cross");
    assert_string_equal(a->outputs[0].shape, "[2,1,8]");
    assert_string_equal(a->outputs[3].shape, "[2,2,1,5]");
    oc_assert_cost(a, 440, 160);
    a = oc_node(r, "packed");
    assert_string_equal(a->outputs[0].shape, "[2,1,8]");
    assert_string_equal(a->outputs[1].shape, "[2,2,4,4]");
    oc_assert_cost(a, 352, 128);
    a = oc_node(r, "nolen");
    assert_string_equal(a->outputs[1].shape, "[2,2,6,4]");
    assert_non_null(strstr(a->outputs[3].shape, "?"));
    assert_true(a->incomplete);
    fl_report_free(r);
    ob_free(m);
}

/* DecoderMaskedMultiHeadAttention's bad inputs name the node and input: a
 * packed QKV hidden size (20) that 3 * num_heads (6) does not divide; a
 * past_key of rank 3. */
static void test_dmmha_bad(void **state) {
    (void)state;
    static const struct {
        const char *in;
        const char *want;
    } cases[] = {
        {"q20", "node 'bad' (DecoderMaskedMultiHeadAttention): input 0 (packed QKV)'s hidden size "
                "(3 * num_heads) 20 is not a multiple of 6 heads"},
        {"q,q,q,,,q,q", "node 'bad' (DecoderMaskedMultiHeadAttention): input 5 (past_key) has "
                        "rank 3, want 4"},
        /* Two inputs: the value (input 2) is not read beyond the node's inputs. */
        {"q,q", "node 'bad' (DecoderMaskedMultiHeadAttention): input 2 (value) is absent with a "
                "rank-3 key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 1, 8}, NULL);
        ob_input(m, "q20", OB_FLOAT, 3, (int64_t[]){2, 1, 20}, NULL);
        Onnx__NodeProto *n =
            oc_ms_node(m, "DecoderMaskedMultiHeadAttention", "bad", cases[i].in, "y");
        ob_attr_i(m, n, "num_heads", 2);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* A node with fewer inputs than the rule's highest index reads nothing
 * beyond them: MultiHeadAttention with query (2,1,8) and a 4-D key (2,2,5,4)
 * and no value input takes the value's head size from the key: output
 * (2,1,2 * 4), present key and value (2,2,5,4). */
static void test_mha_two_inputs(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){2, 1, 8}, NULL);
    ob_input(m, "k", OB_FLOAT, 4, (int64_t[]){2, 2, 5, 4}, NULL);
    Onnx__NodeProto *n = oc_ms_node(m, "MultiHeadAttention", "mha", "q,k", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_output(m, "y");
    oc_expect_shape(m, "mha", "[2,1,8]");
}

/* Packed-token attention (packed.c). 3 sequences of lengths 1, 2, 4 packed
 * into T = 7 tokens (cumulative_sequence_length [0,1,3,7], token_offset (3,
 * 4)), 2 heads. Score pairs per head P = 1 + 4 + 16 = 21, R = 2 * 21 = 42.
 * PackedAttention, input (7,16), weights (16,48), bias (48): MACs = P * (Hq +
 * Hv) + T * H_in * 48 = 21 * 32 + 7 * 16 * 48 = 672 + 5376 = 6048; FLOPs =
 * 2 * 6048 + 6 * 42 + 7 * 48 = 12096 + 252 + 336 = 12684; output (7,16).
 * Without the lengths' value (a graph input), every sequence counts as long
 * as S = 4: P = 3 * 16 = 48, R = 96, MACs 48 * 32 + 5376 = 6912, FLOPs 13824
 * + 7 * 96 (with attention_bias) + 336 = 14832, an upper bound.
 * PackedMultiHeadAttention with packed QKV (7,2,3,8): MACs 21 * 32 = 672,
 * FLOPs 1344 + 252 = 1596, output (7,16); with query (7,16), key (7,16),
 * value (7,32) and bias (64): MACs 21 * 48 = 1008, FLOPs 2016 + 252 + 7 *
 * 64 = 2716, output (7,32). */
static void packed_lengths(ob_model *m, const char *name, bool known) {
    static const int32_t cum[] = {0, 1, 3, 7};
    if (known) {
        ob_init_raw(m, name, OB_INT32, 1, (int64_t[]){4}, cum, sizeof cum);
    } else {
        ob_input(m, name, OB_INT32, 1, (int64_t[]){4}, NULL);
    }
}

static void test_packed_attention(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){16, 48}, false);
    ob_init_f(m, "b", 1, (int64_t[]){48}, false);
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
    packed_lengths(m, "cum", true);
    packed_lengths(m, "cumx", false);
    ob_input(m, "ab", OB_FLOAT, 4, (int64_t[]){3, 2, 4, 4}, NULL);
    ob_attr_i(m, oc_ms_node(m, "PackedAttention", "pa", "x,w,b,off,cum", "y"), "num_heads", 2);
    ob_attr_i(m, oc_ms_node(m, "PackedAttention", "pu", "x,w,b,off,cumx,ab", "yu"), "num_heads", 2);
    ob_input(m, "qkv", OB_FLOAT, 4, (int64_t[]){7, 2, 3, 8}, NULL);
    ob_attr_i(m, oc_ms_node(m, "PackedMultiHeadAttention", "pm", "qkv,,,,off,cum", "ym"),
              "num_heads", 2);
    ob_input(m, "q", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_input(m, "k", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_input(m, "v", OB_FLOAT, 2, (int64_t[]){7, 32}, NULL);
    ob_init_f(m, "b3", 1, (int64_t[]){64}, false);
    ob_attr_i(m, oc_ms_node(m, "PackedMultiHeadAttention", "pq", "q,k,v,b3,off,cum", "yq"),
              "num_heads", 2);
    static const char *const outs[] = {"y", "yu", "ym", "yq"};
    for (int i = 0; i < 4; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *pa = oc_node(r, "pa"), *pu = oc_node(r, "pu");
    assert_string_equal(pa->outputs[0].shape, "[7,16]");
    oc_assert_cost(pa, 12684, 6048);
    oc_assert_cost(pu, 14832, 6912);
    assert_true(fl_test_has_warning(r, "node 'pu'", "count is an upper bound"));
    assert_string_equal(oc_node(r, "pm")->outputs[0].shape, "[7,16]");
    oc_assert_cost(oc_node(r, "pm"), 1596, 672);
    assert_string_equal(oc_node(r, "pq")->outputs[0].shape, "[7,32]");
    oc_assert_cost(oc_node(r, "pq"), 2716, 1008);
    fl_report_free(r);
    ob_free(m);
}

/* Attention and PackedAttention without qkv_hidden_sizes and weights whose
 * columns are a dim_param "W": Q, K and V are W / 3 wide, which no dim
 * says, so the output's hidden dim is unknown - not W (PackedAttention
 * once took W itself, three times the true width). */
static void test_attention_symbolic_weights(void **state) {
    (void)state;
    ob_model *m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){16, -1}, (const char *const[]){NULL, "W"});
    ob_input(m, "b", OB_FLOAT, 1, (int64_t[]){-1}, (const char *const[]){"W"});
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
    packed_lengths(m, "cum", true);
    ob_attr_i(m, oc_ms_node(m, "PackedAttention", "pa", "x,w,b,off,cum", "y"), "num_heads", 2);
    ob_input(m, "x3", OB_FLOAT, 3, (int64_t[]){2, 5, 16}, NULL);
    ob_attr_i(m, oc_ms_node(m, "Attention", "at", "x3,w", "y3"), "num_heads", 2);
    ob_output(m, "y");
    ob_output(m, "y3");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "pa")->outputs[0].shape, "[7,?]");
    assert_string_equal(oc_node(r, "at")->outputs[0].shape, "[2,5,?]");
    fl_report_free(r);
    ob_free(m);
}

/* Lengths that are not cumulative, that do not end at the token count,
 * that disagree with token_offset's batch; a query without key and value;
 * heads that do not divide the hidden size: errors naming node and input. */
static void test_packed_attention_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "input 5 (cumulative_sequence_length) entry 2 is 1: want 0 first, then non-decreasing",
        "input 5 (cumulative_sequence_length) ends at 6, input 0 has 7 tokens",
        "input 5 (cumulative_sequence_length) has 5 entries, want token_offset's batch 3 + 1",
        "input 0 (query) has rank 2: key and value are required",
        "attr 'num_heads' 3 does not divide the Q and V hidden sizes (16, 16)",
    };
    static const int32_t cums[4][5] = {{0, 3, 1, 7}, {0, 1, 3, 6}, {0, 1, 3, 5, 7}, {0, 1, 3, 7}};
    for (int i = 0; i < 5; i++) {
        ob_model *m = oc_ms_model();
        ob_input(m, "q", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
        ob_input(m, "k", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
        ob_input(m, "off", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
        int nc = i == 2 ? 5 : 4;
        ob_init_raw(m, "cum", OB_INT32, 1, (int64_t[]){nc}, cums[i < 3 ? i : 3],
                    (size_t)nc * sizeof(int32_t));
        Onnx__NodeProto *n = oc_ms_node(m, "PackedMultiHeadAttention", "pm",
                                        i == 3 ? "q,,,,off,cum" : "q,k,k,,off,cum", "y");
        ob_attr_i(m, n, "num_heads", i == 4 ? 3 : 2);
        ob_output(m, "y");
        oc_expect_error_both(m, "node 'pm' (PackedMultiHeadAttention)", want[i]);
    }
}

/* SparseAttention (sparse.c): 4 heads, 2 KV heads, head size 8, blocks of
 * 16, the two 4 x 4 layouts of ORT's schema example (heads 0, 2 layout 0,
 * with 1, 2, 2, 3 blocks in its rows; heads 1, 3 layout 1, with 1, 2, 3, 3).
 * Prefill of 64 tokens (T = 64, every block full): each query of block row
 * r scores 16 keys per listed block: per layout 16 * 16 * (1 + 2 + 2 + 3) =
 * 2048 and 16 * 16 * 9 = 2304, R = 2 * 2048 + 2 * 2304 = 8704; MACs = 2 * R
 * * 8 = 139264, FLOPs = 2 * 139264 + 6 * 8704 = 330752. A decoding step at
 * T = 40 (query position 39, block row 2; key blocks hold 16, 16, 8 keys):
 * layout 0 lists blocks 1, 2 (24 keys), layout 1 blocks 0, 1, 2 (40): R = 2
 * * 24 + 2 * 40 = 128, MACs 2048, FLOPs 4096 + 768 = 4864. Without the
 * layout's value, the dense bound 4 * 64 * 64 = 16384 scores: MACs 262144,
 * FLOPs 524288 + 98304 = 622592, with a warning. */
static void sparse_layout(ob_model *m, const char *row, const char *col, int layouts) {
    static const int32_t rows[] = {0, 1, 3, 5, 8, 0, 1, 3, 6, 9, 0, 1, 2, 3, 4};
    static const int32_t cols[] = {0, 0, 1, 1, 2, 1, 2, 3, -1, 0, 0, 1, 0, 1,
                                   2, 0, 2, 3, 0, 1, 2, 3, 0,  0, 0, 0, 0};
    ob_init_raw(m, row, OB_INT32, 2, (int64_t[]){layouts, 5}, rows,
                (size_t)layouts * 5 * sizeof(int32_t));
    ob_init_raw(m, col, OB_INT32, 2, (int64_t[]){layouts, 9}, cols,
                (size_t)layouts * 9 * sizeof(int32_t));
}

static Onnx__NodeProto *sparse_node(ob_model *m, const char *name, const char *in, const char *out,
                                    int64_t kv_heads) {
    Onnx__NodeProto *n = oc_ms_node(m, "SparseAttention", name, in, out);
    ob_attr_i(m, n, "num_heads", 4);
    ob_attr_i(m, n, "kv_num_heads", kv_heads);
    ob_attr_i(m, n, "sparse_block_size", 16);
    return n;
}

static void sparse_inputs(ob_model *m, int64_t s, int64_t t) {
    ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, s, 32}, NULL);
    ob_input(m, "k", OB_FLOAT, 3, (int64_t[]){1, s, 16}, NULL);
    ob_input(m, "v", OB_FLOAT, 3, (int64_t[]){1, s, 16}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){1, 2, 64, 8}, NULL);
    ob_input(m, "pv", OB_FLOAT, 4, (int64_t[]){1, 2, 64, 8}, NULL);
    ob_init_raw(m, "t", OB_INT32, 0, NULL, (int32_t[]){(int32_t)t}, sizeof(int32_t));
    ob_input(m, "klen", OB_INT32, 1, (int64_t[]){1}, NULL);
}

static void test_sparse_attention(void **state) {
    (void)state;
    static const int64_t s[] = {64, 1, 64}, t[] = {64, 40, 64}, macs[] = {139264, 2048, 262144},
                         flops[] = {330752, 4864, 622592};
    for (int i = 0; i < 3; i++) {
        ob_model *m = oc_ms_model();
        sparse_inputs(m, s[i], t[i]);
        if (i < 2) {
            sparse_layout(m, "row", "col", 2);
        } else {
            ob_input(m, "row", OB_INT32, 2, (int64_t[]){2, 5}, NULL);
            ob_input(m, "col", OB_INT32, 2, (int64_t[]){2, 9}, NULL);
        }
        sparse_node(m, "sa", "q,k,v,pk,pv,row,col,t,klen", "y,prk,prv", 2);
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *sa = oc_node(r, "sa");
        char want[32];
        snprintf(want, sizeof want, "[1,%lld,32]", (long long)s[i]);
        assert_string_equal(sa->outputs[0].shape, want);
        assert_string_equal(sa->outputs[1].shape, "[1,2,64,8]");
        assert_string_equal(sa->outputs[2].shape, "[1,2,64,8]");
        oc_assert_cost(sa, flops[i], macs[i]);
        assert_int_equal(fl_test_has_warning(r, "node 'sa'", "count is an upper bound"), i == 2);
        fl_report_free(r);
        ob_free(m);
    }
}

/* KV heads that do not divide the heads, layouts that do not, a query the
 * layout's block rows do not reach (T = 80 > 4 blocks of 16), a block
 * column out of range: errors naming node and attribute or input. */
static void test_sparse_attention_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "attr 'kv_num_heads' 3 does not divide attr 'num_heads' 4",
        "input 5 (block_row_indices) has 3 layouts, which do not divide attr 'num_heads' 4",
        ("input 5 (block_row_indices) has 4 block rows of 16: they do not reach the queries at "
         "positions 79..79"),
        "input 6 (block_col_indices) layout 0 entry 3 is 5, outside the 4 key blocks",
    };
    for (int i = 0; i < 4; i++) {
        ob_model *m = oc_ms_model();
        sparse_inputs(m, 1, i == 2 ? 80 : 40);
        if (i == 3) {
            static const int32_t rows[] = {0, 1, 3, 5, 8}, cols[] = {0, 0, 1, 5, 2, 1, 2, 3, -1};
            ob_init_raw(m, "row", OB_INT32, 2, (int64_t[]){1, 5}, rows, sizeof rows);
            ob_init_raw(m, "col", OB_INT32, 2, (int64_t[]){1, 9}, cols, sizeof cols);
        } else {
            sparse_layout(m, "row", "col", i == 1 ? 3 : 2);
        }
        sparse_node(m, "sa", "q,k,v,pk,pv,row,col,t,klen", "y,prk,prv", i == 0 ? 3 : 2);
        ob_output(m, "y");
        oc_expect_error_both(m, "node 'sa' (SparseAttention)", want[i]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mha),
        cmocka_unit_test(test_mha_past),
        cmocka_unit_test(test_mha_two_inputs),
        cmocka_unit_test(test_gqa),
        cmocka_unit_test(test_gqa_packed_rotary),
        cmocka_unit_test(test_attention_bad),
        cmocka_unit_test(test_rotary),
        cmocka_unit_test(test_embed),
        cmocka_unit_test(test_embed_required_inputs),
        cmocka_unit_test(test_onnx_attention),
        cmocka_unit_test(test_onnx_attention_bad),
        cmocka_unit_test(test_onnx_attention_window),
        cmocka_unit_test(test_onnx_rotary_rms),
        cmocka_unit_test(test_dmmha),
        cmocka_unit_test(test_dmmha_bad),
        cmocka_unit_test(test_packed_attention),
        cmocka_unit_test(test_packed_attention_bad),
        cmocka_unit_test(test_attention_symbolic_weights),
        cmocka_unit_test(test_sparse_attention),
        cmocka_unit_test(test_sparse_attention_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
