/*
 * selection.c - data-dependent selection (array family): Where, TopKV2,
 * NonMaxSuppressionV3/V4/V5.
 *
 * Shapes
 *  - Where: [num_true, rank]; num_true is counted when the input value is
 *    known, else unknown. eval: the coordinates of the true elements.
 *  - TopKV2: the input's shape with the last dim k (values and indices).
 *  - NonMaxSuppression*: the selected count is unknown unless
 *    pad_to_max_output_size (V4, V5) makes it max_output_size.
 *
 * FLOP rules ("complete" convention; tfprof registers none of these ops:
 * tfprof_flops 0, tfprof_rule false; no MACs):
 *  - Where: E(input) FLOPs, one comparison with zero per input element.
 *  - TopKV2: E(input) FLOPs, one comparison per input element (a lower bound
 *    of the selection work; Grappler's element-wise count for TopKV2).
 *  - NonMaxSuppressionV3/V4/V5: no rule (NULL cost: 0 FLOPs, has_rule false):
 *    the pairwise IoU work depends on the data.
 */
#include "ops/array/array.h"

#include <math.h>

/* Number of non-zero elements of v, or -1 when some element is not known. */
static int64_t count_true(const fl_value *v) {
    int64_t cnt = 0;
    for (int64_t i = 0; i < v->n; i++) {
        double x;
        if (v->ints) {
            if (!fl_sym_is_known(v->ints[i])) {
                return -1;
            }
            cnt += v->ints[i].k != 0;
        } else if (fl__value_f64(v, i, &x)) {
            cnt += x != 0 || isnan(x);
        } else {
            return -1;
        }
    }
    return cnt;
}

static fl_status infer_where(fl_ctx *c, fl_node *n) {
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *v = fl_op_in_value(n, 0);
    fl_sym dims[2] = {fl_sym_unknown(), s->rank >= 0 ? fl_sym_const(s->rank) : fl_sym_unknown()};
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, s, &e);
    if (st != FL_OK) {
        return st;
    }
    if (v && count_true(v) >= 0) {
        dims[0] = fl_sym_const(count_true(v));
    } else if (fl__array_is_known(e, 0)) {
        dims[0] = fl_sym_const(0);
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT64, 2, dims);
}

static fl_status eval_where(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, NULL, &st);
    if (!v) {
        return st;
    }
    int r = src->rank;
    if (!v->ints || v->rank != 2 || v->dims[1] != r || v->dims[0] != count_true(src)) {
        return FL_OK;
    }
    int64_t row = 0;
    for (int64_t i = 0; i < src->n; i++) {
        double x = 0;
        bool t =
            src->ints ? src->ints[i].k != 0 : (fl__value_f64(src, i, &x) && (x != 0 || isnan(x)));
        if (!t) {
            continue;
        }
        int64_t rem = i;
        for (int d = r - 1; d >= 0; d--) {
            ((fl_sym *)v->ints)[row * r + d] = fl_sym_const(rem % src->dims[d]);
            rem /= src->dims[d];
        }
        row++;
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Where, TopKV2: one comparison per input element. */
static fl_status cost_per_input(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, fl__op_in_shape(n, 0), &e);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(e)) {
        out->incomplete = true;
        return FL_OK;
    }
    out->flops = e;
    return FL_OK;
}

static fl_status infer_topk_v2(fl_ctx *c, fl_node *n) {
    int dt, it;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_index_type_attr(c, n, "index_type", &it);
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "k");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    if (s->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input must have rank >= 1, got 0");
    }
    fl_sym k;
    if (!fl__array_scalar_sym(n, 1, &k)) {
        k = fl_sym_unknown();
    } else if (fl_sym_is_known(k) && k.k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'k' must be non-negative, got %lld",
                             (long long)k.k);
    }
    if (s->rank < 0) {
        st = fl__op_set_output(c, n, 0, dt, -1, NULL);
        return st != FL_OK ? st : fl__op_set_output(c, n, 1, it, -1, NULL);
    }
    fl_sym last = s->dims[s->rank - 1];
    if (fl_sym_is_known(k) && fl_sym_is_known(last) && last.k < k.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input must have at least k=%lld columns, got %lld", (long long)k.k,
                             (long long)last.k);
    }
    fl_sym *out = fl__array_alloc_syms(c, s->rank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i + 1 < s->rank; i++) {
        out[i] = s->dims[i];
    }
    out[s->rank - 1] = k;
    st = fl__op_set_output(c, n, 0, dt, s->rank, out);
    return st != FL_OK ? st : fl__op_set_output(c, n, 1, it, s->rank, out);
}

static fl_status nms_infer(fl_ctx *c, fl_node *n, int version) {
    const fl_shape *b = fl__op_in_shape(n, 0), *sc = fl__op_in_shape(n, 1);
    if (b->rank >= 0 && b->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'boxes' must have rank 2, got %d", b->rank);
    }
    if (b->rank == 2 && fl_sym_is_known(b->dims[1]) && b->dims[1].k != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'boxes' must have 4 columns, got %lld",
                             (long long)b->dims[1].k);
    }
    if (sc->rank >= 0 && sc->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'scores' must have rank 1, got %d",
                             sc->rank);
    }
    fl_status st = fl__op_want_scalar(c, n, 2, "max_output_size");
    bool pad = false;
    if (st == FL_OK && version >= 4) {
        st = fl__attr_bool_or(n, "pad_to_max_output_size", false, &pad, c->d);
    }
    int dt = FL_DT_FLOAT;
    if (st == FL_OK && version == 5) {
        st = fl__op_attr_dtype(c, n, "T", 1, &dt);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym m, len = fl_sym_unknown();
    if (fl__array_scalar_sym(n, 2, &m)) {
        if (fl_sym_is_known(m) && m.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'max_output_size' must be non-negative, got %lld",
                                 (long long)m.k);
        }
        if (pad) {
            len = m;
        }
    }
    st = fl__op_set_output(c, n, 0, FL_DT_INT32, 1, &len);
    if (st == FL_OK && version == 4) {
        st = fl__op_set_output(c, n, 1, FL_DT_INT32, 0, NULL);
    }
    if (st == FL_OK && version == 5) {
        st = fl__op_set_output(c, n, 1, dt, 1, &len);
        if (st == FL_OK) {
            st = fl__op_set_output(c, n, 2, FL_DT_INT32, 0, NULL);
        }
    }
    return st;
}

static fl_status infer_nms_v3(fl_ctx *c, fl_node *n) {
    return nms_infer(c, n, 3);
}

static fl_status infer_nms_v4(fl_ctx *c, fl_node *n) {
    return nms_infer(c, n, 4);
}

static fl_status infer_nms_v5(fl_ctx *c, fl_node *n) {
    return nms_infer(c, n, 5);
}

/* Hook sets and descriptors (their rows: array/selection.def). */
#define HOOKS_where   .infer = infer_where, .eval = eval_where, .cost = cost_per_input
#define HOOKS_topk_v2 .infer = infer_topk_v2, .cost = cost_per_input
#define HOOKS_nms_v3  .infer = infer_nms_v3
#define HOOKS_nms_v4  .infer = infer_nms_v4
#define HOOKS_nms_v5  .infer = infer_nms_v5

#define FL_OP FL_OP_DESC
#include "ops/array/selection.def"
#undef FL_OP
