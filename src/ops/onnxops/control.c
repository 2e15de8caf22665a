/*
 * control.c - ai.onnx control flow: If, Loop, Scan. The outputs are typed
 * from the analysed bodies (attr _body_out, src/shape/bodies.c: dims in the
 * outer graph's symbols, unknown where the body has only its own), each dim
 * the analysis leaves unknown from the bodies' declared output types, which
 * the importer keeps as attrs BODY (shapes, -1 for a dim without value),
 * BODY.types (dtypes) and BODY.cond_kept (src/import/onnx.c). A
 * loop-carried value takes an analysed dim only where it equals the
 * initial value's (the body keeps it from one iteration to the next), and
 * scan outputs take the analysed per-iteration types only when every
 * loop-carried value keeps its type; else the declared dims.
 *
 * Shapes:
 *   If    the branch chosen by a known cond; else both branches' declared
 *         outputs merged: equal dims stay, differing or undeclared dims are
 *         unknown, differing ranks give an unknown rank
 *   Loop  final loop-carried values: the body's declared output where it
 *         gives a dim, else the initial value's dim (ranks must agree, else
 *         the declared shape); scan outputs: [trips, declared dims...] with
 *         trips = M (as counted below) when the loop cannot stop early (no
 *         cond input, or a known true cond that the body passes on
 *         unchanged), else unknown
 *   Scan  (opset 9+) final states as Loop's; scan output j: the body's
 *         output with the sequence length (scan input 0's dim along
 *         scan_input_axes[0]) inserted at scan_output_axes[j]. A negative
 *         axis counts from the back: of the scan input's rank, and of the
 *         scan output's (the body output's + 1); an axis out of range
 *         fails. (opset 8) every tensor has a leading batch dim: states
 *         [batch, ...], scan outputs [batch, seq, ...]
 *
 * FLOP rules: the bodies' work, analysed as stand-alone graphs by
 * src/shape/bodies.c (outer-scope values visible) and kept as attr
 * _body_cost; the op itself adds nothing:
 *   If    the branch chosen by a known cond; else then_branch +
 *         else_branch: an upper bound (one branch runs), with a warning
 *         giving each branch's counts
 *   Loop  body x M when M (input 0) has a value, known or symbolic (a size
 *         computed from shapes), or is an integer scalar graph input (then
 *         the symbol named after it, which a symbol binding of that name
 *         sets); an upper bound when the body's condition ends the loop
 *         earlier; else body x 1 with a warning that the trip count is
 *         unknown, and the node incomplete (fl_cost.trips_unknown: its one
 *         trip is in the totals, a lower bound; the answer is partial)
 *   Scan  body x the sequence length (the first scan input's dim along its
 *         scan axis, symbolic when the dim is), x 1 with a warning when
 *         unknown, incomplete as Loop (opset 8's batched Scan is not
 *         analysed: 0)
 * A body whose counts are a lower bound (a loop in it with an unknown trip
 * count) makes the node incomplete in the same way.
 * Counts in the outer graph's symbols stay symbolic. A body whose counts
 * are not known (numbers or such formulas) makes FLOPs, MACs, int_ops and
 * bytes unknown (the node is incomplete, with a warning saying why);
 * without the attr (the bodies were not analysed) they are 0. Bytes: the
 * node's own inputs and outputs (src/cost) plus the bodies' bytes read and
 * written, times the same count as the FLOPs.
 */
#include "ops/core/core.h"
#include "ops/onnxops/util.h"

#include <stdio.h>
#include <string.h>

typedef struct body {
    const fl_shape_lit *shapes;
    const int *types;
    size_t n;
    bool cond_kept;
    const fl_sym *out; /* the analysed outputs (attr _body_out), NULL: none */
    size_t n_out;
} body;

/* The symbolic integers of tensor attr `name` (src/shape/bodies.c keeps the
 * bodies' outputs and counts so); NULL when absent. */
static const fl_sym *sym_attr(const fl_node *n, const char *name, size_t *len) {
    const fl_attr *a = fl__node_attr(n, name);
    if (!a || a->kind != FL_ATTR_TENSOR || !a->v.tensor || !a->v.tensor->value ||
        !a->v.tensor->value->ints || a->v.tensor->value->n < 1) {
        return NULL;
    }
    *len = (size_t)a->v.tensor->value->n;
    return a->v.tensor->value->ints;
}

