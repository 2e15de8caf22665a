/*
 * test_tflite_hlo.c - TFLite's StableHLO CONVOLUTION, GATHER, SCATTER, SORT,
 * BROADCAST_IN_DIM and IOTA (src/ops/tflite/stablehlo_general.c), on models
 * written in memory by tflbuild.h. Shapes and counts are derived by hand in
 * the comments from the StableHLO specification's definitions (the rules
 * head stablehlo_general.c). Stored result shapes hold -1 dims where the
 * test wants the inference's answer, so only inference from the operands
 * and options gives the shapes asserted; a free dim of tensor t is the
 * symbol "t.0".
 */
#include "foldline/foldline.h"
#include "testgraph.h"
#include "testutil.h"
#include "tflbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* Builtin codes and BuiltinOptions2 types of schema TFL3. */
enum {
    C_HLO_ADD = 163,
    C_HLO_BROADCAST_IN_DIM = 170,
    C_HLO_CONVOLUTION = 171,
    C_HLO_SCATTER = 190,
    C_HLO_COMPARE = 191,
    C_HLO_IOTA = 196,
    C_HLO_SORT = 199,
    C_HLO_GATHER = 201,
    O2_BROADCAST_IN_DIM = 2,
    O2_CONVOLUTION = 4,
    O2_SCATTER = 7,
    O2_COMPARE = 8,
    O2_IOTA = 11,
    O2_SORT = 14,
    O2_GATHER = 16,
    C_HLO_MULTIPLY = 165,
    C_HLO_CUSTOM_CALL = 173,
    C_HLO_RNG = 204,
    C_HLO_COMPOSITE = 206,
    O2_CUSTOM_CALL = 5,
    O2_RNG = 19,
    O2_COMPOSITE = 21,
};

#define V(a)                                                                                       \
    { 0, (int)(sizeof(a) / sizeof((a)[0])), NULL, a }
#define ABSENT                                                                                     \
    { 0, 0, NULL, NULL, true }

static float zeros[1024];

/* The model analysed with symbol `sym` bound to v (sym NULL: none). */
static fl_report *run_bound(const tb_subgraph *sg, int n_sg, int n_codes, const int *codes,
                            const char *sym, int64_t v) {
    tb w;
    tb_model(&w, n_codes, codes, n_sg, sg);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_symbol_binding sb = {sym, v};
    if (sym) {
        o.symbols = &sb;
        o.n_symbols = 1;
    }
    fl_report *r = NULL;
    fl_status st = fl_analyze(w.b, w.len, &o, &r);
    free(w.b);
    if (st != FL_OK) {
        fail_msg("analysis failed: %s", r && r->error ? r->error : fl_status_str(st));
    }
    return r;
}

static fl_report *run_sgs(const tb_subgraph *sg, int n_sg, int n_codes, const int *codes) {
    return run_bound(sg, n_sg, n_codes, codes, NULL, 0);
}

static void expect_flops(const fl_report *r, const char *name, const char *want) {
    const fl_report_node *n = tg_find(r, name);
    if (strcmp(n->flops.text, want) != 0) {
        fail_msg("%s has %s FLOPs, want %s", name, n->flops.text, want);
    }
}

static int n_warnings_about(const fl_report *r, const char *tensor) {
    char needle[64];
    snprintf(needle, sizeof needle, "tensor '%s'", tensor);
    int k = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        k += strstr(r->warnings[i], needle) != NULL;
    }
    return k;
}

