/*
 * llm.h - the LLM view of `analyze`: for a decoder with a KV cache (inputs
 * named past or cache) or a sequence symbol, the cost per token of prefill
 * (past = 0, seq = prompt) and decode (seq = 1 at a context), the KV-cache
 * bytes per token and at the context, and each phase's arithmetic intensity
 * (FLOPs per byte moved). The engine computes it (fl_report.llm), locally
 * or on the server; this prints it and maps the CLI's options.
 */
#ifndef FL_CLIENT_LLM_H
#define FL_CLIENT_LLM_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct fl_llm_cli {
    int64_t prompt;  /* --prompt N; 0: 128 */
    int64_t context; /* --context N; 0: 1024 */
    bool off;        /* --no-llm */
} fl_llm_cli;

/* Handles --prompt N, --context N and --no-llm at argv[*i]: 1 when it was
 * one (value consumed), 0 when not ours, 2 on a bad value (printed). */
int fl_llm_cli_option(fl_llm_cli *lc, int argc, char **argv, int *i);

/* The fl_options fields of the view as lc asks: on unless --no-llm. */
void fl_llm_cli_apply(const fl_llm_cli *lc, fl_options *o);

/* Prints the view of r (r->llm) after its text report; nothing without. */
void fl_llm_view(FILE *f, const fl_report *r);

/* Prints the view's time per token per profile (a table; nothing without
 * profiles). */
void fl_llm_roofline_text(FILE *f, const fl_report_llm *v);

/* Prints r->llm as a JSON value (null without a view). */
void fl_llm_json(FILE *f, const fl_report *r);

#endif
