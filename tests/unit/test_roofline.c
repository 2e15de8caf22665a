/*
 * test_roofline.c - roofline estimates (src/cost/roofline.c) through the
 * public API: exact per-op figures on a hand-made profile, worked out in the
 * comments; unit and dtype routing; cache levels; fused vs unfused bytes;
 * symbols that must be bound; ONNX op classes (Gemm, depthwise Conv,
 * BatchNormalization, variadic Sum); TensorFlow Lite builtins classed and
 * costed as their TensorFlow/ONNX forms.
 */
#include "cost/roofline.h"
#include "onnxbuild.h"
#include "testgraph.h"
#include "testutil.h"
#include "tflbuild.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The TFLite tables leave trailing fields (no data, no options) implicit. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* Vector fp32 1 GFLOP/s, vector fp16 2 GFLOP/s, matrix fp32 4 GFLOP/s;
 * L2 100,000 B at 10 GB/s, DRAM at 1 GB/s; 1 us overhead; conv at half of
 * peak. */
static const char profile_yaml[] =
    "schema: 1\n"
    "name: handmade\n"
    "kind: cpu\n"
    "compute:\n"
    "  vector:\n"
    "    fp32: {peak: 1e9, source: test}\n"
    "    fp16: {peak: 2e9, source: test}\n"
    "  matrix:\n"
    "    fp32: {peak: 4e9, source: test}\n"
    "memory:\n"
    "  - {name: L2, bandwidth: 1e10, capacity: 100000, source: test}\n"
    "  - {name: DRAM, bandwidth: 1e9, source: test}\n"
    "overhead: {seconds: 1e-6, source: test}\n"
    "efficiency:\n"
    "  conv: {compute: 0.5, source: test}\n";

static fl_profile *P;

static int setup(void **state) {
    (void)state;
    char err[256];
    if (fl_profile_parse(profile_yaml, strlen(profile_yaml), "handmade.yaml", &P, err,
                         sizeof err) != FL_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    fl_profile_free(P);
    return 0;
}

#define assert_near(a, b)                                                                          \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= 1e-12 * fmax(fabs(a_), fabs(b_)) + 1e-18)) {                        \
            fail_msg("%s = %.12g, want %.12g", #a, a_, b_);                                        \
        }                                                                                          \
    } while (0)

/* Analyses `len` bytes at buf (freed here) per node on profile p; fails the
 * test unless the status is `want`. */
static fl_report *analyze_bytes(uint8_t *buf, size_t len, const fl_profile *p, fl_status want) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    const fl_profile *ps[1] = {p};
    o.profiles = ps;
    o.n_profiles = 1;
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, &o, &r);
    free(buf);
    if (st != want) {
        fail_msg("status %d, want %d: %s", st, want, r && r->error ? r->error : "");
    }
    return r;
}

static fl_report *analyze(tg_graph *g, fl_status want) {
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    return analyze_bytes(buf, len, P, want);
}

/* Packs and frees ONNX model m, analyses it per node on profile p (FL_OK). */
static fl_report *analyze_onnx(ob_model *m, const fl_profile *p) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    return analyze_bytes(buf, len, p, FL_OK);
}

static const fl_roofline_node *rnode(const fl_report *r, const char *name) {
    const fl_roofline_graph *g = r->roofline[0].before;
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (strcmp(g->nodes[i].name, name) == 0) {
            return &g->nodes[i];
        }
    }
    fail_msg("no roofline node %s", name);
    return NULL;
}

/* x[1,8,8,3] -> Conv2D 3x3x3x16 SAME -> BiasAdd -> Relu (fused: one node). */
static tg_graph *conv_chain(int fused) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 8, 8, 3});
    tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 3, 16}, NULL, 0);
    tg_const_f32(g, "b", 1, (int64_t[]){16}, NULL, 0);
    tg_node *c = fused ? tg_add(g, "conv", "_FusedConv2D", "x", "w", "b", NULL)
                       : tg_add(g, "conv", "Conv2D", "x", "w", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_ints(c, "strides", 4, (int64_t[]){1, 1, 1, 1});
    tg_attr_str(c, "padding", "SAME");
    tg_attr_str(c, "data_format", "NHWC");
    if (fused) {
        tg_attr_strs(c, "fused_ops", 2, (const char *const[]){"BiasAdd", "Relu"});
        tg_attr_int(c, "num_args", 1);
        tg_attr_float(c, "epsilon", 0.0f);
    } else {
        tg_node *b = tg_add(g, "bias", "BiasAdd", "conv", "b", NULL);
        tg_attr_type(b, "T", 1);
        tg_node *r = tg_add(g, "relu", "Relu", "bias", NULL);
        tg_attr_type(r, "T", 1);
    }
    return g;
}

static void test_exact_conv_chain(void **state) {
    (void)state;
    tg_graph *g = conv_chain(0);
    fl_report *r = analyze(g, FL_OK);
    assert_int_equal(r->n_roofline, 1);
    assert_string_equal(r->roofline[0].profile, "handmade");
    assert_null(r->roofline[0].after);

    /* Conv2D: E(out) = 1024, MACs = 1024*27 = 27648, FLOPs 55296; bytes read
     * x 768 + w 1728, written 4096: 6592 <= 100000, so L2 at 10 GB/s.
     * compute = 55296 / (4e9 * 0.5) = 27.648 us; memory = 0.6592 us;
     * time = 27.648 + 1 = 28.648 us; upper = 29.3072 us. */
    const fl_roofline_node *c = rnode(r, "conv");
    assert_string_equal(c->unit, "matrix");
    assert_string_equal(c->dtype, "fp32");
    assert_string_equal(c->level, "L2");
    assert_string_equal(c->bound, "compute");
    assert_near(c->flops, 55296);
    assert_near(c->bytes, 6592);
    assert_near(c->intensity, 55296.0 / 6592.0);
    assert_near(c->compute_s, 27.648e-6);
    assert_near(c->memory_s, 0.6592e-6);
    assert_near(c->overhead_s, 1e-6);
    assert_near(c->time_s, 28.648e-6);
    assert_near(c->upper_s, 29.3072e-6);

    /* BiasAdd: 1024 FLOPs on the vector unit at 1 GFLOP/s = 1.024 us; bytes
     * 4096 + 64 + 4096 = 8256 at 10 GB/s = 0.8256 us; time 2.024 us. */
    const fl_roofline_node *b = rnode(r, "bias");
    assert_string_equal(b->unit, "vector");
    assert_string_equal(b->bound, "compute");
    assert_near(b->compute_s, 1.024e-6);
    assert_near(b->memory_s, 0.8256e-6);
    assert_near(b->time_s, 2.024e-6);

    /* Relu: 1024 FLOPs, 8192 bytes: 1.024 us vs 0.8192 us; time 2.024 us. */
    const fl_roofline_node *u = rnode(r, "relu");
    assert_near(u->memory_s, 0.8192e-6);
    assert_near(u->time_s, 2.024e-6);

    /* Placeholder and Consts move nothing: no overhead, bound "none". */
    const fl_roofline_node *x = rnode(r, "x");
    assert_string_equal(x->bound, "none");
    assert_near(x->time_s, 0);
    assert_near(x->intensity, -1);

    const fl_roofline_graph *t = r->roofline[0].before;
    assert_near(t->time_s, 28.648e-6 + 2 * 2.024e-6);
    assert_near(t->upper_s,
                29.3072e-6 + (1.024e-6 + 0.8256e-6 + 1e-6) + (1.024e-6 + 0.8192e-6 + 1e-6));
    assert_near(t->overhead_s, 3e-6);
    assert_near(t->compute_s, 27.648e-6 + 2 * 1.024e-6);
    assert_near(t->memory_s, 0);
    assert_near(t->compute_s + t->memory_s + t->overhead_s, t->time_s);
    assert_int_equal(t->ops_compute_bound, 3);
    assert_int_equal(t->ops_memory_bound, 0);
    assert_int_equal(t->ops_costed, 6);
    assert_int_equal(t->n_top, 3);
    assert_string_equal(t->top[0].name, "conv");
    fl_report_free(r);
    tg_free(g);
}

/* A large Relu spills to DRAM and is memory bound; a half Relu runs on the
 * vector fp16 peak and is overhead bound. Each operand is served by the
 * levels holding its reuse distance (reuse.c): a graph input's is its own
 * size (the caller has just written it), an output's its own size. */
