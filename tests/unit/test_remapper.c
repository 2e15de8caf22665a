/*
 * test_remapper.c - the remapper pass (src/passes/remapper.c): each rule
 * fires on a small graph built with testgraph.h and gives exactly TensorFlow's
 * fused node (name, op, inputs, attrs); each blocking condition has a
 * not_fused_due_to_<reason> test; and the tf-unfused corpus round trip
 * re-fuses every chain as stock TensorFlow would (checked chain by chain
 * against the .expect.json files by test_remapper_roundtrip.py).
 *
 * The harness runs the pass on its own: import -> toposort -> infer -> cost,
 * mark nodes without consumers preserved, run fl__pass_remapper, then re-sort,
 * verify, re-infer and re-cost the result.
 */
#include "passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness (passtest.h)                                                       */
/* ------------------------------------------------------------------------- */

/* Packs tg (kept), loads it and runs the remapper. */
static void run_tg(pt_run *h, tg_graph *tg, fl_device dev, fl_remapper_mode mode) {
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    assert_int_equal(pt_load_bytes(h, bytes, len), FL_OK);
    free(bytes);
    pt_remap(h, dev, mode);
}

/* ------------------------------------------------------------------------- */
/* Graph builders                                                             */
/* ------------------------------------------------------------------------- */

typedef struct chain_opts {
    const char *contraction; /* Conv2D (default), DepthwiseConv2dNative, MatMul */
    const char *act;         /* NULL: none */
    int dtype;               /* default float */
    const char *format;      /* default NHWC */
    const char *device;      /* default "" */
    const char *act_device;  /* default: device */
    int extra_conv_use;      /* another consumer of the contraction */
    int extra_bias_use;      /* another consumer of the BiasAdd */
    int ctrl_on_bias;        /* a control input on the BiasAdd */
    int filter_hw;           /* default 3 */
} chain_opts;

/* x -> contraction "c" -> BiasAdd "b" (-> act "a") -> Identity "out". */
static tg_graph *chain(const chain_opts *o) {
    tg_graph *g = tg_new();
    int dt = o->dtype ? o->dtype : 1;
    const char *op = o->contraction ? o->contraction : "Conv2D";
    const char *fmt = o->format ? o->format : "NHWC";
    bool mm = strcmp(op, "MatMul") == 0;
    int64_t k = o->filter_hw ? o->filter_hw : 3;
    bool nchw = strcmp(fmt, "NCHW") == 0;
    if (mm) {
        tg_placeholder(g, "x", dt, 2, (int64_t[]){2, 8});
        tg_const_f32(g, "w", 2, (int64_t[]){8, 4}, NULL, 0);
    } else {
        tg_placeholder(g, "x", dt, 4, nchw ? (int64_t[]){1, 4, 8, 8} : (int64_t[]){1, 8, 8, 4});
        tg_const_f32(g, "w", 4, (int64_t[]){k, k, 4, strcmp(op, "Conv2D") == 0 ? 4 : 1}, NULL, 0);
    }
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *c = tg_add(g, "c", op, "x", "w", NULL);
    tg_attr_type(c, "T", dt);
    if (mm) {
        tg_attr_bool(c, "transpose_a", 0);
        tg_attr_bool(c, "transpose_b", 0);
    } else {
        tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
        tg_attr_str(c, "padding", "SAME");
        tg_attr_str(c, "data_format", fmt);
        tg_attr_ints(c, "dilations", 4, (int64_t[]){1, 1, 1, 1});
    }
    tg_node *b = o->ctrl_on_bias ? tg_add(g, "b", "BiasAdd", "c", "bias_v", "^w", NULL)
                                 : tg_add(g, "b", "BiasAdd", "c", "bias_v", NULL);
    tg_attr_type(b, "T", dt);
    tg_attr_str(b, "data_format", mm ? "NHWC" : fmt);
    const char *last = "b";
    if (o->act) {
        tg_node *a = tg_add(g, "a", o->act, "b", NULL);
        tg_attr_type(a, "T", dt);
        if (strcmp(o->act, "LeakyRelu") == 0) {
            tg_attr_float(a, "alpha", 0.3f);
        }
        last = "a";
    }
    tg_node *out = tg_add(g, "out", "Identity", last, NULL);
    tg_attr_type(out, "T", dt);
    if (o->extra_conv_use) {
        tg_attr_type(tg_add(g, "spy_c", "Identity", "c", NULL), "T", dt);
    }
    if (o->extra_bias_use) {
        tg_attr_type(tg_add(g, "spy_b", "Identity", "b", NULL), "T", dt);
    }
    (void)o->device;
    return g;
}

/* Sets the device of the chain's nodes by rebuilding through the IR after
 * import: testgraph has no device setter, so the harness applies it. */
static void place(pt_run *h, const char *device, const char *act_device) {
    static const char *const names[] = {"c", "b"};
    for (size_t i = 0; i < 2; i++) {
        fl_node *n = fl__graph_find(h->g, names[i]);
        if (n) {
            n->device = device;
        }
    }
    fl_node *a = fl__graph_find(h->g, "a");
    if (a) {
        a->device = act_device ? act_device : device;
    }
}

static void run_chain(pt_run *h, const chain_opts *o, fl_device dev, fl_remapper_mode mode) {
    tg_graph *tg = chain(o);
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    assert_int_equal(pt_load_bytes(h, bytes, len), FL_OK);
    free(bytes);
    tg_free(tg);
    if (o->device) {
        place(h, o->device, o->act_device);
    }
    pt_remap(h, dev, mode);
}

