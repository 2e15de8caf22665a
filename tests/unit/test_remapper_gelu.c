/*
 * test_remapper_gelu.c - the remapper's row 17, approximate (tanh) Gelu
 * (src/passes/remap/onednn_matmul.c, rewrite_matmul_gelu_approx): oneDNN mode,
 * _FusedMatMul [BiasAdd] (from the first remapper run) followed by
 * 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) in the form
 * ArithmeticOptimizer leaves on CPU (x^3 = Mul(Mul(c, x), Square(x)))
 * -> one _FusedMatMul [BiasAdd, GeluApproximate]. A positive test (the exact
 * fused node, the FLOPs of the chain kept) and the negatives.
 */
#include "passtest.h"

#include <stdio.h>

static tg_node *opt(tg_graph *g, const char *name, const char *op, const char *a, const char *b,
                    int t) {
    return b ? pt_op2(g, name, op, a, b, t) : pt_op1(g, name, op, a, t);
}

static const char *const ALL_CONSTS =
    "a=Placeholder(); w=Const(); b=Const(); c_emp=Const(); c_sqrt=Const(); c_one=Const(); "
    "c_half=Const(); ";

typedef struct gelu_opts {
    int dtype;       /* 1 float, 2 double */
    float c_sqrt;    /* 0.797884 */
    bool extra_user; /* a second reader of the Tanh */
} gelu_opts;

/* A constant scalar of dtype dt holding v. */
static void cst(tg_graph *g, const char *name, int dt, double v) {
    if (dt == 2) {
        tg_const_raw(g, name, 2, 0, NULL, &v, sizeof v);
    } else {
        float f = (float)v;
        tg_const_f32_vals(g, name, 0, NULL, &f, 1);
    }
}

/* a [4,8] x w [8,16] + b [16], then the approximate Gelu on y. */
static tg_graph *gelu_graph(const gelu_opts *o) {
    int dt = o->dtype;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", dt, 2, (const int64_t[]){4, 8});
    if (dt == 2) {
        double wv[128], bv[16];
        for (int i = 0; i < 128; i++) {
            wv[i] = 0.01 * i;
        }
        for (int i = 0; i < 16; i++) {
            bv[i] = 0.1 * i;
        }
        tg_const_raw(g, "w", 2, 2, (const int64_t[]){8, 16}, wv, sizeof wv);
        tg_const_raw(g, "b", 2, 1, (const int64_t[]){16}, bv, sizeof bv);
    } else {
        tg_const_f32(g, "w", 2, (const int64_t[]){8, 16}, NULL, 0);
        tg_const_f32(g, "b", 1, (const int64_t[]){16}, NULL, 0);
    }
    cst(g, "c_emp", dt, 0.044715);
    cst(g, "c_sqrt", dt, o->c_sqrt);
    cst(g, "c_one", dt, 1.0);
    cst(g, "c_half", dt, 0.5);
    opt(g, "mm", "MatMul", "a", "w", dt);
    opt(g, "y", "BiasAdd", "mm", "b", dt);
    opt(g, "g/square", "Square", "y", NULL, dt);
    opt(g, "g/mul_c", "Mul", "c_emp", "y", dt);
    opt(g, "g/cube", "Mul", "g/mul_c", "g/square", dt);
    opt(g, "g/add", "AddV2", "y", "g/cube", dt);
    opt(g, "g/mul_sqrt", "Mul", "g/add", "c_sqrt", dt);
    opt(g, "g/tanh", "Tanh", "g/mul_sqrt", NULL, dt);
    opt(g, "g/plus_one", "AddV2", "g/tanh", "c_one", dt);
    opt(g, "g/half", "Mul", "g/plus_one", "c_half", dt);
    opt(g, "g/out", "Mul", "g/half", "y", dt);
    opt(g, "out", "Identity", "g/out", NULL, dt);
    if (o->extra_user) {
        opt(g, "other", "Identity", "g/tanh", NULL, dt);
    }
    return g;
}

/* The remapper alone, two iterations (the first fuses MatMul+BiasAdd, the
 * second the Gelu), CPU. */
static pt_run *remap(tg_graph *g, fl_remapper_mode mode) {
    return pt_pipeline(
        g, &(pt_opts){
               .passes = "remap", .iterations = 2, .device = FL_DEVICE_CPU, .remapper_mode = mode});
}

