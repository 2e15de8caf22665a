/*
 * handlers.c - the op families of the transpose optimizer (transpose.h)
 * and what pushing a Transpose t (perm P, inverse P') through a node n does
 * to it, as ONNX Runtime's handlers do (onnx_transpose_optimization.cc;
 * its CPU execution provider's extra table, ort_transpose_optimization.cc,
 * adds MaxPool and Resize, whose handlers push nothing while nodes have no
 * execution provider, as at this level):
 *
 *  unary elementwise (Relu, Sqrt, Erf, ... and Cast, Identity): the input
 *    transposed by P', the output by P;
 *  Clip, CastLike: the first input only;
 *  broadcasting (Add, Sub, Mul, Div, Pow, Max, Min, Mean, Sum, Where,
 *    comparisons, logic, PRelu, BitShift, Mod): every input of rank > 0 is
 *    first given leading 1s up to the Transpose's rank (no change when a
 *    rank is unknown or higher), then transposed by P'; the output by P;
 *  Concat (axis required), Split (axis, default 0), Softmax/LogSoftmax/
 *    Hardmax (opset 13: axis, default -1): axis a becomes P[a]; before
 *    opset 13 Softmax keeps its axis and is pushed through only when P keeps
 *    every dim on its side of the axis;
 *  Reduce*: axes (the attr before opset 18 - 13 for ReduceSum - else the
 *    constant second input; none, or an empty list: all) become the sorted
 *    P[a]; with keepdims 0 the output's perm drops the reduced dims
 *    (ONNX Runtime's SqueezePerm); a reduction of everything to a scalar
 *    gets no output Transpose; axes given by a computed input: no push;
 *  Transpose n by Q: Q = P' cancels (n's readers read t's input; t goes
 *    when nothing else reads it); else n reads t's input by Q after P
 *    (perm[i] = P[Q[i]]);
 *  Reshape of t's output (its dims all known) to a constant shape of the
 *    same rank (0 copies the input's dim unless allowzero, from opset 14;
 *    one -1 is inferred) that keeps every dim other than 1 in order: it
 *    is the Transpose by Q that takes each output dim from the first
 *    unused input dim equal to it (1s from anywhere), and is then treated
 *    as the Transpose above (merged: a Transpose takes the Reshape's
 *    place).
 * A rule that fails its condition changes nothing and the walk goes on.
 */
#include "passes/transpose/transpose.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

typedef struct fam_row {
    const char *op;
    tp_family f;
} fam_row;

