/*
 * broadcast.c - BroadcastTo, BroadcastArgs (array family).
 *
 * Shapes: TensorFlow's shape functions; BroadcastTo reads its shape input as
 * a partial shape vector (shape_vector.c). eval: for any dtype; BroadcastArgs
 * only when every element of the result can be told.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status infer_broadcast_to(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "shape");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym *e;
    int64_t k;
    st = fl__array_shape_input(c, n, 1, "shape", &e, &k);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    if (s->rank > k) {
        return fl__node_fail(
            c->d, FL_EINVAL, n,
            "an input of rank %d cannot be broadcast to input 'shape' of rank %lld", s->rank,
            (long long)k);
    }
    for (int64_t i = k - (s->rank > 0 ? s->rank : 0); s->rank >= 0 && i < k; i++) {
        fl_sym D = s->dims[i - (k - s->rank)];
        if (!fl_sym_is_known(D) || D.k == 1) {
            continue;
        }
        if (fl_sym_is_known(e[i]) && e[i].k != D.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input dimension %lld of size %lld cannot be broadcast to %lld "
                                 "(input 'shape')",
                                 (long long)(i - (k - s->rank)), (long long)D.k, (long long)e[i].k);
        }
        if (fl_sym_is_unknown(e[i])) {
            e[i] = D;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status eval_broadcast_to(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int k = v->rank, r = src->rank;
    if (r > k) {
        return FL_OK;
    }
    int64_t *is = fl__array_row_strides(c, r, src->dims),
            *os = fl__array_alloc_n(c, k, sizeof(int64_t));
    int64_t **maps = fl__array_alloc_maps(c, k, v->dims);
    if (!is || !os || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < k; i++) {
        int j = i - (k - r);
        int64_t D = j >= 0 ? src->dims[j] : 1;
        if (D != 1 && D != v->dims[i]) {
            return FL_OK;
        }
        os[i] = D == 1 ? 0 : is[j];
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = D == 1 ? 0 : o;
        }
    }
    return fl__array_finish(n, 0, v, fl__array_fill_mapped(c, v, src, k, v->dims, maps, os, NULL));
}

/* The broadcast of two shape vectors; *decided false when some element
 * cannot be told (two different symbols). Known conflicts fail. */
static fl_status broadcast_args(fl_ctx *c, const fl_node *n, const fl_value *a, const fl_value *b,
                                fl_sym *out, bool *decided) {
    int64_t k = a->n > b->n ? a->n : b->n;
    *decided = true;
    for (int64_t i = 0; i < k; i++) {
        int64_t ia = i - (k - a->n), ib = i - (k - b->n);
        fl_sym x = ia >= 0 ? a->ints[ia] : fl_sym_const(1);
        fl_sym y = ib >= 0 ? b->ints[ib] : fl_sym_const(1);
        if (fl__array_is_known(x, 1)) {
            out[i] = y;
        } else if (fl__array_is_known(y, 1) || fl__sym_eq(x, y)) {
            out[i] = x;
        } else if (fl_sym_is_known(x) && fl_sym_is_known(y)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "incompatible shapes: %lld vs %lld at dimension %lld",
                                 (long long)x.k, (long long)y.k, (long long)i);
        } else if (fl_sym_is_known(x) && fl_sym_is_symbolic(y)) {
            out[i] = x; /* y must be 1 or x */
        } else if (fl_sym_is_known(y) && fl_sym_is_symbolic(x)) {
            out[i] = y;
        } else {
            out[i] = fl_sym_unknown();
            *decided = false;
        }
    }
    return FL_OK;
}

static fl_status infer_broadcast_args(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 0, "s0");
    }
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "s1");
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t l0 = fl__array_vec_len(n, 0), l1 = fl__array_vec_len(n, 1);
    fl_sym len = l0 >= 0 && l1 >= 0 ? fl_sym_const(l0 > l1 ? l0 : l1) : fl_sym_unknown();
    const fl_value *a = fl__array_vec_value(n, 0), *b = fl__array_vec_value(n, 1);
    if (a && b) {
        fl_sym *tmp = fl__array_alloc_syms(c, len.k);
        bool decided;
        if (!tmp) {
            return fl__diag_oom(c->d);
        }
        if ((st = broadcast_args(c, n, a, b, tmp, &decided)) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, 1, &len);
}

static fl_status eval_broadcast_args(fl_ctx *c, fl_node *n) {
    const fl_value *a = fl__array_vec_value(n, 0), *b = fl__array_vec_value(n, 1);
    if (!a || !b) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, NULL, &st);
    if (!v) {
        return st;
    }
    bool decided;
    if (!v->ints || v->n != (a->n > b->n ? a->n : b->n)) {
        return FL_OK;
    }
    st = broadcast_args(c, n, a, b, (fl_sym *)v->ints, &decided);
    if (st == FL_OK && decided) {
        fl__op_set_value(n, 0, v);
    }
    return st;
}

/* Hook sets and descriptors (their rows: array/broadcast.def). */
#define HOOKS_broadcast_to                                                                         \
    .infer = infer_broadcast_to, .eval = eval_broadcast_to, .cost = fl__op_cost_zero
#define HOOKS_broadcast_args                                                                       \
    .infer = infer_broadcast_args, .eval = eval_broadcast_args, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/broadcast.def"
#undef FL_OP
