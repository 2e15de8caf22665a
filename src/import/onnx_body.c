/*
 * onnx_body.c - the bodies of ONNX If, Loop and Scan as stand-alone models,
 * so the shape layer can analyse and cost them (src/shape/bodies.c).
 *
 * A body is a GraphProto attr of the node (If: then_branch, else_branch;
 * Loop and Scan: body). Its model has the outer model's opset imports, the
 * body's nodes, initializers and outputs, and as graph inputs:
 *   - the body's own inputs, typed from the outer node as the op defines
 *     them: Loop (iteration_num int64 [], cond bool [], then the loop-carried
 *     values as the Loop's inputs 2..), Scan opset 9+ (the states as the
 *     Scan's first inputs, each scan input without its scan axis:
 *     attr scan_input_axes, default 0); If has none;
 *   - each outer-scope value the body (or a body nested in it) reads: an
 *     outer initializer is copied in as an initializer (its values kept), an
 *     outer Constant as an initializer of its value, a sequence as an input
 *     of sequence type (its elements' dtype and a shape they all have, as
 *     the caller describes them), anything else as an input of the outer
 *     tensor's inferred dtype and shape.
 * A dim that is one symbol of the outer graph (a dim_param, INPUT.AXIS) is
 * passed as a dim_param of that symbol's name, so the body's analysis, run
 * with the outer symbol table, sees the same symbol. A dim that is an
 * expression in the outer symbols (2*n, seq + past) is passed as a
 * dim_param "(2*n)" naming a variable that stands for it (one per distinct
 * expression), and the caller is told which expression each stands for, to
 * substitute it back into the body's results. An unknown dim is a dim
 * without value.
 * The protos are the outer model's, borrowed; the scratch memory (the
 * model's messages, the packed bytes) is arena scratch, counted against
 * the analysis's memory limit; the packed model is the caller's to free
 * (fl__arena_scratch_free). Outer values are found through an index of
 * the outer graph's value names built once per graph
 * (fl__onnx_values_new).
 */
#include "graph/mutate.h"
#include "import/import.h"
#include "onnx/onnx.pb-c.h"
#include "ops/ops.h"
#include "util/hash.h"

#include <string.h>

/* Scratch allocations of one body model, freed together: arena scratch
 * memory (util/arena.h), counted against the analysis's memory limit while
 * the model is built. */
typedef struct scratch {
    fl_arena *a;
    void **p;
    size_t n, cap;
    bool oom;
    fl_onnx_body_dims *dims;       /* expression dims passed by name; NULL: none */
    const fl_onnx_outer_seq *seqs; /* outer sequences described; NULL: none */
} scratch;

static void *sc_alloc(scratch *s, size_t size) {
    if (s->oom) {
        return NULL;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        void **p = fl__arena_scratch_grow(s->a, s->p, s->cap, cap, sizeof(void *));
        if (!p) {
            s->oom = true;
            return NULL;
        }
        s->p = p;
        s->cap = cap;
    }
    void *m = fl__arena_scratch(s->a, 1, size ? size : 1);
    if (!m) {
        s->oom = true;
        return NULL;
    }
    s->p[s->n++] = m;
    return m;
}

static void sc_free(scratch *s) {
    for (size_t i = 0; i < s->n; i++) {
        fl__arena_scratch_free(s->a, s->p[i]);
    }
    fl__arena_scratch_free(s->a, s->p);
}

/* A set of names (borrowed strings) in insertion order, with a hash table
 * of their indexes (slot: index + 1, 0 empty; twice the list's room). */
typedef struct names {
    fl_arena *a;
    const char **v;
    size_t n, cap;
    uint32_t *slots;
} names;

/* The slot of s, or the empty slot ending its probe chain. */
static uint32_t *name_slot(const names *l, const char *s) {
    size_t mask = 2 * l->cap - 1, j = (size_t)fl__hash_str(s) & mask;
    while (l->slots[j] && strcmp(l->v[l->slots[j] - 1], s) != 0) {
        j = (j + 1) & mask;
    }
    return &l->slots[j];
}

