/*
 * onnxcheck.h - running and checking small ONNX models built with onnxbuild
 * in the ONNX op-family tests (test_onnx_ops, test_onnx_ms, test_onnx_mha, ...).
 */
#ifndef FL_TEST_ONNXCHECK_H
#define FL_TEST_ONNXCHECK_H

#include "foldline/foldline.h"
#include "onnxbuild.h"

#include <stdint.h>

/* A model at opset 17 that imports com.microsoft opset 1. */
ob_model *oc_ms_model(void);

/* A com.microsoft node (ob_node's arguments). */
Onnx__NodeProto *oc_ms_node(ob_model *m, const char *op, const char *name, const char *in,
                            const char *out);

/* Packs m, analyses it with per-node detail and asserts the status is
 * `want` (printing the error otherwise). The caller frees the report. */
fl_report *oc_run(ob_model *m, fl_status want);
/* oc_run with options o (per_node set on). */
fl_report *oc_run_opts(ob_model *m, fl_options *o, fl_status want);

/* Analyses m, which must fail with FL_EINVAL, and fails the test unless the
 * error contains `want`; frees the report and m. */
void oc_expect_error(ob_model *m, const char *want);
/* m fails with FL_EOVERFLOW and exactly the error `want`; frees m. */
void oc_expect_overflow(ob_model *m, const char *want);
/* m analyses, and node `node`'s output 0 has exactly the shape `shape`
 * (as the report prints it, e.g. "[2,?,8]"); frees m. */
void oc_expect_shape(ob_model *m, const char *node, const char *shape);
/* oc_expect_error for an error that must contain both a and b. */
void oc_expect_error_both(ob_model *m, const char *a, const char *b);

/* The per-node entry called `name`; fails the test when absent. */
const fl_report_node *oc_node(const fl_report *r, const char *name);

/* Asserts n has a rule, is complete, and counts exactly flops and macs. */
void oc_assert_cost(const fl_report_node *n, int64_t flops, int64_t macs);

/* Asserts n has a rule, is complete, counts 0 MACs, exactly flops FLOPs and
 * int_ops integer operations. */
void oc_assert_int(const fl_report_node *n, int64_t flops, int64_t int_ops);

#endif
