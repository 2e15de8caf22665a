/*
 * test_oom.c - running out of memory at any one allocation of an analysis
 * of real models: fl_analyze fails with FL_ENOMEM and an error naming
 * memory (no report only when the report's own allocation is the one that
 * failed, as documented), never crashes, never returns FL_OK with a part
 * missing, and leaks nothing (under AddressSanitizer); the next analysis
 * gives the same report as before. Every allocation counts: arena memory,
 * scratch arrays, and every malloc, calloc and realloc of the engine's
 * code (allocfail.h: this executable is linked with the wrappers). All of
 * an analysis's allocations fail in turn when there are few; else every
 * malloc/calloc/realloc call, the last ones, and an even spread of the
 * others.
 */
#include "allocfail.h"
#include "foldline/foldline.h"
#include "testgraph.h"
#include "testutil.h"
#include "util/arena.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define FL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FL_ASAN 1
#endif
#endif
#ifdef FL_ASAN
#include <sanitizer/lsan_interface.h>
#endif

/* Failing every allocation up to this many; past it, a spread of SPREAD
 * (or the model's own). */
#define ALL_UP_TO 3000
#define SPREAD    1500

/* The report as text: every field the analysis fills, so that two reports
 * are compared whole. */
static void put_q(FILE *f, const char *what, const fl_quantity *q) {
    fprintf(f, "%s=%d/%" PRId64 "/%s\n", what, q->known, q->value, q->text ? q->text : "(null)");
}

static void put_totals(FILE *f, const char *what, const fl_totals *t) {
    fprintf(f, "[%s nodes=%" PRId64 "]\n", what, t->nodes);
    put_q(f, "flops", &t->flops);
    put_q(f, "tfprof", &t->tfprof_flops);
    put_q(f, "macs", &t->macs);
    put_q(f, "int_ops", &t->int_ops);
    put_q(f, "bytes", &t->bytes);
    put_q(f, "read", &t->bytes_read);
    put_q(f, "written", &t->bytes_written);
}

static void put_nodes(FILE *f, const fl_report_node *ns, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const fl_report_node *x = &ns[i];
        fprintf(f, "node %s %s rule=%d inc=%d\n", x->name, x->op, x->has_rule, x->incomplete);
        put_q(f, " flops", &x->flops);
        put_q(f, " macs", &x->macs);
        put_q(f, " bytes", &x->bytes);
        for (size_t k = 0; k < x->n_outputs; k++) {
            fprintf(f, " out %s %s\n", x->outputs[k].dtype, x->outputs[k].shape);
        }
    }
}

static void put_phase(FILE *f, const char *what, const fl_llm_phase *p) {
    fprintf(f,
            "%s past=%" PRId64 " seq=%" PRId64 " tokens=%" PRId64 " flops=%" PRId64 " macs=%" PRId64
            " bytes=%" PRId64 " kv=%" PRId64 "\n",
            what, p->past, p->seq, p->tokens, p->flops, p->macs, p->bytes, p->kv_bytes);
}

