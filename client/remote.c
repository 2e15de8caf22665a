/*
 * remote.c - the CLI's remote mode (see remote.h): fl_options -> AnalyzeRequest
 * (or a stream of AnalyzeChunk for large graphs), a blocking gRPC call through
 * the C core, and AnalyzeReply -> an fl_report the printers read (through
 * proto/glue/report_pb.c, the mapping the server encodes with).
 *
 * This file is the module foldline-remote.so (built only when gRPC is
 * available), not part of the foldline executable: the CLI dlopens it when
 * remote mode runs and calls it through the table at the end of this file
 * (remote_module.h; the loader is remote_load.c).
 */
#include "foldline/v1/cost_model.pb-c.h"
#include "grpc_health/v1/health.pb-c.h"
#include "remote_module.h"
#include "report_pb.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine's name tables, lent by the CLI (fl_remote_module.init). */
static const fl_remote_host *host;

/* ------------------------------------------------------------------------- */
/* Request                                                                    */
/* ------------------------------------------------------------------------- */

/* The request's sub-messages; they point into `opt`, which outlives them. */
typedef struct req_parts {
    Foldline__V1__AnalyzeOptions options;
    Foldline__V1__Limits limits;
    Foldline__V1__LlmOptions llm;
    Foldline__V1__InputShape *inputs, **input_ptrs;
    Foldline__V1__SymbolBinding *symbols, **symbol_ptrs;
    Foldline__V1__ValueBinding *values, **value_ptrs;
    int *passes, *disabled; /* Foldline__V1__Pass values */
} req_parts;

static void req_parts_free(req_parts *p) {
    free(p->inputs);
    free(p->input_ptrs);
    free(p->symbols);
    free(p->symbol_ptrs);
    free(p->values);
    free(p->value_ptrs);
    free(p->passes);
    free(p->disabled);
}

/* The Pass value of `name` (len bytes); false when it names no pass. */
static bool pass_value(const char *name, size_t len, int *out) {
    char buf[64];
    if (len == 0 || len >= sizeof buf) {
        return false;
    }
    memcpy(buf, name, len);
    buf[len] = '\0';
    return fl_pb_enum_value(&foldline__v1__pass__descriptor, "PASS_", buf, out) &&
           *out != FOLDLINE__V1__PASS__PASS_UNSPECIFIED;
}

/* The CLI's pass selection (a comma list, "default", "none" or NULL) and
 * disabled passes as the request's enums. A name that is no pass is the
 * engine's usage error, with its words (err), as locally. */
static bool build_passes(const fl_options *o, req_parts *p, char *err, size_t errlen) {
    Foldline__V1__AnalyzeOptions *m = &p->options;
    const char *s = o->passes;
    p->passes = calloc(s ? strlen(s) + 1 : 1, sizeof(int));
    p->disabled = calloc(o->n_disabled_passes + 1, sizeof(int));
    if (!p->passes || !p->disabled) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (!s || strcmp(s, "none") == 0) {
        m->pass_selection = FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_NONE;
    } else if (strcmp(s, "default") == 0 || strcmp(s, "all") == 0) {
        m->pass_selection = FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_DEFAULT;
    } else {
        m->pass_selection = FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_LIST;
        while (*s) {
            size_t len = strcspn(s, ",");
            if (!pass_value(s, len, &p->passes[m->n_passes])) {
                snprintf(err, errlen,
                         "unknown pass '%.*s' (passes: pruning, cse, qdq, constfold, transpose, "
                         "shape, arithmetic, remap, dependency, or none)",
                         (int)len, s);
                return false;
            }
            m->n_passes++;
            s += len + (s[len] == ',');
        }
    }
    m->passes = (Foldline__V1__Pass *)p->passes;
    for (size_t i = 0; i < o->n_disabled_passes; i++) {
        const char *d = o->disabled_passes[i];
        if (!pass_value(d, strlen(d), &p->disabled[i])) {
            snprintf(err, errlen, "cannot disable unknown pass '%s'", d);
            return false;
        }
    }
    m->disabled_passes = (Foldline__V1__Pass *)p->disabled;
    m->n_disabled_passes = o->n_disabled_passes;
    return true;
}

