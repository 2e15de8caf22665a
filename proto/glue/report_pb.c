/*
 * report_pb.c - fl_report <-> foldline.v1.AnalyzeReply (see report_pb.h).
 *
 * One table per message lists its fields: the proto field's name, how the
 * report holds the value (the kind) and where (offsetof in the report's
 * struct). Two walkers read the tables, one per direction, through
 * protobuf-c's descriptors (a field's offset, presence and repetition), so
 * the two directions cannot disagree. What a table cannot say (the ledger
 * slices of the pass records) is one hook per direction.
 *
 * Presence: an absent proto3 value is a one-member oneof (`_intensity`); the
 * report's convention for the same absence is the row's kind (a negative
 * double, a NULL string, a NULL array).
 */
#include "report_pb.h"

#include "pbenc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Arena                                                                      */
/* ------------------------------------------------------------------------- */

struct fl_pb_block {
    struct fl_pb_block *next;
    size_t used, size;
    max_align_t data[];
};

void *fl_pb_alloc(fl_pb_arena *a, size_t size) {
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (size == 0) {
        size = sizeof(max_align_t);
    }
    if (!a->head || a->head->size - a->head->used < size) {
        size_t bs = size > 65536 ? size : 65536;
        struct fl_pb_block *b = malloc(sizeof *b + bs);
        if (!b) {
            a->failed = true;
            return NULL;
        }
        b->next = a->head;
        b->used = 0;
        b->size = bs;
        a->head = b;
    }
    void *r = (char *)a->head->data + a->head->used;
    a->head->used += size;
    memset(r, 0, size);
    return r;
}

void fl_pb_arena_free(fl_pb_arena *a) {
    while (a->head) {
        struct fl_pb_block *n = a->head->next;
        free(a->head);
        a->head = n;
    }
    a->failed = false;
}

/* ------------------------------------------------------------------------- */
/* Enums                                                                      */
/* ------------------------------------------------------------------------- */

const char *fl_pb_enum_name(fl_pb_arena *a, const ProtobufCEnumDescriptor *e, const char *prefix,
                            int value) {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(e, value);
    size_t pl = strlen(prefix);
    if (!v || strncmp(v->name, prefix, pl) != 0) {
        return "?";
    }
    const char *src = v->name + pl;
    size_t n = strlen(src);
    char *s = fl_pb_alloc(a, n + 1);
    for (size_t i = 0; s && i < n; i++) {
        s[i] = (char)tolower((unsigned char)src[i]);
    }
    return s;
}

bool fl_pb_enum_value(const ProtobufCEnumDescriptor *e, const char *prefix, const char *name,
                      int *value) {
    char buf[128];
    size_t pl = strlen(prefix), n = name ? strlen(name) : 0;
    if (!n || pl + n >= sizeof buf) {
        return false;
    }
    memcpy(buf, prefix, pl);
    for (size_t i = 0; i < n; i++) {
        buf[pl + i] = (char)toupper((unsigned char)name[i]);
    }
    buf[pl + n] = '\0';
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(e, buf);
    if (!v) {
        return false;
    }
    *value = v->value;
    return true;
}

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */
/* ------------------------------------------------------------------------- */

typedef enum kind {
    K_I64,        /* int64_t */
    K_INT,        /* int */
    K_BOOL,       /* bool */
    K_DOUBLE,     /* double */
    K_OPT_DOUBLE, /* double; negative = absent */
    K_OPT_POS,    /* double; <= 0 = absent */
    K_STR,        /* const char * (NULL sent as "") */
    K_OPT_STR,    /* const char *; NULL = absent */
    K_OPT_I64,    /* int64_t; 0 = absent */
    K_ENUM,       /* const char * name <-> enum (aux: the value prefix) */
    K_ENUMS,      /* const char *const * + size_t count <-> repeated enum */
    K_STRS,       /* const char *const * + size_t count <-> repeated string */
    K_I64S,       /* const int64_t * + int count <-> repeated int64 */
    K_DOUBLES,    /* const double * (NULL = absent) parallel to the size_t count at off2,
                     which another row owns <-> repeated double (read only when its
                     length is that count) */
    K_QTY,        /* fl_quantity <-> Quantity */
    K_MSG,        /* a struct at off (cond: a bool gating presence) <-> message */
    K_PTR,        /* const T * (NULL = absent) <-> message */
    K_ARR,        /* const T * + size_t count <-> repeated message (aux: presence flag) */
    K_BYTES,      /* const uint8_t * + size_t len <-> bytes */
    K_SHAPE,      /* const char *shape, int rank, const fl_quantity *dims <-> Shape */
    K_HOOK,       /* filled by the message's hook */
    K_VERSION,    /* the sender's version (to_pb only) */
} kind;

typedef struct msg_map msg_map;
typedef struct row row;

/* An enum value as fl_report_encode looks it up: the proto's name after
 * the row's prefix (upper case, as the proto spells it) and its value. */
typedef struct enum_name {
    const char *suffix;
    size_t len;
    int value;
} enum_name;

/* What a K_HOOK row writes. */
typedef enum hook_kind {
    H_NONE,        /* written by another row (LedgerEntry.pass: its record's name) */
    H_FLAG,        /* a K_ARR row's presence flag (step.arr) */
    H_RULES,       /* PassRecord.rules: the record's slice of the ledger */
    H_OTHER_LEDGER /* AnalyzeReply.other_ledger: the entries no record covers */
} hook_kind;

/* The rows put_fields writes itself, the most common ones of a reply:
 * plain (proto3, no presence) Quantity, int64, int32, bool and string
 * fields, left out when zero or empty as pbenc.h's rules leave them out,
 * a plain message field that is always there (F_MSG), and a hook that
 * writes nothing (F_NONE: another row writes the field). */
typedef enum fast_kind {
    F_ROW,
    F_QTY,
    F_VARINT64,
    F_VARINT32,
    F_BOOL,
    F_STR,
    F_MSG,
    F_NONE
} fast_kind;

/* One row as fl_report_encode writes it. */
typedef struct step {
    const row *r;
    const ProtobufCFieldDescriptor *f;
    const row *arr; /* a K_HOOK row that is a K_ARR row's presence flag: that row */
    /* K_ENUM(S): the enum's values with the row's prefix (NULL: looked up
     * through fl_pb_enum_value) */
    const enum_name *names;
    size_t n_names, prefix_len;
    hook_kind hook; /* K_HOOK rows */
    bool plain;     /* proto3 without presence: written unless zero (pbenc.h) */
    uint8_t fast;   /* how put_fields writes it without put_row (fast_kind) */
    uint8_t keylen;
    uint8_t key[6]; /* the field's key on the wire */
} step;

struct row {
    const char *field; /* the proto field's name */
    kind k;
    size_t off; /* the value (first of a pair) */
    size_t
        off2; /* the count (K_ARR, K_STRS, K_ENUMS, K_I64S, K_DOUBLES, K_BYTES), rank (K_SHAPE) */
    size_t off3; /* K_SHAPE: dims; K_MSG: the bool gating presence + 1 (0 = none) */
    const msg_map *sub;
    const char *aux; /* K_ENUM(S): value prefix; K_ARR: presence flag field */
    const ProtobufCEnumDescriptor *en;
};

