/*
 * server.h - foldlined's shared types: configuration, the server, one call.
 *
 * Threads (see README.md, "Server"):
 *   - the completion-queue thread only moves gRPC events to the loop
 *     (fl_srv_cq_thread); it never touches a call;
 *   - the libuv loop thread owns every call: it starts every gRPC batch,
 *     answers cheap methods inline and finishes every call; it also runs a
 *     small Analyze (--inline-bytes) itself when the pool is idle and no
 *     other event waits (server.c, run_inline);
 *     An AnalyzeStream's messages are decoded on the loop as they arrive
 *     (fl_svc_stream_message): each is appended to the upload's bytes and
 *     released, and the limits apply as the bytes arrive;
 *   - libuv's thread pool runs the other analyses (decode, fl_analyze,
 *     encode) and touches only its own call's request bytes and result
 *     fields (a stream's, once the loop has handed the complete upload over).
 *     The calls wait in the server's list (under `w_mu`); a runner (a libuv
 *     work request, at most --threads) analyses them one after another,
 *     hands each finished call to the loop as an event, like the CQ thread,
 *     and waits for the next call.
 */
#ifndef FL_SERVER_SERVER_H
#define FL_SERVER_SERVER_H

#include "cache.h"
#include "foldline/roofline.h"

#include <grpc/grpc.h>
#include <grpc/support/time.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct fl_srv_config {
    const char *listen;        /* "127.0.0.1:50051"; port 0 = pick one */
    int threads;               /* analysis threads (libuv pool) */
    int64_t max_message_bytes; /* one gRPC message */
    int64_t max_graph_bytes;   /* a whole graph (AnalyzeStream) */
    int64_t max_nodes;         /* nodes per graph, ceiling */
    size_t max_memory_bytes;   /* analysis memory per request, ceiling */
    int max_queued;            /* analyses queued or running */
    size_t inline_bytes;       /* Analyze requests up to this size may run on the loop */
    size_t cache_bytes;        /* 0 = no cache */
    int grace_ms;              /* shutdown grace before cancelling calls */
    const char *tls_cert, *tls_key;
    char *token;                    /* NULL = no authentication */
    bool health_open;               /* Health/Check answered without the token */
    const char *port_file;          /* write the bound port here (tests) */
    const fl_profile_set *profiles; /* loaded at startup (never NULL; may be empty) */
    const char *profiles_dir;       /* where they came from ("" when none) */
    const char *metrics_listen;     /* HOST:PORT of the /metrics endpoint, or NULL */
} fl_srv_config;

/* The methods we register; FL_M_GENERIC collects every other path. */
typedef enum fl_method {
    FL_M_ANALYZE,
    FL_M_ANALYZE_STREAM,
    FL_M_STATS,
    FL_M_LIST_PROFILES,
    FL_M_HEALTH_CHECK,
    FL_M_GENERIC,
    FL_M_COUNT
} fl_method;

typedef enum fl_tag_kind {
    FL_TAG_NEW_CALL,
    FL_TAG_RECV,
    FL_TAG_FINISH,
    FL_TAG_CLOSE, /* RECV_CLOSE_ON_SERVER started early: the client went away */
    FL_TAG_SHUTDOWN,
    FL_TAG_WORK_DONE /* a pool thread finished the call's analysis */
} fl_tag_kind;

struct fl_call;

/* What the CQ thread (the tag given to gRPC) or a pool thread (the call's
 * work_tag) hands to the loop. */
typedef struct fl_tag {
    fl_tag_kind kind;
    struct fl_call *call; /* NULL for FL_TAG_SHUTDOWN */
} fl_tag;

typedef struct fl_srv_stats {
    uint64_t requests, analyze_ok, analyze_failed, rejected_queue_full, deadline_abandoned;
    uint64_t unauthenticated, unimplemented, bytes_received;
    uint64_t analyses_stopped; /* stopped mid-run by the engine's cancellation points */
} fl_srv_stats;

