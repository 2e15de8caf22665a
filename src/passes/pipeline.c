/*
 * pipeline.c - the pass driver (Grappler's MetaOptimizer on foldline's IR),
 * and the ledger (what the pass files share is in util.c).
 *
 * Order (MetaOptimizer's default, grappler/optimizers/meta_optimizer.cc): pruning, cse, constfold,
 * shape, arithmetic, remap, dependency; the whole list runs cfg->opt.iterations times (default 2).
 * Before the first pass the graph outputs are marked FL_NODE_PRESERVE: the
 * nodes named by cfg->outputs, or else every node nothing consumes and every
 * producer of an ONNX model's declared output (which other nodes may read). Feeds
 * (Placeholders) are preserved too, as Grappler preserves feed nodes, so that
 * the user's input and symbol bindings still apply after every pass.
 *
 * After each pass that changed the graph (edited a node: g->edits moved, or
 * added or removed one): fl__graph_compact, shape inference with
 * the same bindings, costing, and the outputs check (every output still
 * exists with at least its outputs, their dtypes and shapes); after every
 * pass a record with before and after totals, node counts and the pass's
 * ledger slice. Inference and costing are incremental: the journal opened
 * before the pass tells which nodes it changed, and only those and the
 * consumers of nodes whose outputs came out different are inferred and
 * costed again (fl__infer_refresh; the whole inference where that does not
 * apply: loops, symbol bindings). With cfg->verify the verifier runs after
 * every pass, and the incremental result is checked against the whole
 * inference and costing (an internal error naming the node if they differ).
 *
 * Failures (Grappler's semantics; foldline used to fail the whole analysis):
 * MetaOptimizer logs an optimizer's error and goes on with the graph as it
 * was before that optimizer. Here every pass that runs is preceded by a
 * journal (graph/snapshot.h: copy on first write, so a pass that changes k
 * nodes costs O(k) to save; reused buffers, counted against the arena's
 * memory limit while the pass runs; the previous one is kept when the pass
 * before changed nothing, see run_guarded; with cfg->verify a full copy
 * beside it, against which the verifier checks the marks and every
 * rollback); anything that goes wrong in the pass or in the steps after it
 * above (its error, compaction, re-inference, costing, the outputs check,
 * the verifier) restores the journal, c->d's first error and warnings as they were, drops the
 * pass's ledger entries, records the pass with no changes, and reports
 * "pass 'NAME' failed and was skipped: <error>" (cfg->failures, else a
 * warning of c->d). FL_ENOMEM (or an arena that ran out) and FL_ECANCELED
 * are not pass failures and fail the run. Checking the outputs after each
 * pass, rather than once at the end, attributes a broken output to the pass
 * that broke it (where a change of one pass is undone by a later one, that
 * pass is still rolled back: stricter than a final check); the final check
 * stays as a guard, and since each pass's result was already checked it can
 * fail only through a bug in the rollback: it then fails the run with an
 * internal error naming the output, not a pass.
 */
#include "passes/pipeline.h"

#include "graph/snapshot.h"
#include "ops/onnxops/util.h"
#include "passes/util.h"
#include "shape/infer.h"
#include "util/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The passes' skip tests (pass.h; NULL: the pass always runs). */
static const fl_pass_may_work_fn pass_may_work[FL_PASS_COUNT] = {
    [FL_PASS_PRUNING] = fl__model_pruner_may_work,
    [FL_PASS_CSE] = fl__cse_may_work,
    [FL_PASS_CONSTFOLD] = fl__constant_folding_may_work,
    [FL_PASS_SHAPE] = fl__shape_optimizer_may_work,
    [FL_PASS_ARITHMETIC] = fl__arithmetic_optimizer_may_work,
    [FL_PASS_DEPENDENCY] = fl__dependency_optimizer_may_work,
};

static const char *const pass_names[FL_PASS_COUNT] = {
    "pruning", "cse", "qdq", "constfold", "transpose", "shape", "arithmetic", "remap", "dependency",
};

static const fl_pass_fn pass_fns[FL_PASS_COUNT] = {
    fl__pass_model_pruner,
    fl__pass_common_subgraph_elimination,
    fl__pass_qdq,
    fl__pass_constant_folding,
    fl__pass_transpose,
    fl__pass_shape_optimizer,
    fl__pass_arithmetic_optimizer,
    fl__pass_remapper,
    fl__pass_dependency_optimizer,
};

void fl__pipeline_config_init(fl_pipeline_config *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->opt.device = FL_DEVICE_CPU;
    cfg->opt.remapper_mode = FL_REMAPPER_STANDARD;
    cfg->opt.max_folded_bytes = 100 * 1024;
    cfg->opt.iterations = 2;
    cfg->verify = fl__checks_on(); /* debug builds, FOLDLINE_VERIFY=1 (util/check.h) */
}

const char *fl__pipeline_pass_name(fl_pass_id id) {
    return (unsigned)id < FL_PASS_COUNT ? pass_names[id] : "?";
}

static int pass_lookup(const char *s, size_t len) {
    for (int i = 0; i < FL_PASS_COUNT; i++) {
        if (strlen(pass_names[i]) == len && strncmp(pass_names[i], s, len) == 0) {
            return i;
        }
    }
    return -1;
}