/* Finds body `which`'s analysed outputs in attr _body_out: [bodies, then per
 * body: outputs, then per output: dtype, rank, dims...]. */
static void analysed_outputs(const fl_node *n, int which, body *b) {
    size_t len = 0, at = 1;
    const fl_sym *v = sym_attr(n, "_body_out", &len);
    b->out = NULL;
    b->n_out = 0;
    if (!v || which >= v[0].k) {
        return;
    }
    for (int w = 0; at < len; w++) {
        size_t count = (size_t)v[at].k, start = ++at;
        for (size_t i = 0; i < count && at + 1 < len; i++) {
            at += 2 + (size_t)(v[at + 1].k > 0 ? v[at + 1].k : 0);
        }
        if (at > len) {
            return;
        }
        if (w == which) {
            b->out = v + start;
            b->n_out = count;
            return;
        }
    }
}

/* Output i of the analysed body: its dtype, rank and dims; false when the
 * body was not analysed or has no such output. */
static bool analysed(const body *b, size_t i, int *dt, int *rank, const fl_sym **dims) {
    if (!b->out || i >= b->n_out) {
        return false;
    }
    const fl_sym *p = b->out;
    for (size_t j = 0; j < i; j++) {
        p += 2 + (p[1].k > 0 ? p[1].k : 0);
    }
    *dt = (int)p[0].k;
    *rank = (int)p[1].k;
    *dims = p + 2;
    return true;
}

static fl_status get_body(fl_ctx *c, const fl_node *n, const char *name, body *b) {
    char tn[64], kn[64];
    snprintf(tn, sizeof tn, "%s.types", name);
    snprintf(kn, sizeof kn, "%s.cond_kept", name);
    const fl_attr *s = fl__node_attr(n, name), *t = fl__node_attr(n, tn);
    if (!s || !t || s->kind != FL_ATTR_LIST || t->kind != FL_ATTR_LIST || s->n != t->n) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' (a graph) is missing", name);
    }
    int64_t kept = 0;
    fl_status st = fl__attr_int_or(n, kn, 0, &kept, c->d);
    b->shapes = s->v.list.shape;
    b->types = t->v.list.type;
    b->n = s->n;
    b->cond_kept = kept != 0;
    analysed_outputs(n, strcmp(name, "else_branch") == 0 ? 1 : 0, b);
    return st;
}

/* Body output i's type: the analysed body's dims where they are not
 * unknown, else the declared ones; rank -1 when neither gives one. With
 * `init` (a loop-carried value's initial type), an analysed dim counts only
 * where it equals init's (the value keeps it from one iteration to the
 * next); where it differs, the declared dim, else unknown; where neither
 * the analysis nor the declaration gives one, init's dim (as when the body
 * is not analysed). */
static int body_type(const body *b, size_t i, const fl_tensor *init, int *dt, fl_sym *d) {
    const fl_shape_lit *s = i < b->n ? &b->shapes[i] : NULL;
    int adt = FL_DT_INVALID, ar = -1;
    const fl_sym *ad = NULL;
    bool have = analysed(b, i, &adt, &ar, &ad) && ar <= 250;
    if (have && init && init->shape.rank >= 0 && ar >= 0 && ar != init->shape.rank) {
        have = false; /* the rank changes from one iteration to the next */
    }
    *dt = s && b->types[i] != FL_DT_INVALID ? b->types[i] : adt;
    int r = have && ar >= 0 ? ar : s ? s->rank : -1;
    if (r > 250) {
        return -1;
    }
    bool decl = s && s->rank == r, fill = init && init->shape.rank == r;
    for (int k = 0; k < r; k++) {
        fl_sym dk = decl && s->dims[k] >= 0 ? fl_sym_const(s->dims[k]) : fl_sym_unknown();
        fl_sym a = have && ar == r ? ad[k] : fl_sym_unknown();
        if (!fl_sym_is_unknown(a) && (!fill || fl__sym_eq(a, init->shape.dims[k]))) {
            d[k] = a;
        } else if (!fl_sym_is_unknown(dk) || !fill || !fl_sym_is_unknown(a)) {
            d[k] = dk;
        } else {
            d[k] = init->shape.dims[k];
        }
    }
    return r;
}

/* Output port := body output i's declared type, with unknown dims taken
 * from `init` (a same-rank initial value) when given. */
