/*
 * util.c - helpers shared by the ONNX op families; see util.h.
 */
#include "ops/onnxops/util.h"

#include <stdio.h>
#include <string.h>

fl_status fl__ox_need_int_attrs(fl_ctx *c, const fl_node *n, const char *const *names) {
    for (; *names; names++) {
        int64_t v;
        fl_status st = fl__attr_need_int(n, *names, &v, c->d);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

bool fl__ox_absent(const fl_node *n, int i) {
    return i >= n->n_inputs || n->inputs[i].node->kind == FL_OP_ONNX_ABSENT;
}

bool fl__ox_known_bool(const fl_node *n, int i, bool *v) {
    const fl_value *x = fl__ox_absent(n, i) ? NULL : fl_op_in_value(n, i);
    if (!x || x->n != 1 || !x->ints || !fl_sym_is_known(x->ints[0])) {
        return false;
    }
    *v = x->ints[0].k != 0;
    return true;
}

int fl__ox_in_dtype(const fl_node *n, int i) {
    return fl__ox_absent(n, i) ? FL_DT_INVALID : (int)fl_dtype_base(fl_node_in(n, i)->dtype);
}

fl_status fl__ox_ints_attr(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                           int64_t *out) {
    const int64_t *v;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, name, &v, &cnt, c->d);
    if (st == FL_ENOTFOUND) {
        for (int i = 0; i < want; i++) {
            out[i] = dflt;
        }
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if ((int)cnt != want) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' has %zu entries, expects %d", name, cnt,
                             want);
    }
    memcpy(out, v, (size_t)want * sizeof(int64_t));
    return FL_OK;
}

fl_status fl__ox_norm_axis(fl_ctx *c, const fl_node *n, int64_t axis, int rank, const char *what,
                           int *out) {
    if (axis < -(int64_t)rank || axis >= rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%s %lld is out of range for rank %d", what,
                             (long long)axis, rank);
    }
    *out = (int)(axis < 0 ? axis + rank : axis);
    return FL_OK;
}

fl_status fl__ox_ints_in_or_attr(fl_ctx *c, const fl_node *n, int i, const char *attr,
                                 const int64_t **out, int64_t *cnt, bool *found) {
    *found = true;
    if (!fl__ox_absent(n, i)) {
        int64_t *v;
        fl_status st = fl__op_in_int_vector(c, n, i, &v, cnt);
        *out = v;
        return st;
    }
    size_t k;
    fl_status st = fl__attr_get_ints(n, attr, out, &k, c->d);
    if (st == FL_ENOTFOUND) {
        *found = false;
        *cnt = 0;
        return FL_OK;
    }
    *cnt = (int64_t)k;
    return st;
}

fl_status fl__ox_twin(fl_ctx *c, fl_node *n, int tf_kind, bool eval) {
    fl_node p = *n;
    p.kind = tf_kind;
    p.desc = fl__op_desc_of(tf_kind);
    if (!p.desc) {
        return fl__node_fail(c->d, FL_EINTERNAL, n, "no TensorFlow twin op");
    }
    if (eval) {
        return p.desc->eval ? p.desc->eval(c, &p) : FL_OK;
    }
    return p.desc->infer(c, &p);
}

fl_status fl__ox_infer_same(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st = FL_OK;
    for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    }
    return st;
}

fl_status fl__ox_set_out(fl_ctx *c, fl_node *n, int port, int dtype, int rank, const fl_sym *dims) {
    if (port >= n->n_outputs) {
        return FL_OK;
    }
    return fl__op_set_output(c, n, port, dtype, rank, dims);
}

fl_status fl__ox_cost_per_out(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, &n->outputs[0].shape), per);
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

fl_status fl__ox_cost_per_in(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, &fl_node_in(n, 0)->shape), per);
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

