/*
 * foldline.h - libfoldline's public API: analyse the cost of an ML graph.
 *
 * One call does the whole job: import a model (TensorFlow GraphDef or
 * SavedModel), infer every tensor's shape (symbolically where a dimension is
 * unknown), count FLOPs, MACs and bytes per op, and return a report. The report
 * is plain data (strings and numbers) that the CLI prints and the server
 * encodes; it owns its memory and is released with fl_report_free().
 *
 *     fl_options opt;
 *     fl_options_init(&opt);
 *     fl_input_binding in = {.name = "x", .rank = 4, .dims = (int64_t[]){1, 224, 224, 3}};
 *     opt.inputs = &in;
 *     opt.n_inputs = 1;
 *     fl_report *r = NULL;
 *     fl_status st = fl_analyze(bytes, len, &opt, &r);
 *     if (st != FL_OK) {
 *         fprintf(stderr, "%s\n", r ? r->error : fl_status_str(st));
 *     } else {
 *         printf("%s FLOPs\n", r->totals.flops.text);
 *     }
 *     fl_report_free(r);
 *
 * Counts are exact. With symbolic shapes a count is a polynomial in the
 * symbols (`text` holds its formula, `known` is false); with every symbol
 * bound it is an integer (`known`, `value`). Thread safety: fl_analyze may run
 * concurrently on different threads; a report is immutable once returned.
 *
 * Versioning: foldline/version.h has the headers' version (FL_VERSION_*);
 * fl_version() and fl_version_number() give the library's. What may change
 * between releases is README's "Changes and API/ABI policy": in short, within
 * one major version a program keeps compiling and running, structs the
 * library returns only grow at their end, and fl_options is always set up by
 * fl_options_init().
 */
#ifndef FOLDLINE_FOLDLINE_H
#define FOLDLINE_FOLDLINE_H

#include "foldline/export.h"
#include "foldline/roofline.h"
#include "foldline/status.h"
#include "foldline/version.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: "MAJOR.MINOR.PATCH" (FL_VERSION_STRING of the
 * headers it was built with). */
FL_EXTERN const char *fl_version(void);

/* The library's FL_VERSION_NUMBER (MAJOR * 1000000 + MINOR * 1000 + PATCH). A
 * program may check `fl_version_number() / 1000000 == FL_VERSION_MAJOR`. */
FL_EXTERN int fl_version_number(void);

typedef enum fl_format {
    FL_FORMAT_AUTO = 0,   /* sniff the bytes */
    FL_FORMAT_GRAPHDEF,   /* binary tensorflow.GraphDef (frozen graph .pb) */
    FL_FORMAT_SAVEDMODEL, /* binary tensorflow.SavedModel (saved_model.pb) */
    FL_FORMAT_ONNX,       /* binary onnx.ModelProto (.onnx) */
    FL_FORMAT_TFJS,       /* TensorFlow.js graph model (model.json; shards in fl_options.files) */
    FL_FORMAT_TFLITE      /* TensorFlow Lite flatbuffer (.tflite, file identifier TFL3) */
} fl_format;

/* One file of a model made of several: its name as the model refers to it
 * (a TF.js weightsManifest path such as "group1-shard1of2.bin", an ONNX
 * external-data `location`) and its bytes, borrowed for the call. A file
 * not found by its exact name is matched by its base name. */
typedef struct fl_file {
    const char *name;
    const void *bytes;
    size_t len;
} fl_file;

/* Binds a graph input (a Placeholder) to a concrete shape. rank 0 = scalar. */
typedef struct fl_input_binding {
    const char *name;
    int rank;
    const int64_t *dims;
} fl_input_binding;

/* Binds a symbol (e.g. "x.0", the free batch dim of input x) to a value. */
typedef struct fl_symbol_binding {
    const char *name;
    int64_t value;
} fl_symbol_binding;

/* Gives a scalar input a value the graph computes shapes from. */
typedef struct fl_value_binding {
    const char *name;
    double value;
} fl_value_binding;

