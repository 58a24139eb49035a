/* The registry of temporary files and the signal handlers that remove them. The handler touches only
 * static memory, lock-free atomics, unlink, sigaction, pthread_sigmask and raise: all async-signal-safe. */
#include "tmpfiles.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pool.h"

enum { FREE, FILLING, LIVE };

static char paths[CIOT_TMPFILES_MAX][PATH_MAX];
static _Atomic int state[CIOT_TMPFILES_MAX];     /* FREE -> FILLING (path being copied) -> LIVE -> FREE */
static atomic_flag installed = ATOMIC_FLAG_INIT;

static void remove_live(void) {
    for (int i = 0; i < CIOT_TMPFILES_MAX; i++)
        if (atomic_load(&state[i]) == LIVE) unlink(paths[i]);
}

static void on_signal(int sig) {
    remove_live();
    /* Now the default action, while sig is still blocked (SA_RESETHAND would restore it before the kernel
     * blocks sig, and a second copy in between would end the process before the unlink): die of it. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

ciot_status ciot_tmpfiles_install(void) {
    if (atomic_flag_test_and_set(&installed)) return CIOT_OK;
    /* exit() from anywhere (a library that exits on a bad flag of its own) leaves nothing either */
    if (atexit(remove_live) != 0) return CIOT_E_SYS;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* the signals pool threads block (tmpfiles.h), all blocked while the handler runs */
    ciot_stop_signals(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (!sigismember(&sa.sa_mask, sig)) continue;
        if (sigaction(sig, NULL, &old) != 0) return CIOT_E_SYS;
        if (old.sa_handler == SIG_IGN) continue;
        if (sigaction(sig, &sa, NULL) != 0) return CIOT_E_SYS;
    }
    return CIOT_OK;
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
