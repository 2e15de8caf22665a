/*
 * test_onnx.c - the ONNX importer and the ONNX op family on small models
 * built with onnxbuild: exact shapes, FLOPs, MACs and bytes; the Shape-chain
 * evaluation; stripped initializers; error messages naming node and field.
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Analyses the model (no passes, per node). */
static fl_report *run_opts(ob_model *m, fl_options *o, fl_status *st) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    fl_report *r = NULL;
    o->per_node = true;
    *st = fl_analyze(buf, len, o, &r);
    free(buf);
    return r;
}

static fl_report *run_ok(ob_model *m) {
    fl_options o;
    fl_options_init(&o);
    fl_status st;
    fl_report *r = run_opts(m, &o, &st);
    if (st != FL_OK) {
        printf("analysis failed: %s\n", r && r->error ? r->error : "?");
    }
    assert_int_equal(st, FL_OK);
    return r;
}

/* The error message of a failing analysis (the report is freed by the
 * caller through the returned pointer's owner). */
static fl_report *run_fail(ob_model *m, fl_status want) {
    fl_options o;
    fl_options_init(&o);
    fl_status st;
    fl_report *r = run_opts(m, &o, &st);
    assert_int_equal(st, want);
    assert_non_null(r);
    assert_non_null(r->error);
    printf("expected error: %s\n", r->error);
    return r;
}

static void assert_counts(const fl_report_node *n, int64_t flops, int64_t macs, int64_t bytes) {
    assert_true(n->flops.known && n->macs.known && n->bytes.known);
    assert_int_equal(n->flops.value, flops);
    assert_int_equal(n->macs.value, macs);
    assert_int_equal(n->bytes.value, bytes);
    assert_true(n->has_rule);
    assert_false(n->incomplete);
}

/* ------------------------------------------------------------------------- */
/* Convolution                                                                */
/* ------------------------------------------------------------------------- */

/* Grouped, dilated, padded Conv with a bias and stripped weights.
 * X [1,8,10,10], W [16,4,3,3] (group 2: 8 = 4 x 2), dilation 2 -> effective
 * kernel 5, pads 1: (10 + 2 - 5) / 1 + 1 = 8 -> Y [1,16,8,8], E(Y) = 1024.
 * MACs = E(Y) x C_in/group x Kh x Kw = 1024 x 4 x 9 = 36864; FLOPs = 2 x MACs
 * + E(Y) (bias) = 74752. Bytes read X 3200 + W 2304 (stripped: full size) +
 * B 64, written 4096: 9664. */
static void test_conv_group_dilation(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 10, 10}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){16, 4, 3, 3}, true);
    ob_init_f(m, "b", 1, (int64_t[]){16}, false);
    Onnx__NodeProto *c = ob_node(m, "Conv", "conv", "x,w,b", "y");
    ob_attr_i(m, c, "group", 2);
    ob_attr_ints(m, c, "dilations", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_ints(m, c, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    assert_string_equal(r->format, "onnx");
    const fl_report_node *n = tg_find(r, "conv");
    assert_string_equal(n->op, "Conv");
    assert_string_equal(n->outputs[0].shape, "[1,16,8,8]");
    assert_counts(n, 74752, 36864, 9664);
    /* In ONNX terms: one operator, two initializers (values, not nodes: no
     * per-node record, no op type), the graph output by its value name,
     * the opset in its own field. */
    assert_int_equal(r->n_nodes, 1);
    assert_int_equal(r->totals.nodes, 1);
    assert_int_equal(r->nodes_with_rule, 1);
    assert_int_equal(r->n_nodes_detail, 1);
    assert_int_equal(r->n_initializers, 2);
    assert_int_equal(r->n_ops, 1);
    assert_int_equal(r->opset, 13);
    assert_int_equal(r->producer, 0);
    assert_int_equal(r->n_outputs, 1);
    assert_string_equal(r->outputs[0], "y");
    assert_true(r->complete);
    assert_int_equal(r->totals.macs.value, 36864);
    assert_int_equal(r->n_unknown_ops, 0);
    fl_report_free(r);
    ob_free(m);
}

/* auto_pad SAME_UPPER, stride 2, no bias: X [1,3,15,15] -> ceil(15/2) = 8,
 * Y [1,8,8,8] (512 elements); MACs = 512 x 3 x 3 x 3 = 13824, FLOPs 27648. */
static void test_conv_same_upper(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 15, 15}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){8, 3, 3, 3}, false);
    Onnx__NodeProto *c = ob_node(m, "Conv", "conv", "x,w", "y");
    ob_attr_s(m, c, "auto_pad", "SAME_UPPER");
    ob_attr_ints(m, c, "strides", 2, (int64_t[]){2, 2});
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "conv");
    assert_string_equal(n->outputs[0].shape, "[1,8,8,8]");
    /* read 2700 + 864, written 2048 */
    assert_counts(n, 27648, 13824, 2700 + 864 + 2048);
    fl_report_free(r);
    ob_free(m);
}

/* A dim_param becomes a symbol of that name, bindable with a symbol
 * binding: X [N,3,8,8], 1x1 conv to 4 channels: MACs 768*N. */
static void test_dim_param_symbol(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){-1, 3, 8, 8}, (const char *const[]){"N", 0, 0, 0});
    ob_init_f(m, "w", 4, (int64_t[]){4, 3, 1, 1}, true);
    ob_node(m, "Conv", "conv", "x,w", "y");
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    assert_string_equal(tg_find(r, "conv")->outputs[0].shape, "[N,4,8,8]");
    assert_false(r->totals.macs.known);
    assert_string_equal(r->totals.macs.text, "768*N");
    assert_int_equal(r->n_inputs, 1);
    assert_string_equal(r->inputs[0].shape, "[N,3,8,8]");
    fl_report_free(r);

    fl_options o;
    fl_options_init(&o);
    fl_symbol_binding b = {"N", 2};
    o.symbols = &b;
    o.n_symbols = 1;
    fl_status st;
    r = run_opts(m, &o, &st);
    assert_int_equal(st, FL_OK);
    assert_int_equal(r->totals.macs.value, 1536);
    fl_report_free(r);
    ob_free(m);
}

