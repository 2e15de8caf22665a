/*
 * sym_parse.c - a dimension named by an expression of other dimensions; see
 * sym.h (fl__sym_parse_dim).
 *
 * Exporters name a dim they know to be a sum of others with that sum: an
 * attention mask's "past_sequence_length + sequence_length", a decoder's
 * "past_sequence_length + 1". Read as one opaque name it is a symbol of its
 * own, which nothing ties to the dims it adds up, so the mask cannot be
 * broadcast against the scores the model computes from those dims. Read as
 * the expression it is, the two agree.
 *
 * Only a name that is plainly arithmetic is read: operands are names
 * (letters, digits, '_' and '.', not starting with a digit) and decimal
 * integers, the operators + - * each with a space on both sides, and
 * parentheses. "batch-size" and "2x" stay names; so does anything else,
 * and a product whose expansion would pass MAX_TERMS terms ("(a + b) * (c +
 * d) * ..." doubles with each factor).
 */
#include "sym/sym_int.h"

#include <stdint.h>
#include <string.h>

typedef struct parser {
    fl_symtab *t;
    const char *p;
    bool dry;       /* syntax only: no variable is made, no arithmetic done */
    bool spaced_op; /* an operator with a space on both sides was met */
    fl_status st;   /* FL_ENOTFOUND: not an expression; else an error */
} parser;

#define MAX_TERMS 64

static size_t n_terms(fl_sym s) {
    return fl_sym_is_symbolic(s) ? s.e->n : 1;
}

static bool is_name_start(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static bool is_name_char(char ch) {
    return is_name_start(ch) || (ch >= '0' && ch <= '9') || ch == '.';
}

static bool parse_sum(parser *ps, fl_sym *out, int depth);

static bool parse_operand(parser *ps, fl_sym *out, int depth) {
    const char *p = ps->p;
    if (*p == '(') {
        ps->p = p + 1;
        if (!parse_sum(ps, out, depth + 1) || *ps->p != ')') {
            return false;
        }
        ps->p++;
        return true;
    }
    if (*p >= '0' && *p <= '9') {
        int64_t v = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v)) {
                return false;
            }
        }
        if (is_name_char(*p)) {
            return false; /* "2x" */
        }
        ps->p = p;
        *out = fl_sym_const(v);
        return true;
    }
    if (!is_name_start(*p)) {
        return false;
    }
    const char *start = p;
    while (is_name_char(*p)) {
        p++;
    }
    char name[256];
    size_t len = (size_t)(p - start);
    if (len >= sizeof name) {
        return false;
    }
    memcpy(name, start, len);
    name[len] = '\0';
    fl_status st = ps->dry ? FL_OK : fl__sym_size_var(ps->t, name, out);
    if (ps->dry) {
        *out = fl_sym_const(0);
    }
    if (st != FL_OK) {
        ps->st = st;
        return false;
    }
    ps->p = p;
    return true;
}

/* An operator " op " at ps->p: its character, or 0. */
static char spaced_op(parser *ps, const char *ops) {
    const char *p = ps->p;
    if (p[0] == ' ' && p[1] && strchr(ops, p[1]) && p[2] == ' ') {
        return p[1];
    }
    return 0;
}

static bool parse_product(parser *ps, fl_sym *out, int depth) {
    if (!parse_operand(ps, out, depth)) {
        return false;
    }
    while (spaced_op(ps, "*")) {
        ps->p += 3;
        ps->spaced_op = true;
        fl_sym r;
        if (!parse_operand(ps, &r, depth)) {
            return false;
        }
        if (!ps->dry && n_terms(*out) * n_terms(r) > MAX_TERMS) {
            return false;
        }
        fl_status st = ps->dry ? FL_OK : fl__sym_mul(ps->t, *out, r, out);
        if (st != FL_OK) {
            ps->st = st == FL_EOVERFLOW ? FL_ENOTFOUND : st;
            return false;
        }
    }
    return true;
}

static bool parse_sum(parser *ps, fl_sym *out, int depth) {
    if (depth > 16 || !parse_product(ps, out, depth)) {
        return false;
    }
    char op;
    while ((op = spaced_op(ps, "+-")) != 0) {
        ps->p += 3;
        ps->spaced_op = true;
        fl_sym r;
        if (!parse_product(ps, &r, depth)) {
            return false;
        }
        fl_status st = ps->dry     ? FL_OK
                       : op == '+' ? fl__sym_add(ps->t, *out, r, out)
                                   : fl__sym_sub(ps->t, *out, r, out);
        if (st != FL_OK) {
            ps->st = st == FL_EOVERFLOW ? FL_ENOTFOUND : st;
            return false;
        }
    }
    return true;
}

fl_status fl__sym_parse_dim(fl_symtab *t, const char *text, fl_sym *out) {
    if (!t || !text || !strchr(text, ' ')) {
        return FL_ENOTFOUND;
    }
    /* the syntax first, so a name that is not an expression makes nothing */
    parser dry = {t, text, true, false, FL_ENOTFOUND};
    fl_sym r;
    if (!parse_sum(&dry, &r, 0) || *dry.p != '\0' || !dry.spaced_op) {
        return FL_ENOTFOUND;
    }
    parser ps = {t, text, false, false, FL_ENOTFOUND};
    if (!parse_sum(&ps, &r, 0)) {
        return ps.st; /* FL_ENOTFOUND: the arithmetic overflowed */
    }
    *out = r;
    return FL_OK;
}
