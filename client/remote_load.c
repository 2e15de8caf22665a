/*
 * remote_load.c - remote.h in the foldline executable: finds and dlopens the
 * remote-mode module (foldline-remote.so, remote_module.h) the first time
 * remote mode needs it, checks its table, and forwards every call to it.
 *
 * The module is looked for, in order:
 *   1. $FOLDLINE_MODULE_DIR, when set and not empty;
 *   2. the directory of the running executable (/proc/self/exe): the build
 *      tree, where the module is written beside `foldline`;
 *   3. <executable's directory>/../lib/foldline: the installed layout
 *      (`cmake --install` puts it in PREFIX/lib/foldline).
 * The first file that exists is the one: when it cannot be loaded, or its
 * table does not match this executable, that is the error (no later
 * candidate is tried behind the user's back). It is never unloaded: gRPC's
 * threads may outlive the last call.
 */
#include "cli.h"
#include "remote.h"
#include "remote_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fl_remote_module *mod;

#if defined(__SANITIZE_ADDRESS__) && !defined(__clang__)
/* GCC 12's LeakSanitizer (Debian 12) can crash at exit ("Tracer caught
 * signal 11" in ScanRangeForPointers) scanning the dynamic TLS of the
 * libraries the module brings in (gRPC's threads' thread_local blocks, which
 * are dynamic because they arrive by dlopen). Without TLS as a root, leak
 * checking can only report more, never hide a leak (the runtime's built-in
 * suppression of the loader's TLS blocks applies, silently, so that stderr is
 * the same as in other builds). clang's runtime is not affected.
 * LSAN_OPTIONS still overrides this. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
    return "use_tls=0:print_suppressions=0";
}

/* c-ares (gRPC's DNS resolver, for dns:/// targets) keeps one small
 * allocation to process exit that LeakSanitizer reports as a direct leak
 * from inside libcares: not ours, and nothing we can free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libcares.so\n";
}
#endif

#ifndef FL_HAVE_REMOTE_MODULE

int fl_remote_require(void) {
    fprintf(stderr, "foldline: this foldline was built without gRPC: --server is not available\n");
    return EXIT_IO;
}

#else

#include <dlfcn.h>
#include <unistd.h>

static const fl_remote_host host_fns = {fl_status_name, fl_unit_name, fl_precision_name,
                                        fl_op_class_name};

/* "DIR/foldline-remote.so", malloc'd. */
static char *module_path(const char *dir) {
    size_t n = strlen(dir) + sizeof("/" FL_REMOTE_MODULE_FILE);
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", dir, FL_REMOTE_MODULE_FILE);
    }
    return p;
}

/* The executable's directory (malloc'd), NULL when /proc is unavailable. */
static char *exe_dir(void) {
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf) {
            return NULL;
        }
        ssize_t n = readlink("/proc/self/exe", buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            char *slash = strrchr(buf, '/');
            if (!slash) {
                free(buf);
                return NULL;
            }
            if (slash == buf) {
                slash[1] = '\0'; /* the root directory */
            } else {
                *slash = '\0';
            }
            return buf;
        }
        free(buf);
        cap *= 2;
    }
}

/* Checks the table of the module at `path`; on a mismatch writes why to err. */
static bool table_ok(const fl_remote_module *m, const char *path, char *err, size_t errlen) {
    if (m->abi_version != FL_REMOTE_MODULE_ABI) {
        snprintf(err, errlen,
                 "%s has interface version %u, this foldline needs %u (the module comes from "
                 "another build; install the module built with this foldline)",
                 path, (unsigned)m->abi_version, FL_REMOTE_MODULE_ABI);
        return false;
    }
    if (m->table_size != sizeof(fl_remote_module) || !m->version ||
        strcmp(m->version, FL_VERSION_STRING) != 0 || m->options_size != sizeof(fl_options) ||
        m->report_size != sizeof(fl_report) || m->profile_size != sizeof(fl_profile) ||
        m->remote_options_size != sizeof(fl_remote_options) || !m->init || !m->analyze ||
        !m->report_free || !m->list_profiles || !m->profiles_free || !m->health) {
        snprintf(err, errlen,
                 "%s (foldline %s) does not match this foldline %s (the module comes from another "
                 "build; install the module built with this foldline)",
                 path, m->version ? m->version : "?", FL_VERSION_STRING);
        return false;
    }
    return true;
}

/* Tries the candidates in order; on failure err names the paths tried or
 * the one that failed, and dlerror()'s reason. */
