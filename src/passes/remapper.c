/*
 * remapper.c - Grappler's remapper on foldline's IR: pattern-based fusion of
 * contraction + bias + activation chains (and the other rules of
 * shared/reference/grappler.md section 2) into TensorFlow's fused kernels.
 *
 * Driver (as remapper.cc): nodes are visited in reverse topological order, so
 * the longest pattern rooted at the last node wins; a node consumed by an
 * earlier match is skipped. Every rule keeps TensorFlow's names: the fused node
 * takes the name of the pattern's last node (so consumers and fetches keep
 * working) and the device of the contraction.
 *
 * Device placement. TensorFlow's device-gated rules fire only for nodes whose
 * device string parses to CPU (or GPU); an unplaced node is on neither. We
 * treat the target device option (pc->opt->device) as the placement of every
 * node whose device string is empty, so an unplaced graph optimised for CPU
 * fuses like a graph TensorFlow placed on CPU. A node with an explicit device
 * keeps it (a "/device:GPU:0" node is never fused by a CPU rule, and the
 * reverse).
 *
 * Environment-dependent TensorFlow switches are taken at their defaults: XLA
 * auto-clustering off, cublasLt off (no MatMul fusion on GPU), cuDNN runtime
 * fusion off (GPU activations: Relu only), persistent batch norm off unless
 * the pass option persistent_bn says otherwise (rows 6 in training and 7),
 * allow_non_differentiable_rewrites on.
 *
 * Renaming. A fused node must carry the name of the node it replaces. The
 * mutation API has no rename, so replace_root() adds the new node under a
 * temporary unique name, redirects the old node's uses and control uses to
 * it, marks the old node removed and then sets the new node's name to the old
 * one. Until the fl__graph_compact() at the end of the pass the name index
 * still maps that name to the removed node (so no later fl__graph_unique_name
 * can hand the name out again); compaction rebuilds the index from the live
 * nodes, where the name is unique again. The pass looks nodes up by pointer,
 * never by name, between the two.
 *
 * oneDNN rows (--remapper onednn) present: 12 (GRUBlockCell / AUGRUBlockCell,
 * the consumers moved to output 3, h), 13, 14 (fused conv + LeakyRelu |
 * _MklFusedMish), 15, 16 (Pad + Conv3D), 17 (exact and approximate Gelu
 * subgraphs, and the standalone Gelu op), 18 (HardSwish), 19 (Mish), 20
 * (BatchMatMulV2 + Mul + AddV2), 21 (Maximum + Mul -> LeakyRelu), 22 (Conv2D
 * + BiasAdd/BN + Swish), 23, 24 (_MklLayerNorm: the Keras FusedBatchNormV3
 * form, the custom form, the mean/variance form over the last axis), 25
 * (_MklFusedInstanceNorm, with Relu/LeakyRelu), and the bias-semantic Add
 * accepted as BiasAdd. Row 12 follows the GRU matcher of the oneDNN
 * remapper.cc (Intel-tensorflow; the newer tensorflow/tensorflow snapshots we
 * read have no GRU rule). Row 17's standalone-Gelu form is in no
 * remapper.cc we could read (tensorflow/tensorflow, its mirrors, the Intel
 * fork): it is written as the Gelu-exact rule is (rewrite_matmul_gelu_op
 * says which conditions that gives) and is the one rule here not checked
 * line by line against TensorFlow. Not done:
 *  - the conv1x1 + depthwise fusion (Findconv1x1Depthwise): it is not in
 *    shared/reference/grappler.md's table; it appears only in Intel's fork of
 *    remapper.cc, not in TensorFlow's.
 * Row 7 (_FusedBatchNormGradEx) and row 6 in training mode need
 * TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1, off by default: with the pass
 * option persistent_bn (the CLI's --cudnn-persistent-batchnorm) they fire as
 * TensorFlow's do on GPU (rewrite_bn_grad_ex says which conditions; only the
 * V3 gradient, see there).
 *
 * TensorFlow versions differ; where they do, this follows current
 * remapper.cc and says so at the rule (row 14 takes no plain Conv2D; fused
 * nodes carry no `U`; row 11 ignores strides).
 *
 * Counters: each replaced root counts as rewritten (its name lives on), every
 * other matched node that disappears as removed, every extra node (the
 * decomposition's primitives) as added.
 */
#include "ops/common.h"
#include "passes/pass.h"
#include "passes/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum dev_kind { DEV_CPU, DEV_GPU, DEV_OTHER } dev_kind;

typedef struct rctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    fl_uses uses;
    size_t n0; /* nodes when the use lists were built; later ids are new nodes */
    bool onednn;
    bool persistent_bn; /* TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1 */
    fl_device target;
    fl_status st; /* first failure (OOM) */
} rctx;

/* ------------------------------------------------------------------------- */
/* Predicates                                                                 */
/* ------------------------------------------------------------------------- */

static bool is_op(const fl_node *n, const char *op) {
    return strcmp(n->op, op) == 0;
}

static bool is_removed(const fl_node *n) {
    return (n->flags & FL_NODE_REMOVED) != 0;
}

static bool is_preserved(const fl_node *n) {
    return (n->flags & FL_NODE_PRESERVE) != 0;
}

/* Device type (pipeline.h); an empty device string is the target device. */
static dev_kind node_device(const rctx *r, const fl_node *n) {
    fl_dev_type t = fl__node_device(n, r->target);
    return t == FL_DEV_CPU ? DEV_CPU : t == FL_DEV_GPU ? DEV_GPU : DEV_OTHER;
}

static bool on_cpu(const rctx *r, const fl_node *n) {
    return node_device(r, n) == DEV_CPU;
}

static bool on_gpu(const rctx *r, const fl_node *n) {
    return node_device(r, n) == DEV_GPU;
}

/* Attr `name` of kind type, or FL_DT_INVALID. */
static int attr_type(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_TYPE ? a->v.type : FL_DT_INVALID;
}

static const char *attr_str(const fl_node *n, const char *name, const char *dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_S ? a->v.s.p : dflt;
}

static bool attr_bool(const fl_node *n, const char *name, bool dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_B ? a->v.b : dflt;
}

static float attr_float(const fl_node *n, const char *name, float dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_F ? a->v.f : dflt;
}

/* HaveSameDataType: both carry attr T, and it is the same. */
static bool same_t(const fl_node *a, const fl_node *b) {
    int ta = attr_type(a, "T");
    return ta != FL_DT_INVALID && ta == attr_type(b, "T");
}

/* T is float or bfloat16. */
static bool t_float_or_bf16(const fl_node *n) {
    int t = attr_type(n, "T");
    return t == FL_DT_FLOAT || t == FL_DT_BFLOAT16;
}

/* Control fanin or fanout. */
static bool has_ctrl(const rctx *r, const fl_node *n) {
    if (n->n_ctrl > 0) {
        return true;
    }
    return n->id < r->n0 ? r->uses.ctrl_counts[n->id] > 0 : true;
}

/* Data uses of output `port`; new nodes count as many (they never are
 * intermediates of a later match, see the driver). */
static size_t fanout(const rctx *r, const fl_node *n, int port) {
    if (n->id >= r->n0 || port >= n->n_outputs) {
        return port >= n->n_outputs ? 0 : (size_t)-1;
    }
    size_t k;
    fl__uses_of(&r->uses, n, port, &k);
    return k;
}

/* HasAtMostOneFanoutAtPort0 */
static bool one_fanout0(const rctx *r, const fl_node *n) {
    return fanout(r, n, 0) <= 1;
}

/* HasAtMostOneDataFanoutAtPort0: Shape and Rank consumers do not count. */
static bool one_data_fanout0(const rctx *r, const fl_node *n) {
    if (n->id >= r->n0) {
        return false;
    }
    size_t k, cnt = 0;
    const fl_use *u = fl__uses_of(&r->uses, n, 0, &k);
    for (size_t i = 0; i < k; i++) {
        if (!is_op(u[i].node, "Shape") && !is_op(u[i].node, "Rank")) {
            cnt++;
        }
    }
    return cnt <= 1;
}

/* Any data use of an output other than port 0. */
static bool fanout_beyond0(const rctx *r, const fl_node *n) {
    for (int p = 1; p < n->n_outputs; p++) {
        if (fanout(r, n, p) > 0) {
            return true;
        }
    }
    return false;
}

/* The node feeding data input i (NULL when absent). */
static fl_node *in_node(const fl_node *n, int i) {
    return i < n->n_inputs ? n->inputs[i].node : NULL;
}

/* An input whose value is known to Grappler's shape inference: a value we
 * inferred, or a Const (also a stripped one: TensorFlow has its content). */
static bool known_input(const fl_node *n, int i) {
    if (i >= n->n_inputs) {
        return false;
    }
    return fl_node_in(n, i)->value != NULL || is_op(n->inputs[i].node, "Const");
}

static bool is_conv2d(const fl_node *n) {
    return is_op(n, "Conv2D");
}
static bool is_depthwise(const fl_node *n) {
    return is_op(n, "DepthwiseConv2dNative");
}
static bool is_matmul(const fl_node *n) {
    return is_op(n, "MatMul");
}
static bool is_conv3d(const fl_node *n) {
    return is_op(n, "Conv3D");
}
static bool is_add(const fl_node *n) {
    return is_op(n, "Add") || is_op(n, "AddV2");
}
static bool is_fused_batch_norm(const fl_node *n) {
    return is_op(n, "FusedBatchNorm") || is_op(n, "FusedBatchNormV2") ||
           is_op(n, "FusedBatchNormV3");
}

/* IsCpuCompatibleDataType */
static bool cpu_dtype_ok(const rctx *r, const fl_node *c) {
    int t = attr_type(c, "T");
    if (r->onednn) {
        return t == FL_DT_FLOAT || t == FL_DT_BFLOAT16;
    }
    if (is_conv2d(c)) {
        return t == FL_DT_FLOAT || t == FL_DT_DOUBLE;
    }
    if (is_matmul(c)) {
        return t == FL_DT_FLOAT;
    }
    return false;
}

/* IsCpuCompatibleDataFormat */
static bool cpu_format_ok(const rctx *r, const fl_node *c) {
    const char *f = attr_str(c, "data_format", is_conv3d(c) ? "NDHWC" : "NHWC");
    if (is_conv3d(c)) {
        return strcmp(f, "NDHWC") == 0 || (r->onednn && strcmp(f, "NCDHW") == 0);
    }
    return strcmp(f, "NHWC") == 0 || (r->onednn && strcmp(f, "NCHW") == 0);
}

/* IsCpuCompatible(contraction): placed on CPU, dtype and format supported;
 * depthwise and Conv3D only with oneDNN. */
static bool cpu_contraction_ok(const rctx *r, const fl_node *c) {
    if (!on_cpu(r, c)) {
        return false;
    }
    if (is_conv2d(c) || is_conv3d(c)) {
        return (is_conv2d(c) || r->onednn) && cpu_dtype_ok(r, c) && cpu_format_ok(r, c);
    }
    if (is_depthwise(c)) {
        return r->onednn && cpu_dtype_ok(r, c);
    }
    if (is_matmul(c)) {
        return cpu_dtype_ok(r, c);
    }
    return false;
}

/* IsGpuCompatible for contraction + BiasAdd (+ activation): only Conv2D + Relu
 * (T float, NHWC/NCHW, filter spatial dims known and both != 1); MatMul needs
 * cublasLt (off), Conv2D + BiasAdd alone is never fused on GPU. */
static bool gpu_contraction_ok(const rctx *r, const fl_node *c, const fl_node *act) {
    if (!act || !is_op(act, "Relu") || !is_conv2d(c) || !on_gpu(r, c)) {
        return false;
    }
    if (attr_type(c, "T") != FL_DT_FLOAT) {
        return false;
    }
    const char *f = attr_str(c, "data_format", "NHWC");
    if (strcmp(f, "NHWC") != 0 && strcmp(f, "NCHW") != 0) {
        return false;
    }
    if (c->n_inputs < 2) {
        return false;
    }
    const fl_shape *fs = &fl_node_in(c, 1)->shape;
    if (fs->rank != 4 || !fl_sym_is_known(fs->dims[0]) || !fl_sym_is_known(fs->dims[1])) {
        return false;
    }
    return fs->dims[0].k != 1 && fs->dims[1].k != 1;
}

/* IsSupportedActivation: Relu, Relu6, Elu, LeakyRelu (+ Tanh, Sigmoid with
 * oneDNN). */
static bool is_activation(const rctx *r, const fl_node *n) {
    if (is_op(n, "Relu") || is_op(n, "Relu6") || is_op(n, "Elu") || is_op(n, "LeakyRelu")) {
        return true;
    }
    return r->onednn && (is_op(n, "Tanh") || is_op(n, "Sigmoid"));
}

/* ------------------------------------------------------------------------- */
/* Rewriting helpers                                                          */
/* ------------------------------------------------------------------------- */

static void fail_oom(rctx *r) {
    if (r->st == FL_OK) {
        r->st = fl__diag_oom(r->d);
    }
}

/* Sets `name` on dst to src's attr of that name, or to *dflt when src lacks
 * it (TensorFlow works on graphs with default attrs filled in). */
static void copy_attr(rctx *r, fl_node *dst, const fl_node *src, const char *name,
                      const fl_attr *dflt) {
    const fl_attr *a = fl__node_attr(src, name);
    if (!a) {
        a = dflt;
    }
    if (a && fl__node_set_attr(r->g, dst, a) != FL_OK) {
        fail_oom(r);
    }
}

static void set_attr(rctx *r, fl_node *dst, fl_attr a) {
    if (fl__node_set_attr(r->g, dst, &a) != FL_OK) {
        fail_oom(r);
    }
}

/* Adds a node of op `op` that takes over `root`: its uses (ports below
 * n_outputs), control uses, control inputs, preserve flag and, once root is
 * marked removed, its name (see the header comment on renaming). NULL on OOM
 * (r->st set). */
static fl_node *replace_root(rctx *r, fl_node *root, const char *op, const char *device,
                             int n_inputs, const fl_input *inputs, int n_outputs) {
    char *base = fl__arena_printf(r->g->arena, "%s/_remapper_new", root->name);
    const char *tmp = base ? fl__graph_unique_name(r->g, base) : NULL;
    fl_node *nn = tmp ? fl__op_add_op(r->g, tmp, op, n_inputs, inputs, n_outputs, r->d) : NULL;
    if (!nn) {
        fail_oom(r);
        return NULL;
    }
    nn->device = device ? device : "";
    int ports = root->n_outputs < n_outputs ? root->n_outputs : n_outputs;
    for (int p = 0; p < ports; p++) {
        fl__graph_replace_uses(r->g, root, p, nn, p);
    }
    fl__graph_replace_ctrl_uses(r->g, root, nn);
    for (int k = 0; k < root->n_ctrl; k++) {
        if (fl__node_add_ctrl(r->g, nn, root->ctrl[k]) != FL_OK) {
            fail_oom(r);
        }
    }
    nn->flags |= root->flags & FL_NODE_PRESERVE;
    fl__graph_remove_node(root);
    nn->name = root->name;
    r->pc->rewritten++;
    return nn;
}

/* Removes a matched intermediate node (its only consumers are in the match). */
static void drop(rctx *r, fl_node *n) {
    fl__graph_remove_node(n);
    r->pc->removed++;
}

/* Adds a new (extra) node named `<prefix>/<suffix>` (made unique). */
static fl_node *add_extra(rctx *r, const char *prefix, const char *suffix, const char *op,
                          const char *device, int n_inputs, const fl_input *inputs) {
    char *base = fl__arena_printf(r->g->arena, "%s/%s", prefix, suffix);
    const char *name = base ? fl__graph_unique_name(r->g, base) : NULL;
    fl_node *nn = name ? fl__op_add_op(r->g, name, op, n_inputs, inputs, 1, r->d) : NULL;
    if (!nn) {
        fail_oom(r);
        return NULL;
    }
    nn->device = device ? device : "";
    r->pc->added++;
    return nn;
}

static const char *fused_name_of(const fl_node *c) {
    if (is_conv2d(c)) {
        return "_FusedConv2D";
    }
    if (is_depthwise(c)) {
        return "_FusedDepthwiseConv2dNative";
    }
    if (is_matmul(c)) {
        return "_FusedMatMul";
    }
    return "_FusedConv3D";
}

/* Copies the contraction's attrs as TensorFlow's Copy*Attributes do (with
 * op defaults for absent optional attrs). */
