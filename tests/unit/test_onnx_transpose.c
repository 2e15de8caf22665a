/*
 * test_onnx_transpose.c - ONNX Runtime's transpose optimizer
 * (src/passes/transpose/): small ONNX models run through the transpose pass
 * alone (verifier on); the rewritten graph exactly (names, op types,
 * inputs), the attrs that change (axes, axis, perm), new constants' shapes
 * and values, and the ledger. Each expected graph follows from the rules in
 * the headers of optimize.c (the cost check: non-1 dims r of each value;
 * -r for a Transpose by the same perm all of whose readers have a handler,
 * 0 for a constant, r else; the outputs' largest r added unless one leads
 * to a Transpose), handlers.c and edit.c, derived in the comments.
 *
 * `test_onnx_transpose --write DIR` writes the models (NAME.transpose.onnx)
 * whose graphs tests/integration/ort_transpose.sh compares with ONNX
 * Runtime's own.
 */
#include "onnx_passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Onnx__NodeProto *transpose(ob_model *m, const char *name, const char *in, const char *out,
                                  int n, const int64_t *perm) {
    Onnx__NodeProto *t = ob_node(m, "Transpose", name, in, out);
    ob_attr_ints(m, t, "perm", (size_t)n, perm);
    return t;
}

static const int64_t NHWC[4] = {0, 2, 3, 1}, NCHW[4] = {0, 3, 1, 2};

/* The int list attr `name` of node `node` after the run. */
static void expect_ints(const pt_run *r, const char *node, const char *name, int n,
                        const int64_t *want) {
    const fl_attr *a = fl__node_attr(pt_need(r, node), name);
    assert_non_null(a);
    assert_int_equal(a->kind, FL_ATTR_LIST);
    assert_int_equal(a->n, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(a->v.list.i[i], want[i]);
    }
}

/* x[1,3,4,4] -> NHWC Transpose -> Relu -> NCHW Transpose -> Conv -> y.
 * Relu's output leads to a Transpose (t2 reads it), and so does its input.
 * Relu: t1's cost -3 ([1,4,4,3]: three dims not 1; its only reader Relu
 * has a handler), the output leads to t2: -3, pushed. Relu reads x, a new
 * Transpose (NHWC) follows it; t1 goes. t2 then reads that Transpose by
 * the inverse perm: both cancel, Conv reads Relu. */
static ob_model *wrapper_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, NULL);
    ob_init_f(m, "w", 4, (int64_t[]){2, 3, 1, 1}, true);
    transpose(m, "t1", "x", "a", 4, NHWC);
    ob_node(m, "Relu", "relu", "a", "b");
    transpose(m, "t2", "b", "c", 4, NCHW);
    ob_node(m, "Conv", "conv", "c,w", "y");
    ob_output(m, "y");
    return m;
}

static void test_wrapper_cancels(void **state) {
    (void)state;
    pt_run *r = oxp_run(wrapper_model(), "transpose");
    oxp_expect_graph(r, "relu=Relu(x); conv=Conv(relu,w)");
    assert_int_equal(pt_fired(r, "transpose_push", "relu"), 1);
    assert_int_equal(pt_fired(r, "transpose_cancel", "t2"), 1);
    pt_free(r);
}

/* convnext's block norm: x[1,4,2,3] -> t (NHWC) [1,2,3,4] -> m =
 * ReduceMean(axes [-1]) -> d = Sub(t, m) -> Pow(d, 2) -> MatMul(W[4,5]).
 * No value leads to a Transpose (t's input only).
 * ReduceMean: t's cost -3 (readers ReduceMean and Sub have handlers), the
 * output [1,2,3,1] adds 2: -1, pushed: axes [-1] = 3 becomes NHWC[3] = 1,
 * the mean reads x ([1,1,2,3]) and a Transpose tm (NHWC) follows it.
 * Sub: t -3, tm -2 ([1,2,3,1]), output +3: -2, pushed: both inputs cancel
 * (Sub(x, m)), t and tm go, a Transpose (NHWC) follows the Sub.
 * Pow: that Transpose -3, the exponent is a scalar (not an input a
 * Transpose is pushed from), output +3: 0, not pushed. The mean and the
 * difference are now over dim 1 of NCHW, and a layer-norm pattern
 * (ReduceMean and Sub over the last axis) is gone. */
