/*
 * test_remapper_bn_grad.c - the remapper's GPU batch-norm fusions of training
 * graphs, which TensorFlow makes only with TF_USE_CUDNN_BATCHNORM_SPATIAL_
 * PERSISTENT=1 (pass option persistent_bn, the CLI's
 * --cudnn-persistent-batchnorm): row 6 in training mode (_FusedBatchNormEx)
 * and row 7 (ReluGrad + FusedBatchNormGradV3 -> _FusedBatchNormGradEx), with
 * and without a side input. Positive tests assert the exact rewritten graph
 * and attrs; a negative test for every blocking condition.
 */
#include "passtest.h"

#include <string.h>

enum { F16 = 19 };

typedef struct bn_opts {
    int t;                 /* T of every node (default half) */
    int64_t channels;      /* C (default 8; -1: unknown) */
    const char *format;    /* default NHWC */
    const char *grad_op;   /* default FusedBatchNormGradV3 */
    bool side;             /* forward BN + side -> AddV2 -> Relu, and a side gradient */
    bool grad_inference;   /* is_training false on the gradient */
    int grad_u;            /* U of the gradient (default float) */
    bool ctrl_on_relugrad; /* ^dy on the ReluGrad */
    bool ctrl_on_grad;     /* ^dy on the gradient */
    bool extra_relugrad;   /* one more reader of the ReluGrad */
    bool no_side_grad;     /* side variant without the side gradient reader */
    bool bn_second_reader; /* another reader of the forward BN's output 0 */
    bool other_reserve;    /* the gradient's reserve_space_3 from another BN */
} bn_opts;

static void bn_attrs(tg_node *n, const bn_opts *o, int u, bool training) {
    tg_attr_type(n, "T", o->t);
    tg_attr_type(n, "U", u);
    tg_attr_bool(n, "is_training", training);
    tg_attr_str(n, "data_format", o->format);
    tg_attr_float(n, "epsilon", 0.001f);
}

/* x [2,4,4,C] (NHWC) -> FusedBatchNormV3 (training) [-> AddV2(bn, side)] ->
 * Relu; dy -> ReluGrad(dy, relu) -> FusedBatchNormGradV3(rg, x, scale,
 * bn:3, bn:4, bn:5); with a side input, side_grad = Neg(rg). */
static tg_graph *bn_graph(bn_opts o) {
    if (!o.t) {
        o.t = F16;
    }
    if (!o.channels) {
        o.channels = 8;
    }
    if (!o.format) {
        o.format = "NHWC";
    }
    if (!o.grad_op) {
        o.grad_op = "FusedBatchNormGradV3";
    }
    if (!o.grad_u) {
        o.grad_u = F32;
    }
    bool nchw = strcmp(o.format, "NCHW") == 0;
    int64_t c = o.channels;
    const int64_t shape[4] = {2, nchw ? c : 4, 4, nchw ? 4 : c};
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", o.t, 4, shape);
    tg_placeholder(g, "dy", o.t, 4, shape);
    int64_t cc = c < 0 ? 8 : c;
    tg_const_f32(g, "scale", 1, &cc, NULL, 0);
    tg_const_f32(g, "offset", 1, &cc, NULL, 0);
    tg_const_f32(g, "empty", 1, (const int64_t[]){0}, NULL, 0);
    bn_attrs(tg_add(g, "bn", "FusedBatchNormV3", "x", "scale", "offset", "empty", "empty", NULL),
             &o, F32, true);
    const char *pre = "bn";
    if (o.side) {
        tg_placeholder(g, "side", o.t, 4, shape);
        pt_op2(g, "add", "AddV2", "bn", "side", o.t);
        pre = "add";
    }
    pt_op1(g, "relu", "Relu", pre, o.t);
    if (o.bn_second_reader) {
        pt_op1(g, "bn_reader", "Neg", "bn", o.t);
    }
    tg_node *rg =
        tg_add(g, "rg", "ReluGrad", "dy", "relu", o.ctrl_on_relugrad ? "^dy" : NULL, NULL);
    tg_attr_type(rg, "T", o.t);
    const char *rs3 = "bn:5";
    if (o.other_reserve) {
        bn_attrs(
            tg_add(g, "bn2", "FusedBatchNormV3", "x", "scale", "offset", "empty", "empty", NULL),
            &o, F32, true);
        pt_op1(g, "bn2_out", "Neg", "bn2", o.t);
        rs3 = "bn2:5";
    }
    tg_node *gr;
    if (strcmp(o.grad_op, "FusedBatchNormGradV3") == 0) {
        gr = tg_add(g, "grad", o.grad_op, "rg", "x", "scale", "bn:3", "bn:4", rs3,
                    o.ctrl_on_grad ? "^dy" : NULL, NULL);
    } else {
        gr = tg_add(g, "grad", o.grad_op, "rg", "x", "scale", "bn:3", "bn:4",
                    o.ctrl_on_grad ? "^dy" : NULL, NULL);
    }
    bn_attrs(gr, &o, o.grad_u, !o.grad_inference);
    if (o.side && !o.no_side_grad) {
        pt_op1(g, "side_grad", "Neg", "rg", o.t);
    }
    if (o.extra_relugrad) {
        pt_op1(g, "rg_reader", "Neg", "rg", o.t);
    }
    return g;
}

