/*
 * nbits.c - qdq_matmul_nbits, ONNX Runtime's DQMatMulToMatMulNBits rule
 * (DQMatMulNodeGroupSelector and DQMatMulToMatMulNBitsAction in
 * onnxruntime/core/optimizer/qdq_transformer/selectors_actions/, the
 * 'extended' level): a MatMul whose B is a DequantizeLinear of 4-bit
 * blockwise weights becomes com.microsoft MatMulNBits, the weight-only
 * quantized matmul of LLM graphs, with the weights re-laid as that operator
 * stores them. The MACs stay those of the float MatMul, the FLOPs and
 * int_ops those of the DequantizeLinear and the MatMul (MatMulNBits' rule,
 * src/ops/onnxms/quant.c); the bytes become the packed weights' (half a
 * byte each) instead of the float weights' written and read again.
 *
 * Group: DQ(w) -> MatMul (input 1), with
 *  - MatMul's input 0 not from a DequantizeLinear (ORT's selector takes
 *    exactly one DQ input), no QuantizeLinear among its readers;
 *  - the DQ read by nothing else and not a graph output;
 *  - w a constant int4 or uint4 [K, N]; the scale a constant float or
 *    float16 [ceil(K / block_size), N]; the zero point absent or a constant
 *    of w's type and the scale's shape;
 *  - the DQ's attrs block_size >= 16 and a power of two, and axis given as
 *    0 (ORT requires the attr; DequantizeLinear's default axis is 1).
 * Result (ORT 1.30's layout, checked against the graph ONNX Runtime writes
 * for the same model): MatMulNBits(A, B', scales'[, zero_points']) with
 * attrs K, N, bits 4, block_size, accuracy_level 4 (ORT's default for the
 * option), named after the MatMul; the new constants:
 *  B'           uint8 [N, k_blocks, block_size / 2]: for column n and block
 *               b, the weights k = b * block_size ... in order, two per
 *               byte, the first in the low nibble; an int4 weight is stored
 *               plus 8 (its unsigned form), the padding past K is 0;
 *  scales'      the scale's type, [N * k_blocks]: element n * k_blocks + b
 *               is scale[b][n];
 *  zero_points' uint8 [N * ceil(k_blocks / 2)], column n's blocks two per
 *               byte as B' (int4 plus 8); for uint4 weights without a zero
 *               point all zero (MatMulNBits' own default is 8); none for
 *               int4 weights without one (the default 8 is int4's 0).
 * The constants hold values when w, the scale and the zero point have them,
 * else they are stripped constants of that shape (a weight-stripped file
 * stays costable and writable).
 */
#include "import/import.h"
#include "passes/qdq/qdq.h"
#include "passes/util.h"

#include <string.h>

typedef struct nctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    const fl_uses *uses;
    fl_edge_index *edges;
    size_t n0;
    fl_status *st;
} nctx;

static bool gone(const fl_node *n) {
    return (n->flags & FL_NODE_REMOVED) != 0;
}

static bool is_dq(const fl_node *n) {
    return n && !gone(n) &&
           (n->kind == FL_OP_ONNX_DEQUANTIZE_LINEAR || n->kind == FL_OP_ONNX_MS_DEQUANTIZE_LINEAR);
}

static bool is_q(const fl_node *n) {
    return n->kind == FL_OP_ONNX_QUANTIZE_LINEAR || n->kind == FL_OP_ONNX_MS_QUANTIZE_LINEAR;
}

static bool present(const fl_node *n, int i) {
    return i < n->n_inputs && n->inputs[i].node && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT;
}

/* Live readers of output 0 of an original node; *q set when one is a Q. */
static size_t readers(const nctx *x, const fl_node *n, bool *q) {
    size_t cnt, live = 0;
    const fl_use *u = fl__uses_of(x->uses, n, 0, &cnt);
    for (size_t i = 0; i < cnt; i++) {
        if (!gone(u[i].node)) {
            live++;
            *q |= is_q(u[i].node);
        }
    }
    return live;
}

static bool has_ctrl(const nctx *x, const fl_node *n) {
    return n->n_ctrl > 0 || x->uses->ctrl_counts[n->id] > 0;
}

