/*
 * common.c - helpers shared by the op families; see common.h.
 */
#include "ops/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static fl_status arith_fail(fl_ctx *c, const fl_node *n, fl_status st, const char *what) {
    if (st == FL_ENOMEM) {
        return fl__diag_oom(c->d);
    }
    if (st == FL_EOVERFLOW) {
        return fl__node_fail(c->d, st, n, "%s overflows 64-bit integers", what);
    }
    return fl__node_fail(c->d, st, n, "%s: %s", what, fl_status_str(st));
}

#define ARITH(fn, what)                                                                            \
    fl_status st = fn;                                                                             \
    return st == FL_OK ? FL_OK : arith_fail(c, n, st, what)

fl_status fl__op_ck(fl_ctx *c, const fl_node *n, fl_ck x, int64_t *out, const char *fmt, ...) {
    if (!x.ovf) {
        *out = x.v;
        return FL_OK;
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fl__node_fail(c->d, FL_EOVERFLOW, n, "%s overflows 64-bit integers", what);
}

fl_status fl__op_add_any(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    ARITH(fl__sym_add(c->st, a, b, out), "dimension sum");
}
fl_status fl__op_sub(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    ARITH(fl__sym_sub(c->st, a, b, out), "dimension difference");
}
fl_status fl__op_mul(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    ARITH(fl__sym_mul(c->st, a, b, out), "product");
}
fl_status fl__op_ceildiv(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    ARITH(fl__sym_ceildiv(c->st, a, b, out), "division");
}
fl_status fl__op_floordiv(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    ARITH(fl__sym_floordiv(c->st, a, b, out), "division");
}
fl_status fl__op_scale(fl_ctx *c, const fl_node *n, fl_sym a, int64_t k, fl_sym *out) {
    ARITH(fl__sym_mul(c->st, a, fl_sym_const(k), out), "product");
}

fl_sym fl__shape_dim(const fl_shape *s, int i) {
    if (s->rank < 0 || i < -s->rank || i >= s->rank) {
        return fl_sym_unknown();
    }
    return s->dims[i < 0 ? i + s->rank : i];
}

fl_status fl__op_attr_dtype(fl_ctx *c, const fl_node *n, const char *attr, int in, int *dt) {
    int t;
    fl_status st = fl__attr_get_type(n, attr, &t, c->d);
    if (st == FL_OK) {
        if (!fl__dtype_valid(t)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' holds invalid DataType %d", attr,
                                 t);
        }
        *dt = fl_dtype_base(t);
        return FL_OK;
    }
    if (st != FL_ENOTFOUND) {
        return st;
    }
    *dt = (in >= 0 && in < n->n_inputs) ? fl_dtype_base(fl_node_in(n, in)->dtype) : FL_DT_INVALID;
    return FL_OK;
}

fl_status fl__op_want_scalar(fl_ctx *c, const fl_node *n, int i, const char *name) {
    int r = i < n->n_inputs ? fl_node_in(n, i)->shape.rank : -1;
    if (r > 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be a scalar, got rank %d", name,
                             r);
    }
    return FL_OK;
}

fl_status fl__op_cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    (void)c;
    (void)n;
    out->flops = fl_sym_const(0);
    out->tfprof_flops = fl_sym_const(0);
    out->macs = fl_sym_const(0);
    out->has_rule = true;
    out->tfprof_rule = false;
    out->incomplete = false;
    return FL_OK;
}

fl_status fl__op_num_elements(fl_ctx *c, const fl_node *n, const fl_shape *s, fl_sym *out) {
    return fl__op_num_elements_times(c, n, s, 1, out);
}

