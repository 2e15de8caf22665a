/*
 * diffout.c - `foldline diff`'s output: totals (as given and after the
 * passes), estimated time per profile, per-op-type counts, nodes added,
 * removed and changed, and the --fail-on checks; as text or JSON (README,
 * "Comparing two models"; schema in proto/json/foldline.schema.json).
 */
#include "diffout.h"

#include "cli.h"
#include "diff.h"
#include "print.h"
#include "roofcli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One op type on one side: summed over its nodes the totals count. */
typedef struct op_side {
    bool present;
    int64_t count;
    int64_t flops, macs, int_ops, bytes;
    bool symbolic; /* some node's count is a formula: sums not shown */
} op_side;

typedef struct op_row {
    const char *op;
    op_side s[2];
} op_row;

typedef struct node_cmp {
    const char **removed, **added;
    const fl_report_node **changed_a, **changed_b;
    size_t n_removed, n_added, n_changed, n_common;
} node_cmp;

static int str_cmp(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int row_cmp_name(const void *key, const void *row) {
    return strcmp((const char *)key, ((const op_row *)row)->op);
}

/* Ordered by the larger FLOPs of the two sides, then by name. */
static int row_cmp_flops(const void *x, const void *y) {
    const op_row *a = x, *b = y;
    int64_t fa = a->s[0].flops > a->s[1].flops ? a->s[0].flops : a->s[1].flops;
    int64_t fb = b->s[0].flops > b->s[1].flops ? b->s[0].flops : b->s[1].flops;
    if (fa != fb) {
        return fa < fb ? 1 : -1;
    }
    return strcmp(a->op, b->op);
}

/* Adds report r's op types and node sums as side `k` of rows (sorted by
 * name). */
static void fill_side(op_row *rows, size_t n, const fl_report *r, int k) {
    for (size_t i = 0; i < r->n_ops; i++) {
        op_row *row = bsearch(r->ops[i].op, rows, n, sizeof *rows, row_cmp_name);
        if (row) {
            row->s[k].present = true;
            row->s[k].count = r->ops[i].count;
        }
    }
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        const fl_report_node *nd = &r->nodes[i];
        op_row *row = bsearch(nd->op, rows, n, sizeof *rows, row_cmp_name);
        if (!row || nd->incomplete) {
            continue;
        }
        op_side *s = &row->s[k];
        if (!nd->flops.known || !nd->macs.known || !nd->int_ops.known || !nd->bytes.known) {
            s->symbolic = true;
            continue;
        }
        s->flops += nd->flops.value;
        s->macs += nd->macs.value;
        s->int_ops += nd->int_ops.value;
        s->bytes += nd->bytes.value;
    }
}

/* The op types of both reports, each with both sides. */
static op_row *op_rows(const fl_report *a, const fl_report *b, size_t *n_out) {
    size_t cap = a->n_ops + b->n_ops;
    const char **names = calloc(cap + 1, sizeof(char *));
    op_row *rows = calloc(cap + 1, sizeof(op_row));
    if (!names || !rows) {
        free(names);
        free(rows);
        return NULL;
    }
    for (size_t i = 0; i < a->n_ops; i++) {
        names[i] = a->ops[i].op;
    }
    for (size_t i = 0; i < b->n_ops; i++) {
        names[a->n_ops + i] = b->ops[i].op;
    }
    qsort(names, cap, sizeof(char *), str_cmp);
    size_t n = 0;
    for (size_t i = 0; i < cap; i++) {
        if (n == 0 || strcmp(rows[n - 1].op, names[i]) != 0) {
            rows[n++].op = names[i];
        }
    }
    free(names);
    fill_side(rows, n, a, 0);
    fill_side(rows, n, b, 1);
    qsort(rows, n, sizeof *rows, row_cmp_flops);
    *n_out = n;
    return rows;
}

static int node_ptr_cmp(const void *x, const void *y) {
    const fl_report_node *a = *(const fl_report_node *const *)x;
    const fl_report_node *b = *(const fl_report_node *const *)y;
    return strcmp(a->name, b->name);
}

static const fl_report_node **sorted_nodes(const fl_report *r) {
    const fl_report_node **v = calloc(r->n_nodes_detail + 1, sizeof(*v));
    if (v) {
        for (size_t i = 0; i < r->n_nodes_detail; i++) {
            v[i] = &r->nodes[i];
        }
        qsort(v, r->n_nodes_detail, sizeof(*v), node_ptr_cmp);
    }
    return v;
}

