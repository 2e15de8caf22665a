/*
 * remote.h - the CLI's remote mode: send a model to foldlined and rebuild the
 * report it answers with, so the printers print what local mode prints.
 *
 * The work is done by the module foldline-remote.so (remote.c, which links
 * gRPC); the executable's remote_load.c implements these functions by loading
 * it on first use (see remote_module.h), so local mode never loads gRPC.
 */
#ifndef FL_CLIENT_REMOTE_H
#define FL_CLIENT_REMOTE_H

#include "foldline/foldline.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fl_remote_options {
    const char *server;  /* a gRPC target: HOST:PORT, dns:///NAME:PORT, ipv4:A:P,B:P, unix:PATH */
    const char *token;   /* bearer token, or NULL */
    const char *tls_ca;  /* PEM file with the CA that signed the server's cert; NULL = plain */
    bool tls;            /* TLS with the system CA store (tls_ca unset) */
    int64_t timeout_ms;  /* per call; 0 = none */
    size_t stream_above; /* graphs larger than this go through AnalyzeStream */
    size_t chunk_bytes;  /* bytes per AnalyzeStream message */
    const char *const *profiles; /* --profile names, resolved by the server */
    size_t n_profiles;
} fl_remote_options;

/* What went wrong when fl_remote_analyze fails. */
typedef enum fl_remote_failure {
    FL_REMOTE_OK = 0,
    FL_REMOTE_ENGINE,    /* the engine rejected the model or an option (message = engine's) */
    FL_REMOTE_TRANSPORT, /* could not reach the server, auth, deadline, server error */
} fl_remote_failure;

/* Loads the remote-mode module if it is not loaded yet: 0 when remote mode
 * can run; otherwise prints why on stderr (the paths tried, or the one that
 * failed and dlerror()'s reason) and returns EXIT_IO. Call it before the
 * functions below (which otherwise fail with FL_REMOTE_TRANSPORT). */
int fl_remote_require(void);

/* Analyses `len` bytes on the server with options `opt`. On success returns
 * FL_REMOTE_OK and *out, a report owned by the caller that must be released
 * with fl_remote_report_free (never fl_report_free). On failure writes a one-
 * line message to err (for FL_REMOTE_TRANSPORT it starts with the gRPC status
 * name) and returns the failure kind; for FL_REMOTE_ENGINE *engine is the
 * engine's status, as fl_analyze would have returned it locally. */
fl_remote_failure fl_remote_analyze(const fl_remote_options *ro, const void *bytes, size_t len,
                                    const fl_options *opt, fl_report **out, fl_status *engine,
                                    char *err, size_t errlen);

/* Releases a report made by fl_remote_analyze (NULL is fine). */
void fl_remote_report_free(fl_report *r);

/* The server's profiles (ListProfiles) as a profile set, and the directory
 * the server loaded them from (malloc'd, in *dir). Free with
 * fl_remote_profiles_free. Failures as for fl_remote_analyze. */
fl_remote_failure fl_remote_list_profiles(const fl_remote_options *ro, fl_profile_set *out,
                                          char **dir, char *err, size_t errlen);

void fl_remote_profiles_free(fl_profile_set *set, char *dir);

/* grpc.health.v1.Health/Check for `service` ("" = the server as a whole):
 * FL_REMOTE_OK with the answer ("SERVING", "NOT_SERVING", ...) in status,
 * else FL_REMOTE_TRANSPORT and the gRPC status and message in err. */
fl_remote_failure fl_remote_health(const fl_remote_options *ro, const char *service, char *status,
                                   size_t statuslen, char *err, size_t errlen);

#endif
