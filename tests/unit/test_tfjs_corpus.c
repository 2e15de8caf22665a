/*
 * test_tfjs_corpus.c - every TF.js graph model of the shared corpus (tfjs/,
 * skipped with exit code 77 when the corpus is absent) against its GraphDef
 * twin ../tf/human-<name>.pb, which was converted from the same model.json
 * and shards by other means (weights dequantized as tfjs does, constants
 * above 4096 bytes stripped): the two imports must give the same nodes (name,
 * op, output dtypes and shapes, FLOPs, MACs, bytes per node), the same
 * totals, and the same pass records, ledger and totals after the default
 * pipeline.
 *
 * A model whose shards are present is compared with the .pb as it is. A
 * model shipped without its shards knows no weight value: its twin is the
 * .pb with every constant stripped (in these graphs every Const is a
 * manifest weight), so both sides hold the same knowledge.
 */
#include "../../client/strip.h"
#include "foldline/foldline.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shards {
    fl_file files[16];
    size_t n, missing;
    const char *dir;
} shards;

static void load_ref(const char *name, void *arg) {
    shards *s = arg;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    size_t len = 0;
    unsigned char *b = fl_test_read_file(path, &len);
    if (!b || s->n == 16) {
        free(b);
        s->missing++;
        return;
    }
    s->files[s->n].name = strdup(name);
    s->files[s->n].bytes = b;
    s->files[s->n].len = len;
    s->n++;
}

static int q_diff(const char *what, const char *where, const fl_quantity *a, const fl_quantity *b) {
    if (strcmp(a->text, b->text) != 0) {
        printf("  %s %s: tfjs %s, graphdef %s\n", where, what, a->text, b->text);
        return 1;
    }
    return 0;
}

static int totals_diff(const char *where, const fl_totals *a, const fl_totals *b) {
    int d = q_diff("flops", where, &a->flops, &b->flops) +
            q_diff("tfprof_flops", where, &a->tfprof_flops, &b->tfprof_flops) +
            q_diff("macs", where, &a->macs, &b->macs) +
            q_diff("bytes", where, &a->bytes, &b->bytes);
    if (a->nodes != b->nodes) {
        printf("  %s nodes: tfjs %lld, graphdef %lld\n", where, (long long)a->nodes,
               (long long)b->nodes);
        d++;
    }
    return d;
}

static int nodes_diff(const fl_report_node *a, size_t na, const fl_report_node *b, size_t nb) {
    if (na != nb) {
        printf("  per-node records: tfjs %zu, graphdef %zu\n", na, nb);
        return 1;
    }
    int d = 0;
    for (size_t i = 0; i < na && d < 5; i++) {
        const fl_report_node *x = &a[i], *y = &b[i];
        bool same = strcmp(x->name, y->name) == 0 && strcmp(x->op, y->op) == 0 &&
                    x->n_outputs == y->n_outputs && x->incomplete == y->incomplete;
        for (size_t k = 0; same && k < x->n_outputs; k++) {
            same = strcmp(x->outputs[k].dtype, y->outputs[k].dtype) == 0 &&
                   strcmp(x->outputs[k].shape, y->outputs[k].shape) == 0;
        }
        same = same && strcmp(x->flops.text, y->flops.text) == 0 &&
               strcmp(x->macs.text, y->macs.text) == 0 && strcmp(x->bytes.text, y->bytes.text) == 0;
        if (!same) {
            printf("  node %zu: tfjs '%s' (%s) %s FLOPs, graphdef '%s' (%s) %s FLOPs\n", i, x->name,
                   x->op, x->flops.text, y->name, y->op, y->flops.text);
            d++;
        }
    }
    return d;
}

static int passes_diff(const fl_report *a, const fl_report *b) {
    int d = totals_diff("after", &a->after, &b->after);
    if (a->n_passes != b->n_passes || a->n_ledger != b->n_ledger) {
        printf("  passes/ledger: tfjs %zu/%zu, graphdef %zu/%zu\n", a->n_passes, a->n_ledger,
               b->n_passes, b->n_ledger);
        return d + 1;
    }
    for (size_t i = 0; i < a->n_passes; i++) {
        const fl_report_pass *x = &a->passes[i], *y = &b->passes[i];
        if (strcmp(x->pass, y->pass) != 0 || x->nodes_removed != y->nodes_removed ||
            x->nodes_added != y->nodes_added || x->nodes_rewritten != y->nodes_rewritten) {
            printf("  pass %zu: tfjs %s -%lld +%lld, graphdef %s -%lld +%lld\n", i, x->pass,
                   (long long)x->nodes_removed, (long long)x->nodes_added, y->pass,
                   (long long)y->nodes_removed, (long long)y->nodes_added);
            d++;
        }
    }
    for (size_t i = 0; i < a->n_ledger; i++) {
        const fl_report_ledger_entry *x = &a->ledger[i], *y = &b->ledger[i];
        if (strcmp(x->rule, y->rule) != 0 || strcmp(x->node, y->node) != 0) {
            printf("  ledger %zu: tfjs %s on %s, graphdef %s on %s\n", i, x->rule, x->node, y->rule,
                   y->node);
            d++;
            break;
        }
    }
    return d;
}

