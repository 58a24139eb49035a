/* Oracle inputs: codes and int8 activations drawn first, blocks built from them, so the exact dot
 * products come from the drawn values and not from any decoder under test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "canonical.h"
#include "fp16.h"
#include "quant.h"
#include "splitmix64.h"
#include "testdata.h"

static const char *const pattern_names[CIOT_PAT_COUNT] = {
    "random", "zero", "const", "plus", "minus", "code3+127", "code3-127", "code3+-127", "code3-128", "zero-act-blocks",
    "ties", "tiny-scales", "large-scales", "zero-weights-negative-scales",
};
const char *ciot_pattern_name(ciot_pattern p) { return p < CIOT_PAT_COUNT ? pattern_names[p] : "?"; }

static int uniform(uint64_t *s, int lo, int hi) { return lo + (int)(ciot_splitmix64(s) % (uint64_t)(hi - lo + 1)); }
static float uniformf(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)(ciot_splitmix64(s) >> 40) / 16777216.0f;
}

/* uniform(s, 0, top) for top 2 or 3, each modulus a constant: a 64-bit divide per weight by the run-time
 * top + 1 was most of the cost of drawing the weights. */
static int uniform_code(uint64_t *s, int top) {
    const uint64_t r = ciot_splitmix64(s);
    return (int)(top == 3 ? r % 4 : r % 3);
}

static int draw_code(uint64_t *s, ciot_format f, ciot_pattern p, int k) {
    const int top = f == CIOT_FMT_PQ2_0 || f == CIOT_FMT_TQ2_0 ? 3 : 2; /* code 3 is legal 2-bit input */
    switch (p) {
    case CIOT_PAT_ZERO: case CIOT_PAT_NEG_ZERO: return 1;
    case CIOT_PAT_PLUS: return 2;
    case CIOT_PAT_MINUS: return 0;
    case CIOT_PAT_CODE3_POS: case CIOT_PAT_CODE3_NEG: case CIOT_PAT_CODE3_MIXED: case CIOT_PAT_CODE3_MIN: return top;
    default: return uniform_code(s, top);
    }
    (void)k;
}

static int draw_act(uint64_t *s, ciot_pattern p, int k, const ciot_act_format *act) {
    switch (p) {
    case CIOT_PAT_CODE3_MIN: return act == &ciot_act_q8_0 ? -127 : -128;
    case CIOT_PAT_ZERO: return 0;
    case CIOT_PAT_CODE3_POS: return 127;
    case CIOT_PAT_CODE3_NEG: return -127;
    case CIOT_PAT_CODE3_MIXED: return (k / 7) & 1 ? -127 : 127;
    default: return uniform(s, -127, 127);
    }
}

static uint16_t draw_weight_scale(uint64_t *s, ciot_pattern p, int unit) {
    if (unit) return 0x3c00; /* 1.0 */
    if (p == CIOT_PAT_TINY) return (uint16_t)uniform(s, 1, 0x3ff);               /* subnormal fp16 */
    if (p == CIOT_PAT_LARGE) return (uint16_t)uniform(s, 0x7800, 0x7bff);        /* 32768 .. 65504 */
    if (p == CIOT_PAT_NEG_ZERO) return ciot_fp32_to_fp16(-uniformf(s, 0.001f, 0.05f));
    return ciot_fp32_to_fp16(uniformf(s, 0.001f, 0.05f));
}

static float draw_act_scale(uint64_t *s, ciot_pattern p, int unit) {
    if (unit) return 1.0f;
    if (p == CIOT_PAT_TINY) return uniformf(s, 1e-4f, 1e-3f);
    if (p == CIOT_PAT_LARGE) return uniformf(s, 1e3f, 1e4f);
    return uniformf(s, 0.001f, 0.1f);
}

/* One scale per block of the format (128 or 256 weights). */
static void build_weights(ciot_testdata *t, const uint8_t *codes, uint16_t *wd, uint64_t *s, ciot_pattern p, int unit) {
    const int bv = ciot_format_block_values(t->format), nb = t->K / bv;
    for (int r = 0; r < t->rows; r++)
        for (int i = 0; i < nb; i++) {
            const uint8_t *c = codes + (size_t)r * t->K + (size_t)i * bv;
            const uint16_t d = draw_weight_scale(s, p, unit);
            const size_t at = (size_t)r * nb + i;
            wd[at] = d;
            switch (t->format) {
            case CIOT_FMT_PQ2_0: {
                block_pq2_0 *b = (block_pq2_0 *)t->src + at;
                b->d = d;
                memset(b->qs, 0, sizeof b->qs);
                for (int k = 0; k < CIOT_QK; k++) b->qs[k / 4] |= (uint8_t)(c[k] << (2 * (k % 4)));
                break;
            }
            case CIOT_FMT_PTQ1_0:
                ciot_ptq1_set_codes((block_ptq1_0 *)t->src + at, c);
                ((block_ptq1_0 *)t->src)[at].d = d;
                break;
            case CIOT_FMT_TQ1_0:
                ciot_tq1_set_codes((block_tq1_0 *)t->src + at, c);
                ((block_tq1_0 *)t->src)[at].d = d;
                break;
            case CIOT_FMT_TQ2_0:
                ciot_tq2_set_codes((block_tq2_0 *)t->src + at, c);
                ((block_tq2_0 *)t->src)[at].d = d;
                break;
            }
        }
}

