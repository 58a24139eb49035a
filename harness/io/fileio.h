/* Whole-file reads with a size check; the outputs (output.h) come with it. */
#ifndef CIOT_FILEIO_H
#define CIOT_FILEIO_H

#include <stddef.h>
#include "os.h"
#include "output.h"
#include "status.h"

/* Reads `path`, a regular file that must hold exactly `expect` bytes. CIOT_E_IO when it cannot be
 * opened or read or is not a regular file (a directory, a FIFO, a device), CIOT_E_SHAPE when the size
 * differs, CIOT_E_NOMEM. On error, *why says what was wrong. */
ciot_status ciot_read_exact(const char *path, size_t expect, void **out, char *why, size_t why_len);
/* Opens path read-only when it is a regular file (links followed), the one way every reader opens its
 * input (os.h): anything else is looked at (stat) but never opened, so a FIFO cannot block and a device is
 * not touched, and a path replaced in between is refused after the open (fstat). Returns the descriptor
 * (close-on-exec) with *fi filled, or -1: errno set when the path could not be looked at or opened,
 * errno 0 when it is not a regular file (fi->kind says what it is, ciot_file_kind names it). */
int ciot_open_regular(const char *path, ciot_os_file_info *fi);
/* What a file that is not a regular one is: "a directory", "a FIFO", "a character device", ... ("not a
 * regular file" for anything else). */
const char *ciot_file_kind(ciot_os_kind kind);

#endif
