/*
 * test_dependency_more.c - the dependency optimizer's second internal
 * iteration (what the first one's bypasses make possible) and Grappler's
 * device rules for bypassing an Identity or NoOp (BypassingNodeIsBeneficial:
 * the edges crossing devices must not grow).
 */
#include "passtest.h"

static void h_dependency(pt_run *h) {
    pt_pass(h, fl__pass_dependency_optimizer, "dependency", FL_DEVICE_CPU, FL_REMAPPER_STANDARD);
}

/* n0 = NoOp(^a) feeds id = Identity(b, ^n0), which three nodes read. The
 * first iteration bypasses n0 (id gets ^a) but not id (2 inputs x 3
 * consumers); the second drops ^a (a reaches id through b) and then bypasses
 * id. */
static tg_graph *two_step_graph(void) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "a", "Relu", "x", F32);
    pt_op1(g, "b", "Relu", "a", F32);
    tg_add(g, "n0", "NoOp", "^a", NULL);
    tg_attr_type(tg_add(g, "id", "Identity", "b", "^n0", NULL), "T", F32);
    pt_op1(g, "y1", "Relu", "id", F32);
    pt_op1(g, "y2", "Neg", "id", F32);
    pt_op1(g, "y3", "Abs", "id", F32);
    return g;
}

static void test_second_iteration(void **state) {
    (void)state;
    pt_run h;
    pt_load(&h, two_step_graph());
    h_dependency(&h);
    assert_string_equal(pt_dump(&h), "x=Placeholder(); a=Relu(x); b=Relu(a); y1=Relu(b); "
                                     "y2=Neg(b); y3=Abs(b)");
    assert_true(pt_fired(&h, "bypass_noop", "n0"));
    assert_true(pt_fired(&h, "transitive_reduction", "id"));
    assert_true(pt_fired(&h, "bypass_identity", "id"));
    pt_fini(&h);
}

/* One more reader of ^a's path keeps the edge: id stays (2 x 3 edges). */
static void test_second_iteration_needs_the_reduction(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "a", "Relu", "x", F32);
    pt_op1(g, "b", "Relu", "x", F32); /* a does not reach id through b */
    pt_op1(g, "a_out", "Neg", "a", F32);
    tg_add(g, "n0", "NoOp", "^a", NULL);
    tg_attr_type(tg_add(g, "id", "Identity", "b", "^n0", NULL), "T", F32);
    pt_op1(g, "y1", "Relu", "id", F32);
    pt_op1(g, "y2", "Neg", "id", F32);
    pt_op1(g, "y3", "Abs", "id", F32);
    pt_run h;
    pt_load(&h, g);
    h_dependency(&h);
    pt_expect_node(&h, "id", "Identity", "b", NULL);
    pt_expect_ctrl(&h, "id", "a", NULL);
    assert_false(pt_fired(&h, "bypass_identity", NULL));
    pt_fini(&h);
}

/* x on dx -> id on did -> readers on the devices in r[]; whether id goes. */
static bool identity_bypassed(const char *dx, const char *did, int n_readers,
                              const char *const *r) {
    tg_graph *g = tg_new();
    tg_placeholder(g, "p", F32, 1, (int64_t[]){4});
    pt_op1(g, "x", "Relu", "p", F32);
    pt_op1(g, "id", "Identity", "x", F32);
    static const char *const names[] = {"y0", "y1", "y2"};
    for (int i = 0; i < n_readers; i++) {
        pt_op1(g, names[i], "Neg", "id", F32);
    }
    pt_run h;
    pt_load(&h, g);
    pt_need(&h, "x")->device = dx;
    pt_need(&h, "id")->device = did;
    for (int i = 0; i < n_readers; i++) {
        pt_need(&h, names[i])->device = r[i];
    }
    h_dependency(&h);
    bool gone = pt_fired(&h, "bypass_identity", "id");
    pt_fini(&h);
    return gone;
}

