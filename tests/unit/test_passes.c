/*
 * test_passes.c - the rewrite passes rule by rule (src/passes).
 *
 * Each test builds a small GraphDef with testgraph.h, imports it, runs one
 * pass (or the pipeline) with the verifier on after every pass, and compares
 * the whole rewritten graph, printed as "name=Op(input,input:1,^ctrl)" per
 * node in graph order, with the exact expected text. Every rule has a
 * positive test and a negative test per blocking condition (named
 * *_kept_when_<reason>). Folding tests also check the folded values.
 */
#include "export/graphdef_write.h"
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness (passtest.h)                                                       */
/* ------------------------------------------------------------------------- */

/* Imports `buf` and runs `passes` (a pipeline pass list) for `iters`
 * iterations with the verifier on; asserts success. */
static pt_run *run_bytes(const uint8_t *buf, size_t len, const char *passes, int iters,
                         const char *const *outs, size_t n_outs, int64_t max_folded) {
    return pt_pipeline_bytes(buf, len,
                             &(pt_opts){.passes = passes,
                                        .iterations = iters,
                                        .outputs = outs,
                                        .n_outputs = n_outs,
                                        .max_folded_bytes = max_folded});
}

static pt_run *run(tg_graph *tg, const char *passes, int iters) {
    return pt_pipeline(tg, &(pt_opts){.passes = passes, .iterations = iters});
}

static void expect_graph(tg_graph *tg, const char *passes, const char *want) {
    pt_expect(tg, &(pt_opts){.passes = passes, .iterations = 1}, want, NULL, NULL, false);
}

static const int64_t D23[] = {2, 3};

/* ------------------------------------------------------------------------- */
/* Model pruner                                                               */
/* ------------------------------------------------------------------------- */

static void test_pruner_identity_removed(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "i", "Identity", "x", F32);
    pt_op1(g, "y", "Neg", "i", F32);
    expect_graph(g, "pruning", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_pruner_identity_chain_removed(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "i1", "Identity", "x", F32);
    pt_op1(g, "i2", "Identity", "i1", F32);
    pt_op1(g, "s", "StopGradient", "i2", F32);
    pt_op1(g, "p", "PreventGradient", "s", F32);
    pt_op1(g, "y", "Neg", "p", F32);
    expect_graph(g, "pruning", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_pruner_identity_kept_when_output(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "i", "Identity", "x", F32);
    expect_graph(g, "pruning", "x=Placeholder(); i=Identity(x)");
    tg_free(g);
}

static void test_pruner_identity_kept_when_control_input(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_add(g, "c", "NoOp", "^x", NULL);
    tg_node *i = tg_add(g, "i", "Identity", "x", "^c", NULL);
    tg_attr_type(i, "T", 1);
    pt_op1(g, "y", "Neg", "i", F32);
    expect_graph(g, "pruning", "x=Placeholder(); c=NoOp(^x); i=Identity(x,^c); y=Neg(i)");
    tg_free(g);
}

static void test_pruner_identity_kept_when_control_consumer(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "i", "Identity", "x", F32);
    tg_node *y = tg_add(g, "y", "Neg", "x", "^i", NULL);
    tg_attr_type(y, "T", 1);
    expect_graph(g, "pruning", "x=Placeholder(); i=Identity(x); y=Neg(x,^i)");
    tg_free(g);
}

/* in*out > in+out: StopGradient with 2 control inputs and 2 consumers would
 * add edges (3*2 > 3+2). */
static void test_pruner_kept_when_edges_increase(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_add(g, "c1", "NoOp", "^x", NULL);
    tg_add(g, "c2", "NoOp", "^x", NULL);
    tg_node *s = tg_add(g, "s", "StopGradient", "x", "^c1", "^c2", NULL);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "y1", "Neg", "s", F32);
    pt_op1(g, "y2", "Abs", "s", F32);
    expect_graph(g, "pruning",
                 "x=Placeholder(); c1=NoOp(^x); c2=NoOp(^x); s=StopGradient(x,^c1,^c2); "
                 "y1=Neg(s); y2=Abs(s)");
    tg_free(g);
}

static void test_pruner_stop_gradient_forwards_control(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_add(g, "c", "NoOp", "^x", NULL);
    tg_node *s = tg_add(g, "s", "StopGradient", "x", "^c", NULL);
    tg_attr_type(s, "T", 1);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "pruning", "x=Placeholder(); c=NoOp(^x); y=Neg(x,^c)");
    tg_free(g);
}

static void test_pruner_snapshot_kept(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "s", "Snapshot", "x", F32);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "pruning", "x=Placeholder(); s=Snapshot(x); y=Neg(s)");
    tg_free(g);
}

