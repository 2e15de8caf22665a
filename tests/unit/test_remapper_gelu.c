/*
 * test_remapper_gelu.c - the remapper's row 17, approximate (tanh) Gelu
 * (src/passes/remapper.c, rewrite_matmul_gelu_approx): oneDNN mode,
 * _FusedMatMul [BiasAdd] (from the first remapper run) followed by
 * 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) in the form
 * ArithmeticOptimizer leaves on CPU (x^3 = Mul(Mul(c, x), Square(x)))
 * -> one _FusedMatMul [BiasAdd, GeluApproximate]. A positive test (the exact
 * fused node, the FLOPs of the chain kept) and the negatives.
 */
#include "import/import.h"
#include "passes/pipeline.h"
#include "shape/infer.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Harness (a minimal copy of test_arithmetic.c's)                            */
/* ------------------------------------------------------------------------- */

typedef struct prun {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
    fl_ctx c;
    fl_ledger led;
    fl_cost_totals before, after;
    fl_options opt;
    fl_pipeline_config cfg;
    char dump[8192];
} prun;

typedef struct popts {
    const char *passes;
    int iterations;
    fl_device device;
    fl_remapper_mode mode;
    const char *const *outputs; /* NULL: the nodes without consumers */
    size_t n_outputs;
} popts;

/* Imports tg and runs the pipeline as o says (outputs: the nodes without
 * consumers), verifier on; asserts success. */
static prun *run_with(tg_graph *tg, const popts *o) {
    size_t len;
    uint8_t *buf = tg_pack(tg, &len);
    prun *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    fl_arena_init(&p->arena, 0);
    fl_diag_init(&p->d, &p->arena);
    p->g = fl_graph_new(&p->arena);
    assert_non_null(p->g);
    p->c = (fl_ctx){p->g, p->g->syms, &p->arena, &p->d, 1 << 20};
    fl_options_init(&p->opt);
    fl_import_opts io = {1000000, 1 << 20, NULL};
    fl_status st = fl_import_graphdef(p->g, buf, len, &io, &p->d);
    free(buf);
    fl_infer_result ir;
    if (st == FL_OK) {
        st = fl_graph_toposort(p->g, &p->d);
    }
    if (st == FL_OK) {
        st = fl_infer_shapes(&p->c, &p->opt, &ir);
    }
    if (st == FL_OK) {
        st = fl_cost_graph(&p->c, &p->before);
    }
    fl_pipeline_config_init(&p->cfg);
    p->cfg.passes = o->passes;
    p->cfg.opt.iterations = o->iterations;
    p->cfg.opt.device = o->device;
    p->cfg.opt.remapper_mode = o->mode;
    p->cfg.outputs = o->outputs;
    p->cfg.n_outputs = o->n_outputs;
    p->cfg.verify = true;
    fl_ledger_init(&p->led, &p->arena);
    if (st == FL_OK) {
        st = fl_pipeline_run(&p->c, &p->opt, &p->cfg, &p->led, &p->after);
    }
    if (st != FL_OK) {
        fail_msg("pipeline failed: %s", p->d.msg ? p->d.msg : fl_status_str(st));
    }
    return p;
}

static void prun_free(prun *p) {
    fl_arena_free(&p->arena);
    free(p);
}

/* The graph as "a=Op(in,in:1,^c); b=...". */
static const char *dump(prun *p) {
    size_t o = 0;
    char *s = p->dump;
    size_t cap = sizeof p->dump;
    for (size_t i = 0; i < p->g->n_nodes; i++) {
        const fl_node *n = p->g->nodes[i];
        o += (size_t)snprintf(s + o, cap - o, "%s%s=%s(", i ? "; " : "", n->name, n->op);
        for (int k = 0; k < n->n_inputs; k++) {
            o += (size_t)snprintf(s + o, cap - o, k ? ",%s" : "%s", n->inputs[k].node->name);
            if (n->inputs[k].port) {
                o += (size_t)snprintf(s + o, cap - o, ":%d", n->inputs[k].port);
            }
        }
        for (int k = 0; k < n->n_ctrl; k++) {
            o += (size_t)snprintf(s + o, cap - o, "%s^%s", n->n_inputs || k ? "," : "",
                                  n->ctrl[k]->name);
        }
        o += (size_t)snprintf(s + o, cap - o, ")");
        assert_true(o < cap);
    }
    return s;
}

