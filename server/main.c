/*
 * main.c - foldlined, the foldline gRPC server: options, then fl_srv_run().
 *
 *   foldlined --listen ADDR [--threads N] [--max-message-bytes B] [--cache-mb M]
 *             [--max-nodes N] [--max-memory-mb M] [--max-queued N] [--inline-bytes B]
 *             [--max-graph-bytes B] [--grace-ms MS] [--tls-cert F --tls-key F]
 *             [--auth-token-file F] [--health-auth required|open]
 *             [--port-file F] [--profiles-dir D]
 *             [--metrics-listen ADDR]
 *
 * Exit status: 0 after a clean shutdown (SIGTERM/SIGINT), 1 when the server
 * could not start, 2 on a usage error or an invalid profile file.
 */
#include "foldline/foldline.h"
#include "foldline/roofline.h"
#include "server.h"

#ifndef FL_DEFAULT_PROFILES_DIR
#define FL_DEFAULT_PROFILES_DIR "deploy/profiles"
#endif
#define FL_DEFAULT_PROFILES_DIR_TEXT FL_DEFAULT_PROFILES_DIR

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: foldlined --listen ADDR [options]\n"
    "       foldlined --help | --version\n"
    "\n"
    "Serves foldline.v1.CostModel and grpc.health.v1.Health over gRPC.\n"
    "\n"
    "options (default in parentheses):\n"
    "  --listen ADDR            HOST:PORT, [IPv6]:PORT or unix:PATH (required; port 0 picks a\n"
    "                           free port, logged and written to --port-file)\n"
    "  --threads N              analysis threads (4)\n"
    "  --max-message-bytes B    largest gRPC message accepted (268435456)\n"
    "  --max-graph-bytes B      largest graph sent through AnalyzeStream (2147483648)\n"
    "  --max-nodes N            nodes per graph, ceiling for requests (5000000)\n"
    "  --max-memory-mb M        analysis memory per request, ceiling (8192)\n"
    "  --max-queued N           analyses queued or running; beyond: RESOURCE_EXHAUSTED (64)\n"
    "  --inline-bytes B         an Analyze request up to B bytes may be analysed on the event\n"
    "                           loop when no analysis is queued, 0 = always on a thread (16384)\n"
    "  --cache-mb M             result cache size, 0 = off (64)\n"
    "  --grace-ms MS            on SIGTERM, time in-flight calls get (5000)\n"
    "  --tls-cert F --tls-key F serve TLS with this PEM certificate chain and key (plaintext)\n"
    "  --auth-token-file F      require 'authorization: Bearer TOKEN' (token = F's first line)\n"
    "                           on every call (no token)\n"
    "  --health-auth MODE       'required': Health/Check needs the token too; 'open':\n"
    "                           Health/Check is answered without it, for probes (required)\n"
    "  --port-file F            once listening, write the gRPC port to F's first line and,\n"
    "                           with --metrics-listen, the metrics port to its second (none)\n"
    "  --profiles-dir D         device profiles for roofline estimates ($FOLDLINE_PROFILES_DIR,\n"
    "                           else " FL_DEFAULT_PROFILES_DIR_TEXT ")\n"
    "  --metrics-listen ADDR    serve Prometheus counters at http://ADDR/metrics, plain HTTP;\n"
    "                           HOST:PORT, port 0 picks one (off)\n"
    "  --version                print the version and exit\n"
    "\n"
    "Logs go to stderr, one JSON object per line: one per call, and gRPC's own messages as\n"
    "{\"grpc_log\":...}. Exit status: 0 after SIGTERM/SIGINT and a clean shutdown, 1 when the\n"
    "server could not start, 2 on a usage error or an invalid profile file.\n";

/* Loads the profile set: --profiles-dir, else $FOLDLINE_PROFILES_DIR, else
 * the build's default (the CLI's lookup). An invalid file, or a directory
 * named explicitly that cannot be read, fails startup (exit 2); a missing
 * build default only leaves the server without profiles. */
