/* What a replay reports: the dispatches side by side, per op kind (or per op) with every thread's busy
 * and wait time as a table, and everything as JSON in the schema of profiles/README.md. */
#ifndef CIOT_REPLAY_REPORT_H
#define CIOT_REPLAY_REPORT_H

#include <stdio.h>
#include "context.h"
#include "measure.h"
#include "replay_stats.h"

typedef struct {
    const ciot_model *model;
    int n_ops;                  /* ops replayed (the first n_ops of the model) */
    const ciot_kernel *kernel;
    int threads, pinned, batch, tokens, chunk;   /* pinned: every thread bound to a core, shared or not */
    const char *pinning;        /* what the pool did, ciot_pinning_note: "one thread per core (hwloc)", "N threads
                                 * on M cores: cores shared (round-robin)", "not pinned" or "pinning failed" */
    ciot_memory memory;
    int cold;                   /* 1 when every op's weights start outside the caches */
    size_t memory_bytes, weight_bytes;
    const double *probe_gbs;    /* the read-probe sample paired with each measured token (measure.h) */
    ciot_paired_samples paired; /* every probe's samples (read's are probe_gbs; the others' for ops that write) */
    double ceiling_gbs;         /* their median: the ceiling per op */
    size_t ceiling_buffer;
    double probe_huge_fraction, weights_huge_fraction;  /* shares backed by huge pages, -1 unknown */
    size_t prefetch;            /* the kernels' and the probe's software prefetch, bytes ahead (0: off) */
    int real_ops;               /* ops replayed on the model's real bytes (GGUF, full memory); others drawn */
    const char *left_out;       /* GGUF: the tensors not replayed and why ("" when none) */
    ciot_dispatch overhead_dispatch;
    const double *overhead_pct;                 /* per pair, in run order: timed / untimed - 1, in % */
    ciot_overhead overhead;                     /* their summary (overhead.pairs of them) */
    double overhead_on_ms, overhead_off_ms;     /* medians of the pairs' timed and untimed tokens */
    int straggler;              /* -1: none */
    double straggler_us;
    const ciot_run_stats *runs;
    int n_runs;
    int whole_token;            /* 1: the ops between the matvecs ran too (runs per context) */
    const char *token_ops;      /* their version (kernels/ops/token_ops.h: "ref", "avx2", "neon") */
    const char *token_note;     /* the matvecs only: why ("" when asked for) */
} ciot_replay_report;

/* Where attention overtakes the matvecs: attention ms per token = intercept + slope x L, least squares over
 * the runs of the first run's dispatch (at least 2 contexts), against the median of their matvec times. */
typedef struct {
    int points;
    double intercept_ms, slope_ms, matvec_ms;
    double crossover_L;         /* (matvec - intercept) / slope; 0 when the slope is not positive */
} ciot_crossover;
ciot_status ciot_replay_crossover(const ciot_replay_report *rep, ciot_crossover *out);

/* Prints the summary, the per-kind table of every run (per_op: one line per op instead), the slowest
 * ops, the straggler's figures and the profiler's overhead. */
void ciot_replay_print(FILE *f, const ciot_replay_report *rep, int per_op);
/* The profiler-overhead line of the summary: "within noise" when the pairs' spread contains zero. */
void ciot_replay_print_overhead(FILE *f, const ciot_replay_report *rep);
/* Writes the JSON document through ciot_json_create / commit (harness/io/output.h); why gets the reason of
 * a failure (CIOT_E_ARG: the path is refused; CIOT_E_IO: writing failed). */
ciot_status ciot_replay_write_json(const char *path, const ciot_replay_report *rep, const ciot_context *ctx, char *why,
                                   size_t why_len);

#endif
