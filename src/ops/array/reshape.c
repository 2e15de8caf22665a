/*
 * reshape.c - Reshape, Squeeze, ExpandDims (array family).
 *
 * Shapes: TensorFlow's shape functions, with exact symbolic dims.
 *  - Reshape reads its shape input as a partial shape vector
 *    (shape_vector.c) and resolves one -1 by exact division (total / product
 *    of the other dims); a known non-divisible case fails. A 0 in the shape
 *    means 0.
 *  - Squeeze without squeeze_dims drops the dims known to be 1; a symbolic dim
 *    is assumed not to be 1; an unknown dim gives unknown rank (as TF).
 * eval: input 0's elements in order, for any dtype.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static const char *sym_text(fl_ctx *c, fl_sym s) {
    char *t = fl__sym_to_str(c->a, s);
    return t ? t : "?";
}

/* "[2, N, -1]" for error messages (at most 16 entries shown). */
static const char *syms_text(fl_ctx *c, const fl_sym *e, int64_t k) {
    const char *out = "[";
    for (int64_t i = 0; i < k && i < 16; i++) {
        const char *p = fl__arena_printf(c->a, "%s%s%s", out, i ? ", " : "", sym_text(c, e[i]));
        out = p ? p : out;
    }
    const char *p = fl__arena_printf(c->a, "%s%s]", out, k > 16 ? ", ..." : "");
    return p ? p : "[...]";
}

static fl_status infer_reshape(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "shape");
    }
    fl_sym total;
    if (st == FL_OK) {
        st = fl__op_num_elements(c, n, fl__op_in_shape(n, 0), &total);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym *e;
    int64_t k;
    st = fl__array_partial_vec(c, fl_node_in(n, 1), 0, &e, &k);
    if (st == FL_ENOTFOUND || (st == FL_OK && k > MAX_RANK)) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t infer_at = -1;
    for (int64_t i = 0; i < k; i++) {
        if (!fl_sym_is_known(e[i])) {
            continue;
        }
        if (e[i].k == -1) {
            if (infer_at >= 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'shape' can have at most one -1, found at %lld and "
                                     "%lld",
                                     (long long)infer_at, (long long)i);
            }
            infer_at = i;
        } else if (e[i].k < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'shape' has a negative dimension %lld at index %lld",
                                 (long long)e[i].k, (long long)i);
        }
    }
    fl_sym p = fl_sym_const(1);
    for (int64_t i = 0; i < k && st == FL_OK; i++) {
        if (i != infer_at) {
            st = fl__op_mul(c, n, p, e[i], &p);
        }
    }
    if (st != FL_OK) {
        return st;
    }
    if (infer_at >= 0) {
        fl_sym d = fl_sym_unknown();
        if (!fl_sym_is_unknown(total) && !fl_sym_is_unknown(p) && !fl__array_is_known(p, 0)) {
            bool exact;
            if ((st = fl__array_s_div(c, n, total, p, &d, &exact)) != FL_OK) {
                return st;
            }
            if (!exact && fl_sym_is_known(total) && fl_sym_is_known(p)) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "cannot reshape a tensor of %lld elements into shape %s: "
                                     "%lld is not a multiple of %lld",
                                     (long long)total.k, syms_text(c, e, k), (long long)total.k,
                                     (long long)p.k);
            }
        }
        e[infer_at] = d;
    } else if (fl_sym_is_known(total) && fl_sym_is_known(p) && total.k != p.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "cannot reshape a tensor of %lld elements into shape %s (%lld "
                             "elements)",
                             (long long)total.k, syms_text(c, e, k), (long long)p.k);
    }
    return fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status infer_squeeze(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const int64_t *sd = NULL;
    size_t nsd = 0;
    const char *attr = "squeeze_dims";
    st = fl__attr_get_ints(n, attr, &sd, &nsd, c->d);
    if (st == FL_ENOTFOUND) {
        attr = "axis";
        st = fl__attr_get_ints(n, attr, &sd, &nsd, c->d);
        if (st == FL_ENOTFOUND) {
            nsd = 0;
            st = FL_OK;
        }
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    bool *drop = fl__array_alloc_n(c, r, sizeof(bool));
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!drop || !out) {
        return fl__diag_oom(c->d);
    }
    for (size_t j = 0; j < nsd; j++) {
        int64_t a = sd[j];
        if (a < -r || a >= r) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr '%s' entry %lld is out of range for rank %d", attr,
                                 (long long)a, r);
        }
        if (a < 0) {
            a += r;
        }
        if (fl_sym_is_known(s->dims[a]) && s->dims[a].k != 1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr '%s': cannot squeeze dimension %lld of size %lld (must be "
                                 "1)",
                                 attr, (long long)a, (long long)s->dims[a].k);
        }
        drop[a] = true;
    }
    if (nsd == 0) {
        for (int i = 0; i < r; i++) {
            if (fl_sym_is_unknown(s->dims[i])) {
                return fl__op_set_output(c, n, 0, dt, -1, NULL);
            }
            drop[i] = fl__array_is_known(s->dims[i], 1);
        }
    }
    int k = 0;
    for (int i = 0; i < r; i++) {
        if (!drop[i]) {
            out[k++] = s->dims[i];
        }
    }
    return fl__op_set_output(c, n, 0, dt, k, out);
}

static fl_status infer_expand_dims(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_value *dv = fl__array_int_value(n, 1);
    if (dv && dv->n != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'dim' must hold exactly one element, got %lld",
                             (long long)dv->n);
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (!dv || !fl_sym_is_known(dv->ints[0])) {
        return fl__array_set_rank(c, n, 0, dt, (int64_t)r + 1);
    }
    int64_t a = dv->ints[0].k;
    if (a < -(int64_t)r - 1 || a > r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'dim' is %lld, out of range for rank %d",
                             (long long)a, r);
    }
    if (a < 0) {
        a += r + 1;
    }
    fl_sym *out = fl__array_alloc_syms(c, r + 1);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0, j = 0; i <= r; i++) {
        out[i] = i == a ? fl_sym_const(1) : s->dims[j++];
    }
    return fl__op_set_output(c, n, 0, dt, r + 1, out);
}

/* Hook sets and descriptors (their rows: array/reshape.def). */
#define HOOKS_reshape .infer = infer_reshape, .eval = fl__array_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_squeeze .infer = infer_squeeze, .eval = fl__array_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_expand_dims                                                                          \
    .infer = infer_expand_dims, .eval = fl__array_eval_copy, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/reshape.def"
#undef FL_OP