static void copy_contraction_attrs(rctx *r, fl_node *f, const fl_node *c) {
    fl_graph *g = r->g;
    static const int64_t ones4[4] = {1, 1, 1, 1}, ones5[5] = {1, 1, 1, 1, 1};
    copy_attr(r, f, c, "T", NULL);
    if (is_matmul(c)) {
        fl_attr ta = fl__attr_make_bool(g, "transpose_a", false);
        fl_attr tb = fl__attr_make_bool(g, "transpose_b", false);
        copy_attr(r, f, c, "transpose_a", &ta);
        copy_attr(r, f, c, "transpose_b", &tb);
        return;
    }
    fl_attr dil = is_conv3d(c) ? fl__attr_make_ints(g, "dilations", 5, ones5)
                               : fl__attr_make_ints(g, "dilations", 4, ones4);
    fl_attr fmt = fl__attr_make_str(g, "data_format", is_conv3d(c) ? "NDHWC" : "NHWC");
    copy_attr(r, f, c, "strides", NULL);
    copy_attr(r, f, c, "padding", NULL);
    if (is_conv2d(c)) {
        fl_attr ep = fl__attr_make_ints(g, "explicit_paddings", 0, NULL);
        copy_attr(r, f, c, "explicit_paddings", &ep);
    }
    copy_attr(r, f, c, "dilations", &dil);
    copy_attr(r, f, c, "data_format", &fmt);
    if (is_conv2d(c)) {
        fl_attr cu = fl__attr_make_bool(g, "use_cudnn_on_gpu", true);
        copy_attr(r, f, c, "use_cudnn_on_gpu", &cu);
    }
}

/* SetFusedOpAttributes (+ leakyrelu_alpha for LeakyRelu). No `U`: the
 * TensorFlow-written fused nodes of the corpus (shared/corpus/tf) carry none,
 * nor does current remapper.cc (it writes TArgs/num_host_args instead); only
 * a transient ~2.11-2.12 remapper.cc set U on _FusedConv2D. */
static void set_fused_attrs(rctx *r, fl_node *f, const char *const *ops, size_t n_ops,
                            int64_t num_args, float epsilon, const fl_node *act) {
    fl_graph *g = r->g;
    set_attr(r, f, fl__attr_make_strs(g, "fused_ops", n_ops, ops));
    set_attr(r, f, fl__attr_make_int(g, "num_args", num_args));
    set_attr(r, f, fl__attr_make_float(g, "epsilon", epsilon));
    if (act && is_op(act, "LeakyRelu")) {
        set_attr(r, f, fl__attr_make_float(g, "leakyrelu_alpha", attr_float(act, "alpha", 0.2f)));
    }
}

/* Builds the fused contraction named after `root`: inputs [x, filter,
 * args...], device of the contraction. */
static fl_node *build_fused(rctx *r, fl_node *root, const fl_node *c, const fl_input *args,
                            int n_args, const char *const *ops, size_t n_ops, float epsilon,
                            const fl_node *act) {
    fl_input in[8];
    in[0] = c->inputs[0];
    in[1] = c->inputs[1];
    for (int i = 0; i < n_args; i++) {
        in[2 + i] = args[i];
    }
    fl_node *f = replace_root(r, root, fused_name_of(c), c->device, 2 + n_args, in, 1);
    if (!f) {
        return NULL;
    }
    copy_contraction_attrs(r, f, c);
    set_fused_attrs(r, f, ops, n_ops, n_args, epsilon, act);
    return f;
}

/* ------------------------------------------------------------------------- */
/* Contraction + BiasAdd (+ activation)                                       */
/* ------------------------------------------------------------------------- */

/* Is `n` a contraction the remapper knows (Conv3D only with oneDNN)? */
static bool is_contraction(const rctx *r, const fl_node *n) {
    return is_conv2d(n) || is_depthwise(n) || is_matmul(n) || (r->onednn && is_conv3d(n));
}

static bool shapes_equal(const fl_shape *a, const fl_shape *b);

/* Conv2D, DepthwiseConv2dNative, MatMul or Conv3D (IsConvOrMatMul). */
static bool is_conv_or_matmul(const fl_node *n) {
    return is_conv2d(n) || is_depthwise(n) || is_matmul(n) || is_conv3d(n);
}

/* Channels-last data_format, or none. */
static bool channels_last(const fl_node *n) {
    const char *f = attr_str(n, "data_format", NULL);
    return !f || strcmp(f, "NHWC") == 0 || strcmp(f, "NDHWC") == 0;
}

/* ShapesBroadcastable: every aligned pair of dims is equal or has a known 1. */
static bool shapes_broadcastable(const fl_shape *a, const fl_shape *b) {
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
        bool one = (fl_sym_is_known(x) && x.k == 1) || (fl_sym_is_known(y) && y.k == 1);
        if (!one && (fl_sym_is_unknown(x) || !fl__sym_eq(x, y))) {
            return false;
        }
    }
    return true;
}

/* IsBiasSemanticAdd (oneDNN): Add/AddV2 on CPU of a contraction's output
 * (operand 1 - *bias_port) and a bias-shaped tensor (*bias_port): both
 * producers channels-last; last dims known; the shapes not equal but
 * broadcastable; the contraction output rank >= 2 and the bias rank at most
 * the contraction's (4-D/5-D); the bias's last dim equals the channel count
 * and all its other dims are 1. */
static bool is_bias_semantic_add(const rctx *r, const fl_node *add, int *bias_port) {
    if (!r->onednn || !is_add(add) || add->n_inputs != 2 || !on_cpu(r, add)) {
        return false;
    }
    const fl_node *n0 = in_node(add, 0), *n1 = in_node(add, 1);
    if ((!is_conv_or_matmul(n0) && !is_conv_or_matmul(n1)) || !channels_last(n0) ||
        !channels_last(n1)) {
        return false;
    }
    const fl_shape *s0 = &fl_node_in(add, 0)->shape, *s1 = &fl_node_in(add, 1)->shape;
    if (s0->rank < 1 || s1->rank < 1 || !fl_sym_is_known(s0->dims[s0->rank - 1]) ||
        !fl_sym_is_known(s1->dims[s1->rank - 1])) {
        return false;
    }
    if (shapes_equal(s0, s1) || !shapes_broadcastable(s0, s1)) {
        return false;
    }
    int port = is_conv_or_matmul(n0) ? 1 : 0;
    const fl_shape *cs = port == 1 ? s0 : s1, *bs = port == 1 ? s1 : s0;
    if ((cs->rank == 4 && bs->rank > 4) || (cs->rank == 5 && bs->rank > 5) || cs->rank < 2 ||
        cs->dims[cs->rank - 1].k != bs->dims[bs->rank - 1].k) {
        return false;
    }
    for (int i = 0; i < bs->rank - 1; i++) {
        if (!fl_sym_is_known(bs->dims[i]) || bs->dims[i].k != 1) {
            return false;
        }
    }
    *bias_port = port;
    return true;
}

/* FindContractionWithBias: BiasAdd(contraction(x, w), b), or with oneDNN a
 * bias-semantic Add (either operand order; *bias_port: the bias operand).
 * Conditions: no control edges on the BiasAdd or the contraction; the
 * contraction has at most one consumer, is not preserved, and shares T with
 * the BiasAdd; when check_device, the contraction is CPU-compatible (or
 * GPU-compatible, which never holds without an activation). */
static bool match_contraction_bias(const rctx *r, const fl_node *bias, fl_node **contraction,
                                   int *bias_port, bool check_device) {
    int port = 1;
    if (bias->n_inputs < 2 || has_ctrl(r, bias) ||
        !(is_op(bias, "BiasAdd") || is_bias_semantic_add(r, bias, &port))) {
        return false;
    }
    fl_node *c = in_node(bias, 1 - port);
    if (!c || is_removed(c) || !is_contraction(r, c) || c->n_inputs < 2 || !same_t(bias, c) ||
        has_ctrl(r, c) || !one_fanout0(r, c) || is_preserved(c)) {
        return false;
    }
    if (check_device && !cpu_contraction_ok(r, c) && !gpu_contraction_ok(r, c, NULL)) {
        return false;
    }
    *contraction = c;
    *bias_port = port;
    return true;
}

/* Pattern (table rows 1): Conv2D | DepthwiseConv2dNative | MatMul | Conv3D ->
 * BiasAdd  =>  _FusedConv2D | ... named after the BiasAdd,
 * fused_ops=[BiasAdd], num_args=1, inputs [x, filter, bias].
 * Conditions: match_contraction_bias with the device check (stock CPU: Conv2D
 * f32/f64 NHWC, MatMul f32; depthwise/Conv3D/NCHW/bf16 only with oneDNN). */
static bool rewrite_contraction_bias(rctx *r, fl_node *bias) {
    fl_node *c;
    int port;
    if (!match_contraction_bias(r, bias, &c, &port, true)) {
        return false;
    }
    static const char *const ops[] = {"BiasAdd"};
    fl__ledger_note(r->pc, "contraction_bias", bias, "%s+%s -> %s", c->op, bias->op,
                    fused_name_of(c));
    if (!build_fused(r, bias, c, &bias->inputs[port], 1, ops, 1, 0.0f, NULL)) {
        return false;
    }
    drop(r, c);
    return true;
}

/* Pattern (table row 2): contraction -> BiasAdd -> activation (Relu, Relu6,
 * Elu, LeakyRelu; + Tanh, Sigmoid with oneDNN)  =>  fused contraction named
 * after the activation, fused_ops=[BiasAdd, <act>], num_args=1,
 * leakyrelu_alpha for LeakyRelu.
 * Conditions: no control edges on the activation; match_contraction_bias
 * without the device check; the BiasAdd has one consumer, is not preserved
 * and shares T with the activation; Tanh/Sigmoid only after MatMul; LeakyRelu
 * only after Conv2D, MatMul (Conv3D with oneDNN); the contraction is
 * CPU-compatible, or GPU-compatible (Conv2D f32 non-1x1 + Relu). */
static bool rewrite_contraction_bias_act(rctx *r, fl_node *act) {
    if (!is_activation(r, act) || act->n_inputs < 1 || has_ctrl(r, act)) {
        return false;
    }
    fl_node *bias = in_node(act, 0), *c;
    int port;
    if (is_removed(bias) || !match_contraction_bias(r, bias, &c, &port, false) ||
        !one_fanout0(r, bias) || !same_t(act, bias) || is_preserved(bias)) {
        return false;
    }
    if (!is_matmul(c) && (is_op(act, "Tanh") || is_op(act, "Sigmoid"))) {
        return false;
    }
    if (!(is_conv2d(c) || is_matmul(c) || (r->onednn && is_conv3d(c))) && is_op(act, "LeakyRelu")) {
        return false;
    }
    if (!cpu_contraction_ok(r, c) && !gpu_contraction_ok(r, c, act)) {
        return false;
    }
    const char *ops[] = {"BiasAdd", act->op};
    fl__ledger_note(r->pc, "contraction_bias_activation", act, "%s+BiasAdd+%s -> %s", c->op,
                    act->op, fused_name_of(c));
    if (!build_fused(r, act, c, &bias->inputs[port], 1, ops, 2, 0.0f, act)) {
        return false;
    }
    drop(r, bias);
    drop(r, c);
    return true;
}

/* Pattern (table row 3): Conv2D (Conv3D with oneDNN) -> Squeeze -> BiasAdd  =>
 * _FusedConv2D [BiasAdd] named after the Conv2D, followed by the Squeeze
 * renamed to the BiasAdd's name.
 * Conditions: no control edges on the three; Squeeze and conv have one
 * consumer and are not preserved; squeeze_dims present and without the
 * channel dim (3 for Conv2D, 4 for Conv3D); conv shares T with the BiasAdd;
 * conv CPU-compatible. */
static bool rewrite_conv_squeeze_bias(rctx *r, fl_node *bias) {
    if (!is_op(bias, "BiasAdd") || bias->n_inputs < 2 || has_ctrl(r, bias)) {
        return false;
    }
    fl_node *sq = in_node(bias, 0);
    if (is_removed(sq) || !is_op(sq, "Squeeze") || sq->n_inputs < 1 || has_ctrl(r, sq) ||
        !one_fanout0(r, sq) || is_preserved(sq)) {
        return false;
    }
    fl_node *c = in_node(sq, 0);
    if (is_removed(c) || !(is_conv2d(c) || (r->onednn && is_conv3d(c))) || c->n_inputs < 2) {
        return false;
    }
    const fl_attr *dims = fl__node_attr(sq, "squeeze_dims");
    if (!dims || dims->kind != FL_ATTR_LIST ||
        (dims->list_kind != FL_ATTR_I && dims->list_kind != FL_ATTR_NONE)) {
        return false;
    }
    for (size_t k = 0; k < dims->n; k++) {
        int64_t dim = dims->v.list.i[k];
        if ((dim == 3 && is_conv2d(c)) || (dim == 4 && is_conv3d(c))) {
            return false;
        }
    }
    if (!same_t(c, bias) || has_ctrl(r, c) || !one_fanout0(r, c) || is_preserved(c) ||
        !cpu_contraction_ok(r, c)) {
        return false;
    }
    static const char *const ops[] = {"BiasAdd"};
    fl__ledger_note(r->pc, "contraction_squeeze_bias", bias, "%s+Squeeze+BiasAdd -> %s+Squeeze",
                    c->op, fused_name_of(c));
    fl_input bias_in = bias->inputs[1];
    fl_node *f = build_fused(r, c, c, &bias_in, 1, ops, 1, 0.0f, NULL);
    if (!f) {
        return false;
    }
    fl_input sq_in = {f, 0};
    fl_node *nsq = replace_root(r, bias, "Squeeze", sq->device, 1, &sq_in, 1);
    if (!nsq) {
        return false;
    }
    for (int i = 0; i < sq->n_attrs; i++) {
        set_attr(r, nsq, sq->attrs[i]);
    }
    drop(r, sq);
    /* Two roots were replaced under their own names; one node disappeared. */
    return true;
}

/* ------------------------------------------------------------------------- */
/* Conv2D + FusedBatchNorm (+ activation)                                     */
/* ------------------------------------------------------------------------- */

/* FindConv2DWithBatchNorm: FusedBatchNorm*(Conv2D(x, w), scale, offset,
 * mean, variance) in inference mode. Conditions: no control edges on the BN
 * or the Conv2D; V2/V3 have U=float; is_training false (absent: false);
 * only output 0 of the BN is consumed; Conv2D on CPU with CPU dtype and
 * format, sharing T with the BN, one consumer, not preserved. */
static bool match_conv_bn(const rctx *r, const fl_node *bn, fl_node **conv) {
    if (!is_fused_batch_norm(bn) || bn->n_inputs < 5 || has_ctrl(r, bn)) {
        return false;
    }
    if (!is_op(bn, "FusedBatchNorm") && attr_type(bn, "U") != FL_DT_FLOAT) {
        return false;
    }
    if (attr_bool(bn, "is_training", false) || fanout_beyond0(r, bn)) {
        return false;
    }
    fl_node *c = in_node(bn, 0);
    if (is_removed(c) || !is_conv2d(c) || c->n_inputs < 2 || !on_cpu(r, c) || !same_t(bn, c) ||
        !cpu_dtype_ok(r, c) || !cpu_format_ok(r, c) || has_ctrl(r, c) || !one_fanout0(r, c) ||
        is_preserved(c)) {
        return false;
    }
    *conv = c;
    return true;
}

/* Pattern (table row 4): Conv2D -> FusedBatchNorm/V2/V3 (inference)  =>
 * _FusedConv2D named after the BN, inputs [x, filter, scale, offset, mean,
 * variance], fused_ops=[FusedBatchNorm], num_args=4, epsilon of the BN (no
 * U, see set_fused_attrs). Conditions: match_conv_bn. */
static bool rewrite_conv_bn(rctx *r, fl_node *bn) {
    fl_node *c;
    if (!match_conv_bn(r, bn, &c)) {
        return false;
    }
    static const char *const ops[] = {"FusedBatchNorm"};
    fl__ledger_note(r->pc, "conv2d_batch_norm", bn, "Conv2D+%s -> _FusedConv2D", bn->op);
    if (!build_fused(r, bn, c, &bn->inputs[1], 4, ops, 1, attr_float(bn, "epsilon", 1e-4f), NULL)) {
        return false;
    }
    drop(r, c);
    return true;
}

/* Pattern (table row 5): Conv2D -> FusedBatchNorm* -> activation (Relu,
 * Relu6, Elu, LeakyRelu; + Tanh with oneDNN; never Sigmoid)  =>
 * _FusedConv2D named after the activation, fused_ops=[FusedBatchNorm, <act>].
 * Conditions: no control edges on the activation; it shares T with the BN;
 * match_conv_bn; the BN has one consumer and is not preserved. */