fl_status fl__op_num_elements_times(fl_ctx *c, const fl_node *n, const fl_shape *s, int64_t k,
                                    fl_sym *out) {
    if (s->rank < 0) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    /* The common case, known dims >= 1 and at most one symbolic one (a free
     * batch size): the known ones (and k) multiply as integers and the
     * symbolic one is multiplied once, one polynomial interned instead of
     * one per dim. Same result; and, every factor >= 1, no product in order
     * grows past the last one, so it overflows exactly when the last does. */
    int64_t prod = k;
    int sym = -1;
    bool plain = k >= 1;
    for (int i = 0; i < s->rank && plain; i++) {
        fl_sym d = s->dims[i];
        if (fl_sym_is_known(d)) {
            plain = d.k >= 1 && !__builtin_mul_overflow(prod, d.k, &prod);
        } else {
            plain = sym < 0 && !fl_sym_is_unknown(d);
            sym = i;
        }
    }
    if (plain) {
        if (sym < 0) {
            *out = fl_sym_const(prod);
            return FL_OK;
        }
        return fl__op_scale(c, n, s->dims[sym], prod, out);
    }
    fl_sym acc = fl_sym_const(1);
    for (int i = 0; i < s->rank; i++) {
        fl_status st = fl__op_mul(c, n, acc, s->dims[i], &acc);
        if (st != FL_OK) {
            return st;
        }
    }
    return k == 1 ? (*out = acc, FL_OK) : fl__op_scale(c, n, acc, k, out);
}

bool fl__shape_is_determined(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (fl_sym_is_unknown(s->dims[i])) {
            return false;
        }
    }
    return true;
}

bool fl__shape_is_concrete(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i])) {
            return false;
        }
    }
    return true;
}

fl_status fl__op_set_output(fl_ctx *c, fl_node *n, int port, int dtype, int rank,
                            const fl_sym *dims) {
    if (port < 0 || port >= n->n_outputs) {
        return fl__node_fail(c->d, FL_EINTERNAL, n, "output %d out of range (%d outputs)", port,
                             n->n_outputs);
    }
    fl_tensor *t = &n->outputs[port];
    t->dtype = (fl_dtype)dtype;
    if (rank < 0) {
        t->shape.rank = -1;
        t->shape.dims = NULL;
        return FL_OK;
    }
    /* Re-inference mostly gives an output the shape it had: then the tensor
     * keeps its dims array (compared field by field, so its contents are
     * exactly what a new copy would hold). Nothing is written into an existing
     * array, so it does not matter whether other tensors share it (constant
     * folding copies shapes by value) or what a snapshot saved of it. */
    bool same = t->shape.rank == rank && t->shape.dims != NULL;
    for (int i = 0; i < rank; i++) {
        fl_sym x = dims ? dims[i] : fl_sym_unknown();
        if (fl_sym_is_known(x) && x.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "output %d would have negative dim %lld", port,
                                 (long long)x.k);
        }
        same = same && t->shape.dims[i].k == x.k && t->shape.dims[i].e == x.e;
    }
    if (same) {
        return FL_OK;
    }
    /* Dims with no unknown one are shared with the outputs of equal shape
     * (fl__graph_dims); others get an array of their own. */
    fl_sym *d = dims ? fl__graph_dims(c->g, rank, dims) : NULL;
    if (!d && c->g->arena->failed) {
        return fl__diag_oom(c->d);
    }
    if (!d) {
        d = fl__arena_calloc(c->a, rank ? (size_t)rank : 1, sizeof(fl_sym));
        if (!d) {
            return fl__diag_oom(c->d);
        }
        for (int i = 0; i < rank; i++) {
            d[i] = dims ? dims[i] : fl_sym_unknown();
        }
    }
    t->shape.rank = rank;
    t->shape.dims = d;
    return FL_OK;
}

fl_status fl__op_pass_through(fl_ctx *c, fl_node *n, int in, int port) {
    const fl_tensor *t = fl_node_in(n, in);
    return fl__op_set_output(c, n, port, t->dtype, t->shape.rank, t->shape.dims);
}

fl_status fl__op_set_output_rank(fl_ctx *c, fl_node *n, int port, int dtype, int rank) {
    return fl__op_set_output(c, n, port, dtype, rank, NULL);
}

void fl__op_set_value(fl_node *n, int port, const fl_value *v) {
    if (port >= 0 && port < n->n_outputs) {
        n->outputs[port].value = v;
    }
}

