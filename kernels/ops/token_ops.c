/* The versions of the token ops and the choice among them. */
#include <string.h>
#include "cpu.h"
#include "kernel.h"
#include "ops_impl.h"

static const char *const kind_names[CIOT_TOK_KINDS] = {
    "rmsnorm", "deltanet", "attention", "rope", "glu", "state_copy", "embed", "argmax",
};
const char *ciot_token_kind_name(ciot_token_kind k) {
    return (int)k >= 0 && k < CIOT_TOK_KINDS ? kind_names[k] : NULL;
}

ciot_status ciot_token_check(ciot_token_kind k, const ciot_token_args *a, char *why, size_t len) {
    switch (k) {
    case CIOT_TOK_RMSNORM: return ciot_rmsnorm_check(&a->rmsnorm, why, len);
    case CIOT_TOK_DELTANET: return ciot_deltanet_check(&a->deltanet, why, len);
    case CIOT_TOK_ATTENTION: return ciot_attention_check(&a->attention, why, len);
    case CIOT_TOK_ROPE: return ciot_rope_check(&a->rope, why, len);
    case CIOT_TOK_GLU: return ciot_glu_check(&a->glu, why, len);
    case CIOT_TOK_STATE_COPY: return ciot_state_copy_check(&a->state_copy, why, len);
    case CIOT_TOK_EMBED: return ciot_embed_check(&a->embed, why, len);
    case CIOT_TOK_ARGMAX: return ciot_argmax_check(&a->argmax, why, len);
    default: return CIOT_E_ARG;
    }
}

#define CIOT_OPS_TABLE(isa)                                                                             \
    .rmsnorm = ciot_rmsnorm_##isa, .deltanet = ciot_deltanet_##isa, .attention = ciot_attention_##isa, \
    .rope = ciot_rope_##isa, .glu = ciot_glu_##isa, .state_copy = ciot_state_copy_##isa,               \
    .embed = ciot_embed_##isa, .argmax = ciot_argmax_##isa

const ciot_token_ops ciot_token_ops_ref = {.name = "ref", .features = 0, CIOT_OPS_TABLE(ref)};

/* The versions' own loops; rope and embed (a few KiB per token) run the reference's everywhere, and so does
 * NEON's state_copy (libc's memcpy: a non-temporal copy's gain cannot be measured without ARM hardware). */
#if defined(__x86_64__) || defined(_M_X64)
static const ciot_token_ops ops_avx2 = {
    .name = "avx2", .features = CIOT_F_AVX2 | CIOT_F_FMA, .copy_streams = 1,
    .rmsnorm = ciot_rmsnorm_avx2, .deltanet = ciot_deltanet_avx2, .attention = ciot_attention_avx2,
    .rope = ciot_rope_ref, .glu = ciot_glu_avx2, .state_copy = ciot_state_copy_avx2,
    .embed = ciot_embed_ref, .argmax = ciot_argmax_avx2,
};
/* AVX2's but for attention and DeltaNet's state pass: a zmm register holds the 16 canonical lanes of their
 * dot products, which halves their multiply-adds (kernels/ops.md). */
static const ciot_token_ops ops_avx512f = {
    .name = "avx512f", .features = CIOT_F_AVX2 | CIOT_F_FMA | CIOT_F_AVX512F, .copy_streams = 1,
    .rmsnorm = ciot_rmsnorm_avx2, .deltanet = ciot_deltanet_avx512f, .attention = ciot_attention_avx512f,
    .rope = ciot_rope_ref, .glu = ciot_glu_avx2, .state_copy = ciot_state_copy_avx2,
    .embed = ciot_embed_ref, .argmax = ciot_argmax_avx2,
};
#define ARCH_VERSIONS , &ops_avx2, &ops_avx512f
#elif defined(__aarch64__)
static const ciot_token_ops ops_neon = {
    .name = "neon", .features = CIOT_F_NEON,
    .rmsnorm = ciot_rmsnorm_neon, .deltanet = ciot_deltanet_neon, .attention = ciot_attention_neon,
    .rope = ciot_rope_ref, .glu = ciot_glu_neon, .state_copy = ciot_state_copy_ref,
    .embed = ciot_embed_ref, .argmax = ciot_argmax_neon,
};
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
