/*
 * service.c - foldlined's method handlers: decode a request, call the public
 * engine API, encode the reply, map the engine's status to a gRPC code.
 *
 * Nothing here analyses anything itself: the analysis is fl_analyze(). The
 * reply is the report in its wire form (proto/glue/report_pb.c, the mapping the
 * CLI's remote mode reads it back with), so both print the same bytes.
 */
#define _GNU_SOURCE /* mremap */
#include "foldline/foldline.h"
#include "foldline/v1/cost_model.pb-c.h"
#include "foldline/wire.h"
#include "grpc_health/v1/health.pb-c.h"
#include "pbguard.h"
#include "report_pb.h"
#include "server.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* A byte buffer's bytes as one slice (the caller unrefs it): its only
 * slice, referenced, when it arrived uncompressed in one (a small request
 * usually does), else a copy. */
static grpc_slice read_all(grpc_byte_buffer *bb) {
    if (bb->type == GRPC_BB_RAW && bb->data.raw.compression == GRPC_COMPRESS_NONE &&
        bb->data.raw.slice_buffer.count == 1) {
        return grpc_slice_ref(bb->data.raw.slice_buffer.slices[0]);
    }
    grpc_byte_buffer_reader r;
    if (!grpc_byte_buffer_reader_init(&r, bb)) {
        return grpc_empty_slice();
    }
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    return s;
}

/* Wraps `len` malloc'd bytes as the call's reply (ownership moves to gRPC). */
static void set_reply(fl_call *c, unsigned char *buf, size_t len) {
    grpc_slice s = grpc_slice_new(buf, len, free);
    c->reply = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
}

/* The reply is `len` bytes at `data`, inside the malloc'd `block`. */
static void set_reply_in(fl_call *c, uint8_t *block, uint8_t *data, size_t len) {
    grpc_slice s = grpc_slice_new_with_user_data(data, len, free, block);
    c->reply = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
}

/* Packs a protobuf-c message as the call's reply. */
static void reply_message(fl_call *c, const ProtobufCMessage *m) {
    size_t len = protobuf_c_message_get_packed_size(m);
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory encoding the reply");
        return;
    }
    protobuf_c_message_pack(m, buf);
    set_reply(c, buf, len);
}

static bool deadline_passed(const fl_call *c) {
    return gpr_time_cmp(gpr_now(c->deadline.clock_type), c->deadline) >= 0;
}

/* The one place engine statuses become gRPC codes. */
/* The engine's cancellation check (pool thread): the call's deadline, the
 * client gone, or the end of the shutdown grace period. */
static bool should_stop(void *arg) {
    fl_call *c = arg;
    return deadline_passed(c) || atomic_load(&c->client_gone) || atomic_load(&c->srv->stop_work);
}

static grpc_status_code grpc_code_of(fl_status st) {
    switch (st) {
    case FL_OK:
        return GRPC_STATUS_OK;
    case FL_EINVAL:
    case FL_EOVERFLOW:
    case FL_EUNSUPPORTED:
    case FL_EUSAGE:
        return GRPC_STATUS_INVALID_ARGUMENT;
    case FL_ELIMIT:
    case FL_ENOMEM:
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case FL_ENOTFOUND:
        return GRPC_STATUS_NOT_FOUND;
    case FL_EIO:
    case FL_EINTERNAL:
        return GRPC_STATUS_INTERNAL;
    case FL_ECANCELED:
        return GRPC_STATUS_CANCELLED;
    }
    return GRPC_STATUS_INTERNAL;
}

/* A bump allocator for the reply's sub-messages, freed in one go. */
typedef struct pool {
    struct block {
        struct block *next;
        size_t used, size;
        max_align_t data[];
    } * head;
    bool failed;
} pool;

static void *pool_alloc(pool *p, size_t size) {
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!p->head || p->head->size - p->head->used < size) {
        size_t bs = size > 65536 ? size : 65536;
        struct block *b = malloc(sizeof *b + bs);
        if (!b) {
            p->failed = true;
            return NULL;
        }
        b->next = p->head;
        b->used = 0;
        b->size = bs;
        p->head = b;
    }
    void *r = (char *)p->head->data + p->head->used;
    p->head->used += size;
    memset(r, 0, size);
    return r;
}

static void pool_free(pool *p) {
    while (p->head) {
        struct block *n = p->head->next;
        free(p->head);
        p->head = n;
    }
}

/* ------------------------------------------------------------------------- */
/* Health and Stats (loop thread)                                             */
/* ------------------------------------------------------------------------- */

void fl_svc_health(fl_call *c) {
    Grpc__Health__V1__HealthCheckRequest *req = NULL;
    if (c->payload) {
        grpc_slice s = read_all(c->payload);
        req = grpc__health__v1__health_check_request__unpack(NULL, GRPC_SLICE_LENGTH(s),
                                                             GRPC_SLICE_START_PTR(s));
        grpc_slice_unref(s);
        if (!req) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "the request is not a valid grpc.health.v1.HealthCheckRequest");
            return;
        }
    }
    const char *svc = req && req->service ? req->service : "";
    if (*svc && strcmp(svc, "foldline.v1.CostModel") != 0) {
        fl_call_fail(c, GRPC_STATUS_NOT_FOUND,
                     "unknown service '%.200s' (this server has 'foldline.v1.CostModel')", svc);
    } else {
        Grpc__Health__V1__HealthCheckResponse resp = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
        resp.status = c->srv->shutting_down
                          ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING
                          : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
        reply_message(c, &resp.base);
    }
    if (req) {
        grpc__health__v1__health_check_request__free_unpacked(req, NULL);
    }
}

void fl_svc_stats(fl_call *c) {
    const fl_srv *s = c->srv;
    Foldline__V1__StatsReply r = FOLDLINE__V1__STATS_REPLY__INIT;
    r.requests = s->stats.requests;
    r.analyze_ok = s->stats.analyze_ok;
    r.analyze_failed = s->stats.analyze_failed;
    r.rejected_queue_full = s->stats.rejected_queue_full;
    r.deadline_abandoned = s->stats.deadline_abandoned;
    r.unauthenticated = s->stats.unauthenticated;
    r.unimplemented = s->stats.unimplemented;
    r.bytes_received = s->stats.bytes_received;
    r.analyses_stopped = s->stats.analyses_stopped;
    r.analyses_running = (uint64_t)atomic_load(&s->analyses_running);
    r.in_flight = (uint64_t)s->active_calls;
    if (s->cache) {
        fl_cache_counters cc;
        fl_cache_read_counters(s->cache, &cc);
        r.cache_hits = cc.hits;
        r.cache_misses = cc.misses;
        r.cache_bytes = cc.bytes;
        r.cache_entries = cc.entries;
    }
    reply_message(c, &r.base);
}

