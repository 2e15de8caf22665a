/*
 * test_ops_rnn.c - the rnn op family (src/ops/rnn.c): GRUBlockCell and
 * AUGRUBlockCell in the registry, their shapes (known, symbolic batch, the
 * rank checks of TensorFlow's shape function) and their counts, worked out
 * by hand below.
 *
 * The cell used throughout: B = 2, I = 3, H = 4, so K = I + H = 7,
 * x [2,3], h_prev [2,4], w_ru [7,8], w_c [7,4], b_ru [8], b_c [4].
 *   MACs  = 3*B*H*K = 3*2*4*7 = 168
 *           (w_ru: 2*7*8 = 112, w_c: 2*7*4 = 56)
 *   FLOPs = 2*168 + 11*B*H = 336 + 88 = 424
 *           (BiasAdd 16 + Sigmoid 16 on the 2H gates, r*h 8, BiasAdd 8,
 *           Tanh 8, 1-u 8, u*h 8, (1-u)*c 8, Add 8 = 88)
 *   AUGRU, au_x [2,1]: + 1-au_x 2 + u*(1-au_x) 8 = 434
 *   tfprof: no rule, 0
 *   bytes (float): inputs 4*(6+8+56+28+8+4) = 440, outputs 4 * 4*8 = 128
 */
#include "ops/ops.h"
#include "passtest.h"

#include <string.h>

/* The cell's inputs; `au`: also au_x [2,1]; batch < 0: x and h_prev with an
 * unknown batch. */
static tg_graph *cell_graph(const char *op, bool au, int64_t batch, int xrank) {
    tg_graph *g = tg_new();
    int64_t xd[3] = {batch, 3, 1};
    tg_placeholder(g, "x", F32, xrank, xd);
    tg_placeholder(g, "h", F32, 2, (const int64_t[]){batch, 4});
    if (au) {
        tg_placeholder(g, "a", F32, 2, (const int64_t[]){batch, 1});
    }
    tg_const_f32(g, "w_ru", 2, (const int64_t[]){7, 8}, NULL, 0);
    tg_const_f32(g, "w_c", 2, (const int64_t[]){7, 4}, NULL, 0);
    tg_const_f32(g, "b_ru", 1, (const int64_t[]){8}, NULL, 0);
    tg_const_f32(g, "b_c", 1, (const int64_t[]){4}, NULL, 0);
    tg_node *n = au ? tg_add(g, "cell", op, "x", "h", "a", "w_ru", "w_c", "b_ru", "b_c", NULL)
                    : tg_add(g, "cell", op, "x", "h", "w_ru", "w_c", "b_ru", "b_c", NULL);
    tg_attr_type(n, "T", F32);
    tg_add(g, "out", "Identity", "cell:3", NULL);
    return g;
}

static void test_registry(void **state) {
    (void)state;
    fl_op_kind k = fl__op_lookup("GRUBlockCell");
    assert_int_equal(k, FL_OP_GRU_BLOCK_CELL);
    const struct fl_op_desc *d = fl__op_desc_of(k);
    assert_non_null(d);
    assert_string_equal(d->name, "GRUBlockCell");
    assert_int_equal(d->min_inputs, 6);
    assert_int_equal(d->max_inputs, 6);
    assert_int_equal(d->n_outputs, 4);
    assert_non_null(d->infer);
    assert_non_null(d->cost);
    k = fl__op_lookup("AUGRUBlockCell");
    assert_int_equal(k, FL_OP_AUGRU_BLOCK_CELL);
    d = fl__op_desc_of(k);
    assert_non_null(d);
    assert_string_equal(d->name, "AUGRUBlockCell");
    assert_int_equal(d->min_inputs, 7);
    assert_int_equal(d->max_inputs, 7);
    assert_int_equal(d->n_outputs, 4);
    assert_string_equal(fl__op_name(FL_OP_AUGRU_BLOCK_CELL), "AUGRUBlockCell");
}

/* All four outputs [2,4] float. */
static void expect_outputs(const pt_run *h) {
    const fl_node *n = pt_need(h, "cell");
    assert_int_equal(n->n_outputs, 4);
    for (int p = 0; p < 4; p++) {
        const fl_tensor *t = &n->outputs[p];
        assert_int_equal(t->dtype, FL_DT_FLOAT);
        assert_int_equal(t->shape.rank, 2);
        assert_true(fl_sym_is_known(t->shape.dims[0]) && t->shape.dims[0].k == 2);
        assert_true(fl_sym_is_known(t->shape.dims[1]) && t->shape.dims[1].k == 4);
    }
    pt_expect_shape(h, "out", F32, 2, 2, 4);
}

