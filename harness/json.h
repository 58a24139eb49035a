/* A streaming JSON writer (objects, arrays, escaped strings, numbers, bools, null) that writes files
 * atomically: ciot_json_open writes PATH.tmp.<pid> and ciot_json_close renames it onto PATH. */
#ifndef CIOT_JSON_H
#define CIOT_JSON_H

#include <stdio.h>
#include "status.h"

typedef struct ciot_json ciot_json;

/* Starts a document written to PATH.tmp.<pid>; CIOT_E_IO when it cannot be created. */
ciot_status ciot_json_open(const char *path, ciot_json **out);
/* Starts a document streamed to an already open file (not closed by ciot_json_close). */
ciot_status ciot_json_stream(FILE *f, ciot_json **out);
/* Ends the document: when every write succeeded and every object and array was closed, renames the
 * temporary file onto PATH; otherwise removes it. Returns the first error (CIOT_E_ARG for misuse, such
 * as unbalanced nesting, CIOT_E_IO for a failed write). Frees j. */
ciot_status ciot_json_close(ciot_json *j);
/* Abandons the document and removes the temporary file. Frees j. */
void ciot_json_discard(ciot_json *j);
/* The first error so far, CIOT_OK when none. */
ciot_status ciot_json_status(const ciot_json *j);

void ciot_json_begin_object(ciot_json *j);
void ciot_json_end_object(ciot_json *j);
void ciot_json_begin_array(ciot_json *j);
void ciot_json_end_array(ciot_json *j);
/* Inside an object, the key of the next value. */
void ciot_json_key(ciot_json *j, const char *key);

void ciot_json_string(ciot_json *j, const char *s);    /* NULL writes null */
void ciot_json_number(ciot_json *j, double v);         /* %.17g: round-trips; non-finite writes null */
void ciot_json_fixed(ciot_json *j, double v, int decimals);
void ciot_json_int(ciot_json *j, long long v);
void ciot_json_bool(ciot_json *j, int v);
void ciot_json_null(ciot_json *j);

/* key + value in one call, for the common case inside an object. */
void ciot_json_kv_string(ciot_json *j, const char *key, const char *s);
void ciot_json_kv_number(ciot_json *j, const char *key, double v);
void ciot_json_kv_fixed(ciot_json *j, const char *key, double v, int decimals);
void ciot_json_kv_int(ciot_json *j, const char *key, long long v);
void ciot_json_kv_bool(ciot_json *j, const char *key, int v);

#endif