/* ------------------------------------------------------------------------- */
/* Request -> fl_options                                                      */
/* ------------------------------------------------------------------------- */

/* Pass names ("cse", ...) from a repeated Pass field into the pool; NULL
 * with the call failed when a value is not a pass. */
static const char **pass_names(fl_call *c, pool *p, const int *v, size_t n, const char *field) {
    const char **names = pool_alloc(p, (n + 1) * sizeof(char *));
    fl_pb_arena a = {0};
    for (size_t i = 0; names && i < n; i++) {
        const char *nm = fl_pb_enum_name(&a, &foldline__v1__pass__descriptor, "PASS_", v[i]);
        if (!nm || v[i] == FOLDLINE__V1__PASS__PASS_UNSPECIFIED || strcmp(nm, "?") == 0) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.%s[%zu]: %d is not a pass",
                         field, i, v[i]);
            fl_pb_arena_free(&a);
            return NULL;
        }
        char *copy = pool_alloc(p, strlen(nm) + 1);
        if (!copy) {
            break;
        }
        memcpy(copy, nm, strlen(nm) + 1);
        names[i] = copy;
    }
    fl_pb_arena_free(&a);
    if (!names || p->failed) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding the options");
        return NULL;
    }
    return names;
}

/* The pass selection (fields 17 to 19) as the engine's comma list. */
static bool pass_selection(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, pool *p,
                           fl_options *o) {
    const char **dis = pass_names(c, p, (const int *)ro->disabled_passes, ro->n_disabled_passes,
                                  "disabled_passes");
    if (!dis) {
        return false;
    }
    o->disabled_passes = dis;
    o->n_disabled_passes = ro->n_disabled_passes;
    switch (ro->pass_selection) {
    case FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_DEFAULT:
        o->passes = "default";
        return true;
    case FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_NONE:
        /* As `foldline analyze --passes none`: no pass stage at all, unless
         * the (unchanged) graph is asked for, as `foldline optimize` does. */
        o->passes = ro->return_optimized_graph ? "none" : NULL;
        return true;
    case FOLDLINE__V1__PASS_SELECTION__PASS_SELECTION_LIST:
        break;
    default:
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.pass_selection: unknown value %d",
                     (int)ro->pass_selection);
        return false;
    }
    if (!ro->n_passes) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                     "options.passes: empty, but pass_selection is PASS_SELECTION_LIST");
        return false;
    }
    const char **names = pass_names(c, p, (const int *)ro->passes, ro->n_passes, "passes");
    if (!names) {
        return false;
    }
    size_t len = 1;
    for (size_t i = 0; i < ro->n_passes; i++) {
        len += strlen(names[i]) + 1;
    }
    char *list = pool_alloc(p, len);
    if (!list) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding the options");
        return false;
    }
    for (size_t i = 0; i < ro->n_passes; i++) {
        if (i) {
            strcat(list, ",");
        }
        strcat(list, names[i]);
    }
    o->passes = list;
    return true;
}

/* The rewrite passes' options (fields 9, 11, 13 to 19). Returns false with
 * the call failed. */
static bool pass_options(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, pool *p,
                         fl_options *o) {
    if (!pass_selection(c, ro, p, o)) {
        return false;
    }
    o->output_names = (const char *const *)ro->outputs;
    o->n_output_names = ro->n_outputs;
    o->return_graph = ro->return_optimized_graph;
    switch (ro->device) {
    case FOLDLINE__V1__DEVICE__DEVICE_CPU:
        o->device = FL_DEVICE_CPU;
        break;
    case FOLDLINE__V1__DEVICE__DEVICE_GPU:
        o->device = FL_DEVICE_GPU;
        break;
    default:
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.device: unknown value %d",
                     (int)ro->device);
        return false;
    }
    switch (ro->remapper_mode) {
    case FOLDLINE__V1__REMAPPER_MODE__REMAPPER_MODE_STANDARD:
        o->remapper_mode = FL_REMAPPER_STANDARD;
        break;
    case FOLDLINE__V1__REMAPPER_MODE__REMAPPER_MODE_ONEDNN:
        o->remapper_mode = FL_REMAPPER_ONEDNN;
        break;
    default:
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.remapper_mode: unknown value %d",
                     (int)ro->remapper_mode);
        return false;
    }
    if (ro->max_folded_bytes < 0) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                     "options.max_folded_bytes: %" PRId64 " must be >= 0", ro->max_folded_bytes);
        return false;
    }
    o->max_folded_bytes = ro->max_folded_bytes;
    o->cudnn_persistent_batchnorm = ro->cudnn_persistent_batchnorm;
    return true;
}

/* --inputs, --bind and --value from the request; arrays in `p`. */
static bool bindings_from_request(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, pool *p,
                                  fl_options *o) {
    fl_input_binding *in = pool_alloc(p, (ro->n_inputs + 1) * sizeof *in);
    fl_symbol_binding *sy = pool_alloc(p, (ro->n_symbols + 1) * sizeof *sy);
    fl_value_binding *va = pool_alloc(p, (ro->n_values + 1) * sizeof *va);
    if (!in || !sy || !va) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding the options");
        return false;
    }
    for (size_t i = 0; i < ro->n_inputs; i++) {
        const Foldline__V1__InputShape *is = ro->inputs[i];
        if (!is->name || !*is->name) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.inputs[%zu]: empty name", i);
            return false;
        }
        if (is->n_dims > 64) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "options.inputs[%zu] ('%.100s'): rank %zu exceeds 64", i, is->name,
                         is->n_dims);
            return false;
        }
        for (size_t k = 0; k < is->n_dims; k++) {
            if (is->dims[k] < 0) {
                fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                             "options.inputs[%zu] ('%.100s'): dimension %zu is %" PRId64
                             ", must be >= 0",
                             i, is->name, k, is->dims[k]);
                return false;
            }
        }
        in[i].name = is->name;
        in[i].rank = (int)is->n_dims;
        in[i].dims = is->dims;
    }
    for (size_t i = 0; i < ro->n_symbols; i++) {
        if (ro->symbols[i]->value < 0) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "options.symbols[%zu] ('%.100s'): value %" PRId64 " must be >= 0", i,
                         ro->symbols[i]->name, ro->symbols[i]->value);
            return false;
        }
        sy[i].name = ro->symbols[i]->name;
        sy[i].value = ro->symbols[i]->value;
    }
    for (size_t i = 0; i < ro->n_values; i++) {
        va[i].name = ro->values[i]->name;
        va[i].value = ro->values[i]->value;
    }
    o->inputs = in;
    o->n_inputs = ro->n_inputs;
    o->symbols = sy;
    o->n_symbols = ro->n_symbols;
    o->values = va;
    o->n_values = ro->n_values;
    return true;
}

