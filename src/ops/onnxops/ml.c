/*
 * ml.c - the ai.onnx.ml operators a model registry meets (registered as
 * "ai.onnx.ml::OpType"): TreeEnsemble (ai.onnx.ml opset 5),
 * TreeEnsembleRegressor, TreeEnsembleClassifier,
 * LinearRegressor, LinearClassifier, SVMRegressor, SVMClassifier, Scaler,
 * Normalizer, Binarizer, Imputer, LabelEncoder, ArrayFeatureExtractor,
 * FeatureVectorizer, OneHotEncoder, ZipMap.
 *
 * Shapes (X is [N, F], or [F] for one sample):
 *   TreeEnsembleRegressor     Y float [N, n_targets]
 *   TreeEnsemble              Y X's dtype [N, n_targets] (n_targets, else
 *                             the largest leaf_targetids entry + 1)
 *   TreeEnsembleClassifier, LinearClassifier, SVMClassifier  Y labels [N]
 *                             (int64 with classlabels_ints, else string), Z
 *                             float [N, classes] (classes = the label count)
 *   LinearRegressor           Y float [N, targets]
 *   SVMRegressor              Y float [N, 1]
 *   Scaler, Normalizer        float, X's shape
 *   Binarizer, Imputer        X's dtype and shape
 *   LabelEncoder              X's shape, dtype of its values_* attr
 *   ArrayFeatureExtractor     X.shape[:-1] + [len(Y)] (Y: the indices)
 *   FeatureVectorizer         float [N, sum(inputdimensions)]
 *   OneHotEncoder             float X.shape + [len(cats_*)]
 *   ZipMap                    a sequence of N maps: variant [N]
 *
 * FLOP rules ("complete" convention; MACs for the linear models only):
 *   LinearRegressor/Classifier  MACs = N * F * outputs; FLOPs = 2 * MACs +
 *                             N * outputs (intercepts)
 *   SVMRegressor/Classifier   MACs = N * F * n_support_vectors (the kernel
 *                             products); FLOPs = 2 * MACs + N * n_support
 *                             (one kernel function each)
 *   TreeEnsemble*             N * branch nodes (every branch node's comparison:
 *                             an upper bound of the path walked; leaves add
 *                             their weights, not counted); the branch nodes
 *                             are nodes_modes' entries but LEAF, and all of
 *                             TreeEnsemble's nodes_featureids (its leaves are
 *                             listed apart)
 *   Scaler 2 * E(X); Normalizer 3 * E(X); Binarizer, Imputer 1 * E(X)
 *   LabelEncoder, ArrayFeatureExtractor, FeatureVectorizer, OneHotEncoder,
 *   ZipMap                    0 (lookups and data movement, with a rule)
 */
#include "ops/onnxops/util.h"

#include <string.h>

static fl_sym rows(const fl_shape *x) {
    return x->rank == 2 ? x->dims[0] : x->rank == 1 ? fl_sym_const(1) : fl_sym_unknown();
}

static fl_sym feats(const fl_shape *x) {
    return x->rank >= 1 ? x->dims[x->rank - 1] : fl_sym_unknown();
}

/* Length of a list attr (ints, floats or strings); 0 when absent. */
static int64_t list_len(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_LIST ? (int64_t)a->n : 0;
}

/* The class count and the labels' dtype of a classifier. */
static void classes_of(const fl_node *n, int64_t *cls, int *dt) {
    int64_t li = list_len(n, "classlabels_ints");
    *dt = li ? FL_DT_INT64 : FL_DT_STRING;
    *cls = li ? li : list_len(n, "classlabels_strings");
}

static fl_status set_classifier(fl_ctx *c, fl_node *n, fl_sym nrows, int64_t cls, int dt) {
    fl_sym z[2] = {nrows, cls > 0 ? fl_sym_const(cls) : fl_sym_unknown()};
    fl_status st = fl__op_set_output(c, n, 0, dt, 1, &nrows);
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_FLOAT, 2, z) : st;
}

