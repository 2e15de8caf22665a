/*
 * profile.c - loads and validates device profiles (YAML, through libyaml).
 *
 * The file is loaded as a libyaml document (a node tree with line marks) and
 * walked against the schema documented in README.md. Every key is checked:
 * an unknown or repeated key, a missing required field, a number that is not
 * positive and finite, a figure without a `source` are errors naming
 * PATH:LINE and the field's dotted path ("compute.matrix.fp16.peak"). The
 * walker only descends the schema's fixed depth, so no input (aliases,
 * recursive anchors, deep nesting) can make it loop or recurse unboundedly.
 */
#include "cost/profile.h"

#include "util/arena.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

const char *const fl__profile_kinds[] = {"cpu", "gpu", "mobile-cpu", "mobile-gpu", "npu", NULL};

static const char *const prec_names[FL_PREC_COUNT] = {"fp32", "fp16", "bf16", "int8"};
static const char *const unit_names[FL_UNIT_COUNT] = {"vector", "matrix"};
static const char *const class_names[FL_CLASS_COUNT] = {
    "matmul", "conv",    "depthwise", "elementwise",   "reduction",
    "other",  "pooling", "softmax",   "normalization", "data_movement"};

const char *fl_precision_name(fl_precision p) {
    return (unsigned)p < FL_PREC_COUNT ? prec_names[p] : "?";
}

const char *fl_unit_name(fl_unit u) {
    return (unsigned)u < FL_UNIT_COUNT ? unit_names[u] : "?";
}

const char *fl_op_class_name(fl_op_class c) {
    return (unsigned)c < FL_CLASS_COUNT ? class_names[c] : "?";
}

/* ------------------------------------------------------------------------- */
/* Walker                                                                     */
/* ------------------------------------------------------------------------- */

typedef struct pctx {
    yaml_document_t *doc;
    const char *path;
    char *err;
    size_t errlen;
    fl_arena *a;
} pctx;