static ob_model *norm_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 2, 3}, NULL);
    float two = 2;
    ob_init_raw(m, "two", OB_FLOAT, 0, NULL, &two, sizeof two);
    ob_init_f(m, "w", 2, (int64_t[]){4, 5}, true);
    transpose(m, "t", "x", "a", 4, NHWC);
    Onnx__NodeProto *rm = ob_node(m, "ReduceMean", "mean", "a", "m");
    ob_attr_ints(m, rm, "axes", 1, (int64_t[]){-1});
    ob_node(m, "Sub", "sub", "a,m", "d");
    ob_node(m, "Pow", "pow", "d,two", "p");
    ob_node(m, "MatMul", "mm", "p,w", "y");
    ob_output(m, "y");
    return m;
}

static void test_norm_mean_moves(void **state) {
    (void)state;
    pt_run *r = oxp_run(norm_model(), "transpose");
    oxp_expect_graph(r, "mean=ReduceMean(x); sub=Sub(x,mean); Transpose_1=Transpose(sub); "
                        "pow=Pow(Transpose_1,two); mm=MatMul(pow,w)");
    expect_ints(r, "mean", "axes", 1, (int64_t[]){1});
    expect_ints(r, "Transpose_1", "perm", 4, NHWC);
    assert_int_equal(pt_fired(r, "transpose_push", "mean"), 1);
    assert_int_equal(pt_fired(r, "transpose_push", "sub"), 1);
    assert_int_equal(pt_fired(r, "transpose_push", "pow"), 0);
    const fl_shape *s = &pt_need(r, "mean")->outputs[0].shape;
    assert_int_equal(s->rank, 4);
    assert_int_equal(s->dims[1].k, 1);
    assert_int_equal(s->dims[2].k, 2);
    pt_free(r);
}

/* x[1,2,2,2] -> t (NHWC) -> Add(b[2] = {10, 20}) -> t2 (NCHW) -> Conv.
 * Add's output leads to t2, so its inputs do. Add: t -3 ([1,2,2,2]: three
 * dims not 1), b, a constant: 0; the output leads: -3, pushed. b (rank 1) gets three leading 1s
 * ([1,1,1,2]), then NCHW: [1,2,1,1], values in the same order {10, 20}
 * (only one dim is not 1). t cancels, t2 cancels the Transpose after Add. */
static ob_model *bias_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 2, 2, 2}, NULL);
    float b[2] = {10, 20};
    ob_init_raw(m, "b", OB_FLOAT, 1, (int64_t[]){2}, b, sizeof b);
    ob_init_f(m, "w", 4, (int64_t[]){3, 2, 1, 1}, true);
    transpose(m, "t", "x", "a", 4, NHWC);
    ob_node(m, "Add", "add", "a,b", "c");
    transpose(m, "t2", "c", "d", 4, NCHW);
    ob_node(m, "Conv", "conv", "d,w", "y");
    ob_output(m, "y");
    return m;
}

static void test_bias_constant(void **state) {
    (void)state;
    pt_run *r = oxp_run(bias_model(), "transpose");
    const fl_node *add = pt_need(r, "add");
    const fl_node *k = add->inputs[1].node;
    assert_int_equal(k->kind, FL_OP_CONST);
    char want[256];
    snprintf(want, sizeof want, "add=Add(x,%s); conv=Conv(add,w)", k->name);
    oxp_expect_graph(r, want);
    const fl_value *v = k->outputs[0].value;
    assert_non_null(v);
    assert_int_equal(v->rank, 4);
    assert_int_equal(v->dims[0], 1);
    assert_int_equal(v->dims[1], 2);
    assert_int_equal(v->dims[2], 1);
    assert_int_equal(v->dims[3], 1);
    double e0, e1;
    assert_true(fl__value_f64(v, 0, &e0) && fl__value_f64(v, 1, &e1));
    assert_true(e0 == 10 && e1 == 20);
    assert_null(fl__graph_find(r->g, "b")); /* its only reader moved */
    pt_free(r);
}

