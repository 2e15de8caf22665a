/*
 * test_onnx_delegate.c - fl__ox_delegate (src/ops/onnxops/util.c), which
 * runs another op's inference on a node's inputs in a chosen order: an
 * absent slot before a present one reads the absent marker, never another
 * input.
 */
#include "graph/graph.h"
#include "import/import.h"
#include "onnxbuild.h"
#include "ops/onnxops/util.h"
#include "shape/infer.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/diag.h"

#include <stdlib.h>
#include <string.h>

/* Slice(x [4,6], starts {1}, ends {3}, axes {1}, steps {1}) is [4,2]. Its
 * inputs delegated to Slice again as (x, starts, ends, absent axes, steps)
 * slice the default axis 0: [2,6]. Had the absent slot read input 0, Slice
 * would take x (a float [4,6]) as its axes and not give [2,6]. An index
 * past the node's inputs is absent the same way; absent slots at the end
 * are dropped: (x, starts, ends, absent) is [2,6] too. */
static void test_delegate_absent_slots(void **state) {
    (void)state;
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 6}, NULL);
    ob_init_i64(m, "starts", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_i64(m, "ends", 1, (int64_t[]){1}, (int64_t[]){3});
    ob_init_i64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_i64(m, "steps", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_node(m, "Slice", "sl", "x,starts,ends,axes,steps", "y");
    ob_output(m, "y");
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    fl_options o;
    fl_options_init(&o);
    fl_arena arena;
    fl__arena_init(&arena, 0);
    fl_diag d;
    fl__diag_init(&d, &arena);
    fl_graph *g = fl__graph_new(&arena);
    assert_non_null(g);
    fl_ctx c = {g, g->syms, &arena, &d, o.max_value_elements};
    fl_import_opts io = {o.max_nodes, o.max_value_elements, NULL};
    fl_infer_result ir = {0, 0};
    assert_int_equal(fl__import_onnx(g, buf, len, &io, &d), FL_OK);
    assert_int_equal(fl__graph_toposort(g, &d), FL_OK);
    assert_int_equal(fl__infer_shapes(&c, &o, &ir), FL_OK);
    fl_node *t = fl__graph_find(g, "sl");
    assert_non_null(t);
    const fl_shape *s = &t->outputs[0].shape;
    assert_int_equal(s->rank, 2);
    assert_int_equal(s->dims[0].k, 4);
    assert_int_equal(s->dims[1].k, 2);

    static const int explicit_absent[] = {0, 1, 2, FL_OX_SLOT_ABSENT, 4};
    static const int past_end[] = {0, 1, 2, 9, 4};
    static const int trailing[] = {0, 1, 2, FL_OX_SLOT_ABSENT};
    const int *lists[] = {explicit_absent, past_end, trailing};
    const int counts[] = {5, 5, 4};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fl__ox_delegate(&c, t, FL_OP_ONNX_SLICE, lists[i], counts[i]), FL_OK);
        s = &t->outputs[0].shape;
        assert_int_equal(s->rank, 2);
        assert_true(fl_sym_is_known(s->dims[0]) && fl_sym_is_known(s->dims[1]));
        assert_int_equal(s->dims[0].k, 2);
        assert_int_equal(s->dims[1].k, 6);
    }
    fl__arena_free(&arena);
    free(buf);
    ob_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delegate_absent_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
