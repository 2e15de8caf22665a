/*
 * test_profile.c - the device-profile loader (src/cost/profile.c): a valid
 * profile's fields, every kind of error naming file, line and field, and
 * robustness against arbitrary bytes (mutations of a valid file).
 */
#include "cost/profile.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char good[] = "schema: 1\n"
                           "name: dev\n"
                           "kind: gpu\n"
                           "description: a device\n"
                           "compute:\n"
                           "  vector:\n"
                           "    fp32: {peak: 1.5e12, source: \"[V] sheet\"}\n"
                           "  matrix:\n"
                           "    bf16: {peak: 3e12, source: \"[D] derived\"}\n"
                           "memory:\n"
                           "  - {name: L2, bandwidth: 2e12, capacity: 4e6, source: s1}\n"
                           "  - {name: HBM, bandwidth: 1e12, capacity: 8e10, source: s2}\n"
                           "overhead:\n"
                           "  seconds: 2e-6\n"
                           "  source: assumed\n"
                           "efficiency:\n"
                           "  depthwise: {compute: 0.25, memory: 0.5, source: fit}\n";

static fl_profile *parse_ok(const char *y) {
    fl_profile *p = NULL;
    char err[512];
    if (fl_profile_parse(y, strlen(y), "p.yaml", &p, err, sizeof err) != FL_OK) {
        fail_msg("%s", err);
    }
    return p;
}

static char *edit(const char *from, const char *to);

static void test_good(void **state) {
    (void)state;
    fl_profile *p = parse_ok(good);
    assert_string_equal(p->name, "dev");
    assert_string_equal(p->kind, "gpu");
    assert_string_equal(p->description, "a device");
    assert_string_equal(p->path, "p.yaml");
    assert_true(p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value == 1.5e12);
    assert_string_equal(p->peak[FL_UNIT_VECTOR][FL_PREC_FP32].source, "[V] sheet");
    assert_true(p->peak[FL_UNIT_MATRIX][FL_PREC_BF16].value == 3e12);
    assert_true(p->peak[FL_UNIT_MATRIX][FL_PREC_FP32].value == 0);
    assert_int_equal(p->n_levels, 2);
    assert_string_equal(p->levels[0].name, "L2");
    assert_true(p->levels[0].capacity == 4e6);
    assert_true(p->levels[1].bandwidth == 1e12);
    assert_true(p->overhead.value == 2e-6);
    assert_true(p->efficiency[FL_CLASS_DEPTHWISE].compute == 0.25);
    assert_true(p->efficiency[FL_CLASS_DEPTHWISE].memory == 0.5);
    assert_true(p->efficiency[FL_CLASS_CONV].compute == 1.0);
    /* The one-bucket form is a table of one bucket; no entry, no table. */
    assert_true(p->calibrated);
    assert_int_equal(p->table[FL_CLASS_DEPTHWISE].n_buckets, 1);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].compute == 0.25);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].fixed_s == 0);
    assert_int_equal(p->table[FL_CLASS_CONV].n_buckets, 0);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].per_channel_s == 0);
    fl_profile_free(p);
    /* A per-channel time: in a bucket of a table and in the one-bucket form. */
    char *y = edit("{compute: 0.25, memory: 0.5, source: fit}",
                   "{by: flops, buckets: [{upto: 1e6, compute: 0.5, per_channel: 3e-7, source: "
                   "a}, {compute: 0.5, fixed: 1e-6, per_channel: 2.5e-7, source: b}]}");
    p = parse_ok(y);
    free(y);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].per_channel_s == 3e-7);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[1].per_channel_s == 2.5e-7);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[1].fixed_s == 1e-6);
    fl_profile_free(p);
    y = edit("{compute: 0.25, memory: 0.5, source: fit}", "{per_channel: 4e-7, source: c}");
    p = parse_ok(y);
    free(y);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].per_channel_s == 4e-7);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].compute == 1.0);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].broadcast_s == 0);
    fl_profile_free(p);
    /* A broadcast time: alone in the one-bucket form, and beside the rest. */
    y = edit("{compute: 0.25, memory: 0.5, source: fit}", "{broadcast: 3e-6, source: c}");
    p = parse_ok(y);
    free(y);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].broadcast_s == 3e-6);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].memory == 1.0);
    fl_profile_free(p);
    y = edit("{compute: 0.25, memory: 0.5, source: fit}",
             "{by: bytes, buckets: [{upto: 1e4, memory: 0.1, fixed: 2e-6, broadcast: 2.5e-6, "
             "source: a}, {memory: 0.5, source: b}]}");
    p = parse_ok(y);
    free(y);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].broadcast_s == 2.5e-6);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[0].fixed_s == 2e-6);
    assert_true(p->table[FL_CLASS_DEPTHWISE].buckets[1].broadcast_s == 0);
    fl_profile_free(p);
}