/* Loads o's graph, runs the remapper once (GPU unless cpu, persistent mode
 * unless off) and returns the run. */
static void remap(pt_run *h, const bn_opts *o, bool cpu, bool persistent) {
    pt_load(h, bn_graph(*o));
    h->popt.persistent_bn = persistent;
    pt_remap(h, cpu ? FL_DEVICE_CPU : FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
}

static void test_grad_ex_fires(void **state) {
    (void)state;
    pt_run h;
    bn_opts o = {0};
    remap(&h, &o, false, true);
    /* The forward: training-mode _FusedBatchNormEx, the Relu its Identity. */
    pt_expect_node(&h, "bn", "_FusedBatchNormEx", "x", "scale", "offset", "empty", "empty", NULL);
    assert_string_equal(pt_attr_s(&h, "bn", "activation_mode"), "Relu");
    assert_int_equal(pt_attr_i(&h, "bn", "num_side_inputs"), 0);
    assert_true(pt_attr_bool(&h, "bn", "is_training"));
    pt_expect_node(&h, "relu", "Identity", "bn", NULL);
    /* The gradient: inputs [dy, x, scale, rs1, rs2, rs3, offset, relu]. */
    pt_expect_node(&h, "grad", "_FusedBatchNormGradEx", "dy", "x", "scale", "bn:3", "bn:4", "bn:5",
                   "offset", "relu", NULL);
    assert_int_equal(pt_attr_t(&h, "grad", "T"), F16);
    assert_int_equal(pt_attr_t(&h, "grad", "U"), F32);
    assert_true(pt_attr_bool(&h, "grad", "is_training"));
    assert_string_equal(pt_attr_s(&h, "grad", "data_format"), "NHWC");
    assert_true(pt_attr_f(&h, "grad", "epsilon") == 0.001f);
    assert_string_equal(pt_attr_s(&h, "grad", "activation_mode"), "Relu");
    assert_int_equal(pt_attr_i(&h, "grad", "num_side_inputs"), 0);
    pt_absent(&h, "rg");
    assert_true(pt_fired(&h, "fused_batch_norm_grad_ex", "grad"));
    assert_true(pt_fired(&h, "fused_batch_norm_ex", "relu"));
    /* The fused gradient counts the Relu gradient it absorbed:
     * 12 * E + 10 * C = 12 * 256 + 80. */
    pt_expect_cost(&h, "grad", 12 * 256 + 80, 0, 0);
    pt_fini(&h);
}

static void test_grad_ex_side_input(void **state) {
    (void)state;
    pt_run h;
    bn_opts o = {.side = true};
    remap(&h, &o, false, true);
    pt_expect_node(&h, "bn", "_FusedBatchNormEx", "x", "scale", "offset", "empty", "empty", "side",
                   NULL);
    assert_int_equal(pt_attr_i(&h, "bn", "num_side_inputs"), 1);
    pt_absent(&h, "add");
    pt_expect_node(&h, "relu", "Identity", "bn", NULL);
    pt_expect_node(&h, "grad", "_FusedBatchNormGradEx", "dy", "x", "scale", "bn:3", "bn:4", "bn:5",
                   "offset", "relu", NULL);
    assert_int_equal(pt_attr_i(&h, "grad", "num_side_inputs"), 1);
    /* The ReluGrad becomes the side input's gradient, output 5. */
    pt_expect_node(&h, "rg", "Identity", "grad:5", NULL);
    assert_int_equal(pt_attr_t(&h, "rg", "T"), F16);
    pt_expect_node(&h, "side_grad", "Neg", "rg", NULL);
    pt_expect_shape(&h, "rg", F16, 4, 2, 4, 4, 8);
    pt_fini(&h);
}

/* Off by default, as TensorFlow: neither training fusion fires. */
static void test_needs_persistent_mode(void **state) {
    (void)state;
    bn_opts o = {0};
    pt_run h;
    remap(&h, &o, false, false);
    pt_expect_node(&h, "bn", "FusedBatchNormV3", "x", "scale", "offset", "empty", "empty", NULL);
    pt_expect_node(&h, "grad", "FusedBatchNormGradV3", "rg", "x", "scale", "bn:3", "bn:4", "bn:5",
                   NULL);
    pt_expect_node(&h, "rg", "ReluGrad", "dy", "relu", NULL);
    pt_fini(&h);
}

/* One blocking condition per case: the gradient stays as it was. When the
 * forward's own conditions still hold it fuses (`fwd_fuses`). */
static void expect_no_grad_fusion(bn_opts o, bool cpu, bool fwd_fuses) {
    pt_run h;
    remap(&h, &o, cpu, true);
    fl_node *g = pt_need(&h, "grad");
    assert_string_equal(g->op, o.grad_op ? o.grad_op : "FusedBatchNormGradV3");
    assert_string_equal(pt_need(&h, "rg")->op, "ReluGrad");
    assert_false(pt_fired(&h, "fused_batch_norm_grad_ex", NULL));
    assert_string_equal(pt_need(&h, "bn")->op,
                        fwd_fuses ? "_FusedBatchNormEx" : "FusedBatchNormV3");
    pt_fini(&h);
}

static void test_grad_ex_negatives(void **state) {
    (void)state;
    expect_no_grad_fusion((bn_opts){0}, true, false);         /* CPU */
    expect_no_grad_fusion((bn_opts){.t = F32}, false, false); /* T float */
    expect_no_grad_fusion((bn_opts){.format = "NCHW"}, false, false);
    expect_no_grad_fusion((bn_opts){.channels = 6}, false, false); /* C % 4 */
    expect_no_grad_fusion((bn_opts){.channels = -1}, false, false);
    /* Conditions of the gradient alone; the forward still fuses. */
    expect_no_grad_fusion((bn_opts){.grad_inference = true}, false, true);
    expect_no_grad_fusion((bn_opts){.grad_u = F16}, false, true);
    expect_no_grad_fusion((bn_opts){.ctrl_on_grad = true}, false, true);
    expect_no_grad_fusion((bn_opts){.grad_op = "FusedBatchNormGradV2"}, false, true);
    expect_no_grad_fusion((bn_opts){.ctrl_on_relugrad = true}, false, true);
    /* Without a side input the ReluGrad must have one reader; with one, two. */
    expect_no_grad_fusion((bn_opts){.extra_relugrad = true}, false, true);
    expect_no_grad_fusion((bn_opts){.side = true, .no_side_grad = true}, false, true);
    expect_no_grad_fusion((bn_opts){.side = true, .extra_relugrad = true}, false, true);
    /* With a side input, reserve_space_3 must come from the matched BN. */
    expect_no_grad_fusion((bn_opts){.side = true, .other_reserve = true}, false, true);
    /* The forward does not match (its BN has a second reader). */
    expect_no_grad_fusion((bn_opts){.bn_second_reader = true}, false, false);
}

/* A preserved ReluGrad (a graph output) is not fused away. */
static void test_preserved_relugrad(void **state) {
    (void)state;
    tg_graph *g = bn_graph((bn_opts){0});
    const char *outs[] = {"grad", "rg"};
    pt_opts o = {.passes = "remap",
                 .iterations = 1,
                 .outputs = outs,
                 .n_outputs = 2,
                 .device = FL_DEVICE_GPU,
                 .persistent_bn = true};
    pt_run *r = pt_pipeline(g, &o);
    assert_string_equal(pt_need(r, "rg")->op, "ReluGrad");
    assert_string_equal(pt_need(r, "grad")->op, "FusedBatchNormGradV3");
    assert_string_equal(pt_need(r, "bn")->op, "_FusedBatchNormEx");
    pt_free(r);
    /* Not preserved: the same pipeline fuses it. */
    o.n_outputs = 1;
    r = pt_pipeline(g, &o);
    assert_int_equal(r->d.n_warnings, 0); /* not a rolled-back failure */
    assert_string_equal(pt_need(r, "grad")->op, "_FusedBatchNormGradEx");
    pt_absent(r, "rg");
    pt_free(r);
    tg_free(g);
}

/* Through the public API: fl_options.cudnn_persistent_batchnorm reaches the
 * remapper (off: the gradient stays). */
static void test_public_option(void **state) {
    (void)state;
    tg_graph *g = bn_graph((bn_opts){0});
    for (int on = 0; on < 2; on++) {
        fl_options o;
        fl_options_init(&o);
        o.passes = "default";
        o.device = 1;
        o.cudnn_persistent_batchnorm = on;
        o.per_node = true;
        fl_report *r = tg_analyze(g, &o);
        const char *op = NULL;
        for (size_t i = 0; i < r->n_nodes_after; i++) {
            if (strcmp(r->nodes_after[i].name, "grad") == 0) {
                op = r->nodes_after[i].op;
            }
        }
        assert_non_null(op);
        assert_string_equal(op, on ? "_FusedBatchNormGradEx" : "FusedBatchNormGradV3");
        fl_report_free(r);
    }
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_ex_fires),         cmocka_unit_test(test_grad_ex_side_input),
        cmocka_unit_test(test_needs_persistent_mode), cmocka_unit_test(test_grad_ex_negatives),
        cmocka_unit_test(test_preserved_relugrad),    cmocka_unit_test(test_public_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