static fl_status fail(pctx *p, const yaml_node_t *n, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static fl_status fail(pctx *p, const yaml_node_t *n, const char *field, const char *fmt, ...) {
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = n ? n->start_mark.line + 1 : 1;
    if (field && *field) {
        snprintf(p->err, p->errlen, "%s:%zu: %s: %s", p->path, line, field, msg);
    } else {
        snprintf(p->err, p->errlen, "%s:%zu: %s", p->path, line, msg);
    }
    return FL_EINVAL;
}

static const char *kind_name(const yaml_node_t *n) {
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

static fl_status want_type(pctx *p, const yaml_node_t *n, yaml_node_type_t t, const char *field) {
    if (!n) {
        return fail(p, NULL, field, "missing value");
    }
    if (n->type != t) {
        const char *want = t == YAML_MAPPING_NODE    ? "a mapping"
                           : t == YAML_SEQUENCE_NODE ? "a list"
                                                     : "a scalar";
        return fail(p, n, field, "expected %s, got %s", want, kind_name(n));
    }
    return FL_OK;
}

/* The scalar's text, NUL-terminated in the arena. */
static fl_status scalar(pctx *p, const yaml_node_t *n, const char *field, const char **out) {
    fl_status st = want_type(p, n, YAML_SCALAR_NODE, field);
    if (st != FL_OK) {
        return st;
    }
    *out = fl__arena_strndup(p->a, (const char *)n->data.scalar.value, n->data.scalar.length);
    if (!*out) {
        snprintf(p->err, p->errlen, "%s: out of memory", p->path);
        return FL_ENOMEM;
    }
    if (strlen(*out) != n->data.scalar.length) {
        return fail(p, n, field, "contains a NUL character");
    }
    return FL_OK;
}

static fl_status nonempty(pctx *p, const yaml_node_t *n, const char *field, const char **out) {
    fl_status st = scalar(p, n, field, out);
    if (st == FL_OK && !**out) {
        return fail(p, n, field, "must not be empty");
    }
    return st;
}

/* A finite number > 0 (or >= 0 with allow_zero). */
static fl_status number(pctx *p, const yaml_node_t *n, const char *field, double *out) {
    const char *s;
    fl_status st = scalar(p, n, field, &s);
    if (st != FL_OK) {
        return st;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) {
        return fail(p, n, field, "expected a number, got '%.40s'", s);
    }
    if (!(v > 0)) {
        return fail(p, n, field, "must be greater than 0, got '%.40s'", s);
    }
    *out = v;
    return FL_OK;
}

static yaml_node_t *node_at(pctx *p, int id) {
    return yaml_document_get_node(p->doc, id);
}

/* Iterates a mapping: calls fn(key text, value node) for each pair; rejects
 * non-scalar and repeated keys. */
typedef fl_status (*pair_fn)(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                             const char *field, void *ctx);

static fl_status each_pair(pctx *p, yaml_node_t *map, const char *field, pair_fn fn, void *ctx) {
    fl_status st = want_type(p, map, YAML_MAPPING_NODE, field);
    if (st != FL_OK) {
        return st;
    }
    for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top;
         a++) {
        yaml_node_t *kn = node_at(p, a->key), *vn = node_at(p, a->value);
        const char *key;
        if ((st = scalar(p, kn, field, &key)) != FL_OK) {
            return st;
        }
        for (yaml_node_pair_t *b = map->data.mapping.pairs.start; b < a; b++) {
            yaml_node_t *k2 = node_at(p, b->key);
            if (k2 && k2->type == YAML_SCALAR_NODE && k2->data.scalar.length == strlen(key) &&
                memcmp(k2->data.scalar.value, key, strlen(key)) == 0) {
                return fail(p, kn, field, "key '%s' appears twice", key);
            }
        }
        char sub[256];
        if (snprintf(sub, sizeof sub, "%s%s%s", field, *field ? "." : "", key) >= (int)sizeof sub) {
            sub[sizeof sub - 2] = '~'; /* a field path this long is only cut in messages */
        }
        if (!vn) {
            return fail(p, kn, sub, "missing value");
        }
        if ((st = fn(p, key, kn, vn, sub, ctx)) != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static int lookup(const char *const *names, int n, const char *key) {
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], key) == 0) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------- */
/* Sections                                                                   */
/* ------------------------------------------------------------------------- */

/* {peak|seconds: N, source: S} into a figure. */
typedef struct figure_ctx {
    const char *value_key;
    fl_figure *fig;
    bool have_value;
} figure_ctx;

static fl_status figure_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                             const char *field, void *vctx) {
    figure_ctx *fc = vctx;
    if (strcmp(key, fc->value_key) == 0) {
        fc->have_value = true;
        return number(p, vn, field, &fc->fig->value);
    }
    if (strcmp(key, "source") == 0) {
        return nonempty(p, vn, field, &fc->fig->source);
    }
    return fail(p, kn, field, "unknown key (expected %s, source)", fc->value_key);
}

static fl_status figure(pctx *p, yaml_node_t *n, const char *field, const char *value_key,
                        fl_figure *out) {
    figure_ctx fc = {value_key, out, false};
    out->value = 0;
    out->source = NULL;
    fl_status st = each_pair(p, n, field, figure_pair, &fc);
    if (st != FL_OK) {
        return st;
    }
    if (!fc.have_value) {
        return fail(p, n, field, "missing '%s'", value_key);
    }
    if (!out->source) {
        return fail(p, n, field, "missing 'source' (every figure names where it comes from)");
    }
    return FL_OK;
}

static fl_status dtype_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                            const char *field, void *ctx) {
    fl_figure *row = ctx;
    int d = lookup(prec_names, FL_PREC_COUNT, key);
    if (d < 0) {
        return fail(p, kn, field, "unknown dtype (expected fp32, fp16, bf16 or int8)");
    }
    return figure(p, vn, field, "peak", &row[d]);
}

static fl_status unit_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                           const char *field, void *ctx) {
    fl_profile *pr = ctx;
    int u = lookup(unit_names, FL_UNIT_COUNT, key);
    if (u < 0) {
        return fail(p, kn, field, "unknown unit class (expected vector or matrix)");
    }
    return each_pair(p, vn, field, dtype_pair, pr->peak[u]);
}

