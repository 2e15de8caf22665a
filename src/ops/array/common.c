/*
 * common.c - functions the array family's files share (array.h): attr and
 * input readers, symbolic division, the known-rank outputs, and the
 * evaluation machinery (a fresh output value, element copies, index maps).
 */
#include "ops/array/array.h"

#include <string.h>

void *fl__array_alloc_n(fl_ctx *c, int64_t count, size_t size) {
    return fl__arena_calloc(c->a, (size_t)(count > 0 ? count : 1), size);
}

fl_sym *fl__array_alloc_syms(fl_ctx *c, int64_t count) {
    fl_sym *s = fl__array_alloc_n(c, count, sizeof(fl_sym));
    if (s) {
        for (int64_t i = 0; i < count; i++) {
            s[i] = fl_sym_unknown();
        }
    }
    return s;
}

bool fl__array_is_known(fl_sym s, int64_t k) {
    return fl_sym_is_known(s) && s.k == k;
}

/* An index-type attr (out_type, index_type): int32 (default) or int64. */
fl_status fl__array_index_type_attr(fl_ctx *c, const fl_node *n, const char *attr, int *dt) {
    fl_status st = fl__attr_get_type(n, attr, dt, c->d);
    if (st == FL_ENOTFOUND) {
        *dt = FL_DT_INT32;
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (*dt != FL_DT_INT32 && *dt != FL_DT_INT64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' must be int32 or int64, got %s", attr,
                             fl__dtype_name(*dt));
    }
    return FL_OK;
}

static fl_status sym_fail(fl_ctx *c, const fl_node *n, fl_status st) {
    if (st == FL_ENOMEM) {
        return fl__diag_oom(c->d);
    }
    return fl__node_fail(c->d, st, n, "dimension arithmetic failed: %s", fl_status_str(st));
}

fl_status fl__array_s_min(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    fl_status st = fl__sym_min(c->st, a, b, out);
    return st == FL_OK ? FL_OK : sym_fail(c, n, st);
}

fl_status fl__array_s_max(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    fl_status st = fl__sym_max(c->st, a, b, out);
    return st == FL_OK ? FL_OK : sym_fail(c, n, st);
}

/* a / b when exact (*exact), else *out unknown. b must not be a known 0. */
fl_status fl__array_s_div(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out,
                          bool *exact) {
    *exact = false;
    *out = fl_sym_unknown();
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b) || fl__array_is_known(b, 0)) {
        return FL_OK;
    }
    fl_sym q;
    fl_status st = fl__sym_div(c->st, a, b, &q, exact);
    if (st != FL_OK) {
        return sym_fail(c, n, st);
    }
    if (*exact) {
        *out = q;
    }
    return FL_OK;
}

/* Input i's value when it holds integers (any rank), else NULL. */
const fl_value *fl__array_int_value(const fl_node *n, int i) {
    if (i < 0 || i >= n->n_inputs) {
        return NULL;
    }
    const fl_value *v = fl_op_in_value(n, i);
    return (v && v->ints) ? v : NULL;
}

/* Input i as a one-element integer (scalar or [1]), possibly symbolic. */
bool fl__array_scalar_sym(const fl_node *n, int i, fl_sym *out) {
    const fl_value *v = fl__array_int_value(n, i);
    if (!v || v->n != 1 || fl_sym_is_unknown(v->ints[0])) {
        return false;
    }
    *out = v->ints[0];
    return true;
}

bool fl__array_known_scalar(const fl_node *n, int i, int64_t *out) {
    fl_sym s;
    if (!fl__array_scalar_sym(n, i, &s) || !fl_sym_is_known(s)) {
        return false;
    }
    *out = s.k;
    return true;
}

/* Input i as a scalar or vector of known integers. */
bool fl__array_known_vec(const fl_node *n, int i, const fl_sym **out, int64_t *len) {
    const fl_value *v = fl__array_int_value(n, i);
    if (!v || v->rank > 1) {
        return false;
    }
    for (int64_t k = 0; k < v->n; k++) {
        if (!fl_sym_is_known(v->ints[k])) {
            return false;
        }
    }
    *out = v->ints;
    *len = v->n;
    return true;
}

