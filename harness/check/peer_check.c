/* ciot check --peer: dequantization bit for bit, mul_mat within its float order's bound (peer_check.h). */
#include "peer_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fp16.h"
#include "quant.h"
#include "splitmix64.h"
#include "testdata.h"

enum { ROWS = 8, BLOCKS_PER_ROW = 3, MAX_BATCH = 7 };
/* Roundings of a row's sum beyond one per block: two forming a term, five reducing up to 32 lanes. */
enum { DEPTH = 7 };
static const int batches[] = {1, 4, 7};
static const int threads[] = {1, 2};

static void dequantize_ref(ciot_format f, const void *row, float *out, int K) {
    switch (f) {
    case CIOT_FMT_PQ2_0: ciot_dequantize_pq2_0(row, out, K); break;
    case CIOT_FMT_PTQ1_0: ciot_dequantize_ptq1_0(row, out, K); break;
    case CIOT_FMT_TQ1_0: ciot_dequantize_tq1_0(row, out, K); break;
    case CIOT_FMT_TQ2_0: ciot_dequantize_tq2_0(row, out, K); break;
    }
}

/* Activations of the pattern: random in [-1, 1], all zero, or every third 256-value block zero. */
static void activations(ciot_pattern pat, float *x, int batch, int K, uint64_t seed) {
    for (int i = 0; i < batch * K; i++) {
        const uint64_t z = ciot_splitmix64_at(seed, (uint64_t)i);
        x[i] = (float)((double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        if (pat == CIOT_PAT_ZERO || (pat == CIOT_PAT_ZERO_BLOCKS && (i % K) / 256 % 3 == 0)) x[i] = 0;
    }
}

/* The fp16 scale of weight k's block in a source row, and the largest code magnitude a kernel may multiply:
 * a runtime multiplies unsigned codes (0..3, 0..2 for trits) and subtracts the activation sums, so a partial
 * integer sum of its lanes is bounded by (largest code + 1) x sum |q|, not by the block's signed total. */
static double weight_scale(ciot_format f, const void *row, int k) {
    switch (f) {
    case CIOT_FMT_PQ2_0: return ciot_fp16_to_fp32(((const block_pq2_0 *)row)[k / 128].d);
    case CIOT_FMT_PTQ1_0: return ciot_fp16_to_fp32(((const block_ptq1_0 *)row)[k / 128].d);
    case CIOT_FMT_TQ1_0: return ciot_fp16_to_fp32(((const block_tq1_0 *)row)[k / 256].d);
    default: return ciot_fp16_to_fp32(((const block_tq2_0 *)row)[k / 256].d);
    }
}
static int lane_code_span(ciot_format f) { return f == CIOT_FMT_PQ2_0 || f == CIOT_FMT_TQ2_0 ? 4 : 3; }

/* The exact product of one weight row (its bytes and their dequantization) with one activation row quantized
 * to act; *magnitude: what the bound multiplies (peer_check.h), *blocks: the activation blocks of the row.
 * 0 when ciot has no reference quantizer of act. */
static int exact_dot(const char *act, ciot_format f, const void *row, const float *w, const float *x, int K,
                     double *exact, double *magnitude, int *blocks) {
    static block_q8_K q8k[64];
    static block_q8_0 q80[512];
    const int is_k = strcmp(act, "q8_K") == 0, per = is_k ? 256 : 32;
    if (is_k) ciot_quantize_q8_K(x, q8k, K);
    else if (strcmp(act, "q8_0") == 0) ciot_quantize_q8_0(x, q80, K);
    else return 0;
    double sum = 0, mag = 0;
    for (int n = 0; n < K / per; n++) {
        const double d = is_k ? (double)q8k[n].d : (double)ciot_fp16_to_fp32(q80[n].d);
        double isum = 0;   /* integers times one weight block's scale: exact in double */
        for (int k = n * per; k < (n + 1) * per; k++) {
            const int q = is_k ? q8k[n].qs[k - n * per] : q80[n].qs[k - n * per];
            isum += (double)w[k] * q;
            mag += fabs(d * weight_scale(f, row, k)) * lane_code_span(f) * abs(q);
        }
        sum += d * isum;
    }
    *exact = sum, *magnitude = mag, *blocks = K / per;
    return 1;
}

static double gamma_of(int m) {
    const double u = ldexp(1.0, -24);
    return m * u / (1 - m * u);
}

typedef struct {
    ciot_peer *p;
    int type;
    ciot_format f;
    FILE *log;
    ciot_peer_check_counts *counts;
} type_check;

static void verdict(const type_check *c, int ok, const char *what, const char *example) {
    if (ok) c->counts->passed++;
    else c->counts->failed++;
    if (!ok) fprintf(c->log, "FAIL  %s:%s %s: %s\n", ciot_peer_name(c->p), ciot_peer_api_of(c->p)->types[c->type].name, what, example);
}

/* The runtime's dequantization of every row against ciot's: one case per pattern. */
static void check_dequant(const type_check *c, const ciot_testdata *t, ciot_pattern pat, float *wf) {
    const ciot_peer_api *a = ciot_peer_api_of(c->p);
    const size_t row_bytes = a->row_bytes(c->type, t->K);
    float *theirs = malloc(sizeof(float) * (size_t)t->K);
    char example[256] = "", what[64], err[256];
    for (int r = 0; r < t->rows && theirs; r++) {
        const void *row = (const unsigned char *)t->src + (size_t)r * row_bytes;
        dequantize_ref(c->f, row, wf + (size_t)r * t->K, t->K);
        if (a->dequantize_row(c->type, row, theirs, t->K, err, sizeof err)) {
            snprintf(example, sizeof example, "the runtime refused to dequantize: %s", err);
            break;
        }
        for (int k = 0; k < t->K && !*example; k++)
            if (memcmp(&theirs[k], &wf[(size_t)r * t->K + k], sizeof(float)))
                snprintf(example, sizeof example, "row %d weight %d: runtime %a, ciot %a", r, k, theirs[k], wf[(size_t)r * t->K + k]);
    }
    snprintf(what, sizeof what, "dequantize %s", ciot_pattern_name(pat));
    verdict(c, theirs && !*example, what, *example ? example : "out of memory");
    free(theirs);
}

/* The runtime's mul_mat at one batch and thread count against the exact product, within the bound. */
static void check_mm(const type_check *c, const ciot_testdata *t, ciot_pattern pat, const float *wf, int batch, int nth) {
    const ciot_peer_api *a = ciot_peer_api_of(c->p);
    const ciot_peer_type *ty = &a->types[c->type];
    float x[MAX_BATCH * BLOCKS_PER_ROW * 256], y[MAX_BATCH * ROWS];
    char err[256] = "", what[96], example[320] = "";
    snprintf(what, sizeof what, "mul_mat %s batch %d threads %d", ciot_pattern_name(pat), batch, nth);
    activations(pat, x, batch, t->K, 0xc107 + (uint64_t)pat);
    ciot_peer_mm *mm = a->mm_new(c->type, t->rows, t->K, batch, nth, err, sizeof err);
    if (!mm || a->mm_run(mm, t->src, x, y, err, sizeof err)) {
        snprintf(example, sizeof example, "the runtime refused: %s", err);
    } else {
        for (int b = 0; b < batch && !*example; b++)
            for (int n = 0; n < t->rows && !*example; n++) {
                double exact, mag;
                int blocks;
                const void *row = (const unsigned char *)t->src + (size_t)n * a->row_bytes(c->type, t->K);
                if (!exact_dot(ty->act, c->f, row, wf + (size_t)n * t->K, x + (size_t)b * t->K, t->K, &exact, &mag, &blocks)) {
                    c->counts->skipped++;
                    fprintf(c->log, "SKIP  %s:%s %s: ciot has no reference quantizer of its activation type %s\n",
                            ciot_peer_name(c->p), ty->name, what, ty->act);
                    a->mm_free(mm);
                    return;
                }
                const double bound = gamma_of(blocks + DEPTH) * mag, got = y[(size_t)b * t->rows + n];
                if (!(fabs(got - exact) <= bound))
                    snprintf(example, sizeof example, "row %d column %d: runtime %.9g, exact %.9g, off by %.3g > bound %.3g",
                             b, n, got, exact, fabs(got - exact), bound);
            }
    }
    if (mm) a->mm_free(mm);
    verdict(c, !*example, what, example);
}

void ciot_peer_check(ciot_peer *p, FILE *log, ciot_peer_check_counts *counts) {
    memset(counts, 0, sizeof *counts);
    const ciot_peer_api *a = ciot_peer_api_of(p);
    for (int type = 0; type < a->n_types; type++) {
        type_check c = {p, type, CIOT_FMT_PQ2_0, log, counts};
        if (!ciot_peer_type_format(p, type, &c.f)) continue;
        counts->types++;
        const int K = BLOCKS_PER_ROW * 256;   /* three 256-blocks: six PQ2_0 blocks, 24 Q8_0 blocks */
        const int before = counts->failed;
        for (int pat = 0; pat < CIOT_PAT_COUNT; pat++) {
            ciot_testdata t;
            if (ciot_testdata_make(&t, c.f, &ciot_act_q8_K, ROWS, K, 1, (ciot_pattern)pat, 0, 0x5eed + (uint64_t)pat) != CIOT_OK) {
                counts->failed++;
                fprintf(log, "FAIL  out of memory making the test data\n");
                return;
            }
            float *wf = malloc(sizeof(float) * (size_t)ROWS * K);
            if (wf) {
                check_dequant(&c, &t, (ciot_pattern)pat, wf);
                for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++)
                    for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++)
                        check_mm(&c, &t, (ciot_pattern)pat, wf, batches[b], threads[h]);
            }
            free(wf);
            ciot_testdata_free(&t);
        }
        fprintf(log, "%s  %s:%s (the bytes of %s, activations %s)\n", counts->failed == before ? "ok  " : "FAIL",
                ciot_peer_name(p), a->types[type].name, ciot_format_name(c.f), a->types[type].act);
    }
}
