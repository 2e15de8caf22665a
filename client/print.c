/*
 * print.c - renders an fl_report as the CLI's text summary or JSON document.
 *
 * Both renderings read only the public report, so local and remote mode print
 * the same bytes for the same report. The JSON layout is documented in
 * README.md ("JSON output", schema FL_JSON_SCHEMA_VERSION): within a schema
 * version keys are only ever added; a change of a key's meaning or shape
 * bumps the version.
 */
#include "print.h"

#include "llm.h"
#include "roofcli.h"
#include "textfmt.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* JSON                                                                       */
/* ------------------------------------------------------------------------- */

/* A buffered writer for the per-node records: a swin_t document is a few
 * hundred thousand short pieces, and one stdio call per piece (a lock and a
 * copy each) took most of its printing. Whoever holds one flushes it before
 * writing to its FILE again. */
typedef struct {
    FILE *f;
    size_t n;
    char buf[16384];
} jw;

static void jw_init(jw *w, FILE *f) {
    w->f = f;
    w->n = 0;
}

static void jw_flush(jw *w) {
    if (w->n) {
        fwrite(w->buf, 1, w->n, w->f);
        w->n = 0;
    }
}

static void jw_put(jw *w, const char *s, size_t n) {
    if (n > sizeof w->buf - w->n) {
        jw_flush(w);
        if (n > sizeof w->buf) {
            fwrite(s, 1, n, w->f);
            return;
        }
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}

static void jw_c(jw *w, char c) {
    if (w->n == sizeof w->buf) {
        jw_flush(w);
    }
    w->buf[w->n++] = c;
}

/* A string literal, its length known at compile time. */
#define JW_LIT(w, lit) jw_put((w), (lit), sizeof(lit) - 1)

/* A JSON string: runs of characters that need no escape written at once. */
static void jw_str(jw *w, const char *s) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    jw_c(w, '"');
    for (;;) {
        const unsigned char *q = p;
        while (*q >= 0x20 && *q != '"' && *q != '\\') {
            q++;
        }
        if (q > p) {
            jw_put(w, (const char *)p, (size_t)(q - p));
        }
        if (!*q) {
            break;
        }
        switch (*q) {
        case '"':
            JW_LIT(w, "\\\"");
            break;
        case '\\':
            JW_LIT(w, "\\\\");
            break;
        case '\n':
            JW_LIT(w, "\\n");
            break;
        case '\r':
            JW_LIT(w, "\\r");
            break;
        case '\t':
            JW_LIT(w, "\\t");
            break;
        default: { /* a control character below 0x20: \u00XX */
            char u[6] = {'\\', 'u', '0', '0', hex[*q >> 4], hex[*q & 15]};
            jw_put(w, u, sizeof u);
        }
        }
        p = q + 1;
    }
    jw_c(w, '"');
}

static void json_str(FILE *f, const char *s) {
    jw w;
    jw_init(&w, f);
    jw_str(&w, s);
    jw_flush(&w);
}

/* A decimal integer (what "%" PRId64 prints, without printf's format
 * parsing). */
static void jw_i64(jw *w, int64_t v) {
    char buf[24], *e = buf + sizeof buf, *p = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    jw_put(w, p, (size_t)(e - p));
}

/* A count, always an object: {"value": N} when known, {"formula": "..."}
 * when it depends on free symbols ("?" when undetermined). */
static void jw_q(jw *w, const fl_quantity *q) {
    if (q->known) {
        JW_LIT(w, "{\"value\": ");
        jw_i64(w, q->value);
        jw_c(w, '}');
    } else {
        JW_LIT(w, "{\"formula\": ");
        jw_str(w, q->text);
        jw_c(w, '}');
    }
}

/* tfprof's convention means nothing for ONNX models: null there. */
static void jw_tfprof(jw *w, const fl_report *r, const fl_quantity *q) {
    if (r->format && strcmp(r->format, "onnx") == 0) {
        JW_LIT(w, "null");
    } else {
        jw_q(w, q);
    }
}

static void json_strs(FILE *f, const char *const *v, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            fputs(", ", f);
        }
        json_str(f, v[i]);
    }
    fputc(']', f);
}

static void json_opt_str(FILE *f, const char *s) {
    if (s) {
        json_str(f, s);
    } else {
        fputs("null", f);
    }
}