/* The symbol names survive the rewrite passes: after a pass the graph is
 * re-inferred from scratch, and the placeholder must name its free dim N
 * again (it did not: the output became [x.0,4,8,8] and the passes' output
 * check failed). Two equal Relu nodes make CSE fire. */
static void test_dim_param_symbol_after_passes(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){-1, 3, 8, 8}, (const char *const[]){"N", 0, 0, 0});
    ob_init_f(m, "w", 4, (int64_t[]){4, 3, 1, 1}, false);
    ob_node(m, "Conv", "conv", "x,w", "c");
    ob_node(m, "Relu", "relu1", "c", "r1");
    ob_node(m, "Relu", "relu2", "c", "r2");
    ob_node(m, "Add", "add", "r1,r2", "y");
    ob_output(m, "y");
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    fl_status st;
    fl_report *r = run_opts(m, &o, &st);
    if (st != FL_OK) {
        printf("analysis failed: %s\n", r && r->error ? r->error : "?");
    }
    assert_int_equal(st, FL_OK);
    assert_true(r->n_ledger > 0); /* CSE merged relu1 and relu2 */
    assert_int_equal(r->n_symbols, 1);
    assert_string_equal(r->symbols[0], "N");
    /* conv 2*768*N, two Relu and the Add 256*N each; CSE drops one Relu. */
    assert_string_equal(r->before.flops.text, "2304*N");
    assert_string_equal(r->after.flops.text, "2048*N");
    fl_report_free(r);
    ob_free(m);
}

/* MaxPool with ceil_mode (GoogLeNet's 112 -> 56) and a window dropped from
 * the end padding (6, k2, s2, pads 0/1: ceil(5/2) + 1 = 4, but the 4th
 * window would start at 6 >= 6 + 0 -> 3). FLOPs = prod(kernel) x E(out) = 6 x 336. */
static void test_pool_ceil_mode(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 112, 6}, NULL);
    Onnx__NodeProto *p = ob_node(m, "MaxPool", "pool", "x", "y");
    ob_attr_ints(m, p, "kernel_shape", 2, (int64_t[]){3, 2});
    ob_attr_ints(m, p, "strides", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, p, "pads", 4, (int64_t[]){0, 0, 0, 1});
    ob_attr_i(m, p, "ceil_mode", 1);
    ob_node(m, "GlobalAveragePool", "gap", "y", "z");
    ob_output(m, "z");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "pool");
    assert_string_equal(n->outputs[0].shape, "[1,2,56,3]");
    assert_int_equal(n->flops.value, 6 * 336);
    const fl_report_node *g = tg_find(r, "gap");
    assert_string_equal(g->outputs[0].shape, "[1,2,1,1]");
    assert_int_equal(g->flops.value, 336);
    fl_report_free(r);
    ob_free(m);
}

/* ------------------------------------------------------------------------- */
/* Matrix products                                                            */
/* ------------------------------------------------------------------------- */

/* Gemm transA/transB: A [5,3] -> [3,5], B [4,5] -> [5,4], C [4]: Y [3,4],
 * MACs 3 x 4 x 5 = 60, FLOPs 120 + 12 (C). */
static void test_gemm_trans(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    ob_init_f(m, "b", 2, (int64_t[]){4, 5}, false);
    ob_init_f(m, "c", 1, (int64_t[]){4}, false);
    Onnx__NodeProto *g = ob_node(m, "Gemm", "gemm", "a,b,c", "y");
    ob_attr_i(m, g, "transA", 1);
    ob_attr_i(m, g, "transB", 1);
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "gemm");
    assert_string_equal(n->outputs[0].shape, "[3,4]");
    assert_counts(n, 132, 60, (15 + 20 + 4 + 12) * 4);
    fl_report_free(r);
    ob_free(m);
}

/* MatMul, numpy semantics: [2,1,3,5] x [4,5,6] -> [2,4,3,6], MACs 8 x 3 x 6
 * x 5 = 720; a vector operand is promoted and its dim dropped: [5] x [5,6]
 * -> [6], MACs 30. */
static void test_matmul_batched(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "a", OB_FLOAT, 4, (int64_t[]){2, 1, 3, 5}, NULL);
    ob_input(m, "b", OB_FLOAT, 3, (int64_t[]){4, 5, 6}, NULL);
    ob_input(m, "v", OB_FLOAT, 1, (int64_t[]){5}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){5, 6}, false);
    ob_node(m, "MatMul", "mm", "a,b", "y");
    ob_node(m, "MatMul", "mv", "v,w", "z");
    ob_output(m, "y");
    ob_output(m, "z");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "mm");
    assert_string_equal(n->outputs[0].shape, "[2,4,3,6]");
    assert_counts(n, 1440, 720, (30 + 120 + 144) * 4);
    n = tg_find(r, "mv");
    assert_string_equal(n->outputs[0].shape, "[6]");
    assert_int_equal(n->macs.value, 30);
    fl_report_free(r);
    ob_free(m);
}

/* com.microsoft::FusedMatMul with transBatchB and transB (ORT's attention
 * scores): A [4,128,64], B [128,4,64]: transBatchB moves dim 0 to rank-2
 * ([4,128,64]), transB swaps the last two ([4,64,128]): Y [4,128,128], MACs
 * 4 x 128 x 128 x 64; alpha 0.125 adds E(Y). */
static void test_fused_matmul(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_opset(m, "com.microsoft", 1);
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){4, 128, 64}, NULL);
    ob_input(m, "b", OB_FLOAT, 3, (int64_t[]){128, 4, 64}, NULL);
    Onnx__NodeProto *f = ob_node(m, "FusedMatMul", "fmm", "a,b", "y");
    ob_domain(m, f, "com.microsoft");
    ob_attr_i(m, f, "transB", 1);
    ob_attr_i(m, f, "transBatchB", 1);
    ob_attr_f(m, f, "alpha", 0.125f);
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "fmm");
    assert_string_equal(n->op, "FusedMatMul");
    assert_string_equal(n->outputs[0].shape, "[4,128,128]");
    assert_int_equal(n->macs.value, 4 * 128 * 128 * 64);
    assert_int_equal(n->flops.value, 2 * 4 * 128 * 128 * 64 + 4 * 128 * 128);
    fl_report_free(r);
    ob_free(m);
}

