/*
 * concat.c - ConcatV2, Concat, Pack, Unpack (array family).
 *
 * Shapes: TensorFlow's shape functions: the non-axis dims of the inputs merge
 * (known values that differ fail), the axis dims add up (Concat) or a new
 * axis of N is inserted (Pack) or removed (Unpack). eval: for any dtype.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status check_N(fl_ctx *c, const fl_node *n, int64_t count) {
    int64_t N;
    fl_status st = fl__attr_get_int(n, "N", &N, c->d);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (N != count) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'N' is %lld but the node has %lld inputs",
                             (long long)N, (long long)count);
    }
    return FL_OK;
}

/* Common rank of inputs [first, first+count): -1 when none is known. */
static fl_status common_rank(fl_ctx *c, const fl_node *n, int first, int count, int *rank) {
    *rank = -1;
    int at = -1;
    for (int i = first; i < first + count; i++) {
        int r = fl__op_in_shape(n, i)->rank;
        if (r < 0) {
            continue;
        }
        if (*rank < 0) {
            *rank = r;
            at = i;
        } else if (r != *rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "inputs must have the same rank: input %d has rank %d, input %d "
                                 "has rank %d",
                                 at, *rank, i, r);
        }
    }
    return FL_OK;
}

static fl_status concat_infer(fl_ctx *c, fl_node *n, int axis_in, int first, int count,
                              const char *axis_name) {
    int dt, r;
    fl_status st = check_N(c, n, count);
    if (st == FL_OK) {
        st = fl__op_attr_dtype(c, n, "T", first, &dt);
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, axis_in, axis_name);
    }
    if (st == FL_OK) {
        st = common_rank(c, n, first, count, &r);
    }
    if (st != FL_OK) {
        return st;
    }
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (r == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "cannot concatenate scalars (use Pack)");
    }
    int64_t a;
    if (!fl__array_known_scalar(n, axis_in, &a)) {
        return fl__array_set_rank(c, n, 0, dt, r);
    }
    if (a < -r || a >= r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' is %lld, out of range for rank %d",
                             axis_name, (long long)a, r);
    }
    if (a < 0) {
        a += r;
    }
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    out[a] = fl_sym_const(0);
    for (int i = first; i < first + count; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        if (s->rank < 0) {
            out[a] = fl_sym_unknown();
            continue;
        }
        for (int d = 0; d < r && st == FL_OK; d++) {
            if (d == a) {
                st = fl__op_add(c, n, out[d], s->dims[d], &out[d]);
            } else {
                st = fl__array_merge(c, n, out[d], s->dims[d], "the concatenated inputs", d,
                                     &out[d]);
            }
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, r, out);
}

