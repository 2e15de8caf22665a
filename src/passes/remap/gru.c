/*
 * gru.c - the remapper's GRU / AUGRU cell rule (oneDNN row 12):
 * GRUBlockCell / AUGRUBlockCell, the consumers moved to output 3 (h). It
 * follows the GRU matcher of the oneDNN remapper.cc (Intel-tensorflow; the
 * newer tensorflow/tensorflow snapshots we read have no GRU rule). The
 * pattern, conditions and names are at the rule.
 */
#include "passes/remap/remap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Pattern (row 12; GRUCellPatternMatcher of remapper.cc, oneDNN builds),
 * root AddV2 "output" (kReplace), everything else kRemove except the "*"
 * leaves (kRemain), labels in quotes:
 *   "concat_gru" = ConcatV2("tarV3" x, "identity" h_prev, "concat_axis")
 *   "ru_gates/activation" = Sigmoid(BiasAdd(MatMul("concat_gru", w_ru), b_ru))
 *   "ru_split" = Split("Const_split", "ru_gates/activation")
 *   "lbrmul" = Mul("ru_split", "identity")                         r * h
 *   "concat1" = ConcatV2("tarV3", "lbrmul", "concat_axis")
 *   "c_gate/activation" = Tanh(BiasAdd(MatMul("concat1", w_c), b_c))
 *   u' = "ru_split"                                                GRU
 *   u' = "au_atten" = Mul("ru_split", "attn_sub" = Sub("attn_1.0",
 *        "attn_in" au_x))                                          AUGRU
 *   "output" = AddV2("ns_mul2" = Mul(u', "identity"),
 *                    "ns_mul1" = Mul("ns_sub1" = Sub("Const_1", u'),
 *                                    "c_gate/activation"))
 * matched with the matcher above (so the Split's output ports and the
 * constants' values are not looked at, nor are the concat axis, the Split's
 * num_split, the MatMuls' transposes or any placement: TensorFlow checks
 * none of them)  =>  GRUBlockCell [x, h_prev, w_ru, w_c, b_ru, b_c] or
 * AUGRUBlockCell [x, h_prev, au_x, w_ru, w_c, b_ru, b_c] (each the input
 * edge of the matched node, port kept), named after the AddV2, on its
 * device, with T copied from the AddV2. GRU is tried before AUGRU.
 * The AddV2's consumers move to output 3 (h): each consumer's first input
 * reading the AddV2 is re-pointed (ChangeFanoutPort; a second input of the
 * same consumer reading it stays on output 0, r, as in TensorFlow).
 * Conditions (CheckValidGraph): T float or bfloat16 on output, ns_mul1,
 * ns_mul2, ns_sub1, concat1, lbrmul, ru_split, concat_gru; ns_mul1 and
 * ns_mul2 each have exactly one consumer, share T with the AddV2 and are
 * not preserved. oneDNN only; not gated by placement or by
 * allow_non_differentiable_rewrites.
 * Attrs: only T. AddGRUCellOp sets lbr=false and training=false on its
 * NodeDef after std::move-ing it into the mutation, so they never reach the
 * graph (the op's defaults are the same values).
 * Source: remapper.cc of Intel-tensorflow/tensorflow (gru_scope), whose
 * rnn_ops.cc registers AUGRUBlockCell and adds bfloat16, lbr and training to
 * GRUBlockCell. */
static const pat GRU_X = {PAT_ANY, "tarV3", P_REMAIN, 0, NULL};
static const pat GRU_H = {PAT_ANY, "identity", P_REMAIN, 0, NULL};
static const pat GRU_AXIS = {PAT_ANY, "concat_axis", P_REMAIN, 0, NULL};
static const pat GRU_CONCAT = {FL_OP_CONCAT_V2, "concat_gru", P_REMOVE, 3,
                               (const pat *const[]){&GRU_X, &GRU_H, &GRU_AXIS}};
static const pat GRU_RU_W = {PAT_ANY, "ru_gates/mm_param", P_REMAIN, 0, NULL};
static const pat GRU_RU_MM = {FL_OP_MATMUL, "ru_gates/mm", P_REMOVE, 2,
                              (const pat *const[]){&GRU_CONCAT, &GRU_RU_W}};
static const pat GRU_RU_B = {PAT_ANY, "ru_gates/bias_data", P_REMAIN, 0, NULL};
static const pat GRU_RU_BIAS = {FL_OP_BIAS_ADD, "ru_gates/bias", P_REMOVE, 2,
                                (const pat *const[]){&GRU_RU_MM, &GRU_RU_B}};
static const pat GRU_RU_ACT = {FL_OP_SIGMOID, "ru_gates/activation", P_REMOVE, 1,
                               (const pat *const[]){&GRU_RU_BIAS}};
static const pat GRU_SPLIT_DIM = {PAT_ANY, "Const_split", P_REMAIN, 0, NULL};
static const pat GRU_SPLIT = {FL_OP_SPLIT, "ru_split", P_REMOVE, 2,
                              (const pat *const[]){&GRU_SPLIT_DIM, &GRU_RU_ACT}};
static const pat GRU_RH = {FL_OP_MUL, "lbrmul", P_REMOVE, 2,
                           (const pat *const[]){&GRU_SPLIT, &GRU_H}};
static const pat GRU_CONCAT1 = {FL_OP_CONCAT_V2, "concat1", P_REMOVE, 3,
                                (const pat *const[]){&GRU_X, &GRU_RH, &GRU_AXIS}};
static const pat GRU_C_W = {PAT_ANY, "c_gate/mm_param", P_REMAIN, 0, NULL};
static const pat GRU_C_MM = {FL_OP_MATMUL, "c_gate/mm", P_REMOVE, 2,
                             (const pat *const[]){&GRU_CONCAT1, &GRU_C_W}};
static const pat GRU_C_B = {PAT_ANY, "c_gate/bias_data", P_REMAIN, 0, NULL};
static const pat GRU_C_BIAS = {FL_OP_BIAS_ADD, "c_gate/bias", P_REMOVE, 2,
                               (const pat *const[]){&GRU_C_MM, &GRU_C_B}};
static const pat GRU_C_ACT = {FL_OP_TANH, "c_gate/activation", P_REMOVE, 1,
                              (const pat *const[]){&GRU_C_BIAS}};
static const pat GRU_ONE = {PAT_ANY, "Const_1", P_REMAIN, 0, NULL};
/* GRU: u' is the Split */
static const pat GRU_SUB1 = {FL_OP_SUB, "ns_sub1", P_REMOVE, 2,
                             (const pat *const[]){&GRU_ONE, &GRU_SPLIT}};
static const pat GRU_MUL2 = {FL_OP_MUL, "ns_mul2", P_REMOVE, 2,
                             (const pat *const[]){&GRU_SPLIT, &GRU_H}};
static const pat GRU_MUL1 = {FL_OP_MUL, "ns_mul1", P_REMOVE, 2,
                             (const pat *const[]){&GRU_SUB1, &GRU_C_ACT}};
static const pat GRU_OUT = {FL_OP_ADD_V2, "output", P_REPLACE, 2,
                            (const pat *const[]){&GRU_MUL2, &GRU_MUL1}};
/* AUGRU: u' = u * (1 - au_x) */
static const pat AUGRU_AU = {PAT_ANY, "attn_in", P_REMAIN, 0, NULL};
static const pat AUGRU_ONE = {PAT_ANY, "attn_1.0", P_REMAIN, 0, NULL};
static const pat AUGRU_ASUB = {FL_OP_SUB, "attn_sub", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_ONE, &AUGRU_AU}};
static const pat AUGRU_ATT = {FL_OP_MUL, "au_atten", P_REMOVE, 2,
                              (const pat *const[]){&GRU_SPLIT, &AUGRU_ASUB}};
static const pat AUGRU_SUB1 = {FL_OP_SUB, "ns_sub1", P_REMOVE, 2,
                               (const pat *const[]){&GRU_ONE, &AUGRU_ATT}};
static const pat AUGRU_MUL2 = {FL_OP_MUL, "ns_mul2", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_ATT, &GRU_H}};
static const pat AUGRU_MUL1 = {FL_OP_MUL, "ns_mul1", P_REMOVE, 2,
                               (const pat *const[]){&AUGRU_SUB1, &GRU_C_ACT}};
static const pat AUGRU_OUT = {FL_OP_ADD_V2, "output", P_REPLACE, 2,
                              (const pat *const[]){&AUGRU_MUL2, &AUGRU_MUL1}};

/* CheckValidGraph: the dtypes and the two parent/child pairs. */
static bool gru_valid(const rctx *r, const pmatch *m) {
    static const char *const typed[] = {"output",  "ns_mul1", "ns_mul2",  "ns_sub1",
                                        "concat1", "lbrmul",  "ru_split", "concat_gru"};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        if (!fl__rm_t_float_or_bf16(fl__rm_pm_get(m, typed[i]))) {
            return false;
        }
    }
    const fl_node *out = fl__rm_pm_get(m, "output");
    static const char *const kids[] = {"ns_mul1", "ns_mul2"};
    for (size_t i = 0; i < 2; i++) {
        const fl_node *k = fl__rm_pm_get(m, kids[i]);
        if (fl__rm_fanout(r, k, 0) != 1 || !fl__rm_same_t(out, k) || fl__preserved(k)) {
            return false;
        }
    }
    return true;
}