static void test_levels_and_dtypes(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 100, 100, 10});
    tg_node *r1 = tg_add(g, "big", "Relu", "x", NULL);
    tg_attr_type(r1, "T", 1);
    tg_placeholder(g, "h", 19, 1, (int64_t[]){1000});
    tg_node *r2 = tg_add(g, "half", "Relu", "h", NULL);
    tg_attr_type(r2, "T", 19);
    fl_report *r = analyze(g, FL_OK);

    /* 100,000 elements: 400,000 bytes read and 400,000 written, each four
     * times the L2's 100,000: the L2 keeps 100,000 / 400,000 = 1/4 of each
     * (a cache replacing at random), DRAM serves 3/4: 800,000 x (0.25 / 1e10
     * + 0.75 / 1e9) = 20 us + 600 us = 620 us, DRAM carrying the most;
     * compute 100 us. */
    const fl_roofline_node *b = rnode(r, "big");
    assert_string_equal(b->level, "DRAM");
    assert_string_equal(b->bound, "memory");
    assert_near(b->memory_s, 620e-6);
    assert_near(b->compute_s, 100e-6);
    assert_near(b->time_s, 621e-6);

    /* 1000 half elements: 4000 bytes (L2) = 0.4 us; 1000 / 2e9 = 0.5 us; the
     * 1 us overhead dominates. */
    const fl_roofline_node *h = rnode(r, "half");
    assert_string_equal(h->dtype, "fp16");
    assert_string_equal(h->unit, "vector");
    assert_string_equal(h->bound, "overhead");
    assert_near(h->compute_s, 0.5e-6);
    assert_near(h->memory_s, 0.4e-6);
    assert_near(h->time_s, 1.5e-6);
    assert_int_equal(r->roofline[0].before->ops_overhead_bound, 1);
    assert_int_equal(r->roofline[0].before->ops_memory_bound, 1);
    fl_report_free(r);
    tg_free(g);
}

/* The fused op moves no bytes for the intermediates that stay inside it:
 * same FLOPs, a smaller memory term, fewer overheads. */
static void test_fused_vs_unfused(void **state) {
    (void)state;
    tg_graph *gu = conv_chain(0), *gf = conv_chain(1);
    fl_report *ru = analyze(gu, FL_OK), *rf = analyze(gf, FL_OK);
    assert_true(ru->totals.flops.known && rf->totals.flops.known);
    assert_int_equal(ru->totals.flops.value, 57344);
    assert_int_equal(rf->totals.flops.value, 57344);
    /* Unfused bytes: 6592 + 8256 + 8192 = 23040; fused: x 768 + w 1728 + b 64
     * read, 4096 written = 6656. */
    assert_int_equal(ru->totals.bytes.value, 23040);
    assert_int_equal(rf->totals.bytes.value, 6656);
    double mu = 0, mf = 0;
    for (size_t i = 0; i < ru->roofline[0].before->n_nodes; i++) {
        mu += ru->roofline[0].before->nodes[i].memory_s;
    }
    for (size_t i = 0; i < rf->roofline[0].before->n_nodes; i++) {
        mf += rf->roofline[0].before->nodes[i].memory_s;
    }
    assert_near(mu, 23040 / 1e10);
    assert_near(mf, 6656 / 1e10);
    /* The fused conv: 57344 FLOPs at 2 GFLOP/s = 28.672 us + 1 us overhead. */
    const fl_roofline_node *c = rnode(rf, "conv");
    assert_string_equal(c->unit, "matrix");
    assert_near(c->time_s, 29.672e-6);
    assert_true(rf->roofline[0].before->time_s < ru->roofline[0].before->time_s);
    assert_near(rf->roofline[0].before->overhead_s, 1e-6);
    fl_report_free(ru);
    fl_report_free(rf);
    tg_free(gu);
    tg_free(gf);
}

/* Free symbols: an error naming them; bound: the estimate at that value. */
static void test_symbols(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 1000});
    tg_node *r1 = tg_add(g, "relu", "Relu", "x", NULL);
    tg_attr_type(r1, "T", 1);
    fl_report *r = analyze(g, FL_EUSAGE);
    assert_non_null(strstr(r->error, "unbound: x.0"));
    fl_report_free(r);

    fl_options o;
    fl_options_init(&o);
    const fl_profile *ps[1] = {P};
    o.profiles = ps;
    o.n_profiles = 1;
    fl_symbol_binding sb = {"x.0", 8};
    o.symbols = &sb;
    o.n_symbols = 1;
    size_t len;
    uint8_t *buf = tg_pack(g, &len);
    assert_int_equal(fl_analyze(buf, len, &o, &r), FL_OK);
    /* 8000 FLOPs = 8 us; 64000 bytes (L2) = 6.4 us; + 1 us. No per-node
     * list without per_node, but the top list is there. */
    assert_null(r->roofline[0].before->nodes);
    assert_int_equal(r->roofline[0].before->n_top, 1);
    assert_near(r->roofline[0].before->time_s, 9e-6);
    fl_report_free(r);
    free(buf);
    tg_free(g);
}

/* The shipped profiles load; the routing helpers follow the documented rule. */
static void test_shipped_profiles(void **state) {
    (void)state;
    fl_profile_set s;
    char err[512];
    fl_status st = fl_profile_set_load(FL_SOURCE_DIR "/deploy/profiles", &s, err, sizeof err);
    if (st != FL_OK) {
        fail_msg("%s", err);
    }
    assert_true(s.n >= 10);
    const char *need[] = {"a100-80gb",
                          "h100-sxm",
                          "t4",
                          "l4",
                          "apple-m2-gpu",
                          "snapdragon-8gen2-cpu",
                          "snapdragon-8gen2-gpu",
                          "raspberry-pi-4",
                          "xeon-8480plus",
                          "ryzen9-7950x"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        const fl_profile *p = fl_profile_set_find(&s, need[i]);
        if (!p) {
            fail_msg("missing shipped profile %s", need[i]);
        }
        assert_true(p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value > 0);
        assert_non_null(p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].source);
    }
    const fl_profile *a = fl_profile_set_find(&s, "a100-80gb");
    assert_near(a->peak[FL_UNIT_MATRIX][FL_PREC_FP16].value, 312e12);
    assert_near(a->levels[a->n_levels - 1].bandwidth, 2039e9);
    fl_profile_set_free(&s);
}

/* Integer work on the shipped xeon-8480plus: AMX (matrix int8, 229e12) runs
 * integer contractions; the rest of the integer work (a depthwise
 * ConvInteger here) runs on AVX-512 VNNI, the vector int8 peak: 56 cores x
 * 2.0 GHz x 256 ops/cycle = 28.672e12 (28.7e12 in the profile), not the fp32
 * vector peak (7.17e12). x uint8 [1,8,6,6]:
 * - dw ConvInteger w [8,1,3,3] group 8 pads 1: M = 288 x 9 = 2592, int_ops
 *   2 x 2592 + 288 + 72 = 5544, vector int8;
 * - pw ConvInteger w [4,8,1,1]: M = 144 x 8 = 1152, int_ops 2304 + 288 + 32
 *   = 2624, matrix int8. */
