/*
 * sequence.c - ai.onnx sequence and optional values: SequenceConstruct,
 * SequenceEmpty, SequenceInsert, SequenceErase, SplitToSequence, SequenceAt,
 * SequenceLength, ConcatFromSequence, Optional, OptionalHasElement,
 * OptionalGetElement.
 *
 * A sequence or optional value is a handle in the IR: a variant scalar.
 * What the spec determines of a sequence is found where it is used, by
 * following the handle back to the op that made it (through Identity,
 * SequenceInsert, SequenceErase, OptionalGetElement of an Optional; at most
 * SEQ_CHAIN ops) and replaying those ops: a list of element shapes while the
 * count is a known number (at most SEQ_MAX elements of rank at most
 * SEQ_RANK), else the count (a number, a formula of the shapes, or unknown)
 * and a shape every element has (the elements merged: a dim where they
 * differ is unknown). A sequence graph input is a variant of shape
 * [count, element dims...] (the ONNX importer: count the symbol INPUT.0
 * unless bound, element dims from the type proto or an --input binding),
 * its elements listed when the count is a known number; an optional graph
 * input is a variant of its element's shape. A sequence made elsewhere (an
 * If or Loop output, SequenceMap) is unknown: what its users output has an
 * unknown shape, and the nodes after them are reported incomplete, never
 * counted as zero.
 *
 * Shapes:
 *   SequenceConstruct  its inputs, in order; SequenceEmpty none (attr dtype,
 *                      default float)
 *   SequenceInsert     input 1 inserted at input 2 (position; default the
 *                      end, negative from the end, range [-n, n]);
 *                      SequenceErase removes position (default the last,
 *                      range [-n, n - 1])
 *   SplitToSequence    split absent: dim(axis) elements of size 1 along attr
 *                      axis (default 0; the axis removed with keepdims 0); a
 *                      scalar split s: ceil(dim / s) elements of s, the last
 *                      one the rest; a 1-D split: one element per entry,
 *                      the entries summing to dim (keepdims ignored)
 *   SequenceAt         the element at input 1 (position; a known value),
 *                      else the shape every element has
 *   SequenceLength     int64 scalar, its value the count where known
 *                      (symbolic too)
 *   ConcatFromSequence the elements concatenated along attr axis (required),
 *                      the other dims merged; new_axis 1: stacked along a new
 *                      axis (range [-r - 1, r]) of the count
 *   Optional           a handle; OptionalHasElement a bool scalar, its value
 *                      known when the input comes from Optional (with or
 *                      without its input), is absent (false) or is a tensor
 *                      (true); OptionalGetElement the element's dtype and
 *                      shape (a tensor input: itself)
 * Every output of these ops is a variant scalar but SequenceAt's,
 * SequenceLength's, ConcatFromSequence's and OptionalHasElement's (and
 * OptionalGetElement's of a tensor).
 *
 * FLOP rule: 0 for all of them (they move tensors; has_rule true). A handle
 * counts 0 bytes; the tensors are counted where they are read as tensors
 * (SequenceConstruct's, SequenceInsert's, SplitToSequence's inputs) and
 * written (SequenceAt's, ConcatFromSequence's outputs).
 */
#include "ops/onnxops/sequence.h"

#include "ops/onnxops/util.h"

#include <string.h>

#define SEQ_MAX   FL_OX_SEQ_MAX
#define SEQ_RANK  FL_OX_SEQ_RANK
#define SEQ_CHAIN 256

typedef fl_ox_seq_elem seq_elem;
typedef fl_ox_seq seq_info;

static void elem_of(const fl_shape *s, seq_elem *e) {
    e->rank = s->rank >= 0 && s->rank <= SEQ_RANK ? s->rank : -1;
    for (int i = 0; i < e->rank; i++) {
        e->d[i] = s->dims[i];
    }
}

/* acc := the shape both acc and b have (differing dims unknown). */
static void elem_merge(seq_elem *acc, const seq_elem *b) {
    if (acc->rank != b->rank) {
        acc->rank = -1;
        return;
    }
    for (int i = 0; i < acc->rank; i++) {
        if (!fl__sym_eq(acc->d[i], b->d[i])) {
            acc->d[i] = fl_sym_unknown();
        }
    }
}

