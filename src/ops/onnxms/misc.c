/*
 * misc.c - ONNX Runtime contrib operators (domain com.microsoft) on their
 * own: Inverse, CDist (scikit-learn converters' pairwise distances),
 * UnfoldTensor, CropAndResize, NGramRepeatBlock (beam search's repeated
 * n-gram ban), MurmurHash3 (feature hashing of scikit-learn and text
 * pipelines), WordConvEmbedding (a character CNN's word embedding),
 * DynamicTimeWarping (Whisper's word-level timestamps),
 * BifurcationDetector (aggressive decoding's merge of predicted tokens) and
 * Tokenizer (splitting strings at separators or into characters).
 *
 * Shapes (ONNX Runtime's contrib schemas and CPU kernels):
 *   Inverse(X)          X [..., n, n] (rank >= 2, the last two dims equal):
 *                       Y X's shape and type
 *   CDist(A, B)         A [M, K], B [N, K], attr metric "sqeuclidean"
 *                       (default) or "euclidean" (the two ONNX Runtime
 *                       computes): C [M, N], A's type
 *   UnfoldTensor(input) attrs dim (default -1), size (required, >= 1), step
 *                       (default 1, >= 1): input's shape with dim d, of
 *                       length L >= size, replaced by (L - size) / step + 1
 *                       (floor) and size appended as the last dim
 *   CropAndResize(X, rois, batch_indices, crop_size)
 *                       X [N, C, H, W], rois [R, 4], batch_indices [R],
 *                       crop_size two int32 values (h, w), attr mode
 *                       "bilinear" (default) or "nearest": Y [R, C, h, w]
 *   NGramRepeatBlock(input_ids, scores)
 *                       input_ids [B, L] int64, scores [B, V], attr
 *                       ngram_size (required, >= 1): scores_out scores'
 *                       shape and type
 *   MurmurHash3(X)      X int32, uint32, int64, uint64, float, double or
 *                       string (the schema's; ONNX Runtime's CPU kernel
 *                       hashes int32, uint32 and string), attr positive
 *                       (default 1): Y X's shape, uint32 when positive is
 *                       1, else int32 (the schema's type inference); attr
 *                       seed only changes values
 *   WordConvEmbedding(Sequence, W, B, C)
 *                       Sequence [S, L] int32 (L characters a word), W
 *                       [M, 1, k, E] (M filters of width k over the
 *                       character embeddings), B [M], C [V, E] (the
 *                       character embedding table): Y [S, M], W's type.
 *                       L >= k (the CPU kernel unfolds L - k + 1
 *                       windows a word); W's dim 3 and C's dim 1 agree;
 *                       attrs embedding_size (M), conv_window_size (k)
 *                       and char_embedding_size (E), when given and not
 *                       -1, must equal those dims (the kernel's checks)
 *   DynamicTimeWarping(input)
 *                       input float [M, N] or [1, M, N] (a cost matrix):
 *                       output int32 [2, x], the path's (row, column)
 *                       pairs; max(M, N) <= x < M + N, so x is known only
 *                       when M or N is 1 (then x = max(M, N)); otherwise
 *                       the values decide it (an unknown dim)
 *   BifurcationDetector(src_tokens, cur_tokens, prev_suffix_match_idx,
 *                       pred_tokens)
 *                       int64 1-D src [S] and cur [C], prev one element,
 *                       optional pred [P] (P = S + 1 - prev at run time),
 *                       attrs min_ngram_size (default 1) and
 *                       max_ngram_size (default 3), both >= 1, max >=
 *                       min: tokens int64 [C] without pred, else [C + b +
 *                       1] with b, the predicted tokens that still match
 *                       src, in [0, P - 1]: known only when P is 1 (C +
 *                       1), else an unknown dim; suffix_match_idx prev's
 *                       shape, int64 (ONNX Runtime's CPU kernel: its
 *                       schema's inference gives tokens cur's shape even
 *                       with pred, which the kernel does not)
 *   Tokenizer(X)        X string [C] or [N, C], every dim >= 1; attrs mark,
 *                       pad_value and mincharnum required (the schema's;
 *                       separators or tokenexp only change values): Y
 *                       string, X's dims and T, the most tokens a string
 *                       gives (+ 2 with mark, 0 when no string has one):
 *                       the values decide T (an unknown dim)
 *
 * FLOP rules ("complete" convention; E = element count of the output):
 *   Inverse        per n x n matrix 2 * n^3 FLOPs, n^3 MACs (LU
 *                  factorisation, 2n^3/3, and the inverse from its factors,
 *                  4n^3/3: LAPACK's getrf + getri counts, lower-order terms
 *                  dropped)
 *   CDist          3 * M * N * K (the difference, its square, the sum) plus
 *                  M * N square roots for euclidean; M * N * K MACs (the
 *                  squared differences accumulated)
 *   UnfoldTensor   0 (a strided view copied)
 *   CropAndResize  bilinear: 9 * E (Resize's rule for 2 interpolated axes:
 *                  3 * (2^2 - 1)); nearest: 0
 *   NGramRepeatBlock  0 (token comparisons and writes of -inf; which
 *                  scores it bans depends on the tokens)
 *   MurmurHash3    1 * E (one hash a key, as BitShift's integer op and
 *                  TensorFlow's _TensorToHashBucketFast count one; the
 *                  string length a hash reads is not in the shape)
 *   WordConvEmbedding  with U = L - k + 1 windows a word and every word
 *                  full length (the kernel skips padding, which only the
 *                  values show): the convolution as one GEMM [S * U, k *
 *                  E] x [k * E, M], S * U * M * k * E MACs, twice that in
 *                  FLOPs, plus 3 * S * U * M (bias add, tanh, max over
 *                  the windows); the embedding lookup is copies, 0
 *   DynamicTimeWarping  3 * M * N (each cell of the cost table: the
 *                  minimum of its three predecessors, 2 comparisons, and
 *                  the add of its cost); the backtrace, at most M + N
 *                  steps of index arithmetic, 0
 *   BifurcationDetector  0 (token comparisons and copies, as
 *                  NGramRepeatBlock)
 *   Tokenizer      0 (string scanning and copies, as ai.onnx StringSplit)
 */
