/* Pinning threads to cores through hwloc: thread i goes to core i modulo the core count. */
#ifndef CIOT_PIN_H
#define CIOT_PIN_H

#include "status.h"

/* Binds the calling thread to core (i mod cores). */
ciot_status ciot_pin_self_to_core(int i);

/* The calling thread's current binding, to put back later; *saved is NULL when it could not be read. */
ciot_status ciot_binding_save(void **saved);
/* Saves the calling thread's binding (as ciot_binding_save) and lets it run on every CPU the process may use:
 * for code that starts threads of its own (a runtime's), which would inherit a pinned thread's one core. */
ciot_status ciot_binding_release(void **saved);
/* Restores and frees a binding from ciot_binding_save (NULL is ignored). */
void ciot_binding_restore(void *saved);

#endif