/* Activation rows as int8 values with one scale per block of the format (Q8_K rows also back Q8_Kx4). */
static void build_acts(ciot_testdata *t, const int8_t *q, const float *dscale, block_q8_K *rows_k) {
    const int K = t->K;
    if (t->act == &ciot_act_q8_0) {
        for (int b = 0; b < t->batch; b++)
            for (int i = 0; i < K / 32; i++) {
                block_q8_0 *y = (block_q8_0 *)t->x + (size_t)b * (K / 32) + i;
                y->d = ciot_fp32_to_fp16(dscale[(size_t)b * (K / 32) + i]);
                memcpy(y->qs, q + (size_t)b * K + 32 * i, 32);
            }
        return;
    }
    const int nbk = K / CIOT_QK_K;
    for (int b = 0; b < t->batch; b++)
        for (int i = 0; i < nbk; i++) {
            block_q8_K *y = &rows_k[(size_t)b * nbk + i];
            y->d = dscale[(size_t)b * nbk + i];
            memcpy(y->qs, q + (size_t)b * K + 256 * i, 256);
            ciot_q8_K_bsums(y);
        }
    if (t->act == &ciot_act_q8_K) {
        memcpy(t->x, rows_k, sizeof(block_q8_K) * (size_t)t->batch * nbk);
        return;
    }
    for (int g = 0; g < (t->batch + 3) / 4; g++)
        for (int i = 0; i < nbk; i++) {
            const block_q8_K *four[4] = {0};
            for (int r = 0; r < 4 && 4 * g + r < t->batch; r++) four[r] = &rows_k[(size_t)(4 * g + r) * nbk + i];
            ciot_q8_Kx4_interleave(four, (block_q8_Kx4 *)t->x + (size_t)g * nbk + i);
        }
}

/* Half-way float activations through the format's own reference quantizer; int8 values read back. */
static void build_acts_from_ties(ciot_testdata *t, uint64_t *s, int8_t *q, block_q8_K *rows_k) {
    const int K = t->K;
    float *x = malloc(sizeof(float) * (size_t)t->batch * K);
    if (!x) return;
    for (size_t j = 0; j < (size_t)t->batch * K; j++) x[j] = (float)uniform(s, -254, 254) * 0.5f; /* k + 0.5 ties */
    /* each block opens with 127: amax 127 makes the scale exactly +-1, so the halves stay exact ties */
    for (size_t j = 0; j < (size_t)t->batch * K; j += (size_t)t->act->block_values) x[j] = 127.0f;
    t->act->quantize(x, t->x, t->batch, K);
    /* read the quantized values back for the exact dot */
    if (t->act == &ciot_act_q8_0) {
        for (int b = 0; b < t->batch; b++)
            for (int i = 0; i < K / 32; i++)
                memcpy(q + (size_t)b * K + 32 * i, ((block_q8_0 *)t->x)[(size_t)b * (K / 32) + i].qs, 32);
    } else {
        const int nbk = K / CIOT_QK_K;
        for (int b = 0; b < t->batch; b++) {
            if (t->act == &ciot_act_q8_K) {
                memcpy(rows_k + (size_t)b * nbk, (block_q8_K *)t->x + (size_t)b * nbk, sizeof(block_q8_K) * nbk);
            } else {
                for (int i = 0; i < nbk; i++)
                    ciot_q8_Kx4_row((block_q8_Kx4 *)t->x + (size_t)(b / 4) * nbk + i, b % 4, &rows_k[(size_t)b * nbk + i]);
            }
            for (int i = 0; i < nbk; i++) memcpy(q + (size_t)b * K + 256 * i, rows_k[(size_t)b * nbk + i].qs, 256);
        }
    }
    free(x);
}

/* Exact dot of K codes (code - 1) with int8 values. Each term is at most 256 in magnitude, so 2^16 of them
 * fit an int32: partial sums in int32 (which vectorize), widened once per chunk. */