static fl_status infer_classifier(fl_ctx *c, fl_node *n) {
    int64_t cls;
    int dt;
    classes_of(n, &cls, &dt);
    if (!cls) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr classlabels_ints or classlabels_strings is missing");
    }
    return set_classifier(c, n, rows(&fl_node_in(n, 0)->shape), cls, dt);
}

static fl_status infer_tree_regressor(fl_ctx *c, fl_node *n) {
    int64_t t;
    fl_status st = fl__attr_int_or(n, "n_targets", 1, &t, c->d);
    if (st == FL_OK && t < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'n_targets' is %lld", (long long)t);
    }
    fl_sym y[2] = {rows(&fl_node_in(n, 0)->shape), fl_sym_const(t)};
    return st == FL_OK ? fl__op_set_output(c, n, 0, FL_DT_FLOAT, 2, y) : st;
}

static fl_status infer_tree_ensemble(fl_ctx *c, fl_node *n) {
    int64_t t;
    fl_status st = fl__attr_int_or(n, "n_targets", 0, &t, c->d);
    const int64_t *ids;
    size_t ni;
    if (st == FL_OK && t == 0 && fl__attr_get_ints(n, "leaf_targetids", &ids, &ni, c->d) == FL_OK) {
        for (size_t i = 0; i < ni; i++) {
            t = ids[i] >= t && ids[i] < ((int64_t)1 << 40) ? ids[i] + 1 : t;
        }
    }
    if (st != FL_OK) {
        return st;
    }
    if (t < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'n_targets' is %lld", (long long)t);
    }
    fl_sym y[2] = {rows(&fl_node_in(n, 0)->shape), fl_sym_const(t)};
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, y);
}

static fl_status infer_linear_regressor(fl_ctx *c, fl_node *n) {
    int64_t t;
    fl_status st = fl__attr_int_or(n, "targets", 1, &t, c->d);
    if (st == FL_OK && t < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'targets' is %lld", (long long)t);
    }
    fl_sym y[2] = {rows(&fl_node_in(n, 0)->shape), fl_sym_const(t)};
    return st == FL_OK ? fl__op_set_output(c, n, 0, FL_DT_FLOAT, 2, y) : st;
}

static fl_status infer_svm_regressor(fl_ctx *c, fl_node *n) {
    fl_sym y[2] = {rows(&fl_node_in(n, 0)->shape), fl_sym_const(1)};
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, 2, y);
}

static fl_status cost_tree(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_attr *modes = fl__node_attr(n, "nodes_modes");
    int64_t branches = 0;
    if (modes && modes->kind == FL_ATTR_LIST && modes->list_kind == FL_ATTR_S) {
        for (size_t i = 0; i < modes->n; i++) {
            branches += strcmp(modes->v.list.s[i].p, "LEAF") != 0;
        }
    }
    if (n->kind == FL_OP_ONNX_ML_TREE_ENSEMBLE) {
        branches = list_len(n, "nodes_featureids");
    }
    fl_sym f = fl__ar_scale(&k, rows(&fl_node_in(n, 0)->shape), branches);
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* Linear models: outputs = coefficients / F; SVMs: support vectors. */
static fl_status cost_linear(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    bool svm = n->kind == FL_OP_ONNX_ML_SVM_REGRESSOR || n->kind == FL_OP_ONNX_ML_SVM_CLASSIFIER;
    fl_sym nr = rows(x), nf = feats(x);
    int64_t m = 0;
    if (svm) {
        m = list_len(n, "support_vectors");
        m = fl_sym_is_known(nf) && nf.k > 0 ? m / nf.k : 0;
    } else {
        int64_t coef = list_len(n, "coefficients");
        m = fl_sym_is_known(nf) && nf.k > 0 ? coef / nf.k : 0;
    }
    fl_sym macs = m ? fl__ar_scale(&k, fl__ar_mul(&k, nr, nf), m) : fl_sym_unknown();
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, nr, m));
    return fl__ar_put_cost(&k, out, f, macs);
}

static fl_status infer_float_same(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, x->rank, x->dims);
}