/* Nodes by name: in BASE only (removed), in NEW only (added), in both with
 * another op type (changed). */
static bool compare_nodes(const fl_report *a, const fl_report *b, node_cmp *c) {
    const fl_report_node **x = sorted_nodes(a), **y = sorted_nodes(b);
    size_t na = a->n_nodes_detail, nb = b->n_nodes_detail;
    c->removed = calloc(na + 1, sizeof(char *));
    c->added = calloc(nb + 1, sizeof(char *));
    c->changed_a = calloc(na + 1, sizeof(*c->changed_a));
    c->changed_b = calloc(na + 1, sizeof(*c->changed_b));
    bool ok = x && y && c->removed && c->added && c->changed_a && c->changed_b;
    size_t i = 0, j = 0;
    while (ok && (i < na || j < nb)) {
        int d = i == na ? 1 : j == nb ? -1 : strcmp(x[i]->name, y[j]->name);
        if (d < 0) {
            c->removed[c->n_removed++] = x[i++]->name;
        } else if (d > 0) {
            c->added[c->n_added++] = y[j++]->name;
        } else {
            c->n_common++;
            if (strcmp(x[i]->op, y[j]->op) != 0) {
                c->changed_a[c->n_changed] = x[i];
                c->changed_b[c->n_changed++] = y[j];
            }
            i++;
            j++;
        }
    }
    free(x);
    free(y);
    return ok;
}

static void node_cmp_free(node_cmp *c) {
    free(c->removed);
    free(c->added);
    free(c->changed_a);
    free(c->changed_b);
}

/* ------------------------------------------------------------------------- */
/* The LLM view: its metrics, named as --fail-on names them                   */
/* ------------------------------------------------------------------------- */

static const char *const llm_fixed[] = {"prefill.flops_per_token", "prefill.macs_per_token",
                                        "prefill.bytes_per_token", "decode.flops_per_token",
                                        "decode.macs_per_token",   "decode.bytes_per_token",
                                        "kv_bytes_per_token"};
#define N_LLM_FIXED (sizeof llm_fixed / sizeof llm_fixed[0])

/* The profiles of the view's times: BASE's, else NEW's. */
static const fl_report_llm *llm_times(const fl_report *a, const fl_report *b) {
    return a->llm && a->llm->n_roofline ? a->llm : b->llm;
}

/* Either side has the view after the passes. */
static bool llm_after(const fl_report *a, const fl_report *b) {
    return (a->llm && a->llm->after) || (b->llm && b->llm->after);
}

/* Metrics of one block: the fixed ones and two times per profile. */
static size_t llm_block(const fl_report *a, const fl_report *b) {
    const fl_report_llm *t = llm_times(a, b);
    return N_LLM_FIXED + 2 * (t ? t->n_roofline : 0);
}

/* The view's metrics, then with the passes the same named "after."
 * (kv_bytes_per_token, which the passes do not change, left out). */
static size_t llm_n_metrics(const fl_report *a, const fl_report *b) {
    return llm_after(a, b) ? 2 * llm_block(a, b) - 1 : llm_block(a, b);
}

/* Metric i of the view's list ("decode.time_per_token@t4") into buf; *time
 * when it is a time (seconds). */
static const char *llm_metric_name(const fl_report *a, const fl_report *b, size_t i, char *buf,
                                   size_t size, bool *time) {
    const char *pre = "";
    if (i >= llm_block(a, b)) {
        pre = "after.";
        i = i - llm_block(a, b) + (i - llm_block(a, b) >= N_LLM_FIXED - 1 ? 1 : 0);
    }
    *time = i >= N_LLM_FIXED;
    if (i < N_LLM_FIXED) {
        snprintf(buf, size, "%s%s", pre, llm_fixed[i]);
        return buf;
    }
    i -= N_LLM_FIXED;
    snprintf(buf, size, "%s%s.time_per_token@%s", pre, i % 2 ? "decode" : "prefill",
             llm_times(a, b)->roofline[i / 2].profile);
    return buf;
}

/* One side's value: NAN when it has none. */
static double llm_side(const fl_report *r, const char *metric) {
    fl_diff_value v;
    if (!r->llm || !fl_diff_metric(r, metric, &v) || !v.present) {
        return NAN;
    }
    return v.v;
}

