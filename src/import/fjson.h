/*
 * fjson.h - a JSON reader for model.json: the whole document parsed in one
 * pass into an arena (one allocation block, nothing freed per value), read
 * through jansson-like accessors. It accepts what jansson's json_loadb
 * accepts by default (RFC 8259: an object or array at the top, UTF-8
 * checked, no \u0000, integers without fraction or exponent that fit a long
 * long, finite reals), nesting up to 1024 deep (jansson: 2048), and, asked
 * to, rejects duplicate keys; an object's lookup finds the last of equal
 * keys otherwise. jansson built a tree of malloc'ed, reference-counted,
 * hashed values and freed it value by value: 3/4 of a model.json's import
 * time (tests/bench/bench_tfjs_parse).
 */
#ifndef FL_IMPORT_FJSON_H
#define FL_IMPORT_FJSON_H

#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum fl_json_type {
    FL_JSON_OBJECT,
    FL_JSON_ARRAY,
    FL_JSON_STRING,
    FL_JSON_INTEGER,
    FL_JSON_REAL,
    FL_JSON_TRUE,
    FL_JSON_FALSE,
    FL_JSON_NULL
} fl_json_type;

typedef struct fl_json fl_json;

typedef struct fl_json_member {
    const char *key;
    const fl_json *value;
} fl_json_member;

struct fl_json {
    fl_json_type type;
    size_t n; /* string length, object members, array elements */
    union {
        const char *s;
        long long i;
        double r;
        const fl_json **items;
        const fl_json_member *members;
    } v;
};

/* Parses buf[0, len) into arena a; NULL with a message ("what (line L,
 * column C)") in err when the text is not valid JSON. */
const fl_json *fl__json_parse(fl_arena *a, const char *buf, size_t len, bool reject_duplicates,
                              char *err, size_t err_len);

static inline bool fl__json_is(const fl_json *j, fl_json_type t) {
    return j && j->type == t;
}

static inline bool fl__json_is_number(const fl_json *j) {
    return j && (j->type == FL_JSON_INTEGER || j->type == FL_JSON_REAL);
}

/* Member `key` of an object (the last of equal keys); NULL when absent or
 * j is no object. */
const fl_json *fl__json_get(const fl_json *j, const char *key);

/* Elements of an array (0 for anything else) and element i (NULL out of
 * range). */
static inline size_t fl__json_size(const fl_json *j) {
    return fl__json_is(j, FL_JSON_ARRAY) ? j->n : 0;
}

static inline const fl_json *fl__json_at(const fl_json *j, size_t i) {
    return i < fl__json_size(j) ? j->v.items[i] : NULL;
}

/* A string's bytes (NUL-terminated) and length; NULL and 0 otherwise. */
static inline const char *fl__json_str(const fl_json *j) {
    return fl__json_is(j, FL_JSON_STRING) ? j->v.s : NULL;
}

static inline size_t fl__json_strlen(const fl_json *j) {
    return fl__json_is(j, FL_JSON_STRING) ? j->n : 0;
}

/* An integer's value (0 for anything else); a number's value as double. */
static inline long long fl__json_int(const fl_json *j) {
    return fl__json_is(j, FL_JSON_INTEGER) ? j->v.i : 0;
}

static inline double fl__json_number(const fl_json *j) {
    return fl__json_is(j, FL_JSON_INTEGER) ? (double)j->v.i
           : fl__json_is(j, FL_JSON_REAL)  ? j->v.r
                                           : 0.0;
}

#endif