static fl_status concat_eval(fl_ctx *c, fl_node *n, int axis_in, int first, int count) {
    int64_t a;
    if (!fl__array_known_scalar(n, axis_in, &a) || count < 1) {
        return FL_OK;
    }
    const fl_value *s0 = fl_op_in_value(n, first);
    if (!fl__array_usable(s0)) {
        return FL_OK;
    }
    int r = s0->rank;
    if (r == 0 || a < -r || a >= r) {
        return FL_OK;
    }
    if (a < 0) {
        a += r;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, s0, &st);
    if (!v) {
        return st;
    }
    if (v->rank != r) {
        return FL_OK;
    }
    int64_t outer = fl__array_prod(v->dims, 0, (int)a),
            inner = fl__array_prod(v->dims, (int)a + 1, r);
    int64_t sum = 0;
    for (int i = first; i < first + count; i++) {
        const fl_value *s = fl_op_in_value(n, i);
        if (!fl__array_usable(s) || s->rank != r ||
            fl_dtype_base(s->dtype) != fl_dtype_base(s0->dtype) ||
            s->n != outer * s->dims[a] * inner) {
            return FL_OK;
        }
        sum += s->dims[a];
    }
    if (sum != v->dims[a] || outer < 0 || inner < 0) {
        return FL_OK;
    }
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = first; i < first + count; i++) {
            const fl_value *s = fl_op_in_value(n, i);
            int64_t chunk = s->dims[a] * inner;
            fl__array_copy_elems(v, pos, s, o * chunk, chunk);
            pos += chunk;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_concat_v2(fl_ctx *c, fl_node *n) {
    return concat_infer(c, n, n->n_inputs - 1, 0, n->n_inputs - 1, "axis");
}

static fl_status eval_concat_v2(fl_ctx *c, fl_node *n) {
    return concat_eval(c, n, n->n_inputs - 1, 0, n->n_inputs - 1);
}

static fl_status infer_concat(fl_ctx *c, fl_node *n) {
    return concat_infer(c, n, 0, 1, n->n_inputs - 1, "concat_dim");
}

static fl_status eval_concat(fl_ctx *c, fl_node *n) {
    return concat_eval(c, n, 0, 1, n->n_inputs - 1);
}

static fl_status infer_pack(fl_ctx *c, fl_node *n) {
    int dt, r;
    int64_t axis;
    fl_status st = check_N(c, n, n->n_inputs);
    if (st == FL_OK) {
        st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    }
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    }
    if (st == FL_OK) {
        st = common_rank(c, n, 0, n->n_inputs, &r);
    }
    if (st != FL_OK) {
        return st;
    }
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (axis < -(int64_t)r - 1 || axis > r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axis' is %lld, out of range for rank %d",
                             (long long)axis, r + 1);
    }
    if (axis < 0) {
        axis += r + 1;
    }
    fl_sym *m = fl__array_alloc_syms(c, r), *out = fl__array_alloc_syms(c, r + 1);
    if (!m || !out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        for (int d = 0; d < s->rank && st == FL_OK; d++) {
            st = fl__array_merge(c, n, m[d], s->dims[d], "the packed inputs", d, &m[d]);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    for (int i = 0, j = 0; i <= r; i++) {
        out[i] = i == axis ? fl_sym_const(n->n_inputs) : m[j++];
    }
    return fl__op_set_output(c, n, 0, dt, r + 1, out);
}

static fl_status eval_pack(fl_ctx *c, fl_node *n) {
    const fl_value *s0 = fl_op_in_value(n, 0);
    if (!fl__array_usable(s0)) {
        return FL_OK;
    }
    int64_t axis;
    if (fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK) {
        return FL_OK;
    }
    int r = s0->rank;
    if (axis < 0) {
        axis += r + 1;
    }
    if (axis < 0 || axis > r) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, s0, &st);
    if (!v) {
        return st;
    }
    int64_t outer = fl__array_prod(s0->dims, 0, (int)axis),
            inner = fl__array_prod(s0->dims, (int)axis, r);
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_value *s = fl_op_in_value(n, i);
        if (!fl__array_usable(s) || s->n != s0->n ||
            fl_dtype_base(s->dtype) != fl_dtype_base(s0->dtype)) {
            return FL_OK;
        }
    }
    if (outer < 0 || inner < 0 || v->n != s0->n * n->n_inputs) {
        return FL_OK;
    }
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = 0; i < n->n_inputs; i++) {
            fl__array_copy_elems(v, pos, fl_op_in_value(n, i), o * inner, inner);
            pos += inner;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static int count_unpack(const fl_node *n, fl_diag *d) {
    return fl__array_count_attr(n, d, "num", 0);
}

/* Sets every output to `s` without dim `axis` (which must be in range). */
static fl_status outputs_without(fl_ctx *c, fl_node *n, int dt, const fl_shape *s, int axis) {
    fl_sym *out = fl__array_alloc_syms(c, s->rank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0, j = 0; i < s->rank; i++) {
        if (i != axis) {
            out[j++] = s->dims[i];
        }
    }
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st = fl__op_set_output(c, n, k, dt, s->rank - 1, out);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_unpack(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    int64_t axis;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return fl__array_set_all_rank(c, n, dt, -1);
    }
    if (axis < -r || axis >= r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axis' is %lld, out of range for rank %d",
                             (long long)axis, r);
    }
    if (axis < 0) {
        axis += r;
    }
    if (fl_sym_is_known(s->dims[axis]) && s->dims[axis].k != n->n_outputs) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num' is %d but dimension %lld of the input has size %lld",
                             n->n_outputs, (long long)axis, (long long)s->dims[axis].k);
    }
    return outputs_without(c, n, dt, s, (int)axis);
}

static fl_status eval_unpack(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    int64_t axis;
    if (!fl__array_usable(src) || fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK) {
        return FL_OK;
    }
    int r = src->rank;
    if (axis < 0) {
        axis += r;
    }
    if (axis < 0 || axis >= r || src->dims[axis] != n->n_outputs) {
        return FL_OK;
    }
    int64_t outer = fl__array_prod(src->dims, 0, (int)axis),
            inner = fl__array_prod(src->dims, (int)axis + 1, r);
    int64_t A = src->dims[axis];
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st;
        fl_value *v = fl__array_out_value(c, n, k, src, &st);
        if (!v) {
            return st;
        }
        if (v->n != outer * inner) {
            return FL_OK;
        }
        for (int64_t o = 0; o < outer; o++) {
            fl__array_copy_elems(v, o * inner, src, (o * A + k) * inner, inner);
        }
        fl__op_set_value(n, k, v);
    }
    return FL_OK;
}

/* Hook sets and descriptors (their rows: array/concat.def). */
#define HOOKS_concat_v2 .infer = infer_concat_v2, .eval = eval_concat_v2, .cost = fl__op_cost_zero
#define HOOKS_concat    .infer = infer_concat, .eval = eval_concat, .cost = fl__op_cost_zero
#define HOOKS_pack      .infer = infer_pack, .eval = eval_pack, .cost = fl__op_cost_zero
#define HOOKS_unpack                                                                               \
    .count_outputs = count_unpack, .infer = infer_unpack, .eval = eval_unpack,                     \
    .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/concat.def"
#undef FL_OP
