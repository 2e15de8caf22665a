/*
 * util.h - what the pass files share: node predicates and attr reads
 * written once for every pass, and the rewriting steps several passes take
 * (a node turned into a Const or an Identity in place, control anchors on
 * Switch outputs, forwarding, re-inference of a new node, removal of what a
 * pass left dead).
 *
 * Where passes differ on purpose, the variants carry their own names here
 * or in the pass's private header, with the reason at the declaration.
 */
#ifndef FL_PASSES_UTIL_H
#define FL_PASSES_UTIL_H

#include "ops/common.h"
#include "passes/pass.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- node predicates ---- */

/* A node's device string, "" when unplaced. */
static inline const char *fl__dev_of(const fl_node *n) {
    return n->device ? n->device : "";
}

/* Same device string (both unplaced counts as the same), as Grappler
 * compares NodeDef::device() verbatim. */
bool fl__same_device(const fl_node *a, const fl_node *b);

/* A live Const (Grappler's IsConstant; a node this pass run already removed
 * is not one). False for NULL. */
bool fl__is_const(const fl_node *n);

/* Grappler's IsAdd: AddV2, or Add whose T is not string (Add also
 * concatenates strings; AddV2 does not take them). */
bool fl__is_add(const fl_node *n);

/* A Placeholder or PlaceholderWithDefault (a feed). */
bool fl__is_feed(const fl_node *n);

/* True when n has `dep` among its control inputs. */
bool fl__has_ctrl_input(const fl_node *n, const fl_node *dep);

/* Distinct live nodes reading n by a data or control edge; at most `cap`
 * are stored in out, the count is returned. O(nodes + edges). */
size_t fl__consumers_of(const fl_graph *g, const fl_node *n, fl_node **out, size_t cap);

/* ---- op types the registry does not know ----
 *
 * The passes match ops on their FL_OP_ kind (n->kind == FL_OP_CONV2D), so a
 * misspelt op type fails to compile. A few op types Grappler's rules name
 * have no descriptor in foldline's registry (nothing to infer or count for
 * them here, so nodes of these types have kind FL_OP_UNKNOWN); they are
 * spelt once in this list and matched with fl__is_pass_op(n, FL_POP_X),
 * which compares n's op type with the name. When one of them is added to
 * the registry, test_pass_util fails until it moves to its FL_OP_ kind. */
#define FL_PASS_OPS(X)                                                                             \
    X(ACOSH, "Acosh")                                                                              \
    X(AS_STRING, "AsString")                                                                       \
    X(ASINH, "Asinh")                                                                              \
    X(ASSERT, "Assert")                                                                            \
    X(ATANH, "Atanh")                                                                              \
    X(BATCH_TO_SPACE, "BatchToSpace")                                                              \
    X(BITCAST, "Bitcast")                                                                          \
    X(BROADCAST_GRADIENT_ARGS, "BroadcastGradientArgs")                                            \
    X(CHECK_NUMERICS, "CheckNumerics")                                                             \
    X(COMPLEX_ABS, "ComplexAbs")                                                                   \
    X(CONTROL_TRIGGER, "ControlTrigger")                                                           \
    X(COSH, "Cosh")                                                                                \
    X(DEBUG_GRADIENT_IDENTITY, "DebugGradientIdentity")                                            \
    X(DEEP_COPY, "DeepCopy")                                                                       \
    X(DIGAMMA, "Digamma")                                                                          \
    X(INVERT, "Invert")                                                                            \
    X(INVERT_PERMUTATION, "InvertPermutation")                                                     \
    X(LGAMMA, "Lgamma")                                                                            \
    X(PRINT, "Print")                                                                              \
    X(REVERSE, "Reverse")                                                                          \
    X(ROLL, "Roll")                                                                                \
    X(SEGMENT_MAX, "SegmentMax")                                                                   \
    X(SEGMENT_MIN, "SegmentMin")                                                                   \
    X(SINH, "Sinh")                                                                                \
    X(SPACE_TO_BATCH, "SpaceToBatch")                                                              \
    X(SPARSE_SEGMENT_MEAN, "SparseSegmentMean")                                                    \
    X(SPARSE_SEGMENT_MEAN_WITH_NUM_SEGMENTS, "SparseSegmentMeanWithNumSegments")                   \
    X(SPARSE_SEGMENT_SQRT_N, "SparseSegmentSqrtN")                                                 \
    X(SPARSE_SEGMENT_SQRT_N_WITH_NUM_SEGMENTS, "SparseSegmentSqrtNWithNumSegments")                \
    X(SPARSE_SEGMENT_SUM, "SparseSegmentSum")                                                      \
    X(SPARSE_SEGMENT_SUM_WITH_NUM_SEGMENTS, "SparseSegmentSumWithNumSegments")                     \
    X(STRING_TO_HASH_BUCKET_FAST, "StringToHashBucketFast")                                        \
    X(UNIQUE, "Unique")                                                                            \
    X(UNIQUE_V2, "UniqueV2")                                                                       \
    X(UNSORTED_SEGMENT_MAX, "UnsortedSegmentMax")                                                  \
    X(UNSORTED_SEGMENT_MIN, "UnsortedSegmentMin")                                                  \
    X(VARIABLE, "Variable")                                                                        \
    X(RECV, "_Recv")