#include "ops/onnxops/util.h"

#include <string.h>

static fl_status infer_inverse(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank >= 0 && x->rank < 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want >= 2 ([..., n, n])",
                             x->rank);
    }
    if (x->rank >= 2) {
        fl_sym m;
        fl_status st = fl__op_merge_dim(c, n, x->dims[x->rank - 2], x->dims[x->rank - 1],
                                        "input 0 (X)'s last two dims (square matrices)", &m);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__ox_infer_same(c, n);
}

static fl_status cost_inverse(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_arith k = {c, n, FL_OK};
    fl_sym macs = fl_sym_unknown();
    if (x->rank >= 2) {
        fl_sym d = x->dims[x->rank - 1];
        macs = fl__ar_mul(&k, fl__ar_dims_prod(&k, x, 0, x->rank - 2),
                          fl__ar_mul(&k, fl__ar_mul(&k, d, d), d));
    }
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, macs, 2), macs);
}

/* metric: the two ONNX Runtime computes; *root for euclidean. */
static fl_status cdist_metric(fl_ctx *c, const fl_node *n, bool *root) {
    static const char *const metrics[] = {"sqeuclidean", "euclidean", NULL};
    int i = 0;
    fl_status st = fl__ox_attr_pick(c, n, "metric", "sqeuclidean", metrics, &i);
    *root = i == 1;
    return st;
}

static fl_status infer_cdist(fl_ctx *c, fl_node *n) {
    bool root;
    fl_status st = cdist_metric(c, n, &root);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    for (int i = 0; i < 2; i++) {
        const fl_shape *s = i ? b : a;
        if (s->rank >= 0 && s->rank != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want 2", i,
                                 i ? "B" : "A", s->rank);
        }
    }
    fl_sym d[2] = {a->rank == 2 ? a->dims[0] : fl_sym_unknown(),
                   b->rank == 2 ? b->dims[0] : fl_sym_unknown()};
    if (a->rank == 2 && b->rank == 2) {
        fl_sym kk;
        if ((st = fl__op_merge_dim(c, n, a->dims[1], b->dims[1],
                                   "inputs A's and B's dim 1 (the features)", &kk)) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, d);
}

