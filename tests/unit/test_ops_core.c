/*
 * test_ops_core.c - the core op family (src/ops/core.c): Const and
 * placeholders, identity-like ops, v1 and functional control flow,
 * TensorArray and TensorList ops, random generators and variables.
 *
 * Graphs are built directly in the IR (a static builder below) so that tests
 * can look at tensors the way the driver leaves them, e.g. a Merge whose
 * NextIteration input is not inferred yet. One test imports the Grappler
 * while-loop graph of the corpus and runs the hooks in topological order to a
 * fixed point, as the driver does.
 */
#include "graph/graph.h"
#include "graph/mutate.h"
#include "import/import.h"
#include "ops/common.h"
#include "ops/ops.h"
#include "tensorflow/graph.pb-c.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Builder                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct fx {
    fl_arena a;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
} fx;

#define MAX_IN   8
#define MAX_ATTR 8
#define UNK      (-1) /* an unknown dim in expected shapes */

static fx *fx_new(void) {
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    fl__arena_init(&f->a, 0);
    fl__diag_init(&f->d, &f->a);
    f->g = fl__graph_new(&f->a);
    assert_non_null(f->g);
    f->g->producer = 1000;
    f->c.g = f->g;
    f->c.st = f->g->syms;
    f->c.a = &f->a;
    f->c.d = &f->d;
    f->c.max_value_elems = 1 << 16;
    return f;
}

static void fx_free(fx *f) {
    fl__arena_free(&f->a);
    free(f);
}

static void *zalloc(fx *f, size_t size) {
    void *p = fl__arena_zalloc(&f->a, size);
    assert_non_null(p);
    return p;
}

static fl_node *mk(fx *f, const char *name, const char *op) {
    fl_node *n = fl__op_add_node(f->g, name, op, &f->d);
    assert_non_null(n);
    n->inputs = zalloc(f, MAX_IN * sizeof(fl_input));
    n->attrs = zalloc(f, MAX_ATTR * sizeof(fl_attr));
    return n;
}

static void in(fl_node *n, fl_node *src, int port) {
    assert_true(n->n_inputs < MAX_IN);
    n->inputs[n->n_inputs].node = src;
    n->inputs[n->n_inputs].port = port;
    n->n_inputs++;
}

static fl_attr *attr(fl_node *n, const char *name, fl_attr_kind kind) {
    assert_true(n->n_attrs < MAX_ATTR);
    fl_attr *a = &n->attrs[n->n_attrs++];
    a->name = name;
    a->kind = kind;
    return a;
}

static void a_type(fl_node *n, const char *name, int dt) {
    attr(n, name, FL_ATTR_TYPE)->v.type = dt;
}

static void a_int(fl_node *n, const char *name, int64_t v) {
    attr(n, name, FL_ATTR_I)->v.i = v;
}

static void a_bool(fl_node *n, const char *name, bool v) {
    attr(n, name, FL_ATTR_B)->v.b = v;
}

static fl_shape_lit lit(fx *f, int rank, const int64_t *dims) {
    fl_shape_lit s = {rank, NULL};
    if (rank > 0) {
        int64_t *d = zalloc(f, (size_t)rank * sizeof(int64_t));
        memcpy(d, dims, (size_t)rank * sizeof(int64_t));
        s.dims = d;
    }
    return s;
}

static void a_shape(fx *f, fl_node *n, const char *name, int rank, const int64_t *dims) {
    attr(n, name, FL_ATTR_SHAPE)->v.shape = lit(f, rank, dims);
}

static void a_types(fx *f, fl_node *n, const char *name, size_t count, const int *types) {
    fl_attr *a = attr(n, name, FL_ATTR_LIST);
    a->list_kind = count ? FL_ATTR_TYPE : FL_ATTR_NONE;
    a->n = count;
    int *t = zalloc(f, (count + 1) * sizeof(int));
    memcpy(t, types, count * sizeof(int));
    a->v.list.type = t;
}

static void a_shapes(fx *f, fl_node *n, const char *name, size_t count,
                     const fl_shape_lit *shapes) {
    fl_attr *a = attr(n, name, FL_ATTR_LIST);
    a->list_kind = count ? FL_ATTR_SHAPE : FL_ATTR_NONE;
    a->n = count;
    fl_shape_lit *s = zalloc(f, (count + 1) * sizeof(fl_shape_lit));
    memcpy(s, shapes, count * sizeof(fl_shape_lit));
    a->v.list.shape = s;
}

/* Allocates the outputs as the importer does (n_outputs or count_outputs). */
static void finish(fx *f, fl_node *n) {
    assert_non_null(n->desc);
    int cnt = n->desc->n_outputs >= 0 ? n->desc->n_outputs : n->desc->count_outputs(n, &f->d);
    assert_true(cnt >= 0);
    assert_int_equal(fl__node_alloc_outputs(f->g, n, cnt), FL_OK);
}

static fl_status run(fx *f, fl_node *n) {
    return n->desc->infer(&f->c, n);
}

static void run_ok(fx *f, fl_node *n) {
    fl_status st = run(f, n);
    if (st != FL_OK) {
        fail_msg("infer of '%s' failed: %s", n->name, f->d.msg ? f->d.msg : "?");
    }
}

/* A producer of one tensor: an op foldline does not know, standing for any
 * earlier node. rank -1: unknown rank; dim -1: unknown dim. */
static fl_node *src(fx *f, const char *name, int dt, int rank, const int64_t *dims) {
    fl_node *n = mk(f, name, "TestSource");
    assert_int_equal(fl__node_alloc_outputs(f->g, n, 1), FL_OK);
    n->outputs[0].dtype = (fl_dtype)dt;
    n->outputs[0].shape.rank = rank;
    if (rank >= 0) {
        fl_sym *d = zalloc(f, (size_t)(rank + 1) * sizeof(fl_sym));
        for (int i = 0; i < rank; i++) {
            d[i] = (!dims || dims[i] < 0) ? fl_sym_unknown() : fl_sym_const(dims[i]);
        }
        n->outputs[0].shape.dims = d;
    }
    return n;
}

/* As src, with symbolic dims. */
static fl_node *src_sym(fx *f, const char *name, int dt, int rank, const fl_sym *dims) {
    fl_node *n = src(f, name, dt, rank, NULL);
    for (int i = 0; i < rank; i++) {
        ((fl_sym *)n->outputs[0].shape.dims)[i] = dims[i];
    }
    return n;
}

/* An int32 source with a known value (a vector, or a scalar when scalar). */
static fl_node *src_ints(fx *f, const char *name, bool scalar, int64_t count, const fl_sym *vals) {
    int64_t dims[1] = {count};
    fl_node *n = src(f, name, FL_DT_INT32, scalar ? 0 : 1, dims);
    fl_value *v = fl__value_new(&f->a, FL_DT_INT32, scalar ? 0 : 1, dims);
    assert_non_null(v);
    for (int64_t i = 0; i < count; i++) {
        ((fl_sym *)v->ints)[i] = vals[i];
    }
    n->outputs[0].value = v;
    return n;
}

static fl_sym var(fx *f, const char *name) {
    fl_sym s;
    assert_int_equal(fl__sym_var(f->g->syms, name, &s), FL_OK);
    return s;
}

static fl_sym K(int64_t k) {
    return fl_sym_const(k);
}

/* Asserts dtype and shape; UNK marks an unknown dim; rank -1 unknown rank. */
static void check(const fl_tensor *t, int dt, int rank, const int64_t *dims) {
    assert_int_equal(t->dtype, dt);
    assert_int_equal(t->shape.rank, rank);
    for (int i = 0; i < rank; i++) {
        fl_sym s = t->shape.dims[i];
        if (dims[i] == UNK) {
            assert_true(fl_sym_is_unknown(s));
        } else {
            assert_true(fl_sym_is_known(s));
            assert_int_equal(s.k, dims[i]);
        }
    }
}

/* Asserts a dim's canonical text ("x.0", "?", "12"). */
static void check_dim(const fl_tensor *t, int i, const char *text) {
    char buf[128];
    assert_true(i < t->shape.rank);
    fl__sym_format(t->shape.dims[i], buf, sizeof buf);
    assert_string_equal(buf, text);
}