fl_status fl__pipeline_select(const fl_pipeline_config *cfg, bool on[FL_PASS_COUNT], fl_diag *d) {
    const char *p = cfg->passes;
    bool all = !p || strcmp(p, "default") == 0 || strcmp(p, "all") == 0;
    for (int i = 0; i < FL_PASS_COUNT; i++) {
        on[i] = all;
    }
    if (!all && strcmp(p, "none") != 0) {
        while (*p) {
            size_t len = strcspn(p, ",");
            int id = pass_lookup(p, len);
            if (id < 0) {
                return fl__diag_fail(d, FL_EUSAGE,
                                     "unknown pass '%.*s' (passes: pruning, cse, qdq, constfold, "
                                     "transpose, shape, arithmetic, remap, dependency, or none)",
                                     (int)len, p);
            }
            on[id] = true;
            p += len;
            if (*p == ',') {
                p++;
            }
        }
    }
    for (size_t k = 0; k < cfg->n_disabled; k++) {
        const char *s = cfg->disabled[k];
        int id = pass_lookup(s, strlen(s));
        if (id < 0) {
            return fl__diag_fail(d, FL_EUSAGE, "cannot disable unknown pass '%s'", s);
        }
        on[id] = false;
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Ledger                                                                     */
/* ------------------------------------------------------------------------- */

void fl__ledger_init(fl_ledger *l, fl_arena *a) {
    memset(l, 0, sizeof(*l));
    l->arena = l->text = a;
}

/* Notes are cut to LEDGER_DETAIL - 1 bytes. */
#define LEDGER_DETAIL 512

/* Appends an entry with the detail's `len` bytes. */
static void ledger_push(fl_pass_ctx *pc, const char *rule, const fl_node *n, const char *detail,
                        size_t len) {
    fl_ledger *l = pc->ledger;
    if (l->n_entries == l->n_seg * FL_LEDGER_SEG) {
        if (l->n_seg == l->cap_seg) {
            size_t nc = l->cap_seg ? l->cap_seg * 2 : 8;
            fl_ledger_entry **ns = fl__arena_grow(l->arena, l->seg, l->n_seg, nc, sizeof(*ns));
            if (!ns) {
                return; /* the arena's failure flag reports OOM */
            }
            l->seg = ns;
            l->cap_seg = nc;
        }
        /* written before it is read: not zeroed */
        l->seg[l->n_seg] = fl__arena_alloc_raw(l->arena, FL_LEDGER_SEG * sizeof(fl_ledger_entry));
        if (!l->seg[l->n_seg]) {
            return;
        }
        l->n_seg++;
    }
    /* A rule that fires on many nodes in a row (the remapper's on a chain
     * of equal layers) keeps one copy of its name, and of its detail when
     * that is the same too ("Conv2D+BiasAdd+Relu -> _FusedConv2D"). */
    const fl_ledger_entry *prev = l->n_entries ? fl__ledger_entry(l, l->n_entries - 1) : NULL;
    fl_ledger_entry *e = fl__ledger_entry(l, l->n_entries++);
    e->pass = pc->pass;
    e->rule = prev && prev->rule && strcmp(prev->rule, rule) == 0 ? prev->rule
                                                                  : fl__arena_strdup(l->text, rule);
    e->node = n ? n->name : ""; /* not copied: see fl_ledger_entry */
    e->detail = prev && prev->rule == e->rule && prev->detail &&
                        strncmp(prev->detail, detail, len) == 0 && prev->detail[len] == '\0'
                    ? prev->detail
                    : fl__arena_strndup(l->text, detail, len);
}

/* Does fmt hold no conversion but %s? */
static bool only_strings(const char *fmt) {
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%')) {
        if (p[1] != 's') {
            return false;
        }
    }
    return true;
}

/* The first size - 1 bytes of fmt with each %s replaced by the next string
 * argument ("(null)" for NULL, as printf writes it): vsnprintf's text for
 * such a format, without its per-call set-up (the notes of a pass that
 * removes thousands of nodes are mostly names). */
static size_t join_strings(char *buf, size_t size, const char *fmt, va_list ap) {
    size_t len = 0;
    for (const char *p = fmt; *p && len < size - 1;) {
        const char *pct = strchr(p, '%');
        size_t lit = pct ? (size_t)(pct - p) : strlen(p);
        const char *part = p;
        if (lit == 0) {
            part = va_arg(ap, const char *);
            part = part ? part : "(null)";
            lit = strlen(part);
            p += 2;
        } else {
            p += lit;
        }
        size_t k = lit < size - 1 - len ? lit : size - 1 - len;
        memcpy(buf + len, part, k);
        len += k;
    }
    buf[len] = '\0';
    return len;
}

void fl__ledger_note(fl_pass_ctx *pc, const char *rule, const fl_node *n, const char *fmt, ...) {
    if (!pc->ledger) {
        return;
    }
    char buf[LEDGER_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    size_t len;
    if (only_strings(fmt)) {
        len = join_strings(buf, sizeof buf, fmt, ap);
    } else {
        int w = vsnprintf(buf, sizeof buf, fmt, ap);
        len = w < 0 ? 0 : (size_t)w < sizeof buf ? (size_t)w : sizeof buf - 1;
        buf[len] = '\0';
    }
    va_end(ap);
    ledger_push(pc, rule, n, buf, len);
}

void fl__ledger_note_parts(fl_pass_ctx *pc, const char *rule, const fl_node *n,
                           const char *const *parts, int n_parts) {
    if (!pc->ledger) {
        return;
    }
    char buf[LEDGER_DETAIL];
    size_t len = 0;
    for (int i = 0; i < n_parts && len < sizeof buf - 1; i++) {
        const char *part = parts[i] ? parts[i] : "(null)"; /* as printf's %s writes it */
        size_t k = strlen(part);
        if (k > sizeof buf - 1 - len) {
            k = sizeof buf - 1 - len;
        }
        memcpy(buf + len, part, k);
        len += k;
    }
    buf[len] = '\0';
    ledger_push(pc, rule, n, buf, len);
}

/* The ledger's next pass record, written in place by the caller (which
 * then counts it in n_passes): the records are large, and one built on the
 * stack and copied in cost a few thousand instructions an analysis. NULL
 * when memory is exhausted. */
static fl_pass_record *ledger_next_record(fl_ledger *l) {
    if (l->n_passes == l->cap_passes) {
        size_t nc = l->cap_passes ? l->cap_passes * 2 : 16;
        /* not zeroed: a record is written whole before it is read (the
         * records are large: zeroing 16 of them cost as much as a pass) */
        fl_pass_record *np = nc < SIZE_MAX / 4 / sizeof(fl_pass_record)
                                 ? fl__arena_alloc_raw(l->arena, nc * sizeof(fl_pass_record))
                                 : NULL;
        if (!np) {
            return NULL;
        }
        if (l->n_passes) {
            memcpy(np, l->passes, l->n_passes * sizeof(fl_pass_record));
        }
        l->passes = np;
        l->cap_passes = nc;
    }
    return &l->passes[l->n_passes];
}

/* ------------------------------------------------------------------------- */
/* Outputs                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct out_snap {
    const char *name;
    int n_outputs;
    fl_dtype *dtypes;
    fl_shape *shapes;
} out_snap;

/* A lowered While (src/import/funcinline.c: "W/while" with attrs _loop "W"
 * and _lowered_body) runs its cond and body every iteration, but their
 * results reach only the control inputs of the IdentityN "W": nothing reads
 * them as data, so the dependency optimizer would turn the body into NoOps
 * and prune it, and the totals after the passes would lose every iteration.
 * Grappler optimizes a While's cond and body functions as items of their
 * own, their return values (and arguments) preserved, the rest rewritten
 * like any graph (grappler.md 1.1: "functions are instantiated with their
 * own preserve sets"). So here: the nodes "W/..." that W's control inputs
 * are (the inlined calls' results, which collect the return values) and the
 * argument Identities on W/while's outputs are kept as feeds are, so the
 * optimised graph, read again, still holds the loop's form
 * (src/import/tf_loop.c); what computes the results inside the body is
 * optimised as the rest of the graph (a MatMul + BiasAdd + Relu there is fused), and the
 * cost model still counts every node named "W/body/..." per iteration
 * (src/cost/cost.c). */
static fl_status preserve_loop_bodies(fl_ctx *c) {
    fl_graph *g = c->g;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *wn = g->nodes[i];
        if (wn->kind != FL_OP_WHILE && wn->kind != FL_OP_STATELESS_WHILE) {
            continue; /* the attr lookups only for the loops */
        }
        const fl_attr *loop = fl__node_attr(wn, "_loop");
        if (!loop || loop->kind != FL_ATTR_S || !fl__node_attr(wn, "_lowered_body")) {
            continue;
        }
        fl_node *w = fl__graph_find(g, loop->v.s.p);
        if (!w) {
            continue;
        }
        size_t len = loop->v.s.len;
        for (int k = 0; k < w->n_ctrl; k++) {
            fl_node *r = w->ctrl[k];
            if (r && strncmp(r->name, loop->v.s.p, len) == 0 && r->name[len] == '/') {
                r->flags |= FL_NODE_PRESERVE;
            }
        }
        /* the arguments: the Identities "W/cond/..", "W/body/.." on the loop */
        fl_node *lw = g->nodes[i];
        for (size_t j = 0; j < g->n_nodes; j++) {
            fl_node *a = g->nodes[j];
            if (a->kind == FL_OP_IDENTITY && a->n_inputs == 1 && a->inputs[0].node == lw &&
                strncmp(a->name, loop->v.s.p, len) == 0 && a->name[len] == '/') {
                a->flags |= FL_NODE_PRESERVE;
            }
        }
    }
    return FL_OK;
}

static fl_status mark_outputs(fl_ctx *c, const fl_pipeline_config *cfg, out_snap **snaps,
                              size_t *n_snaps) {
    fl_graph *g = c->g;
    /* Two walks over the nodes (marks and count, then the outputs' copies
     * and the feeds): on a graph larger than the caches each walk costs a
     * miss or two per node. */
    size_t n = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        m->flags &= ~(uint32_t)(FL_NODE_PRESERVE | FL_NODE_REMOVED);
        if (cfg->n_outputs) {
            continue;
        }
        bool consumed = m->n_ctrl_consumers > 0;
        for (int k = 0; k < m->n_outputs && !consumed; k++) {
            consumed = m->outputs[k].n_consumers > 0;
        }
        if (!consumed || (m->flags & FL_NODE_GRAPH_OUTPUT)) {
            m->flags |= FL_NODE_PRESERVE;
            n++;
        }
    }
    for (size_t k = 0; k < cfg->n_outputs; k++) {
        fl_node *m = fl__graph_find(g, cfg->outputs[k]);
        if (!m) {
            return fl__diag_fail(c->d, FL_EUSAGE, "output '%s' names no node of the graph",
                                 cfg->outputs[k]);
        }
        n += !(m->flags & FL_NODE_PRESERVE);
        m->flags |= FL_NODE_PRESERVE;
    }
    out_snap *s = fl__arena_calloc(c->a, n + 1, sizeof(*s));
    if (!s) {
        return fl__diag_oom(c->d);
    }
    size_t w = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_PRESERVE)) {
            /* Feeds are preserved (not outputs: they are not checked as such). */
            m->flags |= fl__is_feed(m) ? FL_NODE_PRESERVE : 0;
            continue;
        }
        out_snap *o = &s[w++];
        o->name = m->name;
        o->n_outputs = m->n_outputs;
        o->dtypes = fl__arena_calloc(c->a, (size_t)m->n_outputs + 1, sizeof(fl_dtype));
        o->shapes = fl__arena_calloc(c->a, (size_t)m->n_outputs + 1, sizeof(fl_shape));
        if (!o->dtypes || !o->shapes) {
            return fl__diag_oom(c->d);
        }
        for (int k = 0; k < m->n_outputs; k++) {
            const fl_shape *sh = &m->outputs[k].shape;
            o->dtypes[k] = m->outputs[k].dtype;
            o->shapes[k].rank = sh->rank;
            if (sh->rank > 0) {
                fl_sym *d = fl__arena_calloc(c->a, (size_t)sh->rank, sizeof(fl_sym));
                if (!d) {
                    return fl__diag_oom(c->d);
                }
                memcpy(d, sh->dims, (size_t)sh->rank * sizeof(fl_sym));
                o->shapes[k].dims = d;
            }
        }
    }
    fl_status st = preserve_loop_bodies(c);
    if (st) {
        return st;
    }
    *snaps = s;
    *n_snaps = w;
    return FL_OK;
}