static void jw_dims(jw *w, int rank, const fl_quantity *dims) {
    if (rank < 0 || (rank > 0 && !dims)) {
        JW_LIT(w, "null");
        return;
    }
    jw_c(w, '[');
    for (int k = 0; k < rank; k++) {
        if (k) {
            JW_LIT(w, ", ");
        }
        const fl_quantity *d = &dims[k];
        if (d->known) {
            jw_i64(w, d->value);
        } else if (d->text && strcmp(d->text, "?") != 0) {
            jw_str(w, d->text);
        } else {
            JW_LIT(w, "null");
        }
    }
    jw_c(w, ']');
}

void fl_print_json_dims(FILE *f, int rank, const fl_quantity *dims) {
    jw w;
    jw_init(&w, f);
    jw_dims(&w, rank, dims);
    jw_flush(&w);
}

/* The five counts a node record and a totals object share, in this order. */
static void jw_counts(jw *w, const fl_report *r, const fl_quantity *flops,
                      const fl_quantity *tfprof_flops, const fl_quantity *macs,
                      const fl_quantity *int_ops, const fl_quantity *bytes) {
    JW_LIT(w, "\"flops\": ");
    jw_q(w, flops);
    JW_LIT(w, ", \"tfprof_flops\": ");
    jw_tfprof(w, r, tfprof_flops);
    JW_LIT(w, ", \"macs\": ");
    jw_q(w, macs);
    JW_LIT(w, ", \"int_ops\": ");
    jw_q(w, int_ops);
    JW_LIT(w, ", \"bytes\": ");
    jw_q(w, bytes);
}

/* One node record of the `nodes` and `nodes_after` lists. */
static void jw_node(jw *w, const fl_report *r, const fl_report_node *n) {
    JW_LIT(w, "{\"name\": ");
    jw_str(w, n->name);
    JW_LIT(w, ", \"op\": ");
    jw_str(w, n->op);
    JW_LIT(w, ", \"outputs\": [");
    for (size_t k = 0; k < n->n_outputs; k++) {
        if (k) {
            JW_LIT(w, ", ");
        }
        JW_LIT(w, "{\"dtype\": ");
        jw_str(w, n->outputs[k].dtype);
        JW_LIT(w, ", \"shape\": ");
        jw_str(w, n->outputs[k].shape);
        JW_LIT(w, ", \"dims\": ");
        jw_dims(w, n->outputs[k].rank, n->outputs[k].dims);
        jw_c(w, '}');
    }
    JW_LIT(w, "], ");
    jw_counts(w, r, &n->flops, &n->tfprof_flops, &n->macs, &n->int_ops, &n->bytes);
    if (n->has_rule) {
        JW_LIT(w, ", \"has_rule\": true");
    } else {
        JW_LIT(w, ", \"has_rule\": false");
    }
    if (n->incomplete) {
        JW_LIT(w, ", \"incomplete\": true}");
    } else {
        JW_LIT(w, ", \"incomplete\": false}");
    }
}

/* A `nodes` or `nodes_after` list, from its key on, through one writer. */
static void json_nodes(FILE *f, const fl_report *r, const char *key, const fl_report_node *v,
                       size_t n) {
    jw wb, *w = &wb;
    jw_init(w, f);
    JW_LIT(w, ",\n  \"");
    jw_put(w, key, strlen(key));
    JW_LIT(w, "\": [");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            jw_c(w, ',');
        }
        JW_LIT(w, "\n    ");
        jw_node(w, r, &v[i]);
    }
    if (n) {
        JW_LIT(w, "\n  ");
    }
    jw_c(w, ']');
    jw_flush(w);
}

/* A totals object; `brief` (--summary) leaves out bytes_read and
 * bytes_written (bytes is their sum). */
static void json_totals_as(FILE *f, const fl_report *r, const fl_totals *t, bool brief) {
    jw wb, *w = &wb;
    jw_init(w, f);
    jw_c(w, '{');
    jw_counts(w, r, &t->flops, &t->tfprof_flops, &t->macs, &t->int_ops, &t->bytes);
    if (!brief) {
        JW_LIT(w, ", \"bytes_read\": ");
        jw_q(w, &t->bytes_read);
        JW_LIT(w, ", \"bytes_written\": ");
        jw_q(w, &t->bytes_written);
    }
    JW_LIT(w, ", \"nodes\": ");
    jw_i64(w, t->nodes);
    jw_c(w, '}');
    jw_flush(w);
}

static void json_totals(FILE *f, const fl_report *r, const fl_totals *t) {
    json_totals_as(f, r, t, false);
}

/* A pass run's "rules" list (its ledger entries; thousands on a transformer
 * graph), from its key on, through one writer. */
