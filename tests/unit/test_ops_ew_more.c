/*
 * test_ops_ew_more.c - the ops added to the registry for the constant-folding
 * rules (src/ops/ew.c, src/ops/core.c): Xdivy, Xlogy, Xlog1py, MulNoNan,
 * AccumulateNV2 (element-wise family) and RandomShuffle, Case,
 * AssignAddVariableOp, AssignSubVariableOp (core family). Shapes, FLOP
 * counts in both conventions, and evaluated values checked bit-exactly,
 * with TensorFlow's rules at zero, NaN and infinity: Xdivy(0, y) = 0 even for
 * y = 0 or NaN; MulNoNan(x, 0) = 0 even for x = inf or NaN; Xlogy(0, y) = 0.
 *
 * Same static builder as test_ops_ew.c: hooks run directly on IR nodes.
 */
#include "ops/common.h"
#include "testgraph.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_arena arena;
static fl_diag diag;
static fl_graph *G;
static fl_ctx ctx;
static int counter;
static fl_sym N; /* the symbol "N" */

static int setup(void **state) {
    (void)state;
    fl_arena_init(&arena, 0);
    fl_diag_init(&diag, &arena);
    G = fl_graph_new(&arena);
    if (!G) {
        return -1;
    }
    G->producer = 1000;
    ctx.g = G;
    ctx.st = G->syms;
    ctx.a = &arena;
    ctx.d = &diag;
    ctx.max_value_elems = 1 << 20;
    counter = 0;
    if (fl_sym_var(G->syms, "N", &N) != FL_OK) {
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    fl_arena_free(&arena);
    G = NULL;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Builder                                                                    */
/* ------------------------------------------------------------------------- */

#define K(x)          fl_sym_const(x)
#define U             fl_sym_unknown()
#define NARGS(T, ...) ((int)(sizeof((T[]){__VA_ARGS__}) / sizeof(T)))

static const char *auto_name(const char *prefix) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s_%d", prefix, counter++);
    return fl_arena_strdup(&arena, buf);
}

static fl_sym *sym_copy(int rank, const fl_sym *dims) {
    fl_sym *d = fl_arena_calloc(&arena, (size_t)(rank > 0 ? rank : 0) + 1, sizeof(fl_sym));
    assert_non_null(d);
    for (int i = 0; i < rank; i++) {
        d[i] = dims[i];
    }
    return d;
}

/* A placeholder of dtype dt and the given shape (rank < 0: unknown). */
static fl_node *ph_dims(int dt, int rank, const fl_sym *dims) {
    fl_node *n = fl_graph_add_node(G, auto_name("ph"), "Placeholder", &diag);
    assert_non_null(n);
    assert_int_equal(fl_node_alloc_outputs(G, n, 1), FL_OK);
    n->outputs[0].dtype = (fl_dtype)dt;
    n->outputs[0].shape.rank = rank;
    n->outputs[0].shape.dims = rank >= 0 ? sym_copy(rank, dims) : NULL;
    return n;
}

#define PH(...)        ph_dims(FL_DT_FLOAT, NARGS(fl_sym, __VA_ARGS__), (fl_sym[]){__VA_ARGS__})
#define PHT(dt, ...)   ph_dims(dt, NARGS(fl_sym, __VA_ARGS__), (fl_sym[]){__VA_ARGS__})
#define PH_SCALAR()    ph_dims(FL_DT_FLOAT, 0, NULL)
#define PHT_SCALAR(dt) ph_dims(dt, 0, NULL)
#define PH_UNKNOWN()   ph_dims(FL_DT_FLOAT, -1, NULL)

/* A constant of dtype dt and shape dims holding `vals` (integer/bool
 * dtypes: fl_sym elements; float dtypes: doubles rounded to the dtype). */
static fl_node *mk_const(int dt, int rank, const int64_t *dims, const fl_sym *ivals,
                         const double *fvals) {
    fl_node *n = fl_graph_add_node(G, auto_name("const"), "Const", &diag);
    assert_non_null(n);
    assert_int_equal(fl_node_alloc_outputs(G, n, 1), FL_OK);
    fl_sym *d = fl_arena_calloc(&arena, (size_t)rank + 1, sizeof(fl_sym));
    assert_non_null(d);
    for (int i = 0; i < rank; i++) {
        d[i] = K(dims[i]);
    }
    n->outputs[0].dtype = (fl_dtype)dt;
    n->outputs[0].shape.rank = rank;
    n->outputs[0].shape.dims = d;
    fl_value *v = fl_value_new(&arena, (fl_dtype)dt, rank, dims);
    assert_non_null(v);
    for (int64_t i = 0; i < v->n; i++) {
        if (v->ints) {
            ((fl_sym *)v->ints)[i] = ivals[i];
        } else {
            fl_value_set_f64(v, i, fvals[i]);
        }
    }
    n->outputs[0].value = v;
    return n;
}

/* Integer vector / scalar / matrix constants. */
#define CIV(dt, ...)                                                                               \
    mk_const(dt, 1, (int64_t[]){NARGS(fl_sym, __VA_ARGS__)}, (fl_sym[]){__VA_ARGS__}, NULL)
#define CI32(...)          CIV(FL_DT_INT32, __VA_ARGS__)
#define CIS(dt, x)         mk_const(dt, 0, NULL, (fl_sym[]){K(x)}, NULL)
#define CIM(dt, r, c, ...) mk_const(dt, 2, (int64_t[]){r, c}, (fl_sym[]){__VA_ARGS__}, NULL)
/* Float vectors / scalars of dtype dt. */
#define CFV(dt, ...)                                                                               \
    mk_const(dt, 1, (int64_t[]){NARGS(double, __VA_ARGS__)}, NULL, (double[]){__VA_ARGS__})
#define CF(...)            CFV(FL_DT_FLOAT, __VA_ARGS__)
#define CFS(dt, x)         mk_const(dt, 0, NULL, NULL, (double[]){x})
#define CFM(dt, r, c, ...) mk_const(dt, 2, (int64_t[]){r, c}, NULL, (double[]){__VA_ARGS__})

static fl_node *mk_op(const char *op, int n_in, fl_node *const *in) {
    fl_node *n = fl_graph_add_node(G, auto_name(op), op, &diag);
    assert_non_null(n);
    assert_non_null(n->desc);
    n->n_inputs = n_in;
    n->inputs = fl_arena_calloc(&arena, (size_t)n_in + 1, sizeof(fl_input));
    assert_non_null(n->inputs);
    for (int i = 0; i < n_in; i++) {
        n->inputs[i].node = in[i];
        n->inputs[i].port = 0;
    }
    assert_true(n->desc->n_outputs >= 1);
    assert_int_equal(fl_node_alloc_outputs(G, n, n->desc->n_outputs), FL_OK);
    return n;
}

#define OP(op, ...) mk_op(op, NARGS(fl_node *, __VA_ARGS__), (fl_node *[]){__VA_ARGS__})

static fl_attr *new_attr(fl_node *n, const char *name, fl_attr_kind kind) {
    fl_attr *a = fl_arena_grow(&arena, n->attrs, (size_t)n->n_attrs, (size_t)n->n_attrs + 1,
                               sizeof(fl_attr));
    assert_non_null(a);
    n->attrs = a;
    fl_attr *r = &a[n->n_attrs++];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->kind = kind;
    return r;
}

static void attr_i(fl_node *n, const char *name, int64_t v) {
    new_attr(n, name, FL_ATTR_I)->v.i = v;
}
static void attr_type(fl_node *n, const char *name, int v) {
    new_attr(n, name, FL_ATTR_TYPE)->v.type = v;
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
    fl_diag_init(&diag, &arena);
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

/* Infer must fail with FL_EINVAL and a message containing `what`. */
static void infer_fails(fl_node *n, const char *what) {
    fl_diag_init(&diag, &arena);
    fl_status st = n->desc->infer(&ctx, n);
    assert_int_equal(st, FL_EINVAL);
    assert_non_null(diag.msg);
    if (!strstr(diag.msg, what)) {
        fail_msg("message '%s' does not mention '%s'", diag.msg, what);
    }
}

static const char *sym_str(fl_sym s) {
    return fl_sym_to_str(&arena, s);
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
        fl_sym_format(s->dims[i], d, sizeof d);
        if (i) {
            strcat(buf, ",");
        }
        strcat(buf, d);
    }
    strcat(buf, "]");
    return fl_arena_strdup(&arena, buf);
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
    fl_diag_init(&diag, &arena);
    fl_status st = n->desc->cost(&ctx, n, &c);
    if (st != FL_OK) {
        fail_msg("cost of %s failed: %s", n->op, diag.msg ? diag.msg : "(no message)");
    }
    return c;
}

static void check_sym(fl_sym got, fl_sym want) {
    if (!fl_sym_eq(got, want)) {
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
    assert_int_equal(fl_sym_mul(G->syms, K(a), N, &r), FL_OK);
    assert_int_equal(fl_sym_add(G->syms, r, K(b), &r), FL_OK);
    return r;
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
        fl_sym s = fl_value_int(v, i);
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
        if (!fl_sym_eq(fl_value_int(v, i), want[i])) {
            fail_msg("%s element %d: got %s, want %s", n->name, i, sym_str(fl_value_int(v, i)),
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
        assert_true(fl_value_f64(v, i, &x));
        bool same =
            (isnan(x) && isnan(want[i])) || (x == want[i] && signbit(x) == signbit(want[i]));
        if (!same) {
            fail_msg("%s element %d: got %.17g, want %.17g", n->name, i, x, want[i]);
        }
    }
}

#define CHECK_FLOATS(n, ...) check_floats(n, NARGS(double, __VA_ARGS__), (double[]){__VA_ARGS__})

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

static void attr_shape(fl_node *n, const char *name, int rank, const int64_t *dims) {
    fl_attr *a = new_attr(n, name, FL_ATTR_SHAPE);
    a->v.shape.rank = rank;
    a->v.shape.dims = dims;
}

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
    assert_int_equal(fl_op_lookup("Case"), FL_OP_CASE);
    assert_int_equal(fl__desc_CASE.n_outputs, -1);
    assert_true(fl__desc_CASE.count_outputs == fl__desc_IF.count_outputs);
    assert_true(fl__desc_CASE.infer == fl__desc_IF.infer);
}

static fl_node *resource_update(const char *op, fl_node *value) {
    fl_node *h = PHT_SCALAR(FL_DT_RESOURCE);
    fl_node *n = fl_graph_add_node(G, auto_name(op), op, &diag);
    assert_non_null(n);
    n->n_inputs = 2;
    n->inputs = fl_arena_calloc(&arena, 3, sizeof(fl_input));
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
        const struct fl_op_desc *d = fl_op_desc_of(fl_op_lookup(ops[i]));
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
        T(test_xdivy_values),
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
