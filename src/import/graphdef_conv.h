/*
 * graphdef_conv.h - what the two GraphDef readers share (src/import/
 * graphdef.c: the message tree; graphdef_wire.c: straight from the bytes):
 * the conversion of the messages that both decode (TensorProto,
 * TensorShapeProto, NameAttrList, AttrValue.ListValue) into IR attrs, the
 * input-string syntax, and the checks after the inputs are resolved. Every
 * failure names the node and the attr or field.
 */
#ifndef FL_IMPORT_GRAPHDEF_CONV_H
#define FL_IMPORT_GRAPHDEF_CONV_H

#include "import/import.h"
#include "tensorflow/attr_value.pb-c.h"
#include "tensorflow/tensor.pb-c.h"

#include <stdbool.h>

/* How many nodes ahead the import sweeps fetch index slots. */
#define PREFETCH_AHEAD 16

/* One attr being converted. */
typedef struct fl_gd_conv {
    fl_graph *g;
    fl_diag *d;
    const fl_import_opts *o;
    const fl_node *node; /* node being converted, for messages */
    const char *key;     /* the attr's name, for messages */
} fl_gd_conv;

/* A shape (NULL: a scalar); allow_unknown admits unknown rank and -1 dims. */
fl_status fl__gd_shape_lit(fl_gd_conv *cv, const Tensorflow__TensorShapeProto *p,
                           bool allow_unknown, fl_shape_lit *out);

/* A constant. `stripped_bytes` >= 0 marks one whose content was removed
 * (attr _stripped_content_bytes): its value is unknown and its content size
 * is that many bytes. Payloads stay views of the model's bytes. */
fl_status fl__gd_tensor(fl_gd_conv *cv, const Tensorflow__TensorProto *p, int64_t stripped_bytes,
                        const fl_const **out);

fl_status fl__gd_func_ref(fl_gd_conv *cv, const Tensorflow__NameAttrList *p, fl_func_ref *out);

/* A list attr (one element kind; two kinds fail). */
fl_status fl__gd_attr_list(fl_gd_conv *cv, const Tensorflow__AttrValue__ListValue *l, fl_attr *out);

/* A bytes value as an fl_str (a NUL-terminated copy in the arena). */
fl_str fl__gd_bytes_str(fl_arena *a, ProtobufCBinaryData b);

/* Splits "name", "name:port" or "^name" (NUL-terminated). False for a
 * malformed string. *name_len is the length of the node-name part; *port is
 * -1 for control. */
bool fl__gd_parse_input(const char *s, size_t *name_off, size_t *name_len, long *port);

/* Sweep 2, both readers: src's output `port` (-1: a control input) appended
 * to n's inputs (room reserved by the caller); max_port (by node id) keeps
 * the highest port read from each node. */
void fl__gd_add_input(fl_node *n, fl_node *src, long port, int *max_port);

/* Sweep 3 for one node: its data input count checked against its op, and
 * its outputs allocated (an unknown op: as many as its consumers read,
 * max_port + 1, at least one). */
fl_status fl__gd_node_outputs(fl_graph *g, fl_node *n, int max_port, fl_diag *d);

/* Every input reads an output its producer has. */
fl_status fl__gd_check_ports(const fl_graph *g, fl_diag *d);

#endif