static bool dim_same(fl_sym a, fl_sym b) {
    if (fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return fl_sym_is_unknown(a) && fl_sym_is_unknown(b);
    }
    return fl__sym_eq(a, b);
}

/* Every graph output still exists with at least its outputs, of the same
 * dtypes and shapes (a fused op may add outputs, as _FusedBatchNormGradEx
 * adds side_input_backprop; the ones a fetch can name stay). `who` names the
 * culprit in the message ("the pass", "the passes"). */
static fl_status check_outputs(fl_ctx *c, const out_snap *s, size_t n, const char *who) {
    for (size_t i = 0; i < n; i++) {
        const fl_node *m = fl__graph_find(c->g, s[i].name);
        if (!m) {
            return fl__diag_fail(c->d, FL_EINTERNAL, "internal error: %s removed graph output '%s'",
                                 who, s[i].name);
        }
        if (m->n_outputs < s[i].n_outputs) {
            return fl__node_fail(c->d, FL_EINTERNAL, m,
                                 "internal error: %s changed the output count of graph output "
                                 "'%s' from %d to %d",
                                 who, s[i].name, s[i].n_outputs, m->n_outputs);
        }
        for (int k = 0; k < s[i].n_outputs; k++) {
            const fl_shape *a = &s[i].shapes[k], *b = &m->outputs[k].shape;
            bool same = s[i].dtypes[k] == m->outputs[k].dtype && a->rank == b->rank;
            for (int j = 0; same && j < a->rank; j++) {
                same = dim_same(a->dims[j], b->dims[j]);
            }
            if (!same) {
                return fl__node_fail(c->d, FL_EINTERNAL, m,
                                     "internal error: %s changed the dtype or shape of graph "
                                     "output '%s' (output %d)",
                                     who, s[i].name, k);
            }
        }
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Driver                                                                     */
/* ------------------------------------------------------------------------- */

/* What a pass removed and added, from the live nodes before it (*live, the
 * count, updated) and the birth stamp it ran under (fl_node.born): the
 * added nodes are the live ones with that stamp, the rest of the live nodes
 * were there before it (node memory is never reused, and a node keeps its
 * stamp also when the pass compacts by itself). One walk over the nodes,
 * no copy of the node set. */
typedef struct pass_stamp {
    uint32_t stamp; /* the last pass's birth stamp */
    size_t live;    /* live nodes after it */
    /* Passes that changed the graph so far, and for each pass, that count
     * plus one when it last ran and left no trace (no edit, addition,
     * removal, ledger entry, rewrite count or warning); 0: never. A pass
     * is a function of the graph and the options: run again on the same
     * graph, it leaves no trace again, and run_guarded records it without
     * running it (iteration 2 after a quiet end of iteration 1). */
    uint64_t version;
    uint64_t quiet_at[FL_PASS_COUNT];
    /* Passes that left no trace on a graph that has changed since (the
     * skip test, pass.h): quiet_stamp[p], valid with quiet_seen[p], is the
     * stamp when pass p last left none; what changed after it is every node
     * born or edited under a later stamp, and the log's nodes of a later
     * stamp (the old producers of edges a pass moved or removed, the nodes
     * inferred again after it). A change the log does not hold (the whole
     * graph inferred again, a log past LOG_MAX) sets all_since to its
     * stamp: a pass found quiet before it runs. */
    uint32_t quiet_stamp[FL_PASS_COUNT];
    uint64_t quiet_version[FL_PASS_COUNT]; /* version then */
    bool quiet_seen[FL_PASS_COUNT];
    uint32_t all_since;
    struct logged {
        uint32_t stamp;
        fl_node *node;
    } * log;
    size_t n_log, cap_log;
    /* The skip test's marks, by node id, for the changes after version
     * mark_from up to mark_version (passes quiet at the same version share
     * them: the second iteration's tests after one change) */
    uint8_t *mark;
    size_t cap_mark;
    uint64_t mark_from, mark_version;
    bool mark_valid;
    /* The verifier found a node the pass changed without marking it, or
     * wrote before marking it: the journal cannot have saved its state, and
     * the rollback takes the verifier's full copy. */
    bool mark_bug;
} pass_stamp;

/* Entries past this: the log says "everything" instead (a skip pays off
 * after small changes; large ones reach most nodes anyway). */
#define LOG_MAX 4096u

static void log_all(pass_stamp *ps) {
    ps->all_since = ps->stamp;
    ps->n_log = 0;
}

/* Node n changed under the current stamp (a log that does not fit: all). */
static void log_node(pass_stamp *ps, fl_node *n) {
    if (ps->all_since == ps->stamp) {
        return;
    }
    if (ps->n_log == ps->cap_log) {
        size_t nc = ps->cap_log ? ps->cap_log * 2 : 64;
        struct logged *nl = nc <= LOG_MAX ? realloc(ps->log, nc * sizeof(*nl)) : NULL;
        if (!nl) {
            log_all(ps);
            return;
        }
        ps->log = nl;
        ps->cap_log = nc;
    }
    ps->log[ps->n_log++] = (struct logged){ps->stamp, n};
}

static bool is_live(const fl_graph *g, const fl_node *n) {
    return n->id < g->n_nodes && g->nodes[n->id] == n;
}

/* After pass that changed the graph (compacted, inferred again): logs the
 * nodes that lost a consumer - the producers, as journal `before` saved
 * them, of each node the pass edited and of each node it removed. (The
 * nodes it added or edited carry its stamp; refresh logs those inferred
 * again.) */
static void log_changes(const fl_graph *g, pass_stamp *ps, const fl_graph_snapshot *before) {
    for (size_t i = 0; i < g->n_nodes && ps->all_since != ps->stamp; i++) {
        const fl_node *m = g->nodes[i];
        const fl_input *in;
        fl_node *const *ctrl;
        int ni, nc;
        if (m->edited != ps->stamp || m->born == ps->stamp) {
            continue;
        }
        if (!fl__graph_snapshot_saved_edges(before, m, &in, &ni, &ctrl, &nc)) {
            log_all(ps);
            return;
        }
        for (int k = 0; k < ni; k++) {
            log_node(ps, in[k].node);
        }
        for (int k = 0; k < nc; k++) {
            log_node(ps, ctrl[k]);
        }
    }
    fl_node *const *opened = fl__graph_journal_opened(before);
    for (size_t i = 0; i < before->head.n_nodes && ps->all_since != ps->stamp; i++) {
        fl_node *m = opened[i];
        if (is_live(g, m)) {
            continue;
        }
        const fl_input *in = m->inputs;
        fl_node *const *ctrl = m->ctrl;
        int ni = m->n_inputs, nc = m->n_ctrl;
        fl__graph_snapshot_saved_edges(before, m, &in, &ni, &ctrl, &nc);
        for (int k = 0; k < ni; k++) {
            log_node(ps, in[k].node);
        }
        for (int k = 0; k < nc; k++) {
            log_node(ps, ctrl[k]);
        }
    }
}

/* The skip test (pass.h) for pass p, quiet before, on the graph as it is
 * now (sorted): true when the changes since cannot give it work. */
static bool may_skip(const fl_graph *g, pass_stamp *ps, int p) {
    fl_pass_may_work_fn fn = pass_may_work[p];
    if (!fn || !ps->quiet_seen[p] || ps->quiet_stamp[p] < ps->all_since) {
        return false;
    }
    uint32_t since = ps->quiet_stamp[p];
    size_t n = g->n_nodes;
    if (ps->mark_valid && ps->mark_from == ps->quiet_version[p] &&
        ps->mark_version == ps->version) {
        return !fn(g, ps->mark);
    }
    ps->mark_valid = false;
    if (n + 1 > ps->cap_mark) {
        uint8_t *nm = realloc(ps->mark, n + 1);
        if (!nm) {
            return false;
        }
        ps->mark = nm;
        ps->cap_mark = n + 1;
    }
    uint8_t *mark = ps->mark;
    for (size_t i = 0; i < n; i++) {
        const fl_node *m = g->nodes[i];
        mark[i] = m->born > since || m->edited > since ? FL_MAY_TOUCHED | FL_MAY_EDITED : 0;
    }
    for (size_t j = ps->n_log; j-- > 0 && ps->log[j].stamp > since;) {
        const fl_node *m = ps->log[j].node;
        if (is_live(g, m)) {
            mark[m->id] |= FL_MAY_TOUCHED;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const fl_node *m = g->nodes[i];
        bool touched = mark[i] & FL_MAY_TOUCHED;
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            const fl_node *f = k < m->n_inputs ? m->inputs[k].node : m->ctrl[k - m->n_inputs];
            if (touched) {
                mark[f->id] |= FL_MAY_NEAR;
            } else if (mark[f->id] & FL_MAY_TOUCHED) {
                mark[i] |= FL_MAY_NEAR;
            }
        }
    }
    ps->mark_valid = true;
    ps->mark_from = ps->quiet_version[p];
    ps->mark_version = ps->version;
    return !fn(g, mark);
}

static void count_added_removed(const fl_graph *g, uint32_t stamp, size_t *live, int64_t *removed,
                                int64_t *added) {
    size_t now = 0, born = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_REMOVED)) {
            now++;
            born += m->born == stamp;
        }
    }
    *removed = (int64_t)(*live - (now - born));
    *added = (int64_t)born;
    *live = now;
}

