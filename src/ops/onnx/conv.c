/*
 * onnx/conv.c - Conv, com.microsoft FusedConv, MaxPool, AveragePool and the
 * global pools (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Convolution and pooling                                                    */
/* ------------------------------------------------------------------------- */

typedef struct window {
    int ns;
    int64_t k[MAX_SPATIAL]; /* -1: unknown (kernel from an unknown weight dim) */
    int64_t s[MAX_SPATIAL], d[MAX_SPATIAL], lo[MAX_SPATIAL], hi[MAX_SPATIAL];
    const char *padding; /* "EXPLICIT", "VALID", "SAME" */
    bool ceil_mode;
} window;

/* Window attrs for `ns` spatial dims; the kernel from attr kernel_shape or,
 * for convolutions, from the weight's dims 2.. (`w`; NULL for pools). */
static fl_status get_window(fl_ctx *c, const fl_node *n, int ns, const fl_shape *w, window *out) {
    fl_status st;
    out->ns = ns;
    const int64_t *ks;
    size_t kn;
    st = fl__attr_get_ints(n, "kernel_shape", &ks, &kn, c->d);
    if (st == FL_OK) {
        if ((int)kn != ns) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'kernel_shape' has %zu entries, expects %d", kn, ns);
        }
        memcpy(out->k, ks, (size_t)ns * sizeof(int64_t));
    } else if (st != FL_ENOTFOUND) {
        return st;
    } else if (!w) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr 'kernel_shape'");
    } else {
        for (int i = 0; i < ns; i++) {
            fl_sym kd = w->rank == ns + 2 ? w->dims[2 + i] : fl_sym_unknown();
            out->k[i] = fl_sym_is_known(kd) ? kd.k : -1;
        }
    }
    if ((st = fl__ox_ints_attr(c, n, "strides", ns, 1, out->s)) != FL_OK ||
        (st = fl__ox_ints_attr(c, n, "dilations", ns, 1, out->d)) != FL_OK) {
        return st;
    }
    int64_t pads[2 * MAX_SPATIAL];
    if ((st = fl__ox_ints_attr(c, n, "pads", 2 * ns, 0, pads)) != FL_OK) {
        return st;
    }
    for (int i = 0; i < ns; i++) {
        out->lo[i] = pads[i];
        out->hi[i] = pads[ns + i];
        if (out->lo[i] < 0 || out->hi[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'pads' has a negative entry");
        }
    }
    const char *ap;
    if ((st = fl__attr_str_or(n, "auto_pad", "NOTSET", &ap, c->d)) != FL_OK) {
        return st;
    }
    if (strcmp(ap, "NOTSET") == 0 || !*ap) {
        out->padding = "EXPLICIT";
    } else if (strcmp(ap, "VALID") == 0) {
        out->padding = "VALID";
    } else if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        out->padding = "SAME";
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'auto_pad' has unsupported value '%s'", ap);
    }
    int64_t cm;
    if ((st = fl__attr_int_or(n, "ceil_mode", 0, &cm, c->d)) != FL_OK) {
        return st;
    }
    out->ceil_mode = cm != 0;
    return FL_OK;
}

/* Output size of spatial dim i. */
static fl_status window_dim(fl_ctx *c, const fl_node *n, const window *w, int i, fl_sym in,
                            fl_sym *out) {
    if (w->k[i] < 0 || fl_sym_is_unknown(in)) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    if (!w->ceil_mode || strcmp(w->padding, "EXPLICIT") != 0) {
        return fl__op_window_out(c, n, in, w->k[i], w->s[i], w->d[i], w->padding, w->lo[i],
                                 w->hi[i], out);
    }
    /* ceil_mode: ceil((in + pads - eff) / s) + 1, minus a last window that
     * would start inside the end padding. */
    fl_sym floor_out;
    fl_status st = fl__op_window_out(c, n, in, w->k[i], w->s[i], w->d[i], "EXPLICIT", w->lo[i],
                                     w->hi[i], &floor_out);
    if (st != FL_OK) {
        return st;
    }
    int64_t eff = (w->k[i] - 1) * w->d[i] + 1;
    fl_sym t, r;
    if ((st = fl__op_add(c, n, in, fl_sym_const(w->lo[i] + w->hi[i] - eff), &t)) != FL_OK ||
        (st = fl__op_ceildiv(c, n, t, fl_sym_const(w->s[i]), &r)) != FL_OK ||
        (st = fl__op_add(c, n, r, fl_sym_const(1), &r)) != FL_OK) {
        return st;
    }
    /* In uint64: in and pads are >= 0, and (r - 1) * s < in + pads - eff + s
     * fits, while either side may pass INT64_MAX. */
    if (fl_sym_is_known(r) && fl_sym_is_known(in) && r.k >= 1 &&
        (uint64_t)(r.k - 1) * (uint64_t)w->s[i] >= (uint64_t)in.k + (uint64_t)w->lo[i]) {
        r.k--;
    }
    *out = r;
    return FL_OK;
}

