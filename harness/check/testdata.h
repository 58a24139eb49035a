/* Deterministic test inputs for the oracle and `ciot run` tests: weights in a source format and
 * activations in a kernel's format, with the exact integer dot products they must give. */
#ifndef CIOT_TESTDATA_H
#define CIOT_TESTDATA_H

#include <stdint.h>
#include "kernel.h"

typedef enum {
    CIOT_PAT_RANDOM,      /* random codes (code 3 included for PQ2_0 and TQ2_0) and activations */
    CIOT_PAT_ZERO,        /* all-zero weights and activations */
    CIOT_PAT_CONST,       /* one code per block, one activation value per block */
    CIOT_PAT_PLUS,        /* every weight +1 */
    CIOT_PAT_MINUS,       /* every weight -1 */
    CIOT_PAT_CODE3_POS,   /* code 3 (PQ2_0, TQ2_0; +1 for PTQ1_0, TQ1_0) against +127 */
    CIOT_PAT_CODE3_NEG,   /* code 3 against -127 */
    CIOT_PAT_CODE3_MIXED, /* code 3 against +-127 alternating in runs */
    CIOT_PAT_CODE3_MIN,   /* code 3 against -128 (Q8_K's reference quantizer makes it; -127 for Q8_0, whose
                           * does not): every int16 lane of a gemm's partial sums at its worst case */
    CIOT_PAT_ZERO_BLOCKS, /* random, with every third activation block all zero (d = 0) */
    CIOT_PAT_TIES,        /* float activations at half-way points, through the reference quantizer */
    CIOT_PAT_TINY,        /* tiny scales (fp16 subnormal weight scales) */
    CIOT_PAT_LARGE,       /* large scales (fp16 near its maximum) */
    CIOT_PAT_NEG_ZERO,    /* every weight 0 under negative scales: each output is the +0 of fmaf(0, -s, +0), so
                           * an accumulator started at -0 (or a sign lost) shows */
    CIOT_PAT_COUNT
} ciot_pattern;

const char *ciot_pattern_name(ciot_pattern p);

typedef struct {
    int rows, K, batch;
    ciot_format format;
    const ciot_act_format *act;
    void *src;            /* rows x K weights in the source format */
    void *x;              /* activations in act's format (Q8_Kx4: padded groups) */
    int64_t *exact;       /* [b * rows + n]: the exact integer dot (meaningful in unit mode) */
    float *canonical;     /* [b * rows + n]: the canonical float result, computed from the drawn values */
} ciot_testdata;

/* unit = 1: every scale 1.0, so outputs equal `exact`. Returns CIOT_E_NOMEM on allocation failure. */
ciot_status ciot_testdata_make(ciot_testdata *t, ciot_format f, const ciot_act_format *act, int rows, int K,
                               int batch, ciot_pattern p, int unit, uint64_t seed);
void ciot_testdata_free(ciot_testdata *t);

#endif