/* Length of the 1-D tensor feeding input i when known (from its value or
 * shape), else -1. */
int64_t fl__array_vec_len(const fl_node *n, int i) {
    if (i >= n->n_inputs) {
        return -1;
    }
    const fl_tensor *t = fl_node_in(n, i);
    if (t->value && t->value->rank <= 1) {
        return t->value->n;
    }
    if (t->shape.rank == 1 && fl_sym_is_known(t->shape.dims[0])) {
        return t->shape.dims[0].k;
    }
    if (t->shape.rank == 0) {
        return 1;
    }
    return -1;
}

const fl_value *fl__array_vec_value(const fl_node *n, int i) {
    const fl_value *v = fl__array_int_value(n, i);
    return v && v->rank <= 1 ? v : NULL;
}

/* Fails when input i has a known rank above 1 (WithRankAtMost 1). */
fl_status fl__array_want_vector(fl_ctx *c, const fl_node *n, int i, const char *name) {
    int r = fl__op_in_shape(n, i)->rank;
    if (r > 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be a vector, got rank %d", name,
                             r);
    }
    return FL_OK;
}

/* Output `port`: known rank with unknown dims, or unknown rank when r < 0. */
fl_status fl__array_set_rank(fl_ctx *c, fl_node *n, int port, int dt, int64_t r) {
    if (r < 0 || r > MAX_RANK) {
        return fl__op_set_output(c, n, port, dt, -1, NULL);
    }
    return fl__op_set_output_rank(c, n, port, dt, (int)r);
}

fl_status fl__array_set_all_rank(fl_ctx *c, fl_node *n, int dt, int64_t r) {
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st = fl__array_set_rank(c, n, k, dt, r);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* Merges two descriptions of one dim; known values that differ fail. */
fl_status fl__array_merge(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, const char *what,
                          int dim, fl_sym *out) {
    if (fl_sym_is_known(a) && fl_sym_is_known(b) && a.k != b.k) {
        return fl__node_fail(c->d, FL_EINVAL, n, "dimension %d of %s disagrees: %lld vs %lld", dim,
                             what, (long long)a.k, (long long)b.k);
    }
    if (fl_sym_is_unknown(a)) {
        *out = b;
    } else if (fl_sym_is_unknown(b) || !fl_sym_is_known(b)) {
        *out = a;
    } else {
        *out = b;
    }
    fl_status st = fl__op_unify(c, n, a, b);
    *out = fl__sym_resolve(*out);
    return st;
}

int fl__array_count_attr(const fl_node *n, fl_diag *d, const char *name, int64_t min) {
    int64_t k;
    if (fl__attr_need_int(n, name, &k, d) != FL_OK) {
        return -1;
    }
    if (k < min || k > MAX_OUTPUTS) {
        fl__node_fail(d, FL_EINVAL, n, "attr '%s' is %lld; it must be in [%lld, %d]", name,
                      (long long)k, (long long)min, MAX_OUTPUTS);
        return -1;
    }
    return (int)k;
}

bool fl__array_usable(const fl_value *v) {
    return v && (v->ints || v->raw);
}

/* A fresh value for output `port` of the same storage as `like` (when given),
 * or NULL (with *st the failure, FL_OK when there is simply no value). */
fl_value *fl__array_out_value(fl_ctx *c, fl_node *n, int port, const fl_value *like,
                              fl_status *st) {
    *st = FL_OK;
    if (port < 0 || port >= n->n_outputs || (like && !fl__array_usable(like))) {
        return NULL;
    }
    fl_value *v = fl__op_new_value(c, n, port);
    if (!v) {
        *st = c->d->status;
        return NULL;
    }
    if (!v->ints && !v->raw) {
        return NULL;
    }
    if (like &&
        (fl_dtype_base(v->dtype) != fl_dtype_base(like->dtype) || !v->ints != !like->ints)) {
        return NULL;
    }
    return v;
}

void fl__array_copy_elems(fl_value *dst, int64_t di, const fl_value *src, int64_t si, int64_t cnt) {
    if (cnt <= 0) {
        return;
    }
    if (dst->ints) {
        memcpy((fl_sym *)dst->ints + di, src->ints + si, (size_t)cnt * sizeof(fl_sym));
    } else {
        size_t es = fl__dtype_size(dst->dtype);
        memcpy((unsigned char *)dst->raw + (size_t)di * es,
               (const unsigned char *)src->raw + (size_t)si * es, (size_t)cnt * es);
    }
}

static void set_zero(fl_value *dst, int64_t di) {
    if (dst->ints) {
        ((fl_sym *)dst->ints)[di] = fl_sym_const(0);
    } else {
        size_t es = fl__dtype_size(dst->dtype);
        memset((unsigned char *)dst->raw + (size_t)di * es, 0, es);
    }
}

/* Product of dims[from:to] of a value; -1 on overflow. */
int64_t fl__array_prod(const int64_t *dims, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) {
        if (dims[i] != 0 && p > INT64_MAX / dims[i]) {
            return -1;
        }
        p *= dims[i];
    }
    return p;
}

