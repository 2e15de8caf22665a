/*
 * slice.c - Slice, StridedSlice (array family).
 *
 * Shapes: TensorFlow's shape functions; StridedSlice implements the full
 * sparse-to-dense spec (slice_spec.c), with exact symbolic lengths. eval:
 * for any dtype.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status infer_slice(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "begin");
    }
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 2, "size");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *bv = fl__array_vec_value(n, 1), *zv = fl__array_vec_value(n, 2);
    int64_t r = s->rank;
    if (r < 0) {
        r = bv                             ? bv->n
            : zv                           ? zv->n
            : fl__array_vec_len(n, 1) >= 0 ? fl__array_vec_len(n, 1)
                                           : fl__array_vec_len(n, 2);
    }
    if (r < 0 || r > MAX_RANK) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (bv && bv->n != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'begin' has %lld entries but the input has rank %lld",
                             (long long)bv->n, (long long)r);
    }
    if (zv && zv->n != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'size' has %lld entries but the input has rank %lld",
                             (long long)zv->n, (long long)r);
    }
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        fl_sym D = s->rank >= 0 ? s->dims[i] : fl_sym_unknown();
        fl_sym b = bv ? bv->ints[i] : fl_sym_unknown();
        fl_sym z = zv ? zv->ints[i] : fl_sym_unknown();
        if (fl_sym_is_known(b) && b.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'begin' entry %d is negative (%lld)", i,
                                 (long long)b.k);
        }
        if (fl_sym_is_known(z) && z.k < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'size' entry %d is %lld; it must be >= -1", i,
                                 (long long)z.k);
        }
        if (fl__array_is_known(z, -1)) {
            if (fl_sym_is_unknown(b)) {
                continue;
            }
            if ((st = fl__op_sub(c, n, D, b, &out[i])) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(out[i]) && out[i].k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'begin' entry %d (%lld) exceeds the dimension's size "
                                     "%lld",
                                     i, (long long)b.k, (long long)D.k);
            }
        } else {
            out[i] = z;
            if (fl_sym_is_known(z) && fl_sym_is_known(b) && fl_sym_is_known(D) && b.k > D.k - z.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "slice [%lld, %lld + %lld) of dimension %d exceeds its size "
                                     "%lld",
                                     (long long)b.k, (long long)b.k, (long long)z.k, i,
                                     (long long)D.k);
            }
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status eval_slice(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    const fl_sym *b, *z;
    int64_t kb, kz;
    if (!fl__array_known_vec(n, 1, &b, &kb) || !fl__array_known_vec(n, 2, &z, &kz) ||
        kb != src->rank || kz != src->rank) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t *is = fl__array_row_strides(c, src->rank, src->dims);
    int64_t **maps = fl__array_alloc_maps(c, v->rank, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    if (v->rank != src->rank) {
        return FL_OK;
    }
    for (int i = 0; i < v->rank; i++) {
        if (b[i].k < 0 || b[i].k > src->dims[i] - v->dims[i]) {
            return FL_OK;
        }
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = b[i].k + o;
        }
    }
    return fl__array_finish(n, 0, v,
                            fl__array_fill_mapped(c, v, src, v->rank, v->dims, maps, is, NULL));
}

static fl_status infer_strided_slice(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    ss_masks m;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_ss_read_masks(c, n, &m);
    }
    for (int i = 1; i <= 3 && st == FL_OK; i++) {
        static const char *const names[4] = {"", "begin", "end", "strides"};
        st = fl__array_want_vector(c, n, i, names[i]);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_sym *sv;
    int64_t k;
    if (s->rank < 0 || !fl__array_known_vec(n, 3, &sv, &k)) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    const fl_value *bv = fl__array_vec_value(n, 1), *ev = fl__array_vec_value(n, 2);
    if ((bv && bv->n != k) || (ev && ev->n != k)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "inputs 'begin', 'end' and 'strides' must have the same length, got "
                             "%lld, %lld and %lld",
                             (long long)(bv ? bv->n : -1), (long long)(ev ? ev->n : -1),
                             (long long)k);
    }
    ss_plan pl;
    st = fl__array_ss_build(c, n, s->rank, k, bv ? bv->ints : NULL, ev ? ev->ints : NULL, sv, &m,
                            &pl);
    if (st != FL_OK) {
        return st;
    }
    fl_sym *size = fl__array_alloc_syms(c, s->rank), *out = fl__array_alloc_syms(c, pl.n_final);
    if (!size || !out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < s->rank; i++) {
        if ((st = fl__array_ss_dim_size(c, n, i, &pl.dim[i], s->dims[i], &size[i])) != FL_OK) {
            return st;
        }
    }
    for (int j = 0; j < pl.n_final; j++) {
        out[j] = pl.final[j] < 0 ? fl_sym_const(1) : size[pl.final[j]];
    }
    return fl__op_set_output(c, n, 0, dt, pl.n_final, out);
}

static fl_status eval_strided_slice(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    const fl_sym *b, *e, *s;
    int64_t kb, ke, ks;
    ss_masks m;
    if (!fl__array_usable(src) || !fl__array_known_vec(n, 1, &b, &kb) ||
        !fl__array_known_vec(n, 2, &e, &ke) || !fl__array_known_vec(n, 3, &s, &ks) || kb != ks ||
        ke != ks) {
        return FL_OK;
    }
    ss_plan pl;
    fl_status st = fl__array_ss_read_masks(c, n, &m);
    if (st == FL_OK) {
        st = fl__array_ss_build(c, n, src->rank, ks, b, e, s, &m, &pl);
    }
    if (st != FL_OK) {
        return st;
    }
    int r = src->rank;
    int64_t *dims = fl__array_alloc_n(c, r, sizeof(int64_t)),
            *starts = fl__array_alloc_n(c, r, sizeof(int64_t));
    int64_t *is = fl__array_row_strides(c, r, src->dims);
    if (!dims || !starts || !is) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        bool ok;
        st = fl__array_ss_known(c, n, i, &pl.dim[i], src->dims[i], &starts[i], &dims[i], &ok);
        if (st != FL_OK) {
            return st;
        }
        if (!ok) {
            return FL_OK;
        }
    }
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t **maps = fl__array_alloc_maps(c, r, dims);
    if (!maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < dims[i]; o++) {
            maps[i][o] = starts[i] + o * pl.dim[i].s;
        }
    }
    return fl__array_finish(n, 0, v, fl__array_fill_mapped(c, v, src, r, dims, maps, is, NULL));
}

/* Hook sets and descriptors (their rows: array/slice.def). */
#define HOOKS_slice .infer = infer_slice, .eval = eval_slice, .cost = fl__op_cost_zero
#define HOOKS_strided_slice                                                                        \
    .infer = infer_strided_slice, .eval = eval_strided_slice, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/slice.def"
#undef FL_OP