/* CONVOLUTION, three layouts:
 *  c1: lhs [1,8,8,4] as [b,0,1,f], rhs [3,3,4,6] as [0,1,i,o], result
 *      [b,0,1,f]; strides {2,2}, padding {{1,1},{1,1}}, dilations absent
 *      (1). Spatial: P = (8 - 1) * 1 + 1 + 2 = 10, W = 3, (10 - 3) / 2 + 1 =
 *      4 -> [1,4,4,6]. MACs 96 outputs x 4 input features x 9 = 3456,
 *      FLOPs 6912.
 *  c2: lhs [N,8,5,7] as [b,f,0,1], rhs [6,4,3,2] as [o,i,0,1], result
 *      [b,f,0,1]; feature_group_count 2 (8 input features = 4 x 2), strides
 *      {1,3}, padding {{0,0},{0,1}}, lhs_dilation {1,2}, rhs_dilation
 *      {2,1}. Dim 0: P = 5, W = (3 - 1) * 2 + 1 = 5 -> 1. Dim 1: P = 6 * 2 +
 *      1 + 1 = 14, W = 2 -> (14 - 2) / 3 + 1 = 5. Result [N,6,1,5], 30N
 *      elements, each 4 (input features per group) x 3 x 2 = 24 MACs:
 *      720*N MACs, 1440*N FLOPs.
 *  c3: lhs [1,L,4] as [b,0,f], rhs [3,4,8] as [0,i,o], stride 1, padding
 *      {{1,1}}: P = L + 2, W = 3 -> L; result [1,L,8], MACs 8L x 4 x 3 =
 *      96*L.
 *  c4: c1's operands with a kernel of 3 input features [3,3,3,6]: the lhs
 *      has 4, so the options do not fit: a warning naming the tensor, the
 *      stored shape [1,4,4,6] used.
 *  c5: c1 whose file stores [1,5,5,6]: the inferred [1,4,4,6] disagrees,
 *      a warning, the stored shape used.
 *  c6: lhs [4,5,6] as [b,0,f], rhs [3,6,8] as [0,i,o], batch_group_count 2,
 *      options otherwise absent (strides, dilations 1, padding 0,
 *      feature_group_count 0 read as 1): batch 4 / 2 = 2, spatial 5 - 3 + 1
 *      = 3, features 8 -> [2,3,8]; each of the 48 elements sums 6 input
 *      features x 3 taps: 864 MACs.
 *  c7: c1 with padding {{0,0},{2^62 - 1, 2^62 - 1}}: the padded length
 *      overflows 64-bit integers, so a warning and the stored shape (nothing
 *      computed out of range: the suite runs under UBSan). */
static void test_convolution(void **state) {
    (void)state;
    static const int64_t s22[] = {2, 2}, p1111[] = {1, 1, 1, 1}, sp12[] = {1, 2}, s13[] = {1, 3},
                         p0001[] = {0, 0, 0, 1}, d12[] = {1, 2}, d21[] = {2, 1}, sp23[] = {2, 3},
                         sp01[] = {0, 1}, one[] = {1}, p11[] = {1, 1}, sp0[] = {0},
                         pbig[] = {0, 0, INT64_MAX / 2, INT64_MAX / 2};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 4, {1, 8, 8, 4}},
        {"w1", TB_FLOAT32, 4, {3, 3, 4, 6}, zeros, 4 * 216},
        {"c1", TB_FLOAT32, 4, {-1, -1, -1, -1}},
        {"xn", TB_FLOAT32, 4, {-1, 8, 5, 7}},
        {"w2", TB_FLOAT32, 4, {6, 4, 3, 2}, zeros, 4 * 144},
        {"c2", TB_FLOAT32, 4, {-1, -1, -1, -1}},
        {"xl", TB_FLOAT32, 3, {1, -1, 4}},
        {"w3", TB_FLOAT32, 3, {3, 4, 8}, zeros, 4 * 96},
        {"c3", TB_FLOAT32, 3, {-1, -1, -1}},
        {"w4", TB_FLOAT32, 4, {3, 3, 3, 6}, zeros, 4 * 162},
        {"c4", TB_FLOAT32, 4, {1, 4, 4, 6}},
        {"c5", TB_FLOAT32, 4, {1, 5, 5, 6}},
        {"xb", TB_FLOAT32, 3, {4, 5, 6}},
        {"wb", TB_FLOAT32, 3, {3, 6, 8}, zeros, 4 * 144},
        {"c6", TB_FLOAT32, 3, {-1, -1, -1}},
        {"c7", TB_FLOAT32, 4, {1, 4, 4, 6}},
    };
    const int codes[] = {C_HLO_CONVOLUTION};
    /* fields: strides, padding, lhs_dil, rhs_dil, reversal, in_b, in_f,
     * in_sp, k_in, k_out, k_sp, out_b, out_f, out_sp, fgc, bgc */