bool fl__rm_rewrite_gru_cell(rctx *r, fl_node *root) {
    if (!r->onednn || root->kind != FL_OP_ADD_V2) {
        return false;
    }
    pmatch m;
    bool au = false;
    if (!fl__rm_pm_run(r, &GRU_OUT, root, &m) || !gru_valid(r, &m)) {
        au = true;
        if (!fl__rm_pm_run(r, &AUGRU_OUT, root, &m) || !gru_valid(r, &m)) {
            return false;
        }
    }
    const char *op = au ? fl__op_name(FL_OP_AUGRU_BLOCK_CELL) : fl__op_name(FL_OP_GRU_BLOCK_CELL);
    const fl_node *concat = fl__rm_pm_get(&m, "concat_gru");
    fl_input in[7];
    int k = 0;
    in[k++] = concat->inputs[0];
    in[k++] = concat->inputs[1];
    if (au) {
        in[k++] = fl__rm_pm_get(&m, "attn_sub")->inputs[1];
    }
    in[k++] = fl__rm_pm_get(&m, "ru_gates/mm")->inputs[1];
    in[k++] = fl__rm_pm_get(&m, "c_gate/mm")->inputs[1];
    in[k++] = fl__rm_pm_get(&m, "ru_gates/bias")->inputs[1];
    in[k++] = fl__rm_pm_get(&m, "c_gate/bias")->inputs[1];
    fl__ledger_note(r->pc, au ? "augru_block_cell" : "gru_block_cell", root,
                    "%s cell ops -> %s (consumers read h, output 3)", au ? "AUGRU" : "GRU", op);
    fl_node *f = fl__rm_replace_root(r, root, op, root->device, k, in, 4);
    if (!f) {
        return false;
    }
    fl__rm_copy_attr(r, f, root, "T", NULL);
    /* ChangeFanoutPort(output, 3) */
    for (size_t i = 0; i < r->g->n_nodes; i++) {
        fl_node *u = r->g->nodes[i];
        if (fl__rm_is_removed(u) || u == f) {
            continue;
        }
        for (int j = 0; j < u->n_inputs; j++) {
            if (u->inputs[j].node == f) {
                fl__node_set_input(r->g, u, j, (fl_input){f, 3});
                break;
            }
        }
    }
    for (int i = 0; i < m.n_removed; i++) {
        fl__rm_drop(r, m.removed[i]);
    }
    return true;
}
