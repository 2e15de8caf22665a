/*
 * test_fit.c - fl_fit (src/cost/fit.c) on synthetic traces whose kernel
 * times follow the model exactly (time = fixed + max(compute / eff_c,
 * memory / eff_m)): the efficiencies, fixed costs, buckets and dispatch
 * overhead are recovered; the fit does not depend on the order of the ops;
 * bad input is refused with a message; and the written profile loads back
 * with the fitted figures.
 */
#include "foldline/roofline.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REL(a, b) (fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)))

/* Conv ops: 14 per decade in (1e6, 1e7] and (1e7, 1e8] FLOPs; 10 of each
 * compute-bound (memory terms a tenth of the compute terms) at efficiency
 * 0.5 in the first decade and 0.25 in the second, 4 memory-bound at memory
 * efficiency 0.8; every op pays `fixed`. The fixed cost is one of the fit's
 * grid points (the fastest op's time x j / 24) when the fastest op takes
 * exactly 24 x fixed: op 0 is given 23 x fixed of work. */
static size_t make_ops(fl_fit_op *ops, double fixed) {
    size_t n = 0;
    for (int d = 0; d < 2; d++) {
        double eff = d == 0 ? 0.5 : 0.25;
        for (int i = 0; i < 14; i++) {
            double flops = (d == 0 ? 1e6 : 1e7) * (1.05 + 0.6 * i);
            double xc = flops / 1e10;
            fl_fit_op *o = &ops[n++];
            o->cls = FL_CLASS_CONV;
            o->flops = flops;
            o->executed = true;
            if (i < 10) { /* compute-bound */
                o->compute_s = xc;
                o->memory_s = xc / 10;
                o->bytes = flops / 100;
                o->measured_s = fixed + xc / eff;
            } else { /* memory-bound at 0.8 */
                o->compute_s = xc / 10;
                o->memory_s = xc;
                o->bytes = flops;
                o->measured_s = fixed + xc / 0.8;
            }
        }
    }
    /* The fastest op: 23 x fixed of work at efficiency 0.5, 24 x fixed in all. */
    fl_fit_op *o = &ops[0];
    o->compute_s = 23 * fixed * 0.5;
    o->memory_s = o->compute_s / 10;
    o->measured_s = fixed + o->compute_s / 0.5;
    return n;
}

static void test_recovers(void **state) {
    (void)state;
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    double fixed = 1e-6;
    size_t n = make_ops(ops, fixed);
    /* Whole runs: the kernels plus 3 us of dispatch per kernel. */
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += ops[i].measured_s;
    }
    fl_fit_model m = {"synthetic", n, ops, sum + 3e-6 * (double)n, sum, n};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(r.have_overhead);
    assert_true(REL(r.overhead_s, 3e-6));
    assert_true(r.compute_scale == 1 && r.memory_scale == 1);
    const fl_eff_table *t = &r.table[FL_CLASS_CONV];
    assert_int_equal(t->by, FL_SIZE_FLOPS);
    assert_int_equal(t->n_buckets, 2);
    assert_true(t->buckets[0].upto == 1e7);
    assert_true(t->buckets[1].upto == 0);
    if (!REL(t->buckets[0].compute, 0.5) || !REL(t->buckets[1].compute, 0.25) ||
        !REL(t->buckets[0].memory, 0.8) || !REL(t->buckets[1].memory, 0.8) ||
        !REL(t->buckets[0].fixed_s, fixed) || !REL(t->buckets[1].fixed_s, fixed)) {
        fail_msg("recovered %g/%g/%g and %g/%g/%g", t->buckets[0].compute, t->buckets[0].memory,
                 t->buckets[0].fixed_s, t->buckets[1].compute, t->buckets[1].memory,
                 t->buckets[1].fixed_s);
    }
    assert_int_equal(r.samples[FL_CLASS_CONV], (int64_t)n);
    assert_true(r.residual[FL_CLASS_CONV] < 1e-9);
    assert_int_equal(r.table[FL_CLASS_MATMUL].n_buckets, 0);
    /* The prediction of each op is its measured kernel time plus dispatch. */
    for (size_t i = 0; i < n; i++) {
        double p = fl_fit_predict_op(&r, &ops[i]);
        if (!REL(p, ops[i].measured_s + 3e-6)) {
            fail_msg("op %zu: predicted %.17g, measured %.17g + 3e-6", i, p, ops[i].measured_s);
        }
    }
    assert_true(REL(r.predicted_s[0], m.measured_s));
    assert_true(r.interval.coverage == 0); /* one model: no cross-validation */

    /* Reversed order: the same table. */
    fl_fit_op rev[64];
    for (size_t i = 0; i < n; i++) {
        rev[i] = ops[n - 1 - i];
    }
    fl_fit_model m2 = {"reversed", n, rev, m.measured_s, sum, n};
    fl_fit_result r2;
    assert_int_equal(fl_fit(&m2, 1, &r2, err, sizeof err), FL_OK);
    for (size_t k = 0; k < 2; k++) {
        assert_true(r2.table[FL_CLASS_CONV].buckets[k].compute == t->buckets[k].compute);
        assert_true(r2.table[FL_CLASS_CONV].buckets[k].memory == t->buckets[k].memory);
        assert_true(r2.table[FL_CLASS_CONV].buckets[k].fixed_s == t->buckets[k].fixed_s);
    }
    fl_fit_result_free(&r2);
    fl_fit_result_free(&r);
}

