/*
 * test_remapper_gru.c - the remapper's row 12 (src/passes/remapper.c,
 * rewrite_gru_cell: the GRU / AUGRU cell -> GRUBlockCell / AUGRUBlockCell,
 * consumers moved to output 3) and row 17's standalone-Gelu form
 * (rewrite_matmul_gelu_op: MatMul -> BiasAdd -> Gelu -> _FusedMatMul
 * [BiasAdd, GeluExact | GeluApproximate]), oneDNN mode. Each rule: the
 * exact rewritten graph, then one graph per condition that blocks it.
 *
 * The cell (B = 2, I = 3, H = 4):
 *   x [2,3], h [2,4], w_ru [7,8], b_ru [8], w_c [7,4], b_c [4]
 *   g/concat = ConcatV2(x, h, axis);  g/sig = Sigmoid(BiasAdd(MatMul(., w_ru), b_ru))
 *   g/split = Split(split_dim, g/sig) (r = :0, u = :1)
 *   g/rh = Mul(g/split, h);  g/concat1 = ConcatV2(x, g/rh, axis)
 *   g/tanh = Tanh(BiasAdd(MatMul(g/concat1, w_c), b_c))
 *   g/sub = Sub(one, u);  g/uh = Mul(u, h);  g/uc = Mul(g/sub, g/tanh)
 *   g/h = AddV2(g/uh, g/uc);  out = Identity(g/h)
 * AUGRU: u := g/au = Mul(g/split:1, g/asub = Sub(one_a, att)), att [2,1].
 * FLOPs (test_ops_rnn.c): 424 for the cell, 434 with the attention; the
 * unfused chain counts the same.
 */
#include "passtest.h"

#include <stdio.h>
#include <string.h>

typedef struct gru_opts {
    int t;              /* T of every op (F32 default) */
    bool augru;         /* the attention form */
    bool add_not_addv2; /* the root is Add */
    bool swap_root;     /* AddV2(g/uc, g/uh) */
    bool swap_muls;     /* Mul(h, r), Mul(h, u), Mul(g/tanh, g/sub) */
    bool extra_sig;     /* a second reader of g/sig */
    bool ctrl_uh;       /* g/uh has a control input */
    bool other_h;       /* g/uh reads h2, not h */
    bool twice;         /* a consumer reads g/h twice */
} gru_opts;

static tg_node *op2(tg_graph *g, const char *name, const char *op, const char *a, const char *b,
                    int t) {
    return pt_op2(g, name, op, a, b, t);
}

