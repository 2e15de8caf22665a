/*
 * test_onnx_runorder.c - the order ONNX Runtime runs an ONNX graph's kernels
 * in (src/cost/runorder.c), derived by hand from its rule (a reverse
 * depth-first search from the kernels nothing reads, producers in ascending
 * node order; Constant nodes are no kernels), and the bytes streamed by the
 * kernels just before each one in that order.
 */
#include "cost/roofline.h"
#include "graph/graph.h"
#include "import/import.h"
#include "onnxbuild.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/diag.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    fl_arena arena;
    fl_diag d;
    fl_graph *g;
} fixture;

static void import(fixture *f, ob_model *m) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    fl__arena_init(&f->arena, 0);
    fl__diag_init(&f->d, &f->arena);
    f->g = fl__graph_new(&f->arena);
    assert_non_null(f->g);
    fl_import_opts io = {1000000, 1 << 20, NULL};
    assert_int_equal(fl__import_onnx(f->g, buf, len, &io, &f->d), FL_OK);
    free(buf);
}

static const fl_node *node(const fixture *f, const char *name) {
    for (size_t i = 0; i < f->g->n_nodes; i++) {
        if (strcmp(f->g->nodes[i]->name, name) == 0) {
            return f->g->nodes[i];
        }
    }
    fail_msg("no node %s", name);
    return NULL;
}

/* File order A B K C D E F (K a Constant):
 *   A = Relu(x), B = Sigmoid(x), K = Constant, C = Add(a, k), D = Mul(b, b),
 *   E = Add(c, d) (graph output), F = Neg(a) (graph output).
 * Leaves E, F go on the stack in that order. F comes off first: A is its
 * only producer (A, F listed). E: producers C, D pushed in that order, so D
 * is taken first with its producer B (B, D listed), then C, whose producer
 * A was seen and whose K is no kernel (C, then E listed):
 *   A F B D C E. */
static ob_model *model(void) {
    ob_model *m = ob_new(13);
    ob_input(m, "x", OB_FLOAT, 2, (int64_t[]){4, 4}, NULL);
    ob_node(m, "Relu", "A", "x", "a");
    ob_node(m, "Sigmoid", "B", "x", "b");
    Onnx__NodeProto *k = ob_node(m, "Constant", "K", "", "k");
    ob_attr_tensor_i64(m, k, "value", 0, NULL, (int64_t[]){1});
    ob_node(m, "Add", "C", "a,k", "c");
    ob_node(m, "Mul", "D", "b,b", "d");
    ob_node(m, "Add", "E", "c,d", "e");
    ob_node(m, "Neg", "F", "a", "f");
    ob_output(m, "e");
    ob_output(m, "f");
    return m;
}

static void test_order(void **state) {
    (void)state;
    fixture f;
    import(&f, model());
    fl_run_order r;
    assert_int_equal(fl__run_order_build(f.g, &f.arena, &r), FL_OK);
    const char *want[] = {"A", "F", "B", "D", "C", "E"};
    assert_int_equal(r.n, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(r.order[i]->name, want[i]);
        assert_int_equal(r.pos[r.order[i]->id], i);
    }
    assert_int_equal(r.pos[node(&f, "K")->id], SIZE_MAX);
    assert_int_equal(r.pos[node(&f, "x")->id], SIZE_MAX);
    fl__run_order_free(&f.arena, &r);
    fl__arena_free(&f.arena);
}

/* Each kernel streams 2^i bytes, i its place in the file (A 1, B 2, C 4,
 * D 8, E 16, F 32). In the run order A F B D C E, the two kernels before
 * each streamed: A 0, F 1, B 1 + 32, D 32 + 2, C 2 + 8, E 8 + 4; the five
 * before E: 1 + 32 + 2 + 8 + 4. Nodes that are no kernels keep their value. */
static void test_streamed_before(void **state) {
    (void)state;
    fixture f;
    import(&f, model());
    fl_run_order r;
    assert_int_equal(fl__run_order_build(f.g, &f.arena, &r), FL_OK);
    size_t n = f.g->n_nodes;
    double *v = calloc(n, sizeof(double)), *out = calloc(n, sizeof(double));
    assert_true(v && out);
    const char *names[] = {"A", "B", "C", "D", "E", "F"};
    for (int i = 0; i < 6; i++) {
        v[node(&f, names[i])->id] = (double)(1 << i);
    }
    out[node(&f, "K")->id] = -1;
    fl__run_order_before(&r, v, 2, out);
    const double want[] = {0, 1 + 32, 2 + 8, 32 + 2, 8 + 4, 1};
    for (int i = 0; i < 6; i++) {
        assert_true(out[node(&f, names[i])->id] == want[i]);
    }
    assert_true(out[node(&f, "K")->id] == -1);
    fl__run_order_before(&r, v, 5, out);
    assert_true(out[node(&f, "E")->id] == 1 + 32 + 2 + 8 + 4);
    assert_true(out[node(&f, "C")->id] == 1 + 32 + 2 + 8);
    free(v);
    free(out);
    fl__run_order_free(&f.arena, &r);
    fl__arena_free(&f.arena);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_streamed_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