typedef struct fl_metrics fl_metrics;

typedef struct fl_srv {
    fl_srv_config cfg;
    grpc_server *server;
    grpc_completion_queue *cq;
    void *method_handles[FL_M_COUNT];
    uv_loop_t *loop;
    uv_thread_t cq_thread;

    /* CQ thread and pool threads -> loop hand-off: events appended under
     * `mu`, drained by the loop's callback on `wake_fd` (an eventfd), which
     * swaps the vectors until it finds none. A thread writes the eventfd
     * only when it appends to an empty vector while the loop is not
     * draining: a non-empty vector has a wake-up pending, and a draining
     * loop (`draining`, under `mu`: set when a swap took events, cleared
     * by the swap that finds none) swaps again before it sleeps. gRPC's
     * completions and finished analyses share it, so one wake-up of the
     * loop takes both. */
    uv_mutex_t mu;
    uv_poll_t wake;
    int wake_fd;
    struct fl_event {
        fl_tag *tag;
        int success;
    } * events, *spare;
    size_t n_events, cap_events, cap_spare;
    bool draining; /* the loop is dispatching events and swaps again before sleeping */
    bool cq_done;  /* set by the CQ thread after GRPC_QUEUE_SHUTDOWN */

    /* Loop -> pool hand-off (server.c, queue_analysis): the calls waiting
     * for a pool thread, oldest first, under `w_mu` (a mutex of their own:
     * the CQ thread never takes it, the runners take `mu` only to hand a
     * finished call back). They are taken by runners: libuv work requests,
     * at most --threads at once, each of which analyses waiting calls one
     * after the other on its pool thread (a call needs no libuv request of
     * its own, and a busy runner takes the next call without a wake-up).
     * A runner that finds the list empty waits on its own semaphore, on
     * the `idle` stack, until the server stops: the loop hands the next
     * call to the runner on top (posts it) instead of starting one
     * through libuv's pool. `runners` counts the
     * runners that will still look at the list, `busy` those analysing,
     * `n_idle` those waiting (all under `w_mu`); `w_stop` (under `w_mu`)
     * ends the waiting ones at shutdown. The requests themselves are the
     * loop's (runner_slots). */
    uv_mutex_t w_mu;
    struct fl_call *w_head, *w_tail;
    size_t n_waiting;
    int runners, busy;
    struct fl_runner {
        uv_work_t req;
        struct fl_srv *srv;
        bool in_use; /* queued or running in libuv (loop) */
        sem_t wake;  /* posted by the loop when it takes the runner off the idle stack */
    } * runner_slots;
    int n_runner_slots;
    struct fl_runner **idle;
    int n_idle;
    bool w_stop;

    uv_signal_t sigterm, sigint;
    uv_timer_t grace;

    bool shutting_down, shutdown_tag_seen, destroyed;
    fl_tag shutdown_tag;
    int64_t pending_requests; /* request_*_call outstanding */
    int64_t active_calls;     /* calls we own */
    int64_t queued_work;      /* analyses queued or running in the pool */

    /* Set by the loop when the grace period is over: running analyses stop at
     * their next cancellation point (read by pool threads). */
    atomic_bool stop_work;
    /* Analyses on a pool thread now (decoding, analysing or encoding). */
    atomic_uint_fast64_t analyses_running;

    /* The calls with an analysis queued or running, oldest first (loop), and
     * the mean wall time of an analysis (an exponential average over the
     * finished ones, 0 before the first): at SIGTERM the queued calls the
     * grace period cannot finish are handed back at once. */
    struct fl_call *q_head, *q_tail;
    double work_ms_avg;
    /* Events of the batch on_wake is dispatching that come after the
     * current one (server.c, run_inline). */
    size_t events_left;

    fl_cache *cache;
    fl_srv_stats stats;
    fl_metrics *metrics; /* --metrics-listen, or NULL */
} fl_srv;

/* One call, owned by the loop thread from its new-call event to the
 * completion of its final batch. */