static void expect_fail(fx *f, fl_node *n, const char *needle) {
    fl_status st = run(f, n);
    assert_int_equal(st, FL_EINVAL);
    assert_int_equal(f->d.status, FL_EINVAL);
    assert_non_null(f->d.msg);
    if (!strstr(f->d.msg, needle)) {
        fail_msg("message '%s' lacks '%s'", f->d.msg, needle);
    }
}

static fl_cost cost_of(fx *f, fl_node *n) {
    fl_cost c;
    memset(&c, 0xff, sizeof c); /* the hook must set every count and flag */
    assert_non_null(n->desc->cost);
    assert_int_equal(n->desc->cost(&f->c, n, &c), FL_OK);
    return c;
}

static void check_zero_cost(fx *f, fl_node *n) {
    fl_cost c = cost_of(f, n);
    assert_true(fl_sym_is_known(c.flops) && c.flops.k == 0);
    assert_true(fl_sym_is_known(c.tfprof_flops) && c.tfprof_flops.k == 0);
    assert_true(fl_sym_is_known(c.macs) && c.macs.k == 0);
    assert_true(c.has_rule);
    assert_false(c.tfprof_rule);
    assert_false(c.incomplete);
}

/* ------------------------------------------------------------------------- */
/* Const and placeholders                                                     */
/* ------------------------------------------------------------------------- */

static fl_const *mk_const_int(fx *f, int64_t n, const int64_t *vals) {
    fl_const *k = zalloc(f, sizeof(*k));
    int64_t dims[1] = {n};
    k->dtype = FL_DT_INT32;
    k->shape = lit(f, 1, dims);
    k->n = n;
    k->content_bytes = (uint64_t)n * 4;
    fl_value *v = fl__value_new(&f->a, FL_DT_INT32, 1, dims);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) {
        ((fl_sym *)v->ints)[i] = K(vals[i]);
    }
    k->value = v;
    return k;
}

static void test_const_full_value(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *c = mk(f, "c", "Const");
    a_type(c, "dtype", FL_DT_INT32);
    fl_const *k = mk_const_int(f, 3, (int64_t[]){1, 2, 3});
    attr(c, "value", FL_ATTR_TENSOR)->v.tensor = k;
    finish(f, c);
    run_ok(f, c);
    check(&c->outputs[0], FL_DT_INT32, 1, (int64_t[]){3});
    assert_ptr_equal(c->outputs[0].value, k->value);
    assert_int_equal(fl__value_int(c->outputs[0].value, 2).k, 3);
    assert_true(c->desc->flags & FL_OPF_NO_BYTES);
    assert_null(c->desc->eval);
    check_zero_cost(f, c);
    fx_free(f);
}

static void test_const_stripped(void **state) {
    (void)state;
    fx *f = fx_new();
    /* Stripped content: shape [64,3,3,3] kept, no value. */
    fl_node *w = mk(f, "w", "Const");
    a_type(w, "dtype", FL_DT_FLOAT);
    fl_const *k = zalloc(f, sizeof(*k));
    k->dtype = FL_DT_FLOAT;
    k->shape = lit(f, 4, (int64_t[]){64, 3, 3, 3});
    k->n = 1728;
    k->content_bytes = 6912;
    k->stripped = true;
    attr(w, "value", FL_ATTR_TENSOR)->v.tensor = k;
    w->flags |= FL_NODE_STRIPPED;
    finish(f, w);
    run_ok(f, w);
    check(&w->outputs[0], FL_DT_FLOAT, 4, (int64_t[]){64, 3, 3, 3});
    assert_null(w->outputs[0].value);

    /* The node flag alone also withholds a decoded value. */
    fl_node *c = mk(f, "c", "Const");
    a_type(c, "dtype", FL_DT_INT32);
    attr(c, "value", FL_ATTR_TENSOR)->v.tensor = mk_const_int(f, 2, (int64_t[]){7, 8});
    c->flags |= FL_NODE_STRIPPED;
    finish(f, c);
    run_ok(f, c);
    check(&c->outputs[0], FL_DT_INT32, 1, (int64_t[]){2});
    assert_null(c->outputs[0].value);
    fx_free(f);
}

static void test_const_bad_attrs(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *c = mk(f, "c", "Const");
    a_type(c, "dtype", FL_DT_FLOAT);
    attr(c, "value", FL_ATTR_TENSOR)->v.tensor = mk_const_int(f, 1, (int64_t[]){1});
    finish(f, c);
    expect_fail(f, c, "attr 'value' holds int32 data but attr 'dtype' is float");
    fx_free(f);

    f = fx_new();
    c = mk(f, "c", "Const");
    a_type(c, "dtype", FL_DT_FLOAT);
    finish(f, c);
    expect_fail(f, c, "attr 'value'");
    fx_free(f);

    f = fx_new();
    c = mk(f, "c", "Const");
    a_int(c, "dtype", 1); /* wrong kind */
    finish(f, c);
    expect_fail(f, c, "attr 'dtype'");
    fx_free(f);
}

static void test_placeholder_symbols(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *x = mk(f, "x", "Placeholder");
    a_type(x, "dtype", FL_DT_FLOAT);
    a_shape(f, x, "shape", 4, (int64_t[]){-1, 224, 224, 3});
    finish(f, x);
    run_ok(f, x);
    const fl_tensor *t = &x->outputs[0];
    assert_int_equal(t->dtype, FL_DT_FLOAT);
    assert_int_equal(t->shape.rank, 4);
    assert_true(fl_sym_is_symbolic(t->shape.dims[0]));
    check_dim(t, 0, "x.0");
    check_dim(t, 1, "224");
    check_dim(t, 3, "3");
    /* The symbol is the variable "x.0": binding it gives the batch. */
    const char *names[] = {"x.0"};
    int64_t vals[] = {8};
    fl_sym b;
    assert_int_equal(fl__sym_subst(f->g->syms, t->shape.dims[0], 1, names, vals, &b), FL_OK);
    assert_true(fl_sym_is_known(b));
    assert_int_equal(b.k, 8);
    assert_true(fl__sym_eq(t->shape.dims[0], var(f, "x.0")));

    /* Two free dims get one symbol per axis. */
    fl_node *y = mk(f, "in/y", "Placeholder");
    a_type(y, "dtype", FL_DT_INT32);
    a_shape(f, y, "shape", 3, (int64_t[]){-1, 5, -1});
    finish(f, y);
    run_ok(f, y);
    check_dim(&y->outputs[0], 0, "in/y.0");
    check_dim(&y->outputs[0], 1, "5");
    check_dim(&y->outputs[0], 2, "in/y.2");

    /* Unknown rank stays unknown; an absent shape attr too. */
    fl_node *z = mk(f, "z", "Placeholder");
    a_type(z, "dtype", FL_DT_FLOAT);
    a_shape(f, z, "shape", -1, NULL);
    finish(f, z);
    run_ok(f, z);
    check(&z->outputs[0], FL_DT_FLOAT, -1, NULL);
    fl_node *z2 = mk(f, "z2", "Placeholder");
    a_type(z2, "dtype", FL_DT_HALF);
    finish(f, z2);
    run_ok(f, z2);
    check(&z2->outputs[0], FL_DT_HALF, -1, NULL);

    assert_true(x->desc->flags & FL_OPF_NO_BYTES);
    check_zero_cost(f, x);
    fx_free(f);
}