/* ------------------------------------------------------------------------- */
/* Shape computations                                                         */
/* ------------------------------------------------------------------------- */

/* Constant's string forms: value_strings ["a","bc","d"] is a string tensor
 * [3], value_string "hi" a string scalar; StringConcat (opset 20) of the
 * two broadcasts to [3]. */
static void test_constant_strings(void **state) {
    (void)state;
    ob_model *m = ob_new(20);
    ob_attr_strings(m, ob_node(m, "Constant", "ks", "", "s"), "value_strings", 3,
                    (const char *const[]){"a", "bc", "d"});
    ob_attr_s(m, ob_node(m, "Constant", "k1", "", "h"), "value_string", "hi");
    ob_node(m, "StringConcat", "cat", "s,h", "y");
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const struct {
        const char *node, *shape;
    } want[] = {{"ks", "[3]"}, {"k1", "[]"}, {"cat", "[3]"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *n = tg_find(r, want[i].node);
        assert_string_equal(n->outputs[0].shape, want[i].shape);
        assert_string_equal(n->outputs[0].dtype, "string");
    }
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
    ob_free(m);
}

/* The exporter's Reshape target: Shape -> Gather -> Unsqueeze -> Concat with
 * [-1] resolves exactly, also with a symbolic batch: X [N,3,4] -> [N,12]. */
static void test_reshape_shape_chain(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, 3, 4}, (const char *const[]){"N", 0, 0});
    ob_init_i64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_init_i64(m, "axes0", 1, (int64_t[]){1}, (int64_t[]){0});
    Onnx__NodeProto *k = ob_node(m, "Constant", "minus1", "", "m1");
    ob_attr_tensor_i64(m, k, "value", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_node(m, "Shape", "shape", "x", "s");
    Onnx__NodeProto *g = ob_node(m, "Gather", "gather", "s,zero", "n");
    ob_attr_i(m, g, "axis", 0);
    ob_node(m, "Unsqueeze", "unsq", "n,axes0", "n1");
    Onnx__NodeProto *c = ob_node(m, "Concat", "concat", "n1,m1", "target");
    ob_attr_i(m, c, "axis", 0);
    ob_node(m, "Reshape", "reshape", "x,target", "y");
    ob_node(m, "Flatten", "flat", "x", "f");
    ob_output(m, "y");
    ob_output(m, "f");
    fl_report *r = run_ok(m);
    assert_string_equal(tg_find(r, "gather")->outputs[0].shape, "[]");
    assert_string_equal(tg_find(r, "concat")->outputs[0].shape, "[2]");
    const fl_report_node *n = tg_find(r, "reshape");
    assert_string_equal(n->outputs[0].shape, "[N,12]");
    assert_int_equal(n->bytes.value, 0); /* Reshape aliases its input */
    assert_string_equal(tg_find(r, "flat")->outputs[0].shape, "[N,12]");
    assert_string_equal(tg_find(r, "minus1")->op, "Constant");
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
    ob_free(m);
}

/* torch's F.pad export: the pads are a [rank, 2] int64 table of (begin, end) rows, transposed
 * and flattened into ONNX's all-begins-then-all-ends order. Transpose must evaluate (with perm
 * [1,0] and with no perm: reversed dims) so the Pad's output is known: X [N,5,6], rows (0,0),
 * (1,2), (3,4) -> pads [0,1,3,0,2,4] -> [N,8,13]. */
static void test_transpose_evaluates_pads(void **state) {
    (void)state;
    for (int with_perm = 0; with_perm < 2; with_perm++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, 5, 6}, (const char *const[]){"N", 0, 0});
        ob_init_i64(m, "rows", 2, (int64_t[]){3, 2}, (int64_t[]){0, 0, 1, 2, 3, 4});
        ob_init_i64(m, "flat", 1, (int64_t[]){1}, (int64_t[]){-1});
        Onnx__NodeProto *t = ob_node(m, "Transpose", "tr", "rows", "cols");
        if (with_perm) {
            ob_attr_ints(m, t, "perm", 2, (int64_t[]){1, 0});
        }
        ob_node(m, "Reshape", "flatten", "cols,flat", "pads");
        ob_node(m, "Pad", "pad", "x,pads", "y");
        ob_output(m, "y");
        fl_report *r = run_ok(m);
        assert_string_equal(tg_find(r, "tr")->outputs[0].shape, "[2,3]");
        assert_string_equal(tg_find(r, "pad")->outputs[0].shape, "[N,8,13]");
        assert_int_equal(r->nodes_incomplete, 0);
        fl_report_free(r);
        ob_free(m);
    }
}

/* Slice (opset 13 inputs): X [10,20]; axis 0 from 1 to 100 (clamped to 10)
 * step 2 -> 5; axis 1 from -5 (15) to the end -> 5. A reversed slice of the
 * whole axis 1 (start -1, end INT64_MIN, step -1) keeps 20. */
static void test_slice(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){10, 20}, NULL);
    ob_init_i64(m, "starts", 1, (int64_t[]){2}, (int64_t[]){1, -5});
    ob_init_i64(m, "ends", 1, (int64_t[]){2}, (int64_t[]){100, INT64_MAX});
    ob_init_i64(m, "axes", 1, (int64_t[]){2}, (int64_t[]){0, 1});
    ob_init_i64(m, "steps", 1, (int64_t[]){2}, (int64_t[]){2, 1});
    ob_init_i64(m, "rs", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_init_i64(m, "re", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN});
    ob_init_i64(m, "ra", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_node(m, "Slice", "slice", "x,starts,ends,axes,steps", "y");
    ob_node(m, "Slice", "rev", "x,rs,re,ra,rs", "z");
    ob_output(m, "y");
    ob_output(m, "z");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "slice");
    assert_string_equal(n->outputs[0].shape, "[5,5]");
    assert_int_equal(n->flops.value, 0);
    assert_true(n->has_rule);
    assert_string_equal(tg_find(r, "rev")->outputs[0].shape, "[10,20]");
    fl_report_free(r);
    ob_free(m);
}

