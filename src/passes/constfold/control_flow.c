/*
 * control_flow.c - constant folding's rules on v1 control flow, tensor
 * arrays, Case and variable updates (constant_folding.cc: MaterializeShapes, SimplifyNode):
 *  - TensorArraySizeV3 (MaterializeShapes): the handle's producer has a
 *    Const int32 size input whose first element is not 0 and no true
 *    dynamic_size -> a copy of that Const in place, control inputs
 *    ^<handle producer> and the anchor of the flow producer.
 *  - MoveConstantsPastEnter: Enter/RefEnter with is_constant of a Const c:
 *    its data consumers read the copy ConstantFolding/<c>_enter with
 *    ^<enter>.
 *  - SimplifySwitch: Switch(x, x): readers of output 0 / 1 read
 *    ConstantFolding/<sw>_const_false / _const_true, with control inputs
 *    ConstantFoldingCtrl/<sw>_0 / _1; only when the Switch has exactly two
 *    consumer nodes, not both data-unused Identities: Grappler's
 *    already-optimized test.
 *  - SimplifyCase: Case with a Const int32 branch index -> PartitionedCall
 *    f=branches[i], index input dropped, output_shapes[i] appended to
 *    _output_shapes as Grappler does.
 *  - RemoveRedundantVariableUpdates: AssignAdd/AssignSub,
 *    ScatterAdd/ScatterSub, ScatterNdAdd/ScatterNdSub by zeros and
 *    ScatterMul/ScatterDiv by ones -> Identity(ref) with T and the other
 *    inputs' anchors as control inputs; AssignAddVariableOp/
 *    AssignSubVariableOp, ResourceScatterAdd/Sub, ResourceScatterNdAdd/Sub
 *    by zeros and ResourceScatterMul/Div by ones -> NoOp, inputs as control
 *    inputs; Grappler's list also names ScatterNdMul/Div and their resource
 *    forms, which TensorFlow does not register.
 *
 * Deliberate differences:
 *  - SimplifyCase does not fire when foldline would lose an output shape:
 *    Grappler infers the PartitionedCall's shapes from the branch function,
 *    foldline only from _output_shapes (one entry per output, else none),
 *    so with several outputs, or a branch index past the first output's
 *    entry, known Case output shapes would become unknown.
 *  - MoveConstantsPastEnter leaves a consumer's control edge on the Enter
 *    alone (Grappler rewrites it into a data input, a malformed NodeDef);
 *    SimplifySwitch never rewires the ConstantFoldingCtrl anchors it uses
 *    (Grappler would when they already existed, making a cycle).
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

/* Drops n's regular attrs (names not starting with '_'; Grappler's
 * EraseRegularNodeAttributes), and `also` when given, on a copy. */
static fl_status erase_regular_attrs(fl_pass_ctx *pc, fl_node *n, const char *const *also,
                                     int n_also) {
    fl_node old = *n;
    fl_status st = fl__cf_copy_attrs(pc, n, &old);
    if (st != FL_OK) {
        return st;
    }
    int w = 0;
    for (int i = 0; i < n->n_attrs; i++) {
        bool drop = n->attrs[i].name[0] != '_';
        for (int k = 0; k < n_also && !drop; k++) {
            drop = strcmp(n->attrs[i].name, also[k]) == 0;
        }
        if (!drop) {
            n->attrs[w++] = n->attrs[i]; /* the copy made above */
        }
    }
    fl__node_set_attrs(pc->c->g, n, w, n->attrs);
    return FL_OK;
}

/* Materializes TensorArraySizeV3 (in Grappler's MaterializeShapes): the node
 * producing its handle has a size input that is a Const of dtype int32
 * whose first element is not 0, and no true dynamic_size -> the node becomes
 * a copy of that Const (its attrs), with control inputs ^<handle producer>
 * and the anchor of its flow input's producer (port 0: Grappler takes the
 * node name). Grappler does not check that the producer is a TensorArrayV3;
 * neither do we. */
bool fl__cf_materialize_ta_size_kinds(const fl_node *n) {
    return n->kind == FL_OP_TENSOR_ARRAY_SIZE_V3;
}