static void test_placeholder_prebound_and_legacy(void **state) {
    (void)state;
    fx *f = fx_new();
    /* Bound by the driver (caller's input shape [2,7]): left alone. */
    fl_node *x = mk(f, "x", "Placeholder");
    a_type(x, "dtype", FL_DT_FLOAT);
    a_shape(f, x, "shape", 2, (int64_t[]){-1, 7});
    finish(f, x);
    fl_sym d[2] = {K(2), K(7)};
    assert_int_equal(fl__op_set_output(&f->c, x, 0, FL_DT_FLOAT, 2, d), FL_OK);
    run_ok(f, x);
    check(&x->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 7});

    /* A scalar shape attr: a scalar in current graphs... */
    fl_node *s = mk(f, "s", "Placeholder");
    a_type(s, "dtype", FL_DT_FLOAT);
    a_shape(f, s, "shape", 0, NULL);
    finish(f, s);
    run_ok(f, s);
    check(&s->outputs[0], FL_DT_FLOAT, 0, NULL);
    /* ...and "unknown" for GraphDef producer <= 21 (TensorFlow's legacy rule), a graph
     * imported from a GraphDef (g->src set: ONNX and TFLite graphs are never legacy). */
    Tensorflow__GraphDef gd;
    tensorflow__graph_def__init(&gd);
    f->g->src = &gd;
    f->g->producer = 21;
    s->outputs[0].dtype = FL_DT_INVALID;
    s->outputs[0].shape.rank = -1;
    run_ok(f, s);
    check(&s->outputs[0], FL_DT_FLOAT, -1, NULL);
    fx_free(f);

    /* Bad attrs. */
    f = fx_new();
    fl_node *b = mk(f, "b", "Placeholder");
    a_shape(f, b, "shape", 1, (int64_t[]){3});
    finish(f, b);
    expect_fail(f, b, "attr 'dtype'");
    fx_free(f);
    f = fx_new();
    b = mk(f, "b", "Placeholder");
    a_type(b, "dtype", FL_DT_FLOAT);
    a_shape(f, b, "shape", 2, (int64_t[]){3, -5});
    finish(f, b);
    expect_fail(f, b, "attr 'shape' has invalid dim -5 at axis 1");
    fx_free(f);
}

static void test_placeholder_with_default(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *d = src(f, "d", FL_DT_FLOAT, 2, (int64_t[]){2, 3});
    /* shape attr [-1, 3]: the default's 2 fills the free dim. */
    fl_node *p = mk(f, "p", "PlaceholderWithDefault");
    in(p, d, 0);
    a_type(p, "dtype", FL_DT_FLOAT);
    a_shape(f, p, "shape", 2, (int64_t[]){-1, 3});
    finish(f, p);
    run_ok(f, p);
    check(&p->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 3});
    assert_null(p->outputs[0].value);

    /* No shape attr: the default's shape. Unknown default: the attr's. */
    fl_node *q = mk(f, "q", "PlaceholderWithDefault");
    in(q, d, 0);
    a_type(q, "dtype", FL_DT_FLOAT);
    finish(f, q);
    run_ok(f, q);
    check(&q->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 3});
    fl_node *u = src(f, "u", FL_DT_FLOAT, -1, NULL);
    fl_node *r = mk(f, "r", "PlaceholderWithDefault");
    in(r, u, 0);
    a_type(r, "dtype", FL_DT_FLOAT);
    a_shape(f, r, "shape", 2, (int64_t[]){-1, 4});
    finish(f, r);
    run_ok(f, r);
    check(&r->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 4});

    /* A known dim that disagrees with the default: TensorFlow rejects it. */
    fl_node *bad = mk(f, "bad", "PlaceholderWithDefault");
    in(bad, d, 0);
    a_type(bad, "dtype", FL_DT_FLOAT);
    a_shape(f, bad, "shape", 2, (int64_t[]){4, 3});
    finish(f, bad);
    expect_fail(f, bad, "attr 'shape' has dim 4 at axis 0 but input 'input' has 2");
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* Identity-like ops                                                          */
/* ------------------------------------------------------------------------- */

static void test_identity_family(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_sym n = var(f, "N");
    fl_node *s = src_ints(f, "s", false, 3, (fl_sym[]){n, K(224), K(3)});
    const char *ops[] = {"Identity", "Snapshot", "StopGradient", "PreventGradient"};
    for (int i = 0; i < 4; i++) {
        fl_node *id = mk(f, ops[i], ops[i]);
        in(id, s, 0);
        a_type(id, "T", FL_DT_INT32);
        finish(f, id);
        run_ok(f, id);
        check(&id->outputs[0], FL_DT_INT32, 1, (int64_t[]){3});
        /* The value, symbolic element included, passes through. */
        assert_ptr_equal(id->outputs[0].value, s->outputs[0].value);
        assert_true(id->desc->flags & FL_OPF_ALIAS);
        id->outputs[0].value = NULL;
        assert_int_equal(id->desc->eval(&f->c, id), FL_OK);
        assert_ptr_equal(id->outputs[0].value, s->outputs[0].value);
        check_zero_cost(f, id);
    }

    /* Identity of a ref (VariableV2) outputs the plain dtype; symbols kept. */
    fl_node *r = src_sym(f, "r", FL_DT_FLOAT + FL_DT_REF_OFFSET, 2, (fl_sym[]){n, K(5)});
    fl_node *id = mk(f, "id_ref", "Identity");
    in(id, r, 0);
    finish(f, id);
    run_ok(f, id);
    assert_int_equal(id->outputs[0].dtype, FL_DT_FLOAT);
    assert_true(fl__sym_eq(id->outputs[0].shape.dims[0], n));
    assert_null(id->outputs[0].value);

    /* Unknown input: unknown output, never an error. */
    fl_node *u = src(f, "u", FL_DT_FLOAT, -1, NULL);
    fl_node *iu = mk(f, "iu", "Identity");
    in(iu, u, 0);
    finish(f, iu);
    run_ok(f, iu);
    check(&iu->outputs[0], FL_DT_FLOAT, -1, NULL);
    fx_free(f);
}

static void test_identity_n(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *a = src(f, "a", FL_DT_FLOAT, 2, (int64_t[]){4, UNK});
    fl_node *b = src_ints(f, "b", true, 1, (fl_sym[]){K(9)});
    fl_node *n = mk(f, "n", "IdentityN");
    in(n, a, 0);
    in(n, b, 0);
    a_types(f, n, "T", 2, (int[]){FL_DT_FLOAT, FL_DT_INT32});
    finish(f, n);
    assert_int_equal(n->n_outputs, 2);
    run_ok(f, n);
    check(&n->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){4, UNK});
    check(&n->outputs[1], FL_DT_INT32, 0, NULL);
    assert_ptr_equal(n->outputs[1].value, b->outputs[0].value);
    check_zero_cost(f, n);

    /* An input from an op foldline does not know (dtype invalid): the dtype
     * comes from the T list, the shape stays unknown. */
    fl_node *o = src(f, "opaque", FL_DT_INVALID, -1, NULL);
    fl_node *n2 = mk(f, "n2", "IdentityN");
    in(n2, a, 0);
    in(n2, o, 0);
    a_types(f, n2, "T", 2, (int[]){FL_DT_FLOAT, FL_DT_INT64});
    finish(f, n2);
    run_ok(f, n2);
    check(&n2->outputs[1], FL_DT_INT64, -1, NULL);

    /* T lists 3 types for 2 inputs: rejected, naming T. */
    fl_node *bad = mk(f, "bad", "IdentityN");
    in(bad, a, 0);
    in(bad, b, 0);
    a_types(f, bad, "T", 3, (int[]){FL_DT_FLOAT, FL_DT_INT32, FL_DT_INT32});
    finish(f, bad);
    assert_int_equal(bad->n_outputs, 3);
    expect_fail(f, bad, "attr 'T' lists 3 types but the node has 2 data inputs");
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* v1 control flow                                                            */
/* ------------------------------------------------------------------------- */

