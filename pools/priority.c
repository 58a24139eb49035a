/* Nice-value changes for the calling thread. On Linux setpriority(PRIO_PROCESS, tid) is per thread and
 * new threads inherit it, so raising the caller before creating workers raises the whole pool.
 * Real-time classes are not used: a spinning real-time thread can starve the machine. */
#include "priority.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static id_t self_id(void) {
#if defined(__linux__)
    return (id_t)syscall(SYS_gettid);
#else
    return 0; /* elsewhere the whole process */
#endif
}

static const char *errno_name(int e) {
    switch (e) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    default: return "error";
    }
}

int ciot_priority_raise(int nice, ciot_priority_saved *saved, char *msg, size_t len) {
    saved->changed = 0;
    errno = 0;
    int old = getpriority(PRIO_PROCESS, self_id());
    if (old == -1 && errno != 0) {
        snprintf(msg, len, "nice %d: could not read (%s)", nice, errno_name(errno));
        return 0;
    }
    saved->old_nice = old;
    if (old <= nice) {
        snprintf(msg, len, "nice %d: already %d", nice, old);
        return 1;
    }
    if (setpriority(PRIO_PROCESS, self_id(), nice) != 0) {
        snprintf(msg, len, "nice %d: refused (%s)", nice, errno_name(errno));
        return 0;
    }
    saved->changed = 1;
    snprintf(msg, len, "nice %d: ok", nice);
    return 1;
}

void ciot_priority_restore(const ciot_priority_saved *saved) {
    if (saved->changed) setpriority(PRIO_PROCESS, self_id(), saved->old_nice);
}