/* Infers and costs the whole graph again (the order is cleared, so inference
 * re-sorts). */
static fl_status refresh_whole(fl_ctx *c, const fl_options *opt, fl_cost_totals *t) {
    fl_graph *g = c->g;
    fl__graph_journal_save_all(g); /* every node is written below */
    for (size_t i = 0; i < g->n_nodes; i++) {
        g->nodes[i]->flags &= ~(uint32_t)FL_NODE_INCOMPLETE;
    }
    fl__infer_clear_feeds(g);
    fl_infer_result ir;
    g->order = NULL;
    fl_status st = fl__infer_shapes(c, opt, &ir);
    if (st != FL_OK) {
        return st;
    }
    return fl__cost_graph(c, t);
}

static bool sym_same(fl_sym a, fl_sym b) {
    return fl_sym_is_unknown(a) ? fl_sym_is_unknown(b) : !fl_sym_is_unknown(b) && fl__sym_eq(a, b);
}

/* Every field of the two costs by meaning (an unknown count equals an
 * unknown one whatever its bits; fl__node_cost_same compares words). */
static bool cost_same(const fl_cost *a, const fl_cost *b) {
    return sym_same(a->flops, b->flops) && sym_same(a->tfprof_flops, b->tfprof_flops) &&
           sym_same(a->macs, b->macs) && sym_same(a->int_ops, b->int_ops) &&
           sym_same(a->bytes_read, b->bytes_read) && sym_same(a->bytes_written, b->bytes_written) &&
           a->has_rule == b->has_rule && a->tfprof_rule == b->tfprof_rule &&
           a->incomplete == b->incomplete && a->trips_unknown == b->trips_unknown &&
           a->per_load == b->per_load;
}