static void test_merge_back_edge(void **state) {
    (void)state;
    fx *f = fx_new();
    /* while loop: Merge(Enter [2,2] float, NextIteration not yet inferred). */
    fl_node *init = src(f, "init", FL_DT_FLOAT, 2, (int64_t[]){2, 2});
    fl_node *enter = mk(f, "enter", "Enter");
    in(enter, init, 0);
    a_type(enter, "T", FL_DT_FLOAT);
    attr(enter, "frame_name", FL_ATTR_S)->v.s = (fl_str){"loop", 4};
    a_bool(enter, "is_constant", false);
    finish(f, enter);
    run_ok(f, enter);
    check(&enter->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 2});

    fl_node *body = src(f, "body", FL_DT_INVALID, -1, NULL);
    fl_node *next = mk(f, "next", "NextIteration");
    in(next, body, 0);
    a_type(next, "T", FL_DT_FLOAT);
    finish(f, next); /* outputs: dtype invalid, rank -1 (not inferred) */

    fl_node *m = mk(f, "merge", "Merge");
    in(m, enter, 0);
    in(m, next, 0);
    a_type(m, "T", FL_DT_FLOAT);
    a_int(m, "N", 2);
    finish(f, m);
    m->flags |= FL_NODE_BACK_EDGE; /* as the topological sort marks a loop header */
    assert_int_equal(m->n_outputs, 2);
    /* The driver's first round: the back edge is not inferred yet, only the
     * Enter input counts and its shape is taken. */
    f->g->infer_first_round = true;
    run_ok(f, m);
    f->g->infer_first_round = false;
    check(&m->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 2});
    check(&m->outputs[1], FL_DT_INT32, 0, NULL);

    /* Later rounds count the back edge even when it was inferred as wholly
     * unknown (an op without a shape rule in the body, a NextIteration
     * without T): unknown rank, not the Enter's [2,2] alone. */
    fl_node *next_u = mk(f, "next_u", "NextIteration");
    in(next_u, body, 0);
    finish(f, next_u);
    fl_node *m_u = mk(f, "merge_u", "Merge");
    in(m_u, enter, 0);
    in(m_u, next_u, 0);
    a_int(m_u, "N", 2);
    finish(f, m_u);
    f->g->infer_first_round = true;
    run_ok(f, m_u);
    run_ok(f, next_u);
    f->g->infer_first_round = false;
    check(&m_u->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 2});
    check(&next_u->outputs[0], FL_DT_INVALID, -1, NULL);
    run_ok(f, m_u);
    check(&m_u->outputs[0], FL_DT_FLOAT, -1, NULL);

    /* The body concatenates along axis 0: the back edge brings [4,2]. */
    body->outputs[0].dtype = FL_DT_FLOAT;
    body->outputs[0].shape.rank = 2;
    body->outputs[0].shape.dims = zalloc(f, 2 * sizeof(fl_sym));
    ((fl_sym *)body->outputs[0].shape.dims)[0] = K(4);
    ((fl_sym *)body->outputs[0].shape.dims)[1] = K(2);
    run_ok(f, next);
    check(&next->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){4, 2});
    run_ok(f, m);
    check(&m->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 2});

    /* A back edge of another rank: unknown rank. */
    body->outputs[0].shape.rank = 1;
    run_ok(f, next);
    run_ok(f, m);
    check(&m->outputs[0], FL_DT_FLOAT, -1, NULL);

    /* No input inferred at all: dtype from attr T, unknown shape. */
    fl_node *none = src(f, "none", FL_DT_INVALID, -1, NULL);
    fl_node *m2 = mk(f, "merge2", "Merge");
    in(m2, none, 0);
    a_type(m2, "T", FL_DT_INT32);
    finish(f, m2);
    run_ok(f, m2);
    check(&m2->outputs[0], FL_DT_INT32, -1, NULL);

    assert_true(m->desc->flags & FL_OPF_CONTROL_FLOW);
    check_zero_cost(f, m);
    fx_free(f);
}

static void test_merge_symbols_and_values(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_sym n = var(f, "N");
    /* Two branches of a cond, both [N, 3]: the symbol survives. */
    fl_node *a = src_sym(f, "a", FL_DT_FLOAT, 2, (fl_sym[]){n, K(3)});
    fl_node *b = src_sym(f, "b", FL_DT_FLOAT, 2, (fl_sym[]){n, K(3)});
    fl_node *m = mk(f, "m", "Merge");
    in(m, a, 0);
    in(m, b, 0);
    finish(f, m);
    run_ok(f, m);
    check_dim(&m->outputs[0], 0, "N");
    check_dim(&m->outputs[0], 1, "3");

    /* Values: equal on all inputs -> kept; different or one missing -> none. */
    fl_node *v1 = src_ints(f, "v1", false, 2, (fl_sym[]){n, K(7)});
    fl_node *v2 = src_ints(f, "v2", false, 2, (fl_sym[]){n, K(7)});
    fl_node *v3 = src_ints(f, "v3", false, 2, (fl_sym[]){n, K(8)});
    fl_node *mv = mk(f, "mv", "Merge");
    in(mv, v1, 0);
    in(mv, v2, 0);
    finish(f, mv);
    run_ok(f, mv);
    assert_non_null(mv->outputs[0].value);
    assert_true(fl__sym_eq(fl__value_int(mv->outputs[0].value, 0), n));
    fl_node *md = mk(f, "md", "Merge");
    in(md, v1, 0);
    in(md, v3, 0);
    finish(f, md);
    run_ok(f, md);
    check(&md->outputs[0], FL_DT_INT32, 1, (int64_t[]){2});
    assert_null(md->outputs[0].value);
    fl_node *later = src(f, "later", FL_DT_INVALID, -1, NULL);
    fl_node *ml = mk(f, "ml", "Merge");
    in(ml, v1, 0);
    in(ml, later, 0);
    finish(f, ml);
    run_ok(f, ml);
    assert_null(ml->outputs[0].value);
    fx_free(f);
}

