/*
 * array.c - the "array" op family: shape metadata (Shape, ShapeN, Size,
 * Rank), data movement (Reshape, Squeeze, ExpandDims, Transpose, ConcatV2,
 * ConjugateTranspose, Concat, Pack, Unpack, Split, SplitV, Slice,
 * StridedSlice, Gather, GatherV2, GatherNd, Pad, PadV2, MirrorPad, Tile,
 * Fill, Range, BroadcastTo,
 * BroadcastArgs, OneHot, SparseToDense, ReverseV2, SpaceToBatchND,
 * BatchToSpaceND) and data-dependent selection (Where, TopKV2,
 * NonMaxSuppressionV3/V4/V5).
 *
 * Shapes follow TensorFlow's shape functions, with exact symbolic dims:
 *  - Shape/ShapeN/Size/Rank set their output VALUE during inference when the
 *    input's shape is determined (symbolic dims become symbolic elements), so
 *    that Shape -> StridedSlice -> Pack -> Reshape chains resolve.
 *  - Ops that read a shape from a tensor (Reshape, Fill, BroadcastTo,
 *    SparseToDense) accept a partially known shape vector: besides a known
 *    value they look through Shape, ShapeN, Pack of scalars, ConcatV2 of
 *    vectors, 1-D StridedSlice, Cast and Identity (TensorFlow's "shape
 *    tensor" inference), so [?, 7, 7, 64] -> Reshape([batch, -1]) still gives
 *    [?, 3136]. Pad/MirrorPad paddings computed as Reshape(vector, [r, 2])
 *    keep their known entries the same way.
 *  - Reshape resolves one -1 by exact division (total / product of the other
 *    dims); a known non-divisible case fails. A 0 in the shape means 0.
 *  - StridedSlice implements TensorFlow's full sparse-to-dense spec (masks,
 *    ellipsis, new axes, shrink, negative indices, clamping). On a symbolic
 *    dim D, a non-negative index i <= 64 is taken as i (D is assumed to be at
 *    least that long), a negative index -i with i <= 64 as D - i, and larger
 *    indices as min/max expressions, exact. So x[0:1] has length 1,
 *    x[1:-1] has length D - 2 and x[::2] has length ceil(D/2).
 *  - Squeeze without squeeze_dims drops the dims known to be 1; a symbolic dim
 *    is assumed not to be 1; an unknown dim gives unknown rank (as TF).
 *  - Where: [num_true, rank]; num_true is counted when the input value is
 *    known, else unknown. NonMaxSuppression*: the selected count is unknown
 *    unless pad_to_max_output_size (V4, V5) makes it max_output_size.
 *
 * eval: every data-movement op whose result is needed by shape subgraphs
 * (Reshape, Squeeze, ExpandDims, Transpose, ConcatV2, Concat, Pack, Unpack,
 * Split, SplitV, Slice, StridedSlice, Gather, GatherV2, GatherNd, Pad, PadV2,
 * MirrorPad, Tile, Fill, Range, BroadcastTo, BroadcastArgs, ReverseV2, Where,
 * SparseToDense) computes its output value for any dtype: integer/bool
 * elements are copied as fl_sym (symbolic elements are carried),
 * floating-point ones byte for byte. Range computes its elements (integers: start + i*delta,
 * symbolic start allowed; floats: accumulated in the dtype as TF's kernel does).
 * Shape/ShapeN/Size/Rank values come from infer.
 *
 * FLOP rules ("complete" convention). tfprof registers none of these ops:
 * tfprof_flops is always 0 and tfprof_rule false. No op here has MACs.
 *  - Shape, ShapeN, Size, Rank: 0 FLOPs, has_rule true (metadata only).
 *  - Data movement (Reshape, Squeeze, ExpandDims, Transpose, ConcatV2, Concat,
 *    Pack, Unpack, Split, SplitV, Slice, StridedSlice, Gather, GatherV2,
 *    GatherNd, Pad, PadV2, MirrorPad, Tile, Fill, Range, BroadcastTo,
 *    BroadcastArgs, OneHot, SparseToDense, ReverseV2, SpaceToBatchND,
 *    BatchToSpaceND): 0 FLOPs, has_rule true. They copy, index or generate
 *    elements without arithmetic on them; 0 is the real count (their cost is
 *    bytes, counted elsewhere). Range's and OneHot's index arithmetic is
 *    counted as 0, as Grappler does.
 *  - Where: E(input) FLOPs, one comparison with zero per input element.
 *  - TopKV2: E(input) FLOPs, one comparison per input element (a lower bound
 *    of the selection work; Grappler's element-wise count for TopKV2).
 *  - NonMaxSuppressionV3/V4/V5: no rule (NULL cost: 0 FLOPs, has_rule false):
 *    the pairwise IoU work depends on the data.
 */
#include "ops/common.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Outputs a count_outputs hook accepts (num_split, num, N). */
#define MAX_OUTPUTS (1 << 20)
/* Ranks larger than this, read from a tensor's length, are treated as unknown. */
#define MAX_RANK 1024
/* StridedSlice on a symbolic dim: indices up to this size are assumed in range. */
#define SS_SMALL 64
/* Partial shape vectors: how far back producers are followed, and how long. */
#define PV_DEPTH   16
#define PV_MAX_LEN 4096

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static void *alloc_n(fl_ctx *c, int64_t count, size_t size) {
    return fl__arena_calloc(c->a, (size_t)(count > 0 ? count : 1), size);
}

static fl_sym *alloc_syms(fl_ctx *c, int64_t count) {
    fl_sym *s = alloc_n(c, count, sizeof(fl_sym));
    if (s) {
        for (int64_t i = 0; i < count; i++) {
            s[i] = fl_sym_unknown();
        }
    }
    return s;
}

static bool is_known(fl_sym s, int64_t k) {
    return fl_sym_is_known(s) && s.k == k;
}

/* Output dtype: attr `attr`, or (absent) the dtype of input `in`. */
static fl_status dtype_attr(fl_ctx *c, const fl_node *n, const char *attr, int in, int *dt) {
    fl_status st = fl__attr_get_type(n, attr, dt, c->d);
    if (st == FL_ENOTFOUND) {
        *dt = (in >= 0 && in < n->n_inputs) ? (int)fl_node_in(n, in)->dtype : FL_DT_INVALID;
        return FL_OK;
    }
    return st;
}

