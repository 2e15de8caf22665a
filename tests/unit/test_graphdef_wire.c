/*
 * test_graphdef_wire.c - the GraphDef reader that builds the IR straight
 * from the bytes (src/import/graphdef.c) against the reader of the decoded
 * message tree, which stays the reference: every node, attr (every value of
 * every kind, constants' values byte for byte), input and output count must
 * be the same. Checked on hand-made encodings (including the ones the wire
 * reader leaves to the tree reader, and which reader each one took), the
 * benchmarks' chain, damaged copies of tiny_cnn and a chain, tests/data,
 * and every TensorFlow graph of the shared corpus (skipped with a printed
 * reason when it is absent).
 */
#include "../bench/chain.h"
#include "import/import.h"
#include "import/pbutil.h"
#include "tensorflow/graph.pb-c.h"
#include "testgraph.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same_shape(const fl_shape_lit *a, const fl_shape_lit *b, const char *where) {
    if (a->rank != b->rank ||
        (a->rank > 0 && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(int64_t)) != 0)) {
        fail_msg("%s: shapes differ", where);
    }
}

static void same_const(const fl_const *a, const fl_const *b, const char *where) {
    if (a->dtype != b->dtype || a->n != b->n || a->content_bytes != b->content_bytes ||
        a->stripped != b->stripped || !a->src != !b->src) {
        fail_msg("%s: constants differ", where);
    }
    same_shape(&a->shape, &b->shape, where);
    if (!a->value != !b->value) {
        fail_msg("%s: one constant has a value", where);
    }
    if (!a->value) {
        return;
    }
    const fl_value *x = a->value, *y = b->value;
    if (x->n != y->n || !x->ints != !y->ints || !x->raw != !y->raw || x->view != y->view) {
        fail_msg("%s: values differ", where);
    }
    for (int64_t i = 0; x->ints && i < x->n; i++) {
        if (x->ints[i].k != y->ints[i].k || x->ints[i].e || y->ints[i].e) {
            fail_msg("%s: element %lld differs", where, (long long)i);
        }
    }
    if (x->raw && memcmp(x->raw, y->raw, (size_t)x->n * fl__dtype_size(x->dtype)) != 0) {
        fail_msg("%s: value bytes differ", where);
    }
}

/* fl__attr_equal's constant test: fails the test naming the difference. */
static bool same_const_of(const fl_const *a, const fl_const *b, void *where) {
    if (!a || !b) {
        return a == b;
    }
    same_const(a, b, where);
    return true;
}

static void same_attrs(const fl_attr *a, const fl_attr *b, int n, const char *where) {
    for (int k = 0; k < n; k++) {
        const fl_attr *x = &a[k], *y = &b[k];
        char at[512];
        snprintf(at, sizeof at, "%s attr '%s'", where, x->name);
        if (x->kind == FL_ATTR_LIST && x->list_kind != y->list_kind) {
            fail_msg("%s: list kinds differ (%d vs %d)", at, (int)x->list_kind, (int)y->list_kind);
        }
        if (!fl__attr_equal(x, y, same_const_of, at)) {
            fail_msg("%s: differs ('%s', kind %d vs %d)", at, y->name, (int)x->kind, (int)y->kind);
        }
    }
}

static void same_graph(const fl_graph *a, const fl_graph *b) {
    assert_int_equal(a->n_nodes, b->n_nodes);
    assert_int_equal(a->producer, b->producer);
    assert_true(a->src && b->src);
    const Tensorflow__GraphDef *sa = a->src, *sb = b->src;
    assert_int_equal(!sa->library, !sb->library);
    assert_int_equal(!sa->versions, !sb->versions);
    for (size_t i = 0; i < a->n_nodes; i++) {
        const fl_node *x = a->nodes[i], *y = b->nodes[i];
        char where[300];
        snprintf(where, sizeof where, "node %zu '%s'", i, x->name);
        if (strcmp(x->name, y->name) != 0 || strcmp(x->op, y->op) != 0 || x->kind != y->kind ||
            strcmp(x->device, y->device) != 0 || x->flags != y->flags || !x->func != !y->func) {
            fail_msg("%s: name, op, device or flags differ ('%s' %s)", where, y->name, y->op);
        }
        if (x->n_attrs != y->n_attrs || x->n_inputs != y->n_inputs || x->n_ctrl != y->n_ctrl ||
            x->n_outputs != y->n_outputs) {
            fail_msg("%s: counts differ", where);
        }
        same_attrs(x->attrs, y->attrs, x->n_attrs, where);
        for (int k = 0; k < x->n_inputs; k++) {
            if (x->inputs[k].node->id != y->inputs[k].node->id ||
                x->inputs[k].port != y->inputs[k].port) {
                fail_msg("%s: input %d differs", where, k);
            }
        }
        for (int k = 0; k < x->n_ctrl; k++) {
            if (x->ctrl[k]->id != y->ctrl[k]->id) {
                fail_msg("%s: control input %d differs", where, k);
            }
        }
    }
}