/* Three models: cross-validation predicts each from the other two; with
 * exact traces every left-out prediction is exact, so the interval is 1-1. */
static void test_cross_validation(void **state) {
    (void)state;
    fl_fit_op ops[3][64];
    fl_fit_model ms[3];
    memset(ops, 0, sizeof ops);
    for (int k = 0; k < 3; k++) {
        size_t n = make_ops(ops[k], 1e-6);
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            sum += ops[k][i].measured_s;
        }
        ms[k] = (fl_fit_model){"m", n, ops[k], sum + 2e-6 * (double)n, sum, n};
    }
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(ms, 3, &r, err, sizeof err), FL_OK);
    assert_true(r.interval.coverage == 0.8);
    if (!REL(r.interval.low, 1) || !REL(r.interval.high, 1)) {
        fail_msg("interval %.17g-%.17g", r.interval.low, r.interval.high);
    }
    for (int k = 0; k < 3; k++) {
        assert_true(REL(r.cv_s[k], ms[k].measured_s));
    }
    fl_fit_result_free(&r);
}

/* Kernels faster than the base's peak: the peaks are raised (98th
 * percentile of the excess), efficiencies stay within (0, 1]. */
static void test_low_base(void **state) {
    (void)state;
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    size_t n = make_ops(ops, 1e-6);
    for (size_t i = 0; i < n; i++) { /* the base thought the device 4x slower */
        ops[i].compute_s *= 4;
        ops[i].memory_s *= 4;
    }
    fl_fit_model m = {"m", n, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(r.compute_scale > 1 && r.memory_scale > 1);
    assert_false(r.have_overhead);
    for (size_t k = 0; k < r.table[FL_CLASS_CONV].n_buckets; k++) {
        assert_true(r.table[FL_CLASS_CONV].buckets[k].compute <= 1);
        assert_true(r.table[FL_CLASS_CONV].buckets[k].memory <= 1);
    }
    fl_fit_result_free(&r);
}

static void test_bad_input(void **state) {
    (void)state;
    fl_fit_op ops[2] = {{FL_CLASS_CONV, 1e6, 1e3, 1e-4, 1e-6, true, -1, 0, false, 0},
                        {FL_CLASS_CONV, 1e6, 1e3, 1e-4, 1e-6, true, -1, 0, false, 0}};
    fl_fit_model m = {"untraced.onnx", 2, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "no traced op to fit"));
    ops[1].measured_s = NAN;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_EINVAL);
    if (!strstr(err, "untraced.onnx: op 1: measured time nan s is not a positive")) {
        fail_msg("%s", err);
    }
    ops[1].measured_s = 0;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "op 1: measured time 0 s"));
}

/* The written profile loads back with the fitted figures and the base's. */
static void test_write(void **state) {
    (void)state;
    static const char base_yaml[] =
        "schema: 1\nname: base\nkind: cpu\ndescription: a base\n"
        "compute: {vector: {fp32: {peak: 1e10, source: \"measured \\\"here\\\"\"}}}\n"
        "memory: [{name: DRAM, bandwidth: 1e10, source: m}]\n";
    fl_profile *base = NULL;
    char err[512];
    assert_int_equal(
        fl_profile_parse(base_yaml, strlen(base_yaml), "base.yaml", &base, err, sizeof err), FL_OK);
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    size_t n = make_ops(ops, 1e-6);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += ops[i].measured_s;
    }
    fl_fit_model m = {"m", n, ops, sum + 3e-6 * (double)n, sum, n};
    fl_fit_result r;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(fl_fit_write_profile(f, base, "fitted", &r, "fitted by a test"), 0);
    fclose(f);
    fl_profile *back = NULL;
    if (fl_profile_parse(text, len, "fitted.yaml", &back, err, sizeof err) != FL_OK) {
        fail_msg("%s\n%s", err, text);
    }
    assert_string_equal(back->name, "fitted");
    assert_true(back->calibrated);
    assert_true(back->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value == 1e10);
    assert_string_equal(back->peak[FL_UNIT_VECTOR][FL_PREC_FP32].source, "measured \"here\"");
    assert_true(REL(back->overhead.value, 3e-6));
    const fl_eff_table *t = &back->table[FL_CLASS_CONV];
    assert_int_equal(t->n_buckets, 2);
    assert_true(REL(t->buckets[0].compute, 0.5) && REL(t->buckets[1].compute, 0.25));
    assert_true(REL(t->buckets[0].fixed_s, 1e-6));
    assert_true(t->buckets[0].samples == 14);
    assert_non_null(strstr(t->buckets[0].source, "fitted by a test: 14 traced ops"));
    fl_profile_free(back);
    free(text);
    fl_fit_result_free(&r);
    fl_profile_free(base);
}

