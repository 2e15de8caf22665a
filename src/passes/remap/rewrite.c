/*
 * rewrite.c - how the remapper rewrites: attribute copies, the fused node
 * built in place of a pattern's root, the extra nodes of a decomposition,
 * and dropping matched nodes.
 *
 * Renaming. A fused node carries the name of the node it replaces.
 * replace_root() adds the new node under that name with
 * fl__graph_add_op_taking_name, redirects the old node's uses and control
 * uses to it (through the pass's edge index, which every new node and edge
 * is noted in: mutate.h) and marks the old node removed. Until the
 * fl__graph_compact() at the end of the pass the name index still maps the
 * name to the removed node (so no later fl__graph_unique_name can hand the
 * name out again); compaction rebuilds the index from the live nodes, where
 * the name is unique again. The pass looks nodes up by pointer, never by
 * name, between the two.
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
    fl_node *nn = fl__op_add_op_taking_name(r->g, root, op, n_inputs, inputs, n_outputs, r->d);
    if (!nn) {
        if (r->st == FL_OK) {
            r->st = r->d->status != FL_OK ? r->d->status : FL_ENOMEM;
        }
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
    r->pc->rewritten++;
    return nn;
}

void fl__rm_drop(rctx *r, fl_node *n) {
    fl__graph_remove_node(n);
    r->pc->removed++;
}

fl_node *fl__rm_add_extra(rctx *r, const char *prefix, const char *suffix, const char *op,
                          const char *device, int n_inputs, const fl_input *inputs) {
    /* "prefix/suffix", joined on the stack when it fits: the graph keeps
     * only fl__graph_unique_name's copy */
    char buf[256];
    size_t lp = strlen(prefix), ls = strlen(suffix);
    char *base = lp + ls + 2 <= sizeof(buf) ? buf : fl__arena_alloc(r->g->arena, lp + ls + 2);
    if (base) {
        memcpy(base, prefix, lp);
        base[lp] = '/';
        memcpy(base + lp + 1, suffix, ls + 1);
    }
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

/* Attrs gathered for a new node, set on it in one go (fl__node_init_attrs):
 * the contraction's copied attrs and the fused ones. */
typedef struct attr_buf {
    fl_attr a[16];
    int n;
    bool oom;
} attr_buf;

static void put(attr_buf *b, fl_attr a) {
    FL_DCHECK(b->n < (int)(sizeof(b->a) / sizeof(b->a[0])));
    if (!a.name) {
        b->oom = true; /* the name could not be interned */
        return;
    }
    b->a[b->n++] = a;
}

/* Appends src's attr `name`; false when src has none (the caller appends
 * the op's default then). */
static bool put_copy(attr_buf *b, const fl_node *src, const char *name) {
    const fl_attr *a = fl__node_attr(src, name);
    if (a) {
        put(b, *a);
    }
    return a != NULL;
}

/* The contraction's attrs as TensorFlow's Copy*Attributes copy them (with
 * op defaults for absent optional attrs), in the order they set them. */
static void contraction_attrs(fl_graph *g, attr_buf *b, const fl_node *c) {
    static const int64_t ones4[4] = {1, 1, 1, 1}, ones5[5] = {1, 1, 1, 1, 1};
    put_copy(b, c, "T");
    if (fl__rm_is_matmul(c)) {
        if (!put_copy(b, c, "transpose_a")) {
            put(b, fl__attr_make_bool(g, "transpose_a", false));
        }
        if (!put_copy(b, c, "transpose_b")) {
            put(b, fl__attr_make_bool(g, "transpose_b", false));
        }
        return;
    }
    bool conv3d = fl__rm_is_conv3d(c), conv2d = fl__rm_is_conv2d(c);
    put_copy(b, c, "strides");
    put_copy(b, c, "padding");
    if (conv2d && !put_copy(b, c, "explicit_paddings")) {
        put(b, fl__attr_make_ints(g, "explicit_paddings", 0, NULL));
    }
    if (!put_copy(b, c, "dilations")) {
        put(b, conv3d ? fl__attr_make_ints(g, "dilations", 5, ones5)
                      : fl__attr_make_ints(g, "dilations", 4, ones4));
    }
    if (!put_copy(b, c, "data_format")) {
        put(b, fl__attr_make_str(g, "data_format", conv3d ? "NDHWC" : "NHWC"));
    }
    if (conv2d && !put_copy(b, c, "use_cudnn_on_gpu")) {
        put(b, fl__attr_make_bool(g, "use_cudnn_on_gpu", true));
    }
}

static void fused_attrs(fl_graph *g, attr_buf *b, const char *const *ops, size_t n_ops,
                        int64_t num_args, float epsilon, const fl_node *act) {
    put(b, fl__attr_make_strs(g, "fused_ops", n_ops, ops));
    put(b, fl__attr_make_int(g, "num_args", num_args));
    put(b, fl__attr_make_float(g, "epsilon", epsilon));
    if (act && act->kind == FL_OP_LEAKY_RELU) {
        put(b, fl__attr_make_float(g, "leakyrelu_alpha", fl__attr_float(act, "alpha", 0.2f)));
    }
}