static bool rewrite_conv_bn_act(rctx *r, fl_node *act) {
    if (!is_activation(r, act) || is_op(act, "Sigmoid") || act->n_inputs < 1 || has_ctrl(r, act)) {
        return false;
    }
    fl_node *bn = in_node(act, 0), *c;
    if (is_removed(bn) || !same_t(act, bn) || !match_conv_bn(r, bn, &c) || !one_fanout0(r, bn) ||
        is_preserved(bn)) {
        return false;
    }
    const char *ops[] = {"FusedBatchNorm", act->op};
    fl__ledger_note(r->pc, "conv2d_batch_norm_activation", act, "Conv2D+%s+%s -> _FusedConv2D",
                    bn->op, act->op);
    if (!build_fused(r, act, c, &bn->inputs[1], 4, ops, 2, attr_float(bn, "epsilon", 1e-4f), act)) {
        return false;
    }
    drop(r, bn);
    drop(r, c);
    return true;
}

/* ------------------------------------------------------------------------- */
/* FusedBatchNorm + (side input) + Relu -> _FusedBatchNormEx                   */
/* ------------------------------------------------------------------------- */

static bool shapes_equal(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (fl_sym_is_unknown(a->dims[i]) || !fl__sym_eq(a->dims[i], b->dims[i])) {
            return false;
        }
    }
    return true;
}

/* The training-mode conditions TensorFlow adds on GPU, where cuDNN computes
 * the fused batch norm (and its gradient): TF_USE_CUDNN_BATCHNORM_SPATIAL_
 * PERSISTENT set (pass option persistent_bn, off by default), NHWC, T half,
 * input 0 of rank 4 with a known channel count that is a multiple of 4. */
static bool persistent_bn_ok(const rctx *r, const fl_node *bn, const char *fmt) {
    if (!r->persistent_bn || strcmp(fmt, "NHWC") != 0 || attr_type(bn, "T") != FL_DT_HALF ||
        bn->n_inputs < 1) {
        return false;
    }
    const fl_shape *x = &fl_node_in(bn, 0)->shape;
    return x->rank == 4 && fl_sym_is_known(x->dims[3]) && x->dims[3].k % 4 == 0;
}

/* The valid_batch_norm check of FindFusedBatchNormEx: a FusedBatchNorm* on
 * GPU (T float/half) or, with oneDNN, not on GPU (T float/bf16); is_training
 * and data_format (NHWC/NCHW) present; training on GPU needs cuDNN's
 * persistent mode (persistent_bn_ok); V2/V3 need U=float; no control edges;
 * at most one data consumer of output 0 (Shape/Rank ignored); not
 * preserved. */
static bool valid_bn_for_ex(const rctx *r, const fl_node *bn) {
    if (is_removed(bn) || !is_fused_batch_norm(bn) || bn->n_inputs < 5) {
        return false;
    }
    bool gpu = on_gpu(r, bn);
    if (!r->onednn && !gpu) {
        return false;
    }
    int t = attr_type(bn, "T");
    if (gpu ? (t != FL_DT_FLOAT && t != FL_DT_HALF) : (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16)) {
        return false;
    }
    const fl_attr *tr = fl__node_attr(bn, "is_training");
    const char *fmt = attr_str(bn, "data_format", NULL);
    if (!tr || tr->kind != FL_ATTR_B || !fmt) {
        return false;
    }
    if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NCHW") != 0) {
        return false;
    }
    if (tr->v.b && gpu && !persistent_bn_ok(r, bn, fmt)) {
        return false;
    }
    if (!is_op(bn, "FusedBatchNorm") && attr_type(bn, "U") != FL_DT_FLOAT) {
        return false;
    }
    return !has_ctrl(r, bn) && one_data_fanout0(r, bn) && !is_preserved(bn);
}

/* FindFusedBatchNormEx: root Relu without control edges over a valid BN
 * (*add NULL), or over Add/AddV2(BN, side) (either order): the side-input
 * variant not on oneDNN CPU, the Add without control edges, one consumer,
 * not preserved, both operands of symbolically equal shape. */
static bool match_bn_ex(const rctx *r, const fl_node *relu, fl_node **bn, fl_node **add,
                        fl_input *side) {
    if (is_removed(relu) || !is_op(relu, "Relu") || relu->n_inputs < 1 || has_ctrl(r, relu)) {
        return false;
    }
    fl_node *in0 = in_node(relu, 0);
    *add = NULL;
    if (valid_bn_for_ex(r, in0)) {
        *bn = in0;
        return true;
    }
    if (is_removed(in0) || !is_add(in0)) {
        return false;
    }
    if (r->onednn && !on_gpu(r, relu)) {
        return false;
    }
    if (has_ctrl(r, in0) || !one_fanout0(r, in0) || is_preserved(in0) || in0->n_inputs < 2 ||
        !shapes_equal(&fl_node_in(in0, 0)->shape, &fl_node_in(in0, 1)->shape)) {
        return false;
    }
    for (int k = 0; k < 2; k++) {
        if (valid_bn_for_ex(r, in_node(in0, k))) {
            *bn = in_node(in0, k);
            *side = in0->inputs[1 - k];
            *add = in0;
            return true;
        }
    }
    return false;
}

/* Pattern (table row 6): FusedBatchNorm* -> Relu, or FusedBatchNorm* + side
 * -> Add/AddV2 -> Relu  =>  _FusedBatchNormEx named after the BN (inputs [x,
 * scale, offset, mean, variance(, side)], activation_mode=Relu,
 * num_side_inputs 0/1, T, is_training, data_format, epsilon,
 * exponential_avg_factor, U); the Relu becomes Identity(BN); the Add is
 * deleted. Conditions: match_bn_ex. */
static bool rewrite_bn_ex(rctx *r, fl_node *relu) {
    fl_node *bn, *add;
    fl_input side = {NULL, 0};
    if (!match_bn_ex(r, relu, &bn, &add, &side)) {
        return false;
    }
    fl__ledger_note(r->pc, "fused_batch_norm_ex", relu, "%s%s+Relu -> _FusedBatchNormEx", bn->op,
                    add ? "+Add" : "");
    fl_input in[6];
    for (int i = 0; i < 5; i++) {
        in[i] = bn->inputs[i];
    }
    if (add) {
        in[5] = side;
    }
    fl_node *f = replace_root(r, bn, "_FusedBatchNormEx", bn->device, add ? 6 : 5, in, 6);
    if (!f) {
        return false;
    }
    fl_graph *g = r->g;
    copy_attr(r, f, bn, "T", NULL);
    copy_attr(r, f, bn, "is_training", NULL);
    copy_attr(r, f, bn, "data_format", NULL);
    copy_attr(r, f, bn, "epsilon", NULL);
    copy_attr(r, f, bn, "exponential_avg_factor", NULL);
    int u = is_op(bn, "FusedBatchNorm") ? attr_type(bn, "T") : attr_type(bn, "U");
    if (r->onednn && !on_gpu(r, bn)) {
        u = FL_DT_FLOAT;
    }
    set_attr(r, f, fl__attr_make_type(g, "U", u));
    set_attr(r, f, fl__attr_make_str(g, "activation_mode", "Relu"));
    set_attr(r, f, fl__attr_make_int(g, "num_side_inputs", add ? 1 : 0));
    fl_input id_in = {f, 0};
    fl_node *id = replace_root(r, relu, "Identity", bn->device, 1, &id_in, 1);
    if (!id) {
        return false;
    }
    copy_attr(r, id, bn, "T", NULL);
    if (add) {
        drop(r, add);
    }
    return true;
}

/* Pattern (table row 7): ReluGrad -> FusedBatchNormGrad* (training) whose
 * forward is a _FusedBatchNormEx match (FindFusedBatchNormGradEx)  =>
 * _FusedBatchNormGradEx named after the gradient, inputs [ReluGrad's
 * gradients, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
 * the forward BN's offset, ReluGrad's features (the forward Relu)], T, U
 * (V1: float), is_training, data_format, epsilon, activation_mode=Relu,
 * num_side_inputs 0/1. Without a side input the ReluGrad is deleted; with one
 * it becomes Identity(<grad>:5), the side input's gradient.
 * Conditions: the gradient on GPU, without control edges, is_training true,
 * T half, NHWC, input 0 of rank 4 with a known channel count that is a
 * multiple of 4, cuDNN's persistent mode, V2/V3 with U float (XLA
 * auto-clustering, which also blocks it, is off); ReluGrad without control
 * edges, not preserved; its input 1 the root of a _FusedBatchNormEx match:
 * without a side input the ReluGrad has one consumer; with one it has two
 * (this gradient and the side input's path) and the gradient's
 * reserve_space_3 (input 5) comes from the matched forward BN. */
