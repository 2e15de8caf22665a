/*
 * random.c - random generators (core family): RandomUniform,
 * RandomUniformInt, RandomStandardNormal, TruncatedNormal, RandomShuffle.
 *
 * Shapes
 *  - Random*: shape from the value of the shape input (symbols carried),
 *    dtype from attr dtype (RandomUniformInt: Tout). RandomShuffle: its
 *    input's dtype and shape (it permutes dim 0), never a value.
 *
 * FLOP rules ("complete" convention; tfprof registers none of these ops: 0,
 * tfprof_rule false; no MACs):
 *  - RandomUniform, RandomUniformInt, RandomStandardNormal, TruncatedNormal:
 *    1 FLOP per output element (one generator step per element counted as one
 *    arithmetic op, as transcendental ops are), has_rule true.
 *  - RandomShuffle: 0 FLOPs, has_rule true: it moves rows (data movement, as
 *    Gather and Transpose); its generator draws are not counted.
 */
#include "ops/core/core.h"

/* Random generators: one FLOP per output element. */
static fl_status cost_random(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl__op_cost_zero(c, n, out);
    if (n->n_outputs < 1) {
        return FL_OK;
    }
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, &n->outputs[0].shape, &e);
    if (st != FL_OK) {
        return st;
    }
    if (fl_sym_is_unknown(e)) {
        out->incomplete = true;
        return FL_OK;
    }
    out->flops = e;
    return FL_OK;
}

static fl_status infer_random(fl_ctx *c, fl_node *n) {
    const char *dtype_attr = n->kind == FL_OP_RANDOM_UNIFORM_INT ? "Tout" : "dtype";
    int dt = FL_DT_INVALID;
    fl_status st = fl__attr_need_type(n, dtype_attr, &dt, c->d);
    if (st != FL_OK) {
        return st;
    }
    int r = fl_node_in(n, 0)->shape.rank;
    if (r >= 0 && r != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'shape' must be a vector, got rank %d", r);
    }
    fl_shape s;
    st = fl__core_shape_from_input(c, n, 0, false, "shape", &s);
    if (st != FL_OK) {
        return st;
    }
    fl__core_put_value(n, 0, NULL);
    return fl__core_set_shape(c, n, 0, dt, &s);
}

/* RandomShuffle: shuffles along dim 0; T and shape of its input. */
static fl_status infer_random_shuffle(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = x->dtype != FL_DT_INVALID ? (int)fl_dtype_base(x->dtype) : fl__core_dtype_from_t(n, 0);
    fl__core_put_value(n, 0, NULL);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* Hook sets and descriptors (their rows: core/random.def). */
#define HOOKS_random         .infer = infer_random, .cost = cost_random
#define HOOKS_random_shuffle .infer = infer_random_shuffle, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/core/random.def"
#undef FL_OP
