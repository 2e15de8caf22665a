/*
 * test_ops_nn.c - unit tests for the nn op family (src/ops/nn.c): shapes
 * (known, symbolic, unknown), bad attrs, and FLOP/MAC counts in the complete
 * and tfprof conventions, worked out by hand in the comments.
 *
 * Graphs are built directly with the IR API (irbuild.h):
 * placeholders get their output shape set by hand, integer constants carry a
 * value, and the op under test is run through its descriptor's infer/cost.
 */
#include "irbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state) {
    (void)state;
    return ib_setup();
}

static int teardown(void **state) {
    (void)state;
    ib_teardown();
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Builder (irbuild.h) additions                                              */
/* ------------------------------------------------------------------------- */

static fl_sym var(const char *name) {
    fl_sym s;
    assert_int_equal(fl__sym_var(G->syms, name, &s), FL_OK);
    return s;
}

/* An int32 vector of length cnt whose value is unknown. */
static fl_node *int_vec_unknown(int cnt) {
    fl_sym d = K(cnt);
    fl_node *n = ph_dims(FL_DT_INT32, 1, &d);
    return n;
}

/* Common conv/pool attrs: T=float, strides, padding. */
static void conv_attrs(fl_node *n, int64_t s, const char *padding) {
    attr_type(n, "T", FL_DT_FLOAT);
    INTS(n, "strides", 1, s, s, 1);
    attr_s(n, "padding", padding);
}

static void pool_attrs(fl_node *n, int64_t k, int64_t s, const char *padding) {
    attr_type(n, "T", FL_DT_FLOAT);
    INTS(n, "ksize", 1, k, k, 1);
    INTS(n, "strides", 1, s, s, 1);
    attr_s(n, "padding", padding);
}

/* ------------------------------------------------------------------------- */
/* Running and checking                                                       */
/* ------------------------------------------------------------------------- */

static void infer_ok(fl_node *n) {
    fl__diag_init(&diag, &arena);
    fl_status st = n->desc->infer(&ctx, n);
    if (st != FL_OK) {
        fail_msg("infer of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
    }
}

/* "[1,112,112,32]", "[]" for a scalar, "unknown" for unknown rank; "?" for
 * an unknown dim. */
static const char *shape_str(const fl_node *n, int port) {
    const fl_shape *s = &n->outputs[port].shape;
    if (s->rank < 0) {
        return "unknown";
    }
    char buf[512] = "[";
    for (int i = 0; i < s->rank; i++) {
        char d[128];
        fl__sym_format(s->dims[i], d, sizeof d);
        if (i) {
            strcat(buf, ",");
        }
        strcat(buf, d);
    }
    strcat(buf, "]");
    return fl__arena_strdup(&arena, buf);
}

static void check_shape(const fl_node *n, int port, const char *expect) {
    assert_string_equal(shape_str(n, port), expect);
}

static fl_cost run_cost(const fl_node *n) {
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_non_null(n->desc->cost);
    fl_status st = n->desc->cost(&ctx, n, &c);
    if (st != FL_OK) {
        fail_msg("cost of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
    }
    return c;
}

/* Checks flops / tfprof / macs (as text, so symbolic counts work too). */
static void check_cost(const fl_node *n, const char *flops, const char *tfprof, const char *macs,
                       bool tfprof_rule) {
    fl_cost c = run_cost(n);
    assert_false(c.incomplete);
    assert_true(c.has_rule);
    assert_int_equal(c.tfprof_rule, tfprof_rule);
    assert_string_equal(sym_str(c.flops), flops);
    assert_string_equal(sym_str(c.tfprof_flops), tfprof);
    assert_string_equal(sym_str(c.macs), macs);
}

static void check_incomplete(const fl_node *n) {
    fl_cost c = run_cost(n);
    assert_true(c.incomplete);
    assert_true(c.has_rule);
}

static int64_t subst(fl_sym s, int nb, const char *const *names, const int64_t *vals) {
    fl_sym r;
    assert_int_equal(fl__sym_subst(G->syms, s, (size_t)nb, names, vals, &r), FL_OK);
    assert_true(fl_sym_is_known(r));
    return r.k;
}

/* ------------------------------------------------------------------------- */
/* Descriptor table                                                           */
/* ------------------------------------------------------------------------- */

static void test_descriptors(void **state) {
    (void)state;
    static const struct {
        const char *family, *name;
        const struct fl_op_desc *desc;
    } all[] = {
#define FL_OP(e, name, family, ...) {#family, name, &fl__desc_##e},
#include "ops/ops.def"
#undef FL_OP
    };
    int count = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(all[i].family, "nn") != 0) {
            continue;
        }
        const struct fl_op_desc *d = all[i].desc;
        assert_string_equal(d->name, all[i].name);
        assert_non_null(d->infer);
        assert_non_null(d->cost);
        assert_true(d->n_outputs >= 1);
        assert_true(d->min_inputs >= 1);
        assert_true(d->max_inputs == -1 || d->max_inputs >= d->min_inputs);
        count++;
    }
    assert_int_equal(count, 58);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM.n_outputs, 5);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM_V2.n_outputs, 5);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM_V3.n_outputs, 6);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM_EX.n_outputs, 6);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM_GRAD_V3.n_outputs, 5);
    assert_int_equal(fl__desc_FUSED_BATCH_NORM_GRAD_EX.n_outputs, 6);
}

/* ------------------------------------------------------------------------- */
/* Conv2D                                                                     */
/* ------------------------------------------------------------------------- */

static void test_conv2d_known(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(224), K(224), K(3)), *f = PH(K(3), K(3), K(3), K(32));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    /* SAME, stride 2: ceil(224/2) = 112. */
    check_shape(c, 0, "[1,112,112,32]");
    assert_int_equal(c->outputs[0].dtype, FL_DT_FLOAT);
    /* E(out) = 112*112*32 = 401408; MACs = 401408 * 3*3*3 = 10838016;
     * FLOPs = 2 * MACs = 21676032 = tfprof's 2*E(out)*Kh*Kw*Cin. */
    check_cost(c, "21676032", "21676032", "10838016", true);
}

static void test_conv2d_symbolic(void **state) {
    (void)state;
    fl_sym N = var("N"), H = var("H"), W = var("W");
    fl_node *x = PH(N, H, W, K(3)), *f = PH(K(3), K(3), K(3), K(32));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[N,ceil(H/2),ceil(W/2),32]");
    const char *names[] = {"H"};
    int64_t vals[] = {225};
    assert_int_equal(subst(c->outputs[0].shape.dims[1], 1, names, vals), 113);

    fl_cost cost = run_cost(c);
    assert_false(cost.incomplete);
    /* At N=1, H=W=224 it is the known case above. */
    const char *names3[] = {"N", "H", "W"};
    int64_t vals3[] = {1, 224, 224};
    assert_int_equal(subst(cost.flops, 3, names3, vals3), 21676032);
    assert_int_equal(subst(cost.tfprof_flops, 3, names3, vals3), 21676032);
    assert_int_equal(subst(cost.macs, 3, names3, vals3), 10838016);
    /* N=2, H=W=225: out 2*113*113*32 = 817216; MACs * 27 = 22064832. */
    int64_t vals4[] = {2, 225, 225};
    assert_int_equal(subst(cost.macs, 3, names3, vals4), 22064832);
}