static bool has_name(const names *l, const char *s) {
    return l->cap && *name_slot(l, s) != 0;
}

static bool add_name(names *l, const char *s) {
    if (!s || !*s || has_name(l, s)) {
        return true;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        const char **v = cap < UINT32_MAX / 4
                             ? fl__arena_scratch_grow(l->a, l->v, l->cap, cap, sizeof(*v))
                             : NULL;
        uint32_t *slots = v ? fl__arena_scratch(l->a, 2 * cap, sizeof(uint32_t)) : NULL;
        if (v) {
            l->v = v;
        }
        if (!slots) {
            return false;
        }
        fl__arena_scratch_free(l->a, l->slots);
        l->slots = slots;
        l->cap = cap;
        for (size_t i = 0; i < l->n; i++) {
            *name_slot(l, l->v[i]) = (uint32_t)(i + 1);
        }
    }
    *name_slot(l, s) = (uint32_t)(l->n + 1);
    l->v[l->n++] = s;
    return true;
}

static void names_free(names *l) {
    fl__arena_scratch_free(l->a, l->v);
    fl__arena_scratch_free(l->a, l->slots);
}

/* Names defined (def) and read (use) in gp and the graphs nested in it. */
static bool scan_graph(const Onnx__GraphProto *gp, names *def, names *use, int depth) {
    if (depth > 16) {
        return true; /* deeper bodies are analysed from their own parent */
    }
    bool ok = true;
    for (size_t i = 0; i < gp->n_input; i++) {
        ok &= add_name(def, gp->input[i]->name);
    }
    for (size_t i = 0; i < gp->n_initializer; i++) {
        ok &= add_name(def, gp->initializer[i]->name);
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; k < np->n_output; k++) {
            ok &= add_name(def, np->output[k]);
        }
        for (size_t k = 0; k < np->n_input; k++) {
            ok &= add_name(use, np->input[k]);
        }
        for (size_t a = 0; a < np->n_attribute; a++) {
            if (np->attribute[a]->g) {
                ok &= scan_graph(np->attribute[a]->g, def, use, depth + 1);
            }
        }
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        ok &= add_name(use, gp->output[i]->name);
    }
    return ok;
}

static int32_t onnx_elem_type(int dt) {
    for (int32_t t = 1; t <= 25; t++) {
        if (fl__onnx_dtype(t) == fl_dtype_base(dt) && dt != FL_DT_INVALID) {
            return t;
        }
    }
    return 0;
}

/* The variable that stands for the expression dim e in the body, "(TEXT)",
 * recorded in sc->dims (the same expression: the same name); NULL when e
 * is not symbolic, there is no list, or on OOM (sc->oom). */