static void json_rules(FILE *f, const fl_report *r, const fl_report_pass *p) {
    jw wb, *w = &wb;
    jw_init(w, f);
    JW_LIT(w, ",\n     \"rules\": [");
    for (size_t k = 0; k < p->n_entries && p->first_entry + k < r->n_ledger; k++) {
        const fl_report_ledger_entry *e = &r->ledger[p->first_entry + k];
        if (k) {
            jw_c(w, ',');
        }
        JW_LIT(w, "\n       {\"rule\": ");
        jw_str(w, e->rule);
        JW_LIT(w, ", \"node\": ");
        jw_str(w, e->node);
        JW_LIT(w, ", \"detail\": ");
        jw_str(w, e->detail);
        jw_c(w, '}');
    }
    if (p->n_entries) {
        JW_LIT(w, "\n     ");
    }
    JW_LIT(w, "]}");
    jw_flush(w);
}

/* The rewrite passes' blocks: before, after, passes (with their ledger
 * entries) and, with --per-node, nodes_after. */
static void json_passes(FILE *f, const fl_report *r) {
    fprintf(f, ",\n  \"before\": ");
    json_totals(f, r, &r->before);
    fprintf(f, ",\n  \"after\": ");
    json_totals(f, r, &r->after);
    fprintf(f, ",\n  \"passes\": [");
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        fprintf(f, "%s\n    {\"pass\": ", i ? "," : "");
        json_str(f, p->pass);
        fprintf(f,
                ", \"iteration\": %d, \"nodes_removed\": %" PRId64 ", \"nodes_added\": %" PRId64
                ", \"nodes_rewritten\": %" PRId64 ",\n     \"before\": ",
                p->iteration, p->nodes_removed, p->nodes_added, p->nodes_rewritten);
        json_totals(f, r, &p->before);
        fprintf(f, ",\n     \"after\": ");
        json_totals(f, r, &p->after);
        fprintf(f, ",\n     \"failed\": ");
        json_opt_str(f, p->failed);
        json_rules(f, r, p);
    }
    fprintf(f, "%s]", r->n_passes ? "\n  " : "");
    if (r->nodes_after) {
        json_nodes(f, r, "nodes_after", r->nodes_after, r->n_nodes_after);
    }
}

/* A JSON number for a double, exactly (%.17g round-trips). */
static void json_double(FILE *f, double v) {
    fprintf(f, "%.17g", v);
}

