/*
 * cost.c - per-node costs and totals; see cost.h for the byte rule.
 */
#include "cost/cost.h"

#include "ops/common.h"
#include "ops/core/core.h"
#include "util/reserved.h"

#include <stdio.h>
#include <string.h>

/* Elements per byte of a sub-byte dtype as ONNX and TFLite store it (packed:
 * int4/uint4/float4_e2m1fn two per byte, int2/uint2 four); 1 otherwise, and
 * for TensorFlow graphs, whose int4 tensors hold one element per byte. */
static int64_t packed_per_byte(const fl_ctx *c, const fl_node *n, int dt) {
    dt = fl_dtype_base(dt);
    int64_t per = dt == FL_DT_INT4 || dt == FL_DT_UINT4 || dt == FL_DT_FLOAT4_E2M1FN ? 2
                  : dt == FL_DT_INT2 || dt == FL_DT_UINT2                            ? 4
                                                                                     : 1;
    return per == 1 || c->g->onnx.is_onnx || strncmp(n->op, "tflite::", 8) == 0 ? per : 1;
}

/* Size in bytes of a tensor, unknown when its shape or dtype is; sub-byte
 * elements at their packed width, ceil(E / per byte). */
static fl_status tensor_bytes(fl_ctx *c, const fl_node *n, const fl_tensor *t, fl_sym *out) {
    if (t->dtype == FL_DT_INVALID) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    int64_t per = packed_per_byte(c, n, t->dtype);
    if (per == 1) {
        return fl__op_num_elements_times(c, n, &t->shape, (int64_t)fl__dtype_size(t->dtype), out);
    }
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, &t->shape, &e);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_ceildiv(c, n, e, fl_sym_const(per), out);
}

/* A tensor's bytes as k * sym (sym 1 when it has no symbolic dim) with k an
 * integer, in the case fl__op_num_elements_times multiplies as integers:
 * a known dtype of whole bytes, known dims >= 1, at most one symbolic dim.
 * False otherwise (and on an integer overflow). */
static bool plain_bytes(const fl_ctx *c, const fl_node *n, const fl_tensor *t, int64_t *k,
                        fl_sym *sym) {
    if (t->dtype == FL_DT_INVALID || t->shape.rank < 0 || packed_per_byte(c, n, t->dtype) != 1) {
        return false;
    }
    int64_t p = (int64_t)fl__dtype_size(t->dtype);
    *sym = fl_sym_const(1);
    for (int i = 0; i < t->shape.rank && p >= 1; i++) {
        fl_sym d = t->shape.dims[i];
        if (fl_sym_is_known(d)) {
            p = d.k >= 1 && !__builtin_mul_overflow(p, d.k, &p) ? p : 0;
        } else if (fl_sym_is_known(*sym) && !fl_sym_is_unknown(d)) {
            *sym = d;
        } else {
            p = 0;
        }
    }
    *k = p;
    return p >= 1;
}

/* *acc plus the bytes of n's inputs (from 0) or outputs (from 1), all
 * plain_bytes tensors with the same symbolic dim, if any, and *acc a known
 * count >= 0: the integers are summed and the symbolic part multiplied
 * once. The same value as adding each tensor's bytes in turn, which then
 * does not overflow either: every coefficient of those partial sums lies
 * between the sum of its negative parts and that of its positive parts,
 * both computed here without overflow. False (and *acc unchanged) when the
 * case does not hold or a step overflows: the caller adds tensor by tensor. */
static bool sum_plain_bytes(fl_ctx *c, const fl_node *n, bool outputs, fl_sym *acc) {
    if (!fl_sym_is_known(*acc) || acc->k < 0) {
        return false;
    }
    int64_t known = acc->k, per_sym = 0, k;
    fl_sym sym = fl_sym_const(1), s;
    int cnt = outputs ? n->n_outputs : n->n_inputs;
    for (int i = 0; i < cnt; i++) {
        if (!plain_bytes(c, n, outputs ? &n->outputs[i] : fl_node_in(n, i), &k, &s)) {
            return false;
        }
        if (fl_sym_is_known(s)) {
            if (__builtin_add_overflow(known, k, &known)) {
                return false;
            }
        } else if ((fl_sym_is_known(sym) || sym.e == s.e) &&
                   !__builtin_add_overflow(per_sym, k, &per_sym)) {
            sym = s;
        } else {
            return false;
        }
    }
    fl_sym r = fl_sym_const(known), part;
    if (per_sym && (fl__sym_mul(c->st, sym, fl_sym_const(per_sym), &part) != FL_OK ||
                    (known ? fl__sym_add(c->st, part, r, &r) : (r = part, FL_OK)) != FL_OK)) {
        return false;
    }
    *acc = r;
    return true;
}

