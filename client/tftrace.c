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

/* The NodeExecStats a StepStats holds. */
static size_t count_nodes(const Tensorflow__StepStats *s) {
    size_t n = 0;
    for (size_t i = 0; s && i < s->n_dev_stats; i++) {
        n += s->dev_stats[i]->n_node_stats;
    }
    return n;
}

int fl_tf_stepstats_scan(const unsigned char *buf, size_t len, fl_tf_node_fn fn, void *arg,
                         char *err, size_t errlen) {
    fl_wire_msgs *m = fl_wire_msgs_new();
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return FL_TF_UNDECODED;
    }
    fl_wire_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    /* Both forms are decoded: a StepStats whose first DeviceStepStats has
       no device (field 2 first) also decodes as a RunMetadata, its nodes
       then unknown fields of an empty StepStats; of the forms whose device
       strings read as names, the one holding more nodes is taken (a tie:
       RunMetadata). */
    const Tensorflow__RunMetadata *rm = (const Tensorflow__RunMetadata *)fl_wire_unpack(
        m, &tensorflow__run_metadata__descriptor, buf, len, &e1);
    const Tensorflow__StepStats *s1 =
        rm && rm->step_stats && devices_named(rm->step_stats) ? rm->step_stats : NULL;
    const Tensorflow__StepStats *s2 = (const Tensorflow__StepStats *)fl_wire_unpack(
        m, &tensorflow__step_stats__descriptor, buf, len, &e2);
    bool named2 = s2 && devices_named(s2);
    const Tensorflow__StepStats *s = s1 && (!named2 || count_nodes(s1) >= count_nodes(s2)) ? s1
                                     : named2                                              ? s2
                                                                                           : NULL;
    if (!s) {
        /* the form that read further says best what is wrong */
        if (s2 || (rm && !rm->step_stats)) {
            snprintf(err, errlen, "no device names where RunMetadata or StepStats has them");
        } else if (e1.oom || e2.oom) {
            snprintf(err, errlen, "out of memory");
        } else {
            wire_error(!rm && e1.offset > e2.offset ? &e1 : &e2, err, errlen);
        }
        fl_wire_msgs_free(m);
        return FL_TF_UNDECODED;
    }
    const char *form = s == s1 ? "RunMetadata.step_stats" : "StepStats";
    int rc = 0;
    size_t index = 0;
    for (size_t d = 0; !rc && d < s->n_dev_stats; d++) {
        const Tensorflow__DeviceStepStats *ds = s->dev_stats[d];
        if (ds->n_node_stats && (!ds->device || !ds->device[0])) {
            snprintf(err, errlen,
                     "%s.dev_stats[%zu] has %zu nodes (node %zu, %s, the first) but no device "
                     "(DeviceStepStats.device): whether they ran on a CPU is unknown",
                     form, d, ds->n_node_stats, index,
                     ds->node_stats[0]->node_name ? ds->node_stats[0]->node_name : "");
            rc = FL_TF_INVALID;
            break;
        }
        for (size_t i = 0; !rc && i < ds->n_node_stats; i++, index++) {
            const Tensorflow__NodeExecStats *ns = ds->node_stats[i];
            fl_tf_node n;
            memset(&n, 0, sizeof n);
            n.index = index;
            n.device = ds->device;
            n.name = ns->node_name ? ns->node_name : "";
            fl_tf_label_op(ns->timeline_label, n.op, sizeof n.op);
            bool nanos = ns->all_end_rel_nanos != 0;
            int64_t d_raw = nanos ? ns->all_end_rel_nanos : ns->all_end_rel_micros;
            if (d_raw < 0) {
                snprintf(err, errlen,
                         "node %zu (%s on %s): NodeExecStats.all_end_rel_%s is negative (%lld)",
                         index, n.name, n.device, nanos ? "nanos" : "micros", (long long)d_raw);
                rc = FL_TF_INVALID;
                break;
            }
            n.dur_us = nanos ? (double)d_raw * 1e-3 : (double)d_raw;
            rc = fn ? fn(arg, &n) : 0;
        }
    }
    fl_wire_msgs_free(m);
    return rc;
}
