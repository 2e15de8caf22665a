/*
 * textfmt.c - middle-shortened names and wrapped cells for the text tables.
 */
#include "textfmt.h"

#include <stdbool.h>
#include <string.h>

static size_t common_prefix(const char *a, const char *b) {
    size_t k = 0;
    while (a[k] && a[k] == b[k]) {
        k++;
    }
    return k;
}

size_t fl_text_name_width(const char *const *names, size_t n, size_t min, size_t max) {
    size_t w = min;
    for (size_t i = 0; i < n; i++) {
        size_t l = names[i] ? strlen(names[i]) : 0;
        w = l > w ? l : w;
    }
    return w > max ? max : w;
}

/* Appends s[from, from + len) to out at *o (bounded by size). */
static void put(char *out, size_t size, size_t *o, const char *s, size_t from, size_t len) {
    for (size_t k = 0; k < len && *o + 1 < size; k++) {
        out[(*o)++] = s[from + k];
    }
    out[*o] = '\0';
}

/* Candidate shortening `rule` of s (len > width) into out:
 *   0: a short start, "...", and as much of the end as fits (the end starts
 *      inside the prefix every name of the table shares when it can);
 *   1: two thirds start, "...", one third end;
 *   2: start, "...", a window around position p, "...", end. */
static void shorten(const char *s, size_t len, size_t width, size_t shared, size_t p, int rule,
                    char *out, size_t size) {
    size_t o = 0;
    out[0] = '\0';
    if (rule == 0 || rule == 1) {
        size_t h = rule == 0 ? (shared < width / 4 ? shared : width / 4) : width - 3 - width / 3;
        h = h < 4 ? 4 : h;
        put(out, size, &o, s, 0, h);
        put(out, size, &o, "...", 0, 3);
        put(out, size, &o, s, len - (width - 3 - h), width - 3 - h);
        return;
    }
    size_t h = width / 4, t = width / 4, mid = width - 6 - h - t;
    size_t ws = p >= mid / 2 ? p - mid / 2 : 0;
    ws = ws < h ? h : ws;
    ws = ws + mid > len - t ? len - t - mid : ws;
    put(out, size, &o, s, 0, h);
    put(out, size, &o, "...", 0, 3);
    put(out, size, &o, s, ws, mid);
    put(out, size, &o, "...", 0, 3);
    put(out, size, &o, s, len - t, t);
}

/* names[k] as shortened by `rule` (the name itself when it fits). */
static void shortened(const char *const *names, size_t n, size_t k, size_t width, size_t shared,
                      int rule, char *out, size_t size) {
    const char *s = names[k] ? names[k] : "";
    size_t len = strlen(s), o = 0;
    if (len <= width) {
        put(out, size, &o, s, 0, len);
        return;
    }
    /* p: the first position where s differs from the most similar other name */
    size_t p = 0;
    for (size_t j = 0; j < n; j++) {
        if (j != k && names[j] && strcmp(names[j], s) != 0) {
            size_t c = common_prefix(names[j], s);
            p = c > p ? c : p;
        }
    }
    shorten(s, len, width, shared, p, rule, out, size);
}

void fl_text_abbrev(const char *const *names, size_t n, size_t i, size_t width, char *out,
                    size_t size) {
    const char *s = names[i] ? names[i] : "";
    size_t len = strlen(s), o = 0;
    out[0] = '\0';
    if (len <= width || width < 16 || size < width + 1) {
        put(out, size, &o, s, 0, len < width || width < 16 ? len : width);
        return;
    }
    size_t shared = len; /* the prefix every name of the table shares */
    for (size_t k = 0; k < n; k++) {
        if (k != i && names[k]) {
            size_t c = common_prefix(names[k], s);
            shared = c < shared ? c : shared;
        }
    }
    /* The first rule whose result no other row's result (same rule) equals. */
    char mine[256], other[256];
    for (int rule = 0; rule < 3; rule++) {
        shortened(names, n, i, width, shared, rule, mine, sizeof mine);
        bool unique = true;
        for (size_t k = 0; k < n && unique; k++) {
            if (k != i && names[k] && strcmp(names[k], s) != 0) {
                shortened(names, n, k, width, shared, rule, other, sizeof other);
                unique = strcmp(mine, other) != 0;
            }
        }
        if (unique || rule == 2) {
            put(out, size, &o, mine, 0, strlen(mine));
            return;
        }
    }
}

/* Length of the next piece of c (from its start) that fits in cw: up to the
 * last space within cw, or cw when there is none. */
static size_t piece(const char *c, size_t cw) {
    size_t len = strlen(c);
    if (len <= cw) {
        return len;
    }
    for (size_t k = cw; k > 0; k--) {
        if (c[k] == ' ') {
            return k;
        }
    }
    return cw;
}

void fl_text_row(FILE *f, const char *indent, const char *label, int lw, const char *const *cells,
                 size_t nc, int cw) {
    const char *rest[8];
    nc = nc > 8 ? 8 : nc;
    for (size_t k = 0; k < nc; k++) {
        rest[k] = cells[k] ? cells[k] : "";
    }
    for (int line = 0;; line++) {
        bool more = false;
        for (size_t k = 0; k < nc; k++) {
            more = more || *rest[k];
        }
        if (line && !more) {
            break;
        }
        size_t last = 0; /* cells after the last non-empty one are not padded */
        for (size_t k = 0; k < nc; k++) {
            last = *rest[k] ? k + 1 : last;
        }
        fprintf(f, "%s%-*s", indent, lw, line ? "" : label);
        for (size_t k = 0; k < (line ? last : nc); k++) {
            size_t l = piece(rest[k], (size_t)cw);
            fprintf(f, "%s%*.*s", k ? "  " : " ", cw, (int)l, rest[k]);
            rest[k] += l;
            while (*rest[k] == ' ') {
                rest[k]++;
            }
        }
        fputc('\n', f);
    }
}