#define C1_OPTS                                                                                    \
    O2_CONVOLUTION, 16, {V(s22), V(p1111), ABSENT,  ABSENT, ABSENT, {0},     {3}, V(sp12),         \
                         {2},    {3},      V(sp01), {0},    {3},    V(sp12), {1}, {1}},            \
        true
    const tb_op o[] = {
        {0, 2, {0, 1}, 1, {2}, C1_OPTS},
        {0,
         2,
         {3, 4},
         1,
         {5},
         O2_CONVOLUTION,
         16,
         {V(s13),
          V(p0001),
          V(d12),
          V(d21),
          ABSENT,
          {0},
          {1},
          V(sp23),
          {1},
          {0},
          V(sp23),
          {0},
          {1},
          V(sp23),
          {2},
          {0}},
         true},
        {0,
         2,
         {6, 7},
         1,
         {8},
         O2_CONVOLUTION,
         16,
         {V(one),
          V(p11),
          ABSENT,
          ABSENT,
          ABSENT,
          {0},
          {2},
          {0, 1, NULL, (const int64_t[]){1}},
          {1},
          {2},
          V(sp0),
          {0},
          {2},
          {0, 1, NULL, (const int64_t[]){1}},
          ABSENT,
          ABSENT},
         true},
        {0, 2, {0, 9}, 1, {10}, C1_OPTS},
        {0, 2, {0, 1}, 1, {11}, C1_OPTS},
        {0,
         2,
         {12, 13},
         1,
         {14},
         O2_CONVOLUTION,
         16,
         {ABSENT,
          ABSENT,
          ABSENT,
          ABSENT,
          ABSENT,
          {0},
          {2},
          {0, 1, NULL, (const int64_t[]){1}},
          {1},
          {2},
          V(sp0),
          {0},
          {2},
          {0, 1, NULL, (const int64_t[]){1}},
          ABSENT,
          {2}},
         true},
        {0,
         2,
         {0, 1},
         1,
         {15},
         O2_CONVOLUTION,
         16,
         {V(s22),
          V(pbig),
          ABSENT,
          ABSENT,
          ABSENT,
          {0},
          {3},
          V(sp12),
          {2},
          {3},
          V(sp01),
          {0},
          {3},
          V(sp12),
          {1},
          {1}},
         true},
    };
