/*
 * tile.c - the arithmetic optimizer's Tile stages (11, 12, 13) and the node
 * helpers they share.
 *  - replace_pack_with_tile_reshape (11): a chain of Packs of N copies of one
 *    tensor x (port 0, fully known shape, no packing on the last axis) ->
 *    Reshape(Tile(x, Multiples), Shape) with "..._Multiples_", "..._Tile_",
 *    "..._Shape_", "..._Reshape_<name>" (the Consts wait on x). Run from the
 *    outermost Pack in the reverse sweep.
 *  - replace_mul_with_tile (12): Mul(x, ones) with ones a float Const of 1s,
 *    x not a Const, neither preserved, same rank, x's shape growing by known
 *    multiples -> Tile(x, "..._Const_<name>") as "..._Tile_<name>".
 *  - reduce_upsampling_dims (13): Reshape(Tile(Reshape(x, 6-D int32 shape
 *    with dims 2 and 4 equal 1), 6-D int32 multiples with 3 and 5 equal 1))
 *    (Tile read once, none preserved) -> the outer Reshape reads the 4-D
 *    Tile(Reshape(x)) (new "..._Multiples_", "..._Shape_", "..._Reshape_",
 *    "..._Tile_<name>"), in place.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl__ao_replaceable(const fl_node *n) {
    return !fl__preserved(n) && n->n_outputs == 1;
}

int fl__ao_const_ints(const fl_node *c, bool int64_ok, int64_t *out, int max) {
    const fl_value *v = fl__ao_const_value(c);
    if (!v || !v->ints || v->n > max ||
        (v->dtype != FL_DT_INT32 && !(int64_ok && v->dtype == FL_DT_INT64))) {
        return -1;
    }
    for (int64_t i = 0; i < v->n; i++) {
        out[i] = fl__value_int(v, i).k;
    }
    return (int)v->n;
}

fl_node *fl__ao_add_i32(ao *a, const char *name, const char *device, int rank, const int64_t *vals,
                        int n) {
    int64_t dims[1] = {n};
    fl_value *v = fl__value_new(a->g->arena, FL_DT_INT32, rank, rank ? dims : NULL);
    if (!v) {
        fl__ao_oom(a);
        return NULL;
    }
    for (int i = 0; i < n && i < v->n; i++) {
        ((fl_sym *)v->ints)[i] = fl_sym_const(vals[i]);
    }
    return fl__ao_add_const(a, name, device, v);
}

const char *fl__ao_opt_name2(ao *a, const char *of, const char *stage, const char *rule) {
    const char *pre = fl__arena_printf(a->g->arena, "%s_%s", stage, rule);
    return pre ? fl__ao_opt_name(a, of, pre) : NULL;
}

bool fl__ao_exists(const ao *a, const char *name) {
    return name && fl__graph_find(a->g, name) != NULL;
}

fl_status fl__ao_set_type(ao *a, fl_node *n, const char *name, int dt) {
    return fl__ao_set_attr(a, n, fl__attr_make_type(a->g, name, dt));
}

fl_status fl__ao_replace_by(ao *a, fl_node *n, fl_node *to) {
    fl_status st = fl__ao_forward_ctrl(a, to, n);
    if (st == FL_OK) {
        fl__ao_forward(a, n, (fl_input){to, 0});
    }
    return st;
}

/* ReplacePackWithTileReshape (11). */
bool fl__ao_replace_pack_with_tile_reshape_kinds(const fl_node *n) {
    return n->kind == FL_OP_PACK;
}