static void test_bypass_device_crossings(void **state) {
    (void)state;
    const char *cpu = "/device:CPU:0", *g0 = "/device:GPU:0", *g1 = "/device:GPU:1";
    /* One crossing before (x -> id), one after (x -> y0): allowed. */
    assert_true(identity_bypassed(cpu, g0, 1, (const char *const[]){g0}));
    /* Two crossings before, one after. */
    assert_true(identity_bypassed(cpu, g0, 1, (const char *const[]){g1}));
    /* One input on another device and several readers: kept. */
    assert_false(identity_bypassed(cpu, g0, 2, (const char *const[]){g0, g0}));
    /* All on one device: bypassed. */
    assert_true(identity_bypassed(g0, g0, 2, (const char *const[]){g0, g0}));
    /* Same device in and out, id elsewhere: two crossings before, none after. */
    assert_true(identity_bypassed(g0, g1, 1, (const char *const[]){g0}));
}

/* A NoOp with several inputs and one control reader on another device is
 * kept (the grouping NoOps of GroupCrossDeviceControlEdges). */
static void test_noop_many_inputs_one_reader_elsewhere(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "p", "Relu", "x", F32);
    pt_op1(g, "q", "Relu", "x", F32);
    pt_op1(g, "p_out", "Neg", "p", F32);
    pt_op1(g, "q_out", "Neg", "q", F32);
    tg_add(g, "group", "NoOp", "^p", "^q", NULL);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^group", NULL), "T", F32);
    pt_run h;
    pt_load(&h, g);
    pt_need(&h, "p")->device = "/device:GPU:0";
    pt_need(&h, "q")->device = "/device:GPU:0";
    pt_need(&h, "group")->device = "/device:GPU:0";
    pt_need(&h, "m")->device = "/device:CPU:0";
    h_dependency(&h);
    pt_expect_ctrl(&h, "m", "group", NULL);
    pt_expect_ctrl(&h, "group", "p", "q", NULL);
    pt_fini(&h);
    /* The same on one device: bypassed, m waits on p and q. */
    g = tg_new();
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    pt_op1(g, "p", "Relu", "x", F32);
    pt_op1(g, "q", "Relu", "x", F32);
    pt_op1(g, "p_out", "Neg", "p", F32);
    pt_op1(g, "q_out", "Neg", "q", F32);
    tg_add(g, "group", "NoOp", "^p", "^q", NULL);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^group", NULL), "T", F32);
    pt_load(&h, g);
    h_dependency(&h);
    pt_absent(&h, "group");
    pt_expect_ctrl(&h, "m", "p", "q", NULL);
    pt_fini(&h);
}

/* A node read only through control edges becomes a NoOp; its input from
 * Switch output 1 becomes a control edge on the anchor
 * ConstantFoldingCtrl/sw_1 (an edge on the Switch would fire on both
 * branches), its plain input an edge on the node itself. */
static void test_noop_input_from_switch_anchored(void **state) {
    (void)state;
    tg_graph *g = tg_new();
    tg_producer(g, 1000);
    tg_placeholder(g, "x", F32, 1, (int64_t[]){4});
    tg_placeholder(g, "p", BOOL, 0, NULL);
    pt_op2(g, "sw", "Switch", "x", "p", F32);
    pt_op2(g, "t", "Add", "sw:1", "x", F32);
    tg_attr_type(tg_add(g, "m", "Relu", "x", "^t", NULL), "T", F32);
    pt_op1(g, "f", "Neg", "sw", F32);
    pt_run h;
    pt_load(&h, g);
    h_dependency(&h);
    assert_true(pt_fired(&h, "convert_to_noop", "t"));
    /* The NoOp (two control inputs, one reader: 2 x 1 <= 3 edges) is then
     * bypassed, so m waits on the anchor (and x, which it reads); the anchor is
     * never turned into a NoOp (SafeToRemoveIdentity: an Identity of a
     * Switch that a node waits on stays). */
    pt_absent(&h, "t");
    pt_expect_node(&h, "ConstantFoldingCtrl/sw_1", "Identity", "sw:1", NULL);
    pt_expect_ctrl(&h, "m", "ConstantFoldingCtrl/sw_1", NULL); /* ^x: m reads x */
    pt_fini(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_iteration),
        cmocka_unit_test(test_second_iteration_needs_the_reduction),
        cmocka_unit_test(test_bypass_device_crossings),
        cmocka_unit_test(test_noop_many_inputs_one_reader_elsewhere),
        cmocka_unit_test(test_noop_input_from_switch_anchored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