void fl__rm_set_fused_attrs(rctx *r, fl_node *f, const char *const *ops, size_t n_ops,
                            int64_t num_args, float epsilon, const fl_node *act) {
    attr_buf b = {.n = 0, .oom = false};
    fused_attrs(r->g, &b, ops, n_ops, num_args, epsilon, act);
    if (b.oom) {
        fl__rm_fail_oom(r);
    }
    for (int i = 0; i < b.n; i++) {
        fl__rm_set_attr(r, f, b.a[i]);
    }
}

static bool ptr_const_eq(const fl_const *a, const fl_const *b, void *arg) {
    (void)arg;
    return a == b;
}

/* The attrs of `b` are those of the array a (n of them): same names, kinds
 * and values in the same order (fl__attr_equal; constants the same ones), and
 * lists of the same element kind also when empty, so that every reader of
 * the attrs (the writers too) sees what it would see in b's own copy. */
static bool same_attrs(const fl_attr *a, int n, const attr_buf *b) {
    if (!a || n != b->n) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        const fl_attr *x = &a[i], *y = &b->a[i];
        if ((x->kind == FL_ATTR_LIST && x->list_kind != y->list_kind) ||
            !fl__attr_equal(x, y, ptr_const_eq, NULL)) {
            return false;
        }
    }
    return true;
}

/* Whether the last array fl__rm_build_fused made (r->fused_attrs) came
 * from these arguments; with `set`, records them as its arguments. */
static bool fused_key(rctx *r, const fl_node *c, const char *const *ops, size_t n_ops, int n_args,
                      float epsilon, const fl_node *act, bool set) {
    const size_t max_ops = sizeof(r->fused_key.ops) / sizeof(r->fused_key.ops[0]);
    bool leaky = act && act->kind == FL_OP_LEAKY_RELU;
    const fl_attr *act_attrs = leaky ? act->attrs : NULL;
    int act_n = leaky ? act->n_attrs : 0;
    if (set) {
        r->fused_key.ok = n_ops <= max_ops && c->attrs;
        r->fused_key.attrs = c->attrs;
        r->fused_key.n_attrs = c->n_attrs;
        r->fused_key.n_args = n_args;
        r->fused_key.kind = c->kind;
        r->fused_key.op = c->op;
        for (size_t i = 0; i < n_ops && i < max_ops; i++) {
            r->fused_key.ops[i] = ops[i];
        }
        r->fused_key.n_ops = n_ops;
        r->fused_key.epsilon = epsilon;
        r->fused_key.act_attrs = act_attrs;
        r->fused_key.act_n_attrs = act_n;
        return true;
    }
    if (!r->fused_key.ok || !r->fused_attrs || r->fused_key.attrs != c->attrs ||
        r->fused_key.n_attrs != c->n_attrs || r->fused_key.n_args != n_args ||
        r->fused_key.kind != c->kind || strcmp(r->fused_key.op, c->op) != 0 ||
        r->fused_key.n_ops != n_ops || r->fused_key.act_attrs != act_attrs ||
        r->fused_key.act_n_attrs != act_n ||
        memcmp(&r->fused_key.epsilon, &epsilon, sizeof(epsilon)) != 0) {
        return false;
    }
    for (size_t i = 0; i < n_ops; i++) {
        if (strcmp(r->fused_key.ops[i], ops[i]) != 0) {
            return false;
        }
    }
    return true;
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
    /* f has no attrs yet and every name below is distinct: the array is
     * what setting them one by one would give, in one allocation of the
     * exact size, which nothing writes in place (a caller setting more
     * afterwards gets a copy: mutate.h). So a run of fused nodes with the
     * same attrs (a chain of equal layers) shares one array. */
    if (fused_key(r, c, ops, n_ops, n_args, epsilon, act, false)) {
        fl__node_set_attrs(r->g, f, r->n_fused_attrs, r->fused_attrs);
        return f;
    }
    attr_buf b = {.n = 0, .oom = false};
    contraction_attrs(r->g, &b, c);
    fused_attrs(r->g, &b, ops, n_ops, n_args, epsilon, act);
    if (b.oom) {
        fl__rm_fail_oom(r);
        return f;
    }
    if (same_attrs(r->fused_attrs, r->n_fused_attrs, &b)) {
        fl__node_set_attrs(r->g, f, b.n, r->fused_attrs);
    } else if (fl__node_init_attrs(r->g, f, b.n, b.a, 0) != FL_OK) {
        fl__rm_fail_oom(r);
        return f;
    } else {
        r->fused_attrs = f->attrs;
        r->n_fused_attrs = b.n;
    }
    fused_key(r, c, ops, n_ops, n_args, epsilon, act, true);
    return f;
}
