/* add's descriptor: a residual add y += x, glu's loops in its CIOT_GLU_ADD mode (glu's oracle cases cover it). */
#include "kind_impl.h"

CIOT_KIND_FNS(glu)
CIOT_KIND_LOOP(glu, ref)
#if defined(__x86_64__)
CIOT_KIND_LOOP(glu, avx2)
#define VERSIONS [CIOT_OPV_AVX2] = run_avx2, [CIOT_OPV_AVX512F] = run_avx2
#elif defined(__aarch64__)
CIOT_KIND_LOOP(glu, neon)
#define VERSIONS [CIOT_OPV_NEON] = run_neon
#else
#define VERSIONS
#endif

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_glu_args *)args = (ciot_glu_args){P, P, P, p[0], CIOT_GLU_ADD};
    need->act_floats = (size_t)p[0];
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_glu_args *a = args;
    a->gate = m->a, a->up = m->b, a->y = m->c;
}

const ciot_token_kind ciot_kind_add = {
    .name = "add", .keys = {"n"}, .type_key = -1, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = {[CIOT_OPV_REF] = run_ref, VERSIONS},
    .size = size, .bind = bind,
};
