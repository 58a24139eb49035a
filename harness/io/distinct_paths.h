/* No output over an input: before any work, a command lists the files it reads and the files it writes,
 * and is refused when an output is the same file as an input or as another output. A 7 GB model should
 * never be one tab completion away from being replaced by a JSON file.
 *
 * Sameness is by device and inode, so a symbolic link (followed as harness/io/output.h follows it) or a hard
 * link to an input counts; an output that does not exist yet is its directory and final name, so two
 * outputs naming one new file count too. Outputs written through rather than replaced (a device, FIFO,
 * socket, /dev/stdout) are never refused: writing /dev/null twice harms nothing. A path that leads
 * nowhere (a missing input, an output in a missing directory) is left to the command's own checks. */
#ifndef CIOT_DISTINCT_PATHS_H
#define CIOT_DISTINCT_PATHS_H

#include <stddef.h>
#include "status.h"

typedef enum { CIOT_PATH_INPUT, CIOT_PATH_OUTPUT } ciot_path_role;

typedef struct {
    const char *option;     /* "--out", or what the input is when no option names it ("the GGUF file") */
    const char *path;       /* as given; NULL: the option was not given */
    ciot_path_role role;
    const char *found;      /* an input read from elsewhere than path (--model NAME: profiles/NAME.ops); NULL: path */
} ciot_named_path;

/* CIOT_OK when every output is a file of its own; else CIOT_E_ARG with *why naming the first clash,
 * "--out w.bin is the same file as --weights w.bin". A command refuses through ciot_distinct_paths
 * (harness/cmd/opts.h): that line on stderr, exit code 2. */
ciot_status ciot_distinct_paths_check(const ciot_named_path *paths, int n, char *why, size_t why_len);

#endif
