/* The kernel registry: a table of descriptors that tests, benchmarks and the CLI walk. */
#ifndef CIOT_REGISTRY_H
#define CIOT_REGISTRY_H

#include "kernel.h"

int ciot_kernel_count(void);
const ciot_kernel *ciot_kernel_at(int i);
const ciot_kernel *ciot_kernel_find(const char *name);       /* NULL when unknown */

/* Features of `k` this CPU lacks (0 = available); `cpu` from ciot_cpu_features(). */
unsigned ciot_kernel_missing(const ciot_kernel *k, unsigned cpu);
/* The kernel chosen for a layout and op on this CPU: the last available in table order
 * (the table lists each layout's kernels from reference to fastest). NULL when none. */
const ciot_kernel *ciot_kernel_best(const ciot_layout *l, ciot_op op, unsigned cpu);
/* The kernel chosen for a file format (the fastest of every layout made from it) and op on this CPU: the
 * last available of that source in table order. The .def files list each source's kernels from slowest
 * to fastest across layouts, as measured (results/x86-kernels-notes.md). NULL when none. */
const ciot_kernel *ciot_kernel_best_source(ciot_format f, ciot_op op, unsigned cpu);

/* The kernel chosen for a file format (the fastest of every layout made from it) and op on this CPU: the
 * last available of that source in table order. The .def files list each source's kernels from slowest
 * to fastest across layouts, as measured (results/x86-kernels-notes.md). NULL when none. */
const ciot_kernel *ciot_kernel_best_source(ciot_format f, ciot_op op, unsigned cpu);

int ciot_layout_count(void);
const ciot_layout *ciot_layout_at(int i);

#endif
