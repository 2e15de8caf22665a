/*
 * llm.h - the LLM view of a decoder (fl_options.llm; see fl_report_llm in
 * foldline.h for the roles and the phases).
 */
#ifndef FL_API_LLM_H
#define FL_API_LLM_H

#include "foldline/foldline.h"
#include "util/arena.h"

/* NULL when the view's options are valid, else what is wrong with them. */
const char *fl__llm_check(const fl_options *opt);

/* Fills r->llm for the report r of the graph in `bytes` when the graph is a
 * decoder (else leaves it NULL), analysing the graph once per phase. A
 * phase that fails leaves the view out with a warning in r. Allocates in
 * the report's arena ra; FL_ENOMEM when that fails, FL_ECANCELED when
 * should_stop ended a phase (r->error set). */
/* The graph of report r is a decoder as the view's roles tell. */
bool fl__llm_applies(const fl_report *r);

/* Whether a failed fl_analyze ran into its options' max_memory_bytes (as
 * against malloc failing): the user's limit, not the machine's memory. */
bool fl__report_over_limit(const fl_report *r);

fl_status fl__llm_view(const void *bytes, size_t len, const fl_options *opt, fl_arena *ra,
                       fl_report *r);

#endif