static void test_pruner_addn_single_input(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_node *a = pt_op1(g, "a", "AddN", "x", F32);
    tg_attr_int(a, "N", 1);
    pt_op1(g, "y", "Neg", "a", F32);
    expect_graph(g, "pruning", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_pruner_dead_code_with_outputs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "y", "Neg", "x", F32);
    pt_op1(g, "z", "Abs", "x", F32);
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    const char *outs[] = {"y"};
    pt_run *p = run_bytes(buf, len, "pruning", 1, outs, 1, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Neg(x)");
    assert_true(pt_fired(p, "dead_code", "z"));
    pt_free(p);
    free(buf);
    tg_free(g);
}

static void test_pruner_noop_without_inputs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_add(g, "n", "NoOp", NULL);
    tg_node *y = tg_add(g, "y", "Neg", "x", "^n", NULL);
    tg_attr_type(y, "T", 1);
    expect_graph(g, "pruning", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Constant folding                                                           */
/* ------------------------------------------------------------------------- */

static const float *const_floats(pt_run *p, const char *name) {
    return pt_cval(p, name)->raw;
}

static void test_fold_add_exact_values(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "a", 1, (int64_t[]){3}, (float[]){1.5f, -2, 0.1f}, 0);
    tg_const_f32(g, "b", 1, (int64_t[]){3}, (float[]){0.25f, 4, 0.2f}, 0);
    pt_op2(g, "s", "AddV2", "a", "b", F32);
    pt_op1(g, "n", "Neg", "s", F32);
    pt_op2(g, "y", "Mul", "x", "n", F32);
    pt_run *p = run(g, "constfold", 1);
    /* s folds, then n; s is left unused and removed. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); n=Const(); y=Mul(x,n)");
    const float *v = const_floats(p, "n");
    /* IEEE single: -(1.5+0.25), -(-2+4), -(0.1f+0.2f) */
    assert_true(v[0] == -1.75f && v[1] == -2.0f && v[2] == -(0.1f + 0.2f));
    assert_true(pt_fired(p, "fold", "s") && pt_fired(p, "fold", "n"));
    pt_free(p);
    tg_free(g);
}

static void test_fold_int_exact(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_placeholder(g, "xi", 3, 1, (int64_t[]){2});
    tg_const_int(g, "a", 3, 1, (int64_t[]){2}, (int64_t[]){7, -7});
    tg_const_int(g, "b", 3, 1, (int64_t[]){2}, (int64_t[]){2, 2});
    tg_node *d = tg_add(g, "d", "FloorDiv", "a", "b", NULL);
    tg_attr_type(d, "T", 3);
    tg_const_int(g, "z", 3, 1, (int64_t[]){2}, (int64_t[]){1, 1});
    tg_node *s = tg_add(g, "s", "Add", "d", "z", NULL);
    tg_attr_type(s, "T", 3);
    tg_node *r = tg_add(g, "r", "Add", "xi", "s", NULL);
    tg_attr_type(r, "T", 3);
    pt_run *p = run(g, "constfold", 1);
    assert_string_equal(pt_dump(p), "x=Placeholder(); xi=Placeholder(); s=Const(); r=Add(xi,s)");
    const fl_value *v = fl__node_attr(fl__graph_find(p->g, "s"), "value")->v.tensor->value;
    /* floor(7/2)+1 = 4, floor(-7/2)+1 = -3 */
    assert_int_equal(fl__value_int(v, 0).k, 4);
    assert_int_equal(fl__value_int(v, 1).k, -3);
    pt_free(p);
    tg_free(g);
}

static void test_fold_kept_when_stateful(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_const_int(g, "shape", 3, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    tg_node *r = tg_add(g, "r", "RandomUniform", "shape", NULL);
    tg_attr_type(r, "T", 3);
    tg_attr_type(r, "dtype", 1);
    pt_op1(g, "y", "Neg", "r", F32);
    expect_graph(g, "constfold", "shape=Const(); r=RandomUniform(shape); y=Neg(r)");
    tg_free(g);
}

/* BroadcastTo of a scalar to 100x100 floats (40000 bytes) is larger than its
 * inputs: folded under the default 100 KiB limit, kept under 1 KiB. */
static tg_graph *broadcast_graph(void) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){100, 100});
    tg_const_f32(g, "v", 0, NULL, (float[]){2}, 0);
    tg_const_int(g, "shape", 3, 1, (int64_t[]){2}, (int64_t[]){100, 100});
    tg_node *b = tg_add(g, "b", "BroadcastTo", "v", "shape", NULL);
    tg_attr_type(b, "T", 1);
    tg_attr_type(b, "Tidx", 3);
    pt_op2(g, "y", "Mul", "x", "b", F32);
    return g;
}

static void test_fold_size_limit(void **state) {
    (void)state;
    tg_graph *g = broadcast_graph();
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    pt_run *p = run_bytes(buf, len, "constfold", 1, NULL, 0, 0);
    assert_string_equal(pt_dump(p), "x=Placeholder(); b=Const(); y=Mul(x,b)");
    pt_free(p);
    p = run_bytes(buf, len, "constfold", 1, NULL, 0, 1024);
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); v=Const(); shape=Const(); b=BroadcastTo(v,shape); "
                        "y=Mul(x,b)");
    pt_free(p);
    free(buf);
    tg_free(g);
}

static void test_fold_stripped(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "w", 2, D23, NULL, 1);
    tg_const_f32(g, "k", 0, NULL, (float[]){3}, 0);
    pt_op2(g, "s", "Mul", "w", "k", F32);
    pt_op2(g, "y", "Add", "x", "s", F32);
    pt_run *p = run(g, "constfold", 1);
    assert_string_equal(pt_dump(p), "x=Placeholder(); s=Const(); y=Add(x,s)");
    const fl_node *s = fl__graph_find(p->g, "s");
    assert_true(s->flags & FL_NODE_STRIPPED);
    assert_true(fl__node_attr(s, "value")->v.tensor->stripped);
    assert_int_equal(fl__node_attr(s, "_stripped_content_bytes")->v.i, 24);
    assert_true(pt_fired(p, "fold_stripped", "s"));
    pt_free(p);
    tg_free(g);
}

static void test_materialize_shape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_node *r = tg_add(g, "r", "Reshape", "x", "s", NULL);
    tg_attr_type(r, "T", 1);
    pt_run *p = run(g, "constfold", 1);
    assert_string_equal(pt_dump(p), "x=Placeholder(); s=Const(^x); r=Reshape(x,s)");
    const fl_value *v = fl__node_attr(fl__graph_find(p->g, "s"), "value")->v.tensor->value;
    assert_int_equal(fl__value_int(v, 0).k, 2);
    assert_int_equal(fl__value_int(v, 1).k, 3);
    pt_free(p);
    tg_free(g);
}

static void test_materialize_shape_kept_when_symbolic(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_node *r = tg_add(g, "r", "Reshape", "x", "s", NULL);
    tg_attr_type(r, "T", 1);
    expect_graph(g, "constfold", "x=Placeholder(); s=Shape(x); r=Reshape(x,s)");
    tg_free(g);
}

static void test_multiply_by_one(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "one", 0, NULL, (float[]){1}, 0);
    pt_op2(g, "m", "Mul", "x", "one", F32);
    pt_op1(g, "y", "Neg", "m", F32);
    expect_graph(g, "constfold", "x=Placeholder(); one=Const(); m=Identity(x,^one); y=Neg(m)");
    tg_free(g);
}

/* x[3] * ones[2,3]: the ones operand has the output's shape, x does not, so
 * the Mul becomes BroadcastTo(x, [2,3]) (Grappler's broadcast fallback). */
static void test_multiply_by_one_broadcasting(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, (int64_t[]){3});
    tg_const_f32(g, "one", 2, D23, (float[]){1, 1, 1, 1, 1, 1}, 0);
    pt_op2(g, "m", "Mul", "x", "one", F32);
    pt_op1(g, "y", "Neg", "m", F32);
    expect_graph(g, "constfold",
                 "x=Placeholder(); one=Const(); "
                 "m=BroadcastTo(x,ConstantFolding/m-broadcastto_shape-0,^one); y=Neg(m); "
                 "ConstantFolding/m-broadcastto_shape-0=Const(^one)");
    tg_free(g);
}

static void test_multiply_by_one_kept_when_not_one(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "k", 0, NULL, (float[]){1.0000001f}, 0);
    pt_op2(g, "m", "Mul", "x", "k", F32);
    pt_op1(g, "y", "Neg", "m", F32);
    expect_graph(g, "constfold", "x=Placeholder(); k=Const(); m=Mul(x,k); y=Neg(m)");
    tg_free(g);
}

static void test_add_zero_left_and_sub_zero(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    pt_op2(g, "a", "AddV2", "zero", "x", F32);
    pt_op2(g, "s", "Sub", "a", "zero", F32);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "constfold",
                 "x=Placeholder(); zero=Const(); a=Identity(x,^zero); s=Identity(a,^zero); "
                 "y=Neg(s)");
    tg_free(g);
}

