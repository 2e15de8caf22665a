/*
 * diffout.h - what `foldline diff` compares and how it prints it (text and
 * --json); shared by diff.c (arguments, analyses, thresholds) and
 * diffout.c (rendering).
 */
#ifndef FL_CLIENT_DIFFOUT_H
#define FL_CLIENT_DIFFOUT_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stdio.h>

/* One --fail-on METRIC:THRESHOLD. */
typedef struct fl_diff_threshold {
    const char *metric;
    const char *spec; /* the threshold as given ("+5%") */
    double amount;    /* >= 0 */
    bool percent;     /* amount is a percentage of the base value */
    bool shrink;      /* "-N%": fails when the value falls by more */
} fl_diff_threshold;

typedef struct fl_diff_args {
    const char *base, *new_model;
    char **opts; /* analyze's options, in order, for both models */
    int n_opts;
    char **binds; /* --bind SYM=N, applied where the model has SYM */
    int n_binds;
    fl_diff_threshold *fails;
    size_t n_fails;
    bool json;
} fl_diff_args;

/* One threshold checked against one metric (time: one per profile). */
typedef struct fl_diff_check {
    const fl_diff_threshold *threshold;
    const char *metric; /* "flops", "time@gpu-a100", ... */
    char *owned_metric; /* metric when built here */
    double base, new_value;
    bool exceeded;
} fl_diff_check;

typedef struct fl_diff_result {
    const char *base_path, *new_path;
    fl_diff_check *checks;
    size_t n_checks;
    bool exceeded; /* some check exceeded its threshold */
} fl_diff_result;

/* Prints the comparison of reports a (BASE) and b (NEW), made with
 * per-node detail; 0, or EXIT_IO when memory runs out. */
int fl_diff_print(FILE *f, const fl_diff_result *res, const fl_report *a, const fl_report *b,
                  bool json);

#endif
