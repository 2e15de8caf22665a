/*
 * fuzz_wirescan.c - libFuzzer target for the incremental model scanner
 * (src/import/wirescan.c, fl_wire_scan_* in foldline/wire.h). The input is
 * the model's bytes, scanned as each format (detected, ONNX, GraphDef) with
 * max_nodes, max_value_elements and split points from a hash of the input,
 * and again with max_value_elements 16 and no node limit in reach.
 *
 * Invariants checked (an abort is a finding):
 *   - no crash, leak or undefined behaviour (the build's sanitizers);
 *   - every call consumes at least one byte, never more than given, until
 *     it stops at the node limit (with a message naming the byte, inside the
 *     input);
 *   - fed whole, one byte at a time, and in pieces split at pseudo-random
 *     points, the scan keeps and leaves out the same bytes, counts the same
 *     nodes and stops (or not) with the same message;
 *   - the model with the left-out bytes zeroed is analysed by fl_analyze
 *     exactly as the original (status, error, totals), with the same limits,
 *     unless a tensor was given a type whose payload is read after its
 *     payload was left out (fl_wire_scan_retyped, the same however split:
 *     such a stream is refused).
 */
#include "foldline/wire.h"
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

typedef struct scanned {
    uint8_t *keep; /* per byte: 1 kept, 0 left out, 2 not consumed */
    uint64_t dropped;
    int64_t nodes;
    char error[256];
    char retyped[256]; /* fl_wire_scan_retyped's, or "" */
} scanned;