/* An index-type attr (out_type, index_type): int32 (default) or int64. */
static fl_status index_type_attr(fl_ctx *c, const fl_node *n, const char *attr, int *dt) {
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

static fl_status s_min(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    fl_status st = fl__sym_min(c->st, a, b, out);
    return st == FL_OK ? FL_OK : sym_fail(c, n, st);
}

static fl_status s_max(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out) {
    fl_status st = fl__sym_max(c->st, a, b, out);
    return st == FL_OK ? FL_OK : sym_fail(c, n, st);
}

/* a / b when exact (*exact), else *out unknown. b must not be a known 0. */
static fl_status s_div(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out, bool *exact) {
    *exact = false;
    *out = fl_sym_unknown();
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b) || is_known(b, 0)) {
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

/* Input i's value when it holds integers (any rank), else NULL. */
static const fl_value *int_value(const fl_node *n, int i) {
    if (i < 0 || i >= n->n_inputs) {
        return NULL;
    }
    const fl_value *v = fl_op_in_value(n, i);
    return (v && v->ints) ? v : NULL;
}

/* Input i as a one-element integer (scalar or [1]), possibly symbolic. */
static bool scalar_sym(const fl_node *n, int i, fl_sym *out) {
    const fl_value *v = int_value(n, i);
    if (!v || v->n != 1 || fl_sym_is_unknown(v->ints[0])) {
        return false;
    }
    *out = v->ints[0];
    return true;
}

static bool known_scalar(const fl_node *n, int i, int64_t *out) {
    fl_sym s;
    if (!scalar_sym(n, i, &s) || !fl_sym_is_known(s)) {
        return false;
    }
    *out = s.k;
    return true;
}

/* Input i as a scalar or vector of known integers. */
static bool known_vec(const fl_node *n, int i, const fl_sym **out, int64_t *len) {
    const fl_value *v = int_value(n, i);
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
static int64_t vec_len(const fl_node *n, int i) {
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

/* Fails when input i has a known rank above 1 (WithRankAtMost 1). */
static fl_status want_vector(fl_ctx *c, const fl_node *n, int i, const char *name) {
    int r = fl__op_in_shape(n, i)->rank;
    if (r > 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be a vector, got rank %d", name,
                             r);
    }
    return FL_OK;
}

/* Output `port`: known rank with unknown dims, or unknown rank when r < 0. */
static fl_status set_rank(fl_ctx *c, fl_node *n, int port, int dt, int64_t r) {
    if (r < 0 || r > MAX_RANK) {
        return fl__op_set_output(c, n, port, dt, -1, NULL);
    }
    return fl__op_set_output_rank(c, n, port, dt, (int)r);
}

static fl_status set_all_rank(fl_ctx *c, fl_node *n, int dt, int64_t r) {
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st = set_rank(c, n, k, dt, r);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* Merges two descriptions of one dim; known values that differ fail. */
static fl_status merge(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, const char *what, int dim,
                       fl_sym *out) {
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
    return FL_OK;
}

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

/* ------------------------------------------------------------------------- */
/* StridedSlice spec (TensorFlow's BuildDenseSpec / ValidateStridedSliceOp)   */
/* ------------------------------------------------------------------------- */

typedef struct ss_dim {
    int64_t b, e, s;     /* begin, end (when have_b/have_e), stride */
    bool have_b, have_e; /* known integer given */
    bool bm, em, shrink; /* begin/end masked, shrink axis */
} ss_dim;

typedef struct ss_plan {
    int rank;    /* input (dense) rank */
    ss_dim *dim; /* rank entries */
    int n_final;
    int *final; /* final output axis -> dense dim, or -1 for a new axis */
} ss_plan;

typedef struct ss_masks {
    uint64_t begin, end, ellipsis, new_axis, shrink;
} ss_masks;

static fl_status ss_read_masks(fl_ctx *c, const fl_node *n, ss_masks *m) {
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
static fl_status ss_build(fl_ctx *c, const fl_node *n, int rank, int64_t k, const fl_sym *begin,
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
    pl->dim = alloc_n(c, rank, sizeof(ss_dim));
    pl->final = alloc_n(c, kk + rank, sizeof(int));
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
static fl_status ss_known(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, int64_t D,
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
        return s_min(c, n, fl_sym_const(x), s > 0 ? D : Dm1, out);
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
    return s_max(c, n, t, fl_sym_const(s > 0 ? 0 : -1), out);
}

/* Length of a dense dim of size D (known, symbolic or unknown). */
static fl_status ss_dim_size(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, fl_sym D,
                             fl_sym *size) {
    *size = fl_sym_unknown();
    if (fl_sym_is_known(D)) {
        int64_t start, len;
        bool ok;
        fl_status st = ss_known(c, n, i, d, D.k, &start, &len, &ok);
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
    if (exact && (st = s_max(c, n, len, fl_sym_const(0), &len)) != FL_OK) {
        return st;
    }
    return fl__op_ceildiv(c, n, len, fl_sym_const(as), size);
}

/* ------------------------------------------------------------------------- */
/* Partial shape vectors (TensorFlow's shape-tensor inference)                */
/* ------------------------------------------------------------------------- */

static fl_status partial_vec(fl_ctx *c, const fl_tensor *t, int depth, fl_sym **out, int64_t *len);

static fl_status pv_copy(fl_ctx *c, const fl_sym *src, int64_t k, fl_sym **out, int64_t *len) {
    fl_sym *e = alloc_syms(c, k);
    if (!e) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        e[i] = src ? src[i] : fl_sym_unknown();
    }
    *out = e;
    *len = k;
    return FL_OK;
}

static fl_status pv_producer(fl_ctx *c, const fl_node *p, int port, int depth, fl_sym **out,
                             int64_t *len) {
    fl_status st;
    switch (p->kind) {
    case FL_OP_SHAPE:
    case FL_OP_SHAPE_N: {
        int in = p->kind == FL_OP_SHAPE ? 0 : port;
        if (in >= p->n_inputs) {
            break;
        }
        const fl_shape *s = fl__op_in_shape(p, in);
        if (s->rank < 0 || s->rank > PV_MAX_LEN) {
            break;
        }
        return pv_copy(c, s->dims, s->rank, out, len);
    }
    case FL_OP_PACK: {
        int64_t axis = 0;
        if (fl__attr_int_or(p, "axis", 0, &axis, c->d) != FL_OK || (axis != 0 && axis != -1) ||
            p->n_inputs > PV_MAX_LEN) {
            break;
        }
        fl_sym *e = alloc_syms(c, p->n_inputs);
        if (!e) {
            return fl__diag_oom(c->d);
        }
        for (int i = 0; i < p->n_inputs; i++) {
            const fl_tensor *t = fl_node_in(p, i);
            fl_sym *sub;
            int64_t l;
            if (t->shape.rank > 0) {
                continue;
            }
            st = partial_vec(c, t, depth, &sub, &l);
            if (st == FL_OK && l == 1) {
                e[i] = sub[0];
            } else if (st != FL_OK && st != FL_ENOTFOUND) {
                return st;
            }
        }
        *out = e;
        *len = p->n_inputs;
        return FL_OK;
    }
    case FL_OP_CONCAT_V2: {
        int64_t axis;
        if (p->n_inputs < 2 || !known_scalar(p, p->n_inputs - 1, &axis) ||
            (axis != 0 && axis != -1)) {
            break;
        }
        fl_sym **parts = alloc_n(c, p->n_inputs, sizeof(fl_sym *));
        int64_t *lens = alloc_n(c, p->n_inputs, sizeof(int64_t));
        if (!parts || !lens) {
            return fl__diag_oom(c->d);
        }
        int64_t total = 0;
        for (int i = 0; i + 1 < p->n_inputs; i++) {
            st = partial_vec(c, fl_node_in(p, i), depth, &parts[i], &lens[i]);
            if (st != FL_OK) {
                return st;
            }
            total += lens[i];
            if (total > PV_MAX_LEN) {
                return FL_ENOTFOUND;
            }
        }
        fl_sym *e = alloc_syms(c, total);
        if (!e) {
            return fl__diag_oom(c->d);
        }
        int64_t pos = 0;
        for (int i = 0; i + 1 < p->n_inputs; i++) {
            for (int64_t j = 0; j < lens[i]; j++) {
                e[pos++] = parts[i][j];
            }
        }
        *out = e;
        *len = total;
        return FL_OK;
    }
    case FL_OP_STRIDED_SLICE: {
        const fl_sym *b, *e, *s;
        int64_t kb, ke, ks;
        ss_masks m;
        if (p->n_inputs < 4 || !known_vec(p, 1, &b, &kb) || !known_vec(p, 2, &e, &ke) ||
            !known_vec(p, 3, &s, &ks) || kb != 1 || ke != 1 || ks != 1 ||
            fl_node_in(p, 0)->shape.rank > 1) {
            break;
        }
        /* Attr errors were reported by the node's own infer. */
        fl_status mst = ss_read_masks(c, p, &m);
        if (mst != FL_OK) {
            return mst;
        }
        if (m.ellipsis || m.new_axis) {
            break;
        }
        fl_sym *src;
        int64_t L;
        st = partial_vec(c, fl_node_in(p, 0), depth, &src, &L);
        if (st != FL_OK) {
            return st;
        }
        ss_dim d = {.b = b[0].k,
                    .e = e[0].k,
                    .s = s[0].k,
                    .have_b = true,
                    .have_e = true,
                    .bm = m.begin & 1,
                    .em = m.end & 1,
                    .shrink = m.shrink & 1};
        if (d.s == 0) {
            break;
        }
        int64_t start, size;
        bool ok;
        st = ss_known(c, p, 0, &d, L, &start, &size, &ok);
        if (st != FL_OK) {
            return st;
        }
        if (!ok) {
            break;
        }
        fl_sym *r = alloc_syms(c, size);
        if (!r) {
            return fl__diag_oom(c->d);
        }
        for (int64_t j = 0; j < size; j++) {
            r[j] = src[start + j * d.s];
        }
        *out = r;
        *len = size;
        return FL_OK;
    }
    case FL_OP_CAST:
    case FL_OP_IDENTITY:
        if (p->n_inputs >= 1) {
            return partial_vec(c, fl_node_in(p, 0), depth, out, len);
        }
        break;
    default:
        break;
    }
    return FL_ENOTFOUND;
}

/* Reads integer tensor t (a scalar or vector) as a vector whose elements may
 * be unknown. FL_ENOTFOUND when even its length is unknown. */
static fl_status partial_vec(fl_ctx *c, const fl_tensor *t, int depth, fl_sym **out, int64_t *len) {
    *out = NULL;
    *len = -1;
    if (t->dtype != FL_DT_INVALID && !fl__dtype_is_integer(t->dtype)) {
        return FL_ENOTFOUND;
    }
    if (t->shape.rank > 1) {
        return FL_ENOTFOUND;
    }
    const fl_value *v = t->value;
    if (v && v->ints && v->rank <= 1 && v->n <= PV_MAX_LEN) {
        return pv_copy(c, v->ints, v->n, out, len);
    }
    if (t->producer && depth < PV_DEPTH) {
        fl_status st = pv_producer(c, t->producer, t->port, depth + 1, out, len);
        if (st != FL_ENOTFOUND) {
            return st;
        }
    }
    if (t->shape.rank == 0) {
        return pv_copy(c, NULL, 1, out, len);
    }
    if (t->shape.rank == 1 && fl_sym_is_known(t->shape.dims[0]) &&
        t->shape.dims[0].k <= PV_MAX_LEN) {
        return pv_copy(c, NULL, t->shape.dims[0].k, out, len);
    }
    return FL_ENOTFOUND;
}

/* Input i as a partial shape vector; negative known entries fail. */
static fl_status shape_input(fl_ctx *c, const fl_node *n, int i, const char *name, fl_sym **out,
                             int64_t *len) {
    fl_status st = partial_vec(c, fl_node_in(n, i), 0, out, len);
    if (st != FL_OK) {
        return st;
    }
    for (int64_t j = 0; j < *len; j++) {
        if (fl_sym_is_known((*out)[j]) && (*out)[j].k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' has a negative dimension %lld",
                                 name, (long long)(*out)[j].k);
        }
    }
    if (*len > MAX_RANK) {
        return FL_ENOTFOUND;
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Evaluation helpers                                                         */
/* ------------------------------------------------------------------------- */

static bool usable(const fl_value *v) {
    return v && (v->ints || v->raw);
}

/* A fresh value for output `port` of the same storage as `like` (when given),
 * or NULL (with *st the failure, FL_OK when there is simply no value). */
static fl_value *out_value(fl_ctx *c, fl_node *n, int port, const fl_value *like, fl_status *st) {
    *st = FL_OK;
    if (port < 0 || port >= n->n_outputs || (like && !usable(like))) {
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

static void copy_elems(fl_value *dst, int64_t di, const fl_value *src, int64_t si, int64_t cnt) {
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
static int64_t prod(const int64_t *dims, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) {
        if (dims[i] != 0 && p > INT64_MAX / dims[i]) {
            return -1;
        }
        p *= dims[i];
    }
    return p;
}

static int64_t *row_strides(fl_ctx *c, int rank, const int64_t *dims) {
    int64_t *s = alloc_n(c, rank, sizeof(int64_t));
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

static int64_t **alloc_maps(fl_ctx *c, int rank, const int64_t *dims) {
    int64_t **maps = alloc_n(c, rank, sizeof(int64_t *));
    if (!maps) {
        return NULL;
    }
    for (int i = 0; i < rank; i++) {
        maps[i] = alloc_n(c, dims[i], sizeof(int64_t));
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
static fl_status fill_mapped(fl_ctx *c, fl_value *dst, const fl_value *src, int rank,
                             const int64_t *dims, int64_t *const *maps, const int64_t *strides,
                             const fl_value *pad) {
    int64_t total = prod(dims, 0, rank);
    if (total != dst->n) {
        return FL_ENOTFOUND;
    }
    if (total == 0) {
        return FL_OK;
    }
    int64_t *ctr = alloc_n(c, rank, sizeof(int64_t));
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
                copy_elems(dst, j, pad, 0, 1);
            } else {
                set_zero(dst, j);
            }
        } else if (off >= 0 && off < src->n) {
            copy_elems(dst, j, src, off, 1);
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
static fl_status finish(fl_node *n, int port, fl_value *v, fl_status st) {
    if (st == FL_OK) {
        fl__op_set_value(n, port, v);
    }
    return st == FL_ENOTFOUND ? FL_OK : st;
}

/* Output 0 := input 0's elements in order (Reshape, Squeeze, ExpandDims). */
static fl_status eval_copy(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    if (v->n != src->n) {
        return FL_OK;
    }
    copy_elems(v, 0, src, 0, v->n);
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Shape, ShapeN, Size, Rank                                                  */
/* ------------------------------------------------------------------------- */

/* Output `port` := shape of input `in` as a vector, with its value when the
 * shape is determined. */
static fl_status shape_out(fl_ctx *c, fl_node *n, int in, int port, int dt) {
    const fl_shape *s = fl__op_in_shape(n, in);
    fl_status st;
    if (s->rank < 0) {
        return fl__op_set_output_rank(c, n, port, dt, 1);
    }
    fl_sym len = fl_sym_const(s->rank);
    if ((st = fl__op_set_output(c, n, port, dt, 1, &len)) != FL_OK) {
        return st;
    }
    if (!fl__shape_is_determined(s)) {
        return FL_OK;
    }
    fl_value *v = out_value(c, n, port, NULL, &st);
    if (!v || !v->ints) {
        return st;
    }
    for (int i = 0; i < s->rank; i++) {
        ((fl_sym *)v->ints)[i] = s->dims[i];
    }
    fl__op_set_value(n, port, v);
    return FL_OK;
}

/* A scalar output with the value x (when x is not unknown). */
static fl_status scalar_out(fl_ctx *c, fl_node *n, int port, int dt, fl_sym x) {
    fl_status st = fl__op_set_output(c, n, port, dt, 0, NULL);
    if (st != FL_OK || fl_sym_is_unknown(x)) {
        return st;
    }
    fl_value *v = out_value(c, n, port, NULL, &st);
    if (!v || !v->ints) {
        return st;
    }
    ((fl_sym *)v->ints)[0] = x;
    fl__op_set_value(n, port, v);
    return FL_OK;
}

static fl_status infer_shape(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = index_type_attr(c, n, "out_type", &dt);
    return st != FL_OK ? st : shape_out(c, n, 0, 0, dt);
}

static int count_shape_n(const fl_node *n, fl_diag *d) {
    int64_t N;
    fl_status st = fl__attr_get_int(n, "N", &N, d);
    if (st == FL_ENOTFOUND) {
        return n->n_inputs;
    }
    if (st != FL_OK) {
        return -1;
    }
    if (N != n->n_inputs) {
        fl__node_fail(d, FL_EINVAL, n, "attr 'N' is %lld but the node has %d inputs", (long long)N,
                      n->n_inputs);
        return -1;
    }
    return n->n_inputs;
}

static fl_status infer_shape_n(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = index_type_attr(c, n, "out_type", &dt);
    for (int i = 0; st == FL_OK && i < n->n_outputs; i++) {
        st = i < n->n_inputs ? shape_out(c, n, i, i, dt) : fl__op_set_output_rank(c, n, i, dt, 1);
    }
    return st;
}

static fl_status infer_size(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_sym e;
    fl_status st = index_type_attr(c, n, "out_type", &dt);
    if (st == FL_OK) {
        st = fl__op_num_elements(c, n, fl__op_in_shape(n, 0), &e);
    }
    return st != FL_OK ? st : scalar_out(c, n, 0, dt, e);
}

static fl_status infer_rank(fl_ctx *c, fl_node *n) {
    int r = fl__op_in_shape(n, 0)->rank;
    return scalar_out(c, n, 0, FL_DT_INT32, r < 0 ? fl_sym_unknown() : fl_sym_const(r));
}

/* ------------------------------------------------------------------------- */
/* Reshape, Squeeze, ExpandDims                                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_reshape(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "shape");
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
    st = partial_vec(c, fl_node_in(n, 1), 0, &e, &k);
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
        if (!fl_sym_is_unknown(total) && !fl_sym_is_unknown(p) && !is_known(p, 0)) {
            bool exact;
            if ((st = s_div(c, n, total, p, &d, &exact)) != FL_OK) {
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
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
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
    bool *drop = alloc_n(c, r, sizeof(bool));
    fl_sym *out = alloc_syms(c, r);
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
            drop[i] = is_known(s->dims[i], 1);
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
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_value *dv = int_value(n, 1);
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
        return set_rank(c, n, 0, dt, (int64_t)r + 1);
    }
    int64_t a = dv->ints[0].k;
    if (a < -(int64_t)r - 1 || a > r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'dim' is %lld, out of range for rank %d",
                             (long long)a, r);
    }
    if (a < 0) {
        a += r + 1;
    }
    fl_sym *out = alloc_syms(c, r + 1);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0, j = 0; i <= r; i++) {
        out[i] = i == a ? fl_sym_const(1) : s->dims[j++];
    }
    return fl__op_set_output(c, n, 0, dt, r + 1, out);
}

/* ------------------------------------------------------------------------- */
/* Transpose                                                                  */
/* ------------------------------------------------------------------------- */

static fl_status read_perm(fl_ctx *c, const fl_node *n, int r, const fl_sym **perm, int64_t *k,
                           bool *have) {
    *have = known_vec(n, 1, perm, k);
    if (!*have) {
        return FL_OK;
    }
    if (r >= 0 && *k != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'perm' has %lld entries but the input has rank %d",
                             (long long)*k, r);
    }
    if (*k > MAX_RANK) {
        *have = false;
        return FL_OK;
    }
    bool *seen = alloc_n(c, *k, sizeof(bool));
    if (!seen) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < *k; i++) {
        int64_t p = (*perm)[i].k;
        if (p < 0 || p >= *k || seen[p]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'perm' is not a permutation of 0..%lld: entry %lld is %lld",
                                 (long long)*k - 1, (long long)i, (long long)p);
        }
        seen[p] = true;
    }
    return FL_OK;
}

static fl_status infer_transpose(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_sym *perm;
    int64_t k;
    bool have;
    if ((st = read_perm(c, n, s->rank, &perm, &k, &have)) != FL_OK) {
        return st;
    }
    if (!have) {
        return set_rank(c, n, 0, dt, s->rank >= 0 ? s->rank : vec_len(n, 1));
    }
    if (s->rank < 0) {
        return set_rank(c, n, 0, dt, k);
    }
    fl_sym *out = alloc_syms(c, k);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        out[i] = s->dims[perm[i].k];
    }
    return fl__op_set_output(c, n, 0, dt, (int)k, out);
}

static fl_status eval_transpose(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    const fl_sym *perm;
    int64_t k;
    if (!known_vec(n, 1, &perm, &k) || k != src->rank) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t *is = row_strides(c, src->rank, src->dims);
    int64_t *os = alloc_n(c, k, sizeof(int64_t));
    int64_t **maps = alloc_maps(c, v->rank, v->dims);
    if (!is || !os || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < v->rank; i++) {
        if (perm[i].k < 0 || perm[i].k >= k) {
            return FL_OK;
        }
        os[i] = is[perm[i].k];
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = o;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, v->rank, v->dims, maps, os, NULL));
}

/* ------------------------------------------------------------------------- */
/* ConcatV2, Concat, Pack, Unpack                                             */
/* ------------------------------------------------------------------------- */

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
        st = dtype_attr(c, n, "T", first, &dt);
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
    if (!known_scalar(n, axis_in, &a)) {
        return set_rank(c, n, 0, dt, r);
    }
    if (a < -r || a >= r) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' is %lld, out of range for rank %d",
                             axis_name, (long long)a, r);
    }
    if (a < 0) {
        a += r;
    }
    fl_sym *out = alloc_syms(c, r);
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
                st = merge(c, n, out[d], s->dims[d], "the concatenated inputs", d, &out[d]);
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
    if (!known_scalar(n, axis_in, &a) || count < 1) {
        return FL_OK;
    }
    const fl_value *s0 = fl_op_in_value(n, first);
    if (!usable(s0)) {
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
    fl_value *v = out_value(c, n, 0, s0, &st);
    if (!v) {
        return st;
    }
    if (v->rank != r) {
        return FL_OK;
    }
    int64_t outer = prod(v->dims, 0, (int)a), inner = prod(v->dims, (int)a + 1, r);
    int64_t sum = 0;
    for (int i = first; i < first + count; i++) {
        const fl_value *s = fl_op_in_value(n, i);
        if (!usable(s) || s->rank != r || fl_dtype_base(s->dtype) != fl_dtype_base(s0->dtype) ||
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
            copy_elems(v, pos, s, o * chunk, chunk);
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
        st = dtype_attr(c, n, "T", 0, &dt);
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
    fl_sym *m = alloc_syms(c, r), *out = alloc_syms(c, r + 1);
    if (!m || !out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        for (int d = 0; d < s->rank && st == FL_OK; d++) {
            st = merge(c, n, m[d], s->dims[d], "the packed inputs", d, &m[d]);
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
    if (!usable(s0)) {
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
    fl_value *v = out_value(c, n, 0, s0, &st);
    if (!v) {
        return st;
    }
    int64_t outer = prod(s0->dims, 0, (int)axis), inner = prod(s0->dims, (int)axis, r);
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_value *s = fl_op_in_value(n, i);
        if (!usable(s) || s->n != s0->n || fl_dtype_base(s->dtype) != fl_dtype_base(s0->dtype)) {
            return FL_OK;
        }
    }
    if (outer < 0 || inner < 0 || v->n != s0->n * n->n_inputs) {
        return FL_OK;
    }
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = 0; i < n->n_inputs; i++) {
            copy_elems(v, pos, fl_op_in_value(n, i), o * inner, inner);
            pos += inner;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static int count_attr(const fl_node *n, fl_diag *d, const char *name, int64_t min) {
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

static int count_unpack(const fl_node *n, fl_diag *d) {
    return count_attr(n, d, "num", 0);
}

static int count_split(const fl_node *n, fl_diag *d) {
    return count_attr(n, d, "num_split", 1);
}

/* Sets every output to `s` without dim `axis` (which must be in range). */
static fl_status outputs_without(fl_ctx *c, fl_node *n, int dt, const fl_shape *s, int axis) {
    fl_sym *out = alloc_syms(c, s->rank);
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
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return set_all_rank(c, n, dt, -1);
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
    if (!usable(src)) {
        return FL_OK;
    }
    int64_t axis;
    if (!usable(src) || fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK) {
        return FL_OK;
    }
    int r = src->rank;
    if (axis < 0) {
        axis += r;
    }
    if (axis < 0 || axis >= r || src->dims[axis] != n->n_outputs) {
        return FL_OK;
    }
    int64_t outer = prod(src->dims, 0, (int)axis), inner = prod(src->dims, (int)axis + 1, r);
    int64_t A = src->dims[axis];
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st;
        fl_value *v = out_value(c, n, k, src, &st);
        if (!v) {
            return st;
        }
        if (v->n != outer * inner) {
            return FL_OK;
        }
        for (int64_t o = 0; o < outer; o++) {
            copy_elems(v, o * inner, src, (o * A + k) * inner, inner);
        }
        fl__op_set_value(n, k, v);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Split, SplitV                                                              */
/* ------------------------------------------------------------------------- */

/* Normalises split axis a for rank r; fails when out of range. */
static fl_status split_axis(fl_ctx *c, const fl_node *n, int64_t *a, int r) {
    if (r == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "cannot split a scalar");
    }
    if (*a < -r || *a >= r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'split_dim' is %lld, out of range for rank %d", (long long)*a,
                             r);
    }
    if (*a < 0) {
        *a += r;
    }
    return FL_OK;
}

static fl_status infer_split(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 1, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 0, "split_dim");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 1);
    int64_t a;
    if (s->rank < 0 || !known_scalar(n, 0, &a)) {
        return set_all_rank(c, n, dt, s->rank);
    }
    if ((st = split_axis(c, n, &a, s->rank)) != FL_OK) {
        return st;
    }
    int64_t num = n->n_outputs;
    fl_sym D = s->dims[a], q = fl_sym_unknown();
    if (fl_sym_is_known(D)) {
        if (num == 0 || D.k % num != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "dimension %lld of size %lld is not divisible by attr "
                                 "'num_split' %lld",
                                 (long long)a, (long long)D.k, (long long)num);
        }
        q = fl_sym_const(D.k / num);
    } else {
        bool exact;
        if ((st = s_div(c, n, D, fl_sym_const(num), &q, &exact)) != FL_OK) {
            return st;
        }
    }
    fl_sym *out = alloc_syms(c, s->rank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < s->rank; i++) {
        out[i] = i == a ? q : s->dims[i];
    }
    for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, dt, s->rank, out);
    }
    return st;
}

/* Evaluates a split of `src` along `a` into the outputs, whose sizes along
 * the axis come from their (concrete) inferred shapes. */
static fl_status split_eval(fl_ctx *c, fl_node *n, const fl_value *src, int64_t a) {
    int r = src->rank;
    if (!usable(src) || a < 0 || a >= r) {
        return FL_OK;
    }
    int64_t outer = prod(src->dims, 0, (int)a), inner = prod(src->dims, (int)a + 1, r);
    int64_t A = src->dims[a], off = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        const fl_shape *os = &n->outputs[k].shape;
        if (os->rank != r || !fl_sym_is_known(os->dims[a])) {
            return FL_OK;
        }
        off += os->dims[a].k;
    }
    if (off != A) {
        return FL_OK;
    }
    off = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        fl_status st;
        fl_value *v = out_value(c, n, k, src, &st);
        if (!v) {
            return st;
        }
        int64_t sz = v->dims[a];
        if (v->n != outer * sz * inner) {
            return FL_OK;
        }
        for (int64_t o = 0; o < outer; o++) {
            copy_elems(v, o * sz * inner, src, (o * A + off) * inner, sz * inner);
        }
        off += sz;
        fl__op_set_value(n, k, v);
    }
    return FL_OK;
}

static fl_status eval_split(fl_ctx *c, fl_node *n) {
    int64_t a;
    const fl_value *src = fl_op_in_value(n, 1);
    if (!usable(src)) {
        return FL_OK;
    }
    if (!known_scalar(n, 0, &a)) {
        return FL_OK;
    }
    if (a < 0) {
        a += src->rank;
    }
    return split_eval(c, n, src, a);
}

static fl_status infer_split_v(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 2, "split_dim");
    }
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "size_splits");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int64_t num = n->n_outputs;
    const fl_value *sv = int_value(n, 1);
    if (sv && (sv->rank > 1 || sv->n != num)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'size_splits' has %lld entries but attr 'num_split' is %lld",
                             (long long)sv->n, (long long)num);
    }
    int64_t a;
    if (s->rank < 0 || !known_scalar(n, 2, &a)) {
        return set_all_rank(c, n, dt, s->rank);
    }
    if ((st = split_axis(c, n, &a, s->rank)) != FL_OK) {
        return st;
    }
    fl_sym *sizes = alloc_syms(c, num);
    fl_sym *out = alloc_syms(c, s->rank);
    if (!sizes || !out) {
        return fl__diag_oom(c->d);
    }
    fl_sym D = s->dims[a];
    if (sv) {
        int64_t neg = -1;
        fl_sym sum = fl_sym_const(0);
        for (int64_t k = 0; k < num && st == FL_OK; k++) {
            sizes[k] = sv->ints[k];
            if (fl_sym_is_known(sizes[k]) && sizes[k].k == -1) {
                if (neg >= 0) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "input 'size_splits' can have at most one -1, found at "
                                         "%lld and %lld",
                                         (long long)neg, (long long)k);
                }
                neg = k;
                continue;
            }
            if (fl_sym_is_known(sizes[k]) && sizes[k].k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'size_splits' has a negative entry %lld",
                                     (long long)sizes[k].k);
            }
            st = fl__op_add(c, n, sum, sizes[k], &sum);
        }
        if (st != FL_OK) {
            return st;
        }
        if (neg >= 0) {
            fl_sym rest;
            if ((st = fl__op_sub(c, n, D, sum, &rest)) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(rest) && rest.k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'size_splits' sums to %lld, more than dimension %lld "
                                     "of size %lld",
                                     (long long)sum.k, (long long)a, (long long)D.k);
            }
            sizes[neg] = rest;
        } else if (fl_sym_is_known(sum) && fl_sym_is_known(D) && sum.k != D.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'size_splits' sums to %lld but dimension %lld has size "
                                 "%lld",
                                 (long long)sum.k, (long long)a, (long long)D.k);
        }
    }
    for (int64_t k = 0; k < num && st == FL_OK; k++) {
        for (int i = 0; i < s->rank; i++) {
            out[i] = i == a ? sizes[k] : s->dims[i];
        }
        st = fl__op_set_output(c, n, (int)k, dt, s->rank, out);
    }
    return st;
}

