/*
 * space_batch.c - SpaceToBatchND, BatchToSpaceND (array family).
 *
 * Shapes: TensorFlow's shape functions (block_shape, paddings/crops; padded
 * dims must divide by the block sizes). Not evaluated.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status s2b_infer(fl_ctx *c, fl_node *n, bool to_batch) {
    const char *pname = to_batch ? "paddings" : "crops";
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "block_shape");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *bv = fl__array_vec_value(n, 1), *pv = fl__array_int_value(n, 2);
    int64_t M = bv ? bv->n : fl__array_vec_len(n, 1);
    int r = s->rank;
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (M >= 0 && r < M + 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input must have rank >= %lld (1 + the block dims), got %d",
                             (long long)M + 1, r);
    }
    if (M < 0) {
        return fl__array_set_rank(c, n, 0, dt, r);
    }
    if (pv && (pv->rank != 2 || pv->dims[0] != M || pv->dims[1] != 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must have shape [%lld, 2]", pname,
                             (long long)M);
    }
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    fl_sym bprod = fl_sym_const(1);
    for (int64_t i = 0; i < M; i++) {
        fl_sym bi = bv ? bv->ints[i] : fl_sym_unknown();
        if (fl_sym_is_known(bi) && bi.k < 1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'block_shape' entries must be >= 1, got %lld",
                                 (long long)bi.k);
        }
        if ((st = fl__op_mul(c, n, bprod, bi, &bprod)) != FL_OK) {
            return st;
        }
        fl_sym lo = pv ? pv->ints[2 * i] : fl_sym_unknown();
        fl_sym hi = pv ? pv->ints[2 * i + 1] : fl_sym_unknown();
        if ((fl_sym_is_known(lo) && lo.k < 0) || (fl_sym_is_known(hi) && hi.k < 0)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' has a negative entry", pname);
        }
        fl_sym D = s->dims[1 + i], t, o;
        if (to_batch) {
            if ((st = fl__op_add(c, n, D, lo, &t)) != FL_OK ||
                (st = fl__op_add(c, n, t, hi, &t)) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(t) && fl_sym_is_known(bi)) {
                if (t.k % bi.k != 0) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "padded dimension %lld (%lld) is not divisible by the "
                                         "block size %lld",
                                         (long long)i + 1, (long long)t.k, (long long)bi.k);
                }
                o = fl_sym_const(t.k / bi.k);
            } else {
                bool exact;
                if ((st = fl__array_s_div(c, n, t, bi, &o, &exact)) != FL_OK) {
                    return st;
                }
            }
        } else {
            if ((st = fl__op_mul(c, n, D, bi, &t)) != FL_OK ||
                (st = fl__op_sub(c, n, t, lo, &t)) != FL_OK ||
                (st = fl__op_sub(c, n, t, hi, &o)) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(o) && o.k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'crops' remove more than dimension %lld holds",
                                     (long long)i + 1);
            }
        }
        out[1 + i] = o;
    }
    if (to_batch) {
        st = fl__op_mul(c, n, s->dims[0], bprod, &out[0]);
    } else if (fl_sym_is_known(s->dims[0]) && fl_sym_is_known(bprod)) {
        if (bprod.k == 0 || s->dims[0].k % bprod.k != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "batch %lld is not divisible by the product of input "
                                 "'block_shape' (%lld)",
                                 (long long)s->dims[0].k, (long long)bprod.k);
        }
        out[0] = fl_sym_const(s->dims[0].k / bprod.k);
    } else {
        bool exact;
        st = fl__array_s_div(c, n, s->dims[0], bprod, &out[0], &exact);
    }
    if (st != FL_OK) {
        return st;
    }
    for (int64_t i = M + 1; i < r; i++) {
        out[i] = s->dims[i];
    }
    return fl__op_set_output(c, n, 0, dt, r, out);
}

static fl_status infer_space_to_batch_nd(fl_ctx *c, fl_node *n) {
    return s2b_infer(c, n, true);
}

static fl_status infer_batch_to_space_nd(fl_ctx *c, fl_node *n) {
    return s2b_infer(c, n, false);
}

/* Hook sets and descriptors (their rows: array/space_batch.def). */
#define HOOKS_space_to_batch_nd .infer = infer_space_to_batch_nd, .cost = fl__op_cost_zero
#define HOOKS_batch_to_space_nd .infer = infer_batch_to_space_nd, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/space_batch.def"
#undef FL_OP
