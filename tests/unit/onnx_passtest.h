/*
 * onnx_passtest.h - the rewrite-pass harness of passtest.h for ONNX models
 * built with onnxbuild.h, shared by the ONNX pass suites (test_onnx_passes.c,
 * test_onnx_qdq.c, test_onnx_qdq_prop.c, test_onnx_qdq_nbits.c).
 *
 *     pt_run *r = oxp_run(m, "qdq");   // m packed and freed, the pipeline run
 *     oxp_expect_graph(r, "conv=QLinearConv(xq,s,z,w,ws,wz,s,z); ...");
 *     assert_int_equal(pt_fired(r, "qdq_conv", "conv"), 1);
 *     assert_int_equal(pt_known(r->after.macs), 0);
 *     pt_free(r);
 *
 * The checks of passtest.h (pt_fired, pt_need, pt_out0, pt_known, ...) work
 * on these runs; the graph dump here lists the operators only, as the ONNX
 * model has them.
 */
#ifndef FL_ONNX_PASSTEST_H
#define FL_ONNX_PASSTEST_H

#include "onnxbuild.h"
#include "passtest.h"

#include <stddef.h>

/* Packs m (and frees it), imports it as ONNX, infers and costs it
 * ("before"), then runs the pipeline as `o` says with the verifier on
 * ("after"); asserts success. Release the run with pt_free. */
pt_run *oxp_pipeline(ob_model *m, const pt_opts *o);
/* oxp_pipeline with the pass list `passes` (NULL: the default) and the
 * pipeline's other defaults. */
pt_run *oxp_run(ob_model *m, const char *passes);

/* The operators (not initializers, constants or graph inputs) in
 * topological order, as "name=Op(in,in)" joined by "; "; an input from
 * port p > 0 is "name:p" (kept in r->dump). */
const char *oxp_dump(pt_run *r);
/* Fails, printing both, unless oxp_dump(r) is `want`. */
void oxp_expect_graph(pt_run *r, const char *want);

/* A model and the file name it is written under (NAME.RULE: the model
 * and the rule ONNX Runtime's run of it is compared with). */
typedef struct oxp_named {
    const char *name;
    ob_model *m;
} oxp_named;
/* Writes each model as DIR/NAME.onnx and frees it (the suites' --write DIR,
 * for tests/integration/ort_quantized.sh); 0, or 1 when one could not be
 * written. */
int oxp_write_models(const char *dir, oxp_named *ms, size_t n);

#endif
