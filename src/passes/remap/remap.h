/*
 * remap.h - what the files of passes/remap/ (Grappler's remapper, entry
 * point fl__pass_remapper in remapper.c) share: the pass state, the
 * predicates (predicates.c), the rewriting helpers (rewrite.c), the
 * subgraph matcher (subgraph.c), and the rules each file provides to the
 * driver. Private to passes/remap/.
 */
#ifndef FL_PASSES_REMAP_REMAP_H
#define FL_PASSES_REMAP_REMAP_H

#include "ops/common.h"
#include "passes/pass.h"
#include "passes/util.h"

typedef struct rctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    fl_uses uses;
    fl_edge_index edges; /* who reads whom: replacing a root visits its readers only */
    size_t n0;           /* nodes when the use lists were built; later ids are new nodes */
    bool onednn;
    bool persistent_bn; /* TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1 */
    fl_device target;
    fl_status st;     /* first failure (OOM) */
    int onnx_phase;   /* ONNX graphs: the sweep, 1 or 2 (fl__rm_onnx_rewrite) */
    bool onnx_phase2; /* the first sweep met or made a node the second needs */
    /* The attr array fl__rm_build_fused made last (never written in place):
     * the next fused node with the same attrs shares it. */
    fl_attr *fused_attrs;
    int n_fused_attrs;
    /* What that array was made from (fused_key.ok): a contraction with the
     * same attr array (shared arrays are never written in place, so the
     * same array holds the same attrs), op and fused ops gives the same
     * array without building its attrs again. */
    struct {
        bool ok;
        const fl_attr *attrs; /* the contraction's */
        int n_attrs, n_args;
        int kind;
        const char *op;
        const char *ops[4];
        size_t n_ops;
        float epsilon;
        const fl_attr *act_attrs; /* a LeakyRelu's (its alpha), else NULL */
        int act_n_attrs;
    } fused_key;
} rctx;

typedef enum pat_status { P_REMAIN, P_REMOVE, P_REPLACE } pat_status;

#define PM_MAX 32 /* labels of a pattern (AUGRU: 27) */

/* A pattern node's op: an FL_OP_ kind, or PAT_ANY (any op). */
#define PAT_ANY FL_OP_UNKNOWN

typedef struct pat {
    fl_op_kind op; /* PAT_ANY or the kind to match */
    const char *label;
    pat_status status;
    int n_in; /* inputs the node must have (0: not checked) */
    const struct pat *const *in;
} pat;

typedef struct pmatch {
    const char *label[PM_MAX];
    fl_node *node[PM_MAX];
    int n_labels;
    fl_node *removed[PM_MAX];
    int n_removed;
} pmatch;

/* ---- predicates.c ---- */

bool fl__rm_is_removed(const fl_node *n);

/* n placed on CPU / on GPU (fl__node_device; an empty device string is the
 * pass's target device). */
bool fl__rm_on_cpu(const rctx *r, const fl_node *n);

bool fl__rm_on_gpu(const rctx *r, const fl_node *n);

/* HaveSameDataType: both carry attr T, and it is the same. */
bool fl__rm_same_t(const fl_node *a, const fl_node *b);

/* T is float or bfloat16. */
bool fl__rm_t_float_or_bf16(const fl_node *n);

/* Control fanin or fl__rm_fanout. */
bool fl__rm_has_ctrl(const rctx *r, const fl_node *n);

/* Data uses of output `port`; new nodes count as many (they never are
 * intermediates of a later match, see the driver). */
size_t fl__rm_fanout(const rctx *r, const fl_node *n, int port);

/* HasAtMostOneFanoutAtPort0 */
bool fl__rm_one_fanout0(const rctx *r, const fl_node *n);

/* HasAtMostOneDataFanoutAtPort0: Shape and Rank consumers do not count. */
bool fl__rm_one_data_fanout0(const rctx *r, const fl_node *n);

/* Any data use of an output other than port 0. */
bool fl__rm_fanout_beyond0(const rctx *r, const fl_node *n);

/* The node feeding data input i (NULL when absent). */
fl_node *fl__rm_in_node(const fl_node *n, int i);

/* An input whose value is known to Grappler's shape inference: a value we
 * inferred, or a Const (also a stripped one: TensorFlow has its content). */
bool fl__rm_known_input(const fl_node *n, int i);

bool fl__rm_is_conv2d(const fl_node *n);

bool fl__rm_is_depthwise(const fl_node *n);

bool fl__rm_is_matmul(const fl_node *n);

bool fl__rm_is_conv3d(const fl_node *n);

bool fl__rm_is_fused_batch_norm(const fl_node *n);

/* IsCpuCompatibleDataType */
bool fl__rm_cpu_dtype_ok(const rctx *r, const fl_node *c);

/* IsCpuCompatibleDataFormat */
bool fl__rm_cpu_format_ok(const rctx *r, const fl_node *c);

/* IsCpuCompatible(contraction): placed on CPU, dtype and format supported;
 * depthwise and Conv3D only with oneDNN. */
bool fl__rm_cpu_contraction_ok(const rctx *r, const fl_node *c);

