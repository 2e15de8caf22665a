/*
 * onnx_passtest.c - the rewrite-pass harness for ONNX models
 * (onnx_passtest.h).
 */
#include "onnx_passtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pt_run *oxp_pipeline(ob_model *m, const pt_opts *o) {
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_free(m);
    assert_non_null(buf);
    pt_run *r = pt_pipeline_import(fl__import_onnx, buf, len, o);
    free(buf);
    return r;
}

pt_run *oxp_run(ob_model *m, const char *passes) {
    return oxp_pipeline(m, &(pt_opts){.passes = passes});
}

const char *oxp_dump(pt_run *r) {
    fl_graph *g = r->g;
    assert_int_equal(fl__graph_toposort(g, &r->d), FL_OK);
    size_t at = 0;
    r->dump[0] = '\0';
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->order[i];
        if (fl__cost_is_value_node(n)) {
            continue;
        }
        at += (size_t)snprintf(r->dump + at, sizeof r->dump - at, "%s%s=%s(", at ? "; " : "",
                               n->name, n->op);
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_input *in = &n->inputs[k];
            at += (size_t)snprintf(r->dump + at, sizeof r->dump - at, "%s%s", k ? "," : "",
                                   in->node->name);
            if (in->port) {
                at += (size_t)snprintf(r->dump + at, sizeof r->dump - at, ":%d", in->port);
            }
        }
        at += (size_t)snprintf(r->dump + at, sizeof r->dump - at, ")");
        assert_true(at < sizeof r->dump);
    }
    return r->dump;
}

void oxp_expect_graph(pt_run *r, const char *want) {
    const char *got = oxp_dump(r);
    if (strcmp(got, want) != 0) {
        fail_msg("graph\n  got  %s\n  want %s", got, want);
    }
}

int oxp_write_models(const char *dir, oxp_named *ms, size_t n) {
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.onnx", dir, ms[i].name);
        size_t len;
        uint8_t *buf = ob_pack(ms[i].m, &len);
        ob_free(ms[i].m);
        FILE *f = fopen(path, "wb");
        if (!buf || !f || fwrite(buf, 1, len, f) != len) {
            fprintf(stderr, "cannot write %s\n", path);
            rc = 1;
        }
        if (f && fclose(f) != 0) {
            rc = 1;
        }
        free(buf);
    }
    return rc;
}
