/* A test's own CIOT_CPU mask, kept within the run's (scripts/test masks whole runs): the two are joined
 * with ':', which kernels/cpu.h intersects, so a test never sees a feature the run hid. */
#ifndef CIOT_TEST_CPU_MASK_H
#define CIOT_TEST_CPU_MASK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char cpu_mask_outer[256];
static int cpu_mask_saved, cpu_mask_had_outer;

/* Masks the CPU down to mask (within the run's mask), remembering the run's for test_unmask_cpu. */
static void test_mask_cpu(const char *mask) {
    if (!cpu_mask_saved) {
        const char *outer = getenv("CIOT_CPU");
        cpu_mask_had_outer = outer != NULL;
        snprintf(cpu_mask_outer, sizeof cpu_mask_outer, "%s", outer ? outer : "");
        cpu_mask_saved = 1;
    }
    char both[2 * sizeof cpu_mask_outer];
    if (cpu_mask_had_outer) snprintf(both, sizeof both, "%s:%s", cpu_mask_outer, mask);
    setenv("CIOT_CPU", cpu_mask_had_outer ? both : mask, 1);
}

/* The run's own mask again (none if it had none). */
static void test_unmask_cpu(void) {
    if (!cpu_mask_saved) return;
    if (cpu_mask_had_outer) setenv("CIOT_CPU", cpu_mask_outer, 1);
    else unsetenv("CIOT_CPU");
}

#endif