/* IsGpuCompatible for contraction + BiasAdd (+ activation): only Conv2D + Relu
 * (T float, NHWC/NCHW, filter spatial dims known and both != 1); MatMul needs
 * cublasLt (off), Conv2D + BiasAdd alone is never fused on GPU. */
bool fl__rm_gpu_contraction_ok(const rctx *r, const fl_node *c, const fl_node *act);

/* IsSupportedActivation: Relu, Relu6, Elu, LeakyRelu (+ Tanh, Sigmoid with
 * oneDNN). */
bool fl__rm_is_activation(const rctx *r, const fl_node *n);

/* ---- rewrite.c ---- */

void fl__rm_fail_oom(rctx *r);

/* Sets `name` on dst to src's attr of that name, or to *dflt when src lacks
 * it (TensorFlow works on graphs with default attrs filled in). */
void fl__rm_copy_attr(rctx *r, fl_node *dst, const fl_node *src, const char *name,
                      const fl_attr *dflt);

void fl__rm_set_attr(rctx *r, fl_node *dst, fl_attr a);

/* Adds a node of op `op` that takes over `root`: its uses (ports below
 * n_outputs), control uses, control inputs, preserve flag and, once root is
 * marked removed, its name (see the header comment on renaming). NULL on OOM
 * (r->st set). */
fl_node *fl__rm_replace_root(rctx *r, fl_node *root, const char *op, const char *device,
                             int n_inputs, const fl_input *inputs, int n_outputs);

/* Removes a matched intermediate node (its only consumers are in the match). */
void fl__rm_drop(rctx *r, fl_node *n);

/* Adds a new (extra) node named `<prefix>/<suffix>` (made unique). */
fl_node *fl__rm_add_extra(rctx *r, const char *prefix, const char *suffix, const char *op,
                          const char *device, int n_inputs, const fl_input *inputs);

const char *fl__rm_fused_name_of(const fl_node *c);

/* SetFusedOpAttributes (+ leakyrelu_alpha for LeakyRelu). No `U`: the
 * TensorFlow-written fused nodes of the corpus (shared/corpus/tf) carry none,
 * nor does current remapper.cc (it writes TArgs/num_host_args instead); only
 * a transient ~2.11-2.12 remapper.cc set U on _FusedConv2D. */
void fl__rm_set_fused_attrs(rctx *r, fl_node *f, const char *const *ops, size_t n_ops,
                            int64_t num_args, float epsilon, const fl_node *act);

/* Builds the fused contraction named after `root`: inputs [x, filter,
 * args...], device of the contraction. */
fl_node *fl__rm_build_fused(rctx *r, fl_node *root, const fl_node *c, const fl_input *args,
                            int n_args, const char *const *ops, size_t n_ops, float epsilon,
                            const fl_node *act);

/* ---- subgraph.c ---- */

/* The node bound to `label`, or NULL. */
fl_node *fl__rm_pm_get(const pmatch *m, const char *label);

/* GetMatchedNodes: the match, then IsSafeNodesToRemove. */
bool fl__rm_pm_run(const rctx *r, const pat *p, fl_node *root, pmatch *m);

/* ---- contraction.c ---- */

bool fl__rm_match_contraction_bias(const rctx *r, const fl_node *bias, fl_node **contraction,
                                   int *bias_port, bool check_device);

bool fl__rm_rewrite_contraction_bias(rctx *r, fl_node *bias);

bool fl__rm_rewrite_contraction_bias_act(rctx *r, fl_node *act);

bool fl__rm_rewrite_conv_squeeze_bias(rctx *r, fl_node *bias);

/* ---- batchnorm.c ---- */

bool fl__rm_rewrite_conv_bn(rctx *r, fl_node *bn);

bool fl__rm_rewrite_conv_bn_act(rctx *r, fl_node *act);

bool fl__rm_rewrite_bn_ex(rctx *r, fl_node *relu);

bool fl__rm_rewrite_bn_grad_ex(rctx *r, fl_node *g);

bool fl__rm_rewrite_bn_decompose(rctx *r, fl_node *bn);

/* ---- stock_other.c ---- */

bool fl__rm_rewrite_comparison_cast(rctx *r, fl_node *cast);

bool fl__rm_rewrite_tensor_to_hash_bucket(rctx *r, fl_node *hash);

/* Reads input i (any rank, integer dtype) as known integers into out (at
 * most cap elements); false when the value is not fully known or too long. */
bool fl__rm_int_input(const fl_node *n, int i, int64_t *out, int64_t cap, int64_t *len);

bool fl__rm_rewrite_dilated_conv(rctx *r, fl_node *b2s);

/* ---- onednn.c ---- */

bool fl__rm_rewrite_contraction_bias_add(rctx *r, fl_node *root);

bool fl__rm_rewrite_swish(rctx *r, fl_node *mul);

bool fl__rm_rewrite_conv_leakyrelu(rctx *r, fl_node *act);

/* ---- onednn_act.c ---- */

/* The subgraph matcher's removal check for an intermediate node: no control
 * edges, not preserved, every data use (any port) by one of `inside`. */
bool fl__rm_removable(const rctx *r, const fl_node *n, const fl_node *const *inside, int k);