static void test_switch_exit_loop_cond(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *x = src(f, "x", FL_DT_FLOAT, 3, (int64_t[]){UNK, 16, 16});
    fl_node *p = src(f, "p", FL_DT_BOOL, 0, NULL);
    fl_node *lc = mk(f, "lc", "LoopCond");
    in(lc, p, 0);
    finish(f, lc);
    run_ok(f, lc);
    check(&lc->outputs[0], FL_DT_BOOL, 0, NULL);

    fl_node *sw = mk(f, "sw", "Switch");
    in(sw, x, 0);
    in(sw, lc, 0);
    a_type(sw, "T", FL_DT_FLOAT);
    finish(f, sw);
    run_ok(f, sw);
    check(&sw->outputs[0], FL_DT_FLOAT, 3, (int64_t[]){UNK, 16, 16});
    check(&sw->outputs[1], FL_DT_FLOAT, 3, (int64_t[]){UNK, 16, 16});

    fl_node *ex = mk(f, "ex", "Exit");
    in(ex, sw, 0);
    finish(f, ex);
    run_ok(f, ex);
    check(&ex->outputs[0], FL_DT_FLOAT, 3, (int64_t[]){UNK, 16, 16});

    /* RefSwitch/RefEnter keep the _ref dtype; Switch strips it. */
    fl_node *rv = src(f, "rv", FL_DT_FLOAT + FL_DT_REF_OFFSET, 1, (int64_t[]){5});
    fl_node *rs = mk(f, "rs", "RefSwitch");
    in(rs, rv, 0);
    in(rs, p, 0);
    finish(f, rs);
    run_ok(f, rs);
    check(&rs->outputs[1], FL_DT_FLOAT + FL_DT_REF_OFFSET, 1, (int64_t[]){5});
    fl_node *re = mk(f, "re", "RefEnter");
    in(re, rv, 0);
    finish(f, re);
    run_ok(f, re);
    check(&re->outputs[0], FL_DT_FLOAT + FL_DT_REF_OFFSET, 1, (int64_t[]){5});
    fl_node *s2 = mk(f, "s2", "Switch");
    in(s2, rv, 0);
    in(s2, p, 0);
    finish(f, s2);
    run_ok(f, s2);
    check(&s2->outputs[0], FL_DT_FLOAT, 1, (int64_t[]){5});

    /* A vector predicate is rejected, naming the input. */
    fl_node *pv = src(f, "pv", FL_DT_BOOL, 1, (int64_t[]){2});
    fl_node *bad = mk(f, "bad", "Switch");
    in(bad, x, 0);
    in(bad, pv, 0);
    finish(f, bad);
    expect_fail(f, bad, "input 'pred' must be a scalar, got rank 1");
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* Functional control flow and calls                                          */
/* ------------------------------------------------------------------------- */

static void test_functional_while(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_sym n = var(f, "N");
    fl_node *i0 = src(f, "i0", FL_DT_INT32, 0, NULL);
    fl_node *x0 = src_sym(f, "x0", FL_DT_FLOAT, 2, (fl_sym[]){n, K(2)});
    /* Without output_shapes: the loop inputs' shapes. */
    fl_node *w = mk(f, "w", "While");
    in(w, i0, 0);
    in(w, x0, 0);
    a_types(f, w, "T", 2, (int[]){FL_DT_INT32, FL_DT_FLOAT});
    finish(f, w);
    assert_int_equal(w->n_outputs, 2);
    run_ok(f, w);
    check(&w->outputs[0], FL_DT_INT32, 0, NULL);
    check_dim(&w->outputs[1], 0, "N");
    check_dim(&w->outputs[1], 1, "2");
    assert_true(w->desc->flags & FL_OPF_FUNCTIONAL);
    /* A While the importer did not lower (no attr _loop): its body is in
     * the library, so it has no rule; lowered, its body is in the graph and
     * it counts 0 with a rule (src/import/funcinline.c). */
    fl_cost k;
    memset(&k, 0, sizeof k);
    assert_int_equal(w->desc->cost(&f->c, w, &k), FL_OK);
    assert_false(k.has_rule);
    fl_attr lw = fl__attr_make_str(f->g, "_loop", "w");
    assert_int_equal(fl__node_set_attr(f->g, w, &lw), FL_OK);
    assert_int_equal(w->desc->cost(&f->c, w, &k), FL_OK);
    assert_true(k.has_rule);
    assert_int_equal(k.flops.k, 0);
    assert_null(k.flops.e);

    /* With output_shapes [[], [-1, 2]]: the invariants win. */
    fl_node *w2 = mk(f, "w2", "StatelessWhile");
    in(w2, i0, 0);
    in(w2, x0, 0);
    a_types(f, w2, "T", 2, (int[]){FL_DT_INT32, FL_DT_FLOAT});
    fl_shape_lit shapes[2] = {lit(f, 0, NULL), lit(f, 2, (int64_t[]){-1, 2})};
    a_shapes(f, w2, "output_shapes", 2, shapes);
    finish(f, w2);
    run_ok(f, w2);
    check(&w2->outputs[0], FL_DT_INT32, 0, NULL);
    check(&w2->outputs[1], FL_DT_FLOAT, 2, (int64_t[]){UNK, 2});
    assert_ptr_equal(w2->desc->cost, w->desc->cost); /* StatelessWhile: as While */

    /* Bad: output_shapes of the wrong length; T not matching the inputs. */
    fl_node *b1 = mk(f, "b1", "While");
    in(b1, i0, 0);
    in(b1, x0, 0);
    a_types(f, b1, "T", 2, (int[]){FL_DT_INT32, FL_DT_FLOAT});
    a_shapes(f, b1, "output_shapes", 1, shapes);
    finish(f, b1);
    expect_fail(f, b1, "attr 'output_shapes' has 1 entries but attr 'T' has 2");
    fx_free(f);

    f = fx_new();
    i0 = src(f, "i0", FL_DT_INT32, 0, NULL);
    fl_node *b2 = mk(f, "b2", "While");
    in(b2, i0, 0);
    a_types(f, b2, "T", 2, (int[]){FL_DT_INT32, FL_DT_FLOAT});
    finish(f, b2);
    expect_fail(f, b2, "attr 'T' lists 2 types but the node has 1 data inputs");
    fx_free(f);

    /* Missing T: count_outputs fails naming it. */
    f = fx_new();
    fl_node *b3 = mk(f, "b3", "While");
    assert_int_equal(b3->desc->count_outputs(b3, &f->d), -1);
    assert_non_null(strstr(f->d.msg, "attr 'T'"));
    fx_free(f);
}

static void test_if_and_calls(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *p = src(f, "p", FL_DT_BOOL, 0, NULL);
    fl_node *x = src(f, "x", FL_DT_FLOAT, 2, (int64_t[]){3, 4});
    /* If without output_shapes: unknown shapes of the Tout dtypes. */
    fl_node *c = mk(f, "if", "If");
    in(c, p, 0);
    in(c, x, 0);
    a_types(f, c, "Tin", 1, (int[]){FL_DT_FLOAT});
    a_types(f, c, "Tout", 2, (int[]){FL_DT_FLOAT, FL_DT_INT64});
    finish(f, c);
    assert_int_equal(c->n_outputs, 2);
    run_ok(f, c);
    check(&c->outputs[0], FL_DT_FLOAT, -1, NULL);
    check(&c->outputs[1], FL_DT_INT64, -1, NULL);
    assert_null(c->desc->cost);

    /* StatelessIf with output_shapes. */
    fl_node *s = mk(f, "sif", "StatelessIf");
    in(s, p, 0);
    in(s, x, 0);
    a_types(f, s, "Tout", 1, (int[]){FL_DT_FLOAT});
    fl_shape_lit sh[1] = {lit(f, 2, (int64_t[]){3, -1})};
    a_shapes(f, s, "output_shapes", 1, sh);
    finish(f, s);
    run_ok(f, s);
    check(&s->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){3, UNK});

    /* PartitionedCall: unknown unless _output_shapes says. */
    fl_node *pc = mk(f, "pc", "PartitionedCall");
    in(pc, x, 0);
    a_types(f, pc, "Tout", 1, (int[]){FL_DT_FLOAT});
    finish(f, pc);
    run_ok(f, pc);
    check(&pc->outputs[0], FL_DT_FLOAT, -1, NULL);
    fl_node *spc = mk(f, "spc", "StatefulPartitionedCall");
    in(spc, x, 0);
    a_types(f, spc, "Tout", 2, (int[]){FL_DT_FLOAT, FL_DT_INT32});
    fl_shape_lit os[2] = {lit(f, 2, (int64_t[]){-1, 10}), lit(f, 0, NULL)};
    a_shapes(f, spc, "_output_shapes", 2, os);
    finish(f, spc);
    assert_int_equal(spc->n_outputs, 2);
    run_ok(f, spc);
    check(&spc->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 10});
    check(&spc->outputs[1], FL_DT_INT32, 0, NULL);
    assert_true(spc->desc->flags & FL_OPF_STATEFUL);
    assert_null(spc->desc->cost);
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* TensorArray                                                                */
/* ------------------------------------------------------------------------- */

/* TensorArrayV3 of float with size 5 (a known value); element_shape attr
 * given by rank/dims (rank -2: absent). */
static fl_node *mk_ta(fx *f, const char *name, int rank, const int64_t *dims, bool dynamic) {
    char sname[64];
    snprintf(sname, sizeof sname, "%s_size", name);
    fl_node *size = src_ints(f, sname, true, 1, (fl_sym[]){K(5)});
    fl_node *ta = mk(f, name, "TensorArrayV3");
    in(ta, size, 0);
    a_type(ta, "dtype", FL_DT_FLOAT);
    if (rank >= -1) {
        a_shape(f, ta, "element_shape", rank, dims);
    }
    a_bool(ta, "dynamic_size", dynamic);
    finish(f, ta);
    run_ok(f, ta);
    return ta;
}