#undef C1_OPTS
    tb_subgraph sg = {"main", 16, t, 4, {0, 3, 6, 12}, 7, {2, 5, 8, 10, 11, 14, 15}, 7, o};
    fl_report *r = run_sgs(&sg, 1, 1, codes);
    tg_expect_shape(r, "c1", 0, "[1,4,4,6]");
    assert_int_equal(tg_find(r, "c1")->macs.value, 3456);
    assert_int_equal(tg_find(r, "c1")->flops.value, 6912);
    tg_expect_shape(r, "c2", 0, "[xn.0,6,1,5]");
    assert_string_equal(tg_find(r, "c2")->macs.text, "720*xn.0");
    expect_flops(r, "c2", "1440*xn.0");
    tg_expect_shape(r, "c3", 0, "[1,xl.1,8]");
    assert_string_equal(tg_find(r, "c3")->macs.text, "96*xl.1");
    assert_true(fl_test_has_warning(r,
                                    "tensor 'c4': input features differ from the kernel's input "
                                    "features times feature_group_count; the file's shape is used",
                                    NULL));
    tg_expect_shape(r, "c4", 0, "[1,4,4,6]");
    assert_true(fl_test_has_warning(
        r, "tensor 'c5': inferred shape [1,4,4,6] but the file stores [1,5,5,6]", NULL));
    tg_expect_shape(r, "c5", 0, "[1,5,5,6]");
    assert_int_equal(n_warnings_about(r, "c1"), 0);
    assert_int_equal(n_warnings_about(r, "c2"), 0);
    assert_int_equal(n_warnings_about(r, "c3"), 0);
    tg_expect_shape(r, "c6", 0, "[2,3,8]");
    assert_int_equal(tg_find(r, "c6")->macs.value, 864);
    assert_int_equal(n_warnings_about(r, "c6"), 0);
    assert_true(fl_test_has_warning(
        r, "tensor 'c7': the window arithmetic overflows 64-bit integers; the file's shape is used",
        NULL));
    tg_expect_shape(r, "c7", 0, "[1,4,4,6]");
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* GATHER, operand x [5,6,7]:
 *  g1: indices [B,3,2], index_vector_dim 2, start_index_map {0,1},
 *      collapsed {0,1}, slice_sizes {1,1,7}, offset_dims {2}: batch dims
 *      [B,3] (indices without dim 2), offset dims [7] -> [B,3,7].
 *  g2: indices [4], index_vector_dim 1 = rank (an implicit trailing 1),
 *      start_index_map {1}, nothing collapsed, slice_sizes {2,1,3},
 *      offset_dims {0,2,3}: rank 1 + 3; dims 0, 2, 3 are the offset sizes
 *      2, 1, 3 in order, dim 1 the batch dim 4 -> [2,4,1,3].
 *  g3: g2 with slice_sizes {2,1,9}: 9 is over the operand's 7, a warning
 *      naming the tensor, the stored shape [2,4,1,9] kept.
 * All 0 FLOPs. */
static void test_gather(void **state) {
    (void)state;
    static const int64_t off1[] = {2}, col1[] = {0, 1}, sim1[] = {0, 1}, sz1[] = {1, 1, 7},
                         off2[] = {0, 2, 3}, sim2[] = {1}, sz2[] = {2, 1, 3}, sz3[] = {2, 1, 9};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 3, {5, 6, 7}},         {"i1", TB_INT32, 3, {-1, 3, 2}},
        {"g1", TB_FLOAT32, 3, {-1, -1, -1}},     {"i2", TB_INT32, 1, {4}},
        {"g2", TB_FLOAT32, 4, {-1, -1, -1, -1}}, {"g3", TB_FLOAT32, 4, {2, 4, 1, 9}},
    };
    const int codes[] = {C_HLO_GATHER};
    const tb_op o[] = {
        {0, 2, {0, 1}, 1, {2}, O2_GATHER, 6, {V(off1), V(col1), V(sim1), {2}, V(sz1), {0}}, true},
        {0, 2, {0, 3}, 1, {4}, O2_GATHER, 6, {V(off2), ABSENT, V(sim2), {1}, V(sz2), {0}}, true},
        {0, 2, {0, 3}, 1, {5}, O2_GATHER, 6, {V(off2), ABSENT, V(sim2), {1}, V(sz3), {0}}, true},
    };
    tb_subgraph sg = {"main", 6, t, 3, {0, 1, 3}, 3, {2, 4, 5}, 3, o};
    fl_report *r = run_sgs(&sg, 1, 1, codes);
    tg_expect_shape(r, "g1", 0, "[i1.0,3,7]");
    tg_expect_shape(r, "g2", 0, "[2,4,1,3]");
    assert_true(fl_test_has_warning(
        r, "tensor 'g3': a slice size is negative or over the operand's dim", NULL));
    tg_expect_shape(r, "g3", 0, "[2,4,1,9]");
    for (int i = 0; i < 3; i++) {
        const char *name = (const char *[]){"g1", "g2", "g3"}[i];
        assert_true(tg_find(r, name)->flops.known);
        assert_int_equal(tg_find(r, name)->flops.value, 0);
    }
    assert_int_equal(n_warnings_about(r, "g1") + n_warnings_about(r, "g2"), 0);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* SCATTER into x [6,8] (update_window_dims {1}, inserted_window_dims {0},
 * scatter_dims_to_operand_dims {0}, index_vector_dim 1: updates of rank 1 +
 * 2 - 1 = 2), result [6,8]:
 *  s1: indices [3,1], updates [3,8], update computation subgraph 1 (an ADD
 *      of two scalars, 1 FLOP): 24 update elements x 1 = 24 FLOPs;
 *  s2: indices [I,1], updates [U,8] (two free dims of the file, so two
 *      symbols; U = I at run time), the same body: 8*U FLOPs;
 *  s3: s1 without a body (no index): one FLOP per update element, 24.
 * The body's ADD is not counted on its own (0). Totals 8*U + 48 (U is
 * uu.0). */
