/*
 * main.c - the foldline command-line tool.
 *
 *   foldline analyze MODEL [options]   analyse a model in-process
 *   foldline optimize MODEL -o OUT.pb [options]   run the rewrite passes, write the graph
 *   foldline --help | --version
 *
 * Exit status: 0 on success, 1 when the model is bad (the message names the
 * node and field), 2 on usage errors, 3 when a file cannot be read (or, in
 * remote mode, the server cannot be reached or the remote module loaded), 4
 * with --require-complete when the answer is partial.
 *
 * Remote mode (--server) lives in the module foldline-remote.so, loaded only
 * when it runs (remote_load.c); calibrate loads OpenBLAS when it runs. So the
 * local commands start with libc, libm, protobuf-c and libyaml alone.
 */
#include "analysis.h"
#include "card.h"
#include "cli.h"
#include "diff.h"
#include "files.h"
#include "foldline/foldline.h"
#include "llm.h"
#include "print.h"
#include "progress.h"
#include "remote.h"
#include "report.h"
#include "roofcli.h"
#include "schema.h"
#include "strip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: foldline analyze MODEL [options]\n"
    "       foldline optimize MODEL -o OUT.pb [options]\n"
    "       foldline --server HOST:PORT [remote options] analyze MODEL [options]\n"
    "       foldline --server HOST:PORT [remote options] optimize MODEL -o OUT.pb [options]\n"
    "       foldline --server HOST:PORT [remote options] profiles [--sources] [--json]\n"
    "       foldline --server HOST:PORT [remote options] health [SERVICE]\n"
    "       foldline profiles [--profiles-dir DIR] [--sources] [--json]\n"
    "       foldline calibrate [-o FILE] [--threads N] [--short] [--name NAME]\n"
    "       foldline fit --profile BASE -o OUT.yaml [--bind SYM=N] [--quantile Q]\n"
    "                    [--gap-per-kernel] MODEL=TRACE[@MS]...\n"
    "       foldline diff BASE NEW [options] [--fail-on METRIC:+N%]... [--json]\n"
    "       foldline card MODEL [options] [--format md|json]\n"
    "       foldline report MODEL [options] [--sweep SYM=V1,V2,...] -o OUT.html\n"
    "       foldline schema\n"
    "       foldline --help | --version\n"
    "\n"
    "Analyse the cost of a TensorFlow graph: shapes, FLOPs, MACs and bytes per op.\n"
    "MODEL is a binary GraphDef (.pb), a saved_model.pb, a SavedModel directory, or an\n"
    "ONNX model (.onnx; optimize writes ONNX back).\n"
    "\n"
    "options:\n"
    "  --input NAME=D0,D1,...   bind input NAME to a shape (NAME= for a scalar)\n"
    "  --bind SYM=N             bind a symbol (an unknown input dim, named INPUT.AXIS)\n"
    "  --value NAME=X[,Y...]    give input NAME the value X, or a small tensor X,Y,... (shapes\n"
    "                           computed from it: Reshape's shape, Resize's sizes, axes)\n"
    "  --format graphdef|savedmodel|onnx|tfjs|tflite   file format (default: detected)\n"
    "  --tag TAG                SavedModel meta graph tag (default: serve)\n"
    "  --per-node               list every node with its shapes and counts\n"
    "  --json                   print a JSON document (see README)\n"
    "  --summary                print a compact JSON record (a few KB for any model)\n"
    "  --require-complete       exit 4 when the totals leave nodes out (printed as usual)\n"
    "  --top N                  op types listed in the summary (default 10)\n"
    "  --max-nodes N            refuse graphs with more nodes (default 5000000)\n"
    "  --max-value-elements N   largest tensor evaluated for shapes (default 1048576)\n"
    "  --max-folded-bytes N     largest constant the folding pass creates (default 102400)\n"
    "  --max-memory-mb N        analysis memory limit (default 8192; 0 = none)\n"
    "  --profile NAME|FILE.yaml roofline time estimate on a device profile: a name, a profile\n"
    "                           file (e.g. from calibrate or fit), or 'all' (repeatable)\n"
    "  --profiles-dir DIR       more profiles, added to the shipped ones (repeatable; shipped:\n"
    "                           $FOLDLINE_PROFILES_DIR, else deploy/profiles)\n"
    "  --sweep SYM=V1,V2,...    re-run the analysis (and estimates) for each value of SYM\n"
    "  --prompt N, --context N  LLM view of a decoder (KV-cache inputs or a sequence\n"
    "                           symbol): prefill of N tokens, decode at a context of N\n"
    "                           (defaults 128 and 1024); --no-llm leaves it out\n"
    "\n"
    "rewrite passes (Grappler's order; analyze prints the totals before/after and the\n"
    "ledger after the analysis of the graph as given):\n"
    "  --passes LIST            default (all; the default), none (analyze: the graph as\n"
    "                           given only), or a comma list of pruning, cse, qdq,\n"
    "                           constfold, transpose, shape, arithmetic, remap,\n"
    "                           dependency (qdq: ONNX graphs with QuantizeLinear/\n"
    "                           DequantizeLinear only; transpose: ONNX graphs with a\n"
    "                           Transpose, first iteration only)\n"
    "  --disable NAME           switch one pass off (repeatable)\n"
    "  --output NAME            a graph output (repeatable; default: nodes nothing consumes)\n"
    "  --device cpu|gpu         remapper target device (default cpu)\n"
    "  --remapper standard|onednn   remapper rule set (default standard)\n"
    "  --cudnn-persistent-batchnorm  as TensorFlow with TF_USE_CUDNN_BATCHNORM_SPATIAL_\n"
    "                           PERSISTENT=1: GPU fusions of training-mode batch norms\n"
    "  -o FILE                  (optimize) where to write the optimised graph (GraphDef;\n"
    "                           ONNX for an ONNX model)\n"
    "\n"
    "remote options (analyse on a foldlined server; the output is the same):\n"
    "  --server TARGET          send the model to this server: HOST:PORT or any gRPC target\n"
    "                           (dns:///NAME:PORT, ipv4:A:P,B:P, unix:PATH); calls are spread\n"
    "                           round-robin over every address and retried on UNAVAILABLE\n"
    "  --token-file F           bearer token (F's first line) for a server that needs one\n"
    "  --tls                    use TLS, the server's certificate checked against the system\n"
    "                           CA store\n"
    "  --tls-ca F               use TLS; F is the PEM CA certificate the server's is signed by\n"
    "  --timeout-ms N           deadline of the call (default none)\n"
    "  --strip-weights [BYTES]  drop constant contents above BYTES (default 1024) before\n"
    "                           sending: costs need shapes and small constants only\n";