static fl_status eval_split_v(fl_ctx *c, fl_node *n) {
    int64_t a;
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    if (!known_scalar(n, 2, &a)) {
        return FL_OK;
    }
    if (a < 0) {
        a += src->rank;
    }
    return split_eval(c, n, src, a);
}

/* ------------------------------------------------------------------------- */
/* Slice, StridedSlice                                                        */
/* ------------------------------------------------------------------------- */

static const fl_value *vec_value(const fl_node *n, int i) {
    const fl_value *v = int_value(n, i);
    return v && v->rank <= 1 ? v : NULL;
}

static fl_status infer_slice(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "begin");
    }
    if (st == FL_OK) {
        st = want_vector(c, n, 2, "size");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *bv = vec_value(n, 1), *zv = vec_value(n, 2);
    int64_t r = s->rank;
    if (r < 0) {
        r = bv ? bv->n : zv ? zv->n : vec_len(n, 1) >= 0 ? vec_len(n, 1) : vec_len(n, 2);
    }
    if (r < 0 || r > MAX_RANK) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (bv && bv->n != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'begin' has %lld entries but the input has rank %lld",
                             (long long)bv->n, (long long)r);
    }
    if (zv && zv->n != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'size' has %lld entries but the input has rank %lld",
                             (long long)zv->n, (long long)r);
    }
    fl_sym *out = alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        fl_sym D = s->rank >= 0 ? s->dims[i] : fl_sym_unknown();
        fl_sym b = bv ? bv->ints[i] : fl_sym_unknown();
        fl_sym z = zv ? zv->ints[i] : fl_sym_unknown();
        if (fl_sym_is_known(b) && b.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'begin' entry %d is negative (%lld)", i,
                                 (long long)b.k);
        }
        if (fl_sym_is_known(z) && z.k < -1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'size' entry %d is %lld; it must be >= -1", i,
                                 (long long)z.k);
        }
        if (is_known(z, -1)) {
            if (fl_sym_is_unknown(b)) {
                continue;
            }
            if ((st = fl__op_sub(c, n, D, b, &out[i])) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(out[i]) && out[i].k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'begin' entry %d (%lld) exceeds the dimension's size "
                                     "%lld",
                                     i, (long long)b.k, (long long)D.k);
            }
        } else {
            out[i] = z;
            if (fl_sym_is_known(z) && fl_sym_is_known(b) && fl_sym_is_known(D) && b.k > D.k - z.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "slice [%lld, %lld + %lld) of dimension %d exceeds its size "
                                     "%lld",
                                     (long long)b.k, (long long)b.k, (long long)z.k, i,
                                     (long long)D.k);
            }
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status eval_slice(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    const fl_sym *b, *z;
    int64_t kb, kz;
    if (!known_vec(n, 1, &b, &kb) || !known_vec(n, 2, &z, &kz) || kb != src->rank ||
        kz != src->rank) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t *is = row_strides(c, src->rank, src->dims);
    int64_t **maps = alloc_maps(c, v->rank, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    if (v->rank != src->rank) {
        return FL_OK;
    }
    for (int i = 0; i < v->rank; i++) {
        if (b[i].k < 0 || b[i].k > src->dims[i] - v->dims[i]) {
            return FL_OK;
        }
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = b[i].k + o;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, v->rank, v->dims, maps, is, NULL));
}