static fl_status node_bytes(fl_ctx *c, fl_node *n, fl_cost *kc) {
    uint64_t fl = n->desc ? n->desc->flags : 0;
    fl_sym rd = kc->bytes_read, wr = kc->bytes_written, b; /* the hook's, 0 for most */
    fl_status st;
    if (!(fl & (FL_OPF_NO_BYTES | FL_OPF_ALIAS)) && !kc->per_load) {
        if (!(fl & FL_OPF_META) && !sum_plain_bytes(c, n, false, &rd)) {
            for (int i = 0; i < n->n_inputs; i++) {
                if ((st = tensor_bytes(c, n, fl_node_in(n, i), &b)) != FL_OK ||
                    (st = fl__op_add(c, n, rd, b, &rd)) != FL_OK) {
                    return st;
                }
            }
        }
        int outs = sum_plain_bytes(c, n, true, &wr) ? 0 : n->n_outputs;
        for (int k = 0; k < outs; k++) {
            if ((st = tensor_bytes(c, n, &n->outputs[k], &b)) != FL_OK ||
                (st = fl__op_add(c, n, wr, b, &wr)) != FL_OK) {
                return st;
            }
        }
    }
    kc->bytes_read = rd;
    kc->bytes_written = wr;
    if (fl_sym_is_unknown(rd) || fl_sym_is_unknown(wr)) {
        kc->incomplete = true;
    }
    return FL_OK;
}

static bool incomplete_sym(fl_sym s) {
    return fl_sym_is_unknown(s);
}

/* How often nodes run per inference, when not once. One mechanism for the
 * loops whose bodies are nodes of the graph: a TFLite WHILE's body and cond
 * nodes carry attr _repeat (FL_NODE_REPEATED, src/import/tflite_loop.c); a
 * TensorFlow While W lowered at import (src/import/tf_loop.c: the node
 * "W/while", attr _loop "W") carries _body_trips and _cond_trips, which
 * count every node named after its inlined body ("W/body/...") or cond
 * ("W/cond/..."), so nodes the passes make there (named after a node they
 * replace) count as often. Nested loops multiply.
 *
 * A While whose limit the import could not read (attr _trip_form,
 * src/util/reserved.h: `i CMP limit` from a constant start by a constant
 * step, the limit the value of one of the While's inputs) is counted from
 * that input's inferred value (fl__count_value): a known value gives the
 * exact count, a symbolic one (a size computed from shapes, or the symbol
 * named after an integer scalar graph input) the count as a formula,
 *   i < L by s > 0: ceil((L - start) / s)    i <= L: floor((L - start) / s) + 1
 *   i > L by s < 0: ceil((start - L) / -s)   i >= L: floor((start - L) / -s) + 1
 *   i != L: (L - start) / s when that divides exactly,
 * the cond once more. A TFLite WHILE (or STABLEHLO_WHILE) with _trip_form is
 * counted alike; the nodes of its body and cond subgraphs name it in attr
 * _trip_loops (with _trip_plus 1 for the cond's extra run; a node inside
 * nested such loops names each, outermost first), on top of their integer
 * _repeat. A known count below 0 is 0 (the loop does not run); a
 * symbolic one assumes the loop runs (L at or past start in the step's
 * direction: a binding gives the exact count either way). A step away from
 * the limit, or a limit with no such value, leaves the loop counted once
 * (fl__cost_loop_warnings says which), and its loop node incomplete as any
 * loop whose trip count is unknown (loop_trips_unknown): its one trip stays
 * in the totals, which are then a lower bound, and the answer is partial. */
typedef struct repeats {
    size_t n;
    const char **prefix;
    size_t *len;
    fl_sym *times;
    size_t n_tfl; /* TFLite WHILEs with _trip_form: name, body trips */
    const char **tfl_name;
    fl_sym *tfl_trips;
} repeats;

static bool is_tfl_while(const fl_node *w) {
    return w->kind == FL_OP_TFL_WHILE || w->kind == FL_OP_TFL_STABLEHLO_WHILE;
}

static int64_t int_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr_rare(n, name);
    return a && a->kind == FL_ATTR_I && a->v.i >= 0 ? a->v.i : -1;
}

static bool is_while(const fl_node *w) {
    return w->kind == FL_OP_WHILE || w->kind == FL_OP_STATELESS_WHILE || is_tfl_while(w);
}

/* Attr _trip_form's {cmp, start, step, input}, NULL when w has none. */
static const int64_t *trip_form(const fl_node *w) {
    const fl_attr *a = fl__node_attr(w, "_trip_form");
    return a && a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_I && a->n == 4 &&
                   a->v.list.i[0] >= FL_TRIP_LT && a->v.list.i[0] <= FL_TRIP_NE &&
                   a->v.list.i[3] >= 0 && a->v.list.i[3] < w->n_inputs
               ? a->v.list.i
               : NULL;
}

