/*
 * slice_segment.c - the arithmetic optimizer's slice and sparse segment
 * stages (29, 30, 31).
 *  - remove_stack_slice_same_axis (29): Slice/StridedSlice (strides 1, no
 *    ellipsis or new axis; on a dim that is not known only a full range) of
 *    a Pack taking exactly input i on the pack axis -> Identity(input i)
 *    (axis shrunk) or ExpandDims(input i, "..._Axis_<name>") as
 *    "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_<name>".
 *  - simplify_embedding_lookup (30): SparseSegment{Sum,Mean,SqrtN}[...]
 *    (Gather/GatherV2 axis 0 (params, Unique/UniqueV2(ids)), Unique:1, seg)
 *    -> (params, ids, seg) with Tidx the ids' type, in place.
 *  - remove_cast_into_segment_reduction (31): an int32/int64 Cast feeding a
 *    sparse segment reduction's indices or segment ids is bypassed; Tidx /
 *    Tsegmentids become the Cast's source type, in place.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RemoveStackSliceSameAxis (29): the packed input the slice takes out, or -1;
 * *expand when the slice keeps the axis. */
static int stack_slice_index(const fl_node *n, const fl_shape *ps, int axis, bool *expand) {
    int64_t b[64], e[64], s[64];
    int r = ps->rank;
    if (n->kind == FL_OP_SLICE) {
        int nb = fl__ao_const_ints(n->inputs[1].node, true, b, 64);
        int ns = fl__ao_const_ints(n->inputs[2].node, true, s, 64);
        if (nb < 0 || nb != ns || nb != r || s[axis] != 1) {
            return -1;
        }
        for (int i = 0; i < r; i++) {
            if (i != axis && (b[i] != 0 || (s[i] != -1 && !(fl_sym_is_known(ps->dims[i]) &&
                                                            s[i] == ps->dims[i].k)))) {
                return -1;
            }
        }
        *expand = true;
        return (int)b[axis];
    }
    const fl_attr *m[5];
    static const char *const mn[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                      "shrink_axis_mask"};
    for (int i = 0; i < 5; i++) {
        m[i] = fl__node_attr(n, mn[i]);
        if (m[i] && m[i]->kind != FL_ATTR_I) {
            return -1;
        }
    }
    int64_t bm = m[0] ? m[0]->v.i : 0, em = m[1] ? m[1]->v.i : 0, el = m[2] ? m[2]->v.i : 0,
            na = m[3] ? m[3]->v.i : 0, sh = m[4] ? m[4]->v.i : 0;
    int nb = fl__ao_const_ints(n->inputs[1].node, true, b, 64);
    int ne = fl__ao_const_ints(n->inputs[2].node, true, e, 64);
    int ns = fl__ao_const_ints(n->inputs[3].node, true, s, 64);
    if (el || na || nb < 0 || nb != ne || nb != ns || nb > r) {
        return -1;
    }
    /* canonical begin/end per dim; `full` when the dim is taken whole */
    int begin_index = -1, end_index = -1;
    int64_t begin_value = 0, end_value = 0;
    for (int i = 0; i < r; i++) {
        bool spec = i < nb;
        if (spec && s[i] != 1) {
            return -1; /* not a simple slice */
        }
        bool shrink = spec && ((sh >> i) & 1);
        bool bmask = !spec || ((bm >> i) & 1), emask = !spec || ((em >> i) & 1);
        bool known = fl_sym_is_known(ps->dims[i]);
        int64_t dim = known ? ps->dims[i].k : -1;
        int64_t bi, ei;
        if (shrink) {
            if (!known && b[i] < 0) {
                return -1;
            }
            bi = b[i] < 0 ? b[i] + dim : b[i];
            ei = bi + 1;
            if (!known) {
                return -1;
            }
        } else if (!known) {
            if (!bmask || !emask) {
                return -1;
            }
            continue; /* the whole dim */
        } else {
            bi = bmask ? 0 : (b[i] < 0 ? b[i] + dim : b[i]);
            ei = emask ? dim : (e[i] < 0 ? e[i] + dim : e[i]);
            bi = bi < 0 ? 0 : bi > dim ? dim : bi;
            ei = ei < 0 ? 0 : ei > dim ? dim : ei;
        }
        if (bi != 0) {
            if (begin_index != -1) {
                return -1;
            }
            begin_index = i;
            begin_value = bi;
        }
        if (ei != dim) {
            if (end_index != -1) {
                return -1;
            }
            end_index = i;
            end_value = ei;
        }
    }
    if ((begin_index == -1 && end_index == -1) ||
        (begin_index != -1 && end_index != -1 && begin_index != end_index)) {
        return -1;
    }
    int slice_axis = begin_index == -1 ? end_index : begin_index;
    if (slice_axis != axis) {
        return -1;
    }
    int64_t start = begin_index == -1 ? 0 : begin_value;
    int64_t end = end_index == -1 ? ps->dims[axis].k : end_value;
    if (!fl_sym_is_known(ps->dims[axis]) || end != start + 1) {
        return -1;
    }
    if (sh == 0) {
        *expand = true;
    } else if (sh == ((int64_t)1 << slice_axis)) {
        *expand = false;
    } else {
        return -1;
    }
    return (int)start;
}

