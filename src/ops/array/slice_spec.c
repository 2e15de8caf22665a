/*
 * slice_spec.c - StridedSlice's spec, as TensorFlow's BuildDenseSpec and
 * ValidateStridedSliceOp: masks, ellipsis, new axes, shrink, negative
 * indices, clamping. On a symbolic dim D, a non-negative index i <= 64 is
 * taken as i (D is assumed to be at least that long), a negative index -i
 * with i <= 64 as D - i, and larger indices as min/max expressions, exact.
 * So x[0:1] has length 1, x[1:-1] has length D - 2 and x[::2] has length
 * ceil(D/2). Used by StridedSlice (slice.c) and by the partial shape vectors
 * (shape_vector.c).
 */
#include "ops/array/array.h"

#include <stdint.h>

/* StridedSlice on a symbolic dim: indices up to this size are assumed in range. */
#define SS_SMALL 64

fl_status fl__array_ss_read_masks(fl_ctx *c, const fl_node *n, ss_masks *m) {
    static const char *const names[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask"};
    uint64_t *dst[5] = {&m->begin, &m->end, &m->ellipsis, &m->new_axis, &m->shrink};
    for (int i = 0; i < 5; i++) {
        int64_t v;
        fl_status st = fl__attr_int_or(n, names[i], 0, &v, c->d);
        if (st != FL_OK) {
            return st;
        }
        *dst[i] = (uint64_t)v & 0xffffffffu; /* int32 in TensorFlow */
    }
    return FL_OK;
}

/* Builds the dense spec. begin/end may be NULL (value unknown) and their
 * elements may be symbolic or unknown; strides are known. */
fl_status fl__array_ss_build(fl_ctx *c, const fl_node *n, int rank, int64_t k, const fl_sym *begin,
                             const fl_sym *end, const fl_sym *strides, const ss_masks *m,
                             ss_plan *pl) {
    if (k > 31) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'strides' has %lld entries; at most 31 are supported",
                             (long long)k);
    }
    uint64_t ell = m->ellipsis;
    if (ell & (ell - 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'ellipsis_mask' has more than one bit set: multiple ellipses "
                             "in slice spec not allowed");
    }
    int64_t add_after = 0;
    bool seen = false;
    for (int64_t i = 0; i < k; i++) {
        if (seen && ((m->new_axis >> i) & 1)) {
            add_after++;
        }
        if ((ell >> i) & 1) {
            seen = true;
        }
    }
    int64_t kk = k;
    if (!seen) {
        ell |= (uint64_t)1 << k;
        kk = k + 1;
    }
    pl->rank = rank;
    pl->dim = fl__array_alloc_n(c, rank, sizeof(ss_dim));
    pl->final = fl__array_alloc_n(c, kk + rank, sizeof(int));
    pl->n_final = 0;
    if (!pl->dim || !pl->final) {
        return fl__diag_oom(c->d);
    }
    int full = 0;
    for (int64_t i = 0; i < kk; i++) {
        if ((ell >> i) & 1) {
            int64_t next = (int64_t)rank - (kk - i) + 1 + add_after;
            if (next > rank) {
                next = rank;
            }
            for (; full < next; full++) {
                ss_dim *d = &pl->dim[full];
                d->b = d->e = 0;
                d->s = 1;
                d->have_b = d->have_e = true;
                d->bm = d->em = true;
                d->shrink = false;
                pl->final[pl->n_final++] = full;
            }
        } else if ((m->new_axis >> i) & 1) {
            pl->final[pl->n_final++] = -1;
        } else {
            if (full == rank) {
                if (rank == 0) {
                    return fl__node_fail(c->d, FL_EINVAL, n, "attempting to slice scalar input");
                }
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "index out of range using input dim %d; input has only %d "
                                     "dims",
                                     full, rank);
            }
            ss_dim *d = &pl->dim[full];
            d->s = strides[i].k;
            d->bm = (m->begin >> i) & 1;
            d->em = (m->end >> i) & 1;
            d->shrink = (m->shrink >> i) & 1;
            d->have_b = begin && fl_sym_is_known(begin[i]);
            d->b = d->have_b ? begin[i].k : 0;
            d->have_e = end && fl_sym_is_known(end[i]);
            d->e = d->have_e ? end[i].k : 0;
            if (!d->shrink) {
                pl->final[pl->n_final++] = full;
            }
            full++;
        }
    }
    /* Dense dims the spec did not reach keep stride 0, as in TensorFlow. */
    for (int i = 0; i < rank; i++) {
        if (pl->dim[i].s == 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'strides': strides[%d] must be non-zero", i);
        }
    }
    return FL_OK;
}

/* A dense dim of known size D: first source index and length. *ok is false
 * when begin or end is not known (the length is then unknown, except for a
 * shrunk axis: *size = 1 with *ok false). */