static tg_graph *gru_graph(const gru_opts *o) {
    int t = o->t ? o->t : F32;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", t, 2, (const int64_t[]){2, 3});
    tg_placeholder(g, "h", t, 2, (const int64_t[]){2, 4});
    if (o->other_h) {
        tg_placeholder(g, "h2", t, 2, (const int64_t[]){2, 4});
    }
    int32_t one_i = 1;
    tg_const_i32_vals(g, "axis", 0, NULL, &one_i, 1);
    tg_const_i32_vals(g, "split_dim", 0, NULL, &one_i, 1);
    if (t == F64) {
        double w1[56] = {0}, w2[28] = {0}, b1[8] = {0}, b2[4] = {0}, one = 1.0;
        tg_const_raw(g, "w_ru", F64, 2, (const int64_t[]){7, 8}, w1, sizeof w1);
        tg_const_raw(g, "w_c", F64, 2, (const int64_t[]){7, 4}, w2, sizeof w2);
        tg_const_raw(g, "b_ru", F64, 1, (const int64_t[]){8}, b1, sizeof b1);
        tg_const_raw(g, "b_c", F64, 1, (const int64_t[]){4}, b2, sizeof b2);
        tg_const_raw(g, "one", F64, 0, NULL, &one, sizeof one);
    } else {
        tg_const_f32(g, "w_ru", 2, (const int64_t[]){7, 8}, NULL, 0);
        tg_const_f32(g, "w_c", 2, (const int64_t[]){7, 4}, NULL, 0);
        tg_const_f32(g, "b_ru", 1, (const int64_t[]){8}, NULL, 0);
        tg_const_f32(g, "b_c", 1, (const int64_t[]){4}, NULL, 0);
        pt_scalar(g, "one", 1.0f);
    }
    tg_node *n = tg_add(g, "g/concat", "ConcatV2", "x", "h", "axis", NULL);
    tg_attr_type(n, "T", t);
    tg_attr_int(n, "N", 2);
    tg_attr_type(n, "Tidx", I32);
    op2(g, "g/mm_ru", "MatMul", "g/concat", "w_ru", t);
    op2(g, "g/b_ru", "BiasAdd", "g/mm_ru", "b_ru", t);
    pt_op1(g, "g/sig", "Sigmoid", "g/b_ru", t);
    n = op2(g, "g/split", "Split", "split_dim", "g/sig", t);
    tg_attr_int(n, "num_split", 2);
    if (o->swap_muls) {
        op2(g, "g/rh", "Mul", "h", "g/split", t);
    } else {
        op2(g, "g/rh", "Mul", "g/split", "h", t);
    }
    n = tg_add(g, "g/concat1", "ConcatV2", "x", "g/rh", "axis", NULL);
    tg_attr_type(n, "T", t);
    tg_attr_int(n, "N", 2);
    tg_attr_type(n, "Tidx", I32);
    op2(g, "g/mm_c", "MatMul", "g/concat1", "w_c", t);
    op2(g, "g/b_c", "BiasAdd", "g/mm_c", "b_c", t);
    pt_op1(g, "g/tanh", "Tanh", "g/b_c", t);
    const char *u = "g/split:1";
    if (o->augru) {
        tg_placeholder(g, "att", t, 2, (const int64_t[]){2, 1});
        pt_scalar(g, "one_a", 1.0f);
        op2(g, "g/asub", "Sub", "one_a", "att", t);
        op2(g, "g/au", "Mul", "g/split:1", "g/asub", t);
        u = "g/au";
    }
    op2(g, "g/sub", "Sub", "one", u, t);
    const char *hh = o->other_h ? "h2" : "h";
    if (o->ctrl_uh) {
        tg_placeholder(g, "c", t, 0, NULL);
        tg_attr_type(
            tg_add(g, "g/uh", "Mul", o->swap_muls ? hh : u, o->swap_muls ? u : hh, "^c", NULL), "T",
            t);
    } else if (o->swap_muls) {
        op2(g, "g/uh", "Mul", hh, u, t);
    } else {
        op2(g, "g/uh", "Mul", u, hh, t);
    }
    if (o->swap_muls) {
        op2(g, "g/uc", "Mul", "g/tanh", "g/sub", t);
    } else {
        op2(g, "g/uc", "Mul", "g/sub", "g/tanh", t);
    }
    const char *root = o->add_not_addv2 ? "Add" : "AddV2";
    if (o->swap_root) {
        op2(g, "g/h", root, "g/uc", "g/uh", t);
    } else {
        op2(g, "g/h", root, "g/uh", "g/uc", t);
    }
    if (o->twice) {
        op2(g, "out", "Mul", "g/h", "g/h", t);
    } else {
        pt_op1(g, "out", "Identity", "g/h", t);
    }
    if (o->extra_sig) {
        pt_op1(g, "other", "Identity", "g/sig", t);
    }
    return g;
}

static const char *const CONSTS =
    "x=Placeholder(); h=Placeholder(); axis=Const(); split_dim=Const(); w_ru=Const(); "
    "w_c=Const(); b_ru=Const(); b_c=Const(); one=Const(); ";

/* Single remapper pass on the CPU target (or `dev`), oneDNN unless `mode`. */
static void remap1(pt_run *h, const gru_opts *o, fl_device dev, fl_remapper_mode mode) {
    pt_load(h, gru_graph(o));
    pt_remap(h, dev, mode);
}

