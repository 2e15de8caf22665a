/*
 * import.h - importers: bytes of a model file in, graph IR out.
 *
 * Importers validate everything that comes from the file (it is untrusted):
 * duplicate node names, inputs naming missing nodes or ports, malformed input
 * strings, attrs of the wrong type for the fields the IR decodes, tensor
 * contents whose size disagrees with shape and dtype, node-count limits. Every
 * failure is an FL_EINVAL (or FL_ELIMIT) in `d` naming the node and the field.
 * They do no shape inference and no costing.
 *
 * The input bytes are borrowed for the graph's whole life: tensor payloads
 * (constants' values, the messages' bytes fields) are views into them
 * (src/import/pbwire.h), so keep them unchanged until the graph is freed.
 */
#ifndef FL_IMPORT_IMPORT_H
#define FL_IMPORT_IMPORT_H

#include "foldline/foldline.h"
#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fl_import_opts {
    int64_t max_nodes;       /* more nodes fail with FL_ELIMIT */
    int64_t max_value_elems; /* constants larger than this keep no decoded value */
    const char *tag;         /* SavedModel meta graph tag (NULL: "serve", or the only one) */
} fl_import_opts;

/* Checks node n's input count, `count`, against its op's registry row
 * (nothing for an unregistered op): FL_EINVAL naming the node, the counts
 * accepted, `what` they are ("inputs", "data inputs") and the file's
 * `field`, e.g. "expects 2 to 3 inputs, got 1 (field: input)". */
fl_status fl__import_check_arity(fl_diag *d, const fl_node *n, int count, const char *what,
                                 const char *field);

/* fl__import_check_arity for an ONNX node (domain: its own, "" = ai.onnx)
 * of a model importing ai.onnx `opset`: the operators whose inputs opsets
 * 1-6 defined otherwise (Reshape-1's single input, Tile-1's three) are
 * checked against that older count, and an experimental operator of opsets
 * 1-9 that is not modelled (GivenTensorFill, GRUUnit, ATen, FC) gets a warning naming it, not only
 * the unknown-op count. */
fl_status fl__import_check_onnx_node(fl_diag *d, const fl_node *n, const char *domain,
                                     int64_t opset, int count);

/* Parses a binary tensorflow.GraphDef into g (which must be empty): straight
 * from its bytes, or, for what that reader leaves (a function library,
 * reserved attrs, encodings TensorFlow does not write, any malformed
 * GraphDef: src/import/graphdef.c lists them), from the decoded message
 * tree as fl__import_graphdef_msg. */
fl_status fl__import_graphdef(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                              fl_diag *d);

/* How many GraphDefs this thread's fl__import_graphdef read from the message
 * tree (for tests: which reader a file took). */
uint64_t fl__graphdef_tree_reads(void);

/* Parses a binary tensorflow.SavedModel (saved_model.pb) and imports the graph
 * of the meta graph chosen by o->tag. */
fl_status fl__import_savedmodel(fl_graph *g, const uint8_t *buf, size_t len,
                                const fl_import_opts *o, fl_diag *d);

/* Guesses the format of a protobuf file: 1 for SavedModel, 0 for GraphDef. */
int fl__import_sniff_savedmodel(const uint8_t *buf, size_t len);

/* Parses a binary ONNX ModelProto into g (which must be empty); see
 * src/import/onnx.c for the mapping to the IR. */
fl_status fl__import_onnx(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                          fl_diag *d);

/* The raw_data bytes of an ONNX constant as its TensorProto holds them
 * (external data resolved; sub-byte types packed, the first element in the
 * low bits), *len of them; NULL when k has no such TensorProto or is
 * stripped. For readers of packed types whose values the importer does
 * not decode (int4, uint4). */
const uint8_t *fl__onnx_const_raw(const fl_const *k, size_t *len);

/* The other files of a model made of several (TF.js shards, ONNX external
 * data), borrowed. */
typedef struct fl_import_files {
    const fl_file *files;
    size_t n;
} fl_import_files;

/* fl__import_onnx with the files external data is read from (onnx_ext.h). */
fl_status fl__import_onnx_files(fl_graph *g, const uint8_t *buf, size_t len,
                                const fl_import_opts *o, const fl_import_files *files, fl_diag *d);

/* The side file (ONNX external data, a TF.js shard) a model names by `path`:
 * the file of that exact name, else the first of the same base name; NULL
 * when none (or no files). */
const fl_file *fl__import_find_file(const fl_import_files *o, const char *path);

/* An index of an imported ONNX graph's value names -> (node, port), built
 * once per graph in arena scratch memory (fl__onnx_values_free frees it).
 * NULL on OOM, with d set. */
typedef struct fl_onnx_values fl_onnx_values;
fl_onnx_values *fl__onnx_values_new(const fl_graph *g, fl_diag *d);
void fl__onnx_values_free(fl_onnx_values *v);
/* The node and port that define value `name`; false when none. */
bool fl__onnx_values_find(const fl_onnx_values *v, const char *name, const fl_node **node,
                          int *port);