static void test_int8_xeon_8480plus(void **state) {
    (void)state;
    fl_profile_set s;
    char err[512];
    if (fl_profile_set_load(FL_SOURCE_DIR "/deploy/profiles", &s, err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    const fl_profile *p = fl_profile_set_find(&s, "xeon-8480plus");
    assert_non_null(p);
    double vnni = p->peak[FL_UNIT_VECTOR][FL_PREC_INT8].value;
    assert_true(fabs(vnni - 56 * 2.0e9 * 256) <= 0.002 * vnni);
    assert_near(p->peak[FL_UNIT_MATRIX][FL_PREC_INT8].value, 229e12);
    ob_model *m = ob_new(13);
    ob_input(m, "x", 2 /* uint8 */, 4, (int64_t[]){1, 8, 6, 6}, NULL);
    ob_input(m, "wd", 2, 4, (int64_t[]){8, 1, 3, 3}, NULL);
    ob_input(m, "wp", 2, 4, (int64_t[]){4, 8, 1, 1}, NULL);
    Onnx__NodeProto *dw = ob_node(m, "ConvInteger", "dw", "x,wd", "a");
    ob_attr_i(m, dw, "group", 8);
    ob_attr_ints(m, dw, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "ConvInteger", "pw", "x,wp", "b");
    ob_output(m, "a");
    ob_output(m, "b");
    fl_report *r = analyze_onnx(m, p);
    const fl_roofline_node *d = rnode(r, "dw"), *w = rnode(r, "pw");
    assert_string_equal(d->op_class, "depthwise");
    assert_near(d->flops, 5544);
    assert_string_equal(d->unit, "vector");
    assert_string_equal(d->dtype, "int8");
    assert_near(d->compute_peak_s, 5544 / vnni);
    assert_string_equal(w->op_class, "conv");
    assert_near(w->flops, 2624);
    assert_string_equal(w->unit, "matrix");
    assert_string_equal(w->dtype, "int8");
    assert_near(w->compute_peak_s, 2624 / 229e12);
    fl_report_free(r);
    fl_profile_set_free(&s);
}

/* ONNX graphs: Gemm is a matmul-class op on the matrix unit; a depthwise
 * Conv (group = C_in, weight dim 1 = 1) is class depthwise on the vector unit
 * (no channel reduction to feed a GEMM); a pointwise Conv is class conv on the
 * matrix unit; BatchNormalization is a normalization-class op; ONNX's variadic
 * Sum is element-wise (TensorFlow's Sum reduces). Each class gets its own
 * efficiency in this profile, so the times tell the class:
 *   x [1,8,6,6] -> dw Conv W [8,1,3,3] group 8 pads 1 -> [1,8,6,6]:
 *     MACs 288 x 1 x 9 = 2592, FLOPs 5184; vector 1e9 x 0.125 -> 41.472 us
 *   -> bn BatchNormalization -> pw Conv W [4,8,1,1] -> [1,4,6,6]:
 *     MACs 144 x 8 = 1152, FLOPs 2304; matrix 4e9 x 0.5 -> 1.152 us
 *   -> Flatten [1,144] -> fc Gemm W [10,144] transB: MACs 1440, FLOPs 2880;
 *     matrix 4e9 x 0.25 -> 2.88 us
 *   -> sum = Sum(fc, fc): memory at 1e9 x 0.25 (element-wise). */
static const char onnx_profile_yaml[] = "schema: 1\n"
                                        "name: classes\n"
                                        "kind: cpu\n"
                                        "compute:\n"
                                        "  vector:\n"
                                        "    fp32: {peak: 1e9, source: test}\n"
                                        "  matrix:\n"
                                        "    fp32: {peak: 4e9, source: test}\n"
                                        "memory:\n"
                                        "  - {name: DRAM, bandwidth: 1e9, source: test}\n"
                                        "efficiency:\n"
                                        "  matmul: {compute: 0.25, source: test}\n"
                                        "  conv: {compute: 0.5, source: test}\n"
                                        "  depthwise: {compute: 0.125, source: test}\n"
                                        "  normalization: {memory: 0.5, source: test}\n"
                                        "  elementwise: {memory: 0.25, source: test}\n";

/* classes.yaml, parsed (the caller frees it). */
static fl_profile *classes_profile(void) {
    char err[256];
    fl_profile *pc = NULL;
    if (fl_profile_parse(onnx_profile_yaml, strlen(onnx_profile_yaml), "classes.yaml", &pc, err,
                         sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    return pc;
}

static void test_onnx_op_classes(void **state) {
    (void)state;
    fl_profile *pc = classes_profile();
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 6, 6}, NULL);
    ob_init_f(m, "Wd", 4, (int64_t[]){8, 1, 3, 3}, true);
    const char *bn[] = {"s", "b", "mu", "var"};
    for (int i = 0; i < 4; i++) {
        ob_init_f(m, bn[i], 1, (int64_t[]){8}, true);
    }
    ob_init_f(m, "Wp", 4, (int64_t[]){4, 8, 1, 1}, true);
    ob_init_f(m, "Wf", 2, (int64_t[]){10, 144}, true);
    Onnx__NodeProto *dw = ob_node(m, "Conv", "dw", "x,Wd", "d");
    ob_attr_i(m, dw, "group", 8);
    ob_attr_ints(m, dw, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "BatchNormalization", "bn", "d,s,b,mu,var", "n");
    ob_node(m, "Conv", "pw", "n,Wp", "p");
    ob_node(m, "Flatten", "flat", "p", "f");
    Onnx__NodeProto *fc = ob_node(m, "Gemm", "fc", "f,Wf", "y");
    ob_attr_i(m, fc, "transB", 1);
    ob_node(m, "Sum", "sum", "y,y", "z");
    ob_output(m, "z");
    fl_report *r = analyze_onnx(m, pc);
    const fl_roofline_node *d = rnode(r, "dw");
    assert_string_equal(d->unit, "vector");
    assert_near(d->flops, 5184);
    assert_near(d->compute_s, 5184 / (1e9 * 0.125));
    const fl_roofline_node *p = rnode(r, "pw");
    assert_string_equal(p->unit, "matrix");
    assert_near(p->compute_s, 2304 / (4e9 * 0.5));
    const fl_roofline_node *f = rnode(r, "fc");
    assert_string_equal(f->unit, "matrix");
    assert_near(f->flops, 2880);
    assert_near(f->compute_s, 2880 / (4e9 * 0.25));
    const fl_roofline_node *b = rnode(r, "bn");
    assert_string_equal(b->unit, "vector");
    assert_near(b->memory_s, b->bytes / (1e9 * 0.5));
    const fl_roofline_node *sm = rnode(r, "sum");
    assert_near(sm->memory_s, sm->bytes / (1e9 * 0.25));
    assert_string_equal(d->op_class, "depthwise");
    assert_string_equal(p->op_class, "conv");
    assert_string_equal(f->op_class, "matmul");
    assert_string_equal(b->op_class, "normalization");
    assert_string_equal(sm->op_class, "elementwise");
    assert_string_equal(rnode(r, "flat")->op_class, "other");
    assert_string_equal(p->bucket, "all");
    assert_true(r->roofline[0].before->calibrated);
    fl_report_free(r);
    fl_profile_free(pc);
}

/* x [1,8,6,6] of ONNX elem_type `type` -> pw Conv W [4,8,1,1] (1152 MACs,
 * 2304 FLOPs) -> relu Relu (144 FLOPs), analysed on p. */
static fl_report *pointwise_conv(int type, const fl_profile *p) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", type, 4, (int64_t[]){1, 8, 6, 6}, NULL);
    ob_init_raw(m, "Wp", type, 4, (int64_t[]){4, 8, 1, 1}, NULL, 0);
    ob_node(m, "Conv", "pw", "x,Wp", "p");
    ob_node(m, "Relu", "relu", "p", "y");
    ob_output(m, "y");
    return analyze_onnx(m, p);
}

/* A float dtype the profile has no peak for runs as fp32 work on the unit it
 * would use: classes.yaml lists vector and matrix fp32 only, so an FP16 or
 * BF16 pointwise Conv runs at matrix fp32 x 0.5 (conv) and its Relu at vector
 * fp32, as runtimes run FP16 on such a CPU (converted to fp32). handmade.yaml
 * has a vector fp16 peak and no matrix fp16: there the FP16 Conv runs at
 * vector fp16. */
static void test_dtype_without_peak(void **state) {
    (void)state;
    fl_profile *pc = classes_profile();
    fl_report *r = pointwise_conv(10 /* FLOAT16 */, P);
    const fl_roofline_node *c = rnode(r, "pw");
    assert_string_equal(c->unit, "vector");
    assert_string_equal(c->dtype, "fp16");
    assert_near(c->compute_s, 2304 / (2e9 * 0.5));
    fl_report_free(r);
    static const int types[] = {10 /* FLOAT16 */, 16 /* BFLOAT16 */};
    for (int i = 0; i < 2; i++) {
        r = pointwise_conv(types[i], pc);
        c = rnode(r, "pw");
        assert_string_equal(c->unit, "matrix");
        assert_string_equal(c->dtype, "fp32");
        assert_near(c->flops, 2304);
        assert_near(c->compute_s, 2304 / (4e9 * 0.5));
        const fl_roofline_node *e = rnode(r, "relu");
        assert_string_equal(e->unit, "vector");
        assert_string_equal(e->dtype, "fp32");
        assert_near(e->compute_s, 144 / 1e9);
        fl_report_free(r);
    }
    fl_profile_free(pc);
}

/* The tiny ONNX graph of test_onnx_op_classes. */
static uint8_t *class_graph(size_t *len) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 6, 6}, NULL);
    ob_init_f(m, "Wd", 4, (int64_t[]){8, 1, 3, 3}, true);
    const char *bn[] = {"s", "b", "mu", "var"};
    for (int i = 0; i < 4; i++) {
        ob_init_f(m, bn[i], 1, (int64_t[]){8}, true);
    }
    ob_init_f(m, "Wp", 4, (int64_t[]){4, 8, 1, 1}, true);
    ob_init_f(m, "Wf", 2, (int64_t[]){10, 144}, true);
    Onnx__NodeProto *dw = ob_node(m, "Conv", "dw", "x,Wd", "d");
    ob_attr_i(m, dw, "group", 8);
    ob_attr_ints(m, dw, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "BatchNormalization", "bn", "d,s,b,mu,var", "n");
    ob_node(m, "Conv", "pw", "n,Wp", "p");
    ob_node(m, "Flatten", "flat", "p", "f");
    Onnx__NodeProto *fc = ob_node(m, "Gemm", "fc", "f,Wf", "y");
    ob_attr_i(m, fc, "transB", 1);
    ob_node(m, "Sum", "sum", "y,y", "z");
    ob_output(m, "z");
    uint8_t *buf = ob_pack(m, len);
    ob_free(m);
    return buf;
}