/* The options the analysis ran with (fl_report_options). */
static void json_options(FILE *f, const fl_report_options *o, bool profiles) {
    fprintf(f, "{\"format\": ");
    json_str(f, o->format);
    fprintf(f, ", \"saved_model_tag\": ");
    json_opt_str(f, o->saved_model_tag);
    fprintf(f, ",\n              \"inputs\": [");
    for (size_t i = 0; i < o->n_inputs; i++) {
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_str(f, o->inputs[i].name);
        fprintf(f, ", \"dims\": [");
        for (int k = 0; k < o->inputs[i].rank; k++) {
            fprintf(f, "%s%" PRId64, k ? ", " : "", o->inputs[i].dims[k]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "], \"symbols\": [");
    for (size_t i = 0; i < o->n_symbols; i++) {
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_str(f, o->symbols[i].name);
        fprintf(f, ", \"value\": %" PRId64 "}", o->symbols[i].value);
    }
    fprintf(f, "], \"values\": [");
    for (size_t i = 0; i < o->n_values; i++) {
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_str(f, o->values[i].name);
        fprintf(f, ", \"value\": ");
        json_double(f, o->values[i].value);
        fputc('}', f);
    }
    fprintf(f, "],\n              \"pass_selection\": ");
    json_str(f, o->pass_selection);
    fprintf(f, ", \"passes\": ");
    json_strs(f, o->passes, o->n_passes);
    fprintf(f, ", \"disabled_passes\": ");
    json_strs(f, o->disabled_passes, o->n_disabled_passes);
    fprintf(f, ", \"outputs\": ");
    json_strs(f, o->output_names, o->n_output_names);
    fprintf(f, ",\n              \"device\": ");
    json_str(f, o->device);
    fprintf(f, ", \"remapper_mode\": ");
    json_str(f, o->remapper_mode);
    fprintf(f, ", \"cudnn_persistent_batchnorm\": %s,\n              \"limits\": ",
            o->cudnn_persistent_batchnorm ? "true" : "false");
    fprintf(f,
            "{\"max_nodes\": %" PRId64 ", \"max_value_elements\": %" PRId64
            ", \"max_memory_bytes\": %" PRId64 ", \"max_folded_bytes\": %" PRId64 "}",
            o->max_nodes, o->max_value_elements, o->max_memory_bytes, o->max_folded_bytes);
    if (!profiles) { /* --summary: the hashes are in its roofline lines */
        fputc('}', f);
        return;
    }
    fprintf(f, ",\n              \"profiles\": [");
    for (size_t i = 0; i < o->n_profiles; i++) {
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_str(f, o->profiles[i].name);
        fprintf(f, ", \"hash\": ");
        json_str(f, o->profiles[i].hash);
        fputc('}', f);
    }
    fprintf(f, "]}");
}

/* The keys every record starts with: versions, graph, completeness,
 * coverage, symbols, totals and options. */
static void json_head(FILE *f, const fl_report *r, const char *model_path, bool summary) {
    bool onnx = r->format && strcmp(r->format, "onnx") == 0;
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"foldline_version\": ", FL_JSON_SCHEMA_VERSION);
    json_str(f, fl_version());
    fprintf(f, ",\n  \"flop_conventions\": {\"flops\": \"complete\", \"tfprof_flops\": ");
    fprintf(f, "%s, \"flops_per_mac\": 2},\n", onnx ? "null" : "\"tfprof\"");
    fprintf(f, "  \"graph\": {\"path\": ");
    json_str(f, model_path);
    fprintf(f, ", \"format\": ");
    json_str(f, r->format);
    fprintf(f, ", \"producer\": ");
    if (onnx) {
        fputs("null, \"producer_name\": ", f);
        json_opt_str(f, r->producer_name);
        fputs(", \"producer_version\": ", f);
        json_opt_str(f, r->producer_version);
        if (r->opset > 0) {
            fprintf(f, ", \"opset\": %" PRId64, r->opset);
        } else {
            fputs(", \"opset\": null", f);
        }
    } else {
        fprintf(f, "%d, \"producer_name\": null, \"producer_version\": null, \"opset\": null",
                r->producer);
    }
    fprintf(f, ",\n            \"nodes\": %" PRId64 ", \"initializers\": ", r->n_nodes);
    if (onnx) {
        fprintf(f, "%" PRId64, r->n_initializers);
    } else {
        fputs("null", f);
    }
    fprintf(f,
            ", \"functions\": %" PRId64 ", \"function_nodes\": %" PRId64 ", \"params\": %" PRId64
            "},\n",
            r->n_functions, r->n_function_nodes, r->params);
    fprintf(f, "  \"complete\": %s,\n", r->complete ? "true" : "false");
    fprintf(f,
            "  \"coverage\": {\"nodes_with_rule\": %" PRId64 ", \"nodes_without_rule\": %" PRId64
            ", \"nodes_incomplete\": %" PRId64 ", \"nodes_excluded\": %" PRId64
            ", \"bytes_share_without_rule\": ",
            r->nodes_with_rule, r->nodes_without_rule, r->nodes_incomplete, r->nodes_excluded);
    if (r->bytes_share_without_rule < 0) {
        fputs("null", f);
    } else {
        fprintf(f, "%.6f", r->bytes_share_without_rule);
    }
    fprintf(f, "},\n  \"symbols\": ");
    json_strs(f, r->symbols, r->n_symbols);
    fprintf(f, ",\n  \"totals\": ");
    json_totals_as(f, r, &r->totals, summary);
    fprintf(f, ",\n  \"options\": ");
    json_options(f, &r->options, !summary);
}

/* The "ops" list, from its key on, up to its closing bracket. */
static void json_ops(FILE *f, const fl_report *r) {
    jw wb, *w = &wb;
    jw_init(w, f);
    JW_LIT(w, ",\n  \"ops\": [");
    for (size_t i = 0; i < r->n_ops; i++) {
        if (i) {
            jw_c(w, ',');
        }
        JW_LIT(w, "\n    {\"op\": ");
        jw_str(w, r->ops[i].op);
        JW_LIT(w, ", \"count\": ");
        jw_i64(w, r->ops[i].count);
        JW_LIT(w, ", \"flops\": ");
        jw_q(w, &r->ops[i].flops);
        JW_LIT(w, ", \"tfprof_flops\": ");
        jw_tfprof(w, r, &r->ops[i].tfprof_flops);
        JW_LIT(w, ", \"int_ops\": ");
        jw_q(w, &r->ops[i].int_ops);
        jw_c(w, '}');
    }
    jw_flush(w);
}

void fl_print_json(FILE *f, const fl_report *r, const char *model_path) {
    json_head(f, r, model_path, false);
    fprintf(f, ",\n  \"inputs\": [");
    for (size_t i = 0; i < r->n_inputs; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, r->inputs[i].name);
        fprintf(f, ", \"dtype\": ");
        json_str(f, r->inputs[i].dtype);
        fprintf(f, ", \"shape\": ");
        json_str(f, r->inputs[i].shape);
        fprintf(f, ", \"dims\": ");
        fl_print_json_dims(f, r->inputs[i].rank, r->inputs[i].dims);
        fputc('}', f);
    }
    fprintf(f, "%s],\n  \"outputs\": ", r->n_inputs ? "\n  " : "");
    json_strs(f, r->outputs, r->n_outputs);
    json_ops(f, r);
    fprintf(f, "%s],\n  \"unknown_ops\": [", r->n_ops ? "\n  " : "");
    for (size_t i = 0; i < r->n_unknown_ops; i++) {
        fprintf(f, "%s{\"op\": ", i ? ", " : "");
        json_str(f, r->unknown_ops[i].op);
        fprintf(f, ", \"count\": %" PRId64 "}", r->unknown_ops[i].count);
    }
    fprintf(f, "],\n  \"warnings\": ");
    json_strs(f, r->warnings, r->n_warnings);
    fprintf(f, ",\n  \"roofline\": ");
    fl_print_roofline_json(f, r, "");
    fprintf(f, ",\n  \"llm\": ");
    fl_llm_json(f, r);
    if (r->nodes) {
        json_nodes(f, r, "nodes", r->nodes, r->n_nodes_detail);
    }
    if (r->optimized) {
        json_passes(f, r);
    }
    fprintf(f, "\n}\n");
}