static void json_num(FILE *f, double x) {
    if (isnan(x)) {
        fputs("null", f);
    } else {
        fprintf(f, "%.17g", x);
    }
}

static void json_llm_side(FILE *f, const fl_report_llm *v) {
    if (!v) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"prompt\": %" PRId64 ", \"context\": %" PRId64 "}", v->prompt, v->context);
    }
}

/* "llm": null, or both sides' settings and each metric's delta. */
static void json_llm(FILE *f, const fl_report *a, const fl_report *b) {
    fputs("  \"llm\": ", f);
    if (!a->llm && !b->llm) {
        fputs("null,\n", f);
        return;
    }
    fputs("{\"base\": ", f);
    json_llm_side(f, a->llm);
    fputs(", \"new\": ", f);
    json_llm_side(f, b->llm);
    fputs(", \"metrics\": [", f);
    for (size_t i = 0; i < llm_n_metrics(a, b); i++) {
        char buf[160];
        bool t;
        const char *m = llm_metric_name(a, b, i, buf, sizeof buf, &t);
        double x = llm_side(a, m), y = llm_side(b, m);
        fputs(i ? ",\n    {\"metric\": " : "\n    {\"metric\": ", f);
        fl_print_json_str(f, m);
        fputs(", \"base\": ", f);
        json_num(f, x);
        fputs(", \"new\": ", f);
        json_num(f, y);
        fputs(", \"delta\": ", f);
        json_num(f, y - x);
        fputs(", \"percent\": ", f);
        if (isnan(x) || isnan(y) || (x == 0 && y != x)) {
            fputs("null", f);
        } else {
            json_num(f, x != 0 ? (y - x) / fabs(x) * 100.0 : 0.0);
        }
        fputc('}', f);
    }
    fputs("\n  ]},\n", f);
}

/* ------------------------------------------------------------------------- */
/* JSON                                                                       */
/* ------------------------------------------------------------------------- */

static void json_count(FILE *f, const fl_quantity *q) {
    if (q->known) {
        fprintf(f, "{\"value\": %" PRId64 "}", q->value);
    } else {
        fputs("{\"formula\": ", f);
        fl_print_json_str(f, q->text);
        fputc('}', f);
    }
}

static void json_percent(FILE *f, double base, double delta) {
    if (base != 0) {
        fprintf(f, "%.6g", delta / fabs(base) * 100.0);
    } else if (delta == 0) {
        fputs("0", f);
    } else {
        fputs("null", f);
    }
}

/* {"base": COUNT, "new": COUNT, "delta": N|null, "percent": X|null} */
static void json_delta(FILE *f, const fl_quantity *a, const fl_quantity *b) {
    fputs("{\"base\": ", f);
    json_count(f, a);
    fputs(", \"new\": ", f);
    json_count(f, b);
    if (a->known && b->known) {
        fprintf(f, ", \"delta\": %" PRId64 ", \"percent\": ", b->value - a->value);
        json_percent(f, (double)a->value, (double)(b->value - a->value));
        fputc('}', f);
    } else if (strcmp(a->text, b->text) == 0) { /* the same polynomial */
        fputs(", \"delta\": 0, \"percent\": 0}", f);
    } else {
        fputs(", \"delta\": null, \"percent\": null}", f);
    }
}

static fl_quantity known_q(int64_t v) {
    fl_quantity q = {true, v, ""};
    return q;
}

static void json_totals(FILE *f, const fl_totals *a, const fl_totals *b, const fl_report *ra,
                        const fl_report *rb) {
    const char *names[] = {"flops", "macs", "int_ops", "bytes", "bytes_read", "bytes_written"};
    const fl_quantity *qa[] = {&a->flops, &a->macs,       &a->int_ops,
                               &a->bytes, &a->bytes_read, &a->bytes_written};
    const fl_quantity *qb[] = {&b->flops, &b->macs,       &b->int_ops,
                               &b->bytes, &b->bytes_read, &b->bytes_written};
    fputc('{', f);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        fprintf(f, "%s\"%s\": ", k ? ",\n             " : "", names[k]);
        json_delta(f, qa[k], qb[k]);
    }
    fl_quantity na = known_q(a->nodes), nb = known_q(b->nodes);
    fputs(",\n             \"nodes\": ", f);
    json_delta(f, &na, &nb);
    if (ra && rb) {
        fl_quantity pa = known_q(ra->params), pb = known_q(rb->params);
        fputs(",\n             \"params\": ", f);
        json_delta(f, &pa, &pb);
    }
    fputc('}', f);
}