static fl_status infer_strided_slice(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    ss_masks m;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = ss_read_masks(c, n, &m);
    }
    for (int i = 1; i <= 3 && st == FL_OK; i++) {
        static const char *const names[4] = {"", "begin", "end", "strides"};
        st = want_vector(c, n, i, names[i]);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_sym *sv;
    int64_t k;
    if (s->rank < 0 || !known_vec(n, 3, &sv, &k)) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    const fl_value *bv = vec_value(n, 1), *ev = vec_value(n, 2);
    if ((bv && bv->n != k) || (ev && ev->n != k)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "inputs 'begin', 'end' and 'strides' must have the same length, got "
                             "%lld, %lld and %lld",
                             (long long)(bv ? bv->n : -1), (long long)(ev ? ev->n : -1),
                             (long long)k);
    }
    ss_plan pl;
    st = ss_build(c, n, s->rank, k, bv ? bv->ints : NULL, ev ? ev->ints : NULL, sv, &m, &pl);
    if (st != FL_OK) {
        return st;
    }
    fl_sym *size = alloc_syms(c, s->rank), *out = alloc_syms(c, pl.n_final);
    if (!size || !out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < s->rank; i++) {
        if ((st = ss_dim_size(c, n, i, &pl.dim[i], s->dims[i], &size[i])) != FL_OK) {
            return st;
        }
    }
    for (int j = 0; j < pl.n_final; j++) {
        out[j] = pl.final[j] < 0 ? fl_sym_const(1) : size[pl.final[j]];
    }
    return fl__op_set_output(c, n, 0, dt, pl.n_final, out);
}

