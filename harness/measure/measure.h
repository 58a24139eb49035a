/* The paired ruler behind every ratio to the read ceiling (bench, replay, suite): one probe sample and one
 * kernel sample per repetition, side by side; its protocol is harness/measure/method.md. */
#ifndef CIOT_MEASURE_H
#define CIOT_MEASURE_H

#include <stddef.h>
#include "pool.h"
#include "probe_bw.h"
#include "rules.h"
#include "stats.h"
#include "status.h"

#define CIOT_RATIO_FLAG "probe slower than the kernel: foreign load, or data in cache"

/* The probe side of the pairs: a read buffer and how it is read. */
typedef struct {
    void *buf;
    size_t bytes;
    int huge;                   /* huge pages requested (the page policy, the same as the weights') */
    double huge_fraction;       /* share of the buffer backed by huge pages after first touch; -1 unknown */
    size_t prefetch;            /* software prefetch distance of the probe's loads = the kernels' policy */
    double min_seconds;         /* the shortest sample (whole passes) */
} ciot_ruler;

/* Allocates bytes (refused with CIOT_E_ARG below ciot_cold_bytes() unless allow_small) and has pool p
 * first-touch it in the probe's static split. */
ciot_status ciot_ruler_init(ciot_ruler *r, ciot_pool *p, size_t bytes, int huge, size_t prefetch, double min_seconds,
                            int allow_small);
/* One probe sample on pool p (any pool at any thread count: the pool the kernel runs on): GB/s. The buffer
 * is read in one stream and in CIOT_BW_STREAMS side by side, each with the kernels' prefetch (when the
 * policy is on) and without software prefetch, and the fastest read is the sample: the ceiling is what the
 * bus delivers to the best of those plans. */
ciot_status ciot_ruler_sample(const ciot_ruler *r, ciot_pool *p, double *gbs);
/* One sample of probe kind (probe_bw.h: update, copy, copy_nt, the rulers of ops that write) over the same
 * buffer, pages and shortest sample, with read's prefetch policy where the kind has one. Like with like in
 * working set too: a pass moves `traffic` bytes, what the kind's ops move in one token (an update reads and
 * writes back half that span; a copy reads the span's first half into its second), but spans at least the
 * cache reach (4 x LLC) and at most the buffer; 0: the whole buffer. A copy over a larger span runs slower
 * than over the ops' own (results/kernel-bounds.md, "Probes and the ruler"). */
ciot_status ciot_ruler_sample_kind(const ciot_ruler *r, ciot_pool *p, ciot_bw_kind kind, size_t traffic,
                                   double *gbs);
/* The buffer bytes ciot_ruler_sample_kind spans for that traffic. */
size_t ciot_ruler_span(const ciot_ruler *r, ciot_bw_kind kind, size_t traffic);
void ciot_ruler_free(ciot_ruler *r);

/* One repetition's pair. */
typedef struct {
    double kernel_gbs, probe_gbs, ratio;
    int probe_first;
} ciot_pair;
/* The order of repetition rep: the probe goes first on even repetitions. */
static inline int ciot_probe_first(int rep) { return rep % 2 == 0; }
static inline ciot_pair ciot_pair_of(double kernel_gbs, double probe_gbs, int probe_first) {
    return (ciot_pair){kernel_gbs, probe_gbs, probe_gbs > 0 ? kernel_gbs / probe_gbs : 0, probe_first};
}

/* /proc/loadavg's three averages into buf ("0.52 0.58 0.59"), "unknown" when unreadable or on Windows. */
const char *ciot_loadavg(char *buf, size_t len);

#endif
