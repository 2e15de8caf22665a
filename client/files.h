/*
 * files.h - the other files of a model made of several (a TF.js model.json's
 * weight shards), found beside the model file and mapped read-only.
 */
#ifndef FL_CLIENT_FILES_H
#define FL_CLIENT_FILES_H

#include "foldline/foldline.h"

#include <stddef.h>

typedef struct fl_cli_files {
    fl_file *files; /* names as the model refers to them; bytes mapped */
    size_t n;
    size_t cap;
} fl_cli_files;

/* Maps every file the model (`buf`, format `fmt`) refers to that exists
 * relative to the model's directory. A file that is missing is left out (the
 * engine names it in a warning). Returns 0, or -1 with err filled when one
 * exists but cannot be read. */
int fl_cli_files_load(fl_cli_files *f, const char *model_path, const void *buf, size_t len,
                      fl_format fmt, char *err, size_t errlen);

void fl_cli_files_free(fl_cli_files *f);

#endif