static const fam_row rows[] = {
    {"Cast", TPF_SIMPLE},
    {"Exp", TPF_SIMPLE},
    {"Gelu", TPF_SIMPLE},
    {"Identity", TPF_SIMPLE},
    {"LeakyRelu", TPF_SIMPLE},
    {"Log", TPF_SIMPLE},
    {"Reciprocal", TPF_SIMPLE},
    {"Relu", TPF_SIMPLE},
    {"Sigmoid", TPF_SIMPLE},
    {"Sqrt", TPF_SIMPLE},
    {"Tanh", TPF_SIMPLE},
    {"Abs", TPF_SIMPLE},
    {"Not", TPF_SIMPLE},
    {"Ceil", TPF_SIMPLE},
    {"Floor", TPF_SIMPLE},
    {"Neg", TPF_SIMPLE},
    {"Erf", TPF_SIMPLE},
    {"HardSigmoid", TPF_SIMPLE},
    {"Round", TPF_SIMPLE},
    {"IsInf", TPF_SIMPLE},
    {"IsNaN", TPF_SIMPLE},
    {"Selu", TPF_SIMPLE},
    {"Shrink", TPF_SIMPLE},
    {"Sign", TPF_SIMPLE},
    {"Softplus", TPF_SIMPLE},
    {"Softsign", TPF_SIMPLE},
    {"ThresholdedRelu", TPF_SIMPLE},
    {"Celu", TPF_SIMPLE},
    {"HardSwish", TPF_SIMPLE},
    {"Sin", TPF_SIMPLE},
    {"Cos", TPF_SIMPLE},
    {"Tan", TPF_SIMPLE},
    {"Sinh", TPF_SIMPLE},
    {"Cosh", TPF_SIMPLE},
    {"Asin", TPF_SIMPLE},
    {"Acos", TPF_SIMPLE},
    {"Atan", TPF_SIMPLE},
    {"Asinh", TPF_SIMPLE},
    {"Acosh", TPF_SIMPLE},
    {"Atanh", TPF_SIMPLE},
    {"Add", TPF_BROADCAST},
    {"Max", TPF_BROADCAST},
    {"Min", TPF_BROADCAST},
    {"Mul", TPF_BROADCAST},
    {"Sub", TPF_BROADCAST},
    {"Div", TPF_BROADCAST},
    {"And", TPF_BROADCAST},
    {"Or", TPF_BROADCAST},
    {"Xor", TPF_BROADCAST},
    {"Mod", TPF_BROADCAST},
    {"PRelu", TPF_BROADCAST},
    {"BitShift", TPF_BROADCAST},
    {"Equal", TPF_BROADCAST},
    {"Greater", TPF_BROADCAST},
    {"Less", TPF_BROADCAST},
    {"GreaterOrEqual", TPF_BROADCAST},
    {"LessOrEqual", TPF_BROADCAST},
    {"Mean", TPF_BROADCAST},
    {"Sum", TPF_BROADCAST},
    {"Pow", TPF_BROADCAST},
    {"Where", TPF_BROADCAST},
    {"Clip", TPF_FIRST},
    {"CastLike", TPF_FIRST},
    {"Transpose", TPF_TRANSPOSE},
    {"Concat", TPF_CONCAT},
    {"Split", TPF_SPLIT},
    {"Softmax", TPF_SOFTMAX},
    {"Hardmax", TPF_SOFTMAX},
    {"LogSoftmax", TPF_SOFTMAX},
    {"ReduceLogSum", TPF_REDUCE},
    {"ReduceLogSumExp", TPF_REDUCE},
    {"ReduceMax", TPF_REDUCE},
    {"ReduceMean", TPF_REDUCE},
    {"ReduceMin", TPF_REDUCE},
    {"ReduceProd", TPF_REDUCE},
    {"ReduceSum", TPF_REDUCE},
    {"ReduceSumSquare", TPF_REDUCE},
    {"ReduceL1", TPF_REDUCE},
    {"ReduceL2", TPF_REDUCE},
    {"MaxPool", TPF_NO_PUSH},
    {"Resize", TPF_NO_PUSH},
    {"Shape", TPF_SHAPE},
    {"Pad", TPF_PAD},
    {"ArgMin", TPF_ARG},
    {"ArgMax", TPF_ARG},
    {"Squeeze", TPF_SQUEEZE},
    {"Unsqueeze", TPF_UNSQUEEZE},
    {"Slice", TPF_SLICE},
    {"Tile", TPF_TILE},
    {"QuantizeLinear", TPF_UNMODELLED},
    {"DequantizeLinear", TPF_UNMODELLED},
    {"Reshape", TPF_RESHAPE},
};

/* com.microsoft operators with a handler in ONNX Runtime's CPU table */
static const char *const ms_rows[] = {
    "QuantizeLinear",    "DequantizeLinear",         "QLinearAdd",       "QLinearAveragePool",
    "QLinearConcat",     "QLinearGlobalAveragePool", "QLinearLeakyRelu", "QLinearMul",
    "QLinearReduceMean", "QLinearSigmoid",           "QLinearSoftmax",
};

static tp_family family_of(const char *q) {
    if (!q) {
        return TPF_NONE;
    }
    if (strncmp(q, "onnx::", 6) == 0) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            if (strcmp(q + 6, rows[i].op) == 0) {
                return rows[i].f;
            }
        }
        return TPF_NONE;
    }
    if (strncmp(q, "com.microsoft::", 15) == 0) {
        for (size_t i = 0; i < sizeof ms_rows / sizeof ms_rows[0]; i++) {
            if (strcmp(q + 15, ms_rows[i]) == 0) {
                return TPF_UNMODELLED;
            }
        }
    }
    return TPF_NONE;
}