typedef struct two {
    fl_arena aw, at;
    fl_graph *w, *t;
    fl_diag dw, dt;
    fl_status sw, st;
} two;

/* Imports buf with fl__import_graphdef and with the tree reader; `tree`:
 * whether the former must have left it to the tree reader (1), read it
 * itself (0), or either (-1). */
static void import_two(two *x, const uint8_t *buf, size_t len, int tree) {
    fl_import_opts io = {1000000000, 1 << 20, NULL};
    fl__arena_init(&x->aw, 0);
    fl__arena_init(&x->at, 0);
    fl__diag_init(&x->dw, &x->aw);
    fl__diag_init(&x->dt, &x->at);
    x->w = fl__graph_new(&x->aw);
    x->t = fl__graph_new(&x->at);
    assert_non_null(x->w);
    assert_non_null(x->t);
    uint64_t before = fl__graphdef_tree_reads();
    x->sw = fl__import_graphdef(x->w, buf, len, &io, &x->dw);
    if (tree >= 0) {
        assert_int_equal(fl__graphdef_tree_reads() - before, tree);
    }
    Tensorflow__GraphDef *gd = fl__pb_unpack(x->t, &tensorflow__graph_def__descriptor, buf, len,
                                             "tensorflow.GraphDef", &x->dt);
    x->st = gd ? fl__import_graphdef_msg(x->t, gd, &io, &x->dt) : x->dt.status;
    assert_int_equal(x->sw, x->st);
    assert_string_equal(x->dw.msg ? x->dw.msg : "", x->dt.msg ? x->dt.msg : "");
    assert_int_equal(x->dw.n_warnings, x->dt.n_warnings);
    for (size_t i = 0; i < x->dw.n_warnings; i++) {
        assert_string_equal(x->dw.warnings[i], x->dt.warnings[i]);
    }
    if (x->sw == FL_OK) {
        same_graph(x->w, x->t);
    }
}

static void two_free(two *x) {
    fl__arena_free(&x->aw);
    fl__arena_free(&x->at);
}

static void test_chain(void **state) {
    (void)state;
    size_t len;
    uint8_t *buf = chain_graphdef(3000, &len);
    two x;
    import_two(&x, buf, len, 0);
    assert_int_equal(x.w->n_nodes, 3000);
    /* n3 = Conv2D(x, w), strides [1,1,1,1] read from a packed run. */
    const fl_node *n3 = fl__graph_find(x.w, "n3");
    assert_non_null(n3);
    assert_string_equal(n3->op, "Conv2D");
    const fl_attr *s = fl__node_attr(n3, "strides");
    assert_non_null(s);
    assert_int_equal(s->list_kind, FL_ATTR_I);
    assert_int_equal(s->n, 4);
    assert_int_equal(s->v.list.i[3], 1);
    assert_string_equal(n3->inputs[1].node->name, "w");
    /* Nodes whose attr entries are the same bytes share one array (n4's
     * BiasAdd and n5's Relu both carry T only). */
    assert_ptr_equal(fl__graph_find(x.w, "n2997")->attrs, n3->attrs);
    assert_ptr_equal(fl__graph_find(x.w, "n4")->attrs, fl__graph_find(x.w, "n5")->attrs);
    assert_ptr_not_equal(fl__graph_find(x.w, "n4")->attrs, n3->attrs);
    two_free(&x);
    free(buf);
    /* Two constants of the same bytes keep an array each (a tensor attr is
     * converted per node). */
    chain_buf g = {0};
    cb_const(&g, "c1", 1, (int64_t[]){4});
    cb_const(&g, "c2", 1, (int64_t[]){4});
    import_two(&x, g.p, g.n, 0);
    assert_int_equal(x.sw, FL_OK);
    assert_ptr_not_equal(x.w->nodes[0]->attrs, x.w->nodes[1]->attrs);
    two_free(&x);
    free(g.p);
}