/* Gives an input a small tensor value the graph computes shapes from
 * (Reshape's shape, Resize's sizes, axes): n_values elements in row-major
 * order. Its shape is the input's binding (fl_options.inputs), else its
 * declared shape; a rank-1 input of unstated length takes n_values. Integer
 * inputs need whole values (|v| <= 2^53); at most max_value_elements. */
typedef struct fl_tensor_value_binding {
    const char *name;
    const double *values;
    size_t n_values;
} fl_tensor_value_binding;

/* The device the remapper's device-gated rules target. */
typedef enum fl_device {
    FL_DEVICE_CPU = 0, /* the default */
    FL_DEVICE_GPU
} fl_device;

/* How the engine's messages name the options they suggest (fl_options.
 * option_names). */
typedef enum fl_option_names {
    FL_OPTION_NAMES_CLI = 0, /* the foldline CLI's flags: "--bind SYM=N" (the default) */
    FL_OPTION_NAMES_REQUEST  /* the fields of the gRPC request: "options.symbols" */
} fl_option_names;

/* The remapper's rule set. */
typedef enum fl_remapper_mode {
    FL_REMAPPER_STANDARD = 0, /* TensorFlow's standard rules (the default) */
    FL_REMAPPER_ONEDNN        /* plus the oneDNN (x86 CPU) rules of official TensorFlow builds */
} fl_remapper_mode;

/* The phases of an analysis, in the order they run (fl_options.progress). */
typedef enum fl_phase {
    FL_PHASE_IMPORT = 0, /* reading the model into the graph */
    FL_PHASE_SHAPES,     /* shape inference (and the topological order) */
    FL_PHASE_COST,       /* FLOPs, MACs and bytes of every node */
    FL_PHASE_PASS        /* one rewrite pass (fl_options.passes), once per run */
} fl_phase;

/* Where an analysis is (fl_options.progress). Within one phase nodes_done
 * never decreases; the phase's last call has nodes_done == nodes_total. The
 * library fills it; later versions may append fields. */
typedef struct fl_progress {
    fl_phase phase;
    /* "import", "shapes", "cost", or the pass ("pruning", "constfold", ...) */
    const char *name;
    int iteration;       /* FL_PHASE_PASS: the meta-iteration (0-based); else 0 */
    int64_t nodes_done;  /* nodes the phase has finished */
    int64_t nodes_total; /* the graph's nodes; -1 while importing (not known yet) */
} fl_progress;

