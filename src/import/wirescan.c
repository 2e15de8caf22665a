/*
 * wirescan.c - the incremental model scanner of foldline/wire.h
 * (fl_wire_scan_*): an ONNX ModelProto or a TensorFlow GraphDef read as its
 * bytes arrive, in runs the caller keeps or leaves out.
 *
 * A state machine over the wire format that keeps its place across any
 * split of the input (a tag, a varint or a length cut anywhere): a stack of
 * the messages it descends into (the few that lead to nodes and tensors),
 * every other field skipped whole. It decides the format from the first
 * top-level fields as fl_detect_format would from the whole file (ONNX at
 * its field 7 or 8, a GraphDef at its field 1; anything else, or bytes that
 * could still turn out TFLite or TF.js, is kept whole and not scanned), and
 * leaves out a tensor payload (ONNX raw_data, a GraphDef's tensor_content,
 * or a packed run of fixed-width values: ONNX float_data / double_data,
 * GraphDef float_val / double_val / scomplex_val / dcomplex_val, whose
 * count is their length over 4 or 8
 * whatever the bytes) only when the importers would not decode it: a tensor of a fixed-size
 * numeric type whose dims, seen before the payload, hold more than
 * max_value_elements elements, and no more than the payload's values (import.h: such a constant
 * keeps no value; 4-bit types are kept, the passes read their packed bytes). Malformed input stops
 * the scan: the rest is kept, and the importer reports it as it would have.
 */
#include "foldline/wire.h"
#include "import/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    M_SNIFF, /* top level, format not yet known */
    M_OMODEL,
    M_OGRAPH,
    M_ONODE,
    M_OATTR,
    M_OTENSOR,
    M_OFUNC,
    M_TGRAPH,
    M_TNODE,
    M_TLIB,
    M_TFUNC,
    M_TATTRENTRY,
    M_TATTR,
    M_TLIST,
    M_TTENSOR,
    M_TSHAPE,
    M_TDIM,
};

enum { S_TAG, S_LEN, S_VARINT, S_SKIP, S_DROP, S_PACKED };

#define MAX_DEPTH 64
#define N_SAT     ((int64_t)1 << 62)

typedef struct frame {
    uint8_t type;
    bool top;           /* the model's own graph (ONNX) */
    bool shape_ok;      /* a tensor: no negative dim, rank known */
    bool left_out;      /* a tensor: a payload of it was left out */
    uint8_t left_field; /* the field of the last one left out */
    uint8_t via;        /* the field of the parent that opened it */
    int dtype;          /* a tensor: its data_type / dtype, -1 until seen */
    int64_t n;          /* a tensor: product of the dims seen (saturating) */
    uint64_t size;      /* a GraphDef Dim: its size, the last one given (0 if none) */
    uint64_t end;       /* absolute offset where the message ends */
} frame;

struct fl_wire_scan {
    int64_t max_nodes, max_elems;
    bool held;      /* not scanning: every byte kept */
    bool confirmed; /* the first 8 bytes rule out TFLite and TF.js */
    bool decided;
    uint8_t head[8];
    size_t n_head;
    uint64_t pos;
    int depth;
    frame st[MAX_DEPTH];
    int state;
    uint64_t acc;
    int shift;
    uint32_t field;
    int wt;
    uint64_t tag_pos, remain;
    int64_t nodes;
    uint64_t dropped;
    char error[256];
    char retyped[160];
};

fl_wire_scan *fl_wire_scan_new(fl_format format, int64_t max_nodes, int64_t max_value_elements) {
    fl_wire_scan *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->max_nodes = max_nodes;
    s->max_elems = max_value_elements;
    s->st[0].end = UINT64_MAX;
    if (format == FL_FORMAT_ONNX || format == FL_FORMAT_GRAPHDEF) {
        s->st[0].type = format == FL_FORMAT_ONNX ? M_OMODEL : M_TGRAPH;
        s->decided = s->confirmed = true;
    } else if (format != FL_FORMAT_AUTO) {
        s->held = true;
    }
    return s;
}