fl_status fl__array_ss_known(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, int64_t D,
                             int64_t *start, int64_t *size, bool *ok) {
    *ok = false;
    *start = 0;
    *size = -1;
    if (d->shrink) {
        if (d->s <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'strides': only stride 1 allowed on non-range indexing "
                                 "(dimension %d)",
                                 i);
        }
        *size = 1;
        if (!d->have_b) {
            return FL_OK;
        }
        int64_t x = d->b < 0 ? D + d->b : d->b;
        if (x < 0 || x >= D) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'begin': slice index %lld of dimension %d out of bounds "
                                 "(size %lld)",
                                 (long long)d->b, i, (long long)D);
        }
        *start = x;
        *ok = true;
        return FL_OK;
    }
    if (!(d->have_b || d->bm) || !(d->have_e || d->em)) {
        return FL_OK;
    }
    int64_t lo = d->s > 0 ? 0 : -1, hi = d->s > 0 ? D : D - 1;
    int64_t b, e;
    if (d->bm) {
        b = d->s > 0 ? lo : hi;
    } else {
        b = d->b < 0 ? D + d->b : d->b;
        b = b < lo ? lo : b > hi ? hi : b;
    }
    if (d->em) {
        e = d->s > 0 ? hi : lo;
    } else {
        e = d->e < 0 ? D + d->e : d->e;
        e = e < lo ? lo : e > hi ? hi : e;
    }
    int64_t len = e - b;
    if (len == 0 || ((len < 0) != (d->s < 0))) {
        *size = 0;
    } else {
        *size = len / d->s + (len % d->s != 0 ? 1 : 0);
    }
    *start = b;
    *ok = true;
    return FL_OK;
}

/* One bound of a dense dim of symbolic size D (see the file comment). */
static fl_status ss_canon_sym(fl_ctx *c, const fl_node *n, bool masked, int64_t x, bool is_end,
                              int64_t s, fl_sym D, fl_sym *out, bool *exact) {
    fl_sym Dm1;
    fl_status st = fl__op_sub(c, n, D, fl_sym_const(1), &Dm1);
    if (st != FL_OK) {
        return st;
    }
    if (masked) {
        if (s > 0) {
            *out = is_end ? D : fl_sym_const(0);
        } else {
            *out = is_end ? fl_sym_const(-1) : Dm1;
        }
        return FL_OK;
    }
    if (x >= 0) {
        if (x <= SS_SMALL) {
            *out = fl_sym_const(x);
            return FL_OK;
        }
        *exact = true;
        return fl__array_s_min(c, n, fl_sym_const(x), s > 0 ? D : Dm1, out);
    }
    fl_sym t;
    if ((st = fl__op_add(c, n, D, fl_sym_const(x), &t)) != FL_OK) {
        return st;
    }
    if (x >= -SS_SMALL) {
        *out = t;
        return FL_OK;
    }
    *exact = true;
    return fl__array_s_max(c, n, t, fl_sym_const(s > 0 ? 0 : -1), out);
}

/* Length of a dense dim of size D (known, symbolic or unknown). */
fl_status fl__array_ss_dim_size(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, fl_sym D,
                                fl_sym *size) {
    *size = fl_sym_unknown();
    if (fl_sym_is_known(D)) {
        int64_t start, len;
        bool ok;
        fl_status st = fl__array_ss_known(c, n, i, d, D.k, &start, &len, &ok);
        if (st != FL_OK) {
            return st;
        }
        if (len >= 0) {
            *size = fl_sym_const(len);
        }
        return FL_OK;
    }
    if (d->shrink) {
        *size = fl_sym_const(1);
        return FL_OK;
    }
    if (fl_sym_is_unknown(D) || !(d->have_b || d->bm) || !(d->have_e || d->em)) {
        return FL_OK;
    }
    bool exact = false;
    fl_sym b, e, len;
    fl_status st = ss_canon_sym(c, n, d->bm, d->b, false, d->s, D, &b, &exact);
    if (st == FL_OK) {
        st = ss_canon_sym(c, n, d->em, d->e, true, d->s, D, &e, &exact);
    }
    if (st == FL_OK) {
        st = d->s > 0 ? fl__op_sub(c, n, e, b, &len) : fl__op_sub(c, n, b, e, &len);
    }
    if (st != FL_OK) {
        return st;
    }
    if (d->s == INT64_MIN) {
        return FL_OK;
    }
    int64_t as = d->s > 0 ? d->s : -d->s;
    if (fl_sym_is_known(len)) {
        *size = fl_sym_const(len.k <= 0 ? 0 : len.k / as + (len.k % as != 0 ? 1 : 0));
        return FL_OK;
    }
    if (exact && (st = fl__array_s_max(c, n, len, fl_sym_const(0), &len)) != FL_OK) {
        return st;
    }
    return fl__op_ceildiv(c, n, len, fl_sym_const(as), size);
}