/* The trips of form f up to limit lim (the header's rule). */
static fl_sym form_trips(fl_ctx *c, const int64_t *f, fl_sym lim) {
    int64_t cmp = f[0], start = f[1], step = f[2];
    bool up = cmp != FL_TRIP_GT && cmp != FL_TRIP_GE;
    fl_sym d, r = fl_sym_unknown();
    int64_t big = INT64_C(1) << 52;
    if (fl_sym_is_unknown(lim) || step == 0 || step < -big || step > big || start < -big ||
        start > big ||
        fl__sym_sub(c->st, up ? lim : fl_sym_const(start), up ? fl_sym_const(start) : lim, &d) !=
            FL_OK) {
        return r;
    }
    step = up ? step : -step; /* d and step now count in the loop's direction */
    if (cmp == FL_TRIP_NE) {
        bool exact = false;
        if (fl__sym_div(c->st, d, fl_sym_const(step), &r, &exact) != FL_OK || !exact ||
            (fl_sym_is_known(r) && r.k < 0)) {
            r = fl_sym_unknown();
        }
        return r;
    }
    bool incl = cmp == FL_TRIP_LE || cmp == FL_TRIP_GE;
    if (step < 0) { /* moving away: it ends only by not running */
        return fl_sym_is_known(d) && (incl ? d.k < 0 : d.k <= 0) ? fl_sym_const(0) : r;
    }
    fl_status st = incl ? fl__sym_floordiv(c->st, d, fl_sym_const(step), &r)
                        : fl__sym_ceildiv(c->st, d, fl_sym_const(step), &r);
    if (st == FL_OK && incl) {
        st = fl__sym_add(c->st, r, fl_sym_const(1), &r);
    }
    if (st != FL_OK) {
        return fl_sym_unknown();
    }
    return fl_sym_is_known(r) && r.k < 0 ? fl_sym_const(0) : r;
}

/* How often While w's body runs: _body_trips, else its _trip_form's count;
 * unknown when neither gives one. */
static fl_status body_trips(fl_ctx *c, const fl_node *w, fl_sym *out) {
    int64_t bt = int_attr(w, "_body_trips");
    const int64_t *f = bt < 0 ? trip_form(w) : NULL;
    fl_sym lim = fl_sym_unknown();
    *out = bt >= 0 ? fl_sym_const(bt) : fl_sym_unknown();
    if (f) {
        fl_status st = fl__count_value(c, w, (int)f[3], &lim);
        if (st != FL_OK) {
            return st;
        }
        *out = form_trips(c, f, lim);
    }
    return FL_OK;
}

/* The prefixes of the graph's counted While loops (scratch memory). */
static fl_status repeats_build(fl_ctx *c, repeats *r) {
    memset(r, 0, sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *w = c->g->nodes[i];
        n += is_while(w) && (int_attr(w, "_body_trips") >= 0 || trip_form(w));
    }
    if (!n) {
        return FL_OK;
    }
    r->prefix = fl__arena_scratch(c->a, 2 * n, sizeof(char *));
    r->len = fl__arena_scratch(c->a, 2 * n, sizeof(size_t));
    r->times = fl__arena_scratch(c->a, 2 * n, sizeof(fl_sym));
    r->tfl_name = fl__arena_scratch(c->a, n, sizeof(char *));
    r->tfl_trips = fl__arena_scratch(c->a, n, sizeof(fl_sym));
    if (!r->prefix || !r->len || !r->times || !r->tfl_name || !r->tfl_trips) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *w = c->g->nodes[i];
        const fl_attr *loop = fl__node_attr(w, "_loop");
        fl_sym bt = fl_sym_unknown(), ct;
        fl_status st = is_while(w) ? body_trips(c, w, &bt) : FL_OK;
        if (st != FL_OK) {
            return st;
        }
        if (is_tfl_while(w) && trip_form(w)) {
            r->tfl_name[r->n_tfl] = w->name;
            r->tfl_trips[r->n_tfl++] = bt;
        }
        if (fl_sym_is_unknown(bt) || !loop || loop->kind != FL_ATTR_S) {
            continue;
        }
        ct = int_attr(w, "_cond_trips") >= 0 ? fl_sym_const(int_attr(w, "_cond_trips"))
                                             : fl_sym_unknown();
        if (!fl_sym_is_known(ct) && fl__sym_add(c->st, bt, fl_sym_const(1), &ct) != FL_OK) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            const char *p = fl__arena_printf(c->a, "%s/%s/", loop->v.s.p, side ? "cond" : "body");
            if (!p) {
                return fl__diag_oom(c->d);
            }
            r->prefix[r->n] = p;
            r->len[r->n] = strlen(p);
            r->times[r->n++] = side ? ct : bt;
        }
    }
    return FL_OK;
}

