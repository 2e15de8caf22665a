/*
 * test_engine.c - end-to-end behaviour of the analysis on small graphs built
 * in the test: bindings (shapes, symbols, scalar values), symbolic counts
 * against concrete ones, and tfprof's registered statistics with their quirks.
 */
#include "foldline/roofline.h"
#include "formula.h"
#include "testgraph.h"
#include "testutil.h"
#include "util/arena.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strided_slice(tg_graph *g, const char *name, const char *in, int64_t b, int64_t e) {
    tg_const_int(g, "ss/b", 3, 1, (int64_t[]){1}, (int64_t[]){b});
    tg_const_int(g, "ss/e", 3, 1, (int64_t[]){1}, (int64_t[]){e});
    tg_const_int(g, "ss/s", 3, 1, (int64_t[]){1}, (int64_t[]){1});
    tg_node *n = tg_add(g, name, "StridedSlice", in, "ss/b", "ss/e", "ss/s", NULL);
    tg_attr_type(n, "T", 3);
    tg_attr_type(n, "Index", 3);
}

/* size = int(float(Shape(x)[1:3]) * ratio); ResizeBilinear(x, size). The
 * ratio is a scalar input: with --value ratio=0.5 the output is known. */
static tg_graph *resize_by_ratio(void) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){1, 224, 224, 3});
    tg_placeholder(g, "ratio", 1, 0, NULL);
    tg_node *sh = tg_add(g, "shape", "Shape", "x", NULL);
    tg_attr_type(sh, "T", 1);
    tg_attr_type(sh, "out_type", 3);
    strided_slice(g, "hw", "shape", 1, 3);
    tg_node *cf = tg_add(g, "hw_f", "Cast", "hw", NULL);
    tg_attr_type(cf, "SrcT", 3);
    tg_attr_type(cf, "DstT", 1);
    tg_node *m = tg_add(g, "scaled", "Mul", "hw_f", "ratio", NULL);
    tg_attr_type(m, "T", 1);
    tg_node *ci = tg_add(g, "size", "Cast", "scaled", NULL);
    tg_attr_type(ci, "SrcT", 1);
    tg_attr_type(ci, "DstT", 3);
    tg_node *r = tg_add(g, "resized", "ResizeBilinear", "x", "size", NULL);
    tg_attr_type(r, "T", 1);
    return g;
}

static void test_value_binding(void **state) {
    (void)state;
    tg_graph *g = resize_by_ratio();
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_report *r = tg_analyze(g, &o);
    /* Without the value the target size is unknown. */
    assert_string_equal(tg_find(r, "resized")->outputs[0].shape, "[1,?,?,3]");
    assert_true(tg_find(r, "resized")->incomplete);
    fl_report_free(r);

    fl_value_binding v = {"ratio", 0.5};
    o.values = &v;
    o.n_values = 1;
    r = tg_analyze(g, &o);
    const fl_report_node *n = tg_find(r, "resized");
    assert_string_equal(n->outputs[0].shape, "[1,112,112,3]");
    /* ResizeBilinear: 9 FLOPs per output element (nn.c) = 9*112*112*3. */
    assert_int_equal(n->flops.value, 9 * 112 * 112 * 3);
    fl_report_free(r);

    /* A value for a non-scalar input is refused, naming the input. */
    fl_value_binding bad = {"x", 1.0};
    o.values = &bad;
    tg_expect_error(g, &o, FL_EUSAGE, "node 'x' (Placeholder): value binding needs a scalar");
    tg_free(g);
}

/* Reshape(x [2,12], shape) with `shape` an int32 graph input: a tensor
 * value binding (--value shape=3,-1,4) gives the target; 24 / (3 * 4) = 2. */