static bool rewrite_bn_grad_ex(rctx *r, fl_node *g) {
    /* FusedBatchNormGrad/V2 match TensorFlow's conditions too (V1 only with
     * T float, so never), but have no reserve_space_3 (input 5), which
     * TensorFlow's rewrite reads regardless: not rewritten here. */
    if (!is_op(g, "FusedBatchNormGradV3")) {
        return false;
    }
    if (has_ctrl(r, g) || !on_gpu(r, g) || !attr_bool(g, "is_training", false) ||
        !fl__node_attr(g, "is_training") || g->n_inputs < 6) {
        return false;
    }
    const char *fmt = attr_str(g, "data_format", NULL);
    if (!fmt || !persistent_bn_ok(r, g, fmt)) {
        return false;
    }
    if (attr_type(g, "U") != FL_DT_FLOAT) {
        return false;
    }
    fl_node *rg = in_node(g, 0);
    if (is_removed(rg) || !is_op(rg, "ReluGrad") || rg->n_inputs < 2 || has_ctrl(r, rg) ||
        is_preserved(rg)) {
        return false;
    }
    fl_node *fwd_bn, *fwd_add;
    fl_input side = {NULL, 0};
    if (!match_bn_ex(r, in_node(rg, 1), &fwd_bn, &fwd_add, &side)) {
        return false;
    }
    size_t uses = fanout(r, rg, 0);
    bool with_side;
    if (!fwd_add && uses == 1) {
        with_side = false;
    } else if (fwd_add && uses == 2 && in_node(g, 5) == fwd_bn) {
        with_side = true;
    } else {
        return false;
    }
    fl__ledger_note(r->pc, "fused_batch_norm_grad_ex", g, "ReluGrad+%s -> _FusedBatchNormGradEx%s",
                    g->op, with_side ? " (side input)" : "");
    fl_input in[8] = {rg->inputs[0], g->inputs[1], g->inputs[2],      g->inputs[3],
                      g->inputs[4],  g->inputs[5], fwd_bn->inputs[2], rg->inputs[1]};
    const char *dev = g->device;
    fl_node *f = replace_root(r, g, "_FusedBatchNormGradEx", dev, 8, in, 6);
    if (!f) {
        return false;
    }
    copy_attr(r, f, g, "T", NULL);
    copy_attr(r, f, g, "is_training", NULL);
    copy_attr(r, f, g, "data_format", NULL);
    copy_attr(r, f, g, "epsilon", NULL);
    set_attr(r, f, fl__attr_make_type(r->g, "U", attr_type(g, "U")));
    set_attr(r, f, fl__attr_make_str(r->g, "activation_mode", "Relu"));
    set_attr(r, f, fl__attr_make_int(r->g, "num_side_inputs", with_side ? 1 : 0));
    if (with_side) {
        fl_input id_in = {f, 5};
        fl_node *id = replace_root(r, rg, "Identity", dev, 1, &id_in, 1);
        if (!id) {
            return false;
        }
        copy_attr(r, id, g, "T", NULL);
    } else {
        drop(r, rg);
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* FusedBatchNorm decomposition                                               */
/* ------------------------------------------------------------------------- */

static fl_node *add_binary(rctx *r, const fl_node *bn, const char *suffix, const char *op,
                           fl_input a, fl_input b, int t) {
    fl_input in[2] = {a, b};
    fl_node *n = add_extra(r, bn->name, suffix, op, bn->device, 2, in);
    if (n) {
        set_attr(r, n, fl__attr_make_type(r->g, "T", t));
    }
    return n;
}

/* Pattern (table row 9): FusedBatchNorm* alone (inference)  =>  primitives:
 * <bn>/Const = epsilon, <bn>/VarPlusEpsilon = Add(var, eps), <bn>/Inv =
 * Rsqrt, <bn>/Scaled = Mul(inv, scale), <bn>/Mul = Mul(x, scaled), <bn>/Mul2 =
 * Mul(mean, scaled), <bn>/Offset = Sub(offset, Mul2), <bn> = Add(Mul,
 * Offset); NCHW/NCDHW first reshape the four vectors to [1,-1,1,1(,1)]
 * (<bn>/NCHWShape, <bn>/NCHWShapedScale, ...Offset, ...Mean, ...Variance).
 * Conditions: T float; is_training present and false; scale and variance
 * known, or at least 4 of the 5 inputs known; no output but 0 consumed. Not
 * device-gated. */
static bool rewrite_bn_decompose(rctx *r, fl_node *bn) {
    if (!is_fused_batch_norm(bn) || bn->n_inputs < 5 || attr_type(bn, "T") != FL_DT_FLOAT) {
        return false;
    }
    const fl_attr *tr = fl__node_attr(bn, "is_training");
    if (!tr || tr->kind != FL_ATTR_B || tr->v.b) {
        return false;
    }
    int known = 0;
    for (int i = 0; i < 5; i++) {
        known += known_input(bn, i);
    }
    if (!((known_input(bn, 1) && known_input(bn, 4)) || known >= 4) || fanout_beyond0(r, bn)) {
        return false;
    }
    fl__ledger_note(r->pc, "batch_norm_decomposition", bn, "%s -> Mul/Add primitives", bn->op);
    fl_graph *g = r->g;
    const int t = FL_DT_FLOAT;
    fl_input x = bn->inputs[0], scale = bn->inputs[1], offset = bn->inputs[2], mean = bn->inputs[3],
             var = bn->inputs[4];
    const char *fmt = attr_str(bn, "data_format", "NHWC");
    bool nchw = strcmp(fmt, "NCHW") == 0, ncdhw = strcmp(fmt, "NCDHW") == 0;
    if (nchw || ncdhw) {
        int64_t rank = nchw ? 4 : 5;
        fl_value *sv = fl__value_new(g->arena, FL_DT_INT32, 1, &rank);
        char *shape_name = fl__arena_printf(g->arena, "%sShape", fmt);
        fl_node *shape = sv && shape_name
                             ? add_extra(r, bn->name, shape_name, "Const", bn->device, 0, NULL)
                             : NULL;
        if (!shape) {
            fail_oom(r);
            return false;
        }
        fl_sym *e = (fl_sym *)sv->ints;
        for (int64_t k = 0; k < rank; k++) {
            e[k] = fl_sym_const(k == 1 ? -1 : 1);
        }
        set_attr(r, shape, fl__attr_make_type(g, "dtype", FL_DT_INT32));
        set_attr(r, shape, fl__attr_make_tensor(g, "value", FL_DT_INT32, 1, &rank, sv));
        if (fl__node_add_ctrl(g, shape, scale.node) != FL_OK) {
            fail_oom(r);
        }
        fl_input *vecs[4] = {&scale, &offset, &mean, &var};
        static const char *const what[4] = {"Scale", "Offset", "Mean", "Variance"};
        for (int k = 0; k < 4; k++) {
            char *nm = fl__arena_printf(g->arena, "%sShaped%s", fmt, what[k]);
            fl_input in[2] = {*vecs[k], {shape, 0}};
            fl_node *rs = nm ? add_extra(r, bn->name, nm, "Reshape", bn->device, 2, in) : NULL;
            if (!rs) {
                fail_oom(r);
                return false;
            }
            set_attr(r, rs, fl__attr_make_type(g, "T", t));
            set_attr(r, rs, fl__attr_make_type(g, "Tshape", FL_DT_INT32));
            *vecs[k] = (fl_input){rs, 0};
        }
    }
    fl_value *ev = fl__value_new(g->arena, FL_DT_FLOAT, 0, NULL);
    fl_node *eps = ev ? add_extra(r, bn->name, "Const", "Const", bn->device, 0, NULL) : NULL;
    if (!eps) {
        fail_oom(r);
        return false;
    }
    fl__value_set_f64(ev, 0, attr_float(bn, "epsilon", 1e-4f));
    set_attr(r, eps, fl__attr_make_type(g, "dtype", t));
    set_attr(r, eps, fl__attr_make_tensor(g, "value", t, 0, NULL, ev));
    fl_node *vpe = add_binary(r, bn, "VarPlusEpsilon", "Add", var, (fl_input){eps, 0}, t);
    fl_node *inv =
        vpe ? add_extra(r, bn->name, "Inv", "Rsqrt", bn->device, 1, &(fl_input){vpe, 0}) : NULL;
    if (!inv) {
        return false;
    }
    set_attr(r, inv, fl__attr_make_type(g, "T", t));
    fl_node *scaled = add_binary(r, bn, "Scaled", "Mul", (fl_input){inv, 0}, scale, t);
    fl_node *mul = scaled ? add_binary(r, bn, "Mul", "Mul", x, (fl_input){scaled, 0}, t) : NULL;
    fl_node *mul2 = mul ? add_binary(r, bn, "Mul2", "Mul", mean, (fl_input){scaled, 0}, t) : NULL;
    fl_node *off = mul2 ? add_binary(r, bn, "Offset", "Sub", offset, (fl_input){mul2, 0}, t) : NULL;
    if (!off) {
        return false;
    }
    fl_input in[2] = {{mul, 0}, {off, 0}};
    fl_node *root = replace_root(r, bn, "Add", bn->device, 2, in, 1);
    if (!root) {
        return false;
    }
    set_attr(r, root, fl__attr_make_type(g, "T", t));
    return true;
}

/* ------------------------------------------------------------------------- */
/* Other stock rules                                                          */
/* ------------------------------------------------------------------------- */

static bool is_comparison(const fl_node *n) {
    return is_op(n, "Equal") || is_op(n, "NotEqual") || is_op(n, "Greater") ||
           is_op(n, "GreaterEqual") || is_op(n, "Less") || is_op(n, "LessEqual");
}

/* Pattern (table row 10): comparison -> Cast  =>  "_<Comparison>WithCast"
 * named after the Cast, inputs of the comparison, T of the comparison.
 * Conditions: Cast with one data input and no control edges; comparison
 * without control edges; both on CPU; comparison T float or bfloat16; Cast
 * SrcT=bool and DstT=T; at most one data consumer of the comparison (Shape,
 * Rank ignored); comparison not preserved. */
static bool rewrite_comparison_cast(rctx *r, fl_node *cast) {
    if (!is_op(cast, "Cast") || has_ctrl(r, cast) || !on_cpu(r, cast) || cast->n_inputs != 1) {
        return false;
    }
    fl_node *cmp = in_node(cast, 0);
    if (is_removed(cmp) || !is_comparison(cmp) || cmp->n_inputs < 2 || has_ctrl(r, cmp) ||
        !on_cpu(r, cmp)) {
        return false;
    }
    int t = attr_type(cmp, "T");
    if (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16) {
        return false;
    }
    if (attr_type(cast, "DstT") != t || attr_type(cast, "SrcT") != FL_DT_BOOL ||
        !one_data_fanout0(r, cmp) || is_preserved(cmp)) {
        return false;
    }
    char *op = fl__arena_printf(r->g->arena, "_%sWithCast", cmp->op);
    if (!op) {
        fail_oom(r);
        return false;
    }
    fl__ledger_note(r->pc, "comparison_cast", cast, "%s+Cast -> %s", cmp->op, op);
    fl_node *f = replace_root(r, cast, op, cmp->device, 2, cmp->inputs, 1);
    if (!f) {
        return false;
    }
    copy_attr(r, f, cmp, "T", NULL);
    drop(r, cmp);
    return true;
}

/* Pattern (table row 8): AsString -> StringToHashBucketFast  =>
 * _TensorToHashBucketFast named after the hash, input of the AsString, T of
 * the AsString, num_buckets of the hash. Conditions: no control edges on
 * either; AsString T int8/16/32/64, width -1 (default), fill "" (default),
 * one consumer, not preserved. */
static bool rewrite_tensor_to_hash_bucket(rctx *r, fl_node *hash) {
    if (!is_op(hash, "StringToHashBucketFast") || hash->n_inputs < 1 || has_ctrl(r, hash)) {
        return false;
    }
    fl_node *as = in_node(hash, 0);
    if (is_removed(as) || !is_op(as, "AsString") || as->n_inputs < 1 || has_ctrl(r, as) ||
        !one_fanout0(r, as) || is_preserved(as)) {
        return false;
    }
    int t = attr_type(as, "T");
    if (t != FL_DT_INT8 && t != FL_DT_INT16 && t != FL_DT_INT32 && t != FL_DT_INT64) {
        return false;
    }
    const fl_attr *w = fl__node_attr(as, "width");
    if (w && (w->kind != FL_ATTR_I || w->v.i != -1)) {
        return false;
    }
    const char *fill = attr_str(as, "fill", "");
    if (fill[0]) {
        return false;
    }
    fl__ledger_note(r->pc, "tensor_to_hash_bucket", hash,
                    "AsString+StringToHashBucketFast -> _TensorToHashBucketFast");
    fl_node *f = replace_root(r, hash, "_TensorToHashBucketFast", hash->device, 1, as->inputs, 1);
    if (!f) {
        return false;
    }
    copy_attr(r, f, as, "T", NULL);
    copy_attr(r, f, hash, "num_buckets", NULL);
    drop(r, as);
    return true;
}

/* Reads input i (any rank, integer dtype) as known integers into out (at
 * most cap elements); false when the value is not fully known or too long. */
static bool int_input(const fl_node *n, int i, int64_t *out, int64_t cap, int64_t *len) {
    if (i >= n->n_inputs) {
        return false;
    }
    const fl_value *v = fl_node_in(n, i)->value;
    if (!v || !v->ints || v->n > cap) {
        return false;
    }
    for (int64_t k = 0; k < v->n; k++) {
        fl_sym e = fl__value_int(v, k);
        if (!fl_sym_is_known(e)) {
            return false;
        }
        out[k] = e.k;
    }
    *len = v->n;
    return true;
}

/* Pattern (table row 11): SpaceToBatchND -> Conv2D (DepthwiseConv2dNative
 * with oneDNN) -> BatchToSpaceND  =>  the conv op named after the
 * BatchToSpaceND, inputs [SpaceToBatchND's input, filter], dilations [1, b0,
 * b1, 1], padding SAME when any (padding - crop) != 0, else the conv's.
 * Conditions: NHWC; block shapes known, 2 elements, equal; paddings and crops
 * known 2x2; no control edges; SpaceToBatchND and conv one consumer, not
 * preserved. Like FindDilatedConv, the conv's strides are not checked (a
 * strided conv is rewritten too). Ours: the two block shapes must also be
 * equal in value (TensorFlow compares only their shapes and takes the
 * dilations from the BatchToSpaceND's), and the block shape, paddings and
 * crops may be any known values (TensorFlow: Const nodes). Not
 * device-gated. */
static bool rewrite_dilated_conv(rctx *r, fl_node *b2s) {
    if (!is_op(b2s, "BatchToSpaceND") || b2s->n_inputs < 3 || has_ctrl(r, b2s)) {
        return false;
    }
    fl_node *c = in_node(b2s, 0);
    if (is_removed(c) || !(is_conv2d(c) || (r->onednn && is_depthwise(c))) || c->n_inputs < 2 ||
        has_ctrl(r, c) || !one_fanout0(r, c) || is_preserved(c)) {
        return false;
    }
    if (strcmp(attr_str(c, "data_format", "NHWC"), "NHWC") != 0) {
        return false;
    }
    fl_node *s2b = in_node(c, 0);
    if (is_removed(s2b) || !is_op(s2b, "SpaceToBatchND") || s2b->n_inputs < 3 || has_ctrl(r, s2b) ||
        !one_fanout0(r, s2b) || is_preserved(s2b)) {
        return false;
    }
    int64_t bs1[4], bs2[4], pad[4], crop[4], n1, n2, np, nc;
    if (!int_input(s2b, 1, bs1, 4, &n1) || !int_input(b2s, 1, bs2, 4, &n2) || n1 != 2 || n2 != 2 ||
        bs1[0] != bs2[0] || bs1[1] != bs2[1]) {
        return false;
    }
    if (!int_input(s2b, 2, pad, 4, &np) || !int_input(b2s, 2, crop, 4, &nc) || np != 4 || nc != 4) {
        return false;
    }
    bool same = false;
    for (int k = 0; k < 4; k++) {
        same |= pad[k] - crop[k] != 0;
    }
    fl__ledger_note(r->pc, "dilated_conv", b2s, "SpaceToBatchND+%s+BatchToSpaceND -> %s", c->op,
                    c->op);
    fl_input in[2] = {s2b->inputs[0], c->inputs[1]};
    fl_node *f = replace_root(r, b2s, c->op, c->device, 2, in, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        set_attr(r, f, c->attrs[i]);
    }
    int64_t dil[4] = {1, bs1[0], bs1[1], 1};
    set_attr(r, f, fl__attr_make_ints(r->g, "dilations", 4, dil));
    if (same) {
        set_attr(r, f, fl__attr_make_str(r->g, "padding", "SAME"));
    }
    drop(r, c);
    drop(r, s2b);
    return true;
}

/* ------------------------------------------------------------------------- */
/* oneDNN-only rules (table 2.4)                                              */
/* ------------------------------------------------------------------------- */

/* Pattern (row 15, and row 13 with an activation): Conv2D | Conv3D | MatMul
 * -> BiasAdd -> Add/AddV2 (| AddN of 2) (-> activation, not Tanh/Sigmoid; no
 * MatMul with activation)  =>  fused contraction named after the Add (the
 * activation), inputs [x, filter, bias, other addend], fused_ops=[BiasAdd,
 * Add(, act)], num_args=2. Conditions (FindContractionWithBiasAddAndAdd /
 * ...AndAddActivation): oneDNN; the Add (and the activation) on CPU with T
 * float/bf16 and no control edges; an Add/AddV2 with two inputs of
 * symbolically equal shape, or an AddN of exactly two; with an activation
 * the Add has one consumer and is not preserved; the BiasAdd matches
 * FindContractionWithBias WITHOUT the device check (TensorFlow checks no
 * placement, dtype or format of the contraction here), has one consumer,
 * is not preserved and shares T with the Add; LeakyRelu only after convs.
 * Ours: a DepthwiseConv2dNative contraction, or a MatMul with an activation,
 * is refused (TensorFlow would emit a node without an op for them). */
static bool rewrite_contraction_bias_add(rctx *r, fl_node *root) {
    if (!r->onednn || has_ctrl(r, root) || !on_cpu(r, root) || !t_float_or_bf16(root)) {
        return false;
    }
    fl_node *act = NULL, *add = root;
    if (is_activation(r, root)) {
        if (is_op(root, "Tanh") || is_op(root, "Sigmoid")) {
            return false;
        }
        act = root;
        add = in_node(root, 0);
        if (!add || is_removed(add) || has_ctrl(r, add) || !one_fanout0(r, add) ||
            is_preserved(add) || !on_cpu(r, add) || !t_float_or_bf16(add)) {
            return false;
        }
    }
    if (add->n_inputs != 2) {
        return false;
    }
    if (!is_op(add, "AddN") &&
        !(is_add(add) && shapes_equal(&fl_node_in(add, 0)->shape, &fl_node_in(add, 1)->shape))) {
        return false;
    }
    for (int side = 0; side < 2; side++) {
        fl_node *bias = in_node(add, side), *c;
        int port;
        if (is_removed(bias) || !match_contraction_bias(r, bias, &c, &port, false) ||
            !one_fanout0(r, bias) || is_preserved(bias) || !same_t(bias, add)) {
            continue;
        }
        if (is_depthwise(c) || (act && is_matmul(c)) ||
            (act && is_op(act, "LeakyRelu") && !(is_conv2d(c) || is_conv3d(c)))) {
            return false;
        }
        const char *ops[] = {"BiasAdd", "Add", act ? act->op : ""};
        fl_input args[2] = {bias->inputs[port], add->inputs[1 - side]};
        fl__ledger_note(r->pc, act ? "contraction_bias_add_activation" : "contraction_bias_add",
                        root, "%s+BiasAdd+Add%s%s -> %s", c->op, act ? "+" : "", act ? act->op : "",
                        fused_name_of(c));
        if (!build_fused(r, root, c, args, 2, ops, act ? 3 : 2, 0.0f, act)) {
            return false;
        }
        if (act) {
            drop(r, add);
        }
        drop(r, bias);
        drop(r, c);
        return true;
    }
    return false;
}

/* Pattern (row 23): Mul(x, Sigmoid(x)) (either operand order)  =>  _MklSwish
 * named after the Mul, input [x], T. Conditions: oneDNN; both on CPU; T
 * float/bf16; Sigmoid one consumer, not preserved; no control edges. */
static bool rewrite_swish(rctx *r, fl_node *mul) {
    if (!r->onednn || !is_op(mul, "Mul") || mul->n_inputs != 2 || has_ctrl(r, mul) ||
        !on_cpu(r, mul)) {
        return false;
    }
    int t = attr_type(mul, "T");
    if (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *sig = in_node(mul, s);
        fl_input x = mul->inputs[1 - s];
        if (is_removed(sig) || !is_op(sig, "Sigmoid") || sig->n_inputs < 1 || has_ctrl(r, sig) ||
            !one_fanout0(r, sig) || is_preserved(sig) || !on_cpu(r, sig)) {
            continue;
        }
        if (sig->inputs[0].node != x.node || sig->inputs[0].port != x.port) {
            continue;
        }
        fl__ledger_note(r->pc, "swish", mul, "Mul(x, Sigmoid(x)) -> _MklSwish");
        fl_node *f = replace_root(r, mul, "_MklSwish", mul->device, 1, &x, 1);
        if (!f) {
            return false;
        }
        copy_attr(r, f, mul, "T", NULL);
        drop(r, sig);
        return true;
    }
    return false;
}

/* Pattern (row 14, FindContractionWithActivation): _FusedConv2D or
 * _FusedConv3D -> LeakyRelu | _MklFusedMish  =>  a copy of the fused conv
 * (op, inputs, attrs, device) named after the activation, with the
 * activation appended to its fused_ops ("Mish" for _MklFusedMish) and, for
 * LeakyRelu, leakyrelu_alpha = its alpha. Conditions: oneDNN; no control
 * edges on the activation. As current remapper.cc: a plain Conv2D is not
 * taken (TF 2.11/2.12 also took Conv2D, making fused_ops=[act], num_args 0),
 * and neither placement nor T is checked. Ours, so that no input dangles:
 * the fused conv has no control edges, no consumer but the activation and
 * is not preserved (TensorFlow deletes it unconditionally). */
static bool rewrite_conv_leakyrelu(rctx *r, fl_node *act) {
    bool mish = is_op(act, "_MklFusedMish");
    if (!r->onednn || !(is_op(act, "LeakyRelu") || mish) || act->n_inputs < 1 || has_ctrl(r, act)) {
        return false;
    }
    fl_node *c = in_node(act, 0);
    if (is_removed(c) || !(is_op(c, "_FusedConv2D") || is_op(c, "_FusedConv3D")) ||
        act->inputs[0].port != 0 || c->n_inputs < 2 || c->n_inputs > 8 || has_ctrl(r, c) ||
        !one_fanout0(r, c) || fanout_beyond0(r, c) || is_preserved(c)) {
        return false;
    }
    const fl_attr *fo = fl__node_attr(c, "fused_ops");
    const char *ops[8];
    size_t n_ops = 0;
    if (fo) {
        if (fo->kind != FL_ATTR_LIST || fo->n > 6 ||
            (fo->list_kind != FL_ATTR_S && fo->list_kind != FL_ATTR_NONE)) {
            return false;
        }
        for (size_t k = 0; k < fo->n; k++) {
            ops[n_ops++] = fo->v.list.s[k].p;
        }
    }
    ops[n_ops++] = mish ? "Mish" : "LeakyRelu";
    fl__ledger_note(r->pc, "fused_conv_activation", act, "%s+%s -> %s", c->op, act->op, c->op);
    fl_node *f = replace_root(r, act, c->op, c->device, c->n_inputs, c->inputs, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        set_attr(r, f, c->attrs[i]);
    }
    set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", n_ops, ops));
    if (!mish) {
        set_attr(r, f,
                 fl__attr_make_float(r->g, "leakyrelu_alpha", attr_float(act, "alpha", 0.2f)));
    }
    drop(r, c);
    return true;
}

/* ------------------------------------------------------------------------- */
/* oneDNN pattern-matcher rules (rows 16-22)                                  */
/* ------------------------------------------------------------------------- */

/* The subgraph matcher's removal check for an intermediate node: no control
 * edges, not preserved, every data use (any port) by one of `inside`. */
static bool removable(const rctx *r, const fl_node *n, const fl_node *const *inside, int k) {
    if (!n || is_removed(n) || has_ctrl(r, n) || is_preserved(n) || n->id >= r->n0) {
        return false;
    }
    for (int p = 0; p < n->n_outputs; p++) {
        size_t cnt;
        const fl_use *u = fl__uses_of(&r->uses, n, p, &cnt);
        for (size_t i = 0; i < cnt; i++) {
            bool in = false;
            for (int j = 0; j < k && !in; j++) {
                in = u[i].node == inside[j];
            }
            if (!in) {
                return false;
            }
        }
    }
    return true;
}

static bool same_input(fl_input a, fl_input b) {
    return a.node == b.node && a.port == b.port;
}

/* The one-element float value of a Const (or of a Cast of a Const when
 * through_cast), as VerifyConstants reads it; false when not such a node. */
static bool const_scalar(const fl_node *n, bool through_cast, bool scalar_only, double *v) {
    if (through_cast && is_op(n, "Cast") && n->n_inputs == 1) {
        n = in_node(n, 0);
    }
    if (!n || !is_op(n, "Const") || n->n_outputs < 1) {
        return false;
    }
    const fl_value *val = n->outputs[0].value;
    if (!val || val->n != 1 || (scalar_only && val->rank != 0)) {
        return false;
    }
    return fl__value_f64(val, 0, v);
}

/* Pattern (row 21): Maximum(Mul(x, alpha), x) (operands of both in either
 * order)  =>  LeakyRelu named after the Maximum, input [x], T, alpha.
 * Conditions: oneDNN; Maximum T half/bf16/float/double, no control inputs;
 * alpha a scalar Const (or Cast of one) >= 0; the Mul removable. */
static bool rewrite_mul_maximum(rctx *r, fl_node *max) {
    if (!r->onednn || !is_op(max, "Maximum") || max->n_inputs != 2 || max->n_ctrl > 0) {
        return false;
    }
    int t = attr_type(max, "T");
    if (t != FL_DT_HALF && t != FL_DT_BFLOAT16 && t != FL_DT_FLOAT && t != FL_DT_DOUBLE) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul = in_node(max, s);
        fl_input x = max->inputs[1 - s];
        if (!is_op(mul, "Mul") || mul->n_inputs != 2 ||
            !removable(r, mul, (const fl_node *[]){max}, 1)) {
            continue;
        }
        for (int m = 0; m < 2; m++) {
            double alpha;
            if (!same_input(mul->inputs[m], x) ||
                !const_scalar(in_node(mul, 1 - m), true, true, &alpha) || alpha < 0) {
                continue;
            }
            fl__ledger_note(r->pc, "mul_maximum", max, "Maximum(x, Mul(x, alpha)) -> LeakyRelu");
            fl_node *f = replace_root(r, max, "LeakyRelu", max->device, 1, &x, 1);
            if (!f) {
                return false;
            }
            copy_attr(r, f, max, "T", NULL);
            set_attr(r, f, fl__attr_make_float(r->g, "alpha", (float)alpha));
            drop(r, mul);
            return true;
        }
    }
    return false;
}

/* Pattern (row 19): Mul(Tanh(Softplus(x)), x) (either operand order)  =>
 * _MklFusedMish named after the Mul, input [x], T. Conditions: oneDNN; Mul on
 * CPU, T float/bf16, no control inputs; Tanh and Softplus removable. */
static bool rewrite_mish(rctx *r, fl_node *mul) {
    if (!r->onednn || !is_op(mul, "Mul") || mul->n_inputs != 2 || mul->n_ctrl > 0 ||
        !on_cpu(r, mul) || !t_float_or_bf16(mul)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *tanh = in_node(mul, s), *sp = in_node(tanh, 0);
        fl_input x = mul->inputs[1 - s];
        if (!is_op(tanh, "Tanh") || !sp || !is_op(sp, "Softplus") || sp->n_inputs != 1 ||
            !same_input(sp->inputs[0], x) || !removable(r, tanh, (const fl_node *[]){mul}, 1) ||
            !removable(r, sp, (const fl_node *[]){tanh}, 1)) {
            continue;
        }
        fl__ledger_note(r->pc, "mish", mul, "Mul(x, Tanh(Softplus(x))) -> _MklFusedMish");
        fl_node *f = replace_root(r, mul, "_MklFusedMish", mul->device, 1, &x, 1);
        if (!f) {
            return false;
        }
        copy_attr(r, f, mul, "T", NULL);
        drop(r, tanh);
        drop(r, sp);
        return true;
    }
    return false;
}

/* Pattern (row 22): Mul(Sigmoid(y), y) with y = BiasAdd(Conv2D(x, w), b) or
 * y = FusedBatchNorm/V2/V3(Conv2D(x, w), scale, offset, mean, var)  =>
 * _FusedConv2D named after the Mul (device of the Mul), inputs [x, w, b] or
 * [x, w, scale, offset, mean, var], fused_ops [BiasAdd|FusedBatchNorm,
 * _MklSwish], num_args 1 or 4, epsilon of the BN. Conditions: oneDNN; Mul
 * T float/bf16 on CPU, no control inputs; Sigmoid, y and the Conv2D
 * removable; Conv2D CPU-compatible; BN: is_training present and false, V2/V3
 * with U and T float. */
static bool rewrite_conv_swish(rctx *r, fl_node *mul) {
    if (!r->onednn || !is_op(mul, "Mul") || mul->n_inputs != 2 || mul->n_ctrl > 0 ||
        !on_cpu(r, mul) || !t_float_or_bf16(mul)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *sig = in_node(mul, s), *y = in_node(mul, 1 - s);
        if (!is_op(sig, "Sigmoid") || sig->n_inputs != 1 || sig->inputs[0].node != y ||
            sig->inputs[0].port != 0 || mul->inputs[1 - s].port != 0) {
            continue;
        }
        bool bn = is_fused_batch_norm(y);
        if (!(is_op(y, "BiasAdd") || bn) || y->n_inputs != (bn ? 5 : 2)) {
            continue;
        }
        fl_node *c = in_node(y, 0);
        if (!is_conv2d(c) || c->n_inputs != 2 || !removable(r, sig, (const fl_node *[]){mul}, 1) ||
            !removable(r, y, (const fl_node *[]){mul, sig}, 2) ||
            !removable(r, c, (const fl_node *[]){y}, 1) || !cpu_contraction_ok(r, c)) {
            continue;
        }
        if (bn) {
            const fl_attr *tr = fl__node_attr(y, "is_training");
            if (!tr || tr->kind != FL_ATTR_B || tr->v.b) {
                continue;
            }
            if (!is_op(y, "FusedBatchNorm") &&
                (attr_type(y, "U") != FL_DT_FLOAT || attr_type(y, "T") != FL_DT_FLOAT)) {
                continue;
            }
        }
        const char *ops[] = {bn ? "FusedBatchNorm" : "BiasAdd", "_MklSwish"};
        fl__ledger_note(r->pc, "conv2d_swish", mul, "Conv2D+%s+Sigmoid+Mul -> _FusedConv2D", y->op);
        fl_node *f = build_fused(r, mul, c, &y->inputs[1], bn ? 4 : 1, ops, 2,
                                 bn ? attr_float(y, "epsilon", 1e-4f) : 0.0f, NULL);
        if (!f) {
            return false;
        }
        f->device = mul->device ? mul->device : "";
        drop(r, sig);
        drop(r, y);
        drop(r, c);
        return true;
    }
    return false;
}

/* Pattern (row 16): Pad(x, paddings) -> Conv3D or _FusedConv3D  =>
 * _FusedConv3D named after the conv: all its attrs and inputs, input 0 the
 * Pad's input, padding_list = the paddings (flattened), num_args 0 when
 * absent. Conditions: oneDNN; conv on CPU, T float/bf16, no control inputs;
 * the op exactly Pad, same T, paddings known; the Pad removable (our
 * addition: TensorFlow's matcher would also drop a Pad with other
 * consumers... it does not: the matcher keeps kRemove nodes exclusive). */
static bool rewrite_pad_conv3d(rctx *r, fl_node *c) {
    if (!r->onednn || !(is_conv3d(c) || is_op(c, "_FusedConv3D")) || c->n_inputs < 2 ||
        c->n_ctrl > 0 || !on_cpu(r, c) || !t_float_or_bf16(c)) {
        return false;
    }
    fl_node *pad = in_node(c, 0);
    if (!is_op(pad, "Pad") || pad->n_inputs != 2 || !same_t(c, pad) ||
        !removable(r, pad, (const fl_node *[]){c}, 1)) {
        return false;
    }
    int64_t pl[10], n;
    if (!int_input(pad, 1, pl, 10, &n) || n != 10) {
        return false;
    }
    fl__ledger_note(r->pc, "pad_conv3d", c, "Pad+%s -> _FusedConv3D", c->op);
    fl_input in[8];
    int k = c->n_inputs < 8 ? c->n_inputs : 8;
    memcpy(in, c->inputs, (size_t)k * sizeof(fl_input));
    in[0] = pad->inputs[0];
    fl_node *f = replace_root(r, c, "_FusedConv3D", c->device, k, in, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        set_attr(r, f, c->attrs[i]);
    }
    if (!fl__node_attr(c, "num_args")) {
        set_attr(r, f, fl__attr_make_int(r->g, "num_args", 0));
    }
    set_attr(r, f, fl__attr_make_ints(r->g, "padding_list", 10, pl));
    drop(r, pad);
    return true;
}

/* Pattern (row 18): HardSwish x * Relu6(x + 3) * 1/6 (Mul(Mul(Relu6(Add(3,
 * x)), 1/6), x) or Mul(Mul(Relu6(Add(3, x)), x), 1/6), commutative operands)
 * on x = BiasAdd(Conv2D | DepthwiseConv2dNative)  =>  _FusedConv2D /
 * _FusedDepthwiseConv2dNative named after the outer Mul, inputs [x, w, b],
 * fused_ops [BiasAdd, _FusedHardSwish], num_args 1; the two constants go too.
 * Conditions: oneDNN; no control edges on the root; constants Const 3 and
 * 0.16666 (within 1e-2); the inner nodes and constants removable, the BiasAdd
 * with at most its two uses in the pattern; the conv CPU-compatible. */
static bool rewrite_hard_swish(rctx *r, fl_node *out) {
    if (!r->onednn || !is_op(out, "Mul") || out->n_inputs != 2 || has_ctrl(r, out)) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *inner = in_node(out, s);
        if (!is_op(inner, "Mul") || inner->n_inputs != 2) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *relu6 = in_node(inner, q);
            if (!is_op(relu6, "Relu6") || relu6->n_inputs != 1) {
                continue;
            }
            fl_node *add = in_node(relu6, 0);
            if (!is_add(add) || add->n_inputs != 2) {
                continue;
            }
            /* one of (inner's other operand, out's other operand) is x, the
             * other the 1/6 constant */
            fl_input o1 = inner->inputs[1 - q], o2 = out->inputs[1 - s];
            for (int a = 0; a < 2; a++) {
                fl_input x = add->inputs[1 - a];
                double three, sixth;
                fl_input cst = same_input(o1, x) ? o2 : o1;
                fl_node *c3 = in_node(add, a);
                if (!(same_input(o1, x) || same_input(o2, x)) ||
                    !const_scalar(c3, false, false, &three) ||
                    !const_scalar(cst.node, false, false, &sixth) || fabs(three - 3.0) > 1e-2 ||
                    fabs(sixth - 0.16666) > 1e-2 || x.port != 0 ||
                    !removable(r, c3, (const fl_node *[]){add}, 1) ||
                    !removable(r, cst.node, (const fl_node *[]){inner, out}, 2)) {
                    continue;
                }
                fl_node *bias = x.node, *c;
                int port;
                const fl_node *users[] = {add, inner, out};
                if (!removable(r, inner, (const fl_node *[]){out}, 1) ||
                    !removable(r, relu6, (const fl_node *[]){inner}, 1) ||
                    !removable(r, add, (const fl_node *[]){relu6}, 1) ||
                    !match_contraction_bias(r, bias, &c, &port, false) || is_preserved(bias) ||
                    fanout(r, bias, 0) > 2 || !removable(r, bias, users, 3) ||
                    !same_t(inner, bias) || !(is_conv2d(c) || is_depthwise(c)) ||
                    !cpu_contraction_ok(r, c)) {
                    continue;
                }
                static const char *const ops[] = {"BiasAdd", "_FusedHardSwish"};
                fl__ledger_note(r->pc, "contraction_bias_hard_swish", out,
                                "%s+BiasAdd+HardSwish -> %s", c->op, fused_name_of(c));
                if (!build_fused(r, out, c, &bias->inputs[port], 1, ops, 2, 0.0f, NULL)) {
                    return false;
                }
                drop(r, inner);
                drop(r, relu6);
                drop(r, add);
                drop(r, bias);
                drop(r, c);
                drop(r, c3);
                drop(r, cst.node);
                return true;
            }
        }
    }
    return false;
}

