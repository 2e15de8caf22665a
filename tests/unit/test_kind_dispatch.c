/*
 * test_kind_dispatch.c - dispatch by op kind (passes/util.h) in the
 * arithmetic optimizer (fl__ao_stages_of, src/passes/arith/) and constant
 * folding (fl__cf_rules_of, src/passes/constfold/):
 *  - each table is the rules' own kind tests: for every registered kind, a
 *    node named as the registry names it (the registry's string or another
 *    copy of it) gets exactly the rules whose kind test it passes;
 *  - a kind test is the first thing its rule does: for every registered
 *    kind and every rule whose kind test fails on it, the rule returns
 *    FL_OK without firing (fl__cf_noop_input: -1) on a node of that kind
 *    without reading anything else (no sweep state or pass context, no
 *    inputs or outputs: a read would crash), so a rule the table skips for a
 *    kind never matches a node of that kind;
 *  - of a node of an op outside the registry, or of a registered kind under
 *    another op type (ONNX nodes), the kind tests are asked one by one:
 *    it meets the rules whose test it passes (a Bitcast the two Bitcast
 *    stages, an ONNX Transpose the ONNX stage, not Transpose's);
 *  - entries that follow from Grappler's definitions. Arithmetic: Conv2D
 *    meets only FoldMultiplyIntoConv, MaxPool only
 *    OptimizeMaxOrMinOfMonotonic, Relu only UnaryOpsComposition, Const and
 *    Placeholder none, Reshape the four Reshape stages (ReduceUpsamplingDims,
 *    RemoveRedundantReshape's two halves, ReorderCastLikeAndValuePreserving).
 *    Folding: Conv2D and Relu none, BiasAdd SimplifyArithmeticOperations and
 *    ConstantPushDownBiasAdd, Reshape only the no-op rewrite
 *    (reshape_to_same_shape), Sum MaterializeReductionIndices, the no-op
 *    rewrite (reduce_nothing) and SimplifyReduction, Shape the Shape
 *    materialization.
 */
#include "ops/ops.h"
#include "passes/arith/arith.h"
#include "passes/constfold/constfold.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_node node_of(int kind) {
    fl_node n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.op = fl__op_name(kind);
    return n;
}

/* Every registered kind: rules_of gives the bits of the nr kind tests the
 * node passes. */
static void check_table(int nr, fl_kinds_fn (*kinds)(int), uint32_t (*rules_of)(const fl_node *)) {
    assert_true(nr > 0 && nr <= 32);
    for (int r = 0; r < nr; r++) {
        assert_non_null(kinds(r));
    }
    assert_null(kinds(nr));
    assert_null(kinds(-1));
    for (int k = FL_OP_UNKNOWN + 1; k < FL_OP_COUNT; k++) {
        fl_node n = node_of(k);
        char copy[128];
        snprintf(copy, sizeof copy, "%s", n.op);
        fl_node m = n;
        m.op = copy;
        uint32_t want = 0;
        for (int r = 0; r < nr; r++) {
            want |= kinds(r)(&n) ? 1u << r : 0;
        }
        if (rules_of(&n) != want || rules_of(&m) != want) {
            fail_msg("%s: table %#x, kind tests %#x", n.op, (unsigned)rules_of(&n), (unsigned)want);
        }
    }
}

/* ---- arithmetic optimizer ---- */

static void arith_table_is_the_kind_tests(void **state) {
    (void)state;
    check_table(FL_AO_STAGES, fl__ao_stage_kinds, fl__ao_stages_of);
}

static void arith_skipped_stage_returns_first(void **state) {
    (void)state;
    for (int k = FL_OP_UNKNOWN + 1; k < FL_OP_COUNT; k++) {
        fl_node n = node_of(k);
        n.n_inputs = 2; /* inputs NULL: a stage that read one would crash */
        n.n_outputs = 1;
        uint32_t run = fl__ao_stages_of(&n);
        for (int s = 0; s < FL_AO_STAGES; s++) {
            if (run & (1u << s)) {
                continue;
            }
            bool fired = false;
            fl_status st;
            if (s < FL_AO_VISIT) {
                st = fl__ao_stage_run(s)(NULL, &n, &fired);
            } else if (s == FL_AO_ADD_OPS) {
                st = fl__ao_add_ops_rewrite(NULL, &n, &fired);
            } else if (s == FL_AO_MIN_BCAST) {
                st = fl__ao_minimize_broadcasts(NULL, &n, &fired);
            } else if (s == FL_AO_PACK) {
                st = fl__ao_replace_pack_with_tile_reshape(NULL, &n, &fired);
            } else {
                st = fl__ao_unary_ops_composition(NULL, &n, NULL);
            }
            assert_int_equal(st, FL_OK);
            assert_false(fired);
            assert_ptr_equal(n.op, fl__op_name(k));
        }
    }
    assert_null(fl__ao_stage_run(FL_AO_VISIT));
}

