/*
 * schema.h - `foldline schema`.
 */
#ifndef FL_CLIENT_SCHEMA_H
#define FL_CLIENT_SCHEMA_H

/* Prints the JSON Schema of foldline's JSON documents; exit status. */
int fl_cmd_schema(int argc, char **argv);

#endif
