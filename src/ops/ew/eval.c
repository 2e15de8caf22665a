/*
 * eval.c - the element-wise family's evaluation loop and infer checks
 * (ew.h): eval hooks compute output 0 element by element from every data
 * input, under numpy broadcasting (Select's vector condition picks rows of
 * dim 0), when every input has a value; AddN and AccumulateNV2 sum in input
 * order rounding after every addition (TensorFlow's runtime order is the
 * order inputs become ready; integer sums do not depend on it).
 */
#include "ops/ew/ew.h"

#include <string.h>

/* True when the output tensor's (concrete) shape is exactly the broadcast of
 * the input values ins[first..nin). */
static bool bcast_matches(const fl_tensor *out, const fl_value *const *ins, int first, int nin) {
    if (!fl__shape_is_concrete(&out->shape)) {
        return false;
    }
    int r = out->shape.rank, maxr = 0;
    for (int j = first; j < nin; j++) {
        if (ins[j]->rank > r) {
            return false;
        }
        if (ins[j]->rank > maxr) {
            maxr = ins[j]->rank;
        }
    }
    if (maxr != r) {
        return false;
    }
    for (int d = 0; d < r; d++) {
        int64_t od = out->shape.dims[d].k;
        bool hit = od == 1;
        for (int j = first; j < nin; j++) {
            int k = ins[j]->rank - r + d;
            if (k < 0) {
                continue;
            }
            int64_t id = ins[j]->dims[k];
            if (id == od) {
                hit = true;
            } else if (id != 1) {
                return false;
            }
        }
        if (!hit) {
            return false;
        }
    }
    return true;
}

static bool all_values(const fl_node *n) {
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl_op_in_value(n, i)) {
            return false;
        }
    }
    return true;
}

fl_status fl__ew_no_value(fl_ctx *c) {
    return c->d->status == FL_ENOMEM ? FL_ENOMEM : FL_OK;
}

static bool same_dims(const fl_value *a, const fl_value *b) {
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i]) {
            return false;
        }
    }
    return true;
}

/* Numpy broadcasting as a walk over the output's elements in order: at[j]
 * (j < nin) is input j's flat index of the current element, stepped by the
 * input's stride in the output dim that moves (0 where the input has size 1
 * there or no such dim). The array holds at, then the output coordinates
 * (rank), then the steps (step[d * nin + j]); NULL when memory runs out. */
static int64_t *bcast_walk(fl_arena *a, const fl_value *const *ins, int nin, int rank) {
    int64_t *at =
        fl__arena_calloc(a, (size_t)(nin + rank) + (size_t)nin * (size_t)rank, sizeof(int64_t));
    if (!at) {
        return NULL;
    }
    int64_t *step = at + nin + rank;
    for (int j = 0; j < nin; j++) {
        int64_t s = 1;
        for (int d = rank - 1, k = ins[j]->rank - 1; d >= 0 && k >= 0; d--, k--) {
            step[d * nin + j] = ins[j]->dims[k] != 1 ? s : 0;
            s *= ins[j]->dims[k];
        }
    }
    return at;
}

/* Moves bcast_walk's indices to the next output element (dims: the
 * output's). */
static void bcast_next(int64_t *at, int nin, int rank, const int64_t *dims) {
    int64_t *coord = at + nin, *step = coord + rank;
    for (int d = rank - 1; d >= 0; d--) {
        const int64_t *sd = step + (size_t)d * (size_t)nin;
        if (++coord[d] < dims[d]) {
            for (int j = 0; j < nin; j++) {
                at[j] += sd[j];
            }
            return;
        }
        coord[d] = 0;
        for (int j = 0; j < nin; j++) {
            at[j] -= sd[j] * (dims[d] - 1);
        }
    }
}

/* Whether a two-input op's elements are o->kind applied to both inputs'
 * elements (ew_run's default case) and, for integers, fl__ew_bin_apply's
 * integer arithmetic (not a comparison or logical op). */
static bool plain_int_binary(int kind) {
    switch (kind) {
    case FL_OP_CAST:
    case FL_OP_SELECT:
    case FL_OP_SELECT_V2:
    case FL_OP_ADD_N:
    case FL_OP_ACCUMULATE_NV2:
    case FL_OP_CLIP_BY_VALUE:
        return false;
    default:
        return !fl__ew_is_compare(kind) && !fl__ew_is_logical(kind);
    }
}

/* ew_run for integer arithmetic on two integer inputs into integer v (at:
 * bcast_walk's indices): two known elements are computed directly, as
 * fl__ew_bin_apply and fl__ew_put_num would; any other pair goes through
 * them. False when an element has no value (then neither has v). */
