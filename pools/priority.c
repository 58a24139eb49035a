/* The pool's priority through the OS seam (os.h): on Linux the calling thread's nice value, which threads it
 * creates afterwards inherit, so raising the caller before creating workers raises the whole pool; on
 * Windows the process's priority class. Real-time classes are not used: a spinning real-time thread can
 * starve the machine. */
#include "priority.h"

int ciot_priority_raise(int nice, ciot_priority_saved *saved, char *msg, size_t len) {
    return ciot_os_priority_raise(nice, saved, msg, len);
}

void ciot_priority_restore(const ciot_priority_saved *saved) { ciot_os_priority_restore(saved); }