/* Pattern (row 20): AddV2(Mul(BatchMatMulV2(a, b), m), addend) (operands of
 * AddV2 and Mul in either order)  =>  _MklFusedBatchMatMulV2 named after the
 * AddV2 (device of the BatchMatMulV2), inputs [a, b, m, addend], T, adj_x,
 * adj_y, fused_ops [Mul, Add], num_args 2. Conditions: oneDNN; no control
 * inputs on the AddV2; Mul and BatchMatMulV2 removable; m has one element;
 * the BatchMatMulV2 on CPU with T float/bf16 and a rank-4 output; the addend
 * rank 4 with dim 1 equal to 1. */
static bool rewrite_fused_batch_matmul(rctx *r, fl_node *root) {
    if (!r->onednn || !is_op(root, "AddV2") || root->n_inputs != 2 || root->n_ctrl > 0) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul = in_node(root, s);
        if (!is_op(mul, "Mul") || mul->n_inputs != 2) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *bmm = in_node(mul, q);
            if (!is_op(bmm, "BatchMatMulV2") || bmm->n_inputs != 2 ||
                !removable(r, mul, (const fl_node *[]){root}, 1) ||
                !removable(r, bmm, (const fl_node *[]){mul}, 1)) {
                continue;
            }
            const fl_shape *ms = &fl_node_in(mul, 1 - q)->shape;
            const fl_shape *bs = &bmm->outputs[0].shape, *as = &fl_node_in(root, 1 - s)->shape;
            fl_sym me;
            if (fl__op_num_elements(r->pc->c, mul, ms, &me) != FL_OK || !fl_sym_is_known(me) ||
                me.k != 1 || !on_cpu(r, bmm) || !t_float_or_bf16(bmm) || bs->rank != 4 ||
                as->rank != 4 || !fl_sym_is_known(as->dims[1]) || as->dims[1].k != 1) {
                continue;
            }
            fl__ledger_note(r->pc, "fused_batch_matmul", root,
                            "BatchMatMulV2+Mul+AddV2 -> _MklFusedBatchMatMulV2");
            fl_input in[4] = {bmm->inputs[0], bmm->inputs[1], mul->inputs[1 - q],
                              root->inputs[1 - s]};
            fl_node *f = replace_root(r, root, "_MklFusedBatchMatMulV2", bmm->device, 4, in, 1);
            if (!f) {
                return false;
            }
            fl_attr fa = fl__attr_make_bool(r->g, "adj_x", false);
            fl_attr fb = fl__attr_make_bool(r->g, "adj_y", false);
            copy_attr(r, f, bmm, "T", NULL);
            copy_attr(r, f, bmm, "adj_x", &fa);
            copy_attr(r, f, bmm, "adj_y", &fb);
            static const char *const ops[] = {"Mul", "Add"};
            set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", 2, ops));
            set_attr(r, f, fl__attr_make_int(r->g, "num_args", 2));
            set_attr(r, f, fl__attr_make_float(r->g, "epsilon", 0.0f));
            drop(r, mul);
            drop(r, bmm);
            return true;
        }
    }
    return false;
}

/* Pattern (row 17, exact form): Mul(Mul(AddV2(Erf(Mul(y, c1)), c2), c3), y)
 * or Mul(Add|AddV2(Erf(Mul(y, c1)), c2), Mul(y, c3)), y = BiasAdd(MatMul(a,
 * b), bias), constants c1 0.707106, c2 1, c3 0.5 (Const or Cast, within
 * 1e-2)  =>  _FusedMatMul named after the outer Mul, inputs [a, b, bias],
 * fused_ops [BiasAdd, GeluExact], num_args 1. Conditions: oneDNN; the inner
 * nodes, the BiasAdd and the MatMul removable (no control edges, uses inside
 * the pattern, not preserved); MatMul CPU-compatible. */
static bool gelu_const(const fl_node *n, double want) {
    double v;
    return n && (is_op(n, "Const") || is_op(n, "Cast")) && const_scalar(n, true, false, &v) &&
           fabs(v - want) <= 1e-2;
}

/* Mul(y, c) with y a BiasAdd (commutative); *y set. */
static bool mul_by_const(const fl_node *m, double c, fl_node **y) {
    if (!is_op(m, "Mul") || m->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        if (is_op(in_node(m, s), "BiasAdd") && m->inputs[s].port == 0 &&
            gelu_const(in_node(m, 1 - s), c)) {
            *y = in_node(m, s);
            return true;
        }
    }
    return false;
}