/* Per registered kind, what its descriptor's name says, found the first
 * time a node of the kind asks (0: not yet): the family + 1, and
 * TP_KIND_QDQ for QuantizeLinear/DequantizeLinear of any domain. Relaxed
 * atomics: two threads asking at once store the same byte. */
#define TP_KIND_QDQ 0x80
static _Atomic uint8_t kind_info[FL_OP_COUNT];

static uint8_t info_of(const fl_node *n) {
    const char *q = n->desc ? n->desc->name : "";
    bool qdq = strstr(q, "::QuantizeLinear") || strstr(q, "::DequantizeLinear");
    return (uint8_t)((family_of(n->desc ? q : NULL) + 1) | (qdq ? TP_KIND_QDQ : 0));
}

static uint8_t kind_info_of(const fl_node *n) {
    if (!n->desc || n->kind <= 0 || n->kind >= FL_OP_COUNT || fl__op_desc_of(n->kind) != n->desc) {
        return info_of(n); /* a descriptor not the registry's own for the kind */
    }
    uint8_t v = atomic_load_explicit(&kind_info[n->kind], memory_order_relaxed);
    if (!v) {
        v = info_of(n);
        atomic_store_explicit(&kind_info[n->kind], v, memory_order_relaxed);
    }
    return v;
}

tp_family fl__tp_family(const fl_node *n) {
    return n->desc ? (tp_family)((kind_info_of(n) & ~TP_KIND_QDQ) - 1) : TPF_NONE;
}

bool fl__tp_is_qdq(const fl_node *n) {
    return n->desc && (kind_info_of(n) & TP_KIND_QDQ);
}

bool fl__tp_transposes_outputs(tp_family f) {
    return f != TPF_TRANSPOSE && f != TPF_RESHAPE && f != TPF_SHAPE && f != TPF_NONE;
}

bool fl__tp_absent(const fl_node *n, int i) {
    return n->inputs[i].node->kind == FL_OP_ONNX_ABSENT;
}

int fl__tp_inputs(const fl_node *n, tp_family f, int *out, int cap) {
    int k = 0;
    for (int i = 0; i < n->n_inputs && k < cap; i++) {
        bool take;
        switch (f) {
        case TPF_SIMPLE:
        case TPF_CONCAT:
            take = true;
            break;
        case TPF_BROADCAST:
            take = fl_node_in(n, i)->shape.rank != 0;
            break;
        default:
            take = i == 0;
            break;
        }
        if (take) {
            out[k++] = i;
        }
    }
    return k;
}

bool fl__tp_norm_axis(int64_t *a, int rank) {
    if (*a < 0) {
        *a += rank;
    }
    return *a >= 0 && *a < rank;
}

/* Normalises axes (negative + rank) and checks them distinct and in range. */
bool fl__tp_norm_axes(int64_t *axes, int len, int rank) {
    bool used[TP_MAX_RANK] = {false};
    for (int i = 0; i < len; i++) {
        if (!fl__tp_norm_axis(&axes[i], rank) || used[axes[i]]) {
            return false;
        }
        used[axes[i]] = true;
    }
    return true;
}

void fl__tp_first_input(tp_ctx *x, fl_node *n, const tp_perm *perm_inv, const tp_perm *perm) {
    if (!fl__tp_absent(n, 0)) {
        fl__tp_transpose_input(x, n, 0, perm_inv, perm);
    }
}

static void transpose_inputs(tp_ctx *x, fl_node *n, const tp_perm *perm_inv, const tp_perm *perm,
                             const int *inputs, int n_inputs) {
    for (int k = 0; k < n_inputs && x->st == FL_OK; k++) {
        if (!fl__tp_absent(n, inputs[k])) {
            fl__tp_transpose_input(x, n, inputs[k], perm_inv, perm);
        }
    }
}