static void test_conv2d_valid_dilated(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(10), K(10), K(4)), *f = PH(K(3), K(3), K(4), K(8));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "VALID");
    INTS(c, "dilations", 1, 2, 2, 1);
    infer_ok(c);
    /* Effective window (3-1)*2+1 = 5: 10 - 5 + 1 = 6. */
    check_shape(c, 0, "[1,6,6,8]");
    /* E(out) = 288; MACs = 288 * 36 = 10368. */
    check_cost(c, "20736", "20736", "10368", true);
}

static void test_conv2d_explicit_padding(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(5), K(5), K(1)), *f = PH(K(3), K(3), K(1), K(1));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 2, "EXPLICIT");
    INTS(c, "explicit_paddings", 0, 0, 1, 2, 1, 2, 0, 0);
    infer_ok(c);
    /* (5 + 1 + 2 - 3) / 2 + 1 = 3. */
    check_shape(c, 0, "[1,3,3,1]");

    fl_node *bad = OP("Conv2D", x, f);
    conv_attrs(bad, 2, "EXPLICIT");
    INTS(bad, "explicit_paddings", 0, 0, 1, 2);
    infer_fails(bad, "explicit_paddings");

    /* Paddings whose sum overflows fail naming them (nothing computed out
     * of range: the suite runs under UBSan). */
    fl_node *big = OP("Conv2D", x, f);
    conv_attrs(big, 2, "EXPLICIT");
    INTS(big, "explicit_paddings", 0, 0, INT64_MAX / 2 + 1, INT64_MAX / 2 + 1, 1, 2, 0, 0);
    infer_fails_st(big, FL_EOVERFLOW,
                   "pads 4611686018427387904 + 4611686018427387904 - window 3 overflows 64-bit "
                   "integers");
}

static void test_conv2d_nchw_and_groups(void **state) {
    (void)state;
    fl_node *x = PH(K(2), K(6), K(32), K(32)), *f = PH(K(5), K(5), K(3), K(16));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "VALID");
    attr_s(c, "data_format", "NCHW");
    INTS(c, "strides", 1, 1, 1, 1);
    infer_ok(c);
    /* Grouped conv (6 input channels, filter depth 3): 32-5+1 = 28. */
    check_shape(c, 0, "[2,16,28,28]");
    /* E(out) = 2*16*28*28 = 25088; MACs = 25088 * 5*5*3 = 1881600. tfprof
     * does not check Conv2D's data format. */
    check_cost(c, "3763200", "3763200", "1881600", true);

    fl_node *x7 = PH(K(2), K(7), K(32), K(32));
    fl_node *bad = OP("Conv2D", x7, f);
    conv_attrs(bad, 1, "VALID");
    attr_s(bad, "data_format", "NCHW");
    infer_fails(bad, "input depth 7");
}

static void test_conv2d_unknown(void **state) {
    (void)state;
    fl_node *x = PH_UNKNOWN(), *f = PH(K(3), K(3), K(3), K(32));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[?,?,?,32]");
    check_incomplete(c);

    /* Unknown filter spatial dims: SAME does not need them, VALID does. */
    fl_node *x2 = PH(U, K(64), K(64), K(3)), *f2 = PH(U, U, K(3), K(8));
    fl_node *same = OP("Conv2D", x2, f2);
    conv_attrs(same, 2, "SAME");
    infer_ok(same);
    check_shape(same, 0, "[?,32,32,8]");
    fl_node *valid = OP("Conv2D", x2, f2);
    conv_attrs(valid, 2, "VALID");
    infer_ok(valid);
    check_shape(valid, 0, "[?,?,?,8]");
    check_incomplete(valid);
}

static void test_conv2d_bad_attrs(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(4));

    fl_node *c1 = OP("Conv2D", x, f);
    attr_type(c1, "T", FL_DT_FLOAT);
    INTS(c1, "strides", 1, 1, 1);
    attr_s(c1, "padding", "SAME");
    infer_fails(c1, "'strides' must have 4 entries");
}

static void test_conv2d_bad_padding(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(4));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "FULL");
    infer_fails(c, "'padding'");
}

static void test_conv2d_bad_format(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(4));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "SAME");
    attr_s(c, "data_format", "NWHC");
    infer_fails(c, "'data_format'");
}

static void test_conv2d_bad_rank_and_stride(void **state) {
    (void)state;
    fl_node *x = PH(K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(4));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "SAME");
    infer_fails(c, "must be 4-D");
}

static void test_conv2d_batch_stride(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(4));
    fl_node *c = OP("Conv2D", x, f);
    attr_type(c, "T", FL_DT_FLOAT);
    INTS(c, "strides", 2, 1, 1, 1);
    attr_s(c, "padding", "SAME");
    infer_fails(c, "'strides'");
}

static void test_conv2d_window_too_big(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(2), K(2), K(3)), *f = PH(K(5), K(5), K(3), K(4));
    fl_node *c = OP("Conv2D", x, f);
    conv_attrs(c, 1, "VALID");
    assert_int_equal(c->desc->infer(&ctx, c), FL_EINVAL);
}

/* ------------------------------------------------------------------------- */
/* Conv3D, depthwise, fused convolutions                                      */
/* ------------------------------------------------------------------------- */

static void test_conv3d(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(16), K(16), K(2)), *f = PH(K(3), K(3), K(3), K(2), K(4));
    fl_node *c = OP("Conv3D", x, f);
    attr_type(c, "T", FL_DT_FLOAT);
    INTS(c, "strides", 1, 1, 2, 2, 1);
    attr_s(c, "padding", "SAME");
    infer_ok(c);
    check_shape(c, 0, "[1,8,8,8,4]");
    /* E(out) = 2048; MACs = 2048 * 3*3*3*2 = 110592. */
    check_cost(c, "221184", "221184", "110592", true);

    fl_node *bad = OP("Conv3D", x, f);
    attr_type(bad, "T", FL_DT_FLOAT);
    INTS(bad, "strides", 1, 1, 1, 1);
    attr_s(bad, "padding", "SAME");
    infer_fails(bad, "'strides' must have 5 entries");
}

static void test_depthwise(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(112), K(112), K(32)), *f = PH(K(3), K(3), K(32), K(2));
    fl_node *c = OP("DepthwiseConv2dNative", x, f);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    /* Output channels = 32 * multiplier 2. */
    check_shape(c, 0, "[1,56,56,64]");
    /* E(out) = 56*56*64 = 200704; MACs = 200704 * 9 = 1806336. */
    check_cost(c, "3612672", "3612672", "1806336", true);

    fl_node *f2 = PH(K(3), K(3), K(16), K(1));
    fl_node *bad = OP("DepthwiseConv2dNative", x, f2);
    conv_attrs(bad, 1, "SAME");
    infer_fails(bad, "input depth and filter dim 2");
}

