/*
 * test_ops_ew.c - unit tests for the element-wise op family (src/ops/ew.c):
 * output shapes (known, symbolic, unknown, broadcasting, Select's rules,
 * reductions), bad attrs and inputs, FLOP counts in the complete and tfprof
 * conventions (worked out by hand in the comments), and evaluated values:
 * integers with TensorFlow's wrapping and division rules, symbolic shape
 * vectors, exact float32 rounding, Cast in every direction.
 *
 * Also the ops added for the constant-folding rules: Xdivy, Xlogy, Xlog1py,
 * MulNoNan, AccumulateNV2 (this family) and RandomShuffle, Case,
 * AssignAddVariableOp, AssignSubVariableOp (core family), with TensorFlow's
 * rules at zero, NaN and infinity: Xdivy(0, y) = 0 even for y = 0 or NaN;
 * MulNoNan(x, 0) = 0 even for x = inf or NaN; Xlogy(0, y) = 0.
 *
 * Graphs are built directly with the IR API (irbuild.h): placeholders get
 * their output shape set by hand, constants carry a value, and each op under
 * test runs through its descriptor's infer, then eval when
 * every input has a value (as the shape engine does), then cost.
 */
#include "irbuild.h"
#include "testgraph.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_sym N; /* the symbol "N" */

static int setup(void **state) {
    (void)state;
    if (ib_setup() != 0) {
        return -1;
    }
    return fl__sym_var(G->syms, "N", &N) == FL_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ib_teardown();
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Running and checking                                                       */
/* ------------------------------------------------------------------------- */

static bool all_valued(const fl_node *n) {
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl_node_in(n, i)->value) {
            return false;
        }
    }
    return true;
}