struct msg_map {
    const ProtobufCMessageDescriptor *desc;
    size_t size; /* sizeof the report struct (array elements) */
    const row *rows;
    size_t n_rows;
    /* rows[i]'s field descriptor, found by name on first use (field_of):
     * the name search was most of a reply's encoding time. */
    _Atomic(const ProtobufCFieldDescriptor *) *fields;
    /* fl_report_encode's plan: the rows in the proto's field order (the
     * order protobuf-c writes fields in), set once by plan_init. */
    struct step *steps;
    size_t *n_steps;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAP(name, desc, type, rows)                                                                \
    static _Atomic(const ProtobufCFieldDescriptor *) name##_fields[N(rows)];                       \
    static struct step name##_steps[N(rows)];                                                      \
    static size_t name##_n_steps;                                                                  \
    static const msg_map name = {&desc,         sizeof(type), rows,           N(rows),             \
                                 name##_fields, name##_steps, &name##_n_steps}
#define R(field, k, type, member)                                                                  \
    { field, k, offsetof(type, member), 0, 0, NULL, NULL, NULL }
#define RP(field, k, type, member, count)                                                          \
    { field, k, offsetof(type, member), offsetof(type, count), 0, NULL, NULL, NULL }
#define RE(field, type, member, en, prefix)                                                        \
    { field, K_ENUM, offsetof(type, member), 0, 0, NULL, prefix, &en }
/* An enum field beside a string field of the same member (sent from it;
 * read only when set, so a sender without it leaves the string's value). */
#define RE2(field, type, member, en, prefix)                                                       \
    { field, K_ENUM, offsetof(type, member), 1, 0, NULL, prefix, &en }
#define RES(field, type, member, count, en, prefix)                                                \
    { field, K_ENUMS, offsetof(type, member), offsetof(type, count), 0, NULL, prefix, &en }
#define RM(field, type, member, sub)                                                               \
    { field, K_MSG, offsetof(type, member), 0, 0, &sub, NULL, NULL }
#define RMC(field, type, member, sub, cond)                                                        \
    { field, K_MSG, offsetof(type, member), 0, offsetof(type, cond) + 1, &sub, NULL, NULL }
#define RPTR(field, type, member, sub)                                                             \
    { field, K_PTR, offsetof(type, member), 0, 0, &sub, NULL, NULL }
#define RA(field, type, member, count, sub, flag)                                                  \
    { field, K_ARR, offsetof(type, member), offsetof(type, count), 0, &sub, flag, NULL }
#define RSHAPE(field, type)                                                                        \
    {                                                                                              \
        field, K_SHAPE, offsetof(type, shape), offsetof(type, rank), offsetof(type, dims), NULL,   \
            NULL, NULL                                                                             \
    }
#define RX(field, k)                                                                               \
    { field, k, 0, 0, 0, NULL, NULL, NULL }
/* A message whose fields are the enclosing struct's own (offset 0). */
#define RSELF(field, sub)                                                                          \
    { field, K_MSG, 0, 0, 0, &sub, NULL, NULL }

static const row quantity_rows[] = {
    R("known", K_BOOL, fl_quantity, known),
    R("value", K_I64, fl_quantity, value),
    R("text", K_STR, fl_quantity, text),
};
MAP(quantity_map, foldline__v1__quantity__descriptor, fl_quantity, quantity_rows);

static const row totals_rows[] = {
    {"flops", K_QTY, offsetof(fl_totals, flops), 0, 0, &quantity_map, NULL, NULL},
    {"tfprof_flops", K_QTY, offsetof(fl_totals, tfprof_flops), 0, 0, &quantity_map, NULL, NULL},
    {"macs", K_QTY, offsetof(fl_totals, macs), 0, 0, &quantity_map, NULL, NULL},
    {"int_ops", K_QTY, offsetof(fl_totals, int_ops), 0, 0, &quantity_map, NULL, NULL},
    {"bytes", K_QTY, offsetof(fl_totals, bytes), 0, 0, &quantity_map, NULL, NULL},
    {"bytes_read", K_QTY, offsetof(fl_totals, bytes_read), 0, 0, &quantity_map, NULL, NULL},
    {"bytes_written", K_QTY, offsetof(fl_totals, bytes_written), 0, 0, &quantity_map, NULL, NULL},
    R("nodes", K_I64, fl_totals, nodes),
};
MAP(totals_map, foldline__v1__totals__descriptor, fl_totals, totals_rows);

#define RQ(field, type, member)                                                                    \
    { field, K_QTY, offsetof(type, member), 0, 0, &quantity_map, NULL, NULL }

/* GraphInfo and Coverage: fields of fl_report itself. */
static const row graph_rows[] = {
    RE("format", fl_report, format, foldline__v1__graph_format__descriptor, "GRAPH_FORMAT_"),
    R("producer", K_INT, fl_report, producer),
    R("producer_name", K_OPT_STR, fl_report, producer_name),
    R("producer_version", K_OPT_STR, fl_report, producer_version),
    R("opset", K_OPT_I64, fl_report, opset),
    R("initializers", K_OPT_I64, fl_report, n_initializers),
    R("nodes", K_I64, fl_report, n_nodes),
    R("functions", K_I64, fl_report, n_functions),
    R("function_nodes", K_I64, fl_report, n_function_nodes),
    R("params", K_I64, fl_report, params),
};
MAP(graph_map, foldline__v1__graph_info__descriptor, fl_report, graph_rows);

static const row coverage_rows[] = {
    R("nodes_with_rule", K_I64, fl_report, nodes_with_rule),
    R("nodes_without_rule", K_I64, fl_report, nodes_without_rule),
    R("nodes_incomplete", K_I64, fl_report, nodes_incomplete),
    R("bytes_share_without_rule", K_OPT_DOUBLE, fl_report, bytes_share_without_rule),
    R("nodes_excluded", K_I64, fl_report, nodes_excluded),
};
MAP(coverage_map, foldline__v1__coverage__descriptor, fl_report, coverage_rows);

static const row input_rows[] = {
    R("name", K_STR, fl_report_input, name),
    R("dtype", K_STR, fl_report_input, dtype),
    RSHAPE("shape", fl_report_input),
};
MAP(input_map, foldline__v1__input__descriptor, fl_report_input, input_rows);

static const row tensor_rows[] = {
    R("dtype", K_STR, fl_report_tensor, dtype),
    RSHAPE("shape", fl_report_tensor),
};
MAP(tensor_map, foldline__v1__tensor__descriptor, fl_report_tensor, tensor_rows);

static const row node_rows[] = {
    R("name", K_STR, fl_report_node, name),
    R("op", K_STR, fl_report_node, op),
    RA("outputs", fl_report_node, outputs, n_outputs, tensor_map, NULL),
    RQ("flops", fl_report_node, flops),
    RQ("tfprof_flops", fl_report_node, tfprof_flops),
    RQ("macs", fl_report_node, macs),
    RQ("int_ops", fl_report_node, int_ops),
    RQ("bytes", fl_report_node, bytes),
    R("has_rule", K_BOOL, fl_report_node, has_rule),
    R("incomplete", K_BOOL, fl_report_node, incomplete),
};
MAP(node_map, foldline__v1__node_detail__descriptor, fl_report_node, node_rows);

static const row op_rows[] = {
    R("op", K_STR, fl_report_op, op),     R("count", K_I64, fl_report_op, count),
    RQ("flops", fl_report_op, flops),     RQ("tfprof_flops", fl_report_op, tfprof_flops),
    RQ("int_ops", fl_report_op, int_ops),
};
MAP(op_map, foldline__v1__op_summary__descriptor, fl_report_op, op_rows);

static const row input_binding_rows[] = {
    R("name", K_STR, fl_input_binding, name),
    RP("dims", K_I64S, fl_input_binding, dims, rank),
};
MAP(input_binding_map, foldline__v1__input_shape__descriptor, fl_input_binding, input_binding_rows);

static const row symbol_binding_rows[] = {
    R("name", K_STR, fl_symbol_binding, name),
    R("value", K_I64, fl_symbol_binding, value),
};
MAP(symbol_binding_map, foldline__v1__symbol_binding__descriptor, fl_symbol_binding,
    symbol_binding_rows);

static const row value_binding_rows[] = {
    R("name", K_STR, fl_value_binding, name),
    R("value", K_DOUBLE, fl_value_binding, value),
};
MAP(value_binding_map, foldline__v1__value_binding__descriptor, fl_value_binding,
    value_binding_rows);

static const row profile_used_rows[] = {
    R("name", K_STR, fl_report_profile, name),
    R("hash", K_STR, fl_report_profile, hash),
};
MAP(profile_used_map, foldline__v1__profile_used__descriptor, fl_report_profile, profile_used_rows);

static const row options_rows[] = {
    RE("format", fl_report_options, format, foldline__v1__graph_format__descriptor,
       "GRAPH_FORMAT_"),
    R("saved_model_tag", K_OPT_STR, fl_report_options, saved_model_tag),
    RA("inputs", fl_report_options, inputs, n_inputs, input_binding_map, NULL),
    RA("symbols", fl_report_options, symbols, n_symbols, symbol_binding_map, NULL),
    RA("values", fl_report_options, values, n_values, value_binding_map, NULL),
    RE("pass_selection", fl_report_options, pass_selection,
       foldline__v1__pass_selection__descriptor, "PASS_SELECTION_"),
    RES("passes", fl_report_options, passes, n_passes, foldline__v1__pass__descriptor, "PASS_"),
    RES("disabled_passes", fl_report_options, disabled_passes, n_disabled_passes,
        foldline__v1__pass__descriptor, "PASS_"),
    RP("outputs", K_STRS, fl_report_options, output_names, n_output_names),
    RE("device", fl_report_options, device, foldline__v1__device__descriptor, "DEVICE_"),
    RE("remapper_mode", fl_report_options, remapper_mode, foldline__v1__remapper_mode__descriptor,
       "REMAPPER_MODE_"),
    R("cudnn_persistent_batchnorm", K_BOOL, fl_report_options, cudnn_persistent_batchnorm),
    R("max_nodes", K_I64, fl_report_options, max_nodes),
    R("max_value_elements", K_I64, fl_report_options, max_value_elements),
    R("max_memory_bytes", K_I64, fl_report_options, max_memory_bytes),
    R("max_folded_bytes", K_I64, fl_report_options, max_folded_bytes),
    RA("profiles", fl_report_options, profiles, n_profiles, profile_used_map, NULL),
};
MAP(options_map, foldline__v1__options_used__descriptor, fl_report_options, options_rows);

static const row roof_node_rows[] = {
    R("name", K_STR, fl_roofline_node, name),
    R("op", K_STR, fl_roofline_node, op),
    RE("unit", fl_roofline_node, unit, foldline__v1__unit__descriptor, "UNIT_"),
    RE("dtype", fl_roofline_node, dtype, foldline__v1__precision__descriptor, "PRECISION_"),
    R("level", K_STR, fl_roofline_node, level),
    R("flops", K_DOUBLE, fl_roofline_node, flops),
    R("bytes", K_DOUBLE, fl_roofline_node, bytes),
    R("intensity", K_OPT_DOUBLE, fl_roofline_node, intensity),
    R("compute_s", K_DOUBLE, fl_roofline_node, compute_s),
    R("memory_s", K_DOUBLE, fl_roofline_node, memory_s),
    R("overhead_s", K_DOUBLE, fl_roofline_node, overhead_s),
    R("time_s", K_DOUBLE, fl_roofline_node, time_s),
    R("upper_s", K_DOUBLE, fl_roofline_node, upper_s),
    RE("bound", fl_roofline_node, bound, foldline__v1__bound__descriptor, "BOUND_"),
    R("op_class", K_STR, fl_roofline_node, op_class),
    RE2("op_class_kind", fl_roofline_node, op_class, foldline__v1__op_class__descriptor,
        "OP_CLASS_"),
    R("bucket", K_STR, fl_roofline_node, bucket),
    R("fixed_s", K_DOUBLE, fl_roofline_node, fixed_s),
    R("compute_peak_s", K_DOUBLE, fl_roofline_node, compute_peak_s),
    R("memory_peak_s", K_DOUBLE, fl_roofline_node, memory_peak_s),
    R("executed", K_BOOL, fl_roofline_node, executed),
    R("channels", K_DOUBLE, fl_roofline_node, channels),
    R("channel_time_s", K_DOUBLE, fl_roofline_node, channel_time_s),
    R("broadcast", K_BOOL, fl_roofline_node, broadcast),
    R("broadcast_time_s", K_DOUBLE, fl_roofline_node, broadcast_time_s),
};
MAP(roof_node_map, foldline__v1__roofline_node__descriptor, fl_roofline_node, roof_node_rows);

static const row roof_graph_rows[] = {
    R("time_s", K_DOUBLE, fl_roofline_graph, time_s),
    R("upper_s", K_DOUBLE, fl_roofline_graph, upper_s),
    R("compute_s", K_DOUBLE, fl_roofline_graph, compute_s),
    R("memory_s", K_DOUBLE, fl_roofline_graph, memory_s),
    R("overhead_s", K_DOUBLE, fl_roofline_graph, overhead_s),
    R("ops_compute_bound", K_I64, fl_roofline_graph, ops_compute_bound),
    R("ops_memory_bound", K_I64, fl_roofline_graph, ops_memory_bound),
    R("ops_overhead_bound", K_I64, fl_roofline_graph, ops_overhead_bound),
    R("ops_costed", K_I64, fl_roofline_graph, ops_costed),
    RA("top", fl_roofline_graph, top, n_top, roof_node_map, NULL),
    RA("nodes", fl_roofline_graph, nodes, n_nodes, roof_node_map, "has_nodes"),
    RX("has_nodes", K_HOOK), /* the presence flag of `nodes` */
    R("calibrated", K_BOOL, fl_roofline_graph, calibrated),
    R("low_s", K_OPT_POS, fl_roofline_graph, low_s),
    R("high_s", K_OPT_POS, fl_roofline_graph, high_s),
    R("coverage", K_OPT_POS, fl_roofline_graph, coverage),
    RP("node_evicted_bytes", K_DOUBLES, fl_roofline_graph, node_evicted_bytes, n_nodes),
    RP("node_streamed_s", K_DOUBLES, fl_roofline_graph, node_streamed_s, n_nodes),
    R("streamed_s", K_DOUBLE, fl_roofline_graph, streamed_s),
    RP("node_gap_s", K_DOUBLES, fl_roofline_graph, node_gap_s, n_nodes),
    R("gap_s", K_DOUBLE, fl_roofline_graph, gap_s),
    R("gap_share", K_OPT_POS, fl_roofline_graph, gap_share),
    R("gap_source", K_OPT_STR, fl_roofline_graph, gap_source),
};
MAP(roof_graph_map, foldline__v1__roofline_graph__descriptor, fl_roofline_graph, roof_graph_rows);

static const row roofline_rows[] = {
    R("profile", K_STR, fl_roofline_result, profile),
    RPTR("before", fl_roofline_result, before, roof_graph_map),
    RPTR("after", fl_roofline_result, after, roof_graph_map),
    R("speedup", K_OPT_POS, fl_roofline_result, speedup),
};
MAP(roofline_map, foldline__v1__roofline__descriptor, fl_roofline_result, roofline_rows);

static const row pass_rows[] = {
    RE("name", fl_report_pass, pass, foldline__v1__pass__descriptor, "PASS_"),
    R("iteration", K_INT, fl_report_pass, iteration),
    R("nodes_removed", K_I64, fl_report_pass, nodes_removed),
    R("nodes_added", K_I64, fl_report_pass, nodes_added),
    R("nodes_rewritten", K_I64, fl_report_pass, nodes_rewritten),
    RM("before", fl_report_pass, before, totals_map),
    RM("after", fl_report_pass, after, totals_map),
    RX("rules", K_HOOK), /* its slice of fl_report.ledger: ledger_to_pb/ledger_from_pb */
    R("failed", K_OPT_STR, fl_report_pass, failed),
};
MAP(pass_map, foldline__v1__pass_record__descriptor, fl_report_pass, pass_rows);

static const row ledger_rows[] = {
    R("rule", K_STR, fl_report_ledger_entry, rule), R("node", K_STR, fl_report_ledger_entry, node),
    R("detail", K_STR, fl_report_ledger_entry, detail),
    RX("pass", K_HOOK), /* a pass record's rules: the record's pass */
};
MAP(ledger_map, foldline__v1__ledger_entry__descriptor, fl_report_ledger_entry, ledger_rows);

/* Entries outside every pass record (AnalyzeReply.other_ledger). */
static const row other_ledger_rows[] = {
    R("rule", K_STR, fl_report_ledger_entry, rule),
    R("node", K_STR, fl_report_ledger_entry, node),
    R("detail", K_STR, fl_report_ledger_entry, detail),
    R("pass", K_STR, fl_report_ledger_entry, pass),
};
MAP(other_ledger_map, foldline__v1__ledger_entry__descriptor, fl_report_ledger_entry,
    other_ledger_rows);

static const row llm_phase_rows[] = {
    R("past", K_I64, fl_llm_phase, past),
    R("seq", K_I64, fl_llm_phase, seq),
    R("tokens", K_I64, fl_llm_phase, tokens),
    R("flops", K_I64, fl_llm_phase, flops),
    R("macs", K_I64, fl_llm_phase, macs),
    R("int_ops", K_I64, fl_llm_phase, int_ops),
    R("bytes", K_I64, fl_llm_phase, bytes),
    R("kv_bytes", K_I64, fl_llm_phase, kv_bytes),
    R("flops_per_token", K_DOUBLE, fl_llm_phase, flops_per_token),
    R("macs_per_token", K_DOUBLE, fl_llm_phase, macs_per_token),
    R("bytes_per_token", K_DOUBLE, fl_llm_phase, bytes_per_token),
    R("intensity", K_DOUBLE, fl_llm_phase, intensity),
};
MAP(llm_phase_map, foldline__v1__llm_phase__descriptor, fl_llm_phase, llm_phase_rows);

static const row llm_time_rows[] = {
    R("time_s", K_DOUBLE, fl_llm_time, time_s),
    R("time_per_token_s", K_DOUBLE, fl_llm_time, time_per_token_s),
    RE("bound", fl_llm_time, bound, foldline__v1__bound__descriptor, "BOUND_"),
};
MAP(llm_time_map, foldline__v1__llm_time__descriptor, fl_llm_time, llm_time_rows);

static const row llm_roofline_rows[] = {
    R("profile", K_STR, fl_llm_roofline, profile),
    RM("prefill", fl_llm_roofline, prefill, llm_time_map),
    RM("decode", fl_llm_roofline, decode, llm_time_map),
    R("calibrated", K_BOOL, fl_llm_roofline, calibrated),
};
MAP(llm_roofline_map, foldline__v1__llm_roofline__descriptor, fl_llm_roofline, llm_roofline_rows);

static const row llm_after_rows[] = {
    RM("prefill", fl_llm_after, prefill, llm_phase_map),
    RM("decode", fl_llm_after, decode, llm_phase_map),
    RA("roofline", fl_llm_after, roofline, n_roofline, llm_roofline_map, NULL),
};
MAP(llm_after_map, foldline__v1__llm_after__descriptor, fl_llm_after, llm_after_rows);

static const row llm_rows[] = {
    R("prompt", K_I64, fl_report_llm, prompt),
    R("context", K_I64, fl_report_llm, context),
    R("seq_symbol", K_STR, fl_report_llm, seq_symbol),
    R("past_symbol", K_OPT_STR, fl_report_llm, past_symbol),
    R("token_input", K_OPT_STR, fl_report_llm, token_input),
    RP("total_symbols", K_STRS, fl_report_llm, total_symbols, n_total_symbols),
    RP("other_symbols", K_STRS, fl_report_llm, other_symbols, n_other_symbols),
    R("kv_inputs", K_I64, fl_report_llm, kv_inputs),
    RM("prefill", fl_report_llm, prefill, llm_phase_map),
    RM("decode", fl_report_llm, decode, llm_phase_map),
    R("kv_bytes_per_token", K_DOUBLE, fl_report_llm, kv_bytes_per_token),
    R("kv_bytes_at_context", K_DOUBLE, fl_report_llm, kv_bytes_at_context),
    RA("roofline", fl_report_llm, roofline, n_roofline, llm_roofline_map, NULL),
    RPTR("after", fl_report_llm, after, llm_after_map),
};
MAP(llm_map, foldline__v1__llm_view__descriptor, fl_report_llm, llm_rows);

static const row reply_rows[] = {
    RX("foldline_version", K_VERSION),
    RSELF("graph", graph_map),
    RA("inputs", fl_report, inputs, n_inputs, input_map, NULL),
    RP("outputs", K_STRS, fl_report, outputs, n_outputs),
    RP("symbols", K_STRS, fl_report, symbols, n_symbols),
    RM("totals", fl_report, totals, totals_map),
    R("complete", K_BOOL, fl_report, complete),
    RSELF("coverage", coverage_map),
    RA("ops", fl_report, ops, n_ops, op_map, NULL),
    RA("unknown_ops", fl_report, unknown_ops, n_unknown_ops, op_map, NULL),
    RP("warnings", K_STRS, fl_report, warnings, n_warnings),
    RA("nodes", fl_report, nodes, n_nodes_detail, node_map, "has_nodes"),
    RX("has_nodes", K_HOOK),
    RM("options", fl_report, options, options_map),
    RA("roofline", fl_report, roofline, n_roofline, roofline_map, NULL),
    RMC("totals_before", fl_report, before, totals_map, optimized),
    RMC("totals_after", fl_report, after, totals_map, optimized),
    RA("passes", fl_report, passes, n_passes, pass_map, NULL),
    RP("optimized_graph", K_BYTES, fl_report, graph_bytes, graph_len),
    RA("nodes_after", fl_report, nodes_after, n_nodes_after, node_map, "has_nodes_after"),
    RX("has_nodes_after", K_HOOK),
    RX("other_ledger", K_HOOK), /* ledger_to_pb / ledger_from_pb */
    RPTR("llm", fl_report, llm, llm_map),
};
MAP(reply_map, foldline__v1__analyze_reply__descriptor, fl_report, reply_rows);

/* The messages the mapping reaches through sub-tables without a row of
 * their own (Shape and Dim are written by K_SHAPE; LedgerEntry by the
 * ledger hooks). */
static const msg_map *const all_maps[] = {
    &reply_map,         &graph_map,         &coverage_map,
    &totals_map,        &quantity_map,      &input_map,
    &tensor_map,        &node_map,          &op_map,
    &options_map,       &input_binding_map, &symbol_binding_map,
    &value_binding_map, &profile_used_map,  &roofline_map,
    &roof_graph_map,    &roof_node_map,     &pass_map,
    &ledger_map,        &other_ledger_map,  &llm_map,
    &llm_phase_map,     &llm_roofline_map,  &llm_time_map,
    &llm_after_map,
};

/* ------------------------------------------------------------------------- */
/* Field access                                                               */
/* ------------------------------------------------------------------------- */

#define AT(base, off, type)  ((type *)((char *)(base) + (off)))
#define CAT(base, off, type) ((const type *)((const char *)(base) + (off)))

/* Every thread that finds a slot empty stores the same descriptor, so the
 * slots need no lock; a row naming no field stays NULL (the self-check
 * below reports it) and is searched again each time. */
static const ProtobufCFieldDescriptor *field_of(const msg_map *m, const row *r) {
    _Atomic(const ProtobufCFieldDescriptor *) *slot = &m->fields[r - m->rows];
    const ProtobufCFieldDescriptor *f = atomic_load_explicit(slot, memory_order_relaxed);
    if (!f) {
        f = protobuf_c_message_descriptor_get_field_by_name(m->desc, r->field);
        atomic_store_explicit(slot, f, memory_order_relaxed);
    }
    return f;
}

/* Marks a one-member oneof as set (no-op for other fields). */
static void set_present(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f) {
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        *AT(msg, f->quantifier_offset, uint32_t) = f->id;
    }
}

static bool is_present(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f) {
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        return *CAT(msg, f->quantifier_offset, uint32_t) == f->id;
    }
    return true;
}

