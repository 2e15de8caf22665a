/*
 * onnx/common.c - what the ONNX family's files share: value copies and the
 * identity evaluation (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

bool fl__onnx_known_eq(fl_sym s, int64_t v) {
    return fl_sym_is_known(s) && s.k == v;
}

/* Copies element si of src into element di of dst (same dtype). */
void fl__onnx_copy_elem(fl_value *dst, int64_t di, const fl_value *src, int64_t si) {
    if (dst->ints) {
        ((fl_sym *)dst->ints)[di] = src->ints[si];
    } else {
        size_t es = fl__dtype_size(dst->dtype);
        memcpy((uint8_t *)dst->raw + (size_t)di * es, (const uint8_t *)src->raw + (size_t)si * es,
               es);
    }
}

void fl__onnx_copy_run(fl_value *dst, int64_t di, const fl_value *src, int64_t si, int64_t count) {
    if (count <= 0) {
        return;
    }
    if (dst->ints) {
        memcpy((fl_sym *)dst->ints + di, src->ints + si, (size_t)count * sizeof(fl_sym));
    } else {
        size_t es = fl__dtype_size(dst->dtype);
        memcpy((uint8_t *)dst->raw + (size_t)di * es, (const uint8_t *)src->raw + (size_t)si * es,
               (size_t)count * es);
    }
}

/* A new value for output `port`, or NULL (too large, not concrete, or OOM
 * with d failed: the caller returns fl_ctx_status). */
fl_status fl__onnx_new_out_value(fl_ctx *c, fl_node *n, int port, fl_value **v) {
    *v = fl__op_new_value(c, n, port);
    return (!*v && c->a->failed) ? fl__diag_oom(c->d) : FL_OK;
}

/* Output 0 := input 0's value laid out in output 0's shape (its elements,
 * not a copy). */
fl_status fl__onnx_eval_copy(fl_ctx *c, fl_node *n) {
    const fl_value *in = fl_op_in_value(n, 0);
    fl_value *v = in ? fl__op_reshaped_value(c, n, 0, in) : NULL;
    if (!v) {
        return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: ). */

#define FL_OP FL_OP_DESC
#undef FL_OP
