/*
 * server.c - foldlined's glue between gRPC's completion queue and libuv.
 *
 * A call's life, all on the loop thread except where noted:
 *   1. post_request() asks gRPC for the next call of a method;
 *   2. the new-call event arrives (CQ thread -> on_wake): authenticate, then
 *      answer inline (Health, Stats, unknown method), start receiving
 *      (AnalyzeStream), or queue the analysis on the pool (Analyze; a small
 *      one is analysed inline when the loop would otherwise wait: run_inline);
 *   3. the analysis waits in the server's list for a runner, a libuv work
 *      request that analyses waiting calls one after another on a pool
 *      thread and waits for the next (runner_cb); each finished
 *      call goes back to the loop with the completion queue's events
 *      (FL_TAG_WORK_DONE), and the loop starts its final batch;
 *   4. the final batch's completion ends the call: log line, counters, free.
 *
 * Shutdown (SIGTERM/SIGINT): stop accepting, hand back at once the queued
 * analyses the grace period cannot finish (hand_back_queued), let the other
 * in-flight calls finish, after the grace period cancel what is left; when gRPC's shutdown tag has
 * arrived and no call or request is outstanding, destroy the server and the CQ, join the CQ thread
 * and close every handle so that uv_run returns.
 */
#include "server.h"

#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define REQUESTS_PER_METHOD 32 /* new-call requests kept posted per method */

static const char *const method_paths[FL_M_COUNT] = {
    [FL_M_ANALYZE] = "/foldline.v1.CostModel/Analyze",
    [FL_M_ANALYZE_STREAM] = "/foldline.v1.CostModel/AnalyzeStream",
    [FL_M_STATS] = "/foldline.v1.CostModel/Stats",
    [FL_M_LIST_PROFILES] = "/foldline.v1.CostModel/ListProfiles",
    [FL_M_HEALTH_CHECK] = "/grpc.health.v1.Health/Check",
    [FL_M_GENERIC] = NULL,
};

static const char *const method_names[FL_M_COUNT] = {
    [FL_M_ANALYZE] = "Analyze",
    [FL_M_ANALYZE_STREAM] = "AnalyzeStream",
    [FL_M_STATS] = "Stats",
    [FL_M_LIST_PROFILES] = "ListProfiles",
    [FL_M_HEALTH_CHECK] = "Health/Check",
    [FL_M_GENERIC] = "unknown",
};

static void post_request(fl_srv *s, fl_method m);
static void finish_call(fl_call *c);
static void maybe_destroy(fl_srv *s);

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void fl_call_fail(fl_call *c, grpc_status_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->status = code;
    free(c->status_msg);
    c->status_msg = strdup(buf); /* NULL on OOM: the code alone is sent */
    if (c->reply) {
        grpc_byte_buffer_destroy(c->reply);
        c->reply = NULL;
    }
}

const char *fl_grpc_status_name(grpc_status_code code) {
    switch (code) {
    case GRPC_STATUS_OK:
        return "OK";
    case GRPC_STATUS_CANCELLED:
        return "CANCELLED";
    case GRPC_STATUS_INVALID_ARGUMENT:
        return "INVALID_ARGUMENT";
    case GRPC_STATUS_DEADLINE_EXCEEDED:
        return "DEADLINE_EXCEEDED";
    case GRPC_STATUS_NOT_FOUND:
        return "NOT_FOUND";
    case GRPC_STATUS_RESOURCE_EXHAUSTED:
        return "RESOURCE_EXHAUSTED";
    case GRPC_STATUS_UNIMPLEMENTED:
        return "UNIMPLEMENTED";
    case GRPC_STATUS_INTERNAL:
        return "INTERNAL";
    case GRPC_STATUS_UNAVAILABLE:
        return "UNAVAILABLE";
    case GRPC_STATUS_UNAUTHENTICATED:
        return "UNAUTHENTICATED";
    default:
        return "UNKNOWN";
    }
}

/* Constant-time comparison of the "authorization" metadata with
 * "Bearer <token>". */