/* Remote mode, set by the options before the command. */
static fl_remote_options remote;
static char *remote_token;
static int64_t remote_strip = -1; /* --strip-weights threshold; -1 = send as is */

static bool parse_i64(const char *s, int64_t *out) {
    if (!s || !*s) {
        return false;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) {
        return false;
    }
    *out = v;
    return true;
}

/* Splits "NAME=REST" at the last '='. */
static bool split_eq(char *s, char **name, char **rest) {
    char *eq = strrchr(s, '=');
    if (!eq || eq == s) {
        return false;
    }
    *eq = '\0';
    *name = s;
    *rest = eq + 1;
    return true;
}

static unsigned char *read_file(const char *path, size_t *len, char *err, size_t errlen) {
    struct stat st;
    char *joined = NULL;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(path) + sizeof("/saved_model.pb") + sizeof("/model.json");
        joined = malloc(n);
        if (!joined) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        snprintf(joined, n, "%s/model.json", path); /* a TF.js model's folder */
        if (stat(joined, &st) != 0) {
            snprintf(joined, n, "%s/saved_model.pb", path);
        }
        path = joined;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        free(joined);
        return NULL;
    }
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            unsigned char *nb = realloc(buf, nc);
            if (!nb) {
                snprintf(err, errlen, "out of memory reading '%s'", path);
                free(buf);
                fclose(f);
                free(joined);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            break;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    free(joined);
    *len = n;
    return buf;
}

/* Opens the model: a folder means its model.json (TF.js) or saved_model.pb;
 * a file is mapped (files.h). 0, or EXIT_IO after the message. */
static int open_model(fl_cli_model *m, const char *path) {
    struct stat st;
    char joined[4096];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(joined, sizeof joined, "%s/model.json", path); /* a TF.js model's folder */
        if (stat(joined, &st) != 0) {
            snprintf(joined, sizeof joined, "%s/saved_model.pb", path);
        }
        path = joined;
    }
    char err[1024];
    if (fl_cli_model_open(m, path, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: %s\n", err);
        return EXIT_IO;
    }
    return 0;
}

typedef struct cli {
    const char *model;
    fl_options opt;
    fl_input_binding *inputs;
    fl_symbol_binding *symbols;
    fl_value_binding *values;
    fl_tensor_value_binding *tvalues;
    size_t n_inputs, n_symbols, n_values, n_tvalues;
    bool json;
    bool summary;          /* --summary: the compact JSON record */
    bool require_complete; /* --require-complete: exit 4 on a partial answer */
    int64_t top;
    fl_roof_cli roof; /* --profile, --profiles-dir, --sweep */
    fl_llm_cli llm;   /* --prompt, --context, --no-llm */
    bool optimize;    /* `foldline optimize`: -o is accepted and required */
    const char *out_path;
    const char *passes; /* --passes as given; NULL when absent */
    const char **disabled, **outputs;
    size_t n_disabled, n_outputs;
    fl_cli_files side;        /* the model's other files (TF.js shards), mapped */
    fl_cli_progress progress; /* on stderr when it is a terminal (progress.h) */
} cli;

/* --value NAME=X (a scalar) or NAME=X,Y,... (a small tensor; "X," is a
 * one-element tensor). */