/* Slice of a free dim t (x [b,t,8], axis 1), as exporters write it: the
 * sentinels INT64_MAX and INT64_MIN / -INT64_MAX stand for either end, and
 * hold for any dim under 2^30. torch's flip (start -1, end -INT64_MAX, step
 * -1) keeps t; x[:, ::-2] (start INT64_MAX, end INT64_MIN, step -2) takes
 * ceil(t/2); x[:, -2::-1] t - 1; x[:, 0::-1] 1; x[:, 1:] t - 1; x[:, 2:-1:3]
 * ceil((t-3)/3) = ceil(t/3) - 1. Every node's count is complete. */
static void test_slice_symbolic_steps(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, -1, 8}, (const char *[]){"b", "t", NULL});
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_i64(m, "m1", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_init_i64(m, "m2", 1, (int64_t[]){1}, (int64_t[]){-2});
    ob_init_i64(m, "s0", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_i64(m, "p1", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_i64(m, "p2", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_init_i64(m, "p3", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_init_i64(m, "max", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_i64(m, "min", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN});
    ob_init_i64(m, "nmax", 1, (int64_t[]){1}, (int64_t[]){-INT64_MAX});
    ob_node(m, "Slice", "flip", "x,m1,nmax,ax,m1", "y0");
    ob_node(m, "Slice", "rev2", "x,max,min,ax,m2", "y1");
    ob_node(m, "Slice", "from2", "x,m2,nmax,ax,m1", "y2");
    ob_node(m, "Slice", "first", "x,s0,min,ax,m1", "y3");
    ob_node(m, "Slice", "tail", "x,p1,max,ax,p1", "y4");
    ob_node(m, "Slice", "step3", "x,p2,m1,ax,p3", "y5");
    for (int i = 0; i < 6; i++) {
        char o[4] = {'y', (char)('0' + i), 0};
        ob_output(m, o);
    }
    fl_report *r = run_ok(m);
    static const char *const want[][2] = {
        {"flip", "[b,t,8]"},  {"rev2", "[b,ceil(t/2),8]"}, {"from2", "[b,t - 1,8]"},
        {"first", "[b,1,8]"}, {"tail", "[b,t - 1,8]"},     {"step3", "[b,ceil(t/3) - 1,8]"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fl_report_node *n = tg_find(r, want[i][0]);
        assert_string_equal(n->outputs[0].shape, want[i][1]);
        assert_false(n->incomplete);
    }
    assert_true(r->complete);
    fl_report_free(r);
    ob_free(m);
}

/* Slice's value (a constant's part, read back as Reshape's shape): K [3,4] =
 * [[1,2,3,4],[2,1,1,2],[3,1,2,1]]; rows 1..2, columns 1..3 (step 1) are
 * [[1,1,2],[1,2,1]], so x (4) takes the shape [1,1,2,1,2,1]; rows and columns
 * 0 and 2 (step 2) are [[1,3],[3,2]], so z (18) takes [1,3,3,2]. */
static void test_slice_value(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_input(m, "z", OB_FLOAT, 1, (int64_t[]){18}, NULL);
    ob_init_i64(m, "k", 2, (int64_t[]){3, 4}, (int64_t[]){1, 2, 3, 4, 2, 1, 1, 2, 3, 1, 2, 1});
    ob_init_i64(m, "s1", 1, (int64_t[]){2}, (int64_t[]){1, 1});
    ob_init_i64(m, "e1", 1, (int64_t[]){2}, (int64_t[]){3, 4});
    ob_init_i64(m, "s2", 1, (int64_t[]){2}, (int64_t[]){0, 0});
    ob_init_i64(m, "e2", 1, (int64_t[]){2}, (int64_t[]){3, 4});
    ob_init_i64(m, "ax", 1, (int64_t[]){2}, (int64_t[]){0, 1});
    ob_init_i64(m, "st", 1, (int64_t[]){2}, (int64_t[]){2, 2});
    ob_init_i64(m, "flat", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_node(m, "Slice", "a", "k,s1,e1", "ka");
    ob_node(m, "Slice", "b", "k,s2,e2,ax,st", "kb");
    ob_node(m, "Reshape", "fa", "ka,flat", "da");
    ob_node(m, "Reshape", "fb", "kb,flat", "db");
    ob_node(m, "Reshape", "ra", "x,da", "ya");
    ob_node(m, "Reshape", "rb", "z,db", "yb");
    ob_output(m, "ya");
    ob_output(m, "yb");
    fl_report *r = run_ok(m);
    assert_string_equal(tg_find(r, "ra")->outputs[0].shape, "[1,1,2,1,2,1]");
    assert_string_equal(tg_find(r, "rb")->outputs[0].shape, "[1,3,3,2]");
    fl_report_free(r);
    ob_free(m);
}

/* Values that only change shape (Unsqueeze, Flatten, Squeeze, Reshape,
 * Identity) keep their elements in order, read back as Reshape's shape:
 * the int64 K [2,3] = [[2,1,3],[1,2,2]] unsqueezed to [1,2,3], flattened to
 * [1,6] and squeezed to [6] reshapes x (24) to [2,1,3,1,2,2]; the float F
 * [2,3,4] (raw_data, read in place) reshaped to [1,3], through Identity,
 * cast to int64 and flattened reshapes z (24) to [2,3,4]. */
static void test_reshaped_values(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){24}, NULL);
    ob_input(m, "z", OB_FLOAT, 1, (int64_t[]){24}, NULL);
    ob_init_i64(m, "k", 2, (int64_t[]){2, 3}, (int64_t[]){2, 1, 3, 1, 2, 2});
    ob_init_raw(m, "f", OB_FLOAT, 1, (int64_t[]){3}, (float[]){2.0f, 3.0f, 4.0f}, 12);
    ob_init_i64(m, "ax0", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_i64(m, "row", 1, (int64_t[]){2}, (int64_t[]){1, 3});
    ob_init_i64(m, "flat", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_node(m, "Unsqueeze", "u", "k,ax0", "ku");
    ob_attr_i(m, ob_node(m, "Flatten", "fl", "ku", "kf"), "axis", 1);
    ob_node(m, "Squeeze", "sq", "kf,ax0", "ks");
    ob_node(m, "Reshape", "rx", "x,ks", "y");
    ob_node(m, "Reshape", "rf", "f,row", "fr");
    ob_node(m, "Identity", "id", "fr", "fi");
    ob_attr_i(m, ob_node(m, "Cast", "c", "fi", "fc"), "to", OB_INT64);
    ob_node(m, "Reshape", "ff", "fc,flat", "fs");
    ob_node(m, "Reshape", "rz", "z,fs", "w");
    ob_output(m, "y");
    ob_output(m, "w");
    fl_report *r = run_ok(m);
    assert_string_equal(tg_find(r, "sq")->outputs[0].shape, "[6]");
    assert_string_equal(tg_find(r, "rx")->outputs[0].shape, "[2,1,3,1,2,2]");
    assert_string_equal(tg_find(r, "ff")->outputs[0].shape, "[3]");
    assert_string_equal(tg_find(r, "rz")->outputs[0].shape, "[2,3,4]");
    fl_report_free(r);
    ob_free(m);
}

/* A tensor's float_data and double_data are read where they lie, at any
 * alignment (the ONNX reader keeps a single packed run a view of the
 * model's bytes): F [2,3,4] in float_data and D [3,1,2] in double_data, cast
 * to int64, reshape x (24) to [2,3,4] and z (6) to [3,1,2]. The model is
 * analysed from 8 offsets into a buffer, so each run lies at every
 * alignment of its elements; and again with an empty second `graph` field
 * after it (a singular message met twice, which protobuf-c merges: the
 * model is read by the generic reader, which keeps the runs views too). */
static void test_typed_data_any_alignment(void **state) {
    (void)state;
    static const float fv[3] = {2.0f, 3.0f, 4.0f};
    static const double dv[3] = {3.0, 1.0, 2.0};
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){24}, NULL);
    ob_input(m, "z", OB_FLOAT, 1, (int64_t[]){6}, NULL);
    Onnx__TensorProto *f = ob_init_raw(m, "f", OB_FLOAT, 1, (int64_t[]){3}, NULL, 0);
    f->n_float_data = 3;
    f->float_data = (float *)fv;
    Onnx__TensorProto *d = ob_init_raw(m, "d", 11 /* DOUBLE */, 1, (int64_t[]){3}, NULL, 0);
    d->n_double_data = 3;
    d->double_data = (double *)dv;
    ob_attr_i(m, ob_node(m, "Cast", "cf", "f", "fc"), "to", OB_INT64);
    ob_attr_i(m, ob_node(m, "Cast", "cd", "d", "dc"), "to", OB_INT64);
    ob_node(m, "Reshape", "rx", "x,fc", "y");
    ob_node(m, "Reshape", "rz", "z,dc", "w");
    ob_output(m, "y");
    ob_output(m, "w");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    uint8_t *mem = malloc(len + 8 + 2);
    assert_non_null(mem);
    for (size_t shift = 0; shift < 16; shift++) {
        bool twice = shift >= 8; /* ModelProto.graph (7, bytes) once more, empty */
        memcpy(mem + shift % 8, buf, len);
        memcpy(mem + shift % 8 + len, (const uint8_t[]){7 << 3 | 2, 0}, 2);
        fl_options o;
        fl_options_init(&o);
        o.per_node = true;
        fl_report *r = NULL;
        assert_int_equal(fl_analyze(mem + shift % 8, len + (twice ? 2 : 0), &o, &r), FL_OK);
        assert_string_equal(tg_find(r, "rx")->outputs[0].shape, "[2,3,4]");
        assert_string_equal(tg_find(r, "rz")->outputs[0].shape, "[3,1,2]");
        fl_report_free(r);
    }
    free(mem);
    free(buf);
    ob_free(m);
}

/* An absent optional input in the middle (Clip without min) reads the
 * importer's empty marker; trailing absent inputs are dropped. */
static void test_absent_optional_input(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    ob_init_f(m, "hi", 0, NULL, false);
    ob_node(m, "Clip", "clip", "x,,hi", "y");
    ob_node(m, "Relu", "relu", "y,", "z");
    ob_output(m, "z");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "clip");
    assert_string_equal(n->outputs[0].shape, "[4,5]");
    assert_counts(n, 20, 0, 80 + 4 + 80);
    assert_int_equal(tg_find(r, "relu")->flops.value, 20);
    fl_report_free(r);
    ob_free(m);
}

/* A consumer listed before its producer: its inputs are resolved once every
 * node is in, beside one met before it (the initializer hi) and an absent one
 * in the middle. Clip reads relu's [4,5] output: 20 FLOPs, 80 + 4 + 80 bytes
 * (x's elements, hi's one float, y's elements). */
static void test_consumer_before_producer(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    ob_init_f(m, "hi", 0, NULL, false);
    ob_node(m, "Clip", "clip", "r,,hi", "y");
    ob_node(m, "Relu", "relu", "x", "r");
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "clip");
    assert_string_equal(n->outputs[0].shape, "[4,5]");
    assert_counts(n, 20, 0, 80 + 4 + 80);
    assert_string_equal(tg_find(r, "relu")->outputs[0].shape, "[4,5]");
    fl_report_free(r);
    ob_free(m);
}

/* A node with many more outputs than the graph has nodes: Split of x [200]
 * into 200 outputs of [1] (opset 13, no split input: equal parts). Every
 * output is a value of its own; the last one feeds a Relu. */
static void test_many_outputs(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){200}, NULL);
    char outs[200 * 6];
    size_t at = 0;
    for (int i = 0; i < 200; i++) {
        at += (size_t)snprintf(outs + at, sizeof outs - at, "%sp%d", i ? "," : "", i);
    }
    ob_node(m, "Split", "sp", "x", outs);
    ob_node(m, "Relu", "relu", "p199", "y");
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    const fl_report_node *n = tg_find(r, "sp");
    assert_int_equal(n->n_outputs, 200);
    assert_string_equal(n->outputs[199].shape, "[1]");
    assert_string_equal(tg_find(r, "relu")->outputs[0].shape, "[1]");
    fl_report_free(r);
    ob_free(m);
}

