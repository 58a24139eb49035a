/* The suite's summary (harness/cmd/suite_summary.h) on made-up rows: a gemv row shows its paired read ratio, a
 * gemm row its ratio to the roofline bound and which roof bounds it, a lookup or scalar gemm no ratio at all,
 * and no gemm row shows its read ratio; each flag gets its footnote, and only when it appears. Then the
 * speculative-verification table, and the source files side by side (each file's fastest row of a cell, a
 * smaller file against its 2-bit file), and each kernel against its baseline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "registry.h"
#include "roof.h"
#include "stats.h"
#include "suite_pick.h"
#include "suite_summary.h"

static ciot_bench_row row(const char *kernel, int batch, double read_ratio, int bound, double roof_ratio) {
    ciot_bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.pool, sizeof r.pool, "persistent");
    r.threads = 1, r.batch = batch, r.rows = 17408, r.K = 5120, r.reps = 3;
    r.gw_min = r.gw_median = r.gw_max = 40;
    r.probe_min = r.probe_median = r.probe_max = 11.5;
    r.ratio_min = r.ratio_median = r.ratio_max = read_ratio;
    r.intensity = 3.76 * batch;
    r.bound = bound;
    r.roof_min = r.roof_median = r.roof_max = roof_ratio;
    return r;
}

/* The summary's line for a kernel and batch ("| kernel | 1 | persistent | batch |"), or "" when absent. */
static const char *line_of(const char *text, const char *kernel, int batch, char *out, size_t len) {
    char head[128];
    snprintf(head, sizeof head, "| %s | 1 | persistent | %d |", kernel, batch);
    const char *p = strstr(text, head), *end = p ? strchr(p, '\n') : NULL;
    snprintf(out, len, "%.*s", p ? (int)(end ? end - p : (long)strlen(p)) : 0, p ? p : "");
    return out;
}

/* A row of the answer's made-up run: kernel, batch, threads, Gweights/s median (min - max). */
static ciot_bench_row timed(const char *kernel, int batch, int threads, double med, double lo, double hi) {
    ciot_bench_row r = row(kernel, batch, 0.5, batch == 1 ? CIOT_ROOF_BW : CIOT_ROOF_NONE, batch == 1 ? 0.5 : 0);
    r.threads = threads, r.gw_median = med, r.gw_min = lo, r.gw_max = hi;
    r.rows = batch == 1 ? 32768 : 17408, r.K = batch == 1 ? 8192 : 5120;
    return r;
}

/* The lines of the answer table (between its header rule and the blank line after it), each file's count. */
static int answer_lines(const char *text, const char *file, char lines[][512], int max) {
    const char *p = strstr(text, "### The answer");
    p = p ? strstr(p, "|---|") : NULL;
    int n = 0;
    for (p = p ? strchr(p, '\n') : NULL; p && p[1] == '|'; p = strchr(p + 1, '\n')) {
        const char *end = strchr(p + 1, '\n');
        char prefix[32];
        snprintf(prefix, sizeof prefix, "| %s |", file);
        if (!strncmp(p + 1, prefix, strlen(prefix)) && n < max)
            snprintf(lines[n++], 512, "%.*s", (int)(end ? end - p - 1 : (long)strlen(p + 1)), p + 1);
    }
    return n;
}

/* Whether a line of the answer has a ratio in its 5th cell ("N% (N - N%)") and a roof named in its 6th. */
static int has_ratio(const char *line) {
    const char *c = line;
    for (int i = 0; i < 4 && c; i++) c = strchr(c + 1, '|');
    int a, b, d;
    char pct;
    if (!c || sscanf(c, "| %d%% (%d - %d%c", &a, &b, &d, &pct) != 4 || pct != '%') return 0;
    const char *roof = strchr(c + 1, '|');
    return roof && (!strncmp(roof, "| paired read ceiling", 21) || !strncmp(roof, "| compute roof ", 15) ||
                    !strncmp(roof, "| bw roof at ", 13));
}

