/*
 * arithmetic_optimizer.c - Grappler's ArithmeticOptimizer (grappler.md 4),
 * the default-on stages that are exact on foldline's IR.
 *
 * Driver. Grappler pops nodes from the end of the topologically sorted graph
 * (consumers first) and runs each through the stages in a fixed order; the
 * first stage that fires wins. Here: one sweep in reverse topological order
 * runs the group stage that must see the root of a tree before its members
 * (AddOpsRewrite), then one sweep in topological order runs every other stage
 * in Grappler's order. Use counts (data edges and control edges per node) are
 * kept exact through both sweeps, so the single-consumer conditions hold for
 * the graph as rewritten so far. Nodes created by a stage are not revisited
 * in the same sweep (the pipeline's second iteration sees them).
 *
 * "Forward" means the node's consumers read the given tensor instead and the
 * node is removed (it must not be preserved and must have no control inputs
 * or control consumers); "in place" means the node keeps its name and
 * becomes the new op (allowed on a preserved node only when its dtype and
 * shape stay the same). New nodes are named as Grappler names them:
 * "<scope>/ArithmeticOptimizer/<Stage>_<rule>_<name>". Ledger rules carry the
 * stage's option name (rewriter_config's flag).
 *
 * Stages:
 *  - combine_add_to_addn (AddOpsRewrite, 1): a tree of Add/AddV2/AddN nodes
 *    (not preserved, no control edges, members read once, every node's
 *    inputs broadcastable to its symbolically known shape) -> one AddN of
 *    the leaves per distinct input shape ("AddOpsRewrite_Leaf_<i>_<root>")
 *    and a chain of AddV2 combining them smallest first
 *    ("AddOpsRewrite_Internal_<i>_<root>"), rooted at "AddOpsRewrite_<root>".
 *    All members are tagged _grappler_ArithmeticOptimizer_AddOpsRewriteStage.
 *  - fold_multiply_into_conv (3): Conv2D/Conv3D(chain(Mul(x, s)), W) with W a
 *    Const, s a scalar Const of W's dtype, the Mul read once and not
 *    preserved, the chain value-preserving, single-consumer, not preserved
 *    -> the chain reads x and the conv reads Mul(W, s), a new node
 *    "<W scope>/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_<conv>_<W>".
 *  - fold_transpose_into_matmul (4): MatMul/BatchMatMul* (not preserved)
 *    whose operand is a Transpose/ConjugateTranspose swapping only the two
 *    innermost dims (constant perm) -> a copy
 *    "ArithmeticOptimizer/FoldTransposeIntoMatMul_<name>" with
 *    transpose_a/b (adj_x/adj_y) flipped reading the transpose's input
 *    (complex: only Transpose for MatMul, only ConjugateTranspose for
 *    BatchMatMul).
 *  - remove_identity_transpose (7): Transpose(Transpose(x, p1), p2) whose
 *    constant perms compose to the identity -> forward x.
 *  - remove_involution (8): f(f(x)) for Neg, Reciprocal, Conj, Invert,
 *    LogicalNot -> forward x.
 *  - remove_redundant_bitcast (9): Bitcast with T == type -> forward its
 *    input; Bitcast(Bitcast(x)) (inner not preserved) -> Bitcast(x) in place
 *    with the inner T.
 *  - remove_redundant_cast (10): Cast with SrcT == DstT -> forward its input.
 *  - remove_redundant_reshape (14): Reshape or BroadcastTo whose input shape
 *    equals its output shape (symbolically) -> forward its input.
 *  - remove_negation (15): x + Neg(y) -> Sub(x, y); x - Neg(y) -> AddV2(x, y),
 *    in place (Add/AddV2/Sub, same dtype).
 *  - replace_mul_with_square (16): Mul(x, x), not complex -> Square(x) in
 *    place.
 *  - remove_logical_not (17): LogicalNot(cmp(a, b)) with the comparison read
 *    only there -> the inverse comparison in place (Equal<->NotEqual,
 *    Less->GreaterEqual, LessEqual->Greater, Greater->LessEqual,
 *    GreaterEqual->Less).
 *  - simplify_aggregation (19): AddN with one input -> forward it;
 *    Add/AddV2/AddN of N copies of one tensor (not variant, not string, not
 *    preserved) -> Mul(Const N, x) as "SimplifyAggregation_Mul_<name>" with
 *    the Const "SimplifyAggregation_Const_<name>" (control input on x).
 *  - convert_pow (23): Pow(x, c), c a Const with all elements equal (real
 *    dtypes), x's shape equal to the output's: 2 -> Square, 0.5 -> Sqrt,
 *    -0.5 -> Rsqrt, -1 -> Reciprocal, 1 -> Identity, in place with c as a
 *    control input; 3 (CPU) -> Mul(x, Square(x)) with the Square
 *    "ConvertPow__inner_<name>"; 0 (fully known shape, int32/int64/float/
 *    double) -> a Const of ones in place, x and c as control inputs.
 *  - convert_log1p (24): Log(Add(x, c)) with c a Const of ones (float
 *    dtypes), c's shape fully known and not broadcasting x -> Log1p(x) in
 *    place, c as a control input.
 *  - convert_log_softmax (25): Log(Softmax(x)) with the Softmax read only
 *    there -> LogSoftmax(x) in place.
 *  - optimize_max_or_min_of_monotonic (26): Max/Min/ArgMax/ArgMin/MaxPool
 *    (not preserved) of f(x) with f element-wise monotonic, read only there,
 *    not preserved, and not a Relu/Relu6 fed by FusedBatchNorm or BiasAdd ->
 *    f(reduce(x)) (Max<->Min when f is non-increasing; MaxPool only for
 *    non-decreasing f; under ArgMax/ArgMin f becomes Identity).
 *  - convert_expm1 (27): Sub(Exp(x), c) with c a Const of ones (float dtypes)
 *    not broadcasting Exp(x) -> Expm1(x) in place, c as a control input.
 *  - fuse_squared_diff (32): Square(Sub(a, b)) with the Sub read only there,
 *    not complex -> SquaredDifference(a, b) in place.
 *
 * Off by default in TensorFlow, so not run: HoistCommonFactorOutOfAggregation
 * (AGGRESSIVE level only in recent TensorFlow; the AddN-of-equal-inputs
 * rewrite belongs to simplify_aggregation, above), ReorderReshapeAroundUnary
 * (newest snapshots only).
 *
 * Default-on stages not implemented yet: FoldConjugateIntoTranspose (Conj and
 * ConjugateTranspose are not in the registry), MinimizeBroadcasts,
 * ReplacePackWithTileReshape, ReplaceMulWithTile, ReduceUpsamplingDims,
 * ReorderCastLikeAndValuePreserving, HoistCWiseUnaryChains,
 * UnaryOpsComposition (_UnaryOpsComposition is not in the registry),
 * RemoveStackSliceSameAxis, SimplifyEmbeddingLookup,
 * RemoveCastIntoSegmentReduction; SqrtDivToRsqrtMul and RemoveIdempotent
 * (grappler.md 21, 22) are not implemented either.
 */
#include "passes/pipeline.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Sweep state: exact use counts, forwarding, node creation                   */
/* ------------------------------------------------------------------------- */