typedef enum fl_pass_op {
#define FL_POP_ENUM(e, name) FL_POP_##e,
    FL_PASS_OPS(FL_POP_ENUM)
#undef FL_POP_ENUM
        FL_POP_COUNT
} fl_pass_op;

/* True when n's op type is `op`. */
bool fl__is_pass_op(const fl_node *n, fl_pass_op op);

/* The op type name of `op` ("?" out of range). */
const char *fl__pass_op_name(int op);

/* True when n's op type is one of ops[0..n_ops-1]. */
bool fl__pass_op_in(const fl_node *n, const fl_pass_op *ops, size_t n_ops);

/* True when `kind` is one of kinds[0..n-1]. */
bool fl__kind_in(int kind, const fl_op_kind *kinds, size_t n);

/* ---- dispatch by op kind ----
 * A pass whose rules each start with a kind test - a function of the node's
 * op alone (n->kind, and n->op for an op outside the registry), so that a
 * node failing it is never matched - runs on a node only the rules whose
 * test its op passes. The table holds, per registered kind, the tests (bit
 * r: tests[r]) a node of that kind named as the registry names it passes,
 * and for a kind registered as "DOMAIN::TYPE" (an ONNX or TFLite op) those
 * a node of it named TYPE passes, as the importers name them; of any other
 * node (an op outside the registry, an op type that is not its kind's
 * name) the tests are asked one by one. */
typedef bool (*fl_kinds_fn)(const fl_node *n);

typedef struct fl_kind_table {
    struct {
        const char *name; /* fl__op_name of the kind */
        const char *type; /* after "::" in name (NULL: none) */
        uint32_t rules;
        uint32_t type_rules; /* of a node named `type` */
        atomic_uchar ready;  /* the fields above are filled (fl__kind_table_fill) */
    } kinds[FL_OP_COUNT];    /* side by side: one cache line per node's lookup */
    fl_kinds_fn tests[32];
    int n_tests;
} fl_kind_table;

/* Sets t up for tests[0..n_tests-1] (n_tests <= 32); once per process. A
 * kind's entry is filled when a node of it is first looked up: a graph
 * meets a few dozen of the registry's kinds, and testing every kind at
 * start-up cost each process ~2M instructions. */
void fl__kind_table_build(fl_kind_table *t, const fl_kinds_fn *tests, int n_tests);

/* Fills kind k's entry of t unless another thread did (under a lock; the
 * entries are written only here, and read after `ready` is seen set). */
void fl__kind_table_fill(const fl_kind_table *t, int k);