static void test_tensor_value_binding(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){2, 12});
    tg_placeholder(g, "shape", 3, 1, (int64_t[]){-1});
    tg_node *rs = tg_add(g, "y", "Reshape", "x", "shape", NULL);
    tg_attr_type(rs, "T", 1);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_tensor_value_binding v = {"shape", (double[]){3, -1, 4}, 3};
    o.tensor_values = &v;
    o.n_tensor_values = 1;
    fl_report *r = tg_analyze(g, &o);
    assert_string_equal(tg_find(r, "y")->outputs[0].shape, "[3,2,4]");
    fl_report_free(r);

    /* The length must fit the input's bound shape; integers must be whole. */
    fl_input_binding in = {"shape", 1, (int64_t[]){2}};
    o.inputs = &in;
    o.n_inputs = 1;
    tg_expect_error(g, &o, FL_EUSAGE,
                    "node 'shape' (Placeholder): value binding gives 3 values but the input's "
                    "shape holds 2");
    o.n_inputs = 0;
    fl_tensor_value_binding frac = {"shape", (double[]){2, 1.5}, 2};
    o.tensor_values = &frac;
    tg_expect_error(g, &o, FL_EUSAGE,
                    "node 'shape' (Placeholder): value binding 1.5 is not an integer but the "
                    "input is int32");
    tg_free(g);
}

/* A node's bytes: the sum of its inputs' sizes (read) and of its outputs'
 * (written), 4 bytes a float; report nodes show read + written. Counted
 * here by hand for inputs with one batch symbol (a.0), two different ones
 * (col.0 and b.0), a symbolic dim with a constant part (a.0 + 2 after Pad),
 * and sizes past int64 one tensor alone or only once summed. */
static void test_node_bytes_sums(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", 1, 2, (int64_t[]){-1, 3});
    tg_placeholder(g, "b", 1, 1, (int64_t[]){-1});
    tg_placeholder(g, "c", 1, 1, (int64_t[]){3});
    tg_placeholder(g, "col", 1, 2, (int64_t[]){-1, 1});
    tg_const_int(g, "pads", 3, 2, (int64_t[]){2, 2}, (int64_t[]){1, 1, 0, 0});
    const char *adds[][3] = {{"same", "a", "c"}, {"two", "col", "b"}, {"shifted", "pad", "c"}};
    tg_attr_type(tg_add(g, "pad", "Pad", "a", "pads", NULL), "T", 1);
    for (int i = 0; i < 3; i++) {
        tg_attr_type(tg_add(g, adds[i][0], "AddV2", adds[i][1], adds[i][2], NULL), "T", 1);
    }
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    for (int pass = 0; pass < 2; pass++) {
        o.passes = pass ? "default" : NULL;
        fl_report *r = tg_analyze(g, &o);
        /* [a.0,3] + [3]: 12*a.0 + 12 read, 12*a.0 written */
        assert_string_equal(tg_find(r, "same")->bytes.text, "24*a.0 + 12");
        /* [col.0,1] + [b.0] -> [col.0,b.0]: 4*col.0 + 4*b.0 read, 4*b.0*col.0
         * written (symbols in name order) */
        assert_string_equal(tg_find(r, "two")->bytes.text, "4*b.0*col.0 + 4*b.0 + 4*col.0");
        /* [a.0,3] and 4 int32 read, [a.0 + 2,3] written: 12*a.0 + 16 + 12*a.0 + 24 */
        assert_string_equal(tg_find(r, "pad")->bytes.text, "24*a.0 + 40");
        /* [a.0 + 2,3] + [3]: 12*a.0 + 24 + 12 read, 12*a.0 + 24 written */
        assert_string_equal(tg_find(r, "shifted")->bytes.text, "24*a.0 + 60");
        fl_report_free(r);
    }
    tg_free(g);

    /* 2^61 floats are 2^63 bytes; two inputs of 2^60 floats 2^63 together. */
    int64_t big = INT64_C(1) << 61, half = INT64_C(1) << 60;
    const struct {
        int rank;
        int64_t dims[2];
        const char *op, *needle;
    } over[] = {
        {2, {-1, big}, "Relu", "product overflows 64-bit integers"},
        {2, {-1, half}, "AddV2", "dimension sum overflows 64-bit integers"},
        {1, {half}, "AddV2", "dimension sum overflows 64-bit integers"},
    };
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        g = tg_new();
        tg_placeholder(g, "x", 1, over[i].rank, over[i].dims);
        tg_node *n = strcmp(over[i].op, "Relu") == 0 ? tg_add(g, "big", "Relu", "x", NULL)
                                                     : tg_add(g, "big", "AddV2", "x", "x", NULL);
        tg_attr_type(n, "T", 1);
        tg_expect_error(g, NULL, FL_EOVERFLOW, over[i].needle);
        tg_free(g);
    }
}