static void test_tensor_array(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *ta = mk_ta(f, "ta", -2, NULL, false);
    check(&ta->outputs[0], FL_DT_RESOURCE, 1, (int64_t[]){2});
    check(&ta->outputs[1], FL_DT_FLOAT, 0, NULL);
    assert_true(ta->desc->flags & FL_OPF_STATEFUL);

    /* The handle enters a loop frame; a write there stores [3,4] values. */
    fl_node *enter = mk(f, "enter", "Enter");
    in(enter, ta, 0);
    a_bool(enter, "is_constant", true);
    finish(f, enter);
    run_ok(f, enter);
    check(&enter->outputs[0], FL_DT_RESOURCE, 1, (int64_t[]){2});
    fl_node *idx = src(f, "idx", FL_DT_INT32, 0, NULL);
    fl_node *val = src(f, "val", FL_DT_FLOAT, 2, (int64_t[]){3, 4});
    fl_node *wr = mk(f, "write", "TensorArrayWriteV3");
    in(wr, enter, 0);
    in(wr, idx, 0);
    in(wr, val, 0);
    in(wr, ta, 1);
    finish(f, wr);
    run_ok(f, wr);
    check(&wr->outputs[0], FL_DT_FLOAT, 0, NULL);

    /* Read: element_shape unknown, so the written value's shape. */
    fl_node *rd = mk(f, "read", "TensorArrayReadV3");
    in(rd, enter, 0);
    in(rd, idx, 0);
    in(rd, wr, 0);
    a_type(rd, "dtype", FL_DT_FLOAT);
    finish(f, rd);
    run_ok(f, rd);
    check(&rd->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){3, 4});

    /* Size: 5 (fixed-size array); Gather(range(0, size)) = [5, 3, 4]. */
    fl_node *sz = mk(f, "size", "TensorArraySizeV3");
    in(sz, ta, 0);
    in(sz, wr, 0);
    finish(f, sz);
    run_ok(f, sz);
    check(&sz->outputs[0], FL_DT_INT32, 0, NULL);
    assert_non_null(sz->outputs[0].value);
    assert_int_equal(fl__value_int(sz->outputs[0].value, 0).k, 5);
    fl_node *ind = src(f, "ind", FL_DT_INT32, 1, (int64_t[]){5});
    fl_node *ga = mk(f, "gather", "TensorArrayGatherV3");
    in(ga, ta, 0);
    in(ga, ind, 0);
    in(ga, wr, 0);
    a_type(ga, "dtype", FL_DT_FLOAT);
    a_shape(f, ga, "element_shape", -1, NULL);
    finish(f, ga);
    run_ok(f, ga);
    check(&ga->outputs[0], FL_DT_FLOAT, 3, (int64_t[]){5, 3, 4});

    /* Indices of unknown length: [?, 3, 4]. Matrix indices: rejected. */
    fl_node *ind2 = src(f, "ind2", FL_DT_INT32, 1, (int64_t[]){UNK});
    fl_node *ga2 = mk(f, "gather2", "TensorArrayGatherV3");
    in(ga2, ta, 0);
    in(ga2, ind2, 0);
    in(ga2, wr, 0);
    a_type(ga2, "dtype", FL_DT_FLOAT);
    finish(f, ga2);
    run_ok(f, ga2);
    check(&ga2->outputs[0], FL_DT_FLOAT, 3, (int64_t[]){UNK, 3, 4});

    /* Concat: [?] + element shape without its first dim = [?, 4]. */
    fl_node *cc = mk(f, "concat", "TensorArrayConcatV3");
    in(cc, ta, 0);
    in(cc, wr, 0);
    a_type(cc, "dtype", FL_DT_FLOAT);
    finish(f, cc);
    run_ok(f, cc);
    check(&cc->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 4});
    check(&cc->outputs[1], FL_DT_INT64, 1, (int64_t[]){UNK});

    fl_node *cl = mk(f, "close", "TensorArrayCloseV3");
    in(cl, ta, 0);
    finish(f, cl);
    assert_int_equal(cl->n_outputs, 0);
    run_ok(f, cl);
    check_zero_cost(f, rd);

    fl_node *ind3 = src(f, "ind3", FL_DT_INT32, 2, (int64_t[]){5, 1});
    fl_node *bad = mk(f, "bad", "TensorArrayGatherV3");
    in(bad, ta, 0);
    in(bad, ind3, 0);
    in(bad, wr, 0);
    a_type(bad, "dtype", FL_DT_FLOAT);
    finish(f, bad);
    expect_fail(f, bad, "input 'indices' must be a vector, got rank 2");
    fx_free(f);
}

static void test_tensor_array_attr_and_scatter(void **state) {
    (void)state;
    fx *f = fx_new();
    /* element_shape attr [-1, 8], dynamic size; a Scatter of [6, 2, 8]. */
    fl_node *ta = mk_ta(f, "ta", 2, (int64_t[]){-1, 8}, true);
    fl_node *ind = src(f, "ind", FL_DT_INT32, 1, (int64_t[]){6});
    fl_node *val = src(f, "val", FL_DT_FLOAT, 3, (int64_t[]){6, 2, 8});
    fl_node *sc = mk(f, "scatter", "TensorArrayScatterV3");
    in(sc, ta, 0);
    in(sc, ind, 0);
    in(sc, val, 0);
    in(sc, ta, 1);
    finish(f, sc);
    run_ok(f, sc);
    fl_node *idx = src(f, "idx", FL_DT_INT32, 0, NULL);
    fl_node *rd = mk(f, "read", "TensorArrayReadV3");
    in(rd, ta, 0);
    in(rd, idx, 0);
    in(rd, sc, 0);
    a_type(rd, "dtype", FL_DT_FLOAT);
    finish(f, rd);
    run_ok(f, rd);
    check(&rd->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){2, 8});
    /* A dynamic array's size is not a constant. */
    fl_node *sz = mk(f, "size", "TensorArraySizeV3");
    in(sz, ta, 0);
    in(sz, sc, 0);
    finish(f, sz);
    run_ok(f, sz);
    assert_null(sz->outputs[0].value);
    fx_free(f);

    /* Fully known element_shape attr wins; Split gives an unknown first dim. */
    f = fx_new();
    ta = mk_ta(f, "ta", 1, (int64_t[]){7}, false);
    fl_node *rd2 = mk(f, "read", "TensorArrayReadV3");
    fl_node *idx2 = src(f, "idx", FL_DT_INT32, 0, NULL);
    in(rd2, ta, 0);
    in(rd2, idx2, 0);
    in(rd2, ta, 1);
    a_type(rd2, "dtype", FL_DT_FLOAT);
    finish(f, rd2);
    run_ok(f, rd2);
    check(&rd2->outputs[0], FL_DT_FLOAT, 1, (int64_t[]){7});
    fl_node *tb = mk_ta(f, "tb", -1, NULL, false);
    fl_node *v = src(f, "v", FL_DT_FLOAT, 2, (int64_t[]){12, 3});
    fl_node *len = src(f, "len", FL_DT_INT64, 1, (int64_t[]){4});
    fl_node *sp = mk(f, "split", "TensorArraySplitV3");
    in(sp, tb, 0);
    in(sp, v, 0);
    in(sp, len, 0);
    in(sp, tb, 1);
    finish(f, sp);
    run_ok(f, sp);
    fl_node *rd3 = mk(f, "read3", "TensorArrayReadV3");
    in(rd3, tb, 0);
    in(rd3, idx2, 0);
    in(rd3, sp, 0);
    a_type(rd3, "dtype", FL_DT_FLOAT);
    finish(f, rd3);
    run_ok(f, rd3);
    check(&rd3->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 3});
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* TensorList                                                                 */
/* ------------------------------------------------------------------------- */