fl_status fl__cf_materialize_ta_size(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_materialize_ta_size_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_TENSOR_ARRAY_SIZE_V3 || n->n_inputs != 2 || n->n_outputs != 1) {
        return FL_OK;
    }
    fl_node *arr = n->inputs[0].node;
    const fl_attr *dyn = fl__node_attr(arr, "dynamic_size");
    if (arr->n_inputs < 1 || (dyn && dyn->kind == FL_ATTR_B && dyn->v.b)) {
        return FL_OK;
    }
    fl_node *size = arr->inputs[0].node;
    if (!fl__is_const(size) || (size->flags & FL_NODE_STRIPPED) || size->n_outputs != 1) {
        return FL_OK;
    }
    const fl_value *v = size->outputs[0].value;
    if (!v || v->dtype != FL_DT_INT32 || v->n < 1 || !v->ints || !fl_sym_is_known(v->ints[0]) ||
        v->ints[0].k == 0) {
        return FL_OK; /* no value, not int32, or 0 (Grappler skips 0 sizes) */
    }
    fl__ledger_note(pc, "MaterializeShapes", n,
                    "TensorArraySizeV3 of an array of size %lld -> Const", (long long)v->ints[0].k);
    fl_node *first[2] = {arr, fl__ctrl_anchor(pc, (fl_input){n->inputs[1].node, 0})};
    if (!first[1]) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = fl__cf_set_ctrl(pc, n, first, 2, NULL, 0);
    if (st != FL_OK || (st = fl__cf_copy_attrs(pc, n, size)) != FL_OK) {
        return st;
    }
    fl__node_trim_inputs(g, n, 0);
    fl__node_become(g, n, fl__op_name(FL_OP_CONST));
    n->flags &= ~(uint32_t)FL_NODE_STRIPPED;
    n->src = NULL;
    n->outputs[0].dtype = size->outputs[0].dtype;
    n->outputs[0].shape = size->outputs[0].shape;
    n->outputs[0].value = v;
    fl__node_touch(g, n);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* MoveConstantsPastEnter: Enter/RefEnter with is_constant=true of a Const c
 * -> the Enter's data consumers that are not Consts read a copy of c,
 * ConstantFolding/<c>_enter, on the Enter's device with control input
 * ^<enter>. Not when that copy exists or no such consumer reads the Enter.
 * (A consumer's control edge on the Enter is left alone: Grappler turns it
 * into a data input by mistake.) */