static int parse_value_arg(cli *c, char *arg) {
    char *name, *rest;
    if (!split_eq(arg, &name, &rest) || !*rest) {
        return fl_cli_usage_error("--value expects NAME=X or NAME=X,Y,..., got '%s'", arg);
    }
    bool list = strchr(rest, ',') != NULL;
    double *xs = list ? calloc(strlen(rest) + 1, sizeof(double)) : NULL;
    if (list && !xs) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    size_t n = 0;
    double x = 0;
    char *save = NULL;
    for (char *tok = strtok_r(rest, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        x = strtod(tok, &end);
        if (errno || end == tok || *end) {
            free(xs);
            return fl_cli_usage_error("--value: '%s' is not a number", tok);
        }
        if (list) {
            xs[n] = x;
        }
        n++;
    }
    if (!n) {
        free(xs);
        return fl_cli_usage_error("--value expects NAME=X or NAME=X,Y,..., got '%s'", arg);
    }
    if (list) {
        fl_tensor_value_binding *t = &c->tvalues[c->n_tvalues++];
        t->name = name;
        t->values = xs;
        t->n_values = n;
    } else {
        c->values[c->n_values].name = name;
        c->values[c->n_values++].value = x;
    }
    return 0;
}

static int parse_input_arg(cli *c, char *arg) {
    char *name, *rest;
    if (!split_eq(arg, &name, &rest)) {
        return fl_cli_usage_error(
            "--input expects NAME=D0,D1,... (or NAME= for a scalar), got '%s'", arg);
    }
    fl_input_binding *b = &c->inputs[c->n_inputs++];
    b->name = name;
    int64_t *dims = calloc(strlen(rest) + 1, sizeof(int64_t));
    if (!dims) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    b->dims = dims;
    b->rank = 0;
    if (*rest) {
        char *save = NULL;
        for (char *tok = strtok_r(rest, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int64_t v;
            if (!parse_i64(tok, &v) || v < 0) {
                return fl_cli_usage_error("--input: dimension '%s' is not a non-negative integer",
                                          tok);
            }
            dims[b->rank++] = v;
        }
    }
    return 0;
}

/* The rewrite passes' names, as the engine knows them (src/passes/pipeline.c):
 * checked here so that a typo fails before the model is read. */
static const char *const pass_names[] = {"pruning", "cse",        "qdq",   "constfold", "transpose",
                                         "shape",   "arithmetic", "remap", "dependency"};
#define PASS_NAMES "pruning, cse, qdq, constfold, transpose, shape, arithmetic, remap, dependency"

static bool is_pass_name(const char *s, size_t len) {
    for (size_t k = 0; k < sizeof pass_names / sizeof pass_names[0]; k++) {
        if (strlen(pass_names[k]) == len && strncmp(pass_names[k], s, len) == 0) {
            return true;
        }
    }
    return false;
}

/* --passes LIST: default, all, none, or a comma list of pass names. */
static int check_passes(const char *list) {
    if (strcmp(list, "default") == 0 || strcmp(list, "all") == 0 || strcmp(list, "none") == 0) {
        return 0;
    }
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (!is_pass_name(p, len)) {
            /* The engine's wording (src/passes/pipeline.c), as a server says it. */
            return fl_cli_usage_error(
                "--passes: unknown pass '%.*s' (passes: " PASS_NAMES ", or none)", (int)len, p);
        }
        p += len;
        if (!*p) {
            return 0;
        }
    }
}

/* --disable NAME: one pass name. */
static int check_disabled(const char *name) {
    if (is_pass_name(name, strlen(name))) {
        return 0;
    }
    return fl_cli_usage_error("--disable: unknown pass '%s' (the passes: " PASS_NAMES "%s)", name,
                              strcmp(name, "remapper") == 0
                                  ? "; the remapper's rule set is chosen with --remapper "
                                    "standard|onednn"
                                  : "");
}

/* --bind SYMBOL=N, quoting the part that is wrong. */
static int parse_bind_arg(cli *c, char *arg) {
    char *name, *rest;
    int64_t v;
    if (!split_eq(arg, &name, &rest)) {
        return fl_cli_usage_error("--bind expects SYMBOL=N, got '%s'", arg);
    }
    if (!parse_i64(rest, &v) || v < 0) {
        return fl_cli_usage_error("--bind %s: '%s' is not an integer >= 0 (that fits 64 bits)",
                                  name, rest);
    }
    c->symbols[c->n_symbols].name = name;
    c->symbols[c->n_symbols++].value = v;
    return 0;
}

/* The rewrite passes' options. Returns 1 when `a` is one (value consumed),
 * 0 when not, or an exit status after a usage error. */
static int parse_pass_option(cli *c, const char *a, const char *val, int *i) {
    bool takes_value = strcmp(a, "--passes") == 0 || strcmp(a, "--disable") == 0 ||
                       strcmp(a, "--output") == 0 || strcmp(a, "--device") == 0 ||
                       strcmp(a, "--remapper") == 0;
    if (strcmp(a, "--cudnn-persistent-batchnorm") == 0) {
        c->opt.cudnn_persistent_batchnorm = true;
        return 1;
    }
    if (!takes_value) {
        return 0;
    }
    if (!val) {
        return fl_cli_usage_error("option %s needs a value", a);
    }
    ++*i;
    int rc = 0;
    if (strcmp(a, "--passes") == 0) {
        c->passes = val;
        rc = check_passes(val);
    } else if (strcmp(a, "--disable") == 0) {
        c->disabled[c->n_disabled++] = val;
        rc = check_disabled(val);
    } else if (strcmp(a, "--output") == 0) {
        c->outputs[c->n_outputs++] = val;
    } else if (strcmp(a, "--device") == 0) {
        if (strcmp(val, "cpu") != 0 && strcmp(val, "gpu") != 0) {
            return fl_cli_usage_error("--device must be cpu or gpu, got '%s'", val);
        }
        c->opt.device = strcmp(val, "gpu") == 0 ? FL_DEVICE_GPU : FL_DEVICE_CPU;
    } else {
        if (strcmp(val, "standard") != 0 && strcmp(val, "onednn") != 0) {
            return fl_cli_usage_error("--remapper must be standard or onednn, got '%s'", val);
        }
        c->opt.remapper_mode =
            strcmp(val, "onednn") == 0 ? FL_REMAPPER_ONEDNN : FL_REMAPPER_STANDARD;
    }
    return rc ? rc : 1;
}

/* --top and the limits; as parse_pass_option. */
static int parse_limit_option(cli *c, const char *a, const char *val, int *i) {
    int64_t *dst = strcmp(a, "--top") == 0                  ? &c->top
                   : strcmp(a, "--max-nodes") == 0          ? &c->opt.max_nodes
                   : strcmp(a, "--max-value-elements") == 0 ? &c->opt.max_value_elements
                   : strcmp(a, "--max-folded-bytes") == 0   ? &c->opt.max_folded_bytes
                                                            : NULL;
    int64_t mb, least = strcmp(a, "--max-nodes") == 0 || strcmp(a, "--max-folded-bytes") == 0;
    if (!dst && strcmp(a, "--max-memory-mb") != 0) {
        return 0;
    }
    if (!val) {
        return fl_cli_usage_error("option %s needs a value", a);
    }
    ++*i;
    if (dst) {
        if (!parse_i64(val, dst) || *dst < least) {
            return fl_cli_usage_error("%s expects an integer >= %d, got '%s'", a, (int)least, val);
        }
        return 1;
    }
    if (!parse_i64(val, &mb) || mb < 0 || mb > (int64_t)(SIZE_MAX >> 21)) {
        return fl_cli_usage_error("--max-memory-mb expects an integer >= 0, got '%s'", val);
    }
    c->opt.max_memory_bytes = (size_t)mb << 20;
    return 1;
}

/* --format NAME. */
static int parse_format(cli *c, const char *val) {
    static const char *const names[] = {"graphdef", "savedmodel", "onnx", "tfjs", "tflite"};
    static const fl_format formats[] = {FL_FORMAT_GRAPHDEF, FL_FORMAT_SAVEDMODEL, FL_FORMAT_ONNX,
                                        FL_FORMAT_TFJS, FL_FORMAT_TFLITE};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(val, names[k]) == 0) {
            c->opt.format = formats[k];
            return 0;
        }
    }
    return fl_cli_usage_error(
        "--format must be graphdef, savedmodel, onnx, tfjs or tflite, got '%s'", val);
}

/* 0 when `a` is one of the remote options (which go before the command). */
static int parse_remote_option(const char *a);

/* An argument no option parser took: the model, or a usage error. */
static int parse_other(cli *c, const char *a) {
    if (a[0] == '-' && a[1] && parse_remote_option(a) == 0) {
        return fl_cli_usage_error("%s is an option of remote mode: it goes before the command "
                                  "(foldline --server HOST:PORT [remote options] %s MODEL ...)",
                                  a, c->optimize ? "optimize" : "analyze");
    }
    if (a[0] == '-' && a[1]) {
        return fl_cli_usage_error("unknown option '%s'", a);
    }
    if (c->model) {
        return fl_cli_usage_error("unexpected argument '%s' (one MODEL only)", a);
    }
    c->model = a;
    return 0;
}

