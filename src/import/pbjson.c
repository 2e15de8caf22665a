/*
 * pbjson.c - see pbjson.h.
 */
#include "import/pbjson.h"

#include "import/pbutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
    fl_arena *a;
    fl_diag *d;
    char path[512]; /* field path of the value being read, for messages */
    size_t path_len;
} rd;

static fl_status bad(rd *r, const char *what) {
    return fl__diag_fail(r->d, FL_EINVAL, "%s (field: %s)", what, r->path);
}

/* Appends ".name" (kind 0), "['name']" (kind 1, a map key) or "[i]"
 * (kind 2) to the path; returns the old length to restore. */
static size_t push(rd *r, int kind, const char *name, size_t idx) {
    size_t old = r->path_len;
    size_t room = sizeof r->path - old;
    int n = kind == 0   ? snprintf(r->path + old, room, ".%.100s", name)
            : kind == 1 ? snprintf(r->path + old, room, "['%.100s']", name)
                        : snprintf(r->path + old, room, "[%zu]", idx);
    if (n > 0) {
        r->path_len = old + ((size_t)n < room ? (size_t)n : room - 1);
    }
    return old;
}

static void pop(rd *r, size_t old) {
    r->path_len = old;
    r->path[old] = '\0';
}

/* ------------------------------------------------------------------------- */
/* base64                                                                     */
/* ------------------------------------------------------------------------- */

static int b64val(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+' || c == '-') {
        return 62;
    }
    if (c == '/' || c == '_') {
        return 63;
    }
    return -1;
}

bool fl__base64_decode(fl_arena *a, const char *s, size_t len, ProtobufCBinaryData *out) {
    while (len && s[len - 1] == '=') {
        len--;
    }
    if (len % 4 == 1) {
        return false;
    }
    size_t n = len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0);
    uint8_t *p = fl__arena_alloc(a, n ? n : 1);
    if (!p) {
        return false;
    }
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64val(s[i]);
        if (v < 0) {
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            p[o++] = (uint8_t)(acc >> bits);
        }
    }
    out->data = p;
    out->len = o;
    return true;
}

/* ------------------------------------------------------------------------- */
/* Scalars                                                                    */
/* ------------------------------------------------------------------------- */

/* An integer field: a JSON integer, an integral real, or a decimal string. */
static fl_status read_int(rd *r, const fl_json *j, bool is_unsigned, int64_t lo, int64_t hi,
                          uint64_t uhi, uint64_t *out) {
    if (fl__json_is(j, FL_JSON_INTEGER)) {
        long long v = fl__json_int(j);
        if (is_unsigned ? (v < 0 || (uint64_t)v > uhi) : (v < lo || v > hi)) {
            return bad(r, "integer out of range");
        }
        *out = (uint64_t)v;
        return FL_OK;
    }
    if (fl__json_is(j, FL_JSON_REAL)) {
        double v = j->v.r;
        if (v != floor(v) || v < -9.2e18 || v > 1.8e19) {
            return bad(r, "expected an integer");
        }
        if (is_unsigned ? (v < 0 || v > (double)uhi) : (v < (double)lo || v > (double)hi)) {
            return bad(r, "integer out of range");
        }
        *out = is_unsigned ? (uint64_t)v : (uint64_t)(int64_t)v;
        return FL_OK;
    }
    if (!fl__json_is(j, FL_JSON_STRING) || fl__json_strlen(j) == 0 || fl__json_strlen(j) > 24) {
        return bad(r, "expected an integer or a decimal string");
    }
    const char *s = fl__json_str(j);
    char *end = NULL;
    errno = 0;
    if (is_unsigned) {
        if (s[0] == '-') {
            return bad(r, "integer out of range");
        }
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end || v > uhi) {
            return bad(r, "expected an unsigned decimal integer string");
        }
        *out = v;
    } else {
        long long v = strtoll(s, &end, 10);
        if (errno || *end || v < lo || v > hi) {
            return bad(r, "expected a decimal integer string in range");
        }
        *out = (uint64_t)v;
    }
    return FL_OK;
}

static fl_status read_double(rd *r, const fl_json *j, double *out) {
    if (fl__json_is_number(j)) {
        *out = fl__json_number(j);
        return FL_OK;
    }
    if (fl__json_is(j, FL_JSON_STRING)) {
        const char *s = fl__json_str(j);
        if (strcmp(s, "NaN") == 0) {
            *out = NAN;
            return FL_OK;
        }
        if (strcmp(s, "Infinity") == 0) {
            *out = INFINITY;
            return FL_OK;
        }
        if (strcmp(s, "-Infinity") == 0) {
            *out = -INFINITY;
            return FL_OK;
        }
        char *end = NULL;
        double v = strtod(s, &end);
        if (*s && !*end) {
            *out = v;
            return FL_OK;
        }
    }
    return bad(r, "expected a number");
}