static void test_scatter(void **state) {
    (void)state;
    static const int64_t uwd[] = {1}, iwd[] = {0}, sd[] = {0};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {6, 8}},    {"i", TB_INT32, 2, {3, 1}},
        {"u", TB_FLOAT32, 2, {3, 8}},    {"s1", TB_FLOAT32, 2, {-1, -1}},
        {"iu", TB_INT32, 2, {-1, 1}},    {"uu", TB_FLOAT32, 2, {-1, 8}},
        {"s2", TB_FLOAT32, 2, {-1, -1}}, {"s3", TB_FLOAT32, 2, {-1, -1}},
    };
    const int codes[] = {C_HLO_SCATTER, C_HLO_ADD};
#define S_OPTS(body) O2_SCATTER, 7, {{0}, V(uwd), V(iwd), V(sd), {1}, {0}, body}, true
    const tb_op o[] = {
        {0, 3, {0, 1, 2}, 1, {3}, S_OPTS({1})},
        {0, 3, {0, 4, 5}, 1, {6}, S_OPTS({1})},
        {0, 3, {0, 1, 2}, 1, {7}, S_OPTS(ABSENT)},
    };
#undef S_OPTS
    const tb_tensor bt[] = {
        {"a", TB_FLOAT32, 0, {0}},
        {"b", TB_FLOAT32, 0, {0}},
        {"sum", TB_FLOAT32, 0, {0}},
    };
    const tb_op bo[] = {{1, 2, {0, 1}, 1, {2}}};
    const tb_subgraph sg[] = {
        {"main", 8, t, 5, {0, 1, 2, 4, 5}, 3, {3, 6, 7}, 3, o},
        {"add", 3, bt, 2, {0, 1}, 1, {2}, 1, bo},
    };
    fl_report *r = run_sgs(sg, 2, 2, codes);
    tg_expect_shape(r, "s1", 0, "[6,8]");
    tg_expect_shape(r, "s2", 0, "[6,8]");
    tg_expect_shape(r, "s3", 0, "[6,8]");
    assert_int_equal(tg_find(r, "s1")->flops.value, 24);
    expect_flops(r, "s2", "8*uu.0");
    assert_int_equal(tg_find(r, "s3")->flops.value, 24);
    assert_int_equal(tg_find(r, "add/sum")->flops.value, 0);
    assert_string_equal(r->totals.flops.text, "8*uu.0 + 48");
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* SORT with a comparator (subgraph 1: COMPARE of the two keys, 1 FLOP):
 *  k1: [4,16] along dimension -1 (= 1): 4 rows of n = 16, 16 x log2 16 =
 *      64 comparisons a row: 256 FLOPs;
 *  k2, k2v: keys [5,3] and values [5,3] along dimension 0: 3 rows of n = 5,
 *      5 x ceil(log2 5) = 15 a row: 45 comparisons, 45 FLOPs (the
 *      comparator compares the keys only);
 *  k3: [B,4] along dimension 1: B rows of 4 x 2 = 8: 8*B FLOPs;
 *  k4: [B,4] along dimension 0: 4 rows of n = B, B x ceil(log2 B) a row:
 *      4*B*ceil(log2(B)) FLOPs; bound B = 5: 4 x 5 x 3 = 60, B = 1: 0 (a
 *      single element is not compared), B = 1024: 4 x 1024 x 10 = 40960.
 * Results have their inputs' shapes; the comparator's node counts 0. */