static void repeats_free(fl_ctx *c, repeats *r) {
    fl__arena_scratch_free(c->a, r->prefix);
    fl__arena_scratch_free(c->a, r->len);
    fl__arena_scratch_free(c->a, r->times);
    fl__arena_scratch_free(c->a, r->tfl_name);
    fl__arena_scratch_free(c->a, r->tfl_trips);
}

static int64_t mul_cap(int64_t a, int64_t b) {
    return a && b > INT64_MAX / 4 / a ? INT64_MAX / 4 : a * b;
}

/* t * times (known integers saturate at INT64_MAX / 4; a symbolic product
 * that overflows is unknown). */
static fl_sym times_mul(fl_ctx *c, fl_sym t, fl_sym times) {
    if (fl_sym_is_known(t) && fl_sym_is_known(times)) {
        return fl_sym_const(mul_cap(t.k, times.k));
    }
    return fl__sym_mul(c->st, t, times, &t) == FL_OK ? t : fl_sym_unknown();
}

/* The trips of the TFLite WHILEs n's attr _trip_loops names, each plus
 * _trip_plus (a cond runs once more), into t. A loop whose count is
 * unknown counts once (fl__cost_loop_warnings says so). */
static fl_sym tfl_trips(fl_ctx *c, const repeats *r, const fl_node *n, fl_sym t) {
    const fl_attr *l = fl__node_attr(n, "_trip_loops");
    const fl_attr *p = fl__node_attr(n, "_trip_plus");
    if (!l || !p || l->kind != FL_ATTR_LIST || l->list_kind != FL_ATTR_S ||
        p->kind != FL_ATTR_LIST || p->list_kind != FL_ATTR_I || p->n != l->n) {
        return t;
    }
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < r->n_tfl; j++) {
            fl_sym bt = r->tfl_trips[j];
            if (strcmp(l->v.list.s[i].p, r->tfl_name[j]) != 0 || fl_sym_is_unknown(bt)) {
                continue;
            }
            if (p->v.list.i[i] && fl__sym_add(c->st, bt, fl_sym_const(1), &bt) != FL_OK) {
                return fl_sym_unknown();
            }
            t = times_mul(c, t, bt);
            break;
        }
    }
    return t;
}

/* How often n runs per inference. */
static fl_sym repeat_of(fl_ctx *c, const repeats *r, const fl_node *n) {
    fl_sym t = fl_sym_const(1);
    if (n->flags & FL_NODE_REPEATED) {
        int64_t k = int_attr(n, "_repeat");
        t = fl_sym_const(k >= 0 ? k : 1);
        if (r->n_tfl) {
            t = tfl_trips(c, r, n, t);
        }
    }
    for (size_t i = 0; i < r->n; i++) {
        if (strncmp(n->name, r->prefix[i], r->len[i]) == 0) {
            t = times_mul(c, t, r->times[i]);
        }
    }
    return t;
}

/* Every count of k, n's, times `times`. */
static fl_status repeat_cost(fl_ctx *c, fl_node *n, fl_cost *k, fl_sym times) {
    fl_sym *f[] = {&k->flops,   &k->tfprof_flops, &k->macs,
                   &k->int_ops, &k->bytes_read,   &k->bytes_written};
    fl_status st = FL_OK;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && st == FL_OK; i++) {
        if (fl_sym_is_unknown(*f[i])) {
            continue;
        }
        if (fl_sym_is_known(times)) {
            st = fl__op_scale(c, n, *f[i], times.k, f[i]);
        } else if (fl_sym_is_unknown(times)) {
            *f[i] = fl_sym_unknown();
            k->incomplete = true;
        } else {
            st = fl__op_mul(c, n, *f[i], times, f[i]);
        }
    }
    return st;
}

/* Whether n is a loop whose trip count is unknown (its body and cond are
 * counted once): a lowered TensorFlow While or a TFLite WHILE the import
 * marked so (attr _trip_unknown: src/import/tf_loop.c, tflite_loop.c), or
 * one with _trip_form whose limit gives no count; or a node the import
 * counts without such a count (a TFLite subgraph run both inside and
 * outside a loop counted from its limit: attr _trip_unknown). ONNX's Loop
 * and Scan hooks say so themselves (src/ops/onnxops/control.c). */
static bool loop_trips_unknown(fl_ctx *c, const fl_node *n) {
    if (int_attr(n, "_trip_unknown") > 0) {
        return true;
    }
    if (!is_while(n)) {
        return false;
    }
    fl_sym bt;
    return int_attr(n, "_body_trips") < 0 && trip_form(n) && body_trips(c, n, &bt) == FL_OK &&
           fl_sym_is_unknown(bt);
}