/* The common end of a push: n inferred again, its outputs transposed. */
bool fl__tp_finish(tp_ctx *x, fl_node *n, const tp_perm *out_perm) {
    fl__tp_infer(x, n);
    if (x->st == FL_OK) {
        fl__tp_transpose_outputs(x, n, out_perm);
    }
    x->pushed++;
    return true;
}

static bool simple(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv,
                   const int *inputs, int n_inputs, bool broadcast) {
    if (broadcast) {
        for (int k = 0; k < n_inputs; k++) {
            int r = fl_node_in(n, inputs[k])->shape.rank;
            if (r < 0 || r > perm->n) {
                return false;
            }
        }
        for (int k = 0; k < n_inputs && x->st == FL_OK; k++) {
            int r = fl_node_in(n, inputs[k])->shape.rank;
            if (r < perm->n) {
                fl__tp_unsqueeze_input(x, n, inputs[k], perm->n - r);
            }
        }
    }
    transpose_inputs(x, n, inv, perm, inputs, n_inputs);
    return fl__tp_finish(x, n, perm);
}

static bool with_axis(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv,
                      const int *inputs, int n_inputs, bool has_default, int64_t dflt) {
    const fl_attr *a = fl__node_attr(n, "axis");
    if (!a && !has_default) {
        return false;
    }
    int64_t axis = a && a->kind == FL_ATTR_I ? a->v.i : dflt;
    if (!fl__tp_norm_axis(&axis, perm->n)) {
        return false;
    }
    transpose_inputs(x, n, inv, perm, inputs, n_inputs);
    fl__tp_set_int(x, n, "axis", perm->p[axis]);
    return fl__tp_finish(x, n, perm);
}

static bool softmax(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv,
                    const int *inputs, int n_inputs) {
    if (x->opset >= 13) {
        return with_axis(x, n, perm, inv, inputs, n_inputs, true, -1);
    }
    int64_t axis = fl__attr_int(n, "axis", 1);
    if (!fl__tp_norm_axis(&axis, perm->n)) {
        return false;
    }
    for (int i = 0; i < perm->n; i++) {
        if ((i < axis) != (perm->p[i] < axis)) {
            return false;
        }
    }
    return simple(x, n, perm, inv, inputs, n_inputs, false);
}

/* The sorted P[a] of axes (ONNX Runtime's SortedAxesForTransposedInput). */
int fl__tp_sorted_axes(const int64_t *axes, int len, const tp_perm *perm, int64_t *out) {
    bool in[TP_MAX_RANK] = {false};
    for (int i = 0; i < len; i++) {
        in[perm->p[axes[i]]] = true;
    }
    int k = 0;
    for (int a = 0; a < perm->n; a++) {
        if (in[a]) {
            out[k++] = a;
        }
    }
    return k;
}

/* perm without the removed axes (ONNX Runtime's SqueezePerm). */
void fl__tp_squeeze_perm(const int64_t *axes, int len, const tp_perm *perm, tp_perm *out) {
    bool removed[TP_MAX_RANK] = {false};
    int64_t map[TP_MAX_RANK];
    for (int i = 0; i < len; i++) {
        removed[axes[i]] = true;
    }
    for (int i = 0, j = 0; i < perm->n; i++) {
        map[i] = removed[i] ? -1 : j++;
    }
    out->n = 0;
    for (int i = 0; i < perm->n; i++) {
        if (!removed[perm->p[i]]) {
            out->p[out->n++] = map[perm->p[i]];
        }
    }
}