/* 0 - x is Neg(x) (ReplaceSubtractionFromZeroByNegation). */
static void test_sub_from_zero_is_neg(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    pt_op2(g, "s", "Sub", "zero", "x", F32);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "constfold", "x=Placeholder(); zero=Const(); s=Neg(x,^zero); y=Neg(s)");
    tg_free(g);
}

static void test_multiply_by_zero(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "zero", 0, NULL, (float[]){0}, 0);
    pt_op2(g, "m", "Mul", "x", "zero", F32);
    pt_op1(g, "y", "Neg", "m", F32);
    pt_run *p = run(g, "constfold", 1);
    /* m is zeros; then y = Neg(zeros) folds too (keeping m's control inputs)
     * and m goes unused; zero stays as a control input of y. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); zero=Const(); y=Const(^x,^zero)");
    pt_free(p);
    tg_free(g);
}

static void test_tile_by_ones(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "mul", 3, 1, (int64_t[]){2}, (int64_t[]){1, 1});
    tg_node *t = tg_add(g, "t", "Tile", "x", "mul", NULL);
    tg_attr_type(t, "T", 1);
    pt_op1(g, "y", "Neg", "t", F32);
    expect_graph(g, "constfold", "x=Placeholder(); mul=Const(); t=Identity(x,^mul); y=Neg(t)");
    tg_free(g);
}

static void test_tile_kept_when_multiple_not_one(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "mul", 3, 1, (int64_t[]){2}, (int64_t[]){1, 2});
    tg_node *t = tg_add(g, "t", "Tile", "x", "mul", NULL);
    tg_attr_type(t, "T", 1);
    pt_op1(g, "y", "Neg", "t", F32);
    expect_graph(g, "constfold", "x=Placeholder(); mul=Const(); t=Tile(x,mul); y=Neg(t)");
    tg_free(g);
}

static void test_identity_transpose(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 3, (int64_t[]){2, 1, 3});
    tg_const_int(g, "perm", 3, 1, (int64_t[]){3}, (int64_t[]){1, 0, 2}); /* moves a 1 only */
    tg_node *t = tg_add(g, "t", "Transpose", "x", "perm", NULL);
    tg_attr_type(t, "T", 1);
    tg_const_int(g, "shape", 3, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    tg_node *r = tg_add(g, "r", "Reshape", "t", "shape", NULL);
    tg_attr_type(r, "T", 1);
    pt_run *p = run(g, "constfold", 1);
    /* Transpose moves only the size-1 dim, but the output shape [1,2,3]
     * differs from the input's [2,1,3]: kept (shapes must match). */
    assert_string_equal(pt_dump(p), "x=Placeholder(); perm=Const(); t=Transpose(x,perm); "
                                    "shape=Const(); r=Reshape(t,shape)");
    pt_free(p);
    tg_free(g);
    g = tg_new();
    pt_ph(g, "x", 3, (int64_t[]){2, 1, 3});
    tg_const_int(g, "perm", 3, 1, (int64_t[]){3}, (int64_t[]){0, 1, 2});
    t = tg_add(g, "t", "Transpose", "x", "perm", NULL);
    tg_attr_type(t, "T", 1);
    pt_op1(g, "y", "Neg", "t", F32);
    expect_graph(g, "constfold", "x=Placeholder(); perm=Const(); t=Identity(x,^perm); y=Neg(t)");
    tg_free(g);
}

static void test_reshape_to_same_shape(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "shape", 3, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    tg_node *r = tg_add(g, "r", "Reshape", "x", "shape", NULL);
    tg_attr_type(r, "T", 1);
    pt_op1(g, "y", "Neg", "r", F32);
    expect_graph(g, "constfold", "x=Placeholder(); shape=Const(); r=Identity(x,^shape); y=Neg(r)");
    tg_free(g);
}

static void test_squeeze_nothing_kept_when_size_one(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){1, 3});
    pt_op1(g, "s", "Squeeze", "x", F32);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "constfold", "x=Placeholder(); s=Squeeze(x); y=Neg(s)");
    tg_free(g);
    g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "s", "Squeeze", "x", F32);
    pt_op1(g, "y", "Neg", "s", F32);
    expect_graph(g, "constfold", "x=Placeholder(); s=Identity(x); y=Neg(s)");
    tg_free(g);
}

static void test_fold_kept_when_output_preserved_multi(void **state) {
    (void)state;
    /* Unpack of a constant: two outputs, folded into two new constants. */
    tg_graph *g = tg_new();
    pt_ph(g, "x", 1, (int64_t[]){3});
    tg_const_f32(g, "c", 2, D23, (float[]){1, 2, 3, 4, 5, 6}, 0);
    tg_node *u = tg_add(g, "u", "Unpack", "c", NULL);
    tg_attr_type(u, "T", 1);
    tg_attr_int(u, "num", 2);
    pt_op2(g, "y", "Add", "x", "u:1", F32);
    pt_run *p = run(g, "constfold", 1);
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Add(x,ConstantFolding/u-folded-1); "
                                    "ConstantFolding/u-folded-1=Const()");
    const float *v = const_floats(p, "ConstantFolding/u-folded-1");
    assert_true(v[0] == 4 && v[1] == 5 && v[2] == 6);
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* CSE                                                                        */
/* ------------------------------------------------------------------------- */

static void test_cse_merges_duplicates(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op1(g, "a", "Neg", "x", F32);
    pt_op1(g, "b", "Neg", "x", F32);
    pt_op2(g, "p", "AddV2", "a", "z", F32);
    pt_op2(g, "q", "AddV2", "z", "b", F32); /* commutative: equal to p once b is a */
    pt_op2(g, "y", "Mul", "p", "q", F32);
    expect_graph(g, "cse",
                 "x=Placeholder(); z=Placeholder(); a=Neg(x); p=AddV2(a,z); "
                 "y=Mul(p,p)");
    tg_free(g);
}

static void test_cse_kept_when_attrs_differ(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){1});
    tg_node *s1 = tg_add(g, "s1", "Sum", "x", "ax", NULL);
    tg_attr_type(s1, "T", 1);
    tg_attr_bool(s1, "keep_dims", 1);
    tg_node *s2 = tg_add(g, "s2", "Sum", "x", "ax", NULL);
    tg_attr_type(s2, "T", 1);
    tg_attr_bool(s2, "keep_dims", 0);
    pt_op1(g, "y1", "Neg", "s1", F32);
    pt_op1(g, "y2", "Neg", "s2", F32);
    expect_graph(g, "cse",
                 "x=Placeholder(); ax=Const(); s1=Sum(x,ax); s2=Sum(x,ax); y1=Neg(s1); "
                 "y2=Neg(s2)");
    tg_free(g);
}

/* list(int) attrs compare element by element: two MaxPools with the same
 * ksize and strides are one; a third whose strides differ in one element
 * stays. */
