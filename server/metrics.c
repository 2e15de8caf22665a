/*
 * metrics.c - foldlined's Prometheus endpoint (--metrics-listen ADDR): a
 * minimal HTTP/1.1 responder on a libuv TCP handle of the server's loop.
 *
 * Each connection gets one answer and is closed: the request head (request
 * line and headers, at most METRICS_MAX_REQUEST bytes, within
 * METRICS_TIMEOUT_MS) is read, then
 *   GET /metrics  -> 200, text/plain; version=0.0.4, the Stats counters
 *   /report (any method) -> 404 saying how to get a report instead
 *   GET elsewhere -> 404
 *   another method -> 405, a malformed request line -> 400,
 *   a head too large -> 431, a head too slow -> closed without an answer.
 * A request body (a model POSTed to /report, say) is read and dropped before
 * the answer is sent: closing a socket with unread bytes makes the kernel
 * send a reset, and a client still sending would lose the answer. The drain
 * is bounded: a Content-Length up to METRICS_MAX_DRAIN, within another
 * METRICS_TIMEOUT_MS. Above that limit, with "Transfer-Encoding" (no length
 * to count) or "Expect: 100-continue" (the client waits for a go-ahead it
 * never gets, then sends nothing), the answer goes at once, then the close;
 * a bad Content-Length -> 400. At the drain's timeout the answer is sent all
 * the same.
 * Everything runs on the loop thread, so the counters are read without locks.
 */
#include "server.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_MAX_REQUEST 8192
#define METRICS_MAX_CONNS   64
#define METRICS_TIMEOUT_MS  5000
#define METRICS_MAX_DRAIN   (1u << 20) /* request body bytes read and dropped, at most */

/* GET or POST /report: this port renders no pages (README, "HTML report"):
 * it has neither the gRPC port's token nor its TLS, and takes no models. */
#define REPORT_NOT_HERE                                                                            \
    "foldlined renders no report pages: this HTTP port serves /metrics only (it has no "           \
    "token or TLS and takes no models). Run `foldline --server HOST:PORT report MODEL -o "         \
    "report.html`: the analysis runs on this server over gRPC and the CLI renders the page.\n"

typedef struct conn {
    uv_tcp_t tcp; /* first: the handle's address is the connection's */
    uv_timer_t timer;
    struct fl_metrics *m;
    struct conn *prev, *next;
    uv_write_t wr;
    char *resp;
    size_t len;
    int open_handles; /* tcp and timer: freed when both are closed */
    bool answered;
    bool draining;       /* the answer waits in resp until drain_left bytes are read */
    uint64_t drain_left; /* body bytes still to come (set from the head) */
    char buf[METRICS_MAX_REQUEST];
} conn;

struct fl_metrics {
    uv_tcp_t listener;
    fl_srv *srv;
    conn *conns;
    int n_conns;
    bool closing;
};

static void conn_closed(uv_handle_t *h) {
    conn *c = h->data;
    if (--c->open_handles > 0) {
        return;
    }
    free(c->resp);
    free(c);
}

static void conn_close(conn *c) {
    if (uv_is_closing((uv_handle_t *)&c->tcp)) {
        return;
    }
    fl_metrics *m = c->m;
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        m->conns = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    m->n_conns--;
    uv_close((uv_handle_t *)&c->tcp, conn_closed);
    uv_close((uv_handle_t *)&c->timer, conn_closed);
}

static void on_written(uv_write_t *w, int status) {
    (void)status;
    conn_close(w->data);
}

/* Appends to a growing buffer; false on OOM. */
typedef struct text {
    char *p;
    size_t len, cap;
    bool failed;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...) {
    if (t->failed) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->p && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t nc = (t->cap ? t->cap * 2 : 2048) + (size_t)n;
        char *np = realloc(t->p, nc);
        if (!np) {
            t->failed = true;
            return;
        }
        t->p = np;
        t->cap = nc;
    }
}

static void metric(text *t, const char *name, const char *type, const char *help, uint64_t v) {
    add(t, "# HELP foldlined_%s %s\n# TYPE foldlined_%s %s\nfoldlined_%s %" PRIu64 "\n", name, help,
        name, type, name, v);
}

