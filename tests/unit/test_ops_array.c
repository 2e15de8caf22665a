/*
 * test_ops_array.c - unit tests for the array op family (src/ops/array.c):
 * exact output shapes (known, symbolic, unknown), evaluated values (shape
 * subgraphs such as Shape -> StridedSlice -> Pack -> Reshape on a symbolic
 * batch), StridedSlice's mask semantics, bad attrs and inputs (FL_EINVAL
 * naming the attr or input), and the FLOP rules.
 *
 * Graphs are built as real GraphDef bytes with testgraph.h, imported and
 * shape-inferred through the internal API so that tensors and their values
 * can be inspected. Placeholder dims of -1 become the symbols "<name>.<axis>".
 */
#include "graph/graph.h"
#include "import/import.h"
#include "ops/common.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define I32 3
#define I64 9
#define F32 1

/* ------------------------------------------------------------------------- */
/* Harness                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct run {
    fl_arena a;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_status st;
} run;

static void run_graph(run *r, tg_graph *tg) {
    fl__arena_init(&r->a, 0);
    fl__diag_init(&r->d, &r->a);
    r->g = fl__graph_new(&r->a);
    assert_non_null(r->g);
    size_t len;
    uint8_t *packed = tg_pack(tg, &len);
    const uint8_t *buf = tg_keep(&r->a, packed, len);
    fl_import_opts o = {100000, 1 << 20, NULL};
    r->st = fl__import_graphdef(r->g, buf, len, &o, &r->d);
    if (r->st == FL_OK) {
        fl_options opt;
        fl_options_init(&opt);
        fl_infer_result res;
        r->c = (fl_ctx){r->g, r->g->syms, &r->a, &r->d, 1 << 20};
        r->st = fl__infer_shapes(&r->c, &opt, &res);
    }
}

/* Runs and asserts success. */
static void run_ok(run *r, tg_graph *tg) {
    run_graph(r, tg);
    if (r->st != FL_OK) {
        fail_msg("inference failed: %s: %s", fl_status_name(r->st), r->d.msg ? r->d.msg : "");
    }
}

static void run_free(run *r) {
    fl__arena_free(&r->a);
}

/* Runs expecting FL_EINVAL with a message containing `needle`. */
static void expect_einval(tg_graph *tg, const char *needle) {
    run r;
    run_graph(&r, tg);
    const char *msg = r.d.msg ? r.d.msg : "";
    if (r.st != FL_EINVAL || !strstr(msg, needle)) {
        char copy[512];
        snprintf(copy, sizeof copy, "%s", msg);
        fl_status st = r.st;
        run_free(&r);
        fail_msg("expected EINVAL with '%s', got %s: %s", needle, fl_status_name(st), copy);
    }
    run_free(&r);
}

static const fl_tensor *out_of(run *r, const char *name, int port) {
    fl_node *n = fl__graph_find(r->g, name);
    if (!n) {
        fail_msg("no node '%s'", name);
    }
    assert_true(port < n->n_outputs);
    return &n->outputs[port];
}

static void join_syms(char *buf, size_t cap, const fl_sym *s, int64_t k) {
    size_t used = 0;
    buf[0] = 0;
    for (int64_t i = 0; i < k && used + 1 < cap; i++) {
        if (i) {
            used += (size_t)snprintf(buf + used, cap - used, ", ");
        }
        if (used + 1 < cap) {
            used += fl__sym_format(s[i], buf + used, cap - used);
        }
    }
}

/* Shape of output `port` of `name` as "[a, b]" or "?" (unknown rank). */
static void assert_shape(run *r, const char *name, int port, const char *want) {
    const fl_tensor *t = out_of(r, name, port);
    char buf[512];
    if (t->shape.rank < 0) {
        snprintf(buf, sizeof buf, "?");
    } else {
        char inner[500];
        join_syms(inner, sizeof inner, t->shape.dims, t->shape.rank);
        snprintf(buf, sizeof buf, "[%s]", inner);
    }
    if (strcmp(buf, want) != 0) {
        fail_msg("%s:%d shape is %s, want %s", name, port, buf, want);
    }
}

static void assert_dtype(run *r, const char *name, int port, int dt) {
    assert_int_equal(out_of(r, name, port)->dtype, dt);
}

/* Integer value of output `port` as "a, b, c" (flat). */
static void assert_ints(run *r, const char *name, int port, const char *want) {
    const fl_tensor *t = out_of(r, name, port);
    if (!t->value || !t->value->ints) {
        fail_msg("%s:%d has no integer value (want %s)", name, port, want);
    }
    char buf[1024];
    join_syms(buf, sizeof buf, t->value->ints, t->value->n);
    if (strcmp(buf, want) != 0) {
        fail_msg("%s:%d value is {%s}, want {%s}", name, port, buf, want);
    }
}

static void assert_floats(run *r, const char *name, int port, const double *want, int64_t n) {
    const fl_tensor *t = out_of(r, name, port);
    if (!t->value) {
        fail_msg("%s:%d has no value", name, port);
    }
    assert_int_equal(t->value->n, n);
    for (int64_t i = 0; i < n; i++) {
        double x;
        assert_true(fl__value_f64(t->value, i, &x));
        if (x != want[i]) {
            fail_msg("%s:%d element %lld is %g, want %g", name, port, (long long)i, x, want[i]);
        }
    }
}

static void assert_no_value(run *r, const char *name, int port) {
    assert_null(out_of(r, name, port)->value);
}

/* Small builders. */
static tg_node *ph(tg_graph *g, const char *name, int rank, const int64_t *dims) {
    return tg_placeholder(g, name, F32, rank, dims);
}
static tg_node *ci(tg_graph *g, const char *name, int rank, const int64_t *dims,
                   const int64_t *vals) {
    return tg_const_int(g, name, I32, rank, dims, vals);
}
static tg_node *cscalar(tg_graph *g, const char *name, int64_t v) {
    return tg_const_int(g, name, I32, 0, NULL, (int64_t[]){v});
}
static tg_node *cvec(tg_graph *g, const char *name, int64_t n, const int64_t *vals) {
    return tg_const_int(g, name, I32, 1, (int64_t[]){n}, vals);
}
/* An int32 constant [0, 1, ..., prod(dims)-1] of the given shape. */
static tg_node *iota(tg_graph *g, const char *name, int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    int64_t *v = calloc((size_t)n + 1, sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        v[i] = i;
    }
    tg_node *c = ci(g, name, rank, dims, v);
    free(v);
    return c;
}

static tg_node *strided(tg_graph *g, const char *name, const char *in, const char *b, const char *e,
                        const char *s, int64_t bm, int64_t em, int64_t ell, int64_t na,
                        int64_t shrink) {
    tg_node *n = tg_add(g, name, "StridedSlice", in, b, e, s, NULL);
    tg_attr_type(n, "T", I32);
    tg_attr_type(n, "Index", I32);
    tg_attr_int(n, "begin_mask", bm);
    tg_attr_int(n, "end_mask", em);
    tg_attr_int(n, "ellipsis_mask", ell);
    tg_attr_int(n, "new_axis_mask", na);
    tg_attr_int(n, "shrink_axis_mask", shrink);
    return n;
}

/* ------------------------------------------------------------------------- */
/* Shape, Size, Rank, and the symbolic Shape->StridedSlice->Pack->Reshape chain */
/* ------------------------------------------------------------------------- */

