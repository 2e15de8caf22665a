/*
 * testgraph.h - builds binary GraphDefs in tests, and runs the engine on them.
 *
 * Tests describe a graph node by node and get real protobuf bytes, so they
 * exercise the same import path as a file from disk:
 *
 *     tg_graph *g = tg_new();
 *     tg_node *x = tg_add(g, "x", "Placeholder", NULL);
 *     tg_attr_type(x, "dtype", 1);
 *     tg_attr_shape(x, "shape", 4, (int64_t[]){-1, 8, 8, 3});
 *     tg_node *w = tg_const_f32(g, "w", 4, (int64_t[]){3, 3, 3, 16}, NULL, 0);
 *     tg_node *c = tg_add(g, "conv", "Conv2D", "x", "w", NULL);
 *     ...
 *     fl_report *r = tg_analyze(g, NULL);   // fails the test on error
 *     const fl_report_node *n = tg_find(r, "conv");
 *     tg_free(g);
 *
 * Every helper aborts the test (cmocka fail) on OOM.
 */
#ifndef FL_TESTGRAPH_H
#define FL_TESTGRAPH_H

#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tg_graph tg_graph;
typedef struct tg_node tg_node;

tg_graph *tg_new(void);
void tg_free(tg_graph *g);

/* Adds a node; the variadic list is its inputs ("a", "a:1", "^ctrl"), ended
 * by NULL. */
tg_node *tg_add(tg_graph *g, const char *name, const char *op, ...);
/* The node named `name` added to g (fails the test when there is none). */
tg_node *tg_find_node(tg_graph *g, const char *name);

/* Appends an input ("a:1", "^ctrl") to a node made earlier (a Const
 * anchored by a control edge). */
void tg_input(tg_node *n, const char *in);

void tg_attr_int(tg_node *n, const char *key, int64_t v);
void tg_attr_float(tg_node *n, const char *key, float v);
void tg_attr_bool(tg_node *n, const char *key, int v);
void tg_attr_type(tg_node *n, const char *key, int dtype);
void tg_attr_str(tg_node *n, const char *key, const char *v);
void tg_attr_shape(tg_node *n, const char *key, int rank, const int64_t *dims);
/* attr func {name: fn}; an attr placeholder ("$name" in a function body). */
void tg_attr_func(tg_node *n, const char *key, const char *fn);
void tg_attr_placeholder(tg_node *n, const char *key, const char *name);
/* A list(func) attr naming functions of the library (Case's branches). */
void tg_attr_funcs(tg_node *n, const char *key, size_t count, const char *const *fns);
void tg_attr_ints(tg_node *n, const char *key, size_t count, const int64_t *v);
void tg_attr_strs(tg_node *n, const char *key, size_t count, const char *const *v);
void tg_attr_types(tg_node *n, const char *key, size_t count, const int *v);

/* Const nodes. With values == NULL the float tensor is filled with a
 * deterministic pattern; `stripped` marks it as a stripped constant
 * (_stripped_content_bytes, no content). */
tg_node *tg_const_f32(tg_graph *g, const char *name, int rank, const int64_t *dims,
                      const float *values, int stripped);
/* An int32 (dtype 3) or int64 (dtype 9) constant. */
tg_node *tg_const_int(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims,
                      const int64_t *values);

/* A Const whose tensor_content is exactly `len` bytes (may disagree with the
 * shape, for importer tests). */
tg_node *tg_const_raw(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims,
                      const void *bytes, size_t len);
/* A float Const given by float_val entries (fewer than the shape holds means
 * "repeat the last"; zero entries means all zeros). */
tg_node *tg_const_f32_vals(tg_graph *g, const char *name, int rank, const int64_t *dims,
                           const float *vals, size_t n_vals);
/* An int32 Const given by int_val entries, with the same repeat rule. */
tg_node *tg_const_i32_vals(tg_graph *g, const char *name, int rank, const int64_t *dims,
                           const int32_t *vals, size_t n_vals);

/* A Placeholder of dtype float with the given shape (-1 = unknown dim; rank
 * -1 = unknown rank). */
tg_node *tg_placeholder(tg_graph *g, const char *name, int dtype, int rank, const int64_t *dims);

/* Adds a function to g's library: its body is the nodes added to `body`
 * (inputs in FunctionDef form: "arg", "node:out_arg:k", "^node"; keep `body`
 * until g is freed), its input args in_names/in_types, its output args
 * out_names/out_types returning rets ("node:out_arg:k" or an arg name). */
void tg_function(tg_graph *g, tg_graph *body, const char *name, size_t n_in,
                 const char *const *in_names, const int *in_types, size_t n_out,
                 const char *const *out_names, const int *out_types, const char *const *rets);

/* Sets the GraphDef's versions.producer. */
void tg_producer(tg_graph *g, int producer);

/* Packs to GraphDef bytes (malloc'd; caller frees). */
uint8_t *tg_pack(tg_graph *g, size_t *len);

/* Packs as a SavedModel holding one meta graph tagged `tag`. */
uint8_t *tg_pack_savedmodel(tg_graph *g, const char *tag, size_t *len);

struct fl_arena;
/* A copy of buf[len] in arena `a` (buf is freed): an imported graph's tensor
 * payloads are views into the bytes it came from, so those bytes must live
 * as long as the graph's arena. */
const uint8_t *tg_keep(struct fl_arena *a, uint8_t *buf, size_t len);

/* A graph on which every default pass has something to do: x [?,16] -> i
 * (Identity) -> m = Mul(i, one) -> a = AddV2(m, k) -> y (Neg), with k =
 * Neg(AddV2(c1, c2)) (foldable), a NoOp `dep` with a control edge into y,
 * and a second output z = Relu(m). */
tg_graph *tg_every_pass_graph(void);

/* Packs, analyses with opt (NULL: defaults with per_node on), asserts
 * success, returns the report. */
fl_report *tg_analyze(tg_graph *g, const fl_options *opt);
/* The same for a model's bytes in any format. */
fl_report *tg_analyze_bytes(const void *buf, size_t len, const fl_options *opt);

/* Packs and analyses, expecting failure: asserts the status and that the
 * error message contains `needle`. */
void tg_expect_error(tg_graph *g, const fl_options *opt, fl_status want, const char *needle);

/* The per-node entry called `name` (report made with per_node). Fails the
 * test when absent. */
const fl_report_node *tg_find(const fl_report *r, const char *name);

/* Output `port` of tg_find(r, name) has the shape `want` ("[1,s,8]"). */
void tg_expect_shape(const fl_report *r, const char *name, int port, const char *want);

#endif