static void expect_gru_fused(pt_run *h, const char *op) {
    assert_true(pt_fired(h, strcmp(op, "GRUBlockCell") == 0 ? "gru_block_cell" : "augru_block_cell",
                         "g/h"));
    const fl_node *f = pt_need(h, "g/h");
    assert_string_equal(f->op, op);
    assert_int_equal(f->n_outputs, 4);
    assert_int_equal(pt_attr_t(h, "g/h", "T"), FL_DT_FLOAT);
    /* only T: remapper.cc's lbr/training never reach the graph */
    assert_int_equal(f->n_attrs, 1);
    assert_null(fl__node_attr(f, "lbr"));
    assert_null(fl__node_attr(f, "training"));
    for (int p = 0; p < 4; p++) {
        assert_int_equal(f->outputs[p].shape.rank, 2);
        assert_int_equal(f->outputs[p].shape.dims[0].k, 2);
        assert_int_equal(f->outputs[p].shape.dims[1].k, 4);
    }
}

static void test_gru_fused(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){0}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    char want[1024];
    snprintf(want, sizeof want, "%sout=Identity(g/h:3); g/h=GRUBlockCell(x,h,w_ru,w_c,b_ru,b_c)",
             CONSTS);
    assert_string_equal(pt_dump(&h), want);
    expect_gru_fused(&h, "GRUBlockCell");
    pt_expect_node(&h, "g/h", "GRUBlockCell", "x", "h", "w_ru", "w_c", "b_ru", "b_c", NULL);
    pt_expect_node(&h, "out", "Identity", "g/h:3", NULL);
    pt_expect_cost(&h, "g/h", 424, 0, 168);
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 13);
    assert_int_equal(h.pc.added, 0);
    pt_fini(&h);
}

/* The FLOPs of the chain are kept by the fusion (pipeline, remapper only). */
static void test_gru_flops_kept(void **state) {
    (void)state;
    tg_graph *g = gru_graph(&(gru_opts){0});
    pt_run *p = pt_pipeline(g, &(pt_opts){.passes = "remap",
                                          .iterations = 1,
                                          .device = FL_DEVICE_CPU,
                                          .remapper_mode = FL_REMAPPER_ONEDNN});
    assert_true(pt_fired(p, "gru_block_cell", "g/h"));
    assert_int_equal(p->before.flops.k, 424);
    assert_int_equal(p->after.flops.k, 424);
    assert_int_equal(p->before.macs.k, 168);
    assert_int_equal(p->after.macs.k, 168);
    pt_free(p);
    tg_free(g);
}

static void test_augru_fused(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.augru = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    char want[1024];
    snprintf(want, sizeof want,
             "%satt=Placeholder(); one_a=Const(); out=Identity(g/h:3); "
             "g/h=AUGRUBlockCell(x,h,att,w_ru,w_c,b_ru,b_c)",
             CONSTS);
    assert_string_equal(pt_dump(&h), want);
    expect_gru_fused(&h, "AUGRUBlockCell");
    pt_expect_node(&h, "g/h", "AUGRUBlockCell", "x", "h", "att", "w_ru", "w_c", "b_ru", "b_c",
                   NULL);
    pt_expect_cost(&h, "g/h", 434, 0, 168);
    assert_int_equal(h.pc.removed, 15);
    pt_fini(&h);

    tg_graph *g = gru_graph(&(gru_opts){.augru = true});
    pt_run *p = pt_pipeline(g, &(pt_opts){.passes = "remap",
                                          .iterations = 1,
                                          .device = FL_DEVICE_CPU,
                                          .remapper_mode = FL_REMAPPER_ONEDNN});
    assert_int_equal(p->before.flops.k, 434);
    assert_int_equal(p->after.flops.k, 434);
    pt_free(p);
    tg_free(g);
}

/* Mul operands in the other order: the matcher's look-ahead swaps them. */
static void test_gru_commuted_muls(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.swap_muls = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gru_fused(&h, "GRUBlockCell");
    pt_expect_node(&h, "g/h", "GRUBlockCell", "x", "h", "w_ru", "w_c", "b_ru", "b_c", NULL);
    pt_fini(&h);
}

/* No placement condition: a GPU target fuses too. */
static void test_gru_any_device(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){0}, FL_DEVICE_GPU, FL_REMAPPER_ONEDNN);
    expect_gru_fused(&h, "GRUBlockCell");
    pt_fini(&h);
}