/* Depthwise ops whose time is a per-channel setup plus their work: 14 ops
 * in (1e6, 1e7] FLOPs, compute-bound at efficiency 0.5 on a 1e10 peak, each
 * paying 1e-7 s per channel group, with channel counts that do not follow
 * the work (32 x 1..13, and 1000 for op 0). Op 0 has the least time per
 * channel: (1000 x 1e-7 + 2 x 1.5e-4) / 1000 = 4e-7 s, so the grid's
 * candidates are 4e-7 x j / 24 and 1e-7 is one of them (j = 6). The others:
 * at least (416 x 1e-7 + 2 x 1.05e-4) / 416 = 6.0e-7 s per channel. The fit
 * recovers 1e-7 s per channel, efficiency 0.5 and no fixed cost exactly;
 * the fitted profile carries per_channel and loads back with it. The same
 * ops without channel groups (conv) get no per-channel time. */
static size_t make_depthwise(fl_fit_op *ops, fl_op_class cls) {
    size_t n = 0;
    for (int i = 0; i < 14; i++) {
        fl_fit_op *o = &ops[n++];
        double flops = i == 0 ? 1.5e6 : 1e6 * (1.05 + 0.6 * i);
        o->cls = cls;
        o->flops = flops;
        o->compute_s = flops / 1e10;
        o->memory_s = o->compute_s / 10;
        o->bytes = flops / 100;
        o->executed = true;
        o->channels = i == 0 ? 1000 : 32 * (1 + (i * 7) % 13);
        o->measured_s = o->channels * 1e-7 + o->compute_s / 0.5;
        if (cls != FL_CLASS_DEPTHWISE) {
            o->channels = 0;
        }
    }
    return n;
}

static void test_per_channel(void **state) {
    (void)state;
    fl_fit_op ops[16];
    memset(ops, 0, sizeof ops);
    size_t n = make_depthwise(ops, FL_CLASS_DEPTHWISE);
    fl_fit_model m = {"dw", n, ops, 0, 0, n};
    fl_fit_result r;
    char err[512];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    const fl_eff_table *t = &r.table[FL_CLASS_DEPTHWISE];
    assert_int_equal(t->n_buckets, 1);
    const fl_eff_bucket *b = &t->buckets[0];
    if (!REL(b->per_channel_s, 1e-7) || !REL(b->compute, 0.5) || b->fixed_s != 0 ||
        b->broadcast_s != 0) {
        fail_msg("per channel %.17g, compute %.17g, fixed %.17g", b->per_channel_s, b->compute,
                 b->fixed_s);
    }
    assert_true(r.residual[FL_CLASS_DEPTHWISE] < 1e-9);
    for (size_t i = 0; i < n; i++) {
        double p = fl_fit_predict_op(&r, &ops[i]);
        if (!REL(p, ops[i].measured_s)) {
            fail_msg("op %zu: predicted %.17g, measured %.17g", i, p, ops[i].measured_s);
        }
    }
    static const char base_yaml[] = "schema: 1\nname: base\nkind: cpu\n"
                                    "compute: {vector: {fp32: {peak: 1e10, source: m}}}\n"
                                    "memory: [{name: DRAM, bandwidth: 1e10, source: m}]\n";
    fl_profile *base = NULL, *back = NULL;
    assert_int_equal(
        fl_profile_parse(base_yaml, strlen(base_yaml), "base.yaml", &base, err, sizeof err), FL_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(fl_fit_write_profile(f, base, "fitted", &r, "fitted by a test"), 0);
    fclose(f);
    if (fl_profile_parse(text, len, "fitted.yaml", &back, err, sizeof err) != FL_OK) {
        fail_msg("%s\n%s", err, text);
    }
    assert_true(REL(back->table[FL_CLASS_DEPTHWISE].buckets[0].per_channel_s, 1e-7));
    fl_profile_free(back);
    fl_profile_free(base);
    free(text);
    fl_fit_result_free(&r);

    /* Without channel groups the class gets none (and cannot fit exactly). */
    memset(ops, 0, sizeof ops);
    n = make_depthwise(ops, FL_CLASS_CONV);
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(r.table[FL_CLASS_CONV].buckets[0].per_channel_s == 0);
    if (!(r.residual[FL_CLASS_CONV] > 1e-3)) { /* about 1 % against < 1e-9 above */
        fail_msg("residual %g", r.residual[FL_CLASS_CONV]);
    }
    fl_fit_result_free(&r);

    /* A channel count that is not a number >= 0 is refused. */
    memset(ops, 0, sizeof ops);
    n = make_depthwise(ops, FL_CLASS_DEPTHWISE);
    ops[3].channels = -1;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "dw: op 3: channel groups -1 is not a number >= 0"));
}

/* Element-wise ops, memory-bound at 1e10 B/s (compute a tenth of it), of
 * 15000 + 5000 i bytes (i = 0..13: one decade, one bucket), reaching 0.25 of
 * the bandwidth; the even ones have a broadcast operand and pay 3e-6 s more.
 * The broadcast-time grid: the least broadcast op (i = 0) takes 3e-6 +
 * 15000 / (0.25 x 1e10) = 9e-6 s, so the candidates are 9e-6 x j / 24 and
 * 3e-6 is one of them (j = 8). The fit recovers 3e-6 s per broadcast op,
 * memory efficiency 0.25 and no fixed cost exactly, every op's time, and
 * the fitted profile carries `broadcast` and loads back with it. The same
 * ops without the broadcast flag get no broadcast time (and a residual). */
