/*
 * tracejson.c - Chrome trace events read event by event (see
 * tracejson.h): a recursive descent over the text that checks all of it and
 * keeps, per event, only the members `foldline fit` uses.
 */
#include "tracejson.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
    char *p, *end, *text;
    size_t line;     /* of s->p: newlines occur only between tokens (ws) */
    const char *bol; /* where that line begins */
    int depth;
    int rc; /* FL_TRACE_SYNTAX, or the callback's status, once something failed */
    char *err;
    size_t errlen;
    fl_trace_event_fn fn;
    void *arg;
} scan;

/* Records a syntax error at `at`, on the line being read ("L:C: what");
 * false. */
static bool fail(scan *s, const char *at, const char *what) {
    snprintf(s->err, s->errlen, "%zu:%zu: %s", s->line, (size_t)(at - s->bol) + 1,
             at >= s->end ? "unexpected end of file" : what);
    s->rc = FL_TRACE_SYNTAX;
    return false;
}

static void ws(scan *s) {
    while (s->p < s->end) {
        char c = *s->p;
        if (c == '\n') {
            s->line++;
            s->bol = ++s->p;
        } else if (c == ' ' || c == '\r' || c == '\t') {
            s->p++;
        } else {
            break;
        }
    }
}

static bool is_digit(const scan *s, const char *q) {
    return q < s->end && *q >= '0' && *q <= '9';
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                    */
/* ------------------------------------------------------------------------- */

/* The length of the UTF-8 sequence at r (a byte >= 0x80), 0 when it is not
 * one (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *r, const unsigned char *end) {
    unsigned char c = r[0];
    size_t n = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (!n || (size_t)(end - r) < n) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((r[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((c == 0xE0 && r[1] < 0xA0) || (c == 0xED && r[1] >= 0xA0) || (c == 0xF0 && r[1] < 0x90) ||
        (c == 0xF4 && r[1] >= 0x90)) {
        return 0;
    }
    return n;
}

/* Four hex digits at r, or -1. */
static long hex4(const scan *s, const char *r) {
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r + i < s->end ? r[i] : '\0';
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) {
            return -1;
        }
        v = v * 16 + d;
    }
    return v;
}

/* A \u escape at *r (r points at the 'u'), written as UTF-8 at *w. */
static bool unicode_escape(scan *s, char **r, char **w) {
    long cp = hex4(s, *r + 1);
    if (cp < 0) {
        return fail(s, *r, "invalid \\u escape");
    }
    *r += 5;
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return fail(s, *r - 6, "invalid Unicode '\\u' escape: a lone low surrogate");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        long lo = *r + 1 < s->end && (*r)[0] == '\\' && (*r)[1] == 'u' ? hex4(s, *r + 2) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF) {
            return fail(s, *r - 6,
                        "invalid Unicode '\\u' escape: a high surrogate without its pair");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        *r += 6;
    }
    if (cp == 0) {
        return fail(s, *r - 6, "\\u0000 is not allowed");
    }
    unsigned char *o = (unsigned char *)*w;
    if (cp < 0x80) {
        *o++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *o++ = (unsigned char)(0xC0 | (cp >> 6));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (unsigned char)(0xE0 | (cp >> 12));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | (cp >> 18));
        *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *w = (char *)o;
    return true;
}

/* 1 for the bytes a string holds as they are: ASCII from ' ', but '"' and
 * '\\' (a NUL, control characters and bytes >= 0x80 are 0). */
static const unsigned char plain_byte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* The string at s->p (a '"'), decoded in place (never longer than its
 * text) and NUL-terminated; *out points at it. */
static bool string(scan *s, char **out) {
    char *r = s->p + 1;
    *out = r;
    /* Up to the first byte that is not plain ASCII, nothing moves: the text
     * stays where it is (most strings end there). */
    while (plain_byte[(unsigned char)*r]) { /* the text ends in a NUL (fl_trace_scan) */
        r++;
    }
    char *w = r;
    for (;;) {
        if (r >= s->end) {
            return fail(s, r, "unterminated string");
        }
        unsigned char c = (unsigned char)*r;
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            return fail(s, r, "control character in a string");
        }
        if (c < 0x80 && c != '\\') {
            *w++ = *r++;
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_len((const unsigned char *)r, (const unsigned char *)s->end);
            if (!n) {
                return fail(s, r, "invalid UTF-8 in a string");
            }
            memmove(w, r, n);
            w += n, r += n;
            continue;
        }
        char e = r + 1 < s->end ? r[1] : '\0';
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            *w++ = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
            r += 2;
        } else if (e == 'u') {
            r++;
            if (!unicode_escape(s, &r, &w)) {
                return false;
            }
        } else {
            return fail(s, r, "invalid escape");
        }
    }
    *w = '\0';
    s->p = r + 1;
    return true;
}