typedef struct level_ctx {
    fl_mem_level *lv;
    bool have_bw;
} level_ctx;

static fl_status level_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                            const char *field, void *vctx) {
    level_ctx *lc = vctx;
    if (strcmp(key, "name") == 0) {
        return nonempty(p, vn, field, &lc->lv->name);
    }
    if (strcmp(key, "bandwidth") == 0) {
        lc->have_bw = true;
        return number(p, vn, field, &lc->lv->bandwidth);
    }
    if (strcmp(key, "capacity") == 0) {
        return number(p, vn, field, &lc->lv->capacity);
    }
    if (strcmp(key, "source") == 0) {
        return nonempty(p, vn, field, &lc->lv->source);
    }
    return fail(p, kn, field, "unknown key (expected name, bandwidth, capacity, source)");
}

static fl_status memory(pctx *p, yaml_node_t *n, const char *field, fl_profile *pr) {
    fl_status st = want_type(p, n, YAML_SEQUENCE_NODE, field);
    if (st != FL_OK) {
        return st;
    }
    size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (cnt == 0) {
        return fail(p, n, field, "needs at least one level (main memory)");
    }
    if (cnt > 16) {
        return fail(p, n, field, "at most 16 levels, got %zu", cnt);
    }
    fl_mem_level *lv = fl__arena_calloc(p->a, cnt, sizeof(*lv));
    if (!lv) {
        snprintf(p->err, p->errlen, "%s: out of memory", p->path);
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < cnt; i++) {
        yaml_node_t *item = node_at(p, n->data.sequence.items.start[i]);
        char sub[256];
        if (snprintf(sub, sizeof sub, "%s[%zu]", field, i) >= (int)sizeof sub) {
            sub[sizeof sub - 2] = '~'; /* a field path this long is only cut in messages */
        }
        level_ctx lc = {&lv[i], false};
        if ((st = each_pair(p, item, sub, level_pair, &lc)) != FL_OK) {
            return st;
        }
        if (!lv[i].name) {
            return fail(p, item, sub, "missing 'name'");
        }
        if (!lc.have_bw) {
            return fail(p, item, sub, "missing 'bandwidth' (bytes/s)");
        }
        if (!lv[i].source) {
            return fail(p, item, sub, "missing 'source' (every figure names where it comes from)");
        }
        if (i + 1 < cnt && lv[i].capacity == 0) {
            return fail(p, item, sub,
                        "missing 'capacity' (bytes; only the last level, main memory, may omit "
                        "it)");
        }
        if (i > 0 && lv[i].capacity != 0 && lv[i].capacity <= lv[i - 1].capacity) {
            return fail(p, item, sub,
                        "capacity must be larger than the previous level's (levels go from "
                        "fastest to main memory)");
        }
        for (size_t k = 0; k < i; k++) {
            if (strcmp(lv[k].name, lv[i].name) == 0) {
                return fail(p, item, sub, "level name '%s' appears twice", lv[i].name);
            }
        }
    }
    pr->levels = lv;
    pr->n_levels = cnt;
    return FL_OK;
}

/* A finite number >= 0. */
static fl_status nonneg(pctx *p, yaml_node_t *n, const char *field, double *out) {
    const char *s;
    fl_status st = scalar(p, n, field, &s);
    if (st != FL_OK) {
        return st;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0) {
        return fail(p, n, field, "expected a number >= 0, got '%.40s'", s);
    }
    *out = v;
    return FL_OK;
}

static fl_status eff_value(pctx *p, yaml_node_t *vn, const char *field, double *out) {
    fl_status st = number(p, vn, field, out);
    if (st == FL_OK && *out > 1.0) {
        return fail(p, vn, field, "an efficiency is a fraction of peak in (0, 1], got %g", *out);
    }
    return st;
}

/* One bucket: compute, memory, fixed, upto, samples, residual, source. */
typedef struct bucket_ctx {
    fl_eff_bucket *b;
    bool any, table; /* table: a bucket of a `buckets` list (upto, samples allowed) */
} bucket_ctx;

