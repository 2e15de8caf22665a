/*
 * test_onnx_ops.c - the ai.onnx families of src/ops/onnxops/: exact shapes
 * and counts derived by hand from each family file's stated rule, bad
 * attributes naming node and attribute, and the importer's handling of
 * domains and opsets it does not model. (Shapes of every op are also
 * checked against ONNX's own expected outputs by test_onnx_node.)
 */
#include "foldline/foldline.h"
#include "onnxbuild.h"
#include "onnxcheck.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ConvTranspose X [1,4,5,5], W [4,2,3,3], stride 2, pads 1, output_padding
 * 1, bias: out = 2 * (5 - 1) + 1 + (3 - 1) + 1 - 2 = 10 -> Y [1,2,10,10].
 * MACs = E(X) * W.dim[1] * 3 * 3 = 100 * 2 * 9 = 1800; FLOPs = 3600 + E(Y)
 * 200 = 3800. */
static void test_conv_transpose(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 5, 5}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){4, 2, 3, 3}, false);
    ob_init_f(m, "b", 1, (int64_t[]){2}, false);
    Onnx__NodeProto *n = ob_node(m, "ConvTranspose", "ct", "x,w,b", "y");
    ob_attr_ints(m, n, "strides", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_ints(m, n, "output_padding", 2, (int64_t[]){1, 1});
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *ct = oc_node(r, "ct");
    assert_string_equal(ct->outputs[0].shape, "[1,2,10,10]");
    oc_assert_cost(ct, 3800, 1800);
    fl_report_free(r);
    ob_free(m);
}

/* LSTM seq 7, batch 2, input 10, hidden 16: Y [7,1,2,16], Y_h/Y_c [1,2,16].
 * MACs = 7 * 2 * 1 * 4 * 16 * (10 + 16) = 23296; FLOPs = 2 * 23296 + 7 * 2 *
 * 16 * 21 = 46592 + 4704 = 51296. */
static void test_lstm(void **state) {
    (void)state;
    ob_model *m = ob_new(14);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){7, 2, 10}, NULL);
    ob_init_f(m, "w", 3, (int64_t[]){1, 64, 10}, true);
    ob_init_f(m, "r", 3, (int64_t[]){1, 64, 16}, true);
    Onnx__NodeProto *n = ob_node(m, "LSTM", "lstm", "x,w,r", "y,yh,yc");
    ob_attr_i(m, n, "hidden_size", 16);
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *l = oc_node(r, "lstm");
    assert_string_equal(l->outputs[0].shape, "[7,1,2,16]");
    assert_string_equal(l->outputs[1].shape, "[1,2,16]");
    assert_string_equal(l->outputs[2].shape, "[1,2,16]");
    oc_assert_cost(l, 51296, 23296);
    fl_report_free(r);
    ob_free(m);
}

/* Einsum "bij,bjk->bik", A [2,3,4], B [2,4,5]: Y [2,3,5]; the loop nest has
 * 2 * 3 * 4 * 5 = 120 points: 120 MACs, 240 FLOPs. The implicit form
 * "ij,jk" names the labels used once (i, k) in order: [3,5]. */
static void test_einsum(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "a", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_input(m, "b", OB_FLOAT, 3, (int64_t[]){2, 4, 5}, NULL);
    ob_input(m, "c", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "d", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    ob_attr_s(m, ob_node(m, "Einsum", "e", "a,b", "y"), "equation", "bij,bjk->bik");
    ob_attr_s(m, ob_node(m, "Einsum", "e2", "c,d", "z"), "equation", "ij,jk");
    ob_output(m, "y");
    ob_output(m, "z");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *e = oc_node(r, "e");
    assert_string_equal(e->outputs[0].shape, "[2,3,5]");
    oc_assert_cost(e, 240, 120);
    assert_string_equal(oc_node(r, "e2")->outputs[0].shape, "[3,5]");
    fl_report_free(r);
    ob_free(m);
}

/* Resize to sizes [1,3,8,8] (linear): 192 output elements, two resized
 * axes: 3 * (2^2 - 1) = 9 FLOPs each = 1728. TopK K = 3 on X [2,10]:
 * Values/Indices [2,3], E(X) * ceil(log2 3) = 20 * 2 = 40. */
static void test_resize_topk(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    ob_init_i64(m, "sizes", 1, (int64_t[]){4}, (int64_t[]){1, 3, 8, 8});
    ob_attr_s(m, ob_node(m, "Resize", "rs", "x,,,sizes", "y"), "mode", "linear");
    ob_input(m, "t", OB_FLOAT, 2, (int64_t[]){2, 10}, NULL);
    ob_init_i64(m, "k", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_node(m, "TopK", "topk", "t,k", "v,i");
    ob_output(m, "y");
    ob_output(m, "v");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *rs = oc_node(r, "rs");
    assert_string_equal(rs->outputs[0].shape, "[1,3,8,8]");
    oc_assert_cost(rs, 1728, 0);
    const fl_report_node *tk = oc_node(r, "topk");
    assert_string_equal(tk->outputs[0].shape, "[2,3]");
    assert_string_equal(tk->outputs[1].dtype, "int64");
    oc_assert_cost(tk, 40, 0);
    fl_report_free(r);
    ob_free(m);
}

/* TopK with K past 2^62: ceil(log2 K) is 63 and E(X) * 63 overflows, which
 * fails naming the node; the rule's own log loop shifted 1 by 63 places and
 * more (undefined; a hang where it wrapped). */
static void test_topk_huge_k(void **state) {
    (void)state;
    int64_t big = ((int64_t)1 << 62) + 8;
    ob_model *m = ob_new(13);
    ob_input(m, "t", OB_FLOAT, 2, (int64_t[]){1, big}, NULL);
    ob_init_i64(m, "k", 1, (int64_t[]){1}, (int64_t[]){big});
    ob_node(m, "TopK", "topk", "t,k", "v,i");
    ob_output(m, "v");
    oc_expect_overflow(m, "node 'topk' (TopK): product overflows 64-bit integers");
}

/* Resize (opset 19) with sizes and keep_aspect_ratio_policy: not_larger /
 * not_smaller take one scale s, the min / max of sizes[i] / in[axes[i]],
 * and each resized dim becomes round(s * in), halves up; stretch (the
 * default) takes the sizes. Linear: 9 FLOPs per output element over two
 * changed axes, cubic 35, none when no dim changes.
 *   [1,1,4,6], sizes [8,8], axes [2,3]: s = 8/6 -> [1,1,5,8] (5.33), 40 x 9
 *     = 360; not_smaller s = 2 -> [1,1,8,12], 96 x 9 = 864; stretch and no
 *     policy [1,1,8,8], 576
 *   [1,3,7,5], sizes [10,10], axes [-2,-1]: s = 10/7 -> [1,3,10,7] (7.14),
 *     210 x 9 = 1890
 *   [1,3,6,9], sizes [1,3,4,4] (all axes), not_smaller: s = 1 ->
 *     [1,3,6,9], 0
 *   [2,3,5,8], sizes [3,3], axes [2,3], not_larger, cubic: s = 3/8 ->
 *     [2,3,2,3] (1.875, 3), 36 x 35 = 1260
 *   [2,3], sizes [3,100], not_larger: s = 1.5 -> [3,5] (4.5 rounds up),
 *     15 x 9 = 135
 * The policy does not apply to scales: [1,1,4,6], scales [2,2], axes
 * [2,3], not_larger -> [1,1,8,12]. */
static void test_resize_keep_aspect(void **state) {
    (void)state;
    const struct {
        int rank;
        int64_t x[4];
        int n;
        int64_t sizes[4];
        int64_t axes[2]; /* {0, 0}: no attr */
        const char *policy, *mode, *want;
        int64_t flops;
    } cases[] = {
        {4, {1, 1, 4, 6}, 2, {8, 8}, {2, 3}, "not_larger", "linear", "[1,1,5,8]", 360},
        {4, {1, 1, 4, 6}, 2, {8, 8}, {2, 3}, "not_smaller", "linear", "[1,1,8,12]", 864},
        {4, {1, 1, 4, 6}, 2, {8, 8}, {2, 3}, "stretch", "linear", "[1,1,8,8]", 576},
        {4, {1, 1, 4, 6}, 2, {8, 8}, {2, 3}, NULL, "linear", "[1,1,8,8]", 576},
        {4, {1, 3, 7, 5}, 2, {10, 10}, {-2, -1}, "not_larger", "linear", "[1,3,10,7]", 1890},
        {4, {1, 3, 6, 9}, 4, {1, 3, 4, 4}, {0, 0}, "not_smaller", "linear", "[1,3,6,9]", 0},
        {4, {2, 3, 5, 8}, 2, {3, 3}, {2, 3}, "not_larger", "cubic", "[2,3,2,3]", 1260},
        {2, {2, 3}, 2, {3, 100}, {0, 0}, "not_larger", "linear", "[3,5]", 135},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(19);
        ob_input(m, "x", OB_FLOAT, cases[i].rank, cases[i].x, NULL);
        ob_init_i64(m, "sizes", 1, (int64_t[]){cases[i].n}, cases[i].sizes);
        Onnx__NodeProto *n = ob_node(m, "Resize", "rs", "x,,,sizes", "y");
        ob_attr_s(m, n, "mode", cases[i].mode);
        if (cases[i].axes[0] || cases[i].axes[1]) {
            ob_attr_ints(m, n, "axes", 2, cases[i].axes);
        }
        if (cases[i].policy) {
            ob_attr_s(m, n, "keep_aspect_ratio_policy", cases[i].policy);
        }
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *rs = oc_node(r, "rs");
        assert_string_equal(rs->outputs[0].shape, cases[i].want);
        oc_assert_cost(rs, cases[i].flops, 0);
        fl_report_free(r);
        ob_free(m);
    }
    ob_model *m = ob_new(19);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 1, 4, 6}, NULL);
    const float two[2] = {2, 2};
    ob_init_raw(m, "scales", OB_FLOAT, 1, (int64_t[]){2}, two, sizeof two);
    Onnx__NodeProto *n = ob_node(m, "Resize", "rs", "x,,scales", "y");
    ob_attr_ints(m, n, "axes", 2, (int64_t[]){2, 3});
    ob_attr_s(m, n, "keep_aspect_ratio_policy", "not_larger");
    ob_output(m, "y");
    oc_expect_shape(m, "rs", "[1,1,8,12]");
}

/* Scales that take a dim to 2^63 or beyond fail naming the dim and the
 * scale (the product was converted from double to int64 unchecked): X
 * [1,INT64_MAX,4,6] with scales [1,1,2,2], and [1,1,2^62,6] with [1,1,2,1]
 * ((2^62) * 2 = 2^63); [1,1,2^40,6] with [1,1,2,1] gives 2^41. */
static void test_resize_scale_overflow(void **state) {
    (void)state;
    static const struct {
        int64_t dims[4];
        float scales[4];
        const char *want;
    } cases[] = {
        {{1, INT64_MAX, 4, 6},
         {1, 1, 2, 2},
         "node 'rs' (Resize): dim 9223372036854775807 * scale 1 overflows 64-bit integers"},
        {{1, 1, (int64_t)1 << 62, 6},
         {1, 1, 2, 1},
         "node 'rs' (Resize): dim 4611686018427387904 * scale 2 overflows 64-bit integers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 4, cases[i].dims, NULL);
        ob_init_raw(m, "scales", OB_FLOAT, 1, (int64_t[]){4}, cases[i].scales,
                    sizeof cases[i].scales);
        ob_node(m, "Resize", "rs", "x,,scales", "y");
        ob_output(m, "y");
        oc_expect_overflow(m, cases[i].want);
    }
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 1, (int64_t)1 << 40, 6}, NULL);
    ob_init_raw(m, "scales", OB_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 2, 1}, 4 * sizeof(float));
    ob_node(m, "Resize", "rs", "x,,scales", "y");
    ob_output(m, "y");
    oc_expect_shape(m, "rs", "[1,1,2199023255552,6]");
}

/* keep_aspect_ratio_policy with dims or sizes that are not known: the
 * resized axes become unknown (the rank and the other dims stay).
 * X [N,3,H,W] (dim_params), sizes [8,8], axes [2,3]: not_larger ->
 * [N,3,?,?]; X [N,3,4,6] -> [N,3,5,8]. sizes = Concat(Shape(z), [8]) =
 * [S,8] (z [S]) on X [1,1,4,6]: not_larger [1,1,?,?], stretch [1,1,S,8].
 * A policy other than the three fails naming the attribute, and so does
 * a zero dim among the resized ones (sizes / 0). */