typedef struct ao {
    fl_pass_ctx *pc;
    fl_graph *g;
    size_t cap;          /* entries of the arrays below (node ids) */
    uint32_t *uses;      /* data edges reading any output of the node */
    uint32_t *ctrl_uses; /* control edges on the node */
    fl_input *fwd;       /* forwarding: node -> tensor its consumers read */
} ao;

static fl_status ao_oom(ao *a) {
    return fl_diag_oom(a->pc->c->d);
}

static fl_status ao_grow(ao *a, size_t need) {
    if (need <= a->cap) {
        return FL_OK;
    }
    size_t nc = a->cap * 2 + 16;
    while (nc < need) {
        nc *= 2;
    }
    fl_arena *ar = a->pc->c->a;
    uint32_t *u = fl_arena_grow(ar, a->uses, a->cap, nc, sizeof(uint32_t));
    uint32_t *cu = u ? fl_arena_grow(ar, a->ctrl_uses, a->cap, nc, sizeof(uint32_t)) : NULL;
    fl_input *f = cu ? fl_arena_grow(ar, a->fwd, a->cap, nc, sizeof(fl_input)) : NULL;
    if (!f) {
        return ao_oom(a);
    }
    memset(u + a->cap, 0, (nc - a->cap) * sizeof(uint32_t));
    memset(cu + a->cap, 0, (nc - a->cap) * sizeof(uint32_t));
    memset(f + a->cap, 0, (nc - a->cap) * sizeof(fl_input));
    a->uses = u;
    a->ctrl_uses = cu;
    a->fwd = f;
    a->cap = nc;
    return FL_OK;
}

static fl_status ao_init(ao *a, fl_pass_ctx *pc) {
    memset(a, 0, sizeof(*a));
    a->pc = pc;
    a->g = pc->c->g;
    fl_status st = ao_grow(a, a->g->n_nodes + 1);
    if (st != FL_OK) {
        return st;
    }
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        const fl_node *m = a->g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            a->uses[m->inputs[k].node->id]++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            a->ctrl_uses[m->ctrl[k]->id]++;
        }
    }
    return FL_OK;
}

static void ao_resolve_inputs(ao *a, fl_node *m) {
    for (int k = 0; k < m->n_inputs; k++) {
        m->inputs[k] = fl__resolve(a->fwd, m->inputs[k]);
    }
}

static size_t n_uses(const ao *a, const fl_node *n) {
    return a->uses[n->id];
}

/* Single data consumer, no control edges, not preserved: safe to absorb. */
static bool absorbable(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_outputs == 1 && a->uses[n->id] == 1 && !a->ctrl_uses[n->id] &&
           n->n_ctrl == 0;
}

static bool can_forward(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_ctrl == 0 && !a->ctrl_uses[n->id] && n->n_outputs == 1;
}

/* Marks m removed and drops the edges it held. */
static void ao_remove(ao *a, fl_node *m) {
    for (int k = 0; k < m->n_inputs; k++) {
        a->uses[m->inputs[k].node->id]--;
    }
    for (int k = 0; k < m->n_ctrl; k++) {
        a->ctrl_uses[m->ctrl[k]->id]--;
    }
    m->n_inputs = 0;
    m->n_ctrl = 0;
    fl_graph_remove_node(m);
    a->pc->removed++;
}

/* m's data consumers read `to` from now on (its control consumers wait on
 * to's node); m is removed. */
static void ao_forward(ao *a, fl_node *m, fl_input to) {
    a->fwd[m->id] = to;
    a->uses[to.node->id] += a->uses[m->id];
    if (a->ctrl_uses[m->id]) {
        a->ctrl_uses[to.node->id] += (uint32_t)fl_graph_replace_ctrl_uses(a->g, m, to.node);
    }
    a->uses[m->id] = 0;
    a->ctrl_uses[m->id] = 0;
    ao_remove(a, m);
}

static fl_status ao_set_input(ao *a, fl_node *n, int k, fl_input in) {
    a->uses[n->inputs[k].node->id]--;
    a->uses[in.node->id]++;
    n->inputs[k] = in;
    a->g->order = NULL;
    return FL_OK;
}

static fl_status ao_set_inputs(ao *a, fl_node *n, int n_in, const fl_input *in) {
    fl_input copy[8];
    if (n_in > 8) {
        return FL_EINTERNAL;
    }
    memcpy(copy, in, (size_t)n_in * sizeof(fl_input));
    for (int k = 0; k < n->n_inputs; k++) {
        a->uses[n->inputs[k].node->id]--;
    }
    for (int k = 0; k < n_in; k++) {
        a->uses[copy[k].node->id]++;
    }
    return fl_node_set_inputs(a->g, n, n_in, copy) == FL_OK ? FL_OK : ao_oom(a);
}

static fl_status ao_add_ctrl(ao *a, fl_node *n, fl_node *dep) {
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return FL_OK;
        }
    }
    if (fl_node_add_ctrl(a->g, n, dep) != FL_OK) {
        return ao_oom(a);
    }
    a->ctrl_uses[dep->id]++;
    return FL_OK;
}