static void test_tensor_list(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_sym n = var(f, "N");
    /* Reserve(element_shape [-1, 8], num_elements 10). */
    fl_node *es = src_ints(f, "es", false, 2, (fl_sym[]){K(-1), K(8)});
    fl_node *num = src_ints(f, "num", true, 1, (fl_sym[]){K(10)});
    fl_node *res = mk(f, "reserve", "TensorListReserve");
    in(res, es, 0);
    in(res, num, 0);
    a_type(res, "element_dtype", FL_DT_FLOAT);
    finish(f, res);
    run_ok(f, res);
    check(&res->outputs[0], FL_DT_VARIANT, 0, NULL);

    /* In a loop: Enter -> Merge(Enter, NextIteration) -> Switch -> SetItem
     * -> NextIteration; Exit -> Stack. */
    fl_node *enter = mk(f, "enter", "Enter");
    in(enter, res, 0);
    finish(f, enter);
    run_ok(f, enter);
    fl_node *next = mk(f, "next", "NextIteration");
    fl_node *merge = mk(f, "merge", "Merge");
    in(merge, enter, 0);
    in(merge, next, 0);
    finish(f, merge);
    fl_node *pred = src(f, "pred", FL_DT_BOOL, 0, NULL);
    fl_node *sw = mk(f, "switch", "Switch");
    in(sw, merge, 0);
    in(sw, pred, 0);
    finish(f, sw);
    fl_node *item = src_sym(f, "item", FL_DT_FLOAT, 2, (fl_sym[]){n, K(8)});
    fl_node *idx = src(f, "idx", FL_DT_INT32, 0, NULL);
    fl_node *set = mk(f, "set", "TensorListSetItem");
    in(set, sw, 1);
    in(set, idx, 0);
    in(set, item, 0);
    finish(f, set);
    in(next, set, 0);
    finish(f, next);
    run_ok(f, merge);
    run_ok(f, sw);
    run_ok(f, set);
    run_ok(f, next);
    check(&set->outputs[0], FL_DT_VARIANT, 0, NULL);
    fl_node *ex = mk(f, "exit", "Exit");
    in(ex, sw, 0);
    finish(f, ex);
    run_ok(f, ex);

    /* Stack with element_shape -1 (scalar: unknown rank) and no
     * num_elements: [10] + [?, 8] from the Reserve, whose free dim the
     * stored items [N, 8] fill: [10, N, 8]. */
    fl_node *unk = src_ints(f, "unk", true, 1, (fl_sym[]){K(-1)});
    fl_node *st = mk(f, "stack", "TensorListStack");
    in(st, ex, 0);
    in(st, unk, 0);
    a_type(st, "element_dtype", FL_DT_FLOAT);
    finish(f, st);
    run_ok(f, st);
    assert_int_equal(st->outputs[0].dtype, FL_DT_FLOAT);
    assert_int_equal(st->outputs[0].shape.rank, 3);
    check_dim(&st->outputs[0], 0, "10");
    check_dim(&st->outputs[0], 1, "N");
    check_dim(&st->outputs[0], 2, "8");

    /* Items that disagree ([N, 8] and [5, 8]) leave the dim unknown. */
    fl_node *item2 = src(f, "item2", FL_DT_FLOAT, 2, (int64_t[]){5, 8});
    fl_node *set2 = mk(f, "set2", "TensorListSetItem");
    in(set2, sw, 1);
    in(set2, idx, 0);
    in(set2, item2, 0);
    finish(f, set2);
    run_ok(f, set2);
    run_ok(f, st);
    check(&st->outputs[0], FL_DT_FLOAT, 3, (int64_t[]){10, UNK, 8});

    /* num_elements attr and an element_shape input [N, 8] (symbolic). */
    fl_node *es2 = src_ints(f, "es2", false, 2, (fl_sym[]){n, K(8)});
    fl_node *st2 = mk(f, "stack2", "TensorListStack");
    in(st2, ex, 0);
    in(st2, es2, 0);
    a_type(st2, "element_dtype", FL_DT_FLOAT);
    a_int(st2, "num_elements", 12);
    finish(f, st2);
    run_ok(f, st2);
    check_dim(&st2->outputs[0], 0, "12");
    check_dim(&st2->outputs[0], 1, "N");
    check_dim(&st2->outputs[0], 2, "8");

    /* FromTensor of x [100, N, 12]: GetItem is [N, 12], Length int32. */
    fl_node *x = src_sym(f, "x", FL_DT_FLOAT, 3, (fl_sym[]){K(100), n, K(12)});
    fl_node *ft = mk(f, "from", "TensorListFromTensor");
    in(ft, x, 0);
    in(ft, unk, 0);
    a_type(ft, "element_dtype", FL_DT_FLOAT);
    finish(f, ft);
    run_ok(f, ft);
    fl_node *fe = mk(f, "from_enter", "Enter");
    in(fe, ft, 0);
    finish(f, fe);
    run_ok(f, fe);
    fl_node *gi = mk(f, "get", "TensorListGetItem");
    in(gi, fe, 0);
    in(gi, idx, 0);
    in(gi, unk, 0);
    a_type(gi, "element_dtype", FL_DT_FLOAT);
    finish(f, gi);
    run_ok(f, gi);
    assert_int_equal(gi->outputs[0].shape.rank, 2);
    check_dim(&gi->outputs[0], 0, "N");
    check_dim(&gi->outputs[0], 1, "12");
    fl_node *ln = mk(f, "len", "TensorListLength");
    in(ln, ft, 0);
    finish(f, ln);
    run_ok(f, ln);
    check(&ln->outputs[0], FL_DT_INT32, 0, NULL);

    /* ElementShape: [2] with value [N, 12]. */
    fl_node *esh = mk(f, "eshape", "TensorListElementShape");
    in(esh, ft, 0);
    a_type(esh, "shape_type", FL_DT_INT32);
    finish(f, esh);
    run_ok(f, esh);
    check(&esh->outputs[0], FL_DT_INT32, 1, (int64_t[]){2});
    assert_non_null(esh->outputs[0].value);
    assert_true(fl__sym_eq(fl__value_int(esh->outputs[0].value, 0), n));
    assert_int_equal(fl__value_int(esh->outputs[0].value, 1).k, 12);

    /* An invalid element_shape entry (-2) is rejected, naming the input. */
    fl_node *es3 = src_ints(f, "es3", false, 2, (fl_sym[]){K(-2), K(8)});
    fl_node *bad = mk(f, "bad", "TensorListGetItem");
    in(bad, fe, 0);
    in(bad, idx, 0);
    in(bad, es3, 0);
    a_type(bad, "element_dtype", FL_DT_FLOAT);
    finish(f, bad);
    expect_fail(f, bad, "input 'element_shape' holds invalid dim -2 at index 0");
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* Random generators and variables                                            */
/* ------------------------------------------------------------------------- */

static void test_random(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_sym n = var(f, "N");
    fl_node *shp = src_ints(f, "shape", false, 2, (fl_sym[]){n, K(4)});
    fl_node *r = mk(f, "r", "RandomUniform");
    in(r, shp, 0);
    a_type(r, "dtype", FL_DT_FLOAT);
    a_type(r, "T", FL_DT_INT32);
    finish(f, r);
    run_ok(f, r);
    check_dim(&r->outputs[0], 0, "N");
    check_dim(&r->outputs[0], 1, "4");
    assert_true(r->desc->flags & FL_OPF_STATEFUL);
    assert_null(r->desc->eval);
    /* 1 FLOP per element: 4*N; N = 3 gives 12. tfprof: 0. */
    fl_cost c = cost_of(f, r);
    assert_true(c.has_rule);
    assert_false(c.tfprof_rule);
    assert_false(c.incomplete);
    assert_int_equal(c.tfprof_flops.k, 0);
    assert_true(fl_sym_is_known(c.macs) && c.macs.k == 0);
    const char *names[] = {"N"};
    int64_t vals[] = {3};
    fl_sym e;
    assert_int_equal(fl__sym_subst(f->g->syms, c.flops, 1, names, vals, &e), FL_OK);
    assert_int_equal(e.k, 12);

    /* RandomUniformInt: dtype from Tout; [2, 3] = 6 FLOPs. */
    fl_node *s2 = src_ints(f, "s2", false, 2, (fl_sym[]){K(2), K(3)});
    fl_node *lo = src(f, "lo", FL_DT_INT64, 0, NULL);
    fl_node *ri = mk(f, "ri", "RandomUniformInt");
    in(ri, s2, 0);
    in(ri, lo, 0);
    in(ri, lo, 0);
    a_type(ri, "Tout", FL_DT_INT64);
    finish(f, ri);
    run_ok(f, ri);
    check(&ri->outputs[0], FL_DT_INT64, 2, (int64_t[]){2, 3});
    c = cost_of(f, ri);
    assert_int_equal(c.flops.k, 6);

    /* Shape input without a value but of known length 3: rank 3, unknown
     * dims; the cost is then incomplete. */
    fl_node *s3 = src(f, "s3", FL_DT_INT32, 1, (int64_t[]){3});
    fl_node *tn = mk(f, "tn", "TruncatedNormal");
    in(tn, s3, 0);
    a_type(tn, "dtype", FL_DT_HALF);
    finish(f, tn);
    run_ok(f, tn);
    check(&tn->outputs[0], FL_DT_HALF, 3, (int64_t[]){UNK, UNK, UNK});
    c = cost_of(f, tn);
    assert_true(c.incomplete);
    assert_true(c.has_rule);
    assert_int_equal(c.flops.k, 0);

    /* A matrix shape input is rejected; so is a missing dtype. */
    fl_node *s4 = src(f, "s4", FL_DT_INT32, 2, (int64_t[]){2, 2});
    fl_node *bad = mk(f, "bad", "RandomStandardNormal");
    in(bad, s4, 0);
    a_type(bad, "dtype", FL_DT_FLOAT);
    finish(f, bad);
    expect_fail(f, bad, "input 'shape' must be a vector, got rank 2");
    fx_free(f);
    f = fx_new();
    s3 = src(f, "s3", FL_DT_INT32, 1, (int64_t[]){3});
    bad = mk(f, "bad", "RandomStandardNormal");
    in(bad, s3, 0);
    finish(f, bad);
    expect_fail(f, bad, "missing required attr 'dtype'");
    fx_free(f);
}

static void test_variables(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *v = mk(f, "v", "VariableV2");
    a_type(v, "dtype", FL_DT_FLOAT);
    a_shape(f, v, "shape", 2, (int64_t[]){3, 3});
    finish(f, v);
    run_ok(f, v);
    check(&v->outputs[0], FL_DT_FLOAT + FL_DT_REF_OFFSET, 2, (int64_t[]){3, 3});
    assert_true(v->desc->flags & FL_OPF_STATEFUL);
    check_zero_cost(f, v);

    /* Ops of every family dereference a ref input: Transpose (array), Relu (nn), Neg (ew) of
     * the variable output plain float, as their OpDefs declare a T output. */
    fl_node *perm = src_ints(f, "perm", false, 2, (fl_sym[]){K(1), K(0)});
    const char *readers[][2] = {{"tr", "Transpose"}, {"relu", "Relu"}, {"neg", "Neg"}};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        fl_node *r = mk(f, readers[i][0], readers[i][1]);
        in(r, v, 0);
        if (i == 0) {
            in(r, perm, 0);
        }
        finish(f, r);
        run_ok(f, r);
        check(&r->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){3, 3});
    }

    fl_node *h = mk(f, "h", "VarHandleOp");
    a_type(h, "dtype", FL_DT_FLOAT);
    a_shape(f, h, "shape", 2, (int64_t[]){128, -1});
    finish(f, h);
    run_ok(f, h);
    check(&h->outputs[0], FL_DT_RESOURCE, 0, NULL);
    fl_node *id = mk(f, "hid", "Identity");
    in(id, h, 0);
    finish(f, id);
    run_ok(f, id);
    fl_node *rd = mk(f, "read", "ReadVariableOp");
    in(rd, id, 0);
    a_type(rd, "dtype", FL_DT_FLOAT);
    finish(f, rd);
    run_ok(f, rd);
    check(&rd->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){128, UNK});
    check_zero_cost(f, rd);

    fl_node *bad = mk(f, "bad", "VariableV2");
    a_type(bad, "dtype", FL_DT_FLOAT);
    finish(f, bad);
    expect_fail(f, bad, "missing required attr 'shape'");
    fx_free(f);
}