static fl_status bucket_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                             const char *field, void *vctx) {
    bucket_ctx *bc = vctx;
    if (strcmp(key, "compute") == 0 || strcmp(key, "memory") == 0) {
        bc->any = true;
        return eff_value(p, vn, field, key[0] == 'c' ? &bc->b->compute : &bc->b->memory);
    }
    if (strcmp(key, "fixed") == 0) {
        bc->any = true;
        return nonneg(p, vn, field, &bc->b->fixed_s);
    }
    if (strcmp(key, "per_channel") == 0) {
        bc->any = true;
        return nonneg(p, vn, field, &bc->b->per_channel_s);
    }
    if (strcmp(key, "broadcast") == 0) {
        bc->any = true;
        return nonneg(p, vn, field, &bc->b->broadcast_s);
    }
    if (strcmp(key, "source") == 0) {
        return nonempty(p, vn, field, &bc->b->source);
    }
    if (bc->table && strcmp(key, "upto") == 0) {
        return number(p, vn, field, &bc->b->upto);
    }
    if (bc->table && (strcmp(key, "samples") == 0 || strcmp(key, "residual") == 0)) {
        return nonneg(p, vn, field, key[0] == 's' ? &bc->b->samples : &bc->b->residual);
    }
    return fail(p, kn, field,
                bc->table ? "unknown key (expected upto, compute, memory, fixed, per_channel, "
                            "broadcast, samples, residual, source)"
                          : "unknown key (expected compute, memory, fixed, per_channel, "
                            "broadcast, source; or by and buckets)");
}

static fl_status bucket(pctx *p, yaml_node_t *n, const char *field, bool table, fl_eff_bucket *b) {
    b->compute = b->memory = 1.0;
    bucket_ctx bc = {b, false, table};
    fl_status st = each_pair(p, n, field, bucket_pair, &bc);
    if (st != FL_OK) {
        return st;
    }
    if (!bc.any) {
        return fail(p, n, field,
                    "needs 'compute', 'memory', 'fixed', 'per_channel' or 'broadcast'");
    }
    if (!b->source) {
        return fail(p, n, field, "missing 'source' (every figure names where it comes from)");
    }
    return FL_OK;
}

/* The table form: {by: flops|bytes, buckets: [{upto, ...}, ..., {...}]}. */
typedef struct table_ctx {
    fl_eff_table *t;
    bool have_by;
    yaml_node_t *buckets;
    const char *bfield;
} table_ctx;

static fl_status table_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                            const char *field, void *vctx) {
    table_ctx *tc = vctx;
    if (strcmp(key, "by") == 0) {
        const char *s;
        fl_status st = scalar(p, vn, field, &s);
        if (st != FL_OK) {
            return st;
        }
        if (strcmp(s, "flops") != 0 && strcmp(s, "bytes") != 0) {
            return fail(p, vn, field, "expected flops or bytes, got '%.20s'", s);
        }
        tc->t->by = s[1] == 'l' ? FL_SIZE_FLOPS : FL_SIZE_BYTES;
        tc->have_by = true;
        return FL_OK;
    }
    if (strcmp(key, "buckets") == 0) {
        tc->buckets = vn;
        tc->bfield = fl__arena_strdup(p->a, field);
        return want_type(p, vn, YAML_SEQUENCE_NODE, field);
    }
    return fail(p, kn, field, "unknown key (expected by, buckets)");
}