static tg_node *maxpool(tg_graph *g, const char *name, int64_t stride_w) {
    tg_node *n = tg_add(g, name, "MaxPool", "x", NULL);
    tg_attr_type(n, "T", F32);
    tg_attr_ints(n, "ksize", 4, (int64_t[]){1, 2, 2, 1});
    tg_attr_ints(n, "strides", 4, (int64_t[]){1, 2, stride_w, 1});
    tg_attr_str(n, "padding", "VALID");
    tg_attr_str(n, "data_format", "NHWC");
    return n;
}

static void test_cse_list_attrs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 4, (int64_t[]){1, 4, 4, 1});
    maxpool(g, "m1", 2);
    maxpool(g, "m2", 2);
    maxpool(g, "m3", 1);
    pt_op2(g, "y", "AddV2", "m1", "m2", F32);
    pt_op1(g, "z", "Neg", "m3", F32);
    expect_graph(g, "cse",
                 "x=Placeholder(); m1=MaxPool(x); m3=MaxPool(x); y=AddV2(m1,m1); z=Neg(m3)");
    tg_free(g);
}

static void test_cse_kept_when_stateful(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_const_int(g, "shape", 3, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    tg_node *r1 = tg_add(g, "r1", "RandomUniform", "shape", NULL);
    tg_attr_type(r1, "T", 3);
    tg_attr_type(r1, "dtype", 1);
    tg_node *r2 = tg_add(g, "r2", "RandomUniform", "shape", NULL);
    tg_attr_type(r2, "T", 3);
    tg_attr_type(r2, "dtype", 1);
    pt_op2(g, "y", "Mul", "r1", "r2", F32);
    expect_graph(g, "cse",
                 "shape=Const(); r1=RandomUniform(shape); r2=RandomUniform(shape); y=Mul(r1,r2)");
    tg_free(g);
}

static void test_cse_kept_when_preserved(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Neg", "x", F32);
    pt_op1(g, "b", "Neg", "x", F32);
    expect_graph(g, "cse", "x=Placeholder(); a=Neg(x); b=Neg(x)");
    tg_free(g);
}

/* Any topological order is valid, also one where p = Exp(a) is visited
 * while it is the only reader of a, and b, a duplicate of a, after it: q =
 * Exp(b) reads a only once b is merged into a, and must still merge into p
 * (CSE sets p aside unhashed as a's lone reader, and enters it in the table
 * when q turns up reading a). */
static void test_cse_lone_reader_found_later(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Neg", "x", F32);
    pt_op1(g, "p", "Exp", "a", F32);
    pt_op1(g, "b", "Neg", "x", F32);
    pt_op1(g, "q", "Exp", "b", F32);
    pt_op2(g, "y", "Mul", "p", "q", F32);
    pt_run h;
    pt_load(&h, g);
    static const char *const names[] = {"x", "a", "p", "b", "q", "y"};
    assert_int_equal(h.g->n_nodes, 6);
    fl_node **order = fl__arena_calloc(&h.arena, 6, sizeof(fl_node *));
    assert_non_null(order);
    for (int i = 0; i < 6; i++) {
        order[i] = fl__graph_find(h.g, names[i]);
        assert_non_null(order[i]);
    }
    h.g->order = order;
    pt_pass(&h, fl__pass_common_subgraph_elimination, "cse", FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    assert_string_equal(pt_dump(&h), "x=Placeholder(); a=Neg(x); p=Exp(a); y=Mul(p,p)");
    /* One note per removed duplicate, on it, naming the node it duplicates. */
    assert_int_equal(h.led.n_entries, 2);
    assert_string_equal(fl__ledger_entry(&h.led, 0)->rule, "common_subgraph");
    assert_string_equal(fl__ledger_entry(&h.led, 0)->node, "b");
    assert_string_equal(fl__ledger_entry(&h.led, 0)->detail, "Neg duplicates 'a': removed");
    assert_string_equal(fl__ledger_entry(&h.led, 1)->node, "q");
    assert_string_equal(fl__ledger_entry(&h.led, 1)->detail, "Exp duplicates 'p': removed");
    pt_fini(&h);
}

/* CSE's table starts small and doubles as nodes are entered: 200 distinct
 * Neg nodes (each of its own Placeholder, read twice, so none is set aside
 * as a lone reader) are entered before any duplicate is looked up (the
 * order is set so), and every lookup runs in a table grown several times
 * since its node went in. Each second Neg still merges into the first of
 * its Placeholder, and into no other (a table that lost or misplaced an
 * entry in growing keeps the duplicate or merges it into a wrong one). */
#define CSE_GROW_N 200
static void test_cse_table_grows(void **state) {
    (void)state;
    static const char *const kinds[4] = {"p", "a", "b", "y"};
    tg_graph *g = tg_new();
    char name[4][32];
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < CSE_GROW_N; i++) {
            for (int j = 0; j < 4; j++) {
                snprintf(name[j], sizeof name[j], "%s%d", kinds[j], i);
            }
            if (k == 0) {
                pt_ph(g, name[0], 2, D23);
            } else if (k < 3) {
                pt_op1(g, name[k], "Neg", name[0], F32);
            } else {
                pt_op2(g, name[3], "Mul", name[1], name[2], F32);
            }
        }
    }
    pt_run h;
    pt_load(&h, g);
    assert_int_equal(h.g->n_nodes, 4 * CSE_GROW_N);
    fl_node **order = fl__arena_calloc(&h.arena, 4 * CSE_GROW_N, sizeof(fl_node *));
    assert_non_null(order);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < CSE_GROW_N; i++) {
            snprintf(name[0], sizeof name[0], "%s%d", kinds[k], i);
            order[k * CSE_GROW_N + i] = pt_need(&h, name[0]);
        }
    }
    h.g->order = order;
    pt_pass(&h, fl__pass_common_subgraph_elimination, "cse", FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    assert_int_equal(h.g->n_nodes, 3 * CSE_GROW_N);
    assert_int_equal(pt_fired(&h, "common_subgraph", NULL), CSE_GROW_N);
    for (int i = 0; i < CSE_GROW_N; i++) {
        for (int j = 0; j < 4; j++) {
            snprintf(name[j], sizeof name[j], "%s%d", kinds[j], i);
        }
        pt_absent(&h, name[2]);
        pt_expect_node(&h, name[1], "Neg", name[0], NULL);
        pt_expect_node(&h, name[3], "Mul", name[1], name[1], NULL);
    }
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* Dependency optimizer                                                       */
/* ------------------------------------------------------------------------- */

static void test_dependency_const_control_edge(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "k", 0, NULL, (float[]){1}, 0);
    tg_node *y = tg_add(g, "y", "Neg", "x", "^k", NULL);
    tg_attr_type(y, "T", 1);
    expect_graph(g, "dependency", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_dependency_redundant_control_edge(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Abs", "x", F32);
    tg_node *y = tg_add(g, "y", "Neg", "a", "^a", NULL);
    tg_attr_type(y, "T", 1);
    expect_graph(g, "dependency", "x=Placeholder(); a=Abs(x); y=Neg(a)");
    tg_free(g);
}

static void test_dependency_bypass_identity(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_add(g, "c", "NoOp", "^x", NULL);
    tg_node *i = tg_add(g, "i", "Identity", "x", "^c", NULL);
    tg_attr_type(i, "T", 1);
    pt_op1(g, "y", "Neg", "i", F32);
    /* The NoOp c (one input, one consumer) is bypassed first, then i; the
     * control edge ^x they leave on y duplicates its data input. */
    expect_graph(g, "dependency", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_dependency_noop_kept_when_edges_increase(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "p1", 2, D23);
    pt_ph(g, "p2", 2, D23);
    pt_ph(g, "p3", 2, D23);
    tg_add(g, "n", "NoOp", "^p1", "^p2", "^p3", NULL);
    tg_node *y1 = tg_add(g, "y1", "Neg", "x", "^n", NULL);
    tg_attr_type(y1, "T", 1);
    tg_node *y2 = tg_add(g, "y2", "Sqrt", "x", "^n", NULL);
    tg_attr_type(y2, "T", 1);
    /* 3 inputs x 2 consumers = 6 edges > 3 + 2. */
    expect_graph(g, "dependency",
                 "x=Placeholder(); p1=Placeholder(); p2=Placeholder(); p3=Placeholder(); "
                 "n=NoOp(^p1,^p2,^p3); y1=Neg(x,^n); y2=Sqrt(x,^n)");
    tg_free(g);
}

static void test_dependency_convert_to_noop(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "a", "Abs", "x", F32);
    tg_node *y = tg_add(g, "y", "Neg", "x", "^a", NULL);
    tg_attr_type(y, "T", 1);
    pt_run *p = run(g, "dependency", 1);
    /* a becomes NoOp(^x), is bypassed, and ^x duplicates y's data input. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); y=Neg(x)");
    assert_true(pt_fired(p, "convert_to_noop", "a"));
    assert_true(pt_fired(p, "bypass_noop", "a"));
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Arithmetic and shape optimizers                                            */
/* ------------------------------------------------------------------------- */

static void test_arith_redundant_cast(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_node *c = tg_add(g, "c", "Cast", "x", NULL);
    tg_attr_type(c, "SrcT", 1);
    tg_attr_type(c, "DstT", 1);
    tg_node *c2 = tg_add(g, "c2", "Cast", "x", NULL);
    tg_attr_type(c2, "SrcT", 1);
    tg_attr_type(c2, "DstT", 2);
    pt_op2(g, "m", "Mul", "c", "c", F32);
    pt_op1(g, "y", "Neg", "m", F32);
    tg_node *y2 = tg_add(g, "y2", "Neg", "c2", NULL);
    tg_attr_type(y2, "T", 2);
    pt_run *p = run(g, "arithmetic", 1);
    /* Mul(x, x) also becomes Square in the same sweep. */
    assert_string_equal(pt_dump(p),
                        "x=Placeholder(); c2=Cast(x); m=Square(x); y=Neg(m); y2=Neg(c2)");
    assert_true(pt_fired(p, "remove_redundant_cast", "c"));
    assert_true(pt_fired(p, "replace_mul_with_square", "m"));
    pt_free(p);
    tg_free(g);
}

static void test_arith_involution(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "n1", "Neg", "x", F32);
    pt_op1(g, "n2", "Neg", "n1", F32);
    pt_op1(g, "y", "Abs", "n2", F32);
    pt_op1(g, "r", "Reciprocal", "x", F32);
    pt_op1(g, "y2", "Neg", "r", F32); /* different ops: kept */
    expect_graph(g, "arithmetic", "x=Placeholder(); y=Abs(x); r=Reciprocal(x); y2=Neg(r)");
    tg_free(g);
}

static void test_arith_log_softmax_and_squared_diff(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op1(g, "sm", "Softmax", "x", F32);
    pt_op1(g, "l", "Log", "sm", F32);
    pt_op2(g, "d", "Sub", "x", "z", F32);
    pt_op1(g, "sq", "Square", "d", F32);
    pt_op2(g, "y", "AddV2", "l", "sq", F32);
    expect_graph(g, "arithmetic",
                 "x=Placeholder(); z=Placeholder(); l=LogSoftmax(x); "
                 "sq=SquaredDifference(x,z); y=AddV2(l,sq)");
    tg_free(g);
}

static void test_arith_log_softmax_kept_when_softmax_shared(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_op1(g, "sm", "Softmax", "x", F32);
    pt_op1(g, "l", "Log", "sm", F32);
    pt_op2(g, "y", "AddV2", "l", "sm", F32);
    expect_graph(g, "arithmetic", "x=Placeholder(); sm=Softmax(x); l=Log(sm); y=AddV2(l,sm)");
    tg_free(g);
}

static void test_arith_remove_negation_and_logical_not(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op1(g, "nz", "Neg", "z", F32);
    pt_op2(g, "a", "AddV2", "x", "nz", F32);
    pt_op2(g, "s", "Sub", "a", "nz", F32);
    pt_op2(g, "lt", "Less", "s", "x", F32);
    tg_add(g, "ln", "LogicalNot", "lt", NULL);
    tg_add(g, "y", "LogicalAnd", "ln", "x", NULL);
    expect_graph(g, "arithmetic",
                 "x=Placeholder(); z=Placeholder(); a=Sub(x,z); s=AddV2(a,z); "
                 "ln=GreaterEqual(s,x); y=LogicalAnd(ln,x)");
    tg_free(g);
}

static void test_arith_transpose_pair(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 3, (int64_t[]){2, 3, 4});
    tg_const_int(g, "p1", 3, 1, (int64_t[]){3}, (int64_t[]){1, 2, 0});
    tg_const_int(g, "p2", 3, 1, (int64_t[]){3}, (int64_t[]){2, 0, 1});
    tg_node *t1 = tg_add(g, "t1", "Transpose", "x", "p1", NULL);
    tg_attr_type(t1, "T", 1);
    tg_node *t2 = tg_add(g, "t2", "Transpose", "t1", "p2", NULL);
    tg_attr_type(t2, "T", 1);
    pt_op1(g, "y", "Neg", "t2", F32);
    expect_graph(g, "arithmetic", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
    g = tg_new(); /* p1 twice is not the identity */
    pt_ph(g, "x", 3, (int64_t[]){2, 3, 4});
    tg_const_int(g, "p1", 3, 1, (int64_t[]){3}, (int64_t[]){1, 2, 0});
    t1 = tg_add(g, "t1", "Transpose", "x", "p1", NULL);
    tg_attr_type(t1, "T", 1);
    t2 = tg_add(g, "t2", "Transpose", "t1", "p1", NULL);
    tg_attr_type(t2, "T", 1);
    pt_op1(g, "y", "Neg", "t2", F32);
    expect_graph(g, "arithmetic",
                 "x=Placeholder(); p1=Const(); t1=Transpose(x,p1); "
                 "t2=Transpose(t1,p1); y=Neg(t2)");
    tg_free(g);
}

static void test_arith_redundant_reshape_symbolic(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_node *r = tg_add(g, "r", "Reshape", "x", "s", NULL);
    tg_attr_type(r, "T", 1);
    pt_op1(g, "y", "Neg", "r", F32);
    expect_graph(g, "arithmetic", "x=Placeholder(); y=Neg(x)");
    tg_free(g);
}

static void test_shape_prod_of_shape(void **state) {
    (void)state;
    tg_node *s, *p;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){0});
    p = tg_add(g, "p", "Prod", "s", "ax", NULL);
    tg_attr_type(p, "T", 3);
    tg_attr_bool(p, "keep_dims", 0);
    tg_node *y = tg_add(g, "y", "Neg", "p", NULL);
    tg_attr_type(y, "T", 3);
    expect_graph(g, "shape", "x=Placeholder(); ax=Const(); p=Size(x,^ax); y=Neg(p)");
    tg_free(g);
}