static bool int_binary_run(const ew_op *o, const fl_value *const *ins, fl_value *v, int64_t *at) {
    const fl_sym *x = ins[0]->ints, *y = ins[1]->ints;
    fl_sym *out = (fl_sym *)v->ints;
    for (int64_t i = 0; i < v->n; i++) {
        fl_sym a = x[at[0]], b = y[at[1]];
        bcast_next(at, 2, v->rank, v->dims);
        if (fl_sym_is_known(a) && fl_sym_is_known(b)) {
            int64_t k;
            if (!fl__ew_int_known_binop(o->kind, o->in_dt, a.k, b.k, &k)) {
                return false;
            }
            out[i] = fl_sym_const(fl__ew_wrap_int(v->dtype, (uint64_t)k));
            continue;
        }
        ew_num na = {false, 0, a}, nb = {false, 0, b}, r;
        if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b) ||
            !fl__ew_bin_apply(o, o->kind, &na, &nb, &r) || !fl__ew_put_num(v, i, &r)) {
            return false;
        }
    }
    return true;
}

/* Evaluates output 0 element by element from all data inputs. */
static fl_status ew_run(fl_ctx *c, fl_node *n, const ew_op *o) {
    int nin = n->n_inputs;
    if (nin < 1 || n->n_outputs < 1 || !all_values(n) ||
        fl__ew_vkind(n->outputs[0].dtype) == VK_NONE) {
        return FL_OK;
    }
    const fl_value **ins = fl__arena_calloc(c->a, (size_t)nin, sizeof(*ins));
    ew_num *args = fl__arena_calloc(c->a, (size_t)nin, sizeof(*args));
    if (!ins || !args) {
        return fl__diag_oom(c->d);
    }
    for (int j = 0; j < nin; j++) {
        ins[j] = fl_op_in_value(n, j);
        if (fl__ew_vkind(ins[j]->dtype) == VK_NONE) {
            return FL_OK;
        }
    }
    const fl_tensor *out = &n->outputs[0];
    bool cond_vec = false; /* Select: a vector condition picks rows of dim 0 */
    if (o->kind == FL_OP_SELECT && ins[0]->rank == 1 && ins[1]->rank > 1) {
        if (!same_dims(ins[1], ins[2]) || ins[0]->dims[0] != ins[1]->dims[0]) {
            return FL_OK;
        }
        cond_vec = true;
    } else if (o->kind == FL_OP_SELECT) {
        if (!same_dims(ins[1], ins[2]) || (ins[0]->rank != 0 && !same_dims(ins[0], ins[1]))) {
            return FL_OK;
        }
    } else if (o->kind == FL_OP_CLIP_BY_VALUE || o->kind == FL_OP_ADD_N ||
               o->kind == FL_OP_ACCUMULATE_NV2) {
        for (int j = 1; j < nin; j++) {
            bool ok =
                same_dims(ins[j], ins[0]) || (o->kind == FL_OP_CLIP_BY_VALUE && ins[j]->rank == 0);
            if (!ok) {
                return FL_OK;
            }
        }
    }
    if (!bcast_matches(out, ins, cond_vec ? 1 : 0, nin)) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
    }
    if (v->n == 0) {
        /* Nothing to compute, and nothing to walk: beside a zero dim the
         * others may be huge, and their strides overflow int64. */
        fl__op_set_value(n, 0, v);
        return FL_OK;
    }
    int64_t inner = 1;
    if (cond_vec) {
        for (int d = 1; d < v->rank; d++) {
            inner *= v->dims[d];
        }
    }
    int64_t *at = bcast_walk(c->a, ins, nin, v->rank);
    if (!at) {
        return fl__diag_oom(c->d);
    }
    if (nin == 2 && ins[0]->ints && ins[1]->ints && v->ints && plain_int_binary(o->kind)) {
        if (int_binary_run(o, ins, v, at)) {
            fl__op_set_value(n, 0, v);
        }
        return FL_OK;
    }
    for (int64_t i = 0; i < v->n; i++) {
        for (int j = 0; j < nin; j++) {
            int64_t idx = (cond_vec && j == 0) ? (inner ? i / inner : 0) : at[j];
            if (!fl__ew_get_num(ins[j], idx, &args[j])) {
                return FL_OK;
            }
        }
        bcast_next(at, nin, v->rank, v->dims);
        ew_num r;
        bool ok;
        switch (o->kind) {
        case FL_OP_CAST:
            ok = fl__ew_cast_apply(o, &args[0], &r);
            break;
        case FL_OP_SELECT:
        case FL_OP_SELECT_V2:
            ok = !args[0].f && fl_sym_is_known(args[0].s);
            if (ok) {
                r = args[0].s.k ? args[1] : args[2];
            }
            break;
        case FL_OP_ADD_N:
        case FL_OP_ACCUMULATE_NV2:
            r = args[0];
            ok = true;
            for (int j = 1; j < nin && ok; j++) {
                ew_num t;
                ok = fl__ew_bin_apply(o, FL_OP_ADD, &r, &args[j], &t);
                if (ok && t.f) {
                    t.x = fl__ew_round_dt(o->in_dt, t.x);
                }
                r = t;
            }
            break;
        case FL_OP_CLIP_BY_VALUE: {
            ew_num t;
            ok = fl__ew_bin_apply(o, FL_OP_MINIMUM, &args[0], &args[2], &t) &&
                 fl__ew_bin_apply(o, FL_OP_MAXIMUM, &t, &args[1], &r);
            break;
        }
        default:
            ok = nin == 1 ? fl__ew_un_apply(o, &args[0], &r)
                          : fl__ew_bin_apply(o, o->kind, &args[0], &args[1], &r);
            break;
        }
        if (!ok || !fl__ew_put_num(v, i, &r)) {
            return FL_OK;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

fl_status fl__ew_op_setup(fl_ctx *c, fl_node *n, ew_op *o) {
    memset(o, 0, sizeof(*o));
    o->c = c;
    o->kind = n->kind;
    int src = (n->kind == FL_OP_SELECT || n->kind == FL_OP_SELECT_V2) ? 1 : 0;
    const fl_value *v = src < n->n_inputs ? fl_op_in_value(n, src) : NULL;
    o->in_dt = v ? fl_dtype_base(v->dtype) : FL_DT_INVALID;
    o->out_dt = n->n_outputs > 0 ? fl_dtype_base(n->outputs[0].dtype) : FL_DT_INVALID;
    fl_status st = FL_OK;
    if (n->kind == FL_OP_LEAKY_RELU) {
        float a;
        st = fl__attr_float_or(n, "alpha", 0.2f, &a, c->d);
        o->alpha = a;
    } else if (n->kind == FL_OP_GELU) {
        st = fl__attr_bool_or(n, "approximate", false, &o->approximate, c->d);
    } else if (n->kind == FL_OP_CAST) {
        st = fl__attr_bool_or(n, "Truncate", false, &o->truncate, c->d);
    }
    return st;
}

fl_status fl__ew_eval(fl_ctx *c, fl_node *n) {
    ew_op o;
    fl_status st = fl__ew_op_setup(c, n, &o);
    if (st != FL_OK) {
        return st;
    }
    return ew_run(c, n, &o);
}

/* Merges two shapes that must be equal (unknown parts are filled from the
 * other side). */
fl_status fl__ew_merge_shapes(fl_ctx *c, const fl_node *n, const fl_shape *a, const fl_shape *b,
                              const char *what, fl_shape *out) {
    if (a->rank < 0) {
        *out = *b;
        return FL_OK;
    }
    if (b->rank < 0) {
        *out = *a;
        return FL_OK;
    }
    if (a->rank != b->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%s must have the same shape, got ranks %d and %d",
                             what, a->rank, b->rank);
    }
    fl_sym *d = fl__arena_calloc(c->a, a->rank ? (size_t)a->rank : 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < a->rank; i++) {
        fl_sym x = a->dims[i], y = b->dims[i];
        if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "%s must have the same shape, dim %d is %lld vs %lld", what, i,
                                 (long long)x.k, (long long)y.k);
        }
        fl_status st = fl__op_merge_dim(c, n, x, y, what, &d[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    out->rank = a->rank;
    out->dims = d;
    return FL_OK;
}

/* True when broadcasting a with b fails for certain (the fl__op_broadcast
 * error condition). */
bool fl__ew_bcast_incompatible(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || b->rank < 0) {
        return false;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        if (ia < 0 || ib < 0) {
            continue;
        }
        fl_sym x = a->dims[ia], y = b->dims[ib];
        if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k && x.k != 1 && y.k != 1) {
            return true;
        }
    }
    return false;
}

/* A known scalar or 1-element integer value of input i. */
bool fl__ew_in_scalar_int(const fl_node *n, int i, int64_t *out) {
    const fl_value *v = fl_op_in_value(n, i);
    if (!v || !v->ints || v->n != 1 || v->rank > 1 || !fl_sym_is_known(v->ints[0])) {
        return false;
    }
    *out = v->ints[0].k;
    return true;
}

/* Input i must be a scalar (TensorFlow: WithRank 0); a 1-element vector is
 * accepted too, as tfjs graphs give ArgMax's dimension and Cumsum's axis
 * ([1]): unlike fl__op_want_scalar, on purpose. */
fl_status fl__ew_want_scalar_or_one(fl_ctx *c, const fl_node *n, int i, const char *name) {
    const fl_shape *s = &fl_node_in(n, i)->shape;
    if (s->rank < 0 || s->rank == 0) {
        return FL_OK;
    }
    if (s->rank == 1 && (!fl_sym_is_known(s->dims[0]) || s->dims[0].k == 1)) {
        return FL_OK;
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be a scalar, got rank %d", name,
                         s->rank);
}
