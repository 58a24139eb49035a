/* The token ops' references against plain textbook formulas in double (kernels/ops.md gives each tolerance
 * and why), the canonical exp / log against libm's in double, the checks' refusals, and the choice of version.
 * That every SIMD version writes the reference's bits for 1, 2, 3 and 7 parts is the oracle's (test_oracle,
 * harness/check/oracle_ops.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpu.h"
#include "cpu_mask.h"
#include "fp16.h"
#include "kernel.h"
#include "ops_impl.h"
#include "ops_math.h"
#include "token_kind.h"
#include "splitmix64.h"
#include "token_ops.h"

static uint64_t rng = 12345;
static float uni(float lo, float hi) { return lo + (hi - lo) * (float)((ciot_splitmix64(&rng) >> 40) * (1.0 / 16777216.0)); }
static void fill(float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) x[i] = uni(lo, hi);
}
static void *zalloc(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    memset(p, 0, (bytes + 63) & ~(size_t)63);
    return p;
}
/* largest |got - want| over the largest |want|: an error relative to the output's scale */
static double rel_err(const float *got, const double *want, size_t n) {
    double e = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        e = fmax(e, fabs(got[i] - want[i]));
        m = fmax(m, fabs(want[i]));
    }
    return m > 0 ? e / m : e;
}
static double sigmoid_d(double x) { return 1 / (1 + exp(-x)); }

/* The exp approximation: within 2^-21 relative of exp in double where the result is normal; 0 below
 * ln(FLT_MIN); exp(88) above 88; NaN stays NaN. The log within 2^-22 relative (absolute near 1). */
static void test_math(void) {
    double worst = 0, worst_log = 0;
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f + 175.0f * (float)i / 200000.0f;
        double r = fabs(ciot_ops_expf(x) - exp((double)x)) / exp((double)x);
        worst = fmax(worst, r);
    }
    CHECK(worst < 0x1p-21, "exp: worst relative error %.3g over [-87, 88] (bound 2^-21)", worst);
    CHECK(ciot_ops_expf(0.0f) == 1.0f, "exp(0) = %.9g", ciot_ops_expf(0.0f));
    CHECK(ciot_ops_expf(-87.5f) == 0.0f && ciot_ops_expf(-1000.0f) == 0.0f && ciot_ops_expf(-__builtin_inff()) == 0.0f,
          "exp below ln(FLT_MIN) must be 0");
    CHECK(ciot_ops_expf(100.0f) == ciot_ops_expf(88.0f) && ciot_ops_expf(__builtin_inff()) == ciot_ops_expf(88.0f) &&
              isfinite(ciot_ops_expf(88.0f)),
          "exp above 88 must saturate at exp(88)");
    CHECK(isnan(ciot_ops_expf(__builtin_nanf(""))), "exp(NaN) must be NaN");
    for (int i = 1; i <= 100000; i++) {
        float x = ldexpf(1.0f + (float)i / 100000.0f, (i % 60) - 30);
        double want = log((double)x), err = fabs(ciot_ops_logf(x) - want) / fmax(fabs(want), 1.0);
        worst_log = fmax(worst_log, err);
    }
    CHECK(worst_log < 0x1p-22, "log: worst error %.3g (bound 2^-22, relative above 1)", worst_log);
    double ws = 0, wsi = 0;
    for (int i = 0; i <= 20000; i++) {
        float x = -40.0f + 80.0f * (float)i / 20000.0f;
        ws = fmax(ws, fabs(ciot_ops_sigmoidf(x) - sigmoid_d(x)));
        wsi = fmax(wsi, fabs(ciot_ops_siluf(x) - x * sigmoid_d(x)) / fmax(fabs(x * sigmoid_d(x)), 1e-30));
    }
    CHECK(ws < 1e-6, "sigmoid: worst absolute error %.3g (bound 1e-6)", ws);
    CHECK(wsi < 1e-6, "silu: worst relative error %.3g over [-40, 40] (bound 1e-6)", wsi);
}