/* x [?,7,7,64] -> Reshape [-1,3136] -> MatMul [3136,10]: the batch stays a
 * symbol through the -1, and FLOPs are 2*3136*10 per image. */
static void test_symbolic_reshape_matmul(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 4, (int64_t[]){-1, 7, 7, 64});
    tg_const_int(g, "target", 3, 1, (int64_t[]){2}, (int64_t[]){-1, 3136});
    tg_node *rs = tg_add(g, "flat", "Reshape", "x", "target", NULL);
    tg_attr_type(rs, "T", 1);
    tg_const_f32(g, "w", 2, (int64_t[]){3136, 10}, NULL, 1);
    tg_node *mm = tg_add(g, "logits", "MatMul", "flat", "w", NULL);
    tg_attr_type(mm, "T", 1);
    fl_report *sym = tg_analyze(g, NULL);
    assert_string_equal(tg_find(sym, "flat")->outputs[0].shape, "[x.0,3136]");
    assert_string_equal(tg_find(sym, "logits")->outputs[0].shape, "[x.0,10]");
    assert_string_equal(sym->totals.tfprof_flops.text, "62720*x.0");
    assert_string_equal(sym->totals.macs.text, "31360*x.0");
    const char *names[] = {"x.0"};
    for (int64_t b = 1; b <= 8; b *= 8) {
        fl_options o;
        fl_options_init(&o);
        o.per_node = true;
        fl_input_binding in = {"x", 4, (int64_t[]){b, 7, 7, 64}};
        o.inputs = &in;
        o.n_inputs = 1;
        fl_report *con = tg_analyze(g, &o);
        int64_t v;
        char err[64];
        assert_true(formula_eval(sym->totals.flops.text, 1, names, &b, &v, err, sizeof err));
        assert_int_equal(v, con->totals.flops.value);
        assert_true(formula_eval(sym->totals.bytes.text, 1, names, &b, &v, err, sizeof err));
        assert_int_equal(v, con->totals.bytes.value);
        assert_int_equal(con->totals.tfprof_flops.value, 62720 * b);
        fl_report_free(con);
    }
    fl_report_free(sym);
    tg_free(g);
}

/* tfprof quirks (tensorflow/python/profiler/internal/flops_registry.py): AddN counts control inputs
 * among its inputs; RsqrtGrad is 4*E(out); AssignAdd is E(ref); activations are 0 in tfprof and 1
 * per element in the complete convention. */
static void test_tfprof_quirks(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "a", 1, 2, (int64_t[]){4, 5});
    tg_placeholder(g, "b", 1, 2, (int64_t[]){4, 5});
    tg_add(g, "dep", "NoOp", NULL);
    tg_node *an = tg_add(g, "sum", "AddN", "a", "b", "^dep", NULL);
    tg_attr_type(an, "T", 1);
    tg_attr_int(an, "N", 2);
    tg_node *rg = tg_add(g, "rg", "RsqrtGrad", "a", "b", NULL);
    tg_attr_type(rg, "T", 1);
    tg_node *v = tg_add(g, "v", "VariableV2", NULL);
    tg_attr_type(v, "dtype", 1);
    tg_attr_shape(v, "shape", 2, (int64_t[]){4, 5});
    tg_node *aa = tg_add(g, "acc", "AssignAdd", "v", "a", NULL);
    tg_attr_type(aa, "T", 1);
    tg_node *t = tg_add(g, "t", "Tanh", "sum", NULL);
    tg_attr_type(t, "T", 1);
    fl_report *r = tg_analyze(g, NULL);
    /* AddN: E(in0) * (3 inputs incl. ^dep - 1) = 20 * 2 = 40 in tfprof;
     * complete (n - 1) * E(out) = 20. */
    assert_int_equal(tg_find(r, "sum")->tfprof_flops.value, 40);
    assert_int_equal(tg_find(r, "sum")->flops.value, 20);
    assert_int_equal(tg_find(r, "rg")->tfprof_flops.value, 80);
    assert_int_equal(tg_find(r, "rg")->flops.value, 80);
    assert_int_equal(tg_find(r, "acc")->tfprof_flops.value, 20);
    assert_string_equal(tg_find(r, "acc")->outputs[0].shape, "[4,5]");
    assert_int_equal(tg_find(r, "t")->tfprof_flops.value, 0);
    assert_int_equal(tg_find(r, "t")->flops.value, 20);
    assert_int_equal(r->totals.tfprof_flops.value, 40 + 80 + 20);
    assert_int_equal(r->totals.flops.value, 20 + 80 + 20 + 20);
    fl_report_free(r);
    tg_free(g);
}