/* Add|AddV2(Erf(Mul(y, 0.707106)), 1); *erf, *mulc, *y set. */
static bool erf_plus_one(const fl_node *a, bool v2_only, fl_node **erf, fl_node **mulc,
                         fl_node **y) {
    if (!(v2_only ? is_op(a, "AddV2") : is_add(a)) || a->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *e = in_node(a, s);
        if (is_op(e, "Erf") && e->n_inputs == 1 && gelu_const(in_node(a, 1 - s), 1.0) &&
            mul_by_const(in_node(e, 0), 0.707106, y)) {
            *erf = e;
            *mulc = in_node(e, 0);
            return true;
        }
    }
    return false;
}

static bool rewrite_matmul_gelu_exact(rctx *r, fl_node *out) {
    if (!r->onednn || !is_op(out, "Mul") || out->n_inputs != 2 || out->n_ctrl > 0) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *a = in_node(out, s), *b = in_node(out, 1 - s);
        fl_node *erf, *mulc, *y = NULL, *y2 = NULL, *half = NULL, *plus = NULL;
        /* form 1: Mul(Mul(AddV2(erf..), 0.5), y) */
        if (is_op(a, "Mul") && a->n_inputs == 2) {
            for (int q = 0; q < 2 && !y2; q++) {
                if (erf_plus_one(in_node(a, q), true, &erf, &mulc, &y) &&
                    gelu_const(in_node(a, 1 - q), 0.5) && is_op(b, "BiasAdd") &&
                    out->inputs[1 - s].port == 0) {
                    y2 = b;
                    half = a;
                    plus = in_node(a, q);
                }
            }
        }
        /* form 2: Mul(Add|AddV2(erf..), Mul(y, 0.5)) */
        if (!y2 && erf_plus_one(a, false, &erf, &mulc, &y) && mul_by_const(b, 0.5, &y2)) {
            half = b;
            plus = a;
        }
        if (!y2 || y2 != y) {
            continue;
        }
        fl_node *mm = in_node(y, 0);
        const fl_node *y_users[] = {mulc, out, half};
        if (!is_matmul(mm) || y->n_inputs != 2 || y->inputs[0].port != 0 ||
            !removable(r, half, (const fl_node *[]){out}, 1) ||
            !removable(r, plus, (const fl_node *[]){out, half}, 2) ||
            !removable(r, erf, (const fl_node *[]){plus}, 1) ||
            !removable(r, mulc, (const fl_node *[]){erf}, 1) || !removable(r, y, y_users, 3) ||
            !removable(r, mm, (const fl_node *[]){y}, 1) || !cpu_contraction_ok(r, mm)) {
            continue;
        }
        static const char *const ops[] = {"BiasAdd", "GeluExact"};
        fl__ledger_note(r->pc, "matmul_bias_gelu_exact", out,
                        "MatMul+BiasAdd+Gelu -> _FusedMatMul");
        if (!build_fused(r, out, mm, &y->inputs[1], 1, ops, 2, 0.0f, NULL)) {
            return false;
        }
        drop(r, half);
        drop(r, plus);
        drop(r, erf);
        drop(r, mulc);
        drop(r, y);
        drop(r, mm);
        return true;
    }
    return false;
}

/* Pattern (row 17, approximate form; FindMatMulBiasAddAndGelu's second
 * pattern):
 *   Mul(Mul(AddV2(Tanh(Mul(AddV2(m, p), c_sqrt)), c_one), c_half), m)
 * with m a _FusedMatMul whose fused_ops are exactly [BiasAdd] (the first
 * remapper run fused MatMul+BiasAdd; this matches in the next run) and p the
 * cube term: on CPU Mul(Mul(c_emp, m), Square(m)) (ArithmeticOptimizer's
 * ConvertPow and MinimizeBroadcasts rewrote c_emp * Pow(m, 3) into it), on
 * GPU (root placed on GPU) Mul(Pow(m, c_three), c_emp). Binary ops match in
 * either operand order (their two operands always differ in op type, so
 * this equals TensorFlow's one-step look-ahead). Constants: Const nodes (no
 * Cast in this pattern) holding one float/bfloat16/half element within 1e-2
 * of c_sqrt 0.797884, c_one 1, c_half 0.5, c_emp 0.044715, c_three 3 (GPU)
 *   =>  _FusedMatMul named after the root, device of m, inputs m's [a, b,
 * bias], T, transpose_a, transpose_b copied, fused_ops [BiasAdd,
 * GeluApproximate], num_args 1, epsilon 0.
 * Conditions: oneDNN (cublasLt and cuDNN runtime fusion are off); no control
 * input on the root; every other matched op removable (no control edges,
 * uses inside the pattern, not preserved); not transpose_a when m is on CPU.
 * No dtype check (TensorFlow's: m was already fused for a compatible T). */
static bool gelu_approx_const(const fl_node *n, double want) {
    double v;
    if (!n || !is_op(n, "Const") || !const_scalar(n, false, false, &v)) {
        return false;
    }
    int dt = n->outputs[0].value->dtype;
    return (dt == FL_DT_FLOAT || dt == FL_DT_BFLOAT16 || dt == FL_DT_HALF) &&
           fabs(v - want) <= 1e-2;
}

/* A binary `op` reading node a-op `op_a` and b-op `op_b` in either order:
 * the operand of op_a in *a, of op_b in *b (port 0 both). */
static bool binary_of(const fl_node *n, const char *op, const char *op_a, const char *op_b,
                      fl_node **a, fl_node **b) {
    if (!n || !is_op(n, op) || n->n_inputs != 2) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *x = in_node(n, s), *y = in_node(n, 1 - s);
        if (is_op(x, op_a) && is_op(y, op_b) && n->inputs[s].port == 0 &&
            n->inputs[1 - s].port == 0) {
            *a = x;
            *b = y;
            return true;
        }
    }
    return false;
}

static bool rewrite_matmul_gelu_approx(rctx *r, fl_node *out) {
    fl_node *half, *m, *plus, *c_half, *tanh_, *c_one, *msq, *c_sqrt, *addm, *m2, *cube;
    if (!r->onednn || out->n_ctrl > 0 || !binary_of(out, "Mul", "Mul", "_FusedMatMul", &half, &m) ||
        !binary_of(half, "Mul", "AddV2", "Const", &plus, &c_half) ||
        !binary_of(plus, "AddV2", "Tanh", "Const", &tanh_, &c_one) || tanh_->n_inputs != 1 ||
        !binary_of(in_node(tanh_, 0), "Mul", "AddV2", "Const", &addm, &c_sqrt) ||
        !binary_of(addm, "AddV2", "_FusedMatMul", "Mul", &m2, &cube) || m2 != m) {
        return false;
    }
    msq = in_node(tanh_, 0);
    bool gpu = on_gpu(r, out);
    fl_node *inner = NULL, *sq_or_pow = NULL, *c_emp = NULL, *c_three = NULL, *x;
    if (gpu) {
        /* Mul(Pow(m, three), c_emp) */
        if (!binary_of(cube, "Mul", "Pow", "Const", &sq_or_pow, &c_emp) ||
            sq_or_pow->n_inputs != 2 || in_node(sq_or_pow, 0) != m ||
            sq_or_pow->inputs[0].port != 0 || !is_op(in_node(sq_or_pow, 1), "Const")) {
            return false;
        }
        c_three = in_node(sq_or_pow, 1);
    } else {
        /* Mul(Mul(c_emp, m), Square(m)) */
        if (!binary_of(cube, "Mul", "Mul", "Square", &inner, &sq_or_pow) ||
            sq_or_pow->n_inputs != 1 || in_node(sq_or_pow, 0) != m ||
            !binary_of(inner, "Mul", "Const", "_FusedMatMul", &c_emp, &x) || x != m) {
            return false;
        }
    }
    const fl_attr *fo = fl__node_attr(m, "fused_ops");
    if (!fo || fo->kind != FL_ATTR_LIST || fo->n != 1 || fo->list_kind != FL_ATTR_S ||
        strcmp(fo->v.list.s[0].p, "BiasAdd") != 0 || m->n_inputs != 3 ||
        (on_cpu(r, m) && attr_bool(m, "transpose_a", false))) {
        return false;
    }
    if (!gelu_approx_const(c_sqrt, 0.797884) || !gelu_approx_const(c_one, 1.0) ||
        !gelu_approx_const(c_half, 0.5) || !gelu_approx_const(c_emp, 0.044715) ||
        (gpu && !gelu_approx_const(c_three, 3.0))) {
        return false;
    }
    const fl_node *m_users_cpu[] = {out, addm, inner, sq_or_pow};
    const fl_node *m_users_gpu[] = {out, addm, sq_or_pow};
    if (!removable(r, half, (const fl_node *[]){out}, 1) ||
        !removable(r, plus, (const fl_node *[]){half}, 1) ||
        !removable(r, tanh_, (const fl_node *[]){plus}, 1) ||
        !removable(r, msq, (const fl_node *[]){tanh_}, 1) ||
        !removable(r, addm, (const fl_node *[]){msq}, 1) ||
        !removable(r, cube, (const fl_node *[]){addm}, 1) ||
        !removable(r, sq_or_pow, (const fl_node *[]){cube}, 1) ||
        (!gpu && !removable(r, inner, (const fl_node *[]){cube}, 1)) ||
        !removable(r, m, gpu ? m_users_gpu : m_users_cpu, gpu ? 3 : 4)) {
        return false;
    }
    fl__ledger_note(r->pc, "matmul_bias_gelu_approximate", out,
                    "_FusedMatMul[BiasAdd]+Gelu(tanh) -> _FusedMatMul");
    fl_input in[3] = {m->inputs[0], m->inputs[1], m->inputs[2]};
    fl_node *f = replace_root(r, out, "_FusedMatMul", m->device, 3, in, 1);
    if (!f) {
        return false;
    }
    fl_attr ta = fl__attr_make_bool(r->g, "transpose_a", false);
    fl_attr tb = fl__attr_make_bool(r->g, "transpose_b", false);
    copy_attr(r, f, m, "T", NULL);
    copy_attr(r, f, m, "transpose_a", &ta);
    copy_attr(r, f, m, "transpose_b", &tb);
    static const char *const ops[] = {"BiasAdd", "GeluApproximate"};
    set_fused_attrs(r, f, ops, 2, 1, 0.0f, NULL);
    drop(r, half);
    drop(r, plus);
    drop(r, tanh_);
    drop(r, msq);
    drop(r, addm);
    drop(r, cube);
    drop(r, sq_or_pow);
    if (!gpu) {
        drop(r, inner);
    }
    drop(r, m);
    return true;
}

/* ------------------------------------------------------------------------- */
/* oneDNN normalisation rules (rows 24, 25)                                   */
/* ------------------------------------------------------------------------- */

/* A node of op op1 (or op2, which may be NULL) with exactly two data
 * inputs. */
static bool binary(const fl_node *n, const char *op1, const char *op2) {
    return n && (is_op(n, op1) || (op2 && is_op(n, op2))) && n->n_inputs == 2;
}

static bool is_const(const fl_node *n) {
    return n && is_op(n, "Const");
}

/* Input i of n is output 0 of `m`. */
static bool feeds(const fl_node *n, int i, const fl_node *m) {
    return i < n->n_inputs && n->inputs[i].node == m && n->inputs[i].port == 0;
}

/* IsCommonNormPattern: output = Add|AddV2(Mul(x, m1), Sub(beta, Mul(m1,
 * mean1))), m1 = Mul(Rsqrt(Add|AddV2(Mean(SquaredDifference(x, mean1),
 * Const), eps)), gamma), mean1 = Mean(x, axes1); gamma, beta, eps, axes1
 * Const; Add/AddV2/Mul operands in either order (SquaredDifference, Sub and
 * Mean as written). Every inner node removable (no control edges, not
 * preserved, uses only inside the match; TensorFlow's matcher passes no
 * preserve set here, we keep ours). */
typedef struct norm_match {
    fl_node *nodes[9]; /* mul0, mul1, rsqrt, add, mean0, sqd, mean1, sub0, mul2 */
    fl_node *gamma, *beta, *eps, *mean1;
    fl_input x;
} norm_match;

static bool match_common_norm(const rctx *r, const fl_node *out, norm_match *m) {
    if (!binary(out, "Add", "AddV2")) {
        return false;
    }
    for (int s = 0; s < 2; s++) {
        fl_node *mul0 = in_node(out, s), *sub0 = in_node(out, 1 - s);
        if (!binary(mul0, "Mul", NULL) || !binary(sub0, "Sub", NULL) || !feeds(out, s, mul0) ||
            !feeds(out, 1 - s, sub0)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_input x = mul0->inputs[q];
            fl_node *mul1 = in_node(mul0, 1 - q);
            if (!binary(mul1, "Mul", NULL) || !feeds(mul0, 1 - q, mul1)) {
                continue;
            }
            for (int t = 0; t < 2; t++) {
                fl_node *rsqrt = in_node(mul1, t), *gamma = in_node(mul1, 1 - t);
                if (!rsqrt || !is_op(rsqrt, "Rsqrt") || rsqrt->n_inputs != 1 ||
                    !feeds(mul1, t, rsqrt) || !is_const(gamma)) {
                    continue;
                }
                fl_node *add = in_node(rsqrt, 0);
                if (!binary(add, "Add", "AddV2") || !feeds(rsqrt, 0, add)) {
                    continue;
                }
                for (int u = 0; u < 2; u++) {
                    fl_node *mean0 = in_node(add, u), *eps = in_node(add, 1 - u);
                    if (!binary(mean0, "Mean", NULL) || !feeds(add, u, mean0) || !is_const(eps) ||
                        !is_const(in_node(mean0, 1))) {
                        continue;
                    }
                    fl_node *sqd = in_node(mean0, 0);
                    if (!binary(sqd, "SquaredDifference", NULL) || !feeds(mean0, 0, sqd) ||
                        !same_input(sqd->inputs[0], x)) {
                        continue;
                    }
                    fl_node *mean1 = in_node(sqd, 1);
                    if (!binary(mean1, "Mean", NULL) || !feeds(sqd, 1, mean1) ||
                        !same_input(mean1->inputs[0], x) || !is_const(in_node(mean1, 1))) {
                        continue;
                    }
                    fl_node *beta = in_node(sub0, 0), *mul2 = in_node(sub0, 1);
                    if (!is_const(beta) || !binary(mul2, "Mul", NULL) || !feeds(sub0, 1, mul2) ||
                        !((feeds(mul2, 0, mul1) && feeds(mul2, 1, mean1)) ||
                          (feeds(mul2, 1, mul1) && feeds(mul2, 0, mean1)))) {
                        continue;
                    }
                    if (!removable(r, mul0, (const fl_node *[]){out}, 1) ||
                        !removable(r, mul1, (const fl_node *[]){mul0, mul2}, 2) ||
                        !removable(r, rsqrt, (const fl_node *[]){mul1}, 1) ||
                        !removable(r, add, (const fl_node *[]){rsqrt}, 1) ||
                        !removable(r, mean0, (const fl_node *[]){add}, 1) ||
                        !removable(r, sqd, (const fl_node *[]){mean0}, 1) ||
                        !removable(r, mean1, (const fl_node *[]){sqd, mul2}, 2) ||
                        !removable(r, sub0, (const fl_node *[]){out}, 1) ||
                        !removable(r, mul2, (const fl_node *[]){sub0}, 1)) {
                        return false;
                    }
                    fl_node *nodes[9] = {mul0, mul1, rsqrt, add, mean0, sqd, mean1, sub0, mul2};
                    memcpy(m->nodes, nodes, sizeof nodes);
                    m->gamma = gamma;
                    m->beta = beta;
                    m->eps = eps;
                    m->mean1 = mean1;
                    m->x = x;
                    return true;
                }
            }
        }
    }
    return false;
}

/* Input i of n as a Const of int32/int64 values (at most cap). */
static bool const_axes(const fl_node *n, int i, int64_t *out, int64_t cap, int64_t *len) {
    int dt = i < n->n_inputs ? fl_dtype_base(fl_node_in(n, i)->dtype) : FL_DT_INVALID;
    return is_const(in_node(n, i)) && (dt == FL_DT_INT32 || dt == FL_DT_INT64) &&
           int_input(n, i, out, cap, len);
}

/* FindInstanceNorm on top of the common pattern: mean1 keep_dims; x of
 * known rank; mean1 T float/bf16 (TF 2.11-2.13; current TF float/half);
 * gamma and beta of equal (known) shape; axes1 int32/int64 with rank - 2
 * elements, [1,2] or [2,3] for 4-D, [1,2,3] or [2,3,4] for 5-D. */
