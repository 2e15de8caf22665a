/*
 * print.c - renders an fl_report as the CLI's text summary or JSON document.
 *
 * Both renderings read only the public report, so local and remote mode print
 * the same bytes for the same report. The JSON layout is documented in
 * README.md ("JSON output"); keys are only ever added, never renamed.
 */
#include "print.h"

#include "roofcli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* JSON                                                                       */
/* ------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", *p);
            } else {
                fputc(*p, f);
            }
        }
    }
    fputc('"', f);
}

/* A count: a JSON integer when known, its formula as a string when symbolic. */
static void json_q(FILE *f, const fl_quantity *q) {
    if (q->known) {
        fprintf(f, "%" PRId64, q->value);
    } else {
        json_str(f, q->text);
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

/* One node record of the `nodes` and `nodes_after` lists. */
static void json_node(FILE *f, const fl_report_node *n) {
    fprintf(f, "{\"name\": ");
    json_str(f, n->name);
    fprintf(f, ", \"op\": ");
    json_str(f, n->op);
    fprintf(f, ", \"outputs\": [");
    for (size_t k = 0; k < n->n_outputs; k++) {
        fprintf(f, "%s{\"dtype\": ", k ? ", " : "");
        json_str(f, n->outputs[k].dtype);
        fprintf(f, ", \"shape\": ");
        json_str(f, n->outputs[k].shape);
        fputc('}', f);
    }
    fprintf(f, "], \"flops\": ");
    json_q(f, &n->flops);
    fprintf(f, ", \"tfprof_flops\": ");
    json_q(f, &n->tfprof_flops);
    fprintf(f, ", \"macs\": ");
    json_q(f, &n->macs);
    fprintf(f, ", \"bytes\": ");
    json_q(f, &n->bytes);
    fprintf(f, ", \"has_rule\": %s, \"incomplete\": %s}", n->has_rule ? "true" : "false",
            n->incomplete ? "true" : "false");
}

static void json_totals(FILE *f, const fl_totals *t) {
    fprintf(f, "{\"flops\": ");
    json_q(f, &t->flops);
    fprintf(f, ", \"tfprof_flops\": ");
    json_q(f, &t->tfprof_flops);
    fprintf(f, ", \"macs\": ");
    json_q(f, &t->macs);
    fprintf(f, ", \"bytes\": ");
    json_q(f, &t->bytes);
    fprintf(f, ", \"bytes_read\": ");
    json_q(f, &t->bytes_read);
    fprintf(f, ", \"bytes_written\": ");
    json_q(f, &t->bytes_written);
    fprintf(f, ", \"nodes\": %" PRId64 "}", t->nodes);
}

/* The rewrite passes' blocks: before, after, passes (with their ledger
 * entries) and, with --per-node, nodes_after. */
static void json_passes(FILE *f, const fl_report *r) {
    fprintf(f, ",\n  \"before\": ");
    json_totals(f, &r->before);
    fprintf(f, ",\n  \"after\": ");
    json_totals(f, &r->after);
    fprintf(f, ",\n  \"passes\": [");
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        fprintf(f, "%s\n    {\"pass\": ", i ? "," : "");
        json_str(f, p->pass);
        fprintf(f,
                ", \"iteration\": %d, \"nodes_removed\": %" PRId64 ", \"nodes_added\": %" PRId64
                ", \"nodes_rewritten\": %" PRId64 ",\n     \"before\": ",
                p->iteration, p->nodes_removed, p->nodes_added, p->nodes_rewritten);
        json_totals(f, &p->before);
        fprintf(f, ",\n     \"after\": ");
        json_totals(f, &p->after);
        fprintf(f, ",\n     \"failed\": ");
        if (p->failed) {
            json_str(f, p->failed);
        } else {
            fputs("null", f);
        }
        fprintf(f, ",\n     \"rules\": [");
        for (size_t k = 0; k < p->n_entries && p->first_entry + k < r->n_ledger; k++) {
            const fl_report_ledger_entry *e = &r->ledger[p->first_entry + k];
            fprintf(f, "%s\n       {\"rule\": ", k ? "," : "");
            json_str(f, e->rule);
            fprintf(f, ", \"node\": ");
            json_str(f, e->node);
            fprintf(f, ", \"detail\": ");
            json_str(f, e->detail);
            fputc('}', f);
        }
        fprintf(f, "%s]}", p->n_entries ? "\n     " : "");
    }
    fprintf(f, "%s]", r->n_passes ? "\n  " : "");
    if (r->nodes_after) {
        fprintf(f, ",\n  \"nodes_after\": [");
        for (size_t i = 0; i < r->n_nodes_after; i++) {
            fprintf(f, "%s\n    ", i ? "," : "");
            json_node(f, &r->nodes_after[i]);
        }
        fprintf(f, "%s]", r->n_nodes_after ? "\n  " : "");
    }
}

void fl_print_json(FILE *f, const fl_report *r, const char *model_path) {
    fprintf(f, "{\n  \"foldline_version\": ");
    json_str(f, fl_version());
    fprintf(f, ",\n  \"flop_conventions\": {\"flops\": \"complete\", \"tfprof_flops\": "
               "\"tfprof\", \"flops_per_mac\": 2},\n");
    fprintf(f, "  \"graph\": {\"path\": ");
    json_str(f, model_path);
    fprintf(f, ", \"format\": ");
    json_str(f, r->format);
    fprintf(f,
            ", \"producer\": %d, \"nodes\": %" PRId64 ", \"functions\": %" PRId64
            ", \"function_nodes\": %" PRId64 "},\n",
            r->producer, r->n_nodes, r->n_functions, r->n_function_nodes);
    fprintf(f, "  \"inputs\": [");
    for (size_t i = 0; i < r->n_inputs; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, r->inputs[i].name);
        fprintf(f, ", \"dtype\": ");
        json_str(f, r->inputs[i].dtype);
        fprintf(f, ", \"shape\": ");
        json_str(f, r->inputs[i].shape);
        fputc('}', f);
    }
    fprintf(f, "%s],\n  \"outputs\": ", r->n_inputs ? "\n  " : "");
    json_strs(f, r->outputs, r->n_outputs);
    fprintf(f, ",\n  \"symbols\": ");
    json_strs(f, r->symbols, r->n_symbols);
    fprintf(f, ",\n  \"totals\": {\"flops\": ");
    json_q(f, &r->totals.flops);
    fprintf(f, ", \"tfprof_flops\": ");
    json_q(f, &r->totals.tfprof_flops);
    fprintf(f, ", \"macs\": ");
    json_q(f, &r->totals.macs);
    fprintf(f, ", \"bytes\": ");
    json_q(f, &r->totals.bytes);
    fprintf(f, ", \"bytes_read\": ");
    json_q(f, &r->totals.bytes_read);
    fprintf(f, ", \"bytes_written\": ");
    json_q(f, &r->totals.bytes_written);
    fprintf(f, ", \"nodes\": %" PRId64 "},\n", r->totals.nodes);
    fprintf(f,
            "  \"coverage\": {\"nodes_with_rule\": %" PRId64 ", \"nodes_without_rule\": %" PRId64
            ", \"nodes_incomplete\": %" PRId64 ", \"bytes_share_without_rule\": ",
            r->nodes_with_rule, r->nodes_without_rule, r->nodes_incomplete);
    if (r->bytes_share_without_rule < 0) {
        fputs("null", f);
    } else {
        fprintf(f, "%.6f", r->bytes_share_without_rule);
    }
    fprintf(f, "},\n  \"ops\": [");
    for (size_t i = 0; i < r->n_ops; i++) {
        fprintf(f, "%s\n    {\"op\": ", i ? "," : "");
        json_str(f, r->ops[i].op);
        fprintf(f, ", \"count\": %" PRId64 ", \"flops\": ", r->ops[i].count);
        json_q(f, &r->ops[i].flops);
        fprintf(f, ", \"tfprof_flops\": ");
        json_q(f, &r->ops[i].tfprof_flops);
        fputc('}', f);
    }
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
    if (r->nodes) {
        fprintf(f, ",\n  \"nodes\": [");
        for (size_t i = 0; i < r->n_nodes_detail; i++) {
            fprintf(f, "%s\n    ", i ? "," : "");
            json_node(f, &r->nodes[i]);
        }
        fprintf(f, "%s]", r->n_nodes_detail ? "\n  " : "");
    }
    if (r->optimized) {
        json_passes(f, r);
    }
    fprintf(f, "\n}\n");
}