/* Runs every phase of the reference, one part. */
#define RUN_REF(kind, a)                                                                  \
    for (int ph = 0; ph < ciot_##kind##_phases(a); ph++) ciot_token_run(&ciot_kind_##kind, &ciot_token_ops_ref, a, ph, 0, 1)

static void test_rmsnorm(void) {
    int rows = 3, n = 5120;
    float *x = zalloc(4 * (size_t)rows * n), *w = zalloc(4 * (size_t)n), *y = zalloc(4 * (size_t)rows * n);
    double *want = malloc(8 * (size_t)rows * n);
    fill(x, (size_t)rows * n, -3, 3), fill(w, n, 0.5f, 1.5f);
    ciot_rmsnorm_args a = {x, w, y, rows, n, 0, 1e-6f};
    RUN_REF(rmsnorm, &a);
    for (int r = 0; r < rows; r++) {
        double ss = 0;
        for (int i = 0; i < n; i++) ss += (double)x[r * n + i] * x[r * n + i];
        for (int i = 0; i < n; i++) want[r * n + i] = x[r * n + i] / sqrt(ss / n + 1e-6) * w[i];
    }
    double e = rel_err(y, want, (size_t)rows * n);
    CHECK(e < 1e-6, "rmsnorm vs double: %.3g (bound 1e-6)", e);
    free(x), free(w), free(y), free(want);
}

static void test_glu(void) {
    int n = 17408;
    float *g = zalloc(4 * (size_t)n), *u = zalloc(4 * (size_t)n), *y = zalloc(4 * (size_t)n);
    double *want = malloc(8 * (size_t)n);
    fill(g, n, -10, 10), fill(u, n, -2, 2), fill(y, n, -2, 2);
    for (int i = 0; i < n; i++) want[i] = y[i] + (double)u[i];
    ciot_glu_args add = {NULL, u, y, n, CIOT_GLU_ADD};
    RUN_REF(glu, &add);
    double e = rel_err(y, want, n);
    CHECK(e < 1e-7, "residual add vs double: %.3g (bound 1e-7: one rounding)", e);
    for (int i = 0; i < n; i++) want[i] = g[i] * sigmoid_d(g[i]) * u[i];
    ciot_glu_args silu = {g, u, y, n, CIOT_GLU_SILU};
    RUN_REF(glu, &silu);
    e = rel_err(y, want, n);
    CHECK(e < 1e-6, "silu(gate) x up vs double: %.3g (bound 1e-6)", e);
    free(g), free(u), free(y), free(want);
}

/* The gated delta rule in double, step by step as its paper and the runtime write it. */
static void test_deltanet(void) {
    const int kh = 4, vh = 12, D = 128, taps = 4, C = (2 * kh + vh) * D;
    ciot_deltanet_args a = {.k_heads = kh, .v_heads = vh, .head_dim = D, .conv = taps, .eps = 1e-6f};
    float *qkv = zalloc(4 * (size_t)C), *cs = zalloc(4 * (size_t)(taps - 1) * C), *cw = zalloc(4 * (size_t)taps * C);
    float *g = zalloc(4 * 4 * (size_t)vh), *S = zalloc(4 * (size_t)vh * D * D), *out = zalloc(4 * (size_t)vh * D);
    fill(qkv, C, -3, 3), fill(cs, (size_t)(taps - 1) * C, -3, 3), fill(cw, (size_t)taps * C, -0.6f, 0.6f);
    fill(g, 2 * (size_t)vh, -4, 4), fill(g + 2 * vh, vh, -2, 1), fill(g + 3 * vh, vh, -1, 1);
    fill(S, (size_t)vh * D * D, -0.1f, 0.1f);
    a.qkv = qkv, a.conv_state = cs, a.conv_w = cw, a.alpha = g, a.beta_in = g + vh, a.a_log = g + 2 * vh;
    a.dt_bias = g + 3 * vh, a.state = S, a.out = out, a.scratch = zalloc(ciot_deltanet_scratch_bytes(&a));
    double *conv = malloc(8 * (size_t)C), *Sd = malloc(8 * (size_t)vh * D * D), *od = malloc(8 * (size_t)vh * D);
    double *csd = malloc(8 * (size_t)(taps - 1) * C);
    for (int c = 0; c < C; c++) {
        double acc = (double)cw[(size_t)(taps - 1) * C + c] * qkv[c];
        for (int t = 0; t < taps - 1; t++) acc += (double)cw[(size_t)t * C + c] * cs[(size_t)t * C + c];
        conv[c] = acc * sigmoid_d(acc);
        for (int t = 0; t < taps - 2; t++) csd[(size_t)t * C + c] = cs[(size_t)(t + 1) * C + c];
        csd[(size_t)(taps - 2) * C + c] = qkv[c];
    }
    for (int h = 0; h < 2 * kh; h++) {
        double ss = 0;
        for (int i = 0; i < D; i++) ss += conv[h * D + i] * conv[h * D + i];
        double m = 1 / sqrt(ss + 1e-6) * (h < kh ? 1 / sqrt((double)D) : 1);
        for (int i = 0; i < D; i++) conv[h * D + i] *= m;
    }
    for (size_t i = 0; i < (size_t)vh * D * D; i++) Sd[i] = S[i];
    for (int h = 0; h < vh; h++) {
        const double *q = conv + (h / (vh / kh)) * D, *k = conv + (kh + h / (vh / kh)) * D, *v = conv + (2 * kh + h) * D;
        double x = (double)a.alpha[h] + a.dt_bias[h], sp = log1p(exp(x));
        double decay = exp(-exp((double)a.a_log[h]) * sp), beta = sigmoid_d(a.beta_in[h]);
        for (int j = 0; j < D; j++) {
            double *row = Sd + ((size_t)h * D + j) * D, sk = 0, o = 0;
            for (int i = 0; i < D; i++) sk += row[i] * k[i];
            double u = beta * (v[j] - decay * sk);
            for (int i = 0; i < D; i++) row[i] = decay * row[i] + u * k[i], o += row[i] * q[i];
            od[h * D + j] = o;
        }
    }
    RUN_REF(deltanet, &a);
    double es = rel_err(S, Sd, (size_t)vh * D * D), eo = rel_err(out, od, (size_t)vh * D);
    double ec = rel_err(cs, csd, (size_t)(taps - 1) * C);
    CHECK(ec == 0, "deltanet: the conv state must shift exactly (%.3g)", ec);
    CHECK(es < 1e-5, "deltanet state vs double: %.3g (bound 1e-5)", es);
    CHECK(eo < 1e-5, "deltanet output vs double: %.3g (bound 1e-5)", eo);
    free(qkv), free(cs), free(cw), free(g), free(S), free(out), free(a.scratch), free(conv), free(Sd), free(od), free(csd);
}

/* softmax(q K^T / sqrt(d)) V times sigmoid(gate), in double over the fp16 cache (the new k, v rounded to fp16). */
static void test_attention(int L) {
    const int qh = 12, kvh = 2, D = 256, G = qh / kvh, cap = L + 1;
    ciot_attention_args a = {.q_heads = qh, .kv_heads = kvh, .head_dim = D, .q_stride = 2 * D, .L = L, .capacity = cap,
                             .scale = 1.0f / 16.0f};
    float *q = zalloc(4 * (size_t)qh * 2 * D), *kv = zalloc(4 * 2 * (size_t)kvh * D), *out = zalloc(4 * (size_t)qh * D);
    uint16_t *K = zalloc(2 * (size_t)kvh * cap * D), *V = zalloc(2 * (size_t)kvh * cap * D);
    fill(q, (size_t)qh * 2 * D, -1.5f, 1.5f), fill(kv, 2 * (size_t)kvh * D, -2, 2);
    for (size_t i = 0; i < (size_t)kvh * cap * D; i++) K[i] = ciot_fp32_to_fp16(uni(-2, 2)), V[i] = ciot_fp32_to_fp16(uni(-2, 2));
    a.q = q, a.gate = q + D, a.k = kv, a.v = kv + kvh * D, a.out = out, a.k_cache = K, a.v_cache = V;
    a.scratch = zalloc(ciot_attention_scratch_bytes(&a));
    RUN_REF(attention, &a);
    double *want = malloc(8 * (size_t)qh * D), *s = malloc(8 * (size_t)cap);
    int appended = 1;
    for (int g = 0; g < kvh; g++)
        for (int d = 0; d < D; d++) {
            appended &= K[((size_t)g * cap + L) * D + d] == ciot_fp32_to_fp16(kv[g * D + d]);
            appended &= V[((size_t)g * cap + L) * D + d] == ciot_fp32_to_fp16(kv[(kvh + g) * D + d]);
        }
    CHECK(appended, "attention L=%d: this token's k and v must be appended at position L as fp16", L);
    for (int h = 0; h < qh; h++) {
        int g = h / G;
        double m = -INFINITY, sum = 0;
        for (int p = 0; p <= L; p++) {
            double dot = 0;
            for (int d = 0; d < D; d++) dot += (double)q[h * 2 * D + d] * ciot_fp16_to_fp32(K[((size_t)g * cap + p) * D + d]);
            s[p] = dot / 16.0, m = fmax(m, s[p]);
        }
        for (int p = 0; p <= L; p++) s[p] = exp(s[p] - m), sum += s[p];
        for (int d = 0; d < D; d++) {
            double o = 0;
            for (int p = 0; p <= L; p++) o += s[p] * ciot_fp16_to_fp32(V[((size_t)g * cap + p) * D + d]);
            want[h * D + d] = o / sum * sigmoid_d(q[h * 2 * D + D + d]);
        }
    }
    double e = rel_err(out, want, (size_t)qh * D);
    CHECK(e < 1e-5, "attention L=%d vs double: %.3g (bound 1e-5)", L, e);
    free(q), free(kv), free(out), free(K), free(V), free(a.scratch), free(want), free(s);
}

static void test_rope(void) {
    const int qh = 3, kh = 2, D = 64, rot = 32, pos = 1000;
    float *table = zalloc(4 * (size_t)(pos + 1) * rot), *q = zalloc(4 * (size_t)qh * D), *k = zalloc(4 * (size_t)kh * D);
    double *want = malloc(8 * (size_t)(qh + kh) * D);
    fill(q, (size_t)qh * D, -3, 3), fill(k, (size_t)kh * D, -3, 3);
    ciot_rope_table(table, pos + 1, rot, 10000000.0);
    for (int h = 0; h < qh + kh; h++) {
        const float *x = h < qh ? q + h * D : k + (h - qh) * D;
        for (int i = 0; i < D; i++) want[h * D + i] = x[i];
        for (int i = 0; i < rot / 2; i++) {
            double th = pos * pow(10000000.0, -2.0 * i / rot);
            want[h * D + i] = x[i] * cos(th) - x[i + rot / 2] * sin(th);
            want[h * D + i + rot / 2] = x[i + rot / 2] * cos(th) + x[i] * sin(th);
        }
    }
    ciot_rope_args a = {q, k, qh, kh, 0, 0, D, rot, table + (size_t)pos * rot};
    RUN_REF(rope, &a);
    float *got = malloc(4 * (size_t)(qh + kh) * D);
    memcpy(got, q, 4 * (size_t)qh * D), memcpy(got + qh * D, k, 4 * (size_t)kh * D);
    double e = rel_err(got, want, (size_t)(qh + kh) * D);
    CHECK(e < 1e-6, "rope vs double: %.3g (bound 1e-6)", e);
    free(table), free(q), free(k), free(want), free(got);
}

static void test_argmax_embed_copy(void) {
    int n = 248320;
    float *x = zalloc(4 * (size_t)n);
    fill(x, n, -20, 20);
    x[777] = 50.0f, x[200000] = 50.0f; /* a tie: the first wins */
    int idx = -1;
    float val = 0;
    ciot_argmax_args a = {x, n, &idx, &val, NULL};
    a.scratch = zalloc(ciot_argmax_scratch_bytes(&a));
    RUN_REF(argmax, &a);
    CHECK(idx == 777 && val == 50.0f, "argmax: %d (%g), expected 777 (50)", idx, val);
    x[777] = __builtin_nanf(""), x[5] = __builtin_inff();
    RUN_REF(argmax, &a);
    CHECK(idx == 5, "argmax with a NaN and +inf: %d, expected 5 (NaN never wins)", idx);
    free(x), free(a.scratch);

    uint16_t h[256];
    float out[256], want[256];
    for (int i = 0; i < 256; i++) {
        want[i] = uni(-4, 4);
        h[i] = ciot_fp32_to_fp16(want[i]);
        want[i] = ciot_fp16_to_fp32(h[i]);
    }
    ciot_embed_args e = {h, out, 256, CIOT_EMBED_F16};
    RUN_REF(embed, &e);
    CHECK(!memcmp(out, want, sizeof out), "embed f16: the row's values, widened");
    for (int i = 0; i < 256; i++) h[i] = (uint16_t)(ciot_f32_bits(want[i]) >> 16);
    e.type = CIOT_EMBED_BF16;
    RUN_REF(embed, &e);
    int bf_ok = 1;
    for (int i = 0; i < 256; i++) bf_ok &= ciot_f32_bits(out[i]) == (ciot_f32_bits(want[i]) & 0xffff0000u);
    CHECK(bf_ok, "embed bf16: the top half of each fp32");

    size_t bytes = 1000003;
    unsigned char *src = zalloc(bytes), *dst = zalloc(bytes + 64);
    for (size_t i = 0; i < bytes; i++) src[i] = (unsigned char)(i * 31 + 7);
    ciot_state_copy_args c = {src, dst + 1, bytes};
    RUN_REF(state_copy, &c);
    CHECK(!memcmp(src, dst + 1, bytes) && dst[0] == 0 && dst[bytes + 1] == 0, "state_copy: the bytes, and no more");
    free(src), free(dst);
}

/* Bad args: one clear line each. */
static void test_checks(void) {
    char why[256];
    float f[64] = {0};
    ciot_rmsnorm_args r = {f, f, f, 1, 17, 0, 1e-6f};
    CHECK(ciot_rmsnorm_check(&r, why, sizeof why) == CIOT_E_SHAPE && strstr(why, "multiple of 16"), "rmsnorm n 17: %s", why);
    r.n = 16, r.rows = 0;
    CHECK(ciot_rmsnorm_check(&r, why, sizeof why) == CIOT_E_SHAPE, "rmsnorm rows 0 must be refused");
    r.rows = 1, r.x = NULL;
    CHECK(ciot_rmsnorm_check(&r, why, sizeof why) == CIOT_E_ARG, "rmsnorm NULL x must be refused");
    ciot_deltanet_args d = {f, f, f, f, f, f, f, f, f, f, 16, 40, 128, 4, 1e-6f, 0};
    CHECK(ciot_deltanet_check(&d, why, sizeof why) == CIOT_E_SHAPE && strstr(why, "40 value heads"), "deltanet 40/16: %s", why);
    d.v_heads = 48, d.conv = 1;
    CHECK(ciot_deltanet_check(&d, why, sizeof why) == CIOT_E_SHAPE, "deltanet conv 1 must be refused");
    uint16_t hc[64];
    ciot_attention_args at = {f, f, f, f, hc, hc, f, f, 24, 4, 256, 512, 10, 10, 0.0625f};
    CHECK(ciot_attention_check(&at, why, sizeof why) == CIOT_E_SHAPE && strstr(why, "room for L + 1"), "attention full cache: %s", why);
    at.capacity = 11, at.q_heads = 25;
    CHECK(ciot_attention_check(&at, why, sizeof why) == CIOT_E_SHAPE, "attention 25 over 4 heads must be refused");
    ciot_state_copy_args c = {f, f + 8, 64};
    CHECK(ciot_state_copy_check(&c, why, sizeof why) == CIOT_E_ARG && strstr(why, "overlap"), "overlapping copy: %s", why);
    ciot_embed_args e = {f, f, 100, CIOT_EMBED_Q8_0};
    CHECK(ciot_embed_check(&e, why, sizeof why) == CIOT_E_SHAPE, "embed q8_0 n 100 must be refused");
    e.type = (ciot_embed_type)99;
    CHECK(ciot_embed_check(&e, why, sizeof why) == CIOT_E_ARG, "embed unknown type must be refused");
    ciot_glu_args g = {f, f, f, 0, CIOT_GLU_SILU};
    CHECK(ciot_glu_check(&g, why, sizeof why) == CIOT_E_SHAPE, "glu n 0 must be refused");
    ciot_rope_args ro = {f, f, 1, 1, 0, 0, 16, 18, f};
    CHECK(ciot_rope_check(&ro, why, sizeof why) == CIOT_E_SHAPE, "rope rot 18 of 16 must be refused");
}

/* The version list and the choice by CPU features, under CIOT_CPU masks. */
static void test_versions(void) {
    CHECK(ciot_token_ops_count() >= 1 && ciot_token_ops_at(0) == &ciot_token_ops_ref, "the reference comes first");
    CHECK(ciot_token_ops_find("ref") == &ciot_token_ops_ref && !ciot_token_ops_find("nope"), "find by name");
    for (int k = 1; k < CIOT_STEP_KINDS; k++)
        CHECK(ciot_token_kind_of(k) && ciot_step_kind_of(ciot_step_kind_name(k)) == k, "kind %d has a name naming it", k);
    CHECK(!ciot_token_kind_of(CIOT_STEP_MATVEC) && !ciot_token_kind_of(CIOT_STEP_KINDS), "no descriptor for a matvec or past the kinds");
    test_mask_cpu("none");
    CHECK(ciot_token_ops_best() == &ciot_token_ops_ref, "CIOT_CPU=none chooses the reference");
    test_unmask_cpu();
#if defined(__x86_64__) || defined(_M_X64)
    /* the AVX-512 F version only where the CPU has AVX-512 F; AVX2 and FMA alone choose AVX2's */
    CHECK(ciot_token_ops_find("avx2") && ciot_token_ops_find("avx512f"), "x86 has the avx2 and avx512f versions");
    test_mask_cpu("avx2,fma");
    if ((ciot_cpu_features() & (CIOT_F_AVX2 | CIOT_F_FMA)) == (CIOT_F_AVX2 | CIOT_F_FMA))
        CHECK(ciot_token_ops_best() == ciot_token_ops_find("avx2"), "CIOT_CPU=avx2,fma chooses avx2, not %s",
              ciot_token_ops_best()->name);
    test_unmask_cpu();
    const unsigned f512 = CIOT_F_AVX2 | CIOT_F_FMA | CIOT_F_AVX512F;
    if ((ciot_cpu_features() & f512) == f512)
        CHECK(ciot_token_ops_best() == ciot_token_ops_find("avx512f"), "a CPU with AVX-512 F chooses avx512f, not %s",
              ciot_token_ops_best()->name);
#endif
    unsigned cpu = ciot_cpu_features();
    const ciot_token_ops *best = ciot_token_ops_best();
    CHECK((best->features & cpu) == best->features, "the best version runs on this CPU");
    for (int i = 0; i < ciot_token_ops_count(); i++) {
        const ciot_token_ops *v = ciot_token_ops_at(i);
        CHECK(v->id >= 0 && v->id < CIOT_OPV_COUNT && (i == 0) == (v->id == CIOT_OPV_REF), "version %s's id %d",
              v->name, v->id);
        for (int k = 1; k < CIOT_STEP_KINDS; k++)
            CHECK(ciot_token_kind_of(k)->run[CIOT_OPV_REF], "version %s runs kind %s (its own loop or the reference's)",
                  v->name, ciot_step_kind_name(k));
        if ((v->features & cpu) == v->features) CHECK(best == v || i < ciot_token_ops_count() - 1, "best is the last runnable");
    }
}

int main(void) {
    test_math();
    test_rmsnorm();
    test_glu();
    test_deltanet();
    test_attention(0);
    test_attention(300);
    test_rope();
    test_argmax_embed_copy();
    test_checks();
    test_versions();
    return check_summary();
}