/* A [2,3] constant transposed: x[1,2,3] -> t (0,2,1) [1,3,2] -> Mul(k
 * [3,2] = {1..6}) -> t2 (0,2,1) -> MatMul. Mul: t -2, k 0, output leads:
 * pushed. k -> [1,3,2] -> perm (0,2,1): [1,2,3] with element (0,i,j) =
 * k(j,i): {1, 3, 5, 2, 4, 6}. */
static void test_constant_permuted(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 2, 3}, NULL);
    float k[6] = {1, 2, 3, 4, 5, 6};
    ob_init_raw(m, "k", OB_FLOAT, 2, (int64_t[]){3, 2}, k, sizeof k);
    ob_init_f(m, "w", 2, (int64_t[]){3, 4}, true);
    transpose(m, "t", "x", "a", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "Mul", "mul", "a,k", "c");
    transpose(m, "t2", "c", "d", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "MatMul", "mm", "d,w", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, "transpose");
    const fl_node *kn = pt_need(r, "mul")->inputs[1].node;
    const fl_value *v = kn->outputs[0].value;
    assert_non_null(v);
    assert_int_equal(v->rank, 3);
    assert_int_equal(v->dims[1], 2);
    assert_int_equal(v->dims[2], 3);
    const double want[6] = {1, 3, 5, 2, 4, 6};
    for (int i = 0; i < 6; i++) {
        double e;
        assert_true(fl__value_f64(v, i, &e));
        assert_true(e == want[i]);
    }
    char g[256];
    snprintf(g, sizeof g, "mul=Mul(x,%s); mm=MatMul(mul,w)", kn->name);
    oxp_expect_graph(r, g);
    pt_free(r);
}

/* Concat and Softmax take the axis through the perm: x1, x2 [1,2,3] ->
 * (0,2,1) each -> Concat(axis 2) -> Softmax(axis -1) -> (0,2,1) ->
 * MatMul. Concat: -2 -2, its output leads (Softmax's does): pushed, axis
 * 2 becomes perm[2] = 1; Concat(x1, x2) [1,4,3] and a Transpose after it.
 * Softmax: that Transpose -2, output leads: pushed, axis -1 = 2 becomes
 * 1. The last Transpose cancels. */
static ob_model *axis_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x1", OB_FLOAT, 3, (int64_t[]){1, 2, 3}, NULL);
    ob_input(m, "x2", OB_FLOAT, 3, (int64_t[]){1, 2, 3}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){3, 5}, true);
    const int64_t p[3] = {0, 2, 1};
    transpose(m, "t1", "x1", "a1", 3, p);
    transpose(m, "t2", "x2", "a2", 3, p);
    Onnx__NodeProto *c = ob_node(m, "Concat", "cat", "a1,a2", "c");
    ob_attr_i(m, c, "axis", 2);
    Onnx__NodeProto *s = ob_node(m, "Softmax", "sm", "c", "s");
    ob_attr_i(m, s, "axis", -1);
    transpose(m, "t3", "s", "u", 3, p);
    ob_node(m, "MatMul", "mm", "u,w", "y");
    ob_output(m, "y");
    return m;
}

static void test_axis_ops(void **state) {
    (void)state;
    pt_run *r = oxp_run(axis_model(), "transpose");
    oxp_expect_graph(r, "cat=Concat(x1,x2); sm=Softmax(cat); mm=MatMul(sm,w)");
    assert_int_equal(fl__attr_int(pt_need(r, "cat"), "axis", -9), 1);
    assert_int_equal(fl__attr_int(pt_need(r, "sm"), "axis", -9), 1);
    assert_int_equal(pt_fired(r, "transpose_cancel", "t3"), 1);
    pt_free(r);
}