static fl_status table(pctx *p, yaml_node_t *n, const char *field, fl_eff_table *t) {
    table_ctx tc = {t, false, NULL, NULL};
    fl_status st = each_pair(p, n, field, table_pair, &tc);
    if (st != FL_OK) {
        return st;
    }
    if (!tc.have_by || !tc.buckets) {
        return fail(p, n, field, "a bucketed table needs 'by' (flops or bytes) and 'buckets'");
    }
    yaml_node_t *l = tc.buckets;
    size_t cnt = (size_t)(l->data.sequence.items.top - l->data.sequence.items.start);
    if (cnt == 0 || cnt > 64) {
        return fail(p, l, tc.bfield, "needs 1 to 64 buckets, got %zu", cnt);
    }
    fl_eff_bucket *bs = fl__arena_calloc(p->a, cnt, sizeof(*bs));
    if (!bs) {
        snprintf(p->err, p->errlen, "%s: out of memory", p->path);
        return FL_ENOMEM;
    }
    for (size_t i = 0; i < cnt; i++) {
        yaml_node_t *item = node_at(p, l->data.sequence.items.start[i]);
        char sub[300];
        snprintf(sub, sizeof sub, "%s[%zu]", tc.bfield ? tc.bfield : field, i);
        if ((st = bucket(p, item, sub, true, &bs[i])) != FL_OK) {
            return st;
        }
        if (i + 1 < cnt && bs[i].upto == 0) {
            return fail(p, item, sub, "missing 'upto' (only the last bucket is open-ended)");
        }
        if (i + 1 == cnt && bs[i].upto != 0) {
            return fail(p, item, sub, "the last bucket has no 'upto' (it takes every larger op)");
        }
        if (i > 0 && i + 1 < cnt && bs[i].upto <= bs[i - 1].upto) {
            return fail(p, item, sub, "'upto' must grow from bucket to bucket");
        }
    }
    t->buckets = bs;
    t->n_buckets = cnt;
    return FL_OK;
}

static bool has_key(yaml_document_t *doc, yaml_node_t *map, const char *key) {
    if (!map || map->type != YAML_MAPPING_NODE) {
        return false;
    }
    for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top;
         a++) {
        yaml_node_t *k = yaml_document_get_node(doc, a->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(key) &&
            memcmp(k->data.scalar.value, key, strlen(key)) == 0) {
            return true;
        }
    }
    return false;
}

static fl_status class_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                            const char *field, void *ctx) {
    fl_profile *pr = ctx;
    int c = lookup(class_names, FL_CLASS_COUNT, key);
    if (c < 0) {
        return fail(p, kn, field,
                    "unknown op class (expected matmul, conv, depthwise, elementwise, reduction, "
                    "normalization, pooling, softmax, data_movement or other)");
    }
    pr->calibrated = true;
    if (has_key(p->doc, vn, "buckets") || has_key(p->doc, vn, "by")) {
        return table(p, vn, field, &pr->table[c]);
    }
    /* The one-bucket form. */
    fl_eff_bucket *b = fl__arena_calloc(p->a, 1, sizeof(*b));
    if (!b) {
        snprintf(p->err, p->errlen, "%s: out of memory", p->path);
        return FL_ENOMEM;
    }
    fl_status st = bucket(p, vn, field, false, b);
    if (st != FL_OK) {
        return st;
    }
    pr->table[c].by = FL_SIZE_FLOPS;
    pr->table[c].buckets = b;
    pr->table[c].n_buckets = 1;
    pr->efficiency[c].compute = b->compute;
    pr->efficiency[c].memory = b->memory;
    pr->efficiency[c].source = b->source;
    return FL_OK;
}

/* interval: {low, high, coverage, source}. */
static fl_status interval_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                               const char *field, void *ctx) {
    fl_interval *iv = ctx;
    if (strcmp(key, "low") == 0) {
        return number(p, vn, field, &iv->low);
    }
    if (strcmp(key, "high") == 0) {
        return number(p, vn, field, &iv->high);
    }
    if (strcmp(key, "coverage") == 0) {
        return number(p, vn, field, &iv->coverage);
    }
    if (strcmp(key, "source") == 0) {
        return nonempty(p, vn, field, &iv->source);
    }
    return fail(p, kn, field, "unknown key (expected low, high, coverage, source)");
}

static fl_status interval(pctx *p, yaml_node_t *n, const char *field, fl_interval *iv) {
    fl_status st = each_pair(p, n, field, interval_pair, iv);
    if (st != FL_OK) {
        return st;
    }
    if (iv->low == 0 || iv->high == 0 || iv->coverage == 0 || !iv->source) {
        return fail(p, n, field, "needs low, high, coverage and source");
    }
    if (iv->low > 1 || iv->high < 1 || iv->coverage >= 1) {
        return fail(p, n, field,
                    "low and high multiply the estimate (low <= 1 <= high); coverage is a "
                    "fraction below 1");
    }
    return FL_OK;
}