static void test_fused_conv2d(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(3)), *f = PH(K(3), K(3), K(3), K(16)), *b = PH(K(16));
    fl_node *c = OP("_FusedConv2D", x, f, b);
    conv_attrs(c, 1, "SAME");
    STRS(c, "fused_ops", "BiasAdd", "Relu");
    attr_i(c, "num_args", 1);
    attr_f(c, "epsilon", 0.0f);
    infer_ok(c);
    check_shape(c, 0, "[1,8,8,16]");
    /* E(out) = 1024; MACs = 1024 * 27 = 27648; FLOPs = 55296 + bias 1024 +
     * relu 1024 = 57344. tfprof has no rule for _FusedConv2D. */
    check_cost(c, "57344", "0", "27648", false);

    /* [FusedBatchNorm, Relu] with num_args 4: 55296 + 2*1024 + 1024. */
    fl_node *s = PH(K(16)), *o = PH(K(16)), *m = PH(K(16)), *v = PH(K(16));
    fl_node *bn = OP("_FusedConv2D", x, f, s, o, m, v);
    conv_attrs(bn, 1, "SAME");
    STRS(bn, "fused_ops", "FusedBatchNorm", "Relu");
    attr_i(bn, "num_args", 4);
    attr_f(bn, "epsilon", 0.001f);
    infer_ok(bn);
    check_cost(bn, "58368", "0", "27648", false);

    /* [BiasAdd, Prelu] (tfjs), num_args 2: Prelu counts 2 per element like the
     * element-wise op (multiply + select): 55296 + 1024 + 2048 = 58368. */
    fl_node *alpha = PH(K(16));
    fl_node *pr = OP("_FusedConv2D", x, f, b, alpha);
    conv_attrs(pr, 1, "SAME");
    STRS(pr, "fused_ops", "BiasAdd", "Prelu");
    attr_i(pr, "num_args", 2);
    infer_ok(pr);
    check_cost(pr, "58368", "0", "27648", false);

    fl_node *bad = OP("_FusedConv2D", x, f, b);
    conv_attrs(bad, 1, "SAME");
    STRS(bad, "fused_ops", "BiasAdd", "Prelu");
    attr_i(bad, "num_args", 2);
    infer_fails(bad, "'num_args'");
}

static void test_fused_depthwise(void **state) {
    (void)state;
    static const char *const ops[] = {"FusedDepthwiseConv2dNative", "_FusedDepthwiseConv2dNative"};
    for (int i = 0; i < 2; i++) {
        fl_sym N = var("N");
        fl_node *x = PH(N, K(56), K(56), K(24)), *f = PH(K(3), K(3), K(24), K(1)), *b = PH(K(24));
        fl_node *c = OP(ops[i], x, f, b);
        conv_attrs(c, 2, "SAME");
        STRS(c, "fused_ops", "BiasAdd", "Relu6");
        attr_i(c, "num_args", 1);
        infer_ok(c);
        check_shape(c, 0, "[N,28,28,24]");
        /* E(out) = 18816*N; MACs = 9 * E = 169344*N; FLOPs = 2*MACs + 2*E =
         * 338688*N + 37632*N = 376320*N. */
        check_cost(c, "376320*N", "0", "169344*N", false);
    }
}

/* ------------------------------------------------------------------------- */
/* Backprops                                                                  */
/* ------------------------------------------------------------------------- */

static void test_conv2d_backprop_input(void **state) {
    (void)state;
    fl_node *sizes = CI(K(1), K(16), K(16), K(8));
    fl_node *f = PH(K(3), K(3), K(8), K(4)), *dy = PH(K(1), K(8), K(8), K(4));
    fl_node *c = OP("Conv2DBackpropInput", sizes, f, dy);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[1,16,16,8]");
    /* MACs = E(dy) * Kh*Kw*Cin = 256 * 72 = 18432. tfprof:
     * 2 * E(out) * E(filter) / (C * 2 * 2) = 2*2048*288/32 = 36864. */
    check_cost(c, "36864", "36864", "18432", true);

    /* tfprof truncates: out [1,5,5,1], filter [3,3,1,1], dy [1,3,3,1], s=2:
     * 2*25*9/(1*4) = 112.5 -> 112; ours 2 * 9 * 9 = 162. */
    fl_node *sizes2 = CI(K(1), K(5), K(5), K(1));
    fl_node *f2 = PH(K(3), K(3), K(1), K(1)), *dy2 = PH(K(1), K(3), K(3), K(1));
    fl_node *c2 = OP("Conv2DBackpropInput", sizes2, f2, dy2);
    conv_attrs(c2, 2, "SAME");
    infer_ok(c2);
    check_shape(c2, 0, "[1,5,5,1]");
    check_cost(c2, "162", "112", "81", true);

    /* NCHW: tfprof raises, counts 0. */
    fl_node *c3 =
        OP("Conv2DBackpropInput", CI(K(1), K(1), K(5), K(5)), f2, PH(K(1), K(1), K(3), K(3)));
    attr_type(c3, "T", FL_DT_FLOAT);
    INTS(c3, "strides", 1, 1, 2, 2);
    attr_s(c3, "padding", "SAME");
    attr_s(c3, "data_format", "NCHW");
    infer_ok(c3);
    check_cost(c3, "162", "0", "81", true);
}

static void test_conv2d_backprop_input_symbolic(void **state) {
    (void)state;
    fl_sym N = var("N");
    fl_node *sizes = CI(N, K(16), K(16), K(8));
    fl_node *f = PH(K(3), K(3), K(8), K(4)), *dy = PH(N, K(8), K(8), K(4));
    fl_node *c = OP("Conv2DBackpropInput", sizes, f, dy);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[N,16,16,8]");
    check_cost(c, "36864*N", "36864*N", "18432*N", true);

    /* input_sizes unknown: N from out_backprop, C from the filter. */
    fl_node *c2 = OP("Conv2DBackpropInput", int_vec_unknown(4), f, dy);
    conv_attrs(c2, 2, "SAME");
    infer_ok(c2);
    check_shape(c2, 0, "[N,?,?,8]");

    /* A 2-element input_sizes gives the spatial dims. */
    fl_node *c3 = OP("Conv2DBackpropInput", CI(K(16), K(16)), f, dy);
    conv_attrs(c3, 2, "SAME");
    infer_ok(c3);
    check_shape(c3, 0, "[N,16,16,8]");

    fl_node *bad = OP("Conv2DBackpropInput", CI(K(1), K(16), K(16)), f, dy);
    conv_attrs(bad, 2, "SAME");
    infer_fails(bad, "input_sizes");
}

static void test_conv2d_backprop_filter(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(16), K(16), K(8));
    fl_node *sizes = CI(K(3), K(3), K(8), K(4));
    fl_node *dy = PH(K(1), K(8), K(8), K(4));
    fl_node *c = OP("Conv2DBackpropFilter", x, sizes, dy);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[3,3,8,4]");
    /* MACs = 256 * 72; tfprof 2 * 2048 * 288 / (8 * 4) = 36864. */
    check_cost(c, "36864", "36864", "18432", true);

    fl_node *c2 = OP("Conv2DBackpropFilter", x, int_vec_unknown(4), dy);
    conv_attrs(c2, 2, "SAME");
    infer_ok(c2);
    check_shape(c2, 0, "[?,?,?,4]");
    check_incomplete(c2);
}