static bool build_options(const fl_options *o, req_parts *p) {
    memset(p, 0, sizeof *p);
    foldline__v1__analyze_options__init(&p->options);
    foldline__v1__limits__init(&p->limits);
    Foldline__V1__AnalyzeOptions *m = &p->options;
    m->format = o->format == FL_FORMAT_GRAPHDEF ? FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_GRAPHDEF
                : o->format == FL_FORMAT_SAVEDMODEL
                    ? FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_SAVEDMODEL
                : o->format == FL_FORMAT_ONNX   ? FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_ONNX
                : o->format == FL_FORMAT_TFJS   ? FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_TFJS
                : o->format == FL_FORMAT_TFLITE ? FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_TFLITE
                                                : FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_AUTO;
    m->saved_model_tag = (char *)(o->saved_model_tag ? o->saved_model_tag : "");
    p->inputs = calloc(o->n_inputs + 1, sizeof *p->inputs);
    p->input_ptrs = calloc(o->n_inputs + 1, sizeof *p->input_ptrs);
    p->symbols = calloc(o->n_symbols + 1, sizeof *p->symbols);
    p->symbol_ptrs = calloc(o->n_symbols + 1, sizeof *p->symbol_ptrs);
    p->values = calloc(o->n_values + 1, sizeof *p->values);
    p->value_ptrs = calloc(o->n_values + 1, sizeof *p->value_ptrs);
    if (!p->inputs || !p->input_ptrs || !p->symbols || !p->symbol_ptrs || !p->values ||
        !p->value_ptrs) {
        return false;
    }
    for (size_t i = 0; i < o->n_inputs; i++) {
        foldline__v1__input_shape__init(&p->inputs[i]);
        p->inputs[i].name = (char *)o->inputs[i].name;
        p->inputs[i].n_dims = (size_t)o->inputs[i].rank;
        p->inputs[i].dims = (int64_t *)o->inputs[i].dims;
        p->input_ptrs[i] = &p->inputs[i];
    }
    for (size_t i = 0; i < o->n_symbols; i++) {
        foldline__v1__symbol_binding__init(&p->symbols[i]);
        p->symbols[i].name = (char *)o->symbols[i].name;
        p->symbols[i].value = o->symbols[i].value;
        p->symbol_ptrs[i] = &p->symbols[i];
    }
    for (size_t i = 0; i < o->n_values; i++) {
        foldline__v1__value_binding__init(&p->values[i]);
        p->values[i].name = (char *)o->values[i].name;
        p->values[i].value = o->values[i].value;
        p->value_ptrs[i] = &p->values[i];
    }
    m->n_inputs = o->n_inputs;
    m->inputs = p->input_ptrs;
    m->n_symbols = o->n_symbols;
    m->symbols = p->symbol_ptrs;
    m->n_values = o->n_values;
    m->values = p->value_ptrs;
    m->per_node = o->per_node;
    p->limits.max_nodes = o->max_nodes;
    p->limits.max_value_elements = o->max_value_elements;
    p->limits.max_memory_bytes = o->max_memory_bytes;
    m->limits = &p->limits;
    m->outputs = (char **)o->output_names;
    m->n_outputs = o->n_output_names;
    m->return_optimized_graph = o->return_graph;
    m->device = o->device == FL_DEVICE_GPU ? FOLDLINE__V1__DEVICE__DEVICE_GPU
                                           : FOLDLINE__V1__DEVICE__DEVICE_CPU;
    m->remapper_mode = o->remapper_mode == FL_REMAPPER_ONEDNN
                           ? FOLDLINE__V1__REMAPPER_MODE__REMAPPER_MODE_ONEDNN
                           : FOLDLINE__V1__REMAPPER_MODE__REMAPPER_MODE_STANDARD;
    m->max_folded_bytes = o->max_folded_bytes;
    m->cudnn_persistent_batchnorm = o->cudnn_persistent_batchnorm;
    m->cli_option_names = o->option_names == FL_OPTION_NAMES_CLI; /* our flags, as locally */
    if (o->llm) {
        foldline__v1__llm_options__init(&p->llm);
        p->llm.enabled = true;
        p->llm.prompt = o->llm_prompt;
        p->llm.context = o->llm_context;
        m->llm = &p->llm;
    }
    return true;
}

/* A byte buffer holding a packed message. */
static grpc_byte_buffer *pack_bb(const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

/* ------------------------------------------------------------------------- */
/* The call                                                                   */
/* ------------------------------------------------------------------------- */

static char *read_text_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    size_t n = buf ? fread(buf, 1, cap - 1, f) : 0;
    fclose(f);
    if (buf) {
        buf[n] = '\0';
    }
    return buf;
}