static void json_time(FILE *f, const fl_roofline_graph *a, const fl_roofline_graph *b) {
    if (!a || !b) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"base_s\": %.17g, \"new_s\": %.17g, \"delta_s\": %.17g, \"percent\": ", a->time_s,
            b->time_s, b->time_s - a->time_s);
    json_percent(f, a->time_s, b->time_s - a->time_s);
    fputc('}', f);
}

static void json_side_head(FILE *f, const char *path, const fl_report *r) {
    fputs("{\"path\": ", f);
    fl_print_json_str(f, path);
    fputs(", \"format\": ", f);
    fl_print_json_str(f, r->format);
    fprintf(f,
            ", \"nodes\": %" PRId64 ", \"params\": %" PRId64 ", \"complete\": %s, \"symbols\": [",
            r->n_nodes, r->params, r->complete ? "true" : "false");
    for (size_t i = 0; i < r->n_symbols; i++) {
        fprintf(f, "%s", i ? ", " : "");
        fl_print_json_str(f, r->symbols[i]);
    }
    fputs("]}", f);
}

static void json_op_side(FILE *f, const op_side *s) {
    if (!s->present) {
        fputs("null", f);
    } else if (s->symbolic) {
        fprintf(f,
                "{\"count\": %" PRId64
                ", \"flops\": null, \"macs\": null, \"int_ops\": null, \"bytes\": null}",
                s->count);
    } else {
        fprintf(f,
                "{\"count\": %" PRId64 ", \"flops\": %" PRId64 ", \"macs\": %" PRId64
                ", \"int_ops\": %" PRId64 ", \"bytes\": %" PRId64 "}",
                s->count, s->flops, s->macs, s->int_ops, s->bytes);
    }
}

static void json_ops(FILE *f, const op_row *rows, size_t n) {
    fputs("  \"ops\": [", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    {\"op\": " : "\n    {\"op\": ", f);
        fl_print_json_str(f, rows[i].op);
        fputs(", \"base\": ", f);
        json_op_side(f, &rows[i].s[0]);
        fputs(", \"new\": ", f);
        json_op_side(f, &rows[i].s[1]);
        fputc('}', f);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void json_names(FILE *f, const char *key, const char *const *v, size_t n) {
    fprintf(f, ",\n            \"%s\": [", key);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        fl_print_json_str(f, v[i]);
    }
    fputc(']', f);
}

static void json_nodes(FILE *f, const fl_report *a, const fl_report *b, const node_cmp *c) {
    fprintf(f,
            "  \"nodes\": {\"base\": %zu, \"new\": %zu, \"common\": %zu, \"removed_count\": %zu, "
            "\"added_count\": %zu",
            a->n_nodes_detail, b->n_nodes_detail, c->n_common, c->n_removed, c->n_added);
    json_names(f, "removed", c->removed, c->n_removed);
    json_names(f, "added", c->added, c->n_added);
    fputs(",\n            \"changed\": [", f);
    for (size_t i = 0; i < c->n_changed; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        fl_print_json_str(f, c->changed_a[i]->name);
        fputs(", \"base_op\": ", f);
        fl_print_json_str(f, c->changed_a[i]->op);
        fputs(", \"new_op\": ", f);
        fl_print_json_str(f, c->changed_b[i]->op);
        fputc('}', f);
    }
    fputs("]},\n", f);
}

static void json_checks(FILE *f, const fl_diff_result *res) {
    fputs("  \"fail_on\": [", f);
    for (size_t i = 0; i < res->n_checks; i++) {
        const fl_diff_check *c = &res->checks[i];
        fputs(i ? ",\n    {\"metric\": " : "\n    {\"metric\": ", f);
        fl_print_json_str(f, c->metric);
        fputs(", \"threshold\": ", f);
        fl_print_json_str(f, c->threshold->spec);
        fprintf(f, ", \"base\": %.17g, \"new\": %.17g, \"percent\": ", c->base, c->new_value);
        json_percent(f, c->base, c->new_value - c->base);
        fprintf(f, ", \"exceeded\": %s}", c->exceeded ? "true" : "false");
    }
    fprintf(f, "%s  \"exceeded\": %s\n}\n", res->n_checks ? "\n  ],\n" : "],\n",
            res->exceeded ? "true" : "false");
}

static void print_json(FILE *f, const fl_diff_result *res, const fl_report *a, const fl_report *b,
                       const op_row *rows, size_t n_rows, const node_cmp *c) {
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"foldline_version\": ", FL_JSON_SCHEMA_VERSION);
    fl_print_json_str(f, fl_version());
    fputs(",\n  \"kind\": \"diff\",\n  \"base\": ", f);
    json_side_head(f, res->base_path, a);
    fputs(",\n  \"new\": ", f);
    json_side_head(f, res->new_path, b);
    fputs(",\n  \"totals\": ", f);
    json_totals(f, &a->totals, &b->totals, a, b);
    fputs(",\n  \"after\": ", f);
    if (a->optimized && b->optimized) {
        json_totals(f, &a->after, &b->after, NULL, NULL);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"time\": [", f);
    for (size_t i = 0; i < a->n_roofline && i < b->n_roofline; i++) {
        fputs(i ? ",\n    {\"profile\": " : "\n    {\"profile\": ", f);
        fl_print_json_str(f, a->roofline[i].profile);
        fputs(", \"before\": ", f);
        json_time(f, a->roofline[i].before, b->roofline[i].before);
        fputs(", \"after\": ", f);
        json_time(f, a->roofline[i].after, b->roofline[i].after);
        fputc('}', f);
    }
    fputs(a->n_roofline ? "\n  ],\n" : "],\n", f);
    json_llm(f, a, b);
    json_ops(f, rows, n_rows);
    json_nodes(f, a, b, c);
    json_checks(f, res);
}