static size_t make_broadcast(fl_fit_op *ops, bool flag) {
    size_t n = 0;
    for (int i = 0; i < 14; i++) {
        fl_fit_op *o = &ops[n++];
        o->cls = FL_CLASS_ELEMENTWISE;
        o->bytes = 15000 + 5000 * i;
        o->flops = o->bytes / 12;
        o->memory_s = o->bytes / 1e10;
        o->compute_s = o->memory_s / 10;
        o->executed = true;
        o->broadcast = i % 2 == 0;
        o->measured_s = (o->broadcast ? 3e-6 : 0) + o->memory_s / 0.25;
        o->broadcast = o->broadcast && flag;
    }
    return n;
}

static void test_broadcast(void **state) {
    (void)state;
    fl_fit_op ops[16];
    memset(ops, 0, sizeof ops);
    size_t n = make_broadcast(ops, true);
    fl_fit_model m = {"bc", n, ops, 0, 0, n};
    fl_fit_result r;
    char err[512];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    const fl_eff_table *t = &r.table[FL_CLASS_ELEMENTWISE];
    assert_int_equal(t->n_buckets, 1);
    const fl_eff_bucket *b = &t->buckets[0];
    if (!REL(b->broadcast_s, 3e-6) || !REL(b->memory, 0.25) || b->fixed_s != 0 ||
        b->per_channel_s != 0) {
        fail_msg("broadcast %.17g, memory %.17g, fixed %.17g, per channel %.17g", b->broadcast_s,
                 b->memory, b->fixed_s, b->per_channel_s);
    }
    assert_true(r.residual[FL_CLASS_ELEMENTWISE] < 1e-9);
    for (size_t i = 0; i < n; i++) {
        double p = fl_fit_predict_op(&r, &ops[i]);
        if (!REL(p, ops[i].measured_s)) {
            fail_msg("op %zu: predicted %.17g, measured %.17g", i, p, ops[i].measured_s);
        }
    }
    static const char base_yaml[] = "schema: 1\nname: base\nkind: cpu\n"
                                    "compute: {vector: {fp32: {peak: 1e10, source: m}}}\n"
                                    "memory: [{name: DRAM, bandwidth: 1e10, source: m}]\n";
    fl_profile *base = NULL, *back = NULL;
    assert_int_equal(
        fl_profile_parse(base_yaml, strlen(base_yaml), "base.yaml", &base, err, sizeof err), FL_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(fl_fit_write_profile(f, base, "fitted", &r, "fitted by a test"), 0);
    fclose(f);
    if (fl_profile_parse(text, len, "fitted.yaml", &back, err, sizeof err) != FL_OK) {
        fail_msg("%s\n%s", err, text);
    }
    assert_true(REL(back->table[FL_CLASS_ELEMENTWISE].buckets[0].broadcast_s, 3e-6));
    assert_true(back->table[FL_CLASS_ELEMENTWISE].buckets[0].per_channel_s == 0);
    fl_profile_free(back);
    fl_profile_free(base);
    free(text);
    fl_fit_result_free(&r);

    memset(ops, 0, sizeof ops);
    n = make_broadcast(ops, false);
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(r.table[FL_CLASS_ELEMENTWISE].buckets[0].broadcast_s == 0);
    if (!(r.residual[FL_CLASS_ELEMENTWISE] > 1e-3)) {
        fail_msg("residual %g", r.residual[FL_CLASS_ELEMENTWISE]);
    }
    fl_fit_result_free(&r);
}

/* Data-movement ops, memory-bound at 1e10 B/s (compute a tenth of it),
 * reaching 0.5 of the bandwidth, of 15000 + 5000 i bytes (one decade, one
 * bucket). The odd ones are Transposes that keep the innermost axis: they
 * copy 64 x (1 + 5i mod 7) contiguous runs and pay 8e-9 s per run (the
 * report's `channels`); the even ones (a Transpose moving the innermost
 * axis, a Concat) have no runs. Op 0 copies 1000 runs of 40000 bytes: 8e-6
 * + 40000 / 5e9 = 16e-6 s, 16e-9 s per run, the least (the others: at least
 * 8e-9 + 20000 / 5e9 / 448 > 16.9e-9), so the grid's candidates are 16e-9 x
 * j / 24 and 8e-9 is one of them (j = 12). The fit recovers 8e-9 s per run,
 * memory efficiency 0.5, no fixed cost, every op's time. The same ops as
 * pools (windowed ones with output rows for runs, the even ones global
 * pools without) fit the same way in the pooling class. */
static void fit_runs(fl_op_class cls) {
    fl_fit_op ops[16];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    for (int i = 0; i < 14; i++) {
        fl_fit_op *o = &ops[n++];
        o->cls = cls;
        o->bytes = i == 0 ? 40000 : 15000 + 5000 * i;
        o->memory_s = o->bytes / 1e10;
        o->compute_s = o->memory_s / 10;
        o->executed = true;
        o->channels = i == 0 ? 1000 : i % 2 ? 64 * (1 + (i * 5) % 7) : 0;
        o->measured_s = o->channels * 8e-9 + o->memory_s / 0.5;
    }
    fl_fit_model m = {"tp", n, ops, 0, 0, n};
    fl_fit_result r;
    char err[512];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    const fl_eff_table *t = &r.table[cls];
    assert_int_equal(t->n_buckets, 1);
    const fl_eff_bucket *b = &t->buckets[0];
    if (!REL(b->per_channel_s, 8e-9) || !REL(b->memory, 0.5) || b->fixed_s != 0 ||
        b->broadcast_s != 0) {
        fail_msg("per run %.17g, memory %.17g, fixed %.17g", b->per_channel_s, b->memory,
                 b->fixed_s);
    }
    assert_true(r.residual[cls] < 1e-9);
    for (size_t i = 0; i < n; i++) {
        double p = fl_fit_predict_op(&r, &ops[i]);
        if (!REL(p, ops[i].measured_s)) {
            fail_msg("op %zu: predicted %.17g, measured %.17g", i, p, ops[i].measured_s);
        }
    }
    fl_fit_result_free(&r);
}

static void test_runs(void **state) {
    (void)state;
    fit_runs(FL_CLASS_DATA_MOVEMENT);
    fit_runs(FL_CLASS_POOLING);
}

/* Each bucket has its own fixed cost: decade 1's ops pay 4 us instead of
 * 1 us (its fastest op takes 24 x 4 us, so 4 us is on that bucket's grid);
 * both fixed costs and the efficiencies are recovered exactly. */
static void test_fixed_per_bucket(void **state) {
    (void)state;
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    size_t n = make_ops(ops, 1e-6);
    double tmin = INFINITY;
    size_t fastest = 0;
    for (size_t i = 14; i < n; i++) {
        ops[i].measured_s += 3e-6;
        if (ops[i].measured_s < tmin) {
            tmin = ops[i].measured_s;
            fastest = i;
        }
    }
    /* Decade 1's fastest op: 23 x 4 us of work at efficiency 0.25. */
    fl_fit_op *o = &ops[fastest];
    o->compute_s = 23 * 4e-6 * 0.25;
    o->memory_s = o->compute_s / 10;
    o->measured_s = 4e-6 + o->compute_s / 0.25;
    assert_true(fastest == 14); /* compute-bound (i < 10 in its decade) */
    fl_fit_model m = {"m", n, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    const fl_eff_table *t = &r.table[FL_CLASS_CONV];
    assert_int_equal(t->n_buckets, 2);
    if (!REL(t->buckets[0].fixed_s, 1e-6) || !REL(t->buckets[1].fixed_s, 4e-6) ||
        !REL(t->buckets[0].compute, 0.5) || !REL(t->buckets[1].compute, 0.25) ||
        !REL(t->buckets[1].memory, 0.8)) {
        fail_msg("recovered fixed %g/%g, compute %g/%g, memory %g", t->buckets[0].fixed_s,
                 t->buckets[1].fixed_s, t->buckets[0].compute, t->buckets[1].compute,
                 t->buckets[1].memory);
    }
    assert_true(r.residual[FL_CLASS_CONV] < 1e-9);
    fl_fit_result_free(&r);
}

/* Ops with no bytes and no FLOPs (Reshape-like) take only their fixed cost:
 * it is the median of their times, not held below the fastest one. */
static void test_fixed_only(void **state) {
    (void)state;
    fl_fit_op ops[7];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 7; i++) {
        ops[i].cls = FL_CLASS_OTHER;
        ops[i].executed = true;
        ops[i].measured_s = (1.0 + 0.1 * i) * 1e-6; /* 1.0 .. 1.6 us, median 1.3 us */
    }
    fl_fit_model m = {"m", 7, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    /* The summed relative error sum |f - t| / t falls while the weights 1/t
     * of the times below f sum to less than those above: from 1.2 to 1.3 us
     * it still falls (1/1.0 + 1/1.1 + 1/1.2 = 2.742 < 1/1.3 + ... + 1/1.6 =
     * 2.775), so the best grid point is the top one, the median 1.3 us. */
    double f = r.table[FL_CLASS_OTHER].buckets[0].fixed_s;
    if (!REL(f, 1.3e-6)) {
        fail_msg("fixed %.17g", f);
    }
    fl_fit_result_free(&r);
}

/* Whole runs faster than the sum of their kernels (a latency measured apart
 * while the traced kernels were slowed): the fitted overhead is 0 and the
 * written profile has none (a profile's overhead must be > 0). */
static void test_zero_overhead(void **state) {
    (void)state;
    static const char base_yaml[] = "schema: 1\nname: base\nkind: cpu\ndescription: a base\n"
                                    "compute: {vector: {fp32: {peak: 1e10, source: s}}}\n"
                                    "memory: [{name: DRAM, bandwidth: 1e10, source: m}]\n"
                                    "overhead: {seconds: 5e-6, source: calibrated}\n";
    fl_profile *base = NULL;
    char err[512];
    assert_int_equal(
        fl_profile_parse(base_yaml, strlen(base_yaml), "base.yaml", &base, err, sizeof err), FL_OK);
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    size_t n = make_ops(ops, 1e-6);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += ops[i].measured_s;
    }
    fl_fit_model m = {"m", n, ops, 0.5 * sum, sum, n};
    fl_fit_result r;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(r.have_overhead && r.overhead_s == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(fl_fit_write_profile(f, base, "fitted", &r, "fitted by a test"), 0);
    fclose(f);
    fl_profile *back = NULL;
    if (fl_profile_parse(text, len, "fitted.yaml", &back, err, sizeof err) != FL_OK) {
        fail_msg("%s\n%s", err, text);
    }
    assert_true(back->overhead.value == 0); /* not the base's 5 us: the fit measured none */
    fl_profile_free(back);
    free(text);
    fl_fit_result_free(&r);
    fl_profile_free(base);
}

/* Ops of one size cannot tell a fixed cost from a slower rate: every fixed
 * cost f below the fastest op predicts f + (median - f) = the median for all
 * of them, so the errors tie and the least fixed cost, 0, is kept (a fixed
 * cost taken from such a bucket would be charged to ops of every other size).
 * Seven softmaxes of 1 us at peak, measured 1.8 .. 2.4 us (median 2.1 us):
 * fixed 0, efficiency 1 / 2.1; an op ten times larger is predicted 21 us. */
static void test_one_size_no_fixed(void **state) {
    (void)state;
    fl_fit_op ops[7];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 7; i++) {
        ops[i].cls = FL_CLASS_SOFTMAX;
        ops[i].executed = true;
        ops[i].flops = 1000;
        ops[i].bytes = 8000;
        ops[i].compute_s = 1e-6;
        ops[i].memory_s = 0.1e-6;
        ops[i].measured_s = (1.8 + 0.1 * i) * 1e-6;
    }
    fl_fit_model m = {"m", 7, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    const fl_eff_bucket *b = &r.table[FL_CLASS_SOFTMAX].buckets[0];
    if (b->fixed_s != 0 || !REL(b->compute, 1 / 2.1)) {
        fail_msg("fixed %.17g, compute %.17g", b->fixed_s, b->compute);
    }
    fl_fit_op big = ops[0];
    big.compute_s = 10e-6;
    big.memory_s = 1e-6;
    big.bytes = 80000;
    assert_true(REL(fl_fit_predict_op(&r, &big), 21e-6));
    fl_fit_result_free(&r);
}

/* A strided copy is costed at a line per element, an upper bound: a data
 * movement kernel faster than that is no evidence that the base's bandwidth
 * was low (memory_scale stays 1), while an element-wise one is (x3). */
/* Each memory level's bandwidth is raised apart: 12 memory-bound ops served
 * by level 1 ran at its bandwidth (time at efficiency 1 = measured), 12 by
 * level 2 twice as fast as it (2 x measured), 3 by level 3 1.5 times as
 * fast: fewer than FL_FIT_LEVEL_OPS, so the common raise applies there (the
 * 98th percentile over all 27: 2). With the raises every op is predicted
 * exactly (memory efficiency 1, no fixed cost). */
static void test_level_scale(void **state) {
    (void)state;
    fl_fit_op ops[27];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 27; i++) {
        int level = i < 12 ? 1 : i < 24 ? 2 : 3;
        double t = 1e-5 * (1 + 0.05 * i), ratio = level == 1 ? 1 : level == 2 ? 2 : 1.5;
        ops[i] = (fl_fit_op){FL_CLASS_ELEMENTWISE,
                             1e3,
                             5e4 + 1e3 * i,
                             t * ratio / 100,
                             t * ratio,
                             true,
                             t,
                             0,
                             false,
                             level};
    }
    fl_fit_model m = {"levels", 27, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(REL(r.level_scale[0], 1));
    assert_true(REL(r.level_scale[1], 2));
    assert_true(r.level_scale[2] == 0);
    assert_true(REL(r.memory_scale, 2));
    for (int i = 0; i < 27; i++) {
        double p = fl_fit_predict_op(&r, &ops[i]);
        double want = i < 24 ? ops[i].measured_s : ops[i].measured_s * 1.5 / 2;
        if (!REL(p, want)) {
            fail_msg("op %d: predicted %.17g, want %.17g", i, p, want);
        }
    }
    fl_fit_result_free(&r);
}

static void test_scale_not_from_copies(void **state) {
    (void)state;
    fl_fit_op ops[2];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 2; i++) {
        ops[i].executed = true;
        ops[i].bytes = 1e6;
        ops[i].memory_s = 3e-6;
        ops[i].measured_s = 1e-6;
    }
    ops[0].cls = FL_CLASS_DATA_MOVEMENT;
    ops[1].cls = FL_CLASS_ELEMENTWISE;
    fl_fit_model m = {"m", 1, ops, 0, 0, 0};
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(REL(r.memory_scale, 1));
    fl_fit_result_free(&r);
    m.n_ops = 2;
    assert_int_equal(fl_fit(&m, 1, &r, err, sizeof err), FL_OK);
    assert_true(REL(r.memory_scale, 3));
    fl_fit_result_free(&r);
}

/* The refill term (fl_fit_streamed): 12 `other` ops of 2 us fixed cost,
 * each also paying 2.5e-13 s per byte the kernels before it evicted (0 for
 * the first, 1..11 MB, the most 8 MB). The candidates are the least
 * measured time per evicted byte, (2 us + 2.5e-13 x 8e6) / 8e6 = 5e-13,
 * x j / 24: at j = 12, 2.5e-13, every op's time less its refill is the
 * fixed 2 us and the error is 0, so that one is chosen; the whole model is
 * predicted exactly. Without evicted bytes there is no term. */
static void test_streamed(void **state) {
    (void)state;
    fl_fit_op ops[12];
    double ev[12];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 12; i++) {
        ev[i] = i == 0 ? 0 : i == 11 ? 8e6 : 1e6 * (double)i * 0.7;
        ops[i].cls = FL_CLASS_OTHER;
        ops[i].executed = true;
        ops[i].measured_s = 2e-6 + 2.5e-13 * ev[i];
    }
    fl_fit_model m = {"m", 12, ops, 0, 0, 0};
    const double *evs[1] = {ev};
    fl_fit_result r;
    char err[256];
    double streamed = -1;
    assert_int_equal(fl_fit_streamed(&m, 1, evs, &r, &streamed, err, sizeof err), FL_OK);
    if (fabs(streamed - 2.5e-13) > 1e-9 * 2.5e-13) {
        fail_msg("streamed %.17g", streamed);
    }
    double f = r.table[FL_CLASS_OTHER].buckets[0].fixed_s;
    if (fabs(f - 2e-6) > 1e-9 * 2e-6) {
        fail_msg("fixed %.17g", f);
    }
    double sum = 0;
    for (int i = 0; i < 12; i++) {
        sum += ops[i].measured_s;
    }
    assert_true(fabs(r.predicted_s[0] - sum) <= 1e-9 * sum);
    fl_fit_result_free(&r);
    assert_int_equal(fl_fit_streamed(&m, 1, NULL, &r, &streamed, err, sizeof err), FL_OK);
    assert_true(streamed == 0);
    fl_fit_result_free(&r);
}

