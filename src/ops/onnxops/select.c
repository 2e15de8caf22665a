/*
 * select.c - ai.onnx ops whose output sizes depend on data:
 * NonMaxSuppression, Unique, TfIdfVectorizer, StringNormalizer; and the
 * optimizer ops of ai.onnx.preview.training (Adagrad, Adam, Momentum).
 *
 * Shapes: NonMaxSuppression [selected, 3] int64 and Unique's unique count
 * are exact when the deciding inputs' values are known (the selection is
 * then run here: greedy by descending score, ties by index, a box
 * suppressed when its IoU with a kept box exceeds iou_threshold, scores
 * kept when above score_threshold, at most max_output_boxes_per_class per
 * batch and class; up to 1e8 box pairs), else that dim is unknown. Unique: Y, indices, counts
 * have the unique count U (flattened without attr axis, slices along it
 * with), inverse_indices the input's element count (or axis length).
 * TfIdfVectorizer: float [max(ngram_indexes) + 1], with the batch dim of a
 * 2-D input. StringNormalizer keeps its input's shape without stopwords;
 * with them the count is unknown (string values are not tracked). The
 * training ops: output k has the shape of input 2 + k (the updated tensors
 * follow the ratio R and step count T).
 *
 * FLOP rules ("complete" convention, E(t) = element count):
 *   NonMaxSuppression    B * C * S^2 * 4 (an IoU test per pair of boxes of
 *                        a class; the score sort is not counted)
 *   Unique, StringNormalizer  0 (data movement, with a rule)
 *   TfIdfVectorizer      E(X) (one n-gram lookup per element)
 *   Momentum             7 * E(updated X) (regularised gradient 2, velocity 3,
 *                        step 2); Adagrad 8 (gradient 2, squared sum 2, scaled
 *                        step 4); Adam 13 (gradient 2, first moment 3, second
 *                        moment 4, step 4)
 */
#include "ops/onnxops/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMS_MAX_PAIRS 1e8

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* NonMaxSuppression                                                          */
/* ------------------------------------------------------------------------- */

typedef struct nms_in {
    const fl_value *boxes, *scores;
    int64_t nb, nc, ns, max_out;
    double iou, score;
    bool has_score;
    int64_t center;
} nms_in;

static double box_at(const fl_value *v, int64_t i) {
    double d = 0;
    (void)fl__value_f64(v, i, &d);
    return d;
}

static double iou_of(const nms_in *p, int64_t b, int64_t i, int64_t j) {
    double a[4], e[4];
    for (int k = 0; k < 4; k++) {
        a[k] = box_at(p->boxes, (b * p->ns + i) * 4 + k);
        e[k] = box_at(p->boxes, (b * p->ns + j) * 4 + k);
    }
    double ay1, ax1, ay2, ax2, ey1, ex1, ey2, ex2;
    if (p->center) { /* [x_center, y_center, width, height] */
        ax1 = a[0] - a[2] / 2, ax2 = a[0] + a[2] / 2, ay1 = a[1] - a[3] / 2, ay2 = a[1] + a[3] / 2;
        ex1 = e[0] - e[2] / 2, ex2 = e[0] + e[2] / 2, ey1 = e[1] - e[3] / 2, ey2 = e[1] + e[3] / 2;
    } else { /* [y1, x1, y2, x2], either diagonal */
        ay1 = fmin(a[0], a[2]), ay2 = fmax(a[0], a[2]), ax1 = fmin(a[1], a[3]),
        ax2 = fmax(a[1], a[3]);
        ey1 = fmin(e[0], e[2]), ey2 = fmax(e[0], e[2]), ex1 = fmin(e[1], e[3]),
        ex2 = fmax(e[1], e[3]);
    }
    double iw = fmin(ax2, ex2) - fmax(ax1, ex1), ih = fmin(ay2, ey2) - fmax(ay1, ey1);
    if (iw <= 0 || ih <= 0) {
        return 0;
    }
    double inter = iw * ih;
    double uni = (ax2 - ax1) * (ay2 - ay1) + (ex2 - ex1) * (ey2 - ey1) - inter;
    return uni > 0 ? inter / uni : 0;
}