static fl_status eval_strided_slice(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    const fl_sym *b, *e, *s;
    int64_t kb, ke, ks;
    ss_masks m;
    if (!usable(src) || !known_vec(n, 1, &b, &kb) || !known_vec(n, 2, &e, &ke) ||
        !known_vec(n, 3, &s, &ks) || kb != ks || ke != ks) {
        return FL_OK;
    }
    ss_plan pl;
    fl_status st = ss_read_masks(c, n, &m);
    if (st == FL_OK) {
        st = ss_build(c, n, src->rank, ks, b, e, s, &m, &pl);
    }
    if (st != FL_OK) {
        return st;
    }
    int r = src->rank;
    int64_t *dims = alloc_n(c, r, sizeof(int64_t)), *starts = alloc_n(c, r, sizeof(int64_t));
    int64_t *is = row_strides(c, r, src->dims);
    if (!dims || !starts || !is) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        bool ok;
        st = ss_known(c, n, i, &pl.dim[i], src->dims[i], &starts[i], &dims[i], &ok);
        if (st != FL_OK) {
            return st;
        }
        if (!ok) {
            return FL_OK;
        }
    }
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t **maps = alloc_maps(c, r, dims);
    if (!maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < dims[i]; o++) {
            maps[i][o] = starts[i] + o * pl.dim[i].s;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, r, dims, maps, is, NULL));
}

/* ------------------------------------------------------------------------- */
/* Gather, GatherV2, GatherNd                                                 */
/* ------------------------------------------------------------------------- */