fl_status fl__ox_reduce_axes(fl_ctx *c, const fl_node *n, const fl_shape *x, bool *mask,
                             bool *known) {
    const int64_t *axes;
    int64_t na;
    bool found;
    int64_t noop;
    *known = true;
    fl_status st = fl__ox_ints_in_or_attr(c, n, 1, "axes", &axes, &na, &found);
    if (st == FL_ENOTFOUND) {
        *known = false;
        return FL_OK;
    }
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "noop_with_empty_axes", 0, &noop, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    for (int i = 0; i < x->rank; i++) {
        mask[i] = (!found || na == 0) && !noop;
    }
    for (int64_t i = 0; i < na; i++) {
        int ax = 0;
        if ((st = fl__ox_norm_axis(c, n, axes[i], x->rank, "axis", &ax)) != FL_OK) {
            return st;
        }
        mask[ax] = true;
    }
    return FL_OK;
}

fl_status fl__ox_infer_reduce(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t keep;
    fl_status st = fl__attr_int_or(n, "keepdims", 1, &keep, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0 || x->rank > 254) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    bool mask[256], known;
    if ((st = fl__ox_reduce_axes(c, n, x, mask, &known)) != FL_OK) {
        return st;
    }
    if (!known) {
        return keep ? fl__op_set_output_rank(c, n, 0, fl__ox_in_dtype(n, 0), x->rank)
                    : fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    fl_sym dims[256];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!mask[i]) {
            dims[r++] = x->dims[i];
        } else if (keep) {
            dims[r++] = fl_sym_const(1);
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), r, dims);
}

/* A copy of n with kind `kind` and n's inputs idx[0..n_idx) (absent ones
 * dropped from the end); ins holds the inputs. */
/* The input an absent delegated slot reads: onnx::_absent's marker (what
 * fl__ox_absent recognises), never written. */
static fl_tensor absent_out = {.dtype = FL_DT_INVALID, .shape = {.rank = -1}};
static fl_node absent_node = {.kind = FL_OP_ONNX_ABSENT, .outputs = &absent_out, .n_outputs = 1};

static fl_status delegate_node(fl_ctx *c, const fl_node *n, int kind, const int *idx, int n_idx,
                               fl_input *ins, fl_node *p) {
    if (n_idx > 16) {
        return fl__node_fail(c->d, FL_EINTERNAL, n, "too many delegated inputs");
    }
    int cnt = 0;
    for (int i = 0; i < n_idx; i++) {
        bool there = idx[i] >= 0 && idx[i] < n->n_inputs;
        ins[i] = there ? n->inputs[idx[i]] : (fl_input){.node = &absent_node, .port = 0};
        cnt = there ? i + 1 : cnt;
    }
    *p = *n;
    p->kind = kind;
    p->desc = fl__op_desc_of(kind);
    p->inputs = ins;
    p->n_inputs = cnt;
    if (!p->desc || !p->desc->infer || !p->desc->cost) {
        return fl__node_fail(c->d, FL_EINTERNAL, n, "no delegate op");
    }
    return FL_OK;
}

fl_status fl__ox_delegate(fl_ctx *c, fl_node *n, int kind, const int *idx, int n_idx) {
    fl_input ins[16];
    fl_node p;
    fl_status st = delegate_node(c, n, kind, idx, n_idx, ins, &p);
    return st == FL_OK ? p.desc->infer(c, &p) : st;
}

fl_status fl__ox_delegate_view(fl_ctx *c, fl_node *n, int kind, const int *idx, int n_idx, int at,
                               fl_tensor *view) {
    fl_input ins[16];
    fl_node p, src = {.name = n->name, .n_outputs = 1, .outputs = view};
    fl_status st = delegate_node(c, n, kind, idx, n_idx, ins, &p);
    if (st == FL_OK && at >= 0 && at < p.n_inputs) {
        ins[at] = (fl_input){&src, 0};
    }
    return st == FL_OK ? p.desc->infer(c, &p) : st;
}

fl_status fl__ox_cost_delegate(fl_ctx *c, const fl_node *n, int kind, const int *idx, int n_idx,
                               fl_cost *out) {
    fl_input ins[16];
    fl_node p;
    fl_status st = delegate_node(c, n, kind, idx, n_idx, ins, &p);
    return st == FL_OK ? p.desc->cost(c, &p, out) : st;
}