/* ------------------------------------------------------------------------- */
/* Numbers, literals, any value                                               */
/* ------------------------------------------------------------------------- */

typedef struct number {
    bool integer;
    long long i;
    double d; /* the value as a double (an integer's too) */
} number;

static bool read_number(scan *s, number *out) {
    char *start = s->p, *q = s->p;
    q += *q == '-';
    if (!is_digit(s, q)) {
        return fail(s, start, "invalid number");
    }
    const char *digits = q;
    if (*q == '0') {
        q++;
    } else {
        while (is_digit(s, q)) {
            q++;
        }
    }
    size_t n_digits = (size_t)(q - digits);
    bool real = false;
    if (q < s->end && *q == '.') {
        real = true;
        if (!is_digit(s, ++q)) {
            return fail(s, q, "invalid number: no digit after '.'");
        }
        while (is_digit(s, q)) {
            q++;
        }
    }
    if (q < s->end && (*q == 'e' || *q == 'E')) {
        real = true;
        q++;
        q += q < s->end && (*q == '+' || *q == '-');
        if (!is_digit(s, q)) {
            return fail(s, q, "invalid number: no digit in the exponent");
        }
        while (is_digit(s, q)) {
            q++;
        }
    }
    out->integer = !real;
    errno = 0;
    if (!real && n_digits <= 18) { /* fits a long long */
        long long v = 0;
        for (const char *d = digits; d < q; d++) {
            v = v * 10 + (*d - '0');
        }
        out->i = *start == '-' ? -v : v;
    } else if (!real) {
        out->i = strtoll(start, NULL, 10); /* text[len] is NUL: stops there at the latest */
        if (errno == ERANGE) {
            return fail(s, start, "too big integer");
        }
    } else {
        out->d = strtod(start, NULL);
        if (errno == ERANGE && (out->d == HUGE_VAL || out->d == -HUGE_VAL)) {
            return fail(s, start, "real number overflow");
        }
    }
    out->d = real ? out->d : (double)out->i;
    s->p = q;
    return true;
}

static bool literal(scan *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) {
        return fail(s, s->p, "invalid token");
    }
    s->p += n;
    return true;
}

typedef bool (*member_fn)(scan *s, const char *key, void *ctx);
typedef bool (*element_fn)(scan *s, size_t index, void *ctx);

static bool object(scan *s, member_fn member, void *ctx);
static bool array(scan *s, element_fn element, void *ctx);

static bool skip_member(scan *s, const char *key, void *ctx);
static bool skip_element(scan *s, size_t index, void *ctx);

/* Any value at s->p, checked and passed over. */
static bool skip_value(scan *s) {
    char c = s->p < s->end ? *s->p : '\0';
    char *str;
    number num;
    switch (c) {
    case '{':
        return object(s, skip_member, NULL);
    case '[':
        return array(s, skip_element, NULL);
    case '"':
        return string(s, &str);
    case 't':
        return literal(s, "true");
    case 'f':
        return literal(s, "false");
    case 'n':
        return literal(s, "null");
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            return read_number(s, &num);
        }
        return fail(s, s->p, "invalid token");
    }
}

static bool skip_member(scan *s, const char *key, void *ctx) {
    (void)key, (void)ctx;
    return skip_value(s);
}

static bool skip_element(scan *s, size_t index, void *ctx) {
    (void)index, (void)ctx;
    return skip_value(s);
}

static bool enter(scan *s) {
    if (++s->depth > TRACE_MAX_DEPTH) {
        return fail(s, s->p, "nested too deep");
    }
    s->p++;
    ws(s);
    return true;
}

/* The object at s->p: member() for each member, at its value. */
static bool object(scan *s, member_fn member, void *ctx) {
    if (!enter(s)) {
        return false;
    }
    if (s->p < s->end && *s->p == '}') {
        s->p++, s->depth--;
        return true;
    }
    for (;;) {
        char *key;
        if (s->p >= s->end || *s->p != '"') {
            return fail(s, s->p, "string or '}' expected");
        }
        if (!string(s, &key)) {
            return false;
        }
        ws(s);
        if (s->p >= s->end || *s->p != ':') {
            return fail(s, s->p, "':' expected");
        }
        s->p++;
        ws(s);
        if (!member(s, key, ctx)) {
            return false;
        }
        ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            ws(s);
            continue;
        }
        if (s->p < s->end && *s->p == '}') {
            s->p++, s->depth--;
            return true;
        }
        return fail(s, s->p, "',' or '}' expected");
    }
}

