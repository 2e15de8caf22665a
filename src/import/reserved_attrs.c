/*
 * reserved_attrs.c - a GraphDef's (SavedModel's, TF.js model's) nodes
 * without the attrs the engine reserves for itself (src/util/reserved.h),
 * before anything reads them: a file cannot set a loop's trip count, an
 * inlined loop's markers or a body's cost. TensorFlow gives an attr whose
 * name starts with '_' no meaning of its own and accepts it on any node, so
 * these are dropped, not refused, each with a warning naming the node and
 * the attr.
 *
 * One form keeps its markers: a While or StatelessWhile without cond and
 * body attrs, named "W/while" and with _loop "W" - the form funcinline.c
 * lowers a While into and the GraphDef writer writes back, so an optimised
 * graph imports again with its loop. TensorFlow cannot run such a node
 * (cond and body are required), and the trip count is still derived from
 * the graph itself (tf_loop.c), never read from the file.
 */
#include "import/import.h"
#include "tensorflow/graph.pb-c.h"
#include "util/reserved.h"

#include <string.h>

/* Warnings naming a node before one line sums up the rest. */
#define MAX_LISTED 8

typedef struct scan {
    fl_arena *a;
    fl_diag *d;
    size_t dropped;
} scan;

static const Tensorflow__AttrValue *nd_attr(const Tensorflow__NodeDef *nd, const char *key) {
    for (size_t k = 0; k < nd->n_attr; k++) {
        if (nd->attr[k]->key && strcmp(nd->attr[k]->key, key) == 0) {
            return nd->attr[k]->value;
        }
    }
    return NULL;
}

/* nd is a While in the lowered form (see the top). */
static bool lowered_while(const Tensorflow__NodeDef *nd) {
    if (!nd->op || !nd->name ||
        (strcmp(nd->op, "While") != 0 && strcmp(nd->op, "StatelessWhile"))) {
        return false;
    }
    const Tensorflow__AttrValue *loop = nd_attr(nd, "_loop");
    if (nd_attr(nd, "cond") || nd_attr(nd, "body") || !loop ||
        loop->value_case != TENSORFLOW__ATTR_VALUE__VALUE_S) {
        return false;
    }
    size_t n = loop->s.len, len = strlen(nd->name);
    return len == n + strlen("/while") && n > 0 && memcmp(nd->name, loop->s.data, n) == 0 &&
           strcmp(nd->name + n, "/while") == 0;
}

static bool keeps(const char *key, bool lowered) {
    return !fl__attr_reserved(key) || (lowered && fl__attr_loop_marker(key));
}

/* nd, or a copy without its reserved attrs (warned about). */
static fl_status filter_node(scan *s, const char *fn, Tensorflow__NodeDef *nd,
                             Tensorflow__NodeDef **out) {
    *out = nd;
    bool lowered = lowered_while(nd);
    size_t drop = 0;
    for (size_t k = 0; k < nd->n_attr; k++) {
        drop += !keeps(nd->attr[k]->key, lowered);
    }
    if (!drop) {
        return FL_OK;
    }
    Tensorflow__NodeDef *c = fl__arena_alloc(s->a, sizeof *c);
    Tensorflow__NodeDef__AttrEntry **attrs =
        fl__arena_calloc(s->a, nd->n_attr - drop + 1, sizeof *attrs);
    if (!c || !attrs) {
        return fl__diag_oom(s->d);
    }
    *c = *nd;
    c->attr = attrs;
    c->n_attr = 0;
    for (size_t k = 0; k < nd->n_attr; k++) {
        const char *key = nd->attr[k]->key;
        if (keeps(key, lowered)) {
            attrs[c->n_attr++] = nd->attr[k];
        } else if (s->dropped++ < MAX_LISTED) {
            fl__diag_warn(s->d,
                          "%s%s%snode '%s': attr '%s' is reserved for foldline's own use and was "
                          "ignored (field: attr)",
                          fn ? "function '" : "", fn ? fn : "", fn ? "', " : "",
                          nd->name ? nd->name : "", key);
        }
    }
    *out = c;
    return FL_OK;
}

/* nodes[0..n), or a copy with the filtered nodes in place (*out NULL when
 * nothing changed). */
static fl_status filter_nodes(scan *s, const char *fn, Tensorflow__NodeDef **nodes, size_t n,
                              Tensorflow__NodeDef ***out) {
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        Tensorflow__NodeDef *f;
        fl_status st = filter_node(s, fn, nodes[i], &f);
        if (st != FL_OK) {
            return st;
        }
        if (f != nodes[i] && !*out) {
            if (!(*out = fl__arena_calloc(s->a, n + 1, sizeof **out))) {
                return fl__diag_oom(s->d);
            }
            memcpy(*out, nodes, n * sizeof *nodes);
        }
        if (*out) {
            (*out)[i] = f;
        }
    }
    return FL_OK;
}

/* The library with its functions' bodies filtered (*out NULL when nothing
 * changed). */
static fl_status filter_library(scan *s, const Tensorflow__FunctionDefLibrary *lib,
                                Tensorflow__FunctionDefLibrary **out) {
    *out = NULL;
    Tensorflow__FunctionDef **fs = NULL;
    for (size_t i = 0; lib && i < lib->n_function; i++) {
        Tensorflow__FunctionDef *f = lib->function[i];
        const char *name = f->signature && f->signature->name ? f->signature->name : "";
        Tensorflow__NodeDef **nodes;
        fl_status st = filter_nodes(s, name, f->node_def, f->n_node_def, &nodes);
        if (st != FL_OK) {
            return st;
        }
        if (!nodes) {
            continue;
        }
        Tensorflow__FunctionDef *c = fl__arena_alloc(s->a, sizeof *c);
        if (!fs && (fs = fl__arena_calloc(s->a, lib->n_function + 1, sizeof *fs))) {
            memcpy(fs, lib->function, lib->n_function * sizeof *fs);
        }
        if (!c || !fs) {
            return fl__diag_oom(s->d);
        }
        *c = *f;
        c->node_def = nodes;
        fs[i] = c;
    }
    if (fs) {
        if (!(*out = fl__arena_alloc(s->a, sizeof **out))) {
            return fl__diag_oom(s->d);
        }
        **out = *lib;
        (*out)->function = fs;
    }
    return FL_OK;
}

fl_status fl__drop_reserved_attrs(fl_arena *a, const Tensorflow__GraphDef *gd, fl_diag *d,
                                  const Tensorflow__GraphDef **out) {
    *out = gd;
    scan s = {a, d, 0};
    Tensorflow__NodeDef **nodes;
    Tensorflow__FunctionDefLibrary *lib;
    fl_status st = filter_nodes(&s, NULL, gd->node, gd->n_node, &nodes);
    if (st == FL_OK) {
        st = filter_library(&s, gd->library, &lib);
    }
    if (st != FL_OK || (!nodes && !lib)) {
        return st;
    }
    if (s.dropped > MAX_LISTED) {
        fl__diag_warn(d, "%zu reserved attrs ignored in all (the first %d are listed above)",
                      s.dropped, MAX_LISTED);
    }
    Tensorflow__GraphDef *c = fl__arena_alloc(a, sizeof *c);
    if (!c) {
        return fl__diag_oom(d);
    }
    *c = *gd;
    if (nodes) {
        c->node = nodes;
    }
    if (lib) {
        c->library = lib;
    }
    *out = c;
    return FL_OK;
}