/* The run's gap as a share of kernel time (fl_fit_terms_run). Three
 * models of the same ops whose whole runs take 1.06 x their kernels: the
 * share is 0.06 and no cost per kernel is left; every op's prediction is
 * its kernel time x 1.06, so each model, fitted and left out, is predicted
 * at its run (interval 1-1). With --gap-per-kernel's fit (gap false) the
 * same runs give a cost per kernel instead: 0.06 x sum / kernels. */
static void test_gap_share(void **state) {
    (void)state;
    fl_fit_op ops[3][64];
    fl_fit_model ms[3];
    memset(ops, 0, sizeof ops);
    double sum = 0;
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        n = make_ops(ops[k], 1e-6);
        sum = 0;
        for (size_t i = 0; i < n; i++) {
            sum += ops[k][i].measured_s;
        }
        ms[k] = (fl_fit_model){"m", n, ops[k], 1.06 * sum, sum, n};
    }
    fl_fit_terms t;
    fl_fit_terms_init(&t);
    assert_true(t.size == sizeof t && t.gap && !t.evicted && t.gap_share == 0);
    fl_fit_result r;
    char err[256];
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    if (!REL(t.gap_share, 0.06)) {
        fail_msg("share %.17g", t.gap_share);
    }
    assert_int_equal(t.gap_models, 3);
    assert_int_equal(t.gap_files, 3); /* no files given: one each */
    assert_true(r.have_overhead);
    assert_true(r.overhead_s < 1e-9 * sum / (double)n); /* rounding at most */
    for (int k = 0; k < 3; k++) {
        assert_true(REL(r.predicted_s[k], 1.06 * sum));
        assert_true(REL(r.cv_s[k], 1.06 * sum));
    }
    assert_true(REL(r.interval.low, 1) && REL(r.interval.high, 1));
    fl_fit_result_free(&r);

    /* Files per model (TensorFlow steps, a file each): the share's models'
     * files counted; a caller's struct of the first release's size (up to
     * gap_models) has no such field, and nothing past it is written. */
    const size_t files[3] = {3, 1, 2};
    t.model_files = files;
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_int_equal(t.gap_models, 3);
    assert_int_equal(t.gap_files, 6);
    fl_fit_result_free(&r);
    t.model_files = NULL;
    t.gap_files = 12345;
    t.size = offsetof(fl_fit_terms, gap_models) + sizeof(size_t);
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_int_equal(t.gap_models, 3);
    assert_int_equal(t.gap_files, 12345);
    fl_fit_result_free(&r);
    t.size = sizeof t;

    t.gap = false;
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(t.gap_share == 0);
    assert_true(REL(r.overhead_s, 0.06 * sum / (double)n));
    fl_fit_result_free(&r);

    /* Shares 0.02, 0.05 and 0.30 and a cost per kernel: the median share
     * 0.05; what it leaves per kernel, (run - 1.05 x sum) / n, is negative,
     * 0 and positive: its median, 0. */
    const double shares[3] = {0.30, 0.02, 0.05};
    for (int k = 0; k < 3; k++) {
        ms[k].measured_s = (1 + shares[k]) * sum;
    }
    t.gap = true;
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(REL(t.gap_share, 0.05));
    assert_true(r.overhead_s < 1e-9 * sum / (double)n);
    fl_fit_result_free(&r);
    /* Plus 2 us per kernel in every run: the share moves by 2 us x n / sum,
     * the cost per kernel left is 2 us. */
    for (int k = 0; k < 3; k++) {
        ms[k].measured_s = (1 + shares[k]) * sum + 2e-6 * (double)n;
    }
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(REL(t.gap_share, 0.05 + 2e-6 * (double)n / sum));
    if (fabs(r.overhead_s) > 1e-9 * 2e-6) { /* the median model's own runs: all in the share */
        fail_msg("overhead %.17g", r.overhead_s);
    }
    fl_fit_result_free(&r);

    /* Bounded: runs below their kernels give no share; runs over twice
     * their kernels a share of 1. */
    for (int k = 0; k < 3; k++) {
        ms[k].measured_s = 0.9 * sum;
    }
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(t.gap_share == 0 && r.overhead_s == 0 && r.have_overhead);
    fl_fit_result_free(&r);
    for (int k = 0; k < 3; k++) {
        ms[k].measured_s = 2.5 * sum;
    }
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(t.gap_share == 1);
    assert_true(REL(r.overhead_s, 0.5 * sum / (double)n));
    fl_fit_result_free(&r);

    /* Without whole-run times: no share, no overhead. */
    for (int k = 0; k < 3; k++) {
        ms[k].measured_s = 0;
    }
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_OK);
    assert_true(t.gap_share == 0 && t.gap_models == 0 && !r.have_overhead);
    fl_fit_result_free(&r);

    /* A caller's struct that is not set up. */
    t.size = 0;
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, &t, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "fl_fit_terms_init"));
    assert_int_equal(fl_fit_terms_run(ms, 3, &r, NULL, err, sizeof err), FL_EINVAL);
}

