/*
 * sequence.h - what is known of an ONNX sequence value (onnxops/sequence.c).
 */
#ifndef FL_OPS_ONNXOPS_SEQUENCE_H
#define FL_OPS_ONNXOPS_SEQUENCE_H

#include "ops/common.h"

#define FL_OX_SEQ_MAX  64
#define FL_OX_SEQ_RANK 8

typedef struct fl_ox_seq_elem {
    int rank; /* -1: unknown */
    fl_sym d[FL_OX_SEQ_RANK];
} fl_ox_seq_elem;

typedef struct fl_ox_seq {
    bool known;         /* false: nothing is known of the sequence */
    int dtype;          /* the elements' dtype; FL_DT_INVALID when unknown */
    int n;              /* listed elements e[0..n); -1: not listed (count, uni) */
    fl_sym count;       /* the element count when not listed */
    fl_ox_seq_elem uni; /* a shape every element has, when not listed */
    fl_ox_seq_elem e[FL_OX_SEQ_MAX];
} fl_ox_seq;

/* What is known of the sequence output 0 of node p holds (after inference),
 * by the rules of sequence.c: its elements listed while their count is a
 * known number of at most FL_OX_SEQ_MAX, else the count and a shape they
 * all have. A failure is the rule's error, naming p. */
fl_status fl__ox_seq_describe(fl_ctx *c, const fl_node *p, fl_ox_seq *out);

#endif