/* Replaces the first occurrence of `from` in the good profile by `to`. */
static char *edit(const char *from, const char *to) {
    const char *at = strstr(good, from);
    assert_non_null(at);
    size_t n = strlen(good) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
    return s;
}

static void expect_error(const char *y, const char *needle) {
    fl_profile *p = NULL;
    char err[512];
    fl_status st = fl_profile_parse(y, strlen(y), "p.yaml", &p, err, sizeof err);
    if (st != FL_EINVAL) {
        fail_msg("status %d for '%s' (want error containing '%s')", st, y, needle);
    }
    assert_null(p);
    if (!strstr(err, needle)) {
        fail_msg("error '%s' lacks '%s'", err, needle);
    }
}

static void expect_edit_error(const char *from, const char *to, const char *needle) {
    char *y = edit(from, to);
    expect_error(y, needle);
    free(y);
}

static void test_errors(void **state) {
    (void)state;
    expect_error("", "p.yaml:1: empty document");
    expect_error("- a\n- b\n", "p.yaml:1: expected a mapping, got a list");
    expect_error("name: [unclosed\n", "p.yaml:2: YAML syntax error");
    expect_edit_error("schema: 1\n", "", "schema: missing (required)");
    expect_edit_error("schema: 1", "schema: 2", "p.yaml:1: schema: unsupported schema version");
    expect_edit_error("name: dev", "name: bad name!", "p.yaml:2: name: 'bad name!' is not a valid");
    expect_edit_error("name: dev", "name: all", "is not a valid name");
    expect_edit_error("kind: gpu", "kind: fpga", "p.yaml:3: kind: unknown kind 'fpga'");
    expect_edit_error("kind: gpu", "kind: gpu\nkind: cpu", "p.yaml:4: key 'kind' appears twice");
    expect_edit_error("description", "colour", "p.yaml:4: colour: unknown key");
    expect_edit_error("peak: 1.5e12", "peak: fast",
                      "p.yaml:7: compute.vector.fp32.peak: expected a number, got 'fast'");
    expect_edit_error("peak: 1.5e12", "peak: -1",
                      "compute.vector.fp32.peak: must be greater than 0");
    expect_edit_error("peak: 1.5e12", "peak: .nan", "compute.vector.fp32.peak: expected a number");
    expect_edit_error("peak: 1.5e12", "peak: 1e999", "compute.vector.fp32.peak: expected a number");
    expect_edit_error(", source: \"[V] sheet\"", "",
                      "p.yaml:7: compute.vector.fp32: missing 'source'");
    expect_edit_error("source: \"[V] sheet\"", "source: \"\"",
                      "compute.vector.fp32.source: must not be empty");
    expect_edit_error("    fp32: {peak", "    fp64: {peak",
                      "p.yaml:7: compute.vector.fp64: unknown dtype");
    expect_edit_error("  vector:\n    fp32: {peak: 1.5e12, source: \"[V] sheet\"}\n", "",
                      "compute.vector.fp32: missing (required");
    expect_edit_error("  matrix:", "  tensor:", "p.yaml:8: compute.tensor: unknown unit class");
    expect_edit_error("bf16: {peak: 3e12, source: \"[D] derived\"}", "bf16: 3e12",
                      "p.yaml:9: compute.matrix.bf16: expected a mapping, got a scalar");
    expect_edit_error("capacity: 4e6, ", "", "p.yaml:11: memory[0]: missing 'capacity'");
    expect_edit_error("capacity: 8e10", "capacity: 1e6",
                      "p.yaml:12: memory[1]: capacity must be larger");
    expect_edit_error("name: HBM", "name: L2", "memory[1]: level name 'L2' appears twice");
    expect_edit_error("bandwidth: 1e12, ", "", "p.yaml:12: memory[1]: missing 'bandwidth'");
    expect_edit_error("  - {name: L2, bandwidth: 2e12, capacity: 4e6, source: s1}\n  - {name: HBM, "
                      "bandwidth: 1e12, capacity: 8e10, source: s2}\n",
                      "  []\n", "memory: needs at least one level");
    expect_edit_error("  seconds: 2e-6\n", "", "p.yaml:14: overhead: missing 'seconds'");
    expect_edit_error("compute: 0.25", "compute: 1.5",
                      "efficiency.depthwise.compute: an efficiency is a fraction");
    expect_edit_error(
        "depthwise:", "winograd:", "p.yaml:17: efficiency.winograd: unknown op class");
    expect_edit_error(
        "{compute: 0.25, memory: 0.5, source: fit}", "{source: fit}",
        "efficiency.depthwise: needs 'compute', 'memory', 'fixed', 'per_channel' or 'broadcast'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{by: flops, buckets: [{upto: 10, compute: 0.5, source: a}, {upto: 20, "
                      "compute: 0.5, source: b}]}",
                      "efficiency.depthwise.buckets[1]: the last bucket has no 'upto'");
    expect_edit_error(
        "{compute: 0.25, memory: 0.5, source: fit}",
        "{by: flops, buckets: [{compute: 0.5, source: a}, {compute: 0.5, source: b}]}",
        "efficiency.depthwise.buckets[0]: missing 'upto'");
    expect_edit_error(
        "{compute: 0.25, memory: 0.5, source: fit}",
        "{by: flops, buckets: [{upto: 10, source: a}, {compute: 1, source: b}]}",
        "buckets[0]: needs 'compute', 'memory', 'fixed', 'per_channel' or 'broadcast'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{by: flops, buckets: [{upto: 10, compute: 1, source: a}, {upto: 5, "
                      "compute: 1, source: c}, {compute: 1, source: b}]}",
                      "buckets[1]: 'upto' must grow");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{by: time, buckets: [{compute: 1, source: a}]}",
                      "efficiency.depthwise.by: expected flops or bytes, got 'time'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}", "{by: flops}",
                      "needs 'by' (flops or bytes) and 'buckets'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{compute: 0.5, fixed: -1, source: a}",
                      "efficiency.depthwise.fixed: expected a number >= 0, got '-1'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{by: flops, buckets: [{compute: 1, per_channel: -2e-7, source: a}]}",
                      "efficiency.depthwise.buckets[0].per_channel: expected a number >= 0, got "
                      "'-2e-7'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{compute: 1, broadcast: -1e-6, source: a}",
                      "efficiency.depthwise.broadcast: expected a number >= 0, got '-1e-6'");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{compute: 1, broadcasts: 1e-6, source: a}",
                      "unknown key (expected compute, memory, fixed, per_channel, broadcast, "
                      "source; or by and buckets)");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{by: flops, buckets: [{compute: 1, fixed: 1e-6, source: a}]}\n"
                      "interval: {low: 1.2, high: 2, coverage: 0.8, source: x}",
                      "interval: low and high multiply the estimate");
    expect_edit_error("{compute: 0.25, memory: 0.5, source: fit}",
                      "{compute: 1, source: a}\ninterval: {low: 0.8, high: 2}",
                      "interval: needs low, high, coverage and source");
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

