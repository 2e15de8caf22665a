/*
 * one_hot.c - OneHot, SparseToDense (array family).
 *
 * Shapes: TensorFlow's shape functions; SparseToDense reads output_shape as a
 * partial shape vector (shape_vector.c). eval: SparseToDense for any dtype;
 * OneHot is not evaluated.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they write
 * elements without arithmetic on them (OneHot's index arithmetic is counted
 * as 0, as Grappler does). tfprof registers neither (0, tfprof_rule false).
 * No MACs.
 */
#include "ops/array/array.h"

static fl_status infer_one_hot(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    int64_t axis;
    fl_status st = fl__op_attr_dtype(c, n, "T", 2, &dt);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "depth");
    }
    if (st != FL_OK) {
        return st;
    }
    if (axis < -1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axis' must be >= -1, got %lld",
                             (long long)axis);
    }
    fl_sym depth;
    if (!fl__array_scalar_sym(n, 1, &depth)) {
        depth = fl_sym_unknown();
    } else if (fl_sym_is_known(depth) && depth.k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'depth' must be non-negative, got %lld",
                             (long long)depth.k);
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int64_t pos = axis == -1 ? r : axis;
    if (pos > r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'axis' is %lld, out of range for indices of rank %d",
                             (long long)axis, r);
    }
    fl_sym *out = fl__array_alloc_syms(c, r + 1);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0, j = 0; i <= r; i++) {
        out[i] = i == pos ? depth : s->dims[j++];
    }
    return fl__op_set_output(c, n, 0, dt, r + 1, out);
}

static fl_status infer_sparse_to_dense(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 2, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "output_shape");
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 3, "default_value");
    }
    if (st != FL_OK) {
        return st;
    }
    if (fl__op_in_shape(n, 0)->rank > 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'sparse_indices' must have rank <= 2, got %d",
                             fl__op_in_shape(n, 0)->rank);
    }
    fl_sym *e;
    int64_t k;
    st = fl__array_shape_input(c, n, 1, "output_shape", &e, &k);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status eval_sparse_to_dense(fl_ctx *c, fl_node *n) {
    const fl_value *idx = fl__array_int_value(n, 0), *vals = fl_op_in_value(n, 2);
    const fl_value *dflt = fl_op_in_value(n, 3);
    if (!idx || idx->rank > 2 || !fl__array_usable(vals) || !fl__array_usable(dflt) ||
        dflt->n != 1) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, dflt, &st);
    if (!v) {
        return st;
    }
    if (fl_dtype_base(vals->dtype) != fl_dtype_base(v->dtype)) {
        return FL_OK;
    }
    /* rank 0: one index; rank 1: [N] indices into a vector; rank 2: [N, R] */
    int64_t N = idx->rank == 0 ? 1 : idx->dims[0];
    int64_t R = idx->rank == 2 ? idx->dims[1] : 1;
    if (R != v->rank || (vals->n != 1 && vals->n != N)) {
        return FL_OK;
    }
    int64_t *os = fl__array_row_strides(c, v->rank, v->dims);
    if (!os) {
        return fl__diag_oom(c->d);
    }
    for (int64_t j = 0; j < v->n; j++) {
        fl__array_copy_elems(v, j, dflt, 0, 1);
    }
    for (int64_t i = 0; i < N; i++) {
        int64_t off = 0;
        for (int64_t j = 0; j < R; j++) {
            fl_sym x = idx->ints[i * R + j];
            if (!fl_sym_is_known(x) || x.k < 0 || x.k >= v->dims[j]) {
                return FL_OK;
            }
            off += x.k * os[j];
        }
        fl__array_copy_elems(v, off, vals, vals->n == 1 ? 0 : i, 1);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: array/one_hot.def). */
#define HOOKS_one_hot .infer = infer_one_hot, .cost = fl__op_cost_zero
#define HOOKS_sparse_to_dense                                                                      \
    .infer = infer_sparse_to_dense, .eval = eval_sparse_to_dense, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/one_hot.def"
#undef FL_OP
