/*
 * cli.c - the CLI's shared usage error; see cli.h.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

static const char *command;

void fl_cli_set_command(const char *cmd) {
    command = cmd;
}

int fl_cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "foldline: ");
    vfprintf(stderr, fmt, ap);
    if (command) {
        fprintf(stderr, "\n(see foldline help %s)\n", command);
    } else {
        fprintf(stderr, "\n(see foldline --help)\n");
    }
    va_end(ap);
    return EXIT_USAGE;
}

int fl_cli_exit_of(fl_status st) {
    switch (st) {
    case FL_ENOMEM:
        return EXIT_IO;
    case FL_EUSAGE:
        return EXIT_USAGE;
    case FL_EUNSUPPORTED:
        return EXIT_UNSUPPORTED;
    default:
        return EXIT_BAD_MODEL;
    }
}