/* A one-node graph: Placeholder "x" with the given extra NodeDef bytes
 * (already encoded fields) after its name, op and dtype. */
static uint8_t *one_node(const chain_buf *extra, const chain_buf *top_extra, size_t *len) {
    chain_buf g = {0}, node = {0};
    cb_str(&node, 1, "x");
    cb_str(&node, 2, "Placeholder");
    cb_attr_type(&node, "dtype", 1);
    if (extra && extra->n) {
        cb_reserve(&node, extra->n);
        memcpy(node.p + node.n, extra->p, extra->n);
        node.n += extra->n;
    }
    cb_sub(&g, 1, &node);
    free(node.p);
    if (top_extra && top_extra->n) {
        cb_reserve(&g, top_extra->n);
        memcpy(g.p + g.n, top_extra->p, top_extra->n);
        g.n += top_extra->n;
    }
    *len = g.n;
    return g.p;
}

/* Encodings the wire reader reads itself: unpacked list(int), every scalar
 * kind, an empty library, versions, an empty AttrValue, an entry without a
 * value, a device, the debug info it only checks. */
static void test_wire_encodings(void **state) {
    (void)state;
    chain_buf e = {0}, v = {0}, sub = {0}, top = {0};
    for (int i = 1; i <= 3; i++) {
        cb_int(&sub, 3, (uint64_t)(i * 10)); /* list(int), one tag per value */
    }
    cb_sub(&v, 1, &sub);
    cb_attr(&e, "unpacked", &v);
    cb_int(&v, 3, (uint64_t)-5); /* i, negative */
    cb_attr(&e, "i", &v);
    float f = 2.5f;
    cb_varint(&v, 4 << 3 | 5);
    cb_reserve(&v, 4);
    memcpy(v.p + v.n, &f, 4);
    v.n += 4;
    cb_attr(&e, "f", &v);
    cb_int(&v, 5, 7); /* b: any non-zero is true */
    cb_attr(&e, "b", &v);
    cb_str(&v, 2, "bytes");
    cb_attr(&e, "s", &v);
    cb_str(&v, 9, "ph");
    cb_attr(&e, "placeholder", &v);
    cb_attr(&e, "empty", &v); /* an AttrValue with nothing set */
    chain_buf entry = {0};
    cb_str(&entry, 1, "novalue");
    cb_sub(&e, 5, &entry);
    cb_str(&e, 4, "/device:CPU:0");
    cb_str(&sub, 1, "orig");
    cb_sub(&e, 6, &sub);
    cb_int(&sub, 1, 1234);
    cb_sub(&top, 4, &sub);
    cb_bytes(&top, 2, "", 0);
    size_t len;
    uint8_t *buf = one_node(&e, &top, &len);
    two x;
    import_two(&x, buf, len, 0);
    assert_int_equal(x.sw, FL_OK);
    const fl_node *n = x.w->nodes[0];
    assert_string_equal(n->device, "/device:CPU:0");
    const fl_attr *a = fl__node_attr(n, "unpacked");
    assert_int_equal(a->n, 3);
    assert_int_equal(a->v.list.i[2], 30);
    assert_int_equal(fl__node_attr(n, "i")->v.i, -5);
    assert_true(fl__node_attr(n, "f")->v.f == 2.5f);
    assert_true(fl__node_attr(n, "b")->v.b);
    assert_int_equal(fl__node_attr(n, "empty")->kind, FL_ATTR_NONE);
    assert_int_equal(fl__node_attr(n, "novalue")->kind, FL_ATTR_NONE);
    assert_int_equal(x.w->producer, 1234);
    assert_non_null(((const Tensorflow__GraphDef *)x.w->src)->library);
    two_free(&x);
    free(buf);
    free(e.p);
    free(v.p);
    free(sub.p);
    free(top.p);
    free(entry.p);
}

