/*
 * onnx/slice.c - Slice and Gather (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* Slice: per-axis start, step and length of the result (on the stack: in
 * arena memory each Slice inferred or evaluated took 8 KB, zeroed). */
typedef struct slice_plan {
    int rank;
    fl_sym len[256];
    int64_t start[256], step[256]; /* meaningful where the dim is concrete */
    bool concrete;
} slice_plan;

/* Starts/ends/axes/steps: inputs 1..4 (opset >= 10) or attrs. Elements of
 * starts/ends may be symbolic. */
static fl_status slice_params(fl_ctx *c, const fl_node *n, const fl_sym **starts,
                              const fl_sym **ends, int64_t *cnt, const int64_t **axes,
                              const int64_t **steps, bool *known) {
    fl_status st;
    *known = false;
    int64_t ns = 0, ne = 0, na = 0, nst = 0;
    *axes = NULL;
    *steps = NULL;
    if (n->n_inputs >= 3) {
        st = fl__op_in_sym_vector(c, n, 1, starts, &ns);
        if (st == FL_OK) {
            st = fl__op_in_sym_vector(c, n, 2, ends, &ne);
        }
        if (st == FL_ENOTFOUND) {
            return FL_OK;
        }
        if (st != FL_OK) {
            return st;
        }
    } else {
        const int64_t *s, *e;
        size_t a, b;
        if ((st = fl__attr_need_ints(n, "starts", &s, &a, c->d)) != FL_OK ||
            (st = fl__attr_need_ints(n, "ends", &e, &b, c->d)) != FL_OK) {
            return st;
        }
        fl_sym *ss = fl__arena_calloc(c->a, a + b + 1, sizeof(fl_sym));
        if (!ss) {
            return fl__diag_oom(c->d);
        }
        for (size_t i = 0; i < a + b; i++) {
            ss[i] = fl_sym_const(i < a ? s[i] : e[i - a]);
        }
        *starts = ss;
        *ends = ss + a;
        ns = (int64_t)a;
        ne = (int64_t)b;
    }
    if (ns != ne) {
        return fl__node_fail(c->d, FL_EINVAL, n, "starts has %lld entries but ends %lld",
                             (long long)ns, (long long)ne);
    }
    bool found;
    st = fl__ox_ints_in_or_attr(c, n, 3, "axes", axes, &na, &found);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (found && na != ns) {
        return fl__node_fail(c->d, FL_EINVAL, n, "axes has %lld entries but starts %lld",
                             (long long)na, (long long)ns);
    }
    if (!found) {
        *axes = NULL;
    }
    if (!fl__ox_absent(n, 4)) {
        int64_t *sv;
        st = fl__op_in_int_vector(c, n, 4, &sv, &nst);
        if (st == FL_ENOTFOUND) {
            return FL_OK;
        }
        if (st != FL_OK) {
            return st;
        }
        if (nst != ns) {
            return fl__node_fail(c->d, FL_EINVAL, n, "steps has %lld entries but starts %lld",
                                 (long long)nst, (long long)ns);
        }
        *steps = sv;
    }
    *cnt = ns;
    *known = true;
    return FL_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

static fl_status slice_plan_of(fl_ctx *c, const fl_node *n, slice_plan *p, bool *ok) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_sym *starts, *ends;
    const int64_t *axes, *steps;
    int64_t cnt = 0;
    *ok = false;
    if (x->rank < 0 || x->rank > 254) {
        return FL_OK;
    }
    fl_status st = slice_params(c, n, &starts, &ends, &cnt, &axes, &steps, ok);
    if (st != FL_OK || !*ok) {
        return st;
    }
    p->rank = x->rank;
    p->concrete = true;
    bool done[256];
    memset(done, 0, (size_t)x->rank);
    for (int i = 0; i < x->rank; i++) {
        p->len[i] = x->dims[i];
        p->start[i] = 0;
        p->step[i] = 1;
        p->concrete = p->concrete && fl_sym_is_known(x->dims[i]);
    }
    for (int64_t j = 0; j < cnt; j++) {
        int ax = 0;
        if ((st = fl__ox_norm_axis(c, n, axes ? axes[j] : j, x->rank, "slice axis", &ax)) !=
            FL_OK) {
            return st;
        }
        if (done[ax]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "slice axis %d appears twice", ax);
        }
        done[ax] = true;
        int64_t step = steps ? steps[j] : 1;
        if (step == 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "slice step is 0 on axis %d", ax);
        }
        p->step[ax] = step;
        fl_sym dim = x->dims[ax], s = starts[j], e = ends[j];
        if (fl_sym_is_known(dim) && fl_sym_is_known(s) && fl_sym_is_known(e)) {
            int64_t d = dim.k, sv = s.k, ev = e.k;
            sv = sv < 0 ? sv + d : sv; /* may stay negative: clamped below */
            ev = ev < 0 ? ev + d : ev;
            int64_t len;
            if (step > 0) {
                sv = clamp64(sv, 0, d);
                ev = clamp64(ev, 0, d);
                /* ceil((ev - sv) / step), not overflowing for a step near INT64_MAX */
                len = ev > sv ? (ev - sv - 1) / step + 1 : 0;
            } else {
                sv = clamp64(sv, -1, d - 1);
                ev = clamp64(ev, -1, d - 1);
                /* ceil((sv - ev) / -step); -step overflows for INT64_MIN, and C
                 * division truncates: (sv - ev - 1) / step is -floor((sv - ev - 1) / -step) */
                len = sv > ev ? 1 - (sv - ev - 1) / step : 0;
            }
            p->len[ax] = fl_sym_const(len);
            p->start[ax] = sv;
            continue;
        }
        p->concrete = false;
        /* Symbolic: assume starts/ends within range, but for the sentinels
         * exporters write for "to the end" (an end of 2^30 or more; with a
         * negative step, an end of -2^30 or less: before the first element,
         * and a start of 2^30 or more: the last), which hold for any dim
         * under 2^30. torch's flip is Slice(-1, -INT64_MAX, step -1):
         * length dim. */
        if (step == INT64_MIN || fl_sym_is_unknown(dim) || fl_sym_is_unknown(s) ||
            fl_sym_is_unknown(e)) {
            p->len[ax] = fl_sym_unknown();
            continue;
        }
        const int64_t big = (int64_t)1 << 30;
        fl_sym s2 = s, e2 = e, diff;
        if (step < 0 && fl_sym_is_known(s) && s.k >= big) {
            st = fl__op_sub(c, n, dim, fl_sym_const(1), &s2);
        } else if (fl_sym_is_known(s) && s.k < 0) {
            st = fl__op_add(c, n, dim, s, &s2);
        }
        if (st == FL_OK && fl_sym_is_known(e) && step > 0 && e.k >= big) {
            e2 = dim;
        } else if (st == FL_OK && fl_sym_is_known(e) && step < 0 && e.k <= -big) {
            e2 = fl_sym_const(-1);
        } else if (st == FL_OK && fl_sym_is_known(e) && e.k < 0) {
            st = fl__op_add(c, n, dim, e, &e2);
        }
        if (st == FL_OK) {
            st = step > 0 ? fl__op_sub(c, n, e2, s2, &diff) : fl__op_sub(c, n, s2, e2, &diff);
        }
        if (st == FL_OK) {
            st = fl__op_ceildiv(c, n, diff, fl_sym_const(step > 0 ? step : -step), &p->len[ax]);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_slice(fl_ctx *c, fl_node *n) {
    slice_plan plan, *p = &plan;
    bool ok;
    fl_status st = slice_plan_of(c, n, p, &ok);
    if (st != FL_OK) {
        return st;
    }
    if (!ok) {
        int r = fl__op_in_shape(n, 0)->rank;
        return fl__op_set_output_rank(c, n, 0, fl__ox_in_dtype(n, 0), r);
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), p->rank, p->len);
}