/* The profiles named in the request ("all": every profile this server has). */
static bool profiles_from_request(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, pool *p,
                                  fl_options *o) {
    if (!ro->n_profiles) {
        return true;
    }
    const fl_srv_config *cfg = &c->srv->cfg;
    const fl_profile_set *set = cfg->profiles;
    size_t cap = ro->n_profiles + set->n;
    const fl_profile **sel = pool_alloc(p, (cap + 1) * sizeof *sel);
    if (!sel) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding the options");
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < ro->n_profiles; i++) {
        const char *name = ro->profiles[i] ? ro->profiles[i] : "";
        if (strcmp(name, "all") == 0) {
            for (size_t k = 0; k < set->n && n < cap; k++) {
                sel[n++] = set->profiles[k];
            }
            continue;
        }
        const fl_profile *pr = fl_profile_set_find(set, name);
        if (!pr) {
            fl_call_fail(c, GRPC_STATUS_NOT_FOUND,
                         "no profile named '%.200s' on this server (ListProfiles lists them)",
                         name);
            return false;
        }
        if (n < cap) {
            sel[n++] = pr;
        }
    }
    o->profiles = sel;
    o->n_profiles = n;
    return true;
}

/* The request's limits, never above the server's. */
static bool limits_from_request(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, fl_options *o) {
    if (!ro->limits) {
        return true;
    }
    const fl_srv_config *cfg = &c->srv->cfg;
    const Foldline__V1__Limits *l = ro->limits;
    if (l->max_nodes <= 0 || l->max_value_elements < 0) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                     "options.limits: max_nodes must be > 0 and max_value_elements >= 0 "
                     "(got %" PRId64 " and %" PRId64 ")",
                     l->max_nodes, l->max_value_elements);
        return false;
    }
    o->max_nodes = l->max_nodes < cfg->max_nodes ? l->max_nodes : cfg->max_nodes;
    o->max_value_elements = l->max_value_elements;
    if (l->max_memory_bytes &&
        (cfg->max_memory_bytes == 0 || l->max_memory_bytes < (uint64_t)cfg->max_memory_bytes)) {
        o->max_memory_bytes = (size_t)l->max_memory_bytes;
    }
    return true;
}

/* Fills `o` from the request options; arrays are allocated in `p` and point
 * into `ro`, which must outlive the analysis. Returns false with the call
 * failed INVALID_ARGUMENT when an option is bad. */
static bool options_from_request(fl_call *c, const Foldline__V1__AnalyzeOptions *ro, pool *p,
                                 fl_options *o) {
    const fl_srv_config *cfg = &c->srv->cfg;
    fl_options_init(o);
    o->max_nodes = cfg->max_nodes;
    o->max_memory_bytes = cfg->max_memory_bytes;
    o->passes = "default"; /* what `foldline analyze` runs unless told otherwise */
    /* A gRPC client has no flags: messages name the request's fields. */
    o->option_names = ro && ro->cli_option_names ? FL_OPTION_NAMES_CLI : FL_OPTION_NAMES_REQUEST;
    if (!ro) {
        return true;
    }
    static const fl_format formats[] = {
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_AUTO] = FL_FORMAT_AUTO,
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_GRAPHDEF] = FL_FORMAT_GRAPHDEF,
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_SAVEDMODEL] = FL_FORMAT_SAVEDMODEL,
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_ONNX] = FL_FORMAT_ONNX,
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_TFJS] = FL_FORMAT_TFJS,
        [FOLDLINE__V1__GRAPH_FORMAT__GRAPH_FORMAT_TFLITE] = FL_FORMAT_TFLITE,
    };
    if ((int)ro->format < 0 || (size_t)ro->format >= sizeof formats / sizeof formats[0]) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "options.format: unknown value %d",
                     (int)ro->format);
        return false;
    }
    o->format = formats[ro->format];
    if (ro->saved_model_tag && *ro->saved_model_tag) {
        o->saved_model_tag = ro->saved_model_tag;
    }
    if (!bindings_from_request(c, ro, p, o) || !profiles_from_request(c, ro, p, o) ||
        !pass_options(c, ro, p, o) || !limits_from_request(c, ro, o)) {
        return false;
    }
    o->per_node = ro->per_node;
    if (ro->llm && ro->llm->enabled) {
        if (ro->llm->prompt < 0 || ro->llm->context < 0 || ro->llm->context == 1) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "options.llm: prompt %" PRId64 " and context %" PRId64
                         " must be >= 1 and >= 2 (0: the defaults 128 and 1024)",
                         ro->llm->prompt, ro->llm->context);
            return false;
        }
        o->llm = true;
        o->llm_prompt = ro->llm->prompt;
        o->llm_context = ro->llm->context;
    }
    return true;
}

