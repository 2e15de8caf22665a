/*
 * llm.c - the LLM view of `analyze`; see llm.h.
 *
 * Which symbols play which part, from the graph as given:
 *  - KV-cache inputs: inputs of rank >= 3 whose name contains "past" or
 *    "cache" (torch and ONNX Runtime exports: past_key_values.N.key,
 *    past.N, cache_k...). The past symbol is the dim before the last of the
 *    first of them ([batch, heads, past, head_dim]).
 *  - The sequence symbol: a symbol whose name contains "seq" (and not
 *    "past" or "total"), else dim 1 of the first rank-2 input that is not a
 *    KV input (input_ids [batch, seq]).
 *  - A symbol naming "total" (or both "past" and "seq") is past + seq (an
 *    attention mask over the whole context); every other free symbol is 1
 *    unless --bind sets it.
 * Phases: prefill binds past = 0, seq = prompt; decode binds seq = 1 and
 * past = context - 1 (the new token attends to the whole context). Without
 * a KV cache, decode recomputes the context: seq = context. Per token = the
 * phase's totals over the tokens it processes (the elements of the sequence
 * input: batch x seq). KV-cache bytes per token: the KV inputs' bytes at
 * decode over (context - 1); at the context: that times the context.
 * Arithmetic intensity: the phase's FLOPs over its bytes moved.
 */
#include "llm.h"

#include "cli.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYMS 64

static bool has(const char *s, const char *word) {
    for (; *s; s++) {
        size_t i = 0;
        while (word[i] && tolower((unsigned char)s[i]) == word[i]) {
            i++;
        }
        if (!word[i]) {
            return true;
        }
    }
    return false;
}

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
    *dst = x;
    return 1;
}

typedef struct roles {
    const char *past, *seq;
    const char *total[MAX_SYMS];
    size_t n_total;
    const char *seq_input; /* its elements are the tokens of a step */
    size_t n_kv;
} roles;

static bool is_kv(const fl_report_input *in) {
    return in->rank >= 3 && (has(in->name, "past") || has(in->name, "cache"));
}

/* A dim that is one free symbol (its text a name of base->symbols). */
static const char *sym_dim(const fl_report *r, const fl_quantity *q) {
    for (size_t i = 0; !q->known && i < r->n_symbols; i++) {
        if (strcmp(q->text, r->symbols[i]) == 0) {
            return r->symbols[i];
        }
    }
    return NULL;
}

static void find_roles(const fl_report *r, roles *x) {
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (is_kv(in)) {
            x->n_kv++;
            if (!x->past) {
                x->past = sym_dim(r, &in->dims[in->rank - 2]);
            }
        }
    }
    for (size_t i = 0; i < r->n_symbols; i++) {
        const char *s = r->symbols[i];
        if (s == x->past) {
            continue;
        }
        if (has(s, "total") || (has(s, "past") && has(s, "seq"))) {
            if (x->n_total < MAX_SYMS) {
                x->total[x->n_total++] = s;
            }
        } else if (!x->seq && has(s, "seq") && !has(s, "past")) {
            x->seq = s;
        }
    }
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (is_kv(in) || in->rank != 2) {
            continue;
        }
        const char *s = sym_dim(r, &in->dims[1]);
        if (s && s != x->past && (!x->seq || s == x->seq)) {
            x->seq = s;
            x->seq_input = in->name;
            break;
        }
    }
}

/* The bindings of one phase: the user's, then past/seq/total, then 1 for
 * every other free symbol of base. */
static size_t phase_bindings(const fl_report *base, const fl_options *opt, const roles *x,
                             int64_t past, int64_t seq, fl_symbol_binding *b) {
    size_t n = 0;
    for (size_t i = 0; i < opt->n_symbols; i++) {
        b[n++] = opt->symbols[i];
    }
    for (size_t i = 0; i < base->n_symbols && n < opt->n_symbols + MAX_SYMS; i++) {
        const char *s = base->symbols[i];
        int64_t v = 1;
        if (s == x->past) {
            v = past;
        } else if (s == x->seq) {
            v = seq;
        } else {
            for (size_t k = 0; k < x->n_total; k++) {
                v = s == x->total[k] ? past + seq : v;
            }
        }
        b[n].name = s;
        b[n++].value = v;
    }
    return n;
}

static size_t dtype_size(const char *dt) {
    static const struct {
        const char *name;
        size_t size;
    } t[] = {{"float", 4}, {"float16", 2}, {"bfloat16", 2}, {"double", 8}, {"int8", 1},
             {"uint8", 1}, {"int16", 2},   {"uint16", 2},   {"int32", 4},  {"uint32", 4},
             {"int64", 8}, {"uint64", 8},  {"bool", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(dt, t[i].name) == 0) {
            return t[i].size;
        }
    }
    return 0;
}

/* Elements of input `name` (all dims known), or -1. */
static double input_elems(const fl_report *r, const char *name, size_t *bytes_each) {
    for (size_t i = 0; i < r->n_inputs; i++) {
        const fl_report_input *in = &r->inputs[i];
        if (strcmp(in->name, name) != 0 || in->rank < 0) {
            continue;
        }
        double e = 1;
        for (int k = 0; k < in->rank; k++) {
            if (!in->dims[k].known) {
                return -1;
            }
            e *= (double)in->dims[k].value;
        }
        *bytes_each = dtype_size(in->dtype);
        return e;
    }
    return -1;
}