/* Size(x) / Size(Sum(x, axis 2)) with x [x.0,8,4]: x.0 cancels, 32 / 8 = 4.
 * `other` is the denominator's input: a second, unrelated placeholder when
 * `unrelated` (its free dim y.0 has no partner: no rewrite). */
static pt_run *size_ratio_graph(bool unrelated, int div_t) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 3, (int64_t[]){-1, 8, 4});
    pt_ph(g, "z", 2, (int64_t[]){-1, 8});
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){2});
    tg_node *sum = tg_add(g, "sum", "Sum", "x", "ax", NULL);
    tg_attr_type(sum, "T", 1);
    tg_attr_type(sum, "Tidx", 3);
    tg_attr_bool(sum, "keep_dims", 0);
    tg_node *sx = tg_add(g, "sx", "Size", "x", NULL);
    tg_attr_type(sx, "T", 1);
    tg_attr_type(sx, "out_type", div_t);
    tg_node *sy = tg_add(g, "sy", "Size", unrelated ? "z" : "sum", NULL);
    tg_attr_type(sy, "T", 1);
    tg_attr_type(sy, "out_type", div_t);
    tg_node *d = tg_add(g, "d", "Div", "sx", "sy", NULL);
    tg_attr_type(d, "T", div_t);
    tg_node *y = tg_add(g, "y", "Neg", "d", NULL);
    tg_attr_type(y, "T", div_t);
    tg_node *k = tg_add(g, "k", "Neg", "sum", NULL); /* keeps sum alive */
    tg_attr_type(k, "T", 1);
    pt_run *r = pt_pipeline(g, &(pt_opts){.passes = "shape", .iterations = 1});
    tg_free(g);
    return r;
}

