/*
 * funcinline.c - calls of library functions replaced by their bodies, as
 * Grappler's function optimizer inlines them, so their outputs get shapes and
 * their nodes a cost; see import.h.
 *
 * A call is a PartitionedCall or StatefulPartitionedCall whose attr `f` names
 * a function of the library, or a node whose op is a library function's
 * name. Call C of function F becomes:
 *  - per input arg A: an Identity "C/A" reading the call's input (the call's
 *    control inputs go to every one of them);
 *  - per body node N: "C/N", its inputs renamed: an arg A is "C/A"; an output
 *    "N:ARG:K" is "C/N:P", P being the flat port of output arg ARG's K-th
 *    tensor (ops with several output args: the table below; a function's
 *    from its signature; any other op has one output arg, P = K);
 *  - an IdentityN "C" over the function's returns in signature order (attr T
 *    from them), with the control returns as control inputs, so consumers of
 *    "C:K" and "^C" read the body.
 * Calls inside inlined bodies are inlined in turn, at most MAX_DEPTH deep (a
 * function that calls itself stops there). A call is left as it is, with a
 * warning naming it, when its function takes attrs (a body with attr
 * placeholders), has list-valued args, names an output this file cannot
 * place, or a new name would collide with an existing node. If and
 * StatelessIf are lowered to Switch/Merge around calls of their branches
 * (lower_if), so both branches are inlined and costed as a v1 cond; Case
 * alike with one branch per function (lower_case); While and
 * StatelessWhile keep their node, their cond and body inlined on the loop
 * variables beside it (lower_while; src/import/tf_loop.c counts the trips
 * of a counted loop).
 */
#include "import/import.h"
#include "import/pbutil.h"
#include "tensorflow/graph.pb-c.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16

/* Output args of ops with more than one (all single tensors). */
typedef struct out_args {
    const char *op;
    const char *names[6];
} out_args;

