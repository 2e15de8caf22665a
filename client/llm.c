/*
 * llm.c - the LLM view of `analyze`: its options and its text and JSON
 * forms. The engine computes the view (fl_options.llm, fl_report.llm, with
 * the roles of the symbols and the phases stated in foldline.h), so a
 * server's reply carries the same figures as a local analysis.
 */
#include "llm.h"

#include "cli.h"
#include "print.h"
#include "roofcli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int fl_llm_cli_option(fl_llm_cli *lc, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strcmp(a, "--no-llm") == 0) {
        lc->off = true;
        return 1;
    }
    int64_t *dst = strcmp(a, "--prompt") == 0    ? &lc->prompt
                   : strcmp(a, "--context") == 0 ? &lc->context
                                                 : NULL;
    if (!dst) {
        return 0;
    }
    if (*i + 1 >= argc) {
        fl_cli_usage_error("option %s needs a value", a);
        return 2;
    }
    const char *v = argv[++*i];
    char *end;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || x < 1 || x > ((int64_t)1 << 40)) {
        fl_cli_usage_error("%s expects an integer >= 1, got '%s'", a, v);
        return 2;
    }
    if (dst == &lc->context && x < 2) {
        fl_cli_usage_error("--context must be at least 2 for the decode phase, got %lld", x);
        return 2;
    }
    *dst = x;
    return 1;
}

static void row(FILE *f, const char *name, const fl_llm_phase *p) {
    fprintf(f, "  %-9s %9" PRId64 " %16.1f %16.1f %16.1f %10.2f\n", name, p->tokens,
            p->flops_per_token, p->macs_per_token, p->bytes_per_token, p->intensity);
}

void fl_llm_view(FILE *f, const fl_report *r) {
    const fl_report_llm *v = r->llm;
    if (!v) {
        return;
    }
    fprintf(f,
            "\nLLM view  prompt %" PRId64 ", context %" PRId64 " (--prompt, --context); %s = seq",
            v->prompt, v->context, v->seq_symbol);
    if (v->past_symbol) {
        fprintf(f, ", %s = past", v->past_symbol);
    }
    for (size_t i = 0; i < v->n_other_symbols; i++) {
        fprintf(f, ", %s = 1", v->other_symbols[i]);
    }
    fprintf(f, "\n  %-9s %9s %16s %16s %16s %10s\n", "phase", "tokens", "FLOPs/token", "MACs/token",
            "bytes/token", "FLOPs/byte");
    row(f, "prefill", &v->prefill);
    if (v->past_symbol) {
        row(f, "decode", &v->decode);
    }
    if (v->after) {
        fputs("  after the rewrite passes\n", f);
        row(f, "prefill", &v->after->prefill);
        if (v->past_symbol) {
            row(f, "decode", &v->after->decode);
        }
    }
    if (v->past_symbol) {
        fprintf(f,
                "  KV cache  %.0f bytes per token of context (%" PRId64
                " inputs), %.0f bytes at context %" PRId64 "\n",
                v->kv_bytes_per_token, v->kv_inputs, v->kv_bytes_at_context, v->context);
    } else {
        fprintf(f, "  decode without a KV cache recomputes the context: %.1f FLOPs per new token",
                v->decode.flops_per_token);
        if (v->after) {
            fprintf(f, " (%.1f after the passes)", v->after->decode.flops_per_token);
        }
        fputc('\n', f);
    }
    fl_llm_roofline_text(f, v);
}

static void roofline_table(FILE *f, const char *title, const fl_llm_roofline *rl, size_t n) {
    fprintf(f, "  %-20s %26s %26s\n", title, "prefill", "decode");
    for (size_t i = 0; i < n; i++) {
        const fl_llm_roofline *e = &rl[i];
        char t1[32], t2[32], c1[64], c2[64];
        snprintf(c1, sizeof c1, "%s (%s)",
                 fl_roof_cli_fmt_time(e->prefill.time_per_token_s, t1, sizeof t1),
                 e->prefill.bound);
        snprintf(c2, sizeof c2, "%s (%s)",
                 fl_roof_cli_fmt_time(e->decode.time_per_token_s, t2, sizeof t2), e->decode.bound);
        fprintf(f, "  %-20s %26s %26s%s\n", e->profile, c1, c2,
                e->calibrated ? "" : "  (peaks only: a lower bound)");
    }
}