/* Pointer arrays of n sub-messages, each zeroed and initialised by `init`. */
#define POOL_MSGS(p, arr, n, type, init)                                                           \
    do {                                                                                           \
        arr = pool_alloc(p, ((n) + 1) * sizeof(type *));                                           \
        for (size_t i_ = 0; arr && i_ < (n); i_++) {                                               \
            arr[i_] = pool_alloc(p, sizeof(type));                                                 \
            if (arr[i_]) {                                                                         \
                init(arr[i_]);                                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------- */
/* Analyze (pool thread)                                                      */
/* ------------------------------------------------------------------------- */

/* What an AnalyzeStream has received (loop, then the pool thread that
 * analyses it): the model's bytes and each named file's, joined as the
 * messages arrive, and the first message's options. */
typedef struct stream_buf {
    char *name; /* NULL: the model file itself */
    unsigned char *bytes;
    size_t len, cap;
    bool mapped; /* pages of its own (buf_reserve_mapped), munmap'd */
} stream_buf;

struct fl_stream {
    size_t n_msgs;
    fl_wire_msgs *msgs;       /* the options, decoded from opt_bytes */
    unsigned char *opt_bytes; /* the first message's options, packed again */
    const Foldline__V1__AnalyzeOptions *options;
    stream_buf model;
    stream_buf *files;
    size_t n_files, cap_files;
    /* The model scanned as it arrives (foldline/wire.h): payloads the
     * analysis never decodes are left out of `model` (its pages never
     * written), the node limit checked as nodes arrive. NULL: the model is
     * held whole (other formats, return_optimized_graph). */
    fl_wire_scan *scan;
    const char *nodes_limit; /* the option that set the node limit */
    int64_t max_nodes;
    unsigned char *scratch; /* a message gRPC delivered in several slices */
    size_t scratch_cap;
};

static void stream_free(struct fl_stream *st) {
    if (!st) {
        return;
    }
    fl_wire_msgs_free(st->msgs);
    free(st->opt_bytes);
#ifdef __linux__
    if (st->model.mapped) {
        munmap(st->model.bytes, st->model.cap);
        st->model.bytes = NULL;
    }
#endif
    free(st->model.bytes);
    fl_wire_scan_free(st->scan);
    free(st->scratch);
    for (size_t i = 0; i < st->n_files; i++) {
        free(st->files[i].name);
        free(st->files[i].bytes);
    }
    free(st->files);
    free(st);
}

void fl_svc_stream_free(fl_call *c) {
    stream_free(c->stream);
    c->stream = NULL;
}

/* The decoded request: graph bytes and options, whichever method sent them. */
typedef struct request {
    /* Analyze: the message decoded in place (foldline/wire.h) into `msgs`,
     * its bytes fields (the graph, the files) views into `slice` */
    Foldline__V1__AnalyzeRequest *unary;
    fl_wire_msgs *msgs;
    grpc_slice slice;
    struct fl_stream *stream; /* AnalyzeStream: the joined upload (taken from the call) */
    const unsigned char *graph;
    size_t len;
    const Foldline__V1__AnalyzeOptions *options;
    fl_file *files; /* the model's other files (bytes borrowed) */
    size_t n_files;
} request;

static void request_free(request *q) {
    fl_wire_msgs_free(q->msgs);
    grpc_slice_unref(q->slice);
    stream_free(q->stream);
    free(q->files);
}

/* Fails the call for bytes fl_wire_unpack could not decode (`what`:
 * which message they were to be), naming the field and the byte. */
static void fail_undecodable(fl_call *c, const fl_wire_error *e, const char *what) {
    const char *msg = e->message ? e->message : "the message";
    if (e->oom) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding %s", msg);
    } else if (e->field) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "%s (%s, in field '%s' of %s at byte %zu)",
                     what, e->what, e->field, msg, e->offset);
    } else {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "%s (%s, in %s at byte %zu)", what,
                     e->what ? e->what : "not decodable", msg, e->offset);
    }
}

/* Makes room for n more bytes in b, its capacity doubled as needed but
 * never beyond `limit`; false when memory runs out or b->len + n would pass
 * the limit (on_recv checks the stream's size against it first, so this
 * only keeps a copy from ever running past the block). Past the
 * allocator's mmap threshold (main.c) a larger block is the same pages
 * remapped, not a copy: the upload is not held twice while it grows, and
 * pages of capacity never written are never resident. */
static bool buf_reserve(stream_buf *b, size_t n, size_t limit) {
    if (n <= b->cap - b->len) {
        return true;
    }
    if (b->len > limit || n > limit - b->len) {
        return false;
    }
    size_t cap = b->cap ? b->cap : 65536;
    while (cap - b->len < n) {
        cap *= 2;
    }
    if (cap > limit) {
        cap = limit;
    }
    unsigned char *nb = realloc(b->bytes, cap);
    if (!nb) {
        return false;
    }
    b->bytes = nb;
    b->cap = cap;
    return true;
}

#ifdef __linux__
/* buf_reserve for a buffer of pages of its own: grown by mremap, which
 * moves pages without touching them, so the ranges the scan leaves out are
 * never written and never resident (and read as zeros: a read maps the
 * kernel's shared zero page, not counted in RSS). */
static bool buf_reserve_mapped(stream_buf *b, size_t n, size_t limit) {
    if (n <= b->cap - b->len) {
        return true;
    }
    if (b->len > limit || n > limit - b->len) {
        return false;
    }
    size_t cap = b->cap ? b->cap : (size_t)1 << 20;
    while (cap - b->len < n) {
        cap *= 2;
    }
    if (cap > limit) {
        cap = limit;
    }
    void *nb = b->bytes
                   ? mremap(b->bytes, b->cap, cap, MREMAP_MAYMOVE)
                   : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (nb == MAP_FAILED) {
        return false;
    }
#ifdef MADV_NOHUGEPAGE
    /* A huge page would make a left-out range's neighbourhood resident
     * (transparent huge pages "always"): small pages only. */
    (void)madvise(nb, cap, MADV_NOHUGEPAGE);
#endif
    b->bytes = nb;
    b->cap = cap;
    b->mapped = true;
    return true;
}
#endif

/* Appends n bytes at p to b; p may lie in b's own spare capacity. */
static bool buf_append(stream_buf *b, const uint8_t *p, size_t n, size_t limit) {
    if (!buf_reserve(b, n, limit)) {
        return false;
    }
    memmove(b->bytes + b->len, p, n);
    b->len += n;
    return true;
}

/* The stream's file `name` (added when new), or NULL past 1024 files or
 * when memory runs out. */
static stream_buf *stream_named(struct fl_stream *st, const char *name) {
    for (size_t i = 0; i < st->n_files; i++) {
        if (strcmp(st->files[i].name, name) == 0) {
            return &st->files[i];
        }
    }
    if (st->n_files == 1024) {
        return NULL;
    }
    if (st->n_files == st->cap_files) {
        size_t nc = st->cap_files ? st->cap_files * 2 : 4;
        stream_buf *nf = realloc(st->files, nc * sizeof *nf);
        if (!nf) {
            return NULL;
        }
        st->files = nf;
        st->cap_files = nc;
    }
    char *copy = strdup(name);
    if (!copy) {
        return NULL;
    }
    st->files[st->n_files] = (stream_buf){.name = copy};
    return &st->files[st->n_files++];
}

/* Checks the stream's options (ro may be NULL) and, for a model whose
 * format may be ONNX or GraphDef, starts its scanner with the analysis's
 * own limits. Returns false with the call failed. */