/* ------------------------------------------------------------------------- */
/* Text                                                                       */
/* ------------------------------------------------------------------------- */

/* A time as analyze prints it (557 ns, 1.38 ms); a delta (`sign`) with its sign. */
static const char *time_text(double s, bool sign, char *buf, size_t size) {
    char t[24];
    fl_roof_cli_fmt_time(fabs(s), t, sizeof t);
    snprintf(buf, size, "%s%s", !sign ? "" : s < 0 ? "-" : "+", t);
    return buf;
}

static void text_percent(FILE *f, double base, double delta) {
    if (base != 0) {
        fprintf(f, "  %+9.2f%%", delta / fabs(base) * 100.0);
    } else {
        fputs(delta == 0 ? "      0.00%" : "        new", f);
    }
}

static void text_row(FILE *f, const char *label, const fl_quantity *a, const fl_quantity *b) {
    fprintf(f, "  %-14s %18s %18s", label, a->text, b->text);
    if (a->known && b->known) {
        fprintf(f, " %+18" PRId64, b->value - a->value);
        text_percent(f, (double)a->value, (double)(b->value - a->value));
        fputc('\n', f);
    } else {
        fprintf(f, " %18s\n",
                a->text && b->text && strcmp(a->text, b->text) == 0 ? "0" : "(symbolic)");
    }
}

static void text_totals(FILE *f, const fl_totals *a, const fl_totals *b, const fl_report *ra,
                        const fl_report *rb) {
    text_row(f, "FLOPs", &a->flops, &b->flops);
    text_row(f, "MACs", &a->macs, &b->macs);
    if (!(a->int_ops.known && a->int_ops.value == 0 && b->int_ops.known &&
          b->int_ops.value == 0)) { /* integer ops of quantized ops: shown when there are any */
        text_row(f, "int ops", &a->int_ops, &b->int_ops);
    }
    text_row(f, "bytes", &a->bytes, &b->bytes);
    char na[24], nb[24];
    snprintf(na, sizeof na, "%" PRId64, a->nodes);
    snprintf(nb, sizeof nb, "%" PRId64, b->nodes);
    fl_quantity qa = {true, a->nodes, na}, qb = {true, b->nodes, nb};
    text_row(f, "nodes", &qa, &qb);
    if (ra && rb) {
        snprintf(na, sizeof na, "%" PRId64, ra->params);
        snprintf(nb, sizeof nb, "%" PRId64, rb->params);
        fl_quantity pa = {true, ra->params, na}, pb = {true, rb->params, nb};
        text_row(f, "params", &pa, &pb);
    }
}