/* Tests first..last-1 asked of n (bits). */
uint32_t fl__kind_tests_ask(const fl_kind_table *t, const fl_node *n, int first, int last);

/* Of rules first..last-1, those n's op can match (bits; inline: asked of
 * every node by several sweeps). */
static inline uint32_t fl__kind_table_rules(const fl_kind_table *t, const fl_node *n, int first,
                                            int last) {
    if (n->kind > FL_OP_UNKNOWN && n->kind < FL_OP_COUNT) {
        if (!atomic_load_explicit(&t->kinds[n->kind].ready, memory_order_acquire)) {
            fl__kind_table_fill(t, n->kind);
        }
        /* the first characters inline: a node has one of the two names */
        uint32_t span = (uint32_t)(((1ull << last) - 1) & ~((1ull << first) - 1));
        const char *name = t->kinds[n->kind].name, *type = t->kinds[n->kind].type;
        if (n->op == name || (n->op[0] == name[0] && strcmp(n->op, name) == 0)) {
            return t->kinds[n->kind].rules & span;
        }
        if (type && n->op[0] == type[0] && strcmp(n->op, type) == 0) {
            return t->kinds[n->kind].type_rules & span;
        }
    }
    return fl__kind_tests_ask(t, n, first, last);
}

/* ---- attrs ---- */

/* Attr `name` of n when of the given kind, else the default (FL_DT_INVALID
 * for a type). */
int fl__attr_type(const fl_node *n, const char *name);
int64_t fl__attr_int(const fl_node *n, const char *name, int64_t dflt);
bool fl__attr_bool(const fl_node *n, const char *name, bool dflt);
const char *fl__attr_str(const fl_node *n, const char *name, const char *dflt);
float fl__attr_float(const fl_node *n, const char *name, float dflt);

/* ---- values ---- */

/* True when every element of v reads as x (vacuously true when v is
 * empty; false when an element has no numeric reading). */
bool fl__value_all_equal(const fl_value *v, double x);

/* ---- rewriting steps ---- */

/* True when n is a graph output or feed (FL_NODE_PRESERVE). */
static inline bool fl__preserved(const fl_node *n) {
    return (n->flags & FL_NODE_PRESERVE) != 0;
}

/* True when an attr name of n contains "_tpu_" (Grappler's constant folding
 * leaves such nodes alone): strstr's search, each '_' found by strchr (most
 * names have none or one) followed by "tpu_", asked of every node. */
static inline bool fl__has_tpu_attr(const fl_node *n) {
    for (int i = 0; i < n->n_attrs; i++) {
        for (const char *p = strchr(n->attrs[i].name, '_'); p; p = strchr(p + 1, '_')) {
            if (p[1] == 't' && p[2] == 'p' && p[3] == 'u' && p[4] == '_') {
                return true;
            }
        }
    }
    return false;
}

/* Turns n into an op of type `op` in place (name, inputs and outputs kept;
 * attrs untouched): sets op, kind and descriptor. */
void fl__node_become(fl_graph *g, fl_node *n, const char *op);

/* Grappler's ConstantFolding::AddControlDependency: the node a control
 * edge replacing data input `in` must come from. Normally in.node itself.
 * For an output of a Switch/RefSwitch, only one of whose outputs is alive,
 * a control edge on the Switch would fire on both branches: the Identity
 * ConstantFoldingCtrl/<switch>_<port> reading that port instead, created on
 * first use (the Switch's device, T = the Switch's T, else the port's base
 * dtype; shapes inferred) and reused after (a removed node of that name
 * gives the Switch itself). NULL on OOM, with pc->c->d failed. Constant
 * folding uses it where Grappler does (its header lists where), and the
 * dependency optimizer when it turns a node into a NoOp. */
fl_node *fl__ctrl_anchor(fl_pass_ctx *pc, fl_input in);

/* Adds fl__ctrl_anchor(pc, in) as a control input of n (fl__node_add_ctrl:
 * no duplicates). */
