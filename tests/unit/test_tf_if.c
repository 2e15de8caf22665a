/*
 * test_tf_if.c - TensorFlow's functional If / StatelessIf (TF 2 graphs,
 * SavedModels) lowered at import to Switch/Merge around calls of its
 * branches, as TensorFlow's LowerFunctionalOpsPass lowers it
 * (src/import/funcinline.c): both branches are inlined, inferred and
 * costed, counted as a v1 cond (both in the totals, an upper bound, with a
 * warning giving each branch's counts; src/cost/cond.c).
 *
 * Counts: MatMul [M,K]x[K,N] 2*M*K*N FLOPs, M*K*N MACs; Relu and Greater
 * 1 FLOP per output element; Identity, IdentityN, Switch, Merge, Const 0.
 */
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#define DT_FLOAT 1

static void typed(tg_node *n) {
    tg_attr_type(n, "T", DT_FLOAT);
}

/* then F(x) = Relu(x @ w) and else G(x) = x @ w2, w and w2 [16,32] body
 * constants; If on pred = Greater(t, 0.5) (t a scalar input: unknown at
 * analysis) over x [2,16]; out = If @ w3 [32,8].
 *   then: 2*2*16*32 = 2048 + Relu 64 = 2112 FLOPs, 1024 MACs
 *   else: 2048 FLOPs, 1024 MACs
 *   Greater 1, out 2*2*32*8 = 1024 FLOPs, 512 MACs
 *   totals 2112 + 2048 + 1 + 1024 = 5185 FLOPs, 2560 MACs. */
static void run(const char *op) {
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_graph *fb = tg_new(), *gb = tg_new();
    tg_const_f32(fb, "w", 2, (int64_t[]){16, 32}, NULL, 0);
    typed(tg_add(fb, "mm", "MatMul", "x", "w:output:0", NULL));
    typed(tg_add(fb, "act", "Relu", "mm:product:0", NULL));
    tg_function(g, fb, "F", 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 1, (const char *[]){"y"},
                (int[]){DT_FLOAT}, (const char *[]){"act:activations:0"});
    tg_const_f32(gb, "w2", 2, (int64_t[]){16, 32}, NULL, 0);
    typed(tg_add(gb, "mm", "MatMul", "x", "w2:output:0", NULL));
    tg_function(g, gb, "G", 1, (const char *[]){"x"}, (int[]){DT_FLOAT}, 1, (const char *[]){"y"},
                (int[]){DT_FLOAT}, (const char *[]){"mm:product:0"});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_placeholder(g, "t", DT_FLOAT, 0, NULL);
    tg_const_f32_vals(g, "half", 0, NULL, (float[]){0.5f}, 1);
    typed(tg_add(g, "pred", "Greater", "t", "half", NULL));
    tg_node *c = tg_add(g, "cond", op, "pred", "x", NULL);
    tg_attr_type(c, "Tcond", 10);
    tg_attr_types(c, "Tin", 1, (int[]){DT_FLOAT});
    tg_attr_types(c, "Tout", 1, (int[]){DT_FLOAT});
    tg_attr_func(c, "then_branch", "F");
    tg_attr_func(c, "else_branch", "G");
    tg_const_f32(g, "w3", 2, (int64_t[]){32, 8}, NULL, 0);
    typed(tg_add(g, "out", "MatMul", "cond", "w3", NULL));
    fl_report *r = tg_analyze(g, NULL);
    assert_string_equal(tg_find(r, "cond")->outputs[0].shape, "[2,32]");
    assert_string_equal(tg_find(r, "out")->outputs[0].shape, "[2,8]");
    assert_int_equal(tg_find(r, "cond/then/mm")->flops.value, 2048);
    assert_int_equal(tg_find(r, "cond/else/mm")->flops.value, 2048);
    assert_true(r->complete);
    assert_int_equal(r->totals.flops.value, 5185);
    assert_int_equal(r->totals.macs.value, 2560);
    bool warned = false;
    for (size_t i = 0; i < r->n_warnings; i++) {
        const char *w = r->warnings[i];
        warned |= strstr(w, "cond on predicate 'pred'") && strstr(w, "both branches") &&
                  strstr(w, "false branch 2048 FLOPs, 1024 MACs") &&
                  strstr(w, "true branch 2112 FLOPs, 1024 MACs");
    }
    if (!warned) {
        for (size_t i = 0; i < r->n_warnings; i++) {
            printf("warning: %s\n", r->warnings[i]);
        }
    }
    assert_true(warned);
    /* F and G are inlined: no body is left uncosted. */
    assert_int_equal(r->n_functions, 0);
    fl_report_free(r);
    tg_free(g);
    tg_free(fb);
    tg_free(gb);
}

static void test_stateless_if(void **state) {
    (void)state;
    run("StatelessIf");
}

static void test_if(void **state) {
    (void)state;
    run("If");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stateless_if),
        cmocka_unit_test(test_if),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