/* infer, then eval when every input has a value (as the shape engine does). */
static void run(fl_node *n) {
    fl__diag_init(&diag, &arena);
    for (int k = 0; k < n->n_outputs; k++) {
        n->outputs[k].value = NULL;
    }
    fl_status st = n->desc->infer(&ctx, n);
    if (st != FL_OK) {
        fail_msg("infer of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
    }
    if (n->desc->eval && all_valued(n)) {
        st = n->desc->eval(&ctx, n);
        if (st != FL_OK) {
            fail_msg("eval of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
        }
    }
    assert_int_equal(diag.status, FL_OK);
}

/* "[1,112,112,32]", "[]" for a scalar, "unknown" for unknown rank; "?" for
 * an unknown dim. */
static const char *shape_str(const fl_node *n) {
    const fl_shape *s = &n->outputs[0].shape;
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

static void check_shape(const fl_node *n, const char *expect) {
    assert_string_equal(shape_str(n), expect);
}

static void check_dtype(const fl_node *n, int dt) {
    assert_int_equal(n->outputs[0].dtype, dt);
}

static fl_cost run_cost(const fl_node *n) {
    fl_cost c;
    memset(&c, 0xff, sizeof c); /* the hook must set every field it owns */
    c.bytes_read = K(0);
    c.bytes_written = K(0);
    assert_non_null(n->desc->cost);
    fl__diag_init(&diag, &arena);
    fl_status st = n->desc->cost(&ctx, n, &c);
    if (st != FL_OK) {
        fail_msg("cost of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
    }
    return c;
}

static void check_sym(fl_sym got, fl_sym want) {
    if (!fl__sym_eq(got, want)) {
        fail_msg("got %s, want %s", sym_str(got), sym_str(want));
    }
}

/* Checks complete and tfprof FLOPs (fl_sym, possibly symbolic); MACs are 0. */
static void check_cost(const fl_node *n, fl_sym flops, fl_sym tfprof, bool tfprof_rule) {
    fl_cost c = run_cost(n);
    assert_false(c.incomplete);
    assert_true(c.has_rule);
    assert_int_equal(c.tfprof_rule, tfprof_rule);
    check_sym(c.flops, flops);
    check_sym(c.tfprof_flops, tfprof);
    check_sym(c.macs, K(0));
}

static void check_incomplete(const fl_node *n) {
    fl_cost c = run_cost(n);
    assert_true(c.incomplete);
    assert_true(c.has_rule);
    check_sym(c.flops, K(0));
    check_sym(c.tfprof_flops, K(0));
}

/* a*N + b */
static fl_sym lin(int64_t a, int64_t b) {
    fl_sym r;
    assert_int_equal(fl__sym_mul(G->syms, K(a), N, &r), FL_OK);
    assert_int_equal(fl__sym_add(G->syms, r, K(b), &r), FL_OK);
    return r;
}

static int64_t subst_n(fl_sym s, int64_t n) {
    const char *names[] = {"N"};
    fl_sym r;
    assert_int_equal(fl__sym_subst(G->syms, s, 1, names, &n, &r), FL_OK);
    assert_true(fl_sym_is_known(r));
    return r.k;
}

static const fl_value *val(const fl_node *n) {
    const fl_value *v = n->outputs[0].value;
    if (!v) {
        fail_msg("%s has no value", n->name);
    }
    assert_int_equal(v->dtype, n->outputs[0].dtype);
    return v;
}

static void no_val(const fl_node *n) {
    if (n->outputs[0].value) {
        fail_msg("%s has a value but should not", n->name);
    }
}

/* Checks integer elements (known). */
static void check_ints(const fl_node *n, int cnt, const int64_t *want) {
    const fl_value *v = val(n);
    assert_int_equal(v->n, cnt);
    for (int i = 0; i < cnt; i++) {
        fl_sym s = fl__value_int(v, i);
        if (!fl_sym_is_known(s) || s.k != want[i]) {
            fail_msg("%s element %d: got %s, want %lld", n->name, i, sym_str(s),
                     (long long)want[i]);
        }
    }
}

#define CHECK_INTS(n, ...) check_ints(n, NARGS(int64_t, __VA_ARGS__), (int64_t[]){__VA_ARGS__})

static void check_syms(const fl_node *n, int cnt, const fl_sym *want) {
    const fl_value *v = val(n);
    assert_int_equal(v->n, cnt);
    for (int i = 0; i < cnt; i++) {
        if (!fl__sym_eq(fl__value_int(v, i), want[i])) {
            fail_msg("%s element %d: got %s, want %s", n->name, i, sym_str(fl__value_int(v, i)),
                     sym_str(want[i]));
        }
    }
}

#define CHECK_SYMS(n, ...) check_syms(n, NARGS(fl_sym, __VA_ARGS__), (fl_sym[]){__VA_ARGS__})

/* Checks float elements bit-exactly (NaN matches NaN). */
static void check_floats(const fl_node *n, int cnt, const double *want) {
    const fl_value *v = val(n);
    assert_int_equal(v->n, cnt);
    for (int i = 0; i < cnt; i++) {
        double x;
        assert_true(fl__value_f64(v, i, &x));
        bool same =
            (isnan(x) && isnan(want[i])) || (x == want[i] && signbit(x) == signbit(want[i]));
        if (!same) {
            fail_msg("%s element %d: got %.17g, want %.17g", n->name, i, x, want[i]);
        }
    }
}

#define CHECK_FLOATS(n, ...) check_floats(n, NARGS(double, __VA_ARGS__), (double[]){__VA_ARGS__})

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
        if (strcmp(all[i].family, "ew") != 0) {
            continue;
        }
        const struct fl_op_desc *d = all[i].desc;
        assert_string_equal(d->name, all[i].name);
        assert_non_null(d->infer);
        assert_non_null(d->cost);
        assert_int_equal(d->n_outputs, 1);
        assert_true(d->min_inputs >= 1);
        assert_true(d->max_inputs == -1 || d->max_inputs >= d->min_inputs);
        assert_int_equal(d->flags & FL_OPF_STATEFUL, 0);
        count++;
    }
    assert_int_equal(count, 92); /* incl. Conj, _UnaryOpsComposition, ReluGrad */
    assert_int_equal(fl__desc_ADD_N.max_inputs, -1);
    assert_int_equal(fl__desc_SELECT.min_inputs, 3);
}

/* ------------------------------------------------------------------------- */
/* Unary ops                                                                  */
/* ------------------------------------------------------------------------- */

static void test_unary_shapes_and_cost(void **state) {
    (void)state;
    fl_node *x = PH(N, K(7), K(3)); /* E = 21N */
    fl_node *relu = OP("Relu", x);
    attr_type(relu, "T", FL_DT_FLOAT);
    run(relu);
    check_shape(relu, "[N,7,3]");
    check_dtype(relu, FL_DT_FLOAT);
    /* Relu: 1 per element = 21N; tfprof has no Relu rule. */
    check_cost(relu, lin(21, 0), K(0), false);
    assert_int_equal(subst_n(run_cost(relu).flops, 5), 105);

    /* Rsqrt: 2 per element in both conventions = 42N. */
    fl_node *rsqrt = OP("Rsqrt", x);
    run(rsqrt);
    check_cost(rsqrt, lin(42, 0), lin(42, 0), true);

    /* tfprof's E(in0) ops. */
    const char *tf_ops[] = {"Neg", "Log", "Square", "Reciprocal"};
    for (size_t i = 0; i < 4; i++) {
        fl_node *n = OP(tf_ops[i], x);
        run(n);
        check_cost(n, lin(21, 0), lin(21, 0), true);
    }
    /* Ops tfprof does not register count 1 per element here, 0 there. */
    const char *other[] = {"Exp",   "Sigmoid", "Tanh", "Elu", "Selu",  "Softplus", "Abs", "Sqrt",
                           "Floor", "Sign",    "Erf",  "Cos", "Relu6", "Inv",      "Rint"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        fl_node *n = OP(other[i], x);
        run(n);
        check_shape(n, "[N,7,3]");
        check_cost(n, lin(21, 0), K(0), false);
    }
    /* Gelu counts its definition: exact 5, approximate 9 per element. */
    fl_node *gelu = OP("Gelu", x);
    run(gelu);
    check_cost(gelu, lin(5 * 21, 0), K(0), false);
    fl_node *gelu_a = OP("Gelu", x);
    attr_b(gelu_a, "approximate", true);
    run(gelu_a);
    check_cost(gelu_a, lin(9 * 21, 0), K(0), false);

    /* Bool-valued unary ops. */
    fl_node *isnan_n = OP("IsNan", x);
    run(isnan_n);
    check_dtype(isnan_n, FL_DT_BOOL);
    check_shape(isnan_n, "[N,7,3]");
    fl_node *lnot = OP("LogicalNot", PHT(FL_DT_BOOL, K(4)));
    run(lnot);
    check_dtype(lnot, FL_DT_BOOL);
    check_cost(lnot, K(4), K(0), false);

    /* Without a T attr the dtype comes from the input. */
    fl_node *neg_i = OP("Neg", PHT(FL_DT_INT32, K(2)));
    run(neg_i);
    check_dtype(neg_i, FL_DT_INT32);

    /* Unknown dim: shape carried, cost incomplete. Unknown rank likewise. */
    fl_node *u = OP("Tanh", PH(U, K(3)));
    run(u);
    check_shape(u, "[?,3]");
    check_incomplete(u);
    fl_node *ur = OP("Neg", PH_UNKNOWN());
    run(ur);
    check_shape(ur, "unknown");
    check_incomplete(ur);

    /* Scalar. */
    fl_node *s = OP("Exp", PH_SCALAR());
    run(s);
    check_shape(s, "[]");
    check_cost(s, K(1), K(0), false);
}

static void test_unary_attrs(void **state) {
    (void)state;
    fl_node *lr = OP("LeakyRelu", PH(K(2)));
    attr_i(lr, "alpha", 2);
    infer_fails(lr, "alpha");

    fl_node *t = OP("Relu", PH(K(2)));
    attr_i(t, "T", 1);
    infer_fails(t, "'T'");

    fl_node *t2 = OP("Relu", PH(K(2)));
    attr_type(t2, "T", 4242);
    infer_fails(t2, "'T'");

    /* LeakyRelu with alpha 0.1: x < 0 -> alpha * x rounded to float. */
    fl_node *lr2 = OP("LeakyRelu", CF(-2.0, 3.0, -0.5));
    attr_f(lr2, "alpha", 0.1f);
    run(lr2);
    CHECK_FLOATS(lr2, (double)(-2.0f * 0.1f), 3.0, (double)(-0.5f * 0.1f));
    /* Default alpha 0.2. */
    fl_node *lr3 = OP("LeakyRelu", CF(-1.0));
    run(lr3);
    CHECK_FLOATS(lr3, (double)(-1.0f * 0.2f));
}

static void test_unary_eval(void **state) {
    (void)state;
    /* Round and Rint round half to even. */
    fl_node *rnd = OP("Round", CF(0.5, 1.5, 2.5, -0.5, -1.7));
    run(rnd);
    CHECK_FLOATS(rnd, 0.0, 2.0, 2.0, -0.0, -2.0);
    fl_node *fl = OP("Floor", CF(-1.5, 1.5));
    run(fl);
    CHECK_FLOATS(fl, -2.0, 1.0);
    fl_node *ce = OP("Ceil", CF(-1.5, 1.5));
    run(ce);
    CHECK_FLOATS(ce, -1.0, 2.0);
    /* sqrt(2) correctly rounded to float32. */
    fl_node *sq = OP("Sqrt", CF(2.0, 9.0));
    run(sq);
    CHECK_FLOATS(sq, (double)sqrtf(2.0f), 3.0);
    fl_node *sg = OP("Sigmoid", CF(0.0));
    run(sg);
    CHECK_FLOATS(sg, 0.5);
    fl_node *r6 = OP("Relu6", CF(-3.0, 2.5, 8.0));
    run(r6);
    CHECK_FLOATS(r6, 0.0, 2.5, 6.0);
    fl_node *rec = OP("Reciprocal", CF(3.0));
    run(rec);
    CHECK_FLOATS(rec, (double)(1.0f / 3.0f));
    fl_node *isn = OP("IsNan", CF(NAN, 1.0));
    run(isn);
    CHECK_INTS(isn, 1, 0);
    fl_node *isf = OP("IsFinite", CF(INFINITY, 1.0));
    run(isf);
    CHECK_INTS(isf, 0, 1);

    /* Integers: Abs, Neg (int32 wraps), Sign, Square, Relu. */
    fl_node *ab = OP("Abs", CI32(K(-5), K(INT32_MIN)));
    run(ab);
    CHECK_INTS(ab, 5, INT32_MIN);
    fl_node *ng = OP("Neg", CI32(K(3), K(INT32_MIN)));
    run(ng);
    CHECK_INTS(ng, -3, INT32_MIN);
    fl_node *sgn = OP("Sign", CI32(K(-9), K(0), K(4)));
    run(sgn);
    CHECK_INTS(sgn, -1, 0, 1);
    fl_node *lnot = OP("LogicalNot", CIV(FL_DT_BOOL, K(0), K(1)));
    run(lnot);
    CHECK_INTS(lnot, 1, 0);

    /* Symbolic: Neg and Square go through fl_sym; Relu gives max(N, 0). */
    fl_node *sn = OP("Neg", CI32(N, K(2)));
    run(sn);
    CHECK_SYMS(sn, lin(-1, 0), K(-2));
    fl_node *ss = OP("Square", CI32(N));
    run(ss);
    fl_sym n2;
    assert_int_equal(fl__sym_mul(G->syms, N, N, &n2), FL_OK);
    CHECK_SYMS(ss, n2);
    fl_node *sr = OP("Relu", CI32(N));
    run(sr);
    fl_sym mx;
    assert_int_equal(fl__sym_max(G->syms, N, K(0), &mx), FL_OK);
    CHECK_SYMS(sr, mx);
    /* Abs of a symbol is not decidable: no value. */
    fl_node *sa = OP("Abs", CI32(N));
    run(sa);
    no_val(sa);
    /* Exp of an integer is not a TF op: no value, no failure. */
    fl_node *ei = OP("Exp", CI32(K(1)));
    run(ei);
    no_val(ei);
}

/* ------------------------------------------------------------------------- */
/* Binary ops                                                                 */
/* ------------------------------------------------------------------------- */

static void test_binary_broadcast(void **state) {
    (void)state;
    fl_node *a = PH(N, K(1), K(3));
    fl_node *b = PH(K(4), K(1));
    /* [N,1,3] + [4,1] -> [N,4,3], E = 12N: 1 per element in both conventions. */
    fl_node *add = OP("AddV2", a, b);
    attr_type(add, "T", FL_DT_FLOAT);
    run(add);
    check_shape(add, "[N,4,3]");
    check_dtype(add, FL_DT_FLOAT);
    check_cost(add, lin(12, 0), lin(12, 0), true);
    assert_int_equal(subst_n(run_cost(add).tfprof_flops, 10), 120);

    const char *tf_ops[] = {"Add",     "Sub",          "Mul",     "RealDiv",   "Maximum",
                            "Minimum", "Pow",          "Less",    "LessEqual", "Greater",
                            "Equal",   "GreaterEqual", "NotEqual"};
    for (size_t i = 0; i < sizeof tf_ops / sizeof tf_ops[0]; i++) {
        fl_node *n = OP(tf_ops[i], a, b);
        run(n);
        check_shape(n, "[N,4,3]");
        check_cost(n, lin(12, 0), lin(12, 0), true);
    }
    /* SquaredDifference: 2 per element in both = 24N. */
    fl_node *sd = OP("SquaredDifference", a, b);
    run(sd);
    check_cost(sd, lin(24, 0), lin(24, 0), true);
    /* Not registered in tfprof: 12N / 0. */
    const char *other[] = {"Div",         "FloorDiv",    "FloorMod", "Mod",        "DivNoNan",
                           "TruncateDiv", "TruncateMod", "Atan2",    "LogicalAnd", "LogicalOr"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        fl_node *n = OP(other[i], a, b);
        run(n);
        check_shape(n, "[N,4,3]");
        check_cost(n, lin(12, 0), K(0), false);
    }

    /* Comparisons and logical ops give bool. */
    fl_node *gt = OP("Greater", a, b);
    attr_type(gt, "T", FL_DT_FLOAT);
    run(gt);
    check_dtype(gt, FL_DT_BOOL);
    fl_node *land = OP("LogicalAnd", PHT(FL_DT_BOOL, K(2)), PHT(FL_DT_BOOL, K(1)));
    run(land);
    check_dtype(land, FL_DT_BOOL);
    check_shape(land, "[2]");

    /* Known dims that differ (neither 1): TF rejects. */
    fl_node *bad = OP("Add", PH(K(2), K(3)), PH(K(4), K(3)));
    infer_fails(bad, "broadcast");

    /* Unknown rank on one side: unknown output, incomplete cost. */
    fl_node *ur = OP("Mul", PH_UNKNOWN(), b);
    run(ur);
    check_shape(ur, "unknown");
    check_incomplete(ur);
    /* Unknown dim against a known non-1 dim resolves to the known one. */
    fl_node *ud = OP("Mul", PH(U, K(3)), PH(K(5), K(1)));
    run(ud);
    check_shape(ud, "[5,3]");
    check_cost(ud, K(15), K(15), true);

    /* Scalar with a tensor. */
    fl_node *sc = OP("Mul", PH_SCALAR(), PH(K(2), K(3)));
    run(sc);
    check_shape(sc, "[2,3]");
    check_cost(sc, K(6), K(6), true);
}

static void test_equal_incompatible(void **state) {
    (void)state;
    /* incompatible_shape_error=false: mismatched shapes give a scalar
     * (Equal false, NotEqual true). */
    fl_node *eq = OP("Equal", PH(K(2)), PH(K(3)));
    attr_b(eq, "incompatible_shape_error", false);
    run(eq);
    check_shape(eq, "[]");
    check_dtype(eq, FL_DT_BOOL);
    CHECK_INTS(eq, 0);
    fl_node *ne = OP("NotEqual", PH(K(2)), PH(K(3)));
    attr_b(ne, "incompatible_shape_error", false);
    run(ne);
    CHECK_INTS(ne, 1);
    /* Compatible shapes broadcast as usual. */
    fl_node *eq2 = OP("Equal", CI32(K(1), K(2)), CIS(FL_DT_INT32, 2));
    attr_b(eq2, "incompatible_shape_error", false);
    run(eq2);
    check_shape(eq2, "[2]");
    CHECK_INTS(eq2, 0, 1);
    /* Default (true): an error. */
    fl_node *eq3 = OP("Equal", PH(K(2)), PH(K(3)));
    infer_fails(eq3, "broadcast");
}

static void test_prelu(void **state) {
    (void)state;
    /* x [1,8,8,16], alpha [16] -> [1,8,8,16]; 2 per element = 2048. */
    fl_node *p = OP("Prelu", PH(K(1), K(8), K(8), K(16)), PH(K(16)));
    run(p);
    check_shape(p, "[1,8,8,16]");
    check_cost(p, K(2048), K(0), false);
    /* Symbolic batch: 2 * 1024N. */
    fl_node *ps = OP("Prelu", PH(N, K(8), K(8), K(16)), PH(K(1), K(1), K(16)));
    run(ps);
    check_shape(ps, "[N,8,8,16]");
    check_cost(ps, lin(2048, 0), K(0), false);
    /* Values: x < 0 -> alpha * x. */
    fl_node *pv = OP("Prelu", CFM(FL_DT_FLOAT, 2, 2, -1.0, 2.0, -3.0, 4.0), CF(0.25, 0.5));
    run(pv);
    CHECK_FLOATS(pv, -0.25, 2.0, -0.75, 4.0);
    fl_node *bad = OP("Prelu", PH(K(2), K(3)), PH(K(4)));
    infer_fails(bad, "broadcast");
}

/* ------------------------------------------------------------------------- */
/* Integer evaluation                                                         */
/* ------------------------------------------------------------------------- */

static void test_int_eval_known(void **state) {
    (void)state;
    /* int32 wraps in two's complement. */
    fl_node *add = OP("Add", CI32(K(INT32_MAX), K(5)), CI32(K(1), K(-7)));
    run(add);
    CHECK_INTS(add, INT32_MIN, -2);
    fl_node *mul = OP("Mul", CI32(K(65536)), CI32(K(65536)));
    run(mul);
    CHECK_INTS(mul, 0);
    fl_node *mul64 = OP("Mul", CIV(FL_DT_INT64, K(INT64_MAX)), CIV(FL_DT_INT64, K(2)));
    run(mul64);
    CHECK_INTS(mul64, -2);
    fl_node *u8 = OP("Add", CIV(FL_DT_UINT8, K(250)), CIV(FL_DT_UINT8, K(10)));
    run(u8);
    CHECK_INTS(u8, 4);

    /* Div, RealDiv, TruncateDiv truncate; FloorDiv floors. */
    fl_node *x = CI32(K(-7), K(7), K(7), K(-7));
    fl_node *y = CI32(K(2), K(-2), K(2), K(-2));
    fl_node *div = OP("Div", x, y);
    run(div);
    CHECK_INTS(div, -3, -3, 3, 3);
    fl_node *rdiv = OP("RealDiv", x, y);
    run(rdiv);
    CHECK_INTS(rdiv, -3, -3, 3, 3);
    fl_node *tdiv = OP("TruncateDiv", x, y);
    run(tdiv);
    CHECK_INTS(tdiv, -3, -3, 3, 3);
    fl_node *fdiv = OP("FloorDiv", x, y);
    run(fdiv);
    CHECK_INTS(fdiv, -4, -4, 3, 3);
    /* FloorMod takes the divisor's sign; Mod/TruncateMod the dividend's. */
    fl_node *fmod_n = OP("FloorMod", x, y);
    run(fmod_n);
    CHECK_INTS(fmod_n, 1, -1, 1, -1);
    fl_node *mod = OP("Mod", x, y);
    run(mod);
    CHECK_INTS(mod, -1, 1, 1, -1);
    fl_node *tmod = OP("TruncateMod", x, y);
    run(tmod);
    CHECK_INTS(tmod, -1, 1, 1, -1);
    /* INT32_MIN / -1 wraps. */
    fl_node *ov = OP("FloorDiv", CI32(K(INT32_MIN)), CI32(K(-1)));
    run(ov);
    CHECK_INTS(ov, INT32_MIN);
    /* Division by zero: TF fails at run time; no value here. */
    fl_node *dz = OP("FloorDiv", CI32(K(1)), CI32(K(0)));
    run(dz);
    no_val(dz);
    fl_node *dnn = OP("DivNoNan", CI32(K(5), K(6)), CI32(K(0), K(3)));
    run(dnn);
    CHECK_INTS(dnn, 0, 2);

    fl_node *pw = OP("Pow", CI32(K(3), K(2)), CI32(K(4), K(31)));
    run(pw);
    CHECK_INTS(pw, 81, INT32_MIN); /* 2^31 wraps */
    fl_node *pwn = OP("Pow", CI32(K(3)), CI32(K(-1)));
    run(pwn);
    no_val(pwn);
    fl_node *mx = OP("Maximum", CI32(K(-3), K(8)), CI32(K(2), K(5)));
    run(mx);
    CHECK_INTS(mx, 2, 8);
    fl_node *mn = OP("Minimum", CI32(K(-3), K(8)), CI32(K(2), K(5)));
    run(mn);
    CHECK_INTS(mn, -3, 5);
    fl_node *sqd = OP("SquaredDifference", CI32(K(3)), CI32(K(10)));
    run(sqd);
    CHECK_INTS(sqd, 49);

    /* Broadcasting: [2,3] + [3]. */
    fl_node *bm = OP("Add", CIM(FL_DT_INT32, 2, 3, K(1), K(2), K(3), K(4), K(5), K(6)),
                     CI32(K(10), K(20), K(30)));
    run(bm);
    check_shape(bm, "[2,3]");
    CHECK_INTS(bm, 11, 22, 33, 14, 25, 36);
    /* [2,1] * [3] -> [2,3]. */
    fl_node *bo = OP("Mul", CIM(FL_DT_INT32, 2, 1, K(2), K(3)), CI32(K(1), K(10), K(100)));
    run(bo);
    check_shape(bo, "[2,3]");
    CHECK_INTS(bo, 2, 20, 200, 3, 30, 300);

    /* Comparisons give bools. */
    fl_node *cx = CI32(K(1), K(5), K(3));
    fl_node *cy = CI32(K(3), K(3), K(3));
    fl_node *lt = OP("Less", cx, cy);
    run(lt);
    check_dtype(lt, FL_DT_BOOL);
    CHECK_INTS(lt, 1, 0, 0);
    fl_node *ge = OP("GreaterEqual", cx, cy);
    run(ge);
    CHECK_INTS(ge, 0, 1, 1);
    fl_node *ne = OP("NotEqual", cx, cy);
    run(ne);
    CHECK_INTS(ne, 1, 1, 0);
    /* uint64 compares unsigned: 2^63 > 1. */
    fl_node *ug = OP("Greater", CIV(FL_DT_UINT64, K(INT64_MIN)), CIV(FL_DT_UINT64, K(1)));
    run(ug);
    CHECK_INTS(ug, 1);
    fl_node *lor =
        OP("LogicalOr", CIV(FL_DT_BOOL, K(0), K(0), K(1)), CIV(FL_DT_BOOL, K(0), K(1), K(1)));
    run(lor);
    CHECK_INTS(lor, 0, 1, 1);
}

static void test_int_eval_symbolic(void **state) {
    (void)state;
    /* A shape vector [N, 224, 224, 3] times 2. */
    fl_node *shp = CI32(N, K(224), K(224), K(3));
    fl_node *m = OP("Mul", shp, CIS(FL_DT_INT32, 2));
    run(m);
    CHECK_SYMS(m, lin(2, 0), K(448), K(448), K(6));
    /* [N, 225] // 2 = [floor(N/2), 112]. */
    fl_node *fd = OP("FloorDiv", CI32(N, K(225)), CIS(FL_DT_INT32, 2));
    run(fd);
    fl_sym half;
    assert_int_equal(fl__sym_floordiv(G->syms, N, K(2), &half), FL_OK);
    CHECK_SYMS(fd, half, K(112));
    assert_int_equal(subst_n(fl__value_int(val(fd), 0), 9), 4);
    /* Add/Sub. */
    fl_node *ad = OP("AddV2", CI32(N), CI32(K(1)));
    run(ad);
    CHECK_SYMS(ad, lin(1, 1));
    fl_node *sb = OP("Sub", ad, CI32(N));
    run(sb);
    CHECK_SYMS(sb, K(1));
    /* Div is exact on 2N / 2; on N / 2 truncation is undecidable. */
    fl_node *dv = OP("Div", m, CIS(FL_DT_INT32, 2));
    run(dv);
    CHECK_SYMS(dv, N, K(224), K(224), K(3));
    fl_node *dv2 = OP("RealDiv", CI32(N), CI32(K(2)));
    run(dv2);
    no_val(dv2);
    /* Maximum/Minimum through fl_sym. */
    fl_node *mx = OP("Maximum", CI32(N, K(3)), CI32(K(1), K(5)));
    run(mx);
    fl_sym mx1;
    assert_int_equal(fl__sym_max(G->syms, N, K(1), &mx1), FL_OK);
    CHECK_SYMS(mx, mx1, K(5));
    /* Comparisons decide when the difference is known. */
    fl_node *gt = OP("Greater", ad, CI32(N));
    run(gt);
    CHECK_INTS(gt, 1);
    fl_node *eq = OP("Equal", CI32(N), CI32(N));
    run(eq);
    CHECK_INTS(eq, 1);
    fl_node *gt3 = OP("Greater", CI32(N), CI32(K(3)));
    run(gt3);
    no_val(gt3);
    /* Pow by a small known exponent. */
    fl_node *pw = OP("Pow", CI32(N), CI32(K(2)));
    run(pw);
    fl_sym n2;
    assert_int_equal(fl__sym_mul(G->syms, N, N, &n2), FL_OK);
    CHECK_SYMS(pw, n2);
    /* SquaredDifference (N+1 - N)^2 = 1. */
    fl_node *sd = OP("SquaredDifference", ad, CI32(N));
    run(sd);
    CHECK_SYMS(sd, K(1));
    /* FloorMod by a known divisor stays symbolic: mod(N, 4). */
    fl_node *fm = OP("FloorMod", CI32(N), CI32(K(4)));
    run(fm);
    assert_int_equal(subst_n(fl__value_int(val(fm), 0), 11), 3);
}

/* ------------------------------------------------------------------------- */
/* Float evaluation and Cast                                                  */
/* ------------------------------------------------------------------------- */

static void test_float_eval_exact(void **state) {
    (void)state;
    /* Results are correctly rounded float32. */
    fl_node *m = OP("Mul", CF(3.0, 0.1), CF(0.1, 3.0));
    run(m);
    CHECK_FLOATS(m, (double)(3.0f * 0.1f), (double)(0.1f * 3.0f));
    fl_node *d = OP("RealDiv", CF(1.0, 2.0), CF(3.0, 3.0));
    run(d);
    CHECK_FLOATS(d, (double)(1.0f / 3.0f), (double)(2.0f / 3.0f));
    fl_node *a = OP("AddV2", CF(16777216.0), CF(1.0));
    run(a);
    CHECK_FLOATS(a, 16777216.0); /* 2^24 + 1 rounds to even */
    fl_node *s = OP("Sub", CF(0.3), CF(0.1));
    run(s);
    CHECK_FLOATS(s, (double)(0.3f - 0.1f));
    /* FloorDiv floors the float32 quotient: 1 / 0.1f is 9.99999985 in
     * double but 10 in float, so the result is 10 as in TensorFlow. */
    fl_node *fd = OP("FloorDiv", CF(1.0, -7.0), CF(0.1, 2.0));
    run(fd);
    CHECK_FLOATS(fd, 10.0, -4.0);
    fl_node *fm = OP("FloorMod", CF(-7.0, 7.0), CF(2.0, -2.0));
    run(fm);
    CHECK_FLOATS(fm, 1.0, -1.0);
    fl_node *mo = OP("Mod", CF(-7.0), CF(2.0));
    run(mo);
    CHECK_FLOATS(mo, -1.0);
    /* Maximum propagates NaN. */
    fl_node *mx = OP("Maximum", CF(NAN, 1.0), CF(1.0, 2.0));
    run(mx);
    CHECK_FLOATS(mx, NAN, 2.0);
    /* Comparisons on floats (NaN compares unequal). */
    fl_node *ne = OP("NotEqual", CF(NAN, 1.0), CF(NAN, 1.0));
    run(ne);
    CHECK_INTS(ne, 1, 0);
    /* SquaredDifference rounds the difference first. */
    fl_node *sd = OP("SquaredDifference", CF(1.1), CF(0.1));
    run(sd);
    float dd = 1.1f - 0.1f;
    CHECK_FLOATS(sd, (double)(dd * dd));
    /* float64 keeps double precision; half rounds to 11 bits. */
    fl_node *dd64 = OP("RealDiv", CFV(FL_DT_DOUBLE, 1.0), CFV(FL_DT_DOUBLE, 3.0));
    run(dd64);
    CHECK_FLOATS(dd64, 1.0 / 3.0);
    fl_node *dh = OP("RealDiv", CFV(FL_DT_HALF, 1.0), CFV(FL_DT_HALF, 3.0));
    run(dh);
    CHECK_FLOATS(dh, 1365.0 / 4096.0);
    /* Broadcasting a scalar. */
    fl_node *bs = OP("Mul", CFM(FL_DT_FLOAT, 2, 2, 1.0, 2.0, 3.0, 4.0), CFS(FL_DT_FLOAT, 0.5));
    run(bs);
    CHECK_FLOATS(bs, 0.5, 1.0, 1.5, 2.0);
    /* DivNoNan: x / 0 = 0. */
    fl_node *dn = OP("DivNoNan", CF(1.0, 1.0), CF(0.0, 4.0));
    run(dn);
    CHECK_FLOATS(dn, 0.0, 0.25);
    /* Pow and Atan2. */
    fl_node *pw = OP("Pow", CF(2.0), CF(10.0));
    run(pw);
    CHECK_FLOATS(pw, 1024.0);
    fl_node *at = OP("Atan2", CF(1.0), CF(1.0));
    run(at);
    CHECK_FLOATS(at, (double)(float)atan2(1.0, 1.0));
}

static fl_node *cast(fl_node *x, int dst) {
    fl_node *c = OP("Cast", x);
    attr_type(c, "DstT", dst);
    attr_type(c, "SrcT", x->outputs[0].dtype);
    run(c);
    check_dtype(c, dst);
    return c;
}

static void test_resize_chain(void **state) {
    (void)state;
    /* Cast(shape) to float, scale, Cast back: [225, 224] * 0.5 -> [112, 112]. */
    fl_node *shp = CI32(K(225), K(224));
    fl_node *f = cast(shp, FL_DT_FLOAT);
    CHECK_FLOATS(f, 225.0, 224.0);
    fl_node *scaled = OP("Mul", f, CFS(FL_DT_FLOAT, 0.5));
    run(scaled);
    CHECK_FLOATS(scaled, 112.5, 112.0);
    fl_node *back = cast(scaled, FL_DT_INT32);
    check_shape(back, "[2]");
    CHECK_INTS(back, 112, 112);
    /* Scale 1/3 then Ceil: 225 * (1/3 in float32) = 75.0000011... in double
     * rounds to 75 in float32, ceil 75. */
    fl_node *third = OP("Mul", f, CFS(FL_DT_FLOAT, 1.0 / 3.0));
    run(third);
    fl_node *ce = OP("Ceil", third);
    run(ce);
    fl_node *ci = cast(ce, FL_DT_INT32);
    float t225 = 225.0f * (1.0f / 3.0f), t224 = 224.0f * (1.0f / 3.0f);
    CHECK_INTS(ci, (int64_t)ceilf(t225), (int64_t)ceilf(t224));

    /* Symbolic: Cast to float and straight back keeps the symbol. */
    fl_node *sym = CI32(N, K(224));
    fl_node *sf = cast(sym, FL_DT_FLOAT);
    no_val(sf); /* float tensors never hold symbols */
    fl_node *sb = cast(sf, FL_DT_INT64);
    CHECK_SYMS(sb, N, K(224));
    /* ... also through Floor. */
    fl_node *sfl = OP("Floor", sf);
    run(sfl);
    fl_node *sb2 = cast(sfl, FL_DT_INT32);
    CHECK_SYMS(sb2, N, K(224));
    /* Exact float steps keep it: Mul by 2 gives [2N, 448]. */
    fl_node *sm = OP("Mul", sf, CFS(FL_DT_FLOAT, 2.0));
    run(sm);
    no_val(sm);
    fl_node *sb3 = cast(sm, FL_DT_INT32);
    CHECK_SYMS(sb3, lin(2, 0), K(448));
    /* A Mul by 0.1 rounds: no value. */
    fl_node *st = OP("Mul", sf, CFS(FL_DT_FLOAT, 0.1));
    run(st);
    fl_node *sb4 = cast(st, FL_DT_INT32);
    no_val(sb4);
    /* Through half, a large known element is rounded on the way: 4097 -> 4096. */
    fl_node *hsym = CI32(N, K(4097));
    fl_node *hf = cast(hsym, FL_DT_HALF);
    fl_node *hb = cast(hf, FL_DT_INT32);
    CHECK_SYMS(hb, N, K(4096));
}

/* Symbolic values through exact float arithmetic (the object-detection
 * "pad to a multiple of 32" pattern and friends). */
static void test_symbolic_float_steps(void **state) {
    (void)state;
    fl_node *h = CI32(N, K(100));
    fl_node *hd = cast(h, FL_DT_DOUBLE);
    /* ToInt32(Ceil(H * 0.03125)) = ceil(H / 32). */
    fl_node *sc = OP("Mul", hd, CFS(FL_DT_DOUBLE, 0.03125));
    run(sc);
    fl_node *ce = OP("Ceil", sc);
    run(ce);
    fl_node *ci = cast(ce, FL_DT_INT32);
    fl_sym want;
    assert_int_equal(fl__sym_ceildiv(G->syms, N, K(32), &want), FL_OK);
    CHECK_SYMS(ci, want, K(4));
    assert_int_equal(subst_n(fl__value_int(val(ci), 0), 33), 2);
    /* ... then ceil(H/32) * 32 - H in int32. */
    fl_node *m32 = OP("Mul", ci, CIS(FL_DT_INT32, 32));
    run(m32);
    fl_node *pad = OP("Sub", m32, h);
    run(pad);
    assert_int_equal(subst_n(fl__value_int(val(pad), 0), 33), 31);
    /* RealDiv by 32 then Floor = floor(H / 32). */
    fl_node *dv = OP("RealDiv", hd, CFS(FL_DT_DOUBLE, 32.0));
    run(dv);
    fl_node *fl = OP("Floor", dv);
    run(fl);
    fl_node *fi = cast(fl, FL_DT_INT64);
    assert_int_equal(fl__sym_floordiv(G->syms, N, K(32), &want), FL_OK);
    CHECK_SYMS(fi, want, K(3));
    /* Truncating H/2 directly is not decidable; Round of it neither. */
    fl_node *halfv = OP("Mul", hd, CFS(FL_DT_DOUBLE, 0.5));
    run(halfv);
    no_val(cast(halfv, FL_DT_INT32));
    fl_node *rn = OP("Round", halfv);
    run(rn);
    no_val(cast(rn, FL_DT_INT32));
    /* (H/2) * 2 is H again; -H + 1 and max(H, 7) too. */
    fl_node *back = OP("Mul", halfv, CFS(FL_DT_DOUBLE, 2.0));
    run(back);
    CHECK_SYMS(cast(back, FL_DT_INT32), N, K(100));
    fl_node *ng = OP("Neg", hd);
    run(ng);
    fl_node *ad = OP("AddV2", ng, CFS(FL_DT_DOUBLE, 1.0));
    run(ad);
    CHECK_SYMS(cast(ad, FL_DT_INT32), lin(-1, 1), K(-99));
    fl_node *mx = OP("Maximum", hd, CFS(FL_DT_DOUBLE, 7.0));
    run(mx);
    fl_sym m7;
    assert_int_equal(fl__sym_max(G->syms, N, K(7), &m7), FL_OK);
    CHECK_SYMS(cast(mx, FL_DT_INT32), m7, K(100));
    /* A product of two symbolic floats may round: no value. */
    fl_node *sq = OP("Mul", hd, hd);
    run(sq);
    no_val(cast(sq, FL_DT_INT32));
    /* Division by 3 rounds: no value. */
    fl_node *d3 = OP("RealDiv", hd, CFS(FL_DT_DOUBLE, 3.0));
    run(d3);
    fl_node *f3 = OP("Floor", d3);
    run(f3);
    no_val(cast(f3, FL_DT_INT32));
}

static void test_cast(void **state) {
    (void)state;
    /* int64 -> int32 wraps; -> uint8 too. */
    fl_node *big = CIV(FL_DT_INT64, K(((int64_t)1 << 32) + 5), K(-1));
    fl_node *c32 = cast(big, FL_DT_INT32);
    CHECK_INTS(c32, 5, -1);
    fl_node *c8 = cast(big, FL_DT_UINT8);
    CHECK_INTS(c8, 5, 255);
    /* float -> int truncates toward zero. */
    fl_node *ft = cast(CF(3.7, -3.7, 0.0), FL_DT_INT32);
    CHECK_INTS(ft, 3, -3, 0);
    /* Out of range and NaN: no value. */
    fl_node *oor = cast(CF(3e9), FL_DT_INT32);
    no_val(oor);
    fl_node *nan_c = cast(CF(NAN), FL_DT_INT64);
    no_val(nan_c);
    /* int32 -> float rounds: 16777217 -> 16777216. */
    fl_node *fr = cast(CI32(K(16777217), K(-3)), FL_DT_FLOAT);
    CHECK_FLOATS(fr, 16777216.0, -3.0);
    /* int64 -> double is exact to 2^53. */
    fl_node *fd = cast(CIV(FL_DT_INT64, K(9007199254740993)), FL_DT_DOUBLE);
    CHECK_FLOATS(fd, 9007199254740992.0);
    /* int <-> bool, bool -> float. */
    fl_node *b = cast(CI32(K(0), K(5), K(-2)), FL_DT_BOOL);
    CHECK_INTS(b, 0, 1, 1);
    fl_node *bf = cast(b, FL_DT_FLOAT);
    CHECK_FLOATS(bf, 0.0, 1.0, 1.0);
    fl_node *fb = cast(CF(0.0, 0.5), FL_DT_BOOL);
    CHECK_INTS(fb, 0, 1);
    /* float -> half rounds to nearest even: 0.1 -> 1638/16384. */
    fl_node *h = cast(CF(0.1), FL_DT_HALF);
    CHECK_FLOATS(h, 1638.0 / 16384.0);
    /* Symbolic int -> int keeps the symbol; int -> float has no value. */
    fl_node *si = cast(CI32(N, K(7)), FL_DT_INT64);
    CHECK_SYMS(si, N, K(7));
    fl_node *sf = cast(CI32(N), FL_DT_FLOAT);
    no_val(sf);
    fl_node *sbool = cast(CI32(N), FL_DT_BOOL);
    no_val(sbool);
    /* Truncate=true narrowing: exact values pass, inexact ones get none. */
    fl_node *tr = OP("Cast", CFV(FL_DT_DOUBLE, 0.5));
    attr_type(tr, "DstT", FL_DT_FLOAT);
    attr_b(tr, "Truncate", true);
    run(tr);
    CHECK_FLOATS(tr, 0.5);
    fl_node *tr2 = OP("Cast", CFV(FL_DT_DOUBLE, 0.1));
    attr_type(tr2, "DstT", FL_DT_FLOAT);
    attr_b(tr2, "Truncate", true);
    run(tr2);
    no_val(tr2);
    /* Shape carried; 1 FLOP per element, no tfprof rule. */
    fl_node *cs = OP("Cast", PHT(FL_DT_INT32, N, K(3)));
    attr_type(cs, "DstT", FL_DT_FLOAT);
    run(cs);
    check_shape(cs, "[N,3]");
    check_cost(cs, lin(3, 0), K(0), false);
    /* DstT is required. */
    fl_node *nod = OP("Cast", PH(K(2)));
    infer_fails(nod, "DstT");
    fl_node *badk = OP("Cast", PH(K(2)));
    attr_i(badk, "DstT", 3);
    infer_fails(badk, "DstT");
}

/* ------------------------------------------------------------------------- */
/* Select, AddN, ClipByValue                                                  */
/* ------------------------------------------------------------------------- */

static void test_select(void **state) {
    (void)state;
    /* Vector condition matching dim 0: output [4,3], 1 per element = 12. */
    fl_node *s = OP("Select", PHT(FL_DT_BOOL, K(4)), PH(K(4), K(3)), PH(K(4), K(3)));
    attr_type(s, "T", FL_DT_FLOAT);
    run(s);
    check_shape(s, "[4,3]");
    check_dtype(s, FL_DT_FLOAT);
    check_cost(s, K(12), K(0), false);
    /* The vector's length must match dim 0. */
    fl_node *bad = OP("Select", PHT(FL_DT_BOOL, K(5)), PH(K(4), K(3)), PH(K(4), K(3)));
    infer_fails(bad, "condition");
    /* 't' and 'e' must agree. */
    fl_node *bad2 = OP("Select", PHT(FL_DT_BOOL, K(4)), PH(K(4), K(3)), PH(K(4), K(2)));
    infer_fails(bad2, "'t' and 'e'");
    /* A condition of rank > 1 must have the data's shape. */
    fl_node *full = OP("Select", PHT(FL_DT_BOOL, K(4), K(3)), PH(K(4), K(3)), PH(K(4), K(3)));
    run(full);
    check_shape(full, "[4,3]");
    fl_node *bad3 = OP("Select", PHT(FL_DT_BOOL, K(2), K(3)), PH(K(4), K(3)), PH(K(4), K(3)));
    infer_fails(bad3, "condition");
    /* Vector condition with scalar data: rejected. */
    fl_node *bad4 = OP("Select", PHT(FL_DT_BOOL, K(2)), PH_SCALAR(), PH_SCALAR());
    infer_fails(bad4, "condition");
    /* Scalar condition: any data shape. */
    fl_node *sc = OP("Select", PHT_SCALAR(FL_DT_BOOL), PH(K(2), K(5)), PH(K(2), K(5)));
    run(sc);
    check_shape(sc, "[2,5]");
    /* Merging: 't' [N,3] and 'e' [?,3], condition [N]. */
    fl_node *sy = OP("Select", PHT(FL_DT_BOOL, N), PH(N, K(3)), PH(U, K(3)));
    run(sy);
    check_shape(sy, "[N,3]");
    check_cost(sy, lin(3, 0), K(0), false);
    /* Unknown data: unknown rank; condition fills dim 0 when known. */
    fl_node *su = OP("Select", PHT(FL_DT_BOOL, K(7)), PH(U, K(2)), PH_UNKNOWN());
    run(su);
    check_shape(su, "[7,2]");

    /* Values: a vector condition picks rows. */
    fl_node *sv =
        OP("Select", CIV(FL_DT_BOOL, K(1), K(0)), CIM(FL_DT_INT32, 2, 2, K(1), K(2), K(3), K(4)),
           CIM(FL_DT_INT32, 2, 2, K(5), K(6), K(7), K(8)));
    run(sv);
    CHECK_INTS(sv, 1, 2, 7, 8);
    /* Element-wise with symbolic data. */
    fl_node *se = OP("Select", CIV(FL_DT_BOOL, K(0), K(1)), CI32(N, K(2)), CI32(K(9), N));
    run(se);
    CHECK_SYMS(se, K(9), K(2));
}

static void test_select_v2(void **state) {
    (void)state;
    /* Three-way broadcast: [N,1], [1,3], [] -> [N,3]. */
    fl_node *s = OP("SelectV2", PHT(FL_DT_BOOL, N, K(1)), PH(K(1), K(3)), PH_SCALAR());
    run(s);
    check_shape(s, "[N,3]");
    check_cost(s, lin(3, 0), K(0), false);
    fl_node *bad = OP("SelectV2", PHT(FL_DT_BOOL, K(2)), PH(K(3)), PH(K(3)));
    infer_fails(bad, "broadcast");
    fl_node *sv =
        OP("SelectV2", CIM(FL_DT_BOOL, 2, 1, K(1), K(0)), CF(1.0, 2.0, 3.0), CFS(FL_DT_FLOAT, 9.0));
    run(sv);
    check_shape(sv, "[2,3]");
    CHECK_FLOATS(sv, 1.0, 2.0, 3.0, 9.0, 9.0, 9.0);
}

static void test_add_n(void **state) {
    (void)state;
    fl_node *a = PH(K(2), K(3)), *b = PH(K(2), K(3)), *c = PH(K(2), K(3));
    fl_node *s = OP("AddN", a, b, c);
    attr_i(s, "N", 3);
    attr_type(s, "T", FL_DT_FLOAT);
    add_ctrl(s, PH_SCALAR());
    run(s);
    check_shape(s, "[2,3]");
    /* complete: (3 - 1) * 6 = 12; tfprof: E(in0) * (inputs - 1) with the
     * control input counted = 6 * (4 - 1) = 18. */
    check_cost(s, K(12), K(18), true);
    /* One input: 0 FLOPs. */
    fl_node *one = OP("AddN", a);
    run(one);
    check_cost(one, K(0), K(0), true);
    /* N must match. */
    fl_node *bn = OP("AddN", a, b);
    attr_i(bn, "N", 3);
    infer_fails(bn, "attr 'N'");
    /* Shapes must agree; unknown parts merge. */
    fl_node *bs = OP("AddN", a, PH(K(2), K(4)));
    infer_fails(bs, "AddN");
    fl_node *mg = OP("AddN", PH(U, K(3)), PH(K(2), U), PH_UNKNOWN());
    run(mg);
    check_shape(mg, "[2,3]");
    /* Symbolic: N^... [N, 1] + [N, 2] + [0, 3] = [2N, 6]. */
    fl_node *sv = OP("AddN", CI32(N, K(1)), CI32(N, K(2)), CI32(K(0), K(3)));
    run(sv);
    CHECK_SYMS(sv, lin(2, 0), K(6));
    /* Floats round after every addition: 2^24 + 1 + 1 = 2^24 in float32
     * (the exact 2^24 + 2 would be representable). */
    fl_node *fv = OP("AddN", CF(16777216.0), CF(1.0), CF(1.0));
    run(fv);
    CHECK_FLOATS(fv, 16777216.0);
}

static void test_clip(void **state) {
    (void)state;
    fl_node *c = OP("ClipByValue", PH(N, K(4)), PH_SCALAR(), PH_SCALAR());
    run(c);
    check_shape(c, "[N,4]");
    check_cost(c, lin(4, 0), K(0), false);
    fl_node *cv =
        OP("ClipByValue", CI32(K(-5), K(2), K(9)), CIS(FL_DT_INT32, 0), CIS(FL_DT_INT32, 4));
    run(cv);
    CHECK_INTS(cv, 0, 2, 4);
    fl_node *cf = OP("ClipByValue", CF(-1.5, 0.25, 7.0), CF(0.0, 0.5, 0.0), CF(1.0, 1.0, 6.0));
    run(cf);
    CHECK_FLOATS(cf, 0.0, 0.5, 6.0);
    /* Symbolic: max(min(N, 4), 0) evaluates per binding. */
    fl_node *cs = OP("ClipByValue", CI32(N), CIS(FL_DT_INT32, 0), CIS(FL_DT_INT32, 4));
    run(cs);
    assert_int_equal(subst_n(fl__value_int(val(cs), 0), 9), 4);
    assert_int_equal(subst_n(fl__value_int(val(cs), 0), 2), 2);
}

/* ------------------------------------------------------------------------- */
/* Reductions                                                                 */
/* ------------------------------------------------------------------------- */

static fl_node *reduce(const char *op, fl_node *x, fl_node *axes, int keep) {
    fl_node *r = OP(op, x, axes);
    if (keep >= 0) {
        attr_b(r, "keep_dims", keep != 0);
    }
    return r;
}

static void test_reduce_shapes(void **state) {
    (void)state;
    fl_node *x = PH(N, K(8), K(8), K(16)); /* E = 1024N */
    fl_node *s = reduce("Sum", x, CI32(K(1), K(2)), 0);
    run(s);
    check_shape(s, "[N,16]");
    /* Sum: E(in) - E(out) = 1024N - 16N = 1008N in both conventions. */
    check_cost(s, lin(1008, 0), lin(1008, 0), true);
    assert_int_equal(subst_n(run_cost(s).flops, 3), 3024);
    fl_node *sk = reduce("Sum", x, CI32(K(1), K(2)), 1);
    run(sk);
    check_shape(sk, "[N,1,1,16]");
    check_cost(sk, lin(1008, 0), lin(1008, 0), true);
    /* Negative and scalar axes; duplicates count once. */
    fl_node *neg = reduce("Max", x, CI32(K(-1), K(3)), -1);
    run(neg);
    check_shape(neg, "[N,8,8]");
    /* Max: 1024N - 64N = 960N; tfprof has no Max rule. */
    check_cost(neg, lin(960, 0), K(0), false);
    fl_node *sc = reduce("Min", x, CIS(FL_DT_INT64, 0), 0);
    run(sc);
    check_shape(sc, "[8,8,16]");
    check_cost(sc, lin(1024, -1024), K(0), false);
    /* Mean: E(in) = 1024N in both. */
    fl_node *mean = reduce("Mean", x, CI32(K(1), K(2)), 1);
    run(mean);
    check_shape(mean, "[N,1,1,16]");
    check_cost(mean, lin(1024, 0), lin(1024, 0), true);
    /* Empty axes: unchanged shape, 0 FLOPs. */
    fl_node *none = reduce("Prod", x, mk_const(FL_DT_INT32, 1, (int64_t[]){0}, NULL, NULL), 0);
    run(none);
    check_shape(none, "[N,8,8,16]");
    check_cost(none, K(0), K(0), false);
    /* All/Any give bool. */
    fl_node *al = reduce("All", PHT(FL_DT_BOOL, K(3), K(5)), CI32(K(1)), 0);
    run(al);
    check_shape(al, "[3]");
    check_dtype(al, FL_DT_BOOL);
    check_cost(al, K(12), K(0), false);
    fl_node *an = reduce("Any", PHT(FL_DT_BOOL, K(3), K(5)), CI32(K(0), K(1)), 0);
    run(an);
    check_shape(an, "[]");
    /* Out of range. */
    fl_node *bad = reduce("Sum", x, CI32(K(4)), 0);
    infer_fails(bad, "reduction_indices");
    fl_node *bad2 = reduce("Sum", x, CI32(K(-5)), 0);
    infer_fails(bad2, "reduction_indices");
    /* Rank-2 indices are rejected (producer >= 21). */
    fl_node *bad3 = reduce("Sum", x, CIM(FL_DT_INT32, 1, 1, K(0)), 0);
    infer_fails(bad3, "reduction_indices");
    /* keep_dims of the wrong kind. */
    fl_node *bad4 = reduce("Sum", x, CI32(K(0)), -1);
    attr_i(bad4, "keep_dims", 1);
    infer_fails(bad4, "keep_dims");
    /* Unknown axes: rank kept with keep_dims, else unknown rank. */
    fl_node *ua = reduce("Sum", x, PHT(FL_DT_INT32, K(2)), 1);
    run(ua);
    check_shape(ua, "[?,?,?,?]");
    check_incomplete(ua);
    fl_node *ub = reduce("Sum", x, PHT(FL_DT_INT32, K(2)), 0);
    run(ub);
    check_shape(ub, "unknown");
    check_incomplete(ub);
    /* Unknown input rank with known axes: unknown. */
    fl_node *uc = reduce("Mean", PH_UNKNOWN(), CI32(K(0)), 1);
    run(uc);
    check_shape(uc, "unknown");
    /* Unknown dim kept. */
    fl_node *ud = reduce("Sum", PH(U, K(4)), CI32(K(1)), 0);
    run(ud);
    check_shape(ud, "[?]");
    check_incomplete(ud);
}

static void test_reduce_eval(void **state) {
    (void)state;
    /* Prod of a shape vector [N, 224, 3] = 672N; Sum = N + 227. */
    fl_node *v = CI32(N, K(224), K(3));
    fl_node *p = reduce("Prod", v, CIS(FL_DT_INT32, 0), 0);
    run(p);
    check_shape(p, "[]");
    CHECK_SYMS(p, lin(672, 0));
    fl_node *s = reduce("Sum", v, CI32(K(0)), 1);
    run(s);
    check_shape(s, "[1]");
    CHECK_SYMS(s, lin(1, 227));
    /* Max over rows / Min over columns with keep_dims. */
    fl_node *m = CIM(FL_DT_INT32, 2, 2, K(1), K(5), K(7), K(2));
    fl_node *mx = reduce("Max", m, CI32(K(1)), 0);
    run(mx);
    CHECK_INTS(mx, 5, 7);
    fl_node *mn = reduce("Min", m, CI32(K(0)), 1);
    run(mn);
    check_shape(mn, "[1,2]");
    CHECK_INTS(mn, 1, 2);
    /* Symbolic Max: max(N, 3). */
    fl_node *smx = reduce("Max", CI32(N, K(3)), CI32(K(0)), 0);
    run(smx);
    fl_sym want;
    assert_int_equal(fl__sym_max(G->syms, N, K(3), &want), FL_OK);
    CHECK_SYMS(smx, want);
    /* Mean of ints truncates: (7 + 8) / 2 = 7; of floats rounds. */
    fl_node *mi = reduce("Mean", CI32(K(7), K(8)), CI32(K(0)), 0);
    run(mi);
    CHECK_INTS(mi, 7);
    fl_node *mf = reduce("Mean", CF(1.0, 2.0, 4.0), CI32(K(0)), 0);
    run(mf);
    CHECK_FLOATS(mf, (double)(float)(7.0 / 3.0));
    fl_node *ms = reduce("Mean", CI32(lin(2, 0), lin(4, 0)), CI32(K(0)), 0);
    run(ms);
    CHECK_SYMS(ms, lin(3, 0));
    /* Sum of floats over both axes. */
    fl_node *sf = reduce("Sum", CFM(FL_DT_FLOAT, 2, 2, 0.5, 1.5, 2.0, 4.0), CI32(K(0), K(1)), 0);
    run(sf);
    CHECK_FLOATS(sf, 8.0);
    /* All / Any. */
    fl_node *bm = CIM(FL_DT_BOOL, 2, 2, K(1), K(0), K(1), K(1));
    fl_node *al = reduce("All", bm, CI32(K(1)), 0);
    run(al);
    CHECK_INTS(al, 0, 1);
    fl_node *an = reduce("Any", bm, CI32(K(0)), 0);
    run(an);
    CHECK_INTS(an, 1, 1);
    /* Empty reductions: Sum 0, Prod 1, Max of int32 = lowest. */
    fl_node *empty = mk_const(FL_DT_INT32, 1, (int64_t[]){0}, NULL, NULL);
    fl_node *es = reduce("Sum", empty, CI32(K(0)), 0);
    run(es);
    CHECK_INTS(es, 0);
    fl_node *ep = reduce("Prod", empty, CI32(K(0)), 0);
    run(ep);
    CHECK_INTS(ep, 1);
    fl_node *em = reduce("Max", empty, CI32(K(0)), 0);
    run(em);
    CHECK_INTS(em, INT32_MIN);
    /* int32 Sum wraps. */
    fl_node *sw = reduce("Sum", CI32(K(INT32_MAX), K(1)), CI32(K(0)), 0);
    run(sw);
    CHECK_INTS(sw, INT32_MIN);
}

/* ------------------------------------------------------------------------- */
/* ArgMax / ArgMin                                                            */
/* ------------------------------------------------------------------------- */

static void test_arg_max(void **state) {
    (void)state;
    fl_node *x = PH(K(2), K(5), K(3));
    fl_node *a = OP("ArgMax", x, CIS(FL_DT_INT32, 1));
    run(a);
    check_shape(a, "[2,3]");
    check_dtype(a, FL_DT_INT64);
    /* E(in) - E(out) = 30 - 6 = 24 in both conventions. */
    check_cost(a, K(24), K(24), true);
    fl_node *b = OP("ArgMin", x, CIS(FL_DT_INT32, -1));
    attr_type(b, "output_type", FL_DT_INT32);
    run(b);
    check_shape(b, "[2,5]");
    check_dtype(b, FL_DT_INT32);
    check_cost(b, K(20), K(20), true);
    /* Symbolic: [N, 10] over axis 1 -> [N]: 10N - N = 9N. */
    fl_node *s = OP("ArgMax", PH(N, K(10)), CIS(FL_DT_INT64, 1));
    run(s);
    check_shape(s, "[N]");
    check_cost(s, lin(9, 0), lin(9, 0), true);
    /* Unknown dimension value: rank - 1 unknown dims. */
    fl_node *u = OP("ArgMax", x, PHT_SCALAR(FL_DT_INT32));
    run(u);
    check_shape(u, "[?,?]");
    check_incomplete(u);
    /* Vectors reduce to a scalar; unknown rank stays unknown. */
    fl_node *v = OP("ArgMax", PH(K(5)), PHT_SCALAR(FL_DT_INT32));
    run(v);
    check_shape(v, "[]");
    fl_node *ur = OP("ArgMax", PH_UNKNOWN(), CIS(FL_DT_INT32, 0));
    run(ur);
    check_shape(ur, "unknown");
    /* Errors. */
    fl_node *bad = OP("ArgMax", x, CIS(FL_DT_INT32, 3));
    infer_fails(bad, "dimension");
    fl_node *bad2 = OP("ArgMax", x, CI32(K(0), K(1)));
    infer_fails(bad2, "dimension");
    fl_node *bad3 = OP("ArgMax", x, CIS(FL_DT_INT32, 0));
    attr_type(bad3, "output_type", FL_DT_FLOAT);
    infer_fails(bad3, "output_type");
    /* Values: first index wins on ties. */
    fl_node *m = CIM(FL_DT_INT32, 2, 3, K(3), K(9), K(9), K(4), K(1), K(0));
    fl_node *am = OP("ArgMax", m, CIS(FL_DT_INT32, 1));
    run(am);
    CHECK_INTS(am, 1, 0);
    fl_node *an = OP("ArgMin", m, CIS(FL_DT_INT32, 1));
    attr_type(an, "output_type", FL_DT_INT32);
    run(an);
    CHECK_INTS(an, 0, 2);
    fl_node *a0 = OP("ArgMax", m, CIS(FL_DT_INT32, 0));
    run(a0);
    CHECK_INTS(a0, 1, 0, 0);
    fl_node *af = OP("ArgMin", CF(2.5, -1.0, 7.0), CIS(FL_DT_INT32, 0));
    run(af);
    CHECK_INTS(af, 1);
}

/* ------------------------------------------------------------------------- */
/* Cumsum / Cumprod                                                           */
/* ------------------------------------------------------------------------- */

static fl_node *cum(const char *op, fl_node *x, fl_node *axis, bool excl, bool rev) {
    fl_node *c = OP(op, x, axis);
    attr_b(c, "exclusive", excl);
    attr_b(c, "reverse", rev);
    run(c);
    return c;
}

static void test_cumsum(void **state) {
    (void)state;
    /* [2,3] along axis 1: 2 lines of 3 -> 2 * (3 - 1) = 4; along 0: 3 * 1. */
    fl_node *x = PH(K(2), K(3));
    fl_node *c1 = cum("Cumsum", x, CIS(FL_DT_INT32, 1), false, false);
    check_shape(c1, "[2,3]");
    check_cost(c1, K(4), K(0), false);
    fl_node *c0 = cum("Cumprod", x, CIS(FL_DT_INT32, -2), true, false);
    check_cost(c0, K(3), K(0), false);
    /* Symbolic [N,3] along 0: 3 * (N - 1) = 3N - 3. */
    fl_node *cs = cum("Cumsum", PH(N, K(3)), CIS(FL_DT_INT32, 0), false, false);
    check_shape(cs, "[N,3]");
    check_cost(cs, lin(3, -3), K(0), false);
    /* Unknown axis: shape kept, cost incomplete. */
    fl_node *cu = cum("Cumsum", x, PHT_SCALAR(FL_DT_INT32), false, false);
    check_shape(cu, "[2,3]");
    check_incomplete(cu);
    /* Axis out of range / not a scalar. */
    fl_node *bad = OP("Cumsum", x, CIS(FL_DT_INT32, 2));
    infer_fails(bad, "axis");
    fl_node *bad2 = OP("Cumsum", x, CI32(K(0), K(1)));
    infer_fails(bad2, "axis");
    /* Values. */
    fl_node *v = CI32(K(1), K(2), K(3));
    fl_node *a = cum("Cumsum", v, CIS(FL_DT_INT32, 0), false, false);
    CHECK_INTS(a, 1, 3, 6);
    fl_node *e = cum("Cumsum", v, CIS(FL_DT_INT32, 0), true, false);
    CHECK_INTS(e, 0, 1, 3);
    fl_node *r = cum("Cumsum", v, CIS(FL_DT_INT32, 0), false, true);
    CHECK_INTS(r, 6, 5, 3);
    fl_node *er = cum("Cumsum", v, CIS(FL_DT_INT32, 0), true, true);
    CHECK_INTS(er, 5, 3, 0);
    fl_node *p = cum("Cumprod", v, CIS(FL_DT_INT32, 0), false, false);
    CHECK_INTS(p, 1, 2, 6);
    fl_node *m = cum("Cumsum", CIM(FL_DT_INT32, 2, 2, K(1), K(2), K(3), K(4)), CIS(FL_DT_INT32, 0),
                     false, false);
    CHECK_INTS(m, 1, 2, 4, 6);
    fl_node *sy = cum("Cumsum", CI32(N, K(2)), CIS(FL_DT_INT32, 0), false, false);
    CHECK_SYMS(sy, N, lin(1, 2));
    fl_node *f = cum("Cumsum", CF(16777216.0, 1.0, 1.0), CIS(FL_DT_INT32, 0), false, false);
    CHECK_FLOATS(f, 16777216.0, 16777216.0, 16777216.0);
}

/* ------------------------------------------------------------------------- */
/* ZerosLike / OnesLike                                                       */
/* ------------------------------------------------------------------------- */

static void test_zeros_ones_like(void **state) {
    (void)state;
    fl_node *z = OP("ZerosLike", PH(K(2), K(2)));
    run(z);
    check_shape(z, "[2,2]");
    CHECK_FLOATS(z, 0.0, 0.0, 0.0, 0.0);
    /* A fill: 0 FLOPs, but a real rule. */
    check_cost(z, K(0), K(0), false);
    fl_node *o = OP("OnesLike", PHT(FL_DT_INT32, K(3)));
    run(o);
    CHECK_INTS(o, 1, 1, 1);
    check_dtype(o, FL_DT_INT32);
    fl_node *ob = OP("OnesLike", PHT(FL_DT_BOOL, K(1)));
    run(ob);
    CHECK_INTS(ob, 1);
    /* Symbolic shape: no value, shape carried. */
    fl_node *zs = OP("ZerosLike", PH(N, K(3)));
    run(zs);
    check_shape(zs, "[N,3]");
    no_val(zs);
    check_cost(zs, K(0), K(0), false);
    /* Larger than the value limit: no value. */
    ctx.max_value_elems = 3;
    fl_node *zl = OP("ZerosLike", PH(K(2), K(2)));
    run(zl);
    no_val(zl);
    ctx.max_value_elems = 1 << 20;
}

/* ------------------------------------------------------------------------- */
/* Robustness                                                                 */
/* ------------------------------------------------------------------------- */

/* Every ew op with unknown-rank inputs (of a plausible dtype) infers without
 * failing and costs as incomplete or 0. */
static void test_all_ops_unknown_inputs(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const struct fl_op_desc *desc;
        const char *family;
    } all[] = {
#define FL_OP(e, name, family, ...) {name, &fl__desc_##e, #family},
#include "ops/ops.def"
#undef FL_OP
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(all[i].family, "ew") != 0) {
            continue;
        }
        int nin = all[i].desc->min_inputs;
        fl_node *in[3];
        for (int k = 0; k < nin; k++) {
            in[k] = PH_UNKNOWN();
        }
        fl_node *n = mk_op(all[i].name, nin, in);
        if (strcmp(all[i].name, "Cast") == 0) {
            attr_type(n, "DstT", FL_DT_INT32);
        }
        run(n);
        assert_true(n->outputs[0].dtype != FL_DT_INVALID);
        fl_cost c = run_cost(n);
        assert_true(c.has_rule);
        if (!c.incomplete) {
            check_sym(c.flops, K(0));
        }
    }
}

