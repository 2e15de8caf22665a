/*
 * irbuild.h - builds IR graphs node by node for the op-family unit tests
 * (test_ops_ew.c, test_ops_nn.c), without the importer: placeholders get
 * their output shape set by hand, constants carry a value, ops get inputs
 * and attrs; the tests then run a descriptor's hooks on the node directly.
 *
 * One graph per test: ib_setup() makes a fresh arena, diagnostics, graph and
 * context (the globals below), ib_teardown() frees them. Every helper fails
 * the test (cmocka) on error.
 */
#ifndef FL_IRBUILD_H
#define FL_IRBUILD_H

#include "ops/common.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>

extern fl_arena arena;
extern fl_diag diag;
extern fl_graph *G;
extern fl_ctx ctx;

/* A fresh graph (producer 1000) and context; 0, or -1 on failure. */
int ib_setup(void);
void ib_teardown(void);

#define K(x)          fl_sym_const(x)
#define U             fl_sym_unknown()
#define NARGS(T, ...) ((int)(sizeof((T[]){__VA_ARGS__}) / sizeof(T)))

/* "<prefix>_<k>", unique within the test. */
const char *ib_name(const char *prefix);

/* A placeholder of dtype dt and the given shape (rank < 0: unknown). */
fl_node *ph_dims(int dt, int rank, const fl_sym *dims);

#define PH(...)        ph_dims(FL_DT_FLOAT, NARGS(fl_sym, __VA_ARGS__), (fl_sym[]){__VA_ARGS__})
#define PHT(dt, ...)   ph_dims(dt, NARGS(fl_sym, __VA_ARGS__), (fl_sym[]){__VA_ARGS__})
#define PH_SCALAR()    ph_dims(FL_DT_FLOAT, 0, NULL)
#define PHT_SCALAR(dt) ph_dims(dt, 0, NULL)
#define PH_UNKNOWN()   ph_dims(FL_DT_FLOAT, -1, NULL)

/* A constant of dtype dt and shape dims holding `vals` (integer/bool
 * dtypes: fl_sym elements; float dtypes: doubles rounded to the dtype). */
fl_node *mk_const(int dt, int rank, const int64_t *dims, const fl_sym *ivals, const double *fvals);

/* Integer vector / scalar / matrix constants. */
#define CIV(dt, ...)                                                                               \
    mk_const(dt, 1, (int64_t[]){NARGS(fl_sym, __VA_ARGS__)}, (fl_sym[]){__VA_ARGS__}, NULL)
#define CI32(...)          CIV(FL_DT_INT32, __VA_ARGS__)
#define CI(...)            CIV(FL_DT_INT32, __VA_ARGS__)
#define CIS(dt, x)         mk_const(dt, 0, NULL, (fl_sym[]){K(x)}, NULL)
#define CIM(dt, r, c, ...) mk_const(dt, 2, (int64_t[]){r, c}, (fl_sym[]){__VA_ARGS__}, NULL)
/* Float vectors / scalars / matrices of dtype dt. */
#define CFV(dt, ...)                                                                               \
    mk_const(dt, 1, (int64_t[]){NARGS(double, __VA_ARGS__)}, NULL, (double[]){__VA_ARGS__})
#define CF(...)            CFV(FL_DT_FLOAT, __VA_ARGS__)
#define CFS(dt, x)         mk_const(dt, 0, NULL, NULL, (double[]){x})
#define CFM(dt, r, c, ...) mk_const(dt, 2, (int64_t[]){r, c}, NULL, (double[]){__VA_ARGS__})

/* A node of op `op` reading output 0 of each of `in`, with the descriptor's
 * output count. */
fl_node *mk_op(const char *op, int n_in, fl_node *const *in);

#define OP(op, ...) mk_op(op, NARGS(fl_node *, __VA_ARGS__), (fl_node *[]){__VA_ARGS__})

void attr_i(fl_node *n, const char *name, int64_t v);
void attr_b(fl_node *n, const char *name, bool v);
void attr_f(fl_node *n, const char *name, float v);
void attr_type(fl_node *n, const char *name, int v);
void attr_s(fl_node *n, const char *name, const char *v);
void attr_ints(fl_node *n, const char *name, int cnt, const int64_t *v);
void attr_strs(fl_node *n, const char *name, int cnt, const char *const *v);
/* A shape attr (rank < 0: unknown rank). */
void attr_shape(fl_node *n, const char *name, int rank, const int64_t *dims);

#define INTS(n, name, ...) attr_ints(n, name, NARGS(int64_t, __VA_ARGS__), (int64_t[]){__VA_ARGS__})
#define STRS(n, name, ...)                                                                         \
    attr_strs(n, name, NARGS(const char *, __VA_ARGS__), (const char *[]){__VA_ARGS__})

/* Adds ^c to n's control inputs. */
void add_ctrl(fl_node *n, fl_node *c);

/* The descriptor's infer must fail with FL_EINVAL and a message containing
 * `what`. */
void infer_fails(fl_node *n, const char *what);
/* As infer_fails, with status st. */
void infer_fails_st(fl_node *n, fl_status st, const char *what);

/* s as text, in the test's arena. */
const char *sym_str(fl_sym s);

#endif