static ProtobufCMessage *read_msg(rd *r, const ProtobufCMessageDescriptor *desc, const fl_json *j);

/* Reads one element of field f from j into *slot (sized for f's type). */
static fl_status read_elem(rd *r, const ProtobufCFieldDescriptor *f, const fl_json *j, void *slot) {
    uint64_t u = 0;
    double x = 0;
    fl_status st = FL_OK;
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        st = read_int(r, j, false, INT32_MIN, INT32_MAX, 0, &u);
        if (st == FL_OK) {
            *(int32_t *)slot = (int32_t)(int64_t)u;
        }
        return st;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        st = read_int(r, j, true, 0, 0, UINT32_MAX, &u);
        if (st == FL_OK) {
            *(uint32_t *)slot = (uint32_t)u;
        }
        return st;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        st = read_int(r, j, false, INT64_MIN, INT64_MAX, 0, &u);
        if (st == FL_OK) {
            *(int64_t *)slot = (int64_t)u;
        }
        return st;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        st = read_int(r, j, true, 0, 0, UINT64_MAX, &u);
        if (st == FL_OK) {
            *(uint64_t *)slot = u;
        }
        return st;
    case PROTOBUF_C_TYPE_FLOAT:
        st = read_double(r, j, &x);
        if (st == FL_OK) {
            *(float *)slot = (float)x;
        }
        return st;
    case PROTOBUF_C_TYPE_DOUBLE:
        st = read_double(r, j, &x);
        if (st == FL_OK) {
            *(double *)slot = x;
        }
        return st;
    case PROTOBUF_C_TYPE_BOOL:
        if (!(fl__json_is(j, FL_JSON_TRUE) || fl__json_is(j, FL_JSON_FALSE))) {
            return bad(r, "expected true or false");
        }
        *(protobuf_c_boolean *)slot = fl__json_is(j, FL_JSON_TRUE);
        return FL_OK;
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumDescriptor *ed = f->descriptor;
        if (fl__json_is(j, FL_JSON_STRING)) {
            const ProtobufCEnumValue *ev =
                protobuf_c_enum_descriptor_get_value_by_name(ed, fl__json_str(j));
            if (!ev) {
                char msg[200];
                snprintf(msg, sizeof msg, "'%.100s' is not a value of %s", fl__json_str(j),
                         ed->name);
                return bad(r, msg);
            }
            *(int *)slot = ev->value;
            return FL_OK;
        }
        st = read_int(r, j, false, INT32_MIN, INT32_MAX, 0, &u);
        if (st == FL_OK) {
            *(int *)slot = (int)(int64_t)u;
        }
        return st;
    }
    case PROTOBUF_C_TYPE_STRING: {
        if (!fl__json_is(j, FL_JSON_STRING)) {
            return bad(r, "expected a string");
        }
        char *s = fl__arena_strndup(r->a, fl__json_str(j), fl__json_strlen(j));
        if (!s) {
            return fl__diag_oom(r->d);
        }
        *(char **)slot = s;
        return FL_OK;
    }
    case PROTOBUF_C_TYPE_BYTES:
        if (!fl__json_is(j, FL_JSON_STRING)) {
            return bad(r, "expected a base64 string");
        }
        if (!fl__base64_decode(r->a, fl__json_str(j), fl__json_strlen(j),
                               (ProtobufCBinaryData *)slot)) {
            return r->a->failed ? fl__diag_oom(r->d) : bad(r, "invalid base64");
        }
        return FL_OK;
    case PROTOBUF_C_TYPE_MESSAGE: {
        ProtobufCMessage *m = read_msg(r, f->descriptor, j);
        if (!m) {
            return r->d->status;
        }
        *(ProtobufCMessage **)slot = m;
        return FL_OK;
    }
    }
    return bad(r, "field type not supported");
}

