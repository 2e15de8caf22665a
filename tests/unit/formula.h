/*
 * formula.h - evaluates the formulas foldline prints for symbolic counts.
 *
 * Grammar (fl__sym_format's output): sums and differences of products of
 * integers, identifiers (letters, digits, '_', '.', '/', '-' inside names are
 * not used), powers (x^2), parentheses, and the calls floor(a/b), ceil(a/b),
 * mod(a, b), max(a, b), min(a, b). Used by tests to check that a printed
 * formula, evaluated at some binding, equals a concrete analysis.
 */
#ifndef FL_TEST_FORMULA_H
#define FL_TEST_FORMULA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Evaluates `text` with names[i] = vals[i]. Returns false on a syntax error,
 * an unbound identifier or a value beyond int64 (message in err). */
bool formula_eval(const char *text, size_t n, const char *const *names, const int64_t *vals,
                  int64_t *out, char *err, size_t errlen);

#endif