static bool stream_scanner(fl_call *c, struct fl_stream *st,
                           const Foldline__V1__AnalyzeOptions *ro) {
    pool p = {0};
    fl_options o;
    bool ok = options_from_request(c, ro, &p, &o);
    pool_free(&p);
#ifdef __linux__
    if (ok && !o.return_graph) { /* the rewritten graph carries the payloads */
        st->scan = fl_wire_scan_new(o.format, o.max_nodes, o.max_value_elements);
        st->max_nodes = o.max_nodes;
        st->nodes_limit =
            o.max_nodes < c->srv->cfg.max_nodes ? "options.limits.max_nodes" : "--max-nodes";
    }
#endif
    return ok;
}

/* The first message's options: packed again and decoded from that copy,
 * so that the message's own bytes (most of them graph_chunk) are released
 * with it, and checked now: an upload with a bad option fails before its
 * bytes are sent, not after. */
static bool stream_options(fl_call *c, struct fl_stream *st,
                           const Foldline__V1__AnalyzeOptions *ro) {
    if (!ro) {
        return stream_scanner(c, st, NULL);
    }
    size_t n = foldline__v1__analyze_options__get_packed_size(ro);
    st->opt_bytes = malloc(n ? n : 1);
    st->msgs = fl_wire_msgs_new();
    if (!st->opt_bytes || !st->msgs) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory decoding the options");
        return false;
    }
    foldline__v1__analyze_options__pack(ro, st->opt_bytes);
    fl_wire_error e = {0};
    st->options = (const Foldline__V1__AnalyzeOptions *)fl_wire_unpack(
        st->msgs, &foldline__v1__analyze_options__descriptor, st->opt_bytes, n, &e);
    if (!st->options) {
        fail_undecodable(c, &e, "stream message 0's options");
        return false;
    }
    return stream_scanner(c, st, st->options);
}

/* Appends n bytes of the model through its scanner: the runs it keeps are
 * written, the ones it leaves out only counted in the length. Stops at the
 * node limit (the caller reads fl_wire_scan_error). */
static bool scan_append(struct fl_stream *st, const uint8_t *p, size_t n, size_t limit) {
#ifdef __linux__
    if (!buf_reserve_mapped(&st->model, n, limit)) {
        return false;
    }
    while (n) {
        int keep;
        size_t k = fl_wire_scan_next(st->scan, p, n, &keep);
        if (!k) {
            break;
        }
        if (keep) {
            memcpy(st->model.bytes + st->model.len, p, k);
        }
        st->model.len += k;
        p += k;
        n -= k;
    }
    return true;
#else
    return buf_append(&st->model, p, n, limit);
#endif
}

/* The buffer a message gRPC delivered in several slices is joined in: the
 * end of the model's bytes, or (the first message, whose options decide
 * how the model is held, and a scanned model) the stream's scratch. */
static unsigned char *join_room(struct fl_stream *st, size_t i, size_t len, size_t limit) {
    if (!st->scan && i > 0) {
        return buf_reserve(&st->model, len, limit) ? st->model.bytes + st->model.len : NULL;
    }
    if (len > st->scratch_cap) {
        free(st->scratch);
        st->scratch = malloc(len);
        st->scratch_cap = st->scratch ? len : 0;
    }
    return st->scratch;
}

bool fl_svc_stream_message(fl_call *c, grpc_byte_buffer *bb) {
    if (!c->stream && !(c->stream = calloc(1, sizeof *c->stream))) {
        grpc_byte_buffer_destroy(bb);
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory receiving the stream");
        return false;
    }
    struct fl_stream *st = c->stream;
    size_t i = st->n_msgs++, limit = (size_t)c->srv->cfg.max_graph_bytes;
    /* A message that arrived in one slice is read where it is. One in
     * several slices (a large one usually is) is copied slice by slice to
     * the end of the model's bytes, where its graph_chunk then moves down
     * by the few bytes of its header (or out, to a named file): one copy
     * of its bytes into pages the upload needs anyway, where a contiguous
     * copy of the whole message first (read_all) cost the loop a
     * temporary mapping and its page faults per message. The message's
     * size is within the stream's, so the model's room cannot grow past
     * the limit. A scanned model's messages are joined in a scratch buffer
     * of the stream's instead (join_room): their payloads must not be
     * written into the model's pages. */
    grpc_slice s = grpc_empty_slice();
    const uint8_t *bytes = NULL;
    size_t len = 0;
    if (bb->type == GRPC_BB_RAW && bb->data.raw.compression == GRPC_COMPRESS_NONE &&
        bb->data.raw.slice_buffer.count > 1 && grpc_byte_buffer_length(bb) > 0) {
        len = grpc_byte_buffer_length(bb);
        grpc_byte_buffer_reader r;
        unsigned char *at = join_room(st, i, len, limit);
        if (!at || !grpc_byte_buffer_reader_init(&r, bb)) {
            grpc_byte_buffer_destroy(bb);
            fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory receiving the stream");
            return false;
        }
        size_t off = 0;
        grpc_slice piece;
        while (grpc_byte_buffer_reader_next(&r, &piece)) {
            size_t n = GRPC_SLICE_LENGTH(piece);
            if (n > len - off) { /* never: the buffer's length is its slices' */
                n = len - off;
            }
            if (n) {
                memcpy(at + off, GRPC_SLICE_START_PTR(piece), n);
                off += n;
            }
            grpc_slice_unref(piece);
        }
        grpc_byte_buffer_reader_destroy(&r);
        bytes = at;
        len = off;
    } else {
        s = read_all(bb);
        bytes = GRPC_SLICE_START_PTR(s);
        len = GRPC_SLICE_LENGTH(s);
    }
    grpc_byte_buffer_destroy(bb);
    fl_wire_msgs *m = fl_wire_msgs_new();
    Foldline__V1__AnalyzeChunk *ch = NULL;
    bool ok = false;
    char why[768];
    fl_wire_error e = {0};
    if (!m) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory receiving the stream");
    } else if (fl_pb_guard(&foldline__v1__analyze_chunk__descriptor, bytes, len, why, sizeof why) !=
               0) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "stream message %zu: %s", i, why);
    } else if (!(ch = (Foldline__V1__AnalyzeChunk *)fl_wire_unpack(
                     m, &foldline__v1__analyze_chunk__descriptor, bytes, len, &e))) {
        char what[96];
        snprintf(what, sizeof what, "stream message %zu is not a valid foldline.v1.AnalyzeChunk",
                 i);
        fail_undecodable(c, &e, what);
    } else if (i == 0 && !stream_options(c, st, ch->options)) {
        /* failed: the option named */
    } else {
        const char *fname = ch->file_name ? ch->file_name : "";
        stream_buf *b = *fname ? stream_named(st, fname) : &st->model;
        if (!b) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "the stream names more than 1024 files, or memory ran out (field: "
                         "file_name)");
        } else if (ch->graph_chunk.len &&
                   !(b == &st->model && st->scan
                         ? scan_append(st, ch->graph_chunk.data, ch->graph_chunk.len, limit)
                         : buf_append(b, ch->graph_chunk.data, ch->graph_chunk.len, limit))) {
            fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
                         "out of memory receiving the stream (%" PRId64 " bytes received)",
                         c->stream_bytes);
        } else if (fl_wire_scan_error(st->scan)) {
            fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
                         "stream message %zu: %s, above the limit of %" PRId64 " nodes (%s)", i,
                         fl_wire_scan_error(st->scan), st->max_nodes, st->nodes_limit);
        } else if (fl_wire_scan_retyped(st->scan)) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT,
                         "stream message %zu: %s; its bytes are no longer at hand (send the model "
                         "with Analyze, or its type before its payload)",
                         i, fl_wire_scan_retyped(st->scan));
        } else {
            ok = true;
        }
    }
    fl_wire_msgs_free(m);
    grpc_slice_unref(s);
    if (!st->scan) { /* the first message's, when the model is held whole */
        free(st->scratch);
        st->scratch = NULL;
        st->scratch_cap = 0;
    }
    return ok;
}

