/* The kernel registry: a table of descriptors that tests, benchmarks and the CLI walk. */
#ifndef CIOT_REGISTRY_H
#define CIOT_REGISTRY_H

#include "kernel.h"

int ciot_kernel_count(void);
const ciot_kernel *ciot_kernel_at(int i);
const ciot_kernel *ciot_kernel_find(const char *name);       /* NULL when unknown */

/* Features of `k` this CPU lacks (0 = available); `cpu` from ciot_cpu_features(). */
unsigned ciot_kernel_missing(const ciot_kernel *k, unsigned cpu);
/* Each kernel's rank within its source format and op (kernels/x86/kernels.def, kernels/arm/kernels.def, the
 * references in registry.c), and where that rank was measured: a repository file and its figure, or
 * CIOT_REFERENCE_PROVENANCE for a scalar reference, which ranks below every vector kernel. 0 and "" for a
 * kernel not in the table. */
#define CIOT_REFERENCE_PROVENANCE "scalar reference: chosen only when nothing faster runs"
int ciot_kernel_rank(const ciot_kernel *k);
const char *ciot_kernel_provenance(const ciot_kernel *k);
/* The kernel chosen for a layout and op on this CPU: the highest-ranked one it can run. NULL when none. */
const ciot_kernel *ciot_kernel_best(const ciot_layout *l, ciot_op op, unsigned cpu);
/* The kernel chosen for a file format (the fastest of every layout made from it) and op on this CPU: the
 * highest-ranked one of that source it can run. NULL when none. */
const ciot_kernel *ciot_kernel_best_source(ciot_format f, ciot_op op, unsigned cpu);
/* The same among the kernels whose layout takes a rows x K matrix (a repacked layout may not: the replay
 * keeps the plain path for such a matrix, as a runtime would). NULL when none. */
const ciot_kernel *ciot_kernel_best_shape(ciot_format f, ciot_op op, unsigned cpu, int rows, int K);

/* k's baseline: of the vector kernels (not references) of k's layout and op whose features are a strict subset
 * of k's, the one with the fewest: for an AVX-512 or AVX-VNNI kernel the AVX2 one, for an i8mm kernel the
 * dotprod one, for an SVE kernel NEON's where there is one. A kernel slower than its baseline should not be
 * chosen over it. NULL for a reference and for a kernel with none. */
const ciot_kernel *ciot_kernel_baseline(const ciot_kernel *k);

int ciot_layout_count(void);
const ciot_layout *ciot_layout_at(int i);

#endif