/* Split from opset 18: attr num_outputs (3) over x [6,3] gives three [2,3];
 * neither num_outputs nor input split, both, or a num_outputs other than
 * the node's output count fail. */
static void test_split_num_outputs(void **state) {
    (void)state;
    const struct {
        bool num, split;
        int64_t n;
        const char *want; /* NULL: valid */
    } cases[] = {
        {true, false, 3, NULL},
        {false, false, 0, "node 'sp' (Split): has neither input 'split' nor attr 'num_outputs'"},
        {true, true, 3, "node 'sp' (Split): has both input 'split' and attr 'num_outputs'"},
        {true, false, 2, "node 'sp' (Split): attr 'num_outputs' is 2 but the node has 3 outputs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(18);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){6, 3}, NULL);
        ob_init_i64(m, "parts", 1, (int64_t[]){3}, (int64_t[]){2, 2, 2});
        Onnx__NodeProto *sp = ob_node(m, "Split", "sp", cases[i].split ? "x,parts" : "x", "a,b,c");
        if (cases[i].num) {
            ob_attr_i(m, sp, "num_outputs", cases[i].n);
        }
        ob_output(m, "c");
        if (!cases[i].want) {
            fl_report *r = run_ok(m);
            const fl_report_node *n = tg_find(r, "sp");
            for (int o = 0; o < 3; o++) {
                assert_string_equal(n->outputs[o].shape, "[2,3]");
            }
            fl_report_free(r);
        } else {
            fl_report *r = run_fail(m, FL_EINVAL);
            assert_non_null(strstr(r->error, cases[i].want));
            fl_report_free(r);
        }
        ob_free(m);
    }
}

/* ------------------------------------------------------------------------- */
/* Errors                                                                     */
/* ------------------------------------------------------------------------- */

static void test_error_missing_input(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Add", "adder", "x,nope", "y");
    ob_output(m, "y");
    fl_report *r = run_fail(m, FL_EINVAL);
    assert_non_null(strstr(r->error, "node 'adder'"));
    assert_non_null(strstr(r->error, "'nope'"));
    assert_non_null(strstr(r->error, "input[1]"));
    fl_report_free(r);
    ob_free(m);
}

/* An empty name stands for an absent optional input only: for a required
 * one (Conv's X, LayerNormalization's X or Scale, Add's A) the import fails
 * naming the node and the input, as ONNX's checker does. Before, the
 * absent marker's empty tensor went on into inference (LayerNormalization
 * of it reported an output of [0], a wrong answer given as whole). Loop's
 * optional M and cond before its loop-carried values are in
 * test_onnx_flow.c. */
static void test_error_required_input_empty(void **state) {
    (void)state;
    static const struct {
        const char *op, *in, *want;
    } cases[] = {
        {"Conv", ",w",
         "node 'n' (Conv): input 0 is required, but its name is empty (field: "
         "input[0])"},
        {"LayerNormalization", ",x", "node 'n' (LayerNormalization): input 0 is required"},
        {"LayerNormalization", "x,,b", "node 'n' (LayerNormalization): input 1 is required"},
        {"Add", ",x", "node 'n' (Add): input 0 is required, but its name is empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(17);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 8, 8}, NULL);
        ob_init_f(m, "w", 4, (int64_t[]){4, 3, 3, 3}, true);
        ob_init_f(m, "b", 1, (int64_t[]){8}, true);
        ob_node(m, cases[i].op, "n", cases[i].in, "y");
        ob_output(m, "y");
        fl_report *r = run_fail(m, FL_EINVAL);
        if (!strstr(r->error, cases[i].want)) {
            fail_msg("%s: error '%s' lacks '%s'", cases[i].op, r->error, cases[i].want);
        }
        fl_report_free(r);
        ob_free(m);
    }
}

/* Every ai.onnx operator with an attribute its schema marks required (the
 * latest version of each, from ONNX's operator changelog) fails without it,
 * naming the node and the attribute, rather than reading a default: a
 * node without its window, axis, target type or body is not a graph ONNX
 * would run. */
static void test_error_required_attr_missing(void **state) {
    (void)state;
    static const struct {
        const char *op, *in;
        int opset;
        const char *want;
    } cases[] = {
        {"AveragePool", "x", 22, "missing required attr 'kernel_shape'"},
        {"LpPool", "x", 22, "missing required attr 'kernel_shape'"},
        {"MaxPool", "x", 22, "missing required attr 'kernel_shape'"},
        {"MaxUnpool", "x,idx", 22, "missing required attr 'kernel_shape'"},
        {"MaxRoiPool", "x,rois", 22, "missing required attr 'pooled_shape'"},
        {"BitCast", "x", 26, "missing required attr 'to'"},
        {"Cast", "x", 25, "missing required attr 'to'"},
        {"BitShift", "u,u", 11, "missing required attr 'direction'"},
        {"Concat", "x,x", 13, "missing required attr 'axis'"},
        {"DepthToSpace", "x", 13, "missing required attr 'blocksize'"},
        {"SpaceToDepth", "x", 13, "missing required attr 'blocksize'"},
        {"Einsum", "x,x", 12, "missing required attr 'equation'"},
        {"GroupNormalization", "x,s,s", 21, "missing required attr 'num_groups'"},
        {"LRN", "x", 13, "missing required attr 'size'"},
        {"RandomNormal", "", 22, "missing required attr 'shape'"},
        {"RandomUniform", "", 22, "missing required attr 'shape'"},
        {"TfIdfVectorizer", "t", 9, "missing required attr 'ngram_indexes'"},
        {"If", "c", 21, "attr 'then_branch' (a graph) is missing"},
        {"Loop", "M,c,x", 21, "attr 'body' (a graph) is missing"},
        {"Scan", "x", 21, "attr 'body' (a graph) is missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(cases[i].opset);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 8, 8}, NULL);
        ob_input(m, "u", 12 /* uint32 */, 2, (int64_t[]){2, 3}, NULL);
        ob_input(m, "s", OB_FLOAT, 1, (int64_t[]){4}, NULL);
        ob_input(m, "c", OB_BOOL, 0, NULL, NULL);
        ob_input(m, "M", OB_INT64, 0, NULL, NULL);
        ob_input(m, "rois", OB_FLOAT, 2, (int64_t[]){2, 5}, NULL);
        ob_input(m, "idx", OB_INT64, 4, (int64_t[]){1, 4, 8, 8}, NULL);
        ob_input(m, "t", OB_INT64, 2, (int64_t[]){2, 6}, NULL);
        ob_node(m, cases[i].op, "n", cases[i].in, "y");
        ob_output(m, "y");
        fl_report *r = run_fail(m, FL_EINVAL);
        char want[160];
        snprintf(want, sizeof want, "node 'n' (%s): %s", cases[i].op, cases[i].want);
        if (!strstr(r->error, want)) {
            fail_msg("%s: error '%s' lacks '%s'", cases[i].op, r->error, want);
        }
        fl_report_free(r);
        ob_free(m);
    }
}

static void test_error_raw_data_size(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 2}, NULL);
    Onnx__TensorProto *t = ob_init_f(m, "w", 2, (int64_t[]){2, 2}, false);
    t->raw_data.len = 12; /* 3 floats for 4 elements */
    ob_node(m, "Mul", "mul", "x,w", "y");
    ob_output(m, "y");
    fl_report *r = run_fail(m, FL_EINVAL);
    assert_non_null(strstr(r->error, "node 'w'"));
    assert_non_null(strstr(r->error, "raw_data is 12 bytes"));
    fl_report_free(r);
    ob_free(m);

    /* The same in a Constant node names that node. */
    m = ob_new(13);
    Onnx__NodeProto *k = ob_node(m, "Constant", "konst", "", "c");
    ob_attr_tensor_i64(m, k, "value", 1, (int64_t[]){2}, (int64_t[]){1, 2});
    k->attribute[0]->t->raw_data.len = 9;
    ob_output(m, "c");
    r = run_fail(m, FL_EINVAL);
    assert_non_null(strstr(r->error, "node 'konst'"));
    assert_non_null(strstr(r->error, "attr 'value'"));
    fl_report_free(r);
    ob_free(m);
}

static void test_error_duplicate_output_and_domain(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "r1", "x", "y");
    ob_node(m, "Relu", "r2", "x", "y");
    ob_output(m, "y");
    fl_report *r = run_fail(m, FL_EINVAL);
    assert_non_null(strstr(r->error, "node 'r2'"));
    assert_non_null(strstr(r->error, "already produced by 'r1' (field: output[0])"));
    fl_report_free(r);
    ob_free(m);

    m = ob_new(13);
    ob_opset(m, "com.example", 3);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Frobnicate", "frob", "x", "y");
    ob_domain(m, n, "com.example");
    ob_output(m, "y");
    /* An op of a domain we do not model: a warning naming op, domain and
     * version, the node counted as unknown, its output unknown. */
    r = run_ok(m);
    assert_int_equal(r->n_unknown_ops, 1);
    assert_string_equal(r->unknown_ops[0].op, "Frobnicate");
    assert_true(fl_test_has_warning(r,
                                    "node 'frob': op 'Frobnicate' of domain 'com.example' "
                                    "(opset 3) is not modelled",
                                    NULL));
    fl_report_free(r);
    ob_free(m);
}

