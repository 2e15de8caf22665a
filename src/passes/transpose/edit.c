/*
 * edit.c - the graph edits of the transpose optimizer (transpose.h): a
 * Transpose put on an input of a node whose Transpose was pushed through it,
 * leading 1s put on an input of lower rank before that, Transposes put on
 * its outputs. As ONNX Runtime does them (TransposeInput, UnsqueezeInput,
 * TransposeOutputs of onnx_transpose_optimization.cc):
 *
 *  transpose input i of n by perm:
 *    1. a constant: a constant of the transposed value takes its place (one
 *       element: left as it is); other readers keep the old one (ONNX
 *       Runtime transposes the initializer in place and gives them a
 *       Transpose back, which its constant folding then turns into the old
 *       value again);
 *    2. a Transpose by the inverse of perm: its input (the Transpose goes
 *       when nothing else reads it); a Transpose by another perm p2: one
 *       Transpose of its input by the composition (p2 then perm);
 *    3. a reader of the input that is a Transpose by perm already: its output;
 *    4. else a new Transpose.
 *  prefix input i with k dims of 1:
 *    1. a constant: a constant of the new shape takes its place;
 *    2. a Squeeze of those very axes: its input;
 *    3. else an Unsqueeze (axes an int64 input from opset 13, else an attr);
 *       when its input is a Transpose, that Transpose is pushed through the
 *       new Unsqueeze at once (its perm widened to leave the new 1s where
 *       they are).
 *  transpose the outputs by perm: each output's readers read a new
 *    Transpose of it instead (nothing for the identity).
 */
#include "passes/transpose/transpose.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl__tp_is_transpose(const fl_node *n) {
    return n && n->kind == FL_OP_ONNX_TRANSPOSE && !(n->flags & FL_NODE_REMOVED);
}

bool fl__tp_perm_of(const fl_node *t, tp_perm *out) {
    const fl_attr *a = fl__node_attr(t, "perm");
    if (!a || a->kind != FL_ATTR_LIST || (a->n && a->list_kind != FL_ATTR_I) ||
        a->n > TP_MAX_RANK) {
        return false; /* no perm: reversal of a rank only inference knows */
    }
    bool used[TP_MAX_RANK] = {false};
    out->n = (int)a->n;
    for (size_t i = 0; i < a->n; i++) {
        int64_t v = a->v.list.i[i];
        if (v < 0 || v >= (int64_t)a->n || used[v]) {
            return false;
        }
        used[v] = true;
        out->p[i] = v;
    }
    return true;
}

void fl__tp_invert(const tp_perm *p, tp_perm *out) {
    out->n = p->n;
    for (int i = 0; i < p->n; i++) {
        out->p[p->p[i]] = i;
    }
}

bool fl__tp_same(const tp_perm *a, const tp_perm *b) {
    return a->n == b->n && memcmp(a->p, b->p, (size_t)a->n * sizeof(int64_t)) == 0;
}

bool fl__tp_identity(const tp_perm *p) {
    for (int i = 0; i < p->n; i++) {
        if (p->p[i] != i) {
            return false;
        }
    }
    return true;
}

static bool live(const fl_node *n) {
    return n && !(n->flags & FL_NODE_REMOVED);
}

/* The walk over every node that the index replaces (and is checked by). */
static size_t readers_walk(const tp_ctx *x, const fl_node *n, int port, fl_node **out, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < x->g->n_nodes; i++) {
        fl_node *m = x->g->nodes[i];
        if (!live(m)) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            if (m->inputs[j].node == n && m->inputs[j].port == port) {
                if (k < cap) {
                    out[k] = m;
                }
                k++;
                break;
            }
        }
    }
    return k;
}

static void fail_oom(tp_ctx *x) {
    if (x->st == FL_OK) {
        x->st = fl__diag_oom(x->d);
    }
}

void fl__tp_note(tp_ctx *x, fl_node *n) {
    if (x->index.g && fl__edge_index_note(&x->index, n, x->d) != FL_OK) {
        fail_oom(x);
    }
}

void fl__tp_set_input(tp_ctx *x, fl_node *n, int i, fl_input in) {
    fl__node_set_input(x->g, n, i, in);
    fl__tp_note(x, n);
}