/* ------------------------------------------------------------------------- */
/* End to end: through the importer and the shape engine                      */
/* ------------------------------------------------------------------------- */

static const char *node_shape(const fl_report *r, const char *name) {
    const fl_report_node *n = tg_find(r, name);
    assert_true(n->n_outputs >= 1);
    return n->outputs[0].shape;
}

static tg_node *tg_strided_slice(tg_graph *g, const char *name, const char *x, int64_t b,
                                 int64_t e) {
    char bn[64], en[64], sn[64];
    snprintf(bn, sizeof bn, "%s_b", name);
    snprintf(en, sizeof en, "%s_e", name);
    snprintf(sn, sizeof sn, "%s_s", name);
    tg_const_int(g, bn, 3, 1, (int64_t[]){1}, (int64_t[]){b});
    tg_const_int(g, en, 3, 1, (int64_t[]){1}, (int64_t[]){e});
    tg_const_int(g, sn, 3, 1, (int64_t[]){1}, (int64_t[]){1});
    tg_node *n = tg_add(g, name, "StridedSlice", x, bn, en, sn, NULL);
    tg_attr_type(n, "T", 3);
    tg_attr_type(n, "Index", 3);
    return n;
}

static tg_node *tg_cast(tg_graph *g, const char *name, const char *x, int src, int dst) {
    tg_node *n = tg_add(g, name, "Cast", x, NULL);
    tg_attr_type(n, "SrcT", src);
    tg_attr_type(n, "DstT", dst);
    return n;
}

