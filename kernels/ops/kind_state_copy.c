/* state_copy's descriptor: snapshots of every DeltaNet state, one copy after another (kernels/ops.md). */
#include <stdio.h>
#include "kind_impl.h"
#include "splitmix64.h"

CIOT_KIND_FNS(state_copy)
CIOT_KIND_LOOP(state_copy, ref)
#if defined(__x86_64__)
CIOT_KIND_LOOP(state_copy, avx2)
#define VERSIONS [CIOT_OPV_AVX2] = run_avx2, [CIOT_OPV_AVX512F] = run_avx2
#else
#define VERSIONS
#endif

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    *(ciot_state_copy_args *)args = (ciot_state_copy_args){ciot_kind_probe[0], ciot_kind_probe[1], 64};
    need->copies = p[0];
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    *(ciot_state_copy_args *)args = (ciot_state_copy_args){m->states, m->snapshot, m->states_bytes};
}

/* copy c into its own slot of the snapshot */
static void copy_at(void *args, int copy) {
    ciot_state_copy_args *a = args;
    a->dst = (unsigned char *)a->dst + (size_t)copy * a->bytes;
}

static const int pointers[] = {offsetof(ciot_state_copy_args, src), offsetof(ciot_state_copy_args, dst), -1};

static void one(ciot_op_cases *c, size_t bytes, size_t skew_src, size_t skew_dst, long values) {
    snprintf(c->label, sizeof c->label, "bytes=%zu src+%zu dst+%zu", bytes, skew_src, skew_dst);
    size_t src = c->region(c, "src", bytes, skew_src), dst = c->region(c, "dst", bytes, skew_dst);
    c->region(c, "after dst", 64, 0); /* must keep its sentinel */
    const ciot_state_copy_args a = {.src = ciot_op_off(src), .dst = ciot_op_off(dst), .bytes = bytes};
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base)
        for (size_t i = 0; i < bytes; i++) base[src + i] = (unsigned char)ciot_splitmix64(&c->seed);
    c->finish(c, values);
}

/* a DeltaNet block's 3 MiB; odd sizes and alignments */
static void cases(ciot_op_cases *c) {
    one(c, 3u << 20, 0, 0, (3L << 20) / 4);
    one(c, 1000003, 3, 5, 1000003 / 4);
    one(c, 200, 0, 33, 50);
    one(c, 0, 0, 0, 0);
}

const ciot_token_kind ciot_kind_state_copy = {
    .name = "state_copy", .keys = {"copies"}, .type_key = -1, .mix = CIOT_MIX_COPY, CIOT_KIND_COMMON,
    .run = {[CIOT_OPV_REF] = run_ref, VERSIONS},
    .size = size, .bind = bind, .copy_at = copy_at, .cases = cases,
};