static void test_shape_size_rank(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 4, (int64_t[]){-1, 7, 7, 64});
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "out_type", I64);
    tg_add(g, "s32", "Shape", "x", NULL);
    tg_add(g, "sz", "Size", "x", NULL);
    tg_add(g, "rk", "Rank", "x", NULL);
    tg_add(g, "sn", "ShapeN", "x", "s", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "s", 0, "[4]");
    assert_dtype(&r, "s", 0, FL_DT_INT64);
    assert_dtype(&r, "s32", 0, FL_DT_INT32);
    assert_ints(&r, "s", 0, "x.0, 7, 7, 64");
    /* 7*7*64 = 3136 */
    assert_shape(&r, "sz", 0, "[]");
    assert_ints(&r, "sz", 0, "3136*x.0");
    assert_ints(&r, "rk", 0, "4");
    assert_ints(&r, "sn", 0, "x.0, 7, 7, 64");
    assert_ints(&r, "sn", 1, "4");
    run_free(&r);
    tg_free(g);
}

static void test_shape_chain_reshape(void **state) {
    (void)state;
    /* Flatten as Keras writes it: Reshape(x, Pack(Shape(x)[0], -1)). */
    tg_graph *g = tg_new();
    ph(g, "x", 4, (int64_t[]){-1, 7, 7, 64});
    tg_add(g, "shape", "Shape", "x", NULL);
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "e", 1, (int64_t[]){1});
    cvec(g, "st", 1, (int64_t[]){1});
    strided(g, "batch", "shape", "b", "e", "st", 0, 0, 0, 0, 1);
    cscalar(g, "m1", -1);
    tg_node *p = tg_add(g, "pack", "Pack", "batch", "m1", NULL);
    tg_attr_int(p, "N", 2);
    tg_attr_type(p, "T", I32);
    tg_add(g, "flat", "Reshape", "x", "pack", NULL);
    /* The same with a slice kept as a vector and ConcatV2. */
    strided(g, "batchv", "shape", "b", "e", "st", 0, 0, 0, 0, 0);
    cvec(g, "rest", 2, (int64_t[]){49, -1});
    cscalar(g, "ax0", 0);
    tg_node *cc = tg_add(g, "cat", "ConcatV2", "batchv", "rest", "ax0", NULL);
    tg_attr_int(cc, "N", 2);
    tg_add(g, "r3", "Reshape", "x", "cat", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "batch", 0, "[]");
    assert_ints(&r, "batch", 0, "x.0");
    assert_ints(&r, "pack", 0, "x.0, -1");
    /* -1 = (x.0*7*7*64) / x.0 = 3136 exactly. */
    assert_shape(&r, "flat", 0, "[x.0, 3136]");
    assert_ints(&r, "batchv", 0, "x.0");
    assert_ints(&r, "cat", 0, "x.0, 49, -1");
    /* 3136*x.0 / (49*x.0) = 64 */
    assert_shape(&r, "r3", 0, "[x.0, 49, 64]");
    run_free(&r);
    tg_free(g);
}

static void test_reshape_partial_shape_tensor(void **state) {
    (void)state;
    /* Where gives [?, 2]: Shape has no value, but Reshape still sees
     * Pack(Shape(w)[0], 2) as [?, 2] through its producers. */
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){3, 4});
    tg_add(g, "w", "Where", "x", NULL);
    tg_add(g, "shape", "Shape", "w", NULL);
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "e", 1, (int64_t[]){1});
    cvec(g, "st", 1, (int64_t[]){1});
    strided(g, "n", "shape", "b", "e", "st", 0, 0, 0, 0, 1);
    cscalar(g, "two", 2);
    tg_add(g, "pack", "Pack", "n", "two", NULL);
    tg_add(g, "re", "Reshape", "w", "pack", NULL);
    cvec(g, "m1", 1, (int64_t[]){-1});
    tg_add(g, "flat", "Reshape", "w", "m1", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "w", 0, "[?, 2]");
    assert_dtype(&r, "w", 0, FL_DT_INT64);
    assert_no_value(&r, "shape", 0);
    assert_shape(&r, "n", 0, "[]");
    assert_no_value(&r, "pack", 0);
    assert_shape(&r, "re", 0, "[?, 2]");
    assert_shape(&r, "flat", 0, "[?]");
    run_free(&r);
    tg_free(g);
}

static void test_reshape_rules(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){6, 4});
    cvec(g, "s1", 3, (int64_t[]){3, -1, 2});
    tg_add(g, "r1", "Reshape", "x", "s1", NULL);
    /* A 0 in the shape means 0 (not "copy"): [0, 4] -> [2, 0, 3] is valid. */
    ph(g, "z", 2, (int64_t[]){0, 4});
    cvec(g, "s2", 3, (int64_t[]){2, 0, 3});
    tg_add(g, "r2", "Reshape", "z", "s2", NULL);
    cvec(g, "s3", 0, NULL);
    ph(g, "one", 2, (int64_t[]){1, 1});
    tg_add(g, "r3", "Reshape", "one", "s3", NULL);
    /* Values flow through: Reshape of a constant. */
    iota(g, "k", 2, (int64_t[]){2, 3});
    cvec(g, "s4", 1, (int64_t[]){-1});
    tg_add(g, "r4", "Reshape", "k", "s4", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "r1", 0, "[3, 4, 2]"); /* 24 / (3*2) = 4 */
    assert_shape(&r, "r2", 0, "[2, 0, 3]");
    assert_shape(&r, "r3", 0, "[]");
    assert_shape(&r, "r4", 0, "[6]");
    assert_ints(&r, "r4", 0, "0, 1, 2, 3, 4, 5");
    run_free(&r);
    tg_free(g);
}

static void test_reshape_errors(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 3});
    cvec(g, "s", 2, (int64_t[]){4, -1});
    tg_add(g, "r", "Reshape", "x", "s", NULL);
    expect_einval(g, "6 is not a multiple of 4");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 3});
    cvec(g, "s", 2, (int64_t[]){-1, -1});
    tg_add(g, "r", "Reshape", "x", "s", NULL);
    expect_einval(g, "input 'shape' can have at most one -1");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 3});
    cvec(g, "s", 2, (int64_t[]){4, 2});
    tg_add(g, "r", "Reshape", "x", "s", NULL);
    expect_einval(g, "cannot reshape a tensor of 6 elements into shape [4, 2] (8 elements)");
    tg_free(g);

    /* Symbolic and not provably divisible: unknown dim, no error. */
    g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 3});
    cvec(g, "s", 2, (int64_t[]){2, -1});
    tg_add(g, "r", "Reshape", "x", "s", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "r", 0, "[2, ?]");
    run_free(&r);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Squeeze, ExpandDims, Transpose                                             */
/* ------------------------------------------------------------------------- */