void fl__tp_round_end(tp_ctx *x) {
    fl__edge_index_free(&x->index);
}

static bool reads(const fl_node *m, const fl_node *n, int port) {
    for (int j = 0; j < m->n_inputs; j++) {
        if (m->inputs[j].node == n && m->inputs[j].port == port) {
            return true;
        }
    }
    return false;
}

/* The readers of (n, port) by the index, each once (FL_NODE_MARK while
 * collected), in x->rbuf sorted by id: the walk's order. SIZE_MAX on OOM. */
static size_t readers_indexed(tp_ctx *x, const fl_node *n, int port) {
    if (!x->index.g && fl__edge_index_build(x->g, &x->index, x->d) != FL_OK) {
        return SIZE_MAX;
    }
    size_t k = 0;
    for (uint32_t at = fl__edge_index_first(&x->index, n); at;
         at = fl__edge_index_at(&x->index, at)->next) {
        fl_node *m = fl__edge_index_reader(&x->index, at);
        if ((m->flags & (FL_NODE_REMOVED | FL_NODE_MARK)) || !reads(m, n, port)) {
            continue;
        }
        if (k == x->rcap) {
            size_t nc = x->rcap ? 2 * x->rcap : 64;
            fl_node **nb = realloc(x->rbuf, nc * sizeof(*nb));
            if (!nb) {
                k = SIZE_MAX;
                break;
            }
            x->rbuf = nb;
            x->rcap = nc;
        }
        m->flags |= FL_NODE_MARK;
        x->rbuf[k++] = m;
    }
    for (size_t i = 0; i < k && k != SIZE_MAX; i++) {
        x->rbuf[i]->flags &= ~(uint32_t)FL_NODE_MARK;
    }
    if (k == SIZE_MAX) {
        for (uint32_t a = fl__edge_index_first(&x->index, n); a;
             a = fl__edge_index_at(&x->index, a)->next) {
            fl__edge_index_reader(&x->index, a)->flags &= ~(uint32_t)FL_NODE_MARK;
        }
        return SIZE_MAX;
    }
    for (size_t i = 1; i < k; i++) { /* few readers: insertion sort by id */
        fl_node *m = x->rbuf[i];
        size_t j = i;
        for (; j > 0 && x->rbuf[j - 1]->id > m->id; j--) {
            x->rbuf[j] = x->rbuf[j - 1];
        }
        x->rbuf[j] = m;
    }
    return k;
}

size_t fl__tp_readers(tp_ctx *x, const fl_node *n, int port, fl_node **out, size_t cap) {
    size_t k = readers_indexed(x, n, port);
    if (k == SIZE_MAX) {
        fail_oom(x);
        return readers_walk(x, n, port, out, cap);
    }
    for (size_t i = 0; i < k && i < cap; i++) {
        out[i] = x->rbuf[i];
    }
    if (fl__checks_on()) {
        fl_node *w[64];
        size_t kw = readers_walk(x, n, port, w, 64);
        bool same = kw == k;
        for (size_t i = 0; same && i < k && i < 64; i++) {
            same = w[i] == x->rbuf[i];
        }
        if (!same && x->st == FL_OK) {
            x->st = fl__node_fail(x->d, FL_EINTERNAL, n,
                                  "transpose: the reader index lists %zu readers of output %d, "
                                  "the graph has %zu",
                                  k, port, kw);
        }
    }
    return k;
}

bool fl__tp_has_readers(tp_ctx *x, const fl_node *n, int port) {
    return fl__tp_readers(x, n, port, NULL, 0) > 0;
}

bool fl__tp_is_constant(const fl_node *n) {
    return fl__is_const(n) && n->n_outputs == 1 && fl__shape_is_concrete(&n->outputs[0].shape);
}

int fl__tp_value_rank(const fl_input *in) {
    const fl_shape *s = &in->node->outputs[in->port].shape;
    if (s->rank < 0) {
        return 5;
    }
    int r = 0;
    for (int i = 0; i < s->rank; i++) {
        r += !(fl_sym_is_known(s->dims[i]) && s->dims[i].k == 1);
    }
    return r;
}