/* Bucketed efficiency tables: the bucket an op falls in by its FLOPs or bytes,
 * the bucket's efficiencies, fixed cost and per-channel time (a depthwise
 * op's channel groups), the dispatch overhead charged to
 * every executed op (Flatten moves nothing but runs), classes without an
 * entry at peak, and the interval applied to the graph time. */
static const char table_yaml[] =
    "schema: 1\nname: fitted\nkind: cpu\n"
    "compute: {vector: {fp32: {peak: 1e9, source: t}}, matrix: {fp32: {peak: 4e9, source: t}}}\n"
    "memory: [{name: DRAM, bandwidth: 1e9, source: t}]\n"
    "overhead: {seconds: 1e-6, source: t}\n"
    "efficiency:\n"
    "  conv:\n"
    "    by: flops\n"
    "    buckets:\n"
    "      - {upto: 2000, compute: 0.5, memory: 0.5, fixed: 4e-6, source: t}\n"
    "      - {compute: 0.25, memory: 0.125, fixed: 2e-6, source: t}\n"
    "  depthwise: {by: bytes, buckets: [{upto: 1e3, compute: 1, source: t},\n"
    "                                   {compute: 0.125, fixed: 3e-6, per_channel: 5e-7, "
    "source: t}]}\n"
    "interval: {low: 0.5, high: 2, coverage: 0.8, source: t}\n";

static void test_efficiency_table(void **state) {
    (void)state;
    char err[256];
    fl_profile *pc = NULL;
    if (fl_profile_parse(table_yaml, strlen(table_yaml), "fitted.yaml", &pc, err, sizeof err) !=
        FL_OK) {
        fail_msg("%s", err);
    }
    assert_true(pc->calibrated);
    assert_int_equal(pc->table[FL_CLASS_CONV].n_buckets, 2);
    size_t len;
    uint8_t *buf = class_graph(&len);
    fl_report *r = analyze_bytes(buf, len, pc, FL_OK);
    /* pw: 2304 FLOPs > 2000: the second conv bucket. */
    const fl_roofline_node *p = rnode(r, "pw");
    assert_string_equal(p->bucket, "> 2e+03 flops");
    assert_near(p->compute_peak_s, 2304 / 4e9);
    assert_near(p->compute_s, 2304 / (4e9 * 0.25));
    assert_near(p->memory_s, p->bytes / (1e9 * 0.125));
    assert_near(p->fixed_s, 2e-6);
    assert_near(p->overhead_s, 1e-6);
    double m = p->compute_s > p->memory_s ? p->compute_s : p->memory_s;
    assert_near(p->time_s, 1e-6 + 2e-6 + m);
    assert_near(p->upper_s, 1e-6 + 2e-6 + p->compute_s + p->memory_s);
    /* dw: 1152 + 288 + 1152 bytes > 1e3: the second depthwise bucket. */
    const fl_roofline_node *d = rnode(r, "dw");
    assert_near(d->bytes, 2592);
    assert_string_equal(d->bucket, "> 1e+03 bytes");
    assert_near(d->compute_s, 5184 / (1e9 * 0.125));
    assert_near(d->memory_s, 2592 / 1e9);
    /* and its 8 channel groups (group = 8) pay 5e-7 s each. */
    assert_near(d->channels, 8);
    assert_near(d->channel_time_s, 8 * 5e-7);
    assert_near(d->time_s, 1e-6 + 3e-6 + 8 * 5e-7 + 5184 / (1e9 * 0.125));
    assert_near(d->upper_s, 1e-6 + 3e-6 + 8 * 5e-7 + 5184 / (1e9 * 0.125) + 2592 / 1e9);
    assert_near(p->channels, 0); /* a dense conv has no channel term */
    assert_near(p->channel_time_s, 0);
    /* fc: matmul has no entry: peak, no fixed cost, the dispatch overhead. */
    const fl_roofline_node *f = rnode(r, "fc");
    assert_string_equal(f->bucket, "");
    assert_near(f->compute_s, 2880 / 4e9);
    assert_near(f->fixed_s, 0);
    /* Flatten moves nothing but runs: the dispatch overhead alone. */
    const fl_roofline_node *fl = rnode(r, "flat");
    assert_true(fl->executed);
    assert_near(fl->time_s, 1e-6);
    assert_string_equal(fl->bound, "overhead");
    const fl_roofline_graph *g = r->roofline[0].before;
    assert_true(g->calibrated);
    assert_near(g->low_s, 0.5 * g->time_s);
    assert_near(g->high_s, 2 * g->time_s);
    assert_near(g->coverage, 0.8);
    assert_near(g->compute_s + g->memory_s + g->overhead_s, g->time_s);
    double sum = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        sum += g->nodes[i].time_s;
    }
    assert_near(sum, g->time_s);
    fl_report_free(r);
    fl_profile_free(pc);
}

/* What a kernel computes and moves (src/cost/traffic.c), on the handmade
 * profile (vector fp32 1e9; L2 100,000 B at 1e10 B/s, DRAM 1e9 B/s):
 *   x [1,4,8,16] f32: 512 elements, 2048 B; y [1,128,128] f32: 64 KiB.
 *   ts Transpose x perm [0,1,3,2]: the innermost axis moves (runs of one
 *     element): per element a 16-B vector on the strided side + 4 B on the
 *     other: 512 x 20 = 10,240 B at L2 (working set 4096 B) -> 1.024 us;
 *     the upper estimate a 64-B line per element: 512 x 68 = 34,816 B ->
 *     3.4816 us (+ 1 us dispatch). No runs.
 *   tb Transpose x perm [0,2,1,3]: runs of 16 elements: 4096 B at L2 and
 *     512 / 16 = 32 runs.
 *   tu Transpose x perm [1,0,2,3]: only the size-1 axis moves: a copy, one
 *     run of 512 elements.
 *   tl Transpose y perm [0,2,1]: working set 131,072 B, but its input (the
 *     graph input, just written) and its output are 65,536 B each, which the
 *     L2 holds: L2 carries the bytes (13.1072 us) and the vectors (16384 x
 *     20 B / 1e10 = 32.768 us), and in the upper estimate the lines (16384 x
 *     68 B = 111.4112 us).
 *   sl Slice x axis 1 [0, 2): reads the 1024 B it copies out, writes 1024 B,
 *     and the three 8-B index inputs: 2072 B (the count says 2048 + 24 + 1024).
 *   erf: 32 vector operations per element on top of the FLOPs (two
 *     approximations per element); sm (Softmax): 16;
 *   relu: the FLOPs.
 *   div x/x: 512 FLOPs + 8 vector operations per element.
 *   mp MaxPool 2x2 stride 2 -> [1,4,4,8] (two steps, innermost stride <= 2):
 *     per plane (4 = N x C), down the window's rows over whole input rows:
 *     16 columns x (2 + 2 + 2 + 2) rows = 128, across a vector of 2 outputs
 *     at a time: 4 output rows x 4 vectors x 2 columns x 4 lanes = 128;
 *     4 x 256 = 1024 operations, 4 x 4 = 16 output rows (runs).
 *   m3 MaxPool 3x3 stride 1 pads 1 -> [1,4,8,16]: the windows hold 2, 3 x 6,
 *     2 input rows: 16 x 22 = 352 down, 8 x 4 vectors of 4 x 3 x 4 = 384
 *     across; 4 x 736 = 2944 operations (its taps would be 512 x 9 = 4608),
 *     4 x 8 = 32 runs.
 *   ap AveragePool 2x2 stride 3 -> [1,4,3,5]: an innermost stride over 2
 *     takes every tap: its FLOPs + 16 window and 8 divide operations per
 *     output (60), 4 x 3 = 12 runs.
 *   gap GlobalAveragePool: its FLOPs (no window), no runs (one contiguous
 *     pass per plane). */