static void test_shape_size_ratio(void **state) {
    (void)state;
    for (int t = 0; t < 2; t++) {
        pt_run *r = size_ratio_graph(false, t ? 9 : 3);
        assert_string_equal(pt_dump(r), "x=Placeholder(); z=Placeholder(); ax=Const(); "
                                        "sum=Sum(x,ax); sx=Size(x); sy=Size(sum); "
                                        "d=Const(^sx,^sy); y=Neg(d); k=Neg(sum)");
        assert_true(pt_fired(r, "size_ratio", "d"));
        assert_int_equal(pt_ci(r, "d", 0), 4);
        pt_expect_shape(r, "d", t ? 9 : 3, 0);
        pt_free(r);
    }
}

/* No partner for the denominator's symbol (z.0 vs x.0): kept. */
static void test_shape_size_ratio_kept(void **state) {
    (void)state;
    pt_run *r = size_ratio_graph(true, 3);
    assert_false(pt_fired(r, "size_ratio", "d"));
    pt_expect_node(r, "d", "Div", "sx", "sy", NULL);
    pt_free(r);
}

static void test_shape_prod_kept_when_keep_dims(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_const_int(g, "ax", 3, 1, (int64_t[]){1}, (int64_t[]){0});
    tg_node *p = tg_add(g, "p", "Prod", "s", "ax", NULL);
    tg_attr_type(p, "T", 3);
    tg_attr_bool(p, "keep_dims", 1);
    tg_node *y = tg_add(g, "y", "Neg", "p", NULL);
    tg_attr_type(y, "T", 3);
    expect_graph(g, "shape", "x=Placeholder(); s=Shape(x); ax=Const(); p=Prod(s,ax); y=Neg(p)");
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* Driver                                                                     */
/* ------------------------------------------------------------------------- */

static tg_graph *mixed_graph(void) {
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "one", 0, NULL, (float[]){1}, 0);
    tg_const_f32(g, "a", 0, NULL, (float[]){2}, 0);
    tg_const_f32(g, "b", 0, NULL, (float[]){3}, 0);
    pt_op2(g, "ab", "Mul", "a", "b", F32);
    pt_op1(g, "i", "Identity", "x", F32);
    pt_op2(g, "m", "Mul", "i", "one", F32);
    pt_op1(g, "n1", "Neg", "m", F32);
    pt_op1(g, "n2", "Neg", "m", F32);
    pt_op2(g, "s", "AddV2", "n1", "ab", F32);
    pt_op2(g, "t", "AddV2", "n2", "ab", F32);
    pt_op2(g, "y", "Mul", "s", "t", F32);
    return g;
}

static void test_pipeline_all_passes(void **state) {
    (void)state;
    tg_graph *g = mixed_graph();
    pt_run *p = run(g, NULL, 2);
    /* pruning drops i; cse merges n2 into n1 and t into s; constfold folds ab
     * and makes m an Identity with ^one; dependency drops ^one (and one),
     * then bypasses m. y = Mul(s, s) is the output: not rewritten. */
    assert_string_equal(pt_dump(p), "x=Placeholder(); ab=Const(); n1=Neg(x); s=AddV2(n1,ab); "
                                    "y=Mul(s,s)");
    const float *ab = const_floats(p, "ab");
    assert_true(ab[0] == 6.0f);
    /* One record per pass and iteration. */
    assert_int_equal(p->led.n_passes, 14);
    assert_string_equal(p->led.passes[0].pass, "pruning");
    assert_int_equal(p->led.passes[0].nodes_removed, 1);
    assert_string_equal(p->led.passes[1].pass, "cse");
    assert_int_equal(p->led.passes[1].nodes_removed, 2);
    /* After: Neg 6 + AddV2 6 + Mul 6 = 18 FLOPs (before: Mul(i, one) 6, two
     * Neg 12, two AddV2 12, Mul(a, b) 1, the output Mul 6 = 37). */
    assert_true(fl_sym_is_known(p->after.flops));
    assert_int_equal(p->after.flops.k, 18);
    pt_free(p);
    tg_free(g);
}