static void test_resize_keep_aspect_unknown(void **state) {
    (void)state;
    for (int known = 0; known < 2; known++) {
        ob_model *m = ob_new(18);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){-1, 3, known ? 4 : -1, known ? 6 : -1},
                 (const char *[]){"N", NULL, known ? NULL : "H", known ? NULL : "W"});
        ob_init_i64(m, "sizes", 1, (int64_t[]){2}, (int64_t[]){8, 8});
        Onnx__NodeProto *n = ob_node(m, "Resize", "rs", "x,,,sizes", "y");
        ob_attr_ints(m, n, "axes", 2, (int64_t[]){2, 3});
        ob_attr_s(m, n, "keep_aspect_ratio_policy", "not_larger");
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        assert_string_equal(oc_node(r, "rs")->outputs[0].shape, known ? "[N,3,5,8]" : "[N,3,?,?]");
        fl_report_free(r);
        ob_free(m);
    }
    for (int stretch = 0; stretch < 2; stretch++) {
        ob_model *m = ob_new(19);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 1, 4, 6}, NULL);
        ob_input(m, "z", OB_FLOAT, 1, (int64_t[]){-1}, (const char *[]){"S"});
        ob_node(m, "Shape", "sh", "z", "sz");
        ob_init_i64(m, "eight", 1, (int64_t[]){1}, (int64_t[]){8});
        ob_attr_i(m, ob_node(m, "Concat", "cat", "sz,eight", "sizes"), "axis", 0);
        Onnx__NodeProto *n = ob_node(m, "Resize", "rs", "x,,,sizes", "y");
        ob_attr_ints(m, n, "axes", 2, (int64_t[]){2, 3});
        ob_attr_s(m, n, "keep_aspect_ratio_policy", stretch ? "stretch" : "not_larger");
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        assert_string_equal(oc_node(r, "rs")->outputs[0].shape,
                            stretch ? "[1,1,S,8]" : "[1,1,?,?]");
        fl_report_free(r);
        ob_free(m);
    }
    for (int zero = 0; zero < 2; zero++) {
        ob_model *m = ob_new(19);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 1, zero ? 0 : 4, 6}, NULL);
        ob_init_i64(m, "sizes", 1, (int64_t[]){2}, (int64_t[]){8, 8});
        Onnx__NodeProto *n = ob_node(m, "Resize", "rs", "x,,,sizes", "y");
        ob_attr_ints(m, n, "axes", 2, (int64_t[]){2, 3});
        ob_attr_s(m, n, "keep_aspect_ratio_policy", zero ? "not_smaller" : "fit");
        ob_output(m, "y");
        oc_expect_error(m, zero ? "node 'rs' (Resize): attr 'keep_aspect_ratio_policy' needs a "
                                  "nonzero size of X's dim 2"
                                : "node 'rs' (Resize): attr 'keep_aspect_ratio_policy' is 'fit' "
                                  "(stretch, not_larger or not_smaller)");
    }
}

/* TopK with a symbolic K: X [B,n] (dim_params), K = Reshape(Gather(Shape(X),
 * 1), [1]) = n, axis 1: a sort of each row, Values [B,n], E(X) *
 * max(1, ceil(log2 n)) comparisons. Bound: B = 2, n = 5: 10 * 3 = 30;
 * n = 1: K <= 1 counts E(X) = 2; B = 1, n = 1024: 1024 * 10 = 10240. */
static void test_topk_symbolic_k(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){-1, -1}, (const char *[]){"B", "n"});
    ob_node(m, "Shape", "s", "x", "sx");
    ob_init_i64(m, "one", 0, NULL, (int64_t[]){1});
    ob_node(m, "Gather", "g", "sx,one", "kn");
    ob_init_i64(m, "shape1", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_node(m, "Reshape", "rk", "kn,shape1", "k");
    ob_node(m, "TopK", "topk", "x,k", "v,i");
    ob_output(m, "v");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *tk = oc_node(r, "topk");
    assert_string_equal(tk->outputs[0].shape, "[B,n]");
    assert_false(tk->incomplete);
    assert_true(r->complete);
    assert_non_null(strstr(tk->flops.text, "ceil(log2(n))"));
    fl_report_free(r);
    const int64_t cases[][3] = {{2, 5, 30}, {2, 1, 2}, {1, 1024, 10240}, {3, 4, 24}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        uint8_t *buf = ob_pack(m, &len);
        fl_options o;
        fl_options_init(&o);
        o.per_node = true;
        fl_symbol_binding b[2] = {{"B", cases[i][0]}, {"n", cases[i][1]}};
        o.symbols = b;
        o.n_symbols = 2;
        r = NULL;
        assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
        free(buf);
        oc_assert_cost(oc_node(r, "topk"), cases[i][2], 0);
        fl_report_free(r);
    }
    ob_free(m);
}

/* DFT (opset 17, axis 1, no dft_length) over x [1,L,2], complex: one
 * transformed vector of L points, 5 * L * ceil(log2 L) FLOPs. L = 8 known:
 * 120. L the dim_param n: the formula, and bound n = 8 gives the same 120,
 * n = 5: 5 * 5 * 3 = 75, n = 1: 0. */
static void test_dft_symbolic_length(void **state) {
    (void)state;
    for (int sym = 0; sym < 2; sym++) {
        ob_model *m = ob_new(17);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, sym ? -1 : 8, 2},
                 sym ? (const char *[]){NULL, "n", NULL} : NULL);
        ob_node(m, "DFT", "dft", "x", "y");
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *d = oc_node(r, "dft");
        if (!sym) {
            oc_assert_cost(d, 120, 0);
        } else {
            assert_false(d->incomplete);
            assert_true(r->complete);
            assert_non_null(strstr(d->flops.text, "ceil(log2(n))"));
        }
        fl_report_free(r);
        const int64_t cases[][2] = {{8, 120}, {5, 75}, {1, 0}};
        for (size_t i = 0; sym && i < sizeof cases / sizeof cases[0]; i++) {
            size_t len;
            uint8_t *buf = ob_pack(m, &len);
            fl_options o;
            fl_options_init(&o);
            o.per_node = true;
            fl_symbol_binding b = {"n", cases[i][0]};
            o.symbols = &b;
            o.n_symbols = 1;
            r = NULL;
            assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
            free(buf);
            oc_assert_cost(oc_node(r, "dft"), cases[i][1], 0);
            fl_report_free(r);
        }
        ob_free(m);
    }
}

/* DFT's axis over x [2,8,16,2] (r = 4): a negative axis counts from the
 * back of all r dims, -2 the last signal axis (dim 2, L = 16: 2*8 = 16
 * vectors of 5*16*4 = 320 FLOPs: 5120); axis 1 (L = 8): 2*16 vectors of
 * 5*8*3 = 120: 3840. Opset 17 takes attr axis (default 1); opset 20 input
 * 2 (default -2). dft_length 10 on axis 2, onesided: dim 2 becomes 10/2 +
 * 1 = 6, 16 vectors of 5*10*4 = 200: 3200. An axis input without a value
 * leaves the cost unknown and, with a length, the signal dims. Axis 3 (the
 * complex dim) or -1 fail. */
/* An FFT's count, 5 * L * ceil(log2(L)), that overflows fails naming the
 * node and L (it was computed in unchecked int64): DFT over x
 * [1,2^58,2] (L = 2^58, 5 * 2^58 * 58 > 2^63), STFT with a window of 2^58
 * points. */
/* DFT over a scalar or a vector (its length unknown, so the axis check
 * cannot refuse it) fails naming the rank: the rule wrote the complex dim
 * at index rank - 1 = -1 for a scalar. */
static void test_dft_low_rank(void **state) {
    (void)state;
    for (int rank = 0; rank < 2; rank++) {
        ob_model *m = ob_new(20);
        ob_input(m, "x", OB_FLOAT, rank, (int64_t[]){4}, NULL);
        ob_input(m, "ax", OB_INT64, 0, NULL, NULL);
        ob_node(m, "DFT", "dft", "x,,ax", "y");
        ob_output(m, "y");
        char want[160];
        snprintf(want, sizeof want,
                 "node 'dft' (DFT): input 0 has rank %d, want at least 2 (the signal's dims, then "
                 "1 or 2 for real or complex)",
                 rank);
        oc_expect_error(m, want);
    }
}

static void test_fft_flops_overflow(void **state) {
    (void)state;
    ob_model *m = ob_new(20);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, (int64_t)1 << 58, 2}, NULL);
    ob_node(m, "DFT", "dft", "x", "y");
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'dft' (DFT): transform length 288230376151711744: 5 * length * "
                          "ceil(log2(length)) overflows 64-bit integers");
    m = ob_new(17);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 64, 1}, NULL);
    ob_input(m, "w", OB_FLOAT, 1, (int64_t[]){(int64_t)1 << 58}, NULL);
    ob_init_i64(m, "step", 0, NULL, (int64_t[]){8});
    ob_node(m, "STFT", "stft", "x,step,w", "y");
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'stft' (STFT): frame length 288230376151711744: 5 * length * "
                          "ceil(log2(length)) + length overflows 64-bit integers");
}

static void test_dft_axis(void **state) {
    (void)state;
    const struct {
        int opset;
        int64_t axis; /* 99: none */
        bool input, len;
        const char *shape;
        int64_t flops;
    } cases[] = {
        {17, 99, false, false, "[2,8,16,2]", 3840}, {17, -2, false, false, "[2,8,16,2]", 5120},
        {17, 1, false, false, "[2,8,16,2]", 3840},  {17, -3, false, false, "[2,8,16,2]", 3840},
        {20, 99, false, false, "[2,8,16,2]", 5120}, {20, 1, true, false, "[2,8,16,2]", 3840},
        {20, -3, true, false, "[2,8,16,2]", 3840},  {20, 2, true, true, "[2,8,6,2]", 3200},
        {17, 2, false, true, "[2,8,6,2]", 3200},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(cases[i].opset);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){2, 8, 16, 2}, NULL);
        ob_init_i64(m, "len", 0, NULL, (int64_t[]){10});
        ob_init_i64(m, "ax", 0, NULL, (int64_t[]){cases[i].axis});
        Onnx__NodeProto *n = ob_node(m, "DFT", "dft",
                                     cases[i].input ? (cases[i].len ? "x,len,ax" : "x,,ax")
                                                    : (cases[i].len ? "x,len" : "x"),
                                     "y");
        if (cases[i].axis != 99 && !cases[i].input) {
            ob_attr_i(m, n, "axis", cases[i].axis);
        }
        if (cases[i].len) {
            ob_attr_i(m, n, "onesided", 1);
        }
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *d = oc_node(r, "dft");
        assert_string_equal(d->outputs[0].shape, cases[i].shape);
        oc_assert_cost(d, cases[i].flops, 0);
        fl_report_free(r);
        ob_free(m);
    }
    for (int with_len = 0; with_len < 2; with_len++) {
        ob_model *m = ob_new(20);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){2, 8, 16, 2}, NULL);
        ob_input(m, "ax", OB_INT64, 0, NULL, NULL);
        ob_init_i64(m, "len", 0, NULL, (int64_t[]){10});
        ob_node(m, "DFT", "dft", with_len ? "x,len,ax" : "x,,ax", "y");
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *d = oc_node(r, "dft");
        assert_string_equal(d->outputs[0].shape, with_len ? "[?,?,?,2]" : "[2,8,16,2]");
        assert_true(d->incomplete);
        fl_report_free(r);
        ob_free(m);
    }
    for (int64_t bad = -1; bad <= 3; bad += 4) {
        ob_model *m = ob_new(17);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){2, 8, 16, 2}, NULL);
        ob_attr_i(m, ob_node(m, "DFT", "dft", "x", "y"), "axis", bad);
        ob_output(m, "y");
        oc_expect_error(m, bad < 0 ? "node 'dft' (DFT): axis -1 is out of range for an input of "
                                     "rank 4 ([-4, -2] or [0, 2])"
                                   : "axis 3 is out of range");
    }
}

/* DFT: the inverse of a one-sided spectrum (inverse and onesided: irfft)
 * is a real signal, last dim 1, of L = 2 * (n - 1) points by default: x
 * [3,5,2] -> [3,8,1], 3 vectors of 5*8*3 = 120: 360; dft_length 9 ->
 * [3,9,1], 3 * 5*9*4 = 540; x [2,4,3,2] on axis 1 -> [2,6,3,1], 6 vectors
 * of 5*6*3 = 90: 540. */
static void test_dft_irfft(void **state) {
    (void)state;
    const struct {
        int opset;
        int rank;
        const char *inputs, *shape;
        int64_t axis, flops;
    } cases[] = {
        {20, 3, "x", "[3,8,1]", 99, 360},      {20, 3, "x,len", "[3,9,1]", 99, 540},
        {20, 4, "x,,ax", "[2,6,3,1]", 1, 540}, {17, 3, "x", "[3,8,1]", 1, 360},
        {17, 4, "x", "[2,6,3,1]", 1, 540},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(cases[i].opset);
        ob_input(m, "x", OB_FLOAT, cases[i].rank,
                 cases[i].rank == 3 ? (int64_t[]){3, 5, 2} : (int64_t[]){2, 4, 3, 2}, NULL);
        ob_init_i64(m, "len", 0, NULL, (int64_t[]){9});
        ob_init_i64(m, "ax", 0, NULL, (int64_t[]){cases[i].axis});
        Onnx__NodeProto *n = ob_node(m, "DFT", "dft", cases[i].inputs, "y");
        ob_attr_i(m, n, "inverse", 1);
        ob_attr_i(m, n, "onesided", 1);
        if (cases[i].opset < 20) {
            ob_attr_i(m, n, "axis", cases[i].axis);
        }
        ob_output(m, "y");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *d = oc_node(r, "dft");
        assert_string_equal(d->outputs[0].shape, cases[i].shape);
        oc_assert_cost(d, cases[i].flops, 0);
        fl_report_free(r);
        ob_free(m);
    }
}

/* Mod over a symbolic batch: x [n,4] int64, y [4] -> [n,4], 4*n FLOPs;
 * NonZero of a known [2,3] tensor with three non-zeros -> [2,3], exact. */
/* An element-wise op over empty constants whose other dims are huge: the
 * result's shape is exact; no value is made of a tensor whose nonzero dims'
 * product (2^53 * 2^31 here) overflows int64, so no evaluation computes
 * strides from them (they overflowed, undefined behaviour UBSan reports). */
static void test_ew_empty_huge_dims(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    const int64_t dims[3] = {0, (int64_t)1 << 31, (int64_t)1 << 53};
    ob_init_raw(m, "s", OB_INT64, 3, dims, NULL, 0);
    ob_node(m, "Mod", "mod", "s,s", "y");
    ob_output(m, "y");
    oc_expect_shape(m, "mod", "[0,2147483648,9007199254740992]");
}

