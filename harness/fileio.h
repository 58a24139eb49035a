/* Whole-file reads with a size check, and writes that never leave a truncated file behind. */
#ifndef CIOT_FILEIO_H
#define CIOT_FILEIO_H

#include <stddef.h>
#include "status.h"

/* Reads `path`, which must hold exactly `expect` bytes. On error, *why says what was wrong. */
ciot_status ciot_read_exact(const char *path, size_t expect, void **out, char *why, size_t why_len);
/* Writes to path.tmp.<pid>, then renames over path. */
ciot_status ciot_write_atomic(const char *path, const void *data, size_t bytes, char *why, size_t why_len);

#endif