/* Input i of n is a Const of dtype in {a, b} and rank 2 with known dims. */
static const fl_tensor *const2(const fl_node *n, int i, int a, int b) {
    if (!present(n, i) || n->inputs[i].node->kind != FL_OP_CONST) {
        return NULL;
    }
    const fl_tensor *t = fl_node_in(n, i);
    bool ok = (t->dtype == (fl_dtype)a || t->dtype == (fl_dtype)b) && t->shape.rank == 2 &&
              fl_sym_is_known(t->shape.dims[0]) && fl_sym_is_known(t->shape.dims[1]);
    return ok ? t : NULL;
}

/* The group's conditions; the DQ or NULL. */
static fl_node *match(const nctx *x, fl_node *t) {
    bool q = false;
    if (t->kind != FL_OP_ONNX_MATMUL || t->id >= x->n0 || gone(t) || t->n_inputs != 2 ||
        !present(t, 0) || is_dq(t->inputs[0].node) || has_ctrl(x, t) || (readers(x, t, &q), q)) {
        return NULL;
    }
    fl_node *dq = t->inputs[1].node;
    if (!is_dq(dq) || t->inputs[1].port != 0 || dq->id >= x->n0 || fl__preserved(dq) ||
        has_ctrl(x, dq) || readers(x, dq, &q) != 1) {
        return NULL;
    }
    const fl_tensor *w = const2(dq, 0, FL_DT_INT4, FL_DT_UINT4);
    const fl_tensor *s = const2(dq, 1, FL_DT_FLOAT, FL_DT_HALF);
    const fl_attr *bsa = fl__node_attr(dq, "block_size"), *axa = fl__node_attr(dq, "axis");
    if (!w || !s || !bsa || !axa || bsa->kind != FL_ATTR_I || axa->kind != FL_ATTR_I ||
        axa->v.i != 0) {
        return NULL;
    }
    int64_t bs = bsa->v.i, k = w->shape.dims[0].k, n = w->shape.dims[1].k;
    if (bs < 16 || (bs & (bs - 1)) != 0 || k <= 0 || n <= 0 ||
        s->shape.dims[0].k != (k + bs - 1) / bs || s->shape.dims[1].k != n) {
        return NULL;
    }
    if (present(dq, 2)) {
        const fl_tensor *z = const2(dq, 2, w->dtype, w->dtype);
        if (!z || z->shape.dims[0].k != s->shape.dims[0].k || z->shape.dims[1].k != n) {
            return NULL;
        }
    }
    return dq;
}

static void fail_oom(nctx *x) {
    if (*x->st == FL_OK) {
        *x->st = fl__diag_oom(x->d);
    }
}

/* A new Const named base+suffix of dtype dt and shape dims holding v (NULL:
 * stripped), inferred. */
static fl_node *add_const(nctx *x, const char *base, const char *suffix, int dt, int rank,
                          const int64_t *dims, const fl_value *v) {
    char *nm = fl__arena_printf(x->g->arena, "%s%s", base, suffix);
    const char *name = nm ? fl__graph_unique_name(x->g, nm) : NULL;
    fl_node *k =
        name ? fl__op_add_op(x->g, name, fl__op_name(FL_OP_CONST), 0, NULL, 1, x->d) : NULL;
    fl_attr value = fl__attr_make_tensor(x->g, "value", dt, rank, dims, v);
    fl_attr dtype = fl__attr_make_type(x->g, "dtype", dt);
    if (!k || !value.name || !value.v.tensor || !dtype.name ||
        fl__node_set_attr(x->g, k, &dtype) != FL_OK ||
        fl__node_set_attr(x->g, k, &value) != FL_OK) {
        fail_oom(x);
        return NULL;
    }
    fl_status s = fl__infer_node(x->pc, k);
    if (s != FL_OK) {
        *x->st = x->d->status != FL_OK ? x->d->status : s;
        return NULL;
    }
    x->pc->added++;
    return k;
}

/* The packed bytes of input i of dq, an int4/uint4 Const (ONNX stores
 * those two per byte, the first element in the low nibble; the importer
 * does not decode them), or NULL when stripped or not at hand. */