/* Two Transposes merge: (1,0,2) then (0,2,1) is one by perm[i] =
 * P[Q[i]] = (1,2,0): x[2,3,4] -> [3,4,2]. A Reshape of a Transpose's
 * output that only moves a 1 is a Transpose too: x[1,3,4] -> (0,2,1)
 * [1,4,3] -> Reshape [4,1,3]: output dims 4, 1, 3 from input dims 1, 0, 2
 * (Q = (1,0,2)); merged with P = (0,2,1): (P[1], P[0], P[2]) = (2,0,1). */
static void test_merge_and_reshape(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){2, 5}, true);
    transpose(m, "t1", "x", "a", 3, (int64_t[]){1, 0, 2});
    transpose(m, "t2", "a", "b", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "MatMul", "mm", "b,w", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, "transpose");
    oxp_expect_graph(r, "t2=Transpose(x); mm=MatMul(t2,w)");
    expect_ints(r, "t2", "perm", 3, (int64_t[]){1, 2, 0});
    assert_int_equal(pt_fired(r, "transpose_merge", "t2"), 1);
    pt_free(r);

    m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 3, 4}, NULL);
    ob_init_i64(m, "shape", 1, (int64_t[]){3}, (int64_t[]){4, 1, 3});
    ob_init_f(m, "w", 2, (int64_t[]){3, 5}, true);
    transpose(m, "t", "x", "a", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "Reshape", "rs", "a,shape", "b");
    ob_node(m, "MatMul", "mm", "b,w", "y");
    ob_output(m, "y");
    r = oxp_run(m, "transpose");
    oxp_expect_graph(r, "Transpose=Transpose(x); mm=MatMul(Transpose,w)");
    expect_ints(r, "Transpose", "perm", 3, (int64_t[]){2, 0, 1});
    assert_int_equal(pt_fired(r, "transpose_reshape", "rs"), 1);
    pt_free(r);
}

/* x[1,3,4,5] -> NHWC [1,4,5,3] -> Slice(starts [1], ends [3], axes [1])
 * -> NCHW -> Conv. The Slice's output leads to a Transpose: t -3, pushed;
 * axes [1] become NHWC[1] = 2 (a new constant), the Slice reads x
 * ([1,3,2,5]) and the NCHW Transpose cancels the one after it. */
static ob_model *slice_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 5}, NULL);
    ob_init_i64(m, "st", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_i64(m, "en", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_f(m, "w", 4, (int64_t[]){2, 3, 1, 1}, true);
    transpose(m, "t", "x", "a", 4, NHWC);
    ob_node(m, "Slice", "sl", "a,st,en,ax", "b");
    transpose(m, "t2", "b", "c", 4, NCHW);
    ob_node(m, "Conv", "conv", "c,w", "y");
    ob_output(m, "y");
    return m;
}

/* x[1,1,4,3] -> (0,3,1,2) [1,3,1,4] -> Squeeze(axes [2]) [1,3,4] ->
 * (0,2,1) -> MatMul. Squeeze: t -2, output leads: pushed; axes [2] become
 * P[2] = 1: Squeeze(x) [1,4,3]; the output's perm is P without dim 1:
 * (0,2,1), which the last Transpose cancels. */
static ob_model *squeeze_model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 1, 4, 3}, NULL);
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_init_f(m, "w", 2, (int64_t[]){3, 5}, true);
    transpose(m, "t", "x", "a", 4, NCHW);
    ob_node(m, "Squeeze", "sq", "a,ax", "b");
    transpose(m, "t2", "b", "c", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "MatMul", "mm", "c,w", "y");
    ob_output(m, "y");
    return m;
}