typedef struct phase {
    double tokens, flops, macs, bytes, kv_bytes;
} phase;

static int run_phase(const fl_report *base, const unsigned char *buf, size_t len,
                     const fl_options *opt, const fl_roof_backend *be, const roles *x, int64_t past,
                     int64_t seq, phase *p, const char *what, const char *model) {
    fl_symbol_binding b[MAX_SYMS + 64];
    if (opt->n_symbols > 64) {
        return fl_cli_usage_error("%s", "the LLM view takes at most 64 --bind values");
    }
    fl_options o = *opt;
    o.symbols = b;
    o.n_symbols = phase_bindings(base, opt, x, past, seq, b);
    o.per_node = false;
    o.passes = NULL;
    o.n_profiles = 0;
    o.profiles = NULL;
    fl_report *r = NULL;
    char err[1024];
    int rc = 0;
    if (be) {
        rc = be->analyze(be->ctx, buf, len, &o, &r, err, sizeof err);
    } else {
        fl_status st = fl_analyze(buf, len, &o, &r);
        if (st != FL_OK) {
            snprintf(err, sizeof err, "%s", r && r->error ? r->error : fl_status_str(st));
            rc = fl_cli_exit_of(st);
        }
    }
    if (rc == 0 && (!r->totals.flops.known || !r->totals.macs.known || !r->totals.bytes.known)) {
        snprintf(err, sizeof err, "its totals are not numbers (FLOPs %s)", r->totals.flops.text);
        rc = EXIT_BAD_MODEL;
    }
    if (rc == 0) {
        size_t es = 0;
        p->tokens = x->seq_input ? input_elems(r, x->seq_input, &es) : (double)seq;
        p->tokens = p->tokens > 0 ? p->tokens : (double)seq;
        p->flops = (double)r->totals.flops.value;
        p->macs = (double)r->totals.macs.value;
        p->bytes = (double)r->totals.bytes.value;
        p->kv_bytes = 0;
        for (size_t i = 0; i < r->n_inputs; i++) {
            double e = is_kv(&r->inputs[i]) ? input_elems(r, r->inputs[i].name, &es) : -1;
            p->kv_bytes += e > 0 ? e * (double)es : 0;
        }
    } else {
        fprintf(stderr, "foldline: %s: LLM view, %s: %s\n", model, what, err);
    }
    if (r) {
        (be ? be->free_report : fl_report_free)(r);
    }
    return rc;
}

static void row(FILE *f, const char *name, const phase *p) {
    fprintf(f, "  %-9s %9.0f %16.1f %16.1f %16.1f %10.2f\n", name, p->tokens, p->flops / p->tokens,
            p->macs / p->tokens, p->bytes / p->tokens, p->bytes > 0 ? p->flops / p->bytes : 0.0);
}

int fl_llm_view(FILE *f, const fl_llm_cli *lc, const fl_report *base, const unsigned char *buf,
                size_t len, const fl_options *opt, const fl_roof_backend *be, const char *model) {
    roles x;
    find_roles(base, &x);
    if (lc->off || !x.seq || (x.n_kv && !x.past)) {
        return 0;
    }
    int64_t prompt = lc->prompt ? lc->prompt : 128;
    int64_t context = lc->context ? lc->context : 1024;
    if (x.n_kv && context < 2) {
        return fl_cli_usage_error("--context must be at least 2 for the decode phase, got %" PRId64,
                                  context);
    }
    phase pre, dec;
    int rc = run_phase(base, buf, len, opt, be, &x, 0, prompt, &pre, "prefill", model);
    if (rc == 0) {
        rc = x.n_kv ? run_phase(base, buf, len, opt, be, &x, context - 1, 1, &dec, "decode", model)
                    : run_phase(base, buf, len, opt, be, &x, 0, context, &dec, "decode", model);
    }
    if (rc) {
        return rc;
    }
    fprintf(f,
            "\nLLM view  prompt %" PRId64 ", context %" PRId64 " (--prompt, --context); %s = seq",
            prompt, context, x.seq);
    if (x.past) {
        fprintf(f, ", %s = past", x.past);
    }
    for (size_t i = 0; i < base->n_symbols; i++) {
        const char *s = base->symbols[i];
        bool role = s == x.seq || s == x.past;
        for (size_t k = 0; k < x.n_total; k++) {
            role |= s == x.total[k];
        }
        if (!role) {
            fprintf(f, ", %s = 1", s);
        }
    }
    fprintf(f, "\n  %-9s %9s %16s %16s %16s %10s\n", "phase", "tokens", "FLOPs/token", "MACs/token",
            "bytes/token", "FLOPs/byte");
    row(f, "prefill", &pre);
    if (x.n_kv) {
        row(f, "decode", &dec);
        double per = dec.kv_bytes / (double)(context - 1);
        fprintf(f,
                "  KV cache  %.0f bytes per token of context (%zu inputs), %.0f bytes at context "
                "%" PRId64 "\n",
                per, x.n_kv, per * (double)context, context);
    } else {
        fprintf(f, "  decode without a KV cache recomputes the context: %.1f FLOPs per new token\n",
                dec.flops / (dec.tokens / (double)context));
    }
    return 0;
}
