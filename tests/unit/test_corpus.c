/*
 * test_corpus.c - end-to-end analyses: the bundled models in tests/data, and
 * every TensorFlow graph of the shared corpus (skipped with a printed reason
 * when the corpus is absent).
 *
 * Corpus totals are pinned in tests/data/corpus_expect.tsv. A few of them
 * were checked by hand (see the comments in that file). To regenerate after a
 * deliberate change of counting rules: FL_UPDATE_EXPECT=1 ./test_corpus.
 */
#include "formula.h"
#include "testgraph.h"
#include "testutil.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_report *analyze_file(const char *path, const fl_options *opt, fl_status *st) {
    size_t len;
    unsigned char *buf = fl_test_read_file(path, &len);
    if (!buf) {
        fail_msg("cannot read %s", path);
    }
    fl_report *r = NULL;
    *st = fl_analyze(buf, len, opt, &r);
    free(buf);
    return r;
}

static int64_t eval_q(const fl_quantity *q, size_t n, const char *const *names,
                      const int64_t *vals) {
    if (q->known) {
        return q->value;
    }
    int64_t v;
    char err[128];
    if (!formula_eval(q->text, n, names, vals, &v, err, sizeof err)) {
        fail_msg("cannot evaluate formula '%s': %s", q->text, err);
    }
    return v;
}

/* Checks that the symbolic totals of `sym`, evaluated at the binding, equal
 * the totals of the concrete analysis `con`. */
static void expect_formula_matches(const fl_report *sym, const fl_report *con, size_t n,
                                   const char *const *names, const int64_t *vals) {
    assert_true(con->totals.flops.known);
    assert_true(con->totals.bytes.known);
    assert_int_equal(eval_q(&sym->totals.flops, n, names, vals), con->totals.flops.value);
    assert_int_equal(eval_q(&sym->totals.tfprof_flops, n, names, vals),
                     con->totals.tfprof_flops.value);
    assert_int_equal(eval_q(&sym->totals.macs, n, names, vals), con->totals.macs.value);
    assert_int_equal(eval_q(&sym->totals.bytes, n, names, vals), con->totals.bytes.value);
}

/* tiny_cnn (tests/data) by hand, batch 1, from tfprof's rules
 * (tensorflow/python/profiler/internal/flops_registry.py): conv1  Conv2D out [1,32,32,8]:
 * 2*8192*3*3*3      = 442368 (MACs 221184) BiasAdd E(in)=8192; Relu 8192 (complete only) pool1
 * MaxPool 2x2 out [1,16,16,8]: 4*2048       = 8192 conv2  Conv2D s2 out [1,8,8,16]: 2*1024*3*3*8 =
 * 147456 (MACs 73728) BiasAdd 1024; Relu6 1024 (complete only) gap    Mean E(in) = 1024 fc MatMul
 * 2*16*10 = 320 (MACs 160); BiasAdd 10; Softmax 5*10 = 50 tfprof =
 * 442368+8192+8192+147456+1024+1024+320+10+50 = 608636 complete = tfprof + 8192 + 1024 = 617852
 * MACs = 221184 + 73728 + 160                         = 295072 */
static void test_tiny_cnn_batch1(void **state) {
    (void)state;
    fl_options o;
    fl_options_init(&o);
    fl_input_binding in = {"input", 4, (int64_t[]){1, 32, 32, 3}};
    o.inputs = &in;
    o.n_inputs = 1;
    fl_status st;
    fl_report *r = analyze_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &o, &st);
    assert_int_equal(st, FL_OK);
    assert_int_equal(r->totals.tfprof_flops.value, 608636);
    assert_int_equal(r->totals.flops.value, 617852);
    assert_int_equal(r->totals.macs.value, 295072);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(r->nodes_incomplete, 0);
    fl_report_free(r);
}

/* The same graph with its batch left free: the totals are formulas in
 * input.0, and at batch 1 and 8 they equal the concrete analyses (which, for
 * this graph, are linear in the batch). */
