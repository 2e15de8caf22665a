/*
 * noop.c - the constant folding simplifications that find a node leaving
 * its input unchanged (constant_folding.cc, in SimplifyNode's order), rewritten
 * in place into Identity(input) with the other data inputs as control
 * inputs through their anchors (ReplaceOperationWithIdentity):
 *  - split_one: Split/SplitV with one piece;
 *  - RemoveRandomShuffle: RandomShuffle of a scalar or of dim 0 == 1;
 *  - tile_by_ones, pad_by_zeros: Tile by ones, Pad by zeros;
 *  - identity_transpose: a Transpose whose permutation keeps every dim that
 *    is not a known 1 in order;
 *  - full_slice: Slice from 0 with every size -1 or the dim's size;
 *  - reshape_to_same_shape: Reshape to the (concrete) shape it has;
 *  - squeeze_nothing: Squeeze of a concrete shape with no dim <= 1;
 *  - reverse_size_one: ReverseV2 over size-1 axes only;
 *  - reduce_nothing: Sum/Mean/Max/Min/Prod/All/Any over no axis, or with
 *    keep_dims over size-1 axes only;
 *  - SimplifyStridedSlice: an identity StridedSlice (no new or shrunk axis,
 *    strides 1, every begin 0 or masked, every end the dim or masked), the
 *    ellipsis expanded as Grappler does.
 * The rewrite fires only when the kept input has the node's dtype and
 * shape (constant_folding.c checks that).
 */
#include "passes/constfold/constfold.h"

/* 0 when p is a constant whose every element equals want, else -1. */
static int all_elems(const fl_value *p, int64_t want) {
    if (!p) {
        return -1;
    }
    for (int64_t i = 0; i < p->n; i++) {
        if (fl__cf_ival(p, i) != want) {
            return -1;
        }
    }
    return 0;
}

/* 0 when every axis in p (negative from the end) is a known size-1 dim of x. */
static int size_one_axes(const fl_shape *x, const fl_value *p) {
    for (int64_t i = 0; i < p->n; i++) {
        int64_t a = fl__cf_ival(p, i);
        a = a < 0 ? a + x->rank : a;
        if (a < 0 || a >= x->rank || !fl_sym_is_known(x->dims[a]) || x->dims[a].k != 1) {
            return -1;
        }
    }
    return 0;
}

static int noop_transpose(const fl_shape *x, const fl_value *p) {
    if (!p || !x || x->rank < 0 || p->n != x->rank) {
        return -1;
    }
    /* The dims that are not known 1 must keep their order. */
    int64_t last = -1;
    for (int64_t i = 0; i < p->n; i++) {
        int64_t a = fl__cf_ival(p, i);
        if (a < 0 || a >= x->rank) {
            return -1;
        }
        fl_sym d = x->dims[a];
        if (fl_sym_is_known(d) && d.k == 1) {
            continue;
        }
        if (a < last) {
            return -1;
        }
        last = a;
    }
    return 0;
}

static int noop_slice(const fl_node *n, const fl_shape *x, const fl_value *p) {
    const fl_value *sz = fl__cf_const_value(n, 2);
    if (!p || !sz || !x || x->rank < 0 || p->n != x->rank || sz->n != x->rank) {
        return -1;
    }
    for (int i = 0; i < x->rank; i++) {
        int64_t s = fl__cf_ival(sz, i);
        if (fl__cf_ival(p, i) != 0) {
            return -1;
        }
        if (s != -1 && !(fl_sym_is_known(x->dims[i]) && x->dims[i].k == s)) {
            return -1;
        }
    }
    return 0;
}

static int noop_squeeze(const fl_shape *x) {
    if (!x || !fl__shape_is_concrete(x)) {
        return -1;
    }
    for (int i = 0; i < x->rank; i++) {
        if (x->dims[i].k <= 1) {
            return -1;
        }
    }
    return 0;
}

static int noop_reduction(const fl_node *n, const fl_shape *x, const fl_shape *out,
                          const fl_value *p) {
    if (!p || !x || x->rank < 0) {
        return -1;
    }
    if (p->n == 0) {
        return fl__shape_same(x, out) ? 0 : -1;
    }
    const fl_attr *kd = fl__node_attr(n, "keep_dims");
    if (!kd || kd->kind != FL_ATTR_B || !kd->v.b) {
        return -1;
    }
    return size_one_axes(x, p);
}