fl_status fl__op_merge_dim(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, const char *what,
                           fl_sym *out) {
    if (fl_sym_is_unknown(a)) {
        *out = b;
        return FL_OK;
    }
    if (fl_sym_is_unknown(b)) {
        *out = a;
        return FL_OK;
    }
    if (fl_sym_is_known(a) && fl_sym_is_known(b) && a.k != b.k) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%s disagree: %lld vs %lld", what, (long long)a.k,
                             (long long)b.k);
    }
    /* Equal, or at least one symbolic: the two must be one size, so a
     * symbol among them is an alias of the other side (sym.h). Prefer a
     * known value, else the representative symbol. */
    fl_status st = fl__op_unify(c, n, a, b);
    *out = fl__sym_resolve(fl_sym_is_known(b) ? b : a);
    return st;
}

fl_status fl__op_unify(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b) {
    bool oom = false;
    fl__sym_alias(c->st, a, b, n ? n->name : "", &oom);
    return oom ? fl__diag_oom(c->d) : FL_OK;
}

fl_status fl__op_broadcast(fl_ctx *c, const fl_node *n, const fl_shape *a, const fl_shape *b,
                           fl_shape *out) {
    if (a->rank < 0 || b->rank < 0) {
        out->rank = -1;
        out->dims = NULL;
        return FL_OK;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    fl_sym *d = fl__arena_calloc(c->a, r ? (size_t)r : 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        fl_sym x = ia >= 0 ? a->dims[ia] : fl_sym_const(1);
        fl_sym y = ib >= 0 ? b->dims[ib] : fl_sym_const(1);
        if (fl_sym_is_known(x) && x.k == 1) {
            d[i] = y;
        } else if (fl_sym_is_known(y) && y.k == 1) {
            d[i] = x;
        } else if (fl_sym_is_known(x) && fl_sym_is_known(y)) {
            if (x.k != y.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "incompatible shapes for broadcasting: dim %d is %lld vs %lld",
                                     i, (long long)x.k, (long long)y.k);
            }
            d[i] = x;
        } else if (fl__sym_eq(x, y)) {
            d[i] = x;
        } else if (fl_sym_is_unknown(x) && !fl_sym_is_unknown(y)) {
            /* y is known (not 1) or symbolic: the result is y (x must be 1 or y). */
            d[i] = y;
        } else if (fl_sym_is_unknown(y) && !fl_sym_is_unknown(x)) {
            d[i] = x;
        } else if (fl_sym_is_known(x) && fl_sym_is_symbolic(y)) {
            d[i] = x; /* y must be 1 or x: the result is x either way */
        } else if (fl_sym_is_known(y) && fl_sym_is_symbolic(x)) {
            d[i] = y;
        } else {
            d[i] = fl_sym_unknown();
        }
    }
    out->rank = r;
    out->dims = d;
    return FL_OK;
}

fl_status fl__op_in_sym_vector(fl_ctx *c, const fl_node *n, int i, const fl_sym **out,
                               int64_t *n_out) {
    const fl_tensor *t = fl_node_in(n, i);
    const fl_value *v = t->value;
    if (!v) {
        return FL_ENOTFOUND;
    }
    if (!v->ints) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d must be an integer tensor, got %s", i,
                             fl__dtype_name(v->dtype));
    }
    if (v->rank > 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d must be a scalar or vector, got rank %d",
                             i, v->rank);
    }
    *out = v->ints;
    *n_out = v->n;
    return FL_OK;
}

fl_status fl__op_in_int_vector(fl_ctx *c, const fl_node *n, int i, int64_t **out, int64_t *n_out) {
    const fl_sym *s;
    int64_t len;
    fl_status st = fl__op_in_sym_vector(c, n, i, &s, &len);
    if (st != FL_OK) {
        return st;
    }
    for (int64_t k = 0; k < len; k++) {
        if (!fl_sym_is_known(s[k])) {
            return FL_ENOTFOUND;
        }
    }
    int64_t *r = fl__arena_calloc(c->a, len ? (size_t)len : 1, sizeof(int64_t));
    if (!r) {
        return fl__diag_oom(c->d);
    }
    for (int64_t k = 0; k < len; k++) {
        r[k] = s[k].k;
    }
    *out = r;
    *n_out = len;
    return FL_OK;
}

fl_status fl__op_data_format(fl_ctx *c, const fl_node *n, bool *channels_last) {
    const char *f;
    fl_status st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(f, "NHWC") == 0 || strcmp(f, "NDHWC") == 0 || strcmp(f, "NWC") == 0) {
        *channels_last = true;
    } else if (strcmp(f, "NCHW") == 0 || strcmp(f, "NCDHW") == 0 || strcmp(f, "NCW") == 0) {
        *channels_last = false;
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' has unsupported value '%s'",
                             f);
    }
    return FL_OK;
}

