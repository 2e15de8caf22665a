/*
 * fuse.c - the QDQ fusion of the qdq pass on ONNX graphs: DequantizeLinear -> op ->
 * QuantizeLinear groups rewritten into the integer (QOperator) operators
 * ONNX Runtime runs them as. Grappler has no such rule (TensorFlow graphs
 * carry no Q/DQ pairs); this follows ONNX Runtime's
 * QDQSelectorActionTransformer (onnxruntime/core/optimizer/qdq_transformer/
 * selectors_actions/, its 'extended' level), and the ledger names each rule
 * after the rule group there (ConvQDQRules -> qdq_conv, ...). A QDQ file
 * is then costed as ORT executes it: integer MACs in int_ops, uint8/int8
 * activations, instead of a float graph with a DequantizeLinear of every
 * weight on every run (about 10x the int8 estimate).
 *
 * The pass runs (pass name "qdq", after cse and before constant folding, so
 * that folding does not turn the DequantizeLinear of a weight into a float
 * constant first: ORT's constant folding leaves those too) only on ONNX
 * graphs with a QuantizeLinear or DequantizeLinear; `--disable qdq` leaves
 * the groups as they are. Q/DQ of both domains (ai.onnx, com.microsoft).
 * It first propagates Q/DQ pairs across data-movement ops (propagate.c,
 * ORT's QDQPropagationTransformer, ledger rule qdq_propagation), removes a
 * Relu or Clip that the QuantizeLinear reading it makes redundant
 * (act_q.c, ORT's ReluQuantFusion and ClipQuantFusion, qdq_relu_quant and
 * qdq_clip_quant), then fuses.
 *
 * A group, seen from its QuantizeLinear Q (nodes visited in reverse
 * topological order): Q's input is the target T's output 0, or a Relu/Clip
 * R whose input is T's output 0 (T read only by R, R only by Q, neither a
 * graph output); T's output 0 is read by Q (or R) alone and is not a graph
 * output (ORT's CheckQDQNodes: one Q per output, no other reader); the
 * inputs of T named below come from DequantizeLinear nodes (port 0).
 * A DQ read by other nodes too is used all the same and kept for them (ORT
 * first gives every node its own DQ, EnsureUniqueDQForNodeUnit); a DQ left
 * without readers is removed.
 *
 * R is absorbed into the quantization range when ORT's
 * IsClipMadeRedundantByQ holds: Q's scale a float scalar and its zero point
 * a scalar, both known; Relu when the zero point is the type's minimum
 * (uint8 0, int8 -128); Clip when rint(min / s) + zp <= qmin and rint(max /
 * s) + zp >= qmax (min/max from inputs 1, 2 from opset 11, else attrs; an
 * absent bound is unbounded). Otherwise the group is left (qdq_left, "Relu
 * not made redundant by Q's range").
 *
 * Quantization parameters: every scale and zero point of the group's Q and
 * DQ nodes (except the bias DQ's) must be constants (a Const, also one whose
 * content was stripped, or a value inference computed); a Q/DQ without a
 * zero point gets a zero one (a uint8 0, int8 for an int8 DQ input: ORT's
 * SetOptionalZeroPoint), except in the drop rule, which ORT applies only
 * to pairs with zero points; activations per tensor (one
 * element); a weight per tensor or per axis along the output channels as
 * the QLinear operator allows (Conv: w_scale [M] with DQ axis 0; MatMul,
 * Gemm: B's scale [N] along B's N axis). 8-bit types only (uint8/int8;
 * ORT's QLinear kernels take no 16- or 4-bit), except the drop rule below.
 * A group failing these is left as it is and the ledger says why
 * (qdq_left, once per node).
 *
 * Rules (target: result, named after T unless Q is a graph output, then
 * after Q; its output keeps Q's value name; ORT's conditions):
 *  qdq_conv (ConvQDQRules): DQ(x), DQ(w)[, DQ(b)] -> Conv -> [R] -> Q  =>
 *    QLinearConv(x, xs, xzp, w, ws, wzp, ys, yzp[, b]), Conv's attrs.
 *    type(x) == type(y); x int8 only with w int8 (ORT allows int8
 *    activations where MLAS has no u8s8 overflow: ARM, VNNI; assumed here);
 *    b int32. With b, ORT's CheckConvBiasScale (onnxruntime pull request
 *    28229, in ORT 1.30): QLinearConv adds b at scale x_scale * w_scale[i],
 *    so the bias DQ's scale must be that within 1 % relative: x, w and b
 *    scales float constants, x's one element, b's 1 or M elements. A scale
 *    whose content was stripped (a weight-stripped file) cannot be compared
 *    and is taken as consistent (quantizers write it so).
 *  qdq_matmul (MatMulQDQRules): DQ(a), DQ(b) -> MatMul -> [R] -> Q  =>
 *    QLinearMatMul(a, as, azp, b, bs, bzp, ys, yzp); types as Conv.
 *    Without Q (no QuantizeLinear reads the MatMul):  =>  com.microsoft
 *    MatMulIntegerToFloat(a, b, as, bs, azp, bzp), float output, named
 *    after the MatMul (also when it is a graph output).
 *  qdq_gemm (GemmQDQRules): DQ(A), DQ(B)[, DQ(C)] -> Gemm -> [R] -> Q  =>
 *    com.microsoft QGemm(A, As, Azp, B, Bs, Bzp, C, Ys, Yzp) with transA,
 *    transB, alpha; A int8 only with B int8; type(A) == type(Y); with C:
 *    beta 1, C int32. Without Q: the same QGemm without Ys, Yzp (7
 *    inputs, C absent without a DQ(C)), float output.
 *  A group without Q is ORT's selection of a MatMul or Gemm no
 *  QuantizeLinear reads; ORT refuses it when the op's only reader is a
 *  Relu/Clip with one reader node (it looks for the Q after that Relu and
 *  finds none): left. The scale conditions are those of the Q form (a per
 *  tensor, b per tensor or along its N axis: the integer kernels' inputs).
 *  qdq_where (WhereQDQRules): cond, DQ(x), DQ(y) -> Where -> [R] -> Q  =>
 *    com.microsoft QLinearWhere(cond, x, xs, xzp, y, ys, yzp, zs, zzp);
 *    all three types equal, 8-bit; the condition not a DQ.
 *  qdq_binary (BinaryOpQDQRules): DQ(a), DQ(b) -> Add|Mul -> [R] -> Q  =>
 *    com.microsoft QLinearAdd|QLinearMul(a, as, azp, b, bs, bzp, cs, czp);
 *    all three types equal.
 *  qdq_variadic (VariadicOpQDQRules): DQ(x1..xn) -> Concat -> [R] -> Q  =>
 *    com.microsoft QLinearConcat(ys, yzp, x1, x1s, x1zp, ...), axis; every
 *    input's type that of y.
 *  qdq_unary (UnaryOpQDQRules): DQ(x) -> AveragePool | GlobalAveragePool |
 *    LeakyRelu | Sigmoid | Softmax -> [R] -> Q  =>  com.microsoft
 *    QLinearAveragePool | QLinearGlobalAveragePool | QLinearLeakyRelu |
 *    QLinearSigmoid | QLinearSoftmax(x, xs, xzp, ys, yzp), the op's attrs
 *    (QLinearSoftmax also `opset`, the version of Softmax's definition the
 *    model's opset gives: 1, 11 or 13); type(x) == type(y).
 *  qdq_drop (DropQDQNodesRules): DQ(x) -> T -> Q with T one of Expand,
 *    Flatten, Gather, GatherElements, Reshape, Slice, Squeeze, Tile,
 *    Transpose, Unsqueeze, Resize, MaxPool (opset >= 12), ReduceMax,
 *    ReduceMin, no R between  =>  T on x (its other inputs as they were,
 *    its attrs), named after T, writing Q's value: the op moves between
 *    the DQ/Q pairs around it and runs on the integers. Q and DQ must have
 *    equal scales (one element, known) and zero points (same type and
 *    value), type(x) == type(y); 16-bit allowed except for MaxPool,
 *    ReduceMax/Min and Resize, which also need a positive scale (a
 *    negative one reverses the order of the integers); MaxPool's Indices
 *    output unread.
 *  qdq_split (SplitQDQRules, dropSplitQDQ): DQ(x) -> Split -> one Q on
 *    each output, read by nothing else  =>  Split on x (its split input
 *    and attrs as they were), named after the Split, output k writing Q
 *    k's readers. Every Q of x's type, with zero points, scale and zero
 *    point known constant scalars equal to the DQ's (ORT's
 *    IsQDQPairSupported per Q); a Q that is a graph output: left (its
 *    value name would go).
 *  qdq_matmul_nbits (DQMatMulToMatMulNBitsRules, nbits.c): DQ(w int4 or
 *    uint4, blockwise along K) -> MatMul, A not a DQ, no Q  =>
 *    com.microsoft MatMulNBits with the weights re-laid (conditions and
 *    layout in nbits.c), tried at a MatMul the rules above leave.
 *  qdq_drop_dq (DropDQNodesRules): DQ(x) -> ArgMax, no Q  =>  ArgMax on x
 *    (its attrs), named after ArgMax: the index of the largest integer is
 *    that of the largest dequantized value. ORT's IsDQSupported: the DQ's
 *    scale and zero point constant scalars, the zero point present; x
 *    uint8, int8 or int32 (ORT's selector refuses 16- and 4-bit). ORT
 *    checks no sign of the scale here (a negative one would turn ArgMax
 *    into ArgMin), and neither does this rule.
 *
 * Counters: the Q (root; T for a group without Q) counts as rewritten, T,
 * R and every DQ removed as removed, the absent-input placeholder a QGemm without C needs and the
 * zero points made for Q/DQ without one as added.
 * MACs are kept in the sense of the QOperator rules: a QLinearConv's
 * int_ops count 2 x the float Conv's MACs (src/ops/onnxops/misc.c).
 */