static void test_gru_block_cell(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, cell_graph("GRUBlockCell", false, 2, 2));
    expect_outputs(&h);
    pt_expect_cost(&h, "cell", 424, 0, 168);
    fl_cost c;
    memset(&c, 0, sizeof c);
    const fl_node *n = pt_need(&h, "cell");
    assert_int_equal(n->desc->cost(&h.c, n, &c), FL_OK);
    assert_false(c.tfprof_rule);
    pt_fini(&h);
}

static void test_augru_block_cell(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, cell_graph("AUGRUBlockCell", true, 2, 2));
    expect_outputs(&h);
    pt_expect_cost(&h, "cell", 434, 0, 168);
    pt_fini(&h);
}

/* The analysis: the cell counts, with its bytes, and the op is not unknown. */
static void test_gru_block_cell_report(void **state) {
    (void)state;
    tg_graph *g = cell_graph("GRUBlockCell", false, 2, 2);
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_report *r = tg_analyze(g, &o);
    const fl_report_node *n = tg_find(r, "cell");
    assert_true(n->has_rule);
    assert_false(n->incomplete);
    assert_true(n->flops.known && n->flops.value == 424);
    assert_true(n->macs.known && n->macs.value == 168);
    assert_true(n->tfprof_flops.known && n->tfprof_flops.value == 0);
    assert_true(n->bytes.known && n->bytes.value == 440 + 128);
    assert_int_equal(n->n_outputs, 4);
    fl_report_free(r);
    tg_free(g);
}

/* Batch unknown: B is the symbol x.0 in the shapes and the counts. */
static void test_gru_block_cell_symbolic(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, cell_graph("GRUBlockCell", false, -1, 2));
    const fl_node *n = pt_need(&h, "cell");
    char buf[64];
    fl__sym_format(n->outputs[3].shape.dims[0], buf, sizeof buf);
    assert_string_equal(buf, "x.0");
    assert_true(fl_sym_is_known(n->outputs[3].shape.dims[1]) && n->outputs[3].shape.dims[1].k == 4);
    fl_cost c;
    memset(&c, 0, sizeof c);
    assert_int_equal(n->desc->cost(&h.c, n, &c), FL_OK);
    assert_false(c.incomplete);
    /* 6*4*7*B + 11*4*B = 212*B; MACs 3*4*7*B = 84*B */
    fl__sym_format(c.flops, buf, sizeof buf);
    assert_string_equal(buf, "212*x.0");
    fl__sym_format(c.macs, buf, sizeof buf);
    assert_string_equal(buf, "84*x.0");
    pt_fini(&h);
}

/* TensorFlow's shape function: x and h_prev (and au_x) must be matrices. */
static void test_gru_block_cell_rank_checks(void **state) {
    (void)state;
    tg_graph *g = cell_graph("GRUBlockCell", false, 2, 3);
    tg_expect_error(g, NULL, FL_EINVAL, "'x') must be 2-D");
    tg_free(g);

    g = tg_new();
    tg_placeholder(g, "x", F32, 2, (const int64_t[]){2, 3});
    tg_placeholder(g, "h", F32, 2, (const int64_t[]){2, 4});
    tg_placeholder(g, "a", F32, 1, (const int64_t[]){2});
    tg_const_f32(g, "w_ru", 2, (const int64_t[]){7, 8}, NULL, 0);
    tg_const_f32(g, "w_c", 2, (const int64_t[]){7, 4}, NULL, 0);
    tg_const_f32(g, "b_ru", 1, (const int64_t[]){8}, NULL, 0);
    tg_const_f32(g, "b_c", 1, (const int64_t[]){4}, NULL, 0);
    tg_attr_type(
        tg_add(g, "cell", "AUGRUBlockCell", "x", "h", "a", "w_ru", "w_c", "b_ru", "b_c", NULL), "T",
        F32);
    tg_expect_error(g, NULL, FL_EINVAL, "'au_x') must be 2-D");
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_gru_block_cell),
        cmocka_unit_test(test_augru_block_cell),
        cmocka_unit_test(test_gru_block_cell_report),
        cmocka_unit_test(test_gru_block_cell_symbolic),
        cmocka_unit_test(test_gru_block_cell_rank_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