/* Every kind test asked of n. */
static uint32_t ask_all(int nr, fl_kinds_fn (*kinds)(int), const fl_node *n) {
    uint32_t r = 0;
    for (int i = 0; i < nr; i++) {
        r |= kinds(i)(n) ? 1u << i : 0;
    }
    return r;
}

/* The stage's index in the forward sweep, found by its function. */
static int visit_index(fl_ao_stage_fn f) {
    for (int s = 0; s < FL_AO_VISIT; s++) {
        if (fl__ao_stage_run(s) == f) {
            return s;
        }
    }
    fail_msg("stage not in the forward sweep");
    return -1;
}

static void arith_unregistered_and_renamed_ask_the_tests(void **state) {
    (void)state;
    fl_node n = node_of(FL_OP_UNKNOWN);
    n.op = "Bitcast";
    uint32_t bc = fl__ao_stages_of(&n);
    assert_int_equal(bc, ask_all(FL_AO_STAGES, fl__ao_stage_kinds, &n));
    assert_true(bc & (1u << visit_index(fl__ao_bitcast_of_bitcast)));
    assert_false(bc & (1u << visit_index(fl__ao_convert_pow)));
    n.op = "SparseSegmentSum";
    assert_int_equal(fl__ao_stages_of(&n),
                     (1u << visit_index(fl__ao_simplify_embedding_lookup)) |
                         (1u << visit_index(fl__ao_remove_cast_into_segment_reduction)));
    n.op = "NoSuchOp";
    assert_int_equal(fl__ao_stages_of(&n), 0);
    /* an ONNX node: its kind is registered as "onnx::Transpose" */
    n = node_of(FL_OP_ONNX_TRANSPOSE);
    assert_string_equal(n.op, "onnx::Transpose");
    n.op = "Transpose";
    assert_int_equal(fl__ao_stages_of(&n), 1u << visit_index(fl__ao_onnx));
    /* a registered kind under a name that is not its own: its kind counts */
    n = node_of(FL_OP_POW);
    n.op = "Const";
    assert_int_equal(fl__ao_stages_of(&n), 1u << visit_index(fl__ao_convert_pow));
}

static void arith_entries_from_definitions(void **state) {
    (void)state;
    fl_node n = node_of(FL_OP_CONV2D);
    assert_int_equal(fl__ao_stages_of(&n), 1u << visit_index(fl__ao_fold_multiply_into_conv));
    n = node_of(FL_OP_MAX_POOL);
    assert_int_equal(fl__ao_stages_of(&n), 1u << visit_index(fl__ao_max_or_min_of_monotonic));
    n = node_of(FL_OP_RELU);
    assert_int_equal(fl__ao_stages_of(&n), 1u << FL_AO_UNARY_COMPOSE);
    n = node_of(FL_OP_CONST);
    assert_int_equal(fl__ao_stages_of(&n), 0);
    n = node_of(FL_OP_PLACEHOLDER);
    assert_int_equal(fl__ao_stages_of(&n), 0);
    n = node_of(FL_OP_RESHAPE);
    uint32_t rs = fl__ao_stages_of(&n);
    int bits = 0;
    for (int s = 0; s < FL_AO_STAGES; s++) {
        bits += (rs >> s) & 1;
    }
    assert_int_equal(bits, 4);
    assert_true(rs & (1u << visit_index(fl__ao_reduce_upsampling_dims)));
    assert_true(rs & (1u << visit_index(fl__ao_reshape_of_reshape)));
    assert_true(rs & (1u << visit_index(fl__ao_reorder_cast_like)));
    assert_false(rs & (1u << visit_index(fl__ao_convert_pow)));
    n = node_of(FL_OP_ADD_V2);
    uint32_t add = fl__ao_stages_of(&n);
    assert_true(add & (1u << FL_AO_ADD_OPS));
    assert_true(add & (1u << FL_AO_MIN_BCAST));
    assert_true(add & (1u << visit_index(fl__ao_aggregation_of_copies)));
    assert_false(add & (1u << visit_index(fl__ao_convert_expm1)));
}