/* The resize pattern of many graphs: size = int(float(shape[1:3]) * 0.5). */
static void test_e2e_resize_target(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 225, 224, 3});
    tg_attr_type(tg_add(g, "shape", "Shape", "x", NULL), "T", 1);
    tg_strided_slice(g, "hw", "shape", 1, 3);
    tg_cast(g, "hw_f", "hw", 3, 1);
    tg_const_f32(g, "half", 0, NULL, (float[]){0.5f}, 0);
    tg_attr_type(tg_add(g, "scaled", "Mul", "hw_f", "half", NULL), "T", 1);
    tg_cast(g, "size", "scaled", 1, 3);
    tg_node *rz = tg_add(g, "resize", "ResizeBilinear", "x", "size", NULL);
    tg_attr_type(rz, "T", 1);
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(node_shape(r, "scaled"), "[2]");
    /* 225 * 0.5 = 112.5 truncates to 112. */
    assert_string_equal(node_shape(r, "resize"), "[1,112,112,3]");
    /* Mul of 2 elements: 2 FLOPs in both conventions; Cast 2 / 0. */
    const fl_report_node *m = tg_find(r, "scaled");
    assert_true(m->flops.known && m->flops.value == 2);
    assert_true(m->tfprof_flops.known && m->tfprof_flops.value == 2);
    const fl_report_node *cst = tg_find(r, "size");
    assert_true(cst->flops.known && cst->flops.value == 2);
    assert_true(cst->tfprof_flops.known && cst->tfprof_flops.value == 0);
    fl_report_free(r);
    tg_free(g);
}