fl_status fl__cf_move_constants_past_enter(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    const fl_attr *ic = fl__node_attr(n, "is_constant");
    if ((n->kind != FL_OP_ENTER && n->kind != FL_OP_REF_ENTER) || n->n_inputs < 1 || !ic ||
        ic->kind != FL_ATTR_B || !ic->v.b || !fl__is_const(n->inputs[0].node)) {
        return FL_OK;
    }
    fl_node *c = n->inputs[0].node;
    const char *name = fl__cf_name(pc, c, "_enter");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name)) {
        return FL_OK;
    }
    bool any = false;
    for (size_t i = 0; i < g->n_nodes && !any; i++) {
        const fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m->kind == FL_OP_CONST) {
            continue;
        }
        for (int j = 0; j < m->n_inputs && !any; j++) {
            any = m->inputs[j].node == n && m->inputs[j].port == 0;
        }
    }
    if (!any) {
        return FL_OK;
    }
    fl_node *k = fl__cf_new_op_like(pc, name, fl__op_name(FL_OP_CONST), c, 0, NULL);
    if (!k || fl__node_add_ctrl(g, k, n) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    k->device = n->device;
    k->flags |= c->flags & FL_NODE_STRIPPED;
    k->outputs[0] = c->outputs[0];
    k->outputs[0].producer = k;
    k->outputs[0].port = 0;
    k->outputs[0].n_consumers = 0;
    size_t moved = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m->kind == FL_OP_CONST) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            if (m->inputs[j].node == n && m->inputs[j].port == 0) {
                fl__node_set_input(g, m, j, (fl_input){k, 0});
                k->outputs[0].n_consumers++;
                moved++;
            }
        }
    }
    g->order = NULL;
    fl__ledger_note(pc, "MoveConstantsPastEnter", n,
                    "constant '%s' copied into the frame as '%s' for %zu inputs", c->name, name,
                    moved);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* SimplifySwitch: Switch(x, x) (one tensor as data and predicate) -> what
 * reads output 0 reads ConstantFolding/<sw>_const_false, what reads output 1
 * ConstantFolding/<sw>_const_true (bool scalars on the Switch's device),
 * with control inputs ConstantFoldingCtrl/<sw>_0 and _1, so that each
 * constant is alive only when its port is. Grappler's conditions: neither
 * constant exists yet; and its "already optimized" test, which holds unless
 * the Switch has exactly two consumer nodes (data or control) not both an
 * Identity (or one-input IdentityN) without data consumers -- so with one or
 * three consumers the rule does not fire either. */
fl_status fl__cf_simplify_switch(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_SWITCH || n->n_inputs != 2 || n->n_outputs != 2 ||
        n->inputs[0].node != n->inputs[1].node || n->inputs[0].port != n->inputs[1].port) {
        return FL_OK;
    }
    const char *fname = fl__cf_name(pc, n, "_const_false");
    const char *tname = fl__cf_name(pc, n, "_const_true");
    if (!fname || !tname) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, fname) || fl__graph_find(g, tname)) {
        return FL_OK;
    }
    fl_node *fan[2];
    if (fl__consumers_of(g, n, fan, 2) != 2) {
        return FL_OK;
    }
    bool optimized = true;
    for (int i = 0; i < 2 && optimized; i++) {
        bool ident = fan[i]->kind == FL_OP_IDENTITY ||
                     (fan[i]->kind == FL_OP_IDENTITY_N && fan[i]->n_inputs == 1);
        optimized = ident && fl__cf_data_uses(g, fan[i]) == 0;
    }
    if (optimized) {
        return FL_OK;
    }
    int64_t zero = 0, one = 1;
    fl_value *fv = fl__cf_int_value(pc, FL_DT_BOOL, 0, 1, &zero);
    fl_value *tv = fl__cf_int_value(pc, FL_DT_BOOL, 0, 1, &one);
    fl_node *cf = fv ? fl__cf_new_const(pc, fname, fv, n->device, NULL) : NULL;
    fl_node *ct = tv ? fl__cf_new_const(pc, tname, tv, n->device, NULL) : NULL;
    fl_node *a0 = cf && ct ? fl__ctrl_anchor(pc, (fl_input){n, 0}) : NULL;
    fl_node *a1 = a0 ? fl__ctrl_anchor(pc, (fl_input){n, 1}) : NULL;
    if (!a1 || fl__node_add_ctrl(g, cf, a0) != FL_OK || fl__node_add_ctrl(g, ct, a1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    /* The consumers the Switch had (not the anchors just made) read the
     * constants. */
    size_t moved = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m == a0 || m == a1) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            if (m->inputs[j].node == n) {
                fl_node *c = m->inputs[j].port == 0 ? cf : ct;
                fl__node_set_input(g, m, j, (fl_input){c, 0});
                c->outputs[0].n_consumers++;
                moved++;
            }
        }
    }
    g->order = NULL;
    fl__ledger_note(pc, "SimplifySwitch", n, "Switch(%s, %s): %zu inputs now read '%s' / '%s'",
                    n->inputs[0].node->name, n->inputs[0].node->name, moved, fname, tname);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* Shapes equally known: same rank (or both unknown), each dim unknown on
 * both sides or the same known/symbolic value. */
static bool shape_equally_known(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || b->rank < 0) {
        return a->rank < 0 && b->rank < 0;
    }
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        bool ua = fl_sym_is_unknown(a->dims[i]), ub = fl_sym_is_unknown(b->dims[i]);
        if (ua != ub || (!ua && !fl__sym_eq(a->dims[i], b->dims[i]))) {
            return false;
        }
    }
    return true;
}

/* SimplifyCase: Case whose branch_index is a Const (int32 scalar) naming a
 * branch -> PartitionedCall of that branch (attr f), the index input
 * dropped (no control edge: Grappler drops it), the other attrs kept but
 * branches and output_shapes; Grappler appends output_shapes[<index>] (the
 * entry at the *branch* index) to _output_shapes when there is one.
 * Deliberate difference: Grappler infers a call's shapes from the function
 * body, foldline only from _output_shapes (all outputs or none), so the rule
 * does not fire when that would leave an output shape less known than the
 * Case's. */