#include "passes/qdq/qdq.h"
#include "passes/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DQ 64 /* inputs of a Concat the rule takes */

typedef struct qctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    fl_uses uses;
    fl_edge_index edges;
    size_t n0; /* nodes when the use lists were built */
    fl_node *absent;
    fl_node *zero_u8, *zero_i8; /* zero points made for Q/DQ without one */
    fl_status st;
} qctx;

typedef enum qrule {
    R_NONE,
    R_CONV,
    R_MATMUL,
    R_GEMM,
    R_BINARY,
    R_VARIADIC,
    R_UNARY,
    R_DROP,
    R_WHERE,
    R_DROP_DQ
} qrule;

static const char *const rule_names[] = {"",           "qdq_conv",     "qdq_matmul", "qdq_gemm",
                                         "qdq_binary", "qdq_variadic", "qdq_unary",  "qdq_drop",
                                         "qdq_where",  "qdq_drop_dq"};

/* A candidate group rooted at q, or at t when no QuantizeLinear follows
 * (q NULL: MatMul and Gemm with a float output, ArgMax). */
typedef struct group {
    fl_node *q, *clip, *t;
    qrule rule;
    int n_dq;
    fl_node *dq[MAX_DQ]; /* the DQ of each data input of t read as a DQ (input order) */
} group;

/* Quantization parameters of a Q or DQ. */
typedef struct qparam {
    int dtype;     /* the integer type (DQ's input 0, Q's output 0) */
    bool has_zp;   /* zero point input present */
    bool known;    /* scale and zero point values known */
    bool constant; /* both constants (a stripped weight's scales: no values) */
    int64_t len;   /* scale elements (-1: unknown) */
    int scale_rank;
    int64_t axis;
    double s0;  /* scale element 0 */
    int64_t z0; /* zero point element 0 (0 without one) */
    int scale_dtype, zp_dtype;
} qparam;

static bool is_q(const fl_node *n) {
    return n && (n->kind == FL_OP_ONNX_QUANTIZE_LINEAR || n->kind == FL_OP_ONNX_MS_QUANTIZE_LINEAR);
}

static bool is_dq(const fl_node *n) {
    return n &&
           (n->kind == FL_OP_ONNX_DEQUANTIZE_LINEAR || n->kind == FL_OP_ONNX_MS_DEQUANTIZE_LINEAR);
}

static bool removed(const fl_node *n) {
    return (n->flags & FL_NODE_REMOVED) != 0;
}

static bool present(const fl_node *n, int i) {
    return i < n->n_inputs && n->inputs[i].node && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT;
}

/* Live data readers of output `port` of n (an original node), and whether
 * any control edge leaves it. */
static size_t live_uses(const qctx *x, const fl_node *n, int port) {
    if (n->id >= x->n0) {
        return 2; /* a node this pass made: never an intermediate */
    }
    size_t cnt, live = 0;
    const fl_use *u = fl__uses_of(&x->uses, n, port, &cnt);
    for (size_t i = 0; i < cnt; i++) {
        live += !removed(u[i].node);
    }
    return live;
}

static bool has_ctrl(const qctx *x, const fl_node *n) {
    return n->n_ctrl > 0 || (n->id < x->n0 && x->uses.ctrl_counts[n->id] > 0);
}

/* The producer of data input i when it is output 0 of a DQ. */
static fl_node *dq_of(const fl_node *t, int i) {
    fl_node *p = present(t, i) ? t->inputs[i].node : NULL;
    return is_dq(p) && t->inputs[i].port == 0 && !removed(p) ? p : NULL;
}

