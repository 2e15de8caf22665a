/*
 * traffic.c - what a kernel really computes and moves, for the roofline's
 * time terms (fl__roofline_traffic, stated in roofline.h).
 *
 * The counts of the report follow the ops' definitions (every input read,
 * every output written, one FLOP per element of an element-wise op). A
 * kernel's time follows what it does, which differs for a few kinds of op:
 *
 * - Slice, Gather and their relatives read only the elements they copy out
 *   (Grappler's OpLevelCostEstimator counts their data input as the output's
 *   size for the same reason).
 * - A Transpose that keeps the innermost axis in place (size-1 axes aside)
 *   copies contiguous runs, one copy call per run: it costs its bytes plus a
 *   time per run (its `runs`, paid at the bucket's per-unit time, the one a
 *   depthwise op pays per channel). ONNX Runtime's CPU Transpose
 *   (tests/bench/ort_transpose.mjs): a copy plus 5-8 ns per run at every run
 *   length (1x768x7x7 to (0,2,1,3): 5376 runs of 7 elements, 52 us against
 *   7 us for a plain copy).
 * - One that moves the innermost axis reads or writes one side with a
 *   stride. A blocked kernel moves that side a vector (FL_VECTOR_BYTES) at a
 *   time, not an element: `strided_bytes` = a vector per element of the
 *   strided side + the other side's bytes, carried by the cache level that
 *   serves it. An element-by-element copy would touch a 64-byte line per
 *   element instead: `line_bytes`, the bound the upper estimate keeps.
 *   ONNX Runtime's NCHW <-> NHWC runs at 1-2.2 times a plain copy up to
 *   2.4 MB (2.5 times its bytes for fp32 here, where lines would be 8.5).
 * - Transcendental element-wise functions (exp, erf, tanh, sigmoid, pow, ...)
 *   and the exponentials of Softmax are evaluated by polynomial or rational
 *   approximations of many vector operations per element: their compute term
 *   counts FL_TRANSCENDENTAL_OPS operations per element, FL_ERF_OPS for the
 *   error function, which evaluates two approximations per element.
 * - Division and square root (Div, Reciprocal, Sqrt, Rsqrt, FloorMod, ...)
 *   issue at a fraction of the rate of a multiply or add: FL_DIVIDE_OPS
 *   operations per element.
 * - An element-wise op with broadcasting semantics one of whose operands has
 *   fewer elements than its output runs through the runtime's broadcasting
 *   loop, which sets up per op what a unary or same-shape kernel does not:
 *   fl__roofline_broadcast says which ops do (their fixed time is a profile
 *   figure, the bucket's broadcast_s).
 * - A windowed pooling kernel works plane by plane (batch x channel) and row
 *   by row of the output, and starts its loops again for each: its `runs`
 *   are the output rows of every plane, each paying the bucket's per-unit
 *   time. A global pool reduces each plane in one contiguous pass (a vector
 *   loop, then one horizontal reduction): no runs, its FLOPs and bytes.
 *   ONNX Runtime's CPU MaxPool (one output, no dilation) and AveragePool
 *   (MLAS) reduce a 2-D or 3-D window in two steps when the innermost
 *   stride is at most 2, every kernel dim at most FL_POOL_SMALL_KERNEL and
 *   the padded row fits the kernel's row buffer: first down the window's
 *   rows over the whole input row (every input element of a row, once per
 *   output row whose window holds that row), then across the window's
 *   columns a vector (FL_POOL_LANES outputs of a stride-1 pool, half as many
 *   of a stride-2 one) at a time. Its work is those two steps' element
 *   operations, which for an overlapping window (3x3 stride 1) is a third of
 *   its taps: pool_rows_work. Other windowed pools (TensorFlow's NHWC ones,
 *   LpPool, a larger stride) take every tap of every output and set up
 *   every output's window: FL_WINDOW_OPS operations per output on top of
 *   its taps. An average divides each output: FL_DIVIDE_OPS more.
 *
 * TensorFlow Lite builtins go by the name of the TensorFlow or ONNX op that
 * computes the same (fl__roofline_op_name), for these rules and the classes.
 */
#include "cost/roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Vector operations per element of a transcendental function (the range
 * reduction and polynomial of a vectorised exp, erf or tanh are of this
 * order). A fitted profile's compute efficiency absorbs the exact figure. */