/* Files and directories: a profile is named after its file; a name defined
 * twice (in one directory or across the shipped set and an added one) is an
 * error naming both files, and a failed add leaves the set as it was. */
static void test_files(void **state) {
    (void)state;
    char dir[] = "/tmp/fl_profiles_XXXXXX", dir2[] = "/tmp/fl_profiles2_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(dir2));
    fl_profile_set s;
    char err[512];
    write_file(dir, "dev.yaml", good);
    write_file(dir, "notes.txt", "ignored");
    assert_int_equal(fl_profile_set_load(dir, &s, err, sizeof err), FL_OK);
    assert_int_equal(s.n, 1);
    assert_non_null(fl_profile_set_find(&s, "dev"));
    assert_null(fl_profile_set_find(&s, "nope"));

    /* Another directory adds to the set; sorted by name. */
    char *other = edit("name: dev", "name: cpu2");
    write_file(dir2, "cpu2.yaml", other);
    assert_int_equal(fl_profile_set_add_dir(&s, dir2, err, sizeof err), FL_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.profiles[0]->name, "cpu2");
    assert_string_equal(s.profiles[1]->name, "dev");

    /* A name already in the set: both files named, the set unchanged. */
    write_file(dir2, "dev.yml", good);
    fl_profile_set s2 = {0, NULL};
    assert_int_equal(fl_profile_set_add_dir(&s2, dir, err, sizeof err), FL_OK);
    assert_int_equal(fl_profile_set_add_dir(&s2, dir2, err, sizeof err), FL_EINVAL);
    char want[600];
    snprintf(want, sizeof want, "%s/dev.yml: name: profile 'dev' is also defined in %s/dev.yaml",
             dir2, dir);
    if (!strstr(err, want)) {
        fail_msg("'%s' lacks '%s'", err, want);
    }
    assert_int_equal(s2.n, 1); /* cpu2.yaml was added, then dropped again */
    assert_string_equal(s2.profiles[0]->name, "dev");
    fl_profile_set_free(&s2);
    fl_profile_set_free(&s);
    remove_file(dir2, "dev.yml");

    /* Two files of one name in one directory. */
    write_file(dir, "dev.yml", good);
    assert_int_equal(fl_profile_set_load(dir, &s, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "dev.yml: name: profile 'dev' is also defined in"));
    assert_non_null(strstr(err, "/dev.yaml"));
    assert_int_equal(s.n, 0);
    remove_file(dir, "dev.yml");

    /* A profile not named after its file. */
    write_file(dir, "gpu.yaml", good);
    assert_int_equal(fl_profile_set_load(dir, &s, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "gpu.yaml: name: profile 'dev' must be named after its file "
                                "('gpu'"));
    remove_file(dir, "gpu.yaml");

    /* A bad file names itself. */
    write_file(dir, "b.yml", "schema: 1\nname: other\nkind: tpu\n");
    assert_int_equal(fl_profile_set_load(dir, &s, err, sizeof err), FL_EINVAL);
    assert_non_null(strstr(err, "b.yml:3: kind: unknown kind 'tpu'"));
    remove_file(dir, "b.yml");
    remove_file(dir, "dev.yaml");
    remove_file(dir, "notes.txt");
    remove_file(dir2, "cpu2.yaml");
    rmdir(dir);
    rmdir(dir2);
    free(other);

    fl_profile *p = NULL;
    assert_int_equal(fl_profile_load("/nonexistent/x.yaml", &p, err, sizeof err), FL_EIO);
    assert_non_null(strstr(err, "cannot open '/nonexistent/x.yaml'"));
    assert_int_equal(fl_profile_set_load("/nonexistent", &s, err, sizeof err), FL_EIO);
}

