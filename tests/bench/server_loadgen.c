/*
 * server_loadgen.c - closed-loop load generator for foldlined (used by
 * bench_server.sh): keeps N calls in flight on one channel for a while and
 * prints throughput and latency percentiles.
 *
 *   server_loadgen --target HOST:PORT --method analyze|health [--model FILE]
 *                  [--concurrency N] [--seconds S] [--warmup S] [--options none|cli]
 *
 * analyze sends Analyze(model) with no options, or with --options cli the
 * options message the CLI sends for `foldline --server ... analyze MODEL`
 * (every field at its default, cli_option_names set) (the server's cache
 * should be off to measure the analysis); health sends grpc.health.v1.Health/Check, the
 * transport baseline. Output, one line:
 *   method=analyze inflight=16 calls=12345 errors=0 rps=2469.0 p50_ms=6.1 p99_ms=9.8
 *   all_calls=15432 client_cpu_us_per_call=27.9 client_switches_per_call=0.41
 * calls, rps and the latencies count the calls started after the warm-up
 * that ended within the window; all_calls counts every call that ended,
 * warm-up and the last calls in flight included, and the client's CPU time
 * (user + system, all its threads, getrusage) and context switches from the
 * first call to the last are divided by it: a server's figures over the
 * whole run of this process divide by all_calls as well.
 */