/* Unknown rank on an input is reported with the way to fix it. */
static void test_unknown_rank_input_warns(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "X", 1, -1, NULL);
    tg_node *n = tg_add(g, "r", "Relu", "X", NULL);
    tg_attr_type(n, "T", 1);
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->nodes_incomplete, 1);
    assert_true(fl_test_has_warning(r, "input 'X' has unknown rank", "--input X="));
    fl_report_free(r);
    tg_free(g);
}

/* Counts the engine's questions; says stop from the `stop_at`-th on. */
typedef struct stopper {
    int calls, stop_at;
} stopper;

static bool stop_after(void *arg) {
    stopper *s = arg;
    return ++s->calls >= s->stop_at;
}

static tg_graph *relu_chain(int n) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){1, 8});
    char prev[32] = "x", name[32];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "r%d", i);
        tg_node *r = tg_add(g, name, "Relu", prev, NULL);
        tg_attr_type(r, "T", 1);
        memcpy(prev, name, sizeof prev);
    }
    return g;
}

/* should_stop is asked at the start, between phases and passes, and every
 * 1024 nodes inside them: the analysis fails with FL_ECANCELED at the first
 * "stop" and reports why; "never stop" changes nothing. */
static void test_cancellation(void **state) {
    (void)state;
    tg_graph *g = relu_chain(5000);
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";

    stopper never = {0, 1 << 30};
    o.should_stop = stop_after;
    o.stop_arg = &never;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, &o, &r), FL_OK);
    assert_int_equal(r->totals.flops.value, 5000 * 8);
    /* import (5000 nodes) + inference + costs: at least one poll per 1024
     * nodes of each, plus the phase checks. */
    assert_true(never.calls >= 3 * (5000 / 1024) + 3);
    int total = never.calls;
    fl_report_free(r);

    /* Stopping at each question in turn: every one ends the analysis at
     * once, with the same status and message, and frees its memory (ASan). */
    for (int at = 1; at <= total; at += total / 7 + 1) {
        stopper s = {0, at};
        o.stop_arg = &s;
        assert_int_equal(fl_analyze(bytes, len, &o, &r), FL_ECANCELED);
        assert_int_equal(s.calls, at);
        assert_non_null(r->error);
        assert_non_null(strstr(r->error, "cancelled"));
        fl_report_free(r);
    }
    free(bytes);
    tg_free(g);
}

/* A program compiled against older headers, whose fl_options ended before
 * `passes`: fl_options_init writes only its fields, fl_analyze reads only
 * those (ASan would see an access beyond the short allocation) and uses the
 * defaults for the rest (no passes). */
static void test_options_from_older_headers(void **state) {
    (void)state;
    tg_graph *g = resize_by_ratio();
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    /* (volatile: the compiler must not see the allocation is short) */
    volatile size_t short_size = offsetof(fl_options, passes);
    size_t old_size = short_size;
    fl_options *o = malloc(old_size);
    assert_non_null(o);
    fl_options_init_size(o, old_size);
    assert_int_equal(o->size, old_size);
    assert_int_equal(o->max_nodes, 5000000);
    fl_value_binding half = {"ratio", 0.5};
    o->values = &half;
    o->n_values = 1;
    o->per_node = true;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, o, &r), FL_OK);
    assert_string_equal(tg_find(r, "resized")->outputs[0].shape, "[1,112,112,3]");
    assert_false(r->optimized);
    fl_report_free(r);
    free(o);

    /* A zeroed fl_options (size 0) is taken as one of this version. */
    fl_options z;
    memset(&z, 0, sizeof z);
    z.max_nodes = 2;
    assert_int_equal(fl_analyze(bytes, len, &z, &r), FL_ELIMIT);
    fl_report_free(r);
    free(bytes);
    tg_free(g);
}

