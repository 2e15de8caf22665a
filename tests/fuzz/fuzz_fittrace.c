/*
 * fuzz_fittrace.c - libFuzzer target for the readers of `foldline fit`'s
 * traces (client/tracejson.c: ONNX Runtime's profile and TensorFlow's
 * timeline, JSON; client/tftrace.c: TensorFlow's binary RunMetadata /
 * StepStats). Every input goes through both.
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak, hang or undefined behaviour (the build's sanitizers);
 *   - the step stats reader returns 0, FL_TF_UNDECODED or FL_TF_INVALID,
 *     with a message on failure; every node it passes on has a name and a
 *     device (a DeviceStepStats holding nodes but no device is
 *     FL_TF_INVALID) and a duration >= 0 and finite;
 *   - the JSON reader returns 0, FL_TRACE_SYNTAX or FL_TRACE_NOT_EVENTS, a
 *     syntax error with its line and column; events come in order, each
 *     number it passes on finite (JSON has no NaN or infinity, and a number
 *     past a double's range is an error).
 */
#include "fuzz.h"
#include "tftrace.h"
#include "tracejson.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

static int on_node(void *arg, const fl_tf_node *n) {
    size_t *count = arg;
    fuzz_require(n->index == *count, "node %zu passed on as %zu", *count, n->index);
    fuzz_require(n->name != NULL && n->device != NULL && n->device[0],
                 "node %zu without a name or device", n->index);
    fuzz_require(n->dur_us >= 0 && isfinite(n->dur_us), "node %zu: duration %g", n->index,
                 n->dur_us);
    ++*count;
    return 0;
}

static int on_event(void *arg, const fl_trace_event *ev) {
    size_t *next = arg;
    fuzz_require(ev->index >= *next, "event %zu after %zu", ev->index, *next);
    *next = ev->index + 1;
    fuzz_require(isfinite(ev->dur) && isfinite(ev->ts) && isfinite(ev->pid),
                 "event %zu: a number that is not finite", ev->index);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512] = "";
    size_t count = 0;
    int rc = fl_tf_stepstats_scan(data, size, on_node, &count, err, sizeof err);
    fuzz_require(rc == 0 || rc == FL_TF_UNDECODED || rc == FL_TF_INVALID, "step stats: status %d",
                 rc);
    fuzz_require(rc == 0 || err[0], "step stats: status %d without a message", rc);
    /* The JSON reader decodes strings in place and needs text[size]. */
    char *text = malloc(size + 1);
    fuzz_require(text != NULL, "out of memory");
    if (size) {
        memcpy(text, data, size);
    }
    err[0] = '\0';
    size_t next = 0;
    rc = fl_trace_scan(text, size, on_event, &next, err, sizeof err);
    fuzz_require(rc == 0 || rc == FL_TRACE_SYNTAX || rc == FL_TRACE_NOT_EVENTS, "JSON: status %d",
                 rc);
    fuzz_require(rc != FL_TRACE_SYNTAX || strchr(err, ':'), "JSON: syntax error '%s'", err);
    free(text);
    return 0;
}