static bool tensor_same(const fl_tensor *a, const fl_tensor *b) {
    if (a->dtype != b->dtype || a->shape.rank != b->shape.rank ||
        !fl__value_same(a->value, b->value)) {
        return false;
    }
    for (int j = 0; j < a->shape.rank; j++) {
        if (!sym_same(a->shape.dims[j], b->shape.dims[j])) {
            return false;
        }
    }
    return true;
}

/* Totals updated by differences (fl__cost_graph_update) against the sum
 * over every node: every sum and count, and the parts the next update
 * starts from (a part the whole sum could not know, parts_bad, aside). */
static bool totals_same(const fl_cost_totals *t, const fl_cost_totals *w) {
    bool same = t->nodes_with_rule == w->nodes_with_rule &&
                t->nodes_without_rule == w->nodes_without_rule &&
                t->nodes_incomplete == w->nodes_incomplete &&
                t->nodes_trips_unknown == w->nodes_trips_unknown &&
                t->nodes_values == w->nodes_values;
    const fl_sym *sa[] = {
        &t->flops,         &t->tfprof_flops,      &t->macs, &t->int_ops, &t->bytes_read,
        &t->bytes_written, &t->bytes_without_rule};
    const fl_sym *sb[] = {
        &w->flops,         &w->tfprof_flops,      &w->macs, &w->int_ops, &w->bytes_read,
        &w->bytes_written, &w->bytes_without_rule};
    for (int i = 0; i < FL_COST_N_SUMS; i++) {
        bool bad = (t->parts_bad | w->parts_bad) & (1u << i);
        same = same && sym_same(*sa[i], *sb[i]) && t->n_unknown[i] == w->n_unknown[i] &&
               (bad || sym_same(t->part[i], w->part[i]));
    }
    return same;
}

/* The verifier's check of the incremental update: the whole inference and
 * costing, run after it, must give every node the same outputs, counts and
 * FL_NODE_INCOMPLETE (and the same totals). */
static fl_status check_incremental(fl_ctx *c, const fl_options *opt, const fl_cost_totals *t) {
    fl_graph *g = c->g;
    size_t n = g->n_nodes, n_out = 0;
    for (size_t i = 0; i < n; i++) {
        n_out += g->nodes[i]->n_outputs > 0 ? (size_t)g->nodes[i]->n_outputs : 0;
    }
    fl_cost *costs = malloc((n + 1) * sizeof(fl_cost));
    fl_tensor *outs = malloc((n_out + 1) * sizeof(fl_tensor));
    fl_node **nodes = malloc((n + 1) * sizeof(fl_node *));
    uint32_t *flags = malloc((n + 1) * sizeof(uint32_t));
    if (!costs || !outs || !nodes || !flags) {
        free(costs);
        free(outs);
        free(nodes);
        free(flags);
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0, o = 0; i < n; i++) {
        fl_node *m = g->nodes[i];
        nodes[i] = m;
        costs[i] = fl__node_cost(m);
        flags[i] = m->flags & FL_NODE_INCOMPLETE;
        for (int k = 0; k < m->n_outputs; k++) {
            outs[o++] = m->outputs[k];
        }
    }
    fl_cost_totals whole;
    fl_status st = refresh_whole(c, opt, &whole);
    for (size_t i = 0, o = 0; st == FL_OK && i < n; i++) {
        fl_node *m = nodes[i];
        const fl_cost mk = fl__node_cost(m);
        bool same = cost_same(&costs[i], &mk) && flags[i] == (m->flags & FL_NODE_INCOMPLETE);
        for (int k = 0; k < m->n_outputs; k++, o++) {
            same = same && tensor_same(&outs[o], &m->outputs[k]);
        }
        if (!same) {
            st = fl__node_fail(c->d, FL_EINTERNAL, m,
                               "internal error: incremental re-inference after the pass differs "
                               "from the whole inference");
        }
    }
    if (st == FL_OK && !totals_same(t, &whole)) {
        st = fl__diag_fail(c->d, FL_EINTERNAL,
                           "internal error: incremental totals after the pass differ from the "
                           "whole costing");
    }
    free(costs);
    free(outs);
    free(nodes);
    free(flags);
    return st;
}

/* Compacts, re-infers and re-costs after a pass: only what the pass changed
 * and what that changes downstream (fl__infer_refresh, against `before`, the
 * journal opened before the pass), or the whole graph when the incremental
 * update does not apply. With `verify` the incremental result is checked
 * against the whole one. Warnings that inference already gave for the
 * original graph are not repeated. */
static fl_status refresh(fl_ctx *c, const fl_options *opt, const fl_graph_snapshot *before,
                         bool verify, pass_stamp *ps, fl_cost_totals *t, int64_t *reinferred) {
    fl_graph *g = c->g;
    /* Every way on sorts before a consumer count is read: re-inference's
     * (fl__infer_refresh: the order is cleared) or the whole inference's. */
    fl_status st = fl__graph_compact_to_sort(g, c->d);
    if (st != FL_OK) {
        return st;
    }
    size_t nw = c->d->n_warnings, nd = c->d->n_warnings_dropped;
    uint8_t *redone = NULL;
    st = fl__infer_refresh(c, opt, before, &redone);
    if (st == FL_OK && !redone) {
        fl__graph_journal_save_all(g); /* every node is written below */
        for (size_t i = 0; i < g->n_nodes; i++) {
            g->nodes[i]->flags &= ~(uint32_t)FL_NODE_INCOMPLETE;
        }
        fl_infer_result ir;
        g->order = NULL;
        fl__infer_clear_feeds(g);
        st = fl__infer_shapes(c, opt, &ir);
    }
    c->d->n_warnings = nw;
    c->d->n_warnings_dropped = nd;
    if (st != FL_OK) {
        if (c->d->msg) {
            c->d->msg = fl__arena_printf(c->a, "re-inferring after the pass: %s", c->d->msg);
        }
        free(redone);
        return st;
    }
    bool incremental = redone != NULL;
    *reinferred = (int64_t)g->n_nodes;
    if (redone) {
        *reinferred = 0;
        for (size_t i = 0; i < g->n_nodes; i++) {
            *reinferred += redone[i] != 0;
            if (redone[i]) {
                log_node(ps, g->nodes[i]);
            }
        }
    } else {
        log_all(ps);
    }
    st = fl__cost_graph_update(c, t, redone, before);
    free(redone);
    if (st == FL_OK && incremental && verify) {
        st = check_incremental(c, opt, t);
        c->d->n_warnings = nw;
        c->d->n_warnings_dropped = nd;
    }
    return st;
}

