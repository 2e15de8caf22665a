/*
 * cli.h - what every part of the foldline CLI shares: exit statuses and the
 * one-line usage error.
 */
#ifndef FL_CLIENT_CLI_H
#define FL_CLIENT_CLI_H

#include "foldline/status.h"

#define EXIT_BAD_MODEL 1 /* the model is invalid: the message names node and field */
#define EXIT_USAGE     2 /* bad command line */
/* A file cannot be read or written, memory ran out, the environment lacks
 * something (remote module, OpenBLAS), or (remote mode) the server cannot be
 * reached. */
#define EXIT_IO 3
/* The model is valid but uses something foldline does not support (a data
 * type, an ONNX domain or opset, an input kind...): the message names it. */
#define EXIT_UNSUPPORTED 5
/* --require-complete and the answer is partial (fl_report.complete false). */
#define EXIT_PARTIAL 4

/* Prints "foldline: MESSAGE" and a pointer to the help (of the command
 * being run, when there is one) on stderr; returns
 * EXIT_USAGE so callers can `return fl_cli_usage_error(...)`. */
int fl_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The command usage errors point to (`foldline help CMD`); NULL: --help. */
void fl_cli_set_command(const char *cmd);

/* The exit status for an analysis that failed with `st`, the same in local
 * and remote mode: out of memory EXIT_IO, a usage error EXIT_USAGE,
 * something foldline does not support EXIT_UNSUPPORTED, anything else the
 * model's fault (EXIT_BAD_MODEL). */
int fl_cli_exit_of(fl_status st);

#endif
