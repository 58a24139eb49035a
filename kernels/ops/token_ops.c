/* The versions of the token ops, the choice among them, and the kinds' table (token_kinds.def). */
#include <string.h>
#include "cpu.h"
#include "kernel.h"
#include "splitmix64.h"
#include "token_kind.h"

#define CIOT_KIND_ROW(ID, name) [CIOT_STEP_##ID] = &ciot_kind_##name,
static const ciot_token_kind *const kinds[CIOT_STEP_KINDS] = {CIOT_TOKEN_KINDS(CIOT_KIND_ROW)};
#undef CIOT_KIND_ROW

const ciot_token_kind *ciot_token_kind_of(ciot_step_kind k) {
    return (unsigned)k < CIOT_STEP_KINDS ? kinds[k] : NULL;
}
const char *ciot_step_kind_name(ciot_step_kind k) {
    if (k == CIOT_STEP_MATVEC) return "matvec";
    return (unsigned)k < CIOT_STEP_KINDS ? kinds[k]->name : "unknown";
}
int ciot_step_kind_of(const char *word) {
    if (!strcmp(word, "matvec")) return CIOT_STEP_MATVEC;
    for (int k = 1; k < CIOT_STEP_KINDS; k++)
        if (!strcmp(word, kinds[k]->name)) return k;
    return -1;
}

const ciot_token_ops ciot_token_ops_ref = {.name = "ref", .id = CIOT_OPV_REF, .features = 0};

/* The versions' own loops are in the kinds' descriptors; rope and embed (a few KiB per token) run the
 * reference's everywhere, and so does NEON's state_copy (libc's memcpy: a non-temporal copy's gain cannot be
 * measured without ARM hardware). */
#if defined(__x86_64__) || defined(_M_X64)
static const ciot_token_ops ops_avx2 = {
    .name = "avx2", .id = CIOT_OPV_AVX2, .features = CIOT_F_AVX2 | CIOT_F_FMA, .copy_streams = 1};
/* AVX2's but for attention and DeltaNet's state pass: a zmm register holds the 16 canonical lanes of their
 * dot products, which halves their multiply-adds (kernels/ops.md). */
static const ciot_token_ops ops_avx512f = {
    .name = "avx512f", .id = CIOT_OPV_AVX512F, .features = CIOT_F_AVX2 | CIOT_F_FMA | CIOT_F_AVX512F,
    .copy_streams = 1};
#define ARCH_VERSIONS , &ops_avx2, &ops_avx512f
#elif defined(__aarch64__)
static const ciot_token_ops ops_neon = {.name = "neon", .id = CIOT_OPV_NEON, .features = CIOT_F_NEON};
#define ARCH_VERSIONS , &ops_neon
#else
#define ARCH_VERSIONS
#endif

static const ciot_token_ops *const versions[] = {&ciot_token_ops_ref ARCH_VERSIONS};
#define N_VERSIONS ((int)(sizeof versions / sizeof versions[0]))

int ciot_token_ops_count(void) { return N_VERSIONS; }
const ciot_token_ops *ciot_token_ops_at(int i) { return i >= 0 && i < N_VERSIONS ? versions[i] : NULL; }
const ciot_token_ops *ciot_token_ops_find(const char *name) {
    for (int i = 0; i < N_VERSIONS; i++)
        if (!strcmp(versions[i]->name, name)) return versions[i];
    return NULL;
}
const ciot_token_ops *ciot_token_ops_best(void) {
    unsigned cpu = ciot_cpu_features();
    const ciot_token_ops *best = versions[0];
    for (int i = 1; i < N_VERSIONS; i++)
        if ((versions[i]->features & cpu) == versions[i]->features) best = versions[i];
    return best;
}

/* ---- the oracle's draws, shared by the kinds' cases ---- */

const char *ciot_val_pattern_name(ciot_val_pattern p) {
    static const char *const names[CIOT_VAL_COUNT] = {"random", "wide", "zero", "tiny", "large"};
    return (unsigned)p < CIOT_VAL_COUNT ? names[p] : "unknown";
}

float ciot_op_draw_uniform(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((ciot_splitmix64(s) >> 40) * (1.0 / 16777216.0));
}

void ciot_op_draw_values(float *x, size_t n, uint64_t *s, ciot_val_pattern p, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        float v = ciot_op_draw_uniform(s, lo, hi);
        switch (p) {
        case CIOT_VAL_RANDOM: break;
        case CIOT_VAL_WIDE: v = v * 120.0f; break;    /* past the exp approximation's clamps */
        case CIOT_VAL_ZERO: v = (i & 1) ? 0.0f : -0.0f; break;
        case CIOT_VAL_TINY: v = v * 1e-20f; break;    /* squares in the subnormals */
        case CIOT_VAL_LARGE: v = v * 3e18f; break;    /* squares near and past FLT_MAX */
        default: break;
        }
        x[i] = v;
    }
}