/* Analyses one Relu in a model whose only operator set is ai.onnx at 13
 * under the domain name `domain` ("" and "ai.onnx" both name it). */
static fl_status run_relu_under(const char *domain, fl_report **r) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(mp);
    assert_int_equal(mp->n_opset_import, 1);
    char *was = mp->opset_import[0]->domain;
    mp->opset_import[0]->domain = (char *)domain;
    len = onnx__model_proto__get_packed_size(mp);
    buf = malloc(len);
    assert_non_null(buf);
    onnx__model_proto__pack(mp, buf);
    mp->opset_import[0]->domain = was;
    onnx__model_proto__free_unpacked(mp, NULL);
    fl_options o;
    fl_options_init(&o);
    *r = NULL;
    fl_status st = fl_analyze(buf, len, &o, r);
    free(buf);
    return st;
}

/* A node of the default domain ("") needs the model to import ai.onnx,
 * under either of its names. */
static void test_default_domain_declared(void **state) {
    (void)state;
    fl_report *r;
    assert_int_equal(run_relu_under("ai.onnx", &r), FL_OK);
    assert_int_equal(r->n_ops, 1);
    assert_string_equal(r->ops[0].op, "Relu");
    fl_report_free(r);
    assert_int_equal(run_relu_under("com.microsoft", &r), FL_EINVAL);
    assert_non_null(r->error);
    assert_non_null(strstr(r->error, "node 'relu'"));
    assert_non_null(strstr(r->error, "domain '' is not declared in the model's opset_import "
                                     "(field: domain)"));
    fl_report_free(r);
}