static fl_status gather_infer(fl_ctx *c, fl_node *n, bool have_axis, int64_t a, int64_t bd) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "Tparams", 0, &dt);
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
        return set_rank(c, n, 0, dt, (int64_t)pr + ir - 1 - bd);
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
    fl_sym *out = alloc_syms(c, orank);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    int j = 0;
    for (int i = 0; i < bd; i++, j++) {
        if ((st = merge(c, n, p->dims[i], ix->dims[i], "params and indices (batch_dims)", i,
                        &out[j])) != FL_OK) {
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
    const fl_value *params = fl_op_in_value(n, 0), *idx = int_value(n, 1);
    if (!usable(params) || !idx) {
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
    int64_t B = prod(params->dims, 0, (int)bd), O = prod(params->dims, (int)bd, (int)a);
    int64_t A = params->dims[a], In = prod(params->dims, (int)a + 1, pr);
    int64_t I = prod(idx->dims, (int)bd, ir);
    fl_status st;
    fl_value *v = out_value(c, n, 0, params, &st);
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
                copy_elems(v, pos, params, ((b * O + o) * A + x.k) * In, In);
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
    bool have = known_scalar(n, 2, &a);
    return gather_infer(c, n, have, a, bd);
}

static fl_status eval_gather_v2(fl_ctx *c, fl_node *n) {
    int64_t bd, a;
    if (fl__attr_int_or(n, "batch_dims", 0, &bd, c->d) != FL_OK || !known_scalar(n, 2, &a)) {
        return FL_OK;
    }
    return gather_eval(c, n, a, bd);
}

static fl_status infer_gather_nd(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "Tparams", 0, &dt);
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
    fl_sym *out = alloc_syms(c, orank);
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
    const fl_value *params = fl_op_in_value(n, 0), *idx = int_value(n, 1);
    if (!usable(params) || !idx || idx->rank < 1) {
        return FL_OK;
    }
    int64_t L = idx->dims[idx->rank - 1];
    if (L > params->rank) {
        return FL_OK;
    }
    int64_t slice = prod(params->dims, (int)L, params->rank);
    int64_t rows = prod(idx->dims, 0, idx->rank - 1);
    int64_t *ps = row_strides(c, params->rank, params->dims);
    fl_status st;
    fl_value *v = out_value(c, n, 0, params, &st);
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
        copy_elems(v, row * slice, params, off, slice);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Pad, PadV2, MirrorPad                                                      */
/* ------------------------------------------------------------------------- */

enum { PAD_CONST = 0, PAD_REFLECT = 1, PAD_SYMMETRIC = 2 };

static fl_status mirror_mode(fl_ctx *c, const fl_node *n, int *mode) {
    const char *m;
    fl_status st = fl__attr_str_or(n, "mode", "", &m, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(m, "REFLECT") == 0) {
        *mode = PAD_REFLECT;
    } else if (strcmp(m, "SYMMETRIC") == 0) {
        *mode = PAD_SYMMETRIC;
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'mode' must be REFLECT or SYMMETRIC, got '%s'", m);
    }
    return FL_OK;
}

static fl_status pad_infer(fl_ctx *c, fl_node *n, int mode) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0), *ps = fl__op_in_shape(n, 1);
    int64_t r = s->rank;
    const fl_value *pv = int_value(n, 1);
    if (ps->rank >= 0 && ps->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'paddings' must have shape [rank, 2], got rank %d", ps->rank);
    }
    if (pv) {
        if (pv->rank != 2 || pv->dims[1] != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'paddings' must have shape [rank, 2]");
        }
        if (r >= 0 && pv->dims[0] != r) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'paddings' has %lld rows but the input has rank %lld",
                                 (long long)pv->dims[0], (long long)r);
        }
        r = pv->dims[0];
    } else if (r < 0 && ps->rank == 2 && fl_sym_is_known(ps->dims[0])) {
        r = ps->dims[0].k;
    }
    /* Paddings without a value: look through Reshape(vector) for the entries
     * that are known (e.g. Reshape(Pack(0, 0, 0, h, ...), [4, 2])). */
    const fl_sym *pads = pv ? pv->ints : NULL;
    const fl_tensor *pt = fl_node_in(n, 1);
    if (!pads && r >= 0 && r <= MAX_RANK && pt->producer && pt->producer->kind == FL_OP_RESHAPE &&
        pt->producer->n_inputs >= 1) {
        fl_sym *pe;
        int64_t pk;
        st = partial_vec(c, fl_node_in(pt->producer, 0), 1, &pe, &pk);
        if (st == FL_OK && pk == 2 * r) {
            pads = pe;
        } else if (st != FL_OK && st != FL_ENOTFOUND) {
            return st;
        }
    }
    if (r < 0 || r > MAX_RANK || !pads) {
        return set_rank(c, n, 0, dt, r);
    }
    fl_sym *out = alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        fl_sym D = s->rank >= 0 ? s->dims[i] : fl_sym_unknown();
        for (int j = 0; j < 2; j++) {
            fl_sym x = pads[2 * i + j];
            if (fl_sym_is_known(x) && x.k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'paddings' has a negative entry %lld at [%d, %d]",
                                     (long long)x.k, i, j);
            }
            if (mode != PAD_CONST && fl_sym_is_known(x) && fl_sym_is_known(D)) {
                int64_t lim = mode == PAD_REFLECT ? D.k - 1 : D.k;
                if (x.k > lim) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "input 'paddings' entry %lld at [%d, %d] must be at most "
                                         "%lld in %s mode (dimension size %lld)",
                                         (long long)x.k, i, j, (long long)lim,
                                         mode == PAD_REFLECT ? "REFLECT" : "SYMMETRIC",
                                         (long long)D.k);
                }
            }
        }
        fl_sym t;
        if ((st = fl__op_add(c, n, D, pads[2 * i], &t)) != FL_OK ||
            (st = fl__op_add(c, n, t, pads[2 * i + 1], &out[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status pad_eval(fl_ctx *c, fl_node *n, int mode, const fl_value *pad) {
    const fl_value *src = fl_op_in_value(n, 0), *pv = int_value(n, 1);
    if (!usable(src) || !pv || pv->rank != 2 || pv->dims[0] != src->rank || pv->dims[1] != 2) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    if (pad &&
        (!usable(pad) || pad->n != 1 || fl_dtype_base(pad->dtype) != fl_dtype_base(v->dtype))) {
        return FL_OK;
    }
    int r = src->rank;
    int64_t *is = row_strides(c, r, src->dims);
    int64_t **maps = alloc_maps(c, r, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    if (v->rank != r) {
        return FL_OK;
    }
    for (int i = 0; i < r; i++) {
        fl_sym lo = pv->ints[2 * i];
        int64_t D = src->dims[i];
        if (!fl_sym_is_known(lo)) {
            return FL_OK;
        }
        for (int64_t o = 0; o < v->dims[i]; o++) {
            int64_t x = o - lo.k;
            if (x < 0 || x >= D) {
                if (mode == PAD_CONST) {
                    x = -1;
                } else if (mode == PAD_REFLECT) {
                    x = x < 0 ? -x : 2 * D - 2 - x;
                } else {
                    x = x < 0 ? -x - 1 : 2 * D - 1 - x;
                }
                if (mode != PAD_CONST && (x < 0 || x >= D)) {
                    return FL_OK;
                }
            }
            maps[i][o] = x;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, r, v->dims, maps, is, pad));
}

static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    return pad_infer(c, n, PAD_CONST);
}

static fl_status eval_pad(fl_ctx *c, fl_node *n) {
    return pad_eval(c, n, PAD_CONST, NULL);
}

static fl_status infer_pad_v2(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 2, "constant_values");
    return st != FL_OK ? st : pad_infer(c, n, PAD_CONST);
}

static fl_status eval_pad_v2(fl_ctx *c, fl_node *n) {
    const fl_value *pad = fl_op_in_value(n, 2);
    return usable(pad) ? pad_eval(c, n, PAD_CONST, pad) : FL_OK;
}

static fl_status infer_mirror_pad(fl_ctx *c, fl_node *n) {
    int mode = 0;
    fl_status st = mirror_mode(c, n, &mode);
    return st != FL_OK ? st : pad_infer(c, n, mode);
}

static fl_status eval_mirror_pad(fl_ctx *c, fl_node *n) {
    int mode = 0;
    if (mirror_mode(c, n, &mode) != FL_OK) {
        return FL_OK;
    }
    return pad_eval(c, n, mode, NULL);
}

/* ------------------------------------------------------------------------- */
/* Tile, Fill                                                                 */
/* ------------------------------------------------------------------------- */

static fl_status infer_tile(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "multiples");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *mv = vec_value(n, 1);
    if (mv && s->rank >= 0 && mv->n != s->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'multiples' has %lld entries but the input has rank %d",
                             (long long)mv->n, s->rank);
    }
    int64_t r = s->rank >= 0 ? s->rank : mv ? mv->n : vec_len(n, 1);
    if (r < 0 || r > MAX_RANK || !mv) {
        return set_rank(c, n, 0, dt, r);
    }
    fl_sym *out = alloc_syms(c, r);
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
        if (is_known(m, 1)) {
            out[i] = D;
        } else if ((st = fl__op_mul(c, n, D, m, &out[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status eval_tile(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int r = src->rank;
    if (v->rank != r) {
        return FL_OK;
    }
    int64_t *is = row_strides(c, r, src->dims);
    int64_t **maps = alloc_maps(c, r, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = src->dims[i] ? o % src->dims[i] : -1;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, r, v->dims, maps, is, NULL));
}

static fl_status infer_fill(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 1, &dt);
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "value");
    }
    if (st == FL_OK) {
        st = want_vector(c, n, 0, "dims");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym *e;
    int64_t k;
    st = shape_input(c, n, 0, "dims", &e, &k);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status eval_fill(fl_ctx *c, fl_node *n) {
    const fl_value *val = fl_op_in_value(n, 1);
    if (!usable(val) || val->n != 1) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, val, &st);
    if (!v) {
        return st;
    }
    for (int64_t j = 0; j < v->n; j++) {
        copy_elems(v, j, val, 0, 1);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Range                                                                      */
/* ------------------------------------------------------------------------- */

static bool scalar_f64(const fl_node *n, int i, double *out) {
    const fl_value *v = fl_op_in_value(n, i);
    return v && v->n == 1 && fl__value_f64(v, 0, out);
}

static fl_status infer_range(fl_ctx *c, fl_node *n) {
    static const char *const names[3] = {"start", "limit", "delta"};
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "Tidx", 0, &dt);
    for (int i = 0; i < 3 && st == FL_OK; i++) {
        st = fl__op_want_scalar(c, n, i, names[i]);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym len = fl_sym_unknown();
    if (fl__dtype_is_integer(dt)) {
        fl_sym s0, l0, d0;
        bool hs = scalar_sym(n, 0, &s0), hl = scalar_sym(n, 1, &l0), hd = scalar_sym(n, 2, &d0);
        if (hd && fl_sym_is_known(d0)) {
            int64_t d = d0.k;
            if (d == 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'delta' must not be 0");
            }
            if (hs && hl && fl_sym_is_known(s0) && fl_sym_is_known(l0)) {
                int64_t s = s0.k, l = l0.k;
                if (d > 0 && s > l) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "requires start <= limit when delta > 0: %lld/%lld",
                                         (long long)s, (long long)l);
                }
                if (d < 0 && s < l) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "requires start >= limit when delta < 0: %lld/%lld",
                                         (long long)s, (long long)l);
                }
                uint64_t diff = d > 0 ? (uint64_t)l - (uint64_t)s : (uint64_t)s - (uint64_t)l;
                uint64_t ad = d > 0 ? (uint64_t)d : (uint64_t)0 - (uint64_t)d;
                uint64_t cnt = diff / ad + (diff % ad != 0 ? 1 : 0);
                if (cnt > (uint64_t)INT64_MAX) {
                    return fl__node_fail(c->d, FL_EINVAL, n, "range size overflows int64");
                }
                len = fl_sym_const((int64_t)cnt);
            } else if (hs && hl && d != INT64_MIN) {
                fl_sym diff;
                st = d > 0 ? fl__op_sub(c, n, l0, s0, &diff) : fl__op_sub(c, n, s0, l0, &diff);
                if (st == FL_OK) {
                    st = fl__op_ceildiv(c, n, diff, fl_sym_const(d > 0 ? d : -d), &len);
                }
                if (st != FL_OK) {
                    return st;
                }
            }
        }
    } else if (fl__dtype_is_float(dt)) {
        double s, l, d;
        if (scalar_f64(n, 0, &s) && scalar_f64(n, 1, &l) && scalar_f64(n, 2, &d)) {
            if (d == 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'delta' must not be 0");
            }
            if ((d > 0 && s > l) || (d < 0 && s < l)) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "requires start %s limit when delta %s 0: %g/%g",
                                     d > 0 ? "<=" : ">=", d > 0 ? ">" : "<", s, l);
            }
            double size;
            if (fl_dtype_base(dt) == FL_DT_DOUBLE) {
                size = ceil(fabs((l - s) / d));
            } else {
                float fs = (float)s, fl = (float)l, fd = (float)d;
                size = ceilf(fabsf((fl - fs) / fd));
            }
            if (!(size >= 0) || size > 9.2e18) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "requires ((limit - start) / delta) <= max int64");
            }
            len = fl_sym_const((int64_t)size);
        }
    }
    return fl__op_set_output(c, n, 0, dt, 1, &len);
}