/* What the options together must satisfy, and the options the engine gets. */
static int finish_args(cli *c) {
    if (!c->model) {
        return fl_cli_usage_error("%s", c->optimize ? "optimize needs a MODEL file"
                                                    : "analyze needs a MODEL file");
    }
    if (c->optimize && !c->out_path) {
        return fl_cli_usage_error("%s", "optimize needs -o OUT.pb");
    }
    if (c->optimize && (c->roof.n_names || c->roof.n_sweep)) {
        return fl_cli_usage_error("optimize takes no %s (time estimates are analyze's: foldline "
                                  "analyze MODEL --profile NAME)",
                                  c->roof.n_sweep ? "--sweep" : "--profile");
    }
    if (c->optimize && c->opt.per_node && !c->json) {
        return fl_cli_usage_error("%s", "optimize --per-node lists the nodes in its --json output "
                                        "only (or use analyze --per-node)");
    }
    size_t model_len = strlen(c->model);
    if (c->opt.format == FL_FORMAT_AUTO && model_len > 5 &&
        strcmp(c->model + model_len - 5, ".onnx") == 0) {
        c->opt.format = FL_FORMAT_ONNX;
    }
    /* Both commands run every pass unless told otherwise; `analyze` then
     * prints before/after and the ledger. `analyze --passes none` is exactly
     * the analysis of the graph as given (no pass stage at all). */
    c->opt.passes = c->passes ? c->passes : "default";
    if (c->opt.passes && strcmp(c->opt.passes, "none") == 0 && !c->optimize) {
        c->opt.passes = NULL;
    }
    c->opt.disabled_passes = c->disabled;
    c->opt.n_disabled_passes = c->n_disabled;
    c->opt.output_names = c->outputs;
    c->opt.n_output_names = c->n_outputs;
    c->opt.return_graph = c->optimize;
    c->opt.inputs = c->inputs;
    c->opt.n_inputs = c->n_inputs;
    c->opt.symbols = c->symbols;
    c->opt.n_symbols = c->n_symbols;
    c->opt.values = c->values;
    c->opt.n_values = c->n_values;
    c->opt.tensor_values = c->tvalues;
    c->opt.n_tensor_values = c->n_tvalues;
    return 0;
}

/* A TF.js model's shards, from beside it, into c->opt.files; not sent with
 * --strip-weights (the server then knows every weight's shape and dtype, no
 * value). false with a message on stderr when one cannot be read. */
static bool load_side(cli *c, bool remote_mode, const void *buf, size_t len) {
    char err[512];
    if (!(remote_mode && remote_strip >= 0) &&
        fl_cli_files_load(&c->side, c->model, buf, len, c->opt.format, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: %s\n", err);
        return false;
    }
    c->opt.files = c->side.files;
    c->opt.n_files = c->side.n;
    return true;
}

/* The output flags (no value): true when `a` is one, recorded in c. */
static bool output_flag(cli *c, const char *a) {
    bool *flag = strcmp(a, "--per-node") == 0           ? &c->opt.per_node
                 : strcmp(a, "--json") == 0             ? &c->json
                 : strcmp(a, "--summary") == 0          ? &c->summary
                 : strcmp(a, "--require-complete") == 0 ? &c->require_complete
                                                        : NULL;
    if (flag) {
        *flag = true;
    }
    return flag != NULL;
}

static int parse_args(cli *c, int argc, char **argv) {
    c->inputs = calloc((size_t)argc, sizeof(*c->inputs));
    c->symbols = calloc((size_t)argc, sizeof(*c->symbols));
    c->values = calloc((size_t)argc, sizeof(*c->values));
    c->tvalues = calloc((size_t)argc, sizeof(*c->tvalues));
    c->disabled = calloc((size_t)argc + 1, sizeof(char *));
    c->outputs = calloc((size_t)argc + 1, sizeof(char *));
    if (!c->inputs || !c->symbols || !c->values || !c->tvalues || !c->disabled || !c->outputs) {
        return fl_cli_usage_error("%s", "out of memory");
    }
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        bool binding = strcmp(a, "--input") == 0 || strcmp(a, "--bind") == 0 ||
                       strcmp(a, "--value") == 0 || strcmp(a, "--format") == 0 ||
                       strcmp(a, "--tag") == 0 || (c->optimize && strcmp(a, "-o") == 0);
        int rc;
        if (binding && !val) {
            return fl_cli_usage_error("option %s needs a value", a);
        } else if (binding) {
            char *v = argv[++i];
            rc = strcmp(a, "--input") == 0    ? parse_input_arg(c, v)
                 : strcmp(a, "--bind") == 0   ? parse_bind_arg(c, v)
                 : strcmp(a, "--value") == 0  ? parse_value_arg(c, v)
                 : strcmp(a, "--format") == 0 ? parse_format(c, v)
                                              : 0;
            if (strcmp(a, "--tag") == 0) {
                c->opt.saved_model_tag = v;
            } else if (strcmp(a, "-o") == 0) {
                c->out_path = v;
            }
        } else if (output_flag(c, a)) {
            rc = 0; /* --per-node, --json, --summary, --require-complete */
        } else if ((rc = parse_pass_option(c, a, val, &i)) != 0 ||
                   (rc = parse_limit_option(c, a, val, &i)) != 0) {
            rc = rc == 1 ? 0 : rc;
        } else if ((rc = fl_roof_cli_option(&c->roof, argc, argv, &i)) != 0 ||
                   (rc = fl_llm_cli_option(&c->llm, argc, argv, &i)) != 0) {
            rc = rc == 2 ? EXIT_USAGE : 0;
        } else {
            rc = parse_other(c, a);
        }
        if (rc) {
            return rc;
        }
    }
    return finish_args(c);
}

static void cli_free(cli *c) {
    fl_cli_progress_end(&c->progress);
    fl_cli_files_free(&c->side);
    for (size_t i = 0; i < c->n_inputs; i++) {
        free((void *)c->inputs[i].dims);
    }
    free(c->inputs);
    free(c->symbols);
    for (size_t i = 0; i < c->n_tvalues; i++) {
        free((void *)c->tvalues[i].values);
    }
    free(c->tvalues);
    free(c->values);
    free(c->disabled);
    free(c->outputs);
    fl_roof_cli_free(&c->roof);
}

/* One remote analysis of a --sweep (fl_roof_backend): the exit status local
 * mode would give, the message in err. */
