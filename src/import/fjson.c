/*
 * fjson.c - see fjson.h. A recursive-descent reader over the bytes: values
 * go straight into the arena; an array's elements and an object's members
 * are gathered on one shared stack while they are read and copied into the
 * arena when their bracket closes.
 */
#include "import/fjson.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 1024

typedef struct jp {
    const char *start, *p, *end;
    fl_arena *a;
    bool dups;
    int depth;
    char *err;
    size_t err_len;
    bool failed;
    /* the stack of elements (and members: key, value pairs) being gathered */
    const void **stack;
    size_t sn, scap;
} jp;

static const fl_json *fail(jp *r, const char *what) {
    if (!r->failed) {
        int line = 1, col = 1;
        for (const char *q = r->start; q < r->p && q < r->end; q++) {
            if (*q == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        snprintf(r->err, r->err_len, "%s (line %d, column %d)", what, line, col);
        r->failed = true;
    }
    return NULL;
}

static const fl_json *oom(jp *r) {
    return fail(r, "out of memory");
}

static void skip_ws(jp *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) {
        r->p++;
    }
}

static bool push(jp *r, const void *x) {
    if (r->sn == r->scap) { /* scratch: counted against the arena's limit */
        size_t cap = r->scap ? r->scap * 2 : 256;
        const void **s = fl__arena_scratch_grow(r->a, (void *)r->stack, r->scap, cap, sizeof *s);
        if (!s) {
            return false;
        }
        r->stack = s;
        r->scap = cap;
    }
    r->stack[r->sn++] = x;
    return true;
}

static fl_json *node(jp *r, fl_json_type t) {
    fl_json *j = fl__arena_alloc(r->a, sizeof *j);
    if (j) {
        j->type = t;
        j->n = 0;
    }
    return j;
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                    */
/* ------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (1-4), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (!n || (size_t)(end - p) < n) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] > 0x8F)) {
        return 0; /* overlong, surrogate or past U+10FFFF */
    }
    return n;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
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

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape at r->p (after the backslash) into o; bytes written, 0 on
 * error (reported). */
static size_t escape(jp *r, char *o) {
    char c = *r->p++;
    switch (c) {
    case '"':
    case '\\':
    case '/':
        *o = c;
        return 1;
    case 'b':
        *o = '\b';
        return 1;
    case 'f':
        *o = '\f';
        return 1;
    case 'n':
        *o = '\n';
        return 1;
    case 'r':
        *o = '\r';
        return 1;
    case 't':
        *o = '\t';
        return 1;
    case 'u':
        break;
    default:
        r->p--;
        fail(r, "invalid escape");
        return 0;
    }
    int u = r->end - r->p >= 4 ? hex4(r->p) : -1;
    if (u < 0) {
        fail(r, "invalid escape");
        return 0;
    }
    r->p += 4;
    unsigned cp = (unsigned)u;
    if (u >= 0xD800 && u <= 0xDBFF) {
        int lo = r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u' ? hex4(r->p + 2) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF) {
            fail(r, "invalid Unicode '\\uD800'-'\\uDBFF' without its low surrogate");
            return 0;
        }
        r->p += 6;
        cp = 0x10000 + (((unsigned)u - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
    } else if (u >= 0xDC00 && u <= 0xDFFF) {
        fail(r, "invalid Unicode: a lone low surrogate");
        return 0;
    } else if (u == 0) {
        fail(r, "\\u0000 is not allowed");
        return 0;
    }
    return put_utf8(o, cp);
}

/* The string at r->p (after its opening quote) into the arena. */
static const char *string(jp *r, size_t *out_len) {
    const char *s = r->p;
    bool plain = true;
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        if (c == '\\') {
            plain = false;
            r->p += r->p + 1 < r->end ? 2 : 1;
        } else if (c < 0x20) {
            fail(r, "control character in a string");
            return NULL;
        } else if (c < 0x80) {
            r->p++;
        } else {
            size_t n = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
            if (!n) {
                fail(r, "invalid UTF-8 in a string");
                return NULL;
            }
            r->p += n;
        }
    }
    if (r->p >= r->end) {
        fail(r, "unterminated string");
        return NULL;
    }
    size_t raw = (size_t)(r->p - s);
    char *o = fl__arena_alloc(r->a, raw + 1);
    if (!o) {
        oom(r);
        return NULL;
    }
    size_t n = 0;
    if (plain) {
        memcpy(o, s, raw);
        n = raw;
    } else {
        const char *close = r->p;
        r->p = s;
        while (r->p < close) {
            if (*r->p != '\\') {
                o[n++] = *r->p++;
                continue;
            }
            r->p++;
            size_t k = escape(r, o + n); /* never longer than its escape */
            if (!k) {
                return NULL;
            }
            n += k;
        }
    }
    o[n] = '\0';
    r->p++; /* the closing quote */
    *out_len = n;
    return o;
}

/* ------------------------------------------------------------------------- */
/* Numbers and literals                                                       */
/* ------------------------------------------------------------------------- */

static bool digit(char c) {
    return c >= '0' && c <= '9';
}

static const fl_json *number(jp *r) {
    const char *s = r->p;
    bool real = false;
    if (r->p < r->end && *r->p == '-') {
        r->p++;
    }
    if (r->p < r->end && *r->p == '0') {
        r->p++;
    } else if (r->p < r->end && digit(*r->p)) {
        while (r->p < r->end && digit(*r->p)) {
            r->p++;
        }
    } else {
        return fail(r, "invalid token");
    }
    if (r->p < r->end && *r->p == '.') {
        real = true;
        r->p++;
        if (r->p >= r->end || !digit(*r->p)) {
            return fail(r, "invalid real number");
        }
        while (r->p < r->end && digit(*r->p)) {
            r->p++;
        }
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        real = true;
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-')) {
            r->p++;
        }
        if (r->p >= r->end || !digit(*r->p)) {
            return fail(r, "invalid real number");
        }
        while (r->p < r->end && digit(*r->p)) {
            r->p++;
        }
    }
    size_t len = (size_t)(r->p - s);
    char small[64], *buf = len < sizeof small ? small : malloc(len + 1);
    if (!buf) {
        return oom(r);
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    fl_json *j = node(r, real ? FL_JSON_REAL : FL_JSON_INTEGER);
    errno = 0;
    if (j && real) {
        j->v.r = strtod(buf, NULL);
    } else if (j) {
        j->v.i = strtoll(buf, NULL, 10);
    }
    bool range = errno == ERANGE && (!real || (j && isinf(j->v.r)));
    if (buf != small) {
        free(buf);
    }
    if (!j) {
        return oom(r);
    }
    return range ? fail(r, real ? "real number overflow" : "too big integer") : j;
}

static const fl_json *literal(jp *r, const char *word, fl_json_type t) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) {
        return fail(r, "invalid token");
    }
    r->p += n;
    fl_json *j = node(r, t);
    return j ? j : oom(r);
}

