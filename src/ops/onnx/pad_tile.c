/*
 * onnx/pad_tile.c - Expand, Pad, Tile, ConstantOfShape, Range (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* A shape given as the value of input i (an int64 vector): *shape gets its
 * rank and dims (symbolic elements kept); unknown value: the rank from the
 * input's static length when known, dims unknown. */
fl_status fl__onnx_shape_from_input(fl_ctx *c, const fl_node *n, int i, fl_shape *shape) {
    const fl_sym *v;
    int64_t len;
    fl_status st = fl__op_in_sym_vector(c, n, i, &v, &len);
    if (st == FL_ENOTFOUND) {
        const fl_shape *s = fl__op_in_shape(n, i);
        shape->rank = (s->rank == 1 && fl_sym_is_known(s->dims[0]) && s->dims[0].k <= 254)
                          ? (int)s->dims[0].k
                          : -1;
        shape->dims = NULL;
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (len > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d describes a shape of rank %lld", i,
                             (long long)len);
    }
    shape->rank = (int)len;
    shape->dims = (fl_sym *)v;
    return FL_OK;
}

static fl_status infer_expand(fl_ctx *c, fl_node *n) {
    fl_shape want, out;
    fl_status st = fl__onnx_shape_from_input(c, n, 1, &want);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (want.rank >= 0 && !want.dims) {
        int r = x->rank < 0 ? -1 : (x->rank > want.rank ? x->rank : want.rank);
        return fl__op_set_output_rank(c, n, 0, fl__ox_in_dtype(n, 0), r);
    }
    st = fl__op_broadcast(c, n, x, &want, &out);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), out.rank, out.dims) : st;
}

/* Output 0's value: input 0's known value broadcast to the inferred shape
 * (numpy's rule: input dims align at the back, a dim of 1 repeats). */
static fl_status eval_expand(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    const fl_shape *s = &n->outputs[0].shape;
    fl_value *v;
    fl_status st = fl__onnx_new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || !x || x->dtype != v->dtype || x->rank > s->rank) {
        return st;
    }
    int lead = s->rank - x->rank;
    for (int j = 0; j < x->rank; j++) {
        if (x->dims[j] != 1 && x->dims[j] != s->dims[lead + j].k) {
            return FL_OK;
        }
    }
    for (int64_t i = 0; i < v->n; i++) {
        int64_t rem = i, si = 0, stride = 1;
        for (int j = s->rank - 1; j >= lead; j--) {
            int64_t d = s->dims[j].k, coord = rem % d, xd = x->dims[j - lead];
            rem /= d;
            si += (xd == 1 ? 0 : coord) * stride;
            stride *= xd;
        }
        fl__onnx_copy_elem(v, i, x, si);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_constant_of_shape(fl_ctx *c, fl_node *n) {
    const fl_const *k = NULL;
    fl_status st = fl__attr_get_tensor(n, "value", &k, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    int dt = k ? k->dtype : FL_DT_FLOAT;
    fl_shape s;
    st = fl__onnx_shape_from_input(c, n, 0, &s);
    if (st != FL_OK) {
        return st;
    }
    if (s.rank >= 0 && !s.dims) {
        return fl__op_set_output_rank(c, n, 0, dt, s.rank);
    }
    st = fl__op_set_output(c, n, 0, dt, s.rank, s.dims);
    if (st != FL_OK || s.rank < 0) {
        return st;
    }
    /* The value follows from the shape when the fill value is known. */
    fl_value *v;
    st = fl__onnx_new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || (k && !k->value) || (k && k->value->n < 1)) {
        return st;
    }
    if (k && v->n > 0) {
        /* the fill value once, then what is filled copied after itself */
        fl__onnx_copy_elem(v, 0, k->value, 0);
        for (int64_t done = 1; done < v->n; done *= 2) {
            fl__onnx_copy_run(v, done, v, 0, done < v->n - done ? done : v->n - done);
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *pads, *axes = NULL;
    int64_t np, na = 0;
    bool found, afound = false;
    /* Pad-1 names attr pads "paddings" (the same layout: begins, then ends) */
    const char *pads_attr = fl__ox_opset_before(c, 2) ? "paddings" : "pads";
    fl_status st = fl__ox_ints_in_or_attr(c, n, 1, pads_attr, &pads, &np, &found);
    if (st == FL_OK && !fl__ox_absent(n, 3)) {
        st = fl__ox_ints_in_or_attr(c, n, 3, "axes", &axes, &na, &afound);
    }
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    int cnt = afound ? (int)na : x->rank;
    if (!found || np != 2 * cnt) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'%s' needs %d entries, got %lld", pads_attr,
                             2 * cnt, (long long)np);
    }
    fl_sym dims[256];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(fl_sym));
    for (int j = 0; j < cnt; j++) {
        int ax = j;
        if (afound && (st = fl__ox_norm_axis(c, n, axes[j], x->rank, "axis", &ax)) != FL_OK) {
            return st;
        }
        if ((st = fl__op_add(c, n, dims[ax], fl_sym_const(pads[j]), &dims[ax])) != FL_OK ||
            (st = fl__op_add(c, n, dims[ax], fl_sym_const(pads[cnt + j]), &dims[ax])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
}

/* Tile-1 (before opset 6): inputs tiles and axis, one value each, repeat
 * the input along that one axis. */
static fl_status infer_tile1(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t *t, *a, nt, na;
    fl_status st = fl__op_in_int_vector(c, n, 1, &t, &nt);
    if (st == FL_OK) {
        st = fl__op_in_int_vector(c, n, 2, &a, &na);
    }
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    if (nt != 1 || na != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "inputs 'tiles' and 'axis' have %lld and %lld values, want one each "
                             "(Tile-1, opset %lld)",
                             (long long)nt, (long long)na, (long long)c->g->onnx.opset);
    }
    int ax;
    if ((st = fl__ox_norm_axis(c, n, a[0], x->rank, "input 'axis'", &ax)) != FL_OK) {
        return st;
    }
    fl_sym dims[256];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(fl_sym));
    if ((st = fl__op_scale(c, n, x->dims[ax], t[0], &dims[ax])) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
}

static fl_status infer_tile(fl_ctx *c, fl_node *n) {
    if (fl__ox_opset_before(c, 6)) {
        return infer_tile1(c, n);
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t *rep, nr;
    fl_status st = fl__op_in_int_vector(c, n, 1, &rep, &nr);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    if (nr != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'repeats' has %lld entries for rank %d",
                             (long long)nr, x->rank);
    }
    fl_sym dims[256];
    for (int i = 0; i < x->rank; i++) {
        if ((st = fl__op_scale(c, n, x->dims[i], rep[i], &dims[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
}

/* Hook sets and descriptors (their rows: pad_tile.def). */
#define HOOKS_expand            .infer = infer_expand, .eval = eval_expand, .cost = fl__op_cost_zero
#define HOOKS_pad               .infer = infer_pad, .cost = fl__op_cost_zero
#define HOOKS_tile              .infer = infer_tile, .cost = fl__op_cost_zero
#define HOOKS_constant_of_shape .infer = infer_constant_of_shape, .cost = fl__op_cost_zero
#define HOOKS_range                                                                                \
    .infer = fl__onnx_infer_twin, .eval = fl__onnx_eval_twin, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnx/pad_tile.def"
#undef FL_OP