FUZZ_HARNESS static uint64_t mix(uint64_t *x) {
    *x += 0x9E3779B97F4A7C15ull;
    uint64_t z = *x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Scans data in pieces: `step` 0 whole, 1 a byte at a time, else pieces of
 * pseudo-random sizes below step drawn from *rng. */
FUZZ_HARNESS static void scan(const uint8_t *data, size_t size, fl_format fmt, int64_t max_nodes,
                              int64_t max_elems, size_t step, uint64_t *rng, scanned *out) {
    fl_wire_scan *s = fl_wire_scan_new(fmt, max_nodes, max_elems);
    fuzz_require(s != NULL, "out of memory");
    out->keep = malloc(size ? size : 1);
    fuzz_require(out->keep != NULL, "out of memory");
    memset(out->keep, 2, size);
    size_t pos = 0;
    bool stopped = false;
    while (pos < size && !stopped) {
        size_t piece = step == 0 ? size - pos : step == 1 ? 1 : 1 + (size_t)(mix(rng) % step);
        if (piece > size - pos) {
            piece = size - pos;
        }
        size_t end = pos + piece;
        while (pos < end) {
            int keep = -1;
            size_t k = fl_wire_scan_next(s, data + pos, end - pos, &keep);
            fuzz_require(k <= end - pos, "consumed %zu of %zu bytes", k, end - pos);
            if (k == 0) {
                fuzz_require(fl_wire_scan_error(s) != NULL, "no progress without an error");
                stopped = true;
                break;
            }
            fuzz_require(keep == 0 || keep == 1, "keep is %d", keep);
            memset(out->keep + pos, keep, k);
            pos += k;
        }
    }
    const char *e = fl_wire_scan_error(s);
    fuzz_require(!e || strstr(e, "at byte "), "a limit message without its byte: %s", e);
    snprintf(out->error, sizeof out->error, "%s", e ? e : "");
    const char *rt = fl_wire_scan_retyped(s);
    snprintf(out->retyped, sizeof out->retyped, "%s", rt ? rt : "");
    out->dropped = fl_wire_scan_dropped(s);
    out->nodes = fl_wire_scan_nodes(s);
    fl_wire_scan_free(s);
}

FUZZ_HARNESS static void same(const scanned *a, const scanned *b, size_t size, const char *how) {
    fuzz_require(strcmp(a->error, b->error) == 0, "%s: error '%s' against '%s'", how, b->error,
                 a->error);
    fuzz_require(strcmp(a->retyped, b->retyped) == 0, "%s: retyped '%s' against '%s'", how,
                 b->retyped, a->retyped);
    fuzz_require(a->nodes == b->nodes, "%s: %lld nodes against %lld", how, (long long)b->nodes,
                 (long long)a->nodes);
    fuzz_require(a->dropped == b->dropped, "%s: %llu bytes left out against %llu", how,
                 (unsigned long long)b->dropped, (unsigned long long)a->dropped);
    if (memcmp(a->keep, b->keep, size) == 0) {
        return;
    }
    for (size_t i = 0; i < size; i++) {
        fuzz_require(a->keep[i] == b->keep[i], "%s: byte %zu is %d against %d", how, i, b->keep[i],
                     a->keep[i]);
    }
}

static bool same_q(const fl_quantity *a, const fl_quantity *b) {
    return a->known == b->known && a->value == b->value &&
           strcmp(a->text ? a->text : "", b->text ? b->text : "") == 0;
}

static bool same_str(const char *a, const char *b) {
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool same_totals(const fl_totals *a, const fl_totals *b) {
    return same_q(&a->flops, &b->flops) && same_q(&a->macs, &b->macs) &&
           same_q(&a->bytes, &b->bytes) && a->nodes == b->nodes;
}

/* What a reply carries beyond the totals: the per-op table, the warnings,
 * the passes' records and every rule firing with its text (a value read
 * from a left-out payload would show in a rewrite or its description),
 * the parameters. */
static bool same_details(const fl_report *a, const fl_report *b) {
    if (a->n_ops != b->n_ops || a->n_warnings != b->n_warnings || a->n_passes != b->n_passes ||
        a->n_ledger != b->n_ledger || a->params != b->params || a->optimized != b->optimized ||
        (a->optimized && !same_totals(&a->after, &b->after))) {
        return false;
    }
    for (size_t i = 0; i < a->n_ops; i++) {
        if (!same_str(a->ops[i].op, b->ops[i].op) || a->ops[i].count != b->ops[i].count ||
            !same_q(&a->ops[i].flops, &b->ops[i].flops)) {
            return false;
        }
    }
    for (size_t i = 0; i < a->n_warnings; i++) {
        if (!same_str(a->warnings[i], b->warnings[i])) {
            return false;
        }
    }
    for (size_t i = 0; i < a->n_passes; i++) {
        const fl_report_pass *p = &a->passes[i], *q = &b->passes[i];
        if (p->nodes_removed != q->nodes_removed || p->nodes_added != q->nodes_added ||
            p->nodes_rewritten != q->nodes_rewritten || !same_totals(&p->after, &q->after)) {
            return false;
        }
    }
    for (size_t i = 0; i < a->n_ledger; i++) {
        const fl_report_ledger_entry *e = &a->ledger[i], *f = &b->ledger[i];
        if (!same_str(e->rule, f->rule) || !same_str(e->node, f->node) ||
            !same_str(e->detail, f->detail)) {
            return false;
        }
    }
    return true;
}

/* fl_analyze on the original and on the copy with the left-out bytes
 * zeroed: the same status, error, totals and details. */
FUZZ_HARNESS static void same_analysis(const uint8_t *data, size_t size, const scanned *sc,
                                       fl_format fmt, int64_t max_elems) {
    uint8_t *holed = malloc(size ? size : 1);
    fuzz_require(holed != NULL, "out of memory");
    for (size_t i = 0; i < size; i++) {
        holed[i] = sc->keep[i] == 0 ? 0 : data[i];
    }
    fl_options o;
    fl_options_init(&o);
    o.format = fmt;
    o.max_value_elements = max_elems;
    o.max_nodes = 20000;
    o.passes = "default";
    fl_report *ra = NULL, *rb = NULL;
    fl_status sa = fl_analyze(data, size, &o, &ra);
    fl_status sb = fl_analyze(holed, size, &o, &rb);
    fuzz_require(sa == sb, "status %d against %d", (int)sb, (int)sa);
    if (ra && rb) {
        fuzz_require(strcmp(ra->error ? ra->error : "", rb->error ? rb->error : "") == 0,
                     "error '%s' against '%s'", rb->error ? rb->error : "",
                     ra->error ? ra->error : "");
        fuzz_require(same_q(&ra->totals.flops, &rb->totals.flops) &&
                         same_q(&ra->totals.macs, &rb->totals.macs) &&
                         same_q(&ra->totals.bytes, &rb->totals.bytes) &&
                         ra->totals.nodes == rb->totals.nodes && ra->n_nodes == rb->n_nodes,
                     "totals differ");
        fuzz_require(same_details(ra, rb), "the per-op table, warnings, passes or ledger differ");
    }
    fl_report_free(ra);
    fl_report_free(rb);
    free(holed);
}

/* One format and pair of limits: the three scans agree, and the model with
 * the left-out bytes zeroed analyses as the original. */
static void check_one(const uint8_t *data, size_t size, fl_format fmt, int64_t max_nodes,
                      int64_t max_elems, uint64_t rng) {
    scanned whole, bytes, pieces;
    size_t step = 1 + (size_t)(rng >> 40) % 4096;
    scan(data, size, fmt, max_nodes, max_elems, 0, &rng, &whole);
    scan(data, size, fmt, max_nodes, max_elems, 1, &rng, &bytes);
    scan(data, size, fmt, max_nodes, max_elems, step, &rng, &pieces);
    same(&whole, &bytes, size, "a byte at a time");
    same(&whole, &pieces, size, "in pieces");
    if (!whole.error[0] && !whole.retyped[0] && size <= (1u << 20)) {
        same_analysis(data, size, &whole, fmt, max_elems);
    }
    free(whole.keep);
    free(bytes.keep);
    free(pieces.keep);
}

FUZZ_HARNESS static uint64_t fnv1a(const uint8_t *data, size_t size) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) {
        h = (h ^ data[i]) * 1099511628211ull;
    }
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t h = fnv1a(data, size);
    int64_t max_nodes = (h >> 16) % 2 ? 1000000 : 1 + (int64_t)((h >> 8) % 64);
    int64_t max_elems = (int64_t)((h >> 24) % 4 == 0 ? 1048576 : (h >> 32) % 128);
    static const fl_format fmts[3] = {FL_FORMAT_AUTO, FL_FORMAT_ONNX, FL_FORMAT_GRAPHDEF};
    for (int i = 0; i < 3; i++) {
        check_one(data, size, fmts[i], max_nodes, max_elems, h + (uint64_t)i);
        check_one(data, size, fmts[i], 1000000, 16, h + (uint64_t)i + 3);
    }
    return 0;
}
