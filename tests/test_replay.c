/* Tests of the replay profiler: the bonsai profile's totals equal method.md's, the parser names the
 * file and line of every bad input, ciot replay refuses bad options before any long work, a short
 * replay of every dispatch writes the JSON schema, the profiler's overhead is paired and says "within
 * noise" when its spread holds zero, and an injected straggler shows up as wait on the other thread.
 * Prints one line per failure and ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "commands.h"
#include "cpu.h"
#include "measure.h"
#include "model.h"
#include "registry.h"
#include "replay.h"
#include "replay_report.h"
#include "replay_stats.h"
#include "topo.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    if (buf) fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    return buf;
}

static void tmp_path(char *buf, size_t len, const char *name) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/ciot_test_replay_%ld_%s", dir && *dir ? dir : "/tmp", (long)getpid(), name);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

/* ---- the profiles ---- */

static void test_bonsai(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    ciot_status st = ciot_model_load("bonsai-2-27b", &m, err, sizeof err);
    CHECK(st == CIOT_OK, "bonsai-2-27b loads: %s", err);
    if (st != CIOT_OK) return;
    CHECK(m.n_ops == 401, "bonsai ops: %d, expected 401", m.n_ops);
    CHECK(ciot_model_weights(&m, m.n_ops, 0) == 24326963200LL, "block weights %lld", ciot_model_weights(&m, m.n_ops, 0));
    CHECK(ciot_model_weights(&m, m.n_ops, 1) == 25598361600LL, "with the LM head %lld",
          ciot_model_weights(&m, m.n_ops, 1));
    int heads = 0, attn_q = 0, qkv = 0;
    for (int i = 0; i < m.n_ops; i++) {
        heads += m.ops[i].lm_head;
        attn_q += !strcmp(ciot_op_kind(m.ops[i].name), "attn_q");
        qkv += !strcmp(ciot_op_kind(m.ops[i].name), "attn_qkv");
    }
    CHECK(heads == 1 && m.ops[400].lm_head && m.ops[400].rows == 248320 && m.ops[400].K == 5120,
          "one LM head, 248320x5120, last (%d marked)", heads);
    CHECK(attn_q == 16 && qkv == 48, "16 full-attention and 48 DeltaNet blocks (%d, %d)", attn_q, qkv);
    CHECK(!strcmp(m.ops[12].name, "blk.2.attn_qkv") && !strcmp(m.ops[18].name, "blk.3.attn_q"),
          "block 3 is the first full-attention block (%s, %s)", m.ops[12].name, m.ops[18].name);
    /* fuse groups: gate+up in all 64 blocks, q+k+v in the 16 attention blocks */
    CHECK(m.n_fuse == 80, "80 fuse groups (%d)", m.n_fuse);
    CHECK(m.ops[3].fuse >= 0 && m.ops[3].fuse == m.ops[4].fuse && m.ops[5].fuse < 0 && m.ops[0].fuse < 0,
          "blk.0 ffn_gate+ffn_up fused, attn_qkv and ffn_down alone");
    CHECK(m.ops[18].fuse >= 0 && m.ops[18].fuse == m.ops[19].fuse && m.ops[19].fuse == m.ops[20].fuse,
          "blk.3 q+k+v fused");
    CHECK(ciot_model_check(&m, m.n_ops, &ciot_layout_t2p, err, sizeof err) == CIOT_OK, "t2p takes every shape: %s", err);
    CHECK(ciot_model_check(&m, m.n_ops, &ciot_layout_t2x4, err, sizeof err) == CIOT_OK, "t2x4 takes every shape: %s", err);
    size_t full, group, ring;
    ciot_replay_sizes(&m, m.n_ops, &ciot_layout_t2p, &full, &group, &ring);
    const size_t packed = 25598361600ULL / 512 * 136;   /* 2.125 bits per weight */
    CHECK(full >= packed && full < packed + 64 * 401, "full t2p bytes %zu, expected %zu + alignment", full, packed);
    CHECK(group == (248320ULL * 5120 / 512 * 136 + 63) / 64 * 64, "the largest group is the LM head (%zu)", group);
    CHECK(ring >= group + 4 * ciot_topo_llc_bytes(NULL) && ring >= group + ((size_t)1 << 30), "ring %zu", ring);
    ciot_model_free(&m);
}