/* Gather of an empty [0, 2^31, 2^32] int64 constant by itself along axis 0:
 * [0, 2^31, 2^32] + [2^31, 2^32], exact. The evaluation's outer and inner
 * products overflowed (2^31 * 2^32; found by fuzz_onnx_struct). */
static void test_gather_empty_huge_dims(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    const int64_t dims[3] = {0, (int64_t)1 << 31, (int64_t)1 << 32};
    ob_init_raw(m, "s", OB_INT64, 3, dims, NULL, 0);
    ob_node(m, "Gather", "gather", "s,s", "y");
    ob_output(m, "y");
    oc_expect_shape(m, "gather", "[0,2147483648,4294967296,2147483648,4294967296]");
}

/* torch's export of x.expand(b, 2, t) with b and t free: Where(Equal(shape,
 * -1), 1, shape) feeds the Expand. A size is never -1 (b + 1 >= 1), so the
 * Equal is false everywhere and the Expand's shape is [b,2,t], its counts
 * complete. GreaterOrEqual(shape, 0) holds; Greater(shape, 0) is not known
 * (b may be 0), so its value is left out. */
static void test_expand_symbolic_minus_one(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){-1, 1, -1}, (const char *[]){"b", NULL, "t"});
    ob_node(m, "Shape", "shape", "x", "s");
    ob_init_i64(m, "two", 1, (int64_t[]){3}, (int64_t[]){1, 2, 1});
    ob_node(m, "Mul", "mul", "s,two", "want");
    ob_init_i64(m, "m1", 1, (int64_t[]){3}, (int64_t[]){-1, -1, -1});
    ob_init_i64(m, "ones", 1, (int64_t[]){3}, (int64_t[]){1, 1, 1});
    ob_node(m, "Equal", "eq", "want,m1", "e");
    ob_node(m, "Where", "where", "e,ones,want", "w");
    ob_node(m, "Expand", "expand", "x,w", "y");
    ob_init_i64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_node(m, "GreaterOrEqual", "ge", "want,zero", "g");
    ob_attr_i(m, ob_node(m, "Cast", "ge_n", "g", "gi"), "to", 7);
    ob_node(m, "Greater", "gt", "want,zero", "h");
    ob_attr_i(m, ob_node(m, "Cast", "gt_n", "h", "hi"), "to", 7);
    ob_node(m, "ConstantOfShape", "r_ge", "gi", "rg");
    ob_node(m, "ConstantOfShape", "r_gt", "hi", "rh");
    ob_output(m, "y");
    ob_output(m, "rg");
    ob_output(m, "rh");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *e = oc_node(r, "expand");
    assert_string_equal(e->outputs[0].shape, "[b,2,t]");
    assert_false(e->incomplete);
    /* the comparisons' values as a ConstantOfShape's shape: [1,1,1] where
     * known, unknown dims where not */
    assert_string_equal(oc_node(r, "r_ge")->outputs[0].shape, "[1,1,1]");
    assert_string_equal(oc_node(r, "r_gt")->outputs[0].shape, "[?,?,?]");
    fl_report_free(r);
    ob_free(m);
}

/* A dim_param that is an expression of other dims is that expression: the
 * mask [b,1,1,"past + seq"] adds to the scores [b,4,seq,past+seq] that a
 * query [b,4,seq,8] makes with the keys concatenated from [b,4,past,8] and
 * the query's own (a decoder with a KV cache, as exporters name its mask).
 * Names that are not plainly arithmetic stay names: "batch-size", "a + 2x",
 * "(n + 1)". "2 * n" is 2*n, and --bind n=4 binds it (n occurs nowhere
 * else); the expression's own text is no symbol to bind. */
static ob_model *dim_expr_model(void) {
    ob_model *m = ob_new(17);
    ob_input(m, "k", OB_FLOAT, 4, (int64_t[]){-1, 4, -1, 8},
             (const char *[]){"b", NULL, "past", NULL});
    ob_input(m, "q", OB_FLOAT, 4, (int64_t[]){-1, 4, -1, 8},
             (const char *[]){"b", NULL, "seq", NULL});
    ob_input(m, "mask", OB_FLOAT, 4, (int64_t[]){-1, 1, 1, -1},
             (const char *[]){"b", NULL, NULL, "past + seq"});
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){-1, -1, -1, -1},
             (const char *[]){"batch-size", "2 * n", "a + 2x", "(n + 1)"});
    ob_attr_i(m, ob_node(m, "Concat", "kk", "k,q", "kk"), "axis", 2);
    ob_attr_ints(m, ob_node(m, "Transpose", "kt", "kk", "kt"), "perm", 4, (int64_t[]){0, 1, 3, 2});
    ob_node(m, "MatMul", "scores", "q,kt", "s");
    ob_node(m, "Add", "masked", "s,mask", "a");
    ob_node(m, "Identity", "xi", "x", "xo");
    ob_output(m, "a");
    ob_output(m, "xo");
    return m;
}

static void test_dim_param_expression(void **state) {
    (void)state;
    ob_model *m = dim_expr_model();
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "masked");
    assert_string_equal(a->outputs[0].shape, "[b,4,seq,past + seq]");
    assert_false(a->incomplete);
    assert_string_equal(a->flops.text, "4*b*past*seq + 4*b*seq^2");
    assert_string_equal(oc_node(r, "xi")->outputs[0].shape, "[batch-size,2*n,a + 2x,(n + 1)]");
    fl_report_free(r);

    fl_symbol_binding b[3] = {{"past", 2}, {"seq", 3}, {"n", 4}};
    fl_options o;
    fl_options_init(&o);
    o.symbols = b;
    o.n_symbols = 3;
    r = oc_run_opts(m, &o, FL_OK);
    assert_string_equal(oc_node(r, "masked")->outputs[0].shape, "[b,4,3,5]");
    assert_string_equal(oc_node(r, "xi")->outputs[0].shape, "[batch-size,8,a + 2x,(n + 1)]");
    fl_report_free(r);

    fl_symbol_binding whole = {"past + seq", 5};
    o.symbols = &whole;
    o.n_symbols = 1;
    r = oc_run_opts(m, &o, FL_EUSAGE);
    assert_non_null(strstr(r->error, "'past + seq', which is not a symbol of the graph"));
    fl_report_free(r);
    ob_free(m);
}

static void test_mod_symbolic_nonzero(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_INT64, 2, (int64_t[]){-1, 4}, (const char *[]){"n", NULL});
    ob_init_i64(m, "y", 1, (int64_t[]){4}, (int64_t[]){2, 3, 4, 5});
    ob_node(m, "Mod", "mod", "x,y", "z");
    ob_init_i64(m, "k", 2, (int64_t[]){2, 3}, (int64_t[]){0, 1, 0, 2, 3, 0});
    ob_node(m, "NonZero", "nz", "k", "idx");
    ob_output(m, "z");
    ob_output(m, "idx");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *md = oc_node(r, "mod");
    assert_string_equal(md->outputs[0].shape, "[n,4]");
    assert_string_equal(md->flops.text, "4*n");
    assert_string_equal(oc_node(r, "nz")->outputs[0].shape, "[2,3]");
    fl_report_free(r);
    ob_free(m);
}

/* ai.onnx.ml LinearRegressor, X [5,3], 6 coefficients = 2 targets: Y
 * [5,2]; MACs = 5 * 3 * 2 = 30, FLOPs = 60 + 5 * 2 intercepts = 70. */
static void test_ml_linear_regressor(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_opset(m, "ai.onnx.ml", 3);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "LinearRegressor", "lin", "x", "y");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_floats(m, n, "coefficients", 6, (float[]){1, 2, 3, 4, 5, 6});
    ob_attr_i(m, n, "targets", 2);
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *l = oc_node(r, "lin");
    assert_string_equal(l->outputs[0].shape, "[5,2]");
    oc_assert_cost(l, 70, 30);
    assert_int_equal(r->n_unknown_ops, 0);
    fl_report_free(r);
    ob_free(m);
}

/* Opset 18-20 ops: Col2Im X [1,8,4] with image [3,3], block [2,2]: C = 8 /
 * 4 = 2 -> [1,2,3,3], E(X) = 32 adds. AffineGrid theta [2,2,3], size
 * [2,3,4,5] -> grid [2,4,5,2]: 4 * 80 = 320 FLOPs. */
static void test_opset18_20(void **state) {
    (void)state;
    ob_model *m = ob_new(20);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 8, 4}, NULL);
    ob_init_i64(m, "img", 1, (int64_t[]){2}, (int64_t[]){3, 3});
    ob_init_i64(m, "blk", 1, (int64_t[]){2}, (int64_t[]){2, 2});
    ob_node(m, "Col2Im", "c2i", "x,img,blk", "y");
    ob_input(m, "theta", OB_FLOAT, 3, (int64_t[]){2, 2, 3}, NULL);
    ob_init_i64(m, "size", 1, (int64_t[]){4}, (int64_t[]){2, 3, 4, 5});
    ob_node(m, "AffineGrid", "ag", "theta,size", "grid");
    ob_output(m, "y");
    ob_output(m, "grid");
    fl_report *r = oc_run(m, FL_OK);
    const fl_report_node *c2i = oc_node(r, "c2i");
    assert_string_equal(c2i->outputs[0].shape, "[1,2,3,3]");
    oc_assert_cost(c2i, 32, 0);
    const fl_report_node *ag = oc_node(r, "ag");
    assert_string_equal(ag->outputs[0].shape, "[2,4,5,2]");
    oc_assert_cost(ag, 320, 0);
    fl_report_free(r);
    ob_free(m);
}

/* Valid nodes ONNX Runtime 1.30's CPU provider refuses, so cli_onnx_ortsweep
 * cannot compare them (shapes and dtypes from the ONNX schemas):
 *   CenterCropPad-18 X int32 [3,4,5], shape int32 [3], axes [-1]: [3,4,3],
 *     int32 (shape may be int32 or int64).
 *   Pad-18 X [2,3,4], pads [1,1], axes int32 [-2]: [2,5,4].
 *   GRU-22 layout 1 (batch first) X [2,3,5], hidden 4: Y [batch 2, seq 3,
 *     1 direction, 4], Y_h [2,1,4]; LSTM-22 bidirectional, layout 1: Y
 *     [2,3,2,4], Y_h and Y_c [2,2,4].
 *   Attention-23 Q, K, V [1,2,3,4], past K and V [1,2,2,4], attn_mask
 *     [1,1,3,2], shorter than the 5 keys (padded with -inf): Y [1,2,3,4],
 *     present K and V [1,2,5,4]. */
static void test_nodes_ort_cannot_run(void **state) {
    (void)state;
    ob_model *m = ob_new(18);
    ob_input(m, "x", OB_INT32, 3, (int64_t[]){3, 4, 5}, NULL);
    ob_init_raw(m, "s", OB_INT32, 1, (int64_t[]){1}, (int32_t[]){3}, sizeof(int32_t));
    ob_attr_ints(m, ob_node(m, "CenterCropPad", "ccp", "x,s", "y"), "axes", 1, (int64_t[]){-1});
    ob_input(m, "p", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_init_i64(m, "pads", 1, (int64_t[]){2}, (int64_t[]){1, 1});
    ob_init_raw(m, "ax", OB_INT32, 1, (int64_t[]){1}, (int32_t[]){-2}, sizeof(int32_t));
    ob_node(m, "Pad", "pad", "p,pads,,ax", "py");
    ob_output(m, "y");
    ob_output(m, "py");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(oc_node(r, "ccp")->outputs[0].shape, "[3,4,3]");
    assert_string_equal(oc_node(r, "ccp")->outputs[0].dtype, "int32");
    assert_string_equal(oc_node(r, "pad")->outputs[0].shape, "[2,5,4]");
    fl_report_free(r);
    ob_free(m);

    m = ob_new(22);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 5}, NULL);
    ob_init_f(m, "gw", 3, (int64_t[]){1, 12, 5}, true);
    ob_init_f(m, "gr", 3, (int64_t[]){1, 12, 4}, true);
    Onnx__NodeProto *n = ob_node(m, "GRU", "gru", "x,gw,gr", "gy,gyh");
    ob_attr_i(m, n, "hidden_size", 4);
    ob_attr_i(m, n, "layout", 1);
    ob_init_f(m, "lw", 3, (int64_t[]){2, 16, 5}, true);
    ob_init_f(m, "lr", 3, (int64_t[]){2, 16, 4}, true);
    n = ob_node(m, "LSTM", "lstm", "x,lw,lr", "ly,lyh,lyc");
    ob_attr_i(m, n, "hidden_size", 4);
    ob_attr_i(m, n, "layout", 1);
    ob_attr_s(m, n, "direction", "bidirectional");
    ob_output(m, "gy");
    ob_output(m, "ly");
    r = oc_run(m, FL_OK);
    const fl_report_node *g = oc_node(r, "gru"), *l = oc_node(r, "lstm");
    assert_string_equal(g->outputs[0].shape, "[2,3,1,4]");
    assert_string_equal(g->outputs[1].shape, "[2,1,4]");
    assert_string_equal(l->outputs[0].shape, "[2,3,2,4]");
    assert_string_equal(l->outputs[1].shape, "[2,2,4]");
    assert_string_equal(l->outputs[2].shape, "[2,2,4]");
    fl_report_free(r);
    ob_free(m);

    m = ob_new(23);
    ob_input(m, "q", OB_FLOAT, 4, (int64_t[]){1, 2, 3, 4}, NULL);
    ob_input(m, "mask", OB_FLOAT, 4, (int64_t[]){1, 1, 3, 2}, NULL);
    ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){1, 2, 2, 4}, NULL);
    ob_node(m, "Attention", "att", "q,q,q,mask,pk,pk", "ay,ak,av");
    ob_output(m, "ay");
    r = oc_run(m, FL_OK);
    const fl_report_node *a = oc_node(r, "att");
    assert_string_equal(a->outputs[0].shape, "[1,2,3,4]");
    assert_string_equal(a->outputs[1].shape, "[1,2,5,4]");
    assert_string_equal(a->outputs[2].shape, "[1,2,5,4]");
    fl_report_free(r);
    ob_free(m);
}