static void body_metrics(const fl_srv *s, text *t) {
    fl_cache_counters cc = {0, 0, 0, 0};
    if (s->cache) {
        fl_cache_read_counters(s->cache, &cc);
    }
    metric(t, "requests_total", "counter", "Calls answered, every method.", s->stats.requests);
    metric(t, "analyze_ok_total", "counter", "Analyze and AnalyzeStream calls answered OK.",
           s->stats.analyze_ok);
    metric(t, "analyze_failed_total", "counter", "Analyze and AnalyzeStream calls that failed.",
           s->stats.analyze_failed);
    metric(t, "cache_hits_total", "counter", "Result cache hits.", cc.hits);
    metric(t, "cache_misses_total", "counter", "Result cache misses.", cc.misses);
    metric(t, "cache_bytes", "gauge", "Memory held by cached replies.", cc.bytes);
    metric(t, "cache_entries", "gauge", "Cached replies.", cc.entries);
    metric(t, "rejected_queue_full_total", "counter", "Calls refused: the queue was full.",
           s->stats.rejected_queue_full);
    metric(t, "deadline_abandoned_total", "counter",
           "Analyses skipped or stopped: the deadline had passed.", s->stats.deadline_abandoned);
    metric(t, "unauthenticated_total", "counter", "Calls without the right token.",
           s->stats.unauthenticated);
    metric(t, "unimplemented_total", "counter", "Calls of unknown methods.",
           s->stats.unimplemented);
    metric(t, "in_flight", "gauge", "Calls being handled now.", (uint64_t)s->active_calls);
    metric(t, "bytes_received_total", "counter", "Graph bytes received.", s->stats.bytes_received);
    metric(t, "analyses_running", "gauge", "Analyses on a worker thread now.",
           (uint64_t)atomic_load(&s->analyses_running));
    metric(t, "analyses_stopped_total", "counter",
           "Analyses stopped midway (deadline passed, or shutdown grace period over).",
           s->stats.analyses_stopped);
}

/* Writes the answer prepared in c->resp; the close follows the write. */
static void send_answer(conn *c) {
    c->draining = false;
    uv_read_stop((uv_stream_t *)&c->tcp);
    uv_timer_stop(&c->timer);
    uv_buf_t b = uv_buf_init(c->resp, (unsigned)c->len);
    c->wr.data = c;
    if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
        conn_close(c);
    }
}

static void on_timeout(uv_timer_t *t) {
    conn *c = t->data;
    if (c->draining) {
        send_answer(c); /* the body is late: answer anyway */
    } else {
        conn_close(c);
    }
}

/* Prepares the answer in c->resp (c->len its length: the head buffer is no
 * longer needed) and sends it, or first reads the rest of the body. */
static void answer(conn *c, int code, const char *reason, const char *ctype, const char *body,
                   size_t body_len) {
    c->answered = true;
    text t = {0};
    add(&t,
        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
        code, reason, ctype, body_len);
    if (!t.failed && body_len) {
        add(&t, "%.*s", (int)body_len, body);
    }
    if (t.failed) {
        free(t.p);
        conn_close(c);
        return;
    }
    c->resp = t.p;
    c->len = t.len;
    if (c->drain_left == 0) {
        send_answer(c);
        return;
    }
    c->draining = true;
    uv_timer_start(&c->timer, on_timeout, METRICS_TIMEOUT_MS, 0);
}

static void answer_text(conn *c, int code, const char *reason, const char *msg) {
    answer(c, code, reason, "text/plain; charset=utf-8", msg, strlen(msg));
}

/* True when the header name p[0..n) is `lower` (lower case) in any case. */
static bool name_is(const char *p, size_t n, const char *lower) {
    if (n != strlen(lower)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (tolower((unsigned char)p[i]) != lower[i]) {
            return false;
        }
    }
    return true;
}

/* Reads a Content-Length value v[0..n): digits only, below 10^18. */
static bool parse_length(const char *v, size_t n, uint64_t *out) {
    if (n == 0 || n > 18) {
        return false;
    }
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') {
            return false;
        }
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    *out = x;
    return true;
}

/* The body's framing, from the header lines of the head c->buf[0..end):
 * sets c->drain_left to the body bytes still to come when they are to be
 * drained (see the top of the file). False for a malformed Content-Length or
 * two that differ. */
