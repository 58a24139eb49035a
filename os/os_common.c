/* The parts of the OS seam (os.h) that are the same on every OS. */
#include "os.h"

#include <stdatomic.h>

void ciot_os_once(int *flag, void (*init)(void)) {
    _Atomic int *f = (_Atomic int *)flag;
    int expect = 0;
    if (atomic_load_explicit(f, memory_order_acquire) == 2) return;
    if (atomic_compare_exchange_strong(f, &expect, 1)) {
        init();
        atomic_store_explicit(f, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(f, memory_order_acquire) != 2) ciot_os_yield();
}

const char *ciot_os_kind_name(ciot_os_kind kind) {
    switch (kind) {
    case CIOT_OS_DIR: return "a directory";
    case CIOT_OS_FIFO: return "a FIFO";
    case CIOT_OS_CHAR: return "a character device";
    case CIOT_OS_BLOCK: return "a block device";
    case CIOT_OS_SOCKET: return "a socket";
    case CIOT_OS_MISSING: return "missing";
    default: return "not a regular file";
    }
}