static int remote_sweep_analyze(void *ctx, const unsigned char *buf, size_t len,
                                const fl_options *opt, fl_report **out, char *err, size_t errlen) {
    (void)ctx;
    char msg[1024];
    fl_status est = FL_OK;
    fl_remote_failure rf = fl_remote_analyze(&remote, buf, len, opt, out, &est, msg, sizeof msg);
    if (rf == FL_REMOTE_OK) {
        return 0;
    }
    if (rf == FL_REMOTE_TRANSPORT) {
        snprintf(err, errlen, "server %s: %s", remote.server, msg);
        return EXIT_IO;
    }
    snprintf(err, errlen, "%s", msg);
    return fl_cli_exit_of(est);
}

/* `foldline --server HOST:PORT profiles [--sources] [--json]`: the server's
 * profiles (ListProfiles), printed as `foldline profiles` prints local ones. */
static int cmd_remote_profiles(int argc, char **argv) {
    bool json = false, verbose = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--sources") == 0) {
            verbose = true;
        } else {
            return fl_cli_usage_error(
                "profiles: unknown argument '%s' (with --server: --sources, --json)", argv[i]);
        }
    }
    int rc = fl_remote_require();
    if (rc) {
        return rc;
    }
    fl_profile_set set;
    char *dir = NULL, err[1024];
    if (fl_remote_list_profiles(&remote, &set, &dir, err, sizeof err) != FL_REMOTE_OK) {
        fprintf(stderr, "foldline: server %s: %s\n", remote.server, err);
        return EXIT_IO;
    }
    fl_print_profiles(&set, dir, json, verbose);
    fl_remote_profiles_free(&set, dir);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
        return EXIT_IO;
    }
    return 0;
}

/* `foldline --server HOST:PORT health [SERVICE]`: the server's Health/Check
 * answer on stdout; exit 0 when SERVING, 3 otherwise (not serving, not
 * reachable, or the call failed). For container and service health checks. */
static int cmd_remote_health(int argc, char **argv) {
    if (argc > 1) {
        return fl_cli_usage_error("health: expected at most one SERVICE name, got '%s'", argv[1]);
    }
    int rc = fl_remote_require();
    if (rc) {
        return rc;
    }
    char status[64], err[1024];
    if (fl_remote_health(&remote, argc ? argv[0] : "", status, sizeof status, err, sizeof err) !=
        FL_REMOTE_OK) {
        fprintf(stderr, "foldline: server %s: %s\n", remote.server, err);
        return EXIT_IO;
    }
    printf("%s\n", status);
    return strcmp(status, "SERVING") == 0 ? 0 : EXIT_IO;
}

/* Writes the optimised graph of `foldline optimize` and prints its summary. */
static int write_optimized(const cli *c, const fl_report *r) {
    FILE *f = fopen(c->out_path, "wb");
    if (!f) {
        fprintf(stderr, "foldline: cannot open '%s' for writing: %s\n", c->out_path,
                strerror(errno));
        return EXIT_IO;
    }
    size_t w = r->graph_len ? fwrite(r->graph_bytes, 1, r->graph_len, f) : 0;
    if (fclose(f) != 0 || w != r->graph_len) {
        fprintf(stderr, "foldline: cannot write '%s': %s\n", c->out_path, strerror(errno));
        return EXIT_IO;
    }
    if (c->summary) {
        fl_print_summary(stdout, r, c->model);
    } else if (c->json) {
        fl_print_json(stdout, r, c->model);
    } else {
        printf("wrote     %s (%zu bytes, %" PRId64 " nodes; %" PRId64 " before)\n", c->out_path,
               r->graph_len, r->after.nodes, r->before.nodes);
        fl_print_passes_text(stdout, r);
    }
    return 0;
}

/* With --strip-weights: drops large constant contents before sending. 0, or
 * EXIT_BAD_MODEL after a message naming what is wrong with the model. */
static int strip_for_remote(fl_cli_model *m, const char *path, fl_format format) {
    if (remote_strip < 0) {
        return 0;
    }
    size_t slen = 0;
    unsigned char *sbuf = NULL;
    char err[1024];
    int rc =
        fl_strip_weights(m->bytes, m->len, format, remote_strip, &sbuf, &slen, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "foldline: %s: --strip-weights: %s\n", path, err);
        return EXIT_BAD_MODEL;
    }
    if (sbuf) {
        fl_cli_model_replace(m, sbuf, slen);
    }
    return 0;
}

/* 0 when the mapped model did not change during the analysis, else EXIT_IO
 * after the message (the result is not printed). */
static int model_unchanged(const fl_cli_model *m) {
    char err[1024];
    if (fl_cli_model_check(m, err, sizeof err) != 0) {
        fprintf(stderr, "foldline: %s\n", err);
        return EXIT_IO;
    }
    return 0;
}

/* Parses a command's arguments and checks what needs the profiles or the
 * server's module; 0 or the exit status. */
static int prepare_command(cli *c, int argc, char **argv, bool optimize) {
    memset(c, 0, sizeof *c);
    fl_options_init(&c->opt);
    c->top = 10;
    c->optimize = optimize;
    int rc = parse_args(c, argc, argv);
    fl_cli_progress_begin(&c->progress, c->model);
    c->opt.should_stop = fl_cli_progress_tick;
    c->opt.stop_arg = &c->progress;
    c->opt.progress = fl_cli_progress_phase;
    c->opt.progress_arg = &c->progress;
    if (rc == 0 && optimize && c->roof.n_sweep) {
        rc = fl_cli_usage_error("%s", "optimize takes no --sweep");
    }
    if (rc == 0) { /* remotely, the server resolves the names */
        rc = remote.server ? fl_roof_cli_check_remote(&c->roof)
                           : fl_roof_cli_prepare(&c->roof, &c->opt);
    }
    if (rc == 0 && remote.server && c->n_tvalues) { /* the wire's ValueBinding is a scalar */
        rc = fl_cli_usage_error("--value %s: tensor values are not sent to a server yet; "
                                "analyse locally",
                                c->tvalues[0].name);
    }
    if (rc == 0 && remote.server) { /* loads gRPC: only now, after the usage checks */
        rc = fl_remote_require();
    }
    return rc;
}

/* Prints the report as asked (writing the graph for optimize); the exit
 * status: EXIT_PARTIAL with --require-complete when it is partial. */