/* Stops listing the elements: count and the merged shape. */
static void seq_unlist(seq_info *s) {
    if (s->n < 0) {
        return;
    }
    s->count = fl_sym_const(s->n);
    s->uni.rank = -1;
    for (int i = 0; i < s->n; i++) {
        if (i == 0) {
            s->uni = s->e[0];
        } else {
            elem_merge(&s->uni, &s->e[i]);
        }
    }
    s->n = -1;
}

static fl_sym seq_count(const seq_info *s) {
    return s->n >= 0 ? fl_sym_const(s->n) : s->count;
}

/* A known integer scalar input i into *v; false when absent or unknown. */
static bool known_int(fl_ctx *c, const fl_node *n, int i, int64_t *v) {
    int64_t *p, cnt;
    if (fl__ox_absent(n, i) || fl__op_in_int_vector(c, n, i, &p, &cnt) != FL_OK || cnt != 1) {
        return false;
    }
    *v = p[0];
    return true;
}

/* SequenceInsert: input 1 at position (input 2), checked against the list. */
static fl_status apply_insert(fl_ctx *c, const fl_node *p, seq_info *s) {
    seq_elem t;
    elem_of(fl__op_in_shape(p, 1), &t);
    int64_t pos = 0;
    bool known_pos = known_int(c, p, 2, &pos) || fl__ox_absent(p, 2);
    if (fl__ox_absent(p, 2)) {
        pos = s->n;
    }
    if (s->n >= 0 && known_pos) {
        if (pos < -s->n || pos > s->n) {
            return fl__node_fail(c->d, FL_EINVAL, p,
                                 "input 2 (position) %lld is out of range for a sequence of %d "
                                 "elements",
                                 (long long)pos, s->n);
        }
        pos = pos < 0 ? pos + s->n : pos;
        if (s->n < SEQ_MAX) {
            memmove(&s->e[pos + 1], &s->e[pos], (size_t)(s->n - pos) * sizeof(seq_elem));
            s->e[pos] = t;
            s->n++;
            return FL_OK;
        }
    }
    bool empty = s->n == 0;
    seq_unlist(s);
    if (empty) {
        s->uni = t;
    } else {
        elem_merge(&s->uni, &t);
    }
    return fl__op_add(c, p, s->count, fl_sym_const(1), &s->count);
}

/* SequenceErase: removes position (input 1; default the last). */
static fl_status apply_erase(fl_ctx *c, const fl_node *p, seq_info *s) {
    int64_t pos = s->n - 1;
    bool known_pos = fl__ox_absent(p, 1) || known_int(c, p, 1, &pos);
    if (s->n >= 0 && known_pos) {
        if (pos < -s->n || pos >= s->n) {
            return fl__node_fail(c->d, FL_EINVAL, p,
                                 "input 1 (position) %lld is out of range for a sequence of %d "
                                 "elements",
                                 (long long)pos, s->n);
        }
        pos = pos < 0 ? pos + s->n : pos;
        memmove(&s->e[pos], &s->e[pos + 1], (size_t)(s->n - pos - 1) * sizeof(seq_elem));
        s->n--;
        return FL_OK;
    }
    seq_unlist(s);
    return fl__op_sub(c, p, s->count, fl_sym_const(1), &s->count);
}