/* Scratch memory counts against the arena's limit while it is held, and no
 * longer once freed; past the limit it fails like arena memory (sticky). */
static void test_scratch_memory_limit(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 1u << 20);
    unsigned char *p = fl__arena_scratch(&a, 600, 1024);
    assert_non_null(p);
    assert_int_equal(p[0] | p[600 * 1024 - 1], 0); /* zero */
    assert_true(a.reserved >= 600 * 1024);
    fl__arena_scratch_free(&a, p);
    assert_int_equal(a.reserved, 0);
    p = fl__arena_scratch(&a, 600, 1024); /* room again once freed */
    assert_non_null(p);
    assert_null(fl__arena_alloc(&a, 600 * 1024)); /* arena memory sees it */
    assert_true(a.failed);
    fl__arena_scratch_free(&a, p);
    fl__arena_free(&a);

    fl__arena_init(&a, 1u << 20);
    void *q = fl__arena_alloc(&a, 700 * 1024);
    assert_non_null(q);
    assert_null(fl__arena_scratch(&a, 400, 1024)); /* ... and the other way */
    assert_true(a.failed);
    assert_null(fl__arena_scratch(&a, 1, 1)); /* sticky */
    fl__arena_free(&a);

    fl__arena_init(&a, 0);
    assert_null(fl__arena_scratch(&a, SIZE_MAX / 2, 4)); /* n * size overflows */
    assert_true(a.failed);
    fl__arena_free(&a);
}

/* Scratch memory is zero when handed out again after it was written and
 * freed (small blocks come from malloc, which hands the freed ones back
 * first, and are zeroed by the arena; large ones from calloc): each size
 * written with 0xAB, freed, asked for again and read back, ten rounds. */
static void test_scratch_zero_when_reused(void **state) {
    (void)state;
    static const size_t sizes[] = {1,         8,         24, 100, 1000, 4096, 32 * 1024 - 16,
                                   32 * 1024, 200 * 1024};
    fl_arena a;
    fl__arena_init(&a, 0);
    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            unsigned char *p = fl__arena_scratch(&a, sizes[i], 1);
            assert_non_null(p);
            for (size_t k = 0; k < sizes[i]; k++) {
                assert_int_equal(p[k], 0);
            }
            memset(p, 0xAB, sizes[i]);
            fl__arena_scratch_free(&a, p);
        }
    }
    assert_int_equal(a.reserved, 0);
    fl__arena_free(&a);
}

/* Every allocation starts out zero (arena.h), in blocks whose memory comes
 * back dirty (an arena freed after every byte was written: the thread keeps
 * its blocks for the next arena, or malloc hands them out again) and past
 * fl__arena_alloc_raw buffers written with garbage, across several blocks
 * and a one-off allocation larger than the current block. */
static void test_arena_memory_is_zero(void **state) {
    (void)state;
    for (int round = 0; round < 2; round++) {
        fl_arena a;
        fl__arena_init(&a, 0);
        size_t total = 0;
        for (size_t i = 0; total < 600 * 1024; i++) {
            size_t size = i % 7 == 6 ? 3000 + i % 5000 : 1 + (i * 37) % 200;
            unsigned char *p = i % 5 == 4   ? fl__arena_alloc_raw(&a, size)
                               : i % 5 == 3 ? fl__arena_calloc(&a, size, 1)
                                            : fl__arena_alloc(&a, size);
            assert_non_null(p);
            if (i % 5 != 4) {
                for (size_t k = 0; k < size; k++) {
                    assert_int_equal(p[k], 0);
                }
            }
            memset(p, 0xa5, size); /* dirty for the next round's blocks */
            total += size;
        }
        unsigned char *big = fl__arena_alloc(&a, 100 * 1024); /* a block of its own */
        assert_non_null(big);
        for (size_t k = 0; k < 100 * 1024; k++) {
            assert_int_equal(big[k], 0);
        }
        memset(big, 0x5a, 100 * 1024);
        assert_false(a.failed);
        fl__arena_free(&a);
    }
}

