/*
 * bad_module.c - a remote-mode module from "another build" for
 * tests/cli/cli_startup.sh: it exports the table symbol with an interface
 * version the CLI does not know, which the CLI must refuse (exit 3, a message
 * naming the file and both versions) before calling anything in it.
 */
#include "remote_module.h"

const fl_remote_module foldline_remote_module = {
    .abi_version = 999,
    .table_size = sizeof(fl_remote_module),
    .version = "0.0.0-other",
};