static fl_status eval_range(fl_ctx *c, fl_node *n) {
    fl_status st;
    fl_value *v = out_value(c, n, 0, NULL, &st);
    if (!v) {
        return st;
    }
    if (v->ints) {
        fl_sym cur, d;
        if (!scalar_sym(n, 0, &cur) || !scalar_sym(n, 2, &d)) {
            return FL_OK;
        }
        for (int64_t i = 0; i < v->n; i++) {
            ((fl_sym *)v->ints)[i] = cur;
            if (i + 1 < v->n && (st = fl__op_add(c, n, cur, d, &cur)) != FL_OK) {
                return st;
            }
        }
    } else {
        double cur, d;
        if (!scalar_f64(n, 0, &cur) || !scalar_f64(n, 2, &d)) {
            return FL_OK;
        }
        for (int64_t i = 0; i < v->n; i++) {
            double r;
            fl__value_set_f64(v, i, cur);
            if (!fl__value_f64(v, i, &r)) {
                return FL_OK;
            }
            cur = r + d; /* rounded to the dtype by the next store, as T's += */
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* BroadcastTo, BroadcastArgs                                                 */
/* ------------------------------------------------------------------------- */

static fl_status infer_broadcast_to(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "shape");
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym *e;
    int64_t k;
    st = shape_input(c, n, 1, "shape", &e, &k);
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
    if (!usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int k = v->rank, r = src->rank;
    if (r > k) {
        return FL_OK;
    }
    int64_t *is = row_strides(c, r, src->dims), *os = alloc_n(c, k, sizeof(int64_t));
    int64_t **maps = alloc_maps(c, k, v->dims);
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
    return finish(n, 0, v, fill_mapped(c, v, src, k, v->dims, maps, os, NULL));
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
        if (is_known(x, 1)) {
            out[i] = y;
        } else if (is_known(y, 1) || fl__sym_eq(x, y)) {
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
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 0, "s0");
    }
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "s1");
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t l0 = vec_len(n, 0), l1 = vec_len(n, 1);
    fl_sym len = l0 >= 0 && l1 >= 0 ? fl_sym_const(l0 > l1 ? l0 : l1) : fl_sym_unknown();
    const fl_value *a = vec_value(n, 0), *b = vec_value(n, 1);
    if (a && b) {
        fl_sym *tmp = alloc_syms(c, len.k);
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
    const fl_value *a = vec_value(n, 0), *b = vec_value(n, 1);
    if (!a || !b) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, NULL, &st);
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

/* ------------------------------------------------------------------------- */
/* OneHot, SparseToDense                                                      */
/* ------------------------------------------------------------------------- */

static fl_status infer_one_hot(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    int64_t axis;
    fl_status st = dtype_attr(c, n, "T", 2, &dt);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "depth");
    }
    if (st != FL_OK) {
        return st;
    }
    if (axis < -1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axis' must be >= -1, got %lld",
                             (long long)axis);
    }
    fl_sym depth;
    if (!scalar_sym(n, 1, &depth)) {
        depth = fl_sym_unknown();
    } else if (fl_sym_is_known(depth) && depth.k < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'depth' must be non-negative, got %lld",
                             (long long)depth.k);
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    int r = s->rank;
    if (r < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int64_t pos = axis == -1 ? r : axis;
    if (pos > r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'axis' is %lld, out of range for indices of rank %d",
                             (long long)axis, r);
    }
    fl_sym *out = alloc_syms(c, r + 1);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0, j = 0; i <= r; i++) {
        out[i] = i == pos ? depth : s->dims[j++];
    }
    return fl__op_set_output(c, n, 0, dt, r + 1, out);
}

static fl_status infer_sparse_to_dense(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 2, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "output_shape");
    }
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 3, "default_value");
    }
    if (st != FL_OK) {
        return st;
    }
    if (fl__op_in_shape(n, 0)->rank > 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'sparse_indices' must have rank <= 2, got %d",
                             fl__op_in_shape(n, 0)->rank);
    }
    fl_sym *e;
    int64_t k;
    st = shape_input(c, n, 1, "output_shape", &e, &k);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, (int)k, e);
}

static fl_status eval_sparse_to_dense(fl_ctx *c, fl_node *n) {
    const fl_value *idx = int_value(n, 0), *vals = fl_op_in_value(n, 2);
    const fl_value *dflt = fl_op_in_value(n, 3);
    if (!idx || idx->rank > 2 || !usable(vals) || !usable(dflt) || dflt->n != 1) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, dflt, &st);
    if (!v) {
        return st;
    }
    if (fl_dtype_base(vals->dtype) != fl_dtype_base(v->dtype)) {
        return FL_OK;
    }
    /* rank 0: one index; rank 1: [N] indices into a vector; rank 2: [N, R] */
    int64_t N = idx->rank == 0 ? 1 : idx->dims[0];
    int64_t R = idx->rank == 2 ? idx->dims[1] : 1;
    if (R != v->rank || (vals->n != 1 && vals->n != N)) {
        return FL_OK;
    }
    int64_t *os = row_strides(c, v->rank, v->dims);
    if (!os) {
        return fl__diag_oom(c->d);
    }
    for (int64_t j = 0; j < v->n; j++) {
        copy_elems(v, j, dflt, 0, 1);
    }
    for (int64_t i = 0; i < N; i++) {
        int64_t off = 0;
        for (int64_t j = 0; j < R; j++) {
            fl_sym x = idx->ints[i * R + j];
            if (!fl_sym_is_known(x) || x.k < 0 || x.k >= v->dims[j]) {
                return FL_OK;
            }
            off += x.k * os[j];
        }
        copy_elems(v, off, vals, vals->n == 1 ? 0 : i, 1);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Where, ReverseV2                                                           */
/* ------------------------------------------------------------------------- */

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
    } else if (is_known(e, 0)) {
        dims[0] = fl_sym_const(0);
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT64, 2, dims);
}

