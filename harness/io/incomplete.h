/* The INCOMPLETE mark of a run folder (results/SCHEMA.md): a file DIR/INCOMPLETE that exists from the
 * folder's creation until the command writing the folder has written every file, so a run that was
 * interrupted or failed is told apart from a whole one. Its other files are whole either way. */
#ifndef CIOT_INCOMPLETE_H
#define CIOT_INCOMPLETE_H

#include <stddef.h>
#include "status.h"

/* Writes DIR/INCOMPLETE (whole, through ciot_write_atomic): one line naming `what` (e.g. "ciot suite"),
 * the process id and the UTC time. Errors as ciot_write_atomic, with *why. */
ciot_status ciot_run_mark_incomplete(const char *dir, const char *what, char *why, size_t why_len);
/* Removes DIR/INCOMPLETE, once every file of the run is written. CIOT_OK when it is not there;
 * CIOT_E_IO with *why when it cannot be removed. */
ciot_status ciot_run_mark_complete(const char *dir, char *why, size_t why_len);
/* 1 when DIR holds the mark, else 0. */
int ciot_run_is_incomplete(const char *dir);

#endif
