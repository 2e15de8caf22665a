/*
 * llm.h - the LLM view of `analyze`: for a decoder with a KV cache (inputs
 * named past or cache) or a sequence symbol, the cost per token of prefill
 * (past = 0, seq = prompt) and decode (seq = 1 at a context), the KV-cache
 * bytes per token and at the context, and each phase's arithmetic intensity
 * (FLOPs per byte moved). Each phase is one more analysis with those
 * bindings, in-process or on the server.
 */
#ifndef FL_CLIENT_LLM_H
#define FL_CLIENT_LLM_H

#include "foldline/foldline.h"
#include "roofcli.h"

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

/* Prints the view after the report `base` of the graph (nothing when the
 * graph has neither a KV cache nor a sequence symbol). opt: the options of
 * `base`; be: NULL for in-process analyses. Returns 0 or an exit status
 * (the failure printed). */
int fl_llm_view(FILE *f, const fl_llm_cli *lc, const fl_report *base, const unsigned char *buf,
                size_t len, const fl_options *opt, const fl_roof_backend *be, const char *model);

#endif