static void test_kernel_traffic(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 8, 16}, NULL);
    ob_input(m, "y", OB_FLOAT, 3, (int64_t[]){1, 128, 128}, NULL);
    ob_init_i64(m, "s0", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_i64(m, "s2", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_attr_ints(m, ob_node(m, "Transpose", "ts", "x", "a"), "perm", 4, (int64_t[]){0, 1, 3, 2});
    ob_attr_ints(m, ob_node(m, "Transpose", "tb", "x", "b"), "perm", 4, (int64_t[]){0, 2, 1, 3});
    ob_attr_ints(m, ob_node(m, "Transpose", "tu", "x", "c"), "perm", 4, (int64_t[]){1, 0, 2, 3});
    ob_attr_ints(m, ob_node(m, "Transpose", "tl", "y", "d"), "perm", 3, (int64_t[]){0, 2, 1});
    ob_node(m, "Slice", "sl", "x,s0,s2,ax", "e");
    ob_node(m, "Erf", "erf", "x", "f");
    ob_node(m, "Softmax", "sm", "x", "g");
    ob_node(m, "Relu", "relu", "x", "h");
    ob_node(m, "Div", "div", "x,x", "i");
    Onnx__NodeProto *mp = ob_node(m, "MaxPool", "mp", "x", "j");
    ob_attr_ints(m, mp, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, mp, "strides", 2, (int64_t[]){2, 2});
    ob_node(m, "GlobalAveragePool", "gap", "x", "k");
    Onnx__NodeProto *m3 = ob_node(m, "MaxPool", "m3", "x", "l");
    ob_attr_ints(m, m3, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(m, m3, "pads", 4, (int64_t[]){1, 1, 1, 1});
    Onnx__NodeProto *ap = ob_node(m, "AveragePool", "ap", "x", "n");
    ob_attr_ints(m, ap, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(m, ap, "strides", 2, (int64_t[]){3, 3});
    const char *outs[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "n"};
    for (int i = 0; i < 13; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = analyze_onnx(m, P);
    const fl_roofline_node *ts = rnode(r, "ts");
    assert_near(ts->bytes, 4096);
    assert_string_equal(ts->level, "L2");
    assert_near(ts->memory_peak_s, 512 * 20 / 1e10);
    assert_near(ts->time_s, 1e-6 + 512 * 20 / 1e10);
    assert_near(ts->upper_s, 1e-6 + 512 * 68 / 1e10);
    assert_near(ts->channels, 0);
    assert_near(rnode(r, "tb")->memory_peak_s, 4096 / 1e10);
    assert_near(rnode(r, "tb")->channels, 32);
    assert_near(rnode(r, "tb")->upper_s, 1e-6 + 4096 / 1e10);
    assert_near(rnode(r, "tu")->memory_peak_s, 4096 / 1e10);
    assert_near(rnode(r, "tu")->channels, 1);
    const fl_roofline_node *tl = rnode(r, "tl");
    assert_string_equal(tl->level, "L2");
    assert_near(tl->memory_peak_s, 16384 * 20 / 1e10);
    assert_near(tl->upper_s, 1e-6 + 16384 * 68 / 1e10);
    const fl_roofline_node *sl = rnode(r, "sl");
    assert_near(sl->bytes, 2072);
    assert_near(sl->memory_peak_s, 2072 / 1e10);
    const fl_roofline_node *erf = rnode(r, "erf");
    assert_near(erf->compute_peak_s, (erf->flops + 32 * 512) / 1e9);
    const fl_roofline_node *sm = rnode(r, "sm");
    assert_true(sm->flops > 0);
    assert_near(sm->compute_peak_s, (sm->flops + 16 * 512) / 1e9);
    assert_string_equal(sm->bound, "compute");
    const fl_roofline_node *relu = rnode(r, "relu");
    assert_near(relu->flops, 512);
    assert_near(relu->compute_peak_s, 512 / 1e9);
    /* a divide: 8 vector operations per element on top of its FLOP */
    const fl_roofline_node *dv = rnode(r, "div");
    assert_near(dv->flops, 512);
    assert_near(dv->compute_peak_s, (512 + 8 * 512) / 1e9);
    /* pools: the two-step kernel's operations and output rows, every tap
     * and window of a larger stride, a global pool's FLOPs and planes */
    const fl_roofline_node *pool = rnode(r, "mp");
    assert_string_equal(pool->op_class, "pooling");
    assert_near(pool->flops, 128 * 4);
    assert_near(pool->compute_peak_s, 1024 / 1e9);
    assert_near(pool->channels, 16);
    const fl_roofline_node *m3n = rnode(r, "m3");
    assert_near(m3n->flops, 512 * 9);
    assert_near(m3n->compute_peak_s, 2944 / 1e9);
    assert_near(m3n->channels, 32);
    const fl_roofline_node *apn = rnode(r, "ap");
    assert_true(apn->flops > 0);
    assert_near(apn->compute_peak_s, (apn->flops + 24 * 60) / 1e9);
    assert_near(apn->channels, 12);
    const fl_roofline_node *gap = rnode(r, "gap");
    assert_string_equal(gap->op_class, "pooling");
    assert_true(gap->flops > 0);
    assert_near(gap->compute_peak_s, gap->flops / 1e9);
    assert_near(gap->channels, 0);
    /* the report's counts stay those of the op definitions */
    bool seen = false;
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        if (strcmp(r->nodes[i].name, "sl") == 0) {
            assert_int_equal(r->nodes[i].bytes.value, 2048 + 24 + 1024);
            seen = true;
        }
    }
    assert_true(seen);
    fl_report_free(r);
}

/* The error function evaluates two approximations per element: Erf and the
 * erf form of Gelu (opset 20's default, approximate "none") count 32 vector
 * operations per element on top of their FLOPs, Gelu's tanh form and
 * Sigmoid 16 (one approximation). x [1,4,8,16] f32: 512 elements, vector
 * fp32 1e9 FLOP/s. */
static void test_erf_work(void **state) {
    (void)state;
    ob_model *m = ob_new(20);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 4, 8, 16}, NULL);
    ob_node(m, "Erf", "erf", "x", "a");
    ob_node(m, "Gelu", "gelu", "x", "b");
    ob_attr_s(m, ob_node(m, "Gelu", "gelu_tanh", "x", "c"), "approximate", "tanh");
    ob_node(m, "Sigmoid", "sig", "x", "d");
    const char *outs[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = analyze_onnx(m, P);
    const char *names[] = {"erf", "gelu", "gelu_tanh", "sig"};
    const double per[] = {32, 32, 16, 16};
    for (int i = 0; i < 4; i++) {
        const fl_roofline_node *n = rnode(r, names[i]);
        assert_string_equal(n->op_class, "elementwise");
        assert_true(n->flops > 0);
        assert_near(n->compute_peak_s, (n->flops + per[i] * 512) / 1e9);
        assert_string_equal(n->bound, "compute");
    }
    fl_report_free(r);
}

/* A binary element-wise op one of whose operands has fewer elements than
 * its output pays its bucket's broadcast time; unary ops, same-shape binary
 * ops and Clip's scalar bounds do not. v [1,197,1], x [1,197,768] f32, eps a
 * scalar, b [768], lo/hi scalars; elementwise: fixed 1e-6 s, broadcast 3e-6 s
 * at the peaks (1e9 FLOP/s, 1e9 B/s), dispatch 1e-6 s.
 * - eps_add = v + eps: 197 FLOPs, (197 + 1 + 197) x 4 = 1580 B: memory
 *   1.58e-6 s; time 1e-6 + 1e-6 + 3e-6 + 1.58e-6 s, fixed terms above it;
 * - bias = x + b and sub = x - v: broadcast; same = v + v, sqrt, clip: not. */
static const char bcast_yaml[] =
    "schema: 1\nname: bc\nkind: cpu\n"
    "compute: {vector: {fp32: {peak: 1e9, source: t}}}\n"
    "memory: [{name: DRAM, bandwidth: 1e9, source: t}]\n"
    "overhead: {seconds: 1e-6, source: t}\n"
    "efficiency:\n"
    "  elementwise: {compute: 1, memory: 1, fixed: 1e-6, broadcast: 3e-6, source: t}\n";

/* Reuse distances (src/cost/reuse.c) on the handmade profile (L2 100,000 B
 * at 1e10 B/s, DRAM 1e9 B/s): x [5000] and y [10,5000] f32 graph inputs,
 * w [5000] f32 a weight;
 *   a = Relu(x): x was just written (20,000 B) and a is 20,000 B: L2,
 *     40,000 / 1e10 = 4 us;
 *   u = Add(y, a): brings in its 200,000-B output;
 *   s = Add(a, w): a was written 200,000 B of u ago: distance 220,000, the
 *     L2 keeps 100,000 / 220,000 = 5/11 of it, DRAM serves 6/11; w was last
 *     read a run ago: its distance is the weights (20,000) plus the most
 *     activation bytes live at once (a, u and s while s runs: 240,000),
 *     260,000: 5/13 from L2, 8/13 from DRAM; s itself (20,000) L2. The
 *     working set (60,000 B) alone would have put all of it in L2 (6 us). */
static void test_reuse_distance(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){5000}, NULL);
    ob_input(m, "y", OB_FLOAT, 2, (int64_t[]){10, 5000}, NULL);
    ob_init_f(m, "w", 1, (int64_t[]){5000}, false);
    ob_node(m, "Relu", "a", "x", "a");
    ob_node(m, "Add", "u", "y,a", "u");
    ob_node(m, "Add", "s", "a,w", "s");
    ob_output(m, "u");
    ob_output(m, "s");
    fl_report *r = analyze_onnx(m, P);
    const fl_roofline_node *a = rnode(r, "a");
    assert_string_equal(a->level, "L2");
    assert_near(a->memory_peak_s, 40000 / 1e10);
    const fl_roofline_node *sn = rnode(r, "s");
    assert_near(sn->bytes, 60000);
    assert_string_equal(sn->level, "DRAM");
    assert_near(sn->memory_peak_s, 20000 * (5.0 / 11 / 1e10 + 6.0 / 11 / 1e9) +
                                       20000 * (5.0 / 13 / 1e10 + 8.0 / 13 / 1e9) + 20000 / 1e10);
    assert_near(sn->time_s, 1e-6 + sn->memory_peak_s);
    fl_report_free(r);
}