static char *report_text(const fl_report *r) {
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    fprintf(f, "format=%s nodes=%" PRId64 " params=%" PRId64 " complete=%d excluded=%" PRId64 "\n",
            r->format, r->n_nodes, r->params, r->complete, r->nodes_excluded);
    put_totals(f, "totals", &r->totals);
    for (size_t i = 0; i < r->n_inputs; i++) {
        fprintf(f, "input %s %s %s\n", r->inputs[i].name, r->inputs[i].dtype, r->inputs[i].shape);
    }
    for (size_t i = 0; i < r->n_outputs; i++) {
        fprintf(f, "output %s\n", r->outputs[i]);
    }
    for (size_t i = 0; i < r->n_symbols; i++) {
        fprintf(f, "symbol %s\n", r->symbols[i]);
    }
    for (size_t i = 0; i < r->n_ops; i++) {
        fprintf(f, "op %s %" PRId64 " %s\n", r->ops[i].op, r->ops[i].count, r->ops[i].flops.text);
    }
    for (size_t i = 0; i < r->n_unknown_ops; i++) {
        fprintf(f, "unknown %s %" PRId64 "\n", r->unknown_ops[i].op, r->unknown_ops[i].count);
    }
    for (size_t i = 0; i < r->n_warnings; i++) {
        fprintf(f, "warning %s\n", r->warnings[i]);
    }
    put_nodes(f, r->nodes, r->n_nodes_detail);
    fprintf(f, "optimized=%d passes=%zu ledger=%zu\n", r->optimized, r->n_passes, r->n_ledger);
    if (r->optimized) {
        put_totals(f, "before", &r->before);
        put_totals(f, "after", &r->after);
    }
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        fprintf(f, "pass %s %d -%" PRId64 " +%" PRId64 " ~%" PRId64 " %zu+%zu %s\n", p->pass,
                p->iteration, p->nodes_removed, p->nodes_added, p->nodes_rewritten, p->first_entry,
                p->n_entries, p->failed ? p->failed : "ran");
        put_totals(f, "pass after", &p->after);
    }
    for (size_t i = 0; i < r->n_ledger; i++) {
        const fl_report_ledger_entry *e = &r->ledger[i];
        fprintf(f, "ledger %s %s %s %s\n", e->pass, e->rule, e->node, e->detail);
    }
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < r->graph_len; i++) {
        h = (h ^ r->graph_bytes[i]) * 1099511628211u;
    }
    fprintf(f, "graph %zu %016" PRIx64 "\n", r->graph_len, h);
    put_nodes(f, r->nodes_after, r->n_nodes_after);
    if (r->llm) {
        put_phase(f, "prefill", &r->llm->prefill);
        put_phase(f, "decode", &r->llm->decode);
        if (r->llm->after) {
            put_phase(f, "prefill after", &r->llm->after->prefill);
            put_phase(f, "decode after", &r->llm->after->decode);
        }
    }
    fclose(f);
    return s;
}

typedef struct model {
    const char *what;
    long spread;    /* past ALL_UP_TO allocations: how many of all fail in turn (0: SPREAD) */
    long raw_every; /* and every raw_every-th malloc/calloc/realloc (0: every one) */
    const void *bytes;
    size_t len;
    fl_options o;
} model;

static fl_status analyze(const model *m, fl_report **r) {
    *r = NULL;
    return fl_analyze(m->bytes, m->len, &m->o, r);
}

/* Whether a failed analysis's report holds its error only (fl_analyze
 * clears what was filled before the failure: never a part of a report). */
static bool error_only(fl_report *r) {
    static const fl_report zero;
    const char *error = r->error;
    r->error = NULL;
    bool only = memcmp(r, &zero, sizeof(*r)) == 0;
    r->error = error;
    return only;
}

/* Whether allocation k (1-based) of the analysis fails as it should: with
 * FL_ENOMEM and an error saying "out of memory" (the system refused it:
 * not the analysis's memory limit), or, where the engine has another
 * way without that memory (a reader's optional scratch), with FL_OK and
 * the whole report, equal to `want` (*whole counts those). An analysis
 * that made fewer than k allocations must give that report too (*fewer:
 * the report's text cache is keyed on addresses, so a miss more or less
 * moves the count by a few). Prints what went wrong when not. */