/* A type attr holding no DataType is an error naming the attr, in every family. */
static void test_invalid_type_attr(void **state) {
    (void)state;
    const char *typed[] = {"Transpose", "Relu", "Neg"};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        fx *f = fx_new();
        fl_node *x = src(f, "x", FL_DT_FLOAT, 2, (int64_t[]){3, 3});
        fl_node *perm = src_ints(f, "perm", false, 2, (fl_sym[]){K(1), K(0)});
        fl_node *r = mk(f, "r", typed[i]);
        in(r, x, 0);
        if (i == 0) {
            in(r, perm, 0);
        }
        a_type(r, "T", 77);
        finish(f, r);
        expect_fail(f, r, "attr 'T' holds invalid DataType 77");
        fx_free(f);
    }
}

static void test_no_op_and_flags(void **state) {
    (void)state;
    fx *f = fx_new();
    fl_node *n = mk(f, "noop", "NoOp");
    finish(f, n);
    assert_int_equal(n->n_outputs, 0);
    run_ok(f, n);
    check_zero_cost(f, n);
    assert_true(n->desc->flags & FL_OPF_NO_BYTES);
    /* Every control-flow op is flagged; every functional op has no cost. */
    const char *cf[] = {"Switch",           "Merge",    "Enter",    "Exit",
                        "NextIteration",    "LoopCond", "RefEnter", "RefExit",
                        "RefNextIteration", "RefMerge", "RefSwitch"};
    for (size_t i = 0; i < sizeof cf / sizeof cf[0]; i++) {
        const struct fl_op_desc *d = fl__op_desc_of(fl__op_lookup(cf[i]));
        assert_non_null(d);
        assert_string_equal(d->name, cf[i]);
        assert_true(d->flags & FL_OPF_CONTROL_FLOW);
    }
    const char *fn[] = {"While",       "StatelessWhile",  "If",
                        "StatelessIf", "PartitionedCall", "StatefulPartitionedCall"};
    for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++) {
        const struct fl_op_desc *d = fl__op_desc_of(fl__op_lookup(fn[i]));
        assert_non_null(d);
        assert_string_equal(d->name, fn[i]);
        assert_true(d->flags & FL_OPF_FUNCTIONAL);
        /* No rule but a lowered While's (test_functional_while). */
        if (strstr(fn[i], "While")) {
            assert_non_null(d->cost);
        } else {
            assert_null(d->cost);
        }
        assert_non_null(d->count_outputs);
    }
    fx_free(f);
}

/* ------------------------------------------------------------------------- */
/* The Grappler while-loop graph of the corpus                                */
/* ------------------------------------------------------------------------- */

static fl_status infer_all(fx *f) {
    for (size_t i = 0; i < f->g->n_nodes; i++) {
        fl_node *n = f->g->order[i];
        if (!n->desc) {
            continue;
        }
        fl_status st = n->desc->infer(&f->c, n);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static void test_grappler_while_loop(void **state) {
    (void)state;
    if (!fl_test_have_corpus("grappler while loop")) {
        fl_test_skip();
    }
    size_t len;
    unsigned char *buf = fl_test_read_file(FL_CORPUS_DIR "/tf/grappler-while_loop.pb", &len);
    if (!buf) {
        printf("SKIP: grappler-while_loop.pb is absent\n");
        fl_test_skip();
    }
    fx *f = fx_new();
    f->g->producer = 0;
    fl_import_opts o = {.max_nodes = 100000, .max_value_elems = 1 << 16, .tag = NULL};
    /* Payloads are views into the bytes: the fixture's arena keeps them. */
    fl_status st = fl__import_graphdef(f->g, tg_keep(&f->a, buf, len), len, &o, &f->d);
    assert_int_equal(st, FL_OK);
    assert_int_equal(fl__graph_toposort(f->g, &f->d), FL_OK);
    /* Visit in order until nothing changes (the driver's loop iteration):
     * Merge_1 sees [2,2] first, then the concat's [4,2], then [?,2]. */
    for (int round = 0; round < 4; round++) {
        f->g->infer_first_round = round == 0;
        st = infer_all(f);
        f->g->infer_first_round = false;
        if (st != FL_OK) {
            fail_msg("inference failed: %s", f->d.msg ? f->d.msg : "?");
        }
    }
    fl_node *m0 = fl__graph_find(f->g, "while/Merge");
    fl_node *m1 = fl__graph_find(f->g, "while/Merge_1");
    fl_node *e0 = fl__graph_find(f->g, "while/Exit");
    fl_node *e1 = fl__graph_find(f->g, "while/Exit_1");
    fl_node *sw = fl__graph_find(f->g, "while/Switch_1");
    fl_node *lc = fl__graph_find(f->g, "while/LoopCond");
    assert_non_null(m0);
    assert_non_null(e1);
    check(&m0->outputs[0], FL_DT_INT32, 0, NULL);
    check(&m1->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 2});
    check(&m1->outputs[1], FL_DT_INT32, 0, NULL);
    check(&sw->outputs[1], FL_DT_FLOAT, 2, (int64_t[]){UNK, 2});
    check(&lc->outputs[0], FL_DT_BOOL, 0, NULL);
    check(&e0->outputs[0], FL_DT_INT32, 0, NULL);
    check(&e1->outputs[0], FL_DT_FLOAT, 2, (int64_t[]){UNK, 2});
    /* The counter's value changes every iteration: Merge has none. */
    assert_null(m0->outputs[0].value);
    fx_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_const_full_value),
        cmocka_unit_test(test_const_stripped),
        cmocka_unit_test(test_const_bad_attrs),
        cmocka_unit_test(test_placeholder_symbols),
        cmocka_unit_test(test_placeholder_prebound_and_legacy),
        cmocka_unit_test(test_placeholder_with_default),
        cmocka_unit_test(test_identity_family),
        cmocka_unit_test(test_identity_n),
        cmocka_unit_test(test_merge_back_edge),
        cmocka_unit_test(test_merge_symbols_and_values),
        cmocka_unit_test(test_switch_exit_loop_cond),
        cmocka_unit_test(test_functional_while),
        cmocka_unit_test(test_if_and_calls),
        cmocka_unit_test(test_tensor_array),
        cmocka_unit_test(test_tensor_array_attr_and_scatter),
        cmocka_unit_test(test_tensor_list),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_variables),
        cmocka_unit_test(test_invalid_type_attr),
        cmocka_unit_test(test_no_op_and_flags),
        cmocka_unit_test(test_grappler_while_loop),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
