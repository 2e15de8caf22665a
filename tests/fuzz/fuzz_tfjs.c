/*
 * fuzz_tfjs.c - libFuzzer target: arbitrary bytes as a TF.js model.json,
 * with a fixed 64-byte shard named as most converters name the first one
 * ("group1-shard1of1.bin") so weight decoding is reached too.
 *
 * Build with clang: cmake -DFL_FUZZ=ON -DCMAKE_C_COMPILER=clang, then
 *   ./tests/fuzz/fuzz_tfjs -max_total_time=60 CORPUS_DIR
 * Invariants as fuzz_analyze: no crash, no sanitizer report, no hang, and a
 * success with totals or a failure with a message.
 */
#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint8_t shard[64] = {0, 0, 128, 63, 0, 0, 0, 64, 1, 2, 3, 4, 5, 6, 7, 8};
    fl_file f = {"group1-shard1of1.bin", shard, sizeof shard};
    fl_options o;
    fl_options_init(&o);
    o.format = FL_FORMAT_TFJS;
    o.per_node = true;
    o.files = &f;
    o.n_files = 1;
    o.max_memory_bytes = (size_t)256 << 20;
    fl_report *r = NULL;
    fl_status st = fl_analyze(data, size, &o, &r);
    if (!r || (st == FL_OK) != (r->error == NULL)) {
        abort();
    }
    if (st == FL_OK && !r->totals.flops.text) {
        abort();
    }
    fl_report_free(r);
    return 0;
}