static bool body_framing(conn *c, size_t end) {
    const char *p = memchr(c->buf, '\n', end);
    const char *stop = c->buf + end;
    bool has_len = false, at_once = false;
    uint64_t clen = 0;
    for (p = p ? p + 1 : stop; p < stop;) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        const char *next = eol ? eol + 1 : stop;
        const char *ve = eol ? eol : stop;
        const char *colon = memchr(p, ':', (size_t)(ve - p));
        if (colon) {
            const char *v = colon + 1;
            while (v < ve && (*v == ' ' || *v == '\t')) {
                v++;
            }
            while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r')) {
                ve--;
            }
            size_t nl = (size_t)(colon - p), vl = (size_t)(ve - v);
            uint64_t x;
            if (name_is(p, nl, "content-length")) {
                if (!parse_length(v, vl, &x) || (has_len && x != clen)) {
                    return false;
                }
                has_len = true;
                clen = x;
            } else if (name_is(p, nl, "transfer-encoding") ||
                       (name_is(p, nl, "expect") && name_is(v, vl, "100-continue"))) {
                at_once = true;
            }
        }
        p = next;
    }
    uint64_t have = c->len - end;
    c->drain_left = 0;
    if (has_len && !at_once && clen <= METRICS_MAX_DRAIN && clen > have) {
        c->drain_left = clen - have;
    }
    return true;
}

/* The head is c->buf[0..end) (body bytes may follow it up to c->len): parse
 * the request line and the body's framing, and answer. */
static void handle(conn *c, size_t end) {
    const char *line = c->buf;
    const char *eol = memchr(line, '\n', c->len);
    size_t n = (size_t)(eol - line);
    if (n && line[n - 1] == '\r') {
        n--;
    }
    /* METHOD SP TARGET SP HTTP/x.y */
    const char *sp1 = memchr(line, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - line)) : NULL;
    if (!sp1 || !sp2 || sp1 == line || sp2 == sp1 + 1 || (size_t)(line + n - (sp2 + 1)) < 5 ||
        memcmp(sp2 + 1, "HTTP/", 5) != 0) {
        answer_text(c, 400, "Bad Request", "bad request\n");
        return;
    }
    if (!body_framing(c, end)) {
        answer_text(c, 400, "Bad Request", "bad Content-Length\n");
        return;
    }
    size_t mlen = (size_t)(sp1 - line), tlen = (size_t)(sp2 - sp1 - 1);
    const char *target = sp1 + 1;
    size_t plen = tlen;
    const char *q = memchr(target, '?', tlen);
    if (q) {
        plen = (size_t)(q - target);
    }
    if (plen >= 7 && memcmp(target, "/report", 7) == 0 && (plen == 7 || target[7] == '/')) {
        answer_text(c, 404, "Not Found", REPORT_NOT_HERE);
        return;
    }
    if (mlen != 3 || memcmp(line, "GET", 3) != 0) {
        answer_text(c, 405, "Method Not Allowed", "only GET /metrics\n");
        return;
    }
    if (plen != 8 || memcmp(target, "/metrics", 8) != 0) {
        answer_text(c, 404, "Not Found", "not found (the metrics are at /metrics)\n");
        return;
    }
    text t = {0};
    body_metrics(c->m->srv, &t);
    if (t.failed) {
        free(t.p);
        answer_text(c, 500, "Internal Server Error", "out of memory\n");
        return;
    }
    answer(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", t.p, t.len);
    free(t.p);
}

/* Where the head ends (after its empty line) once the buffer holds it, else
 * 0. */
static size_t head_end(const conn *c) {
    for (size_t i = 0; i + 1 < c->len; i++) {
        if (c->buf[i] == '\n') {
            if (c->buf[i + 1] == '\n') {
                return i + 2;
            }
            if (c->buf[i + 1] == '\r' && i + 2 < c->len && c->buf[i + 2] == '\n') {
                return i + 3;
            }
        }
    }
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b) {
    (void)suggested;
    conn *c = h->data;
    if (c->answered) { /* draining: the head is parsed, the buffer is free */
        *b = uv_buf_init(c->buf, (unsigned)sizeof c->buf);
        return;
    }
    *b = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - c->len));
}