#include "foldline/v1/cost_model.pb-c.h"

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct slot {
    grpc_call *call;
    grpc_metadata_array initial_md, trailing_md;
    grpc_byte_buffer *request; /* one per call: gRPC consumes a sent buffer's slices */
    grpc_byte_buffer *reply;
    grpc_status_code status;
    grpc_slice details;
    double t0;
} slot;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU microseconds (user + system) and context switches of this process. */
static void usage_now(double *cpu_us, long *switches) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *cpu_us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
              (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    *switches = ru.ru_nvcsw + ru.ru_nivcsw;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void start_call(grpc_channel *ch, grpc_completion_queue *cq, slot *s, const char *method,
                       grpc_slice payload) {
    memset(s, 0, sizeof *s);
    s->request = grpc_raw_byte_buffer_create(&payload, 1);
    grpc_metadata_array_init(&s->initial_md);
    grpc_metadata_array_init(&s->trailing_md);
    s->details = grpc_empty_slice();
    s->t0 = now_s();
    s->call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                       grpc_slice_from_static_string(method), NULL,
                                       gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = s->request;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &s->initial_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &s->reply;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &s->trailing_md;
    ops[5].data.recv_status_on_client.status = &s->status;
    ops[5].data.recv_status_on_client.status_details = &s->details;
    if (grpc_call_start_batch(s->call, ops, 6, s, NULL) != GRPC_CALL_OK) {
        fprintf(stderr, "server_loadgen: cannot start a call\n");
        exit(1);
    }
}

static void end_call(slot *s) {
    grpc_metadata_array_destroy(&s->initial_md);
    grpc_metadata_array_destroy(&s->trailing_md);
    grpc_slice_unref(s->details);
    if (s->reply) {
        grpc_byte_buffer_destroy(s->reply);
    }
    grpc_byte_buffer_destroy(s->request);
    grpc_call_unref(s->call);
}

int main(int argc, char **argv) {
    const char *target = NULL, *method = "health", *model = NULL;
    int conc = 1;
    double seconds = 5, warmup = 1;
    bool with_options = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--target") == 0) {
            target = argv[i + 1];
        } else if (strcmp(argv[i], "--method") == 0) {
            method = argv[i + 1];
        } else if (strcmp(argv[i], "--model") == 0) {
            model = argv[i + 1];
        } else if (strcmp(argv[i], "--concurrency") == 0) {
            conc = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--seconds") == 0) {
            seconds = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--warmup") == 0) {
            warmup = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--options") == 0) {
            with_options = strcmp(argv[i + 1], "cli") == 0;
        }
    }
    bool analyze = strcmp(method, "analyze") == 0;
    if (!target || conc < 1 || (analyze && !model)) {
        fprintf(stderr, "usage: server_loadgen --target HOST:PORT --method analyze|health "
                        "[--model FILE] [--concurrency N] [--seconds S] [--warmup S] "
                        "[--options none|cli]\n");
        return 2;
    }
    grpc_slice payload;
    if (analyze) {
        size_t len = 0;
        unsigned char *buf = read_file(model, &len);
        if (!buf) {
            fprintf(stderr, "server_loadgen: cannot read %s\n", model);
            return 1;
        }
        Foldline__V1__AnalyzeRequest req = FOLDLINE__V1__ANALYZE_REQUEST__INIT;
        req.graph.data = buf;
        req.graph.len = len;
        Foldline__V1__AnalyzeOptions opts = FOLDLINE__V1__ANALYZE_OPTIONS__INIT;
        opts.cli_option_names = true;
        if (with_options) {
            req.options = &opts;
        }
        payload = grpc_slice_malloc(foldline__v1__analyze_request__get_packed_size(&req));
        foldline__v1__analyze_request__pack(&req, GRPC_SLICE_START_PTR(payload));
        free(buf);
    } else {
        payload = grpc_empty_slice(); /* HealthCheckRequest{service=""} */
    }
    const char *path = analyze ? "/foldline.v1.CostModel/Analyze" : "/grpc.health.v1.Health/Check";

    grpc_init();
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    grpc_arg arg = {.type = GRPC_ARG_INTEGER,
                    .key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                    .value.integer = -1};
    grpc_channel_args ca = {.num_args = 1, .args = &arg};
    grpc_channel *ch = grpc_channel_create(target, creds, &ca);
    grpc_channel_credentials_release(creds);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);

    slot *slots = calloc((size_t)conc, sizeof *slots);
    size_t cap = 1 << 16, n_lat = 0;
    double *lat = malloc(cap * sizeof *lat);
    long errors = 0, all_calls = 0, sw0, sw1;
    double cpu0, cpu1;
    usage_now(&cpu0, &sw0);
    double t_start = now_s(), t_measure = t_start + warmup, t_end = t_measure + seconds;
    for (int i = 0; i < conc; i++) {
        start_call(ch, cq, &slots[i], path, payload);
    }
    int in_flight = conc;
    while (in_flight > 0) {
        grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE) {
            break;
        }
        slot *s = ev.tag;
        double t = now_s();
        if (s->t0 >= t_measure && t <= t_end) {
            if (s->status != GRPC_STATUS_OK) {
                errors++;
            } else {
                if (n_lat == cap) {
                    cap *= 2;
                    lat = realloc(lat, cap * sizeof *lat);
                }
                lat[n_lat++] = (t - s->t0) * 1000.0;
            }
        }
        end_call(s);
        all_calls++;
        if (t < t_end) {
            start_call(ch, cq, s, path, payload);
        } else {
            in_flight--;
        }
    }
    usage_now(&cpu1, &sw1);
    qsort(lat, n_lat, sizeof *lat, cmp_double);
    double p50 = n_lat ? lat[n_lat / 2] : 0, p99 = n_lat ? lat[(size_t)((double)n_lat * 0.99)] : 0;
    printf("method=%s inflight=%d calls=%zu errors=%ld rps=%.1f p50_ms=%.3f p99_ms=%.3f "
           "all_calls=%ld client_cpu_us_per_call=%.1f client_switches_per_call=%.2f\n",
           method, conc, n_lat, errors, (double)n_lat / seconds, p50, p99, all_calls,
           all_calls ? (cpu1 - cpu0) / (double)all_calls : 0.0,
           all_calls ? (double)(sw1 - sw0) / (double)all_calls : 0.0);
    free(lat);
    free(slots);
    grpc_slice_unref(payload);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    grpc_channel_destroy(ch);
    grpc_shutdown();
    return 0;
}