fl_status fl__ao_replace_pack_with_tile_reshape(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_replace_pack_with_tile_reshape_kinds(n) || n->n_inputs < 2 ||
        !fl__ao_replaceable(n) || (a->uses[n->id] == 0 && a->ctrl_uses[n->id] == 0)) {
        return FL_OK; /* (a Pack left dead by an outer chain) */
    }
    fl_node *chain[64];
    int n_chain = 0;
    fl_input in = {n, 0};
    while (in.node->kind == FL_OP_PACK && !fl__preserved(in.node) && in.node->n_inputs >= 1 &&
           n_chain < 64) {
        fl_node *p = in.node;
        bool equal = true;
        for (int k = 1; k < p->n_inputs; k++) {
            equal = equal && p->inputs[k].node == p->inputs[0].node &&
                    p->inputs[k].port == p->inputs[0].port;
        }
        if (!equal) {
            break;
        }
        chain[n_chain++] = p;
        in = p->inputs[0];
    }
    if (n_chain == 0 || in.port != 0) {
        return FL_OK;
    }
    static const char *const rules[4] = {"Multiples", "Tile", "Shape", "Reshape"};
    const char *nm[4];
    for (int i = 0; i < 4; i++) {
        nm[i] = fl__ao_opt_name2(a, n->name, "ReplacePackWithTileReshape", rules[i]);
        if (!nm[i]) {
            return fl__ao_oom(a);
        }
        if (fl__ao_exists(a, nm[i])) {
            return FL_OK;
        }
    }
    const fl_tensor *x = &in.node->outputs[0], *out = &n->outputs[0];
    int dt = fl__attr_type(n, "T");
    if (!fl__ao_shape_concrete(&x->shape) || !fl__ao_shape_concrete(&out->shape) ||
        x->shape.rank > 64 || out->shape.rank > 128 || dt == FL_DT_INVALID) {
        return FL_OK;
    }
    /* multiples per dim of x; dims[j]: the dim of x that axis j of the
     * current (partially packed) shape comes from */
    int64_t mult[64], dims[128];
    int rank = x->shape.rank, n_dims = rank;
    for (int i = 0; i < rank; i++) {
        mult[i] = 1;
        dims[i] = i;
    }
    for (int c = n_chain - 1; c >= 0; c--) {
        int64_t axis, cnt;
        const fl_attr *ax = fl__node_attr(chain[c], "axis"), *na = fl__node_attr(chain[c], "N");
        if (!ax || ax->kind != FL_ATTR_I || !na || na->kind != FL_ATTR_I) {
            return FL_OK;
        }
        axis = ax->v.i;
        cnt = na->v.i;
        if (axis < 0 || axis >= n_dims || n_dims >= 128) {
            return FL_OK; /* Grappler does not handle packing on the last axis */
        }
        int64_t m = mult[dims[axis]] * cnt;
        if (m > 2147483647 || m < 1) {
            return FL_OK;
        }
        mult[dims[axis]] = m;
        memmove(dims + axis + 1, dims + axis, (size_t)(n_dims - axis) * sizeof(int64_t));
        n_dims++;
    }
    int64_t shape[128];
    for (int i = 0; i < out->shape.rank; i++) {
        shape[i] = out->shape.dims[i].k;
    }
    fl_node *xn = in.node;
    fl_node *mc = fl__ao_add_i32(a, nm[0], n->device, 1, mult, rank);
    if (!mc || fl__ao_add_ctrl(a, mc, xn) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl_input tin[2] = {in, {mc, 0}};
    fl_node *tile = fl__ao_add(a, nm[1], fl__op_name(FL_OP_TILE), n->device, 2, tin);
    if (!tile || fl__ao_set_type(a, tile, "T", dt) != FL_OK ||
        fl__ao_set_type(a, tile, "Tmultiples", FL_DT_INT32) != FL_OK) {
        return fl__ao_oom(a);
    }
    for (int c = 0; c < n_chain; c++) {
        if (fl__ao_forward_ctrl(a, tile, chain[c]) != FL_OK) {
            return fl__ao_oom(a);
        }
    }
    fl_node *sc = fl__ao_add_i32(a, nm[2], n->device, 1, shape, out->shape.rank);
    if (!sc || fl__ao_add_ctrl(a, sc, xn) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl_input rin[2] = {{tile, 0}, {sc, 0}};
    fl_node *rs = fl__ao_add(a, nm[3], fl__op_name(FL_OP_RESHAPE), n->device, 2, rin);
    if (!rs || fl__ao_set_type(a, rs, "T", dt) != FL_OK ||
        fl__ao_set_type(a, rs, "Tshape", FL_DT_INT32) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "replace_pack_with_tile_reshape", n,
                    "%d Pack node(s) of '%s' -> Reshape(Tile(x))", n_chain, xn->name);
    *fired = true;
    return fl__ao_replace_by(a, n, rs);
}

/* ReplaceMulWithBroadcastByTile (12). */
bool fl__ao_replace_mul_with_tile_kinds(const fl_node *n) {
    return n->kind == FL_OP_MUL;
}

fl_status fl__ao_replace_mul_with_tile(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_replace_mul_with_tile_kinds(n) || n->n_inputs != 2 || !fl__ao_replaceable(n)) {
        return FL_OK;
    }
    fl_node *x = n->inputs[0].node, *ones = n->inputs[1].node;
    const fl_value *ov = fl__ao_const_value(ones);
    if (fl__preserved(x) || fl__preserved(ones) || x->kind == FL_OP_CONST || !ov ||
        ov->dtype != FL_DT_FLOAT || !fl__ao_value_all(ov, 1.0) || n->inputs[0].port != 0) {
        return FL_OK;
    }
    const char *tn = fl__ao_opt_name2(a, n->name, "ReplaceMulWithBroadcastByTile", "Tile");
    const char *cn = fl__ao_opt_name2(a, n->name, "ReplaceMulWithBroadcastByTile", "Const");
    if (!tn || !cn) {
        return fl__ao_oom(a);
    }
    if (fl__ao_exists(a, tn) || fl__ao_exists(a, cn)) {
        return FL_OK;
    }
    const fl_shape *xs = &fl_node_in(n, 0)->shape, *os = &fl_node_in(n, 1)->shape;
    if (!fl__ao_bcastable(xs, os) || xs->rank != os->rank || xs->rank > 64) {
        return FL_OK;
    }
    int64_t mult[64];
    bool grows = false;
    for (int i = 0; i < xs->rank; i++) {
        fl_sym p = xs->dims[i], q = os->dims[i];
        if (fl__sym_eq(p, q) || fl__ao_dim_is_one(q)) {
            mult[i] = 1;
        } else if (fl__ao_dim_is_one(p) && fl_sym_is_known(q)) {
            mult[i] = q.k;
            grows = true;
        } else {
            return FL_OK; /* the multiple would be a symbol */
        }
    }
    if (!grows) {
        return FL_OK; /* the shape does not change */
    }
    int dt = fl__attr_type(n, "T");
    fl_node *c = fl__ao_add_i32(a, cn, n->device, 1, mult, xs->rank);
    if (!c || fl__ao_forward_ctrl(a, c, ones) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl_input tin[2] = {n->inputs[0], {c, 0}};
    fl_node *tile = fl__ao_add(a, tn, fl__op_name(FL_OP_TILE), n->device, 2, tin);
    if (!tile || fl__ao_set_type(a, tile, "T", dt == FL_DT_INVALID ? FL_DT_FLOAT : dt) != FL_OK ||
        fl__ao_set_type(a, tile, "Tmultiples", FL_DT_INT32) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "replace_mul_with_tile", n, "Mul('%s', ones '%s') -> Tile", x->name,
                    ones->name);
    *fired = true;
    return fl__ao_replace_by(a, n, tile);
}

/* ReduceUpsamplingDims (13). */
bool fl__ao_reduce_upsampling_dims_kinds(const fl_node *n) {
    return n->kind == FL_OP_RESHAPE;
}

fl_status fl__ao_reduce_upsampling_dims(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_reduce_upsampling_dims_kinds(n) || fl__preserved(n) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *tile = n->inputs[0].node;
    if (tile->kind != FL_OP_TILE || fl__preserved(tile) || fl__ao_n_uses(a, tile) != 1 ||
        tile->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *rs = tile->inputs[0].node;
    if (rs->kind != FL_OP_RESHAPE || fl__preserved(rs) || rs->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *mul = tile->inputs[1].node, *shp = rs->inputs[1].node;
    static const char *const rules[4] = {"Reshape", "Tile", "Multiples", "Shape"};
    const char *nm[4];
    for (int i = 0; i < 4; i++) {
        nm[i] = fl__ao_opt_name2(a, n->name, "ReduceUpsamplingDims", rules[i]);
        if (!nm[i]) {
            return fl__ao_oom(a);
        }
        if (fl__ao_exists(a, nm[i])) {
            return FL_OK;
        }
    }
    int64_t m[6], s[6];
    if (fl__ao_const_ints(mul, false, m, 6) != 6 || m[3] != 1 || m[5] != 1 ||
        fl__ao_const_ints(shp, false, s, 6) != 6 || s[2] != 1 || s[4] != 1) {
        return FL_OK;
    }
    int64_t m4[4] = {m[0], m[1], m[2], m[4]}, s4[4] = {s[0], s[1], s[3], s[5]};
    fl_node *nmul = fl__ao_add_i32(a, nm[2], mul->device, 1, m4, 4);
    fl_node *nshp = nmul ? fl__ao_add_i32(a, nm[3], shp->device, 1, s4, 4) : NULL;
    if (!nshp) {
        return fl__ao_oom(a);
    }
    fl_input rin[2] = {rs->inputs[0], {nshp, 0}};
    fl_node *nrs = fl__ao_add(a, nm[0], fl__op_name(FL_OP_RESHAPE), rs->device, 2, rin);
    if (!nrs || fl__ao_set_type(a, nrs, "T", fl__attr_type(rs, "T")) != FL_OK ||
        fl__ao_set_type(a, nrs, "Tshape", fl__attr_type(rs, "Tshape")) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl_input tin[2] = {{nrs, 0}, {nmul, 0}};
    fl_node *nt = fl__ao_add(a, nm[1], fl__op_name(FL_OP_TILE), tile->device, 2, tin);
    if (!nt || fl__ao_set_type(a, nt, "T", fl__attr_type(tile, "T")) != FL_OK ||
        fl__ao_set_type(a, nt, "Tmultiples", fl__attr_type(tile, "Tmultiples")) != FL_OK ||
        fl__ao_forward_ctrl(a, nt, tile) != FL_OK || fl__ao_forward_ctrl(a, nmul, mul) != FL_OK ||
        fl__ao_forward_ctrl(a, nrs, rs) != FL_OK || fl__ao_forward_ctrl(a, nshp, shp) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "reduce_upsampling_dims", n, "6-D Reshape/Tile of '%s' -> 4-D",
                    rs->name);
    fl__ao_set_input(a, n, 0, (fl_input){nt, 0});
    a->pc->rewritten++;
    *fired = true;
    return FL_OK;
}