fl_status fl__ox_retype(fl_ctx *c, fl_node *n, int port, int dt) {
    (void)c;
    if (port < n->n_outputs) {
        n->outputs[port].dtype = (fl_dtype)dt;
    }
    return FL_OK;
}

fl_status fl__ox_infer_bcast(fl_ctx *c, fl_node *n, int dt) {
    fl_shape out;
    fl_status st = fl__op_broadcast(c, n, &fl_node_in(n, 0)->shape, &fl_node_in(n, 1)->shape, &out);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, out.rank, out.dims) : st;
}

fl_status fl__ox_attr_pick(fl_ctx *c, const fl_node *n, const char *name, const char *dflt,
                           const char *const *choices, int *idx) {
    const char *v;
    fl_status st = fl__attr_str_or(n, name, dflt, &v, c->d);
    if (st != FL_OK) {
        return st;
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; choices[i]; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *idx = i;
            return FL_OK;
        }
        const char *sep = i == 0 ? "" : choices[i + 1] ? ", " : " or ";
        int w = snprintf(list + used, sizeof list - used, "%s%s", sep, choices[i]);
        used = w > 0 && (size_t)w < sizeof list - used ? used + (size_t)w : used;
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is '%.64s' (%s)", name, v, list);
}

bool fl__ox_opset_before(const fl_ctx *c, int64_t v) {
    return c->g->onnx.is_onnx && c->g->onnx.opset >= 1 && c->g->onnx.opset < v;
}

bool fl__ox_bn_training(const fl_graph *g, const fl_node *n) {
    int64_t opset = g->onnx.is_onnx ? g->onnx.opset : 0;
    if (opset >= 7 && opset < 14) {
        return n->n_outputs > 1;
    }
    bool old = opset >= 1 && opset < 7;
    const fl_attr *a = fl__node_attr(n, old ? "is_test" : "training_mode");
    int64_t v = a && a->kind == FL_ATTR_I ? a->v.i : 0;
    return old ? v == 0 : v != 0;
}

bool fl__ox_legacy_bcast(const fl_ctx *c, const fl_node *n) {
    if (!c->g->onnx.is_onnx || c->g->onnx.opset < 1 || c->g->onnx.opset >= 7 || n->n_inputs != 2) {
        return false;
    }
    switch (n->kind) {
    case FL_OP_ONNX_ADD:
    case FL_OP_ONNX_SUB:
    case FL_OP_ONNX_MUL:
    case FL_OP_ONNX_DIV:
    case FL_OP_ONNX_POW:
    case FL_OP_ONNX_AND:
    case FL_OP_ONNX_OR:
    case FL_OP_ONNX_XOR:
    case FL_OP_ONNX_EQUAL:
    case FL_OP_ONNX_GREATER:
    case FL_OP_ONNX_LESS:
        return true;
    default:
        return false;
    }
}

/* Where a legacy B lies in A: *ax its first dim in A (0 without broadcast,
 * the back by default), *one a one-element B (broadcast 1). false when a
 * rank is unknown. */
static bool legacy_place(const fl_shape *a, const fl_shape *b, int64_t bc, int64_t axis,
                         int64_t *ax, bool *one) {
    if (a->rank < 0 || b->rank < 0) {
        return false;
    }
    bool single = bc && b->rank <= a->rank;
    for (int i = 0; i < b->rank && single; i++) {
        single = fl_sym_is_known(b->dims[i]) && b->dims[i].k == 1;
    }
    *one = single;
    *ax = !bc ? 0 : axis == INT64_MIN ? a->rank - b->rank : axis;
    return true;
}

bool fl__ox_legacy_unaligned(const fl_ctx *c, const fl_node *n) {
    if (!fl__ox_legacy_bcast(c, n)) {
        return false;
    }
    const fl_attr *ba = fl__node_attr(n, "broadcast"), *xa = fl__node_attr(n, "axis");
    int64_t bc = ba && ba->kind == FL_ATTR_I ? ba->v.i : 0;
    int64_t axis = xa && xa->kind == FL_ATTR_I ? xa->v.i : INT64_MIN;
    const fl_shape *a = &fl_node_in(n, 0)->shape, *b = &fl_node_in(n, 1)->shape;
    int64_t ax;
    bool one;
    if (!legacy_place(a, b, bc, axis, &ax, &one)) {
        return bc && axis != INT64_MIN; /* an explicit axis of unknown effect */
    }
    return !one && ax != a->rank - b->rank;
}