static int print_report(const cli *c, const fl_report *r) {
    int rc = 0;
    if (c->optimize) {
        rc = write_optimized(c, r);
    } else if (c->summary) {
        fl_print_summary(stdout, r, c->model);
    } else if (c->json) {
        fl_print_json(stdout, r, c->model);
    } else {
        fl_print_text(stdout, r, c->model, (size_t)c->top);
        fl_llm_view(stdout, r); /* when the engine computed it (fl_options.llm) */
    }
    if (rc == 0 && c->require_complete && !r->complete) {
        fprintf(stderr,
                "foldline: %s: the answer is partial: the totals leave out the FLOPs of %" PRId64
                " of %" PRId64 " nodes (--require-complete)\n",
                c->model, r->nodes_excluded, r->n_nodes);
        rc = EXIT_PARTIAL;
    }
    return rc;
}

static int run_command(int argc, char **argv, bool optimize) {
    cli c;
    int rc = prepare_command(&c, argc, argv, optimize);
    if (rc) {
        cli_free(&c);
        return rc;
    }
    if (!optimize) { /* the LLM view of a decoder (llm.h) */
        fl_llm_cli_apply(&c.llm, &c.opt);
    }
    char err[1024];
    fl_cli_model m;
    if (open_model(&m, c.model) != 0 || !load_side(&c, remote.server != NULL, m.bytes, m.len)) {
        fl_cli_model_close(&m);
        cli_free(&c);
        return EXIT_IO;
    }
    fl_report *r = NULL;
    if (remote.server) {
        remote.profiles = c.roof.names;
        remote.n_profiles = c.roof.n_names;
    }
    rc = remote.server ? strip_for_remote(&m, c.model, c.opt.format) : 0;
    if (rc) {
        fl_cli_model_close(&m);
        cli_free(&c);
        return rc;
    }
    if (remote.server && c.roof.n_sweep) {
        fl_roof_backend be = {remote_sweep_analyze, fl_remote_report_free, NULL};
        c.roof.summary = c.summary;
        c.roof.require_complete = c.require_complete;
        rc = fl_roof_cli_sweep(&c.roof, m.bytes, m.len, &c.opt, c.json || c.summary, c.model, &be);
        fl_cli_model_close(&m);
        cli_free(&c);
        return rc;
    }
    if (remote.server) {
        fl_status est = FL_OK;
        fl_remote_failure rf =
            fl_remote_analyze(&remote, m.bytes, m.len, &c.opt, &r, &est, err, sizeof err);
        if (rf != FL_REMOTE_OK) {
            fl_cli_model_close(&m);
            if (rf == FL_REMOTE_ENGINE) {
                fprintf(stderr, "foldline: %s: %s\n", c.model, err);
            } else {
                fprintf(stderr, "foldline: server %s: %s\n", remote.server, err);
            }
            cli_free(&c);
            return rf == FL_REMOTE_ENGINE ? fl_cli_exit_of(est) : EXIT_IO;
        }
        rc = print_report(&c, r); /* optimize: the server sent the graph back */
        fl_cli_model_close(&m);
        fl_remote_report_free(r);
        cli_free(&c);
        if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
            fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
            return EXIT_IO;
        }
        return rc;
    }
    if (c.roof.n_sweep) {
        c.roof.summary = c.summary;
        c.roof.require_complete = c.require_complete;
        rc = fl_roof_cli_sweep(&c.roof, m.bytes, m.len, &c.opt, c.json || c.summary, c.model, NULL);
        rc = rc == 0 ? model_unchanged(&m) : rc;
        fl_cli_model_close(&m);
        cli_free(&c);
        return rc;
    }
    fl_status st = fl_analyze(m.bytes, m.len, &c.opt, &r);
    if (model_unchanged(&m) != 0) {
        fl_cli_model_close(&m);
        fl_report_free(r);
        cli_free(&c);
        return EXIT_IO;
    }
    if (st != FL_OK) {
        fl_cli_model_close(&m);
        fprintf(stderr, "foldline: %s: %s\n", c.model,
                r && r->error ? r->error : fl_status_str(st));
        fl_report_free(r);
        cli_free(&c);
        return fl_cli_exit_of(st);
    }
    rc = print_report(&c, r);
    fl_cli_model_close(&m);
    fl_report_free(r);
    cli_free(&c);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

/* Reads c->model and analyses it, locally or on the server (no --sweep);
 * 0 with *out (freed with release_report), or the exit status after a
 * message. For the commands built on analyze (analysis.h). */