/* After a pass that changed nothing (no node edited, added or removed),
 * the order from before it still holds: the passes clear g->order whether
 * or not they changed anything, and sorting again after every such pass
 * cost O(nodes + edges) each time (12 sorts where 3 are needed on a chain).
 * `verify` sorts anyway and checks that the result is the kept order: a
 * pass that edits edges without recording it is an internal error naming
 * no node. */
static fl_status keep_order(fl_graph *g, fl_node **order0, bool verify, fl_diag *d) {
    if (!order0 || verify) {
        fl_status st = fl__graph_toposort(g, d);
        if (st == FL_OK && order0 && memcmp(order0, g->order, g->n_nodes * sizeof(*order0))) {
            st = fl__diag_fail(d, FL_EINTERNAL,
                               "internal error: the pass changed the graph's edges without "
                               "recording a change");
        }
        return st;
    }
    g->order = order0;
    return FL_OK;
}

/* The verifier's check of the consumer counts after a pass: each output's
 * and each node's control count is the number of edges reading it (the
 * refresh's compaction leaves them to the sort that follows it). */
static fl_status check_consumers(const fl_graph *g, fl_diag *d) {
    size_t n = g->n_nodes, n_out = 0;
    size_t *at = malloc((n + 1) * sizeof(size_t));
    for (size_t i = 0; at && i < n; i++) {
        at[i] = n_out;
        n_out += g->nodes[i]->n_outputs > 0 ? (size_t)g->nodes[i]->n_outputs : 0;
    }
    int64_t *reads = at ? calloc(n_out + n + 1, sizeof(int64_t)) : NULL;
    if (!reads) {
        free(at);
        return fl__diag_oom(d);
    }
    int64_t *ctrl_reads = reads + n_out;
    for (size_t i = 0; i < n; i++) {
        const fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs; k++) {
            reads[at[m->inputs[k].node->id] + (size_t)m->inputs[k].port]++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            ctrl_reads[m->ctrl[k]->id]++;
        }
    }
    fl_status st = FL_OK;
    for (size_t i = 0; i < n && st == FL_OK; i++) {
        const fl_node *m = g->nodes[i];
        bool same = m->n_ctrl_consumers == ctrl_reads[i];
        for (int k = 0; k < m->n_outputs && same; k++) {
            same = m->outputs[k].n_consumers == reads[at[i] + (size_t)k];
        }
        if (!same) {
            st = fl__node_fail(d, FL_EINTERNAL, m,
                               "internal error: the node's consumer counts after the pass are not "
                               "its readers'");
        }
    }
    free(at);
    free(reads);
    return st;
}

/* The test hook (pipeline.h), per thread. */
static _Thread_local fl_pipeline_test_hook test_hook;
static _Thread_local void *test_hook_arg;

void fl__pipeline_set_test_hook(fl_pipeline_test_hook fn, void *arg) {
    test_hook = fn;
    test_hook_arg = arg;
}

/* Runs pass p once and brings the graph up to date after it: compaction,
 * re-inference and costing into *cur (when it changed anything: *changed),
 * the outputs check, the verifier. Fills rec's counts. Every failure here is
 * the pass's: the caller rolls the graph back. */
static fl_status run_pass(fl_ctx *c, const fl_options *opt, const fl_pipeline_config *cfg,
                          fl_ledger *led, int p, const out_snap *snaps, size_t n_snaps,
                          const fl_graph_snapshot *before, const fl_graph_snapshot *full,
                          pass_stamp *ps, fl_pass_record *rec, fl_cost_totals *cur, bool *changed) {
    fl_graph *g = c->g;
    fl_status st;
    g->birth = ++ps->stamp;
    fl_node **order0 = g->order; /* arena memory: stays valid after the pass */
    size_t n0 = g->n_nodes;
    uint64_t removals0 = fl__graph_removals(), edits0 = g->edits;
    fl_pass_ctx pc = {c, &cfg->opt, led, pass_names[p], 0, 0, 0};
    st = pass_fns[p](&pc);
    if (st == FL_OK && test_hook) {
        st = test_hook(&pc, test_hook_arg);
    }
    fl__uses_release(g); /* the pass's use lists end with it */
    if (st != FL_OK) {
        return st;
    }
    /* Every node the pass changed must say so (fl_node.edited), before it
     * writes it: what is brought up to date after it is found from the marks,
     * and what the journal saved at the mark is what a rollback restores. */
    const fl_node *unmarked = full ? fl__graph_snapshot_unmarked(full) : NULL;
    if (unmarked) {
        ps->mark_bug = true;
        return fl__node_fail(c->d, FL_EINTERNAL, unmarked,
                             "internal error: the pass changed the node without marking it "
                             "(graph/mutate.h)");
    }
    if (before->early) {
        ps->mark_bug = true;
        return fl__node_fail(c->d, FL_EINTERNAL, before->early,
                             "internal error: the pass changed the node before marking it "
                             "(fl__node_touch comes first, graph/graph.h)");
    }
    /* No removal and the same node count: nothing added or removed (a node
     * added and compacted away implies a removal). `verify` counts anyway
     * and checks that. */
    bool quiet = g->n_nodes == n0 && fl__graph_removals() == removals0;
    if (!quiet || cfg->verify) {
        count_added_removed(g, ps->stamp, &ps->live, &rec->nodes_removed, &rec->nodes_added);
        if (quiet && (rec->nodes_removed || rec->nodes_added)) {
            return fl__diag_fail(c->d, FL_EINTERNAL,
                                 "internal error: the pass removed or added nodes without "
                                 "fl__graph_remove_node");
        }
    }
    rec->nodes_rewritten = pc.rewritten;
    /* A pass that edited no node (g->edits did not move: every edit goes
     * through fl__node_touch, which the verifier above checks) and added or
     * removed none left the graph as it was: its shapes and costs still hold
     * (the common case in iteration 2), whatever its ledger says. */
    *changed = g->edits != edits0 || rec->nodes_removed || rec->nodes_added;
    if (*changed) {
        st = refresh(c, opt, before, cfg->verify, ps, cur, &rec->nodes_reinferred);
        if (st == FL_OK) {
            st = check_outputs(c, snaps, n_snaps, "the pass");
        }
    } else if (!g->order) {
        st = keep_order(g, order0, cfg->verify, c->d);
    }
    if (st == FL_OK && cfg->verify) {
        st = fl__graph_verify(g, c->d);
    }
    if (st == FL_OK && cfg->verify) {
        st = check_consumers(g, c->d);
    }
    if (st == FL_OK && before->early) {
        ps->mark_bug = true;
        st = fl__node_fail(c->d, FL_EINTERNAL, before->early,
                           "internal error: re-inference after the pass changed the node before "
                           "saving it (graph/snapshot.h)");
    }
    return st;
}