static fl_status cost_cdist(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool root;
    fl_status st = cdist_metric(c, n, &root);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0);
    fl_arith k = {c, n, FL_OK};
    fl_sym pairs = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym macs = fl__ar_mul(&k, pairs, a->rank == 2 ? a->dims[1] : fl_sym_unknown());
    fl_sym flops = fl__ar_scale(&k, macs, 3);
    if (root) {
        flops = fl__ar_add(&k, flops, pairs);
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

static fl_status infer_unfold(fl_ctx *c, fl_node *n) {
    int64_t dim, size, step;
    fl_status st = fl__attr_int_or(n, "dim", -1, &dim, c->d);
    if (st == FL_OK) {
        st = fl__attr_need_int(n, "size", &size, c->d);
    }
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "step", 1, &step, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    if (size < 1 || step < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, want >= 1",
                             size < 1 ? "size" : "step", (long long)(size < 1 ? size : step));
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (x->rank > 253) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 has rank %d", x->rank);
    }
    int a;
    if ((st = fl__ox_norm_axis(c, n, dim, x->rank, "attr 'dim'", &a)) != FL_OK) {
        return st;
    }
    fl_sym d[256], l = x->dims[a];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    if (fl_sym_is_known(l)) {
        if (l.k < size) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'size' is %lld, dim %d only %lld long",
                                 (long long)size, a, (long long)l.k);
        }
        d[a] = fl_sym_const((l.k - size) / step + 1);
    } else {
        fl_sym t;
        st = fl__op_sub(c, n, l, fl_sym_const(size), &t);
        if (st == FL_OK) {
            st = fl__op_floordiv(c, n, t, fl_sym_const(step), &t);
        }
        if (st == FL_OK) {
            st = fl__op_add(c, n, t, fl_sym_const(1), &d[a]);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    d[x->rank] = fl_sym_const(size);
    return fl__op_set_output(c, n, 0, dt, x->rank + 1, d);
}

static fl_status crop_mode(fl_ctx *c, const fl_node *n, bool *bilinear) {
    static const char *const modes[] = {"bilinear", "nearest", NULL};
    int i = 0;
    fl_status st = fl__ox_attr_pick(c, n, "mode", "bilinear", modes, &i);
    *bilinear = i == 0;
    return st;
}

static fl_status infer_crop_and_resize(fl_ctx *c, fl_node *n) {
    bool bl;
    fl_status st = crop_mode(c, n, &bl);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *r = fl__op_in_shape(n, 1);
    if (x->rank >= 0 && x->rank != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 4 ([N, C, H, W])",
                             x->rank);
    }
    if (r->rank >= 0 && (r->rank != 2 || (fl_sym_is_known(r->dims[1]) && r->dims[1].k != 4))) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (rois) is not [num_rois, 4]");
    }
    fl_sym d[4] = {r->rank == 2 ? r->dims[0] : fl_sym_unknown(),
                   x->rank == 4 ? x->dims[1] : fl_sym_unknown(), fl_sym_unknown(),
                   fl_sym_unknown()};
    int64_t *cs, ncs;
    st = fl__op_in_int_vector(c, n, 3, &cs, &ncs);
    if (st == FL_OK) {
        if (ncs != 2 || cs[0] < 1 || cs[1] < 1) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 3 (crop_size) must hold two values >= 1 (height, width)");
        }
        d[2] = fl_sym_const(cs[0]);
        d[3] = fl_sym_const(cs[1]);
    } else if (st != FL_ENOTFOUND) {
        return st;
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 4, d);
}

static fl_status cost_crop_and_resize(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool bl;
    fl_status st = crop_mode(c, n, &bl);
    return st == FL_OK ? fl__ox_cost_per_out(c, n, out, bl ? 9 : 0) : st;
}