/* Selected [batch, class, box] triples into out (may be NULL); returns the
 * count. order/keep are scratch of ns entries. */
static int64_t nms_run(const nms_in *p, int64_t *order, int64_t *kept, fl_sym *out) {
    int64_t total = 0;
    for (int64_t b = 0; b < p->nb; b++) {
        for (int64_t cl = 0; cl < p->nc; cl++) {
            const int64_t base = (b * p->nc + cl) * p->ns;
            int64_t m = 0;
            for (int64_t s = 0; s < p->ns; s++) {
                if (!p->has_score || box_at(p->scores, base + s) > p->score) {
                    order[m++] = s;
                }
            }
            for (int64_t i = 1; i < m; i++) { /* stable insertion sort, descending */
                int64_t v = order[i], j = i;
                while (j > 0 &&
                       box_at(p->scores, base + order[j - 1]) < box_at(p->scores, base + v)) {
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = v;
            }
            int64_t nk = 0;
            for (int64_t i = 0; i < m && nk < p->max_out; i++) {
                bool keep = true;
                for (int64_t j = 0; j < nk && keep; j++) {
                    keep = !(iou_of(p, b, order[i], kept[j]) > p->iou);
                }
                if (keep) {
                    kept[nk++] = order[i];
                    if (out) {
                        out[3 * total] = fl_sym_const(b);
                        out[3 * total + 1] = fl_sym_const(cl);
                        out[3 * total + 2] = fl_sym_const(order[i]);
                    }
                    total++;
                }
            }
        }
    }
    return total;
}

/* The inputs when every value needed is known and small; false otherwise. */
static bool nms_read(fl_ctx *c, const fl_node *n, nms_in *p) {
    memset(p, 0, sizeof *p);
    p->boxes = fl_op_in_value(n, 0);
    p->scores = fl_op_in_value(n, 1);
    if (!p->boxes || !p->scores || p->boxes->rank != 3 || p->scores->rank != 3 ||
        p->boxes->dims[2] != 4 || p->boxes->n > c->max_value_elems) {
        return false;
    }
    p->nb = p->boxes->dims[0];
    p->ns = p->boxes->dims[1];
    p->nc = p->scores->dims[1];
    /* The selection tests box pairs: at most NMS_MAX_PAIRS of them are run
     * here; beyond that the count is left unknown. */
    if (p->scores->dims[0] != p->nb || p->scores->dims[2] != p->ns || p->ns > 100000 ||
        (double)p->nb * (double)p->nc * (double)p->ns * (double)p->ns > NMS_MAX_PAIRS) {
        return false;
    }
    double d;
    const fl_value *v;
    if (!fl__ox_absent(n, 2)) {
        v = fl_op_in_value(n, 2);
        if (!v || v->n != 1 || !fl__value_f64(v, 0, &d)) {
            return false;
        }
        p->max_out = d > 0 ? (int64_t)fmin(d, 1e15) : 0;
    }
    if (!fl__ox_absent(n, 3)) {
        v = fl_op_in_value(n, 3);
        if (!v || v->n != 1 || !fl__value_f64(v, 0, &p->iou)) {
            return false;
        }
    }
    if (!fl__ox_absent(n, 4)) {
        v = fl_op_in_value(n, 4);
        if (!v || v->n != 1 || !fl__value_f64(v, 0, &p->score)) {
            return false;
        }
        p->has_score = true;
    }
    return fl__value_is_concrete(p->boxes) && fl__value_is_concrete(p->scores);
}

static fl_status infer_nms(fl_ctx *c, fl_node *n) {
    int64_t center;
    fl_status st = fl__attr_int_or(n, "center_point_box", 0, &center, c->d);
    if (st == FL_OK && center != 0 && center != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'center_point_box' is %lld, must be 0 or 1",
                             (long long)center);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym d[2] = {fl_sym_unknown(), fl_sym_const(3)};
    nms_in p;
    if (nms_read(c, n, &p)) {
        p.center = center;
        int64_t *scratch = fl__arena_alloc(c->a, (size_t)(2 * p.ns + 1) * sizeof(int64_t));
        if (!scratch) {
            return fl__diag_oom(c->d);
        }
        int64_t cnt = nms_run(&p, scratch, scratch + p.ns, NULL);
        d[0] = fl_sym_const(cnt);
        st = fl__op_set_output(c, n, 0, FL_DT_INT64, 2, d);
        fl_value *v = st == FL_OK ? fl__op_new_value(c, n, 0) : NULL;
        if (v) {
            nms_run(&p, scratch, scratch + p.ns, (fl_sym *)v->ints);
            fl__op_set_value(n, 0, v);
        }
        return st;
    }
    return fl__op_set_output(c, n, 0, FL_DT_INT64, 2, d);
}

static fl_status cost_nms(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *s = &fl_node_in(n, 1)->shape;
    fl_sym f = fl_sym_unknown();
    if (s->rank == 3) {
        f = fl__ar_scale(&k, fl__ar_mul(&k, fl__ar_numel(&k, s), s->dims[2]), 4);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Unique                                                                     */
/* ------------------------------------------------------------------------- */

/* Slices along ax of a concrete value: count of distinct ones. */
static int64_t count_unique(const fl_value *v, int ax, bool flat) {
    int64_t outer = 1, len = v->n, inner = 1;
    if (!flat) {
        len = v->dims[ax];
        for (int i = 0; i < ax; i++) {
            outer *= v->dims[i];
        }
        for (int i = ax + 1; i < v->rank; i++) {
            inner *= v->dims[i];
        }
    }
    int64_t u = 0;
    for (int64_t a = 0; a < len; a++) {
        bool dup = false;
        for (int64_t b = 0; b < a && !dup; b++) {
            bool same = true;
            for (int64_t o = 0; o < outer && same; o++) {
                for (int64_t i = 0; i < inner && same; i++) {
                    double x = 0, y = 0;
                    (void)fl__value_f64(v, (o * len + a) * inner + i, &x);
                    (void)fl__value_f64(v, (o * len + b) * inner + i, &y);
                    same = x == y;
                }
            }
            dup = same;
        }
        u += !dup;
    }
    return u;
}

static fl_status infer_unique(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = fl_dtype_base(x->dtype);
    int64_t a, sorted;
    bool has_axis = fl__node_attr(n, "axis") != NULL;
    fl_status st = fl__attr_int_or(n, "axis", 0, &a, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "sorted", 1, &sorted, c->d);
    }
    int ax = 0;
    if (st == FL_OK && has_axis && x->shape.rank >= 0) {
        st = fl__ox_norm_axis(c, n, a, x->shape.rank, "attr 'axis'", &ax);
    }
    if (st != FL_OK) {
        return st;
    }
    if (has_axis && x->shape.rank < 0) {
        st = fl__op_set_output(c, n, 0, dt, -1, NULL);
        for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
            st = fl__op_set_output(c, n, k, FL_DT_INT64, 1, NULL);
        }
        return st;
    }
    fl_sym u = fl_sym_unknown(), len;
    const fl_value *v = x->value;
    if (v && fl__value_is_concrete(v) && v->n <= 4096) {
        u = fl_sym_const(count_unique(v, ax, !has_axis));
    }
    if (has_axis) {
        len = x->shape.dims[ax];
    } else if ((st = fl__op_num_elements(c, n, &x->shape, &len)) != FL_OK) {
        return st;
    }
    fl_sym y[256];
    if (has_axis) {
        memcpy(y, x->shape.dims, (size_t)x->shape.rank * sizeof(fl_sym));
        y[ax] = u;
        st = fl__op_set_output(c, n, 0, dt, x->shape.rank, y);
    } else {
        st = fl__op_set_output(c, n, 0, dt, 1, &u);
    }
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, FL_DT_INT64, 1, k == 2 ? &len : &u);
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Text                                                                       */
/* ------------------------------------------------------------------------- */

static fl_status infer_tfidf(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    const int64_t *ix;
    size_t ni;
    fl_status st = fl__attr_need_ints(n, "ngram_indexes", &ix, &ni, c->d);
    if (st != FL_OK) {
        return st;
    }
    int64_t mx = -1;
    for (size_t i = 0; i < ni; i++) {
        if (ix[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'ngram_indexes' has negative %lld",
                                 (long long)ix[i]);
        }
        mx = ix[i] > mx ? ix[i] : mx;
    }
    fl_sym d[2] = {x->rank == 2 ? x->dims[0] : fl_sym_const(mx + 1), fl_sym_const(mx + 1)};
    if (x->rank < 0 || x->rank > 2) {
        return x->rank < 0
                   ? fl__op_set_output(c, n, 0, FL_DT_FLOAT, -1, NULL)
                   : fl__node_fail(c->d, FL_EINVAL, n, "input has rank %d (1 or 2)", x->rank);
    }
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, x->rank, x->rank == 2 ? d : d + 1);
}