static const char *expr_var(scratch *sc, fl_sym e) {
    fl_onnx_body_dims *l = sc->dims;
    if (!l || !fl_sym_is_symbolic(e) || sc->oom) {
        return NULL;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (fl__sym_eq(l->values[i], e)) {
            return l->names[i];
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        const char **nm = fl__arena_scratch_grow(sc->a, l->names, l->cap, cap, sizeof(*nm));
        if (nm) {
            l->names = nm;
        }
        fl_sym *v = nm ? fl__arena_scratch_grow(sc->a, l->values, l->cap, cap, sizeof(*v)) : NULL;
        if (!v) {
            sc->oom = true;
            return NULL;
        }
        l->values = v;
        l->cap = cap;
    }
    size_t len = fl__sym_format(e, NULL, 0);
    char *name = fl__arena_scratch(sc->a, len + 3, 1);
    if (!name) {
        sc->oom = true;
        return NULL;
    }
    name[0] = '(';
    fl__sym_format(e, name + 1, len + 1);
    name[len + 1] = ')';
    name[len + 2] = '\0';
    l->names[l->n] = name;
    l->values[l->n++] = e;
    return name;
}

void fl__onnx_body_dims_free(const fl_graph *g, fl_onnx_body_dims *dims) {
    for (size_t i = 0; i < dims->n; i++) {
        fl__arena_scratch_free(g->arena, (void *)dims->names[i]);
    }
    fl__arena_scratch_free(g->arena, dims->names);
    fl__arena_scratch_free(g->arena, dims->values);
    memset(dims, 0, sizeof *dims);
}

/* A graph input `name` of dtype dt and shape s (rank -1: no shape; `drop`
 * >= 0 leaves that dim out). */
static Onnx__ValueInfoProto *value_info(scratch *sc, const char *name, int dt, const fl_shape *s,
                                        int drop) {
    Onnx__ValueInfoProto *vi = sc_alloc(sc, sizeof *vi);
    Onnx__TypeProto *tp = sc_alloc(sc, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = sc_alloc(sc, sizeof *tt);
    if (!vi || !tp || !tt) {
        return NULL;
    }
    onnx__value_info_proto__init(vi);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    vi->name = (char *)name;
    vi->type = tp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    tt->has_elem_type = true;
    tt->elem_type = onnx_elem_type(dt);
    if (s->rank < 0) {
        return vi;
    }
    Onnx__TensorShapeProto *sp = sc_alloc(sc, sizeof *sp);
    Onnx__TensorShapeProto__Dimension **dims = sc_alloc(sc, (size_t)(s->rank + 1) * sizeof(*dims));
    if (!sp || !dims) {
        return NULL;
    }
    onnx__tensor_shape_proto__init(sp);
    sp->dim = dims;
    for (int k = 0; k < s->rank; k++) {
        if (k == drop) {
            continue;
        }
        Onnx__TensorShapeProto__Dimension *dm = sc_alloc(sc, sizeof *dm);
        if (!dm) {
            return NULL;
        }
        onnx__tensor_shape_proto__dimension__init(dm);
        const char *var = fl__sym_var_name(s->dims[k]);
        if (fl_sym_is_known(s->dims[k])) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dm->dim_value = s->dims[k].k;
        } else if (var || (var = expr_var(sc, s->dims[k]))) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dm->dim_param = (char *)var;
        }
        dims[sp->n_dim++] = dm;
    }
    tt->shape = sp;
    return vi;
}

static const fl_shape scalar = {0, NULL};

/* A graph input `name`: a sequence of dt tensors of shape elem (the tensor
 * input's type wrapped). */
static Onnx__ValueInfoProto *seq_value_info(scratch *sc, const char *name, int dt,
                                            const fl_shape *elem) {
    Onnx__ValueInfoProto *vi = value_info(sc, name, dt, elem, -1);
    Onnx__TypeProto *tp = sc_alloc(sc, sizeof *tp);
    Onnx__TypeProto__Sequence *sq = sc_alloc(sc, sizeof *sq);
    if (!vi || !tp || !sq) {
        return NULL;
    }
    onnx__type_proto__init(tp);
    onnx__type_proto__sequence__init(sq);
    tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    tp->sequence_type = sq;
    sq->elem_type = vi->type;
    vi->type = tp;
    return vi;
}

/* True when the body declares input vi a sequence or an optional: the type
 * a loop-carried sequence (a variant in the outer graph) keeps in the body. */
static bool declared_container(const Onnx__ValueInfoProto *vi) {
    const Onnx__TypeProto *tp = vi ? vi->type : NULL;
    return tp && ((tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type) ||
                  (tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type));
}

/* The type of body input i (declared as `decl`) from the outer node n (see
 * the header). A loop-carried sequence or optional keeps the body's
 * declared type: the outer value's dtype (a variant) names no element type. */