/* ------------------------------------------------------------------------- */
/* Arrays and objects                                                         */
/* ------------------------------------------------------------------------- */

static const fl_json *value(jp *r);

static const fl_json *array(jp *r) {
    size_t base = r->sn;
    skip_ws(r);
    if (r->p < r->end && *r->p == ']') {
        r->p++;
    } else {
        for (;;) {
            const fl_json *v = value(r);
            if (!v) {
                return NULL;
            }
            if (!push(r, v)) {
                return oom(r);
            }
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == ']') {
                r->p++;
                break;
            }
            return fail(r, "']' or ',' expected");
        }
    }
    fl_json *j = node(r, FL_JSON_ARRAY);
    size_t n = r->sn - base;
    const fl_json **items = fl__arena_alloc(r->a, (n ? n : 1) * sizeof *items);
    if (!j || !items) {
        return oom(r);
    }
    if (n) { /* an empty array may come before anything was gathered */
        memcpy(items, r->stack + base, n * sizeof *items);
    }
    r->sn = base;
    j->n = n;
    j->v.items = items;
    return j;
}

static int member_cmp(const void *a, const void *b) {
    return strcmp(((const fl_json_member *)a)->key, ((const fl_json_member *)b)->key);
}

/* A duplicate key among m[0, n) (sorted in a scratch copy when many). */
static bool has_duplicate(const fl_json_member *m, size_t n, bool *oom_out) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            for (size_t k = 0; k < i; k++) {
                if (strcmp(m[i].key, m[k].key) == 0) {
                    return true;
                }
            }
        }
        return false;
    }
    fl_json_member *s = malloc(n * sizeof *s);
    if (!s) {
        *oom_out = true;
        return false;
    }
    memcpy(s, m, n * sizeof *s);
    qsort(s, n, sizeof *s, member_cmp);
    bool dup = false;
    for (size_t i = 1; i < n && !dup; i++) {
        dup = strcmp(s[i].key, s[i - 1].key) == 0;
    }
    free(s);
    return dup;
}

