/*
 * test_arith_dispatch.c - the arithmetic optimizer's dispatch by op kind
 * (src/passes/arith/arithmetic_optimizer.c, fl__ao_stages_of):
 *  - the table is the stages' own kind tests: for every registered kind,
 *    a node named as the registry names it gets exactly the stages whose
 *    kind test it passes;
 *  - a kind test is the first thing its stage does: for every registered
 *    kind and every stage whose kind test fails on it, the stage returns
 *    FL_OK, unfired, on a node of that kind without reading anything else
 *    (no sweep state, no inputs: a read would crash), so a stage the table
 *    skips for a kind never matches a node of that kind;
 *  - a node of an op outside the registry, or of a registered kind under
 *    another op type (ONNX nodes), meets every stage;
 *  - entries that follow from Grappler's stage definitions: Conv2D meets
 *    only FoldMultiplyIntoConv, MaxPool only OptimizeMaxOrMinOfMonotonic,
 *    Relu only UnaryOpsComposition, Const and Placeholder none, Reshape the
 *    four Reshape stages (ReduceUpsamplingDims, RemoveRedundantReshape's
 *    two halves, ReorderCastLikeAndValuePreserving).
 */
#include "ops/ops.h"
#include "passes/arith/arith.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVERY ((uint32_t)((1ull << FL_AO_STAGES) - 1))

static fl_node node_of(int kind) {
    fl_node n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.op = fl__op_name(kind);
    return n;
}

static void table_is_the_kind_tests(void **state) {
    (void)state;
    for (int s = 0; s < FL_AO_STAGES; s++) {
        assert_non_null(fl__ao_stage_kinds(s));
    }
    assert_null(fl__ao_stage_kinds(FL_AO_STAGES));
    assert_null(fl__ao_stage_kinds(-1));
    for (int k = FL_OP_UNKNOWN + 1; k < FL_OP_COUNT; k++) {
        fl_node n = node_of(k);
        /* the op type as another copy of the same string: still its kind */
        char copy[128];
        snprintf(copy, sizeof copy, "%s", n.op);
        fl_node m = n;
        m.op = copy;
        uint32_t want = 0;
        for (int s = 0; s < FL_AO_STAGES; s++) {
            want |= fl__ao_stage_kinds(s)(&n) ? 1u << s : 0;
        }
        if (fl__ao_stages_of(&n) != want || fl__ao_stages_of(&m) != want) {
            fail_msg("%s: table %#x, kind tests %#x", n.op, (unsigned)fl__ao_stages_of(&n),
                     (unsigned)want);
        }
    }
}

static void skipped_stage_returns_first(void **state) {
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

static void unregistered_and_renamed_meet_every_stage(void **state) {
    (void)state;
    fl_node n = node_of(FL_OP_UNKNOWN);
    n.op = "Bitcast";
    assert_int_equal(fl__ao_stages_of(&n), EVERY);
    n.op = "SparseSegmentSum";
    assert_int_equal(fl__ao_stages_of(&n), EVERY);
    /* an ONNX node: its kind is registered as "onnx::Transpose" */
    n = node_of(FL_OP_ONNX_TRANSPOSE);
    assert_string_equal(n.op, "onnx::Transpose");
    n.op = "Transpose";
    assert_int_equal(fl__ao_stages_of(&n), EVERY);
    /* a registered kind under a name that is not its own */
    n = node_of(FL_OP_CONST);
    n.op = "Pow";
    assert_int_equal(fl__ao_stages_of(&n), EVERY);
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

static void entries_from_stage_definitions(void **state) {
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_is_the_kind_tests),
        cmocka_unit_test(skipped_stage_returns_first),
        cmocka_unit_test(unregistered_and_renamed_meet_every_stage),
        cmocka_unit_test(entries_from_stage_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