/* ---- constant folding ---- */

static void cf_table_is_the_kind_tests(void **state) {
    (void)state;
    check_table(fl__cf_rule_count(), fl__cf_rule_kinds, fl__cf_rules_of);
}

static void cf_skipped_rule_returns_first(void **state) {
    (void)state;
    int nr = fl__cf_rule_count(), noops = 0;
    for (int k = FL_OP_UNKNOWN + 1; k < FL_OP_COUNT; k++) {
        fl_node n = node_of(k);
        n.n_inputs = 2; /* inputs and outputs NULL: a rule that read one would crash */
        n.n_outputs = 1;
        uint32_t rules = fl__cf_rules_of(&n);
        for (int r = 0; r < nr; r++) {
            if (rules & (1u << r)) {
                continue;
            }
            fl_cf_rule_fn run = fl__cf_rule_run(r);
            if (!run) {
                const char *rule = NULL;
                assert_int_equal(fl__cf_noop_input(&n, &rule), -1);
                assert_null(rule);
                noops++;
                continue;
            }
            bool done = false;
            assert_int_equal(run(NULL, &n, &done), FL_OK);
            assert_false(done);
            assert_ptr_equal(n.op, fl__op_name(k));
        }
    }
    assert_true(noops > 0);
    assert_null(fl__cf_rule_run(nr));
}

/* The index of a rule, by its function (NULL: the no-op rewrite). */
static int rule_index(fl_cf_rule_fn f) {
    for (int r = 0; r < fl__cf_rule_count(); r++) {
        if (fl__cf_rule_run(r) == f) {
            return r;
        }
    }
    fail_msg("no such rule");
    return -1;
}

static void cf_unregistered_and_renamed_ask_the_tests(void **state) {
    (void)state;
    fl_node n = node_of(FL_OP_UNKNOWN);
    n.op = "BroadcastGradientArgs";
    assert_int_equal(fl__cf_rules_of(&n), 1u << rule_index(fl__cf_materialize_bcast_args));
    n.op = "NoSuchOp";
    assert_int_equal(fl__cf_rules_of(&n), 0);
    n = node_of(FL_OP_ONNX_SHAPE);
    assert_string_equal(n.op, "onnx::Shape");
    n.op = "Shape";
    uint32_t sh = fl__cf_rules_of(&n);
    assert_int_equal(sh, ask_all(fl__cf_rule_count(), fl__cf_rule_kinds, &n));
    assert_int_equal(sh, 1u << rule_index(fl__cf_try_materialize));
    n = node_of(FL_OP_PACK);
    n.op = "Conv2D";
    assert_int_equal(fl__cf_rules_of(&n), 1u << rule_index(fl__cf_simplify_pack));
}

static void cf_entries_from_definitions(void **state) {
    (void)state;
    fl_node n = node_of(FL_OP_CONV2D);
    assert_int_equal(fl__cf_rules_of(&n), 0);
    n = node_of(FL_OP_RELU);
    assert_int_equal(fl__cf_rules_of(&n), 0);
    n = node_of(FL_OP_BIAS_ADD);
    assert_int_equal(fl__cf_rules_of(&n),
                     (1u << rule_index(fl__cf_simplify_arith)) |
                         (1u << rule_index(fl__cf_constant_push_down_bias_add)));
    n = node_of(FL_OP_RESHAPE);
    assert_int_equal(fl__cf_rules_of(&n), 1u << rule_index(NULL));
    n = node_of(FL_OP_SUM);
    assert_int_equal(fl__cf_rules_of(&n), (1u << rule_index(fl__cf_materialize_reduction_indices)) |
                                              (1u << rule_index(NULL)) |
                                              (1u << rule_index(fl__cf_simplify_reduction)));
    n = node_of(FL_OP_SHAPE);
    assert_int_equal(fl__cf_rules_of(&n), 1u << rule_index(fl__cf_try_materialize));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arith_table_is_the_kind_tests),
        cmocka_unit_test(arith_skipped_stage_returns_first),
        cmocka_unit_test(arith_unregistered_and_renamed_ask_the_tests),
        cmocka_unit_test(arith_entries_from_definitions),
        cmocka_unit_test(cf_table_is_the_kind_tests),
        cmocka_unit_test(cf_skipped_rule_returns_first),
        cmocka_unit_test(cf_unregistered_and_renamed_ask_the_tests),
        cmocka_unit_test(cf_entries_from_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
