/*
 * report.h - building the public report (fl_report) from an analysed graph:
 * graph info, inputs and outputs, totals, coverage and completeness, the
 * per-op summary, per-node detail, warnings and the options echo.
 *
 * Everything is copied into the report's arena `ra`, so the report outlives
 * the analysis. ONNX graphs are described in ONNX terms: their node counts
 * are operators (initializers, graph inputs and the importer's markers are
 * values, not nodes) and their outputs are the declared graph outputs.
 */
#ifndef FL_API_REPORT_H
#define FL_API_REPORT_H

#include "cost/cost.h"
#include "foldline/foldline.h"
#include "ops/ops.h"
#include "shape/infer.h"

/* Fills the report of the graph as analysed (before any pass). */
fl_status fl__report_build(fl_ctx *c, const fl_options *opt, const char *format,
                           const fl_cost_totals *t, const fl_infer_result *ir, fl_arena *ra,
                           fl_report *r);

/* Cost totals as report quantities; the node count as the report counts
 * nodes (operators for ONNX). */
fl_status fl__report_totals(fl_ctx *c, fl_arena *ra, const fl_cost_totals *t, fl_totals *out);

/* Every node of c->g (operators for ONNX) with its shapes and counts. */
fl_status fl__report_nodes(fl_ctx *c, fl_arena *ra, const fl_report_node **out, size_t *n_out);

/* Fills r->options from the options the analysis ran with. */
fl_status fl__report_options(fl_ctx *c, const fl_options *opt, fl_arena *ra, fl_report *r);

#endif
