/*
 * test_registry.c - the op registry as a whole: every kind in ops.def has a
 * complete descriptor whose name matches, names are unique, and lookup by name
 * round-trips; optional inputs marked in an op's flags lie below its
 * min_inputs.
 */
#include "ops/ops.h"
#include "testutil.h"

#include <string.h>

static void test_every_descriptor_complete(void **state) {
    (void)state;
    for (int k = 1; k < FL_OP_COUNT; k++) {
        const struct fl_op_desc *d = fl__op_desc_of(k);
        assert_non_null(d);
        assert_non_null(d->name);
        assert_string_equal(d->name, fl__op_name(k));
        assert_non_null(d->infer);
        assert_true(d->min_inputs >= 0);
        assert_true(d->max_inputs == -1 || d->max_inputs >= d->min_inputs);
        /* A variable output count needs a function that tells it. */
        assert_true(d->n_outputs >= 0 || d->count_outputs != NULL);
        /* An optional input marked in the flags: of an ONNX op, below
         * min_inputs (at or past it every input is optional already); of a
         * TFLite builtin, below max_inputs (it lists every input that may be
         * -1). No other format has absent inputs. */
        uint64_t opt = d->flags & ~(uint64_t)(FL_OPF_OPTIONAL_IN0 - 1u);
        if (opt) {
            bool tfl = strncmp(d->name, "tflite::", 8) == 0;
            assert_true(tfl || strncmp(d->name, "onnx::", 6) == 0 ||
                        strncmp(d->name, "com.microsoft::", 15) == 0);
            int below = tfl ? d->max_inputs : d->min_inputs;
            if (below >= 0) {
                assert_true(below <= FL_OPF_MAX_OPTIONAL_IN);
                assert_int_equal(opt >> 8 >> below, 0);
            }
        }
        /* Only functional ops (whose bodies are not costed, as in tfprof)
         * and NonMaxSuppression (whose work depends on the data) lack a cost
         * rule. */
        if (!d->cost) {
            assert_true((d->flags & FL_OPF_FUNCTIONAL) ||
                        strncmp(d->name, "NonMaxSuppression", 17) == 0);
        }
    }
}

static void test_names_unique_and_lookup_round_trips(void **state) {
    (void)state;
    for (int k = 1; k < FL_OP_COUNT; k++) {
        assert_int_equal(fl__op_lookup(fl__op_name(k)), k);
        for (int j = 1; j < k; j++) {
            assert_true(strcmp(fl__op_name(j), fl__op_name(k)) != 0);
        }
    }
    assert_int_equal(fl__op_lookup("NoSuchOp"), FL_OP_UNKNOWN);
    assert_null(fl__op_desc_of(FL_OP_UNKNOWN));
    assert_null(fl__op_desc_of(FL_OP_COUNT));
    assert_string_equal(fl__op_name(-1), "?");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_descriptor_complete),
        cmocka_unit_test(test_names_unique_and_lookup_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