/* n's own counts, from its shapes, into k. */
static fl_status cost_counts(fl_ctx *c, fl_node *n, const repeats *r, fl_cost *k) {
    fl_sym zero = fl_sym_const(0);
    memset(k, 0, sizeof(*k));
    k->flops = k->tfprof_flops = k->macs = k->int_ops = k->bytes_read = k->bytes_written = zero;
    if (n->desc && n->desc->cost) {
        fl_status st = n->desc->cost(c, n, k);
        if (st != FL_OK) {
            return st;
        }
        if (incomplete_sym(k->flops) || incomplete_sym(k->tfprof_flops) ||
            incomplete_sym(k->macs) || incomplete_sym(k->int_ops)) {
            k->incomplete = true;
        }
    }
    if (loop_trips_unknown(c, n)) {
        k->trips_unknown = true;
    }
    if (n->flags & FL_NODE_DEAD) {
        /* In a branch a known predicate does not take (graph.h): it does
         * not run. tfprof, which reads the static graph, still counts it. */
        k->flops = k->macs = k->int_ops = k->bytes_read = k->bytes_written = zero;
        k->incomplete = incomplete_sym(k->tfprof_flops);
        k->trips_unknown = false;
        return FL_OK;
    }
    fl_status st = node_bytes(c, n, k);
    fl_sym times = st == FL_OK ? repeat_of(c, r, n) : fl_sym_const(1);
    return fl_sym_is_known(times) && times.k == 1 ? st : repeat_cost(c, n, k, times);
}

/* n's own counts (n->cost), from its shapes. A failure leaves n's counts
 * as far as they came (as when they were written in place). */
static fl_status cost_node(fl_ctx *c, fl_node *n, const repeats *r) {
    fl_cost k;
    fl_status st = cost_counts(c, n, r, &k);
    fl_status ss = fl__node_set_cost(c->g, n, &k);
    if (st == FL_OK && ss != FL_OK) {
        st = fl__diag_oom(c->d);
    }
    return st;
}

static const char *str_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_S ? a->v.s.p : "";
}

/* The warning for loop w with attr _trip_form f whose body runs bt times
 * (unknown: no count). */
static void form_warning(fl_ctx *c, const fl_node *w, const int64_t *f, fl_sym bt) {
    bool tfl = is_tfl_while(w);
    const char *op = !tfl ? "While" : w->kind == FL_OP_TFL_WHILE ? "WHILE" : "STABLEHLO_WHILE";
    const char *loop = tfl ? w->name : str_attr(w, "_loop"), *body = str_attr(w, "_lowered_body");
    const char *cond = str_attr(w, "_lowered_cond"), *sub = tfl ? " subgraph" : "";
    fl_sym ct;
    if (fl_sym_is_unknown(bt) || fl__sym_add(c->st, bt, fl_sym_const(1), &ct) != FL_OK) {
        fl__node_warn(c->d, w,
                      "%s '%s': trip count unknown (its limit, input %lld of the loop, has no "
                      "value the analysis knows, or the counter never meets it): its body%s '%s' "
                      "and cond%s '%s' are counted once, so the loop is incomplete, the answer "
                      "partial and the totals a lower bound",
                      op, loop, (long long)f[3], sub, body, sub, cond);
        return;
    }
    char bs[128], cs[128], cn[160] = "";
    fl__sym_format(bt, bs, sizeof bs);
    fl__sym_format(ct, cs, sizeof cs);
    if (tfl) {
        snprintf(cn, sizeof cn, " subgraph '%s'", cond);
    }
    fl__node_warn(c->d, w,
                  "%s '%s': trip count %s, from the value of its limit (input %lld of the loop): "
                  "body%s '%s' counted %s times, cond%s %s times%s",
                  op, loop, bs, (long long)f[3], sub, body, bs, cn, cs,
                  fl_sym_is_known(bt) ? ""
                                      : " (a formula in the graph's symbols, assuming the loop "
                                        "runs; binding them gives the exact count)");
}

fl_status fl__cost_loop_warnings(fl_ctx *c) {
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        const fl_node *w = c->g->nodes[i];
        const int64_t *f = is_while(w) && int_attr(w, "_body_trips") < 0 ? trip_form(w) : NULL;
        fl_sym bt;
        fl_status st = f ? body_trips(c, w, &bt) : FL_OK;
        if (st != FL_OK) {
            return st;
        }
        if (f) {
            form_warning(c, w, f, bt);
        }
    }
    return FL_OK;
}