void fl_wire_scan_free(fl_wire_scan *s) {
    free(s);
}

const char *fl_wire_scan_error(const fl_wire_scan *s) {
    return s && s->error[0] ? s->error : NULL;
}

const char *fl_wire_scan_retyped(const fl_wire_scan *s) {
    return s && s->retyped[0] ? s->retyped : NULL;
}

uint64_t fl_wire_scan_dropped(const fl_wire_scan *s) {
    return s ? s->dropped : 0;
}

/* Bytes found to be (or possibly be) another format are not counted, also
 * when a tag read before the first 8 bytes were in counted one already. */
int64_t fl_wire_scan_nodes(const fl_wire_scan *s) {
    return s && !s->held ? s->nodes : 0;
}

static void check_nodes(fl_wire_scan *s) {
    if (s->confirmed && !s->held && s->nodes > s->max_nodes && !s->error[0]) {
        bool onnx = s->st[0].type == M_OMODEL;
        snprintf(s->error, sizeof s->error,
                 "the graph has more than %lld %s (field: %s, at byte %llu of the model)",
                 (long long)s->max_nodes, onnx ? "nodes, initializers and inputs" : "nodes",
                 onnx ? "graph.node" : "node", (unsigned long long)s->tag_pos);
    }
}

/* The first 8 bytes: not TFLite (the importers' own test), not TF.js (a
 * '{' after an optional byte-order mark and white space: the importers'
 * test also looks for a key anywhere in the file, so any such start is
 * kept whole). */
static void confirm(fl_wire_scan *s) {
    if (s->n_head < 8 || s->confirmed || s->held) {
        return;
    }
    size_t i = s->head[0] == 0xEF && s->head[1] == 0xBB && s->head[2] == 0xBF ? 3 : 0;
    while (i < 8 &&
           (s->head[i] == ' ' || s->head[i] == '\t' || s->head[i] == '\n' || s->head[i] == '\r')) {
        i++;
    }
    if (fl__import_sniff_tflite(s->head, 8) || i == 8 || s->head[i] == '{') {
        s->held = true;
        return;
    }
    s->confirmed = true;
    check_nodes(s);
}

static uint64_t sat_mul(int64_t n, uint64_t d) {
    if (n == 0 || d == 0) {
        return 0;
    }
    return (uint64_t)n > (uint64_t)N_SAT / d ? (uint64_t)N_SAT : (uint64_t)n * d;
}

/* A dim of the tensor frame t. */
static void add_dim(frame *t, uint64_t v) {
    if ((int64_t)v < 0) {
        t->shape_ok = false;
    } else {
        t->n = (int64_t)sat_mul(t->n, v);
    }
}

static bool droppable_dtype(int type, int dt);
static const char *payload_name(int type, uint32_t field);

/* A varint field of the current message completed. */
static void on_varint(fl_wire_scan *s, uint64_t v) {
    frame *f = &s->st[s->depth];
    if (f->type == M_OTENSOR && s->field == 1) {
        add_dim(f, v);
    } else if ((f->type == M_OTENSOR && s->field == 2) || (f->type == M_TTENSOR && s->field == 1)) {
        f->dtype = v < 1000 ? (int)v : 1000;
        if (f->left_out && !droppable_dtype(f->type, f->dtype) && !s->retyped[0]) {
            /* A type whose payload the analysis reads (4-bit: the nbits
             * pass), given after the payload was left out. */
            bool onnx = f->type == M_OTENSOR;
            snprintf(s->retyped, sizeof s->retyped,
                     "a tensor's %s %d at byte %llu of the model comes after its %s, left out "
                     "as it arrived (field: %s)",
                     onnx ? "data_type" : "dtype", f->dtype, (unsigned long long)s->tag_pos,
                     payload_name(f->type, f->left_field), onnx ? "data_type" : "dtype");
        }
    } else if (f->type == M_TDIM && s->field == 1) {
        f->size = v; /* singular: a later size replaces it (field_done applies it) */
    } else if (f->type == M_TSHAPE && s->field == 3 && v && s->depth >= 1) {
        s->st[s->depth - 1].shape_ok = false; /* unknown_rank */
    }
}