/* A Const "c" whose value is the TensorProto t (emptied), and a
 * Placeholder "p" whose shape attr is the TensorShapeProto sh (emptied). */
static uint8_t *const_and_shape(chain_buf *t, chain_buf *sh, size_t *len) {
    chain_buf g = {0}, node = {0}, v = {0};
    cb_str(&node, 1, "c");
    cb_str(&node, 2, "Const");
    cb_attr_type(&node, "dtype", 1);
    cb_sub(&v, 8, t);
    cb_attr(&node, "value", &v);
    cb_sub(&g, 1, &node);
    cb_str(&node, 1, "p");
    cb_str(&node, 2, "Placeholder");
    cb_attr_type(&node, "dtype", 1);
    cb_sub(&v, 7, sh);
    cb_attr(&node, "shape", &v);
    cb_sub(&g, 1, &node);
    free(node.p);
    free(v.p);
    *len = g.n;
    return g.p;
}

/* TensorProtos and TensorShapeProtos in the encodings TensorFlow writes
 * (read by the wire reader's own pass) and in others (decoded by pbwire):
 * both must give what the tree reader gives. Case by case: the constant's
 * dims, its first float, and the Placeholder's rank (-1: unknown) and dims. */
static void test_tensor_encodings(void **state) {
    (void)state;
    static const float vals[6] = {1, 2, 3, 4, 5, 6}, vals2[6] = {4, 5, 6, 1, 2, 3};
    static const struct {
        int64_t dims[2];
        float first;
        int ph_rank;
        int64_t ph_dims[2];
    } want[] = {
        {{2, 3}, 1, 2, {-1, 4}}, /* dtype, shape, content; a shape with an unknown dim */
        {{2, 3}, 4, -1, {0, 0}}, /* dtype, version and content twice: the last; unknown rank */
        {{2, 3}, 1, 1, {7, 0}},  /* two shapes (merged: dims joined); a dim's size twice */
        {{2, 3}, 1, 1, {7, 0}},  /* a named dim; unknown_rank set, then cleared */
        {{2, 3}, 1, 2, {0, 4}},  /* float_val (packed): pbwire; an empty dim message (size 0) */
    };
    for (int c = 0; c < 5; c++) {
        chain_buf t = {0}, sh = {0}, dim = {0};
        cb_int(&t, 1, c == 1 ? 3 : 1); /* DT_INT32, then DT_FLOAT below */
        if (c == 2) {
            cb_shape(&sh, 1, (int64_t[]){2});
            cb_sub(&t, 2, &sh);
            cb_shape(&sh, 1, (int64_t[]){3});
            cb_sub(&t, 2, &sh);
        } else if (c == 3) {
            cb_int(&dim, 1, 2);
            cb_str(&dim, 2, "rows");
            cb_sub(&sh, 2, &dim);
            cb_shape(&sh, 1, (int64_t[]){3});
            cb_sub(&t, 2, &sh);
        } else {
            cb_shape(&sh, 2, (int64_t[]){2, 3});
            cb_sub(&t, 2, &sh);
        }
        if (c == 1) {
            cb_int(&t, 3, 5);
            cb_bytes(&t, 4, vals, sizeof vals);
            cb_int(&t, 1, 1);
            cb_bytes(&t, 4, vals2, sizeof vals2);
        } else if (c == 4) {
            cb_bytes(&t, 5, vals, sizeof vals);
        } else {
            cb_bytes(&t, 4, vals, sizeof vals);
        }
        switch (c) {
        case 0:
            cb_shape(&sh, 2, (int64_t[]){-1, 4});
            break;
        case 1:
            cb_int(&sh, 3, 1);
            break;
        case 2:
            cb_int(&dim, 1, 9);
            cb_int(&dim, 1, 7);
            cb_sub(&sh, 2, &dim);
            break;
        case 3:
            cb_int(&sh, 3, 1);
            cb_shape(&sh, 1, (int64_t[]){7});
            cb_int(&sh, 3, 0);
            break;
        default:
            cb_sub(&sh, 2, &dim); /* size 0 */
            cb_shape(&sh, 1, (int64_t[]){4});
            break;
        }
        size_t len;
        uint8_t *buf = const_and_shape(&t, &sh, &len);
        two x;
        import_two(&x, buf, len, 0);
        assert_int_equal(x.sw, FL_OK);
        {
            const fl_const *k = fl__node_attr(x.w->nodes[0], "value")->v.tensor;
            assert_int_equal(k->dtype, FL_DT_FLOAT);
            assert_int_equal(k->shape.rank, 2);
            assert_int_equal(k->shape.dims[0], want[c].dims[0]);
            assert_int_equal(k->shape.dims[1], want[c].dims[1]);
            assert_non_null(k->value);
            double first; /* raw is a view into the wire bytes: unaligned */
            assert_true(fl__value_f64(k->value, 0, &first));
            assert_true(first == (double)want[c].first);
            const fl_shape_lit *ps = &fl__node_attr(x.w->nodes[1], "shape")->v.shape;
            assert_int_equal(ps->rank, want[c].ph_rank);
            for (int i = 0; i < ps->rank; i++) {
                assert_int_equal(ps->dims[i], want[c].ph_dims[i]);
            }
        }
        two_free(&x);
        free(buf);
        free(t.p);
        free(sh.p);
        free(dim.p);
    }
}