/* Op types of the default domain that begin alike keep their own registry
 * kinds, in either order: Relu is modelled, Rexotic is not (an unknown op). */
static void test_default_domain_kinds_alike(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "r1", "x", "a");
    ob_node(m, "Rexotic", "e1", "a", "b");
    ob_node(m, "Relu", "r2", "b", "c");
    ob_node(m, "Rexotic", "e2", "c", "y");
    ob_output(m, "y");
    fl_report *r = run_ok(m);
    assert_int_equal(r->n_unknown_ops, 1);
    assert_string_equal(r->unknown_ops[0].op, "Rexotic");
    assert_int_equal(r->unknown_ops[0].count, 2);
    bool relu = false;
    for (size_t i = 0; i < r->n_ops; i++) {
        if (strcmp(r->ops[i].op, "Relu") == 0) {
            relu = true;
            assert_int_equal(r->ops[i].count, 2);
        }
    }
    assert_true(relu);
    fl_report_free(r);
    ob_free(m);
}

/* Expects the analysis of `m` to fail with `want` and an error containing
 * `needle`; frees the model. */
static void expect_fail(ob_model *m, fl_status want, const char *needle) {
    fl_report *r = run_fail(m, want);
    if (!strstr(r->error, needle)) {
        fail_msg("error '%s' lacks '%s'", r->error, needle);
    }
    fl_report_free(r);
    ob_free(m);
}

