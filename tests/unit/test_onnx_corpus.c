/*
 * test_onnx_corpus.c - every ONNX model of the shared corpus (onnx/ and
 * onnx/ort-extended/; skipped with a printed reason when the corpus is
 * absent): it imports, every node's op is registered, every output shape is
 * fully known, no count is left out of the totals; the MACs of four models
 * equal figures derived from their architectures by hand (below); raw,
 * folded and ORT-optimised variants of a model have the same MACs.
 *
 * MACs at 1x3x224x224 (conv: Hout x Wout x Cout x Cin/group x Kh x Kw; fc:
 * in x out), derived from the torchvision architectures, not from foldline:
 *
 *  alexnet: conv1 11x11/4 pad 2 3->64 at 55x55: 3025*64*363 = 70,276,800;
 *    conv2 5x5 64->192 at 27x27: 729*192*1600 = 223,948,800; conv3 3x3
 *    192->384 at 13x13: 169*384*1728 = 112,140,288; conv4 384->256:
 *    169*256*3456 = 149,520,384; conv5 256->256: 169*256*2304 = 99,680,256;
 *    fc 9216*4096 + 4096*4096 + 4096*1000 = 58,621,952.
 *    Total 714,188,480.
 *  vgg16 (3x3 convs, pad 1): 224^2: 3->64 86,704,128, 64->64
 *    1,849,688,064; 112^2: 64->128 924,844,032, 128->128 1,849,688,064;
 *    56^2: 128->256 924,844,032, 2 x 256->256 3,699,376,128; 28^2: 256->512
 *    924,844,032, 2 x 512->512 3,699,376,128; 14^2: 3 x 512->512
 *    1,387,266,048; convs 15,346,630,656; fc 25088*4096 + 4096*4096 +
 *    4096*1000 = 123,633,664. Total 15,470,264,320.
 *  resnet18: conv1 7x7/2 3->64 at 112^2: 12544*64*147 = 118,013,952;
 *    layer1 4 x 3136*64*576 = 462,422,016; layers 2-4 each: the strided
 *    3x3 (57,802,752) + three 3x3 (346,816,512) + the 1x1 downsample
 *    (6,422,528) = 411,041,792, x 3 = 1,233,125,376; fc 512*1000 = 512,000.
 *    Total 1,814,073,344.
 *  mobilenet_v2: stem 3x3/2 3->32 at 112^2 (10,838,016); 17 inverted
 *    residual blocks (t,c,n,s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2)
 *    (6,96,3,1) (6,160,3,2) (6,320,1,1), each expand 1x1 (t > 1) + depthwise
 *    3x3 (9 MACs per output element) + project 1x1; head 1x1 320->1280 at
 *    7^2 (20,070,400); fc 1280*1000. Summed block by block (a short script
 *    over that table, independent of foldline): 300,774,272.
 */
#include "foldline/foldline.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *model; /* file name prefix */
    int64_t macs;
} expected[] = {
    {"alexnet.", 714188480},
    {"vgg16.", 15470264320},
    {"resnet18.", 1814073344},
    {"mobilenet_v2.", 300774272},
};

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Model name: the file name up to the first '.'. */
static void model_of(const char *file, char *out, size_t size) {
    size_t n = strcspn(file, ".");
    snprintf(out, size, "%.*s", (int)n, file);
}

typedef struct seen_macs {
    char model[64];
    int64_t macs;
    char file[128];
} seen_macs;

