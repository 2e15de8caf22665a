/*
 * rewrite.c - how the remapper rewrites: attribute copies, the fused node
 * built in place of a pattern's root, the extra nodes of a decomposition,
 * and dropping matched nodes.
 *
 * Renaming. A fused node must carry the name of the node it replaces. The
 * mutation API has no rename, so replace_root() adds the new node under a
 * temporary unique name, redirects the old node's uses and control uses to
 * it (through the pass's edge index, which every new node and edge is noted
 * in: mutate.h), marks the old node removed and then sets the new node's
 * name to the old one. Until the fl__graph_compact() at the end of the pass the name index
 * still maps that name to the removed node (so no later fl__graph_unique_name
 * can hand the name out again); compaction rebuilds the index from the live
 * nodes, where the name is unique again. The pass looks nodes up by pointer,
 * never by name, between the two.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fl__rm_fail_oom(rctx *r) {
    if (r->st == FL_OK) {
        r->st = fl__diag_oom(r->d);
    }
}

void fl__rm_copy_attr(rctx *r, fl_node *dst, const fl_node *src, const char *name,
                      const fl_attr *dflt) {
    const fl_attr *a = fl__node_attr(src, name);
    if (!a) {
        a = dflt;
    }
    if (a && fl__node_set_attr(r->g, dst, a) != FL_OK) {
        fl__rm_fail_oom(r);
    }
}

void fl__rm_set_attr(rctx *r, fl_node *dst, fl_attr a) {
    if (fl__node_set_attr(r->g, dst, &a) != FL_OK) {
        fl__rm_fail_oom(r);
    }
}

fl_node *fl__rm_replace_root(rctx *r, fl_node *root, const char *op, const char *device,
                             int n_inputs, const fl_input *inputs, int n_outputs) {
    char *base = fl__arena_printf(r->g->arena, "%s/_remapper_new", root->name);
    const char *tmp = base ? fl__graph_unique_name(r->g, base) : NULL;
    fl_node *nn = tmp ? fl__op_add_op(r->g, tmp, op, n_inputs, inputs, n_outputs, r->d) : NULL;
    if (!nn) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    nn->device = device ? device : "";
    int ports = root->n_outputs < n_outputs ? root->n_outputs : n_outputs;
    for (int p = 0; p < ports; p++) {
        fl__edge_index_replace_uses(&r->edges, root, p, nn, p, r->d);
    }
    fl__edge_index_replace_ctrl_uses(&r->edges, root, nn, r->d);
    for (int k = 0; k < root->n_ctrl; k++) {
        if (fl__node_add_ctrl(r->g, nn, root->ctrl[k]) != FL_OK) {
            fl__rm_fail_oom(r);
        }
    }
    if (fl__edge_index_note(&r->edges, nn, r->d) != FL_OK) {
        fl__rm_fail_oom(r);
    }
    nn->flags |= root->flags & FL_NODE_PRESERVE;
    fl__graph_remove_node(root);
    nn->name = root->name;
    r->pc->rewritten++;
    return nn;
}

void fl__rm_drop(rctx *r, fl_node *n) {
    fl__graph_remove_node(n);
    r->pc->removed++;
}

fl_node *fl__rm_add_extra(rctx *r, const char *prefix, const char *suffix, const char *op,
                          const char *device, int n_inputs, const fl_input *inputs) {
    char *base = fl__arena_printf(r->g->arena, "%s/%s", prefix, suffix);
    const char *name = base ? fl__graph_unique_name(r->g, base) : NULL;
    fl_node *nn = name ? fl__op_add_op(r->g, name, op, n_inputs, inputs, 1, r->d) : NULL;
    if (!nn) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    nn->device = device ? device : "";
    r->pc->added++;
    if (fl__edge_index_note(&r->edges, nn, r->d) != FL_OK) {
        fl__rm_fail_oom(r);
        return NULL;
    }
    return nn;
}

const char *fl__rm_fused_name_of(const fl_node *c) {
    if (fl__rm_is_conv2d(c)) {
        return "_FusedConv2D";
    }
    if (fl__rm_is_depthwise(c)) {
        return "_FusedDepthwiseConv2dNative";
    }
    if (fl__rm_is_matmul(c)) {
        return "_FusedMatMul";
    }
    return "_FusedConv3D";
}

/* Copies the contraction's attrs as TensorFlow's Copy*Attributes do (with
 * op defaults for absent optional attrs). */
