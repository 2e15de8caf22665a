/*
 * embed.c - ONNX Runtime contrib embedding ops (domain com.microsoft):
 * RotaryEmbedding, EmbedLayerNormalization (BERT's fused embeddings), its
 * quantized form QEmbedLayerNormalization, and GatherBlockQuantized (an
 * embedding table gathered from block-quantized weights).
 *
 * Shapes (ORT's contrib op schemas):
 *   RotaryEmbedding  input (B, S, N*D) or (B, N, S, D), position_ids,
 *     cos_cache and sin_cache (max positions, Dr / 2); output the input's
 *     shape and dtype. D = the last dim (rank 4), else hidden / num_heads
 *     (attr), else Dr. Dr = attr rotary_embedding_dim when > 0, else 2 *
 *     cos_cache's last dim, else D (partial rotation: Dr < D).
 *     ai.onnx's RotaryEmbedding (opset 23; row here, same rule) orders its
 *     inputs X, cos_cache, sin_cache, position_ids (optional; without it the
 *     caches are (B, S, Dr / 2)).
 *   EmbedLayerNormalization  input_ids (B, S), segment_ids (optional),
 *     word_embedding (V, H), position_embedding (P, H), segment_embedding
 *     (optional), gamma (H), beta (H), mask (B, S, optional), position_ids
 *     (optional); outputs output (B, S, H) of word_embedding's
 *     dtype, mask_index (B) int32, embedding_sum (B, S, H, optional).
 *   QEmbedLayerNormalization  EmbedLayerNormalization's inputs 0-7 with
 *     the tables, gamma and beta quantized (uint8/int8), then their scales
 *     (word, position, segment?, gamma, beta: inputs 8-12) and zero points
 *     (inputs 13-17, segment's optional); outputs layernorm_out (B, S, H)
 *     of word_embedding_scale's type and mask_index_out (B) int32.
 *   GatherBlockQuantized  data (rank r >= 1; int4/uint4, uint8 packing 8 /
 *     bits values per byte along its last dim, or FP8/FP4), indices (rank
 *     q), scales, zero_points (optional); attrs gather_axis (0), bits (4).
 *     Output: Gather of data's unpacked shape along gather_axis (data dims
 *     before it, indices' dims, data dims after it), of scales' dtype. bits
 *     outside 2, 4, 8 or a gather_axis out of range fail naming the node and
 *     the attribute.
 *
 * FLOP rules ("complete" convention; no MACs):
 *   RotaryEmbedding  3 per rotated element (x * cos, x_rot * sin, the add):
 *     3 * rows * Dr, rows = E(input) / D (the copied tail of a partial
 *     rotation counts 0).
 *   EmbedLayerNormalization  the gathers 0; per output element the
 *     position add 1, the segment add 1 when segment_embedding is given, then
 *     onnx LayerNormalization's 6 per element + 2 per row + 1 per element
 *     (beta, a required input); + B * S for mask_index (the mask's row sums) when mask is
 *     given.
 *   QEmbedLayerNormalization  EmbedLayerNormalization's count, plus the
 *     dequantisation (q - zp) * scale of each gathered table element (word,
 *     position, segment when given: per output element int_ops 1 and FLOPs
 *     1 each) and of gamma and beta (H each).
 *   GatherBlockQuantized  per output element the dequantisation (q - zp) *
 *     scale: int_ops E(out) (the zero point's subtraction on integers; an
 *     absent zero point is a default, still subtracted) and FLOPs E(out)
 *     (the scale); FP8/FP4 data: FLOPs E(out), no integer operations.
 */
#include "ops/onnxops/util.h"

/* ------------------------------------------------------------------------- */
/* RotaryEmbedding                                                            */
/* ------------------------------------------------------------------------- */