static void test_depthwise_backprops(void **state) {
    (void)state;
    fl_node *sizes = CI(K(1), K(16), K(16), K(8));
    fl_node *f = PH(K(3), K(3), K(8), K(2)), *dy = PH(K(1), K(8), K(8), K(16));
    fl_node *c = OP("DepthwiseConv2dNativeBackpropInput", sizes, f, dy);
    conv_attrs(c, 2, "SAME");
    infer_ok(c);
    check_shape(c, 0, "[1,16,16,8]");
    /* MACs = E(dy) * 9 = 1024 * 9 = 9216; no tfprof rule. */
    check_cost(c, "18432", "0", "9216", false);

    fl_node *x = PH(K(1), K(16), K(16), K(8));
    fl_node *c2 = OP("DepthwiseConv2dNativeBackpropFilter", x, CI(K(3), K(3), K(8), K(2)), dy);
    conv_attrs(c2, 2, "SAME");
    infer_ok(c2);
    check_shape(c2, 0, "[3,3,8,2]");
    check_cost(c2, "18432", "0", "9216", false);
}

static void test_dilation2d(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(10), K(10), K(3)), *f = PH(K(3), K(3), K(3));
    fl_node *c = OP("Dilation2D", x, f);
    attr_type(c, "T", FL_DT_FLOAT);
    INTS(c, "strides", 1, 1, 1, 1);
    INTS(c, "rates", 1, 2, 2, 1);
    attr_s(c, "padding", "VALID");
    infer_ok(c);
    /* Effective 5: 10 - 5 + 1 = 6. E = 108; 2 * 9 * 108 = 1944. */
    check_shape(c, 0, "[1,6,6,3]");
    check_cost(c, "1944", "1944", "0", true);
}

/* ------------------------------------------------------------------------- */
/* Pooling                                                                    */
/* ------------------------------------------------------------------------- */

static void test_max_pool(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(32), K(32), K(16));
    fl_node *p = OP("MaxPool", x);
    pool_attrs(p, 2, 2, "VALID");
    infer_ok(p);
    check_shape(p, 0, "[1,16,16,16]");
    /* prod(ksize) = 4; E(out) = 4096 -> 16384 in both conventions. */
    check_cost(p, "16384", "16384", "0", true);

    /* NCHW: same count, but tfprof gives 0. */
    fl_node *xc = PH(K(1), K(16), K(32), K(32));
    fl_node *pc = OP("MaxPool", xc);
    attr_type(pc, "T", FL_DT_FLOAT);
    INTS(pc, "ksize", 1, 1, 2, 2);
    INTS(pc, "strides", 1, 1, 2, 2);
    attr_s(pc, "padding", "VALID");
    attr_s(pc, "data_format", "NCHW");
    infer_ok(pc);
    check_shape(pc, 0, "[1,16,16,16]");
    check_cost(pc, "16384", "0", "0", true);

    fl_node *bad = OP("MaxPool", x);
    attr_type(bad, "T", FL_DT_FLOAT);
    INTS(bad, "ksize", 1, 2, 2);
    INTS(bad, "strides", 1, 2, 2, 1);
    attr_s(bad, "padding", "VALID");
    infer_fails(bad, "'ksize' must have 4 entries");

    fl_node *bad2 = OP("MaxPool", x);
    attr_type(bad2, "T", FL_DT_FLOAT);
    INTS(bad2, "strides", 1, 2, 2, 1);
    attr_s(bad2, "padding", "VALID");
    infer_fails(bad2, "'ksize' is required");
}

static void test_avg_pool_symbolic(void **state) {
    (void)state;
    fl_sym H = var("H");
    fl_node *x = PH(K(1), H, H, K(8));
    fl_node *p = OP("AvgPool", x);
    pool_attrs(p, 3, 2, "SAME");
    infer_ok(p);
    check_shape(p, 0, "[1,ceil(H/2),ceil(H/2),8]");
    fl_cost c = run_cost(p);
    assert_false(c.incomplete);
    const char *names[] = {"H"};
    int64_t vals[] = {15};
    /* H = 15: 8 * 8 * 8 = 512 outputs, * 9 = 4608. */
    assert_int_equal(subst(c.flops, 1, names, vals), 4608);
    assert_int_equal(subst(c.tfprof_flops, 1, names, vals), 4608);

    /* AvgPool has no EXPLICIT padding. */
    fl_node *bad = OP("AvgPool", x);
    pool_attrs(bad, 3, 2, "EXPLICIT");
    infer_fails(bad, "'padding'");
}

static void test_max_pool_v2_and_3d(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(32), K(32), K(16));
    fl_node *p = OP("MaxPoolV2", x, CI(K(1), K(3), K(3), K(1)), CI(K(1), K(2), K(2), K(1)));
    attr_type(p, "T", FL_DT_FLOAT);
    attr_s(p, "padding", "SAME");
    infer_ok(p);
    check_shape(p, 0, "[1,16,16,16]");
    /* 9 * 4096 = 36864; tfprof does not register MaxPoolV2. */
    check_cost(p, "36864", "0", "0", false);

    fl_node *pu = OP("MaxPoolV2", x, int_vec_unknown(4), CI(K(1), K(2), K(2), K(1)));
    attr_type(pu, "T", FL_DT_FLOAT);
    attr_s(pu, "padding", "SAME");
    infer_ok(pu);
    check_shape(pu, 0, "[?,?,?,?]");
    check_incomplete(pu);

    fl_node *x3 = PH(K(1), K(8), K(8), K(8), K(4));
    fl_node *p3 = OP("MaxPool3D", x3);
    attr_type(p3, "T", FL_DT_FLOAT);
    INTS(p3, "ksize", 1, 2, 2, 2, 1);
    INTS(p3, "strides", 1, 2, 2, 2, 1);
    attr_s(p3, "padding", "VALID");
    infer_ok(p3);
    check_shape(p3, 0, "[1,4,4,4,4]");
    /* 8 * 256 = 2048, no tfprof rule. */
    check_cost(p3, "2048", "0", "0", false);

    fl_node *a3 = OP("AvgPool3D", x3);
    attr_type(a3, "T", FL_DT_FLOAT);
    INTS(a3, "ksize", 1, 1, 2, 2, 2);
    INTS(a3, "strides", 1, 1, 2, 2, 2);
    attr_s(a3, "padding", "VALID");
    attr_s(a3, "data_format", "NCDHW");
    infer_ok(a3);
    /* NCDHW: dims 2..4 are spatial, ksize/strides in that order too. */
    check_shape(a3, 0, "[1,8,4,4,2]");
}