static void test_gelu_approximate(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    pt_run *p = remap(g, FL_REMAPPER_ONEDNN);
    char want[1024];
    snprintf(want, sizeof want, "%sout=Identity(g/out); g/out=_FusedMatMul(a,w,b)", ALL_CONSTS);
    assert_string_equal(pt_dump(p), want);
    assert_true(pt_fired(p, "matmul_bias_gelu_approximate", "g/out"));
    const fl_node *f = pt_need(p, "g/out");
    const fl_attr *fo = fl__node_attr(f, "fused_ops");
    assert_non_null(fo);
    assert_int_equal(fo->n, 2);
    assert_string_equal(fo->v.list.s[0].p, "BiasAdd");
    assert_string_equal(fo->v.list.s[1].p, "GeluApproximate");
    const fl_attr *na = fl__node_attr(f, "num_args");
    assert_non_null(na);
    assert_int_equal(na->v.i, 1);
    const fl_attr *ep = fl__node_attr(f, "epsilon");
    assert_non_null(ep);
    assert_true(ep->v.f == 0.0f);
    const fl_attr *t = fl__node_attr(f, "T");
    assert_non_null(t);
    assert_int_equal(t->v.type, FL_DT_FLOAT);
    const fl_attr *ta = fl__node_attr(f, "transpose_a");
    const fl_attr *tb = fl__node_attr(f, "transpose_b");
    assert_non_null(ta);
    assert_non_null(tb);
    assert_false(ta->v.b);
    assert_false(tb->v.b);
    assert_int_equal(f->outputs[0].shape.dims[0].k, 4);
    assert_int_equal(f->outputs[0].shape.dims[1].k, 16);
    /* MatMul 2*4*8*16 = 1024, BiasAdd 64, the Gelu's 9 ops on 64 elements:
     * the same before and after (nn.c's GeluApproximate: 9 per element) */
    assert_int_equal(p->before.flops.k, 1024 + 64 + 9 * 64);
    assert_int_equal(p->after.flops.k, p->before.flops.k);
    pt_free(p);
    tg_free(g);
}

/* Without the fusion the remapper's first run still makes the
 * _FusedMatMul [BiasAdd] named y; the Gelu ops stay. */
static void expect_gelu_kept(pt_run *p) {
    assert_false(pt_fired(p, "matmul_bias_gelu_approximate", NULL));
    assert_string_equal(pt_need(p, "g/tanh")->op, "Tanh");
    assert_string_equal(pt_need(p, "g/out")->op, "Mul");
}

static void test_gelu_approximate_kept_when_constant_wrong(void **state) {
    (void)state;
    gelu_opts go = {1, 0.9f, false};
    tg_graph *g = gelu_graph(&go);
    pt_run *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(pt_need(p, "y")->op, "_FusedMatMul");
    pt_free(p);
    tg_free(g);
    go.c_sqrt = 0.8f; /* within 1e-2: fused */
    g = gelu_graph(&go);
    p = remap(g, FL_REMAPPER_ONEDNN);
    assert_true(pt_fired(p, "matmul_bias_gelu_approximate", "g/out"));
    pt_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_when_extra_consumer(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, true};
    tg_graph *g = gelu_graph(&go);
    pt_run *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(pt_need(p, "y")->op, "_FusedMatMul");
    pt_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_in_stock_mode(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    pt_run *p = remap(g, FL_REMAPPER_STANDARD);
    expect_gelu_kept(p);
    assert_string_equal(pt_need(p, "y")->op, "_FusedMatMul");
    pt_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_when_double(void **state) {
    (void)state;
    /* double: no CPU MatMul fusion, so no _FusedMatMul to extend */
    gelu_opts go = {2, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    pt_run *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(pt_need(p, "y")->op, "BiasAdd");
    assert_string_equal(pt_need(p, "mm")->op, "MatMul");
    pt_free(p);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gelu_approximate),
        cmocka_unit_test(test_gelu_approximate_kept_when_constant_wrong),
        cmocka_unit_test(test_gelu_approximate_kept_when_extra_consumer),
        cmocka_unit_test(test_gelu_approximate_kept_in_stock_mode),
        cmocka_unit_test(test_gelu_approximate_kept_when_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
