/* Waiting without a lock: spin with a pause hint for a bounded count, then yield the core, so a
 * waiter answers within nanoseconds when cores are free and still lets others run when they are not. */
#ifndef CIOT_SPIN_H
#define CIOT_SPIN_H

#include <stdatomic.h>
#include "os.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

static inline void ciot_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Waits until *v differs from old and returns the new value (acquire). */
static inline unsigned ciot_wait_change(atomic_uint *v, unsigned old, int spin) {
    unsigned now;
    for (int i = 0; i < spin; i++) {
        now = atomic_load_explicit(v, memory_order_acquire);
        if (now != old) return now;
        ciot_spin_pause();
    }
    while ((now = atomic_load_explicit(v, memory_order_acquire)) == old) ciot_os_yield();
    return now;
}

/* Waits until *v equals target (acquire). */
static inline void ciot_wait_equal(atomic_int *v, int target, int spin) {
    for (int i = 0; i < spin; i++) {
        if (atomic_load_explicit(v, memory_order_acquire) == target) return;
        ciot_spin_pause();
    }
    while (atomic_load_explicit(v, memory_order_acquire) != target) ciot_os_yield();
}

#endif
