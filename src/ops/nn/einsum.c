/*
 * nn/einsum.c - Einsum with two operands (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Einsum                                                                     */
/* ------------------------------------------------------------------------- */

#define EIN_MAX 64 /* subscripts per operand */

typedef struct einsum_eq {
    int n_ops;
    int len[2];
    int lab[2][EIN_MAX]; /* label index 0..51 */
    int out_len;
    int out[EIN_MAX];
} einsum_eq;

static int ein_label(char ch) {
    if (ch >= 'a' && ch <= 'z') {
        return ch - 'a';
    }
    if (ch >= 'A' && ch <= 'Z') {
        return 26 + (ch - 'A');
    }
    return -1;
}

/* Parses "ab,bc->ac" (one or two operands, letters only, explicit output).
 * Returns false for anything else (ellipsis, more operands, no '->'). */
static bool einsum_parse(const char *eq, einsum_eq *e) {
    memset(e, 0, sizeof *e);
    const char *arrow = strstr(eq, "->");
    if (!arrow || strstr(arrow + 2, "->")) {
        return false;
    }
    int op = 0;
    for (const char *p = eq; p < arrow; p++) {
        if (*p == ' ') {
            continue;
        }
        if (*p == ',') {
            if (++op >= 2) {
                return false;
            }
            continue;
        }
        int l = ein_label(*p);
        if (l < 0 || e->len[op] >= EIN_MAX) {
            return false;
        }
        e->lab[op][e->len[op]++] = l;
    }
    e->n_ops = op + 1;
    for (const char *p = arrow + 2; *p; p++) {
        if (*p == ' ') {
            continue;
        }
        int l = ein_label(*p);
        if (l < 0 || e->out_len >= EIN_MAX) {
            return false;
        }
        e->out[e->out_len++] = l;
    }
    return true;
}

/* Size of every label (unknown where no operand gives it); fails on known
 * mismatches. `check`: also validate ranks and report errors. */
static fl_status einsum_sizes(fl_ctx *c, const fl_node *n, const einsum_eq *e, fl_sym *size,
                              bool *seen) {
    for (int i = 0; i < 52; i++) {
        size[i] = fl_sym_unknown();
        seen[i] = false;
    }
    for (int o = 0; o < e->n_ops; o++) {
        const fl_shape *s = fl__op_in_shape(n, o);
        if (s->rank >= 0 && s->rank != e->len[o]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d has rank %d but attr 'equation' gives it %d subscripts",
                                 o, s->rank, e->len[o]);
        }
        for (int j = 0; j < e->len[o]; j++) {
            int l = e->lab[o][j];
            fl_sym d = fl__shape_dim(s, j);
            if (!seen[l]) {
                seen[l] = true;
                size[l] = d;
                continue;
            }
            fl_status st =
                fl__op_merge_dim(c, n, size[l], d, "sizes of an einsum subscript", &size[l]);
            if (st != FL_OK) {
                return st;
            }
        }
    }
    return FL_OK;
}

static fl_status einsum_get(fl_ctx *c, const fl_node *n, einsum_eq *e, bool *ok) {
    fl_str s;
    fl_status st = fl__attr_get_str(n, "equation", &s, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation' is required");
    }
    if (st != FL_OK) {
        return st;
    }
    *ok = strlen(s.p) == s.len && einsum_parse(s.p, e);
    if (*ok && e->n_ops != n->n_inputs) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'equation' has %d operands but the node has %d inputs", e->n_ops,
                             n->n_inputs);
    }
    return FL_OK;
}

static fl_status infer_einsum(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    einsum_eq e;
    bool ok;
    fl_status st;
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = einsum_get(c, n, &e, &ok)) != FL_OK) {
        return st;
    }
    if (!ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym size[52];
    bool seen[52], in_out[52] = {false};
    if ((st = einsum_sizes(c, n, &e, size, seen)) != FL_OK) {
        return st;
    }
    fl_sym dims[EIN_MAX];
    for (int j = 0; j < e.out_len; j++) {
        int l = e.out[j];
        if (!seen[l] || in_out[l]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'equation': output subscript %d %s", j,
                                 seen[l] ? "is repeated" : "appears in no input");
        }
        in_out[l] = true;
        dims[j] = size[l];
    }
    return fl__op_set_output(c, n, 0, dt, e.out_len, dims);
}

static fl_status cost_einsum(fl_ctx *c, const fl_node *n, fl_cost *out) {
    einsum_eq e;
    bool ok;
    fl_status st = einsum_get(c, n, &e, &ok);
    if (st != FL_OK) {
        return st;
    }
    if (!ok || e.n_ops != 2) {
        fl__ar_no_rule(out);
        return FL_OK;
    }
    fl_sym size[52];
    bool seen[52];
    if ((st = einsum_sizes(c, n, &e, size, seen)) != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym macs = fl_sym_const(1);
    for (int l = 0; l < 52; l++) {
        if (seen[l]) {
            macs = fl__ar_mul(&k, macs, size[l]);
        }
    }
    return fl__ar_put_cost_tf(&k, out, fl__ar_scale(&k, macs, 2), fl_sym_const(0), macs, false);
}

/* Hook sets and descriptors (their rows: einsum.def). */
#define HOOKS_einsum .infer = infer_einsum, .cost = cost_einsum

#define FL_OP FL_OP_DESC
#include "ops/nn/einsum.def"
#undef FL_OP