bool fl__qdq_one_elem(const fl_shape *s, int64_t *len) {
    int64_t e = 1;
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i])) {
            *len = -1;
            return false;
        }
        e *= s->dims[i].k;
    }
    *len = s->rank < 0 ? -1 : e;
    return *len == 1;
}

/* Input i of n is a constant: a Const (initializer or Constant node,
 * also one whose content was stripped) or a value inference computed. */
static bool const_input(const fl_node *n, int i) {
    const fl_tensor *t = fl_node_in(n, i);
    return n->inputs[i].node->kind == FL_OP_CONST || (t->value && fl__value_is_concrete(t->value));
}

static void read_qparam(const fl_node *n, bool is_dq_node, qparam *p) {
    memset(p, 0, sizeof(*p));
    p->dtype = is_dq_node ? (int)fl_node_in(n, 0)->dtype : (int)n->outputs[0].dtype;
    p->axis = fl__attr_int(n, "axis", 1);
    const fl_tensor *s = fl_node_in(n, 1);
    p->scale_rank = s->shape.rank;
    p->scale_dtype = s->dtype;
    fl__qdq_one_elem(&s->shape, &p->len);
    p->has_zp = present(n, 2);
    p->constant = const_input(n, 1) && (!p->has_zp || const_input(n, 2));
    p->known = s->value && fl__value_is_concrete(s->value) && fl__value_f64(s->value, 0, &p->s0);
    if (p->has_zp) {
        const fl_tensor *z = fl_node_in(n, 2);
        double zv = 0;
        p->zp_dtype = z->dtype;
        p->known = p->known && z->value && fl__value_is_concrete(z->value) &&
                   fl__value_f64(z->value, 0, &zv);
        p->z0 = (int64_t)zv;
    }
}

static bool is8(int dt) {
    return dt == FL_DT_UINT8 || dt == FL_DT_INT8;
}

static bool is16(int dt) {
    return dt == FL_DT_UINT16 || dt == FL_DT_INT16;
}

static bool type_range(int dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
    case FL_DT_UINT8:
        *lo = 0, *hi = 255;
        return true;
    case FL_DT_INT8:
        *lo = -128, *hi = 127;
        return true;
    case FL_DT_UINT16:
        *lo = 0, *hi = 65535;
        return true;
    case FL_DT_INT16:
        *lo = -32768, *hi = 32767;
        return true;
    default:
        return false;
    }
}

bool fl__qdq_clip_bound(const fl_node *c, int i, const char *attr, double dflt, double *v) {
    *v = dflt;
    if (c->n_inputs > 1 || !fl__node_attr(c, attr)) {
        if (!present(c, i)) {
            return true;
        }
        const fl_tensor *t = fl_node_in(c, i);
        return t->value && fl__value_is_concrete(t->value) && fl__value_f64(t->value, 0, v);
    }
    *v = fl__attr_float(c, attr, (float)dflt);
    return true;
}

/* ORT's IsClipMadeRedundantByQ. */
static bool clip_redundant(const fl_node *clip, const fl_node *q) {
    qparam p;
    read_qparam(q, false, &p);
    int64_t lo, hi;
    if (!p.known || p.len != 1 || p.scale_rank > 0 || p.scale_dtype != FL_DT_FLOAT ||
        (p.has_zp && fl_node_in(q, 2)->shape.rank > 0) || !type_range(p.dtype, &lo, &hi)) {
        return false;
    }
    if (clip->kind == FL_OP_ONNX_RELU) {
        return p.z0 == lo;
    }
    double mn, mx;
    if (!fl__qdq_clip_bound(clip, 1, "min", -INFINITY, &mn) ||
        !fl__qdq_clip_bound(clip, 2, "max", INFINITY, &mx)) {
        return false;
    }
    double qmn = isinf(mn) ? mn : rint(mn / p.s0) + (double)p.z0;
    double qmx = isinf(mx) ? mx : rint(mx / p.s0) + (double)p.z0;
    return qmn <= (double)lo && qmx >= (double)hi;
}

static qrule rule_of(const fl_node *t, int64_t opset) {
    switch (t->kind) {
    case FL_OP_ONNX_CONV:
        return R_CONV;
    case FL_OP_ONNX_MATMUL:
        return R_MATMUL;
    case FL_OP_ONNX_GEMM:
        return R_GEMM;
    case FL_OP_ONNX_ADD:
    case FL_OP_ONNX_MUL:
        return R_BINARY;
    case FL_OP_ONNX_CONCAT:
        return R_VARIADIC;
    case FL_OP_ONNX_WHERE:
        return R_WHERE;
    case FL_OP_ONNX_AVERAGE_POOL:
    case FL_OP_ONNX_GLOBAL_AVERAGE_POOL:
    case FL_OP_ONNX_LEAKY_RELU:
    case FL_OP_ONNX_SIGMOID:
    case FL_OP_ONNX_SOFTMAX:
        return R_UNARY;
    case FL_OP_ONNX_MAX_POOL:
        return opset >= 12 ? R_DROP : R_NONE;
    case FL_OP_ONNX_EXPAND:
    case FL_OP_ONNX_FLATTEN:
    case FL_OP_ONNX_GATHER:
    case FL_OP_ONNX_GATHER_ELEMENTS:
    case FL_OP_ONNX_RESHAPE:
    case FL_OP_ONNX_SLICE:
    case FL_OP_ONNX_SQUEEZE:
    case FL_OP_ONNX_TILE:
    case FL_OP_ONNX_TRANSPOSE:
    case FL_OP_ONNX_UNSQUEEZE:
    case FL_OP_ONNX_RESIZE:
    case FL_OP_ONNX_REDUCE_MAX:
    case FL_OP_ONNX_REDUCE_MIN:
        return R_DROP;
    default:
        return R_NONE;
    }
}

/* The DQ inputs of gr->t into gr->dq. ORT's num_dq_inputs: input 0 alone
 * for the unary and drop rules and ArgMax, inputs 1 and 2 for Where (its
 * condition is bool), every input present otherwise; no other input may
 * be a DQ. False when the inputs do not fit. */
static bool collect_dqs(group *gr) {
    const fl_node *t = gr->t;
    for (int i = 0; i < t->n_inputs; i++) {
        fl_node *dq = dq_of(t, i);
        bool want = gr->rule == R_UNARY || gr->rule == R_DROP || gr->rule == R_DROP_DQ ? i == 0
                    : gr->rule == R_WHERE                                              ? i >= 1
                                                                                       : true;
        if ((want && present(t, i) && !dq) || (dq && !want) || (dq && gr->n_dq == MAX_DQ)) {
            return false;
        }
        if (dq) {
            gr->dq[gr->n_dq++] = dq;
        }
    }
    return gr->n_dq > 0 && ((gr->rule != R_MATMUL && gr->rule != R_WHERE) || gr->n_dq == 2) &&
           ((gr->rule != R_CONV && gr->rule != R_GEMM) || gr->n_dq >= 2);
}

