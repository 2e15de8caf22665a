/*
 * test_ops_bn_grad.c - the batch-norm gradient ops (FusedBatchNormGrad,
 * V2, V3, _FusedBatchNormGradEx) through the importer: output shapes and
 * dtypes as TensorFlow's shape functions, exact FLOPs (nn.c's rule:
 * 11 * E(x) + 10 * C, plus E(x) for the fused Relu gradient), bad input
 * refused with the node and what is wrong.
 */
#include "testgraph.h"
#include "testutil.h"

#include <string.h>

enum { DT_FLOAT = 1, DT_HALF = 19 };

/* A training-mode FusedBatchNormV3 over x [8,4,4,16] (NHWC, T = half, U =
 * float) and the gradient node `grad_op` reading its reserve spaces. */
static tg_graph *bn_training_graph(const char *grad_op, int n_side) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", DT_HALF, 4, (int64_t[]){8, 4, 4, 16});
    tg_placeholder(g, "dy", DT_HALF, 4, (int64_t[]){8, 4, 4, 16});
    tg_const_f32(g, "scale", 1, (int64_t[]){16}, NULL, 0);
    tg_const_f32(g, "offset", 1, (int64_t[]){16}, NULL, 0);
    tg_const_f32(g, "empty", 1, (int64_t[]){0}, NULL, 0);
    tg_node *bn =
        tg_add(g, "bn", "FusedBatchNormV3", "x", "scale", "offset", "empty", "empty", NULL);
    tg_attr_type(bn, "T", DT_HALF);
    tg_attr_type(bn, "U", DT_FLOAT);
    tg_attr_bool(bn, "is_training", 1);
    tg_attr_str(bn, "data_format", "NHWC");
    tg_attr_float(bn, "epsilon", 0.001f);
    tg_node *gr;
    if (strcmp(grad_op, "_FusedBatchNormGradEx") == 0) {
        gr = tg_add(g, "grad", grad_op, "dy", "x", "scale", "bn:3", "bn:4", "bn:5", "offset", "bn",
                    NULL);
        tg_attr_str(gr, "activation_mode", "Relu");
        tg_attr_int(gr, "num_side_inputs", n_side);
    } else if (strcmp(grad_op, "FusedBatchNormGradV3") == 0) {
        gr = tg_add(g, "grad", grad_op, "dy", "x", "scale", "bn:3", "bn:4", "bn:5", NULL);
    } else {
        gr = tg_add(g, "grad", grad_op, "dy", "x", "scale", "bn:1", "bn:2", NULL);
    }
    tg_attr_type(gr, "T", DT_HALF);
    if (strcmp(grad_op, "FusedBatchNormGrad") != 0) {
        tg_attr_type(gr, "U", DT_FLOAT);
    }
    tg_attr_bool(gr, "is_training", 1);
    tg_attr_str(gr, "data_format", "NHWC");
    tg_attr_float(gr, "epsilon", 0.001f);
    return g;
}

static void expect_grad(const char *op, int n_side, int64_t flops, const char *u_dtype) {
    tg_graph *g = bn_training_graph(op, n_side);
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "grad");
    assert_string_equal(n->op, op);
    assert_true(n->has_rule);
    assert_false(n->incomplete);
    assert_int_equal(n->n_outputs, strcmp(op, "_FusedBatchNormGradEx") == 0 ? 6 : 5);
    assert_string_equal(n->outputs[0].shape, "[8,4,4,16]");
    assert_string_equal(n->outputs[0].dtype, "half");
    for (int p = 1; p < 3; p++) {
        assert_string_equal(n->outputs[p].shape, "[16]");
        assert_string_equal(n->outputs[p].dtype, u_dtype);
    }
    for (int p = 3; p < 5; p++) {
        assert_string_equal(n->outputs[p].shape, "[0]");
    }
    if (n->n_outputs == 6) {
        assert_string_equal(n->outputs[5].shape, n_side ? "[8,4,4,16]" : "[0]");
    }
    assert_int_equal(n->flops.value, flops);
    assert_int_equal(n->tfprof_flops.value, 0);
    assert_int_equal(n->macs.value, 0);
    fl_report_free(r);
    tg_free(g);
}

/* E(x) = 8*4*4*16 = 2048, C = 16. */
static void test_grad_shapes_and_flops(void **state) {
    (void)state;
    expect_grad("FusedBatchNormGradV3", 0, 11 * 2048 + 10 * 16, "float");
    expect_grad("FusedBatchNormGradV2", 0, 11 * 2048 + 10 * 16, "float");
    expect_grad("FusedBatchNormGrad", 0, 11 * 2048 + 10 * 16, "half");
    expect_grad("_FusedBatchNormGradEx", 0, 12 * 2048 + 10 * 16, "float");
    expect_grad("_FusedBatchNormGradEx", 1, 12 * 2048 + 10 * 16, "float");
}