/* The chain was left exactly as built. */
static void expect_unfused(pt_run *h, const chain_opts *o) {
    pt_need(h, "c");
    pt_expect_node(h, "b", "BiasAdd", "c", "bias_v", NULL);
    if (o->act) {
        pt_expect_node(h, "a", o->act, "b", NULL);
    }
    assert_int_equal(h->pc.rewritten, 0);
    assert_int_equal(h->pc.removed, 0);
}

/* ------------------------------------------------------------------------- */
/* Contraction + BiasAdd (+ activation)                                       */
/* ------------------------------------------------------------------------- */

static void test_conv_bias(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {0};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_absent(&h, "c");
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_node(&h, "out", "Identity", "b", NULL);
    pt_expect_strs(&h, "b", "fused_ops", 1, "BiasAdd");
    assert_int_equal(pt_attr_i(&h, "b", "num_args"), 1);
    assert_true(pt_attr_f(&h, "b", "epsilon") == 0.0f);
    assert_int_equal(pt_attr_t(&h, "b", "T"), 1);
    /* no U: TensorFlow's fused nodes in the corpus carry none */
    assert_null(fl__node_attr(pt_need(&h, "b"), "U"));
    assert_string_equal(pt_attr_s(&h, "b", "padding"), "SAME");
    assert_string_equal(pt_attr_s(&h, "b", "data_format"), "NHWC");
    /* defaults filled in as in a TensorFlow graph */
    assert_non_null(fl__node_attr(pt_need(&h, "b"), "explicit_paddings"));
    assert_non_null(fl__node_attr(pt_need(&h, "b"), "use_cudnn_on_gpu"));
    assert_non_null(fl__node_attr(pt_need(&h, "b"), "strides"));
    assert_non_null(fl__node_attr(pt_need(&h, "b"), "dilations"));
    assert_int_equal(h.pc.rewritten, 1);
    assert_int_equal(h.pc.removed, 1);
    assert_int_equal(h.led.n_entries, 1);
    assert_string_equal(fl__ledger_entry(&h.led, 0)->rule, "contraction_bias");
    /* shapes re-inferred on the fused node */
    assert_int_equal(pt_need(&h, "b")->outputs[0].shape.rank, 4);
    pt_fini(&h);
}

static void test_conv_bias_act(void **state) {
    (void)state;
    static const char *const acts[] = {"Relu", "Relu6", "Elu", "LeakyRelu"};
    for (size_t i = 0; i < 4; i++) {
        pt_run h;
        chain_opts o = {.act = acts[i]};
        run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
        pt_absent(&h, "c");
        pt_absent(&h, "b");
        pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
        pt_expect_node(&h, "out", "Identity", "a", NULL);
        pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", acts[i]);
        assert_int_equal(pt_attr_i(&h, "a", "num_args"), 1);
        if (i == 3) {
            assert_true(pt_attr_f(&h, "a", "leakyrelu_alpha") == 0.3f);
        } else {
            assert_null(fl__node_attr(pt_need(&h, "a"), "leakyrelu_alpha"));
        }
        assert_int_equal(h.pc.removed, 2);
        pt_fini(&h);
    }
}

/* x -> three Conv2D + BiasAdd + Relu layers -> out; the last with strides
 * 2. Consecutive fused nodes with equal attrs share one attr array (never
 * written in place: graph/mutate.h); the layer whose strides differ has its
 * own. Each node still reads its own attrs. */