void fl_print_summary(FILE *f, const fl_report *r, const char *model_path) {
    json_head(f, r, model_path, true);
    size_t failed = 0;
    for (size_t i = 0; i < r->n_passes; i++) {
        failed += r->passes[i].failed != NULL;
    }
    fprintf(f,
            ",\n  \"counts\": {\"inputs\": %zu, \"outputs\": %zu, \"op_types\": %zu, "
            "\"unknown_op_types\": %zu, \"warnings\": %zu, \"pass_runs\": %zu, "
            "\"passes_failed\": %zu, \"rule_firings\": %zu}",
            r->n_inputs, r->n_outputs, r->n_ops, r->n_unknown_ops, r->n_warnings, r->n_passes,
            failed, r->n_ledger);
    if (r->optimized) { /* `before` is `totals` */
        fprintf(f, ",\n  \"after\": ");
        json_totals_as(f, r, &r->after, true);
    }
    /* Times to 4 significant digits: an estimate, not a count. */
    fprintf(f, ",\n  \"roofline\": [");
    for (size_t i = 0; i < r->n_roofline; i++) {
        const fl_roofline_result *res = &r->roofline[i];
        const char *hash = i < r->options.n_profiles ? r->options.profiles[i].hash : NULL;
        fprintf(f, "%s\n    {\"profile\": ", i ? "," : "");
        json_str(f, res->profile);
        fprintf(f, ", \"hash\": ");
        json_opt_str(f, hash);
        fprintf(f, ", \"time_s\": %.4g, \"after_time_s\": ", res->before->time_s);
        if (res->after) {
            fprintf(f, "%.4g, \"speedup\": %.4g}", res->after->time_s, res->speedup);
        } else {
            fputs("null, \"speedup\": null}", f);
        }
    }
    fprintf(f, "%s],\n  \"llm\": ", r->n_roofline ? "\n  " : "");
    fl_llm_json(f, r);
    fprintf(f, "\n}\n");
}

void fl_print_json_str(FILE *f, const char *s) {
    json_str(f, s);
}

/* ------------------------------------------------------------------------- */
/* Text                                                                       */
/* ------------------------------------------------------------------------- */

/* Groups digits in threes: 1234567 -> "1,234,567". */
/* A count known to be 0 (an absent integer-op count reads as unknown). */
static bool is_zero(const fl_quantity *q) {
    return q->known && q->value == 0;
}

static const char *grouped(const fl_quantity *q, char *buf, size_t size) {
    if (!q->known) {
        return q->text;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRId64, q->value);
    const char *d = digits;
    size_t o = 0;
    if (*d == '-') {
        buf[o++] = *d++;
    }
    size_t len = strlen(d);
    for (size_t i = 0; i < len && o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0) {
            buf[o++] = ',';
        }
        buf[o++] = d[i];
    }
    buf[o] = '\0';
    return buf;
}