/* int_val, as TensorFlow writes an int32 constant (axes, shapes): one packed
 * run, read by the wire reader's own pass; two runs, or values written
 * unpacked, decoded by pbwire (the runs joined). Each case as the tree
 * reader reads it, and the values exact (a negative one is a 10-byte
 * varint of which int32 keeps the low 32 bits). */
static void test_int_val_encodings(void **state) {
    (void)state;
    static const int32_t want[4] = {1, -2, INT32_MAX, 300};
    for (int c = 0; c < 3; c++) {
        chain_buf t = {0}, sh = {0}, run = {0};
        cb_int(&t, 1, 3); /* DT_INT32 */
        cb_shape(&sh, 1, (int64_t[]){4});
        cb_sub(&t, 2, &sh);
        for (int i = 0; i < 4; i++) {
            uint64_t v = (uint64_t)(int64_t)want[i];
            if (c == 2) {
                cb_int(&t, 7, v);
                continue;
            }
            cb_varint(&run, v);
            if (c == 1 && i == 1) {
                cb_sub(&t, 7, &run);
            }
        }
        if (c != 2) {
            cb_sub(&t, 7, &run);
        }
        size_t len;
        uint8_t *buf = const_and_shape(&t, &sh, &len);
        two x;
        import_two(&x, buf, len, 0);
        assert_int_equal(x.sw, FL_OK);
        const fl_const *k = fl__node_attr(x.w->nodes[0], "value")->v.tensor;
        assert_int_equal(k->dtype, FL_DT_INT32);
        assert_int_equal(k->shape.rank, 1);
        assert_int_equal(k->shape.dims[0], 4);
        assert_non_null(k->value);
        assert_int_equal(k->value->n, 4);
        assert_non_null(k->value->ints);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(k->value->ints[i].k, want[i]);
            assert_null(k->value->ints[i].e);
        }
        two_free(&x);
        free(buf);
        free(t.p);
        free(sh.p);
        free(run.p);
    }
}

/* Encodings left to the tree reader, each read as it reads them: a second
 * name (the last wins), an AttrValue with two members (the last replaces),
 * an unknown NodeDef field, a reserved attr (dropped with a warning), a
 * function library, a second versions. */