bool fl__ao_remove_stack_slice_same_axis_kinds(const fl_node *n) {
    return n->kind == FL_OP_SLICE || n->kind == FL_OP_STRIDED_SLICE;
}

fl_status fl__ao_remove_stack_slice_same_axis(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_remove_stack_slice_same_axis_kinds(n)) {
        return FL_OK;
    }
    bool slice = n->kind == FL_OP_SLICE && n->n_inputs == 3;
    if ((!slice && (n->kind != FL_OP_STRIDED_SLICE || n->n_inputs != 4)) ||
        !fl__ao_replaceable(n)) {
        return FL_OK;
    }
    fl_node *pack = n->inputs[0].node;
    const fl_attr *ax = fl__node_attr(pack, "axis");
    const fl_shape *ps = &fl_node_in(n, 0)->shape;
    if (pack->kind != FL_OP_PACK || !ax || ax->kind != FL_ATTR_I || ps->rank < 1 || ps->rank > 64) {
        return FL_OK;
    }
    int64_t axis = ax->v.i < 0 ? ax->v.i + ps->rank : ax->v.i;
    if (axis < 0 || axis >= ps->rank) {
        return FL_OK;
    }
    bool expand = false;
    int idx = stack_slice_index(n, ps, (int)axis, &expand);
    int dt = n->outputs[0].dtype;
    if (idx < 0 || idx >= pack->n_inputs || dt == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_input src = pack->inputs[idx];
    const char *on = fl__ao_opt_name(a, n->name, "RemoveStackStridedSliceSameAxis");
    if (!on) {
        return fl__ao_oom(a);
    }
    fl_node *out;
    if (!expand) {
        out = fl__ao_add(a, on, fl__op_name(FL_OP_IDENTITY), n->device, 1, &src);
        if (!out || fl__ao_set_type(a, out, "T", dt) != FL_OK) {
            return fl__ao_oom(a);
        }
    } else {
        const char *axn = fl__ao_opt_name2(a, n->name, "RemoveStackStridedSliceSameAxis", "Axis");
        fl_node *axc = axn ? fl__ao_add_i32(a, axn, n->device, 0, &axis, 1) : NULL;
        if (!axc || fl__ao_add_ctrl(a, axc, src.node) != FL_OK) {
            return fl__ao_oom(a);
        }
        fl_input ein[2] = {src, {axc, 0}};
        out = fl__ao_add(a, on, fl__op_name(FL_OP_EXPAND_DIMS), n->device, 2, ein);
        if (!out || fl__ao_set_type(a, out, "T", dt) != FL_OK ||
            fl__ao_set_type(a, out, "Tdim", FL_DT_INT32) != FL_OK) {
            return fl__ao_oom(a);
        }
    }
    if (fl__ao_forward_ctrl(a, out, pack) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "remove_stack_slice_same_axis", n, "%s of Pack '%s' -> %s(input %d)",
                    n->op, pack->name, expand ? "ExpandDims" : "Identity", idx);
    *fired = true;
    return fl__ao_replace_by(a, n, out);
}