/* Copies the control inputs of `from` onto n. */
static fl_status ao_forward_ctrl(ao *a, fl_node *n, const fl_node *from) {
    for (int k = 0; k < from->n_ctrl; k++) {
        fl_status st = ao_add_ctrl(a, n, from->ctrl[k]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status ao_set_attr(ao *a, fl_node *n, fl_attr at) {
    if (!at.name || fl_node_set_attr(a->g, n, &at) != FL_OK) {
        return ao_oom(a);
    }
    return FL_OK;
}

/* "<scope>/ArithmeticOptimizer/<prefix>_<base name>" for node name `of`. */
static const char *opt_name(ao *a, const char *of, const char *prefix) {
    const char *slash = strrchr(of, '/');
    int scope_len = slash ? (int)(slash - of) + 1 : 0;
    const char *base = slash ? slash + 1 : of;
    return fl_arena_printf(a->g->arena, "%.*sArithmeticOptimizer/%s_%s", scope_len, of, prefix,
                           base);
}

/* Adds node `name` (made unique) of op `op` on n's device with the given
 * inputs and one output; counts it as added. */
static fl_node *ao_add(ao *a, const char *name, const char *op, const char *device, int n_in,
                       const fl_input *in) {
    const char *nm = name ? fl_graph_unique_name(a->g, name) : NULL;
    fl_node *nn = nm ? fl_graph_add_op(a->g, nm, op, n_in, in, 1, a->pc->c->d) : NULL;
    if (!nn || ao_grow(a, a->g->n_nodes + 1) != FL_OK) {
        ao_oom(a);
        return NULL;
    }
    nn->device = device;
    for (int k = 0; k < n_in; k++) {
        a->uses[in[k].node->id]++;
    }
    a->pc->added++;
    return nn;
}

/* A copy of n (op, device, attrs; inputs and control inputs) named `name`. */
static fl_node *ao_copy(ao *a, const char *name, const fl_node *n) {
    fl_node *c = ao_add(a, name, n->op, n->device, n->n_inputs, n->inputs);
    if (!c) {
        return NULL;
    }
    if (n->n_attrs) {
        fl_attr *at = fl_arena_calloc(a->g->arena, (size_t)n->n_attrs, sizeof(fl_attr));
        if (!at) {
            ao_oom(a);
            return NULL;
        }
        memcpy(at, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        c->attrs = at;
        c->n_attrs = n->n_attrs;
    }
    if (ao_forward_ctrl(a, c, n) != FL_OK) {
        return NULL;
    }
    return c;
}

/* A scalar or shaped Const node holding `v` (dtype v->dtype). */
static fl_node *ao_add_const(ao *a, const char *name, const char *device, const fl_value *v) {
    fl_node *c = ao_add(a, name, "Const", device, 0, NULL);
    if (!c || ao_set_attr(a, c, fl_attr_make_type(a->g, "dtype", v->dtype)) != FL_OK) {
        return NULL;
    }
    fl_attr val = fl_attr_make_tensor(a->g, "value", v->dtype, v->rank, v->dims, v);
    if (!val.v.tensor || ao_set_attr(a, c, val) != FL_OK) {
        ao_oom(a);
        return NULL;
    }
    if (fl__infer_node(a->pc, c) != FL_OK) {
        return NULL;
    }
    return c;
}

/* ------------------------------------------------------------------------- */
/* Small predicates                                                           */
/* ------------------------------------------------------------------------- */

static bool is_complex(int dt) {
    return dt == FL_DT_COMPLEX64 || dt == FL_DT_COMPLEX128;
}

static bool is_op(const fl_node *n, const char *op) {
    return strcmp(n->op, op) == 0;
}

static int attr_type(const fl_node *n, const char *name) {
    const fl_attr *at = fl_node_attr(n, name);
    return at && at->kind == FL_ATTR_TYPE ? at->v.type : FL_DT_INVALID;
}

static bool attr_bool(const fl_node *n, const char *name) {
    const fl_attr *at = fl_node_attr(n, name);
    return at && at->kind == FL_ATTR_B && at->v.b;
}

static char lower(char ch) {
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* Whether n runs on CPU: its device type, or the target device when the
 * device string is empty (as the remapper). */
static bool on_cpu(const ao *a, const fl_node *n) {
    const char *s = n->device ? n->device : "";
    if (!*s) {
        return a->pc->opt->device == FL_DEVICE_CPU;
    }
    const char *t = strstr(s, "device:");
    if (t) {
        t += strlen("device:");
    } else {
        t = strrchr(s, '/');
        t = t ? t + 1 : s;
    }
    return strcspn(t, ":/") == 3 && lower(t[0]) == 'c' && lower(t[1]) == 'p' && lower(t[2]) == 'u';
}

/* A Const whose value is known. */
static const fl_value *const_value(const fl_node *n) {
    if (n->kind != FL_OP_CONST || n->n_outputs < 1) {
        return NULL;
    }
    const fl_value *v = n->outputs[0].value;
    return v && fl_value_is_concrete(v) ? v : NULL;
}

/* Every element of v is x (v of a real floating or integer dtype). */
static bool value_all(const fl_value *v, double x) {
    if (is_complex(v->dtype) || v->n < 1) {
        return false;
    }
    for (int64_t i = 0; i < v->n; i++) {
        double e;
        if (!fl_value_f64(v, i, &e) || e != x) {
            return false;
        }
    }
    return true;
}

/* Shape fully defined up to symbols: known rank, no unknown dim. */
static bool shape_defined(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (fl_sym_is_unknown(s->dims[i])) {
            return false;
        }
    }
    return true;
}

static bool shape_concrete(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i]) || s->dims[i].k < 0) {
            return false;
        }
    }
    return true;
}

static bool dim_is_one(fl_sym d) {
    return fl_sym_is_known(d) && d.k == 1;
}

/* Grappler's ShapesBroadcastable: both shapes symbolically defined and every
 * aligned pair of dims equal or one of them 1. */