static void test_fused_nodes_share_equal_attrs(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    const char *in = "x";
    static const char *const names[3][3] = {
        {"c1", "b1", "r1"}, {"c2", "b2", "r2"}, {"c3", "b3", "r3"}};
    for (int l = 0; l < 3; l++) {
        tg_node *c = tg_add(g, names[l][0], "Conv2D", in, "w", NULL);
        tg_attr_type(c, "T", 1);
        int64_t s = l == 2 ? 2 : 1;
        tg_attr_ints(c, "strides", 4, (int64_t[]){1, s, s, 1});
        tg_attr_str(c, "padding", "SAME");
        tg_attr_str(c, "data_format", "NHWC");
        tg_node *b = tg_add(g, names[l][1], "BiasAdd", names[l][0], "bias_v", NULL);
        tg_attr_type(b, "T", 1);
        tg_attr_type(tg_add(g, names[l][2], "Relu", names[l][1], NULL), "T", 1);
        in = names[l][2];
    }
    tg_attr_type(tg_add(g, "out", "Identity", "r3", NULL), "T", 1);
    pt_run h;
    run_tg(&h, g, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(g);
    pt_expect_node(&h, "r1", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_node(&h, "r2", "_FusedConv2D", "r1", "w", "bias_v", NULL);
    pt_expect_node(&h, "r3", "_FusedConv2D", "r2", "w", "bias_v", NULL);
    fl_node *r1 = pt_need(&h, "r1"), *r2 = pt_need(&h, "r2"), *r3 = pt_need(&h, "r3");
    assert_ptr_equal(r1->attrs, r2->attrs);
    assert_ptr_not_equal(r3->attrs, r2->attrs);
    const int64_t *st;
    size_t n;
    assert_int_equal(fl__attr_get_ints(r1, "strides", &st, &n, NULL), FL_OK);
    assert_int_equal(n, 4);
    assert_int_equal(st[1], 1);
    assert_int_equal(fl__attr_get_ints(r3, "strides", &st, &n, NULL), FL_OK);
    assert_int_equal(st[1], 2);
    for (int l = 0; l < 3; l++) {
        pt_expect_strs(&h, names[l][2], "fused_ops", 2, "BiasAdd", "Relu");
        assert_string_equal(pt_attr_s(&h, names[l][2], "padding"), "SAME");
    }
    /* 8x8 stays 8x8 (SAME, strides 1), then 4x4 (strides 2): each node's
     * own strides were used */
    assert_int_equal(r2->outputs[0].shape.dims[1].k, 8);
    assert_int_equal(r3->outputs[0].shape.dims[1].k, 4);
    assert_true(fl_sym_is_known(r3->outputs[0].shape.dims[1]));
    assert_int_equal(h.pc.rewritten, 3);
    pt_fini(&h);
}

/* Three Conv2D + BiasAdd + activation layers whose convolutions carry the
 * same attrs (one shared array after the import), the activations as
 * given: each fused node gets its own fused ops and alpha, and shares an
 * array only with the fused node before it in the sweep when those are
 * the same too. */
static void fused_acts(const char *const acts[3], const float alphas[3], fl_node *out[3],
                       pt_run *h) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    static const char *const names[3][3] = {
        {"c1", "b1", "r1"}, {"c2", "b2", "r2"}, {"c3", "b3", "r3"}};
    const char *in = "x";
    for (int l = 0; l < 3; l++) {
        tg_node *c = tg_add(g, names[l][0], "Conv2D", in, "w", NULL);
        tg_attr_type(c, "T", 1);
        tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
        tg_attr_str(c, "padding", "SAME");
        tg_attr_type(tg_add(g, names[l][1], "BiasAdd", names[l][0], "bias_v", NULL), "T", 1);
        tg_node *a = tg_add(g, names[l][2], acts[l], names[l][1], NULL);
        tg_attr_type(a, "T", 1);
        if (alphas[l] != 0) {
            tg_attr_float(a, "alpha", alphas[l]);
        }
        in = names[l][2];
    }
    tg_attr_type(tg_add(g, "out", "Identity", "r3", NULL), "T", 1);
    run_tg(h, g, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(g);
    for (int l = 0; l < 3; l++) {
        out[l] = pt_need(h, names[l][2]);
        assert_string_equal(out[l]->op, "_FusedConv2D");
        pt_expect_strs(h, names[l][2], "fused_ops", 2, "BiasAdd", acts[l]);
        if (alphas[l] != 0) {
            assert_true(pt_attr_f(h, names[l][2], "leakyrelu_alpha") == alphas[l]);
        }
    }
}

static void test_fused_attrs_follow_each_activation(void **state) {
    (void)state;
    pt_run h;
    fl_node *r[3];
    /* Relu, Relu6, Relu: r2 differs from both neighbours */
    fused_acts((const char *const[]){"Relu", "Relu6", "Relu"}, (const float[]){0, 0, 0}, r, &h);
    assert_ptr_not_equal(r[1]->attrs, r[2]->attrs);
    assert_ptr_not_equal(r[0]->attrs, r[1]->attrs);
    pt_fini(&h);
    /* LeakyRelu with alphas 0.1, 0.1, 0.25: r1 and r2 share, r3 has its own */
    fused_acts((const char *const[]){"LeakyRelu", "LeakyRelu", "LeakyRelu"},
               (const float[]){0.1f, 0.1f, 0.25f}, r, &h);
    assert_ptr_equal(r[0]->attrs, r[1]->attrs);
    assert_ptr_not_equal(r[1]->attrs, r[2]->attrs);
    pt_fini(&h);
}

static void test_matmul_bias_act(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.contraction = "MatMul", .act = "Relu"};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Relu");
    assert_non_null(fl__node_attr(pt_need(&h, "a"), "transpose_a"));
    assert_null(fl__node_attr(pt_need(&h, "a"), "U"));
    pt_fini(&h);
    /* MatMul + BiasAdd alone */
    o.act = NULL;
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "b", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "b", "fused_ops", 1, "BiasAdd");
    pt_fini(&h);
}

/* Tanh after MatMul is a oneDNN activation: the stock remapper fuses only
 * MatMul + BiasAdd and leaves the Tanh. */
static void test_matmul_bias_tanh_standard_vs_onednn(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.contraction = "MatMul", .act = "Tanh"};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "Tanh", "b", NULL);
    pt_expect_node(&h, "b", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_fini(&h);
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Tanh");
    pt_fini(&h);
    /* so is Sigmoid after MatMul */
    chain_opts os = {.contraction = "MatMul", .act = "Sigmoid"};
    run_chain(&h, &os, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedMatMul", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Sigmoid");
    pt_fini(&h);
    /* Sigmoid after Conv2D: never an activation of the conv, not even with oneDNN */
    chain_opts oc = {.act = "Sigmoid"};
    run_chain(&h, &oc, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "Sigmoid", "b", NULL);
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_fini(&h);
}

static void test_depthwise_onednn_only(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.contraction = "DepthwiseConv2dNative", .act = "Relu6"};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o); /* not_fused_due_to_stock_build */
    pt_fini(&h);
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedDepthwiseConv2dNative", "x", "w", "bias_v", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "BiasAdd", "Relu6");
    assert_null(fl__node_attr(pt_need(&h, "a"), "explicit_paddings"));
    assert_null(fl__node_attr(pt_need(&h, "a"), "U"));
    pt_fini(&h);
    /* LeakyRelu after depthwise: only BiasAdd is fused */
    o.act = "LeakyRelu";
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "LeakyRelu", "b", NULL);
    pt_expect_node(&h, "b", "_FusedDepthwiseConv2dNative", "x", "w", "bias_v", NULL);
    pt_fini(&h);
}

