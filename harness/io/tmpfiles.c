/* The registry of temporary files and the stop handler (os.h) that removes them. What it runs here touches
 * only static memory, lock-free atomics and the file removal: async-signal-safe. */
#include "tmpfiles.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "os.h"

enum { FREE, FILLING, LIVE };

static char paths[CIOT_TMPFILES_MAX][PATH_MAX];
static _Atomic int state[CIOT_TMPFILES_MAX];     /* FREE -> FILLING (path being copied) -> LIVE -> FREE */
static atomic_flag installed = ATOMIC_FLAG_INIT;

static void remove_live(void) {
    for (int i = 0; i < CIOT_TMPFILES_MAX; i++)
        if (atomic_load(&state[i]) == LIVE) ciot_os_remove(paths[i]);
}

ciot_status ciot_tmpfiles_install(void) {
    if (atomic_flag_test_and_set(&installed)) return CIOT_OK;
    /* exit() from anywhere (a library that exits on a bad flag of its own) leaves nothing either */
    if (atexit(remove_live) != 0) return CIOT_E_SYS;
    return ciot_os_on_stop(remove_live) == 0 ? CIOT_OK : CIOT_E_SYS;
}

ciot_status ciot_tmpfile_register(const char *path, int *slot) {
    *slot = -1;
    if (!path || !*path) return CIOT_E_ARG;
    const size_t n = strlen(path);
    if (n >= PATH_MAX) return CIOT_E_ARG;
    for (int i = 0; i < CIOT_TMPFILES_MAX; i++) {
        int expect = FREE;
        if (!atomic_compare_exchange_strong(&state[i], &expect, FILLING)) continue;
        memcpy(paths[i], path, n + 1);
        atomic_store(&state[i], LIVE);
        *slot = i;
        return CIOT_OK;
    }
    return CIOT_E_NOMEM;
}

void ciot_tmpfile_release(int slot) {
    if (slot >= 0 && slot < CIOT_TMPFILES_MAX) atomic_store(&state[slot], FREE);
}

int ciot_tmpfiles_count(void) {
    int n = 0;
    for (int i = 0; i < CIOT_TMPFILES_MAX; i++) n += atomic_load(&state[i]) == LIVE;
    return n;
}