enum {
    K_SCHEMA,
    K_NAME,
    K_KIND,
    K_DESC,
    K_COMPUTE,
    K_MEMORY,
    K_OVERHEAD,
    K_EFF,
    K_IV,
    K_STREAMED,
    K_GAP,
    K_COUNT
};
static const char *const top_keys[K_COUNT] = {"schema",   "name",     "kind",     "description",
                                              "compute",  "memory",   "overhead", "efficiency",
                                              "interval", "streamed", "gap"};

typedef struct top_ctx {
    fl_profile *pr;
    bool seen[K_COUNT];
} top_ctx;

static bool valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 64) {
        return false;
    }
    for (const char *c = s; *c; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.';
        if (!ok) {
            return false;
        }
    }
    return strcmp(s, "all") != 0;
}

static fl_status top_pair(pctx *p, const char *key, yaml_node_t *kn, yaml_node_t *vn,
                          const char *field, void *vctx) {
    top_ctx *tc = vctx;
    fl_profile *pr = tc->pr;
    int k = lookup(top_keys, K_COUNT, key);
    if (k < 0) {
        return fail(p, kn, field,
                    "unknown key (expected schema, name, kind, description, compute, memory, "
                    "overhead, efficiency, interval, streamed, gap)");
    }
    tc->seen[k] = true;
    fl_status st;
    const char *s;
    switch (k) {
    case K_SCHEMA:
        if ((st = scalar(p, vn, field, &s)) != FL_OK) {
            return st;
        }
        if (strcmp(s, "1") != 0) {
            return fail(p, vn, field, "unsupported schema version '%.20s' (this foldline reads 1)",
                        s);
        }
        return FL_OK;
    case K_NAME:
        if ((st = nonempty(p, vn, field, &pr->name)) != FL_OK) {
            return st;
        }
        if (!valid_name(pr->name)) {
            return fail(p, vn, field,
                        "'%.64s' is not a valid name (1-64 of A-Z a-z 0-9 . _ -, not 'all')",
                        pr->name);
        }
        return FL_OK;
    case K_KIND:
        if ((st = nonempty(p, vn, field, &pr->kind)) != FL_OK) {
            return st;
        }
        for (int i = 0; fl__profile_kinds[i]; i++) {
            if (strcmp(pr->kind, fl__profile_kinds[i]) == 0) {
                return FL_OK;
            }
        }
        return fail(p, vn, field,
                    "unknown kind '%.32s' (expected cpu, gpu, mobile-cpu, mobile-gpu or npu)",
                    pr->kind);
    case K_DESC:
        return scalar(p, vn, field, &pr->description);
    case K_COMPUTE:
        return each_pair(p, vn, field, unit_pair, pr);
    case K_MEMORY:
        return memory(p, vn, field, pr);
    case K_OVERHEAD:
        return figure(p, vn, field, "seconds", &pr->overhead);
    case K_IV:
        return interval(p, vn, field, &pr->interval);
    case K_STREAMED:
        return figure(p, vn, field, "seconds_per_byte", &pr->streamed);
    case K_GAP:
        st = figure(p, vn, field, "share", &pr->gap);
        if (st == FL_OK && pr->gap.value > 1) {
            return fail(p, vn, field,
                        "share: the run's gap as a share of kernel time is at most 1, got %g",
                        pr->gap.value);
        }
        return st;
    default:
        return each_pair(p, vn, field, class_pair, pr);
    }
}

