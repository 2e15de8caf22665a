/*
 * shape_vector.c - partial shape vectors (TensorFlow's shape-tensor
 * inference). Ops that read a shape from a tensor (Reshape, Fill,
 * BroadcastTo, SparseToDense) accept a partially known shape vector: besides
 * a known value they look through Shape, ShapeN, Pack of scalars, ConcatV2 of
 * vectors, 1-D StridedSlice, Cast and Identity, so [?, 7, 7, 64] ->
 * Reshape([batch, -1]) still gives [?, 3136]. Pad/MirrorPad paddings
 * computed as Reshape(vector, [r, 2]) keep their known entries the same way.
 */
#include "ops/array/array.h"

/* Partial shape vectors: how far back producers are followed, and how long. */
#define PV_DEPTH   16
#define PV_MAX_LEN 4096

static fl_status pv_copy(fl_ctx *c, const fl_sym *src, int64_t k, fl_sym **out, int64_t *len) {
    fl_sym *e = fl__array_alloc_syms(c, k);
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

/* Pack of scalars along axis 0: one element per input. */
static fl_status pv_pack(fl_ctx *c, const fl_node *p, int depth, fl_sym **out, int64_t *len) {
    fl_status st;
    int64_t axis = 0;
    if (fl__attr_int_or(p, "axis", 0, &axis, c->d) != FL_OK || (axis != 0 && axis != -1) ||
        p->n_inputs > PV_MAX_LEN) {
        return FL_ENOTFOUND;
    }
    fl_sym *e = fl__array_alloc_syms(c, p->n_inputs);
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
        st = fl__array_partial_vec(c, t, depth, &sub, &l);
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

/* ConcatV2 of vectors along axis 0: the inputs' elements in turn. */
static fl_status pv_concat(fl_ctx *c, const fl_node *p, int depth, fl_sym **out, int64_t *len) {
    fl_status st;
    int64_t axis;
    if (p->n_inputs < 2 || !fl__array_known_scalar(p, p->n_inputs - 1, &axis) ||
        (axis != 0 && axis != -1)) {
        return FL_ENOTFOUND;
    }
    fl_sym **parts = fl__array_alloc_n(c, p->n_inputs, sizeof(fl_sym *));
    int64_t *lens = fl__array_alloc_n(c, p->n_inputs, sizeof(int64_t));
    if (!parts || !lens) {
        return fl__diag_oom(c->d);
    }
    int64_t total = 0;
    for (int i = 0; i + 1 < p->n_inputs; i++) {
        st = fl__array_partial_vec(c, fl_node_in(p, i), depth, &parts[i], &lens[i]);
        if (st != FL_OK) {
            return st;
        }
        total += lens[i];
        if (total > PV_MAX_LEN) {
            return FL_ENOTFOUND;
        }
    }
    fl_sym *e = fl__array_alloc_syms(c, total);
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

/* A 1-D StridedSlice with one known begin, end and stride: the elements it selects. */
static fl_status pv_strided_slice(fl_ctx *c, const fl_node *p, int depth, fl_sym **out,
                                  int64_t *len) {
    fl_status st;
    const fl_sym *b, *e, *s;
    int64_t kb, ke, ks;
    ss_masks m;
    if (p->n_inputs < 4 || !fl__array_known_vec(p, 1, &b, &kb) ||
        !fl__array_known_vec(p, 2, &e, &ke) || !fl__array_known_vec(p, 3, &s, &ks) || kb != 1 ||
        ke != 1 || ks != 1 || fl_node_in(p, 0)->shape.rank > 1) {
        return FL_ENOTFOUND;
    }
    /* Attr errors were reported by the node's own infer. */
    fl_status mst = fl__array_ss_read_masks(c, p, &m);
    if (mst != FL_OK) {
        return mst;
    }
    if (m.ellipsis || m.new_axis) {
        return FL_ENOTFOUND;
    }
    fl_sym *src;
    int64_t L;
    st = fl__array_partial_vec(c, fl_node_in(p, 0), depth, &src, &L);
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
        return FL_ENOTFOUND;
    }
    int64_t start, size;
    bool ok;
    st = fl__array_ss_known(c, p, 0, &d, L, &start, &size, &ok);
    if (st != FL_OK) {
        return st;
    }
    if (!ok) {
        return FL_ENOTFOUND;
    }
    fl_sym *r = fl__array_alloc_syms(c, size);
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

/* What producer p tells about the vector on its output `port`; FL_ENOTFOUND
 * when it tells nothing. */
static fl_status pv_producer(fl_ctx *c, const fl_node *p, int port, int depth, fl_sym **out,
                             int64_t *len) {
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
    case FL_OP_PACK:
        return pv_pack(c, p, depth, out, len);
    case FL_OP_CONCAT_V2:
        return pv_concat(c, p, depth, out, len);
    case FL_OP_STRIDED_SLICE:
        return pv_strided_slice(c, p, depth, out, len);
    case FL_OP_CAST:
    case FL_OP_IDENTITY:
        if (p->n_inputs >= 1) {
            return fl__array_partial_vec(c, fl_node_in(p, 0), depth, out, len);
        }
        break;
    default:
        break;
    }
    return FL_ENOTFOUND;
}

/* Reads integer tensor t (a scalar or vector) as a vector whose elements may
 * be unknown. FL_ENOTFOUND when even its length is unknown. */
fl_status fl__array_partial_vec(fl_ctx *c, const fl_tensor *t, int depth, fl_sym **out,
                                int64_t *len) {
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
fl_status fl__array_shape_input(fl_ctx *c, const fl_node *n, int i, const char *name, fl_sym **out,
                                int64_t *len) {
    fl_status st = fl__array_partial_vec(c, fl_node_in(n, i), 0, out, len);
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