static void text_time_row(FILE *f, const char *profile, const char *when,
                          const fl_roofline_graph *a, const fl_roofline_graph *b) {
    if (!a || !b) {
        return;
    }
    char label[96];
    snprintf(label, sizeof label, "%s%s", profile, when);
    char xs[32], ys[32], ds[32];
    fprintf(f, "  %-28s %15s %15s %17s", label, time_text(a->time_s, false, xs, sizeof xs),
            time_text(b->time_s, false, ys, sizeof ys),
            time_text(b->time_s - a->time_s, true, ds, sizeof ds));
    text_percent(f, a->time_s, b->time_s - a->time_s);
    fputc('\n', f);
}

static void text_llm_side(FILE *f, const char *label, const fl_report_llm *v) {
    if (v) {
        fprintf(f, " %s prompt %" PRId64 ", context %" PRId64, label, v->prompt, v->context);
    } else {
        fprintf(f, " %s no view", label);
    }
}

/* The view's per-token figures, base and new, named as --fail-on names them. */
static void text_llm(FILE *f, const fl_report *a, const fl_report *b) {
    if (!a->llm && !b->llm) {
        return;
    }
    fputs("\nLLM view (per token):", f);
    text_llm_side(f, "base", a->llm);
    fputc(';', f);
    text_llm_side(f, "new", b->llm);
    fputc('\n', f);
    for (size_t i = 0; i < llm_n_metrics(a, b); i++) {
        char buf[160], xs[32], ys[32], ds[32];
        bool t; /* a time: seconds */
        const char *m = llm_metric_name(a, b, i, buf, sizeof buf, &t);
        double x = llm_side(a, m), y = llm_side(b, m);
        if (isnan(x) || isnan(y) || !t) {
            snprintf(xs, sizeof xs, isnan(x) ? "-" : "%.1f", x);
            snprintf(ys, sizeof ys, isnan(y) ? "-" : "%.1f", y);
            snprintf(ds, sizeof ds, isnan(x) || isnan(y) ? "-" : "%+.1f", y - x);
        } else {
            time_text(x, false, xs, sizeof xs);
            time_text(y, false, ys, sizeof ys);
            time_text(y - x, true, ds, sizeof ds);
        }
        fprintf(f, "  %-34s %16s %16s %16s", m, xs, ys, ds);
        if (!isnan(x) && !isnan(y)) {
            text_percent(f, x, y - x);
        }
        fputc('\n', f);
    }
}

static void text_op_side(FILE *f, const op_side *s) {
    if (!s->present) {
        fprintf(f, " %6s %16s", "-", "-");
    } else if (s->symbolic) {
        fprintf(f, " %6" PRId64 " %16s", s->count, "(symbolic)");
    } else {
        fprintf(f, " %6" PRId64 " %16" PRId64, s->count, s->flops);
    }
}

static void text_ops(FILE *f, const op_row *rows, size_t n) {
    fprintf(f, "\nop types                   %6s %16s %6s %16s\n", "base", "FLOPs", "new", "FLOPs");
    for (size_t i = 0; i < n; i++) {
        const op_side *x = &rows[i].s[0], *y = &rows[i].s[1];
        bool same = x->present == y->present && x->count == y->count &&
                    x->symbolic == y->symbolic && x->flops == y->flops;
        if (same) {
            continue; /* unchanged op types are left out of the text */
        }
        fprintf(f, "  %-24.24s", rows[i].op);
        text_op_side(f, x);
        text_op_side(f, y);
        fputc('\n', f);
    }
}

/* Up to 10 names, then how many more. */
static void text_names(FILE *f, const char *label, const char *const *v, size_t n) {
    if (!n) {
        return;
    }
    fprintf(f, "  %-9s ", label);
    for (size_t i = 0; i < n && i < 10; i++) {
        fprintf(f, "%s%s", i ? ", " : "", v[i]);
    }
    if (n > 10) {
        fprintf(f, " (and %zu more; --json lists all)", n - 10);
    }
    fputc('\n', f);
}

static void text_head(FILE *f, const char *label, const char *path, const fl_report *r) {
    fprintf(f, "%-9s %s (%s, %" PRId64 " %s, %" PRId64 " params)%s\n", label, path, r->format,
            r->n_nodes, strcmp(r->format, "onnx") == 0 ? "operators" : "nodes", r->params,
            r->complete ? "" : " PARTIAL: the totals leave nodes out");
    if (r->n_symbols) {
        fprintf(f, "%-9s", "");
        for (size_t i = 0; i < r->n_symbols; i++) {
            fprintf(f, "%s%s", i ? ", " : " symbols ", r->symbols[i]);
        }
        fputc('\n', f);
    }
}