/* DeformConv X [n,4,6,6], W [6,2,3,3], group 2, offset_group 2, pads 1:
 * Y [n,6,6,6]; offset [n, 2 * 9 * 2 = 36, 6, 6], mask [n, 2 * 9 = 18, 6, 6].
 * MACs = E(Y) * 2 * 9 = 216n * 18 = 3888n. Samples S = n * C 4 * 36 output
 * positions * 9 taps = 1296n, each a bilinear interpolation (9) and the mask
 * multiply (1); bias E(Y): FLOPs = 7776n + 12960n + 216n = 20952n.
 * GlobalLpPool X [2,3,5,7]: [2,3,1,1], 2 * 210 = 420. MaxRoiPool X
 * [1,3,8,10], 4 ROIs, pooled 2 x 3: [4,3,2,3], 4 * 3 * 8 * 10 = 960
 * compares. CumProd [3,4]: 12 multiplies. */
static void test_deform_conv_pools_cumprod(void **state) {
    (void)state;
    ob_model *m = ob_new(22);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){-1, 4, 6, 6}, (const char *[]){"n", 0, 0, 0});
    ob_init_f(m, "w", 4, (int64_t[]){6, 2, 3, 3}, false);
    ob_input(m, "off", OB_FLOAT, 4, (int64_t[]){-1, 36, 6, 6}, (const char *[]){"n", 0, 0, 0});
    ob_init_f(m, "b", 1, (int64_t[]){6}, false);
    ob_input(m, "mask", OB_FLOAT, 4, (int64_t[]){-1, 18, 6, 6}, (const char *[]){"n", 0, 0, 0});
    Onnx__NodeProto *n = ob_node(m, "DeformConv", "dc", "x,w,off,b,mask", "y");
    ob_attr_i(m, n, "group", 2);
    ob_attr_i(m, n, "offset_group", 2);
    ob_attr_ints(m, n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_input(m, "p", OB_FLOAT, 4, (int64_t[]){2, 3, 5, 7}, NULL);
    ob_attr_i(m, ob_node(m, "GlobalLpPool", "glp", "p", "pp"), "p", 3);
    ob_input(m, "fm", OB_FLOAT, 4, (int64_t[]){1, 3, 8, 10}, NULL);
    ob_input(m, "rois", OB_FLOAT, 2, (int64_t[]){4, 5}, NULL);
    Onnx__NodeProto *rp = ob_node(m, "MaxRoiPool", "mrp", "fm,rois", "rr");
    ob_attr_ints(m, rp, "pooled_shape", 2, (int64_t[]){2, 3});
    ob_input(m, "c", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_init_i64(m, "ax", 0, NULL, (int64_t[]){1});
    ob_node(m, "CumProd", "cp", "c,ax", "cc");
    ob_output(m, "y");
    ob_output(m, "pp");
    ob_output(m, "rr");
    ob_output(m, "cc");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *dc = oc_node(r, "dc");
    assert_string_equal(dc->outputs[0].shape, "[n,6,6,6]");
    assert_string_equal(dc->macs.text, "3888*n");
    assert_string_equal(dc->flops.text, "20952*n");
    const fl_report_node *glp = oc_node(r, "glp");
    assert_string_equal(glp->outputs[0].shape, "[2,3,1,1]");
    oc_assert_cost(glp, 420, 0);
    const fl_report_node *mrp = oc_node(r, "mrp");
    assert_string_equal(mrp->outputs[0].shape, "[4,3,2,3]");
    oc_assert_cost(mrp, 960, 0);
    const fl_report_node *cp = oc_node(r, "cp");
    assert_string_equal(cp->outputs[0].shape, "[3,4]");
    oc_assert_cost(cp, 12, 0);
    fl_report_free(r);
    ob_free(m);
}

/* DeformConv's offset and mask are checked against the kernel and the
 * output: a 2-D offset needs offset_group * 9 * 2 channels, the mask
 * offset_group * 9, both the output's spatial dims. */
static void test_deform_conv_bad(void **state) {
    (void)state;
    struct {
        int64_t off_c, off_h, mask_c, og;
        const char *want;
    } cases[] = {
        {9, 4, 9, 1, "node 'dc' (DeformConv): input 2 (offset) dim 1 is 9, want 18"},
        {18, 5, 9, 1, "node 'dc' (DeformConv): input 2 (offset) dim 2 is 5, want 4"},
        {18, 4, 18, 1, "node 'dc' (DeformConv): input 4 (mask) dim 1 is 18, want 9"},
        {18, 4, 9, 3,
         "node 'dc' (DeformConv): attr 'offset_group' 3 does not divide input "
         "0's channels"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(19);
        ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 6, 6}, NULL);
        ob_init_f(m, "w", 4, (int64_t[]){3, 2, 3, 3}, false);
        ob_input(m, "off", OB_FLOAT, 4, (int64_t[]){1, cases[i].off_c, cases[i].off_h, 4}, NULL);
        ob_input(m, "mask", OB_FLOAT, 4, (int64_t[]){1, cases[i].mask_c, 4, 4}, NULL);
        ob_attr_i(m, ob_node(m, "DeformConv", "dc", "x,w,off,,mask", "y"), "offset_group",
                  cases[i].og);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
}

/* Sequences and optionals (the handles are variant scalars; sequence.c).
 * x [n,6] split along 0 without split: n elements [1,6]; SequenceLength
 * has the value n (Range(0, len, 1) is [n]); concatenated along 0: [n,6];
 * split with keepdims 0 (elements [6]) and stacked on a new axis 1: [6,n].
 * [a [2,3], b [2,5]] at an unknown position: [2,?] (the dim the elements
 * disagree on). Optional(x [3,4]) has an element (its Cast to int64 is 1:
 * Range [1]) and gives x's [3,4]; an Optional without input has none
 * (Range [0]). Moving tensors costs 0 FLOPs; SplitToSequence reads x
 * (bytes 0 for the handle it writes), ConcatFromSequence writes its output. */
static void test_sequence_optional(void **state) {
    (void)state;
    ob_model *m = ob_new(24);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){-1, 6}, (const char *[]){"n", 0});
    ob_init_i64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_init_i64(m, "one", 0, NULL, (int64_t[]){1});
    ob_node(m, "SplitToSequence", "s", "x", "sq");
    ob_node(m, "SequenceLength", "len", "sq", "l");
    ob_node(m, "Range", "rg", "zero,l,one", "r");
    ob_attr_i(m, ob_node(m, "ConcatFromSequence", "cat", "sq", "c"), "axis", 0);
    ob_attr_i(m, ob_node(m, "SplitToSequence", "s0", "x", "sq0"), "keepdims", 0);
    Onnx__NodeProto *st = ob_node(m, "ConcatFromSequence", "stack", "sq0", "st");
    ob_attr_i(m, st, "axis", 1);
    ob_attr_i(m, st, "new_axis", 1);
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){2, 5}, NULL);
    ob_input(m, "pos", OB_INT64, 0, NULL, NULL);
    ob_node(m, "SequenceConstruct", "q", "a,b", "qs");
    ob_node(m, "SequenceAt", "at", "qs,pos", "e");
    ob_input(m, "o", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_node(m, "Optional", "opt", "o", "ov");
    ob_node(m, "OptionalHasElement", "has", "ov", "h");
    ob_attr_i(m, ob_node(m, "Cast", "hc", "h", "hi"), "to", 7);
    ob_node(m, "Range", "rh", "zero,hi,one", "rhv");
    ob_node(m, "OptionalGetElement", "get", "ov", "g");
    ob_node(m, "Optional", "none", "", "nv");
    ob_node(m, "OptionalHasElement", "hasn", "nv", "hn");
    ob_attr_i(m, ob_node(m, "Cast", "hnc", "hn", "hni"), "to", 7);
    ob_node(m, "Range", "rn", "zero,hni,one", "rnv");
    static const char *const outs[] = {"r", "c", "st", "e", "rhv", "g", "rnv"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(oc_node(r, "s")->outputs[0].dtype, "variant");
    assert_string_equal(oc_node(r, "rg")->outputs[0].shape, "[n]");
    assert_string_equal(oc_node(r, "cat")->outputs[0].shape, "[n,6]");
    assert_string_equal(oc_node(r, "stack")->outputs[0].shape, "[6,n]");
    assert_string_equal(oc_node(r, "at")->outputs[0].shape, "[2,?]");
    assert_string_equal(oc_node(r, "has")->outputs[0].dtype, "bool");
    assert_string_equal(oc_node(r, "rh")->outputs[0].shape, "[1]");
    assert_string_equal(oc_node(r, "get")->outputs[0].shape, "[3,4]");
    assert_string_equal(oc_node(r, "rn")->outputs[0].shape, "[0]");
    const fl_report_node *sn = oc_node(r, "s"), *cn = oc_node(r, "cat");
    oc_assert_cost(sn, 0, 0);
    assert_string_equal(sn->bytes.text, "24*n");
    oc_assert_cost(cn, 0, 0);
    assert_string_equal(cn->bytes.text, "24*n");
    fl_report_free(r);
    ob_free(m);
}

/* Positions out of range, a split that does not sum to the dim, elements
 * that disagree off the concatenation axis and an empty optional's element
 * fail naming node and input. */
static void test_sequence_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "node 'at' (SequenceAt): input 1 (position) 2 is out of range for a sequence of 2 "
        "elements",
        "node 'ins' (SequenceInsert): input 2 (position) -3 is out of range for a sequence of 2 "
        "elements",
        "node 'sp' (SplitToSequence): input 1 (split) sums to 3, axis 1 of input 0 is 5",
        "node 'cat' (ConcatFromSequence): the sequence's elements off the axis disagree: 2 vs 3",
        "node 'get' (OptionalGetElement): input 0 is an empty optional (none has no input)",
    };
    for (int i = 0; i < 5; i++) {
        ob_model *m = ob_new(24);
        ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
        ob_input(m, "b", OB_FLOAT, 2, (int64_t[]){i == 3 ? 3 : 2, 5}, NULL);
        ob_init_i64(m, "two", 0, NULL, (int64_t[]){2});
        ob_init_i64(m, "m3", 0, NULL, (int64_t[]){-3});
        ob_init_i64(m, "split", 1, (int64_t[]){2}, (int64_t[]){1, 2});
        ob_node(m, "SequenceConstruct", "q", "a,b", "qs");
        const char *out = "y";
        if (i == 0) {
            ob_node(m, "SequenceAt", "at", "qs,two", "y");
        } else if (i == 1) {
            ob_node(m, "SequenceInsert", "ins", "qs,a,m3", "q2");
            ob_node(m, "SequenceAt", "at", "q2,two", "y");
        } else if (i == 2) {
            ob_attr_i(m, ob_node(m, "SplitToSequence", "sp", "b,split", "q2"), "axis", 1);
            ob_node(m, "SequenceLength", "len", "q2", "y");
        } else if (i == 3) {
            ob_attr_i(m, ob_node(m, "ConcatFromSequence", "cat", "qs", "y"), "axis", 1);
        } else {
            ob_node(m, "Optional", "none", "", "nv");
            ob_node(m, "OptionalGetElement", "get", "nv", "y");
        }
        ob_output(m, out);
        oc_expect_error(m, want[i]);
    }
}

/* The sequence-input model of test_sequence_inputs: xs sequence(float
 * [2,8]), us sequence(float) (no element shape), o optional(float [3,4]),
 * os optional(sequence(int64 [5])). */