/* The message a length-delimited field opens, or -1 when it is skipped. */
static int child_of(int type, uint32_t field) {
    switch (type) {
    case M_OMODEL:
        return field == 7 ? M_OGRAPH : field == 25 ? M_OFUNC : -1;
    case M_OGRAPH:
        return field == 1 ? M_ONODE : field == 5 ? M_OTENSOR : -1;
    case M_OFUNC:
        return field == 7 ? M_ONODE : -1;
    case M_ONODE:
        return field == 5 ? M_OATTR : -1;
    case M_OATTR:
        return field == 5 || field == 10 ? M_OTENSOR : field == 6 || field == 11 ? M_OGRAPH : -1;
    case M_TGRAPH:
        return field == 1 ? M_TNODE : field == 2 ? M_TLIB : -1;
    case M_TLIB:
        return field == 1 ? M_TFUNC : -1;
    case M_TFUNC:
        return field == 3 ? M_TNODE : -1;
    case M_TNODE:
        return field == 5 ? M_TATTRENTRY : -1;
    case M_TATTRENTRY:
        return field == 2 ? M_TATTR : -1;
    case M_TATTR:
        return field == 8 ? M_TTENSOR : field == 1 ? M_TLIST : -1;
    case M_TLIST:
        return field == 8 ? M_TTENSOR : -1;
    case M_TTENSOR:
        return field == 2 ? M_TSHAPE : -1;
    case M_TSHAPE:
        return field == 2 ? M_TDIM : -1;
    default:
        return -1;
    }
}

/* Fixed-size numeric types the importers do not decode past
 * max_value_elements: ONNX TensorProto.DataType 1-7, 9-16; TensorFlow
 * DataType float, double, int32, uint8, int16, int8, complex64, int64,
 * bool, bfloat16, uint16, complex128, half, uint32, uint64. */
static bool droppable_dtype(int type, int dt) {
    if (type == M_OTENSOR) {
        return dt >= 1 && dt <= 16 && dt != 8;
    }
    switch (dt) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 8:
    case 9:
    case 10:
    case 14:
    case 17:
    case 18:
    case 19:
    case 22:
    case 23:
        return true;
    default:
        return false;
    }
}

/* A tensor's field that holds its values in a form whose element count the
 * importers read from the length alone: 1 for bytes (ONNX raw_data, a
 * GraphDef's tensor_content), 4 or 8 for a packed run of fixed-width
 * values (ONNX float_data and double_data, GraphDef float_val,
 * double_val, scomplex_val and dcomplex_val); 0 for any other field (varint-packed values such as
 * int64_data are counted by their bytes: kept). */
static int payload_width(int type, uint32_t field) {
    if (type == M_OTENSOR) {
        return field == 9 ? 1 : field == 4 ? 4 : field == 10 ? 8 : 0;
    }
    if (type == M_TTENSOR) {
        return field == 4 ? 1 : field == 5 || field == 9 ? 4 : field == 6 || field == 12 ? 8 : 0;
    }
    return 0;
}

/* The payload field that opens at this length: left out or kept. Only a
 * run of at least as many values as the dims seen hold elements (at least
 * a byte an element) is left out: a shorter one is malformed (or a
 * GraphDef's typed run repeating its last value) and small for its dims,
 * and a model of at most max_value_elements bytes then leaves nothing out,
 * so a small upload streamed is its whole bytes, analysed and keyed as
 * the same bytes sent whole. */
static bool drop_payload(const fl_wire_scan *s, uint64_t len) {
    const frame *f = &s->st[s->depth];
    int width = payload_width(f->type, s->field);
    return width && len > 0 && len % (uint64_t)width == 0 && s->confirmed && f->shape_ok &&
           f->dtype >= 0 && droppable_dtype(f->type, f->dtype) && f->n > s->max_elems &&
           len / (uint64_t)width >= (uint64_t)f->n;
}