static const char *status_name(grpc_status_code c) {
    static const char *const names[] = {"OK",
                                        "CANCELLED",
                                        "UNKNOWN",
                                        "INVALID_ARGUMENT",
                                        "DEADLINE_EXCEEDED",
                                        "NOT_FOUND",
                                        "ALREADY_EXISTS",
                                        "PERMISSION_DENIED",
                                        "RESOURCE_EXHAUSTED",
                                        "FAILED_PRECONDITION",
                                        "ABORTED",
                                        "OUT_OF_RANGE",
                                        "UNIMPLEMENTED",
                                        "INTERNAL",
                                        "UNAVAILABLE",
                                        "DATA_LOSS",
                                        "UNAUTHENTICATED"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "UNKNOWN";
}

/* Everything one call needs, released by call_state_free. */
typedef struct call_state {
    grpc_channel *ch;
    grpc_completion_queue *cq;
    grpc_call *call;
    grpc_metadata auth;
    bool has_auth;
    grpc_metadata_array initial_md, trailing_md;
    grpc_slice details;
    grpc_status_code status;
    grpc_byte_buffer *reply;
} call_state;

/* Starts gRPC (paired with the grpc_shutdown after call_state_free) and
 * clears the call's state. */
static void call_state_init(call_state *s) {
    grpc_init();
    memset(s, 0, sizeof *s);
    grpc_metadata_array_init(&s->initial_md);
    grpc_metadata_array_init(&s->trailing_md);
    s->details = grpc_empty_slice();
}

/* Clears a batch of `cap` ops and fills its first: the initial metadata (the
 * token when there is one). Returns the number of ops filled (1). */
static size_t first_ops(const call_state *s, grpc_op *ops, size_t cap) {
    memset(ops, 0, cap * sizeof *ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = s->has_auth ? 1 : 0;
    ops[0].data.send_initial_metadata.metadata = s->has_auth ? (grpc_metadata *)&s->auth : NULL;
    return 1;
}

static void call_state_free(call_state *s) {
    if (s->call) {
        grpc_call_unref(s->call);
    }
    grpc_metadata_array_destroy(&s->initial_md);
    grpc_metadata_array_destroy(&s->trailing_md);
    grpc_slice_unref(s->details);
    if (s->reply) {
        grpc_byte_buffer_destroy(s->reply);
    }
    if (s->has_auth) {
        grpc_slice_unref(s->auth.value);
    }
    if (s->cq) {
        grpc_completion_queue_shutdown(s->cq);
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(s->cq);
    }
    if (s->ch) {
        grpc_channel_destroy(s->ch);
    }
}

/* Runs one batch and waits for it. Returns the event's success. */
static int run_batch(call_state *s, const grpc_op *ops, size_t n) {
    static int tag;
    if (grpc_call_start_batch(s->call, ops, n, &tag, NULL) != GRPC_CALL_OK) {
        return 0;
    }
    grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.success;
}

/* The channel's service config: calls spread round-robin over every address
 * the target resolves to (a headless Service's pods, ipv4:A:P,B:P), and the
 * idempotent calls retried on UNAVAILABLE (a replica killed, restarting or
 * draining) with gRPC's own retry policy: up to 5 attempts, backoff 50 ms
 * doubling to 1 s. A call is retried only before the server has answered
 * (our server sends its headers with the reply) and while its request fits
 * the retry buffer (RETRY_BUFFER_BYTES: every unary Analyze). AnalyzeStream
 * is left to remote_analyze's own attempts (a new call each): with gRPC
 * 1.51, a streamed call that gRPC retried after a draining replica answered
 * UNAVAILABLE stayed open past its deadline (the CLI hung; cancelling it
 * then crashed in gRPC's retry code), while a new call fails or succeeds at
 * once. */
#define RETRY_BUFFER_BYTES (16 << 20)
static const char service_config[] =
    "{\"loadBalancingConfig\":[{\"round_robin\":{}}],"
    "\"methodConfig\":[{\"name\":["
    "{\"service\":\"foldline.v1.CostModel\",\"method\":\"Analyze\"},"
    "{\"service\":\"foldline.v1.CostModel\",\"method\":\"ListProfiles\"},"
    "{\"service\":\"grpc.health.v1.Health\",\"method\":\"Check\"}],"
    "\"retryPolicy\":{\"maxAttempts\":5,\"initialBackoff\":\"0.05s\",\"maxBackoff\":\"1s\","
    "\"backoffMultiplier\":2,\"retryableStatusCodes\":[\"UNAVAILABLE\"]}}]}";

/* A server that drains (SIGTERM) sends GOAWAY, and gRPC core then closes each
 * connection as soon as its last reply is written to the socket. The reply's
 * tail can still be in the server's socket buffer then (a client slower to
 * read than the server to write, as on a loaded host), and a TCP socket that
 * has been shut down answers any further data from its peer with a reset,
 * which discards that tail: the call the server completed ends UNAVAILABLE
 * "Connection reset by peer" at the client. What a client sends while a reply
 * arrives is HTTP/2 flow control: a WINDOW_UPDATE as it consumes its receive
 * window and a BDP ping to size that window. So the CLI announces a window
 * no reply comes near (1 GiB; it reads every reply whole anyway) and no BDP
 * probing: it writes nothing after its request, and a draining server's
 * replies arrive whole. */
#define QUIET_WINDOW_BYTES (1 << 30)

/* The system CA store (Debian's ca-certificates bundle); NULL: gRPC's default. */
#define SYSTEM_CA_FILE "/etc/ssl/certs/ca-certificates.crt"

static grpc_channel_credentials *channel_creds(const fl_remote_options *ro, char *err,
                                               size_t errlen) {
    if (!ro->tls_ca && !ro->tls) {
        return grpc_insecure_credentials_create();
    }
    char *pem = NULL;
    if (ro->tls_ca) {
        pem = read_text_file(ro->tls_ca);
        if (!pem) {
            snprintf(err, errlen, "cannot read --tls-ca file '%s'", ro->tls_ca);
            return NULL;
        }
    } else {
        pem = read_text_file(SYSTEM_CA_FILE); /* NULL: gRPC's own default roots */
    }
    grpc_channel_credentials *creds = grpc_ssl_credentials_create(pem, NULL, NULL, NULL);
    free(pem);
    if (!creds) {
        snprintf(err, errlen, "cannot set up TLS credentials");
    }
    return creds;
}

static bool open_call(call_state *s, const fl_remote_options *ro, const char *method, char *err,
                      size_t errlen) {
    grpc_channel_credentials *creds = channel_creds(ro, err, errlen);
    if (!creds) {
        return false;
    }
    grpc_arg args[7];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = -1; /* per-node replies of large graphs exceed 4 MiB */
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = -1;
    args[2].type = GRPC_ARG_STRING;
    args[2].key = (char *)GRPC_ARG_SERVICE_CONFIG;
    args[2].value.string = (char *)service_config;
    args[3].type = GRPC_ARG_INTEGER;
    args[3].key = (char *)GRPC_ARG_ENABLE_RETRIES;
    args[3].value.integer = 1;
    args[4].type = GRPC_ARG_INTEGER;
    args[4].key = (char *)GRPC_ARG_PER_RPC_RETRY_BUFFER_SIZE;
    args[4].value.integer = RETRY_BUFFER_BYTES;
    /* Nothing goes to the server while a reply arrives (see QUIET_WINDOW_BYTES). */
    args[5].type = GRPC_ARG_INTEGER;
    args[5].key = (char *)GRPC_ARG_HTTP2_BDP_PROBE;
    args[5].value.integer = 0;
    args[6].type = GRPC_ARG_INTEGER;
    args[6].key = (char *)GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES;
    args[6].value.integer = QUIET_WINDOW_BYTES;
    grpc_channel_args ca = {.num_args = 7, .args = args};
    s->ch = grpc_channel_create(ro->server, creds, &ca);
    grpc_channel_credentials_release(creds);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    if (!s->ch || !s->cq) {
        snprintf(err, errlen, "cannot create a gRPC channel to '%s'", ro->server);
        return false;
    }
    gpr_timespec deadline = gpr_inf_future(GPR_CLOCK_REALTIME);
    if (ro->timeout_ms > 0) {
        deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                gpr_time_from_millis(ro->timeout_ms, GPR_TIMESPAN));
    }
    s->call = grpc_channel_create_call(s->ch, NULL, GRPC_PROPAGATE_DEFAULTS, s->cq,
                                       grpc_slice_from_static_string(method), NULL, deadline, NULL);
    if (ro->token) {
        char *v = malloc(strlen(ro->token) + 8);
        if (!v) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        sprintf(v, "Bearer %s", ro->token);
        s->auth.key = grpc_slice_from_static_string("authorization");
        s->auth.value = grpc_slice_from_copied_string(v);
        s->has_auth = true;
        free(v);
    }
    return true;
}

/* A plaintext call to a TLS server ends with UNAVAILABLE "Socket closed" (the
 * server drops the connection it cannot read): say what to try. */
static const char *tls_hint(const fl_remote_options *ro, grpc_status_code st, const char *msg) {
    if (st == GRPC_STATUS_UNAVAILABLE && !ro->tls && !ro->tls_ca && msg &&
        (strstr(msg, "Socket closed") || strstr(msg, "Connection reset"))) {
        return " (if the server uses TLS, add --tls, or --tls-ca FILE for a private CA)";
    }
    return "";
}

/* The server marks the engine's usage errors with "foldline-error: usage". */
/* The engine's status named by the server's `foldline-error` trailer, or
 * FL_OK when there is none (the failure did not come from the engine). */
static fl_status engine_trailer(const grpc_metadata_array *md) {
    for (size_t i = 0; i < md->count; i++) {
        if (grpc_slice_str_cmp(md->metadata[i].key, "foldline-error") != 0) {
            continue;
        }
        for (int st = -1; strcmp(host->status_name((fl_status)st), "UNKNOWN") != 0; st--) {
            if (grpc_slice_str_cmp(md->metadata[i].value, host->status_name((fl_status)st)) == 0) {
                return (fl_status)st;
            }
        }
    }
    return FL_OK;
}

/* The receiving half: close, wait for metadata, message and status. */
static void finish_ops(call_state *s, grpc_op *ops, size_t *n) {
    ops[*n].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[(*n)++].data.recv_initial_metadata.recv_initial_metadata = &s->initial_md;
    ops[*n].op = GRPC_OP_RECV_MESSAGE;
    ops[(*n)++].data.recv_message.recv_message = &s->reply;
    ops[*n].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[*n].data.recv_status_on_client.trailing_metadata = &s->trailing_md;
    ops[*n].data.recv_status_on_client.status = &s->status;
    ops[(*n)++].data.recv_status_on_client.status_details = &s->details;
}

/* A unary call's one batch: metadata, the request, close, and the answer
 * (message and status) into s. */
static void unary_exchange(call_state *s, const ProtobufCMessage *req) {
    grpc_op ops[6];
    size_t n = first_ops(s, ops, sizeof ops / sizeof ops[0]);
    grpc_byte_buffer *bb = pack_bb(req);
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = bb;
    ops[n++].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    finish_ops(s, ops, &n);
    run_batch(s, ops, n);
    grpc_byte_buffer_destroy(bb);
}

/* The bytes of a reply message, in one slice the caller unrefs. False (err
 * set) when the server sent none or it cannot be read. */
static bool reply_bytes(grpc_byte_buffer *reply, grpc_slice *out, char *err, size_t errlen) {
    grpc_byte_buffer_reader rd;
    if (!reply || !grpc_byte_buffer_reader_init(&rd, reply)) {
        snprintf(err, errlen, "INTERNAL: the server sent no reply");
        return false;
    }
    *out = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    return true;
}

/* The model's other files as ModelFile messages (borrowing opt's bytes),
 * adding their sizes to *total. false when memory runs out. */
static bool model_files(const fl_options *opt, Foldline__V1__ModelFile **mf,
                        Foldline__V1__ModelFile ***mfp, size_t *total) {
    *mf = calloc(opt->n_files + 1, sizeof **mf);
    *mfp = calloc(opt->n_files + 1, sizeof **mfp);
    if (!*mf || !*mfp) {
        return false;
    }
    for (size_t i = 0; i < opt->n_files; i++) {
        foldline__v1__model_file__init(&(*mf)[i]);
        (*mf)[i].name = (char *)opt->files[i].name;
        (*mf)[i].data.data = (uint8_t *)opt->files[i].bytes;
        (*mf)[i].data.len = opt->files[i].len;
        (*mfp)[i] = &(*mf)[i];
        *total += opt->files[i].len;
    }
    return true;
}

/* AnalyzeStream's messages: the model's bytes (the first chunk with the
 * options), then each other file's under its name; stops at the first failed
 * send (the server already answered). */
static void send_chunks(call_state *s, const fl_remote_options *ro, req_parts *parts,
                        const void *bytes, size_t len, const fl_options *opt) {
    bool ok = true;
    for (long fi = -1; ok && fi < (long)opt->n_files; fi++) {
        const uint8_t *data = fi < 0 ? bytes : opt->files[fi].bytes;
        size_t dlen = fi < 0 ? len : opt->files[fi].len;
        for (size_t off = 0; ok && off < dlen; off += ro->chunk_bytes) {
            Foldline__V1__AnalyzeChunk ch = FOLDLINE__V1__ANALYZE_CHUNK__INIT;
            ch.options = fi < 0 && off == 0 ? &parts->options : NULL;
            ch.file_name = fi < 0 ? "" : (char *)opt->files[fi].name;
            ch.graph_chunk.data = (uint8_t *)data + off;
            ch.graph_chunk.len = dlen - off < ro->chunk_bytes ? dlen - off : ro->chunk_bytes;
            grpc_byte_buffer *bb = pack_bb(&ch.base);
            grpc_op send;
            memset(&send, 0, sizeof send);
            send.op = GRPC_OP_SEND_MESSAGE;
            send.data.send_message.send_message = bb;
            ok = run_batch(s, &send, 1);
            grpc_byte_buffer_destroy(bb);
        }
    }
}

static fl_remote_failure analyze_once(const fl_remote_options *ro, const void *bytes, size_t len,
                                      const fl_options *opt, fl_report **out, fl_status *engine,
                                      grpc_status_code *code, char *err, size_t errlen) {
    *out = NULL;
    *engine = FL_OK;
    req_parts parts;
    if (!build_options(opt, &parts)) {
        req_parts_free(&parts);
        snprintf(err, errlen, "out of memory");
        return FL_REMOTE_TRANSPORT;
    }
    /* The pass selection goes out explicitly, so the server's default never
     * decides. */
    if (!build_passes(opt, &parts, err, errlen)) {
        req_parts_free(&parts);
        *engine = FL_EUSAGE;
        return strcmp(err, "out of memory") == 0 ? FL_REMOTE_TRANSPORT : FL_REMOTE_ENGINE;
    }
    parts.options.profiles = (char **)ro->profiles;
    parts.options.n_profiles = ro->n_profiles;
    call_state s;
    call_state_init(&s);
    /* The model's other files (TF.js shards): in the request, or streamed
     * after the model's bytes, each under its name. */
    size_t total = len;
    Foldline__V1__ModelFile *mf = NULL, **mfp = NULL;
    fl_remote_failure fail = FL_REMOTE_TRANSPORT;
    if (!model_files(opt, &mf, &mfp, &total)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    bool stream = total > ro->stream_above;
    if (!open_call(&s, ro,
                   stream ? "/foldline.v1.CostModel/AnalyzeStream"
                          : "/foldline.v1.CostModel/Analyze",
                   err, errlen)) {
        goto done;
    }
    grpc_op ops[6];
    size_t n = first_ops(&s, ops, sizeof ops / sizeof ops[0]);
    if (!stream) {
        Foldline__V1__AnalyzeRequest req = FOLDLINE__V1__ANALYZE_REQUEST__INIT;
        req.graph.data = (uint8_t *)bytes;
        req.graph.len = len;
        req.options = &parts.options;
        req.files = mfp;
        req.n_files = opt->n_files;
        unary_exchange(&s, &req.base);
    } else {
        /* Initial metadata, then one message at a time (gRPC allows one send
         * in flight); a failed send means the server already answered. */
        bool ok = run_batch(&s, ops, n);
        if (ok) {
            send_chunks(&s, ro, &parts, bytes, len, opt);
        }
        memset(ops, 0, sizeof ops);
        n = 0;
        ops[n++].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
        finish_ops(&s, ops, &n);
        if (!run_batch(&s, ops, n)) {
            /* The close failed (call already over): collect the status alone. */
            memset(ops, 0, sizeof ops);
            n = 0;
            finish_ops(&s, ops, &n);
            run_batch(&s, ops + 2, 1);
        }
    }
    *code = s.status;
    if (s.status != GRPC_STATUS_OK) {
        char *msg = grpc_slice_to_c_string(s.details);
        /* The engine's verdict (printed and exited as local mode does): the
         * trailer names its exact status. Without one, the request itself
         * was refused: INVALID_ARGUMENT (undecodable options) and NOT_FOUND
         * (an unknown profile name) are usage errors as locally, a message
         * above gRPC's size limit is the model's. A full queue is the
         * server's state, not the model's: a failed call (exit 3). */
        fl_status est = engine_trailer(&s.trailing_md);
        if (est == FL_OK) {
            est = s.status == GRPC_STATUS_INVALID_ARGUMENT || s.status == GRPC_STATUS_NOT_FOUND
                      ? FL_EUSAGE
                  : s.status == GRPC_STATUS_RESOURCE_EXHAUSTED && msg && !strstr(msg, "queue")
                      ? FL_ELIMIT
                      : FL_OK;
        }
        if (est != FL_OK) {
            snprintf(err, errlen, "%s", msg ? msg : status_name(s.status));
            *engine = est;
            fail = FL_REMOTE_ENGINE;
        } else {
            snprintf(err, errlen, "%s: %s%s", status_name(s.status), msg ? msg : "",
                     tls_hint(ro, s.status, msg));
        }
        gpr_free(msg);
        goto done;
    }
    grpc_slice all;
    if (!reply_bytes(s.reply, &all, err, errlen)) {
        goto done;
    }
    Foldline__V1__AnalyzeReply *rep = foldline__v1__analyze_reply__unpack(
        NULL, GRPC_SLICE_LENGTH(all), GRPC_SLICE_START_PTR(all));
    grpc_slice_unref(all);
    if (!rep) {
        snprintf(err, errlen, "INTERNAL: the reply is not a valid foldline.v1.AnalyzeReply");
        goto done;
    }
    *out = fl_report_from_pb(rep);
    if (!*out) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    fail = FL_REMOTE_OK;
done:
    call_state_free(&s);
    req_parts_free(&parts);
    free(mf);
    free(mfp);
    grpc_shutdown();
    return fail;
}

/* Analyze is a pure function of its request, so a call that ends UNAVAILABLE or CANCELLED is
 * sent again, up to ANALYZE_ATTEMPTS times in all, 100 ms then 200 ms apart, while --timeout-ms
 * leaves time for it. gRPC's retry policy (service_config) covers a call the server has not
 * answered yet; this covers one whose reply was under way when the connection went (a replica
 * that drained and exited as its last reply was in flight: the headers arrived, so gRPC had
 * committed the call, then the connection was reset), and one a draining server's gRPC core
 * reset with RST_STREAM(CANCEL): a call that reached the transport as the server shut down, but
 * no requested call yet, is cancelled, not refused, and ends CANCELLED at the client. The CLI
 * never cancels its own call (its deadline ends one DEADLINE_EXCEEDED), so a CANCELLED it sees
 * is always the server's side giving the call up. */
#define ANALYZE_ATTEMPTS 3
static fl_remote_failure remote_analyze(const fl_remote_options *ro, const void *bytes, size_t len,
                                        const fl_options *opt, fl_report **out, fl_status *engine,
                                        char *err, size_t errlen) {
    gpr_timespec start = gpr_now(GPR_CLOCK_MONOTONIC);
    int64_t backoff_ms = 100;
    for (int attempt = 1;; attempt++) {
        grpc_status_code code = GRPC_STATUS_OK; /* set once a call ran */
        fl_remote_failure f = analyze_once(ro, bytes, len, opt, out, engine, &code, err, errlen);
        if (f != FL_REMOTE_TRANSPORT ||
            (code != GRPC_STATUS_UNAVAILABLE && code != GRPC_STATUS_CANCELLED) ||
            attempt == ANALYZE_ATTEMPTS) {
            return f;
        }
        int64_t spent = gpr_time_to_millis(gpr_time_sub(gpr_now(GPR_CLOCK_MONOTONIC), start));
        if (ro->timeout_ms > 0 && spent + backoff_ms >= ro->timeout_ms) {
            return f;
        }
        gpr_sleep_until(gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                     gpr_time_from_millis(backoff_ms, GPR_TIMESPAN)));
        backoff_ms *= 2;
    }
}

/* One unary call with an empty-metadata request `req` (plus the token):
 * the unpacked reply (free with protobuf_c_message_free_unpacked), or NULL
 * with "STATUS: message" in err. */
static ProtobufCMessage *unary_call(const fl_remote_options *ro, const char *method,
                                    const ProtobufCMessage *req,
                                    const ProtobufCMessageDescriptor *reply_type, char *err,
                                    size_t errlen) {
    call_state s;
    call_state_init(&s);
    ProtobufCMessage *rep = NULL;
    if (open_call(&s, ro, method, err, errlen)) {
        unary_exchange(&s, req);
        grpc_slice all;
        if (s.status != GRPC_STATUS_OK) {
            char *msg = grpc_slice_to_c_string(s.details);
            snprintf(err, errlen, "%s: %s%s", status_name(s.status), msg ? msg : "",
                     tls_hint(ro, s.status, msg));
            gpr_free(msg);
        } else if (reply_bytes(s.reply, &all, err, errlen)) {
            rep = protobuf_c_message_unpack(reply_type, NULL, GRPC_SLICE_LENGTH(all),
                                            GRPC_SLICE_START_PTR(all));
            grpc_slice_unref(all);
            if (!rep) {
                snprintf(err, errlen, "INTERNAL: the reply is not a valid %s", reply_type->name);
            }
        }
    }
    call_state_free(&s);
    grpc_shutdown();
    return rep;
}

/* ------------------------------------------------------------------------- */
/* ListProfiles                                                               */
/* ------------------------------------------------------------------------- */

/* The profiles built from a ListProfilesReply (strings point into it) and
 * the set's array of pointers to them: the set's `profiles` is `ptrs`, so
 * the set leads to the memory it holds without a pointer in the profiles. */
typedef struct remote_profiles {
    Foldline__V1__ListProfilesReply *reply;
    fl_profile *profiles;
    fl_mem_level *levels;
    fl_eff_bucket *buckets;
    fl_profile *ptrs[]; /* n + 1 */
} remote_profiles;

static void remote_block_free(remote_profiles *rp) {
    if (rp) {
        foldline__v1__list_profiles_reply__free_unpacked(rp->reply, NULL);
        free(rp->profiles);
        free(rp->levels);
        free(rp->buckets);
        free(rp);
    }
}

static void remote_profiles_free(fl_profile_set *set, char *dir) {
    free(dir);
    if (set->profiles) {
        remote_block_free(
            (remote_profiles *)(void *)((char *)set->profiles - offsetof(remote_profiles, ptrs)));
    }
    memset(set, 0, sizeof *set);
}

/* The engine's index of a proto enum value, matched by name. */
static int enum_index(const ProtobufCEnumDescriptor *e, const char *prefix, int v,
                      const char *(*name)(int), int n) {
    fl_pb_arena a = {0};
    const char *s = fl_pb_enum_name(&a, e, prefix, v);
    for (int i = 0; i < n; i++) {
        if (s && strcmp(s, name(i)) == 0) {
            fl_pb_arena_free(&a);
            return i;
        }
    }
    fl_pb_arena_free(&a);
    return -1;
}

static const char *unit_name_i(int i) {
    return host->unit_name((fl_unit)i);
}

static const char *prec_name_i(int i) {
    return host->precision_name((fl_precision)i);
}

static size_t n_buckets_of(const Foldline__V1__Profile *m) {
    size_t n = 0;
    for (size_t e = 0; e < m->n_efficiency; e++) {
        n += m->efficiency[e]->n_buckets;
    }
    return n;
}

/* A profile's efficiency tables and interval from m; buckets are taken from
 * *next. A class the client does not know is left out. */
static void efficiency_from(const Foldline__V1__Profile *m, fl_profile *p, fl_eff_bucket **next) {
    for (int c = 0; c < FL_CLASS_COUNT; c++) {
        p->efficiency[c].compute = 1.0;
        p->efficiency[c].memory = 1.0;
    }
    p->calibrated = m->calibrated;
    for (size_t e = 0; e < m->n_efficiency; e++) {
        const Foldline__V1__ProfileEfficiency *pe = m->efficiency[e];
        int c = 0;
        while (c < FL_CLASS_COUNT && strcmp(host->op_class_name((fl_op_class)c), pe->op_class)) {
            c++;
        }
        if (c == FL_CLASS_COUNT || pe->n_buckets == 0) {
            continue;
        }
        fl_eff_bucket *b = *next;
        *next += pe->n_buckets;
        for (size_t k = 0; k < pe->n_buckets; k++) {
            const Foldline__V1__ProfileBucket *pb = pe->buckets[k];
            b[k] = (fl_eff_bucket){pb->_upto_case ? pb->upto : 0,
                                   pb->compute,
                                   pb->memory,
                                   pb->fixed_s,
                                   pb->samples,
                                   pb->residual,
                                   pb->source,
                                   pb->per_channel_s,
                                   pb->broadcast_s};
        }
        p->table[c].by = strcmp(pe->by, "flops") == 0 ? FL_SIZE_FLOPS : FL_SIZE_BYTES;
        p->table[c].n_buckets = pe->n_buckets;
        p->table[c].buckets = b;
        if (pe->n_buckets == 1) {
            p->efficiency[c].compute = b[0].compute;
            p->efficiency[c].memory = b[0].memory;
            p->efficiency[c].source = b[0].source;
        }
    }
    if (m->interval) {
        p->interval = (fl_interval){m->interval->low, m->interval->high, m->interval->coverage,
                                    m->interval->source};
    }
}

/* Builds the set; false on OOM or a malformed reply (err set). */
static bool set_from_reply(Foldline__V1__ListProfilesReply *rep, fl_profile_set *out, char *err,
                           size_t errlen) {
    size_t n_levels = 0, n_buckets = 0;
    for (size_t i = 0; i < rep->n_profiles; i++) {
        n_buckets += n_buckets_of(rep->profiles[i]);
        if (rep->profiles[i]->n_memory == 0) {
            snprintf(err, errlen, "INTERNAL: profile '%s' has no memory level",
                     rep->profiles[i]->name);
            return false;
        }
        n_levels += rep->profiles[i]->n_memory;
    }
    remote_profiles *rp = calloc(1, sizeof *rp + (rep->n_profiles + 1) * sizeof(fl_profile *));
    if (rp) {
        rp->profiles = calloc(rep->n_profiles + 1, sizeof *rp->profiles);
        rp->levels = calloc(n_levels + 1, sizeof *rp->levels);
        rp->buckets = calloc(n_buckets + 1, sizeof *rp->buckets);
    }
    if (!rp || !rp->profiles || !rp->levels || !rp->buckets) {
        if (rp) {
            free(rp->profiles);
            free(rp->levels);
            free(rp->buckets);
        }
        free(rp);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    rp->reply = rep;
    fl_profile **ptrs = rp->ptrs;
    fl_mem_level *lv = rp->levels;
    fl_eff_bucket *bk = rp->buckets;
    for (size_t i = 0; i < rep->n_profiles; i++) {
        const Foldline__V1__Profile *m = rep->profiles[i];
        fl_profile *p = &rp->profiles[i];
        p->path = m->path;
        p->name = m->name;
        p->kind = m->kind;
        p->description = m->description;
        for (size_t k = 0; k < m->n_peak; k++) {
            int u = enum_index(&foldline__v1__unit__descriptor, "UNIT_", m->peak[k]->unit,
                               unit_name_i, FL_UNIT_COUNT);
            int d = enum_index(&foldline__v1__precision__descriptor, "PRECISION_",
                               m->peak[k]->dtype, prec_name_i, FL_PREC_COUNT);
            if (u >= 0 && d >= 0) {
                p->peak[u][d].value = m->peak[k]->flops_per_s;
                p->peak[u][d].source = m->peak[k]->source;
            }
        }
        p->levels = lv;
        p->n_levels = m->n_memory;
        for (size_t k = 0; k < m->n_memory; k++, lv++) {
            lv->name = m->memory[k]->name;
            lv->bandwidth = m->memory[k]->bandwidth;
            lv->capacity = m->memory[k]->_capacity_case ? m->memory[k]->capacity : 0;
            lv->source = m->memory[k]->source;
        }
        p->overhead.value = m->_overhead_s_case ? m->overhead_s : 0;
        p->overhead.source = m->overhead_source;
        p->streamed.value = m->_streamed_case ? m->streamed : 0;
        p->streamed.source = m->streamed_source;
        p->gap.value = m->_gap_case ? m->gap : 0;
        p->gap.source = m->gap_source;
        efficiency_from(m, p, &bk);
        ptrs[i] = p;
    }
    out->n = rep->n_profiles;
    out->profiles = ptrs; /* remote_profiles_free finds rp from it */
    return true;
}

static fl_remote_failure remote_list_profiles(const fl_remote_options *ro, fl_profile_set *out,
                                              char **dir, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    *dir = NULL;
    Foldline__V1__ListProfilesRequest req = FOLDLINE__V1__LIST_PROFILES_REQUEST__INIT;
    Foldline__V1__ListProfilesReply *rep = (Foldline__V1__ListProfilesReply *)unary_call(
        ro, "/foldline.v1.CostModel/ListProfiles", &req.base,
        &foldline__v1__list_profiles_reply__descriptor, err, errlen);
    if (!rep) {
        return FL_REMOTE_TRANSPORT;
    }
    *dir = strdup(rep->profiles_dir ? rep->profiles_dir : "");
    if (!*dir) {
        foldline__v1__list_profiles_reply__free_unpacked(rep, NULL);
        snprintf(err, errlen, "out of memory");
        return FL_REMOTE_TRANSPORT;
    }
    if (!set_from_reply(rep, out, err, errlen)) {
        foldline__v1__list_profiles_reply__free_unpacked(rep, NULL);
        free(*dir);
        *dir = NULL;
        return FL_REMOTE_TRANSPORT;
    }
    return FL_REMOTE_OK;
}

/* ------------------------------------------------------------------------- */
/* Health                                                                     */
/* ------------------------------------------------------------------------- */

static fl_remote_failure remote_health(const fl_remote_options *ro, const char *service,
                                       char *status, size_t statuslen, char *err, size_t errlen) {
    Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    req.service = (char *)service;
    Grpc__Health__V1__HealthCheckResponse *rep =
        (Grpc__Health__V1__HealthCheckResponse *)unary_call(
            ro, "/grpc.health.v1.Health/Check", &req.base,
            &grpc__health__v1__health_check_response__descriptor, err, errlen);
    if (!rep) {
        return FL_REMOTE_TRANSPORT;
    }
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
        &grpc__health__v1__health_check_response__serving_status__descriptor, rep->status);
    snprintf(status, statuslen, "%s", v ? v->name : "UNKNOWN");
    grpc__health__v1__health_check_response__free_unpacked(rep, NULL);
    return FL_REMOTE_OK;
}

/* ------------------------------------------------------------------------- */
/* The module's one exported symbol                                          */
/* ------------------------------------------------------------------------- */

static void remote_init(const fl_remote_host *h) {
    host = h;
}

__attribute__((visibility("default"))) extern const fl_remote_module foldline_remote_module;
const fl_remote_module foldline_remote_module = {
    .abi_version = FL_REMOTE_MODULE_ABI,
    .table_size = sizeof(fl_remote_module),
    .version = FL_VERSION_STRING,
    .options_size = (uint32_t)sizeof(fl_options),
    .report_size = (uint32_t)sizeof(fl_report),
    .profile_size = (uint32_t)sizeof(fl_profile),
    .remote_options_size = (uint32_t)sizeof(fl_remote_options),
    .init = remote_init,
    .analyze = remote_analyze,
    .report_free = fl_report_pb_free,
    .list_profiles = remote_list_profiles,
    .profiles_free = remote_profiles_free,
    .health = remote_health,
};