fl_status fl__op_window_out(fl_ctx *c, const fl_node *n, fl_sym in, int64_t k, int64_t stride,
                            int64_t dilation, const char *padding, int64_t pad_lo, int64_t pad_hi,
                            fl_sym *out) {
    if (stride <= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'strides' must be positive, got %lld",
                             (long long)stride);
    }
    if (dilation <= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'dilations' must be positive, got %lld",
                             (long long)dilation);
    }
    if (k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "negative window size %lld", (long long)k);
    }
    int64_t eff = 0; /* the dilated window, (k - 1) * dilation + 1; 0 for an empty one */
    fl_status st = FL_OK;
    if (k > 0 && (st = fl__op_ck(
                      c, n, fl_ck_add(fl_ck_mul(fl_ck_of(k - 1), fl_ck_of(dilation)), fl_ck_of(1)),
                      &eff, "window %lld with dilation %lld: (window - 1) * dilation + 1",
                      (long long)k, (long long)dilation)) != FL_OK) {
        return st;
    }
    fl_sym r;
    if (strcmp(padding, "SAME") == 0) {
        st = fl__op_ceildiv(c, n, in, fl_sym_const(stride), &r);
    } else if (strcmp(padding, "VALID") == 0) {
        fl_sym t;
        st = fl__op_sub(c, n, in, fl_sym_const(eff - 1), &t);
        if (st == FL_OK) {
            st = fl__op_ceildiv(c, n, t, fl_sym_const(stride), &r);
        }
    } else if (strcmp(padding, "EXPLICIT") == 0) {
        fl_sym t;
        int64_t off;
        st = fl__op_ck(
            c, n, fl_ck_sub(fl_ck_add(fl_ck_of(pad_lo), fl_ck_of(pad_hi)), fl_ck_of(eff)), &off,
            "pads %lld + %lld - window %lld", (long long)pad_lo, (long long)pad_hi, (long long)eff);
        if (st == FL_OK) {
            st = fl__op_add(c, n, in, fl_sym_const(off), &t);
        }
        if (st == FL_OK) {
            st = fl__op_floordiv(c, n, t, fl_sym_const(stride), &t);
        }
        if (st == FL_OK) {
            st = fl__op_add(c, n, t, fl_sym_const(1), &r);
        }
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'padding' has unsupported value '%s'",
                             padding);
    }
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(r) && r.k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "window of %lld (dilated %lld) does not fit input size %lld with "
                             "padding %s",
                             (long long)k, (long long)eff, (long long)in.k, padding);
    }
    *out = r;
    return FL_OK;
}

/* Output `port`'s tensor when its shape is concrete and at most
 * c->max_value_elems elements (its dims then in dims[64]), else NULL. */
static const fl_tensor *value_dims(fl_ctx *c, fl_node *n, int port, int64_t *dims) {
    if (port < 0 || port >= n->n_outputs) {
        return NULL;
    }
    const fl_tensor *t = &n->outputs[port];
    if (!fl__shape_is_concrete(&t->shape)) {
        return NULL;
    }
    int64_t cnt = 1;
    if (t->shape.rank > 64) {
        return NULL;
    }
    for (int i = 0; i < t->shape.rank; i++) {
        dims[i] = t->shape.dims[i].k;
        if (dims[i] && cnt > c->max_value_elems / (dims[i] ? dims[i] : 1)) {
            return NULL;
        }
        cnt *= dims[i];
    }
    return cnt > c->max_value_elems ? NULL : t;
}

fl_value *fl__op_new_value(fl_ctx *c, fl_node *n, int port) {
    int64_t dims[64];
    const fl_tensor *t = value_dims(c, n, port, dims);
    if (!t) {
        return NULL;
    }
    fl_value *v = fl__value_new(c->a, t->dtype, t->shape.rank, dims);
    if (!v && c->a->failed) {
        fl__diag_oom(c->d);
    }
    return v;
}

