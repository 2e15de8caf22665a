/*
 * test_report_pb.c - the report <-> AnalyzeReply mapping (proto/glue/report_pb.c)
 * round-trips: report -> AnalyzeReply -> bytes -> AnalyzeReply -> report
 * gives a report equal to the engine's, field by field, on real reports.
 *
 * The comparison below is written out by hand, struct by struct, from
 * include/foldline/foldline.h (not from the mapping's tables), so a field the
 * tables forget shows up as a difference. The mapping's own self-check
 * (every proto field mapped, every row a real field) runs too.
 *
 *   test_report_pb          tests/data's models (TensorFlow and ONNX), with
 *                           per-node detail, the passes, the optimised graph
 *                           and every shipped profile
 *   test_report_pb corpus   every model of the shared corpus (exit 77, shown
 *                           as skipped, when it is absent)
 *
 * Every packed reply is also encoded by fl_pb_encode (proto/glue/pbenc.c)
 * and written straight from its report by fl_report_encode (what foldlined
 * sends), which must both give protobuf-c's bytes exactly, also without
 * per-node detail, without the passes and with an input of rank 10;
 * fl_pb_encode must also on a hand-described message with a field of every
 * type and label. A name the proto's enums lack fails both report encoders
 * with the same message.
 */
#include "foldline/foldline.h"
#include "pbenc.h"
#include "report_pb.h"

#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
/* Estimates with the refill after streaming kernels, per op (fl_profile.streamed). */
static int n_streamed;
/* Estimates with the run's gap as a share of kernel time (fl_profile.gap). */
static int n_gap;
static const char *where; /* the model being checked */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", where);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* ------------------------------------------------------------------------- */
/* Field-by-field equality                                                    */
/* ------------------------------------------------------------------------- */

static void eq_str(const char *what, const char *a, const char *b) {
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
        fail("%s: '%s' vs '%s'", what, a ? a : "(null)", b ? b : "(null)");
    }
}

static void eq_i64(const char *what, int64_t a, int64_t b) {
    if (a != b) {
        fail("%s: %lld vs %lld", what, (long long)a, (long long)b);
    }
}

static void eq_dbl(const char *what, double a, double b) {
    if (memcmp(&a, &b, sizeof a) != 0) {
        fail("%s: %.17g vs %.17g", what, a, b);
    }
}

static void eq_q(const char *what, const fl_quantity *a, const fl_quantity *b) {
    eq_i64(what, a->known, b->known);
    eq_i64(what, a->value, b->value);
    eq_str(what, a->text, b->text);
}

