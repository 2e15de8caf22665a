/*
 * remote_module.h - the interface between the foldline CLI and its remote-mode
 * module, foldline-remote.so (client/remote.c with gRPC and the service
 * protocol). The CLI links neither gRPC nor the service messages: it dlopens
 * the module only when remote mode runs (client/remote_load.c), so local
 * analysis starts without loading gRPC (about 60 shared libraries).
 *
 * The module exports one symbol, FL_REMOTE_MODULE_SYMBOL: a constant
 * fl_remote_module. The loader checks abi_version, table_size and the layout
 * sizes before using anything else in it, then calls init once with the
 * engine functions the module needs (the module does not link the engine).
 *
 * Any change to this table, to remote.h or to the public structs it passes
 * (fl_options, fl_report, fl_profile_set) bumps FL_REMOTE_MODULE_ABI.
 */
#ifndef FL_CLIENT_REMOTE_MODULE_H
#define FL_CLIENT_REMOTE_MODULE_H

#include "foldline/foldline.h"
#include "remote.h"

#include <stddef.h>
#include <stdint.h>

#define FL_REMOTE_MODULE_ABI    9u
#define FL_REMOTE_MODULE_SYMBOL "foldline_remote_module" /* remote.c defines it */
#define FL_REMOTE_MODULE_FILE   "foldline-remote.so"

/* What the CLI lends the module: the engine's name tables, so both sides
 * agree on them without the module linking the engine. */
typedef struct fl_remote_host {
    const char *(*status_name)(fl_status s);
    const char *(*unit_name)(fl_unit u);
    const char *(*precision_name)(fl_precision p);
    const char *(*op_class_name)(fl_op_class c);
} fl_remote_host;

typedef struct fl_remote_module {
    uint32_t abi_version; /* FL_REMOTE_MODULE_ABI the module was built with */
    uint32_t table_size;  /* sizeof(fl_remote_module) in the module */
    const char *version;  /* the project version the module was built from */
    /* sizeof the structs crossing the boundary, as the module sees them */
    uint32_t options_size, report_size, profile_size, remote_options_size;
    /* Called once, before anything below; `host` outlives the process. */
    void (*init)(const fl_remote_host *host);
    /* The functions of remote.h, same contracts. */
    fl_remote_failure (*analyze)(const fl_remote_options *ro, const void *bytes, size_t len,
                                 const fl_options *opt, fl_report **out, fl_status *engine,
                                 char *err, size_t errlen);
    void (*report_free)(fl_report *r);
    fl_remote_failure (*list_profiles)(const fl_remote_options *ro, fl_profile_set *out, char **dir,
                                       char *err, size_t errlen);
    void (*profiles_free)(fl_profile_set *set, char *dir);
    fl_remote_failure (*health)(const fl_remote_options *ro, const char *service, char *status,
                                size_t statuslen, char *err, size_t errlen);
} fl_remote_module;

#endif
