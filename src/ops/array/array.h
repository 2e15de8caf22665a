/*
 * array.h - what the array family's files share (fl__array_*): the readers
 * and output setters of common.c, StridedSlice's spec (slice_spec.c) and the
 * partial shape vectors (shape_vector.c).
 */
#ifndef FL_OPS_ARRAY_ARRAY_H
#define FL_OPS_ARRAY_ARRAY_H

#include "ops/common.h"

#include <stdint.h>

/* Outputs a count_outputs hook accepts (num_split, num, N). */
#define MAX_OUTPUTS (1 << 20)
/* Ranks larger than this, read from a tensor's length, are treated as unknown. */
#define MAX_RANK 1024

/* StridedSlice spec (TensorFlow's BuildDenseSpec / ValidateStridedSliceOp). */
typedef struct ss_dim {
    int64_t b, e, s;     /* begin, end (when have_b/have_e), stride */
    bool have_b, have_e; /* known integer given */
    bool bm, em, shrink; /* begin/end masked, shrink axis */
} ss_dim;

typedef struct ss_plan {
    int rank;    /* input (dense) rank */
    ss_dim *dim; /* rank entries */
    int n_final;
    int *final; /* final output axis -> dense dim, or -1 for a new axis */
} ss_plan;

typedef struct ss_masks {
    uint64_t begin, end, ellipsis, new_axis, shrink;
} ss_masks;

/* common.c */
int64_t **fl__array_alloc_maps(fl_ctx *c, int rank, const int64_t *dims);

void *fl__array_alloc_n(fl_ctx *c, int64_t count, size_t size);

fl_sym *fl__array_alloc_syms(fl_ctx *c, int64_t count);

void fl__array_copy_elems(fl_value *dst, int64_t di, const fl_value *src, int64_t si, int64_t cnt);

int fl__array_count_attr(const fl_node *n, fl_diag *d, const char *name, int64_t min);

/* Output 0 := input 0's elements in order (Reshape, Squeeze, ExpandDims). */
fl_status fl__array_eval_copy(fl_ctx *c, fl_node *n);

/* Fills dst in order by walking the index space `dims`: element j takes
 * src[sum_i maps[i][o_i] * strides[i]], or the pad element (pad's element 0;
 * NULL: zero) when some map entry is negative. FL_ENOTFOUND when the index
 * space does not match dst. */
fl_status fl__array_fill_mapped(fl_ctx *c, fl_value *dst, const fl_value *src, int rank,
                                const int64_t *dims, int64_t *const *maps, const int64_t *strides,
                                const fl_value *pad);

/* Attaches v to output `port` after a fill that returned st. */
fl_status fl__array_finish(fl_node *n, int port, fl_value *v, fl_status st);

/* An index-type attr (out_type, index_type): int32 (default) or int64. */
fl_status fl__array_index_type_attr(fl_ctx *c, const fl_node *n, const char *attr, int *dt);

/* Input i's value when it holds integers (any rank), else NULL. */
const fl_value *fl__array_int_value(const fl_node *n, int i);

bool fl__array_is_known(fl_sym s, int64_t k);

bool fl__array_known_scalar(const fl_node *n, int i, int64_t *out);

/* Input i as a scalar or vector of known integers. */
bool fl__array_known_vec(const fl_node *n, int i, const fl_sym **out, int64_t *len);

/* Merges two descriptions of one dim; known values that differ fail. */
fl_status fl__array_merge(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, const char *what,
                          int dim, fl_sym *out);

/* A fresh value for output `port` of the same storage as `like` (when given),
 * or NULL (with *st the failure, FL_OK when there is simply no value). */
fl_value *fl__array_out_value(fl_ctx *c, fl_node *n, int port, const fl_value *like, fl_status *st);

/* Product of dims[from:to] of a value; -1 on overflow. */
int64_t fl__array_prod(const int64_t *dims, int from, int to);

int64_t *fl__array_row_strides(fl_ctx *c, int rank, const int64_t *dims);

/* a / b when exact (*exact), else *out unknown. b must not be a known 0. */
fl_status fl__array_s_div(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out,
                          bool *exact);

fl_status fl__array_s_max(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);

fl_status fl__array_s_min(fl_ctx *c, const fl_node *n, fl_sym a, fl_sym b, fl_sym *out);

/* Input i as a one-element integer (scalar or [1]), possibly symbolic. */
bool fl__array_scalar_sym(const fl_node *n, int i, fl_sym *out);

fl_status fl__array_set_all_rank(fl_ctx *c, fl_node *n, int dt, int64_t r);

/* Output `port`: known rank with unknown dims, or unknown rank when r < 0. */
fl_status fl__array_set_rank(fl_ctx *c, fl_node *n, int port, int dt, int64_t r);

/* Output 0's value: input 0's value with its dims permuted by perm (k entries, one per dim;
 * out dim i is in dim perm[i]). No value (FL_OK) when the input has none or perm does not fit. */
fl_status fl__array_eval_permute(fl_ctx *c, fl_node *n, const int64_t *perm, int64_t k);

bool fl__array_usable(const fl_value *v);

/* Length of the 1-D tensor feeding input i when known (from its value or
 * shape), else -1. */
int64_t fl__array_vec_len(const fl_node *n, int i);

const fl_value *fl__array_vec_value(const fl_node *n, int i);

/* Fails when input i has a known rank above 1 (WithRankAtMost 1). */
fl_status fl__array_want_vector(fl_ctx *c, const fl_node *n, int i, const char *name);

/* slice_spec.c */
/* Builds the dense spec. begin/end may be NULL (value unknown) and their
 * elements may be symbolic or unknown; strides are known. */
fl_status fl__array_ss_build(fl_ctx *c, const fl_node *n, int rank, int64_t k, const fl_sym *begin,
                             const fl_sym *end, const fl_sym *strides, const ss_masks *m,
                             ss_plan *pl);

/* Length of a dense dim of size D (known, symbolic or unknown). */
fl_status fl__array_ss_dim_size(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, fl_sym D,
                                fl_sym *size);

/* A dense dim of known size D: first source index and length. *ok is false
 * when begin or end is not known (the length is then unknown, except for a
 * shrunk axis: *size = 1 with *ok false). */
fl_status fl__array_ss_known(fl_ctx *c, const fl_node *n, int i, const ss_dim *d, int64_t D,
                             int64_t *start, int64_t *size, bool *ok);

fl_status fl__array_ss_read_masks(fl_ctx *c, const fl_node *n, ss_masks *m);

/* shape_vector.c */
/* Reads integer tensor t (a scalar or vector) as a vector whose elements may
 * be unknown. FL_ENOTFOUND when even its length is unknown. */
fl_status fl__array_partial_vec(fl_ctx *c, const fl_tensor *t, int depth, fl_sym **out,
                                int64_t *len);

/* Input i as a partial shape vector; negative known entries fail. */
fl_status fl__array_shape_input(fl_ctx *c, const fl_node *n, int i, const char *name, fl_sym **out,
                                int64_t *len);

#endif
