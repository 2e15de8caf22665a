/*
 * analysis.h - one model analysed with analyze's options, for the commands
 * that build on analyze (diff, card, report). Implemented in main.c, which
 * owns the option parser and remote mode.
 */
#ifndef FL_CLIENT_ANALYSIS_H
#define FL_CLIENT_ANALYSIS_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct fl_cli_analysis fl_cli_analysis;

/* argv: MODEL followed by analyze's options (--sweep excepted). Parses them,
 * reads the model and analyses it (on the server in remote mode). Returns 0
 * and *out, or the exit status after printing the problem on stderr (usage
 * errors as analyze words them). argv's strings must outlive *out. */
int fl_cli_analysis_run(int argc, char **argv, fl_cli_analysis **out);

const fl_report *fl_cli_analysis_report(const fl_cli_analysis *a);

/* The i-th profile the estimates used (fl_report.roofline[i]); in remote
 * mode the server's profile of that name (ListProfiles), NULL when the
 * server has none of that name. */
const fl_profile *fl_cli_analysis_profile(const fl_cli_analysis *a, size_t i);

void fl_cli_analysis_free(fl_cli_analysis *a);

/* True in remote mode (foldline --server HOST:PORT COMMAND ...). */
bool fl_cli_remote_mode(void);

#endif