int64_t *fl__array_row_strides(fl_ctx *c, int rank, const int64_t *dims) {
    int64_t *s = fl__array_alloc_n(c, rank, sizeof(int64_t));
    if (!s) {
        return NULL;
    }
    int64_t acc = 1;
    for (int i = rank - 1; i >= 0; i--) {
        s[i] = acc;
        acc *= dims[i];
    }
    return s;
}

int64_t **fl__array_alloc_maps(fl_ctx *c, int rank, const int64_t *dims) {
    int64_t **maps = fl__array_alloc_n(c, rank, sizeof(int64_t *));
    if (!maps) {
        return NULL;
    }
    for (int i = 0; i < rank; i++) {
        maps[i] = fl__array_alloc_n(c, dims[i], sizeof(int64_t));
        if (!maps[i]) {
            return NULL;
        }
    }
    return maps;
}

/* Fills dst in order by walking the index space `dims`: element j takes
 * src[sum_i maps[i][o_i] * strides[i]], or the pad element (pad's element 0;
 * NULL: zero) when some map entry is negative. FL_ENOTFOUND when the index
 * space does not match dst. */
fl_status fl__array_fill_mapped(fl_ctx *c, fl_value *dst, const fl_value *src, int rank,
                                const int64_t *dims, int64_t *const *maps, const int64_t *strides,
                                const fl_value *pad) {
    int64_t total = fl__array_prod(dims, 0, rank);
    if (total != dst->n) {
        return FL_ENOTFOUND;
    }
    if (total == 0) {
        return FL_OK;
    }
    int64_t *ctr = fl__array_alloc_n(c, rank, sizeof(int64_t));
    if (!ctr) {
        return fl__diag_oom(c->d);
    }
    for (int64_t j = 0; j < total; j++) {
        int64_t off = 0;
        bool padded = false;
        for (int i = 0; i < rank; i++) {
            int64_t m = maps[i][ctr[i]];
            if (m < 0) {
                padded = true;
            } else {
                off += m * strides[i];
            }
        }
        if (padded) {
            if (pad) {
                fl__array_copy_elems(dst, j, pad, 0, 1);
            } else {
                set_zero(dst, j);
            }
        } else if (off >= 0 && off < src->n) {
            fl__array_copy_elems(dst, j, src, off, 1);
        } else {
            return FL_ENOTFOUND;
        }
        for (int i = rank - 1; i >= 0; i--) {
            if (++ctr[i] < dims[i]) {
                break;
            }
            ctr[i] = 0;
        }
    }
    return FL_OK;
}

/* Attaches v to output `port` after a fill that returned st. */
fl_status fl__array_finish(fl_node *n, int port, fl_value *v, fl_status st) {
    if (st == FL_OK) {
        fl__op_set_value(n, port, v);
    }
    return st == FL_ENOTFOUND ? FL_OK : st;
}

/* Output 0 := input 0's elements in order (Reshape, Squeeze, ExpandDims). */
fl_status fl__array_eval_copy(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    if (v->n != src->n) {
        return FL_OK;
    }
    fl__array_copy_elems(v, 0, src, 0, v->n);
    fl__op_set_value(n, 0, v);
    return FL_OK;
}