/* The group rooted at q, by structure alone (no quantization parameter is
 * read); false when q roots none. *clip_left is set when T -> Relu/Clip ->
 * Q matched but the Relu/Clip is not redundant. */
static bool find_group(const qctx *x, fl_node *q, group *gr, bool *clip_left) {
    memset(gr, 0, sizeof(*gr));
    *clip_left = false;
    gr->q = q;
    if (q->n_inputs < 2 || q->inputs[0].port != 0 || has_ctrl(x, q)) {
        return false;
    }
    fl_node *t = q->inputs[0].node;
    if ((t->kind == FL_OP_ONNX_RELU || t->kind == FL_OP_ONNX_CLIP) && t->n_inputs >= 1 &&
        t->inputs[0].port == 0 && !fl__preserved(t) && !has_ctrl(x, t) && live_uses(x, t, 0) == 1 &&
        live_uses(x, t->inputs[0].node, 0) == 1) {
        gr->clip = t;
        t = t->inputs[0].node;
    }
    gr->t = t;
    gr->rule = rule_of(t, x->g->onnx.opset);
    if (gr->rule == R_NONE || t->id >= x->n0 || removed(t) || fl__preserved(t) || has_ctrl(x, t) ||
        live_uses(x, t, 0) != 1) {
        return false;
    }
    for (int k = 1; k < t->n_outputs; k++) {
        if (live_uses(x, t, k) != 0) {
            return false;
        }
    }
    if (!collect_dqs(gr)) {
        return false;
    }
    if (gr->clip) {
        if (gr->rule == R_DROP) {
            return false; /* ORT drops Q/DQ only around the op alone */
        }
        if (!clip_redundant(gr->clip, q)) {
            *clip_left = true;
        }
    }
    return true;
}

/* The group without a QuantizeLinear rooted at t (MatMul, Gemm, ArgMax),
 * by structure alone; false when t roots none. ORT selects such a group
 * when no QuantizeLinear reads t's output (with one, the group is the
 * QuantizeLinear's, tried first); *why is set when ORT's selection would
 * see t -> Relu/Clip and refuse it (it looks for a QuantizeLinear after a
 * Relu/Clip that is t's only reader and has one reader itself). */
static bool find_noq(const qctx *x, fl_node *t, group *gr, const char **why) {
    memset(gr, 0, sizeof(*gr));
    *why = NULL;
    gr->t = t;
    gr->rule = t->kind == FL_OP_ONNX_ARG_MAX ? R_DROP_DQ : rule_of(t, x->g->onnx.opset);
    if ((gr->rule != R_MATMUL && gr->rule != R_GEMM && gr->rule != R_DROP_DQ) || t->id >= x->n0 ||
        has_ctrl(x, t) || t->n_outputs != 1 || !collect_dqs(gr)) {
        return false;
    }
    size_t cnt, live = 0;
    const fl_use *u = fl__uses_of(&x->uses, t, 0, &cnt);
    const fl_node *reader = NULL;
    for (size_t i = 0; i < cnt; i++) {
        if (removed(u[i].node)) {
            continue;
        }
        if (is_q(u[i].node)) {
            return false;
        }
        live++;
        reader = u[i].node;
    }
    if (live == 1 && (reader->kind == FL_OP_ONNX_RELU || reader->kind == FL_OP_ONNX_CLIP) &&
        !fl__preserved(reader) && live_uses(x, reader, 0) == 1) {
        *why = "its only reader is a Relu/Clip without a QuantizeLinear after it";
    }
    return true;
}

/* ---- conditions on the quantization parameters ---- */

/* Which Q/DQ a per-tensor check is about (the reasons are literals: the
 * pass may run in several threads at once). */
enum { W_Q, W_INPUT, W_ANY_INPUT };

/* Per tensor: one element, constant; NULL or why not. */
static const char *per_tensor(const qparam *p, int who) {
    static const char *const why[3][2] = {
        {"the QuantizeLinear's scale or zero point is not a constant",
         "the QuantizeLinear is quantized per axis (the QLinear operator takes one scale)"},
        {"the input's DequantizeLinear's scale or zero point is not a constant",
         "the input's DequantizeLinear is quantized per axis (the QLinear operator takes one "
         "scale)"},
        {"an input's DequantizeLinear's scale or zero point is not a constant",
         "an input's DequantizeLinear is quantized per axis (the QLinear operator takes one "
         "scale)"},
    };
    if (!p->constant) {
        return why[who][0];
    }
    return p->len != 1 ? why[who][1] : NULL;
}

/* A weight: per tensor, or per axis `axis` (of a weight of rank `rank`)
 * with `n` scales. */
static const char *per_axis_ok(const fl_node *dq, const qparam *p, int64_t axis, int64_t n) {
    if (!p->constant) {
        return "the weight's scale or zero point is not a constant";
    }
    if (p->len == 1) {
        return NULL;
    }
    int rank = fl_node_in(dq, 0)->shape.rank;
    int64_t ax = p->axis < 0 ? p->axis + rank : p->axis;
    if (p->scale_rank != 1 || ax != axis || p->len != n) {
        return "the weight is quantized along an axis the QLinear operator does not take";
    }
    return NULL;
}

/* q NULL: no QuantizeLinear (a float output). */
static const char *types_ok(const group *gr, const qparam *dq, const qparam *q) {
    int y = q ? q->dtype : FL_DT_FLOAT;
    switch (gr->rule) {
    case R_CONV:
    case R_MATMUL:
    case R_GEMM:
        if (!is8(dq[0].dtype) || !is8(dq[1].dtype)) {
            return "not 8-bit (the integer contractions take uint8/int8)";
        }
        if (dq[0].dtype == FL_DT_INT8 && dq[1].dtype != FL_DT_INT8) {
            return "int8 activations with uint8 weights";
        }
        if (q && dq[0].dtype != y) {
            return "the input and output types differ";
        }
        if (gr->n_dq == 3 && dq[2].dtype != FL_DT_INT32) {
            return "the bias is not int32";
        }
        return NULL;
    case R_DROP:
        if (dq[0].dtype != y) {
            return "the input and output types differ";
        }
        if (!is8(y) &&
            !(is16(y) && gr->t->kind != FL_OP_ONNX_MAX_POOL &&
              gr->t->kind != FL_OP_ONNX_REDUCE_MAX && gr->t->kind != FL_OP_ONNX_REDUCE_MIN &&
              gr->t->kind != FL_OP_ONNX_RESIZE)) {
            return "not a type the operator takes on integers";
        }
        return NULL;
    case R_DROP_DQ:
        return is8(dq[0].dtype) || dq[0].dtype == FL_DT_INT32
                   ? NULL
                   : "not a type ArgMax takes on integers (uint8, int8, int32)";
    default:
        for (int i = 0; i < gr->n_dq; i++) {
            if (dq[i].dtype != y) {
                return "the input and output types differ";
            }
        }
        return is8(y) ? NULL : "not 8-bit (the QLinear operators take uint8/int8)";
    }
}

