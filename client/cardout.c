/*
 * cardout.c - `foldline card`'s Markdown and JSON (README, "Model cards";
 * the JSON's schema is the `card` document of proto/json/foldline.schema.json).
 */
#include "card.h"
#include "llm.h"
#include "print.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Shared                                                                     */
/* ------------------------------------------------------------------------- */

/* The profile's figure sources: the first peak given (matrix units first,
 * fp32 first) and main memory's bandwidth. */
static const char *compute_source(const fl_profile *p) {
    for (int u = FL_UNIT_COUNT - 1; p && u >= 0; u--) {
        for (int k = 0; k < FL_PREC_COUNT; k++) {
            if (p->peak[u][k].value > 0 && p->peak[u][k].source) {
                return p->peak[u][k].source;
            }
        }
    }
    return NULL;
}

static const char *memory_source(const fl_profile *p) {
    return p && p->n_levels ? p->levels[p->n_levels - 1].source : NULL;
}

static const char *base_name(const char *path) {
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

static const char *profile_hash(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->options.n_profiles; i++) {
        if (strcmp(r->options.profiles[i].name, name) == 0) {
            return r->options.profiles[i].hash;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* Markdown                                                                   */
/* ------------------------------------------------------------------------- */

/* Text in a table cell: '|' escaped, line ends as spaces. */
static void md_cell(FILE *f, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') {
            fputs("\\|", f);
        } else {
            fputc(*s == '\n' ? ' ' : *s, f);
        }
    }
}

/* 3638000000 -> "3.638 G"; below 1000 the integer. */
static void md_si(FILE *f, double v, const char *unit) {
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    while (fabs(v) >= 1000 && k < 6) {
        v /= 1000;
        k++;
    }
    fprintf(f, k ? "%.4g %s%s" : "%.0f %s%s", v, pre[k], unit);
}

static void md_time(FILE *f, double s) {
    if (s >= 1) {
        fprintf(f, "%.4g s", s);
    } else if (s >= 1e-3) {
        fprintf(f, "%.4g ms", s * 1e3);
    } else if (s >= 1e-6) {
        fprintf(f, "%.4g µs", s * 1e6);
    } else {
        fprintf(f, "%.4g ns", s * 1e9);
    }
}

static void md_bindings(FILE *f, const fl_card *c) {
    if (!c->n_bindings) {
        fputs("as given", f);
        return;
    }
    fputs("at ", f);
    for (size_t i = 0; i < c->n_bindings; i++) {
        fprintf(f, "%s%s", i ? ", " : "", c->bindings[i].text);
    }
}

static void md_row(FILE *f, const char *label, const fl_quantity *formula, const fl_quantity *v,
                   const char *unit) {
    fprintf(f, "| %s | `%s` | ", label, formula->text);
    if (v->known) {
        md_si(f, (double)v->value, unit);
        if (v->value >= 1000) {
            fprintf(f, " (%" PRId64 ")", v->value);
        }
    } else {
        fprintf(f, "`%s`", v->text);
    }
    fputs(" |\n", f);
}

static void md_head(FILE *f, const fl_card *c) {
    const fl_report *r = c->formulas;
    fprintf(f, "## Compute cost\n\nComputed by foldline %s from `%s` (%s", fl_version(),
            base_name(c->model), r->format);
    if (r->producer_name) {
        fprintf(f, ", %s%s%s", r->producer_name, r->producer_version ? " " : "",
                r->producer_version ? r->producer_version : "");
    }
    if (r->opset > 0) {
        fprintf(f, ", opset %" PRId64, r->opset);
    }
    fprintf(f, "): %" PRId64 " %s", r->n_nodes,
            strcmp(r->format, "onnx") == 0 ? "operators" : "nodes");
    for (size_t i = 0; i < r->n_inputs; i++) {
        fprintf(f, "%s`%s` %s %s", i ? ", " : "; input ", r->inputs[i].name, r->inputs[i].dtype,
                r->inputs[i].shape);
    }
    fputs(".\n\n", f);
    if (!c->bound->complete) {
        fprintf(f,
                "**Partial:** the totals leave out the FLOPs of %" PRId64 " of %" PRId64
                " nodes (unknown op types or undetermined shapes).\n\n",
                c->bound->nodes_excluded, c->bound->n_nodes);
    }
}

static void md_latency(FILE *f, const fl_card *c) {
    const fl_report *r = c->bound;
    if (!r->n_roofline) {
        return;
    }
    fputs("\n### Estimated latency\n\nRoofline estimates (", f);
    md_bindings(f, c);
    fputs("): per op the larger of compute and memory time at the device's figures, plus its "
          "dispatch overhead, summed; not a measurement.\n\n"
          "| device | kind | as given | after graph rewrites | calibrated | profile source |\n"
          "|---|---|---:|---:|---|---|\n",
          f);
    for (size_t i = 0; i < r->n_roofline; i++) {
        const fl_roofline_result *rr = &r->roofline[i];
        const fl_profile *p = fl_cli_analysis_profile(c->analysis, i);
        fprintf(f, "| %s | %s | ", rr->profile, p ? p->kind : "");
        md_time(f, rr->before->time_s);
        fputs(" | ", f);
        if (rr->after) {
            md_time(f, rr->after->time_s);
        } else {
            fputs("-", f);
        }
        if (rr->before->calibrated && rr->before->coverage > 0) {
            fprintf(f, " | yes (%.0f %% interval ", rr->before->coverage * 100);
            md_time(f, rr->before->low_s);
            fputs(" to ", f);
            md_time(f, rr->before->high_s);
            fputs(") | ", f);
        } else {
            fputs(rr->before->calibrated ? " | yes | "
                                         : " | no: peak figures, a lower bound on time | ",
                  f);
        }
        if (p) {
            fprintf(f, "`%s` (hash %s): ", base_name(p->path), profile_hash(r, rr->profile));
            md_cell(f, p->description);
            fputs("; compute: ", f);
            md_cell(f, compute_source(p));
            fputs("; memory: ", f);
            md_cell(f, memory_source(p));
        } else {
            fprintf(f, "the server's profile (hash %s)", profile_hash(r, rr->profile));
        }
        fputs(" |\n", f);
    }
}

static void md_llm_phase(FILE *f, const char *name, const fl_llm_phase *p) {
    fprintf(f, "| %s | %" PRId64 " | %" PRId64 " | %" PRId64 " | ", name, p->tokens, p->past,
            p->seq);
    md_si(f, p->flops_per_token, "FLOP");
    fputs(" | ", f);
    md_si(f, p->macs_per_token, "MAC");
    fputs(" | ", f);
    md_si(f, p->bytes_per_token, "B");
    fprintf(f, " | %.3g |\n", p->intensity);
}

static void md_llm_time_row(FILE *f, const fl_llm_roofline *e, const char *when) {
    fprintf(f, "| %s%s | ", e->profile, when);
    md_time(f, e->prefill.time_per_token_s);
    fprintf(f, " (%s) | ", e->prefill.bound);
    md_time(f, e->decode.time_per_token_s);
    fprintf(f, " (%s) | %s |\n", e->decode.bound,
            e->calibrated ? "yes" : "no: peak figures, a lower bound on time");
}

/* The LLM view: cost per token of prefill and decode, the KV cache, and
 * the time per token on each profile. */
static void md_llm(FILE *f, const fl_card *c) {
    const fl_report_llm *v = c->llm;
    if (!v) {
        return;
    }
    fprintf(f,
            "\n### Generation (LLM view)\n\nPrefill of %" PRId64 " tokens and decode of one "
            "token at a context of %" PRId64 " (`%s` is the sequence",
            v->prompt, v->context, v->seq_symbol);
    if (v->past_symbol) {
        fprintf(f, ", `%s` the KV cache's past length", v->past_symbol);
    }
    for (size_t i = 0; i < v->n_other_symbols; i++) {
        fprintf(f, "%s`%s` = 1", i ? ", " : "; ", v->other_symbols[i]);
    }
    fputs(v->after ? "), each counted on the graph as given and after the graph rewrites (each "
                     "phase's graph optimised at its bindings).\n\n"
                   : "), each counted on the graph as given.\n\n",
          f);
    fputs("| phase | tokens | past | seq | FLOPs/token | MACs/token | bytes/token | FLOPs/byte |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|\n",
          f);
    md_llm_phase(f, "prefill", &v->prefill);
    md_llm_phase(f, "decode", &v->decode);
    if (v->after) {
        md_llm_phase(f, "prefill, after graph rewrites", &v->after->prefill);
        md_llm_phase(f, "decode, after graph rewrites", &v->after->decode);
    }
    if (v->past_symbol) {
        fputs("\nKV cache: ", f);
        md_si(f, v->kv_bytes_per_token, "B");
        fprintf(f, " per token of context, ");
        md_si(f, v->kv_bytes_at_context, "B");
        fprintf(f, " at a context of %" PRId64 ".\n", v->context);
    }
    if (!v->n_roofline) {
        return;
    }
    fputs("\n| device | prefill time/token | decode time/token | calibrated |\n"
          "|---|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < v->n_roofline; i++) {
        md_llm_time_row(f, &v->roofline[i], "");
        if (v->after && i < v->after->n_roofline) {
            md_llm_time_row(f, &v->after->roofline[i], ", after graph rewrites");
        }
    }
}

void fl_card_print_md(FILE *f, const fl_card *c) {
    const fl_report *x = c->formulas, *y = c->bound;
    md_head(f, c);
    fputs("| quantity | formula | ", f);
    md_bindings(f, c);
    fputs(" |\n|---|---|---:|\n", f);
    fprintf(f, "| parameters | `%" PRId64 "` | ", x->params);
    md_si(f, (double)y->params, "");
    fputs(" |\n", f);
    md_row(f, "FLOPs", &x->totals.flops, &y->totals.flops, "FLOP");
    md_row(f, "MACs", &x->totals.macs, &y->totals.macs, "MAC");
    md_row(f, "bytes moved", &x->totals.bytes, &y->totals.bytes, "B");
    fputs("\nFLOPs count a multiply-accumulate as 2 FLOPs and every op's arithmetic "
          "(elementwise ops, normalisations, softmax included); bytes are what each op reads and "
          "writes, summed over the ops of the graph as given; parameters are the elements of "
          "its floating-point and narrow-integer constant tensors.",
          f);
    bool defaults = false;
    for (size_t i = 0; i < c->n_bindings; i++) {
        defaults |= c->bindings[i].by_default;
    }
    if (defaults) {
        fputs(" Symbols not bound on the command line are stated at 1.", f);
    }
    fputc('\n', f);
    md_latency(f, c);
    md_llm(f, c);
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

static void json_opt_str(FILE *f, const char *s) {
    if (s) {
        fl_print_json_str(f, s);
    } else {
        fputs("null", f);
    }
}

static void json_costs(FILE *f, const char *key, const fl_report *r) {
    fprintf(f, ",\n  \"%s\": {\"flops\": ", key);
    json_count(f, &r->totals.flops);
    fputs(", \"macs\": ", f);
    json_count(f, &r->totals.macs);
    fputs(", \"bytes\": ", f);
    json_count(f, &r->totals.bytes);
    fputc('}', f);
}

static void json_model(FILE *f, const fl_card *c) {
    const fl_report *r = c->formulas;
    fputs(",\n  \"model\": {\"path\": ", f);
    fl_print_json_str(f, c->model);
    fputs(", \"format\": ", f);
    fl_print_json_str(f, r->format);
    fputs(", \"producer_name\": ", f);
    json_opt_str(f, r->producer_name);
    fputs(", \"producer_version\": ", f);
    json_opt_str(f, r->producer_version);
    fprintf(f, ", \"nodes\": %" PRId64 ", \"params\": %" PRId64 ",\n            \"inputs\": [",
            r->n_nodes, r->params);
    for (size_t i = 0; i < r->n_inputs; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        fl_print_json_str(f, r->inputs[i].name);
        fputs(", \"dtype\": ", f);
        fl_print_json_str(f, r->inputs[i].dtype);
        fputs(", \"shape\": ", f);
        fl_print_json_str(f, r->inputs[i].shape);
        fputs(", \"dims\": ", f);
        fl_print_json_dims(f, r->inputs[i].rank, r->inputs[i].dims);
        fputc('}', f);
    }
    fputs("], \"outputs\": [", f);
    for (size_t i = 0; i < r->n_outputs; i++) {
        fputs(i ? ", " : "", f);
        fl_print_json_str(f, r->outputs[i]);
    }
    fputs("]}", f);
}

static void json_bindings(FILE *f, const fl_card *c) {
    fputs(",\n  \"bindings\": [", f);
    for (size_t i = 0; i < c->n_bindings; i++) {
        const char *t = c->bindings[i].text, *eq = strrchr(t, '=');
        fprintf(f, "%s{\"name\": \"", i ? ", " : "");
        for (const char *s = t; s < eq; s++) { /* symbol names need no escaping but quotes */
            fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
        }
        fprintf(f, "\", \"value\": %s, \"default\": %s}", eq + 1,
                c->bindings[i].by_default ? "true" : "false");
    }
    fputc(']', f);
}

static void json_profile(FILE *f, const fl_card *c, size_t i) {
    const fl_roofline_result *rr = &c->bound->roofline[i];
    const fl_profile *p = fl_cli_analysis_profile(c->analysis, i);
    fputs(i ? ",\n    {\"profile\": " : "\n    {\"profile\": ", f);
    fl_print_json_str(f, rr->profile);
    fputs(", \"kind\": ", f);
    json_opt_str(f, p ? p->kind : NULL);
    fputs(", \"description\": ", f);
    json_opt_str(f, p ? p->description : NULL);
    fputs(", \"file\": ", f);
    json_opt_str(f, p ? base_name(p->path) : NULL);
    fputs(", \"hash\": ", f);
    json_opt_str(f, profile_hash(c->bound, rr->profile));
    fprintf(f, ",\n     \"calibrated\": %s, \"time_s\": %.17g, \"after_time_s\": ",
            rr->before->calibrated ? "true" : "false", rr->before->time_s);
    if (rr->after) {
        fprintf(f, "%.17g", rr->after->time_s);
    } else {
        fputs("null", f);
    }
    if (rr->before->coverage > 0) {
        fprintf(f, ", \"interval\": {\"low_s\": %.17g, \"high_s\": %.17g, \"coverage\": %.17g}",
                rr->before->low_s, rr->before->high_s, rr->before->coverage);
    } else {
        fputs(", \"interval\": null", f);
    }
    fputs(",\n     \"sources\": {\"compute\": ", f);
    json_opt_str(f, compute_source(p));
    fputs(", \"memory\": ", f);
    json_opt_str(f, memory_source(p));
    fputs("}}", f);
}

void fl_card_print_json(FILE *f, const fl_card *c) {
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"foldline_version\": ", FL_JSON_SCHEMA_VERSION);
    fl_print_json_str(f, fl_version());
    fputs(",\n  \"kind\": \"card\"", f);
    json_model(f, c);
    fprintf(f, ",\n  \"complete\": %s, \"nodes_excluded\": %" PRId64 ",\n  \"symbols\": [",
            c->bound->complete ? "true" : "false", c->bound->nodes_excluded);
    for (size_t i = 0; i < c->formulas->n_symbols; i++) {
        fputs(i ? ", " : "", f);
        fl_print_json_str(f, c->formulas->symbols[i]);
    }
    fputc(']', f);
    json_bindings(f, c);
    fputs(",\n  \"conventions\": {\"flops\": \"complete\", \"flops_per_mac\": 2}", f);
    json_costs(f, "formulas", c->formulas);
    json_costs(f, "values", c->bound);
    fputs(",\n  \"latency\": [", f);
    for (size_t i = 0; i < c->bound->n_roofline; i++) {
        json_profile(f, c, i);
    }
    fputs(c->bound->n_roofline ? "\n  ]" : "]", f);
    if (c->llm) { /* the view as analyze --json prints it */
        fl_report rv = {.llm = c->llm};
        fputs(",\n  \"llm\": ", f);
        fl_llm_json(f, &rv);
    }
    fputs("\n}\n", f);
}