/* Graph attr `which` (0, 1, ...) of ONNX node n (If's branches: 0
 * then_branch, 1 else_branch, found by name; Loop's and Scan's body) as a
 * stand-alone ModelProto (src/import/onnx_body.c): the
 * body's inputs typed from n's inputs, the outer values it reads (found in
 * vals, g's index) as initializers or typed inputs. *attr names the attr;
 * *buf (arena scratch of g->arena: the caller frees it with
 * fl__arena_scratch_free) holds the packed model. FL_ENOTFOUND when n has
 * no such attr or is not an imported ONNX node. */
/* A dim of n's inputs or of an outer value the body reads that is an
 * expression in g's symbols (2*batch, seq + past) is passed as a dim_param
 * naming a variable that stands for it, its canonical text in parentheses
 * ("(2*batch)"): equal expressions get the same variable. `dims` (may be
 * NULL: such dims are passed without value) receives those variables and
 * their expressions, for the caller to substitute back into what the
 * body's analysis gives (fl__sym_subst_syms); its arrays are arena scratch
 * of g->arena, freed with fl__onnx_body_dims_free. */
typedef struct fl_onnx_body_dims {
    const char **names;
    fl_sym *values;
    size_t n, cap;
} fl_onnx_body_dims;
/* What the caller knows of an outer sequence value the body reads (output
 * `port` of o): its elements' dtype and a shape every element has (the
 * shape layer's sequence rules); false when nothing is known, and the value
 * is then passed as a tensor of no element type (the body fails to analyse
 * where it reads it). May be NULL. */
typedef struct fl_onnx_outer_seq {
    bool (*describe)(void *ctx, const fl_node *o, int port, int *dtype, fl_shape *elem);
    void *ctx;
} fl_onnx_outer_seq;
fl_status fl__onnx_body_model(const fl_graph *g, const fl_onnx_values *vals, const fl_node *n,
                              int which, const char **attr, uint8_t **buf, size_t *len,
                              fl_onnx_body_dims *dims, const fl_onnx_outer_seq *seqs, fl_diag *d);
void fl__onnx_body_dims_free(const fl_graph *g, fl_onnx_body_dims *dims);

/* The trip counts of the functional While loops funcinline.c lowered
 * (src/import/tf_loop.c): attrs _body_trips and _cond_trips on a counted
 * loop, a warning on every loop. */
fl_status fl__tf_loops(fl_graph *g, fl_diag *d);

/* Calls fn for each external data location an ONNX model names (once
 * each); the count, or -1 when the bytes are not a ModelProto. */
int fl__import_onnx_refs(const uint8_t *buf, size_t len, void (*fn)(const char *name, void *arg),
                         void *arg);

/* 1 when the bytes look like an ONNX ModelProto (a top-level field 7 or 8),
 * else 0. Check it before fl__import_sniff_savedmodel. */
int fl__import_sniff_onnx(const uint8_t *buf, size_t len);

/* Builds IR from an unpacked tensorflow.GraphDef message (allocated in g's
 * arena and kept alive with it): the one path of binary GraphDefs,
 * SavedModels and TF.js topologies. */
struct Tensorflow__GraphDef;
fl_status fl__import_graphdef_msg(fl_graph *g, const struct Tensorflow__GraphDef *gd,
                                  const fl_import_opts *o, fl_diag *d);

/* Replaces the calls of library functions in gd (PartitionedCall,
 * StatefulPartitionedCall, a node whose op is a function's name) by their
 * bodies, as Grappler's function optimizer inlines them (funcinline.c states
 * the naming and what is left as a call). *out is gd when nothing was
 * inlined, else a copy in `a` sharing everything but the node list. */
struct fl_arena;
fl_status fl__inline_calls(struct fl_arena *a, const struct Tensorflow__GraphDef *gd,
                           const fl_import_opts *o, fl_diag *d,
                           const struct Tensorflow__GraphDef **out);

/* gd without the attrs the engine reserves (src/util/reserved.h), each
 * dropped with a warning naming its node (src/import/reserved_attrs.c):
 * *out is gd when it has none, else a copy in `a` sharing the rest. */
fl_status fl__drop_reserved_attrs(struct fl_arena *a, const struct Tensorflow__GraphDef *gd,
                                  fl_diag *d, const struct Tensorflow__GraphDef **out);

/* Parses a TF.js graph model (model.json) into g; weight shards come from
 * `files` by the manifest's paths. See src/import/tfjs.c. */
fl_status fl__import_tfjs(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                          const fl_import_files *files, fl_diag *d);

/* 1 when the bytes are a JSON object with a "modelTopology" key, else 0. */
int fl__import_sniff_tfjs(const uint8_t *buf, size_t len);

/* Calls fn for every shard path of a model.json's weightsManifest; the count,
 * or -1 when the bytes are not JSON. */
int fl__import_tfjs_refs(const uint8_t *buf, size_t len, void (*fn)(const char *name, void *arg),
                         void *arg);

/* Parses a TensorFlow Lite flatbuffer (schema TFL3) into g; see
 * src/import/tflite.c for the mapping to the IR. */
fl_status fl__import_tflite(fl_graph *g, const uint8_t *buf, size_t len, const fl_import_opts *o,
                            fl_diag *d);

/* 1 when bytes 4-7 are the TFLite file identifier "TFL3", else 0. */
int fl__import_sniff_tflite(const uint8_t *buf, size_t len);

#endif