static bool reduce(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    bool keep = fl__attr_int(n, "keepdims", 1) != 0;
    bool sum = strcmp(n->desc->name, "onnx::ReduceSum") == 0;
    int first[1] = {0};
    int64_t axes[TP_MAX_RANK], na[TP_MAX_RANK];
    int len = 0;
    tp_perm out = *perm;
    if (x->opset < (sum ? 13 : 18)) {
        const fl_attr *a = fl__node_attr(n, "axes");
        if (!a) {
            if (!keep) {
                out.n = 0;
            }
            transpose_inputs(x, n, inv, perm, first, 1);
            return fl__tp_finish(x, n, &out);
        }
        if (a->kind != FL_ATTR_LIST || a->n > TP_MAX_RANK) {
            return false;
        }
        len = (int)a->n;
        for (int i = 0; i < len; i++) {
            axes[i] = a->v.list.i[i];
        }
        if (!fl__tp_norm_axes(axes, len, perm->n)) {
            return false;
        }
        int k = fl__tp_sorted_axes(axes, len, perm, na);
        fl__tp_set_ints(x, n, "axes", k, na);
        if (!keep) {
            fl__tp_squeeze_perm(na, k, perm, &out);
        }
        transpose_inputs(x, n, inv, perm, first, 1);
        return fl__tp_finish(x, n, &out);
    }
    bool empty = n->n_inputs < 2 || fl__tp_absent(n, 1);
    if (!empty && !fl__tp_const_ints(n, 1, axes, TP_MAX_RANK, &len)) {
        return false; /* computed axes */
    }
    if (empty || len == 0) {
        transpose_inputs(x, n, inv, perm, first, 1);
        if (!(fl__attr_int(n, "noop_with_empty_axes", 0) != 0 || keep)) {
            out.n = 0;
        }
        return fl__tp_finish(x, n, &out);
    }
    if (!fl__tp_norm_axes(axes, len, perm->n)) {
        return false;
    }
    int k = fl__tp_sorted_axes(axes, len, perm, na);
    fl_node *ax = fl__tp_int64_const(x, n, "axes", k, na);
    if (!ax) {
        return false;
    }
    fl_node *old = n->inputs[1].node;
    fl__tp_set_input(x, n, 1, (fl_input){ax, 0});
    fl__tp_drop_if_unused(x, old);
    if (!keep) {
        fl__tp_squeeze_perm(na, k, perm, &out);
    }
    transpose_inputs(x, n, inv, perm, first, 1);
    return fl__tp_finish(x, n, &out);
}

/* n, a Transpose by q, reads t (perm). */
static bool transpose_pair(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm,
                           const tp_perm *inv) {
    tp_perm q;
    if (!fl__tp_perm_of(n, &q) || q.n != perm->n) {
        return false;
    }
    if (fl__tp_same(&q, inv)) {
        if (fl__preserved(n)) {
            fl__tp_decline(x, n, "a graph output is a Transpose that cancels");
            return false;
        }
        if (!fl__tp_redirect(x, n, 0, t->inputs[0], NULL)) {
            return false;
        }
        fl__graph_remove_node(n);
        x->pc->removed++;
        fl__tp_drop_if_unused(x, t);
        x->pushed++;
        return true;
    }
    tp_perm c = {perm->n, {0}};
    for (int i = 0; i < perm->n; i++) {
        c.p[i] = perm->p[q.p[i]];
    }
    fl__tp_set_input(x, n, 0, t->inputs[0]);
    fl__tp_set_ints(x, n, "perm", c.n, c.p);
    fl__tp_infer(x, n);
    fl__tp_drop_if_unused(x, t);
    x->pushed++;
    return true;
}

/* The perm of a Reshape of t's output that only moves dims of 1
 * (ONNX Runtime's HandleReshape), false when it is none. */
