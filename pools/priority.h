/* Raising the calling thread's scheduling priority (nice) for a pool, and putting it back. */
#ifndef CIOT_PRIORITY_H
#define CIOT_PRIORITY_H

#include <stddef.h>
#include "os.h"

/* The nice value a pool asks for: enough to win against ordinary processes, not real-time. */
enum { CIOT_POOL_NICE = -5 };

typedef ciot_os_priority_saved ciot_priority_saved;

/* Sets the calling thread's nice value to `nice` (threads it creates afterwards inherit it on Linux).
 * Returns 1 when the priority is now at least that high, and describes the outcome in msg,
 * e.g. "nice -5: ok" or "nice -5: refused (EACCES)". */
int ciot_priority_raise(int nice, ciot_priority_saved *saved, char *msg, size_t len);
void ciot_priority_restore(const ciot_priority_saved *saved);

#endif