static void test_pool_grads(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(4)), *y = PH(K(1), K(4), K(4), K(4)),
            *g = PH(K(1), K(4), K(4), K(4));
    fl_node *mg = OP("MaxPoolGrad", x, y, g);
    pool_attrs(mg, 2, 2, "VALID");
    infer_ok(mg);
    check_shape(mg, 0, "[1,8,8,4]");
    /* (4 + 1) * E(orig_output) = 5 * 64 = 320. */
    check_cost(mg, "320", "320", "0", true);

    fl_node *ag = OP("AvgPoolGrad", CI(K(1), K(8), K(8), K(4)), g);
    pool_attrs(ag, 2, 2, "VALID");
    infer_ok(ag);
    check_shape(ag, 0, "[1,8,8,4]");
    /* 2 * 4 * 64 = 512. */
    check_cost(ag, "512", "512", "0", true);

    fl_node *agu = OP("AvgPoolGrad", int_vec_unknown(4), g);
    pool_attrs(agu, 2, 2, "VALID");
    infer_ok(agu);
    check_shape(agu, 0, "[1,?,?,4]");
}

/* ------------------------------------------------------------------------- */
/* Matrix products                                                            */
/* ------------------------------------------------------------------------- */

static void test_matmul(void **state) {
    (void)state;
    fl_node *a = PH(K(8), K(16)), *b = PH(K(16), K(32));
    fl_node *m = OP("MatMul", a, b);
    attr_type(m, "T", FL_DT_FLOAT);
    infer_ok(m);
    check_shape(m, 0, "[8,32]");
    /* MACs = 8*32*16 = 4096; tfprof 2*K*E(out) = 8192. */
    check_cost(m, "8192", "8192", "4096", true);

    fl_node *bt = PH(K(32), K(16));
    fl_node *m2 = OP("MatMul", a, bt);
    attr_type(m2, "T", FL_DT_FLOAT);
    attr_b(m2, "transpose_b", true);
    infer_ok(m2);
    check_shape(m2, 0, "[8,32]");

    fl_node *at = PH(K(16), K(8));
    fl_node *m3 = OP("MatMul", at, b);
    attr_type(m3, "T", FL_DT_FLOAT);
    attr_b(m3, "transpose_a", true);
    infer_ok(m3);
    check_shape(m3, 0, "[8,32]");
    check_cost(m3, "8192", "8192", "4096", true);

    fl_node *bad = OP("MatMul", a, bt);
    attr_type(bad, "T", FL_DT_FLOAT);
    infer_fails(bad, "inner dimensions");

    fl_node *bad2 = OP("MatMul", PH(K(2), K(8), K(16)), b);
    attr_type(bad2, "T", FL_DT_FLOAT);
    infer_fails(bad2, "must be 2-D");
}

static void test_matmul_symbolic(void **state) {
    (void)state;
    fl_sym N = var("N");
    fl_node *a = PH(N, K(29)), *b = PH(K(29), K(64));
    fl_node *m = OP("MatMul", a, b);
    attr_type(m, "T", FL_DT_FLOAT);
    infer_ok(m);
    check_shape(m, 0, "[N,64]");
    /* 2 * 29 * 64 * N = 3712*N. */
    check_cost(m, "3712*N", "3712*N", "1856*N", true);

    fl_node *mu = OP("MatMul", PH(U, K(29)), b);
    attr_type(mu, "T", FL_DT_FLOAT);
    infer_ok(mu);
    check_shape(mu, 0, "[?,64]");
    check_incomplete(mu);

    fl_node *mr = OP("MatMul", PH_UNKNOWN(), b);
    attr_type(mr, "T", FL_DT_FLOAT);
    infer_ok(mr);
    check_shape(mr, 0, "[?,64]");
}

static void test_fused_matmul(void **state) {
    (void)state;
    fl_node *a = PH(K(8), K(16)), *b = PH(K(16), K(32)), *bias = PH(K(32));
    fl_node *m = OP("_FusedMatMul", a, b, bias);
    attr_type(m, "T", FL_DT_FLOAT);
    STRS(m, "fused_ops", "BiasAdd", "Relu");
    attr_i(m, "num_args", 1);
    infer_ok(m);
    check_shape(m, 0, "[8,32]");
    /* 8192 + 256 (bias) + 256 (relu) = 8704. */
    check_cost(m, "8704", "0", "4096", false);
}

static void test_batch_matmul(void **state) {
    (void)state;
    fl_node *x = PH(K(2), K(1), K(4), K(5)), *y = PH(K(3), K(5), K(6));
    fl_node *m = OP("BatchMatMulV2", x, y);
    attr_type(m, "T", FL_DT_FLOAT);
    infer_ok(m);
    check_shape(m, 0, "[2,3,4,6]");
    /* E(out) = 144; MACs = 144 * 5 = 720; tfprof 2 * x[-1] * E = 1440. */
    check_cost(m, "1440", "1440", "720", true);

    /* adj_x: tfprof still uses x[-1] (= M = 4): 2 * 4 * 48 = 384; ours
     * MACs = 48 * 5 = 240. */
    fl_node *xa = PH(K(2), K(5), K(4)), *ya = PH(K(2), K(5), K(6));
    fl_node *ma = OP("BatchMatMul", xa, ya);
    attr_type(ma, "T", FL_DT_FLOAT);
    attr_b(ma, "adj_x", true);
    infer_ok(ma);
    check_shape(ma, 0, "[2,4,6]");
    check_cost(ma, "480", "384", "240", true);

    /* V1 requires equal ranks. */
    fl_node *bad = OP("BatchMatMul", x, y);
    attr_type(bad, "T", FL_DT_FLOAT);
    infer_fails(bad, "same rank");

    fl_node *bad2 = OP("BatchMatMulV2", PH(K(2), K(4), K(5)), PH(K(3), K(5), K(6)));
    attr_type(bad2, "T", FL_DT_FLOAT);
    infer_fails(bad2, "broadcast");

    /* V3: output type Tout. */
    fl_node *m3 = OP("BatchMatMulV3", xa, ya);
    attr_type(m3, "Ta", FL_DT_FLOAT);
    attr_type(m3, "Tb", FL_DT_FLOAT);
    attr_type(m3, "Tout", FL_DT_HALF);
    attr_b(m3, "adj_x", true);
    infer_ok(m3);
    check_shape(m3, 0, "[2,4,6]");
    assert_int_equal(m3->outputs[0].dtype, FL_DT_HALF);

    fl_node *mu = OP("BatchMatMulV2", PH_UNKNOWN(), y);
    attr_type(mu, "T", FL_DT_FLOAT);
    infer_ok(mu);
    check_shape(mu, 0, "unknown");
    check_incomplete(mu);
}