/* The contraction's weight layout: the output-channel axis of the weight
 * and its length. */
static void weight_axis(const group *gr, int64_t *axis, int64_t *n) {
    const fl_shape *w = &fl_node_in(gr->dq[1], 0)->shape;
    *axis = 0;
    if (gr->rule == R_MATMUL) {
        *axis = w->rank - 1;
    } else if (gr->rule == R_GEMM) {
        *axis = fl__attr_int(gr->t, "transB", 0) ? 0 : 1;
    }
    *n = *axis >= 0 && *axis < w->rank && fl_sym_is_known(w->dims[*axis]) ? w->dims[*axis].k : -1;
}

/* Element i of t's value (element 0 when it has one element); false when
 * unknown. */
static bool scale_at(const fl_tensor *t, int64_t n, int64_t i, double *v) {
    return t->value && fl__value_is_concrete(t->value) &&
           fl__value_f64(t->value, n == 1 ? 0 : i, v);
}

/* ORT's CheckConvBiasScale: the bias DQ's scale is x_scale * w_scale[i]. */
static const char *bias_scale_ok(const group *gr) {
    const fl_tensor *xs = fl_node_in(gr->dq[0], 1), *ws = fl_node_in(gr->dq[1], 1),
                    *bs = fl_node_in(gr->dq[2], 1);
    const fl_shape *w = &fl_node_in(gr->dq[1], 0)->shape;
    int64_t nx, nw, nb, m = w->rank >= 1 && fl_sym_is_known(w->dims[0]) ? w->dims[0].k : -1;
    fl__qdq_one_elem(&xs->shape, &nx);
    fl__qdq_one_elem(&ws->shape, &nw);
    fl__qdq_one_elem(&bs->shape, &nb);
    if (xs->dtype != FL_DT_FLOAT || ws->dtype != FL_DT_FLOAT || bs->dtype != FL_DT_FLOAT) {
        return "a scale of the Conv's DequantizeLinear nodes is not float";
    }
    if (!const_input(gr->dq[2], 1)) {
        return "the bias's scale is not a constant";
    }
    if (nx != 1 || (nb != 1 && nb != m) || (nw != 1 && nw != m)) {
        return "the bias's scale has neither one element nor one per output channel";
    }
    double x, s, b;
    if (!scale_at(xs, 1, 0, &x)) {
        return NULL; /* stripped: not comparable */
    }
    for (int64_t i = 0; i < (nb > nw ? nb : nw); i++) {
        if (!scale_at(ws, nw, i, &s) || !scale_at(bs, nb, i, &b)) {
            return NULL;
        }
        if (fabs(b - x * s) > 0.01 * fabs(x * s)) {
            return "the bias's scale is not x_scale * w_scale (QLinearConv adds the int32 bias "
                   "at that scale)";
        }
    }
    return NULL;
}

/* Why the group cannot be rewritten, or NULL. */
static const char *check_group(const group *gr) {
    qparam dq[MAX_DQ], q;
    for (int i = 0; i < gr->n_dq; i++) {
        read_qparam(gr->dq[i], true, &dq[i]);
    }
    if (gr->q) {
        read_qparam(gr->q, false, &q);
    }
    const char *why = types_ok(gr, dq, gr->q ? &q : NULL);
    if (why) {
        return why;
    }
    if (gr->rule == R_DROP_DQ) { /* ORT's IsDQSupported */
        if (!dq[0].has_zp) {
            return "the DequantizeLinear has no zero point";
        }
        return per_tensor(&dq[0], W_INPUT);
    }
    if (gr->q && (why = per_tensor(&q, W_Q)) != NULL) {
        return why;
    }
    if (gr->rule == R_CONV || gr->rule == R_MATMUL || gr->rule == R_GEMM) {
        int64_t axis, n;
        weight_axis(gr, &axis, &n);
        if ((why = per_tensor(&dq[0], W_INPUT)) != NULL ||
            (why = per_axis_ok(gr->dq[1], &dq[1], axis, n)) != NULL) {
            return why;
        }
        if (gr->rule == R_GEMM && gr->n_dq == 3 && fl__attr_float(gr->t, "beta", 1.0f) != 1.0f) {
            return "Gemm's beta is not 1";
        }
        return gr->rule == R_CONV && gr->n_dq == 3 ? bias_scale_ok(gr) : NULL;
    }
    for (int i = 0; i < gr->n_dq; i++) {
        if ((why = per_tensor(&dq[i], W_ANY_INPUT)) != NULL) {
            return why;
        }
    }
    if (gr->rule != R_DROP) {
        return NULL;
    }
    /* ORT's IsQDQPairSupported: both with zero points, equal scales and
     * zero points. */
    if (!dq[0].has_zp || !q.has_zp) {
        return "the DequantizeLinear or QuantizeLinear around it has no zero point";
    }
    if (!dq[0].known || !q.known) {
        return "the scale or zero point of the DequantizeLinear or QuantizeLinear around it is "
               "not known (stripped)";
    }
    if (dq[0].s0 != q.s0 || dq[0].z0 != q.z0 || dq[0].zp_dtype != q.zp_dtype ||
        dq[0].scale_dtype != q.scale_dtype) {
        return "the DequantizeLinear and QuantizeLinear around it differ in scale or zero point";
    }
    fl_op_kind k = gr->t->kind;
    if ((k == FL_OP_ONNX_MAX_POOL || k == FL_OP_ONNX_REDUCE_MAX || k == FL_OP_ONNX_REDUCE_MIN) &&
        !(q.s0 > 0)) {
        return "the scale is not positive (the order of the integers would reverse)";
    }
    return NULL;
}

/* ---- rewriting ---- */

static void fail_oom(qctx *x) {
    if (x->st == FL_OK) {
        x->st = fl__diag_oom(x->d);
    }
}

/* The ledger note of a group left as it is, once per node and reason
 * (the pass runs in every meta-iteration). */
static void note_left(qctx *x, const group *gr, const char *why) {
    const fl_ledger *l = x->pc->ledger;
    for (size_t i = 0; l && i < l->n_entries; i++) {
        const fl_ledger_entry *e = fl__ledger_entry(l, i);
        if (e->pass && strcmp(e->pass, x->pc->pass) == 0 && strcmp(e->rule, "qdq_left") == 0 &&
            strcmp(e->node, gr->t->name) == 0) {
            return;
        }
    }
    fl__ledger_note(x->pc, "qdq_left", gr->t, "%s -> %s left as it is: %s", gr->t->op,
                    gr->q ? gr->q->op : "(no QuantizeLinear)", why);
}

