/* The INCOMPLETE mark of a run folder: written whole, removed when the run is. */
#include "incomplete.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "os.h"
#include "output.h"

static const char MARK[] = "INCOMPLETE";

static int mark_path(const char *dir, char *path, size_t len) {
    int n = snprintf(path, len, "%s/%s", dir, MARK);
    return n > 0 && (size_t)n < len;
}

ciot_status ciot_run_mark_incomplete(const char *dir, const char *what, char *why, size_t why_len) {
    char path[PATH_MAX], text[512], date[32];
    if (!dir || !mark_path(dir, path, sizeof path)) {
        return ciot_error(CIOT_E_ARG, why, why_len, "%s: the folder's name is too long", dir ? dir : "(null)");
    }
    ciot_os_utc_now(date, sizeof date);
    int n = snprintf(text, sizeof text,
                     "This run folder is incomplete: %s (pid %ld) started writing it at %s and has not finished "
                     "(it was interrupted, failed, or is still running). The other files here are whole.\n",
                     what ? what : "ciot", ciot_os_pid(), date);
    return ciot_write_atomic(path, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, why, why_len);
}

ciot_status ciot_run_mark_complete(const char *dir, char *why, size_t why_len) {
    char path[PATH_MAX];
    if (!dir || !mark_path(dir, path, sizeof path)) {
        return ciot_error(CIOT_E_ARG, why, why_len, "%s: the folder's name is too long", dir ? dir : "(null)");
    }
    if (ciot_os_remove(path) != 0 && errno != ENOENT) {
        return ciot_error(CIOT_E_IO, why, why_len, "%s: cannot remove it: %s", path, strerror(errno));
    }
    return CIOT_OK;
}

int ciot_run_is_incomplete(const char *dir) {
    char path[PATH_MAX];
    return dir && mark_path(dir, path, sizeof path) && ciot_os_exists(path);
}
