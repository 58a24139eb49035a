/* Summaries of replayed tokens: per step the median over tokens of its wall time and of every
 * thread's busy and wait time; per run ms per token, tok/s, GB/s against the ceiling, the wait share,
 * the slowest steps; and the same per op kind for the table. */
#ifndef CIOT_REPLAY_STATS_H
#define CIOT_REPLAY_STATS_H

#include "replay.h"
#include "replay_ruler.h"
#include "stats.h"

enum { CIOT_SLOWEST = 5 };

typedef struct {
    double wall_us, gbs, pct_ceiling;   /* pct_ceiling: against the median of its own ruler's samples */
    double *busy_us, *wait_us, *start_us, *injected_us;   /* per thread */
} ciot_step_stats;

typedef struct {
    ciot_dispatch dispatch;
    int n_steps, threads, tokens, batch;
    const ciot_replay_step *steps;
    size_t bytes;                           /* bytes one pass moves: the weights, the whole token's all bytes */
    double ms_min, ms_median, ms_max;       /* per token: one replayed pass / batch */
    double tok_s, bound_tok_s, gbs;
    double ceiling_gbs;                     /* median of the paired read-probe samples */
    double ruler_median[CIOT_BW_N_KINDS];   /* median of each probe's paired samples (0: not sampled) */
    double bound_gbs;                       /* the bound's rate: bytes over the time every step's bytes take at
                                             * its ruler's median (the read ceiling when every step reads) */
    double pct_ceiling;                     /* median over tokens of the token's bound time at its own samples /
                                             * its time (all reads: its GB/s / its read sample) */
    double ratio_min, ratio_max;            /* the same ratio's extremes (x 100 = %) */
    int ratio_above_1;                      /* some token read faster than its probe: flagged */
    double *ratio;                          /* per token, in token order */
    double wait_share;                      /* sum of wait / (threads x token time), all tokens */
    double injected_share;                  /* the straggler's injected time, on the same scale */
    ciot_step_stats *step;
    int slowest[CIOT_SLOWEST], n_slowest;   /* steps with the lowest GB/s */
    const ciot_replay_record *recs;         /* the measured tokens (for the per-kind spreads) */
    const double *probe_gbs;                /* their paired read-probe samples, NULL: none */
    ciot_paired_samples paired;             /* every probe's samples paired with them */
    int context;                            /* the whole token's KV length L (0: matvecs only) */
    double sum_ratio, sum_ratio_min, sum_ratio_max;  /* per token: the steps' wall times summed / the token's
                                                      * wall time, median and spread */
} ciot_run_stats;

/* Medians over the measured tokens' records. paired->gbs[p][k] is probe p's sample paired with token k
 * (measure.h): each step is paired with its ruler's (steps[s].ruler; read when that probe was not sampled).
 * Per token the ratio is the time its bytes take at its own samples, each step's at its ruler's, over the
 * token's time (every step reading: the token's GB/s over its read sample); per op, the op's median GB/s
 * over its ruler's median sample. paired may be NULL or hold no read samples (no percentages then). */
ciot_status ciot_run_stats_compute(ciot_dispatch d, const ciot_replay_record *recs, int tokens,
                                   const ciot_replay_step *steps, int n_steps, int threads, int batch,
                                   size_t weight_bytes, const ciot_paired_samples *paired, ciot_run_stats *out);
void ciot_run_stats_free(ciot_run_stats *s);

/* One op kind of a run (steps whose kind matches), per token: summed step medians, GB/s over them, its
 * share of its own ruler (and of the read ruler, to compare), and per thread the busy and wait per step
 * averaged over the kind's steps. */
typedef struct {
    char kind[96];
    int count, rows, K;             /* rows and K of the first step of the kind (-1 when they differ) */
    ciot_step_kind tok;             /* a matvec kind, or the op kind */
    size_t bytes;                   /* summed */
    ciot_op_traffic traffic;        /* summed, by what the bytes are */
    ciot_bw_kind ruler;             /* the probe it is paired with (its steps': replay_ruler.h) */
    double wall_us, gbs, pct_ceiling;   /* pct_ceiling: against its ruler's median sample */
    double ms_min, ms_median, ms_max;   /* per token: the kind's steps summed, over the measured tokens */
    double pct_paired;              /* median over tokens of (bytes / the kind's time) / the token's sample of
                                     * its ruler, x 100 */
    double pct_paired_min, pct_paired_max;  /* the same ratio's spread over the tokens */
    double pct_read_paired;         /* the same against the token's read sample (= pct_paired for a read kind) */
    double pct_token;               /* ms_median / the run's median token, x 100 */
    double *busy_us, *wait_us, *injected_us;   /* per thread, mean per step */
} ciot_kind_stats;

/* Whether a kind's %read breaks the read ruler (above 100%): only a kind that ruler rules can. An op that
 * writes moves more bytes than a read in the same time, so its own ruler expects it above 100% of the read. */
int ciot_kind_read_flagged(const ciot_kind_stats *k);
/* Kinds in order of first appearance; returns the count, or -1 when out of memory. */
int ciot_kind_stats_compute(const ciot_run_stats *run, ciot_kind_stats **out);
void ciot_kind_stats_free(ciot_kind_stats *k, int n);

/* The headline of a whole token: per token the steps' times summed by group, medians and spreads. */
typedef enum { CIOT_PART_MATVECS, CIOT_PART_DELTANET, CIOT_PART_ATTENTION, CIOT_PART_STATE_COPIES, CIOT_PART_REST,
               CIOT_PARTS } ciot_token_part;
const char *ciot_token_part_name(ciot_token_part p);     /* "matvecs", "deltanet", ... */
ciot_token_part ciot_token_part_of(ciot_step_kind k);
typedef struct {
    double ms_min[CIOT_PARTS], ms_median[CIOT_PARTS], ms_max[CIOT_PARTS], pct[CIOT_PARTS];
    size_t bytes[CIOT_PARTS];
} ciot_token_split;
ciot_status ciot_token_split_compute(const ciot_run_stats *run, ciot_token_split *out);

/* How much of the straggler's injected delay the other threads spent waiting: per step, the least
 * wait among the other threads over the injected time; the median over steps (0 without a straggler). */
double ciot_straggler_wait_ratio(const ciot_run_stats *run, int straggler);

/* The profiler's own cost, from pairs of tokens of one dispatch run side by side, one with the pool's
 * per-thread timing and one without: per pair timed / untimed - 1, so drift between pairs cancels. */
enum { CIOT_OVERHEAD_PAIRS_MIN = 5 };   /* 5 pairs on one side of zero by noise alone: 1 in 16 */
typedef struct {
    int pairs;
    double median_pct, min_pct, max_pct;
    int within_noise;                   /* min <= 0 <= max: the pairs disagree on the sign */
} ciot_overhead;

/* Which of pair i's tokens goes first: the order flips every second pair, so that against the probe
 * (before the round on every second token) each order meets each probe position alike. */
static inline int ciot_overhead_timed_first(int pair) { return pair / 2 % 2 == 0; }

/* The summary of n per-pair overheads in % (pct is not changed). */
ciot_overhead ciot_overhead_of(const double *pct, int n);

#endif