/* rows = E(input) / D and the rotated width Dr. */
static fl_status rotary_read(fl_ctx *c, const fl_node *n, fl_sym *rows, fl_sym *dr) {
    int cos_i = n->kind == FL_OP_ONNX_ROTARY_EMBEDDING ? 1 : 2;
    const fl_shape *x = fl__op_in_shape(n, 0), *cs = fl__op_in_shape(n, cos_i);
    int64_t heads = 0, rot = 0;
    fl_status st;
    if ((st = fl__attr_int_or(n, "num_heads", 0, &heads, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "rotary_embedding_dim", 0, &rot, c->d)) != FL_OK) {
        return st;
    }
    if (heads < 0 || rot < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is negative",
                             heads < 0 ? "num_heads" : "rotary_embedding_dim");
    }
    if (x->rank >= 0 && x->rank != 3 && x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (input) has rank %d, want 3 (B, S, hidden) or 4 (B, N, S, "
                             "D)",
                             x->rank);
    }
    fl_arith k = {c, n, FL_OK};
    *dr = rot > 0         ? fl_sym_const(rot)
          : cs->rank >= 2 ? fl__ar_scale(&k, fl__shape_dim(cs, cs->rank - 1), 2)
          : x->rank == 4  ? fl__shape_dim(x, 3)
                          : fl_sym_unknown();
    if (x->rank == 4) {
        *rows = fl__ar_dims_prod(&k, x, 0, 3);
    } else if (x->rank == 3 && heads > 0) {
        *rows = fl__ar_scale(&k, fl__ar_dims_prod(&k, x, 0, 2), heads);
    } else if (x->rank == 3 && fl_sym_is_known(fl__shape_dim(x, 2)) && fl_sym_is_known(*dr) &&
               dr->k > 0 && fl__shape_dim(x, 2).k % dr->k == 0) {
        /* no num_heads: the head size is the rotated width */
        *rows = fl__ar_scale(&k, fl__ar_dims_prod(&k, x, 0, 2), fl__shape_dim(x, 2).k / dr->k);
    } else {
        *rows = fl_sym_unknown();
    }
    return k.st;
}

static fl_status infer_rotary(fl_ctx *c, fl_node *n) {
    fl_sym rows, dr;
    fl_status st = rotary_read(c, n, &rows, &dr);
    return st == FL_OK ? fl__ox_infer_same(c, n) : st;
}

static fl_status cost_rotary(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_sym rows, dr;
    fl_status st = rotary_read(c, n, &rows, &dr);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, fl__ar_mul(&k, rows, dr), 3), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* EmbedLayerNormalization                                                    */
/* ------------------------------------------------------------------------- */

static fl_status infer_embed_ln(fl_ctx *c, fl_node *n) {
    const fl_shape *ids = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 2);
    if (ids->rank >= 0 && ids->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (input_ids) has rank %d, want 2 (B, S)",
                             ids->rank);
    }
    if (w->rank >= 0 && w->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 2 (word_embedding) has rank %d, want 2 (vocabulary, hidden)",
                             w->rank);
    }
    fl_sym h = fl__shape_dim(w, 1), m;
    for (int i = 3; i < 7; i++) { /* segment_embedding (4) may be absent */
        const fl_shape *s = fl__op_in_shape(n, i);
        fl_status st;
        if (!fl__ox_absent(n, i) && s->rank >= 1 &&
            (st = fl__op_merge_dim(c, n, h, s->dims[s->rank - 1],
                                   "the hidden size of input 2 (word_embedding) and inputs 3-6",
                                   &m)) != FL_OK) {
            return st;
        }
    }
    fl_sym b = fl__shape_dim(ids, 0), s = fl__shape_dim(ids, 1);
    int dt = fl__ox_in_dtype(n, 2);
    fl_status st = fl__op_set_output(c, n, 0, dt, 3, (fl_sym[]){b, s, h});
    if (st == FL_OK) {
        st = fl__ox_set_out(c, n, 1, FL_DT_INT32, 1, &b);
    }
    return st == FL_OK ? fl__ox_set_out(c, n, 2, dt, 3, (fl_sym[]){b, s, h}) : st;
}

