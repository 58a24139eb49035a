/* Outputs that never damage what they are pointed at.
 *
 * Every output goes through one mechanism (ciot_out; ciot_write_atomic and the JSON writer use it):
 * - a regular file, or a name that does not exist yet, is written to a temporary file beside it
 *   (NAME.tmp.<pid>, registered with tmpfiles.h so a signal removes it) and renamed onto NAME when
 *   complete: a reader never sees half a file; a file replaced keeps its permission bits;
 * - a symbolic link is followed: the file it points to is written that way, in that file's directory,
 *   and the link stays;
 * - a character or block device, a FIFO, a socket, or a descriptor of this process (/dev/stdout,
 *   /dev/fd/N) is never replaced: the data waits in a temporary file in $TMPDIR (or /tmp) and is
 *   written through when complete (a FIFO gets 5 s to find a reader);
 * - a directory, a name in a missing directory, or a place this process cannot write is refused.
 * Messages (why) are one line that starts with the path given.
 * Whether an output is the same file as an input or another output is a command's question, answered
 * before any work with ciot_output_identify (distinct_paths.h). */
#ifndef CIOT_OUTPUT_H
#define CIOT_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "os.h"
#include "status.h"

/* Room for any message of these functions (two paths and a reason). */
enum { CIOT_WHY_MAX = 2 * 4096 + 256 };

/* Whether PATH can be written as above: call it before any long work. It makes and removes the
 * temporary file, so a read-only file system or a place only root could write is found too; the target
 * itself is not touched. CIOT_E_ARG with *why ("results/x: is a directory") when PATH is refused. */
ciot_status ciot_output_check(const char *path, char *why, size_t why_len);

/* Which file an output would write, found exactly as ciot_out finds it (symbolic links followed), so that
 * two names can be told to be one file. */
typedef enum {
    CIOT_OUTPUT_REGULAR,    /* an existing regular file: dev, ino are the file's */
    CIOT_OUTPUT_NEW,        /* not there yet: dev, ino are its directory's, name its final name */
    CIOT_OUTPUT_THROUGH,    /* a device, FIFO, socket or descriptor: written through, never replaced */
} ciot_output_kind;
typedef struct {
    ciot_output_kind kind;
    uint64_t dev, ino;      /* os.h: st_dev and st_ino; the volume serial number and file index on Windows */
    char name[NAME_MAX + 1];
} ciot_output_file;
/* Where PATH leads; CIOT_E_ARG with *why when it leads nowhere a file could be written (a directory, a
 * loop, a missing directory). Whether it may be written is ciot_output_check's question: nothing is made. */
ciot_status ciot_output_identify(const char *path, ciot_output_file *f, char *why, size_t why_len);

typedef struct ciot_out ciot_out;
/* Starts an output: checks PATH (CIOT_E_ARG when refused) and creates its temporary file (CIOT_E_IO
 * when that fails). Write with ciot_out_stream, then ciot_out_commit or ciot_out_abort. */
ciot_status ciot_out_open(const char *path, ciot_out **out, char *why, size_t why_len);
/* The open temporary file. */
FILE *ciot_out_stream(ciot_out *o);
/* The temporary file's name, for a writer that opens files by name itself (Google Benchmark's
 * --benchmark_out): it may write there instead of through the stream; commit then moves its content. */
const char *ciot_out_temp_path(const ciot_out *o);
/* Completes the output: renames the temporary file onto the target, or writes its content through to
 * the device, FIFO, socket or descriptor and removes it. CIOT_E_IO (with *why, e.g. "/dev/full: No space
 * left on device") when a write failed; the temporary file is removed either way. Frees o. */
ciot_status ciot_out_commit(ciot_out *o, char *why, size_t why_len);
/* Abandons the output: removes the temporary file, leaves the target alone. Frees o. NULL is fine. */
void ciot_out_abort(ciot_out *o);

/* The whole of data into PATH through ciot_out: CIOT_E_ARG when PATH is refused, CIOT_E_IO when writing
 * fails. */
ciot_status ciot_write_atomic(const char *path, const void *data, size_t bytes, char *why, size_t why_len);

#endif
