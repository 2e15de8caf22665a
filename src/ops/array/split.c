/*
 * split.c - Split, SplitV (array family).
 *
 * Shapes: TensorFlow's shape functions; Split divides the axis exactly
 * (symbolic dims when the division is exact), SplitV resolves one -1 entry of
 * size_splits. eval: for any dtype, from the outputs' inferred sizes.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static int count_split(const fl_node *n, fl_diag *d) {
    return fl__array_count_attr(n, d, "num_split", 1);
}

/* Normalises split axis a for rank r; fails when out of range. */
static fl_status split_axis(fl_ctx *c, const fl_node *n, int64_t *a, int r) {
    if (r == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "cannot split a scalar");
    }
    if (*a < -r || *a >= r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'split_dim' is %lld, out of range for rank %d", (long long)*a,
                             r);
    }
    if (*a < 0) {
        *a += r;
    }
    return FL_OK;
}

static fl_status infer_split(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 1, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 0, "split_dim");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 1);
    int64_t a;
    if (s->rank < 0 || !fl__array_known_scalar(n, 0, &a)) {
        return fl__array_set_all_rank(c, n, dt, s->rank);
    }
    if ((st = split_axis(c, n, &a, s->rank)) != FL_OK) {
        return st;
    }
    int64_t num = n->n_outputs;
    fl_sym D = s->dims[a], q = fl_sym_unknown();
    if (fl_sym_is_known(D)) {
        if (num == 0 || D.k % num != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "dimension %lld of size %lld is not divisible by attr "
                                 "'num_split' %lld",
                                 (long long)a, (long long)D.k, (long long)num);
        }
        q = fl_sym_const(D.k / num);
    } else {
        bool exact;
        if ((st = fl__array_s_div(c, n, D, fl_sym_const(num), &q, &exact)) != FL_OK) {
            return st;
        }
    }
    fl_sym *out = fl__array_alloc_syms(c, s->rank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < s->rank; i++) {
        out[i] = i == a ? q : s->dims[i];
    }
    for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, dt, s->rank, out);
    }
    return st;
}

/* Evaluates a split of `src` along `a` into the outputs, whose sizes along
 * the axis come from their (concrete) inferred shapes. */
static fl_status split_eval(fl_ctx *c, fl_node *n, const fl_value *src, int64_t a) {
    int r = src->rank;
    if (!fl__array_usable(src) || a < 0 || a >= r) {
        return FL_OK;
    }
    int64_t outer = fl__array_prod(src->dims, 0, (int)a),
            inner = fl__array_prod(src->dims, (int)a + 1, r);
    int64_t A = src->dims[a], off = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        const fl_shape *os = &n->outputs[k].shape;
        if (os->rank != r || !fl_sym_is_known(os->dims[a])) {
            return FL_OK;
        }
        off += os->dims[a].k;
    }
    if (off != A) {
        return FL_OK;
    }
    off = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st;
        fl_value *v = fl__array_out_value(c, n, k, src, &st);
        if (!v) {
            return st;
        }
        int64_t sz = v->dims[a];
        if (v->n != outer * sz * inner) {
            return FL_OK;
        }
        for (int64_t o = 0; o < outer; o++) {
            fl__array_copy_elems(v, o * sz * inner, src, (o * A + off) * inner, sz * inner);
        }
        off += sz;
        fl__op_set_value(n, k, v);
    }
    return FL_OK;
}

static fl_status eval_split(fl_ctx *c, fl_node *n) {
    int64_t a;
    const fl_value *src = fl_op_in_value(n, 1);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    if (!fl__array_known_scalar(n, 0, &a)) {
        return FL_OK;
    }
    if (a < 0) {
        a += src->rank;
    }
    return split_eval(c, n, src, a);
}

static fl_status infer_split_v(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 2, "split_dim");
    }
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "size_splits");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int64_t num = n->n_outputs;
    const fl_value *sv = fl__array_int_value(n, 1);
    if (sv && (sv->rank > 1 || sv->n != num)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'size_splits' has %lld entries but attr 'num_split' is %lld",
                             (long long)sv->n, (long long)num);
    }
    int64_t a;
    if (s->rank < 0 || !fl__array_known_scalar(n, 2, &a)) {
        return fl__array_set_all_rank(c, n, dt, s->rank);
    }
    if ((st = split_axis(c, n, &a, s->rank)) != FL_OK) {
        return st;
    }
    fl_sym *sizes = fl__array_alloc_syms(c, num);
    fl_sym *out = fl__array_alloc_syms(c, s->rank);
    if (!sizes || !out) {
        return fl__diag_oom(c->d);
    }
    fl_sym D = s->dims[a];
    if (sv) {
        int64_t neg = -1;
        fl_sym sum = fl_sym_const(0);
        for (int64_t k = 0; k < num && st == FL_OK; k++) {
            sizes[k] = sv->ints[k];
            if (fl_sym_is_known(sizes[k]) && sizes[k].k == -1) {
                if (neg >= 0) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "input 'size_splits' can have at most one -1, found at "
                                         "%lld and %lld",
                                         (long long)neg, (long long)k);
                }
                neg = k;
                continue;
            }
            if (fl_sym_is_known(sizes[k]) && sizes[k].k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'size_splits' has a negative entry %lld",
                                     (long long)sizes[k].k);
            }
            st = fl__op_add(c, n, sum, sizes[k], &sum);
        }
        if (st != FL_OK) {
            return st;
        }
        if (neg >= 0) {
            fl_sym rest;
            if ((st = fl__op_sub(c, n, D, sum, &rest)) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(rest) && rest.k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'size_splits' sums to %lld, more than dimension %lld "
                                     "of size %lld",
                                     (long long)sum.k, (long long)a, (long long)D.k);
            }
            sizes[neg] = rest;
        } else if (fl_sym_is_known(sum) && fl_sym_is_known(D) && sum.k != D.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'size_splits' sums to %lld but dimension %lld has size "
                                 "%lld",
                                 (long long)sum.k, (long long)a, (long long)D.k);
        }
    }
    for (int64_t k = 0; k < num && st == FL_OK; k++) {
        for (int i = 0; i < s->rank; i++) {
            out[i] = i == a ? sizes[k] : s->dims[i];
        }
        st = fl__op_set_output(c, n, (int)k, dt, s->rank, out);
    }
    return st;
}

static fl_status eval_split_v(fl_ctx *c, fl_node *n) {
    int64_t a;
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    if (!fl__array_known_scalar(n, 2, &a)) {
        return FL_OK;
    }
    if (a < 0) {
        a += src->rank;
    }
    return split_eval(c, n, src, a);
}

/* Hook sets and descriptors (their rows: array/split.def). */
#define HOOKS_split                                                                                \
    .count_outputs = count_split, .infer = infer_split, .eval = eval_split, .cost = fl__op_cost_zero
#define HOOKS_split_v                                                                              \
    .count_outputs = count_split, .infer = infer_split_v, .eval = eval_split_v,                    \
    .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/split.def"
#undef FL_OP