/* Records that pass `name` failed with `why` and was skipped. */
static fl_status note_failure(fl_ctx *c, const fl_pipeline_config *cfg, const char *name, int it,
                              fl_status err, const char *why, size_t record) {
    char *msg = fl__arena_printf(c->a, "pass '%s' failed and was skipped: %s", name, why);
    if (!msg) {
        return fl__diag_oom(c->d);
    }
    fl_pass_failures *f = cfg->failures;
    if (!f) {
        fl__diag_warn(c->d, "%s", msg);
        return FL_OK;
    }
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 4;
        fl_pass_failure *ni = fl__arena_grow(c->a, f->items, f->n, nc, sizeof(fl_pass_failure));
        if (!ni) {
            return fl__diag_oom(c->d);
        }
        f->items = ni;
        f->cap = nc;
    }
    /* why, within msg (d's message may not outlive the next error) */
    const char *w = msg + strlen(msg) - strlen(why);
    f->items[f->n++] = (fl_pass_failure){name, it, err, msg, w, record};
    return FL_OK;
}

/* Puts the graph back as it was before the pass, from the journal `snap`.
 * With the verifier's full copy, the result is compared with it: where the
 * verifier found an edit the journal could not see (ps->mark_bug), the full
 * copy is restored; any other difference is an internal error that fails
 * the run. */
static fl_status roll_back(fl_ctx *c, fl_graph_snapshot *snap, fl_graph_snapshot *full,
                           pass_stamp *ps) {
    fl__graph_snapshot_restore(snap, c->g);
    if (!full) {
        return FL_OK;
    }
    const fl_node *at;
    const char *what = fl__graph_snapshot_mismatch(full, c->g, &at);
    if (what && ps->mark_bug) {
        fl__graph_snapshot_restore(full, c->g);
        what = fl__graph_snapshot_mismatch(full, c->g, &at);
    }
    ps->mark_bug = false;
    if (what) {
        return fl__node_fail(c->d, FL_EINTERNAL, at,
                             "internal error: the rollback after a failed pass did not restore "
                             "%s (graph/snapshot.h)",
                             what);
    }
    return FL_OK;
}

/* Starts rec, the record of pass p in iteration `it`: no changes, no
 * entries yet, the totals before and after those of cur. */
static void record_start(fl_pass_record *rec, const fl_ledger *led, int p, int it,
                         const fl_cost_totals *cur) {
    rec->pass = pass_names[p];
    rec->iteration = it;
    rec->nodes_removed = rec->nodes_added = rec->nodes_rewritten = rec->nodes_reinferred = 0;
    rec->before = *cur;
    rec->after = *cur;
    rec->first_entry = led->n_entries;
    rec->n_entries = 0;
}

/* The record of pass p, skipped in iteration `it` (see run_guarded), into
 * rec (the ledger's next): that of a pass that ran and changed nothing. */
static fl_status record_skipped(fl_ledger *led, fl_pass_record *rec, int p, int it, pass_stamp *ps,
                                const fl_cost_totals *cur) {
    ps->quiet_at[p] = ps->version + 1;
    ps->quiet_seen[p] = true;
    ps->quiet_stamp[p] = ps->stamp;
    ps->quiet_version[p] = ps->version;
    record_start(rec, led, p, it, cur);
    led->n_passes++;
    return FL_OK;
}

/* Pass p, run by the verifier where it would have been skipped, left a
 * trace: not a failure of the pass (rolled back, the run goes on) but a
 * wrong skip, which would have lost its work. Fails the analysis naming
 * the pass, the iteration and the node: the one its first ledger entry
 * (from `first`) names, else the first it added or edited. */
static fl_status wrong_skip(fl_ctx *c, const fl_ledger *led, int p, int it, const pass_stamp *ps,
                            size_t first) {
    const fl_graph *g = c->g;
    const char *noted = led->n_entries != first ? fl__ledger_entry(led, first)->node : NULL;
    const fl_node *at = noted ? fl__graph_find(g, noted) : NULL;
    for (size_t i = 0; i < g->n_nodes && !at; i++) {
        const fl_node *m = g->nodes[i];
        at = m->born == ps->stamp || m->edited == ps->stamp ? m : NULL;
    }
    const char *name = at ? at->name : noted ? noted : "(none: a count or a warning)";
    return fl__diag_fail(c->d, FL_EINTERNAL,
                         "internal error: pass '%s' (iteration %d) changed node '%s' of a graph "
                         "where it would have been skipped: it had left it as it was, or the "
                         "changes since could give it no work (its skip test)",
                         pass_names[p], it, name);
}

/* Runs pass p of iteration `it` with a rollback: a journal of the graph
 * opened before it (graph/snapshot.h: each node the pass or the refresh
 * after it writes is saved at its first write), restored when the pass
 * fails (with anything but running out of memory or being cancelled).
 * With cfg->verify, `full` is a whole copy taken beside it, for the
 * verifier's check of the marks and of the rollback. Appends the pass's
 * record to the ledger (written where it stays: the pass's totals after it
 * are its record's `after`).
 *
 * *current says that `snap` (and `full`) still hold the graph as it is: the
 * previous pass changed nothing (by the measure run_pass uses to skip
 * re-inference: no node edited, added or removed), or failed and was
 * rolled back to it. Then they are not opened again. */