/* "1.23 GFLOP"-style scale for a known count. */
static const char *scaled(const fl_quantity *q, const char *unit, char *buf, size_t size) {
    if (!q->known) {
        return "";
    }
    static const char *pre[] = {"", "K", "M", "G", "T", "P", "E"};
    double v = (double)q->value;
    int i = 0;
    while (v >= 1000.0 && i < 6) {
        v /= 1000.0;
        i++;
    }
    if (i == 0) {
        snprintf(buf, size, " (%" PRId64 " %s)", q->value, unit);
    } else {
        snprintf(buf, size, " (%.2f %s%s)", v, pre[i], unit);
    }
    return buf;
}

/* The first lines of a partial answer: what the totals leave out. */
static void partial_banner(FILE *f, const fl_report *r) {
    if (r->complete) {
        return;
    }
    int64_t unknown = 0;
    for (size_t i = 0; i < r->n_unknown_ops; i++) {
        unknown += r->unknown_ops[i].count;
    }
    fprintf(f,
            "PARTIAL   the totals leave out the FLOPs of %" PRId64 " of %" PRId64 " nodes (%" PRId64
            " without a FLOP rule, %" PRId64 " incomplete",
            r->nodes_excluded, r->n_nodes, r->nodes_without_rule, r->nodes_incomplete);
    if (unknown) {
        fprintf(f, "; %" PRId64 " of unknown op types", unknown);
    }
    fprintf(f, ")\n          (see coverage and warnings; --require-complete exits 4)\n");
}

/* "model PATH (graphdef, producer 1205)" or, for ONNX, "(onnx, pytorch
 * 2.1.0, opset 13)". */
static void model_line(FILE *f, const fl_report *r, const char *model_path) {
    fprintf(f, "model     %s (%s", model_path, r->format);
    if (r->format && strcmp(r->format, "onnx") == 0) {
        if (r->producer_name) {
            fprintf(f, ", %s%s%s", r->producer_name, r->producer_version ? " " : "",
                    r->producer_version ? r->producer_version : "");
        }
        if (r->opset > 0) {
            fprintf(f, ", opset %" PRId64, r->opset);
        }
        fputs(")\n", f);
    } else {
        fprintf(f, ", producer %d)\n", r->producer);
    }
}

/* A string as "%s" prints it (glibc's "(null)" for NULL). */
static void jw_s(jw *w, const char *s) {
    if (!s) {
        s = "(null)";
    }
    jw_put(w, s, strlen(s));
}

/* The `nodes` listing of --per-node, one line per node, through one writer
 * (a line was five or more fprintf calls). */
static void text_nodes(FILE *f, const fl_report *r, bool onnx) {
    jw wb, *w = &wb;
    jw_init(w, f);
    JW_LIT(w, "\nnodes\n");
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        const fl_report_node *n = &r->nodes[i];
        JW_LIT(w, "  ");
        jw_s(w, n->name);
        JW_LIT(w, " (");
        jw_s(w, n->op);
        jw_c(w, ')');
        for (size_t k = 0; k < n->n_outputs; k++) {
            jw_c(w, ' ');
            jw_s(w, n->outputs[k].dtype);
            jw_s(w, n->outputs[k].shape);
        }
        JW_LIT(w, "  flops=");
        jw_s(w, n->flops.text);
        if (!onnx) {
            JW_LIT(w, " tfprof=");
            jw_s(w, n->tfprof_flops.text);
        }
        if (!is_zero(&n->int_ops)) {
            JW_LIT(w, " int_ops=");
            jw_s(w, n->int_ops.text);
        }
        JW_LIT(w, " macs=");
        jw_s(w, n->macs.text);
        JW_LIT(w, " bytes=");
        jw_s(w, n->bytes.text);
        if (n->incomplete) {
            JW_LIT(w, " (incomplete)");
        }
        jw_c(w, '\n');
    }
    jw_flush(w);
}