static void test_einsum(void **state) {
    (void)state;
    fl_node *a = PH(K(2), K(3), K(4)), *b = PH(K(2), K(4), K(5));
    fl_node *e = OP("Einsum", a, b);
    attr_type(e, "T", FL_DT_FLOAT);
    attr_s(e, "equation", "bij,bjk->bik");
    attr_i(e, "N", 2);
    infer_ok(e);
    check_shape(e, 0, "[2,3,5]");
    /* MACs = b*i*j*k = 2*3*4*5 = 120; no tfprof rule. */
    check_cost(e, "240", "0", "120", false);

    /* Attention-style, upper-case labels and a transposed output. */
    fl_sym T = var("T");
    fl_node *q = PH(K(1), T, K(4), K(8)), *k = PH(K(1), T, K(4), K(8));
    fl_node *att = OP("Einsum", q, k);
    attr_type(att, "T", FL_DT_FLOAT);
    attr_s(att, "equation", "BTNH,BFNH->BNFT");
    attr_i(att, "N", 2);
    infer_ok(att);
    check_shape(att, 0, "[1,4,T,T]");
    /* MACs = B*T*N*H*F = 32*T^2. */
    check_cost(att, "64*T^2", "0", "32*T^2", false);

    fl_node *ell = OP("Einsum", a, b);
    attr_type(ell, "T", FL_DT_FLOAT);
    attr_s(ell, "equation", "...ij,...jk->...ik");
    infer_ok(ell);
    check_shape(ell, 0, "unknown");
    fl_cost c = run_cost(ell);
    assert_false(c.has_rule);
    assert_false(c.incomplete);

    fl_node *one = OP("Einsum", PH(K(4), K(3)));
    attr_type(one, "T", FL_DT_FLOAT);
    attr_s(one, "equation", "ij->ji");
    infer_ok(one);
    check_shape(one, 0, "[3,4]");
    assert_false(run_cost(one).has_rule);

    fl_node *bad = OP("Einsum", a, b);
    attr_type(bad, "T", FL_DT_FLOAT);
    attr_s(bad, "equation", "ij,jk->ik");
    infer_fails(bad, "'equation'");

    fl_node *bad2 = OP("Einsum", a, PH(K(2), K(7), K(5)));
    attr_type(bad2, "T", FL_DT_FLOAT);
    attr_s(bad2, "equation", "bij,bjk->bik");
    infer_fails(bad2, "einsum subscript");

    fl_node *bad3 = OP("Einsum", a, b);
    attr_type(bad3, "T", FL_DT_FLOAT);
    attr_s(bad3, "equation", "bij,bjk->bzk");
    infer_fails(bad3, "appears in no input");
}

/* ------------------------------------------------------------------------- */
/* Batch norm, bias                                                           */
/* ------------------------------------------------------------------------- */

static void test_fused_batch_norm(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(8), K(8), K(16));
    fl_node *s = PH(K(16)), *o = PH(K(16)), *m = PH(K(16)), *v = PH(K(16));
    fl_node *bn = OP("FusedBatchNormV3", x, s, o, m, v);
    attr_type(bn, "T", FL_DT_HALF);
    attr_type(bn, "U", FL_DT_FLOAT);
    attr_b(bn, "is_training", false);
    infer_ok(bn);
    assert_int_equal(bn->n_outputs, 6);
    check_shape(bn, 0, "[1,8,8,16]");
    assert_int_equal(bn->outputs[0].dtype, FL_DT_HALF);
    for (int p = 1; p < 5; p++) {
        check_shape(bn, p, "[16]");
        assert_int_equal(bn->outputs[p].dtype, FL_DT_FLOAT);
    }
    check_shape(bn, 5, "[]"); /* the kernels' scalar reserve space */
    assert_int_equal(bn->outputs[5].dtype, FL_DT_FLOAT);
    /* Inference: 2 * E(x) = 2048; no tfprof rule. */
    check_cost(bn, "2048", "0", "0", false);

    /* Training (the default): 4 * 1024 + 11 * 16 = 4272. */
    fl_node *bt = OP("FusedBatchNorm", x, s, o, PH(K(0)), PH(K(0)));
    attr_type(bt, "T", FL_DT_FLOAT);
    infer_ok(bt);
    assert_int_equal(bt->n_outputs, 5);
    check_shape(bt, 4, "[16]");
    check_cost(bt, "4272", "0", "0", false);

    /* NCHW, channel from scale when x's is unknown. */
    fl_node *xc = PH(K(2), U, K(4), K(4));
    fl_node *b2 = OP("FusedBatchNormV2", xc, s, o, m, v);
    attr_type(b2, "T", FL_DT_FLOAT);
    attr_s(b2, "data_format", "NCHW");
    attr_b(b2, "is_training", false);
    infer_ok(b2);
    check_shape(b2, 0, "[2,16,4,4]");

    fl_node *bad = OP("FusedBatchNormV3", x, PH(K(8)), o, m, v);
    attr_type(bad, "T", FL_DT_FLOAT);
    attr_b(bad, "is_training", false);
    infer_fails(bad, "channel dim");

    fl_node *ex = OP("_FusedBatchNormEx", x, s, o, m, v, x);
    attr_type(ex, "T", FL_DT_FLOAT);
    attr_b(ex, "is_training", false);
    attr_i(ex, "num_side_inputs", 1);
    attr_s(ex, "activation_mode", "Relu");
    infer_ok(ex);
    check_shape(ex, 0, "[1,8,8,16]");
    /* 2048 + side input 1024 + relu 1024. */
    check_cost(ex, "4096", "0", "0", false);
}

static void test_bias_add(void **state) {
    (void)state;
    fl_node *x = PH(K(2), K(3), K(4), K(5));
    fl_node *b = OP("BiasAdd", x, PH(K(5)));
    attr_type(b, "T", FL_DT_FLOAT);
    infer_ok(b);
    check_shape(b, 0, "[2,3,4,5]");
    check_cost(b, "120", "120", "0", true);

    fl_node *bc = OP("BiasAdd", x, PH(K(3)));
    attr_type(bc, "T", FL_DT_FLOAT);
    attr_s(bc, "data_format", "NCHW");
    infer_ok(bc);
    check_shape(bc, 0, "[2,3,4,5]");

    fl_node *bad = OP("BiasAdd", x, PH(K(3)));
    attr_type(bad, "T", FL_DT_FLOAT);
    infer_fails(bad, "'bias'");

    /* Channel filled in from the bias. */
    fl_sym N = var("N");
    fl_node *bu = OP("BiasAdd", PH(N, U), PH(K(7)));
    attr_type(bu, "T", FL_DT_FLOAT);
    infer_ok(bu);
    check_shape(bu, 0, "[N,7]");
    check_cost(bu, "7*N", "7*N", "0", true);

    fl_node *v1 = OP("BiasAddV1", x, PH(K(5)));
    attr_type(v1, "T", FL_DT_FLOAT);
    infer_ok(v1);
    check_cost(v1, "120", "0", "0", false);

    fl_node *g = OP("BiasAddGrad", x);
    attr_type(g, "T", FL_DT_FLOAT);
    infer_ok(g);
    check_shape(g, 0, "[5]");
    /* E(in) - E(out) = 120 - 5. */
    check_cost(g, "115", "115", "0", true);

    fl_node *bad2 = OP("BiasAdd", PH(K(5)), PH(K(5)));
    attr_type(bad2, "T", FL_DT_FLOAT);
    infer_fails(bad2, "rank at least 2");
}

/* ------------------------------------------------------------------------- */
/* Resize, crop                                                               */
/* ------------------------------------------------------------------------- */