static bool sparse_segment_reduction(const fl_node *n) {
    static const fl_pass_op ops[] = {
        FL_POP_SPARSE_SEGMENT_SUM,    FL_POP_SPARSE_SEGMENT_SUM_WITH_NUM_SEGMENTS,
        FL_POP_SPARSE_SEGMENT_MEAN,   FL_POP_SPARSE_SEGMENT_MEAN_WITH_NUM_SEGMENTS,
        FL_POP_SPARSE_SEGMENT_SQRT_N, FL_POP_SPARSE_SEGMENT_SQRT_N_WITH_NUM_SEGMENTS};
    /* All six start with "Sp": most nodes are told apart by two characters
     * (two stages ask this of every node). */
    return n->op[0] == 'S' && n->op[1] == 'p' && fl__pass_op_in(n, ops, sizeof ops / sizeof ops[0]);
}

/* A scalar (one element) int32/int64 Const equal to 0. */
static bool axis0(const fl_node *c) {
    int64_t v[1];
    return fl__ao_const_ints(c, true, v, 1) == 1 && v[0] == 0;
}

/* SimplifyEmbeddingLookup (30). */
bool fl__ao_simplify_embedding_lookup_kinds(const fl_node *r) {
    return sparse_segment_reduction(r);
}

fl_status fl__ao_simplify_embedding_lookup(ao *a, fl_node *r, bool *fired) {
    if (!fl__ao_simplify_embedding_lookup_kinds(r) || fl__preserved(r) || r->n_inputs < 3) {
        return FL_OK;
    }
    fl_node *g = r->inputs[0].node;
    if ((g->kind != FL_OP_GATHER && g->kind != FL_OP_GATHER_V2) || fl__preserved(g) ||
        !fl__same_device(g, r) || g->n_inputs < 2 ||
        (g->kind == FL_OP_GATHER_V2 && (g->n_inputs < 3 || !axis0(g->inputs[2].node)))) {
        return FL_OK;
    }
    fl_node *u = g->inputs[1].node;
    bool v2 = fl__is_pass_op(u, FL_POP_UNIQUE_V2);
    int t = fl__attr_type(u, "T");
    if ((!fl__is_pass_op(u, FL_POP_UNIQUE) && !v2) || fl__preserved(u) || !fl__same_device(u, g) ||
        u->n_inputs < 1 || g->inputs[1].port != 0 || t == FL_DT_INVALID ||
        (v2 && (u->n_inputs < 2 || !axis0(u->inputs[1].node)))) {
        return FL_OK;
    }
    if (r->inputs[1].node != u || r->inputs[1].port != 1) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "simplify_embedding_lookup", r, "%s reads '%s' and '%s' directly", r->op,
                    g->inputs[0].node->name, u->inputs[0].node->name);
    fl__ao_set_input(a, r, 0, g->inputs[0]);
    fl__ao_set_input(a, r, 1, u->inputs[0]);
    a->pc->rewritten++;
    *fired = true;
    return fl__ao_set_type(a, r, "Tidx", t);
}

/* RemoveCastIntoSegmentReduction (31). */
bool fl__ao_remove_cast_into_segment_reduction_kinds(const fl_node *r) {
    return sparse_segment_reduction(r);
}

fl_status fl__ao_remove_cast_into_segment_reduction(ao *a, fl_node *r, bool *fired) {
    if (!fl__ao_remove_cast_into_segment_reduction_kinds(r) || fl__preserved(r) ||
        r->n_inputs < 3) {
        return FL_OK;
    }
    static const char *const attrs[3] = {NULL, "Tidx", "Tsegmentids"};
    for (int k = 1; k <= 2; k++) {
        fl_node *c = r->inputs[k].node;
        int src = fl__attr_type(c, "SrcT");
        if (c->kind != FL_OP_CAST || c->n_inputs < 1 ||
            (src != FL_DT_INT32 && src != FL_DT_INT64)) {
            continue;
        }
        if (!*fired) {
            fl__ledger_note(a->pc, "remove_cast_into_segment_reduction", r,
                            "Cast '%s' into %s removed", c->name, r->op);
            a->pc->rewritten++;
        }
        fl__ao_set_input(a, r, k, c->inputs[0]);
        fl_status st = fl__ao_set_type(a, r, attrs[k], src);
        if (st != FL_OK) {
            return st;
        }
        *fired = true;
    }
    return FL_OK;
}