static fl_status cost_embed_ln(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *ids = fl__op_in_shape(n, 0);
    fl_sym rows = ids->rank == 2 ? fl__ar_dims_prod(&k, ids, 0, 2) : fl_sym_unknown();
    fl_sym e = fl__ar_mul(&k, rows, fl__shape_dim(fl__op_in_shape(n, 2), 1));
    int64_t per = 1 + !fl__ox_absent(n, 4) + 6 + 1;
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, e, per), fl__ar_scale(&k, rows, 2));
    if (!fl__ox_absent(n, 7)) {
        f = fl__ar_add(&k, f, rows);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_qembed_ln(fl_ctx *c, fl_node *n) {
    fl_status st = infer_embed_ln(c, n);
    return st == FL_OK ? fl__ox_retype(c, n, 0, fl__ox_in_dtype(n, 8)) : st;
}

static fl_status cost_qembed_ln(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_cost base = {0};
    fl_status st = cost_embed_ln(c, n, &base);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    const fl_shape *ids = fl__op_in_shape(n, 0);
    fl_sym h = fl__shape_dim(fl__op_in_shape(n, 2), 1);
    fl_sym e =
        fl__ar_mul(&k, ids->rank == 2 ? fl__ar_dims_prod(&k, ids, 0, 2) : fl_sym_unknown(), h);
    fl_sym dq =
        fl__ar_add(&k, fl__ar_scale(&k, e, 2 + !fl__ox_absent(n, 4)), fl__ar_scale(&k, h, 2));
    fl_sym flops = base.incomplete ? fl_sym_unknown() : fl__ar_add(&k, base.flops, dq);
    return fl__ar_put_int_cost(&k, out, flops, fl_sym_const(0), dq);
}

/* ------------------------------------------------------------------------- */
/* GatherBlockQuantized                                                       */
/* ------------------------------------------------------------------------- */

static fl_status infer_gather_bq(fl_ctx *c, fl_node *n) {
    const fl_tensor *data = fl_node_in(n, 0);
    const fl_shape *d = &data->shape, *idx = fl__op_in_shape(n, 1);
    int64_t axis = 0, bits = 4;
    fl_status st;
    if ((st = fl__attr_int_or(n, "gather_axis", 0, &axis, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "bits", 4, &bits, c->d)) != FL_OK) {
        return st;
    }
    if (bits != 2 && bits != 4 && bits != 8) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'bits' is %lld, want 2, 4 or 8",
                             (long long)bits);
    }
    int dt = fl__ox_in_dtype(n, 2);
    if (d->rank < 0 || idx->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    int ax;
    if ((st = fl__ox_norm_axis(c, n, axis, d->rank, "attr 'gather_axis'", &ax)) != FL_OK) {
        return st;
    }
    if (d->rank + idx->rank - 1 > 64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "output rank %d is over 64",
                             d->rank + idx->rank - 1);
    }
    fl_sym dims[64];
    int r = 0;
    for (int i = 0; i < d->rank; i++) {
        if (i == ax) {
            for (int j = 0; j < idx->rank; j++) {
                dims[r++] = idx->dims[j];
            }
            continue;
        }
        dims[r] = d->dims[i];
        if (i == d->rank - 1 && fl_dtype_base(data->dtype) == FL_DT_UINT8 && bits < 8 &&
            (st = fl__op_scale(c, n, d->dims[i], 8 / bits, &dims[r])) != FL_OK) {
            return st;
        }
        r++;
    }
    return fl__op_set_output(c, n, 0, dt, r, dims);
}

static fl_status cost_gather_bq(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    bool integer = fl__dtype_is_integer(fl__ox_in_dtype(n, 0));
    return fl__ar_put_int_cost(&k, out, e, fl_sym_const(0), integer ? e : fl_sym_const(0));
}

/* clang-format off */
#define HOOKS_rotary .infer = infer_rotary, .cost = cost_rotary
#define HOOKS_embed_ln .infer = infer_embed_ln, .cost = cost_embed_ln
#define HOOKS_qembed_ln .infer = infer_qembed_ln, .cost = cost_qembed_ln
#define HOOKS_gather_bq .infer = infer_gather_bq, .cost = cost_gather_bq
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/embed.def"
#undef FL_OP
