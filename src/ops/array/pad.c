/*
 * pad.c - Pad, PadV2, MirrorPad (array family).
 *
 * Shapes: TensorFlow's shape functions; paddings without a value are read
 * through a Reshape of a partial vector (shape_vector.c) for the entries that
 * are known. MirrorPad's REFLECT and SYMMETRIC limits are checked. eval: for
 * any dtype.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: they copy,
 * index or generate elements without arithmetic on them; 0 is the real count
 * (their cost is bytes, counted elsewhere). tfprof registers none of them
 * (tfprof_flops 0, tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

#include <string.h>

enum { PAD_CONST = 0, PAD_REFLECT = 1, PAD_SYMMETRIC = 2 };

static fl_status mirror_mode(fl_ctx *c, const fl_node *n, int *mode) {
    const char *m;
    fl_status st = fl__attr_str_or(n, "mode", "", &m, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(m, "REFLECT") == 0) {
        *mode = PAD_REFLECT;
    } else if (strcmp(m, "SYMMETRIC") == 0) {
        *mode = PAD_SYMMETRIC;
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'mode' must be REFLECT or SYMMETRIC, got '%s'", m);
    }
    return FL_OK;
}

static fl_status pad_infer(fl_ctx *c, fl_node *n, int mode) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *s = fl__op_in_shape(n, 0), *ps = fl__op_in_shape(n, 1);
    int64_t r = s->rank;
    const fl_value *pv = fl__array_int_value(n, 1);
    if (ps->rank >= 0 && ps->rank != 2) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'paddings' must have shape [rank, 2], got rank %d", ps->rank);
    }
    if (pv) {
        if (pv->rank != 2 || pv->dims[1] != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input 'paddings' must have shape [rank, 2]");
        }
        if (r >= 0 && pv->dims[0] != r) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'paddings' has %lld rows but the input has rank %lld",
                                 (long long)pv->dims[0], (long long)r);
        }
        r = pv->dims[0];
    } else if (r < 0 && ps->rank == 2 && fl_sym_is_known(ps->dims[0])) {
        r = ps->dims[0].k;
    }
    /* Paddings without a value: look through Reshape(vector) for the entries
     * that are known (e.g. Reshape(Pack(0, 0, 0, h, ...), [4, 2])). */
    const fl_sym *pads = pv ? pv->ints : NULL;
    const fl_tensor *pt = fl_node_in(n, 1);
    if (!pads && r >= 0 && r <= MAX_RANK && pt->producer && pt->producer->kind == FL_OP_RESHAPE &&
        pt->producer->n_inputs >= 1) {
        fl_sym *pe;
        int64_t pk;
        st = fl__array_partial_vec(c, fl_node_in(pt->producer, 0), 1, &pe, &pk);
        if (st == FL_OK && pk == 2 * r) {
            pads = pe;
        } else if (st != FL_OK && st != FL_ENOTFOUND) {
            return st;
        }
    }
    if (r < 0 || r > MAX_RANK || !pads) {
        return fl__array_set_rank(c, n, 0, dt, r);
    }
    fl_sym *out = fl__array_alloc_syms(c, r);
    if (!out) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r; i++) {
        fl_sym D = s->rank >= 0 ? s->dims[i] : fl_sym_unknown();
        for (int j = 0; j < 2; j++) {
            fl_sym x = pads[2 * i + j];
            if (fl_sym_is_known(x) && x.k < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 'paddings' has a negative entry %lld at [%d, %d]",
                                     (long long)x.k, i, j);
            }
            if (mode != PAD_CONST && fl_sym_is_known(x) && fl_sym_is_known(D)) {
                int64_t lim = mode == PAD_REFLECT ? D.k - 1 : D.k;
                if (x.k > lim) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "input 'paddings' entry %lld at [%d, %d] must be at most "
                                         "%lld in %s mode (dimension size %lld)",
                                         (long long)x.k, i, j, (long long)lim,
                                         mode == PAD_REFLECT ? "REFLECT" : "SYMMETRIC",
                                         (long long)D.k);
                }
            }
        }
        fl_sym t;
        if ((st = fl__op_add(c, n, D, pads[2 * i], &t)) != FL_OK ||
            (st = fl__op_add(c, n, t, pads[2 * i + 1], &out[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, (int)r, out);
}

static fl_status pad_eval(fl_ctx *c, fl_node *n, int mode, const fl_value *pad) {
    const fl_value *src = fl_op_in_value(n, 0), *pv = fl__array_int_value(n, 1);
    if (!fl__array_usable(src) || !pv || pv->rank != 2 || pv->dims[0] != src->rank ||
        pv->dims[1] != 2) {
        return FL_OK;
    }
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, src, &st);
    if (!v) {
        return st;
    }
    if (pad && (!fl__array_usable(pad) || pad->n != 1 ||
                fl_dtype_base(pad->dtype) != fl_dtype_base(v->dtype))) {
        return FL_OK;
    }
    int r = src->rank;
    int64_t *is = fl__array_row_strides(c, r, src->dims);
    int64_t **maps = fl__array_alloc_maps(c, r, v->dims);
    if (!is || !maps) {
        return fl__diag_oom(c->d);
    }
    if (v->rank != r) {
        return FL_OK;
    }
    for (int i = 0; i < r; i++) {
        fl_sym lo = pv->ints[2 * i];
        int64_t D = src->dims[i];
        if (!fl_sym_is_known(lo)) {
            return FL_OK;
        }
        for (int64_t o = 0; o < v->dims[i]; o++) {
            int64_t x = o - lo.k;
            if (x < 0 || x >= D) {
                if (mode == PAD_CONST) {
                    x = -1;
                } else if (mode == PAD_REFLECT) {
                    x = x < 0 ? -x : 2 * D - 2 - x;
                } else {
                    x = x < 0 ? -x - 1 : 2 * D - 1 - x;
                }
                if (mode != PAD_CONST && (x < 0 || x >= D)) {
                    return FL_OK;
                }
            }
            maps[i][o] = x;
        }
    }
    return fl__array_finish(n, 0, v, fl__array_fill_mapped(c, v, src, r, v->dims, maps, is, pad));
}

static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    return pad_infer(c, n, PAD_CONST);
}