static Onnx__ValueInfoProto *body_input(scratch *sc, const fl_graph *g, const fl_node *n,
                                        Onnx__ValueInfoProto *decl, size_t i) {
    const char *name = decl->name;
    if (n->kind == FL_OP_ONNX_LOOP) {
        if (i < 2) {
            return value_info(sc, name, i == 0 ? FL_DT_INT64 : FL_DT_BOOL, &scalar, -1);
        }
        const fl_tensor *t = (int)i < n->n_inputs ? fl_node_in(n, (int)i) : NULL;
        if (t && fl_dtype_base(t->dtype) == FL_DT_VARIANT && declared_container(decl)) {
            return decl;
        }
        return t ? value_info(sc, name, t->dtype, &t->shape, -1) : NULL;
    }
    /* Scan (opset 9+): states, then scan inputs without their scan axis. */
    const fl_attr *ns = fl__node_attr(n, "num_scan_inputs");
    int64_t n_scan = ns && ns->kind == FL_ATTR_I ? ns->v.i : 0;
    if ((int)i >= n->n_inputs || n_scan < 0 || n_scan > n->n_inputs) {
        return NULL;
    }
    const fl_tensor *t = fl_node_in(n, (int)i);
    int64_t first_scan = n->n_inputs - n_scan;
    if ((int64_t)i < first_scan) {
        if (fl_dtype_base(t->dtype) == FL_DT_VARIANT && declared_container(decl)) {
            return decl;
        }
        return value_info(sc, name, t->dtype, &t->shape, -1);
    }
    int64_t axis = 0;
    const fl_attr *ax = fl__node_attr(n, "scan_input_axes");
    size_t j = (size_t)((int64_t)i - first_scan);
    if (ax && ax->kind == FL_ATTR_LIST && ax->list_kind == FL_ATTR_I && j < ax->n) {
        axis = ax->v.list.i[j];
    }
    if (t->shape.rank >= 0 && axis < 0) {
        axis += t->shape.rank;
    }
    if (t->shape.rank >= 0 && (axis < 0 || axis >= t->shape.rank)) {
        return NULL;
    }
    (void)g;
    return value_info(sc, name, t->dtype, &t->shape, (int)axis);
}

/* ------------------------------------------------------------------------- */
/* Value names -> (node, port) of an imported graph                            */
/* ------------------------------------------------------------------------- */

struct fl_onnx_values {
    fl_arena *a;
    struct vslot {
        const char *name; /* NULL: empty */
        const fl_node *node;
        int port;
    } * slots;
    size_t mask;
};

/* The slot of `name`, or the empty slot ending its probe chain. */
static struct vslot *vslot_of(const fl_onnx_values *v, const char *name) {
    size_t j = (size_t)fl__hash_str(name) & v->mask;
    while (v->slots[j].name && strcmp(v->slots[j].name, name) != 0) {
        j = (j + 1) & v->mask;
    }
    return &v->slots[j];
}

/* Defines `name` as (o, port) unless defined already (the first wins, as
 * the graph's node order has it). */
static void vput(fl_onnx_values *v, const char *name, const fl_node *o, int port) {
    if (!name || !*name) {
        return;
    }
    struct vslot *sl = vslot_of(v, name);
    if (!sl->name) {
        sl->name = name;
        sl->node = o;
        sl->port = port;
    }
}

/* The value names node o defines: a graph input's or an initializer's
 * name, else its NodeProto's outputs, into *out; how many. */
static size_t node_values(const fl_node *o, const char *const **out, const char **one) {
    if (!o->src || o->kind == FL_OP_ONNX_ABSENT) {
        return 0;
    }
    if (o->kind == FL_OP_PLACEHOLDER) {
        *one = ((const Onnx__ValueInfoProto *)o->src)->name;
        *out = one;
        return 1;
    }
    if (o->kind == FL_OP_CONST && strcmp(o->op, "Const") == 0) {
        *one = ((const Onnx__TensorProto *)o->src)->name;
        *out = one;
        return 1;
    }
    const Onnx__NodeProto *np = o->src;
    *out = (const char *const *)np->output;
    return np->n_output < (size_t)o->n_outputs ? np->n_output : (size_t)o->n_outputs;
}