static bool bcastable(const fl_shape *x, const fl_shape *y) {
    if (!shape_defined(x) || !shape_defined(y)) {
        return false;
    }
    for (int i = 1; i <= x->rank && i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl_sym_eq(p, q) && !dim_is_one(p) && !dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

/* Broadcasting y onto x gives x's shape (known ranks and dims). */
static bool bcast_keeps(const fl_shape *x, const fl_shape *y) {
    if (!shape_defined(x) || !shape_defined(y) || y->rank > x->rank) {
        return false;
    }
    for (int i = 1; i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl_sym_eq(p, q) && !dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

/* Grappler's CompareSymbolicallyShapedTensorSizes: left is smaller. Known
 * dims multiply; symbolic dims cancel pairwise between the shapes. */
static bool smaller(const fl_shape *l, const fl_shape *r) {
    if (l->rank < 0 || r->rank < 0) {
        return false;
    }
    int64_t ls = 1, rs = 1;
    int lu = 0, ru = 0;
    bool used[256] = {false};
    for (int i = 0; i < r->rank; i++) {
        if (fl_sym_is_known(r->dims[i]) && r->dims[i].k > 0) {
            rs *= r->dims[i].k;
        }
    }
    for (int i = 0; i < l->rank; i++) {
        fl_sym d = l->dims[i];
        if (fl_sym_is_known(d)) {
            ls *= d.k > 0 ? d.k : 1;
            continue;
        }
        bool matched = false;
        for (int j = 0; j < r->rank && j < 256 && fl_sym_is_symbolic(d); j++) {
            if (!used[j] && fl_sym_is_symbolic(r->dims[j]) && fl_sym_eq(d, r->dims[j])) {
                used[j] = matched = true;
                break;
            }
        }
        lu += !matched;
    }
    for (int j = 0; j < r->rank; j++) {
        ru += !fl_sym_is_known(r->dims[j]) && !(j < 256 && used[j]);
    }
    if (lu == 0 && ru == 0) {
        return ls < rs;
    }
    return ls <= rs && lu == 0 && ru > 0;
}

static bool same_sig(const fl_shape *x, const fl_shape *y) {
    if (x->rank != y->rank) {
        return false;
    }
    for (int i = 0; i < x->rank; i++) {
        if (!fl_sym_eq(x->dims[i], y->dims[i])) {
            return false;
        }
    }
    return true;
}

static bool involution(int kind, const char *op) {
    return kind == FL_OP_NEG || kind == FL_OP_RECIPROCAL || kind == FL_OP_LOGICAL_NOT ||
           strcmp(op, "Conj") == 0 || strcmp(op, "Invert") == 0;
}

static bool is_add(const fl_node *n) {
    return n->kind == FL_OP_ADD_V2 || (n->kind == FL_OP_ADD && attr_type(n, "T") != FL_DT_STRING);
}

/* Appendix A: value-preserving ops. */
static bool value_preserving(const fl_node *n) {
    static const char *const ops[] = {"CheckNumerics", "DebugGradientIdentity",
                                      "DeepCopy",      "Enter",
                                      "Exit",          "PreventGradient",
                                      "Print",         "Snapshot",
                                      "StopGradient",  "Identity",
                                      "ExpandDims",    "Reshape",
                                      "Squeeze",       "InvertPermutation",
                                      "Reverse",       "ReverseV2",
                                      "Roll",          "Transpose",
                                      "DepthToSpace",  "SpaceToDepth",
                                      "BatchToSpace",  "BatchToSpaceND",
                                      "SpaceToBatch",  "SpaceToBatchND"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return (n->kind == FL_OP_ADD_N && n->n_inputs == 1);
}

/* Element-wise monotonic: 1 non-decreasing, -1 non-increasing, 0 neither. */
static int monotonic(const fl_node *n) {
    static const char *const up[] = {"Acosh", "Asin", "Asinh",    "Atan",     "Atanh", "Ceil",
                                     "Elu",   "Erf",  "Exp",      "Expm1",    "Floor", "Log",
                                     "Log1p", "Relu", "Relu6",    "Rint",     "Selu",  "Sigmoid",
                                     "Sign",  "Sinh", "Softsign", "Softplus", "Sqrt",  "Tanh"};
    static const char *const down[] = {"Acos", "Erfc", "Neg", "Rsqrt"};
    if (n->n_inputs != 1) {
        return 0;
    }
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
        if (strcmp(n->op, up[i]) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof down / sizeof down[0]; i++) {
        if (strcmp(n->op, down[i]) == 0) {
            return -1;
        }
    }
    return 0;
}

static const char *inverse_cmp(int kind) {
    switch (kind) {
    case FL_OP_EQUAL:
        return "NotEqual";
    case FL_OP_NOT_EQUAL:
        return "Equal";
    case FL_OP_LESS:
        return "GreaterEqual";
    case FL_OP_LESS_EQUAL:
        return "Greater";
    case FL_OP_GREATER:
        return "LessEqual";
    case FL_OP_GREATER_EQUAL:
        return "Less";
    default:
        return NULL;
    }
}

/* Whether perm2 after perm1 (both constant) is the identity. */
static bool perms_cancel(const fl_node *outer, const fl_node *inner) {
    const fl_value *p2 = fl_node_in(outer, 1)->value, *p1 = fl_node_in(inner, 1)->value;
    if (!p1 || !p2 || !fl_value_is_concrete(p1) || !fl_value_is_concrete(p2) || p1->n != p2->n) {
        return false;
    }
    /* out[i] = mid[p2[i]] = x[p1[p2[i]]] */
    for (int64_t i = 0; i < p2->n; i++) {
        int64_t a = fl_value_int(p2, i).k;
        if (a < 0 || a >= p1->n || fl_value_int(p1, a).k != i) {
            return false;
        }
    }
    return true;
}

/* Rewrites n in place into op(inputs) with attr T (and no other attrs). */
static fl_status become(ao *a, fl_node *n, const char *op, int n_in, const fl_input *in) {
    fl_graph *g = a->g;
    int dt = fl_node_in(n, 0)->dtype;
    fl_attr t = fl_attr_make_type(g, "T", dt);
    if (!t.name) {
        return ao_oom(a);
    }
    fl_status st = ao_set_inputs(a, n, n_in, in);
    if (st != FL_OK) {
        return st;
    }
    n->attrs = NULL;
    n->n_attrs = 0;
    n->src = NULL;
    fl__node_become(g, n, op);
    if (fl_node_set_attr(g, n, &t) != FL_OK) {
        return ao_oom(a);
    }
    a->pc->rewritten++;
    return FL_OK;
}

/* Turns data input k of n into a control input on its node. */
static fl_status input_to_ctrl(ao *a, fl_node *n, int k) {
    fl_node *dep = n->inputs[k].node;
    fl_input keep[8];
    int w = 0;
    for (int i = 0; i < n->n_inputs && w < 8; i++) {
        if (i != k) {
            keep[w++] = n->inputs[i];
        }
    }
    fl_status st = ao_set_inputs(a, n, w, keep);
    return st == FL_OK ? ao_add_ctrl(a, n, dep) : st;
}

/* ------------------------------------------------------------------------- */
/* AddOpsRewrite (reverse sweep)                                              */
/* ------------------------------------------------------------------------- */

#define ADD_OPS_TAG "_grappler_ArithmeticOptimizer_AddOpsRewriteStage"

static bool add_can_optimize(const ao *a, const fl_node *n) {
    if (!is_add(n) && n->kind != FL_OP_ADD_N) {
        return false;
    }
    if (fl__preserved(n) || (n->flags & FL_NODE_REMOVED) || fl_node_attr(n, ADD_OPS_TAG)) {
        return false;
    }
    return n->n_ctrl == 0 && a->ctrl_uses[n->id] == 0 && n->n_outputs == 1;
}

static bool inputs_bcast_to(const fl_node *n) {
    const fl_shape *s = &n->outputs[0].shape;
    for (int k = 0; k < n->n_inputs; k++) {
        if (!bcastable(s, &fl_node_in(n, k)->shape)) {
            return false;
        }
    }
    return true;
}

static bool add_absorbable(const ao *a, const fl_node *root, const fl_node *n) {
    if (!add_can_optimize(a, n)) {
        return false;
    }
    const char *d1 = root->device ? root->device : "", *d2 = n->device ? n->device : "";
    return strcmp(d1, d2) == 0 && a->uses[n->id] == 1 && inputs_bcast_to(n);
}

typedef struct add_group {
    fl_node **members; /* absorbed nodes */
    size_t n_members, cap_members;
    fl_input *inputs; /* leaves, left to right */
    size_t n_inputs, cap_inputs;
} add_group;

static fl_status group_push(ao *a, void **arr, size_t *n, size_t *cap, size_t elem, const void *x) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *p = fl_arena_grow(a->pc->c->a, *arr, *cap, nc, elem);
        if (!p) {
            return ao_oom(a);
        }
        *arr = p;
        *cap = nc;
    }
    memcpy((char *)*arr + *n * elem, x, elem);
    (*n)++;
    return FL_OK;
}

/* Depth-first, left to right: absorbable nodes join the group, anything else
 * is a leaf input. */
static fl_status add_absorb(ao *a, const fl_node *root, fl_input in, add_group *gr, int depth) {
    fl_node *m = in.node;
    if (depth < 10000 && add_absorbable(a, root, m)) {
        fl_status st = group_push(a, (void **)&gr->members, &gr->n_members, &gr->cap_members,
                                  sizeof(fl_node *), &m);
        for (int k = 0; k < m->n_inputs && st == FL_OK; k++) {
            st = add_absorb(a, root, m->inputs[k], gr, depth + 1);
        }
        return st;
    }
    return group_push(a, (void **)&gr->inputs, &gr->n_inputs, &gr->cap_inputs, sizeof(fl_input),
                      &in);
}

static fl_status tag(ao *a, fl_node *n) {
    return ao_set_attr(a, n, fl_attr_make_bool(a->g, ADD_OPS_TAG, true));
}

static fl_status add_ops_rewrite(ao *a, fl_node *root, bool *fired) {
    if (!add_can_optimize(a, root) || !shape_defined(&root->outputs[0].shape) ||
        !inputs_bcast_to(root)) {
        return FL_OK;
    }
    add_group gr = {0};
    fl_status st = FL_OK;
    for (int k = 0; k < root->n_inputs && st == FL_OK; k++) {
        st = add_absorb(a, root, root->inputs[k], &gr, 0);
    }
    if (st != FL_OK || gr.n_members == 0) {
        return st;
    }
    int dt = attr_type(root, "T");
    if (dt == FL_DT_INVALID) {
        return FL_OK;
    }
    /* Distinct shapes in order of first appearance, then sorted smallest
     * first (stable). */
    size_t ni = gr.n_inputs;
    int *sig = fl_arena_calloc(a->pc->c->a, ni + 1, sizeof(int));
    size_t *order = fl_arena_calloc(a->pc->c->a, ni + 1, sizeof(size_t));
    fl_input *leaf_in = fl_arena_calloc(a->pc->c->a, ni + 1, sizeof(fl_input));
    if (!sig || !order || !leaf_in) {
        return ao_oom(a);
    }
    size_t n_sig = 0;
    for (size_t i = 0; i < ni; i++) {
        const fl_shape *s = &gr.inputs[i].node->outputs[gr.inputs[i].port].shape;
        size_t j = 0;
        for (; j < n_sig; j++) {
            const fl_shape *r = &gr.inputs[order[j]].node->outputs[gr.inputs[order[j]].port].shape;
            if (same_sig(s, r)) {
                break;
            }
        }
        if (j == n_sig) {
            order[n_sig++] = i;
        }
        sig[i] = (int)j;
    }
    /* sort representative indices: insertion sort, stable */
    size_t *rank_of = fl_arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    size_t *sorted = fl_arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    if (!rank_of || !sorted) {
        return ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        sorted[j] = j;
    }
    for (size_t j = 1; j < n_sig; j++) {
        size_t x = sorted[j], p = j;
        const fl_input *xi = &gr.inputs[order[x]];
        while (p > 0) {
            const fl_input *yi = &gr.inputs[order[sorted[p - 1]]];
            if (!smaller(&xi->node->outputs[xi->port].shape, &yi->node->outputs[yi->port].shape)) {
                break;
            }
            sorted[p] = sorted[p - 1];
            p--;
        }
        sorted[p] = x;
    }
    fl_ledger_note(a->pc, "combine_add_to_addn", root,
                   "%zu Add/AddN nodes over %zu inputs (%zu shapes) -> AddN", gr.n_members + 1, ni,
                   n_sig);
    fl_input result = {NULL, 0};
    fl_input *leaves = fl_arena_calloc(a->pc->c->a, n_sig + 1, sizeof(fl_input));
    if (!leaves) {
        return ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        size_t s = sorted[j], cnt = 0;
        for (size_t i = 0; i < ni; i++) {
            if ((size_t)sig[i] == s) {
                leaf_in[cnt++] = gr.inputs[i];
            }
        }
        if (cnt == 1) {
            leaves[j] = leaf_in[0];
            continue;
        }
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Leaf_%zu", j);
        const char *nm = opt_name(a, root->name, n_sig == 1 ? "AddOpsRewrite" : pre);
        fl_node *addn = ao_add(a, nm, "AddN", root->device, (int)cnt, leaf_in);
        if (!addn || ao_set_attr(a, addn, fl_attr_make_type(a->g, "T", dt)) != FL_OK ||
            ao_set_attr(a, addn, fl_attr_make_int(a->g, "N", (int64_t)cnt)) != FL_OK ||
            tag(a, addn) != FL_OK) {
            return ao_oom(a);
        }
        leaves[j] = (fl_input){addn, 0};
    }
    /* left-deep chain of AddV2, smallest shapes first */
    result = leaves[0];
    for (size_t j = 1; j < n_sig; j++) {
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Internal_%zu", j - 1);
        const char *nm = opt_name(a, root->name, j + 1 == n_sig ? "AddOpsRewrite" : pre);
        fl_input in[2] = {result, leaves[j]};
        fl_node *add = ao_add(a, nm, "AddV2", root->device, 2, in);
        if (!add || ao_set_attr(a, add, fl_attr_make_type(a->g, "T", dt)) != FL_OK ||
            tag(a, add) != FL_OK) {
            return ao_oom(a);
        }
        result = (fl_input){add, 0};
    }
    ao_forward(a, root, result);
    for (size_t i = 0; i < gr.n_members; i++) {
        ao_remove(a, gr.members[i]);
    }
    *fired = true;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Stages of the forward sweep                                                */
/* ------------------------------------------------------------------------- */

/* FoldMultiplyIntoConv. */
static fl_status fold_multiply_into_conv(ao *a, fl_node *conv, bool *fired) {
    if ((conv->kind != FL_OP_CONV2D && conv->kind != FL_OP_CONV3D) || conv->n_inputs < 2) {
        return FL_OK;
    }
    fl_node *w = conv->inputs[1].node;
    if (w->kind != FL_OP_CONST) {
        return FL_OK;
    }
    char pre[600];
    snprintf(pre, sizeof pre, "FoldMultiplyIntoConv_scaled_%.500s", conv->name);
    const char *scaled_name = opt_name(a, w->name, pre);
    if (!scaled_name) {
        return ao_oom(a);
    }
    if (fl_graph_find(a->g, scaled_name)) {
        return FL_OK;
    }
    /* tail of the value-preserving, single-consumer chain above the conv */
    fl_node *tail = conv;
    for (int guard = 0; guard < 1 << 16; guard++) {
        if (tail->n_inputs < 1) {
            break;
        }
        fl_node *nx = tail->inputs[0].node;
        if (fl__preserved(nx) || !value_preserving(nx) || n_uses(a, nx) != 1) {
            break;
        }
        tail = nx;
    }
    if (tail->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *mul = tail->inputs[0].node;
    if ((mul->kind != FL_OP_MUL && !is_op(mul, "MulNoNan")) || mul->n_inputs != 2 ||
        n_uses(a, mul) != 1 || fl__preserved(mul)) {
        return FL_OK;
    }
    int ii = 0, si = 1;
    if (mul->inputs[1].node->kind != FL_OP_CONST && mul->inputs[0].node->kind == FL_OP_CONST) {
        ii = 1;
        si = 0;
    }
    fl_node *scale = mul->inputs[si].node;
    if (scale->kind != FL_OP_CONST || scale->outputs[0].shape.rank != 0) {
        return FL_OK;
    }
    int wdt = attr_type(w, "dtype");
    if (wdt == FL_DT_INVALID || attr_type(scale, "dtype") != wdt) {
        return FL_OK;
    }
    fl_input in[2] = {conv->inputs[1], mul->inputs[si]};
    fl_node *sw = ao_add(a, scaled_name, mul->op, w->device, 2, in);
    if (!sw || ao_set_attr(a, sw, fl_attr_make_type(a->g, "T", wdt)) != FL_OK ||
        ao_forward_ctrl(a, sw, mul) != FL_OK) {
        return ao_oom(a);
    }
    fl_ledger_note(a->pc, "fold_multiply_into_conv", conv, "%s by scalar '%s' folded into '%s'",
                   mul->op, scale->name, w->name);
    ao_set_input(a, conv, 1, (fl_input){sw, 0});
    ao_set_input(a, tail, 0, mul->inputs[ii]);
    a->pc->rewritten++;
    if (a->uses[mul->id] == 0 && a->ctrl_uses[mul->id] == 0) {
        ao_remove(a, mul);
    }
    *fired = true;
    return FL_OK;
}

/* perm of a Transpose-like node swaps only the two innermost dims. */
static bool inner_matrix_transpose(const fl_node *t) {
    if ((!is_op(t, "Transpose") && !is_op(t, "ConjugateTranspose")) || t->n_inputs != 2) {
        return false;
    }
    const fl_value *p = const_value(t->inputs[1].node);
    if (!p || p->n < 2 || (p->dtype != FL_DT_INT32 && p->dtype != FL_DT_INT64)) {
        return false;
    }
    int64_t n = p->n;
    for (int64_t i = 0; i < n - 2; i++) {
        if (fl_value_int(p, i).k != i) {
            return false;
        }
    }
    return fl_value_int(p, n - 1).k == n - 2 && fl_value_int(p, n - 2).k == n - 1;
}

/* FoldTransposeIntoMatMul. */
static fl_status fold_transpose_into_matmul(ao *a, fl_node *n, bool *fired) {
    bool batch = n->kind == FL_OP_BATCH_MATMUL || n->kind == FL_OP_BATCH_MATMUL_V2 ||
                 n->kind == FL_OP_BATCH_MATMUL_V3;
    if ((n->kind != FL_OP_MATMUL && !batch) || !can_forward(a, n) || n->n_inputs != 2) {
        return FL_OK;
    }
    const char *nm = opt_name(a, n->name, "FoldTransposeIntoMatMul");
    if (!nm) {
        return ao_oom(a);
    }
    if (fl_graph_find(a->g, nm)) {
        return FL_OK;
    }
    bool cplx = is_complex(attr_type(n, "T"));
    const char *only = !cplx ? NULL : batch ? "ConjugateTranspose" : "Transpose";
    bool fold[2];
    for (int k = 0; k < 2; k++) {
        const fl_node *t = n->inputs[k].node;
        fold[k] = inner_matrix_transpose(t) && (!only || is_op(t, only));
    }
    if (!fold[0] && !fold[1]) {
        return FL_OK;
    }
    fl_node *c = ao_copy(a, nm, n);
    if (!c) {
        return ao_oom(a);
    }
    static const char *const flag[2][2] = {{"transpose_a", "transpose_b"}, {"adj_x", "adj_y"}};
    for (int k = 0; k < 2; k++) {
        if (!fold[k]) {
            continue;
        }
        fl_node *t = n->inputs[k].node;
        const char *f = flag[batch][k];
        if (ao_set_attr(a, c, fl_attr_make_bool(a->g, f, !attr_bool(n, f))) != FL_OK ||
            ao_forward_ctrl(a, c, t) != FL_OK) {
            return ao_oom(a);
        }
        ao_set_input(a, c, k, t->inputs[0]);
    }
    fl_ledger_note(a->pc, "fold_transpose_into_matmul", n, "%s%s%s folded into %s",
                   fold[0] ? n->inputs[0].node->name : "", fold[0] && fold[1] ? ", " : "",
                   fold[1] ? n->inputs[1].node->name : "", n->op);
    ao_forward(a, n, (fl_input){c, 0});
    *fired = true;
    return FL_OK;
}

/* RemoveRedundantBitcast, the in-place half (the forward half is in
 * forward_target). */
static fl_status bitcast_of_bitcast(ao *a, fl_node *n, bool *fired) {
    if (!is_op(n, "Bitcast") || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    int t = attr_type(in, "T");
    if (!is_op(in, "Bitcast") || in->n_inputs != 1 || fl__preserved(in) || t == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_ledger_note(a->pc, "remove_redundant_bitcast", n, "Bitcast(Bitcast(x)) -> Bitcast(x)");
    ao_set_input(a, n, 0, in->inputs[0]);
    fl_status st = ao_set_attr(a, n, fl_attr_make_type(a->g, "T", t));
    a->pc->rewritten++;
    /* Bitcast is not in the registry, so fl__remove_dead keeps it: drop the
     * inner one here when nothing reads it any more. */
    if (a->uses[in->id] == 0 && a->ctrl_uses[in->id] == 0 && in->n_ctrl == 0) {
        ao_remove(a, in);
    }
    *fired = true;
    return st;
}

/* SimplifyAggregation of N copies of one tensor. */
static fl_status aggregation_of_copies(ao *a, fl_node *n, bool *fired) {
    bool agg = n->kind == FL_OP_ADD_N || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_ADD;
    int dt = attr_type(n, "T");
    if (!agg || n->n_inputs < 2 || dt == FL_DT_VARIANT || dt == FL_DT_STRING ||
        dt == FL_DT_INVALID || !can_forward(a, n)) {
        return FL_OK;
    }
    for (int k = 1; k < n->n_inputs; k++) {
        if (n->inputs[k].node != n->inputs[0].node || n->inputs[k].port != n->inputs[0].port) {
            return FL_OK;
        }
    }
    if (!fl_dtype_is_float(dt) && !fl_dtype_is_integer(dt)) {
        return FL_OK;
    }
    const char *cn = opt_name(a, n->name, "SimplifyAggregation_Const");
    const char *mn = opt_name(a, n->name, "SimplifyAggregation_Mul");
    if (!cn || !mn) {
        return ao_oom(a);
    }
    if (fl_graph_find(a->g, cn) || fl_graph_find(a->g, mn)) {
        return FL_OK;
    }
    fl_value *v = fl_value_new(a->g->arena, (fl_dtype)dt, 0, NULL);
    if (!v) {
        return ao_oom(a);
    }
    if (v->ints) {
        ((fl_sym *)v->ints)[0] = fl_sym_const(n->n_inputs);
    } else {
        fl_value_set_f64(v, 0, (double)n->n_inputs);
    }
    fl_input x = n->inputs[0];
    fl_node *c = ao_add_const(a, cn, n->device, v);
    if (!c || ao_add_ctrl(a, c, x.node) != FL_OK) {
        return ao_oom(a);
    }
    fl_input in[2] = {{c, 0}, x};
    fl_node *mul = ao_add(a, mn, "Mul", n->device, 2, in);
    if (!mul || ao_set_attr(a, mul, fl_attr_make_type(a->g, "T", dt)) != FL_OK) {
        return ao_oom(a);
    }
    fl_ledger_note(a->pc, "simplify_aggregation", n, "%s of %d copies of '%s' -> Mul(%d, x)", n->op,
                   n->n_inputs, x.node->name, n->n_inputs);
    ao_forward(a, n, (fl_input){mul, 0});
    *fired = true;
    return FL_OK;
}

/* ConvertPow. */
static fl_status convert_pow(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_POW || n->n_inputs != 2 || n->n_outputs != 1) {
        return FL_OK;
    }
    const fl_value *c = const_value(n->inputs[1].node);
    const fl_tensor *x = fl_node_in(n, 0), *out = &n->outputs[0];
    if (!c || c->n < 1 || is_complex(c->dtype) || !fl__shape_same(&x->shape, &out->shape) ||
        x->dtype != out->dtype) {
        return FL_OK;
    }
    double e;
    if (!fl_value_f64(c, 0, &e) || !value_all(c, e)) {
        return FL_OK;
    }
    const char *op = e == 2.0    ? "Square"
                     : e == 0.5  ? "Sqrt"
                     : e == -0.5 ? "Rsqrt"
                     : e == -1.0 ? "Reciprocal"
                     : e == 1.0  ? "Identity"
                                 : NULL;
    fl_graph *g = a->g;
    if (op) {
        fl_ledger_note(a->pc, "convert_pow", n, "Pow(x, %g) -> %s(x)", e, op);
        fl_status st = input_to_ctrl(a, n, 1);
        if (st == FL_OK) {
            fl__node_become(g, n, op);
            n->src = NULL;
            a->pc->rewritten++;
            *fired = true;
        }
        return st;
    }
    if (e == 3.0 && on_cpu(a, n)) {
        const char *nm = opt_name(a, n->name, "ConvertPow__inner");
        if (!nm) {
            return ao_oom(a);
        }
        fl_node *sq = fl_graph_find(g, nm);
        if (!sq) {
            sq = ao_add(a, nm, "Square", n->device, 1, &n->inputs[0]);
            if (!sq || ao_set_attr(a, sq, fl_attr_make_type(g, "T", x->dtype)) != FL_OK ||
                ao_forward_ctrl(a, sq, n) != FL_OK) {
                return ao_oom(a);
            }
        }
        fl_ledger_note(a->pc, "convert_pow", n, "Pow(x, 3) -> Mul(x, Square(x))");
        fl_node *y = n->inputs[1].node;
        ao_set_input(a, n, 1, (fl_input){sq, 0});
        fl__node_become(g, n, "Mul");
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        return ao_add_ctrl(a, n, y);
    }
    int dt = out->dtype;
    bool ones_ok =
        dt == FL_DT_INT32 || dt == FL_DT_INT64 || dt == FL_DT_FLOAT || dt == FL_DT_DOUBLE;
    if (e == 0.0 && ones_ok && shape_concrete(&out->shape)) {
        int64_t dims[256];
        for (int i = 0; i < out->shape.rank && i < 256; i++) {
            dims[i] = out->shape.dims[i].k;
        }
        fl_value *v = fl_value_new(g->arena, (fl_dtype)dt, out->shape.rank, dims);
        if (v && v->n > a->pc->c->max_value_elems) {
            v = NULL; /* too large to hold: a stripped Const of ones */
        } else if (!v) {
            return ao_oom(a);
        }
        for (int64_t i = 0; v && i < v->n; i++) {
            if (v->ints) {
                ((fl_sym *)v->ints)[i] = fl_sym_const(1);
            } else {
                fl_value_set_f64(v, i, 1.0);
            }
        }
        fl_ledger_note(a->pc, "convert_pow", n, "Pow(x, 0) -> Const ones");
        for (int k = 0; k < n->n_inputs; k++) {
            a->uses[n->inputs[k].node->id]--;
            a->ctrl_uses[n->inputs[k].node->id]++;
        }
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_node *in = n->inputs[k].node;
            for (int j = 0; j < in->n_ctrl; j++) {
                bool dup = false;
                for (int q = 0; q < n->n_ctrl; q++) {
                    dup = dup || n->ctrl[q] == in->ctrl[j];
                }
                a->ctrl_uses[in->ctrl[j]->id] += !dup;
            }
        }
        fl_status st = fl__node_make_const(a->pc, n, v, true);
        a->pc->rewritten++;
        *fired = true;
        return st;
    }
    return FL_OK;
}

/* A Const of ones whose shape is fully known, of a float dtype (Log1p and
 * Expm1 take bfloat16, half, float, double). */
static bool float_ones_const(const fl_node *c) {
    const fl_value *v = const_value(c);
    return v && fl_dtype_is_float(v->dtype) && value_all(v, 1.0);
}

/* ConvertLog1p. */
static fl_status convert_log1p(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_LOG || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *add = n->inputs[0].node;
    if (!is_add(add) || add->n_inputs != 2) {
        return FL_OK;
    }
    for (int i = 0; i < 2; i++) {
        int j = 1 - i;
        const fl_shape *t = &fl_node_in(add, i)->shape, *c = &fl_node_in(add, j)->shape;
        if (!shape_concrete(c) || !bcast_keeps(t, c) || !float_ones_const(add->inputs[j].node)) {
            continue;
        }
        fl_node *y = add->inputs[j].node;
        fl_ledger_note(a->pc, "convert_log1p", n, "Log(Add(x, 1)) -> Log1p(x)");
        ao_set_input(a, n, 0, add->inputs[i]);
        fl__node_become(a->g, n, "Log1p");
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        fl_status st = ao_add_ctrl(a, n, y);
        return st == FL_OK ? ao_forward_ctrl(a, n, add) : st;
    }
    return FL_OK;
}

/* ConvertExpm1. */
static fl_status convert_expm1(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_SUB || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *ex = n->inputs[0].node;
    if (ex->kind != FL_OP_EXP || ex->n_inputs != 1) {
        return FL_OK;
    }
    const fl_shape *t = &fl_node_in(n, 0)->shape, *c = &fl_node_in(n, 1)->shape;
    if (!bcast_keeps(t, c) || !float_ones_const(n->inputs[1].node)) {
        return FL_OK;
    }
    fl_ledger_note(a->pc, "convert_expm1", n, "Sub(Exp(x), 1) -> Expm1(x)");
    ao_set_input(a, n, 0, ex->inputs[0]);
    fl_status st = input_to_ctrl(a, n, 1);
    if (st != FL_OK) {
        return st;
    }
    fl__node_become(a->g, n, "Expm1");
    n->src = NULL;
    a->pc->rewritten++;
    *fired = true;
    return ao_forward_ctrl(a, n, ex);
}

/* OptimizeMaxOrMinOfMonotonic. */
static fl_status max_or_min_of_monotonic(ao *a, fl_node *r, bool *fired) {
    bool arg = r->kind == FL_OP_ARG_MAX || r->kind == FL_OP_ARG_MIN;
    bool pool =
        r->kind == FL_OP_MAX_POOL || r->kind == FL_OP_MAX_POOL_V2 || r->kind == FL_OP_MAX_POOL3D;
    bool red = r->kind == FL_OP_MAX || r->kind == FL_OP_MIN || is_op(r, "SegmentMax") ||
               is_op(r, "SegmentMin") || is_op(r, "UnsortedSegmentMax") ||
               is_op(r, "UnsortedSegmentMin");
    if ((!arg && !pool && !red) || fl__preserved(r) || r->n_inputs < 1 || r->n_outputs != 1 ||
        r->outputs[0].dtype == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_node *f = r->inputs[0].node;
    int mono = monotonic(f);
    if (mono == 0 || fl__preserved(f) || n_uses(a, f) != 1 || a->ctrl_uses[f->id] ||
        f->n_outputs != 1 || (pool && mono < 0)) {
        return FL_OK;
    }
    const fl_node *fin = f->inputs[0].node;
    if ((f->kind == FL_OP_RELU || f->kind == FL_OP_RELU6) &&
        (strncmp(fin->op, "FusedBatchNorm", 14) == 0 || fin->kind == FL_OP_BIAS_ADD)) {
        return FL_OK;
    }
    const char *op = r->op;
    if (mono < 0) {
        char *flipped = fl_arena_printf(a->g->arena, "%s", r->op);
        char *p = flipped ? strstr(flipped, "Max") : NULL;
        if (!flipped) {
            return ao_oom(a);
        }
        if (p) {
            memcpy(p, "Min", 3);
        } else if ((p = strstr(flipped, "Min")) != NULL) {
            memcpy(p, "Max", 3);
        }
        op = flipped;
    }
    fl_ledger_note(a->pc, "optimize_max_or_min_of_monotonic", r, "%s(%s(x)) -> %s(%s(x))", r->op,
                   f->op, arg ? "Identity" : f->op, op);
    /* consumers of r read f; r reads x; f reads r (r's consumers all come
     * later in the sweep: none has been forwarded yet) */
    size_t moved = fl_graph_replace_uses(a->g, r, 0, f, 0);
    a->uses[f->id] += (uint32_t)moved;
    a->uses[r->id] -= (uint32_t)moved;
    ao_set_input(a, r, 0, f->inputs[0]);
    ao_set_input(a, f, 0, (fl_input){r, 0});
    if (r->op != op) {
        fl__node_become(a->g, r, op);
        r->src = NULL;
    }
    a->pc->rewritten += 2;
    *fired = true;
    if (arg) {
        int dt = r->outputs[0].dtype;
        f->attrs = NULL;
        f->n_attrs = 0;
        f->src = NULL;
        fl__node_become(a->g, f, "Identity");
        return ao_set_attr(a, f, fl_attr_make_type(a->g, "T", dt));
    }
    return FL_OK;
}

/* The forwarding stages: returns the tensor n's consumers should read, with
 * *rule set, or an input with node NULL. */
static fl_input forward_target(const ao *a, const fl_node *n, const char **rule) {
    fl_input none = {NULL, 0};
    if (!can_forward(a, n) || n->n_inputs < 1) {
        return none;
    }
    const fl_tensor *x = fl_node_in(n, 0);
    const fl_tensor *out = &n->outputs[0];
    const fl_node *in = n->inputs[0].node;
    if (n->kind == FL_OP_TRANSPOSE && in->kind == FL_OP_TRANSPOSE && n->n_inputs == 2 &&
        in->n_inputs == 2 && perms_cancel(n, in)) {
        *rule = "remove_identity_transpose";
        return in->inputs[0];
    }
    if (involution(n->kind, n->op) && n->n_inputs == 1 && strcmp(in->op, n->op) == 0 &&
        in->n_inputs == 1 && n->inputs[0].port == 0) {
        *rule = "remove_involution";
        return in->inputs[0];
    }
    if (is_op(n, "Bitcast") && n->n_inputs == 1 && attr_type(n, "T") != FL_DT_INVALID &&
        attr_type(n, "T") == attr_type(n, "type")) {
        *rule = "remove_redundant_bitcast";
        return n->inputs[0];
    }
    if (n->kind == FL_OP_CAST && x->dtype == out->dtype && x->dtype != FL_DT_INVALID) {
        *rule = "remove_redundant_cast";
        return n->inputs[0];
    }
    if ((n->kind == FL_OP_RESHAPE || n->kind == FL_OP_BROADCAST_TO) &&
        fl__shape_same(&x->shape, &out->shape) && x->dtype == out->dtype) {
        *rule = "remove_redundant_reshape";
        return n->inputs[0];
    }
    if (n->kind == FL_OP_ADD_N && n->n_inputs == 1 && x->dtype == out->dtype) {
        *rule = "simplify_aggregation";
        return n->inputs[0];
    }
    return none;
}

/* The older in-place stages (15, 16, 17, 25, 32). */
static fl_status rewrite(ao *a, fl_node *n, bool *fired) {
    if (fl__preserved(n) || n->n_outputs != 1 || n->n_inputs < 1) {
        return FL_OK;
    }
    int dt = fl_node_in(n, 0)->dtype;
    const fl_node *in0 = n->inputs[0].node;
    if (n->kind == FL_OP_MUL && n->n_inputs == 2 && n->inputs[0].node == n->inputs[1].node &&
        n->inputs[0].port == n->inputs[1].port && !is_complex(dt)) {
        fl_ledger_note(a->pc, "replace_mul_with_square", n, "Mul(x, x) -> Square(x)");
        fl_input x = n->inputs[0];
        *fired = true;
        return become(a, n, "Square", 1, &x);
    }
    if ((n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_SUB) &&
        n->n_inputs == 2 && n->inputs[1].node->kind == FL_OP_NEG &&
        n->inputs[1].node->n_inputs == 1 && (int)fl_node_in(n, 1)->dtype == dt &&
        dt != FL_DT_STRING) {
        const char *op = n->kind == FL_OP_SUB ? "AddV2" : "Sub";
        fl_input in[2] = {n->inputs[0], n->inputs[1].node->inputs[0]};
        fl_ledger_note(a->pc, "remove_negation", n, "%s(x, Neg(y)) -> %s(x, y)", n->op, op);
        *fired = true;
        return become(a, n, op, 2, in);
    }
    if (n->kind == FL_OP_SQUARE && in0->kind == FL_OP_SUB && in0->n_inputs == 2 &&
        absorbable(a, in0) && !is_complex(dt)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        fl_ledger_note(a->pc, "fuse_squared_diff", n,
                       "Square(Sub(a, b)) -> SquaredDifference(a, b)");
        *fired = true;
        return become(a, n, "SquaredDifference", 2, in);
    }
    if (n->kind == FL_OP_LOG && in0->kind == FL_OP_SOFTMAX && in0->n_inputs == 1 &&
        absorbable(a, in0)) {
        fl_input x = in0->inputs[0];
        fl_ledger_note(a->pc, "convert_log_softmax", n, "Log(Softmax(x)) -> LogSoftmax(x)");
        *fired = true;
        return become(a, n, "LogSoftmax", 1, &x);
    }
    const char *inv = n->kind == FL_OP_LOGICAL_NOT ? inverse_cmp(in0->kind) : NULL;
    if (inv && in0->n_inputs == 2 && absorbable(a, in0)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        int t = fl_node_in(in0, 0)->dtype;
        fl_ledger_note(a->pc, "remove_logical_not", n, "LogicalNot(%s) -> %s", in0->op, inv);
        *fired = true;
        fl_status st = become(a, n, inv, 2, in);
        return st == FL_OK ? ao_set_attr(a, n, fl_attr_make_type(a->g, "T", t)) : st;
    }
    return FL_OK;
}

typedef fl_status (*stage_fn)(ao *a, fl_node *n, bool *fired);

/* One node through the stages, in Grappler's order; the first that fires
 * wins. */
static fl_status visit(ao *a, fl_node *m) {
    static const stage_fn before[] = {fold_multiply_into_conv, fold_transpose_into_matmul};
    static const stage_fn after[] = {bitcast_of_bitcast, rewrite,       aggregation_of_copies,
                                     convert_pow,        convert_log1p, max_or_min_of_monotonic,
                                     convert_expm1};
    bool fired = false;
    for (size_t s = 0; s < sizeof before / sizeof before[0]; s++) {
        fl_status st = before[s](a, m, &fired);
        if (st != FL_OK || fired) {
            return st;
        }
    }
    const char *rule = NULL;
    fl_input to = forward_target(a, m, &rule);
    if (to.node) {
        fl_ledger_note(a->pc, rule, m, "%s removed; consumers read '%s'", m->op, to.node->name);
        ao_forward(a, m, to);
        return FL_OK;
    }
    for (size_t s = 0; s < sizeof after / sizeof after[0]; s++) {
        fl_status st = after[s](a, m, &fired);
        if (st != FL_OK || fired) {
            return st;
        }
    }
    return FL_OK;
}

fl_status fl_pass_arithmetic_optimizer(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    bool *snap = fl__consumed_snapshot(pc);
    if (!snap) {
        return fl_diag_oom(pc->c->d);
    }
    ao a;
    fl_status st = ao_init(&a, pc);
    if (st != FL_OK) {
        return st;
    }
    fl_node **order = g->order;
    /* Reverse sweep: AddOpsRewrite from the roots of Add trees. */
    for (size_t i = n; i-- > 0;) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool fired = false;
        st = add_ops_rewrite(&a, m, &fired);
        if (st != FL_OK) {
            return st;
        }
    }
    /* Forward sweep: every other stage. */
    for (size_t i = 0; i < n; i++) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        ao_resolve_inputs(&a, m);
        st = visit(&a, m);
        if (st != FL_OK) {
            return st;
        }
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        ao_resolve_inputs(&a, g->nodes[i]);
    }
    g->order = NULL;
    return fl__remove_dead(pc, snap, n, "remove_dead");
}