static void test_left_to_tree(void **state) {
    (void)state;
    for (int c = 0; c < 6; c++) {
        chain_buf e = {0}, v = {0}, top = {0}, sub = {0};
        switch (c) {
        case 0:
            cb_str(&e, 1, "y");
            break;
        case 1:
            cb_int(&v, 3, 4);
            cb_int(&v, 6, 3);
            cb_attr(&e, "two", &v);
            break;
        case 2:
            cb_int(&e, 9, 1);
            break;
        case 3:
            cb_int(&v, 3, 4);
            cb_attr(&e, "_trip_form", &v);
            break;
        case 4: {
            chain_buf fd = {0};
            cb_str(&v, 1, "f");   /* OpDef.name */
            cb_sub(&fd, 1, &v);   /* FunctionDef.signature */
            cb_sub(&sub, 1, &fd); /* FunctionDefLibrary.function */
            cb_sub(&top, 2, &sub);
            free(fd.p);
            break;
        }
        default:
            cb_int(&sub, 1, 5);
            cb_sub(&top, 4, &sub);
            cb_int(&sub, 2, 3);
            cb_sub(&top, 4, &sub);
            break;
        }
        size_t len;
        uint8_t *buf = one_node(&e, &top, &len);
        two x;
        import_two(&x, buf, len, 1);
        if (c == 0) {
            assert_string_equal(x.w->nodes[0]->name, "y");
        } else if (c == 1) {
            assert_int_equal(fl__node_attr(x.w->nodes[0], "two")->kind, FL_ATTR_TYPE);
        } else if (c == 3) {
            assert_int_equal(x.dw.n_warnings, 1);
            assert_null(fl__node_attr(x.w->nodes[0], "_trip_form"));
        } else if (c == 5) {
            /* protobuf-c's merge (pbwire.h): a proto3 scalar is the last
             * occurrence's, which has no producer. */
            assert_int_equal(x.w->producer, 0);
        }
        two_free(&x);
        free(buf);
        free(e.p);
        free(v.p);
        free(top.p);
        free(sub.p);
    }
}

/* A NUL inside a node's name, op or input: left to the tree reader (which
 * reads them as it does); a 0 byte among the fields before the last input
 * that is no name's (an attr's 0 value written before the input) is not one:
 * the wire reader reads that node itself. */
static void test_nul_in_names(void **state) {
    (void)state;
    static const char name[] = "b\0c", op[] = "Iden\0tity", in[] = "a\0";
    for (int c = 0; c < 4; c++) {
        chain_buf g = {0}, node = {0}, v = {0};
        cb_str(&node, 1, "a");
        cb_str(&node, 2, "Placeholder");
        cb_attr_type(&node, "dtype", 1);
        cb_sub(&g, 1, &node);
        if (c == 0) {
            cb_bytes(&node, 1, name, sizeof name - 1);
        } else {
            cb_str(&node, 1, "b");
        }
        if (c == 1) {
            cb_bytes(&node, 2, op, sizeof op - 1);
        } else {
            cb_str(&node, 2, "Identity");
        }
        if (c == 3) {
            cb_int(&v, 3, 0);
            cb_attr(&node, "zero", &v);
        }
        if (c == 2) {
            cb_bytes(&node, 3, in, sizeof in - 1);
        } else {
            cb_str(&node, 3, "a");
        }
        cb_attr_type(&node, "T", 1);
        cb_sub(&g, 1, &node);
        two x;
        import_two(&x, g.p, g.n, c < 3);
        if (c == 3) {
            assert_int_equal(x.sw, FL_OK);
            assert_int_equal(x.w->n_nodes, 2);
            assert_int_equal(x.w->nodes[1]->n_inputs, 1);
            assert_int_equal(fl__node_attr(x.w->nodes[1], "zero")->v.i, 0);
        }
        two_free(&x);
        free(g.p);
        free(node.p);
        free(v.p);
    }
}

/* Malformed GraphDefs: the tree reader's messages, whichever reader met the
 * fault first (an input that names no node, a cut attr, a bad dtype, a
 * node without a name, a cut NodeDef). */