static void test_tiny(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    ciot_status st = ciot_model_load("tiny-0.6b", &m, err, sizeof err);
    CHECK(st == CIOT_OK, "tiny-0.6b loads: %s", err);
    if (st != CIOT_OK) return;
    CHECK(m.n_ops == 28 * 7 + 1, "tiny ops %d", m.n_ops);
    CHECK(ciot_model_weights(&m, m.n_ops, 1) == 28LL * 15 * 1024 * 1024 + 151936LL * 1024, "tiny weights %lld",
          ciot_model_weights(&m, m.n_ops, 1));
    CHECK(ciot_model_check(&m, m.n_ops, &ciot_layout_t2p, err, sizeof err) == CIOT_OK, "t2p takes tiny: %s", err);
    CHECK(!strcmp(m.name, "tiny-0.6b"), "model name '%s'", m.name);
    ciot_model_free(&m);
}

/* ---- the parser's errors name the file and the line ---- */

static void expect_parse_error(const char *text, ciot_status want, const char *needle1, const char *needle2) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX] = "";
    ciot_status st = ciot_model_parse(text, "bad.ops", &m, err, sizeof err);
    CHECK(st == want, "parse of \"%s\": status %d, expected %d (%s)", text, st, want, err);
    CHECK(strstr(err, needle1) && (!needle2 || strstr(err, needle2)), "message for \"%s\": '%s' lacks '%s' / '%s'",
          text, err, needle1, needle2 ? needle2 : "");
    CHECK(m.ops == NULL && m.n_ops == 0, "nothing kept after an error");
}

static void test_parse_errors(void) {
    expect_parse_error("a 4\n", CIOT_E_ARG, "bad.ops:1:", "expected 'name rows K");
    expect_parse_error("# comment\n\na 4 256 bogus\n", CIOT_E_ARG, "bad.ops:3:", "unknown flag 'bogus'");
    expect_parse_error("a 4x 256\n", CIOT_E_ARG, "bad.ops:1:", "rows '4x'");
    expect_parse_error("a 4 256\nb 4 -256\n", CIOT_E_ARG, "bad.ops:2:", "K '-256'");
    expect_parse_error("a 0 256\n", CIOT_E_ARG, "bad.ops:1:", "rows '0'");
    expect_parse_error("a 4 99999999999\n", CIOT_E_ARG, "bad.ops:1:", "K '99999999999'");
    expect_parse_error("a 4 256 fuse=g\nb 4 512 fuse=g\n", CIOT_E_ARG, "bad.ops:2:", "share K");
    expect_parse_error("a 4 256 fuse=\n", CIOT_E_ARG, "bad.ops:1:", "unknown flag 'fuse='");
    expect_parse_error("# only comments\n\n", CIOT_E_ARG, "bad.ops", "no ops");

    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    CHECK(ciot_model_parse("a 4 256 fuse=g # gate\nb 4 256 fuse=g\nc 8 512\r\nd 4 256 fuse=g lm_head\n\te 4 256\n",
                           "ok.ops", &m, err, sizeof err) == CIOT_OK, "a good list parses: %s", err);
    if (m.n_ops == 5) {
        CHECK(m.ops[0].fuse == 0 && m.ops[1].fuse == 0 && m.ops[2].fuse == -1 && m.ops[3].fuse == 1 &&
                  m.ops[4].fuse == -1 && m.n_fuse == 2,
              "fuse groups are runs of consecutive ops (%d %d %d %d %d)", m.ops[0].fuse, m.ops[1].fuse,
              m.ops[2].fuse, m.ops[3].fuse, m.ops[4].fuse);
        CHECK(m.ops[3].lm_head && !m.ops[0].lm_head && m.ops[2].rows == 8 && m.ops[2].K == 512 && m.ops[4].line == 5,
              "flags, shapes and lines");
    } else {
        CHECK(0, "5 ops expected, got %d", m.n_ops);
    }
    ciot_model_free(&m);

    /* shapes the layout cannot take, named by line */
    CHECK(ciot_model_parse("a 4 256\n# c\nb 6 256\n", "shape.ops", &m, err, sizeof err) == CIOT_OK, "parses");
    CHECK(ciot_model_check(&m, m.n_ops, &ciot_layout_t2p, err, sizeof err) == CIOT_E_SHAPE &&
              strstr(err, "shape.ops:3:") && strstr(err, "b is 6x256") && strstr(err, "layout t2p needs rows a multiple of 4"),
          "rows 6 refused at line 3: %s", err);
    CHECK(ciot_model_check(&m, 1, &ciot_layout_t2p, err, sizeof err) == CIOT_OK, "the first op alone is fine");
    ciot_model_free(&m);
    CHECK(ciot_model_parse("a 4 128\n", "k.ops", &m, err, sizeof err) == CIOT_OK, "parses");
    CHECK(ciot_model_check(&m, 1, &ciot_layout_t2x4, err, sizeof err) == CIOT_E_SHAPE && strstr(err, "k.ops:1:") &&
              strstr(err, "PQ2_0 needs K a multiple of 256") && !strstr(err, "rows"),
          "K 128 refused for t2x4, by its format's rule alone: %s", err);
    ciot_model_free(&m);

    CHECK(ciot_model_load("no-such-model", &m, err, sizeof err) == CIOT_E_UNKNOWN && strstr(err, "no-such-model") &&
              strstr(err, "bonsai-2-27b") && strstr(err, "tiny-0.6b"),
          "unknown model names the known ones: %s", err);
}

