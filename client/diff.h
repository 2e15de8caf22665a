/*
 * diff.h - `foldline diff BASE NEW`: what changed between two models' costs,
 * and a gate for build systems (--fail-on METRIC:+N%).
 */
#ifndef FL_CLIENT_DIFF_H
#define FL_CLIENT_DIFF_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The metrics --fail-on knows, as listed in its usage error. */
#define FL_DIFF_METRICS                                                                            \
    "flops, macs, int_ops, bytes, bytes_read, bytes_written, params, nodes, time, time@PROFILE "   \
    "(each also as after.METRIC: after the rewrite passes); the LLM view's "                       \
    "prefill.flops_per_token, prefill.macs_per_token, prefill.bytes_per_token, "                   \
    "prefill.time_per_token, prefill.time_per_token@PROFILE and the same for decode (each also "   \
    "as after.METRIC), and kv_bytes_per_token"

/* One side's value of a metric: a known number, or a formula (symbolic). */
typedef struct fl_diff_value {
    bool present; /* false: the report has no such value (e.g. after without passes) */
    bool known;
    double v;         /* when known (counts are exact up to 2^53) */
    const char *text; /* the formula when not known */
} fl_diff_value;

/* A metric of a report by name ("flops", "after.macs", "time@gpu", ...);
 * false when the name is not a metric. */
bool fl_diff_metric(const fl_report *r, const char *metric, fl_diff_value *out);

/* `foldline diff BASE NEW [analyze options] [--fail-on METRIC:+N%]... [--json]`.
 * Exit 0, 1 when a threshold is exceeded (or an analysis failed with a bad
 * model), 2 on usage errors, else as analyze. */
int fl_cmd_diff(int argc, char **argv);

#endif