#define FL_TRANSCENDENTAL_OPS 16.0
/* Vector operations per element of the error function (Erf, and the Gelu
 * forms built on it): vectorised code evaluates both argument ranges'
 * approximations for every element and blends them, a polynomial for small
 * arguments and a polynomial under an exponential for large ones, so about
 * twice a single-approximation function. ONNX Runtime's CPU kernels
 * (MLAS): 38 vector operations per vector for erf against 22 for the
 * logistic's rational approximation; traced on this host, Erf takes 1.6-1.7
 * times Sigmoid's time per element. */
#define FL_ERF_OPS 32.0
/* Vector operations per output of a windowed pooling kernel on top of its
 * window's taps: the window's bounds (clipped by the padding) and its start
 * are worked out per output, and the taps are reduced one after the other, so
 * a small window (1x1 to 3x3) costs about the same per output whatever its
 * taps. */
#define FL_WINDOW_OPS 16.0
/* Elements of the vectors a two-step pooling kernel reduces a window's
 * columns with (128 bits of fp32), and the largest kernel dim and padded
 * row it takes (MLAS: 32, and a 2048-element row buffer less 3 elements it
 * may read past the row's end). */
#define FL_POOL_LANES        4.0
#define FL_POOL_SMALL_KERNEL 32
#define FL_POOL_ROW_BUFFER   2045
/* Vector operations per element of a division or square root: a vector
 * divide or square root issues at a quarter to a tenth of the rate of a
 * multiply or add on current x86 and Arm cores (vendors' instruction tables),
 * and the element-wise kernels run at that rate. */
#define FL_DIVIDE_OPS 8.0
/* Bytes per cache line. */
#define FL_LINE_BYTES 64.0
/* Bytes a blocked transpose moves at a time on its strided side (a 128-bit
 * vector: 4 fp32 elements). */
#define FL_VECTOR_BYTES 16.0

/* TensorFlow Lite builtin operators under the names of the TensorFlow or ONNX
 * ops that compute the same thing, so that the op classes and the kernel
 * traffic rules treat a TFLite graph as they treat its TensorFlow or ONNX
 * form (schema_generated BuiltinOperator names; StableHLO ops by the HLO op
 * they carry). Sorted by TFLite name. */
static const char *const tflite_names[][2] = {
    {"ARG_MAX", "ArgMax"},
    {"ARG_MIN", "ArgMin"},
    {"AVERAGE_POOL_2D", "AvgPool"},
    {"BATCH_MATMUL", "BatchMatMulV2"},
    {"CONV_2D", "Conv2D"},
    {"CONV_3D", "Conv3D"},
    {"CONV_3D_TRANSPOSE", "Conv3DBackpropInputV2"},
    {"COS", "Cos"},
    {"DEPTHWISE_CONV_2D", "DepthwiseConv2dNative"},
    {"DIV", "Div"},
    {"ELU", "Elu"},
    {"EXP", "Exp"},
    {"FLOOR_DIV", "FloorDiv"},
    {"FLOOR_MOD", "FloorMod"},
    {"FULLY_CONNECTED", "MatMul"},
    {"GATHER", "GatherV2"},
    {"GATHER_ND", "GatherND"},
    {"GELU", "Gelu"},
    {"L2_NORMALIZATION", "LpNormalization"},
    {"L2_POOL_2D", "LpPool"},
    {"LOCAL_RESPONSE_NORMALIZATION", "LRN"},
    {"LOG", "Log"},
    {"LOGISTIC", "Sigmoid"},
    {"LOG_SOFTMAX", "LogSoftmax"},
    {"MAX_POOL_2D", "MaxPool"},
    {"MEAN", "Mean"},
    {"POW", "Pow"},
    {"REDUCE_ALL", "All"},
    {"REDUCE_ANY", "Any"},
    {"REDUCE_MAX", "Max"},
    {"REDUCE_MIN", "Min"},
    {"REDUCE_PROD", "Prod"},
    {"RSQRT", "Rsqrt"},
    {"SIN", "Sin"},
    {"SLICE", "Slice"},
    {"SOFTMAX", "Softmax"},
    {"SQRT", "Sqrt"},
    {"STABLEHLO_CONVOLUTION", "Conv"},
    {"STABLEHLO_COSINE", "Cos"},
    {"STABLEHLO_DIVIDE", "Div"},
    {"STABLEHLO_DOT_GENERAL", "Einsum"},
    {"STABLEHLO_DYNAMIC_SLICE", "Slice"},
    {"STABLEHLO_EXPONENTIAL", "Exp"},
    {"STABLEHLO_LOG", "Log"},
    {"STABLEHLO_LOGISTIC", "Sigmoid"},
    {"STABLEHLO_POWER", "Pow"},
    {"STABLEHLO_REDUCE", "Reduce"},
    {"STABLEHLO_SLICE", "Slice"},
    {"STABLEHLO_TANH", "Tanh"},
    {"STABLEHLO_TRANSPOSE", "Transpose"},
    {"STRIDED_SLICE", "StridedSlice"},
    {"SUM", "Sum"},
    {"TANH", "Tanh"},
    {"TRANSPOSE", "Transpose"},
    {"TRANSPOSE_CONV", "Conv2DBackpropInput"},
};