/* A symbolic batch survives Cast to float and back (no float arithmetic). */
static void test_e2e_symbolic_cast_round_trip(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 6});
    tg_attr_type(tg_add(g, "shape", "Shape", "x", NULL), "T", 1);
    tg_cast(g, "shape_f", "shape", 3, 1);
    tg_cast(g, "shape_i", "shape_f", 1, 3);
    tg_node *rs = tg_add(g, "reshaped", "Reshape", "x", "shape_i", NULL);
    tg_attr_type(rs, "T", 1);
    tg_attr_type(rs, "Tshape", 3);
    /* With a rounding Mul (by 0.1) in between the target is unknown. */
    tg_const_f32(g, "one", 0, NULL, (float[]){0.1f}, 0);
    tg_attr_type(tg_add(g, "shape_m", "Mul", "shape_f", "one", NULL), "T", 1);
    tg_cast(g, "shape_mi", "shape_m", 1, 3);
    tg_node *rs2 = tg_add(g, "reshaped2", "Reshape", "x", "shape_mi", NULL);
    tg_attr_type(rs2, "T", 1);
    tg_attr_type(rs2, "Tshape", 3);
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(node_shape(r, "reshaped"), "[x.0,6]");
    assert_string_equal(node_shape(r, "reshaped2"), "[?,?]");
    fl_report_free(r);
    tg_free(g);
}