/* No input crashes the loader: truncations, byte flips, anchors and aliases. */
static void test_robust(void **state) {
    (void)state;
    size_t n = strlen(good);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    char err[256];
    unsigned seed = 12345;
    for (size_t cut = 0; cut <= n; cut++) {
        fl_profile *p = NULL;
        (void)fl_profile_parse(good, cut, "t.yaml", &p, err, sizeof err);
        fl_profile_free(p);
    }
    static const char bytes[] = ":-[]{}&*!|>'\"%@`#,? \n\t\0x9";
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, good, n + 1);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            buf[at] = bytes[(seed >> 8) % (sizeof bytes - 1)];
        }
        fl_profile *p = NULL;
        (void)fl_profile_parse(buf, n, "t.yaml", &p, err, sizeof err);
        fl_profile_free(p);
    }
    const char *odd[] = {
        "a: &x [*x]\n",
        ("schema: 1\nname: n\nkind: cpu\ncompute: &c {vector: {fp32: {peak: 1, source: s}}}\n"
         "memory: [{name: m, bandwidth: 1, source: *c}]\n"),
        "? [a, b]\n: c\n",
        "schema: !!binary AAAA\n",
        "%YAML 1.1\n---\nschema: 1\n...\n---\nname: x\n",
        "\xff\xfe\x00\x00",
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        fl_profile *p = NULL;
        fl_status st = fl_profile_parse(odd[i], strlen(odd[i]), "o.yaml", &p, err, sizeof err);
        assert_int_not_equal(st, FL_OK);
        assert_non_null(strstr(err, "o.yaml"));
        fl_profile_free(p);
    }
    free(buf);
}

