/*
 * cli.c - the CLI's shared usage error; see cli.h.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

int fl_cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "foldline: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see foldline --help)\n");
    va_end(ap);
    return EXIT_USAGE;
}

int fl_cli_exit_of(fl_status st) {
    return st == FL_ENOMEM ? EXIT_IO : st == FL_EUSAGE ? EXIT_USAGE : EXIT_BAD_MODEL;
}