/* The refill after streaming kernels (fl_profile.streamed): the handmade
 * profile (one cache level, L2 of 100,000 B) with 1e-9 s per evicted byte.
 * x [1000] and y [25000] f32: A = Relu(y) moves 200,000 B (evicts the
 * L2's 100,000), B = Relu(x) and C = Neg(b) 8,000 B each. ONNX Runtime
 * runs B, C, A (the leaves A and C stacked in that order, C taken first,
 * with its producer B): B pays nothing, C a fifth of B's 8,000 B, A a fifth
 * of B's and C's 16,000 B (in the file's order C would have paid for A's
 * 100,000). The term is in the ops' times and the graph's overhead. */
static void test_streamed(void **state) {
    (void)state;
    size_t len = strlen(profile_yaml);
    char *yaml = malloc(len + 64);
    assert_non_null(yaml);
    snprintf(yaml, len + 64, "%sstreamed: {seconds_per_byte: 1e-9, source: t}\n", profile_yaml);
    char err[256];
    fl_profile *ps = NULL;
    if (fl_profile_parse(yaml, strlen(yaml), "streamed.yaml", &ps, err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    free(yaml);
    assert_near(ps->streamed.value, 1e-9);
    fl_report *r[2];
    for (int k = 0; k < 2; k++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){1000}, NULL);
        ob_input(m, "y", OB_FLOAT, 1, (int64_t[]){25000}, NULL);
        ob_node(m, "Relu", "A", "y", "a");
        ob_node(m, "Relu", "B", "x", "b");
        ob_node(m, "Neg", "C", "b", "c");
        ob_output(m, "a");
        ob_output(m, "c");
        r[k] = analyze_onnx(m, k ? ps : P);
    }
    const char *names[] = {"A", "B", "C"};
    const double bytes[] = {200000, 8000, 8000}, ev[] = {16000.0 / 5, 0, 8000.0 / 5};
    const fl_roofline_graph *g0 = r[0]->roofline[0].before, *g1 = r[1]->roofline[0].before;
    assert_non_null(g1->node_evicted_bytes);
    assert_non_null(g1->node_streamed_s);
    for (int i = 0; i < 3; i++) {
        size_t at = (size_t)(rnode(r[1], names[i]) - g1->nodes);
        assert_near(g1->nodes[at].bytes, bytes[i]);
        assert_near(g1->node_evicted_bytes[at], ev[i]);
        assert_near(g1->node_streamed_s[at], 1e-9 * ev[i]);
        assert_near(g0->node_evicted_bytes[at], ev[i]); /* without the figure: no time */
        assert_true(g0->node_streamed_s[at] == 0);
        assert_near(g1->nodes[at].time_s - rnode(r[0], names[i])->time_s, 1e-9 * ev[i]);
    }
    assert_true(g0->streamed_s == 0);
    assert_near(g1->streamed_s, 1e-9 * 24000 / 5);
    assert_near(g1->time_s - g0->time_s, 1e-9 * 24000 / 5);
    assert_near(g1->overhead_s - g0->overhead_s, 1e-9 * 24000 / 5);
    fl_report_free(r[0]);
    fl_report_free(r[1]);
    fl_profile_free(ps);
}

/* The run's gap (fl_profile.gap) on a graph derived by hand: one memory
 * level (DRAM 1e9 B/s, so no refill), element-wise memory efficiency 0.5,
 * 1 us of dispatch per op. x [1000] f32 -> Relu -> Neg: each op reads and
 * writes 4,000 B, 8,000 B / (1e9 x 0.5) = 16 us of memory (its at most
 * 1,000 FLOPs at 1e9/s take at most 1 us): 17 us each, 34 us in all.
 * With `gap: {share: 0.25}` each op also pays 0.25 x 16 us = 4 us: 21 us
 * each, 42 us in all, 8 us of gap in the graph's overhead (2 + 8 us), and
 * the interval (0.9-1.2) on 42 us. */
static const char gap_yaml[] = "schema: 1\n"
                               "name: gapped\n"
                               "kind: cpu\n"
                               "compute: {vector: {fp32: {peak: 1e9, source: t}}}\n"
                               "memory: [{name: DRAM, bandwidth: 1e9, source: t}]\n"
                               "overhead: {seconds: 1e-6, source: t}\n"
                               "efficiency:\n"
                               "  elementwise: {compute: 1, memory: 0.5, source: t}\n"
                               "interval: {low: 0.9, high: 1.2, coverage: 0.8, source: t}\n";