/* ---- the command refuses bad input before the long work ---- */

/* Runs ciot replay with stderr captured into err; returns the exit code. */
static int replay_cmd(char *err, size_t len, int argc, const char **args) {
    char path[512];
    tmp_path(path, sizeof path, "stderr.txt");
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w");
    if (!f || saved < 0) return -100;
    dup2(fileno(f), 2);
    char *argv[32];
    argv[0] = "replay";
    for (int i = 0; i < argc && i < 30; i++) argv[i + 1] = (char *)args[i];
    argv[argc + 1] = NULL;
    int rc = ciot_cmd_replay(argc + 1, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    char *text = slurp(path);
    snprintf(err, len, "%s", text ? text : "");
    free(text);
    remove(path);
    return rc;
}

#define REFUSES(needle, ...)                                                                                         \
    do {                                                                                                             \
        const char *a_[] = {__VA_ARGS__};                                                                            \
        char e_[4096];                                                                                               \
        int rc_ = replay_cmd(e_, sizeof e_, (int)(sizeof a_ / sizeof a_[0]), a_);                                    \
        CHECK(rc_ == 2 && strstr(e_, needle) && !strstr(e_, "read ceiling"),                                         \
              "ciot replay %s: exit %d, expected 2 with '%s' before any work; stderr: %s", #__VA_ARGS__, rc_, needle, \
              e_);                                                                                                   \
    } while (0)

static void test_refusals(void) {
    char bad_line[512], bad_shape[512], huge[512];
    tmp_path(bad_line, sizeof bad_line, "line.ops");
    tmp_path(bad_shape, sizeof bad_shape, "shape.ops");
    tmp_path(huge, sizeof huge, "huge.ops");
    write_file(bad_line, "# ok\na 4 256\nb 4 256 fuse=x lm_hed\n");
    write_file(bad_shape, "a 4 256\nb 1022 5120\n");
    write_file(huge, "small 4 256\nhuge 1048576 1048576\n");
    char where[600];

    REFUSES("--threads '0'", "--model", "tiny-0.6b", "--threads", "0");
    REFUSES("unknown model 'no-such-model'", "--model", "no-such-model");
    snprintf(where, sizeof where, "%s:3: unknown flag 'lm_hed'", bad_line);
    REFUSES(where, "--model", bad_line);
    /* a named kernel must take every op (without one, an op it cannot take keeps the plain path) */
    snprintf(where, sizeof where, "%s:2: b is 1022x5120", bad_shape);
    REFUSES(where, "--model", bad_shape, "--threads", "1", "--kernel", "t2p_gemv_ref");
    REFUSES("available (MemAvailable)", "--model", huge, "--memory", "full", "--threads", "1");
    REFUSES("available (MemAvailable)", "--model", huge, "--threads", "1");
    REFUSES("--straggler thread 2", "--model", "tiny-0.6b", "--threads", "2", "--straggler", "2:200");
    REFUSES("--straggler '1:'", "--model", "tiny-0.6b", "--straggler", "1:");
    REFUSES("--dispatch 'bogus'", "--model", "tiny-0.6b", "--dispatch", "bogus");
    REFUSES("--memory 'disk'", "--model", "tiny-0.6b", "--memory", "disk");
    REFUSES("unknown kernel 'nope'", "--model", "tiny-0.6b", "--kernel", "nope");
    REFUSES("--ops 1000", "--model", "tiny-0.6b", "--ops", "1000");
    REFUSES("--model NAME|FILE is required", "--threads", "1");
    REFUSES("unknown option '--frobnicate'", "--model", "tiny-0.6b", "--frobnicate", "1");
    REFUSES("--json /nonexistent-dir/x.json: no such directory", "--model", "tiny-0.6b", "--json", "/nonexistent-dir/x.json");
    remove(bad_line), remove(bad_shape), remove(huge);
}

/* ---- the profiler's overhead: pairs side by side, "within noise" when their spread holds zero ---- */

/* The timing_overhead object of a replay's JSON: pairs values whose median, min and max are the summary's,
 * and within_noise exactly when min <= 0 <= max. */
static void check_overhead_json(const char *doc, int pairs) {
    const char *ov = doc ? strstr(doc, "\"timing_overhead\": {") : NULL;
    const char *list = ov ? strstr(ov, "\"pct_per_pair\": [") : NULL;
    CHECK(list != NULL, "timing_overhead has pct_per_pair");
    if (!list) return;
    char want[32];
    snprintf(want, sizeof want, "\"pairs\": %d,", pairs);
    CHECK(strstr(ov, want) != NULL && strstr(ov, want) < list, "timing_overhead has %s", want);
    double v[64];
    int n = 0;
    char *end;
    for (const char *c = list + strlen("\"pct_per_pair\": ["); n < 64; c = end + 1) {
        v[n] = strtod(c, &end);
        if (end == c) break;
        n++;
        while (*end == ' ' || *end == '\n') end++;
        if (*end != ',') break;
    }
    CHECK(n == pairs, "pct_per_pair has %d values, expected %d", n, pairs);
    if (n != pairs) return;
    const ciot_spread sp = ciot_spread_of(v, n);
    const char *med = strstr(list, "\"overhead_pct\": "), *lo = strstr(list, "\"min_pct\": "),
               *hi = strstr(list, "\"max_pct\": "), *noise = strstr(list, "\"within_noise\": ");
    CHECK(med && lo && hi && noise, "overhead_pct, min_pct, max_pct, within_noise after pct_per_pair");
    if (!med || !lo || !hi || !noise) return;
    const double m = strtod(med + 16, NULL), a = strtod(lo + 11, NULL), b = strtod(hi + 11, NULL);
    CHECK(m > sp.median - 1e-3 && m < sp.median + 1e-3 && a == sp.min && b == sp.max,
          "overhead median %g, min %g, max %g are the pairs' (%g, %g, %g)", m, a, b, sp.median, sp.min, sp.max);
    const int within = !strncmp(noise + 16, "true", 4);
    CHECK(within == (a <= 0 && 0 <= b), "within_noise %d with the pairs from %g to %g", within, a, b);
}

static const char *overhead_line(const ciot_replay_report *rep, char *buf, size_t len) {
    FILE *f = tmpfile();
    buf[0] = 0;
    if (!f) return buf;
    ciot_replay_print_overhead(f, rep);
    rewind(f);
    size_t got = fread(buf, 1, len - 1, f);
    buf[got] = 0;
    fclose(f);
    return buf;
}

static void test_overhead(void) {
    /* the order flips every second pair: over 4 pairs each order meets each probe position once */
    int seen[2][2] = {{0}};
    for (int p = 0; p < 4; p++) seen[ciot_overhead_timed_first(p)][ciot_probe_first(p)]++;
    CHECK(seen[0][0] == 1 && seen[0][1] == 1 && seen[1][0] == 1 && seen[1][1] == 1,
          "timed first on pairs 0 and 1, untimed first on 2 and 3: each with the probe before and after");
    CHECK(ciot_overhead_timed_first(4) && ciot_overhead_timed_first(5) && !ciot_overhead_timed_first(6),
          "the pattern repeats every 4 pairs");

    const double mixed[] = {3, -1, 2}, slower[] = {1, 4, 2, 3}, faster[] = {-2, -1}, edge[] = {0, 1};
    ciot_overhead o = ciot_overhead_of(mixed, 3);
    CHECK(o.pairs == 3 && o.median_pct == 2 && o.min_pct == -1 && o.max_pct == 3 && o.within_noise,
          "{3, -1, 2}: median 2, -1 to 3, within noise (%d %g %g %g %d)", o.pairs, o.median_pct, o.min_pct,
          o.max_pct, o.within_noise);
    CHECK(mixed[0] == 3 && mixed[1] == -1, "the per-pair values keep their order");
    o = ciot_overhead_of(slower, 4);
    CHECK(o.median_pct == 2.5 && o.min_pct == 1 && o.max_pct == 4 && !o.within_noise, "{1, 4, 2, 3}: a finding");
    CHECK(!ciot_overhead_of(faster, 2).within_noise, "every pair faster: not within noise either");
    CHECK(ciot_overhead_of(edge, 2).within_noise, "a pair at exactly 0 is inside the spread");

    char line[512];
    ciot_replay_report rep = {.overhead_dispatch = CIOT_DISPATCH_STATIC, .overhead = ciot_overhead_of(mixed, 3),
                              .overhead_on_ms = 10.2, .overhead_off_ms = 10};
    overhead_line(&rep, line, sizeof line);
    CHECK(strstr(line, "profiler overhead (static, 3 pairs") && strstr(line, "within noise, -1.00% to +3.00%") &&
              strstr(line, "(median +2.00%)"),
          "a spread around zero is printed as within noise: %s", line);
    rep.overhead = ciot_overhead_of(slower, 4);
    overhead_line(&rep, line, sizeof line);
    CHECK(strstr(line, "+2.50% median, +1.00% to +4.00%: every pair slower with timing") && !strstr(line, "noise"),
          "a spread above zero is a finding: %s", line);
    rep.overhead = ciot_overhead_of(faster, 2);
    overhead_line(&rep, line, sizeof line);
    CHECK(strstr(line, "every pair faster with timing"), "a spread below zero says faster: %s", line);
}

/* ---- a short run of every dispatch writes the schema ---- */

static void test_short_run(void) {
    char json[512], err[4096];
    tmp_path(json, sizeof json, "replay.json");
    const char *args[] = {"--model", "tiny-0.6b", "--ops", "3", "--threads", "2", "--tokens", "2", "--memory", "full",
                          "--ceiling-size", "4M", "--dispatch", "all", "--json", json};
    int rc = replay_cmd(err, sizeof err, (int)(sizeof args / sizeof args[0]), args);
    CHECK(rc == 0, "short replay exits 0 (%d): %s", rc, err);
    /* 2 tokens: 2 pairs from the rounds, 3 more after them, timed first on pairs 0, 1 and 4 */
    CHECK(strstr(err, "without timing") && strstr(err, "overhead pair 3/5: static") &&
              strstr(err, "overhead pair 5/5") && !strstr(err, "overhead pair 2/") && !strstr(err, "overhead pair 6/"),
          "2 tokens give 2 pairs in the rounds and 3 after them: %s", err);
    char *doc = slurp(json);
    check_overhead_json(doc, 5);
    CHECK(doc != NULL, "JSON written to %s", json);
    /* the default kernel: the fastest this CPU runs for PQ2_0 (the first op's shape takes every layout) */
    char chosen[128];
    snprintf(chosen, sizeof chosen, "\"kernel\": \"%s\"", ciot_kernel_best_source(CIOT_FMT_PQ2_0, CIOT_OP_GEMV, ciot_cpu_features())->name);
    CHECK(doc && strstr(doc, chosen), "JSON has %s", chosen);
    if (doc) {
        static const char *const keys[] = {
            "\"context\": {", "\"model\": \"tiny-0.6b\"", "\"model_file\": ", "\"threads\": 2", "\"pinning\": \"",
            "\"batch\": 1", "\"memory\": \"full\"", "\"tokens\": 2", "\"ceiling_gbs\": ", "\"weight_bytes_per_token\": ",
            "\"timing_overhead\": {", "\"on_ms_per_token\": ", "\"off_ms_per_token\": ", "\"overhead_pct\": ",
            "\"pairs\": 5", "\"pct_per_pair\": [", "\"min_pct\": ", "\"max_pct\": ", "\"within_noise\": ",
            "\"straggler\": null", "\"runs\": [", "\"dispatch\": \"static\"", "\"dispatch\": \"chunks\"",
            "\"dispatch\": \"fused\"", "\"ms_per_token\": {", "\"median\": ", "\"tok_s\": ", "\"bound_tok_s\": ",
            "\"gbs\": ", "\"pct_ceiling\": ", "\"wait_share\": ", "\"ops\": [", "\"name\": \"blk.0.attn_q\"",
            "\"name\": \"blk.0.attn_q+attn_k+attn_v\"", "\"rows\": 2048", "\"K\": 1024", "\"bytes\": 557056",
            "\"lm_head\": false", "\"wall_us\": ", "\"busy_us\": ", "\"wait_us\": ", "\"slowest\": ["};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            CHECK(strstr(doc, keys[i]) != NULL, "JSON has %s", keys[i]);
        free(doc);
    }
    remove(json);

    /* prompt processing: the layout's gemm kernel, a batch that leaves the last Q8_Kx4 group partial */
    const char *gemm[] = {"--model", "tiny-0.6b", "--ops", "2", "--threads", "2", "--tokens", "1", "--memory", "full",
                          "--ceiling-size", "4M", "--batch", "5", "--dispatch", "chunks", "--json", json};
    rc = replay_cmd(err, sizeof err, (int)(sizeof gemm / sizeof gemm[0]), gemm);
    CHECK(rc == 0, "batch replay exits 0 (%d): %s", rc, err);
    doc = slurp(json);
    CHECK(doc && strstr(doc, "_gemm_") && strstr(doc, "\"batch\": 5"), "batch replay uses a gemm kernel");
    free(doc);
    remove(json);

    /* a named gemv kernel with --batch > 1 gives way to its layout's gemm: the plain PQ2_0 layout's is the
     * reference per activation row */
    const char *plain[] = {"--model", "tiny-0.6b", "--ops", "1", "--threads", "1", "--tokens", "1", "--memory", "full",
                           "--ceiling-size", "4M", "--batch", "4", "--dispatch", "static", "--kernel", "pq2_0_gemv_ref",
                           "--json", json};
    rc = replay_cmd(err, sizeof err, (int)(sizeof plain / sizeof plain[0]), plain);
    CHECK(rc == 0, "batch replay with pq2_0_gemv_ref exits 0 (%d): %s", rc, err);
    doc = slurp(json);
    CHECK(doc && strstr(doc, "\"kernel\": \"pq2_0_gemm_ref\""), "batch replay with pq2_0_gemv_ref runs pq2_0_gemm_ref");
    free(doc);
    remove(json);

    /* 6 tokens: the rounds' 6 pairs, none added */
    const char *six[] = {"--model", "tiny-0.6b", "--ops", "1", "--threads", "1", "--tokens", "6", "--memory", "full",
                         "--ceiling-size", "4M", "--dispatch", "chunks", "--json", json};
    rc = replay_cmd(err, sizeof err, (int)(sizeof six / sizeof six[0]), six);
    CHECK(rc == 0 && !strstr(err, "overhead pair") && strstr(err, "chunks without timing"),
          "6 tokens add no overhead pairs (%d): %s", rc, err);
    doc = slurp(json);
    check_overhead_json(doc, 6);
    const char *ov = doc ? strstr(doc, "\"timing_overhead\": {") : NULL;
    CHECK(ov && strstr(ov, "\"dispatch\": \"chunks\"") == strstr(ov, "\"dispatch\": "),
          "the pairs are of the first dispatch (chunks)");
    free(doc);
    remove(json);

    /* more threads than cores: the JSON says the cores are shared, never one thread per core */
    const int cores = ciot_topo_cores();
    char over[16], shared[160];
    snprintf(over, sizeof over, "%d", cores + 1);
    snprintf(shared, sizeof shared, "\"pinning\": \"%d threads on %d cores: cores shared (round-robin)\"", cores + 1,
             cores);
    const char *crowd[] = {"--model", "tiny-0.6b", "--ops", "1", "--threads", over, "--tokens", "1", "--memory", "full",
                           "--ceiling-size", "4M", "--dispatch", "static", "--json", json};
    rc = replay_cmd(err, sizeof err, (int)(sizeof crowd / sizeof crowd[0]), crowd);
    CHECK(rc == 0, "oversubscribed replay exits 0 (%d): %s", rc, err);
    doc = slurp(json);
    CHECK(doc && (strstr(doc, shared) || strstr(doc, "\"pinning\": \"pinning failed\"")),
          "oversubscribed replay JSON says %s (or that pinning failed)", shared);
    free(doc);
    remove(json);
}

/* ---- memory: the ring wraps, full restarts every token; sanitizers see any overrun ---- */

static void test_memory(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    if (ciot_model_load("tiny-0.6b", &m, err, sizeof err) != CIOT_OK) return;
    const ciot_kernel *k = ciot_kernel_best(&ciot_layout_t2p, CIOT_OP_GEMV, ciot_cpu_features());
    ciot_pool_opts po = {.threads = 2};
    ciot_pool *p;
    if (ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &p) != CIOT_OK) {
        CHECK(0, "pool");
        ciot_model_free(&m);
        return;
    }
    size_t full, group;
    ciot_replay_sizes(&m, 7, k->layout, &full, &group, NULL);
    for (int mem = 0; mem < 2; mem++) {
        ciot_replay_opts o = {.model = &m, .n_ops = 7, .kernel = k, .batch = 1, .chunk = 4, .straggler = -1,
                              .memory = mem ? CIOT_MEMORY_RING : CIOT_MEMORY_FULL, .ring_bytes = 2 * group + 4096};
        ciot_replay *r;
        ciot_status st = ciot_replay_create(&o, 2, &r);
        CHECK(st == CIOT_OK, "replay create (%s)", mem ? "ring" : "full");
        if (st != CIOT_OK) continue;
        CHECK(ciot_replay_memory_bytes(r) == (mem ? 2 * group + 4096 : full), "region bytes %zu",
              ciot_replay_memory_bytes(r));
        const ciot_replay_step *steps;
        CHECK(ciot_replay_steps(r, CIOT_DISPATCH_STATIC, &steps) == 7 && ciot_replay_steps(r, CIOT_DISPATCH_FUSED, NULL) == 4,
              "7 op steps, 4 fused steps");
        ciot_replay_record rec;
        CHECK(ciot_replay_record_alloc(&rec, 7, 2) == CIOT_OK, "record");
        for (int t = 0; t < 3; t++)
            for (int d = 0; d < CIOT_DISPATCH_N; d++) {
                ciot_replay_token(r, p, (ciot_dispatch)d, &rec);
                ciot_replay_token(r, p, (ciot_dispatch)d, NULL);
            }
        CHECK(rec.token_ns > 0 && rec.wall_ns[0] > 0 && rec.busy_ns[0] > 0, "timed steps recorded");
        ciot_replay_record_free(&rec);
        ciot_replay_destroy(r);
    }
    ciot_pool_destroy(p);
    ciot_model_free(&m);
}