static ob_model *seq_input_model(void) {
    ob_model *m = ob_new(24);
    ob_input(m, "xs", OB_FLOAT, 2, (int64_t[]){2, 8}, NULL);
    ob_input_wrap(m, "s");
    ob_input(m, "us", OB_FLOAT, -1, NULL, NULL);
    ob_input_wrap(m, "s");
    ob_input(m, "o", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
    ob_input_wrap(m, "o");
    ob_input(m, "os", OB_INT64, 1, (int64_t[]){5}, NULL);
    ob_input_wrap(m, "so");
    ob_input(m, "pos", OB_INT64, 0, NULL, NULL);
    ob_input(m, "t", OB_FLOAT, 2, (int64_t[]){2, 8}, NULL);
    ob_init_i64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_init_i64(m, "one", 0, NULL, (int64_t[]){1});
    ob_init_i64(m, "two", 0, NULL, (int64_t[]){2});
    ob_init_f(m, "w", 2, (int64_t[]){8, 4}, false);
    ob_node(m, "SequenceLength", "len", "xs", "l");
    ob_node(m, "Range", "rg", "zero,l,one", "r");
    ob_attr_i(m, ob_node(m, "ConcatFromSequence", "cat", "xs", "c"), "axis", 0);
    ob_node(m, "MatMul", "mm", "c,w", "y");
    Onnx__NodeProto *st = ob_node(m, "ConcatFromSequence", "stack", "xs", "st");
    ob_attr_i(m, st, "axis", 1);
    ob_attr_i(m, st, "new_axis", 1);
    ob_node(m, "SequenceAt", "at", "xs,pos", "e");
    ob_node(m, "SequenceAt", "at2", "xs,two", "e2");
    ob_node(m, "SequenceInsert", "ins", "xs,t", "xi");
    ob_node(m, "SequenceLength", "len2", "xi", "l2");
    ob_node(m, "Range", "rg2", "zero,l2,one", "r2");
    ob_node(m, "SequenceAt", "uat", "us,one", "ue");
    ob_node(m, "OptionalGetElement", "oget", "o", "og");
    ob_node(m, "OptionalHasElement", "ohas", "o", "oh");
    ob_node(m, "OptionalGetElement", "osget", "os", "osg");
    ob_node(m, "SequenceAt", "osat", "osg,zero", "ose");
    ob_node(m, "OptionalHasElement", "xshas", "xs", "xh");
    ob_attr_i(m, ob_node(m, "Cast", "xhc", "xh", "xhi"), "to", 7);
    ob_node(m, "Range", "rh", "zero,xhi,one", "rhv");
    static const char *const outs[] = {"r",  "y",  "st", "e",   "e2", "r2",
                                       "ue", "og", "oh", "ose", "rhv"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        ob_output(m, outs[i]);
    }
    return m;
}

/* Sequence-typed graph inputs. xs, a sequence of float [2,8], is a variant
 * [xs.0,2,8]: SequenceLength is xs.0 (Range [xs.0]); its elements
 * concatenated along 0 are [2*xs.0,8], and their MatMul with w [8,4] counts
 * 2*xs.0*8*4 = 64*xs.0 MACs, 128*xs.0 FLOPs; stacked on a new axis 1: [2,xs.0,
 * 8]; any element is [2,8]; inserting t makes xs.0 + 1 elements. us has no
 * element shape: its element is unknown (the node is reported with an
 * unknown shape). o (optional float [3,4]): its element is float [3,4],
 * whether it has one is data (no value); os (optional sequence of int64
 * [5]): its element's elements are int64 [5]. A sequence input always has
 * a value: OptionalHasElement(xs) is true (Range [1]).
 * Bound (--bind xs.0=3, --input us=3,2,2): Range [3], concat [6,8], MACs
 * 64 * 3 = 192, FLOPs 384, stacked [2,3,8], 4 elements after the insert,
 * element 1 of us [2,2]. Position 3 of xs's 3 elements is out of range. */
static void test_sequence_inputs(void **state) {
    (void)state;
    ob_model *m = seq_input_model();
    fl_options o;
    fl_options_init(&o);
    fl_report *r = oc_run_opts(m, &o, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_string_equal(oc_node(r, "rg")->outputs[0].shape, "[xs.0]");
    assert_string_equal(oc_node(r, "cat")->outputs[0].shape, "[2*xs.0,8]");
    const fl_report_node *mm = oc_node(r, "mm");
    assert_string_equal(mm->macs.text, "64*xs.0");
    assert_string_equal(mm->flops.text, "128*xs.0");
    assert_string_equal(oc_node(r, "stack")->outputs[0].shape, "[2,xs.0,8]");
    assert_string_equal(oc_node(r, "at")->outputs[0].shape, "[2,8]");
    assert_string_equal(oc_node(r, "at2")->outputs[0].shape, "[2,8]");
    assert_string_equal(oc_node(r, "rg2")->outputs[0].shape, "[xs.0 + 1]");
    assert_string_equal(oc_node(r, "uat")->outputs[0].shape, "?");
    assert_string_equal(oc_node(r, "oget")->outputs[0].dtype, "float");
    assert_string_equal(oc_node(r, "oget")->outputs[0].shape, "[3,4]");
    assert_string_equal(oc_node(r, "ohas")->outputs[0].dtype, "bool");
    assert_string_equal(oc_node(r, "osat")->outputs[0].dtype, "int64");
    assert_string_equal(oc_node(r, "osat")->outputs[0].shape, "[5]");
    assert_string_equal(oc_node(r, "rh")->outputs[0].shape, "[1]");
    fl_report_free(r);

    fl_symbol_binding sb = {"xs.0", 3};
    fl_input_binding ib = {.name = "us", .rank = 3, .dims = (int64_t[]){3, 2, 2}};
    o.symbols = &sb;
    o.n_symbols = 1;
    o.inputs = &ib;
    o.n_inputs = 1;
    r = oc_run_opts(m, &o, FL_OK);
    assert_string_equal(oc_node(r, "rg")->outputs[0].shape, "[3]");
    assert_string_equal(oc_node(r, "cat")->outputs[0].shape, "[6,8]");
    oc_assert_cost(oc_node(r, "mm"), 384, 192);
    assert_string_equal(oc_node(r, "stack")->outputs[0].shape, "[2,3,8]");
    assert_string_equal(oc_node(r, "rg2")->outputs[0].shape, "[4]");
    assert_string_equal(oc_node(r, "uat")->outputs[0].shape, "[2,2]");
    assert_true(r->complete);
    fl_report_free(r);
    ob_free(m);

    m = seq_input_model();
    ob_init_i64(m, "three", 0, NULL, (int64_t[]){3});
    ob_node(m, "SequenceAt", "at3", "xs,three", "e3");
    ob_output(m, "e3");
    r = oc_run_opts(m, &o, FL_EINVAL);
    assert_non_null(strstr(r->error, "node 'at3' (SequenceAt): input 1 (position) 3 is out of "
                                     "range for a sequence of 3 elements"));
    fl_report_free(r);
    ob_free(m);
}

/* A sequence input bound to a scalar, and input types foldline does not
 * read (a map, a sequence of sequences) are refused naming the input. */
static void test_sequence_inputs_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "graph input is a sequence: its shape is [count, element dims...], not a scalar",
        "graph input is not a tensor, a sequence of tensors or an optional of either",
        "graph input is not a tensor, a sequence of tensors or an optional of either",
    };
    static const char *const wrap[] = {"s", "m", "ss"};
    static const fl_status code[] = {FL_EUSAGE, FL_EUNSUPPORTED, FL_EUNSUPPORTED};
    for (int i = 0; i < 3; i++) {
        ob_model *m = ob_new(24);
        ob_input(m, "q", OB_FLOAT, -1, NULL, NULL);
        ob_input_wrap(m, wrap[i]);
        ob_node(m, "SequenceLength", "len", "q", "y");
        ob_output(m, "y");
        fl_options o;
        fl_options_init(&o);
        fl_input_binding ib = {.name = "q", .rank = 0, .dims = NULL};
        o.inputs = &ib;
        o.n_inputs = i == 0;
        fl_report *r = oc_run_opts(m, &o, code[i]);
        printf("%s\n", r->error);
        assert_non_null(strstr(r->error, "'q'"));
        assert_non_null(strstr(r->error, want[i]));
        fl_report_free(r);
        ob_free(m);
    }
}

/* Opset 27's CausalConvWithState: input (2,8,10), depthwise weight (8,1,4),
 * bias (8), past_state (2,8,3), activation silu: output [2,8,10],
 * present_state [2,8,3]; MACs = 2 * 8 * 10 * 4 = 640, FLOPs = 1280 + 160
 * (bias) + 160 (silu) = 1600; without bias and activation 1280 / 640 (no
 * state given: present_state still (B, C, k - 1)). Opset 28's SwiGLU of
 * two [3,5]: Swish and the multiply, 2 * 15 = 30 FLOPs. */
static void test_opset27_28(void **state) {
    (void)state;
    ob_model *m = ob_new(28);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 8, 10}, NULL);
    ob_init_f(m, "w", 3, (int64_t[]){8, 1, 4}, false);
    ob_init_f(m, "b", 1, (int64_t[]){8}, false);
    ob_input(m, "past", OB_FLOAT, 3, (int64_t[]){2, 8, 3}, NULL);
    ob_attr_s(m, ob_node(m, "CausalConvWithState", "cc", "x,w,b,past", "y,ps"), "activation",
              "silu");
    ob_node(m, "CausalConvWithState", "cc0", "x,w", "y0,ps0");
    ob_input(m, "ga", OB_FLOAT, 2, (int64_t[]){3, 5}, NULL);
    ob_input(m, "gb", OB_FLOAT, 2, (int64_t[]){3, 5}, NULL);
    ob_node(m, "SwiGLU", "sw", "ga,gb", "z");
    ob_output(m, "y");
    ob_output(m, "y0");
    ob_output(m, "z");
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *cc = oc_node(r, "cc"), *cc0 = oc_node(r, "cc0");
    assert_string_equal(cc->outputs[0].shape, "[2,8,10]");
    assert_string_equal(cc->outputs[1].shape, "[2,8,3]");
    oc_assert_cost(cc, 1600, 640);
    assert_string_equal(cc0->outputs[1].shape, "[2,8,3]");
    oc_assert_cost(cc0, 1280, 640);
    assert_string_equal(oc_node(r, "sw")->outputs[0].shape, "[3,5]");
    oc_assert_cost(oc_node(r, "sw"), 30, 0);
    fl_report_free(r);
    ob_free(m);
}

/* An unknown activation, a weight that is not depthwise, a past_state of
 * the wrong length, SwiGLU inputs of different shapes. */
static void test_opset27_28_bad(void **state) {
    (void)state;
    static const char *const want[] = {
        "node 'cc' (CausalConvWithState): attr 'activation' is 'gelu' (none, silu or swish)",
        "node 'cc' (CausalConvWithState): input 1 (weight) has dim 1 of 2, want 1",
        "node 'cc' (CausalConvWithState): input 3 (past_state) has dim 2 of 4, want 3",
        "node 'sw' (SwiGLU): input 1 (B)'s shape differs from input 0 (A)'s",
    };
    for (int i = 0; i < 4; i++) {
        ob_model *m = ob_new(28);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 8, 10}, NULL);
        ob_init_f(m, "w", 3, (int64_t[]){8, i == 1 ? 2 : 1, 4}, false);
        ob_input(m, "past", OB_FLOAT, 3, (int64_t[]){2, 8, i == 2 ? 4 : 3}, NULL);
        ob_input(m, "gb", OB_FLOAT, 2, (int64_t[]){3, 4}, NULL);
        if (i < 3) {
            Onnx__NodeProto *n = ob_node(m, "CausalConvWithState", "cc", "x,w,,past", "y,ps");
            ob_attr_s(m, n, "activation", i == 0 ? "gelu" : "none");
        } else {
            ob_node(m, "SwiGLU", "sw", "past,gb", "y");
        }
        ob_output(m, "y");
        oc_expect_error(m, want[i]);
    }
}

/* The ai.onnx.ml models a registry meets, counted by ml.c's rules:
 * TreeEnsembleRegressor X [5,3] with nodes_modes of 2 branches and 3 leaves:
 * Y [5,1], 5 * 2 = 10 comparisons. TreeEnsembleClassifier X [4,3], 3
 * branches, labels 0..2: Y int64 [4], Z [4,3], 12. TreeEnsemble (ml opset
 * 5) X [6,4], 3 nodes_featureids, leaf_targetids up to 1: Y [6,2], 18.
 * LinearClassifier X [5,3], 6 coefficients = 2 classes 'a', 'b': Y string
 * [5], Z [5,2], MACs 5 * 3 * 2 = 30, FLOPs 60 + 10 intercepts = 70. Scaler X
 * [4,3]: 2 * 12 = 24. ZipMap of Z [4,3]: a sequence of 4 maps, variant
 * [4], 0. */
static void test_ml_models(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    ob_opset(m, "ai.onnx.ml", 5);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    ob_input(m, "x4", OB_FLOAT, 2, (int64_t[]){4, 3}, NULL);
    ob_input(m, "x6", OB_FLOAT, 2, (int64_t[]){6, 4}, NULL);
    static const char *const modes2[] = {"BRANCH_LEQ", "LEAF", "BRANCH_GT", "LEAF", "LEAF"};
    static const char *const modes3[] = {"BRANCH_LEQ", "BRANCH_LT", "LEAF", "BRANCH_EQ",
                                         "LEAF",       "LEAF",      "LEAF"};
    static const char *const ab[] = {"a", "b"};
    Onnx__NodeProto *n = ob_node(m, "TreeEnsembleRegressor", "tr", "x", "ytr");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_strings(m, n, "nodes_modes", 5, modes2);
    n = ob_node(m, "TreeEnsembleClassifier", "tc", "x4", "ytc,ztc");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_strings(m, n, "nodes_modes", 7, modes3);
    ob_attr_ints(m, n, "classlabels_ints", 3, (int64_t[]){0, 1, 2});
    n = ob_node(m, "TreeEnsemble", "te", "x6", "yte");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_ints(m, n, "nodes_featureids", 3, (int64_t[]){0, 2, 3});
    ob_attr_ints(m, n, "leaf_targetids", 4, (int64_t[]){0, 1, 0, 1});
    n = ob_node(m, "LinearClassifier", "lc", "x", "ylc,zlc");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_floats(m, n, "coefficients", 6, (float[]){1, 2, 3, 4, 5, 6});
    ob_attr_strings(m, n, "classlabels_strings", 2, ab);
    ob_domain(m, ob_node(m, "Scaler", "sc", "x4", "ysc"), "ai.onnx.ml");
    n = ob_node(m, "ZipMap", "zm", "ztc", "yzm");
    ob_domain(m, n, "ai.onnx.ml");
    ob_attr_ints(m, n, "classlabels_int64s", 3, (int64_t[]){0, 1, 2});
    static const char *const outs[] = {"ytr", "ytc", "yte", "ylc", "zlc", "ysc", "yzm"};
    for (int i = 0; i < 7; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = oc_run(m, FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    const fl_report_node *tr = oc_node(r, "tr"), *tc = oc_node(r, "tc"), *te = oc_node(r, "te");
    assert_string_equal(tr->outputs[0].shape, "[5,1]");
    oc_assert_cost(tr, 10, 0);
    assert_string_equal(tc->outputs[0].dtype, "int64");
    assert_string_equal(tc->outputs[0].shape, "[4]");
    assert_string_equal(tc->outputs[1].shape, "[4,3]");
    oc_assert_cost(tc, 12, 0);
    assert_string_equal(te->outputs[0].shape, "[6,2]");
    oc_assert_cost(te, 18, 0);
    const fl_report_node *lc = oc_node(r, "lc");
    assert_string_equal(lc->outputs[0].dtype, "string");
    assert_string_equal(lc->outputs[0].shape, "[5]");
    assert_string_equal(lc->outputs[1].shape, "[5,2]");
    oc_assert_cost(lc, 70, 30);
    assert_string_equal(oc_node(r, "sc")->outputs[0].shape, "[4,3]");
    oc_assert_cost(oc_node(r, "sc"), 24, 0);
    const fl_report_node *zm = oc_node(r, "zm");
    assert_string_equal(zm->outputs[0].dtype, "variant");
    assert_string_equal(zm->outputs[0].shape, "[4]");
    oc_assert_cost(zm, 0, 0);
    fl_report_free(r);
    ob_free(m);
}

/* Malformed attributes fail naming node and attribute. */
/* CastLike's value is input 0 cast to input 1's dtype, as Cast: float
 * [2.7, 3.2, 4.9] cast like int64 Shape(x) truncates toward zero to [2,3,4]
 * (ONNX's reference casts with numpy's astype), so Reshape(x [24], that)
 * gives [2,3,4]; without the value the Reshape's output would be [?,?,?]. */
static void test_cast_like_value(void **state) {
    (void)state;
    ob_model *m = ob_new(15);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){24}, NULL);
    ob_attr_floats(m, ob_node(m, "Constant", "k", "", "kf"), "value_floats", 3,
                   (float[]){2.7f, 3.2f, 4.9f});
    ob_node(m, "Shape", "s", "x", "sx");
    ob_node(m, "CastLike", "cl", "kf,sx", "dims");
    ob_node(m, "Reshape", "r", "x,dims", "y");
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "cl")->outputs[0].shape, "[3]");
    assert_string_equal(oc_node(r, "r")->outputs[0].shape, "[2,3,4]");
    fl_report_free(r);
    ob_free(m);
}

