/*
 * card.h - `foldline card`: a model-card section (Markdown or JSON).
 */
#ifndef FL_CLIENT_CARD_H
#define FL_CLIENT_CARD_H

#include "analysis.h"
#include "foldline/foldline.h"

#include <stdbool.h>
#include <stdio.h>

/* A binding the card's values are stated at. */
typedef struct fl_card_binding {
    char *text;      /* "SYM=N" */
    bool by_default; /* not given: the symbol at 1 */
} fl_card_binding;

typedef struct fl_card {
    const char *model;
    const fl_report *formulas; /* without --bind, no passes: the formulas */
    const fl_report *bound;    /* with the bindings: values and estimates */
    const fl_card_binding *bindings;
    size_t n_bindings;
    const fl_cli_analysis *analysis; /* of `bound`: its profiles */
    /* A decoder's LLM view (src/api/llm.c) of the graph analysed with only
     * the bindings given and the profiles: the phases and their times per
     * token. NULL for other graphs and with --no-llm. */
    const fl_report_llm *llm;
} fl_card;

/* `foldline card MODEL [analyze options] [--format md|json]`. */
int fl_cmd_card(int argc, char **argv);

void fl_card_print_md(FILE *f, const fl_card *c);
void fl_card_print_json(FILE *f, const fl_card *c);

#endif