void fl_llm_roofline_text(FILE *f, const fl_report_llm *v) {
    if (!v || !v->n_roofline) {
        return;
    }
    roofline_table(f, "time per token", v->roofline, v->n_roofline);
    if (v->after && v->after->n_roofline) {
        fputs("  after the rewrite passes\n", f);
        roofline_table(f, "time per token", v->after->roofline, v->after->n_roofline);
    }
}

static void json_phase(FILE *f, const fl_llm_phase *p) {
    fprintf(f,
            "{\"past\": %" PRId64 ", \"seq\": %" PRId64 ", \"tokens\": %" PRId64
            ", \"flops\": {\"value\": %" PRId64 "}, \"macs\": {\"value\": %" PRId64
            "}, \"int_ops\": {\"value\": %" PRId64 "}, \"bytes\": {\"value\": %" PRId64
            "}, \"kv_bytes\": %" PRId64 ",\n              \"flops_per_token\": %.17g"
            ", \"macs_per_token\": %.17g, \"bytes_per_token\": %.17g, \"intensity\": %.17g}",
            p->past, p->seq, p->tokens, p->flops, p->macs, p->int_ops, p->bytes, p->kv_bytes,
            p->flops_per_token, p->macs_per_token, p->bytes_per_token, p->intensity);
}

static void json_names(FILE *f, const char *const *v, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        fl_print_json_str(f, v[i]);
    }
    fputc(']', f);
}

static void json_opt(FILE *f, const char *s) {
    if (s) {
        fl_print_json_str(f, s);
    } else {
        fputs("null", f);
    }
}

static void json_roofline(FILE *f, const fl_llm_roofline *rl, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        const fl_llm_roofline *e = &rl[i];
        fputs(i ? ",\n            {\"profile\": " : "\n            {\"profile\": ", f);
        fl_print_json_str(f, e->profile);
        fprintf(f, ", \"calibrated\": %s", e->calibrated ? "true" : "false");
        const fl_llm_time *t[2] = {&e->prefill, &e->decode};
        for (int k = 0; k < 2; k++) {
            fprintf(f,
                    ", \"%s\": {\"time_s\": %.17g, \"time_per_token_s\": %.17g, \"bound\": "
                    "\"%s\"}",
                    k ? "decode" : "prefill", t[k]->time_s, t[k]->time_per_token_s, t[k]->bound);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

void fl_llm_json(FILE *f, const fl_report *r) {
    const fl_report_llm *v = r->llm;
    if (!v) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"prompt\": %" PRId64 ", \"context\": %" PRId64 ", \"seq_symbol\": ", v->prompt,
            v->context);
    fl_print_json_str(f, v->seq_symbol);
    fputs(", \"past_symbol\": ", f);
    json_opt(f, v->past_symbol);
    fputs(", \"token_input\": ", f);
    json_opt(f, v->token_input);
    fputs(",\n          \"total_symbols\": ", f);
    json_names(f, v->total_symbols, v->n_total_symbols);
    fputs(", \"other_symbols\": ", f);
    json_names(f, v->other_symbols, v->n_other_symbols);
    fprintf(f, ", \"kv_inputs\": %" PRId64 ",\n          \"prefill\": ", v->kv_inputs);
    json_phase(f, &v->prefill);
    fputs(",\n          \"decode\": ", f);
    json_phase(f, &v->decode);
    fprintf(f, ",\n          \"kv_bytes_per_token\": %.17g, \"kv_bytes_at_context\": %.17g",
            v->kv_bytes_per_token, v->kv_bytes_at_context);
    fputs(",\n          \"roofline\": ", f);
    json_roofline(f, v->roofline, v->n_roofline);
    fputs(",\n          \"after\": ", f);
    if (v->after) {
        fputs("{\"prefill\": ", f);
        json_phase(f, &v->after->prefill);
        fputs(",\n            \"decode\": ", f);
        json_phase(f, &v->after->decode);
        fputs(",\n            \"roofline\": ", f);
        json_roofline(f, v->after->roofline, v->after->n_roofline);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputc('}', f);
}

void fl_llm_cli_apply(const fl_llm_cli *lc, fl_options *o) {
    o->llm = !lc->off;
    o->llm_prompt = lc->prompt;
    o->llm_context = lc->context;
}