/* One model: 0 when tfjs and its twin agree. */
static int check_model(const char *name, int *with_shards) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tfjs/%s/model.json", FL_CORPUS_DIR, name);
    size_t jlen = 0, plen = 0;
    unsigned char *json = fl_test_read_file(path, &jlen);
    snprintf(path, sizeof path, "%s/tf/human-%s.pb", FL_CORPUS_DIR, name);
    unsigned char *pb = fl_test_read_file(path, &plen);
    assert_non_null(json);
    if (!pb) {
        printf("FAIL %s: no twin %s\n", name, path);
        free(json);
        return 1;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tfjs/%s", FL_CORPUS_DIR, name);
    shards s = {.n = 0, .missing = 0, .dir = dir};
    assert_int_equal(fl_detect_format(json, jlen), FL_FORMAT_TFJS);
    assert_true(fl_model_file_refs(json, jlen, FL_FORMAT_AUTO, load_ref, &s) > 0);
    if (s.n == 0) { /* manifest only: the twin without weight values */
        size_t slen = 0;
        unsigned char *stripped = NULL;
        char err[512];
        assert_int_equal(
            fl_strip_weights(pb, plen, FL_FORMAT_GRAPHDEF, 0, &stripped, &slen, err, sizeof err),
            0);
        assert_non_null(stripped);
        free(pb);
        pb = stripped;
        plen = slen;
    } else {
        assert_int_equal(s.missing, 0);
        (*with_shards)++;
    }
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    o.files = s.files;
    o.n_files = s.n;
    fl_report *a = NULL, *b = NULL;
    fl_status sa = fl_analyze(json, jlen, &o, &a);
    o.files = NULL;
    o.n_files = 0;
    fl_status sb = fl_analyze(pb, plen, &o, &b);
    int d = 0;
    if (sa != FL_OK || sb != FL_OK) {
        printf("FAIL %s: tfjs %s, graphdef %s\n", name, a->error ? a->error : "ok",
               b->error ? b->error : "ok");
        d = 1;
    } else {
        assert_string_equal(a->format, "tfjs");
        d = totals_diff("totals", &a->totals, &b->totals) +
            nodes_diff(a->nodes, a->n_nodes_detail, b->nodes, b->n_nodes_detail) +
            nodes_diff(a->nodes_after, a->n_nodes_after, b->nodes_after, b->n_nodes_after) +
            passes_diff(a, b);
        printf("%s %s (%s): %lld nodes, MACs %s, %zu passes, %zu ledger entries\n",
               d ? "FAIL" : "ok  ", name, s.n ? "shards" : "manifest only", (long long)a->n_nodes,
               a->totals.macs.text, a->n_passes, a->n_ledger);
    }
    fl_report_free(a);
    fl_report_free(b);
    for (size_t i = 0; i < s.n; i++) {
        free((void *)s.files[i].name);
        free((void *)s.files[i].bytes);
    }
    free(json);
    free(pb);
    return d != 0;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void test_tfjs_corpus(void **state) {
    (void)state;
    DIR *dir = opendir(FL_CORPUS_DIR "/tfjs");
    assert_non_null(dir);
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256) {
        char p[1024];
        snprintf(p, sizeof p, "%s/tfjs/%s/model.json", FL_CORPUS_DIR, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(p, "rb") : NULL;
        if (f) {
            fclose(f);
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(dir);
    qsort(names, n, sizeof(char *), cmp_str);
    int failures = 0, with_shards = 0;
    for (size_t i = 0; i < n; i++) {
        failures += check_model(names[i], &with_shards);
        free(names[i]);
    }
    printf("%zu models, %d with shards, %d failures\n", n, with_shards, failures);
    assert_true(n >= 23);
    assert_true(with_shards >= 8);
    assert_int_equal(failures, 0);
}

int main(void) {
    DIR *probe = opendir(FL_CORPUS_DIR "/tfjs");
    if (!probe) {
        printf("SKIP test_tfjs_corpus: %s/tfjs is absent\n", FL_CORPUS_DIR);
        return 77;
    }
    closedir(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tfjs_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