static const row *row_named(const msg_map *m, const char *field) {
    for (size_t i = 0; i < m->n_rows; i++) {
        if (strcmp(m->rows[i].field, field) == 0) {
            return &m->rows[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* Report -> proto                                                            */
/* ------------------------------------------------------------------------- */

typedef struct enc {
    fl_pb_arena *a; /* fl_report_to_pb: the messages' arena */
    const char *version;
    char *err;
    size_t errlen;
    bool failed;
    fl_pbw w;           /* fl_report_encode: the bytes */
    const fl_report *r; /* fl_report_encode: the report (the ledger hooks) */
    /* fl_report_encode: the last Totals written (put_msg), and where its
     * fields' bytes are: tot_len of them, starting tot_start bytes from
     * the end of what is written (the writer's growth keeps that). */
    bool tot_set;
    fl_totals tot;
    size_t tot_start, tot_len;
} enc;

static bool enc_fail(enc *e, const char *what, const char *name) {
    if (!e->failed) {
        snprintf(e->err, e->errlen, "%s: no value for '%s'", what, name ? name : "(null)");
    }
    e->failed = true;
    return false;
}

static ProtobufCMessage *new_msg(enc *e, const ProtobufCMessageDescriptor *d) {
    ProtobufCMessage *m = fl_pb_alloc(e->a, d->sizeof_message);
    if (m) {
        protobuf_c_message_init(d, m);
    }
    return m;
}

static bool to_msg(enc *e, const msg_map *m, const void *src, ProtobufCMessage *dst);

static void shape_to_pb(enc *e, const void *src, const row *r, ProtobufCMessage **out) {
    Foldline__V1__Shape *s = (Foldline__V1__Shape *)new_msg(e, &foldline__v1__shape__descriptor);
    if (!s) {
        return;
    }
    int rank = *CAT(src, r->off2, int);
    const fl_quantity *dims = *CAT(src, r->off3, fl_quantity *);
    s->unknown_rank = rank < 0 || !dims;
    if (!s->unknown_rank && rank > 0) {
        s->dims = fl_pb_alloc(e->a, (size_t)rank * sizeof(*s->dims));
        for (int i = 0; s->dims && i < rank; i++) {
            Foldline__V1__Dim *d = (Foldline__V1__Dim *)new_msg(e, &foldline__v1__dim__descriptor);
            if (!d) {
                return;
            }
            if (dims[i].known) {
                d->size_case = FOLDLINE__V1__DIM__SIZE_VALUE;
                d->value = dims[i].value;
            } else if (dims[i].text && strcmp(dims[i].text, "?") != 0) {
                d->size_case = FOLDLINE__V1__DIM__SIZE_SYMBOLIC;
                d->symbolic = (char *)dims[i].text;
            }
            s->dims[s->n_dims++] = d;
        }
    }
    *out = &s->base;
}

/* A repeated message field from count elements of size m->size at `arr`. */
static void arr_to_pb(enc *e, const msg_map *m, const void *arr, size_t n,
                      const ProtobufCFieldDescriptor *f, ProtobufCMessage *dst) {
    ProtobufCMessage **v = fl_pb_alloc(e->a, (n + 1) * sizeof(*v));
    for (size_t i = 0; v && i < n; i++) {
        v[i] = new_msg(e, m->desc);
        if (!v[i] || !to_msg(e, m, (const char *)arr + i * m->size, v[i])) {
            return;
        }
    }
    *AT(dst, f->quantifier_offset, size_t) = v ? n : 0;
    *AT(dst, f->offset, ProtobufCMessage **) = v;
}

static bool enums_to_pb(enc *e, const row *r, const void *src, const ProtobufCFieldDescriptor *f,
                        ProtobufCMessage *dst) {
    const char *const *names = *CAT(src, r->off, char *const *);
    size_t n = *CAT(src, r->off2, size_t);
    int *v = fl_pb_alloc(e->a, (n + 1) * sizeof(int));
    for (size_t i = 0; v && i < n; i++) {
        if (!fl_pb_enum_value(r->en, r->aux, names[i], &v[i])) {
            return enc_fail(e, r->field, names[i]);
        }
    }
    *AT(dst, f->quantifier_offset, size_t) = v ? n : 0;
    *AT(dst, f->offset, int *) = v;
    return true;
}

/* One row: the value at src + r->off into dst's field f. */
static bool row_to_pb(enc *e, const row *r, const void *src, const ProtobufCFieldDescriptor *f,
                      ProtobufCMessage *dst) {
    void *slot = AT(dst, f->offset, void);
    const void *val = CAT(src, r->off, void);
    switch (r->k) {
    case K_I64:
        *(int64_t *)slot = *(const int64_t *)val;
        break;
    case K_INT:
        *(int32_t *)slot = *(const int *)val;
        break;
    case K_BOOL:
        *(protobuf_c_boolean *)slot = *(const bool *)val;
        break;
    case K_DOUBLE:
        *(double *)slot = *(const double *)val;
        break;
    case K_OPT_DOUBLE:
    case K_OPT_POS: {
        double d = *(const double *)val;
        if (r->k == K_OPT_DOUBLE ? d >= 0 : d > 0) {
            *(double *)slot = d;
            set_present(dst, f);
        }
        break;
    }
    case K_OPT_I64:
        if (*(const int64_t *)val) {
            *(int64_t *)slot = *(const int64_t *)val;
            set_present(dst, f);
        }
        break;
    case K_STR:
        *(const char **)slot = *(const char *const *)val ? *(const char *const *)val : "";
        break;
    case K_OPT_STR:
        if (*(const char *const *)val) {
            *(const char **)slot = *(const char *const *)val;
            set_present(dst, f);
        }
        break;
    case K_ENUM: {
        int v;
        if (!fl_pb_enum_value(r->en, r->aux, *(const char *const *)val, &v)) {
            if (r->off2) { /* the second form: the string field carries it */
                break;
            }
            return enc_fail(e, r->field, *(const char *const *)val);
        }
        *(int *)slot = v;
        break;
    }
    case K_ENUMS:
        return enums_to_pb(e, r, src, f, dst);
    case K_STRS:
        memcpy(slot, val, sizeof(char **));
        *AT(dst, f->quantifier_offset, size_t) = *CAT(src, r->off2, size_t);
        break;
    case K_I64S: {
        int n = *CAT(src, r->off2, int);
        *(const int64_t **)slot = *(const int64_t *const *)val;
        *AT(dst, f->quantifier_offset, size_t) = n > 0 ? (size_t)n : 0;
        break;
    }
    case K_DOUBLES: {
        const double *v = *(const double *const *)val;
        *(const double **)slot = v;
        *AT(dst, f->quantifier_offset, size_t) = v ? *CAT(src, r->off2, size_t) : 0;
        break;
    }
    case K_BYTES: {
        ProtobufCBinaryData *b = slot;
        b->data = (uint8_t *)*(const uint8_t *const *)val;
        b->len = b->data ? *CAT(src, r->off2, size_t) : 0;
        break;
    }
    case K_QTY:
    case K_MSG:
    case K_PTR: {
        if (r->k == K_MSG && r->off3 && !*CAT(src, r->off3 - 1, bool)) {
            break;
        }
        const void *sv = r->k == K_PTR ? *(const void *const *)val : val;
        if (!sv) {
            break;
        }
        ProtobufCMessage *sub = new_msg(e, r->sub->desc);
        if (!sub || !to_msg(e, r->sub, sv, sub)) {
            break;
        }
        *(ProtobufCMessage **)slot = sub;
        break;
    }
    case K_ARR: {
        const void *arr = *(const void *const *)val;
        if (r->aux) {
            const ProtobufCFieldDescriptor *pf =
                protobuf_c_message_descriptor_get_field_by_name(dst->descriptor, r->aux);
            *AT(dst, pf->offset, protobuf_c_boolean) = arr != NULL;
        }
        arr_to_pb(e, r->sub, arr, arr ? *CAT(src, r->off2, size_t) : 0, f, dst);
        break;
    }
    case K_SHAPE:
        shape_to_pb(e, src, r, (ProtobufCMessage **)slot);
        break;
    case K_VERSION:
        *(const char **)slot = e->version ? e->version : "";
        break;
    case K_HOOK:
        break;
    }
    return !e->failed;
}

static bool to_msg(enc *e, const msg_map *m, const void *src, ProtobufCMessage *dst) {
    for (size_t i = 0; i < m->n_rows && !e->failed; i++) {
        const ProtobufCFieldDescriptor *f = field_of(m, &m->rows[i]);
        if (f && !row_to_pb(e, &m->rows[i], src, f, dst)) {
            return false;
        }
    }
    return !e->failed && !e->a->failed;
}

/* Each pass record's slice of the ledger. */
static void ledger_to_pb(enc *e, const fl_report *r, Foldline__V1__AnalyzeReply *m) {
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(
        &foldline__v1__pass_record__descriptor, "rules");
    for (size_t i = 0; i < m->n_passes && i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        size_t n = p->first_entry < r->n_ledger ? r->n_ledger - p->first_entry : 0;
        n = p->n_entries < n ? p->n_entries : n;
        arr_to_pb(e, &ledger_map, r->ledger + (n ? p->first_entry : 0), n, f, &m->passes[i]->base);
    }
    /* The entries no pass record covers, in order. */
    fl_report_ledger_entry *other = fl_pb_alloc(e->a, (r->n_ledger + 1) * sizeof(*other));
    size_t n_other = 0;
    for (size_t k = 0; other && k < r->n_ledger; k++) {
        bool covered = false;
        for (size_t i = 0; i < r->n_passes && !covered; i++) {
            const fl_report_pass *p = &r->passes[i];
            covered = k >= p->first_entry && k - p->first_entry < p->n_entries;
        }
        if (!covered) {
            other[n_other++] = r->ledger[k];
        }
    }
    const ProtobufCFieldDescriptor *of = protobuf_c_message_descriptor_get_field_by_name(
        &foldline__v1__analyze_reply__descriptor, "other_ledger");
    arr_to_pb(e, &other_ledger_map, other, n_other, of, &m->base);
}

bool fl_report_to_pb(const fl_report *r, const char *version, fl_pb_arena *a,
                     Foldline__V1__AnalyzeReply *m, char *err, size_t errlen) {
    enc e = {.a = a, .version = version, .err = err, .errlen = errlen, .r = r};
    if (!to_msg(&e, &reply_map, r, &m->base)) {
        if (!e.failed) {
            snprintf(err, errlen, "out of memory");
        }
        return false;
    }
    ledger_to_pb(&e, r, m);
    if (a->failed) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Report -> bytes                                                            */
/* ------------------------------------------------------------------------- */

/* fl_report_encode writes what protobuf-c packs from fl_report_to_pb's
 * message without building it: each row's value goes into a local in the
 * form row_to_pb stores in the message, and pbenc.c's rules decide whether
 * it is written and how. The rows go last field first (pbenc.h's writer). */

static pthread_once_t plan_once = PTHREAD_ONCE_INIT;

/* The enum_name tables of the K_ENUM(S) steps, one per step (a few dozen
 * values in all). */
static enum_name enum_names[512];
static size_t n_enum_names;

/* Points st at its enum's values that start with the row's prefix; leaves
 * it without a table (the slower lookup) if they do not fit. */
static void plan_enum(step *st) {
    const ProtobufCEnumDescriptor *en = st->r->en;
    size_t pl = strlen(st->r->aux);
    if (n_enum_names + en->n_values > N(enum_names)) {
        return;
    }
    st->prefix_len = pl;
    st->names = &enum_names[n_enum_names];
    for (unsigned i = 0; i < en->n_values; i++) {
        const ProtobufCEnumValue *v = &en->values[i];
        if (strncmp(v->name, st->r->aux, pl) == 0) {
            enum_names[n_enum_names++] = (enum_name){v->name + pl, strlen(v->name + pl), v->value};
            st->n_names++;
        }
    }
}

/* Which of put_fields' own cases writes row r as field f (F_ROW: none). */
static uint8_t plan_fast(const row *r, const ProtobufCFieldDescriptor *f, bool plain,
                         hook_kind hook) {
    if (r->k == K_HOOK && hook == H_NONE) {
        return F_NONE;
    }
    if (!plain) {
        return F_ROW;
    }
    switch (r->k) {
    case K_MSG:
        return r->off3 ? F_ROW : F_MSG;
    case K_QTY:
        return F_QTY;
    case K_I64:
        return f->type == PROTOBUF_C_TYPE_INT64 || f->type == PROTOBUF_C_TYPE_UINT64 ? F_VARINT64
                                                                                     : F_ROW;
    case K_INT:
        return f->type == PROTOBUF_C_TYPE_INT32 ? F_VARINT32 : F_ROW;
    case K_BOOL:
        return f->type == PROTOBUF_C_TYPE_BOOL ? F_BOOL : F_ROW;
    case K_STR:
        return f->type == PROTOBUF_C_TYPE_STRING ? F_STR : F_ROW;
    default:
        return F_ROW;
    }
}

static void plan_init(void) {
    for (size_t i = 0; i < N(all_maps); i++) {
        const msg_map *m = all_maps[i];
        size_t n = 0;
        for (size_t k = 0; k < m->desc->n_fields; k++) {
            const ProtobufCFieldDescriptor *f = &m->desc->fields[k];
            const row *r = NULL;
            for (size_t j = 0; j < m->n_rows && !r; j++) {
                r = field_of(m, &m->rows[j]) == f ? &m->rows[j] : NULL;
            }
            if (!r) { /* no row (the self-check names it): never written */
                continue;
            }
            step *st = &m->steps[n++];
            st->r = r;
            st->f = f;
            st->arr = NULL;
            st->names = NULL;
            st->n_names = 0;
            st->prefix_len = 0;
            for (size_t j = 0; j < m->n_rows && r->k == K_HOOK; j++) {
                const row *a = &m->rows[j];
                if (a->k == K_ARR && a->aux && strcmp(a->aux, r->field) == 0) {
                    st->arr = a;
                }
            }
            st->hook = st->arr                                                    ? H_FLAG
                       : m == &pass_map && strcmp(r->field, "rules") == 0         ? H_RULES
                       : m == &reply_map && strcmp(r->field, "other_ledger") == 0 ? H_OTHER_LEDGER
                                                                                  : H_NONE;
            if (r->k == K_ENUM || r->k == K_ENUMS) {
                plan_enum(st);
            }
            st->plain =
                f->label == PROTOBUF_C_LABEL_NONE && !(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF);
            st->fast = plan_fast(r, f, st->plain, st->hook);
            uint64_t key = ((uint64_t)f->id << 3) | fl_pb_wire_type(f->type);
            st->keylen = 0;
            while (key >= 0x80) {
                st->key[st->keylen++] = (uint8_t)(key | 0x80);
                key >>= 7;
            }
            st->key[st->keylen++] = (uint8_t)key;
        }
        *m->n_steps = n;
    }
}

/* c in upper case if it is an ASCII letter (the enums' names are ASCII:
 * the same answer as toupper in any locale, without its call). */
static inline unsigned ascii_upper(unsigned c) {
    return c - 'a' < 26u ? c - ('a' - 'A') : c;
}

/* fl_pb_enum_value's answer from st's table: `name` upper-cased is the
 * name after the prefix of one of the enum's values (the length limit is
 * fl_pb_enum_value's). */
static bool enum_value(const step *st, const char *name, int *value) {
    if (!st->names) {
        return fl_pb_enum_value(st->r->en, st->r->aux, name, value);
    }
    size_t n = name ? strlen(name) : 0;
    if (!n || st->prefix_len + n >= 128) {
        return false;
    }
    unsigned c0 = ascii_upper((unsigned char)name[0]);
    for (size_t i = 0; i < st->n_names; i++) {
        const enum_name *v = &st->names[i];
        if (v->len != n || (unsigned char)v->suffix[0] != c0) {
            continue;
        }
        size_t k = 1;
        while (k < n && (unsigned char)v->suffix[k] == ascii_upper((unsigned char)name[k])) {
            k++;
        }
        if (k == n) {
            *value = v->value;
            return true;
        }
    }
    return false;
}

static inline __attribute__((always_inline)) void put_key(enc *e, const step *st) {
    if (st->keylen == 1 && fl_pbw_room(&e->w, 1)) {
        e->w.buf[--e->w.pos] = st->key[0];
    } else {
        fl_pbw_put(&e->w, st->key, st->keylen);
    }
}

/* A singular field whose value, as the message would hold it, is at v;
 * `set`: row_to_pb would mark it present (set_present). */
static void put_field(enc *e, const step *st, const void *v, bool set) {
    const ProtobufCFieldDescriptor *f = st->f;
    if (st->plain) {
        if (fl_pb_zeroish(f->type, v)) {
            return;
        }
    } else {
        uint32_t q = set && (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ? f->id : 0;
        if (!fl_pb_present(f, v, &q)) {
            return;
        }
    }
    fl_pbw_value(&e->w, f->type, v);
    put_key(e, st);
}

static void put_msg(enc *e, const msg_map *m, const void *src);

/* One message element of m (key, length, fields) from src. */
static void put_elt(enc *e, const step *st, const msg_map *m, const void *src) {
    size_t end = fl_pbw_len(&e->w);
    put_msg(e, m, src);
    fl_pbw_varint(&e->w, fl_pbw_len(&e->w) - end);
    put_key(e, st);
}

/* A singular message field from src (which is not NULL). */
static void put_sub(enc *e, const step *st, const msg_map *m, const void *src) {
    uint32_t q = 0;
    if (st->plain || fl_pb_present(st->f, &src, &q)) {
        put_elt(e, st, m, src);
    }
}

/* A varint whose last byte goes just before p, written backwards; returns
 * its first byte. */
static inline uint8_t *varint_before(uint8_t *p, uint64_t v) {
    if (v < 0x80) {
        *--p = (uint8_t)v;
        return p;
    }
    uint8_t t[10];
    size_t n = fl_pb_varint_bytes(t, v);
    p -= n;
    memcpy(p, t, n);
    return p;
}

/* K_QTY: a Quantity, most of a reply's messages (every count of every
 * Totals), written here without the walk over quantity_rows: `known`
 * (1, bool), `value` (2, int64), `text` (3, string), each left out when
 * zero or empty as proto3 does. test_report_pb compares every reply's bytes
 * with protobuf-c's, so this cannot drift from the table unnoticed. */
static void put_qty(enc *e, const step *st, const fl_quantity *q) {
    fl_pbw *w = &e->w;
    size_t n = q->text ? strlen(q->text) : 0;
    /* At most: text, its length and key, value and key, known and key, the
     * message's length and key. Room once, then the bytes straight in. */
    if (!fl_pbw_room(w, n + 10 + 1 + 10 + 1 + 2 + 10 + sizeof st->key)) {
        return;
    }
    uint8_t *end = w->buf + w->pos, *p = end;
    if (n) {
        p -= n;
        memcpy(p, q->text, n);
        p = varint_before(p, n);
        *--p = (3 << 3) | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    }
    if (q->value) {
        p = varint_before(p, (uint64_t)q->value);
        *--p = (2 << 3) | PROTOBUF_C_WIRE_TYPE_VARINT;
    }
    if (q->known) {
        *--p = 1;
        *--p = (1 << 3) | PROTOBUF_C_WIRE_TYPE_VARINT;
    }
    p = varint_before(p, (uint64_t)(end - p));
    for (size_t k = st->keylen; k-- > 0;) {
        *--p = st->key[k];
    }
    w->pos = (size_t)(p - w->buf);
}

/* n elements of size m->size at arr as repeated field st. */
static void put_arr(enc *e, const step *st, const msg_map *m, const void *arr, size_t n) {
    for (size_t i = n; i-- > 0 && !e->failed;) {
        put_elt(e, st, m, (const char *)arr + i * m->size);
    }
}

/* K_SHAPE: the Shape message shape_to_pb builds, here on the stack. */
static __attribute__((noinline)) void put_shape(enc *e, const step *st, const void *src,
                                                const row *r) {
    int rank = *CAT(src, r->off2, int);
    const fl_quantity *dims = *CAT(src, r->off3, fl_quantity *);
    Foldline__V1__Shape s = FOLDLINE__V1__SHAPE__INIT;
    Foldline__V1__Dim dl[8], *pl[8], *dh = NULL, **d = pl;
    s.unknown_rank = rank < 0 || !dims;
    if (!s.unknown_rank && rank > 0) {
        Foldline__V1__Dim *dv = dl;
        if ((size_t)rank > N(dl)) {
            dh = malloc((size_t)rank * (sizeof *dh + sizeof *d));
            if (!dh) {
                e->w.oom = true;
                return;
            }
            dv = dh;
            d = (Foldline__V1__Dim **)(dh + rank);
        }
        for (int i = 0; i < rank; i++) {
            Foldline__V1__Dim z = FOLDLINE__V1__DIM__INIT;
            dv[i] = z;
            if (dims[i].known) {
                dv[i].size_case = FOLDLINE__V1__DIM__SIZE_VALUE;
                dv[i].value = dims[i].value;
            } else if (dims[i].text && strcmp(dims[i].text, "?") != 0) {
                dv[i].size_case = FOLDLINE__V1__DIM__SIZE_SYMBOLIC;
                dv[i].symbolic = (char *)dims[i].text;
            }
            d[i] = &dv[i];
        }
        s.dims = d;
        s.n_dims = (size_t)rank;
    }
    uint32_t q = 0;
    const void *sp = &s;
    if (st->plain || fl_pb_present(st->f, &sp, &q)) {
        size_t end = fl_pbw_len(&e->w);
        fl_pbw_message(&e->w, &s.base);
        fl_pbw_varint(&e->w, fl_pbw_len(&e->w) - end);
        put_key(e, st);
    }
    free(dh);
}

/* K_ENUMS: the names' values as a repeated enum. */
static __attribute__((noinline)) void put_enums(enc *e, const step *st, const void *src) {
    const row *r = st->r;
    const char *const *names = *CAT(src, r->off, char *const *);
    size_t n = *CAT(src, r->off2, size_t);
    int sv[32], *v = n > N(sv) ? malloc(n * sizeof(int)) : sv;
    if (!v) {
        e->w.oom = true;
        return;
    }
    for (size_t i = 0; i < n && !e->failed; i++) {
        if (!enum_value(st, names[i], &v[i])) {
            enc_fail(e, r->field, names[i]);
        }
    }
    if (!e->failed) {
        fl_pbw_repeated(&e->w, st->f, v, n);
    }
    if (v != sv) {
        free(v);
    }
}

/* The ledger entries at k no pass record covers (other_ledger). */
static bool uncovered(const fl_report *r, size_t k) {
    for (size_t i = 0; i < r->n_passes; i++) {
        const fl_report_pass *p = &r->passes[i];
        if (k >= p->first_entry && k - p->first_entry < p->n_entries) {
            return false;
        }
    }
    return true;
}

/* A K_HOOK row: what ledger_to_pb and K_ARR's presence flag write. */
static __attribute__((noinline)) void put_hook(enc *e, const step *st, const void *src) {
    if (st->hook == H_FLAG) {
        protobuf_c_boolean b = *CAT(src, st->arr->off, void *) != NULL;
        put_field(e, st, &b, false);
        return;
    }
    const fl_report *rep = e->r;
    if (st->hook == H_RULES) {
        const fl_report_pass *p = src;
        size_t n = p->first_entry < rep->n_ledger ? rep->n_ledger - p->first_entry : 0;
        n = p->n_entries < n ? p->n_entries : n;
        put_arr(e, st, &ledger_map, rep->ledger + (n ? p->first_entry : 0), n);
    } else if (st->hook == H_OTHER_LEDGER) {
        for (size_t k = rep->n_ledger; k-- > 0 && !e->failed;) {
            if (uncovered(rep, k)) {
                put_elt(e, st, &other_ledger_map, &rep->ledger[k]);
            }
        }
    }
}

/* One row's field (row_to_pb's cases). */
static void put_row(enc *e, const step *st, const void *src) {
    const row *r = st->r;
    const ProtobufCFieldDescriptor *f = st->f;
    const void *val = CAT(src, r->off, void);
    switch (r->k) {
    case K_I64: {
        int64_t v = *(const int64_t *)val;
        put_field(e, st, &v, false);
        break;
    }
    case K_INT: {
        int32_t v = *(const int *)val;
        put_field(e, st, &v, false);
        break;
    }
    case K_BOOL: {
        protobuf_c_boolean v = *(const bool *)val;
        put_field(e, st, &v, false);
        break;
    }
    case K_DOUBLE:
        put_field(e, st, val, false);
        break;
    case K_OPT_DOUBLE:
    case K_OPT_POS: {
        double d = *(const double *)val;
        if (r->k == K_OPT_DOUBLE ? d >= 0 : d > 0) {
            put_field(e, st, &d, true);
        }
        break;
    }
    case K_OPT_I64:
        if (*(const int64_t *)val) {
            put_field(e, st, val, true);
        }
        break;
    case K_STR: {
        const char *v = *(const char *const *)val ? *(const char *const *)val : "";
        put_field(e, st, &v, false);
        break;
    }
    case K_OPT_STR:
        if (*(const char *const *)val) {
            put_field(e, st, val, true);
        }
        break;
    case K_ENUM: {
        int v;
        if (enum_value(st, *(const char *const *)val, &v)) {
            put_field(e, st, &v, false);
        } else if (!r->off2) { /* the second form: the string field carries it */
            enc_fail(e, r->field, *(const char *const *)val);
        }
        break;
    }
    case K_ENUMS:
        put_enums(e, st, src);
        break;
    case K_STRS:
        fl_pbw_repeated(&e->w, f, *(const char *const *const *)val, *CAT(src, r->off2, size_t));
        break;
    case K_I64S: {
        int n = *CAT(src, r->off2, int);
        fl_pbw_repeated(&e->w, f, *(const int64_t *const *)val, n > 0 ? (size_t)n : 0);
        break;
    }
    case K_DOUBLES: {
        const double *v = *(const double *const *)val;
        fl_pbw_repeated(&e->w, f, v, v ? *CAT(src, r->off2, size_t) : 0);
        break;
    }
    case K_BYTES: {
        ProtobufCBinaryData b = {0, (uint8_t *)*(const uint8_t *const *)val};
        b.len = b.data ? *CAT(src, r->off2, size_t) : 0;
        put_field(e, st, &b, false);
        break;
    }
    case K_QTY:
        if (st->plain) {
            put_qty(e, st, val);
        } else {
            put_sub(e, st, r->sub, val);
        }
        break;
    case K_MSG:
    case K_PTR: {
        if (r->k == K_MSG && r->off3 && !*CAT(src, r->off3 - 1, bool)) {
            break;
        }
        const void *sv = r->k == K_PTR ? *(const void *const *)val : val;
        if (sv) {
            put_sub(e, st, r->sub, sv);
        }
        break;
    }
    case K_ARR: {
        const void *arr = *(const void *const *)val;
        put_arr(e, st, r->sub, arr, arr ? *CAT(src, r->off2, size_t) : 0);
        break;
    }
    case K_SHAPE:
        put_shape(e, st, src, r);
        break;
    case K_VERSION: {
        const char *v = e->version ? e->version : "";
        put_field(e, st, &v, false);
        break;
    }
    case K_HOOK:
        put_hook(e, st, src);
        break;
    }
}

/* A varint and st's key before it (F_VARINT*, F_BOOL). */
static inline void put_varint_key(enc *e, const step *st, uint64_t v) {
    fl_pbw *w = &e->w;
    if (!fl_pbw_room(w, 10 + sizeof st->key)) {
        return;
    }
    uint8_t *p = varint_before(w->buf + w->pos, v);
    for (size_t k = st->keylen; k-- > 0;) {
        *--p = st->key[k];
    }
    w->pos = (size_t)(p - w->buf);
}

/* F_STR: a string of n > 0 bytes, its length and st's key. */
static void put_str(enc *e, const step *st, const char *s, size_t n) {
    fl_pbw *w = &e->w;
    if (!fl_pbw_room(w, n + 10 + sizeof st->key)) {
        return;
    }
    uint8_t *p = w->buf + w->pos - n;
    memcpy(p, s, n);
    p = varint_before(p, n);
    for (size_t k = st->keylen; k-- > 0;) {
        *--p = st->key[k];
    }
    w->pos = (size_t)(p - w->buf);
}

/* The most common rows (a Quantity, a plain integer, bool or string) are
 * written here, not through put_row's switch and put_field's generic
 * rules: the calls and the switches cost more than the bytes. Each writes
 * what put_row would (test_report_pb compares every reply's bytes with
 * protobuf-c's). */
static void put_fields(enc *e, const msg_map *m, const void *src) {
    /* Only put_row and a sub-message can fail (an unknown enum name); a
     * write after memory ran out does nothing (fl_pbw_finish fails). */
    for (size_t i = *m->n_steps; i-- > 0;) {
        const step *st = &m->steps[i];
        const void *val = CAT(src, st->r->off, void);
        switch ((fast_kind)st->fast) {
        case F_QTY:
            put_qty(e, st, val);
            break;
        case F_VARINT64:
            if (*(const int64_t *)val) {
                put_varint_key(e, st, *(const uint64_t *)val);
            }
            break;
        case F_VARINT32: /* negative: ten bytes, as int64 */
            if (*(const int *)val) {
                put_varint_key(e, st, (uint64_t)(int64_t) * (const int *)val);
            }
            break;
        case F_BOOL:
            if (*(const bool *)val) {
                put_varint_key(e, st, 1);
            }
            break;
        case F_STR: {
            const char *s = *(const char *const *)val;
            size_t n = s ? strlen(s) : 0;
            if (n) {
                put_str(e, st, s, n);
            }
            break;
        }
        case F_MSG:
            put_elt(e, st, st->r->sub, val);
            if (e->failed || e->w.oom) {
                return;
            }
            break;
        case F_NONE:
            break;
        case F_ROW:
            put_row(e, st, src);
            if (e->failed || e->w.oom) {
                return;
            }
            break;
        }
    }
}

static bool same_qty(const fl_quantity *a, const fl_quantity *b) {
    return a->known == b->known && a->value == b->value && a->text == b->text;
}

/* Equal counts with the same texts (the same pointers: a report's strings
 * do not change while it is written), so the same bytes. */
static bool same_totals(const fl_totals *a, const fl_totals *b) {
    return a->nodes == b->nodes && same_qty(&a->flops, &b->flops) &&
           same_qty(&a->tfprof_flops, &b->tfprof_flops) && same_qty(&a->macs, &b->macs) &&
           same_qty(&a->int_ops, &b->int_ops) && same_qty(&a->bytes, &b->bytes) &&
           same_qty(&a->bytes_read, &b->bytes_read) &&
           same_qty(&a->bytes_written, &b->bytes_written);
}

/* A Totals equal to the last one written is copied from where that one's
 * bytes are instead of written again: a pass record's "before" is the
 * previous record's "after", a pass that changed nothing has equal ones,
 * and the engine gives equal totals the same texts (fl_analyze's
 * totals_memo) - the 14 records of the default passes on a small graph
 * hold two distinct Totals in 28, most of such a reply's bytes. */
static void put_msg(enc *e, const msg_map *m, const void *src) {
    if (m != &totals_map) {
        put_fields(e, m, src);
        return;
    }
    fl_pbw *w = &e->w;
    if (e->tot_set && same_totals(src, &e->tot)) {
        if (fl_pbw_room(w, e->tot_len)) {
            w->pos -= e->tot_len;
            memcpy(w->buf + w->pos, w->buf + (w->cap - e->tot_start), e->tot_len);
        }
        return;
    }
    size_t end = fl_pbw_len(w);
    put_fields(e, m, src);
    if (!e->failed && !w->oom) {
        e->tot = *(const fl_totals *)src;
        e->tot_start = fl_pbw_len(w);
        e->tot_len = e->tot_start - end;
        e->tot_set = true;
    }
}

bool fl_report_encode(const fl_report *r, const char *version, size_t front, uint8_t **block,
                      uint8_t **data, size_t *len, bool *oom, char *err, size_t errlen) {
    pthread_once(&plan_once, plan_init);
    enc e = {.version = version, .err = err, .errlen = errlen, .r = r};
    put_msg(&e, &reply_map, r);
    *oom = false;
    if (e.failed) {
        free(e.w.buf);
        return false;
    }
    if (!fl_pbw_finish(&e.w, front, block, data, len)) {
        *oom = true;
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Proto -> report                                                            */
/* ------------------------------------------------------------------------- */

/* A report built from a reply: the report first, so a report pointer is
 * the holder's. */
typedef struct holder {
    fl_report r;
    fl_pb_arena a;
    Foldline__V1__AnalyzeReply *m;
} holder;

static void from_msg(fl_pb_arena *a, const msg_map *m, const ProtobufCMessage *src, void *dst);

static fl_quantity unknown_quantity(void) {
    fl_quantity q = {false, 0, "?"};
    return q;
}

static void shape_from_pb(fl_pb_arena *a, const Foldline__V1__Shape *s, void *dst, const row *r) {
    const char **text = AT(dst, r->off, const char *);
    int *rank = AT(dst, r->off2, int);
    const fl_quantity **dims = AT(dst, r->off3, const fl_quantity *);
    *text = "?";
    *rank = -1;
    *dims = NULL;
    if (!s || s->unknown_rank) {
        return;
    }
    fl_quantity *d = fl_pb_alloc(a, (s->n_dims + 1) * sizeof(*d));
    size_t len = 3;
    for (size_t i = 0; d && i < s->n_dims; i++) {
        const Foldline__V1__Dim *dm = s->dims[i];
        if (dm->size_case == FOLDLINE__V1__DIM__SIZE_VALUE) {
            char *t = fl_pb_alloc(a, 24);
            if (t) {
                snprintf(t, 24, "%lld", (long long)dm->value);
            }
            d[i] = (fl_quantity){true, dm->value, t ? t : "?"};
        } else if (dm->size_case == FOLDLINE__V1__DIM__SIZE_SYMBOLIC) {
            d[i] = (fl_quantity){false, 0, dm->symbolic};
        } else {
            d[i] = unknown_quantity();
        }
        len += strlen(d[i].text) + 1;
    }
    char *buf = fl_pb_alloc(a, len);
    if (!d || !buf) {
        return;
    }
    size_t o = 0;
    buf[o++] = '[';
    for (size_t i = 0; i < s->n_dims; i++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", d[i].text);
    }
    buf[o++] = ']';
    buf[o] = '\0';
    *text = buf;
    *rank = (int)s->n_dims;
    *dims = d;
}

/* A repeated message into a new array; `present` false gives NULL. */
static void *arr_from_pb(fl_pb_arena *a, const msg_map *m, ProtobufCMessage *const *v, size_t n,
                         bool present) {
    if (!present) {
        return NULL;
    }
    char *arr = fl_pb_alloc(a, (n + 1) * m->size); /* non-NULL also when empty */
    for (size_t i = 0; arr && i < n; i++) {
        from_msg(a, m, v[i], arr + i * m->size);
    }
    return arr;
}

static void row_from_pb(fl_pb_arena *a, const row *r, const ProtobufCMessage *src,
                        const ProtobufCFieldDescriptor *f, void *dst) {
    const void *slot = CAT(src, f->offset, void);
    void *val = AT(dst, r->off, void);
    bool present = is_present(src, f);
    switch (r->k) {
    case K_I64:
        *(int64_t *)val = *(const int64_t *)slot;
        break;
    case K_INT:
        *(int *)val = *(const int32_t *)slot;
        break;
    case K_BOOL:
        *(bool *)val = *(const protobuf_c_boolean *)slot;
        break;
    case K_DOUBLE:
        *(double *)val = *(const double *)slot;
        break;
    case K_OPT_DOUBLE:
        *(double *)val = present ? *(const double *)slot : -1;
        break;
    case K_OPT_POS:
        *(double *)val = present ? *(const double *)slot : 0;
        break;
    case K_OPT_I64:
        *(int64_t *)val = present ? *(const int64_t *)slot : 0;
        break;
    case K_STR:
        *(const char **)val = *(const char *const *)slot ? *(const char *const *)slot : "";
        break;
    case K_OPT_STR:
        *(const char **)val = present ? *(const char *const *)slot : NULL;
        break;
    case K_ENUM:
        if (r->off2 && *(const int *)slot == 0) {
            break; /* a second form of a string field, absent: the string's value stands */
        }
        *(const char **)val = fl_pb_enum_name(a, r->en, r->aux, *(const int *)slot);
        break;
    case K_ENUMS: {
        size_t n = *CAT(src, f->quantifier_offset, size_t);
        const char **names = fl_pb_alloc(a, (n + 1) * sizeof(char *));
        for (size_t i = 0; names && i < n; i++) {
            names[i] = fl_pb_enum_name(a, r->en, r->aux, (*(const int *const *)slot)[i]);
        }
        memcpy(val, &names, sizeof names);
        *AT(dst, r->off2, size_t) = names ? n : 0;
        break;
    }
    case K_STRS:
        memcpy(val, slot, sizeof(char **));
        *AT(dst, r->off2, size_t) = *CAT(src, f->quantifier_offset, size_t);
        break;
    case K_I64S:
        *(const int64_t **)val = *(const int64_t *const *)slot;
        *AT(dst, r->off2, int) = (int)*CAT(src, f->quantifier_offset, size_t);
        break;
    case K_DOUBLES: { /* the count's row comes first (the table's order) */
        size_t n = *CAT(src, f->quantifier_offset, size_t);
        *(const double **)val =
            n && n == *CAT(dst, r->off2, size_t) ? *(const double *const *)slot : NULL;
        break;
    }
    case K_BYTES: {
        const ProtobufCBinaryData *b = slot;
        *(const uint8_t **)val = b->len ? b->data : NULL;
        *AT(dst, r->off2, size_t) = b->len;
        break;
    }
    case K_QTY:
    case K_MSG:
    case K_PTR: {
        const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)slot;
        if (r->k == K_MSG && r->off3) {
            *AT(dst, r->off3 - 1, bool) = sub != NULL;
        }
        if (r->k == K_QTY && !sub) {
            *(fl_quantity *)val = unknown_quantity();
        } else if (r->k == K_PTR) {
            void *p = sub ? fl_pb_alloc(a, r->sub->size) : NULL;
            if (p) {
                from_msg(a, r->sub, sub, p);
            }
            *(void **)val = p;
        } else if (sub) {
            from_msg(a, r->sub, sub, val);
        }
        break;
    }
    case K_ARR: {
        bool has = true;
        if (r->aux) {
            const ProtobufCFieldDescriptor *pf =
                protobuf_c_message_descriptor_get_field_by_name(src->descriptor, r->aux);
            has = *CAT(src, pf->offset, protobuf_c_boolean);
        }
        size_t n = *CAT(src, f->quantifier_offset, size_t);
        *(void **)val = arr_from_pb(a, r->sub, *(ProtobufCMessage *const *const *)slot, n, has);
        *AT(dst, r->off2, size_t) = has ? n : 0;
        break;
    }
    case K_SHAPE:
        shape_from_pb(a, *(const Foldline__V1__Shape *const *)slot, dst, r);
        break;
    case K_VERSION:
    case K_HOOK:
        break;
    }
}

static void from_msg(fl_pb_arena *a, const msg_map *m, const ProtobufCMessage *src, void *dst) {
    for (size_t i = 0; i < m->n_rows; i++) {
        const ProtobufCFieldDescriptor *f = field_of(m, &m->rows[i]);
        if (f) {
            row_from_pb(a, &m->rows[i], src, f, dst);
        }
    }
}

/* The flat ledger: the entries outside the pass records (other_ledger),
 * then every pass record's rules in order. */
static void ledger_from_pb(fl_pb_arena *a, const Foldline__V1__AnalyzeReply *m, fl_report *r) {
    size_t n = m->n_other_ledger;
    for (size_t i = 0; i < m->n_passes; i++) {
        n += m->passes[i]->n_rules;
    }
    fl_report_ledger_entry *es = fl_pb_alloc(a, (n + 1) * sizeof(*es));
    fl_report_pass *ps = (fl_report_pass *)r->passes;
    if (!es || (m->n_passes && !ps)) {
        return;
    }
    size_t k = 0;
    for (; k < m->n_other_ledger; k++) { /* the entries outside the records come first */
        from_msg(a, &other_ledger_map, &m->other_ledger[k]->base, &es[k]);
    }
    for (size_t i = 0; i < m->n_passes; i++) {
        ps[i].first_entry = k;
        ps[i].n_entries = m->passes[i]->n_rules;
        for (size_t j = 0; j < m->passes[i]->n_rules; j++, k++) {
            from_msg(a, &ledger_map, &m->passes[i]->rules[j]->base, &es[k]);
            es[k].pass = ps[i].pass;
        }
    }
    r->ledger = es;
    r->n_ledger = n;
}

fl_report *fl_report_from_pb(Foldline__V1__AnalyzeReply *m) {
    holder *h = calloc(1, sizeof(*h));
    if (!h) {
        foldline__v1__analyze_reply__free_unpacked(m, NULL);
        return NULL;
    }
    h->m = m;
    from_msg(&h->a, &reply_map, &m->base, &h->r);
    ledger_from_pb(&h->a, m, &h->r);
    if (h->a.failed) {
        fl_report_pb_free(&h->r);
        return NULL;
    }
    return &h->r;
}

void fl_report_pb_free(fl_report *r) {
    if (!r) {
        return;
    }
    holder *h = (holder *)r;
    fl_pb_arena_free(&h->a);
    if (h->m) {
        foldline__v1__analyze_reply__free_unpacked(h->m, NULL);
    }
    free(h);
}

/* ------------------------------------------------------------------------- */
/* Self-check                                                                 */
/* ------------------------------------------------------------------------- */

const char *fl_report_pb_check(void) {
    static char what[160];
    for (size_t i = 0; i < N(all_maps); i++) {
        const msg_map *m = all_maps[i];
        for (size_t k = 0; k < m->desc->n_fields; k++) {
            if (!row_named(m, m->desc->fields[k].name)) {
                snprintf(what, sizeof what, "%s.%s (no row)", m->desc->short_name,
                         m->desc->fields[k].name);
                return what;
            }
        }
        for (size_t k = 0; k < m->n_rows; k++) {
            if (!field_of(m, &m->rows[k])) {
                snprintf(what, sizeof what, "%s.%s (no such field)", m->desc->short_name,
                         m->rows[k].field);
                return what;
            }
        }
    }
    return NULL;
}