static const uint8_t *packed_of(const fl_node *dq, int i, int64_t elems) {
    const fl_attr *va = fl__node_attr(dq->inputs[i].node, "value");
    size_t len = 0;
    const uint8_t *raw =
        va && va->kind == FL_ATTR_TENSOR ? fl__onnx_const_raw(va->v.tensor, &len) : NULL;
    return raw && (int64_t)len == (elems + 1) / 2 ? raw : NULL;
}

/* Element i of packed int4/uint4 bytes in its unsigned form (int4 + 8:
 * the two's-complement nibble with its top bit flipped). */
static int64_t nibble(const uint8_t *raw, int64_t i, bool is_signed) {
    int64_t u = (raw[i / 2] >> (4 * (i % 2))) & 15;
    return is_signed ? u ^ 8 : u;
}

/* Packs src ([len, n] row-major, packed int4/uint4) column by column:
 * element (r, c) goes to byte c * stride + r / 2 of dst (uint8,
 * zero-filled), the low nibble for even r. B' (len K, stride k_blocks *
 * block_size / 2: the blocks of a column are contiguous) and the zero
 * points (len k_blocks, stride ceil(k_blocks / 2)). */
static void pack_columns(const uint8_t *src, bool is_signed, int64_t len, int64_t n, int64_t stride,
                         fl_value *dst) {
    fl_sym *o = (fl_sym *)dst->ints;
    for (int64_t i = 0; i < dst->n; i++) {
        o[i] = fl_sym_const(0);
    }
    for (int64_t c = 0; c < n; c++) {
        for (int64_t r = 0; r < len; r++) {
            o[c * stride + r / 2].k |= nibble(src, r * n + c, is_signed) << (4 * (r % 2));
        }
    }
}

/* The new constants' values: B' (*b), scales' (*s), zero points' (*z, when
 * want_z); each NULL when its source's values are not at hand (stripped). */
static void pack(nctx *x, const fl_node *dq, int64_t k, int64_t n, int64_t bs, bool want_z,
                 fl_value **b, fl_value **s, fl_value **z) {
    int64_t kb = (k + bs - 1) / bs, zb = (kb + 1) / 2;
    const fl_value *sv = fl_node_in(dq, 1)->value;
    const uint8_t *wraw = packed_of(dq, 0, k * n);
    bool is_signed = fl_node_in(dq, 0)->dtype == FL_DT_INT4;
    fl_arena *a = x->g->arena;
    *b = *s = *z = NULL;
    if (wraw && (*b = fl__value_new(a, FL_DT_UINT8, 3, (int64_t[]){n, kb, bs / 2})) != NULL) {
        pack_columns(wraw, is_signed, k, n, kb * (bs / 2), *b);
    }
    if (sv && fl__value_is_concrete(sv)) {
        *s = fl__value_new(a, fl_node_in(dq, 1)->dtype, 1, (int64_t[]){n * kb});
        for (int64_t i = 0; *s && i < n * kb; i++) {
            double e = 0;
            fl__value_f64(sv, (i % kb) * n + i / kb, &e); /* scale[b][c], i = c * kb + b */
            fl__value_set_f64(*s, i, e);
        }
    }
    if (!want_z) {
        return;
    }
    const uint8_t *zraw = present(dq, 2) ? packed_of(dq, 2, kb * n) : NULL;
    if (!present(dq, 2) || zraw) { /* uint4 without a zero point: zeros */
        *z = fl__value_new(a, FL_DT_UINT8, 1, (int64_t[]){n * zb});
    }
    if (*z && zraw) {
        pack_columns(zraw, is_signed, kb, n, zb, *z);
    }
}

/* Removes input i of the removed DQ when it is a Const nothing reads any
 * more. */
static void drop_input(nctx *x, const fl_node *dq, int i) {
    if (!present(dq, i)) {
        return;
    }
    fl_node *c = dq->inputs[i].node;
    bool q = false;
    if (c->kind == FL_OP_CONST && c->id < x->n0 && !gone(c) && !fl__preserved(c) &&
        !has_ctrl(x, c) && readers(x, c, &q) == 0) {
        fl__graph_remove_node(c);
        x->pc->removed++;
    }
}

