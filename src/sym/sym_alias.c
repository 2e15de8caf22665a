/*
 * sym_alias.c - equations between variables; see sym.h.
 *
 * An equation lives on the variable's atom, so resolving a dimension is a
 * short pointer walk: `aliased` when it equals an earlier variable (a
 * variable is aliased at most once and only to one created before it, so
 * chains end and never cycle), `fixed` when it equals a known value. Only
 * the first kind changes what inference computes (fl__sym_resolve): a known
 * value proved downstream is not pushed back into an input's shape, because
 * the rewrite passes must see the input shapes Grappler sees (it keeps a
 * placeholder's declared shape). The second kind checks bindings and is
 * reported. The table keeps every equation in the order found, with the node
 * that proved it.
 */
#include "sym/sym_int.h"

#include <string.h>

typedef struct sym_alias_rec {
    const sym_atom *var;
    const char *why;
    fl_sym to;
} sym_alias_rec;

/* The variable atom of s when s is 1*v, else NULL. */
static const sym_atom *var_atom(fl_sym s) {
    if (!fl_sym_is_symbolic(s)) {
        return NULL;
    }
    const fl_expr *e = s.e;
    if (e->n != 1 || e->t[0].coef != 1 || e->t[0].m->n != 1 || e->t[0].m->f[0].exp != 1) {
        return NULL;
    }
    const sym_atom *a = e->t[0].m->f[0].atom;
    return a->kind == SYM_VAR ? a : NULL;
}

const char *fl__sym_var_name(fl_sym s) {
    const sym_atom *a = var_atom(s);
    return a ? a->name : NULL;
}

fl_sym fl__sym_resolve(fl_sym s) {
    for (int guard = 0; guard < 1 << 20; guard++) {
        const sym_atom *a = var_atom(s);
        if (!a || !a->aliased) {
            return s;
        }
        s = a->alias;
    }
    return s;
}

/* Records var = to (a variable: an alias; known: a fixed value). */
static bool record(fl_symtab *t, const sym_atom *var, fl_sym to, const char *why, bool *oom) {
    if (t->n_aliases == t->cap_aliases) {
        size_t nc = t->cap_aliases ? t->cap_aliases * 2 : 8;
        sym_alias_rec *na =
            fl__arena_grow(t->arena, t->aliases, t->n_aliases, nc, sizeof(sym_alias_rec));
        if (!na) {
            *oom = true;
            return false;
        }
        t->aliases = na;
        t->cap_aliases = nc;
    }
    const char *w = fl__arena_strdup(t->arena, why ? why : "");
    if (!w) {
        *oom = true;
        return false;
    }
    sym_atom *v = (sym_atom *)var; /* atoms are immutable but for their equations */
    if (fl_sym_is_known(to)) {
        v->fixed = true;
        v->fixed_k = to.k;
    } else {
        const sym_atom *rep = var_atom(to);
        v->aliased = true;
        v->alias = to;
        t->n_merges++;
        if (v->fixed && !rep->fixed) { /* the representative inherits the value */
            ((sym_atom *)rep)->fixed = true;
            ((sym_atom *)rep)->fixed_k = v->fixed_k;
        }
    }
    t->aliases[t->n_aliases++] = (sym_alias_rec){var, w, to};
    return true;
}

bool fl__sym_alias(fl_symtab *t, fl_sym a, fl_sym b, const char *why, bool *oom) {
    *oom = false;
    if (!t || fl_sym_is_unknown(a) || fl_sym_is_unknown(b)) {
        return false;
    }
    a = fl__sym_resolve(a);
    b = fl__sym_resolve(b);
    if (fl__sym_eq(a, b)) {
        return false;
    }
    const sym_atom *va = var_atom(a), *vb = var_atom(b);
    if (va && vb) {
        /* The later variable becomes the alias of the earlier one. */
        return va->seq > vb->seq ? record(t, va, b, why, oom) : record(t, vb, a, why, oom);
    }
    if (!va && vb) {
        const sym_atom *x = va;
        va = vb;
        vb = x;
        fl_sym y = a;
        a = b;
        b = y;
    }
    if (va && fl_sym_is_known(b) && !(va->fixed && va->fixed_k == b.k)) {
        return va->fixed ? false : record(t, va, b, why, oom);
    }
    return false;
}

size_t fl__sym_n_aliases(const fl_symtab *t) {
    return t ? t->n_aliases : 0;
}

size_t fl__sym_n_merges(const fl_symtab *t) {
    return t ? t->n_merges : 0;
}

bool fl__sym_fixed(fl_sym s, int64_t *k) {
    const sym_atom *a = var_atom(fl__sym_resolve(s));
    if (a && a->fixed) {
        *k = a->fixed_k;
        return true;
    }
    return false;
}

void fl__sym_alias_at(const fl_symtab *t, size_t i, const char **name, fl_sym *value,
                      const char **why) {
    const sym_alias_rec *r = &t->aliases[i];
    *name = r->var->name;
    *value = fl__sym_resolve(r->to);
    *why = r->why;
}