/* The name of payload field `field` of a tensor frame of `type`. */
static const char *payload_name(int type, uint32_t field) {
    if (type == M_OTENSOR) {
        return field == 9 ? "raw_data" : field == 4 ? "float_data" : "double_data";
    }
    return field == 4   ? "tensor_content"
           : field == 5 ? "float_val"
           : field == 6 ? "double_val"
           : field == 9 ? "scomplex_val"
                        : "dcomplex_val";
}

static void stop(fl_wire_scan *s) {
    s->held = true;
}

/* Pops the messages that end here; a field that ran past its message's
 * end stops the scan. */
static void field_done(fl_wire_scan *s) {
    s->state = S_TAG;
    s->acc = 0;
    s->shift = 0;
    while (s->depth > 0 && s->pos == s->st[s->depth].end) {
        const frame *f = &s->st[s->depth];
        frame *up = &s->st[s->depth - 1];
        if (f->type == M_TDIM && s->depth >= 2) {
            add_dim(&s->st[s->depth - 2], f->size);
        }
        if (f->type == M_OTENSOR && f->via == 5 && up->type == M_OATTR && f->left_out) {
            /* AttributeProto.t is one message: a t given again is merged
             * into this one (push), payload left out and all */
            up->left_out = true;
            up->left_field = f->left_field;
        }
        s->depth--;
    }
    if (s->pos > s->st[s->depth].end) {
        stop(s);
    }
}

static void push(fl_wire_scan *s, int type, uint64_t len) {
    frame *f = &s->st[++s->depth];
    const frame *up = &s->st[s->depth - 1];
    *f = (frame){.type = (uint8_t)type,
                 .shape_ok = true,
                 .dtype = -1,
                 .n = 1,
                 .via = (uint8_t)(s->field < 256 ? s->field : 0),
                 .end = s->pos + len};
    f->top = type == M_OGRAPH && up->type == M_OMODEL;
    if (type == M_OTENSOR && f->via == 5 && up->type == M_OATTR && up->left_out) {
        /* a second t of one attribute: the importer merges it into the
         * first, whose payload was left out, so a type it gives is that
         * payload's (on_varint) */
        f->left_out = true;
        f->left_field = up->left_field;
    }
}

/* At a top-level tag before the format is known: fl_detect_format's walk. */
static void sniff(fl_wire_scan *s) {
    if ((s->field == 7 || s->field == 8) && s->wt == 2) {
        s->st[0].type = M_OMODEL;
        s->decided = true;
    } else if (s->field == 1 && s->wt != 0) {
        if (s->wt == 2 && !fl__import_sniff_savedmodel(s->head, s->n_head)) {
            s->st[0].type = M_TGRAPH;
            s->decided = true;
        } else {
            stop(s); /* a SavedModel, or bytes no protobuf reader takes */
        }
    }
}

static void count_node(fl_wire_scan *s) {
    const frame *f = &s->st[s->depth];
    if (s->wt == 2 && ((f->top && (s->field == 1 || s->field == 5 || s->field == 11)) ||
                       (f->type == M_TGRAPH && s->depth == 0 && s->field == 1))) {
        s->nodes++;
        check_nodes(s);
    }
}

static void tag_done(fl_wire_scan *s, uint64_t key) {
    s->field = (uint32_t)(key >> 3);
    s->wt = (int)(key & 7);
    if (key >> 3 == 0 || key >> 3 > 0x1FFFFFFF ||
        (s->wt != 0 && s->wt != 1 && s->wt != 2 && s->wt != 5) || s->pos > s->st[s->depth].end) {
        stop(s);
        return;
    }
    if (s->depth == 0 && s->st[0].type == M_SNIFF) {
        sniff(s);
        if (s->held) {
            return;
        }
    }
    count_node(s);
    s->acc = 0;
    s->shift = 0;
    if (s->wt == 0) {
        s->state = S_VARINT;
    } else if (s->wt == 2) {
        s->state = S_LEN;
    } else {
        s->state = S_SKIP;
        s->remain = s->wt == 1 ? 8 : 4;
    }
}