static void test_squeeze_expand_dims(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 4, (int64_t[]){1, -1, 1, 3});
    tg_node *s = tg_add(g, "sq", "Squeeze", "x", NULL);
    tg_attr_ints(s, "squeeze_dims", 2, (int64_t[]){0, -2});
    tg_add(g, "sq_all", "Squeeze", "x", NULL);
    cscalar(g, "m1", -1);
    cscalar(g, "z", 0);
    tg_add(g, "ed_last", "ExpandDims", "x", "m1", NULL);
    tg_add(g, "ed_first", "ExpandDims", "x", "z", NULL);
    iota(g, "k", 2, (int64_t[]){1, 3});
    tg_add(g, "ksq", "Squeeze", "k", NULL);
    tg_add(g, "ked", "ExpandDims", "ksq", "z", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "sq", 0, "[x.1, 3]");
    assert_shape(&r, "sq_all", 0, "[x.1, 3]"); /* symbolic dims are kept */
    assert_shape(&r, "ed_last", 0, "[1, x.1, 1, 3, 1]");
    assert_shape(&r, "ed_first", 0, "[1, 1, x.1, 1, 3]");
    assert_shape(&r, "ksq", 0, "[3]");
    assert_ints(&r, "ksq", 0, "0, 1, 2");
    assert_shape(&r, "ked", 0, "[1, 3]");
    assert_ints(&r, "ked", 0, "0, 1, 2");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){1, 3});
    s = tg_add(g, "sq", "Squeeze", "x", NULL);
    tg_attr_ints(s, "squeeze_dims", 1, (int64_t[]){1});
    expect_einval(g, "attr 'squeeze_dims': cannot squeeze dimension 1 of size 3");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){1, 3});
    s = tg_add(g, "sq", "Squeeze", "x", NULL);
    tg_attr_int(s, "squeeze_dims", 0);
    expect_einval(g, "attr 'squeeze_dims' must be list(int)");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){1, 3});
    cscalar(g, "d", 3);
    tg_add(g, "ed", "ExpandDims", "x", "d", NULL);
    expect_einval(g, "input 'dim' is 3, out of range for rank 2");
    tg_free(g);
}

static void test_transpose(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 3, (int64_t[]){-1, 3, 5});
    cvec(g, "perm", 3, (int64_t[]){2, 0, 1});
    tg_add(g, "t", "Transpose", "x", "perm", NULL);
    iota(g, "k", 2, (int64_t[]){2, 3});
    cvec(g, "p10", 2, (int64_t[]){1, 0});
    tg_add(g, "kt", "Transpose", "k", "p10", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "t", 0, "[5, x.0, 3]");
    assert_shape(&r, "kt", 0, "[3, 2]");
    /* [[0,1,2],[3,4,5]]^T = [[0,3],[1,4],[2,5]] */
    assert_ints(&r, "kt", 0, "0, 3, 1, 4, 2, 5");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 3, (int64_t[]){2, 3, 5});
    cvec(g, "perm", 3, (int64_t[]){0, 0, 1});
    tg_add(g, "t", "Transpose", "x", "perm", NULL);
    expect_einval(g, "input 'perm' is not a permutation");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* ConcatV2, Concat, Pack, Unpack, Split, SplitV                              */
/* ------------------------------------------------------------------------- */

static void test_concat(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, (int64_t[]){-1, 3});
    ph(g, "b", 2, (int64_t[]){-1, 5});
    ph(g, "c", 2, (int64_t[]){2, 3});
    cscalar(g, "m1", -1);
    cscalar(g, "z", 0);
    tg_add(g, "ab", "ConcatV2", "a", "b", "m1", NULL);
    tg_add(g, "ac", "ConcatV2", "a", "c", "z", NULL);
    tg_add(g, "v1", "Concat", "z", "a", "c", NULL);
    cvec(g, "k1", 2, (int64_t[]){1, 2});
    cvec(g, "k2", 1, (int64_t[]){3});
    tg_add(g, "kk", "ConcatV2", "k1", "k2", "z", NULL);
    iota(g, "m", 2, (int64_t[]){2, 2});
    tg_add(g, "mm", "ConcatV2", "m", "m", "m1", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "ab", 0, "[a.0, 8]");
    assert_shape(&r, "ac", 0, "[a.0 + 2, 3]");
    assert_shape(&r, "v1", 0, "[a.0 + 2, 3]");
    assert_ints(&r, "kk", 0, "1, 2, 3");
    assert_shape(&r, "mm", 0, "[2, 4]");
    assert_ints(&r, "mm", 0, "0, 1, 0, 1, 2, 3, 2, 3");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "a", 2, (int64_t[]){2, 3});
    ph(g, "b", 2, (int64_t[]){2, 4});
    cscalar(g, "z", 0);
    tg_add(g, "ab", "ConcatV2", "a", "b", "z", NULL);
    expect_einval(g, "dimension 1 of the concatenated inputs disagrees: 3 vs 4");
    tg_free(g);

    g = tg_new();
    ph(g, "a", 2, (int64_t[]){2, 3});
    cscalar(g, "z", 0);
    tg_node *n = tg_add(g, "ab", "ConcatV2", "a", "a", "z", NULL);
    tg_attr_int(n, "N", 3);
    expect_einval(g, "attr 'N' is 3 but the node has 2 inputs");
    tg_free(g);

    g = tg_new();
    ph(g, "a", 2, (int64_t[]){2, 3});
    cscalar(g, "z", 2);
    tg_add(g, "ab", "ConcatV2", "a", "a", "z", NULL);
    expect_einval(g, "input 'axis' is 2, out of range for rank 2");
    tg_free(g);
}

static void test_pack_unpack(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "a", 2, (int64_t[]){-1, 2});
    tg_node *p = tg_add(g, "p", "Pack", "a", "a", "a", NULL);
    tg_attr_int(p, "axis", 1);
    iota(g, "k", 2, (int64_t[]){3, 2});
    tg_node *u = tg_add(g, "u", "Unpack", "k", NULL);
    tg_attr_int(u, "num", 3);
    tg_node *u1 = tg_add(g, "u1", "Unpack", "k", NULL);
    tg_attr_int(u1, "num", 2);
    tg_attr_int(u1, "axis", -1);
    tg_node *pk = tg_add(g, "pk", "Pack", "u:2", "u:0", NULL);
    tg_attr_int(pk, "axis", 1);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "p", 0, "[a.0, 3, 2]");
    assert_shape(&r, "u", 2, "[2]");
    assert_ints(&r, "u", 0, "0, 1");
    assert_ints(&r, "u", 2, "4, 5");
    assert_shape(&r, "u1", 1, "[3]");
    assert_ints(&r, "u1", 1, "1, 3, 5");
    /* stack([4,5], [0,1]) along axis 1 = [[4,0],[5,1]] */
    assert_shape(&r, "pk", 0, "[2, 2]");
    assert_ints(&r, "pk", 0, "4, 0, 5, 1");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "a", 2, (int64_t[]){4, 2});
    u = tg_add(g, "u", "Unpack", "a", NULL);
    tg_attr_int(u, "num", 3);
    expect_einval(g, "attr 'num' is 3 but dimension 0 of the input has size 4");
    tg_free(g);
}

static void test_split(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 6});
    cscalar(g, "one", 1);
    cscalar(g, "zero", 0);
    tg_node *s = tg_add(g, "s", "Split", "one", "x", NULL);
    tg_attr_int(s, "num_split", 3);
    tg_node *s0 = tg_add(g, "s0", "Split", "zero", "x", NULL);
    tg_attr_int(s0, "num_split", 2);
    cvec(g, "sizes", 3, (int64_t[]){1, -1, 2});
    tg_node *sv = tg_add(g, "sv", "SplitV", "x", "sizes", "one", NULL);
    tg_attr_int(sv, "num_split", 3);
    cvec(g, "k", 6, (int64_t[]){10, 11, 12, 13, 14, 15});
    tg_node *ks = tg_add(g, "ks", "SplitV", "k", "sizes", "zero", NULL);
    tg_attr_int(ks, "num_split", 3);
    tg_node *k2 = tg_add(g, "k2", "Split", "zero", "k", NULL);
    tg_attr_int(k2, "num_split", 2);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "s", 0, "[x.0, 2]");
    assert_shape(&r, "s", 2, "[x.0, 2]");
    assert_shape(&r, "s0", 1, "[?, 6]");   /* x.0 / 2 is not exact */
    assert_shape(&r, "sv", 1, "[x.0, 3]"); /* 6 - 1 - 2 */
    assert_shape(&r, "sv", 2, "[x.0, 2]");
    assert_ints(&r, "ks", 0, "10");
    assert_ints(&r, "ks", 1, "11, 12, 13");
    assert_ints(&r, "ks", 2, "14, 15");
    assert_ints(&r, "k2", 1, "13, 14, 15");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){7, 6});
    cscalar(g, "zero", 0);
    s = tg_add(g, "s", "Split", "zero", "x", NULL);
    tg_attr_int(s, "num_split", 3);
    expect_einval(g, "size 7 is not divisible by attr 'num_split' 3");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){7, 6});
    cscalar(g, "zero", 0);
    s = tg_add(g, "s", "Split", "zero", "x", NULL);
    tg_attr_int(s, "num_split", 0);
    expect_einval(g, "attr 'num_split' is 0");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 1, (int64_t[]){6});
    cscalar(g, "zero", 0);
    cvec(g, "sizes", 2, (int64_t[]){1, 2});
    sv = tg_add(g, "sv", "SplitV", "x", "sizes", "zero", NULL);
    tg_attr_int(sv, "num_split", 2);
    expect_einval(g, "input 'size_splits' sums to 3 but dimension 0 has size 6");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Slice, StridedSlice                                                        */