fl_value *fl__op_reshaped_value(fl_ctx *c, fl_node *n, int port, const fl_value *src) {
    int64_t dims[64];
    const fl_tensor *t = value_dims(c, n, port, dims);
    if (!t || fl_dtype_base(t->dtype) != fl_dtype_base(src->dtype)) {
        return NULL;
    }
    fl_value *v = fl__value_reshaped(c->a, src, t->shape.rank, dims);
    if (!v && c->a->failed) {
        fl__diag_oom(c->d);
    }
    return v;
}

/* ------------------------------------------------------------------------- */
/* Sticky arithmetic                                                          */
/* ------------------------------------------------------------------------- */

fl_sym fl__ar_reduce_ops(fl_arith *k, fl_sym ein, int64_t m, fl_sym eout) {
    if (fl_sym_is_known(ein) && ein.k == 0) {
        return fl_sym_const(0);
    }
    return fl__ar_add(k, fl__ar_scale(k, ein, m), fl__ar_scale(k, eout, -1));
}

fl_sym fl__ar_add(fl_arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_add(k->c, k->n, a, b, &r);
    }
    return r;
}

fl_sym fl__ar_sub(fl_arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_sub(k->c, k->n, a, b, &r);
    }
    return r;
}

fl_sym fl__ar_mul(fl_arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (k->st == FL_OK) {
        k->st = fl__op_mul(k->c, k->n, a, b, &r);
    }
    return r;
}

fl_sym fl__ar_int_prod(fl_arith *k, const int64_t *v, size_t cnt) {
    fl_sym acc = fl_sym_const(1);
    for (size_t i = 0; i < cnt; i++) {
        acc = fl__ar_mul(k, acc, fl_sym_const(v[i]));
    }
    return acc;
}

fl_sym fl__ar_scale(fl_arith *k, fl_sym a, int64_t m) {
    return fl__ar_mul(k, a, fl_sym_const(m));
}

fl_sym fl__ar_numel(fl_arith *k, const fl_shape *s) {
    return s->rank < 0 ? fl_sym_unknown() : fl__ar_dims_prod(k, s, 0, s->rank);
}

fl_sym fl__ar_dims_prod(fl_arith *k, const fl_shape *s, int from, int to) {
    fl_sym r = fl_sym_unknown();
    if (k->st != FL_OK || s->rank < 0 || from < 0 || to > s->rank || from > to) {
        return r;
    }
    /* The dims [from, to) as a shape of their own: fl__op_num_elements
     * multiplies the known ones as integers and a lone symbolic one once. */
    const fl_shape part = {.rank = to - from, .dims = s->dims + from};
    k->st = fl__op_num_elements(k->c, k->n, &part, &r);
    return k->st == FL_OK ? r : fl_sym_unknown();
}

fl_status fl__ar_put_cost(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym macs) {
    return fl__ar_put_cost_tf(k, out, flops, fl_sym_const(0), macs, false);
}

fl_status fl__ar_put_cost_tf(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym tfprof, fl_sym macs,
                             bool tfprof_rule) {
    if (k->st != FL_OK) {
        return k->st;
    }
    out->has_rule = true;
    out->tfprof_rule = tfprof_rule;
    if (fl_sym_is_unknown(flops) || fl_sym_is_unknown(tfprof) || fl_sym_is_unknown(macs)) {
        out->incomplete = true;
        out->flops = out->tfprof_flops = out->macs = fl_sym_const(0);
        return FL_OK;
    }
    out->flops = flops;
    out->tfprof_flops = tfprof;
    out->macs = macs;
    return FL_OK;
}

void fl__ar_no_rule(fl_cost *out) {
    out->has_rule = false;
    out->tfprof_rule = false;
    out->flops = out->tfprof_flops = out->macs = fl_sym_const(0);
}

fl_status fl__ar_put_int_cost(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym macs,
                              fl_sym int_ops) {
    fl_status st = fl__ar_put_cost(k, out, flops, macs);
    if (st != FL_OK || out->incomplete) {
        return st;
    }
    if (fl_sym_is_unknown(int_ops)) {
        out->incomplete = true;
        out->flops = out->macs = out->int_ops = fl_sym_const(0);
        return FL_OK;
    }
    out->int_ops = int_ops;
    return FL_OK;
}