/* ConstantOfShape's value (ONNX: every element is the fill value) read as
 * Reshape's shape: 5 elements of 2 reshape x (32) to [2,2,2,2,2], 3 of 3
 * reshape z (27) to [3,3,3]; 7 elements of the default fill (0.0f) only
 * shape the output. */
static void test_constant_of_shape_value(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){32}, NULL);
    ob_input(m, "z", OB_FLOAT, 1, (int64_t[]){27}, NULL);
    ob_init_i64(m, "five", 1, (int64_t[]){1}, (int64_t[]){5});
    ob_init_i64(m, "three", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_init_i64(m, "seven", 1, (int64_t[]){1}, (int64_t[]){7});
    ob_attr_tensor_i64(m, ob_node(m, "ConstantOfShape", "c5", "five", "d5"), "value", 1,
                       (int64_t[]){1}, (int64_t[]){2});
    ob_attr_tensor_i64(m, ob_node(m, "ConstantOfShape", "c3", "three", "d3"), "value", 1,
                       (int64_t[]){1}, (int64_t[]){3});
    ob_node(m, "ConstantOfShape", "c7", "seven", "zeros");
    ob_node(m, "Reshape", "r5", "x,d5", "y5");
    ob_node(m, "Reshape", "r3", "z,d3", "y3");
    ob_output(m, "y5");
    ob_output(m, "y3");
    ob_output(m, "zeros");
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "r5")->outputs[0].shape, "[2,2,2,2,2]");
    assert_string_equal(oc_node(r, "r3")->outputs[0].shape, "[3,3,3]");
    assert_string_equal(oc_node(r, "c7")->outputs[0].shape, "[7]");
    fl_report_free(r);
    ob_free(m);
}

/* Opset 24's Swish (x * sigmoid(alpha * x), one activation per element as
 * QuickGelu): X (2,3,8), 48 FLOPs. TensorScatter (a KV cache written in
 * place): past_cache (2,2,16,8), update (2,2,3,8) along axis -2,
 * write_indices (2): present_cache (2,2,16,8), data movement (0 FLOPs, with
 * a rule); an update (2,3,3,8) disagrees off the axis. com.microsoft's
 * QuantizeLinear / DequantizeLinear count as ai.onnx's: x (4,6) float,
 * int16 zero point: y int16, FLOPs 2*24 (divide, round), int_ops 24 (the
 * zero point's add); back to float: FLOPs 24, int_ops 24. */
static void test_opset24_and_ms_qdq(void **state) {
    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        ob_model *m = ob_new(24);
        ob_opset(m, "com.microsoft", 1);
        ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 8}, NULL);
        ob_input(m, "past", OB_FLOAT, 4, (int64_t[]){2, 2, 16, 8}, NULL);
        ob_input(m, "upd", OB_FLOAT, 4, (int64_t[]){2, bad ? 3 : 2, 3, 8}, NULL);
        ob_input(m, "wi", OB_INT64, 1, (int64_t[]){2}, NULL);
        ob_input(m, "q", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
        ob_init_f(m, "sc", 0, NULL, false);
        ob_input(m, "zp", 5 /* int16 */, 0, NULL, NULL);
        ob_attr_f(m, ob_node(m, "Swish", "sw", "x", "y"), "alpha", 1.5f);
        ob_node(m, "TensorScatter", "ts", "past,upd,wi", "pc");
        Onnx__NodeProto *qn = ob_node(m, "QuantizeLinear", "ql", "q,sc,zp", "qi");
        ob_domain(m, qn, "com.microsoft");
        Onnx__NodeProto *dn = ob_node(m, "DequantizeLinear", "dq", "qi,sc,zp", "qf");
        ob_domain(m, dn, "com.microsoft");
        ob_output(m, "y");
        ob_output(m, "pc");
        ob_output(m, "qf");
        if (bad) {
            oc_expect_error(m, "node 'ts' (TensorScatter): input 0 (past_cache) "
                               "and input 1 (update) disagree: 2 vs 3");
            continue;
        }
        fl_report *r = oc_run(m, FL_OK);
        assert_int_equal(r->n_unknown_ops, 0);
        const fl_report_node *sw = oc_node(r, "sw");
        assert_string_equal(sw->outputs[0].shape, "[2,3,8]");
        oc_assert_cost(sw, 48, 0);
        const fl_report_node *ts = oc_node(r, "ts");
        assert_string_equal(ts->outputs[0].shape, "[2,2,16,8]");
        oc_assert_cost(ts, 0, 0);
        const fl_report_node *ql = oc_node(r, "ql"), *dq = oc_node(r, "dq");
        assert_string_equal(ql->outputs[0].dtype, "int16");
        assert_string_equal(ql->outputs[0].shape, "[4,6]");
        oc_assert_int(ql, 48, 24);
        assert_string_equal(dq->outputs[0].dtype, "float");
        oc_assert_int(dq, 24, 24);
        fl_report_free(r);
        ob_free(m);
    }
}

static void test_bad_attrs(void **state) {
    (void)state;
    struct {
        const char *op, *attr;
        int64_t v;
        const char *want;
    } cases[] = {
        {"DepthToSpace", "blocksize", 0, "node 'bad' (DepthToSpace): attr 'blocksize' is 0"},
        {"ArgMax", "axis", 5, "node 'bad' (ArgMax): attr 'axis' 5 is out of range for rank 2"},
        {"LRN", "size", -1, "node 'bad' (LRN): attr 'size' is -1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
        ob_attr_i(m, ob_node(m, cases[i].op, "bad", "x", "y"), cases[i].attr, cases[i].v);
        ob_output(m, "y");
        oc_expect_error(m, cases[i].want);
    }
    /* String attrs of a closed set: the value and the set. */
    struct {
        const char *op, *ins, *attr, *v, *want;
    } strs[] = {
        {"Resize", "x", "mode", "area",
         "node 'bad' (Resize): attr 'mode' is 'area' (nearest, linear, cubic, bilinear or "
         "bicubic)"},
        {"ScatterElements", "x,x,x", "reduction", "sub",
         "node 'bad' (ScatterElements): attr 'reduction' is 'sub' (none, add, mul, max or min)"},
        {"NegativeLogLikelihoodLoss", "x,x", "reduction", "avg",
         "node 'bad' (NegativeLogLikelihoodLoss): attr 'reduction' is 'avg' (none, mean or sum)"},
        {"RNN", "x,x,x", "direction", "both",
         "node 'bad' (RNN): attr 'direction' is 'both' (forward, reverse or bidirectional)"},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        ob_model *m = ob_new(18);
        ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
        ob_attr_s(m, ob_node(m, strs[i].op, "bad", strs[i].ins, "y"), strs[i].attr, strs[i].v);
        ob_output(m, "y");
        oc_expect_error(m, strs[i].want);
    }
    /* Negative Resize sizes. */
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
    ob_init_i64(m, "sizes", 1, (int64_t[]){2}, (int64_t[]){4, -2});
    ob_node(m, "Resize", "rs", "x,,,sizes", "y");
    ob_output(m, "y");
    oc_expect_error(m, "node 'rs' (Resize): input 'sizes' has negative entry -2");
    /* More Resize axes than dims. */
    m = ob_new(18);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 8}, NULL);
    ob_init_i64(m, "sizes", 1, (int64_t[]){3}, (int64_t[]){4, 4, 4});
    ob_attr_ints(m, ob_node(m, "Resize", "rs", "x,,,sizes", "y"), "axes", 3, (int64_t[]){0, 1, 1});
    ob_output(m, "y");
    oc_expect_error(m, "node 'rs' (Resize): attr 'axes' has 3 entries for rank 2");
}

/* An op of a domain we do not model: a warning naming op, domain and
 * version; the op counted as unknown (coverage in the report), never a
 * failure. Opset 6 is modelled (no opset warning); 27 is past the newest. */
static void test_unknown_domain_and_opset(void **state) {
    (void)state;
    ob_model *m = ob_new(6);
    ob_opset(m, "com.example", 2);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Frobnicate", "frob", "x", "y");
    ob_domain(m, n, "com.example");
    ob_node(m, "Relu", "relu", "x", "z");
    ob_output(m, "y");
    ob_output(m, "z");
    fl_report *r = oc_run(m, FL_OK);
    assert_true(
        fl_test_has_warning(r,
                            "node 'frob': op 'Frobnicate' of domain 'com.example' (opset 2) "
                            "is not modelled",
                            NULL));
    assert_false(fl_test_has_warning(r, "outside the modelled opsets", NULL));
    assert_int_equal(r->n_unknown_ops, 1);
    assert_string_equal(r->unknown_ops[0].op, "Frobnicate");
    assert_string_equal(oc_node(r, "relu")->outputs[0].shape, "[4]");
    fl_report_free(r);
    ob_free(m);
}

/* Opsets 22-25 (ONNX's Changelog, every change reviewed): the data types
 * they add are known with their stored widths. Cast of x float [9] (36
 * bytes read) to FLOAT4E2M1 (23, packed two per byte: ceil(9/2) = 5 bytes
 * written), FLOAT8E8M0 (24, one byte each: 9), UINT2 and INT2 (25, 26; four
 * per byte: 3): node bytes 41, 45, 39, 39. A FLOAT4E2M1 initializer of 9
 * elements holds 5 raw bytes (read back to float: 5 + 36 = 41); 9 raw bytes
 * are wrong. DequantizeLinear-23's output_dtype (10, float16) sets the
 * output's dtype. At opset 25 no opset warning; at 27 one naming 26 (opset
 * 26 adds BitCast and CumProd, both modelled). */
static void test_opset25_dtypes(void **state) {
    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        ob_model *m = ob_new(25);
        ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){9}, NULL);
        static const char *const names[4] = {"c23", "c24", "c25", "c26"};
        for (int t = 0; t < 4; t++) {
            char out[8];
            snprintf(out, sizeof out, "y%d", 23 + t);
            ob_attr_i(m, ob_node(m, "Cast", names[t], "x", out), "to", 23 + t);
            ob_output(m, out);
        }
        Onnx__TensorProto *w = ob_init_f(m, "w", 1, (int64_t[]){9}, false);
        w->data_type = 23;
        w->raw_data.len = bad ? 9 : 5;
        ob_attr_i(m, ob_node(m, "Cast", "back", "w", "wf"), "to", 1);
        ob_output(m, "wf");
        ob_input(m, "q", 3 /* int8 */, 1, (int64_t[]){6}, NULL);
        ob_init_f(m, "sc", 0, NULL, false);
        ob_attr_i(m, ob_node(m, "DequantizeLinear", "dq", "q,sc", "qf"), "output_dtype", 10);
        ob_output(m, "qf");
        if (bad) {
            oc_expect_error(m, "raw_data is 9 bytes but dims (9 elements) of "
                               "float4_e2m1fn need 5");
            continue;
        }
        fl_report *r = oc_run(m, FL_OK);
        assert_false(fl_test_has_warning(r, "outside the modelled opsets", NULL));
        static const char *const dts[4] = {"float4_e2m1fn", "float8_e8m0fnu", "uint2", "int2"};
        static const int64_t bytes[4] = {41, 45, 39, 39};
        for (int t = 0; t < 4; t++) {
            const fl_report_node *cn = oc_node(r, names[t]);
            assert_string_equal(cn->outputs[0].dtype, dts[t]);
            assert_string_equal(cn->outputs[0].shape, "[9]");
            assert_true(cn->bytes.known);
            assert_int_equal(cn->bytes.value, bytes[t]);
        }
        const fl_report_node *back = oc_node(r, "back");
        assert_true(back->bytes.known);
        assert_int_equal(back->bytes.value, 41);
        assert_string_equal(oc_node(r, "dq")->outputs[0].dtype, "half");
        fl_report_free(r);
        ob_free(m);
    }
    ob_model *m = ob_new(27);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    fl_report *r = oc_run(m, FL_OK);
    assert_true(
        fl_test_has_warning(r,
                            "ai.onnx opset 27 is outside the modelled opsets 1..26: operators "
                            "are read with their opset 26 definitions",
                            NULL));
    fl_report_free(r);
    ob_free(m);
    /* Cast-24's round_mode is up, down or nearest. */
    m = ob_new(24);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Cast", "c", "x", "y");
    ob_attr_i(m, n, "to", 24);
    ob_attr_s(m, n, "round_mode", "sideways");
    ob_output(m, "y");
    oc_expect_error(m, "node 'c' (Cast): attr 'round_mode' is 'sideways' (up, down or nearest)");
}