static void test_not_fused_due_to_multiple_consumers(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.act = "Relu", .extra_conv_use = 1};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
    /* a second consumer of the BiasAdd: Conv2D + BiasAdd still fuse, the Relu stays */
    chain_opts o2 = {.act = "Relu", .extra_bias_use = 1};
    run_chain(&h, &o2, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "Relu", "b", NULL);
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_node(&h, "spy_b", "Identity", "b", NULL);
    pt_fini(&h);
}

static void test_not_fused_due_to_preserved_intermediate(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.act = "Relu"};
    tg_graph *tg = chain(&o);
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    assert_int_equal(pt_load_bytes(&h, bytes, len), FL_OK);
    free(bytes);
    tg_free(tg);
    pt_need(&h, "b")->flags |= FL_NODE_PRESERVE;
    pt_need(&h, "c")->flags |= FL_NODE_PRESERVE;
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
}

/* The root may be a graph output: the fused node keeps its name and flag. */
static void test_preserved_root_keeps_name(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(tg, "w", 4, (int64_t[]){1, 1, 4, 4}, NULL, 0);
    tg_const_f32(tg, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *c = tg_add(tg, "c", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "VALID");
    tg_attr_type(tg_add(tg, "b", "BiasAdd", "c", "bias_v", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    assert_true(pt_need(&h, "b")->flags & FL_NODE_PRESERVE);
    pt_fini(&h);
}

static void test_not_fused_due_to_data_format(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.act = "Relu", .format = "NCHW"};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    assert_string_equal(pt_attr_s(&h, "a", "data_format"), "NCHW");
    pt_fini(&h);
}

static void test_not_fused_due_to_dtype(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.act = "Relu", .dtype = 19}; /* half */
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
    /* double Conv2D fuses on a stock CPU build, double MatMul does not */
    chain_opts od = {.act = "Relu", .dtype = 2};
    run_chain(&h, &od, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    assert_int_equal(pt_attr_t(&h, "a", "T"), 2);
    pt_fini(&h);
    chain_opts om = {.contraction = "MatMul", .dtype = 2};
    run_chain(&h, &om, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &om);
    pt_fini(&h);
}

static void test_not_fused_due_to_device(void **state) {
    (void)state;
    pt_run h;
    /* explicit GPU placement, CPU target: the CPU rule does not apply, and
     * Conv2D + BiasAdd without activation is never fused on GPU */
    chain_opts o = {.device = "/job:localhost/replica:0/task:0/device:GPU:0"};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
    /* unplaced nodes follow the target device: GPU target, no activation */
    chain_opts o2 = {0};
    run_chain(&h, &o2, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o2);
    pt_fini(&h);
    /* explicit CPU placement fuses even with a GPU target */
    chain_opts o3 = {.device = "/device:CPU:0", .act = "Relu"};
    run_chain(&h, &o3, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    assert_string_equal(pt_need(&h, "a")->device, "/device:CPU:0");
    pt_fini(&h);
}

static void test_gpu_conv_bias_relu(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.act = "Relu"};
    run_chain(&h, &o, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_fini(&h);
    /* GPU: Relu6 is not fused (runtime fusion off) */
    chain_opts o6 = {.act = "Relu6"};
    run_chain(&h, &o6, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o6);
    pt_fini(&h);
    /* GPU: 1x1 convolutions are not fused */
    chain_opts o1 = {.act = "Relu", .filter_hw = 1};
    run_chain(&h, &o1, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o1);
    pt_fini(&h);
    /* GPU: MatMul needs cublasLt (off) */
    chain_opts om = {.contraction = "MatMul", .act = "Relu"};
    run_chain(&h, &om, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &om);
    pt_fini(&h);
}

static void test_not_fused_due_to_control_edge(void **state) {
    (void)state;
    pt_run h;
    chain_opts o = {.ctrl_on_bias = 1};
    run_chain(&h, &o, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    expect_unfused(&h, &o);
    pt_fini(&h);
}

static void test_not_fused_due_to_type_mismatch(void **state) {
    (void)state;
    tg_graph *tg = chain(&(chain_opts){0});
    pt_run h;
    size_t len;
    uint8_t *bytes = tg_pack(tg, &len);
    tg_free(tg);
    assert_int_equal(pt_load_bytes(&h, bytes, len), FL_OK);
    free(bytes);
    fl_node *b = pt_need(&h, "b");
    fl_attr t = fl__attr_make_type(h.g, "T", 2);
    assert_int_equal(fl__node_set_attr(h.g, b, &t), FL_OK);
    pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_need(&h, "c");
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* Batch norm rules                                                           */
/* ------------------------------------------------------------------------- */

static tg_graph *conv_bn(const char *bn_op, const char *act, int training, const char *fmt) {
    tg_graph *g = tg_new();
    bool nchw = strcmp(fmt, "NCHW") == 0;
    tg_placeholder(g, "x", 1, 4, nchw ? (int64_t[]){1, 4, 8, 8} : (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    static const char *const v[] = {"scale", "offset", "mean", "var"};
    for (int i = 0; i < 4; i++) {
        tg_const_f32(g, v[i], 1, (int64_t[]){4}, NULL, 0);
    }
    tg_node *c = tg_add(g, "c", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    tg_attr_str(c, "data_format", fmt);
    tg_node *bn = tg_add(g, "bn", bn_op, "c", "scale", "offset", "mean", "var", NULL);
    tg_attr_type(bn, "T", 1);
    if (strcmp(bn_op, "FusedBatchNorm") != 0) {
        tg_attr_type(bn, "U", 1);
    }
    tg_attr_float(bn, "epsilon", 0.001f);
    tg_attr_bool(bn, "is_training", training);
    tg_attr_str(bn, "data_format", fmt);
    const char *last = "bn";
    if (act) {
        tg_attr_type(tg_add(g, "a", act, "bn", NULL), "T", 1);
        last = "a";
    }
    tg_attr_type(tg_add(g, "out", "Identity", last, NULL), "T", 1);
    return g;
}

static void test_conv_bn(void **state) {
    (void)state;
    pt_run h;
    tg_graph *tg = conv_bn("FusedBatchNormV3", NULL, 0, "NHWC");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_absent(&h, "c");
    pt_expect_node(&h, "bn", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    pt_expect_strs(&h, "bn", "fused_ops", 1, "FusedBatchNorm");
    assert_int_equal(pt_attr_i(&h, "bn", "num_args"), 4);
    assert_true(pt_attr_f(&h, "bn", "epsilon") == 0.001f);
    assert_null(fl__node_attr(pt_need(&h, "bn"), "U"));
    pt_fini(&h);

    /* FusedBatchNormV2 (U float) as V3 */
    tg = conv_bn("FusedBatchNormV2", NULL, 0, "NHWC");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_absent(&h, "c");
    pt_expect_node(&h, "bn", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    pt_expect_strs(&h, "bn", "fused_ops", 1, "FusedBatchNorm");
    pt_fini(&h);

    tg = conv_bn("FusedBatchNorm", "Relu6", 0, "NHWC");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_absent(&h, "bn");
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 2, "FusedBatchNorm", "Relu6");
    pt_fini(&h);

    /* Sigmoid is not fused with a batch norm: Conv2D + BN fuse, Sigmoid stays */
    tg = conv_bn("FusedBatchNormV3", "Sigmoid", 0, "NHWC");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "a", "Sigmoid", "bn", NULL);
    pt_expect_node(&h, "bn", "_FusedConv2D", "x", "w", "scale", "offset", "mean", "var", NULL);
    pt_fini(&h);
}

/* Training-mode BN: neither fused nor decomposed. */
static void test_conv_bn_not_fused_due_to_training(void **state) {
    (void)state;
    pt_run h;
    tg_graph *tg = conv_bn("FusedBatchNormV3", "Relu", 1, "NHWC");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "bn", "FusedBatchNormV3", "c", "scale", "offset", "mean", "var", NULL);
    pt_expect_node(&h, "a", "Relu", "bn", NULL);
    pt_fini(&h);
}

/* NCHW BN after a conv on a stock CPU: not fused into the conv; decomposed
 * into primitives with the vectors reshaped to [1,-1,1,1]. */
static void test_bn_decompose_nchw(void **state) {
    (void)state;
    pt_run h;
    tg_graph *tg = conv_bn("FusedBatchNormV3", NULL, 0, "NCHW");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "bn/NCHWShape", "Const", NULL);
    pt_expect_node(&h, "bn/NCHWShapedScale", "Reshape", "scale", "bn/NCHWShape", NULL);
    pt_expect_node(&h, "bn/NCHWShapedOffset", "Reshape", "offset", "bn/NCHWShape", NULL);
    pt_expect_node(&h, "bn/NCHWShapedMean", "Reshape", "mean", "bn/NCHWShape", NULL);
    pt_expect_node(&h, "bn/NCHWShapedVariance", "Reshape", "var", "bn/NCHWShape", NULL);
    pt_expect_node(&h, "bn/Const", "Const", NULL);
    pt_expect_node(&h, "bn/VarPlusEpsilon", "Add", "bn/NCHWShapedVariance", "bn/Const", NULL);
    pt_expect_node(&h, "bn/Inv", "Rsqrt", "bn/VarPlusEpsilon", NULL);
    pt_expect_node(&h, "bn/Scaled", "Mul", "bn/Inv", "bn/NCHWShapedScale", NULL);
    pt_expect_node(&h, "bn/Mul", "Mul", "c", "bn/Scaled", NULL);
    pt_expect_node(&h, "bn/Mul2", "Mul", "bn/NCHWShapedMean", "bn/Scaled", NULL);
    pt_expect_node(&h, "bn/Offset", "Sub", "bn/NCHWShapedOffset", "bn/Mul2", NULL);
    pt_expect_node(&h, "bn", "Add", "bn/Mul", "bn/Offset", NULL);
    pt_expect_node(&h, "out", "Identity", "bn", NULL);
    /* the result has the BN's shape */
    const fl_shape *s = &pt_need(&h, "bn")->outputs[0].shape;
    assert_int_equal(s->rank, 4);
    assert_int_equal(s->dims[1].k, 4);
    assert_int_equal(s->dims[3].k, 8);
    pt_fini(&h);
}

static void test_bn_decompose_nhwc(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    static const char *const v[] = {"scale", "offset", "mean", "var"};
    for (int i = 0; i < 4; i++) {
        tg_const_f32(tg, v[i], 1, (int64_t[]){4}, NULL, 0);
    }
    tg_node *bn = tg_add(tg, "bn", "FusedBatchNorm", "x", "scale", "offset", "mean", "var", NULL);
    tg_attr_type(bn, "T", 1);
    tg_attr_bool(bn, "is_training", 0);
    tg_attr_str(bn, "data_format", "NHWC");
    tg_attr_type(tg_add(tg, "out", "Identity", "bn", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_absent(&h, "bn/NCHWShape");
    pt_expect_node(&h, "bn/VarPlusEpsilon", "Add", "var", "bn/Const", NULL);
    pt_expect_node(&h, "bn/Mul", "Mul", "x", "bn/Scaled", NULL);
    pt_expect_node(&h, "bn", "Add", "bn/Mul", "bn/Offset", NULL);
    assert_int_equal(h.pc.added, 7);
    assert_int_equal(h.pc.rewritten, 1);
    pt_fini(&h);
}

/* BN + Relu -> _FusedBatchNormEx on GPU; not on a stock CPU. */
static void test_fused_batch_norm_ex(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(tg, "x_mean", 1, 1, (int64_t[]){4}); /* unknown value: no decomposition */
    tg_placeholder(tg, "x_var", 1, 1, (int64_t[]){4});
    tg_placeholder(tg, "side", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(tg, "scale", 1, (int64_t[]){4}, NULL, 0);
    tg_const_f32(tg, "offset", 1, (int64_t[]){4}, NULL, 0);
    tg_node *bn =
        tg_add(tg, "bn", "FusedBatchNormV3", "x", "scale", "offset", "x_mean", "x_var", NULL);
    tg_attr_type(bn, "T", 1);
    tg_attr_type(bn, "U", 1);
    tg_attr_bool(bn, "is_training", 0);
    tg_attr_str(bn, "data_format", "NHWC");
    tg_attr_float(bn, "epsilon", 0.001f);
    tg_attr_type(tg_add(tg, "add", "AddV2", "bn", "side", NULL), "T", 1);
    tg_attr_type(tg_add(tg, "r", "Relu", "add", NULL), "T", 1);
    tg_attr_type(tg_add(tg, "out", "Identity", "r", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "r", "Relu", "add", NULL); /* not_fused_due_to_device (stock CPU) */
    pt_fini(&h);
    run_tg(&h, tg, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "bn", "_FusedBatchNormEx", "x", "scale", "offset", "x_mean", "x_var", "side",
                   NULL);
    pt_expect_node(&h, "r", "Identity", "bn", NULL);
    pt_absent(&h, "add");
    assert_string_equal(pt_attr_s(&h, "bn", "activation_mode"), "Relu");
    assert_int_equal(pt_attr_i(&h, "bn", "num_side_inputs"), 1);
    assert_int_equal(pt_attr_t(&h, "bn", "U"), 1);
    assert_true(pt_attr_f(&h, "bn", "epsilon") == 0.001f);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* Other stock rules                                                          */
/* ------------------------------------------------------------------------- */

static void test_conv_squeeze_bias(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 1, 8, 4});
    tg_const_f32(tg, "w", 4, (int64_t[]){1, 3, 4, 4}, NULL, 0);
    tg_const_f32(tg, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *c = tg_add(tg, "c", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    tg_node *sq = tg_add(tg, "sq", "Squeeze", "c", NULL);
    tg_attr_type(sq, "T", 1);
    tg_attr_ints(sq, "squeeze_dims", 1, (int64_t[]){1});
    tg_attr_type(tg_add(tg, "b", "BiasAdd", "sq", "bias_v", NULL), "T", 1);
    tg_attr_type(tg_add(tg, "out", "Identity", "b", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_absent(&h, "sq");
    pt_expect_node(&h, "c", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_node(&h, "b", "Squeeze", "c", NULL);
    pt_expect_strs(&h, "c", "fused_ops", 1, "BiasAdd");
    assert_int_equal(pt_need(&h, "b")->outputs[0].shape.rank, 3);
    pt_fini(&h);
}

static void test_comparison_cast(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 1, (int64_t[]){4});
    tg_placeholder(tg, "y", 1, 1, (int64_t[]){4});
    tg_attr_type(tg_add(tg, "ge", "GreaterEqual", "x", "y", NULL), "T", 1);
    tg_node *cast = tg_add(tg, "cast", "Cast", "ge", NULL);
    tg_attr_type(cast, "SrcT", 10);
    tg_attr_type(cast, "DstT", 1);
    tg_attr_type(tg_add(tg, "out", "Identity", "cast", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "cast", "_GreaterEqualWithCast", "x", "y", NULL);
    pt_absent(&h, "ge");
    assert_int_equal(pt_attr_t(&h, "cast", "T"), 1);
    pt_fini(&h);
    /* not on GPU */
    run_tg(&h, tg, FL_DEVICE_GPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "cast", "Cast", "ge", NULL);
    pt_fini(&h);
    tg_free(tg);
}

static void test_dilated_conv(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 16, 16, 4});
    tg_const_f32(tg, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_int(tg, "bs", 3, 1, (int64_t[]){2}, (int64_t[]){2, 2});
    tg_const_int(tg, "pads", 3, 2, (int64_t[]){2, 2}, (int64_t[]){2, 2, 2, 2});
    tg_const_int(tg, "crops", 3, 2, (int64_t[]){2, 2}, (int64_t[]){0, 0, 0, 0});
    tg_node *s = tg_add(tg, "s2b", "SpaceToBatchND", "x", "bs", "pads", NULL);
    tg_attr_type(s, "T", 1);
    tg_node *c = tg_add(tg, "c", "Conv2D", "s2b", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "VALID");
    tg_node *b = tg_add(tg, "b2s", "BatchToSpaceND", "c", "bs", "crops", NULL);
    tg_attr_type(b, "T", 1);
    tg_attr_type(tg_add(tg, "out", "Identity", "b2s", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    tg_free(tg);
    pt_expect_node(&h, "b2s", "Conv2D", "x", "w", NULL);
    pt_absent(&h, "s2b");
    pt_absent(&h, "c");
    assert_string_equal(pt_attr_s(&h, "b2s", "padding"), "SAME");
    const fl_attr *d = fl__node_attr(pt_need(&h, "b2s"), "dilations");
    assert_non_null(d);
    assert_int_equal(d->v.list.i[1], 2);
    assert_int_equal(d->v.list.i[2], 2);
    const fl_shape *sh = &pt_need(&h, "b2s")->outputs[0].shape;
    assert_int_equal(sh->dims[1].k, 16);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* oneDNN rules                                                               */
/* ------------------------------------------------------------------------- */

/* x -> Conv2D -> BiasAdd -> add_op(., other) [-> act] -> Identity */
static tg_graph *conv_bias_add_op(const char *add_op, const char *act) {
    tg_graph *g = chain(&(chain_opts){0});
    tg_free(g);
    g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_placeholder(g, "other", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_const_f32(g, "bias_v", 1, (int64_t[]){4}, NULL, 0);
    tg_node *c = tg_add(g, "c", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    tg_attr_type(tg_add(g, "b", "BiasAdd", "c", "bias_v", NULL), "T", 1);
    tg_attr_type(tg_add(g, "add", add_op, "b", "other", NULL), "T", 1);
    const char *last = "add";
    if (act) {
        tg_attr_type(tg_add(g, "a", act, "add", NULL), "T", 1);
        last = "a";
    }
    tg_attr_type(tg_add(g, "out", "Identity", last, NULL), "T", 1);
    return g;
}

static tg_graph *conv_bias_add(const char *act) {
    return conv_bias_add_op("AddV2", act);
}

static void test_onednn_conv_bias_add(void **state) {
    (void)state;
    pt_run h;
    tg_graph *tg;
    /* the activations TensorFlow's contraction + BiasAdd + Add rule takes
     * after the Add (Tanh and Sigmoid not) */
    static const char *const acts[] = {"Relu6", "Elu"};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        tg_graph *ta = conv_bias_add(acts[i]);
        run_tg(&h, ta, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
        tg_free(ta);
        pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
        pt_expect_strs(&h, "a", "fused_ops", 3, "BiasAdd", "Add", acts[i]);
        pt_absent(&h, "add");
        pt_fini(&h);
    }
    /* AddN of the two, as the Add */
    tg = conv_bias_add_op("AddN", NULL);
    tg_attr_int(tg_find_node(tg, "add"), "N", 2);
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    tg_free(tg);
    pt_expect_node(&h, "add", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    pt_expect_strs(&h, "add", "fused_ops", 2, "BiasAdd", "Add");
    pt_fini(&h);
    /* Add as AddV2 (fl__is_add) */
    tg = conv_bias_add_op("Add", NULL);
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    tg_free(tg);
    pt_expect_node(&h, "add", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    pt_expect_strs(&h, "add", "fused_ops", 2, "BiasAdd", "Add");
    pt_fini(&h);
    tg = conv_bias_add("Relu");
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    pt_expect_node(&h, "a", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    pt_expect_strs(&h, "a", "fused_ops", 3, "BiasAdd", "Add", "Relu");
    assert_int_equal(pt_attr_i(&h, "a", "num_args"), 2);
    pt_fini(&h);
    /* stock: only Conv2D + BiasAdd */
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "b", "_FusedConv2D", "x", "w", "bias_v", NULL);
    pt_expect_node(&h, "add", "AddV2", "b", "other", NULL);
    pt_fini(&h);
    tg_free(tg);
    tg = conv_bias_add(NULL);
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    tg_free(tg);
    pt_expect_node(&h, "add", "_FusedConv2D", "x", "w", "bias_v", "other", NULL);
    pt_expect_strs(&h, "add", "fused_ops", 2, "BiasAdd", "Add");
    pt_fini(&h);
}

static void test_onednn_swish_and_leakyrelu(void **state) {
    (void)state;
    tg_graph *tg = tg_new();
    tg_placeholder(tg, "x", 1, 4, (int64_t[]){1, 8, 8, 4});
    tg_const_f32(tg, "w", 4, (int64_t[]){3, 3, 4, 4}, NULL, 0);
    tg_node *c = tg_add(tg, "c", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    tg_node *lr = tg_add(tg, "lr", "LeakyRelu", "c", NULL);
    tg_attr_type(lr, "T", 1);
    tg_attr_float(lr, "alpha", 0.1f);
    tg_attr_type(tg_add(tg, "sig", "Sigmoid", "lr", NULL), "T", 1);
    tg_attr_type(tg_add(tg, "sw", "Mul", "lr", "sig", NULL), "T", 1);
    tg_attr_type(tg_add(tg, "out", "Identity", "sw", NULL), "T", 1);
    pt_run h;
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
    pt_expect_node(&h, "lr", "LeakyRelu", "c", NULL);
    pt_expect_node(&h, "sw", "Mul", "lr", "sig", NULL);
    pt_fini(&h);
    run_tg(&h, tg, FL_DEVICE_CPU, FL_REMAPPER_ONEDNN);
    tg_free(tg);
    pt_expect_node(&h, "sw", "_MklSwish", "lr", NULL);
    pt_absent(&h, "sig");
    /* row 14 takes only _FusedConv2D/_FusedConv3D: a plain Conv2D stays */
    pt_expect_node(&h, "lr", "LeakyRelu", "c", NULL);
    pt_expect_node(&h, "c", "Conv2D", "x", "w", NULL);
    pt_fini(&h);
}

/* ------------------------------------------------------------------------- */
/* Corpus round trip                                                          */
/* ------------------------------------------------------------------------- */

/* Writes one line per node: name \t op \t fused_ops (comma) \t inputs (comma)
 * \t device. */
static void dump_graph(const fl_graph *g, FILE *f) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        fprintf(f, "%s\t%s\t", n->name, n->op);
        const fl_attr *a = fl__node_attr(n, "fused_ops");
        if (a && a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_S) {
            for (size_t k = 0; k < a->n; k++) {
                fprintf(f, "%s%s", k ? "," : "", a->v.list.s[k].p);
            }
        }
        fputc('\t', f);
        for (int k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k].port) {
                fprintf(f, "%s%s:%d", k ? "," : "", n->inputs[k].node->name, n->inputs[k].port);
            } else {
                fprintf(f, "%s%s", k ? "," : "", n->inputs[k].node->name);
            }
        }
        fprintf(f, "\t%s\n", n->device ? n->device : "");
    }
}

static void test_corpus_roundtrip(void **state) {
    (void)state;
    if (!fl_test_have_corpus("remapper round trip")) {
        fl_test_skip();
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tf-unfused", FL_CORPUS_DIR);
    char manifest[4200];
    snprintf(manifest, sizeof manifest, "%s/MANIFEST.md", dir);
    FILE *mf = fopen(manifest, "r");
    if (!mf) {
        print_message("skip: %s absent\n", manifest);
        fl_test_skip();
    }
    fclose(mf);
    if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
        print_message("skip: python3 not available for the expectation check\n");
        fl_test_skip();
    }
    char out[] = "/tmp/fl_remap_rt_XXXXXX";
    assert_non_null(mkdtemp(out));
    char cmd[16384];
    /* list the graphs via the expectation files */
    snprintf(cmd, sizeof cmd, "ls '%s' | sed -n 's/\\.expect\\.json$//p' > '%s/list'", dir, out);
    assert_int_equal(system(cmd), 0);
    char listp[4200];
    snprintf(listp, sizeof listp, "%s/list", out);
    FILE *lf = fopen(listp, "r");
    assert_non_null(lf);
    char name[512];
    int n_graphs = 0;
    while (fgets(name, sizeof name, lf)) {
        name[strcspn(name, "\n")] = '\0';
        if (!name[0]) {
            continue;
        }
        char path[5000];
        snprintf(path, sizeof path, "%s/%s.unfused.pb", dir, name);
        size_t len;
        unsigned char *bytes = fl_test_read_file(path, &len);
        if (!bytes) {
            print_message("skip %s: cannot read %s\n", name, path);
            continue;
        }
        pt_run h;
        if (pt_load_bytes(&h, bytes, len) != FL_OK) {
            free(bytes);
            fail_msg("%s: load failed", name);
        }
        free(bytes);
        pt_remap(&h, FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
        char dump[5000];
        snprintf(dump, sizeof dump, "%s/%s.tsv", out, name);
        FILE *df = fopen(dump, "w");
        assert_non_null(df);
        dump_graph(h.g, df);
        fclose(df);
        pt_fini(&h);
        n_graphs++;
    }
    fclose(lf);
    print_message("remapper round trip: %d graphs rewritten\n", n_graphs);
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/unit/test_remapper_roundtrip.py' '%s' '%s'",
             FL_SOURCE_DIR, dir, out);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd) != 0) {
        print_message("could not remove %s\n", out);
    }
    assert_int_equal(rc, 0);
}

int main(void) {
#define T(f) cmocka_unit_test(f)
    const struct CMUnitTest tests[] = {
        T(test_conv_bias),
        T(test_conv_bias_act),
        T(test_fused_nodes_share_equal_attrs),
        T(test_fused_attrs_follow_each_activation),
        T(test_matmul_bias_act),
        T(test_matmul_bias_tanh_standard_vs_onednn),
        T(test_depthwise_onednn_only),
        T(test_not_fused_due_to_multiple_consumers),
        T(test_not_fused_due_to_preserved_intermediate),
        T(test_preserved_root_keeps_name),
        T(test_not_fused_due_to_data_format),
        T(test_not_fused_due_to_dtype),
        T(test_not_fused_due_to_device),
        T(test_gpu_conv_bias_relu),
        T(test_not_fused_due_to_control_edge),
        T(test_not_fused_due_to_type_mismatch),
        T(test_conv_bn),
        T(test_conv_bn_not_fused_due_to_training),
        T(test_bn_decompose_nchw),
        T(test_bn_decompose_nhwc),
        T(test_fused_batch_norm_ex),
        T(test_conv_squeeze_bias),
        T(test_comparison_cast),
        T(test_dilated_conv),
        T(test_onednn_conv_bias_add),
        T(test_onednn_swish_and_leakyrelu),
        T(test_corpus_roundtrip),
    };
#undef T
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
