/*
 * foldline/status.h - status codes shared by every foldline API.
 *
 * 0 is success, errors are negative. One X-macro list generates the enum,
 * fl_status_name() and fl_status_str(), so the three cannot disagree.
 */
#ifndef FOLDLINE_STATUS_H
#define FOLDLINE_STATUS_H

#include "foldline/export.h"

#define FL_STATUS_MAP(X)                                                                           \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid input")                                                                 \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EOVERFLOW, -3, "integer overflow")                                                           \
    X(EUNSUPPORTED, -4, "unsupported")                                                             \
    X(ELIMIT, -5, "limit exceeded")                                                                \
    X(ENOTFOUND, -6, "not found")                                                                  \
    X(EIO, -7, "input/output error")                                                               \
    X(EUSAGE, -8, "usage error")                                                                   \
    X(EINTERNAL, -9, "internal error")                                                             \
    X(ECANCELED, -10, "cancelled")

typedef enum fl_status {
#define FL_STATUS_ENUM(name, code, text) FL_##name = code,
    FL_STATUS_MAP(FL_STATUS_ENUM)
#undef FL_STATUS_ENUM
} fl_status;

/* "OK", "EINVAL", ... ; "UNKNOWN" for values outside the list. */
FL_EXTERN const char *fl_status_name(fl_status s);

/* A short English description of the status. */
FL_EXTERN const char *fl_status_str(fl_status s);

#endif