/* BitCast (opset 26): the input's shape with attr to's type, the same bits
 * per element, no arithmetic. float [2,3] -> INT32 (6): int32 [2,3], 0
 * FLOPs, and opset 26 reads without a warning; int16 [4] -> FLOAT16 (10):
 * half [4]. float -> INT16 (5) is 32 bits against 16; uint8 -> INT4 (22)
 * 8 against 4; STRING (8) has no bit width. */
static void test_bitcast(void **state) {
    (void)state;
    ob_model *m = ob_new(26);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_input(m, "h", 5 /* int16 */, 1, (int64_t[]){4}, NULL);
    ob_attr_i(m, ob_node(m, "BitCast", "bc", "x", "y"), "to", 6);
    ob_attr_i(m, ob_node(m, "BitCast", "bh", "h", "z"), "to", 10);
    ob_output(m, "y");
    ob_output(m, "z");
    fl_report *r = oc_run(m, FL_OK);
    assert_false(fl_test_has_warning(r, "outside the modelled opsets", NULL));
    const fl_report_node *n = oc_node(r, "bc");
    assert_string_equal(n->outputs[0].dtype, "int32");
    assert_string_equal(n->outputs[0].shape, "[2,3]");
    oc_assert_cost(n, 0, 0);
    assert_string_equal(oc_node(r, "bh")->outputs[0].dtype, "half");
    fl_report_free(r);
    ob_free(m);
    static const struct {
        int in_type, to;
        const char *want;
    } bad[] = {
        {OB_FLOAT, 5,
         "node 'bad' (BitCast): attr 'to' int16 has 16 bits per element, input 0 "
         "float has 32"},
        {OB_UINT8, 22,
         "node 'bad' (BitCast): attr 'to' int4 has 4 bits per element, input 0 "
         "uint8 has 8"},
        {OB_FLOAT, 8, "node 'bad' (BitCast): attr 'to' holds unsupported data type 8"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = ob_new(26);
        ob_input(m, "x", bad[i].in_type, 1, (int64_t[]){4}, NULL);
        ob_attr_i(m, ob_node(m, "BitCast", "bad", "x", "y"), "to", bad[i].to);
        ob_output(m, "y");
        oc_expect_error(m, bad[i].want);
    }
}

/* BatchNormalization-15 with training_mode 1: X float16 (type 10) [2,3,4],
 * scale/bias float, mean/var double (type 11): Y half [2,3,4], running_mean
 * and running_var double [3] (type U, the mean input's; ONNX's shape
 * inference agrees). At opset 14 every input is T: the outputs half. */
static void test_batch_norm_stats_dtype(void **state) {
    (void)state;
    for (int opset = 14; opset <= 15; opset++) {
        ob_model *m = ob_new(opset);
        ob_input(m, "x", 10, 3, (int64_t[]){2, 3, 4}, NULL);
        int st = opset == 15 ? OB_FLOAT : 10, mt = opset == 15 ? 11 : 10;
        ob_input(m, "s", st, 1, (int64_t[]){3}, NULL);
        ob_input(m, "b", st, 1, (int64_t[]){3}, NULL);
        ob_input(m, "mu", mt, 1, (int64_t[]){3}, NULL);
        ob_input(m, "var", mt, 1, (int64_t[]){3}, NULL);
        ob_attr_i(m, ob_node(m, "BatchNormalization", "bn", "x,s,b,mu,var", "y,rm,rv"),
                  "training_mode", 1);
        ob_output(m, "y");
        ob_output(m, "rm");
        ob_output(m, "rv");
        fl_report *r = oc_run(m, FL_OK);
        const fl_report_node *a = oc_node(r, "bn");
        assert_string_equal(a->outputs[0].dtype, "half");
        assert_string_equal(a->outputs[0].shape, "[2,3,4]");
        for (int k = 1; k <= 2; k++) {
            assert_string_equal(a->outputs[k].dtype, opset == 15 ? "double" : "half");
            assert_string_equal(a->outputs[k].shape, "[3]");
        }
        fl_report_free(r);
        ob_free(m);
    }
}

/* Attribute values from a model near the int64 limits, where a rule's own
 * arithmetic would overflow (the suite also runs under UBSan): ConvTranspose
 * with dilation 2^62 ((k - 1) * dilation), MaxPool with ceil_mode over a
 * dim of 2^62 with a pad of 2^62 of uint8 (exact: 2^59 windows of stride 16), Slice with steps
 * INT64_MAX and INT64_MIN (computed exactly: one element each), Attention and PackedAttention whose
 * qkv_hidden_sizes sum past INT64_MAX, PackedMultiHeadAttention with num_heads 2^62 over packed QKV
 * of head size 8 (head size * num_heads), DepthToSpace with blocksize 2^32 (blocksize * blocksize),
 * LRN with size INT64_MAX (2 * size + 3 FLOPs per element), LongformerAttention with window
 * INT64_MAX (2 * window), SparseAttention with num_heads and kv_num_heads 2^62 (packed: num_heads +
 * 2 * kv_num_heads; unpacked over an unknown hidden size: head size * num_heads), MatMulNBits with
 * K INT64_MAX (ceil(K / block_size) computed exactly: B's dim 1 then mismatches) and with
 * block_size 2^62 (block_size * bits), MatMulBnb4 with K 2^32 and N 2^31 (K * N),
 * LongformerAttention's cost with window 2^40 over a symbolic sequence length (window * (window +
 * 1)), DecoderMaskedMultiHeadAttention over packed QKV with num_heads 2^62 (3 * num_heads),
 * GroupQueryAttention over packed QKV with num_heads and kv_num_heads 2^62 (num_heads + 2 *
 * kv_num_heads), Scan with num_scan_inputs 2^31 (the input count less num_scan_inputs, in int). */
static void test_overflow_attrs(void **state) {
    (void)state;
    ob_model *m = ob_new(17);
    Onnx__NodeProto *n;
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 5, 5}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){4, 2, 3, 3}, false);
    ob_attr_ints(m, ob_node(m, "ConvTranspose", "ct", "x,w", "y"), "dilations", 2,
                 (int64_t[]){INT64_MAX / 2 + 1, 1});
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'ct' (ConvTranspose): spatial dim 0: output_padding 0 + (kernel 3 "
                          "- 1) * dilation 4611686018427387904 + 1 - pads 0 - 0 - stride 1 "
                          "overflows 64-bit integers");

    m = ob_new(13); /* ceil_mode's last-window test: (r - 1) * s and in + pad pass INT64_MAX */
    ob_input(m, "x", 2 /* uint8 */, 3, (int64_t[]){1, 1, (int64_t)1 << 62}, NULL);
    n = ob_node(m, "MaxPool", "mp", "x", "y");
    ob_attr_ints(m, n, "kernel_shape", 1, (int64_t[]){2});
    ob_attr_ints(m, n, "strides", 1, (int64_t[]){16});
    ob_attr_ints(m, n, "pads", 2, (int64_t[]){(int64_t)1 << 62, 0});
    ob_attr_i(m, n, "ceil_mode", 1);
    ob_output(m, "y");
    oc_expect_shape(m, "mp", "[1,1,576460752303423488]");

    m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){10}, NULL);
    ob_init_i64(m, "s0", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_i64(m, "e0", 1, (int64_t[]){1}, (int64_t[]){10});
    ob_init_i64(m, "st0", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_i64(m, "s1", 1, (int64_t[]){1}, (int64_t[]){9});
    ob_init_i64(m, "e1", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN});
    ob_init_i64(m, "st1", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN});
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_node(m, "Slice", "up", "x,s0,e0,ax,st0", "y1");
    ob_node(m, "Slice", "down", "x,s1,e1,ax,st1", "y2");
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "up")->outputs[0].shape, "[1]");
    assert_string_equal(oc_node(r, "down")->outputs[0].shape, "[1]");
    fl_report_free(r);
    ob_free(m);

    static const int64_t sizes[] = {INT64_MAX / 2, INT64_MAX / 2, 2};
    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 4, 8}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){8, 24}, false);
    n = oc_ms_node(m, "Attention", "att", "x,w", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_ints(m, n, "qkv_hidden_sizes", 3, sizes);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'att' (Attention): attr 'qkv_hidden_sizes' (4611686018427387903, "
                          "4611686018427387903, 2): their sum overflows 64-bit integers");

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){16, 48}, false);
    ob_init_f(m, "b", 1, (int64_t[]){48}, false);
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "cum", OB_INT32, 1, (int64_t[]){4}, NULL);
    n = oc_ms_node(m, "PackedAttention", "pa", "x,w,b,off,cum", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_ints(m, n, "qkv_hidden_sizes", 3, sizes);
    ob_output(m, "y");
    oc_expect_overflow(m,
                       "node 'pa' (PackedAttention): attr 'qkv_hidden_sizes' "
                       "(4611686018427387903, 4611686018427387903, 2): their sum overflows 64-bit "
                       "integers");

    m = oc_ms_model();
    ob_input(m, "qkv", OB_FLOAT, 4, (int64_t[]){7, -1, 3, 8},
             (const char *[]){NULL, "nh", NULL, NULL});
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){3, 4}, NULL);
    ob_input(m, "cum", OB_INT32, 1, (int64_t[]){4}, NULL);
    ob_attr_i(m, oc_ms_node(m, "PackedMultiHeadAttention", "pm", "qkv,,,,off,cum", "y"),
              "num_heads", (int64_t)1 << 62);
    ob_output(m, "y");
    oc_expect_overflow(m,
                       "node 'pm' (PackedMultiHeadAttention): product overflows 64-bit integers");

    m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 16, 4, 4}, NULL);
    ob_attr_i(m, ob_node(m, "DepthToSpace", "d2s", "x", "y"), "blocksize", (int64_t)1 << 32);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'd2s' (DepthToSpace): attr 'blocksize' is 4294967296: blocksize * "
                          "blocksize overflows 64-bit integers");

    m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    ob_attr_i(m, ob_node(m, "LRN", "lrn", "x", "y"), "size", INT64_MAX);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'lrn' (LRN): attr 'size' is 9223372036854775807: 2 * size + 3 "
                          "overflows 64-bit integers");

    for (int i = 0; i < 2; i++) {
        m = oc_ms_model();
        ob_input(m, "q", OB_FLOAT, 3, (int64_t[]){1, 4, i ? -1 : 32},
                 i ? (const char *[]){NULL, NULL, "h"} : NULL);
        ob_input(m, "pk", OB_FLOAT, 4, (int64_t[]){1, 2, 64, 8}, NULL);
        ob_input(m, "row", OB_INT32, 2, (int64_t[]){1, 5}, NULL);
        ob_input(m, "col", OB_INT32, 2, (int64_t[]){1, 9}, NULL);
        ob_init_raw(m, "t", OB_INT32, 0, NULL, (int32_t[]){4}, sizeof(int32_t));
        ob_input(m, "klen", OB_INT32, 1, (int64_t[]){1}, NULL);
        n = oc_ms_node(m, "SparseAttention", "sa",
                       i ? "q,q,q,pk,pk,row,col,t,klen" : "q,,,pk,pk,row,col,t,klen", "y,prk,prv");
        ob_attr_i(m, n, "num_heads", (int64_t)1 << 62);
        ob_attr_i(m, n, "kv_num_heads", (int64_t)1 << 62);
        ob_attr_i(m, n, "sparse_block_size", 16);
        ob_output(m, "y");
        oc_expect_overflow(
            m, i ? "node 'sa' (SparseAttention): product overflows 64-bit integers"
                 : "node 'sa' (SparseAttention): attrs 'num_heads' 4611686018427387904 and "
                   "'kv_num_heads' 4611686018427387904: num_heads + 2 * kv_num_heads "
                   "overflows 64-bit integers");
    }

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 8, 4}, NULL);
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){4, 12}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){12}, false);
    ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){1, 8}, NULL);
    ob_input(m, "g", OB_INT32, 2, (int64_t[]){1, 8}, NULL);
    n = oc_ms_node(m, "LongformerAttention", "lf", "x,w,b,mask,w,b,g", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "window", INT64_MAX);
    ob_output(m, "y");
    oc_expect_overflow(m,
                       "node 'lf' (LongformerAttention): attr 'window' is 9223372036854775807: 2 "
                       "* window overflows 64-bit integers");

    for (int i = 0; i < 2; i++) {
        m = oc_ms_model();
        ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, -1}, (const char *[]){NULL, "k"});
        ob_input(m, "b", 2, 3, (int64_t[]){32, 2, 16}, NULL);
        ob_init_f(m, "sc", 1, (int64_t[]){64}, false);
        n = oc_ms_node(m, "MatMulNBits", "nb", "a,b,sc", "y");
        ob_attr_i(m, n, "K", i ? 64 : INT64_MAX);
        ob_attr_i(m, n, "N", 32);
        ob_attr_i(m, n, "block_size", i ? (int64_t)1 << 62 : 16);
        ob_output(m, "y");
        if (i) {
            oc_expect_overflow(m,
                               "node 'nb' (MatMulNBits): attr 'block_size' is "
                               "4611686018427387904: block_size * bits overflows 64-bit integers");
        } else {
            oc_expect_error(m, "node 'nb' (MatMulNBits): input 1 (B)");
        }
    }

    m = oc_ms_model();
    ob_input(m, "a", OB_FLOAT, 2, (int64_t[]){3, (int64_t)1 << 32}, NULL);
    ob_input(m, "b", OB_UINT8, 1, (int64_t[]){-1}, NULL);
    ob_input(m, "am", OB_FLOAT, 1, (int64_t[]){-1}, NULL);
    n = oc_ms_node(m, "MatMulBnb4", "q", "a,b,am", "y");
    ob_attr_i(m, n, "K", (int64_t)1 << 32);
    ob_attr_i(m, n, "N", (int64_t)1 << 31);
    ob_attr_i(m, n, "block_size", 64);
    ob_attr_i(m, n, "quant_type", 1);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'q' (MatMulBnb4): attrs K 4294967296 and N 2147483648: K * N "
                          "overflows 64-bit integers");

    /* LongformerAttention's cost: band scores S * (2W + 1) - W * (W + 1) */
    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, -1, 4}, (const char *[]){NULL, "s", NULL});
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){4, 12}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){12}, false);
    ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){1, -1}, (const char *[]){NULL, "s"});
    ob_input(m, "g", OB_INT32, 2, (int64_t[]){1, -1}, (const char *[]){NULL, "s"});
    n = oc_ms_node(m, "LongformerAttention", "lfc", "x,w,b,mask,w,b,g", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "window", (int64_t)1 << 40);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'lfc' (LongformerAttention): attr 'window' is 1099511627776: "
                          "window * (window + 1) overflows 64-bit integers");

    /* DecoderMaskedMultiHeadAttention, packed QKV: 3 * num_heads */
    m = oc_ms_model();
    ob_input(m, "qkv", OB_FLOAT, 3, (int64_t[]){1, 1, 48}, NULL);
    ob_attr_i(m, oc_ms_node(m, "DecoderMaskedMultiHeadAttention", "dm", "qkv", "y"), "num_heads",
              (int64_t)1 << 62);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'dm' (DecoderMaskedMultiHeadAttention): attr 'num_heads' is "
                          "4611686018427387904: 3 * num_heads overflows 64-bit integers");

    /* GroupQueryAttention, packed QKV: num_heads + 2 * kv_num_heads */
    m = oc_ms_model();
    ob_input(m, "qkv", OB_FLOAT, 3, (int64_t[]){1, 1, 48}, NULL);
    ob_input(m, "seqlens", OB_INT32, 1, (int64_t[]){1}, NULL);
    ob_input(m, "total", OB_INT32, 0, NULL, NULL);
    n = oc_ms_node(m, "GroupQueryAttention", "gqa", "qkv,,,,,seqlens,total", "y,pk,pv");
    ob_attr_i(m, n, "num_heads", (int64_t)1 << 62);
    ob_attr_i(m, n, "kv_num_heads", (int64_t)1 << 62);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'gqa' (GroupQueryAttention): attrs 'num_heads' "
                          "4611686018427387904 and 'kv_num_heads' 4611686018427387904: num_heads "
                          "+ 2 * kv_num_heads overflows 64-bit integers");

    /* Scan: the state count, inputs - num_scan_inputs, was computed in int */
    ob_model *body = ob_new(13);
    ob_input(body, "s_in", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_input(body, "x_in", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_node(body, "Add", "acc", "s_in,x_in", "s_out");
    ob_output_typed(body, "s_out", OB_FLOAT, 1, (int64_t[]){4});
    ob_output_typed(body, "x_in", OB_FLOAT, 1, (int64_t[]){4});
    m = ob_new(13);
    ob_input(m, "s0", OB_FLOAT, 1, (int64_t[]){4}, NULL);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){6, 4}, NULL);
    n = ob_node(m, "Scan", "scan", "s0,x", "s,ys");
    ob_attr_i(m, n, "num_scan_inputs", (int64_t)1 << 31);
    ob_attr_graph(m, n, "body", body);
    ob_output(m, "s");
    ob_output(m, "ys");
    r = oc_run(m, FL_EINVAL);
    assert_string_equal(
        r->error, "node 'scan' (Scan): attr 'num_scan_inputs' 2147483648 does not fit 2 inputs");
    fl_report_free(r);
    ob_free(m);
    ob_free(body);
}

