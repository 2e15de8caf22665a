/*
 * stock_other.c - the remapper's other standard rules (rows 8, 10, 11):
 * comparison + Cast, AsString + StringToHashBucketFast ->
 * _TensorToHashBucketFast, and the dilated convolution
 * (SpaceToBatchND + Conv2D + BatchToSpaceND). Each rule's pattern,
 * conditions and new-node names are at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool is_comparison(const fl_node *n) {
    return n->kind == FL_OP_EQUAL || n->kind == FL_OP_NOT_EQUAL || n->kind == FL_OP_GREATER ||
           n->kind == FL_OP_GREATER_EQUAL || n->kind == FL_OP_LESS || n->kind == FL_OP_LESS_EQUAL;
}

/* Pattern (table row 10): comparison -> Cast  =>  "_<Comparison>WithCast"
 * named after the Cast, inputs of the comparison, T of the comparison.
 * Conditions: Cast with one data input and no control edges; comparison
 * without control edges; both on CPU; comparison T float or bfloat16; Cast
 * SrcT=bool and DstT=T; at most one data consumer of the comparison (Shape,
 * Rank ignored); comparison not preserved. */
bool fl__rm_rewrite_comparison_cast(rctx *r, fl_node *cast) {
    if (cast->kind != FL_OP_CAST || fl__rm_has_ctrl(r, cast) || !fl__rm_on_cpu(r, cast) ||
        cast->n_inputs != 1) {
        return false;
    }
    fl_node *cmp = fl__rm_in_node(cast, 0);
    if (fl__rm_is_removed(cmp) || !is_comparison(cmp) || cmp->n_inputs < 2 ||
        fl__rm_has_ctrl(r, cmp) || !fl__rm_on_cpu(r, cmp)) {
        return false;
    }
    int t = fl__attr_type(cmp, "T");
    if (t != FL_DT_FLOAT && t != FL_DT_BFLOAT16) {
        return false;
    }
    if (fl__attr_type(cast, "DstT") != t || fl__attr_type(cast, "SrcT") != FL_DT_BOOL ||
        !fl__rm_one_data_fanout0(r, cmp) || fl__preserved(cmp)) {
        return false;
    }
    char *op = fl__arena_printf(r->g->arena, "_%sWithCast", cmp->op);
    if (!op) {
        fl__rm_fail_oom(r);
        return false;
    }
    fl__ledger_note(r->pc, "comparison_cast", cast, "%s+Cast -> %s", cmp->op, op);
    fl_node *f = fl__rm_replace_root(r, cast, op, cmp->device, 2, cmp->inputs, 1);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, cmp, "T", NULL);
    fl__rm_drop(r, cmp);
    return true;
}

/* Pattern (table row 8): AsString -> StringToHashBucketFast  =>
 * _TensorToHashBucketFast named after the hash, input of the AsString, T of
 * the AsString, num_buckets of the hash. Conditions: no control edges on
 * either; AsString T int8/16/32/64, width -1 (default), fill "" (default),
 * one consumer, not preserved. */
bool fl__rm_rewrite_tensor_to_hash_bucket(rctx *r, fl_node *hash) {
    if (!fl__is_pass_op(hash, FL_POP_STRING_TO_HASH_BUCKET_FAST) || hash->n_inputs < 1 ||
        fl__rm_has_ctrl(r, hash)) {
        return false;
    }
    fl_node *as = fl__rm_in_node(hash, 0);
    if (fl__rm_is_removed(as) || !fl__is_pass_op(as, FL_POP_AS_STRING) || as->n_inputs < 1 ||
        fl__rm_has_ctrl(r, as) || !fl__rm_one_fanout0(r, as) || fl__preserved(as)) {
        return false;
    }
    int t = fl__attr_type(as, "T");
    if (t != FL_DT_INT8 && t != FL_DT_INT16 && t != FL_DT_INT32 && t != FL_DT_INT64) {
        return false;
    }
    const fl_attr *w = fl__node_attr(as, "width");
    if (w && (w->kind != FL_ATTR_I || w->v.i != -1)) {
        return false;
    }
    const char *fill = fl__attr_str(as, "fill", "");
    if (fill[0]) {
        return false;
    }
    fl__ledger_note(r->pc, "tensor_to_hash_bucket", hash,
                    "AsString+StringToHashBucketFast -> _TensorToHashBucketFast");
    fl_node *f = fl__rm_replace_root(r, hash, fl__op_name(FL_OP_TENSOR_TO_HASH_BUCKET_FAST),
                                     hash->device, 1, as->inputs, 1);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, as, "T", NULL);
    fl__rm_copy_attr(r, f, hash, "num_buckets", NULL);
    fl__rm_drop(r, as);
    return true;
}

bool fl__rm_int_input(const fl_node *n, int i, int64_t *out, int64_t cap, int64_t *len) {
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
bool fl__rm_rewrite_dilated_conv(rctx *r, fl_node *b2s) {
    if (b2s->kind != FL_OP_BATCH_TO_SPACE_ND || b2s->n_inputs < 3 || fl__rm_has_ctrl(r, b2s)) {
        return false;
    }
    fl_node *c = fl__rm_in_node(b2s, 0);
    if (fl__rm_is_removed(c) || !(fl__rm_is_conv2d(c) || (r->onednn && fl__rm_is_depthwise(c))) ||
        c->n_inputs < 2 || fl__rm_has_ctrl(r, c) || !fl__rm_one_fanout0(r, c) || fl__preserved(c)) {
        return false;
    }
    if (strcmp(fl__attr_str(c, "data_format", "NHWC"), "NHWC") != 0) {
        return false;
    }
    fl_node *s2b = fl__rm_in_node(c, 0);
    if (fl__rm_is_removed(s2b) || s2b->kind != FL_OP_SPACE_TO_BATCH_ND || s2b->n_inputs < 3 ||
        fl__rm_has_ctrl(r, s2b) || !fl__rm_one_fanout0(r, s2b) || fl__preserved(s2b)) {
        return false;
    }
    int64_t bs1[4], bs2[4], pad[4], crop[4], n1, n2, np, nc;
    if (!fl__rm_int_input(s2b, 1, bs1, 4, &n1) || !fl__rm_int_input(b2s, 1, bs2, 4, &n2) ||
        n1 != 2 || n2 != 2 || bs1[0] != bs2[0] || bs1[1] != bs2[1]) {
        return false;
    }
    if (!fl__rm_int_input(s2b, 2, pad, 4, &np) || !fl__rm_int_input(b2s, 2, crop, 4, &nc) ||
        np != 4 || nc != 4) {
        return false;
    }
    bool same = false;
    for (int k = 0; k < 4; k++) {
        same |= pad[k] - crop[k] != 0;
    }
    fl__ledger_note(r->pc, "dilated_conv", b2s, "SpaceToBatchND+%s+BatchToSpaceND -> %s", c->op,
                    c->op);
    fl_input in[2] = {s2b->inputs[0], c->inputs[1]};
    fl_node *f = fl__rm_replace_root(r, b2s, c->op, c->device, 2, in, 1);
    if (!f) {
        return false;
    }
    for (int i = 0; i < c->n_attrs; i++) {
        fl__rm_set_attr(r, f, c->attrs[i]);
    }
    int64_t dil[4] = {1, bs1[0], bs1[1], 1};
    fl__rm_set_attr(r, f, fl__attr_make_ints(r->g, "dilations", 4, dil));
    if (same) {
        fl__rm_set_attr(r, f, fl__attr_make_str(r->g, "padding", "SAME"));
    }
    fl__rm_drop(r, c);
    fl__rm_drop(r, s2b);
    return true;
}