void fl__tp_decline(tp_ctx *x, const fl_node *at, const char *why) {
    if (!x->declined) {
        x->declined = why;
        x->declined_at = at;
    }
}

void fl__tp_drop_if_unused(tp_ctx *x, fl_node *n) {
    if (!live(n) || fl__preserved(n) || n->n_ctrl_consumers) {
        return;
    }
    for (int p = 0; p < n->n_outputs; p++) {
        if (fl__tp_has_readers(x, n, p)) {
            return;
        }
    }
    fl__graph_remove_node(n);
    x->pc->removed++;
}

void fl__tp_infer(tp_ctx *x, fl_node *n) {
    if (x->st == FL_OK && fl__infer_node(x->pc, n) != FL_OK) {
        x->st = x->d->status != FL_OK ? x->d->status : FL_EINTERNAL;
    }
}

/* A new node of ONNX op `op` (kind `kind`) named after `base`, on
 * `near`'s device. */
fl_node *fl__tp_add_node(tp_ctx *x, const fl_node *near, const char *base, const char *op, int kind,
                         int n_in, const fl_input *in) {
    const char *name = fl__graph_unique_name(x->g, base);
    fl_node *nn = name ? fl__op_add_op(x->g, name, op, n_in, in, 1, x->d) : NULL;
    if (!nn) {
        fail_oom(x);
        return NULL;
    }
    if (kind >= 0) {
        fl__op_bind_kind(nn, kind);
    }
    nn->device = near && near->device ? near->device : "";
    fl__tp_note(x, nn);
    x->pc->added++;
    return nn;
}

void fl__tp_set_ints(tp_ctx *x, fl_node *n, const char *name, int len, const int64_t *v) {
    fl_attr a = fl__attr_make_ints(x->g, name, (size_t)len, v);
    if (!a.name || fl__node_set_attr(x->g, n, &a) != FL_OK) {
        fail_oom(x);
    }
}

void fl__tp_set_int(tp_ctx *x, fl_node *n, const char *name, int64_t v) {
    fl_attr a = fl__attr_make_int(x->g, name, v);
    if (!a.name || fl__node_set_attr(x->g, n, &a) != FL_OK) {
        fail_oom(x);
    }
}

/* A constant of dtype dt and the given shape holding v (NULL: stripped). */
static fl_node *new_const(tp_ctx *x, const fl_node *like, const char *base, int dt, int rank,
                          const int64_t *dims, const fl_value *v) {
    fl_node *k = fl__tp_add_node(x, like, base, fl__op_name(FL_OP_CONST), -1, 0, NULL);
    if (!k) {
        return NULL;
    }
    fl_attr value = fl__attr_make_tensor(x->g, "value", dt, rank, dims, v);
    fl_attr dtype = fl__attr_make_type(x->g, "dtype", dt);
    if (!value.name || !value.v.tensor || !dtype.name ||
        fl__node_set_attr(x->g, k, &dtype) != FL_OK ||
        fl__node_set_attr(x->g, k, &value) != FL_OK) {
        fail_oom(x);
        return NULL;
    }
    if (!v) {
        k->flags |= FL_NODE_STRIPPED;
        fl_attr sb = fl__attr_make_int(x->g, "_stripped_content_bytes",
                                       (int64_t)value.v.tensor->content_bytes);
        if (!sb.name || fl__node_set_attr(x->g, k, &sb) != FL_OK) {
            fail_oom(x);
        }
    }
    fl__tp_infer(x, k);
    return k;
}

fl_node *fl__tp_int64_const(tp_ctx *x, const fl_node *n, const char *suffix, int len,
                            const int64_t *v) {
    return fl__tp_int_const(x, n, suffix, FL_DT_INT64, len, v);
}

fl_node *fl__tp_int_const(tp_ctx *x, const fl_node *n, const char *suffix, int dt, int len,
                          const int64_t *v) {
    int64_t dim = len;
    fl_value *val = fl__value_new(x->g->arena, (fl_dtype)dt, 1, &dim);
    if (!val) {
        fail_oom(x);
        return NULL;
    }
    fl_sym *e = (fl_sym *)val->ints;
    for (int i = 0; i < len; i++) {
        e[i] = fl_sym_const(v[i]);
    }
    char base[256];
    snprintf(base, sizeof base, "%s/%s", n->name, suffix);
    return new_const(x, n, base, dt, 1, &dim, val);
}

