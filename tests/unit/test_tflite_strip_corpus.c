/*
 * test_tflite_strip_corpus.c - every TFLite model of the shared corpus
 * (tflite/, skipped with exit code 77 when the corpus is absent) stripped by
 * fl_strip_tflite at the CLI's default threshold (1,024 bytes): the copy is
 * at most a quarter of the file (the weights are nearly all of it) and
 * analyses to the same FLOPs, MACs, bytes and parameters as the whole model.
 */
#include "foldline/foldline.h"
#include "testgraph.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The analysis with the default options (no per-node detail). */
static fl_report *analyze(const void *b, size_t len) {
    fl_options o;
    fl_options_init(&o);
    return tg_analyze_bytes(b, len, &o);
}

static void test_corpus(void **state) {
    (void)state;
    DIR *dir = opendir(FL_CORPUS_DIR "/tflite");
    assert_non_null(dir);
    int models = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t nl = strlen(e->d_name);
        if (nl < 7 || strcmp(e->d_name + nl - 7, ".tflite") != 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/tflite/%s", FL_CORPUS_DIR, e->d_name);
        size_t len = 0, sl = 0;
        unsigned char *m = fl_test_read_file(path, &len);
        assert_non_null(m);
        unsigned char *s = fl_strip_tflite(m, len, 1024, &sl);
        if (!s) {
            fail_msg("%s: not stripped", e->d_name);
        }
        printf("%s: %zu -> %zu bytes\n", e->d_name, len, sl);
        assert_true(sl <= len / 4);
        fl_report *a = analyze(m, len), *b = analyze(s, sl);
        assert_string_equal(a->totals.flops.text, b->totals.flops.text);
        assert_string_equal(a->totals.macs.text, b->totals.macs.text);
        assert_string_equal(a->totals.bytes.text, b->totals.bytes.text);
        assert_int_equal(a->params, b->params);
        assert_int_equal(b->n_unknown_ops, 0);
        fl_report_free(a);
        fl_report_free(b);
        free(s);
        free(m);
        models++;
    }
    closedir(dir);
    assert_int_equal(models, 6);
}

int main(void) {
    DIR *probe = opendir(FL_CORPUS_DIR "/tflite");
    if (!probe) {
        printf("SKIP test_tflite_strip_corpus: %s/tflite is absent\n", FL_CORPUS_DIR);
        return 77;
    }
    closedir(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