static fl_status set_declared(fl_ctx *c, fl_node *n, int port, const body *b, size_t i,
                              const fl_tensor *init) {
    if (i >= b->n) {
        return fl__node_fail(c->d, FL_EINVAL, n, "the body has %zu outputs, output %d needs more",
                             b->n, port);
    }
    fl_sym d[256];
    int dt;
    int r = body_type(b, i, init, &dt, d);
    if (dt == FL_DT_INVALID && init) {
        dt = init->dtype;
    }
    if (r < 0) {
        return init ? fl__op_set_output(c, n, port, dt, init->shape.rank, init->shape.dims)
                    : fl__op_set_output(c, n, port, dt, -1, NULL);
    }
    return fl__op_set_output(c, n, port, dt, r, d);
}

static fl_status infer_if(fl_ctx *c, fl_node *n) {
    body t, e;
    fl_status st = get_body(c, n, "then_branch", &t);
    if (st == FL_OK) {
        st = get_body(c, n, "else_branch", &e);
    }
    if (st != FL_OK) {
        return st;
    }
    bool cond;
    if (fl__ox_known_bool(n, 0, &cond)) {
        for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
            st = set_declared(c, n, k, cond ? &t : &e, (size_t)k, NULL);
        }
        return st;
    }
    for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
        if ((size_t)k >= t.n || (size_t)k >= e.n) {
            return fl__node_fail(c->d, FL_EINVAL, n, "a branch has fewer than %d outputs", k + 1);
        }
        fl_sym a[256], b[256];
        int dta, dtb;
        int ra = body_type(&t, (size_t)k, NULL, &dta, a),
            rb = body_type(&e, (size_t)k, NULL, &dtb, b);
        int dt = dta != FL_DT_INVALID ? dta : dtb;
        if (ra < 0 || ra != rb) {
            st = fl__op_set_output(c, n, k, dt, -1, NULL);
            continue;
        }
        for (int i = 0; i < ra; i++) {
            a[i] = fl__sym_eq(a[i], b[i]) ? a[i] : fl_sym_unknown();
        }
        st = fl__op_set_output(c, n, k, dt, ra, a);
    }
    return st;
}

/* Inserts `len` at `axis` of body output i's declared shape, an axis of
 * the result (rank + 1 dims; negative from the back); with `batch` (opset
 * 8's Scan) `lead` goes first, before them. */
static fl_status set_scanned(fl_ctx *c, fl_node *n, int port, const body *b, size_t i, bool batch,
                             fl_sym lead, fl_sym len, int64_t axis) {
    if (i >= b->n) {
        return fl__node_fail(c->d, FL_EINVAL, n, "the body has %zu outputs, output %d needs more",
                             b->n, port);
    }
    fl_sym e[256];
    int dt;
    int rank = body_type(b, i, NULL, &dt, e);
    if (rank < 0 || rank > 250) {
        return fl__op_set_output(c, n, port, dt, -1, NULL);
    }
    int r = rank + 1 + (batch ? 1 : 0), off = batch ? 1 : 0;
    if (axis < -(rank + 1) || axis > rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'scan_output_axes' %lld is out of range for rank %d (output %d)",
                             (long long)axis, rank + 1, port);
    }
    int64_t ax = axis < 0 ? axis + rank + 1 : axis;
    fl_sym d[256];
    if (batch) {
        d[0] = lead;
    }
    for (int k = 0, j = 0; k < rank + 1; k++) {
        if (k == ax) {
            d[off + k] = len;
            continue;
        }
        d[off + k] = e[j++];
    }
    return fl__op_set_output(c, n, port, dt, r, d);
}

/* Loop's M (input 0) as a count: its value, known or symbolic, or the
 * symbol named after the integer scalar graph input it is
 * (fl__count_value); unknown when absent, negative or otherwise. */
static fl_status loop_m(fl_ctx *c, const fl_node *n, fl_sym *m) {
    *m = fl_sym_unknown();
    fl_status st = n->n_inputs > 0 && !fl__ox_absent(n, 0) ? fl__count_value(c, n, 0, m) : FL_OK;
    if (fl_sym_is_known(*m) && m->k < 0) {
        *m = fl_sym_unknown();
    }
    return st;
}

/* Whether the analysed body keeps the types of the `count` loop-carried
 * values (node inputs from first_in, body outputs from first_out): then
 * every iteration is the analysed one, and its scan outputs' types hold
 * for all; otherwise they come from the declarations only. */