typedef struct fl_options {
    /* sizeof(fl_options) in the headers the caller was compiled with, set by
     * fl_options_init(): a later library, whose fl_options has more fields
     * at the end, uses its defaults for the fields the caller does not have.
     * Leave it as fl_options_init() set it. */
    size_t size;
    fl_format format;
    const char *saved_model_tag; /* NULL: "serve" (or the only meta graph) */
    const fl_input_binding *inputs;
    size_t n_inputs;
    const fl_symbol_binding *symbols;
    size_t n_symbols;
    const fl_value_binding *values;
    size_t n_values;
    bool per_node; /* fill fl_report.nodes */

    /* Limits. Exceeding one fails with FL_ELIMIT and a message naming it. */
    int64_t max_nodes;          /* default 5,000,000 */
    int64_t max_value_elements; /* largest tensor evaluated or decoded; default 1,048,576 */
    size_t max_memory_bytes;    /* analysis memory; default 8 GiB; 0 = unlimited */

    /* Roofline estimates: one result per profile in fl_report.roofline (see
     * foldline/roofline.h). Every symbol must be bound (FL_EUSAGE otherwise).
     * The profiles are borrowed for the call. */
    const fl_profile *const *profiles;
    size_t n_profiles;

    /* Grappler-style rewrite passes, run after the analysis of the graph as
     * given; the report then holds `before` (= totals), `after`, the pass
     * records and the ledger. NULL (the default): no passes. "default" or
     * "all": every pass in Grappler's order; "none": no passes but the
     * before/after blocks are filled; else a comma list of pruning, cse,
     * constfold, shape, arithmetic, remap, dependency. */
    const char *passes;
    const char *const *disabled_passes; /* names switched off */
    size_t n_disabled_passes;
    const char *const *output_names; /* graph outputs; none given: nodes nothing consumes */
    size_t n_output_names;
    fl_device device;               /* remapper target; default FL_DEVICE_CPU */
    fl_remapper_mode remapper_mode; /* default FL_REMAPPER_STANDARD */
    /* TensorFlow run with TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1: the
     * remapper's GPU batch-norm fusions of training graphs (_FusedBatchNormEx
     * in training mode, _FusedBatchNormGradEx) may fire. Off by default, as
     * in TensorFlow. */
    bool cudnn_persistent_batchnorm;
    int64_t max_folded_bytes; /* constant folding output limit; 0 = 100 KiB */
    bool return_graph;        /* fill fl_report.graph_bytes with the optimised GraphDef */

    /* Cancellation (a server's deadline, a client that went away). When set,
     * `should_stop(stop_arg)` is asked between the analysis's phases and
     * passes and every 1024 nodes inside them (so a stop takes effect within
     * milliseconds, also on million-node graphs); once it returns true the
     * analysis stops, frees its memory and fails with FL_ECANCELED. It is
     * called from the thread running fl_analyze. */
    bool (*should_stop)(void *arg);
    void *stop_arg;

    /* Tensor values for inputs (--value NAME=X,Y,...), bound after `values`. */
    const fl_tensor_value_binding *tensor_values;
    size_t n_tensor_values;

    /* The other files of a model made of several (the model itself is the
     * bytes given to fl_analyze): TF.js weight shards, ONNX external data.
     * Borrowed for the call and read only where a value is needed; a file the
     * model names but that is not here leaves those weights as unknown
     * values (stripped constants) with a warning. fl_model_file_refs lists
     * the names a model refers to. */
    const fl_file *files;
    size_t n_files;

    /* The LLM view of a decoder (fl_report.llm): when set and the graph has
     * a KV cache or a sequence symbol, the graph is analysed twice more,
     * once per phase of generation (prefill of llm_prompt tokens, decode of
     * one token at a context of llm_context). Off by default. */
    bool llm;
    int64_t llm_prompt;  /* prefill tokens per sequence; 0: 128 */
    int64_t llm_context; /* decode context (past + the new token); 0: 1024; else >= 2 */

    /* How errors and warnings name an option to set (bind a symbol, raise
     * a limit): as the CLI's flags (the default) or, for a server whose
     * clients have no flags, as the AnalyzeRequest's fields. */
    fl_option_names option_names;

    /* Progress (a terminal's status line, a server's stream). When set,
     * `progress(p, progress_arg)` is called from the thread running
     * fl_analyze as each phase starts (nodes_done 0), every 1024 nodes
     * inside a phase that walks the nodes one by one (shapes, cost, most
     * importers) and as each phase ends (nodes_done == nodes_total): import,
     * shapes, cost, then with `passes` one FL_PHASE_PASS phase per pass
     * run. A failed analysis stops at the phase that failed,
     * without its end. The LLM view's phase analyses (`llm`) report nothing.
     * `p` is valid during the call only. Unset (the default): no cost. */
    void (*progress)(const fl_progress *p, void *arg);
    void *progress_arg;
} fl_options;

/* Fills defaults (no bindings, auto format, limits as documented above) and
 * `size`. Always start from it: later versions may add fields at the end. */
#define fl_options_init(o) fl_options_init_size((o), sizeof(fl_options))

/* fl_options_init() for an fl_options of `size` bytes (the caller's
 * sizeof(fl_options)); fields beyond it are neither written nor read. */
FL_EXTERN void fl_options_init_size(fl_options *o, size_t size);