fl_status fl__cf_simplify_case(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_CASE || n->n_inputs < 1) {
        return FL_OK;
    }
    const fl_value *v = fl__cf_const_value(n, 0);
    const fl_attr *br = fl__node_attr(n, "branches");
    if (!v || v->dtype != FL_DT_INT32 || v->n != 1 || !br || br->kind != FL_ATTR_LIST ||
        br->list_kind != FL_ATTR_FUNC) {
        return FL_OK;
    }
    int64_t idx = fl__cf_ival(v, 0);
    if (idx < 0 || (size_t)idx >= br->n) {
        return FL_OK;
    }
    const fl_attr *os = fl__node_attr(n, "output_shapes");
    const fl_attr *old = fl__node_attr(n, "_output_shapes");
    size_t n_old = old && old->kind == FL_ATTR_LIST && old->list_kind == FL_ATTR_SHAPE ? old->n : 0;
    bool add =
        os && os->kind == FL_ATTR_LIST && os->list_kind == FL_ATTR_SHAPE && os->n > (size_t)idx;
    size_t n_new = n_old + (add ? 1 : 0);
    fl_shape_lit *lits = fl__arena_calloc(pc->c->a, n_new + 1, sizeof(fl_shape_lit));
    fl_attr *attrs = fl__arena_calloc(pc->c->a, (size_t)n->n_attrs + 2, sizeof(fl_attr));
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    if (!lits || !attrs || !in) {
        return fl__diag_oom(pc->c->d);
    }
    for (size_t i = 0; i < n_old; i++) {
        lits[i] = old->v.list.shape[i];
    }
    if (add) {
        lits[n_old] = os->v.list.shape[idx];
    }
    /* What PartitionedCall's inference will give: every output from
     * _output_shapes when it has one entry per output, else unknown. */
    for (int k = 0; k < n->n_outputs; k++) {
        fl_shape s = {-1, NULL};
        if (n_new == (size_t)n->n_outputs && lits[k].rank >= 0) {
            s.rank = lits[k].rank;
            s.dims = fl__arena_calloc(pc->c->a, (size_t)s.rank + 1, sizeof(fl_sym));
            if (!s.dims) {
                return fl__diag_oom(pc->c->d);
            }
            for (int i = 0; i < s.rank; i++) {
                int64_t d = lits[k].dims ? lits[k].dims[i] : -1;
                s.dims[i] = d >= 0 ? fl_sym_const(d) : fl_sym_unknown();
            }
        }
        if (!shape_equally_known(&s, &n->outputs[k].shape)) {
            return FL_OK;
        }
    }
    int w = 0;
    for (int i = 0; i < n->n_attrs; i++) {
        const char *an = n->attrs[i].name;
        if (strcmp(an, "branches") && strcmp(an, "output_shapes") && strcmp(an, "_output_shapes")) {
            attrs[w++] = n->attrs[i];
        }
    }
    const char *fname = br->v.list.func[idx].name;
    attrs[w].name = fl__arena_strdup(pc->c->a, "f");
    attrs[w].kind = FL_ATTR_FUNC;
    attrs[w].v.func = br->v.list.func[idx];
    if (!attrs[w++].name) {
        return fl__diag_oom(pc->c->d);
    }
    if (n_new) {
        attrs[w].name = fl__arena_strdup(pc->c->a, "_output_shapes");
        attrs[w].kind = FL_ATTR_LIST;
        attrs[w].list_kind = FL_ATTR_SHAPE;
        attrs[w].n = n_new;
        attrs[w].v.list.shape = lits;
        if (!attrs[w++].name) {
            return fl__diag_oom(pc->c->d);
        }
    }
    fl__ledger_note(pc, "SimplifyCase", n,
                    "Case with constant branch index %lld -> "
                    "PartitionedCall of '%s'",
                    (long long)idx, fname ? fname : "?");
    int n_in = n->n_inputs - 1;
    memcpy(in, n->inputs + 1, (size_t)n_in * sizeof(fl_input));
    if (fl__node_set_inputs(g, n, n_in, in) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_set_attrs(g, n, w, attrs);
    fl__node_become(g, n, fl__op_name(FL_OP_PARTITIONED_CALL));
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

int fl__cf_variable_update_form(int kind) {
    switch (kind) {
    case FL_OP_ASSIGN_ADD:
    case FL_OP_ASSIGN_SUB:
    case FL_OP_SCATTER_ADD:
    case FL_OP_SCATTER_SUB:
    case FL_OP_SCATTER_MUL:
    case FL_OP_SCATTER_DIV:
    case FL_OP_SCATTER_ND_ADD:
    case FL_OP_SCATTER_ND_SUB:
        return 1;
    case FL_OP_ASSIGN_ADD_VARIABLE_OP:
    case FL_OP_ASSIGN_SUB_VARIABLE_OP:
    case FL_OP_RESOURCE_SCATTER_ADD:
    case FL_OP_RESOURCE_SCATTER_SUB:
    case FL_OP_RESOURCE_SCATTER_MUL:
    case FL_OP_RESOURCE_SCATTER_DIV:
    case FL_OP_RESOURCE_SCATTER_ND_ADD:
    case FL_OP_RESOURCE_SCATTER_ND_SUB:
        return 2;
    default:
        return 0;
    }
}

/* RemoveRedundantVariableUpdates: AssignAdd/AssignSub, ScatterAdd/ScatterSub,
 * ScatterNdAdd/ScatterNdSub (ref), AssignAddVariableOp/AssignSubVariableOp,
 * ResourceScatterAdd/ResourceScatterSub, ResourceScatterNdAdd/
 * ResourceScatterNdSub (resource) whose delta (input 2 for the Scatter ops,
 * else input 1) is zeros (IsZeros), and ScatterMul/ScatterDiv,
 * ResourceScatterMul/ResourceScatterDiv whose updates are ones (IsOnes): the
 * op name has "Add" or "Sub" or not. The resource forms have no outputs and
 * become NoOp (ReplaceOperationWithNoOp: attrs but '_' ones and
 * _output_shapes dropped, data inputs as control inputs through their
 * anchors, in input order); they are rewritten even when preserved, as
 * Grappler does: nothing reads them and the update changes nothing. The ref
 * forms become Identity(ref) with T = attr T and the other data inputs as
 * control inputs in input order (ReplaceOperationWithIdentity), not when
 * preserved. ScatterMax/Min/Update, ScatterNdMax/Min/Update and their
 * resource forms are not in Grappler's list. */
fl_status fl__cf_remove_redundant_variable_update(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    int form = fl__cf_variable_update_form(n->kind);
    bool resource = form == 2, ref = form == 1;
    int vi = strstr(n->op, "Scatter") ? 2 : 1;
    if (!form || n->n_inputs != vi + 1) {
        return FL_OK;
    }
    bool add_or_sub = strstr(n->op, "Add") || strstr(n->op, "Sub");
    const fl_node *delta = n->inputs[vi].node;
    if (!(add_or_sub ? fl__cf_is_zeros(delta) : fl__cf_is_ones(delta)) ||
        (ref && (fl__preserved(n) || fl__attr_type(n, "T") == FL_DT_INVALID))) {
        return FL_OK;
    }
    fl_input in[3];
    memcpy(in, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
    int n_in = n->n_inputs;
    fl_node *old_ctrl[64];
    int n_old = n->n_ctrl < 64 ? n->n_ctrl : 64;
    if (n->n_ctrl > 64) {
        return FL_OK;
    }
    if (n_old > 0) {
        memcpy(old_ctrl, n->ctrl, (size_t)n_old * sizeof(fl_node *));
    }
    fl__node_clear_ctrl(g, n);
    fl_status st = FL_OK;
    const char *what = add_or_sub ? "zeros" : "ones";
    if (resource) {
        static const char *const out_attrs[] = {"_output_shapes", "_xla_inferred_shapes"};
        fl__ledger_note(pc, "RemoveRedundantVariableUpdates", n, "%s by %s '%s' -> NoOp", n->op,
                        what, delta->name);
        st = erase_regular_attrs(pc, n, out_attrs, 2);
        for (int i = 0; i < n_in && st == FL_OK; i++) {
            st = fl__add_ctrl_anchor(pc, n, in[i]);
        }
        fl__node_trim_inputs(g, n, 0);
        fl__node_become(g, n, fl__op_name(FL_OP_NO_OP));
    } else {
        int t = (int)fl_dtype_base(fl__attr_type(n, "T"));
        fl__ledger_note(pc, "RemoveRedundantVariableUpdates", n, "%s by %s '%s' -> Identity", n->op,
                        what, delta->name);
        st = erase_regular_attrs(pc, n, NULL, 0);
        if (st == FL_OK) {
            st = fl__cf_set_type_attr(pc, n, "T", t);
        }
        for (int i = 1; i < n_in && st == FL_OK; i++) {
            st = fl__add_ctrl_anchor(pc, n, in[i]);
        }
        fl__node_trim_inputs(g, n, 1);
        fl__node_become(g, n, fl__op_name(FL_OP_IDENTITY));
    }
    for (int k = 0; k < n_old && st == FL_OK; k++) {
        st = fl__node_add_ctrl(g, n, old_ctrl[k]) == FL_OK ? FL_OK : fl__diag_oom(pc->c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    g->order = NULL;
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}