static void copy_contraction_attrs(rctx *r, fl_node *f, const fl_node *c) {
    fl_graph *g = r->g;
    static const int64_t ones4[4] = {1, 1, 1, 1}, ones5[5] = {1, 1, 1, 1, 1};
    fl__rm_copy_attr(r, f, c, "T", NULL);
    if (fl__rm_is_matmul(c)) {
        fl_attr ta = fl__attr_make_bool(g, "transpose_a", false);
        fl_attr tb = fl__attr_make_bool(g, "transpose_b", false);
        fl__rm_copy_attr(r, f, c, "transpose_a", &ta);
        fl__rm_copy_attr(r, f, c, "transpose_b", &tb);
        return;
    }
    fl_attr dil = fl__rm_is_conv3d(c) ? fl__attr_make_ints(g, "dilations", 5, ones5)
                                      : fl__attr_make_ints(g, "dilations", 4, ones4);
    fl_attr fmt = fl__attr_make_str(g, "data_format", fl__rm_is_conv3d(c) ? "NDHWC" : "NHWC");
    fl__rm_copy_attr(r, f, c, "strides", NULL);
    fl__rm_copy_attr(r, f, c, "padding", NULL);
    if (fl__rm_is_conv2d(c)) {
        fl_attr ep = fl__attr_make_ints(g, "explicit_paddings", 0, NULL);
        fl__rm_copy_attr(r, f, c, "explicit_paddings", &ep);
    }
    fl__rm_copy_attr(r, f, c, "dilations", &dil);
    fl__rm_copy_attr(r, f, c, "data_format", &fmt);
    if (fl__rm_is_conv2d(c)) {
        fl_attr cu = fl__attr_make_bool(g, "use_cudnn_on_gpu", true);
        fl__rm_copy_attr(r, f, c, "use_cudnn_on_gpu", &cu);
    }
}

void fl__rm_set_fused_attrs(rctx *r, fl_node *f, const char *const *ops, size_t n_ops,
                            int64_t num_args, float epsilon, const fl_node *act) {
    fl_graph *g = r->g;
    fl__rm_set_attr(r, f, fl__attr_make_strs(g, "fused_ops", n_ops, ops));
    fl__rm_set_attr(r, f, fl__attr_make_int(g, "num_args", num_args));
    fl__rm_set_attr(r, f, fl__attr_make_float(g, "epsilon", epsilon));
    if (act && act->kind == FL_OP_LEAKY_RELU) {
        fl__rm_set_attr(
            r, f, fl__attr_make_float(g, "leakyrelu_alpha", fl__attr_float(act, "alpha", 0.2f)));
    }
}

fl_node *fl__rm_build_fused(rctx *r, fl_node *root, const fl_node *c, const fl_input *args,
                            int n_args, const char *const *ops, size_t n_ops, float epsilon,
                            const fl_node *act) {
    fl_input in[8];
    in[0] = c->inputs[0];
    in[1] = c->inputs[1];
    for (int i = 0; i < n_args; i++) {
        in[2 + i] = args[i];
    }
    fl_node *f =
        fl__rm_replace_root(r, root, fl__rm_fused_name_of(c), c->device, 2 + n_args, in, 1);
    if (!f) {
        return NULL;
    }
    copy_contraction_attrs(r, f, c);
    fl__rm_set_fused_attrs(r, f, ops, n_ops, n_args, epsilon, act);
    return f;
}
