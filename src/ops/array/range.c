/*
 * range.c - Range (array family).
 *
 * Shape: [size] as TensorFlow's shape function computes it (integers:
 * ceil(|limit - start| / |delta|), symbolic start or limit allowed; floats:
 * in the dtype). eval: integers start + i*delta (symbolic start allowed);
 * floats accumulated in the dtype as TF's kernel does.
 *
 * FLOP rules ("complete" convention): 0 FLOPs, has_rule true: its index
 * arithmetic is counted as 0, as Grappler does. tfprof has no rule (0,
 * tfprof_rule false). No MACs.
 */
#include "ops/array/array.h"

#include <math.h>
#include <stdint.h>

static bool scalar_f64(const fl_node *n, int i, double *out) {
    const fl_value *v = fl_op_in_value(n, i);
    return v && v->n == 1 && fl__value_f64(v, 0, out);
}

static fl_status infer_range(fl_ctx *c, fl_node *n) {
    static const char *const names[3] = {"start", "limit", "delta"};
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "Tidx", 0, &dt);
    for (int i = 0; i < 3 && st == FL_OK; i++) {
        st = fl__op_want_scalar(c, n, i, names[i]);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym len = fl_sym_unknown();
    if (fl__dtype_is_integer(dt)) {
        fl_sym s0, l0, d0;
        bool hs = fl__array_scalar_sym(n, 0, &s0), hl = fl__array_scalar_sym(n, 1, &l0),
             hd = fl__array_scalar_sym(n, 2, &d0);
        if (hd && fl_sym_is_known(d0)) {
            int64_t d = d0.k;
            if (d == 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'delta' must not be 0");
            }
            if (hs && hl && fl_sym_is_known(s0) && fl_sym_is_known(l0)) {
                int64_t s = s0.k, l = l0.k;
                if (d > 0 && s > l) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "requires start <= limit when delta > 0: %lld/%lld",
                                         (long long)s, (long long)l);
                }
                if (d < 0 && s < l) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "requires start >= limit when delta < 0: %lld/%lld",
                                         (long long)s, (long long)l);
                }
                uint64_t diff = d > 0 ? (uint64_t)l - (uint64_t)s : (uint64_t)s - (uint64_t)l;
                uint64_t ad = d > 0 ? (uint64_t)d : (uint64_t)0 - (uint64_t)d;
                uint64_t cnt = diff / ad + (diff % ad != 0 ? 1 : 0);
                if (cnt > (uint64_t)INT64_MAX) {
                    return fl__node_fail(c->d, FL_EINVAL, n, "range size overflows int64");
                }
                len = fl_sym_const((int64_t)cnt);
            } else if (hs && hl && d != INT64_MIN) {
                fl_sym diff;
                st = d > 0 ? fl__op_sub(c, n, l0, s0, &diff) : fl__op_sub(c, n, s0, l0, &diff);
                if (st == FL_OK) {
                    st = fl__op_ceildiv(c, n, diff, fl_sym_const(d > 0 ? d : -d), &len);
                }
                if (st != FL_OK) {
                    return st;
                }
            }
        }
    } else if (fl__dtype_is_float(dt)) {
        double s, l, d;
        if (scalar_f64(n, 0, &s) && scalar_f64(n, 1, &l) && scalar_f64(n, 2, &d)) {
            if (d == 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "input 'delta' must not be 0");
            }
            if ((d > 0 && s > l) || (d < 0 && s < l)) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "requires start %s limit when delta %s 0: %g/%g",
                                     d > 0 ? "<=" : ">=", d > 0 ? ">" : "<", s, l);
            }
            double size;
            if (fl_dtype_base(dt) == FL_DT_DOUBLE) {
                size = ceil(fabs((l - s) / d));
            } else {
                float fs = (float)s, fl = (float)l, fd = (float)d;
                size = ceilf(fabsf((fl - fs) / fd));
            }
            if (!(size >= 0) || size > 9.2e18) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "requires ((limit - start) / delta) <= max int64");
            }
            len = fl_sym_const((int64_t)size);
        }
    }
    return fl__op_set_output(c, n, 0, dt, 1, &len);
}

static fl_status eval_range(fl_ctx *c, fl_node *n) {
    fl_status st;
    fl_value *v = fl__array_out_value(c, n, 0, NULL, &st);
    if (!v) {
        return st;
    }
    if (v->ints) {
        fl_sym cur, d;
        if (!fl__array_scalar_sym(n, 0, &cur) || !fl__array_scalar_sym(n, 2, &d)) {
            return FL_OK;
        }
        for (int64_t i = 0; i < v->n; i++) {
            ((fl_sym *)v->ints)[i] = cur;
            if (i + 1 < v->n && (st = fl__op_add(c, n, cur, d, &cur)) != FL_OK) {
                return st;
            }
        }
    } else {
        double cur, d;
        if (!scalar_f64(n, 0, &cur) || !scalar_f64(n, 2, &d)) {
            return FL_OK;
        }
        for (int64_t i = 0; i < v->n; i++) {
            double r;
            fl__value_set_f64(v, i, cur);
            if (!fl__value_f64(v, i, &r)) {
                return FL_OK;
            }
            cur = r + d; /* rounded to the dtype by the next store, as T's += */
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: array/range.def). */
#define HOOKS_range .infer = infer_range, .eval = eval_range, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/array/range.def"
#undef FL_OP
