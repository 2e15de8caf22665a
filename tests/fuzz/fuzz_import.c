/*
 * fuzz_import.c - libFuzzer target for one importer: arbitrary bytes in,
 * either a graph that passes the IR verifier or a failure naming what is
 * wrong. FUZZ_IMPORTER is the importer (tests/fuzz/targets.txt gives it per
 * target); every importer has the same signature (src/import/import.h).
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak or undefined behaviour (the build's sanitizers);
 *   - the status is FL_OK or one an importer documents for bad input
 *     (EINVAL, ELIMIT, EOVERFLOW, EUNSUPPORTED, ENOTFOUND, ENOMEM);
 *   - a failure carries a non-empty message;
 *   - a success gives a graph that passes fl__graph_verify, and whose
 *     topological sort succeeds or fails with a message (a cycle).
 */
#include "fuzz.h"
#include "import/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_IMPORTER
#error "FUZZ_IMPORTER names the importer (tests/fuzz/targets.txt)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_arena arena;
    fl__arena_init(&arena, (size_t)256 << 20);
    fl_diag d;
    fl__diag_init(&d, &arena);
    fl_graph *g = fl__graph_new(&arena);
    if (!g) {
        fl__arena_free(&arena);
        return 0;
    }
    fl_import_opts io = {10000, 1 << 16, NULL};
    fl_status st = FUZZ_IMPORTER(g, data, size, &io, &d);
    if (st != FL_OK) {
        fuzz_check_failure(st, d.msg, FUZZ_IMPORT_STATUSES);
    } else {
        fuzz_require(d.status == FL_OK, "importer returned FL_OK with a failure recorded: %s",
                     d.msg ? d.msg : "?");
        fl_status v = fl__graph_verify(g, &d);
        fuzz_require(v == FL_OK, "imported graph fails the verifier: %s", d.msg ? d.msg : "?");
        fl_status t = fl__graph_toposort(g, &d);
        if (t != FL_OK) {
            fuzz_check_failure(t, d.msg, FUZZ_IMPORT_STATUSES);
        }
    }
    fl__arena_free(&arena);
    return 0;
}