static bool invariant(const fl_node *n, const body *b, int first_in, size_t first_out, int count) {
    for (int j = 0; j < count; j++) {
        int dt, r;
        const fl_sym *d;
        const fl_shape *s = &fl_node_in(n, first_in + j)->shape;
        if (!analysed(b, first_out + (size_t)j, &dt, &r, &d)) {
            continue;
        }
        if (r != s->rank) {
            return false;
        }
        for (int k = 0; k < r; k++) {
            if (!fl__sym_eq(d[k], s->dims[k])) {
                return false;
            }
        }
    }
    return true;
}

static fl_status infer_loop(fl_ctx *c, fl_node *n) {
    body b;
    fl_status st = get_body(c, n, "body", &b);
    if (st != FL_OK) {
        return st;
    }
    int carried = n->n_inputs - 2;
    if (carried < 0 || n->n_outputs < carried) {
        return fl__node_fail(c->d, FL_EINVAL, n, "has %d inputs and %d outputs", n->n_inputs,
                             n->n_outputs);
    }
    for (int k = 0; k < carried && st == FL_OK; k++) {
        st = set_declared(c, n, k, &b, (size_t)(1 + k), fl_node_in(n, 2 + k));
    }
    fl_sym trips = fl_sym_unknown();
    bool cond = true;
    bool runs_m = fl__ox_absent(n, 1) || (fl__ox_known_bool(n, 1, &cond) && cond && b.cond_kept);
    if (runs_m && (st = loop_m(c, n, &trips)) != FL_OK) {
        return st;
    }
    if (!invariant(n, &b, 2, 1, carried)) {
        b.out = NULL;
    }
    for (int k = carried; k < n->n_outputs && st == FL_OK; k++) {
        st = set_scanned(c, n, k, &b, (size_t)(1 + k), false, fl_sym_unknown(), trips, 0);
    }
    return st;
}

static fl_status infer_scan(fl_ctx *c, fl_node *n) {
    body b;
    int64_t nscan;
    fl_status st = get_body(c, n, "body", &b);
    if (st == FL_OK) {
        st = fl__attr_need_int(n, "num_scan_inputs", &nscan, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    bool v8 = c->g->producer > 0 && c->g->producer < 9; /* opset 8: sequence_lens first */
    int first = v8 ? 1 : 0;
    /* nscan is checked against the input count before it is narrowed to int */
    int states = nscan < 1 || nscan > n->n_inputs - first ? -1 : n->n_inputs - first - (int)nscan;
    if (states < 0 || n->n_outputs < states) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'num_scan_inputs' %lld does not fit %d inputs", (long long)nscan,
                             n->n_inputs);
    }
    const fl_shape *s0 = &fl_node_in(n, first + states)->shape;
    const int64_t *in_axes = NULL, *out_axes = NULL;
    size_t nia = 0, noa = 0;
    if (fl__attr_get_ints(n, "scan_input_axes", &in_axes, &nia, c->d) == FL_EINVAL ||
        fl__attr_get_ints(n, "scan_output_axes", &out_axes, &noa, c->d) == FL_EINVAL) {
        return c->d->status;
    }
    /* Scan input j's axis, negative from the back of its rank. */
    int ax = v8 ? 1 : 0;
    for (size_t j = 0; !v8 && j < nia && j < (size_t)nscan; j++) {
        int r = fl_node_in(n, first + states + (int)j)->shape.rank, a = 0;
        if (r >= 0 && fl__ox_norm_axis(c, n, in_axes[j], r, "attr 'scan_input_axes'", &a)) {
            return c->d->status;
        }
        ax = j == 0 ? a : ax;
    }
    fl_sym len = s0->rank > ax && ax >= 0 ? s0->dims[ax] : fl_sym_unknown();
    fl_sym lead = v8 && s0->rank > 0 ? s0->dims[0] : fl_sym_unknown();
    for (int k = 0; k < states && st == FL_OK; k++) {
        st = v8 ? set_scanned(c, n, k, &b, (size_t)k, false, fl_sym_unknown(), lead, 0)
                : set_declared(c, n, k, &b, (size_t)k, fl_node_in(n, first + k));
    }
    if (v8 || !invariant(n, &b, first, 0, states)) {
        b.out = NULL;
    }
    for (int k = states; k < n->n_outputs && st == FL_OK; k++) {
        size_t j = (size_t)(k - states);
        st = set_scanned(c, n, k, &b, (size_t)k, v8, lead, len, !v8 && j < noa ? out_axes[j] : 0);
    }
    return st;
}