/* The format FL_FORMAT_AUTO resolves to for these bytes: TFLite (the TFL3
 * file identifier), TF.js (a JSON object with
 * "modelTopology"), ONNX, SavedModel or (otherwise) GraphDef, by the leading fields; never
 * FL_FORMAT_AUTO. */
FL_EXTERN fl_format fl_detect_format(const void *bytes, size_t len);

/* The other files a model refers to by name (TF.js: every weightsManifest
 * path, in order; ONNX: each external data `location` of the main graph's
 * initializers and Constant nodes, once, relative to the model's directory),
 * each passed to fn. Returns how many, 0 for a format whose
 * models are one file, or -1 when the bytes cannot be read as `format`
 * (FL_FORMAT_AUTO: detected). */
FL_EXTERN int fl_model_file_refs(const void *bytes, size_t len, fl_format format,
                                 void (*fn)(const char *name, void *arg), void *arg);

/* A TFLite model without the data of its buffers longer than `threshold`
 * bytes (`--strip-weights`): a malloc'd copy (free() it), *out_len its size.
 * The buffers stay, empty; their tensors keep name, type and shape, so an
 * analysis of the copy counts the same FLOPs, MACs, bytes and parameters.
 * NULL when the bytes are not a TFLite flatbuffer this version describes
 * completely (a field it does not know, data stored outside the flatbuffer)
 * or memory runs out: send the model whole then. */
FL_EXTERN void *fl_strip_tflite(const void *bytes, size_t len, int64_t threshold, size_t *out_len);

/* An exact count: a known integer, or a formula in symbols. */
typedef struct fl_quantity {
    bool known;       /* value is exact */
    int64_t value;    /* when known */
    const char *text; /* always set: decimal digits, or the formula ("2*x.0*150528 + 64") */
} fl_quantity;

typedef struct fl_totals {
    fl_quantity flops;        /* "complete" convention */
    fl_quantity tfprof_flops; /* tfprof's registered statistics */
    fl_quantity macs;
    /* Integer operations of quantized ops (QLinearConv, MatMulInteger, a
     * TFLite CONV_2D on int8 tensors, ...): integer products and sums (2 per
     * integer multiply-accumulate) and zero-point arithmetic. Counted apart:
     * never in flops or macs. */
    fl_quantity int_ops;
    fl_quantity bytes; /* read + written */
    fl_quantity bytes_read;
    fl_quantity bytes_written;
    int64_t nodes;
} fl_totals;

/* A tensor's shape, as text and typed. Each dim is a count: known (an
 * integer), a formula in symbols ("x.0", "2*x.0"), or unknown (known false,
 * text "?"). `shape` is "[" + the dims' texts joined with "," + "]", or "?"
 * when the rank is unknown (rank -1, dims NULL). */
typedef struct fl_report_tensor {
    const char *dtype; /* "float", "int32", ... ; "unknown" */
    const char *shape; /* "[1,224,224,3]", "[x.0,112,112,32]", "[?,10]", "?" (unknown rank) */
    int rank;          /* -1: unknown */
    const fl_quantity *dims;
} fl_report_tensor;

typedef struct fl_report_node {
    const char *name;
    const char *op;
    size_t n_outputs;
    const fl_report_tensor *outputs;
    fl_quantity flops, tfprof_flops, macs, int_ops, bytes;
    bool has_rule;   /* a real cost rule exists for the op */
    bool incomplete; /* counts depend on an unknown dim: excluded from totals; or a loop
                      * whose trip count is unknown: its one trip is in the totals */
} fl_report_node;

typedef struct fl_report_op {
    const char *op;
    int64_t count;
    fl_quantity flops;
    fl_quantity tfprof_flops;
    fl_quantity int_ops;
} fl_report_op;

typedef struct fl_report_input {
    const char *name;
    const char *dtype;
    const char *shape; /* as fl_report_tensor.shape */
    int rank;          /* -1: unknown */
    const fl_quantity *dims;
} fl_report_input;

/* A profile an estimate used, with a hash of its contents: 16 hex digits of
 * FNV-1a 64 over its name, kind, description and every figure and source
 * (fl_report_options.profiles). */