bool fl__tp_const_ints(const fl_node *n, int i, int64_t *out, int cap, int *len) {
    if (i >= n->n_inputs) {
        return false;
    }
    const fl_node *k = n->inputs[i].node;
    const fl_value *v = fl__is_const(k) ? k->outputs[0].value : NULL;
    if (!v || !v->ints || v->n > cap) {
        return false;
    }
    for (int64_t e = 0; e < v->n; e++) {
        if (!fl_sym_is_known(v->ints[e])) {
            return false;
        }
        out[e] = v->ints[e].k;
    }
    *len = (int)v->n;
    return true;
}

/* The value of constant k with its dims permuted (out dim i = in dim
 * perm[i]), or reshaped to `dims` (perm NULL); NULL when k holds none. */
static const fl_value *const_value(tp_ctx *x, const fl_node *k, const tp_perm *perm, int rank,
                                   const int64_t *dims) {
    const fl_value *v = (k->flags & FL_NODE_STRIPPED) ? NULL : k->outputs[0].value;
    if (!v || !fl__value_is_concrete(v)) {
        return NULL;
    }
    fl_value *o = fl__value_new(x->g->arena, v->dtype, rank, dims);
    if (!o) {
        fail_oom(x);
        return NULL;
    }
    size_t es = v->ints ? sizeof(fl_sym) : fl__dtype_size(v->dtype);
    const uint8_t *src = v->ints ? (const uint8_t *)v->ints : (const uint8_t *)v->raw;
    uint8_t *dst = v->ints ? (uint8_t *)o->ints : (uint8_t *)o->raw;
    if (!src || !dst) {
        return NULL;
    }
    if (!perm) {
        memcpy(dst, src, (size_t)v->n * es);
        return o;
    }
    int64_t in_stride[TP_MAX_RANK], idx[TP_MAX_RANK] = {0};
    int64_t s = 1;
    for (int i = v->rank - 1; i >= 0; i--) {
        in_stride[i] = s;
        s *= v->dims[i];
    }
    for (int64_t e = 0; e < o->n; e++) {
        int64_t off = 0;
        for (int i = 0; i < rank; i++) {
            off += idx[i] * in_stride[perm->p[i]];
        }
        memcpy(dst + (size_t)e * es, src + (size_t)off * es, es);
        for (int i = rank - 1; i >= 0; i--) {
            if (++idx[i] < dims[i]) {
                break;
            }
            idx[i] = 0;
        }
    }
    return o;
}

/* Input i of n, a constant, replaced by one permuted by perm or of `dims`. */
static void replace_const(tp_ctx *x, fl_node *n, int i, const tp_perm *perm, int rank,
                          const int64_t *dims) {
    fl_node *k = n->inputs[i].node;
    const fl_value *v = const_value(x, k, perm, rank, dims);
    fl_node *nk =
        x->st == FL_OK ? new_const(x, k, k->name, k->outputs[0].dtype, rank, dims, v) : NULL;
    if (!nk) {
        return;
    }
    /* every input of n reading k (ONNX Runtime edits the one initializer) */
    for (int j = 0; j < n->n_inputs; j++) {
        if (n->inputs[j].node == k) {
            fl__tp_set_input(x, n, j, (fl_input){nk, 0});
        }
    }
    fl__tp_drop_if_unused(x, k);
}

fl_node *fl__tp_new_transpose(tp_ctx *x, const fl_node *near, fl_input in, const tp_perm *perm) {
    fl_node *t = fl__tp_add_node(x, near, "Transpose", "Transpose", FL_OP_ONNX_TRANSPOSE, 1, &in);
    if (t) {
        fl__tp_set_ints(x, t, "perm", perm->n, perm->p);
        fl__tp_infer(x, t);
    }
    return t;
}