/* AnalyzeStream: the upload the loop has joined (fl_svc_stream_message)
 * becomes the request; its bytes are analysed where they are. */
static bool take_stream(fl_call *c, request *q) {
    struct fl_stream *st = c->stream;
    c->stream = NULL;
    q->stream = st;
    if (!st || st->model.len == 0) {
        fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "the stream carried no graph bytes");
        return false;
    }
    q->graph = st->model.bytes;
    q->len = st->model.len;
    q->options = st->options;
    q->files = calloc(st->n_files + 1, sizeof(fl_file));
    if (!q->files) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
        return false;
    }
    for (size_t i = 0; i < st->n_files; i++) {
        q->files[i].name = st->files[i].name;
        q->files[i].bytes = st->files[i].bytes;
        q->files[i].len = st->files[i].len;
    }
    q->n_files = st->n_files;
    return true;
}

/* Decodes the unary request, releasing the call's buffer, or takes the
 * stream's joined upload. Returns false with the call failed. */
static bool decode(fl_call *c, request *q) {
    if (!q->msgs) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
        return false;
    }
    if (c->method == FL_M_ANALYZE) {
        /* The request's bytes stay referenced until request_free: the
         * graph and the files are read where they arrived, not copied (a
         * graph of up to --max-message-bytes held once, not twice). */
        q->slice = read_all(c->payload);
        grpc_byte_buffer_destroy(c->payload);
        c->payload = NULL;
        const uint8_t *bytes = GRPC_SLICE_START_PTR(q->slice);
        size_t n = GRPC_SLICE_LENGTH(q->slice);
        char why[768];
        if (fl_pb_guard(&foldline__v1__analyze_request__descriptor, bytes, n, why, sizeof why) !=
            0) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "%s", why);
            return false;
        }
        fl_wire_error e = {0};
        q->unary = (Foldline__V1__AnalyzeRequest *)fl_wire_unpack(
            q->msgs, &foldline__v1__analyze_request__descriptor, bytes, n, &e);
        if (!q->unary) {
            fail_undecodable(c, &e,
                             "the request is not a valid foldline.v1.AnalyzeRequest message");
            return false;
        }
        q->graph = q->unary->graph.data;
        q->len = q->unary->graph.len;
        q->options = q->unary->options;
        q->files = calloc(q->unary->n_files + 1, sizeof(fl_file));
        if (!q->files) {
            fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
            return false;
        }
        for (size_t i = 0; i < q->unary->n_files; i++) {
            const Foldline__V1__ModelFile *f = q->unary->files[i];
            q->files[i].name = f->name ? f->name : "";
            q->files[i].bytes = f->data.data;
            q->files[i].len = f->data.len;
        }
        q->n_files = q->unary->n_files;
        return true;
    }
    return take_stream(c, q);
}

/* The graph's part of the cache key: the SHA-256 of the bytes the upload
 * scanner keeps (foldline/wire.h), run over the graph with the request's own
 * format and max_value_elements, and the graph's length. The payloads it
 * leaves out are those fl_analyze with that max_value_elements never reads
 * (the scanner's contract, checked by fuzz_wirescan: the analysis of the
 * zero-holed model equals the original's), and where they lie follows from
 * the kept bytes before them, so the answer is a function of the key: a
 * model sent whole (Analyze) and the same model streamed (AnalyzeStream,
 * whose left-out payloads are zero pages) share one entry. Reading the kept
 * bytes only also spares hashing the weights of a large model. A stream
 * returning the rewritten graph carries every payload: all bytes count. A
 * tensor retyped after its left-out payload (fl_wire_scan_retyped) voids
 * the contract: its model counts every byte (such a stream is refused). */
static void key_graph(const request *q, const fl_options *o, fl_cache_key *h) {
    fl_key_digest d;
    if (!fl_digest_begin(&d)) {
        h->failed = true;
        return;
    }
    /* A graph of at most max_value_elements bytes has nothing the scanner
     * leaves out (a payload it leaves out holds a value, at least a byte,
     * per element of dims past max_value_elements; a shorter one, malformed
     * or small, is kept): every byte counts, without the scan, which would
     * cost a small graph's key more than its digest, and a stream of such a
     * graph, held whole, has the same key. */
    bool small = o->max_value_elements >= 0 && q->len <= (uint64_t)o->max_value_elements;
    fl_wire_scan *s = o->return_graph || small
                          ? NULL
                          : fl_wire_scan_new(o->format, INT64_MAX, o->max_value_elements);
    const uint8_t *p = q->graph;
    size_t n = q->len;
    while (s && n) {
        int keep;
        size_t k = fl_wire_scan_next(s, p, n, &keep);
        if (!k) {
            break;
        }
        if (keep) {
            fl_digest_update(&d, p, k);
        }
        p += k;
        n -= k;
    }
    if (fl_wire_scan_retyped(s)) {
        fl_digest_end(&d);
        fl_key_add_hashed(h, q->graph, q->len);
    } else {
        fl_digest_update(&d, p, n);
        fl_key_add_digest(h, &d, q->len);
    }
    fl_wire_scan_free(s);
}