/* bfloat16 is accepted (T copied from the AddV2). */
static void test_gru_bf16(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.t = BF16}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    assert_true(pt_fired(&h, "gru_block_cell", "g/h"));
    pt_expect_node(&h, "g/h", "GRUBlockCell", "x", "h", "w_ru", "w_c", "b_ru", "b_c", NULL);
    assert_int_equal(pt_attr_t(&h, "g/h", "T"), FL_DT_BFLOAT16);
    pt_fini(&h);
}

/* A consumer reading the AddV2 twice: only its first input moves to h (the
 * second reads r), as ChangeFanoutPort does. */
static void test_gru_consumer_reads_twice(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.twice = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    assert_true(pt_fired(&h, "gru_block_cell", "g/h"));
    pt_expect_node(&h, "out", "Mul", "g/h:3", "g/h", NULL);
    pt_fini(&h);
}

/* The cell ops are left as they were (the Sigmoid/Tanh chains may still be
 * fused into _FusedMatMul by their own rules). */
static void expect_no_gru(pt_run *h) {
    assert_false(pt_fired(h, "gru_block_cell", NULL));
    assert_false(pt_fired(h, "augru_block_cell", NULL));
    const fl_node *root = pt_need(h, "g/h");
    assert_true(strcmp(root->op, "AddV2") == 0 || strcmp(root->op, "Add") == 0);
    pt_expect_node(h, "g/split", "Split", "split_dim", "g/sig", NULL);
    pt_expect_node(h, "g/concat", "ConcatV2", "x", "h", "axis", NULL);
}

static void test_gru_kept_in_stock_mode(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){0}, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_no_gru(&h);
    pt_fini(&h);
}

static void test_gru_kept_when_double(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.t = F64}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_fini(&h);
}

static void test_gru_kept_when_root_is_add(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.add_not_addv2 = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_fini(&h);
}

/* AddV2(g/uc, g/uh): both inputs are Muls, so no swap, and the pattern's
 * order (u * h first) does not match. */
static void test_gru_kept_when_root_operands_swapped(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.swap_root = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_fini(&h);
}

static void test_gru_kept_when_intermediate_has_other_consumer(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.extra_sig = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_expect_node(&h, "other", "Identity", "g/sig", NULL);
    pt_fini(&h);
}

static void test_gru_kept_when_control_input(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.ctrl_uh = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_expect_ctrl(&h, "g/uh", "c", NULL);
    pt_fini(&h);
}

/* u * h2 with h2 not the h of the concat: the label "identity" must be one
 * node. */
