/* The roof a benchmark row is judged against (bench, suite).
 * A gemv reads each weight once per call and does one MAC with it: its roof is the paired read ceiling and
 * its ratio the paired read ratio (measure.h). A gemm reuses each weight over its batch, so the bus alone
 * would judge a compute-bound case by the wrong roof: its roof is the roofline bound at its arithmetic
 * intensity, min(paired probe GB/s x intensity, the compute roof of the kernel's multiply family), the
 * compute roof sampled beside each repetition like the read probe. A lookup kernel does no multiplies and a
 * scalar reference has no vector family: their gemm rows get no compute roof and so no ratio (against the
 * bus alone it would be the read ratio again). */
#ifndef CIOT_ROOF_H
#define CIOT_ROOF_H

#include <stddef.h>
#include "kernel.h"
#include "probe_compute.h"

#define CIOT_COMPUTE_FLAG \
    "kernel above the compute probe of its family: fewer instructions per MAC than the probe chain, or a foreign load"

typedef enum { CIOT_ROOF_NONE, CIOT_ROOF_BW, CIOT_ROOF_COMPUTE } ciot_roof_kind;

/* "none", "bw", "compute". */
const char *ciot_roof_kind_name(ciot_roof_kind k);

/* MACs per byte of weights read: rows x K x batch / the packed matrix's bytes (scales included). The
 * activations and outputs are not counted: a call reads them from the cache. */
double ciot_intensity(int rows, int K, int batch, size_t matrix_bytes);

/* Whether a kernel's rows at this activation batch are bounded by a compute roof: 1 with its family for a
 * gemm whose inner loop multiplies with one there (ciot_kernel_mac); else 0 with why in one short phrase
 * ("gemv: read ceiling", "lookup: no multiplies", "scalar reference"). */
int ciot_roof_family(const ciot_kernel *k, int batch, ciot_compute_family *family, const char **why);

/* One repetition judged against its roof. */
typedef struct {
    ciot_roof_kind kind;
    double bw_gmacs;            /* paired probe GB/s x intensity: what the bus allows */
    double compute_gmacs;       /* the paired compute sample; 0 without a compute roof */
    double bound_gmacs;         /* the lower of the two (the bw roof alone for a gemv); 0 for none */
    double ratio;               /* kernel GMAC/s / bound (for bw, the read ratio itself); 0 for none */
} ciot_roof;

/* gemm: the op is a gemm; compute_gmacs <= 0: no compute roof; read_ratio: the pair's kernel GB/s / probe
 * GB/s, which a bw-bound row keeps as its ratio (the same quotient, not recomputed). */
ciot_roof ciot_roof_of(int gemm, double intensity, double probe_gbs, double compute_gmacs, double kernel_gmacs,
                       double read_ratio);

#endif
