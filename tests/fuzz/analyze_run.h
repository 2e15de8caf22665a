/*
 * analyze_run.h - one input through the whole analysis as `foldline analyze`
 * runs it: the format detected from the bytes (GraphDef, SavedModel, ONNX,
 * ...), shapes, costs, every rewrite pass (passes = "default", two
 * iterations) with the pass verifier on, per-node lists, the report; for
 * TensorFlow graphs also the optimised GraphDef, which is analysed again.
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak or undefined behaviour (the build's sanitizers);
 *   - the status is FL_OK or one bad input may produce (fuzz.h), with a
 *     message; never FL_EINTERNAL;
 *   - a success is a whole report: every string set, every known count
 *     printed as its value, per-node and per-op counts consistent;
 *   - no pass was rolled back because the verifier rejected its graph;
 *   - FLOPs after the passes never exceed FLOPs before (compared at two
 *     bindings of the symbols when symbolic) unless the ledger names a rule
 *     that adds compute (none does today; the list is compute_rules in
 *     analyze_run.c) or the graph as given has incomplete nodes (their FLOPs
 *     are left out of "before", and a rewrite that determines a shape counts
 *     them);
 *   - the optimised GraphDef imports again, and its analysis without passes
 *     gives exactly the "after" totals.
 */
#ifndef FL_FUZZ_ANALYZE_RUN_H
#define FL_FUZZ_ANALYZE_RUN_H

#include <stddef.h>
#include <stdint.h>

/* Once per process, before the first input: the pass verifier on in every
 * build type (FOLDLINE_VERIFY=1, src/passes/pipeline.c). */
void fuzz_analyze_init(void);
/* Analyses data and checks the invariants above (aborts on a violation). */
void fuzz_analyze_input(const uint8_t *data, size_t size);

#endif