static void test_gru_kept_when_state_differs(void **state) {
    (void)state;
    pt_run h;
    remap1(&h, &(gru_opts){.other_h = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_no_gru(&h);
    pt_fini(&h);
}

/* A preserved intermediate (a fetched ns_mul1) blocks the removal. */
static void test_gru_kept_when_intermediate_preserved(void **state) {
    (void)state;
    tg_graph *g = gru_graph(&(gru_opts){0});
    static const char *const outs[] = {"out", "g/uc"};
    pt_run *p = pt_pipeline(g, &(pt_opts){.passes = "remap",
                                          .iterations = 1,
                                          .outputs = outs,
                                          .n_outputs = 2,
                                          .device = FL_DEVICE_CPU,
                                          .remapper_mode = FL_REMAPPER_ONEDNN});
    assert_false(pt_fired(p, "gru_block_cell", NULL));
    assert_string_equal(pt_need(p, "g/h")->op, "AddV2");
    assert_string_equal(pt_need(p, "g/uc")->op, "Mul");
    pt_free(p);
    tg_free(g);
}

/* ------------------------------------------------------------------------- */
/* MatMul + BiasAdd + Gelu op                                                 */
/* ------------------------------------------------------------------------- */

typedef struct gelu_opts {
    int approximate; /* -1: no attr, 0 false, 1 true */
    int t;           /* F32 default */
    bool extra_bias; /* a second reader of the BiasAdd */
    bool extra_mm;   /* a second reader of the MatMul */
    bool ctrl_gelu;  /* the Gelu has a control input */
    bool transpose_b;
} gelu_opts;

static tg_graph *gelu_graph(const gelu_opts *o) {
    int t = o->t ? o->t : F32;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", t, 2, (const int64_t[]){4, 8});
    if (t == F64) {
        double w[128] = {0}, b[16] = {0};
        tg_const_raw(g, "w", F64, 2, (const int64_t[]){8, 16}, w, sizeof w);
        tg_const_raw(g, "b", F64, 1, (const int64_t[]){16}, b, sizeof b);
    } else {
        tg_const_f32(g, "w", 2, (const int64_t[]){8, 16}, NULL, 0);
        tg_const_f32(g, "b", 1, (const int64_t[]){16}, NULL, 0);
    }
    tg_node *mm = op2(g, "mm", "MatMul", "a", o->transpose_b ? "wt" : "w", t);
    if (o->transpose_b) {
        tg_const_f32(g, "wt", 2, (const int64_t[]){16, 8}, NULL, 0);
        tg_attr_bool(mm, "transpose_b", 1);
    }
    op2(g, "y", "BiasAdd", "mm", "b", t);
    tg_node *ge = o->ctrl_gelu ? tg_add(g, "gelu", "Gelu", "y", "^a", NULL)
                               : tg_add(g, "gelu", "Gelu", "y", NULL);
    tg_attr_type(ge, "T", t);
    if (o->approximate >= 0) {
        tg_attr_bool(ge, "approximate", o->approximate);
    }
    pt_op1(g, "out", "Identity", "gelu", t);
    if (o->extra_bias) {
        pt_op1(g, "other", "Identity", "y", t);
    }
    if (o->extra_mm) {
        pt_op1(g, "other", "Identity", "mm", t);
    }
    return g;
}

static void gelu_remap(pt_run *h, const gelu_opts *o, fl_device dev, fl_remapper_mode mode) {
    pt_load(h, gelu_graph(o));
    pt_remap(h, dev, mode);
}

static void expect_gelu_fused(pt_run *h, const char *act) {
    assert_true(pt_fired(h, "matmul_bias_gelu_op", "gelu"));
    pt_expect_node(h, "gelu", "_FusedMatMul", "a", "w", "b", NULL);
    pt_expect_strs(h, "gelu", "fused_ops", 2, "BiasAdd", act);
    assert_int_equal(pt_attr_i(h, "gelu", "num_args"), 1);
    assert_true(pt_attr_f(h, "gelu", "epsilon") == 0.0f);
    assert_int_equal(pt_attr_t(h, "gelu", "T"), FL_DT_FLOAT);
    assert_false(pt_attr_bool(h, "gelu", "transpose_a"));
    assert_false(pt_attr_bool(h, "gelu", "transpose_b"));
    pt_expect_shape(h, "gelu", F32, 2, 4, 16);
    assert_int_equal(h->pc.rewritten, 1);
    assert_int_equal(h->pc.removed, 2);
}

static void test_gelu_op_exact(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.approximate = 0}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    assert_string_equal(pt_dump(&h), "a=Placeholder(); w=Const(); b=Const(); out=Identity(gelu); "
                                     "gelu=_FusedMatMul(a,w,b)");
    expect_gelu_fused(&h, "GeluExact");
    /* nn.c: MatMul 2*4*8*16 = 1024, BiasAdd 64, GeluExact 5 * 64 */
    pt_expect_cost(&h, "gelu", 1024 + 64 + 5 * 64, 0, 512);
    pt_fini(&h);
}

static void test_gelu_op_approximate(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.approximate = 1}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_fused(&h, "GeluApproximate");
    pt_expect_cost(&h, "gelu", 1024 + 64 + 9 * 64, 0, 512);
    pt_fini(&h);
}

/* No `approximate` attr: false, the registry's default. */
static void test_gelu_op_default_exact(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.approximate = -1}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_fused(&h, "GeluExact");
    pt_fini(&h);
}

