/*
 * foldline/export.h - FL_EXTERN marks the functions of the public API.
 *
 * libfoldline is compiled with hidden symbol visibility: only functions
 * declared with FL_EXTERN are exported from libfoldline.so, so internal
 * functions (fl__*) can change in any release without breaking programs.
 */
#ifndef FOLDLINE_EXPORT_H
#define FOLDLINE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define FL_EXTERN __attribute__((visibility("default")))
#else
#define FL_EXTERN
#endif

#endif
