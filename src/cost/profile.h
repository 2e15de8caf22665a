/*
 * profile.h - device profiles: the YAML loader and validator (profile.c).
 *
 * The public types and functions are declared in include/foldline/roofline.h;
 * this header adds what the engine shares internally.
 */
#ifndef FL_COST_PROFILE_H
#define FL_COST_PROFILE_H

#include "foldline/roofline.h"

/* Kinds a profile may declare, NULL-terminated. */
extern const char *const fl__profile_kinds[];

#endif
