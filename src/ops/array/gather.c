/*
 * gather.c - Gather, GatherV2, GatherNd (array family).
 *
 * Shapes: TensorFlow's shape functions (GatherV2's batch_dims and axis).
 * eval: for any dtype, with known indices in range.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status gather_infer(fl_ctx *c, fl_node *n, bool have_axis, int64_t a, int64_t bd) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "Tparams", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *p = fl__op_in_shape(n, 0), *ix = fl__op_in_shape(n, 1);
    int pr = p->rank, ir = ix->rank;
    if (pr == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'params' must have rank >= 1, got 0");
    }
    if (pr < 0 || ir < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (bd < 0) {
        bd += ir;
    }
    if (bd < 0 || bd > ir) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'batch_dims' is out of range for indices of rank %d", ir);
    }
    if (!have_axis) {
        return fl__array_set_rank(c, n, 0, dt, (int64_t)pr + ir - 1 - bd);
    }
    if (a < -pr || a >= pr) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'axis' is %lld, out of range for rank %d",
                             (long long)a, pr);
    }
    if (a < 0) {
        a += pr;
    }
    if (bd > a) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'batch_dims' (%lld) must be less than or equal to 'axis' "
                             "(%lld)",
                             (long long)bd, (long long)a);
    }
    int64_t orank = a + (ir - bd) + (pr - a - 1);
    fl_sym *out = fl__array_alloc_syms(c, orank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    int j = 0;
    for (int i = 0; i < bd; i++, j++) {
        if ((st = fl__array_merge(c, n, p->dims[i], ix->dims[i], "params and indices (batch_dims)",
                                  i, &out[j])) != FL_OK) {
            return st;
        }
    }
    for (int64_t i = bd; i < a; i++) {
        out[j++] = p->dims[i];
    }
    for (int64_t i = bd; i < ir; i++) {
        out[j++] = ix->dims[i];
    }
    for (int64_t i = a + 1; i < pr; i++) {
        out[j++] = p->dims[i];
    }
    return fl__op_set_output(c, n, 0, dt, (int)orank, out);
}

static fl_status gather_eval(fl_ctx *c, fl_node *n, int64_t a, int64_t bd) {
    const fl_value *params = fl_op_in_value(n, 0), *idx = fl__array_int_value(n, 1);
    if (!fl__array_usable(params) || !idx) {
        return FL_OK;
    }
    int pr = params->rank, ir = idx->rank;
    if (bd < 0) {
        bd += ir;
    }
    if (a < 0) {
        a += pr;
    }
    if (a < 0 || a >= pr || bd < 0 || bd > a || bd > ir) {
        return FL_OK;
    }
    int64_t B = fl__array_prod(params->dims, 0, (int)bd),
            O = fl__array_prod(params->dims, (int)bd, (int)a);
    int64_t A = params->dims[a], In = fl__array_prod(params->dims, (int)a + 1, pr);
    int64_t I = fl__array_prod(idx->dims, (int)bd, ir);
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, params, &st);
    if (!v) {
        return st;
    }
    if (B < 0 || O < 0 || In < 0 || I < 0 || B * I != idx->n || v->n != B * O * I * In) {
        return FL_OK;
    }
    int64_t pos = 0;
    for (int64_t b = 0; b < B; b++) {
        for (int64_t o = 0; o < O; o++) {
            for (int64_t i = 0; i < I; i++) {
                fl_sym x = idx->ints[b * I + i];
                if (!fl_sym_is_known(x) || x.k < 0 || x.k >= A) {
                    return FL_OK;
                }
                fl__array_copy_elems(v, pos, params, ((b * O + o) * A + x.k) * In, In);
                pos += In;
            }
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_gather(fl_ctx *c, fl_node *n) {
    return gather_infer(c, n, true, 0, 0);
}

static fl_status eval_gather(fl_ctx *c, fl_node *n) {
    return gather_eval(c, n, 0, 0);
}

static fl_status infer_gather_v2(fl_ctx *c, fl_node *n) {
    int64_t bd, a = 0;
    fl_status st = fl__attr_int_or(n, "batch_dims", 0, &bd, c->d);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 2, "axis");
    }
    if (st != FL_OK) {
        return st;
    }
    bool have = fl__array_known_scalar(n, 2, &a);
    return gather_infer(c, n, have, a, bd);
}

static fl_status eval_gather_v2(fl_ctx *c, fl_node *n) {
    int64_t bd, a;
    if (fl__attr_int_or(n, "batch_dims", 0, &bd, c->d) != FL_OK ||
        !fl__array_known_scalar(n, 2, &a)) {
        return FL_OK;
    }
    return gather_eval(c, n, a, bd);
}

static fl_status infer_gather_nd(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "Tparams", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *p = fl__op_in_shape(n, 0), *ix = fl__op_in_shape(n, 1);
    int pr = p->rank, ir = ix->rank;
    if (ir == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'indices' must have rank >= 1, got 0");
    }
    if (ir < 0 || !fl_sym_is_known(ix->dims[ir - 1])) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int64_t L = ix->dims[ir - 1].k;
    if (pr >= 0 && L > pr) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "the last dimension of input 'indices' (%lld) exceeds the rank %d of "
                             "'params'",
                             (long long)L, pr);
    }
    if (pr < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int64_t orank = (ir - 1) + (pr - L);
    fl_sym *out = fl__array_alloc_syms(c, orank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    int j = 0;
    for (int i = 0; i < ir - 1; i++) {
        out[j++] = ix->dims[i];
    }
    for (int64_t i = L; i < pr; i++) {
        out[j++] = p->dims[i];
    }
    return fl__op_set_output(c, n, 0, dt, (int)orank, out);
}

static fl_status eval_gather_nd(fl_ctx *c, fl_node *n) {
    const fl_value *params = fl_op_in_value(n, 0), *idx = fl__array_int_value(n, 1);
    if (!fl__array_usable(params) || !idx || idx->rank < 1) {
        return FL_OK;
    }
    int64_t L = idx->dims[idx->rank - 1];
    if (L > params->rank) {
        return FL_OK;
    }
    int64_t slice = fl__array_prod(params->dims, (int)L, params->rank);
    int64_t rows = fl__array_prod(idx->dims, 0, idx->rank - 1);
    int64_t *ps = fl__array_row_strides(c, params->rank, params->dims);
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, params, &st);
    if (!v) {
        return st;
    }
    if (!ps || slice < 0 || rows < 0 || v->n != rows * slice) {
        return ps ? FL_OK : fl__diag_oom(c->d);
    }
    for (int64_t row = 0; row < rows; row++) {
        int64_t off = 0;
        for (int64_t j = 0; j < L; j++) {
            fl_sym x = idx->ints[row * L + j];
            if (!fl_sym_is_known(x) || x.k < 0 || x.k >= params->dims[j]) {
                return FL_OK;
            }
            off += x.k * ps[j];
        }
        fl__array_copy_elems(v, row * slice, params, off, slice);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: array/gather.def). */
#define HOOKS_gather    .infer = infer_gather, .eval = eval_gather, .cost = fl__op_cost_zero
#define HOOKS_gather_v2 .infer = infer_gather_v2, .eval = eval_gather_v2, .cost = fl__op_cost_zero
#define HOOKS_gather_nd .infer = infer_gather_nd, .eval = eval_gather_nd, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/gather.def"
#undef FL_OP
