/*
 * transpose.c - Transpose, ConjugateTranspose, ReverseV2 (array family).
 *
 * Shapes: TensorFlow's shape functions (perm must be a permutation; ReverseV2
 * names each axis once). eval: Transpose and ReverseV2 reorder the input's
 * elements, for any dtype; ConjugateTranspose is not evaluated (complex
 * values are not, and on real types it is a Transpose).
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

static fl_status read_perm(fl_ctx *c, const fl_node *n, int r, const fl_sym **perm, int64_t *k,
                           bool *have) {
    *have = fl__array_known_vec(n, 1, perm, k);
    if (!*have) {
        return FL_OK;
    }
    if (r >= 0 && *k != r) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'perm' has %lld entries but the input has rank %d",
                             (long long)*k, r);
    }
    if (*k > MAX_RANK) {
        *have = false;
        return FL_OK;
    }
    bool *seen = fl__array_alloc_n(c, *k, sizeof(bool));
    if (!seen) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < *k; i++) {
        int64_t p = (*perm)[i].k;
        if (p < 0 || p >= *k || seen[p]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'perm' is not a permutation of 0..%lld: entry %lld is %lld",
                                 (long long)*k - 1, (long long)i, (long long)p);
        }
        seen[p] = true;
    }
    return FL_OK;
}

static fl_status infer_transpose(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_sym *perm;
    int64_t k;
    bool have;
    if ((st = read_perm(c, n, s->rank, &perm, &k, &have)) != FL_OK) {
        return st;
    }
    if (!have) {
        return fl__array_set_rank(c, n, 0, dt, s->rank >= 0 ? s->rank : fl__array_vec_len(n, 1));
    }
    if (s->rank < 0) {
        return fl__array_set_rank(c, n, 0, dt, k);
    }
    fl_sym *out = fl__array_alloc_syms(c, k);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        out[i] = s->dims[perm[i].k];
    }
    return fl__op_set_output(c, n, 0, dt, (int)k, out);
}

fl_status fl__array_eval_permute(fl_ctx *c, fl_node *n, const int64_t *perm, int64_t k) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src) || k != src->rank) {
        return FL_OK;
    }
    for (int64_t i = 0; i < k; i++) {
        if (perm[i] < 0 || perm[i] >= k) {
            return FL_OK;
        }
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int64_t *is = fl__array_row_strides(c, src->rank, src->dims);
    int64_t *os = fl__array_alloc_n(c, k, sizeof(int64_t));
    int64_t **maps = fl__array_alloc_maps(c, v->rank, v->dims);
    if (!is || !os || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < v->rank; i++) {
        os[i] = is[perm[i]];
        for (int64_t o = 0; o < v->dims[i]; o++) {
            maps[i][o] = o;
        }
    }
    return fl__array_finish(n, 0, v,
                            fl__array_fill_mapped(c, v, src, v->rank, v->dims, maps, os, NULL));
}

static fl_status eval_transpose(fl_ctx *c, fl_node *n) {
    const fl_sym *perm;
    int64_t k;
    if (!fl__array_known_vec(n, 1, &perm, &k)) {
        return FL_OK;
    }
    int64_t *p = fl__array_alloc_n(c, k > 0 ? k : 1, sizeof(int64_t));
    if (!p) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        p[i] = perm[i].k;
    }
    return fl__array_eval_permute(c, n, p, k);
}

static fl_status infer_reverse_v2(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__array_want_vector(c, n, 1, "axis");
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0);
    const fl_value *av = fl__array_vec_value(n, 1);
    if (av && s->rank >= 0) {
        bool *seen = fl__array_alloc_n(c, s->rank, sizeof(bool));
        if (!seen) {
            return fl__diag_oom(c->d);
        }
        for (int64_t i = 0; i < av->n; i++) {
            if (!fl_sym_is_known(av->ints[i])) {
                continue;
            }
            int64_t a = av->ints[i].k;
            if (a < -s->rank || a >= s->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'axis' entry %lld is out of range for rank %d",
                                     (long long)a, s->rank);
            }
            if (a < 0) {
                a += s->rank;
            }
            if (seen[a]) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'axis' names dimension %lld more than once",
                                     (long long)a);
            }
            seen[a] = true;
        }
    }
    return fl__op_set_output(c, n, 0, dt, s->rank, s->dims);
}

static fl_status eval_reverse_v2(fl_ctx *c, fl_node *n) {
    const fl_value *src = fl_op_in_value(n, 0);
    if (!fl__array_usable(src)) {
        return FL_OK;
    }
    const fl_sym *ax;
    int64_t k;
    if (!fl__array_known_vec(n, 1, &ax, &k)) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    int r = src->rank;
    bool *rev = fl__array_alloc_n(c, r, sizeof(bool));
    int64_t *is = fl__array_row_strides(c, r, src->dims);
    int64_t **maps = fl__array_alloc_maps(c, r, src->dims);
    if (!rev || !is || !maps) {
        return fl__diag_oom(c->d);
    }
    for (int64_t i = 0; i < k; i++) {
        int64_t a = ax[i].k < 0 ? ax[i].k + r : ax[i].k;
        if (a < 0 || a >= r) {
            return FL_OK;
        }
        rev[a] = true;
    }
    for (int i = 0; i < r; i++) {
        for (int64_t o = 0; o < src->dims[i]; o++) {
            maps[i][o] = rev[i] ? src->dims[i] - 1 - o : o;
        }
    }
    return fl__array_finish(n, 0, v,
                            fl__array_fill_mapped(c, v, src, r, src->dims, maps, is, NULL));
}

/* Hook sets and descriptors (their rows: array/transpose.def). */
#define HOOKS_transpose           .infer = infer_transpose, .eval = eval_transpose, .cost = fl__op_cost_zero
#define HOOKS_conjugate_transpose .infer = infer_transpose, .cost = fl__op_cost_zero
#define HOOKS_reverse_v2                                                                           \
    .infer = infer_reverse_v2, .eval = eval_reverse_v2, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/transpose.def"
#undef FL_OP