typedef struct fl_report_profile {
    const char *name;
    const char *hash;
} fl_report_profile;

/* The options the analysis ran with, as the engine applied them (limits
 * after defaults and, on a server, its ceilings), so a stored report says
 * how to reproduce it. */
typedef struct fl_report_options {
    const char *format;          /* requested: "auto" | "graphdef" | "savedmodel" | "onnx" */
    const char *saved_model_tag; /* NULL: the default */
    size_t n_inputs;             /* input shape bindings, as given */
    const fl_input_binding *inputs;
    size_t n_symbols; /* symbol bindings, as given */
    const fl_symbol_binding *symbols;
    size_t n_values; /* value bindings, as given */
    const fl_value_binding *values;
    /* "default" (every pass), "none" (no pass stage) or "list" (`passes`). */
    const char *pass_selection;
    size_t n_passes;
    const char *const *passes;
    size_t n_disabled_passes;
    const char *const *disabled_passes;
    size_t n_output_names; /* graph outputs named for the passes */
    const char *const *output_names;
    const char *device;        /* "cpu" | "gpu" */
    const char *remapper_mode; /* "standard" | "onednn" */
    bool cudnn_persistent_batchnorm;
    int64_t max_nodes;
    int64_t max_value_elements;
    int64_t max_memory_bytes; /* 0: unlimited */
    int64_t max_folded_bytes; /* effective (the default is 102400) */
    size_t n_profiles;        /* in fl_options.profiles order */
    const fl_report_profile *profiles;
} fl_report_options;

/* What one pass did in one meta-iteration (fl_options.passes). */
typedef struct fl_report_pass {
    const char *pass; /* "pruning", "cse", "constfold", "shape", "arithmetic", "remap", ... */
    int iteration;    /* 0-based */
    int64_t nodes_removed, nodes_added, nodes_rewritten;
    fl_totals before, after;
    size_t first_entry, n_entries; /* its slice of fl_report.ledger */
    /* NULL: the pass ran. Else it failed and was skipped, as Grappler's
     * meta-optimizer skips a failing optimizer: the graph was put back as it
     * was before the pass (so the record shows no change) and this says why
     * (the same text is among the warnings). */
    const char *failed;
} fl_report_pass;

/* One rule firing: `rule` of `pass` on node `node` (named as before the
 * rewrite), with a one-line description. */
typedef struct fl_report_ledger_entry {
    const char *pass;
    const char *rule;
    const char *node;
    const char *detail;
} fl_report_ledger_entry;

/* One phase of the LLM view: the graph as given analysed with the phase's
 * bindings (every symbol bound); fl_llm_after holds it after the passes. */
typedef struct fl_llm_phase {
    int64_t past;                        /* the past symbol's value (0 without a KV cache) */
    int64_t seq;                         /* the sequence symbol's value */
    int64_t tokens;                      /* tokens the phase accounts for (see fl_report_llm) */
    int64_t flops, macs, int_ops, bytes; /* the phase's totals */
    int64_t kv_bytes;                    /* bytes of the KV-cache inputs */
    /* Per token (the totals over `tokens`) and the arithmetic intensity
     * (flops over bytes; 0 when nothing moves). */
    double flops_per_token, macs_per_token, bytes_per_token, intensity;
} fl_llm_phase;

/* One phase's estimated time on one profile: the phase's graph (as given,
 * its symbols bound as the phase binds them) estimated as fl_roofline_graph,
 * and that per token. */
typedef struct fl_llm_time {
    double time_s;           /* the phase's fl_roofline_graph.time_s */
    double time_per_token_s; /* time_s over the phase's tokens (0 without a token) */
    /* "compute" | "memory" | "overhead": the largest of the estimate's
     * compute_s, memory_s and overhead_s (ties in that order); "none" when
     * time_s is 0. */
    const char *bound;
} fl_llm_time;