static fl_status infer_ngram_block(fl_ctx *c, fl_node *n) {
    int64_t ng;
    fl_status st = fl__attr_need_int(n, "ngram_size", &ng, c->d);
    if (st == FL_OK && ng < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'ngram_size' is %lld, want >= 1",
                             (long long)ng);
    }
    const fl_shape *ids = fl__op_in_shape(n, 0), *sc = fl__op_in_shape(n, 1);
    for (int i = 0; st == FL_OK && i < 2; i++) {
        const fl_shape *s = i ? sc : ids;
        if (s->rank >= 0 && s->rank != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want 2", i,
                                 i ? "scores" : "input_ids", s->rank);
        }
    }
    if (st == FL_OK && ids->rank == 2 && sc->rank == 2) {
        fl_sym b;
        st = fl__op_merge_dim(c, n, ids->dims[0], sc->dims[0],
                              "inputs input_ids' and scores' dim 0 (the batch)", &b);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 1), sc->rank, sc->dims) : st;
}

static fl_status infer_murmur(fl_ctx *c, fl_node *n) {
    int64_t pos;
    fl_status st = fl__attr_int_or(n, "positive", 1, &pos, c->d);
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    switch (dt) {
    case FL_DT_INVALID:
    case FL_DT_INT32:
    case FL_DT_UINT32:
    case FL_DT_INT64:
    case FL_DT_UINT64:
    case FL_DT_FLOAT:
    case FL_DT_DOUBLE:
    case FL_DT_STRING:
        break;
    default:
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (X) is %s, want int32, uint32, int64, uint64, float, "
                             "double or string",
                             fl__dtype_name(dt));
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, pos == 1 ? FL_DT_UINT32 : FL_DT_INT32, x->rank, x->dims);
}

static fl_status cost_murmur(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 1);
}

/* WordConvEmbedding's attr `name`, when given and not -1, equals dim d
 * (what names it). */
static fl_status wce_attr_dim(fl_ctx *c, const fl_node *n, const char *name, fl_sym d,
                              const char *what) {
    int64_t v;
    fl_status st = fl__attr_int_or(n, name, -1, &v, c->d);
    if (st != FL_OK || v == -1 || !fl_sym_is_known(d) || d.k == v) {
        return st;
    }
    return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, %s is %lld", name, (long long)v,
                         what, (long long)d.k);
}

static fl_status infer_word_conv(fl_ctx *c, fl_node *n) {
    static const int want[4] = {2, 4, 1, 2};
    static const char *const names[4] = {"Sequence", "W", "B", "C"};
    const fl_shape *s[4];
    for (int i = 0; i < 4; i++) {
        s[i] = fl__op_in_shape(n, i);
        if (s[i]->rank >= 0 && s[i]->rank != want[i]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want %d", i,
                                 names[i], s[i]->rank, want[i]);
        }
    }
    int sdt = fl__ox_in_dtype(n, 0);
    if (sdt != FL_DT_INVALID && sdt != FL_DT_INT32) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (Sequence) is %s, want int32",
                             fl__dtype_name(sdt));
    }
    fl_sym m = s[1]->rank == 4 ? s[1]->dims[0] : fl_sym_unknown();
    fl_sym k = s[1]->rank == 4 ? s[1]->dims[2] : fl_sym_unknown();
    fl_sym e = s[3]->rank == 2 ? s[3]->dims[1] : fl_sym_unknown();
    fl_status st = FL_OK;
    if (s[1]->rank == 4 && s[3]->rank == 2) {
        st = fl__op_merge_dim(c, n, s[1]->dims[3], s[3]->dims[1],
                              "inputs W's dim 3 and C's dim 1 (the character embedding size)", &e);
    }
    if (st == FL_OK && s[1]->rank == 4 && s[2]->rank == 1) {
        st = fl__op_merge_dim(c, n, s[1]->dims[0], s[2]->dims[0],
                              "inputs W's dim 0 and B's dim 0 (the filters)", &m);
    }
    if (st == FL_OK) {
        st = wce_attr_dim(c, n, "embedding_size", m, "input 1 (W)'s dim 0");
    }
    if (st == FL_OK) {
        st = wce_attr_dim(c, n, "conv_window_size", k, "input 1 (W)'s dim 2");
    }
    if (st == FL_OK) {
        st = wce_attr_dim(c, n, "char_embedding_size", e, "input 3 (C)'s dim 1");
    }
    if (st != FL_OK) {
        return st;
    }
    if (s[0]->rank == 2 && fl_sym_is_known(s[0]->dims[1]) && fl_sym_is_known(k) &&
        s[0]->dims[1].k < k.k) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (Sequence)'s dim 1 (characters a word) is %lld, less "
                             "than the filter width %lld (input 1 (W)'s dim 2)",
                             (long long)s[0]->dims[1].k, (long long)k.k);
    }
    fl_sym d[2] = {s[0]->rank == 2 ? s[0]->dims[0] : fl_sym_unknown(), m};
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 1), 2, d);
}