/* Reductions over an empty input combine nothing: 0 FLOPs, where
 * E(in) - E(out) went negative (ReduceProd of an int64 [0] to a scalar
 * counted -1 FLOPs, ReduceSum of [0,4] over axis 0 kept as [1,4] -4,
 * GlobalMaxPool of [1,2,0,3] -2, ReduceL1 of [0,4] -4). */
static void test_reduce_empty(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_init_i64(m, "s", 1, (int64_t[]){0}, NULL);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){0, 4}, NULL);
    ob_input(m, "z", OB_FLOAT, 4, (int64_t[]){1, 2, 0, 3}, NULL);
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_node(m, "ReduceProd", "prod", "s", "y1");
    ob_node(m, "ReduceSum", "sum", "x,ax", "y2");
    ob_node(m, "GlobalMaxPool", "gmp", "z", "y3");
    ob_attr_ints(m, ob_node(m, "ReduceL1", "l1", "x", "y4"), "axes", 1, (int64_t[]){0});
    ob_outputs(m, "y", 4);
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "sum")->outputs[0].shape, "[1,4]");
    assert_string_equal(oc_node(r, "gmp")->outputs[0].shape, "[1,2,1,1]");
    const char *names[] = {"prod", "sum", "gmp", "l1"};
    for (size_t i = 0; i < 4; i++) {
        oc_assert_cost(oc_node(r, names[i]), 0, 0);
    }
    assert_int_equal(r->totals.flops.value, 0);
    fl_report_free(r);
    ob_free(m);
}

/* Totals past the int64 limit, each count of each node exact: the byte
 * total of a Split of 2^60 floats (read 2^62 bytes, written 2^62) fails
 * naming both sums; a chain of Adds over 2^61 int8s fails at the node whose
 * bytes read take the total past the limit (n1 reads 2^62, n2 as much
 * again), naming the node, the total and the node's count (before, the
 * first said "dimension sum overflows" naming nothing, the second naming
 * the node but not the sum). */
static void test_overflow_totals(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){(int64_t)1 << 60}, NULL);
    ob_node(m, "Split", "sp", "x", "y1,y2");
    ob_outputs(m, "y", 2);
    oc_expect_overflow(m, "the graph's total bytes moved (read 4611686018427387904 + written "
                          "4611686018427387904) overflows 64-bit integers");

    m = ob_new(13);
    ob_input(m, "x", OB_INT8, 1, (int64_t[]){(int64_t)1 << 61}, NULL);
    ob_node(m, "Add", "n1", "x,x", "a1");
    ob_node(m, "Add", "n2", "a1,x", "a2");
    ob_output(m, "a2");
    oc_expect_overflow(m, "node 'n2' (Add): the graph's total bytes read overflows 64-bit "
                          "integers when this node's 4611686018427387904 is added");
}

/* Dims from a model near the int64 limits (huge but representable), where a
 * rule's own arithmetic on them would overflow: Split into 2 equal parts of
 * a dim of INT64_MAX (ceil(dim / 2) was (dim + 2 - 1) / 2: exact, 2^62 and
 * 2^62 - 1); SplitToSequence with a scalar split of INT64_MAX over 10 (the
 * count ceil(10 / split) was (10 + split - 1) / split: one element [10]) and
 * of 2^62 over INT64_MAX (the offsets 0, 2^62, then 2^63: two elements,
 * 2^62 and 2^62 - 1); LongformerAttention with a hidden size of 2^62 (the
 * weight's 3 * hidden); PackedAttention with a token_offset batch of
 * INT64_MAX (cumulative_sequence_length's batch + 1, compared exactly). The
 * dims of INT64_MAX are on string tensors, counted as 0 bytes: the bytes of
 * a numeric type would overflow the report's byte totals. */
static void test_overflow_dims(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", 8 /* string */, 1, (int64_t[]){INT64_MAX}, NULL);
    ob_node(m, "Split", "sp", "x", "y1,y2");
    ob_outputs(m, "y", 2);
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "sp")->outputs[0].shape, "[4611686018427387904]");
    assert_string_equal(oc_node(r, "sp")->outputs[1].shape, "[4611686018427387903]");
    fl_report_free(r);
    ob_free(m);

    m = ob_new(13);
    ob_input(m, "a", OB_UINT8, 1, (int64_t[]){10}, NULL);
    ob_input(m, "b", 8 /* string */, 1, (int64_t[]){INT64_MAX}, NULL);
    ob_init_i64(m, "big", 0, NULL, (int64_t[]){INT64_MAX});
    ob_init_i64(m, "half", 0, NULL, (int64_t[]){(int64_t)1 << 62});
    ob_init_i64(m, "p0", 0, NULL, (int64_t[]){0});
    ob_init_i64(m, "p1", 0, NULL, (int64_t[]){1});
    ob_node(m, "SplitToSequence", "sa", "a,big", "qa");
    ob_node(m, "SplitToSequence", "sb", "b,half", "qb");
    ob_node(m, "SequenceAt", "a0", "qa,p0", "e1");
    ob_node(m, "SequenceAt", "b0", "qb,p0", "e2");
    ob_node(m, "SequenceAt", "b1", "qb,p1", "e3");
    ob_node(m, "SequenceLength", "nb", "qb", "e4");
    ob_outputs(m, "e", 4);
    r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, "a0")->outputs[0].shape, "[10]");
    assert_string_equal(oc_node(r, "b0")->outputs[0].shape, "[4611686018427387904]");
    assert_string_equal(oc_node(r, "b1")->outputs[0].shape, "[4611686018427387903]");
    fl_report_free(r);
    ob_free(m);

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 8, (int64_t)1 << 62}, NULL);
    ob_input(m, "w", OB_FLOAT, 2, (int64_t[]){4, 12}, NULL);
    ob_init_f(m, "b", 1, (int64_t[]){12}, false);
    ob_input(m, "mask", OB_FLOAT, 2, (int64_t[]){1, 8}, NULL);
    ob_input(m, "g", OB_INT32, 2, (int64_t[]){1, 8}, NULL);
    Onnx__NodeProto *n = oc_ms_node(m, "LongformerAttention", "lf", "x,w,b,mask,w,b,g", "y");
    ob_attr_i(m, n, "num_heads", 2);
    ob_attr_i(m, n, "window", 2);
    ob_output(m, "y");
    oc_expect_overflow(m, "node 'lf' (LongformerAttention): input 0 (input)'s hidden size "
                          "4611686018427387904: 3 * hidden overflows 64-bit integers");

    m = oc_ms_model();
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){7, 16}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){16, 48}, false);
    ob_init_f(m, "b", 1, (int64_t[]){48}, false);
    ob_input(m, "off", OB_INT32, 2, (int64_t[]){INT64_MAX, 1}, NULL);
    ob_input(m, "cum", OB_INT32, 1, (int64_t[]){3}, NULL);
    ob_attr_i(m, oc_ms_node(m, "PackedAttention", "pa", "x,w,b,off,cum", "y"), "num_heads", 2);
    ob_output(m, "y");
    r = oc_run(m, FL_EINVAL);
    assert_string_equal(r->error, "node 'pa' (PackedAttention): input 4 "
                                  "(cumulative_sequence_length) has 3 entries, want token_offset's "
                                  "batch 9223372036854775807 + 1");
    fl_report_free(r);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_bitcast),
        cmocka_unit_test(test_lstm),
        cmocka_unit_test(test_einsum),
        cmocka_unit_test(test_resize_topk),
        cmocka_unit_test(test_topk_huge_k),
        cmocka_unit_test(test_resize_keep_aspect),
        cmocka_unit_test(test_resize_keep_aspect_unknown),
        cmocka_unit_test(test_resize_scale_overflow),
        cmocka_unit_test(test_topk_symbolic_k),
        cmocka_unit_test(test_dft_symbolic_length),
        cmocka_unit_test(test_dft_axis),
        cmocka_unit_test(test_fft_flops_overflow),
        cmocka_unit_test(test_dft_low_rank),
        cmocka_unit_test(test_dft_irfft),
        cmocka_unit_test(test_mod_symbolic_nonzero),
        cmocka_unit_test(test_ew_empty_huge_dims),
        cmocka_unit_test(test_gather_empty_huge_dims),
        cmocka_unit_test(test_expand_symbolic_minus_one),
        cmocka_unit_test(test_dim_param_expression),
        cmocka_unit_test(test_ml_linear_regressor),
        cmocka_unit_test(test_ml_models),
        cmocka_unit_test(test_opset18_20),
        cmocka_unit_test(test_nodes_ort_cannot_run),
        cmocka_unit_test(test_batch_norm_stats_dtype),
        cmocka_unit_test(test_cast_like_value),
        cmocka_unit_test(test_constant_of_shape_value),
        cmocka_unit_test(test_opset24_and_ms_qdq),
        cmocka_unit_test(test_deform_conv_pools_cumprod),
        cmocka_unit_test(test_deform_conv_bad),
        cmocka_unit_test(test_sequence_optional),
        cmocka_unit_test(test_sequence_bad),
        cmocka_unit_test(test_sequence_inputs),
        cmocka_unit_test(test_sequence_inputs_bad),
        cmocka_unit_test(test_opset27_28),
        cmocka_unit_test(test_opset27_28_bad),
        cmocka_unit_test(test_bad_attrs),
        cmocka_unit_test(test_unknown_domain_and_opset),
        cmocka_unit_test(test_opset25_dtypes),
        cmocka_unit_test(test_overflow_attrs),
        cmocka_unit_test(test_overflow_dims),
        cmocka_unit_test(test_overflow_totals),
        cmocka_unit_test(test_reduce_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
