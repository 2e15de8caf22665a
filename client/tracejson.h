/*
 * tracejson.h - reads Chrome trace events (a JSON array of them, or an object
 * whose "traceEvents" member is that array: ONNX Runtime's profiling output,
 * TensorFlow's timeline of a traced run) one event at a time, in one pass over the text and without
 * building a tree: `foldline fit` reads tens of MB of them (a trace of 30 runs of vit_b_16 is 22
 * MB), and a tree of allocated values cost it more than the fit itself.
 *
 * The whole text must be JSON as RFC 8259 has it (an object or array at the
 * top, UTF-8, no \u0000 in strings, integers that fit a long long, finite
 * reals, nesting up to TRACE_MAX_DEPTH); the keys read from an event (cat,
 * name, ph, pid, dur, ts, args, args.op_name, args.output_type_shape,
 * args.name, args.op) and the top object's traceEvents must not repeat.
 */
#ifndef FL_CLIENT_TRACEJSON_H
#define FL_CLIENT_TRACEJSON_H

#include <stdbool.h>
#include <stddef.h>

#define TRACE_MAX_DEPTH 1024

/* One element of the events array that is an object. Strings point into the
 * text (decoded in place, NUL-terminated; valid while the text is). */
typedef struct fl_trace_event {
    size_t index;         /* its position in the events array */
    const char *cat;      /* NULL: absent or not a string */
    const char *name;     /* NULL: absent or not a string */
    const char *op_name;  /* args.op_name; NULL: absent or not a string */
    const char *ph;       /* the phase ("X" complete, "M" metadata); NULL: absent or not a string */
    const char *arg_name; /* args.name (TensorFlow: the node; "M" events: the process's
                             name); NULL: absent or not a string */
    const char *arg_op;   /* args.op (TensorFlow: the op type); NULL: absent or not a string */
    bool has_pid;         /* pid is a number */
    double pid;           /* 0 when absent or not a number */
    bool has_dur;         /* dur is a number */
    double dur, ts;       /* 0 when absent or not a number */
    char shape[96];       /* the first output of args.output_type_shape as "[1,64,112,112]"
                             (a dimension that is no integer: -1); "" when absent */
} fl_trace_event;

typedef int (*fl_trace_event_fn)(void *arg, const fl_trace_event *ev);

enum { FL_TRACE_SYNTAX = -1, FL_TRACE_NOT_EVENTS = -2 };

/* Reads text[0, len) (text[len] must be writable: strings are decoded in
 * place and the text is NUL-terminated there) and calls fn for every event
 * object in order; stops when fn returns nonzero and returns that. Else 0,
 * FL_TRACE_SYNTAX (err: "L:C: what", line and column of the fault) when the
 * text is not JSON, or FL_TRACE_NOT_EVENTS when its top is neither an array
 * nor an object with a traceEvents array. */
int fl_trace_scan(char *text, size_t len, fl_trace_event_fn fn, void *arg, char *err,
                  size_t errlen);

#endif