static bool load(char *err, size_t errlen) {
    const char *env = getenv("FOLDLINE_MODULE_DIR");
    char *dirs[3] = {NULL, NULL, NULL};
    const char *why[3] = {"FOLDLINE_MODULE_DIR", "beside the executable", "install layout"};
    size_t nd = 0;
    if (env && *env) {
        dirs[nd++] = strdup(env);
    } else {
        why[0] = why[1];
        why[1] = why[2];
    }
    char *exe = exe_dir();
    if (exe) {
        size_t n = strlen(exe) + sizeof("/../lib/foldline");
        char *inst = malloc(n);
        if (inst) {
            /* <exe dir>/../lib/foldline, written without the "..". */
            char *parent = strdup(exe);
            char *slash = parent ? strrchr(parent, '/') : NULL;
            if (slash && slash != parent) {
                *slash = '\0';
                snprintf(inst, n, "%s/lib/foldline", parent);
            } else {
                snprintf(inst, n, "/lib/foldline");
            }
            free(parent);
        }
        dirs[nd++] = exe;
        dirs[nd++] = inst;
    }
    char tried[2048] = "";
    size_t used = 0;
    bool ok = false, done = false;
    for (size_t i = 0; i < nd && !done; i++) {
        char *path = dirs[i] ? module_path(dirs[i]) : NULL;
        if (!path) {
            snprintf(err, errlen, "out of memory");
            done = true;
            break;
        }
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *de = dlerror();
            if (access(path, F_OK) == 0) { /* there, but not loadable */
                snprintf(err, errlen, "cannot load %s: %s", path, de ? de : "unknown error");
                done = true;
            } else if (used < sizeof tried) {
                used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s (%s)",
                                         used ? ", " : "", path, why[i]);
            }
            free(path);
            continue;
        }
        const fl_remote_module *m = dlsym(h, FL_REMOTE_MODULE_SYMBOL);
        if (!m) {
            const char *de = dlerror();
            snprintf(err, errlen, "%s is not a foldline remote module: %s", path,
                     de ? de : "no " FL_REMOTE_MODULE_SYMBOL);
        } else if (table_ok(m, path, err, errlen)) {
            m->init(&host_fns);
            mod = m;
            ok = true;
        }
        done = true;
        free(path);
    }
    if (!done) {
        snprintf(err, errlen,
                 "%s not found (looked for %s; set FOLDLINE_MODULE_DIR to the directory that "
                 "holds it)",
                 FL_REMOTE_MODULE_FILE, nd ? tried : "nothing: /proc/self/exe is unreadable");
    }
    for (size_t i = 0; i < nd; i++) {
        free(dirs[i]);
    }
    return ok;
}

int fl_remote_require(void) {
    if (mod) {
        return 0;
    }
    char err[4096];
    if (!load(err, sizeof err)) {
        fprintf(stderr, "foldline: remote mode is unavailable: %s\n", err);
        return EXIT_IO;
    }
    return 0;
}

#endif

/* The calls, forwarded. fl_remote_require has run before any of them (the
 * CLI checks it first); should it not have, they fail as a transport would. */
static bool ready(char *err, size_t errlen) {
    if (!mod && fl_remote_require() != 0) {
        snprintf(err, errlen, "remote mode is unavailable");
        return false;
    }
    return true;
}

fl_remote_failure fl_remote_analyze(const fl_remote_options *ro, const void *bytes, size_t len,
                                    const fl_options *opt, fl_report **out, fl_status *engine,
                                    char *err, size_t errlen) {
    *out = NULL;
    if (!ready(err, errlen)) {
        return FL_REMOTE_TRANSPORT;
    }
    return mod->analyze(ro, bytes, len, opt, out, engine, err, errlen);
}

void fl_remote_report_free(fl_report *r) {
    if (r && mod) {
        mod->report_free(r);
    }
}

fl_remote_failure fl_remote_list_profiles(const fl_remote_options *ro, fl_profile_set *out,
                                          char **dir, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    *dir = NULL;
    if (!ready(err, errlen)) {
        return FL_REMOTE_TRANSPORT;
    }
    return mod->list_profiles(ro, out, dir, err, errlen);
}

void fl_remote_profiles_free(fl_profile_set *set, char *dir) {
    if (mod) {
        mod->profiles_free(set, dir);
    }
}

fl_remote_failure fl_remote_health(const fl_remote_options *ro, const char *service, char *status,
                                   size_t statuslen, char *err, size_t errlen) {
    if (!ready(err, errlen)) {
        return FL_REMOTE_TRANSPORT;
    }
    return mod->health(ro, service, status, statuslen, err, errlen);
}