static fl_status run_guarded(fl_ctx *c, const fl_options *opt, const fl_pipeline_config *cfg,
                             fl_ledger *led, int p, int it, const out_snap *snaps, size_t n_snaps,
                             fl_graph_snapshot *snap, fl_graph_snapshot *full, pass_stamp *ps,
                             bool *current, fl_cost_totals *cur) {
    fl_graph *g = c->g;
    fl_diag *d = c->d;
    fl_status st;
    if (!g->order) {
        st = fl__graph_toposort(g, d);
        if (st != FL_OK) {
            return st;
        }
    }
    /* The pass left this very graph as it was last time (pass_stamp), or
     * the changes since cannot give it work (its skip test, pass.h): the
     * record of a pass that changed nothing, without running it. With
     * cfg->verify it runs, and a trace fails the analysis (below). */
    bool again = ps->quiet_at[p] == ps->version + 1 || may_skip(g, ps, p);
    fl_pass_record *rec = ledger_next_record(led);
    if (!rec) {
        return fl__diag_oom(d);
    }
    if (again && !cfg->verify) {
        return record_skipped(led, rec, p, it, ps, cur);
    }
    /* The journal's (and the full copy's) buffers count against the memory
     * limit: the arena's limit is lowered by their size while the pass
     * runs, and the journal may not grow past what was left at its start. */
    size_t limit = c->a->limit, budget = 0;
    if (!*current) {
        if (limit) {
            budget = limit > c->a->reserved ? limit - c->a->reserved : 0;
            if (!budget) {
                return fl__diag_over_limit(d);
            }
        }
        st = full ? fl__graph_snapshot_take(full, g, budget, d) : FL_OK;
        if (st == FL_OK) {
            size_t left =
                full && budget ? (budget > full->bytes ? budget - full->bytes : 1) : budget;
            st = fl__graph_journal_open(snap, g, left, full, d);
        }
        if (st != FL_OK) {
            return st;
        }
        *current = true;
    }
    size_t held = snap->bytes + (full ? full->bytes : 0);
    if (limit && limit > held) {
        c->a->limit = limit - held;
    }
    fl_status d_status = d->status;
    char *d_msg = d->msg;
    size_t d_nw = d->n_warnings, d_nd = d->n_warnings_dropped;

    record_start(rec, led, p, it, cur);
    bool changed = true;
    size_t live0 = ps->live;
    st = run_pass(c, opt, cfg, led, p, snaps, n_snaps, snap, full, ps, rec, &rec->after, &changed);
    if (snap->oom) { /* the journal did not fit: no rollback possible */
        c->a->limit = limit;
        return snap->over_limit ? fl__diag_over_limit(d) : fl__diag_oom(d);
    }
    bool trace = changed || led->n_entries != rec->first_entry || rec->nodes_rewritten ||
                 rec->nodes_removed || rec->nodes_added || d->n_warnings != d_nw ||
                 d->n_warnings_dropped != d_nd || d->status != d_status || d->msg != d_msg;
    if (st == FL_OK && again && trace) {
        c->a->limit = limit;
        return wrong_skip(c, led, p, it, ps, rec->first_entry);
    }
    if (st == FL_OK && changed) {
        ps->version++;
        ps->quiet_seen[p] = false;
        log_changes(g, ps, snap);
    } else if (st == FL_OK && !trace) {
        ps->quiet_at[p] = ps->version + 1;
        ps->quiet_seen[p] = true;
        ps->quiet_stamp[p] = ps->stamp;
        ps->quiet_version[p] = ps->version;
    } else {
        ps->quiet_seen[p] = false;
    }
    c->a->limit = limit;
    *current = st != FL_OK || !changed;
    if (st != FL_OK) {
        fl_status err = d->status != FL_OK ? d->status : st;
        if (c->a->failed) {
            d->status = d_status;
            d->msg = d_msg;
            return fl__diag_oom(d);
        }
        if (err == FL_ENOMEM || err == FL_ECANCELED) {
            return err;
        }
        const char *why = d->msg ? d->msg : fl_status_str(err);
        st = roll_back(c, snap, full, ps);
        if (st != FL_OK) {
            return st;
        }
        ps->live = live0;
        d->status = d_status;
        d->msg = d_msg;
        d->n_warnings = d_nw;
        d->n_warnings_dropped = d_nd;
        led->n_entries = rec->first_entry;
        rec->nodes_removed = rec->nodes_added = rec->nodes_rewritten = rec->nodes_reinferred = 0;
        rec->after = *cur;
        st = note_failure(c, cfg, pass_names[p], it, err, why, led->n_passes);
        if (st != FL_OK) {
            return st;
        }
    }
    *cur = rec->after;
    rec->n_entries = led->n_entries - rec->first_entry;
    led->n_passes++;
    return FL_OK;
}

/* An ONNX model of opset 1-6 with a node that broadcasts B along a middle
 * axis of A (fl__ox_legacy_unaligned): the rewrite rules read element-wise
 * ops with numpy broadcasting, so no pass runs, with a warning naming the
 * node. */
static void legacy_guard(fl_ctx *c, bool on[FL_PASS_COUNT]) {
    fl_graph *g = c->g;
    if (!g->onnx.is_onnx || g->onnx.opset >= 7) {
        return;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (!n || !fl__ox_legacy_unaligned(c, n)) {
            continue;
        }
        bool any = false;
        for (int p = 0; p < FL_PASS_COUNT; p++) {
            any = any || on[p];
            on[p] = false;
        }
        if (any) {
            fl__diag_warn(c->d,
                          "no rewrite pass run: node '%s' (%s) broadcasts input 1 along attr "
                          "axis, opset %lld's legacy broadcasting, which the rewrite rules do not "
                          "model",
                          n->name, n->op, (long long)g->onnx.opset);
        }
        return;
    }
}

fl_status fl__pipeline_run(fl_ctx *c, const fl_options *opt, const fl_pipeline_config *cfg,
                           fl_ledger *led, fl_cost_totals *after) {
    fl_graph *g = c->g;
    bool on[FL_PASS_COUNT];
    fl_status st = fl__pipeline_select(cfg, on, c->d);
    if (st != FL_OK) {
        return st;
    }
    legacy_guard(c, on);
    out_snap *snaps = NULL;
    size_t n_snaps = 0;
    st = mark_outputs(c, cfg, &snaps, &n_snaps);
    if (st != FL_OK) {
        return st;
    }
    fl_cost_totals cur;
    if (cfg->costed) {
        cur = *cfg->costed;
    } else if ((st = fl__cost_graph(c, &cur)) != FL_OK) {
        return st;
    }
    fl_graph_snapshot snap, full;
    fl__graph_snapshot_init(&snap);
    fl__graph_snapshot_init(&full);
    /* mark_outputs cleared every removal mark: all nodes are live. */
    pass_stamp ps;
    memset(&ps, 0, sizeof(ps));
    ps.stamp = ps.all_since = g->birth;
    ps.live = g->n_nodes;
    bool current = false;
    int iters = cfg->opt.iterations > 0 ? cfg->opt.iterations : 2;
    for (int it = 0; it < iters && st == FL_OK; it++) {
        for (int p = 0; p < FL_PASS_COUNT && st == FL_OK; p++) {
            /* qdq and transpose run (and have a record) only where they
             * apply; transpose in the first iteration only */
            if (!on[p] || (p == FL_PASS_QDQ && !fl__pass_qdq_applies(g)) ||
                (p == FL_PASS_TRANSPOSE && (it > 0 || !fl__pass_transpose_applies(g)))) {
                continue;
            }
            st = fl__diag_check_stop(c->d);
            fl__diag_phase(c->d, pass_names[p], it);
            if (st == FL_OK) {
                st = run_guarded(c, opt, cfg, led, p, it, snaps, n_snaps, &snap,
                                 cfg->verify ? &full : NULL, &ps, &current, &cur);
            }
        }
    }
    fl__graph_snapshot_free(&snap);
    fl__graph_snapshot_free(&full);
    free(ps.log);
    free(ps.mark);
    if (st != FL_OK) {
        return st;
    }
    if (!g->order) {
        st = fl__graph_toposort(g, c->d);
        if (st != FL_OK) {
            return st;
        }
    }
    /* Each pass's changes were checked right after it and rolled back when
     * they broke an output, so this fails only if a rollback itself went
     * wrong: a last guard, failing the run (it names no pass). */
    st = check_outputs(c, snaps, n_snaps, "the passes");
    if (st != FL_OK) {
        return st;
    }
    *after = cur;
    return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
}
