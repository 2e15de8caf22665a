/*
 * tftrace.h - TensorFlow's per-node timings of a traced run, read for
 * `foldline fit`: a binary RunMetadata or StepStats message (the engine's
 * wire reader against proto/tensorflow/step_stats.proto), node by node, and
 * the pieces both TensorFlow forms share (a timeline label's op type, which
 * devices are CPUs).
 */
#ifndef FL_CLIENT_TFTRACE_H
#define FL_CLIENT_TFTRACE_H

#include <stdbool.h>
#include <stddef.h>

/* One NodeExecStats. Strings are valid during the callback only. */
typedef struct fl_tf_node {
    size_t index;       /* its position among the message's nodes */
    const char *device; /* DeviceStepStats.device */
    const char *name;   /* node_name */
    char op[128];       /* the op type of timeline_label ("NAME = Op(...)"); "" when absent */
    double dur_us;      /* all_end_rel: the node's whole execution (nanoseconds when set) */
} fl_tf_node;

typedef int (*fl_tf_node_fn)(void *arg, const fl_tf_node *n);

enum { FL_TF_UNDECODED = -1, FL_TF_INVALID = -2 };

/* Decodes buf[0, len) as a RunMetadata and as a StepStats (the two begin
 * alike: of the forms whose device strings read as device names, the one
 * holding more nodes is taken) and calls fn for every node in order (fn
 * NULL: checks them only); stops when fn returns nonzero and returns that.
 * Else 0; FL_TF_UNDECODED with err saying why neither decodes (the message
 * type, field and byte offset where it fails); FL_TF_INVALID when it
 * decodes but a node cannot be read (err names the node and the field: a
 * negative duration, a DeviceStepStats with nodes but no device). */
int fl_tf_stepstats_scan(const unsigned char *buf, size_t len, fl_tf_node_fn fn, void *arg,
                         char *err, size_t errlen);

/* The op type of a TensorFlow timeline label "NAME = Op(inputs)" into
 * op[size] ("" when the label has no " = " followed by "(" ). */
void fl_tf_label_op(const char *label, char *op, size_t size);

/* Whether a TensorFlow device name is a CPU's ("/job:localhost/replica:0/
 * task:0/device:CPU:0", "/cpu:0", timeline's ".../device:CPU:0 Compute"). */
bool fl_tf_device_is_cpu(const char *device);

#endif