static void len_done(fl_wire_scan *s, uint64_t len) {
    frame *f = &s->st[s->depth];
    if (s->pos > f->end || len > f->end - s->pos) {
        stop(s); /* past the end of its message */
        return;
    }
    int child = child_of(f->type, s->field);
    s->acc = 0;
    s->shift = 0;
    s->remain = len;
    if (child >= 0 && s->depth + 1 < MAX_DEPTH) {
        push(s, child, len);
        field_done(s);
    } else if (drop_payload(s, len)) {
        s->state = S_DROP;
        f->left_out = true;
        f->left_field = (uint8_t)s->field;
    } else if (f->type == M_OTENSOR && s->field == 1) {
        s->state = len ? S_PACKED : S_TAG; /* packed dims */
        if (!len) {
            field_done(s);
        }
    } else {
        s->state = S_SKIP;
        if (!len) {
            field_done(s);
        }
    }
}

/* Adds byte b to the varint being read; true when it completes. */
static bool varint_byte(fl_wire_scan *s, uint8_t b, uint64_t *out) {
    if (s->shift >= 64 || (s->shift == 63 && (b & 0x7e))) {
        stop(s); /* longer than 10 bytes, or past 64 bits */
        return false;
    }
    s->acc |= (uint64_t)(b & 0x7f) << s->shift;
    s->shift += 7;
    if (b & 0x80) {
        return false;
    }
    *out = s->acc;
    s->acc = 0;
    s->shift = 0;
    return true;
}

static void byte_step(fl_wire_scan *s, uint8_t b) {
    uint64_t v;
    if (s->state == S_TAG && s->shift == 0) {
        s->tag_pos = s->pos;
    }
    s->pos++;
    switch (s->state) {
    case S_TAG:
        if (varint_byte(s, b, &v)) {
            tag_done(s, v);
        }
        break;
    case S_LEN:
        if (varint_byte(s, b, &v)) {
            len_done(s, v);
        }
        break;
    case S_VARINT:
        if (varint_byte(s, b, &v)) {
            on_varint(s, v);
            field_done(s);
        }
        break;
    case S_PACKED:
        s->remain--;
        if (varint_byte(s, b, &v)) {
            add_dim(&s->st[s->depth], v);
        }
        if (!s->remain) {
            if (s->shift) {
                stop(s); /* a varint cut by the field's end */
            } else {
                field_done(s);
            }
        }
        break;
    default:
        break;
    }
}

size_t fl_wire_scan_next(fl_wire_scan *s, const uint8_t *p, size_t n, int *keep) {
    *keep = 1;
    if (!s || !n || s->error[0]) {
        return 0;
    }
    if (s->n_head < 8) {
        size_t k = n < 8 - s->n_head ? n : 8 - s->n_head;
        memcpy(s->head + s->n_head, p, k);
        s->n_head += k;
        confirm(s);
    }
    if (s->state == S_DROP && !s->held) {
        size_t k = s->remain < n ? (size_t)s->remain : n;
        s->remain -= k;
        s->pos += k;
        s->dropped += k;
        *keep = 0;
        if (!s->remain) {
            field_done(s);
        }
        return k;
    }
    size_t i = 0;
    while (i < n && !s->held && !s->error[0] && s->state != S_DROP) {
        if (s->state == S_SKIP) {
            size_t k = s->remain < n - i ? (size_t)s->remain : n - i;
            s->remain -= k;
            s->pos += k;
            i += k;
            if (!s->remain) {
                field_done(s);
            }
        } else {
            byte_step(s, p[i++]);
        }
    }
    if (s->held) {
        s->pos += n - i;
        i = n;
    }
    return i;
}
