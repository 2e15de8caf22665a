/*
 * tftrace.c - TensorFlow's step stats read for `foldline fit` (tftrace.h).
 */
#include "tftrace.h"

#include "foldline/wire.h"
#include "tensorflow/step_stats.pb-c.h"

#include <stdio.h>
#include <string.h>

void fl_tf_label_op(const char *label, char *op, size_t size) {
    const char *eq = label ? strstr(label, " = ") : NULL;
    const char *open = eq ? strchr(eq + 3, '(') : NULL;
    size_t n = open ? (size_t)(open - (eq + 3)) : 0;
    snprintf(op, size, "%.*s", (int)n, n ? eq + 3 : "");
}

bool fl_tf_device_is_cpu(const char *device) {
    return device && (strstr(device, "CPU:") || strstr(device, "cpu:"));
}

/* Whether every device of s reads as a device name (empty, or printable
 * ASCII beginning with '/'): a StepStats decoded as RunMetadata or the other
 * way round has message bytes there. */
static bool devices_named(const Tensorflow__StepStats *s) {
    for (size_t i = 0; s && i < s->n_dev_stats; i++) {
        const char *d = s->dev_stats[i]->device;
        if (d && d[0] && d[0] != '/') {
            return false;
        }
        for (; d && *d; d++) {
            if ((unsigned char)*d < 0x20 || (unsigned char)*d >= 0x7f) {
                return false;
            }
        }
    }
    return true;
}

static void wire_error(const fl_wire_error *we, char *err, size_t errlen) {
    if (we->oom) {
        snprintf(err, errlen, "out of memory");
    } else {
        snprintf(err, errlen, "%s%s%s at byte %zu: %s", we->message ? we->message : "?",
                 we->field ? "." : "", we->field ? we->field : "", we->offset,
                 we->what ? we->what : "malformed");
    }
}

int fl_tf_stepstats_scan(const unsigned char *buf, size_t len, fl_tf_node_fn fn, void *arg,
                         char *err, size_t errlen) {
    fl_wire_msgs *m = fl_wire_msgs_new();
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    fl_wire_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    const Tensorflow__RunMetadata *rm = (const Tensorflow__RunMetadata *)fl_wire_unpack(
        m, &tensorflow__run_metadata__descriptor, buf, len, &e1);
    const Tensorflow__StepStats *s = rm ? rm->step_stats : NULL;
    if (!rm || !s || !devices_named(s)) {
        s = (const Tensorflow__StepStats *)fl_wire_unpack(m, &tensorflow__step_stats__descriptor,
                                                          buf, len, &e2);
        if (!s || !devices_named(s)) {
            /* the form that read further says best what is wrong */
            if (s || (rm && !rm->step_stats)) {
                snprintf(err, errlen, "no device names where RunMetadata or StepStats has them");
            } else {
                wire_error(!rm && e1.offset > e2.offset ? &e1 : &e2, err, errlen);
            }
            fl_wire_msgs_free(m);
            return -1;
        }
    }
    int rc = 0;
    size_t index = 0;
    for (size_t d = 0; !rc && d < s->n_dev_stats; d++) {
        const Tensorflow__DeviceStepStats *ds = s->dev_stats[d];
        for (size_t i = 0; !rc && i < ds->n_node_stats; i++, index++) {
            const Tensorflow__NodeExecStats *ns = ds->node_stats[i];
            fl_tf_node n;
            memset(&n, 0, sizeof n);
            n.index = index;
            n.device = ds->device ? ds->device : "";
            n.name = ns->node_name ? ns->node_name : "";
            fl_tf_label_op(ns->timeline_label, n.op, sizeof n.op);
            bool nanos = ns->all_end_rel_nanos != 0;
            int64_t d_raw = nanos ? ns->all_end_rel_nanos : ns->all_end_rel_micros;
            if (d_raw < 0) {
                snprintf(err, errlen, "node %zu (%s on %s): all_end_rel_%s is negative (%lld)",
                         index, n.name, n.device, nanos ? "nanos" : "micros", (long long)d_raw);
                rc = -1;
                break;
            }
            n.dur_us = nanos ? (double)d_raw * 1e-3 : (double)d_raw;
            rc = fn ? fn(arg, &n) : 0;
        }
    }
    fl_wire_msgs_free(m);
    return rc;
}