/* ------------------------------------------------------------------------- */

static void test_slice(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 10});
    cvec(g, "b", 2, (int64_t[]){0, 2});
    cvec(g, "sz", 2, (int64_t[]){-1, 5});
    tg_add(g, "s", "Slice", "x", "b", "sz", NULL);
    cvec(g, "b1", 2, (int64_t[]){1, 3});
    cvec(g, "sz1", 2, (int64_t[]){-1, -1});
    tg_add(g, "s1", "Slice", "x", "b1", "sz1", NULL);
    iota(g, "k", 2, (int64_t[]){3, 4});
    cvec(g, "kb", 2, (int64_t[]){1, 1});
    cvec(g, "ksz", 2, (int64_t[]){2, -1});
    tg_add(g, "ks", "Slice", "k", "kb", "ksz", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "s", 0, "[x.0, 5]");
    assert_shape(&r, "s1", 0, "[x.0 - 1, 7]");
    assert_shape(&r, "ks", 0, "[2, 3]");
    assert_ints(&r, "ks", 0, "5, 6, 7, 9, 10, 11");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){4, 10});
    cvec(g, "b", 2, (int64_t[]){0, 8});
    cvec(g, "sz", 2, (int64_t[]){-1, 5});
    tg_add(g, "s", "Slice", "x", "b", "sz", NULL);
    expect_einval(g, "slice [8, 8 + 5) of dimension 1 exceeds its size 10");
    tg_free(g);
}

static void test_strided_slice_values(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    /* k = arange(24).reshape(2, 3, 4) */
    iota(g, "k", 3, (int64_t[]){2, 3, 4});
    /* k[1, :, ::-2] -> [[15, 13], [19, 17], [23, 21]] */
    cvec(g, "b1", 3, (int64_t[]){1, 0, 0});
    cvec(g, "e1", 3, (int64_t[]){2, 0, 0});
    cvec(g, "s1", 3, (int64_t[]){1, 1, -2});
    strided(g, "a", "k", "b1", "e1", "s1", 6, 6, 0, 0, 1);
    /* k[..., newaxis, 0] -> shape [2, 3, 1], values k[:, :, 0] */
    cvec(g, "b2", 3, (int64_t[]){0, 0, 0});
    cvec(g, "e2", 3, (int64_t[]){0, 0, 1});
    cvec(g, "s2", 3, (int64_t[]){1, 1, 1});
    strided(g, "bb", "k", "b2", "e2", "s2", 0, 0, 1, 2, 4);
    /* k[:, -2:10, -1]: negative begin, end clamped to 3 -> [[7, 11], [19, 23]] */
    cvec(g, "b3", 3, (int64_t[]){0, -2, -1});
    cvec(g, "e3", 3, (int64_t[]){0, 10, 0});
    strided(g, "cc", "k", "b3", "e3", "s2", 1, 1, 0, 0, 4);
    /* k[-1] with an implicit ellipsis at the end: shape [3, 4] */
    cvec(g, "b4", 1, (int64_t[]){-1});
    cvec(g, "e4", 1, (int64_t[]){0});
    cvec(g, "s4", 1, (int64_t[]){1});
    strided(g, "dd", "k", "b4", "e4", "s4", 0, 0, 0, 0, 1);
    /* k[1:0] is empty along dim 0; k[::-1, 2] reverses dim 0 */
    cvec(g, "b5", 1, (int64_t[]){1});
    strided(g, "ee", "k", "b5", "e4", "s4", 0, 0, 0, 0, 0);
    cvec(g, "b6", 2, (int64_t[]){0, 2});
    cvec(g, "e6", 2, (int64_t[]){0, 3});
    cvec(g, "s6", 2, (int64_t[]){-1, 1});
    strided(g, "ff", "k", "b6", "e6", "s6", 1, 1, 0, 0, 2);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "a", 0, "[3, 2]");
    assert_ints(&r, "a", 0, "15, 13, 19, 17, 23, 21");
    assert_shape(&r, "bb", 0, "[2, 3, 1]");
    assert_ints(&r, "bb", 0, "0, 4, 8, 12, 16, 20");
    assert_shape(&r, "cc", 0, "[2, 2]");
    assert_ints(&r, "cc", 0, "7, 11, 19, 23");
    assert_shape(&r, "dd", 0, "[3, 4]");
    assert_ints(&r, "dd", 0, "12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23");
    assert_shape(&r, "ee", 0, "[0, 3, 4]");
    assert_shape(&r, "ff", 0, "[2, 4]");
    assert_ints(&r, "ff", 0, "20, 21, 22, 23, 8, 9, 10, 11");
    run_free(&r);
    tg_free(g);
}

static void test_strided_slice_symbolic(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 10});
    cvec(g, "s1", 1, (int64_t[]){1});
    cvec(g, "s2", 1, (int64_t[]){2});
    cvec(g, "b0", 1, (int64_t[]){0});
    cvec(g, "b1", 1, (int64_t[]){1});
    cvec(g, "e1", 1, (int64_t[]){1});
    cvec(g, "em1", 1, (int64_t[]){-1});
    cvec(g, "b1000", 1, (int64_t[]){1000});
    strided(g, "first", "x", "b0", "e1", "s1", 0, 0, 0, 0, 0);  /* x[0:1] */
    strided(g, "inner", "x", "b1", "em1", "s1", 0, 0, 0, 0, 0); /* x[1:-1] */
    strided(g, "even", "x", "b0", "b0", "s2", 1, 1, 0, 0, 0);   /* x[::2] */
    strided(g, "last", "x", "em1", "b0", "s1", 0, 0, 0, 0, 1);  /* x[-1] */
    strided(g, "rev", "x", "b0", "b0", "em1", 1, 1, 0, 0, 0);   /* x[::-1] */
    strided(g, "big", "x", "b1000", "b0", "s1", 0, 1, 0, 0, 0); /* x[1000:] */
    cvec(g, "b2", 2, (int64_t[]){0, 2});
    cvec(g, "e2", 2, (int64_t[]){0, 8});
    cvec(g, "s23", 2, (int64_t[]){1, 3});
    strided(g, "cols", "x", "b2", "e2", "s23", 1, 1, 0, 0, 0); /* x[:, 2:8:3] */
    run r;
    run_ok(&r, g);
    assert_shape(&r, "first", 0, "[1, 10]");
    assert_shape(&r, "inner", 0, "[x.0 - 2, 10]");
    assert_shape(&r, "even", 0, "[ceil(x.0/2), 10]");
    assert_shape(&r, "last", 0, "[10]");
    assert_shape(&r, "rev", 0, "[x.0, 10]");
    assert_shape(&r, "cols", 0, "[x.0, 2]");
    /* exact: max(x.0 - min(1000, x.0), 0) */
    const fl_tensor *t = out_of(&r, "big", 0);
    assert_int_equal(t->shape.rank, 2);
    const char *names[1] = {"x.0"};
    int64_t vals[2] = {1500, 10};
    fl_sym v;
    assert_int_equal(fl__sym_subst(r.g->syms, t->shape.dims[0], 1, names, &vals[0], &v), FL_OK);
    assert_true(fl_sym_is_known(v));
    assert_int_equal(v.k, 500);
    assert_int_equal(fl__sym_subst(r.g->syms, t->shape.dims[0], 1, names, &vals[1], &v), FL_OK);
    assert_int_equal(v.k, 0);
    /* ceil(x.0/2) with x.0 = 225 is 113 */
    t = out_of(&r, "even", 0);
    int64_t h = 225;
    assert_int_equal(fl__sym_subst(r.g->syms, t->shape.dims[0], 1, names, &h, &v), FL_OK);
    assert_int_equal(v.k, 113);
    run_free(&r);
    tg_free(g);
}