/* SplitToSequence's chunks along axis `ax` of x (base: x's shape). */
static fl_status split_chunks(fl_ctx *c, const fl_node *p, const seq_elem *base, int ax,
                              seq_info *s) {
    fl_sym dim = base->d[ax];
    seq_elem e = *base;
    int64_t *v, nv;
    fl_status st = fl__op_in_int_vector(c, p, 1, &v, &nv);
    const fl_shape *sp = fl__op_in_shape(p, 1);
    if (st == FL_ENOTFOUND) { /* sizes unknown: the count only from a 1-D split's length */
        s->n = -1;
        e.d[ax] = fl_sym_unknown();
        s->uni = e;
        s->count = sp->rank == 1 ? sp->dims[0] : fl_sym_unknown();
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (sp->rank == 0) {
        if (v[0] < 1) {
            return fl__node_fail(c->d, FL_EINVAL, p, "input 1 (split) is %lld, must be > 0",
                                 (long long)v[0]);
        }
        /* ceil(dim / split) and the offsets i * split < dim, none of which can
         * overflow (dim + split - 1 and the offset after the last can) */
        int64_t cnt = fl_sym_is_known(dim) ? dim.k / v[0] + (dim.k % v[0] != 0) : 0;
        if (fl_sym_is_known(dim) && cnt <= SEQ_MAX) {
            for (int64_t i = 0; i < cnt; i++) {
                int64_t left = dim.k - i * v[0];
                e.d[ax] = fl_sym_const(left < v[0] ? left : v[0]);
                s->e[s->n++] = e;
            }
            return FL_OK;
        }
        e.d[ax] = v[0] == 1 ? fl_sym_const(1) : fl_sym_unknown();
        s->n = -1;
        s->uni = e;
        return fl__op_ceildiv(c, p, dim, fl_sym_const(v[0]), &s->count);
    }
    int64_t sum = 0;
    for (int64_t i = 0; i < nv; i++) {
        if (v[i] < 0 || v[i] > INT64_MAX / 4 - sum) {
            return fl__node_fail(c->d, FL_EINVAL, p, "input 1 (split) has entry %lld",
                                 (long long)v[i]);
        }
        sum += v[i];
        e.d[ax] = fl_sym_const(v[i]);
        if (i < SEQ_MAX) {
            s->e[s->n++] = e;
        }
    }
    if (fl_sym_is_known(dim) && sum != dim.k) {
        return fl__node_fail(c->d, FL_EINVAL, p,
                             "input 1 (split) sums to %lld, axis %d of input 0 is %lld",
                             (long long)sum, ax, (long long)dim.k);
    }
    if (nv > SEQ_MAX) {
        seq_unlist(s);
        s->uni.d[ax] = fl_sym_unknown();
        s->count = fl_sym_const(nv);
    }
    return FL_OK;
}

static fl_status split_origin(fl_ctx *c, const fl_node *p, seq_info *s) {
    const fl_shape *x = fl__op_in_shape(p, 0);
    int64_t axis, keep;
    fl_status st = fl__attr_int_or(p, "axis", 0, &axis, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(p, "keepdims", 1, &keep, c->d);
    }
    s->dtype = fl__ox_in_dtype(p, 0);
    s->n = -1;
    if (st != FL_OK || x->rank < 0 || x->rank > SEQ_RANK) {
        return st;
    }
    int ax;
    if ((st = fl__ox_norm_axis(c, p, axis, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    seq_elem base;
    elem_of(x, &base);
    if (!fl__ox_absent(p, 1)) {
        s->n = 0;
        return split_chunks(c, p, &base, ax, s);
    }
    s->count = base.d[ax];
    if (keep) {
        base.d[ax] = fl_sym_const(1);
    } else {
        memmove(&base.d[ax], &base.d[ax + 1], (size_t)(base.rank - ax - 1) * sizeof(fl_sym));
        base.rank--;
    }
    s->uni = base;
    return FL_OK;
}

/* The container graph input p is (the ONNX importer's _container attr:
 * "sequence", "optional", "optional_sequence"), "" for any other node. */
static const char *container_of(const fl_node *p) {
    const fl_attr *a = p->kind == FL_OP_PLACEHOLDER ? fl__node_attr(p, "_container") : NULL;
    return a && a->kind == FL_ATTR_S && a->v.s.p ? a->v.s.p : "";
}

/* A sequence graph input: a variant of shape [count, element dims...] (its
 * attr _elem_dtype the elements' dtype); the elements are listed when the
 * count is a known number. */
static fl_status input_origin(fl_ctx *c, const fl_node *p, seq_info *s) {
    const fl_attr *dt = fl__node_attr(p, "_elem_dtype");
    const fl_shape *sh = &p->outputs[0].shape;
    s->dtype = dt && dt->kind == FL_ATTR_TYPE ? dt->v.type : FL_DT_INVALID;
    s->n = -1;
    if (sh->rank == 0) {
        return fl__node_fail(c->d, FL_EUSAGE, p,
                             "graph input is a sequence: its shape is [count, element dims...], "
                             "not a scalar");
    }
    if (sh->rank < 0) {
        return FL_OK;
    }
    s->count = sh->dims[0];
    s->uni.rank = sh->rank - 1 <= SEQ_RANK ? sh->rank - 1 : -1;
    for (int i = 0; i < s->uni.rank; i++) {
        s->uni.d[i] = sh->dims[i + 1];
    }
    if (fl_sym_is_known(s->count) && s->count.k <= SEQ_MAX) {
        s->n = (int)s->count.k;
        for (int i = 0; i < s->n; i++) {
            s->e[i] = s->uni;
        }
    }
    return FL_OK;
}

/* The sequence `p` makes when it is where sequences are made; false else. */
static fl_status seq_origin(fl_ctx *c, const fl_node *p, seq_info *s, bool *found) {
    *found = true;
    s->known = true;
    switch (p->kind) {
    case FL_OP_ONNX_SEQUENCE_CONSTRUCT:
        s->dtype = fl__ox_in_dtype(p, 0);
        s->n = 0;
        for (int i = 0; i < p->n_inputs; i++) {
            seq_elem e;
            elem_of(fl__op_in_shape(p, i), &e);
            if (i < SEQ_MAX) {
                s->e[s->n++] = e;
                continue;
            }
            seq_unlist(s);
            elem_merge(&s->uni, &e);
        }
        if (s->n < 0) {
            s->count = fl_sym_const(p->n_inputs);
        }
        return FL_OK;
    case FL_OP_ONNX_SEQUENCE_EMPTY: {
        int64_t t;
        fl_status st = fl__attr_int_or(p, "dtype", 1, &t, c->d);
        s->dtype = st == FL_OK && t == (int32_t)t ? (int)fl__onnx_dtype((int32_t)t) : 0;
        s->n = 0;
        return st;
    }
    case FL_OP_ONNX_SPLIT_TO_SEQUENCE:
        return split_origin(c, p, s);
    case FL_OP_PLACEHOLDER:
        if (strstr(container_of(p), "sequence")) {
            return input_origin(c, p, s);
        }
        s->known = false;
        *found = false;
        return FL_OK;
    default:
        s->known = false;
        *found = false;
        return FL_OK;
    }
}

/* The op that hands p's input 0 on (Identity, OptionalGetElement of an
 * Optional with an input, SequenceInsert, SequenceErase); NULL else. */
static const fl_node *seq_link(const fl_node *p) {
    switch (p->kind) {
    case FL_OP_ONNX_IDENTITY:
    case FL_OP_ONNX_SEQUENCE_INSERT:
    case FL_OP_ONNX_SEQUENCE_ERASE:
    case FL_OP_ONNX_OPTIONAL_GET_ELEMENT:
        return p->n_inputs > 0 ? p->inputs[0].node : NULL;
    case FL_OP_ONNX_OPTIONAL:
        return p->n_inputs > 0 && !fl__ox_absent(p, 0) ? p->inputs[0].node : NULL;
    default:
        return NULL;
    }
}

/* What is known of the sequence node p makes (s->known false: nothing). */
static fl_status seq_read_from(fl_ctx *c, const fl_node *p, seq_info *s) {
    const fl_node *chain[SEQ_CHAIN];
    int len = 0;
    s->known = false;
    s->dtype = FL_DT_INVALID;
    s->n = -1;
    s->count = fl_sym_unknown();
    s->uni.rank = -1;
    bool found = false;
    fl_status st = FL_OK;
    while (p && len < SEQ_CHAIN && (st = seq_origin(c, p, s, &found)) == FL_OK && !found) {
        chain[len++] = p;
        p = seq_link(p);
    }
    for (int i = len - 1; i >= 0 && found && st == FL_OK; i--) {
        if (chain[i]->kind == FL_OP_ONNX_SEQUENCE_INSERT) {
            st = apply_insert(c, chain[i], s);
        } else if (chain[i]->kind == FL_OP_ONNX_SEQUENCE_ERASE) {
            st = apply_erase(c, chain[i], s);
        }
    }
    return st;
}

/* What is known of the sequence at n's input `in`. */
static fl_status seq_read(fl_ctx *c, const fl_node *n, int in, seq_info *s) {
    return seq_read_from(c, in < n->n_inputs ? n->inputs[in].node : NULL, s);
}

fl_status fl__ox_seq_describe(fl_ctx *c, const fl_node *p, fl_ox_seq *out) {
    return seq_read_from(c, p, out);
}

/* Sequence and optional producers: a variant scalar; SequenceInsert,
 * SequenceErase and SplitToSequence check their inputs by replaying. */
static fl_status infer_handle(fl_ctx *c, fl_node *n) {
    seq_info s;
    fl_status st = FL_OK;
    if (n->kind == FL_OP_ONNX_SEQUENCE_INSERT || n->kind == FL_OP_ONNX_SEQUENCE_ERASE) {
        st = seq_read(c, n, 0, &s);
        if (st == FL_OK && s.known) {
            st = n->kind == FL_OP_ONNX_SEQUENCE_INSERT ? apply_insert(c, n, &s)
                                                       : apply_erase(c, n, &s);
        }
    } else if (n->kind == FL_OP_ONNX_SPLIT_TO_SEQUENCE) {
        bool found;
        st = seq_origin(c, n, &s, &found);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, FL_DT_VARIANT, 0, NULL) : st;
}

static fl_status set_elem(fl_ctx *c, fl_node *n, int dt, const seq_elem *e) {
    return fl__op_set_output(c, n, 0, dt, e->rank, e->rank >= 0 ? e->d : NULL);
}

static fl_status infer_at(fl_ctx *c, fl_node *n) {
    seq_info s;
    fl_status st = seq_read(c, n, 0, &s);
    if (st != FL_OK) {
        return st;
    }
    int64_t pos;
    if (s.n >= 0 && known_int(c, n, 1, &pos)) {
        if (pos < -s.n || pos >= s.n) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 1 (position) %lld is out of range for a sequence of %d "
                                 "elements",
                                 (long long)pos, s.n);
        }
        return set_elem(c, n, s.dtype, &s.e[pos < 0 ? pos + s.n : pos]);
    }
    seq_unlist(&s);
    return set_elem(c, n, s.dtype, &s.uni);
}

static fl_status infer_length(fl_ctx *c, fl_node *n) {
    seq_info s;
    fl_status st = seq_read(c, n, 0, &s);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, FL_DT_INT64, 0, NULL);
    }
    fl_sym cnt = seq_count(&s);
    if (st != FL_OK || !s.known || fl_sym_is_unknown(cnt)) {
        return st;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
    }
    ((fl_sym *)v->ints)[0] = cnt;
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ConcatFromSequence of a listed sequence: dims merged, axis summed (or the
 * count inserted with new_axis). */
static fl_status concat_listed(fl_ctx *c, fl_node *n, const seq_info *s, int64_t axis, bool stack,
                               seq_elem *out) {
    int r = s->e[0].rank;
    for (int i = 1; i < s->n && r >= 0; i++) {
        r = s->e[i].rank == r ? r : -1;
    }
    int ax = 0;
    fl_status st = FL_OK;
    if (r < 0 || r + stack > SEQ_RANK ||
        (st = fl__ox_norm_axis(c, n, axis, r + stack, "attr 'axis'", &ax)) != FL_OK) {
        out->rank = -1;
        return st;
    }
    *out = s->e[0];
    fl_sym sum = fl_sym_const(0);
    for (int i = 0; i < s->n && st == FL_OK; i++) {
        for (int d = 0; d < r && st == FL_OK; d++) {
            if (d != ax || stack) {
                st = fl__op_merge_dim(c, n, out->d[d], s->e[i].d[d],
                                      "the sequence's elements off the axis", &out->d[d]);
            }
        }
        if (st == FL_OK && !stack) {
            st = fl__op_add(c, n, sum, s->e[i].d[ax], &sum);
        }
    }
    if (st != FL_OK || !stack) {
        out->d[ax] = sum;
        return st;
    }
    memmove(&out->d[ax + 1], &out->d[ax], (size_t)(r - ax) * sizeof(fl_sym));
    out->d[ax] = fl_sym_const(s->n);
    out->rank = r + 1;
    return FL_OK;
}

static fl_status infer_concat(fl_ctx *c, fl_node *n) {
    int64_t axis, new_axis;
    fl_status st = fl__attr_need_int(n, "axis", &axis, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "new_axis", 0, &new_axis, c->d);
    }
    seq_info s;
    if (st != FL_OK || (st = seq_read(c, n, 0, &s)) != FL_OK) {
        return st;
    }
    bool stack = new_axis != 0;
    seq_elem out = {-1, {{0, NULL}}};
    if (s.n > 0) {
        st = concat_listed(c, n, &s, axis, stack, &out);
    } else if (s.n < 0 && s.uni.rank >= 0 && s.uni.rank + stack <= SEQ_RANK) {
        int ax = 0, r = s.uni.rank;
        if ((st = fl__ox_norm_axis(c, n, axis, r + stack, "attr 'axis'", &ax)) != FL_OK) {
            return st;
        }
        out = s.uni;
        if (stack) {
            memmove(&out.d[ax + 1], &out.d[ax], (size_t)(r - ax) * sizeof(fl_sym));
            out.d[ax] = s.count;
            out.rank = r + 1;
        } else if (fl_sym_is_unknown(s.count) || fl_sym_is_unknown(out.d[ax])) {
            out.d[ax] = fl_sym_unknown();
        } else {
            st = fl__op_mul(c, n, s.count, s.uni.d[ax], &out.d[ax]);
        }
    }
    return st == FL_OK ? set_elem(c, n, s.dtype, &out) : st;
}

