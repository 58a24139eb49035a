/* The kernel table: the portable references, then the .def's ISA kernels, each with its rank within its source
 * format and op and the provenance of that rank (registry.h). Adding a kernel: its file plus one line in the
 * .def (here for a reference). */
#include <ctype.h>
#include <stdio.h>
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

/* Optimal string alignment over the first 64 characters; substring: column 0 is free, so a match may start
 * anywhere in name, and the best cell of the last row lets it end anywhere. */
int ciot_name_distance(const char *word, const char *name, int substring) {
    enum { MAX = 64 };
    int d[MAX + 1][MAX + 1];
    const int n = (int)strnlen(name, MAX), m = (int)strnlen(word, MAX);
    for (int j = 0; j <= n; j++) d[0][j] = substring ? 0 : j;
    for (int i = 1; i <= m; i++) {
        d[i][0] = i;
        for (int j = 1; j <= n; j++) {
            int v = d[i - 1][j - 1] + (word[i - 1] != name[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && word[i - 1] == name[j - 2] && word[i - 2] == name[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;   /* two letters swapped: one slip */
            d[i][j] = v;
        }
    }
    int best = d[m][n];
    for (int j = 0; substring && j < n; j++)
        if (d[m][j] < best) best = d[m][j];
    return best;
}

int ciot_name_near(const char *word, const char *name, int substring) {
    size_t same = 0;
    while (!substring && word[same] && word[same] == name[same]) same++;
    const int rest = (int)((strlen(word) - same) / 3), d = ciot_name_distance(word, name, substring);
    return d <= (rest > 1 ? rest : 1) ? d : -1;
}

const char *ciot_kernel_suggest(const char *word, int substring, char *buf, size_t len) {
    enum { SHOWN = 4 };
    int best = -1, found = 0;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const int d = ciot_name_near(word, table[i].kernel->name, substring);
        if (d >= 0 && (best < 0 || d < best)) best = d;
    }
    buf[0] = 0;
    size_t at = 0;
    for (int i = 0; best >= 0 && i < ciot_kernel_count(); i++) {
        if (ciot_name_near(word, table[i].kernel->name, substring) != best) continue;
        if (found++ < SHOWN && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", found > 1 ? ", " : "", table[i].kernel->name);
    }
    if (found > SHOWN && at < len) snprintf(buf + at, len - at, " and %d more", found - SHOWN);
    return buf;
}

/* Groups names by the multiple they need: the rows of one message part. */
typedef struct {
    int multiple, n;
    char names[16][24];
} need_group;

static void need(need_group *gs, int *ng, int max, int multiple, const char *name, int upper) {
    char up[24];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof up; n++) up[n] = (char)(upper ? toupper((unsigned char)name[n]) : name[n]);
    up[n] = 0;
    name = up;
    need_group *g = NULL;
    for (int i = 0; i < *ng && !g; i++)
        if (gs[i].multiple == multiple) g = &gs[i];
    if (!g && *ng < max) g = &gs[(*ng)++], g->multiple = multiple, g->n = 0;
    if (!g) return;
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->names[i], name)) return;
    if (g->n < (int)(sizeof g->names / sizeof g->names[0])) snprintf(g->names[g->n++], sizeof g->names[0], "%s", name);
}

/* Appends to buf at *at, never past len. */
static void put(char *buf, size_t len, size_t *at, const char *a, const char *b) {
    if (*at < len) *at += (size_t)snprintf(buf + *at, len - *at, "%s%s", a, b);
}

/* "[lead]A, B and C need WHAT a multiple of 256, D of 128" appended to buf. */
static void say_needs(char *buf, size_t len, size_t *at, const char *lead, const char *leads, const need_group *gs,
                      int ng, const char *what) {
    char num[48];
    for (int i = 0; i < ng; i++) {
        put(buf, len, at, i ? ", " : gs[0].n > 1 ? leads : lead, "");
        for (int j = 0; j < gs[i].n; j++) put(buf, len, at, j == 0 ? "" : j + 1 < gs[i].n ? ", " : " and ", gs[i].names[j]);
        if (i) snprintf(num, sizeof num, " of %d", gs[i].multiple);
        else snprintf(num, sizeof num, " %s %s a multiple of %d", gs[0].n > 1 ? "need" : "needs", what, gs[0].multiple);
        put(buf, len, at, num, "");
    }
}

int ciot_shape_refusal(const ciot_layout *const *ls, int n, int rows, int K, char *buf, size_t len) {
    need_group ks[8], rs[8];
    int nk = 0, nr = 0;
    for (int i = 0; i < n; i++) {
        if (K % ls[i]->k_multiple) need(ks, &nk, 8, ls[i]->k_multiple, ciot_format_name(ls[i]->source), 1);
        if (rows % ls[i]->tile_rows) need(rs, &nr, 8, ls[i]->tile_rows, ls[i]->name, 0);
    }
    size_t at = 0;
    buf[0] = 0;
    say_needs(buf, len, &at, "", "", ks, nk, "K");
    say_needs(buf, len, &at, nk ? "; layout " : "layout ", nk ? "; layouts " : "layouts ", rs, nr, "rows");
    return nk + nr > 0;
}