/* The placeholder of an absent optional input (the importer's kind). */
static fl_node *absent_node(qctx *x) {
    if (x->absent) {
        return x->absent;
    }
    const char *name = fl__graph_unique_name(x->g, "onnx::absent");
    fl_node *n = name ? fl__op_add_op(x->g, name, "onnx::_absent", 0, NULL, 1, x->d) : NULL;
    if (!n) {
        fail_oom(x);
        return NULL;
    }
    fl__op_bind_kind(n, FL_OP_ONNX_ABSENT);
    if (fl__infer_node(x->pc, n) != FL_OK) {
        x->st = x->d->status != FL_OK ? x->d->status : FL_EINTERNAL;
        return NULL;
    }
    x->pc->added++;
    x->absent = n;
    return n;
}

/* Removes n (a node of the group, or a DQ left without readers). */
static void drop(qctx *x, fl_node *n) {
    if (!removed(n)) {
        fl__graph_remove_node(n);
        x->pc->removed++;
    }
}

static void drop_dq_if_unused(qctx *x, fl_node *dq) {
    if (!removed(dq) && !fl__preserved(dq) && !has_ctrl(x, dq) && live_uses(x, dq, 0) == 0) {
        drop(x, dq);
    }
}

/* Adds the node of kind `kind` that takes over the group: Q's readers and
 * value name, the control inputs of Q, R and T, T's device; named after T
 * (after Q when Q is a graph output); then removes Q, R and T. */
static fl_node *replace_group(qctx *x, group *gr, int kind, int n_in, const fl_input *in) {
    fl_node *q = gr->q, *t = gr->t, *root = q ? q : t;
    const char *full = fl__op_name(kind), *sep = strstr(full, "::");
    char *base = fl__arena_printf(x->g->arena, "%s/_qdq_new", t->name);
    const char *tmp = base ? fl__graph_unique_name(x->g, base) : NULL;
    const struct fl_op_desc *desc = fl__op_desc_of(kind);
    int n_out = gr->rule == R_DROP || gr->rule == R_DROP_DQ ? t->n_outputs
                : desc && desc->n_outputs > 0               ? desc->n_outputs
                                                            : 1;
    fl_node *nn =
        tmp ? fl__op_add_op(x->g, tmp, sep ? sep + 2 : full, n_in, in, n_out, x->d) : NULL;
    if (!nn) {
        fail_oom(x);
        return NULL;
    }
    fl__op_bind_kind(nn, kind);
    nn->device = t->device ? t->device : "";
    nn->src = root->src;
    fl__edge_index_replace_uses(&x->edges, root, 0, nn, 0, x->d);
    fl__edge_index_replace_ctrl_uses(&x->edges, root, nn, x->d);
    fl_node *parts[3] = {q, gr->clip, t};
    for (int p = 0; p < 3; p++) {
        for (int k = 0; parts[p] && k < parts[p]->n_ctrl; k++) {
            if (fl__node_add_ctrl(x->g, nn, parts[p]->ctrl[k]) != FL_OK) {
                fail_oom(x);
            }
        }
    }
    if (fl__edge_index_note(&x->edges, nn, x->d) != FL_OK) {
        fail_oom(x);
    }
    nn->flags |= root->flags & FL_NODE_PRESERVE;
    fl__graph_remove_node(root);
    x->pc->rewritten++;
    if (gr->clip) {
        drop(x, gr->clip);
    }
    if (q) {
        drop(x, t);
    }
    nn->name = fl__preserved(nn) ? root->name : t->name;
    return nn;
}

/* Copies attrs of src onto dst; only those named in `keep` when not NULL. */
static void copy_attrs(qctx *x, fl_node *dst, const fl_node *src, const char *const *keep) {
    for (int i = 0; i < src->n_attrs; i++) {
        bool ok = !keep;
        for (int k = 0; keep && keep[k] && !ok; k++) {
            ok = strcmp(src->attrs[i].name, keep[k]) == 0;
        }
        if (ok && fl__node_set_attr(x->g, dst, &src->attrs[i]) != FL_OK) {
            fail_oom(x);
        }
    }
}

/* A scalar zero of dtype dt (uint8 or int8), made once per run: the zero
 * point of a Q/DQ without one. */
static fl_node *zero_point(qctx *x, int dt) {
    fl_node **slot = dt == FL_DT_INT8 ? &x->zero_i8 : &x->zero_u8;
    if (*slot) {
        return *slot;
    }
    const char *name = fl__graph_unique_name(x->g, dt == FL_DT_INT8 ? "qdq/zero_point_int8"
                                                                    : "qdq/zero_point_uint8");
    fl_value *v = fl__value_new(x->g->arena, (fl_dtype)dt, 0, NULL);
    fl_node *k =
        name && v ? fl__op_add_op(x->g, name, fl__op_name(FL_OP_CONST), 0, NULL, 1, x->d) : NULL;
    fl_attr value = fl__attr_make_tensor(x->g, "value", dt, 0, NULL, v);
    fl_attr dtype = fl__attr_make_type(x->g, "dtype", dt);
    if (!k || !value.name || !value.v.tensor || !dtype.name ||
        fl__node_set_attr(x->g, k, &dtype) != FL_OK ||
        fl__node_set_attr(x->g, k, &value) != FL_OK) {
        fail_oom(x);
        return NULL;
    }
    if (fl__infer_node(x->pc, k) != FL_OK) {
        x->st = x->d->status != FL_OK ? x->d->status : FL_EINTERNAL;
        return NULL;
    }
    x->pc->added++;
    *slot = k;
    return k;
}

/* The zero point input of Q/DQ n (input 2), or a zero of type dt. */
static bool zp_input(qctx *x, const fl_node *n, int dt, fl_input *out) {
    if (present(n, 2)) {
        *out = n->inputs[2];
        return true;
    }
    fl_node *z = zero_point(x, dt == FL_DT_INT8 ? FL_DT_INT8 : FL_DT_UINT8);
    *out = (fl_input){z, 0};
    return z != NULL;
}

/* Appends the DQ's (x, scale, zero point) to in[*n]. */
static bool push_dq(qctx *x, fl_input *in, int *n, const fl_node *dq) {
    in[(*n)++] = dq->inputs[0];
    in[(*n)++] = dq->inputs[1];
    return zp_input(x, dq, fl_node_in(dq, 0)->dtype, &in[(*n)++]);
}

/* Appends the Q's (scale, zero point) to in[*n]. */
static bool push_q(qctx *x, fl_input *in, int *n, const fl_node *q) {
    in[(*n)++] = q->inputs[1];
    return zp_input(x, q, q->outputs[0].dtype, &in[(*n)++]);
}