static fl_status eval_where(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, NULL, &st);
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

static fl_status infer_reverse_v2(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "axis");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *av = vec_value(n, 1);
    if (av && s->rank >= 0) {
        bool *seen = alloc_n(c, s->rank, sizeof(bool));
        if (!seen) {
            return fl__diag_oom(c->d);
        }
        for (int64_t i = 0; i < av->n; i++) {
            if (!fl_sym_is_known(av->ints[i])) {
                continue;
            }
            int64_t a = av->ints[i].k;
            if (a < -s->rank || a >= s->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'axis' entry %lld is out of range for rank %d",
                                     (long long)a, s->rank);
            }
            if (a < 0) {
                a += s->rank;
            }
            if (seen[a]) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'axis' names dimension %lld more than once",
                                     (long long)a);
            }
            seen[a] = true;
        }
    }
    return fl__op_set_output(c, n, 0, dt, s->rank, s->dims);
}

static fl_status eval_reverse_v2(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!usable(src)) {
        return FL_OK;
    }
    const fl_sym *ax;
    int64_t k;
    if (!known_vec(n, 1, &ax, &k)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int r = src->rank;
    bool *rev = alloc_n(c, r, sizeof(bool));
    int64_t *is = row_strides(c, r, src->dims);
    int64_t **maps = alloc_maps(c, r, src->dims);
    if (!rev || !is || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        int64_t a = ax[i].k < 0 ? ax[i].k + r : ax[i].k;
        if (a < 0 || a >= r) {
            return FL_OK;
        }
        rev[a] = true;
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < src->dims[i]; o++) {
            maps[i][o] = rev[i] ? src->dims[i] - 1 - o : o;
        }
    }
    return finish(n, 0, v, fill_mapped(c, v, src, r, src->dims, maps, is, NULL));
}

/* ------------------------------------------------------------------------- */
/* TopKV2, NonMaxSuppressionV3/V4/V5                                          */
/* ------------------------------------------------------------------------- */

static fl_status infer_topk_v2(fl_ctx *c, fl_node *n) {
    int dt, it;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = index_type_attr(c, n, "index_type", &it);
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
    if (!scalar_sym(n, 1, &k)) {
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
    fl_sym *out = alloc_syms(c, s->rank);
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
        st = dtype_attr(c, n, "T", 1, &dt);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym m, len = fl_sym_unknown();
    if (scalar_sym(n, 2, &m)) {
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

/* ------------------------------------------------------------------------- */
/* SpaceToBatchND, BatchToSpaceND                                             */
/* ------------------------------------------------------------------------- */

static fl_status s2b_infer(fl_ctx *c, fl_node *n, bool to_batch) {
    const char *pname = to_batch ? "paddings" : "crops";
    int dt = FL_DT_INVALID;
    fl_status st = dtype_attr(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = want_vector(c, n, 1, "block_shape");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *bv = vec_value(n, 1), *pv = int_value(n, 2);
    int64_t M = bv ? bv->n : vec_len(n, 1);
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
        return set_rank(c, n, 0, dt, r);
    }
    if (pv && (pv->rank != 2 || pv->dims[0] != M || pv->dims[1] != 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must have shape [%lld, 2]", pname,
                             (long long)M);
    }
    fl_sym *out = alloc_syms(c, r);
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
                if ((st = s_div(c, n, t, bi, &o, &exact)) != FL_OK) {
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
        st = s_div(c, n, s->dims[0], bprod, &out[0], &exact);
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

/* ------------------------------------------------------------------------- */
/* Cost                                                                       */
/* ------------------------------------------------------------------------- */

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

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: the array lists of ops.def)         */
/* ------------------------------------------------------------------------- */

#define HOOKS_shape .infer = infer_shape, .cost = fl__op_cost_zero
#define HOOKS_shape_n                                                                              \
    .count_outputs = count_shape_n, .infer = infer_shape_n, .cost = fl__op_cost_zero
#define HOOKS_size                .infer = infer_size, .cost = fl__op_cost_zero
#define HOOKS_rank                .infer = infer_rank, .cost = fl__op_cost_zero
#define HOOKS_reshape             .infer = infer_reshape, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_squeeze             .infer = infer_squeeze, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_expand_dims         .infer = infer_expand_dims, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_transpose           .infer = infer_transpose, .eval = eval_transpose, .cost = fl__op_cost_zero
#define HOOKS_conjugate_transpose .infer = infer_transpose, .cost = fl__op_cost_zero
#define HOOKS_reverse_v2                                                                           \
    .infer = infer_reverse_v2, .eval = eval_reverse_v2, .cost = fl__op_cost_zero
#define HOOKS_concat_v2 .infer = infer_concat_v2, .eval = eval_concat_v2, .cost = fl__op_cost_zero
#define HOOKS_concat    .infer = infer_concat, .eval = eval_concat, .cost = fl__op_cost_zero
#define HOOKS_pack      .infer = infer_pack, .eval = eval_pack, .cost = fl__op_cost_zero
#define HOOKS_unpack                                                                               \
    .count_outputs = count_unpack, .infer = infer_unpack, .eval = eval_unpack,                     \
    .cost = fl__op_cost_zero
#define HOOKS_split                                                                                \
    .count_outputs = count_split, .infer = infer_split, .eval = eval_split, .cost = fl__op_cost_zero
#define HOOKS_split_v                                                                              \
    .count_outputs = count_split, .infer = infer_split_v, .eval = eval_split_v,                    \
    .cost = fl__op_cost_zero
#define HOOKS_slice .infer = infer_slice, .eval = eval_slice, .cost = fl__op_cost_zero
#define HOOKS_strided_slice                                                                        \
    .infer = infer_strided_slice, .eval = eval_strided_slice, .cost = fl__op_cost_zero
#define HOOKS_gather    .infer = infer_gather, .eval = eval_gather, .cost = fl__op_cost_zero
#define HOOKS_gather_v2 .infer = infer_gather_v2, .eval = eval_gather_v2, .cost = fl__op_cost_zero
#define HOOKS_gather_nd .infer = infer_gather_nd, .eval = eval_gather_nd, .cost = fl__op_cost_zero
#define HOOKS_pad       .infer = infer_pad, .eval = eval_pad, .cost = fl__op_cost_zero
#define HOOKS_pad_v2    .infer = infer_pad_v2, .eval = eval_pad_v2, .cost = fl__op_cost_zero
#define HOOKS_mirror_pad                                                                           \
    .infer = infer_mirror_pad, .eval = eval_mirror_pad, .cost = fl__op_cost_zero
#define HOOKS_tile  .infer = infer_tile, .eval = eval_tile, .cost = fl__op_cost_zero
#define HOOKS_fill  .infer = infer_fill, .eval = eval_fill, .cost = fl__op_cost_zero
#define HOOKS_range .infer = infer_range, .eval = eval_range, .cost = fl__op_cost_zero
#define HOOKS_broadcast_to                                                                         \
    .infer = infer_broadcast_to, .eval = eval_broadcast_to, .cost = fl__op_cost_zero
#define HOOKS_broadcast_args                                                                       \
    .infer = infer_broadcast_args, .eval = eval_broadcast_args, .cost = fl__op_cost_zero
#define HOOKS_one_hot .infer = infer_one_hot, .cost = fl__op_cost_zero
#define HOOKS_sparse_to_dense                                                                      \
    .infer = infer_sparse_to_dense, .eval = eval_sparse_to_dense, .cost = fl__op_cost_zero
#define HOOKS_where             .infer = infer_where, .eval = eval_where, .cost = cost_per_input
#define HOOKS_topk_v2           .infer = infer_topk_v2, .cost = cost_per_input
#define HOOKS_nms_v3            .infer = infer_nms_v3
#define HOOKS_nms_v4            .infer = infer_nms_v4
#define HOOKS_nms_v5            .infer = infer_nms_v5
#define HOOKS_space_to_batch_nd .infer = infer_space_to_batch_nd, .cost = fl__op_cost_zero
#define HOOKS_batch_to_space_nd .infer = infer_batch_to_space_nd, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/broadcast.def"
#include "ops/array/concat.def"
#include "ops/array/gather.def"
#include "ops/array/one_hot.def"
#include "ops/array/pad.def"
#include "ops/array/range.def"
#include "ops/array/reshape.def"
#include "ops/array/selection.def"
#include "ops/array/shape.def"
#include "ops/array/slice.def"
#include "ops/array/space_batch.def"
#include "ops/array/split.def"
#include "ops/array/tile_fill.def"
#include "ops/array/transpose.def"
#undef FL_OP