/* The running sums of the totals' counts, in fl_cost_totals's order. */
enum { SUM_FLOPS, SUM_TFPROF, SUM_MACS, SUM_INT_OPS, SUM_READ, SUM_WRITTEN, SUM_NO_RULE, N_SUMS };
_Static_assert(N_SUMS == FL_COST_N_SUMS, "fl_cost_totals's parts follow the sums");

static fl_sym *sum_field(fl_cost_totals *t, int i) {
    fl_sym *f[N_SUMS] = {
        &t->flops,         &t->tfprof_flops,      &t->macs, &t->int_ops, &t->bytes_read,
        &t->bytes_written, &t->bytes_without_rule};
    return f[i];
}

/* Adds count v of node n to sum i, failing c->d naming n and the total when
 * the sum overflows (the sum node by node over the whole graph). */
static fl_status sum_strict(fl_ctx *c, const fl_node *n, fl_sym_sum *s, int i, fl_sym v) {
    fl_status st = fl__sym_sum_add(s, v);
    if (st == FL_EOVERFLOW) {
        static const char *const what[N_SUMS] = {"FLOPs",
                                                 "tfprof FLOPs",
                                                 "MACs",
                                                 "integer ops",
                                                 "bytes read",
                                                 "bytes written",
                                                 "bytes of nodes without a cost rule"};
        char vs[64];
        fl__sym_format(v, vs, sizeof vs);
        return fl__node_fail(c->d, st, n,
                             "the graph's total %s overflows 64-bit integers when this node's %s "
                             "is added",
                             what[i], vs);
    }
    return st == FL_ENOMEM ? fl__diag_oom(c->d) : st;
}

/* Adds (sign 1) or takes away (-1) count v to sum i. `strict`: the sum
 * node by node over the whole graph, which fails c->d naming n on an
 * overflow while no count was unknown, as sum_strict (once one is, the
 * total is unknown: an overflow of the other counts' sum is no error, that
 * sum is only not known, parts_bad). Otherwise an overflow returns
 * FL_EOVERFLOW and fails nothing (the caller sums whole instead). */
static fl_status add_part(fl_ctx *c, const fl_node *n, fl_cost_totals *t, fl_sym_sum *s, int i,
                          fl_sym v, int sign, bool strict) {
    if (fl_sym_is_unknown(v)) {
        t->n_unknown[i] += sign;
        return FL_OK;
    }
    if (t->parts_bad & (1u << i)) {
        return FL_OK;
    }
    if (strict && !t->n_unknown[i]) {
        return sum_strict(c, n, s, i, v);
    }
    fl_status st = sign > 0 ? fl__sym_sum_add(s, v) : fl__sym_sum_sub(s, v);
    if (st == FL_EOVERFLOW && strict) {
        t->parts_bad |= 1u << i;
        return FL_OK;
    }
    return st == FL_ENOMEM ? fl__diag_oom(c->d) : st;
}

/* Adds (sign 1) or takes away (-1) node n's part of the totals: n as it is,
 * or a journal's copy of a node as it was. `strict` as add_part's. */