fl_onnx_values *fl__onnx_values_new(const fl_graph *g, fl_diag *d) {
    size_t count = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const char *const *nm;
        const char *one;
        count += node_values(g->nodes[i], &nm, &one);
    }
    size_t size = 16;
    while (size < 2 * count + 2) {
        size *= 2;
    }
    fl_onnx_values *v = fl__arena_scratch(g->arena, 1, sizeof *v);
    struct vslot *slots = v ? fl__arena_scratch(g->arena, size, sizeof *slots) : NULL;
    if (!slots) {
        fl__arena_scratch_free(g->arena, v);
        fl__diag_oom(d);
        return NULL;
    }
    v->a = g->arena;
    v->slots = slots;
    v->mask = size - 1;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const char *const *nm;
        const char *one;
        size_t k = node_values(g->nodes[i], &nm, &one);
        for (size_t j = 0; j < k; j++) {
            vput(v, nm[j], g->nodes[i], (int)j);
        }
    }
    return v;
}

void fl__onnx_values_free(fl_onnx_values *v) {
    if (v) {
        fl_arena *a = v->a;
        fl__arena_scratch_free(a, v->slots);
        fl__arena_scratch_free(a, v);
    }
}

bool fl__onnx_values_find(const fl_onnx_values *v, const char *name, const fl_node **node,
                          int *port) {
    const struct vslot *sl = name ? vslot_of(v, name) : NULL;
    if (!sl || !sl->name) {
        return false;
    }
    *node = sl->node;
    *port = sl->port;
    return true;
}

/* The outer value `name`: an initializer or a Constant's tensor (into
 * *init), else a graph input typed from the outer tensor (into *in); false
 * when g does not define it. */
static bool outer_value(scratch *sc, const fl_onnx_values *vals, const char *name,
                        Onnx__TensorProto **init, Onnx__ValueInfoProto **in) {
    const fl_node *o;
    int k;
    if (!fl__onnx_values_find(vals, name, &o, &k)) {
        return false;
    }
    if (o->kind == FL_OP_CONST && strcmp(o->op, "Const") == 0) {
        *init = (Onnx__TensorProto *)o->src;
        return true;
    }
    if (o->kind == FL_OP_CONST) {
        const Onnx__NodeProto *np = o->src;
        for (size_t a = 0; a < np->n_attribute; a++) {
            if (np->attribute[a]->t && np->attribute[a]->name &&
                strcmp(np->attribute[a]->name, "value") == 0) {
                Onnx__TensorProto *copy = sc_alloc(sc, sizeof *copy);
                if (copy) {
                    *copy = *np->attribute[a]->t;
                    copy->name = (char *)name;
                    *init = copy;
                }
                return true;
            }
        }
    }
    int dt;
    fl_shape elem;
    if (fl_dtype_base(o->outputs[k].dtype) == FL_DT_VARIANT && sc->seqs &&
        sc->seqs->describe(sc->seqs->ctx, o, k, &dt, &elem)) {
        *in = seq_value_info(sc, name, dt, &elem);
        return true;
    }
    *in = value_info(sc, name, o->outputs[k].dtype, &o->outputs[k].shape, -1);
    return true;
}