static void test_pipeline_none_changes_nothing(void **state) {
    (void)state;
    tg_graph *g = mixed_graph();
    pt_run *p = run(g, "none", 2);
    assert_int_equal(p->g->n_nodes, 12);
    assert_int_equal(p->led.n_passes, 0);
    pt_free(p);
    tg_free(g);
}

static void test_pipeline_bad_pass_name(void **state) {
    (void)state;
    fl_pipeline_config cfg;
    fl__pipeline_config_init(&cfg);
    cfg.passes = "pruning,frobnicate";
    bool on[FL_PASS_COUNT];
    fl_arena a;
    fl__arena_init(&a, 0);
    fl_diag d;
    fl__diag_init(&d, &a);
    assert_int_equal(fl__pipeline_select(&cfg, on, &d), FL_EUSAGE);
    assert_non_null(strstr(d.msg, "unknown pass 'frobnicate'"));
    fl__pipeline_config_init(&cfg);
    const char *dis[] = {"constfold"};
    cfg.disabled = dis;
    cfg.n_disabled = 1;
    fl__diag_init(&d, &a);
    assert_int_equal(fl__pipeline_select(&cfg, on, &d), FL_OK);
    assert_true(on[FL_PASS_PRUNING] && !on[FL_PASS_CONSTFOLD] && on[FL_PASS_DEPENDENCY]);
    fl__arena_free(&a);
}

/* Optimising an optimised graph changes nothing. */
static void test_pipeline_idempotent(void **state) {
    (void)state;
    tg_graph *g = mixed_graph();
    pt_run *p = run(g, NULL, 2);
    uint8_t *buf;
    size_t len;
    assert_int_equal(fl__graphdef_write(p->g, &buf, &len, &p->d), FL_OK);
    char first[8192];
    strcpy(first, pt_dump(p));
    pt_run *q = run_bytes(buf, len, NULL, 2, NULL, 0, 0);
    assert_string_equal(pt_dump(q), first);
    assert_int_equal(q->led.n_entries, 0);
    pt_free(q);
    pt_free(p);
    free(buf);
    tg_free(g);
}

/* The written graph re-imports with the same analysis as the pipeline's
 * "after", through the public API. */
static void test_write_reimport_equals_after(void **state) {
    (void)state;
    tg_graph *g = mixed_graph();
    size_t len;
    uint8_t *in = tg_pack(g, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    o.return_graph = true;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(in, len, &o, &r), FL_OK);
    assert_true(r->optimized);
    assert_int_equal(r->after.nodes, 5);
    assert_string_equal(r->before.flops.text, r->totals.flops.text);
    fl_options o2;
    fl_options_init(&o2);
    fl_report *r2 = NULL;
    assert_int_equal(fl_analyze(r->graph_bytes, r->graph_len, &o2, &r2), FL_OK);
    assert_string_equal(r2->totals.flops.text, r->after.flops.text);
    assert_string_equal(r2->totals.bytes.text, r->after.bytes.text);
    assert_string_equal(r2->totals.tfprof_flops.text, r->after.tfprof_flops.text);
    assert_int_equal(r2->n_nodes, r->after.nodes);
    fl_report_free(r2);
    fl_report_free(r);
    free(in);
    tg_free(g);
}

static void test_write_stripped_roundtrip(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_const_f32(g, "w", 2, D23, NULL, 1);
    tg_const_f32(g, "k", 0, NULL, (float[]){3}, 0);
    pt_op2(g, "s", "Mul", "w", "k", F32);
    pt_op2(g, "y", "Add", "x", "s", F32);
    pt_run *p = run(g, NULL, 2);
    uint8_t *buf;
    size_t len;
    assert_int_equal(fl__graphdef_write(p->g, &buf, &len, &p->d), FL_OK);
    pt_run *q = run_bytes(buf, len, "none", 1, NULL, 0, 0);
    const fl_node *s = fl__graph_find(q->g, "s");
    assert_non_null(s);
    assert_true(s->flags & FL_NODE_STRIPPED);
    assert_int_equal(fl__node_attr(s, "_stripped_content_bytes")->v.i, 24);
    assert_int_equal(s->outputs[0].shape.rank, 2);
    pt_free(q);
    pt_free(p);
    free(buf);
    tg_free(g);
}

static void test_output_names_and_missing_output(void **state) {
    (void)state;
    tg_graph *g = mixed_graph();
    size_t len;
    uint8_t *in = tg_pack(g, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "pruning";
    const char *outs[] = {"nope"};
    o.output_names = outs;
    o.n_output_names = 1;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(in, len, &o, &r), FL_EUSAGE);
    assert_non_null(strstr(r->error, "output 'nope' names no node"));
    fl_report_free(r);
    outs[0] = "n1";
    r = NULL;
    assert_int_equal(fl_analyze(in, len, &o, &r), FL_OK);
    assert_int_equal(r->after.nodes, 4); /* x, one, m, n1 (z-side dropped, i bypassed) */
    fl_report_free(r);
    free(in);
    tg_free(g);
}

/* Bindings apply again after every pass (the placeholders are re-read). */
static void test_pipeline_keeps_bindings(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){-1, 3});
    pt_op1(g, "i", "Identity", "x", F32);
    pt_op1(g, "y", "Neg", "i", F32);
    size_t len;
    uint8_t *in = tg_pack(g, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    fl_symbol_binding sb = {"x.0", 4};
    o.symbols = &sb;
    o.n_symbols = 1;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(in, len, &o, &r), FL_OK);
    assert_true(r->after.flops.known);
    assert_int_equal(r->after.flops.value, 12);
    assert_int_equal(r->after.nodes, 2);
    fl_report_free(r);
    fl_options_init(&o);
    o.passes = "default";
    fl_input_binding ib = {"x", 2, (int64_t[]){5, 3}};
    o.inputs = &ib;
    o.n_inputs = 1;
    r = NULL;
    assert_int_equal(fl_analyze(in, len, &o, &r), FL_OK);
    assert_int_equal(r->after.flops.value, 15);
    fl_report_free(r);
    free(in);
    tg_free(g);
}

static void test_pruner_identity_kept_when_fed_by_switch(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    tg_placeholder(g, "pred", 10, 0, NULL);
    tg_node *sw = tg_add(g, "sw", "Switch", "x", "pred", NULL);
    tg_attr_type(sw, "T", 1);
    pt_op1(g, "i", "Identity", "sw:1", F32);
    pt_op1(g, "y", "Neg", "i", F32);
    pt_op1(g, "y0", "Abs", "sw", F32);
    expect_graph(g, "pruning",
                 "x=Placeholder(); pred=Placeholder(); sw=Switch(x,pred); i=Identity(sw:1); "
                 "y=Neg(i); y0=Abs(sw)");
    tg_free(g);
}

static void test_pruner_identity_kept_when_feeding_merge(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op1(g, "i", "Identity", "x", F32);
    tg_node *m = tg_add(g, "m", "Merge", "i", "z", NULL);
    tg_attr_type(m, "T", 1);
    tg_attr_int(m, "N", 2);
    expect_graph(g, "pruning", "x=Placeholder(); z=Placeholder(); i=Identity(x); m=Merge(i,z)");
    tg_free(g);
}