fl_status fl__add_ctrl_anchor(fl_pass_ctx *pc, fl_node *n, fl_input in);

/* Rewrites n in place into a Const holding `v` (or a stripped constant of
 * n's output dtype and shape when v is NULL, with _stripped_content_bytes):
 * data inputs become plain control inputs when keep_inputs_as_ctrl, else
 * they are dropped. n must have one output of known dtype and fully known
 * shape. */
fl_status fl__node_make_const(fl_pass_ctx *pc, fl_node *n, const fl_value *v,
                              bool keep_inputs_as_ctrl);

/* fl__node_make_const keeping the data inputs as control inputs through
 * their anchors (fl__ctrl_anchor), in input order: Grappler's
 * ReplaceOperationWithConstantTensor. */
fl_status fl__node_make_const_anchored(fl_pass_ctx *pc, fl_node *n, const fl_value *v);

/* Rewrites n in place into Identity(n's data input `keep`); its other data
 * inputs become control inputs through their anchors (fl__ctrl_anchor), in
 * input order; attrs become {T}. Grappler's ReplaceOperationWithIdentity. */
fl_status fl__node_make_identity(fl_pass_ctx *pc, fl_node *n, int keep);

/* True when both shapes have the same known rank and every dim is known or
 * symbolic and equal. */
bool fl__shape_same(const fl_shape *a, const fl_shape *b);

/* A node's device type, as TensorFlow's DeviceNameUtils reads it: the
 * component after "device:" (or the last "/"-separated one, legacy
 * "/cpu:0"), up to its ':'. An empty device string is the pass target. */
typedef enum fl_dev_type { FL_DEV_CPU, FL_DEV_GPU, FL_DEV_OTHER } fl_dev_type;
fl_dev_type fl__node_device(const fl_node *n, fl_device target);

/* Follows `fwd` (indexed by node id; node NULL = not forwarded) to the final
 * producer of an input. */
fl_input fl__resolve(const fl_input *fwd, fl_input in);

/* Calls n's infer hook, then its eval hook when every input has a value.
 * Used on nodes a pass creates whose inputs are constants. */
fl_status fl__infer_node(fl_pass_ctx *pc, fl_node *n);

/* Which nodes have consumers now (indexed by id; g->n_nodes entries), for
 * fl__remove_dead. Read-only: the marks of a graph that has not changed
 * since the last call are handed out again. */
const bool *fl__consumed_snapshot(fl_pass_ctx *pc);

/* Removes the nodes the pass left without consumers: live, not preserved,
 * consumed in `snap`, free of side effects (registered, not stateful, not
 * control flow); then, transitively, their producers that end up the same
 * way. Each removal is noted under `rule`. */
fl_status fl__remove_dead(fl_pass_ctx *pc, const bool *snap, size_t n_snap, const char *rule);

/* ---- reverse sweeps ----
 *
 * The frame of a rewriting pass that visits every node once, roots before
 * their inputs (the remapper, qdq): the graph sorted when it is not, a copy
 * of its topological order taken at the start (nodes the pass adds are not
 * visited, and removed ones are skipped), the use lists of the graph as it
 * was (*n0 = its node count: ids >= *n0 are nodes the pass made), the edge
 * index deferred (fl__edge_index_defer: built at the pass's first rewrite;
 * read its lists after fl__edge_index_need), then visit(ctx, n) for each live node from the last to
 * the first, while *st stays FL_OK; visit returns whether it changed the graph. Returns *st when a
 * visit failed, an OOM status when the arena failed, else the graph compacted when anything
 * changed. */
typedef bool (*fl_sweep_visit)(void *ctx, fl_node *n);
fl_status fl__sweep_reverse(fl_pass_ctx *pc, fl_uses *uses, fl_edge_index *edges, size_t *n0,
                            fl_sweep_visit visit, void *ctx, const fl_status *st);

#endif