/* ------------------------------------------------------------------------- */
/* Text                                                                       */
/* ------------------------------------------------------------------------- */

/* Groups digits in threes: 1234567 -> "1,234,567". */
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

void fl_print_text(FILE *f, const fl_report *r, const char *model_path, size_t top) {
    char b1[64], b2[64];
    fprintf(f, "model     %s (%s, producer %d)\n", model_path, r->format, r->producer);
    fprintf(f, "nodes     %" PRId64, r->n_nodes);
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
    fprintf(f, "\ntotals\n");
    fprintf(f, "  FLOPs         %s%s\n", grouped(&r->totals.flops, b1, sizeof b1),
            scaled(&r->totals.flops, "FLOP", b2, sizeof b2));
    fprintf(f, "  tfprof FLOPs  %s%s\n", grouped(&r->totals.tfprof_flops, b1, sizeof b1),
            scaled(&r->totals.tfprof_flops, "FLOP", b2, sizeof b2));
    fprintf(f, "  MACs          %s%s\n", grouped(&r->totals.macs, b1, sizeof b1),
            scaled(&r->totals.macs, "MAC", b2, sizeof b2));
    fprintf(f, "  bytes         %s%s\n", grouped(&r->totals.bytes, b1, sizeof b1),
            scaled(&r->totals.bytes, "B", b2, sizeof b2));
    fprintf(f, "    read        %s\n", grouped(&r->totals.bytes_read, b1, sizeof b1));
    fprintf(f, "    written     %s\n", grouped(&r->totals.bytes_written, b1, sizeof b1));

    fprintf(f, "\ncoverage  %" PRId64 " of %" PRId64 " nodes have a cost rule", r->nodes_with_rule,
            r->n_nodes);
    if (r->nodes_incomplete) {
        fprintf(f, "; %" PRId64 " incomplete (excluded)", r->nodes_incomplete);
    }
    if (r->bytes_share_without_rule >= 0) {
        fprintf(f, "; %.1f%% of bytes move through ops without a FLOP rule",
                100.0 * r->bytes_share_without_rule);
    }
    fputc('\n', f);

    /* Op types that count no FLOPs (sorted last) are not "top ops". */
    size_t n_costly = 0;
    while (n_costly < r->n_ops &&
           !(r->ops[n_costly].flops.known && r->ops[n_costly].flops.value == 0)) {
        n_costly++;
    }
    if (n_costly && top) {
        fprintf(f, "\ntop ops by FLOPs\n  %-28s %7s  %s\n", "op", "count", "FLOPs");
        for (size_t i = 0; i < n_costly && i < top; i++) {
            fprintf(f, "  %-28s %7" PRId64 "  %s\n", r->ops[i].op, r->ops[i].count,
                    grouped(&r->ops[i].flops, b1, sizeof b1));
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
        fprintf(f, "\nnodes\n");
        for (size_t i = 0; i < r->n_nodes_detail; i++) {
            const fl_report_node *n = &r->nodes[i];
            fprintf(f, "  %s (%s)", n->name, n->op);
            for (size_t k = 0; k < n->n_outputs; k++) {
                fprintf(f, " %s%s", n->outputs[k].dtype, n->outputs[k].shape);
            }
            fprintf(f, "  flops=%s", n->flops.text);
            fprintf(f, " tfprof=%s macs=%s bytes=%s%s\n", n->tfprof_flops.text, n->macs.text,
                    n->bytes.text, n->incomplete ? " (incomplete)" : "");
        }
    }
    if (r->optimized) {
        fl_print_passes_text(f, r);
    }
}

void fl_print_passes_text(FILE *f, const fl_report *r) {
    char b1[64], b2[64];
    const fl_totals *a = &r->before, *z = &r->after;
    fprintf(f, "\nrewrite passes (Grappler order)\n  %-13s %24s  %24s\n", "", "before", "after");
    fprintf(f, "  %-13s %24s  %24s\n", "FLOPs", grouped(&a->flops, b1, sizeof b1),
            grouped(&z->flops, b2, sizeof b2));
    fprintf(f, "  %-13s %24s  %24s\n", "tfprof FLOPs", grouped(&a->tfprof_flops, b1, sizeof b1),
            grouped(&z->tfprof_flops, b2, sizeof b2));
    fprintf(f, "  %-13s %24s  %24s\n", "MACs", grouped(&a->macs, b1, sizeof b1),
            grouped(&z->macs, b2, sizeof b2));
    fprintf(f, "  %-13s %24s  %24s\n", "bytes", grouped(&a->bytes, b1, sizeof b1),
            grouped(&z->bytes, b2, sizeof b2));
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
            if (k == 12) {
                fprintf(f, "    ... %zu more (--json lists every firing)\n", p->n_entries - k);
                break;
            }
            const fl_report_ledger_entry *e = &r->ledger[p->first_entry + k];
            fprintf(f, "    %-26s %s: %s\n", e->rule, e->node, e->detail);
        }
    }
}
