/* The kernel registry: a table of descriptors that tests, benchmarks and the CLI walk. */
#ifndef CIOT_REGISTRY_H
#define CIOT_REGISTRY_H

#include <stddef.h>
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

/* Edit distance (insertions, deletions, substitutions, two neighbours swapped) from word to name; with
 * substring set, to the part of name closest to word (a --kernels word matches any part of a name). The
 * first 64 characters of each count. */
int ciot_name_distance(const char *word, const char *name, int substring);
/* That distance when name reads as a misspelling of word, else -1: at most a third of what follows their
 * common beginning, at least 1 ("--benchmark_fliter" is near "--benchmark_filter", "--benchmark_bogus" near
 * nothing). */
int ciot_name_near(const char *word, const char *name, int substring);
/* The registered kernel names nearest word (ciot_name_near), at most 4 of them ("a, b, c, d and 3 more"), in
 * buf; "" when none is near. Returns buf. */
const char *ciot_kernel_suggest(const char *word, int substring, char *buf, size_t len);
/* Why rows x K does not fit every layout of ls[0 .. n-1], in the terms of the rule that refuses: K by the
 * source format (its activation blocks), rows by the layout (its tiles), multiples of 1 left out:
 * "PQ2_0 and TQ2_0 need K a multiple of 256, PTQ1_0 of 128; layout tl2 needs rows a multiple of 256".
 * Returns 0 with buf "" when every layout takes the shape. */
int ciot_shape_refusal(const ciot_layout *const *ls, int n, int rows, int K, char *buf, size_t len);

int ciot_layout_count(void);
const ciot_layout *ciot_layout_at(int i);

#endif