/* What ONNX allows but foldline does not handle is FL_EUNSUPPORTED; what
 * ONNX itself forbids stays FL_EINVAL (the model is wrong). */
static void test_error_unsupported(void **state) {
    (void)state;
    /* Data type codes past ONNX's last (INT2 = 26; every code up to it is
     * mapped, test_onnx_ops) in an initializer and a graph input: a newer
     * ONNX than foldline knows; UNDEFINED (0) is an error of the model. */
    ob_model *m = ob_new(21);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_init_f(m, "w", 1, (int64_t[]){4}, true)->data_type = 27;
    ob_node(m, "Add", "add", "x,w", "y");
    ob_output(m, "y");
    expect_fail(m, FL_EUNSUPPORTED,
                "initializer: data_type 27 (newer than this foldline knows) is not supported");
    m = ob_new(21);
    ob_input(m, "x", 28, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    expect_fail(m, FL_EUNSUPPORTED,
                "graph input: elem_type 28 (newer than this foldline knows) is not supported");
    m = ob_new(21);
    ob_input(m, "x", 0, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    expect_fail(m, FL_EINVAL, "elem_type 0 is not a data type");

    /* Operator sets before 7 are read with a warning (test_onnx_ops). */

    /* Constant's sparse form is ONNX's but not read (its string forms are:
     * test_constant_strings); an attr of another name is not ONNX's. */
    m = ob_new(13);
    ob_attr_i(m, ob_node(m, "Constant", "k", "", "c"), "sparse_value", 1);
    ob_output(m, "c");
    expect_fail(m, FL_EUNSUPPORTED, "node 'k' (Constant): Constant attr 'sparse_value'");
    m = ob_new(13);
    ob_attr_i(m, ob_node(m, "Constant", "k", "", "c"), "value_bogus", 1);
    ob_output(m, "c");
    expect_fail(m, FL_EINVAL, "'value_bogus' is not one of ONNX's Constant attributes");

    /* A map-typed graph input (sequence and optional inputs are read:
     * test_onnx_ops's test_sequence_inputs). */
    m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_input_wrap(m, "m");
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    fl_options o;
    fl_options_init(&o);
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_EUNSUPPORTED);
    assert_non_null(strstr(r->error, "node 'x' (Placeholder): graph input is not a tensor, a "
                                     "sequence of tensors or an optional of either (a map"));
    fl_report_free(r);
    free(buf);
    ob_free(m);
}

static void test_error_limits_and_garbage(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "r1", "x", "y");
    ob_node(m, "Relu", "r2", "y", "z");
    ob_output(m, "z");
    fl_options o;
    fl_options_init(&o);
    o.max_nodes = 2;
    fl_status st;
    fl_report *r = run_opts(m, &o, &st);
    assert_int_equal(st, FL_ELIMIT);
    assert_non_null(strstr(r->error, "limit"));
    fl_report_free(r);

    /* The optimised graph comes back as an ONNX ModelProto holding both
     * Relus, the last one producing the graph output z. */
    fl_options_init(&o);
    o.passes = "default";
    o.return_graph = true;
    r = run_opts(m, &o, &st);
    assert_int_equal(st, FL_OK);
    assert_non_null(r->graph_bytes);
    Onnx__ModelProto *back = onnx__model_proto__unpack(NULL, r->graph_len, r->graph_bytes);
    assert_non_null(back);
    assert_int_equal(back->graph->n_node, 2);
    assert_string_equal(back->graph->node[1]->output[0], "z");
    onnx__model_proto__free_unpacked(back, NULL);
    fl_report_free(r);

    /* The default passes run on ONNX op kinds and leave the counts alone. */
    fl_options_init(&o);
    o.passes = "default";
    r = run_opts(m, &o, &st);
    assert_int_equal(st, FL_OK);
    assert_int_equal(r->after.flops.value, r->before.flops.value);
    fl_report_free(r);
    ob_free(m);

    /* Bytes that are not a ModelProto, forced as ONNX. */
    fl_options_init(&o);
    o.format = FL_FORMAT_ONNX;
    const uint8_t junk[] = {0x3a, 0x05, 0x01};
    r = NULL;
    st = fl_analyze(junk, sizeof junk, &o, &r);
    assert_int_equal(st, FL_EINVAL);
    assert_non_null(strstr(r->error, "ONNX"));
    fl_report_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_group_dilation),
        cmocka_unit_test(test_conv_same_upper),
        cmocka_unit_test(test_dim_param_symbol),
        cmocka_unit_test(test_dim_param_symbol_after_passes),
        cmocka_unit_test(test_pool_ceil_mode),
        cmocka_unit_test(test_gemm_trans),
        cmocka_unit_test(test_matmul_batched),
        cmocka_unit_test(test_fused_matmul),
        cmocka_unit_test(test_reshape_shape_chain),
        cmocka_unit_test(test_constant_strings),
        cmocka_unit_test(test_transpose_evaluates_pads),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_slice_symbolic_steps),
        cmocka_unit_test(test_slice_value),
        cmocka_unit_test(test_reshaped_values),
        cmocka_unit_test(test_typed_data_any_alignment),
        cmocka_unit_test(test_absent_optional_input),
        cmocka_unit_test(test_consumer_before_producer),
        cmocka_unit_test(test_many_outputs),
        cmocka_unit_test(test_split_num_outputs),
        cmocka_unit_test(test_error_missing_input),
        cmocka_unit_test(test_error_required_input_empty),
        cmocka_unit_test(test_error_required_attr_missing),
        cmocka_unit_test(test_error_raw_data_size),
        cmocka_unit_test(test_error_duplicate_output_and_domain),
        cmocka_unit_test(test_default_domain_declared),
        cmocka_unit_test(test_default_domain_kinds_alike),
        cmocka_unit_test(test_error_unsupported),
        cmocka_unit_test(test_error_limits_and_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