static fl_status eval_slice(fl_ctx *c, fl_node *n) {
    const fl_value *in = fl_op_in_value(n, 0);
    slice_plan plan, *p = &plan;
    bool ok;
    fl_status st = slice_plan_of(c, n, p, &ok);
    fl_value *v;
    if (st != FL_OK || !ok || !p->concrete || !in ||
        (st = fl__onnx_new_out_value(c, n, 0, &v)) != FL_OK || !v || v->dtype != in->dtype) {
        return st;
    }
    int64_t idx[256];
    memset(idx, 0, (size_t)p->rank * sizeof(idx[0]));
    /* With step 1 on the last axis, each row of the output is a run of the
     * input: copied whole, the walk carrying over the axes before it. */
    int last = p->rank - 1;
    int64_t run = last >= 0 && p->step[last] == 1 ? p->len[last].k : 1;
    int moving = run > 1 ? last - 1 : last;
    for (int64_t o = 0; o < v->n; o += run) {
        int64_t src = 0;
        for (int i = 0; i < p->rank; i++) {
            src = src * in->dims[i] + p->start[i] + idx[i] * p->step[i];
        }
        if (run > 1) {
            fl__onnx_copy_run(v, o, in, src, run);
        } else {
            fl__onnx_copy_elem(v, o, in, src);
        }
        for (int i = moving; i >= 0; i--) {
            if (++idx[i] < p->len[i].k) {
                break;
            }
            idx[i] = 0;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_gather(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *ind = fl__op_in_shape(n, 1);
    int64_t axis;
    fl_status st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    int idt = fl__ox_in_dtype(n, 1);
    if (idt != FL_DT_INVALID && idt != FL_DT_INT32 && idt != FL_DT_INT64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'indices' must be int32 or int64, got %s",
                             fl__dtype_name(idt));
    }
    if (x->rank < 0 || ind->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    int ax = 0;
    if ((st = fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    int r = x->rank - 1 + ind->rank;
    if (r > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "result rank %d is too large", r);
    }
    fl_sym dims[256];
    int j = 0;
    for (int i = 0; i < ax; i++) {
        dims[j++] = x->dims[i];
    }
    for (int i = 0; i < ind->rank; i++) {
        dims[j++] = ind->dims[i];
    }
    for (int i = ax + 1; i < x->rank; i++) {
        dims[j++] = x->dims[i];
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), r, dims);
}

static fl_status eval_gather(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0), *ind = fl_op_in_value(n, 1);
    fl_value *v;
    fl_status st = fl__onnx_new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || !x || !ind || !ind->ints || v->dtype != x->dtype) {
        return st;
    }
    int64_t axis;
    int ax = 0;
    if (fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK ||
        fl__ox_norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax) != FL_OK) {
        return c->d->status;
    }
    int64_t outer = 1, inner = 1, len = x->dims[ax];
    for (int i = 0; i < ax; i++) {
        outer *= x->dims[i];
    }
    for (int i = ax + 1; i < x->rank; i++) {
        inner *= x->dims[i];
    }
    for (int64_t o = 0, pos = 0; o < outer; o++) {
        for (int64_t j = 0; j < ind->n; j++) {
            fl_sym is = ind->ints[j];
            if (!fl_sym_is_known(is)) {
                return FL_OK;
            }
            int64_t q = is.k < 0 ? is.k + len : is.k;
            if (q < 0 || q >= len) {
                return fl__node_fail(c->d, FL_EINVAL, n, "index %lld is out of range [-%lld, %lld)",
                                     (long long)is.k, (long long)len, (long long)len);
            }
            for (int64_t i = 0; i < inner; i++) {
                fl__onnx_copy_elem(v, pos++, x, (o * len + q) * inner + i);
            }
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: slice.def). */
#define HOOKS_slice  .infer = infer_slice, .eval = eval_slice, .cost = fl__op_cost_zero
#define HOOKS_gather .infer = infer_gather, .eval = eval_gather, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnx/slice.def"
#undef FL_OP
