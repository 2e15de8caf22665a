/*
 * schema.c - `foldline schema`: prints the JSON Schema (draft 2020-12) of
 * the documents foldline prints (proto/json/foldline.schema.json, compiled in).
 */
#include "schema.h"

#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Generated from proto/json/foldline.schema.json (proto/json/embed.cmake). */
extern const unsigned char fl_schema_json[];
extern const size_t fl_schema_json_len;

int fl_cmd_schema(int argc, char **argv) {
    if (argc > 0) {
        return fl_cli_usage_error("schema takes no argument, got '%s'", argv[0]);
    }
    if (fwrite(fl_schema_json, 1, fl_schema_json_len, stdout) != fl_schema_json_len ||
        fflush(stdout) != 0) {
        fprintf(stderr, "foldline: cannot write output: %s\n", strerror(errno));
        return EXIT_IO;
    }
    return 0;
}