static fl_status count_node(fl_ctx *c, const fl_node *n, int sign, bool strict, fl_cost_totals *t,
                            fl_sym_sum *sums) {
    const fl_node_cost *k = &n->cost;
    if (fl__cost_is_value_node(n)) {
        t->nodes_values += sign;
    }
    if (k->bits & FL_COST_INCOMPLETE) {
        t->nodes_incomplete += sign;
        return FL_OK;
    }
    if (k->bits & FL_COST_TRIPS_UNKNOWN) { /* incomplete, but its one trip is summed */
        t->nodes_incomplete += sign;
        t->nodes_trips_unknown += sign;
    } else if (k->bits & FL_COST_HAS_RULE) {
        t->nodes_with_rule += sign;
    } else {
        t->nodes_without_rule += sign;
    }
    _Static_assert((int)SUM_FLOPS == FL_COUNT_FLOPS && (int)SUM_TFPROF == FL_COUNT_TFPROF_FLOPS &&
                       (int)SUM_MACS == FL_COUNT_MACS && (int)SUM_INT_OPS == FL_COUNT_INT_OPS &&
                       (int)SUM_READ == FL_COUNT_BYTES_READ &&
                       (int)SUM_WRITTEN == FL_COUNT_BYTES_WRITTEN,
                   "the sums follow the counts' words");
    const uint64_t *w = k->w;
    /* plain: the whole sum's common case (no count unknown, in the sums or
     * here); moves: the counts that are not a known 0 (a 0 moves no sum and
     * no count: fl__sym_sum_add's first case; its word is 0), none for a
     * constant or a reshape */
    /* The six tests written out, without branches (as a loop, not unrolled,
     * they cost about a hundred instructions a node). */
    _Static_assert(SUM_NO_RULE == 6, "count_node's tests name each count");
    const uint64_t unk = fl__cost_word_unknown(); /* loaded once */
#define MOVES(i) ((unsigned)(w[i] != 0) << (i))
    unsigned moves = MOVES(0) | MOVES(1) | MOVES(2) | MOVES(3) | MOVES(4) | MOVES(5);
#undef MOVES
    if (!moves) {
        return FL_OK;
    }
    const int64_t *nu = t->n_unknown;
    bool unknown = (w[0] == unk) | (w[1] == unk) | (w[2] == unk) | (w[3] == unk) | (w[4] == unk) |
                   (w[5] == unk) | ((nu[0] | nu[1] | nu[2] | nu[3] | nu[4] | nu[5]) != 0);
    bool plain = strict && !unknown;
    fl_status st = FL_OK;
    /* the counts that move, in order */
    for (unsigned m = moves; m && st == FL_OK; m &= m - 1) {
        int i = __builtin_ctz(m);
        fl_sym v = fl__cost_word_sym(w[i]);
        st = plain ? sum_strict(c, n, &sums[i], i, v)
                   : add_part(c, n, t, &sums[i], i, v, sign, strict);
    }
    if (st == FL_OK && !(k->bits & FL_COST_HAS_RULE)) {
        fl_sym b, rd = fl__cost_word_sym(w[SUM_READ]), wr = fl__cost_word_sym(w[SUM_WRITTEN]);
        st = fl__sym_add(c->st, rd, wr, &b);
        if (st == FL_EOVERFLOW && strict) {
            char rs[64], ws[64];
            fl__sym_format(rd, rs, sizeof rs);
            fl__sym_format(wr, ws, sizeof ws);
            st = fl__node_fail(c->d, st, n,
                               "its bytes moved (read %s + written %s) overflow 64-bit integers",
                               rs, ws);
        } else if (st == FL_ENOMEM) {
            st = fl__diag_oom(c->d);
        }
        if (st == FL_OK) {
            st = add_part(c, n, t, &sums[SUM_NO_RULE], SUM_NO_RULE, b, sign, strict);
        }
    }
    return st;
}

/* Sets the totals' sums from the running sums: each is unknown while a
 * count in it is. */
static fl_status end_sums(fl_ctx *c, fl_cost_totals *t, const fl_sym_sum *sums) {
    for (int i = 0; i < N_SUMS; i++) {
        t->part[i] = fl_sym_unknown();
        if (!(t->parts_bad & (1u << i)) && fl__sym_sum_total(&sums[i], &t->part[i]) != FL_OK) {
            return fl__diag_oom(c->d);
        }
        *sum_field(t, i) = t->n_unknown[i] ? fl_sym_unknown() : t->part[i];
    }
    return FL_OK;
}

static void start_sums(fl_ctx *c, fl_sym_sum *sums) {
    for (int i = 0; i < N_SUMS; i++) {
        fl__sym_sum_init(&sums[i], c->st);
    }
}

/* Costs the nodes (every one with `all`, else those in recost, if any) and
 * sums every node into t. The sums run without interning every partial sum
 * (fl_sym_sum); each is the same as the sum node by node. */
static fl_status sum_nodes(fl_ctx *c, fl_cost_totals *t, bool all, const uint8_t *recost,
                           const repeats *r) {
    memset(t, 0, sizeof(*t));
    fl_sym_sum sums[N_SUMS];
    start_sums(c, sums);
    fl_graph *g = c->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->order ? g->order[i] : g->nodes[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            return c->d->status;
        }
        fl_status st;
        if ((all || (recost && recost[n->id])) && (st = cost_node(c, n, r)) != FL_OK) {
            return st;
        }
        if ((st = count_node(c, n, 1, true, t, sums)) != FL_OK) {
            return st;
        }
    }
    return end_sums(c, t, sums);
}

fl_status fl__cost_graph(fl_ctx *c, fl_cost_totals *t) {
    return fl__cost_graph_some(c, t, NULL);
}

fl_status fl__cost_graph_some(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost) {
    repeats r;
    fl_status rs = repeats_build(c, &r);
    if (rs == FL_OK) {
        rs = sum_nodes(c, t, !recost, recost, &r);
    }
    repeats_free(c, &r);
    return rs;
}

/* fl__cost_graph_update's difference, begun: u a copy of the totals t, and
 * sums (N_SUMS) started from its parts. */
static fl_status start_update(fl_ctx *c, fl_cost_totals *u, const fl_cost_totals *t,
                              fl_sym_sum *sums) {
    *u = *t;
    start_sums(c, sums);
    fl_status st = FL_OK;
    for (int i = 0; i < N_SUMS && st == FL_OK; i++) {
        st = fl__sym_sum_add(&sums[i], u->part[i]);
    }
    return st;
}