static bool match_instance_norm(const rctx *r, const fl_node *out, norm_match *m, int64_t *axes,
                                int64_t *n_axes) {
    if (!match_common_norm(r, out, m) || !attr_bool(m->mean1, "keep_dims", false) ||
        !t_float_or_bf16(m->mean1)) {
        return false;
    }
    int rank = fl_node_in(m->mean1, 0)->shape.rank;
    if ((rank != 4 && rank != 5) ||
        !shapes_equal(&m->gamma->outputs[0].shape, &m->beta->outputs[0].shape) ||
        !const_axes(m->mean1, 1, axes, 3, n_axes) || *n_axes + 2 != rank) {
        return false;
    }
    for (int64_t k = 0; k < *n_axes; k++) {
        if (axes[k] != axes[0] + k) {
            return false;
        }
    }
    return axes[0] == 1 || axes[0] == 2;
}

/* Pattern (row 25): the common norm pattern with instance-norm axes,
 * optionally followed by Relu | LeakyRelu (root, no control edges; the
 * norm's output then removable too)  =>  _MklFusedInstanceNorm named after
 * the root, device of the norm's output node, inputs [x, gamma, beta], T of
 * the output, epsilon = the eps Const's first element when readable (else
 * absent: op default 1e-4), reduction_axes, with an activation fused_ops
 * [act] (+ leakyrelu_alpha). Conditions: oneDNN; match_instance_norm. x is
 * mean1's input tensor (TensorFlow names the input node, i.e. its output
 * 0). */
static bool rewrite_instance_norm(rctx *r, fl_node *root) {
    if (!r->onednn) {
        return false;
    }
    fl_node *act = NULL, *out = root;
    if (is_op(root, "Relu") || is_op(root, "LeakyRelu")) {
        act = root;
        out = in_node(root, 0);
        if (root->n_inputs != 1 || has_ctrl(r, root) || !feeds(root, 0, out) ||
            !removable(r, out, (const fl_node *[]){root}, 1)) {
            return false;
        }
    }
    norm_match m;
    int64_t axes[3], n_axes;
    if (!match_instance_norm(r, out, &m, axes, &n_axes)) {
        return false;
    }
    fl__ledger_note(r->pc, "instance_norm", root, "instance-norm ops%s%s -> _MklFusedInstanceNorm",
                    act ? "+" : "", act ? act->op : "");
    fl_input in[3] = {m.x, {m.gamma, 0}, {m.beta, 0}};
    fl_node *f = replace_root(r, root, "_MklFusedInstanceNorm", out->device, 3, in, 1);
    if (!f) {
        return false;
    }
    copy_attr(r, f, out, "T", NULL);
    double eps;
    const fl_value *ev = m.eps->outputs[0].value;
    if (ev && ev->n >= 1 && fl__value_f64(ev, 0, &eps)) {
        set_attr(r, f, fl__attr_make_float(r->g, "epsilon", (float)eps));
    }
    set_attr(r, f, fl__attr_make_ints(r->g, "reduction_axes", (size_t)n_axes, axes));
    if (act) {
        const char *ops[] = {act->op};
        set_attr(r, f, fl__attr_make_strs(r->g, "fused_ops", 1, ops));
        if (is_op(act, "LeakyRelu")) {
            set_attr(r, f,
                     fl__attr_make_float(r->g, "leakyrelu_alpha", attr_float(act, "alpha", 0.2f)));
        }
        drop(r, out);
    }
    for (int k = 0; k < 9; k++) {
        drop(r, m.nodes[k]);
    }
    return true;
}

/* Keras LayerNormalization (pattern 1): AddV2(beta, Mul(Reshape(
 * FusedBatchNormV3(Reshape(x, *), Fill(*, Const), Fill(*, Const), empty,
 * empty), *), gamma)), the same zero-element Const as mean and variance,
 * is_training present and true. Removed: Mul, both Reshapes, the BN, both
 * Fills. Sets *x, *gamma, *beta; nodes[0..5]. */
static bool match_layer_norm_keras(const rctx *r, const fl_node *out, fl_input *x, fl_input *gamma,
                                   fl_input *beta, fl_node **nodes) {
    for (int s = 0; s < 2; s++) {
        fl_node *scale = in_node(out, 1 - s);
        if (!binary(scale, "Mul", NULL) || !feeds(out, 1 - s, scale)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *post = in_node(scale, q);
            if (!binary(post, "Reshape", NULL) || !feeds(scale, q, post)) {
                continue;
            }
            fl_node *bn = in_node(post, 0), *pre, *f1, *f2, *empty;
            if (!bn || !is_op(bn, "FusedBatchNormV3") || bn->n_inputs != 5 || !feeds(post, 0, bn)) {
                continue;
            }
            pre = in_node(bn, 0);
            f1 = in_node(bn, 1);
            f2 = in_node(bn, 2);
            empty = in_node(bn, 3);
            if (!binary(pre, "Reshape", NULL) || !binary(f1, "Fill", NULL) ||
                !binary(f2, "Fill", NULL) || !feeds(bn, 0, pre) || !feeds(bn, 1, f1) ||
                !feeds(bn, 2, f2) || !is_const(in_node(f1, 1)) || !is_const(in_node(f2, 1)) ||
                !is_const(empty) || in_node(bn, 4) != empty) {
                continue;
            }
            const fl_attr *tr = fl__node_attr(bn, "is_training");
            fl_sym ne;
            if (!tr || tr->kind != FL_ATTR_B || !tr->v.b ||
                fl__op_num_elements(r->pc->c, empty, &empty->outputs[0].shape, &ne) != FL_OK ||
                !fl_sym_is_known(ne) || ne.k != 0) {
                return false;
            }
            if (!removable(r, scale, (const fl_node *[]){out}, 1) ||
                !removable(r, post, (const fl_node *[]){scale}, 1) ||
                !removable(r, bn, (const fl_node *[]){post}, 1) ||
                !removable(r, pre, (const fl_node *[]){bn}, 1) ||
                !removable(r, f1, (const fl_node *[]){bn}, 1) ||
                !removable(r, f2, (const fl_node *[]){bn}, 1)) {
                return false;
            }
            *x = pre->inputs[0];
            *gamma = scale->inputs[1 - q];
            *beta = out->inputs[s];
            fl_node *n6[6] = {scale, post, bn, pre, f1, f2};
            memcpy(nodes, n6, sizeof n6);
            return true;
        }
    }
    return false;
}

/* Custom LayerNorm (pattern 2): AddV2(beta, Mul(Sub(x, Mean(x, *)),
 * Mul(Rsqrt(AddV2(Mean(Square(d), *), Const eps)), gamma))). TensorFlow's
 * pattern lets Square read any Sub; ours requires the same Sub d. Removed:
 * the eight inner nodes (nodes[0..7]). */
static bool match_layer_norm_custom(const rctx *r, const fl_node *out, fl_input *x, fl_input *gamma,
                                    fl_input *beta, fl_node **nodes) {
    for (int s = 0; s < 2; s++) {
        fl_node *mul = in_node(out, 1 - s);
        if (!binary(mul, "Mul", NULL) || !feeds(out, 1 - s, mul)) {
            continue;
        }
        for (int q = 0; q < 2; q++) {
            fl_node *d = in_node(mul, q), *scale = in_node(mul, 1 - q);
            if (!binary(d, "Sub", NULL) || !binary(scale, "Mul", NULL) || !feeds(mul, q, d) ||
                !feeds(mul, 1 - q, scale)) {
                continue;
            }
            fl_node *mean = in_node(d, 1);
            if (!binary(mean, "Mean", NULL) || !feeds(d, 1, mean) ||
                !same_input(mean->inputs[0], d->inputs[0])) {
                continue;
            }
            for (int t = 0; t < 2; t++) {
                fl_node *rs = in_node(scale, t);
                if (!rs || !is_op(rs, "Rsqrt") || rs->n_inputs != 1 || !feeds(scale, t, rs)) {
                    continue;
                }
                fl_node *ae = in_node(rs, 0);
                if (!binary(ae, "AddV2", NULL) || !feeds(rs, 0, ae)) {
                    continue;
                }
                for (int u = 0; u < 2; u++) {
                    fl_node *ms = in_node(ae, u), *sq;
                    if (!binary(ms, "Mean", NULL) || !feeds(ae, u, ms) ||
                        !is_const(in_node(ae, 1 - u))) {
                        continue;
                    }
                    sq = in_node(ms, 0);
                    if (!sq || !is_op(sq, "Square") || sq->n_inputs != 1 || !feeds(ms, 0, sq) ||
                        !feeds(sq, 0, d)) {
                        continue;
                    }
                    if (!removable(r, mul, (const fl_node *[]){out}, 1) ||
                        !removable(r, d, (const fl_node *[]){mul, sq}, 2) ||
                        !removable(r, mean, (const fl_node *[]){d}, 1) ||
                        !removable(r, scale, (const fl_node *[]){mul}, 1) ||
                        !removable(r, rs, (const fl_node *[]){scale}, 1) ||
                        !removable(r, ae, (const fl_node *[]){rs}, 1) ||
                        !removable(r, ms, (const fl_node *[]){ae}, 1) ||
                        !removable(r, sq, (const fl_node *[]){ms}, 1)) {
                        return false;
                    }
                    *x = d->inputs[0];
                    *gamma = scale->inputs[1 - t];
                    *beta = out->inputs[s];
                    fl_node *n8[8] = {mul, d, mean, scale, rs, ae, ms, sq};
                    memcpy(nodes, n8, 8 * sizeof(fl_node *));
                    return true;
                }
            }
        }
    }
    return false;
}

/* Pattern (row 24, FindMklLayerNorm): root AddV2 of the Keras form (pattern
 * 1) or the custom form (pattern 2), or root Add|AddV2 of the common norm
 * pattern (3) reducing the last axis (mean1 keep_dims; axes1 an int32/int64
 * Const of one element equal to rank - 1)  =>  _MklLayerNorm named after the
 * root, device of the root, inputs [x, gamma, beta], T of the root (no
 * epsilon: TensorFlow writes only T). Conditions: oneDNN; x and the root's
 * output of symbolically equal shape, rank 2 or 3; the matched inner nodes
 * removable. No placement or dtype check (as TensorFlow). */