static fl_status eval_pad(fl_ctx *c, fl_node *n) {
    return pad_eval(c, n, PAD_CONST, NULL);
}

static fl_status infer_pad_v2(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 2, "constant_values");
    return st != FL_OK ? st : pad_infer(c, n, PAD_CONST);
}

static fl_status eval_pad_v2(fl_ctx *c, fl_node *n) {
    const fl_value *pad = fl_op_in_value(n, 2);
    return fl__array_usable(pad) ? pad_eval(c, n, PAD_CONST, pad) : FL_OK;
}

static fl_status infer_mirror_pad(fl_ctx *c, fl_node *n) {
    int mode = 0;
    fl_status st = mirror_mode(c, n, &mode);
    return st != FL_OK ? st : pad_infer(c, n, mode);
}

static fl_status eval_mirror_pad(fl_ctx *c, fl_node *n) {
    int mode = 0;
    if (mirror_mode(c, n, &mode) != FL_OK) {
        return FL_OK;
    }
    return pad_eval(c, n, mode, NULL);
}

/* Hook sets and descriptors (their rows: array/pad.def). */
#define HOOKS_pad    .infer = infer_pad, .eval = eval_pad, .cost = fl__op_cost_zero
#define HOOKS_pad_v2 .infer = infer_pad_v2, .eval = eval_pad_v2, .cost = fl__op_cost_zero
#define HOOKS_mirror_pad                                                                           \
    .infer = infer_mirror_pad, .eval = eval_mirror_pad, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/pad.def"
#undef FL_OP
