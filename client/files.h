/*
 * files.h - the other files of a model made of several (a TF.js model.json's
 * weight shards), found beside the model file and mapped read-only.
 */
#ifndef FL_CLIENT_FILES_H
#define FL_CLIENT_FILES_H

#include "foldline/foldline.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

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

/* A model file's bytes. A regular file is mapped read-only and never copied
 * (its weight pages are read only if the analysis needs them); anything that
 * cannot be mapped (a pipe, a filesystem without mmap, an empty file) is read
 * into memory instead. FOLDLINE_NO_MMAP in the environment forces reading. */
typedef struct fl_cli_model {
    const void *bytes;
    size_t len;
    bool mapped;
    int fd;               /* mapped: kept open to check the size again */
    struct stat st;       /* at open */
    unsigned char *owned; /* read (or replaced) bytes, freed on close */
    char path[512];
} fl_cli_model;

/* Opens path; 0, or -1 with err ("cannot open 'PATH': ..."). While a file is
 * mapped, a SIGBUS (the file was truncated under the mapping) ends the
 * process with EXIT_IO and a message naming the file. */
int fl_cli_model_open(fl_cli_model *m, const char *path, char *err, size_t errlen);

/* 0 when a mapped file still has the size and mtime it had when mapped,
 * else -1 with err naming the file and both sizes. */
int fl_cli_model_check(const fl_cli_model *m, char *err, size_t errlen);

/* Drops the file and holds `buf` (malloc'd, owned from now on) instead. */
void fl_cli_model_replace(fl_cli_model *m, unsigned char *buf, size_t len);

void fl_cli_model_close(fl_cli_model *m);

#endif