/* Reductions and a binary op on a symbolic batch, then bound: x.0 = 3. */
static void test_e2e_reduction_costs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){-1, 8, 8, 16});
    tg_const_int(g, "axes", 3, 1, (int64_t[]){2}, (int64_t[]){1, 2});
    tg_node *mean = tg_add(g, "mean", "Mean", "x", "axes", NULL);
    tg_attr_type(mean, "T", 1);
    tg_attr_type(mean, "Tidx", 3);
    tg_attr_bool(mean, "keep_dims", 1);
    tg_node *sum = tg_add(g, "sum", "Sum", "x", "axes", NULL);
    tg_attr_type(sum, "T", 1);
    tg_attr_bool(sum, "keep_dims", 0);
    tg_attr_type(tg_add(g, "sq", "SquaredDifference", "x", "mean", NULL), "T", 1);
    fl_options opt;
    fl_options_init(&opt);
    opt.per_node = true;
    fl_symbol_binding b = {.name = "x.0", .value = 3};
    opt.symbols = &b;
    opt.n_symbols = 1;
    fl_report *r = tg_analyze(g, &opt);
    assert_string_equal(node_shape(r, "mean"), "[3,1,1,16]");
    assert_string_equal(node_shape(r, "sum"), "[3,16]");
    /* Mean: E(in) = 3072 in both; Sum: 3072 - 48 = 3024 in both;
     * SquaredDifference: 2 * E(out) = 6144 in both. */
    const fl_report_node *n = tg_find(r, "mean");
    assert_true(n->flops.known && n->flops.value == 3072);
    assert_true(n->tfprof_flops.known && n->tfprof_flops.value == 3072);
    n = tg_find(r, "sum");
    assert_true(n->flops.known && n->flops.value == 3024);
    assert_true(n->tfprof_flops.known && n->tfprof_flops.value == 3024);
    n = tg_find(r, "sq");
    assert_true(n->flops.known && n->flops.value == 6144);
    assert_true(n->tfprof_flops.known && n->tfprof_flops.value == 6144);
    fl_report_free(r);
    tg_free(g);
}