static fl_status cost_e_in(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_in(c, n, out, 1);
}

static fl_status infer_strnorm(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    const fl_str *sw;
    size_t nsw = 0;
    fl_status st = fl__attr_get_strs(n, "stopwords", &sw, &nsw, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    if (x->rank >= 0 && (x->rank < 1 || x->rank > 2)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input has rank %d ([C] or [1, C])", x->rank);
    }
    if (!nsw || x->rank < 0) {
        return fl__op_set_output(c, n, 0, FL_DT_STRING, x->rank, x->dims);
    }
    fl_sym d[2] = {fl_sym_const(1), fl_sym_unknown()};
    return fl__op_set_output(c, n, 0, FL_DT_STRING, x->rank, x->rank == 2 ? d : d + 1);
}

/* ------------------------------------------------------------------------- */
/* ai.onnx.preview.training                                                   */
/* ------------------------------------------------------------------------- */

static int groups_of(int kind) {
    return kind == FL_OP_ONNX_TRAIN_ADAM ? 4 : 3;
}

static fl_status infer_train(fl_ctx *c, fl_node *n) {
    int g = groups_of(n->kind);
    int nx = (n->n_inputs - 2) / g;
    if (nx < 1 || (n->n_inputs - 2) % g || n->n_outputs > (g - 1) * nx) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "has %d inputs and %d outputs; needs R, T and %d groups of tensors",
                             n->n_inputs, n->n_outputs, g);
    }
    fl_status st = FL_OK;
    for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
        /* outputs: X_new..., then the state tensors (V, H) in input order */
        int in = k < nx ? 2 + k : 2 + k + nx;
        const fl_tensor *t = fl_node_in(n, in);
        st = fl__op_set_output(c, n, k, fl_dtype_base(t->dtype), t->shape.rank, t->shape.dims);
    }
    return st;
}

