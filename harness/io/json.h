/* A streaming JSON writer (objects, arrays, escaped strings, numbers, bools, null) whose output is always
 * valid JSON in UTF-8, written through ciot_out (output.h): a regular file appears whole or not at all
 * (PATH.tmp.<pid>, renamed when complete), and a device, FIFO or symbolic link is never replaced. */
#ifndef CIOT_JSON_H
#define CIOT_JSON_H

#include <stdio.h>
#include "output.h"
#include "status.h"

typedef struct ciot_json ciot_json;

/* Starts a document for PATH (ciot_out_open): CIOT_E_ARG when PATH is refused (a directory, a missing
 * directory, not writable), CIOT_E_IO when the temporary file cannot be made; *why says which. */
ciot_status ciot_json_create(const char *path, ciot_json **out, char *why, size_t why_len);
/* ciot_json_create without the message; every refusal is CIOT_E_IO. */
ciot_status ciot_json_open(const char *path, ciot_json **out);
/* Starts a document streamed to an already open file (not closed by ciot_json_close). */
ciot_status ciot_json_stream(FILE *f, ciot_json **out);
/* Ends the document: when every write succeeded and every object and array was closed, commits it
 * (ciot_out_commit); otherwise removes the temporary file. Returns the first error (CIOT_E_ARG for
 * misuse, such as unbalanced nesting, CIOT_E_IO for a failed write, e.g. to /dev/full), *why a line
 * starting with the path. Frees j. */
ciot_status ciot_json_commit(ciot_json *j, char *why, size_t why_len);
/* ciot_json_commit without the message. */
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

/* Strings and keys: bytes that are not valid UTF-8 are written as U+FFFD. */
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