/* A graph TensorFlow rejects fails the analysis with the input named. */
static void test_e2e_bad_reduction_axis(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 3});
    tg_const_int(g, "axes", 3, 1, (int64_t[]){1}, (int64_t[]){2});
    tg_attr_type(tg_add(g, "sum", "Sum", "x", "axes", NULL), "T", 1);
    tg_expect_error(g, NULL, FL_EINVAL, "reduction_indices");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Xdivy, MulNoNan, Xlogy, Xlog1py                                            */
/* ------------------------------------------------------------------------- */

static void test_xdivy_values(void **state) {
    (void)state;
    /* 0 / anything = 0 (also 0 / 0 and 0 / NaN); else x / y, one rounding. */
    fl_node *d = OP("Xdivy", CF(0.0, 0.0, 0.0, 1.0, 1.0, -1.0, NAN, 1.0),
                    CF(0.0, NAN, 3.0, 3.0, 0.0, 0.0, 2.0, INFINITY));
    run(d);
    check_shape(d, "[8]");
    CHECK_FLOATS(d, 0.0, 0.0, 0.0, (double)(1.0f / 3.0f), INFINITY, -INFINITY, NAN, 0.0);
    /* -0 / y: the zero test holds, result +0. */
    fl_node *nz = OP("Xdivy", CF(-0.0), CF(-5.0));
    run(nz);
    CHECK_FLOATS(nz, 0.0);
    /* float64 keeps double precision; broadcasting [2,1] / [3]. */
    fl_node *b = OP("Xdivy", CFM(FL_DT_DOUBLE, 2, 1, 1.0, 0.0), CFV(FL_DT_DOUBLE, 2.0, 3.0, 0.0));
    run(b);
    check_shape(b, "[2,3]");
    CHECK_FLOATS(b, 0.5, 1.0 / 3.0, INFINITY, 0.0, 0.0, 0.0);
}

/* Numpy broadcasting of values over several dims, with size-1 dims between
 * others: each output element derived from its coordinates here. */
static void test_broadcast_eval_rank4(void **state) {
    (void)state;
    /* a [2,1,3,1] = 0..5, b [4,1,2] = 100 * j + l: Add -> [2,4,3,2] */
    fl_sym av[6], bv[8];
    for (int i = 0; i < 6; i++) {
        av[i] = K(i);
    }
    for (int j = 0; j < 4; j++) {
        for (int l = 0; l < 2; l++) {
            bv[j * 2 + l] = K(100 * j + l);
        }
    }
    fl_node *a = mk_const(FL_DT_INT64, 4, (int64_t[]){2, 1, 3, 1}, av, NULL);
    fl_node *b = mk_const(FL_DT_INT64, 3, (int64_t[]){4, 1, 2}, bv, NULL);
    fl_node *add = OP("Add", a, b);
    run(add);
    check_shape(add, "[2,4,3,2]");
    int64_t want[48];
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 4; j++) {
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < 2; l++) {
                    want[((i * 4 + j) * 3 + k) * 2 + l] = (i * 3 + k) + (100 * j + l);
                }
            }
        }
    }
    check_ints(add, 48, want);
    /* SelectV2 broadcasts all three: cond [2,1,1], x [1,3,1], y [4] -> [2,3,4] */
    fl_node *cond = mk_const(FL_DT_BOOL, 3, (int64_t[]){2, 1, 1}, (fl_sym[]){K(1), K(0)}, NULL);
    fl_node *x = mk_const(FL_DT_INT64, 3, (int64_t[]){1, 3, 1}, (fl_sym[]){K(7), K(8), K(9)}, NULL);
    fl_node *y = CIV(FL_DT_INT64, K(-1), K(-2), K(-3), K(-4));
    fl_node *sel = OP("SelectV2", cond, x, y);
    run(sel);
    check_shape(sel, "[2,3,4]");
    int64_t want_sel[24];
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
            for (int k = 0; k < 4; k++) {
                want_sel[(i * 3 + j) * 4 + k] = i == 0 ? 7 + j : -1 - k;
            }
        }
    }
    check_ints(sel, 24, want_sel);
}

/* Integer arithmetic of two inputs whose known and symbolic elements mix
 * under broadcasting: a known pair and a symbolic one are computed on
 * different paths, each element from its own broadcast index. */