static int target_kind(const group *gr) {
    switch (gr->t->kind) {
    case FL_OP_ONNX_CONV:
        return FL_OP_ONNX_QLINEAR_CONV;
    case FL_OP_ONNX_MATMUL:
        return gr->q ? FL_OP_ONNX_QLINEAR_MATMUL : FL_OP_ONNX_MS_MATMUL_INTEGER_TO_FLOAT;
    case FL_OP_ONNX_WHERE:
        return FL_OP_ONNX_MS_QLINEAR_WHERE;
    case FL_OP_ONNX_GEMM:
        return FL_OP_ONNX_MS_QGEMM;
    case FL_OP_ONNX_ADD:
        return FL_OP_ONNX_MS_QLINEAR_ADD;
    case FL_OP_ONNX_MUL:
        return FL_OP_ONNX_MS_QLINEAR_MUL;
    case FL_OP_ONNX_CONCAT:
        return FL_OP_ONNX_MS_QLINEAR_CONCAT;
    case FL_OP_ONNX_AVERAGE_POOL:
        return FL_OP_ONNX_MS_QLINEAR_AVERAGE_POOL;
    case FL_OP_ONNX_GLOBAL_AVERAGE_POOL:
        return FL_OP_ONNX_MS_QLINEAR_GLOBAL_AVERAGE_POOL;
    case FL_OP_ONNX_LEAKY_RELU:
        return FL_OP_ONNX_MS_QLINEAR_LEAKY_RELU;
    case FL_OP_ONNX_SIGMOID:
        return FL_OP_ONNX_MS_QLINEAR_SIGMOID;
    case FL_OP_ONNX_SOFTMAX:
        return FL_OP_ONNX_MS_QLINEAR_SOFTMAX;
    default:
        return gr->t->kind; /* the drop rule: the op itself */
    }
}

/* The new node's inputs (ORT's actions' order); false on OOM. */
static int build_inputs(qctx *x, const group *gr, fl_input *in) {
    int n = 0;
    const fl_node *q = gr->q, *t = gr->t;
    bool ok = true;
    if (gr->rule == R_MATMUL && !q) { /* MatMulIntegerToFloat: A, B, As, Bs, Azp, Bzp */
        in[n++] = gr->dq[0]->inputs[0];
        in[n++] = gr->dq[1]->inputs[0];
        in[n++] = gr->dq[0]->inputs[1];
        in[n++] = gr->dq[1]->inputs[1];
        ok = zp_input(x, gr->dq[0], fl_node_in(gr->dq[0], 0)->dtype, &in[n++]) &&
             zp_input(x, gr->dq[1], fl_node_in(gr->dq[1], 0)->dtype, &in[n++]);
        return ok ? n : -1;
    }
    switch (gr->rule) {
    case R_CONV:
    case R_MATMUL:
    case R_BINARY:
        ok = push_dq(x, in, &n, gr->dq[0]) && push_dq(x, in, &n, gr->dq[1]) && push_q(x, in, &n, q);
        if (gr->n_dq == 3) {
            in[n++] = gr->dq[2]->inputs[0];
        }
        return ok ? n : -1;
    case R_GEMM:
        if (!push_dq(x, in, &n, gr->dq[0]) || !push_dq(x, in, &n, gr->dq[1])) {
            return -1;
        }
        if (gr->n_dq == 3) {
            in[n++] = gr->dq[2]->inputs[0];
        } else {
            fl_node *a = absent_node(x);
            if (!a) {
                return -1;
            }
            in[n++] = (fl_input){a, 0};
        }
        return !q || push_q(x, in, &n, q) ? n : -1; /* without Q: a float output */
    case R_WHERE:
        in[n++] = t->inputs[0];
        ok = push_dq(x, in, &n, gr->dq[0]) && push_dq(x, in, &n, gr->dq[1]) && push_q(x, in, &n, q);
        return ok ? n : -1;
    case R_VARIADIC:
        ok = push_q(x, in, &n, q);
        for (int i = 0; ok && i < gr->n_dq; i++) {
            ok = push_dq(x, in, &n, gr->dq[i]);
        }
        return ok ? n : -1;
    case R_UNARY:
        return push_dq(x, in, &n, gr->dq[0]) && push_q(x, in, &n, q) ? n : -1;
    default: /* R_DROP, R_DROP_DQ */
        for (int i = 0; i < t->n_inputs; i++) {
            in[n++] = i == 0 ? gr->dq[0]->inputs[0] : t->inputs[i];
        }
        return n;
    }
}

static bool rewrite_group(qctx *x, group *gr) {
    static const char *const gemm_attrs[] = {"alpha", "transA", "transB", NULL};
    fl_input in[3 * MAX_DQ + 4];
    int n_in = build_inputs(x, gr, in);
    if (n_in < 0) {
        return false;
    }
    fl_node *dqs[MAX_DQ];
    memcpy(dqs, gr->dq, (size_t)gr->n_dq * sizeof(*dqs));
    int n_dq = gr->n_dq;
    const char *t_op = gr->t->op;
    bool relu = gr->clip != NULL;
    const char *clip_op = relu ? gr->clip->op : "";
    fl_node *t = gr->t;
    fl_node *nn = replace_group(x, gr, target_kind(gr), n_in, in);
    if (!nn) {
        return false;
    }
    copy_attrs(x, nn, t, gr->rule == R_GEMM ? gemm_attrs : NULL);
    if (t->kind == FL_OP_ONNX_SOFTMAX) { /* the version of Softmax's definition */
        int64_t op = x->g->onnx.opset, since = op >= 13 ? 13 : op >= 11 ? 11 : 1;
        fl_attr a = fl__attr_make_int(x->g, "opset", since);
        if (!a.name || fl__node_set_attr(x->g, nn, &a) != FL_OK) {
            fail_oom(x);
        }
    }
    for (int i = 0; i < n_dq; i++) {
        drop_dq_if_unused(x, dqs[i]);
    }
    fl__ledger_note(x->pc, rule_names[gr->rule], t, "%d DequantizeLinear -> %s%s%s%s => %s%s", n_dq,
                    t_op, relu ? " -> " : "", clip_op,
                    gr->q ? " -> QuantizeLinear" : " (no QuantizeLinear)", nn->op,
                    gr->rule == R_DROP || gr->rule == R_DROP_DQ ? " on the integers"
                    : gr->q                                     ? ""
                                                                : ", float output");
    return x->st == FL_OK;
}

static bool fuse_at(qctx *x, fl_node *q) {
    group gr;
    bool clip_left;
    if (!find_group(x, q, &gr, &clip_left)) {
        return false;
    }
    const char *why =
        clip_left ? "the Relu/Clip before the QuantizeLinear is not made redundant by its range"
                  : check_group(&gr);
    if (why) {
        note_left(x, &gr, why);
        return false;
    }
    return rewrite_group(x, &gr);
}