static void test_strided_slice_errors(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){4, 10});
    cvec(g, "b", 1, (int64_t[]){5});
    cvec(g, "e", 1, (int64_t[]){6});
    cvec(g, "s", 1, (int64_t[]){1});
    strided(g, "ss", "x", "b", "e", "s", 0, 0, 0, 0, 1);
    expect_einval(g, "input 'begin': slice index 5 of dimension 0 out of bounds");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){4, 10});
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "s", 1, (int64_t[]){0});
    strided(g, "ss", "x", "b", "b", "s", 0, 0, 0, 0, 0);
    expect_einval(g, "strides[0] must be non-zero");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){4, 10});
    cvec(g, "b", 2, (int64_t[]){0, 0});
    cvec(g, "s", 2, (int64_t[]){1, 1});
    strided(g, "ss", "x", "b", "b", "s", 0, 0, 3, 0, 0);
    expect_einval(g, "attr 'ellipsis_mask' has more than one bit set");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 1, (int64_t[]){4});
    cvec(g, "b", 2, (int64_t[]){0, 0});
    cvec(g, "s", 2, (int64_t[]){1, 1});
    strided(g, "ss", "x", "b", "b", "s", 0, 0, 0, 0, 0);
    expect_einval(g, "index out of range using input dim 1");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 1, (int64_t[]){4});
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "s", 1, (int64_t[]){1});
    tg_node *n = tg_add(g, "ss", "StridedSlice", "x", "b", "b", "s", NULL);
    tg_attr_str(n, "end_mask", "no");
    expect_einval(g, "attr 'end_mask' must be int");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Gather, GatherV2, GatherNd                                                 */
/* ------------------------------------------------------------------------- */

static void test_gather(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "p", 2, (int64_t[]){5, -1});
    ci(g, "idx", 2, (int64_t[]){2, 3}, (int64_t[]){0, 1, 2, 3, 4, 0});
    cscalar(g, "a0", 0);
    cscalar(g, "a1", 1);
    tg_add(g, "g0", "GatherV2", "p", "idx", "a0", NULL);
    tg_add(g, "g1", "GatherV2", "p", "idx", "a1", NULL);
    tg_add(g, "gv1", "Gather", "p", "idx", NULL);
    ph(g, "q", 3, (int64_t[]){4, 5, 6});
    ph(g, "bi", 2, (int64_t[]){4, 2});
    tg_node *gb = tg_add(g, "gb", "GatherV2", "q", "bi", "a1", NULL);
    tg_attr_int(gb, "batch_dims", 1);
    ph(g, "ndi", 2, (int64_t[]){7, 2});
    tg_add(g, "gnd", "GatherNd", "q", "ndi", NULL);
    /* Values: the batch and channels of a symbolic shape. */
    ph(g, "x", 4, (int64_t[]){-1, 8, 8, 3});
    tg_add(g, "shape", "Shape", "x", NULL);
    cvec(g, "pick", 2, (int64_t[]){3, 0});
    tg_add(g, "nc", "GatherV2", "shape", "pick", "a0", NULL);
    iota(g, "k", 2, (int64_t[]){3, 2});
    ci(g, "kidx", 2, (int64_t[]){2, 2}, (int64_t[]){2, 1, 0, 0});
    tg_add(g, "knd", "GatherNd", "k", "kidx", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "g0", 0, "[2, 3, p.1]");
    assert_shape(&r, "g1", 0, "[5, 2, 3]");
    assert_shape(&r, "gv1", 0, "[2, 3, p.1]");
    assert_shape(&r, "gb", 0, "[4, 2, 6]");
    assert_shape(&r, "gnd", 0, "[7, 6]");
    assert_ints(&r, "nc", 0, "3, x.0");
    /* k = [[0,1],[2,3],[4,5]]: k[2,1] = 5, k[0,0] = 0 */
    assert_ints(&r, "knd", 0, "5, 0");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "p", 2, (int64_t[]){5, 4});
    ph(g, "i", 1, (int64_t[]){3});
    cscalar(g, "a", -3);
    tg_add(g, "g", "GatherV2", "p", "i", "a", NULL);
    expect_einval(g, "input 'axis' is -3, out of range for rank 2");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Pad, PadV2, MirrorPad, Tile, Fill                                          */
/* ------------------------------------------------------------------------- */

static void test_pad(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 4});
    ci(g, "pads", 2, (int64_t[]){2, 2}, (int64_t[]){1, 2, 0, 3});
    tg_add(g, "p", "Pad", "x", "pads", NULL);
    cvec(g, "k", 3, (int64_t[]){1, 2, 3});
    ci(g, "kp", 2, (int64_t[]){1, 2}, (int64_t[]){2, 2});
    ci(g, "kp1", 2, (int64_t[]){1, 2}, (int64_t[]){1, 0});
    cscalar(g, "nine", 9);
    tg_add(g, "pv2", "PadV2", "k", "kp1", "nine", NULL);
    tg_add(g, "p0", "Pad", "k", "kp1", NULL);
    tg_node *m = tg_add(g, "sym", "MirrorPad", "k", "kp", NULL);
    tg_attr_str(m, "mode", "SYMMETRIC");
    ci(g, "kpr", 2, (int64_t[]){1, 2}, (int64_t[]){2, 1});
    m = tg_add(g, "refl", "MirrorPad", "k", "kpr", NULL);
    tg_attr_str(m, "mode", "REFLECT");
    run r;
    run_ok(&r, g);
    assert_shape(&r, "p", 0, "[x.0 + 3, 7]");
    assert_ints(&r, "pv2", 0, "9, 1, 2, 3");
    assert_ints(&r, "p0", 0, "0, 1, 2, 3");
    assert_ints(&r, "sym", 0, "2, 1, 1, 2, 3, 3, 2");
    assert_ints(&r, "refl", 0, "3, 2, 1, 2, 3, 2");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    cvec(g, "k", 3, (int64_t[]){1, 2, 3});
    ci(g, "kp", 2, (int64_t[]){1, 2}, (int64_t[]){3, 0});
    m = tg_add(g, "refl", "MirrorPad", "k", "kp", NULL);
    tg_attr_str(m, "mode", "REFLECT");
    expect_einval(g, "must be at most 2 in REFLECT mode");
    tg_free(g);

    g = tg_new();
    cvec(g, "k", 3, (int64_t[]){1, 2, 3});
    ci(g, "kp", 2, (int64_t[]){1, 2}, (int64_t[]){1, 0});
    m = tg_add(g, "mp", "MirrorPad", "k", "kp", NULL);
    tg_attr_str(m, "mode", "CONSTANT");
    expect_einval(g, "attr 'mode' must be REFLECT or SYMMETRIC");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 4});
    ci(g, "pads", 2, (int64_t[]){3, 2}, (int64_t[]){1, 2, 0, 3, 0, 0});
    tg_add(g, "p", "Pad", "x", "pads", NULL);
    expect_einval(g, "input 'paddings' has 3 rows but the input has rank 2");
    tg_free(g);
}

