/*
 * nn/common.c - what the nn family's files share: rank checks, data formats,
 * window attrs and the fused_ops epilogue (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static bool is_known_val(fl_sym s, int64_t v) {
    return fl_sym_is_known(s) && s.k == v;
}

/* Fails unless input i has rank `rank` or an unknown rank. */
fl_status fl__nn_need_rank(fl_ctx *c, const fl_node *n, int i, const char *what, int rank) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must be %d-D, got rank %d", i,
                             what, rank, s->rank);
    }
    return FL_OK;
}

fl_status fl__nn_need_rank_at_least(fl_ctx *c, const fl_node *n, int i, const char *what,
                                    int rank) {
    const fl_shape *s = fl__op_in_shape(n, i);
    if (s->rank >= 0 && s->rank < rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input %d ('%s') must have rank at least %d, got rank %d", i, what,
                             rank, s->rank);
    }
    return FL_OK;
}

/* floor(a / b); 0 when b is a known 0 (tfprof would fail: no count). */
fl_sym fl__nn_floordiv_or_zero(fl_arith *k, fl_sym a, fl_sym b) {
    fl_sym r = fl_sym_unknown();
    if (is_known_val(b, 0)) {
        return fl_sym_const(0);
    }
    if (k->st == FL_OK) {
        k->st = fl__op_floordiv(k->c, k->n, a, b, &r);
    }
    return r;
}
/* ------------------------------------------------------------------------- */
/* Data formats and window attrs                                              */
/* ------------------------------------------------------------------------- */

int fl__nn_lay_c(const layout *l) {
    return l->cl ? l->rank - 1 : 1;
}

int fl__nn_lay_sp(const layout *l, int i) {
    return l->cl ? 1 + i : 2 + i;
}

/* Reads attr data_format for an op with `ns` spatial dims (absent: channels
 * last). */
fl_status fl__nn_get_layout(fl_ctx *c, const fl_node *n, int ns, layout *l) {
    const char *f;
    fl_status st = fl__attr_str_or(n, "data_format", ns == 3 ? "NDHWC" : "NHWC", &f, c->d);
    if (st != FL_OK) {
        return st;
    }
    l->ns = ns;
    l->rank = ns + 2;
    l->ok = true;
    if (strcmp(f, ns == 3 ? "NDHWC" : "NHWC") == 0) {
        l->cl = true;
    } else if (strcmp(f, ns == 3 ? "NCDHW" : "NCHW") == 0) {
        l->cl = false;
    } else if (ns == 2 && strcmp(f, "NCHW_VECT_C") == 0) {
        l->cl = false;
        l->ok = false;
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'data_format' must be %s, got '%s'",
                             ns == 3 ? "NDHWC or NCDHW" : "NHWC or NCHW", f);
    }
    return FL_OK;
}

/* True when the node's data_format is NHWC (absent counts as NHWC, as a graph
 * imported into TensorFlow gets the default): tfprof's pool/backprop rules
 * require it. */
bool fl__nn_is_nhwc(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "data_format");
    if (!a) {
        return true;
    }
    return a->kind == FL_ATTR_S && strcmp(a->v.s.p, "NHWC") == 0;
}

/* Reads list(int) attr `name` into out[count]. Absent: fails when required,
 * else fills `dflt`. Entries must be positive when `positive`. */
static fl_status get_int_list(fl_ctx *c, const fl_node *n, const char *name, bool required,
                              int count, int64_t dflt, bool positive, int64_t *out) {
    const int64_t *v;
    size_t k;
    fl_status st = fl__attr_get_ints(n, name, &v, &k, c->d);
    if (st == FL_ENOTFOUND) {
        if (required) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' is required", name);
        }
        for (int i = 0; i < count; i++) {
            out[i] = dflt;
        }
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (k != (size_t)count) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' must have %d entries, got %zu", name,
                             count, k);
    }
    for (int i = 0; i < count; i++) {
        if (positive && v[i] <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' entries must be positive, got %lld",
                                 name, (long long)v[i]);
        }
        out[i] = v[i];
    }
    return FL_OK;
}