static int cmp_tflite_name(const void *key, const void *row) {
    return strcmp((const char *)key, *(const char *const *)row);
}

const char *fl__roofline_op_name(const fl_node *n) {
    if (!n->desc || strncmp(n->desc->name, "tflite::", 8) != 0) {
        return n->op;
    }
    const char *const(*row)[2] =
        bsearch(n->desc->name + 8, tflite_names, sizeof tflite_names / sizeof tflite_names[0],
                sizeof tflite_names[0], cmp_tflite_name);
    return row ? (*row)[1] : n->op;
}

static const fl_tensor *in_tensor(const fl_node *n, int i) {
    if (i >= n->n_inputs || !n->inputs[i].node) {
        return NULL;
    }
    const fl_node *p = n->inputs[i].node;
    int port = n->inputs[i].port;
    return port >= 0 && port < p->n_outputs ? &p->outputs[port] : NULL;
}

/* Element count of a tensor with a known shape; -1 otherwise. */
static double elements(const fl_tensor *t) {
    if (!t || t->shape.rank < 0) {
        return -1;
    }
    double n = 1;
    for (int i = 0; i < t->shape.rank; i++) {
        if (!fl_sym_is_known(t->shape.dims[i])) {
            return -1;
        }
        n *= (double)t->shape.dims[i].k;
    }
    return n;
}