static int check_dir(const char *dir, seen_macs *seen, size_t *n_seen, size_t *n_files) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *files[128];
    size_t nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 128) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".onnx") == 0) {
            files[nf++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(files, nf, sizeof(char *), cmp_str);
    int failures = 0;
    for (size_t i = 0; i < nf; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        size_t len;
        unsigned char *buf = fl_test_read_file(path, &len);
        assert_non_null(buf);
        fl_options o;
        fl_options_init(&o);
        o.per_node = true;
        fl_report *r = NULL;
        fl_status st = fl_analyze(buf, len, &o, &r);
        free(buf);
        if (st != FL_OK) {
            printf("FAIL %s: %s\n", files[i], r && r->error ? r->error : "?");
            failures++;
            fl_report_free(r);
            continue;
        }
        bool ok = strcmp(r->format, "onnx") == 0 && r->n_unknown_ops == 0 &&
                  r->nodes_incomplete == 0 && r->totals.macs.known && r->n_symbols == 0;
        for (size_t k = 0; k < r->n_unknown_ops; k++) {
            printf("FAIL %s: unknown op %s\n", files[i], r->unknown_ops[k].op);
        }
        for (size_t k = 0; k < r->n_nodes_detail; k++) {
            const fl_report_node *n = &r->nodes[k];
            for (size_t j = 0; j < n->n_outputs; j++) {
                if (strchr(n->outputs[j].shape, '?') ||
                    strcmp(n->outputs[j].dtype, "unknown") == 0) {
                    printf("FAIL %s: node '%s' (%s) output %zu is %s %s\n", files[i], n->name,
                           n->op, j, n->outputs[j].dtype, n->outputs[j].shape);
                    ok = false;
                }
            }
            if (!n->has_rule || n->incomplete) {
                printf("FAIL %s: node '%s' (%s) has no complete count\n", files[i], n->name, n->op);
                ok = false;
            }
        }
        char model[64];
        model_of(files[i], model, sizeof model);
        for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
            if (strncmp(files[i], expected[k].model, strlen(expected[k].model)) == 0 &&
                r->totals.macs.value != expected[k].macs) {
                printf("FAIL %s: MACs %lld, expected %lld\n", files[i],
                       (long long)r->totals.macs.value, (long long)expected[k].macs);
                ok = false;
            }
        }
        /* Every variant of a model has the MACs of the first one seen. */
        bool found = false;
        for (size_t k = 0; k < *n_seen; k++) {
            if (strcmp(seen[k].model, model) == 0) {
                found = true;
                if (seen[k].macs != r->totals.macs.value) {
                    printf("FAIL %s: MACs %lld but %s has %lld\n", files[i],
                           (long long)r->totals.macs.value, seen[k].file, (long long)seen[k].macs);
                    ok = false;
                }
            }
        }
        if (!found && *n_seen < 64) {
            snprintf(seen[*n_seen].model, sizeof seen[*n_seen].model, "%s", model);
            snprintf(seen[*n_seen].file, sizeof seen[*n_seen].file, "%s", files[i]);
            seen[(*n_seen)++].macs = r->totals.macs.value;
        }
        printf("%s %s: %lld nodes, MACs %s, FLOPs %s\n", ok ? "ok  " : "FAIL", files[i],
               (long long)r->n_nodes, r->totals.macs.text, r->totals.flops.text);
        failures += !ok;
        fl_report_free(r);
        (*n_files)++;
    }
    for (size_t i = 0; i < nf; i++) {
        free(files[i]);
    }
    return failures;
}

static void test_onnx_corpus(void **state) {
    (void)state;
    if (!fl_test_have_corpus("test_onnx_corpus")) {
        fl_test_skip();
    }
    DIR *probe = opendir(FL_CORPUS_DIR "/onnx");
    if (!probe) {
        printf("SKIP test_onnx_corpus: %s/onnx is absent\n", FL_CORPUS_DIR);
        fl_test_skip();
    }
    closedir(probe);
    static seen_macs seen[64];
    size_t n_seen = 0, n_files = 0;
    int failures = check_dir(FL_CORPUS_DIR "/onnx", seen, &n_seen, &n_files);
    DIR *ort = opendir(FL_CORPUS_DIR "/onnx/ort-extended");
    if (ort) {
        closedir(ort);
        failures += check_dir(FL_CORPUS_DIR "/onnx/ort-extended", seen, &n_seen, &n_files);
    }
    assert_true(n_files > 0);
    /* Each of the four hand-derived models was seen. */
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        bool hit = false;
        for (size_t j = 0; j < n_seen; j++) {
            hit = hit || strncmp(seen[j].model, expected[k].model, strlen(seen[j].model)) == 0;
        }
        if (!hit) {
            printf("FAIL: no %s model in the corpus\n", expected[k].model);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_onnx_corpus),
    };
    return fl_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