static int load_profiles(const char *flag_dir, fl_profile_set *set, const char **dir_out) {
    const char *env = getenv("FOLDLINE_PROFILES_DIR");
    bool explicit_dir = (flag_dir && *flag_dir) || (env && *env);
    const char *dir = flag_dir && *flag_dir ? flag_dir
                      : env && *env         ? env
                                            : FL_DEFAULT_PROFILES_DIR;
    char err[768];
    fl_status st = fl_profile_set_load(dir, set, err, sizeof err);
    if (st == FL_EIO && !explicit_dir) {
        fprintf(stderr, "foldlined: no device profiles (%s); roofline requests will fail\n", err);
        *dir_out = "";
        return 0;
    }
    if (st != FL_OK) {
        fprintf(stderr, "foldlined: %s\n", err);
        return 2;
    }
    fprintf(stderr, "foldlined: %zu device profiles from %s\n", set->n, dir);
    *dir_out = dir;
    return 0;
}

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "foldlined: %s%s%s%s\n(see foldlined --help)\n", msg, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "");
    return 2;
}

static bool parse_pos(const char *s, int64_t min, int64_t max, int64_t *out) {
    if (!s || !*s) {
        return false;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max) {
        return false;
    }
    *out = v;
    return true;
}

/* HOST:PORT ([V6]:PORT) with a numeric port, or unix:PATH: gRPC would read
 * a bare host as port 443. */
static bool listen_addr_ok(const char *a) {
    if (strncmp(a, "unix:", 5) == 0 || strncmp(a, "unix-abstract:", 14) == 0) {
        return a[strcspn(a, ":") + 1] != '\0';
    }
    const char *colon = strrchr(a, ':');
    if (!colon || colon == a || !colon[1] || (strchr(a, ':') != colon && a[0] != '[') ||
        (a[0] == '[' && colon[-1] != ']')) {
        return false;
    }
    int64_t port;
    return parse_pos(colon + 1, 0, 65535, &port);
}

/* Reads the token: the file's first line, without its line end. */
static char *read_token(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "foldlined: cannot open token file '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    char buf[4096];
    char *line = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!line) {
        fprintf(stderr, "foldlined: token file '%s' is empty\n", path);
        return NULL;
    }
    buf[strcspn(buf, "\r\n")] = '\0';
    if (!*buf) {
        fprintf(stderr, "foldlined: token file '%s' has an empty first line\n", path);
        return NULL;
    }
    return strdup(buf);
}

/* Applies option `a` with value `v` to cfg; 0 when taken, else the exit code
 * of a usage error (printed). */
static int apply_option(fl_srv_config *cfg, const char *a, const char *v, const char **token_file,
                        const char **profiles_dir) {
    int64_t n = 0;
    if (strcmp(a, "--listen") == 0) {
        cfg->listen = v;
    } else if (strcmp(a, "--threads") == 0) {
        if (!parse_pos(v, 1, 1024, &n)) {
            return usage_error("--threads expects 1..1024, got", v);
        }
        cfg->threads = (int)n;
    } else if (strcmp(a, "--max-message-bytes") == 0) {
        if (!parse_pos(v, 1024, INT32_MAX, &n)) {
            return usage_error("--max-message-bytes expects 1024..2147483647, got", v);
        }
        cfg->max_message_bytes = n;
    } else if (strcmp(a, "--max-graph-bytes") == 0) {
        if (!parse_pos(v, 1, INT64_MAX, &n)) {
            return usage_error("--max-graph-bytes expects a positive integer, got", v);
        }
        cfg->max_graph_bytes = n;
    } else if (strcmp(a, "--max-nodes") == 0) {
        if (!parse_pos(v, 1, INT64_MAX, &n)) {
            return usage_error("--max-nodes expects a positive integer, got", v);
        }
        cfg->max_nodes = n;
    } else if (strcmp(a, "--max-memory-mb") == 0) {
        if (!parse_pos(v, 0, (int64_t)(SIZE_MAX >> 21), &n)) {
            return usage_error("--max-memory-mb expects an integer >= 0, got", v);
        }
        cfg->max_memory_bytes = (size_t)n << 20;
    } else if (strcmp(a, "--max-queued") == 0) {
        if (!parse_pos(v, 1, 1 << 20, &n)) {
            return usage_error("--max-queued expects 1..1048576, got", v);
        }
        cfg->max_queued = (int)n;
    } else if (strcmp(a, "--inline-bytes") == 0) {
        if (!parse_pos(v, 0, 1 << 20, &n)) {
            return usage_error("--inline-bytes expects 0..1048576, got", v);
        }
        cfg->inline_bytes = (size_t)n;
    } else if (strcmp(a, "--cache-mb") == 0) {
        if (!parse_pos(v, 0, (int64_t)(SIZE_MAX >> 21), &n)) {
            return usage_error("--cache-mb expects an integer >= 0, got", v);
        }
        cfg->cache_bytes = (size_t)n << 20;
    } else if (strcmp(a, "--grace-ms") == 0) {
        if (!parse_pos(v, 0, 3600000, &n)) {
            return usage_error("--grace-ms expects 0..3600000, got", v);
        }
        cfg->grace_ms = (int)n;
    } else if (strcmp(a, "--tls-cert") == 0) {
        cfg->tls_cert = v;
    } else if (strcmp(a, "--tls-key") == 0) {
        cfg->tls_key = v;
    } else if (strcmp(a, "--auth-token-file") == 0) {
        *token_file = v;
    } else if (strcmp(a, "--health-auth") == 0) {
        if (strcmp(v, "open") != 0 && strcmp(v, "required") != 0) {
            return usage_error("--health-auth expects 'required' or 'open', got", v);
        }
        cfg->health_open = strcmp(v, "open") == 0;
    } else if (strcmp(a, "--port-file") == 0) {
        cfg->port_file = v;
    } else if (strcmp(a, "--profiles-dir") == 0) {
        *profiles_dir = v;
    } else if (strcmp(a, "--metrics-listen") == 0) {
        cfg->metrics_listen = v;
    } else {
        return usage_error("unknown option", a);
    }
    return 0;
}