/* Drops body bytes until the declared length has come (or the client has
 * stopped sending), then answers. */
static void drain(conn *c, ssize_t nread) {
    if (!c->draining) {
        return;
    }
    if (nread == UV_EOF) {
        send_answer(c);
    } else if (nread < 0) {
        conn_close(c);
    } else {
        c->drain_left -= (uint64_t)nread < c->drain_left ? (uint64_t)nread : c->drain_left;
        if (c->drain_left == 0) {
            send_answer(c);
        }
    }
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *b) {
    (void)b;
    conn *c = st->data;
    if (c->answered) {
        drain(c, nread);
        return;
    }
    if (nread < 0) { /* EOF or error before a full head */
        conn_close(c);
        return;
    }
    c->len += (size_t)nread;
    size_t end = head_end(c);
    if (end) {
        handle(c, end);
    } else if (c->len == sizeof c->buf) {
        answer_text(c, 431, "Request Header Fields Too Large", "request too large\n");
    }
}

static void on_connection(uv_stream_t *server, int status) {
    fl_metrics *m = server->data;
    if (status < 0 || m->closing) {
        return;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        return; /* the connection stays in the backlog until we can */
    }
    c->m = m;
    uv_tcp_init(server->loop, &c->tcp);
    uv_timer_init(server->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    c->open_handles = 2;
    c->next = m->conns;
    if (m->conns) {
        m->conns->prev = c;
    }
    m->conns = c;
    m->n_conns++;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 || m->n_conns > METRICS_MAX_CONNS) {
        conn_close(c);
        return;
    }
    uv_timer_start(&c->timer, on_timeout, METRICS_TIMEOUT_MS, 0);
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) {
        conn_close(c);
    }
}

/* Splits "HOST:PORT" ("[v6]:PORT" for IPv6) into a socket address. */
static bool parse_addr(const char *addr, struct sockaddr_storage *out) {
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1]) {
        return false;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535) {
        return false;
    }
    char host[256];
    size_t hl = (size_t)(colon - addr);
    if (hl >= sizeof host) {
        return false;
    }
    memcpy(host, addr, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        return uv_ip6_addr(host + 1, (int)port, (struct sockaddr_in6 *)out) == 0;
    }
    return uv_ip4_addr(host, (int)port, (struct sockaddr_in *)out) == 0;
}

int fl_metrics_start(fl_srv *s, const char *addr, int *port_out) {
    struct sockaddr_storage sa;
    memset(&sa, 0, sizeof sa);
    if (!parse_addr(addr, &sa)) {
        fprintf(stderr, "foldlined: --metrics-listen: '%s' is not HOST:PORT (IPv4 or [IPv6])\n",
                addr);
        return -1;
    }
    fl_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        fprintf(stderr, "foldlined: out of memory\n");
        return -1;
    }
    m->srv = s;
    s->metrics = m;
    uv_tcp_init(s->loop, &m->listener);
    m->listener.data = m;
    int rc = uv_tcp_bind(&m->listener, (const struct sockaddr *)&sa, 0);
    if (rc == 0) {
        rc = uv_listen((uv_stream_t *)&m->listener, 64, on_connection);
    }
    if (rc != 0) {
        fprintf(stderr, "foldlined: cannot serve metrics on '%s': %s\n", addr, uv_strerror(rc));
        return -1;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    int port = 0;
    if (uv_tcp_getsockname(&m->listener, (struct sockaddr *)&bound, &blen) == 0) {
        port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                 : ((struct sockaddr_in *)&bound)->sin_port);
    }
    /* A URL one can paste: the port bound (0 picks one), not the one asked for. */
    const char *colon = strrchr(addr, ':');
    fprintf(stderr, "foldlined: metrics on http://%.*s:%d/metrics\n", (int)(colon - addr), addr,
            port);
    *port_out = port;
    return 0;
}

void fl_metrics_close(fl_srv *s) {
    fl_metrics *m = s->metrics;
    if (!m || m->closing) {
        return;
    }
    m->closing = true;
    while (m->conns) {
        conn_close(m->conns);
    }
    uv_close((uv_handle_t *)&m->listener, NULL);
}

void fl_metrics_free(fl_srv *s) {
    free(s->metrics);
    s->metrics = NULL;
}
