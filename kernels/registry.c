/* The kernel table: the portable references, then the .def's ISA kernels, each with its rank within its source
 * format and op and the provenance of that rank (registry.h). Adding a kernel: its file plus one line in the
 * .def (here for a reference). */
#include <string.h>
#include "registry.h"

/* The references rank below every vector kernel (whose ranks start at 10), among themselves as listed here:
 * that decides only where no vector kernel runs. */
#define REF CIOT_REFERENCE_PROVENANCE
#define CIOT_KERNELS_PORTABLE(X) \
    X(pq2_0_gemv_ref, 1, REF) X(pq2_0_gemm_ref, 1, REF) X(t2x4_gemv_ref, 2, REF) X(t2x4_gemm_ref, 2, REF) \
    X(t2p_gemv_ref, 3, REF) X(t2p_gemm_ref, 3, REF) X(tl2_gemv_ref, 4, REF) X(tl2_gemm_ref, 4, REF) \
    X(ptq1_0_gemv_ref, 1, REF) X(ptq1_0_gemm_ref, 1, REF) X(tl3_gemv_ref, 2, REF) X(tl3_gemm_ref, 2, REF) \
    X(tl16_gemv_ref, 3, REF) X(tl16_gemm_ref, 3, REF) \
    X(tq1_0_gemv_ref, 1, REF) X(tq1_0_gemm_ref, 1, REF) X(tq2_0_gemv_ref, 1, REF) X(tq2_0_gemm_ref, 1, REF) \
    X(t2p_tq2_gemv_ref, 2, REF) X(t2p_tq2_gemm_ref, 2, REF) X(tl3_tq1_gemv_ref, 2, REF) X(tl3_tq1_gemm_ref, 2, REF) \
    X(tl16_tq1_gemv_ref, 3, REF) X(tl16_tq1_gemm_ref, 3, REF) \
    CIOT_KERNELS_TEST(X)

/* The test build's mutant (tests/mutant/): this file compiled once more with CIOT_TEST_MUTANT. */
#if defined(CIOT_TEST_MUTANT)
#define CIOT_KERNELS_TEST(X) X(t2p_gemv_mutant_ref, 5, REF)
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

#define K(name, rank, provenance) extern const ciot_kernel ciot_k_##name;
CIOT_KERNELS_PORTABLE(K)
CIOT_KERNELS_ISA(K)
#undef K

typedef struct {
    const ciot_kernel *kernel;
    int rank;
    const char *provenance;
} ranked;

#define K(name, rank, provenance) {&ciot_k_##name, rank, provenance},
static const ranked table[] = {CIOT_KERNELS_PORTABLE(K) CIOT_KERNELS_ISA(K)};
#undef K

static const ciot_layout *const layouts[] = {&ciot_layout_pq2_0, &ciot_layout_t2x4,  &ciot_layout_t2p,
                                             &ciot_layout_tl2,   &ciot_layout_ptq1_0, &ciot_layout_tl3,
                                             &ciot_layout_tq1_0, &ciot_layout_tq2_0,  &ciot_layout_t2p_tq2,
                                             &ciot_layout_tl3_tq1, &ciot_layout_tl16, &ciot_layout_tl16_tq1};

int ciot_kernel_count(void) { return (int)(sizeof table / sizeof table[0]); }
const ciot_kernel *ciot_kernel_at(int i) { return i >= 0 && i < ciot_kernel_count() ? table[i].kernel : NULL; }

const ciot_kernel *ciot_kernel_find(const char *name) {
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (!strcmp(table[i].kernel->name, name)) return table[i].kernel;
    return NULL;
}

static const ranked *entry_of(const ciot_kernel *k) {
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (table[i].kernel == k) return &table[i];
    return NULL;
}

int ciot_kernel_rank(const ciot_kernel *k) {
    const ranked *e = entry_of(k);
    return e ? e->rank : 0;
}

const char *ciot_kernel_provenance(const ciot_kernel *k) {
    const ranked *e = entry_of(k);
    return e ? e->provenance : "";
}

unsigned ciot_kernel_missing(const ciot_kernel *k, unsigned cpu) { return k->features & ~cpu; }

/* The highest-ranked kernel of op the CPU can run among those of layout l (or, l NULL, of source f) whose
 * layout takes rows x K (rows 0: any shape). */
static const ciot_kernel *best_of(const ciot_layout *l, ciot_format f, ciot_op op, unsigned cpu, int rows, int K) {
    const ranked *best = NULL;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = table[i].kernel;
        if ((l ? k->layout == l : k->layout->source == f) && k->op == op && !ciot_kernel_missing(k, cpu) &&
            (!rows || ciot_layout_check(k->layout, rows, K) == CIOT_OK) && (!best || table[i].rank > best->rank))
            best = &table[i];
    }
    return best ? best->kernel : NULL;
}

const ciot_kernel *ciot_kernel_baseline(const ciot_kernel *k) {
    const ciot_kernel *best = NULL;
    if (k->reference == k) return NULL;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *t = table[i].kernel;
        if (t->reference != t && t->layout == k->layout && t->op == k->op && (t->features & k->features) == t->features &&
            t->features != k->features && (!best || __builtin_popcount(t->features) < __builtin_popcount(best->features)))
            best = t;
    }
    return best;
}

const ciot_kernel *ciot_kernel_best(const ciot_layout *l, ciot_op op, unsigned cpu) {
    return best_of(l, 0, op, cpu, 0, 0);
}

const ciot_kernel *ciot_kernel_best_source(ciot_format f, ciot_op op, unsigned cpu) {
    return best_of(NULL, f, op, cpu, 0, 0);
}

const ciot_kernel *ciot_kernel_best_shape(ciot_format f, ciot_op op, unsigned cpu, int rows, int K) {
    return rows > 0 ? best_of(NULL, f, op, cpu, rows, K) : NULL;
}

int ciot_layout_count(void) { return (int)(sizeof layouts / sizeof layouts[0]); }
const ciot_layout *ciot_layout_at(int i) { return i >= 0 && i < ciot_layout_count() ? layouts[i] : NULL; }