/* The answer table and summary.json on a made-up run of 2 cores. */
static void answer_checks(void) {
    if (!ciot_kernel_find("t2p_gemm_avx512vnni")) {   /* the pick knows a kernel's file from the registry */
        SKIP("the answer table: its made-up run names x86 kernels, which this build does not register");
        return;
    }
    ciot_bench_row r[13] = {
        timed("t2p_gemv_avx2", 1, 2, 200, 190, 210),        timed("tl2_gemv_avx512vbmi", 1, 2, 98, 90, 101),
        timed("pq2_0_gemv_ref", 1, 1, 500, 490, 510),       timed("t2p_gemv_avx2", 1, 2, 100, 95, 105),
        timed("t2p_gemm_avx512vnni", 64, 2, 600, 580, 620), timed("t2p_gemm_avx2", 64, 2, 400, 390, 410),
        timed("t2p_gemm_avx512vnni", 8, 2, 900, 890, 910),  timed("tl16_gemv_avx2", 1, 2, 120, 110, 120),
        timed("tl3_gemv_avx512vbmi", 1, 2, 125, 120, 135),  timed("tl3_gemm_avx512vbmi", 64, 2, 700, 690, 710),
        timed("tl16_tq1_gemm_avx2", 64, 2, 300, 290, 310),  timed("t2p_tq2_gemm_avx2", 64, 1, 300, 290, 310),
        timed("tl16_gemm_avx2", 64, 2, 680, 670, 689.9)};
    snprintf(r[0].pool, sizeof r[0].pool, "spawn");     /* faster, and first, but the spawn pool's */
    r[3].roof_min = 0.85, r[3].roof_median = 0.9, r[3].roof_max = 0.95;
    r[4].bound = CIOT_ROOF_COMPUTE, r[4].roof_min = r[4].roof_median = r[4].roof_max = 0.7;
    snprintf(r[4].family, sizeof r[4].family, "avx512vnni");
    r[9].ratio_min = 0.02, r[9].ratio_median = 0.03125, r[9].ratio_max = 0.04;
    snprintf(r[9].no_family, sizeof r[9].no_family, "lookup: no multiplies");
    ciot_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.topo.cores = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return;
    ciot_suite_summary(f, NULL, r, 13, &ctx, 0, NULL);
    fclose(f);
    char lines[8][512];
    const int pq2 = answer_lines(text, "PQ2_0", lines, 8), ptq1 = answer_lines(text, "PTQ1_0", lines, 8),
              tq1 = answer_lines(text, "TQ1_0", lines, 8), tq2 = answer_lines(text, "TQ2_0", lines, 8);
    CHECK(pq2 == 2 && ptq1 == 2 && tq1 == 1 && tq2 == 0, "the answer: decode and prompt rows per file, no more: "
          "PQ2_0 %d, PTQ1_0 %d, TQ1_0 %d (gemm only), TQ2_0 %d (1 thread only)", pq2, ptq1, tq1, tq2);
    int rated = 0, total = 0;
    for (int fmt = CIOT_FMT_PQ2_0; fmt <= CIOT_FMT_TQ2_0; fmt++) {
        char name[16];
        const int m = answer_lines(text, ciot_suite_file_name(fmt, name, sizeof name), lines, 8);
        for (int i = 0; i < m; i++) rated += has_ratio(lines[i]), total++;
    }
    CHECK(total == 5 && rated == total, "every row of the answer has a ratio to a named roof: %d of %d", rated, total);
    CHECK(strstr(text, "at 2 threads (all the cores)") != NULL && strstr(text, "batch 64, the largest batch timed") != NULL,
          "the answer says its thread count and its prompt batch");
    CHECK(strstr(text, "| PQ2_0 | decode: gemv 32768x8192 | t2p_gemv_avx2 | 100.0 (95.0 - 105.0) | 90% (85 - 95%) | paired read "
                       "ceiling | **tie** with tl2_gemv_avx512vbmi 98.0 (90.0 - 101.0) |") != NULL,
          "decode: the fastest persistent gemv at all cores, a tie with a runner-up whose range overlaps");
    CHECK(strstr(text, "| PQ2_0 | prompt: gemm 17408x5120, batch 64 | t2p_gemm_avx512vnni | 600.0 (580.0 - 620.0) | 70% (70 - "
                       "70%) | compute roof avx512vnni | t2p_gemm_avx2 400.0 (390.0 - 410.0) |") != NULL,
          "prompt: the largest batch (not the faster batch 8), its compute roof, a runner-up apart: no tie");
    CHECK(strstr(text, "| PTQ1_0 | prompt: gemm 17408x5120, batch 64 | tl3_gemm_avx512vbmi | 700.0 (690.0 - 710.0) | 3% (2 - 4%) | "
                       "paired read ceiling (no compute roof: lookup: no multiplies) | tl16_gemm_avx2 680.0 (670.0 - 689.9) |")
              != NULL,
          "a lookup gemm: its read ratio, said to have no compute roof; a runner-up 0.1 short of overlapping: no tie");
    CHECK(strstr(text, "| PTQ1_0 | decode: gemv 32768x8192 | tl3_gemv_avx512vbmi | 125.0 (120.0 - 135.0) |") != NULL &&
              strstr(text, "**tie** with tl16_gemv_avx2 120.0 (110.0 - 120.0)") != NULL,
          "a tie when the runner-up's max reaches the pick's min");
    CHECK(strstr(text, "| gemv | 32768x8192 | 1 | 2 | PQ2_0 (2.125) | t2p_gemv_avx2 (**tie** with tl2_gemv_avx512vbmi) |") != NULL &&
              strstr(text, "| gemm | 17408x5120 | 64 | 2 | PTQ1_0 (1.75) | tl3_gemm_avx512vbmi | 700.0 (690.0 - 710.0) | 3% read |")
              != NULL,
          "side by side: the tie said where the pick is made again, the lookup gemm's read ratio marked");
    const char *answer = strstr(text, "### The answer"), *side = strstr(text, "### The source files side by side");
    CHECK(answer && side && answer < side && !strncmp(text, "## ciot suite", 13), "the answer comes first");
    if (check_failed || getenv("SHOW")) printf("%s", text);
    free(text);

    /* summary.json: the same picks, whole, beside summary.md; a missing folder writes neither */
    char dir[] = "/tmp/ciot-summary-XXXXXX", path[256];
    if (!mkdtemp(dir)) return;
    fflush(stdout);
    const int failed = ciot_suite_write_summaries(dir, r, 13, &ctx, 0, ",t2p_gemm_avx512vnni,");
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *in = fopen(path, "r");
    char json[65536] = "";
    size_t got = in ? fread(json, 1, sizeof json - 1, in) : 0;
    json[got] = 0;
    if (in) fclose(in);
    CHECK(!failed && got > 0, "summary.json written (every begin has its end: the writer refuses it otherwise)");
    CHECK(strstr(json, "\"answer\": {") && strstr(json, "\"side_by_side\": [") && strstr(json, "\"baselines\": [") &&
              strstr(json, "\"speculative\": [") && strstr(json, "\"prompt_batch\": 64"),
          "summary.json has the four derived tables");
    const char *lookup = strstr(json, "\"kernel\": \"tl3_gemm_avx512vbmi\"");
    CHECK(lookup && strstr(lookup, "\"roof\": \"read\"") && strstr(lookup, "\"no_compute_roof\": \"lookup: no multiplies\"") &&
              strstr(lookup, "\"median\": 0.03125"),
          "summary.json: the lookup gemm's read ratio, and why it has no compute roof");
    const char *tie = strstr(json, "\"kernel\": \"tl2_gemv_avx512vbmi\""), *apart = strstr(json, "\"kernel\": \"t2p_gemm_avx2\"");
    tie = tie ? strstr(tie, "\"tie\": ") : NULL, apart = apart ? strstr(apart, "\"tie\": ") : NULL;
    CHECK(tie && !strncmp(tie, "\"tie\": true", 11) && apart && !strncmp(apart, "\"tie\": false", 12),
          "summary.json: each runner-up with its tie or not");
    int rows_in_answer = 0;
    const char *end_answer = strstr(json, "\"side_by_side\"");
    for (const char *p = strstr(json, "\"use\": "); p && end_answer && p < end_answer; p = strstr(p + 1, "\"use\": ")) rows_in_answer++;
    CHECK(rows_in_answer == 5, "summary.json: the answer's 5 rows, %d", rows_in_answer);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    CHECK(access(path, F_OK) == 0, "summary.md beside it");
    remove(path);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    remove(path);
    rmdir(dir);
    snprintf(path, sizeof path, "%s/gone", dir);
    const int refused = ciot_suite_write_summaries(path, r, 13, &ctx, 0, NULL);
    CHECK(refused == 1, "a folder that is not there: reported as a failure");
}