bool fl__pass_qdq_applies(const fl_graph *g) {
    if (!g->onnx.is_onnx) {
        return false;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        if (is_q(g->nodes[i]) || is_dq(g->nodes[i])) {
            return true;
        }
    }
    return false;
}

/* ---- Split (ORT's SplitQDQRules, dropSplitQDQ) ---- */

#define MAX_SPLIT 64 /* outputs of a Split the rule takes */

/* DQ(x) -> Split -> one Q per output: the Qs (qs[k] reads output k), or
 * NULL with *why when a group matched but cannot be taken; false when t
 * roots none. */
static bool find_split(const qctx *x, fl_node *t, fl_node **qs, fl_node **dq, const char **why) {
    *why = NULL;
    *dq = dq_of(t, 0);
    if (t->kind != FL_OP_ONNX_SPLIT || !*dq || t->id >= x->n0 || has_ctrl(x, t) ||
        t->n_outputs > MAX_SPLIT || fl__preserved(t)) {
        return false;
    }
    for (int k = 0; k < t->n_outputs; k++) {
        size_t cnt, live = 0;
        const fl_use *u = fl__uses_of(&x->uses, t, k, &cnt);
        qs[k] = NULL;
        for (size_t i = 0; i < cnt; i++) {
            if (!removed(u[i].node)) {
                live++;
                qs[k] = u[i].node;
            }
        }
        /* ORT's CheckQDQNodes: a Q per output, no other reader */
        if (live != 1 || !is_q(qs[k]) || qs[k]->inputs[0].node != t || qs[k]->inputs[0].port != k ||
            has_ctrl(x, qs[k])) {
            return false;
        }
        if (fl__preserved(qs[k])) {
            *why = "a QuantizeLinear after it is a graph output (its value name would go)";
        }
    }
    return true;
}

/* ORT's SplitNodeGroupSelector with equal quantization parameters: every
 * Q of x's type, and IsQDQPairSupported with the DQ. */
static const char *check_split(const fl_node *t, fl_node *const *qs, const fl_node *dq) {
    qparam d, q;
    read_qparam(dq, true, &d);
    for (int k = 0; k < t->n_outputs; k++) {
        read_qparam(qs[k], false, &q);
        if (q.dtype != d.dtype) {
            return "the input and output types differ";
        }
        if (!d.has_zp || !q.has_zp) {
            return "the DequantizeLinear or a QuantizeLinear around it has no zero point";
        }
        if (!d.constant || !q.constant || !d.known || !q.known || d.len != 1 || q.len != 1) {
            return "a scale or zero point around it is not a known constant scalar";
        }
        if (d.s0 != q.s0 || d.z0 != q.z0 || d.zp_dtype != q.zp_dtype ||
            d.scale_dtype != q.scale_dtype) {
            return "the DequantizeLinear and a QuantizeLinear around it differ in scale or zero "
                   "point";
        }
    }
    return NULL;
}

/* Split on the DQ's input (its other inputs and attrs as they were), named
 * after the Split, output k taking over Q k's readers. */
static bool rewrite_split(qctx *x, fl_node *t, fl_node **qs, fl_node *dq) {
    fl_input in[8];
    int n_in = t->n_inputs < 8 ? t->n_inputs : 8;
    for (int i = 0; i < n_in; i++) {
        in[i] = i == 0 ? dq->inputs[0] : t->inputs[i];
    }
    char *base = fl__arena_printf(x->g->arena, "%s/_qdq_new", t->name);
    const char *tmp = base ? fl__graph_unique_name(x->g, base) : NULL;
    fl_node *nn = tmp ? fl__op_add_op(x->g, tmp, t->op, n_in, in, t->n_outputs, x->d) : NULL;
    if (!nn) {
        fail_oom(x);
        return false;
    }
    fl__op_bind_kind(nn, t->kind);
    nn->device = t->device ? t->device : "";
    nn->src = t->src;
    copy_attrs(x, nn, t, NULL);
    for (int k = 0; k < t->n_outputs; k++) {
        fl__edge_index_replace_uses(&x->edges, qs[k], 0, nn, k, x->d);
        fl__edge_index_replace_ctrl_uses(&x->edges, qs[k], nn, x->d);
    }
    if (fl__edge_index_note(&x->edges, nn, x->d) != FL_OK) {
        fail_oom(x);
    }
    for (int k = 0; k < t->n_outputs; k++) {
        drop(x, qs[k]);
    }
    fl__graph_remove_node(t);
    x->pc->rewritten++;
    nn->name = t->name;
    drop_dq_if_unused(x, dq);
    fl__ledger_note(x->pc, "qdq_split", t,
                    "1 DequantizeLinear -> Split -> %d QuantizeLinear => Split on the integers",
                    t->n_outputs);
    return x->st == FL_OK;
}

static bool fuse_split(qctx *x, fl_node *t) {
    fl_node *qs[MAX_SPLIT], *dq;
    const char *why;
    if (!find_split(x, t, qs, &dq, &why)) {
        return false;
    }
    if (why || (why = check_split(t, qs, dq)) != NULL) {
        group gr = {0};
        gr.t = t;
        gr.q = qs[0];
        note_left(x, &gr, why);
        return false;
    }
    return rewrite_split(x, t, qs, dq);
}

/* A group without a QuantizeLinear rooted at t. */
static bool fuse_noq(qctx *x, fl_node *t) {
    group gr;
    const char *why;
    if (!find_noq(x, t, &gr, &why)) {
        return false;
    }
    if (why || (why = check_group(&gr)) != NULL) {
        note_left(x, &gr, why);
        return false;
    }
    return rewrite_group(x, &gr);
}

static bool visit(void *ctx, fl_node *n) {
    if (is_q(n)) {
        return fuse_at(ctx, n);
    }
    if (n->kind == FL_OP_ONNX_SPLIT) {
        return fuse_split(ctx, n);
    }
    if ((n->kind == FL_OP_ONNX_MATMUL || n->kind == FL_OP_ONNX_GEMM ||
         n->kind == FL_OP_ONNX_ARG_MAX) &&
        fuse_noq(ctx, n)) {
        return true;
    }
    qctx *x = ctx;
    return n->kind == FL_OP_ONNX_MATMUL &&
           fl__qdq_matmul_nbits(x->pc, &x->uses, &x->edges, x->n0, n, &x->st);
}

fl_status fl__pass_qdq(fl_pass_ctx *pc) {
    if (!fl__pass_qdq_applies(pc->c->g)) {
        return FL_OK;
    }
    qctx x = {0};
    x.pc = pc;
    x.g = pc->c->g;
    x.d = pc->c->d;
    fl_status s = fl__qdq_propagate(pc);
    if (s != FL_OK || (s = fl__qdq_drop_activations(pc)) != FL_OK) {
        return s;
    }
    return fl__sweep_reverse(pc, &x.uses, &x.edges, &x.n0, visit, &x, &x.st);
}
