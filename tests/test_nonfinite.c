/* The quantizers on input they cannot represent (quant.h): a block holding NaN or +-Inf gets a NaN
 * scale and zero codes, a block too small for its inverse scale gets zero codes, finite blocks beside
 * them are untouched, and every kernel turns NaN activations into NaN outputs, never finite numbers.
 * Run under the debug preset, UBSan aborts on any float-to-integer conversion out of range. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpu.h"
#include "fp16.h"
#include "quant.h"
#include "registry.h"
#include "testdata.h"

enum { N = 512 };   /* two Q8_K blocks, four weight blocks, sixteen Q8_0 blocks */

static const float specials[] = {NAN, -NAN, INFINITY, -INFINITY};
static const char *const special_names[] = {"NaN", "-NaN", "+Inf", "-Inf"};

/* x: a smooth finite row with one special value placed at `at`. */
static void row_with(float *x, float special, int at) {
    for (int j = 0; j < N; j++) x[j] = (float)((j * 37) % 201 - 100) * 0.01f;
    if (at >= 0) x[at] = special;
}

static int all_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static int all_byte(const void *p, size_t n, unsigned char v) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v) return 0;
    return 1;
}

static void test_first_nonfinite(void) {
    float x[N];
    row_with(x, 0, -1);
    CHECK(ciot_first_nonfinite(x, N) == N, "a finite row has none");
    x[N - 1] = FLT_MAX, x[3] = -FLT_MAX, x[5] = 1e-45f;
    CHECK(ciot_first_nonfinite(x, N) == N, "FLT_MAX and subnormals are finite");
    for (int s = 0; s < 4; s++) {
        row_with(x, specials[s], 300);
        x[400] = specials[(s + 1) % 4];
        CHECK(ciot_first_nonfinite(x, N) == 300, "%s at 300 is found first", special_names[s]);
    }
}

static void test_q8_K(void) {
    float x[N], ref_x[N];
    for (int s = 0; s < 4; s++) {
        block_q8_K y[2], ref[2];
        row_with(x, specials[s], 300);   /* in block 1 */
        row_with(ref_x, 0, -1);
        ciot_quantize_q8_K(x, y, N);
        ciot_quantize_q8_K(ref_x, ref, N);
        CHECK(isnan(y[1].d) && all_zero(y[1].qs, sizeof y[1].qs) && all_zero(y[1].bsums, sizeof y[1].bsums),
              "q8_K, %s: NaN scale, codes and sums zero (d %g)", special_names[s], y[1].d);
        CHECK(!memcmp(&y[0], &ref[0], sizeof y[0]), "q8_K, %s: the finite block beside it is untouched",
              special_names[s]);
    }
    for (int sign = -1; sign <= 1; sign += 2) {
        block_q8_K y[2];
        row_with(x, 0, -1);
        for (int j = 0; j < 256; j++) x[j] = (float)sign * 1e-38f * (float)(j % 3);
        ciot_quantize_q8_K(x, y, N);
        CHECK(y[0].d == 0 && !!signbit(y[0].d) == (sign > 0) && all_zero(y[0].qs, sizeof y[0].qs),
              "q8_K, a block of max %+g: codes 0, d = 1 / iscale = %g (as the runtime)", sign * 2e-38, y[0].d);
    }
    block_q8_Kx4 g[2];
    float rows[4 * N];
    for (int r = 0; r < 4; r++) row_with(rows + r * N, NAN, r == 2 ? 10 : -1);
    ciot_quantize_q8_Kx4(rows, g, 4, N);
    CHECK(isnan(g[0].d[2]) && !isnan(g[0].d[1]) && !isnan(g[1].d[2]),
          "q8_Kx4: only the row's block with NaN has a NaN scale");
}

static void test_q8_0(void) {
    float x[N], ref_x[N];
    for (int s = 0; s < 4; s++) {
        block_q8_0 y[N / 32], ref[N / 32];
        row_with(x, specials[s], 40);    /* in block 1 */
        row_with(ref_x, 0, -1);
        ciot_quantize_q8_0(x, y, N);
        ciot_quantize_q8_0(ref_x, ref, N);
        CHECK(y[1].d == 0x7e00 && all_zero(y[1].qs, sizeof y[1].qs), "q8_0, %s: fp16 NaN scale (%#x), codes zero",
              special_names[s], y[1].d);
        CHECK(!memcmp(&y[0], &ref[0], sizeof y[0]) && !memcmp(&y[2], &ref[2], sizeof y[2]),
              "q8_0, %s: the finite blocks beside it are untouched", special_names[s]);
    }
    const float tiny[] = {1e-37f, 1e-38f, 1e-40f, 1e-45f};   /* amax = 2 x tiny < 127 / FLT_MAX */
    for (int t = 0; t < 4; t++) {
        block_q8_0 y[N / 32];
        row_with(x, 0, -1);
        for (int j = 0; j < 32; j++) x[j] = tiny[t] * (float)(j % 5 - 2);
        ciot_quantize_q8_0(x, y, N);
        CHECK(y[0].d == 0 && all_zero(y[0].qs, sizeof y[0].qs), "q8_0, amax %g: scale 0 and codes 0", 2 * tiny[t]);
    }
    row_with(x, 0, -1);
    x[0] = FLT_MAX, x[1] = -FLT_MAX;
    block_q8_0 y[N / 32];
    ciot_quantize_q8_0(x, y, N);
    CHECK(y[0].qs[0] == 127 && y[0].qs[1] == -127 && y[0].d == 0x7c00,
          "q8_0, +-FLT_MAX: +-127 and an fp16 scale of Inf");
}