/* MatMul attrs are copied (transpose_b). */
static void test_gelu_op_copies_transpose(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.approximate = 0, .transpose_b = true}, FL_DEVICE_CPU,
               FL_REMAPPER_ONEDNN);
    assert_true(pt_fired(&h, "matmul_bias_gelu_op", "gelu"));
    pt_expect_node(&h, "gelu", "_FusedMatMul", "a", "wt", "b", NULL);
    assert_true(pt_attr_bool(&h, "gelu", "transpose_b"));
    pt_fini(&h);
}

/* Not fused: the Gelu stays; MatMul+BiasAdd may still become _FusedMatMul
 * [BiasAdd] named y by row 1. */
static void expect_gelu_kept(pt_run *h) {
    assert_false(pt_fired(h, "matmul_bias_gelu_op", NULL));
    assert_string_equal(pt_need(h, "gelu")->op, "Gelu");
}

static void test_gelu_op_kept_in_stock_mode(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){0}, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_gelu_kept(&h);
    pt_expect_node(&h, "gelu", "Gelu", "y", NULL);
    pt_expect_node(&h, "y", "_FusedMatMul", "a", "w", "b", NULL);
    pt_fini(&h);
}

static void test_gelu_op_kept_on_gpu(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){0}, FL_DEVICE_GPU, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(&h);
    pt_expect_node(&h, "y", "BiasAdd", "mm", "b", NULL);
    pt_fini(&h);
}

static void test_gelu_op_kept_when_double(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.t = F64}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(&h);
    pt_expect_node(&h, "mm", "MatMul", "a", "w", NULL);
    pt_fini(&h);
}

/* The BiasAdd read by another node: it cannot be removed (kRemove). */
static void test_gelu_op_kept_when_bias_has_other_consumer(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.extra_bias = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(&h);
    pt_expect_node(&h, "gelu", "Gelu", "y", NULL);
    pt_fini(&h);
}

static void test_gelu_op_kept_when_matmul_has_other_consumer(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.extra_mm = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(&h);
    pt_expect_node(&h, "y", "BiasAdd", "mm", "b", NULL);
    pt_expect_node(&h, "mm", "MatMul", "a", "w", NULL);
    pt_fini(&h);
}

static void test_gelu_op_kept_when_control_input(void **state) {
    (void)state;
    pt_run h;
    gelu_remap(&h, &(gelu_opts){.ctrl_gelu = true}, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(&h);
    pt_expect_ctrl(&h, "gelu", "a", NULL);
    pt_fini(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gru_fused),
        cmocka_unit_test(test_gru_flops_kept),
        cmocka_unit_test(test_augru_fused),
        cmocka_unit_test(test_gru_commuted_muls),
        cmocka_unit_test(test_gru_any_device),
        cmocka_unit_test(test_gru_bf16),
        cmocka_unit_test(test_gru_consumer_reads_twice),
        cmocka_unit_test(test_gru_kept_in_stock_mode),
        cmocka_unit_test(test_gru_kept_when_double),
        cmocka_unit_test(test_gru_kept_when_root_is_add),
        cmocka_unit_test(test_gru_kept_when_root_operands_swapped),
        cmocka_unit_test(test_gru_kept_when_intermediate_has_other_consumer),
        cmocka_unit_test(test_gru_kept_when_control_input),
        cmocka_unit_test(test_gru_kept_when_state_differs),
        cmocka_unit_test(test_gru_kept_when_intermediate_preserved),
        cmocka_unit_test(test_gelu_op_exact),
        cmocka_unit_test(test_gelu_op_approximate),
        cmocka_unit_test(test_gelu_op_default_exact),
        cmocka_unit_test(test_gelu_op_copies_transpose),
        cmocka_unit_test(test_gelu_op_kept_in_stock_mode),
        cmocka_unit_test(test_gelu_op_kept_on_gpu),
        cmocka_unit_test(test_gelu_op_kept_when_double),
        cmocka_unit_test(test_gelu_op_kept_when_bias_has_other_consumer),
        cmocka_unit_test(test_gelu_op_kept_when_matmul_has_other_consumer),
        cmocka_unit_test(test_gelu_op_kept_when_control_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