static fl_status infer_label_encoder(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = list_len(n, "values_int64s")    ? FL_DT_INT64
             : list_len(n, "values_floats")  ? FL_DT_FLOAT
             : list_len(n, "values_strings") ? FL_DT_STRING
                                             : FL_DT_INVALID;
    if (dt == FL_DT_INVALID) {
        const fl_const *t = NULL;
        if (fl__attr_get_tensor(n, "values_tensor", &t, c->d) == FL_OK && t) {
            dt = t->dtype;
        } else {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr values_* is missing");
        }
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, x->dims);
}

static fl_status infer_array_feature(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape, *y = &fl_node_in(n, 1)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 1 || x->rank > 254) {
        return fl__op_set_output(c, n, 0, dt, x->rank, NULL);
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    fl_status st = fl__op_num_elements(c, n, y, &d[x->rank - 1]);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->rank, d) : st;
}

static fl_status infer_feature_vectorizer(fl_ctx *c, fl_node *n) {
    const int64_t *dims;
    size_t nd;
    fl_status st = fl__attr_need_ints(n, "inputdimensions", &dims, &nd, c->d);
    if (st != FL_OK) {
        return st;
    }
    int64_t total = 0;
    for (size_t i = 0; i < nd; i++) {
        if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'inputdimensions' entry %zu is %lld", i,
                                 (long long)dims[i]);
        }
        total += dims[i];
    }
    fl_sym y[2] = {rows(&fl_node_in(n, 0)->shape), fl_sym_const(total)};
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, 2, y);
}

static fl_status infer_one_hot_encoder(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int64_t cats = list_len(n, "cats_int64s") + list_len(n, "cats_strings");
    if (!cats) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr cats_int64s or cats_strings is missing");
    }
    if (x->rank < 0 || x->rank > 253) {
        return fl__op_set_output(c, n, 0, FL_DT_FLOAT, -1, NULL);
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(fl_sym));
    d[x->rank] = fl_sym_const(cats);
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, x->rank + 1, d);
}

static fl_status infer_zipmap(fl_ctx *c, fl_node *n) {
    fl_sym nr = rows(&fl_node_in(n, 0)->shape);
    return fl__op_set_output(c, n, 0, FL_DT_VARIANT, 1, &nr);
}

static fl_status cost_scaled(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t per = n->kind == FL_OP_ONNX_ML_SCALER ? 2 : n->kind == FL_OP_ONNX_ML_NORMALIZER ? 3 : 1;
    return fl__ox_cost_per_in(c, n, out, per);
}

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost(&k, out, fl_sym_const(0), fl_sym_const(0));
}

/* Hook sets and descriptors (their rows: onnxops/ml.def) */

#define HOOKS_ml_tree_regressor          .infer = infer_tree_regressor, .cost = cost_tree
#define HOOKS_ml_tree_classifier         .infer = infer_classifier, .cost = cost_tree
#define HOOKS_ml_linear_regressor        .infer = infer_linear_regressor, .cost = cost_linear
#define HOOKS_ml_linear_classifier       .infer = infer_classifier, .cost = cost_linear
#define HOOKS_ml_svm_regressor           .infer = infer_svm_regressor, .cost = cost_linear
#define HOOKS_ml_scaler                  .infer = infer_float_same, .cost = cost_scaled
#define HOOKS_ml_binarizer               .infer = fl__ox_infer_same, .cost = cost_scaled
#define HOOKS_ml_label_encoder           .infer = infer_label_encoder, .cost = cost_zero
#define HOOKS_ml_array_feature_extractor .infer = infer_array_feature, .cost = cost_zero
#define HOOKS_ml_feature_vectorizer      .infer = infer_feature_vectorizer, .cost = cost_zero
#define HOOKS_ml_one_hot_encoder         .infer = infer_one_hot_encoder, .cost = cost_zero
#define HOOKS_ml_zipmap                  .infer = infer_zipmap, .cost = cost_zero
#define HOOKS_ml_tree_ensemble           .infer = infer_tree_ensemble, .cost = cost_tree

#define FL_OP FL_OP_DESC
#include "ops/onnxops/ml.def"
#undef FL_OP
