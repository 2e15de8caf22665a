/*
 * test_tflite.c - the TFLite reader and operators on tests/data/tiny.tflite
 * (written byte by byte by tests/tools/mktflite.c) and on damaged copies.
 *
 * tiny.tflite, worked out by hand:
 *   CONV_2D [1,8,8,3] * [4,3,3,3] SAME stride 1 + bias + RELU -> [1,8,8,4]:
 *     MACs 8*8*4 * 3*3*3 = 6,912; FLOPs 2*6,912 + 256 (bias) + 256 (RELU)
 *     = 14,336
 *   DEPTHWISE_CONV_2D [1,3,3,4] VALID stride 2, no bias -> [1,3,3,4]
 *     ((8 - 3) / 2 + 1 = 3): MACs 3*3*4 * 3*3 = 324; FLOPs 648
 *   RESHAPE -> [1,36]: 0; DEQUANTIZE of the float16 weights: per-load, 0
 *   FULLY_CONNECTED [1,36] x [10,36]^T, no bias: MACs 360, FLOPs 720
 *   Total MACs 7,596, FLOPs 15,704.
 *   Bytes (float32 activations and weights read, outputs written): conv
 *   768 + 432 + 16 read, 1,024 written = 2,240; depthwise 1,024 + 144 read,
 *   144 written = 1,312; FC 144 + 1,440 (the widened weights) read, 40
 *   written = 1,624; the DEQUANTIZE moves nothing per inference: 5,176.
 * tiny_int8.tflite: the same graph quantized (test_int8).
 * Damaged copies (root offset out of range, a vtable larger than the file, a
 * vector longer than the file, a buffer shorter than its tensor, every
 * truncation, byte substitutions at every offset) must fail with a message
 * or succeed, never read out of bounds (this suite runs under ASan+UBSan).
 */
#include "foldline/foldline.h"
#include "testgraph.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *model;
static size_t model_len;

static int setup(void **state) {
    (void)state;
    model = fl_test_read_file(FL_TEST_DATA_DIR "/tiny.tflite", &model_len);
    return model ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(model);
    return 0;
}

static fl_status run(const unsigned char *b, size_t len, fl_report **r) {
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    return fl_analyze(b, len, &o, r);
}

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static void test_tiny(void **state) {
    (void)state;
    assert_int_equal(fl_detect_format(model, model_len), FL_FORMAT_TFLITE);
    fl_report *r = NULL;
    assert_int_equal(run(model, model_len, &r), FL_OK);
    assert_string_equal(r->format, "tflite");
    assert_int_equal(r->totals.macs.value, 7596);
    assert_int_equal(r->totals.flops.value, 15704);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_int_equal(r->n_inputs, 1);
    assert_string_equal(r->inputs[0].name, "image"); /* the signature def's name */
    assert_string_equal(tg_find(r, "conv_out")->outputs[0].shape, "[1,8,8,4]");
    assert_int_equal(tg_find(r, "conv_out")->macs.value, 6912);
    assert_string_equal(tg_find(r, "dw_out")->outputs[0].shape, "[1,3,3,4]");
    assert_int_equal(tg_find(r, "dw_out")->flops.value, 648);
    assert_int_equal(tg_find(r, "fc_w")->bytes.value, 0); /* per-load */
    assert_int_equal(tg_find(r, "logits")->bytes.value, 1624);
    assert_int_equal(r->totals.bytes.value, 5176);
    assert_string_equal(tg_find(r, "flat")->outputs[0].shape, "[1,36]");
    assert_string_equal(tg_find(r, "logits")->outputs[0].shape, "[1,10]");
    assert_string_equal(tg_find(r, "fc_w16")->outputs[0].dtype, "half");
    /* No pass runs; the ledger and a warning say so. */
    assert_int_equal(r->n_passes, 0);
    assert_true(r->n_ledger == 1 && strcmp(r->ledger[0].rule, "not_applicable") == 0);
    assert_string_equal(r->after.flops.text, r->before.flops.text);
    assert_true(
        fl_test_has_warning(r, "1 DEQUANTIZE ops widen 360 constant weight elements", NULL));
    fl_report_free(r);
}

/* tiny_int8.tflite (fl_mktflite --int8): the same graph on int8 tensors,
 * int32 bias. TFLite's integer kernels; per tflite.c's rule int_ops = 2 *
 * MACs + E(out) * (bias + activation + 3: requantize multiply and shift,
 * output zero point) + E(in) (input zero point), int8 weights symmetric:
 *   CONV_2D   2 * 6,912 + 256 * (1 + 1 + 3) + 192 = 15,296
 *   DEPTHWISE 2 * 324 + 36 * 3 + 256 = 1,012
 *   FC        2 * 360 + 10 * 3 + 36 = 786
 *   int_ops 17,094; FLOPs and MACs 0 (the unused DEQUANTIZE: per-load 0).
 * Bytes at one byte per int8 element: CONV_2D reads 192 + 108 + 16 (int32
 * bias), writes 256: 572; DEPTHWISE 256 + 36 + 36 = 328; FC 36 + 360 + 10 =
 * 406. */
