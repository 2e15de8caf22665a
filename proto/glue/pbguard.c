/*
 * pbguard.c - see pbguard.h. One pass over the wire bytes: each message's
 * fields are read once, a message field's bytes are walked with its own
 * descriptor, so every byte is read at the one level whose field it belongs
 * to.
 */
#include "pbguard.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WALK_OK = 0, WALK_STOP = 1, WALK_REJECT = -1 };

/* The fields from the top message down to the one being walked; the path
 * text is made only for a refusal. */
typedef struct frame {
    const char *name;
    long index; /* element of a repeated field, or -1 */
} frame;

typedef struct guard {
    const char *top; /* the top message's full name */
    frame frames[FL_PB_MAX_DEPTH + 2];
    unsigned n;
    char *err;
    size_t errlen;
} guard;

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* "a.b[3].c" into out (ending in "..." when it does not fit). */
static void path_text(const guard *g, char *out, size_t cap) {
    size_t at = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < g->n; i++) {
        const frame *f = &g->frames[i];
        int k = f->index >= 0
                    ? snprintf(out + at, cap - at, "%s%s[%ld]", i ? "." : "", f->name, f->index)
                    : snprintf(out + at, cap - at, "%s%s", i ? "." : "", f->name);
        if (k < 0 || (size_t)k >= cap - at) {
            memcpy(out + cap - 4, "...", 4);
            return;
        }
        at += (size_t)k;
    }
}

/* Reads one field's key and skips its value unless it is length-delimited
 * (then *len is its length and *p its first byte). false on bad wire bytes. */
static bool next_field(const uint8_t **p, const uint8_t *end, uint64_t *num, bool *delimited,
                       uint64_t *len) {
    uint64_t key = 0, v = 0;
    if (!read_varint(p, end, &key)) {
        return false;
    }
    *num = key >> 3;
    *delimited = false;
    switch (key & 7) {
    case 0:
        return read_varint(p, end, &v);
    case 1:
    case 5: {
        size_t w = (key & 7) == 1 ? 8 : 4;
        if ((size_t)(end - *p) < w) {
            return false;
        }
        *p += w;
        return true;
    }
    case 2:
        *delimited = true;
        return read_varint(p, end, len) && *len <= (uint64_t)(end - *p);
    default:
        return false; /* groups and invalid wire types: protobuf-c rejects them */
    }
}

/* True when messages of type d hold no message field: nothing in them to
 * count or to nest. */
static bool is_leaf(const ProtobufCMessageDescriptor *d) {
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (d->fields[i].type == PROTOBUF_C_TYPE_MESSAGE) {
            return false;
        }
    }
    return true;
}

static int reject(guard *g, bool depth) {
    char path[512];
    path_text(g, path, sizeof path);
    if (depth) {
        snprintf(g->err, g->errlen,
                 "%s: messages nested deeper than %d levels (at field %s); at most %d are accepted",
                 g->top, FL_PB_MAX_DEPTH, path, FL_PB_MAX_DEPTH);
    } else {
        snprintf(g->err, g->errlen,
                 "%s: the singular message field %s occurs more than %d times in one message; at "
                 "most %d are accepted (each occurrence is merged into the earlier ones)",
                 g->top, path, FL_PB_MAX_OCCURRENCES, FL_PB_MAX_OCCURRENCES);
    }
    return WALK_REJECT;
}

static int walk(guard *g, const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end,
                unsigned depth) {
    if (depth > FL_PB_MAX_DEPTH) {
        return reject(g, true);
    }
    if (depth < FL_PB_MAX_DEPTH && is_leaf(d)) {
        return WALK_OK;
    }
    uint32_t small[64];
    uint32_t *count = d->n_fields <= 64 ? small : calloc(d->n_fields, sizeof *count);
    if (!count) {
        return WALK_STOP; /* out of memory: protobuf-c will not do better */
    }
    memset(count, 0, (d->n_fields <= 64 ? d->n_fields : 0) * sizeof *count);
    int rc = WALK_OK;
    while (p < end && rc == WALK_OK) {
        uint64_t num = 0, len = 0;
        bool delimited = false;
        if (!next_field(&p, end, &num, &delimited, &len)) {
            rc = WALK_STOP;
            break;
        }
        if (!delimited) {
            continue;
        }
        const ProtobufCFieldDescriptor *f =
            num > 0 && num <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)num)
                                         : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
            uint32_t n = ++count[f - d->fields];
            bool repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
            g->frames[g->n++] = (frame){f->name, repeated ? (long)n - 1 : -1};
            if (!repeated && n > FL_PB_MAX_OCCURRENCES) {
                rc = reject(g, false);
                break;
            }
            rc = walk(g, f->descriptor, p, p + len, depth + 1);
            if (rc != WALK_REJECT) {
                g->n--;
            }
        }
        p += len;
    }
    if (count != small) {
        free(count);
    }
    return rc;
}

int fl_pb_guard(const ProtobufCMessageDescriptor *desc, const uint8_t *buf, size_t len, char *err,
                size_t errlen) {
    guard g = {desc->name, {{0}}, 0, err, errlen};
    if (errlen) {
        err[0] = '\0';
    }
    if (!buf || !len) {
        return 0;
    }
    return walk(&g, desc, buf, buf + len, 1) == WALK_REJECT ? -1 : 0;
}