static void test_weights(void) {
    float x[N], ref_x[N];
    for (int s = 0; s < 4; s++) {
        block_pq2_0 p[4], pref[4];
        block_ptq1_0 t[4], tref[4];
        row_with(x, specials[s], 130);   /* in block 1 */
        row_with(ref_x, 0, -1);
        ciot_quantize_pq2_0(x, p, N);
        ciot_quantize_pq2_0(ref_x, pref, N);
        ciot_quantize_ptq1_0(x, t, N);
        ciot_quantize_ptq1_0(ref_x, tref, N);
        CHECK(p[1].d == 0x7e00 && all_byte(p[1].qs, sizeof p[1].qs, 0x55), "pq2_0, %s: NaN scale, every code 1",
              special_names[s]);
        int ones = 0;
        for (int k = 0; k < 128; k++) ones += ciot_ptq1_code(&t[1], k) == 1;
        CHECK(t[1].d == 0x7e00 && ones == 128, "ptq1_0, %s: NaN scale, every code 1 (%d)", special_names[s], ones);
        CHECK(!memcmp(&p[0], &pref[0], sizeof p[0]) && !memcmp(&t[2], &tref[2], sizeof t[2]),
              "weights, %s: the finite blocks beside it are untouched", special_names[s]);
    }
    for (int tiny = 0; tiny < 2; tiny++) {
        block_pq2_0 p[4];
        block_ptq1_0 t[4];
        row_with(x, 0, -1);
        for (int j = 0; j < 128; j++) x[j] = (tiny ? 1e-45f : 2e-39f) * (float)(j % 3 - 1);
        ciot_quantize_pq2_0(x, p, N);
        ciot_quantize_ptq1_0(x, t, N);
        int ones = 0;
        for (int k = 0; k < 128; k++) ones += ciot_ptq1_code(&t[0], k) == 1;
        CHECK(p[0].d == 0 && all_byte(p[0].qs, sizeof p[0].qs, 0x55) && t[0].d == 0 && ones == 128,
              "weights, amax %g: scale 0, every code 1", tiny ? 1e-45 : 2e-39);
    }
}

/* Every kernel this CPU runs, given activations with one NaN: every output of that activation row is
 * NaN (never a finite number that hides the bad input). */
static void test_kernels(void) {
    const unsigned cpu = ciot_cpu_features();
    const int K = 512, batch = 4;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (ciot_kernel_missing(k, cpu)) continue;
        const int rows = k->layout->tile_rows > 8 ? k->layout->tile_rows : 8;   /* a shape every layout takes */
        ciot_testdata t;
        if (ciot_testdata_make(&t, k->layout->source, k->act, rows, K, 1, CIOT_PAT_RANDOM, 0, 7) != CIOT_OK) {
            CHECK(0, "%s: test data", k->name);
            continue;
        }
        const int b = k->op == CIOT_OP_GEMM ? batch : 1;
        float *x = malloc(sizeof(float) * (size_t)b * K), *y = malloc(sizeof(float) * (size_t)b * rows);
        void *w = malloc(ciot_layout_bytes(k->layout, rows, K)), *q = malloc(ciot_act_bytes(k->act, b, K));
        for (int r = 0; r < b; r++) row_with(x + (size_t)r * K, NAN, r == b - 1 ? 77 : -1);
        ciot_layout_pack(k->layout, t.src, w, rows, K);
        k->act->quantize(x, q, b, K);
        ciot_mm mm = {w, q, y, rows, K, b, rows, 0};
        k->compute(&mm, 0, rows / k->layout->tile_rows);
        int nan_last = 0, finite_others = 0;
        for (int n = 0; n < rows; n++) nan_last += isnan(y[(size_t)(b - 1) * rows + n]);
        for (size_t n = 0; n < (size_t)(b - 1) * rows; n++) finite_others += isfinite(y[n]);
        CHECK(nan_last == rows && finite_others == (b - 1) * rows,
              "%s: the row with NaN gives %d/%d NaN outputs, the others %d/%d finite", k->name, nan_last, rows,
              finite_others, (b - 1) * rows);
        free(x), free(y), free(w), free(q);
        ciot_testdata_free(&t);
    }
}

int main(void) {
    test_first_nonfinite();
    test_q8_K();
    test_q8_0();
    test_weights();
    test_kernels();
    return check_summary();
}