/* The per-token roofline of the LLM view on one profile
 * (fl_options.profiles). */
typedef struct fl_llm_roofline {
    const char *profile;
    fl_llm_time prefill, decode;
    bool calibrated; /* as fl_roofline_graph.calibrated */
} fl_llm_roofline;

/* The LLM view after the rewrite passes (fl_report_llm.after): each phase's
 * graph, its symbols bound as the phase binds them, optimised with
 * fl_options.passes as the graph as given is. past, seq, tokens and kv_bytes
 * are the phase's own (the passes do not change the inputs); the totals,
 * per-token figures and times are those of the optimised graph. */
typedef struct fl_llm_after {
    fl_llm_phase prefill, decode;
    size_t n_roofline; /* fl_report_llm.n_roofline: one per profile, in order */
    const fl_llm_roofline *roofline;
} fl_llm_after;

/* The LLM view of a decoder (fl_options.llm). Roles come from the graph as
 * given: KV-cache inputs are inputs of rank >= 3 whose name contains "past"
 * or "cache"; the past symbol is the dim before the last of the first of
 * them; the sequence symbol is a symbol whose name contains "seq" (and not
 * "past"), else dim 1 of the first rank-2 input that is not a KV input. A
 * symbol naming "total" (or both "past" and "seq") is bound to past + seq;
 * every other free symbol to 1 unless fl_options.symbols binds it.
 * Prefill: past = 0, seq = prompt; its tokens are the elements of the
 * sequence input (batch x seq). Decode with a KV cache: seq = 1, past =
 * context - 1; without one, seq = context (the context is recomputed); its
 * tokens are the new tokens (the sequence input's elements over seq). */
typedef struct fl_report_llm {
    int64_t prompt, context;
    const char *seq_symbol;
    const char *past_symbol; /* NULL: no KV cache */
    const char *token_input; /* the sequence input; NULL: tokens = seq */
    size_t n_total_symbols;  /* bound to past + seq */
    const char *const *total_symbols;
    size_t n_other_symbols; /* free symbols bound to 1 */
    const char *const *other_symbols;
    int64_t kv_inputs; /* KV-cache inputs */
    fl_llm_phase prefill, decode;
    /* KV-cache bytes per token of context (decode's kv_bytes over context -
     * 1) and at the context (that times the context); 0 without a cache. */
    double kv_bytes_per_token, kv_bytes_at_context;
    /* With fl_options.profiles: each phase's time on each profile, in that
     * order. Profiles need every symbol bound; with the view, symbols left
     * free (past, seq, ...) leave the graph as given without an estimate
     * (fl_report.roofline empty, a warning says so) and the phases, whose
     * symbols are all bound, have theirs here. */
    size_t n_roofline;
    const fl_llm_roofline *roofline;
    /* With fl_options.passes: the phases after the rewrite passes; NULL
     * without passes. */
    const fl_llm_after *after;
} fl_report_llm;