static void test_resize(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(32), K(32), K(3));
    fl_node *r = OP("ResizeBilinear", x, CI(K(64), K(48)));
    attr_type(r, "T", FL_DT_UINT8);
    infer_ok(r);
    check_shape(r, 0, "[1,64,48,3]");
    assert_int_equal(r->outputs[0].dtype, FL_DT_FLOAT);
    /* 9 * 9216 = 82944. */
    check_cost(r, "82944", "0", "0", false);

    fl_node *nn = OP("ResizeNearestNeighbor", x, CI(K(64), K(64)));
    attr_type(nn, "T", FL_DT_HALF);
    infer_ok(nn);
    assert_int_equal(nn->outputs[0].dtype, FL_DT_HALF);
    check_cost(nn, "0", "0", "0", false);

    fl_node *bc = OP("ResizeBicubic", x, CI(K(64), K(64)));
    attr_type(bc, "T", FL_DT_FLOAT);
    infer_ok(bc);
    /* 35 * 12288 = 430080. */
    check_cost(bc, "430080", "0", "0", false);

    /* Symbolic size (e.g. 2*H computed from a Shape). */
    fl_sym H = var("H"), H2;
    assert_int_equal(fl__sym_mul(G->syms, H, K(2), &H2), FL_OK);
    fl_node *rs = OP("ResizeBilinear", PH(K(1), H, H, K(3)), CI(H2, H2));
    attr_type(rs, "T", FL_DT_FLOAT);
    infer_ok(rs);
    check_shape(rs, 0, "[1,2*H,2*H,3]");

    fl_node *ru = OP("ResizeBilinear", x, int_vec_unknown(2));
    attr_type(ru, "T", FL_DT_FLOAT);
    infer_ok(ru);
    check_shape(ru, 0, "[1,?,?,3]");
    check_incomplete(ru);

    fl_node *bad = OP("ResizeBilinear", x, CI(K(64), K(64), K(3)));
    attr_type(bad, "T", FL_DT_FLOAT);
    infer_fails(bad, "'size'");

    fl_node *bad2 = OP("ResizeBilinear", x, CI(K(0), K(64)));
    attr_type(bad2, "T", FL_DT_FLOAT);
    infer_fails(bad2, "positive");
}

static void test_crop_and_resize(void **state) {
    (void)state;
    fl_node *img = PH(K(1), K(100), K(100), K(3)), *boxes = PH(K(5), K(4));
    fl_node *ind = ph_dims(FL_DT_INT32, 1, (fl_sym[]){K(5)});
    fl_node *c = OP("CropAndResize", img, boxes, ind, CI(K(7), K(7)));
    attr_type(c, "T", FL_DT_FLOAT);
    infer_ok(c);
    check_shape(c, 0, "[5,7,7,3]");
    /* 9 * 735 = 6615. */
    check_cost(c, "6615", "0", "0", false);

    fl_node *cn = OP("CropAndResize", img, boxes, ind, CI(K(7), K(7)));
    attr_s(cn, "method", "nearest");
    infer_ok(cn);
    check_cost(cn, "0", "0", "0", false);

    fl_node *bad = OP("CropAndResize", img, boxes, ind, CI(K(7), K(7)));
    attr_s(bad, "method", "cubic");
    infer_fails(bad, "'method'");
}

/* ------------------------------------------------------------------------- */
/* LRN, softmax, L2Loss, depth/space                                          */
/* ------------------------------------------------------------------------- */

static void test_lrn_softmax_l2(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(4), K(4), K(8));
    fl_node *l = OP("LRN", x);
    attr_type(l, "T", FL_DT_FLOAT);
    attr_i(l, "depth_radius", 2);
    infer_ok(l);
    check_shape(l, 0, "[1,4,4,8]");
    /* (4*2 + 5) * 128 = 1664. */
    check_cost(l, "1664", "0", "0", false);

    fl_node *s = OP("Softmax", PH(K(2), K(10)));
    attr_type(s, "T", FL_DT_FLOAT);
    infer_ok(s);
    check_shape(s, 0, "[2,10]");
    check_cost(s, "100", "100", "0", true);

    fl_node *ls = OP("LogSoftmax", PH(K(2), K(10)));
    attr_type(ls, "T", FL_DT_FLOAT);
    infer_ok(ls);
    check_cost(ls, "100", "0", "0", false);

    fl_node *bad = OP("Softmax", PH_SCALAR());
    attr_type(bad, "T", FL_DT_FLOAT);
    infer_fails(bad, "rank at least 1");

    fl_node *l2 = OP("L2Loss", PH(K(10), K(10)));
    attr_type(l2, "T", FL_DT_FLOAT);
    infer_ok(l2);
    check_shape(l2, 0, "[]");
    /* Ours 2 * 100; tfprof 3 * 100 - 1. */
    check_cost(l2, "200", "299", "0", true);
}

static void test_depth_space(void **state) {
    (void)state;
    fl_node *x = PH(K(1), K(4), K(4), K(8));
    fl_node *d = OP("DepthToSpace", x);
    attr_type(d, "T", FL_DT_FLOAT);
    attr_i(d, "block_size", 2);
    infer_ok(d);
    check_shape(d, 0, "[1,8,8,2]");
    check_cost(d, "0", "0", "0", false);

    fl_sym H = var("H");
    fl_node *s = OP("SpaceToDepth", PH(K(1), H, K(4), K(8)));
    attr_type(s, "T", FL_DT_FLOAT);
    attr_i(s, "block_size", 2);
    infer_ok(s);
    check_shape(s, 0, "[1,floor(H/2),2,32]");

    fl_node *sc = OP("SpaceToDepth", PH(K(1), K(8), K(4), K(4)));
    attr_type(sc, "T", FL_DT_FLOAT);
    attr_i(sc, "block_size", 2);
    attr_s(sc, "data_format", "NCHW");
    infer_ok(sc);
    check_shape(sc, 0, "[1,32,2,2]");

    fl_node *bad = OP("DepthToSpace", PH(K(1), K(4), K(4), K(6)));
    attr_type(bad, "T", FL_DT_FLOAT);
    attr_i(bad, "block_size", 2);
    infer_fails(bad, "block_size");

    fl_node *bad2 = OP("DepthToSpace", x);
    attr_type(bad2, "T", FL_DT_FLOAT);
    attr_i(bad2, "block_size", 1);
    infer_fails(bad2, "'block_size' must be at least 2");

    fl_node *bad3 = OP("DepthToSpace", x);
    attr_type(bad3, "T", FL_DT_FLOAT);
    infer_fails(bad3, "block_size");
}

/* ------------------------------------------------------------------------- */
/* Corpus-derived: the conv/pool/dense chain of human-antispoof.pb            */
/* ------------------------------------------------------------------------- */

