/*
 * test_sym_alias.c - symbols that inference proves equal become one.
 *
 * The equations themselves (sym.h: fl__sym_alias, fl__sym_resolve), then the
 * whole analysis on graphs built in the test: two inputs whose batch dims a
 * Concat (or a MatMul's inner dims) forces equal report one symbol, a binding
 * of either symbol binds both, and bindings that contradict the graph are a
 * usage error that names the node and both bindings.
 */
#include "sym/sym.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_arena arena;
static fl_symtab *T;

static int setup(void **state) {
    (void)state;
    fl__arena_init(&arena, 0);
    T = fl__symtab_new(&arena);
    return T ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    fl__arena_free(&arena);
    T = NULL;
    return 0;
}

static fl_sym V(const char *name) {
    fl_sym s;
    assert_int_equal(fl__sym_var(T, name, &s), FL_OK);
    return s;
}

static bool alias(fl_sym a, fl_sym b) {
    bool oom = true;
    bool r = fl__sym_alias(T, a, b, "n", &oom);
    assert_false(oom);
    return r;
}

/* The later variable becomes the alias of the earlier, whatever the order
 * of the arguments; chains resolve to the first; repeats add nothing. */
static void test_var_var(void **state) {
    (void)state;
    fl_sym x = V("x.0"), y = V("y.0"), z = V("z.0");
    assert_true(alias(y, x));
    assert_true(fl__sym_eq(fl__sym_resolve(y), x));
    assert_true(fl__sym_eq(fl__sym_resolve(x), x));
    assert_false(alias(x, y)); /* already one */
    assert_true(alias(x, z));  /* z (created last) joins x */
    assert_true(fl__sym_eq(fl__sym_resolve(z), x));
    assert_int_equal(fl__sym_n_aliases(T), 2);
    const char *name, *why;
    fl_sym v;
    fl__sym_alias_at(T, 1, &name, &v, &why);
    assert_string_equal(name, "z.0");
    assert_true(fl__sym_eq(v, x));
    assert_string_equal(why, "n");
}

/* A variable equal to a known value resolves to it, also through a chain;
 * equations without a variable side, or with two different known values,
 * record nothing (the caller reports conflicts). */
static void test_var_known(void **state) {
    (void)state;
    fl_sym x = V("x.0"), y = V("y.0");
    assert_true(alias(y, x));
    assert_true(alias(fl_sym_const(16), y));        /* y resolves to x: x is fixed at 16 */
    assert_true(fl__sym_eq(fl__sym_resolve(y), x)); /* fixed values are not substituted */
    int64_t k = 0;
    assert_true(fl__sym_fixed(y, &k));
    assert_int_equal(k, 16);
    assert_true(fl__sym_fixed(x, &k));
    assert_false(alias(fl_sym_const(17), x)); /* a second value: not recorded */
    assert_true(fl__sym_fixed(x, &k));
    assert_int_equal(k, 16);
    assert_false(fl__sym_fixed(V("v.0"), &k));
    assert_false(alias(fl_sym_const(3), fl_sym_const(4)));
    assert_false(alias(fl_sym_const(16), x)); /* already 16 */
    assert_false(alias(fl_sym_unknown(), V("w.0")));
    /* 2*w is no variable: nothing recorded. */
    fl_sym two_w;
    assert_int_equal(fl__sym_mul(T, fl_sym_const(2), V("w.0"), &two_w), FL_OK);
    assert_false(alias(two_w, fl_sym_const(8)));
    assert_null(fl__sym_var_name(two_w));
    assert_string_equal(fl__sym_var_name(V("w.0")), "w.0");
}

/* x [?,3] and y [?,5] concatenated on axis 1, then a MatMul with w [8,4]:
 * the Concat needs x.0 = y.0. */
static tg_graph *concat_graph(void) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 3});
    tg_placeholder(g, "y", 1, 2, (int64_t[]){-1, 5});
    tg_const_int(g, "axis", 3, 0, NULL, (int64_t[]){1});
    tg_node *c = tg_add(g, "concat", "ConcatV2", "x", "y", "axis", NULL);
    tg_attr_type(c, "T", 1);
    tg_attr_int(c, "N", 2);
    tg_attr_type(c, "Tidx", 3);
    tg_const_f32(g, "w", 2, (int64_t[]){8, 4}, NULL, 0);
    tg_node *m = tg_add(g, "mm", "MatMul", "concat", "w", NULL);
    tg_attr_type(m, "T", 1);
    return g;
}