static int analyze_model(cli *c, fl_report **out) {
    char err[1024];
    fl_cli_model m;
    *out = NULL;
    if (open_model(&m, c->model) != 0 || !load_side(c, remote.server != NULL, m.bytes, m.len)) {
        fl_cli_model_close(&m);
        return EXIT_IO;
    }
    fl_report *r = NULL;
    fl_status st = FL_OK;
    if (remote.server) {
        remote.profiles = c->roof.names;
        remote.n_profiles = c->roof.n_names;
        int src = strip_for_remote(&m, c->model, c->opt.format);
        if (src) {
            fl_cli_model_close(&m);
            return src;
        }
        fl_remote_failure rf =
            fl_remote_analyze(&remote, m.bytes, m.len, &c->opt, &r, &st, err, sizeof err);
        fl_cli_model_close(&m);
        if (rf != FL_REMOTE_OK) {
            fprintf(stderr, "foldline: %s%s: %s\n", rf == FL_REMOTE_ENGINE ? "" : "server ",
                    rf == FL_REMOTE_ENGINE ? c->model : remote.server, err);
            return rf == FL_REMOTE_ENGINE ? fl_cli_exit_of(st) : EXIT_IO;
        }
        *out = r;
        return 0;
    }
    st = fl_analyze(m.bytes, m.len, &c->opt, &r);
    int rc = model_unchanged(&m);
    fl_cli_model_close(&m);
    if (rc == 0 && st != FL_OK) {
        fprintf(stderr, "foldline: %s: %s\n", c->model,
                r && r->error ? r->error : fl_status_str(st));
        rc = fl_cli_exit_of(st);
    }
    if (rc) {
        fl_report_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

static void release_report(fl_report *r) {
    if (remote.server) {
        fl_remote_report_free(r);
    } else {
        fl_report_free(r);
    }
}

/* An analysis for the other commands (analysis.h). */
struct fl_cli_analysis {
    cli c;
    fl_report *r;
    char **argv; /* copies: the parser cuts bindings at their '=' */
    int argc;
    /* Remote mode: the server's profiles (ListProfiles), so that a card or
     * report names and draws the profiles the server estimated with, as
     * local mode does with its own. */
    fl_profile_set server_profiles;
    char *server_dir;
    bool has_server_profiles;
};

/* Remote mode, estimates asked: fetches the server's profiles once. */
static int fetch_server_profiles(fl_cli_analysis *a) {
    if (!remote.server || !a->r->n_roofline) {
        return 0;
    }
    char err[1024];
    if (fl_remote_list_profiles(&remote, &a->server_profiles, &a->server_dir, err, sizeof err) !=
        FL_REMOTE_OK) {
        fprintf(stderr, "foldline: server %s: %s\n", remote.server, err);
        return EXIT_IO;
    }
    a->has_server_profiles = true;
    return 0;
}

int fl_cli_analysis_run(int argc, char **argv, fl_cli_analysis **out) {
    fl_cli_analysis *a = calloc(1, sizeof *a);
    *out = NULL;
    if (a && (a->argv = calloc((size_t)argc + 1, sizeof(char *))) != NULL) {
        for (a->argc = 0; a->argc < argc; a->argc++) {
            if (!(a->argv[a->argc] = strdup(argv[a->argc]))) {
                break;
            }
        }
    }
    if (!a || a->argc < argc) {
        fl_cli_analysis_free(a);
        fprintf(stderr, "foldline: out of memory\n");
        return EXIT_IO;
    }
    int rc = prepare_command(&a->c, argc, a->argv, false);
    if (rc == 0 && a->c.roof.n_sweep) {
        rc = fl_cli_usage_error("%s", "--sweep is an option of analyze");
    }
    fl_llm_cli_apply(&a->c.llm, &a->c.opt); /* the LLM view of a decoder */
    if (rc == 0) {
        rc = analyze_model(&a->c, &a->r);
    }
    if (rc == 0) {
        rc = fetch_server_profiles(a);
    }
    if (rc) {
        fl_cli_analysis_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

const fl_report *fl_cli_analysis_report(const fl_cli_analysis *a) {
    return a->r;
}

const fl_profile *fl_cli_analysis_profile(const fl_cli_analysis *a, size_t i) {
    if (!a->has_server_profiles) {
        return i < a->c.opt.n_profiles ? a->c.opt.profiles[i] : NULL;
    }
    for (size_t k = 0; i < a->r->n_roofline && k < a->server_profiles.n; k++) {
        if (strcmp(a->server_profiles.profiles[k]->name, a->r->roofline[i].profile) == 0) {
            return a->server_profiles.profiles[k];
        }
    }
    return NULL;
}

void fl_cli_analysis_free(fl_cli_analysis *a) {
    if (a) {
        if (a->r) {
            release_report(a->r);
        }
        if (a->has_server_profiles) {
            fl_remote_profiles_free(&a->server_profiles, a->server_dir);
        }
        cli_free(&a->c);
        for (int i = 0; i < a->argc; i++) {
            free(a->argv[i]);
        }
        free(a->argv);
        free(a);
    }
}

bool fl_cli_remote_mode(void) {
    return remote.server != NULL;
}

static int cmd_analyze(int argc, char **argv) {
    return run_command(argc, argv, false);
}

/* 0 when `a` is one of the remote options (which take a value). */
static int parse_remote_option(const char *a) {
    return strcmp(a, "--server") == 0 || strcmp(a, "--token-file") == 0 ||
                   strcmp(a, "--tls-ca") == 0 || strcmp(a, "--timeout-ms") == 0 ||
                   strcmp(a, "--strip-weights") == 0 || strcmp(a, "--tls") == 0
               ? 0
               : -1;
}

/* Reads the token: the file's first line, without its line end. */
static int read_token(const char *path) {
    char err[512];
    size_t len = 0;
    unsigned char *buf = read_file(path, &len, err, sizeof err);
    if (!buf) {
        fprintf(stderr, "foldline: --token-file: %s\n", err);
        return EXIT_IO;
    }
    size_t n = 0;
    while (n < len && buf[n] != '\n' && buf[n] != '\r' && buf[n] != '\0') {
        n++;
    }
    remote_token = malloc(n + 1);
    if (!remote_token) {
        free(buf);
        return EXIT_IO;
    }
    memcpy(remote_token, buf, n);
    remote_token[n] = '\0';
    free(buf);
    remote.token = remote_token;
    return 0;
}

/* `foldline --server HOST:PORT [...] analyze MODEL ...`: the remote options,
 * then the command. */
static int main_remote(int argc, char **argv) {
    int i = 1;
    remote.stream_above = 512 << 10;
    remote.chunk_bytes = 512 << 10;
    while (i < argc && parse_remote_option(argv[i]) == 0) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--strip-weights") == 0) { /* optional value */
            remote_strip = 1024;
            i += v && parse_i64(v, &remote_strip) ? 2 : 1;
            if (remote_strip < 0) {
                return fl_cli_usage_error("--strip-weights expects BYTES >= 0, got '%s'", v);
            }
            continue;
        }
        if (strcmp(a, "--tls") == 0) { /* no value */
            remote.tls = true;
            i++;
            continue;
        }
        if (!v) {
            return fl_cli_usage_error("option %s needs a value", a);
        }
        if (strcmp(a, "--server") == 0) {
            remote.server = v;
        } else if (strcmp(a, "--tls-ca") == 0) {
            remote.tls_ca = v;
        } else if (strcmp(a, "--timeout-ms") == 0) {
            if (!parse_i64(v, &remote.timeout_ms) || remote.timeout_ms <= 0) {
                return fl_cli_usage_error("--timeout-ms expects a positive integer, got '%s'", v);
            }
        } else {
            int rc = read_token(v);
            if (rc) {
                return rc;
            }
        }
        i += 2;
    }
    int rc;
    fl_cli_set_command(i < argc ? argv[i] : NULL);
    if (!remote.server) {
        rc = fl_cli_usage_error(
            "%s", "--token-file, --tls, --tls-ca, --timeout-ms and --strip-weights need "
                  "--server HOST:PORT");
    } else if (i < argc && strcmp(argv[i], "profiles") == 0) {
        rc = cmd_remote_profiles(argc - i - 1, argv + i + 1);
    } else if (i < argc && strcmp(argv[i], "health") == 0) {
        rc = cmd_remote_health(argc - i - 1, argv + i + 1);
    } else if (i < argc && strcmp(argv[i], "diff") == 0) {
        rc = fl_cmd_diff(argc - i - 1, argv + i + 1);
    } else if (i < argc && strcmp(argv[i], "card") == 0) {
        rc = fl_cmd_card(argc - i - 1, argv + i + 1);
    } else if (i < argc && strcmp(argv[i], "report") == 0) {
        rc = fl_cmd_report(argc - i - 1, argv + i + 1);
    } else if (i < argc && strcmp(argv[i], "optimize") == 0) {
        rc = run_command(argc - i - 1, argv + i + 1, true);
    } else if (i >= argc || strcmp(argv[i], "analyze") != 0) {
        rc = fl_cli_usage_error(
            "%s", "expected the command 'analyze', 'optimize', 'diff', 'card', 'report', "
                  "'profiles' or 'health' after the remote "
                  "options");
    } else {
        rc = cmd_analyze(argc - i - 1, argv + i + 1);
    }
    free(remote_token);
    return rc;
}

/* `foldline help COMMAND` and `foldline COMMAND --help|-h`: the command's
 * usage (analyze and optimize: the whole text, which lists their options). */
static const char *const command_help[][2] = {
    {"profiles", "usage: foldline profiles [--profiles-dir DIR] [--sources] [--json]\n"
                 "       foldline --server HOST:PORT [remote options] profiles [--sources] "
                 "[--json]\n\n"
                 "List the device profiles with their key figures (--sources: every figure "
                 "with its\nsource).\n"},
    {"calibrate", "usage: foldline calibrate [-o FILE] [--threads N] [--short] [--name NAME]\n\n"
                  "Measure this host and write a device profile (see README, \"Calibration\").\n"},
    {"fit", "usage: foldline fit --profile BASE -o OUT.yaml [--bind SYM=N] [--quantile Q] "
            "[--gap-per-kernel] MODEL=TRACE[@MS]...\n\n"
            "Fit a profile's efficiency tables to measured traces (see README): ONNX Runtime's\n"
            "profile of an ONNX model, or TensorFlow's timeline JSON or RunMetadata/StepStats\n"
            "of a GraphDef/SavedModel (CPU nodes). The run's gap\n"
            "beyond its kernels is fitted as a share of their time (the profile's `gap`);\n"
            "--gap-per-kernel fits it as a cost per kernel alone.\n"},
    {"diff", "usage: foldline diff BASE NEW [analyze options] [--fail-on METRIC:+N%] [--json]\n\n"
             "Compare two models' costs (totals, op types, time per --profile, nodes by name).\n"
             "--bind SYM=N binds SYM in the models that have it. --fail-on METRIC:+N% (or -N%,\n"
             "+N) exits 1 when METRIC moved more; metrics: " FL_DIFF_METRICS ".\n"
             "Exit 0, 1 (a threshold exceeded, or a bad model), 2 usage, 3 I/O.\n"},
    {"card", "usage: foldline card MODEL [analyze options] [--profile NAME|FILE|all] "
             "[--format md|json]\n\n"
             "A model-card section: parameters, FLOPs/MACs/bytes as formulas and at the --bind\n"
             "values (free symbols not bound: 1), latency per --profile with its source.\n"
             "The model's format is --model-format here.\n"},
    {"report", "usage: foldline report MODEL [analyze options] [--profile NAME|FILE|all] "
               "[--sweep SYM=V1,V2,...] -o OUT.html\n\n"
               "One self-contained HTML page: summary, roofline chart per profile, top ops,\n"
               "pass ledger, sweep chart (see README, \"HTML report\").\n"},
    {"schema", "usage: foldline schema\n\n"
               "Print the JSON Schema (draft 2020-12) of foldline's JSON documents.\n"},
    {"health", "usage: foldline --server HOST:PORT [remote options] health [SERVICE]\n\n"
               "Ask a foldlined server's Health/Check; exit 0 when it is SERVING, 3 "
               "otherwise.\n"},
};

static int print_help(const char *cmd) {
    for (size_t k = 0; cmd && k < sizeof command_help / sizeof command_help[0]; k++) {
        if (strcmp(cmd, command_help[k][0]) == 0) {
            fputs(command_help[k][1], stdout);
            return 0;
        }
    }
    if (cmd && strcmp(cmd, "analyze") != 0 && strcmp(cmd, "optimize") != 0) {
        return fl_cli_usage_error("help: unknown command '%s' (the commands: analyze, optimize, "
                                  "profiles, calibrate, fit, health, diff, card, report, schema)",
                                  cmd);
    }
    fputs(usage_text, stdout);
    return 0;
}

/* --help or -h among a command's arguments. */
static bool wants_help(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return true;
        }
    }
    return false;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        return print_help(NULL);
    }
    if (strcmp(cmd, "help") == 0) {
        return print_help(argc > 2 ? argv[2] : NULL);
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("foldline %s\n", fl_version());
        return 0;
    }
    fl_cli_set_command(cmd[0] == '-' ? NULL : cmd);
    if (cmd[0] != '-' && wants_help(argc - 2, argv + 2)) {
        return print_help(cmd);
    }
    if (strcmp(cmd, "analyze") == 0) {
        return cmd_analyze(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "optimize") == 0) {
        return run_command(argc - 2, argv + 2, true);
    }
    if (strcmp(cmd, "profiles") == 0) {
        return fl_cmd_profiles(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "calibrate") == 0) {
        return fl_cmd_calibrate(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "fit") == 0) {
        return fl_cmd_fit(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "diff") == 0) {
        return fl_cmd_diff(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "card") == 0) {
        return fl_cmd_card(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "report") == 0) {
        return fl_cmd_report(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "schema") == 0) {
        return fl_cmd_schema(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "health") == 0) {
        return fl_cli_usage_error("%s", "health asks a server: foldline --server HOST:PORT "
                                        "health [SERVICE]");
    }
    if (strncmp(cmd, "--", 2) == 0 && parse_remote_option(cmd) == 0) {
        return main_remote(argc, argv);
    }
    if (cmd[0] == '-') {
        return fl_cli_usage_error("%s before the command: only --server and the remote options "
                                  "go there; options of analyze and optimize go after the "
                                  "command (foldline analyze MODEL %s)",
                                  cmd, cmd);
    }
    return fl_cli_usage_error("unknown command '%s' (the commands: analyze, optimize, profiles, "
                              "calibrate, fit, health, diff, card, report, schema)",
                              cmd);
}
