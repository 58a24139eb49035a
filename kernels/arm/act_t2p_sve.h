#if !defined(__ARM_FEATURE_SVE)
#error "act_t2p_sve.h needs SVE (include it from the *_sve.c kernel files only)"
#endif
/* Activations laid out for the T2P SVE SDOT kernels, made once per slice and chunk of K and read by every
 * 4-row tile. Per 128-block b and slot s, a 64-byte image of one T2P pair: y[b][s][16w + j] = activation
 * 8 (4w + s) + (j & 7) of the block, the value word w's byte j meets in slot s (both rows of the pair meet
 * the same eight). Any run of the image lines up lane by lane with the same run of either pair's 64 bytes,
 * so a kernel loads both in steps of its vector length. Then 16 times the running sum of the activations
 * from the chunk's first block through block b (the kernels' sums are 16 times the true ones until their
 * float step; at most 16 x 8192 x 128 in a chunk) and the Q8_K scale, each in four lanes. */
#ifndef CIOT_ARM_ACT_T2P_SVE_H
#define CIOT_ARM_ACT_T2P_SVE_H

#include "formats.h"
#include "util_sve.h"

typedef struct {
    int8_t y[2][4][64]; /* [block b][slot s][16 w + j] */
    int32_t ycum16[2][4]; /* 16 x the sum of the chunk's activations up to and including block b */
    float d[4];         /* the Q8_K scale */
} ciot_t2p_act2_sve;

/* Q8_K blocks j0 .. j0 + n - 1 of the row x (128-blocks 2 j0 .. 2 (j0 + n) - 1) into out[0 .. n - 1]. */
static inline void ciot_t2p_act_prepare_sve(const block_q8_K *x, int j0, int n, ciot_t2p_act2_sve *out) {
    int32_t ycum = 0;
    for (int j = 0; j < n; j++) {
        const block_q8_K *b = &x[j0 + j];
        for (int h = 0; h < 2; h++) {
            ycum += vaddlvq_s16(vld1q_s16(b->bsums + 8 * h));
            for (int c = 0; c < 16; c++) /* chunk c = 4w + s: values 8c .. 8c + 7, twice */
                vst1q_s8(out[j].y[h][c & 3] + 16 * (c >> 2),
                         vreinterpretq_s8_s64(vld1q_dup_s64((const ciot_i64_unaligned_neon *)(b->qs + 128 * h + 8 * c))));
            vst1q_s32(out[j].ycum16[h], vdupq_n_s32(16 * ycum));
        }
        vst1q_f32(out[j].d, vdupq_n_f32(b->d));
    }
}

#endif