fl_status fl__ox_infer_legacy_bcast(fl_ctx *c, fl_node *n, int dt, bool *aligned) {
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    int64_t bc, axis;
    bool is_aligned = false;
    fl_status st = fl__attr_int_or(n, "broadcast", 0, &bc, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", INT64_MIN, &axis, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t ax;
    bool one;
    if (legacy_place(a, b, bc, axis, &ax, &one)) {
        if (!one && (bc ? ax < 0 || ax + b->rank > a->rank : b->rank != a->rank)) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 1 has rank %d, input 0 rank %d: with attr 'broadcast' "
                                 "%lld and attr 'axis' %lld it must %s (legacy broadcasting, "
                                 "opset %lld)",
                                 b->rank, a->rank, (long long)bc,
                                 (long long)(axis == INT64_MIN ? ax : axis),
                                 bc ? "lie within input 0's dims" : "equal input 0's shape",
                                 (long long)c->g->onnx.opset);
        }
        for (int i = 0; i < b->rank && !one; i++) {
            fl_sym x = b->dims[i], y = a->dims[ax + i];
            if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 1's dim %d is %lld but input 0's dim %lld is %lld "
                                     "(attr 'broadcast' %lld, axis %lld: legacy broadcasting, "
                                     "opset %lld)",
                                     i, (long long)x.k, (long long)(ax + i), (long long)y.k,
                                     (long long)bc, (long long)ax, (long long)c->g->onnx.opset);
            }
        }
        is_aligned = one || ax == a->rank - b->rank;
    }
    if (aligned) {
        *aligned = is_aligned;
    }
    return fl__op_set_output(c, n, 0, dt, a->rank, a->dims);
}

fl_status fl__ox_bsh_input(fl_ctx *c, const fl_node *n, fl_sym *b, fl_sym *s, fl_sym *h) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank >= 0 && x->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (input) has rank %d, want 3 (batch, sequence, hidden)",
                             x->rank);
    }
    *b = fl__shape_dim(x, 0);
    *s = fl__shape_dim(x, 1);
    *h = fl__shape_dim(x, 2);
    return FL_OK;
}

fl_status fl__ox_qkv_sizes(fl_ctx *c, const fl_node *n, fl_sym cols, fl_sym *hq, fl_sym *hk,
                           fl_sym *hv) {
    const int64_t *v;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, "qkv_hidden_sizes", &v, &cnt, c->d);
    if (st == FL_ENOTFOUND) {
        if (fl_sym_is_known(cols) && cols.k % 3 != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 1 (weights) has %lld columns, not three equal Q/K/V "
                                 "parts (attr 'qkv_hidden_sizes' absent)",
                                 (long long)cols.k);
        }
        *hq = *hk = *hv = fl_sym_is_known(cols) ? fl_sym_const(cols.k / 3) : fl_sym_unknown();
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (cnt != 3 || v[0] <= 0 || v[1] <= 0 || v[2] <= 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'qkv_hidden_sizes' must be three positive ints");
    }
    int64_t sum;
    if ((st = fl__op_ck(c, n, fl_ck_sum(v, 3), &sum,
                        "attr 'qkv_hidden_sizes' (%lld, %lld, %lld): their sum", (long long)v[0],
                        (long long)v[1], (long long)v[2])) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(cols) && cols.k != sum) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'qkv_hidden_sizes' sums to %lld, input 1 (weights) has %lld "
                             "columns",
                             (long long)sum, (long long)cols.k);
    }
    *hq = fl_sym_const(v[0]);
    *hk = fl_sym_const(v[1]);
    *hv = fl_sym_const(v[2]);
    return FL_OK;
}
