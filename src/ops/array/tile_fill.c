/*
 * tile_fill.c - Tile, Fill (array family).
 *
 * Shapes: TensorFlow's shape functions; Fill reads its dims as a partial
 * shape vector (shape_vector.c). eval: for any dtype.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status infer_tile(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "multiples");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *mv = fl__array_vec_value(n, 1);
    if (mv && s->rank >= 0 && mv->n != s->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'multiples' has %lld entries but the input has rank %d",
                             (long long)mv->n, s->rank);
    }
    int64_t r = s->rank >= 0 ? s->rank : mv ? mv->n : fl__array_vec_len(n, 1);
    if (r < 0 || r > MAX_RANK || !mv) {
        return fl__array_set_rank(c, n, 0, dt, r);
    }
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        fl_sym D = s->rank >= 0 ? s->dims[i] : fl_sym_unknown(), m = mv->ints[i];
        if (fl_sym_is_known(m) && m.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'multiples' has a negative entry %lld at %d",
                                 (long long)m.k, i);
        }
        if (fl__array_is_known(m, 1)) {
            out[i] = D;
        } else if ((st = fl__op_mul(c, n, D, m, &out[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status eval_tile(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int r = src->rank;
    if (v->rank != r) {
        return FL_OK;
    }
    int64_t *is = fl__array_row_strides(c, r, src->dims);
    int64_t **maps = fl__array_alloc_maps(c, r, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = src->dims[i] ? o % src->dims[i] : -1;
        }
    }
    return fl__array_finish(n, 0, v, fl__array_fill_mapped(c, v, src, r, v->dims, maps, is, NULL));
}

static fl_status infer_fill(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 1, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "value");
    }
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 0, "dims");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym *e;
    int64_t k;
    st = fl__array_shape_input(c, n, 0, "dims", &e, &k);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status eval_fill(fl_ctx *c, fl_node *n) {
    const fl_value *val = fl_op_in_value(n, 1);
    if (!fl__array_usable(val) || val->n != 1) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, val, &st);
    if (!v) {
        return st;
    }
    for (int64_t j = 0; j < v->n; j++) {
        fl__array_copy_elems(v, j, val, 0, 1);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: array/tile_fill.def). */
#define HOOKS_tile .infer = infer_tile, .eval = eval_tile, .cost = fl__op_cost_zero
#define HOOKS_fill .infer = infer_fill, .eval = eval_fill, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/tile_fill.def"
#undef FL_OP