static void test_sort(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"a", TB_FLOAT32, 2, {4, 16}},   {"k1", TB_FLOAT32, 2, {-1, -1}},
        {"b", TB_FLOAT32, 2, {5, 3}},    {"v", TB_INT32, 2, {5, 3}},
        {"k2", TB_FLOAT32, 2, {-1, -1}}, {"k2v", TB_INT32, 2, {-1, -1}},
        {"c", TB_FLOAT32, 2, {-1, 4}},   {"k3", TB_FLOAT32, 2, {-1, -1}},
        {"k4", TB_FLOAT32, 2, {-1, -1}},
    };
    const int codes[] = {C_HLO_SORT, C_HLO_COMPARE};
    const tb_op o[] = {
        {0, 1, {0}, 1, {1}, O2_SORT, 3, {{-1}, {1}, {1}}, true},
        {0, 2, {2, 3}, 2, {4, 5}, O2_SORT, 3, {{0}, {0}, {1}}, true},
        {0, 1, {6}, 1, {7}, O2_SORT, 3, {{1}, {0}, {1}}, true},
        {0, 1, {6}, 1, {8}, O2_SORT, 3, {{0}, {0}, {1}}, true},
    };
    /* comparator (lhs key, rhs key, lhs value, rhs value) -> lhs < rhs */
    const tb_tensor ct[] = {
        {"l", TB_FLOAT32, 0, {0}}, {"r", TB_FLOAT32, 0, {0}}, {"lv", TB_INT32, 0, {0}},
        {"rv", TB_INT32, 0, {0}},  {"lt", TB_BOOL, 0, {0}},
    };
    const tb_op co[] = {{1, 2, {0, 1}, 1, {4}, O2_COMPARE, 2, {{5}, {1}}, true}};
    const tb_subgraph sg[] = {
        {"main", 9, t, 4, {0, 2, 3, 6}, 5, {1, 4, 5, 7, 8}, 4, o},
        {"less", 5, ct, 4, {0, 1, 2, 3}, 1, {4}, 1, co},
    };
    fl_report *r = run_sgs(sg, 2, 2, codes);
    tg_expect_shape(r, "k1", 0, "[4,16]");
    assert_int_equal(tg_find(r, "k1")->flops.value, 256);
    tg_expect_shape(r, "k2", 0, "[5,3]");
    tg_expect_shape(r, "k2", 1, "[5,3]");
    assert_int_equal(tg_find(r, "k2")->flops.value, 45);
    tg_expect_shape(r, "k3", 0, "[c.0,4]");
    expect_flops(r, "k3", "8*c.0");
    expect_flops(r, "k4", "4*c.0*ceil(log2(c.0))");
    assert_false(tg_find(r, "k4")->incomplete);
    assert_false(tg_find(r, "k3")->incomplete);
    assert_int_equal(tg_find(r, "less/lt")->flops.value, 0);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
    const int64_t b[] = {5, 1, 1024}, k4[] = {60, 0, 40960};
    for (int i = 0; i < 3; i++) {
        r = run_bound(sg, 2, 2, codes, "c.0", b[i]);
        assert_int_equal(tg_find(r, "k4")->flops.value, k4[i]);
        assert_int_equal(tg_find(r, "k3")->flops.value, 8 * b[i]);
        fl_report_free(r);
    }
}

/* BROADCAST_IN_DIM and IOTA (the stored shape is the result, checked):
 *  b1: [3,1] -> stored [2,3,5], broadcast_dimensions {1,2}: operand dim 0
 *      (3) maps to result dim 1 (3), dim 1 is 1: consistent, no warning;
 *  b2: [N,4] -> stored [-1,4,7], {0,1}: result dim 0 unknown in the file,
 *      filled with the operand's N: [y.0,4,7];
 *  b3: [3,2] -> stored [3,5], {0,1}: operand dim 1 is 2, neither 1 nor 5:
 *      a warning naming the tensor;
 *  i1: IOTA stored [4,5], iota_dimension 1: no warning; i2: iota_dimension
 *      2 of a rank-2 result: a warning.
 * All 0 FLOPs. */