/* human-antispoof (tfjs): conv2d_input [-1,128,128,3]; three _FusedConv2D
 * [BiasAdd] 3x3 VALID (3->64, 64->32, 32->16), each followed by MaxPool 2x2/2
 * VALID (and a Relu, which keeps the shape and is left out here), flatten to
 * 3136, then _FusedMatMul [BiasAdd, Relu] 3136x128 and _FusedMatMul [BiasAdd]
 * 128x1. Per image:
 *   conv1 E 1016064, MACs 27433728, FLOPs 55883520; pool1 E 254016, 1016064
 *   conv2 E 119072, MACs 68585472, FLOPs 137290016; pool2 E 28800, 115200
 *   conv3 E 12544, MACs 3612672, FLOPs 7237888;     pool3 E 3136, 12544
 *   dense1 MACs 401408, FLOPs 803072; dense2 MACs 128, FLOPs 257
 * Totals: FLOPs 202358561*N, MACs 100033408*N, tfprof (pools only: fused ops
 * are not registered) 1143808*N. */
static void test_corpus_antispoof_chain(void **state) {
    (void)state;
    fl_sym N = var("N");
    static const int64_t chans[4] = {3, 64, 32, 16};
    static const char *const shapes[6] = {"[N,126,126,64]", "[N,63,63,64]", "[N,61,61,32]",
                                          "[N,30,30,32]",   "[N,28,28,16]", "[N,14,14,16]"};
    fl_node *x = PH(N, K(128), K(128), K(3));
    fl_sym flops = K(0), tf = K(0), macs = K(0);
    fl_node *nodes[8];
    int nn_count = 0;
    for (int i = 0; i < 3; i++) {
        fl_node *f = PH(K(3), K(3), K(chans[i]), K(chans[i + 1])), *b = PH(K(chans[i + 1]));
        fl_node *c = OP("_FusedConv2D", x, f, b);
        conv_attrs(c, 1, "VALID");
        STRS(c, "fused_ops", "BiasAdd");
        attr_i(c, "num_args", 1);
        infer_ok(c);
        check_shape(c, 0, shapes[2 * i]);
        fl_node *p = OP("MaxPool", c);
        pool_attrs(p, 2, 2, "VALID");
        infer_ok(p);
        check_shape(p, 0, shapes[2 * i + 1]);
        nodes[nn_count++] = c;
        nodes[nn_count++] = p;
        x = p;
    }
    fl_node *flat = PH(N, K(3136));
    fl_node *d1 = OP("_FusedMatMul", flat, PH(K(3136), K(128)), PH(K(128)));
    attr_type(d1, "T", FL_DT_FLOAT);
    STRS(d1, "fused_ops", "BiasAdd", "Relu");
    attr_i(d1, "num_args", 1);
    infer_ok(d1);
    check_shape(d1, 0, "[N,128]");
    fl_node *d2 = OP("_FusedMatMul", d1, PH(K(128), K(1)), PH(K(1)));
    attr_type(d2, "T", FL_DT_FLOAT);
    STRS(d2, "fused_ops", "BiasAdd");
    attr_i(d2, "num_args", 1);
    infer_ok(d2);
    check_shape(d2, 0, "[N,1]");
    nodes[nn_count++] = d1;
    nodes[nn_count++] = d2;
    for (int i = 0; i < nn_count; i++) {
        fl_cost c = run_cost(nodes[i]);
        assert_false(c.incomplete);
        assert_int_equal(fl__sym_add(G->syms, flops, c.flops, &flops), FL_OK);
        assert_int_equal(fl__sym_add(G->syms, tf, c.tfprof_flops, &tf), FL_OK);
        assert_int_equal(fl__sym_add(G->syms, macs, c.macs, &macs), FL_OK);
    }
    assert_string_equal(sym_str(flops), "202358561*N");
    assert_string_equal(sym_str(macs), "100033408*N");
    assert_string_equal(sym_str(tf), "1143808*N");
}

/* ------------------------------------------------------------------------- */
/* Robustness: every nn op on odd inputs must not crash                       */
/* ------------------------------------------------------------------------- */

static void robust_one(const struct fl_op_desc *d, int variant) {
    fl_node *in[8];
    int n_in = d->min_inputs;
    if (d->max_inputs == -1 || d->max_inputs > n_in) {
        n_in++;
    }
    if (n_in > 8) {
        n_in = 8;
    }
    for (int i = 0; i < n_in; i++) {
        switch (variant) {
        case 0:
            in[i] = PH_UNKNOWN();
            break;
        case 1:
            in[i] = PH_SCALAR();
            break;
        case 2:
            in[i] = PH(U, U, U, U);
            break;
        case 3:
            in[i] = PH(K(0), K(0), K(0), K(0));
            break;
        default:
            in[i] = int_vec_unknown(4);
            break;
        }
    }
    fl__diag_init(&diag, &arena);
    fl_node *n = mk_op(d->name, n_in, in);
    if (variant >= 2) {
        attr_type(n, "T", FL_DT_FLOAT);
        INTS(n, "strides", 1, 1, 1, 1);
        INTS(n, "ksize", 1, 1, 1, 1);
        INTS(n, "rates", 1, 1, 1, 1);
        attr_s(n, "padding", "SAME");
        attr_s(n, "equation", "ab,bc->ac");
        attr_i(n, "block_size", 2);
        STRS(n, "fused_ops", "BiasAdd");
        attr_i(n, "num_args", 1);
    }
    fl_status st = d->infer(&ctx, n);
    if (st == FL_OK) {
        fl_cost c;
        memset(&c, 0, sizeof c);
        (void)d->cost(&ctx, n, &c);
    } else {
        assert_non_null(diag.msg);
    }
}

static void test_robustness(void **state) {
    (void)state;
    static const struct {
        const char *family;
        const struct fl_op_desc *desc;
    } all[] = {
#define FL_OP(e, name, family, ...) {#family, &fl__desc_##e},
#include "ops/ops.def"
#undef FL_OP
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(all[i].family, "nn") != 0) {
            continue;
        }
        for (int v = 0; v < 5; v++) {
            robust_one(all[i].desc, v);
        }
    }
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_descriptors),
        T(test_conv2d_known),
        T(test_conv2d_symbolic),
        T(test_conv2d_valid_dilated),
        T(test_conv2d_explicit_padding),
        T(test_conv2d_nchw_and_groups),
        T(test_conv2d_unknown),
        T(test_conv2d_bad_attrs),
        T(test_conv2d_bad_padding),
        T(test_conv2d_bad_format),
        T(test_conv2d_bad_rank_and_stride),
        T(test_conv2d_batch_stride),
        T(test_conv2d_window_too_big),
        T(test_conv3d),
        T(test_depthwise),
        T(test_fused_conv2d),
        T(test_fused_depthwise),
        T(test_conv2d_backprop_input),
        T(test_conv2d_backprop_input_symbolic),
        T(test_conv2d_backprop_filter),
        T(test_depthwise_backprops),
        T(test_dilation2d),
        T(test_max_pool),
        T(test_avg_pool_symbolic),
        T(test_max_pool_v2_and_3d),
        T(test_pool_grads),
        T(test_matmul),
        T(test_matmul_symbolic),
        T(test_fused_matmul),
        T(test_batch_matmul),
        T(test_einsum),
        T(test_fused_batch_norm),
        T(test_bias_add),
        T(test_resize),
        T(test_crop_and_resize),
        T(test_lrn_softmax_l2),
        T(test_depth_space),
        T(test_corpus_antispoof_chain),
        T(test_robustness),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