static void test_materialize_shape_kept_when_leading_zero(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, (int64_t[]){0, 3});
    tg_node *s = tg_add(g, "s", "Shape", "x", NULL);
    tg_attr_type(s, "T", 1);
    tg_attr_type(s, "out_type", 3);
    tg_node *r = tg_add(g, "r", "Reshape", "x", "s", NULL);
    tg_attr_type(r, "T", 1);
    expect_graph(g, "constfold", "x=Placeholder(); s=Shape(x); r=Reshape(x,s)");
    tg_free(g);
}

static void test_arith_kept_when_control_input_or_shared(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    tg_node *c = tg_add(g, "c", "Cast", "x", "^z", NULL);
    tg_attr_type(c, "SrcT", 1);
    tg_attr_type(c, "DstT", 1);
    pt_op1(g, "y", "Neg", "c", F32);
    pt_op2(g, "d", "Sub", "x", "z", F32);
    pt_op1(g, "sq", "Square", "d", F32);
    pt_op2(g, "y2", "AddV2", "sq", "d", F32); /* the Sub is read twice: not fused */
    tg_node *lt = tg_add(g, "lt", "Less", "x", "z", NULL);
    tg_attr_type(lt, "T", 1);
    tg_add(g, "ln", "LogicalNot", "lt", NULL);
    tg_add(g, "y3", "LogicalAnd", "ln", "lt", NULL); /* the comparison is read twice */
    expect_graph(g, "arithmetic",
                 "x=Placeholder(); z=Placeholder(); c=Cast(x,^z); y=Neg(c); d=Sub(x,z); "
                 "sq=Square(d); y2=AddV2(sq,d); lt=Less(x,z); ln=LogicalNot(lt); "
                 "y3=LogicalAnd(ln,lt)");
    tg_free(g);
}

static void test_dependency_identity_kept_when_feeding_merge(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    pt_ph(g, "x", 2, D23);
    pt_ph(g, "z", 2, D23);
    pt_op1(g, "i", "Identity", "x", F32);
    tg_node *m = tg_add(g, "m", "Merge", "i", "z", NULL);
    tg_attr_type(m, "T", 1);
    tg_attr_int(m, "N", 2);
    expect_graph(g, "dependency", "x=Placeholder(); z=Placeholder(); i=Identity(x); m=Merge(i,z)");
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pruner_identity_removed),
        cmocka_unit_test(test_pruner_identity_chain_removed),
        cmocka_unit_test(test_pruner_identity_kept_when_output),
        cmocka_unit_test(test_pruner_identity_kept_when_control_input),
        cmocka_unit_test(test_pruner_identity_kept_when_control_consumer),
        cmocka_unit_test(test_pruner_kept_when_edges_increase),
        cmocka_unit_test(test_pruner_stop_gradient_forwards_control),
        cmocka_unit_test(test_pruner_snapshot_kept),
        cmocka_unit_test(test_pruner_addn_single_input),
        cmocka_unit_test(test_pruner_dead_code_with_outputs),
        cmocka_unit_test(test_pruner_noop_without_inputs),
        cmocka_unit_test(test_fold_add_exact_values),
        cmocka_unit_test(test_fold_int_exact),
        cmocka_unit_test(test_fold_kept_when_stateful),
        cmocka_unit_test(test_fold_size_limit),
        cmocka_unit_test(test_fold_stripped),
        cmocka_unit_test(test_materialize_shape),
        cmocka_unit_test(test_materialize_shape_kept_when_symbolic),
        cmocka_unit_test(test_multiply_by_one),
        cmocka_unit_test(test_multiply_by_one_broadcasting),
        cmocka_unit_test(test_multiply_by_one_kept_when_not_one),
        cmocka_unit_test(test_add_zero_left_and_sub_zero),
        cmocka_unit_test(test_sub_from_zero_is_neg),
        cmocka_unit_test(test_multiply_by_zero),
        cmocka_unit_test(test_tile_by_ones),
        cmocka_unit_test(test_tile_kept_when_multiple_not_one),
        cmocka_unit_test(test_identity_transpose),
        cmocka_unit_test(test_reshape_to_same_shape),
        cmocka_unit_test(test_squeeze_nothing_kept_when_size_one),
        cmocka_unit_test(test_fold_kept_when_output_preserved_multi),
        cmocka_unit_test(test_cse_merges_duplicates),
        cmocka_unit_test(test_cse_kept_when_attrs_differ),
        cmocka_unit_test(test_cse_list_attrs),
        cmocka_unit_test(test_cse_kept_when_stateful),
        cmocka_unit_test(test_cse_kept_when_preserved),
        cmocka_unit_test(test_cse_lone_reader_found_later),
        cmocka_unit_test(test_cse_table_grows),
        cmocka_unit_test(test_dependency_const_control_edge),
        cmocka_unit_test(test_dependency_redundant_control_edge),
        cmocka_unit_test(test_dependency_bypass_identity),
        cmocka_unit_test(test_dependency_noop_kept_when_edges_increase),
        cmocka_unit_test(test_dependency_convert_to_noop),
        cmocka_unit_test(test_arith_redundant_cast),
        cmocka_unit_test(test_arith_involution),
        cmocka_unit_test(test_arith_log_softmax_and_squared_diff),
        cmocka_unit_test(test_arith_log_softmax_kept_when_softmax_shared),
        cmocka_unit_test(test_arith_remove_negation_and_logical_not),
        cmocka_unit_test(test_arith_transpose_pair),
        cmocka_unit_test(test_arith_redundant_reshape_symbolic),
        cmocka_unit_test(test_shape_prod_of_shape),
        cmocka_unit_test(test_shape_size_ratio),
        cmocka_unit_test(test_shape_size_ratio_kept),
        cmocka_unit_test(test_shape_prod_kept_when_keep_dims),
        cmocka_unit_test(test_pipeline_all_passes),
        cmocka_unit_test(test_pipeline_none_changes_nothing),
        cmocka_unit_test(test_pipeline_bad_pass_name),
        cmocka_unit_test(test_pipeline_idempotent),
        cmocka_unit_test(test_write_reimport_equals_after),
        cmocka_unit_test(test_write_stripped_roundtrip),
        cmocka_unit_test(test_output_names_and_missing_output),
        cmocka_unit_test(test_pipeline_keeps_bindings),
        cmocka_unit_test(test_pruner_identity_kept_when_fed_by_switch),
        cmocka_unit_test(test_pruner_identity_kept_when_feeding_merge),
        cmocka_unit_test(test_materialize_shape_kept_when_leading_zero),
        cmocka_unit_test(test_arith_kept_when_control_input_or_shared),
        cmocka_unit_test(test_dependency_identity_kept_when_feeding_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