/* The node n's input `in` comes from, through Identity; NULL. */
static const fl_node *source_of(const fl_node *n, int in) {
    const fl_node *p = in < n->n_inputs ? n->inputs[in].node : NULL;
    for (int i = 0; p && i < SEQ_CHAIN && p->kind == FL_OP_ONNX_IDENTITY; i++) {
        p = p->n_inputs > 0 ? p->inputs[0].node : NULL;
    }
    return p;
}

/* The Optional node n's input `in` comes from (through Identity); NULL. */
static const fl_node *optional_source(const fl_node *n, int in) {
    const fl_node *p = source_of(n, in);
    return p && p->kind == FL_OP_ONNX_OPTIONAL ? p : NULL;
}

/* OptionalHasElement: known for an Optional, an absent input, a tensor and
 * a sequence graph input (true); an optional graph input's is data. */
static fl_status infer_opt_has(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_set_output(c, n, 0, FL_DT_BOOL, 0, NULL);
    const fl_node *o = optional_source(n, 0);
    const fl_node *src = source_of(n, 0);
    int has = fl__ox_absent(n, 0) ? 0
              : o                 ? !fl__ox_absent(o, 0)
              : fl_node_in(n, 0)->dtype != FL_DT_VARIANT && fl_node_in(n, 0)->dtype != FL_DT_INVALID
                  ? 1
              : src && strcmp(container_of(src), "sequence") == 0 ? 1
                                                                  : -1;
    if (st != FL_OK || has < 0) {
        return st;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
    }
    ((fl_sym *)v->ints)[0] = fl_sym_const(has);
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* OptionalGetElement: the element of an Optional, a tensor input itself; of
 * an optional(tensor) graph input its element's dtype and shape, of a
 * sequence or optional(sequence) graph input the sequence (a variant of its
 * [count, element dims...]). */
static fl_status infer_opt_get(fl_ctx *c, fl_node *n) {
    const fl_node *o = optional_source(n, 0);
    if (o && fl__ox_absent(o, 0)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 is an empty optional (%s has no input)",
                             o->name);
    }
    const fl_tensor *t = o ? fl_node_in(o, 0) : fl_node_in(n, 0);
    const fl_node *src = source_of(n, 0);
    const char *kind = src ? container_of(src) : "";
    if (!o && strcmp(kind, "optional") == 0) {
        const fl_attr *dt = fl__node_attr(src, "_elem_dtype");
        int d = dt && dt->kind == FL_ATTR_TYPE ? dt->v.type : FL_DT_INVALID;
        return fl__op_set_output(c, n, 0, d, t->shape.rank, t->shape.dims);
    }
    if (!o && strstr(kind, "sequence")) {
        return fl__op_set_output(c, n, 0, FL_DT_VARIANT, t->shape.rank, t->shape.dims);
    }
    if (!o && (t->dtype == FL_DT_VARIANT || t->dtype == FL_DT_INVALID)) {
        return fl__op_set_output(c, n, 0, FL_DT_INVALID, -1, NULL);
    }
    return fl__op_set_output(c, n, 0, t->dtype, t->shape.rank, t->shape.dims);
}

/* Hook sets and descriptors (their rows: onnxops/sequence.def) */

#define HOOKS_seq_handle .infer = infer_handle, .cost = fl__op_cost_zero
#define HOOKS_seq_at     .infer = infer_at, .cost = fl__op_cost_zero
#define HOOKS_seq_length .infer = infer_length, .cost = fl__op_cost_zero
#define HOOKS_seq_concat .infer = infer_concat, .cost = fl__op_cost_zero
#define HOOKS_opt_has    .infer = infer_opt_has, .cost = fl__op_cost_zero
#define HOOKS_opt_get    .infer = infer_opt_get, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnxops/sequence.def"
#undef FL_OP