static void test_tiny_cnn_symbolic_batch(void **state) {
    (void)state;
    fl_options o;
    fl_options_init(&o);
    fl_status st;
    fl_report *sym = analyze_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &o, &st);
    assert_int_equal(st, FL_OK);
    assert_false(sym->totals.flops.known);
    assert_int_equal(sym->n_symbols, 1);
    assert_string_equal(sym->symbols[0], "input.0");
    assert_string_equal(sym->totals.tfprof_flops.text, "608636*input.0");
    const char *names[] = {"input.0"};
    for (int64_t b = 1; b <= 8; b *= 8) {
        fl_options oc;
        fl_options_init(&oc);
        fl_symbol_binding sb = {"input.0", b};
        oc.symbols = &sb;
        oc.n_symbols = 1;
        fl_report *con = analyze_file(FL_TEST_DATA_DIR "/tiny_cnn.pb", &oc, &st);
        assert_int_equal(st, FL_OK);
        assert_int_equal(con->totals.tfprof_flops.value, 608636 * b);
        expect_formula_matches(sym, con, 1, names, &b);
        fl_report_free(con);
    }
    fl_report_free(sym);
}

/* ---- the shared corpus ---- */

typedef struct expect_row {
    char file[128];
    char flops[2048], tfprof[2048], macs[2048], bytes[2048];
    long long incomplete;
} expect_row;