static bool fails_cleanly(const model *m, long k, long total, const char *want, size_t *whole,
                          size_t *fewer) {
    fl_report *r = NULL;
    fl_af_arm(k);
    fl_status st = analyze(m, &r);
    fl_af_disarm();
    bool hit = fl_af_failed(), ok = true;
    if (st == FL_OK) {
        char *got = report_text(r);
        if (strcmp(got, want) != 0) {
            size_t at = 0; /* the first line that differs */
            for (size_t i = 0; got[i] == want[i]; i++) {
                if (got[i] == '\n') {
                    at = i + 1;
                }
            }
            const char *g = got + at, *w = want + at;
            print_error("%s: allocation %ld of %ld failed, the analysis returned OK with another "
                        "report; where it differs:\n  %.*s\ninstead of\n  %.*s\n",
                        m->what, k, total, (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
            ok = false;
        }
        *(hit ? whole : fewer) += ok;
        free(got);
    } else if (!hit) {
        print_error("%s: the analysis made fewer than %ld allocations and returned %s\n", m->what,
                    k, fl_status_name(st));
        ok = false;
    } else if (st != FL_ENOMEM) {
        print_error("%s: allocation %ld of %ld failed, the analysis returned %s (%s)\n", m->what, k,
                    total, fl_status_name(st), r && r->error ? r->error : "no error");
        ok = false;
    } else if (!r ? k != 1 : !r->error || !strstr(r->error, "out of memory")) {
        print_error("%s: allocation %ld of %ld failed: FL_ENOMEM, but %s\n", m->what, k, total,
                    !r         ? "no report"
                    : r->error ? r->error
                               : "no error message");
        ok = false;
    } else if (r && !error_only(r)) {
        print_error("%s: allocation %ld of %ld failed: FL_ENOMEM, but the report holds more than "
                    "its error (%s)\n",
                    m->what, k, total, r->error);
        ok = false;
    }
    if (!ok && hit) {
        printf("the allocation that failed:\n");
        fl_af_print_where();
    }
    fl_report_free(r);
    return ok;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void oom_everywhere(const model *m) {
    /* Once before counting: anything done once per process is done. */
    fl_report *r = NULL;
    fl_status st = analyze(m, &r);
    if (st != FL_OK) {
        fail_msg("%s: %s (%s)", m->what, fl_status_name(st), r && r->error ? r->error : "");
    }
    char *want = report_text(r);
    fl_report_free(r);

    fl_af_arm(0);
    st = analyze(m, &r);
    fl_af_disarm();
    assert_int_equal(st, FL_OK);
    assert_true(fl_af_wrapped());
    long total = fl_af_calls(), raw = fl_af_raw_calls();
    assert_true(total > 0 && raw > 0);
    char *got = report_text(r);
    assert_string_equal(got, want);
    free(got);
    fl_report_free(r);

    /* Which allocations fail: all, or every raw one (every raw_every-th),
     * the last 16 and an even spread. */
    long spread = m->spread ? m->spread : SPREAD, every = m->raw_every ? m->raw_every : 1;
    size_t cap = (size_t)raw + (size_t)spread + 16 + (size_t)(total <= ALL_UP_TO ? total : 0);
    long *at = malloc(cap * sizeof *at);
    assert_non_null(at);
    size_t n = 0;
    if (total <= ALL_UP_TO) {
        for (long k = 1; k <= total; k++) {
            at[n++] = k;
        }
    } else {
        fl_af_arm(0);
        st = analyze(m, &r);
        fl_af_disarm();
        assert_int_equal(st, FL_OK);
        fl_report_free(r);
        assert_int_equal(fl_af_raw_indices(at, (size_t)raw), (size_t)raw);
        for (long j = 0; j < raw; j += every) {
            at[n++] = at[j];
        }
        for (long j = 0; j < spread; j++) {
            at[n++] = 1 + j * (total - 1) / (spread - 1);
        }
        for (long k = total; k > total - 16; k--) {
            at[n++] = k;
        }
        qsort(at, n, sizeof *at, cmp_long);
    }
    int bad = 0;
    size_t tried = 0, whole = 0, fewer = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && at[i] == at[i - 1]) {
            continue;
        }
        tried++;
        if (!fails_cleanly(m, at[i], total, want, &whole, &fewer) && ++bad >= 10) {
            break;
        }
    }
    free(at);
    printf("%s: %ld allocations (%ld malloc/calloc/realloc), %zu failed in turn (%zu of them "
           "done without, the report whole; %zu past the end of a shorter run)\n",
           m->what, total, raw, tried, whole, fewer);
    assert_true(fewer <= 16);
#ifdef FL_ASAN
    if (__lsan_do_recoverable_leak_check()) {
        print_error("%s: memory leaked (above)\n", m->what);
        bad++;
    }
#endif
    /* And then an analysis as before. */
    st = analyze(m, &r);
    assert_int_equal(st, FL_OK);
    got = report_text(r);
    assert_string_equal(got, want);
    free(got);
    free(want);
    fl_report_free(r);
    assert_int_equal(bad, 0);
}

static unsigned char *read_data(const char *name, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FL_TEST_DATA_DIR, name);
    unsigned char *b = fl_test_read_file(path, len);
    if (!b) {
        fail_msg("cannot read %s", path);
    }
    return b;
}