void fl__tp_transpose_input(tp_ctx *x, fl_node *n, int i, const tp_perm *perm,
                            const tp_perm *perm_inv) {
    fl_input in = n->inputs[i];
    fl_node *p = in.node;
    if (fl__tp_is_constant(p)) { /* case 1 */
        const fl_shape *s = &p->outputs[0].shape;
        int64_t count = 1, dims[TP_MAX_RANK];
        if (s->rank != perm->n) {
            fl__tp_decline(x, n, "a constant input of another rank than the Transpose");
            return;
        }
        for (int d = 0; d < s->rank; d++) {
            count *= s->dims[d].k;
        }
        if (count == 1) {
            return;
        }
        for (int d = 0; d < perm->n; d++) {
            dims[d] = s->dims[perm->p[d]].k;
        }
        replace_const(x, n, i, perm, perm->n, dims);
        return;
    }
    tp_perm p2;
    if (fl__tp_is_transpose(p) && fl__tp_perm_of(p, &p2) && p2.n == perm->n) { /* case 2 */
        if (fl__tp_same(&p2, perm_inv)) {
            fl__tp_set_input(x, n, i, p->inputs[0]);
            fl__tp_drop_if_unused(x, p);
            return;
        }
        tp_perm c = {perm->n, {0}};
        for (int d = 0; d < perm->n; d++) {
            c.p[d] = p2.p[perm->p[d]];
        }
        fl_node *t = fl__tp_new_transpose(x, n, p->inputs[0], &c);
        if (t) {
            fl__tp_set_input(x, n, i, (fl_input){t, 0});
            fl__tp_drop_if_unused(x, p);
        }
        return;
    }
    fl_node *readers[64];
    size_t nr = fl__tp_readers(x, p, in.port, readers, 64);
    for (size_t r = 0; r < nr && r < 64; r++) { /* case 3 */
        tp_perm q;
        if (readers[r] != n && fl__tp_is_transpose(readers[r]) && readers[r]->inputs[0].node == p &&
            readers[r]->inputs[0].port == in.port && fl__tp_perm_of(readers[r], &q) &&
            fl__tp_same(&q, perm)) {
            fl__tp_set_input(x, n, i, (fl_input){readers[r], 0});
            return;
        }
    }
    if (nr > 64) {
        fl__tp_decline(x, p, "a value with more than 64 readers");
        return;
    }
    fl_node *t = fl__tp_new_transpose(x, n, in, perm); /* case 4 */
    if (t) {
        fl__tp_set_input(x, n, i, (fl_input){t, 0});
    }
}

bool fl__tp_attr_or_input(const tp_ctx *x, const fl_node *s, const char *name, int input,
                          int64_t since, int64_t *axes, int *len) {
    if (x->opset < since) {
        const fl_attr *a = fl__node_attr(s, name);
        if (!a || a->kind != FL_ATTR_LIST || a->n > TP_MAX_RANK) {
            return false;
        }
        for (size_t i = 0; i < a->n; i++) {
            axes[i] = a->v.list.i[i];
        }
        *len = (int)a->n;
        return true;
    }
    return fl__tp_const_ints(s, input, axes, TP_MAX_RANK, len);
}

/* perm widened to the unsqueezed rank: the new 1s stay where they are
 * (ONNX Runtime's UnsqueezePerm). */
void fl__tp_unsqueeze_perm(const int64_t *axes, int k, const tp_perm *perm, tp_perm *out) {
    int nr = perm->n + k;
    bool added[TP_MAX_RANK] = {false};
    int64_t map[TP_MAX_RANK];
    for (int i = 0; i < k; i++) {
        added[axes[i]] = true;
    }
    int m = 0;
    for (int i = 0; i < nr; i++) {
        if (!added[i]) {
            map[m++] = i;
        }
    }
    out->n = nr;
    for (int i = 0, j = 0; i < nr; i++) {
        out->p[i] = added[i] ? i : map[perm->p[j++]];
    }
}