static void test_tile_fill(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 3});
    cvec(g, "mul", 2, (int64_t[]){2, 1});
    tg_add(g, "t", "Tile", "x", "mul", NULL);
    cvec(g, "k", 2, (int64_t[]){1, 2});
    cvec(g, "m3", 1, (int64_t[]){3});
    tg_add(g, "kt", "Tile", "k", "m3", NULL);
    /* Fill([Shape(x)[0], 5], 7) */
    tg_add(g, "shape", "Shape", "x", NULL);
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "e", 1, (int64_t[]){1});
    strided(g, "n", "shape", "b", "e", "e", 0, 0, 0, 0, 1);
    cscalar(g, "five", 5);
    tg_add(g, "dims", "Pack", "n", "five", NULL);
    tg_add(g, "f", "Fill", "dims", "five", NULL);
    cvec(g, "d23", 2, (int64_t[]){2, 3});
    tg_add(g, "kf", "Fill", "d23", "five", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "t", 0, "[2*x.0, 3]");
    assert_ints(&r, "kt", 0, "1, 2, 1, 2, 1, 2");
    assert_shape(&r, "f", 0, "[x.0, 5]");
    assert_dtype(&r, "f", 0, FL_DT_INT32);
    assert_ints(&r, "kf", 0, "5, 5, 5, 5, 5, 5");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 3});
    cvec(g, "mul", 3, (int64_t[]){2, 1, 1});
    tg_add(g, "t", "Tile", "x", "mul", NULL);
    expect_einval(g, "input 'multiples' has 3 entries but the input has rank 2");
    tg_free(g);

    g = tg_new();
    cvec(g, "d", 2, (int64_t[]){2, -3});
    cscalar(g, "five", 5);
    tg_add(g, "f", "Fill", "d", "five", NULL);
    expect_einval(g, "input 'dims' has a negative dimension -3");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Range                                                                      */
/* ------------------------------------------------------------------------- */

static tg_node *range(tg_graph *g, const char *name, const char *s, const char *l, const char *d,
                      int dt) {
    tg_node *n = tg_add(g, name, "Range", s, l, d, NULL);
    tg_attr_type(n, "Tidx", dt);
    return n;
}

static void test_range(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    cscalar(g, "c0", 0);
    cscalar(g, "c1", 1);
    cscalar(g, "c10", 10);
    cscalar(g, "c3", 3);
    cscalar(g, "cm3", -3);
    cscalar(g, "c2", 2);
    range(g, "up", "c0", "c10", "c3", I32);    /* 0, 3, 6, 9 */
    range(g, "down", "c10", "c0", "cm3", I32); /* 10, 7, 4, 1 */
    range(g, "empty", "c3", "c3", "c1", I32);
    ph(g, "x", 2, (int64_t[]){-1, 4});
    tg_add(g, "shape", "Shape", "x", NULL);
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "e", 1, (int64_t[]){1});
    strided(g, "n", "shape", "b", "e", "e", 0, 0, 0, 0, 1);
    range(g, "rn", "c0", "n", "c1", I32);  /* [x.0] */
    range(g, "rn2", "c1", "n", "c2", I32); /* [ceil((x.0 - 1)/2)], canonically ceil((x.0+1)/2)-1 */
    range(g, "rsym", "n", "c10", "cm3", I32);
    float f0 = 0.0f, f1 = 1.0f, fq = 0.25f;
    tg_const_f32(g, "f0", 0, NULL, &f0, 0);
    tg_const_f32(g, "f1", 0, NULL, &f1, 0);
    tg_const_f32(g, "fq", 0, NULL, &fq, 0);
    range(g, "fr", "f0", "f1", "fq", F32);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "up", 0, "[4]");
    assert_ints(&r, "up", 0, "0, 3, 6, 9");
    assert_ints(&r, "down", 0, "10, 7, 4, 1");
    assert_shape(&r, "empty", 0, "[0]");
    assert_shape(&r, "rn", 0, "[x.0]");
    assert_shape(&r, "rn2", 0, "[ceil((x.0 + 1)/2) - 1]");
    /* ceil((x.0 - 10)/3), canonically ceil((x.0 + 2)/3) - 4; x.0 = 26 gives 6 */
    assert_shape(&r, "rsym", 0, "[ceil((x.0 + 2)/3) - 4]");
    {
        const char *names[1] = {"x.0"};
        int64_t x0 = 26;
        fl_sym v;
        assert_int_equal(
            fl__sym_subst(r.g->syms, out_of(&r, "rsym", 0)->shape.dims[0], 1, names, &x0, &v),
            FL_OK);
        assert_int_equal(v.k, 6);
        assert_int_equal(
            fl__sym_subst(r.g->syms, out_of(&r, "rn2", 0)->shape.dims[0], 1, names, &x0, &v),
            FL_OK);
        assert_int_equal(v.k, 13); /* ceil(25/2) */
    }
    assert_shape(&r, "fr", 0, "[4]");
    assert_floats(&r, "fr", 0, (const double[]){0, 0.25, 0.5, 0.75}, 4);
    run_free(&r);
    tg_free(g);

    g = tg_new();
    cscalar(g, "c0", 0);
    cscalar(g, "c10", 10);
    range(g, "r", "c0", "c10", "c0", I32);
    expect_einval(g, "input 'delta' must not be 0");
    tg_free(g);

    g = tg_new();
    cscalar(g, "c1", 1);
    cscalar(g, "c10", 10);
    range(g, "r", "c10", "c1", "c1", I32);
    expect_einval(g, "requires start <= limit when delta > 0: 10/1");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* BroadcastTo, BroadcastArgs, OneHot, SparseToDense                          */
/* ------------------------------------------------------------------------- */

static void test_broadcast(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){3, 1});
    cvec(g, "to", 3, (int64_t[]){2, 3, 4});
    tg_add(g, "bt", "BroadcastTo", "x", "to", NULL);
    cvec(g, "k", 2, (int64_t[]){7, 8});
    cvec(g, "to22", 2, (int64_t[]){2, 2});
    tg_add(g, "kb", "BroadcastTo", "k", "to22", NULL);
    ph(g, "y", 2, (int64_t[]){-1, 1});
    tg_add(g, "sy", "Shape", "y", NULL);
    cvec(g, "s15", 2, (int64_t[]){1, 5});
    tg_add(g, "ba", "BroadcastArgs", "sy", "s15", NULL);
    tg_add(g, "yb", "BroadcastTo", "y", "ba", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "bt", 0, "[2, 3, 4]");
    assert_ints(&r, "kb", 0, "7, 8, 7, 8");
    assert_shape(&r, "ba", 0, "[2]");
    assert_ints(&r, "ba", 0, "y.0, 5");
    assert_shape(&r, "yb", 0, "[y.0, 5]");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){3, 2});
    cvec(g, "to", 2, (int64_t[]){3, 4});
    tg_add(g, "bt", "BroadcastTo", "x", "to", NULL);
    expect_einval(g, "input dimension 1 of size 2 cannot be broadcast to 4");
    tg_free(g);

    g = tg_new();
    cvec(g, "a", 2, (int64_t[]){3, 2});
    cvec(g, "b", 1, (int64_t[]){4});
    tg_add(g, "ba", "BroadcastArgs", "a", "b", NULL);
    expect_einval(g, "incompatible shapes: 2 vs 4");
    tg_free(g);
}

