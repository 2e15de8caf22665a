/*
 * print.h - the CLI's renderings of an analysis report.
 */
#ifndef FL_CLIENT_PRINT_H
#define FL_CLIENT_PRINT_H

#include "foldline/foldline.h"

#include <stdio.h>

/* The JSON output's schema version (its `schema_version` key): 1 was the
 * unversioned layout of foldline 0.1.0 (counts as integers or strings). */
#define FL_JSON_SCHEMA_VERSION 2

/* The JSON document described in README.md ("JSON output"). */
void fl_print_json(FILE *f, const fl_report *r, const char *model_path);

/* The compact record of --summary: the document's head (versions, graph,
 * completeness, coverage, symbols, totals, options), counts of the lists it
 * leaves out, one line per roofline profile and the before/after totals;
 * a few KB for any model. */
void fl_print_summary(FILE *f, const fl_report *r, const char *model_path);

/* A JSON string literal (quoted and escaped). */
void fl_print_json_str(FILE *f, const char *s);

/* A shape's typed form: [dim, ...], each an integer, a formula string
 * ("x.0", "2*seq") or null (unknown); null for an unknown rank. */
void fl_print_json_dims(FILE *f, int rank, const fl_quantity *dims);

/* The human-readable summary; `top` op types by FLOPs are listed. */
void fl_print_text(FILE *f, const fl_report *r, const char *model_path, size_t top);

/* The rewrite passes' summary (report made with fl_options.passes): before
 * and after totals side by side, then the ledger per pass. */
void fl_print_passes_text(FILE *f, const fl_report *r);

#endif