typedef struct fl_call {
    fl_srv *srv;
    fl_method method;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_call_details details; /* FL_M_GENERIC only */
    grpc_byte_buffer *payload; /* unary request / last streamed message */
    fl_tag new_tag, recv_tag, finish_tag, close_tag;
    /* The call ends (log line, free) once its final batch has completed and,
     * for analyses, the close notification started at arrival too. */
    bool finish_started, finish_pending, close_pending;
    bool close_watched;      /* watch_close started it: the final batch must not ask again */
    atomic_bool client_gone; /* set by the loop on an early close: analyses stop */

    /* AnalyzeStream: what the messages received so far carried (service.c:
     * each message is decoded as it arrives, its bytes appended to the
     * model's or a file's buffer and the message released), and their size
     * on the wire. */
    struct fl_stream *stream;
    int64_t stream_bytes;

    fl_tag work_tag;        /* FL_TAG_WORK_DONE */
    struct fl_call *w_next; /* fl_srv's calls waiting for a pool thread */
    uint64_t t_start_ns;
    uint64_t work_ns;                /* the analysis' wall time (pool thread) */
    struct fl_call *q_prev, *q_next; /* fl_srv's queue of analyses */

    /* Result, filled by the worker or the loop. */
    grpc_status_code status;
    char *status_msg; /* malloc'd, or NULL */
    grpc_byte_buffer *reply;
    grpc_slice details_slice;
    bool has_details;
    int cancelled; /* RECV_CLOSE_ON_SERVER */
    uint64_t bytes_in;
    int64_t nodes;
    bool cache_hit, abandoned;
    bool stopped;          /* the engine stopped the analysis midway (deadline, shutdown) */
    int engine_status;     /* the engine's fl_status when it failed the request, else 0:
                              trailing metadata tells the CLI */
    grpc_metadata trailer; /* that metadata (alive until the final batch completes) */
} fl_call;

/* Starts foldlined with `cfg` (the server takes ownership of cfg->token) and
 * runs until SIGTERM/SIGINT and a clean shutdown. Returns 0 on a clean exit,
 * 1 when the server could not start (message on stderr). */
int fl_srv_run(const fl_srv_config *cfg);

/* Service handlers (service.c). Each runs on the loop unless stated. */

/* Answers Health/Check inline: fills call->status and call->reply. */
void fl_svc_health(fl_call *c);

/* Answers Stats inline from the server's counters. */
void fl_svc_stats(fl_call *c);

/* Answers ListProfiles inline from the profiles loaded at startup. */
void fl_svc_list_profiles(fl_call *c);

/* AnalyzeStream, on the loop: takes one received message `bb` (released
 * here): checks and decodes it, appends its graph_chunk to the model's or
 * the named file's bytes (the first message's options are checked at once).
 * Returns false with the call failed. */
bool fl_svc_stream_message(fl_call *c, grpc_byte_buffer *bb);

/* Frees what the call's stream has received (call->stream; NULL: nothing). */
void fl_svc_stream_free(fl_call *c);

/* Runs on a pool thread: decodes the request (call->payload) or takes the
 * stream's joined bytes (call->stream),
 * analyses it (through the cache), encodes the reply. Sets call->status,
 * call->status_msg, call->reply, call->nodes, call->cache_hit, call->abandoned. */
void fl_svc_analyze_work(fl_call *c);

/* Sets call->status and a malloc'd message (printf format). */
void fl_call_fail(fl_call *c, grpc_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The Prometheus endpoint (metrics.c), on the loop: starts listening on
 * `addr` (0 and the bound port in *port, or -1 with a message on stderr); closes the listener and
 * every connection (in close_all); frees what is left after uv_run returned. */
int fl_metrics_start(fl_srv *s, const char *addr, int *port);
void fl_metrics_close(fl_srv *s);
void fl_metrics_free(fl_srv *s);

/* "OK", "INVALID_ARGUMENT", ... */
const char *fl_grpc_status_name(grpc_status_code code);

#endif
