/* The kernel table: the portable references, then the .def's ISA kernels. Each source format's kernels are
 * listed from the slowest to the fastest across its layouts (so each layout's kernels are too): the last
 * one the CPU can run is the one chosen, per layout and per source. Adding a kernel: its file plus one line
 * in the .def (here for a reference). */
#include <string.h>
#include "registry.h"

#define K(name) extern const ciot_kernel ciot_k_##name;
#define CIOT_KERNELS_PORTABLE(X) \
    X(pq2_0_gemv_ref) X(pq2_0_gemm_ref) X(t2x4_gemv_ref) X(t2x4_gemm_ref) X(t2p_gemv_ref) X(t2p_gemm_ref) X(tl2_gemv_ref) X(tl2_gemm_ref) \
    X(ptq1_0_gemv_ref) X(ptq1_0_gemm_ref) X(tl3_gemv_ref) X(tl3_gemm_ref) \
    X(tq1_0_gemv_ref) X(tq1_0_gemm_ref) X(tq2_0_gemv_ref) X(tq2_0_gemm_ref) X(t2p_tq2_gemv_ref) X(t2p_tq2_gemm_ref) X(tl3_tq1_gemv_ref) X(tl3_tq1_gemm_ref) \
    CIOT_KERNELS_TEST(X)

/* The test build's mutant (tests/mutant/): this file compiled once more with CIOT_TEST_MUTANT. */
#if defined(CIOT_TEST_MUTANT)
#define CIOT_KERNELS_TEST(X) X(t2p_gemv_mutant_ref)
#else
#define CIOT_KERNELS_TEST(X)
#endif

#if defined(__x86_64__)
#include "x86/kernels.def"
#elif defined(__aarch64__)
#include "arm/kernels.def"
#else
#define CIOT_KERNELS_ISA(X)
#endif

CIOT_KERNELS_PORTABLE(K)
CIOT_KERNELS_ISA(K)
#undef K

#define K(name) &ciot_k_##name,
static const ciot_kernel *const table[] = {CIOT_KERNELS_PORTABLE(K) CIOT_KERNELS_ISA(K)};
#undef K

static const ciot_layout *const layouts[] = {&ciot_layout_pq2_0, &ciot_layout_t2x4,  &ciot_layout_t2p,
                                             &ciot_layout_tl2,   &ciot_layout_ptq1_0, &ciot_layout_tl3,
                                             &ciot_layout_tq1_0, &ciot_layout_tq2_0,  &ciot_layout_t2p_tq2,
                                             &ciot_layout_tl3_tq1};

int ciot_kernel_count(void) { return (int)(sizeof table / sizeof table[0]); }
const ciot_kernel *ciot_kernel_at(int i) { return i >= 0 && i < ciot_kernel_count() ? table[i] : NULL; }

const ciot_kernel *ciot_kernel_find(const char *name) {
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (!strcmp(table[i]->name, name)) return table[i];
    return NULL;
}

unsigned ciot_kernel_missing(const ciot_kernel *k, unsigned cpu) { return k->features & ~cpu; }

const ciot_kernel *ciot_kernel_best(const ciot_layout *l, ciot_op op, unsigned cpu) {
    const ciot_kernel *best = NULL;
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (table[i]->layout == l && table[i]->op == op && !ciot_kernel_missing(table[i], cpu)) best = table[i];
    return best;
}

const ciot_kernel *ciot_kernel_best_source(ciot_format f, ciot_op op, unsigned cpu) {
    const ciot_kernel *best = NULL;
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (table[i]->layout->source == f && table[i]->op == op && !ciot_kernel_missing(table[i], cpu)) best = table[i];
    return best;
}

int ciot_layout_count(void) { return (int)(sizeof layouts / sizeof layouts[0]); }
const ciot_layout *ciot_layout_at(int i) { return i >= 0 && i < ciot_layout_count() ? layouts[i] : NULL; }
