/* A small JSON reader for the files ciot reads back (the tuning file): the whole text parsed into a tree of
 * values, looked up by key. Strings keep their escapes decoded for \" \\ \/ \n \t only (what ciot writes). */
#ifndef CIOT_JSON_READ_H
#define CIOT_JSON_READ_H

#include <stddef.h>

typedef enum { CIOT_JV_NULL, CIOT_JV_BOOL, CIOT_JV_NUMBER, CIOT_JV_STRING, CIOT_JV_ARRAY, CIOT_JV_OBJECT } ciot_jv_type;

typedef struct ciot_jv {
    ciot_jv_type type;
    double number;                 /* a number, or a bool as 0 / 1 */
    char *string;                  /* a string's text; an object member's key is in key */
    char *key;
    struct ciot_jv *items;         /* an array's items or an object's members */
    int n;
} ciot_jv;

/* Parses text (len bytes) into *out; NULL, or "byte N: what" in why, when it is not one JSON value. */
ciot_jv *ciot_jv_parse(const char *text, size_t len, char *why, size_t why_len);
void ciot_jv_free(ciot_jv *v);
/* An object's member by key; NULL when v is no object or has none. */
const ciot_jv *ciot_jv_get(const ciot_jv *v, const char *key);
/* The member's string or number; NULL / def when absent or of another type. */
const char *ciot_jv_string(const ciot_jv *v, const char *key);
double ciot_jv_number(const ciot_jv *v, const char *key, double def);

#endif