static void eq_strs(const char *what, const char *const *a, size_t na, const char *const *b,
                    size_t nb) {
    eq_i64(what, (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na && i < nb; i++) {
        eq_str(what, a[i], b[i]);
    }
}

static void eq_totals(const char *what, const fl_totals *a, const fl_totals *b) {
    eq_q(what, &a->flops, &b->flops);
    eq_q(what, &a->tfprof_flops, &b->tfprof_flops);
    eq_q(what, &a->macs, &b->macs);
    eq_q(what, &a->bytes, &b->bytes);
    eq_q(what, &a->bytes_read, &b->bytes_read);
    eq_q(what, &a->bytes_written, &b->bytes_written);
    eq_i64(what, a->nodes, b->nodes);
}

static void eq_shape(const char *what, const char *sa, int ra, const fl_quantity *da,
                     const char *sb, int rb, const fl_quantity *db) {
    eq_str(what, sa, sb);
    eq_i64(what, ra, rb);
    eq_i64(what, da == NULL, db == NULL);
    for (int i = 0; da && db && i < ra && i < rb; i++) {
        eq_q(what, &da[i], &db[i]);
    }
}

static void eq_nodes(const char *what, const fl_report_node *a, size_t na, const fl_report_node *b,
                     size_t nb) {
    eq_i64(what, a == NULL, b == NULL);
    eq_i64(what, (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na && i < nb; i++) {
        eq_str(what, a[i].name, b[i].name);
        eq_str(what, a[i].op, b[i].op);
        eq_i64(what, (int64_t)a[i].n_outputs, (int64_t)b[i].n_outputs);
        for (size_t k = 0; k < a[i].n_outputs && k < b[i].n_outputs; k++) {
            const fl_report_tensor *x = &a[i].outputs[k], *y = &b[i].outputs[k];
            eq_str(what, x->dtype, y->dtype);
            eq_shape(what, x->shape, x->rank, x->dims, y->shape, y->rank, y->dims);
        }
        eq_q(what, &a[i].flops, &b[i].flops);
        eq_q(what, &a[i].tfprof_flops, &b[i].tfprof_flops);
        eq_q(what, &a[i].macs, &b[i].macs);
        eq_q(what, &a[i].bytes, &b[i].bytes);
        eq_i64(what, a[i].has_rule, b[i].has_rule);
        eq_i64(what, a[i].incomplete, b[i].incomplete);
    }
}

static void eq_ops(const char *what, const fl_report_op *a, size_t na, const fl_report_op *b,
                   size_t nb) {
    eq_i64(what, (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na && i < nb; i++) {
        eq_str(what, a[i].op, b[i].op);
        eq_i64(what, a[i].count, b[i].count);
        eq_q(what, &a[i].flops, &b[i].flops);
        eq_q(what, &a[i].tfprof_flops, &b[i].tfprof_flops);
    }
}

static void eq_roof_nodes(const char *what, const fl_roofline_node *a, size_t na,
                          const fl_roofline_node *b, size_t nb) {
    eq_i64(what, a == NULL, b == NULL);
    eq_i64(what, (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na && i < nb; i++) {
        eq_str(what, a[i].name, b[i].name);
        eq_str(what, a[i].op, b[i].op);
        eq_str(what, a[i].unit, b[i].unit);
        eq_str(what, a[i].dtype, b[i].dtype);
        eq_str(what, a[i].level, b[i].level);
        eq_dbl(what, a[i].flops, b[i].flops);
        eq_dbl(what, a[i].bytes, b[i].bytes);
        eq_dbl(what, a[i].intensity, b[i].intensity);
        eq_dbl(what, a[i].compute_s, b[i].compute_s);
        eq_dbl(what, a[i].memory_s, b[i].memory_s);
        eq_dbl(what, a[i].overhead_s, b[i].overhead_s);
        eq_dbl(what, a[i].time_s, b[i].time_s);
        eq_dbl(what, a[i].upper_s, b[i].upper_s);
        eq_str(what, a[i].bound, b[i].bound);
        eq_str(what, a[i].op_class, b[i].op_class);
        eq_str(what, a[i].bucket, b[i].bucket);
        eq_dbl(what, a[i].fixed_s, b[i].fixed_s);
        eq_dbl(what, a[i].compute_peak_s, b[i].compute_peak_s);
        eq_dbl(what, a[i].memory_peak_s, b[i].memory_peak_s);
        eq_i64(what, a[i].executed, b[i].executed);
        eq_dbl(what, a[i].channels, b[i].channels);
        eq_dbl(what, a[i].channel_time_s, b[i].channel_time_s);
        eq_i64(what, a[i].broadcast, b[i].broadcast);
        eq_dbl(what, a[i].broadcast_time_s, b[i].broadcast_time_s);
    }
}

static void eq_roof_graph(const char *what, const fl_roofline_graph *a,
                          const fl_roofline_graph *b) {
    eq_i64(what, a == NULL, b == NULL);
    if (!a || !b) {
        return;
    }
    eq_dbl(what, a->time_s, b->time_s);
    eq_dbl(what, a->upper_s, b->upper_s);
    eq_dbl(what, a->compute_s, b->compute_s);
    eq_dbl(what, a->memory_s, b->memory_s);
    eq_dbl(what, a->overhead_s, b->overhead_s);
    eq_i64(what, a->ops_compute_bound, b->ops_compute_bound);
    eq_i64(what, a->ops_memory_bound, b->ops_memory_bound);
    eq_i64(what, a->ops_overhead_bound, b->ops_overhead_bound);
    eq_i64(what, a->ops_costed, b->ops_costed);
    eq_i64(what, a->calibrated, b->calibrated);
    eq_dbl(what, a->low_s, b->low_s);
    eq_dbl(what, a->high_s, b->high_s);
    eq_dbl(what, a->coverage, b->coverage);
    eq_roof_nodes("roofline top", a->top, a->n_top, b->top, b->n_top);
    eq_roof_nodes("roofline nodes", a->nodes, a->n_nodes, b->nodes, b->n_nodes);
    eq_dbl("roofline streamed_s", a->streamed_s, b->streamed_s);
    eq_dbl("roofline gap_s", a->gap_s, b->gap_s);
    eq_dbl("roofline gap_share", a->gap_share, b->gap_share);
    eq_str("roofline gap_source", a->gap_source, b->gap_source);
    const double *av[3] = {a->node_evicted_bytes, a->node_streamed_s, a->node_gap_s};
    const double *bv[3] = {b->node_evicted_bytes, b->node_streamed_s, b->node_gap_s};
    for (int k = 0; k < 3; k++) {
        const char *w = k == 2 ? "roofline node_gap_s"
                        : k    ? "roofline node_streamed_s"
                               : "roofline node_evicted_bytes";
        eq_i64(w, av[k] == NULL, bv[k] == NULL);
        for (size_t i = 0; av[k] && bv[k] && i < a->n_nodes && i < b->n_nodes; i++) {
            eq_dbl(w, av[k][i], bv[k][i]);
        }
    }
    n_streamed += a->streamed_s > 0 && a->node_streamed_s && a->n_nodes > 0;
    n_gap += a->gap_s > 0 && a->node_gap_s && a->gap_source && a->n_nodes > 0;
}

static void eq_options(const fl_report_options *a, const fl_report_options *b) {
    eq_str("options.format", a->format, b->format);
    eq_str("options.saved_model_tag", a->saved_model_tag, b->saved_model_tag);
    eq_i64("options.inputs", (int64_t)a->n_inputs, (int64_t)b->n_inputs);
    for (size_t i = 0; i < a->n_inputs && i < b->n_inputs; i++) {
        eq_str("options.inputs", a->inputs[i].name, b->inputs[i].name);
        eq_i64("options.inputs", a->inputs[i].rank, b->inputs[i].rank);
        for (int k = 0; k < a->inputs[i].rank && k < b->inputs[i].rank; k++) {
            eq_i64("options.inputs", a->inputs[i].dims[k], b->inputs[i].dims[k]);
        }
    }
    eq_i64("options.symbols", (int64_t)a->n_symbols, (int64_t)b->n_symbols);
    for (size_t i = 0; i < a->n_symbols && i < b->n_symbols; i++) {
        eq_str("options.symbols", a->symbols[i].name, b->symbols[i].name);
        eq_i64("options.symbols", a->symbols[i].value, b->symbols[i].value);
    }
    eq_i64("options.values", (int64_t)a->n_values, (int64_t)b->n_values);
    for (size_t i = 0; i < a->n_values && i < b->n_values; i++) {
        eq_str("options.values", a->values[i].name, b->values[i].name);
        eq_dbl("options.values", a->values[i].value, b->values[i].value);
    }
    eq_str("options.pass_selection", a->pass_selection, b->pass_selection);
    eq_strs("options.passes", a->passes, a->n_passes, b->passes, b->n_passes);
    eq_strs("options.disabled_passes", a->disabled_passes, a->n_disabled_passes, b->disabled_passes,
            b->n_disabled_passes);
    eq_strs("options.outputs", a->output_names, a->n_output_names, b->output_names,
            b->n_output_names);
    eq_str("options.device", a->device, b->device);
    eq_str("options.remapper_mode", a->remapper_mode, b->remapper_mode);
    eq_i64("options.cudnn", a->cudnn_persistent_batchnorm, b->cudnn_persistent_batchnorm);
    eq_i64("options.max_nodes", a->max_nodes, b->max_nodes);
    eq_i64("options.max_value_elements", a->max_value_elements, b->max_value_elements);
    eq_i64("options.max_memory_bytes", a->max_memory_bytes, b->max_memory_bytes);
    eq_i64("options.max_folded_bytes", a->max_folded_bytes, b->max_folded_bytes);
    eq_i64("options.profiles", (int64_t)a->n_profiles, (int64_t)b->n_profiles);
    for (size_t i = 0; i < a->n_profiles && i < b->n_profiles; i++) {
        eq_str("options.profiles", a->profiles[i].name, b->profiles[i].name);
        eq_str("options.profiles", a->profiles[i].hash, b->profiles[i].hash);
    }
}

static void eq_passes(const fl_report *a, const fl_report *b) {
    eq_i64("optimized", a->optimized, b->optimized);
    eq_totals("before", &a->before, &b->before);
    eq_totals("after", &a->after, &b->after);
    eq_i64("passes", (int64_t)a->n_passes, (int64_t)b->n_passes);
    for (size_t i = 0; i < a->n_passes && i < b->n_passes; i++) {
        const fl_report_pass *x = &a->passes[i], *y = &b->passes[i];
        eq_str("pass", x->pass, y->pass);
        eq_i64("pass.iteration", x->iteration, y->iteration);
        eq_i64("pass.nodes_removed", x->nodes_removed, y->nodes_removed);
        eq_i64("pass.nodes_added", x->nodes_added, y->nodes_added);
        eq_i64("pass.nodes_rewritten", x->nodes_rewritten, y->nodes_rewritten);
        eq_totals("pass.before", &x->before, &y->before);
        eq_totals("pass.after", &x->after, &y->after);
        eq_i64("pass.first_entry", (int64_t)x->first_entry, (int64_t)y->first_entry);
        eq_i64("pass.n_entries", (int64_t)x->n_entries, (int64_t)y->n_entries);
        eq_str("pass.failed", x->failed, y->failed);
    }
    eq_i64("ledger", (int64_t)a->n_ledger, (int64_t)b->n_ledger);
    for (size_t i = 0; i < a->n_ledger && i < b->n_ledger; i++) {
        eq_str("ledger.pass", a->ledger[i].pass, b->ledger[i].pass);
        eq_str("ledger.rule", a->ledger[i].rule, b->ledger[i].rule);
        eq_str("ledger.node", a->ledger[i].node, b->ledger[i].node);
        eq_str("ledger.detail", a->ledger[i].detail, b->ledger[i].detail);
    }
    eq_i64("graph_len", (int64_t)a->graph_len, (int64_t)b->graph_len);
    eq_i64("graph_bytes", a->graph_bytes == NULL, b->graph_bytes == NULL);
    if (a->graph_bytes && b->graph_bytes && a->graph_len == b->graph_len &&
        memcmp(a->graph_bytes, b->graph_bytes, a->graph_len) != 0) {
        fail("graph_bytes differ");
    }
    eq_nodes("nodes_after", a->nodes_after, a->n_nodes_after, b->nodes_after, b->n_nodes_after);
}

static void eq_phase(const char *what, const fl_llm_phase *a, const fl_llm_phase *b) {
    eq_i64(what, a->past, b->past);
    eq_i64(what, a->seq, b->seq);
    eq_i64(what, a->tokens, b->tokens);
    eq_i64(what, a->flops, b->flops);
    eq_i64(what, a->macs, b->macs);
    eq_i64(what, a->int_ops, b->int_ops);
    eq_i64(what, a->bytes, b->bytes);
    eq_i64(what, a->kv_bytes, b->kv_bytes);
    eq_dbl(what, a->flops_per_token, b->flops_per_token);
    eq_dbl(what, a->macs_per_token, b->macs_per_token);
    eq_dbl(what, a->bytes_per_token, b->bytes_per_token);
    eq_dbl(what, a->intensity, b->intensity);
}

static void eq_llm_roofline(const char *what, const fl_llm_roofline *a, size_t na,
                            const fl_llm_roofline *b, size_t nb) {
    eq_i64(what, (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na && i < nb; i++) {
        const fl_llm_roofline *x = &a[i], *y = &b[i];
        eq_str(what, x->profile, y->profile);
        eq_i64(what, x->calibrated, y->calibrated);
        const fl_llm_time *tx[2] = {&x->prefill, &x->decode}, *ty[2] = {&y->prefill, &y->decode};
        for (int k = 0; k < 2; k++) {
            eq_dbl(what, tx[k]->time_s, ty[k]->time_s);
            eq_dbl(what, tx[k]->time_per_token_s, ty[k]->time_per_token_s);
            eq_str(what, tx[k]->bound, ty[k]->bound);
        }
    }
}

static void eq_llm(const fl_report_llm *a, const fl_report_llm *b) {
    eq_i64("llm", a == NULL, b == NULL);
    if (!a || !b) {
        return;
    }
    eq_i64("llm.prompt", a->prompt, b->prompt);
    eq_i64("llm.context", a->context, b->context);
    eq_str("llm.seq_symbol", a->seq_symbol, b->seq_symbol);
    eq_str("llm.past_symbol", a->past_symbol, b->past_symbol);
    eq_str("llm.token_input", a->token_input, b->token_input);
    eq_strs("llm.total_symbols", a->total_symbols, a->n_total_symbols, b->total_symbols,
            b->n_total_symbols);
    eq_strs("llm.other_symbols", a->other_symbols, a->n_other_symbols, b->other_symbols,
            b->n_other_symbols);
    eq_i64("llm.kv_inputs", a->kv_inputs, b->kv_inputs);
    eq_phase("llm.prefill", &a->prefill, &b->prefill);
    eq_phase("llm.decode", &a->decode, &b->decode);
    eq_dbl("llm.kv_bytes_per_token", a->kv_bytes_per_token, b->kv_bytes_per_token);
    eq_dbl("llm.kv_bytes_at_context", a->kv_bytes_at_context, b->kv_bytes_at_context);
    eq_llm_roofline("llm.roofline", a->roofline, a->n_roofline, b->roofline, b->n_roofline);
    eq_i64("llm.after", a->after == NULL, b->after == NULL);
    if (a->after && b->after) {
        eq_phase("llm.after.prefill", &a->after->prefill, &b->after->prefill);
        eq_phase("llm.after.decode", &a->after->decode, &b->after->decode);
        eq_llm_roofline("llm.after.roofline", a->after->roofline, a->after->n_roofline,
                        b->after->roofline, b->after->n_roofline);
    }
}

static void eq_report(const fl_report *a, const fl_report *b) {
    eq_str("format", a->format, b->format);
    eq_i64("producer", a->producer, b->producer);
    eq_str("producer_name", a->producer_name, b->producer_name);
    eq_str("producer_version", a->producer_version, b->producer_version);
    eq_i64("opset", a->opset, b->opset);
    eq_i64("n_initializers", a->n_initializers, b->n_initializers);
    eq_i64("n_nodes", a->n_nodes, b->n_nodes);
    eq_i64("n_functions", a->n_functions, b->n_functions);
    eq_i64("n_function_nodes", a->n_function_nodes, b->n_function_nodes);
    eq_i64("inputs", (int64_t)a->n_inputs, (int64_t)b->n_inputs);
    for (size_t i = 0; i < a->n_inputs && i < b->n_inputs; i++) {
        const fl_report_input *x = &a->inputs[i], *y = &b->inputs[i];
        eq_str("input.name", x->name, y->name);
        eq_str("input.dtype", x->dtype, y->dtype);
        eq_shape("input.shape", x->shape, x->rank, x->dims, y->shape, y->rank, y->dims);
    }
    eq_strs("outputs", a->outputs, a->n_outputs, b->outputs, b->n_outputs);
    eq_strs("symbols", a->symbols, a->n_symbols, b->symbols, b->n_symbols);
    eq_totals("totals", &a->totals, &b->totals);
    eq_i64("nodes_with_rule", a->nodes_with_rule, b->nodes_with_rule);
    eq_i64("nodes_without_rule", a->nodes_without_rule, b->nodes_without_rule);
    eq_i64("nodes_incomplete", a->nodes_incomplete, b->nodes_incomplete);
    eq_dbl("bytes_share_without_rule", a->bytes_share_without_rule, b->bytes_share_without_rule);
    eq_i64("complete", a->complete, b->complete);
    eq_i64("nodes_excluded", a->nodes_excluded, b->nodes_excluded);
    eq_ops("unknown_ops", a->unknown_ops, a->n_unknown_ops, b->unknown_ops, b->n_unknown_ops);
    eq_ops("ops", a->ops, a->n_ops, b->ops, b->n_ops);
    eq_strs("warnings", a->warnings, a->n_warnings, b->warnings, b->n_warnings);
    eq_nodes("nodes", a->nodes, a->n_nodes_detail, b->nodes, b->n_nodes_detail);
    eq_options(&a->options, &b->options);
    eq_i64("roofline", (int64_t)a->n_roofline, (int64_t)b->n_roofline);
    for (size_t i = 0; i < a->n_roofline && i < b->n_roofline; i++) {
        eq_str("roofline.profile", a->roofline[i].profile, b->roofline[i].profile);
        eq_roof_graph("roofline.before", a->roofline[i].before, b->roofline[i].before);
        eq_roof_graph("roofline.after", a->roofline[i].after, b->roofline[i].after);
        eq_dbl("roofline.speedup", a->roofline[i].speedup, b->roofline[i].speedup);
    }
    eq_passes(a, b);
    eq_llm(a->llm, b->llm);
}

/* ------------------------------------------------------------------------- */
/* Round trip                                                                 */
/* ------------------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    return buf;
}

/* RooflineNode.op_class_kind: the enum of op_class's name, never
 * unspecified. Then, on the unpacked reply, every other node loses the
 * enum (a sender without the field: the string stands) and the rest lose
 * the string (a reader takes the enum): the report read back must still
 * equal the original. */
static void op_class_kinds(Foldline__V1__AnalyzeReply *m) {
    for (size_t i = 0; i < m->n_roofline; i++) {
        Foldline__V1__RooflineGraph *g[2] = {m->roofline[i]->before, m->roofline[i]->after};
        for (int w = 0; w < 2; w++) {
            for (size_t k = 0; g[w] && k < g[w]->n_top; k++) {
                Foldline__V1__RooflineNode *n = g[w]->top[k];
                int v = -1;
                if (!fl_pb_enum_value(&foldline__v1__op_class__descriptor, "OP_CLASS_", n->op_class,
                                      &v) ||
                    v == 0 || (int)n->op_class_kind != v) {
                    fail("op_class_kind %d for op_class '%s'", (int)n->op_class_kind, n->op_class);
                }
                if (k % 2) {
                    n->op_class[0] = '\0'; /* in place: the message owns it */
                } else {
                    n->op_class_kind = FOLDLINE__V1__OP_CLASS__OP_CLASS_UNSPECIFIED;
                }
            }
        }
    }
}

/* fl_pb_encode's bytes of m against protobuf-c's `len` bytes at `want`. */
static void same_encoding(const ProtobufCMessage *m, const uint8_t *want, size_t len) {
    uint8_t *block, *data;
    size_t n;
    if (!fl_pb_encode(m, 8, &block, &data, &n)) {
        fail("fl_pb_encode: out of memory");
        return;
    }
    if (n != len || memcmp(data, want, n) != 0) {
        size_t at = 0;
        while (at < n && at < len && data[at] == want[at]) {
            at++;
        }
        fail("fl_pb_encode: %zu bytes, protobuf-c %zu; first difference at byte %zu", n, len, at);
    }
    data[-8] = 1; /* the front bytes are the caller's (ASan: inside the block) */
    free(block);
}

static int n_direct; /* replies fl_report_encode wrote */

/* fl_report_encode's bytes of r (what foldlined sends) against protobuf-c's
 * `len` bytes at `want`, packed from fl_report_to_pb's message. */
static void same_direct(const fl_report *r, const uint8_t *want, size_t len) {
    uint8_t *block, *data;
    size_t n;
    bool oom;
    char err[256];
    if (!fl_report_encode(r, "test", 8, &block, &data, &n, &oom, err, sizeof err)) {
        fail("fl_report_encode: %s", err);
        return;
    }
    if (n != len || memcmp(data, want, n) != 0) {
        size_t at = 0;
        while (at < n && at < len && data[at] == want[at]) {
            at++;
        }
        fail("fl_report_encode: %zu bytes, protobuf-c %zu; first difference at byte %zu", n, len,
             at);
    }
    data[-8] = 1; /* the front bytes are the caller's (ASan: inside the block) */
    free(block);
    n_direct++;
}

/* A name the proto's enums lack fails both encoders with the same message. */
static void bad_name(const fl_report *r) {
    static const char *const bad_pass[] = {"cse", "no_such_pass"};
    for (int k = 0; k < 3; k++) {
        fl_report b = *r;
        const char *want = "";
        if (k == 0) {
            b.options.device = "no_such_device";
            want = "device: no value for 'no_such_device'";
        } else if (k == 1) {
            b.options.passes = bad_pass;
            b.options.n_passes = 2;
            want = "passes: no value for 'no_such_pass'";
        } else {
            b.format = NULL;
            want = "format: no value for '(null)'";
        }
        fl_pb_arena a = {0};
        Foldline__V1__AnalyzeReply m = FOLDLINE__V1__ANALYZE_REPLY__INIT;
        char e1[256] = "", e2[256] = "";
        uint8_t *block, *data;
        size_t n;
        bool oom = true;
        if (fl_report_to_pb(&b, "test", &a, &m, e1, sizeof e1) ||
            fl_report_encode(&b, "test", 8, &block, &data, &n, &oom, e2, sizeof e2)) {
            fail("a report with a bad name (case %d) encoded", k);
        } else if (strcmp(e1, want) != 0 || strcmp(e2, want) != 0 || oom) {
            fail("bad name (case %d): '%s' and '%s', want '%s'", k, e1, e2, want);
        }
        fl_pb_arena_free(&a);
    }
}

static void round_trip(const fl_report *r);

/* fl_report_encode writes a Totals equal to the one it wrote before once
 * and copies its bytes: a pass record's "before" made equal to its "after"
 * (written just before it, back to front) and then changed in one count's
 * text, value or known flag, or in its node count, must still give
 * protobuf-c's bytes. */
static void totals_variants(const fl_report *r) {
    if (r->n_passes == 0) {
        return;
    }
    fl_report_pass *ps = malloc(r->n_passes * sizeof *ps);
    if (!ps) {
        fail("out of memory");
        return;
    }
    for (int k = 0; k < 6; k++) {
        memcpy(ps, r->passes, r->n_passes * sizeof *ps);
        fl_report_pass *p = &ps[r->n_passes / 2];
        p->before = p->after;
        switch (k) {
        case 1:
            p->before.macs.text = "12345";
            break;
        case 2:
            p->before.macs.value++;
            break;
        case 3:
            p->before.macs.known = !p->before.macs.known;
            break;
        case 4:
            p->before.nodes++;
            break;
        case 5:
            p->before.bytes_written.text = "x";
            break;
        default: /* equal: copied */
            break;
        }
        fl_report b = *r;
        b.passes = ps;
        round_trip(&b);
    }
    free(ps);
}

/* An input of rank 10 (more dims than fl_report_encode keeps on its stack):
 * known, symbolic and unknown dims, and a scalar beside it. */
static void long_shape(const fl_report *r) {
    static const fl_quantity d[10] = {
        {true, 1, "1"},    {false, 0, "n"}, {false, 0, "?"}, {true, 300, "300"}, {true, 5, "5"},
        {false, 0, "2*n"}, {true, 7, "7"},  {true, 8, "8"},  {true, 9, "9"},     {true, 10, "10"}};
    fl_report_input in[2] = {
        {"long", "float32", "[1,n,?,300,5,2*n,7,8,9,10]", 10, d},
        {"scalar", "int64", "[]", 0, d},
    };
    fl_report b = *r;
    b.inputs = in;
    b.n_inputs = 2;
    round_trip(&b);
}

/* report -> reply -> bytes -> reply -> report, compared with the original. */
static void round_trip(const fl_report *r) {
    fl_pb_arena a = {0};
    Foldline__V1__AnalyzeReply m = FOLDLINE__V1__ANALYZE_REPLY__INIT;
    char err[256];
    if (!fl_report_to_pb(r, "test", &a, &m, err, sizeof err)) {
        fail("to_pb: %s", err);
        fl_pb_arena_free(&a);
        return;
    }
    size_t len = foldline__v1__analyze_reply__get_packed_size(&m);
    uint8_t *buf = malloc(len ? len : 1);
    foldline__v1__analyze_reply__pack(&m, buf);
    same_encoding(&m.base, buf, len);
    same_direct(r, buf, len);
    fl_pb_arena_free(&a);
    Foldline__V1__AnalyzeReply *back = foldline__v1__analyze_reply__unpack(NULL, len, buf);
    free(buf);
    if (!back) {
        fail("the packed reply does not unpack");
        return;
    }
    if (strcmp(back->foldline_version, "test") != 0) {
        fail("foldline_version '%s'", back->foldline_version);
    }
    op_class_kinds(back);
    fl_report *r2 = fl_report_from_pb(back);
    if (!r2) {
        fail("from_pb: out of memory");
        return;
    }
    eq_report(r, r2);
    fl_report_pb_free(r2);
}

static fl_profile_set profiles;
static int n_llm;      /* reports with an LLM view */
static int n_llm_roof; /* and with its per-token roofline */

/* Analyses one model with everything the reply can carry and round-trips
 * the report; a second time with every shipped profile and every free
 * symbol bound to 2 (estimates need them bound). Returns false when the model
 * itself does not analyse (some corpus models are meant to fail). */
static bool check_model(const char *path) {
    size_t len = 0;
    unsigned char *bytes = slurp(path, &len);
    if (!bytes) {
        fail("cannot read");
        return false;
    }
    fl_options o;
    fl_options_init(&o);
    o.per_node = true;
    o.passes = "default";
    o.llm = true; /* the view of a decoder (tests/data/tiny_decoder.onnx) */
    o.llm_prompt = 8;
    o.llm_context = 32;
    fl_format fmt = fl_detect_format(bytes, len);
    o.return_graph = fmt == FL_FORMAT_GRAPHDEF || fmt == FL_FORMAT_SAVEDMODEL;
    const char *disabled[] = {"dependency"};
    o.disabled_passes = disabled;
    o.n_disabled_passes = 1;
    fl_report *r = NULL;
    bool ok = fl_analyze(bytes, len, &o, &r) == FL_OK;
    fl_symbol_binding bind[16];
    n_llm += ok && r->llm;
    if (ok && r->llm && profiles.n) { /* the view's times: free symbols left free */
        fl_report *rl = NULL;
        fl_options ol = o;
        ol.profiles = (const fl_profile *const *)profiles.profiles;
        ol.n_profiles = profiles.n;
        if (fl_analyze(bytes, len, &ol, &rl) != FL_OK || !rl->llm ||
            rl->llm->n_roofline != profiles.n || !rl->llm->after ||
            rl->llm->after->n_roofline != profiles.n) {
            fail("LLM view with profiles: %s", rl && rl->error ? rl->error : "no roofline");
        } else {
            n_llm_roof++;
            round_trip(rl);
        }
        fl_report_free(rl);
    }
    if (ok) {
        round_trip(r);
        bad_name(r);
        long_shape(r);
        totals_variants(r);
        if (r->n_symbols <= 16 && profiles.n) { /* every free symbol bound to 2 */
            for (size_t i = 0; i < r->n_symbols; i++) {
                bind[i].name = strdup(r->symbols[i]);
                bind[i].value = 2;
            }
            o.symbols = bind;
            o.n_symbols = r->n_symbols;
            fl_report_free(r);
            r = NULL;
            o.profiles = (const fl_profile *const *)profiles.profiles;
            o.n_profiles = profiles.n;
            if (fl_analyze(bytes, len, &o, &r) == FL_OK) {
                if (r->n_roofline != profiles.n) {
                    fail("%zu roofline results", r->n_roofline);
                }
                round_trip(r);
            }
            for (size_t i = 0; i < o.n_symbols; i++) {
                free((char *)bind[i].name);
            }
        }
    }
    fl_report_free(r);
    /* Without per-node detail, with and without the passes. */
    static const char *const stages[] = {"default", "none"};
    for (size_t i = 0; ok && i < 2; i++) {
        fl_options_init(&o);
        o.passes = stages[i];
        r = NULL;
        if (fl_analyze(bytes, len, &o, &r) != FL_OK) {
            fail("passes '%s' without per-node detail: %s", stages[i],
                 r && r->error ? r->error : "failed");
        } else {
            round_trip(r);
        }
        fl_report_free(r);
    }
    free(bytes);
    return ok;
}

static int has_suffix(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Every .pb, .onnx and .tflite file of dir; returns how many analysed. */
static int check_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!has_suffix(e->d_name, ".pb") && !has_suffix(e->d_name, ".onnx") &&
            !has_suffix(e->d_name, ".tflite")) {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        where = path;
        n += check_model(path);
    }
    closedir(d);
    return n;
}

/* A message with a field of every type and label, described by hand. */
typedef struct every {
    ProtobufCMessage base;
    int32_t i32, s32, sf32, en, opt, req;
    uint32_t u32, f32, oneof_case;
    int64_t i64, s64, sf64;
    uint64_t u64, f64;
    float fl;
    double db;
    protobuf_c_boolean b, has_opt;
    char *str, *one;
    ProtobufCBinaryData by;
    ProtobufCMessage *msg;
    size_t n_packed, n_strs, n_sints, n_msgs;
    int32_t *packed;
    char **strs;
    int64_t *sints;
    ProtobufCMessage **msgs;
} every;

#define EF(name, id, label, type, q, member, flags)                                                \
    {                                                                                              \
        name, id, PROTOBUF_C_LABEL_##label, PROTOBUF_C_TYPE_##type, q, offsetof(every, member),    \
            NULL, NULL, flags, 0, NULL, NULL                                                       \
    }
#define EV(name, id, type, member) EF(name, id, NONE, type, 0, member, 0)
static const ProtobufCFieldDescriptor every_fields[] = {
    EV("i32", 1, INT32, i32),
    EV("s32", 2, SINT32, s32),
    EV("sf32", 3, SFIXED32, sf32),
    EV("en", 4, ENUM, en),
    EF("opt", 5, OPTIONAL, INT32, offsetof(every, has_opt), opt, 0),
    EF("req", 6, REQUIRED, INT32, 0, req, 0),
    EV("u32", 7, UINT32, u32),
    EV("f32", 8, FIXED32, f32),
    EV("i64", 9, INT64, i64),
    EV("s64", 10, SINT64, s64),
    EV("sf64", 11, SFIXED64, sf64),
    EV("u64", 12, UINT64, u64),
    EV("f64", 13, FIXED64, f64),
    EV("fl", 14, FLOAT, fl),
    EV("db", 15, DOUBLE, db),
    EV("b", 16, BOOL, b),
    EV("str", 17, STRING, str),
    EF("one", 18, NONE, STRING, offsetof(every, oneof_case), one, PROTOBUF_C_FIELD_FLAG_ONEOF),
    EV("by", 19, BYTES, by),
    EV("msg", 20, MESSAGE, msg),
    EF("packed", 21, REPEATED, INT32, offsetof(every, n_packed), packed,
       PROTOBUF_C_FIELD_FLAG_PACKED),
    EF("strs", 22, REPEATED, STRING, offsetof(every, n_strs), strs, 0),
    EF("sints", 23, REPEATED, SINT64, offsetof(every, n_sints), sints, 0),
    EF("msgs", 300, REPEATED, MESSAGE, offsetof(every, n_msgs), msgs, 0),
};
static const ProtobufCMessageDescriptor every_desc = {PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC,
                                                      "test.Every",
                                                      "Every",
                                                      "Every",
                                                      "test",
                                                      sizeof(every),
                                                      sizeof every_fields / sizeof every_fields[0],
                                                      every_fields,
                                                      NULL,
                                                      0,
                                                      NULL,
                                                      NULL,
                                                      NULL,
                                                      NULL,
                                                      NULL};

static void encode_every(const every *e) {
    size_t len = protobuf_c_message_get_packed_size(&e->base);
    uint8_t *buf = malloc(len + 1);
    protobuf_c_message_pack(&e->base, buf);
    same_encoding(&e->base, buf, len);
    free(buf);
}

/* Set values of every type (negative, wide, -0.0 which proto3 leaves out
 * like 0, a long nested message), then all zero. */
static void every_type(void) {
    where = "every field type";
    every inner, e;
    memset(&inner, 0, sizeof inner);
    memset(&e, 0, sizeof e);
    inner.base.descriptor = e.base.descriptor = &every_desc;
    char longs[300];
    memset(longs, 'q', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    inner.str = longs; /* a 2-byte length, nested */
    inner.i32 = 7;
    e.i32 = -5;
    e.s32 = -3;
    e.sf32 = -7;
    e.en = 2;
    e.has_opt = 1; /* opt 0 is written: its has_ flag is set */
    e.req = -1;
    e.u32 = 300;
    e.f32 = 0xdeadbeefu;
    e.i64 = -1;
    e.s64 = -((int64_t)1 << 40);
    e.sf64 = -9;
    e.u64 = ((uint64_t)1 << 63) + 5;
    e.f64 = 1;
    e.fl = -0.0f;
    e.db = 2.5;
    e.b = 1;
    e.str = "abc";
    e.oneof_case = 18;
    e.one = "one";
    uint8_t bytes[3] = {0, 1, 2};
    e.by.len = 3;
    e.by.data = bytes;
    e.msg = &inner.base;
    int32_t packed[3] = {1, -1, 300};
    e.packed = packed;
    e.n_packed = 3;
    char *strs[3] = {"", "x", longs};
    e.strs = strs;
    e.n_strs = 3;
    int64_t sints[2] = {-1, 1};
    e.sints = sints;
    e.n_sints = 2;
    ProtobufCMessage *msgs[2] = {&inner.base, &inner.base};
    e.msgs = msgs;
    e.n_msgs = 2;
    uint8_t unknown[2] = {0x96, 0x01};
    ProtobufCMessageUnknownField u = {999, PROTOBUF_C_WIRE_TYPE_VARINT, 2, unknown};
    e.base.n_unknown_fields = 1;
    e.base.unknown_fields = &u;
    encode_every(&e);
    e.oneof_case = 17; /* another member's case: "one" is not written */
    e.fl = 1.5f;
    encode_every(&e);
    memset(&e, 0, sizeof e);
    e.base.descriptor = &every_desc;
    encode_every(&e); /* only the required field */
}

int main(int argc, char **argv) {
    const char *check = fl_report_pb_check();
    if (check) {
        printf("FAIL the mapping's tables: %s\n", check);
        return 1;
    }
    for (int c = 0; c < FL_CLASS_COUNT; c++) { /* every class has its OpClass value */
        int v = 0;
        if (!fl_pb_enum_value(&foldline__v1__op_class__descriptor, "OP_CLASS_",
                              fl_op_class_name((fl_op_class)c), &v) ||
            v != c + 1) {
            printf("FAIL OpClass has no value %d for op class '%s'\n", c + 1,
                   fl_op_class_name((fl_op_class)c));
            return 1;
        }
    }
    char err[512];
    if (fl_profile_set_load(FL_SOURCE_DIR "/deploy/profiles", &profiles, err, sizeof err) !=
        FL_OK) {
        printf("FAIL profiles: %s\n", err);
        return 1;
    }
    /* A profile with a cache level, `streamed` and `gap` (none of the
     * shipped ones gives them): the refill's and the gap's per-op figures
     * must cross the wire too. */
    static const char streamed_yaml[] =
        "schema: 1\n"
        "name: streamed\n"
        "kind: cpu\n"
        "compute: {vector: {fp32: {peak: 1e11, source: t}}}\n"
        "memory:\n"
        "  - {name: L2, bandwidth: 2e11, capacity: 1e6, source: t}\n"
        "  - {name: DRAM, bandwidth: 2e10, source: t}\n"
        "overhead: {seconds: 1e-6, source: t}\n"
        "streamed: {seconds_per_byte: 2.5e-13, source: t}\n"
        "gap: {share: 0.0625, source: \"fitted by a test\"}\n";
    fl_profile *ps = NULL;
    if (fl_profile_parse(streamed_yaml, strlen(streamed_yaml), "streamed.yaml", &ps, err,
                         sizeof err) != FL_OK ||
        fl_profile_set_add(&profiles, ps, err, sizeof err) != FL_OK) {
        printf("FAIL the profile with `streamed`: %s\n", err);
        fl_profile_free(ps);
        fl_profile_set_free(&profiles);
        return 1;
    }
    every_type();
    int analysed = 0;
    if (argc > 1 && strcmp(argv[1], "corpus") == 0) {
        static const char *const dirs[] = {"tf",     "tf-unfused", "onnx", "onnx/ort-extended",
                                           "tflite", "tfjs"};
        bool any = false;
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s", FL_CORPUS_DIR, dirs[i]);
            int n = check_dir(dir);
            any = any || n >= 0;
            analysed += n > 0 ? n : 0;
        }
        if (!any) {
            printf("SKIP test_report_pb corpus: %s is absent\n", FL_CORPUS_DIR);
            fl_profile_set_free(&profiles);
            return 77;
        }
    } else {
        analysed = check_dir(FL_TEST_DATA_DIR);
        if (analysed < 2) {
            printf("FAIL only %d models of %s analysed\n", analysed, FL_TEST_DATA_DIR);
            failures++;
        }
        if (n_streamed < 1) {
            printf("FAIL no per-node estimate with the refill after streaming kernels\n");
            failures++;
        }
        if (n_gap < 1) {
            printf("FAIL no per-node estimate with the run's gap\n");
            failures++;
        }
        if (n_llm < 1 || n_llm_roof < 1) { /* tiny_decoder.onnx has one */
            printf("FAIL no report with an LLM view among %s\n", FL_TEST_DATA_DIR);
            failures++;
        }
    }
    fl_profile_set_free(&profiles);
    if (n_direct < 4 * analysed) {
        printf("FAIL %d replies written straight from their reports for %d models\n", n_direct,
               analysed);
        failures++;
    }
    printf("%d models round-tripped (%d replies), %d differences\n", analysed, n_direct, failures);
    return failures ? 1 : 0;
}