static bool token_ok(const fl_srv *s, const grpc_metadata_array *md) {
    const char *tok = s->cfg.token;
    size_t tl = strlen(tok);
    for (size_t i = 0; i < md->count; i++) {
        const grpc_metadata *m = &md->metadata[i];
        if (!grpc_slice_str_cmp(m->key, "authorization")) {
            size_t vl = GRPC_SLICE_LENGTH(m->value);
            const unsigned char *v = GRPC_SLICE_START_PTR(m->value);
            if (vl != tl + 7 || memcmp(v, "Bearer ", 7) != 0) {
                return false;
            }
            unsigned char diff = 0;
            for (size_t k = 0; k < tl; k++) {
                diff |= (unsigned char)(v[7 + k] ^ (unsigned char)tok[k]);
            }
            return diff == 0;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------- */
/* CQ thread -> loop                                                          */
/* ------------------------------------------------------------------------- */

/* Makes the loop's wake_fd readable. An eventfd write fails only if the
 * counter would overflow (it is read back to 0 at every wake-up) or on a
 * signal, which is retried. */
static void wake_loop(fl_srv *s) {
    uint64_t one = 1;
    while (write(s->wake_fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

/* Appends an event for the loop (s->mu held). Returns true when the
 * loop has to be woken (the caller does it, after unlocking): the vector
 * was empty and the loop is not draining it (a draining loop swaps again
 * before it sleeps, and takes the event then). */
static bool push_event(fl_srv *s, fl_tag *tag, int success) {
    bool first = s->n_events == 0 && !s->draining;
    if (s->n_events == s->cap_events) {
        size_t nc = s->cap_events ? s->cap_events * 2 : 256;
        struct fl_event *ne = realloc(s->events, nc * sizeof *ne);
        if (!ne) {
            /* Losing an event would leak a call forever; nothing sensible
             * remains. */
            fprintf(stderr, "foldlined: out of memory in the hand-off to the loop\n");
            abort();
        }
        s->events = ne;
        s->cap_events = nc;
    }
    s->events[s->n_events].tag = tag;
    s->events[s->n_events].success = success;
    s->n_events++;
    return first;
}

/* The CQ thread: moves every event to the loop, never blocks on it.
 * libuv's uv_async_send was the wake-up before: its receiving side spins
 * (up to 997 pauses, then yields) while a sender is between its two
 * atomic steps, which on a loaded host it often was. */
static void cq_thread_main(void *arg) {
    fl_srv *s = arg;
    (void)prctl(PR_SET_NAME, "foldlined-cq"); /* top -H, /proc/PID/task/TID/comm */
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        uv_mutex_lock(&s->mu);
        bool signal = false;
        if (ev.type == GRPC_QUEUE_SHUTDOWN) {
            s->cq_done = true;
        } else if (ev.type == GRPC_OP_COMPLETE) {
            signal = push_event(s, ev.tag, ev.success);
        }
        bool done = s->cq_done;
        uv_mutex_unlock(&s->mu);
        if (signal || done) {
            wake_loop(s);
        }
        if (done) {
            return;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Calls                                                                      */
/* ------------------------------------------------------------------------- */

static void call_free(fl_call *c) {
    if (c->call) {
        grpc_call_unref(c->call);
    }
    grpc_metadata_array_destroy(&c->md);
    if (c->method == FL_M_GENERIC) {
        grpc_call_details_destroy(&c->details);
    }
    if (c->payload) {
        grpc_byte_buffer_destroy(c->payload);
    }
    fl_svc_stream_free(c);
    if (c->reply) {
        grpc_byte_buffer_destroy(c->reply);
    }
    if (c->has_details) {
        grpc_slice_unref(c->details_slice);
    }
    free(c->status_msg);
    free(c);
}

/* Asks gRPC for the next call of method m. */
static void post_request(fl_srv *s, fl_method m) {
    fl_call *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "foldlined: out of memory posting a call request\n");
        return;
    }
    c->srv = s;
    c->method = m;
    c->new_tag = (fl_tag){FL_TAG_NEW_CALL, c};
    c->recv_tag = (fl_tag){FL_TAG_RECV, c};
    c->finish_tag = (fl_tag){FL_TAG_FINISH, c};
    c->close_tag = (fl_tag){FL_TAG_CLOSE, c};
    c->work_tag = (fl_tag){FL_TAG_WORK_DONE, c};
    grpc_metadata_array_init(&c->md);
    grpc_call_error err;
    if (m == FL_M_GENERIC) {
        grpc_call_details_init(&c->details);
        err = grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cq, s->cq,
                                       &c->new_tag);
    } else {
        grpc_byte_buffer **payload = m == FL_M_ANALYZE_STREAM ? NULL : &c->payload;
        err = grpc_server_request_registered_call(s->server, s->method_handles[m], &c->call,
                                                  &c->deadline, &c->md, payload, s->cq, s->cq,
                                                  &c->new_tag);
    }
    if (err != GRPC_CALL_OK) {
        fprintf(stderr, "foldlined: cannot request a call (%d)\n", (int)err);
        call_free(c);
        return;
    }
    s->pending_requests++;
}

static void on_finished(fl_call *c);

/* Ends the call once nothing of it is outstanding. */
static void maybe_end(fl_call *c) {
    if (c->finish_started && !c->finish_pending && !c->close_pending) {
        on_finished(c);
    }
}

/* Analyses ask for the close notification at once, so that a client going
 * away (cancel, disconnect) stops the analysis at its next cancellation
 * point. If that cannot start, the final batch asks for it as for the other
 * methods. */
static void watch_close(fl_call *c) {
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    c->close_pending = grpc_call_start_batch(c->call, &op, 1, &c->close_tag, NULL) == GRPC_CALL_OK;
    c->close_watched = c->close_pending;
}

static void on_close(fl_call *c) {
    c->close_pending = false;
    if (c->cancelled) {
        atomic_store(&c->client_gone, true);
    }
    maybe_end(c);
}

/* Starts the final batch: initial metadata, the reply (when OK), the status,
 * and the close notification unless watch_close asked for it. The call ends
 * when it completes (maybe_end). */
static void finish_call(fl_call *c) {
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (c->status == GRPC_STATUS_OK && c->reply) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->reply;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = c->status;
    /* When the engine failed the request, the trailer names its status
     * ("EUSAGE", "ENOMEM", ...): the gRPC code groups several statuses, and
     * the CLI exits as local mode does for the exact one. */
    if (c->engine_status != FL_OK) {
        c->trailer.key = grpc_slice_from_static_string("foldline-error");
        c->trailer.value =
            grpc_slice_from_static_string(fl_status_name((fl_status)c->engine_status));
        ops[n].data.send_status_from_server.trailing_metadata_count = 1;
        ops[n].data.send_status_from_server.trailing_metadata = &c->trailer;
    }
    if (c->status_msg) {
        c->details_slice = grpc_slice_from_copied_string(c->status_msg);
        c->has_details = true;
        ops[n].data.send_status_from_server.status_details = &c->details_slice;
    }
    n++;
    /* Asked once per call: gRPC refuses the batch (too many operations) if
     * watch_close's notification, even completed, is asked for again. */
    if (!c->close_watched) {
        ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
        ops[n++].data.recv_close_on_server.cancelled = &c->cancelled;
    }
    c->finish_started = true;
    c->finish_pending = true;
    grpc_call_error err = grpc_call_start_batch(c->call, ops, n, &c->finish_tag, NULL);
    if (err != GRPC_CALL_OK) {
        fprintf(stderr, "foldlined: cannot finish a call (%d)\n", (int)err);
        /* Cancelling completes a pending close notification; the call ends
         * when it has arrived. */
        grpc_call_cancel(c->call, NULL);
        c->finish_pending = false;
        maybe_end(c);
    }
}

/* The call is over: one log line, counters, free. */
static void on_finished(fl_call *c) {
    fl_srv *s = c->srv;
    double ms = (double)(now_ns() - c->t_start_ns) / 1e6;
    grpc_status_code st = c->status;
    /* gRPC ends a stream the client cancelled as it ends one the client
     * half-closed (no more messages): an AnalyzeStream may then have
     * answered its partial upload (a model cut short is INVALID_ARGUMENT)
     * before the close notification said why it ended. The client saw no
     * answer: the call is logged by its cause, except at the end of the
     * shutdown grace period, which cancels every call itself. */
    bool partial = c->method == FL_M_ANALYZE_STREAM && !atomic_load(&s->stop_work);
    if (c->cancelled && (st == GRPC_STATUS_OK || partial)) {
        /* The client went away or the deadline passed before the reply left. */
        st = gpr_time_cmp(gpr_now(c->deadline.clock_type), c->deadline) >= 0
                 ? GRPC_STATUS_DEADLINE_EXCEEDED
                 : GRPC_STATUS_CANCELLED;
    }
    s->stats.requests++;
    if (c->method == FL_M_ANALYZE || c->method == FL_M_ANALYZE_STREAM) {
        if (st == GRPC_STATUS_OK) {
            s->stats.analyze_ok++;
        } else {
            s->stats.analyze_failed++;
        }
        s->stats.bytes_received += c->bytes_in;
    }
    if (c->abandoned) {
        s->stats.deadline_abandoned++;
    }
    if (c->stopped) {
        s->stats.analyses_stopped++;
    }
    if (st == GRPC_STATUS_UNAUTHENTICATED) {
        s->stats.unauthenticated++;
    } else if (st == GRPC_STATUS_UNIMPLEMENTED) {
        s->stats.unimplemented++;
    }
    char *path = NULL;
    if (c->method == FL_M_GENERIC) {
        path = grpc_slice_to_c_string(c->details.method);
        for (char *p = path; p && *p; p++) {
            if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) {
                *p = '?'; /* the client's text must not break the JSON line */
            }
        }
    }
    fprintf(stderr,
            "{\"method\":\"%s\",\"bytes\":%" PRIu64 ",\"nodes\":%" PRId64
            ",\"ms\":%.3f,\"status\":\"%s\",\"cache_hit\":%s}\n",
            path ? path : method_names[c->method], c->bytes_in, c->nodes, ms,
            fl_grpc_status_name(st), c->cache_hit ? "true" : "false");
    gpr_free(path);
    s->active_calls--;
    call_free(c);
    maybe_destroy(s);
}

static void queue_unlink(fl_srv *s, fl_call *c) {
    *(c->q_prev ? &c->q_prev->q_next : &s->q_head) = c->q_next;
    *(c->q_next ? &c->q_next->q_prev : &s->q_tail) = c->q_prev;
    c->q_prev = c->q_next = NULL;
}

/* Runner (s->w_mu held, and held again on return): waits on top of the
 * idle stack until the loop hands it a call or the server stops (the loop
 * takes it off the stack and posts its semaphore). The wait has no
 * timeout: a runner holds a pool thread that nothing else uses (libuv's
 * pool has --threads threads and only runners queue work on it) and that
 * libuv would keep waiting idle anyway, and a timed wait arms a kernel
 * timer at every wait (with a 50 ms bound, bench_server.sh read about
 * 12 us more server CPU per Analyze call at 16 in flight on a 2-vCPU
 * virtual machine, a loaded host). A semaphore, not a condition
 * variable: a condition variable takes the mutex back on waking marked as
 * contended, so the runner's next unlock is a futex call even when nobody
 * waits. */
static void runner_wait(fl_srv *s, struct fl_runner *r) {
    s->idle[s->n_idle++] = r;
    uv_mutex_unlock(&s->w_mu);
    while (sem_wait(&r->wake) != 0 && errno == EINTR) {
    }
    uv_mutex_lock(&s->w_mu);
}

/* A pool thread: analyses the calls waiting in the server's list, oldest
 * first, and hands each finished one to the loop with the completion
 * queue's events. A runner that finds the list empty waits for the loop to
 * hand it the next call (runner_wait), and ends when the server stops. */
static void runner_cb(uv_work_t *w) {
    struct fl_runner *r = (struct fl_runner *)w;
    fl_srv *s = r->srv;
    /* Only runners use libuv's pool (see runner_wait): its threads are ours. */
    (void)prctl(PR_SET_NAME, "foldlined-pool");
    uv_mutex_lock(&s->w_mu);
    for (;;) {
        fl_call *c = s->w_head;
        if (!c) {
            if (s->w_stop) {
                break;
            }
            runner_wait(s, r);
            continue;
        }
        s->w_head = c->w_next;
        if (!s->w_head) {
            s->w_tail = NULL;
        }
        c->w_next = NULL;
        s->n_waiting--;
        s->busy++;
        uv_mutex_unlock(&s->w_mu);
        uint64_t t0 = now_ns();
        atomic_fetch_add(&s->analyses_running, 1);
        fl_svc_analyze_work(c);
        atomic_fetch_sub(&s->analyses_running, 1);
        c->work_ns = now_ns() - t0;
        uv_mutex_lock(&s->w_mu);
        s->busy--;
        /* From here the call is the loop's again (it may end it at once).
         * Lock order: w_mu, then mu. */
        uv_mutex_lock(&s->mu);
        bool first = push_event(s, &c->work_tag, 1);
        uv_mutex_unlock(&s->mu);
        if (first) {
            uv_mutex_unlock(&s->w_mu);
            wake_loop(s);
            uv_mutex_lock(&s->w_mu);
        }
    }
    s->runners--;
    uv_mutex_unlock(&s->w_mu);
}

static void after_runner_cb(uv_work_t *w, int status);

/* Loop: appends `c` (if not NULL) to the calls waiting for a pool thread,
 * hands them to waiting runners and starts runners while more calls wait
 * than the runners looking at the list will take, up to --threads runners.
 * Returns false when libuv refused a runner and none is left to take the
 * calls. */
static bool start_runners(fl_srv *s, fl_call *c) {
    struct fl_runner *wake[4];
    int n_wake = 0;
    uv_mutex_lock(&s->w_mu);
    if (c) {
        *(s->w_tail ? &s->w_tail->w_next : &s->w_head) = c;
        s->w_tail = c;
        s->n_waiting++;
    }
    /* Waiting runners first, the last to wait on top: while more calls
     * wait than the runners neither busy nor waiting will take. Posted
     * after unlocking (a call appends one, so one at most, as a rule), so
     * that the runner does not wake to find the mutex held. */
    while (s->n_idle > 0 && s->n_waiting > (size_t)(s->runners - s->busy - s->n_idle)) {
        struct fl_runner *r = s->idle[--s->n_idle];
        if (n_wake < (int)(sizeof wake / sizeof *wake)) {
            wake[n_wake++] = r;
        } else {
            sem_post(&r->wake);
        }
    }
    bool need = s->runners < s->cfg.threads && s->n_waiting > (size_t)(s->runners - s->busy);
    uv_mutex_unlock(&s->w_mu);
    for (int i = 0; i < n_wake; i++) {
        sem_post(&wake[i]->wake);
    }
    if (!need) {
        return true;
    }
    uv_mutex_lock(&s->w_mu);
    for (;;) {
        need = s->runners < s->cfg.threads && s->n_waiting > (size_t)(s->runners - s->busy);
        if (!need) {
            break;
        }
        struct fl_runner *r = NULL;
        for (int i = 0; i < s->n_runner_slots && !r; i++) {
            if (!s->runner_slots[i].in_use) {
                r = &s->runner_slots[i];
            }
        }
        if (!r) {
            /* Every request is still libuv's: a runner that has ended but
             * whose after-callback has not run yet. That callback starts
             * the runner needed. */
            break;
        }
        s->runners++;
        uv_mutex_unlock(&s->w_mu);
        r->in_use = true;
        int rc = uv_queue_work(s->loop, &r->req, runner_cb, after_runner_cb);
        uv_mutex_lock(&s->w_mu);
        if (rc != 0) {
            r->in_use = false;
            s->runners--;
            fprintf(stderr, "foldlined: cannot start an analysis thread: %s\n", uv_strerror(rc));
            bool stranded = s->runners == 0;
            uv_mutex_unlock(&s->w_mu);
            return !stranded;
        }
    }
    uv_mutex_unlock(&s->w_mu);
    return true;
}

/* Loop, once no call can come: the waiting runners end now. */
static void stop_runners(fl_srv *s) {
    uv_mutex_lock(&s->w_mu);
    s->w_stop = true;
    while (s->n_idle > 0) {
        sem_post(&s->idle[--s->n_idle]->wake);
    }
    uv_mutex_unlock(&s->w_mu);
}

/* Loop: takes out of the list the waiting calls after its first `keep`
 * and returns them, linked by w_next. */
static fl_call *take_waiting(fl_srv *s, int64_t keep) {
    uv_mutex_lock(&s->w_mu);
    fl_call **p = &s->w_head, *last = NULL;
    for (int64_t i = 0; *p && i < keep; i++) {
        last = *p;
        p = &(*p)->w_next;
    }
    fl_call *taken = *p;
    *p = NULL;
    s->w_tail = last;
    for (fl_call *c = taken; c; c = c->w_next) {
        s->n_waiting--;
    }
    uv_mutex_unlock(&s->w_mu);
    return taken;
}

/* Loop: answers calls taken out of the waiting list (take_waiting). */
static void fail_taken(fl_srv *s, fl_call *c, grpc_status_code code, const char *msg) {
    while (c) {
        fl_call *next = c->w_next;
        c->w_next = NULL;
        s->queued_work--;
        queue_unlink(s, c);
        fl_call_fail(c, code, "%s", msg);
        finish_call(c);
        c = next;
    }
}

static void after_runner_cb(uv_work_t *w, int status) {
    struct fl_runner *r = (struct fl_runner *)w;
    fl_srv *s = r->srv;
    r->in_use = false;
    if (status == UV_ECANCELED) { /* never cancelled, but then it did not run */
        uv_mutex_lock(&s->w_mu);
        s->runners--;
        uv_mutex_unlock(&s->w_mu);
    }
    if (!start_runners(s, NULL)) {
        fail_taken(s, take_waiting(s, 0), GRPC_STATUS_INTERNAL, "cannot queue the analysis");
    }
}

/* Loop thread, after the analysis (FL_TAG_WORK_DONE). */
static void on_work_done(fl_call *c) {
    fl_srv *s = c->srv;
    s->queued_work--;
    queue_unlink(s, c);
    if (!c->cache_hit) {
        double ms = (double)c->work_ns / 1e6;
        s->work_ms_avg = s->work_ms_avg > 0 ? 0.75 * s->work_ms_avg + 0.25 * ms : ms;
    }
    finish_call(c);
}

/* A small Analyze request is analysed on the loop itself, not handed to the
 * pool and back, when the loop would otherwise wait: no analysis is queued
 * or running and no other event waits for the loop. Each hand-off costs two
 * thread wake-ups (loop -> worker -> loop) and, for the close notification
 * watched meanwhile, a third completion: for a graph of a few KB more CPU
 * than the analysis. Under load the pool keeps the analyses in parallel
 * and the loop free. The deadline is checked before and during the
 * analysis as on a worker (its cancellation points); a client that goes
 * away is seen at the final batch, as for the other inline methods: the
 * byte bound keeps the analysis short. */
static bool run_inline(fl_call *c) {
    fl_srv *s = c->srv;
    if (c->method != FL_M_ANALYZE || c->bytes_in > s->cfg.inline_bytes || s->queued_work > 0 ||
        s->events_left > 0 || s->shutting_down) {
        return false;
    }
    uv_mutex_lock(&s->mu);
    bool waiting = s->n_events > 0;
    uv_mutex_unlock(&s->mu);
    if (waiting) {
        return false;
    }
    uint64_t t0 = now_ns();
    atomic_fetch_add(&s->analyses_running, 1);
    fl_svc_analyze_work(c);
    atomic_fetch_sub(&s->analyses_running, 1);
    if (!c->cache_hit) {
        double ms = (double)(now_ns() - t0) / 1e6;
        s->work_ms_avg = s->work_ms_avg > 0 ? 0.75 * s->work_ms_avg + 0.25 * ms : ms;
    }
    finish_call(c);
    return true;
}

/* Queues the analysis of a complete request, or refuses it. */
static void queue_analysis(fl_call *c) {
    fl_srv *s = c->srv;
    if (s->queued_work >= s->cfg.max_queued) {
        s->stats.rejected_queue_full++;
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
                     "the server's queue is full (%d analyses queued or running, "
                     "foldlined's --max-queued); retry later",
                     s->cfg.max_queued);
        finish_call(c);
        return;
    }
    s->queued_work++;
    c->q_prev = s->q_tail;
    *(s->q_tail ? &s->q_tail->q_next : &s->q_head) = c;
    s->q_tail = c;
    if (!start_runners(s, c)) {
        fail_taken(s, take_waiting(s, 0), GRPC_STATUS_INTERNAL, "cannot queue the analysis");
    }
}

/* AnalyzeStream: asks for the next message. */
static void start_recv(fl_call *c) {
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->payload;
    grpc_call_error err = grpc_call_start_batch(c->call, &op, 1, &c->recv_tag, NULL);
    if (err != GRPC_CALL_OK) {
        fl_call_fail(c, GRPC_STATUS_INTERNAL, "cannot receive (%d)", (int)err);
        finish_call(c);
    }
}

/* AnalyzeStream: a message arrived (payload set), or the client half-closed
 * (payload NULL), or the call died (success 0: cancelled, its deadline
 * passed, the server's grace period ended). Each message is decoded here,
 * on the loop, as it arrives, and released: the upload is held once, as
 * the joined bytes the analysis reads, and the limits apply as it arrives.
 * The loop has to see each message anyway to ask for the next; decoding one
 * is a check of its few fields and one copy of its bytes (a 512 KiB message,
 * the CLI's, costs the loop about what handing it to a pool thread and back
 * would), and on the pool a message would wait behind queued analyses with
 * the upload held. Whatever the stream holds is freed as soon as it fails. */
static void on_recv(fl_call *c, int success) {
    if (!success) {
        fl_svc_stream_free(c);
        if (gpr_time_cmp(gpr_now(c->deadline.clock_type), c->deadline) >= 0) {
            fl_call_fail(c, GRPC_STATUS_DEADLINE_EXCEEDED,
                         "the deadline passed while receiving (%" PRId64 " bytes received)",
                         c->stream_bytes);
        } else {
            fl_call_fail(c, GRPC_STATUS_CANCELLED,
                         "the call ended while receiving (%" PRId64 " bytes received)",
                         c->stream_bytes);
        }
        finish_call(c);
        return;
    }
    if (!c->payload) {
        if (atomic_load(&c->client_gone)) {
            /* The stream ended because the client cancelled it: what
             * arrived is not the whole upload. */
            fl_svc_stream_free(c);
            fl_call_fail(c, GRPC_STATUS_CANCELLED,
                         "the client cancelled the upload (%" PRId64 " bytes received)",
                         c->stream_bytes);
            finish_call(c);
            return;
        }
        queue_analysis(c);
        return;
    }
    grpc_byte_buffer *bb = c->payload;
    c->payload = NULL;
    size_t len = grpc_byte_buffer_length(bb);
    c->stream_bytes += (int64_t)len;
    c->bytes_in += len;
    if (c->stream_bytes > c->srv->cfg.max_graph_bytes) {
        grpc_byte_buffer_destroy(bb);
        fl_svc_stream_free(c);
        fl_call_fail(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
                     "the streamed graph exceeds the server's limit of %" PRId64
                     " bytes (foldlined's --max-graph-bytes): %" PRId64 " bytes received",
                     c->srv->cfg.max_graph_bytes, c->stream_bytes);
        finish_call(c);
        return;
    }
    if (!fl_svc_stream_message(c, bb)) {
        fl_svc_stream_free(c);
        finish_call(c);
        return;
    }
    start_recv(c);
}

/* A new call arrived: dispatch it. */
static void on_new_call(fl_call *c, int success) {
    fl_srv *s = c->srv;
    s->pending_requests--;
    if (!success) { /* the server is shutting down */
        call_free(c);
        maybe_destroy(s);
        return;
    }
    if (!s->shutting_down) {
        post_request(s, c->method);
    }
    s->active_calls++;
    c->t_start_ns = now_ns();
    c->status = GRPC_STATUS_OK;
    if (c->payload) {
        c->bytes_in = grpc_byte_buffer_length(c->payload);
    }
    /* With a token set every call needs it, unknown methods included; Health
     * is exempt only with --health-auth open (for probes that cannot send
     * metadata, such as Kubernetes' built-in gRPC probe). */
    if (s->cfg.token && !(c->method == FL_M_HEALTH_CHECK && s->cfg.health_open) &&
        !token_ok(s, &c->md)) {
        fl_call_fail(c, GRPC_STATUS_UNAUTHENTICATED,
                     "missing or wrong bearer token (metadata 'authorization: Bearer TOKEN')");
        finish_call(c);
        return;
    }
    switch (c->method) {
    case FL_M_HEALTH_CHECK:
        fl_svc_health(c);
        finish_call(c);
        break;
    case FL_M_STATS:
        fl_svc_stats(c);
        finish_call(c);
        break;
    case FL_M_LIST_PROFILES:
        fl_svc_list_profiles(c);
        finish_call(c);
        break;
    case FL_M_GENERIC: {
        char *path = grpc_slice_to_c_string(c->details.method);
        fl_call_fail(c, GRPC_STATUS_UNIMPLEMENTED, "unknown method '%s'", path ? path : "?");
        gpr_free(path);
        finish_call(c);
        break;
    }
    case FL_M_ANALYZE:
        if (!c->payload) {
            fl_call_fail(c, GRPC_STATUS_INVALID_ARGUMENT, "Analyze needs a request message");
            finish_call(c);
            break;
        }
        if (!run_inline(c)) {
            /* A request above --inline-bytes may analyse for long: the close
             * notification is asked for now, so that a client going away
             * stops it. A smaller one analyses as briefly as an inline one
             * and, like it, learns of a client gone with its final batch:
             * one gRPC batch and one completion less per call. */
            if (c->bytes_in > s->cfg.inline_bytes) {
                watch_close(c);
            }
            queue_analysis(c);
        }
        break;
    case FL_M_ANALYZE_STREAM:
        watch_close(c);
        start_recv(c);
        break;
    case FL_M_COUNT:
        break;
    }
}

/* ------------------------------------------------------------------------- */
/* Loop callbacks and shutdown                                                */
/* ------------------------------------------------------------------------- */

static void close_all(fl_srv *s) {
    fl_metrics_close(s);
    uv_close((uv_handle_t *)&s->wake, NULL);
    uv_close((uv_handle_t *)&s->grace, NULL);
    if (!uv_is_closing((uv_handle_t *)&s->sigterm)) {
        uv_close((uv_handle_t *)&s->sigterm, NULL);
        uv_close((uv_handle_t *)&s->sigint, NULL);
    }
}

/* Destroys the server once nothing is outstanding (notes §6). */
static void maybe_destroy(fl_srv *s) {
    if (!s->shutting_down || !s->shutdown_tag_seen || s->destroyed || s->active_calls > 0 ||
        s->pending_requests > 0) {
        return;
    }
    s->destroyed = true;
    stop_runners(s);
    uv_timer_stop(&s->grace);
    grpc_server_destroy(s->server);
    s->server = NULL;
    grpc_completion_queue_shutdown(s->cq);
}

static void dispatch(fl_srv *s, fl_tag *t, int success) {
    switch (t->kind) {
    case FL_TAG_NEW_CALL:
        on_new_call(t->call, success);
        break;
    case FL_TAG_RECV:
        on_recv(t->call, success);
        break;
    case FL_TAG_FINISH:
        t->call->finish_pending = false;
        maybe_end(t->call);
        break;
    case FL_TAG_CLOSE:
        on_close(t->call);
        break;
    case FL_TAG_SHUTDOWN:
        s->shutdown_tag_seen = true;
        maybe_destroy(s);
        break;
    case FL_TAG_WORK_DONE:
        on_work_done(t->call);
        break;
    }
}

static void on_wake(uv_poll_t *w, int status, int events) {
    (void)status;
    (void)events;
    fl_srv *s = w->data;
    uint64_t count;
    while (read(s->wake_fd, &count, sizeof count) < 0 && errno == EINTR) {
    }
    for (;;) {
        uv_mutex_lock(&s->mu);
        struct fl_event *ev = s->events;
        size_t n = s->n_events, cap = s->cap_events;
        s->events = s->spare;
        s->cap_events = s->cap_spare;
        s->n_events = 0;
        s->spare = ev;
        s->cap_spare = cap;
        /* While events are dispatched the threads that append more do not
         * write the eventfd: this loop swaps again. The swap that finds
         * none clears it under the same lock, so no event waits unseen. */
        s->draining = n > 0;
        bool done = s->cq_done;
        uv_mutex_unlock(&s->mu);
        for (size_t i = 0; i < n; i++) {
            s->events_left = n - i - 1;
            dispatch(s, ev[i].tag, ev[i].success);
        }
        s->events_left = 0;
        if (n == 0) {
            if (done) {
                uv_thread_join(&s->cq_thread);
                grpc_completion_queue_destroy(s->cq);
                s->cq = NULL;
                close_all(s);
            }
            return;
        }
    }
}

static void on_grace(uv_timer_t *t) {
    fl_srv *s = t->data;
    if (s->server && !s->destroyed) {
        fprintf(stderr, "foldlined: grace period over, cancelling %" PRId64 " calls\n",
                s->active_calls);
        atomic_store(&s->stop_work, true);
        grpc_server_cancel_all_calls(s->server);
    }
}

/* At SIGTERM/SIGINT: the analyses the grace period can be expected to
 * finish stay - the oldest first, those running (one per thread) and then
 * threads x half the grace period / the mean analysis time - and the other
 * queued ones are cancelled now and answered UNAVAILABLE, so their clients
 * retry on another replica at once, with their deadline's time still theirs,
 * instead of after the grace period when they would be cancelled anyway.
 * Before any analysis has finished there is no estimate: every call stays. */
static void hand_back_queued(fl_srv *s) {
    if (s->work_ms_avg <= 0) {
        return;
    }
    double fit = (double)s->cfg.threads * (s->cfg.grace_ms / 2.0) / s->work_ms_avg;
    int64_t keep = s->cfg.threads + (fit < 1e9 ? (int64_t)fit : 1000000000);
    /* The calls a runner has taken are the oldest; the waiting ones after
     * them, oldest first. */
    uv_mutex_lock(&s->w_mu);
    int64_t running = s->queued_work - (int64_t)s->n_waiting;
    uv_mutex_unlock(&s->w_mu);
    fl_call *taken = take_waiting(s, keep > running ? keep - running : 0);
    int64_t handed = 0;
    for (fl_call *c = taken; c; c = c->w_next) {
        handed++;
    }
    fail_taken(s, taken, GRPC_STATUS_UNAVAILABLE,
               "the server is shutting down; the analysis was not started (retry on another "
               "replica)");
    if (handed) {
        fprintf(stderr,
                "foldlined: %" PRId64 " queued calls handed back (UNAVAILABLE): the grace period "
                "(%d ms) finishes about %" PRId64 " at %.1f ms an analysis\n",
                handed, s->cfg.grace_ms, keep, s->work_ms_avg);
    }
}

static void on_signal(uv_signal_t *sig, int signum) {
    fl_srv *s = sig->data;
    if (s->shutting_down) {
        return;
    }
    fprintf(stderr, "foldlined: %s, shutting down (%" PRId64 " calls in flight)\n",
            signum == SIGTERM ? "SIGTERM" : "SIGINT", s->active_calls);
    s->shutting_down = true;
    /* A second signal gets the default action. */
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
    hand_back_queued(s);
    uv_timer_start(&s->grace, on_grace, (uint64_t)s->cfg.grace_ms, 0);
}

/* ------------------------------------------------------------------------- */
/* Start-up                                                                   */
/* ------------------------------------------------------------------------- */

/* gRPC's own log lines, as JSON objects like every other line of the log
 * ({"grpc_log":"...","severity":"ERROR","file":"...","line":N}). The last
 * error is kept for start-up messages (a port in use). */
static uv_mutex_t log_mu;
static char last_grpc_error[512];

static void json_escaped(FILE *f, const char *s) {
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            fprintf(f, "\\%c", ch);
        } else if (ch < 0x20) {
            fprintf(f, "\\u%04x", ch);
        } else {
            fputc(ch, f);
        }
    }
}

static void grpc_log_json(gpr_log_func_args *a) {
    const char *sev = a->severity == GPR_LOG_SEVERITY_ERROR  ? "ERROR"
                      : a->severity == GPR_LOG_SEVERITY_INFO ? "INFO"
                                                             : "DEBUG";
    uv_mutex_lock(&log_mu);
    if (a->severity == GPR_LOG_SEVERITY_ERROR) {
        snprintf(last_grpc_error, sizeof last_grpc_error, "%s", a->message ? a->message : "");
    }
    flockfile(stderr);
    fputs("{\"grpc_log\":\"", stderr);
    json_escaped(stderr, a->message);
    fprintf(stderr, "\",\"severity\":\"%s\",\"file\":\"", sev);
    json_escaped(stderr, a->file);
    fprintf(stderr, "\",\"line\":%d}\n", a->line);
    funlockfile(stderr);
    uv_mutex_unlock(&log_mu);
}

static char *read_small_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (!buf) {
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static grpc_server_credentials *make_creds(const fl_srv_config *cfg) {
    if (!cfg->tls_cert) {
        return grpc_insecure_server_credentials_create();
    }
    size_t cl = 0, kl = 0;
    char *cert = read_small_file(cfg->tls_cert, &cl);
    char *key = read_small_file(cfg->tls_key, &kl);
    if (!cert || !key) {
        fprintf(stderr, "foldlined: cannot read %s\n", !cert ? cfg->tls_cert : cfg->tls_key);
        free(cert);
        free(key);
        return NULL;
    }
    grpc_ssl_pem_key_cert_pair pair = {.private_key = key, .cert_chain = cert};
    grpc_server_credentials *creds = grpc_ssl_server_credentials_create(NULL, &pair, 1, 0, NULL);
    free(cert);
    free(key);
    return creds;
}

static int start(fl_srv *s) {
    grpc_arg args[3];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = (int)s->cfg.max_message_bytes;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = (char *)GRPC_ARG_ALLOW_REUSEPORT; /* a second instance must fail to bind */
    args[1].value.integer = 0;
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[2].value.integer = -1;
    grpc_channel_args ca = {.num_args = 3, .args = args};
    s->server = grpc_server_create(&ca, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    if (!s->server || !s->cq) {
        fprintf(stderr, "foldlined: cannot create the gRPC server\n");
        return -1;
    }
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    for (int m = 0; m < FL_M_GENERIC; m++) {
        s->method_handles[m] = grpc_server_register_method(
            s->server, method_paths[m], NULL,
            m == FL_M_ANALYZE_STREAM ? GRPC_SRM_PAYLOAD_NONE
                                     : GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER,
            0);
        if (!s->method_handles[m]) {
            fprintf(stderr, "foldlined: cannot register %s\n", method_paths[m]);
            return -1;
        }
    }
    grpc_server_credentials *creds = make_creds(&s->cfg);
    if (!creds) {
        return -1;
    }
    int port = grpc_server_add_http2_port(s->server, s->cfg.listen, creds);
    grpc_server_credentials_release(creds);
    if (port == 0) {
        uv_mutex_lock(&log_mu);
        bool in_use = strstr(last_grpc_error, "in use") != NULL;
        uv_mutex_unlock(&log_mu);
        fprintf(stderr,
                in_use ? "foldlined: cannot listen on '%s': the port is in use (another "
                         "foldlined, or another server); pick another port or stop that one\n"
                       : "foldlined: cannot listen on '%s': the address is invalid or cannot be "
                         "bound on this host (gRPC's reason is in the log line above)\n",
                s->cfg.listen);
        return -1;
    }
    if (port < 0) { /* unix: sockets have no port */
        port = 0;
    }
    grpc_server_start(s->server);
    fprintf(stderr, "foldlined: listening on %s (port %d)%s%s\n", s->cfg.listen, port,
            s->cfg.tls_cert ? ", TLS" : "", s->cfg.token ? ", token required" : "");
    int metrics_port = 0;
    if (s->cfg.metrics_listen && fl_metrics_start(s, s->cfg.metrics_listen, &metrics_port) != 0) {
        return -1;
    }
    if (s->cfg.port_file) {
        /* Line 1: the gRPC port; line 2 (with --metrics-listen): the metrics port. */
        FILE *f = fopen(s->cfg.port_file, "w");
        bool ok = f && fprintf(f, "%d\n", port) >= 0;
        if (ok && s->cfg.metrics_listen) {
            ok = fprintf(f, "%d\n", metrics_port) >= 0;
        }
        if (f && fclose(f) != 0) {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "foldlined: cannot write %s\n", s->cfg.port_file);
            return -1;
        }
    }
    for (int m = 0; m < FL_M_COUNT; m++) {
        int n = m == FL_M_GENERIC || m == FL_M_STATS || m == FL_M_LIST_PROFILES
                    ? 4
                    : REQUESTS_PER_METHOD;
        for (int i = 0; i < n; i++) {
            post_request(s, (fl_method)m);
        }
    }
    return 0;
}

int fl_srv_run(const fl_srv_config *cfg) {
    fl_srv *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "foldlined: out of memory\n");
        return 1;
    }
    s->cfg = *cfg;
    s->shutdown_tag = (fl_tag){FL_TAG_SHUTDOWN, NULL};
    if (cfg->cache_bytes) {
        if (!fl_digest_available()) {
            fprintf(stderr, "foldlined: --cache-mb: the reply cache keys graphs by SHA-256, which "
                            "libcrypto does not supply here (its configuration has no provider "
                            "of it); fix OPENSSL_CONF or run with --cache-mb 0\n");
            free(s->cfg.token);
            free(s);
            return 1;
        }
        s->cache = fl_cache_new(cfg->cache_bytes);
        if (!s->cache) {
            fprintf(stderr, "foldlined: out of memory\n");
            free(s->cfg.token);
            free(s);
            return 1;
        }
    }
    s->loop = uv_default_loop();
    int uerr = 0;
    if (!s->loop || (uerr = uv_mutex_init(&s->mu)) != 0 || (uerr = uv_mutex_init(&log_mu)) != 0) {
        fprintf(stderr, "foldlined: cannot set up the event loop: %s\n",
                uerr ? uv_strerror(uerr) : "no loop");
        fl_cache_free(s->cache);
        free(s->cfg.token);
        free(s);
        return 1;
    }
    /* Handles: each set-up call checked; a failure there is fatal before
     * anything runs (nothing to unwind but the process). */
    s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->wake_fd < 0) {
        fprintf(stderr, "foldlined: cannot set up the event loop: eventfd: %s\n", strerror(errno));
        exit(1);
    }
    if ((uerr = uv_poll_init(s->loop, &s->wake, s->wake_fd)) != 0 ||
        (uerr = uv_poll_start(&s->wake, UV_READABLE, on_wake)) != 0 ||
        (uerr = uv_timer_init(s->loop, &s->grace)) != 0 ||
        (uerr = uv_signal_init(s->loop, &s->sigterm)) != 0 ||
        (uerr = uv_signal_init(s->loop, &s->sigint)) != 0 ||
        (uerr = uv_signal_start(&s->sigterm, on_signal, SIGTERM)) != 0 ||
        (uerr = uv_signal_start(&s->sigint, on_signal, SIGINT)) != 0) {
        fprintf(stderr, "foldlined: cannot set up the event loop: %s\n", uv_strerror(uerr));
        exit(1);
    }
    s->n_runner_slots = 2 * cfg->threads;
    s->runner_slots = calloc((size_t)s->n_runner_slots, sizeof *s->runner_slots);
    if (!s->runner_slots) {
        fprintf(stderr, "foldlined: out of memory\n");
        exit(1);
    }
    s->idle = calloc((size_t)s->n_runner_slots, sizeof *s->idle);
    if (!s->idle || (uerr = uv_mutex_init(&s->w_mu)) != 0) {
        fprintf(stderr, "foldlined: cannot set up the analysis threads: %s\n",
                uerr ? uv_strerror(uerr) : "out of memory");
        exit(1);
    }
    for (int i = 0; i < s->n_runner_slots; i++) {
        s->runner_slots[i].srv = s;
        if (sem_init(&s->runner_slots[i].wake, 0, 0) != 0) {
            fprintf(stderr, "foldlined: cannot set up the analysis threads: %s\n", strerror(errno));
            exit(1);
        }
    }
    s->wake.data = s;
    s->grace.data = s;
    s->sigterm.data = s->sigint.data = s;

    gpr_set_log_function(grpc_log_json);
    grpc_init();
    int rc = 0;
    if (start(s) != 0) {
        rc = 1;
        if (s->server) {
            /* Nothing was accepted: no call can be outstanding. */
            grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
            grpc_server_cancel_all_calls(s->server);
            s->shutting_down = true;
        }
    }
    if (uv_thread_create(&s->cq_thread, cq_thread_main, s) != 0) {
        fprintf(stderr, "foldlined: cannot start the completion-queue thread\n");
        abort();
    }
    uv_run(s->loop, UV_RUN_DEFAULT);
    grpc_shutdown();
    int lc = uv_loop_close(s->loop);
    if (lc != 0) {
        fprintf(stderr, "foldlined: loop closed with handles open: %s\n", uv_strerror(lc));
        rc = 1;
    }
    uv_mutex_destroy(&s->mu);
    uv_mutex_destroy(&s->w_mu);
    for (int i = 0; i < s->n_runner_slots; i++) {
        sem_destroy(&s->runner_slots[i].wake);
    }
    free(s->idle);
    close(s->wake_fd);
    free(s->events);
    free(s->spare);
    free(s->runner_slots);
    fl_cache_free(s->cache);
    fl_metrics_free(s);
    free(s->cfg.token);
    free(s);
    if (rc == 0) {
        fprintf(stderr, "foldlined: stopped\n");
    }
    return rc;
}
