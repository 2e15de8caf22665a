/*
 * predicates.c - the remapper's predicates: placement (a node with an empty
 * device is on the pass's target device; see remapper.c), attr reads, fan-out
 * from the use lists built at the start of the pass, the op families the
 * rules match, and the CPU/GPU conditions of the contraction fusions
 * (remapper.cc's IsCpuCompatible / IsGpuCompatible).
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool fl__rm_is_removed(const fl_node *n) {
    return (n->flags & FL_NODE_REMOVED) != 0;
}

bool fl__rm_on_cpu(const rctx *r, const fl_node *n) {
    return fl__node_device(n, r->target) == FL_DEV_CPU;
}

bool fl__rm_on_gpu(const rctx *r, const fl_node *n) {
    return fl__node_device(n, r->target) == FL_DEV_GPU;
}

bool fl__rm_same_t(const fl_node *a, const fl_node *b) {
    int ta = fl__attr_type(a, "T");
    return ta != FL_DT_INVALID && ta == fl__attr_type(b, "T");
}

bool fl__rm_t_float_or_bf16(const fl_node *n) {
    int t = fl__attr_type(n, "T");
    return t == FL_DT_FLOAT || t == FL_DT_BFLOAT16;
}

bool fl__rm_has_ctrl(const rctx *r, const fl_node *n) {
    if (n->n_ctrl > 0) {
        return true;
    }
    return n->id < r->n0 ? r->uses.ctrl_counts[n->id] > 0 : true;
}

size_t fl__rm_fanout(const rctx *r, const fl_node *n, int port) {
    if (n->id >= r->n0 || port >= n->n_outputs) {
        return port >= n->n_outputs ? 0 : (size_t)-1;
    }
    size_t k;
    fl__uses_of(&r->uses, n, port, &k);
    return k;
}

bool fl__rm_one_fanout0(const rctx *r, const fl_node *n) {
    return fl__rm_fanout(r, n, 0) <= 1;
}

bool fl__rm_one_data_fanout0(const rctx *r, const fl_node *n) {
    if (n->id >= r->n0) {
        return false;
    }
    size_t k, cnt = 0;
    const fl_use *u = fl__uses_of(&r->uses, n, 0, &k);
    for (size_t i = 0; i < k; i++) {
        if (u[i].node->kind != FL_OP_SHAPE && u[i].node->kind != FL_OP_RANK) {
            cnt++;
        }
    }
    return cnt <= 1;
}

bool fl__rm_fanout_beyond0(const rctx *r, const fl_node *n) {
    for (int p = 1; p < n->n_outputs; p++) {
        if (fl__rm_fanout(r, n, p) > 0) {
            return true;
        }
    }
    return false;
}

fl_node *fl__rm_in_node(const fl_node *n, int i) {
    return i < n->n_inputs ? n->inputs[i].node : NULL;
}

bool fl__rm_known_input(const fl_node *n, int i) {
    if (i >= n->n_inputs) {
        return false;
    }
    return fl_node_in(n, i)->value != NULL || n->inputs[i].node->kind == FL_OP_CONST;
}

bool fl__rm_is_conv2d(const fl_node *n) {
    return n->kind == FL_OP_CONV2D;
}
bool fl__rm_is_depthwise(const fl_node *n) {
    return n->kind == FL_OP_DEPTHWISE_CONV2D_NATIVE;
}
bool fl__rm_is_matmul(const fl_node *n) {
    return n->kind == FL_OP_MATMUL;
}
bool fl__rm_is_conv3d(const fl_node *n) {
    return n->kind == FL_OP_CONV3D;
}

bool fl__rm_is_fused_batch_norm(const fl_node *n) {
    return n->kind == FL_OP_FUSED_BATCH_NORM || n->kind == FL_OP_FUSED_BATCH_NORM_V2 ||
           n->kind == FL_OP_FUSED_BATCH_NORM_V3;
}

bool fl__rm_cpu_dtype_ok(const rctx *r, const fl_node *c) {
    int t = fl__attr_type(c, "T");
    if (r->onednn) {
        return t == FL_DT_FLOAT || t == FL_DT_BFLOAT16;
    }
    if (fl__rm_is_conv2d(c)) {
        return t == FL_DT_FLOAT || t == FL_DT_DOUBLE;
    }
    if (fl__rm_is_matmul(c)) {
        return t == FL_DT_FLOAT;
    }
    return false;
}

bool fl__rm_cpu_format_ok(const rctx *r, const fl_node *c) {
    const char *f = fl__attr_str(c, "data_format", fl__rm_is_conv3d(c) ? "NDHWC" : "NHWC");
    if (fl__rm_is_conv3d(c)) {
        return strcmp(f, "NDHWC") == 0 || (r->onednn && strcmp(f, "NCDHW") == 0);
    }
    return strcmp(f, "NHWC") == 0 || (r->onednn && strcmp(f, "NCHW") == 0);
}

bool fl__rm_cpu_contraction_ok(const rctx *r, const fl_node *c) {
    if (!fl__rm_on_cpu(r, c)) {
        return false;
    }
    if (fl__rm_is_conv2d(c) || fl__rm_is_conv3d(c)) {
        return (fl__rm_is_conv2d(c) || r->onednn) && fl__rm_cpu_dtype_ok(r, c) &&
               fl__rm_cpu_format_ok(r, c);
    }
    if (fl__rm_is_depthwise(c)) {
        return r->onednn && fl__rm_cpu_dtype_ok(r, c);
    }
    if (fl__rm_is_matmul(c)) {
        return fl__rm_cpu_dtype_ok(r, c);
    }
    return false;
}

bool fl__rm_gpu_contraction_ok(const rctx *r, const fl_node *c, const fl_node *act) {
    if (!act || act->kind != FL_OP_RELU || !fl__rm_is_conv2d(c) || !fl__rm_on_gpu(r, c)) {
        return false;
    }
    if (fl__attr_type(c, "T") != FL_DT_FLOAT) {
        return false;
    }
    const char *f = fl__attr_str(c, "data_format", "NHWC");
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

bool fl__rm_is_activation(const rctx *r, const fl_node *n) {
    if (n->kind == FL_OP_RELU || n->kind == FL_OP_RELU6 || n->kind == FL_OP_ELU ||
        n->kind == FL_OP_LEAKY_RELU) {
        return true;
    }
    return r->onednn && (n->kind == FL_OP_TANH || n->kind == FL_OP_SIGMOID);
}