/* fl__arena_table: a large table is zero, counted against the limit and
 * freed with the arena; the arena's blocks go on being used around it; a
 * small one is an ordinary allocation. */
static void test_arena_table(void **state) {
    (void)state;
    fl_arena a;
    fl__arena_init(&a, 0);
    unsigned char *first = fl__arena_alloc(&a, 100);
    assert_non_null(first);
    size_t n = (size_t)1 << 20;
    uint64_t *t = fl__arena_table(&a, n, sizeof(uint64_t)); /* 8 MB */
    assert_non_null(t);
    assert_true(a.reserved >= n * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i] == 0);
    }
    memset(t, 0xa5, n * sizeof(uint64_t));
    unsigned char *next = fl__arena_alloc(&a, 100);
    assert_non_null(next);
    assert_ptr_equal(next, first + 112); /* the same block as before */
    for (int k = 0; k < 100; k++) {
        assert_int_equal(next[k], 0);
    }
    assert_non_null(fl__arena_table(&a, 16, 8)); /* small: from the blocks */
    assert_false(a.failed);
    fl__arena_free(&a);

    fl__arena_init(&a, 6u << 20); /* 6 MB: room for the first block only */
    assert_non_null(fl__arena_alloc(&a, 100));
    assert_null(fl__arena_table(&a, n, sizeof(uint64_t)));
    assert_true(a.failed);
    fl__arena_free(&a);
}

/* Running out of memory at any one allocation - in the import, inference,
 * costs, any pass, the optimised graph's encoding, or the report built
 * after the passes - fails the analysis with FL_ENOMEM and a message: never
 * FL_OK with a field missing or a "?" in place of a value. (The first
 * allocation is the report's own: that failure leaves no report, as
 * documented.) */
/* Fails each allocation in turn (every step-th) for options `o`. */
static void oom_at_each_allocation(const uint8_t *bytes, size_t len, const fl_options *o) {
    static fl_test_alloc_counter none;
    memset(&none, 0, sizeof none);
    fl__arena_set_fail_hook(fl_test_fail_kth, &none);
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, o, &r), FL_OK);
    fl__arena_set_fail_hook(NULL, NULL);
    assert_true(r->optimized && r->n_ledger > 0);
    fl_report_free(r);
    long total = none.calls;
    assert_true(total > 100);
    int failed = 0;
    for (long k = 1; k <= total; k += 1 + total / 500) {
        fl_test_alloc_counter a = {0, k, {0}, 0};
        fl__arena_set_fail_hook(fl_test_fail_kth, &a);
        r = NULL;
        fl_status st = fl_analyze(bytes, len, o, &r);
        fl__arena_set_fail_hook(NULL, NULL);
        if (st != FL_ENOMEM) {
            print_error("allocation %ld of %ld failed, the analysis returned %s\n", k, total,
                        fl_status_name(st));
            failed++;
        } else if (k > 1) {
            assert_non_null(r);
            assert_non_null(r->error);
            assert_non_null(strstr(r->error, "memory"));
        }
        fl_report_free(r);
    }
    /* Every scratch allocation (sorts, use lists, the report's op table,
     * constant reductions) in the passes and the report: each one fails in
     * turn. */
    assert_true(none.n_scratch > 0 && none.n_scratch < FL_TEST_MAX_SCRATCH);
    for (size_t j = 0; j < none.n_scratch; j++) {
        fl_test_alloc_counter a = {0, none.scratch[j], {0}, 0};
        fl__arena_set_fail_hook(fl_test_fail_kth, &a);
        r = NULL;
        fl_status st = fl_analyze(bytes, len, o, &r);
        fl__arena_set_fail_hook(NULL, NULL);
        if (st != FL_ENOMEM || !r || !r->error || !strstr(r->error, "memory")) {
            print_error("scratch allocation %ld of %ld failed, the analysis returned %s\n",
                        none.scratch[j], total, fl_status_name(st));
            failed++;
        }
        fl_report_free(r);
    }
    /* The last allocations of all: the end of the report. */
    for (long k = total; k > total - 8 && k > 1; k--) {
        fl_test_alloc_counter a = {0, k, {0}, 0};
        fl__arena_set_fail_hook(fl_test_fail_kth, &a);
        r = NULL;
        fl_status st = fl_analyze(bytes, len, o, &r);
        fl__arena_set_fail_hook(NULL, NULL);
        if (st != FL_ENOMEM) {
            print_error("allocation %ld of %ld (the end) failed, the analysis returned %s\n", k,
                        total, fl_status_name(st));
            failed++;
        }
        fl_report_free(r);
    }
    assert_int_equal(failed, 0);
}