void fl_print_text(FILE *f, const fl_report *r, const char *model_path, size_t top) {
    char b1[64], b2[64];
    bool onnx = r->format && strcmp(r->format, "onnx") == 0;
    partial_banner(f, r);
    model_line(f, r, model_path);
    fprintf(f, "nodes     %" PRId64, r->n_nodes);
    if (onnx) {
        fprintf(f, " operators (+%" PRId64 " initializers)", r->n_initializers);
    }
    if (r->n_functions) {
        fprintf(f, " (+%" PRId64 " in %" PRId64 " library functions, not costed)",
                r->n_function_nodes, r->n_functions);
    }
    fputc('\n', f);
    for (size_t i = 0; i < r->n_inputs; i++) {
        fprintf(f, "%s %s %s %s\n", i ? "         " : "input    ", r->inputs[i].name,
                r->inputs[i].dtype, r->inputs[i].shape);
    }
    fprintf(f, "outputs   ");
    for (size_t i = 0; i < r->n_outputs; i++) {
        if (i == 8) {
            fprintf(f, " ... (%zu in all)", r->n_outputs);
            break;
        }
        fprintf(f, "%s%s", i ? ", " : "", r->outputs[i]);
    }
    fputc('\n', f);
    if (r->n_symbols) {
        fprintf(f, "symbols   ");
        for (size_t i = 0; i < r->n_symbols; i++) {
            fprintf(f, "%s%s", i ? ", " : "", r->symbols[i]);
        }
        fprintf(f, "  (bind with --bind NAME=N or --input)\n");
    }
    /* A partial answer's totals leave work out: lower bounds. */
    const char *atl = r->complete ? "" : "at least ";
    fprintf(f, "\ntotals\n");
    fprintf(f, "  FLOPs         %s%s%s\n", atl, grouped(&r->totals.flops, b1, sizeof b1),
            scaled(&r->totals.flops, "FLOP", b2, sizeof b2));
    if (!onnx) { /* tfprof's convention means nothing for ONNX */
        fprintf(f, "  tfprof FLOPs  %s%s%s\n", atl, grouped(&r->totals.tfprof_flops, b1, sizeof b1),
                scaled(&r->totals.tfprof_flops, "FLOP", b2, sizeof b2));
    }
    fprintf(f, "  MACs          %s%s%s\n", atl, grouped(&r->totals.macs, b1, sizeof b1),
            scaled(&r->totals.macs, "MAC", b2, sizeof b2));
    if (!is_zero(&r->totals.int_ops)) { /* quantized ops: integer work apart */
        fprintf(f, "  integer ops   %s%s%s\n", atl, grouped(&r->totals.int_ops, b1, sizeof b1),
                scaled(&r->totals.int_ops, "op", b2, sizeof b2));
    }
    fprintf(f, "  bytes         %s%s%s\n", atl, grouped(&r->totals.bytes, b1, sizeof b1),
            scaled(&r->totals.bytes, "B", b2, sizeof b2));
    fprintf(f, "    read        %s%s\n", atl, grouped(&r->totals.bytes_read, b1, sizeof b1));
    fprintf(f, "    written     %s%s\n", atl, grouped(&r->totals.bytes_written, b1, sizeof b1));

    fprintf(f, "\ncoverage  %" PRId64 " of %" PRId64 " nodes have a cost rule", r->nodes_with_rule,
            r->n_nodes);
    if (r->nodes_incomplete) {
        fprintf(f, "; %" PRId64 " incomplete (see warnings)", r->nodes_incomplete);
    }
    if (r->bytes_share_without_rule >= 0) {
        fprintf(f, "; %.1f%% of bytes move through ops without a FLOP rule",
                100.0 * r->bytes_share_without_rule);
    }
    fputc('\n', f);

    /* Op types that count no FLOPs (sorted last) are not "top ops". */
    size_t n_costly = 0;
    while (n_costly < r->n_ops &&
           !(is_zero(&r->ops[n_costly].flops) && is_zero(&r->ops[n_costly].int_ops))) {
        n_costly++;
    }
    if (n_costly && top) {
        fprintf(f, "\ntop ops by FLOPs\n  %-28s %7s  %s\n", "op", "count", "FLOPs");
        for (size_t i = 0; i < n_costly && i < top; i++) {
            fprintf(f, "  %-28s %7" PRId64 "  %s", r->ops[i].op, r->ops[i].count,
                    grouped(&r->ops[i].flops, b1, sizeof b1));
            if (!is_zero(&r->ops[i].int_ops)) {
                fprintf(f, " (+ %s integer ops)", grouped(&r->ops[i].int_ops, b1, sizeof b1));
            }
            fputc('\n', f);
        }
    }
    fl_print_roofline_text(f, r, top);
    if (r->n_unknown_ops) {
        fprintf(f, "\nunknown ops (not costed, outputs unknown)\n");
        for (size_t i = 0; i < r->n_unknown_ops; i++) {
            fprintf(f, "  %-28s %7" PRId64 "\n", r->unknown_ops[i].op, r->unknown_ops[i].count);
        }
    }
    if (r->n_warnings) {
        fprintf(f, "\nwarnings\n");
        for (size_t i = 0; i < r->n_warnings; i++) {
            fprintf(f, "  - %s\n", r->warnings[i]);
        }
    }
    if (r->nodes) {
        text_nodes(f, r, onnx);
    }
    if (r->optimized) {
        fl_print_passes_text(f, r);
    }
}