static fl_status walk(pctx *p, fl_profile *pr) {
    yaml_node_t *root = yaml_document_get_root_node(p->doc);
    if (!root) {
        return fail(p, NULL, "", "empty document: expected a profile mapping");
    }
    top_ctx tc = {pr, {false}};
    fl_status st = each_pair(p, root, "", top_pair, &tc);
    if (st != FL_OK) {
        return st;
    }
    static const int required[] = {K_SCHEMA, K_NAME, K_KIND, K_COMPUTE, K_MEMORY};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!tc.seen[required[i]]) {
            return fail(p, root, top_keys[required[i]], "missing (required)");
        }
    }
    if (pr->peak[FL_UNIT_VECTOR][FL_PREC_FP32].value == 0) {
        return fail(p, root, "compute.vector.fp32",
                    "missing (required: every profile gives its vector FP32 peak)");
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Public entry points                                                        */
/* ------------------------------------------------------------------------- */

/* A parsed profile and the memory it owns: fl_profile_parse hands out
 * &block->profile, fl_profile_free releases the block. The public struct
 * carries no pointer to it. */
typedef struct profile_block {
    fl_profile profile; /* first: a profile's address is its block's */
    fl_arena arena;     /* its strings, levels and tables */
} profile_block;

fl_status fl_profile_parse(const char *text, size_t len, const char *path, fl_profile **out,
                           char *err, size_t errlen) {
    char dummy[8];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    *out = NULL;
    if (!path) {
        path = "<profile>";
    }
    profile_block *blk = calloc(1, sizeof(*blk));
    if (!blk) {
        snprintf(err, errlen, "%s: out of memory", path);
        return FL_ENOMEM;
    }
    fl_arena *a = &blk->arena;
    fl__arena_init(a, 0);
    fl_profile *pr = &blk->profile;
    pr->path = fl__arena_strdup(a, path);
    pr->description = "";
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        pr->efficiency[c].compute = 1.0;
        pr->efficiency[c].memory = 1.0;
    }

    yaml_parser_t parser;
    yaml_document_t doc;
    fl_status st = FL_OK;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: out of memory", path);
        fl_profile_free(pr);
        return FL_ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "%s:%zu: YAML syntax error: %s%s%s", path,
                 parser.problem_mark.line + 1, parser.problem ? parser.problem : "unknown",
                 parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        fl_profile_free(pr);
        return FL_EINVAL;
    }
    pctx p = {&doc, path, err, errlen, a};
    st = walk(&p, pr);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (st == FL_OK && (!pr->path || a->failed)) {
        snprintf(err, errlen, "%s: out of memory", path);
        st = FL_ENOMEM;
    }
    if (st != FL_OK) {
        fl_profile_free(pr);
        return st;
    }
    *out = pr;
    return FL_OK;
}

fl_status fl_profile_load(const char *path, fl_profile **out, char *err, size_t errlen) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return FL_EIO;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= ((size_t)16 << 20)) {
                snprintf(err, errlen, "%s: larger than 16 MiB: not a profile", path);
                free(buf);
                fclose(f);
                return FL_EINVAL;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            break;
        }
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        return FL_ENOMEM;
    }
    if (bad) {
        snprintf(err, errlen, "cannot read '%s'", path);
        free(buf);
        return FL_EIO;
    }
    fl_status st = fl_profile_parse(buf, n, path, out, err, errlen);
    free(buf);
    return st;
}

void fl_profile_free(fl_profile *p) {
    if (!p) {
        return;
    }
    profile_block *blk = (profile_block *)p; /* the profile is the block's first member */
    fl__arena_free(&blk->arena);
    free(blk);
}

static int str_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool yaml_name(const char *s) {
    size_t n = strlen(s);
    if (s[0] == '.') {
        return false;
    }
    return (n > 5 && strcmp(s + n - 5, ".yaml") == 0) || (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

/* The file name without its directory and .yaml/.yml extension. */
static void file_stem(const char *path, char *out, size_t size) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0) {
        n -= 5;
    } else if (n > 4 && strcmp(base + n - 4, ".yml") == 0) {
        n -= 4;
    }
    snprintf(out, size, "%.*s", (int)n, base);
}

fl_status fl_profile_set_add(fl_profile_set *s, fl_profile *p, char *err, size_t errlen) {
    const fl_profile *dup = fl_profile_set_find(s, p->name);
    if (dup) {
        snprintf(err, errlen, "%s: name: profile '%s' is also defined in %s", p->path, p->name,
                 dup->path);
        return FL_EINVAL;
    }
    fl_profile **np = realloc(s->profiles, (s->n + 1) * sizeof(*np));
    if (!np) {
        snprintf(err, errlen, "%s: out of memory", p->path);
        return FL_ENOMEM;
    }
    s->profiles = np;
    /* Kept sorted by name. */
    size_t k = s->n;
    while (k > 0 && strcmp(np[k - 1]->name, p->name) > 0) {
        np[k] = np[k - 1];
        k--;
    }
    np[k] = p;
    s->n++;
    return FL_OK;
}