static void text_checks(FILE *f, const fl_diff_result *res) {
    for (size_t i = 0; i < res->n_checks; i++) {
        const fl_diff_check *c = &res->checks[i];
        char xs[32], ys[32];
        if (strstr(c->metric, "time")) { /* time, time@P, *.time_per_token...: seconds */
            time_text(c->base, false, xs, sizeof xs);
            time_text(c->new_value, false, ys, sizeof ys);
        } else {
            snprintf(xs, sizeof xs, "%.6g", c->base);
            snprintf(ys, sizeof ys, "%.6g", c->new_value);
        }
        fprintf(f, "%-9s %s:%s  %s -> %s", i ? "" : "\nfail-on", c->metric, c->threshold->spec, xs,
                ys);
        text_percent(f, c->base, c->new_value - c->base);
        fprintf(f, "  %s\n", c->exceeded ? "EXCEEDED" : "ok");
    }
}

/* Why a model with profiles has no estimated time: its symbols are free
 * (the LLM view estimated each phase instead). */
static void text_time_deferred(FILE *f, const char *side, const fl_report *r) {
    if (r->n_roofline || !r->llm || !r->llm->n_roofline) {
        return;
    }
    fprintf(f, "\nestimated time: none for %s: its symbols ", side);
    for (size_t i = 0; i < r->n_symbols; i++) {
        fprintf(f, "%s%s", i ? ", " : "", r->symbols[i]);
    }
    fputs(" are free (a time needs every symbol bound: --bind SYM=N); the LLM view has each "
          "phase's time per token\n",
          f);
}

static void print_text(FILE *f, const fl_diff_result *res, const fl_report *a, const fl_report *b,
                       const op_row *rows, size_t n_rows, const node_cmp *c) {
    text_head(f, "base", res->base_path, a);
    text_head(f, "new", res->new_path, b);
    fprintf(f, "\n%-16s %18s %18s %18s %11s\n", "", "base", "new", "delta", "%");
    text_totals(f, &a->totals, &b->totals, a, b);
    if (a->optimized && b->optimized) {
        fputs("after the rewrite passes\n", f);
        text_totals(f, &a->after, &b->after, NULL, NULL);
    }
    if (a->n_roofline && b->n_roofline) {
        fputs("\nestimated time\n", f);
    }
    for (size_t i = 0; i < a->n_roofline && i < b->n_roofline; i++) {
        text_time_row(f, a->roofline[i].profile, "", a->roofline[i].before, b->roofline[i].before);
        text_time_row(f, a->roofline[i].profile, " (after)", a->roofline[i].after,
                      b->roofline[i].after);
    }
    text_time_deferred(f, "base", a);
    text_time_deferred(f, "new", b);
    text_llm(f, a, b);
    text_ops(f, rows, n_rows);
    fprintf(f,
            "\nnodes     %zu in base, %zu in new: %zu in common, %zu removed, %zu added, %zu with "
            "another op\n",
            a->n_nodes_detail, b->n_nodes_detail, c->n_common, c->n_removed, c->n_added,
            c->n_changed);
    text_names(f, "removed", c->removed, c->n_removed);
    text_names(f, "added", c->added, c->n_added);
    for (size_t i = 0; i < c->n_changed && i < 10; i++) {
        fprintf(f, "  %-9s %s: %s -> %s\n", i ? "" : "changed", c->changed_a[i]->name,
                c->changed_a[i]->op, c->changed_b[i]->op);
    }
    if (c->n_changed > 10) {
        fprintf(f, "  %-9s (and %zu more; --json lists all)\n", "", c->n_changed - 10);
    }
    text_checks(f, res);
}

int fl_diff_print(FILE *f, const fl_diff_result *res, const fl_report *a, const fl_report *b,
                  bool json) {
    size_t n_rows = 0;
    op_row *rows = op_rows(a, b, &n_rows);
    node_cmp c = {0};
    if (!rows || !compare_nodes(a, b, &c)) {
        free(rows);
        node_cmp_free(&c);
        fprintf(stderr, "foldline: out of memory\n");
        return EXIT_IO;
    }
    if (json) {
        print_json(f, res, a, b, rows, n_rows, &c);
    } else {
        print_text(f, res, a, b, rows, n_rows, &c);
    }
    free(rows);
    node_cmp_free(&c);
    return 0;
}