static void test_one_hot_sparse_to_dense(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "i", I32, 1, (int64_t[]){-1});
    cscalar(g, "depth", 10);
    tg_const_f32(g, "on", 0, NULL, (float[]){1}, 0);
    tg_const_f32(g, "off", 0, NULL, (float[]){0}, 0);
    tg_add(g, "oh", "OneHot", "i", "depth", "on", "off", NULL);
    tg_node *o0 = tg_add(g, "oh0", "OneHot", "i", "depth", "on", "off", NULL);
    tg_attr_int(o0, "axis", 0);
    ph(g, "sv", 1, (int64_t[]){-1});
    tg_placeholder(g, "si", I32, 2, (int64_t[]){-1, 2});
    cvec(g, "osh", 2, (int64_t[]){3, 4});
    tg_add(g, "std", "SparseToDense", "si", "osh", "sv", "off", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "oh", 0, "[i.0, 10]");
    assert_dtype(&r, "oh", 0, FL_DT_FLOAT);
    assert_shape(&r, "oh0", 0, "[10, i.0]");
    assert_shape(&r, "std", 0, "[3, 4]");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    tg_placeholder(g, "i", I32, 1, (int64_t[]){-1});
    cscalar(g, "depth", -1);
    tg_const_f32(g, "on", 0, NULL, (float[]){1}, 0);
    tg_add(g, "oh", "OneHot", "i", "depth", "on", "on", NULL);
    expect_einval(g, "input 'depth' must be non-negative, got -1");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Where, ReverseV2, TopKV2, NonMaxSuppression, SpaceToBatchND                */
/* ------------------------------------------------------------------------- */

static void test_where_reverse_topk(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ci(g, "m", 2, (int64_t[]){2, 3}, (int64_t[]){1, 0, 0, 0, 2, 3});
    tg_add(g, "w", "Where", "m", NULL);
    ph(g, "x", 2, (int64_t[]){-1, 10});
    tg_add(g, "wx", "Where", "x", NULL);
    cvec(g, "ax", 1, (int64_t[]){-1});
    tg_add(g, "rv", "ReverseV2", "m", "ax", NULL);
    tg_add(g, "rx", "ReverseV2", "x", "ax", NULL);
    cscalar(g, "k3", 3);
    tg_add(g, "top", "TopKV2", "x", "k3", NULL);
    run r;
    run_ok(&r, g);
    /* non-zero at (0,0), (1,1), (1,2) */
    assert_shape(&r, "w", 0, "[3, 2]");
    assert_ints(&r, "w", 0, "0, 0, 1, 1, 1, 2");
    assert_shape(&r, "wx", 0, "[?, 2]");
    assert_ints(&r, "rv", 0, "0, 0, 1, 3, 2, 0");
    assert_shape(&r, "rx", 0, "[x.0, 10]");
    assert_shape(&r, "top", 0, "[x.0, 3]");
    assert_shape(&r, "top", 1, "[x.0, 3]");
    assert_dtype(&r, "top", 0, FL_DT_FLOAT);
    assert_dtype(&r, "top", 1, FL_DT_INT32);
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){-1, 10});
    cscalar(g, "k", 11);
    tg_add(g, "top", "TopKV2", "x", "k", NULL);
    expect_einval(g, "input must have at least k=11 columns, got 10");
    tg_free(g);

    g = tg_new();
    ph(g, "x", 2, (int64_t[]){2, 10});
    cvec(g, "ax", 2, (int64_t[]){1, -1});
    tg_add(g, "rx", "ReverseV2", "x", "ax", NULL);
    expect_einval(g, "input 'axis' names dimension 1 more than once");
    tg_free(g);
}

static void test_nms(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "boxes", 2, (int64_t[]){-1, 4});
    ph(g, "scores", 1, (int64_t[]){-1});
    cscalar(g, "max", 100);
    tg_const_f32(g, "iou", 0, NULL, (float[]){0.5f}, 0);
    tg_add(g, "v3", "NonMaxSuppressionV3", "boxes", "scores", "max", "iou", "iou", NULL);
    tg_node *v4 =
        tg_add(g, "v4", "NonMaxSuppressionV4", "boxes", "scores", "max", "iou", "iou", NULL);
    tg_attr_bool(v4, "pad_to_max_output_size", 1);
    tg_node *v5 =
        tg_add(g, "v5", "NonMaxSuppressionV5", "boxes", "scores", "max", "iou", "iou", "iou", NULL);
    tg_attr_bool(v5, "pad_to_max_output_size", 0);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "v3", 0, "[?]");
    assert_dtype(&r, "v3", 0, FL_DT_INT32);
    assert_shape(&r, "v4", 0, "[100]");
    assert_shape(&r, "v4", 1, "[]");
    assert_shape(&r, "v5", 0, "[?]");
    assert_shape(&r, "v5", 1, "[?]");
    assert_dtype(&r, "v5", 1, FL_DT_FLOAT);
    assert_shape(&r, "v5", 2, "[]");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "boxes", 2, (int64_t[]){-1, 5});
    ph(g, "scores", 1, (int64_t[]){-1});
    cscalar(g, "max", 100);
    tg_const_f32(g, "iou", 0, NULL, (float[]){0.5f}, 0);
    tg_add(g, "v3", "NonMaxSuppressionV3", "boxes", "scores", "max", "iou", "iou", NULL);
    expect_einval(g, "input 'boxes' must have 4 columns, got 5");
    tg_free(g);
}

static void test_space_batch(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 4, (int64_t[]){-1, 6, 4, 3});
    cvec(g, "block", 2, (int64_t[]){2, 2});
    ci(g, "pads", 2, (int64_t[]){2, 2}, (int64_t[]){1, 1, 0, 0});
    tg_add(g, "s2b", "SpaceToBatchND", "x", "block", "pads", NULL);
    ci(g, "crops", 2, (int64_t[]){2, 2}, (int64_t[]){1, 1, 0, 0});
    tg_add(g, "b2s", "BatchToSpaceND", "s2b", "block", "crops", NULL);
    run r;
    run_ok(&r, g);
    /* (6+1+1)/2 = 4, 4/2 = 2, batch 4*x.0 */
    assert_shape(&r, "s2b", 0, "[4*x.0, 4, 2, 3]");
    /* 4*x.0 / 4 = x.0, 4*2-2 = 6, 2*2 = 4 */
    assert_shape(&r, "b2s", 0, "[x.0, 6, 4, 3]");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    ph(g, "x", 4, (int64_t[]){1, 5, 4, 3});
    cvec(g, "block", 2, (int64_t[]){2, 2});
    ci(g, "pads", 2, (int64_t[]){2, 2}, (int64_t[]){0, 0, 0, 0});
    tg_add(g, "s2b", "SpaceToBatchND", "x", "block", "pads", NULL);
    expect_einval(g, "padded dimension 1 (5) is not divisible by the block size 2");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Unknown ranks never fail                                                   */
/* ------------------------------------------------------------------------- */