/* The sorted *.yaml / *.yml file names of `dir` (NULL-terminated in *out). */
static fl_status list_dir(const char *dir, char ***out, size_t *count, char *err, size_t errlen) {
    *out = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open profiles directory '%s': %s", dir, strerror(errno));
        return FL_EIO;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    fl_status st = FL_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!yaml_name(e->d_name)) {
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nn = realloc(names, nc * sizeof(char *));
            if (!nn) {
                st = FL_ENOMEM;
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) {
            st = FL_ENOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (st != FL_OK) {
        for (size_t i = 0; i < n; i++) {
            free(names[i]);
        }
        free(names);
        snprintf(err, errlen, "out of memory loading profiles from '%s'", dir);
        return st;
    }
    if (n) {
        qsort(names, n, sizeof(char *), str_cmp);
    }
    *out = names;
    *count = n;
    return FL_OK;
}

/* Removes the profiles of `drop` (n of them) from s and frees them. */
static void set_drop(fl_profile_set *s, fl_profile **drop, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        bool gone = false;
        for (size_t j = 0; j < n && !gone; j++) {
            gone = s->profiles[i] == drop[j];
        }
        if (gone) {
            fl_profile_free(s->profiles[i]);
        } else {
            s->profiles[k++] = s->profiles[i];
        }
    }
    s->n = k;
}

/* Loads dir/name into s, checking that the profile is named after its file. */
static fl_status add_file(fl_profile_set *s, const char *dir, const char *name, fl_profile **added,
                          char *err, size_t errlen) {
    *added = NULL;
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    if (!path) {
        snprintf(err, errlen, "out of memory loading profiles from '%s'", dir);
        return FL_ENOMEM;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    fl_profile *p = NULL;
    fl_status st = fl_profile_load(path, &p, err, errlen);
    if (st == FL_OK) {
        char stem[256];
        file_stem(path, stem, sizeof stem);
        if (strcmp(stem, p->name) != 0) {
            snprintf(err, errlen,
                     "%s: name: profile '%s' must be named after its file ('%s': --profile "
                     "selects profiles by file name)",
                     path, p->name, stem);
            st = FL_EINVAL;
        } else {
            st = fl_profile_set_add(s, p, err, errlen);
        }
        if (st != FL_OK) {
            fl_profile_free(p);
        } else {
            *added = p;
        }
    }
    free(path);
    return st;
}

fl_status fl_profile_set_add_dir(fl_profile_set *s, const char *dir, char *err, size_t errlen) {
    char **names;
    size_t n;
    fl_status st = list_dir(dir, &names, &n, err, errlen);
    if (st != FL_OK) {
        return st;
    }
    fl_profile **added = calloc(n + 1, sizeof(*added));
    if (!added) {
        snprintf(err, errlen, "out of memory loading profiles from '%s'", dir);
        st = FL_ENOMEM;
    }
    size_t n_added = 0;
    for (size_t i = 0; i < n && st == FL_OK; i++) {
        st = add_file(s, dir, names[i], &added[n_added], err, errlen);
        n_added += st == FL_OK;
    }
    if (st != FL_OK && added) { /* the set as it was */
        set_drop(s, added, n_added);
    }
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    free(added);
    return st;
}

fl_status fl_profile_set_load(const char *dir, fl_profile_set *out, char *err, size_t errlen) {
    out->n = 0;
    out->profiles = NULL;
    fl_status st = fl_profile_set_add_dir(out, dir, err, errlen);
    if (st != FL_OK) {
        fl_profile_set_free(out);
    }
    return st;
}

const fl_profile *fl_profile_set_find(const fl_profile_set *s, const char *name) {
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->profiles[i]->name, name) == 0) {
            return s->profiles[i];
        }
    }
    return NULL;
}

void fl_profile_set_free(fl_profile_set *s) {
    for (size_t i = 0; i < s->n; i++) {
        fl_profile_free(s->profiles[i]);
    }
    free(s->profiles);
    s->profiles = NULL;
    s->n = 0;
}