/* The times the body runs, as the header states: If 1 (the branches are
 * summed), Loop M (loop_m), Scan the sequence length; 1 when unknown
 * (*unknown set). */
static fl_sym trips(fl_ctx *c, const fl_node *n, bool *unknown) {
    *unknown = n->kind == FL_OP_ONNX_LOOP || n->kind == FL_OP_ONNX_SCAN;
    if (n->kind == FL_OP_ONNX_LOOP) {
        fl_sym m;
        if (loop_m(c, n, &m) != FL_OK || fl_sym_is_unknown(m)) {
            return fl_sym_const(1);
        }
        *unknown = false;
        return m;
    }
    if (n->kind != FL_OP_ONNX_SCAN) {
        return fl_sym_const(1);
    }
    int64_t k = 0, axis = 0;
    const fl_attr *ns = fl__node_attr(n, "num_scan_inputs");
    const fl_attr *ax = fl__node_attr(n, "scan_input_axes");
    k = ns && ns->kind == FL_ATTR_I ? ns->v.i : 0;
    if (ax && ax->kind == FL_ATTR_LIST && ax->list_kind == FL_ATTR_I && ax->n) {
        axis = ax->v.list.i[0];
    }
    if (k <= 0 || k > n->n_inputs) {
        return fl_sym_const(1);
    }
    int first = n->n_inputs - (int)k;
    const fl_shape *s = &fl_node_in(n, first)->shape;
    if (s->rank > 0 && axis < 0) {
        axis += s->rank;
    }
    if (s->rank <= 0 || axis < 0 || axis >= s->rank || fl_sym_is_unknown(s->dims[axis])) {
        return fl_sym_const(1);
    }
    *unknown = false;
    return s->dims[axis];
}

/* Attr _body_cost (src/shape/bodies.c): [bodies, then per body: known,
 * FLOPs, MACs, int_ops, nodes, bytes read, bytes written]; known 2: the
 * counts are a lower bound (a loop inside with an unknown trip count). */
#define BODY_FIELDS 7

static fl_status cost_flow(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl_sym_const(0), m = f, io = f, rd = f, wr = f;
    size_t len = 0;
    const fl_sym *v = sym_attr(n, "_body_cost", &len);
    /* an If whose cond is known: only the branch that runs (0 then_branch,
     * src/import/onnx_body.c's order) */
    bool cond;
    int64_t only = n->kind == FL_OP_ONNX_IF && fl__ox_known_bool(n, 0, &cond) ? !cond : -1;
    if (v && len == (size_t)(1 + BODY_FIELDS * v[0].k)) {
        for (int64_t b = 0; b < v[0].k; b++) {
            const fl_sym *e = &v[1 + BODY_FIELDS * b];
            if (only >= 0 && b != only) {
                continue;
            }
            if (!e[0].k) {
                f = m = io = rd = wr = fl_sym_unknown();
                break;
            }
            out->trips_unknown = out->trips_unknown || e[0].k == 2;
            f = fl__ar_add(&k, f, e[1]);
            m = fl__ar_add(&k, m, e[2]);
            io = fl__ar_add(&k, io, e[3]);
            rd = fl__ar_add(&k, rd, e[5]);
            wr = fl__ar_add(&k, wr, e[6]);
        }
        bool unknown = false;
        fl_sym t = trips(c, n, &unknown);
        out->trips_unknown = out->trips_unknown || unknown;
        f = fl__ar_mul(&k, f, t);
        m = fl__ar_mul(&k, m, t);
        io = fl__ar_mul(&k, io, t);
        out->bytes_read = fl__ar_mul(&k, rd, t);
        out->bytes_written = fl__ar_mul(&k, wr, t);
    }
    return fl__ar_put_int_cost(&k, out, f, m, io);
}

static int count_given(const fl_node *n, fl_diag *d) {
    (void)d;
    return n->n_outputs > 0 ? n->n_outputs : -1; /* the file's output list decides */
}

#define HOOKS_onnx_if   .count_outputs = count_given, .infer = infer_if, .cost = cost_flow
#define HOOKS_onnx_loop .count_outputs = count_given, .infer = infer_loop, .cost = cost_flow
#define HOOKS_onnx_scan .count_outputs = count_given, .infer = infer_scan, .cost = cost_flow

#define FL_OP FL_OP_DESC
#include "ops/onnxops/control.def"
#undef FL_OP