static bool reshape_perm(const tp_ctx *x, const fl_node *t, const fl_node *n, tp_perm *q) {
    const fl_shape *ts = &fl_node_in(t, 0)->shape, *os = &t->outputs[0].shape;
    int64_t req[TP_MAX_RANK], in[TP_MAX_RANK], fin[TP_MAX_RANK];
    int len = 0;
    if (ts->rank < 0 || os->rank < 0 || os->rank > TP_MAX_RANK || n->n_inputs < 2 ||
        !fl__tp_const_ints(n, 1, req, TP_MAX_RANK, &len) || len == 0 || len != ts->rank ||
        len != os->rank) {
        return false;
    }
    int64_t total = 1;
    for (int i = 0; i < os->rank; i++) {
        if (!fl_sym_is_known(os->dims[i]) || os->dims[i].k < 0) {
            return false;
        }
        in[i] = os->dims[i].k;
        total *= in[i];
    }
    bool allow_zero = x->opset >= 14 && fl__attr_int(n, "allowzero", 0) != 0;
    int unknown = -1;
    int64_t size = 1;
    for (int i = 0; i < len; i++) {
        fin[i] = req[i];
        if (req[i] == -1) {
            if (unknown >= 0) {
                return false;
            }
            unknown = i;
            continue;
        }
        if (!allow_zero && req[i] == 0) {
            fin[i] = in[i];
        }
        size *= fin[i];
    }
    if (unknown >= 0) {
        if (size == 0 || total % size != 0) {
            return false;
        }
        fin[unknown] = total / size;
    } else if (size != total) {
        return false;
    }
    q->n = len;
    for (int i = 0; i < len; i++) {
        int c = 0;
        while (in[c] != fin[i]) {
            if (in[c] != -1 && in[c] != 1 && fin[i] != 1) {
                return false;
            }
            if (++c == len) {
                return false;
            }
        }
        q->p[i] = c;
        in[c] = -1;
    }
    return true;
}

/* Reshape n of t's output, a Transpose by q: cancelled or replaced. */
static bool reshape(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm, const tp_perm *inv) {
    tp_perm q;
    if (!reshape_perm(x, t, n, &q)) {
        return false;
    }
    if (fl__preserved(n)) {
        fl__tp_decline(x, n, "a graph output is a Reshape acting as a Transpose");
        return false;
    }
    if (fl__tp_readers(x, n, 0, NULL, 0) > 64) {
        fl__tp_decline(x, n, "a value with more than 64 readers");
        return false;
    }
    fl_input to = t->inputs[0];
    if (!fl__tp_same(&q, inv)) {
        tp_perm c = {perm->n, {0}};
        for (int i = 0; i < perm->n; i++) {
            c.p[i] = perm->p[q.p[i]];
        }
        fl_node *nt = fl__tp_new_transpose(x, n, t->inputs[0], &c);
        if (!nt) {
            return false;
        }
        to = (fl_input){nt, 0};
    }
    if (!fl__tp_redirect(x, n, 0, to, NULL)) {
        return false;
    }
    fl_node *shape = n->inputs[1].node;
    fl__graph_remove_node(n);
    x->pc->removed++;
    fl__tp_drop_if_unused(x, shape);
    fl__tp_drop_if_unused(x, t);
    x->pushed++;
    return true;
}

bool fl__tp_handle(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm, tp_family f,
                   const int *inputs, int n_inputs) {
    tp_perm inv;
    fl__tp_invert(perm, &inv);
    switch (f) {
    case TPF_SIMPLE:
    case TPF_FIRST:
        return simple(x, n, perm, &inv, inputs, n_inputs, false);
    case TPF_BROADCAST:
        return simple(x, n, perm, &inv, inputs, n_inputs, true);
    case TPF_CONCAT:
        return with_axis(x, n, perm, &inv, inputs, n_inputs, false, 0);
    case TPF_SPLIT:
        return with_axis(x, n, perm, &inv, inputs, n_inputs, true, 0);
    case TPF_SOFTMAX:
        return softmax(x, n, perm, &inv, inputs, n_inputs);
    case TPF_REDUCE:
        return reduce(x, n, perm, &inv);
    case TPF_TRANSPOSE:
        return transpose_pair(x, t, n, perm, &inv);
    case TPF_RESHAPE:
        return reshape(x, t, n, perm, &inv);
    case TPF_SHAPE:
    case TPF_SQUEEZE:
    case TPF_UNSQUEEZE:
    case TPF_SLICE:
    case TPF_TILE:
    case TPF_PAD:
    case TPF_ARG:
        return fl__tp_handle_shape_op(x, n, perm, &inv, f);
    case TPF_UNMODELLED:
        fl__tp_decline(x, n, "pushing a Transpose through this operator is not modelled");
        return false;
    default:
        return false;
    }
}