void fl__tp_unsqueeze_input(tp_ctx *x, fl_node *n, int i, int k) {
    fl_input in = n->inputs[i];
    fl_node *p = in.node;
    int64_t axes[TP_MAX_RANK];
    for (int a = 0; a < k; a++) {
        axes[a] = a;
    }
    const fl_shape *s = &p->outputs[in.port].shape;
    if (s->rank < 0 || s->rank + k > TP_MAX_RANK) {
        fl__tp_decline(x, n, "an input of unknown or too high rank");
        return;
    }
    if (fl__tp_is_constant(p)) { /* case 1 */
        int64_t dims[TP_MAX_RANK];
        for (int d = 0; d < k; d++) {
            dims[d] = 1;
        }
        for (int d = 0; d < s->rank; d++) {
            dims[k + d] = s->dims[d].k;
        }
        replace_const(x, n, i, NULL, s->rank + k, dims);
        return;
    }
    int64_t sq[TP_MAX_RANK];
    int sl = 0;
    if (p->kind == FL_OP_ONNX_SQUEEZE && live(p) &&
        fl__tp_attr_or_input(x, p, "axes", 1, 13, sq, &sl) && sl == k &&
        memcmp(sq, axes, (size_t)k * sizeof(int64_t)) == 0) { /* case 2 */
        fl__tp_set_input(x, n, i, p->inputs[0]);
        fl__tp_drop_if_unused(x, p);
        return;
    }
    fl_node *u; /* case 3 */
    if (x->opset >= 13) {
        fl_node *ax = fl__tp_int64_const(x, n, "unsqueeze_axes", k, axes);
        fl_input ins[2] = {in, {ax, 0}};
        u = ax ? fl__tp_add_node(x, n, "Unsqueeze", "Unsqueeze", FL_OP_ONNX_UNSQUEEZE, 2, ins)
               : NULL;
    } else {
        u = fl__tp_add_node(x, n, "Unsqueeze", "Unsqueeze", FL_OP_ONNX_UNSQUEEZE, 1, &in);
        if (u) {
            fl__tp_set_ints(x, u, "axes", k, axes);
        }
    }
    if (!u) {
        return;
    }
    fl__tp_infer(x, u);
    tp_perm tperm;
    if (fl__tp_is_transpose(p) && fl__tp_perm_of(p, &tperm)) {
        /* the Transpose goes through the Unsqueeze at once */
        tp_perm inv, wide, wide_inv;
        fl__tp_invert(&tperm, &inv);
        fl__tp_transpose_input(x, u, 0, &inv, &tperm);
        fl__tp_infer(x, u);
        fl__tp_unsqueeze_perm(axes, k, &tperm, &wide);
        fl__tp_invert(&wide, &wide_inv);
        fl_node *t = fl__tp_new_transpose(x, n, (fl_input){u, 0}, &wide);
        if (t) {
            fl__tp_set_input(x, n, i, (fl_input){t, 0});
        }
        x->pushed++;
        return;
    }
    fl__tp_set_input(x, n, i, (fl_input){u, 0});
}

bool fl__tp_redirect(tp_ctx *x, fl_node *n, int port, fl_input to, const fl_node *keep) {
    fl_node *readers[64];
    size_t nr = fl__tp_readers(x, n, port, readers, 64);
    if (nr > 64) {
        fl__tp_decline(x, n, "a value with more than 64 readers");
        return false;
    }
    for (size_t r = 0; r < nr; r++) {
        for (int j = 0; readers[r] != keep && j < readers[r]->n_inputs; j++) {
            if (readers[r]->inputs[j].node == n && readers[r]->inputs[j].port == port) {
                fl__tp_set_input(x, readers[r], j, to);
            }
        }
    }
    return true;
}

void fl__tp_transpose_outputs(tp_ctx *x, fl_node *n, const tp_perm *perm) {
    if (fl__tp_identity(perm)) {
        return;
    }
    if (fl__preserved(n)) {
        fl__tp_decline(x, n, "a graph output would move to a new Transpose");
        return;
    }
    for (int o = 0; o < n->n_outputs && x->st == FL_OK; o++) {
        if (fl__tp_readers(x, n, o, NULL, 0) > 64) {
            fl__tp_decline(x, n, "a value with more than 64 readers");
            return;
        }
        fl_node *t = fl__tp_new_transpose(x, n, (fl_input){n, o}, perm);
        if (!t || !fl__tp_redirect(x, n, o, (fl_input){t, 0}, t)) {
            return;
        }
    }
}