/* One "key": value member onto the stack; false on error (reported). */
static bool member(jp *r) {
    skip_ws(r);
    if (r->p >= r->end || *r->p != '"') {
        fail(r, "string or '}' expected");
        return false;
    }
    r->p++;
    size_t kl;
    const char *key = string(r, &kl);
    if (!key) {
        return false;
    }
    skip_ws(r);
    if (r->p >= r->end || *r->p != ':') {
        fail(r, "':' expected");
        return false;
    }
    r->p++;
    const fl_json *v = value(r);
    if (!v) {
        return false;
    }
    if (!push(r, key) || !push(r, v)) {
        oom(r);
        return false;
    }
    return true;
}

static const fl_json *object(jp *r) {
    size_t base = r->sn;
    skip_ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
    } else {
        for (;;) {
            if (!member(r)) {
                return NULL;
            }
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == '}') {
                r->p++;
                break;
            }
            return fail(r, "'}' or ',' expected");
        }
    }
    fl_json *j = node(r, FL_JSON_OBJECT);
    size_t n = (r->sn - base) / 2;
    fl_json_member *m = fl__arena_alloc(r->a, (n ? n : 1) * sizeof *m);
    if (!j || !m) {
        return oom(r);
    }
    for (size_t i = 0; i < n; i++) {
        m[i].key = r->stack[base + 2 * i];
        m[i].value = r->stack[base + 2 * i + 1];
    }
    r->sn = base;
    bool no_mem = false;
    if (r->dups && has_duplicate(m, n, &no_mem)) {
        return fail(r, "duplicate object key");
    }
    if (no_mem) {
        return oom(r);
    }
    j->n = n;
    j->v.members = m;
    return j;
}

static const fl_json *value(jp *r) {
    skip_ws(r);
    if (r->p >= r->end) {
        return fail(r, "unexpected end of input");
    }
    char c = *r->p;
    if (c == '{' || c == '[') {
        if (++r->depth > MAX_DEPTH) {
            return fail(r, "maximum parsing depth reached");
        }
        r->p++;
        const fl_json *j = c == '{' ? object(r) : array(r);
        r->depth--;
        return j;
    }
    if (c == '"') {
        r->p++;
        size_t n;
        const char *s = string(r, &n);
        fl_json *j = s ? node(r, FL_JSON_STRING) : NULL;
        if (!j) {
            return s ? oom(r) : NULL;
        }
        j->n = n;
        j->v.s = s;
        return j;
    }
    if (c == 't') {
        return literal(r, "true", FL_JSON_TRUE);
    }
    if (c == 'f') {
        return literal(r, "false", FL_JSON_FALSE);
    }
    if (c == 'n') {
        return literal(r, "null", FL_JSON_NULL);
    }
    return number(r);
}

const fl_json *fl__json_parse(fl_arena *a, const char *buf, size_t len, bool reject_duplicates,
                              char *err, size_t err_len) {
    jp r = {.start = buf,
            .p = buf,
            .end = buf + len,
            .a = a,
            .dups = reject_duplicates,
            .err = err,
            .err_len = err_len};
    skip_ws(&r);
    const fl_json *root = NULL;
    if (r.p >= r.end || (*r.p != '{' && *r.p != '[')) {
        fail(&r, "'[' or '{' expected");
    } else {
        root = value(&r);
    }
    skip_ws(&r);
    if (root && r.p != r.end) {
        root = fail(&r, "end of file expected");
    }
    fl__arena_scratch_free(a, (void *)r.stack);
    return root;
}

const fl_json *fl__json_get(const fl_json *j, const char *key) {
    if (!fl__json_is(j, FL_JSON_OBJECT)) {
        return NULL;
    }
    for (size_t i = j->n; i-- > 0;) {
        if (strcmp(j->v.members[i].key, key) == 0) {
            return j->v.members[i].value;
        }
    }
    return NULL;
}