static void test_unknown_rank_inputs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "u", -1, NULL);
    tg_add(g, "shape", "Shape", "u", NULL);
    tg_add(g, "size", "Size", "u", NULL);
    cvec(g, "s", 2, (int64_t[]){-1, 4});
    tg_add(g, "re", "Reshape", "u", "s", NULL);
    cscalar(g, "z", 0);
    tg_add(g, "cat", "ConcatV2", "u", "u", "z", NULL);
    cvec(g, "perm", 3, (int64_t[]){1, 0, 2});
    tg_add(g, "tr", "Transpose", "u", "perm", NULL);
    tg_add(g, "sq", "Squeeze", "u", NULL);
    cvec(g, "b", 1, (int64_t[]){0});
    cvec(g, "e", 1, (int64_t[]){1});
    strided(g, "ss", "u", "b", "e", "e", 0, 0, 0, 0, 0);
    tg_add(g, "w", "Where", "u", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "shape", 0, "[?]");
    assert_no_value(&r, "size", 0);
    assert_shape(&r, "re", 0, "[?, 4]");
    assert_shape(&r, "cat", 0, "?");
    assert_shape(&r, "tr", 0, "[?, ?, ?]");
    assert_shape(&r, "sq", 0, "?");
    assert_shape(&r, "ss", 0, "?");
    assert_shape(&r, "w", 0, "[?, ?]");
    run_free(&r);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Edge cases: empty specs, scalars, zero-size dims                           */
/* ------------------------------------------------------------------------- */

static void test_edge_cases(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    iota(g, "k", 2, (int64_t[]){2, 3});
    cvec(g, "none", 0, NULL);
    /* An empty slice spec is an implicit ellipsis: the whole tensor. */
    strided(g, "all", "k", "none", "none", "none", 0, 0, 0, 0, 0);
    cscalar(g, "a", 4);
    cscalar(g, "b", 5);
    tg_node *p = tg_add(g, "pk", "Pack", "a", "b", "a", NULL);
    tg_attr_int(p, "axis", -1);
    cscalar(g, "z", 0);
    cscalar(g, "m1", -1);
    tg_add(g, "eds", "ExpandDims", "a", "m1", NULL);
    cvec(g, "m03", 2, (int64_t[]){0, 1});
    tg_add(g, "t0", "Tile", "k", "m03", NULL);
    cvec(g, "d0", 1, (int64_t[]){0});
    tg_add(g, "f0", "Fill", "d0", "a", NULL);
    ci(g, "empty", 1, (int64_t[]){0}, NULL);
    tg_add(g, "w0", "Where", "empty", NULL);
    tg_add(g, "sl0", "Slice", "a", "none", "none", NULL);
    tg_add(g, "one", "ConcatV2", "k", "z", NULL);
    ph(g, "e", 2, (int64_t[]){0, 3});
    tg_node *u = tg_add(g, "u0", "Unpack", "e", NULL);
    tg_attr_int(u, "num", 0);
    tg_add(g, "r0", "Range", "a", "a", "b", NULL);
    run r;
    run_ok(&r, g);
    assert_shape(&r, "all", 0, "[2, 3]");
    assert_ints(&r, "all", 0, "0, 1, 2, 3, 4, 5");
    assert_shape(&r, "pk", 0, "[3]");
    assert_ints(&r, "pk", 0, "4, 5, 4");
    assert_shape(&r, "eds", 0, "[1]");
    assert_ints(&r, "eds", 0, "4");
    assert_shape(&r, "t0", 0, "[0, 3]");
    assert_shape(&r, "f0", 0, "[0]");
    assert_shape(&r, "w0", 0, "[0, 1]");
    assert_shape(&r, "sl0", 0, "[]");
    assert_ints(&r, "sl0", 0, "4");
    assert_shape(&r, "one", 0, "[2, 3]");
    assert_ints(&r, "one", 0, "0, 1, 2, 3, 4, 5");
    assert_shape(&r, "r0", 0, "[0]");
    run_free(&r);
    tg_free(g);

    g = tg_new();
    cscalar(g, "a", 4);
    cvec(g, "i", 1, (int64_t[]){0});
    tg_add(g, "g", "Gather", "a", "i", NULL);
    expect_einval(g, "input 'params' must have rank >= 1");
    tg_free(g);

    g = tg_new();
    cscalar(g, "a", 4);
    cvec(g, "b", 1, (int64_t[]){0});
    strided(g, "s", "a", "b", "b", "b", 0, 0, 0, 0, 0);
    expect_einval(g, "attempting to slice scalar input");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* FLOP rules                                                                 */
/* ------------------------------------------------------------------------- */

static void test_cost(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    ph(g, "x", 2, (int64_t[]){4, 10});
    cvec(g, "s", 1, (int64_t[]){-1});
    tg_add(g, "re", "Reshape", "x", "s", NULL);
    cvec(g, "perm", 2, (int64_t[]){1, 0});
    tg_add(g, "tr", "Transpose", "x", "perm", NULL);
    tg_add(g, "w", "Where", "x", NULL);
    cscalar(g, "k", 3);
    tg_add(g, "top", "TopKV2", "x", "k", NULL);
    ph(g, "y", 2, (int64_t[]){-1, 10});
    tg_add(g, "wy", "Where", "y", NULL);
    tg_add(g, "shape", "Shape", "y", NULL);
    ph(g, "boxes", 2, (int64_t[]){-1, 4});
    ph(g, "scores", 1, (int64_t[]){-1});
    tg_add(g, "nms", "NonMaxSuppressionV3", "boxes", "scores", "k", "k", "k", NULL);
    fl_report *r = tg_analyze(g, NULL);
    const fl_report_node *n = tg_find(r, "re");
    assert_true(n->has_rule);
    assert_true(n->flops.known);
    assert_int_equal(n->flops.value, 0);
    assert_int_equal(n->tfprof_flops.value, 0);
    n = tg_find(r, "tr");
    assert_true(n->has_rule);
    assert_int_equal(n->flops.value, 0);
    n = tg_find(r, "shape");
    assert_true(n->has_rule);
    assert_int_equal(n->flops.value, 0);
    /* Where: one comparison per input element: 4*10 = 40 */
    n = tg_find(r, "w");
    assert_true(n->has_rule);
    assert_int_equal(n->flops.value, 40);
    assert_int_equal(n->tfprof_flops.value, 0);
    /* TopKV2: E(input) = 40 */
    n = tg_find(r, "top");
    assert_int_equal(n->flops.value, 40);
    /* symbolic: 10*y.0 */
    n = tg_find(r, "wy");
    assert_false(n->flops.known);
    assert_string_equal(n->flops.text, "10*y.0");
    n = tg_find(r, "nms");
    assert_false(n->has_rule);
    assert_int_equal(n->flops.value, 0);
    fl_report_free(r);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_size_rank),
        cmocka_unit_test(test_shape_chain_reshape),
        cmocka_unit_test(test_reshape_partial_shape_tensor),
        cmocka_unit_test(test_reshape_rules),
        cmocka_unit_test(test_reshape_errors),
        cmocka_unit_test(test_squeeze_expand_dims),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_pack_unpack),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_strided_slice_values),
        cmocka_unit_test(test_strided_slice_symbolic),
        cmocka_unit_test(test_strided_slice_errors),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_tile_fill),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_one_hot_sparse_to_dense),
        cmocka_unit_test(test_where_reverse_topk),
        cmocka_unit_test(test_nms),
        cmocka_unit_test(test_space_batch),
        cmocka_unit_test(test_unknown_rank_inputs),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