/* The array at s->p: element() for each element. */
static bool array(scan *s, element_fn element, void *ctx) {
    if (!enter(s)) {
        return false;
    }
    if (s->p < s->end && *s->p == ']') {
        s->p++, s->depth--;
        return true;
    }
    for (size_t i = 0;; i++) {
        if (!element(s, i, ctx)) {
            return false;
        }
        ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            ws(s);
            continue;
        }
        if (s->p < s->end && *s->p == ']') {
            s->p++, s->depth--;
            return true;
        }
        return fail(s, s->p, "',' or ']' expected");
    }
}

/* ------------------------------------------------------------------------- */
/* Events                                                                     */
/* ------------------------------------------------------------------------- */

/* A member read from an event must not repeat: which value would count? */
static bool first_time(scan *s, const char *key, unsigned *seen, unsigned bit) {
    if (*seen & bit) {
        char what[96];
        snprintf(what, sizeof what, "duplicate object key '%.60s'", key);
        return fail(s, s->p, what);
    }
    *seen |= bit;
    return true;
}

typedef struct shape_ctx {
    fl_trace_event *ev;
    char buf[96];
    size_t o;
    size_t members; /* of the first output's object */
    bool dims;      /* its first member is an array */
} shape_ctx;

/* snprintf(buf, size, "%s%lld", sep, v) (size > 0): what it writes and
 * returns, without the format's interpretation per dimension. */
static size_t put_dim(char *buf, size_t size, const char *sep, long long v) {
    char tmp[24];
    size_t t = 0, n = strlen(sep);
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[t++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        tmp[t++] = '-';
    }
    size_t len = n + t, o = 0;
    for (size_t i = 0; i < n && o + 1 < size; i++) {
        buf[o++] = sep[i];
    }
    while (t && o + 1 < size) {
        buf[o++] = tmp[--t];
    }
    buf[o] = '\0';
    return len;
}

/* A dimension: "%lld" of an integer, -1 for anything else. */
static bool shape_dim(scan *s, size_t index, void *ctx) {
    shape_ctx *c = ctx;
    long long v = -1;
    if (s->p < s->end && (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))) {
        number num;
        if (!read_number(s, &num)) {
            return false;
        }
        v = num.integer ? num.i : -1;
    } else if (!skip_value(s)) {
        return false;
    }
    if (c->o < sizeof c->buf) {
        c->o += put_dim(c->buf + c->o, sizeof c->buf - c->o, index ? "," : "", v);
    }
    return true;
}

/* A member of the first output, {"float": [1, 64, 112, 112]}. */
static bool shape_member(scan *s, const char *key, void *ctx) {
    shape_ctx *c = ctx;
    (void)key;
    if (c->members++ == 0 && s->p < s->end && *s->p == '[') {
        c->dims = true;
        c->buf[0] = '[', c->buf[1] = '\0', c->o = 1;
        return array(s, shape_dim, c);
    }
    return skip_value(s);
}

static bool shape_output(scan *s, size_t index, void *ctx) {
    shape_ctx *c = ctx;
    if (index == 0 && s->p < s->end && *s->p == '{') {
        if (!object(s, shape_member, c)) {
            return false;
        }
        if (c->members == 1 && c->dims) {
            if (c->o + 1 < sizeof c->buf) { /* as snprintf "]" would: it fits, or NUL */
                c->buf[c->o] = ']', c->buf[c->o + 1] = '\0';
            } else if (c->o < sizeof c->buf) {
                c->buf[c->o] = '\0';
            }
            memcpy(c->ev->shape, c->buf, sizeof c->buf);
        }
        return true;
    }
    return skip_value(s);
}

typedef struct event_ctx {
    fl_trace_event ev;
    unsigned seen, args_seen;
} event_ctx;

/* A string member read once into *out (bit: its bit in *seen); a value of
 * another type is passed over (*out stays NULL). */