static bool rewrite_layer_norm(rctx *r, fl_node *out) {
    if (!r->onednn || !binary(out, "Add", "AddV2")) {
        return false;
    }
    fl_input x = {NULL, 0}, gamma = {NULL, 0}, beta = {NULL, 0};
    fl_node *nodes[9];
    int n_nodes = 0, pattern = 0;
    norm_match m;
    if (is_op(out, "AddV2") && match_layer_norm_keras(r, out, &x, &gamma, &beta, nodes)) {
        n_nodes = 6;
        pattern = 1;
    } else if (is_op(out, "AddV2") && match_layer_norm_custom(r, out, &x, &gamma, &beta, nodes)) {
        n_nodes = 8;
        pattern = 2;
    } else if (match_common_norm(r, out, &m)) {
        int64_t ax, n_ax;
        int rank = fl_node_in(m.mean1, 0)->shape.rank;
        if (!attr_bool(m.mean1, "keep_dims", false) || !const_axes(m.mean1, 1, &ax, 1, &n_ax) ||
            n_ax != 1 || rank < 1 || ax != rank - 1) {
            return false;
        }
        x = m.x;
        gamma = (fl_input){m.gamma, 0};
        beta = (fl_input){m.beta, 0};
        memcpy(nodes, m.nodes, sizeof m.nodes);
        n_nodes = 9;
        pattern = 3;
    } else {
        return false;
    }
    const fl_shape *xs = &x.node->outputs[x.port].shape;
    if (!shapes_equal(xs, &out->outputs[0].shape) || xs->rank < 2 || xs->rank > 3) {
        return false;
    }
    static const char *const what[] = {"", "Keras FusedBatchNormV3", "custom", "mean/variance"};
    fl__ledger_note(r->pc, "layer_norm", out, "%s layer-norm ops -> _MklLayerNorm", what[pattern]);
    fl_input in[3] = {x, gamma, beta};
    fl_node *f = replace_root(r, out, "_MklLayerNorm", out->device, 3, in, 1);
    if (!f) {
        return false;
    }
    copy_attr(r, f, out, "T", NULL);
    for (int k = 0; k < n_nodes; k++) {
        drop(r, nodes[k]);
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Subgraph patterns (utils::SubGraphMatcher<kFollowInputs>)                  */
/* ------------------------------------------------------------------------- */

/* The rules below are written, as in remapper.cc, as op-type patterns
 * matched by the generic matcher of grappler/utils/pattern_utils.cc. Its
 * semantics, reproduced here:
 *  - a pattern node matches a graph node of one of its op types ("*": any;
 *    "A|B": either); a node that is not kRemain must have no control input
 *    or control use;
 *  - a label names one node: a label met again must be the same node;
 *  - a pattern node with inputs requires exactly that many data inputs and
 *    matches them in order, output ports ignored; for a commutative op (Add,
 *    AddV2, Mul, Maximum, SquaredDifference) with two inputs the pattern's
 *    inputs are swapped when a one-level look at the graph's input op types
 *    says so (input 0's op fits pattern input 1 but not 0, or input 1's op
 *    fits pattern input 0 but not 1); no backtracking;
 *  - after the match, every kRemove node must be outside the preserve set and
 *    have no data use outside the matched nodes (IsSafeNodesToRemove).
 * A node removed by an earlier rewrite of this run, or added by one, does not
 * take part (their uses are not in the use lists). */
typedef enum pat_status { P_REMAIN, P_REMOVE, P_REPLACE } pat_status;

typedef struct pat {
    const char *op; /* "*", "Op" or "OpA|OpB" */
    const char *label;
    pat_status status;
    int n_in; /* inputs the node must have (0: not checked) */
    const struct pat *const *in;
} pat;

#define PM_MAX 32 /* labels of a pattern (AUGRU: 27) */

typedef struct pmatch {
    const char *label[PM_MAX];
    fl_node *node[PM_MAX];
    int n_labels;
    fl_node *removed[PM_MAX];
    int n_removed;
} pmatch;

/* Whether op is one of the '|'-separated names of `pattern` ("*": any). */
static bool pat_op_is(const char *pattern, const char *op) {
    if (strcmp(pattern, "*") == 0) {
        return true;
    }
    size_t len = strlen(op);
    for (const char *p = pattern; *p;) {
        const char *bar = strchr(p, '|');
        size_t k = bar ? (size_t)(bar - p) : strlen(p);
        if (k == len && strncmp(p, op, k) == 0) {
            return true;
        }
        p += k + (bar ? 1 : 0);
    }
    return false;
}

static bool pat_commutative(const char *pattern) {
    static const char *const ops[] = {"Add", "AddV2", "Mul", "Maximum", "SquaredDifference"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (pat_op_is(pattern, ops[i]) && strcmp(pattern, "*") != 0) {
            return true;
        }
    }
    return false;
}

/* The node bound to `label`, or NULL. */
static fl_node *pm_get(const pmatch *m, const char *label) {
    for (int i = 0; i < m->n_labels; i++) {
        if (strcmp(m->label[i], label) == 0) {
            return m->node[i];
        }
    }
    return NULL;
}

static bool pm_has_node(const pmatch *m, const fl_node *n) {
    for (int i = 0; i < m->n_labels; i++) {
        if (m->node[i] == n) {
            return true;
        }
    }
    return false;
}

static bool pm_match(const rctx *r, const pat *p, fl_node *n, pmatch *m) {
    if (!n || is_removed(n) || (p->status != P_REMAIN && has_ctrl(r, n)) ||
        !pat_op_is(p->op, n->op)) {
        return false;
    }
    fl_node *bound = pm_get(m, p->label);
    if (!bound) {
        if (m->n_labels == PM_MAX) {
            return false;
        }
        m->label[m->n_labels] = p->label;
        m->node[m->n_labels++] = n;
        if (p->status == P_REMOVE) {
            bool seen = false;
            for (int i = 0; i < m->n_removed && !seen; i++) {
                seen = m->removed[i] == n;
            }
            if (!seen) {
                m->removed[m->n_removed++] = n;
            }
        }
    } else if (bound != n) {
        return false;
    }
    if (p->n_in == 0) {
        return true;
    }
    if (n->n_inputs != p->n_in) {
        return false;
    }
    int first = 0;
    if (p->n_in == 2 && pat_commutative(p->op)) {
        const char *g0 = in_node(n, 0)->op, *g1 = in_node(n, 1)->op;
        if ((!pat_op_is(p->in[0]->op, g0) && pat_op_is(p->in[1]->op, g0)) ||
            (!pat_op_is(p->in[1]->op, g1) && pat_op_is(p->in[0]->op, g1))) {
            first = 1;
        }
    }
    for (int i = 0; i < p->n_in; i++) {
        const pat *child = p->in[p->n_in == 2 ? (i + first) % 2 : i];
        if (!pm_match(r, child, in_node(n, i), m)) {
            return false;
        }
    }
    return true;
}

/* GetMatchedNodes: the match, then IsSafeNodesToRemove. */
static bool pm_run(const rctx *r, const pat *p, fl_node *root, pmatch *m) {
    memset(m, 0, sizeof *m);
    if (!pm_match(r, p, root, m)) {
        return false;
    }
    for (int i = 0; i < m->n_removed; i++) {
        const fl_node *n = m->removed[i];
        if (is_preserved(n) || n->id >= r->n0) {
            return false;
        }
        for (int port = 0; port < n->n_outputs; port++) {
            size_t k;
            const fl_use *u = fl__uses_of(&r->uses, n, port, &k);
            for (size_t j = 0; j < k; j++) {
                if (!pm_has_node(m, u[j].node)) {
                    return false;
                }
            }
        }
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* GRU / AUGRU cell (row 12)                                                  */
/* ------------------------------------------------------------------------- */

/* Pattern (row 12; GRUCellPatternMatcher of remapper.cc, oneDNN builds),
 * root AddV2 "output" (kReplace), everything else kRemove except the "*"
 * leaves (kRemain), labels in quotes:
 *   "concat_gru" = ConcatV2("tarV3" x, "identity" h_prev, "concat_axis")
 *   "ru_gates/activation" = Sigmoid(BiasAdd(MatMul("concat_gru", w_ru), b_ru))
 *   "ru_split" = Split("Const_split", "ru_gates/activation")
 *   "lbrmul" = Mul("ru_split", "identity")                         r * h
 *   "concat1" = ConcatV2("tarV3", "lbrmul", "concat_axis")
 *   "c_gate/activation" = Tanh(BiasAdd(MatMul("concat1", w_c), b_c))
 *   u' = "ru_split"                                                GRU
 *   u' = "au_atten" = Mul("ru_split", "attn_sub" = Sub("attn_1.0",
 *        "attn_in" au_x))                                          AUGRU
 *   "output" = AddV2("ns_mul2" = Mul(u', "identity"),
 *                    "ns_mul1" = Mul("ns_sub1" = Sub("Const_1", u'),
 *                                    "c_gate/activation"))
 * matched with the matcher above (so the Split's output ports and the
 * constants' values are not looked at, nor are the concat axis, the Split's
 * num_split, the MatMuls' transposes or any placement: TensorFlow checks
 * none of them)  =>  GRUBlockCell [x, h_prev, w_ru, w_c, b_ru, b_c] or
 * AUGRUBlockCell [x, h_prev, au_x, w_ru, w_c, b_ru, b_c] (each the input
 * edge of the matched node, port kept), named after the AddV2, on its
 * device, with T copied from the AddV2. GRU is tried before AUGRU.
 * The AddV2's consumers move to output 3 (h): each consumer's first input
 * reading the AddV2 is re-pointed (ChangeFanoutPort; a second input of the
 * same consumer reading it stays on output 0, r, as in TensorFlow).
 * Conditions (CheckValidGraph): T float or bfloat16 on output, ns_mul1,
 * ns_mul2, ns_sub1, concat1, lbrmul, ru_split, concat_gru; ns_mul1 and
 * ns_mul2 each have exactly one consumer, share T with the AddV2 and are
 * not preserved. oneDNN only; not gated by placement or by
 * allow_non_differentiable_rewrites.
 * Attrs: only T. AddGRUCellOp sets lbr=false and training=false on its
 * NodeDef after std::move-ing it into the mutation, so they never reach the
 * graph (the op's defaults are the same values).
 * Source: remapper.cc of Intel-tensorflow/tensorflow (gru_scope), whose
 * rnn_ops.cc registers AUGRUBlockCell and adds bfloat16, lbr and training to
 * GRUBlockCell. */
static const pat GRU_X = {"*", "tarV3", P_REMAIN, 0, NULL};
static const pat GRU_H = {"*", "identity", P_REMAIN, 0, NULL};
static const pat GRU_AXIS = {"*", "concat_axis", P_REMAIN, 0, NULL};
static const pat GRU_CONCAT = {"ConcatV2", "concat_gru", P_REMOVE, 3,
                               (const pat *const[]){&GRU_X, &GRU_H, &GRU_AXIS}};
static const pat GRU_RU_W = {"*", "ru_gates/mm_param", P_REMAIN, 0, NULL};
static const pat GRU_RU_MM = {"MatMul", "ru_gates/mm", P_REMOVE, 2,
                              (const pat *const[]){&GRU_CONCAT, &GRU_RU_W}};
static const pat GRU_RU_B = {"*", "ru_gates/bias_data", P_REMAIN, 0, NULL};
static const pat GRU_RU_BIAS = {"BiasAdd", "ru_gates/bias", P_REMOVE, 2,
                                (const pat *const[]){&GRU_RU_MM, &GRU_RU_B}};
static const pat GRU_RU_ACT = {"Sigmoid", "ru_gates/activation", P_REMOVE, 1,
                               (const pat *const[]){&GRU_RU_BIAS}};
static const pat GRU_SPLIT_DIM = {"*", "Const_split", P_REMAIN, 0, NULL};
static const pat GRU_SPLIT = {"Split", "ru_split", P_REMOVE, 2,
                              (const pat *const[]){&GRU_SPLIT_DIM, &GRU_RU_ACT}};
static const pat GRU_RH = {"Mul", "lbrmul", P_REMOVE, 2, (const pat *const[]){&GRU_SPLIT, &GRU_H}};
static const pat GRU_CONCAT1 = {"ConcatV2", "concat1", P_REMOVE, 3,
                                (const pat *const[]){&GRU_X, &GRU_RH, &GRU_AXIS}};
static const pat GRU_C_W = {"*", "c_gate/mm_param", P_REMAIN, 0, NULL};
static const pat GRU_C_MM = {"MatMul", "c_gate/mm", P_REMOVE, 2,
                             (const pat *const[]){&GRU_CONCAT1, &GRU_C_W}};
static const pat GRU_C_B = {"*", "c_gate/bias_data", P_REMAIN, 0, NULL};
static const pat GRU_C_BIAS = {"BiasAdd", "c_gate/bias", P_REMOVE, 2,
                               (const pat *const[]){&GRU_C_MM, &GRU_C_B}};
static const pat GRU_C_ACT = {"Tanh", "c_gate/activation", P_REMOVE, 1,
                              (const pat *const[]){&GRU_C_BIAS}};
static const pat GRU_ONE = {"*", "Const_1", P_REMAIN, 0, NULL};
/* GRU: u' is the Split */
static const pat GRU_SUB1 = {"Sub", "ns_sub1", P_REMOVE, 2,
                             (const pat *const[]){&GRU_ONE, &GRU_SPLIT}};
static const pat GRU_MUL2 = {"Mul", "ns_mul2", P_REMOVE, 2,
                             (const pat *const[]){&GRU_SPLIT, &GRU_H}};
static const pat GRU_MUL1 = {"Mul", "ns_mul1", P_REMOVE, 2,
                             (const pat *const[]){&GRU_SUB1, &GRU_C_ACT}};
static const pat GRU_OUT = {"AddV2", "output", P_REPLACE, 2,
                            (const pat *const[]){&GRU_MUL2, &GRU_MUL1}};
/* AUGRU: u' = u * (1 - au_x) */
static const pat AUGRU_AU = {"*", "attn_in", P_REMAIN, 0, NULL};
static const pat AUGRU_ONE = {"*", "attn_1.0", P_REMAIN, 0, NULL};
static const pat AUGRU_ASUB = {"Sub", "attn_sub", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_ONE, &AUGRU_AU}};
static const pat AUGRU_ATT = {"Mul", "au_atten", P_REMOVE, 2,
                              (const pat *const[]){&GRU_SPLIT, &AUGRU_ASUB}};
static const pat AUGRU_SUB1 = {"Sub", "ns_sub1", P_REMOVE, 2,
                               (const pat *const[]){&GRU_ONE, &AUGRU_ATT}};
static const pat AUGRU_MUL2 = {"Mul", "ns_mul2", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_ATT, &GRU_H}};
static const pat AUGRU_MUL1 = {"Mul", "ns_mul1", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_SUB1, &GRU_C_ACT}};
static const pat AUGRU_OUT = {"AddV2", "output", P_REPLACE, 2,
                              (const pat *const[]){&AUGRU_MUL2, &AUGRU_MUL1}};

/* CheckValidGraph: the dtypes and the two parent/child pairs. */
static bool gru_valid(const rctx *r, const pmatch *m) {
    static const char *const typed[] = {"output",  "ns_mul1", "ns_mul2",  "ns_sub1",
                                        "concat1", "lbrmul",  "ru_split", "concat_gru"};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        if (!t_float_or_bf16(pm_get(m, typed[i]))) {
            return false;
        }
    }
    const fl_node *out = pm_get(m, "output");
    static const char *const kids[] = {"ns_mul1", "ns_mul2"};
    for (size_t i = 0; i < 2; i++) {
        const fl_node *k = pm_get(m, kids[i]);
        if (fanout(r, k, 0) != 1 || !same_t(out, k) || is_preserved(k)) {
            return false;
        }
    }
    return true;
}

static bool rewrite_gru_cell(rctx *r, fl_node *root) {
    if (!r->onednn || !is_op(root, "AddV2")) {
        return false;
    }
    pmatch m;
    bool au = false;
    if (!pm_run(r, &GRU_OUT, root, &m) || !gru_valid(r, &m)) {
        au = true;
        if (!pm_run(r, &AUGRU_OUT, root, &m) || !gru_valid(r, &m)) {
            return false;
        }
    }
    const char *op = au ? "AUGRUBlockCell" : "GRUBlockCell";
    const fl_node *concat = pm_get(&m, "concat_gru");
    fl_input in[7];
    int k = 0;
    in[k++] = concat->inputs[0];
    in[k++] = concat->inputs[1];
    if (au) {
        in[k++] = pm_get(&m, "attn_sub")->inputs[1];
    }
    in[k++] = pm_get(&m, "ru_gates/mm")->inputs[1];
    in[k++] = pm_get(&m, "c_gate/mm")->inputs[1];
    in[k++] = pm_get(&m, "ru_gates/bias")->inputs[1];
    in[k++] = pm_get(&m, "c_gate/bias")->inputs[1];
    fl__ledger_note(r->pc, au ? "augru_block_cell" : "gru_block_cell", root,
                    "%s cell ops -> %s (consumers read h, output 3)", au ? "AUGRU" : "GRU", op);
    fl_node *f = replace_root(r, root, op, root->device, k, in, 4);
    if (!f) {
        return false;
    }
    copy_attr(r, f, root, "T", NULL);
    /* ChangeFanoutPort(output, 3) */
    for (size_t i = 0; i < r->g->n_nodes; i++) {
        fl_node *u = r->g->nodes[i];
        if (is_removed(u) || u == f) {
            continue;
        }
        for (int j = 0; j < u->n_inputs; j++) {
            if (u->inputs[j].node == f) {
                u->inputs[j].port = 3;
                break;
            }
        }
    }
    for (int i = 0; i < m.n_removed; i++) {
        drop(r, m.removed[i]);
    }
    return true;
}

/* Pattern (row 17, the standalone Gelu op): Gelu(BiasAdd(MatMul(a, b),
 * bias))  =>  _FusedMatMul named after the Gelu, device of the MatMul,
 * inputs [a, b, bias], T, transpose_a, transpose_b copied, fused_ops
 * [BiasAdd, GeluApproximate] when the Gelu's `approximate` is true, else
 * [BiasAdd, GeluExact] (absent: false, the registry's default, ew.c),
 * num_args 1, epsilon 0.
 * Written as the Gelu-exact rule of FindMatMulBiasAddAndGelu is: the
 * matcher above with the Gelu kReplace and the BiasAdd (two inputs) and the
 * MatMul kRemove, so no control edges on the three, the BiasAdd read only by
 * the Gelu and the MatMul only by the BiasAdd, neither preserved; then the
 * MatMul CPU-compatible with oneDNN (on CPU, T float or bfloat16). No dtype
 * check on the BiasAdd or the Gelu (the matcher does none). cublasLt and
 * cuDNN runtime fusion, the GPU routes, are off.
 * Not line-verified: none of the remapper.cc versions we could read has this
 * form (see the header). */
static const pat GELU_MM = {"MatMul", "matmul", P_REMOVE, 0, NULL};
static const pat GELU_BIAS_IN = {"*", "bias", P_REMAIN, 0, NULL};
static const pat GELU_BIAS = {"BiasAdd", "bias_add", P_REMOVE, 2,
                              (const pat *const[]){&GELU_MM, &GELU_BIAS_IN}};
static const pat GELU_OP = {"Gelu", "output", P_REPLACE, 1, (const pat *const[]){&GELU_BIAS}};

static bool rewrite_matmul_gelu_op(rctx *r, fl_node *out) {
    pmatch m;
    if (!r->onednn || !is_op(out, "Gelu") || !pm_run(r, &GELU_OP, out, &m)) {
        return false;
    }
    fl_node *mm = pm_get(&m, "matmul"), *bias = pm_get(&m, "bias_add");
    if (mm->n_inputs < 2 || !cpu_contraction_ok(r, mm)) {
        return false;
    }
    bool approx = attr_bool(out, "approximate", false);
    const char *ops[] = {"BiasAdd", approx ? "GeluApproximate" : "GeluExact"};
    fl__ledger_note(r->pc, "matmul_bias_gelu_op", out, "MatMul+BiasAdd+Gelu(approximate=%s) -> %s",
                    approx ? "true" : "false", "_FusedMatMul");
    if (!build_fused(r, out, mm, &bias->inputs[1], 1, ops, 2, 0.0f, NULL)) {
        return false;
    }
    drop(r, bias);
    drop(r, mm);
    return true;
}

/* ------------------------------------------------------------------------- */
/* Driver                                                                     */
/* ------------------------------------------------------------------------- */

/* Tries the rules rooted at n in remapper.cc's order; true when one fired. */
static bool remap_node(rctx *r, fl_node *n) {
    if (r->onednn) {
        if (rewrite_gru_cell(r, n) || rewrite_contraction_bias_add(r, n) ||
            rewrite_conv_leakyrelu(r, n) || rewrite_pad_conv3d(r, n) || rewrite_hard_swish(r, n) ||
            rewrite_mish(r, n) || rewrite_fused_batch_matmul(r, n) || rewrite_mul_maximum(r, n) ||
            rewrite_conv_swish(r, n) || rewrite_swish(r, n) || rewrite_layer_norm(r, n) ||
            rewrite_instance_norm(r, n)) {
            return true;
        }
        if (rewrite_matmul_gelu_exact(r, n) || rewrite_matmul_gelu_approx(r, n) ||
            rewrite_matmul_gelu_op(r, n)) {
            return true;
        }
    }
    return rewrite_contraction_bias_act(r, n) || rewrite_contraction_bias(r, n) ||
           rewrite_conv_squeeze_bias(r, n) || rewrite_conv_bn_act(r, n) || rewrite_conv_bn(r, n) ||
           rewrite_bn_ex(r, n) || rewrite_bn_grad_ex(r, n) || rewrite_tensor_to_hash_bucket(r, n) ||
           rewrite_bn_decompose(r, n) || rewrite_comparison_cast(r, n) ||
           rewrite_dilated_conv(r, n);
}

fl_status fl__pass_remapper(fl_pass_ctx *pc) {
    fl_ctx *c = pc->c;
    fl_graph *g = c->g;
    fl_status st;
    if (!g->order && (st = fl__graph_toposort(g, c->d)) != FL_OK) {
        return st;
    }
    rctx r = {0};
    r.pc = pc;
    r.g = g;
    r.d = c->d;
    r.onednn = pc->opt && pc->opt->remapper_mode == FL_REMAPPER_ONEDNN;
    r.persistent_bn = pc->opt && pc->opt->persistent_bn;
    r.target = pc->opt ? pc->opt->device : FL_DEVICE_CPU;
    r.n0 = g->n_nodes;
    fl_node **order = fl__arena_calloc(g->arena, r.n0 ? r.n0 : 1, sizeof(*order));
    if (!order) {
        return fl__diag_oom(c->d);
    }
    memcpy(order, g->order, r.n0 * sizeof(*order));
    if ((st = fl__uses_build(g, &r.uses, c->d)) != FL_OK) {
        return st;
    }
    bool changed = false;
    for (size_t i = r.n0; i-- > 0 && r.st == FL_OK;) {
        fl_node *n = order[i];
        if (is_removed(n)) {
            continue;
        }
        changed |= remap_node(&r, n);
    }
    if (r.st != FL_OK) {
        return r.st;
    }
    if (g->arena->failed) {
        return fl__diag_oom(c->d);
    }
    return changed ? fl__graph_compact(g, c->d) : FL_OK;
}