/* ---- a straggler shows up as wait on the other thread ---- */

/* Static dispatch, thread `late` delayed `us` per op: the median over ops of the other thread's wait
 * over the injected time (ciot_straggler_wait_ratio). Busy-waits, so it needs two cores. */
static double straggler_ratio(ciot_model *m, const ciot_kernel *k, ciot_pool *p, int late, double us, int tokens) {
    ciot_replay_opts o = {.model = m, .n_ops = m->n_ops, .kernel = k, .batch = 1, .chunk = 16, .straggler = late,
                          .straggler_us = us, .memory = CIOT_MEMORY_FULL};
    ciot_replay *r;
    if (ciot_replay_create(&o, 2, &r) != CIOT_OK) return -1;
    const ciot_replay_step *steps;
    const int n = ciot_replay_steps(r, CIOT_DISPATCH_STATIC, &steps);
    ciot_replay_record *recs = calloc((size_t)tokens, sizeof *recs);
    double ratio = -1;
    int ok = recs != NULL;
    for (int i = 0; ok && i < tokens; i++) ok = ciot_replay_record_alloc(&recs[i], n, 2) == CIOT_OK;
    if (ok) {
        ciot_replay_token(r, p, CIOT_DISPATCH_STATIC, &recs[0]);    /* warm-up */
        for (int i = 0; i < tokens; i++) ciot_replay_token(r, p, CIOT_DISPATCH_STATIC, &recs[i]);
        ciot_run_stats s;
        if (ciot_run_stats_compute(CIOT_DISPATCH_STATIC, recs, tokens, steps, n, 2, 1, ciot_replay_weight_bytes(r), 0,
                                   &s) == CIOT_OK) {
            ratio = ciot_straggler_wait_ratio(&s, late);
            double injected = 0;
            for (int i = 0; i < n; i++) injected += s.step[i].injected_us[late];
            CHECK(injected >= us * n && injected < us * n * 10, "injected %.0f us over %d ops of %.0f us", injected, n, us);
            CHECK(s.step[0].injected_us[1 - late] == 0, "only the straggler has injected time");
            ciot_run_stats_free(&s);
        }
    }
    for (int i = 0; recs && i < tokens; i++) ciot_replay_record_free(&recs[i]);
    free(recs);
    ciot_replay_destroy(r);
    return ratio;
}