static bool string_member(scan *s, const char *key, unsigned *seen, unsigned bit,
                          const char **out) {
    if (!first_time(s, key, seen, bit)) {
        return false;
    }
    if (s->p < s->end && *s->p == '"') {
        char *str;
        bool ok = string(s, &str);
        *out = str;
        return ok;
    }
    return skip_value(s);
}

static bool args_member(scan *s, const char *key, void *ctx) {
    event_ctx *e = ctx;
    if (key[0] != 'o' && key[0] != 'n') { /* none of those read (most arguments): no compare */
        return skip_value(s);
    }
    if (strcmp(key, "op_name") == 0) {
        return string_member(s, key, &e->args_seen, 1, &e->ev.op_name);
    } else if (strcmp(key, "name") == 0) {
        return string_member(s, key, &e->args_seen, 4, &e->ev.arg_name);
    } else if (strcmp(key, "op") == 0) {
        return string_member(s, key, &e->args_seen, 8, &e->ev.arg_op);
    } else if (strcmp(key, "output_type_shape") == 0) {
        if (!first_time(s, key, &e->args_seen, 2)) {
            return false;
        }
        if (s->p < s->end && *s->p == '[') {
            shape_ctx c;
            memset(&c, 0, sizeof c);
            c.ev = &e->ev;
            return array(s, shape_output, &c);
        }
    }
    return skip_value(s);
}

static bool event_member(scan *s, const char *key, void *ctx) {
    event_ctx *e = ctx;
    static const char *const keys[] = {"cat", "name", "dur", "ts", "args", "ph", "pid"};
    int which = -1;
    for (int i = 0; i < 7 && which < 0; i++) { /* first letters first: few compares */
        which = key[0] == keys[i][0] && strcmp(key, keys[i]) == 0 ? i : -1;
    }
    if (which < 0) {
        return skip_value(s);
    }
    if (which <= 1 || which == 5) {
        return string_member(s, key, &e->seen, 1u << which,
                             which == 0   ? &e->ev.cat
                             : which == 1 ? &e->ev.name
                                          : &e->ev.ph);
    }
    if (!first_time(s, key, &e->seen, 1u << which)) {
        return false;
    }
    char c = s->p < s->end ? *s->p : '\0';
    if ((which == 2 || which == 3 || which == 6) && (c == '-' || (c >= '0' && c <= '9'))) {
        number num;
        if (!read_number(s, &num)) {
            return false;
        }
        *(which == 2 ? &e->ev.dur : which == 3 ? &e->ev.ts : &e->ev.pid) = num.d;
        e->ev.has_dur = e->ev.has_dur || which == 2;
        e->ev.has_pid = e->ev.has_pid || which == 6;
        return true;
    }
    if (which == 4 && c == '{') {
        return object(s, args_member, e);
    }
    return skip_value(s);
}

static bool event(scan *s, size_t index, void *ctx) {
    (void)ctx;
    if (s->p >= s->end || *s->p != '{') {
        return skip_value(s); /* not an event */
    }
    event_ctx e;
    memset(&e, 0, sizeof e);
    e.ev.index = index;
    if (!object(s, event_member, &e)) {
        return false;
    }
    int rc = s->fn(s->arg, &e.ev);
    if (rc) {
        s->rc = rc;
        return false;
    }
    return true;
}

static bool top_member(scan *s, const char *key, void *ctx) {
    unsigned *seen = ctx;
    if (strcmp(key, "traceEvents") != 0) {
        return skip_value(s);
    }
    if (!first_time(s, key, seen, 1)) {
        return false;
    }
    if (s->p < s->end && *s->p == '[') {
        *seen |= 2;
        return array(s, event, NULL);
    }
    return skip_value(s);
}

int fl_trace_scan(char *text, size_t len, fl_trace_event_fn fn, void *arg, char *err,
                  size_t errlen) {
    scan s = {text, text + len, text, 1, text, 0, 0, err, errlen, fn, arg};
    text[len] = '\0';
    unsigned seen = 0;
    ws(&s);
    char c = s.p < s.end ? *s.p : '\0';
    bool ok = c == '['   ? array(&s, event, NULL)
              : c == '{' ? object(&s, top_member, &seen)
                         : fail(&s, s.p, "'[' or '{' expected");
    if (ok) {
        ws(&s);
        if (s.p < s.end) {
            ok = fail(&s, s.p, "end of file expected");
        }
    }
    if (!ok) {
        return s.rc;
    }
    return c == '{' && !(seen & 2) ? FL_TRACE_NOT_EVENTS : 0;
}