static const fl_report_input *input_of(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_inputs; i++) {
        if (strcmp(r->inputs[i].name, name) == 0) {
            return &r->inputs[i];
        }
    }
    fail_msg("no input %s", name);
    return NULL;
}

static void test_concat_unifies(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->n_symbols, 1);
    assert_string_equal(r->symbols[0], "x.0");
    assert_string_equal(input_of(r, "y")->shape, "[x.0,5]");
    assert_string_equal(tg_find(r, "concat")->outputs[0].shape, "[x.0,8]");
    /* MatMul [x.0,8] x [8,4]: 32 MACs per row. */
    assert_string_equal(tg_find(r, "mm")->macs.text, "32*x.0");
    assert_true(fl_test_has_warning(r, "symbols x.0 and y.0 are one size (node 'concat'", NULL));
    fl_report_free(r);

    /* Binding the alias binds the representative. */
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    fl_symbol_binding b = {"y.0", 6};
    o.symbols = &b;
    o.n_symbols = 1;
    r = tg_analyze(g, &o);
    assert_int_equal(r->n_symbols, 0);
    assert_string_equal(input_of(r, "x")->shape, "[6,3]");
    assert_true(tg_find(r, "mm")->macs.known);
    assert_int_equal(tg_find(r, "mm")->macs.value, 6 * 32);
    fl_report_free(r);
    tg_free(g);
}

/* Bindings the graph contradicts: a usage error naming both and the node. */
static void test_contradicting_bindings(void **state) {
    (void)state;
    tg_graph *g = concat_graph();
    fl_options o;
    fl_options_init(&o);
    fl_symbol_binding two[] = {{"x.0", 16}, {"y.0", 1}};
    o.symbols = two;
    o.n_symbols = 2;
    tg_expect_error(g, &o, FL_EUSAGE,
                    "symbol bindings x.0=16 and y.0=1 disagree: node 'concat' needs x.0 and y.0 "
                    "to be equal");
    /* Equal values are fine. */
    two[1].value = 16;
    fl_report *r = tg_analyze(g, &o);
    assert_int_equal(r->n_symbols, 0);
    fl_report_free(r);

    /* An input bound to a shape fixes the other's symbol. */
    fl_input_binding in = {"y", 2, (int64_t[]){4, 5}};
    fl_symbol_binding bx = {"x.0", 3};
    fl_options_init(&o);
    o.inputs = &in;
    o.n_inputs = 1;
    o.symbols = &bx;
    o.n_symbols = 1;
    tg_expect_error(g, &o, FL_EUSAGE,
                    "symbol binding x.0=3 contradicts the graph: node 'concat' needs x.0 to be 4");
    o.n_symbols = 0;
    o.per_node = true;
    r = tg_analyze(g, &o);
    /* The known size is reported, not pushed into x's declared shape: the
     * rewrite passes see the input shapes Grappler sees. */
    assert_string_equal(input_of(r, "x")->shape, "[x.0,3]");
    assert_string_equal(tg_find(r, "concat")->outputs[0].shape, "[4,8]");
    assert_true(fl_test_has_warning(r, "symbol x.0 is 4: node 'concat' needs it to be", NULL));
    fl_report_free(r);
    tg_free(g);
}

/* Broadcasting proves nothing (either side may be 1): two symbols stay. */
static void test_broadcast_keeps_symbols(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", 1, 2, (int64_t[]){-1, 3});
    tg_placeholder(g, "y", 1, 2, (int64_t[]){-1, 3});
    tg_node *a = tg_add(g, "add", "AddV2", "x", "y", NULL);
    tg_attr_type(a, "T", 1);
    fl_report *r = tg_analyze(g, NULL);
    assert_int_equal(r->n_symbols, 0); /* the Add's output dim 0 is unknown */
    assert_string_equal(input_of(r, "y")->shape, "[y.0,3]");
    assert_string_equal(tg_find(r, "add")->outputs[0].shape, "[?,3]");
    fl_report_free(r);
    tg_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_var_var, setup, teardown),
        cmocka_unit_test_setup_teardown(test_var_known, setup, teardown),
        cmocka_unit_test(test_concat_unifies),
        cmocka_unit_test(test_contradicting_bindings),
        cmocka_unit_test(test_broadcast_keeps_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