static size_t load_expect(expect_row *rows, size_t cap) {
    FILE *f = fopen(FL_TEST_DATA_DIR "/corpus_expect.tsv", "r");
    if (!f) {
        return 0;
    }
    char line[8400];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        expect_row *r = &rows[n];
        if (sscanf(line, "%127[^\t]\t%2047[^\t]\t%2047[^\t]\t%2047[^\t]\t%2047[^\t]\t%lld", r->file,
                   r->flops, r->tfprof, r->macs, r->bytes, &r->incomplete) == 6) {
            n++;
        }
    }
    fclose(f);
    return n;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_corpus_tf(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_corpus_tf")) {
        fl_test_skip();
    }
    const char *dir = FL_CORPUS_DIR "/tf";
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *files[256];
    size_t nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 256) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".pb") == 0) {
            files[nf++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(files, nf, sizeof(char *), cmp_str);
    assert_true(nf > 0);

    static expect_row rows[256];
    size_t nr = load_expect(rows, 256);
    bool update = getenv("FL_UPDATE_EXPECT") != NULL;
    FILE *out = NULL;
    if (update) {
        out = fopen(FL_SOURCE_DIR "/tests/data/corpus_expect.tsv", "w");
        assert_non_null(out);
        fprintf(out, "# file\tflops\ttfprof_flops\tmacs\tbytes\tnodes_incomplete\n"
                     "# Totals of `foldline analyze FILE` with no bindings (formulas in the "
                     "inputs' free dims).\n"
                     "# Checked by hand: foolmarks-cifar-cnn (tfprof 11296380 per image: three "
                     "VALID 3x3 convs, 2x2 pools,\n"
                     "# 512x1024 and 1024x10 dense, summed per tfprof's rules); human-antispoof "
                     "(tfprof 1143808 per image, from the .pbtxt);\n"
                     "# human-faceboxes (formula = concrete analyses at 256x384 and 512x512, "
                     "test_faceboxes_formula).\n"
                     "# Regenerate after a deliberate rule change: FL_UPDATE_EXPECT=1 "
                     "tests/test_corpus\n");
    }
    int failures = 0;
    for (size_t i = 0; i < nf; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        fl_options o;
        fl_options_init(&o);
        fl_status st;
        fl_report *r = analyze_file(path, &o, &st);
        if (st != FL_OK) {
            printf("FAIL %s: %s\n", files[i], r && r->error ? r->error : "?");
            failures++;
            fl_report_free(r);
            continue;
        }
        printf("%-42s nodes %5lld  flops %s  tfprof %s  unknown-op types %zu  incomplete %lld\n",
               files[i], (long long)r->n_nodes, r->totals.flops.text, r->totals.tfprof_flops.text,
               r->n_unknown_ops, (long long)r->nodes_incomplete);
        for (size_t k = 0; k < r->n_unknown_ops; k++) {
            printf("  unknown op %s x%lld\n", r->unknown_ops[k].op,
                   (long long)r->unknown_ops[k].count);
            failures++;
        }
        if (update) {
            fprintf(out, "%s\t%s\t%s\t%s\t%s\t%lld\n", files[i], r->totals.flops.text,
                    r->totals.tfprof_flops.text, r->totals.macs.text, r->totals.bytes.text,
                    (long long)r->nodes_incomplete);
        } else {
            const expect_row *x = NULL;
            for (size_t k = 0; k < nr; k++) {
                if (strcmp(rows[k].file, files[i]) == 0) {
                    x = &rows[k];
                }
            }
            if (!x) {
                printf("FAIL %s: no row in corpus_expect.tsv\n", files[i]);
                failures++;
            } else if (strcmp(x->flops, r->totals.flops.text) ||
                       strcmp(x->tfprof, r->totals.tfprof_flops.text) ||
                       strcmp(x->macs, r->totals.macs.text) ||
                       strcmp(x->bytes, r->totals.bytes.text) ||
                       x->incomplete != r->nodes_incomplete) {
                printf("FAIL %s: totals differ from corpus_expect.tsv:\n  got    %s %s %s %s "
                       "%lld\n  expect %s %s %s %s %lld\n",
                       files[i], r->totals.flops.text, r->totals.tfprof_flops.text,
                       r->totals.macs.text, r->totals.bytes.text, (long long)r->nodes_incomplete,
                       x->flops, x->tfprof, x->macs, x->bytes, x->incomplete);
                failures++;
            }
        }
        fl_report_free(r);
    }
    if (out) {
        fclose(out);
    }
    for (size_t i = 0; i < nf; i++) {
        free(files[i]);
    }
    assert_int_equal(failures, 0);
}

/* human-faceboxes: the image input has unknown batch, height and width. The
 * formulas of the unbound analysis must equal the concrete analyses at
 * 256x384 and 512x512. */
static void test_faceboxes_formula(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_faceboxes_formula")) {
        fl_test_skip();
    }
    const char *path = FL_CORPUS_DIR "/tf/human-faceboxes.pb";
    fl_options o;
    fl_options_init(&o);
    fl_status st;
    fl_report *sym = analyze_file(path, &o, &st);
    assert_int_equal(st, FL_OK);
    assert_false(sym->totals.flops.known);
    printf("faceboxes FLOPs formula: %s\n", sym->totals.flops.text);
    const char *names[] = {"image_tensor.0", "image_tensor.1", "image_tensor.2"};
    const int64_t sizes[2][2] = {{256, 384}, {512, 512}};
    for (int i = 0; i < 2; i++) {
        fl_options oc;
        fl_options_init(&oc);
        int64_t dims[4] = {1, sizes[i][0], sizes[i][1], 3};
        fl_input_binding in = {"image_tensor", 4, dims};
        oc.inputs = &in;
        oc.n_inputs = 1;
        fl_report *con = analyze_file(path, &oc, &st);
        assert_int_equal(st, FL_OK);
        printf("faceboxes at %lldx%lld: %s FLOPs, %s bytes\n", (long long)dims[1],
               (long long)dims[2], con->totals.flops.text, con->totals.bytes.text);
        int64_t vals[3] = {1, dims[1], dims[2]};
        expect_formula_matches(sym, con, 3, names, vals);
        assert_int_equal(con->nodes_incomplete, sym->nodes_incomplete);
        fl_report_free(con);
    }
    fl_report_free(sym);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_cnn_batch1),
        cmocka_unit_test(test_tiny_cnn_symbolic_batch),
        cmocka_unit_test(test_corpus_tf),
        cmocka_unit_test(test_faceboxes_formula),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