static void test_broadcast_iota(void **state) {
    (void)state;
    static const int64_t bd12[] = {1, 2}, bd01[] = {0, 1};
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {3, 1}},  {"b1", TB_FLOAT32, 3, {2, 3, 5}},
        {"y", TB_FLOAT32, 2, {-1, 4}}, {"b2", TB_FLOAT32, 3, {-1, 4, 7}},
        {"z", TB_FLOAT32, 2, {3, 2}},  {"b3", TB_FLOAT32, 2, {3, 5}},
        {"i1", TB_INT32, 2, {4, 5}},   {"i2", TB_INT32, 2, {4, 5}},
    };
    const int codes[] = {C_HLO_BROADCAST_IN_DIM, C_HLO_IOTA};
    const tb_op o[] = {
        {0, 1, {0}, 1, {1}, O2_BROADCAST_IN_DIM, 1, {V(bd12)}, true},
        {0, 1, {2}, 1, {3}, O2_BROADCAST_IN_DIM, 1, {V(bd01)}, true},
        {0, 1, {4}, 1, {5}, O2_BROADCAST_IN_DIM, 1, {V(bd01)}, true},
        {1, 0, {0}, 1, {6}, O2_IOTA, 1, {{1}}, true},
        {1, 0, {0}, 1, {7}, O2_IOTA, 1, {{2}}, true},
    };
    tb_subgraph sg = {"main", 8, t, 3, {0, 2, 4}, 5, {1, 3, 5, 6, 7}, 5, o};
    fl_report *r = run_sgs(&sg, 1, 2, codes);
    tg_expect_shape(r, "b1", 0, "[2,3,5]");
    tg_expect_shape(r, "b2", 0, "[y.0,4,7]");
    assert_true(
        fl_test_has_warning(r,
                            "tensor 'b3': operand dim 1 is 2, neither 1 nor the result dim 5 it "
                            "maps to (broadcast_dimensions[1] = 1)",
                            NULL));
    tg_expect_shape(r, "b3", 0, "[3,5]");
    tg_expect_shape(r, "i1", 0, "[4,5]");
    assert_true(
        fl_test_has_warning(r, "tensor 'i2': option iota_dimension names dim 2 of a rank-2", NULL));
    const char *names[] = {"b1", "b2", "b3", "i1", "i2"};
    for (int i = 0; i < 5; i++) {
        assert_true(tg_find(r, names[i])->flops.known);
        assert_int_equal(tg_find(r, names[i])->flops.value, 0);
    }
    assert_int_equal(n_warnings_about(r, "b1") + n_warnings_about(r, "b2"), 0);
    assert_int_equal(n_warnings_about(r, "i1"), 0);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* COMPOSITE runs its decomposition subgraph as a CALL does: two
 * COMPOSITEs with decomposition 1 (a STABLEHLO_MULTIPLY of [2,3]: 6 FLOPs)
 * run it twice, 12 FLOPs, the composites themselves 0. (A subgraph nothing
 * runs counts once, so without the rule the total would be 6.) */