static void test_shape_ops(void **state) {
    (void)state;
    pt_run *r = oxp_run(slice_model(), "transpose");
    oxp_expect_graph(r, "sl=Slice(x,st,en,sl/axes); conv=Conv(sl,w)");
    const fl_value *v = pt_need(r, "sl/axes")->outputs[0].value;
    assert_true(v && v->n == 1 && fl__value_int(v, 0).k == 2);
    assert_int_equal(pt_fired(r, "transpose_cancel", "t2"), 1);
    pt_free(r);
    r = oxp_run(squeeze_model(), "transpose");
    oxp_expect_graph(r, "sq=Squeeze(x,sq/axes); mm=MatMul(sq,w)");
    v = pt_need(r, "sq/axes")->outputs[0].value;
    assert_true(v && v->n == 1 && fl__value_int(v, 0).k == 1);
    pt_free(r);
}

/* Where the cost check says no, nothing changes: x[1,3,4,5] -> NHWC ->
 * Relu -> MatMul: Relu's cost -3, output +3 = 0. And a model whose push
 * goes through what the pass does not model (a Pad with an axes input,
 * opset 18, whose output leads to a Transpose) is left whole: the pass
 * fails and the driver rolls it back. */
static void test_left_alone(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 5}, NULL);
    ob_init_f(m, "w", 2, (int64_t[]){3, 2}, true);
    transpose(m, "t", "x", "a", 4, NHWC);
    ob_node(m, "Relu", "relu", "a", "b");
    ob_node(m, "MatMul", "mm", "b,w", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, "transpose");
    oxp_expect_graph(r, "t=Transpose(x); relu=Relu(t); mm=MatMul(relu,w)");
    assert_int_equal(pt_fired(r, "transpose_push", "relu"), 0);
    pt_free(r);

    m = ob_new(18);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 3, 4, 5}, NULL);
    ob_init_i64(m, "pads", 1, (int64_t[]){4}, (int64_t[]){0, 1, 0, 1});
    ob_init_i64(m, "ax", 1, (int64_t[]){2}, (int64_t[]){1, 2});
    ob_init_f(m, "w", 4, (int64_t[]){2, 3, 1, 1}, true);
    transpose(m, "t", "x", "a", 4, NHWC);
    ob_node(m, "Pad", "pad", "a,pads,,ax", "b");
    transpose(m, "t2", "b", "c", 4, NCHW);
    ob_node(m, "Conv", "conv", "c,w", "y");
    ob_output(m, "y");
    r = oxp_run(m, "transpose");
    oxp_expect_graph(r, "t=Transpose(x); pad=Pad(t,pads,onnx::absent,ax); t2=Transpose(pad); "
                        "conv=Conv(t2,w)");
    assert_true(r->d.n_warnings >= 1);
    assert_non_null(strstr(r->d.warnings[0], "pass 'transpose' failed and was skipped"));
    pt_free(r);
}

/* Not an ONNX graph with a Transpose: the pass has no record. With Q/DQ
 * nodes neither (their look-through rules are not modelled). */
static void test_applies(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y");
    pt_run *r = oxp_run(m, "transpose");
    assert_int_equal(r->led.n_passes, 0);
    pt_free(r);
    r = oxp_run(wrapper_model(), "transpose");
    assert_int_equal(r->led.n_passes, 1); /* first iteration only */
    assert_string_equal(r->led.passes[0].pass, "transpose");
    pt_free(r);
}

static int write_models(const char *dir) {
    oxp_named ms[] = {
        {"tp_wrapper.transpose", wrapper_model()}, {"tp_norm.transpose", norm_model()},
        {"tp_bias.transpose", bias_model()},       {"tp_axis.transpose", axis_model()},
        {"tp_slice.transpose", slice_model()},     {"tp_squeeze.transpose", squeeze_model()},
    };
    return oxp_write_models(dir, ms, sizeof ms / sizeof ms[0]);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        return write_models(argv[2]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapper_cancels), cmocka_unit_test(test_norm_mean_moves),
        cmocka_unit_test(test_bias_constant),   cmocka_unit_test(test_constant_permuted),
        cmocka_unit_test(test_axis_ops),        cmocka_unit_test(test_merge_and_reshape),
        cmocka_unit_test(test_shape_ops),       cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
