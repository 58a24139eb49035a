/* The summary `ciot suite` prints and writes as summary.md, and its derived tables as summary.json
 * (results/SCHEMA.md). Each table function writes markdown on f and, when j is not NULL, its key and value into
 * the open JSON object j (an empty array when the markdown has no table). */
#ifndef CIOT_SUITE_SUMMARY_H
#define CIOT_SUITE_SUMMARY_H

#include <stdio.h>
#include "bench.h"
#include "context.h"
#include "json.h"

/* In order: the answer, the source files side by side, every case (per benchmark case the speed, the paired
 * probe, the intensity, the compute roof and the ratio to the row's roof: a gemv's the read ceiling, a gemm's
 * the roofline bound at its intensity, none for lookup and scalar gemms; the speed-up over the stock kernel, and
 * the flags; markdown only, bench.json has the rows), each kernel against its baseline, the speculative batches
 * of the kernels in spec_kernels. j, when not NULL, gets one whole object. */
void ciot_suite_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, const ciot_context *c, int quick,
                        const char *spec_kernels);
/* DIR/summary.json and DIR/summary.md, each whole or not at all, and the markdown on stdout; 1 when a file
 * could not be written (one line on stderr says which), else 0. */
int ciot_suite_write_summaries(const char *dir, const ciot_bench_row *rows, int n, const ciot_context *c, int quick,
                               const char *spec_kernels);

/* The answer (suite_answer.c): per source file at most two rows, the kernel to use for decode (the fastest gemv)
 * and for prompt (the fastest gemm at the largest batch run), at the largest thread count run (`cores`: the
 * machine's, to say whether that is all of them), persistent pool; its Gweights/s, its ratio to its roof (a gemm
 * without a compute roof: its paired read ratio, said so), and its runner-up, a **tie** when within noise
 * (suite_pick.h). */
void ciot_suite_answer(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, int cores);

/* The source files side by side (suite_files.c): per cell (operation, shape, batch,
 * threads; persistent pool) each source file's fastest kernel of the run (a **tie** with its runner-up when within
 * noise), its Gweights/s and % of its roof (a gemm without a compute roof: of its read ceiling, marked), and a
 * smaller file against its model's 2-bit file (PTQ1_0 against PQ2_0, TQ1_0 against TQ2_0): the medians' ratio
 * with the range of the two rows' min - max, and for two gemvs that both read 80% or more of their paired
 * ceiling the ratio on one bus, from each row's paired read ratio and its layout's bytes a weight. Rows of
 * kernels the registry does not know are left out; nothing is printed without a known kernel's persistent row. */
void ciot_suite_files_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n);
/* The runtime's own types (bench --peer rows), each against the fastest ciot kernel of its bit class in the same
 * cell; nothing when the run has none (JSON "peers": []). */
void ciot_suite_peers_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n);

/* Each kernel of a richer ISA against its baseline (suite_baseline.c; ciot_kernel_baseline, registry.h: an
 * AVX-VNNI or AVX-512 kernel's AVX2 twin), per thread count: whether the registry ranks it above its baseline,
 * Gweights/s over the baseline's at each batch both ran (persistent pool, medians), and the cells below 1 with
 * the range the two rows' min - max allow: leads to time the two again side by side (the rows were timed
 * minutes apart), never called slower. Nothing is printed when no kernel's baseline is in the run. */
void ciot_suite_baseline_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n);

/* The speculative-verification batches (suite_spec.c; a draft model's few tokens verified at once): the batches the suite
 * runs each source file's chosen gemm at, so that no batch between the 4-row groups falls off a cliff. */
#define CIOT_SUITE_BATCHES "2,3,4,5,8,64"
/* Their table, of the rows whose kernel is in `kernels` (",name,name,", NULL: every gemm row) at batches 2 to 8:
 * per kernel, threads and batch B, the time of one call against ceil(B / 4) calls at batch 4
 * of the same run, time(B) / (ceil(B / 4) x time(4)) from the medians, with the range the two rows' min - max
 * allow: at most 1.1 is no cliff (a B that pads into a 4-row group costs no more than that group); a **cliff**
 * is a range wholly above 1.1, a median above it whose range is not is called the spread. Rows without a
 * batch-4 twin show "-". */
void ciot_suite_spec_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, const char *kernels);

#endif
