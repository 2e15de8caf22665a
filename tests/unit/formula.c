/*
 * formula.c - recursive-descent evaluator for printed formulas; see formula.h.
 */
#include "formula.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct parser {
    const char *p;
    size_t n;
    const char *const *names;
    const int64_t *vals;
    char *err;
    size_t errlen;
    bool bad;
} parser;

static void skip(parser *ps) {
    while (*ps->p == ' ') {
        ps->p++;
    }
}

static void fail(parser *ps, const char *what) {
    if (!ps->bad) {
        snprintf(ps->err, ps->errlen, "%s at '%.20s'", what, ps->p);
    }
    ps->bad = true;
}

static int64_t expr(parser *ps);

/* Checked arithmetic: a result beyond int64 fails the evaluation ("integer
 * overflow"), so a caller comparing two formulas at a binding skips it. */
static int64_t mul(parser *ps, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        fail(ps, "integer overflow");
        return 0;
    }
    return r;
}

static int64_t add(parser *ps, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        fail(ps, "integer overflow");
        return 0;
    }
    return r;
}

static int64_t sub(parser *ps, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) {
        fail(ps, "integer overflow");
        return 0;
    }
    return r;
}

static int64_t floordiv(parser *ps, int64_t a, int64_t b) {
    if (a == INT64_MIN && b == -1) {
        fail(ps, "integer overflow");
        return 0;
    }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) {
        q--;
    }
    return q;
}

static bool ident_char(char c) {
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == ':';
}

static int64_t primary(parser *ps) {
    skip(ps);
    if (*ps->p == '(') {
        ps->p++;
        int64_t v = expr(ps);
        skip(ps);
        if (*ps->p != ')') {
            fail(ps, "expected ')'");
            return 0;
        }
        ps->p++;
        return v;
    }
    if (*ps->p == '-') {
        ps->p++;
        return sub(ps, 0, primary(ps));
    }
    if (isdigit((unsigned char)*ps->p)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            v = add(ps, mul(ps, v, 10), *ps->p++ - '0');
        }
        return v;
    }
    /* Symbol names may contain '/', as node names do: a bound name that
     * matches here wins (longest first), before the plain identifier rule. */
    const char *start = ps->p;
    size_t best = 0;
    int64_t best_val = 0;
    for (size_t i = 0; i < ps->n; i++) {
        size_t l = strlen(ps->names[i]);
        if (l > best && strncmp(ps->names[i], start, l) == 0 &&
            !(isalnum((unsigned char)start[l]) || start[l] == '_' || start[l] == '.') &&
            start[l] != '(') {
            best = l;
            best_val = ps->vals[i];
        }
    }
    if (best) {
        ps->p += best;
        return best_val;
    }
    while (ident_char(*ps->p) && *ps->p != '/') {
        ps->p++;
    }
    size_t len = (size_t)(ps->p - start);
    if (!len) {
        fail(ps, "expected a term");
        return 0;
    }
    skip(ps);
    if (*ps->p == '(') {
        ps->p++;
        int64_t a = expr(ps), b = 0;
        skip(ps);
        if (*ps->p == '/' || *ps->p == ',') {
            ps->p++;
            b = expr(ps);
        } else {
            fail(ps, "expected '/' or ','");
        }
        skip(ps);
        if (*ps->p != ')') {
            fail(ps, "expected ')'");
            return 0;
        }
        ps->p++;
        if (b == 0 && (len != 3 || strncmp(start, "max", 3) != 0) &&
            (len != 3 || strncmp(start, "min", 3) != 0)) {
            fail(ps, "division by zero");
            return 0;
        }
        if (len == 5 && strncmp(start, "floor", 5) == 0) {
            return floordiv(ps, a, b);
        }
        if (len == 4 && strncmp(start, "ceil", 4) == 0) {
            return sub(ps, 0, floordiv(ps, sub(ps, 0, a), b));
        }
        if (len == 3 && strncmp(start, "mod", 3) == 0) {
            return sub(ps, a, mul(ps, b, floordiv(ps, a, b)));
        }
        if (len == 3 && strncmp(start, "max", 3) == 0) {
            return a > b ? a : b;
        }
        if (len == 3 && strncmp(start, "min", 3) == 0) {
            return a < b ? a : b;
        }
        fail(ps, "unknown function");
        return 0;
    }
    for (size_t i = 0; i < ps->n; i++) {
        if (strlen(ps->names[i]) == len && strncmp(ps->names[i], start, len) == 0) {
            return ps->vals[i];
        }
    }
    fail(ps, "unbound identifier");
    return 0;
}

static int64_t power(parser *ps) {
    int64_t b = primary(ps);
    skip(ps);
    if (*ps->p == '^') {
        ps->p++;
        int64_t e = primary(ps), r = 1;
        if (b == 0 || b == 1 || b == -1) { /* no loop of e steps */
            return e == 0 ? 1 : b == -1 && e % 2 == 0 ? 1 : b;
        }
        for (int64_t i = 0; i < e && !ps->bad; i++) { /* overflows within 63 */
            r = mul(ps, r, b);
        }
        return r;
    }
    return b;
}

static int64_t term(parser *ps) {
    int64_t v = power(ps);
    for (;;) {
        skip(ps);
        if (*ps->p == '*') {
            ps->p++;
            v = mul(ps, v, power(ps));
        } else {
            return v;
        }
    }
}

static int64_t expr(parser *ps) {
    int64_t v = term(ps);
    for (;;) {
        skip(ps);
        if (*ps->p == '+') {
            ps->p++;
            v = add(ps, v, term(ps));
        } else if (*ps->p == '-') {
            ps->p++;
            v = sub(ps, v, term(ps));
        } else {
            return v;
        }
    }
}

bool formula_eval(const char *text, size_t n, const char *const *names, const int64_t *vals,
                  int64_t *out, char *err, size_t errlen) {
    parser ps = {text, n, names, vals, err, errlen, false};
    int64_t v = expr(&ps);
    skip(&ps);
    if (*ps.p) {
        fail(&ps, "trailing text");
    }
    if (ps.bad) {
        return false;
    }
    *out = v;
    return true;
}