static void test_composite(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {2, 3}},
        {"y1", TB_FLOAT32, 2, {2, 3}},
        {"y2", TB_FLOAT32, 2, {2, 3}},
    };
    const int codes[] = {C_HLO_COMPOSITE, C_HLO_MULTIPLY};
    /* StableHLOCompositeOptions: name (absent), decomposition_subgraph_index */
    const tb_op o[] = {
        {0, 1, {0}, 1, {1}, O2_COMPOSITE, 2, {ABSENT, {1}}, true},
        {0, 1, {1}, 1, {2}, O2_COMPOSITE, 2, {ABSENT, {1}}, true},
    };
    const tb_tensor dt[] = {{"dx", TB_FLOAT32, 2, {2, 3}}, {"dy", TB_FLOAT32, 2, {2, 3}}};
    const tb_op dop[] = {{1, 2, {0, 0}, 1, {1}}};
    const tb_subgraph sg[] = {
        {"main", 3, t, 1, {0}, 1, {2}, 2, o},
        {"decomp", 2, dt, 1, {0}, 1, {1}, 1, dop},
    };
    fl_report *r = run_sgs(sg, 2, 2, codes);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(tg_find(r, "decomp/dy")->flops.value, 12);
    assert_int_equal(tg_find(r, "y1")->flops.value, 0);
    assert_int_equal(r->totals.flops.value, 12);
    assert_true(r->complete);
    fl_report_free(r);
}

/* CUSTOM_CALL c = target(x) [2,3]: the stored shape, no FLOP rule (the
 * answer is partial), one warning naming the target; z = ADD(c, c) counts
 * its 6 FLOPs on c's shape. RNG_BIT_GENERATOR (s2, bits) = RNG(s [4]):
 * output_state [4] as s, bits the stored [3,5], no FLOP rule; a second one
 * whose file stores output_state [5] gets a warning naming it. Totals: 6
 * FLOPs; 3 nodes without a rule. */
static void test_custom_call_rng(void **state) {
    (void)state;
    const tb_tensor t[] = {
        {"x", TB_FLOAT32, 2, {2, 3}}, {"c", TB_FLOAT32, 2, {2, 3}}, {"z", TB_FLOAT32, 2, {2, 3}},
        {"s", TB_INT32, 1, {4}},      {"s2", TB_INT32, 1, {4}},     {"bits", TB_INT32, 2, {3, 5}},
        {"s3", TB_INT32, 1, {5}},     {"bits3", TB_INT32, 1, {2}},
    };
    const int codes[] = {C_HLO_CUSTOM_CALL, C_HLO_ADD, C_HLO_RNG};
    tb_field target = {0};
    target.s = "my_lib.fused_attention";
    /* StablehloCustomCallOptions: call_target_name, has_side_effect;
     * StablehloRngBitGeneratorOptions: algorithm PHILOX (1) */
    const tb_op o[] = {
        {0, 1, {0}, 1, {1}, O2_CUSTOM_CALL, 2, {target, {0}}, true},
        {1, 2, {1, 1}, 1, {2}},
        {2, 1, {3}, 2, {4, 5}, O2_RNG, 1, {{1}}, true},
        {2, 1, {3}, 2, {6, 7}, O2_RNG, 1, {{1}}, true},
    };
    const tb_subgraph sg[] = {{"main", 8, t, 2, {0, 3}, 5, {2, 4, 5, 6, 7}, 4, o}};
    fl_report *r = run_sgs(sg, 1, 3, codes);
    assert_int_equal(r->n_unknown_ops, 0);
    tg_expect_shape(r, "c", 0, "[2,3]");
    assert_int_equal(tg_find(r, "z")->flops.value, 6);
    assert_int_equal(r->totals.flops.value, 6);
    tg_expect_shape(r, "s2", 0, "[4]");
    tg_expect_shape(r, "s2", 1, "[3,5]");
    assert_int_equal(n_warnings_about(r, "s2"), 0);
    assert_true(n_warnings_about(r, "s3") >= 1);
    assert_int_equal(r->nodes_without_rule, 3);
    assert_false(r->complete);
    int calls = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        calls += strstr(r->warnings[i], "STABLEHLO_CUSTOM_CALL 'c' calls target "
                                        "'my_lib.fused_attention'") != NULL;
    }
    assert_int_equal(calls, 1);
    fl_report_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convolution),     cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),         cmocka_unit_test(test_sort),
        cmocka_unit_test(test_broadcast_iota),  cmocka_unit_test(test_composite),
        cmocka_unit_test(test_custom_call_rng),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