int main(int argc, char **argv) {
    fl_srv_config cfg = {
        .threads = 4,
        .max_message_bytes = 256 << 20,
        .max_graph_bytes = (int64_t)2 << 30,
        .max_nodes = 5000000,
        .max_memory_bytes = (size_t)8 << 30,
        .max_queued = 64,
        .inline_bytes = 16384,
        .cache_bytes = (size_t)64 << 20,
        .grace_ms = 5000,
    };
    const char *token_file = NULL;
    const char *profiles_dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("foldlined %s\n", fl_version());
            return 0;
        }
        if (a[0] != '-' || a[1] != '-') {
            return usage_error("unexpected argument", a);
        }
        if (!v) {
            return usage_error("option needs a value:", a);
        }
        i++;
        int rc = apply_option(&cfg, a, v, &token_file, &profiles_dir);
        if (rc) {
            return rc;
        }
    }
    if (!cfg.listen) {
        return usage_error("--listen ADDR is required", NULL);
    }
    if (!listen_addr_ok(cfg.listen)) {
        return usage_error("--listen expects HOST:PORT, [IPv6]:PORT or unix:PATH, got", cfg.listen);
    }
    if (!cfg.tls_cert != !cfg.tls_key) {
        return usage_error("--tls-cert and --tls-key go together", NULL);
    }
    /* A peer closing a metrics connection must not kill the server: writes
     * then fail with EPIPE, which the code handles. */
    signal(SIGPIPE, SIG_IGN);
    /* glibc raises its mmap threshold to the largest mmapped block freed so
     * far, so after the first large analysis the engine's arena blocks (64
     * KiB doubling to 64 MiB) come from the heaps instead, where freed
     * memory stays resident, fragmented over the threads' arenas: RSS
     * wandered by 18 % under tests/bench/soak.sh. A fixed threshold keeps
     * every block of 128 KiB and more in mmap, returned to the system when
     * its analysis ends. Two malloc arenas instead of one per thread keep
     * the smaller allocations of the pool, loop and gRPC threads from
     * spreading over eight heaps per core. Both together: RSS flat within
     * 0.2 % over the same soak (the threshold alone: 9 %). Sanitizers'
     * allocators ignore both (their result is not an error). */
    (void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    (void)mallopt(M_ARENA_MAX, 2);
    fl_profile_set profiles = {0};
    int prc = load_profiles(profiles_dir, &profiles, &cfg.profiles_dir);
    if (prc) {
        return prc;
    }
    cfg.profiles = &profiles;
    if (token_file && !(cfg.token = read_token(token_file))) {
        fl_profile_set_free(&profiles);
        return 1;
    }
    /* The libuv pool reads its size once, at its first use. */
    char threads[16];
    snprintf(threads, sizeof threads, "%d", cfg.threads);
    if (setenv("UV_THREADPOOL_SIZE", threads, 1) != 0) {
        fl_profile_set_free(&profiles);
        free(cfg.token);
        return usage_error("cannot set UV_THREADPOOL_SIZE", NULL);
    }
    int rc = fl_srv_run(&cfg);
    fl_profile_set_free(&profiles);
    return rc;
}