static bool set_int(nctx *x, fl_node *n, const char *name, int64_t v) {
    fl_attr a = fl__attr_make_int(x->g, name, v);
    if (!a.name || fl__node_set_attr(x->g, n, &a) != FL_OK) {
        fail_oom(x);
        return false;
    }
    return true;
}

static bool rewrite(nctx *x, fl_node *t, fl_node *dq) {
    const fl_tensor *w = fl_node_in(dq, 0), *sc = fl_node_in(dq, 1);
    int64_t k = w->shape.dims[0].k, n = w->shape.dims[1].k,
            bs = fl__node_attr(dq, "block_size")->v.i;
    int64_t kb = (k + bs - 1) / bs, zb = (kb + 1) / 2;
    bool want_z = present(dq, 2) || w->dtype == FL_DT_UINT4;
    fl_value *bv, *sv, *zv;
    pack(x, dq, k, n, bs, want_z, &bv, &sv, &zv);
    const char *wname = dq->inputs[0].node->name, *sname = dq->inputs[1].node->name;
    fl_input in[4] = {t->inputs[0]};
    fl_node *b = add_const(x, wname, "_T", FL_DT_UINT8, 3, (int64_t[]){n, kb, bs / 2}, bv);
    fl_node *s = b ? add_const(x, sname, "_T", sc->dtype, 1, (int64_t[]){n * kb}, sv) : NULL;
    fl_node *z = NULL;
    if (s && want_z) {
        const char *zbase =
            present(dq, 2) ? dq->inputs[2].node->name : "fused_DQ_MatMul_zero_point";
        z = add_const(x, zbase, "_T", FL_DT_UINT8, 1, (int64_t[]){n * zb}, zv);
    }
    if (!s || (want_z && !z)) {
        return false;
    }
    in[1] = (fl_input){b, 0};
    in[2] = (fl_input){s, 0};
    in[3] = (fl_input){z, 0};
    char *base = fl__arena_printf(x->g->arena, "%s/_qdq_new", t->name);
    const char *tmp = base ? fl__graph_unique_name(x->g, base) : NULL;
    fl_node *nn = tmp ? fl__op_add_op(x->g, tmp, "MatMulNBits", want_z ? 4 : 3, in, 1, x->d) : NULL;
    if (!nn) {
        fail_oom(x);
        return false;
    }
    fl__op_bind_kind(nn, FL_OP_ONNX_MS_MATMUL_NBITS);
    nn->device = t->device ? t->device : "";
    nn->src = t->src;
    if (!set_int(x, nn, "K", k) || !set_int(x, nn, "N", n) || !set_int(x, nn, "bits", 4) ||
        !set_int(x, nn, "block_size", bs) || !set_int(x, nn, "accuracy_level", 4)) {
        return false;
    }
    fl__edge_index_replace_uses(x->edges, t, 0, nn, 0, x->d);
    if (fl__edge_index_note(x->edges, nn, x->d) != FL_OK) {
        fail_oom(x);
    }
    nn->flags |= t->flags & FL_NODE_PRESERVE; /* a graph output keeps its value name (src) */
    fl__graph_remove_node(t);
    fl__graph_remove_node(dq);
    x->pc->rewritten++;
    x->pc->removed++;
    for (int i = 0; i < 3; i++) {
        drop_input(x, dq, i);
    }
    nn->name = t->name;
    fl__ledger_note(x->pc, "qdq_matmul_nbits", t,
                    "DequantizeLinear (%s [%lld,%lld], block_size %lld) -> MatMul => MatMulNBits "
                    "(B [%lld,%lld,%lld] uint8%s)",
                    fl__dtype_name(w->dtype), (long long)k, (long long)n, (long long)bs,
                    (long long)n, (long long)kb, (long long)(bs / 2),
                    bv ? "" : ", weights stripped");
    return *x->st == FL_OK;
}

bool fl__qdq_matmul_nbits(fl_pass_ctx *pc, const fl_uses *uses, fl_edge_index *edges, size_t n0,
                          fl_node *t, fl_status *st) {
    nctx x = {pc, pc->c->g, pc->c->d, uses, edges, n0, st};
    fl_node *dq = match(&x, t);
    return dq && rewrite(&x, t, dq);
}