/* The model file of the running test (freed by the next one and at the
 * end, so that a failed test leaks nothing). */
static void *held;

static model data_model(const char *what, const char *file) {
    model m;
    memset(&m, 0, sizeof m);
    m.what = what;
    free(held);
    held = read_data(file, &m.len);
    m.bytes = held;
    fl_options_init(&m.o);
    return m;
}

/* tiny_cnn.pb with the default passes, the per-node lists and the
 * optimised GraphDef written. */
static void test_graphdef_passes(void **state) {
    (void)state;
    model m = data_model("tiny_cnn.pb", "tiny_cnn.pb");
    m.o.passes = "default";
    m.o.per_node = true;
    m.o.return_graph = true;
    oom_everywhere(&m);
}

/* A TensorFlow While loop counted 5 times (i from 0 by 1 while i < 5;
 * body MatMul [2,16]x[16,16]), lowered at import, with the default passes:
 * the costing after each pass builds the loops' repeat table. */
static void test_graphdef_while_passes(void **state) {
    (void)state;
    enum { DT_FLOAT = 1, DT_INT32 = 3 };
    const char *in[] = {"i", "x", "n"};
    int types[] = {DT_INT32, DT_FLOAT, DT_INT32};
    tg_graph *g = tg_new(), *cb = tg_new(), *bb = tg_new();
    tg_producer(g, 1000);
    tg_const_int(cb, "lim", DT_INT32, 0, NULL, (int64_t[]){5});
    tg_attr_type(tg_add(cb, "less", "Less", "i", "lim:output:0", NULL), "T", DT_INT32);
    tg_function(g, cb, "C", 3, in, types, 1, (const char *[]){"ok"}, (int[]){10},
                (const char *[]){"less:z:0"});
    tg_const_int(bb, "one", DT_INT32, 0, NULL, (int64_t[]){1});
    tg_attr_type(tg_add(bb, "inc", "AddV2", "i", "one:output:0", NULL), "T", DT_INT32);
    tg_const_f32(bb, "w", 2, (int64_t[]){16, 16}, NULL, 0);
    tg_attr_type(tg_add(bb, "mm", "MatMul", "x", "w:output:0", NULL), "T", DT_FLOAT);
    tg_attr_type(tg_add(bb, "keep", "Identity", "n", NULL), "T", DT_INT32);
    tg_function(g, bb, "B", 3, in, types, 3, (const char *[]){"i2", "y", "n2"}, types,
                (const char *[]){"inc:z:0", "mm:product:0", "keep:output:0"});
    tg_const_int(g, "i0", DT_INT32, 0, NULL, (int64_t[]){0});
    tg_placeholder(g, "x", DT_FLOAT, 2, (int64_t[]){2, 16});
    tg_const_int(g, "n", DT_INT32, 0, NULL, (int64_t[]){5});
    tg_node *w = tg_add(g, "loop", "While", "i0", "x", "n", NULL);
    tg_attr_types(w, "T", 3, (int[]){DT_INT32, DT_FLOAT, DT_INT32});
    tg_attr_func(w, "cond", "C");
    tg_attr_func(w, "body", "B");
    tg_const_f32(g, "w3", 2, (int64_t[]){16, 8}, NULL, 0);
    tg_attr_type(tg_add(g, "out", "MatMul", "loop:1", "w3", NULL), "T", DT_FLOAT);
    model m;
    memset(&m, 0, sizeof m);
    m.what = "While loop (GraphDef)";
    uint8_t *bytes = tg_pack(g, &m.len);
    free(held);
    held = bytes;
    m.bytes = bytes;
    fl_options_init(&m.o);
    m.o.passes = "default";
    m.o.per_node = true;
    tg_free(g);
    tg_free(cb);
    tg_free(bb);
    /* 5 trips of the body, as test_tf_while counts them. */
    fl_report *r = NULL;
    assert_int_equal(analyze(&m, &r), FL_OK);
    assert_string_equal(r->after.flops.text, "5643");
    fl_report_free(r);
    oom_everywhere(&m);
}