/* The run's gap (`gap: {share, source}`): a share of kernel time in (0, 1]
 * with its source; anything else is refused naming the file, the line and
 * the field. */
static void test_gap(void **state) {
    (void)state;
    char *y = edit("efficiency:\n", "gap: {share: 0.0595, source: \"fitted\"}\nefficiency:\n");
    fl_profile *p = parse_ok(y);
    free(y);
    assert_true(p->gap.value == 0.0595);
    assert_string_equal(p->gap.source, "fitted");
    fl_profile_free(p);
    p = parse_ok(good); /* absent: 0, no source */
    assert_true(p->gap.value == 0 && !p->gap.source);
    fl_profile_free(p);
    expect_edit_error("efficiency:\n", "gap: {share: -0.05, source: s}\nefficiency:\n",
                      "p.yaml:16: gap.share: must be greater than 0, got '-0.05'");
    expect_edit_error("efficiency:\n", "gap: {share: .nan, source: s}\nefficiency:\n",
                      "p.yaml:16: gap.share: expected a number, got '.nan'");
    expect_edit_error("efficiency:\n", "gap: {share: nan, source: s}\nefficiency:\n",
                      "p.yaml:16: gap.share: expected a number, got 'nan'");
    expect_edit_error("efficiency:\n", "gap: {share: 1.5, source: s}\nefficiency:\n",
                      "p.yaml:16: gap: share: the run's gap as a share of kernel time is at most "
                      "1, got 1.5");
    expect_edit_error("efficiency:\n", "gap: {share: 0.05}\nefficiency:\n",
                      "p.yaml:16: gap: missing 'source'");
    expect_edit_error("efficiency:\n", "gap: {source: s}\nefficiency:\n",
                      "p.yaml:16: gap: missing 'share'");
    expect_edit_error("efficiency:\n", "gap: {share: 0.05, source: s, per: 1}\nefficiency:\n",
                      "gap.per: unknown key (expected share, source)");
    expect_edit_error("efficiency:\n", "gap: 0.05\nefficiency:\n", "p.yaml:16: gap: expected");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),  cmocka_unit_test(test_errors), cmocka_unit_test(test_gap),
        cmocka_unit_test(test_files), cmocka_unit_test(test_robust),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
