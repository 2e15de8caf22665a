/*
 * fuzz_analyze.c - libFuzzer target: arbitrary bytes through the whole
 * analysis as `foldline analyze` runs it, its invariants checked
 * (analyze_run.h: format detection, shapes, costs, every rewrite pass with
 * the verifier on, the report, the optimised GraphDef analysed again).
 */
#include "analyze_run.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_analyze_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_analyze_input(data, size);
    return 0;
}