/* fl__cost_graph_update's difference, ended: into u and its sums (where the
 * nodes added since the journal s was opened are already, as they are,
 * added: fl__cost_graph_update's walk meets them), the parts of the nodes s
 * saved or the graph no longer holds, as they were, taken away, and those
 * saved, as they are, added. A node saved whose cost and value-node role
 * are as saved adds and takes away the same part: it is skipped (a reader
 * rewired to an equal producer, a node re-inferred to the same outputs).
 * FL_EOVERFLOW when a sum overflows (nothing failed). */
static fl_status update_sums(fl_ctx *c, fl_cost_totals *u, fl_sym_sum *sums,
                             const fl_graph_snapshot *s) {
    fl_graph *g = c->g;
    fl_status st = FL_OK;
    /* The nodes it saved (each was in the graph as opened). */
    for (size_t i = 0; i < s->n_nodes && st == FL_OK; i++) {
        const fl_node *o = s->node_ptrs[i], *was = &s->nodes[i];
        if (o->id >= g->n_nodes || g->nodes[o->id] != o) { /* gone */
            st = count_node(c, was, -1, false, u, sums);
        } else if (!fl__node_cost_same(&was->cost, &o->cost) ||
                   fl__cost_is_value_node(was) != fl__cost_is_value_node(o)) {
            if ((st = count_node(c, was, -1, false, u, sums)) == FL_OK) {
                st = count_node(c, o, 1, false, u, sums);
            }
        }
    }
    /* The nodes gone that it did not save (removed without an edit). */
    fl_node *const *old = fl__graph_journal_opened(s);
    for (size_t i = 0; i < s->head.n_nodes && st == FL_OK; i++) {
        const fl_node *o = old[i];
        if ((o->id >= g->n_nodes || g->nodes[o->id] != o) && !fl__graph_snapshot_saved(s, o)) {
            st = count_node(c, o, -1, false, u, sums);
        }
    }
    return st == FL_OK ? end_sums(c, u, sums) : st;
}

fl_status fl__cost_graph_update(fl_ctx *c, fl_cost_totals *t, const uint8_t *recost,
                                const fl_graph_snapshot *before) {
    fl_graph *g = c->g;
    bool diff =
        recost && before && before->taken && before->journal && !before->oom && !t->parts_bad;
    /* The difference counts every node the pass removed and every node the
     * journal saved (twice: as it was and as it is), and reads every node
     * the graph had when the journal was opened; the whole sum counts each
     * node the graph has now once. After a pass that removed or rewrote
     * more nodes than are left (the remapper on a chain of fusable layers:
     * three nodes out for each fused one, and the consumer rewired), the
     * whole sum is the shorter walk, and the removed nodes, cold by then,
     * are not read again. The totals are the same either way. */
    if (diff) {
        size_t was = before->head.n_nodes, now = g->n_nodes;
        diff = 2 * before->n_nodes + (was > now ? was - now : 0) <= now;
    }
    repeats r;
    fl_status st = repeats_build(c, &r);
    /* The difference's sums, begun before the walk: the nodes added since
     * the journal was opened (a journal saves none of them) are added as
     * the walk meets them, and not looked for in a walk of their own. */
    fl_cost_totals u;
    fl_sym_sum sums[N_SUMS];
    fl_status ust;
    if (st == FL_OK && diff) {
        /* an overflow only turns the difference off; any other failure ends */
        ust = start_update(c, &u, t, sums);
        diff = ust == FL_OK;
        st = ust == FL_EOVERFLOW ? FL_OK : ust;
    }
    for (size_t i = 0; i < g->n_nodes && st == FL_OK; i++) {
        fl_node *n = g->order ? g->order[i] : g->nodes[i];
        if (fl_diag_poll(c->d) != FL_OK) {
            st = c->d->status;
            break;
        }
        bool born = diff && n->born >= before->stamp;
        if (!recost || recost[n->id]) {
            /* its counts as they were are the journal's */
            diff = diff && (born || fl__graph_snapshot_saved(before, n));
            st = cost_node(c, n, &r);
        }
        if (st == FL_OK && diff && born) {
            ust = count_node(c, n, 1, false, &u, sums);
            diff = ust == FL_OK;
            st = ust == FL_EOVERFLOW ? FL_OK : ust;
        }
    }
    if (st == FL_OK && diff) {
        st = update_sums(c, &u, sums, before);
        if (st == FL_OK) {
            *t = u;
        }
        diff = st == FL_OK;
        st = st == FL_EOVERFLOW ? FL_OK : st;
    }
    if (st == FL_OK && !diff) {
        st = sum_nodes(c, t, false, NULL, &r);
    }
    repeats_free(c, &r);
    return st;
}
