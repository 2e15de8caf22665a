/*
 * roofcli.h - the CLI's device-profile and roofline parts: --profile,
 * --profiles-dir and --sweep for `analyze`, the `profiles` and `calibrate`
 * commands, and the roofline sections of the text and JSON output.
 */
#ifndef FL_CLIENT_ROOFCLI_H
#define FL_CLIENT_ROOFCLI_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct fl_roof_cli {
    const char **names; /* --profile values, in order ("all" allowed) */
    size_t n_names;
    const char **dirs; /* --profiles-dir values: added to the shipped profiles */
    size_t n_dirs;
    fl_profile **files; /* --profile FILE.yaml: loaded from the file given */
    size_t n_files;
    const char *sweep_sym; /* --sweep SYM=v1,v2,... */
    int64_t *sweep_vals;
    size_t n_sweep;
    fl_profile_set set;
    const fl_profile **selected;
    size_t n_selected;
    bool summary;          /* --summary: the sweep's records are summaries */
    bool require_complete; /* --require-complete: exit 4 when a point is partial */
} fl_roof_cli;

/* The shipped profiles directory: $FOLDLINE_PROFILES_DIR, else the build's
 * default (the source tree's deploy/profiles, or the installed copy). */
const char *fl_roof_cli_dir(void);

/* True when a --profile value names a file rather than a profile: it contains
 * a '/' or ends in .yaml / .yml. */
bool fl_roof_cli_is_file(const char *arg);

/* Handles argv[*i] when it is one of our options (consuming its value and
 * advancing *i): returns 1. Returns 0 when it is not ours, and 2 (a usage
 * error printed) when its value is bad. */
int fl_roof_cli_option(fl_roof_cli *rc, int argc, char **argv, int *i);

/* Loads the profiles (the shipped ones plus every --profiles-dir, and the
 * --profile files) and selects the --profile values into opt->profiles.
 * Returns 0, or an exit status after printing the error (2 for an unknown
 * name, 1 for an invalid profile file or a name defined twice, 3 for an
 * unreadable file or directory). Nothing to do without --profile. */
int fl_roof_cli_prepare(fl_roof_cli *rc, fl_options *opt);

/* In remote mode the server resolves profile names: a --profile FILE is a
 * usage error (printed; returns 2), else 0. */
int fl_roof_cli_check_remote(const fl_roof_cli *rc);

/* Where a sweep's analyses run when not in-process (the CLI's remote mode):
 * analyze returns 0 and *out, or an exit status with a message in err;
 * free_report releases what it returned. */
typedef struct fl_roof_backend {
    int (*analyze)(void *ctx, const unsigned char *buf, size_t len, const fl_options *opt,
                   fl_report **out, char *err, size_t errlen);
    void (*free_report)(fl_report *r);
    void *ctx;
} fl_roof_backend;

/* Runs the analysis once per --sweep value (binding the swept symbol) and
 * prints a table, or with `json` one document: the swept symbol and values
 * and the list of the records `analyze --json` (or --summary) prints, one
 * per value. `be` NULL: fl_analyze in-process. Returns the exit status. */
int fl_roof_cli_sweep(fl_roof_cli *rc, const unsigned char *buf, size_t len, fl_options *opt,
                      bool json, const char *model, const fl_roof_backend *be);

void fl_roof_cli_free(fl_roof_cli *rc);

/* `foldline profiles [--profiles-dir DIR]... [--sources] [--json]`. */
int fl_cmd_profiles(int argc, char **argv);

/* Prints a profile set as `foldline profiles` does (dir: where it came from). */
void fl_print_profiles(const fl_profile_set *set, const char *dir, bool json, bool verbose);

/* `foldline calibrate [-o FILE] [--threads N] [--short] [--name NAME]`. */
int fl_cmd_calibrate(int argc, char **argv);

/* `foldline fit --profile BASE -o OUT.yaml [--bind SYM=N] MODEL=TRACE...`
 * (client/fit.c). */
int fl_cmd_fit(int argc, char **argv);

/* A file written whole or not at all: fl_outfile_open (path NULL: stdout)
 * gives a stream on a temporary file beside `path`; fl_outfile_commit
 * renames it over `path` once everything was written; fl_outfile_abort (or a
 * failed commit) removes it, leaving `path` as it was. Both return 0 or -1
 * with err set. */
typedef struct fl_outfile {
    FILE *f;
    const char *path;
    char *tmp;
} fl_outfile;

int fl_outfile_open(fl_outfile *o, const char *path, char *err, size_t errlen);
int fl_outfile_commit(fl_outfile *o, char *err, size_t errlen);
void fl_outfile_abort(fl_outfile *o);

/* The roofline tables of the text summary (nothing when no profile). */
/* A time as the roofline tables print it ("12.3 us"), into buf. */
const char *fl_roof_cli_fmt_time(double s, char *buf, size_t size);

void fl_print_roofline_text(FILE *f, const fl_report *r, size_t top);

/* The JSON `roofline` array (the value only). */
void fl_print_roofline_json(FILE *f, const fl_report *r, const char *indent);

#endif