/* tiny_cnn.onnx with the default passes, written back as ONNX. */
static void test_onnx_passes(void **state) {
    (void)state;
    model m = data_model("tiny_cnn.onnx", "tiny_cnn.onnx");
    m.o.passes = "default";
    m.o.per_node = true;
    m.o.return_graph = true;
    oom_everywhere(&m);
}

/* bert_tiny (attention, layer norms, the transpose pass's work) with the
 * default passes. */
static void test_onnx_bert_passes(void **state) {
    (void)state;
    model m = data_model("bert_tiny.stripped.onnx", "bert_tiny.stripped.onnx");
    m.o.passes = "default";
    oom_everywhere(&m);
}

/* A TFLite model (the passes do not apply: the ledger says so). */
static void test_tflite(void **state) {
    (void)state;
    model m = data_model("tiny.tflite", "tiny.tflite");
    m.o.passes = "default";
    m.o.per_node = true;
    oom_everywhere(&m);
}

/* A TF.js graph model with its weights in a shard: x [1,8,8,3] -> Conv2D
 * (w [3,3,3,4] from the shard) -> BiasAdd -> Relu, with the passes (the
 * remapper fuses the three). */
static void test_tfjs(void **state) {
    (void)state;
    static const char json[] =
        "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
        "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},"
        "\"shape\":{\"shape\":{\"dim\":[{\"size\":\"1\"},{\"size\":\"8\"},{\"size\":\"8\"},"
        "{\"size\":\"3\"}]}}}},"
        "{\"name\":\"w\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},"
        "\"value\":{\"tensor\":{\"dtype\":\"DT_FLOAT\",\"tensorShape\":{\"dim\":[{\"size\":\"3\"},"
        "{\"size\":\"3\"},{\"size\":\"3\"},{\"size\":\"4\"}]}}}}},"
        "{\"name\":\"b\",\"op\":\"Const\",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},"
        "\"value\":{\"tensor\":{\"dtype\":\"DT_FLOAT\",\"tensorShape\":{\"dim\":[{\"size\":\"4\"}]}"
        "}}}},"
        "{\"name\":\"conv\",\"op\":\"Conv2D\",\"input\":[\"x\",\"w\"],\"attr\":{\"T\":{\"type\":"
        "\"DT_FLOAT\"},\"strides\":{\"list\":{\"i\":[\"1\",\"1\",\"1\",\"1\"]}},\"padding\":{\"s\":"
        "\"U0FNRQ==\"},\"data_format\":{\"s\":\"TkhXQw==\"}}},"
        "{\"name\":\"bias\",\"op\":\"BiasAdd\",\"input\":[\"conv\",\"b\"],\"attr\":{\"T\":{"
        "\"type\":"
        "\"DT_FLOAT\"}}},"
        "{\"name\":\"relu\",\"op\":\"Relu\",\"input\":[\"bias\"],\"attr\":{\"T\":{\"type\":"
        "\"DT_FLOAT\"}}}],"
        "\"versions\":{\"producer\":1234}},\"weightsManifest\":[{\"paths\":[\"group1-shard1of1."
        "bin\"],"
        "\"weights\":[{\"name\":\"w\",\"shape\":[3,3,3,4],\"dtype\":\"float32\"},"
        "{\"name\":\"b\",\"shape\":[4],\"dtype\":\"float32\"}]}]}";
    float w[3 * 3 * 3 * 4 + 4];
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        w[i] = (float)i / 8;
    }
    fl_file f = {"group1-shard1of1.bin", w, sizeof w};
    model m;
    memset(&m, 0, sizeof m);
    m.what = "TF.js model.json";
    m.bytes = json;
    m.len = strlen(json);
    fl_options_init(&m.o);
    m.o.format = FL_FORMAT_TFJS;
    m.o.files = &f;
    m.o.n_files = 1;
    m.o.passes = "default";
    m.o.per_node = true;
    oom_everywhere(&m);
}

