/*
 * attr_equal.c - whether two attrs are the same: one definition for CSE
 * (two nodes with equal attrs compute the same values) and for the GraphDef
 * reader test (both readers built the same IR). They differ only in what
 * makes two constants equal, which each passes in.
 */
#include "graph/graph.h"

#include <string.h>

static bool str_eq(fl_str a, fl_str b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

static bool shape_lit_eq(const fl_shape_lit *a, const fl_shape_lit *b) {
    return a->rank == b->rank &&
           (a->rank <= 0 || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]) == 0);
}

static bool float_eq(float a, float b) {
    return memcmp(&a, &b, sizeof a) == 0; /* bit for bit: NaN equals itself, -0 is not 0 */
}

static bool func_eq(const fl_func_ref *a, const fl_func_ref *b, fl_const_eq_fn const_eq,
                    void *arg) {
    if (strcmp(a->name, b->name) != 0 || a->n_attrs != b->n_attrs) {
        return false;
    }
    for (int i = 0; i < a->n_attrs; i++) {
        if (!fl__attr_equal(&a->attrs[i], &b->attrs[i], const_eq, arg)) {
            return false;
        }
    }
    return true;
}

static bool list_elem_eq(const fl_attr *a, const fl_attr *b, size_t i, fl_const_eq_fn const_eq,
                         void *arg) {
    switch (a->list_kind) {
    case FL_ATTR_S:
        return str_eq(a->v.list.s[i], b->v.list.s[i]);
    case FL_ATTR_I:
        return a->v.list.i[i] == b->v.list.i[i];
    case FL_ATTR_F:
        return float_eq(a->v.list.f[i], b->v.list.f[i]);
    case FL_ATTR_B:
        return a->v.list.b[i] == b->v.list.b[i];
    case FL_ATTR_TYPE:
        return a->v.list.type[i] == b->v.list.type[i];
    case FL_ATTR_SHAPE:
        return shape_lit_eq(&a->v.list.shape[i], &b->v.list.shape[i]);
    case FL_ATTR_TENSOR:
        return const_eq(a->v.list.tensor[i], b->v.list.tensor[i], arg);
    case FL_ATTR_FUNC:
        return func_eq(&a->v.list.func[i], &b->v.list.func[i], const_eq, arg);
    default:
        return false;
    }
}

bool fl__attr_equal(const fl_attr *a, const fl_attr *b, fl_const_eq_fn const_eq, void *arg) {
    if (strcmp(a->name, b->name) != 0 || a->kind != b->kind) {
        return false;
    }
    switch (a->kind) {
    case FL_ATTR_S:
        return str_eq(a->v.s, b->v.s);
    case FL_ATTR_I:
        return a->v.i == b->v.i;
    case FL_ATTR_F:
        return float_eq(a->v.f, b->v.f);
    case FL_ATTR_B:
        return a->v.b == b->v.b;
    case FL_ATTR_TYPE:
        return a->v.type == b->v.type;
    case FL_ATTR_SHAPE:
        return shape_lit_eq(&a->v.shape, &b->v.shape);
    case FL_ATTR_TENSOR:
        return const_eq(a->v.tensor, b->v.tensor, arg);
    case FL_ATTR_FUNC:
        return func_eq(&a->v.func, &b->v.func, const_eq, arg);
    case FL_ATTR_PLACEHOLDER:
        return strcmp(a->v.placeholder, b->v.placeholder) == 0;
    case FL_ATTR_LIST:
        if (a->n != b->n || (a->n && a->list_kind != b->list_kind)) {
            return false;
        }
        for (size_t i = 0; i < a->n; i++) {
            if (!list_elem_eq(a, b, i, const_eq, arg)) {
                return false;
            }
        }
        return true;
    default:
        return true; /* no value (FL_ATTR_NONE) */
    }
}