static void test_malformed_same_message(void **state) {
    (void)state;
    for (int c = 0; c < 5; c++) {
        chain_buf e = {0}, v = {0};
        size_t len;
        uint8_t *buf;
        if (c == 0) {
            cb_str(&e, 3, "nope");
        } else if (c == 1) {
            cb_bytes(&v, 8, "\x0a\xff", 2);
            cb_attr(&e, "value", &v);
        } else if (c == 2) {
            cb_int(&v, 6, 999);
            cb_attr(&e, "T", &v);
        }
        buf = one_node(&e, NULL, &len);
        if (c == 3) {
            buf[2] = 0x12; /* the name's tag becomes op's: two ops, no name */
        } else if (c == 4) {
            buf[1] = (uint8_t)(buf[1] + 1); /* the node runs past the end */
        }
        two x;
        import_two(&x, buf, len, 1);
        assert_int_equal(x.sw, FL_EINVAL);
        two_free(&x);
        free(buf);
        free(e.p);
        free(v.p);
    }
}

/* Damaged copies of a graph (bytes flipped, set, cut short; a
 * deterministic sequence): whatever each one is, both readers give the same
 * status, message, warnings and, when accepted, the same IR. */
static void check_mutations(const uint8_t *orig, size_t len, int count, uint64_t seed) {
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    uint64_t x = seed;
    int ok = 0;
    for (int i = 0; i < count; i++) {
        memcpy(buf, orig, len);
        size_t n = len;
        int edits = 1 + (int)(x % 4);
        for (int e = 0; e < edits; e++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(x >> 33) % len;
            switch ((x >> 20) % 4) {
            case 0:
                buf[at] ^= (uint8_t)(1u << ((x >> 8) % 8));
                break;
            case 1:
                buf[at] = (uint8_t)(x >> 12);
                break;
            case 2:
                buf[at] = (uint8_t)((x >> 12) % 2 ? 0x80 : 0x00);
                break;
            default:
                n = at < n ? at : n;
                break;
            }
        }
        two t;
        import_two(&t, buf, n, -1);
        ok += t.sw == FL_OK;
        two_free(&t);
    }
    printf("%d damaged copies read alike, %d of them accepted\n", count, ok);
    free(buf);
}

static void test_damaged(void **state) {
    (void)state;
    size_t len;
    unsigned char *tiny = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &len);
    assert_non_null(tiny);
    check_mutations(tiny, len, 3000, 1);
    free(tiny);
    uint8_t *chain = chain_graphdef(40, &len);
    check_mutations(chain, len, 3000, 2);
    free(chain);
}

/* Every GraphDef in dir: the same IR from both readers; *wire counts those
 * the wire reader read itself. */
static int check_dir(const char *dir, int *wire) {
    DIR *dp = opendir(dir);
    if (!dp) {
        return -1;
    }
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".pb") != 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t len;
        unsigned char *buf = fl_test_read_file(path, &len);
        assert_non_null(buf);
        /* SavedModels (saved_model*.pb) are not GraphDefs. */
        if (!fl__import_sniff_savedmodel(buf, len)) {
            two x;
            uint64_t before = fl__graphdef_tree_reads();
            import_two(&x, buf, len, -1);
            *wire += fl__graphdef_tree_reads() == before;
            two_free(&x);
            n++;
        }
        free(buf);
    }
    closedir(dp);
    return n;
}

static void test_data_dir(void **state) {
    (void)state;
    int wire = 0;
    assert_true(check_dir(FL_TEST_DATA_DIR, &wire) > 0);
    assert_true(wire > 0);
}

static int corpus_missing;

static void test_corpus(void **state) {
    (void)state;
    int wire = 0;
    int a = check_dir(FL_CORPUS_DIR "/tf", &wire),
        b = check_dir(FL_CORPUS_DIR "/tf-unfused", &wire);
    if (a < 0 || b < 0) {
        printf("SKIP: corpus not found at %s\n", FL_CORPUS_DIR);
        corpus_missing = 1;
        return;
    }
    printf("%d + %d corpus GraphDefs read alike, %d of them by the wire reader\n", a, b, wire);
    assert_true(a > 0 && b > 0 && wire > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_wire_encodings),
        cmocka_unit_test(test_left_to_tree),
        cmocka_unit_test(test_nul_in_names),
        cmocka_unit_test(test_tensor_encodings),
        cmocka_unit_test(test_int_val_encodings),
        cmocka_unit_test(test_malformed_same_message),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_data_dir),
        cmocka_unit_test(test_corpus),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc ? rc : corpus_missing ? 77 : 0;
}