static const out_args multi_out[] = {
    {"Switch", {"output_false", "output_true"}},
    {"RefSwitch", {"output_false", "output_true"}},
    {"Merge", {"output", "value_index"}},
    {"RefMerge", {"output", "value_index"}},
    {"FusedBatchNorm", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
    {"FusedBatchNormV2",
     {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
    {"FusedBatchNormV3",
     {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
      "reserve_space_3"}},
    {"_FusedBatchNormEx",
     {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
      "reserve_space_3"}},
    {"Unique", {"y", "idx"}},
    {"UniqueV2", {"y", "idx"}},
    {"UniqueWithCounts", {"y", "idx", "count"}},
    {"TopK", {"values", "indices"}},
    {"TopKV2", {"values", "indices"}},
    {"QuantizeV2", {"output", "output_min", "output_max"}},
    {"MaxPoolWithArgmax", {"output", "argmax"}},
    {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
    {"NonMaxSuppressionV5", {"selected_indices", "selected_scores", "valid_outputs"}},
    {"Svd", {"s", "u", "v"}},
    {"Qr", {"q", "r"}},
    {"BroadcastGradientArgs", {"r0", "r1"}},
    {"SparseSegmentSumWithNumSegments", {"output"}},
};

typedef struct inl {
    fl_arena *a;
    fl_diag *d;
    const Tensorflow__FunctionDefLibrary *lib;
    int64_t max_nodes;
    /* Node names in use: open addressing over arena strings. */
    const char **names;
    size_t names_cap, names_n;
    /* The graph being built. */
    Tensorflow__NodeDef **nodes;
    size_t n_nodes, cap_nodes;
    size_t inlined, skipped;
} inl;

static bool name_used(const inl *x, const char *s) {
    if (!x->names_cap) {
        return false;
    }
    for (size_t i = fl__hash_str(s) & (x->names_cap - 1); x->names[i];
         i = (i + 1) & (x->names_cap - 1)) {
        if (strcmp(x->names[i], s) == 0) {
            return true;
        }
    }
    return false;
}

static fl_status name_add(inl *x, const char *s) {
    if (2 * (x->names_n + 1) > x->names_cap) {
        size_t cap = x->names_cap ? 2 * x->names_cap : 1024;
        const char **nn = fl__arena_calloc(x->a, cap, sizeof(char *));
        if (!nn) {
            return fl__diag_oom(x->d);
        }
        for (size_t i = 0; i < x->names_cap; i++) {
            if (x->names[i]) {
                size_t j = fl__hash_str(x->names[i]) & (cap - 1);
                while (nn[j]) {
                    j = (j + 1) & (cap - 1);
                }
                nn[j] = x->names[i];
            }
        }
        x->names = nn;
        x->names_cap = cap;
    }
    size_t i = fl__hash_str(s) & (x->names_cap - 1);
    while (x->names[i]) {
        i = (i + 1) & (x->names_cap - 1);
    }
    x->names[i] = s;
    x->names_n++;
    return FL_OK;
}

static fl_status push(inl *x, Tensorflow__NodeDef *nd) {
    if ((int64_t)x->n_nodes >= x->max_nodes) {
        return fl__diag_fail(x->d, FL_ELIMIT,
                             "graph has more than %lld nodes with its function calls inlined "
                             "(field: library)",
                             (long long)x->max_nodes);
    }
    if (x->n_nodes == x->cap_nodes) {
        size_t cap = x->cap_nodes ? 2 * x->cap_nodes : 64;
        Tensorflow__NodeDef **v = fl__arena_grow(x->a, x->nodes, x->n_nodes, cap, sizeof(*v));
        if (!v) {
            return fl__diag_oom(x->d);
        }
        x->nodes = v;
        x->cap_nodes = cap;
    }
    x->nodes[x->n_nodes++] = nd;
    return FL_OK;
}

static const Tensorflow__FunctionDef *find_fn(const inl *x, const char *name) {
    if (!x->lib || !name) {
        return NULL;
    }
    for (size_t i = 0; i < x->lib->n_function; i++) {
        const Tensorflow__FunctionDef *f = x->lib->function[i];
        if (f->signature && f->signature->name && strcmp(f->signature->name, name) == 0) {
            return f;
        }
    }
    return NULL;
}

static const Tensorflow__AttrValue *node_attr(const Tensorflow__NodeDef *nd, const char *key) {
    for (size_t k = 0; k < nd->n_attr; k++) {
        if (nd->attr[k]->key && strcmp(nd->attr[k]->key, key) == 0) {
            return nd->attr[k]->value;
        }
    }
    return NULL;
}

/* The function node nd calls, or NULL. */
static const Tensorflow__FunctionDef *called(const inl *x, const Tensorflow__NodeDef *nd) {
    if (nd->op && (strcmp(nd->op, "PartitionedCall") == 0 ||
                   strcmp(nd->op, "StatefulPartitionedCall") == 0)) {
        const Tensorflow__AttrValue *f = node_attr(nd, "f");
        if (f && f->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && f->func) {
            return find_fn(x, f->func->name);
        }
        return NULL;
    }
    return find_fn(x, nd->op);
}

/* Why F cannot be inlined here (NULL: it can). */
static const char *not_inlinable(const inl *x, const Tensorflow__FunctionDef *f) {
    const Tensorflow__OpDef *s = f->signature;
    if (s->n_attr) {
        return "the function takes attrs";
    }
    for (size_t i = 0; i < s->n_input_arg + s->n_output_arg; i++) {
        const Tensorflow__OpDef__ArgDef *a =
            i < s->n_input_arg ? s->input_arg[i] : s->output_arg[i - s->n_input_arg];
        if ((a->number_attr && a->number_attr[0]) || (a->type_list_attr && a->type_list_attr[0]) ||
            !a->name || !a->name[0]) {
            return "an argument is a list or unnamed";
        }
    }
    for (size_t i = 0; i < f->n_node_def; i++) {
        const Tensorflow__NodeDef *nd = f->node_def[i];
        if (!nd->name || !nd->name[0] || !nd->op || !nd->op[0]) {
            return "a body node has no name or op";
        }
        for (size_t k = 0; k < nd->n_attr; k++) {
            const Tensorflow__AttrValue *v = nd->attr[k]->value;
            if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER) {
                return "a body node's attr is a placeholder";
            }
        }
    }
    (void)x;
    return NULL;
}

/* Flat output port of output arg `arg`, tensor k, of body node nd; -1 when
 * it cannot be placed. */
static long out_port(const inl *x, const Tensorflow__NodeDef *nd, const char *arg, long k) {
    const Tensorflow__FunctionDef *f = called(x, nd);
    if (f) {
        for (size_t i = 0; i < f->signature->n_output_arg; i++) {
            if (strcmp(f->signature->output_arg[i]->name, arg) == 0) {
                return k == 0 ? (long)i : -1;
            }
        }
        return -1;
    }
    for (size_t t = 0; t < sizeof multi_out / sizeof multi_out[0]; t++) {
        if (strcmp(multi_out[t].op, nd->op) != 0) {
            continue;
        }
        for (int i = 0; i < 6 && multi_out[t].names[i]; i++) {
            if (strcmp(multi_out[t].names[i], arg) == 0) {
                return k == 0 ? i : -1;
            }
        }
        return -1;
    }
    return k;
}

typedef struct body {
    const char *prefix; /* "C/" */
    const Tensorflow__FunctionDef *f;
} body;

static const Tensorflow__NodeDef *body_node(const body *b, const char *name, size_t len) {
    for (size_t i = 0; i < b->f->n_node_def; i++) {
        const char *nm = b->f->node_def[i]->name;
        if (strlen(nm) == len && strncmp(nm, name, len) == 0) {
            return b->f->node_def[i];
        }
    }
    return NULL;
}

static bool is_arg(const body *b, const char *name, size_t len) {
    const Tensorflow__OpDef *s = b->f->signature;
    for (size_t i = 0; i < s->n_input_arg; i++) {
        if (strlen(s->input_arg[i]->name) == len &&
            strncmp(s->input_arg[i]->name, name, len) == 0) {
            return true;
        }
    }
    return false;
}

/* A body input string ("arg", "node:out:k", "^node") in graph terms; NULL
 * (with *why) when it names nothing this can place. */
static char *rename_input(const inl *x, const body *b, const char *in, const char **why) {
    bool ctrl = in[0] == '^';
    const char *s = in + ctrl;
    const char *c1 = strchr(s, ':');
    size_t len = c1 ? (size_t)(c1 - s) : strlen(s);
    if (!c1) {
        if (!is_arg(b, s, len) && !body_node(b, s, len)) {
            *why = "an input names neither an argument nor a body node";
            return NULL;
        }
        return fl__arena_printf(x->a, "%s%s%s", ctrl ? "^" : "", b->prefix, s);
    }
    const Tensorflow__NodeDef *src = body_node(b, s, len);
    const char *c2 = strchr(c1 + 1, ':');
    if (ctrl || !src || !c2 || !c2[1]) {
        *why = "an input is not of the form node:output:index";
        return NULL;
    }
    char arg[256];
    size_t al = (size_t)(c2 - c1 - 1);
    if (al >= sizeof arg) {
        *why = "an output arg name is too long";
        return NULL;
    }
    memcpy(arg, c1 + 1, al);
    arg[al] = '\0';
    char *end;
    long k = strtol(c2 + 1, &end, 10);
    long port = *end || k < 0 || k > 65535 ? -1 : out_port(x, src, arg, k);
    if (port < 0) {
        *why = "an input names an output this importer cannot place";
        return NULL;
    }
    return fl__arena_printf(x->a, "%s%.*s:%ld", b->prefix, (int)len, s, port);
}

static Tensorflow__NodeDef *new_node(inl *x, const char *name, const char *op, size_t n_in) {
    Tensorflow__NodeDef *nd = fl__arena_zalloc(x->a, sizeof(*nd));
    char **in = fl__arena_calloc(x->a, n_in + 1, sizeof(char *));
    if (!nd || !in || !name) {
        return NULL;
    }
    tensorflow__node_def__init(nd);
    nd->name = (char *)name;
    nd->op = (char *)op;
    nd->input = in;
    return nd;
}

/* attr `key` := type or list(type). */
static Tensorflow__NodeDef__AttrEntry *type_attr(inl *x, const char *key, const int *types,
                                                 size_t n, bool list) {
    Tensorflow__NodeDef__AttrEntry *e = fl__arena_zalloc(x->a, sizeof(*e));
    Tensorflow__AttrValue *v = fl__arena_zalloc(x->a, sizeof(*v));
    if (!e || !v) {
        return NULL;
    }
    tensorflow__node_def__attr_entry__init(e);
    tensorflow__attr_value__init(v);
    e->key = (char *)key;
    e->value = v;
    if (!list) {
        v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
        v->type = (Tensorflow__DataType)types[0];
        return e;
    }
    Tensorflow__AttrValue__ListValue *l = fl__arena_zalloc(x->a, sizeof(*l));
    Tensorflow__DataType *t = fl__arena_calloc(x->a, n + 1, sizeof(*t));
    if (!l || !t) {
        return NULL;
    }
    tensorflow__attr_value__list_value__init(l);
    for (size_t i = 0; i < n; i++) {
        t[i] = (Tensorflow__DataType)types[i];
    }
    l->n_type = n;
    l->type = t;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    v->list = l;
    return e;
}

static fl_status with_attr(inl *x, Tensorflow__NodeDef *nd, Tensorflow__NodeDef__AttrEntry *e) {
    Tensorflow__NodeDef__AttrEntry **v = fl__arena_calloc(x->a, 2, sizeof(*v));
    if (!e || !v) {
        return fl__diag_oom(x->d);
    }
    v[0] = e;
    nd->attr = v;
    nd->n_attr = 1;
    return FL_OK;
}

/* Whether every name call C's expansion makes ("C/A", "C/N") is free. */
static bool names_free(const inl *x, const body *b) {
    const Tensorflow__OpDef *s = b->f->signature;
    char buf[1024];
    for (size_t i = 0; i < s->n_input_arg + b->f->n_node_def; i++) {
        const char *nm =
            i < s->n_input_arg ? s->input_arg[i]->name : b->f->node_def[i - s->n_input_arg]->name;
        if ((size_t)snprintf(buf, sizeof buf, "%s%s", b->prefix, nm) >= sizeof buf ||
            name_used(x, buf)) {
            return false;
        }
    }
    return true;
}

/* The input Identities "C/A" of call nd. */
static fl_status push_args(inl *x, const body *b, const Tensorflow__NodeDef *nd, size_t n_data) {
    const Tensorflow__OpDef *s = b->f->signature;
    for (size_t i = 0; i < s->n_input_arg; i++) {
        Tensorflow__NodeDef *id =
            new_node(x, fl__arena_printf(x->a, "%s%s", b->prefix, s->input_arg[i]->name),
                     "Identity", 1 + nd->n_input - n_data);
        if (!id) {
            return fl__diag_oom(x->d);
        }
        id->input[id->n_input++] = nd->input[i];
        for (size_t k = n_data; k < nd->n_input; k++) {
            id->input[id->n_input++] = nd->input[k];
        }
        id->device = nd->device;
        int t = (int)s->input_arg[i]->type;
        fl_status st = with_attr(x, id, type_attr(x, "T", &t, 1, false));
        if (st == FL_OK) {
            st = push(x, id);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* The body nodes "C/N", inputs renamed. *why set when one cannot be. */
static fl_status push_body(inl *x, const body *b, const char **why) {
    for (size_t i = 0; i < b->f->n_node_def && !*why; i++) {
        const Tensorflow__NodeDef *src = b->f->node_def[i];
        Tensorflow__NodeDef *nd = fl__arena_zalloc(x->a, sizeof(*nd));
        char **in = fl__arena_calloc(x->a, src->n_input + 1, sizeof(char *));
        if (!nd || !in) {
            return fl__diag_oom(x->d);
        }
        *nd = *src;
        nd->name = fl__arena_printf(x->a, "%s%s", b->prefix, src->name);
        nd->input = in;
        for (size_t k = 0; k < src->n_input && !*why; k++) {
            in[k] = rename_input(x, b, src->input[k] ? src->input[k] : "", why);
            if (!in[k] && !*why) {
                return fl__diag_oom(x->d);
            }
        }
        if (!nd->name) {
            return fl__diag_oom(x->d);
        }
        fl_status st = *why ? FL_OK : push(x, nd);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static const char *ret_of(const Tensorflow__FunctionDef *f, const char *arg) {
    for (size_t i = 0; i < f->n_ret; i++) {
        if (f->ret[i]->key && strcmp(f->ret[i]->key, arg) == 0) {
            return f->ret[i]->value;
        }
    }
    return NULL;
}

/* Whether a body node or a return reads argument `arg` (a body names an
 * argument by its bare name, "arg" or "^arg"). */
static bool arg_read(const body *b, const char *arg) {
    for (size_t i = 0; i < b->f->n_node_def; i++) {
        const Tensorflow__NodeDef *nd = b->f->node_def[i];
        for (size_t k = 0; k < nd->n_input; k++) {
            const char *in = nd->input[k] ? nd->input[k] : "";
            if (strcmp(in + (in[0] == '^'), arg) == 0) {
                return true;
            }
        }
    }
    for (size_t i = 0; i < b->f->n_ret; i++) {
        if (b->f->ret[i]->value && strcmp(b->f->ret[i]->value, arg) == 0) {
            return true;
        }
    }
    return false;
}

/* The IdentityN "C" over the returns, the control returns as control
 * inputs, and a control input on each argument Identity "C/A" nothing in
 * the body reads: the call consumed its input, so the Identity standing
 * for it is consumed too, not left as an output of the graph. */
static fl_status push_rets(inl *x, const body *b, const Tensorflow__NodeDef *call,
                           const char **why) {
    const Tensorflow__OpDef *s = b->f->signature;
    Tensorflow__NodeDef *id = new_node(x, call->name, "IdentityN",
                                       s->n_output_arg + b->f->n_control_ret + s->n_input_arg);
    int *types = fl__arena_calloc(x->a, s->n_output_arg + 1, sizeof(int));
    if (!id || !types) {
        return fl__diag_oom(x->d);
    }
    id->device = call->device;
    for (size_t i = 0; i < s->n_output_arg; i++) {
        const char *r = ret_of(b->f, s->output_arg[i]->name);
        if (!r) {
            *why = "an output arg has no return value";
            return FL_OK;
        }
        char *in = rename_input(x, b, r, why);
        if (!in) {
            return *why ? FL_OK : fl__diag_oom(x->d);
        }
        id->input[id->n_input++] = in;
        types[i] = (int)s->output_arg[i]->type;
    }
    for (size_t i = 0; i < b->f->n_control_ret; i++) {
        const char *v = b->f->control_ret[i]->value;
        if (!v || !body_node(b, v, strlen(v))) {
            *why = "a control return names no body node";
            return FL_OK;
        }
        id->input[id->n_input++] = fl__arena_printf(x->a, "^%s%s", b->prefix, v);
    }
    for (size_t i = 0; i < s->n_input_arg; i++) {
        if (!arg_read(b, s->input_arg[i]->name) &&
            !(id->input[id->n_input++] =
                  fl__arena_printf(x->a, "^%s%s", b->prefix, s->input_arg[i]->name))) {
            return fl__diag_oom(x->d);
        }
    }
    fl_status st = with_attr(x, id, type_attr(x, "T", types, s->n_output_arg, true));
    return st == FL_OK ? push(x, id) : st;
}

static size_t data_inputs(const Tensorflow__NodeDef *nd) {
    size_t n = 0;
    while (n < nd->n_input && nd->input[n] && nd->input[n][0] != '^') {
        n++;
    }
    return n;
}

/* Appends call nd expanded (or nd itself, with a warning, when it cannot be). */
static fl_status expand(inl *x, const Tensorflow__NodeDef *nd, const Tensorflow__FunctionDef *f) {
    body b = {fl__arena_printf(x->a, "%s/", nd->name), f};
    if (!b.prefix) {
        return fl__diag_oom(x->d);
    }
    const char *why = not_inlinable(x, f);
    size_t n_data = data_inputs(nd);
    if (!why && n_data != f->signature->n_input_arg) {
        why = "the call's input count differs from the function's";
    }
    if (!why && !names_free(x, &b)) {
        why = "a body node's new name is taken";
    }
    size_t n0 = x->n_nodes;
    fl_status st = FL_OK;
    if (!why && (st = push_args(x, &b, nd, n_data)) == FL_OK &&
        (st = push_body(x, &b, &why)) == FL_OK && !why) {
        st = push_rets(x, &b, nd, &why);
    }
    if (st != FL_OK) {
        return st;
    }
    if (why) {
        x->n_nodes = n0;
        x->skipped++;
        fl__diag_warn(x->d,
                      "node '%s' calls function '%s', which is not inlined (%s): its outputs "
                      "have no shapes and its body is not costed",
                      nd->name, f->signature->name, why);
        return push(x, (Tensorflow__NodeDef *)nd);
    }
    for (size_t i = n0; i < x->n_nodes; i++) {
        if (strcmp(x->nodes[i]->name, nd->name) != 0 &&
            (st = name_add(x, x->nodes[i]->name)) != FL_OK) {
            return st;
        }
    }
    x->inlined++;
    return FL_OK;
}

/* Attr entry `key` := v (shared). */
static Tensorflow__NodeDef__AttrEntry *entry(inl *x, const char *key, Tensorflow__AttrValue *v) {
    Tensorflow__NodeDef__AttrEntry *e = fl__arena_zalloc(x->a, sizeof(*e));
    if (e && v) {
        tensorflow__node_def__attr_entry__init(e);
        e->key = (char *)key;
        e->value = v;
    }
    return e && v ? e : NULL;
}

/* Node `name` (op, inputs in[0..n), the If's control inputs after them,
 * attrs e[0..ne)) pushed and its name taken. */
static fl_status push_lowered(inl *x, const Tensorflow__NodeDef *nd, const char *name,
                              const char *op, const char *const *in, size_t n,
                              Tensorflow__NodeDef__AttrEntry **e, size_t ne) {
    size_t n_data = data_inputs(nd);
    Tensorflow__NodeDef *l = new_node(x, name, op, n + nd->n_input - n_data);
    Tensorflow__NodeDef__AttrEntry **attrs = fl__arena_calloc(x->a, ne + 1, sizeof(*attrs));
    if (!l || !attrs || !in[0]) {
        return fl__diag_oom(x->d);
    }
    for (size_t i = 0; i < n; i++) {
        l->input[l->n_input++] = (char *)in[i];
    }
    for (size_t k = n_data; k < nd->n_input; k++) {
        l->input[l->n_input++] = nd->input[k];
    }
    for (size_t i = 0; i < ne; i++) {
        if (!e[i]) {
            return fl__diag_oom(x->d);
        }
        attrs[i] = e[i];
    }
    l->attr = attrs;
    l->n_attr = ne;
    l->device = nd->device;
    fl_status st = push(x, l);
    return st == FL_OK ? name_add(x, name) : st;
}

/* If / StatelessIf C(cond, in_0..in_n-1) lowered as TensorFlow's
 * LowerFunctionalOpsPass lowers it: "C/switch_J" = Switch(in_J, cond), a
 * PartitionedCall "C/then" of then_branch on the Switches' true outputs
 * and "C/else" of else_branch on their false outputs (both inlined next),
 * "C/merge_K" = Merge(C/then:K, C/else:K) per output and an IdentityN "C"
 * over the Merges. The cond analysis (src/cost/cond.c) then counts both
 * branches with its warning. *done false (nothing pushed) when the node
 * does not have that form (no data input, a branch not in the library, a
 * name taken). */
static fl_status lower_if(inl *x, const Tensorflow__NodeDef *nd, bool *done) {
    *done = false;
    const Tensorflow__AttrValue *tb = node_attr(nd, "then_branch");
    const Tensorflow__AttrValue *eb = node_attr(nd, "else_branch");
    const Tensorflow__AttrValue *tin = node_attr(nd, "Tin"), *tout = node_attr(nd, "Tout");
    size_t n_data = data_inputs(nd);
    if (!tb || !eb || !tin || !tout || tb->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC ||
        eb->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC || !tb->func || !eb->func ||
        !find_fn(x, tb->func->name) || !find_fn(x, eb->func->name) ||
        tin->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST ||
        tout->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !tin->list || !tout->list ||
        n_data < 2 || tin->list->n_type != n_data - 1 || tout->list->n_type == 0) {
        return FL_OK;
    }
    size_t n_in = n_data - 1, n_out = tout->list->n_type;
    char buf[1024];
    for (size_t i = 0; i < n_in + n_out + 2; i++) {
        if (i < n_in + n_out) {
            snprintf(buf, sizeof buf, "%s/%s_%zu", nd->name, i < n_in ? "switch" : "merge",
                     i < n_in ? i : i - n_in);
        } else {
            snprintf(buf, sizeof buf, "%s/%s", nd->name, i == n_in + n_out ? "then" : "else");
        }
        if (name_used(x, buf)) {
            return FL_OK;
        }
    }
    const char **then_in = fl__arena_calloc(x->a, n_in + 1, sizeof(char *));
    const char **else_in = fl__arena_calloc(x->a, n_in + 1, sizeof(char *));
    if (!then_in || !else_in) {
        return fl__diag_oom(x->d);
    }
    fl_status st = FL_OK;
    for (size_t j = 0; j < n_in && st == FL_OK; j++) {
        const char *sw = fl__arena_printf(x->a, "%s/switch_%zu", nd->name, j);
        int t = (int)tin->list->type[j];
        Tensorflow__NodeDef__AttrEntry *e[1] = {type_attr(x, "T", &t, 1, false)};
        st = push_lowered(x, nd, sw, "Switch", (const char *[]){nd->input[1 + j], nd->input[0]}, 2,
                          e, 1);
        then_in[j] = fl__arena_printf(x->a, "%s:1", sw);
        else_in[j] = sw;
    }
    const char *side[2] = {"then", "else"};
    for (int b = 0; b < 2 && st == FL_OK; b++) {
        Tensorflow__NodeDef__AttrEntry *e[3] = {
            entry(x, "f", (Tensorflow__AttrValue *)(b ? eb : tb)),
            entry(x, "Tin", (Tensorflow__AttrValue *)tin),
            entry(x, "Tout", (Tensorflow__AttrValue *)tout)};
        st = push_lowered(x, nd, fl__arena_printf(x->a, "%s/%s", nd->name, side[b]),
                          "PartitionedCall", b ? else_in : then_in, n_in, e, 3);
    }
    const char **merged = fl__arena_calloc(x->a, n_out + 1, sizeof(char *));
    Tensorflow__AttrValue *two = fl__arena_zalloc(x->a, sizeof(*two));
    if (!merged || !two) {
        return fl__diag_oom(x->d);
    }
    tensorflow__attr_value__init(two);
    two->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
    two->i = 2;
    for (size_t k = 0; k < n_out && st == FL_OK; k++) {
        merged[k] = fl__arena_printf(x->a, "%s/merge_%zu", nd->name, k);
        int t = (int)tout->list->type[k];
        Tensorflow__NodeDef__AttrEntry *e[2] = {type_attr(x, "T", &t, 1, false),
                                                entry(x, "N", two)};
        const char *in[2] = {fl__arena_printf(x->a, "%s/then:%zu", nd->name, k),
                             fl__arena_printf(x->a, "%s/else:%zu", nd->name, k)};
        st = in[1] ? push_lowered(x, nd, merged[k], "Merge", in, 2, e, 2) : fl__diag_oom(x->d);
    }
    if (st != FL_OK) {
        return st;
    }
    Tensorflow__NodeDef__AttrEntry *e[1] = {entry(x, "T", (Tensorflow__AttrValue *)tout)};
    Tensorflow__NodeDef *idn = new_node(x, nd->name, "IdentityN", n_out);
    Tensorflow__NodeDef__AttrEntry **attrs = fl__arena_calloc(x->a, 2, sizeof(*attrs));
    if (!idn || !attrs || !e[0]) {
        return fl__diag_oom(x->d);
    }
    for (size_t k = 0; k < n_out; k++) {
        idn->input[idn->n_input++] = (char *)merged[k];
    }
    attrs[0] = e[0];
    idn->attr = attrs;
    idn->n_attr = 1;
    idn->device = nd->device;
    *done = true;
    x->inlined++;
    return push(x, idn);
}

/* A string attr entry `key` := s (borrowed). */
static Tensorflow__NodeDef__AttrEntry *str_attr(inl *x, const char *key, const char *s) {
    Tensorflow__AttrValue *v = fl__arena_zalloc(x->a, sizeof(*v));
    if (!v) {
        return NULL;
    }
    tensorflow__attr_value__init(v);
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
    v->s.data = (uint8_t *)s;
    v->s.len = strlen(s);
    return entry(x, key, v);
}

/* nd again, its attrs `drop` (NULL-terminated) left out (the functions
 * now called by calls of their own, so the library no longer counts them
 * as left uncosted) and attrs add[0..n_add) added. */
static fl_status push_kept(inl *x, const Tensorflow__NodeDef *nd, const char *const *drop,
                           Tensorflow__NodeDef__AttrEntry **add, size_t n_add) {
    Tensorflow__NodeDef *k = new_node(x, nd->name, nd->op, nd->n_input);
    Tensorflow__NodeDef__AttrEntry **attrs =
        fl__arena_calloc(x->a, nd->n_attr + n_add + 1, sizeof(*attrs));
    if (!k || !attrs) {
        return fl__diag_oom(x->d);
    }
    for (size_t i = 0; i < nd->n_input; i++) {
        k->input[k->n_input++] = nd->input[i];
    }
    for (size_t i = 0; i < nd->n_attr; i++) {
        const char *key = nd->attr[i]->key ? nd->attr[i]->key : "";
        bool keep = true;
        for (size_t j = 0; drop[j]; j++) {
            keep = keep && strcmp(key, drop[j]) != 0;
        }
        if (keep) {
            attrs[k->n_attr++] = nd->attr[i];
        }
    }
    for (size_t i = 0; i < n_add; i++) {
        if (!add[i]) {
            return fl__diag_oom(x->d);
        }
        attrs[k->n_attr++] = add[i];
    }
    k->attr = attrs;
    k->device = nd->device;
    return push(x, k);
}

/* While / StatelessWhile W(in_0..in_n-1) becomes:
 *   "W/while"  the While itself (attrs cond and body left out, so the
 *              library does not count them as uncosted; _loop = "W",
 *              _lowered_cond and _lowered_body name the functions): its
 *              outputs keep TensorFlow's While shape rule (output_shapes,
 *              else the inputs' shapes) and no value;
 *   "W/cond"   a PartitionedCall of cond (Tout bool) and "W/body" of body on
 *              W/while's outputs (inlined next): the loop variables as the
 *              body sees them, typed and without values, so nothing of the
 *              first iteration's values is folded into the body;
 *   "W"        an IdentityN over W/while's outputs, with control inputs on
 *              the two calls, so the consumers of W read the loop's result
 *              and the bodies are no graph outputs.
 * src/import/tf_loop.c derives the trip count of a counted loop; the cost
 * model counts the body that many times (else once, with a warning). *done
 * false (nothing pushed) when the node does not have that form. */
static fl_status lower_while(inl *x, const Tensorflow__NodeDef *nd, bool *done) {
    *done = false;
    const Tensorflow__AttrValue *cb = node_attr(nd, "cond"), *bb = node_attr(nd, "body");
    const Tensorflow__AttrValue *t = node_attr(nd, "T");
    size_t n_data = data_inputs(nd);
    if (!cb || !bb || !t || cb->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC ||
        bb->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC || !cb->func || !bb->func ||
        !find_fn(x, cb->func->name) || !find_fn(x, bb->func->name) ||
        t->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !t->list || n_data == 0 ||
        t->list->n_type != n_data) {
        return FL_OK;
    }
    const char *calls[3] = {fl__arena_printf(x->a, "%s/cond", nd->name),
                            fl__arena_printf(x->a, "%s/body", nd->name),
                            fl__arena_printf(x->a, "%s/while", nd->name)};
    const char **vars = fl__arena_calloc(x->a, n_data + 2, sizeof(char *));
    if (!calls[0] || !calls[1] || !calls[2] || !vars) {
        return fl__diag_oom(x->d);
    }
    if (name_used(x, calls[0]) || name_used(x, calls[1]) || name_used(x, calls[2])) {
        return FL_OK;
    }
    for (size_t k = 0; k < n_data; k++) {
        if (!(vars[k] = fl__arena_printf(x->a, "%s:%zu", calls[2], k))) {
            return fl__diag_oom(x->d);
        }
    }
    Tensorflow__NodeDef__AttrEntry *add[3] = {str_attr(x, "_loop", nd->name),
                                              str_attr(x, "_lowered_cond", cb->func->name),
                                              str_attr(x, "_lowered_body", bb->func->name)};
    Tensorflow__NodeDef w = *nd;
    w.name = (char *)calls[2];
    fl_status st = push_kept(x, &w, (const char *const[]){"cond", "body", NULL}, add, 3);
    if (st == FL_OK) {
        st = name_add(x, calls[2]);
    }
    int dt_bool = TENSORFLOW__DATA_TYPE__DT_BOOL;
    for (int b = 0; b < 2 && st == FL_OK; b++) {
        Tensorflow__NodeDef__AttrEntry *e[3] = {
            entry(x, "f", (Tensorflow__AttrValue *)(b ? bb : cb)),
            entry(x, "Tin", (Tensorflow__AttrValue *)t),
            b ? entry(x, "Tout", (Tensorflow__AttrValue *)t)
              : type_attr(x, "Tout", &dt_bool, 1, true)};
        st = push_lowered(x, nd, calls[b], "PartitionedCall", vars, n_data, e, 3);
    }
    Tensorflow__NodeDef *idn = st == FL_OK ? new_node(x, nd->name, "IdentityN", n_data + 2) : NULL;
    Tensorflow__NodeDef__AttrEntry **attrs = fl__arena_calloc(x->a, 2, sizeof(*attrs));
    if (st == FL_OK &&
        (!idn || !attrs || !(attrs[0] = entry(x, "T", (Tensorflow__AttrValue *)t)))) {
        st = fl__diag_oom(x->d);
    }
    if (st != FL_OK) {
        return st;
    }
    for (size_t k = 0; k < n_data; k++) {
        idn->input[idn->n_input++] = (char *)vars[k];
    }
    idn->input[idn->n_input++] = fl__arena_printf(x->a, "^%s", calls[0]);
    idn->input[idn->n_input++] = fl__arena_printf(x->a, "^%s", calls[1]);
    if (!idn->input[n_data] || !idn->input[n_data + 1]) {
        return fl__diag_oom(x->d);
    }
    idn->attr = attrs;
    idn->n_attr = 1;
    idn->device = nd->device;
    *done = true;
    x->inlined++;
    return push(x, idn);
}

/* Case C(branch_index, in_0..in_n-1) lowered as an If (lower_if) with one
 * branch per function: "C/branch_K" a PartitionedCall of branch K on the
 * inputs (inlined next), "C/merge_J" = Merge of every branch's output J
 * (the most specific shape all branches fit) and an IdentityN "C" over the
 * Merges with attr _lowered_branches (the count). Every branch is costed:
 * the totals count all of them, an upper bound as both branches of an If,
 * and src/cost/cond.c gives each branch's counts in a warning. *done false
 * (nothing pushed) when the node does not have that form. */
static fl_status lower_case(inl *x, const Tensorflow__NodeDef *nd, bool *done) {
    *done = false;
    const Tensorflow__AttrValue *br = node_attr(nd, "branches"), *tin = node_attr(nd, "Tin");
    const Tensorflow__AttrValue *tout = node_attr(nd, "Tout");
    size_t n_data = data_inputs(nd);
    if (!br || !tin || !tout || br->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !br->list ||
        br->list->n_func == 0 || br->list->n_func > 4096 ||
        tin->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !tin->list ||
        tout->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !tout->list ||
        tout->list->n_type == 0 || tin->list->n_type + 1 != n_data || n_data < 2) {
        return FL_OK;
    }
    size_t nb = br->list->n_func, n_out = tout->list->n_type;
    const char **calls = fl__arena_calloc(x->a, nb + 1, sizeof(char *));
    const char **merged = fl__arena_calloc(x->a, n_out + 1, sizeof(char *));
    const char **in = fl__arena_calloc(x->a, nb + 1, sizeof(char *));
    if (!calls || !merged || !in) {
        return fl__diag_oom(x->d);
    }
    for (size_t k = 0; k < nb + n_out; k++) {
        const char *nm = k < nb ? fl__arena_printf(x->a, "%s/branch_%zu", nd->name, k)
                                : fl__arena_printf(x->a, "%s/merge_%zu", nd->name, k - nb);
        if (!nm) {
            return fl__diag_oom(x->d);
        }
        if (name_used(x, nm) ||
            (k < nb && (!br->list->func[k] || !find_fn(x, br->list->func[k]->name)))) {
            return FL_OK;
        }
        *(k < nb ? &calls[k] : &merged[k - nb]) = nm;
    }
    fl_status st = FL_OK;
    for (size_t k = 0; k < nb && st == FL_OK; k++) {
        Tensorflow__AttrValue *f = fl__arena_zalloc(x->a, sizeof(*f));
        if (!f) {
            return fl__diag_oom(x->d);
        }
        tensorflow__attr_value__init(f);
        f->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
        f->func = br->list->func[k];
        Tensorflow__NodeDef__AttrEntry *e[3] = {entry(x, "f", f),
                                                entry(x, "Tin", (Tensorflow__AttrValue *)tin),
                                                entry(x, "Tout", (Tensorflow__AttrValue *)tout)};
        st = push_lowered(x, nd, calls[k], "PartitionedCall", (const char *const *)nd->input + 1,
                          n_data - 1, e, 3);
    }
    Tensorflow__AttrValue *count = fl__arena_zalloc(x->a, sizeof(*count));
    if (!count) {
        return fl__diag_oom(x->d);
    }
    tensorflow__attr_value__init(count);
    count->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
    count->i = (int64_t)nb;
    for (size_t j = 0; j < n_out && st == FL_OK; j++) {
        int t = (int)tout->list->type[j];
        for (size_t k = 0; k < nb; k++) {
            if (!(in[k] = fl__arena_printf(x->a, "%s:%zu", calls[k], j))) {
                return fl__diag_oom(x->d);
            }
        }
        Tensorflow__NodeDef__AttrEntry *e[2] = {type_attr(x, "T", &t, 1, false),
                                                entry(x, "N", count)};
        st = push_lowered(x, nd, merged[j], "Merge", in, nb, e, 2);
    }
    Tensorflow__NodeDef__AttrEntry *e[2] = {entry(x, "T", (Tensorflow__AttrValue *)tout),
                                            entry(x, "_lowered_branches", count)};
    if (st == FL_OK) {
        st = push_lowered(x, nd, nd->name, "IdentityN", merged, n_out, e, 2);
    }
    *done = st == FL_OK;
    x->inlined += st == FL_OK;
    return st;
}

/* Marks function `name` of the library and what its body refers to. */
static void mark_fn(const inl *x, const char *name, bool *used, int depth);

static void mark_node(const inl *x, const Tensorflow__NodeDef *nd, bool *used, int depth) {
    mark_fn(x, nd->op, used, depth);
    for (size_t k = 0; k < nd->n_attr; k++) {
        const Tensorflow__AttrValue *v = nd->attr[k]->value;
        if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func) {
            mark_fn(x, v->func->name, used, depth);
        } else if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list) {
            for (size_t j = 0; j < v->list->n_func; j++) {
                mark_fn(x, v->list->func[j]->name, used, depth);
            }
        }
    }
}

static void mark_fn(const inl *x, const char *name, bool *used, int depth) {
    const Tensorflow__FunctionDef *f = find_fn(x, name);
    if (!f || depth > 64) {
        return;
    }
    size_t i = 0;
    while (x->lib->function[i] != f) {
        i++;
    }
    if (used[i]) {
        return;
    }
    used[i] = true;
    for (size_t k = 0; k < f->n_node_def; k++) {
        mark_node(x, f->node_def[k], used, depth + 1);
    }
}

/* The library without the functions nothing refers to any more (those only
 * inlined calls used), so the report counts the bodies left uncosted. */
static fl_status prune_library(inl *x, Tensorflow__NodeDef **nodes, size_t n,
                               Tensorflow__GraphDef *ng) {
    const Tensorflow__FunctionDefLibrary *lib = x->lib;
    bool *used = fl__arena_calloc(x->a, lib->n_function + 1, sizeof(bool));
    Tensorflow__FunctionDefLibrary *nl = fl__arena_zalloc(x->a, sizeof(*nl));
    Tensorflow__FunctionDef **fs = fl__arena_calloc(x->a, lib->n_function + 1, sizeof(*fs));
    if (!used || !nl || !fs) {
        return fl__diag_oom(x->d);
    }
    for (size_t i = 0; i < n; i++) {
        mark_node(x, nodes[i], used, 0);
    }
    *nl = *lib;
    nl->n_function = 0;
    for (size_t i = 0; i < lib->n_function; i++) {
        if (used[i]) {
            fs[nl->n_function++] = lib->function[i];
        }
    }
    nl->function = fs;
    ng->library = nl;
    return FL_OK;
}

/* If, While and Case (and their Stateless forms) lowered; *done false when
 * nd is none of them or does not have the form the lowering needs. */
static fl_status lower_functional(inl *x, const Tensorflow__NodeDef *nd, bool *done) {
    *done = false;
    const char *op = nd->op;
    if (!nd->name || !nd->name[0] || !op) {
        return FL_OK; /* a node without a name is the importer's error to report */
    }
    if (strcmp(op, "If") == 0 || strcmp(op, "StatelessIf") == 0) {
        return lower_if(x, nd, done);
    }
    if (strcmp(op, "While") == 0 || strcmp(op, "StatelessWhile") == 0) {
        return lower_while(x, nd, done);
    }
    if (strcmp(op, "Case") == 0 || strcmp(op, "StatelessCase") == 0) {
        return lower_case(x, nd, done);
    }
    return FL_OK;
}

fl_status fl__inline_calls(fl_arena *a, const Tensorflow__GraphDef *gd, const fl_import_opts *o,
                           fl_diag *d, const Tensorflow__GraphDef **out) {
    *out = gd;
    if (!gd->library || !gd->library->n_function) {
        return FL_OK;
    }
    inl x = {a, d, gd->library, o->max_nodes, NULL, 0, 0, NULL, 0, 0, 0, 0};
    for (size_t i = 0; i < gd->n_node; i++) {
        if (gd->node[i]->name) {
            fl_status st = name_add(&x, gd->node[i]->name);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    Tensorflow__NodeDef **cur = gd->node;
    size_t n_cur = gd->n_node;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        x.nodes = NULL;
        x.n_nodes = x.cap_nodes = 0;
        size_t before = x.inlined;
        for (size_t i = 0; i < n_cur; i++) {
            if (fl_diag_poll(d) != FL_OK) {
                return d->status;
            }
            /* A node without a name is the importer's error to report. */
            bool lowered = false;
            fl_status st = lower_functional(&x, cur[i], &lowered);
            if (st != FL_OK) {
                return st;
            }
            if (lowered) {
                continue;
            }
            const Tensorflow__FunctionDef *f =
                cur[i]->name && cur[i]->name[0] ? called(&x, cur[i]) : NULL;
            st = f && f->signature ? expand(&x, cur[i], f) : push(&x, cur[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        cur = x.nodes;
        n_cur = x.n_nodes;
        if (x.inlined == before) {
            break;
        }
    }
    if (!x.inlined) {
        return FL_OK;
    }
    Tensorflow__GraphDef *ng = fl__arena_zalloc(a, sizeof(*ng));
    if (!ng) {
        return fl__diag_oom(d);
    }
    *ng = *gd;
    ng->node = cur;
    ng->n_node = n_cur;
    *out = ng;
    return prune_library(&x, cur, n_cur, ng);
}