static bool op_is(const char *op, const char *const *list) {
    for (int i = 0; list[i]; i++) {
        if (strcmp(op, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

static bool transcendental(const char *op) {
    static const char *const t[] = {
        "Exp",  "Expm1",    "Log",      "Log1p", "Erf",        "Erfc",      "Tanh", "Sigmoid",
        "Pow",  "Sin",      "Cos",      "Tan",   "Asin",       "Acos",      "Atan", "Sinh",
        "Cosh", "Asinh",    "Acosh",    "Atanh", "Softplus",   "Elu",       "Selu", "Celu",
        "Gelu", "FastGelu", "BiasGelu", "Mish",  "LogSigmoid", "QuickGelu", NULL};
    return op_is(op, t);
}

/* An error-function op: Erf, Erfc, and Gelu / BiasGelu unless their
 * `approximate` attribute selects the tanh form (ONNX's "tanh",
 * TensorFlow's true). */
static bool erf_form(const fl_node *n, const char *op) {
    static const char *const e[] = {"Erf", "Erfc", NULL}, *const g[] = {"Gelu", "BiasGelu", NULL};
    if (op_is(op, e)) {
        return true;
    }
    if (!op_is(op, g)) {
        return false;
    }
    const fl_attr *a = fl__node_attr(n, "approximate");
    if (a && a->kind == FL_ATTR_S && a->v.s.p && strcmp(a->v.s.p, "tanh") == 0) {
        return false;
    }
    return !(a && a->kind == FL_ATTR_B && a->v.b);
}

static bool divide(const char *op) {
    static const char *const d[] = {"Div",         "RealDiv",    "DivNoNan", "FloorDiv",
                                    "TruncateDiv", "Reciprocal", "Sqrt",     "Rsqrt",
                                    "FloorMod",    "Mod",        NULL};
    return op_is(op, d);
}

/* The permutation of a Transpose (ONNX attribute, or TensorFlow's constant
 * second input); the reverse order when ONNX gives none. false when unknown. */
static bool transpose_perm(const fl_node *n, int rank, int64_t *perm) {
    const fl_attr *a = fl__node_attr(n, "perm");
    if (a && a->kind == FL_ATTR_LIST && a->list_kind == FL_ATTR_I && (int)a->n == rank) {
        for (int i = 0; i < rank; i++) {
            perm[i] = a->v.list.i[i];
        }
        return true;
    }
    const fl_tensor *pt = in_tensor(n, 1);
    if (pt && pt->value && pt->value->ints && pt->value->n == rank) {
        for (int i = 0; i < rank; i++) {
            if (!fl_sym_is_known(pt->value->ints[i])) {
                return false;
            }
            perm[i] = pt->value->ints[i].k;
        }
        return true;
    }
    if (!a && n->n_inputs == 1) {
        for (int i = 0; i < rank; i++) {
            perm[i] = rank - 1 - i;
        }
        return true;
    }
    return false;
}

/* Elements per contiguous run a Transpose copies: the input's trailing
 * axes (size-1 axes left out) that stay, in order, the output's innermost
 * ones. -1 when the shape or permutation is unknown. */
static double transpose_run(const fl_node *n) {
    const fl_tensor *x = in_tensor(n, 0);
    if (!x || x->shape.rank < 1 || x->shape.rank > 16 || elements(x) < 0) {
        return -1;
    }
    int r = x->shape.rank;
    int64_t perm[16], keep[16], pos[16];
    if (!transpose_perm(n, r, perm)) {
        return -1;
    }
    /* input axes of size > 1, renumbered in input order */
    int m = 0;
    for (int i = 0; i < r; i++) {
        pos[i] = -1;
        if (x->shape.dims[i].k > 1) {
            pos[i] = m++;
        }
    }
    int k = 0;
    for (int i = 0; i < r; i++) {
        if (perm[i] < 0 || perm[i] >= r) {
            return -1;
        }
        if (pos[perm[i]] >= 0) {
            keep[k++] = perm[i];
        }
    }
    double run = 1;
    for (int j = k - 1; j >= 0 && pos[keep[j]] == j; j--) {
        run *= (double)x->shape.dims[keep[j]].k;
    }
    return run;
}

/* Up to `max` integers of list attr `name` into v; the count, -1 when
 * absent or not a list of integers. */
static int attr_ints(const fl_node *n, const char *name, int64_t *v, int max) {
    const fl_attr *a = fl__node_attr(n, name);
    if (!a || a->kind != FL_ATTR_LIST || (a->n && a->list_kind != FL_ATTR_I) || (int)a->n > max) {
        return -1;
    }
    for (size_t i = 0; i < a->n; i++) {
        v[i] = a->v.list.i[i];
    }
    return (int)a->n;
}

/* The input rows (planes) a window of `k` at stride `s` starting `pad`
 * before the input's `in` elements covers, summed over `out` outputs. */
static double window_rows(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad) {
    double sum = 0;
    for (int64_t o = 0; o < out; o++) {
        int64_t lo = o * s - pad, hi = lo + k;
        lo = lo < 0 ? 0 : lo;
        hi = hi > in ? in : hi;
        sum += hi > lo ? (double)(hi - lo) : 0;
    }
    return sum;
}

/* The element operations of an ONNX-layout (N, C, spatial...) MaxPool or
 * AveragePool of 2 or 3 spatial dims that a two-step kernel runs (see the
 * header: down the window's rows over whole input rows, then across its
 * columns a vector at a time), per the whole op; -1 when the op does not
 * take that path or its shapes or attributes are unknown. */
static double pool_rows_work(const fl_node *n, const char *op, const fl_tensor *x,
                             const fl_tensor *y) {
    int r = x ? x->shape.rank : -1;
    if ((strcmp(op, "MaxPool") != 0 && strcmp(op, "AveragePool") != 0) || n->n_outputs != 1 ||
        r < 4 || r > 5 || !y || y->shape.rank != r || elements(x) <= 0 || elements(y) <= 0) {
        return -1;
    }
    int sd = r - 2;
    int64_t k[3], s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, p[6] = {0};
    if (attr_ints(n, "kernel_shape", k, 3) != sd || attr_ints(n, "strides", s, 3) == 0 ||
        attr_ints(n, "dilations", d, 3) == 0 || attr_ints(n, "pads", p, 6) == 0) {
        return -1;
    }
    const fl_attr *ap = fl__node_attr(n, "auto_pad");
    bool same = ap && ap->kind == FL_ATTR_S && ap->v.s.p && strncmp(ap->v.s.p, "SAME", 4) == 0;
    int64_t in[3], out[3];
    for (int i = 0; i < sd; i++) {
        in[i] = x->shape.dims[2 + i].k;
        out[i] = y->shape.dims[2 + i].k;
        if (k[i] < 1 || k[i] > FL_POOL_SMALL_KERNEL || s[i] < 1 || d[i] != 1) {
            return -1;
        }
        if (same) { /* SAME_UPPER puts the odd padding element at the end */
            int64_t total = (out[i] - 1) * s[i] + k[i] - in[i];
            total = total > 0 ? total : 0;
            bool lower = strcmp(ap->v.s.p, "SAME_LOWER") == 0;
            p[i] = lower ? (total + 1) / 2 : total / 2;
            p[i + sd] = total - p[i];
        }
    }
    int w = sd - 1;
    if (s[w] > 2 || p[w] < 0 || p[w + sd] < 0 || p[w] + p[w + sd] + in[w] > FL_POOL_ROW_BUFFER) {
        return -1;
    }
    /* per plane: the outer output rows (depth x height), the input rows each
     * reduces (the window's clipped planes x rows), the vectors across */
    double rows = 1, taps_down = (double)in[w];
    for (int i = 0; i < w; i++) {
        rows *= (double)out[i];
        taps_down *= window_rows(in[i], out[i], k[i], s[i], p[i]);
    }
    double per_vec = s[w] == 1 ? FL_POOL_LANES : FL_POOL_LANES / 2;
    double vecs = ceil((double)out[w] / per_vec);
    double planes = (double)x->shape.dims[0].k * (double)x->shape.dims[1].k;
    return planes * (taps_down + rows * vecs * (double)k[w] * FL_POOL_LANES);
}

/* A pooling op's work and runs (see the header). */
static void pool_traffic(const fl_node *n, const char *op, fl_traffic *t) {
    const fl_tensor *x = in_tensor(n, 0), *y = n->n_outputs > 0 ? &n->outputs[0] : NULL;
    double e = elements(y);
    if (e <= 0 || !x || x->shape.rank < 3 || elements(x) <= 0) {
        return;
    }
    bool nhwc = !fl__node_attr(n, "kernel_shape") && strncmp(op, "Global", 6) != 0;
    /* planes: batch x channels (NCHW), or the batch of an NHWC pool */
    double planes = (double)x->shape.dims[0].k * (nhwc ? 1 : (double)x->shape.dims[1].k);
    double rows = 1;
    if (strncmp(op, "Global", 6) != 0) {
        /* the output rows of a plane: every spatial dim but the innermost */
        int first = nhwc ? 1 : 2, last = nhwc ? y->shape.rank - 2 : y->shape.rank - 1;
        for (int i = first; i < last; i++) {
            rows *= (double)y->shape.dims[i].k;
        }
        double two_step = pool_rows_work(n, op, x, y);
        if (two_step >= 0) {
            t->work += two_step - (double)fl__node_count(n, FL_COUNT_FLOPS).k;
        } else {
            t->work += FL_WINDOW_OPS * e;
        }
        if (strcmp(op, "AveragePool") == 0 || strcmp(op, "AvgPool") == 0) {
            t->work += FL_DIVIDE_OPS * e;
        }
    }
    if (strncmp(op, "Global", 6) != 0) {
        t->runs = planes * rows;
    }
}

bool fl__roofline_broadcast(const fl_node *n, fl_op_class cls) {
    /* ONNX's multidirectional and unidirectional broadcasting ops,
     * TensorFlow's binary cwise ops, TFLite's binary builtins (those that
     * fl__roofline_op_name does not rename). */
    static const char *const ops[] = {"Add",
                                      "AddV2",
                                      "Sub",
                                      "Mul",
                                      "Div",
                                      "RealDiv",
                                      "DivNoNan",
                                      "Pow",
                                      "Max",
                                      "Min",
                                      "Maximum",
                                      "Minimum",
                                      "Mean",
                                      "Sum",
                                      "PRelu",
                                      "Where",
                                      "Select",
                                      "SelectV2",
                                      "SquaredDifference",
                                      "FloorDiv",
                                      "FloorMod",
                                      "Mod",
                                      "TruncateDiv",
                                      "TruncateMod",
                                      "And",
                                      "Or",
                                      "Xor",
                                      "LogicalAnd",
                                      "LogicalOr",
                                      "Equal",
                                      "NotEqual",
                                      "Greater",
                                      "GreaterEqual",
                                      "GreaterOrEqual",
                                      "Less",
                                      "LessEqual",
                                      "LessOrEqual",
                                      "BitShift",
                                      "BitwiseAnd",
                                      "BitwiseOr",
                                      "BitwiseXor",
                                      "ADD",
                                      "SUB",
                                      "MUL",
                                      "MAXIMUM",
                                      "MINIMUM",
                                      "SQUARED_DIFFERENCE",
                                      "PRELU",
                                      "SELECT",
                                      "SELECT_V2",
                                      "EQUAL",
                                      "NOT_EQUAL",
                                      "GREATER",
                                      "GREATER_EQUAL",
                                      "LESS",
                                      "LESS_EQUAL",
                                      "LOGICAL_AND",
                                      "LOGICAL_OR",
                                      NULL};
    if (cls != FL_CLASS_ELEMENTWISE || n->n_outputs < 1 || n->n_inputs < 2 ||
        !op_is(fl__roofline_op_name(n), ops)) {
        return false;
    }
    double out = elements(&n->outputs[0]);
    for (int i = 0; out > 0 && i < n->n_inputs; i++) {
        double e = elements(in_tensor(n, i));
        if (e >= 0 && e < out) {
            return true;
        }
    }
    return false;
}

void fl__roofline_traffic(const fl_node *n, fl_op_class cls, fl_traffic *t) {
    const fl_cost kn = fl__node_cost(n), *k = &kn;
    t->work = (double)k->flops.k + (double)k->int_ops.k;
    t->bytes = (double)k->bytes_read.k + (double)k->bytes_written.k;
    t->strided_bytes = 0;
    t->line_bytes = 0;
    t->runs = 0;
    const fl_tensor *y = n->n_outputs > 0 ? &n->outputs[0] : NULL;
    const char *op = fl__roofline_op_name(n);
    if ((cls == FL_CLASS_ELEMENTWISE && transcendental(op)) || cls == FL_CLASS_SOFTMAX) {
        double e = elements(y);
        double per =
            cls == FL_CLASS_ELEMENTWISE && erf_form(n, op) ? FL_ERF_OPS : FL_TRANSCENDENTAL_OPS;
        t->work += e > 0 ? per * e : 0;
        return;
    }
    if (cls == FL_CLASS_POOLING) {
        pool_traffic(n, op, t);
        return;
    }
    if (cls == FL_CLASS_ELEMENTWISE && divide(op)) {
        double e = elements(y);
        t->work += e > 0 ? FL_DIVIDE_OPS * e : 0;
        return;
    }
    static const char *const touch[] = {
        "Slice",          "StridedSlice", "Gather",         "GatherV2",
        "GatherElements", "GatherND",     "ResourceGather", NULL};
    if (op_is(op, touch) && y && n->n_outputs == 1) {
        /* the data input is read where it is copied out; the others fully */
        double out = fl__roofline_tensor_bytes(y), other = 0;
        for (int i = 1; i < n->n_inputs; i++) {
            other += fl__roofline_tensor_bytes(in_tensor(n, i));
        }
        if (out > 0 && 2 * out + other < t->bytes) {
            t->bytes = 2 * out + other;
        }
        return;
    }
    if (strcmp(op, "Transpose") == 0 && y) {
        double run = transpose_run(n), e = elements(y);
        double esz = (double)fl__dtype_size(fl_dtype_base(y->dtype));
        if (run == 1 && e > 1 && esz > 0) {
            /* the innermost axis moves: the strided side in vectors (or
             * lines, element by element), the other side its bytes */
            double piece = esz > FL_VECTOR_BYTES ? esz : FL_VECTOR_BYTES;
            t->strided_bytes = e * piece + e * esz;
            t->line_bytes = e * FL_LINE_BYTES + e * esz;
        } else if (run > 0 && e > 0) {
            t->runs = e / run;
        }
    }
}