static void test_int_eval_mixed_broadcast(void **state) {
    (void)state;
    /* a [2,2] = [[N, 6], [8, N + 1]], b [2] = [2, 3]: a * b, a - b */
    fl_node *a =
        mk_const(FL_DT_INT64, 2, (int64_t[]){2, 2}, (fl_sym[]){N, K(6), K(8), lin(1, 1)}, NULL);
    fl_node *b = CIV(FL_DT_INT64, K(2), K(3));
    fl_node *mul = OP("Mul", a, b);
    run(mul);
    check_shape(mul, "[2,2]");
    CHECK_SYMS(mul, lin(2, 0), K(18), K(16), lin(3, 3));
    fl_node *sub = OP("Sub", b, a);
    run(sub);
    CHECK_SYMS(sub, lin(-1, 2), K(-3), K(-6), lin(-1, 2));
    /* [2,1] FloorMod [3] -> [2,3], all known: each row its own dividend */
    fl_node *fm =
        OP("FloorMod", CIM(FL_DT_INT64, 2, 1, K(-7), K(9)), CIV(FL_DT_INT64, K(2), K(4), K(-5)));
    run(fm);
    CHECK_INTS(fm, 1, 1, -2, 1, 1, -1);
    /* a known element divided by 0 after a symbolic one: no value at all */
    fl_node *dz = OP("FloorDiv", CIV(FL_DT_INT64, N, K(4)), CIV(FL_DT_INT64, K(2), K(0)));
    run(dz);
    no_val(dz);
}

static void test_mul_no_nan_values(void **state) {
    (void)state;
    /* y == 0 -> 0 even when x is inf or NaN; else x * y (NaN y propagates). */
    fl_node *m = OP("MulNoNan", CF(INFINITY, NAN, 3.0, 2.0, -2.0, 0.0, INFINITY),
                    CF(0.0, -0.0, 0.5, NAN, 3.0, INFINITY, -1.0));
    run(m);
    CHECK_FLOATS(m, 0.0, 0.0, 1.5, NAN, -6.0, NAN, -INFINITY);
    /* float32 rounding of the product. */
    fl_node *r = OP("MulNoNan", CF(16777217.0), CF(1.0));
    run(r);
    CHECK_FLOATS(r, 16777216.0);
    fl_node *h = OP("MulNoNan", CFV(FL_DT_HALF, 3.0), CFV(FL_DT_HALF, 0.0));
    run(h);
    CHECK_FLOATS(h, 0.0);
}

static void test_xlogy_values(void **state) {
    (void)state;
    fl_node *l = OP("Xlogy", CF(0.0, 0.0, 2.0, 1.0, 1.0, 3.0), CF(0.0, NAN, 1.0, 0.0, -1.0, 2.0));
    run(l);
    double l2 = (double)(float)log(2.0);
    CHECK_FLOATS(l, 0.0, 0.0, 0.0, -INFINITY, NAN, (double)(float)(3.0 * l2));
    fl_node *l1 = OP("Xlog1py", CF(0.0, 2.0, 1.0, 4.0), CF(-1.0, 0.0, -1.0, 1.0));
    run(l1);
    double p2 = (double)(float)log1p(1.0);
    CHECK_FLOATS(l1, 0.0, 0.0, -INFINITY, (double)(float)(4.0 * p2));
}

/* TensorFlow defines these for float and complex T only: integer operands
 * get no value (and no crash). */
static void test_float_only_ops_no_int_value(void **state) {
    (void)state;
    const char *ops[] = {"Xdivy", "Xlogy", "Xlog1py", "MulNoNan"};
    for (size_t i = 0; i < 4; i++) {
        fl_node *n = OP(ops[i], CI32(K(4), K(0)), CI32(K(2), K(0)));
        run(n);
        check_dtype(n, FL_DT_INT32);
        no_val(n);
    }
}

static void test_new_binary_shapes_and_cost(void **state) {
    (void)state;
    const char *ops[] = {"Xdivy", "Xlogy", "Xlog1py", "MulNoNan"};
    for (size_t i = 0; i < 4; i++) {
        /* [N,4,1] op [3]: [N,4,3]; 12N FLOPs; tfprof has no rule. */
        fl_node *n = OP(ops[i], PH(N, K(4), K(1)), PH(K(3)));
        attr_type(n, "T", FL_DT_FLOAT);
        run(n);
        check_shape(n, "[N,4,3]");
        check_dtype(n, FL_DT_FLOAT);
        check_cost(n, lin(12, 0), K(0), false);
        /* Incompatible known dims: rejected like any broadcasting op. */
        infer_fails(OP(ops[i], PH(K(2)), PH(K(3))), "broadcast");
        /* Unknown rank: incomplete cost. */
        fl_node *u = OP(ops[i], PH_UNKNOWN(), PH(K(3)));
        run(u);
        check_incomplete(u);
    }
}

/* ------------------------------------------------------------------------- */
/* AccumulateNV2                                                              */
/* ------------------------------------------------------------------------- */

static void test_accumulate_n(void **state) {
    (void)state;
    /* Values: like AddN, rounding after every addition, in input order. */
    fl_node *a = OP("AccumulateNV2", CF(16777216.0, 1.0), CF(1.0, 2.0), CF(1.0, 3.0));
    attr_i(a, "N", 3);
    attr_shape(a, "shape", 1, (int64_t[]){2});
    run(a);
    check_shape(a, "[2]");
    CHECK_FLOATS(a, 16777216.0, 6.0); /* (2^24 + 1) rounds to 2^24 twice */
    fl_node *ai = OP("AccumulateNV2", CI32(K(INT32_MAX)), CI32(K(1)));
    attr_i(ai, "N", 2);
    attr_shape(ai, "shape", 1, (int64_t[]){1});
    run(ai);
    CHECK_INTS(ai, INT32_MIN); /* int32 wraps */
    /* Symbolic elements add like AddN. */
    fl_node *sy = OP("AccumulateNV2", CI32(N), CI32(K(2)));
    attr_i(sy, "N", 2);
    run(sy);
    CHECK_SYMS(sy, lin(1, 2));

    /* Shape: attr 'shape' (ExplicitShape), filled from the inputs. */
    fl_node *s = OP("AccumulateNV2", PH(N, U), PH(N, U));
    attr_i(s, "N", 2);
    attr_type(s, "T", FL_DT_FLOAT);
    attr_shape(s, "shape", 2, (int64_t[]){-1, 5});
    run(s);
    check_shape(s, "[N,5]");
    /* FLOPs: (N - 1) * E(out) = 5N; tfprof: no rule. */
    check_cost(s, lin(5, 0), K(0), false);
    fl_node *s3 = OP("AccumulateNV2", PH(K(2), K(3)), PH(K(2), K(3)), PH(K(2), K(3)));
    attr_i(s3, "N", 3);
    attr_shape(s3, "shape", -1, NULL);
    run(s3);
    check_shape(s3, "[2,3]");
    check_cost(s3, K(12), K(0), false);
    /* The attr disagrees with the inputs: rejected. */
    fl_node *bad = OP("AccumulateNV2", PH(K(2), K(3)), PH(K(2), K(3)));
    attr_i(bad, "N", 2);
    attr_shape(bad, "shape", 2, (int64_t[]){2, 4});
    infer_fails(bad, "shape");
    fl_node *badn = OP("AccumulateNV2", PH(K(2)), PH(K(2)));
    attr_i(badn, "N", 3);
    infer_fails(badn, "'N'");
}

/* ------------------------------------------------------------------------- */
/* Core: RandomShuffle, Case, resource variable updates                       */
/* ------------------------------------------------------------------------- */

static void test_random_shuffle(void **state) {
    (void)state;
    assert_true(fl__desc_RANDOM_SHUFFLE.flags & FL_OPF_STATEFUL);
    assert_null(fl__desc_RANDOM_SHUFFLE.eval);
    /* Its input's dtype and shape, never a value (stateful). */
    fl_node *r = OP("RandomShuffle", CI32(K(1), K(2), K(3)));
    run(r);
    check_shape(r, "[3]");
    check_dtype(r, FL_DT_INT32);
    no_val(r);
    fl_node *s = OP("RandomShuffle", PH(N, K(4)));
    run(s);
    check_shape(s, "[N,4]");
    /* Data movement: 0 FLOPs, a real rule; tfprof none. */
    check_cost(s, K(0), K(0), false);
}

static void test_case_descriptor(void **state) {
    (void)state;
    assert_true(fl__desc_CASE.flags & FL_OPF_FUNCTIONAL);
    assert_true(fl__desc_CASE.flags & FL_OPF_STATEFUL);
    assert_null(fl__desc_CASE.cost); /* work in the branch functions: no rule */
    assert_int_equal(fl__op_lookup("Case"), FL_OP_CASE);
    assert_int_equal(fl__desc_CASE.n_outputs, -1);
    assert_true(fl__desc_CASE.count_outputs == fl__desc_IF.count_outputs);
    assert_true(fl__desc_CASE.infer == fl__desc_IF.infer);
}

static fl_node *resource_update(const char *op, fl_node *value) {
    fl_node *h = PHT_SCALAR(FL_DT_RESOURCE);
    fl_node *n = fl__op_add_node(G, ib_name(op), op, &diag);
    assert_non_null(n);
    n->n_inputs = 2;
    n->inputs = fl__arena_calloc(&arena, 3, sizeof(fl_input));
    assert_non_null(n->inputs);
    n->inputs[0] = (fl_input){h, 0};
    n->inputs[1] = (fl_input){value, 0};
    assert_int_equal(n->desc->n_outputs, 0);
    return n;
}

static void test_resource_variable_updates(void **state) {
    (void)state;
    const char *ops[] = {"AssignAddVariableOp", "AssignSubVariableOp"};
    for (size_t i = 0; i < 2; i++) {
        const struct fl_op_desc *d = fl__op_desc_of(fl__op_lookup(ops[i]));
        assert_non_null(d);
        assert_true(d->flags & FL_OPF_STATEFUL);
        assert_int_equal(d->n_outputs, 0);
        fl_node *n = resource_update(ops[i], PH(N, K(3)));
        attr_type(n, "dtype", FL_DT_FLOAT);
        run(n);
        /* One add / subtract per element of the value: 3N; tfprof none. */
        check_cost(n, lin(3, 0), K(0), false);
        fl_node *u = resource_update(ops[i], PH_UNKNOWN());
        attr_type(u, "dtype", FL_DT_FLOAT);
        run(u);
        check_incomplete(u);
        /* attr dtype is required. */
        fl_node *bad = resource_update(ops[i], PH(K(3)));
        infer_fails(bad, "dtype");
    }
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_descriptors),
        T(test_unary_shapes_and_cost),
        T(test_unary_attrs),
        T(test_unary_eval),
        T(test_binary_broadcast),
        T(test_equal_incompatible),
        T(test_prelu),
        T(test_int_eval_known),
        T(test_int_eval_symbolic),
        T(test_float_eval_exact),
        T(test_resize_chain),
        T(test_cast),
        T(test_symbolic_float_steps),
        T(test_select),
        T(test_select_v2),
        T(test_add_n),
        T(test_clip),
        T(test_reduce_shapes),
        T(test_reduce_eval),
        T(test_arg_max),
        T(test_cumsum),
        T(test_zeros_ones_like),
        T(test_all_ops_unknown_inputs),
        T(test_e2e_resize_target),
        T(test_e2e_symbolic_cast_round_trip),
        T(test_e2e_reduction_costs),
        T(test_e2e_bad_reduction_axis),
        T(test_xdivy_values),
        T(test_broadcast_eval_rank4),
        T(test_int_eval_mixed_broadcast),
        T(test_mul_no_nan_values),
        T(test_xlogy_values),
        T(test_float_only_ops_no_int_value),
        T(test_new_binary_shapes_and_cost),
        T(test_accumulate_n),
        T(test_random_shuffle),
        T(test_case_descriptor),
        T(test_resource_variable_updates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