fl_status fl__nn_get_window(fl_ctx *c, const fl_node *n, int rank, unsigned flags, window *w) {
    fl_status st;
    for (int i = 0; i < 5; i++) {
        w->k[i] = w->s[i] = w->d[i] = 1;
    }
    memset(w->pad, 0, sizeof w->pad);
    if (!(flags & W_NO_STRIDES)) {
        if ((st = get_int_list(c, n, "strides", true, rank, 1, true, w->s)) != FL_OK) {
            return st;
        }
        if ((flags & W_KSIZE) &&
            (st = get_int_list(c, n, "ksize", true, rank, 1, true, w->k)) != FL_OK) {
            return st;
        }
    }
    if ((flags & W_DILATIONS) &&
        (st = get_int_list(c, n, "dilations", false, rank, 1, true, w->d)) != FL_OK) {
        return st;
    }
    if ((flags & W_RATES) &&
        (st = get_int_list(c, n, "rates", true, rank, 1, true, w->d)) != FL_OK) {
        return st;
    }
    fl_str p;
    st = fl__attr_get_str(n, "padding", &p, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'padding' is required");
    }
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(p.p, "SAME") == 0) {
        w->padding = "SAME";
    } else if (strcmp(p.p, "VALID") == 0) {
        w->padding = "VALID";
    } else if ((flags & W_EXPLICIT) && strcmp(p.p, "EXPLICIT") == 0) {
        w->padding = "EXPLICIT";
        if ((st = get_int_list(c, n, "explicit_paddings", true, 2 * rank, 0, false, w->pad)) !=
            FL_OK) {
            return st;
        }
        for (int i = 0; i < 2 * rank; i++) {
            if (w->pad[i] < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'explicit_paddings' entries must be non-negative, got "
                                     "%lld",
                                     (long long)w->pad[i]);
            }
        }
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'padding' must be %s, got '%s'",
                             (flags & W_EXPLICIT) ? "SAME, VALID or EXPLICIT" : "SAME or VALID",
                             p.p);
    }
    return FL_OK;
}

/* Output size along data dim `idx` of a window of k taps (symbolic k: only
 * SAME padding, which ignores k, gives a size). */
fl_status fl__nn_window_dim(fl_ctx *c, const fl_node *n, const window *w, int idx, fl_sym in,
                            fl_sym k, fl_sym *out) {
    int64_t kk;
    if (fl_sym_is_known(k)) {
        kk = k.k;
    } else if (strcmp(w->padding, "SAME") == 0) {
        kk = 1;
    } else {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    return fl__op_window_out(c, n, in, kk, w->s[idx], w->d[idx], w->padding, w->pad[2 * idx],
                             w->pad[2 * idx + 1], out);
}

/* Conv ops reject strides and dilations on the batch and channel dims. */
fl_status fl__nn_check_conv_window(fl_ctx *c, const fl_node *n, const layout *l, const window *w,
                                   const char *dil_name) {
    int ci = fl__nn_lay_c(l);
    if (w->s[0] != 1 || w->s[ci] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'strides' must be 1 in the batch and channel dimensions");
    }
    if (w->d[0] != 1 || w->d[ci] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr '%s' must be 1 in the batch and channel dimensions", dil_name);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Fused ops (fused_ops / num_args)                                           */
/* ------------------------------------------------------------------------- */

/* Validates fused_ops (list of strings) and num_args against the inputs that
 * follow the `base` operands. */
fl_status fl__nn_check_fused(fl_ctx *c, const fl_node *n, int base) {
    const fl_str *ops;
    size_t nops;
    fl_status st = fl__attr_get_strs(n, "fused_ops", &ops, &nops, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    int64_t num_args;
    if ((st = fl__attr_int_or(n, "num_args", 0, &num_args, c->d)) != FL_OK) {
        return st;
    }
    if (num_args < 0 || num_args > n->n_inputs - base) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_args' is %lld but the node has %d inputs after its %d "
                             "operands",
                             (long long)num_args, n->n_inputs - base, base);
    }
    return FL_OK;
}

/* FLOPs per output element of one fused_ops entry: what the unfused ops the
 * remapper replaced count (ew.c's rules). */
static int64_t fused_op_flops(const char *op) {
    static const struct {
        const char *op;
        int64_t per;
    } t[] = {
        {"Identity", 0},
        {"FusedBatchNorm", 2}, /* scale and shift */
        {"Prelu", 2},          /* multiply by alpha + select */
        {"_MklSwish", 2},      /* Sigmoid, Mul */
        {"Mish", 3},           /* Softplus, Tanh, Mul */
        {"_MklFusedMish", 3},
        {"_FusedHardSwish", 4}, /* Add 3, Relu6, Mul 1/6, Mul x */
        {"GeluExact", 5},       /* Mul 1/sqrt2, Erf, Add 1, Mul 1/2, Mul x */
        {"GeluApproximate", 9}, /* Square, Mul, Mul c, Add, Mul, Tanh, Add 1, Mul 1/2, Mul x */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        /* the first letter first: most entries (BiasAdd, Relu) match none */
        if (op[0] == t[i].op[0] && strcmp(op, t[i].op) == 0) {
            return t[i].per;
        }
    }
    return 1; /* BiasAdd, Add, AddV2, Mul, Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, ... */
}

/* FLOPs of the fused_ops epilogue on an output of e elements. */
fl_sym fl__nn_fused_extra(fl_arith *k, const fl_node *n, fl_sym e) {
    const fl_str *ops;
    size_t nops;
    fl_status st = fl__attr_get_strs(n, "fused_ops", &ops, &nops, k->c->d);
    if (st == FL_ENOTFOUND) {
        return fl_sym_const(0);
    }
    if (st != FL_OK) {
        k->st = st;
        return fl_sym_unknown();
    }
    int64_t per = 0;
    for (size_t i = 0; i < nops; i++) {
        per += fused_op_flops(ops[i].p);
    }
    return fl__ar_scale(k, e, per);
}

/* Hook sets and descriptors (their rows: ). */

#define FL_OP FL_OP_DESC
#undef FL_OP