typedef struct fl_report {
    /* Set when fl_analyze failed: one line naming the problem. */
    const char *error;

    /* Graph info. */
    const char *format; /* "graphdef" | "savedmodel" | "onnx" */
    int producer;       /* GraphDef versions.producer; 0 for ONNX */
    /* ONNX: ModelProto.producer_name and producer_version ("pytorch",
     * "2.1.0"; NULL when absent or for TensorFlow), the ai.onnx opset
     * imported (0 for TensorFlow) and the graph's initializers, which are
     * not nodes: n_nodes counts operators only (graph inputs neither). */
    const char *producer_name;
    const char *producer_version;
    int64_t opset;
    int64_t n_initializers;
    int64_t n_nodes;
    int64_t n_functions;      /* library functions */
    int64_t n_function_nodes; /* nodes inside them (not analysed, as tfprof) */
    size_t n_inputs;
    const fl_report_input *inputs; /* Placeholders, after bindings */
    size_t n_outputs;
    /* TensorFlow: nodes with no consumers, by name; ONNX: the graph's
     * declared outputs (value names), in order. */
    const char *const *outputs;
    size_t n_symbols;
    const char *const *symbols; /* free symbols remaining in the totals */

    fl_totals totals;

    /* Coverage. */
    int64_t nodes_with_rule;    /* ops with a real FLOP rule (incl. 0-FLOP data movement) */
    int64_t nodes_without_rule; /* ops with no FLOP rule: their FLOPs count as 0 */
    int64_t nodes_incomplete;   /* counts depend on an undetermined dim: excluded from totals;
                                 * or loops whose trip count is unknown (counted once) */
    /* Share of all bytes moved that is moved by ops without a FLOP rule: how
     * much of the graph's work the FLOP total cannot see. -1 when the byte
     * total is symbolic. */
    double bytes_share_without_rule;

    /* Complete: the totals count every node. True when no node lacks a FLOP
     * rule (unknown op types included) and no node is incomplete (a loop
     * whose trip count is unknown is an incomplete node); symbolic
     * totals are complete (exact formulas). Nodes inside library functions
     * are not costed by convention (as tfprof) and do not make a report
     * partial; the graph info counts them. */
    bool complete;
    /* Nodes whose FLOPs the totals do not hold: nodes_without_rule +
     * nodes_incomplete (0 when complete). Bytes of nodes without a rule are
     * counted (bytes_share_without_rule); an incomplete node counts nothing. */
    int64_t nodes_excluded;

    size_t n_unknown_ops; /* op types the registry does not know, with node counts */
    const fl_report_op *unknown_ops;

    size_t n_ops; /* per op type, by FLOPs + int_ops descending (then name) */
    const fl_report_op *ops;

    size_t n_warnings;
    const char *const *warnings;

    size_t n_nodes_detail; /* with per_node */
    const fl_report_node *nodes;

    /* The options used (always filled on success). */
    fl_report_options options;

    /* One result per fl_options.profiles entry, in that order. */
    size_t n_roofline;
    const fl_roofline_result *roofline;

    /* With fl_options.passes set: */
    bool optimized;   /* the fields below are filled */
    fl_totals before; /* the graph as given (equals totals) */
    fl_totals after;  /* after the passes */
    size_t n_passes;  /* one record per pass run, in order */
    const fl_report_pass *passes;
    size_t n_ledger; /* every rule firing, in order */
    const fl_report_ledger_entry *ledger;
    const uint8_t *graph_bytes; /* with return_graph: the optimised binary GraphDef */
    size_t graph_len;
    size_t n_nodes_after; /* with per_node: every node of the optimised graph */
    const fl_report_node *nodes_after;

    /* Parameters of the graph as given: the elements of its constant
     * tensors (TensorFlow Const nodes, ONNX initializers and Constant
     * operators, TFLite buffers) of a floating-point or 4/8/16-bit integer
     * type. 32/64-bit integer, bool and string constants (shapes, axes,
     * indices, quantized models' int32 biases) are not counted. */
    int64_t params;

    /* With fl_options.llm, for a graph with a KV cache or a sequence
     * symbol: the LLM view. NULL otherwise, and when a phase's analysis
     * failed (a warning then says why, max_memory_bytes reached in a phase
     * included; a phase that malloc fails fails the analysis with FL_ENOMEM
     * instead). */
    const fl_report_llm *llm;
} fl_report;

/* Analyses `len` bytes of a model. On success returns FL_OK and *out. On
 * failure returns the status and, except on FL_ENOMEM before any memory could
 * be had, *out with only `error` set (a one-line message naming the node and
 * field at fault). The caller frees *out in both cases. A graph without a
 * node (ONNX: without an operator) is invalid (FL_EINVAL), not 0 FLOPs. */
FL_EXTERN fl_status fl_analyze(const void *bytes, size_t len, const fl_options *opt,
                               fl_report **out);

/* Releases a report (NULL is fine). */
FL_EXTERN void fl_report_free(fl_report *r);

#ifdef __cplusplus
}
#endif

#endif