static fl_status infer_conv(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 1);
    int rank = x->rank >= 0 ? x->rank : w->rank;
    int dt = fl__ox_in_dtype(n, 0);
    if (rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (rank < 3 || rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 3 to %d, got %d",
                             MAX_SPATIAL + 2, rank);
    }
    if ((x->rank >= 0 && x->rank != rank) || (w->rank >= 0 && w->rank != rank)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "inputs 'X' (rank %d) and 'W' (rank %d) disagree",
                             x->rank, w->rank);
    }
    int64_t group;
    fl_status st = fl__attr_int_or(n, "group", 1, &group, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (group < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'group' must be positive, got %lld",
                             (long long)group);
    }
    fl_sym cin = x->rank >= 0 ? x->dims[1] : fl_sym_unknown();
    fl_sym cw = w->rank >= 0 ? w->dims[1] : fl_sym_unknown();
    fl_sym m = w->rank >= 0 ? w->dims[0] : fl_sym_unknown();
    fl_ck want_c = fl_ck_mul(fl_ck_of(cw.k), fl_ck_of(group)); /* read only when cw is known */
    if (fl_sym_is_known(cin) && fl_sym_is_known(cw) && (want_c.ovf || cin.k != want_c.v)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'X' has %lld channels but 'W' expects %lld x group %lld",
                             (long long)cin.k, (long long)cw.k, (long long)group);
    }
    if (fl_sym_is_known(m) && m.k % group != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "'W' has %lld output channels, not a multiple of group %lld",
                             (long long)m.k, (long long)group);
    }
    window win;
    if ((st = get_window(c, n, rank - 2, w, &win)) != FL_OK) {
        return st;
    }
    for (int i = 0; i < win.ns; i++) {
        fl_sym kd = w->rank >= 0 ? w->dims[2 + i] : fl_sym_unknown();
        if (fl_sym_is_known(kd) && win.k[i] >= 0 && kd.k != win.k[i]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'kernel_shape' says %lld but 'W' dim %d is %lld",
                                 (long long)win.k[i], 2 + i, (long long)kd.k);
        }
    }
    fl_sym dims[MAX_SPATIAL + 2];
    dims[0] = x->rank >= 0 ? x->dims[0] : fl_sym_unknown();
    dims[1] = m;
    for (int i = 0; i < win.ns; i++) {
        st = window_dim(c, n, &win, i, x->rank >= 0 ? x->dims[2 + i] : fl_sym_unknown(),
                        &dims[2 + i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, rank, dims);
}

/* Activation of a com.microsoft fused op: 1 per output element unless
 * absent or Identity. */
bool fl__onnx_has_activation(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "activation");
    return a && a->kind == FL_ATTR_S && a->v.s.len && strcmp(a->v.s.p, "Identity") != 0;
}

static fl_status cost_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = fl__op_in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym per = fl__ar_dims_prod(&k, w, 1, w->rank); /* C_in/group * prod(kernel) */
    fl_sym macs = fl__ar_mul(&k, e, per);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    int extra =
        !fl__ox_absent(n, 2) + (n->kind == FL_OP_ONNX_MS_FUSED_CONV
                                    ? (fl__onnx_has_activation(n) ? 1 : 0) + !fl__ox_absent(n, 3)
                                    : 0);
    flops = fl__ar_add(&k, flops, fl__ar_scale(&k, e, extra));
    return fl__ar_put_cost(&k, out, flops, macs);
}

static fl_status infer_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 0) {
        fl_status st = fl__op_set_output(c, n, 0, dt, -1, NULL);
        return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, -1, NULL) : st;
    }
    if (x->rank < 3 || x->rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 3 to %d, got %d",
                             MAX_SPATIAL + 2, x->rank);
    }
    window win;
    fl_status st = get_window(c, n, x->rank - 2, NULL, &win);
    if (st != FL_OK) {
        return st;
    }
    fl_sym dims[MAX_SPATIAL + 2];
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int i = 0; i < win.ns && st == FL_OK; i++) {
        st = window_dim(c, n, &win, i, x->dims[2 + i], &dims[2 + i]);
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    }
    return st == FL_OK ? fl__ox_set_out(c, n, 1, FL_DT_INT64, x->rank, dims) : st;
}

static fl_status cost_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const int64_t *ks;
    size_t kn;
    fl_status st = fl__attr_get_ints(n, "kernel_shape", &ks, &kn, c->d);
    if (st != FL_OK) {
        return st == FL_ENOTFOUND ? fl__node_fail(c->d, FL_EINVAL, n, "missing attr 'kernel_shape'")
                                  : st;
    }
    fl_sym f = fl__ar_numel(&k, &n->outputs[0].shape);
    for (size_t i = 0; i < kn; i++) {
        f = fl__ar_scale(&k, f, ks[i]);
    }
    if (n->kind == FL_OP_ONNX_MAX_POOL && fl__dtype_is_integer(fl__ox_in_dtype(n, 0))) {
        return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), f);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_global_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    if (x->rank < 2 || x->rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 2 to %d, got %d",
                             MAX_SPATIAL + 2, x->rank);
    }
    fl_sym dims[MAX_SPATIAL + 2];
    for (int i = 0; i < x->rank; i++) {
        dims[i] = i < 2 ? x->dims[i] : fl_sym_const(1);
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, dims);
}

static fl_status cost_global_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_numel(&k, fl__op_in_shape(n, 0));
    fl_sym f = ein;
    if (n->kind == FL_OP_ONNX_GLOBAL_MAX_POOL) {
        fl_sym eout = fl__ar_numel(&k, &n->outputs[0].shape);
        f = fl__ar_reduce_ops(&k, ein, 1, eout);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* Hook sets and descriptors (their rows: conv.def). */
#define HOOKS_conv        .infer = infer_conv, .cost = cost_conv
#define HOOKS_pool        .infer = infer_pool, .cost = cost_pool
#define HOOKS_global_pool .infer = infer_global_pool, .cost = cost_global_pool

#define FL_OP FL_OP_DESC
#include "ops/onnx/conv.def"
#undef FL_OP