/* The cache key: the graph (key_graph), the model's other files (names,
 * SHA-256 and lengths), the packed options (every field, the pass selection
 * and the other pass options included), then the contents of the selected
 * profiles; compared in full on a hit (cache.h). */
static void cache_key(const request *q, const fl_options *o, fl_cache_key *h) {
    fl_key_init(h);
    key_graph(q, o, h);
    uint64_t n_files = q->n_files; /* the model's other files, names and bytes */
    fl_key_add(h, &n_files, sizeof n_files);
    for (size_t i = 0; i < q->n_files; i++) {
        fl_key_add_str(h, q->files[i].name);
        fl_key_add_hashed(h, q->files[i].bytes, q->files[i].len);
    }
    uint64_t has_options = q->options != NULL;
    fl_key_add(h, &has_options, sizeof has_options);
    if (q->options) {
        size_t n = foldline__v1__analyze_options__get_packed_size(q->options);
        unsigned char stack[512];
        unsigned char *buf = n <= sizeof stack ? stack : malloc(n);
        if (!buf) {
            h->failed = true; /* never a key without the options: no caching */
            return;
        }
        foldline__v1__analyze_options__pack(q->options, buf);
        fl_key_add(h, buf, n);
        if (buf != stack) {
            free(buf);
        }
    }
    for (size_t i = 0; i < o->n_profiles; i++) {
        fl_key_add_profile(h, o->profiles[i]);
    }
}

/* Encodes the report as the reply and stores it in the cache: the cache
 * entry is the node count (8 bytes) followed by the packed reply. */
static void encode_reply(fl_call *c, const fl_report *r, const fl_cache_key *key) {
    /* Straight from the report, back to front (report_pb.h), with room for
     * the node count in front of the reply: the cache entry is both. */
    uint8_t *block, *data;
    size_t len;
    bool oom;
    char err[256];
    if (!fl_report_encode(r, fl_version(), 8, &block, &data, &len, &oom, err, sizeof err)) {
        fl_call_fail(c, oom ? GRPC_STATUS_RESOURCE_EXHAUSTED : GRPC_STATUS_INTERNAL,
                     "encoding the reply: %s", err);
        return;
    }
    int64_t nodes = r->n_nodes;
    memcpy(data - 8, &nodes, 8);
    if (c->srv->cache) {
        fl_cache_put(c->srv->cache, key, data - 8, len + 8);
    }
    set_reply_in(c, block, data, len);
}

void fl_svc_analyze_work(fl_call *c) {
    if (deadline_passed(c)) {
        c->abandoned = true;
        fl_call_fail(c, GRPC_STATUS_DEADLINE_EXCEEDED,
                     "the deadline passed while the request was queued");
        return;
    }
    if (atomic_load(&c->client_gone)) {
        /* Cancelled while queued (an AnalyzeStream's end can arrive before
         * the notice that the client cancelled it: its bytes are a part of
         * the upload). */
        fl_call_fail(c, GRPC_STATUS_CANCELLED, "the client cancelled the call before its analysis");
        return;
    }
    request q;
    memset(&q, 0, sizeof q);
    q.msgs = fl_wire_msgs_new();
    q.slice = grpc_empty_slice();
    pool p = {0};
    fl_cache_key key;
    memset(&key, 0, sizeof key);
    fl_options opt;
    if (!decode(c, &q) || !options_from_request(c, q.options, &p, &opt)) {
        goto done;
    }
    if (c->srv->cache) { /* without a cache the key would only be thrown away */
        cache_key(&q, &opt, &key);
    }
    unsigned char *hit = NULL;
    size_t hit_len = 0;
    if (c->srv->cache && fl_cache_get(c->srv->cache, &key, &hit, &hit_len)) {
        c->cache_hit = true;
        memcpy(&c->nodes, hit, 8);
        memmove(hit, hit + 8, hit_len - 8);
        set_reply(c, hit, hit_len - 8);
        goto done;
    }
    fl_report *r = NULL;
    opt.should_stop = should_stop;
    opt.stop_arg = c;
    opt.files = q.files;
    opt.n_files = q.n_files;
    fl_status st = fl_analyze(q.graph, q.len, &opt, &r);
    if (r && st == FL_OK) {
        c->nodes = r->n_nodes;
    }
    if (st == FL_ECANCELED) {
        /* Stopped at a cancellation point: the engine has freed its memory. */
        c->stopped = true;
        c->abandoned = deadline_passed(c);
        if (c->abandoned) {
            fl_call_fail(c, GRPC_STATUS_DEADLINE_EXCEEDED,
                         "the deadline passed during the analysis; it was stopped");
        } else if (atomic_load(&c->srv->stop_work)) {
            /* The grace period is over (cancelling every call also makes its
             * client look gone: this is the cause). */
            fl_call_fail(c, GRPC_STATUS_UNAVAILABLE,
                         "the server is shutting down; the analysis was stopped");
        } else {
            fl_call_fail(c, GRPC_STATUS_CANCELLED,
                         "the client cancelled the call; the analysis was stopped");
        }
    } else if (deadline_passed(c)) {
        /* The client has given up: drop the report without encoding it. */
        c->abandoned = true;
        fl_call_fail(c, GRPC_STATUS_DEADLINE_EXCEEDED, "the deadline passed during the analysis");
    } else if (st != FL_OK) {
        c->engine_status = st;
        fl_call_fail(c, grpc_code_of(st), "%s", r && r->error ? r->error : fl_status_str(st));
    } else {
        encode_reply(c, r, &key);
    }
    fl_report_free(r);
done:
    fl_key_free(&key);
    pool_free(&p);
    request_free(&q);
}

/* ------------------------------------------------------------------------- */
/* ListProfiles (loop thread)                                                 */
/* ------------------------------------------------------------------------- */