static void test_gap(void **state) {
    (void)state;
    char err[256], yaml[1024];
    fl_profile *p[2] = {NULL, NULL};
    snprintf(yaml, sizeof yaml, "%s", gap_yaml);
    assert_int_equal(fl_profile_parse(yaml, strlen(yaml), "plain.yaml", &p[0], err, sizeof err),
                     FL_OK);
    snprintf(yaml, sizeof yaml, "%sgap: {share: 0.25, source: \"fitted by a test\"}\n", gap_yaml);
    if (fl_profile_parse(yaml, strlen(yaml), "gap.yaml", &p[1], err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    assert_true(p[0]->gap.value == 0 && p[1]->gap.value == 0.25);
    fl_report *r[2];
    for (int k = 0; k < 2; k++) {
        ob_model *m = ob_new(13);
        ob_input(m, "x", OB_FLOAT, 1, (int64_t[]){1000}, NULL);
        ob_node(m, "Relu", "A", "x", "a");
        ob_node(m, "Neg", "B", "a", "b");
        ob_output(m, "b");
        r[k] = analyze_onnx(m, p[k]);
    }
    const fl_roofline_graph *g0 = r[0]->roofline[0].before, *g1 = r[1]->roofline[0].before;
    const char *names[] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        const fl_roofline_node *n0 = rnode(r[0], names[i]), *n1 = rnode(r[1], names[i]);
        assert_near(n0->time_s, 17e-6);
        assert_near(n1->time_s, 21e-6);
        assert_near(n1->upper_s - n0->upper_s, 4e-6);
        assert_near(g1->node_gap_s[n1 - g1->nodes], 4e-6);
        assert_string_equal(n1->bound, "memory");
    }
    assert_null(g0->node_gap_s); /* without the figure: no term, nothing else moves */
    assert_true(g0->gap_s == 0 && g0->gap_share == 0 && !g0->gap_source);
    assert_near(g0->time_s, 34e-6);
    assert_near(g1->time_s, 42e-6);
    assert_near(g1->gap_s, 8e-6);
    assert_near(g1->overhead_s, 10e-6);
    assert_near(g1->memory_s, 32e-6);
    assert_true(g1->gap_share == 0.25);
    assert_string_equal(g1->gap_source, "fitted by a test");
    assert_near(g1->low_s, 0.9 * 42e-6);
    assert_near(g1->high_s, 1.2 * 42e-6);
    for (int k = 0; k < 2; k++) {
        fl_report_free(r[k]);
        fl_profile_free(p[k]);
    }
}

static void test_broadcast_time(void **state) {
    (void)state;
    char err[256];
    fl_profile *pc = NULL;
    if (fl_profile_parse(bcast_yaml, strlen(bcast_yaml), "bc.yaml", &pc, err, sizeof err) !=
        FL_OK) {
        fail_msg("%s", err);
    }
    ob_model *m = ob_new(13);
    ob_input(m, "v", OB_FLOAT, 3, (int64_t[]){1, 197, 1}, NULL);
    ob_input(m, "x", OB_FLOAT, 3, (int64_t[]){1, 197, 768}, NULL);
    ob_init_f(m, "eps", 0, NULL, false);
    ob_init_f(m, "lo", 0, NULL, false);
    ob_init_f(m, "hi", 0, NULL, false);
    ob_init_f(m, "b", 1, (int64_t[]){768}, false);
    ob_node(m, "Add", "eps_add", "v,eps", "a");
    ob_node(m, "Add", "bias", "x,b", "c");
    ob_node(m, "Sub", "sub", "x,v", "d");
    ob_node(m, "Add", "same", "v,v", "e");
    ob_node(m, "Sqrt", "sqrt", "v", "f");
    ob_node(m, "Clip", "clip", "v,lo,hi", "g");
    const char *outs[] = {"a", "c", "d", "e", "f", "g"};
    for (int i = 0; i < 6; i++) {
        ob_output(m, outs[i]);
    }
    fl_report *r = analyze_onnx(m, pc);
    const fl_roofline_node *a = rnode(r, "eps_add");
    assert_true(a->broadcast);
    assert_near(a->bytes, 1580);
    assert_near(a->broadcast_time_s, 3e-6);
    assert_near(a->fixed_s, 1e-6);
    assert_near(a->time_s, 1e-6 + 1e-6 + 3e-6 + 1580 / 1e9);
    assert_near(a->upper_s, 1e-6 + 1e-6 + 3e-6 + 1580 / 1e9 + 197 / 1e9);
    assert_string_equal(a->bound, "overhead");
    assert_true(rnode(r, "bias")->broadcast);
    assert_near(rnode(r, "bias")->broadcast_time_s, 3e-6);
    assert_true(rnode(r, "sub")->broadcast);
    const char *plain[] = {"same", "sqrt", "clip"};
    for (int i = 0; i < 3; i++) {
        const fl_roofline_node *n = rnode(r, plain[i]);
        if (n->broadcast || n->broadcast_time_s != 0) {
            fail_msg("%s: broadcast %d, %g s", plain[i], n->broadcast, n->broadcast_time_s);
        }
        double mm = n->compute_s > n->memory_s ? n->compute_s : n->memory_s;
        assert_near(n->time_s, 1e-6 + 1e-6 + mm);
    }
    fl_report_free(r);
    fl_profile_free(pc);
}

/* TensorFlow's Transpose takes its permutation as a constant input:
 * x [4,16] f32 perm [1,0]: strided, 64 elements x (16 + 4) B at L2. */
static void test_kernel_traffic_tf(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){4, 16});
    tg_const_int(g, "perm", 3, 1, (int64_t[]){2}, (int64_t[]){1, 0});
    tg_node *t = tg_add(g, "t", "Transpose", "x", "perm", NULL);
    tg_attr_type(t, "T", 1);
    tg_attr_type(t, "Tperm", 3);
    tg_const_f32(g, "bias", 1, (int64_t[]){16}, NULL, 0);
    tg_attr_type(tg_add(g, "add", "AddV2", "x", "bias", NULL), "T", 1);
    fl_report *r = analyze(g, FL_OK);
    tg_free(g);
    assert_near(rnode(r, "t")->memory_peak_s, 64 * 20 / 1e10);
    assert_near(rnode(r, "t")->upper_s, 1e-6 + 64 * 68 / 1e10);
    /* AddV2 of x [4,16] and a [16] constant broadcasts (no time on a
     * profile without a broadcast figure); the transpose does not. */
    assert_true(rnode(r, "add")->broadcast);
    assert_near(rnode(r, "add")->broadcast_time_s, 0);
    assert_false(rnode(r, "t")->broadcast);
    fl_report_free(r);
}

/* A Transpose that keeps the innermost axis pays its bucket's per-unit time
 * (per_channel) per contiguous run; one that moves it has no runs. x
 * [1,768,7,7] f32: 37,632 elements, 301,056 B in + out, served by L2 (1e6 B
 * at 1e10 B/s); data_movement at memory efficiency 0.5, fixed 1e-6 s, 8e-9 s
 * per run; dispatch 1e-6 s:
 * - k perm [0,2,1,3]: runs of the kept 7 (W) elements: 5376 runs x 8e-9 =
 *   43.008 us; memory 301,056 / 1e10 / 0.5 = 60.2112 us; time 2 us + 43.008
 *   + 60.2112 = 105.2192 us (upper the same);
 * - n perm [0,2,3,1] (NCHW -> NHWC): the innermost axis moves: 37,632 x
 *   (16 + 4) = 752,640 B at L2: 75.264 us / 0.5 = 150.528 us, no runs: time
 *   2 us + 150.528 us; upper 37,632 x 68 B = 255.8976 us / 0.5 + 2 us;
 * - c perm [1,0,2,3] (only the size-1 axis moves): one run: 2 us + 8 ns +
 *   60.2112 us. */
static const char runs_yaml[] =
    "schema: 1\nname: runs\nkind: cpu\n"
    "compute: {vector: {fp32: {peak: 1e9, source: t}}}\n"
    "memory: [{name: L2, bandwidth: 1e10, capacity: 1e6, source: t},\n"
    "         {name: DRAM, bandwidth: 1e9, source: t}]\n"
    "overhead: {seconds: 1e-6, source: t}\n"
    "efficiency:\n"
    "  data_movement: {compute: 1, memory: 0.5, fixed: 1e-6, per_channel: 8e-9, source: t}\n";

static void test_transpose_runs(void **state) {
    (void)state;
    char err[256];
    fl_profile *pr = NULL;
    if (fl_profile_parse(runs_yaml, strlen(runs_yaml), "runs.yaml", &pr, err, sizeof err) !=
        FL_OK) {
        fail_msg("%s", err);
    }
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 768, 7, 7}, NULL);
    ob_attr_ints(m, ob_node(m, "Transpose", "k", "x", "a"), "perm", 4, (int64_t[]){0, 2, 1, 3});
    ob_attr_ints(m, ob_node(m, "Transpose", "n", "x", "b"), "perm", 4, (int64_t[]){0, 2, 3, 1});
    ob_attr_ints(m, ob_node(m, "Transpose", "c", "x", "c"), "perm", 4, (int64_t[]){1, 0, 2, 3});
    ob_output(m, "a");
    ob_output(m, "b");
    ob_output(m, "c");
    fl_report *r = analyze_onnx(m, pr);
    const fl_roofline_node *k = rnode(r, "k"), *n = rnode(r, "n"), *c = rnode(r, "c");
    assert_string_equal(k->op_class, "data_movement");
    assert_string_equal(k->level, "L2");
    assert_near(k->bytes, 301056);
    assert_near(k->channels, 5376);
    assert_near(k->channel_time_s, 43.008e-6);
    assert_near(k->memory_s, 60.2112e-6);
    assert_near(k->time_s, 105.2192e-6);
    assert_near(k->upper_s, 105.2192e-6);
    assert_near(n->channels, 0);
    assert_near(n->channel_time_s, 0);
    assert_near(n->memory_peak_s, 75.264e-6);
    assert_near(n->time_s, 2e-6 + 150.528e-6);
    assert_near(n->upper_s, 2e-6 + 2 * 255.8976e-6);
    assert_string_equal(n->bound, "memory");
    assert_near(c->channels, 1);
    assert_near(c->time_s, 2e-6 + 8e-9 + 60.2112e-6);
    fl_report_free(r);
    fl_profile_free(pr);
}

/* TensorFlow Lite builtins get the class and the kernel traffic of the
 * TensorFlow/ONNX op that computes the same. x [1,8,8,16] f32 (NHWC):
 * - TRANSPOSE perm [0,3,1,2] (NHWC -> NCHW) moves the innermost axis: 1024
 *   runs of one element, 1024 x 16 B vectors + 4096 B at L2 (10 GB/s);
 * - LOGISTIC: 16 vector operations per element on top of its FLOPs;
 * - SLICE [1,4,8,16] of x: 2 x 2048 B + begin and size (2 x 16 B);
 * - MAX_POOL_2D 2x2 stride 2: 256 outputs, 16 operations of window setup
 *   each on top of the taps (NHWC: not the two-step kernel), one run per
 *   output row: 4;
 * - CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: conv, depthwise (vector
 *   unit), matmul.
 * The ONNX graph of the same Transpose, Sigmoid and Slice gets the same time
 * terms. */
