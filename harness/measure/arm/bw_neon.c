/* DRAM probe inner loops with NEON (baseline on aarch64): 128-bit loads into eight independent
 * accumulators (read), 128-bit stores (write), load/store pairs (copy; copy_nt with STNP, the non-temporal
 * pair store) and load-add-store of the same lines (update), 256 bytes per iteration; read, update and
 * copy_nt take their buffer as `streams` equal parts side by side, a 256-byte block of each in turn.
 * Preconditions: see bw_loops.h (64-byte aligned, bytes a multiple of CIOT_BW_BLOCK). */
#if !defined(__ARM_NEON)
#error "bw_neon.c needs NEON (baseline on aarch64)"
#endif
#include <arm_neon.h>
#include "bw_loops.h"

uint64_t ciot_bw_read_neon(const void *src, size_t bytes, size_t ahead, int streams) {
    /* Eight accumulators, each fed by a 32-byte pair load: the adds never pace the loads. */
    uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        const uint64_t *p = (const uint64_t *)((const char *)src + at);
        ciot_prefetch(p, 256, ahead); /* the kernels' policy (kernels/prefetch.h), on this block's 4 lines */
        uint64x2x2_t v0 = vld1q_u64_x2(p + 0), v1 = vld1q_u64_x2(p + 4);
        uint64x2x2_t v2 = vld1q_u64_x2(p + 8), v3 = vld1q_u64_x2(p + 12);
        uint64x2x2_t v4 = vld1q_u64_x2(p + 16), v5 = vld1q_u64_x2(p + 20);
        uint64x2x2_t v6 = vld1q_u64_x2(p + 24), v7 = vld1q_u64_x2(p + 28);
        a0 = vaddq_u64(a0, vaddq_u64(v0.val[0], v0.val[1]));
        a1 = vaddq_u64(a1, vaddq_u64(v1.val[0], v1.val[1]));
        a2 = vaddq_u64(a2, vaddq_u64(v2.val[0], v2.val[1]));
        a3 = vaddq_u64(a3, vaddq_u64(v3.val[0], v3.val[1]));
        a4 = vaddq_u64(a4, vaddq_u64(v4.val[0], v4.val[1]));
        a5 = vaddq_u64(a5, vaddq_u64(v5.val[0], v5.val[1]));
        a6 = vaddq_u64(a6, vaddq_u64(v6.val[0], v6.val[1]));
        a7 = vaddq_u64(a7, vaddq_u64(v7.val[0], v7.val[1]));
    }
    uint64x2_t s = vaddq_u64(vaddq_u64(vaddq_u64(a0, a1), vaddq_u64(a2, a3)),
                             vaddq_u64(vaddq_u64(a4, a5), vaddq_u64(a6, a7)));
    return vgetq_lane_u64(s, 0) + vgetq_lane_u64(s, 1);
}

void ciot_bw_write_neon(void *dst, size_t bytes, uint64_t value) {
    uint64_t *p = dst, *end = (uint64_t *)((char *)dst + bytes);
    uint64x2x2_t v = {{vdupq_n_u64(value), vdupq_n_u64(value)}};
    for (; p < end; p += 32) {
        vst1q_u64_x2(p + 0, v);
        vst1q_u64_x2(p + 4, v);
        vst1q_u64_x2(p + 8, v);
        vst1q_u64_x2(p + 12, v);
        vst1q_u64_x2(p + 16, v);
        vst1q_u64_x2(p + 20, v);
        vst1q_u64_x2(p + 24, v);
        vst1q_u64_x2(p + 28, v);
    }
}

void ciot_bw_copy_neon(void *dst, const void *src, size_t bytes) {
    const uint64_t *s = src, *end = (const uint64_t *)((const char *)src + bytes);
    uint64_t *d = dst;
    for (; s < end; s += 32, d += 32) {
        uint64x2x4_t v0 = vld1q_u64_x4(s + 0), v1 = vld1q_u64_x4(s + 8);
        uint64x2x4_t v2 = vld1q_u64_x4(s + 16), v3 = vld1q_u64_x4(s + 24);
        vst1q_u64_x4(d + 0, v0);
        vst1q_u64_x4(d + 8, v1);
        vst1q_u64_x4(d + 16, v2);
        vst1q_u64_x4(d + 24, v3);
    }
}

/* One 64-byte line stored non-temporally: no intrinsic does, so STNP of register pairs, 32 bytes each. */
static inline void stnp64(uint64_t *d, uint64x2x4_t v) {
    __asm__ volatile("stnp %q[a], %q[b], [%[d]]\n\t"
                     "stnp %q[c], %q[e], [%[d], #32]"
                     : : [d] "r"(d), [a] "w"(v.val[0]), [b] "w"(v.val[1]), [c] "w"(v.val[2]), [e] "w"(v.val[3])
                     : "memory");
}

/* One 256-byte block: its four 64-byte loads, then its non-temporal stores. */
static inline void copy_nt_block(uint64_t *d, const uint64_t *s) {
    uint64x2x4_t v0 = vld1q_u64_x4(s + 0), v1 = vld1q_u64_x4(s + 8);
    uint64x2x4_t v2 = vld1q_u64_x4(s + 16), v3 = vld1q_u64_x4(s + 24);
    stnp64(d + 0, v0);
    stnp64(d + 8, v1);
    stnp64(d + 16, v2);
    stnp64(d + 24, v3);
}

void ciot_bw_copy_nt_neon(void *dst, const void *src, size_t bytes, int streams) {
    CIOT_BW_EACH_BLOCK(at, bytes, streams)
        copy_nt_block((uint64_t *)((char *)dst + at), (const uint64_t *)((const char *)src + at));
}

void ciot_bw_update_neon(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams) {
    const uint64x2_t v = vdupq_n_u64(value);
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        uint64_t *p = (uint64_t *)((char *)buf + at);
        ciot_prefetch(p, 256, ahead);
        uint64x2x4_t x0 = vld1q_u64_x4(p + 0), x1 = vld1q_u64_x4(p + 8);
        uint64x2x4_t x2 = vld1q_u64_x4(p + 16), x3 = vld1q_u64_x4(p + 24);
        for (int i = 0; i < 4; i++) {
            x0.val[i] = vaddq_u64(x0.val[i], v), x1.val[i] = vaddq_u64(x1.val[i], v);
            x2.val[i] = vaddq_u64(x2.val[i], v), x3.val[i] = vaddq_u64(x3.val[i], v);
        }
        vst1q_u64_x4(p + 0, x0);
        vst1q_u64_x4(p + 8, x1);
        vst1q_u64_x4(p + 16, x2);
        vst1q_u64_x4(p + 24, x3);
    }
}