static fl_status cost_word_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    const fl_shape *sq = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 1);
    fl_arith k = {c, n, FL_OK};
    fl_sym macs = fl_sym_unknown(), flops = fl_sym_unknown();
    if (sq->rank == 2 && w->rank == 4) {
        /* rows = S * (L - k + 1), the windows of every word */
        fl_sym u = fl__ar_add(&k, fl__ar_sub(&k, sq->dims[1], w->dims[2]), fl_sym_const(1));
        fl_sym rows_m = fl__ar_mul(&k, fl__ar_mul(&k, sq->dims[0], u), w->dims[0]);
        macs = fl__ar_mul(&k, rows_m, fl__ar_mul(&k, w->dims[2], w->dims[3]));
        flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, rows_m, 3));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* DynamicTimeWarping's cost matrix dims (M, N) from input 0. */
static fl_status dtw_dims(fl_ctx *c, const fl_node *n, fl_sym *rows, fl_sym *cols) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    *rows = *cols = fl_sym_unknown();
    if (x->rank < 0) {
        return FL_OK;
    }
    if (x->rank != 2 && x->rank != 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (input) has rank %d, want 2 or 3",
                             x->rank);
    }
    if (x->rank == 3 && fl_sym_is_known(x->dims[0]) && x->dims[0].k != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (input)'s dim 0 is %lld, want 1 ([1, M, N])",
                             (long long)x->dims[0].k);
    }
    *rows = x->dims[x->rank - 2];
    *cols = x->dims[x->rank - 1];
    return FL_OK;
}

static fl_status infer_dtw(fl_ctx *c, fl_node *n) {
    int dt = fl__ox_in_dtype(n, 0);
    if (dt != FL_DT_INVALID && dt != FL_DT_FLOAT) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (input) is %s, want float",
                             fl__dtype_name(dt));
    }
    fl_sym r, q;
    fl_status st = dtw_dims(c, n, &r, &q);
    if (st != FL_OK) {
        return st;
    }
    fl_sym d[2] = {fl_sym_const(2), fl_sym_unknown()};
    if (fl_sym_is_known(r) && fl_sym_is_known(q) && (r.k == 1 || q.k == 1)) {
        d[1] = fl_sym_const(r.k > q.k ? r.k : q.k);
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT32, 2, d);
}

static fl_status cost_dtw(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_sym r, q;
    fl_status st = dtw_dims(c, n, &r, &q);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl__ar_scale(&k, fl__ar_mul(&k, r, q), 3), fl_sym_const(0));
}

