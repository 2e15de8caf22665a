/*
 * irbuild.c - see irbuild.h.
 */
#include "irbuild.h"

#include <stdio.h>
#include <string.h>

fl_arena arena;
fl_diag diag;
fl_graph *G;
fl_ctx ctx;
static int counter;

int ib_setup(void) {
    fl__arena_init(&arena, 0);
    fl__diag_init(&diag, &arena);
    G = fl__graph_new(&arena);
    if (!G) {
        return -1;
    }
    G->producer = 1000;
    memset(&ctx, 0, sizeof ctx);
    ctx.g = G;
    ctx.st = G->syms;
    ctx.a = &arena;
    ctx.d = &diag;
    ctx.max_value_elems = 1 << 20;
    counter = 0;
    return 0;
}

void ib_teardown(void) {
    fl__arena_free(&arena);
    G = NULL;
}

const char *ib_name(const char *prefix) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s_%d", prefix, counter++);
    const char *s = fl__arena_strdup(&arena, buf);
    assert_non_null(s);
    return s;
}

static fl_sym *sym_copy(int rank, const fl_sym *dims) {
    fl_sym *d = fl__arena_calloc(&arena, (size_t)(rank > 0 ? rank : 0) + 1, sizeof(fl_sym));
    assert_non_null(d);
    for (int i = 0; i < rank; i++) {
        d[i] = dims[i];
    }
    return d;
}

fl_node *ph_dims(int dt, int rank, const fl_sym *dims) {
    fl_node *n = fl__op_add_node(G, ib_name("ph"), "Placeholder", &diag);
    assert_non_null(n);
    assert_int_equal(fl__node_alloc_outputs(G, n, 1), FL_OK);
    n->outputs[0].dtype = (fl_dtype)dt;
    n->outputs[0].shape.rank = rank;
    n->outputs[0].shape.dims = rank >= 0 ? sym_copy(rank, dims) : NULL;
    return n;
}

fl_node *mk_const(int dt, int rank, const int64_t *dims, const fl_sym *ivals, const double *fvals) {
    fl_node *n = fl__op_add_node(G, ib_name("const"), "Const", &diag);
    assert_non_null(n);
    assert_int_equal(fl__node_alloc_outputs(G, n, 1), FL_OK);
    fl_sym *d = fl__arena_calloc(&arena, (size_t)rank + 1, sizeof(fl_sym));
    assert_non_null(d);
    for (int i = 0; i < rank; i++) {
        d[i] = K(dims[i]);
    }
    n->outputs[0].dtype = (fl_dtype)dt;
    n->outputs[0].shape.rank = rank;
    n->outputs[0].shape.dims = d;
    fl_value *v = fl__value_new(&arena, (fl_dtype)dt, rank, dims);
    assert_non_null(v);
    for (int64_t i = 0; i < v->n; i++) {
        if (v->ints) {
            ((fl_sym *)v->ints)[i] = ivals[i];
        } else {
            fl__value_set_f64(v, i, fvals[i]);
        }
    }
    n->outputs[0].value = v;
    return n;
}

fl_node *mk_op(const char *op, int n_in, fl_node *const *in) {
    fl_node *n = fl__op_add_node(G, ib_name(op), op, &diag);
    assert_non_null(n);
    assert_non_null(n->desc);
    n->n_inputs = n_in;
    n->inputs = fl__arena_calloc(&arena, (size_t)n_in + 1, sizeof(fl_input));
    assert_non_null(n->inputs);
    for (int i = 0; i < n_in; i++) {
        n->inputs[i].node = in[i];
        n->inputs[i].port = 0;
    }
    assert_true(n->desc->n_outputs >= 1);
    assert_int_equal(fl__node_alloc_outputs(G, n, n->desc->n_outputs), FL_OK);
    return n;
}

static fl_attr *new_attr(fl_node *n, const char *name, fl_attr_kind kind) {
    fl_attr *a = fl__arena_grow(&arena, n->attrs, (size_t)n->n_attrs, (size_t)n->n_attrs + 1,
                                sizeof(fl_attr));
    assert_non_null(a);
    n->attrs = a;
    fl_attr *r = &a[n->n_attrs++];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->kind = kind;
    return r;
}

void attr_i(fl_node *n, const char *name, int64_t v) {
    new_attr(n, name, FL_ATTR_I)->v.i = v;
}

void attr_b(fl_node *n, const char *name, bool v) {
    new_attr(n, name, FL_ATTR_B)->v.b = v;
}

void attr_f(fl_node *n, const char *name, float v) {
    new_attr(n, name, FL_ATTR_F)->v.f = v;
}

void attr_type(fl_node *n, const char *name, int v) {
    new_attr(n, name, FL_ATTR_TYPE)->v.type = v;
}

void attr_s(fl_node *n, const char *name, const char *v) {
    fl_attr *a = new_attr(n, name, FL_ATTR_S);
    a->v.s.p = v;
    a->v.s.len = strlen(v);
}

void attr_ints(fl_node *n, const char *name, int cnt, const int64_t *v) {
    fl_attr *a = new_attr(n, name, FL_ATTR_LIST);
    int64_t *c = fl__arena_calloc(&arena, (size_t)cnt + 1, sizeof(int64_t));
    assert_non_null(c);
    for (int i = 0; i < cnt; i++) {
        c[i] = v[i];
    }
    a->list_kind = cnt ? FL_ATTR_I : FL_ATTR_NONE;
    a->n = (size_t)cnt;
    a->v.list.i = c;
}

void attr_strs(fl_node *n, const char *name, int cnt, const char *const *v) {
    fl_attr *a = new_attr(n, name, FL_ATTR_LIST);
    fl_str *c = fl__arena_calloc(&arena, (size_t)cnt + 1, sizeof(fl_str));
    assert_non_null(c);
    for (int i = 0; i < cnt; i++) {
        c[i].p = v[i];
        c[i].len = strlen(v[i]);
    }
    a->list_kind = cnt ? FL_ATTR_S : FL_ATTR_NONE;
    a->n = (size_t)cnt;
    a->v.list.s = c;
}

void attr_shape(fl_node *n, const char *name, int rank, const int64_t *dims) {
    fl_attr *a = new_attr(n, name, FL_ATTR_SHAPE);
    a->v.shape.rank = rank;
    int64_t *c = NULL;
    if (rank > 0) {
        c = fl__arena_calloc(&arena, (size_t)rank, sizeof(int64_t));
        assert_non_null(c);
        memcpy(c, dims, (size_t)rank * sizeof(int64_t));
    }
    a->v.shape.dims = c;
}

void add_ctrl(fl_node *n, fl_node *c) {
    fl_node **a = fl__arena_grow(&arena, n->ctrl, (size_t)n->n_ctrl, (size_t)n->n_ctrl + 1,
                                 sizeof(fl_node *));
    assert_non_null(a);
    n->ctrl = a;
    a[n->n_ctrl++] = c;
}

void infer_fails(fl_node *n, const char *what) {
    infer_fails_st(n, FL_EINVAL, what);
}

void infer_fails_st(fl_node *n, fl_status want, const char *what) {
    fl__diag_init(&diag, &arena);
    fl_status st = n->desc->infer(&ctx, n);
    assert_int_equal(st, want);
    assert_non_null(diag.msg);
    if (!strstr(diag.msg, what)) {
        fail_msg("message '%s' does not mention '%s'", diag.msg, what);
    }
}

const char *sym_str(fl_sym s) {
    return fl__sym_to_str(&arena, s);
}