/* The fitted share is written as `gap` with its source and loads back; a
 * fit without whole-run times keeps the base's gap, exactly (parse, write,
 * parse: the same value and source). */
static void test_gap_write(void **state) {
    (void)state;
    static const char base_yaml[] = "schema: 1\nname: base\nkind: cpu\ndescription: a base\n"
                                    "compute: {vector: {fp32: {peak: 1e10, source: s}}}\n"
                                    "memory: [{name: DRAM, bandwidth: 1e10, source: m}]\n"
                                    "overhead: {seconds: 5e-6, source: calibrated}\n"
                                    "gap: {share: 0.0612345678901234, source: \"by hand\"}\n";
    fl_profile *base = NULL;
    char err[512];
    assert_int_equal(
        fl_profile_parse(base_yaml, strlen(base_yaml), "base.yaml", &base, err, sizeof err), FL_OK);
    assert_true(base->gap.value == strtod("0.0612345678901234", NULL));
    fl_fit_op ops[64];
    memset(ops, 0, sizeof ops);
    size_t n = make_ops(ops, 1e-6);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += ops[i].measured_s;
    }
    for (int with_runs = 0; with_runs < 2; with_runs++) {
        fl_fit_model m = {"m", n, ops, with_runs ? 1.08 * sum : 0, sum, n};
        fl_fit_terms t;
        fl_fit_terms_init(&t);
        fl_fit_result r;
        assert_int_equal(fl_fit_terms_run(&m, 1, &r, &t, err, sizeof err), FL_OK);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(fl_fit_write_profile_terms(f, base, "fitted", &r, &t, "a test"), 0);
        fclose(f);
        fl_profile *back = NULL;
        if (fl_profile_parse(text, len, "fitted.yaml", &back, err, sizeof err) != FL_OK) {
            fail_msg("%s\n%s", err, text);
        }
        if (with_runs) {
            char want[32];
            snprintf(want, sizeof want, "%.6g", t.gap_share);
            assert_true(REL(t.gap_share, 0.08));
            assert_true(back->gap.value == strtod(want, NULL));
            assert_non_null(strstr(back->gap.source, "a test: the run's gap over its kernels"));
            assert_true(back->overhead.value == 0); /* the share leaves none */
        } else {
            assert_true(back->gap.value == base->gap.value);
            assert_string_equal(back->gap.source, "by hand");
            assert_true(back->overhead.value == 5e-6);
        }
        fl_profile_free(back);
        free(text);
        fl_fit_result_free(&r);
    }
    fl_profile_free(base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers),
        cmocka_unit_test(test_per_channel),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_cross_validation),
        cmocka_unit_test(test_low_base),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_fixed_per_bucket),
        cmocka_unit_test(test_fixed_only),
        cmocka_unit_test(test_zero_overhead),
        cmocka_unit_test(test_one_size_no_fixed),
        cmocka_unit_test(test_scale_not_from_copies),
        cmocka_unit_test(test_level_scale),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_gap_share),
        cmocka_unit_test(test_gap_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