static void test_tflite_names(void **state) {
    (void)state;
    static const int32_t perm[] = {0, 3, 1, 2}, beg[] = {0, 0, 0, 0}, size[] = {1, 4, 8, 16};
    static float cw[16 * 9 * 16], dw[9 * 16], bias[16], fw[8 * 16];
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"perm", TB_INT32, 1, {4}, perm, sizeof perm},
        {"tr", TB_FLOAT32, 4, {1, 16, 8, 8}},
        {"lg", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"beg", TB_INT32, 1, {4}, beg, sizeof beg},
        {"size", TB_INT32, 1, {4}, size, sizeof size},
        {"sl", TB_FLOAT32, 4, {1, 4, 8, 16}},
        {"mp", TB_FLOAT32, 4, {1, 4, 4, 16}},
        {"cw", TB_FLOAT32, 4, {16, 3, 3, 16}, cw, sizeof cw},
        {"bias", TB_FLOAT32, 1, {16}, bias, sizeof bias},
        {"cv", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"dw", TB_FLOAT32, 4, {1, 3, 3, 16}, dw, sizeof dw},
        {"dc", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"y", TB_FLOAT32, 2, {4, 16}},
        {"fw", TB_FLOAT32, 2, {8, 16}, fw, sizeof fw},
        {"fc", TB_FLOAT32, 2, {4, 8}},
        {"ad", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"ae", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"mu", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"sb", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"mx", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"sd", TB_FLOAT32, 4, {1, 8, 8, 16}},
        {"mm", TB_FLOAT32, 4, {1, 8, 8, 16}},
    };
    /* builtin codes TRANSPOSE 39, LOGISTIC 14, SLICE 65, MAX_POOL_2D 17,
     * CONV_2D 3, DEPTHWISE_CONV_2D 4, FULLY_CONNECTED 9, ADD 0, MUL 18, SUB
     * 41, MAXIMUM 55, SQUARED_DIFFERENCE 99 */
    const int codes[] = {39, 14, 65, 17, 3, 4, 9, 0, 18, 41, 55, 99};
    const tb_op ops[] = {
        {0, 2, {0, 1}, 1, {2}},
        {1, 1, {0}, 1, {3}},
        {2, 3, {0, 4, 5}, 1, {6}},
        /* Pool2DOptions (5): VALID, stride 2x2, filter 2x2, no activation */
        {3, 1, {0}, 1, {7}, 5, 6, {{1}, {2}, {2}, {2}, {2}, {0}}},
        /* Conv2DOptions (1): SAME, stride 1x1, no activation, dilation 1x1 */
        {4, 3, {0, 8, 9}, 1, {10}, 1, 6, {{0}, {1}, {1}, {0}, {1}, {1}}},
        /* DepthwiseConv2DOptions (2): SAME, stride 1x1, multiplier 1, no
         * activation, dilation 1x1 */
        {5, 3, {0, 11, 9}, 1, {12}, 2, 7, {{0}, {1}, {1}, {1}, {0}, {1}, {1}}},
        /* FullyConnectedOptions (8): no activation; no bias */
        {6, 3, {13, 14, -1}, 1, {15}, 8, 1, {{0}}},
        /* ADD x + bias[16] (a broadcast), and x + x (same shape) */
        {7, 2, {0, 9}, 1, {16}},
        {7, 2, {0, 0}, 1, {17}},
        /* MUL, SUB, MAXIMUM, SQUARED_DIFFERENCE of x and bias[16]; x * x */
        {8, 2, {0, 9}, 1, {18}},
        {9, 2, {0, 9}, 1, {19}},
        {10, 2, {0, 9}, 1, {20}},
        {11, 2, {0, 9}, 1, {21}},
        {8, 2, {0, 0}, 1, {22}},
    };
    tb w;
    tb_subgraph sg = {"main",
                      (int)(sizeof t / sizeof t[0]),
                      t,
                      2,
                      {0, 13},
                      8, /* at most 8: ae is read by no one */
                      {2, 3, 6, 7, 10, 12, 15, 16},
                      (int)(sizeof ops / sizeof ops[0]),
                      ops};
    tb_model(&w, (int)(sizeof codes / sizeof codes[0]), codes, 1, &sg);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    const fl_profile *ps[1] = {P};
    o.profiles = ps;
    o.n_profiles = 1;
    fl_report *r = NULL;
    fl_status st = fl_analyze(w.b, w.len, &o, &r);
    free(w.b);
    if (st != FL_OK) {
        fail_msg("TFLite analysis failed: %s", r && r->error ? r->error : "?");
    }
    const fl_roofline_node *tr = rnode(r, "tr"), *lg = rnode(r, "lg"), *sl = rnode(r, "sl");
    assert_string_equal(tr->op_class, "data_movement");
    assert_string_equal(tr->level, "L2");
    assert_near(tr->memory_peak_s, (1024 * 16 + 4096) / 1e10);
    assert_string_equal(lg->op_class, "elementwise");
    assert_true(lg->flops > 0);
    assert_near(lg->compute_peak_s, (lg->flops + 16 * 1024) / 1e9);
    assert_near(sl->bytes, 2 * 2048 + 32);
    const fl_roofline_node *tmp = rnode(r, "mp");
    assert_string_equal(tmp->op_class, "pooling");
    assert_near(tmp->compute_peak_s, (tmp->flops + 16 * 256) / 1e9);
    assert_near(tmp->channels, 4);
    assert_string_equal(rnode(r, "cv")->op_class, "conv");
    assert_string_equal(rnode(r, "dc")->op_class, "depthwise");
    assert_string_equal(rnode(r, "dc")->unit, "vector");
    /* its channel groups: the NHWC input's 16 channels (multiplier 1) */
    assert_near(rnode(r, "dc")->channels, 16);
    assert_string_equal(rnode(r, "fc")->op_class, "matmul");
    /* ADD of a [16] bias over [1,8,8,16] broadcasts; x + x does not */
    assert_string_equal(rnode(r, "ad")->op_class, "elementwise");
    assert_true(rnode(r, "ad")->broadcast);
    assert_false(rnode(r, "ae")->broadcast);
    /* MUL, SUB, MAXIMUM, SQUARED_DIFFERENCE by the schema's names too */
    const char *bc[] = {"mu", "sb", "mx", "sd"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(rnode(r, bc[i])->op_class, "elementwise");
        assert_true(rnode(r, bc[i])->broadcast);
    }
    assert_false(rnode(r, "mm")->broadcast);

    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 4, (int64_t[]){1, 8, 8, 16}, NULL);
    ob_init_i64(m, "s0", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_i64(m, "s4", 1, (int64_t[]){1}, (int64_t[]){4});
    ob_init_i64(m, "ax", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_attr_ints(m, ob_node(m, "Transpose", "otr", "x", "a"), "perm", 4, (int64_t[]){0, 3, 1, 2});
    ob_node(m, "Sigmoid", "olg", "x", "b");
    ob_node(m, "Slice", "osl", "x,s0,s4,ax", "c");
    ob_output(m, "a");
    ob_output(m, "b");
    ob_output(m, "c");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    fl_report *ro = NULL;
    st = fl_analyze(buf, len, &o, &ro);
    free(buf);
    if (st != FL_OK) {
        fail_msg("ONNX analysis failed: %s", ro && ro->error ? ro->error : "?");
    }
    assert_near(rnode(ro, "otr")->memory_peak_s, tr->memory_peak_s);
    const fl_roofline_node *olg = rnode(ro, "olg");
    assert_string_equal(olg->op_class, "elementwise");
    assert_near(olg->compute_peak_s, (olg->flops + 16 * 1024) / 1e9);
    /* ONNX's Slice has three 8-byte index inputs */
    assert_near(rnode(ro, "osl")->bytes, 2 * 2048 + 24);
    fl_report_free(ro);
    fl_report_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_conv_chain),
        cmocka_unit_test(test_levels_and_dtypes),
        cmocka_unit_test(test_fused_vs_unfused),
        cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_shipped_profiles),
        cmocka_unit_test(test_onnx_op_classes),
        cmocka_unit_test(test_efficiency_table),
        cmocka_unit_test(test_kernel_traffic),
        cmocka_unit_test(test_kernel_traffic_tf),
        cmocka_unit_test(test_transpose_runs),
        cmocka_unit_test(test_erf_work),
        cmocka_unit_test(test_int8_xeon_8480plus),
        cmocka_unit_test(test_tflite_names),
        cmocka_unit_test(test_broadcast_time),
        cmocka_unit_test(test_reuse_distance),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_dtype_without_peak),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