/* Body `which` of n (the which-th graph attr) as a model. */
static fl_status build_body(scratch *sc, const fl_graph *g, const fl_onnx_values *vals,
                            const fl_node *n, const Onnx__GraphProto *gp, Onnx__ModelProto *mp,
                            fl_diag *d) {
    const Onnx__ModelProto *outer = g->onnx.model;
    names def = {sc->a, NULL, 0, 0, NULL}, use = {sc->a, NULL, 0, 0, NULL};
    bool ok = scan_graph(gp, &def, &use, 0);
    Onnx__GraphProto *sg = sc_alloc(sc, sizeof *sg);
    size_t cap_in = gp->n_input + use.n + 1, cap_init = gp->n_initializer + use.n + 1;
    Onnx__ValueInfoProto **ins = sc_alloc(sc, cap_in * sizeof(*ins));
    Onnx__TensorProto **inits = sc_alloc(sc, cap_init * sizeof(*inits));
    if (!ok || !sg || !ins || !inits) {
        names_free(&def);
        names_free(&use);
        return fl__diag_oom(d);
    }
    onnx__graph_proto__init(sg);
    sg->name = "body";
    sg->n_node = gp->n_node;
    sg->node = gp->node;
    sg->n_output = gp->n_output;
    sg->output = gp->output;
    sg->input = ins;
    sg->initializer = inits;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        inits[sg->n_initializer++] = gp->initializer[i];
    }
    fl_status st = FL_OK;
    for (size_t i = 0; i < gp->n_input && st == FL_OK; i++) {
        Onnx__ValueInfoProto *vi = body_input(sc, g, n, gp->input[i], i);
        if (!vi) {
            st = sc->oom ? fl__diag_oom(d)
                         : fl__node_fail(d, FL_EINVAL, n,
                                         "body input %zu ('%s') has no matching input of the node",
                                         i, gp->input[i]->name ? gp->input[i]->name : "");
        } else {
            ins[sg->n_input++] = vi;
        }
    }
    for (size_t i = 0; i < use.n && st == FL_OK; i++) {
        if (has_name(&def, use.v[i])) {
            continue;
        }
        Onnx__TensorProto *t = NULL;
        Onnx__ValueInfoProto *vi = NULL;
        if (!outer_value(sc, vals, use.v[i], &t, &vi)) {
            st = fl__node_fail(d, FL_EINVAL, n, "the body reads '%s', which no scope defines",
                               use.v[i]);
        } else if (t) {
            inits[sg->n_initializer++] = t;
        } else if (vi) {
            ins[sg->n_input++] = vi;
        } else {
            st = fl__diag_oom(d);
        }
    }
    names_free(&def);
    names_free(&use);
    onnx__model_proto__init(mp);
    mp->has_ir_version = outer->has_ir_version;
    mp->ir_version = outer->ir_version;
    mp->n_opset_import = outer->n_opset_import;
    mp->opset_import = outer->opset_import;
    mp->graph = sg;
    return st;
}

fl_status fl__onnx_body_model(const fl_graph *g, const fl_onnx_values *vals, const fl_node *n,
                              int which, const char **attr, uint8_t **buf, size_t *len,
                              fl_onnx_body_dims *dims, const fl_onnx_outer_seq *seqs, fl_diag *d) {
    *buf = NULL;
    *len = 0;
    const Onnx__NodeProto *np = n->src;
    if (!g->onnx.is_onnx || !g->onnx.model || !np) {
        return FL_ENOTFOUND;
    }
    /* If's branches by name, then_branch first, in whatever order the file
     * lists them (onnx.helper and exporters often write else_branch first);
     * any other node's graph attrs in the file's order. */
    const char *want = n->kind != FL_OP_ONNX_IF ? NULL : which == 0 ? "then_branch" : "else_branch";
    if (n->kind == FL_OP_ONNX_IF && which > 1) {
        return FL_ENOTFOUND;
    }
    const Onnx__GraphProto *gp = NULL;
    int seen = 0;
    for (size_t a = 0; a < np->n_attribute && !gp; a++) {
        const Onnx__AttributeProto *ap = np->attribute[a];
        if (ap->g && (want ? ap->name && strcmp(ap->name, want) == 0 : seen++ == which)) {
            gp = ap->g;
            *attr = ap->name ? ap->name : "";
        }
    }
    if (!gp) {
        return FL_ENOTFOUND;
    }
    scratch sc = {g->arena, NULL, 0, 0, false, dims, seqs};
    Onnx__ModelProto mp;
    fl_status st = build_body(&sc, g, vals, n, gp, &mp, d);
    if (st == FL_OK && sc.oom) {
        st = fl__diag_oom(d);
    }
    if (st == FL_OK) {
        size_t size = onnx__model_proto__get_packed_size(&mp);
        *buf = fl__arena_scratch(g->arena, size ? size : 1, 1);
        if (!*buf) {
            st = fl__diag_oom(d);
        } else {
            *len = onnx__model_proto__pack(&mp, *buf);
        }
    }
    sc_free(&sc);
    return st;
}