/* A map field (repeated XEntry {key = 1; value = 2}) from a JSON object. */
static fl_status read_map(rd *r, const ProtobufCFieldDescriptor *f, const fl_json *j, void *base) {
    const ProtobufCMessageDescriptor *ed = f->descriptor;
    const ProtobufCFieldDescriptor *kf = protobuf_c_message_descriptor_get_field(ed, 1);
    const ProtobufCFieldDescriptor *vf = protobuf_c_message_descriptor_get_field(ed, 2);
    if (!kf || !vf || kf->type != PROTOBUF_C_TYPE_STRING) {
        return bad(r, "expected an array");
    }
    size_t n = j->n;
    ProtobufCMessage **arr = fl__arena_calloc(r->a, n ? n : 1, sizeof(*arr));
    if (!arr) {
        return fl__diag_oom(r->d);
    }
    size_t i = 0;
    for (size_t m = 0; m < n; m++) {
        const char *key = j->v.members[m].key;
        const fl_json *v = j->v.members[m].value;
        ProtobufCMessage *e = fl__arena_zalloc(r->a, ed->sizeof_message);
        char *k = fl__arena_strdup(r->a, key);
        if (!e || !k) {
            return fl__diag_oom(r->d);
        }
        ed->message_init(e);
        *(char **)((char *)e + kf->offset) = k;
        size_t old = push(r, 1, key, 0);
        fl_status st = read_elem(r, vf, v, (char *)e + vf->offset);
        pop(r, old);
        if (st != FL_OK) {
            return st;
        }
        arr[i++] = e;
    }
    *(size_t *)((char *)base + f->quantifier_offset) = i;
    *(void **)((char *)base + f->offset) = arr;
    return FL_OK;
}

static fl_status read_field(rd *r, const ProtobufCFieldDescriptor *f, const fl_json *j,
                            ProtobufCMessage *m) {
    char *base = (char *)m;
    if (fl__json_is(j, FL_JSON_NULL)) {
        return FL_OK; /* null = the field's default */
    }
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        if (f->type == PROTOBUF_C_TYPE_MESSAGE && fl__json_is(j, FL_JSON_OBJECT)) {
            return read_map(r, f, j, base);
        }
        if (!fl__json_is(j, FL_JSON_ARRAY)) {
            return bad(r, "expected an array");
        }
        size_t n = fl__json_size(j), es = fl__pb_elem_size(f->type);
        uint8_t *arr = fl__arena_calloc(r->a, n ? n : 1, es);
        if (!arr) {
            return fl__diag_oom(r->d);
        }
        for (size_t i = 0; i < n; i++) {
            size_t old = push(r, 2, NULL, i);
            fl_status st = read_elem(r, f, fl__json_at(j, i), arr + i * es);
            pop(r, old);
            if (st != FL_OK) {
                return st;
            }
        }
        *(size_t *)(base + f->quantifier_offset) = n;
        *(void **)(base + f->offset) = arr;
        return FL_OK;
    }
    fl_status st = read_elem(r, f, j, base + f->offset);
    if (st != FL_OK) {
        return st;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        *(uint32_t *)(base + f->quantifier_offset) = f->id;
    } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_MESSAGE &&
               f->type != PROTOBUF_C_TYPE_STRING) {
        *(protobuf_c_boolean *)(base + f->quantifier_offset) = 1;
    }
    return FL_OK;
}

/* The field whose proto name or lowerCamelCase JSON name is `key`. */
static const ProtobufCFieldDescriptor *field_by_key(const ProtobufCMessageDescriptor *desc,
                                                    const char *key) {
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        if (strcmp(f->name, key) == 0) {
            return f;
        }
        const char *p = f->name, *k = key;
        bool up = false;
        for (; *p && *k; p++) {
            if (*p == '_') {
                up = true;
                continue;
            }
            char want = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
            up = false;
            if (*k != want) {
                break;
            }
            k++;
        }
        if (!*p && !*k) {
            return f;
        }
    }
    return NULL;
}

static ProtobufCMessage *read_msg(rd *r, const ProtobufCMessageDescriptor *desc, const fl_json *j) {
    if (!fl__json_is(j, FL_JSON_OBJECT)) {
        bad(r, "expected an object");
        return NULL;
    }
    ProtobufCMessage *m = fl__arena_zalloc(r->a, desc->sizeof_message);
    if (!m) {
        fl__diag_oom(r->d);
        return NULL;
    }
    desc->message_init(m);
    for (size_t i = 0; i < j->n; i++) {
        const char *key = j->v.members[i].key;
        const fl_json *v = j->v.members[i].value;
        const ProtobufCFieldDescriptor *f = field_by_key(desc, key);
        if (!f) {
            continue; /* not in our schema: ignored */
        }
        size_t old = push(r, 0, key, 0);
        fl_status st = read_field(r, f, v, m);
        pop(r, old);
        if (st != FL_OK) {
            return NULL;
        }
    }
    return m;
}

ProtobufCMessage *fl__pbjson_read(fl_arena *a, const ProtobufCMessageDescriptor *desc,
                                  const fl_json *j, const char *path, fl_diag *d) {
    rd *r = fl__arena_scratch(a, 1, sizeof *r);
    if (!r) {
        fl__diag_oom(d);
        return NULL;
    }
    r->a = a;
    r->d = d;
    snprintf(r->path, sizeof r->path, "%s", path);
    r->path_len = strlen(r->path);
    ProtobufCMessage *m = read_msg(r, desc, j);
    fl__arena_scratch_free(a, r);
    return m;
}