bool fl__rm_same_input(fl_input a, fl_input b);

/* The one-element float value of a Const (or of a Cast of a Const when
 * through_cast), as VerifyConstants reads it; false when not such a node. */
bool fl__rm_const_scalar(const fl_node *n, bool through_cast, bool scalar_only, double *v);

bool fl__rm_rewrite_mul_maximum(rctx *r, fl_node *max);

bool fl__rm_rewrite_mish(rctx *r, fl_node *mul);

bool fl__rm_rewrite_conv_swish(rctx *r, fl_node *mul);

bool fl__rm_rewrite_pad_conv3d(rctx *r, fl_node *c);

bool fl__rm_rewrite_hard_swish(rctx *r, fl_node *out);

/* ---- onednn_matmul.c ---- */

bool fl__rm_rewrite_fused_batch_matmul(rctx *r, fl_node *root);

bool fl__rm_rewrite_matmul_gelu_exact(rctx *r, fl_node *out);

bool fl__rm_rewrite_matmul_gelu_approx(rctx *r, fl_node *out);

bool fl__rm_rewrite_matmul_gelu_op(rctx *r, fl_node *out);

/* ---- onednn_norm.c ---- */

bool fl__rm_rewrite_instance_norm(rctx *r, fl_node *root);

bool fl__rm_rewrite_layer_norm(rctx *r, fl_node *out);

/* ---- gru.c ---- */

bool fl__rm_rewrite_gru_cell(rctx *r, fl_node *root);

/* ---- onnx_batchnorm.c (ONNX graphs; the helpers the onnx_*.c files share) ---- */

/* Highest rank of a constant the ONNX rules rebuild. */
#define FL_RM_ONNX_MAX_RANK 32

/* fl__rm_replace_root for an ONNX operator of registry kind `kind` (its op
 * type the name after "DOMAIN::"), outputs as its descriptor fixes (else one); the new node keeps
 * root's NodeProto as src (the ONNX writer names its outputs after root's). */
fl_node *fl__rm_onnx_replace(rctx *r, fl_node *root, int kind, int n_inputs,
                             const fl_input *inputs);

/* Copies every attr of src onto dst. */
void fl__rm_onnx_copy_attrs(rctx *r, fl_node *dst, const fl_node *src);

/* A live Const (initializer or Constant node) of fully known shape. */
bool fl__rm_onnx_const(const fl_node *n);

/* The content of a Const, NULL when stripped, unknown or not concrete. */
const fl_value *fl__rm_onnx_value(const fl_node *n);

/* Drops n (a node of the graph when the pass began) when its only use was
 * the one just rewritten away: not preserved, no control edges. */
void fl__rm_onnx_drop_if_unused(rctx *r, fl_node *n);

/* A new Const <owner>/<suffix> of dtype and shape holding v (NULL: a
 * stripped constant), inferred. NULL on failure (r->st set). */
fl_node *fl__rm_onnx_new_const(rctx *r, const fl_node *owner, const char *suffix, int dtype,
                               int rank, const int64_t *dims, const fl_value *v);

/* Conv + BatchNormalization -> Conv (rule conv2d_batch_norm). */
bool fl__rm_onnx_conv_bn(rctx *r, fl_node *bn);

/* ---- onnx_norm.c ---- */

/* Exact Gelu subgraph -> com.microsoft::Gelu (rule gelu_exact). */
bool fl__rm_onnx_gelu(rctx *r, fl_node *root);

/* Layer-norm subgraph -> LayerNormalization (rule layer_norm). */
bool fl__rm_onnx_layer_norm(rctx *r, fl_node *root);
bool fl__rm_onnx_simplified_layer_norm(rctx *r, fl_node *root);

/* ---- onnx_ort.c ---- */

/* MatMul + Transpose / scale -> com.microsoft::FusedMatMul
 * (matmul_transpose_fusion, matmul_scale_fusion). */
bool fl__rm_onnx_fused_matmul(rctx *r, fl_node *root);

/* Add + LayerNormalization -> com.microsoft::SkipLayerNormalization. */
bool fl__rm_onnx_skip_layer_norm(rctx *r, fl_node *ln);

/* Add + Gelu -> com.microsoft::BiasGelu (bias_gelu_fusion). */
bool fl__rm_onnx_bias_gelu(rctx *r, fl_node *gelu);

/* Gemm(Transpose(a), ...) -> Gemm with transA/transB flipped
 * (gemm_transpose_fusion). */
bool fl__rm_onnx_gemm_transpose(rctx *r, fl_node *gemm);

/* Slices reading one tensor and tiling one axis -> Split
 * (gather_slice_to_split_fusion); n: the tensor's producer. */
bool fl__rm_onnx_slices_to_split(rctx *r, fl_node *n);

/* ---- onnx_contraction.c ---- */

/* The remapper's rules on an ONNX graph, rooted at n; true when one fired. */
/* onnx_basic.c: eliminate_dropout. */
bool fl__rm_onnx_eliminate_dropout(rctx *r, fl_node *n);

bool fl__rm_onnx_rewrite(rctx *r, fl_node *n);

#endif