static fl_status infer_bifurcation(fl_ctx *c, fl_node *n) {
    int64_t lo, hi;
    fl_status st = fl__attr_int_or(n, "min_ngram_size", 1, &lo, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "max_ngram_size", 3, &hi, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    if (lo < 1 || hi < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is %lld, want >= 1",
                             lo < 1 ? "min_ngram_size" : "max_ngram_size",
                             (long long)(lo < 1 ? lo : hi));
    }
    if (hi < lo) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'max_ngram_size' is %lld, less than min_ngram_size %lld",
                             (long long)hi, (long long)lo);
    }
    static const char *const names[4] = {"src_tokens", "cur_tokens", "prev_suffix_match_idx",
                                         "pred_tokens"};
    bool pred = n->n_inputs > 3 && !fl__ox_absent(n, 3);
    for (int i = 0; i < (pred ? 4 : 3); i++) {
        int dt = fl__ox_in_dtype(n, i);
        if (dt != FL_DT_INVALID && dt != FL_DT_INT64) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) is %s, want int64", i, names[i],
                                 fl__dtype_name(dt));
        }
        const fl_shape *s = fl__op_in_shape(n, i);
        if (i != 2 && s->rank >= 0 && s->rank != 1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input %d (%s) has rank %d, want 1", i,
                                 names[i], s->rank);
        }
    }
    const fl_shape *prev = fl__op_in_shape(n, 2), *cur = fl__op_in_shape(n, 1);
    fl_sym e;
    if ((st = fl__op_num_elements(c, n, prev, &e)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(e) && e.k != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 2 (prev_suffix_match_idx) has %lld elements, want 1",
                             (long long)e.k);
    }
    fl_sym len = cur->rank == 1 ? cur->dims[0] : fl_sym_unknown();
    if (pred) {
        const fl_shape *p = fl__op_in_shape(n, 3);
        if (p->rank == 1 && fl_sym_is_known(p->dims[0]) && p->dims[0].k == 1) {
            st = fl__op_add(c, n, len, fl_sym_const(1), &len);
        } else {
            len = fl_sym_unknown();
        }
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, FL_DT_INT64, 1, &len);
    }
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, prev->rank, prev->dims) : st;
}

static fl_status infer_tokenizer(fl_ctx *c, fl_node *n) {
    int64_t v;
    const char *pad;
    fl_status st = fl__attr_need_int(n, "mark", &v, c->d);
    if (st == FL_OK) {
        st = fl__attr_need_str(n, "pad_value", &pad, c->d);
    }
    if (st == FL_OK) {
        st = fl__attr_need_int(n, "mincharnum", &v, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    if (dt != FL_DT_INVALID && dt != FL_DT_STRING) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) is %s, want string",
                             fl__dtype_name(dt));
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, FL_DT_STRING, -1, NULL);
    }
    if (x->rank != 1 && x->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 0 (X) has rank %d, want 1 or 2 ([C] or [N, C])", x->rank);
    }
    fl_sym d[3];
    for (int i = 0; i < x->rank; i++) {
        if (fl_sym_is_known(x->dims[i]) && x->dims[i].k < 1) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X)'s dim %d is %lld, want >= 1", i,
                                 (long long)x->dims[i].k);
        }
        d[i] = x->dims[i];
    }
    d[x->rank] = fl_sym_unknown();
    return fl__op_set_output(c, n, 0, FL_DT_STRING, x->rank + 1, d);
}

/* Hook sets and descriptors (their rows: onnxms/misc.def) */
#define HOOKS_inverse         .infer = infer_inverse, .cost = cost_inverse
#define HOOKS_cdist           .infer = infer_cdist, .cost = cost_cdist
#define HOOKS_unfold          .infer = infer_unfold, .cost = fl__op_cost_zero
#define HOOKS_ngram_block     .infer = infer_ngram_block, .cost = fl__op_cost_zero
#define HOOKS_crop_and_resize .infer = infer_crop_and_resize, .cost = cost_crop_and_resize
#define HOOKS_murmur          .infer = infer_murmur, .cost = cost_murmur
#define HOOKS_word_conv       .infer = infer_word_conv, .cost = cost_word_conv
#define HOOKS_dtw             .infer = infer_dtw, .cost = cost_dtw
#define HOOKS_bifurcation     .infer = infer_bifurcation, .cost = fl__op_cost_zero
#define HOOKS_tokenizer       .infer = infer_tokenizer, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnxms/misc.def"
#undef FL_OP