static bool fired(const prun *p, const char *rule, const char *node) {
    for (size_t i = 0; i < p->led.n_entries; i++) {
        if (strcmp(p->led.entries[i].rule, rule) == 0 &&
            (!node || strcmp(p->led.entries[i].node, node) == 0)) {
            return true;
        }
    }
    return false;
}

static const fl_node *node(const prun *p, const char *name) {
    const fl_node *n = fl_graph_find(p->g, name);
    if (!n) {
        fail_msg("no node %s in %s", name, ((prun *)p)->dump);
    }
    return n;
}

static tg_node *opt(tg_graph *g, const char *name, const char *op, const char *a, const char *b,
                    int t) {
    tg_node *n = b ? tg_add(g, name, op, a, b, NULL) : tg_add(g, name, op, a, NULL);
    tg_attr_type(n, "T", t);
    return n;
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
static prun *remap(tg_graph *g, fl_remapper_mode mode) {
    popts o = {"remap", 2, FL_DEVICE_CPU, mode, NULL, 0};
    return run_with(g, &o);
}

static void test_gelu_approximate(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    prun *p = remap(g, FL_REMAPPER_ONEDNN);
    char want[1024];
    snprintf(want, sizeof want, "%sout=Identity(g/out); g/out=_FusedMatMul(a,w,b)", ALL_CONSTS);
    assert_string_equal(dump(p), want);
    assert_true(fired(p, "matmul_bias_gelu_approximate", "g/out"));
    const fl_node *f = node(p, "g/out");
    const fl_attr *fo = fl_node_attr(f, "fused_ops");
    assert_non_null(fo);
    assert_int_equal(fo->n, 2);
    assert_string_equal(fo->v.list.s[0].p, "BiasAdd");
    assert_string_equal(fo->v.list.s[1].p, "GeluApproximate");
    const fl_attr *na = fl_node_attr(f, "num_args");
    assert_non_null(na);
    assert_int_equal(na->v.i, 1);
    const fl_attr *ep = fl_node_attr(f, "epsilon");
    assert_non_null(ep);
    assert_true(ep->v.f == 0.0f);
    const fl_attr *t = fl_node_attr(f, "T");
    assert_non_null(t);
    assert_int_equal(t->v.type, FL_DT_FLOAT);
    const fl_attr *ta = fl_node_attr(f, "transpose_a");
    const fl_attr *tb = fl_node_attr(f, "transpose_b");
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
    prun_free(p);
    tg_free(g);
}

/* Without the fusion the remapper's first run still makes the
 * _FusedMatMul [BiasAdd] named y; the Gelu ops stay. */
static void expect_gelu_kept(prun *p) {
    assert_false(fired(p, "matmul_bias_gelu_approximate", NULL));
    assert_string_equal(node(p, "g/tanh")->op, "Tanh");
    assert_string_equal(node(p, "g/out")->op, "Mul");
}

static void test_gelu_approximate_kept_when_constant_wrong(void **state) {
    (void)state;
    gelu_opts go = {1, 0.9f, false};
    tg_graph *g = gelu_graph(&go);
    prun *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(node(p, "y")->op, "_FusedMatMul");
    prun_free(p);
    tg_free(g);
    go.c_sqrt = 0.8f; /* within 1e-2: fused */
    g = gelu_graph(&go);
    p = remap(g, FL_REMAPPER_ONEDNN);
    assert_true(fired(p, "matmul_bias_gelu_approximate", "g/out"));
    prun_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_when_extra_consumer(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, true};
    tg_graph *g = gelu_graph(&go);
    prun *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(node(p, "y")->op, "_FusedMatMul");
    prun_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_in_stock_mode(void **state) {
    (void)state;
    gelu_opts go = {1, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    prun *p = remap(g, FL_REMAPPER_STANDARD);
    expect_gelu_kept(p);
    assert_string_equal(node(p, "y")->op, "_FusedMatMul");
    prun_free(p);
    tg_free(g);
}

static void test_gelu_approximate_kept_when_double(void **state) {
    (void)state;
    /* double: no CPU MatMul fusion, so no _FusedMatMul to extend */
    gelu_opts go = {2, 0.797884f, false};
    tg_graph *g = gelu_graph(&go);
    prun *p = remap(g, FL_REMAPPER_ONEDNN);
    expect_gelu_kept(p);
    assert_string_equal(node(p, "y")->op, "BiasAdd");
    assert_string_equal(node(p, "mm")->op, "MatMul");
    prun_free(p);
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