static void test_straggler(void) {
    if (ciot_topo_cores() < 2) {
        printf("skipped: the straggler test needs two cores (this machine has %d)\n", ciot_topo_cores());
        return;
    }
    const ciot_kernel *k = ciot_kernel_best(&ciot_layout_t2p, CIOT_OP_GEMV, ciot_cpu_features());
    ciot_pool_opts po = {.threads = 2, .pin = 1};
    ciot_pool *p;
    if (ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &p) != CIOT_OK) {
        CHECK(0, "pool");
        return;
    }
    /* The check: ops of one 4-row tile per thread, so each thread's own work is a microsecond and a
     * busy machine cannot hide the delay behind the other thread's own slowness. Both directions:
     * a delayed worker (the caller waits) and a delayed caller (the worker waits). */
    char text[1024] = "", err[CIOT_MODEL_ERR_MAX];
    for (int i = 0; i < 16; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "op.%d 8 256\n", i);
    ciot_model small;
    if (ciot_model_parse(text, "small.ops", &small, err, sizeof err) == CIOT_OK) {
        for (int late = 0; late < 2; late++) {
            double best = -1;
            for (int attempt = 0; attempt < 4 && best < 0.9; attempt++) {
                const double ratio = straggler_ratio(&small, k, p, late, 200, 9);
                best = ratio > best ? ratio : best;
            }
            printf("straggler 200 us on thread %d (static, 16 ops of 8x256, %s): thread %d waited %.1f%% of it\n", late,
                   k->name, 1 - late, 100 * best);
            CHECK(best >= 0.9, "a 200 us straggler on thread %d shows up as >= 90%% wait on the other (best %.1f%%)",
                  late, 100 * best);
        }
        ciot_model_free(&small);
    }
    /* For information: a tiny-model layer, where each thread's slice takes hundreds of microseconds;
     * on a shared machine the other thread's core may be the busier one and hide part of the delay. */
    ciot_model m;
    if (ciot_model_load("tiny-0.6b", &m, err, sizeof err) == CIOT_OK) {
        m.n_ops = 7;
        printf("straggler 200 us on thread 1 (static, tiny-0.6b layer 0, %s): thread 0 waited %.1f%% of it "
               "(information only)\n", k->name, 100 * straggler_ratio(&m, k, p, 1, 200, 5));
        ciot_model_free(&m);
    }
    ciot_pool_destroy(p);
}

int main(void) {
    test_bonsai();
    test_tiny();
    test_parse_errors();
    test_refusals();
    test_memory();
    test_overhead();
    test_short_run();
    test_straggler();
    return check_summary();
}