/* A roofline profile: one compute peak, one memory level. */
static fl_profile *parse_profile(const char *yaml) {
    fl_profile *p = NULL;
    char err[256];
    if (fl_profile_parse(yaml, strlen(yaml), "small.yaml", &p, err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    return p;
}

static fl_profile *small_profile(void) {
    return parse_profile("schema: 1\n"
                         "name: small\n"
                         "kind: cpu\n"
                         "compute:\n"
                         "  vector:\n"
                         "    fp32: {peak: 1e9, source: test}\n"
                         "memory:\n"
                         "  - {name: DRAM, bandwidth: 1e9, source: test}\n"
                         "overhead: {seconds: 1e-6, source: test}\n");
}

/* small_profile with a cache level and the refill after streaming kernels
 * (fl_profile.streamed). */
static fl_profile *refill_profile(void) {
    return parse_profile("schema: 1\n"
                         "name: refill\n"
                         "kind: cpu\n"
                         "compute:\n"
                         "  vector:\n"
                         "    fp32: {peak: 1e9, source: test}\n"
                         "memory:\n"
                         "  - {name: L2, bandwidth: 1e10, capacity: 1000, source: test}\n"
                         "  - {name: DRAM, bandwidth: 1e9, source: test}\n"
                         "overhead: {seconds: 1e-6, source: test}\n"
                         "streamed: {seconds_per_byte: 1e-12, source: test}\n");
}

/* Scratch allocations of one analysis (the fail hook counting, none failed). */
static size_t scratch_count(const uint8_t *bytes, size_t len, const fl_options *o) {
    static fl_test_alloc_counter c;
    memset(&c, 0, sizeof c);
    fl__arena_set_fail_hook(fl_test_fail_kth, &c);
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(bytes, len, o, &r), FL_OK);
    fl__arena_set_fail_hook(NULL, NULL);
    fl_report_free(r);
    return c.n_scratch;
}

static void test_out_of_memory_everywhere(void **state) {
    (void)state;
    tg_graph *g = tg_every_pass_graph();
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    fl_options o;
    fl_options_init(&o);
    o.passes = "default";
    oom_at_each_allocation(bytes, len, &o); /* the report ends with the ledger */
    o.per_node = true;
    o.return_graph = true;
    oom_at_each_allocation(bytes, len, &o); /* ... with the optimised graph */
    /* ... with roofline estimates before and after the passes, whose three
     * buffers (the nodes' estimates, the class labels, the order by time)
     * are scratch memory under the analysis's limit: 2 x 3 more */
    fl_profile *p = small_profile();
    const fl_profile *ps[1] = {p};
    fl_symbol_binding batch = {"x.0", 4}; /* a roofline needs known counts */
    o.symbols = &batch;
    o.n_symbols = 1;
    size_t without = scratch_count(bytes, len, &o);
    o.profiles = ps;
    o.n_profiles = 1;
    assert_int_equal(scratch_count(bytes, len, &o), without + 6);
    oom_at_each_allocation(bytes, len, &o);
    /* ... and on a profile with a cache level and the refill after
     * streaming kernels, which per estimate adds the reuse distances' four
     * buffers (the ops' positions, the bytes touched before each, the live
     * bytes, each value's last reader) and the refill's five (the ops' node
     * ids, the evicted bytes in and out of the window, the run order and its
     * positions; no ONNX graph: its topological order): 2 x 9 more */
    fl_profile *pr = refill_profile();
    ps[0] = pr;
    assert_int_equal(scratch_count(bytes, len, &o), without + 6 + 18);
    oom_at_each_allocation(bytes, len, &o);
    free(bytes);
    tg_free(g);
    /* An ONNX graph runs in ONNX Runtime's order, whose reverse depth-first
     * search adds 3 more per estimate (the stack, the marks, a kernel's
     * producers): 2 x (3 + 4 + 5 + 3) over the analysis without a profile */
    bytes = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.onnx", &len);
    assert_non_null(bytes);
    fl_symbol_binding n = {"N", 2};
    o.symbols = &n;
    o.return_graph = false;
    o.n_profiles = 0;
    without = scratch_count(bytes, len, &o);
    o.n_profiles = 1;
    assert_int_equal(scratch_count(bytes, len, &o), without + 30);
    oom_at_each_allocation(bytes, len, &o);
    free(bytes);
    fl_profile_free(pr);
    fl_profile_free(p);
}

/* Each importer's buffers are scratch memory, counted against the memory
 * limit; each failing in turn fails the import with FL_ENOMEM. (ONNX
 * external data ranges: test_onnx_external.) */
static void test_out_of_memory_in_importers(void **state) {
    (void)state;
    tg_graph *g = tg_every_pass_graph();
    size_t len;
    uint8_t *bytes = tg_pack(g, &len);
    /* GraphDef: the largest output port read of each node */
    assert_true(fl_test_import_scratch_oom(FL_FORMAT_GRAPHDEF, bytes, len, NULL, 0) >= 1);
    free(bytes);
    tg_free(g);
    /* ONNX: the value-name table */
    bytes = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.onnx", &len);
    assert_non_null(bytes);
    assert_true(fl_test_import_scratch_oom(FL_FORMAT_ONNX, bytes, len, NULL, 0) >= 1);
    free(bytes);
    /* TFLite: each subgraph's tensor producers, ports and nodes */
    bytes = fl_test_read_file(FL_TEST_DATA_DIR "/tiny.tflite", &len);
    assert_non_null(bytes);
    assert_true(fl_test_import_scratch_oom(FL_FORMAT_TFLITE, bytes, len, NULL, 0) >= 3);
    free(bytes);
    /* TF.js: the JSON reader's state, the weights' name index and marks,
     * then the GraphDef's port table */
    static const char json[] =
        "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
        "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":"
        "\"DT_FLOAT\"},\"shape\":{\"shape\":{\"dim\":[{\"size\":\"2\"},{\"size\":\"3\"}]}}}},"
        "{\"name\":\"w\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"}}},"
        "{\"name\":\"y\",\"op\":\"MatMul\",\"input\":[\"x\",\"w\"],\"attr\":{\"T\":"
        "{\"type\":\"DT_FLOAT\"}}}]},\"weightsManifest\":[{\"paths\":[\"s.bin\"],"
        "\"weights\":[{\"name\":\"w\",\"shape\":[3,4],\"dtype\":\"float32\"}]}]}";
    float w[12] = {0};
    fl_file shard = {"s.bin", w, sizeof w};
    assert_true(fl_test_import_scratch_oom(FL_FORMAT_TFJS, json, strlen(json), &shard, 1) >= 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancellation),
        cmocka_unit_test(test_out_of_memory_everywhere),
        cmocka_unit_test(test_out_of_memory_in_importers),
        cmocka_unit_test(test_scratch_memory_limit),
        cmocka_unit_test(test_scratch_zero_when_reused),
        cmocka_unit_test(test_arena_memory_is_zero),
        cmocka_unit_test(test_arena_table),
        cmocka_unit_test(test_value_binding),
        cmocka_unit_test(test_tensor_value_binding),
        cmocka_unit_test(test_options_from_older_headers),
        cmocka_unit_test(test_symbolic_reshape_matmul),
        cmocka_unit_test(test_node_bytes_sums),
        cmocka_unit_test(test_tfprof_quirks),
        cmocka_unit_test(test_unknown_rank_input_warns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
