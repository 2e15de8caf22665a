/*
 * arity.c - the input-count check every importer applies to a node against
 * its registry row (min_inputs, max_inputs).
 */
#include "import/import.h"
#include "ops/ops.h"

fl_status fl__import_check_arity(fl_diag *d, const fl_node *n, int count, const char *what,
                                 const char *field) {
    const struct fl_op_desc *od = n->desc;
    if (!od || (count >= od->min_inputs && (od->max_inputs < 0 || count <= od->max_inputs))) {
        return FL_OK;
    }
    if (od->max_inputs < 0) {
        return fl__node_fail(d, FL_EINVAL, n, "expects at least %d %s, got %d (field: %s)",
                             od->min_inputs, what, count, field);
    }
    if (od->max_inputs == od->min_inputs) {
        return fl__node_fail(d, FL_EINVAL, n, "expects %d %s, got %d (field: %s)", od->min_inputs,
                             what, count, field);
    }
    return fl__node_fail(d, FL_EINVAL, n, "expects %d to %d %s, got %d (field: %s)", od->min_inputs,
                         od->max_inputs, what, count, field);
}