static int64_t exact_dot(const uint8_t *c, const int8_t *q, int K) {
    enum { CHUNK = 1 << 16 };
    int64_t acc = 0;
    for (int k0 = 0; k0 < K; k0 += CHUNK) {
        const int end = K - k0 < CHUNK ? K : k0 + CHUNK;
        int32_t part = 0;
        for (int k = k0; k < end; k++) part += (c[k] - 1) * q[k];
        acc += part;
    }
    return acc;
}

/* Scales of the activation rows as ciot_canonical_row takes them: Q8_K d per 256 values, or fp32 of the
 * Q8_0 d per 32 values. */
static void act_scales(const ciot_testdata *t, const block_q8_K *rows_k, float *dy, int per_row) {
    for (int b = 0; b < t->batch; b++)
        for (int i = 0; i < per_row; i++)
            dy[(size_t)b * per_row + i] = t->act == &ciot_act_q8_0
                                              ? ciot_fp16_to_fp32(((const block_q8_0 *)t->x)[(size_t)b * per_row + i].d)
                                              : rows_k[(size_t)b * per_row + i].d;
}

ciot_status ciot_testdata_make(ciot_testdata *t, ciot_format f, const ciot_act_format *act, int rows, int K,
                               int batch, ciot_pattern p, int unit, uint64_t seed) {
    memset(t, 0, sizeof *t);
    t->rows = rows, t->K = K, t->batch = batch, t->format = f, t->act = act;
    uint64_t s = seed * 0x2545f4914f6cdd1dull + (uint64_t)p;
    const size_t nw = (size_t)rows * K, na = (size_t)batch * K;
    const int nscale = (int)(na / (size_t)act->block_values);
    uint8_t *codes = malloc(nw);
    uint16_t *wd = malloc(sizeof(uint16_t) * (nw / (size_t)ciot_format_block_values(f)));
    int8_t *q = malloc(na);
    float *dscale = malloc(sizeof(float) * (size_t)nscale);
    block_q8_K *rows_k = act == &ciot_act_q8_0 ? NULL : malloc(sizeof(block_q8_K) * (na / CIOT_QK_K));
    t->src = calloc(1, ciot_source_bytes(f, rows, K));
    t->x = calloc(1, ciot_act_bytes(act, batch, K));
    t->exact = malloc(sizeof(int64_t) * (size_t)batch * rows);
    t->canonical = malloc(sizeof(float) * (size_t)batch * rows);
    if (!t->canonical || !codes || !wd || !q || !dscale || (act != &ciot_act_q8_0 && !rows_k) || !t->src || !t->x ||
        !t->exact) {
        free(codes), free(wd), free(q), free(dscale), free(rows_k);
        ciot_testdata_free(t);
        return CIOT_E_NOMEM;
    }
    for (size_t j = 0; j < nw; j++) {
        codes[j] = (uint8_t)draw_code(&s, f, p, (int)(j % (size_t)K));
        if (p == CIOT_PAT_CONST && j % (size_t)ciot_format_block_values(f)) codes[j] = codes[j - 1];
    }
    for (size_t j = 0; j < na; j++) {
        q[j] = (int8_t)draw_act(&s, p, (int)(j % (size_t)K), act);
        if (p == CIOT_PAT_CONST && j % (size_t)act->block_values) q[j] = q[j - 1];
    }
    for (int j = 0; j < nscale; j++) {
        dscale[j] = draw_act_scale(&s, p, unit);
        if (p == CIOT_PAT_ZERO_BLOCKS && j % 3 == 1) {
            dscale[j] = 0; /* an all-zero block, as the quantizer writes it */
            memset(q + (size_t)j * act->block_values, 0, (size_t)act->block_values);
        }
    }
    build_weights(t, codes, wd, &s, p, unit);
    if (p == CIOT_PAT_TIES)
        build_acts_from_ties(t, &s, q, rows_k);
    else
        build_acts(t, q, dscale, rows_k);
    const int per_row = K / act->block_values, nb = K / ciot_format_block_values(f);
    act_scales(t, rows_k, dscale, per_row); /* as stored (the ties pattern made its own) */
    for (int b = 0; b < batch; b++)
        for (int n = 0; n < rows; n++) {
            t->exact[(size_t)b * rows + n] = exact_dot(codes + (size_t)n * K, q + (size_t)b * K, K);
            t->canonical[(size_t)b * rows + n] = ciot_canonical_row(f, K, codes + (size_t)n * K, wd + (size_t)n * nb,
                                                                    q + (size_t)b * K, dscale + (size_t)b * per_row);
        }
    free(codes), free(wd), free(q), free(dscale), free(rows_k);
    return CIOT_OK;
}

void ciot_testdata_free(ciot_testdata *t) {
    free(t->src), free(t->x), free(t->exact), free(t->canonical);
    t->src = t->x = NULL;
    t->exact = NULL;
    t->canonical = NULL;
}
