/* The DRAM bandwidth probe: read-only (the ceiling a gemv can reach), write, copy (plain or non-temporal
 * stores) and in-place update (read a line, write it back) kernels run on a pool, each declaring the bytes it
 * moves; rates are that declaration over the measured time. */
#ifndef CIOT_PROBE_BW_H
#define CIOT_PROBE_BW_H

#include <stddef.h>
#include "pool.h"
#include "status.h"

typedef enum { CIOT_BW_READ, CIOT_BW_WRITE, CIOT_BW_COPY, CIOT_BW_UPDATE, CIOT_BW_COPY_NT } ciot_bw_kind;
enum { CIOT_BW_N_KINDS = 5 };
/* How a read, update or copy_nt sample goes over its buffer (bw_loops.h: CIOT_BW_STREAMS, checked in
 * probe_bw.c). */
#define CIOT_BW_PLANS_TEXT                                                                                       \
    "read, update and copy_nt: the fastest of 1 and 4 address streams, read and update each also without "     \
    "software prefetch when the policy is on"

typedef struct {
    ciot_bw_kind kind;
    int threads;
    int reps;                   /* timed repetitions, after one warm-up pass */
    int passes;                 /* passes over the buffer per repetition (so one lasts long enough) */
    size_t bytes_per_pass;      /* the traffic the kernel declares and the rate counts */
    double min_gbs, median_gbs, max_gbs;    /* 1e9 bytes per second */
    const char *impl;           /* inner loop used: "avx2", "neon" or "generic" */
    const char *traffic;        /* what bytes_per_pass counts, e.g. write-allocate or not */
    size_t prefetch;            /* read, update: the prefetch distance of the policy (0: none); each rep is the
                                 * fastest of the plans {1, CIOT_BW_STREAMS streams} x {with it, without} */
} ciot_bw_result;

/* "read", "write", "copy", "update", "copy_nt". */
const char *ciot_bw_kind_name(ciot_bw_kind kind);
ciot_status ciot_bw_kind_parse(const char *name, ciot_bw_kind *out);
/* The traffic label of a kind, e.g. "write (stores; + write-allocate reads not counted)". */
const char *ciot_bw_traffic(ciot_bw_kind kind);
/* The inner loop this CPU gets ("avx2", "neon", "generic"; CIOT_CPU can mask it down). */
const char *ciot_bw_impl_name(void);

/* A buffer for the probe: 2 MiB aligned, huge pages when asked, and first touched by the pool's
 * threads in the same static split the probe uses, so on NUMA machines each slice is local. */
ciot_status ciot_bw_buffer_alloc(ciot_pool *p, size_t bytes, int huge, void **out);
void ciot_bw_buffer_free(void *buf, size_t bytes);

/* Runs the kernel on every thread of p over buf (each thread its static slice; the copies read the first
 * half into the second), one warm-up pass then `reps` timed repetitions of at least 50 ms each. bytes is
 * rounded down to whole 4 KiB pages per half; it must hold at least one page (two for copy). */
ciot_status ciot_bw_measure(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, int reps,
                            ciot_bw_result *out);
/* The same with the shortest repetition given (whole passes are repeated until one lasts
 * min_rep_seconds) and, for read and update, a software prefetch distance in bytes (0: none; kernels/prefetch.h).
 * A read or update repetition runs in one stream and in CIOT_BW_STREAMS (bw_loops.h), each with and without
 * the prefetch, and keeps the fastest rate. */
ciot_status ciot_bw_measure_for(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, int reps,
                                double min_rep_seconds, size_t prefetch, ciot_bw_result *out);
/* One read sample for pairing with a kernel measurement: no warm-up (the buffer is touched and the pool
 * running), whole passes until the sample lasts min_seconds; GB/s into *gbs, passes into *passes. The
 * buffer is read in each plan of ciot_bw_measure_for and the fastest read is the sample (its passes). */
ciot_status ciot_bw_sample(ciot_pool *p, void *buf, size_t bytes, double min_seconds, size_t prefetch,
                           double *gbs, int *passes);
/* The same for any kind (the paired ruler of an op that writes: update, copy, copy_nt); prefetch applies to
 * read and update (the kinds whose ops prefetch), as above. */
ciot_status ciot_bw_sample_kind(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, double min_seconds,
                                size_t prefetch, double *gbs, int *passes);

#endif