static int noop_strided_slice(const fl_node *n, const fl_shape *x, const fl_value *p) {
    const fl_value *e = fl__cf_const_value(n, 2), *st = fl__cf_const_value(n, 3);
    if (n->n_inputs != 4 || !p || !e || !st || !x || x->rank < 0 ||
        fl__attr_int(n, "new_axis_mask", 0) || fl__attr_int(n, "shrink_axis_mask", 0)) {
        return -1;
    }
    for (int j = 0; j < x->rank; j++) {
        if (!fl_sym_is_known(x->dims[j])) {
            return -1;
        }
    }
    int64_t bm = fl__attr_int(n, "begin_mask", 0), em = fl__attr_int(n, "end_mask", 0);
    int64_t ell = fl__attr_int(n, "ellipsis_mask", 0), ns = st->n;
    /* Which input dims an ellipsis (given, or implied after the last
     * stride) covers. */
    int eidx = -1, n_exp = 0;
    bool expanded[64] = {false};
    if (x->rank > 64) {
        return -1;
    }
    for (int j = 0; j < x->rank; j++) {
        if ((j < 63 && (ell & ((int64_t)1 << j))) || (eidx == -1 && j >= ns)) {
            eidx = j;
        }
        if (eidx != -1 && x->rank > ns + j - eidx) {
            expanded[j] = true;
            n_exp++;
        }
    }
    for (int j = 0; j < x->rank; j++) {
        if (expanded[j]) {
            continue;
        }
        int i = eidx != -1 && j >= eidx + n_exp ? j - n_exp : j;
        if (i < 0 || i >= p->n || i >= e->n || i >= ns || i > 62) {
            return -1;
        }
        bool b_ok = (bm & ((int64_t)1 << i)) || fl__cf_ival(p, i) == 0;
        bool e_ok = (em & ((int64_t)1 << i)) || fl__cf_ival(e, i) == x->dims[j].k;
        if (!b_ok || !e_ok || fl__cf_ival(st, i) != 1) {
            return -1;
        }
    }
    return 0;
}

bool fl__cf_noop_input_kinds(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_SPLIT:
    case FL_OP_SPLIT_V:
    case FL_OP_RANDOM_SHUFFLE:
    case FL_OP_TILE:
    case FL_OP_PAD:
    case FL_OP_TRANSPOSE:
    case FL_OP_SLICE:
    case FL_OP_RESHAPE:
    case FL_OP_SQUEEZE:
    case FL_OP_REVERSE_V2:
    case FL_OP_STRIDED_SLICE:
        return true;
    default:
        return fl__cf_is_reduction(n->kind);
    }
}

int fl__cf_noop_input(const fl_node *n, const char **rule) {
    if (!fl__cf_noop_input_kinds(n)) {
        return -1;
    }
    if (n->n_outputs < 1) {
        return -1;
    }
    const fl_shape *out = &n->outputs[0].shape;
    const fl_shape *x = n->n_inputs ? &fl_node_in(n, 0)->shape : NULL;
    const fl_value *p = fl__cf_const_value(n, 1);
    switch (n->kind) {
    case FL_OP_SPLIT:
        *rule = "split_one";
        return n->n_outputs == 1 && n->n_inputs == 2 ? 1 : -1;
    case FL_OP_SPLIT_V:
        *rule = "split_one";
        return n->n_outputs == 1 && n->n_inputs == 3 ? 0 : -1;
    case FL_OP_RANDOM_SHUFFLE:
        /* RemoveRandomShuffle: a scalar, or dim 0 of size 1. */
        *rule = "RemoveRandomShuffle";
        return x && x->rank >= 0 &&
                       (x->rank == 0 || (fl_sym_is_known(x->dims[0]) && x->dims[0].k == 1))
                   ? 0
                   : -1;
    case FL_OP_TILE:
        *rule = "tile_by_ones";
        return all_elems(p, 1);
    case FL_OP_PAD:
        *rule = "pad_by_zeros";
        return all_elems(p, 0);
    case FL_OP_TRANSPOSE:
        *rule = "identity_transpose";
        return noop_transpose(x, p);
    case FL_OP_SLICE:
        *rule = "full_slice";
        return noop_slice(n, x, p);
    case FL_OP_RESHAPE:
        *rule = "reshape_to_same_shape";
        return p && x && fl__shape_is_concrete(x) && fl__shape_same(x, out) ? 0 : -1;
    case FL_OP_SQUEEZE:
        *rule = "squeeze_nothing";
        return noop_squeeze(x);
    case FL_OP_REVERSE_V2:
        *rule = "reverse_size_one";
        return p && x && x->rank >= 0 ? size_one_axes(x, p) : -1;
    case FL_OP_SUM:
    case FL_OP_MEAN:
    case FL_OP_MAX:
    case FL_OP_MIN:
    case FL_OP_PROD:
    case FL_OP_ALL:
    case FL_OP_ANY:
        *rule = "reduce_nothing";
        return noop_reduction(n, x, out, p);
    case FL_OP_STRIDED_SLICE:
        *rule = "SimplifyStridedSlice";
        return noop_strided_slice(n, x, p);
    default:
        return -1;
    }
}