static fl_status cost_train(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    int g = groups_of(n->kind);
    int nx = (n->n_inputs - 2) / g;
    int64_t per = n->kind == FL_OP_ONNX_TRAIN_ADAM      ? 13
                  : n->kind == FL_OP_ONNX_TRAIN_ADAGRAD ? 8
                                                        : 7;
    fl_sym f = fl_sym_const(0);
    for (int i = 0; i < nx; i++) {
        f = fl__ar_add(&k, f,
                       fl__ar_scale(&k, fl__ar_numel(&k, &fl_node_in(n, 2 + i)->shape), per));
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static int count_given(const fl_node *n, fl_diag *d) {
    (void)d;
    return n->n_outputs > 0 ? n->n_outputs : -1; /* the file's output list decides */
}

/* Hook sets and descriptors (their rows: onnxops/select.def) */

#define HOOKS_nms               .infer = infer_nms, .cost = cost_nms
#define HOOKS_unique            .infer = infer_unique, .cost = cost_zero
#define HOOKS_tfidf             .infer = infer_tfidf, .cost = cost_e_in
#define HOOKS_string_normalizer .infer = infer_strnorm, .cost = cost_zero

#define HOOKS_train .count_outputs = count_given, .infer = infer_train, .cost = cost_train

#define FL_OP FL_OP_DESC
#include "ops/onnxops/select.def"
#undef FL_OP