static void test_int8(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = fl_test_read_file(FL_TEST_DATA_DIR "/tiny_int8.tflite", &len);
    assert_non_null(b);
    fl_report *r = NULL;
    assert_int_equal(run(b, len, &r), FL_OK);
    assert_int_equal(r->n_unknown_ops, 0);
    assert_true(r->totals.int_ops.known);
    assert_int_equal(r->totals.int_ops.value, 17094);
    assert_int_equal(r->totals.macs.value, 0);
    assert_int_equal(r->totals.flops.value, 0);
    const char *names[] = {"conv_out", "dw_out", "logits"};
    const int64_t iops[] = {15296, 1012, 786}, bytes[] = {572, 328, 406};
    for (int i = 0; i < 3; i++) {
        const fl_report_node *n = tg_find(r, names[i]);
        assert_string_equal(n->outputs[0].dtype, "int8");
        assert_int_equal(n->int_ops.value, iops[i]);
        assert_int_equal(n->flops.value, 0);
        assert_int_equal(n->macs.value, 0);
        assert_int_equal(n->bytes.value, bytes[i]);
        assert_false(n->incomplete);
    }
    assert_int_equal(r->after.int_ops.value, 17094);
    fl_report_free(r);
    free(b);
}

static void expect_error(unsigned char *b, size_t len, const char *needle) {
    fl_report *r = NULL;
    fl_status st = run(b, len, &r);
    assert_int_not_equal(st, FL_OK);
    if (!strstr(r->error, needle)) {
        fail_msg("error '%s' lacks '%s'", r->error, needle);
    }
    fl_report_free(r);
}

/* Position of the field `slot` of the table at t, 0 when absent. */
static uint32_t field_at(const unsigned char *b, uint32_t t, int slot) {
    uint32_t vt = t - rd32(b + t);
    uint16_t off = (uint16_t)(b[vt + 4 + 2 * slot] | b[vt + 5 + 2 * slot] << 8);
    return off ? t + off : 0;
}

static void test_damaged(void **state) {
    (void)state;
    unsigned char *b = malloc(model_len);
    /* The root offset past the end. */
    memcpy(b, model, model_len);
    wr32(b, (uint32_t)model_len + 100);
    expect_error(b, model_len, "invalid TFLite flatbuffer: table offset outside the file");
    /* The model's vtable claiming 65534 bytes. */
    memcpy(b, model, model_len);
    uint32_t root = rd32(b), vt = root - rd32(b + root);
    b[vt] = 0xFE;
    b[vt + 1] = 0xFF;
    expect_error(b, model_len, "vtable with an invalid size");
    /* The operator_codes vector longer than the file. */
    memcpy(b, model, model_len);
    uint32_t f = field_at(b, root, 1), vec = f + rd32(b + f);
    wr32(b + vec, 0x10000000u);
    expect_error(b, model_len, "vector longer than the file");
    /* conv_w's buffer (432 bytes, the only length 432) cut to 8 bytes. */
    memcpy(b, model, model_len);
    bool cut = false;
    for (size_t i = 0; i + 4 <= model_len && !cut; i += 4) {
        if (rd32(b + i) == 432 && (i + 4) % 16 == 0) {
            wr32(b + i, 8);
            cut = true;
        }
    }
    assert_true(cut);
    expect_error(b, model_len,
                 "tensor 'conv_w': buffer 1 holds 8 bytes but shape and type need 432");
    /* Not TFL3. */
    memcpy(b, model, model_len);
    b[7] = '4';
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_TFLITE;
    fl_report *r = NULL;
    assert_int_equal(fl_analyze(b, model_len, &o, &r), FL_EINVAL);
    assert_non_null(strstr(r->error, "not 'TFL3'"));
    fl_report_free(r);
    free(b);
}

/* Every truncation and four substitutions at every byte: an answer or an
 * error with a message, never a crash or an out-of-bounds read. */
static void test_mutations(void **state) {
    (void)state;
    unsigned char *b = malloc(model_len);
    const unsigned char repl[] = {0x00, 0xFF, 0x7F, 0x80};
    int ok = 0, failed = 0;
    for (size_t i = 0; i <= model_len; i++) {
        for (size_t k = 0; k <= sizeof repl; k++) {
            memcpy(b, model, model_len);
            size_t len = model_len;
            if (k == sizeof repl) {
                len = i;
            } else if (i < model_len) {
                b[i] = repl[k];
            } else {
                continue;
            }
            fl_options o;
            fl_options_init(&o);
            o.format = FL_FORMAT_TFLITE;
            fl_report *r = NULL;
            fl_status st = fl_analyze(b, len, &o, &r);
            assert_non_null(r);
            assert_true((st == FL_OK) == (r->error == NULL));
            ok += st == FL_OK;
            failed += st != FL_OK;
            fl_report_free(r);
        }
    }
    free(b);
    assert_true(ok > 0 && failed > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
