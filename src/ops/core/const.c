/*
 * const.c - Const and placeholders (core family).
 *
 * Shapes
 *  - Const: dtype from attr "dtype", shape and value from attr "value". No
 *    value when the content was stripped from the file, is a string, or was
 *    too large to decode.
 *  - Placeholder: an output the driver has already bound (from the caller's
 *    input shapes) is kept. Otherwise attr "shape", where every -1 dim becomes
 *    the symbol "<node name>.<axis>" ("x.0" for the batch of placeholder x),
 *    or the name the file gives it (ONNX's dim_param); a name that is an
 *    expression of other names ("past + seq") is that expression, its names
 *    symbols. An unknown rank stays unknown. TensorFlow's legacy rule applies: with
 *    GraphDef producer <= 21 a scalar shape attr means "unknown shape" (not
 *    to ONNX graph inputs: an empty shape there is a scalar).
 *  - PlaceholderWithDefault: the default input's shape, with the dims that
 *    attr "shape" fixes taken from the attr. No value (it can be fed).
 *
 * FLOP rules ("complete" convention): 0 FLOPs with has_rule true (they
 * create tensors; 0 is the real count, not a missing one); tfprof registers
 * none of them (0, tfprof_rule false). No MACs.
 */
#include "ops/core/core.h"

#include <string.h>

static fl_status infer_const(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_const *k = NULL;
    st = fl__attr_get_tensor(n, "value", &k, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr 'value' (tensor)");
    }
    if (st != FL_OK) {
        return st;
    }
    if (!k) {
        fl__core_put_value(n, 0, NULL);
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (k->dtype != FL_DT_INVALID && fl_dtype_base(k->dtype) != fl_dtype_base(dt)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'value' holds %s data but attr 'dtype' is %s",
                             fl__dtype_name(k->dtype), fl__dtype_name(dt));
    }
    fl_shape s;
    st = fl__core_shape_from_lit(c, n, &k->shape, "attr 'value'", &s);
    if (st == FL_OK) {
        st = fl__core_set_shape(c, n, 0, dt, &s);
    }
    if (st != FL_OK) {
        return st;
    }
    bool stripped = (n->flags & FL_NODE_STRIPPED) || k->stripped;
    fl__core_put_value(n, 0, stripped ? NULL : k->value);
    return FL_OK;
}

/* NAME.AXIS in a, as "%s.%d" would print it (without printf: a server's
 * small analysis formats one for each free dim of each input). */
static char *dim_name(fl_arena *a, const char *name, int axis) {
    char digits[12];
    int nd = 0;
    unsigned v = (unsigned)axis; /* axis >= 0: a dim's index */
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    size_t len = strlen(name);
    char *out = fl__arena_alloc_raw(a, len + 1 + (size_t)nd + 1);
    if (!out) {
        return NULL;
    }
    memcpy(out, name, len);
    out[len] = '.';
    for (int k = 0; k < nd; k++) {
        out[len + 1 + k] = digits[nd - 1 - k];
    }
    out[len + 1 + nd] = '\0';
    return out;
}

static fl_status infer_placeholder(fl_ctx *c, fl_node *n) {
    fl_tensor *t = &n->outputs[0];
    if (t->shape.rank >= 0 || t->dtype != FL_DT_INVALID) {
        return FL_OK; /* bound by the driver */
    }
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    /* TensorFlow cannot tell a scalar shape attr from "unknown" in GraphDefs of
     * producer version 21 or older, and reads it as unknown. Other formats say
     * what they mean: ONNX's and TFLite's importers give a scalar input a
     * shape with no dims (and g->producer holds ONNX's opset, TFLite's 0, not
     * a GraphDef version); only a GraphDef import sets g->src. */
    if (lit.rank < 0 || (lit.rank == 0 && c->g->src && c->g->producer <= 21)) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_shape s;
    st = fl__core_shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    /* A free dim is the symbol INPUT.AXIS, or the name the file gave it
     * (ONNX's dim_param, kept by the importer in attr _dim_names: one string
     * per dim, empty for "no name"). */
    const fl_attr *names = fl__node_attr(n, "_dim_names");
    if (names && (names->kind != FL_ATTR_LIST || names->list_kind != FL_ATTR_S ||
                  names->n != (size_t)s.rank)) {
        names = NULL;
    }
    for (int i = 0; i < s.rank; i++) {
        if (!fl_sym_is_unknown(s.dims[i])) {
            continue;
        }
        bool given = names && names->v.list.s[i].len;
        char *name = given ? (char *)names->v.list.s[i].p : dim_name(c->a, n->name, i);
        if (!name) {
            return fl__diag_oom(c->d);
        }
        /* a name that is a sum of other dims is that sum (sym.h); "(...)"
         * is the name a body's dim gets for an outer expression (its own
         * mapping, onnx_body.c) */
        st = given && name[0] != '(' ? fl__sym_parse_dim(c->st, name, &s.dims[i]) : FL_ENOTFOUND;
        if (st == FL_ENOTFOUND) {
            st = fl__sym_size_var(c->st, name, &s.dims[i]);
        }
        if (st != FL_OK) {
            return fl__diag_oom(c->d);
        }
    }
    return fl__core_set_shape(c, n, 0, dt, &s);
}

static fl_status infer_placeholder_with_default(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, "dtype", &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    const fl_tensor *in = fl_node_in(n, 0);
    fl_shape_lit lit;
    st = fl__attr_get_shape(n, "shape", &lit, c->d);
    if (st == FL_ENOTFOUND) {
        lit.rank = -1;
        lit.dims = NULL;
    } else if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    if (lit.rank < 0) {
        return fl__op_set_output(c, n, 0, dt, in->shape.rank, in->shape.dims);
    }
    fl_shape s;
    st = fl__core_shape_from_lit(c, n, &lit, "attr 'shape'", &s);
    if (st != FL_OK) {
        return st;
    }
    if (in->shape.rank >= 0) {
        if (in->shape.rank != s.rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'shape' has rank %d but input 'input' has rank %d", s.rank,
                                 in->shape.rank);
        }
        for (int i = 0; i < s.rank; i++) {
            fl_sym a = s.dims[i], b = in->shape.dims[i];
            if (fl_sym_is_unknown(a)) {
                s.dims[i] = b;
            } else if (fl_sym_is_known(b) && b.k != a.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "attr 'shape' has dim %lld at axis %d but input 'input' has "
                                     "%lld",
                                     (long long)a.k, i, (long long)b.k);
            }
        }
    }
    return fl__core_set_shape(c, n, 0, dt, &s);
}

/* Hook sets and descriptors (their rows: core/const.def). */
#define HOOKS_const       .infer = infer_const, .cost = fl__op_cost_zero
#define HOOKS_placeholder .infer = infer_placeholder, .cost = fl__op_cost_zero
#define HOOKS_placeholder_with_default                                                             \
    .infer = infer_placeholder_with_default, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/core/const.def"
#undef FL_OP
