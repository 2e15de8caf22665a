/*
 * report.h - `foldline report MODEL [analyze options] [--profile NAME|FILE|all]
 * [--sweep SYM=V1,V2,...] -o OUT.html`: one self-contained HTML page
 * (inline SVG, CSS and a little JS; nothing fetched).
 */
#ifndef FL_CLIENT_REPORT_H
#define FL_CLIENT_REPORT_H

#include "analysis.h"
#include "foldline/foldline.h"

#include <stdint.h>
#include <stdio.h>

/* One point of --sweep: the swept symbol's value and that analysis. */
typedef struct fl_sweep_point {
    int64_t value;
    fl_cli_analysis *analysis;
} fl_sweep_point;

typedef struct fl_html_report {
    const char *model;
    const fl_cli_analysis *analysis; /* with per-node detail and the profiles */
    const char *main_binding;        /* with --sweep: "SYM=V1", the charts' binding */
    const char *sweep_symbol;        /* NULL without --sweep */
    const fl_sweep_point *sweep;
    size_t n_sweep;
} fl_html_report;

int fl_cmd_report(int argc, char **argv);

/* Writes the page (reporthtml.c). */
void fl_report_write_html(FILE *f, const fl_html_report *h);

#endif
