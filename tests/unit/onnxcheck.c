/*
 * onnxcheck.c - see onnxcheck.h.
 */
#include "onnxcheck.h"

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ob_model *oc_ms_model(void) {
    ob_model *m = ob_new(17);
    ob_opset(m, "com.microsoft", 1);
    return m;
}

Onnx__NodeProto *oc_ms_node(ob_model *m, const char *op, const char *name, const char *in,
                            const char *out) {
    Onnx__NodeProto *n = ob_node(m, op, name, in, out);
    ob_domain(m, n, "com.microsoft");
    return n;
}

fl_report *oc_run_opts(ob_model *m, fl_options *o, fl_status want) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    o->per_node = true;
    fl_report *r = NULL;
    fl_status st = fl_analyze(buf, len, o, &r);
    free(buf);
    if (st != want) {
        printf("status %d: %s\n", st, r && r->error ? r->error : "?");
    }
    assert_int_equal(st, want);
    return r;
}

fl_report *oc_run(ob_model *m, fl_status want) {
    fl_options o;
    fl_options_init(&o);
    return oc_run_opts(m, &o, want);
}

void oc_expect_error_both(ob_model *m, const char *a, const char *b) {
    fl_report *r = oc_run(m, FL_EINVAL);
    const char *e = r && r->error ? r->error : "(none)";
    if (!strstr(e, a) || (b && !strstr(e, b))) {
        fail_msg("error '%s' lacks '%s'%s%s", e, a, b ? " or " : "", b ? b : "");
    }
    fl_report_free(r);
    ob_free(m);
}

void oc_expect_error(ob_model *m, const char *want) {
    oc_expect_error_both(m, want, NULL);
}

void oc_expect_overflow(ob_model *m, const char *want) {
    fl_report *r = oc_run(m, FL_EOVERFLOW);
    assert_string_equal(r->error, want);
    fl_report_free(r);
    ob_free(m);
}

void oc_expect_shape(ob_model *m, const char *node, const char *shape) {
    fl_report *r = oc_run(m, FL_OK);
    assert_string_equal(oc_node(r, node)->outputs[0].shape, shape);
    fl_report_free(r);
    ob_free(m);
}

const fl_report_node *oc_node(const fl_report *r, const char *name) {
    for (size_t i = 0; i < r->n_nodes_detail; i++) {
        if (strcmp(r->nodes[i].name, name) == 0) {
            return &r->nodes[i];
        }
    }
    fail_msg("no node '%s'", name);
    return NULL;
}

void oc_assert_cost(const fl_report_node *n, int64_t flops, int64_t macs) {
    assert_true(n->flops.known && n->macs.known);
    assert_int_equal(n->flops.value, flops);
    assert_int_equal(n->macs.value, macs);
    assert_true(n->has_rule);
    assert_false(n->incomplete);
}

void oc_assert_int(const fl_report_node *n, int64_t flops, int64_t int_ops) {
    oc_assert_cost(n, flops, 0);
    assert_true(n->int_ops.known);
    assert_int_equal(n->int_ops.value, int_ops);
}