/* A profile's efficiency section and interval into m (strings point into pr). */
static void profile_efficiency(pool *p, Foldline__V1__Profile *m, const fl_profile *pr) {
    m->calibrated = pr->calibrated;
    size_t nt = 0;
    for (int k = 0; k < FL_CLASS_COUNT; k++) {
        nt += pr->table[k].n_buckets > 0;
    }
    POOL_MSGS(p, m->efficiency, nt, Foldline__V1__ProfileEfficiency,
              foldline__v1__profile_efficiency__init);
    m->n_efficiency = m->efficiency ? nt : 0;
    size_t e = 0;
    for (int k = 0; m->efficiency && k < FL_CLASS_COUNT; k++) {
        const fl_eff_table *t = &pr->table[k];
        if (!t->n_buckets) {
            continue;
        }
        Foldline__V1__ProfileEfficiency *pe = m->efficiency[e++];
        if (!pe) {
            continue;
        }
        pe->op_class = (char *)fl_op_class_name((fl_op_class)k);
        /* OpClass numbers fl_op_class from 1 (test_report_pb checks it). */
        pe->op_class_kind = (Foldline__V1__OpClass)(k + 1);
        pe->by = t->by == FL_SIZE_FLOPS ? "flops" : "bytes";
        POOL_MSGS(p, pe->buckets, t->n_buckets, Foldline__V1__ProfileBucket,
                  foldline__v1__profile_bucket__init);
        pe->n_buckets = pe->buckets ? t->n_buckets : 0;
        for (size_t b = 0; pe->buckets && b < t->n_buckets; b++) {
            Foldline__V1__ProfileBucket *pb = pe->buckets[b];
            const fl_eff_bucket *eb = &t->buckets[b];
            if (!pb) {
                continue;
            }
            if (b + 1 < t->n_buckets) {
                pb->_upto_case = FOLDLINE__V1__PROFILE_BUCKET___UPTO_UPTO;
                pb->upto = eb->upto;
            }
            pb->compute = eb->compute;
            pb->memory = eb->memory;
            pb->fixed_s = eb->fixed_s;
            pb->per_channel_s = eb->per_channel_s;
            pb->broadcast_s = eb->broadcast_s;
            pb->samples = eb->samples;
            pb->residual = eb->residual;
            pb->source = (char *)(eb->source ? eb->source : "");
        }
    }
    if (pr->interval.coverage > 0) {
        m->interval = pool_alloc(p, sizeof(*m->interval));
        if (m->interval) {
            foldline__v1__profile_interval__init(m->interval);
            m->interval->low = pr->interval.low;
            m->interval->high = pr->interval.high;
            m->interval->coverage = pr->interval.coverage;
            m->interval->source = (char *)(pr->interval.source ? pr->interval.source : "");
        }
    }
}

void fl_svc_list_profiles(fl_call *c) {
    const fl_profile_set *set = c->srv->cfg.profiles;
    pool p = {0};
    Foldline__V1__ListProfilesReply r = FOLDLINE__V1__LIST_PROFILES_REPLY__INIT;
    r.profiles_dir = (char *)c->srv->cfg.profiles_dir;
    POOL_MSGS(&p, r.profiles, set->n, Foldline__V1__Profile, foldline__v1__profile__init);
    r.n_profiles = set->n;
    for (size_t i = 0; r.profiles && i < set->n; i++) {
        Foldline__V1__Profile *m = r.profiles[i];
        const fl_profile *pr = set->profiles[i];
        if (!m) {
            continue;
        }
        m->name = (char *)pr->name;
        m->kind = (char *)(pr->kind ? pr->kind : "");
        m->description = (char *)(pr->description ? pr->description : "");
        m->path = (char *)pr->path;
        size_t np = 0;
        for (int u = 0; u < FL_UNIT_COUNT; u++) {
            for (int d = 0; d < FL_PREC_COUNT; d++) {
                np += pr->peak[u][d].value > 0;
            }
        }
        POOL_MSGS(&p, m->peak, np, Foldline__V1__ProfilePeak, foldline__v1__profile_peak__init);
        m->n_peak = np;
        size_t k = 0;
        for (int u = 0; m->peak && u < FL_UNIT_COUNT; u++) {
            for (int d = 0; d < FL_PREC_COUNT; d++) {
                const fl_figure *fg = &pr->peak[u][d];
                if (fg->value <= 0) {
                    continue;
                }
                int ue = 0, de = 0;
                if (m->peak[k] &&
                    fl_pb_enum_value(&foldline__v1__unit__descriptor, "UNIT_",
                                     fl_unit_name((fl_unit)u), &ue) &&
                    fl_pb_enum_value(&foldline__v1__precision__descriptor, "PRECISION_",
                                     fl_precision_name((fl_precision)d), &de)) {
                    m->peak[k]->unit = (Foldline__V1__Unit)ue;
                    m->peak[k]->dtype = (Foldline__V1__Precision)de;
                    m->peak[k]->flops_per_s = fg->value;
                    m->peak[k]->source = (char *)(fg->source ? fg->source : "");
                }
                k++;
            }
        }
        POOL_MSGS(&p, m->memory, pr->n_levels, Foldline__V1__ProfileMemory,
                  foldline__v1__profile_memory__init);
        m->n_memory = pr->n_levels;
        for (size_t l = 0; m->memory && l < pr->n_levels; l++) {
            if (m->memory[l]) {
                m->memory[l]->name = (char *)pr->levels[l].name;
                m->memory[l]->bandwidth = pr->levels[l].bandwidth;
                if (pr->levels[l].capacity > 0) {
                    m->memory[l]->_capacity_case = FOLDLINE__V1__PROFILE_MEMORY___CAPACITY_CAPACITY;
                    m->memory[l]->capacity = pr->levels[l].capacity;
                }
                m->memory[l]->source = (char *)(pr->levels[l].source ? pr->levels[l].source : "");
            }
        }
        if (pr->overhead.value > 0) {
            m->_overhead_s_case = FOLDLINE__V1__PROFILE___OVERHEAD_S_OVERHEAD_S;
            m->overhead_s = pr->overhead.value;
        }
        m->overhead_source = (char *)(pr->overhead.source ? pr->overhead.source : "");
        if (pr->streamed.value > 0) {
            m->_streamed_case = FOLDLINE__V1__PROFILE___STREAMED_STREAMED;
            m->streamed = pr->streamed.value;
        }
        m->streamed_source = (char *)(pr->streamed.source ? pr->streamed.source : "");
        if (pr->gap.value > 0) {
            m->_gap_case = FOLDLINE__V1__PROFILE___GAP_GAP;
            m->gap = pr->gap.value;
        }
        m->gap_source = (char *)(pr->gap.source ? pr->gap.source : "");
        profile_efficiency(&p, m, pr);
    }
    if (p.failed) {
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory encoding the reply");
    } else {
        reply_message(c, &r.base);
    }
    pool_free(&p);
}
