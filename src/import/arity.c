/*
 * arity.c - the input-count check every importer applies to a node against
 * its registry row (min_inputs, max_inputs), and the ONNX importer's
 * per-node check for models of the old opsets: the operators whose inputs
 * opsets 1-6 defined otherwise, and the experimental operators of opsets 1-9
 * that are not modelled (named in a warning).
 */
#include "import/import.h"
#include "ops/ops.h"

#include <string.h>

static fl_status check_range(fl_diag *d, const fl_node *n, int count, int lo, int hi,
                             const char *what, const char *field) {
    if (count >= lo && (hi < 0 || count <= hi)) {
        return FL_OK;
    }
    if (hi < 0) {
        return fl__node_fail(d, FL_EINVAL, n, "expects at least %d %s, got %d (field: %s)", lo,
                             what, count, field);
    }
    if (hi == lo) {
        return fl__node_fail(d, FL_EINVAL, n, "expects %d %s, got %d (field: %s)", lo, what, count,
                             field);
    }
    return fl__node_fail(d, FL_EINVAL, n, "expects %d to %d %s, got %d (field: %s)", lo, hi, what,
                         count, field);
}

fl_status fl__import_check_arity(fl_diag *d, const fl_node *n, int count, const char *what,
                                 const char *field) {
    const struct fl_op_desc *od = n->desc;
    return od ? check_range(d, n, count, od->min_inputs, od->max_inputs, what, field) : FL_OK;
}

/* ai.onnx operators whose input count changed: before opset `before` the
 * node takes lo .. hi inputs (their hooks read that form). */
static const struct {
    int kind;
    int64_t before;
    int lo, hi;
} onnx_legacy[] = {
    {FL_OP_ONNX_RESHAPE, 5, 1, 1}, /* Reshape-1: attr shape */
    {FL_OP_ONNX_TILE, 6, 3, 3},    /* Tile-1: input, tiles, axis */
};

/* ONNX's experimental operators that foldline does not model (their
 * outputs stay unknown): GivenTensorFill (its dtype is not defined without
 * an input), GRUUnit, ATen (any ATen op), FC (its W layout is described two
 * ways). The other experimental ops have rows (legacy.def). */
static void warn_experimental(fl_diag *d, const fl_node *n, const char *domain, int64_t opset) {
    static const char *const ops[] = {"GivenTensorFill", "GRUUnit", "ATen", "FC"};
    if (n->kind != FL_OP_UNKNOWN || opset < 1 || opset > 9 || !n->op ||
        (domain && *domain && strcmp(domain, "ai.onnx") != 0)) {
        return;
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            fl__diag_warn(d,
                          "node '%s' (%s): ONNX's experimental %s-1 (ai.onnx opset %lld) is not "
                          "modelled: its outputs have unknown shapes and it counts 0 FLOPs",
                          n->name ? n->name : "", n->op, n->op, (long long)opset);
            return;
        }
    }
}

fl_status fl__import_check_onnx_node(fl_diag *d, const fl_node *n, const char *domain,
                                     int64_t opset, int count) {
    warn_experimental(d, n, domain, opset);
    for (size_t i = 0; i < sizeof onnx_legacy / sizeof onnx_legacy[0]; i++) {
        if (n->kind == onnx_legacy[i].kind && opset >= 1 && opset < onnx_legacy[i].before) {
            return check_range(d, n, count, onnx_legacy[i].lo, onnx_legacy[i].hi, "inputs",
                               "input");
        }
    }
    return fl__import_check_arity(d, n, count, "inputs", "input");
}