/* The LLM view of a decoder with a KV cache (the graph analysed three
 * times: as given, then its prefill and decode phases), with the passes
 * (each phase optimised too). A phase that runs out of memory fails the
 * analysis: the view is not left out with a warning. */
static void test_llm_view(void **state) {
    (void)state;
    model m = data_model("tiny_decoder.onnx LLM view", "tiny_decoder.onnx");
    m.o.llm = true;
    m.o.passes = "default";
    m.spread = 300; /* of about 23,000: each analysis is three */
    m.raw_every = 6;
    fl_report *r = NULL;
    assert_int_equal(analyze(&m, &r), FL_OK);
    assert_non_null(r->llm);
    assert_non_null(r->llm->after);
    fl_report_free(r);
    oom_everywhere(&m);
}

/* A decoder whose attention mask's dim_param is the sum "past + seq" (read
 * as that expression: the parser makes its variables and sums them). */
static void test_dim_param_expression(void **state) {
    (void)state;
    model m = data_model("tiny_decoder_mask.onnx", "tiny_decoder_mask.onnx");
    m.o.passes = "none";
    m.o.per_node = true;
    m.spread = 100;
    oom_everywhere(&m);
}

/* The analysis's memory limit, not the system, refusing memory: from 64
 * KiB to 1 MiB by 1 KiB, tiny_cnn.pb with the default passes (the limit
 * covers the arena, scratch arrays and each pass's journal) either fits
 * and gives the whole report, or fails with FL_ENOMEM naming the limit;
 * and every limit from the smallest that fits on fits. (The window where
 * blocks sized to the room a limit left failed above a passing limit was
 * swin_t's 16-17 MB with the self-checks off; tests/cli/cli_swin.sh sweeps
 * that one. On tiny_cnn every build fits from the same limit on.) */
static void test_memory_limit(void **state) {
    (void)state;
    model m = data_model("tiny_cnn.pb", "tiny_cnn.pb");
    m.o.passes = "default";
    m.o.per_node = true;
    fl_report *r = NULL;
    assert_int_equal(analyze(&m, &r), FL_OK);
    char *want = report_text(r);
    fl_report_free(r);
    int failed = 0, fit = 0;
    size_t first_fit = 0;
    for (size_t limit = 64 << 10; limit <= 1 << 20; limit += 1 << 10) {
        m.o.max_memory_bytes = limit;
        fl_status st = analyze(&m, &r);
        char name[64];
        snprintf(name, sizeof name, "the memory limit of %zu bytes", limit);
        if (st == FL_OK) {
            char *got = report_text(r);
            assert_string_equal(got, want);
            free(got);
            fit++;
            first_fit = first_fit ? first_fit : limit;
        } else {
            assert_int_equal(st, FL_ENOMEM);
            if (!strstr(r->error, name)) {
                fail_msg("limit %zu: %s", limit, r->error);
            }
            if (first_fit) {
                fail_msg("the limit of %zu bytes fails, that of %zu fits", limit, first_fit);
            }
            failed++;
        }
        fl_report_free(r);
    }
    free(want);
    printf("memory limits: %d refused, %d fit from %zu bytes\n", failed, fit, first_fit);
    assert_true(failed > 0 && fit > 0);
}

static int setup(void **state) {
    (void)state;
    /* Nothing kept between analyses: each takes its memory anew, so every
     * run makes the same allocations in the same order. */
    fl__arena_cache_set_cap(0);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    free(held);
    held = NULL;
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graphdef_passes), cmocka_unit_test(test_graphdef_while_passes),
        cmocka_unit_test(test_onnx_passes),     cmocka_unit_test(test_onnx_bert_passes),
        cmocka_unit_test(test_tflite),          cmocka_unit_test(test_tfjs),
        cmocka_unit_test(test_llm_view),        cmocka_unit_test(test_dim_param_expression),
        cmocka_unit_test(test_memory_limit),

    };
    return fl_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