int main(void) {
    ciot_bench_row rows[5];
    rows[0] = row("t2p_gemv_avx2", 1, 0.66, CIOT_ROOF_BW, 0.66);
    rows[1] = row("t2p_gemm_avx2", 64, 0.0123, CIOT_ROOF_COMPUTE, 0.71);
    snprintf(rows[1].family, sizeof rows[1].family, "avx2");
    rows[1].compute_min = rows[1].compute_median = rows[1].compute_max = 61.8;
    rows[2] = row("tl2_gemm_avx2", 64, 0.0234, CIOT_ROOF_NONE, 0);
    snprintf(rows[2].no_family, sizeof rows[2].no_family, "lookup: no multiplies");
    rows[3] = row("t2p_gemm_ref", 4, 0.0345, CIOT_ROOF_NONE, 0);
    snprintf(rows[3].no_family, sizeof rows[3].no_family, "scalar reference");
    rows[4] = row("t2x4_gemm_avx2", 4, 0.0456, CIOT_ROOF_COMPUTE, 1.07);
    snprintf(rows[4].family, sizeof rows[4].family, "avx2_i16");
    rows[4].compute_min = rows[4].compute_median = rows[4].compute_max = 50.0;
    rows[4].above_compute_roof = 1;
    rows[2].low_outlier = 1;

    ciot_context ctx;
    memset(&ctx, 0, sizeof ctx);
    snprintf(ctx.host, sizeof ctx.host, "test-host");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return 1;
    ciot_suite_summary(f, NULL, rows, 5, &ctx, 1, ",");
    fclose(f);

    char l[1024];
    CHECK(strstr(line_of(text, "t2p_gemv_avx2", 1, l, sizeof l), "| bw | 66% (66 - 66%) |") != NULL,
          "gemv: bw roof, the paired read ratio: %s", l);
    line_of(text, "t2p_gemm_avx2", 64, l, sizeof l);
    CHECK(strstr(l, "| 240.6 | 61.8 (61.8 - 61.8) avx2 | compute avx2 | 71% (71 - 71%) |") != NULL,
          "compute-bound gemm: MAC/B, the paired compute roof, its ratio to it: %s", l);
    CHECK(strstr(l, "1% (1 - 1%)") == NULL, "compute-bound gemm: not its 1%% of the read ceiling: %s", l);
    line_of(text, "tl2_gemm_avx2", 64, l, sizeof l);
    CHECK(strstr(l, "| none (lookup: no multiplies) | - | - **[4]** |") != NULL && strstr(l, "2% (2 - 2%)") == NULL,
          "lookup gemm: no compute roof, no ratio; its low probe sample flagged [4]: %s", l);
    CHECK(strstr(text, "\n[4] ") != NULL && strstr(text, CIOT_OUTLIER_FLAG) != NULL, "the [4] footnote says why");
    CHECK(strstr(line_of(text, "t2p_gemv_avx2", 1, l, sizeof l), "[4]") == NULL, "no outlier flag on a row without one");
    line_of(text, "t2p_gemm_ref", 4, l, sizeof l);
    CHECK(strstr(l, "| none (scalar reference) | - | - |") != NULL && strstr(l, "3% (3 - 3%)") == NULL,
          "scalar gemm: no compute roof, no ratio: %s", l);
    line_of(text, "t2x4_gemm_avx2", 4, l, sizeof l);
    CHECK(strstr(l, "| compute avx2_i16 | 107% (107 - 107%) **[3]** |") != NULL, "above its compute roof: flagged [3]: %s", l);
    CHECK(strstr(text, "`avx2`: vpmaddubsw + vpmaddwd + vpaddd ymm: int32 sums; `avx2_i16`: vpmaddubsw + vpaddw ymm: int16 sums.")
              != NULL && strstr(text, "`avxvnni`") == NULL,
          "the roofs used, each with its instructions, and no other");
    CHECK(strstr(text, "\n[3] ") != NULL && strstr(text, CIOT_COMPUTE_FLAG) != NULL, "the [3] footnote says why");
    CHECK(strstr(text, "\n[1] ") == NULL && strstr(text, "\n[2] ") == NULL, "no footnote for a flag that is absent");
    CHECK(strstr(text, "% of paired ceiling") == NULL, "no column of the read ceiling for every row");
    if (check_failed || getenv("SHOW")) printf("%s", text);
    free(text);

    /* speculative-verification batches: batch 8 at batch 4's speed costs two batch-4 calls (1.00); batch 5 at
     * half the speed, every repetition, costs 1.25 of its two padded groups (a cliff); batch 3 at 1 / 1.2 of the
     * speed in the median but as fast as batch 4 in its fastest repetition is over 1.1 within the spread, not a
     * cliff; a kernel with no batch-4 row has no ratio */
    ciot_bench_row spec[6] = {row("t2p_gemm_avx2", 4, 0, CIOT_ROOF_NONE, 0), row("t2p_gemm_avx2", 8, 0, CIOT_ROOF_NONE, 0),
                              row("t2p_gemm_avx2", 5, 0, CIOT_ROOF_NONE, 0), row("tl3_gemm_avx2", 2, 0, CIOT_ROOF_NONE, 0),
                              row("t2x4_gemm_avx2", 2, 0, CIOT_ROOF_NONE, 0), row("t2p_gemm_avx2", 3, 0, CIOT_ROOF_NONE, 0)};
    spec[2].gw_min = spec[2].gw_median = spec[2].gw_max = 20;
    spec[5].gw_min = 20, spec[5].gw_median = 25, spec[5].gw_max = 30;
    f = open_memstream(&text, &len);
    if (!f) return 1;
    ciot_suite_spec_summary(f, NULL, spec, 6, ",t2p_gemm_avx2,tl3_gemm_avx2,");
    fclose(f);
    CHECK(strstr(text, "| t2p_gemm_avx2 | 1 | 8 | 40.0 (40.0 - 40.0) | 17.83 | 1.00 (1.00 - 1.00) |") != NULL,
          "batch 8: two groups' time");
    CHECK(strstr(text, "| t2p_gemm_avx2 | 1 | 5 | 20.0 (20.0 - 20.0) | 22.28 | 1.25 (1.25 - 1.25) **cliff** |") != NULL,
          "batch 5 at half speed in every repetition: a cliff");
    CHECK(strstr(text, "| t2p_gemm_avx2 | 1 | 3 | 25.0 (20.0 - 30.0) | 10.70 | 1.20 (1.00 - 1.50) over 1.1 within the spread |")
              != NULL,
          "batch 3 slower in the median only: the spread, not a cliff");
    CHECK(strstr(text, "| tl3_gemm_avx2 | 1 | 2 | 40.0 (40.0 - 40.0) | 4.46 | - |") != NULL, "no batch-4 twin: no ratio");
    CHECK(strstr(text, "costs more than its padded groups") != NULL && strstr(text, "is the run's spread") != NULL,
          "the note says a cliff was found, and a median over 1.1 within the spread");
    CHECK(strstr(text, "t2x4_gemm_avx2") == NULL, "a kernel that is not a chosen gemm has no row");
    if (check_failed || getenv("SHOW")) printf("%s", text);
    free(text);
    /* a quick suite's batches 4 and 64 only: batch 4 is the yardstick, so no table, and a line saying why */
    f = open_memstream(&text, &len);
    if (!f) return 1;
    ciot_suite_spec_summary(f, NULL, spec, 1, ",t2p_gemm_avx2,");
    fclose(f);
    CHECK(strstr(text, "| t2p_gemm_avx2 |") == NULL && strstr(text, "Not measured: no batch of 2, 3, 5 or 8 ran") != NULL,
          "batch 4 alone: no table, the reason instead");
    free(text);
    /* the source files side by side: per cell each file's fastest row of the persistent pool; a smaller file
     * against its model's 2-bit file, by the medians and, for a gemv, on one bus from the paired read ratios */
    ciot_bench_row side[13] = {row("pq2_0_gemv_ref", 1, 0.90, CIOT_ROOF_BW, 0.90), row("t2p_gemv_ref", 1, 0.95, CIOT_ROOF_BW, 0.95),
                              row("tl16_gemv_ref", 1, 0.85, CIOT_ROOF_BW, 0.85), row("ptq1_0_gemv_ref", 1, 0.5, CIOT_ROOF_BW, 0.5),
                              row("tl3_gemv_ref", 1, 0.99, CIOT_ROOF_BW, 0.99), row("mystery_gemv_x", 1, 0.99, CIOT_ROOF_BW, 0.99),
                              row("tl3_gemm_ref", 64, 0.03, CIOT_ROOF_NONE, 0), row("t2p_gemm_ref", 64, 0, CIOT_ROOF_COMPUTE, 0.7),
                              row("tl16_tq1_gemm_ref", 64, 0.04, CIOT_ROOF_NONE, 0), row("t2p_gemv_ref", 1, 0.6, CIOT_ROOF_BW, 0.6),
                              row("tl16_gemv_ref", 1, 0.85, CIOT_ROOF_BW, 0.85), row("t2p_gemv_ref", 1, 0.9, CIOT_ROOF_BW, 0.9),
                              row("tl16_gemv_ref", 1, 0.7, CIOT_ROOF_BW, 0.7)};
    const double gw[13] = {40, 44, 50, 30, 90, 99, 100, 80, 120, 60, 70, 60, 70},
                 bits[13] = {2.125, 2.125, 1.8125, 1.75, 1.75, 2, 1.75, 2.125, 1.8125, 2.125, 1.8125, 2.125, 1.8125};
    for (int i = 0; i < 13; i++) {
        side[i].gw_median = gw[i], side[i].gw_min = gw[i] - 2 + (i == 1), side[i].gw_max = gw[i] + 2 - (i == 1);
        side[i].gbs_median = gw[i] * bits[i] / 8;
        side[i].rows = side[i].batch == 1 ? 32768 : 17408, side[i].K = side[i].batch == 1 ? 8192 : 5120;
    }
    side[1].ratio_min = 0.90, side[1].ratio_max = 1.0, side[2].ratio_min = 0.80, side[2].ratio_max = 0.90;
    snprintf(side[4].pool, sizeof side[4].pool, "spawn"); /* faster, but the spawn pool's */
    side[9].threads = side[10].threads = 2;                /* a cell whose 2-bit gemv is not bus-bound (0.6) */
    side[11].threads = side[12].threads = 3;               /* one whose smaller file's is not (0.7) */
    f = open_memstream(&text, &len);
    if (!f) return 1;
    ciot_suite_files_summary(f, NULL, side, 13);
    fclose(f);
    CHECK(strstr(text, "| gemv | 32768x8192 | 1 | 1 | PTQ1_0 (1.75) | tl16_gemv_ref | 50.0 (48.0 - 52.0) | 85% | "
                       "1.14 (1.07 - 1.21) | 1.05 (0.94 - 1.17) |") != NULL,
          "gemv: the 1.75-bit file's fastest persistent row against the 2-bit file's, by medians and on one bus");
    CHECK(strstr(text, "| gemv | 32768x8192 | 1 | 2 | PTQ1_0 (1.75) | tl16_gemv_ref | 70.0 (68.0 - 72.0) | 85% | "
                       "1.17 (1.10 - 1.24) | - |") != NULL,
          "gemv: no same-bus ratio when the 2-bit row is below 80%% of its read ceiling (it does not follow the bus)");
    CHECK(strstr(text, "| gemv | 32768x8192 | 1 | 3 | PTQ1_0 (1.75) | tl16_gemv_ref | 70.0 (68.0 - 72.0) | 70% | "
                       "1.17 (1.10 - 1.24) | - |") != NULL,
          "gemv: nor when the smaller file's row is");
    CHECK(strstr(text, "| gemv | 32768x8192 | 1 | 1 | PQ2_0 (2.125) | t2p_gemv_ref | 44.0 (43.0 - 45.0) | 95% | - | - |") != NULL,
          "gemv: the 2-bit file's fastest row, no ratio");
    CHECK(strstr(text, "| gemm | 17408x5120 | 64 | 1 | PTQ1_0 (1.75) | tl3_gemm_ref | 100.0 (98.0 - 102.0) | 3% read | "
                       "1.25 (1.20 - 1.31) | - |") != NULL,
          "gemm: a row without a compute roof shows its read ratio, marked read, and no same-bus ratio");
    CHECK(strstr(text, "| gemm | 17408x5120 | 64 | 1 | PQ2_0 (2.125) | t2p_gemm_ref | 80.0 (78.0 - 82.0) | 70% | - | - |") != NULL,
          "gemm: the 2-bit file's row, its %% of roof");
    CHECK(strstr(text, "| gemm | 17408x5120 | 64 | 1 | TQ1_0 (1.6875) | tl16_tq1_gemm_ref | 120.0 (118.0 - 122.0) | 4% read | - | - |") != NULL,
          "a smaller file whose 2-bit file has no row in the cell: no ratio");
    CHECK(strstr(text, "spawn") == NULL && strstr(text, "mystery") == NULL && strstr(text, "| TQ2_0 (") == NULL,
          "no spawn-pool row, no unknown kernel, no file without a row");
    const char *once = strstr(text, "| 1 | 1 | PTQ1_0 (1.75) | tl16_gemv_ref |");
    CHECK(once && !strstr(once + 1, "| 1 | 1 | PTQ1_0 (1.75) | tl16_gemv_ref |"), "each cell once, though five rows share it");
    if (check_failed || getenv("SHOW")) printf("%s", text);
    free(text);
    /* each kernel against its baseline: a gemm of this build that has one (registry.h), whatever the architecture */
    const ciot_kernel *k = NULL, *base = NULL;
    for (int i = 0; i < ciot_kernel_count() && !base; i++)
        if (ciot_kernel_at(i)->op == CIOT_OP_GEMM) k = ciot_kernel_at(i), base = ciot_kernel_baseline(k);
    CHECK(base != NULL, "this build registers a gemm with a baseline");
    if (base) {
        /* the kernel's first row (batch 8) has no baseline row beside it: the pair is still printed, once */
        ciot_bench_row pair[9] = {row(k->name, 8, 0, CIOT_ROOF_NONE, 0), row(base->name, 4, 0, CIOT_ROOF_NONE, 0),
                                  row(k->name, 64, 0, CIOT_ROOF_NONE, 0), row(base->name, 64, 0, CIOT_ROOF_NONE, 0),
                                  row(k->name, 4, 0, CIOT_ROOF_NONE, 0),  row(k->name, 4, 0, CIOT_ROOF_NONE, 0),
                                  row(k->name, 4, 0, CIOT_ROOF_NONE, 0),  row(base->name, 4, 0, CIOT_ROOF_NONE, 0),
                                  row(k->reference->name, 4, 0, CIOT_ROOF_NONE, 0)};
        const double speed[9] = {50, 40, 32, 40, 60, 10, 38, 40, 1};
        for (int i = 0; i < 9; i++) pair[i].gw_min = speed[i] - 1, pair[i].gw_median = speed[i], pair[i].gw_max = speed[i] + 1;
        snprintf(pair[5].pool, sizeof pair[5].pool, "spawn"); /* slower, but the spawn pool's */
        pair[6].threads = pair[7].threads = 2;                /* 0.95 in the medians, up to 39 / 39 = 1 */
        f = open_memstream(&text, &len);
        if (!f) return 1;
        ciot_suite_baseline_summary(f, NULL, pair, 9);
        fclose(f);
        char want[256];
        const char *ranked = ciot_kernel_rank(k) > ciot_kernel_rank(base) ? "above" : "below";
        snprintf(want, sizeof want, "| %s | %s | %s | 1 | b64 0.80, b4 1.50 | b64 0.80 (0.76 - 0.85) |", k->name, base->name, ranked);
        const char *at1 = strstr(text, want);
        CHECK(at1 != NULL, "the kernel's batches beside its baseline's in the run's order; the cell below 1 a lead, with its "
              "range: %s", want);
        snprintf(want, sizeof want, "| %s | %s | %s | 1 |", k->name, base->name, ranked);
        CHECK(at1 && !strstr(at1 + 1, want), "the pair at 1 thread once, though its first row (batch 8) has no baseline row");
        snprintf(want, sizeof want, "| %s | %s | %s | 2 | b4 0.95 | b4 0.95 (0.90 - 1.00) |", k->name, base->name, ranked);
        CHECK(strstr(text, want) != NULL, "the other thread count's row: %s", want);
        snprintf(want, sizeof want, "| %s |", k->reference->name);
        CHECK(strstr(text, want) == NULL && strstr(text, "spawn") == NULL, "no row for a reference, none of the spawn pool");
        CHECK(strstr(text, "slower") == NULL && strstr(text, "lead, not a finding") != NULL && strstr(text, "there is none") == NULL,
              "rows timed apart: a lead to time again side by side, no verdict");
        if (check_failed || getenv("SHOW")) printf("%s", text);
        free(text);
        /* every cell at 1.00 or above as printed (39.9 / 40 = 0.9975): no leads */
        pair[2].gw_min = pair[2].gw_median = pair[2].gw_max = 41, pair[6].gw_min = pair[6].gw_median = pair[6].gw_max = 39.9;
        f = open_memstream(&text, &len);
        if (!f) return 1;
        ciot_suite_baseline_summary(f, NULL, pair, 9);
        fclose(f);
        snprintf(want, sizeof want, "| %s | %s | %s | 2 | b4 1.00 | - |", k->name, base->name, ranked);
        CHECK(strstr(text, want) != NULL && strstr(text, "there is none") != NULL, "no cell below 1: none to time again: %s", want);
        free(text);
    }
    answer_checks();
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed != 0;
}
