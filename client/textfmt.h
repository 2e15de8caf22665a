/*
 * textfmt.h - column helpers for the CLI's text tables: names shortened in
 * the middle so the rows of one table stay distinct, and long cells (formulas)
 * wrapped under their own column.
 */
#ifndef FL_CLIENT_TEXTFMT_H
#define FL_CLIENT_TEXTFMT_H

#include <stddef.h>
#include <stdio.h>

/* Writes names[i] shortened to at most `width` bytes into out[size]: the
 * name itself when it fits, else its start, "...", and its end, with the
 * first character that tells it from every other entry of names[0..n) kept
 * visible (a second "..." cuts the middle when that character is far from
 * both ends). */
void fl_text_abbrev(const char *const *names, size_t n, size_t i, size_t width, char *out,
                    size_t size);

/* Width of a name column holding names[0..n): the longest name, clamped to
 * [min, max]. */
size_t fl_text_name_width(const char *const *names, size_t n, size_t min, size_t max);

/* Prints a table row of a label (width lw) and `nc` right-aligned cells of
 * width cw each, separated by two spaces. A cell longer than cw is wrapped at
 * its spaces (a formula's " + ") onto continuation lines under its column. */
void fl_text_row(FILE *f, const char *indent, const char *label, int lw, const char *const *cells,
                 size_t nc, int cw);

#endif