/* The ledger's rule column: as wide as the longest rule name it shows (the
 * first LEDGER_SHOWN entries of each pass), at least 26. */
#define LEDGER_SHOWN 12
static int ledger_rule_width(const fl_report *r) {
    size_t w = 26;
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        for (size_t k = 0; k < p->n_entries && k < LEDGER_SHOWN; k++) {
            size_t e = p->first_entry + k;
            size_t n = e < r->n_ledger ? strlen(r->ledger[e].rule) : 0;
            w = n > w ? n : w;
        }
    }
    return w > 64 ? 64 : (int)w;
}

void fl_print_passes_text(FILE *f, const fl_report *r) {
    char b1[64], b2[64];
    const fl_totals *a = &r->before, *z = &r->after;
    fprintf(f, "\nrewrite passes (Grappler order)%s\n  %-13s %24s  %24s\n",
            r->complete ? "" : ": partial, each total at least", "", "before", "after");
    const char *cells[2];
    cells[0] = grouped(&a->flops, b1, sizeof b1);
    cells[1] = grouped(&z->flops, b2, sizeof b2);
    fl_text_row(f, "  ", "FLOPs", 13, cells, 2, 24);
    if (!r->format || strcmp(r->format, "onnx") != 0) {
        cells[0] = grouped(&a->tfprof_flops, b1, sizeof b1);
        cells[1] = grouped(&z->tfprof_flops, b2, sizeof b2);
        fl_text_row(f, "  ", "tfprof FLOPs", 13, cells, 2, 24);
    }
    cells[0] = grouped(&a->macs, b1, sizeof b1);
    cells[1] = grouped(&z->macs, b2, sizeof b2);
    fl_text_row(f, "  ", "MACs", 13, cells, 2, 24);
    if (!is_zero(&a->int_ops) || !is_zero(&z->int_ops)) {
        cells[0] = grouped(&a->int_ops, b1, sizeof b1);
        cells[1] = grouped(&z->int_ops, b2, sizeof b2);
        fl_text_row(f, "  ", "integer ops", 13, cells, 2, 24);
    }
    cells[0] = grouped(&a->bytes, b1, sizeof b1);
    cells[1] = grouped(&z->bytes, b2, sizeof b2);
    fl_text_row(f, "  ", "bytes", 13, cells, 2, 24);
    fprintf(f, "  %-13s %24" PRId64 "  %24" PRId64 "\n", "nodes", a->nodes, z->nodes);
    size_t fired = 0, failed = 0;
    for (size_t i = 0; i < r->n_passes; i++) {
        fired += r->passes[i].n_entries ? 1 : 0;
        failed += r->passes[i].failed ? 1 : 0;
    }
    if (!r->n_ledger) {
        fprintf(f, "\nledger    no rule fired\n");
    } else if (!r->n_passes) { /* no pass ran (a TFLite model): the entries say why */
        for (size_t i = 0; i < r->n_ledger; i++) {
            fprintf(f, "\nledger    %s\n", r->ledger[i].detail);
        }
    } else {
        fprintf(f, "\nledger    %zu rule firing(s) in %zu of %zu pass run(s)\n", r->n_ledger, fired,
                r->n_passes);
    }
    for (size_t i = 0; i < r->n_passes && failed; i++) {
        const fl_report_pass *p = &r->passes[i];
        if (p->failed) {
            fprintf(f, "  %s (iteration %d): FAILED and skipped (graph kept as before it): %s\n",
                    p->pass, p->iteration + 1, p->failed);
        }
    }
    int w = ledger_rule_width(r);
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        if (!p->n_entries) {
            continue;
        }
        fprintf(f, "  %s (iteration %d): -%" PRId64 " +%" PRId64 " ~%" PRId64 " nodes, FLOPs %s",
                p->pass, p->iteration + 1, p->nodes_removed, p->nodes_added, p->nodes_rewritten,
                grouped(&p->before.flops, b1, sizeof b1));
        fprintf(f, " -> %s\n", grouped(&p->after.flops, b2, sizeof b2));
        for (size_t k = 0; k < p->n_entries && p->first_entry + k < r->n_ledger; k++) {
            if (k == LEDGER_SHOWN) {
                fprintf(f, "    ... %zu more (--json lists every firing)\n", p->n_entries - k);
                break;
            }
            const fl_report_ledger_entry *e = &r->ledger[p->first_entry + k];
            fprintf(f, "    %-*s  %s: %s\n", w, e->rule, e->node, e->detail);
        }
    }
}
