/* The canonical float arithmetic of the token ops (kernels/ops.md), scalar: every SIMD version computes these
 * same steps lane by lane, so its outputs are these functions' bits. */
#ifndef CIOT_OPS_MATH_H
#define CIOT_OPS_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Every sum over a vector is kept in 16 lanes (lane j takes elements i = j mod 16, in increasing i), folded
 * by halves: j + 8, then j + 4, j + 2, j + 1. */
#define CIOT_OPS_LANES 16

/* The exp approximation (Cephes' expf with fused steps): x < ln(FLT_MIN) gives 0, x > 88 gives exp(88);
 * in between, about 2 ulp. NaN gives NaN. */
#define CIOT_EXP_HI 88.0f
#define CIOT_EXP_LO (-87.33654f)
#define CIOT_EXP_LOG2E 1.44269504088896341f
#define CIOT_EXP_MAGIC 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer, ties to even */
#define CIOT_EXP_LN2_HI 0.693359375f
#define CIOT_EXP_LN2_LO (-2.12194440e-4f)
#define CIOT_EXP_P0 1.9875691500e-4f
#define CIOT_EXP_P1 1.3981999507e-3f
#define CIOT_EXP_P2 8.3334519073e-3f
#define CIOT_EXP_P3 4.1665795894e-2f
#define CIOT_EXP_P4 1.6666665459e-1f
#define CIOT_EXP_P5 5.0000001201e-1f

static inline uint32_t ciot_ops_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float ciot_ops_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float ciot_ops_expf(float x0) {
    /* the clamps in this order let NaN through (a SIMD min / max of (bound, x) does the same) */
    float x = CIOT_EXP_HI < x0 ? CIOT_EXP_HI : x0;
    x = CIOT_EXP_LO > x ? CIOT_EXP_LO : x;
    float t = fmaf(x, CIOT_EXP_LOG2E, CIOT_EXP_MAGIC);
    float n = t - CIOT_EXP_MAGIC;
    float r = fmaf(n, -CIOT_EXP_LN2_HI, x);
    r = fmaf(n, -CIOT_EXP_LN2_LO, r);
    float p = CIOT_EXP_P0;
    p = fmaf(p, r, CIOT_EXP_P1);
    p = fmaf(p, r, CIOT_EXP_P2);
    p = fmaf(p, r, CIOT_EXP_P3);
    p = fmaf(p, r, CIOT_EXP_P4);
    p = fmaf(p, r, CIOT_EXP_P5);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    /* n is in [-126, 127]: 2^n built from its bits, the integer the magic add left in t's mantissa */
    uint32_t scale = (ciot_ops_bits(t) - ciot_ops_bits(CIOT_EXP_MAGIC) + 127u) << 23;
    float y = p * ciot_ops_float(scale);
    return x0 < CIOT_EXP_LO ? 0.0f : y;
}

/* Cephes' logf, fused steps: x = m 2^e with m in [sqrt(1/2), sqrt(2)); x > 0 finite. */
static inline float ciot_ops_logf(float x) {
    int e;
    float m = frexpf(x, &e);
    if (m < 0.70710678118654752f) {
        m = m + m;
        e -= 1;
    }
    float f = m - 1.0f, z = f * f, fe = (float)e;
    float y = 7.0376836292e-2f;
    y = fmaf(y, f, -1.1514610310e-1f);
    y = fmaf(y, f, 1.1676998740e-1f);
    y = fmaf(y, f, -1.2420140846e-1f);
    y = fmaf(y, f, 1.4249322787e-1f);
    y = fmaf(y, f, -1.6668057665e-1f);
    y = fmaf(y, f, 2.0000714765e-1f);
    y = fmaf(y, f, -2.4999993993e-1f);
    y = fmaf(y, f, 3.3333331174e-1f);
    y = y * f * z;
    y = fmaf(fe, CIOT_EXP_LN2_LO, y);
    y = fmaf(-0.5f, z, y);
    return fmaf(fe, CIOT_EXP_LN2_HI, f + y);
}

/* softplus(x) = log(1 + exp(x)), x itself above 20 (where the two agree in fp32). */
static inline float ciot_ops_softplusf(float x) { return x > 20.0f ? x : ciot_ops_logf(1.0f + ciot_ops_expf(x)); }

static inline float ciot_ops_sigmoidf(float x) { return 1.0f / (1.0f + ciot_ops_expf(-x)); }
static inline float ciot_ops_siluf(float x) { return x / (1.0f + ciot_ops_expf(-x)); }

/* Folds 16 lanes in the canonical order. */
static inline float ciot_ops_fold16(float l[CIOT_OPS_LANES]) {
    for (int w = 8; w >= 1; w >>= 1)
        for (int j = 0; j < w; j++) l[j] = l[j] + l[j + w];
    return l[0];
}

/* sum of a[i] * b[i] (fused, per lane), n a multiple of 16. */
static inline float ciot_ops_dot(const float *a, const float *b, int n) {
    float l[CIOT_OPS_LANES] = {0};
    for (int i = 0; i < n; i++) l[i & 15] = fmaf(a[i], b[i], l[i & 15]);
    return ciot_ops_fold16(l);
}

/* The part-th of parts contiguous shares of n units: [*lo, *hi). */
static inline void ciot_ops_share(long n, int part, int parts, long *lo, long *hi) {
    *lo = n * part / parts;
    *hi = n * (part + 1) / parts;
}

#endif