/* NCHW: the channel is dim 1. */
static void test_grad_nchw(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", DT_FLOAT, 4, (int64_t[]){2, 3, 5, 7});
    tg_placeholder(g, "dy", DT_FLOAT, 4, (int64_t[]){-1, 3, 5, 7});
    tg_const_f32(g, "scale", 1, (int64_t[]){3}, NULL, 0);
    tg_node *gr =
        tg_add(g, "grad", "FusedBatchNormGradV2", "dy", "x", "scale", "scale", "scale", NULL);
    tg_attr_type(gr, "T", DT_FLOAT);
    tg_attr_type(gr, "U", DT_FLOAT);
    tg_attr_str(gr, "data_format", "NCHW");
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "grad");
    /* The unknown batch of dy merges with x's 2. */
    assert_string_equal(n->outputs[0].shape, "[2,3,5,7]");
    assert_string_equal(n->outputs[1].shape, "[3]");
    assert_int_equal(n->flops.value, 11 * 2 * 3 * 5 * 7 + 10 * 3);
    fl_report_free(r);
    tg_free(g);
}

static void test_grad_errors(void **state) {
    (void)state;
    /* Channel mismatch between x and scale. */
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", DT_FLOAT, 4, (int64_t[]){2, 5, 5, 8});
    tg_placeholder(g, "dy", DT_FLOAT, 4, (int64_t[]){2, 5, 5, 8});
    tg_const_f32(g, "scale", 1, (int64_t[]){6}, NULL, 0);
    tg_node *gr =
        tg_add(g, "grad", "FusedBatchNormGradV2", "dy", "x", "scale", "scale", "scale", NULL);
    tg_attr_type(gr, "T", DT_FLOAT);
    tg_attr_type(gr, "U", DT_FLOAT);
    tg_expect_error(g, NULL, FL_EINVAL, "grad");
    tg_expect_error(g, NULL, FL_EINVAL, "channel dim of 'x'");
    tg_free(g);

    /* y_backprop and x disagree. */
    g = tg_new();
    tg_placeholder(g, "x", DT_FLOAT, 4, (int64_t[]){2, 5, 5, 8});
    tg_placeholder(g, "dy", DT_FLOAT, 4, (int64_t[]){2, 5, 4, 8});
    tg_const_f32(g, "scale", 1, (int64_t[]){8}, NULL, 0);
    gr = tg_add(g, "grad", "FusedBatchNormGrad", "dy", "x", "scale", "scale", "scale", NULL);
    tg_attr_type(gr, "T", DT_FLOAT);
    tg_expect_error(g, NULL, FL_EINVAL, "dims of 'y_backprop' and 'x'");
    tg_free(g);

    /* V1 has no 3-D formats; the Ex form takes at most one side input. */
    g = tg_new();
    tg_placeholder(g, "x", DT_FLOAT, 5, (int64_t[]){2, 5, 5, 5, 8});
    tg_const_f32(g, "scale", 1, (int64_t[]){8}, NULL, 0);
    gr = tg_add(g, "grad", "FusedBatchNormGrad", "x", "x", "scale", "scale", "scale", NULL);
    tg_attr_type(gr, "T", DT_FLOAT);
    tg_attr_str(gr, "data_format", "NDHWC");
    tg_expect_error(g, NULL, FL_EINVAL, "attr 'data_format' has unsupported value 'NDHWC'");
    tg_free(g);

    g = bn_training_graph("_FusedBatchNormGradEx", 2);
    tg_expect_error(g, NULL, FL_EINVAL, "attr 'num_side_inputs' must be 0 or 1, got 2");
    tg_free(g);

    /* Wrong input count for V3. */
    g = tg_new();
    tg_placeholder(g, "x", DT_FLOAT, 4, (int64_t[]){2, 5, 5, 8});
    tg_const_f32(g, "scale", 1, (int64_t[]){8}, NULL, 0);
    gr = tg_add(g, "grad", "FusedBatchNormGradV3", "x", "x", "scale", "scale", "scale", NULL);
    tg_attr_type(gr, "T", DT_FLOAT);
    tg_expect_error(g, NULL, FL_EINVAL, "grad");
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_shapes_and_flops),
        cmocka_unit_test(test_grad_nchw),
        cmocka_unit_test(test_grad_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
