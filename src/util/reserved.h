/*
 * reserved.h - the attr names the engine keeps for its own bookkeeping on
 * IR nodes (trip counts, inlined-loop markers, analysed ONNX bodies, TFLite
 * import details). They start with '_', as TensorFlow's internal attrs do,
 * and TensorFlow accepts any '_' attr on a node, so a file may carry one:
 * the importers drop these from what a file says (with a warning naming the
 * node and the attr), so no file can set a trip count or a body's cost.
 *
 * Attrs TensorFlow itself writes (_output_shapes, _class, ...) and
 * _stripped_content_bytes (the documented mark of a constant whose value
 * was stripped) are not reserved: files carry them on purpose.
 */
#ifndef FL_UTIL_RESERVED_H
#define FL_UTIL_RESERVED_H

#include <stdbool.h>
#include <string.h>

/* The markers src/import/funcinline.c puts on a While it lowers: kept from
 * a file only in that lowered form (see src/import/graphdef.c). */
static inline bool fl__attr_loop_marker(const char *name) {
    return strcmp(name, "_loop") == 0 || strcmp(name, "_lowered_cond") == 0 ||
           strcmp(name, "_lowered_body") == 0;
}

/* Attr _trip_form on a lowered TensorFlow While (src/import/tf_loop.c): a
 * counted loop `i CMP limit` whose limit is a loop variable without a
 * constant initial value, as ints {CMP, start, step, the While's input
 * holding the limit}; src/cost/cost.c counts the trips from that input's
 * inferred value. CMP is one of: */
enum fl_trip_cmp { FL_TRIP_LT, FL_TRIP_LE, FL_TRIP_GT, FL_TRIP_GE, FL_TRIP_NE };

/* true when `name` is one of the engine's own attrs. */
static inline bool fl__attr_reserved(const char *name) {
    static const char *const names[] = {
        "_repeat",     "_loop",        "_lowered_cond", "_lowered_body", "_lowered_branches",
        "_body_trips", "_cond_trips",  "_body_out",     "_body_cost",    "_body_key",
        "_body_warn",  "_body_warned", "_dim_names",    "_quantized",    "_output_types",
        "_trip_form",  "_trip_loops",  "_trip_plus",    "_body_nodes",   "_trip_unknown",
    };
    if (!name || name[0] != '_') {
        return false;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* The ONNX importer's own attrs beside a graph attr NAME (NAME.types,
 * NAME.cond_kept: src/import/onnx.c): an ONNX attribute cannot take such a
 * name either. */
static inline bool fl__attr_reserved_suffix(const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    return dot && (strcmp(dot, ".types") == 0 || strcmp(dot, ".cond_kept") == 0);
}

#endif
